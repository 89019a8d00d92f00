"""TF 1.x research programs tideflow had not seen, reduced as in
``test_programs_research27b.py``: Glow and ELMo's biLM. Each prints what TF 1.15 printed
running it with the same seeds (measured), compared by ``same_printed``."""
# ruff: noqa: B006, F401, F841, I001, UP031, RUF059, SIM117, UP004

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




def test_glow(capsys):
    # openai/glow tfops.py + model.py (actnorm data-dependent init under arg_scope, invertible 1x1 conv, affine coupling, split2d; 8x8 images)
    # openai/glow tfops.py + model.py (revnet2d, actnorm with data-dependent init, invertible 1x1 conv, split2d), sizes shrunk
    add_arg_scope = tf.contrib.framework.add_arg_scope
    arg_scope = tf.contrib.framework.arg_scope
    np.random.seed(0)
    tf.set_random_seed(0)
    def default_initializer(std=0.05):
        return tf.random_normal_initializer(0., std)
    def int_shape(x):
        if str(x.get_shape()[0]) != '?':
            return list(map(int, x.get_shape()))
        return [-1] + list(map(int, x.get_shape()[1:]))
    @add_arg_scope
    def get_variable_ddi(name, shape, initial_value, dtype=tf.float32, init=False, trainable=True):
        w = tf.get_variable(name, shape, dtype, None, trainable=trainable)
        if init:
            w = w.assign(initial_value)
            with tf.control_dependencies([w]):
                return w
        return w
    @add_arg_scope
    def actnorm(name, x, scale=1., logdet=None, logscale_factor=3., batch_variance=False, reverse=False, init=False, trainable=True):
        if arg_scope([get_variable_ddi], trainable=trainable):
            if not reverse:
                x = actnorm_center(name + "_center", x, reverse)
                x = actnorm_scale(name + "_scale", x, scale, logdet, logscale_factor, batch_variance, reverse, init)
                if logdet != None:
                    x, logdet = x
            else:
                x = actnorm_scale(name + "_scale", x, scale, logdet, logscale_factor, batch_variance, reverse, init)
                if logdet != None:
                    x, logdet = x
                x = actnorm_center(name + "_center", x, reverse)
            if logdet != None:
                return x, logdet
            return x
    @add_arg_scope
    def actnorm_center(name, x, reverse=False):
        shape = x.get_shape()
        with tf.variable_scope(name):
            assert len(shape) == 2 or len(shape) == 4
            if len(shape) == 2:
                x_mean = tf.reduce_mean(x, [0], keepdims=True)
                b = get_variable_ddi("b", (1, int_shape(x)[1]), initial_value=-x_mean)
            elif len(shape) == 4:
                x_mean = tf.reduce_mean(x, [0, 1, 2], keepdims=True)
                b = get_variable_ddi("b", (1, 1, 1, int_shape(x)[3]), initial_value=-x_mean)
            if not reverse:
                x += b
            else:
                x -= b
            return x
    @add_arg_scope
    def actnorm_scale(name, x, scale=1., logdet=None, logscale_factor=3., batch_variance=False, reverse=False, init=False, trainable=True):
        shape = x.get_shape()
        with tf.variable_scope(name), arg_scope([get_variable_ddi], trainable=trainable):
            if len(shape) == 2:
                x_var = tf.reduce_mean(x ** 2, [0], keepdims=True)
                logdet_factor = 1
                _shape = (1, int_shape(x)[1])
            elif len(shape) == 4:
                x_var = tf.reduce_mean(x ** 2, [0, 1, 2], keepdims=True)
                logdet_factor = int(shape[1]) * int(shape[2])
                _shape = (1, 1, 1, int_shape(x)[3])
            if batch_variance:
                x_var = tf.reduce_mean(x ** 2, keepdims=True)
            logs = get_variable_ddi("logs", _shape, initial_value=tf.log(scale / (tf.sqrt(x_var) + 1e-6)) / logscale_factor) * logscale_factor
            if not reverse:
                x = x * tf.exp(logs)
            else:
                x = x * tf.exp(-logs)
            if logdet != None:
                dlogdet = tf.reduce_sum(logs) * logdet_factor
                if reverse:
                    dlogdet *= -1
                return x, logdet + dlogdet
            return x
    def add_edge_padding(x, filter_size):
        assert filter_size[0] % 2 == 1
        if filter_size[0] == 1 and filter_size[1] == 1:
            return x
        a = (filter_size[0] - 1) // 2
        b = (filter_size[1] - 1) // 2
        x = tf.pad(x, [[0, 0], [a, a], [b, b], [0, 0]])
        name = "_".join([str(dim) for dim in [a, b, *int_shape(x)[1:3]]])
        pads = tf.get_collection(name)
        if not pads:
            print("Creating pad", name)
            pad = np.zeros([1] + int_shape(x)[1:3] + [1], dtype='float32')
            pad[:, :a, :, 0] = 1.
            pad[:, -a:, :, 0] = 1.
            pad[:, :, :b, 0] = 1.
            pad[:, :, -b:, 0] = 1.
            pad = tf.convert_to_tensor(pad)
            tf.add_to_collection(name, pad)
        else:
            pad = pads[0]
        pad = tf.tile(pad, [tf.shape(x)[0], 1, 1, 1])
        x = tf.concat([x, pad], axis=3)
        return x
    @add_arg_scope
    def conv2d(name, x, width, filter_size=[3, 3], stride=[1, 1], pad="SAME", do_weightnorm=False, do_actnorm=True, context1d=None, skip=1, edge_bias=True):
        with tf.variable_scope(name):
            if edge_bias and pad == "SAME":
                x = add_edge_padding(x, filter_size)
                pad = 'VALID'
            n_in = int(x.get_shape()[3])
            stride_shape = [1] + stride + [1]
            filter_shape = filter_size + [n_in, width]
            w = tf.get_variable("W", filter_shape, tf.float32, initializer=default_initializer())
            if do_weightnorm:
                w = tf.nn.l2_normalize(w, [0, 1, 2])
            x = tf.nn.conv2d(x, w, stride_shape, pad, data_format='NHWC')
            if do_actnorm:
                x = actnorm("actnorm", x)
            else:
                x += tf.get_variable("b", [1, 1, 1, width], initializer=tf.zeros_initializer())
        return x
    @add_arg_scope
    def conv2d_zeros(name, x, width, filter_size=[3, 3], stride=[1, 1], pad="SAME", logscale_factor=3, skip=1, edge_bias=True):
        with tf.variable_scope(name):
            if edge_bias and pad == "SAME":
                x = add_edge_padding(x, filter_size)
                pad = 'VALID'
            n_in = int(x.get_shape()[3])
            stride_shape = [1] + stride + [1]
            filter_shape = filter_size + [n_in, width]
            w = tf.get_variable("W", filter_shape, tf.float32, initializer=tf.zeros_initializer())
            x = tf.nn.conv2d(x, w, stride_shape, pad, data_format='NHWC')
            x += tf.get_variable("b", [1, 1, 1, width], initializer=tf.zeros_initializer())
            x *= tf.exp(tf.get_variable("logs", [1, width], initializer=tf.zeros_initializer()) * logscale_factor)
        return x
    def squeeze2d(x, factor=2):
        shape = x.get_shape()
        height = int(shape[1]); width = int(shape[2]); n_channels = int(shape[3])
        x = tf.reshape(x, [-1, height // factor, factor, width // factor, factor, n_channels])
        x = tf.transpose(x, [0, 1, 3, 5, 2, 4])
        x = tf.reshape(x, [-1, height // factor, width // factor, n_channels * factor * factor])
        return x
    def unsqueeze2d(x, factor=2):
        shape = x.get_shape()
        height = int(shape[1]); width = int(shape[2]); n_channels = int(shape[3])
        x = tf.reshape(x, (-1, height, width, int(n_channels / factor ** 2), factor, factor))
        x = tf.transpose(x, [0, 1, 4, 2, 5, 3])
        x = tf.reshape(x, (-1, int(height * factor), int(width * factor), int(n_channels / factor ** 2)))
        return x
    def reverse_features(name, h, reverse=False):
        return h[:, :, :, ::-1]
    def shuffle_features(name, h, indices=None, return_indices=False, reverse=False):
        with tf.variable_scope(name):
            rng = np.random.RandomState(12345)
            if indices == None:
                n_channels = int(h.get_shape()[-1])
                indices = list(range(n_channels))
                rng.shuffle(indices)
                indices_inverse = [0] * n_channels
                for i in range(n_channels):
                    indices_inverse[indices[i]] = i
            tf_indices = tf.get_variable("indices", dtype=tf.int32, initializer=np.asarray(indices, dtype='int32'), trainable=False)
            tf_indices_reverse = tf.get_variable("indices_inverse", dtype=tf.int32, initializer=np.asarray(indices_inverse, dtype='int32'), trainable=False)
            _indices = tf_indices
            if reverse:
                _indices = tf_indices_reverse
            h = tf.transpose(h, [3, 1, 2, 0])
            h = tf.gather(h, _indices)
            h = tf.transpose(h, [3, 1, 2, 0])
            return h
    def flatten_sum(logps):
        if len(logps.get_shape()) == 2:
            return tf.reduce_sum(logps, [1])
        elif len(logps.get_shape()) == 4:
            return tf.reduce_sum(logps, [1, 2, 3])
    def gaussian_diag(mean, logsd):
        class o(object):
            pass
        o.mean = mean
        o.logsd = logsd
        o.eps = tf.random_normal(tf.shape(mean))
        o.sample = mean + tf.exp(logsd) * o.eps
        o.sample2 = lambda eps: mean + tf.exp(logsd) * eps
        o.logps = lambda x: -0.5 * (np.log(2 * np.pi) + 2. * logsd + (x - mean) ** 2 / tf.exp(2. * logsd))
        o.logp = lambda x: flatten_sum(o.logps(x))
        o.get_eps = lambda x: (x - mean) / tf.exp(logsd)
        return o
    class hps:
        depth = 2; width = 8; n_levels = 2; flow_permutation = 2; flow_coupling = 1; n_bits_x = 5
    def f(name, h, width, n_out=None):
        n_out = n_out or int(h.get_shape()[3])
        with tf.variable_scope(name):
            h = tf.nn.relu(conv2d("l_1", h, width))
            h = tf.nn.relu(conv2d("l_2", h, width, filter_size=[1, 1]))
            h = conv2d_zeros("l_last", h, n_out)
        return h
    @add_arg_scope
    def invertible_1x1_conv(name, z, logdet, reverse=False):
        with tf.variable_scope(name):
            shape = int_shape(z)
            w_shape = [shape[3], shape[3]]
            w_init = np.linalg.qr(np.random.randn(*w_shape))[0].astype('float32')
            w = tf.get_variable("W", dtype=tf.float32, initializer=w_init)
            dlogdet = tf.cast(tf.log(abs(tf.matrix_determinant(tf.cast(w, 'float64')))), 'float32') * shape[1] * shape[2]
            if not reverse:
                _w = tf.reshape(w, [1, 1] + w_shape)
                z = tf.nn.conv2d(z, _w, [1, 1, 1, 1], 'SAME', data_format='NHWC')
                logdet += dlogdet
                return z, logdet
            else:
                _w = tf.matrix_inverse(w)
                _w = tf.reshape(_w, [1, 1] + w_shape)
                z = tf.nn.conv2d(z, _w, [1, 1, 1, 1], 'SAME', data_format='NHWC')
                logdet -= dlogdet
                return z, logdet
    def checkpoint(z, logdet):
        zshape = int_shape(z)
        z = tf.reshape(z, [-1, zshape[1] * zshape[2] * zshape[3]])
        logdet = tf.reshape(logdet, [-1, 1])
        combined = tf.concat([z, logdet], axis=1)
        tf.add_to_collection('checkpoints', combined)
        logdet = combined[:, -1]
        z = tf.reshape(combined[:, :-1], [-1, zshape[1], zshape[2], zshape[3]])
        return z, logdet
    @add_arg_scope
    def revnet2d(name, z, logdet, hps, reverse=False):
        with tf.variable_scope(name):
            if not reverse:
                for i in range(hps.depth):
                    z, logdet = checkpoint(z, logdet)
                    z, logdet = revnet2d_step(str(i), z, logdet, hps, reverse)
                z, logdet = checkpoint(z, logdet)
            else:
                for i in reversed(range(hps.depth)):
                    z, logdet = revnet2d_step(str(i), z, logdet, hps, reverse)
        return z, logdet
    @add_arg_scope
    def revnet2d_step(name, z, logdet, hps, reverse):
        with tf.variable_scope(name):
            shape = int_shape(z)
            n_z = shape[3]
            if not reverse:
                z, logdet = actnorm("actnorm", z, logdet=logdet)
                if hps.flow_permutation == 0:
                    z = reverse_features("reverse", z)
                elif hps.flow_permutation == 1:
                    z = shuffle_features("shuffle", z)
                elif hps.flow_permutation == 2:
                    z, logdet = invertible_1x1_conv("invconv", z, logdet)
                z1 = z[:, :, :, :n_z // 2]
                z2 = z[:, :, :, n_z // 2:]
                if hps.flow_coupling == 0:
                    z2 += f("f1", z1, hps.width)
                elif hps.flow_coupling == 1:
                    h = f("f1", z1, hps.width, n_z)
                    shift = h[:, :, :, 0::2]
                    scale = tf.nn.sigmoid(h[:, :, :, 1::2] + 2.)
                    z2 += shift
                    z2 *= scale
                    logdet += tf.reduce_sum(tf.log(scale), axis=[1, 2, 3])
                z = tf.concat([z1, z2], 3)
            else:
                z1 = z[:, :, :, :n_z // 2]
                z2 = z[:, :, :, n_z // 2:]
                if hps.flow_coupling == 0:
                    z2 -= f("f1", z1, hps.width)
                elif hps.flow_coupling == 1:
                    h = f("f1", z1, hps.width, n_z)
                    shift = h[:, :, :, 0::2]
                    scale = tf.nn.sigmoid(h[:, :, :, 1::2] + 2.)
                    z2 /= scale
                    z2 -= shift
                    logdet -= tf.reduce_sum(tf.log(scale), axis=[1, 2, 3])
                z = tf.concat([z1, z2], 3)
                if hps.flow_permutation == 0:
                    z = reverse_features("reverse", z, reverse=True)
                elif hps.flow_permutation == 1:
                    z = shuffle_features("shuffle", z, reverse=True)
                elif hps.flow_permutation == 2:
                    z, logdet = invertible_1x1_conv("invconv", z, logdet, reverse=True)
                z, logdet = actnorm("actnorm", z, logdet=logdet, reverse=True)
        return z, logdet
    @add_arg_scope
    def split2d_prior(z):
        n_z2 = int(z.get_shape()[3])
        h = conv2d_zeros("conv", z, 2 * n_z2)
        return gaussian_diag(h[:, :, :, 0::2], h[:, :, :, 1::2])
    @add_arg_scope
    def split2d(name, z, objective=0.):
        with tf.variable_scope(name):
            n_z = int_shape(z)[3]
            z1 = z[:, :, :, :n_z // 2]
            z2 = z[:, :, :, n_z // 2:]
            pz = split2d_prior(z1)
            objective += pz.logp(z2)
            z1 = squeeze2d(z1)
            return z1, objective
    @add_arg_scope
    def split2d_reverse(name, z, eps_std=None):
        with tf.variable_scope(name):
            z1 = unsqueeze2d(z)
            pz = split2d_prior(z1)
            z2 = pz.sample
            if eps_std is not None:
                z2 = pz.sample2(pz.eps * tf.reshape(eps_std, [-1, 1, 1, 1]))
            return tf.concat([z1, z2], 3)
    def encoder(z, objective):
        eps = []
        for i in range(hps.n_levels):
            z, objective = revnet2d(str(i), z, objective, hps)
            if i < hps.n_levels - 1:
                z, objective = split2d("pool" + str(i), z, objective=objective)
        return z, objective
    def decoder(z, eps_std=None):
        for i in reversed(range(hps.n_levels)):
            if i < hps.n_levels - 1:
                z = split2d_reverse("pool" + str(i), z, eps_std=eps_std)
            z, _ = revnet2d(str(i), z, tf.zeros_like(z[:, 0, 0, 0]), hps, reverse=True)
        return z
    n_bins = 2. ** hps.n_bits_x
    def model(x, init):
        with arg_scope([get_variable_ddi, actnorm], init=init):
            with tf.variable_scope('model', reuse=tf.AUTO_REUSE):
                x = tf.cast(x, 'float32') / n_bins - .5
                objective = tf.zeros_like(x, dtype='float32')[:, 0, 0, 0]
                z = x + tf.random_uniform(tf.shape(x), 0, 1. / n_bins)
                objective += - np.log(n_bins) * np.prod(int_shape(z)[1:])
                z = squeeze2d(z, 2)
                z, objective = encoder(z, objective)
                prior = gaussian_diag(tf.zeros_like(z), tf.zeros_like(z))
                objective += prior.logp(z)
                nobj = - objective
                bits_x = nobj / (np.log(2.) * int(x.get_shape()[1]) * int(x.get_shape()[2]) * int(x.get_shape()[3]))
                return tf.reduce_mean(bits_x), z
    X = tf.placeholder(tf.int32, [4, 8, 8, 3], name='image')
    loss_init, _ = model(X, True)
    loss, z_enc = model(X, False)
    print(loss_init, loss, z_enc)
    print(len(tf.get_collection('checkpoints')), [v.name for v in tf.trainable_variables()][:8])
    print(len(tf.trainable_variables()), len(tf.global_variables()))
    with tf.variable_scope('model', reuse=True):
        x_rec = decoder(z_enc)
        x_rec = unsqueeze2d(x_rec, 2)
    train_op = tf.train.AdamOptimizer(0.001, beta1=.9, beta2=.999).minimize(loss)
    data = np.random.randint(0, 32, (3, 4, 8, 8, 3))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    print('init loss %.5f' % sess.run(loss_init, {X: data[0]}))
    print(np.round(sess.run('model/0/0/actnorm_center/b:0').ravel(), 4).tolist())
    for it in range(3):
        l, _ = sess.run([loss, train_op], {X: data[it]})
        print(it, '%.5f' % l)
    print('invertible', np.abs(sess.run(x_rec, {X: data[0]})).shape)
    sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["glow"], 0)


def test_bilm(capsys):
    # allenai/bilm-tf bilm/training.py (char CNN, highway, LSTMCell with projection and clipping, sampled softmax, 2 towers averaged, Adagrad)
    # allenai/bilm-tf bilm/training.py (LanguageModel char CNN + highway + projection LSTM, sampled softmax, tower averaging, Adagrad), sizes shrunk
    import pprint, tempfile
    DTYPE = 'float32'
    DTYPE_INT = 'int64'
    def print_variable_summary():
        variables = sorted([[v.name, v.get_shape()] for v in tf.global_variables()])
        pprint.pprint(variables)
    class LanguageModel(object):
        def __init__(self, options, is_training):
            self.options = options
            self.is_training = is_training
            self.bidirectional = options.get('bidirectional', False)
            self.char_inputs = 'char_cnn' in self.options
            self.share_embedding_softmax = options.get('share_embedding_softmax', False)
            self.sample_softmax = options.get('sample_softmax', True)
            self._build()
        def _build_word_char_embeddings(self):
            batch_size = self.options['batch_size']
            unroll_steps = self.options['unroll_steps']
            projection_dim = self.options['lstm']['projection_dim']
            cnn_options = self.options['char_cnn']
            filters = cnn_options['filters']
            n_filters = sum(f[1] for f in filters)
            max_chars = cnn_options['max_characters_per_token']
            char_embed_dim = cnn_options['embedding']['dim']
            n_chars = cnn_options['n_characters']
            activation = tf.nn.tanh if cnn_options['activation'] == 'tanh' else tf.nn.relu
            self.tokens_characters = tf.placeholder(DTYPE_INT, shape=(batch_size, unroll_steps, max_chars), name='tokens_characters')
            with tf.device("/cpu:0"):
                self.embedding_weights = tf.get_variable("char_embed", [n_chars, char_embed_dim], dtype=DTYPE,
                                                         initializer=tf.random_uniform_initializer(-1.0, 1.0))
                self.char_embedding = tf.nn.embedding_lookup(self.embedding_weights, self.tokens_characters)
                if self.bidirectional:
                    self.tokens_characters_reverse = tf.placeholder(DTYPE_INT, shape=(batch_size, unroll_steps, max_chars), name='tokens_characters_reverse')
                    self.char_embedding_reverse = tf.nn.embedding_lookup(self.embedding_weights, self.tokens_characters_reverse)
            def make_convolutions(inp, reuse):
                with tf.variable_scope('CNN', reuse=reuse) as scope:
                    convolutions = []
                    for i, (width, num) in enumerate(filters):
                        if cnn_options['activation'] == 'relu':
                            w_init = tf.random_uniform_initializer(minval=-0.05, maxval=0.05)
                        elif cnn_options['activation'] == 'tanh':
                            w_init = tf.random_normal_initializer(mean=0.0, stddev=np.sqrt(1.0 / (width * char_embed_dim)))
                        w = tf.get_variable("W_cnn_%s" % i, [1, width, char_embed_dim, num], initializer=w_init, dtype=DTYPE)
                        b = tf.get_variable("b_cnn_%s" % i, [num], dtype=DTYPE, initializer=tf.constant_initializer(0.0))
                        conv = tf.nn.conv2d(inp, w, strides=[1, 1, 1, 1], padding="VALID") + b
                        conv = tf.nn.max_pool(conv, [1, 1, max_chars - width + 1, 1], [1, 1, 1, 1], 'VALID')
                        conv = activation(conv)
                        conv = tf.squeeze(conv, squeeze_dims=[2])
                        convolutions.append(conv)
                return tf.concat(convolutions, 2)
            reuse = tf.get_variable_scope().reuse
            embedding = make_convolutions(self.char_embedding, reuse)
            self.token_embedding_layers = [embedding]
            if self.bidirectional:
                embedding_reverse = make_convolutions(self.char_embedding_reverse, True)
            n_highway = cnn_options.get('n_highway')
            use_highway = n_highway is not None and n_highway > 0
            use_proj = n_filters != projection_dim
            if use_highway or use_proj:
                embedding = tf.reshape(embedding, [-1, n_filters])
                if self.bidirectional:
                    embedding_reverse = tf.reshape(embedding_reverse, [-1, n_filters])
            if use_proj:
                with tf.variable_scope('CNN_proj') as scope:
                    W_proj_cnn = tf.get_variable("W_proj", [n_filters, projection_dim],
                                                 initializer=tf.random_normal_initializer(mean=0.0, stddev=np.sqrt(1.0 / n_filters)), dtype=DTYPE)
                    b_proj_cnn = tf.get_variable("b_proj", [projection_dim], initializer=tf.constant_initializer(0.0), dtype=DTYPE)
            def high(x, ww_carry, bb_carry, ww_tr, bb_tr):
                carry_gate = tf.nn.sigmoid(tf.matmul(x, ww_carry) + bb_carry)
                transform_gate = tf.nn.relu(tf.matmul(x, ww_tr) + bb_tr)
                return carry_gate * transform_gate + (1.0 - carry_gate) * x
            if use_highway:
                highway_dim = n_filters
                for i in range(n_highway):
                    with tf.variable_scope('CNN_high_%s' % i) as scope:
                        W_carry = tf.get_variable('W_carry', [highway_dim, highway_dim], initializer=tf.random_normal_initializer(mean=0.0, stddev=np.sqrt(1.0 / highway_dim)), dtype=DTYPE)
                        b_carry = tf.get_variable('b_carry', [highway_dim], initializer=tf.constant_initializer(-2.0), dtype=DTYPE)
                        W_transform = tf.get_variable('W_transform', [highway_dim, highway_dim], initializer=tf.random_normal_initializer(mean=0.0, stddev=np.sqrt(1.0 / highway_dim)), dtype=DTYPE)
                        b_transform = tf.get_variable('b_transform', [highway_dim], initializer=tf.constant_initializer(0.0), dtype=DTYPE)
                    embedding = high(embedding, W_carry, b_carry, W_transform, b_transform)
                    if self.bidirectional:
                        embedding_reverse = high(embedding_reverse, W_carry, b_carry, W_transform, b_transform)
                    self.token_embedding_layers.append(tf.reshape(embedding, [batch_size, unroll_steps, highway_dim]))
            if use_proj:
                embedding = tf.matmul(embedding, W_proj_cnn) + b_proj_cnn
                if self.bidirectional:
                    embedding_reverse = tf.matmul(embedding_reverse, W_proj_cnn) + b_proj_cnn
                self.token_embedding_layers.append(tf.reshape(embedding, [batch_size, unroll_steps, projection_dim]))
            if use_highway or use_proj:
                shp = [batch_size, unroll_steps, projection_dim]
                embedding = tf.reshape(embedding, shp)
                if self.bidirectional:
                    embedding_reverse = tf.reshape(embedding_reverse, shp)
            self.embedding = embedding
            if self.bidirectional:
                self.embedding_reverse = embedding_reverse
        def _build(self):
            batch_size = self.options['batch_size']
            lstm_dim = self.options['lstm']['dim']
            projection_dim = self.options['lstm']['projection_dim']
            n_lstm_layers = self.options['lstm'].get('n_layers', 1)
            keep_prob = 1.0 - self.options['dropout']
            self._build_word_char_embeddings()
            self.init_lstm_state = []
            self.final_lstm_state = []
            lstm_inputs = [self.embedding, self.embedding_reverse] if self.bidirectional else [self.embedding]
            cell_clip = self.options['lstm'].get('cell_clip')
            proj_clip = self.options['lstm'].get('proj_clip')
            use_skip_connections = self.options['lstm'].get('use_skip_connections')
            if use_skip_connections:
                print("USING SKIP CONNECTIONS")
            lstm_outputs = []
            for lstm_num, lstm_input in enumerate(lstm_inputs):
                lstm_cells = []
                for i in range(n_lstm_layers):
                    if projection_dim < lstm_dim:
                        lstm_cell = tf.nn.rnn_cell.LSTMCell(lstm_dim, num_proj=projection_dim, cell_clip=cell_clip, proj_clip=proj_clip)
                    else:
                        lstm_cell = tf.nn.rnn_cell.LSTMCell(lstm_dim, cell_clip=cell_clip, proj_clip=proj_clip)
                    if use_skip_connections and i > 0:
                        lstm_cell = tf.nn.rnn_cell.ResidualWrapper(lstm_cell)
                    if self.is_training:
                        lstm_cell = tf.nn.rnn_cell.DropoutWrapper(lstm_cell, input_keep_prob=keep_prob)
                    lstm_cells.append(lstm_cell)
                lstm_cell = tf.nn.rnn_cell.MultiRNNCell(lstm_cells) if n_lstm_layers > 1 else lstm_cells[0]
                with tf.control_dependencies([lstm_input]):
                    self.init_lstm_state.append(lstm_cell.zero_state(batch_size, DTYPE))
                    with tf.variable_scope('RNN_%s' % lstm_num):
                        _lstm_output_unpacked, final_state = tf.nn.static_rnn(lstm_cell, tf.unstack(lstm_input, axis=1), initial_state=self.init_lstm_state[-1])
                    self.final_lstm_state.append(final_state)
                lstm_output_flat = tf.reshape(tf.stack(_lstm_output_unpacked, axis=1), [-1, projection_dim])
                if self.is_training:
                    lstm_output_flat = tf.nn.dropout(lstm_output_flat, keep_prob)
                tf.add_to_collection('lstm_output_embeddings', _lstm_output_unpacked)
                lstm_outputs.append(lstm_output_flat)
            self._build_loss(lstm_outputs)
        def _build_loss(self, lstm_outputs):
            batch_size = self.options['batch_size']; unroll_steps = self.options['unroll_steps']
            n_tokens_vocab = self.options['n_tokens_vocab']
            def _get_next_token_placeholders(suffix):
                return tf.placeholder(DTYPE_INT, shape=(batch_size, unroll_steps), name='next_token_id' + suffix)
            self.next_token_id = _get_next_token_placeholders('')
            if self.bidirectional:
                self.next_token_id_reverse = _get_next_token_placeholders('_reverse')
            softmax_dim = self.options['lstm']['projection_dim']
            with tf.variable_scope('softmax'), tf.device(lambda op: '' if not self.is_training else '/cpu:0'):
                softmax_init = tf.random_normal_initializer(0.0, 1.0 / np.sqrt(softmax_dim))
                self.softmax_W = tf.get_variable('W', [n_tokens_vocab, softmax_dim], dtype=DTYPE, initializer=softmax_init)
                self.softmax_b = tf.get_variable('b', [n_tokens_vocab], dtype=DTYPE, initializer=tf.constant_initializer(0.0))
            self.individual_losses = []
            next_ids = [self.next_token_id, self.next_token_id_reverse] if self.bidirectional else [self.next_token_id]
            for id_placeholder, lstm_output_flat in zip(next_ids, lstm_outputs):
                next_token_id_flat = tf.reshape(id_placeholder, [-1, 1])
                with tf.control_dependencies([lstm_output_flat]):
                    if self.is_training and self.sample_softmax:
                        losses = tf.nn.sampled_softmax_loss(self.softmax_W, self.softmax_b, next_token_id_flat, lstm_output_flat,
                                                            self.options['n_negative_samples_batch'], self.options['n_tokens_vocab'], num_true=1)
                    else:
                        output_scores = tf.transpose(tf.matmul(self.softmax_W, tf.transpose(lstm_output_flat))) + self.softmax_b
                        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(logits=output_scores, labels=tf.squeeze(next_token_id_flat, squeeze_dims=[1]))
                self.individual_losses.append(tf.reduce_mean(losses))
            if self.bidirectional:
                self.total_loss = 0.5 * (self.individual_losses[0] + self.individual_losses[1])
            else:
                self.total_loss = self.individual_losses[0]
    def _deduplicate_indexed_slices(values, indices):
        unique_indices, new_index_positions = tf.unique(indices)
        summed_values = tf.unsorted_segment_sum(values, new_index_positions, tf.shape(unique_indices)[0])
        return (summed_values, unique_indices)
    def average_gradients(tower_grads, batch_size, options):
        average_grads = []
        for grad_and_vars in zip(*tower_grads):
            g0, v0 = grad_and_vars[0]
            if g0 is None:
                average_grads.append((g0, v0))
                continue
            if isinstance(g0, tf.IndexedSlices):
                indices = []; values = []
                for g, v in grad_and_vars:
                    indices.append(g.indices); values.append(g.values)
                all_indices = tf.concat(indices, 0)
                avg_values = tf.concat(values, 0) / len(grad_and_vars)
                av, ai = _deduplicate_indexed_slices(avg_values, all_indices)
                grad = tf.IndexedSlices(av, ai, dense_shape=g0.dense_shape)
            else:
                grads = []
                for g, v in grad_and_vars:
                    grads.append(tf.expand_dims(g, 0))
                grad = tf.reduce_mean(tf.concat(grads, 0), 0)
            average_grads.append((grad, grad_and_vars[0][1]))
        return average_grads
    def clip_by_global_norm_summary(t_list, clip_norm, norm_name, variables):
        clipped, norm = tf.clip_by_global_norm(t_list, clip_norm)
        summary_ops = [tf.summary.scalar(norm_name, norm)]
        for ns, v in zip(clipped, variables):
            r = tf.sqrt(tf.reduce_sum(tf.square(ns)))
            summary_ops.append(tf.summary.scalar(v.name.replace(":", "_") + '/norm', r))
        return clipped, norm, summary_ops
    def clip_grads(grads, options, do_summaries, global_step):
        grad_tensors = [g for g, v in grads]
        vv = [v for g, v in grads]
        scaled_val = options['all_clip_norm_val']
        clipped_tensors, g_norm, so = clip_by_global_norm_summary(grad_tensors, scaled_val, 'norm_grad', vv)
        return [(clipped_tensors[k], vv[k]) for k in range(len(vv))], so
    options = {'bidirectional': True, 'dropout': 0.1, 'all_clip_norm_val': 10.0, 'n_epochs': 1, 'n_train_tokens': 36,
               'batch_size': 3, 'unroll_steps': 4, 'n_tokens_vocab': 20, 'n_negative_samples_batch': 6,
               'lstm': {'cell_clip': 3, 'dim': 12, 'n_layers': 2, 'proj_clip': 3, 'projection_dim': 6, 'use_skip_connections': True},
               'char_cnn': {'activation': 'relu', 'embedding': {'dim': 4}, 'filters': [[1, 4], [2, 4], [3, 8]],
                            'max_characters_per_token': 7, 'n_characters': 261, 'n_highway': 2}}
    n_gpus = 2
    tf.set_random_seed(1)
    with tf.device('/cpu:0'):
        global_step = tf.get_variable('global_step', [], initializer=tf.constant_initializer(0), trainable=False)
        lr = 0.2
        opt = tf.train.AdagradOptimizer(learning_rate=lr, initial_accumulator_value=1.0)
        tower_grads = []; models = []
        train_perplexity = tf.get_variable('train_perplexity', [], initializer=tf.constant_initializer(0.0), trainable=False)
        norm_summaries = []
        for k in range(n_gpus):
            with tf.device('/gpu:%d' % k):
                with tf.variable_scope('lm', reuse=k > 0):
                    model = LanguageModel(options, True)
                    loss = model.total_loss
                    models.append(model)
                    grads = opt.compute_gradients(loss * options['unroll_steps'], aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
                    tower_grads.append(grads)
                    train_perplexity += loss
        print_variable_summary()
        print([type(g).__name__ for g, v in tower_grads[0]][:4], models[0].final_lstm_state[0][1])
        grads = average_gradients(tower_grads, options['batch_size'], options)
        grads, norm_summary_ops = clip_grads(grads, options, True, global_step)
        norm_summaries.extend(norm_summary_ops)
        train_perplexity = tf.exp(train_perplexity / n_gpus)
        perplexity_summmary = tf.summary.scalar('train_perplexity', train_perplexity)
        histogram_summaries = [tf.summary.histogram('token_embedding', models[0].embedding)]
        lstm_out = tf.get_collection('lstm_output_embeddings')
        histogram_summaries.append(tf.summary.histogram('lstm_embedding_0', lstm_out[0]))
        histogram_summaries.append(tf.summary.histogram('lstm_embedding_1', lstm_out[1]))
        train_op = opt.apply_gradients(grads, global_step=global_step)
        for v in tf.global_variables():
            histogram_summaries.append(tf.summary.histogram(v.name.replace(":", "_"), v))
        saver = tf.train.Saver(tf.global_variables(), max_to_keep=2)
        summary_op = tf.summary.merge([perplexity_summmary] + norm_summaries)
        hist_summary_op = tf.summary.merge(histogram_summaries)
        init = tf.initialize_all_variables()
    print(train_op.name, summary_op, len(norm_summaries))
    rng = np.random.RandomState(0)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        sess.run(init)
        batch_size = options['batch_size']; unroll_steps = options['unroll_steps']
        init_state_tensors = []; final_state_tensors = []
        for model in models:
            init_state_tensors.extend(model.init_lstm_state)
            final_state_tensors.extend(model.final_lstm_state)
        feed_dict = {t: np.zeros([batch_size * n_gpus if False else batch_size, 7], dtype=np.int64) for t in []}
        feed_dict = {}
        for model in models:
            feed_dict[model.tokens_characters] = np.zeros([batch_size, unroll_steps, 7], dtype=np.int32)
            feed_dict[model.tokens_characters_reverse] = np.zeros([batch_size, unroll_steps, 7], dtype=np.int32)
        init_state_values = sess.run(init_state_tensors, feed_dict=feed_dict)
        print(len(init_state_values), [type(s).__name__ for s in init_state_values], init_state_values[0][0].h.shape)
        for batch_no in range(2):
            feed_dict = {t: v for t, v in zip(init_state_tensors, init_state_values)}
            for k, model in enumerate(models):
                X = {'tokens_characters': rng.randint(0, 261, (batch_size, unroll_steps, 7)),
                     'tokens_characters_reverse': rng.randint(0, 261, (batch_size, unroll_steps, 7)),
                     'next_token_id': rng.randint(0, 20, (batch_size, unroll_steps)),
                     'next_token_id_reverse': rng.randint(0, 20, (batch_size, unroll_steps))}
                feed_dict[model.tokens_characters] = X['tokens_characters']
                feed_dict[model.tokens_characters_reverse] = X['tokens_characters_reverse']
                feed_dict[model.next_token_id] = X['next_token_id']
                feed_dict[model.next_token_id_reverse] = X['next_token_id_reverse']
            ret = sess.run([train_op, summary_op, train_perplexity] + final_state_tensors, feed_dict=feed_dict)
            init_state_values = ret[3:]
            print("Batch %s, train_perplexity=%.4f" % (batch_no + 1, ret[2]), len(ret[1]) > 0)
        print(sess.run(global_step), len(sess.run(hist_summary_op, feed_dict)) > 0)
        print(saver.save(sess, tempfile.mkdtemp() + '/model.ckpt', global_step=global_step).endswith('model.ckpt-2'))
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["bilm"], 0)


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "glow": [
        'Creating pad 1_1_6_6',
        'Creating pad 1_1_4_4',
        'Tensor("model/Mean:0", shape=(), dtype=float32) Tensor("model_1/Mean:0", shape=(), dtype=float32) Tensor("model_1/1/Reshape_8:0", shape=(4, 2, 2, 24), dtype=float32)',
        "12 ['model/0/0/actnorm_center/b:0', 'model/0/0/actnorm_scale/logs:0', 'model/0/0/invconv/W:0', 'model/0/0/f1/l_1/W:0', 'model/0/0/f1/l_1/actnorm_center/b:0', 'model/0/0/f1/l_1/actnorm_scale/logs:0', 'model/0/0/f1/l_2/W:0', 'model/0/0/f1/l_2/actnorm_center/b:0']",
        '51 51',
        'init loss 5.16554',
        '[-0.014600000344216824, -0.0003000000142492354, -0.02979999966919422, 0.015599999576807022, 0.002199999988079071, 0.03869999945163727, 0.01590000092983246, 0.030400000512599945, -0.006300000008195639, -0.035999998450279236, -0.06539999693632126, -0.040300000458955765]',
        '0 5.16627',
        '1 5.39516',
        '2 5.35779',
        'invertible (4, 8, 8, 3)',
    ],
    "bilm": [
        'USING SKIP CONNECTIONS',
        'USING SKIP CONNECTIONS',
        "[['global_step:0', TensorShape([])],",
        " ['lm/CNN/W_cnn_0:0',",
        '  TensorShape([Dimension(1), Dimension(1), Dimension(4), Dimension(4)])],',
        " ['lm/CNN/W_cnn_1:0',",
        '  TensorShape([Dimension(1), Dimension(2), Dimension(4), Dimension(4)])],',
        " ['lm/CNN/W_cnn_2:0',",
        '  TensorShape([Dimension(1), Dimension(3), Dimension(4), Dimension(8)])],',
        " ['lm/CNN/b_cnn_0:0', TensorShape([Dimension(4)])],",
        " ['lm/CNN/b_cnn_1:0', TensorShape([Dimension(4)])],",
        " ['lm/CNN/b_cnn_2:0', TensorShape([Dimension(8)])],",
        " ['lm/CNN_high_0/W_carry:0', TensorShape([Dimension(16), Dimension(16)])],",
        " ['lm/CNN_high_0/W_transform:0', TensorShape([Dimension(16), Dimension(16)])],",
        " ['lm/CNN_high_0/b_carry:0', TensorShape([Dimension(16)])],",
        " ['lm/CNN_high_0/b_transform:0', TensorShape([Dimension(16)])],",
        " ['lm/CNN_high_1/W_carry:0', TensorShape([Dimension(16), Dimension(16)])],",
        " ['lm/CNN_high_1/W_transform:0', TensorShape([Dimension(16), Dimension(16)])],",
        " ['lm/CNN_high_1/b_carry:0', TensorShape([Dimension(16)])],",
        " ['lm/CNN_high_1/b_transform:0', TensorShape([Dimension(16)])],",
        " ['lm/CNN_proj/W_proj:0', TensorShape([Dimension(16), Dimension(6)])],",
        " ['lm/CNN_proj/b_proj:0', TensorShape([Dimension(6)])],",
        " ['lm/RNN_0/rnn/multi_rnn_cell/cell_0/lstm_cell/bias:0',",
        '  TensorShape([Dimension(48)])],',
        " ['lm/RNN_0/rnn/multi_rnn_cell/cell_0/lstm_cell/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(48)])],',
        " ['lm/RNN_0/rnn/multi_rnn_cell/cell_0/lstm_cell/projection/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(6)])],',
        " ['lm/RNN_0/rnn/multi_rnn_cell/cell_1/lstm_cell/bias:0',",
        '  TensorShape([Dimension(48)])],',
        " ['lm/RNN_0/rnn/multi_rnn_cell/cell_1/lstm_cell/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(48)])],',
        " ['lm/RNN_0/rnn/multi_rnn_cell/cell_1/lstm_cell/projection/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(6)])],',
        " ['lm/RNN_1/rnn/multi_rnn_cell/cell_0/lstm_cell/bias:0',",
        '  TensorShape([Dimension(48)])],',
        " ['lm/RNN_1/rnn/multi_rnn_cell/cell_0/lstm_cell/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(48)])],',
        " ['lm/RNN_1/rnn/multi_rnn_cell/cell_0/lstm_cell/projection/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(6)])],',
        " ['lm/RNN_1/rnn/multi_rnn_cell/cell_1/lstm_cell/bias:0',",
        '  TensorShape([Dimension(48)])],',
        " ['lm/RNN_1/rnn/multi_rnn_cell/cell_1/lstm_cell/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(48)])],',
        " ['lm/RNN_1/rnn/multi_rnn_cell/cell_1/lstm_cell/projection/kernel:0',",
        '  TensorShape([Dimension(12), Dimension(6)])],',
        " ['lm/char_embed:0', TensorShape([Dimension(261), Dimension(4)])],",
        " ['lm/softmax/W:0', TensorShape([Dimension(20), Dimension(6)])],",
        " ['lm/softmax/b:0', TensorShape([Dimension(20)])],",
        " ['train_perplexity:0', TensorShape([])]]",
        "['IndexedSlices', 'Tensor', 'Tensor', 'Tensor'] LSTMStateTuple(c=<tf.Tensor 'lm/RNN_0/rnn/rnn/multi_rnn_cell/cell_1/lstm_cell/clip_by_value_6:0' shape=(3, 12) dtype=float32>, h=<tf.Tensor 'lm/RNN_0/rnn/rnn/multi_rnn_cell/cell_1/lstm_cell/clip_by_value_7:0' shape=(3, 6) dtype=float32>)",
        'Adagrad Tensor("Merge/MergeSummary:0", shape=(), dtype=string, device=/device:CPU:0) 32',
        "4 ['tuple', 'tuple', 'tuple', 'tuple'] (3, 6)",
        'Batch 1, train_perplexity=6.4310 True',
        'Batch 2, train_perplexity=5.2911 True',
        '2.0 True',
        'True',
    ],
}
