"""TF 1.x programs from individual authors' repositories (Kyubyong's tacotron, dennybritz's DQN,
openai's PixelCNN++), reduced to standalone forms with small synthetic data (API calls, graph
structure and training loops kept; sizes and step counts shrunk). Each test runs the reduced
program and compares what it prints, line by line, with what TF 1.15 (tensorflow-cpu 1.15.0)
printed running the same program with the same seeds (measured; numbers printed at the
precision shown). The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: B006, F401, F841, I001, UP031, UP032, UP039

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_tacotron(capsys):
    # Kyubyong/tacotron modules.py + networks.py (encoder CBHG, attention decoder1) + train.py loss, sizes shrunk
    class hp:
        embed_size = 8; encoder_num_banks = 3; num_highwaynet_blocks = 2; dropout_rate = 0.5; n_mels = 3; r = 2; lr = 0.001
    def embed(inputs, vocab_size, num_units, zero_pad=True, scope="embedding", reuse=None):
        with tf.variable_scope(scope, reuse=reuse):
            lookup_table = tf.get_variable('lookup_table', dtype=tf.float32, shape=[vocab_size, num_units],
                                           initializer=tf.truncated_normal_initializer(mean=0.0, stddev=0.01))
            if zero_pad:
                lookup_table = tf.concat((tf.zeros(shape=[1, num_units]), lookup_table[1:, :]), 0)
        return tf.nn.embedding_lookup(lookup_table, inputs)
    def bn(inputs, is_training=True, activation_fn=None, scope="bn", reuse=None):
        inputs_shape = inputs.get_shape()
        inputs_rank = inputs_shape.ndims
        if inputs_rank in [2, 3, 4]:
            if inputs_rank == 2:
                inputs = tf.expand_dims(inputs, axis=1)
                inputs = tf.expand_dims(inputs, axis=2)
            elif inputs_rank == 3:
                inputs = tf.expand_dims(inputs, axis=1)
            outputs = tf.contrib.layers.batch_norm(inputs=inputs, center=True, scale=True, updates_collections=None,
                                                   is_training=is_training, scope=scope, fused=True, reuse=reuse)
            if inputs_rank == 2:
                outputs = tf.squeeze(outputs, axis=[1, 2])
            elif inputs_rank == 3:
                outputs = tf.squeeze(outputs, axis=1)
        else:
            outputs = tf.contrib.layers.batch_norm(inputs=inputs, center=True, scale=True, updates_collections=None,
                                                   is_training=is_training, scope=scope, reuse=reuse, fused=False)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return outputs
    def conv1d(inputs, filters=None, size=1, rate=1, padding="SAME", use_bias=False, activation_fn=None, scope="conv1d", reuse=None):
        with tf.variable_scope(scope):
            if padding.lower()=="causal":
                pad_len = (size - 1) * rate
                inputs = tf.pad(inputs, [[0, 0], [pad_len, 0], [0, 0]])
                padding = "valid"
            params = {"inputs":inputs, "filters":filters, "kernel_size":size, "dilation_rate":rate, "padding":padding,
                      "activation":activation_fn, "use_bias":use_bias, "reuse":reuse}
            outputs = tf.layers.conv1d(**params)
        return outputs
    def conv1d_banks(inputs, K=16, is_training=True, scope="conv1d_banks", reuse=None):
        with tf.variable_scope(scope, reuse=reuse):
            outputs = conv1d(inputs, hp.embed_size//2, 1)
            for k in range(2, K+1):
                with tf.variable_scope("num_{}".format(k)):
                    output = conv1d(inputs, hp.embed_size // 2, k)
                    outputs = tf.concat((outputs, output), -1)
            outputs = bn(outputs, is_training=is_training, activation_fn=tf.nn.relu)
        return outputs
    def gru(inputs, num_units=None, bidirection=False, scope="gru", reuse=None):
        with tf.variable_scope(scope, reuse=reuse):
            cell = tf.contrib.rnn.GRUCell(num_units)
            if bidirection:
                cell_bw = tf.contrib.rnn.GRUCell(num_units)
                outputs, _ = tf.nn.bidirectional_dynamic_rnn(cell, cell_bw, inputs, dtype=tf.float32)
                return tf.concat(outputs, 2)
            else:
                outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
                return outputs
    def attention_decoder(inputs, memory, num_units=None, scope="attention_decoder", reuse=None):
        with tf.variable_scope(scope, reuse=reuse):
            attention_mechanism = tf.contrib.seq2seq.BahdanauAttention(num_units, memory)
            decoder_cell = tf.contrib.rnn.GRUCell(num_units)
            cell_with_attention = tf.contrib.seq2seq.AttentionWrapper(decoder_cell, attention_mechanism, num_units, alignment_history=True)
            outputs, state = tf.nn.dynamic_rnn(cell_with_attention, inputs, dtype=tf.float32)
        return outputs, state
    def prenet(inputs, num_units=None, is_training=True, scope="prenet", reuse=None):
        if num_units is None:
            num_units = [hp.embed_size, hp.embed_size//2]
        with tf.variable_scope(scope, reuse=reuse):
            outputs = tf.layers.dense(inputs, units=num_units[0], activation=tf.nn.relu, name="dense1")
            outputs = tf.layers.dropout(outputs, rate=hp.dropout_rate, training=is_training, name="dropout1")
            outputs = tf.layers.dense(outputs, units=num_units[1], activation=tf.nn.relu, name="dense2")
            outputs = tf.layers.dropout(outputs, rate=hp.dropout_rate, training=is_training, name="dropout2")
        return outputs
    def highwaynet(inputs, num_units=None, scope="highwaynet", reuse=None):
        if not num_units:
            num_units = inputs.get_shape()[-1]
        with tf.variable_scope(scope, reuse=reuse):
            H = tf.layers.dense(inputs, units=num_units, activation=tf.nn.relu, name="dense1")
            T = tf.layers.dense(inputs, units=num_units, activation=tf.nn.sigmoid, bias_initializer=tf.constant_initializer(-1.0), name="dense2")
            outputs = H*T + inputs*(1.-T)
        return outputs
    def encoder(inputs, is_training=True, scope="encoder", reuse=None):
        with tf.variable_scope(scope, reuse=reuse):
            prenet_out = prenet(inputs, is_training=is_training)
            enc = conv1d_banks(prenet_out, K=hp.encoder_num_banks, is_training=is_training)
            enc = tf.layers.max_pooling1d(enc, pool_size=2, strides=1, padding="same")
            enc = conv1d(enc, filters=hp.embed_size//2, size=3, scope="conv1d_1")
            enc = bn(enc, is_training=is_training, activation_fn=tf.nn.relu, scope="conv1d_1")
            enc = conv1d(enc, filters=hp.embed_size // 2, size=3, scope="conv1d_2")
            enc = bn(enc, is_training=is_training, scope="conv1d_2")
            enc += prenet_out
            for i in range(hp.num_highwaynet_blocks):
                enc = highwaynet(enc, num_units=hp.embed_size//2, scope='highwaynet_{}'.format(i))
            memory = gru(enc, num_units=hp.embed_size//2, bidirection=True)
        return memory
    def decoder1(inputs, memory, is_training=True, scope="decoder1", reuse=None):
        with tf.variable_scope(scope, reuse=reuse):
            inputs = prenet(inputs, is_training=is_training)
            dec, state = attention_decoder(inputs, memory, num_units=hp.embed_size)
            alignments = tf.transpose(state.alignment_history.stack(),[1,2,0])
            dec += gru(dec, hp.embed_size, bidirection=False, scope="decoder_gru1")
            mel_hats = tf.layers.dense(dec, hp.n_mels*hp.r)
        return mel_hats, alignments
    tf.set_random_seed(9); np.random.seed(9)
    x = tf.placeholder(tf.int32, [2, 5]); y = tf.placeholder(tf.float32, [2, 4, hp.n_mels*hp.r])
    decoder_inputs = tf.concat((tf.zeros_like(y[:, :1, -hp.n_mels:]), y[:, :-1, -hp.n_mels:]), 1)
    print(decoder_inputs)
    embed_out = embed(x, 7, hp.embed_size)
    memory = encoder(embed_out, is_training=True)
    y_hat, alignments = decoder1(decoder_inputs, memory, is_training=True)
    print(memory, y_hat, alignments)
    loss = tf.reduce_mean(tf.abs(y_hat - y))
    global_step = tf.Variable(0, name='global_step', trainable=False)
    optimizer = tf.train.AdamOptimizer(learning_rate=hp.lr)
    gvs = optimizer.compute_gradients(loss)
    clipped = []
    for grad, var in gvs:
        grad = tf.clip_by_norm(grad, 5.)
        clipped.append((grad, var))
    train_op = optimizer.apply_gradients(clipped, global_step=global_step)
    print(len(tf.trainable_variables()), len(tf.global_variables()), [type(g).__name__ for g, v in gvs][:2])
    print([v.name for v in tf.trainable_variables()][10:16])
    tf.summary.scalar('loss', loss)
    tf.summary.image('mel_hat', tf.expand_dims(y_hat, -1), max_outputs=1)
    merged = tf.summary.merge_all()
    xv = np.random.randint(0, 7, (2, 5)); yv = np.random.rand(2, 4, hp.n_mels*hp.r).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            gs, l, _ = sess.run([global_step, loss, train_op], {x: xv, y: yv})
            print(gs, "%.5f" % l)
        al = sess.run(alignments, {x: xv, y: yv})
        print(al.shape, al.sum(axis=1).round(4).tolist())
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["tacotron"]


def test_denny_dqn(capsys):
    # dennybritz/reinforcement-learning DQN/dqn.py (Breakout replaced by random frames, sizes shrunk)
    import os, random, tempfile, itertools
    from collections import namedtuple
    VALID_ACTIONS = [0, 1, 2, 3]
    class StateProcessor():
        def __init__(self):
            with tf.variable_scope("state_processor"):
                self.input_state = tf.placeholder(shape=[42, 32, 3], dtype=tf.uint8)
                self.output = tf.image.rgb_to_grayscale(self.input_state)
                self.output = tf.image.crop_to_bounding_box(self.output, 7, 0, 32, 32)
                self.output = tf.image.resize_images(self.output, [16, 16], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
                self.output = tf.squeeze(self.output)
        def process(self, sess, state):
            return sess.run(self.output, { self.input_state: state })
    class Estimator():
        def __init__(self, scope="estimator", summaries_dir=None):
            self.scope = scope
            self.summary_writer = None
            with tf.variable_scope(scope):
                self._build_model()
                if summaries_dir:
                    summary_dir = os.path.join(summaries_dir, "summaries_{}".format(scope))
                    if not os.path.exists(summary_dir):
                        os.makedirs(summary_dir)
                    self.summary_writer = tf.summary.FileWriter(summary_dir)
        def _build_model(self):
            self.X_pl = tf.placeholder(shape=[None, 16, 16, 4], dtype=tf.uint8, name="X")
            self.y_pl = tf.placeholder(shape=[None], dtype=tf.float32, name="y")
            self.actions_pl = tf.placeholder(shape=[None], dtype=tf.int32, name="actions")
            X = tf.to_float(self.X_pl) / 255.0
            batch_size = tf.shape(self.X_pl)[0]
            conv1 = tf.contrib.layers.conv2d(X, 8, 8, 4, activation_fn=tf.nn.relu)
            conv2 = tf.contrib.layers.conv2d(conv1, 16, 4, 2, activation_fn=tf.nn.relu)
            conv3 = tf.contrib.layers.conv2d(conv2, 16, 3, 1, activation_fn=tf.nn.relu)
            flattened = tf.contrib.layers.flatten(conv3)
            fc1 = tf.contrib.layers.fully_connected(flattened, 32)
            self.predictions = tf.contrib.layers.fully_connected(fc1, len(VALID_ACTIONS))
            gather_indices = tf.range(batch_size) * tf.shape(self.predictions)[1] + self.actions_pl
            self.action_predictions = tf.gather(tf.reshape(self.predictions, [-1]), gather_indices)
            self.losses = tf.squared_difference(self.y_pl, self.action_predictions)
            self.loss = tf.reduce_mean(self.losses)
            self.optimizer = tf.train.RMSPropOptimizer(0.00025, 0.99, 0.0, 1e-6)
            self.train_op = self.optimizer.minimize(self.loss, global_step=tf.contrib.framework.get_global_step())
            self.summaries = tf.summary.merge([
                tf.summary.scalar("loss", self.loss),
                tf.summary.histogram("loss_hist", self.losses),
                tf.summary.histogram("q_values_hist", self.predictions),
                tf.summary.scalar("max_q_value", tf.reduce_max(self.predictions))])
        def predict(self, sess, s):
            return sess.run(self.predictions, { self.X_pl: s })
        def update(self, sess, s, a, y):
            feed_dict = { self.X_pl: s, self.y_pl: y, self.actions_pl: a }
            summaries, global_step, _, loss = sess.run(
                [self.summaries, tf.contrib.framework.get_global_step(), self.train_op, self.loss], feed_dict)
            if self.summary_writer:
                self.summary_writer.add_summary(summaries, global_step)
            return loss
    def copy_model_parameters(sess, estimator1, estimator2):
        e1_params = [t for t in tf.trainable_variables() if t.name.startswith(estimator1.scope)]
        e1_params = sorted(e1_params, key=lambda v: v.name)
        e2_params = [t for t in tf.trainable_variables() if t.name.startswith(estimator2.scope)]
        e2_params = sorted(e2_params, key=lambda v: v.name)
        update_ops = []
        for e1_v, e2_v in zip(e1_params, e2_params):
            op = e2_v.assign(e1_v)
            update_ops.append(op)
        sess.run(update_ops)
        return [e.name for e in e2_params][:3]
    def make_epsilon_greedy_policy(estimator, nA):
        def policy_fn(sess, observation, epsilon):
            A = np.ones(nA, dtype=float) * epsilon / nA
            q_values = estimator.predict(sess, np.expand_dims(observation, 0))[0]
            best_action = np.argmax(q_values)
            A[best_action] += (1.0 - epsilon)
            return A
        return policy_fn
    np.random.seed(0); random.seed(0); tf.set_random_seed(0)
    experiment_dir = tempfile.mkdtemp()
    global_step = tf.Variable(0, name='global_step', trainable=False)
    q_estimator = Estimator(scope="q", summaries_dir=experiment_dir)
    target_estimator = Estimator(scope="target_q")
    state_processor = StateProcessor()
    print(q_estimator.train_op.name, q_estimator.action_predictions, state_processor.output)
    frames = np.random.randint(0, 256, size=(20, 42, 32, 3)).astype(np.uint8)
    Transition = namedtuple("Transition", ["state", "action", "reward", "next_state", "done"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver = tf.train.Saver()
        total_t = sess.run(tf.contrib.framework.get_global_step())
        print(type(total_t), total_t)
        epsilons = np.linspace(1.0, 0.1, 10)
        policy = make_epsilon_greedy_policy(q_estimator, len(VALID_ACTIONS))
        replay_memory = []
        state = state_processor.process(sess, frames[0])
        print(state.shape, state.dtype, state[:2, :4].tolist())
        state = np.stack([state] * 4, axis=2)
        for i in range(6):
            action_probs = policy(sess, state, epsilons[min(total_t, 9)])
            action = np.random.choice(np.arange(len(action_probs)), p=action_probs)
            next_state = state_processor.process(sess, frames[i + 1])
            next_state = np.append(state[:,:,1:], np.expand_dims(next_state, 2), axis=2)
            replay_memory.append(Transition(state, action, float(i % 2), next_state, i == 4))
            state = next_state
        print(copy_model_parameters(sess, q_estimator, target_estimator))
        for t in range(3):
            episode_summary = tf.Summary()
            episode_summary.value.add(simple_value=epsilons[t], tag="epsilon")
            q_estimator.summary_writer.add_summary(episode_summary, total_t)
            samples = random.sample(replay_memory, 4)
            states_batch, action_batch, reward_batch, next_states_batch, done_batch = map(np.array, zip(*samples))
            q_values_next = q_estimator.predict(sess, next_states_batch)
            best_actions = np.argmax(q_values_next, axis=1)
            q_values_next_target = target_estimator.predict(sess, next_states_batch)
            targets_batch = reward_batch + np.invert(done_batch).astype(np.float32) * 0.99 * q_values_next_target[np.arange(4), best_actions]
            loss = q_estimator.update(sess, states_batch, action_batch, targets_batch)
            total_t += 1
            print("Step {} ({}) loss: {:.5f}".format(t, total_t, loss))
        episode_summary = tf.Summary()
        episode_summary.value.add(simple_value=3.0, node_name="episode_reward", tag="episode_reward")
        q_estimator.summary_writer.add_summary(episode_summary, total_t)
        q_estimator.summary_writer.flush()
        print(str(episode_summary).split())
        print(saver.save(tf.get_default_session(), os.path.join(experiment_dir, "model")).endswith("model"))
        print(sess.run(global_step))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["denny_dqn"]


def test_pixelcnn(capsys):
    # openai/pixel-cnn pixel_cnn_pp/nn.py + model.py + train.py (CIFAR -> random uint8, sizes shrunk)
    import os, tempfile
    add_arg_scope = tf.contrib.framework.add_arg_scope; arg_scope = tf.contrib.framework.arg_scope
    def int_shape(x):
        return list(map(int, x.get_shape()))
    def concat_elu(x):
        axis = len(x.get_shape())-1
        return tf.nn.elu(tf.concat([x, -x], axis))
    def log_sum_exp(x):
        axis = len(x.get_shape())-1
        m = tf.reduce_max(x, axis)
        m2 = tf.reduce_max(x, axis, keepdims=True)
        return m + tf.log(tf.reduce_sum(tf.exp(x-m2), axis))
    def log_prob_from_logits(x):
        axis = len(x.get_shape())-1
        m = tf.reduce_max(x, axis, keepdims=True)
        return x - m - tf.log(tf.reduce_sum(tf.exp(x-m), axis, keepdims=True))
    def discretized_mix_logistic_loss(x,l,sum_all=True):
        xs = int_shape(x); ls = int_shape(l)
        nr_mix = int(ls[-1] / 10)
        logit_probs = l[:,:,:,:nr_mix]
        l = tf.reshape(l[:,:,:,nr_mix:], xs + [nr_mix*3])
        means = l[:,:,:,:,:nr_mix]
        log_scales = tf.maximum(l[:,:,:,:,nr_mix:2*nr_mix], -7.)
        coeffs = tf.nn.tanh(l[:,:,:,:,2*nr_mix:3*nr_mix])
        x = tf.reshape(x, xs + [1]) + tf.zeros(xs + [nr_mix])
        m2 = tf.reshape(means[:,:,:,1,:] + coeffs[:, :, :, 0, :] * x[:, :, :, 0, :], [xs[0],xs[1],xs[2],1,nr_mix])
        m3 = tf.reshape(means[:, :, :, 2, :] + coeffs[:, :, :, 1, :] * x[:, :, :, 0, :] + coeffs[:, :, :, 2, :] * x[:, :, :, 1, :], [xs[0],xs[1],xs[2],1,nr_mix])
        means = tf.concat([tf.reshape(means[:,:,:,0,:], [xs[0],xs[1],xs[2],1,nr_mix]), m2, m3],3)
        centered_x = x - means
        inv_stdv = tf.exp(-log_scales)
        plus_in = inv_stdv * (centered_x + 1./255.)
        cdf_plus = tf.nn.sigmoid(plus_in)
        min_in = inv_stdv * (centered_x - 1./255.)
        cdf_min = tf.nn.sigmoid(min_in)
        log_cdf_plus = plus_in - tf.nn.softplus(plus_in)
        log_one_minus_cdf_min = -tf.nn.softplus(min_in)
        cdf_delta = cdf_plus - cdf_min
        mid_in = inv_stdv * centered_x
        log_pdf_mid = mid_in - log_scales - 2.*tf.nn.softplus(mid_in)
        log_probs = tf.where(x < -0.999, log_cdf_plus, tf.where(x > 0.999, log_one_minus_cdf_min, tf.where(cdf_delta > 1e-5, tf.log(tf.maximum(cdf_delta, 1e-12)), log_pdf_mid - np.log(127.5))))
        log_probs = tf.reduce_sum(log_probs,3) + log_prob_from_logits(logit_probs)
        if sum_all:
            return -tf.reduce_sum(log_sum_exp(log_probs))
        else:
            return -tf.reduce_sum(log_sum_exp(log_probs),[1,2])
    def sample_from_discretized_mix_logistic(l,nr_mix):
        ls = int_shape(l)
        xs = ls[:-1] + [3]
        logit_probs = l[:, :, :, :nr_mix]
        l = tf.reshape(l[:, :, :, nr_mix:], xs + [nr_mix*3])
        sel = tf.one_hot(tf.argmax(logit_probs - tf.log(-tf.log(tf.random_uniform(logit_probs.get_shape(), minval=1e-5, maxval=1. - 1e-5))), 3), depth=nr_mix, dtype=tf.float32)
        sel = tf.reshape(sel, xs[:-1] + [1,nr_mix])
        means = tf.reduce_sum(l[:,:,:,:,:nr_mix]*sel,4)
        log_scales = tf.maximum(tf.reduce_sum(l[:,:,:,:,nr_mix:2*nr_mix]*sel,4), -7.)
        coeffs = tf.reduce_sum(tf.nn.tanh(l[:,:,:,:,2*nr_mix:3*nr_mix])*sel,4)
        u = tf.random_uniform(means.get_shape(), minval=1e-5, maxval=1. - 1e-5)
        x = means + tf.exp(log_scales)*(tf.log(u) - tf.log(1. - u))
        x0 = tf.minimum(tf.maximum(x[:,:,:,0], -1.), 1.)
        x1 = tf.minimum(tf.maximum(x[:,:,:,1] + coeffs[:,:,:,0]*x0, -1.), 1.)
        x2 = tf.minimum(tf.maximum(x[:,:,:,2] + coeffs[:,:,:,1]*x0 + coeffs[:,:,:,2]*x1, -1.), 1.)
        return tf.concat([tf.reshape(x0,xs[:-1]+[1]), tf.reshape(x1,xs[:-1]+[1]), tf.reshape(x2,xs[:-1]+[1])],3)
    def get_var_maybe_avg(var_name, ema, **kwargs):
        v = tf.get_variable(var_name, **kwargs)
        if ema is not None:
            v = ema.average(v)
        return v
    def adam_updates(params, cost_or_grads, lr=0.001, mom1=0.9, mom2=0.999):
        updates = []
        if type(cost_or_grads) is not list:
            grads = tf.gradients(cost_or_grads, params)
        else:
            grads = cost_or_grads
        t = tf.Variable(1., 'adam_t')
        for p, g in zip(params, grads):
            mg = tf.Variable(tf.zeros(p.get_shape()), p.name + '_adam_mg')
            if mom1>0:
                v = tf.Variable(tf.zeros(p.get_shape()), p.name + '_adam_v')
                v_t = mom1*v + (1. - mom1)*g
                v_hat = v_t / (1. - tf.pow(mom1,t))
                updates.append(v.assign(v_t))
            else:
                v_hat = g
            mg_t = mom2*mg + (1. - mom2)*tf.square(g)
            mg_hat = mg_t / (1. - tf.pow(mom2,t))
            g_t = v_hat / tf.sqrt(mg_hat + 1e-8)
            p_t = p - lr * g_t
            updates.append(mg.assign(mg_t))
            updates.append(p.assign(p_t))
        updates.append(t.assign_add(1))
        return tf.group(*updates)
    def get_name(layer_name, counters):
        if not layer_name in counters:
            counters[layer_name] = 0
        name = layer_name + '_' + str(counters[layer_name])
        counters[layer_name] += 1
        return name
    @add_arg_scope
    def dense(x_, num_units, nonlinearity=None, init_scale=1., counters={}, init=False, ema=None, **kwargs):
        name = get_name('dense', counters)
        with tf.variable_scope(name):
            V = get_var_maybe_avg('V', ema, shape=[int(x_.get_shape()[1]),num_units], dtype=tf.float32, initializer=tf.random_normal_initializer(0, 0.05), trainable=True)
            g = get_var_maybe_avg('g', ema, shape=[num_units], dtype=tf.float32, initializer=tf.constant_initializer(1.), trainable=True)
            b = get_var_maybe_avg('b', ema, shape=[num_units], dtype=tf.float32, initializer=tf.constant_initializer(0.), trainable=True)
            x = tf.matmul(x_, V)
            scaler = g / tf.sqrt(tf.reduce_sum(tf.square(V), [0]))
            x = tf.reshape(scaler, [1, num_units]) * x + tf.reshape(b, [1, num_units])
            if init:
                m_init, v_init = tf.nn.moments(x, [0])
                scale_init = init_scale/tf.sqrt(v_init + 1e-10)
                with tf.control_dependencies([g.assign(g*scale_init), b.assign_add(-m_init*scale_init)]):
                    x = tf.matmul(x_, V)
                    scaler = g / tf.sqrt(tf.reduce_sum(tf.square(V), [0]))
                    x = tf.reshape(scaler, [1, num_units]) * x + tf.reshape(b, [1, num_units])
            if nonlinearity is not None:
                x = nonlinearity(x)
            return x
    @add_arg_scope
    def conv2d(x_, num_filters, filter_size=[3,3], stride=[1,1], pad='SAME', nonlinearity=None, init_scale=1., counters={}, init=False, ema=None, **kwargs):
        name = get_name('conv2d', counters)
        with tf.variable_scope(name):
            V = get_var_maybe_avg('V', ema, shape=filter_size+[int(x_.get_shape()[-1]),num_filters], dtype=tf.float32, initializer=tf.random_normal_initializer(0, 0.05), trainable=True)
            g = get_var_maybe_avg('g', ema, shape=[num_filters], dtype=tf.float32, initializer=tf.constant_initializer(1.), trainable=True)
            b = get_var_maybe_avg('b', ema, shape=[num_filters], dtype=tf.float32, initializer=tf.constant_initializer(0.), trainable=True)
            W = tf.reshape(g, [1, 1, 1, num_filters]) * tf.nn.l2_normalize(V, [0, 1, 2])
            x = tf.nn.bias_add(tf.nn.conv2d(x_, W, [1] + stride + [1], pad), b)
            if init:
                m_init, v_init = tf.nn.moments(x, [0,1,2])
                scale_init = init_scale / tf.sqrt(v_init + 1e-10)
                with tf.control_dependencies([g.assign(g * scale_init), b.assign_add(-m_init * scale_init)]):
                    W = tf.reshape(g, [1, 1, 1, num_filters]) * tf.nn.l2_normalize(V, [0, 1, 2])
                    x = tf.nn.bias_add(tf.nn.conv2d(x_, W, [1] + stride + [1], pad), b)
            if nonlinearity is not None:
                x = nonlinearity(x)
            return x
    @add_arg_scope
    def deconv2d(x_, num_filters, filter_size=[3,3], stride=[1,1], pad='SAME', nonlinearity=None, init_scale=1., counters={}, init=False, ema=None, **kwargs):
        name = get_name('deconv2d', counters)
        xs = int_shape(x_)
        if pad=='SAME':
            target_shape = [xs[0], xs[1]*stride[0], xs[2]*stride[1], num_filters]
        else:
            target_shape = [xs[0], xs[1]*stride[0] + filter_size[0]-1, xs[2]*stride[1] + filter_size[1]-1, num_filters]
        with tf.variable_scope(name):
            V = get_var_maybe_avg('V', ema, shape=filter_size+[num_filters,int(x_.get_shape()[-1])], dtype=tf.float32, initializer=tf.random_normal_initializer(0, 0.05), trainable=True)
            g = get_var_maybe_avg('g', ema, shape=[num_filters], dtype=tf.float32, initializer=tf.constant_initializer(1.), trainable=True)
            b = get_var_maybe_avg('b', ema, shape=[num_filters], dtype=tf.float32, initializer=tf.constant_initializer(0.), trainable=True)
            W = tf.reshape(g, [1, 1, num_filters, 1]) * tf.nn.l2_normalize(V, [0, 1, 3])
            x = tf.nn.conv2d_transpose(x_, W, target_shape, [1] + stride + [1], padding=pad)
            x = tf.nn.bias_add(x, b)
            if init:
                m_init, v_init = tf.nn.moments(x, [0,1,2])
                scale_init = init_scale / tf.sqrt(v_init + 1e-10)
                with tf.control_dependencies([g.assign(g * scale_init), b.assign_add(-m_init * scale_init)]):
                    W = tf.reshape(g, [1, 1, num_filters, 1]) * tf.nn.l2_normalize(V, [0, 1, 3])
                    x = tf.nn.conv2d_transpose(x_, W, target_shape, [1] + stride + [1], padding=pad)
                    x = tf.nn.bias_add(x, b)
            if nonlinearity is not None:
                x = nonlinearity(x)
            return x
    @add_arg_scope
    def nin(x, num_units, **kwargs):
        s = int_shape(x)
        x = tf.reshape(x, [np.prod(s[:-1]),s[-1]])
        x = dense(x, num_units, **kwargs)
        return tf.reshape(x, s[:-1]+[num_units])
    @add_arg_scope
    def gated_resnet(x, a=None, h=None, nonlinearity=concat_elu, conv=conv2d, init=False, counters={}, ema=None, dropout_p=0., **kwargs):
        xs = int_shape(x)
        num_filters = xs[-1]
        c1 = conv(nonlinearity(x), num_filters)
        if a is not None:
            c1 += nin(nonlinearity(a), num_filters)
        c1 = nonlinearity(c1)
        if dropout_p > 0:
            c1 = tf.nn.dropout(c1, keep_prob=1. - dropout_p)
        c2 = conv(c1, num_filters * 2, init_scale=0.1)
        if h is not None:
            with tf.variable_scope(get_name('conditional_weights', counters)):
                hw = get_var_maybe_avg('hw', ema, shape=[int_shape(h)[-1], 2 * num_filters], dtype=tf.float32, initializer=tf.random_normal_initializer(0, 0.05), trainable=True)
            if init:
                hw = hw.initialized_value()
            c2 += tf.reshape(tf.matmul(h, hw), [xs[0], 1, 1, 2 * num_filters])
        a, b = tf.split(c2, 2, 3)
        c3 = a * tf.nn.sigmoid(b)
        return x + c3
    def down_shift(x):
        xs = int_shape(x)
        return tf.concat([tf.zeros([xs[0],1,xs[2],xs[3]]), x[:,:xs[1]-1,:,:]],1)
    def right_shift(x):
        xs = int_shape(x)
        return tf.concat([tf.zeros([xs[0],xs[1],1,xs[3]]), x[:,:,:xs[2]-1,:]],2)
    @add_arg_scope
    def down_shifted_conv2d(x, num_filters, filter_size=[2,3], stride=[1,1], **kwargs):
        x = tf.pad(x, [[0,0],[filter_size[0]-1,0], [int((filter_size[1]-1)/2),int((filter_size[1]-1)/2)],[0,0]])
        return conv2d(x, num_filters, filter_size=filter_size, pad='VALID', stride=stride, **kwargs)
    @add_arg_scope
    def down_shifted_deconv2d(x, num_filters, filter_size=[2,3], stride=[1,1], **kwargs):
        x = deconv2d(x, num_filters, filter_size=filter_size, pad='VALID', stride=stride, **kwargs)
        xs = int_shape(x)
        return x[:,:(xs[1]-filter_size[0]+1),int((filter_size[1]-1)/2):(xs[2]-int((filter_size[1]-1)/2)),:]
    @add_arg_scope
    def down_right_shifted_conv2d(x, num_filters, filter_size=[2,2], stride=[1,1], **kwargs):
        x = tf.pad(x, [[0,0],[filter_size[0]-1, 0], [filter_size[1]-1, 0],[0,0]])
        return conv2d(x, num_filters, filter_size=filter_size, pad='VALID', stride=stride, **kwargs)
    @add_arg_scope
    def down_right_shifted_deconv2d(x, num_filters, filter_size=[2,2], stride=[1,1], **kwargs):
        x = deconv2d(x, num_filters, filter_size=filter_size, pad='VALID', stride=stride, **kwargs)
        xs = int_shape(x)
        return x[:,:(xs[1]-filter_size[0]+1):,:(xs[2]-filter_size[1]+1),:]
    class nn: pass
    _defs = dict(locals())
    for _n in ['conv2d', 'deconv2d', 'gated_resnet', 'dense', 'concat_elu', 'int_shape', 'down_shift', 'right_shift',
               'down_shifted_conv2d', 'down_right_shifted_conv2d', 'down_shifted_deconv2d', 'down_right_shifted_deconv2d', 'nin']:
        setattr(nn, _n, staticmethod(_defs[_n]))
    def model_spec(x, h=None, init=False, ema=None, dropout_p=0.5, nr_resnet=5, nr_filters=160, nr_logistic_mix=10, resnet_nonlinearity='concat_elu', energy_distance=False):
        counters = {}
        with arg_scope([nn.conv2d, nn.deconv2d, nn.gated_resnet, nn.dense], counters=counters, init=init, ema=ema, dropout_p=dropout_p):
            resnet_nonlinearity = nn.concat_elu
            with arg_scope([nn.gated_resnet], nonlinearity=resnet_nonlinearity, h=h):
                xs = nn.int_shape(x)
                x_pad = tf.concat([x,tf.ones(xs[:-1]+[1])],3)
                u_list = [nn.down_shift(nn.down_shifted_conv2d(x_pad, num_filters=nr_filters, filter_size=[2, 3]))]
                ul_list = [nn.down_shift(nn.down_shifted_conv2d(x_pad, num_filters=nr_filters, filter_size=[1,3])) + \
                           nn.right_shift(nn.down_right_shifted_conv2d(x_pad, num_filters=nr_filters, filter_size=[2,1]))]
                for rep in range(nr_resnet):
                    u_list.append(nn.gated_resnet(u_list[-1], conv=nn.down_shifted_conv2d))
                    ul_list.append(nn.gated_resnet(ul_list[-1], u_list[-1], conv=nn.down_right_shifted_conv2d))
                u_list.append(nn.down_shifted_conv2d(u_list[-1], num_filters=nr_filters, stride=[2, 2]))
                ul_list.append(nn.down_right_shifted_conv2d(ul_list[-1], num_filters=nr_filters, stride=[2, 2]))
                for rep in range(nr_resnet):
                    u_list.append(nn.gated_resnet(u_list[-1], conv=nn.down_shifted_conv2d))
                    ul_list.append(nn.gated_resnet(ul_list[-1], u_list[-1], conv=nn.down_right_shifted_conv2d))
                u = u_list.pop()
                ul = ul_list.pop()
                for rep in range(nr_resnet):
                    u = nn.gated_resnet(u, u_list.pop(), conv=nn.down_shifted_conv2d)
                    ul = nn.gated_resnet(ul, tf.concat([u, ul_list.pop()],3), conv=nn.down_right_shifted_conv2d)
                u = nn.down_shifted_deconv2d(u, num_filters=nr_filters, stride=[2, 2])
                ul = nn.down_right_shifted_deconv2d(ul, num_filters=nr_filters, stride=[2, 2])
                for rep in range(nr_resnet+1):
                    u = nn.gated_resnet(u, u_list.pop(), conv=nn.down_shifted_conv2d)
                    ul = nn.gated_resnet(ul, tf.concat([u, ul_list.pop()], 3), conv=nn.down_right_shifted_conv2d)
                x_out = nn.nin(tf.nn.elu(ul),10*nr_logistic_mix)
                assert len(u_list) == 0
                assert len(ul_list) == 0
                return x_out

    rng = np.random.RandomState(1)
    tf.set_random_seed(1)
    obs_shape = (8, 8, 3); batch_size = 2; nr_gpu = 1; init_batch_size = 2; nr_logistic_mix = 2
    x_init = tf.placeholder(tf.float32, shape=(init_batch_size,) + obs_shape)
    xs = [tf.placeholder(tf.float32, shape=(batch_size, ) + obs_shape) for i in range(nr_gpu)]
    num_labels = 3
    y_init = tf.placeholder(tf.int32, shape=(init_batch_size,))
    h_init = tf.one_hot(y_init, num_labels)
    y_sample = np.split(np.mod(np.arange(batch_size*nr_gpu), num_labels), nr_gpu)
    h_sample = [tf.one_hot(tf.Variable(y_sample[i], trainable=False), num_labels) for i in range(nr_gpu)]
    ys = [tf.placeholder(tf.int32, shape=(batch_size,)) for i in range(nr_gpu)]
    hs = [tf.one_hot(ys[i], num_labels) for i in range(nr_gpu)]
    model_opt = { 'nr_resnet': 1, 'nr_filters': 4, 'nr_logistic_mix': nr_logistic_mix, 'resnet_nonlinearity': 'concat_elu', 'energy_distance': False }
    model = tf.make_template('model', model_spec)
    init_pass = model(x_init, h_init, init=True, dropout_p=0.5, **model_opt)
    print(init_pass)
    all_params = tf.trainable_variables()
    print(len(all_params), [p.name for p in all_params][:8], all_params[-1].name)
    ema = tf.train.ExponentialMovingAverage(decay=0.9995)
    maintain_averages_op = tf.group(ema.apply(all_params))
    ema_params = [ema.average(p) for p in all_params]
    print(ema_params[0].name, maintain_averages_op.name)
    grads = []; loss_gen = []; loss_gen_test = []; new_x_gen = []
    for i in range(nr_gpu):
        with tf.device('/cpu:0'):
            out = model(xs[i], hs[i], ema=None, dropout_p=0.5, **model_opt)
            loss_gen.append(discretized_mix_logistic_loss(tf.stop_gradient(xs[i]), out))
            grads.append(tf.gradients(loss_gen[i], all_params, colocate_gradients_with_ops=True))
            out = model(xs[i], hs[i], ema=ema, dropout_p=0., **model_opt)
            loss_gen_test.append(discretized_mix_logistic_loss(xs[i], out))
            out = model(xs[i], h_sample[i], ema=ema, dropout_p=0, **model_opt)
            new_x_gen.append(sample_from_discretized_mix_logistic(out, nr_logistic_mix))
    print(len(tf.trainable_variables()), len(tf.global_variables()), loss_gen[-1], new_x_gen[-1])
    tf_lr = tf.placeholder(tf.float32, shape=[])
    with tf.device('/cpu:0'):
        for i in range(1,nr_gpu):
            loss_gen[0] += loss_gen[i]
            loss_gen_test[0] += loss_gen_test[i]
            for j in range(len(grads[0])):
                grads[0][j] += grads[i][j]
        optimizer = tf.group(adam_updates(all_params, grads[0], lr=tf_lr, mom1=0.95, mom2=0.9995), maintain_averages_op)
    bits_per_dim = loss_gen[0]/(nr_gpu*np.log(2.)*np.prod(obs_shape)*batch_size)
    bits_per_dim_test = loss_gen_test[0]/(nr_gpu*np.log(2.)*np.prod(obs_shape)*batch_size)
    print(bits_per_dim, optimizer.name, [v.name for v in tf.global_variables()][-3:])
    initializer = tf.global_variables_initializer()
    saver = tf.train.Saver()
    def make_feed_dict(data, init=False):
        if type(data) is tuple:
            x,y = data
        else:
            x = data; y = None
        x = np.cast[np.float32]((x - 127.5) / 127.5)
        if init:
            feed_dict = {x_init: x}
            if y is not None:
                feed_dict.update({y_init: y})
        else:
            x = np.split(x, nr_gpu)
            feed_dict = {xs[i]: x[i] for i in range(nr_gpu)}
            if y is not None:
                y = np.split(y, nr_gpu)
                feed_dict.update({ys[i]: y[i] for i in range(nr_gpu)})
        return feed_dict
    data = rng.randint(0, 256, size=(12,) + obs_shape).astype(np.uint8)
    labels = rng.randint(0, num_labels, size=12)
    lr = 0.001
    with tf.Session() as sess:
        sess.run(initializer)
        sess.run(init_pass, make_feed_dict((data[:2], labels[:2]), init=True))
        print(sess.run(all_params[1])[:3].round(5).tolist())
        train_losses = []
        for k in range(2):
            fd = make_feed_dict((data[2*k:2*k+2], labels[2*k:2*k+2]))
            lr *= 0.999995
            fd.update({tf_lr: lr})
            l, _ = sess.run([bits_per_dim, optimizer], fd)
            train_losses.append(l)
        fd = make_feed_dict((data[8:10], labels[8:10]))
        test = sess.run(bits_per_dim_test, fd)
        print("train bits_per_dim = %.4f, test bits_per_dim = %.4f" % (np.mean(train_losses), test))
        gen = sess.run(new_x_gen, fd)
        print(gen[0].shape, gen[0].dtype, float(np.abs(gen[0]).max()) <= 1.0)
        d = tempfile.mkdtemp()
        print(saver.save(sess, d + '/params_cifar.ckpt').endswith('params_cifar.ckpt'))
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["pixelcnn"]


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "tacotron": [
        'Tensor("concat:0", shape=(2, 4, 3), dtype=float32)',
        'Tensor("encoder/gru/concat:0", shape=(2, 5, 8), dtype=float32) Tensor("decoder1/dense/BiasAdd:0", shape=(2, 4, 6), dtype=float32) Tensor("decoder1/transpose:0", shape=(2, 5, ?), dtype=float32)',
        "50 159 ['Tensor', 'Tensor']",
        "['encoder/conv1d_1/conv1d/kernel:0', 'encoder/conv1d_1/beta:0', 'encoder/conv1d_1/gamma:0', 'encoder/conv1d_2/conv1d/kernel:0', 'encoder/conv1d_2/beta:0', 'encoder/conv1d_2/gamma:0']",
        '1 0.59188',
        '2 0.60708',
        '3 0.60436',
        '(2, 5, 4) [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]',
    ],
    "denny_dqn": [
        'q/RMSProp Tensor("q/GatherV2:0", shape=(?,), dtype=float32) Tensor("state_processor/Squeeze:0", shape=(16, 16), dtype=uint8)',
        "<class 'numpy.int32'> 0",
        '(16, 16) uint8 [[147, 213, 140, 149], [97, 190, 167, 142]]',
        "['target_q/Conv/biases:0', 'target_q/Conv/weights:0', 'target_q/Conv_1/biases:0']",
        'Step 0 (1) loss: 0.76927',
        'Step 1 (2) loss: 0.76557',
        'Step 2 (3) loss: 0.52489',
        '[\'value\', \'{\', \'tag:\', \'"episode_reward"\', \'simple_value:\', \'3.0\', \'node_name:\', \'"episode_reward"\', \'}\']',
        'True',
        '3',
    ],
    "pixelcnn": [
        'Tensor("model/Reshape_27:0", shape=(2, 8, 8, 20), dtype=float32)',
        "118 ['model/conv2d_0/V:0', 'model/conv2d_0/g:0', 'model/conv2d_0/b:0', 'model/conv2d_1/V:0', 'model/conv2d_1/g:0', 'model/conv2d_1/b:0', 'model/conv2d_2/V:0', 'model/conv2d_2/g:0'] model/dense_8/b:0",
        'model/conv2d_0/V/ExponentialMovingAverage:0 group_deps',
        '118 237 Tensor("Neg_2:0", shape=(), dtype=float32, device=/device:CPU:0) Tensor("concat_2:0", shape=(2, 8, 8, 3), dtype=float32, device=/device:CPU:0)',
        'Tensor("truediv_354:0", shape=(), dtype=float32) group_deps_2 [\'Variable_235:0\', \'Variable_236:0\', \'Variable_237:0\']',
        '[1.9306800365447998, 2.221790075302124, 2.324700117111206]',
        'train bits_per_dim = 9.7733, test bits_per_dim = 9.1166',
        '(2, 8, 8, 3) float32 True',
        'True',
    ],
}
