"""Research TF 1.x programs (graph networks, meta-learning, physics-informed nets) reduced to
small synthetic data and run against TF 1.15: expected values are TF 1.15's printed outputs
(measured), each program's repository and path named in its test."""

# (the programs are kept as their authors wrote them)
# ruff: noqa: C408, F841, PIE808, RUF059, SIM118, UP004, UP008, UP031, UP032

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _f32(a):
    return np.asarray(a, np.float32)


class _MamlFlags:
    # cbfinn/maml's flags as the reduced program defined them (tf.app.flags in the program)
    datasource = "sinusoid"
    meta_batch_size = 4
    meta_lr = 0.001
    update_batch_size = 5
    update_lr = 1e-3
    num_updates = 2
    norm = "batch_norm"
    stop_grad = False
    metatrain_iterations = 12
    pretrain_iterations = 0


def test_convolutions_to_one_channel_add_their_taps_in_tfs_order():
    # PetarV-/GAT utils/layers.py: attention logits are conv1d(seq_fts, 1, 1), a 1x1
    # convolution to one channel: numpy's product there is a GEMV that adds the taps out of
    # TF's order (1 ulp off, then the whole training drifts). The filter gradient to one
    # channel sums over positions the same way. TF 1.15's outputs, measured.
    x = ((np.arange(24) * 7 % 11 - 5) / np.float32(3.7)).astype(np.float32).reshape(1, 6, 4)
    w = ((np.arange(4) * 5 % 7 - 3) / np.float32(2.9)).astype(np.float32).reshape(1, 4, 1)
    x2 = ((np.arange(32) * 5 % 13 - 6) / np.float32(3.3)).astype(np.float32).reshape(2, 4, 4, 1)
    w2 = ((np.arange(4) * 3 % 5 - 2) / np.float32(6.1)).astype(np.float32).reshape(2, 2, 1, 1)
    dy = ((np.arange(18) * 4 % 9 - 4) / np.float32(1.7)).astype(np.float32).reshape(2, 3, 3, 1)
    wt = tf.constant(w2)
    y2 = tf.nn.conv2d(tf.constant(x2), wt, [1, 1, 1, 1], "VALID")
    gw = tf.gradients(y2, wt, tf.constant(dy))[0]
    y1 = tf.nn.conv1d(x, w, 1, "VALID")
    with tf.Session() as s:
        a, b, c = s.run([y1, y2, gw])
    np.testing.assert_array_equal(a.ravel(), _f32([
        0.838769793510437, -0.8387697339057922, 2.6095058917999268, -1.1183596849441528,
        2.329916000366211, -1.3979495763778687]))
    np.testing.assert_array_equal(b.ravel(), _f32([
        1.0928962230682373, -0.1987084001302719, -0.19870838522911072, 0.4470939040184021,
        -0.1987084150314331, -0.19870838522911072, -0.1987084299325943, 0.4470939040184021,
        -0.19870838522911072, -0.19870838522911072, 0.4470939040184021, -0.1987084150314331,
        -0.1987084001302719, -0.1987084299325943, 0.4470939040184021, -0.1987084001302719,
        -0.1987084299325943, 1.0928962230682373]))
    np.testing.assert_array_equal(c.ravel(), _f32([
        10.695185661315918, -7.843135833740234, 6.060606002807617, 3.743314504623413]))


def test_a_sum_over_a_trailing_run_and_size_one_axes_adds_as_eigens_inner_reduction():
    # PetarV-/GAT: the gradient of f_1 [1, n, 1] + f_2^T [1, 1, n] sums over axes [0, 2]:
    # TF's reduction helper drops the size-1 axis, leaving Eigen's packet inner reduction
    # (it was summed one after another); so does a column [n, 1] summed over axis 0.
    # TF 1.15's outputs, measured.
    x = ((np.arange(36) * 7 % 17 - 8) / np.float32(3.3)
         * np.float32(1.7) ** (np.arange(36) % 5)).astype(np.float32).reshape(1, 3, 12)
    with tf.Session() as s:
        a = s.run(tf.reduce_sum(x, [0, 2]))
        b = s.run(tf.reduce_sum(x.reshape(36, 1), 0))
    np.testing.assert_array_equal(a, _f32([12.316274642944336, 17.092153549194336,
                                           15.367792129516602]))
    np.testing.assert_array_equal(b, _f32([44.776222229003906]))


def test_broadcast_gradient_args_of_identical_shapes_reduces_nothing():
    # TF 1.15's BCast takes identical shapes by a fast path: no axes, size-1 dims included,
    # so a batch matmul's gradient Sum keeps the batch axis of 1 (GAT's tf.matmul(coefs,
    # seq_fts) on [1, n, n] x [1, n, f]). Measured in TF 1.15.
    r = tf.raw_ops.BroadcastGradientArgs(s0=[1, 3], s1=[1, 3])
    a = tf.placeholder(tf.float32, [1, 3, 4])
    b = tf.placeholder(tf.float32, [1, 4, 2])
    tf.gradients(tf.matmul(a, b), a)
    total = tf.get_default_graph().get_tensor_by_name("gradients/MatMul_grad/Sum:0")
    with tf.Session() as s:
        r0, r1 = s.run(r)
        v = s.run(total, {a: np.ones((1, 3, 4)), b: np.ones((1, 4, 2))})
    assert r0.tolist() == [] and r1.tolist() == [] and r0.dtype == np.int32
    assert v.shape == (1, 3, 4)


def test_pinn_burgers_inference_lbfgs_through_second_gradients(capsys):
    # maziarraissi/PINNs appendix/continuous_time_inference (Burgers)/Burgers.py: tanh MLP, u_xx as
    # tf.gradients of tf.gradients, ScipyOptimizerInterface L-BFGS-B with a loss callback; reduced to synthetic data (TF 1.15's printed output, measured)
    np.random.seed(1234)
    tf.set_random_seed(1234)

    class PhysicsInformedNN:
        def __init__(self, X_u, u, X_f, layers, lb, ub, nu):
            self.lb = lb
            self.ub = ub
            self.x_u = X_u[:,0:1]
            self.t_u = X_u[:,1:2]
            self.x_f = X_f[:,0:1]
            self.t_f = X_f[:,1:2]
            self.u = u
            self.layers = layers
            self.nu = nu
            self.weights, self.biases = self.initialize_NN(layers)
            self.sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True,
                                                         log_device_placement=False))
            self.x_u_tf = tf.placeholder(tf.float32, shape=[None, self.x_u.shape[1]])
            self.t_u_tf = tf.placeholder(tf.float32, shape=[None, self.t_u.shape[1]])
            self.u_tf = tf.placeholder(tf.float32, shape=[None, self.u.shape[1]])
            self.x_f_tf = tf.placeholder(tf.float32, shape=[None, self.x_f.shape[1]])
            self.t_f_tf = tf.placeholder(tf.float32, shape=[None, self.t_f.shape[1]])
            self.u_pred = self.net_u(self.x_u_tf, self.t_u_tf)
            self.f_pred = self.net_f(self.x_f_tf, self.t_f_tf)
            self.loss = tf.reduce_mean(tf.square(self.u_tf - self.u_pred)) + \
                        tf.reduce_mean(tf.square(self.f_pred))
            self.optimizer = tf.contrib.opt.ScipyOptimizerInterface(self.loss,
                                                                    method = 'L-BFGS-B',
                                                                    options = {'maxiter': 15,
                                                                               'maxfun': 50000,
                                                                               'maxcor': 50,
                                                                               'maxls': 50,
                                                                               'ftol' : 1.0 * np.finfo(float).eps})
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

        def net_u(self, x, t):
            u = self.neural_net(tf.concat([x,t],1), self.weights, self.biases)
            return u

        def net_f(self, x,t):
            u = self.net_u(x,t)
            u_t = tf.gradients(u, t)[0]
            u_x = tf.gradients(u, x)[0]
            u_xx = tf.gradients(u_x, x)[0]
            f = u_t + u*u_x - self.nu*u_xx
            return f

        def callback(self, loss):
            print('Loss:', loss)

        def train(self):
            tf_dict = {self.x_u_tf: self.x_u, self.t_u_tf: self.t_u, self.u_tf: self.u,
                       self.x_f_tf: self.x_f, self.t_f_tf: self.t_f}
            self.optimizer.minimize(self.sess,
                                    feed_dict = tf_dict,
                                    fetches = [self.loss],
                                    loss_callback = self.callback)

        def predict(self, X_star):
            u_star = self.sess.run(self.u_pred, {self.x_u_tf: X_star[:,0:1], self.t_u_tf: X_star[:,1:2]})
            f_star = self.sess.run(self.f_pred, {self.x_f_tf: X_star[:,0:1], self.t_f_tf: X_star[:,1:2]})
            return u_star, f_star

    nu = 0.01/np.pi
    layers = [2, 8, 8, 1]
    t = np.linspace(0, 0.99, 10)[:, None]
    x = np.linspace(-1, 1, 16)[:, None]
    X, T = np.meshgrid(x, t)
    X_star = np.hstack((X.flatten()[:,None], T.flatten()[:,None]))
    u_star = (-np.sin(np.pi * X) * np.exp(-T)).flatten()[:,None]
    lb = X_star.min(0)
    ub = X_star.max(0)
    xx1 = np.hstack((X[0:1,:].T, T[0:1,:].T)); uu1 = u_star[:16]
    xx2 = np.hstack((X[:,0:1], T[:,0:1])); uu2 = np.zeros((10, 1))
    X_u_train = np.vstack([xx1, xx2]); u_train = np.vstack([uu1, uu2])
    X_f_train = lb + (ub-lb)*np.random.rand(40, 2)
    X_f_train = np.vstack((X_f_train, X_u_train))
    idx = np.random.choice(X_u_train.shape[0], 12, replace=False)
    X_u_train = X_u_train[idx, :]
    u_train = u_train[idx,:]
    model = PhysicsInformedNN(X_u_train, u_train, X_f_train, layers, lb, ub, nu)
    model.train()
    u_pred, f_pred = model.predict(X_star)
    error_u = np.linalg.norm(u_star-u_pred,2)/np.linalg.norm(u_star,2)
    print('Error u: %e' % (error_u))
    print(u_pred.dtype, u_pred.shape, f_pred.shape, model.f_pred.name, model.u_pred.name)
    print(model.loss.name, [v.name for v in tf.trainable_variables()])
    assert capsys.readouterr().out == "Loss: 1.0078298\nLoss: 4.3671603\nLoss: 0.43808782\nLoss: 0.4174116\nLoss: 0.28457743\nLoss: 0.27416772\nLoss: 0.2709152\nLoss: 0.265068\nLoss: 0.26151946\nLoss: 0.24396205\nLoss: 0.22993849\nLoss: 0.22392836\nLoss: 0.22105913\nLoss: 0.21331157\nLoss: 0.19510701\nLoss: 0.21231523\nLoss: 0.17440951\nLoss: 0.17802072\nLoss: 0.15579766\nError u: 5.033203e-01\nfloat32 (160, 1) (160, 1) sub_4:0 Add_2:0\nadd_7:0 ['Variable:0', 'Variable_1:0', 'Variable_2:0', 'Variable_3:0', 'Variable_4:0', 'Variable_5:0']\n"


def maml_sinusoid(flags, input_shape):
    """cbfinn/maml maml.py, utils.py, main.py (sinusoid), reduced to synthetic data: inner
    gradient steps inside tf.map_fn and the meta-gradient through them, with ``flags.norm``
    and inputs fed through placeholders of ``input_shape`` (the program prints)."""
    tf_layers = tf.contrib.layers
    FLAGS = flags

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
            self.inputa = tf.placeholder(tf.float32, input_shape)
            self.inputb = tf.placeholder(tf.float32, input_shape)
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
    sess.close()  # (an InteractiveSession stays the default session until closed)


def test_maml_sinusoid_second_order_through_map_fn_with_batch_norm(capsys):
    # cbfinn/maml (sinusoid): contrib batch_norm reused by scope, summaries merged (TF 1.15's
    # printed output, measured)
    maml_sinusoid(_MamlFlags, [None, None, 1])
    assert capsys.readouterr().out == '[\'beta1_power:0\', \'beta1_power_1:0\', \'beta2_power:0\', \'beta2_power_1:0\', \'model/0/beta/Adam:0\', \'model/0/beta/Adam_1:0\', \'model/0/beta/Adam_2:0\', \'model/0/beta/Adam_3:0\', \'model/0/beta:0\', \'model/0/moving_mean:0\', \'model/0/moving_variance:0\', \'model/2/beta/Adam:0\']\n48 Tensor("truediv:0", shape=(), dtype=float32) Tensor("model/map/TensorArrayStack_1/TensorArrayGatherV3:0", shape=(?, ?, 1), dtype=float32)\nIteration 0: 2.4705625, 3.0692835\nIteration 3: 1.9139693, 2.7856133\nIteration 6: 2.7064133, 3.7074928\nIteration 9: 3.1482575, 3.968647\n(4, 5, 1) (4, 5, 1) [4.099739, 4.0434685, 3.9892092]\n'


def test_kipf_gcn_sparse_dropout_and_masked_softmax_training(capsys):
    # tkipf/gcn gcn/{layers,models,metrics,inits,utils,train}.py: sparse_placeholder features
    # (shape a tf.constant), sparse_retain dropout, sparse_tensor_dense_matmul, masked loss; reduced to synthetic data (TF 1.15's printed output, measured)
    import scipy.sparse as sp
    seed = 123
    np.random.seed(seed)
    tf.set_random_seed(seed)
    _LAYER_UIDS = {}

    def uniform(shape, scale=0.05, name=None):
        initial = tf.random_uniform(shape, minval=-scale, maxval=scale, dtype=tf.float32)
        return tf.Variable(initial, name=name)

    def glorot(shape, name=None):
        init_range = np.sqrt(6.0/(shape[0]+shape[1]))
        initial = tf.random_uniform(shape, minval=-init_range, maxval=init_range, dtype=tf.float32)
        return tf.Variable(initial, name=name)

    def zeros(shape, name=None):
        initial = tf.zeros(shape, dtype=tf.float32)
        return tf.Variable(initial, name=name)

    def masked_softmax_cross_entropy(preds, labels, mask):
        loss = tf.nn.softmax_cross_entropy_with_logits(logits=preds, labels=labels)
        mask = tf.cast(mask, dtype=tf.float32)
        mask /= tf.reduce_mean(mask)
        loss *= mask
        return tf.reduce_mean(loss)

    def masked_accuracy(preds, labels, mask):
        correct_prediction = tf.equal(tf.argmax(preds, 1), tf.argmax(labels, 1))
        accuracy_all = tf.cast(correct_prediction, tf.float32)
        mask = tf.cast(mask, dtype=tf.float32)
        mask /= tf.reduce_mean(mask)
        accuracy_all *= mask
        return tf.reduce_mean(accuracy_all)

    def get_layer_uid(layer_name=''):
        if layer_name not in _LAYER_UIDS:
            _LAYER_UIDS[layer_name] = 1
            return 1
        else:
            _LAYER_UIDS[layer_name] += 1
            return _LAYER_UIDS[layer_name]

    def sparse_dropout(x, keep_prob, noise_shape):
        random_tensor = keep_prob
        random_tensor += tf.random_uniform(noise_shape)
        dropout_mask = tf.cast(tf.floor(random_tensor), dtype=tf.bool)
        pre_out = tf.sparse_retain(x, dropout_mask)
        return pre_out * (1./keep_prob)

    def dot(x, y, sparse=False):
        if sparse:
            res = tf.sparse_tensor_dense_matmul(x, y)
        else:
            res = tf.matmul(x, y)
        return res

    class Layer(object):
        def __init__(self, **kwargs):
            allowed_kwargs = {'name', 'logging'}
            for kwarg in kwargs.keys():
                assert kwarg in allowed_kwargs, 'Invalid keyword argument: ' + kwarg
            name = kwargs.get('name')
            if not name:
                layer = self.__class__.__name__.lower()
                name = layer + '_' + str(get_layer_uid(layer))
            self.name = name
            self.vars = {}
            logging = kwargs.get('logging', False)
            self.logging = logging
            self.sparse_inputs = False

        def _call(self, inputs):
            return inputs

        def __call__(self, inputs):
            with tf.name_scope(self.name):
                if self.logging and not self.sparse_inputs:
                    tf.summary.histogram(self.name + '/inputs', inputs)
                outputs = self._call(inputs)
                if self.logging:
                    tf.summary.histogram(self.name + '/outputs', outputs)
                return outputs

    class GraphConvolution(Layer):
        def __init__(self, input_dim, output_dim, placeholders, dropout=0.,
                     sparse_inputs=False, act=tf.nn.relu, bias=False,
                     featureless=False, **kwargs):
            super(GraphConvolution, self).__init__(**kwargs)
            if dropout:
                self.dropout = placeholders['dropout']
            else:
                self.dropout = 0.
            self.act = act
            self.support = placeholders['support']
            self.sparse_inputs = sparse_inputs
            self.featureless = featureless
            self.bias = bias
            self.num_features_nonzero = placeholders['num_features_nonzero']
            with tf.variable_scope(self.name + '_vars'):
                for i in range(len(self.support)):
                    self.vars['weights_' + str(i)] = glorot([input_dim, output_dim], name='weights_' + str(i))
                if self.bias:
                    self.vars['bias'] = zeros([output_dim], name='bias')

        def _call(self, inputs):
            x = inputs
            if self.sparse_inputs:
                x = sparse_dropout(x, 1-self.dropout, self.num_features_nonzero)
            else:
                x = tf.nn.dropout(x, 1-self.dropout)
            supports = list()
            for i in range(len(self.support)):
                if not self.featureless:
                    pre_sup = dot(x, self.vars['weights_' + str(i)], sparse=self.sparse_inputs)
                else:
                    pre_sup = self.vars['weights_' + str(i)]
                support = dot(self.support[i], pre_sup, sparse=True)
                supports.append(support)
            output = tf.add_n(supports)
            if self.bias:
                output += self.vars['bias']
            return self.act(output)

    class GCN(object):
        def __init__(self, placeholders, input_dim, **kwargs):
            self.name = self.__class__.__name__.lower()
            self.vars = {}
            self.placeholders = {}
            self.layers = []
            self.activations = []
            self.inputs = placeholders['features']
            self.input_dim = input_dim
            self.output_dim = placeholders['labels'].get_shape().as_list()[1]
            self.placeholders = placeholders
            self.loss = 0
            self.accuracy = 0
            self.optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
            self.build()

        def _build(self):
            self.layers.append(GraphConvolution(input_dim=self.input_dim, output_dim=16,
                                                placeholders=self.placeholders, act=tf.nn.relu,
                                                dropout=True, sparse_inputs=True, logging=True))
            self.layers.append(GraphConvolution(input_dim=16, output_dim=self.output_dim,
                                                placeholders=self.placeholders, act=lambda x: x,
                                                dropout=True, logging=True))

        def build(self):
            with tf.variable_scope(self.name):
                self._build()
            self.activations.append(self.inputs)
            for layer in self.layers:
                hidden = layer(self.activations[-1])
                self.activations.append(hidden)
            self.outputs = self.activations[-1]
            variables = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=self.name)
            self.vars = {var.name: var for var in variables}
            self._loss()
            self._accuracy()
            self.opt_op = self.optimizer.minimize(self.loss)

        def _loss(self):
            for var in self.layers[0].vars.values():
                self.loss += 5e-4 * tf.nn.l2_loss(var)
            self.loss += masked_softmax_cross_entropy(self.outputs, self.placeholders['labels'],
                                                      self.placeholders['labels_mask'])

        def _accuracy(self):
            self.accuracy = masked_accuracy(self.outputs, self.placeholders['labels'],
                                            self.placeholders['labels_mask'])

        def predict(self):
            return tf.nn.softmax(self.outputs)

    def sparse_to_tuple(sparse_mx):
        def to_tuple(mx):
            if not sp.isspmatrix_coo(mx):
                mx = mx.tocoo()
            coords = np.vstack((mx.row, mx.col)).transpose()
            values = mx.data
            shape = mx.shape
            return coords, values, shape
        return to_tuple(sparse_mx)

    def preprocess_features(features):
        rowsum = np.array(features.sum(1))
        r_inv = np.power(rowsum, -1).flatten()
        r_inv[np.isinf(r_inv)] = 0.
        r_mat_inv = sp.diags(r_inv)
        features = r_mat_inv.dot(features)
        return sparse_to_tuple(features)

    def normalize_adj(adj):
        adj = sp.coo_matrix(adj)
        rowsum = np.array(adj.sum(1))
        d_inv_sqrt = np.power(rowsum, -0.5).flatten()
        d_inv_sqrt[np.isinf(d_inv_sqrt)] = 0.
        d_mat_inv_sqrt = sp.diags(d_inv_sqrt)
        return adj.dot(d_mat_inv_sqrt).transpose().dot(d_mat_inv_sqrt).tocoo()

    def preprocess_adj(adj):
        adj_normalized = normalize_adj(adj + sp.eye(adj.shape[0]))
        return sparse_to_tuple(adj_normalized)

    def construct_feed_dict(features, support, labels, labels_mask, placeholders):
        feed_dict = dict()
        feed_dict.update({placeholders['labels']: labels})
        feed_dict.update({placeholders['labels_mask']: labels_mask})
        feed_dict.update({placeholders['features']: features})
        feed_dict.update({placeholders['support'][i]: support[i] for i in range(len(support))})
        feed_dict.update({placeholders['num_features_nonzero']: features[1].shape})
        return feed_dict

    N, F, C = 30, 20, 3
    A = (np.random.rand(N, N) < 0.1).astype(np.float32)
    adj = sp.csr_matrix(np.maximum(A, A.T))
    features = sp.lil_matrix((np.random.rand(N, F) < 0.2).astype(np.float32))
    lab = np.random.randint(0, C, N)
    y = np.eye(C)[lab]
    train_mask = np.zeros(N, bool); train_mask[:10] = True
    val_mask = np.zeros(N, bool); val_mask[10:20] = True
    y_train = y * train_mask[:, None]; y_val = y * val_mask[:, None]
    features = preprocess_features(features)
    support = [preprocess_adj(adj)]
    num_supports = 1
    placeholders = {
        'support': [tf.sparse_placeholder(tf.float32) for _ in range(num_supports)],
        'features': tf.sparse_placeholder(tf.float32, shape=tf.constant(features[2], dtype=tf.int64)),
        'labels': tf.placeholder(tf.float32, shape=(None, y_train.shape[1])),
        'labels_mask': tf.placeholder(tf.int32),
        'dropout': tf.placeholder_with_default(0., shape=()),
        'num_features_nonzero': tf.placeholder(tf.int32)
    }
    model = GCN(placeholders, input_dim=features[2][1], logging=True)
    sess = tf.Session()

    def evaluate(features, support, labels, mask, placeholders):
        feed_dict_val = construct_feed_dict(features, support, labels, mask, placeholders)
        outs_val = sess.run([model.loss, model.accuracy], feed_dict=feed_dict_val)
        return outs_val[0], outs_val[1]

    sess.run(tf.global_variables_initializer())
    print(sorted(model.vars), model.outputs, model.loss.name)
    cost_val = []
    for epoch in range(6):
        feed_dict = construct_feed_dict(features, support, y_train, train_mask, placeholders)
        feed_dict.update({placeholders['dropout']: 0.5})
        outs = sess.run([model.opt_op, model.loss, model.accuracy], feed_dict=feed_dict)
        cost, acc = evaluate(features, support, y_val, val_mask, placeholders)
        cost_val.append(cost)
        print("Epoch:", '%04d' % (epoch + 1), "train_loss=", "{:.5f}".format(outs[1]),
              "train_acc=", "{:.5f}".format(outs[2]), "val_loss=", "{:.5f}".format(cost),
              "val_acc=", "{:.5f}".format(acc))
    print("Optimization Finished!")
    print(repr(sess.run(model.predict(), construct_feed_dict(features, support, y_val, val_mask, placeholders))[:2]))
    assert capsys.readouterr().out == '[\'gcn/graphconvolution_1_vars/weights_0:0\', \'gcn/graphconvolution_2_vars/weights_0:0\'] Tensor("graphconvolution_2/SparseTensorDenseMatMul/SparseTensorDenseMatMul:0", shape=(?, 3), dtype=float32) add_1:0\nEpoch: 0001 train_loss= 1.11195 train_acc= 0.20000 val_loss= 1.10412 val_acc= 0.30000\nEpoch: 0002 train_loss= 1.11560 train_acc= 0.20000 val_loss= 1.10313 val_acc= 0.30000\nEpoch: 0003 train_loss= 1.10353 train_acc= 0.10000 val_loss= 1.10244 val_acc= 0.40000\nEpoch: 0004 train_loss= 1.09318 train_acc= 0.70000 val_loss= 1.10156 val_acc= 0.40000\nEpoch: 0005 train_loss= 1.10132 train_acc= 0.50000 val_loss= 1.10101 val_acc= 0.50000\nEpoch: 0006 train_loss= 1.11095 train_acc= 0.40000 val_loss= 1.10087 val_acc= 0.50000\nOptimization Finished!\narray([[0.32240096, 0.33441785, 0.3431812 ],\n       [0.32048956, 0.3363324 , 0.34317803]], dtype=float32)\n'


def test_gat_sparse_attention_heads_training(capsys):
    # PetarV-/GAT utils/layers.py sp_attn_head, models/sp_gat.py, execute_cora_sparse.py:
    # sparse_add of broadcast products, sparse_softmax, sparse_reshape, conv1d heads; reduced to synthetic data (TF 1.15's printed output, measured)
    np.random.seed(0)
    tf.set_random_seed(0)
    conv1d = tf.layers.conv1d

    def attn_head(seq, out_sz, bias_mat, activation, in_drop=0.0, coef_drop=0.0, residual=False):
        with tf.name_scope('my_attn'):
            if in_drop != 0.0:
                seq = tf.nn.dropout(seq, 1.0 - in_drop)
            seq_fts = tf.layers.conv1d(seq, out_sz, 1, use_bias=False)
            f_1 = tf.layers.conv1d(seq_fts, 1, 1)
            f_2 = tf.layers.conv1d(seq_fts, 1, 1)
            logits = f_1 + tf.transpose(f_2, [0, 2, 1])
            coefs = tf.nn.softmax(tf.nn.leaky_relu(logits) + bias_mat)
            if coef_drop != 0.0:
                coefs = tf.nn.dropout(coefs, 1.0 - coef_drop)
            if in_drop != 0.0:
                seq_fts = tf.nn.dropout(seq_fts, 1.0 - in_drop)
            vals = tf.matmul(coefs, seq_fts)
            ret = tf.contrib.layers.bias_add(vals)
            if residual:
                if seq.shape[-1] != ret.shape[-1]:
                    ret = ret + conv1d(seq, ret.shape[-1], 1)
                else:
                    ret = ret + seq
            return activation(ret)

    def sp_attn_head(seq, out_sz, adj_mat, activation, nb_nodes, in_drop=0.0, coef_drop=0.0, residual=False):
        with tf.name_scope('sp_attn'):
            if in_drop != 0.0:
                seq = tf.nn.dropout(seq, 1.0 - in_drop)
            seq_fts = tf.layers.conv1d(seq, out_sz, 1, use_bias=False)
            f_1 = tf.layers.conv1d(seq_fts, 1, 1)
            f_2 = tf.layers.conv1d(seq_fts, 1, 1)
            f_1 = tf.reshape(f_1, (nb_nodes, 1))
            f_2 = tf.reshape(f_2, (nb_nodes, 1))
            f_1 = adj_mat*f_1
            f_2 = adj_mat * tf.transpose(f_2, [1,0])
            logits = tf.sparse_add(f_1, f_2)
            lrelu = tf.SparseTensor(indices=logits.indices,
                    values=tf.nn.leaky_relu(logits.values),
                    dense_shape=logits.dense_shape)
            coefs = tf.sparse_softmax(lrelu)
            if coef_drop != 0.0:
                coefs = tf.SparseTensor(indices=coefs.indices,
                        values=tf.nn.dropout(coefs.values, 1.0 - coef_drop),
                        dense_shape=coefs.dense_shape)
            if in_drop != 0.0:
                seq_fts = tf.nn.dropout(seq_fts, 1.0 - in_drop)
            coefs = tf.sparse_reshape(coefs, [nb_nodes, nb_nodes])
            seq_fts = tf.squeeze(seq_fts)
            vals = tf.sparse_tensor_dense_matmul(coefs, seq_fts)
            vals = tf.expand_dims(vals, axis=0)
            vals.set_shape([1, nb_nodes, out_sz])
            ret = tf.contrib.layers.bias_add(vals)
            if residual:
                if seq.shape[-1] != ret.shape[-1]:
                    ret = ret + conv1d(seq, ret.shape[-1], 1)
                else:
                    ret = ret + seq
            return activation(ret)

    def inference(inputs, nb_classes, nb_nodes, training, attn_drop, ffd_drop,
            bias_mat, hid_units, n_heads, activation=tf.nn.elu, residual=False, sparse=False):
        head = (lambda x, **kw: sp_attn_head(x, adj_mat=bias_mat, nb_nodes=nb_nodes, **kw)) if sparse \
            else (lambda x, **kw: attn_head(x, bias_mat=bias_mat, **kw))
        attns = []
        for _ in range(n_heads[0]):
            attns.append(head(inputs, out_sz=hid_units[0], activation=activation,
                in_drop=ffd_drop, coef_drop=attn_drop, residual=False))
        h_1 = tf.concat(attns, axis=-1)
        for i in range(1, len(hid_units)):
            attns = []
            for _ in range(n_heads[i]):
                attns.append(head(h_1, out_sz=hid_units[i], activation=activation,
                    in_drop=ffd_drop, coef_drop=attn_drop, residual=residual))
            h_1 = tf.concat(attns, axis=-1)
        out = []
        for i in range(n_heads[-1]):
            out.append(head(h_1, out_sz=nb_classes, activation=lambda x: x,
                in_drop=ffd_drop, coef_drop=attn_drop, residual=False))
        logits = tf.add_n(out) / n_heads[-1]
        return logits

    def training(loss, lr, l2_coef):
        vars = tf.trainable_variables()
        lossL2 = tf.add_n([tf.nn.l2_loss(v) for v in vars if v.name not
                           in ['bias', 'gamma', 'b', 'g', 'beta']]) * l2_coef
        opt = tf.train.AdamOptimizer(learning_rate=lr)
        train_op = opt.minimize(loss+lossL2)
        return train_op

    def masked_softmax_cross_entropy(logits, labels, mask):
        loss = tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=labels)
        mask = tf.cast(mask, dtype=tf.float32)
        mask /= tf.reduce_mean(mask)
        loss *= mask
        return tf.reduce_mean(loss)

    def masked_accuracy(logits, labels, mask):
        correct_prediction = tf.equal(tf.argmax(logits, 1), tf.argmax(labels, 1))
        accuracy_all = tf.cast(correct_prediction, tf.float32)
        mask = tf.cast(mask, dtype=tf.float32)
        mask /= tf.reduce_mean(mask)
        accuracy_all *= mask
        return tf.reduce_mean(accuracy_all)

    def adj_to_bias(adj, sizes, nhood=1):
        nb_graphs = adj.shape[0]
        mt = np.empty(adj.shape)
        for g in range(nb_graphs):
            mt[g] = np.eye(adj.shape[1])
            for _ in range(nhood):
                mt[g] = np.matmul(mt[g], (adj[g] + np.eye(adj.shape[1])))
            for i in range(sizes[g]):
                for j in range(sizes[g]):
                    if mt[g][i][j] > 0.0:
                        mt[g][i][j] = 1.0
        return -1e9 * (1.0 - mt)

    sparse = True
    batch_size, nb_nodes, ft_size, nb_classes = 1, 12, 8, 3
    hid_units = [4]; n_heads = [2, 1]
    A = (np.random.rand(nb_nodes, nb_nodes) < 0.25).astype(np.float32)
    A = np.maximum(A, A.T)
    features = np.random.rand(1, nb_nodes, ft_size).astype(np.float32)
    y = np.eye(nb_classes)[np.random.randint(0, nb_classes, nb_nodes)][None].astype(np.int32)
    train_mask = np.zeros((1, nb_nodes), np.int32); train_mask[0, :6] = 1
    val_mask = 1 - train_mask
    if sparse:
        adjp = A + np.eye(nb_nodes)
        idx = np.argwhere(adjp > 0)
        biases = (idx.astype(np.int64), adjp[adjp > 0].astype(np.float32), (nb_nodes, nb_nodes))
    else:
        biases = adj_to_bias(A[None], [nb_nodes], nhood=1)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        with tf.name_scope('input'):
            ftr_in = tf.placeholder(dtype=tf.float32, shape=(batch_size, nb_nodes, ft_size))
            if sparse:
                bias_in = tf.sparse_placeholder(dtype=tf.float32)
            else:
                bias_in = tf.placeholder(dtype=tf.float32, shape=(batch_size, nb_nodes, nb_nodes))
            lbl_in = tf.placeholder(dtype=tf.int32, shape=(batch_size, nb_nodes, nb_classes))
            msk_in = tf.placeholder(dtype=tf.int32, shape=(batch_size, nb_nodes))
            attn_drop = tf.placeholder(dtype=tf.float32, shape=())
            ffd_drop = tf.placeholder(dtype=tf.float32, shape=())
            is_train = tf.placeholder(dtype=tf.bool, shape=())
        logits = inference(ftr_in, nb_classes, nb_nodes, is_train, attn_drop, ffd_drop,
                           bias_mat=bias_in, hid_units=hid_units, n_heads=n_heads,
                           residual=False, activation=tf.nn.elu, sparse=sparse)
        log_resh = tf.reshape(logits, [-1, nb_classes])
        lab_resh = tf.reshape(lbl_in, [-1, nb_classes])
        msk_resh = tf.reshape(msk_in, [-1])
        loss = masked_softmax_cross_entropy(log_resh, lab_resh, msk_resh)
        accuracy = masked_accuracy(log_resh, lab_resh, msk_resh)
        train_op = training(loss, 0.005, 0.0005)
        saver = tf.train.Saver()
        init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
        print(logits, loss.name, [v.name for v in tf.trainable_variables()])
        with tf.Session() as sess:
            sess.run(init_op)
            for epoch in range(5):
                _, loss_value_tr, acc_tr = sess.run([train_op, loss, accuracy],
                    feed_dict={ftr_in: features, bias_in: biases, lbl_in: y, msk_in: train_mask,
                               is_train: True, attn_drop: 0.6, ffd_drop: 0.6})
                loss_value_vl, acc_vl = sess.run([loss, accuracy],
                    feed_dict={ftr_in: features, bias_in: biases, lbl_in: y, msk_in: val_mask,
                               is_train: False, attn_drop: 0.0, ffd_drop: 0.0})
                print('Training: loss = %.5f, acc = %.5f | Val: loss = %.5f, acc = %.5f' %
                      (loss_value_tr, acc_tr, loss_value_vl, acc_vl))
            print(repr(sess.run(logits, {ftr_in: features, bias_in: biases, attn_drop: 0.0, ffd_drop: 0.0})[0, :2]))
    assert capsys.readouterr().out == 'Tensor("truediv:0", shape=(1, 12, 3), dtype=float32) Mean_1:0 [\'conv1d/kernel:0\', \'conv1d_1/kernel:0\', \'conv1d_1/bias:0\', \'conv1d_2/kernel:0\', \'conv1d_2/bias:0\', \'BiasAdd/biases:0\', \'conv1d_3/kernel:0\', \'conv1d_4/kernel:0\', \'conv1d_4/bias:0\', \'conv1d_5/kernel:0\', \'conv1d_5/bias:0\', \'BiasAdd_1/biases:0\', \'conv1d_6/kernel:0\', \'conv1d_7/kernel:0\', \'conv1d_7/bias:0\', \'conv1d_8/kernel:0\', \'conv1d_8/bias:0\', \'BiasAdd_2/biases:0\']\nTraining: loss = 7.59492, acc = 0.00000 | Val: loss = 1.70839, acc = 0.00000\nTraining: loss = 1.24828, acc = 0.50000 | Val: loss = 1.71058, acc = 0.00000\nTraining: loss = 3.66032, acc = 0.50000 | Val: loss = 1.70927, acc = 0.00000\nTraining: loss = 1.24385, acc = 0.16667 | Val: loss = 1.70966, acc = 0.00000\nTraining: loss = 0.59376, acc = 0.50000 | Val: loss = 1.70899, acc = 0.00000\narray([[ 0.6844945 ,  0.42602056, -1.4830848 ],\n       [ 0.57513833,  0.37045956, -1.2826766 ]], dtype=float32)\n'
