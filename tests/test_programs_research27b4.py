"""TF 1.x research programs tideflow had not seen, reduced as in
``test_programs_research27b.py``: DRAW, magenta's events RNN and srez. Each prints what TF 1.15 printed
running it with the same seeds (measured), compared by ``same_printed``."""
# ruff: noqa: F401, F841, I001, UP031, RUF012, PLR1704

import re
import sys

import numpy as np
import pytest

import tideflow as tf
from tests.printed_programs import same_printed as _same


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield




def test_draw(capsys):
    # ericjang/draw draw.py (DRAW with read/write attention, in the TF 1.x form the repository later took: tf.split(params, 5, 1), tf.concat(values, axis), tf.matmul for batch_matmul; flags as constants; MNIST -> random binary 8x8 images)
    # ericjang/draw draw.py (DRAW with read/write attention; the repository's TF 1.x form: tf.split(params, 5, 1),
    # tf.concat(values, axis), tf.matmul for batch_matmul); flags as constants, MNIST -> random binary images, sizes shrunk
    import os, tempfile
    class FLAGS:
        read_attn = True; write_attn = True; data_dir = tempfile.mkdtemp()
    A, B = 8, 8
    img_size = B * A
    enc_size = 12
    dec_size = 12
    read_n = 3
    write_n = 3
    read_size = 2 * read_n * read_n if FLAGS.read_attn else 2 * img_size
    write_size = write_n * write_n if FLAGS.write_attn else img_size
    z_size = 4
    T = 3
    batch_size = 5
    train_iters = 4
    learning_rate = 1e-3
    eps = 1e-8
    tf.set_random_seed(1)
    DO_SHARE = None
    x = tf.placeholder(tf.float32, shape=(batch_size, img_size))
    e = tf.random_normal((batch_size, z_size), mean=0, stddev=1)
    lstm_enc = tf.nn.rnn_cell.LSTMCell(enc_size, state_is_tuple=True)
    lstm_dec = tf.nn.rnn_cell.LSTMCell(dec_size, state_is_tuple=True)
    def linear(x, output_dim):
        w = tf.get_variable("w", [x.get_shape()[1], output_dim])
        b = tf.get_variable("b", [output_dim], initializer=tf.constant_initializer(0.0))
        return tf.matmul(x, w) + b
    def filterbank(gx, gy, sigma2, delta, N):
        grid_i = tf.reshape(tf.cast(tf.range(N), tf.float32), [1, -1])
        mu_x = gx + (grid_i - N / 2 - 0.5) * delta
        mu_y = gy + (grid_i - N / 2 - 0.5) * delta
        a = tf.reshape(tf.cast(tf.range(A), tf.float32), [1, 1, -1])
        b = tf.reshape(tf.cast(tf.range(B), tf.float32), [1, 1, -1])
        mu_x = tf.reshape(mu_x, [-1, N, 1])
        mu_y = tf.reshape(mu_y, [-1, N, 1])
        sigma2 = tf.reshape(sigma2, [-1, 1, 1])
        Fx = tf.exp(-tf.square(a - mu_x) / (2 * sigma2))
        Fy = tf.exp(-tf.square(b - mu_y) / (2 * sigma2))
        Fx = Fx / tf.maximum(tf.reduce_sum(Fx, 2, keep_dims=True), eps)
        Fy = Fy / tf.maximum(tf.reduce_sum(Fy, 2, keep_dims=True), eps)
        return Fx, Fy
    def attn_window(scope, h_dec, N):
        with tf.variable_scope(scope, reuse=DO_SHARE):
            params = linear(h_dec, 5)
        gx_, gy_, log_sigma2, log_delta, log_gamma = tf.split(params, 5, 1)
        gx = (A + 1) / 2 * (gx_ + 1)
        gy = (B + 1) / 2 * (gy_ + 1)
        sigma2 = tf.exp(log_sigma2)
        delta = (max(A, B) - 1) / (N - 1) * tf.exp(log_delta)
        return filterbank(gx, gy, sigma2, delta, N) + (tf.exp(log_gamma),)
    def read_no_attn(x, x_hat, h_dec_prev):
        return tf.concat([x, x_hat], 1)
    def read_attn(x, x_hat, h_dec_prev):
        Fx, Fy, gamma = attn_window("read", h_dec_prev, read_n)
        def filter_img(img, Fx, Fy, gamma, N):
            Fxt = tf.transpose(Fx, perm=[0, 2, 1])
            img = tf.reshape(img, [-1, B, A])
            glimpse = tf.matmul(Fy, tf.matmul(img, Fxt))
            glimpse = tf.reshape(glimpse, [-1, N * N])
            return glimpse * tf.reshape(gamma, [-1, 1])
        x = filter_img(x, Fx, Fy, gamma, read_n)
        x_hat = filter_img(x_hat, Fx, Fy, gamma, read_n)
        return tf.concat([x, x_hat], 1)
    read = read_attn if FLAGS.read_attn else read_no_attn
    def encode(state, input):
        with tf.variable_scope("encoder", reuse=DO_SHARE):
            return lstm_enc(input, state)
    def sampleQ(h_enc):
        with tf.variable_scope("mu", reuse=DO_SHARE):
            mu = linear(h_enc, z_size)
        with tf.variable_scope("sigma", reuse=DO_SHARE):
            logsigma = linear(h_enc, z_size)
            sigma = tf.exp(logsigma)
        return (mu + sigma * e, mu, logsigma, sigma)
    def decode(state, input):
        with tf.variable_scope("decoder", reuse=DO_SHARE):
            return lstm_dec(input, state)
    def write_no_attn(h_dec):
        with tf.variable_scope("write", reuse=DO_SHARE):
            return linear(h_dec, img_size)
    def write_attn(h_dec):
        with tf.variable_scope("writeW", reuse=DO_SHARE):
            w = linear(h_dec, write_size)
        N = write_n
        w = tf.reshape(w, [batch_size, N, N])
        Fx, Fy, gamma = attn_window("write", h_dec, write_n)
        Fyt = tf.transpose(Fy, perm=[0, 2, 1])
        wr = tf.matmul(Fyt, tf.matmul(w, Fx))
        wr = tf.reshape(wr, [batch_size, B * A])
        return wr * tf.reshape(1.0 / gamma, [-1, 1])
    write = write_attn if FLAGS.write_attn else write_no_attn
    cs = [0] * T
    mus, logsigmas, sigmas = [0] * T, [0] * T, [0] * T
    h_dec_prev = tf.zeros((batch_size, dec_size))
    enc_state = lstm_enc.zero_state(batch_size, tf.float32)
    dec_state = lstm_dec.zero_state(batch_size, tf.float32)
    for t in range(T):
        c_prev = tf.zeros((batch_size, img_size)) if t == 0 else cs[t - 1]
        x_hat = x - tf.sigmoid(c_prev)
        r = read(x, x_hat, h_dec_prev)
        h_enc, enc_state = encode(enc_state, tf.concat([r, h_dec_prev], 1))
        z, mus[t], logsigmas[t], sigmas[t] = sampleQ(h_enc)
        h_dec, dec_state = decode(dec_state, z)
        cs[t] = c_prev + write(h_dec)
        h_dec_prev = h_dec
        DO_SHARE = True
    def binary_crossentropy(t, o):
        return -(t * tf.log(o + eps) + (1.0 - t) * tf.log(1.0 - o + eps))
    x_recons = tf.nn.sigmoid(cs[-1])
    Lx = tf.reduce_sum(binary_crossentropy(x, x_recons), 1)
    Lx = tf.reduce_mean(Lx)
    kl_terms = [0] * T
    for t in range(T):
        mu2 = tf.square(mus[t])
        sigma2 = tf.square(sigmas[t])
        logsigma = logsigmas[t]
        kl_terms[t] = 0.5 * tf.reduce_sum(mu2 + sigma2 - 2 * logsigma, 1) - T * .5
    KL = tf.add_n(kl_terms)
    Lz = tf.reduce_mean(KL)
    cost = Lx + Lz
    optimizer = tf.train.AdamOptimizer(learning_rate, beta1=0.5)
    grads = optimizer.compute_gradients(cost)
    for i, (g, v) in enumerate(grads):
        if g is not None:
            grads[i] = (tf.clip_by_norm(g, 5), v)
    train_op = optimizer.apply_gradients(grads)
    print(cs[-1], enc_state, [v.name for v in tf.trainable_variables()])
    fetches = []
    fetches.extend([Lx, Lz, train_op])
    Lxs = [0] * train_iters
    Lzs = [0] * train_iters
    sess = tf.InteractiveSession()
    saver = tf.train.Saver()
    tf.initialize_all_variables().run()
    rng = np.random.RandomState(0)
    for i in range(train_iters):
        xtrain = (rng.rand(batch_size, img_size) > 0.5).astype(np.float32)
        feed_dict = {x: xtrain}
        results = sess.run(fetches, feed_dict)
        Lxs[i], Lzs[i], _ = results
        if i % 2 == 0:
            print("iter=%d : Lx: %f Lz: %f" % (i, Lxs[i], Lzs[i]))
    canvases = sess.run(cs, feed_dict)
    canvases = np.array(canvases)
    print(canvases.shape, canvases.dtype)
    out_file = os.path.join(FLAGS.data_dir, "draw_data.npy")
    saved = np.empty(3, object)  # NumPy 1.x made this array of the list itself
    saved[:] = [canvases, Lxs, Lzs]
    np.save(out_file, saved, allow_pickle=True)
    ckpt_file = os.path.join(FLAGS.data_dir, "drawmodel.ckpt")
    print("Model saved in file: %s" % saver.save(sess, ckpt_file).replace(FLAGS.data_dir, '<dir>'))
    sess.close()
    print('Done drawing! Have a nice day! :)')
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["draw"], 0)


def test_magenta_events_rnn(capsys):
    # tensorflow/magenta magenta/models/shared/events_rnn_graph.py + magenta/common flatten_maybe_padded_sequences (train, eval, generate graphs; dropout keep 1.0 since TF 1.15 draws masks inside the while loop in no fixed order; cond_context/while_context collection keys left out: tideflow builds cond/while without those context objects)
    # tensorflow/magenta magenta/models/shared/events_rnn_graph.py + magenta/common/sequence_example_lib.py flatten_maybe_padded_sequences
    # (dropout keep 1.0: TF 1.15 draws the masks inside the while loop in no fixed order; train, eval and generate graphs; the TFRecord batch -> placeholders; a one-hot melody encoder's sizes shrunk)
    import numbers, six
    def flatten_maybe_padded_sequences(maybe_padded_sequences, lengths=None):
        def flatten_unpadded_sequences():
            return tf.reshape(maybe_padded_sequences, [-1] + maybe_padded_sequences.shape.as_list()[2:])
        if lengths is None:
            return flatten_unpadded_sequences()
        def flatten_padded_sequences():
            indices = tf.where(tf.sequence_mask(lengths))
            return tf.gather_nd(maybe_padded_sequences, indices)
        return tf.cond(tf.equal(tf.reduce_min(lengths), tf.shape(maybe_padded_sequences)[1]), flatten_unpadded_sequences, flatten_padded_sequences)
    def make_rnn_cell(rnn_layer_sizes, dropout_keep_prob=1.0, attn_length=0, base_cell=tf.contrib.rnn.BasicLSTMCell, residual_connections=False):
        cells = []
        for i in range(len(rnn_layer_sizes)):
            cell = base_cell(rnn_layer_sizes[i])
            if attn_length and not cells:
                cell = tf.contrib.rnn.AttentionCellWrapper(cell, attn_length, state_is_tuple=True)
            if residual_connections:
                cell = tf.contrib.rnn.ResidualWrapper(cell)
                if i == 0 or rnn_layer_sizes[i] != rnn_layer_sizes[i - 1]:
                    cell = tf.contrib.rnn.InputProjectionWrapper(cell, rnn_layer_sizes[i])
            cell = tf.contrib.rnn.DropoutWrapper(cell, output_keep_prob=dropout_keep_prob)
            cells.append(cell)
        cell = tf.contrib.rnn.MultiRNNCell(cells)
        return cell
    class hparams:
        batch_size = 3; rnn_layer_sizes = [6, 6]; dropout_keep_prob = 1.0; attn_length = 2; clip_norm = 3; learning_rate = 0.01
        residual_connections = True; use_cudnn = False
        @staticmethod
        def values():
            return {'batch_size': 3}
    input_size, num_classes, no_event_label = 5, 5, 0
    def labels_to_num_steps(labels):
        return len(labels)
    def build(mode, inputs=None, labels=None, lengths=None):
        if mode == 'generate':
            inputs = tf.placeholder(tf.float32, [hparams.batch_size, None, input_size])
        expanded_inputs = inputs
        dropout_keep_prob = 1.0 if mode == 'generate' else hparams.dropout_keep_prob
        cell = make_rnn_cell(hparams.rnn_layer_sizes, dropout_keep_prob=dropout_keep_prob, attn_length=hparams.attn_length,
                             residual_connections=hparams.residual_connections)
        initial_state = cell.zero_state(hparams.batch_size, tf.float32)
        outputs, final_state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, initial_state=initial_state, swap_memory=True)
        outputs_flat = flatten_maybe_padded_sequences(outputs, lengths)
        num_logits = num_classes
        logits_flat = tf.contrib.layers.linear(outputs_flat, num_logits)
        if mode in ('train', 'eval'):
            labels_flat = flatten_maybe_padded_sequences(labels, lengths)
            softmax_cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels_flat, logits=logits_flat)
            predictions_flat = tf.argmax(logits_flat, axis=1)
            correct_predictions = tf.to_float(tf.equal(labels_flat, predictions_flat))
            event_positions = tf.to_float(tf.not_equal(labels_flat, no_event_label))
            no_event_positions = tf.to_float(tf.equal(labels_flat, no_event_label))
            def batch_labels_to_num_steps(batch_labels, lengths):
                num_steps = 0
                for labels, length in zip(batch_labels, lengths):
                    num_steps += labels_to_num_steps(labels[:length])
                return np.float32(num_steps)
            num_steps = tf.py_func(batch_labels_to_num_steps, [labels, lengths], tf.float32)
            if mode == 'train':
                loss = tf.reduce_mean(softmax_cross_entropy)
                perplexity = tf.exp(loss)
                accuracy = tf.reduce_mean(correct_predictions)
                event_accuracy = (tf.reduce_sum(correct_predictions * event_positions) / tf.reduce_sum(event_positions))
                no_event_accuracy = (tf.reduce_sum(correct_predictions * no_event_positions) / tf.reduce_sum(no_event_positions))
                loss_per_step = tf.reduce_sum(softmax_cross_entropy) / num_steps
                perplexity_per_step = tf.exp(loss_per_step)
                optimizer = tf.train.AdamOptimizer(learning_rate=hparams.learning_rate)
                train_op = tf.contrib.slim.learning.create_train_op(loss, optimizer, clip_gradient_norm=hparams.clip_norm)
                tf.add_to_collection('train_op', train_op)
                vars_to_summarize = {'loss': loss, 'metrics/perplexity': perplexity, 'metrics/accuracy': accuracy,
                                     'metrics/event_accuracy': event_accuracy, 'metrics/no_event_accuracy': no_event_accuracy,
                                     'metrics/loss_per_step': loss_per_step, 'metrics/perplexity_per_step': perplexity_per_step}
            elif mode == 'eval':
                vars_to_summarize, update_ops = tf.contrib.metrics.aggregate_metric_map({
                    'loss': tf.metrics.mean(softmax_cross_entropy),
                    'metrics/accuracy': tf.metrics.accuracy(labels_flat, predictions_flat),
                    'metrics/per_class_accuracy': tf.metrics.mean_per_class_accuracy(labels_flat, predictions_flat, num_classes),
                    'metrics/event_accuracy': tf.metrics.recall(event_positions, correct_predictions),
                    'metrics/no_event_accuracy': tf.metrics.recall(no_event_positions, correct_predictions),
                    'metrics/loss_per_step': tf.metrics.mean(tf.reduce_sum(softmax_cross_entropy) / num_steps, weights=num_steps)})
                for updates_op in update_ops.values():
                    tf.add_to_collection('eval_ops', updates_op)
                vars_to_summarize['metrics/perplexity'] = tf.exp(vars_to_summarize['loss'])
                vars_to_summarize['metrics/perplexity_per_step'] = tf.exp(vars_to_summarize['metrics/loss_per_step'])
            for var_name, var_value in six.iteritems(vars_to_summarize):
                tf.summary.scalar(var_name, var_value)
                tf.add_to_collection(var_name, var_value)
        elif mode == 'generate':
            temperature = tf.placeholder(tf.float32, [])
            softmax_flat = tf.nn.softmax(tf.div(logits_flat, tf.fill([num_classes], temperature)))
            softmax = tf.reshape(softmax_flat, [hparams.batch_size, -1, num_classes])
            tf.add_to_collection('inputs', inputs)
            tf.add_to_collection('temperature', temperature)
            tf.add_to_collection('softmax', softmax)
            for state in tf.contrib.framework.nest.flatten(initial_state):
                tf.add_to_collection('initial_state', state)
            for state in tf.contrib.framework.nest.flatten(final_state):
                tf.add_to_collection('final_state', state)
    rng = np.random.RandomState(0)
    T = 6
    lens = np.array([6, 4, 5])
    def batch():
        lab = rng.randint(0, num_classes, (3, T))
        return np.eye(input_size, dtype=np.float32)[rng.randint(0, input_size, (3, T))], lab, lens
    for mode in ('train', 'eval', 'generate'):
        with tf.Graph().as_default():
            tf.set_random_seed(4)
            if mode != 'generate':
                inputs = tf.placeholder(tf.float32, [3, None, input_size]); labels = tf.placeholder(tf.int64, [3, None]); lengths = tf.placeholder(tf.int32, [3])
                build(mode, inputs, labels, lengths)
            else:
                build(mode)
            print(mode, sorted(k for k in tf.get_default_graph().get_all_collection_keys() if not k.endswith('_context')))
            print([v.name for v in tf.global_variables()][:7])
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
                if mode == 'train':
                    for step in range(3):
                        x, l, n = batch()
                        out = sess.run([tf.get_collection('train_op')[0], tf.get_collection('metrics/accuracy')[0], tf.get_collection('metrics/loss_per_step')[0]],
                                       {inputs: x, labels: l, lengths: n})
                        print('step %d' % step, [None if v is None else round(float(v), 5) for v in out])
                elif mode == 'eval':
                    for step in range(2):
                        x, l, n = batch()
                        sess.run(tf.get_collection('eval_ops'), {inputs: x, labels: l, lengths: n})
                    names = ['loss', 'metrics/accuracy', 'metrics/per_class_accuracy', 'metrics/event_accuracy', 'metrics/no_event_accuracy', 'metrics/loss_per_step', 'metrics/perplexity']
                    print(['%s=%.5f' % (k, sess.run(tf.get_collection(k)[0])) for k in names])
                else:
                    sm = tf.get_collection('softmax')[0]
                    x, _, _ = batch()
                    print(len(tf.get_collection('initial_state')), np.round(sess.run(sm, {tf.get_collection('inputs')[0]: x[:, :2], tf.get_collection('temperature')[0]: 1.5})[0], 4).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["magenta_events_rnn"], 0)


def test_srez(capsys):
    # david-gpu/srez srez_model.py + the srez_train.py loop (super-resolution GAN: layer-builder Model, residual blocks, contrib batch_norm, conv2d_transpose upscale, var lists as tf.all_variables set differences; flags as a class, sizes shrunk). Both minimizes run in one step with no order between them, so TF 1.15 itself varies in the 4th digit from run to run (measured): compared to 3e-3
    # david-gpu/srez srez_model.py + srez_train.py loop (super-resolution GAN: Model builder with residual blocks,
    # contrib batch_norm, conv2d_transpose upscale; var lists from tf.all_variables set differences); flags as a class, sizes shrunk
    class FLAGS:
        batch_size = 2; epsilon = 1e-8; gene_l1_factor = .90; learning_beta1 = 0.5; learning_rate_start = 0.00020
    class Model:
        def __init__(self, name, features):
            self.name = name
            self.outputs = [features]
        def _get_layer_str(self, layer=None):
            if layer is None:
                layer = self.get_num_layers()
            return '%s_L%03d' % (self.name, layer + 1)
        def _get_num_inputs(self):
            return int(self.get_output().get_shape()[-1])
        def _glorot_initializer(self, prev_units, num_units, stddev_factor=1.0):
            stddev = np.sqrt(stddev_factor / np.sqrt(prev_units * num_units))
            return tf.truncated_normal([prev_units, num_units], mean=0.0, stddev=stddev)
        def _glorot_initializer_conv2d(self, prev_units, num_units, mapsize, stddev_factor=1.0):
            stddev = np.sqrt(stddev_factor / (np.sqrt(prev_units * num_units) * mapsize * mapsize))
            return tf.truncated_normal([mapsize, mapsize, prev_units, num_units], mean=0.0, stddev=stddev)
        def get_num_layers(self):
            return len(self.outputs)
        def add_batch_norm(self, scale=False):
            with tf.variable_scope(self._get_layer_str()):
                out = tf.contrib.layers.batch_norm(self.get_output(), scale=scale)
            self.outputs.append(out)
            return self
        def add_flatten(self):
            with tf.variable_scope(self._get_layer_str()):
                batch_size = int(self.get_output().get_shape()[0])
                out = tf.reshape(self.get_output(), [batch_size, -1])
            self.outputs.append(out)
            return self
        def add_dense(self, num_units, stddev_factor=1.0):
            with tf.variable_scope(self._get_layer_str()):
                prev_units = self._get_num_inputs()
                initw = self._glorot_initializer(prev_units, num_units, stddev_factor=stddev_factor)
                weight = tf.get_variable('weight', initializer=initw)
                initb = tf.constant(0.0, shape=[num_units])
                bias = tf.get_variable('bias', initializer=initb)
                out = tf.matmul(self.get_output(), weight) + bias
            self.outputs.append(out)
            return self
        def add_sigmoid(self):
            with tf.variable_scope(self._get_layer_str()):
                out = tf.nn.sigmoid(self.get_output())
            self.outputs.append(out)
            return self
        def add_relu(self):
            with tf.variable_scope(self._get_layer_str()):
                out = tf.nn.relu(self.get_output())
            self.outputs.append(out)
            return self
        def add_conv2d(self, num_units, mapsize=1, stride=1, stddev_factor=1.0):
            with tf.variable_scope(self._get_layer_str()):
                prev_units = self._get_num_inputs()
                initw = self._glorot_initializer_conv2d(prev_units, num_units, mapsize, stddev_factor=stddev_factor)
                weight = tf.get_variable('weight', initializer=initw)
                out = tf.nn.conv2d(self.get_output(), weight, strides=[1, stride, stride, 1], padding='SAME')
                initb = tf.constant(0.0, shape=[num_units])
                bias = tf.get_variable('bias', initializer=initb)
                out = tf.nn.bias_add(out, bias)
            self.outputs.append(out)
            return self
        def add_conv2d_transpose(self, num_units, mapsize=1, stride=1, stddev_factor=1.0):
            with tf.variable_scope(self._get_layer_str()):
                prev_units = self._get_num_inputs()
                initw = self._glorot_initializer_conv2d(prev_units, num_units, mapsize, stddev_factor=stddev_factor)
                weight = tf.get_variable('weight', initializer=initw)
                weight = tf.transpose(weight, perm=[0, 1, 3, 2])
                prev_output = self.get_output()
                output_shape = [FLAGS.batch_size, int(prev_output.get_shape()[1]) * stride, int(prev_output.get_shape()[2]) * stride, num_units]
                out = tf.nn.conv2d_transpose(self.get_output(), weight, output_shape=output_shape, strides=[1, stride, stride, 1], padding='SAME')
                initb = tf.constant(0.0, shape=[num_units])
                bias = tf.get_variable('bias', initializer=initb)
                out = tf.nn.bias_add(out, bias)
            self.outputs.append(out)
            return self
        def add_residual_block(self, num_units, mapsize=3, num_layers=2, stddev_factor=1e-3):
            if num_units != int(self.get_output().get_shape()[3]):
                self.add_conv2d(num_units, mapsize=1, stride=1, stddev_factor=1.)
            bypass = self.get_output()
            for _ in range(num_layers):
                self.add_batch_norm()
                self.add_relu()
                self.add_conv2d(num_units, mapsize=mapsize, stride=1, stddev_factor=stddev_factor)
            self.add_sum(bypass)
            return self
        def add_sum(self, term):
            with tf.variable_scope(self._get_layer_str()):
                prev_shape = self.get_output().get_shape()
                term_shape = term.get_shape()
                assert prev_shape == term_shape and "Can't sum terms with a different size"
                out = tf.add(self.get_output(), term)
            self.outputs.append(out)
            return self
        def get_output(self):
            return self.outputs[-1]
        def get_variable(self, layer, name):
            scope = self._get_layer_str(layer)
            collection = tf.get_collection(tf.GraphKeys.VARIABLES, scope=scope)
            for var in collection:
                if var.name[:-2] == scope + '/' + name:
                    return var
            return None
    def _discriminator_model(sess, features, disc_input):
        mapsize = 3
        layers = [4, 8]
        old_vars = tf.all_variables()
        model = Model('DIS', 2 * disc_input - 1)
        for layer in range(len(layers)):
            nunits = layers[layer]
            stddev_factor = 2.0
            model.add_conv2d(nunits, mapsize=mapsize, stride=2, stddev_factor=stddev_factor)
            model.add_batch_norm()
            model.add_relu()
        model.add_conv2d(nunits, mapsize=1, stride=1, stddev_factor=stddev_factor)
        model.add_batch_norm()
        model.add_relu()
        model.add_flatten()
        model.add_dense(1, stddev_factor=1.)
        new_vars = tf.all_variables()
        disc_vars = list(set(new_vars) - set(old_vars))
        return model.get_output(), disc_vars
    def _generator_model(sess, features, labels, channels):
        mapsize = 3
        res_units = [8, 6]
        old_vars = tf.all_variables()
        model = Model('GEN', features)
        for ru in range(len(res_units) - 1):
            nunits = res_units[ru]
            for j in range(2):
                model.add_residual_block(nunits, mapsize=mapsize)
            model.add_batch_norm()
            model.add_relu()
            model.add_conv2d_transpose(nunits, mapsize=mapsize, stride=2, stddev_factor=1.)
        nunits = res_units[-1]
        model.add_conv2d(nunits, mapsize=mapsize, stride=1, stddev_factor=2.)
        model.add_relu()
        model.add_conv2d(channels, mapsize=1, stride=1, stddev_factor=1.)
        model.add_sigmoid()
        new_vars = tf.all_variables()
        gene_vars = list(set(new_vars) - set(old_vars))
        return model.get_output(), gene_vars
    def create_model(sess, features, labels):
        rows = int(features.get_shape()[1]); cols = int(features.get_shape()[2]); channels = int(features.get_shape()[3])
        gene_minput = tf.placeholder(tf.float32, shape=[FLAGS.batch_size, rows, cols, channels])
        with tf.variable_scope('gene') as scope:
            gene_output, gene_var_list = _generator_model(sess, features, labels, channels)
            scope.reuse_variables()
            gene_moutput, _ = _generator_model(sess, gene_minput, labels, channels)
        disc_real_input = tf.identity(labels, name='disc_real_input')
        with tf.variable_scope('disc') as scope:
            disc_real_output, disc_var_list = _discriminator_model(sess, features, disc_real_input)
            scope.reuse_variables()
            disc_fake_output, _ = _discriminator_model(sess, features, gene_output)
        return [gene_minput, gene_moutput, gene_output, gene_var_list, disc_real_output, disc_fake_output, disc_var_list]
    def _downscale(images, K):
        arr = np.zeros([K, K, 3, 3])
        arr[:, :, 0, 0] = 1.0 / (K * K)
        arr[:, :, 1, 1] = 1.0 / (K * K)
        arr[:, :, 2, 2] = 1.0 / (K * K)
        dowscale_weight = tf.constant(arr, dtype=tf.float32)
        downscaled = tf.nn.conv2d(images, dowscale_weight, strides=[1, K, K, 1], padding='SAME')
        return downscaled
    def create_generator_loss(disc_output, gene_output, features, positional=False):
        if positional:  # the repository's call, TF 0.x's argument order
            cross_entropy = tf.nn.sigmoid_cross_entropy_with_logits(disc_output, tf.ones_like(disc_output))
        else:
            cross_entropy = tf.nn.sigmoid_cross_entropy_with_logits(logits=disc_output, labels=tf.ones_like(disc_output))
        gene_ce_loss = tf.reduce_mean(cross_entropy, name='gene_ce_loss')
        K = int(gene_output.get_shape()[1]) // int(features.get_shape()[1])
        assert K == 2 or K == 4 or K == 8
        downscaled = _downscale(gene_output, K)
        gene_l1_loss = tf.reduce_mean(tf.abs(downscaled - features), name='gene_l1_loss')
        gene_loss = tf.add((1.0 - FLAGS.gene_l1_factor) * gene_ce_loss, FLAGS.gene_l1_factor * gene_l1_loss, name='gene_loss')
        return gene_loss
    def create_discriminator_loss(disc_real_output, disc_fake_output):
        cross_entropy_real = tf.nn.sigmoid_cross_entropy_with_logits(logits=disc_real_output, labels=tf.ones_like(disc_real_output))
        disc_real_loss = tf.reduce_mean(cross_entropy_real, name='disc_real_loss')
        cross_entropy_fake = tf.nn.sigmoid_cross_entropy_with_logits(logits=disc_fake_output, labels=tf.zeros_like(disc_fake_output))
        disc_fake_loss = tf.reduce_mean(cross_entropy_fake, name='disc_fake_loss')
        return disc_real_loss, disc_fake_loss
    def create_optimizers(gene_loss, gene_var_list, disc_loss, disc_var_list):
        global_step = tf.Variable(0, dtype=tf.int64, trainable=False, name='global_step')
        learning_rate = tf.placeholder(dtype=tf.float32, name='learning_rate')
        gene_opti = tf.train.AdamOptimizer(learning_rate=learning_rate, beta1=FLAGS.learning_beta1, name='gene_optimizer')
        disc_opti = tf.train.AdamOptimizer(learning_rate=learning_rate, beta1=FLAGS.learning_beta1, name='disc_optimizer')
        gene_minimize = gene_opti.minimize(gene_loss, var_list=gene_var_list, name='gene_loss_minimize', global_step=global_step)
        disc_minimize = disc_opti.minimize(disc_loss, var_list=disc_var_list, name='disc_loss_minimize', global_step=global_step)
        return (global_step, learning_rate, gene_minimize, disc_minimize)
    tf.set_random_seed(3)
    rng = np.random.RandomState(0)
    features = tf.constant(rng.rand(2, 4, 4, 3).astype(np.float32))
    labels = tf.constant(rng.rand(2, 8, 8, 3).astype(np.float32))
    sess = tf.Session()
    [gene_minput, gene_moutput, gene_output, gene_var_list, disc_real_output, disc_fake_output, disc_var_list] = create_model(sess, features, labels)
    print(gene_output, disc_real_output, len(gene_var_list), len(disc_var_list))
    print(sorted(v.name for v in disc_var_list))
    # (the repository's positional sigmoid_cross_entropy_with_logits(logits, labels) is TF 1.15's ValueError 'Only call
    # `sigmoid_cross_entropy_with_logits` with named arguments'; tideflow deliberately takes TF 0.x's order)
    gene_loss = create_generator_loss(disc_fake_output, gene_output, features)
    disc_real_loss, disc_fake_loss = create_discriminator_loss(disc_real_output, disc_fake_output)
    disc_loss = tf.add(disc_real_loss, disc_fake_loss, name='disc_loss')
    (global_step, learning_rate, gene_minimize, disc_minimize) = create_optimizers(gene_loss, gene_var_list, disc_loss, disc_var_list)
    print(gene_minimize.name, disc_minimize.name, len(tf.global_variables()))
    sess.run(tf.global_variables_initializer())
    lrval = FLAGS.learning_rate_start
    for batch in range(3):
        feed_dict = {learning_rate: lrval}
        ops = [gene_minimize, disc_minimize, gene_loss, disc_real_loss, disc_fake_loss]
        _, _, gene_loss_v, disc_real_loss_v, disc_fake_loss_v = sess.run(ops, feed_dict=feed_dict)
        print('Progress[%3d%%], Batch [%4d], G_Loss[%3.3f], D_Real_Loss[%3.3f], D_Fake_Loss[%3.3f]' % (0, batch, gene_loss_v, disc_real_loss_v, disc_fake_loss_v))
    print(sess.run(global_step), sess.run(gene_moutput, {gene_minput: rng.rand(2, 4, 4, 3)}).shape)
    sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["srez"], 0.003)


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "draw": [
        'Tensor("add_29:0", shape=(5, 64), dtype=float32) LSTMStateTuple(c=<tf.Tensor \'encoder/lstm_cell/add_5:0\' shape=(5, 12) dtype=float32>, h=<tf.Tensor \'encoder/lstm_cell/mul_8:0\' shape=(5, 12) dtype=float32>) [\'read/w:0\', \'read/b:0\', \'encoder/lstm_cell/kernel:0\', \'encoder/lstm_cell/bias:0\', \'mu/w:0\', \'mu/b:0\', \'sigma/w:0\', \'sigma/b:0\', \'decoder/lstm_cell/kernel:0\', \'decoder/lstm_cell/bias:0\', \'writeW/w:0\', \'writeW/b:0\', \'write/w:0\', \'write/b:0\']',
        'iter=0 : Lx: 44.255470 Lz: 1.837253',
        'iter=2 : Lx: 44.682625 Lz: 1.817137',
        '(3, 5, 64) float32',
        'Model saved in file: <dir>/drawmodel.ckpt',
        'Done drawing! Have a nice day! :)',
    ],
    "magenta_events_rnn": [
        "train ['global_step', 'loss', 'metrics/accuracy', 'metrics/event_accuracy', 'metrics/loss_per_step', 'metrics/no_event_accuracy', 'metrics/perplexity', 'metrics/perplexity_per_step', 'model_variables', 'summaries', 'train_op', 'trainable_variables', 'update_ops', 'variables']",
        "['rnn/multi_rnn_cell/cell_0/input_projection_wrapper/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/attention/attn_w:0']",
        'step 0 [None, 0.33333, 1.6233]',
        'step 1 [None, 0.13333, 1.64066]',
        'step 2 [None, 0.26667, 1.52784]',
        "eval ['eval_ops', 'local_variables', 'loss', 'metric_variables', 'metrics/accuracy', 'metrics/event_accuracy', 'metrics/loss_per_step', 'metrics/no_event_accuracy', 'metrics/per_class_accuracy', 'metrics/perplexity', 'metrics/perplexity_per_step', 'model_variables', 'summaries', 'trainable_variables', 'update_ops', 'variables']",
        "['rnn/multi_rnn_cell/cell_0/input_projection_wrapper/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/attention/attn_w:0']",
        "['loss=1.69883', 'metrics/accuracy=0.23333', 'metrics/per_class_accuracy=0.19286', 'metrics/event_accuracy=0.22727', 'metrics/no_event_accuracy=0.25000', 'metrics/loss_per_step=1.69883', 'metrics/perplexity=5.46756']",
        "generate ['final_state', 'initial_state', 'inputs', 'model_variables', 'softmax', 'temperature', 'trainable_variables', 'update_ops', 'variables']",
        "['rnn/multi_rnn_cell/cell_0/input_projection_wrapper/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_0/input_projection_wrapper/attention_cell_wrapper/attention/attn_w:0']",
        '6 [[0.18790000677108765, 0.19949999451637268, 0.1720999926328659, 0.22709999978542328, 0.2134000062942505], [0.1940000057220459, 0.19979999959468842, 0.16500000655651093, 0.22930000722408295, 0.211899995803833]]',
    ],
    "srez": [
        'Tensor("gene/GEN_L023/Sigmoid:0", shape=(2, 8, 8, 3), dtype=float32) Tensor("disc/DIS_L012/add:0", shape=(2, 1), dtype=float32) 31 17',
        "['disc/DIS_L002/bias:0', 'disc/DIS_L002/weight:0', 'disc/DIS_L003/BatchNorm/beta:0', 'disc/DIS_L003/BatchNorm/moving_mean:0', 'disc/DIS_L003/BatchNorm/moving_variance:0', 'disc/DIS_L005/bias:0', 'disc/DIS_L005/weight:0', 'disc/DIS_L006/BatchNorm/beta:0', 'disc/DIS_L006/BatchNorm/moving_mean:0', 'disc/DIS_L006/BatchNorm/moving_variance:0', 'disc/DIS_L008/bias:0', 'disc/DIS_L008/weight:0', 'disc/DIS_L009/BatchNorm/beta:0', 'disc/DIS_L009/BatchNorm/moving_mean:0', 'disc/DIS_L009/BatchNorm/moving_variance:0', 'disc/DIS_L012/bias:0', 'disc/DIS_L012/weight:0']",
        'gene_loss_minimize disc_loss_minimize 117',
        'Progress[  0%], Batch [   0], G_Loss[0.343], D_Real_Loss[2.896], D_Fake_Loss[0.505]',
        'Progress[  0%], Batch [   1], G_Loss[0.319], D_Real_Loss[2.864], D_Fake_Loss[0.642]',
        'Progress[  0%], Batch [   2], G_Loss[0.309], D_Real_Loss[2.834], D_Fake_Loss[0.687]',
        '6 (2, 8, 8, 3)',
    ],
}
