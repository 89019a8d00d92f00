"""Research TF 1.x programs, continued (test_programs_research27a.py): what cbfinn/maml's
omniglot model and other second-order programs exercise; expected values are TF 1.15's
(measured)."""

# (the programs are kept as their authors wrote them)
# ruff: noqa: F841, PIE808, RUF059, SIM118, UP031

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


class _MamlFlags:
    # cbfinn/maml's flags as the reduced program defined them (tf.app.flags there)
    datasource = "sinusoid"
    meta_batch_size = 4
    meta_lr = 0.001
    update_batch_size = 5
    update_lr = 1e-3
    num_updates = 2
    norm = "None"
    stop_grad = False
    metatrain_iterations = 12
    pretrain_iterations = 0


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
    # steps, the meta-gradient of the second post-update loss; reduced to synthetic data (TF 1.15's printed output, measured)
    tf_layers = tf.contrib.layers
    FLAGS = _MamlFlags

    def normalize(inp, activation, reuse, scope):
        if FLAGS.norm == 'batch_norm':
            return tf_layers.batch_norm(inp, activation_fn=activation, reuse=reuse, scope=scope)
        elif FLAGS.norm == 'layer_norm':
            return tf_layers.layer_norm(inp, activation_fn=activation, reuse=reuse, scope=scope)
        elif FLAGS.norm == 'None':
            if activation is not None:
                return activation(inp)
            else:
                return inp

    def mse(pred, label):
        pred = tf.reshape(pred, [-1])
        label = tf.reshape(label, [-1])
        return tf.reduce_mean(tf.square(pred-label))

    class MAML:
        def __init__(self, dim_input=1, dim_output=1, test_num_updates=5):
            self.dim_input = dim_input
            self.dim_output = dim_output
            self.update_lr = FLAGS.update_lr
            self.meta_lr = tf.placeholder_with_default(FLAGS.meta_lr, ())
            self.classification = False
            self.test_num_updates = test_num_updates
            self.dim_hidden = [40, 40]
            self.loss_func = mse
            self.forward = self.forward_fc
            self.construct_weights = self.construct_fc_weights

        def construct_model(self, input_tensors=None, prefix='metatrain_'):
            self.inputa = tf.placeholder(tf.float32)
            self.inputb = tf.placeholder(tf.float32)
            self.labela = tf.placeholder(tf.float32)
            self.labelb = tf.placeholder(tf.float32)
            with tf.variable_scope('model', reuse=None) as training_scope:
                if 'weights' in dir(self):
                    training_scope.reuse_variables()
                    weights = self.weights
                else:
                    self.weights = weights = self.construct_weights()
                lossesa, outputas, lossesb, outputbs = [], [], [], []
                num_updates = max(self.test_num_updates, FLAGS.num_updates)
                outputbs = [[]]*num_updates
                lossesb = [[]]*num_updates

                def task_metalearn(inp, reuse=True):
                    inputa, inputb, labela, labelb = inp
                    task_outputbs, task_lossesb = [], []
                    task_outputa = self.forward(inputa, weights, reuse=reuse)
                    task_lossa = self.loss_func(task_outputa, labela)
                    grads = tf.gradients(task_lossa, list(weights.values()))
                    if FLAGS.stop_grad:
                        grads = [tf.stop_gradient(grad) for grad in grads]
                    gradients = dict(zip(weights.keys(), grads))
                    fast_weights = dict(zip(weights.keys(), [weights[key] - self.update_lr*gradients[key] for key in weights.keys()]))
                    output = self.forward(inputb, fast_weights, reuse=True)
                    task_outputbs.append(output)
                    task_lossesb.append(self.loss_func(output, labelb))
                    for j in range(num_updates - 1):
                        loss = self.loss_func(self.forward(inputa, fast_weights, reuse=True), labela)
                        grads = tf.gradients(loss, list(fast_weights.values()))
                        if FLAGS.stop_grad:
                            grads = [tf.stop_gradient(grad) for grad in grads]
                        gradients = dict(zip(fast_weights.keys(), grads))
                        fast_weights = dict(zip(fast_weights.keys(), [fast_weights[key] - self.update_lr*gradients[key] for key in fast_weights.keys()]))
                        output = self.forward(inputb, fast_weights, reuse=True)
                        task_outputbs.append(output)
                        task_lossesb.append(self.loss_func(output, labelb))
                    task_output = [task_outputa, task_outputbs, task_lossa, task_lossesb]
                    return task_output

                if FLAGS.norm != 'None':
                    unused = task_metalearn((self.inputa[0], self.inputb[0], self.labela[0], self.labelb[0]), False)

                out_dtype = [tf.float32, [tf.float32]*num_updates, tf.float32, [tf.float32]*num_updates]
                result = tf.map_fn(task_metalearn, elems=(self.inputa, self.inputb, self.labela, self.labelb), dtype=out_dtype, parallel_iterations=FLAGS.meta_batch_size)
                outputas, outputbs, lossesa, lossesb  = result

            self.total_loss1 = total_loss1 = tf.reduce_sum(lossesa) / tf.to_float(FLAGS.meta_batch_size)
            self.total_losses2 = total_losses2 = [tf.reduce_sum(lossesb[j]) / tf.to_float(FLAGS.meta_batch_size) for j in range(num_updates)]
            self.outputas, self.outputbs = outputas, outputbs
            self.pretrain_op = tf.train.AdamOptimizer(self.meta_lr).minimize(total_loss1)
            optimizer = tf.train.AdamOptimizer(self.meta_lr)
            self.gvs = gvs = optimizer.compute_gradients(self.total_losses2[FLAGS.num_updates-1])
            self.metatrain_op = optimizer.apply_gradients(gvs)
            tf.summary.scalar(prefix+'Pre-update loss', total_loss1)
            for j in range(num_updates):
                tf.summary.scalar(prefix+'Post-update loss, step ' + str(j+1), total_losses2[j])

        def construct_fc_weights(self):
            weights = {}
            weights['w1'] = tf.Variable(tf.truncated_normal([self.dim_input, self.dim_hidden[0]], stddev=0.01))
            weights['b1'] = tf.Variable(tf.zeros([self.dim_hidden[0]]))
            for i in range(1,len(self.dim_hidden)):
                weights['w'+str(i+1)] = tf.Variable(tf.truncated_normal([self.dim_hidden[i-1], self.dim_hidden[i]], stddev=0.01))
                weights['b'+str(i+1)] = tf.Variable(tf.zeros([self.dim_hidden[i]]))
            weights['w'+str(len(self.dim_hidden)+1)] = tf.Variable(tf.truncated_normal([self.dim_hidden[-1], self.dim_output], stddev=0.01))
            weights['b'+str(len(self.dim_hidden)+1)] = tf.Variable(tf.zeros([self.dim_output]))
            return weights

        def forward_fc(self, inp, weights, reuse=False):
            hidden = normalize(tf.matmul(inp, weights['w1']) + weights['b1'], activation=tf.nn.relu, reuse=reuse, scope='0')
            for i in range(1,len(self.dim_hidden)):
                hidden = normalize(tf.matmul(hidden, weights['w'+str(i+1)]) + weights['b'+str(i+1)], activation=tf.nn.relu, reuse=reuse, scope=str(i+1))
            return tf.matmul(hidden, weights['w'+str(len(self.dim_hidden)+1)]) + weights['b'+str(len(self.dim_hidden)+1)]

    def generate_sinusoid_batch(batch_size, num_samples_per_class, rng):
        amp = rng.uniform(0.1, 5.0, [batch_size])
        phase = rng.uniform(0, np.pi, [batch_size])
        outputs = np.zeros([batch_size, num_samples_per_class, 1])
        init_inputs = np.zeros([batch_size, num_samples_per_class, 1])
        for func in range(batch_size):
            init_inputs[func] = rng.uniform(-5.0, 5.0, [num_samples_per_class, 1])
            outputs[func] = amp[func] * np.sin(init_inputs[func]-phase[func])
        return init_inputs, outputs, amp, phase

    tf.set_random_seed(1)
    rng = np.random.RandomState(1)
    model = MAML(1, 1, test_num_updates=3)
    model.construct_model(input_tensors=None, prefix='metatrain_')
    model.summ_op = tf.summary.merge_all()
    sess = tf.InteractiveSession()
    tf.global_variables_initializer().run()
    print(sorted(v.name for v in tf.global_variables())[:12])
    print(len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)), model.total_loss1, model.outputbs[0])
    prelosses, postlosses = [], []
    for itr in range(FLAGS.pretrain_iterations + FLAGS.metatrain_iterations):
        batch_x, batch_y, amp, phase = generate_sinusoid_batch(FLAGS.meta_batch_size, FLAGS.update_batch_size*2, rng)
        inputa = batch_x[:, :FLAGS.update_batch_size, :]
        labela = batch_y[:, :FLAGS.update_batch_size, :]
        inputb = batch_x[:, FLAGS.update_batch_size:, :]
        labelb = batch_y[:, FLAGS.update_batch_size:, :]
        feed_dict = {model.inputa: inputa, model.inputb: inputb,  model.labela: labela, model.labelb: labelb}
        input_tensors = [model.metatrain_op]
        if itr % 3 == 0:
            input_tensors.extend([model.summ_op, model.total_loss1, model.total_losses2[FLAGS.num_updates-1]])
            result = sess.run(input_tensors, feed_dict)
            prelosses.append(result[-2]); postlosses.append(result[-1])
            print('Iteration ' + str(itr) + ': ' + str(np.mean(prelosses)) + ', ' + str(np.mean(postlosses)))
        else:
            sess.run(input_tensors, feed_dict)
    out = sess.run([model.outputas, model.outputbs[2], model.total_losses2], feed_dict)
    print(out[0].shape, out[1].shape, out[2])
    assert capsys.readouterr().out == '[\'beta1_power:0\', \'beta1_power_1:0\', \'beta2_power:0\', \'beta2_power_1:0\', \'model/Variable/Adam:0\', \'model/Variable/Adam_1:0\', \'model/Variable/Adam_2:0\', \'model/Variable/Adam_3:0\', \'model/Variable:0\', \'model/Variable_1/Adam:0\', \'model/Variable_1/Adam_1:0\', \'model/Variable_1/Adam_2:0\']\n0 Tensor("truediv:0", shape=(), dtype=float32) Tensor("model/map/TensorArrayStack_1/TensorArrayGatherV3:0", dtype=float32)\nIteration 0: 2.4737792, 3.1016872\nIteration 3: 1.9047784, 2.7875242\nIteration 6: 2.7578394, 3.8078768\nIteration 9: 3.171804, 4.1036315\n(4, 5, 1) (4, 5, 1) [3.98478, 3.9794586, 3.974161]\n'
