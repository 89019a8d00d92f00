"""Regressions found by running TF 1.x vision and generative-model programs against tideflow
(DCGAN, WGAN-GP, VAE, ResNet, U-Net, MobileNet, style transfer, augmentation, detectors)."""

import zlib

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _np_depthwise_same(x, w):
    # x [b, h, w, c], w [kh, kw, c, m], stride 1, 'SAME' -> [b, h, w, c * m]
    kh, kw, c, m = w.shape
    ph, pw = (kh - 1) // 2, (kw - 1) // 2
    xp = np.pad(x, [(0, 0), (ph, kh - 1 - ph), (pw, kw - 1 - pw), (0, 0)])
    b, h, wd, _ = x.shape
    out = np.zeros([b, h, wd, c, m])
    for i in range(kh):
        for j in range(kw):
            out += xp[:, i:i + h, j:j + wd, :, None] * w[i, j]
    return out.reshape(b, h, wd, c * m)


def test_layers_separable_conv2d_creates_depthwise_pointwise_bias_and_convolves():
    # MobileNet/Xception blocks: tf.layers.separable_conv2d was missing from tf.layers
    rng = np.random.RandomState(0)
    x_np = rng.randn(2, 5, 6, 3)
    x = tf.constant(x_np, tf.float64)
    y = tf.layers.separable_conv2d(x, 4, 3, padding="same", depth_multiplier=2,
                                   activation=tf.nn.relu, name="sep")
    names = [(v.op.name, v.shape.as_list()) for v in tf.trainable_variables()]
    assert names == [("sep/depthwise_kernel", [3, 3, 3, 2]), ("sep/pointwise_kernel", [1, 1, 6, 4]),
                     ("sep/bias", [4])]
    assert y.shape.as_list() == [2, 5, 6, 4]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        dw, pw, got = sess.run([tf.trainable_variables()[0], tf.trainable_variables()[1], y])
    want = np.maximum(_np_depthwise_same(x_np, dw) @ pw[0, 0], 0)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_layers_separable_conv1d_strided_shape_and_reuse():
    s = tf.placeholder(tf.float32, [None, 10, 3])
    y = tf.layers.separable_conv1d(s, 4, 3, strides=2, depth_multiplier=3, name="sep1")
    assert y.shape.as_list() == [None, 4, 4]
    y2 = tf.layers.separable_conv1d(s, 4, 3, strides=2, depth_multiplier=3, name="sep1",
                                    reuse=True)
    shapes = [v.shape.as_list() for v in tf.trainable_variables()]
    assert shapes == [[3, 3, 3], [1, 9, 4], [4]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([y, y2], {s: np.ones([2, 10, 3])})
    assert a.shape == (2, 4, 4)
    np.testing.assert_array_equal(a, b)


def test_layers_conv3d_transpose_and_3d_pooling_shapes_match_their_results():
    v = tf.placeholder(tf.float32, [None, 4, 6, 6, 2])
    outs = [tf.layers.conv3d(v, 4, (2, 3, 3), strides=(1, 2, 2), activation=tf.nn.relu),
            tf.layers.conv3d_transpose(v, 3, 3, strides=2, padding="same"),
            tf.layers.conv3d_transpose(v, 3, (2, 3, 3), strides=(1, 2, 2)),
            tf.layers.max_pooling3d(v, 2, 2),
            tf.layers.average_pooling3d(v, (2, 3, 3), 1, padding="same")]
    static = [t.shape.as_list() for t in outs]
    assert static == [[None, 3, 2, 2, 4], [None, 8, 12, 12, 3], [None, 5, 13, 13, 3],
                      [None, 2, 3, 3, 2], [None, 4, 6, 6, 2]]
    names = [w.op.name for w in tf.global_variables()]
    assert names == ["conv3d/kernel", "conv3d/bias", "conv3d_transpose/kernel",
                     "conv3d_transpose/bias", "conv3d_transpose_1/kernel",
                     "conv3d_transpose_1/bias"]
    assert tf.global_variables()[2].shape.as_list() == [3, 3, 3, 3, 2]
    x = np.random.RandomState(1).randn(2, 4, 6, 6, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        vals = sess.run(outs, {v: x})
    for s, val in zip(static, vals):
        assert list(val.shape) == [2] + s[1:]
    np.testing.assert_allclose(vals[3], x.reshape(2, 2, 2, 3, 2, 3, 2, 2).max((2, 4, 6)),
                               rtol=1e-6)


def test_batch_normalization_renorm_corrects_with_pre_update_averages_and_clips():
    # tf.layers.batch_normalization(renorm=True) raised NotImplementedError; values checked
    # against real TF 1.x semantics: y = gamma * (xhat * r + d) + beta with r, d from the
    # renorm averages before this step's update, clipped by renorm_clipping
    x = tf.placeholder(tf.float32, [None, 3, 2])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, training=training, renorm=True, renorm_momentum=0.9,
                                      renorm_clipping={"rmax": 1.5, "dmax": 0.5}, name="r")
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["r/gamma", "r/beta", "r/moving_mean", "r/moving_variance",
                     "r/moving_stddev", "r/renorm_mean", "r/renorm_stddev"]
    assert [v.op.name for v in tf.trainable_variables()] == ["r/gamma", "r/beta"]
    xn = np.random.RandomState(0).randn(4, 3, 2).astype(np.float32) * 3 + 1
    mean, var = xn.reshape(-1, 2).mean(0), xn.reshape(-1, 2).var(0)
    std = np.sqrt(var + 1e-3)
    xhat = (xn - mean) / std
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(y, {x: xn, training: True})
        r, d = np.minimum(std, 1.5), np.clip(mean, -0.5, 0.5)  # renorm mean 0, stddev 1
        np.testing.assert_allclose(got, xhat * r + d, rtol=1e-4, atol=1e-5)
        # all averages move with UPDATE_OPS (the renorm ones by renorm_momentum)
        np.testing.assert_array_equal(sess.run(tf.global_variables()[5]), [0, 0])
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), {x: xn, training: True})
        renorm_mean, renorm_std = sess.run(tf.global_variables()[5:7])
        np.testing.assert_allclose(renorm_mean, 0.1 * mean, rtol=1e-4)
        np.testing.assert_allclose(renorm_std, 0.9 + 0.1 * std, rtol=1e-4)
        mstd, mvar = sess.run([tf.global_variables()[4], tf.global_variables()[3]])
        np.testing.assert_allclose(mstd, 0.99 + 0.01 * std, rtol=1e-5)
        np.testing.assert_allclose(mvar, mstd ** 2 - 1e-3, rtol=1e-5)
        # inference: r = 1, d = 0 and the moving statistics
        got = sess.run(y, {x: xn, training: False})
        np.testing.assert_allclose(got, (xn - 0.01 * mean) / np.sqrt(mvar + 1e-3), rtol=1e-4,
                                   atol=1e-5)


def test_batch_normalization_virtual_batches_normalize_each_ghost_batch():
    # virtual_batch_size raised NotImplementedError; TF splits the batch as
    # reshape([vbs, -1, ...]) so ghost batch j holds the examples i with i % (n / vbs) == j
    x = tf.placeholder(tf.float32, [None, 3, 2])
    training = tf.placeholder(tf.bool, [])  # a dynamic choice: branch shapes differ
    y = tf.layers.batch_normalization(x, training=training, virtual_batch_size=2, name="v")
    assert [v.shape.as_list() for v in tf.global_variables()] == [[1, 1, 1, 2]] * 4
    assert y.shape.as_list() == [None, 3, 2]
    xn = np.random.RandomState(1).randn(4, 3, 2).astype(np.float32) * 2 + 1
    want = np.empty_like(xn)
    means, variances = [], []
    for j in range(2):
        g = xn[j::2]
        m, v = g.reshape(-1, 2).mean(0), g.reshape(-1, 2).var(0)
        want[j::2] = (g - m) / np.sqrt(v + 1e-3)
        means.append(m)
        variances.append(v)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y, {x: xn, training: True}), want, rtol=1e-4,
                                   atol=1e-5)
        sess.run(tf.get_collection(tf.GraphKeys.UPDATE_OPS), {x: xn, training: True})
        moving_mean = sess.run(tf.global_variables()[2])
        np.testing.assert_allclose(moving_mean.ravel(), 0.01 * np.mean(means, 0), rtol=1e-4)
        got = sess.run(y, {x: xn, training: False})
    assert got.shape == (4, 3, 2)
    with pytest.raises(ValueError, match="axis cannot include 0"):
        tf.layers.batch_normalization(x, axis=0, virtual_batch_size=2)


def test_dynamic_training_flag_takes_one_branch_of_a_cond():
    # layers chose between branches with a Select that ran both: a dropout under
    # training=False still drew its random mask, and branches of different shapes failed
    x = tf.ones([1000])
    training = tf.placeholder_with_default(False, [])
    y = tf.layers.dropout(x, rate=0.5, training=training)
    assert any(op.type in ("If", "StatelessIf", "Switch") for op in
               tf.get_default_graph().get_operations())
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), np.ones(1000))
        kept = sess.run(y, {training: True})
    assert set(np.unique(kept)) <= {0.0, 2.0} and 300 < np.count_nonzero(kept) < 700


def test_input_gradients_of_convolutions_keep_the_input_static_shape():
    # saliency maps / Grad-CAM / FGSM: tf.gradients(score, images) through conv2d and
    # depthwise_conv2d was (?, ?, ?, ?); the gradient's sizes come from ShapeN, as in TF
    x = tf.placeholder(tf.float32, [None, 10, 10, 3])
    c = tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), [1, 1, 1, 1], "SAME")
    d = tf.nn.depthwise_conv2d(x, tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], "SAME")
    gc = tf.gradients(tf.reduce_sum(c), x)[0]
    gd = tf.gradients(tf.reduce_sum(d), x)[0]
    assert gc.op.inputs[0].op.type == "ShapeN"
    assert gc.shape.as_list() == [None, 10, 10, 3]
    assert gd.shape.as_list() == [None, 10, 10, 3]
    saliency = tf.reduce_max(tf.abs(gc), axis=3)
    assert saliency.shape.as_list() == [None, 10, 10]
    a, b = tf.shape_n([x, tf.zeros([2, 5])])
    assert tf.reshape(tf.zeros([10]), b).shape.as_list() == [2, 5]
    assert tf.zeros(a).shape.as_list() == [None, 10, 10, 3]
    with tf.Session() as sess:
        assert sess.run(saliency, {x: np.ones([2, 10, 10, 3])}).shape == (2, 10, 10)


def test_draw_bounding_boxes_takes_colors_and_combined_nms_returns_named_fields():
    # detection visualizers pass colors= (TF 1.14+); detectors read .nmsed_boxes
    images = tf.zeros([1, 5, 5, 3])
    boxes = tf.constant([[[0.0, 0.0, 1.0, 1.0]]])
    drawn = tf.image.draw_bounding_boxes(images, boxes, colors=[[0.25, 0.5, 1.0, 1.0]])
    assert drawn.op.type == "DrawBoundingBoxesV2"
    assert tf.image.draw_bounding_boxes(images, boxes).op.type == "DrawBoundingBoxes"
    scores = tf.constant([[[0.9, 0.1], [0.8, 0.7]]])
    nms = tf.image.combined_non_max_suppression(
        tf.constant([[[[0.0, 0.0, 0.5, 0.5]], [[0.5, 0.5, 1.0, 1.0]]]]), scores, 2, 3)
    assert nms._fields == ("nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections")
    with tf.Session() as sess:
        out, det_scores, valid = sess.run([drawn, nms.nmsed_scores, nms.valid_detections])
    np.testing.assert_allclose(out[0, 0, 2], [0.25, 0.5, 1.0])
    np.testing.assert_allclose(out[0, 2, 2], [0, 0, 0])
    np.testing.assert_allclose(det_scores[0], [0.9, 0.8, 0.7])
    assert valid.tolist() == [3]


def test_contrib_instance_norm_and_group_norm_match_numpy_and_arg_scope():
    # CycleGAN / fast style transfer generators: tf.contrib.layers.instance_norm was missing
    rng = np.random.RandomState(0)
    xn = rng.rand(2, 4, 5, 6) * 3 - 1
    x = tf.constant(xn)
    slim = tf.contrib.slim
    with slim.arg_scope([slim.instance_norm], epsilon=1e-3):
        inst = slim.instance_norm(x, activation_fn=tf.nn.relu)
    inst_nchw = tf.contrib.layers.instance_norm(tf.transpose(x, [0, 3, 1, 2]),
                                                data_format="NCHW", scope="in_nchw")
    group = tf.contrib.layers.group_norm(x, groups=3, outputs_collections="outs")
    names = [(v.op.name, v.shape.as_list()) for v in tf.model_variables()]
    assert names == [("InstanceNorm/beta", [6]), ("InstanceNorm/gamma", [6]),
                     ("in_nchw/beta", [6]), ("in_nchw/gamma", [6]),
                     ("GroupNorm/beta", [6]), ("GroupNorm/gamma", [6])]
    assert tf.get_collection("outs") == [group]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b, c = sess.run([inst, inst_nchw, group])
    m, v = xn.mean((1, 2), keepdims=True), xn.var((1, 2), keepdims=True)
    np.testing.assert_allclose(a, np.maximum((xn - m) / np.sqrt(v + 1e-3), 0), rtol=1e-8)
    np.testing.assert_allclose(b.transpose(0, 2, 3, 1), (xn - m) / np.sqrt(v + 1e-6),
                               rtol=1e-8)
    g = xn.reshape(2, 4, 5, 3, 2)
    gm, gv = g.mean((1, 2, 4), keepdims=True), g.var((1, 2, 4), keepdims=True)
    np.testing.assert_allclose(c, ((g - gm) / np.sqrt(gv + 1e-6)).reshape(xn.shape), rtol=1e-8)
    with pytest.raises(ValueError, match="not commensurate with 4 groups"):
        tf.contrib.layers.group_norm(x, groups=4)


def test_contrib_batch_norm_renorm_runs_through_the_core_layer():
    # tf.contrib.layers.batch_norm(renorm=True) raised NotImplementedError; TF 1.x hands
    # renorm to tf.layers.BatchNormalization and files its variables as model variables
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    y = tf.contrib.layers.batch_norm(x, renorm=True, is_training=True, scale=True,
                                     variables_collections={"moving_mean": ["mm"]})
    tf.contrib.layers.batch_norm(x, renorm=True, is_training=True, scope="BatchNorm",
                                 reuse=True)
    assert [v.op.name for v in tf.model_variables()] == [
        "BatchNorm/gamma", "BatchNorm/beta", "BatchNorm/moving_mean", "BatchNorm/moving_variance",
        "BatchNorm/moving_stddev", "BatchNorm/renorm_mean", "BatchNorm/renorm_stddev"]
    assert [v.op.name for v in tf.get_collection("mm")] == ["BatchNorm/moving_mean"]
    xn = np.random.RandomState(0).rand(2, 4, 4, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        # first step: r = batch std, d = batch mean (renorm averages start at 0 and 1)
        np.testing.assert_allclose(sess.run(y, {x: xn}), xn, atol=1e-5)
    with pytest.raises(ValueError, match="renorm is not supported"):
        tf.contrib.layers.batch_norm(x, renorm=True, updates_collections=None, scope="other")


def _np_dense_warp(img, flow):
    b, h, w, _ = img.shape
    out = np.empty_like(img)
    for n in range(b):
        for i in range(h):
            for j in range(w):
                q = np.array([i, j], float) - flow[n, i, j]
                f = np.minimum(np.maximum(np.floor(q), 0), [h - 2, w - 2]).astype(int)
                a = np.clip(q - f, 0, 1)
                top = img[n, f[0], f[1]] * (1 - a[1]) + img[n, f[0], f[1] + 1] * a[1]
                bot = img[n, f[0] + 1, f[1]] * (1 - a[1]) + img[n, f[0] + 1, f[1] + 1] * a[1]
                out[n, i, j] = top * (1 - a[0]) + bot * a[0]
    return out


def test_contrib_image_dense_image_warp_values_and_flow_gradient():
    # optical-flow programs warp frames with tf.contrib.image.dense_image_warp (was missing)
    rng = np.random.RandomState(3)
    img_np, flow_np = rng.rand(2, 5, 6, 3), rng.uniform(-1.7, 1.7, (2, 5, 6, 2))
    img, flow = tf.constant(img_np), tf.constant(flow_np)
    warped = tf.contrib.image.dense_image_warp(img, flow)
    assert warped.shape.as_list() == [2, 5, 6, 3]
    loss = tf.reduce_sum(tf.square(warped))
    g_img, g_flow = tf.gradients(loss, [img, flow])
    with tf.Session() as sess:
        got, gi, gf = sess.run([warped, g_img, g_flow])
        np.testing.assert_allclose(got, _np_dense_warp(img_np, flow_np), rtol=1e-10)
        eps = 1e-6
        for idx in [(0, 2, 3, 0), (1, 1, 4, 1)]:
            d = np.zeros_like(flow_np)
            d[idx] = eps
            up = sess.run(loss, {flow: flow_np + d})
            down = sess.run(loss, {flow: flow_np - d})
            np.testing.assert_allclose(gf[idx], (up - down) / (2 * eps), rtol=1e-5)
    assert gi.shape == img_np.shape and np.all(np.isfinite(gi))


def test_non_max_suppression_checks_box_width_and_score_count_at_graph_build():
    # a detector passing [n, 5] boxes (score column left in) built fine and failed later
    with pytest.raises(ValueError, match="Dimension must be 4 but is 5"):
        tf.image.non_max_suppression(tf.zeros([3, 5]), tf.zeros([3]), 2)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        tf.image.non_max_suppression(tf.zeros([3, 4]), tf.zeros([2]), 2)
    with pytest.raises(ValueError, match="Dimension must be 4 but is 3"):
        tf.image.non_max_suppression_padded(tf.zeros([2, 3]), tf.zeros([2]), 2)
    boxes = tf.placeholder(tf.float32, [None, None])
    assert tf.image.non_max_suppression(boxes, tf.zeros([3]), 2).shape.as_list() == [None]


def test_central_crop_of_an_unknown_rank_image_raises_and_leaves_the_input_alone():
    # central_crop set the caller's placeholder to rank 3, breaking its later 4-D uses
    x = tf.placeholder(tf.float32)
    with pytest.raises(ValueError, match="rank = 3 or rank = 4. Had rank = None"):
        tf.image.central_crop(x, 0.5)
    assert x.shape.ndims is None
    assert tf.image.sobel_edges(x).shape.ndims == 5
    assert tf.image.central_crop(tf.zeros([2, 8, 6, 3]), 0.5).shape.as_list() == [2, 4, 4, 3]


def test_contrib_conv1d_conv3d_pool3d_and_maxout():
    # video / audio models: slim.conv3d, slim.conv1d, slim.max_pool3d, contrib maxout
    slim = tf.contrib.slim
    rng = np.random.RandomState(4)
    sn, vn = rng.rand(2, 7, 3), rng.rand(2, 4, 6, 6, 2)
    s, v = tf.constant(sn), tf.constant(vn)
    with slim.arg_scope([slim.conv1d, slim.conv3d], activation_fn=None,
                        biases_initializer=tf.constant_initializer(0.5)):
        c1 = slim.conv1d(s, 4, 3, padding="VALID", scope="c1")
        c3 = slim.conv3d(v, 5, [2, 3, 3], stride=[1, 2, 2], scope="c3")
    c3t = tf.contrib.layers.conv3d_transpose(v, 3, 3, stride=2)
    pooled = slim.max_pool3d(tf.cast(v, tf.float32), [2, 2, 2])  # float64: no TF kernel
    mo = tf.contrib.layers.maxout(tf.reshape(s, [-1, 21]), 7)
    assert [(w.op.name, w.shape.as_list()) for w in tf.model_variables()] == [
        ("c1/weights", [3, 3, 4]), ("c1/biases", [4]), ("c3/weights", [2, 3, 3, 2, 5]),
        ("c3/biases", [5]), ("Conv3d_transpose/weights", [3, 3, 3, 3, 2]),
        ("Conv3d_transpose/biases", [3])]
    assert c3.shape.as_list() == [2, 4, 3, 3, 5] and c3t.shape.as_list() == [2, 8, 12, 12, 3]
    w3 = tf.model_variables()[2]
    ref3 = tf.nn.conv3d(v, w3, [1, 1, 2, 2, 1], "SAME") + 0.5
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got1, w1, got3, want3, p, m = sess.run([c1, tf.model_variables()[0], c3, ref3, pooled,
                                                mo])
    want1 = np.stack([np.einsum("bkc,kco->bo", sn[:, i:i + 3], w1) for i in range(5)], 1) + 0.5
    np.testing.assert_allclose(got1, want1, rtol=1e-10)
    np.testing.assert_allclose(got3, want3, rtol=1e-10)
    np.testing.assert_allclose(p, vn.reshape(2, 2, 2, 3, 2, 3, 2, 2).max((2, 4, 6)), rtol=1e-6)
    np.testing.assert_allclose(m, sn.reshape(2, 7, 3).max(-1))
    with pytest.raises(ValueError, match="expects input with rank 5, got 3"):
        slim.conv3d(s, 3, 3)


def test_keras_layer_updates_stay_out_of_update_ops_as_in_tf1():
    # TF 1.x: tf.keras.layers.BatchNormalization keeps its moving-average updates in
    # layer.updates; only tf.layers fill GraphKeys.UPDATE_OPS (a train op built with
    # control_dependencies(UPDATE_OPS) must not pull in a keras model's placeholders)
    x = tf.placeholder(tf.float32, [None, 3])
    bn = tf.keras.layers.BatchNormalization()
    y = bn(x, training=True)
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    assert len(bn.updates) == 2
    z = tf.layers.batch_normalization(tf.ones([4, 3]), training=True)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        step = tf.identity(z)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(step)  # runs without feeding the keras layer's placeholder
        sess.run(bn.updates, {x: np.full([2, 3], 5.0)})
        np.testing.assert_allclose(sess.run(bn.moving_mean), [0.05] * 3, rtol=1e-5)
    assert y.shape.as_list() == [None, 3]


def test_tfgan_model_losses_gradient_penalty_and_training_loop(tmp_path):
    # TF-GAN tutorials: tf.contrib.gan (gan_model, gan_loss, gan_train_ops, gan_train)
    tfgan = tf.contrib.gan
    real = tf.constant(np.random.RandomState(0).rand(4, 3).astype(np.float32))

    def generator_fn(noise):
        return tf.layers.dense(noise, 3, name="g")

    def discriminator_fn(data, unused_conditioning):
        # linear: its gradient w.r.t. the data is the kernel, so the penalty is known
        return tf.layers.dense(data, 1, use_bias=False, name="d",
                               kernel_initializer=tf.constant_initializer([[0.5], [1.0], [2.0]]))

    model = tfgan.gan_model(generator_fn, discriminator_fn, real_data=real,
                            generator_inputs=tf.random_normal([4, 2], seed=1))
    assert [v.op.name for v in model.generator_variables] == ["Generator/g/kernel",
                                                              "Generator/g/bias"]
    assert [v.op.name for v in model.discriminator_variables] == ["Discriminator/d/kernel"]
    assert model.discriminator_real_outputs.name.startswith("Discriminator_1/")
    loss = tfgan.gan_loss(model, gradient_penalty_weight=10.0)
    ls = tfgan.gan_loss(model, tfgan.losses.least_squares_generator_loss,
                        tfgan.losses.least_squares_discriminator_loss, add_summaries=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g, d, lsd, dr, dg = sess.run([loss.generator_loss, loss.discriminator_loss,
                                      ls.discriminator_loss, model.discriminator_real_outputs,
                                      model.discriminator_gen_outputs])
    penalty = (np.sqrt(0.25 + 1 + 4 + 1e-10) - 1) ** 2
    np.testing.assert_allclose(g, -dg.mean(), rtol=1e-5)
    np.testing.assert_allclose(d, dg.mean() - dr.mean() + 10 * penalty, rtol=1e-5)
    np.testing.assert_allclose(lsd, ((dr - 1) ** 2).mean() / 2 + (dg ** 2).mean() / 2, rtol=1e-5)
    train_ops = tfgan.gan_train_ops(model, loss, tf.train.AdamOptimizer(1e-2),
                                    tf.train.AdamOptimizer(1e-2))
    assert isinstance(train_ops, tfgan.GANTrainOps) and list(train_ops.train_hooks) == []
    steps = tfgan.gan_train(train_ops, str(tmp_path), hooks=[tf.train.StopAtStepHook(3)],
                            save_summaries_steps=None, save_checkpoint_secs=None)
    assert steps == 3
    grid = tfgan.eval.image_reshaper(tf.zeros([6, 2, 3, 1]), num_cols=3)
    assert grid.shape.as_list() == [1, 4, 9, 1]
    tf.layers.batch_normalization(tf.zeros([2, 3]), training=True)  # outside both scopes
    with pytest.raises(ValueError, match="unused update ops"):
        tfgan.gan_train_ops(model, loss, tf.train.AdamOptimizer(), tf.train.AdamOptimizer())


def test_softmax_cross_entropy_over_a_middle_axis_keeps_the_other_axes_in_order():
    # segmentation losses over NCHW logits: axis=1 of a 4-D tensor raised (the class axis
    # was swapped with the last one instead of moved to the end, as TF does)
    rng = np.random.RandomState(5)
    logits_np = rng.randn(2, 4, 3, 5)
    labels_np = rng.dirichlet(np.ones(4), size=(2, 3, 5)).transpose(0, 3, 1, 2)
    want = -(labels_np * (logits_np - np.log(np.exp(logits_np).sum(1, keepdims=True)))).sum(1)
    unknown = tf.placeholder(tf.float64)
    losses = [tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels_np, logits=logits_np,
                                                         axis=1),
              tf.nn.softmax_cross_entropy_with_logits(labels=labels_np, logits=logits_np, dim=1),
              tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels_np, logits=unknown,
                                                         axis=1)]
    assert losses[0].shape.as_list() == [2, 3, 5]
    with tf.Session() as sess:
        for got in sess.run(losses, {unknown: logits_np}):
            np.testing.assert_allclose(got, want, rtol=1e-10)


def test_gather_and_gather_nd_with_batch_dims():
    # per-image lookups (TF 1.14+): gather(axis > batch_dims) raised NotImplementedError and
    # gather_nd had no batch_dims
    rng = np.random.RandomState(6)
    xn = rng.randn(2, 3, 4, 5)
    idx = rng.randint(0, 4, [2, 6])
    nd_idx = rng.randint(0, 3, [2, 7, 1])
    x = tf.constant(xn)
    g = tf.gather(x, idx, axis=2, batch_dims=1)
    nd = tf.gather_nd(x, nd_idx, batch_dims=1)
    nd_dyn = tf.gather_nd(x, tf.placeholder_with_default(nd_idx, None), batch_dims=1)
    assert g.shape.as_list() == [2, 3, 6, 5] and nd.shape.as_list() == [2, 7, 4, 5]
    grad = tf.gradients(tf.reduce_sum(g) + tf.reduce_sum(nd), x)[0]
    with tf.Session() as sess:
        got_g, got_nd, got_dyn, got_grad = sess.run([g, nd, nd_dyn, grad])
    want_g = np.stack([xn[b][:, idx[b]] for b in range(2)])
    want_nd = np.stack([xn[b][nd_idx[b, :, 0]] for b in range(2)])
    np.testing.assert_array_equal(got_g, want_g)
    np.testing.assert_array_equal(got_nd, want_nd)
    np.testing.assert_array_equal(got_dyn, want_nd)
    # TF 1.15's GatherV2 gradient with batch_dims and axis > batch_dims is not the
    # mathematical one (some rows land in other places): CRC-32 of its gradient's bytes
    # measured there (tests/test_op_sweep_parity27.py)
    assert zlib.crc32(got_grad.tobytes()) == 2627265261


def test_static_shapes_fold_constant_arithmetic_as_tf_shape_inference():
    # DCGAN-style fixed batches: resize_nearest_neighbor(x, tf.shape(x)[1:3] * 2) had an
    # unknown static size, so a following flatten + dense raised "last dimension ... None"
    x = tf.placeholder(tf.float32, [4, 8, 8, 3])
    up = tf.image.resize_nearest_neighbor(x, tf.shape(x)[1:3] * 2)
    assert up.shape.as_list() == [4, 16, 16, 3]
    assert tf.layers.dense(tf.layers.flatten(up), 2).shape.as_list() == [4, 2]
    c = tf.constant(2)
    assert tf.zeros([c * 3, tf.maximum(c, 5) - 1]).shape.as_list() == [6, 4]
    rounded = tf.cast(tf.round(tf.constant([2.5, 3.6])), tf.int32)  # halves to even
    assert tf.zeros(rounded).shape.as_list() == [2, 4]
    aspect = tf.image.resize_images(tf.placeholder(tf.float32, [None, 5, 7, 3]), [10, 10],
                                    preserve_aspect_ratio=True)
    assert aspect.shape.as_list() == [None, 7, 10, 3]
    total = tf.constant(0)
    for _ in range(1500):  # a chain too deep to fold is simply not known
        total = total + 1
    assert tf.zeros([total]).shape.as_list() == [None]
    with tf.Session() as sess:
        assert sess.run(tf.shape(tf.zeros([total]))).tolist() == [1500]


def test_unpooling_shape_from_known_dims_of_a_partly_known_shape():
    # SegNet unpooling reshapes to [shape[0], shape[1] * 2, shape[2] * 2, shape[3]] of a
    # [None, 4, 4, 8] input: as TF 1.15 (whose printed shapes these are), no element of the
    # partly known shape is a constant, so none of the new dimensions is known (TF 2.x
    # keeps the known dimensions' arithmetic: [None, 8, 8, 8])
    pooled = tf.placeholder(tf.float32, [None, 4, 4, 8])
    s = tf.shape(pooled)
    up = tf.reshape(tf.tile(pooled, [1, 2, 2, 1]), [s[0], s[1] * 2, s[2] * 2, s[3]])
    assert up.shape.as_list() == [None, None, None, None]
    assert tf.reshape(pooled, [-1, s[1] * s[2] - 0, s[3] // 2, 2]).shape.as_list() == [
        None, None, None, 2]
    with tf.Session() as sess:
        assert sess.run(up, {pooled: np.ones([3, 4, 4, 8])}).shape == (3, 8, 8, 8)


def test_fractional_pool_with_seeds_but_not_deterministic_is_tf_s_error():
    x = tf.constant(np.random.RandomState(0).rand(1, 8, 8, 1).astype(np.float32))
    y = tf.nn.fractional_max_pool(x, [1.0, 1.44, 1.73, 1.0], seed=3)[0]
    z = tf.nn.fractional_max_pool(x, [1.0, 1.44, 1.73, 1.0], seed=3, deterministic=True)[0]
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Both seed and seed2 should be 0"):
            s.run(y)
        np.testing.assert_array_equal(s.run(z), s.run(z))  # deterministic: same regions
