"""TF 1.15's tf.contrib.layers / tf.contrib.framework behaviour, audited against TF's own
layers_test.py and friends: end-point aliases on collected outputs, ``pool``'s op names and
channels-first pooling, the convolution rank error, and the layer functions TF 1.15 has that
were missing (``conv2d_in_plane``, ``dense_to_sparse``, ``images_to_sequence``,
``sequence_to_images``, ``spatial_softmax``). Expected values come from NumPy."""

import numpy as np
import pytest
from tideflow.contrib.framework.python.ops import variables as contrib_variables
from tideflow.contrib.layers.python.layers import layers as _layers

import tideflow as tf

layers = tf.contrib.layers


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


# --- outputs_collections: tensor.aliases -------------------------------------------------

def test_collected_outputs_carry_their_end_point_alias():
    x = tf.constant(np.ones((2, 6, 6, 3), np.float32))
    conv = layers.conv2d(x, 4, 3, outputs_collections="outs", scope="c1")
    pool = layers.avg_pool2d(conv, 2, outputs_collections="outs")
    flat = layers.flatten(pool, outputs_collections="outs")
    got = tf.get_collection("outs")
    assert got == [conv, pool, flat]
    assert conv.aliases == ["c1"]
    assert pool.aliases == ["AvgPool2D"]
    assert flat.aliases == ["Flatten"]


def test_tensor_without_alias_has_no_aliases_attribute():
    t = tf.constant(1.0)
    assert not hasattr(t, "aliases")
    t.aliases = ["a"]
    t.aliases.append("b")
    assert t.aliases == ["a", "b"]


def test_alias_ignores_an_enclosing_name_scope():
    x = tf.constant(np.ones((1, 5, 5, 2), np.float32))
    with tf.name_scope("fe"):
        conv = layers.conv2d(x, 3, 3, outputs_collections="outs", scope="Conv")
    assert tf.get_collection("outs")[0] is conv
    assert conv.aliases == ["Conv"]


# --- pool ------------------------------------------------------------------------------

def test_pool_names_its_op_after_the_pooling_type():
    x = np.random.RandomState(0).rand(2, 3, 3, 2)
    out = layers.pool(x, [3, 3], pooling_type="AVG", outputs_collections="outs")
    assert out.op.name == "avg_pool"
    assert out.aliases == ["avg_pool"]
    assert layers.pool(x, [3, 3], pooling_type="MAX", scope="pool1").op.name == "pool1"
    np.testing.assert_allclose(_run(out)[:, 0, 0, :], x.mean(axis=(1, 2)), rtol=1e-6)


def test_pool_channels_first():
    x = np.random.RandomState(1).rand(2, 3, 4, 6).astype(np.float32)
    out = layers.pool(x, [2, 3], pooling_type="MAX", stride=[2, 3], data_format="NCHW")
    assert out.shape.as_list() == [2, 3, 2, 2]
    want = x.reshape(2, 3, 2, 2, 2, 3).max(axis=(3, 5))
    np.testing.assert_allclose(_run(out), want)


def test_pool_dilated_channels_first_shape():
    x = tf.random_uniform((5, 3, 5, 8), seed=1)
    out = layers.pool(x, [2, 3], dilation_rate=[1, 2], pooling_type="AVG", data_format="NCHW")
    assert out.shape.as_list() == [5, 3, 4, 4]


# --- convolution rank errors -----------------------------------------------------------

def test_convolution_rank_errors_match_tf():
    with pytest.raises(ValueError, match="Convolution expects input with rank 5, got 4"):
        layers.convolution3d(tf.zeros((5, 7, 9, 3)), 4, 3)
    with pytest.raises(ValueError, match="Convolution expects input with rank 4, got 5"):
        layers.convolution2d(tf.zeros((5, 6, 7, 9, 3)), 4, 3)


# --- conv2d_in_plane -------------------------------------------------------------------

def test_conv2d_in_plane_applies_one_kernel_to_every_channel():
    rng = np.random.RandomState(2)
    image = rng.rand(3, 5, 6, 4).astype(np.float32)
    horiz = layers.conv2d_in_plane(
        image, weights_initializer=tf.constant_initializer([1, -1]), kernel_size=[1, 2],
        padding="VALID", activation_fn=None)
    vert = layers.conv2d_in_plane(
        image, weights_initializer=tf.constant_initializer([2, 1]), kernel_size=[2, 1],
        padding="VALID", activation_fn=None, scope="vert")
    names = sorted(v.op.name for v in contrib_variables.get_model_variables())
    assert names == ["ConvInPlane/biases", "ConvInPlane/weights", "vert/biases", "vert/weights"]
    assert contrib_variables.get_variables_by_name("weights")[0].shape.as_list() == [1, 2, 1, 1]
    assert contrib_variables.get_variables_by_name("biases")[0].shape.as_list() == [4]
    assert horiz.op.name == "ConvInPlane/BiasAdd"
    h, v = _run([horiz, vert])
    np.testing.assert_allclose(h, image[:, :, :-1] - image[:, :, 1:], atol=1e-6)
    np.testing.assert_allclose(v, 2 * image[:, :-1] + image[:, 1:], atol=1e-6)


def test_conv2d_in_plane_with_unknown_spatial_dims_and_relu():
    image = tf.placeholder(tf.float32, (None, None, None, 1))
    out = layers.conv2d_in_plane(image, weights_initializer=tf.constant_initializer([1, -1]),
                                 kernel_size=[1, 2], stride=1, padding="SAME")
    feed = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)[:, :, ::-1]
    got = _run(out, {image: feed})
    shifted = np.concatenate([feed[:, :, 1:], np.zeros((1, 3, 1, 1), np.float32)], axis=2)
    np.testing.assert_allclose(got, np.maximum(feed - shifted, 0))


# --- dense_to_sparse -------------------------------------------------------------------

def test_dense_to_sparse_keeps_entries_other_than_eos():
    dense = np.array([[3, 0, 5], [0, 0, 7]], np.int64)
    sp = _layers.dense_to_sparse(tf.constant(dense))
    indices, values, shape = _run([sp.indices, sp.values, sp.dense_shape])
    np.testing.assert_array_equal(indices, np.argwhere(dense != 0))
    np.testing.assert_array_equal(values, dense[dense != 0])
    np.testing.assert_array_equal(shape, [2, 3])
    sp7 = layers.dense_to_sparse(tf.constant(dense), eos_token=7)
    np.testing.assert_array_equal(_run(sp7.values), dense[dense != 7])


# --- images_to_sequence / sequence_to_images --------------------------------------------

def test_images_to_sequence_and_back():
    images = np.random.RandomState(3).rand(2, 3, 5, 4).astype(np.float32)
    seq = layers.images_to_sequence(images)
    assert seq.op.name.startswith("ImagesToSequence/")
    want = images.transpose(2, 0, 1, 3).reshape(5, 6, 4)
    back = layers.sequence_to_images(seq, 3)
    back_first = layers.sequence_to_images(seq, 3, output_data_format="channels_first")
    assert back.shape.as_list() == [2, 3, 5, 4]
    s, b, bf = _run([seq, back, back_first])
    np.testing.assert_array_equal(s, want)
    np.testing.assert_array_equal(b, images)
    np.testing.assert_array_equal(bf, images.transpose(0, 3, 1, 2))
    nchw = layers.images_to_sequence(images.transpose(0, 3, 1, 2), data_format="NCHW")
    np.testing.assert_array_equal(_run(nchw), want)


# --- spatial_softmax -------------------------------------------------------------------

def _spatial_softmax_np(features, temperature):
    n, h, w, c = features.shape
    flat = features.transpose(0, 3, 1, 2).reshape(n * c, h * w) / temperature
    att = np.exp(flat - flat.max(axis=1, keepdims=True))
    att /= att.sum(axis=1, keepdims=True)
    pos_x, pos_y = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    ex = (att * pos_x.reshape(-1)).sum(axis=1)
    ey = (att * pos_y.reshape(-1)).sum(axis=1)
    return np.stack([ex, ey], axis=1).reshape(n, 2 * c)


def test_spatial_softmax_expected_keypoints():
    feats = np.random.RandomState(4).randn(2, 3, 4, 5).astype(np.float32)
    out = layers.spatial_softmax(feats, temperature=0.5)
    assert out.shape.as_list()[1] == 10
    temp = contrib_variables.get_variables_by_name("temperature")[0]
    assert temp.op.name == "spatial_softmax/temperature"  # TF 1.15 opens a variable scope
    assert temp in tf.trainable_variables()
    np.testing.assert_allclose(_run(out), _spatial_softmax_np(feats, 0.5), rtol=1e-5,
                               atol=1e-6)
    with tf.Graph().as_default():  # (each call its own scope)
        nchw = layers.spatial_softmax(feats.transpose(0, 3, 1, 2), data_format="NCHW",
                                      trainable=False)
        assert not tf.trainable_variables()
        np.testing.assert_allclose(_run(nchw), _spatial_softmax_np(feats, 1.0), rtol=1e-5,
                                   atol=1e-6)
    with pytest.raises(ValueError, match="data_format has to be either NCHW or NHWC"):
        layers.spatial_softmax(feats, data_format="CHWN")


# --- batch_norm: zero-debiased moving mean, batch weights, half floats, update ops ---------

def test_batch_norm_zero_debias_moving_mean_tracks_the_batch_mean():
    rng = np.random.RandomState(5)
    values = rng.rand(6, 2, 2, 3)
    mean, var = values.mean(axis=(0, 1, 2)), values.var(axis=(0, 1, 2))
    out = layers.batch_norm(tf.constant(values, tf.float32), decay=0.1, scale=True,
                            updates_collections=None, zero_debias_moving_mean=True,
                            fused=False)
    assert not tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    biased = contrib_variables.get_variables_by_name("biased")[0]
    step = contrib_variables.get_variables_by_name("local_step")[0]
    assert biased.op.name == "BatchNorm/BatchNorm/moving_mean/biased"
    assert step.op.name == "BatchNorm/BatchNorm/moving_mean/local_step"
    assert len(contrib_variables.get_model_variables()) == 6
    moving_mean = contrib_variables.get_variables_by_name("moving_mean")[0]
    moving_var = contrib_variables.get_variables_by_name("moving_variance")[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            assert sess.run(step) == i
            sess.run(out)
            # debiased: the average equals the (constant) batch mean from the first step on
            np.testing.assert_allclose(sess.run(moving_mean), mean, rtol=1e-5)
        # the variance is not debiased: 1 -> var with decay 0.1 per step
        want_var = var + (1 - var) * 0.1 ** 3
        np.testing.assert_allclose(sess.run(moving_var), want_var, rtol=1e-5)


@pytest.mark.parametrize("fused", [False, True])
def test_batch_norm_zero_debias_with_update_ops(fused):
    values = np.random.RandomState(6).rand(4, 3, 2, 2)
    out = layers.batch_norm(tf.constant(values, tf.float32), decay=0.5, fused=fused,
                            data_format="NCHW", zero_debias_moving_mean=True)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == 2
    moving_mean = contrib_variables.get_variables_by_name("moving_mean")[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([out, updates])
        np.testing.assert_allclose(sess.run(moving_mean), values.mean(axis=(0, 2, 3)),
                                   rtol=1e-5)


def test_batch_norm_batch_weights_give_weighted_statistics():
    rng = np.random.RandomState(7)
    values = rng.rand(4, 3).astype(np.float32)
    weights = np.array([1.0, 3.0, 0.0, 2.0], np.float32)
    out = layers.batch_norm(values, batch_weights=weights, epsilon=1e-3, decay=0.0,
                            updates_collections=None)
    moving_mean = contrib_variables.get_variables_by_name("moving_mean")[0]
    moving_var = contrib_variables.get_variables_by_name("moving_variance")[0]
    w = weights[:, None]
    mean = (w * values).sum(0) / w.sum()
    var = (w * (values - mean) ** 2).sum(0) / w.sum()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
        np.testing.assert_allclose(sess.run([moving_mean, moving_var]), [mean, var],
                                   rtol=1e-5)
    np.testing.assert_allclose(got, (values - mean) / np.sqrt(var + 1e-3), rtol=1e-4,
                               atol=1e-5)


def test_batch_norm_fused_half_floats_keep_single_float_parameters():
    values = np.random.RandomState(8).rand(5, 3, 3, 2).astype(np.float16)
    out = layers.batch_norm(values, scale=True, fused=True)
    assert out.dtype == tf.float16
    assert out.op.name.startswith("BatchNorm/FusedBatchNorm")
    assert {v.dtype.base_dtype for v in contrib_variables.get_model_variables()} == {
        tf.float32}
    v32 = values.astype(np.float32)
    want = (v32 - v32.mean((0, 1, 2))) / np.sqrt(v32.var((0, 1, 2)) + 1e-3)
    np.testing.assert_allclose(_run(out).astype(np.float32), want, atol=2e-2)


def test_batch_norm_update_ops_are_named_after_their_scope():
    layers.batch_norm(tf.random_uniform((5, 3, 3, 3), seed=1), updates_collections="mine")
    assert [u.op.name for u in tf.get_collection("mine")] == [
        "BatchNorm/AssignMovingAvg", "BatchNorm/AssignMovingAvg_1"]


@pytest.mark.parametrize("fused", [False, True])
def test_batch_norm_under_a_partitioner_keeps_moving_statistics_whole(fused):
    values = np.random.RandomState(9).rand(6, 2, 2, 4).astype(np.float32)
    with tf.variable_scope(tf.get_variable_scope(),
                           partitioner=tf.fixed_size_partitioner(2, axis=0)):
        train = layers.batch_norm(values, scale=True, fused=fused, decay=0.0,
                                  updates_collections=None)
        infer = layers.batch_norm(values, scale=True, fused=fused, is_training=False,
                                  scope="BatchNorm", reuse=True)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["BatchNorm/beta/part_0", "BatchNorm/beta/part_1", "BatchNorm/gamma/part_0",
                     "BatchNorm/gamma/part_1", "BatchNorm/moving_mean",
                     "BatchNorm/moving_variance"]
    mean, var = values.mean((0, 1, 2)), values.var((0, 1, 2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(train)
        np.testing.assert_allclose(got, (values - mean) / np.sqrt(var + 1e-3), rtol=1e-4,
                                   atol=1e-4)
        moving_var = var * 24 / 23 if fused else var  # the fused kernel's unbiased variance
        np.testing.assert_allclose(sess.run(infer), (values - mean) / np.sqrt(moving_var + 1e-3),
                                   rtol=1e-4, atol=1e-4)


# --- layer_norm ------------------------------------------------------------------------

def test_layer_norm_half_floats_use_a_larger_epsilon():
    rng = np.random.RandomState(10)
    values = (rng.randn(2, 50, 4) * 1e-4).astype(np.float16)  # variance underflows in half
    out = layers.layer_norm(values)
    got = _run(out).astype(np.float64)
    assert np.isfinite(got).all()
    v = values.astype(np.float64)
    mean = v.mean(axis=(1, 2), keepdims=True)
    want = (v - mean) / np.sqrt(v.var(axis=(1, 2), keepdims=True) + 1e-3)
    np.testing.assert_allclose(got, want, atol=5e-2)


# --- scale_gradient, softmax -------------------------------------------------------------

def test_scale_gradient_is_identity_forward_and_scales_backward():
    x = tf.constant(np.array([[1.5, -2.0], [0.25, 4.0]], np.float64))
    y = layers.scale_gradient(x, 3.0)
    loss = tf.reduce_sum(y * y)
    (g,) = tf.gradients(loss, [x])
    xv = np.array([[1.5, -2.0], [0.25, 4.0]])
    got_y, got_g = _run([y, g])
    np.testing.assert_array_equal(got_y, xv)
    np.testing.assert_allclose(got_g, 3.0 * 2 * xv)


def test_contrib_softmax_needs_a_known_last_dimension():
    with pytest.raises(ValueError):
        layers.softmax(tf.placeholder(tf.float32))
    with pytest.raises(ValueError):
        layers.softmax(tf.placeholder(tf.float32, [None, None]))
    with pytest.raises(ValueError):
        layers.softmax(tf.constant([1.0, 2.0]))
    logits = np.array([[[0.0, 1.0], [2.0, 2.0]]])
    p = tf.placeholder(tf.float64, [None, None, 2])
    e = np.exp(logits - logits.max(-1, keepdims=True))
    np.testing.assert_allclose(_run(layers.softmax(p), {p: logits}), e / e.sum(-1, keepdims=True))


# --- poincare_normalize, legacy_fully_connected -------------------------------------------

@pytest.mark.parametrize("axis", [0, 2, [1, 2]])
def test_poincare_normalize_projects_into_the_ball(axis):
    x = np.random.RandomState(11).rand(6, 4, 3)
    ax = tuple(axis) if isinstance(axis, list) else axis
    norm = np.linalg.norm(x, axis=ax, keepdims=True)
    want = np.where(norm > 1 - 1e-5, (1 - 1e-5) * x / norm, x)
    got = _run(layers.poincare_normalize(tf.constant(x), axis, 1e-5))
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_legacy_fully_connected_variables_collections_and_values():
    x = tf.constant([[1.0, 2.0, 3.0], [-4.0, 15.0, -6.0]])
    y = layers.legacy_relu(x, 2, weight_init=tf.constant_initializer(2.0),
                           bias_init=tf.constant_initializer(1.0),
                           weight_collections=["unbiased", "all"],
                           bias_collections=["biased", "all"], output_collections=["out"])
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["fully_connected/weights", "fully_connected/bias"]
    assert tf.get_collection("all") == tf.trainable_variables()
    assert len(tf.get_collection("unbiased")) == len(tf.get_collection("biased")) == 1
    assert tf.get_collection("out") == [y] and tf.get_collection("activations") == [y]
    np.testing.assert_allclose(_run(y), [[13.0, 13.0], [11.0, 11.0]])


def test_legacy_fully_connected_rank3_no_bias_and_regularizer_on_reuse():
    x = tf.placeholder(tf.float32, [None, 4, 3])
    calls = []
    reg = tf.constant(5.0)

    def regularizer(_):
        calls.append(1)
        return reg

    with tf.variable_scope("test") as scope:
        y = layers.legacy_fully_connected(x, 2, bias_init=None, weight_regularizer=regularizer,
                                          weight_init=tf.constant_initializer(0.5))
    with tf.variable_scope(scope, reuse=True):
        layers.legacy_fully_connected(x, 2, bias_init=None, weight_regularizer=regularizer)
    assert y.shape.as_list() == [None, 4, 2]
    assert [v.op.name for v in tf.global_variables()] == ["test/fully_connected/weights"]
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [reg] and len(calls) == 1
    feed = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    np.testing.assert_allclose(_run(y, {x: feed}), np.repeat(feed.sum(-1, keepdims=True) * 0.5,
                                                             2, axis=-1))
    with pytest.raises(ValueError, match="rank of x must be at least 2"):
        layers.legacy_linear(tf.constant([1.0, 2.0]), 2)


# --- arg_scope --------------------------------------------------------------------------

def test_arg_scoped_arguments_lists_the_keyword_arguments():
    from tideflow.contrib.framework.python.ops import arg_scoped_arguments
    from tideflow.contrib.framework.python.ops.arg_scope import (
        arg_scoped_arguments as from_module,
    )

    @tf.contrib.framework.add_arg_scope
    def fn(inputs, size, a=None, b=1, c=2):
        return inputs, size, a, b, c

    assert arg_scoped_arguments(fn) == ("a", "b", "c")
    assert from_module is arg_scoped_arguments
    assert tf.contrib.slim.arg_scoped_arguments(fn) == ("a", "b", "c")
    assert arg_scoped_arguments(tf.contrib.framework.add_arg_scope(lambda x: x)) == ()
    assert "weights_initializer" in arg_scoped_arguments(layers.conv2d)
    with pytest.raises(AssertionError):
        arg_scoped_arguments(lambda x, y=1: x)
    with tf.contrib.framework.arg_scope([fn], b=5):
        assert fn(0, 1) == (0, 1, None, 5, 2)


# --- optimize_loss ----------------------------------------------------------------------

def _optimize_loss_model():
    x = tf.placeholder(tf.float32, [])
    var = tf.get_variable("w", [], initializer=tf.constant_initializer(10.0))
    step = tf.get_variable("global_step", [], tf.int64, tf.zeros_initializer(),
                           trainable=False)
    return x, var, tf.abs(var * x), step


def test_optimize_loss_gradient_multiplier_of_another_float_type():
    from tideflow.contrib.layers.python.layers import optimizers as optimizers_lib

    x, var, loss, step = _optimize_loss_model()
    mult = tf.placeholder(tf.float64, [])
    train = optimizers_lib.optimize_loss(loss, step, learning_rate=0.1, optimizer="SGD",
                                         gradient_multipliers={var: mult})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: 5.0, mult: 7.0})
        # d|w x|/dw = x = 5, times 7, times the learning rate 0.1
        np.testing.assert_allclose(sess.run([var, step]), [10.0 - 3.5, 1])


def test_optimize_loss_rejects_a_float_global_step():
    x = tf.placeholder(tf.float32, [])
    var = tf.get_variable("w", [], initializer=tf.constant_initializer(10.0))
    step = tf.get_variable("global_step", [], tf.float64, tf.zeros_initializer(),
                           trainable=False)
    with pytest.raises(TypeError, match="integer type"):
        layers.optimize_loss(tf.abs(var * x), step, learning_rate=0.1, optimizer="SGD")


def test_adaptive_clipping_fn_in_optimize_loss():
    x, var, loss, step = _optimize_loss_model()
    train = layers.optimize_loss(loss, step, learning_rate=0.1, optimizer="SGD",
                                 clip_gradients=layers.adaptive_clipping_fn())
    names = sorted(v.op.name for v in tf.global_variables() if "AdaptiveMaxNorm" in v.op.name)
    assert names == ["OptimizeLoss/AdaptiveMaxNorm/mean", "OptimizeLoss/AdaptiveMaxNorm/sq_mean"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {x: 5.0})
        got = sess.run(var)
    # first step: log-norm averages are 0.05*log(5) and 0.05*log(5)^2 (decay 0.95); the norm
    # 5 exceeds exp(mean + 2 std), so the gradient is rescaled to norm exp(mean)
    log_norm = np.log(5.0 + 1e-8)
    mean, sq = 0.05 * log_norm, 0.05 * log_norm ** 2
    max_norm = np.exp(mean + 2 * np.sqrt(max(1e-8, sq - mean ** 2)))
    assert 5.0 > max_norm
    np.testing.assert_allclose(got, 10.0 - 0.1 * np.exp(mean), rtol=1e-5)


def test_adaptive_clipping_fn_tracks_log_norm_averages_and_clips_spikes():
    from tideflow.contrib.layers.python.layers.optimizers import adaptive_clipping_fn

    scale = tf.placeholder(tf.float32, [])
    step = tf.placeholder(tf.int32, [])
    grad = tf.ones([3, 4]) * scale
    (clipped, _), = adaptive_clipping_fn(decay=0.9, global_step=step)([(grad, grad)])
    mean = next(v for v in tf.global_variables() if v.op.name == "AdaptiveMaxNorm/mean")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(20):
            s = [1.0, -2.0][i % 2]
            got = sess.run(clipped, {scale: s, step: i})
            if i > 3:
                np.testing.assert_allclose(got, np.full((3, 4), s))
        spike = sess.run(clipped, {scale: 1000.0, step: 20})
        assert (spike < 25.0).all()
        assert np.isfinite(sess.run(mean))


# --- contrib.framework variables ----------------------------------------------------------

def test_variable_device_chooser_round_robin_and_explicit_devices():
    from tideflow.contrib.framework.python.ops import variables as contrib_vars

    chooser = contrib_vars.VariableDeviceChooser(num_tasks=2)
    with tf.contrib.framework.arg_scope([contrib_vars.variable], device=chooser):
        a = contrib_vars.variable("a", [])
        b = contrib_vars.variable("b", [])
        c = contrib_vars.variable("c", [], device="/cpu:12")
        d = contrib_vars.variable("d", [])
        with tf.device("/cpu:99"):
            e_init = tf.constant(12)
        e = contrib_vars.variable("e", initializer=e_init)
    assert [v.device for v in (a, b, c, d, e)] == [
        "/job:ps/task:0/device:CPU:0", "/job:ps/task:1/device:CPU:0", "/device:CPU:12",
        "/job:ps/task:0/device:CPU:0", "/job:ps/task:1/device:CPU:0"]
    # a tensor initializer gives the variable its dtype (int32 here), as get_variable
    assert e.dtype.base_dtype == tf.int32
    assert e.initial_value.device == "/device:CPU:99"
    gpu = tf.contrib.framework.VariableDeviceChooser(device_type="GPU")
    replica = tf.contrib.framework.VariableDeviceChooser(replica=3, num_tasks=2)
    assert gpu(None) == "/device:GPU:0"
    assert [replica(None), replica(None), replica(None)] == [
        "/job:ps/replica:3/task:0/device:CPU:0", "/job:ps/replica:3/task:1/device:CPU:0",
        "/job:ps/replica:3/task:0/device:CPU:0"]
    with tf.Graph().as_default():
        v = tf.contrib.framework.variable("v", initializer=tf.constant([1, 2], tf.int64))
        assert v.dtype.base_dtype == tf.int64
        np.testing.assert_array_equal(_run(v), [1, 2])


def _checkpoint(path, values):
    with tf.Graph().as_default(), tf.Session() as sess:
        variables = [tf.Variable(v, name=k) for k, v in values.items()]
        sess.run(tf.variables_initializer(variables))
        return tf.train.Saver(variables).save(sess, path)


def test_assign_from_checkpoint_fills_partitioned_variables_slice_by_slice(tmp_path):
    fw = tf.contrib.framework
    whole = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    path = _checkpoint(str(tmp_path / "model"), {"w": whole, "b": np.float32(7.0)})
    part = fw.variable("w", shape=[4, 3], partitioner=tf.fixed_size_partitioner(3, axis=0))
    copy = fw.variable("w_copy", shape=[4, 3])
    bias = fw.variable("b", shape=[])
    parts = list(part)
    assert [fw.get_variable_full_name(p) for p in parts] == ["w"] * 3
    assert fw.get_variable_full_name(copy) == "w_copy"
    # a list is keyed by full names (the parts grouped), a dict may map to lists
    op1, feed1 = fw.assign_from_checkpoint(path, [*parts, bias])
    op2, feed2 = fw.assign_from_checkpoint(path, {"w": [copy]})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(op1, feed1)
        sess.run(op2, feed2)
        got_part, got_copy, got_b = sess.run([tf.identity(part), copy, bias])
    np.testing.assert_array_equal(got_part, whole)
    np.testing.assert_array_equal(got_copy, whole)
    assert got_b == 7.0
    wrong = fw.variable("w_wrong", shape=[3, 4])
    with pytest.raises(ValueError, match="Total size of new array must be unchanged"):
        fw.assign_from_checkpoint(path, {"w": wrong})
    with pytest.raises(ValueError, match=r"Checkpoint is missing variable \[nope\]"):
        fw.assign_from_checkpoint(path, {"nope": bias})


def test_filter_variables_include_then_exclude():
    fw = tf.contrib.framework
    names = ["conv1/weights", "conv1/biases", "conv2/weights", "conv2/biases", "fc/weights"]
    var_list = [tf.Variable(0, name=n) for n in names]

    def kept(**kwargs):
        return [v.op.name for v in fw.filter_variables(var_list, **kwargs)]

    assert kept() == names
    assert kept(include_patterns=["conv1", "weights"]) == [
        "conv1/weights", "conv1/biases", "conv2/weights", "fc/weights"]
    assert kept(exclude_patterns=["weights", "conv1"]) == ["conv2/biases"]
    assert kept(include_patterns=["conv"], exclude_patterns=["biases"]) == [
        "conv1/weights", "conv2/weights"]
    # reg_search=False matches from the start of the name
    assert kept(include_patterns=["biases"], reg_search=False) == []
    assert kept(include_patterns=[".*biases"], reg_search=False) == [
        "conv1/biases", "conv2/biases"]


@pytest.mark.parametrize("dtype", [tf.int32, tf.float64])
def test_zero_initializer_initializes_only_an_uninitialized_variable(dtype):
    var = tf.Variable(tf.ones([3, 2], dtype=dtype))
    zero = tf.contrib.framework.zero_initializer(var)
    with tf.Session() as sess:
        sess.run(zero)
        np.testing.assert_array_equal(sess.run(var), np.zeros((3, 2)))
        with pytest.raises(tf.errors.OpError, match="input is already initialized"):
            sess.run(zero)
    with tf.Session() as sess:
        sess.run(var.initializer)
        with pytest.raises(tf.errors.OpError, match="input is already initialized"):
            sess.run(zero)
        np.testing.assert_array_equal(sess.run(var), np.ones((3, 2)))


# --- regularizers ------------------------------------------------------------------------

@pytest.mark.parametrize("scales,want", [((0.0, 0.5), 0.5 * 30 / 2), ((0.25, 0.0), 0.25 * 8),
                                         ((0.25, 0.5), 0.25 * 8 + 0.5 * 30 / 2)])
def test_l1_l2_regularizer_names_its_op_even_with_a_zero_scale(scales, want):
    weights = tf.constant([1.0, -2.0, 5.0])
    loss = layers.l1_l2_regularizer(*scales)(weights)
    assert loss.op.name == "l1_l2_regularizer"
    np.testing.assert_allclose(_run(loss), want, rtol=1e-6)
    with tf.name_scope("foo"):
        scoped = layers.l1_l2_regularizer(*scales, scope="reg")(weights)
    assert scoped.op.name == "foo/reg"


# --- gdn -------------------------------------------------------------------------------

def _gdn_np(x, beta, gamma, inverse, channels_first=False):
    if channels_first:
        x = np.moveaxis(x, 1, -1)
    norm = np.sqrt(np.tensordot(x ** 2, gamma, axes=[[-1], [0]]) + beta)
    out = x * norm if inverse else x / norm
    return np.moveaxis(out, -1, 1) if channels_first else out


@pytest.mark.parametrize("inverse", [False, True])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_gdn_normalizes_across_channels(inverse, data_format):
    rng = np.random.RandomState(12)
    x = rng.randn(2, 3, 5, 4)
    out = layers.gdn(tf.constant(x), inverse=inverse, data_format=data_format)
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert names == ["gdn/reparam_beta", "gdn/reparam_gamma"]
    channels = x.shape[1] if data_format == "channels_first" else x.shape[-1]
    # at initialization beta = 1 and gamma = 0.1 * I (up to the 2**-36 pedestal)
    first = data_format == "channels_first"
    want = _gdn_np(x, np.ones(channels), 0.1 * np.eye(channels), inverse, first)
    beta_v, gamma_v = tf.trainable_variables()
    new_beta = rng.uniform(1.0, 2.0, channels)
    new_gamma = rng.uniform(0.05, 0.3, (channels, channels))
    offset = 2.0 ** -18
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(out), want, rtol=1e-6)
        # the reparameterized variables hold sqrt(value + offset**2)
        sess.run([beta_v.assign(np.sqrt(new_beta + offset ** 2)),
                  gamma_v.assign(np.sqrt(new_gamma + offset ** 2))])
        got = sess.run(out)
    np.testing.assert_allclose(got, _gdn_np(x, new_beta, new_gamma, inverse, first),
                               rtol=1e-6)


def test_gdn_input_gradient_matches_finite_differences():
    x0 = np.random.RandomState(13).randn(1, 3, 2)
    x = tf.placeholder(tf.float64, x0.shape)
    loss = tf.reduce_sum(tf.sin(layers.gdn(x)))
    (grad,) = tf.gradients(loss, [x])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(grad, {x: x0})

        def f(v):
            return sess.run(loss, {x: v})

        eps = 1e-6
        num = np.zeros_like(x0)
        for idx in np.ndindex(x0.shape):
            d = np.zeros_like(x0)
            d[idx] = eps
            num[idx] = (f(x0 + d) - f(x0 - d)) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-8)


def test_gdn_rejects_bad_ranks_formats_and_unknown_channels():
    with pytest.raises(ValueError):
        layers.gdn(tf.zeros([2, 3]))
    with pytest.raises(ValueError):
        layers.gdn(tf.zeros([1, 2, 3, 4, 3, 2]), name="g6")
    with pytest.raises(ValueError):
        layers.gdn(tf.zeros([1, 2, 3, 4]), data_format="NHWC", name="g_fmt")
    with pytest.raises(ValueError, match="channel dimension"):
        layers.gdn(tf.placeholder(tf.float32, [None, None, None, None]), name="g_unk")


def test_layer_weight_penalties_are_named_after_the_core_layer_weights():
    reg = tf.contrib.layers.l2_regularizer(0.01)
    x = tf.ones([2, 4, 4, 3])
    layers.conv2d(x, 5, 3, weights_regularizer=reg, biases_regularizer=reg)
    layers.fully_connected(tf.ones([2, 3]), 4, weights_regularizer=reg,
                           biases_regularizer=reg)
    layers.separable_conv2d(x, 6, 3, 2, weights_regularizer=reg)
    layers.separable_conv2d(x, None, 3, 2, weights_regularizer=reg, scope="dw")
    layers.conv2d_transpose(x, 2, 3, weights_regularizer=reg)
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [loss.op.name for loss in losses] == [
        "Conv/kernel/Regularizer/l2_regularizer", "Conv/bias/Regularizer/l2_regularizer",
        "fully_connected/kernel/Regularizer/l2_regularizer",
        "fully_connected/bias/Regularizer/l2_regularizer",
        "SeparableConv2d/depthwise_kernel/Regularizer/l2_regularizer",
        "SeparableConv2d/pointwise_kernel/Regularizer/l2_regularizer",
        "dw/depthwise_weights/Regularizer/l2_regularizer",
        "Conv2d_transpose/kernel/Regularizer/l2_regularizer"]
    weights = contrib_variables.get_variables_by_name("weights")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, w = sess.run([losses[0], weights[0]])
    np.testing.assert_allclose(got, 0.01 * (w ** 2).sum() / 2, rtol=1e-5)


# --- contrib.layers utils ------------------------------------------------------------------

def test_utils_gather_tensors_aliases_and_repeated_aliases():
    from tideflow.contrib.layers.python.layers import utils

    t1 = tf.constant(1.0, name="t1")
    t2 = tf.constant(2.0, name="t2")
    utils.collect_named_outputs("ends", "a11", t1)
    utils.collect_named_outputs("ends", "a12", t1)
    tf.add_to_collection("ends", t2)
    assert t1.aliases == ["a11", "a12"]
    assert utils.gather_tensors_aliases([t1, t2]) == ["a11", "a12", "t2"]
    assert tf.contrib.slim.utils.gather_tensors_aliases([t2]) == ["t2"]
    ends = utils.convert_collection_to_dict("ends", clear_collection=True)
    assert list(ends) == ["a11", "a12", "t2"] and ends["a12"] is t1
    assert tf.get_collection("ends") == []


def test_utils_n_positive_integers_raises_value_error_for_any_bad_input():
    from tideflow.contrib.layers.python.layers import utils

    shape = tf.TensorShape
    assert utils.n_positive_integers(3, 2) == (2, 2, 2)
    assert utils.n_positive_integers(2, (2, "3")) == (2, 3)
    assert utils.n_positive_integers(3, shape([2, 3, 1])) == (2, 3, 1)
    assert utils.n_positive_integers(2, 1.5) == (1, 1)  # TF 1.15 truncates with int()
    for n, value in [("3", [1]), (3.3, [1]), (0, [1]), (1, [1, 2]), (1, [0]), (2, ["x", 2]),
                     (3, shape([2, None, 1])), (3, shape(None)), (2, -1)]:
        with pytest.raises(ValueError):
            utils.n_positive_integers(n, value)


# --- embedding lookups ---------------------------------------------------------------------

def test_safe_embedding_lookup_sparse_drops_invalid_ids_and_fills_empty_rows():
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], tf.constant([1, 3, -1, 2], tf.int64),
                          [3, 2])
    weights = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0]], [1.0, 3.0, 1.0, 0.0], [3, 2])
    mean = layers.safe_embedding_lookup_sparse(tf.constant(table), ids)
    weighted = layers.safe_embedding_lookup_sparse([tf.constant(table)], ids, weights,
                                                   combiner="sum", default_id=0)
    got_mean, got_sum = _run([mean, weighted])
    np.testing.assert_allclose(got_mean, [(table[1] + table[3]) / 2, np.zeros(3), table[2]])
    # row 1's only id is invalid: default_id's row; a "sum" keeps row 2's zero weight (TF 1.15)
    np.testing.assert_allclose(got_sum, [table[1] + 3 * table[3], table[0], np.zeros(3)])


def test_embedding_lookup_unique_keeps_the_ids_shape():
    table = np.arange(10, dtype=np.float32).reshape(5, 2)
    ids = np.array([[4, 1, 4], [0, 1, 1]])
    got = layers.embedding_lookup_unique(tf.constant(table), tf.constant(ids))
    assert got.shape.as_list() == [2, 3, 2]
    np.testing.assert_array_equal(_run(got), table[ids])


# --- summaries -------------------------------------------------------------------------------

def test_summarize_tensor_default_tag_and_summaries_module_path():
    from tideflow.contrib.layers.python.layers import summaries

    v = tf.Variable(1)
    for name in ("Test1", "Test2", "Foobar"):
        tf.add_to_collection("foo", tf.identity(v, name=name))
    got = summaries.summarize_collection("foo", r"Test[12]")
    assert [s.op.name for s in got] == ["Test1_summary", "Test2_summary"]
    hist = layers.summarize_tensor(tf.constant([1.0, 2.0], name="vec"))
    assert hist.op.type == "HistogramSummary" and hist.op.name == "vec_summary"
    tagged = layers.summarize_tensor(tf.constant(3.0), tag="total")
    assert tagged.op.type == "ScalarSummary"
    with tf.Session() as sess:
        summary = tf.Summary()
        summary.ParseFromString(sess.run(tagged))
    assert summary.value[0].tag == "total" and summary.value[0].simple_value == 3.0


# --- contrib.framework tensor checks and helpers ------------------------------------------

def test_contrib_framework_scalar_checks_and_reduce_sum_n():
    fw = tf.contrib.framework
    assert fw.assert_scalar_int(tf.constant(3)).dtype == tf.int32
    with pytest.raises(ValueError, match="Expected integer type"):
        fw.assert_scalar_int(tf.constant(3.0))
    with pytest.raises(ValueError, match="Expected scalar shape"):
        fw.assert_scalar(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="No tensors provided"):
        fw.reduce_sum_n([])
    a = np.arange(6.0).reshape(2, 3)
    total = fw.reduce_sum_n([tf.constant(a), tf.constant([[1.0], [2.0]], tf.float64)])
    assert _run(total) == a.sum() + 3.0
    assert fw.is_tensor(total) and not fw.is_tensor(a)


def test_contrib_framework_with_shape_static_and_run_time():
    fw = tf.contrib.framework
    x = tf.zeros([2, 3])
    assert fw.with_shape([2, 3], x) is x
    with pytest.raises(ValueError, match="Invalid shape for tensor"):
        fw.with_shape([3, 2], x)
    with pytest.raises(ValueError, match="Invalid dtype"):
        fw.with_shape(np.array([2, 3], np.float32), x)
    p = tf.placeholder(tf.float32, [None, 3])
    checked = fw.with_shape([2, 3], p)
    assert checked.shape.as_list() == [2, 3]
    same = fw.with_same_shape(tf.zeros([2, 3]), p)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(checked, {p: np.ones((2, 3))}), np.ones((2, 3)))
        sess.run(same, {p: np.ones((2, 3))})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Wrong shape"):
            sess.run(checked, {p: np.ones((4, 3))})


def test_contrib_framework_squeeze_placeholders_and_helpers():
    fw = tf.contrib.framework
    preds, labels = fw.remove_squeezable_dimensions(tf.zeros([4, 1]), tf.zeros([4]))
    assert preds.shape.as_list() == [4] and labels.shape.as_list() == [4]
    preds, labels = fw.remove_squeezable_dimensions(tf.zeros([4]), tf.zeros([4, 1]))
    assert labels.shape.as_list() == [4]
    p1 = tf.placeholder(tf.float32, name="p1")
    p2 = tf.placeholder(tf.int32, name="p2")
    assert fw.get_placeholders(tf.get_default_graph()) == [p1, p2]
    with tf.name_scope("outer"):
        assert fw.get_name_scope() == "outer"
    v = tf.Variable(1.0)
    fw.add_model_variable(v)
    fw.add_model_variable(v)
    assert fw.get_model_variables() == [v]
    step = tf.train.get_or_create_global_step()
    assert fw.assert_or_get_global_step() is step
    assert fw.smart_constant_value(tf.constant(True)) is True
    assert fw.smart_constant_value(tf.placeholder(tf.bool)) is None
    assert fw.smart_cond(False, lambda: 1, lambda: 2) == 2
    with pytest.raises(TypeError):
        fw.smart_constant_value("yes")


# --- slim.learning ---------------------------------------------------------------------------

def test_slim_multiply_gradients_checks_and_indexed_slices():
    learning = tf.contrib.slim.learning
    grad = tf.constant([1.0, 2.0, 3.0])
    var = tf.Variable(tf.zeros([3]))
    for args in [((grad, var), {var: 2.0}), ([(grad, var)], {}), ([(grad, var)], 3),
                 ([(None, var)], {var: 2.0})]:
        with pytest.raises(ValueError):
            learning.multiply_gradients(*args)
    sparse = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    table = tf.Variable(tf.zeros([3, 2]), name="table")
    flag = tf.Variable(True)
    [(scaled, v1), (sparse_scaled, v2)] = learning.multiply_gradients(
        [(grad, var), (sparse, table)], {var: tf.where(flag, 3.0, 1.0), "table": 0.5})
    assert v1 is var and v2 is table
    assert isinstance(sparse_scaled, tf.IndexedSlices) and sparse_scaled.indices is sparse.indices
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(scaled), [3.0, 6.0, 9.0])
        np.testing.assert_allclose(sess.run(sparse_scaled.values), [[0.5, 1.0]])
        sess.run(flag.assign(False))
        np.testing.assert_allclose(sess.run(scaled), [1.0, 2.0, 3.0])


def _slim_train_op():
    x = tf.constant(np.eye(4, dtype=np.float32))
    labels = tf.constant([[0.0], [1.0], [0.0], [1.0]])
    pred = layers.fully_connected(x, 1, activation_fn=tf.sigmoid)
    tf.contrib.losses.log_loss(pred, labels)
    return tf.contrib.slim.learning.create_train_op(tf.contrib.losses.get_total_loss(),
                                                    tf.train.GradientDescentOptimizer(1.0))


def test_slim_train_writes_chrome_traces_every_n_steps(tmp_path):
    learning = tf.contrib.slim.learning
    train_op = _slim_train_op()
    with pytest.raises(ValueError, match="trace_every_n_steps because logdir=None"):
        learning.train(train_op, None, number_of_steps=1, trace_every_n_steps=2)
    logdir = str(tmp_path / "logs")
    learning.train(train_op, logdir, number_of_steps=5, trace_every_n_steps=2,
                   save_summaries_secs=10000, save_interval_secs=10000)
    # traced before steps 0, 2, 4: files named after the step reached
    traces = sorted(p.name for p in tmp_path.joinpath("logs").glob("tf_trace-*.json"))
    assert traces == ["tf_trace-1.json", "tf_trace-3.json", "tf_trace-5.json"]
    import json

    events = json.loads((tmp_path / "logs" / "tf_trace-1.json").read_text())["traceEvents"]
    assert events


def test_slim_train_step_takes_tf_style_flag_tensors(tmp_path):
    learning = tf.contrib.slim.learning
    train_op = _slim_train_op()
    step = tf.train.get_or_create_global_step()
    kwargs = {"should_stop": tf.greater_equal(step, 3), "should_log": tf.constant(False)}
    learning.train(train_op, str(tmp_path / "logs"), train_step_kwargs=kwargs,
                   save_summaries_secs=10000, save_interval_secs=10000)
    reader = tf.train.load_checkpoint(str(tmp_path / "logs"))
    assert reader.get_tensor("global_step") == 3  # should_stop is read after each step


def test_contrib_losses_implementation_path():
    from tideflow.contrib.losses.python.losses import loss_ops

    assert loss_ops.log_loss is tf.contrib.losses.log_loss
    assert loss_ops.get_total_loss is tf.contrib.losses.get_total_loss
    loss = loss_ops.absolute_difference(tf.constant([1.0, 4.0]), tf.constant([2.0, 2.0]))
    assert _run(loss) == 1.5


def test_contrib_training_implementation_paths_and_slim_evaluation_loop(tmp_path):
    from tideflow.contrib.training.python.training import evaluation as evaluation_lib
    from tideflow.contrib.training.python.training import training as training_lib

    assert training_lib.create_train_op is tf.contrib.training.create_train_op
    assert list(evaluation_lib.checkpoints_iterator(str(tmp_path / "none"), timeout=0)) == []
    calls = [0]

    def timeout_fn():
        calls[0] += 1
        return calls[0] >= 3

    tf.contrib.slim.evaluation.evaluation_loop("", str(tmp_path / "empty"), str(tmp_path),
                                               timeout=0, timeout_fn=timeout_fn)
    assert calls[0] == 3
    labels = np.array([0, 2, 1, 2])
    logits = np.eye(3)[[0, 1, 1, 2]]
    tf.train.get_or_create_global_step()
    preds = tf.argmax(tf.constant(logits) * tf.Variable(1.0, dtype=tf.float64), 1)
    value, update = tf.metrics.accuracy(labels=tf.constant(labels), predictions=preds)
    ckpt_dir = tmp_path / "ckpt"
    ckpt_dir.mkdir()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, str(ckpt_dir / "model"))
    ended = []

    class EndHook(tf.train.SessionRunHook):
        def end(self, session):
            ended.append(True)

    got = tf.contrib.slim.evaluation.evaluation_loop(
        "", str(ckpt_dir), str(tmp_path / "eval"), eval_op=update, final_op=value,
        hooks=[EndHook()], max_number_of_evaluations=1)
    assert got == 0.75 and ended == [True]


def test_normalization_and_embedding_ops_paths():
    from tideflow.contrib.layers.python.layers import embedding_ops, normalization

    assert normalization.instance_norm is layers.instance_norm
    assert normalization.group_norm is layers.group_norm
    assert embedding_ops.safe_embedding_lookup_sparse is layers.safe_embedding_lookup_sparse
    x = np.random.RandomState(14).randn(2, 3, 3, 4).astype(np.float32) * 3 + 5
    out = _run(normalization.instance_norm(x, center=False, scale=False))
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-6), rtol=1e-4, atol=1e-4)


def test_fully_connected_num_outputs_must_be_a_python_int():
    with pytest.raises(ValueError, match=r"num_outputs type should be one of \[<class 'int'>\], "
                                         r"got <class 'float'>"):
        layers.fully_connected(tf.zeros([2, 3]), 4.0)
    with pytest.raises(ValueError, match="num_outputs type should be one of"):
        layers.fully_connected(tf.zeros([2, 3]), np.int64(4))


def test_inner_flatten_dense_and_sparse():
    from tideflow.contrib.layers.python.layers import layers as layers_mod

    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    for new_rank in (1, 2, 3, 4):
        want = x.reshape(list(x.shape[:new_rank - 1]) + [-1])
        out = layers_mod._inner_flatten(x, new_rank)
        assert out.shape.as_list() == list(want.shape)
        np.testing.assert_array_equal(_run(out), want)
    p = tf.placeholder(tf.int32, [2, None, 4, 5])
    assert layers_mod._inner_flatten(p, 3).shape.as_list() == [2, None, 20]
    assert layers_mod._inner_flatten(p, 2).shape.as_list() == [2, None]
    with pytest.raises(ValueError, match="inputs has rank less than new_rank"):
        layers_mod._inner_flatten(tf.zeros([2, 3]), 3)
    dense = np.zeros((3, 2, 4))
    dense[0, 1, 2], dense[2, 0, 3] = 5.0, 7.0
    sparse = tf.SparseTensor(np.argwhere(dense), dense[dense != 0], dense.shape)
    flat = _run(layers_mod._inner_flatten(sparse, 2))
    np.testing.assert_array_equal(flat.dense_shape, [3, 8])
    np.testing.assert_array_equal(flat.indices, np.argwhere(dense.reshape(3, 8)))
    np.testing.assert_array_equal(flat.values, [5.0, 7.0])


def test_layers_built_on_core_layers_take_lower_case_padding():
    x = np.random.RandomState(15).rand(1, 5, 5, 2).astype(np.float32)
    same = layers.max_pool2d(x, 2, padding="same")
    valid = layers.avg_pool2d(x, 2, padding="valid")
    assert same.shape.as_list() == [1, 3, 3, 2] and valid.shape.as_list() == [1, 2, 2, 2]
    assert layers.conv2d(x, 4, 3, padding="same").shape.as_list() == [1, 5, 5, 4]
    assert layers.conv2d_transpose(x, 4, 3, padding="valid").shape.as_list() == [1, 7, 7, 4]
    assert layers.separable_conv2d(x, 4, 3, 1, padding="valid").shape.as_list() == [1, 3, 3, 4]
    want = x[:, :4, :4].reshape(1, 2, 2, 2, 2, 2).mean(axis=(2, 4))
    np.testing.assert_allclose(_run(valid), want, rtol=1e-6)
    with pytest.raises(ValueError, match="`padding` argument must be a list/tuple or one of "
                                         '"valid", "same"'):  # TF 1.15's words
        layers.conv2d(x, 4, 3, padding="full")


def test_optimize_loss_default_and_requested_summaries():
    _, _, loss, step = _optimize_loss_model()
    layers.optimize_loss(loss, step, learning_rate=0.1, optimizer="SGD")
    names = sorted(s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES))
    assert names == ["OptimizeLoss/global_norm/gradient_norm", "OptimizeLoss/loss"]
    with tf.Graph().as_default():
        _, _, loss, step = _optimize_loss_model()
        layers.optimize_loss(loss, step, learning_rate=0.1, optimizer="SGD",
                             learning_rate_decay_fn=lambda lr, gs: lr * 0.5,
                             summaries=["learning_rate", "gradients", "gradient_norm"],
                             clip_gradients=layers.adaptive_clipping_fn())
        names = sorted(s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES))
        assert names == ["OptimizeLoss/global_norm/clipped_gradient_norm",
                         "OptimizeLoss/global_norm/gradient_norm",
                         "OptimizeLoss/gradient_norm/w_0", "OptimizeLoss/gradients/w_0",
                         "OptimizeLoss/learning_rate_1"]  # the variable holds the name
