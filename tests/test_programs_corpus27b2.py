"""More TF 1.x programs from individual authors' repositories, reduced to standalone forms
with small synthetic data (API calls, graph structure and training loops kept; sizes and step
counts shrunk). Each test runs the reduced program and compares what it prints, line by line,
with what TF 1.15 (tensorflow-cpu 1.15.0) printed running the same program with the same
seeds (measured; numbers printed at the precision shown). The programs keep their
authors' code style, hence the file-wide lint exemptions below."""
# ruff: noqa: F841, I001, RUF046, RUF059, UP004, UP031, UP032, UP039

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_memn2n(capsys):
    # carpedm20/MemN2N-tensorflow model.py, reduced (tf.batch_matmul -> tf.matmul(adjoint_b),
    # tf.concat(1, ...) -> tf.concat(..., 1), positional xent -> named: TF 1.15 lacks the 0.x forms)
    import math, random, os, tempfile
    class Cfg: pass
    config = Cfg()
    config.nwords = 20; config.init_hid = 0.1; config.init_std = 0.05; config.batch_size = 4
    config.nepoch = 3; config.nhop = 3; config.edim = 6; config.mem_size = 5; config.lindim = 3
    config.max_grad_norm = 50; config.init_lr = 0.01; config.checkpoint_dir = tempfile.mkdtemp()
    class MemN2N(object):
        def __init__(self, config, sess):
            self.nwords = config.nwords; self.init_hid = config.init_hid; self.init_std = config.init_std
            self.batch_size = config.batch_size; self.nepoch = config.nepoch; self.nhop = config.nhop
            self.edim = config.edim; self.mem_size = config.mem_size; self.lindim = config.lindim
            self.max_grad_norm = config.max_grad_norm; self.checkpoint_dir = config.checkpoint_dir
            self.input = tf.placeholder(tf.float32, [None, self.edim], name="input")
            self.time = tf.placeholder(tf.int32, [None, self.mem_size], name="time")
            self.target = tf.placeholder(tf.float32, [self.batch_size, self.nwords], name="target")
            self.context = tf.placeholder(tf.int32, [self.batch_size, self.mem_size], name="context")
            self.hid = [self.input]
            self.share_list = [[]]
            self.current_lr = config.init_lr
            self.sess = sess
            self.log_loss = []; self.log_perp = []
        def build_memory(self):
            self.global_step = tf.Variable(0, name="global_step")
            self.A = tf.Variable(tf.random_normal([self.nwords, self.edim], stddev=self.init_std))
            self.B = tf.Variable(tf.random_normal([self.nwords, self.edim], stddev=self.init_std))
            self.C = tf.Variable(tf.random_normal([self.edim, self.edim], stddev=self.init_std))
            self.T_A = tf.Variable(tf.random_normal([self.mem_size, self.edim], stddev=self.init_std))
            self.T_B = tf.Variable(tf.random_normal([self.mem_size, self.edim], stddev=self.init_std))
            Ain_c = tf.nn.embedding_lookup(self.A, self.context)
            Ain_t = tf.nn.embedding_lookup(self.T_A, self.time)
            Ain = tf.add(Ain_c, Ain_t)
            Bin_c = tf.nn.embedding_lookup(self.B, self.context)
            Bin_t = tf.nn.embedding_lookup(self.T_B, self.time)
            Bin = tf.add(Bin_c, Bin_t)
            for h in range(self.nhop):
                self.hid3dim = tf.reshape(self.hid[-1], [-1, 1, self.edim])
                Aout = tf.matmul(self.hid3dim, Ain, adjoint_b=True)
                Aout2dim = tf.reshape(Aout, [-1, self.mem_size])
                P = tf.nn.softmax(Aout2dim)
                probs3dim = tf.reshape(P, [-1, 1, self.mem_size])
                Bout = tf.matmul(probs3dim, Bin)
                Bout2dim = tf.reshape(Bout, [-1, self.edim])
                Cout = tf.matmul(self.hid[-1], self.C)
                Dout = tf.add(Cout, Bout2dim)
                self.share_list[0].append(Cout)
                if self.lindim == self.edim:
                    self.hid.append(Dout)
                elif self.lindim == 0:
                    self.hid.append(tf.nn.relu(Dout))
                else:
                    F = tf.slice(Dout, [0, 0], [self.batch_size, self.lindim])
                    G = tf.slice(Dout, [0, self.lindim], [self.batch_size, self.edim-self.lindim])
                    K = tf.nn.relu(G)
                    self.hid.append(tf.concat([F, K], 1))
        def build_model(self):
            self.build_memory()
            self.W = tf.Variable(tf.random_normal([self.edim, self.nwords], stddev=self.init_std))
            z = tf.matmul(self.hid[-1], self.W)
            self.loss = tf.nn.softmax_cross_entropy_with_logits(logits=z, labels=self.target)
            self.lr = tf.Variable(self.current_lr)
            self.opt = tf.train.GradientDescentOptimizer(self.lr)
            params = [self.A, self.B, self.C, self.T_A, self.T_B, self.W]
            grads_and_vars = self.opt.compute_gradients(self.loss,params)
            clipped_grads_and_vars = [(tf.clip_by_norm(gv[0], self.max_grad_norm), gv[1]) for gv in grads_and_vars]
            print([type(g).__name__ for g, v in grads_and_vars])
            print([(type(g).__name__, g.name) for g, v in clipped_grads_and_vars])
            inc = self.global_step.assign_add(1)
            with tf.control_dependencies([inc]):
                self.optim = self.opt.apply_gradients(clipped_grads_and_vars)
            tf.global_variables_initializer().run()
            self.saver = tf.train.Saver()
        def train(self, data):
            N = int(math.ceil(len(data) / self.batch_size))
            cost = 0
            x = np.ndarray([self.batch_size, self.edim], dtype=np.float32)
            time = np.ndarray([self.batch_size, self.mem_size], dtype=np.int32)
            target = np.zeros([self.batch_size, self.nwords])
            context = np.ndarray([self.batch_size, self.mem_size])
            x.fill(self.init_hid)
            for t in range(self.mem_size):
                time[:,t].fill(t)
            for idx in range(N):
                target.fill(0)
                for b in range(self.batch_size):
                    m = random.randrange(self.mem_size, len(data))
                    target[b][data[m]] = 1
                    context[b] = data[m - self.mem_size:m]
                _, loss, self.step = self.sess.run([self.optim, self.loss, self.global_step],
                    feed_dict={self.input: x, self.time: time, self.target: target, self.context: context})
                cost += np.sum(loss)
            return cost/N/self.batch_size
        def test(self, data, label='Test'):
            N = int(math.ceil(len(data) / self.batch_size))
            cost = 0
            x = np.ndarray([self.batch_size, self.edim], dtype=np.float32)
            time = np.ndarray([self.batch_size, self.mem_size], dtype=np.int32)
            target = np.zeros([self.batch_size, self.nwords])
            context = np.ndarray([self.batch_size, self.mem_size])
            x.fill(self.init_hid)
            for t in range(self.mem_size):
                time[:,t].fill(t)
            m = self.mem_size
            for idx in range(N):
                target.fill(0)
                for b in range(self.batch_size):
                    target[b][data[m]] = 1
                    context[b] = data[m - self.mem_size:m]
                    m += 1
                    if m >= len(data):
                        m = self.mem_size
                loss = self.sess.run([self.loss], feed_dict={self.input: x, self.time: time, self.target: target, self.context: context})
                cost += np.sum(loss)
            return cost/N/self.batch_size
        def run(self, train_data, test_data):
            for idx in range(self.nepoch):
                train_loss = np.sum(self.train(train_data))
                test_loss = np.sum(self.test(test_data, label='Validation'))
                self.log_loss.append([train_loss, test_loss])
                self.log_perp.append([math.exp(train_loss), math.exp(test_loss)])
                state = {'perplexity': round(math.exp(train_loss), 4), 'epoch': idx, 'learning_rate': self.current_lr,
                         'valid_perplexity': round(math.exp(test_loss), 4)}
                print(state)
                if len(self.log_loss) > 1 and self.log_loss[idx][1] > self.log_loss[idx-1][1] * 0.9999:
                    self.current_lr = self.current_lr / 1.5
                    self.lr.assign(self.current_lr).eval()
                if idx % 2 == 0:
                    print(self.saver.save(self.sess, os.path.join(self.checkpoint_dir, "MemN2N.model"),
                                    global_step = self.step.astype(int)).replace(self.checkpoint_dir, ''))
            print(type(self.step), self.step, self.sess.run(self.lr))
    random.seed(0); np.random.seed(0); tf.set_random_seed(0)
    train_data = list(np.random.randint(0, 20, 40)); test_data = list(np.random.randint(0, 20, 17))
    with tf.Session() as sess:
        model = MemN2N(config, sess)
        model.build_model()
        model.run(train_data, test_data)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["memn2n"]


def test_softmax_gan(capsys):
    # wiseodd/generative-models GAN/softmax_gan/softmax_gan_tensorflow.py (MNIST -> random data)
    mb_size = 8; X_dim = 12; z_dim = 4; h_dim = 6; lr = 1e-3; d_steps = 3
    np.random.seed(1); tf.set_random_seed(1)
    data = np.random.rand(64, X_dim).astype(np.float32)
    def xavier_init(size):
        in_dim = size[0]
        xavier_stddev = 1. / tf.sqrt(in_dim / 2.)
        return tf.random_normal(shape=size, stddev=xavier_stddev)
    def log(x):
        return tf.log(x + 1e-8)
    X = tf.placeholder(tf.float32, shape=[None, X_dim]); z = tf.placeholder(tf.float32, shape=[None, z_dim])
    D_W1 = tf.Variable(xavier_init([X_dim, h_dim])); D_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    D_W2 = tf.Variable(xavier_init([h_dim, 1])); D_b2 = tf.Variable(tf.zeros(shape=[1]))
    G_W1 = tf.Variable(xavier_init([z_dim, h_dim])); G_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    G_W2 = tf.Variable(xavier_init([h_dim, X_dim])); G_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    theta_G = [G_W1, G_W2, G_b1, G_b2]; theta_D = [D_W1, D_W2, D_b1, D_b2]
    def sample_z(m, n):
        return np.random.uniform(-1., 1., size=[m, n])
    def G(z):
        G_h1 = tf.nn.relu(tf.matmul(z, G_W1) + G_b1)
        return tf.nn.sigmoid(tf.matmul(G_h1, G_W2) + G_b2)
    def D(X):
        D_h1 = tf.nn.relu(tf.matmul(X, D_W1) + D_b1)
        return tf.matmul(D_h1, D_W2) + D_b2
    G_sample = G(z); D_real = D(X); D_fake = D(G_sample)
    D_target = 1./mb_size
    G_target = 1./(mb_size*2)
    Z = tf.reduce_sum(tf.exp(-D_real)) + tf.reduce_sum(tf.exp(-D_fake))
    D_loss = tf.reduce_sum(D_target * D_real) + log(Z)
    G_loss = tf.reduce_sum(G_target * D_real) + tf.reduce_sum(G_target * D_fake) + log(Z)
    print(Z, D_loss, G_loss)
    D_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(D_loss, var_list=theta_D))
    G_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(G_loss, var_list=theta_G))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for it in range(6):
        X_mb = data[(it * mb_size) % 64:(it * mb_size) % 64 + mb_size]
        z_mb = sample_z(mb_size, z_dim)
        _, D_loss_curr = sess.run([D_solver, D_loss], feed_dict={X: X_mb, z: z_mb})
        _, G_loss_curr = sess.run([G_solver, G_loss], feed_dict={X: X_mb, z: z_mb})
        if it % 2 == 0:
            print('Iter: {}; D_loss: {:.4}; G_loss: {:.4}'.format(it, D_loss_curr, G_loss_curr))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["softmax_gan"]


def test_cnnrnn(capsys):
    # jiegzhan/multi-class-text-classification-cnn-rnn text_cnn_rnn.py + train.py (data synthetic)
    import os, tempfile
    class TextCNNRNN(object):
        def __init__(self, embedding_mat, non_static, hidden_unit, sequence_length, max_pool_size,
            num_classes, embedding_size, filter_sizes, num_filters, l2_reg_lambda=0.0):
            self.input_x = tf.placeholder(tf.int32, [None, sequence_length], name='input_x')
            self.input_y = tf.placeholder(tf.float32, [None, num_classes], name='input_y')
            self.dropout_keep_prob = tf.placeholder(tf.float32, name='dropout_keep_prob')
            self.batch_size = tf.placeholder(tf.int32, [])
            self.pad = tf.placeholder(tf.float32, [None, 1, embedding_size, 1], name='pad')
            self.real_len = tf.placeholder(tf.int32, [None], name='real_len')
            l2_loss = tf.constant(0.0)
            with tf.device('/cpu:0'), tf.name_scope('embedding'):
                if not non_static:
                    W = tf.constant(embedding_mat, name='W')
                else:
                    W = tf.Variable(embedding_mat, name='W')
                self.embedded_chars = tf.nn.embedding_lookup(W, self.input_x)
                emb = tf.expand_dims(self.embedded_chars, -1)
            pooled_concat = []
            reduced = np.int32(np.ceil((sequence_length) * 1.0 / max_pool_size))
            for i, filter_size in enumerate(filter_sizes):
                with tf.name_scope('conv-maxpool-%s' % filter_size):
                    num_prio = (filter_size-1) // 2
                    num_post = (filter_size-1) - num_prio
                    pad_prio = tf.concat([self.pad] * num_prio,1)
                    pad_post = tf.concat([self.pad] * num_post,1)
                    emb_pad = tf.concat([pad_prio, emb, pad_post],1)
                    filter_shape = [filter_size, embedding_size, 1, num_filters]
                    W = tf.Variable(tf.truncated_normal(filter_shape, stddev=0.1), name='W')
                    b = tf.Variable(tf.constant(0.1, shape=[num_filters]), name='b')
                    conv = tf.nn.conv2d(emb_pad, W, strides=[1, 1, 1, 1], padding='VALID', name='conv')
                    h = tf.nn.relu(tf.nn.bias_add(conv, b), name='relu')
                    pooled = tf.nn.max_pool(h, ksize=[1, max_pool_size, 1, 1], strides=[1, max_pool_size, 1, 1], padding='SAME', name='pool')
                    pooled = tf.reshape(pooled, [-1, reduced, num_filters])
                    pooled_concat.append(pooled)
            pooled_concat = tf.concat(pooled_concat,2)
            pooled_concat = tf.nn.dropout(pooled_concat, self.dropout_keep_prob)
            lstm_cell = tf.contrib.rnn.GRUCell(num_units=hidden_unit)
            lstm_cell = tf.contrib.rnn.DropoutWrapper(lstm_cell, output_keep_prob=self.dropout_keep_prob)
            self._initial_state = lstm_cell.zero_state(self.batch_size, tf.float32)
            inputs = [tf.squeeze(input_, [1]) for input_ in tf.split(pooled_concat,num_or_size_splits=int(reduced),axis=1)]
            outputs, state = tf.contrib.rnn.static_rnn(lstm_cell, inputs, initial_state=self._initial_state, sequence_length=self.real_len)
            print(self._initial_state, outputs[-1], state)
            output = outputs[0]
            with tf.variable_scope('Output'):
                tf.get_variable_scope().reuse_variables()
                one = tf.ones([1, hidden_unit], tf.float32)
                for i in range(1,len(outputs)):
                    ind = self.real_len < (i+1)
                    ind = tf.to_float(ind)
                    ind = tf.expand_dims(ind, -1)
                    mat = tf.matmul(ind, one)
                    output = tf.add(tf.multiply(output, mat),tf.multiply(outputs[i], 1.0 - mat))
            with tf.name_scope('output'):
                self.W = tf.Variable(tf.truncated_normal([hidden_unit, num_classes], stddev=0.1), name='W')
                b = tf.Variable(tf.constant(0.1, shape=[num_classes]), name='b')
                l2_loss += tf.nn.l2_loss(W)
                l2_loss += tf.nn.l2_loss(b)
                self.scores = tf.nn.xw_plus_b(output, self.W, b, name='scores')
                self.predictions = tf.argmax(self.scores, 1, name='predictions')
            with tf.name_scope('loss'):
                losses = tf.nn.softmax_cross_entropy_with_logits(labels = self.input_y, logits = self.scores)
                self.loss = tf.reduce_mean(losses) + l2_reg_lambda * l2_loss
            with tf.name_scope('accuracy'):
                correct_predictions = tf.equal(self.predictions, tf.argmax(self.input_y, 1))
                self.accuracy = tf.reduce_mean(tf.cast(correct_predictions, "float"), name='accuracy')
            with tf.name_scope('num_correct'):
                correct = tf.equal(self.predictions, tf.argmax(self.input_y, 1))
                self.num_correct = tf.reduce_sum(tf.cast(correct, 'float'))
    params = {"batch_size": 4, "dropout_keep_prob": 0.5, "embedding_dim": 6, "evaluate_every": 2, "filter_sizes": "3,4,5",
              "hidden_unit": 5, "l2_reg_lambda": 0.0, "max_pool_size": 4, "non_static": False, "num_epochs": 1, "num_filters": 3}
    rs = np.random.RandomState(0)
    x_train = rs.randint(1, 10, size=(12, 10)); x_train[:, 7:] = 0; x_train[::3, 5:] = 0
    y_train = np.eye(3)[rs.randint(0, 3, 12)]
    x_dev, y_dev = x_train[:5], y_train[:5]
    embedding_mat = rs.randn(10, 6).astype(np.float32)
    tf.set_random_seed(4)
    graph = tf.Graph()
    with graph.as_default():
        session_conf = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
        sess = tf.Session(config=session_conf)
        with sess.as_default():
            tf.set_random_seed(4)
            cnn_rnn = TextCNNRNN(embedding_mat=embedding_mat, sequence_length=x_train.shape[1], num_classes = y_train.shape[1],
                non_static=params['non_static'], hidden_unit=params['hidden_unit'], max_pool_size=params['max_pool_size'],
                filter_sizes=map(int, params['filter_sizes'].split(",")), num_filters = params['num_filters'],
                embedding_size = params['embedding_dim'], l2_reg_lambda = params['l2_reg_lambda'])
            global_step = tf.Variable(0, name='global_step', trainable=False)
            optimizer = tf.train.RMSPropOptimizer(1e-3, decay=0.9)
            grads_and_vars = optimizer.compute_gradients(cnn_rnn.loss)
            print([v.name for g, v in grads_and_vars])
            train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
            checkpoint_prefix = os.path.join(tempfile.mkdtemp(), 'model')
            def real_len(batches):
                return [np.ceil(np.argmin(batch + [0]) * 1.0 / params['max_pool_size']) for batch in batches]
            def train_step(x_batch, y_batch):
                feed_dict = {cnn_rnn.input_x: x_batch, cnn_rnn.input_y: y_batch, cnn_rnn.dropout_keep_prob: 1.0,
                    cnn_rnn.batch_size: len(x_batch), cnn_rnn.pad: np.zeros([len(x_batch), 1, params['embedding_dim'], 1]),
                    cnn_rnn.real_len: real_len(x_batch)}
                _, step, loss, accuracy = sess.run([train_op, global_step, cnn_rnn.loss, cnn_rnn.accuracy], feed_dict)
                print(step, "%.5f" % loss, accuracy)
            def dev_step(x_batch, y_batch):
                feed_dict = {cnn_rnn.input_x: x_batch, cnn_rnn.input_y: y_batch, cnn_rnn.dropout_keep_prob: 1.0,
                    cnn_rnn.batch_size: len(x_batch), cnn_rnn.pad: np.zeros([len(x_batch), 1, params['embedding_dim'], 1]),
                    cnn_rnn.real_len: real_len(x_batch)}
                step, loss, accuracy, num_correct, predictions = sess.run(
                    [global_step, cnn_rnn.loss, cnn_rnn.accuracy, cnn_rnn.num_correct, cnn_rnn.predictions], feed_dict)
                return accuracy, loss, num_correct, predictions
            saver = tf.train.Saver()
            sess.run(tf.global_variables_initializer())
            best_accuracy, best_at_step = 0, 0
            for k in range(3):
                train_step(x_train[4*k:4*k+4], y_train[4*k:4*k+4])
                current_step = tf.train.global_step(sess, global_step)
                print(type(current_step), current_step)
                if current_step % params['evaluate_every'] == 0:
                    acc, loss, num_dev_correct, predictions = dev_step(x_dev, y_dev)
                    accuracy = float(num_dev_correct) / len(y_dev)
                    print('Accuracy on dev set: {}'.format(accuracy), type(num_dev_correct), predictions)
                    if accuracy >= best_accuracy:
                        best_accuracy, best_at_step = accuracy, current_step
                        path = saver.save(sess, checkpoint_prefix, global_step=current_step)
            saver.restore(sess, checkpoint_prefix + '-' + str(best_at_step))
            print(dev_step(x_dev, y_dev)[2:])
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["cnnrnn"]


def test_golbin_dqn(capsys):
    # golbin/TensorFlow-Tutorials 12 - DQN/model.py (game replaced by random boards), sizes shrunk
    import random
    from collections import deque
    class DQN:
        REPLAY_MEMORY = 10000; BATCH_SIZE = 4; GAMMA = 0.99; STATE_LEN = 4
        def __init__(self, session, width, height, n_action):
            self.session = session; self.n_action = n_action; self.width = width; self.height = height
            self.memory = deque(); self.state = None
            self.input_X = tf.placeholder(tf.float32, [None, width, height, self.STATE_LEN])
            self.input_A = tf.placeholder(tf.int64, [None])
            self.input_Y = tf.placeholder(tf.float32, [None])
            self.Q = self._build_network('main')
            self.cost, self.train_op = self._build_op()
            self.target_Q = self._build_network('target')
        def _build_network(self, name):
            with tf.variable_scope(name):
                model = tf.layers.conv2d(self.input_X, 4, [4, 4], padding='same', activation=tf.nn.relu)
                model = tf.layers.conv2d(model, 6, [2, 2], padding='same', activation=tf.nn.relu)
                model = tf.contrib.layers.flatten(model)
                model = tf.layers.dense(model, 8, activation=tf.nn.relu)
                Q = tf.layers.dense(model, self.n_action, activation=None)
            return Q
        def _build_op(self):
            one_hot = tf.one_hot(self.input_A, self.n_action, 1.0, 0.0)
            Q_value = tf.reduce_sum(tf.multiply(self.Q, one_hot), axis=1)
            cost = tf.reduce_mean(tf.square(self.input_Y - Q_value))
            train_op = tf.train.AdamOptimizer(1e-2).minimize(cost)
            return cost, train_op
        def update_target_network(self):
            copy_op = []
            main_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='main')
            target_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='target')
            for main_var, target_var in zip(main_vars, target_vars):
                copy_op.append(target_var.assign(main_var.value()))
            self.session.run(copy_op)
            print([o.name for o in copy_op][:2])
        def get_action(self):
            Q_value = self.session.run(self.Q, feed_dict={self.input_X: [self.state]})
            return np.argmax(Q_value[0])
        def init_state(self, state):
            state = [state for _ in range(self.STATE_LEN)]
            self.state = np.stack(state, axis=2)
        def remember(self, state, action, reward, terminal):
            next_state = np.reshape(state, (self.width, self.height, 1))
            next_state = np.append(self.state[:, :, 1:], next_state, axis=2)
            self.memory.append((self.state, next_state, action, reward, terminal))
            if len(self.memory) > self.REPLAY_MEMORY:
                self.memory.popleft()
            self.state = next_state
        def _sample_memory(self):
            sample_memory = random.sample(self.memory, self.BATCH_SIZE)
            return ([m[0] for m in sample_memory], [m[1] for m in sample_memory], [m[2] for m in sample_memory],
                    [m[3] for m in sample_memory], [m[4] for m in sample_memory])
        def train(self):
            state, next_state, action, reward, terminal = self._sample_memory()
            target_Q_value = self.session.run(self.target_Q, feed_dict={self.input_X: next_state})
            Y = []
            for i in range(self.BATCH_SIZE):
                if terminal[i]:
                    Y.append(reward[i])
                else:
                    Y.append(reward[i] + self.GAMMA * np.max(target_Q_value[i]))
            self.session.run(self.train_op, feed_dict={self.input_X: state, self.input_A: action, self.input_Y: Y})
            return self.session.run(self.cost, feed_dict={self.input_X: state, self.input_A: action, self.input_Y: Y})
    random.seed(1); np.random.seed(1); tf.set_random_seed(1)
    sess = tf.Session()
    brain = DQN(sess, 6, 5, 3)
    print(brain.Q, brain.target_Q, [v.name for v in tf.global_variables()][-4:])
    rewards = tf.placeholder(tf.float32, [None])
    tf.summary.scalar('avg.reward/ep.', tf.reduce_mean(rewards))
    sess.run(tf.global_variables_initializer())
    brain.update_target_network()
    brain.init_state(np.random.rand(6, 5))
    for t in range(8):
        action = random.randrange(3) if t % 2 else brain.get_action()
        brain.remember(np.random.rand(6, 5), action, float(t % 3 == 0), t == 5)
    print(type(brain.get_action()))
    for k in range(2):
        print('%.5f' % brain.train())
    brain.update_target_network()
    print(sess.run(tf.summary.merge_all(), {rewards: [1., 2.]})[:2])
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["golbin_dqn"]


def test_began(capsys):
    # wiseodd/generative-models GAN/boundary_equilibrium_gan/began_tensorflow.py (MNIST -> random data)
    mb_size = 8; X_dim = 12; z_dim = 4; h_dim = 6; lr = 1e-3; m = 5; lam = 1e-3; gamma = 0.5; k_curr = 0
    np.random.seed(0); tf.set_random_seed(0)
    data = np.random.rand(64, X_dim).astype(np.float32)
    def xavier_init(size):
        in_dim = size[0]
        xavier_stddev = 1. / tf.sqrt(in_dim / 2.)
        return tf.random_normal(shape=size, stddev=xavier_stddev)
    X = tf.placeholder(tf.float32, shape=[None, X_dim])
    z = tf.placeholder(tf.float32, shape=[None, z_dim])
    k = tf.placeholder(tf.float32)
    print(k, xavier_init([3, 2]))
    D_W1 = tf.Variable(xavier_init([X_dim, h_dim])); D_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    D_W2 = tf.Variable(xavier_init([h_dim, X_dim])); D_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    G_W1 = tf.Variable(xavier_init([z_dim, h_dim])); G_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    G_W2 = tf.Variable(xavier_init([h_dim, X_dim])); G_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    theta_G = [G_W1, G_W2, G_b1, G_b2]; theta_D = [D_W1, D_W2, D_b1, D_b2]
    def sample_z(m, n):
        return np.random.uniform(-1., 1., size=[m, n])
    def G(z):
        G_h1 = tf.nn.relu(tf.matmul(z, G_W1) + G_b1)
        return tf.nn.sigmoid(tf.matmul(G_h1, G_W2) + G_b2)
    def D(X):
        D_h1 = tf.nn.relu(tf.matmul(X, D_W1) + D_b1)
        X_recon = tf.matmul(D_h1, D_W2) + D_b2
        return tf.reduce_mean(tf.reduce_sum((X - X_recon)**2, 1))
    G_sample = G(z); D_real = D(X); D_fake = D(G_sample)
    D_loss = D_real - k*D_fake
    G_loss = D_fake
    print(D_loss, G_loss)
    D_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(D_loss, var_list=theta_D))
    G_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(G_loss, var_list=theta_G))
    print(D_solver.name, G_solver.name, len(tf.global_variables()))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for it in range(6):
        X_mb = data[(it * mb_size) % 64:(it * mb_size) % 64 + mb_size]
        _, D_real_curr = sess.run([D_solver, D_real], feed_dict={X: X_mb, z: sample_z(mb_size, z_dim), k: k_curr})
        _, D_fake_curr = sess.run([G_solver, D_fake], feed_dict={X: X_mb, z: sample_z(mb_size, z_dim)})
        k_curr = k_curr + lam * (gamma*D_real_curr - D_fake_curr)
        if it % 2 == 0:
            measure = D_real_curr + np.abs(gamma*D_real_curr - D_fake_curr)
            print('Iter-{}; Convergence measure: {:.4}'.format(it, measure))
            samples = sess.run(G_sample, feed_dict={z: sample_z(16, z_dim)})
            print(samples.shape, samples.dtype)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["began"]


def test_a3c(capsys):
    # dennybritz/reinforcement-learning PolicyGradient/a3c/estimators.py + estimator_test.py
    def build_shared_network(X, add_summaries=False):
        conv1 = tf.contrib.layers.conv2d(X, 32, 8, 4, activation_fn=tf.nn.relu, scope="conv1")
        conv2 = tf.contrib.layers.conv2d(conv1, 64, 4, 2, activation_fn=tf.nn.relu, scope="conv2")
        conv3 = tf.contrib.layers.conv2d(conv2, 64, 3, 1, activation_fn=tf.nn.relu, scope="conv3")
        flattened = tf.contrib.layers.flatten(conv3)
        fc1 = tf.contrib.layers.fully_connected(inputs=flattened, num_outputs=256, scope="fc1")
        if add_summaries:
            tf.contrib.layers.summarize_activation(conv1)
            tf.contrib.layers.summarize_activation(conv2)
            tf.contrib.layers.summarize_activation(conv3)
            tf.contrib.layers.summarize_activation(fc1)
        return fc1

    class PolicyEstimator():
        def __init__(self, num_outputs, reuse=False, trainable=True):
            self.num_outputs = num_outputs
            self.states = tf.placeholder(shape=[None, 16, 16, 4], dtype=tf.uint8, name="X")
            self.targets = tf.placeholder(shape=[None], dtype=tf.float32, name="y")
            self.actions = tf.placeholder(shape=[None], dtype=tf.int32, name="actions")
            X = tf.to_float(self.states) / 255.0
            batch_size = tf.shape(self.states)[0]
            with tf.variable_scope("shared", reuse=reuse):
                fc1 = build_shared_network(X, add_summaries=(not reuse))
            with tf.variable_scope("policy_net"):
                self.logits = tf.contrib.layers.fully_connected(fc1, num_outputs, activation_fn=None)
                self.probs = tf.nn.softmax(self.logits) + 1e-8
                self.predictions = {"logits": self.logits, "probs": self.probs}
                if not trainable:
                    return
                self.entropy = -tf.reduce_sum(self.probs * tf.log(self.probs), 1, name="entropy")
                self.entropy_mean = tf.reduce_mean(self.entropy, name="entropy_mean")
                gather_indices = tf.range(batch_size) * tf.shape(self.probs)[1] + self.actions
                self.picked_action_probs = tf.gather(tf.reshape(self.probs, [-1]), gather_indices)
                self.losses = - (tf.log(self.picked_action_probs) * self.targets + 0.01 * self.entropy)
                self.loss = tf.reduce_sum(self.losses, name="loss")
                tf.summary.scalar(self.loss.op.name, self.loss)
                tf.summary.scalar(self.entropy_mean.op.name, self.entropy_mean)
                tf.summary.histogram(self.entropy.op.name, self.entropy)
                self.optimizer = tf.train.RMSPropOptimizer(0.00025, 0.99, 0.0, 1e-6)
                self.grads_and_vars = self.optimizer.compute_gradients(self.loss)
                self.grads_and_vars = [[grad, var] for grad, var in self.grads_and_vars if grad is not None]
                self.train_op = self.optimizer.apply_gradients(self.grads_and_vars,
                    global_step=tf.contrib.framework.get_global_step())
            var_scope_name = tf.get_variable_scope().name
            summary_ops = tf.get_collection(tf.GraphKeys.SUMMARIES)
            sumaries = [s for s in summary_ops if "policy_net" in s.name or "shared" in s.name]
            sumaries = [s for s in summary_ops if var_scope_name in s.name]
            self.summaries = tf.summary.merge(sumaries)

    class ValueEstimator():
        def __init__(self, reuse=False, trainable=True):
            self.states = tf.placeholder(shape=[None, 16, 16, 4], dtype=tf.uint8, name="X")
            self.targets = tf.placeholder(shape=[None], dtype=tf.float32, name="y")
            X = tf.to_float(self.states) / 255.0
            with tf.variable_scope("shared", reuse=reuse):
                fc1 = build_shared_network(X, add_summaries=(not reuse))
            with tf.variable_scope("value_net"):
                self.logits = tf.contrib.layers.fully_connected(inputs=fc1, num_outputs=1, activation_fn=None)
                self.logits = tf.squeeze(self.logits, squeeze_dims=[1], name="logits")
                self.losses = tf.squared_difference(self.logits, self.targets)
                self.loss = tf.reduce_sum(self.losses, name="loss")
                self.predictions = {"logits": self.logits}
                prefix = tf.get_variable_scope().name
                tf.summary.scalar(self.loss.name, self.loss)
                tf.summary.scalar("{}/max_value".format(prefix), tf.reduce_max(self.logits))
                tf.summary.scalar("{}/min_value".format(prefix), tf.reduce_min(self.logits))
                tf.summary.scalar("{}/mean_value".format(prefix), tf.reduce_mean(self.logits))
                tf.summary.scalar("{}/reward_max".format(prefix), tf.reduce_max(self.targets))
                tf.summary.histogram("{}/reward_targets".format(prefix), self.targets)
                tf.summary.histogram("{}/values".format(prefix), self.logits)
                if trainable:
                    self.optimizer = tf.train.RMSPropOptimizer(0.00025, 0.99, 0.0, 1e-6)
                    self.grads_and_vars = self.optimizer.compute_gradients(self.loss)
                    self.grads_and_vars = [[grad, var] for grad, var in self.grads_and_vars if grad is not None]
                    self.train_op = self.optimizer.apply_gradients(self.grads_and_vars,
                        global_step=tf.contrib.framework.get_global_step())
            var_scope_name = tf.get_variable_scope().name
            summary_ops = tf.get_collection(tf.GraphKeys.SUMMARIES)
            sumaries = [s for s in summary_ops if "policy_net" in s.name or "shared" in s.name]
            sumaries = [s for s in summary_ops if var_scope_name in s.name]
            self.summaries = tf.summary.merge(sumaries)

    tf.set_random_seed(1)
    np.random.seed(1)
    gs = tf.Variable(0, name="global_step", trainable=False)  # train.py makes it at the top
    with tf.variable_scope("global") as vs:
        pe = PolicyEstimator(4)
        ve = ValueEstimator(reuse=True)
    print([v.name for v in tf.global_variables()])
    print([s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)])
    print(pe.summaries.name, ve.summaries.name, pe.train_op.name, ve.train_op.name)
    print(pe.picked_action_probs, pe.losses, ve.logits, ve.losses)
    states = np.random.randint(0, 255, size=(3, 16, 16, 4)).astype(np.uint8)
    with tf.Session() as sess:
        sess.run(tf.initialize_all_variables())
        fd = {pe.states: states, pe.targets: [1.0, -0.5, 2.0], pe.actions: [1, 0, 3]}
        for i in range(3):
            l, p, _ = sess.run([pe.loss, pe.predictions, pe.train_op], fd)
            print(i, "%.5f" % l, p["probs"].shape, p["logits"].shape, p["probs"][0].round(4))
            vl, vp, _ = sess.run([ve.loss, ve.predictions, ve.train_op], {ve.states: states, ve.targets: [1.0, 0.0, 3.0]})
            print(i, "%.5f" % vl, vp["logits"].round(4))
        s = sess.run(pe.summaries, fd)
        print(len(s) > 0, sess.run(tf.train.get_global_step()))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["a3c"]


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "memn2n": [
        "['IndexedSlices', 'IndexedSlices', 'Tensor', 'IndexedSlices', 'IndexedSlices', 'Tensor']",
        "[('IndexedSlices', 'clip_by_norm:0'), ('IndexedSlices', 'clip_by_norm_1:0'), ('Tensor', 'clip_by_norm_2:0'), ('IndexedSlices', 'clip_by_norm_3:0'), ('IndexedSlices', 'clip_by_norm_4:0'), ('Tensor', 'clip_by_norm_5:0')]",
        "{'perplexity': 19.966, 'epoch': 0, 'learning_rate': 0.01, 'valid_perplexity': 20.0269}",
        '/MemN2N.model-10',
        "{'perplexity': 19.9774, 'epoch': 1, 'learning_rate': 0.01, 'valid_perplexity': 20.0259}",
        "{'perplexity': 20.0037, 'epoch': 2, 'learning_rate': 0.006666666666666667, 'valid_perplexity': 20.0242}",
        '/MemN2N.model-30',
        "<class 'numpy.int32'> 30 0.0044444446",
    ],
    "softmax_gan": [
        'Tensor("add_6:0", shape=(), dtype=float32) Tensor("add_8:0", shape=(), dtype=float32) Tensor("add_11:0", shape=(), dtype=float32)',
        'Iter: 0; D_loss: 2.597; G_loss: 2.817',
        'Iter: 2; D_loss: 2.894; G_loss: 2.885',
        'Iter: 4; D_loss: 2.807; G_loss: 2.943',
    ],
    "cnnrnn": [
        'Tensor("DropoutWrapperZeroState/GRUCellZeroState/zeros:0", shape=(?, 5), dtype=float32) Tensor("rnn/cond_2/Merge:0", shape=(?, 5), dtype=float32) Tensor("rnn/cond_2/Merge_1:0", shape=(?, 5), dtype=float32)',
        "['conv-maxpool-3/W:0', 'conv-maxpool-3/b:0', 'conv-maxpool-4/W:0', 'conv-maxpool-4/b:0', 'conv-maxpool-5/W:0', 'conv-maxpool-5/b:0', 'rnn/gru_cell/gates/kernel:0', 'rnn/gru_cell/gates/bias:0', 'rnn/gru_cell/candidate/kernel:0', 'rnn/gru_cell/candidate/bias:0', 'output_1/W:0', 'output_1/b:0']",
        '1 1.10333 0.5',
        "<class 'int'> 1",
        '2 1.09320 0.5',
        "<class 'int'> 2",
        "Accuracy on dev set: 0.6 <class 'numpy.float32'> [0 1 0 0 0]",
        '3 1.10004 0.0',
        "<class 'int'> 3",
        '(3.0, array([0, 1, 0, 0, 0]))',
    ],
    "golbin_dqn": [
        'Tensor("main/dense_1/BiasAdd:0", shape=(?, 3), dtype=float32) Tensor("target/dense_1/BiasAdd:0", shape=(?, 3), dtype=float32) [\'target/dense/kernel:0\', \'target/dense/bias:0\', \'target/dense_1/kernel:0\', \'target/dense_1/bias:0\']',
        "['Assign:0', 'Assign_1:0']",
        "<class 'numpy.int64'>",
        '0.04270',
        '0.65065',
        "['Assign_8:0', 'Assign_9:0']",
        "b'\\n\\x15'",
    ],
    "began": [
        'Tensor("Placeholder_2:0", dtype=float32) Tensor("random_normal:0", shape=(3, 2), dtype=float32)',
        'Tensor("sub_2:0", dtype=float32) Tensor("Mean_1:0", shape=(), dtype=float32)',
        'Adam Adam_1 28',
        'Iter-0; Convergence measure: 13.5',
        '(16, 12) float32',
        'Iter-2; Convergence measure: 13.35',
        '(16, 12) float32',
        'Iter-4; Convergence measure: 12.33',
        '(16, 12) float32',
    ],
    "a3c": [
        "['global_step:0', 'global/shared/conv1/weights:0', 'global/shared/conv1/biases:0', 'global/shared/conv2/weights:0', 'global/shared/conv2/biases:0', 'global/shared/conv3/weights:0', 'global/shared/conv3/biases:0', 'global/shared/fc1/weights:0', 'global/shared/fc1/biases:0', 'global/policy_net/fully_connected/weights:0', 'global/policy_net/fully_connected/biases:0', 'global/policy_net/global/shared/conv1/weights/RMSProp:0', 'global/policy_net/global/shared/conv1/weights/RMSProp_1:0', 'global/policy_net/global/shared/conv1/biases/RMSProp:0', 'global/policy_net/global/shared/conv1/biases/RMSProp_1:0', 'global/policy_net/global/shared/conv2/weights/RMSProp:0', 'global/policy_net/global/shared/conv2/weights/RMSProp_1:0', 'global/policy_net/global/shared/conv2/biases/RMSProp:0', 'global/policy_net/global/shared/conv2/biases/RMSProp_1:0', 'global/policy_net/global/shared/conv3/weights/RMSProp:0', 'global/policy_net/global/shared/conv3/weights/RMSProp_1:0', 'global/policy_net/global/shared/conv3/biases/RMSProp:0', 'global/policy_net/global/shared/conv3/biases/RMSProp_1:0', 'global/policy_net/global/shared/fc1/weights/RMSProp:0', 'global/policy_net/global/shared/fc1/weights/RMSProp_1:0', 'global/policy_net/global/shared/fc1/biases/RMSProp:0', 'global/policy_net/global/shared/fc1/biases/RMSProp_1:0', 'global/policy_net/global/policy_net/fully_connected/weights/RMSProp:0', 'global/policy_net/global/policy_net/fully_connected/weights/RMSProp_1:0', 'global/policy_net/global/policy_net/fully_connected/biases/RMSProp:0', 'global/policy_net/global/policy_net/fully_connected/biases/RMSProp_1:0', 'global/value_net/fully_connected/weights:0', 'global/value_net/fully_connected/biases:0', 'global/value_net/global/shared/conv1/weights/RMSProp:0', 'global/value_net/global/shared/conv1/weights/RMSProp_1:0', 'global/value_net/global/shared/conv1/biases/RMSProp:0', 'global/value_net/global/shared/conv1/biases/RMSProp_1:0', 'global/value_net/global/shared/conv2/weights/RMSProp:0', 'global/value_net/global/shared/conv2/weights/RMSProp_1:0', 'global/value_net/global/shared/conv2/biases/RMSProp:0', 'global/value_net/global/shared/conv2/biases/RMSProp_1:0', 'global/value_net/global/shared/conv3/weights/RMSProp:0', 'global/value_net/global/shared/conv3/weights/RMSProp_1:0', 'global/value_net/global/shared/conv3/biases/RMSProp:0', 'global/value_net/global/shared/conv3/biases/RMSProp_1:0', 'global/value_net/global/shared/fc1/weights/RMSProp:0', 'global/value_net/global/shared/fc1/weights/RMSProp_1:0', 'global/value_net/global/shared/fc1/biases/RMSProp:0', 'global/value_net/global/shared/fc1/biases/RMSProp_1:0', 'global/value_net/global/value_net/fully_connected/weights/RMSProp:0', 'global/value_net/global/value_net/fully_connected/weights/RMSProp_1:0', 'global/value_net/global/value_net/fully_connected/biases/RMSProp:0', 'global/value_net/global/value_net/fully_connected/biases/RMSProp_1:0']",
        "['global/shared/global/shared/conv1/Relu/zeros:0', 'global/shared/global/shared/conv1/Relu/activation:0', 'global/shared/global/shared/conv2/Relu/zeros:0', 'global/shared/global/shared/conv2/Relu/activation:0', 'global/shared/global/shared/conv3/Relu/zeros:0', 'global/shared/global/shared/conv3/Relu/activation:0', 'global/shared/global/shared/fc1/Relu/zeros:0', 'global/shared/global/shared/fc1/Relu/activation:0', 'global/policy_net/global/policy_net/loss:0', 'global/policy_net/global/policy_net/entropy_mean:0', 'global/policy_net/global/policy_net/Neg:0', 'global/value_net/global/value_net/loss_0:0', 'global/value_net/global/value_net/max_value:0', 'global/value_net/global/value_net/min_value:0', 'global/value_net/global/value_net/mean_value:0', 'global/value_net/global/value_net/reward_max:0', 'global/value_net/global/value_net/reward_targets:0', 'global/value_net/global/value_net/values:0']",
        'global/Merge/MergeSummary:0 global/Merge_1/MergeSummary:0 global/policy_net/RMSProp global/value_net/RMSProp',
        'Tensor("global/policy_net/GatherV2:0", shape=(?,), dtype=float32) Tensor("global/policy_net/Neg_1:0", shape=(?,), dtype=float32) Tensor("global/value_net/logits:0", shape=(?,), dtype=float32) Tensor("global/value_net/SquaredDifference:0", shape=(?,), dtype=float32)',
        '0 3.39431 (3, 4) (3, 4) [0.2467 0.2595 0.2491 0.2447]',
        '0 9.61237 [0.0395 0.0261 0.0523]',
        '1 3.39028 (3, 4) (3, 4) [0.2465 0.2597 0.249  0.2449]',
        '1 9.52108 [0.0498 0.034  0.0645]',
        '2 3.38709 (3, 4) (3, 4) [0.2463 0.2598 0.2489 0.245 ]',
        '2 9.43627 [0.0598 0.0416 0.0759]',
        'True 6',
    ],
}
