"""tf.nn.rnn_cell / tf.contrib.rnn cells and the dynamic_rnn, static_rnn and
bidirectional_dynamic_rnn drivers, checked against NumPy implementations of the same cells
with the weights read back from the variables."""

import numpy as np
import pytest

import tideflow as tf


def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_basic_lstm(x, c, h, kernel, bias, forget_bias=1.0):
    gates = np.concatenate([x, h], 1) @ kernel + bias
    i, j, f, o = np.split(gates, 4, axis=1)
    new_c = c * _sig(f + forget_bias) + _sig(i) * np.tanh(j)
    return np.tanh(new_c) * _sig(o), new_c


def _np_run(step, xs, lengths, state):
    """Runs ``step(x_t, state) -> (out, state)`` over batch-major ``xs`` with per-row
    lengths: outputs past a row's length are zero and its state is kept."""
    steps = xs.shape[1]
    outs = []
    for t in range(steps):
        out, new_state = step(xs[:, t], state)
        live = (t < lengths)[:, None]
        outs.append(np.where(live, out, 0.0))
        state = tuple(np.where(live, n, s) for n, s in zip(new_state, state))
    return np.stack(outs, 1), state


def _vars(sess):
    return {v.op.name: val for v, val in zip(tf.global_variables(),
                                              sess.run(tf.global_variables()))}


def _session():
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    return sess


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        yield


RNG = np.random.RandomState(0)
XS = RNG.randn(3, 5, 4).astype(np.float32)
LENGTHS = np.array([5, 2, 0], dtype=np.int32)


def test_basic_lstm_dynamic_rnn_names_shapes_and_values():
    x = tf.placeholder(tf.float32, [None, 5, 4])
    lengths = tf.placeholder(tf.int32, [None])
    cell = tf.nn.rnn_cell.BasicLSTMCell(6, forget_bias=0.5)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    assert outputs.get_shape().as_list() == [None, 5, 6]
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    assert state.c.get_shape().as_list() == [None, 6]
    assert state.h.get_shape().as_list() == [None, 6]
    names = {v.op.name: v.get_shape().as_list() for v in tf.global_variables()}
    assert names == {"rnn/basic_lstm_cell/kernel": [10, 24], "rnn/basic_lstm_cell/bias": [24]}
    sess = _session()
    got_out, got_state = sess.run([outputs, state], {x: XS, lengths: LENGTHS})
    w = _vars(sess)
    kernel, bias = w["rnn/basic_lstm_cell/kernel"], w["rnn/basic_lstm_cell/bias"]

    def step(xt, s):
        h, c = _np_basic_lstm(xt, s[0], s[1], kernel, bias, forget_bias=0.5)
        return h, (c, h)

    zeros = np.zeros((3, 6), np.float32)
    want_out, (want_c, want_h) = _np_run(step, XS, LENGTHS, (zeros, zeros))
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.c, want_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.h, want_h, rtol=1e-5, atol=1e-6)
    # a zero-length row: zero outputs, zero state; outputs past length 2 are zero
    assert not got_out[2].any() and not got_state.h[2].any()
    assert not got_out[1, 2:].any() and got_out[1, :2].any()
    # the final h of a full-length row is its last output
    np.testing.assert_allclose(got_state.h[0], got_out[0, -1], rtol=1e-6)


def test_time_major_matches_batch_major_and_no_sequence_length():
    x = tf.constant(XS)
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    out_b, st_b = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    out_t, st_t = tf.nn.dynamic_rnn(cell, tf.transpose(x, [1, 0, 2]), dtype=tf.float32,
                                    time_major=True)
    assert out_t.get_shape().as_list() == [5, 3, 3]
    assert [v.op.name for v in tf.global_variables()] == [
        "rnn/basic_rnn_cell/kernel", "rnn/basic_rnn_cell/bias"]
    sess = _session()
    ob, sb, ot, stt = sess.run([out_b, st_b, out_t, st_t])
    w = _vars(sess)
    k, b = w["rnn/basic_rnn_cell/kernel"], w["rnn/basic_rnn_cell/bias"]

    def step(xt, s):
        h = np.tanh(np.concatenate([xt, s[0]], 1) @ k + b)
        return h, (h,)

    want, (want_s,) = _np_run(step, XS, np.full(3, 5), (np.zeros((3, 3), np.float32),))
    np.testing.assert_allclose(ob, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sb, want_s, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ot, want.transpose(1, 0, 2), rtol=1e-6)
    np.testing.assert_allclose(stt, sb, rtol=1e-6)


def test_unknown_batch_and_time_give_the_same_values_with_the_same_cell():
    known = tf.constant(XS)
    unknown = tf.placeholder(tf.float32, [None, None, 4])
    lengths = tf.placeholder(tf.int32, [None])
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3), tf.nn.rnn_cell.GRUCell(2)])
    out_k, st_k = tf.nn.dynamic_rnn(cell, known, sequence_length=LENGTHS, dtype=tf.float32)
    out_u, st_u = tf.nn.dynamic_rnn(cell, unknown, sequence_length=lengths, dtype=tf.float32)
    assert out_u.get_shape().as_list() == [None, None, 2]
    assert st_u[0].c.get_shape().as_list() == [None, 3]
    assert st_u[1].get_shape().as_list() == [None, 2]
    assert len(tf.global_variables()) == 6  # the second call reuses the cell's variables
    sess = _session()
    got_k, got_u = sess.run([(out_k, st_k), (out_u, st_u)], {unknown: XS, lengths: LENGTHS})
    for a, b in zip(_flat(got_k), _flat(got_u), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [y for e in x for y in _flat(e)]
    return [x]


def test_gru_names_bias_init_and_values():
    x = tf.constant(XS)
    cell = tf.contrib.rnn.GRUCell(5)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    names = {v.op.name: v.get_shape().as_list() for v in tf.global_variables()}
    assert names == {"rnn/gru_cell/gates/kernel": [9, 10], "rnn/gru_cell/gates/bias": [10],
                     "rnn/gru_cell/candidate/kernel": [9, 5],
                     "rnn/gru_cell/candidate/bias": [5]}
    sess = _session()
    got_out, got_state = sess.run([outputs, state])
    w = _vars(sess)
    np.testing.assert_array_equal(w["rnn/gru_cell/gates/bias"], np.ones(10))
    np.testing.assert_array_equal(w["rnn/gru_cell/candidate/bias"], np.zeros(5))
    gk, gb = w["rnn/gru_cell/gates/kernel"], w["rnn/gru_cell/gates/bias"]
    ck, cb = w["rnn/gru_cell/candidate/kernel"], w["rnn/gru_cell/candidate/bias"]

    def step(xt, s):
        h = s[0]
        r, u = np.split(_sig(np.concatenate([xt, h], 1) @ gk + gb), 2, axis=1)
        c = np.tanh(np.concatenate([xt, r * h], 1) @ ck + cb)
        new_h = u * h + (1 - u) * c
        return new_h, (new_h,)

    want, (want_s,) = _np_run(step, XS, LENGTHS, (np.zeros((3, 5), np.float32),))
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, want_s, rtol=1e-5, atol=1e-6)


def test_lstm_cell_peepholes_projection_clip():
    x = tf.constant(XS)
    cell = tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, cell_clip=0.3, num_proj=2,
                                   forget_bias=1.0)
    assert cell.state_size == (4, 2) and cell.output_size == 2
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    names = {v.op.name: v.get_shape().as_list() for v in tf.global_variables()}
    assert names == {"rnn/lstm_cell/kernel": [6, 16], "rnn/lstm_cell/bias": [16],
                     "rnn/lstm_cell/w_f_diag": [4], "rnn/lstm_cell/w_i_diag": [4],
                     "rnn/lstm_cell/w_o_diag": [4], "rnn/lstm_cell/projection/kernel": [4, 2]}
    assert outputs.get_shape().as_list() == [3, 5, 2]
    sess = _session()
    got_out, got_state = sess.run([outputs, state])
    w = {k.split("/", 2)[2]: v for k, v in _vars(sess).items()}

    def step(xt, s):
        c_prev, m_prev = s
        i, j, f, o = np.split(np.concatenate([xt, m_prev], 1) @ w["kernel"] + w["bias"], 4, 1)
        c = (_sig(f + 1.0 + w["w_f_diag"] * c_prev) * c_prev
             + _sig(i + w["w_i_diag"] * c_prev) * np.tanh(j))
        c = np.clip(c, -0.3, 0.3)
        m = (_sig(o + w["w_o_diag"] * c) * np.tanh(c)) @ w["projection/kernel"]
        return m, (c, m)

    want, (want_c, want_m) = _np_run(step, XS, np.full(3, 5),
                                     (np.zeros((3, 4), np.float32), np.zeros((3, 2), np.float32)))
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.c, want_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.h, want_m, rtol=1e-5, atol=1e-6)
    assert np.abs(got_state.c).max() <= 0.3 + 1e-7


def test_multi_rnn_cell_names_and_values_and_static_rnn_agrees():
    x = tf.constant(XS)
    cells = [tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2)]
    cell = tf.nn.rnn_cell.MultiRNNCell(cells)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == sorted([
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel",
        "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias",
        "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel",
        "rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias",
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel",
        "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias"])
    # static_rnn reuses the same cell (same variables) over a Python list of inputs
    s_out, s_state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=LENGTHS,
                                      dtype=tf.float32)
    assert len(tf.global_variables()) == 6 and len(s_out) == 5
    sess = _session()
    got_out, got_state, st_out, st_state = sess.run([outputs, state, s_out, s_state])
    w = _vars(sess)
    lk = w["rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel"]
    lb = w["rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias"]
    p = "rnn/multi_rnn_cell/cell_1/gru_cell/"

    def step(xt, s):
        c, h, g = s
        h1, c1 = _np_basic_lstm(xt, c, h, lk, lb)
        r, u = np.split(_sig(np.concatenate([h1, g], 1) @ w[p + "gates/kernel"]
                             + w[p + "gates/bias"]), 2, 1)
        cand = np.tanh(np.concatenate([h1, r * g], 1) @ w[p + "candidate/kernel"]
                       + w[p + "candidate/bias"])
        g1 = u * g + (1 - u) * cand
        return g1, (c1, h1, g1)

    z3, z2 = np.zeros((3, 3), np.float32), np.zeros((3, 2), np.float32)
    want, (wc, wh, wg) = _np_run(step, XS, LENGTHS, (z3, z3, z2))
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state[0].c, wc, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state[0].h, wh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state[1], wg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.stack(st_out, 1), got_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(st_state[0].h, got_state[0].h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(st_state[1], got_state[1], rtol=1e-5, atol=1e-6)


def test_state_is_tuple_false_and_initial_state():
    x = tf.constant(XS)
    cell = tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False)
    assert cell.state_size == 4
    init = tf.constant(RNG.randn(3, 4).astype(np.float32))
    outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=init)
    assert state.get_shape().as_list() == [3, 4]
    sess = _session()
    got_out, got_state, init_v = sess.run([outputs, state, init])
    w = _vars(sess)

    def step(xt, s):
        h, c = _np_basic_lstm(xt, s[0], s[1], w["rnn/basic_lstm_cell/kernel"],
                              w["rnn/basic_lstm_cell/bias"])
        return h, (c, h)

    want, (wc, wh) = _np_run(step, XS, np.full(3, 5), (init_v[:, :2], init_v[:, 2:]))
    np.testing.assert_allclose(got_out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, np.concatenate([wc, wh], 1), rtol=1e-5, atol=1e-6)


def test_bidirectional_dynamic_rnn():
    x = tf.placeholder(tf.float32, [None, 5, 4])
    lengths = tf.placeholder(tf.int32, [None])
    cell_fw, cell_bw = tf.nn.rnn_cell.BasicRNNCell(3), tf.nn.rnn_cell.BasicRNNCell(2)
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
        cell_fw, cell_bw, x, sequence_length=lengths, dtype=tf.float32)
    assert out_fw.get_shape().as_list() == [None, 5, 3]
    assert out_bw.get_shape().as_list() == [None, 5, 2]
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "bidirectional_rnn/bw/basic_rnn_cell/bias", "bidirectional_rnn/bw/basic_rnn_cell/kernel",
        "bidirectional_rnn/fw/basic_rnn_cell/bias", "bidirectional_rnn/fw/basic_rnn_cell/kernel"]
    sess = _session()
    ofw, obw, sfw, sbw = sess.run([out_fw, out_bw, st_fw, st_bw], {x: XS, lengths: LENGTHS})
    w = _vars(sess)

    def stepper(prefix):
        k, b = w[prefix + "kernel"], w[prefix + "bias"]

        def step(xt, s):
            h = np.tanh(np.concatenate([xt, s[0]], 1) @ k + b)
            return h, (h,)
        return step

    want_fw, (want_sfw,) = _np_run(stepper("bidirectional_rnn/fw/basic_rnn_cell/"), XS,
                                   LENGTHS, (np.zeros((3, 3), np.float32),))
    rev = np.zeros_like(XS)
    for b, n in enumerate(LENGTHS):
        rev[b, :n] = XS[b, :n][::-1]
        rev[b, n:] = XS[b, n:]
    tmp, (want_sbw,) = _np_run(stepper("bidirectional_rnn/bw/basic_rnn_cell/"), rev, LENGTHS,
                               (np.zeros((3, 2), np.float32),))
    want_bw = np.zeros_like(tmp)
    for b, n in enumerate(LENGTHS):
        want_bw[b, :n] = tmp[b, :n][::-1]
    np.testing.assert_allclose(ofw, want_fw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sfw, want_sfw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(obw, want_bw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sbw, want_sbw, rtol=1e-5, atol=1e-6)
    # the backward output at step 0 sees the whole sequence: equals the final bw state
    np.testing.assert_allclose(obw[0, 0], sbw[0], rtol=1e-6)
    # the static version, with the same cells (so the same variables' values)
    outs, s_fw, s_bw = tf.contrib.rnn.static_bidirectional_rnn(
        cell_fw, cell_bw, tf.unstack(x, axis=1), sequence_length=lengths, dtype=tf.float32)
    assert len(outs) == 5 and outs[0].get_shape().as_list() == [None, 5]
    st_outs, st_fw, st_bw = sess.run([outs, s_fw, s_bw], {x: XS, lengths: LENGTHS})
    np.testing.assert_allclose(np.stack(st_outs, 1), np.concatenate([ofw, obw], 2), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(st_fw, sfw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(st_bw, sbw, rtol=1e-5, atol=1e-6)


def test_gradients_through_dynamic_rnn_match_finite_differences():
    rng = np.random.RandomState(1)
    xv = rng.randn(2, 3, 2)
    x = tf.placeholder(tf.float64, [2, 3, 2])
    cell = tf.nn.rnn_cell.BasicLSTMCell(2)
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[3, 2], dtype=tf.float64)
    loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state.c * 0.5)
    kernel = next(v for v in tf.global_variables() if v.op.name.endswith("kernel"))
    gx, gk = tf.gradients(loss, [x, kernel])
    k_in = tf.placeholder(tf.float64, kernel.get_shape())
    set_kernel = tf.assign(kernel, k_in)
    sess = _session()
    got_gx, got_gk, kv = sess.run([gx, gk, kernel], {x: xv})
    eps = 1e-6

    def f(xval, kval):
        sess.run(set_kernel, {k_in: kval})
        return sess.run(loss, {x: xval})

    num_gx = np.zeros_like(xv)
    for idx in np.ndindex(*xv.shape):
        d = np.zeros_like(xv)
        d[idx] = eps
        num_gx[idx] = (f(xv + d, kv) - f(xv - d, kv)) / (2 * eps)
    num_gk = np.zeros_like(kv)
    for idx in np.ndindex(*kv.shape):
        d = np.zeros_like(kv)
        d[idx] = eps
        num_gk[idx] = (f(xv, kv + d) - f(xv, kv - d)) / (2 * eps)
    np.testing.assert_allclose(got_gx, num_gx, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_gk, num_gk, rtol=1e-5, atol=1e-7)
    # the second row's last step is past its length: no gradient reaches it
    assert not got_gx[1, 2].any()


def test_training_a_tiny_lstm_reduces_the_loss():
    rng = np.random.RandomState(2)
    xv = rng.randn(8, 4, 3).astype(np.float32)
    yv = xv.sum(axis=(1, 2), keepdims=False)[:, None].astype(np.float32) * 0.1
    x = tf.placeholder(tf.float32, [None, 4, 3])
    y = tf.placeholder(tf.float32, [None, 1])
    _, state = tf.nn.dynamic_rnn(tf.contrib.rnn.BasicLSTMCell(8), x, dtype=tf.float32)
    pred = tf.layers.dense(state.h, 1)
    loss = tf.reduce_mean(tf.square(pred - y))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    sess = _session()
    first = sess.run(loss, {x: xv, y: yv})
    for _ in range(60):
        sess.run(train, {x: xv, y: yv})
    last = sess.run(loss, {x: xv, y: yv})
    assert last < 0.2 * first, (first, last)


def test_dropout_wrapper():
    x = tf.constant(np.ones((4, 3, 2), np.float32))
    base = tf.nn.rnn_cell.BasicRNNCell(50, activation=lambda t: t * 0 + 1.0)
    cell = tf.nn.rnn_cell.DropoutWrapper(base, output_keep_prob=0.5, seed=3)
    assert cell.state_size == 50 and cell.output_size == 50
    outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    # the wrapper adds no scope: the variables are the wrapped cell's
    assert [v.op.name for v in tf.global_variables()] == [
        "rnn/basic_rnn_cell/kernel", "rnn/basic_rnn_cell/bias"]
    out, st = _session().run([outputs, state])
    assert set(np.unique(out)) == {0.0, 2.0}
    assert 0.3 < (out == 0).mean() < 0.7
    np.testing.assert_array_equal(st, np.ones((4, 50)))  # the state is not dropped
    with pytest.raises(ValueError, match="input_keep_prob"):
        tf.nn.rnn_cell.DropoutWrapper(base, input_keep_prob=1.5)


def test_cell_called_directly_reuses_its_variables_and_zero_state():
    x = tf.placeholder(tf.float32, [None, 3])
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    zero = cell.zero_state(tf.shape(x)[0], tf.float32)
    assert zero.c.get_shape().as_list() == [None, 4]
    assert cell.zero_state(5, tf.float64).h.get_shape().as_list() == [5, 4]
    out, st = cell(x, zero)
    out2, _ = cell(out[:, :3], st)
    assert [v.op.name for v in tf.global_variables()] == [
        "basic_lstm_cell/kernel", "basic_lstm_cell/bias"]
    other = tf.nn.rnn_cell.BasicLSTMCell(4)
    other(x, zero)
    assert len(tf.global_variables()) == 4
    assert tf.global_variables()[2].op.name == "basic_lstm_cell_1/kernel"
    assert out2.get_shape().as_list() == [None, 4]


def test_errors():
    cell = tf.nn.rnn_cell.BasicRNNCell(2)
    with pytest.raises(ValueError, match="you must give a dtype"):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]))
    with pytest.raises(ValueError, match="rank at least 3"):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match="sequence_length must be a vector"):
        tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]), sequence_length=[[1, 2]],
                          dtype=tf.float32)
    with pytest.raises(ValueError, match="depth of inputs"):
        tf.nn.dynamic_rnn(cell, tf.placeholder(tf.float32, [2, 3, None]), dtype=tf.float32)
    with pytest.raises(TypeError, match="not an RNNCell"):
        tf.nn.dynamic_rnn(object(), tf.zeros([2, 3, 4]), dtype=tf.float32)
    with pytest.raises(TypeError, match="inputs must be a sequence"):
        tf.nn.static_rnn(cell, tf.zeros([2, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match="inputs must not be empty"):
        tf.nn.static_rnn(cell, [], dtype=tf.float32)
    with pytest.raises(ValueError, match="dtype must be specified"):
        tf.nn.static_rnn(cell, [tf.zeros([2, 3])])
    with pytest.raises(ValueError, match="at least one cell"):
        tf.nn.rnn_cell.MultiRNNCell([])


def test_namespaces():
    assert tf.contrib.rnn.LSTMCell is tf.nn.rnn_cell.LSTMCell
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn
    assert tf.contrib.rnn.static_bidirectional_rnn is tf.nn.static_bidirectional_rnn
    from tideflow.contrib.rnn import MultiRNNCell
    from tideflow.nn.rnn_cell import LSTMStateTuple
    assert MultiRNNCell is tf.nn.rnn_cell.MultiRNNCell
    assert LSTMStateTuple(1, 2).h == 2


def test_bidirectional_time_major_gradient_matches_finite_differences():
    rng = np.random.RandomState(3)
    xv = rng.randn(4, 2, 2)  # [time, batch, depth]
    x = tf.placeholder(tf.float64, [4, 2, 2])
    (out_fw, out_bw), (st_fw, st_bw) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.BasicLSTMCell(2), x,
        sequence_length=[4, 2], dtype=tf.float64, time_major=True)
    assert out_bw.get_shape().as_list() == [4, 2, 2]
    weights = tf.constant(rng.randn(4, 2, 2))
    loss = (tf.reduce_sum(out_fw * weights) + tf.reduce_sum(out_bw * out_bw)
            + tf.reduce_sum(st_bw.c) + tf.reduce_sum(st_fw))
    (gx,) = tf.gradients(loss, [x])
    sess = _session()
    got, bw = sess.run([gx, out_bw], {x: xv})
    assert not bw[2:, 1].any()  # past the second row's length
    eps = 1e-6
    num = np.zeros_like(xv)
    for idx in np.ndindex(*xv.shape):
        d = np.zeros_like(xv)
        d[idx] = eps
        num[idx] = (sess.run(loss, {x: xv + d}) - sess.run(loss, {x: xv - d})) / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)
    assert not got[2:, 1].any()


def test_state_dropout_spares_lstm_c_and_residual_and_device_wrappers():
    x = tf.constant(XS)
    lstm = tf.nn.rnn_cell.BasicLSTMCell(40)
    # keep prob ~0 (not below float32's resolution of rate = 1 - keep_prob: TF 1.15's dropout
    # would scale by 1 / 0 there)
    cell = tf.nn.rnn_cell.DropoutWrapper(lstm, state_keep_prob=1e-6, seed=1)
    _, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    res_cell = tf.nn.rnn_cell.ResidualWrapper(tf.nn.rnn_cell.DeviceWrapper(
        tf.nn.rnn_cell.BasicRNNCell(4), "/cpu:0"))
    res_out, _ = tf.nn.dynamic_rnn(res_cell, x, dtype=tf.float32, scope="res")
    res_plain, _ = tf.nn.dynamic_rnn(res_cell.wrapped_cell.wrapped_cell, x, dtype=tf.float32,
                                     scope="res")
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["rnn/basic_lstm_cell/kernel", "rnn/basic_lstm_cell/bias",
                     "res/basic_rnn_cell/kernel", "res/basic_rnn_cell/bias"]
    sess = _session()
    st, r_out, r_plain = sess.run([state, res_out, res_plain])
    w = _vars(sess)

    def step(xt, s):  # h is dropped (keep prob ~0) after every step, c never is
        h, c = _np_basic_lstm(xt, s[0], s[1], w["rnn/basic_lstm_cell/kernel"],
                              w["rnn/basic_lstm_cell/bias"])
        return h, (c, np.zeros_like(h))

    zeros = np.zeros((3, 40), np.float32)
    _, (want_c, _) = _np_run(step, XS, np.full(3, 5), (zeros, zeros))
    assert not st.h.any()
    np.testing.assert_allclose(st.c, want_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r_out, r_plain + XS, rtol=1e-6)


def test_variational_dropout_uses_one_mask_for_every_step_and_row():
    x = tf.constant(np.ones((4, 6, 3), np.float32))
    base = tf.nn.rnn_cell.BasicRNNCell(64, activation=lambda t: t * 0 + 1.0)
    cell = tf.nn.rnn_cell.DropoutWrapper(base, output_keep_prob=0.5, input_keep_prob=0.5,
                                         variational_recurrent=True, input_size=3,
                                         dtype=tf.float32, seed=5)
    outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    sess = _session()
    out = sess.run(outputs)
    assert set(np.unique(out)) == {0.0, 2.0}
    mask = out[0, 0] == 0
    assert 0.2 < mask.mean() < 0.8
    for b in range(4):
        for t in range(6):
            np.testing.assert_array_equal(out[b, t] == 0, mask)
    # a new run draws a new mask
    assert any(((sess.run(outputs)[0, 0] == 0) != mask).any() for _ in range(3))
    with pytest.raises(ValueError, match="dtype must be provided"):
        tf.nn.rnn_cell.DropoutWrapper(base, output_keep_prob=0.5, variational_recurrent=True)
    with pytest.raises(ValueError, match="input_size must be provided"):
        tf.nn.rnn_cell.DropoutWrapper(base, input_keep_prob=0.5, variational_recurrent=True,
                                      dtype=tf.float32)


def test_variables_round_trip_through_a_checkpoint(tmp_path):
    path = str(tmp_path / "model.ckpt")
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.LSTMCell(2)])
    out, _ = tf.nn.dynamic_rnn(cell, tf.constant(XS), dtype=tf.float32)
    sess = _session()
    want = sess.run(out)
    tf.train.Saver().save(sess, path)
    names = dict(tf.train.list_variables(path))
    assert names["rnn/multi_rnn_cell/cell_1/lstm_cell/kernel"] == [5, 8]
    assert names["rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel"] == [7, 6]
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3),
                                            tf.nn.rnn_cell.LSTMCell(2)])
        out, _ = tf.nn.dynamic_rnn(cell, tf.constant(XS), dtype=tf.float32)
        with tf.Session() as sess2:
            tf.train.Saver().restore(sess2, path)
            np.testing.assert_array_equal(sess2.run(out), want)
