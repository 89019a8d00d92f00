"""TF-Slim's model zoo (tf.contrib.slim.nets: ResNet v1/v2, Inception v1-v3, OverFeat) and
slim's training/evaluation loop on it.

Reference facts (variable names, shapes and their order, end-point keys and shapes, collection
sizes) were observed from tf_slim 1.1.0 (TF 1.15's contrib slim, moved out) running on real
TensorFlow 2.21 in compat.v1 mode, building the same networks at the same input sizes.
"""

import numpy as np
import pytest

import tideflow as tf

slim = tf.contrib.slim


def _names(variables):
    return [v.op.name for v in variables]


@pytest.mark.parametrize("shape,gamma_first", [([8, 3], False), ([4, 2, 2, 3], True),
                                                ([4, 2, 3], True), ([4, 2, 2, 2, 3], True)])
def test_batch_norm_creates_gamma_first_where_tf_uses_the_core_layer(shape, gamma_first):
    # tf_slim: rank 2 goes to the fused kernel (beta, gamma, ...); other ranks with the default
    # UPDATE_OPS collection to tf.layers.BatchNormalization, which makes gamma first
    with tf.Graph().as_default():
        slim.batch_norm(tf.placeholder(tf.float32, shape), scale=True)
        params = ["BatchNorm/gamma", "BatchNorm/beta"]
        if not gamma_first:
            params.reverse()
        assert _names(tf.global_variables()) == [*params, "BatchNorm/moving_mean",
                                                 "BatchNorm/moving_variance"]
    with tf.Graph().as_default():  # other update collections: slim's own kernel, beta first
        slim.batch_norm(tf.placeholder(tf.float32, [4, 2, 2, 3]), scale=True,
                        updates_collections=None)
        assert _names(tf.trainable_variables()) == ["BatchNorm/beta", "BatchNorm/gamma"]


# ------------------------------------------------------------------------------------------
# names, shapes and end points against tf_slim
# ------------------------------------------------------------------------------------------

def _digest(lines):
    import hashlib

    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


# case: (module, function, arg scope, input size, keyword arguments)
_CASES = {
    "r1_50": ("resnet_v1", "resnet_v1_50", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r1_50_os8": ("resnet_v1", "resnet_v1_50", "resnet_arg_scope", 65,
                  {"num_classes": None, "global_pool": False, "output_stride": 8}),
    "r1_101": ("resnet_v1", "resnet_v1_101", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r1_152": ("resnet_v1", "resnet_v1_152", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r1_200": ("resnet_v1", "resnet_v1_200", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r2_50": ("resnet_v2", "resnet_v2_50", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r2_50_os16": ("resnet_v2", "resnet_v2_50", "resnet_arg_scope", 65,
                   {"num_classes": 3, "global_pool": False, "output_stride": 16}),
    "r2_101": ("resnet_v2", "resnet_v2_101", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r2_152": ("resnet_v2", "resnet_v2_152", "resnet_arg_scope", 64, {"num_classes": 5}),
    "r2_200": ("resnet_v2", "resnet_v2_200", "resnet_arg_scope", 64, {"num_classes": 5}),
    "i1": ("inception", "inception_v1", "inception_v1_arg_scope", 224, {"num_classes": 7}),
    "i1_base": ("inception", "inception_v1_base", "inception_v1_arg_scope", 64, {}),
    "i2": ("inception", "inception_v2", "inception_v2_arg_scope", 64, {"num_classes": 7}),
    "i2_dm": ("inception", "inception_v2", "inception_v2_arg_scope", 224,
              {"num_classes": 7, "depth_multiplier": 0.5}),
    "i3": ("inception", "inception_v3", "inception_v3_arg_scope", 139, {"num_classes": 7}),
    "i3_299": ("inception", "inception_v3", "inception_v3_arg_scope", 299, {"num_classes": 7}),
    "i3_noaux": ("inception", "inception_v3", "inception_v3_arg_scope", 139,
                 {"num_classes": 7, "create_aux_logits": False, "spatial_squeeze": False}),
    "of": ("overfeat", "overfeat", "overfeat_arg_scope", 231, {"num_classes": 7}),
}

# Observed from tf_slim on real TF, batch 2 (see the module docstring): number of global
# variables, trainable parameters, digest of the ordered "name shape" variable list, number of
# end points, digest of the ordered "key shape" end-point list, output shape, regularization
# losses, UPDATE_OPS entries, 'moving_vars' entries. The digest is sha256 over the lines joined
# by newlines (shapes written as Python lists), first 16 hex digits.
_FACTS = {
    "r1_50": (267, 23518277, "8f93b3ce0f108b14", 75, "90d0b98d60512195", [2, 1, 1, 5], 54, 106, 0),
    "r1_50_os8": (265, 23508032, "348e96c2845ca881", 73, "203ab0890be7f004", [2, 9, 9, 2048],
                  53, 106, 0),
    "r1_101": (522, 42510405, "bfcc3050956062e7", 143, "b2f82fefb778a88a", [2, 1, 1, 5], 105,
               208, 0),
    "r1_152": (777, 58154053, "82f94917ee2bf239", 211, "f1c085d28cda3d58", [2, 1, 1, 5], 156,
               310, 0),
    "r1_200": (1017, 62635077, "009d4f4969585ebf", 275, "e4e7c979da2d7532", [2, 1, 1, 5], 204,
               406, 0),
    "r2_50": (272, 23529605, "7770a5a38985fbaf", 75, "af648c902f1ef887", [2, 1, 1, 5], 54, 98, 0),
    "r2_50_os16": (272, 23525507, "3c905355459d67c3", 75, "4d50dfa14637580a", [2, 5, 5, 3], 54,
                   98, 0),
    "r2_101": (544, 42539141, "f6305d203bcd345c", 143, "70bb62e36432e6c6", [2, 1, 1, 5], 105,
               200, 0),
    "r2_152": (816, 58198149, "fe5e5350bd0ec7c6", 211, "11de42d0339ef309", [2, 1, 1, 5], 156,
               302, 0),
    "r2_200": (1072, 62687365, "3a96fd1521af7fb1", 275, "2fa3e2f52d983970", [2, 1, 1, 5], 204,
               398, 0),
    "i1": (230, 5599799, "ab8c3a3fe11da881", 18, "68c12be41cfe419a", [2, 7], 58, 114, 114),
    "i1_base": (228, 5592624, "0a67c50b6ada5dfa", 16, "679e0b9d632e0193", [2, 2, 2, 1024], 57,
                114, 114),
    "i2": (277, 10160511, "395961f2e226c207", 17, "5d909e0a2ef6fd2a", [2, 7], 69, 136, 136),
    "i2_dm": (277, 2545679, "f0913d2bbdeb67c5", 17, "b0fd8f2d49783f9a", [2, 7], 69, 136, 136),
    "i3": (388, 21985582, "cdeafeca643cafa2", 22, "8c90f2fbe0564ac4", [2, 7], 98, 192, 192),
    "i3_299": (388, 24344878, "cdacb678fbac138b", 22, "f31b0da4a76f7ffe", [2, 7], 98, 192, 192),
    "i3_noaux": (378, 21782695, "5e38d6cffc37036f", 21, "61ae551df4247acf", [2, 1, 1, 7], 95,
                 188, 188),
    "of": (16, 141636103, "ddb4a8cccb738dbe", 11, "42f3729311bf4c8d", [2, 7], 8, 0, 0),
}


def _build(case, batch=2):
    module, fn, scope_fn, size, kwargs = _CASES[case]
    net_module = getattr(slim.nets, module)
    images = tf.placeholder(tf.float32, [batch, size, size, 3])
    with slim.arg_scope(getattr(net_module, scope_fn)()):
        out, end_points = getattr(net_module, fn)(images, **kwargs)
    return images, out, end_points


@pytest.mark.parametrize("case", sorted(_FACTS))
def test_variables_and_end_points_are_slims(case):
    (n_vars, n_params, vars_digest, n_end_points, end_points_digest, out_shape, n_reg,
     n_updates, n_moving) = _FACTS[case]
    with tf.Graph().as_default():
        _, out, end_points = _build(case)
        variables = tf.global_variables()
        assert len(variables) == n_vars
        params = sum(int(np.prod(v.shape.as_list())) for v in tf.trainable_variables())
        assert params == n_params
        assert _digest(f"{v.op.name} {v.shape.as_list()}" for v in variables) == vars_digest
        assert len(end_points) == n_end_points
        assert _digest(f"{k} {t.shape.as_list()}" for k, t in end_points.items()) == \
            end_points_digest
        assert out.shape.as_list() == out_shape
        assert len(tf.losses.get_regularization_losses()) == n_reg
        assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == n_updates
        assert len(tf.get_collection("moving_vars")) == n_moving
        assert tf.model_variables() == variables


def test_key_names_and_shapes_of_the_published_checkpoints():
    # a few entries of the lists the digests above cover, readable (from tf_slim)
    with tf.Graph().as_default():
        _build("r1_50")
        shapes = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
        assert _names(tf.global_variables())[:6] == [
            "resnet_v1_50/conv1/weights", "resnet_v1_50/conv1/BatchNorm/gamma",
            "resnet_v1_50/conv1/BatchNorm/beta", "resnet_v1_50/conv1/BatchNorm/moving_mean",
            "resnet_v1_50/conv1/BatchNorm/moving_variance",
            "resnet_v1_50/block1/unit_1/bottleneck_v1/shortcut/weights"]
        assert shapes["resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/weights"] == [1, 1, 64, 64]
        assert shapes["resnet_v1_50/logits/weights"] == [1, 1, 2048, 5]
    with tf.Graph().as_default():
        _build("r2_50")
        assert _names(tf.global_variables())[-6:] == [
            "resnet_v2_50/postnorm/gamma", "resnet_v2_50/postnorm/beta",
            "resnet_v2_50/postnorm/moving_mean", "resnet_v2_50/postnorm/moving_variance",
            "resnet_v2_50/logits/weights", "resnet_v2_50/logits/biases"]
    with tf.Graph().as_default():
        _, _, end_points = _build("i3")
        shapes = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
        assert shapes["InceptionV3/Mixed_5c/Branch_1/Conv_1_0c_5x5/weights"] == [5, 5, 48, 64]
        assert shapes["InceptionV3/AuxLogits/Conv2d_2a_1x1/weights"] == [1, 1, 128, 768]
        assert end_points["Mixed_7c"].shape.as_list() == [2, 3, 3, 2048]
        assert end_points["PreLogits"].shape.as_list() == [2, 1, 1, 2048]
    with tf.Graph().as_default():
        _build("i2")
        shapes = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
        assert shapes["InceptionV2/Conv2d_1a_7x7/depthwise_weights"] == [7, 7, 3, 8]
        assert shapes["InceptionV2/Conv2d_1a_7x7/pointwise_weights"] == [1, 1, 24, 64]
    with tf.Graph().as_default():
        _build("i1")
        names = set(_names(tf.global_variables()))
        assert "InceptionV1/Mixed_5b/Branch_2/Conv2d_0a_3x3/weights" in names
        assert "InceptionV1/Logits/Conv2d_0c_1x1/biases" in names


# ------------------------------------------------------------------------------------------
# the nets' arithmetic
# ------------------------------------------------------------------------------------------

resnet_utils = slim.nets.resnet_utils
resnet_v1 = slim.nets.resnet_v1
resnet_v2 = slim.nets.resnet_v2


def _np_conv(x, w, stride, pad_before, pad_after, rate=1):
    """NumPy cross-correlation of NHWC ``x`` with HWIO ``w``, zero-padded explicitly."""
    x = np.pad(x, [(0, 0), (pad_before, pad_after), (pad_before, pad_after), (0, 0)])
    k = w.shape[0]
    span = (k - 1) * rate + 1
    out_h = (x.shape[1] - span) // stride + 1
    out_w = (x.shape[2] - span) // stride + 1
    out = np.zeros([x.shape[0], out_h, out_w, w.shape[3]])
    for i in range(k):
        for j in range(k):
            patch = x[:, i * rate:i * rate + (out_h - 1) * stride + 1:stride,
                      j * rate:j * rate + (out_w - 1) * stride + 1:stride, :]
            out += patch @ w[i, j]
    return out


@pytest.mark.parametrize("size", [8, 7])
def test_conv2d_same_pads_explicitly_as_a_stride_1_same_convolution(size):
    rate = 1
    rng = np.random.RandomState(0)
    xv = rng.randn(1, size, size, 2).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        with slim.arg_scope([slim.conv2d], activation_fn=None,
                            weights_initializer=tf.random_normal_initializer(seed=1)):
            strided = resnet_utils.conv2d_same(x, 3, 3, stride=2, rate=rate, scope="c")
            dense = slim.conv2d(x, 3, [3, 3], stride=1, rate=rate, scope="c", reuse=True)
            plain = slim.conv2d(x, 3, [3, 3], stride=2, scope="c", reuse=True)
        subsampled = resnet_utils.subsample(dense, 2)
        w = tf.global_variables()[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, want, plain_v, wv = sess.run([strided, subsampled, plain, w])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    span = 2 * rate + 1
    np.testing.assert_allclose(
        got, _np_conv(xv, wv, 2, (span - 1) // 2, span - 1 - (span - 1) // 2, rate),
        rtol=1e-4, atol=1e-4)
    if size % 2 == 0:  # TF's SAME with stride 2 pads (0, 1): another result
        assert got.shape == plain_v.shape and not np.allclose(got, plain_v, atol=1e-3)


def test_bottleneck_v1_unit_against_numpy():
    rng = np.random.RandomState(1)
    xv = rng.randn(2, 6, 6, 4).astype(np.float32)
    with tf.Graph().as_default():
        with slim.arg_scope([slim.conv2d], normalizer_fn=None,
                            weights_initializer=tf.random_normal_initializer(seed=2),
                            biases_initializer=tf.constant_initializer(0.05)):
            out = resnet_v1.bottleneck(tf.constant(xv), depth=8, depth_bottleneck=3, stride=2,
                                       scope="unit")
        assert out.op.name == "unit/Relu"
        weights = {v.op.name: v for v in tf.trainable_variables()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, w = sess.run([out, weights])
    relu = lambda a: np.maximum(a, 0)
    shortcut = _np_conv(xv, w["unit/shortcut/weights"], 2, 0, 0) + 0.05
    residual = relu(_np_conv(xv, w["unit/conv1/weights"], 1, 0, 0) + 0.05)
    residual = relu(_np_conv(residual, w["unit/conv2/weights"], 2, 1, 1) + 0.05)
    residual = _np_conv(residual, w["unit/conv3/weights"], 1, 0, 0) + 0.05
    np.testing.assert_allclose(got, relu(shortcut + residual), rtol=1e-4, atol=1e-4)


def test_bottleneck_v2_unit_against_numpy():
    # identity shortcut (same depth) subsampled by a 1x1 max pool; preact BN at its initial
    # moving statistics (inference): x / sqrt(1 + eps)
    rng = np.random.RandomState(2)
    xv = rng.randn(1, 5, 5, 8).astype(np.float32)
    with tf.Graph().as_default():
        with slim.arg_scope(resnet_utils.resnet_arg_scope()), \
                slim.arg_scope([slim.batch_norm], is_training=False):
            out = resnet_v2.bottleneck(tf.constant(xv), depth=8, depth_bottleneck=2, stride=2)
        names = _names(tf.global_variables())
        assert names[:4] == ["bottleneck_v2/preact/gamma", "bottleneck_v2/preact/beta",
                             "bottleneck_v2/preact/moving_mean",
                             "bottleneck_v2/preact/moving_variance"]
        assert "bottleneck_v2/conv3/biases" in names and not any("shortcut" in n for n in names)
        w = {v.op.name: v for v in tf.trainable_variables() if v.op.name.endswith("weights")}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, wv = sess.run([out, w])
    bn = 1 / np.sqrt(1 + 1e-5)
    relu = lambda a: np.maximum(a, 0)
    preact = relu(xv * bn)
    residual = relu(_np_conv(preact, wv["bottleneck_v2/conv1/weights"], 1, 0, 0) * bn)
    residual = relu(_np_conv(residual, wv["bottleneck_v2/conv2/weights"], 2, 1, 1) * bn)
    residual = _np_conv(residual, wv["bottleneck_v2/conv3/weights"], 1, 0, 0)
    np.testing.assert_allclose(got, xv[:, ::2, ::2] + residual, rtol=1e-4, atol=1e-4)


def _small_blocks(unit_fn=resnet_v1.bottleneck):
    def block(scope, depth, bottleneck):
        return resnet_utils.Block(scope, unit_fn, [
            {"depth": depth, "depth_bottleneck": bottleneck, "stride": 1},
            {"depth": depth, "depth_bottleneck": bottleneck, "stride": 2}])

    return [block("block1", 4, 1), block("block2", 8, 2), block("block3", 16, 4),
            resnet_utils.Block("block4", unit_fn, [(32, 8, 1), (32, 8, 1)])]  # TF 1.0 tuples


@pytest.mark.parametrize("output_stride", [1, 2, 4, 8])
def test_stack_blocks_dense_atrous_output_subsamples_to_the_nominal_one(output_stride):
    # nominal stride 8; denser outputs (atrous units past output_stride) subsample to it
    rng = np.random.RandomState(3)
    xv = rng.randn(2, 17, 17, 3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        with slim.arg_scope(resnet_utils.resnet_arg_scope()), \
                slim.arg_scope([slim.batch_norm], is_training=False):
            with tf.variable_scope("net"):
                nominal = resnet_utils.stack_blocks_dense(x, _small_blocks())
            with tf.variable_scope("net", reuse=True):
                dense = resnet_utils.stack_blocks_dense(x, _small_blocks(), output_stride)
        dense = resnet_utils.subsample(dense, 8 // output_stride)
        assert nominal.shape.as_list() == [2, 3, 3, 32]
        assert dense.shape.as_list() == [2, 3, 3, 32]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, want = sess.run([dense, nominal])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_store_non_strided_activations_keeps_the_output_and_records_dense_blocks():
    rng = np.random.RandomState(4)
    xv = rng.randn(1, 64, 64, 3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        with slim.arg_scope(resnet_v1.resnet_arg_scope()):
            plain, plain_ends = resnet_v1.resnet_v1(x, _small_blocks(), 4, is_training=False,
                                                    scope="r")
            stored, ends = resnet_v1.resnet_v1(x, _small_blocks(), 4, is_training=False,
                                               scope="r", reuse=True,
                                               store_non_strided_activations=True)
        assert plain_ends["r/block1"].shape.as_list() == [1, 8, 8, 4]
        assert ends["r/block1"].shape.as_list() == [1, 16, 16, 4]
        assert ends["r/block3"].shape.as_list() == [1, 4, 4, 16]
        assert stored.shape.as_list() == plain.shape.as_list() == [1, 1, 1, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, want = sess.run([stored, plain])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", ["r1_50", "r2_50", "i1", "i2", "i3"])
def test_forward_pass_is_per_example_and_predictions_are_probabilities(case):
    # inference: batch norm at its moving statistics, no dropout, so each example's logits
    # do not depend on the rest of the batch
    module, fn, scope_fn, size, kwargs = _CASES[case]
    net_module = getattr(slim.nets, module)
    xv = np.random.RandomState(5).rand(2, size, size, 3).astype(np.float32)
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, size, size, 3])
        with slim.arg_scope(getattr(net_module, scope_fn)()):
            logits, end_points = getattr(net_module, fn)(images, is_training=False, **kwargs)
        probabilities = end_points.get("predictions", end_points.get("Predictions"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            both, probs = sess.run([logits, probabilities], {images: xv})
            second = sess.run(logits, {images: xv[1:]})
    classes = kwargs["num_classes"]
    assert both.shape[0] == 2 and both.shape[-1] == classes and np.isfinite(both).all()
    scale = np.abs(both).max()  # Inception v1's 0.01-stddev layers give tiny initial logits
    np.testing.assert_allclose(second[0], both[1], rtol=1e-4, atol=1e-5 * scale)
    np.testing.assert_allclose(probs.reshape(2, classes).sum(axis=1), 1.0, rtol=1e-5)
    assert not np.allclose(both[0], both[1], rtol=1e-3, atol=1e-3 * scale)


def test_reuse_shares_every_variable_and_scope_names_the_net():
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [1, 32, 32, 3])
        with slim.arg_scope(resnet_v2.resnet_arg_scope()):
            resnet_v2.resnet_v2_50(images, 3, scope="tower")
            count = len(tf.global_variables())
            _, ends = resnet_v2.resnet_v2_50(images, 3, scope="tower", reuse=True)
        assert len(tf.global_variables()) == count
        assert "tower/block4" in ends and ends["tower/logits"].shape.as_list() == [1, 1, 1, 3]
        with slim.arg_scope(resnet_v1.resnet_arg_scope()):
            net, ends = resnet_v1.resnet_v1_101(images, None, global_pool=False,
                                                spatial_squeeze=True)
        assert net.shape.as_list() == [1, 1, 1, 2048] and "predictions" not in ends
        with slim.arg_scope(resnet_v1.resnet_arg_scope()):
            net, ends = resnet_v1.resnet_v1_50(images, 6, spatial_squeeze=True, scope="sq")
        assert net.shape.as_list() == [1, 6] and ends["sq/spatial_squeeze"] is net
        assert ends["predictions"].shape.as_list() == [1, 6]


def test_invalid_arguments_raise_as_slim():
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [1, 64, 64, 3])
        with pytest.raises(ValueError, match="multiple of 4"):
            resnet_v1.resnet_v1_50(images, output_stride=6)
        with pytest.raises(ValueError, match="output_stride cannot be reached"):
            resnet_v2.resnet_v2_50(images, output_stride=64, scope="b")
        with pytest.raises(ValueError, match="Unknown final endpoint Mixed_9z"):
            slim.nets.inception.inception_v3_base(tf.zeros([1, 75, 75, 3]),
                                                  final_endpoint="Mixed_9z")
        with pytest.raises(ValueError, match="depth_multiplier is not greater than zero"):
            slim.nets.inception.inception_v2(images, depth_multiplier=0)
        net, ends = slim.nets.inception.inception_v1_base(images, final_endpoint="Mixed_3b",
                                                          scope="v1")
        assert list(ends)[-1] == "Mixed_3b" and net.shape.as_list() == [1, 8, 8, 256]
        with pytest.raises(ValueError, match="stack_blocks_dense"):
            resnet_utils.stack_blocks_dense(
                images, [resnet_utils.Block("bad", resnet_v1.bottleneck, [(4, 1)])])


def test_the_import_forms_of_tf1_programs():
    import tideflow.contrib.slim.nets as nets  # noqa: PLR0402 - the form programs use
    import tideflow.contrib.slim.nets.resnet_v2 as resnet_v2_module
    from tideflow.contrib.slim.nets import inception, overfeat
    from tideflow.contrib.slim.nets import resnet_utils as utils_module
    from tideflow.contrib.slim.nets import resnet_v1 as resnet_v1_module
    from tideflow.contrib.slim.nets.inception_v3 import inception_v3

    assert nets is slim.nets and nets.resnet_v1 is resnet_v1_module
    assert resnet_v2_module.resnet_v2_152.default_image_size == 224
    assert inception.inception_v3 is inception_v3 and inception_v3.default_image_size == 299
    assert overfeat.overfeat.default_image_size == 231
    assert utils_module.resnet_arg_scope is resnet_v1_module.resnet_arg_scope
    assert sorted(nets.__all__) == ["alexnet", "inception", "overfeat", "resnet_utils",
                                    "resnet_v1", "resnet_v2", "vgg"]

    # the implementation path older programs (e.g. tf-faster-rcnn) import from
    from tideflow.contrib.slim.python.slim import learning
    from tideflow.contrib.slim.python.slim.nets import resnet_utils as utils_again
    from tideflow.contrib.slim.python.slim.nets.resnet_v1 import resnet_v1_block

    assert utils_again is utils_module and learning.train is slim.learning.train
    assert resnet_v1_block is resnet_v1_module.resnet_v1_block
    assert tf.contrib.slim.python.slim.nets is nets


# ------------------------------------------------------------------------------------------
# slim's training and evaluation loops: the classic fine-tuning recipe
# ------------------------------------------------------------------------------------------

def _net(images, num_classes, is_training):
    # a ResNet v1 of two small blocks, scoped as resnet_v1_50 as a fine-tuning program's is
    blocks = [resnet_v1.resnet_v1_block("block1", base_depth=4, num_units=2, stride=2),
              resnet_v1.resnet_v1_block("block2", base_depth=8, num_units=2, stride=1)]
    with slim.arg_scope(resnet_v1.resnet_arg_scope()):
        logits, end_points = resnet_v1.resnet_v1(images, blocks, num_classes,
                                                 is_training=is_training,
                                                 scope="resnet_v1_50")
    return tf.squeeze(logits, [1, 2]), end_points


def test_fine_tuning_from_a_checkpoint_with_other_logits_then_evaluation(tmp_path):
    rng = np.random.RandomState(6)
    xs = rng.rand(4, 32, 32, 3).astype(np.float32)
    pre_dir, ft_dir = str(tmp_path / "pre"), str(tmp_path / "ft")

    # 1. "pretraining" on 10 classes, checkpointed by slim.learning.train
    with tf.Graph().as_default():
        logits, _ = _net(tf.constant(xs), 10, True)
        tf.losses.sparse_softmax_cross_entropy(tf.constant([1, 2, 3, 4]), logits)
        total = tf.losses.get_total_loss()
        tf.summary.scalar("total_loss", total)
        train_op = slim.learning.create_train_op(total, tf.train.GradientDescentOptimizer(0.1))
        loss = slim.learning.train(train_op, pre_dir, number_of_steps=3, save_summaries_secs=1,
                                   log_every_n_steps=1)
        assert np.isfinite(loss)
    pre_ckpt = tf.train.latest_checkpoint(pre_dir)
    assert pre_ckpt.endswith("model.ckpt-3")
    pre = tf.train.load_checkpoint(pre_ckpt)
    assert pre.get_variable_to_shape_map()["resnet_v1_50/logits/weights"] == [1, 1, 32, 10]

    # 2. fine-tuning on 3 classes: restore all but the logits, train the logits only
    labels = np.array([0, 1, 2, 0])
    with tf.Graph().as_default():
        logits, _ = _net(tf.constant(xs), 3, True)
        tf.losses.softmax_cross_entropy(tf.one_hot(labels, 3), logits)
        total = tf.losses.get_total_loss()
        to_restore = slim.get_variables_to_restore(exclude=["resnet_v1_50/logits"])
        assert len(to_restore) == len(tf.global_variables()) - 2
        restore_all = slim.assign_from_checkpoint_fn(pre_ckpt, tf.global_variables())
        with pytest.raises(tf.errors.InvalidArgumentError, match="resnet_v1_50/logits"), \
                tf.Session() as sess:  # the logits' shapes differ: no restoring all
            restore_all(sess)
        init_fn = slim.assign_from_checkpoint_fn(pre_ckpt, to_restore)
        train_vars = slim.get_trainable_variables("resnet_v1_50/logits")
        assert _names(train_vars) == ["resnet_v1_50/logits/weights",
                                      "resnet_v1_50/logits/biases"]
        train_op = slim.learning.create_train_op(
            total, tf.train.MomentumOptimizer(0.01, 0.9), variables_to_train=train_vars)
        slim.learning.train(train_op, ft_dir, init_fn=init_fn, number_of_steps=2,
                            save_summaries_secs=1, log_every_n_steps=1)
    ft_ckpt = tf.train.latest_checkpoint(ft_dir)
    ft = tf.train.load_checkpoint(ft_ckpt)
    assert ft.get_tensor("global_step") == 2
    for name in ("resnet_v1_50/conv1/weights",
                 "resnet_v1_50/block2/unit_2/bottleneck_v1/conv3/weights",
                 "resnet_v1_50/block1/unit_1/bottleneck_v1/shortcut/BatchNorm/gamma"):
        np.testing.assert_array_equal(ft.get_tensor(name), pre.get_tensor(name))
    # batch norm's moving statistics moved on (create_train_op runs UPDATE_OPS)
    mean = "resnet_v1_50/conv1/BatchNorm/moving_mean"
    assert not np.array_equal(ft.get_tensor(mean), pre.get_tensor(mean))
    assert ft.get_tensor("resnet_v1_50/logits/weights").shape == (1, 1, 32, 3)

    # 3. evaluation of the fine-tuned checkpoint: streaming accuracy over 2 evaluations
    with tf.Graph().as_default():
        logits, _ = _net(tf.constant(xs), 3, False)
        predictions = tf.argmax(logits, 1)
        values, updates = slim.metrics.aggregate_metric_map({
            "accuracy": slim.metrics.streaming_accuracy(predictions, tf.constant(labels))})
        tf.summary.scalar("accuracy", values["accuracy"])
        once = slim.evaluation.evaluate_once("", ft_ckpt, str(tmp_path / "eval"), num_evals=2,
                                             eval_op=list(updates.values()),
                                             final_op=[values["accuracy"], predictions])
        looped = slim.evaluation.evaluation_loop(
            "", ft_dir, str(tmp_path / "eval_loop"), num_evals=1,
            eval_op=list(updates.values()), final_op=values["accuracy"],
            eval_interval_secs=1, max_number_of_evaluations=1)
    accuracy, predicted = once
    assert accuracy == pytest.approx(np.mean(predicted == labels))
    assert looped == pytest.approx(accuracy)
    assert any(p.name.startswith("events.out.tfevents") for p in (tmp_path / "eval").iterdir())


def test_slim_learning_gradient_helpers_and_gradient_summaries():
    with tf.Graph().as_default():
        w = tf.Variable([3.0, 4.0], name="w")
        v = tf.Variable(1.0, name="v")
        loss = tf.reduce_sum(w * w)
        optimizer = tf.train.GradientDescentOptimizer(0.1)
        grads = optimizer.compute_gradients(loss, [w, v])
        clipped = slim.learning.clip_gradient_norms(grads, 1.0)
        scaled = slim.learning.multiply_gradients(grads, {"w": 0.5})
        summaries = slim.learning.add_gradients_summaries(grads)  # v has no gradient
        # TF 1.15: slim's own helper names them with a slash, create_train_op (through
        # tf.contrib.training) with an underscore
        assert [s.op.name for s in summaries] == ["w/gradient", "w/gradient_norm"]
        train_op = slim.learning.create_train_op(loss, optimizer, summarize_gradients=True)
        tags = [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        assert tags[-2:] == ["summarize_grads/w_gradient", "summarize_grads/w_gradient_norm"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(clipped[0][0]), [0.6, 0.8], rtol=1e-6)
            np.testing.assert_allclose(sess.run(scaled[0][0]), [3.0, 4.0], rtol=1e-6)
            assert sess.run(train_op) == pytest.approx(25.0)
            np.testing.assert_allclose(sess.run(w), [2.4, 3.2], rtol=1e-6)


def test_evaluation_restores_moving_averages_through_variables_to_restore(tmp_path):
    # models/research slim's eval recipe: shadow variables restored into the model's
    # variables, metric summaries wrapped in tf.Print and filed in SUMMARIES by hand
    xs = np.random.RandomState(7).rand(4, 32, 32, 3).astype(np.float32)
    labels = np.array([0, 1, 2, 1])
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        logits, _ = _net(tf.constant(xs), 3, True)
        tf.losses.sparse_softmax_cross_entropy(tf.constant(labels), logits)
        averages = tf.train.ExponentialMovingAverage(0.5, step)
        update_ops = [*tf.get_collection(tf.GraphKeys.UPDATE_OPS),
                      averages.apply(slim.get_model_variables())]
        train_op = slim.learning.create_train_op(
            tf.losses.get_total_loss(), tf.train.RMSPropOptimizer(0.01, momentum=0.9),
            update_ops=update_ops)
        slim.learning.train(train_op, str(tmp_path / "train"), number_of_steps=2,
                            log_every_n_steps=10)
    ckpt = tf.train.latest_checkpoint(str(tmp_path / "train"))
    reader = tf.train.load_checkpoint(ckpt)
    shadow = "resnet_v1_50/logits/weights/ExponentialMovingAverage"
    assert not np.array_equal(reader.get_tensor(shadow),
                              reader.get_tensor("resnet_v1_50/logits/weights"))
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        logits, _ = _net(tf.constant(xs), 3, False)
        to_restore = tf.train.ExponentialMovingAverage(0.5, step).variables_to_restore(
            slim.get_model_variables())
        to_restore[step.op.name] = step
        assert to_restore[shadow].op.name == "resnet_v1_50/logits/weights"
        values, updates = slim.metrics.aggregate_metric_map({
            "Accuracy": slim.metrics.streaming_accuracy(tf.argmax(logits, 1), labels)})
        for name, value in values.items():
            op = tf.summary.scalar("eval/" + name, value, collections=[])
            tf.add_to_collection(tf.GraphKeys.SUMMARIES, tf.Print(op, [value], name))
        got = slim.evaluation.evaluate_once("", ckpt, str(tmp_path / "eval"), num_evals=1,
                                            eval_op=list(updates.values()),
                                            variables_to_restore=to_restore,
                                            final_op=[values, logits])
        weights = tf.global_variables("resnet_v1_50/logits/weights")[0]
        with tf.Session() as sess:  # the same restore by hand
            tf.train.Saver(to_restore).restore(sess, ckpt)
            sess.run(tf.local_variables_initializer())
            want_logits, restored = sess.run([logits, weights])
    np.testing.assert_allclose(restored, reader.get_tensor(shadow))
    np.testing.assert_allclose(got[1], want_logits, rtol=1e-5)
    assert got[0]["Accuracy"] == pytest.approx(np.mean(want_logits.argmax(1) == labels))
