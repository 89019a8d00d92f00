"""Research TF 1.x programs, continued (test_programs_research27a.py): what cbfinn/maml's
omniglot model and other second-order programs exercise; expected values are TF 1.15's
(measured)."""

# (the programs are kept as their authors wrote them)
# ruff: noqa: PIE808, SIM118, UP004, UP008, UP031, UP032

import numpy as np
import pytest

import tideflow as tf
from tests import test_programs_research27a as research27a
from tests.test_programs_research27a import maml_sinusoid


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


class _MamlFlags(research27a._MamlFlags):
    norm = "None"


def test_second_order_gradients_through_fused_batch_norm_compose_as_tf():
    # cbfinn/maml utils.py normalize (contrib batch_norm, fused on 4-D) inside the inner
    # gradient step: the meta-gradient differentiates FusedBatchNormGradV3, which TF 1.15
    # writes out as _BatchNormGrad (rsqrt twice, a reciprocal, the centred products); the
    # other composition was 1-2 ulps off. Values printed by TF 1.15 (measured).
    rs = np.random.RandomState(0)
    x = rs.rand(3, 4, 4, 4).astype(np.float32)
    w0 = (rs.randn(4, 4) * 0.5).astype(np.float32)
    xt = tf.constant(x)
    wv = tf.Variable(w0)
    with tf.variable_scope("m"):
        h = tf.contrib.layers.batch_norm(xt, activation_fn=tf.nn.relu, scope="0")
    y = tf.reduce_mean(h, [1, 2])
    loss = tf.reduce_sum(tf.square(tf.matmul(y, wv)))
    beta = next(v for v in tf.trainable_variables() if "beta" in v.name)
    gx = tf.gradients(loss, xt)[0]
    g2 = tf.gradients(tf.reduce_sum(tf.square(gx)), [beta, wv])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        g2b, g2w = s.run(g2)
    np.testing.assert_array_equal(g2b, np.array([
        0.30770325660705566, -0.1770016998052597, 0.3797991871833801, 0.2673310339450836],
        np.float32))
    np.testing.assert_array_equal(g2w.ravel()[:6], np.array([
        0.26280561089515686, 0.4570537805557251, -0.1859547346830368, -0.4352404475212097,
        0.23538541793823242, 0.20264868438243866], np.float32))


def test_pinn_kdv_discrete_time_forward_mode_gradients_through_dummies(capsys):
    # maziarraissi/PINNs main/discrete_time_identification (KdV)/KdV.py: U_x, U_xx, U_xxx as
    # forward-mode gradients (tf.gradients with grad_ys a dummy placeholder, then again), IRK
    # weights (synthetic, q=3), L-BFGS-B from the initial weights (nIter=0 Adam steps); reduced to synthetic data (TF 1.15's printed output, measured)
    np.random.seed(1234)
    tf.set_random_seed(1234)

    class PhysicsInformedNN:
        def __init__(self, x0, u0, x1, u1, layers, dt, lb, ub, q):
            self.lb = lb
            self.ub = ub
            self.x0 = x0
            self.x1 = x1
            self.u0 = u0
            self.u1 = u1
            self.layers = layers
            self.dt = dt
            self.q = max(q,1)
            self.weights, self.biases = self.initialize_NN(layers)
            self.lambda_1 = tf.Variable([0.0], dtype=tf.float32)
            self.lambda_2 = tf.Variable([-6.0], dtype=tf.float32)
            tmp = np.float32(np.random.rand(q**2 + q + q, 1) / 3)
            weights =  np.reshape(tmp[0:q**2+q], (q+1,q))
            self.IRK_alpha = weights[0:-1,:]
            self.IRK_beta = weights[-1:,:]
            self.IRK_times = tmp[q**2+q:]
            self.sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True))
            self.x0_tf = tf.placeholder(tf.float32, shape=(None, self.x0.shape[1]))
            self.x1_tf = tf.placeholder(tf.float32, shape=(None, self.x1.shape[1]))
            self.u0_tf = tf.placeholder(tf.float32, shape=(None, self.u0.shape[1]))
            self.u1_tf = tf.placeholder(tf.float32, shape=(None, self.u1.shape[1]))
            self.dummy_x0_tf = tf.placeholder(tf.float32, shape=(None, self.q))
            self.dummy_x1_tf = tf.placeholder(tf.float32, shape=(None, self.q))
            self.U0_pred = self.net_U0(self.x0_tf)
            self.U1_pred = self.net_U1(self.x1_tf)
            self.loss = tf.reduce_sum(tf.square(self.u0_tf - self.U0_pred)) + \
                        tf.reduce_sum(tf.square(self.u1_tf - self.U1_pred))
            self.optimizer = tf.contrib.opt.ScipyOptimizerInterface(self.loss,
                                                                    method = 'L-BFGS-B',
                                                                    options = {'maxiter': 8,
                                                                               'maxfun': 50000,
                                                                               'maxcor': 50,
                                                                               'maxls': 50,
                                                                               'ftol' : 1.0 * np.finfo(float).eps})
            self.optimizer_Adam = tf.train.AdamOptimizer()
            self.train_op_Adam = self.optimizer_Adam.minimize(self.loss)
            init = tf.global_variables_initializer()
            self.sess.run(init)

        def initialize_NN(self, layers):
            weights = []
            biases = []
            num_layers = len(layers)
            for l in range(0,num_layers-1):
                W = self.xavier_init(size=[layers[l], layers[l+1]])
                b = tf.Variable(tf.zeros([1,layers[l+1]], dtype=tf.float32), dtype=tf.float32)
                weights.append(W)
                biases.append(b)
            return weights, biases

        def xavier_init(self, size):
            in_dim = size[0]
            out_dim = size[1]
            xavier_stddev = np.sqrt(2/(in_dim + out_dim))
            return tf.Variable(tf.truncated_normal([in_dim, out_dim], stddev=xavier_stddev), dtype=tf.float32)

        def neural_net(self, X, weights, biases):
            num_layers = len(weights) + 1
            H = 2.0*(X - self.lb)/(self.ub - self.lb) - 1.0
            for l in range(0,num_layers-2):
                W = weights[l]
                b = biases[l]
                H = tf.tanh(tf.add(tf.matmul(H, W), b))
            W = weights[-1]
            b = biases[-1]
            Y = tf.add(tf.matmul(H, W), b)
            return Y

        def fwd_gradients_0(self, U, x):
            g = tf.gradients(U, x, grad_ys=self.dummy_x0_tf)[0]
            return tf.gradients(g, self.dummy_x0_tf)[0]

        def fwd_gradients_1(self, U, x):
            g = tf.gradients(U, x, grad_ys=self.dummy_x1_tf)[0]
            return tf.gradients(g, self.dummy_x1_tf)[0]

        def net_U0(self, x):
            lambda_1 = self.lambda_1
            lambda_2 = tf.exp(self.lambda_2)
            U = self.neural_net(x, self.weights, self.biases)
            U_x = self.fwd_gradients_0(U, x)
            U_xx = self.fwd_gradients_0(U_x, x)
            U_xxx = self.fwd_gradients_0(U_xx, x)
            F = -lambda_1*U*U_x - lambda_2*U_xxx
            U0 = U - self.dt*tf.matmul(F, self.IRK_alpha.T)
            return U0

        def net_U1(self, x):
            lambda_1 = self.lambda_1
            lambda_2 = tf.exp(self.lambda_2)
            U = self.neural_net(x, self.weights, self.biases)
            U_x = self.fwd_gradients_1(U, x)
            U_xx = self.fwd_gradients_1(U_x, x)
            U_xxx = self.fwd_gradients_1(U_xx, x)
            F = -lambda_1*U*U_x - lambda_2*U_xxx
            U1 = U + self.dt*tf.matmul(F, (self.IRK_beta - self.IRK_alpha).T)
            return U1

        def callback(self, loss):
            print('Loss:', loss)

        def train(self, nIter):
            tf_dict = {self.x0_tf: self.x0, self.u0_tf: self.u0,
                       self.x1_tf: self.x1, self.u1_tf: self.u1,
                       self.dummy_x0_tf: np.ones((self.x0.shape[0], self.q)),
                       self.dummy_x1_tf: np.ones((self.x1.shape[0], self.q))}
            for it in range(nIter):
                self.sess.run(self.train_op_Adam, tf_dict)
                if it % 4 == 0:
                    loss_value = self.sess.run(self.loss, tf_dict)
                    lambda_1_value = self.sess.run(self.lambda_1)
                    lambda_2_value = np.exp(self.sess.run(self.lambda_2))
                    print('It: %d, Loss: %.3e, l1: %.3f, l2: %.5f' %
                          (it, loss_value, lambda_1_value[0], lambda_2_value[0]))
            self.optimizer.minimize(self.sess,
                                    feed_dict = tf_dict,
                                    fetches = [self.loss],
                                    loss_callback = self.callback)

        def predict(self, x_star):
            U0_star = self.sess.run(self.U0_pred, {self.x0_tf: x_star, self.dummy_x0_tf: np.ones((x_star.shape[0], self.q))})
            U1_star = self.sess.run(self.U1_pred, {self.x1_tf: x_star, self.dummy_x1_tf: np.ones((x_star.shape[0], self.q))})
            return U0_star, U1_star

    q = 3
    layers = [1, 10, 10, q]
    x_star = np.linspace(-1, 1, 40)[:, None]
    Exact0 = np.cos(np.pi * x_star[:, 0]); Exact1 = np.cos(np.pi * x_star[:, 0] - 0.3)
    lb = x_star.min(0)
    ub = x_star.max(0)
    dt = 0.6
    idx_x = np.random.choice(40, 15, replace=False)
    x0 = x_star[idx_x,:]
    u0 = Exact0[idx_x][:,None]
    idx_x = np.random.choice(40, 16, replace=False)
    x1 = x_star[idx_x,:]
    u1 = Exact1[idx_x][:,None]
    model = PhysicsInformedNN(x0, u0, x1, u1, layers, dt, lb, ub, q)
    model.train(nIter = 0)
    U0_pred, U1_pred = model.predict(x_star)
    lambda_1_value = model.sess.run(model.lambda_1)
    lambda_2_value = np.exp(model.sess.run(model.lambda_2))
    print('l1 %.6f l2 %.6f' % (lambda_1_value[0], lambda_2_value[0]))
    print(U0_pred.shape, U1_pred.dtype, model.U0_pred, model.loss.name)
    assert capsys.readouterr().out == 'Loss: 55.071533\nLoss: 74.24485\nLoss: 52.622093\nLoss: 51.711014\nLoss: 50.94126\nLoss: 50.059082\nLoss: 49.354527\nLoss: 47.80777\nLoss: 44.16319\nLoss: 38.589478\nLoss: 32.409916\nLoss: 30.495268\nl1 0.045789 l2 0.002480\n(40, 3) float32 Tensor("sub_3:0", shape=(?, 3), dtype=float32) add_7:0\n'


def test_maml_sinusoid_without_normalization(capsys):
    # cbfinn/maml with --norm=None: placeholders of unknown rank mapped by tf.map_fn, two inner
    # steps, the meta-gradient of the second post-update loss (TF 1.15's printed output,
    # measured)
    maml_sinusoid(_MamlFlags, None)
    assert capsys.readouterr().out == '[\'beta1_power:0\', \'beta1_power_1:0\', \'beta2_power:0\', \'beta2_power_1:0\', \'model/Variable/Adam:0\', \'model/Variable/Adam_1:0\', \'model/Variable/Adam_2:0\', \'model/Variable/Adam_3:0\', \'model/Variable:0\', \'model/Variable_1/Adam:0\', \'model/Variable_1/Adam_1:0\', \'model/Variable_1/Adam_2:0\']\n0 Tensor("truediv:0", shape=(), dtype=float32) Tensor("model/map/TensorArrayStack_1/TensorArrayGatherV3:0", dtype=float32)\nIteration 0: 2.4737792, 3.1016872\nIteration 3: 1.9047784, 2.7875242\nIteration 6: 2.7578394, 3.8078768\nIteration 9: 3.171804, 4.1036315\n(4, 5, 1) (4, 5, 1) [3.98478, 3.9794586, 3.974161]\n'


def test_graphsage_uniform_sampler_mean_aggregators_training(capsys):
    # williamleif/GraphSAGE neigh_samplers.py, aggregators.py (MeanAggregator), layers.py,
    # supervised_models.py, supervised_train.py: embedding_lookup of the adjacency, random_shuffle
    # of its transpose, tf.slice, two hops, clipped gradients. Batch 7 and GradientDescent (the
    # program's Adam): TF 1.15's rsqrt/sqrt on whole 8-float packets is the CPU's approximation,
    # which no IEEE arithmetic reproduces (docs/design.md); with 8 rows or Adam the values
    # differ in the last ulp; reduced to synthetic data (TF 1.15's printed output, measured)
    from collections import namedtuple
    np.random.seed(123)
    tf.set_random_seed(123)
    _LAYER_UIDS = {}

    def get_layer_uid(layer_name=''):
        if layer_name not in _LAYER_UIDS:
            _LAYER_UIDS[layer_name] = 1
            return 1
        else:
            _LAYER_UIDS[layer_name] += 1
            return _LAYER_UIDS[layer_name]

    def glorot(shape, name=None):
        init_range = np.sqrt(6.0/(shape[0]+shape[1]))
        initial = tf.random_uniform(shape, minval=-init_range, maxval=init_range, dtype=tf.float32)
        return tf.Variable(initial, name=name)

    def zeros(shape, name=None):
        initial = tf.zeros(shape, dtype=tf.float32)
        return tf.Variable(initial, name=name)

    class Layer(object):
        def __init__(self, **kwargs):
            allowed_kwargs = {'name', 'logging', 'model_size'}
            for kwarg in kwargs.keys():
                assert kwarg in allowed_kwargs, 'Invalid keyword argument: ' + kwarg
            name = kwargs.get('name')
            if not name:
                layer = self.__class__.__name__.lower()
                name = layer + '_' + str(get_layer_uid(layer))
            self.name = name
            self.vars = {}
            self.logging = kwargs.get('logging', False)
            self.sparse_inputs = False
        def _call(self, inputs):
            return inputs
        def __call__(self, inputs):
            with tf.name_scope(self.name):
                outputs = self._call(inputs)
                return outputs

    class Dense(Layer):
        def __init__(self, input_dim, output_dim, dropout=0., act=tf.nn.relu, placeholders=None,
                     bias=True, featureless=False, sparse_inputs=False, **kwargs):
            super(Dense, self).__init__(**kwargs)
            self.dropout = dropout
            self.act = act
            self.featureless = featureless
            self.bias = bias
            self.input_dim = input_dim
            self.output_dim = output_dim
            self.sparse_inputs = sparse_inputs
            with tf.variable_scope(self.name + '_vars'):
                self.vars['weights'] = tf.get_variable('weights', shape=(input_dim, output_dim),
                                             dtype=tf.float32,
                                             initializer=tf.contrib.layers.xavier_initializer(),
                                             regularizer=tf.contrib.layers.l2_regularizer(0.0005))
                if self.bias:
                    self.vars['bias'] = zeros([output_dim], name='bias')
        def _call(self, inputs):
            x = inputs
            x = tf.nn.dropout(x, 1-self.dropout)
            output = tf.matmul(x, self.vars['weights'])
            if self.bias:
                output += self.vars['bias']
            return self.act(output)

    class UniformNeighborSampler(Layer):
        def __init__(self, adj_info, **kwargs):
            super(UniformNeighborSampler, self).__init__(**kwargs)
            self.adj_info = adj_info
        def _call(self, inputs):
            ids, num_samples = inputs
            adj_lists = tf.nn.embedding_lookup(self.adj_info, ids)
            adj_lists = tf.transpose(tf.random_shuffle(tf.transpose(adj_lists)))
            adj_lists = tf.slice(adj_lists, [0,0], [-1, num_samples])
            return adj_lists

    class MeanAggregator(Layer):
        def __init__(self, input_dim, output_dim, neigh_input_dim=None,
                dropout=0., bias=False, act=tf.nn.relu,
                name=None, concat=False, **kwargs):
            super(MeanAggregator, self).__init__(**kwargs)
            self.dropout = dropout
            self.bias = bias
            self.act = act
            self.concat = concat
            if neigh_input_dim is None:
                neigh_input_dim = input_dim
            if name is not None:
                name = '/' + name
            else:
                name = ''
            with tf.variable_scope(self.name + name + '_vars'):
                self.vars['neigh_weights'] = glorot([neigh_input_dim, output_dim], name='neigh_weights')
                self.vars['self_weights'] = glorot([input_dim, output_dim], name='self_weights')
                if self.bias:
                    self.vars['bias'] = zeros([self.output_dim], name='bias')
            self.input_dim = input_dim
            self.output_dim = output_dim
        def _call(self, inputs):
            self_vecs, neigh_vecs = inputs
            neigh_vecs = tf.nn.dropout(neigh_vecs, 1-self.dropout)
            self_vecs = tf.nn.dropout(self_vecs, 1-self.dropout)
            neigh_means = tf.reduce_mean(neigh_vecs, axis=1)
            from_neighs = tf.matmul(neigh_means, self.vars['neigh_weights'])
            from_self = tf.matmul(self_vecs, self.vars["self_weights"])
            if not self.concat:
                output = tf.add_n([from_self, from_neighs])
            else:
                output = tf.concat([from_self, from_neighs], axis=1)
            if self.bias:
                output += self.vars['bias']
            return self.act(output)

    SAGEInfo = namedtuple("SAGEInfo", ['layer_name', 'neigh_sampler', 'num_samples', 'output_dim'])

    class SupervisedGraphsage(object):
        def __init__(self, num_classes, placeholders, features, adj, degrees, layer_infos,
                     concat=True, aggregator_type="mean", model_size="small", sigmoid_loss=False,
                     identity_dim=0, **kwargs):
            self.name = self.__class__.__name__.lower()
            self.aggregator_cls = MeanAggregator
            self.inputs1 = placeholders["batch"]
            self.model_size = model_size
            self.adj_info = adj
            self.embeds = None
            self.features = tf.Variable(tf.constant(features, dtype=tf.float32), trainable=False)
            self.degrees = degrees
            self.concat = concat
            self.num_classes = num_classes
            self.sigmoid_loss = sigmoid_loss
            self.dims = [(0 if features is None else features.shape[1]) + identity_dim]
            self.dims.extend([layer_infos[i].output_dim for i in range(len(layer_infos))])
            self.batch_size = placeholders["batch_size"]
            self.placeholders = placeholders
            self.layer_infos = layer_infos
            self.optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.5)
            self.build()

        def sample(self, inputs, layer_infos, batch_size=None):
            if batch_size is None:
                batch_size = self.batch_size
            samples = [inputs]
            support_size = 1
            support_sizes = [support_size]
            for k in range(len(layer_infos)):
                t = len(layer_infos) - k - 1
                support_size *= layer_infos[t].num_samples
                sampler = layer_infos[t].neigh_sampler
                node = sampler((samples[k], layer_infos[t].num_samples))
                samples.append(tf.reshape(node, [support_size * batch_size,]))
                support_sizes.append(support_size)
            return samples, support_sizes

        def aggregate(self, samples, input_features, dims, num_samples, support_sizes, batch_size=None,
                aggregators=None, name=None, concat=False, model_size="small"):
            if batch_size is None:
                batch_size = self.batch_size
            hidden = [tf.nn.embedding_lookup(input_features, node_samples) for node_samples in samples]
            new_agg = aggregators is None
            if new_agg:
                aggregators = []
            for layer in range(len(num_samples)):
                if new_agg:
                    dim_mult = 2 if concat and (layer != 0) else 1
                    if layer == len(num_samples) - 1:
                        aggregator = self.aggregator_cls(dim_mult*dims[layer], dims[layer+1], act=lambda x : x,
                                dropout=self.placeholders['dropout'],
                                name=name, concat=concat, model_size=model_size)
                    else:
                        aggregator = self.aggregator_cls(dim_mult*dims[layer], dims[layer+1],
                                dropout=self.placeholders['dropout'],
                                name=name, concat=concat, model_size=model_size)
                    aggregators.append(aggregator)
                else:
                    aggregator = aggregators[layer]
                next_hidden = []
                for hop in range(len(num_samples) - layer):
                    dim_mult = 2 if concat and (layer != 0) else 1
                    neigh_dims = [batch_size * support_sizes[hop],
                                  num_samples[len(num_samples) - hop - 1],
                                  dim_mult*dims[layer]]
                    h = aggregator((hidden[hop],
                                    tf.reshape(hidden[hop + 1], neigh_dims)))
                    next_hidden.append(h)
                hidden = next_hidden
            return hidden[0], aggregators

        def build(self):
            samples1, support_sizes1 = self.sample(self.inputs1, self.layer_infos)
            num_samples = [layer_info.num_samples for layer_info in self.layer_infos]
            self.outputs1, self.aggregators = self.aggregate(samples1, [self.features], self.dims, num_samples,
                    support_sizes1, concat=self.concat, model_size=self.model_size)
            dim_mult = 2 if self.concat else 1
            self.outputs1 = tf.nn.l2_normalize(self.outputs1, 1)
            dim_mult = 2 if self.concat else 1
            self.node_pred = Dense(dim_mult*self.dims[-1], self.num_classes,
                    dropout=self.placeholders['dropout'],
                    act=lambda x : x)
            self.node_preds = self.node_pred(self.outputs1)
            self._loss()
            grads_and_vars = self.optimizer.compute_gradients(self.loss)
            clipped_grads_and_vars = [(tf.clip_by_value(grad, -5.0, 5.0) if grad is not None else None, var)
                    for grad, var in grads_and_vars]
            self.grad, _ = clipped_grads_and_vars[0]
            self.opt_op = self.optimizer.apply_gradients(clipped_grads_and_vars)
            self.preds = self.predict()

        def _loss(self):
            self.loss = 0
            for aggregator in self.aggregators:
                for var in aggregator.vars.values():
                    self.loss += 0.0005 * tf.nn.l2_loss(var)
            for var in self.node_pred.vars.values():
                self.loss += 0.0005 * tf.nn.l2_loss(var)
            if self.sigmoid_loss:
                self.loss += tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                        logits=self.node_preds,
                        labels=self.placeholders['labels']))
            else:
                self.loss += tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
                        logits=self.node_preds,
                        labels=self.placeholders['labels']))
            tf.summary.scalar('loss', self.loss)

        def predict(self):
            if self.sigmoid_loss:
                return tf.nn.sigmoid(self.node_preds)
            else:
                return tf.nn.softmax(self.node_preds)

    N, F, C, max_degree, batch = 30, 6, 3, 5, 7
    features = np.random.rand(N, F).astype(np.float32)
    adj = np.random.randint(0, N, size=(N + 1, max_degree)).astype(np.int32)
    labels = np.eye(C)[np.random.randint(0, C, N)].astype(np.float32)
    placeholders = {
        'labels' : tf.placeholder(tf.float32, shape=(None, C), name='labels'),
        'batch' : tf.placeholder(tf.int32, shape=(None), name='batch1'),
        'dropout': tf.placeholder_with_default(0., shape=(), name='dropout'),
        'batch_size' : tf.placeholder(tf.int32, name='batch_size'),
    }
    adj_info_ph = tf.placeholder(tf.int32, shape=adj.shape)
    adj_info = tf.Variable(adj_info_ph, trainable=False, name="adj_info")
    sampler = UniformNeighborSampler(adj_info)
    layer_infos = [SAGEInfo("node", sampler, 4, 8), SAGEInfo("node", sampler, 3, 8)]
    model = SupervisedGraphsage(C, placeholders, features, adj_info, None, layer_infos,
                                model_size="small", sigmoid_loss=False, identity_dim=0, logging=True)
    merged = tf.summary.merge_all()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer(), feed_dict={adj_info_ph: adj})
    print(model.node_preds, model.outputs1, model.loss.name, sorted(v.name for v in tf.global_variables())[:6])
    for it in range(5):
        ids = np.random.choice(N, batch, replace=False).astype(np.int32)
        feed_dict = {placeholders['batch']: ids, placeholders['batch_size']: batch,
                     placeholders['labels']: labels[ids], placeholders['dropout']: 0.0}
        outs = sess.run([merged, model.opt_op, model.loss, model.preds], feed_dict=feed_dict)
        print("Iter:", '%04d' % it, "train_loss=", "{:.5f}".format(outs[2]), outs[3].shape)
    print(repr(outs[3][:2]))
    assert capsys.readouterr().out == 'Tensor("dense_1/add:0", shape=(?, 3), dtype=float32) Tensor("l2_normalize:0", shape=(?, 16), dtype=float32) add_6:0 [\'Variable:0\', \'adj_info:0\', \'dense_1_vars/bias:0\', \'dense_1_vars/weights:0\', \'meanaggregator_1_vars/neigh_weights:0\', \'meanaggregator_1_vars/self_weights:0\']\nIter: 0000 train_loss= 1.08913 (7, 3)\nIter: 0001 train_loss= 0.88311 (7, 3)\nIter: 0002 train_loss= 0.79860 (7, 3)\nIter: 0003 train_loss= 0.78878 (7, 3)\nIter: 0004 train_loss= 1.26164 (7, 3)\narray([[0.68819773, 0.19211122, 0.11969107],\n       [0.66077894, 0.22033417, 0.11888684]], dtype=float32)\n'
