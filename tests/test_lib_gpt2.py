"""What gpt-2-simple 0.7.2 (and OpenAI's gpt-2 src) needed from tideflow, pinned with plain TF
1.x calls: GELU's ``tf.pow(x, 3)`` on negative activations, the gradient sums over a batch of
one that its ``batch_size=1`` training steps take, layer-norm means, the sampler's top_k and
categorical draws (non-finite logits), and the .meta/SavedModel of a graph whose sampling loop
filed tensors into a collection."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# ------------------------------------------------------------------------------------------
# Pow: a whole-number exponent of a half/single precision base is raised in double
# ------------------------------------------------------------------------------------------


def test_pow_whole_exponent_signs_follow_the_base():
    x = np.array([-2.5, -1.0, -0.0, 0.0, 0.75, 3.0, -np.inf, np.inf, np.nan], np.float32)
    cubes, squares, inv = _run([tf.pow(x, 3.0), tf.pow(x, 2.0), tf.pow(x, -1.0)])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(cubes, (x.astype(np.float64) ** 3).astype(np.float32))
        np.testing.assert_array_equal(squares, (x.astype(np.float64) ** 2).astype(np.float32))
        np.testing.assert_array_equal(inv, (1 / x.astype(np.float64)).astype(np.float32))
    # -0.0 keeps its sign under an odd power and loses it under an even one, as libm's pow
    assert np.signbit(cubes[2]) and not np.signbit(squares[2])
    assert np.signbit(inv[2]) and inv[2] == -np.inf
    assert cubes[6] == -np.inf and squares[6] == np.inf and np.isnan(cubes[8])


def test_pow_of_float32_rounds_as_the_exact_power():
    # x ** 3 and x ** -3 of single precision values, rounded once from double (libm's powf
    # gives these; NumPy's vectorised float32 pow misses about one in ten by a unit)
    x = np.random.RandomState(7).uniform(-20, 20, 4000).astype(np.float32)
    for e in (3.0, -3.0, 4.0, 7.0):
        got = _run(tf.pow(tf.constant(x), e))
        want = (x.astype(np.float64) ** e).astype(np.float32)
        assert got.dtype == np.float32
        assert np.mean(got == want) > 0.999, e


def test_pow_half_and_double_and_fractional_exponents():
    x16 = np.array([-3.0, -0.5, 0.25, 2.0], np.float16)
    got = _run(tf.pow(x16, np.float16(3)))
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (x16.astype(np.float64) ** 3).astype(np.float16))
    x64 = np.array([-3.0, -0.5, 0.25, 2.0])
    np.testing.assert_allclose(_run(tf.pow(x64, 3.0)), x64 ** 3, rtol=1e-15)
    # a fractional power of a negative base is NaN; an exponent tensor broadcasts as before
    frac = _run(tf.pow(tf.constant([-4.0, 4.0]), 0.5))
    assert np.isnan(frac[0]) and frac[1] == 2.0
    ys = _run(tf.pow(tf.constant([[-2.0], [3.0]]), tf.constant([[[1.0, 2.0, 3.0]]])))
    np.testing.assert_array_equal(ys, [[[-2.0, 4.0, -8.0], [3.0, 9.0, 27.0]]])
    ints = _run(tf.pow(tf.constant([-2, 3]), 3))
    assert ints.dtype == np.int32 and ints.tolist() == [-8, 27]


def test_pow_keeps_a_gpu_kernel():
    # the host kernel is a NumPy function now; GPU devices run the array module's power
    from tideflow.framework import op_registry

    assert op_registry.supports_device_type(op_registry.get("Pow"), "GPU")

    class _Ctx:
        class device:  # the attribute path a kernel factory reads
            xp = np

    run = op_registry.device_kernel("Pow", "GPU").kernel_factory(_Ctx)
    np.testing.assert_array_equal(run(np.array([2.0, -3.0]), np.array(3.0)), [8.0, -27.0])


def test_gelu_gradient_through_pow_matches_the_closed_form():
    # GPT-2's tanh GELU: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    xv = np.linspace(-4, 4, 41)
    x = tf.constant(xv)
    c = np.sqrt(2 / np.pi)
    y = 0.5 * x * (1 + tf.tanh(c * (x + 0.044715 * tf.pow(x, 3))))
    g = _run(tf.gradients(tf.reduce_sum(y), x)[0])
    t = np.tanh(c * (xv + 0.044715 * xv ** 3))
    want = 0.5 * (1 + t) + 0.5 * xv * (1 - t ** 2) * c * (1 + 3 * 0.044715 * xv ** 2)
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------------------------------
# Sum over axes of size 1: the values, without a copy
# ------------------------------------------------------------------------------------------


def test_sum_over_unit_axes_keeps_values_and_shapes():
    v = np.arange(24, dtype=np.float32).reshape(1, 4, 1, 6) - 10
    x = tf.placeholder(tf.float32, [None, 4, None, 6])
    axes = tf.placeholder(tf.int32, [None])
    s = tf.reduce_sum(x, axes)
    k = tf.reduce_sum(x, axes, keepdims=True)
    for ax in ([0], [2], [0, 2], [-4, -2], [2, 0, 2]):
        got, kept = _run([s, k], {x: v, axes: ax})
        np.testing.assert_array_equal(got, v.sum(axis=tuple({a % 4 for a in ax})))
        assert kept.shape == tuple(1 if i in {a % 4 for a in ax} else d
                                   for i, d in enumerate(v.shape))
        np.testing.assert_array_equal(kept, v)
    # a real axis among them still sums
    got = _run(s, {x: v, axes: [0, 1]})
    np.testing.assert_array_equal(got, v.sum(axis=(0, 1)))
    ints = _run(tf.reduce_sum(tf.constant([[3, -4]], tf.int64), 0))
    assert ints.dtype == np.int64 and ints.tolist() == [3, -4]


def test_sum_over_unit_axis_result_is_not_changed_by_later_steps():
    # the summed value is the input's buffer reshaped: a fetched value must stay what it was
    # while the variable it came from is updated
    w = tf.Variable(np.ones([1, 3], np.float32))
    s = tf.reduce_sum(w, 0)
    step = tf.assign_add(w, np.full([1, 3], 2, np.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(s)
        sess.run(step)
        second = sess.run(s)
    assert first.tolist() == [1, 1, 1] and second.tolist() == [3, 3, 3]


def test_batch_of_one_attention_gradient_matches_a_batch_of_two():
    # a GPT-2 style masked softmax attention trained with batch_size=1: the broadcast gradient
    # sums over the batch axis of size 1
    rng = np.random.RandomState(0)
    qv = rng.randn(2, 2, 5, 4)
    q = tf.placeholder(tf.float64, [None, 2, None, 4])
    w = tf.matmul(q, q, transpose_b=True) * tf.rsqrt(tf.constant(4.0, tf.float64))
    nd = tf.shape(w)[2]
    b = tf.cast(tf.range(nd)[:, None] >= tf.range(nd), tf.float64)
    w = w * b - 1e10 * (1 - b)
    w = w - tf.reduce_max(w, -1, keepdims=True)
    p = tf.exp(w) / tf.reduce_sum(tf.exp(w), -1, keepdims=True)
    loss = tf.reduce_sum(tf.matmul(p, q) ** 2)
    g = tf.gradients(loss, q)[0]
    g1a = _run(g, {q: qv[:1]})
    g1b = _run(g, {q: qv[1:]})
    g2 = _run(g, {q: qv})
    np.testing.assert_allclose(np.concatenate([g1a, g1b]), g2, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------------
# categorical / multinomial: logits that are not finite (a sampler's temperature of 0, or
# top-k masks gone to -inf) weigh nothing, as in TF's kernel
# ------------------------------------------------------------------------------------------


def test_categorical_skips_infinite_and_nan_logits():
    inf = np.inf
    logits = tf.constant([[inf, 1.0, -inf], [np.nan, 2.0, -inf], [inf, inf, 0.0]], tf.float32)
    out = _run(tf.random.categorical(logits, 500, seed=11, dtype=tf.int32))
    assert out.dtype == np.int32 and out.shape == (3, 500)
    assert (out[0] == 1).all() and (out[1] == 1).all() and (out[2] == 2).all()


def test_categorical_row_without_finite_logit_gives_num_classes():
    # TF's kernel finds no class for such a row and hands back the index one past the last
    logits = tf.constant([[-np.inf] * 4, [np.inf] * 4, [0.0, 0.0, -np.inf, 0.0]])
    out = _run(tf.multinomial(logits, 200, seed=3))
    assert out.dtype == np.int64
    assert (out[0] == 4).all() and (out[1] == 4).all()
    assert set(out[2].tolist()) == {0, 1, 3}
    # a temperature of zero divides every logit to +-inf or NaN: TF samples index n_vocab
    hot = tf.constant([[1.0, -2.0, 3.0]]) / tf.constant(0.0)
    assert (_run(tf.random.categorical(hot, 8, seed=5)) == 3).all()


def test_stateless_categorical_skips_non_finite_logits():
    logits = tf.constant([[np.inf, 1.0, -np.inf], [-np.inf, -np.inf, -np.inf]])
    out = _run(tf.random.stateless_categorical(logits, 20, seed=[4, 5]))
    assert (out[0] == 1).all() and (out[1] == 3).all()


# ------------------------------------------------------------------------------------------
# meta graphs of graphs whose loop bodies filed tensors into collections
# ------------------------------------------------------------------------------------------


def _loop_filing_into_a_collection():
    x = tf.placeholder(tf.float32, [None], name="x")
    h = tf.identity(x * 3.0, name="h")
    tf.add_to_collection("checkpoints", h)

    def body(i, acc):
        y = tf.tanh(acc, name="step")
        # GPT-2's model() files each block's output; its sampler calls model() in the body
        tf.add_to_collection("checkpoints", y)
        return i + 1, y

    _, out = tf.while_loop(lambda i, acc: i < 4, body, [0, h])
    return x, tf.identity(out, name="out")


def test_export_import_meta_graph_with_collections_filed_in_a_loop_body(tmp_path):
    x, out = _loop_filing_into_a_collection()
    v = tf.Variable(2.0, name="v")
    saver = tf.train.Saver([v])
    with tf.Session() as sess:
        sess.run(v.initializer)
        want = sess.run(out, {x: [0.5, -1.0]})
        path = saver.save(sess, str(tmp_path / "model"), global_step=3)
    mgd = tf.train.export_meta_graph()
    assert list(mgd.collection_def["checkpoints"].node_list.value) == ["h:0"]
    with tf.Graph().as_default() as g:
        restorer = tf.train.import_meta_graph(path + ".meta")
        assert [t.name for t in g.get_collection("checkpoints")] == ["h:0"]
        with tf.Session() as sess:
            restorer.restore(sess, path)
            got = sess.run("out:0", {"x:0": [0.5, -1.0]})
            assert sess.run("v:0") == 2.0
    np.testing.assert_allclose(got, want)


def test_saved_model_of_a_sampling_loop_loads_and_runs(tmp_path):
    x, out = _loop_filing_into_a_collection()
    export_dir = str(tmp_path / "export")
    with tf.Session() as sess:
        want = sess.run(out, {x: [2.0]})
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        sig = tf.saved_model.signature_def_utils.predict_signature_def(
            inputs={"context": x}, outputs={"sample": out})
        builder.add_meta_graph_and_variables(sess, [tf.saved_model.tag_constants.SERVING],
                                             signature_def_map={"predict": sig},
                                             strip_default_attrs=True)
        builder.save()
    with tf.Graph().as_default(), tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
        s = mg.signature_def["predict"]
        got = sess.run(s.outputs["sample"].name, {s.inputs["context"].name: [2.0]})
    np.testing.assert_allclose(got, want)


# ------------------------------------------------------------------------------------------
# Mean of floats: np.mean's arithmetic on every path (a layer norm's means run per token)
# ------------------------------------------------------------------------------------------


def test_reduce_mean_of_floats_matches_numpy():
    rng = np.random.RandomState(3)
    x32 = (rng.randn(2, 3, 64) * 5).astype(np.float32)
    x64 = rng.randn(5, 7)
    cases = [(x32, -1, True), (x32, [0, 2], False), (x32, None, False), (x64, 0, False),
             (x64, [1, 0], True)]
    outs = _run([tf.reduce_mean(v, axis=a, keepdims=k) for v, a, k in cases])
    for (v, a, k), got in zip(cases, outs):
        axis = None if a is None else tuple(np.atleast_1d(a) % v.ndim)
        want = np.mean(v, axis=axis, keepdims=k)
        assert got.dtype == v.dtype and got.shape == np.shape(want)
        if v.dtype == np.float32:  # (over trailing axes float32 adds in TF's Eigen order)
            np.testing.assert_allclose(got, want, rtol=3e-6)
        else:
            np.testing.assert_array_equal(got, want)
    # an empty reduction is NaN; half precision accumulates in half, as TF 1.15's Eigen
    # kernel (60000 + 60000 overflows: TF prints inf)
    empty, half = _run([tf.reduce_mean(tf.zeros([0, 3]), 0),
                        tf.reduce_mean(tf.constant([60000.0, 60000.0, -60000.0], tf.float16))])
    assert np.isnan(empty).all() and empty.shape == (3,)
    assert half.dtype == np.float16 and half == np.inf


# ------------------------------------------------------------------------------------------
# top_k of a wide row (a sampler's top 40 of a vocabulary): the partitioned path
# ------------------------------------------------------------------------------------------


def _stable_top_k(v, k):
    order = np.argsort(-v, axis=-1, kind="stable")[..., :k]  # equal values: lower index first
    return np.take_along_axis(v, order, axis=-1), order


def test_top_k_of_wide_rows_orders_ties_by_index():
    rng = np.random.RandomState(5)
    logits = rng.randn(3, 4096).astype(np.float32)
    logits[1, ::7] = 2.5  # a tie straddling the k-th place: the lower indices win
    logits[2, :] = np.round(logits[2, :])  # ties everywhere
    ints = rng.randint(-50, 50, [2, 1000]).astype(np.int64)
    with_nan = rng.randn(1, 2048)
    with_nan[0, ::3] = np.nan
    cases = [(logits, 40), (logits[:1], 40), (logits, 1), (ints, 9)]
    outs = _run([tf.nn.top_k(v, k) for v, k in cases + [(with_nan, 16)]])
    for (v, k), (values, indices) in zip(cases, outs):
        want_v, want_i = _stable_top_k(v, k)
        assert indices.dtype == np.int32 and values.dtype == v.dtype
        np.testing.assert_array_equal(indices, want_i)
        np.testing.assert_array_equal(values, want_v)
    # a row holding NaNs: TF 1.15's TopN heap, where a NaN ranks with whatever it meets
    np.testing.assert_array_equal(
        outs[4][1], [[0, 1, 3, 7, 19, 13, 16, 8, 5, 2, 4, 6, 9, 11, 15, 12]])


def test_top_k_logits_mask_as_gpt2_samples():
    # sample.top_k_logits: everything below the k-th logit is pushed to -1e10
    rng = np.random.RandomState(9)
    v = rng.randn(2, 1000).astype(np.float32)
    logits = tf.constant(v)
    values, _ = tf.nn.top_k(logits, k=40)
    masked = tf.where(logits < values[:, -1, tf.newaxis],
                      tf.ones_like(logits) * -1e10, logits)
    got = _run(masked)
    kth = np.sort(v, axis=1)[:, -40][:, None]
    np.testing.assert_array_equal(got, np.where(v < kth, np.float32(-1e10), v))
    assert ((got > -1e10).sum(axis=1) == 40).all()
