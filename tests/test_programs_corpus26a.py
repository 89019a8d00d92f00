"""Public TF 1.x vision and generative programs (GANs, spatial transformers, capsules, VAEs,
style transfer, U-Nets, ResNets), reduced to small synthetic data and run as TF 1.15 ran them;
each test names the repository and file it comes from. Expected values were measured with
TF 1.15.0 (CPU) running the same reduced program."""

from collections import OrderedDict

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_fetched_twin_keeps_its_name_for_add_n_order():
    # TF's grappler does not merge a fetched node with its twin (DedupComputations preserves
    # fetches), so an AddN over the twins sums them in the twins' own name order: mul_10,
    # mul_11, mul_8, mul_9 (TF 1.15's bits); merging first sorted them as mul_4..mul_7
    rng = np.random.RandomState(5)
    vals = [(rng.randn(64) * 10.0 ** rng.randint(-3, 3, 64)).astype(np.float32)
            for _ in range(4)]
    x = tf.placeholder(tf.float32, [64])
    _ = [x * float(i) for i in range(4)]  # (mul .. mul_3)
    c = [tf.constant(v) for v in vals]
    p = [ci * x for ci in c]
    twins = [ci * x for ci in c]
    assert [t.op.name for t in twins] == ["mul_8", "mul_9", "mul_10", "mul_11"]
    s = tf.add_n(twins)
    with tf.Session() as sess:
        out = sess.run(p + [s], {x: np.full(64, 1.37, np.float32)})
        alone = sess.run(s, {x: np.full(64, 1.37, np.float32)})
    by_name = ((out[2] + out[3]) + out[0]) + out[1]
    np.testing.assert_array_equal(out[-1], by_name)
    np.testing.assert_array_equal(alone, by_name)
    assert out[-1].view(np.uint32)[:8].tolist() == [  # (TF 1.15's bits)
        1128013611, 1085750125, 1107637597, 1099904384, 3199373161, 3219367748, 3234545795,
        3256579887]


# --- kevinzakka/spatial-transformer-network: stn/transformer.py ------------------------------

def _stn(input_fmap, theta, out_dims=None):
    B = tf.shape(input_fmap)[0]
    H = tf.shape(input_fmap)[1]
    W = tf.shape(input_fmap)[2]
    theta = tf.reshape(theta, [B, 2, 3])
    if out_dims:
        batch_grids = _affine_grid(out_dims[0], out_dims[1], theta)
    else:
        batch_grids = _affine_grid(H, W, theta)
    x_s = batch_grids[:, 0, :, :]
    y_s = batch_grids[:, 1, :, :]
    return _bilinear(input_fmap, x_s, y_s)

def _pixels(img, x, y):
    shape = tf.shape(x)
    batch_size = shape[0]
    height = shape[1]
    width = shape[2]
    batch_idx = tf.range(0, batch_size)
    batch_idx = tf.reshape(batch_idx, (batch_size, 1, 1))
    b = tf.tile(batch_idx, (1, height, width))
    indices = tf.stack([b, y, x], 3)
    return tf.gather_nd(img, indices)

def _affine_grid(height, width, theta):
    num_batch = tf.shape(theta)[0]
    x = tf.linspace(-1.0, 1.0, width)
    y = tf.linspace(-1.0, 1.0, height)
    x_t, y_t = tf.meshgrid(x, y)
    x_t_flat = tf.reshape(x_t, [-1])
    y_t_flat = tf.reshape(y_t, [-1])
    ones = tf.ones_like(x_t_flat)
    sampling_grid = tf.stack([x_t_flat, y_t_flat, ones])
    sampling_grid = tf.expand_dims(sampling_grid, axis=0)
    sampling_grid = tf.tile(sampling_grid, tf.stack([num_batch, 1, 1]))
    theta = tf.cast(theta, 'float32')
    sampling_grid = tf.cast(sampling_grid, 'float32')
    batch_grids = tf.matmul(theta, sampling_grid)
    batch_grids = tf.reshape(batch_grids, [num_batch, 2, height, width])
    return batch_grids

def _bilinear(img, x, y):
    H = tf.shape(img)[1]
    W = tf.shape(img)[2]
    max_y = tf.cast(H - 1, 'int32')
    max_x = tf.cast(W - 1, 'int32')
    zero = tf.zeros([], dtype='int32')
    x = tf.cast(x, 'float32')
    y = tf.cast(y, 'float32')
    x = 0.5 * ((x + 1.0) * tf.cast(max_x-1, 'float32'))
    y = 0.5 * ((y + 1.0) * tf.cast(max_y-1, 'float32'))
    x0 = tf.cast(tf.floor(x), 'int32')
    x1 = x0 + 1
    y0 = tf.cast(tf.floor(y), 'int32')
    y1 = y0 + 1
    x0 = tf.clip_by_value(x0, zero, max_x)
    x1 = tf.clip_by_value(x1, zero, max_x)
    y0 = tf.clip_by_value(y0, zero, max_y)
    y1 = tf.clip_by_value(y1, zero, max_y)
    Ia = _pixels(img, x0, y0)
    Ib = _pixels(img, x0, y1)
    Ic = _pixels(img, x1, y0)
    Id = _pixels(img, x1, y1)
    x0 = tf.cast(x0, 'float32')
    x1 = tf.cast(x1, 'float32')
    y0 = tf.cast(y0, 'float32')
    y1 = tf.cast(y1, 'float32')
    wa = (x1-x) * (y1-y)
    wb = (x1-x) * (y-y0)
    wc = (x-x0) * (y1-y)
    wd = (x-x0) * (y-y0)
    wa = tf.expand_dims(wa, axis=3)
    wb = tf.expand_dims(wb, axis=3)
    wc = tf.expand_dims(wc, axis=3)
    wd = tf.expand_dims(wd, axis=3)
    return tf.add_n([wa*Ia, wb*Ib, wc*Ic, wd*Id])


def test_kevinzakka_spatial_transformer_trains_a_localisation_net():
    tf.set_random_seed(3)
    imgs = np.random.RandomState(0).rand(3, 4, 6, 2).astype(np.float32)
    x = tf.placeholder(tf.float32, [None, 4, 6, 2])
    ident = np.array([[1., 0, 0], [0, 1., 0]]).flatten().astype(np.float32)
    W_loc = tf.Variable(tf.zeros([4 * 6 * 2, 6]), name='W_loc')
    b_loc = tf.Variable(initial_value=ident, name='b_loc')
    theta = tf.nn.tanh(tf.matmul(tf.reshape(x, [-1, 48]), W_loc) + b_loc)
    h = _stn(x, theta)
    h2 = _stn(x, theta, out_dims=(3, 5))
    assert (str(h.shape), str(h2.shape), h.name, h2.name) == (
        "(?, ?, ?, 2)", "(?, 3, 5, 2)", "AddN:0", "AddN_1:0")
    logits = tf.layers.dense(tf.reshape(h, [-1, 48]), 3)
    y = tf.placeholder(tf.int64, [None])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        o, o2 = s.run([h, h2], {x: imgs})
        np.testing.assert_allclose(o[0, :2, :3, 0], [[0.51649, 0.46321, 0.37272],
                                                     [0.39287, 0.19884, 0.14804]], atol=6e-6)
        assert o2.shape == (3, 3, 5, 2) and round(float(o2.sum()), 4) == 43.6482
        losses = [s.run([train, loss], {x: imgs, y: [0, 1, 2]})[1] for _ in range(4)]
        th = s.run(theta, {x: imgs})
    # (TF 1.15's values; the last bits after a step depend on its GEMM's order, see
    # docs/design.md on MatMul)
    np.testing.assert_allclose(losses, [1.3902639150619507, 1.2265149354934692,
                                        1.1864174604415894, 1.060978889465332], rtol=1e-6)
    np.testing.assert_allclose(th[:, 0], [-0.96233, -0.88351, -0.97376], atol=2e-5)


def _k_order(a, b):
    # each output's products added in order along k, one FMA (one rounding) each
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for i in range(a.shape[1]):
        acc = (acc + a64[:, i:i + 1] * b64[i:i + 1]).astype(np.float32)
    return acc


def test_matmul_adds_along_k_in_order_as_tfs_gemm():
    # TF 1.15's float32 MatMul equals _k_order bit for bit for these shapes and all four
    # transpose cases (measured); OpenBLAS's own order differed from k = 32 with a right
    # operand of fewer than 16 columns, or a transposed one
    rng = np.random.RandomState(0)
    a_, b_ = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    prods = {(ta, tb): tf.matmul(a_, b_, transpose_a=ta, transpose_b=tb)
             for ta in (False, True) for tb in (False, True)}
    with tf.Session() as s:
        for m, k, n in [(3, 48, 3), (16, 100, 10), (100, 256, 64), (2, 32, 17), (64, 320, 3)]:
            a = rng.rand(m, k).astype(np.float32)
            b = rng.randn(k, n).astype(np.float32)
            want = _k_order(a, b)
            for (ta, tb), c in prods.items():
                got = s.run(c, {a_: a.T if ta else a, b_: b.T if tb else b})
                np.testing.assert_array_equal(got, want, err_msg=str((m, k, n, ta, tb)))


def test_mlp_trains_to_tfs_bits():
    # a 100-50-30-10 MLP (tf.layers.dense, sparse softmax loss, SGD): TF 1.15's printed losses
    tf.set_random_seed(0)
    rng = np.random.RandomState(0)
    X = rng.rand(64, 100).astype(np.float32)
    Y = rng.randint(0, 10, 64)
    x = tf.placeholder(tf.float32, [None, 100])
    y = tf.placeholder(tf.int64, [None])
    h = tf.layers.dense(x, 50, activation=tf.nn.relu)
    h = tf.layers.dense(h, 30, activation=tf.nn.relu)
    loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 10))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = [float(s.run([train, loss], {x: X, y: Y})[1]) for _ in range(6)]
    assert got == [2.357295513153076, 2.314922332763672, 2.288050413131714,
                   2.2697367668151855, 2.253756284713745, 2.239351749420166]


def test_conv2d_adds_its_patch_products_in_order_as_tf():
    # TF 1.15's Conv2D equals the patch matrix (taps by rows, columns, channels) times the
    # filter with each output's products added in order (measured for all of these); OpenBLAS
    # added 100 and 36 taps otherwise for 8 and 6 output channels
    rng = np.random.RandomState(0)
    x_, w_ = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    with tf.Session() as s:
        for (n, size, cin, kk, cout, st, pad) in [
                (4, 12, 4, 5, 8, 1, 'VALID'), (2, 16, 4, 3, 6, 1, 'SAME'),
                (2, 16, 8, 3, 16, 2, 'SAME'), (2, 8, 40, 1, 10, 1, 'SAME')]:
            x = rng.rand(n, size, size, cin).astype(np.float32)
            w = rng.randn(kk, kk, cin, cout).astype(np.float32)
            y = s.run(tf.nn.conv2d(x_, w_, [1, st, st, 1], pad), {x_: x, w_: w})
            if pad == 'SAME':
                ph = max((-(-size // st) - 1) * st + kk - size, 0)
                x = np.pad(x, [(0, 0), (ph // 2, ph - ph // 2), (ph // 2, ph - ph // 2), (0, 0)])
            oh = (x.shape[1] - kk) // st + 1
            cols = np.stack([x[:, r:r + st * oh:st, c:c + st * oh:st, :]
                             for r in range(kk) for c in range(kk)], axis=3)
            want = _k_order(cols.reshape(n * oh * oh, -1), w.reshape(-1, cout))
            np.testing.assert_array_equal(y.reshape(-1, cout), want)


def test_conv2d_input_gradient_is_tfs_gemm_then_col2im():
    # TF 1.15's Conv2DBackpropInput: the output gradient times the transposed filter (products
    # in order along the output channels), then each patch's columns added into the input
    # gradient patch after patch (measured equal for all of these)
    rng = np.random.RandomState(0)
    with tf.Session() as s:
        for (n, size, cin, kk, cout, st, pad) in [
                (2, 8, 3, 3, 4, 1, 'VALID'), (2, 9, 4, 3, 6, 2, 'SAME'),
                (1, 7, 2, 5, 40, 1, 'VALID'), (2, 8, 16, 3, 8, 1, 'SAME')]:
            x = rng.rand(n, size, size, cin).astype(np.float32)
            w = rng.randn(kk, kk, cin, cout).astype(np.float32)
            y = tf.nn.conv2d(tf.constant(x), tf.constant(w), [1, st, st, 1], pad)
            dy = rng.randn(*y.shape.as_list()).astype(np.float32)
            dx = s.run(tf.nn.conv2d_backprop_input(x.shape, tf.constant(w), tf.constant(dy),
                                                   [1, st, st, 1], pad))
            oh = dy.shape[1]
            ph = max((oh - 1) * st + kk - size, 0) if pad == 'SAME' else 0
            col = _k_order(dy.reshape(-1, cout), w.reshape(-1, cout).T)
            col = col.reshape(n, oh, oh, kk, kk, cin)
            acc = np.zeros((n, size + ph, size + ph, cin), np.float32)
            for i in range(oh):
                for j in range(oh):
                    acc[:, i * st:i * st + kk, j * st:j * st + kk, :] += col[:, i, j]
            np.testing.assert_array_equal(dx, acc[:, ph // 2:ph // 2 + size,
                                                  ph // 2:ph // 2 + size, :])


# --- naturomics/CapsNet-Tensorflow: capsLayer.py, capsNet.py ---------------------------------
# (8 conv1 filters and 2 primary capsule maps: 72 primary capsules; Decoder 16-32-784)

_CAPS = 72


def _squash(vector):
    vec_squared_norm = tf.reduce_sum(tf.square(vector), -2, keep_dims=True)
    scalar_factor = vec_squared_norm / (1 + vec_squared_norm) / tf.sqrt(vec_squared_norm + 1e-9)
    return scalar_factor * vector


def _routing(input, b_IJ, batch_size=2, iter_routing=3):
    W = tf.get_variable('Weight', shape=(1, _CAPS, 10, 8, 16), dtype=tf.float32,
                        initializer=tf.random_normal_initializer(stddev=0.01))
    input = tf.tile(input, [1, 1, 10, 1, 1])
    W = tf.tile(W, [batch_size, 1, 1, 1, 1])
    u_hat = tf.matmul(W, input, transpose_a=True)
    assert u_hat.get_shape() == [batch_size, _CAPS, 10, 16, 1]
    for r_iter in range(iter_routing):
        with tf.variable_scope('iter_' + str(r_iter)):
            c_IJ = tf.nn.softmax(b_IJ, dim=2)
            c_IJ = tf.tile(c_IJ, [batch_size, 1, 1, 1, 1])
            s_J = tf.reduce_sum(tf.multiply(c_IJ, u_hat), axis=1, keep_dims=True)
            v_J = _squash(s_J)
            v_J_tiled = tf.tile(v_J, [1, _CAPS, 1, 1, 1])
            u_produce_v = tf.matmul(u_hat, v_J_tiled, transpose_a=True)
            b_IJ += tf.reduce_sum(u_produce_v, axis=0, keep_dims=True)
    return v_J


def _capsnet(X, labels, batch_size=2):
    epsilon = 1e-9
    labels = tf.constant(labels)
    X = tf.constant(X)
    Y = tf.one_hot(labels, depth=10, axis=1, dtype=tf.float32)
    with tf.variable_scope('Conv1_layer'):
        conv1 = tf.contrib.layers.conv2d(X, num_outputs=8, kernel_size=9, stride=1,
                                         padding='VALID')
    with tf.variable_scope('PrimaryCaps_layer'):
        capsules = []
        for i in range(8):
            with tf.variable_scope('ConvUnit_' + str(i)):
                caps_i = tf.contrib.layers.conv2d(conv1, 2, 9, 2, padding="VALID")
                capsules.append(tf.reshape(caps_i, shape=(batch_size, -1, 1, 1)))
        caps1 = _squash(tf.concat(capsules, axis=2))
    with tf.variable_scope('DigitCaps_layer'):
        inp = tf.reshape(caps1, shape=(batch_size, -1, 1, caps1.shape[-2].value, 1))
        with tf.variable_scope('routing'):
            b_IJ = tf.constant(np.zeros([1, caps1.shape[1].value, 10, 1, 1], dtype=np.float32))
            caps2 = tf.squeeze(_routing(inp, b_IJ), axis=1)
    with tf.variable_scope('Masking'):
        v_length = tf.sqrt(tf.reduce_sum(tf.square(caps2), axis=2, keep_dims=True) + epsilon)
        softmax_v = tf.nn.softmax(v_length, dim=1)
        argmax_idx = tf.to_int32(tf.argmax(softmax_v, axis=1))
        assert argmax_idx.get_shape() == [batch_size, 1, 1]
        argmax_idx = tf.reshape(argmax_idx, shape=(batch_size, ))
        masked_v = []
        for b in range(batch_size):  # (a tensor index into a tensor)
            v = caps2[b][argmax_idx[b], :]
            masked_v.append(tf.reshape(v, shape=(1, 1, 16, 1)))
        masked_v = tf.concat(masked_v, axis=0)
    with tf.variable_scope('Decoder'):
        vector_j = tf.reshape(masked_v, shape=(batch_size, -1))
        fc1 = tf.contrib.layers.fully_connected(vector_j, num_outputs=16)
        fc2 = tf.contrib.layers.fully_connected(fc1, num_outputs=32)
        decoded = tf.contrib.layers.fully_connected(fc2, num_outputs=784,
                                                    activation_fn=tf.sigmoid)
    max_l = tf.reshape(tf.square(tf.maximum(0., 0.9 - v_length)), shape=(batch_size, -1))
    max_r = tf.reshape(tf.square(tf.maximum(0., v_length - 0.1)), shape=(batch_size, -1))
    margin_loss = tf.reduce_mean(tf.reduce_sum(Y * max_l + 0.5 * (1 - Y) * max_r, axis=1))
    reconstruction_err = tf.reduce_mean(tf.square(decoded - tf.reshape(X, (batch_size, -1))))
    total_loss = margin_loss + 0.0005 * reconstruction_err
    summary = tf.summary.merge([
        tf.summary.scalar('train/margin_loss', margin_loss),
        tf.summary.image('reconstruction_img', tf.reshape(decoded, (batch_size, 28, 28, 1)))])
    correct = tf.equal(tf.to_int32(labels), argmax_idx)
    accuracy = tf.reduce_sum(tf.cast(correct, tf.float32))
    return masked_v, total_loss, accuracy, summary


def test_naturomics_capsnet_routes_masks_and_trains():
    tf.set_random_seed(7)
    X = np.random.RandomState(0).rand(2, 28, 28, 1).astype(np.float32)
    masked_v, loss, accuracy, summary = _capsnet(X, np.array([3, 7], np.int32))
    assert masked_v.name == "Masking/concat_2:0" and masked_v.shape.as_list() == [2, 1, 16, 1]
    global_step = tf.Variable(0, name='global_step', trainable=False)
    train_op = tf.train.AdamOptimizer().minimize(loss, global_step=global_step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = [sess.run([train_op, loss, accuracy, summary]) for _ in range(2)]
    # (TF 1.15's printed values, the whole program as its author wrote it)
    assert [float(g[1]) for g in got] == [0.8099849224090576, 0.8099347352981567]
    assert [float(g[2]) for g in got] == [0.0, 1.0]
    s = tf.Summary.FromString(got[0][3])
    assert [(v.tag, v.WhichOneof('value')) for v in s.value] == [
        ('train/margin_loss', 'simple_value'), ('reconstruction_img/image/0', 'image'),
        ('reconstruction_img/image/1', 'image')]


# --- PacktPublishing/Hands-on-Convolutional-Neural-Networks-with-Tensorflow:
# Chapter06/dcgan.py (networks) and Chapter06/gans.py (losses, solvers, variable lists) ------

def test_packt_dcgan_names_collections_and_losses():
    tf.set_random_seed(1)

    def discriminator(x):
        with tf.variable_scope("discriminator"):
            net = tf.reshape(x, shape=[-1, 28, 28, 1])
            net = tf.layers.conv2d(inputs=net, kernel_size=5, strides=1, filters=4,
                                   activation=tf.nn.leaky_relu)
            net = tf.layers.max_pooling2d(inputs=net, pool_size=2, strides=2)
            net = tf.layers.conv2d(inputs=net, kernel_size=5, strides=1, filters=8,
                                   activation=tf.nn.leaky_relu)
            net = tf.layers.max_pooling2d(inputs=net, pool_size=2, strides=2)
            net = tf.layers.dense(inputs=tf.reshape(net, shape=[-1, 128]), units=16,
                                  activation=tf.nn.leaky_relu)
            return tf.layers.dense(inputs=net, units=1)

    def generator(z):
        with tf.variable_scope("generator"):
            net = tf.layers.dense(inputs=z, units=16, activation=tf.nn.relu)
            net = tf.layers.batch_normalization(inputs=net, training=True)
            net = tf.layers.dense(inputs=net, units=7 * 7 * 8, activation=tf.nn.relu)
            net = tf.layers.batch_normalization(inputs=net, training=True)
            net = tf.reshape(net, shape=[-1, 7, 7, 8])
            net = tf.layers.conv2d_transpose(inputs=net, filters=4, kernel_size=4, strides=2,
                                             activation=tf.nn.relu, padding='same')
            net = tf.layers.batch_normalization(inputs=net, training=True)
            net = tf.layers.conv2d_transpose(inputs=net, filters=1, kernel_size=4, strides=2,
                                             activation=tf.nn.tanh, padding='same')
            return tf.reshape(net, shape=[-1, 784])

    x = tf.placeholder(tf.float32, [None, 784])
    d_solver = tf.train.AdamOptimizer(learning_rate=0.001, beta1=0.5)
    g_solver = tf.train.AdamOptimizer(learning_rate=0.001, beta1=0.5)
    sample = generator(tf.random_uniform(maxval=1, minval=-1, shape=[4, 8]))
    with tf.variable_scope("") as scope:
        logits_real = discriminator(x)
        scope.reuse_variables()
        logits_fake = discriminator(sample)
    d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, 'discriminator')
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, 'generator')
    assert [v.name for v in d_vars][:2] == ['discriminator/conv2d/kernel:0',
                                            'discriminator/conv2d/bias:0']
    assert len(d_vars) == 8 and len(g_vars) == 14
    assert g_vars[10].name == 'generator/batch_normalization_2/gamma:0'
    assert (logits_real.name, logits_fake.name, sample.name) == (
        'discriminator/dense_1/BiasAdd:0', 'discriminator_1/dense_1/BiasAdd:0',
        'generator/Reshape_1:0')
    sce = tf.nn.sigmoid_cross_entropy_with_logits
    d_loss = tf.reduce_mean(sce(logits=logits_real, labels=tf.ones_like(logits_real))
                            + sce(logits=logits_fake, labels=tf.zeros_like(logits_fake)))
    g_loss = tf.reduce_mean(sce(logits=logits_fake, labels=tf.ones_like(logits_fake)))
    d_step = d_solver.minimize(d_loss, var_list=d_vars)
    g_step = g_solver.minimize(g_loss, var_list=g_vars)
    assert (d_loss.name, g_loss.name, d_step.name, g_step.name) == ('Mean:0', 'Mean_1:0', 'Adam',
                                                                    'Adam_1')
    assert len(tf.global_variables()) == 76
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 6
    xs = np.random.RandomState(0).rand(4, 784).astype(np.float32) * 2 - 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for _ in range(3):
            got.append(sess.run([d_step, d_loss], {x: xs})[1])
            got.append(sess.run([g_step, g_loss], {x: xs})[1])
    # (TF 1.15's values; batch norm's rsqrt is Eigen's approximate one there, see design.md)
    np.testing.assert_allclose(got, [1.5199099779129028, 0.4718419909477234, 1.4512211084365845,
                                     0.5008759498596191, 1.4712241888046265, 0.5365540981292725],
                               rtol=2e-6)


# --- jakeret/tf_unet: tf_unet/layers.py, tf_unet/unet.py (create_conv_net with layers=2 and
# features_root=4 on 20x20 images; the weighted cross entropy cost with its L2 regularizer,
# the momentum optimizer on an exponentially decayed rate, as Trainer builds them) ---------
def _u_weight_variable(shape, stddev=0.1, name="weight"):
    initial = tf.truncated_normal(shape, stddev=stddev)
    return tf.Variable(initial, name=name)
def _u_weight_variable_devonc(shape, stddev=0.1, name="weight_devonc"):
    return tf.Variable(tf.truncated_normal(shape, stddev=stddev), name=name)
def _u_bias_variable(shape, name="bias"):
    initial = tf.constant(0.1, shape=shape)
    return tf.Variable(initial, name=name)
def _u_conv2d(x, W, b, keep_prob_):
    with tf.name_scope("conv2d"):
        conv_2d = tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='VALID')
        conv_2d_b = tf.nn.bias_add(conv_2d, b)
        return tf.nn.dropout(conv_2d_b, keep_prob_)
def _u_deconv2d(x, W, stride):
    with tf.name_scope("deconv2d"):
        x_shape = tf.shape(x)
        output_shape = tf.stack([x_shape[0], x_shape[1]*2, x_shape[2]*2, x_shape[3]//2])
        return tf.nn.conv2d_transpose(x, W, output_shape, strides=[1, stride, stride, 1], padding='VALID', name="conv2d_transpose")
def _u_max_pool(x,n):
    return tf.nn.max_pool(x, ksize=[1, n, n, 1], strides=[1, n, n, 1], padding='VALID')
def _u_crop_and_concat(x1,x2):
    with tf.name_scope("crop_and_concat"):
        x1_shape = tf.shape(x1)
        x2_shape = tf.shape(x2)
        offsets = [0, (x1_shape[1] - x2_shape[1]) // 2, (x1_shape[2] - x2_shape[2]) // 2, 0]
        size = [-1, x2_shape[1], x2_shape[2], -1]
        x1_crop = tf.slice(x1, offsets, size)
        return tf.concat([x1_crop, x2], 3)
def _u_pixel_wise_softmax(output_map):
    with tf.name_scope("pixel_wise_softmax"):
        max_axis = tf.reduce_max(output_map, axis=3, keepdims=True)
        exponential_map = tf.exp(output_map - max_axis)
        normalize = tf.reduce_sum(exponential_map, axis=3, keepdims=True)
        return exponential_map / normalize
def _u_cross_entropy(y_,output_map):
    return -tf.reduce_mean(y_*tf.log(tf.clip_by_value(output_map,1e-10,1.0)), name="cross_entropy")
def _u_create_conv_net(x, keep_prob, channels, n_class, layers=3, features_root=16, filter_size=3, pool_size=2):
    with tf.name_scope("preprocessing"):
        nx = tf.shape(x)[1]
        ny = tf.shape(x)[2]
        x_image = tf.reshape(x, tf.stack([-1, nx, ny, channels]))
        in_node = x_image
        tf.shape(x_image)[0]  # (the program's batch_size, unused)
    weights = []
    biases = []
    convs = []
    pools = OrderedDict()
    deconv = OrderedDict()
    dw_h_convs = OrderedDict()
    up_h_convs = OrderedDict()
    in_size = 1000
    size = in_size
    for layer in range(layers):
        with tf.name_scope(f"down_conv_{layer}"):
            features = 2 ** layer * features_root
            stddev = np.sqrt(2 / (filter_size ** 2 * features))
            if layer == 0:
                w1 = _u_weight_variable([filter_size, filter_size, channels, features], stddev, name="w1")
            else:
                w1 = _u_weight_variable([filter_size, filter_size, features // 2, features], stddev, name="w1")
            w2 = _u_weight_variable([filter_size, filter_size, features, features], stddev, name="w2")
            b1 = _u_bias_variable([features], name="b1"); b2 = _u_bias_variable([features], name="b2")
            conv1 = _u_conv2d(in_node, w1, b1, keep_prob)
            tmp_h_conv = tf.nn.relu(conv1)
            conv2 = _u_conv2d(tmp_h_conv, w2, b2, keep_prob)
            dw_h_convs[layer] = tf.nn.relu(conv2)
            weights.append((w1, w2))
            biases.append((b1, b2))
            convs.append((conv1, conv2))
            size -= 4
            if layer < layers - 1:
                pools[layer] = _u_max_pool(dw_h_convs[layer], pool_size)
                in_node = pools[layer]
                size /= 2
    in_node = dw_h_convs[layers - 1]
    for layer in range(layers - 2, -1, -1):
        with tf.name_scope(f"up_conv_{layer}"):
            features = 2 ** (layer + 1) * features_root
            stddev = np.sqrt(2 / (filter_size ** 2 * features))
            wd = _u_weight_variable_devonc([pool_size, pool_size, features // 2, features], stddev, name="wd")
            bd = _u_bias_variable([features // 2], name="bd")
            h_deconv = tf.nn.relu(_u_deconv2d(in_node, wd, pool_size) + bd)
            h_deconv_concat = _u_crop_and_concat(dw_h_convs[layer], h_deconv)
            deconv[layer] = h_deconv_concat
            w1 = _u_weight_variable([filter_size, filter_size, features, features // 2], stddev, name="w1")
            w2 = _u_weight_variable([filter_size, filter_size, features // 2, features // 2], stddev, name="w2")
            b1 = _u_bias_variable([features // 2], name="b1"); b2 = _u_bias_variable([features // 2], name="b2")
            conv1 = _u_conv2d(h_deconv_concat, w1, b1, keep_prob)
            h_conv = tf.nn.relu(conv1)
            conv2 = _u_conv2d(h_conv, w2, b2, keep_prob)
            in_node = tf.nn.relu(conv2)
            up_h_convs[layer] = in_node
            weights.append((w1, w2))
            biases.append((b1, b2))
            convs.append((conv1, conv2))
            size *= 2
            size -= 4
    with tf.name_scope("output_map"):
        weight = _u_weight_variable([1, 1, features_root, n_class], stddev)
        bias = _u_bias_variable([n_class], name="bias")
        conv = _u_conv2d(in_node, weight, bias, tf.constant(1.0))
        output_map = tf.nn.relu(conv)
        up_h_convs["out"] = output_map
    with tf.name_scope("summaries"):
        for k in dw_h_convs:
            tf.summary.histogram(f"dw_convolution_{k:02d}/activations", dw_h_convs[k])
    variables = []
    for w1, w2 in weights:
        variables.append(w1)
        variables.append(w2)
    for b1, b2 in biases:
        variables.append(b1)
        variables.append(b2)
    return output_map, variables, int(in_size - size)


def test_jakeret_unet_trains_with_dropout_and_decayed_momentum():
    tf.set_random_seed(5)
    n_class, channels = 2, 1
    x = tf.placeholder("float", shape=[None, None, None, channels], name="x")
    y = tf.placeholder("float", shape=[None, None, None, n_class], name="y")
    keep_prob = tf.placeholder(tf.float32, name="dropout_probability")
    logits, variables, offset = _u_create_conv_net(x, keep_prob, channels, n_class, layers=2,
                                                   features_root=4)
    assert (offset, logits.name) == (16, "output_map/Relu:0")
    assert [v.op.name for v in variables][4:8] == ["up_conv_0/w1", "up_conv_0/w2",
                                                   "down_conv_0/b1", "down_conv_0/b2"]
    with tf.name_scope("cost"):
        flat_logits = tf.reshape(logits, [-1, n_class])
        flat_labels = tf.reshape(y, [-1, n_class])
        class_weights = tf.constant(np.array([0.3, 0.7], dtype=np.float32))
        weight_map = tf.reduce_sum(tf.multiply(flat_labels, class_weights), axis=1)
        loss_map = tf.nn.softmax_cross_entropy_with_logits_v2(logits=flat_logits,
                                                              labels=flat_labels)
        loss = tf.reduce_mean(tf.multiply(loss_map, weight_map))
        regularizers = sum([tf.nn.l2_loss(variable) for variable in variables])
        loss += (0.001 * regularizers)
    cost = loss
    tf.gradients(cost, variables)
    with tf.name_scope("cross_entropy"):
        xent = _u_cross_entropy(tf.reshape(y, [-1, n_class]),
                                tf.reshape(_u_pixel_wise_softmax(logits), [-1, n_class]))
    with tf.name_scope("results"):
        predicter = _u_pixel_wise_softmax(logits)
        correct_pred = tf.equal(tf.argmax(predicter, 3), tf.argmax(y, 3))
        accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
    assert (cost.name, xent.name, accuracy.name, predicter.name) == (
        "cost/add_12:0", "cross_entropy/Neg:0", "results/Mean:0",
        "results/pixel_wise_softmax/truediv:0")
    global_step = tf.Variable(0, name="global_step")
    tf.summary.scalar('loss', cost)
    lr = tf.train.exponential_decay(learning_rate=0.2, global_step=global_step, decay_steps=2,
                                    decay_rate=0.95, staircase=True)
    optimizer = tf.train.MomentumOptimizer(learning_rate=lr, momentum=0.2).minimize(
        cost, global_step=global_step)
    tf.summary.scalar('learning_rate', lr)
    summary_op = tf.summary.merge_all()
    rng = np.random.RandomState(0)
    X = rng.rand(2, 20, 20, 1).astype(np.float32)
    lab = (rng.rand(2, 4, 4) > 0.5)
    Y = np.stack([lab, ~lab], -1).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = [sess.run([optimizer, cost, accuracy, lr, summary_op],
                        {x: X, y: Y, keep_prob: 0.75})[1:4] for _ in range(4)]
        p = sess.run(predicter, {x: X, keep_prob: 1.})
        last = sess.run(xent, {x: X, y: Y, keep_prob: 1.})
    # (TF 1.15's printed values, dropout masks and all)
    assert [float(g[0]) for g in got] == [0.3692012131214142, 0.3657321035861969,
                                         0.3622433841228485, 0.34799763560295105]
    assert [float(g[1]) for g in got] == [0.53125, 0.59375, 0.53125, 0.59375]
    assert [float(g[2]) for g in got] == [0.20000000298023224, 0.20000000298023224,
                                         0.1899999976158142, 0.1899999976158142]
    assert p.shape == (2, 4, 4, 2) and float(last) == 0.34366145730018616


# --- feinuan/Handwritten-Recognition: TensorFlow.py (Deep MNIST for experts, 12x12 inputs,
# 8 and 16 filters, 32 hidden units, an InteractiveSession and Tensor.eval/Operation.run) ----

def test_feinuan_deep_mnist_trains_with_dropout_in_an_interactive_session():
    tf.set_random_seed(0)

    def weight_variable(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias_variable(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    def conv2d(x, W):
        return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')

    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')

    x = tf.placeholder(tf.float32, [None, 144])
    y_ = tf.placeholder(tf.float32, [None, 10])
    x_image = tf.reshape(x, [-1, 12, 12, 1])
    W_conv1 = weight_variable([5, 5, 1, 8])
    b_conv1 = bias_variable([8])
    h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1))
    W_conv2 = weight_variable([5, 5, 8, 16])
    b_conv2 = bias_variable([16])
    h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))
    W_fc1 = weight_variable([3 * 3 * 16, 32])
    b_fc1 = bias_variable([32])
    h_fc1 = tf.nn.relu(tf.matmul(tf.reshape(h_pool2, [-1, 3 * 3 * 16]), W_fc1) + b_fc1)
    keep_prob = tf.placeholder(tf.float32)
    h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)
    W_fc2 = weight_variable([32, 10])
    b_fc2 = bias_variable([10])
    y_conv = tf.nn.softmax(tf.matmul(h_fc1_drop, W_fc2) + b_fc2)
    cross_entropy = -tf.reduce_sum(y_ * tf.log(y_conv))
    train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
    rng = np.random.RandomState(0)
    X = rng.rand(8, 144).astype(np.float32)
    Y = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 8)]
    sess = tf.InteractiveSession()
    try:
        sess.run(tf.global_variables_initializer())
        got = []
        for _ in range(4):
            # (each run draws dropout's uniforms, keep_prob 1 or not: the program's runs kept)
            accuracy.eval(feed_dict={x: X, y_: Y, keep_prob: 1.0})
            got.append(float(cross_entropy.eval(feed_dict={x: X, y_: Y, keep_prob: 1.0})))
            train_step.run(feed_dict={x: X, y_: Y, keep_prob: 0.5})
        acc = accuracy.eval(feed_dict={x: X, y_: Y, keep_prob: 1.0})
        dropped = float(cross_entropy.eval(feed_dict={x: X, y_: Y, keep_prob: 0.5}))
    finally:
        sess.close()
    # (TF 1.15's printed values: the convolutions, their gradients, dropout and Adam agree;
    # an InteractiveSession runs no grappler pass in TF, and the last loss, after four Adam
    # steps through the convolutions' filter gradients, agrees to the last bits only)
    assert got == [18.58626937866211, 18.56513023376465, 18.542083740234375, 18.518325805664062]
    assert f"test accuracy {acc:g}" == "test accuracy 0"
    assert dropped == pytest.approx(19.290172576904297, rel=1e-6)
