"""tf.nn's Python-level additions against NumPy: swish, weighted moments, sparse embedding
lookups (combiners, weights, pruning, defaults), transposed/rank-generic conv and pool
wrappers, erosion, with_space_to_batch, loss scaling and approximate top-k."""

import numpy as np
import pytest

import tideflow as tf

_rng = np.random.RandomState(4)
PARAMS = np.arange(20, dtype=np.float64).reshape(5, 4)


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def test_swish_and_weighted_moments():
    x = _rng.randn(3, 4)
    w = np.array([[1.0], [2.0], [0.5]])
    with tf.Graph().as_default():
        sw, silu = _run([tf.nn.swish(x), tf.nn.silu(x, beta=2.0)])
        (m, v), (mk, vk) = _run([tf.nn.weighted_moments(x, [0], w),
                                 tf.nn.weighted_moments(x, [0, 1], w, keepdims=True)])
    np.testing.assert_allclose(sw, x / (1 + np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(silu, x / (1 + np.exp(-2 * x)), rtol=1e-12)
    ww = np.broadcast_to(w, x.shape)
    mean = (ww * x).sum(0) / ww.sum(0)
    np.testing.assert_allclose(m, mean, rtol=1e-12)
    np.testing.assert_allclose(v, (ww * (x - mean) ** 2).sum(0) / ww.sum(0), rtol=1e-12)
    mall = (ww * x).sum() / ww.sum()
    np.testing.assert_allclose(mk, [[mall]], rtol=1e-12)
    np.testing.assert_allclose(vk, [[(ww * (x - mall) ** 2).sum() / ww.sum()]], rtol=1e-12)


def _ids():
    return (tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 3, 4], tf.int64), [4, 2]),
            tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [2.0, 0.5, 1.0], [4, 2]))


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
def test_embedding_lookup_sparse_combiners(combiner):
    with tf.Graph().as_default():
        ids, w = _ids()
        plain, weighted, sharded = _run([
            tf.nn.embedding_lookup_sparse(PARAMS, ids, None, combiner=combiner),
            tf.nn.embedding_lookup_sparse(PARAMS, ids, w, combiner=combiner),
            tf.nn.embedding_lookup_sparse([PARAMS[:3], PARAMS[3:]], ids, w, combiner=combiner,
                                          partition_strategy="div")])
    rows = {0: ([1, 3], [2.0, 0.5]), 2: ([4], [1.0])}
    want_p, want_w = np.zeros((3, 4)), np.zeros((3, 4))
    for r, (i, ws) in rows.items():
        e, ws = PARAMS[i], np.array(ws)
        denom_p = {"mean": len(i), "sqrtn": np.sqrt(len(i)), "sum": 1}[combiner]
        denom_w = {"mean": ws.sum(), "sqrtn": np.sqrt((ws ** 2).sum()), "sum": 1}[combiner]
        want_p[r] = e.sum(0) / denom_p
        want_w[r] = (e * ws[:, None]).sum(0) / denom_w
    if combiner != "sum":
        # weighted: an empty row in between divides 0 by a zero weight sum, NaN as TF 1.15
        want_w[1] = np.nan
    # rows up to the last non-empty one, as TF's segment sums give
    np.testing.assert_allclose(plain, want_p, rtol=1e-12)
    np.testing.assert_allclose(weighted, want_w, rtol=1e-12)
    np.testing.assert_allclose(sharded, want_w, rtol=1e-12)


def test_safe_embedding_lookup_sparse_prunes_and_fills():
    with tf.Graph().as_default():
        ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, -1, 4], tf.int64), [4, 2])
        w = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [2.0, 0.5, 1.0], [4, 2])
        ids3 = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 0, 0]],
                               tf.constant([1, 2, 4], tf.int64), [2, 2, 2])
        zeros, default, three = _run([
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, w),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids, w, default_id=0, combiner="sum"),
            tf.nn.safe_embedding_lookup_sparse(PARAMS, ids3)])
    np.testing.assert_allclose(zeros, [PARAMS[1], np.zeros(4), PARAMS[4], np.zeros(4)])
    np.testing.assert_allclose(default, [2 * PARAMS[1], PARAMS[0], PARAMS[4], PARAMS[0]])
    np.testing.assert_allclose(three, [[PARAMS[1], PARAMS[2]], [PARAMS[4], np.zeros(4)]])
    with pytest.raises(ValueError, match="combiner"):
        tf.nn.embedding_lookup_sparse(PARAMS, ids, None, combiner="max")
    with pytest.raises(TypeError, match="sp_ids must be SparseTensor"):
        tf.nn.embedding_lookup_sparse(PARAMS, [1, 2], None)


def _conv1d_transpose_ref(x, f, out_len, stride, pad_before):
    b, _, _ = x.shape
    k, out_c, _ = f.shape
    out = np.zeros((b, out_len, out_c))
    for i in range(x.shape[1]):
        for j in range(k):
            o = i * stride + j - pad_before
            if 0 <= o < out_len:
                out[:, o] += x[:, i] @ f[j].T
    return out


def test_conv_transpose_wrappers_and_pool_v2():
    x = _rng.randn(2, 5, 3)
    f = _rng.randn(3, 4, 3)
    img = _rng.randn(2, 6, 6, 3)
    with tf.Graph().as_default():
        same, valid, generic = _run([
            tf.nn.conv1d_transpose(x, f, [2, 10, 4], 2),
            tf.nn.conv1d_transpose(x, f, [2, 11, 4], 2, padding="VALID"),
            tf.nn.conv_transpose(x, f, [2, 10, 4], 2)])
        avg, mx, ref_avg, ref_max = _run([
            tf.nn.avg_pool_v2(img, 2, 2, "SAME"), tf.nn.max_pool_v2(x, 2, 1, "VALID"),
            tf.nn.avg_pool(img, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
            tf.nn.max_pool1d(x, 2, 1, "VALID")])
        with pytest.raises(ValueError, match="length 3, 4 or 5"):
            tf.nn.conv_transpose(x, f, [2, 10], 2)
    # SAME: total padding (5 - 1) * 2 + 3 - 10 = 1, none before
    np.testing.assert_allclose(same, _conv1d_transpose_ref(x, f, 10, 2, 0), atol=1e-12)
    np.testing.assert_allclose(valid, _conv1d_transpose_ref(x, f, 11, 2, 0), atol=1e-12)
    np.testing.assert_allclose(generic, same)
    np.testing.assert_allclose(avg, ref_avg)
    np.testing.assert_allclose(mx, ref_max)


def test_erosion_is_dual_of_dilation():
    x = _rng.randn(1, 5, 5, 2)
    k = _rng.randn(2, 3, 2)
    with tf.Graph().as_default():
        ero = _run(tf.nn.erosion2d(x, k, [1, 1, 1, 1], [1, 1, 1, 1], "VALID"))
        # a batch stride builds and fails when first run, as TF's kernel
        over_batch = tf.nn.dilation2d(x, k, [2, 1, 1, 1], [1, 1, 1, 1], "SAME")
        with pytest.raises(tf.errors.UnimplementedError, match="only supported across spatial"):
            _run(over_batch)
    want = np.zeros((1, 4, 3, 2))
    for y in range(4):
        for xx in range(3):
            want[0, y, xx] = (x[0, y:y + 2, xx:xx + 3] - k[::-1, ::-1]).min((0, 1))
    np.testing.assert_allclose(ero, want, atol=1e-12)


def test_with_space_to_batch_matches_dilated_convolution():
    img = _rng.randn(2, 7, 6, 3)
    filt = _rng.randn(3, 3, 3, 2)

    def conv(x, num_spatial_dims, padding):
        assert num_spatial_dims == 2
        return tf.nn.conv2d(x, filt, [1, 1, 1, 1], padding)

    with tf.Graph().as_default():
        got_same, got_valid, want_same, want_valid = _run([
            tf.nn.with_space_to_batch(img, [2, 2], "SAME", conv, filter_shape=[3, 3]),
            tf.nn.with_space_to_batch(img, [2, 1], "VALID", conv),
            tf.nn.convolution(img, filt, "SAME", dilation_rate=[2, 2]),
            tf.nn.convolution(img, filt, "VALID", dilation_rate=[2, 1])])
    np.testing.assert_allclose(got_same, want_same, atol=1e-12)
    np.testing.assert_allclose(got_valid, want_valid, atol=1e-12)


def test_batch_norm_global_loss_scaling_and_approx_top_k():
    x = _rng.randn(2, 3)
    m, v, beta, gamma = (np.array(a) for a in ([0.1, 0.2, 0.3], [1.0, 2.0, 3.0],
                                               [0.0, 1.0, 2.0], [2.0, 3.0, 4.0]))
    with tf.Graph().as_default():
        scaled, unscaled = _run([
            tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 1e-3, True),
            tf.nn.batch_norm_with_global_normalization(x, m, v, beta, gamma, 1e-3, False)])
        avg, wavg, empty, reg = _run([
            tf.nn.compute_average_loss([1.0, 2.0, 3.0], global_batch_size=6),
            tf.nn.compute_average_loss([[1.0, 2.0], [3.0, 4.0]], sample_weight=[1.0, 0.0]),
            tf.nn.compute_average_loss(np.zeros([0]), global_batch_size=0),
            tf.nn.scale_regularization_loss([1.0, 2.0])])
        (vals, idx), (mvals, midx) = _run([
            tf.nn.approx_max_k(tf.constant([[1.0, 5.0, 3.0], [2.0, 0.0, 9.0]]), 2),
            tf.nn.approx_min_k(tf.constant([[1.0, 5.0, 3.0], [2.0, 0.0, 9.0]]), 1,
                               reduction_dimension=0)])
    norm = (x - m) / np.sqrt(v + 1e-3)
    np.testing.assert_allclose(scaled, norm * gamma + beta, rtol=1e-12)
    np.testing.assert_allclose(unscaled, norm + beta, rtol=1e-12)
    assert (avg, wavg, empty, reg) == (1.0, 1.5, 0.0, 3.0)
    assert vals.tolist() == [[5, 3], [9, 2]] and idx.tolist() == [[1, 2], [2, 0]]
    assert mvals.tolist() == [[1, 0, 3]] and midx.tolist() == [[0, 1, 0]]


class _TanhCell:
    """A minimal cell (the RNNCell protocol) with fixed weights."""

    output_size = 3
    state_size = 3

    def __init__(self, w, u):
        self.w, self.u = w, u

    def zero_state(self, batch_size, dtype):
        return tf.zeros([batch_size, 3], dtype)

    def __call__(self, x, h):
        out = tf.tanh(tf.matmul(x, self.w) + tf.matmul(h, self.u))
        return out, out


def test_raw_rnn_stops_per_row_and_carries_loop_state():
    x = _rng.randn(4, 2, 2)
    lengths = np.array([4, 2], np.int32)
    w, u = _rng.randn(2, 3), _rng.randn(3, 3) * 0.5
    with tf.Graph().as_default():
        cell = _TanhCell(tf.constant(w), tf.constant(u))
        inputs = tf.TensorArray(tf.float64, size=4).unstack(tf.constant(x))

        def loop_fn(time, cell_output, cell_state, loop_state):
            state = cell.zero_state(2, tf.float64) if cell_output is None else cell_state
            finished = time >= lengths
            nxt = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([2, 2], tf.float64),
                          lambda: inputs.read(tf.minimum(time, 3)))
            count = tf.constant(0) if loop_state is None else loop_state + 1
            return finished, nxt, state, cell_output, count

        emit_ta, final, steps = tf.nn.raw_rnn(cell, loop_fn)
        out, fin, n = _run([emit_ta.stack(), final, steps])
        with pytest.raises(TypeError, match="callable"):
            tf.nn.raw_rnn(cell, "not a function")
    h = np.zeros((2, 3))
    want = np.zeros((4, 2, 3))
    finals = np.zeros((2, 3))
    for t in range(4):
        h = np.tanh(x[t] @ w + h @ u)
        for b in range(2):
            if t < lengths[b]:
                want[t, b] = h[b]
                finals[b] = h[b]
    np.testing.assert_allclose(out, want, atol=1e-12)
    np.testing.assert_allclose(fin, finals, atol=1e-12)
    assert n == 4


class _VariableStateSaver:
    """A state saver keeping each named state in a variable."""

    def __init__(self, batch, size):
        self.vars = {}
        self.batch, self.size = batch, size

    def state(self, name):
        if name not in self.vars:
            self.vars[name] = tf.Variable(np.zeros((self.batch, self.size)), name=name)
        return self.vars[name].read_value() if hasattr(self.vars[name], "read_value") else \
            tf.identity(self.vars[name])

    def save_state(self, name, value):
        return tf.assign(self.vars[name], value)


def test_static_state_saving_rnn_carries_state_across_runs():
    x = [_rng.randn(2, 2) for _ in range(3)]
    w, u = _rng.randn(2, 3), _rng.randn(3, 3) * 0.5
    with tf.Graph().as_default():
        cell = _TanhCell(tf.constant(w), tf.constant(u))
        saver = _VariableStateSaver(2, 3)
        outs, state = tf.nn.static_state_saving_rnn(cell, [tf.constant(v) for v in x], saver,
                                                    "h")
        with pytest.raises(ValueError, match="same type"):
            tf.nn.static_state_saving_rnn(cell, [tf.constant(x[0])], saver, ("a", "b"))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            first = s.run([outs[-1], state])
            second = s.run([outs[-1], state])  # starts from the saved state
    h = np.zeros((2, 3))
    for v in x:
        h = np.tanh(v @ w + h @ u)
    np.testing.assert_allclose(first[1], h, atol=1e-12)
    for v in x:
        h = np.tanh(v @ w + h @ u)
    np.testing.assert_allclose(second[0], h, atol=1e-12)
    np.testing.assert_allclose(second[1], h, atol=1e-12)


def test_sparse_embedding_lookups_on_partitioned_variables():
    with tf.Graph().as_default():
        pv = tf.get_variable("emb", [10, 3], initializer=tf.random_normal_initializer(seed=1),
                             partitioner=tf.fixed_size_partitioner(3))
        ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], tf.constant([1, 7, 9], tf.int64),
                              [3, 2])
        safe = tf.nn.safe_embedding_lookup_sparse(pv, ids, None)
        plain = tf.nn.embedding_lookup_sparse(pv, ids, None, partition_strategy="div")
        grads = tf.gradients(tf.reduce_sum(safe), list(pv))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got_safe, got_plain, full = s.run([safe, plain, tf.concat(list(pv), 0)])
            dense_grads = s.run([tf.convert_to_tensor(g) for g in grads])
    np.testing.assert_allclose(got_safe, [full[[1, 7]].mean(0), np.zeros(3), full[9]],
                               rtol=1e-6)
    np.testing.assert_allclose(got_plain, got_safe)
    want = np.zeros((10, 3))
    want[[1, 7]] = 0.5
    want[9] = 1.0
    np.testing.assert_allclose(np.concatenate(dense_grads), want)


def test_experimental_dropouts():
    x = np.ones((3, 4), np.float32)
    with tf.Graph().as_default():
        a = tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2])
        b = tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2])
        u = tf.random.stateless_uniform([3, 4], seed=[1, 2])
        rows = tf.nn.experimental.stateless_dropout(x, 0.3, seed=[3, 4], noise_shape=[3, 1])
        gen = tf.nn.experimental.general_dropout(x, 0.25, lambda shape, dtype: tf.fill(
            shape, tf.constant(0.5, dtype)))
        same = tf.nn.experimental.general_dropout(x, 0.0, lambda shape, dtype: None)
        with pytest.raises(ValueError, match=r"range \[0, 1\)"):
            tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])
        va, vb, vu, vr, vg, vs = _run([a, b, u, rows, gen, same])
    np.testing.assert_array_equal(va, vb)  # stateless: the seed fixes the mask
    np.testing.assert_allclose(va, np.where(vu >= 0.5, 2.0, 0.0))
    assert all(len(set(r.tolist())) == 1 for r in vr)  # one decision per row
    np.testing.assert_allclose(vg, np.full((3, 4), 1 / 0.75), rtol=1e-6)
    np.testing.assert_array_equal(vs, x)


def test_row_max_of_short_rows_matches_numpy():
    # the softmax kernels' shift: the max down a transposed copy for many short rows
    from tideflow.ops import nn_ops

    rng = np.random.RandomState(0)
    for shape in [(128, 10), (64, 1), (300, 64), (300, 65), (7, 40, 9), (10,), (2, 3)]:
        for dt in (np.float32, np.float64, np.int32):
            x = (rng.randn(*shape) * 5).astype(dt)
            if dt is not np.int32 and x.size > 20:
                x.flat[5], x.flat[17] = np.nan, -0.0
            for v in (x, x[..., ::-1], np.asfortranarray(x)):
                got, want = nn_ops._row_max(v), np.max(v, axis=-1, keepdims=True)
                assert got.shape == want.shape and got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)
