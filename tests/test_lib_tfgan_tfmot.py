"""What running TF-GAN 2.0 (the standalone tf.contrib.gan) and TensorFlow Model Optimization
0.3 (Keras pruning) on tideflow needed, pinned with the plain TF 1.x calls those libraries
make: the shard context of ``tensorflow.python.tpu.tpu_function``, contrib layers filing what
a scope's custom getter returned in ``variables_collections``, ``batch_to_space``'s
``block_shape=`` spelling, ``sufficient_statistics(keepdims=)`` and TPUEstimatorSpec's hooks."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# tensorflow.python.tpu.tpu_function: no sharded computation on the CPU
# ------------------------------------------------------------------------------------------

def test_tpu_function_context_has_no_shards():
    from tideflow.python.tpu import tpu_function

    ctx = tpu_function.get_tpu_context()
    assert ctx.number_of_shards is None
    assert tpu_function.get_tpu_context() is ctx


# ------------------------------------------------------------------------------------------
# contrib layers: variables_collections hold what the variable scope's custom getter returned
# ------------------------------------------------------------------------------------------

def _scaling_getter(getter, name, *args, **kwargs):
    var = getter(name, *args, **kwargs)
    if name.endswith("weights"):
        return tf.multiply(var, 0.5, name="halved")
    return var


def test_conv2d_variables_collections_hold_custom_getter_result():
    x = tf.ones([1, 4, 4, 2])
    colls = {"weights": ["MY_W"], "biases": ["MY_B"]}
    with tf.variable_scope("", custom_getter=_scaling_getter):
        tf.contrib.layers.conv2d(x, 3, 3, variables_collections=colls,
                                 weights_initializer=tf.constant_initializer(2.0))
    (w,) = tf.get_collection("MY_W")
    (b,) = tf.get_collection("MY_B")
    assert not isinstance(w, tf.Variable)  # the getter's tensor, as TF
    assert w.op.name.endswith("halved")
    assert isinstance(b, tf.Variable)
    raw = [v for v in tf.model_variables() if v.op.name.endswith("weights")]
    assert len(raw) == 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(w), np.full([3, 3, 2, 3], 1.0))
        np.testing.assert_allclose(sess.run(raw[0]), np.full([3, 3, 2, 3], 2.0))


def test_fully_connected_reused_files_variables_once():
    x = tf.ones([2, 3])
    for reuse in (None, True):
        tf.contrib.layers.fully_connected(x, 4, scope="fc", reuse=reuse,
                                          variables_collections=["ALL_FC"])
    got = tf.get_collection("ALL_FC")
    assert [v.op.name for v in got] == ["fc/weights", "fc/biases"]


def test_conv2d_transpose_variables_collections_string():
    x = tf.ones([1, 2, 2, 3])
    tf.contrib.layers.conv2d_transpose(x, 5, 2, stride=2, variables_collections="DECONV")
    assert sorted(v.op.name for v in tf.get_collection("DECONV")) == [
        "Conv2d_transpose/biases", "Conv2d_transpose/weights"]


# ------------------------------------------------------------------------------------------
# batch_to_space / space_to_batch: block_shape= is block_size's later spelling
# ------------------------------------------------------------------------------------------

def test_batch_to_space_block_shape_int_is_block_size():
    x = np.arange(4 * 2 * 3 * 1, dtype=np.float32).reshape([4, 2, 3, 1])
    a = tf.batch_to_space(x, crops=[[0, 0], [0, 0]], block_shape=2)
    b = tf.batch_to_space(x, [[0, 0], [0, 0]], 2)
    assert a.get_shape().as_list() == [1, 4, 6, 1]
    y = np.arange(1 * 4 * 6 * 1, dtype=np.float32).reshape([1, 4, 6, 1])
    c = tf.space_to_batch(y, paddings=[[0, 0], [0, 0]], block_shape=2)
    assert c.get_shape().as_list() == [4, 2, 3, 1]
    with tf.Session() as sess:
        va, vb, vc = sess.run([a, b, c])
    np.testing.assert_array_equal(va, vb)
    with tf.Session() as sess:
        np.testing.assert_array_equal(
            sess.run(tf.batch_to_space(vc, [[0, 0], [0, 0]], block_shape=2)), y)


# ------------------------------------------------------------------------------------------
# nn.sufficient_statistics: keepdims= (and keep_dims=), not both
# ------------------------------------------------------------------------------------------

def test_sufficient_statistics_keepdims():
    x = tf.constant([[1.0, 2.0, 3.0], [3.0, 4.0, 7.0]])
    count, m_ss, v_ss, shift = tf.nn.sufficient_statistics(x, [0], keepdims=True)
    assert shift is None
    assert m_ss.get_shape().as_list() == [1, 3]
    _, m2, _, _ = tf.nn.sufficient_statistics(x, [0], keep_dims=False)
    assert m2.get_shape().as_list() == [3]
    with tf.Session() as sess:
        c, m, v = sess.run([count, m_ss, v_ss])
    assert c == 2.0
    np.testing.assert_allclose(m, [[4.0, 6.0, 10.0]])
    np.testing.assert_allclose(v, [[10.0, 20.0, 58.0]])
    with pytest.raises(ValueError, match="Cannot specify both 'keep_dims' and 'keepdims'"):
        tf.nn.sufficient_statistics(x, [0], keep_dims=True, keepdims=True)


# ------------------------------------------------------------------------------------------
# TPUEstimatorSpec: hooks are tuples (empty by default), and must be SessionRunHooks
# ------------------------------------------------------------------------------------------

def test_tpu_estimator_spec_hooks_default_and_checked():
    spec = tf.contrib.tpu.TPUEstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0))
    assert spec.training_hooks == ()
    assert spec.evaluation_hooks == ()
    assert spec.prediction_hooks == ()
    hook = tf.train.StopAtStepHook(last_step=3)
    spec = tf.contrib.tpu.TPUEstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0),
                                           training_hooks=[hook])
    assert spec.training_hooks == (hook,)
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook instances"):
        tf.contrib.tpu.TPUEstimatorSpec(tf.estimator.ModeKeys.TRAIN, loss=tf.constant(1.0),
                                        training_hooks=["not a hook"])


# ------------------------------------------------------------------------------------------
# MirrorPad: a REFLECT padding as large as a (statically 1-wide) dimension builds, as TF
# ------------------------------------------------------------------------------------------

def test_reflect_pad_on_one_wide_map_builds_and_fails_only_when_run():
    feat = tf.zeros([2, 1, 1, 5])  # a generator's bottleneck after two stride-2 convs of 4x4
    padded = tf.pad(feat, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    assert padded.get_shape().as_list() == [2, 3, 3, 5]
    ok = tf.pad(tf.zeros([2, 3, 3, 5]), [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    with tf.Session() as sess:
        assert sess.run(ok).shape == (2, 5, 5, 5)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="paddings must be less than the dimension size: 1, 1"):
            sess.run(padded)


# ------------------------------------------------------------------------------------------
# Keras pieces a pruning wrapper (TF Model Optimization's PruneLowMagnitude) relies on
# ------------------------------------------------------------------------------------------

def test_keras_utils_conv_generic_and_tf_utils_modules():
    from tideflow.python.keras.utils import conv_utils, generic_utils, tf_utils

    assert conv_utils.convert_data_format("channels_first", 4) == "NCHW"
    assert conv_utils.normalize_tuple(2, 3, "strides") == (2, 2, 2)
    assert conv_utils.conv_output_length(9, 3, "valid", 2) == 4
    assert conv_utils.normalize_padding("SAME") == "same"
    assert generic_utils.to_snake_case("MaskedDense2D") == "masked_dense2d"
    assert generic_utils.to_snake_case("PruneLowMagnitude") == "prune_low_magnitude"
    flag = tf.placeholder_with_default(True, [])
    out = tf_utils.smart_cond(flag, lambda: tf.constant(1), lambda: tf.constant(2))
    assert tf_utils.smart_cond(False, lambda: 1, lambda: 2) == 2
    with tf.Session() as sess:
        assert sess.run(out, {flag: False}) == 2


class _Masked(tf.keras.layers.Wrapper):
    """A wrapper that zeroes the wrapped layer's kernel below a threshold on every training
    step, as a pruning wrapper does: its updates depend on no input of the call."""

    def __init__(self, layer, **kwargs):
        super().__init__(layer, **kwargs)
        self._track_trackable(layer, name="layer")

    def build(self, input_shape):
        super().build(input_shape)  # builds the wrapped layer: its kernel exists after
        self.mask = self.add_weight("mask", shape=self.layer.kernel.shape,
                                    initializer="ones", trainable=False)

    def call(self, inputs, training=None):
        kernel = self.layer.kernel
        new_mask = tf.cast(tf.abs(kernel) > 0.5, kernel.dtype)
        with tf.control_dependencies([tf.assign(self.mask, new_mask)]):
            masked = tf.assign(kernel, kernel * self.mask)
        self.add_update(masked.op)
        return self.layer.call(inputs)


def test_wrapper_build_and_unconditional_updates_run_in_fit():
    wrapped = _Masked(tf.keras.layers.Dense(3, kernel_initializer=tf.constant_initializer(
        np.array([[0.1, 0.9, -0.7], [0.6, -0.2, 0.05]]))), input_shape=(2,))
    model = tf.keras.Sequential([wrapped])
    assert wrapped.layer.built and wrapped.layer in wrapped._sublayers
    assert [u for u in model.updates if u is wrapped.updates[0]]  # TF 1.x: unconditional too
    model.compile(tf.train.GradientDescentOptimizer(0.0), "mse")
    model.fit(np.ones((4, 2)), np.zeros((4, 3)), batch_size=2, epochs=1, verbose=0)
    kernel = tf.keras.backend.get_value(wrapped.layer.kernel)
    np.testing.assert_allclose(kernel, [[0.0, 0.9, -0.7], [0.6, 0.0, 0.0]])
    np.testing.assert_allclose(tf.keras.backend.get_value(wrapped.mask),
                               [[0, 1, 1], [1, 0, 0]])


def test_tensorboard_write_custom_summaries(tmp_path):
    cb = tf.keras.callbacks.TensorBoard(log_dir=str(tmp_path), write_graph=False)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    cb.set_model(model)
    cb._write_custom_summaries(7, {"dense/mask/sparsity": np.float32(0.25)})
    cb.on_train_end()
    events = [str(p) for p in tmp_path.iterdir()]
    tags = [(e.step, v.tag, v.simple_value) for e in tf.train.summary_iterator(events[0])
            for v in e.summary.value]
    assert tags == [(7, "dense/mask/sparsity", 0.25)]


def test_tensorflow_op_layer_under_base_layer_path():
    # TF 1.15's home of the class (TF Model Optimization imports it from there)
    from tideflow.python.keras.engine import base_layer

    from tideflow.keras.engine.op_layer import TensorFlowOpLayer

    assert base_layer.TensorFlowOpLayer is TensorFlowOpLayer
    assert issubclass(TensorFlowOpLayer, base_layer.Layer)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchLayer'"):
        base_layer.NoSuchLayer  # noqa: B018


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.features: WGAN weight clipping (TF-GAN's clip_weights)
# ------------------------------------------------------------------------------------------

def test_contrib_gan_clip_discriminator_weights():
    gan = tf.contrib.gan

    def generator(noise):
        return tf.layers.dense(noise, 2, name="g")

    def discriminator(data, unused_conditioning):
        return tf.layers.dense(data, 1, name="d", kernel_initializer=tf.constant_initializer(
            [[0.5], [-0.02]]), bias_initializer=tf.constant_initializer(-3.0))

    model = gan.gan_model(generator, discriminator, real_data=tf.ones([4, 2]),
                          generator_inputs=tf.ones([4, 3]))
    loss = gan.gan_loss(model)
    sgd = tf.train.GradientDescentOptimizer(0.0)
    with pytest.raises(ValueError, match="must be positive. Instead, was -1"):
        gan.features.clip_variables(sgd, model.discriminator_variables, -1)
    clipped = gan.features.clip_discriminator_weights(sgd, model, 0.01)
    ops = gan.gan_train_ops(model, loss, tf.train.GradientDescentOptimizer(0.0), clipped)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(ops.discriminator_train_op)
        d_vars = sess.run(model.discriminator_variables)
        g_kernel = sess.run(model.generator_variables[0])
    np.testing.assert_allclose(d_vars[0], [[0.01], [-0.01]], rtol=1e-5)
    np.testing.assert_allclose(d_vars[1], [-0.01], rtol=1e-5)
    assert np.abs(g_kernel).max() > 0.01  # the generator's are left alone


# ------------------------------------------------------------------------------------------
# tf.contrib.gan: CycleGAN (cyclegan_model, cyclegan_loss, gan_train_ops on the pair)
# ------------------------------------------------------------------------------------------

def test_contrib_gan_cycle_consistency_loss_values():
    wargs = tf.contrib.gan.losses.wargs
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[0.0, 1.0]])
    loss = wargs.cycle_consistency_loss(x, x + [[0.5, -0.5], [1.0, 0.0]], y, y * 3.0,
                                        add_summaries=True)
    with tf.Session() as sess:
        # x: mean |d| = 0.5; y: mean |2y| = 1.0
        assert np.isclose(sess.run(loss), 0.75)
    tags = [s.op.inputs[0] for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
    assert len(tags) == 3


def test_contrib_gan_cyclegan_model_loss_and_train():
    gan = tf.contrib.gan

    def generator(inputs):
        return tf.layers.dense(inputs, 3, name="g")

    def discriminator(data, unused_conditioning):
        return tf.layers.dense(data, 1, name="d")

    data_x = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3), tf.float32)
    data_y = tf.constant(np.linspace(1, 2, 12).reshape(4, 3), tf.float32)
    model = gan.cyclegan_model(generator, discriminator, data_x, data_y)
    assert isinstance(model, gan.CycleGANModel)
    assert [v.op.name for v in model.model_x2y.generator_variables] == [
        "ModelX2Y/Generator/g/kernel", "ModelX2Y/Generator/g/bias"]
    assert model.model_y2x.discriminator_scope.name == "ModelY2X/Discriminator"
    assert model.reconstructed_x.get_shape().as_list() == [4, 3]
    # no new variables for the reconstructions: each reuses the other direction's generator
    assert len(tf.trainable_variables()) == 8
    loss = gan.cyclegan_loss(model, cycle_consistency_loss_weight=2.0, add_summaries=False)
    assert isinstance(loss, gan.CycleGANLoss)
    with pytest.raises(ValueError, match="must be a `CycleGANModel`"):
        gan.cyclegan_loss(model.model_x2y)
    train_ops = gan.gan_train_ops(model, loss, tf.train.GradientDescentOptimizer(0.01),
                                  tf.train.GradientDescentOptimizer(0.01))
    assert len(train_ops.generator_train_op) == 2
    assert len(train_ops.discriminator_train_op) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ls_gen = tf.reduce_mean(tf.squared_difference(
            model.model_x2y.discriminator_gen_outputs, 1.0)) * 0.5
        cyc = (tf.reduce_mean(tf.abs(data_x - model.reconstructed_x))
               + tf.reduce_mean(tf.abs(data_y - model.reconstructed_y))) / 2.0
        got, want = sess.run([loss.loss_x2y.generator_loss, ls_gen + 2.0 * cyc])
        np.testing.assert_allclose(got, want, rtol=1e-5)
        before = sess.run(model.model_x2y.generator_variables[0])
        sess.run(train_ops.generator_train_op)
        sess.run(train_ops.discriminator_train_op)
        assert sess.run(train_ops.global_step_inc_op) == 1
        assert not np.allclose(before, sess.run(model.model_x2y.generator_variables[0]))


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.features.tensor_pool, and gan_loss(tensor_pool_fn=...)
# ------------------------------------------------------------------------------------------

def test_contrib_gan_tensor_pool_fills_then_swaps():
    tf.set_random_seed(3)
    value = tf.placeholder(tf.float32, [2])
    label = tf.placeholder(tf.int32, [])
    pooled_value, pooled_label = tf.contrib.gan.features.tensor_pool(
        (value, label), pool_size=3, pooling_probability=1.0)
    assert pooled_value.get_shape().as_list() == [2] and pooled_label.dtype == tf.int32
    assert tf.contrib.gan.features.tensor_pool(value, pool_size=0) is value
    seen = []
    with tf.Session() as sess:
        for i in range(8):
            v, lab = sess.run([pooled_value, pooled_label], {value: [i, -i], label: i})
            assert v[0] == lab and v[1] == -lab  # the parts of an entry stay together
            seen.append(int(lab))
    assert seen[:3] == [0, 1, 2]  # filling: the inputs themselves
    # full, probability 1: always an earlier entry, never the one just given
    assert all(lab < i for i, lab in enumerate(seen) if i >= 3)


def test_contrib_gan_loss_with_tensor_pool():
    gan = tf.contrib.gan

    def generator(noise):
        return tf.layers.dense(noise, 2, name="g")

    def discriminator(data, unused_conditioning):
        return tf.layers.dense(data, 1, name="d")

    model = gan.gan_model(generator, discriminator, real_data=tf.ones([4, 2]),
                          generator_inputs=tf.random_normal([4, 3]))
    calls = []

    def pool_fn(values):
        calls.append(values)
        return gan.features.tensor_pool(values, pool_size=2)

    loss = gan.gan_loss(model, tensor_pool_fn=pool_fn, add_summaries=False)
    assert len(calls) == 1
    assert calls[0][1] is model.generated_data
    # the discriminator ran once more (on pooled data), with no new variables
    assert len(tf.trainable_variables()) == 4
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            g, d = sess.run([loss.generator_loss, loss.discriminator_loss])
            assert np.isfinite(g) and np.isfinite(d)


def test_contrib_gan_infogan_model_keeps_discriminator_and_aux_fn_for_pooling():
    gan = tf.contrib.gan

    def generator(inputs):
        return tf.layers.dense(tf.concat(inputs, 1), 2, name="g")

    def discriminator(data, unused_inputs):
        hidden = tf.layers.dense(data, 4, name="h")
        code = tf.contrib.distributions.Normal(loc=tf.layers.dense(hidden, 3, name="c"),
                                               scale=1.0)
        return tf.layers.dense(hidden, 1, name="o"), [code]

    model = gan.infogan_model(generator, discriminator, tf.ones([4, 2]),
                              [tf.random_normal([4, 2])], [tf.random_normal([4, 3])])
    assert model.discriminator_and_aux_fn is discriminator
    assert model._fields[-1] == "discriminator_and_aux_fn"
    loss = gan.gan_loss(model, mutual_information_penalty_weight=1.0, add_summaries=False,
                        tensor_pool_fn=lambda v: gan.features.tensor_pool(v, pool_size=2))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            assert np.all(np.isfinite(sess.run(list(loss))))


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.eval: classifier score and Frechet distances (vs NumPy)
# ------------------------------------------------------------------------------------------

def _np_sqrtm_psd(mat):
    w, v = np.linalg.eigh(mat)
    return (v * np.sqrt(np.clip(w, 0, None))) @ v.T


def test_contrib_gan_classifier_score_matches_numpy():
    rng = np.random.RandomState(0)
    logits = rng.randn(6, 4).astype(np.float32)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    q = p.mean(0)
    want = np.exp(np.mean(np.sum(p * (np.log(p) - np.log(q)), 1)))
    ev = tf.contrib.gan.eval
    score = ev.classifier_score_from_logits(logits)
    assert score.dtype == tf.float32
    batched = ev.classifier_score(tf.constant(logits * 2.0), lambda x: x / 2.0, num_batches=3)
    with tf.Session() as sess:
        got, got_batched = sess.run([score, batched])
    np.testing.assert_allclose([got, got_batched], [want, want], rtol=1e-5)


def test_contrib_gan_frechet_distances_match_numpy():
    rng = np.random.RandomState(1)
    a1 = rng.randn(20, 3)
    a2 = rng.randn(16, 3) * [1.0, 2.0, 0.5] + [0.3, -1.0, 0.0]
    m1, m2 = a1.mean(0), a2.mean(0)
    c1, c2 = np.cov(a1, rowvar=False), np.cov(a2, rowvar=False)
    r1 = _np_sqrtm_psd(c1)
    fid = np.sum((m1 - m2) ** 2) + np.trace(c1 + c2) - 2 * np.trace(
        _np_sqrtm_psd(r1 @ c2 @ r1))
    v1, v2 = a1.var(0), a2.var(0)
    diag = np.sum((m1 - m2) ** 2) + np.sum(v1 + v2 - 2 * np.sqrt(v1 * v2))
    ev = tf.contrib.gan.eval
    f32 = ev.frechet_classifier_distance_from_activations(a1.astype(np.float32),
                                                           a2.astype(np.float32))
    assert f32.dtype == tf.float32
    outs = [ev.frechet_classifier_distance_from_activations(a1, a2),
            ev.mean_only_frechet_classifier_distance_from_activations(a1, a2),
            ev.diagonal_only_frechet_classifier_distance_from_activations(a1, a2),
            ev.frechet_classifier_distance(tf.constant(a1[:16]), tf.constant(a2), tf.identity,
                                           num_batches=4)]
    m16, c16 = a1[:16].mean(0), np.cov(a1[:16], rowvar=False)
    r16 = _np_sqrtm_psd(c16)
    fid16 = np.sum((m16 - m2) ** 2) + np.trace(c16 + c2) - 2 * np.trace(
        _np_sqrtm_psd(r16 @ c2 @ r16))
    with tf.Session() as sess:
        got = sess.run(outs + [f32])
    np.testing.assert_allclose(got, [fid, np.sum((m1 - m2) ** 2), diag, fid16, fid],
                               rtol=1e-5)


def test_contrib_gan_image_comparison_and_cyclegan_summaries():
    gan = tf.contrib.gan

    def generator(images):
        return tf.layers.conv2d(images, 3, 1, name="g")

    def discriminator(images, unused_conditioning):
        return tf.layers.dense(tf.layers.flatten(images), 1, name="d")

    x = tf.random_uniform([3, 4, 5, 3])
    y = tf.random_uniform([3, 4, 5, 3])
    model = gan.cyclegan_model(generator, discriminator, x, y)
    gan.eval.add_image_comparison_summaries(model.model_x2y, num_comparisons=2,
                                            display_diffs=True)
    gan.eval.add_cyclegan_image_summaries(model)
    with pytest.raises(ValueError, match="was not a CycleGANModel"):
        gan.eval.add_cyclegan_image_summaries(model.model_x2y)
    summaries = tf.get_collection(tf.GraphKeys.SUMMARIES)
    assert [s.op.name for s in summaries] == [
        "image_comparison", "x2y_image_comparison_summaries/image_comparison",
        "y2x_image_comparison_summaries/image_comparison"]
    grids = [s.op.inputs[1] for s in summaries]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        shapes = [sess.run(g).shape for g in grids]
    # 2 columns x 4 rows (inputs, generated, real, diffs); 3 columns x 1 row
    assert shapes == [(1, 16, 10, 3), (1, 4, 15, 3), (1, 4, 15, 3)]


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.features.VBN (virtual batch normalization)
# ------------------------------------------------------------------------------------------

def test_contrib_gan_vbn_matches_batch_norm_over_reference_plus_example():
    rng = np.random.RandomState(2)
    ref = rng.randn(5, 2, 3).astype(np.float32)
    batch = rng.randn(4, 2, 3).astype(np.float32)
    vbn = tf.contrib.gan.features.VBN(tf.constant(ref), epsilon=1e-3)
    out = vbn(tf.constant(batch))
    ref_out = vbn.reference_batch_normalization()
    assert out.get_shape().as_list() == [4, 2, 3]
    assert sorted(v.op.name for v in tf.trainable_variables()) == ["VBN/beta", "VBN/gamma"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_ref = sess.run([out, ref_out])
    for i in range(4):
        # each example: batch norm over the reference batch with that example added
        pool = np.concatenate([ref, batch[i:i + 1]])
        mean, var = pool.mean((0, 1)), pool.var((0, 1))
        np.testing.assert_allclose(got[i], (batch[i] - mean) / np.sqrt(var + 1e-3),
                                   rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got_ref, (ref - ref.mean((0, 1))) / np.sqrt(
        ref.var((0, 1)) + 1e-3), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="`axis` and `batch_axis` cannot be the same"):
        tf.contrib.gan.features.VBN(tf.constant(ref), axis=0)
    with pytest.raises(ValueError, match="out of range for input with rank 3"):
        tf.contrib.gan.features.VBN(tf.constant(ref), axis=3)
    with pytest.raises(ValueError):
        vbn(tf.zeros([4, 2, 5]))


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.features: spectral normalization
# ------------------------------------------------------------------------------------------

def test_contrib_gan_spectral_normalization():
    feats = tf.contrib.gan.features
    w_np = np.random.RandomState(4).randn(3, 2, 5).astype(np.float32)
    w = tf.constant(w_np)
    norm = feats.compute_spectral_norm(w, power_iteration_rounds=20)
    normalized = feats.spectral_normalize(w, power_iteration_rounds=20)
    assert normalized.get_shape().as_list() == [3, 2, 5]
    u_vars = [v.op.name for v in tf.global_variables()]
    assert u_vars == ["spectral_norm/spectral_norm_u",
                      "spectral_normalize/spectral_norm/spectral_norm_u"]
    assert not tf.trainable_variables()
    reg = feats.spectral_norm_regularizer(0.5, power_iteration_rounds=20)(w)
    assert feats.spectral_norm_regularizer(0.0)(w) is None
    with pytest.raises(ValueError, match="scale cannot be an integer"):
        feats.spectral_norm_regularizer(1)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_norm, got_w, got_reg = sess.run([norm, normalized, reg])
    sigma = np.linalg.svd(w_np.reshape(-1, 5), compute_uv=False)[0]
    np.testing.assert_allclose(got_norm, sigma, rtol=1e-4)
    np.testing.assert_allclose(got_w, w_np / sigma, rtol=1e-4)
    np.testing.assert_allclose(got_reg, 0.5 * sigma, rtol=1e-4)


def test_contrib_gan_spectral_normalization_custom_getter():
    getter = tf.contrib.gan.features.spectral_normalization_custom_getter(
        power_iteration_rounds=30)
    init = np.random.RandomState(5).randn(4, 3) * 10
    with tf.variable_scope("", custom_getter=getter):
        out = tf.layers.dense(tf.ones([2, 4]), 3, kernel_initializer=tf.constant_initializer(
            init), bias_initializer=tf.constant_initializer(1.0), name="fc")
    names = sorted(v.op.name for v in tf.global_variables())
    # the getter runs in the layer's scope, and names its scope after the full variable name
    u_name = "fc/fc/kernel/spectral_normalize/spectral_norm/spectral_norm_u"
    assert names == ["fc/bias", u_name, "fc/kernel"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    sigma = np.linalg.svd(init, compute_uv=False)[0]
    np.testing.assert_allclose(got, np.ones([2, 4]) @ (init / sigma) + 1.0, rtol=1e-4)
    with pytest.raises(ValueError, match="name_filter must be callable"):
        tf.contrib.gan.features.spectral_normalization_custom_getter(name_filter=3)


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.eval: Laplacian pyramid and sliced Wasserstein distance
# ------------------------------------------------------------------------------------------

def _np_blur(images, gain):
    row = np.array([1.0, 4.0, 6.0, 4.0, 1.0])
    kernel = np.outer(row, row) / 256.0 * gain
    padded = np.pad(images, [(0, 0), (2, 2), (2, 2), (0, 0)], mode="reflect")
    out = np.zeros_like(images)
    h, w = images.shape[1:3]
    for dy in range(5):
        for dx in range(5):
            out += kernel[dy, dx] * padded[:, dy:dy + h, dx:dx + w]
    return out


def test_contrib_gan_laplacian_pyramid_matches_numpy():
    imgs = np.random.RandomState(6).rand(2, 8, 8, 3).astype(np.float32)
    down = _np_blur(imgs, 1)[:, ::2, ::2]
    spread = np.zeros_like(imgs)
    spread[:, ::2, ::2] = down
    want = [imgs - _np_blur(spread, 4), down]
    got = tf.contrib.gan.eval.laplacian_pyramid(tf.constant(imgs), 2)
    with tf.Session() as sess:
        got = sess.run(got)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_contrib_gan_sliced_wasserstein_distance():
    np.random.seed(7)
    tf.set_random_seed(7)
    real = tf.constant(np.random.rand(8, 16, 16, 3).astype(np.float32))
    fake = tf.constant((np.random.rand(8, 16, 16, 3) ** 4).astype(np.float32))
    scores = tf.contrib.gan.eval.sliced_wasserstein_distance(real, fake, resolution_min=8,
                                                            patches_per_image=16)
    svd = tf.contrib.gan.eval.sliced_wasserstein_distance(real, real, resolution_min=16,
                                                         patches_per_image=8, use_svd=True)
    assert len(scores) == 2 and len(svd) == 1  # levels 16 and 8; 16 only
    with tf.Session() as sess:
        got, got_svd = sess.run([scores, svd])
    for baseline, distance in got:
        assert np.isfinite(baseline) and baseline > 0
        assert distance > baseline  # real vs distorted is farther than real vs real
    assert np.all(np.isfinite(got_svd))


# ------------------------------------------------------------------------------------------
# tf.contrib.gan.losses: combine_adversarial_loss (weight factor or gradient ratio)
# ------------------------------------------------------------------------------------------

def test_contrib_gan_combine_adversarial_loss():
    wargs = tf.contrib.gan.losses.wargs
    v = tf.Variable([3.0, -4.0])
    main = tf.reduce_sum(v * v)              # gradient 2v: norm 10
    adv = tf.reduce_sum(v)                   # gradient [1, 1]: norm sqrt(2)
    weighted = wargs.combine_adversarial_loss(main, adv, weight_factor=0.5,
                                              gradient_summaries=False)
    ratio = wargs.combine_adversarial_loss(main, adv, gradient_ratio=2.0,
                                           gradient_ratio_epsilon=0.0)
    assert wargs.combine_adversarial_loss(main, adv, weight_factor=0.0,
                                          scalar_summaries=False,
                                          gradient_summaries=False) is main
    with pytest.raises(ValueError, match="cannot both be `None.`"):
        wargs.combine_adversarial_loss(main, adv)
    with pytest.raises(ValueError, match="cannot both be specified"):
        wargs.combine_adversarial_loss(main, adv, weight_factor=1.0, gradient_ratio=1.0)
    coeff = 10.0 / np.sqrt(2.0) / 2.0
    (grad,) = tf.gradients(ratio, [v])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got_w, got_r, got_g = sess.run([weighted, ratio, grad])
    np.testing.assert_allclose(got_w, 25.0 - 0.5, rtol=1e-6)
    np.testing.assert_allclose(got_r, 25.0 - coeff, rtol=1e-5)
    np.testing.assert_allclose(got_g, [6.0 + coeff, -8.0 + coeff], rtol=1e-5)  # c: no gradient


# ------------------------------------------------------------------------------------------
# tf.contrib.gan: StarGAN (stargan_model, stargan_loss, the loss wrappers)
# ------------------------------------------------------------------------------------------

def test_contrib_gan_stargan_model_loss_and_train():
    gan = tf.contrib.gan

    def generator(images, domains):
        tiled = tf.tile(domains[:, None, None, :], [1, 4, 4, 1])
        return tf.layers.conv2d(tf.concat([images, tiled], 3), 3, 1, name="g")

    def discriminator(images, num_domains):
        flat = tf.layers.flatten(images)
        return (tf.layers.dense(flat, 1, name="src"),
                tf.layers.dense(flat, num_domains, name="cls"))

    images = [tf.random_uniform([2, 4, 4, 3]), tf.random_uniform([1, 4, 4, 3])]
    labels = [tf.one_hot([0, 1], 3), tf.one_hot([2], 3)]
    model = gan.stargan_model(generator, discriminator, images, labels)
    assert isinstance(model, gan.StarGANModel)
    assert model.input_data.get_shape().as_list() == [3, 4, 4, 3]
    assert model.generated_data_domain_target.get_shape().as_list() == [3, 3]
    assert model.discriminator_generated_data_domain_predication.get_shape().as_list() == [3, 3]
    assert [v.op.name for v in model.generator_variables] == ["Generator/g/kernel",
                                                              "Generator/g/bias"]
    assert len(model.discriminator_variables) == 4
    loss = gan.stargan_loss(model, add_summaries=False)
    plain = gan.stargan_loss(model, gradient_penalty_weight=None, reconstruction_loss_weight=0.0,
                             classification_loss_weight=0.0, add_summaries=False)
    src_gen = gan.losses.stargan_generator_loss_wrapper(gan.losses.wargs.wasserstein_generator_loss)
    ops_ = gan.gan_train_ops(model, loss, tf.train.AdamOptimizer(1e-3),
                             tf.train.AdamOptimizer(1e-3))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        src = model.discriminator_generated_data_source_predication
        got_plain, want = sess.run([plain.generator_loss, -tf.reduce_mean(src)])
        np.testing.assert_allclose(got_plain, want, rtol=1e-5)
        g, d = sess.run([loss.generator_loss, loss.discriminator_loss])
        assert np.isfinite(g) and np.isfinite(d)
        sess.run([ops_.generator_train_op, ops_.discriminator_train_op])
    assert src_gen.__name__ == "wasserstein_generator_loss"
