"""tf.contrib pieces TF 1.x programs import: the research RNN cells, cudnn_rnn layers on
the CPU, image warps/splines, resampler, sparsemax, contrib.nn, metric-learning losses,
integrate.odeint and the contrib.summary API. Expected values are NumPy re-derivations of
TF 1.15's formulas; variable names and shapes are the ones TF 1.15's code creates."""

import numpy as np
import pytest

import tideflow as tf

R = tf.contrib.rnn
RNG = np.random.RandomState(7)


def sig(x):
    return 1 / (1 + np.exp(-x))


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _step(cell, x, state, scope="cell"):
    """Runs one ``cell(x, state)`` step in a new graph; returns (output, new_state,
    {short var name: value})."""
    with tf.Graph().as_default():
        xt = tf.contrib.framework.nest.map_structure(tf.constant, x)
        st = tf.contrib.framework.nest.map_structure(tf.constant, state)
        out, new = cell(xt, st, scope=scope)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            o, s, vs = sess.run((out, new, tf.global_variables()))
        names = [v.op.name[len(scope) + 1:] for v in tf.global_variables()]
    return o, s, dict(zip(names, vs, strict=True))


def _x(*shape):
    return RNG.randn(*shape)


def test_ind_rnn_indy_gru_indy_lstm():
    x, h = _x(3, 4), _x(3, 5)
    o, _, v = _step(R.IndRNNCell(5, dtype=tf.float64), x, h)
    assert sorted(v) == ["bias", "kernel_u", "kernel_w"]
    assert v["kernel_u"].shape == (1, 5) and np.all(np.abs(v["kernel_u"]) <= 1)
    np.testing.assert_allclose(o, np.tanh(x @ v["kernel_w"] + h * v["kernel_u"] + v["bias"]))

    o, _s, v = _step(R.IndyGRUCell(5, dtype=tf.float64), x, h)
    assert sorted(v) == ["candidate/bias", "candidate/kernel", "candidate/kernel_u",
                         "gates/bias", "gates/kernel_u", "gates/kernel_w"]
    np.testing.assert_allclose(v["gates/bias"], 1.0)  # TF's gate bias starts at one
    g = sig(x @ v["gates/kernel_w"] + np.tile(h, 2) * v["gates/kernel_u"] + v["gates/bias"])
    r, u = g[:, :5], g[:, 5:]
    c = np.tanh(x @ v["candidate/kernel"] + r * h * v["candidate/kernel_u"] + v["candidate/bias"])
    np.testing.assert_allclose(o, u * h + (1 - u) * c)

    c0 = _x(3, 5)
    o, (c1, h1), v = _step(R.IndyLSTMCell(5, forget_bias=0.5, dtype=tf.float64), x,
                           R.LSTMStateTuple(c0, h))
    gates = x @ v["kernel_w"] + np.tile(h, 4) * v["kernel_u"] + v["bias"]
    i, j, f, og = np.split(gates, 4, axis=1)
    want_c = c0 * sig(f + 0.5) + sig(i) * np.tanh(j)
    np.testing.assert_allclose(c1, want_c)
    np.testing.assert_allclose(o, np.tanh(want_c) * sig(og))
    np.testing.assert_allclose(h1, o)


def test_nas_cell():
    x, c0, m0 = _x(2, 3), _x(2, 4), _x(2, 2)
    o, (c1, _m1), v = _step(R.NASCell(4, num_proj=2, use_bias=True), x.astype(np.float32),
                           R.LSTMStateTuple(c0.astype(np.float32), m0.astype(np.float32)))
    assert {k: a.shape for k, a in v.items()} == {
        "recurrent_kernel": (2, 32), "kernel": (3, 32), "bias": (32,),
        "projection_weights": (4, 2)}
    xs = np.split(x @ v["kernel"], 8, 1)
    ms = np.split(m0 @ v["recurrent_kernel"] + v["bias"], 8, 1)
    relu = lambda a: np.maximum(a, 0)
    l1 = [sig(xs[0] + ms[0]), relu(xs[1] + ms[1]), sig(xs[2] + ms[2]), relu(xs[3] * ms[3]),
          np.tanh(xs[4] + ms[4]), sig(xs[5] + ms[5]), np.tanh(xs[6] + ms[6]),
          sig(xs[7] + ms[7])]
    new_c = np.tanh(np.tanh(l1[0] * l1[1]) + c0) * np.tanh(l1[2] + l1[3])
    new_m = np.tanh(new_c * np.tanh(np.tanh(l1[4] * l1[5]) + sig(l1[6] + l1[7])))
    np.testing.assert_allclose(c1, new_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o, new_m @ v["projection_weights"], rtol=1e-5, atol=1e-6)


def test_ugrnn_intersection_sru():
    x, h = _x(3, 4), _x(3, 4)
    o, s, v = _step(R.UGRNNCell(4, forget_bias=0.3), x, h)
    gm = np.concatenate([x, h], 1) @ v["kernel"] + v["bias"]
    g, c = sig(gm[:, :4] + 0.3), np.tanh(gm[:, 4:])
    np.testing.assert_allclose(o, g * h + (1 - g) * c)

    x3 = _x(3, 6)
    o, s, v = _step(R.IntersectionRNNCell(4, num_in_proj=4), x3, h)
    assert sorted(v) == ["bias", "in_projection/bias", "in_projection/kernel", "kernel"]
    xp = x3 @ v["in_projection/kernel"] + v["in_projection/bias"]
    m = np.concatenate([xp, h], 1) @ v["kernel"] + v["bias"]
    gh, hh, gy, y = np.split(m, 4, 1)
    gh, gy = sig(gh + 1), sig(gy + 1)
    np.testing.assert_allclose(s, gh * h + (1 - gh) * np.tanh(hh))
    np.testing.assert_allclose(o, gy * xp + (1 - gy) * np.maximum(y, 0))
    with pytest.raises(ValueError, match="num_in_proj"):
        _step(R.IntersectionRNNCell(4), x3, h)

    o, s, v = _step(R.SRUCell(4), x, h)
    assert v["kernel"].shape == (4, 16) and v["bias"].shape == (8,)
    xb, fi, ri, xt = np.split(x @ v["kernel"], 4, 1)
    f, r = sig(fi + v["bias"][:4]), sig(ri + v["bias"][4:])
    c = f * h + (1 - f) * xb
    np.testing.assert_allclose(s, c)
    np.testing.assert_allclose(o, r * np.tanh(c) + (1 - r) * xt)


def test_glstm_groups_and_projection():
    x, c0, m0 = _x(2, 6), _x(2, 4), _x(2, 2)
    o, (c1, _m1), v = _step(R.GLSTMCell(4, num_proj=2, number_of_groups=2), x,
                           R.LSTMStateTuple(c0, m0))
    assert {k: a.shape for k, a in v.items()} == {
        "group0/kernel": (4, 8), "group1/kernel": (4, 8), "bias_i": (4,), "bias_j": (4,),
        "bias_f": (4,), "bias_o": (4,), "projection/kernel": (4, 2)}
    parts = [np.split(np.concatenate([x[:, 3 * g:3 * g + 3], m0[:, g:g + 1]], 1)
                      @ v[f"group{g}/kernel"], 4, 1) for g in range(2)]
    i, j, f, og = (np.concatenate([parts[0][k], parts[1][k]], 1) + v["bias_" + n]
                   for k, n in enumerate("ijfo"))
    c = sig(f + 1) * c0 + sig(i) * np.tanh(j)
    np.testing.assert_allclose(c1, c, rtol=1e-6)
    np.testing.assert_allclose(o, (sig(og) * np.tanh(c)) @ v["projection/kernel"], rtol=1e-6)


def _ln(a):
    mu, var = a.mean(1, keepdims=True), a.var(1, keepdims=True)
    return (a - mu) / np.sqrt(var + 1e-12)


def test_layer_norm_lstm_cell():
    # TF's layer-norm variables are float32 whatever the input (its _norm passes no dtype)
    x, c0, m0 = (_x(3, 4).astype(np.float32), _x(3, 5).astype(np.float32),
                 _x(3, 2).astype(np.float32))
    cell = R.LayerNormLSTMCell(5, use_peepholes=True, cell_clip=0.8, num_proj=2,
                               layer_norm=True, norm_gain=1.0, norm_shift=0.0)
    o, (c1, _m1), v = _step(cell, x, R.LSTMStateTuple(c0, m0))
    assert set(v) == {"kernel", "bias", "w_f_diag", "w_i_diag", "w_o_diag",
                      "projection/kernel"} | {f"{s}/{p}" for s in
                                              ("input", "transform", "forget", "output",
                                               "state") for p in ("gamma", "beta")}
    i, j, f, og = (_ln(a) for a in np.split(np.concatenate([x, m0], 1) @ v["kernel"], 4, 1))
    c = sig(f + 1 + v["w_f_diag"] * c0) * c0 + sig(i + v["w_i_diag"] * c0) * np.tanh(j)
    c = np.clip(_ln(c), -0.8, 0.8)
    m = sig(og + v["w_o_diag"] * c) * np.tanh(c)
    np.testing.assert_allclose(c1, c, atol=1e-5)
    np.testing.assert_allclose(o, m @ v["projection/kernel"], atol=1e-5)


def test_coupled_input_forget_gate_lstm_sharded():
    x, c0, m0 = _x(2, 3), _x(2, 4), _x(2, 3)
    cell = R.CoupledInputForgetGateLSTMCell(4, use_peepholes=True, num_proj=3,
                                            num_unit_shards=2, num_proj_shards=2)
    o, (c1, _m1), v = _step(cell, x, R.LSTMStateTuple(c0, m0))
    # TF's _get_sharded_variable: rows split as evenly as possible, the first shards larger
    assert {k: a.shape for k, a in v.items()} == {
        "W_0": (3, 12), "W_1": (3, 12), "B": (12,), "W_F_diag": (4,), "W_O_diag": (4,),
        "W_P_0": (2, 3), "W_P_1": (2, 3)}
    w = np.concatenate([v["W_0"], v["W_1"]])
    j, f, og = np.split(np.concatenate([x, m0], 1) @ w + v["B"], 3, 1)
    fa = sig(f + 1 + v["W_F_diag"] * c0)
    c = fa * c0 + (1 - fa) * np.tanh(j)
    m = sig(og + v["W_O_diag"] * c) * np.tanh(c)
    np.testing.assert_allclose(c1, c, rtol=1e-6)
    np.testing.assert_allclose(o, m @ np.concatenate([v["W_P_0"], v["W_P_1"]]), rtol=1e-6)


def _np_freq_lstm(feats, n, w, b, c_prev_list, m_prev_list):
    m_pf = np.zeros((feats[0].shape[0], n))
    outs, states = [], []
    for k, feat in enumerate(feats):
        i, j, f, o = np.split(np.concatenate([feat, m_prev_list[k], m_pf], 1) @ w + b, 4, 1)
        c = sig(f + 1) * c_prev_list[k] + sig(i) * np.tanh(j)
        m = sig(o) * np.tanh(c)
        m_pf = m
        outs.append(m)
        states += [c, m]
    return np.concatenate(outs, 1), np.concatenate(states, 1)


def test_time_freq_lstm_cell():
    n, x = 3, _x(2, 5)
    feats = [x[:, k:k + 3] for k in range(3)]  # feature_size 3, skip 1 -> 3 windows
    state = _x(2, 2 * n * 3)
    o, s, v = _step(R.TimeFreqLSTMCell(n, feature_size=3, frequency_skip=1), x, state)
    assert {k: a.shape for k, a in v.items()} == {"W_0": (3 + 2 * n, 4 * n), "B": (4 * n,)}
    cs = [state[:, 2 * k * n:(2 * k + 1) * n] for k in range(3)]
    ms = [state[:, (2 * k + 1) * n:(2 * k + 2) * n] for k in range(3)]
    want_o, want_s = _np_freq_lstm(feats, n, v["W_0"], v["B"], cs, ms)
    np.testing.assert_allclose(o, want_o, rtol=1e-6)
    np.testing.assert_allclose(s, want_s, rtol=1e-6)


def test_grid_lstm_cell_shared_weights():
    """Without peepholes and with shared weights the time and frequency LSTMs get the same
    gate pre-activations; each carries its own cell."""
    n, x = 2, _x(2, 4)
    cell = R.GridLSTMCell(n, share_time_frequency_weights=True, feature_size=2,
                          frequency_skip=2, num_frequency_blocks=[2])
    state = cell.state_tuple_type(*[_x(2, n) for _ in range(4)])
    o, s, v = _step(cell, x, state)
    assert {k: a.shape for k, a in v.items()} == {"W_f_0_0": (2 + 2 * n, 4 * n),
                                                  "B_f_0": (4 * n,)}
    assert type(s).__name__ == "GridLSTMStateTuple"
    assert s._fields == ("state_f00_b00_c", "state_f00_b00_m", "state_f01_b00_c",
                         "state_f01_b00_m")
    m_pf = c_pf = np.zeros((2, n))
    outs, new = [], []
    for k in range(2):
        c_t, m_t = state[2 * k], state[2 * k + 1]
        i, j, f, og = np.split(np.concatenate([x[:, 2 * k:2 * k + 2], m_t, m_pf], 1)
                               @ v["W_f_0_0"] + v["B_f_0"], 4, 1)
        c_f = sig(f + 1) * c_pf + sig(i) * np.tanh(j)
        c_ti = sig(f + 1) * c_t + sig(i) * np.tanh(j)
        m_f, m_ti = sig(og) * np.tanh(c_f), sig(og) * np.tanh(c_ti)
        m_pf, c_pf = m_f, c_f
        new += [c_ti, m_ti]
        outs += [m_ti, m_f]
    np.testing.assert_allclose(o, np.concatenate(outs, 1), rtol=1e-6)
    for got, want in zip(s, new, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_grid_and_bidirectional_grid_variables():
    cell = R.BidirectionalGridLSTMCell(2, use_peepholes=True, couple_input_forget_gates=True,
                                       feature_size=2, frequency_skip=1,
                                       num_frequency_blocks=[3])
    x = tf.zeros([1, 4])
    out, _state = cell(x, cell.zero_state(1, tf.float32))
    assert out.shape.as_list() == [1, cell.output_size] == [1, 24]
    names = sorted(v.op.name for v in tf.global_variables())
    # coupled gates: no forget-gate peepholes, three gates per matrix
    assert "bidirectional_grid_lstm_cell/bwd/W_t_0_0" in names
    assert not any("W_F_diag" in n for n in names)
    assert len(names) == 2 * (4 + 8)
    with pytest.raises(ValueError, match="Invalid num_frequency_blocks"):
        R.GridLSTMCell(2, feature_size=2, frequency_skip=1, num_frequency_blocks=[2])(
            x, R.GridLSTMCell(2, feature_size=2, frequency_skip=1,
                              num_frequency_blocks=[2]).zero_state(1, tf.float32))


def _conv1d_same(x, k):
    """SAME, stride-1 1-D convolution (cross-correlation, as TF) of [b, w, c] by [kw, c, o]."""
    kw = k.shape[0]
    pad_l = (kw - 1) // 2
    xp = np.pad(x, ((0, 0), (pad_l, kw - 1 - pad_l), (0, 0)))
    return np.stack([np.einsum("bkc,kco->bo", xp[:, i:i + kw], k)
                     for i in range(x.shape[1])], 1)


def test_conv_lstm_cells():
    x, c0, h0 = _x(2, 5, 3), _x(2, 5, 4), _x(2, 5, 4)
    cell = R.Conv1DLSTMCell(input_shape=[5, 3], output_channels=4, kernel_shape=[3],
                            skip_connection=True)
    assert cell.output_size.as_list() == [5, 7]
    o, (c1, _h1), v = _step(cell, x, R.LSTMStateTuple(c0, h0), scope="cell")
    assert {k: a.shape for k, a in v.items()} == {"kernel": (3, 7, 16), "biases": (16,)}
    g = _conv1d_same(np.concatenate([x, h0], 2), v["kernel"]) + v["biases"]
    i, j, f, og = np.split(g, 4, axis=2)
    c = sig(f + 1) * c0 + sig(i) * np.tanh(j)
    np.testing.assert_allclose(c1, c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o, np.concatenate([np.tanh(c) * sig(og), x], 2), rtol=1e-5,
                               atol=1e-6)
    # under dynamic_rnn, the variables sit in the cell's own name (TF 1.15 passes it on)
    frames = tf.zeros([2, 3, 4, 4, 1])
    out, _ = tf.nn.dynamic_rnn(R.Conv2DLSTMCell(input_shape=[4, 4, 1], output_channels=2,
                                                kernel_shape=[3, 3]), frames, dtype=tf.float32)
    assert out.shape.as_list() == [2, 3, 4, 4, 2]
    assert sorted(v.op.name for v in tf.global_variables()) == [
        "rnn/conv_2d_lstm_cell/biases", "rnn/conv_2d_lstm_cell/kernel"]
    with pytest.raises(ValueError, match="Invalid input_shape"):
        R.ConvLSTMCell(2, [4, 4], 2, [3, 3])


def test_phased_lstm_cell_time_gate():
    n = 3
    # the time may be float64; features and state are float32 (the gate k is float32 in TF)
    t, x = np.array([[0.5], [7.0]]), _x(2, 2).astype(np.float32)
    c0, h0 = _x(2, n).astype(np.float32), _x(2, n).astype(np.float32)
    o, (c1, _h1), v = _step(R.PhasedLSTMCell(n, period_init_min=2.0, period_init_max=10.0),
                           (t, x), R.LSTMStateTuple(c0, h0))
    assert np.all((v["period"] >= 2.0) & (v["period"] <= 10.0))
    assert np.all((v["phase"] >= 0) & (v["phase"] <= v["period"]))
    np.testing.assert_allclose(v["ratio_on"], 0.1)
    gi = sig(np.concatenate([x, h0], 1) @ v["mask_gates/kernel"] + v["mask_gates/bias"])
    ig, fg = gi[:, :n], gi[:, n:]
    new_in = np.tanh(np.concatenate([x, h0], 1) @ v["new_input/kernel"] + v["new_input/bias"])
    c = c0 * fg + ig * new_in
    og = sig(np.concatenate([x, h0], 1) @ v["output_gate/kernel"] + v["output_gate/bias"])
    h = np.tanh(c) * og
    cycle = np.mod(t - v["phase"], v["period"]) / v["period"]
    k_up = 2 * cycle / 0.1
    k = np.where(cycle < 0.1, 2 - k_up, 0.001 * cycle)
    k = np.where(cycle < 0.05, k_up, k)
    np.testing.assert_allclose(c1, k * c + (1 - k) * c0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o, k * h + (1 - k) * h0, rtol=1e-5, atol=1e-6)


def test_fused_adaptor_and_time_reversed():
    x = tf.constant(_x(4, 2, 3), tf.float32)  # time-major
    cell = R.BasicRNNCell(2)
    fwd = R.FusedRNNCellAdaptor(cell, use_dynamic_rnn=True)
    out, _state = fwd(x, dtype=tf.float32, scope="f")
    rev_out, rev_state = R.TimeReversedFusedRNN(fwd)(x, dtype=tf.float32, scope="f")
    static_out, _ = R.FusedRNNCellAdaptor(R.BasicRNNCell(2))(x, dtype=tf.float32, scope="s")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, ro, rs, so = sess.run((out, rev_out, rev_state, static_out))
        xv = sess.run(x)
        again, _ = sess.run(fwd(tf.constant(xv[::-1]), dtype=tf.float32, scope="f"))
    assert o.shape == so.shape == (4, 2, 2)
    np.testing.assert_allclose(ro, again[::-1], rtol=1e-6)
    np.testing.assert_allclose(rs, again[-1], rtol=1e-6)
    assert R.best_effort_input_batch_size([x]) == 2
    # lists of steps come back as lists (TF's adaptor), reversed lists for the reversed RNN
    steps = [tf.constant(v) for v in xv]
    list_out, _ = R.FusedRNNCellAdaptor(cell, use_dynamic_rnn=True)(steps, dtype=tf.float32,
                                                                      scope="f")
    rev_list, _ = R.TimeReversedFusedRNN(fwd)(steps, dtype=tf.float32, scope="f")
    assert isinstance(list_out, list) and len(list_out) == 4
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        lo, rl, o, ro = sess.run((list_out, rev_list, out, rev_out))
    np.testing.assert_allclose(lo, o, rtol=1e-6)
    np.testing.assert_allclose(rl, ro, rtol=1e-6)


def test_lstm_block_wrapper_masks_and_picks_final_states():
    class Doubling(R.LSTMBlockWrapper):
        """A toy fused cell: c_t = c_{t-1} + x_t, h_t = 2 c_t (every step's values)."""

        num_units = 2

        def _call_cell(self, inputs, initial_cell_state, initial_output, dtype,
                       sequence_length):
            c = tf.cumsum(inputs, axis=0) + initial_cell_state
            return c, 2 * c

    x = np.arange(4 * 3 * 2, dtype=np.float32).reshape(4, 3, 2)
    out, (c, h) = Doubling()(tf.constant(x), dtype=tf.float32,
                             sequence_length=tf.constant([4, 2, 0]))
    o, cv, hv = _run((out, c, h))
    cum = np.cumsum(x, 0)
    np.testing.assert_allclose(o[:, 0], 2 * cum[:, 0])
    np.testing.assert_allclose(o[2:, 1], 0.0)  # past the row's length
    np.testing.assert_allclose(cv, [cum[3, 0], cum[1, 1], [0, 0]])  # length 0: initial state
    np.testing.assert_allclose(hv, [2 * cum[3, 0], 2 * cum[1, 1], [0, 0]])
    with pytest.raises(ValueError, match="initial_state or dtype"):
        Doubling()(tf.constant(x))


# ---- tf.contrib.cudnn_rnn on the CPU ---------------------------------------------------------


def _cudnn():
    return tf.contrib.cudnn_rnn


def _np_cudnn(mode, x, h0, c0, weights, biases, num_layers, num_dirs, n):
    """cuDNN's recurrences from its canonical weights ([n, width] matrices, gates i f c o /
    r u h), re-derived in NumPy; x is [time, batch, depth]."""
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[mode]
    hs, cs, inp = [], [], x
    for layer in range(num_layers):
        outs = []
        for d in range(num_dirs):
            k = layer * num_dirs + d
            w = weights[k * 2 * gates:(k + 1) * 2 * gates]
            b = biases[k * 2 * gates:(k + 1) * 2 * gates]
            h, c = h0[k], (c0[k] if c0 is not None else None)
            seq = inp if d == 0 else inp[::-1]
            out = []
            for xt in seq:
                xi = [xt @ w[g].T + b[g] for g in range(gates)]
                hr = [h @ w[gates + g].T + b[gates + g] for g in range(gates)]
                if mode == "lstm":
                    i, f, cc, o = (sig(xi[0] + hr[0]), sig(xi[1] + hr[1]),
                                   np.tanh(xi[2] + hr[2]), sig(xi[3] + hr[3]))
                    c = f * c + i * cc
                    h = o * np.tanh(c)
                elif mode == "gru":
                    r, u = sig(xi[0] + hr[0]), sig(xi[1] + hr[1])
                    h = (1 - u) * np.tanh(xi[2] + r * hr[2]) + u * h
                else:
                    a = xi[0] + hr[0]
                    h = np.tanh(a) if mode == "rnn_tanh" else np.maximum(a, 0)
                out.append(h)
            out = np.stack(out)
            outs.append(out if d == 0 else out[::-1])
            hs.append(h)
            cs.append(c)
        inp = np.concatenate(outs, 2)
    return inp, np.stack(hs), (np.stack(cs) if c0 is not None else None)


@pytest.mark.parametrize("mode,cls,direction,layers", [
    ("lstm", "CudnnLSTM", "bidirectional", 2), ("lstm", "CudnnLSTM", "unidirectional", 1),
    ("gru", "CudnnGRU", "bidirectional", 2), ("rnn_tanh", "CudnnRNNTanh", "unidirectional", 2),
    ("rnn_relu", "CudnnRNNRelu", "bidirectional", 1)])
def test_cudnn_layers_match_numpy(mode, cls, direction, layers):
    cu = _cudnn()
    n, dirs = 3, 2 if direction == "bidirectional" else 1
    layer = getattr(cu, cls)(layers, n, direction=direction,
                             bias_initializer=tf.random_uniform_initializer(-0.5, 0.5))
    x = _x(5, 2, 4).astype(np.float32)
    h0 = _x(layers * dirs, 2, n).astype(np.float32)
    c0 = _x(layers * dirs, 2, n).astype(np.float32)
    init = (h0, c0) if mode == "lstm" else (h0,)
    outputs, states = layer(tf.constant(x), initial_state=tuple(map(tf.constant, init)))
    assert outputs.shape.as_list() == [5, 2, dirs * n]
    assert layer.kernel.op.name == cls.replace("Cudnn", "cudnn_").lower().replace(
        "rnntanh", "rnn_tanh").replace("rnnrelu", "rnn_relu") + "/opaque_kernel"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, st, opaque = sess.run((outputs, states, layer.kernel))
    shapes = layer.canonical_weight_shapes + layer.canonical_bias_shapes
    sizes = np.cumsum([0] + [int(np.prod(s)) for s in shapes])
    assert opaque.shape == (sizes[-1],)
    parts = [opaque[sizes[k]:sizes[k + 1]].reshape(s) for k, s in enumerate(shapes)]
    nw = len(layer.canonical_weight_shapes)
    want_o, want_h, want_c = _np_cudnn(mode, x, h0, c0 if mode == "lstm" else None,
                                       parts[:nw], parts[nw:], layers, dirs, n)
    np.testing.assert_allclose(out, want_o, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(st[0], want_h, rtol=1e-4, atol=1e-5)
    if mode == "lstm":
        np.testing.assert_allclose(st[1], want_c, rtol=1e-4, atol=1e-5)


def test_cudnn_lstm_sequence_lengths_and_batch_major():
    cu = _cudnn()
    layer = cu.CudnnLSTM(1, 2, direction="bidirectional")
    x = _x(2, 4, 3).astype(np.float32)  # batch-major
    lengths = np.array([4, 2], np.int32)
    out, (h, _) = layer(tf.constant(x), sequence_lengths=tf.constant(lengths),
                        time_major=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, hv = sess.run((out, h))
        # the second row, cut to its length, gives the same as running it alone
        short, (hs, _) = layer(tf.constant(x[1:, :2]), sequence_lengths=tf.constant([2]),
                               time_major=False)
        o2, h2 = sess.run((short, hs))
    assert o.shape == (2, 4, 4)
    np.testing.assert_allclose(o[1, 2:], 0.0)
    np.testing.assert_allclose(o[1, :2], o2[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hv[:, 1], h2[:, 0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_cudnn_checkpoint_loads_into_compatible_cells(tmp_path, kind):
    """The checkpoint of a CudnnLSTM/GRU restores into the CudnnCompatible cells under
    MultiRNNCell (TF's documented route from GPU training to CPU inference), and back."""
    cu = _cudnn()
    x = _x(4, 2, 3).astype(np.float32)
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        layer = (cu.CudnnLSTM if kind == "lstm" else cu.CudnnGRU)(2, 5,
                                                                  bias_initializer=tf.ones_initializer())
        out, _ = layer(tf.constant(x))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(out)
            saver.save(sess, path)
    names = dict(tf.train.list_variables(path))
    prefix = f"cudnn_{kind}/rnn/multi_rnn_cell/cell_1/cudnn_compatible_{kind}_cell/"
    if kind == "lstm":
        assert names[prefix + "kernel"] == [10, 20] and names[prefix + "bias"] == [20]
    else:
        assert names[prefix + "gates/kernel"] == [10, 10]
        assert names[prefix + "candidate/hidden_projection/bias"] == [5]
    with tf.Graph().as_default():
        make = cu.CudnnCompatibleLSTMCell if kind == "lstm" else cu.CudnnCompatibleGRUCell
        with tf.variable_scope(f"cudnn_{kind}"):
            cell = tf.nn.rnn_cell.MultiRNNCell([make(5) for _ in range(2)])
            got, _ = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32,
                                       time_major=True)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            np.testing.assert_allclose(sess.run(got), want, rtol=1e-5, atol=1e-6)
    with tf.Graph().as_default():  # and back into a fresh cuDNN layer
        layer = (cu.CudnnLSTM if kind == "lstm" else cu.CudnnGRU)(2, 5)
        out, _ = layer(tf.constant(x))
        with tf.Session() as sess:
            tf.train.Saver([layer.saveable]).restore(sess, path)
            np.testing.assert_allclose(sess.run(out), want, rtol=1e-5, atol=1e-6)


def test_cudnn_layer_trains_and_rejects_bad_input():
    cu = _cudnn()
    layer = cu.CudnnGRU(1, 4)
    x = tf.constant(_x(6, 3, 2).astype(np.float32))
    out, _ = layer(x)
    loss = tf.reduce_mean(tf.square(out - 0.5))
    step = tf.train.AdamOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(30):
            sess.run(step)
        assert sess.run(loss) < first * 0.5
    # dropout applies between layers, only in training
    drop = cu.CudnnLSTM(2, 8, dropout=0.5, seed=1)
    xin = tf.constant(_x(3, 2, 4).astype(np.float32))
    train_out, _ = drop(xin)
    infer_out, _ = drop(xin, training=False)
    infer_again, _ = drop(xin, training=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b, c = sess.run((train_out, infer_out, infer_again))
    assert not np.allclose(a, b)
    np.testing.assert_array_equal(b, c)
    with pytest.raises(ValueError, match="3 dims"):
        cu.CudnnLSTM(1, 2)(tf.zeros([2, 3]))
    with pytest.raises(TypeError, match="expecting tuple"):
        cu.CudnnLSTM(1, 2)(tf.zeros([2, 3, 1]), initial_state=[tf.zeros([1, 3, 2])] * 2)


# ---- tf.contrib.summary ----------------------------------------------------------------------


def _event_file(logdir):
    import glob

    (path,) = glob.glob(str(logdir) + "/events.out.tfevents.*")
    return path


def test_contrib_summary_program_every_n_steps(tmp_path):
    """TF 1.x's documented tf.contrib.summary training loop; the file is read back by our
    summary_iterator and by TensorBoard's own event reader."""
    from tideflow.summary.summary_iterator import summary_iterator

    cs = tf.contrib.summary
    gs = tf.train.get_or_create_global_step()
    writer = cs.create_file_writer(str(tmp_path), flush_millis=10000)
    with writer.as_default(), cs.record_summaries_every_n_global_steps(2):
        with tf.name_scope("train"):
            loss = tf.cast(gs, tf.float32) * 0.5
            cs.scalar("loss", loss)
        cs.histogram("weights", tf.constant([1.0, 2.0, 2.0]), family="params")
        cs.image("frames", tf.zeros([2, 3, 3, 1]), max_images=1)
        cs.audio("clip", tf.zeros([1, 20]), 100.0, 1)
        cs.generic("raw", tf.constant([[1, 2]]))
    train = tf.assign_add(gs, 1)
    assert len(cs.all_summary_ops()) == 5 and len(cs.summary_writer_initializer_op()) == 1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with writer.as_default():
            cs.initialize(graph=tf.get_default_graph(), session=sess)
        wrote = []
        for _ in range(5):
            wrote.append(bool(sess.run(cs.all_summary_ops())[0]))
            sess.run(train)
        sess.run(writer.flush())
    assert wrote == [True, False, True, False, True]
    path = _event_file(tmp_path)
    assert path.endswith(".v2")
    events = list(summary_iterator(path))
    assert events[0].file_version == "brain.Event:2"
    assert events[1].HasField("graph_def") and events[1].step == 0
    by_step = {}
    for e in events[2:]:
        for v in e.summary.value:
            by_step.setdefault(v.tag, []).append(e.step)
    assert by_step == {"train/loss": [0, 2, 4], "params/params/weights": [0, 2, 4],
                       "frames/image": [0, 2, 4], "clip/audio": [0, 2, 4], "raw": [0, 2, 4]}
    from tensorboard.backend.event_processing import event_accumulator

    acc = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"scalars": 0})
    acc.Reload()
    assert [(s.step, s.value) for s in acc.Scalars("train/loss")] == [(0, 0.0), (2, 1.0),
                                                                       (4, 2.0)]
    assert acc.Tags()["images"] == ["frames/image"] and acc.Tags()["graph"]


def test_contrib_summary_recording_switches(tmp_path):
    cs = tf.contrib.summary
    # no default writer: the summary functions make no-ops, should_record is False
    assert cs.scalar("x", 1.0).type == "NoOp"
    writer = cs.create_file_writer(str(tmp_path))
    with writer.as_default():
        off = cs.scalar("default_off", 1.0, step=3)  # TF 1.x records only when told to
        with cs.never_record_summaries():
            never = cs.scalar("never", 1.0, step=3)
        with cs.always_record_summaries():
            on = cs.scalar("on", 2.0, step=tf.constant(5))
            import_op = cs.import_event(tf.constant(tf.Event(
                step=9, summary=tf.Summary(value=[tf.Summary.Value(
                    tag="imported", simple_value=1.0)])).SerializeToString()))
    with tf.Session() as sess:
        sess.run(cs.summary_writer_initializer_op())
        assert sess.run([off, never, on]) == [False, False, True]
        sess.run(import_op)
        sess.run(writer.close())
    from tideflow.summary.summary_iterator import summary_iterator

    tags = [(e.step, v.tag) for e in summary_iterator(_event_file(tmp_path))
            for v in e.summary.value]
    assert tags == [(5, "on"), (9, "imported")]
    with pytest.raises(NotImplementedError, match="create_file_writer"):
        cs.create_db_writer("sqlite:///tmp/x.db")
    with pytest.raises(RuntimeError, match="No default"):
        cs.initialize(session=None)
    assert cs.eval_dir("/m") == "/m/eval" and cs.eval_dir("/m", "x") == "/m/eval_x"
    # a writer for logdir None writes nothing
    with cs.create_file_writer(None).as_default(), cs.always_record_summaries():
        assert cs.scalar("y", 1.0).type == "NoOp"


# ---- sparsemax, contrib.nn -------------------------------------------------------------------


def _np_sparsemax(z):
    out = np.zeros_like(z)
    for r, row in enumerate(z):
        s = np.sort(row)[::-1]
        cs = np.cumsum(s)
        k = np.arange(1, len(row) + 1)
        kz = k[1 + k * s > cs].max()
        tau = (cs[kz - 1] - 1) / kz
        out[r] = np.maximum(row - tau, 0)
    return out


def _run(t, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(t, feed)


def test_sparsemax_and_loss():
    z = _x(4, 6) * 2
    p = tf.contrib.sparsemax.sparsemax(tf.constant(z))
    got = _run(p)
    np.testing.assert_allclose(got, _np_sparsemax(z), atol=1e-12)
    np.testing.assert_allclose(got.sum(1), 1.0)
    assert (got == 0).any()
    labels = np.eye(6)[[0, 3, 5, 1]]
    zt = tf.constant(z)
    loss = tf.contrib.sparsemax.sparsemax_loss(zt, tf.contrib.sparsemax.sparsemax(zt),
                                               tf.constant(labels))
    lv, grad = _run((loss, tf.gradients(tf.reduce_sum(loss), zt)[0]))
    want = [float(np.sum(s[s > 0] * (r[s > 0] - r.mean() - s[s > 0] / 2))
                  + np.sum(y * (y / 2 - (r - r.mean()))))
            for s, r, y in zip(_np_sparsemax(z), z, labels, strict=True)]
    np.testing.assert_allclose(lv, want, rtol=1e-10)
    # the loss's gradient is sparsemax - labels (TF's documented identity)
    np.testing.assert_allclose(grad, _np_sparsemax(z) - labels, atol=1e-10)
    # sparsemax itself is differentiable: finite differences of sum(p * w)
    w = _x(4, 6)
    zz = tf.placeholder(tf.float64, [4, 6])
    obj = tf.reduce_sum(tf.contrib.sparsemax.sparsemax(zz) * w)
    g = _run(tf.gradients(obj, zz)[0], {zz: z})
    eps, num = 1e-6, np.zeros_like(z)
    for i in range(4):
        for j in range(6):
            d = np.zeros_like(z)
            d[i, j] = eps
            num[i, j] = ((_np_sparsemax(z + d) * w).sum() - (_np_sparsemax(z - d) * w).sum()) / (
                2 * eps)
    np.testing.assert_allclose(g, num, atol=1e-6)


def test_contrib_nn_functions():
    N = tf.contrib.nn
    x = tf.constant(_x(2000, 50))
    y = N.alpha_dropout(x, 0.8, seed=3)
    yv = _run(y)
    assert abs(yv.mean()) < 0.05 and abs(yv.std() - 1) < 0.05  # SELU's fixed point kept
    assert N.alpha_dropout(x, 1.0) is x
    with pytest.raises(ValueError, match="keep_prob"):
        N.alpha_dropout(x, 1.5)
    v = _x(3, 4)
    np.testing.assert_allclose(_run(N.scaled_softplus(tf.constant(v), 0.5, clip=0.7)),
                               np.minimum(0.5 * np.log1p(np.exp(v / 0.5)), 0.7))
    logits, labels = _x(3, 4), np.eye(4)[[0, 2, 3]]
    np.testing.assert_allclose(
        _run(N.deprecated_flipped_softmax_cross_entropy_with_logits(
            tf.constant(logits), tf.constant(labels))),
        -(labels * (logits - np.log(np.exp(logits).sum(1, keepdims=True)))).sum(1))
    np.testing.assert_allclose(
        _run(N.deprecated_flipped_sparse_softmax_cross_entropy_with_logits(
            tf.constant(logits), tf.constant([0, 2, 3]))),
        -(labels * (logits - np.log(np.exp(logits).sum(1, keepdims=True)))).sum(1))
    np.testing.assert_allclose(
        _run(N.deprecated_flipped_sigmoid_cross_entropy_with_logits(
            tf.constant(logits), tf.constant(labels))),
        np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits))))
    a = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32)
    np.testing.assert_array_equal(_run(N.nth_element(tf.constant(a), 1)), [1, 3])
    np.testing.assert_array_equal(_run(N.nth_element(tf.constant(a), 0, reverse=True)), [5, 9])
    out = N.conv1d_transpose(tf.ones([1, 3, 2]), tf.ones([2, 4, 2]), [1, 6, 4], 2, "SAME")
    assert _run(out).shape == (1, 6, 4)


def test_sampled_sparse_and_rank_sampled_softmax_losses():
    N = tf.contrib.nn
    w, b, inp = _x(10, 4), _x(10), _x(3, 4)
    labels = np.array([[1], [4], [7]], np.int64)
    sampled = np.array([0, 2, 5, 8], np.int64)
    true_exp, samp_exp = np.full((3, 1), 0.5), np.array([0.4, 0.3, 0.2, 0.1])
    sv = (tf.constant(sampled), tf.constant(true_exp), tf.constant(samp_exp))
    loss = N.sampled_sparse_softmax_loss(tf.constant(w), tf.constant(b), tf.constant(labels),
                                         tf.constant(inp), 4, 10, sampled_values=sv)
    logits = np.concatenate([
        (inp * w[labels[:, 0]]).sum(1, keepdims=True) + b[labels][:, :1] - np.log(true_exp),
        inp @ w[sampled].T + b[sampled] - np.log(samp_exp)], 1)
    want = -(logits[:, 0] - np.log(np.exp(logits).sum(1)))
    np.testing.assert_allclose(_run(loss), want, rtol=1e-10)
    # rank resampling keeps the candidates whose batch logsumexp ranks highest
    rank = N.rank_sampled_softmax_loss(tf.constant(w), tf.constant(b), tf.constant(labels),
                                       tf.constant(inp), 4, 2, 10, 1, sv, 1.0, True, "div")
    scores = np.log(np.exp(w[sampled] @ inp.T).sum(1)) + b[sampled]
    keep = np.argsort(-scores)[:2]
    sub = N.sampled_sparse_softmax_loss(
        tf.constant(w), tf.constant(b), tf.constant(labels), tf.constant(inp), 2, 10,
        sampled_values=(tf.constant(sampled[keep]), tf.constant(true_exp),
                        tf.constant(samp_exp[keep])), partition_strategy="div")
    got, want = _run((rank, sub))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    with pytest.raises(ValueError, match="must be less than"):
        N.rank_sampled_softmax_loss(w, b, labels, inp, 2, 2, 10, 1, sv, 1.0, True, "div")


# ---- metric learning -------------------------------------------------------------------------


def _np_pdist(e, squared):
    d = ((e[:, None] - e[None]) ** 2).sum(-1)
    return d if squared else np.sqrt(d)


def test_metric_learning_losses_match_numpy():
    ML = tf.contrib.losses.metric_learning
    emb = _x(8, 3).astype(np.float32)
    labels = np.array([0, 0, 1, 1, 2, 2, 0, 1], np.int32)
    np.testing.assert_allclose(_run(ML.pairwise_distance(tf.constant(emb))),
                               _np_pdist(emb, False), atol=1e-5)
    # triplet loss with semi-hard negatives, by its definition
    d = _np_pdist(emb.astype(np.float64), True)
    margin, total, count = 1.0, 0.0, 0
    for a in range(8):
        for p in range(8):
            if a == p or labels[a] != labels[p]:
                continue
            neg = d[a][labels != labels[a]]
            semi = neg[neg > d[a, p]]
            n = semi.min() if semi.size else neg.max()
            total += max(margin + d[a, p] - n, 0.0)
            count += 1
    got = _run(ML.triplet_semihard_loss(tf.constant(labels), tf.constant(emb), margin))
    np.testing.assert_allclose(got, total / count, rtol=1e-5)
    # lifted structured loss: log-sum-exp over each positive pair's negatives
    dd, tot = _np_pdist(emb.astype(np.float64), False), 0.0
    for i in range(8):
        for j in range(8):
            if i == j or labels[i] != labels[j]:
                continue
            neg = np.concatenate([margin - dd[i][labels != labels[i]],
                                  margin - dd[j][labels != labels[j]]])
            tot += max(np.log(np.exp(neg).sum()) + dd[i, j], 0.0) ** 2
    num_pos = sum(1 for i in range(8) for j in range(8) if i != j and labels[i] == labels[j])
    got = _run(ML.lifted_struct_loss(tf.constant(labels), tf.constant(emb), margin))
    np.testing.assert_allclose(got, 0.25 * tot / (num_pos / 2), rtol=1e-4)
    # contrastive and N-pairs
    a, p, y = emb[:4], emb[4:], np.array([1, 0, 1, 0])
    dist = np.sqrt(((a - p) ** 2).sum(1))
    np.testing.assert_allclose(
        _run(ML.contrastive_loss(tf.constant(y), tf.constant(a), tf.constant(p))),
        np.mean(y * dist ** 2 + (1 - y) * np.maximum(1 - dist, 0) ** 2), rtol=1e-5)
    lab = np.array([0, 1, 2, 1])
    sim = a @ p.T
    tgt = (lab[:, None] == lab[None]).astype(float)
    tgt /= tgt.sum(1, keepdims=True)
    xent = -(tgt * (sim - np.log(np.exp(sim).sum(1, keepdims=True)))).sum(1).mean()
    l2 = 0.25 * 0.002 * ((a ** 2).sum(1).mean() + (p ** 2).sum(1).mean())
    np.testing.assert_allclose(_run(ML.npairs_loss(tf.constant(lab), tf.constant(a),
                                                   tf.constant(p))), xent + l2, rtol=1e-5)
    # multi-label pairs: targets weighted by the number of shared labels (TF 1.15's
    # sparse_minimum takes no bool values, so the indicators are integers)
    multi = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]], bool)
    sparse = [tf.SparseTensor(np.argwhere(row[None]), np.ones(row.sum(), np.int64), [1, 3])
              for row in multi]
    shared = multi.astype(float) @ multi.astype(float).T
    shared /= shared.sum(1, keepdims=True)
    xent_m = -(shared * (sim - np.log(np.exp(sim).sum(1, keepdims=True)))).sum(1).mean()
    np.testing.assert_allclose(_run(ML.npairs_loss_multilabel(sparse, tf.constant(a),
                                                              tf.constant(p))),
                               xent_m + l2, rtol=1e-5)
    with pytest.raises(TypeError, match="SparseTensors"):
        ML.npairs_loss_multilabel([multi[0]], a, p)
    with pytest.raises(ValueError, match="margin_type"):
        ML.cluster_loss(labels, emb, 1.0, margin_type="bogus")


def test_cluster_loss_properties_and_gradient():
    ML = tf.contrib.losses.metric_learning
    centers = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]], np.float32)
    truth = np.repeat([0, 1, 2], 3)
    emb = (centers[truth] + 0.1 * np.random.RandomState(7).randn(9, 2)).astype(np.float32)
    e = tf.placeholder(tf.float32, [9, 2])
    good = ML.cluster_loss(tf.constant(truth), e, 0.5)
    bad = ML.cluster_loss(tf.constant(np.roll(truth, 1)), e, 0.5, margin_type="ari",
                          enable_pam_finetuning=False)
    grad = tf.gradients(bad, e)[0]
    with tf.Session() as sess:
        g, b, gv = sess.run((good, bad, grad), {e: emb})
        # labels the geometry agrees with: the predicted medoids are the true ones
        assert g == pytest.approx(0.0, abs=1e-5)
        assert b > 0.5
        # away from ties the search is locally constant, so the loss is smooth there
        eps, num = 1e-2, np.zeros_like(emb)
        for idx in list(np.ndindex(emb.shape))[::3]:
            d = np.zeros_like(emb)
            d[idx] = eps
            num[idx] = (sess.run(bad, {e: emb + d}) - sess.run(bad, {e: emb - d})) / (2 * eps)
    np.testing.assert_allclose(gv.reshape(-1)[::3], num.reshape(-1)[::3], atol=2e-2)
    assert len(tf.get_collection(tf.GraphKeys.SUMMARIES)) == 6  # TF's three per loss


# ---- resampler, splines, sparse warps --------------------------------------------------------


def _np_resample(data, warp):
    b, h, w, c = data.shape
    flat = warp.reshape(b, -1, 2)
    out = np.zeros((b, flat.shape[1], c))
    for i in range(b):
        for k, (x, y) in enumerate(flat[i]):
            if not (-1 < x < w and -1 < y < h):
                continue
            fx, fy = int(np.floor(x)), int(np.floor(y))
            for cx, cy, wt in ((fx, fy, (fx + 1 - x) * (fy + 1 - y)),
                               (fx + 1, fy + 1, (x - fx) * (y - fy)),
                               (fx, fy + 1, (fx + 1 - x) * (y - fy)),
                               (fx + 1, fy, (x - fx) * (fy + 1 - y))):
                if 0 <= cx < w and 0 <= cy < h:
                    out[i, k] += wt * data[i, cy, cx]
    return out.reshape(warp.shape[:-1] + (c,))


def test_resampler_matches_numpy_and_differentiates():
    data = _x(2, 4, 5, 3)
    warp = RNG.uniform(-1.5, 5.5, size=(2, 3, 2, 2))
    dt, wt = tf.constant(data), tf.constant(warp)
    out = tf.contrib.resampler.resampler(dt, wt)
    assert out.shape.as_list() == [2, 3, 2, 3]
    got, gw = _run((out, tf.gradients(tf.reduce_sum(out), wt)[0]))
    np.testing.assert_allclose(got, _np_resample(data, warp), atol=1e-12)
    eps, num = 1e-6, np.zeros_like(warp)
    for idx in np.ndindex(warp.shape):
        d = np.zeros_like(warp)
        d[idx] = eps
        num[idx] = (_np_resample(data, warp + d).sum() - _np_resample(data, warp - d).sum()) / (
            2 * eps)
    np.testing.assert_allclose(gw, num, atol=1e-5)


def test_interpolate_spline_fits_and_matches_numpy():
    c = RNG.uniform(0, 1, (1, 6, 2))
    f = RNG.randn(1, 6, 1)
    q = RNG.uniform(0, 1, (1, 4, 2))
    at_train, at_query = _run((tf.contrib.image.interpolate_spline(c, f, c, 2),
                               tf.contrib.image.interpolate_spline(c, f, q, 2)))
    np.testing.assert_allclose(at_train, f, atol=1e-8)  # order 2 interpolates exactly

    def phi(r):
        return 0.5 * r * np.log(np.maximum(r, 1e-10))
    d2 = ((c[0][:, None] - c[0][None]) ** 2).sum(-1)
    bmat = np.concatenate([c[0], np.ones((6, 1))], 1)
    lhs = np.block([[phi(d2), bmat], [bmat.T, np.zeros((3, 3))]])
    wv = np.linalg.solve(lhs, np.concatenate([f[0], np.zeros((3, 1))]))
    dq = ((q[0][:, None] - c[0][None]) ** 2).sum(-1)
    want = phi(dq) @ wv[:6] + np.concatenate([q[0], np.ones((4, 1))], 1) @ wv[6:]
    np.testing.assert_allclose(at_query[0], want, rtol=1e-8)
    with pytest.raises(ValueError, match="statically"):
        tf.contrib.image.interpolate_spline(tf.placeholder(tf.float64, [1, 3, None]), f, q, 2)


def test_sparse_image_warp_moves_control_points():
    image = np.zeros((1, 8, 8, 1), np.float32)
    image[0, 2, 2, 0] = 1.0
    src = np.array([[[2.0, 2.0], [6.0, 6.0]]], np.float32)
    dst = np.array([[[3.0, 4.0], [6.0, 6.0]]], np.float32)
    warped, flows = tf.contrib.image.sparse_image_warp(
        tf.constant(image), tf.constant(src), tf.constant(dst), num_boundary_points=2)
    wv, fv = _run((warped, flows))
    assert wv.shape == (1, 8, 8, 1) and fv.shape == (1, 8, 8, 2)
    np.testing.assert_allclose(fv[0, 3, 4], [1.0, 2.0], atol=1e-4)  # dst - src at dst
    np.testing.assert_allclose(fv[0, 0, 0], [0.0, 0.0], atol=1e-4)  # zero-flow boundary
    # the bright pixel moved from (2, 2) to (3, 4)
    assert wv[0, 3, 4, 0] == pytest.approx(1.0, abs=1e-3) and wv[0, 2, 2, 0] < 0.5


# ---- integrate -------------------------------------------------------------------------------


def test_odeint_adaptive_and_fixed():
    I = tf.contrib.integrate
    t = np.linspace(0.0, 2.0, 5)
    k = tf.constant(0.7, tf.float64)
    y0 = tf.constant(2.0, tf.float64)
    decay = I.odeint(lambda y, _: -k * y, y0, t)
    osc, info = I.odeint(lambda y, _: tf.stack([y[1], -y[0]]),
                         tf.constant([0.0, 1.0], tf.float64), t, full_output=True,
                         method="dopri5", options={"first_step": 0.1})
    rk4 = I.odeint_fixed(lambda y, _: -y, tf.constant([1.0, 3.0], tf.float64), t, dt=0.05)
    mid = I.odeint_fixed(lambda y, _: -y, tf.constant(1.0, tf.float64), t, dt=0.1,
                         method="midpoint")
    grads = tf.gradients(decay[-1], [y0, k])
    d, o, inf, r, m, g = _run((decay, osc, info, rk4, mid, grads))
    assert d.shape == (5,) and o.shape == (5, 2) and r.shape == (5, 2)
    np.testing.assert_allclose(d, 2 * np.exp(-0.7 * t), rtol=1e-5)
    np.testing.assert_allclose(o[:, 0], np.sin(t), atol=1e-5)
    np.testing.assert_allclose(r, np.exp(-t)[:, None] * [1.0, 3.0], rtol=1e-6)  # h^4 error
    # midpoint is second order: its error is h^2-sized, far above RK4's
    err = np.abs(m - np.exp(-t)).max()
    assert 1e-5 < err < 1e-2
    # the solution differentiates through the while loops: d y(2)/d y0, d y(2)/d k
    np.testing.assert_allclose(g, [np.exp(-1.4), -2 * 2 * np.exp(-1.4)], rtol=1e-4)
    assert inf["num_func_evals"] == 6 * inf["integrate_points"].size + 1
    assert inf["integrate_points"][-1] >= 2.0
    with pytest.raises(ValueError, match="invalid method"):
        I.odeint(lambda y, _: y, 1.0, t, method="euler")
    with pytest.raises(ValueError, match="without specifying"):
        I.odeint(lambda y, _: y, 1.0, t, options={"first_step": 1.0})
    with pytest.raises(TypeError, match="floating"):
        I.odeint(lambda y, _: y, tf.constant(1), t)
    with pytest.raises(ValueError, match="not supported"):
        I.odeint_fixed(lambda y, _: y, 1.0, t, method="euler")
    with pytest.raises(tf.errors.InvalidArgumentError, match="monotonic"):
        _run(I.odeint(lambda y, _: -y, tf.constant(1.0, tf.float64), [0.0, 2.0, 1.0]))


def test_hsv_in_yiq_and_connected_components():
    img = RNG.uniform(0, 1, (2, 3, 4, 3)).astype(np.float32)
    yiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]])
    inv = np.array([[1, 0.95617069, 0.62143257], [1, -0.2726886, -0.64681324],
                    [1, -1.103744, 1.70062309]])
    h, s, v = 0.4, 0.7, 1.2
    rot = np.array([[v, 0, 0], [0, v * s * np.cos(h), -v * s * np.sin(h)],
                    [0, v * s * np.sin(h), v * s * np.cos(h)]])
    want = img @ (inv @ rot @ yiq).T
    got = _run(tf.contrib.image.adjust_hsv_in_yiq(tf.constant(img), h, s, v))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # identity parameters leave the image (up to the YIQ round trip's rounding)
    same = _run(tf.contrib.image.random_hsv_in_yiq(tf.constant(img)))
    np.testing.assert_allclose(same, img, atol=1e-5)
    rnd = _run(tf.contrib.image.random_hsv_in_yiq(tf.constant(img), 0.5, 0.5, 1.5, seed=1))
    assert rnd.shape == img.shape and not np.allclose(rnd, img)
    with pytest.raises(ValueError, match="lower_saturation"):
        tf.contrib.image.random_hsv_in_yiq(img, lower_saturation=2, upper_saturation=1)
    # uint8 images go through float and back, as TF's wrapper converts them
    u8 = (img * 255).astype(np.uint8)
    assert _run(tf.contrib.image.adjust_hsv_in_yiq(tf.constant(u8), 0.0)).dtype == np.uint8

    grid = np.array([[1, 1, 0, 2],
                     [0, 1, 0, 2],
                     [3, 0, 0, 0],
                     [3, 3, 0, 1]], np.int32)
    labels = _run(tf.contrib.image.connected_components(tf.constant(grid)))
    np.testing.assert_array_equal(labels, [[1, 1, 0, 2],
                                           [0, 1, 0, 2],
                                           [3, 0, 0, 0],
                                           [3, 3, 0, 4]])
    batch = _run(tf.contrib.image.connected_components(tf.constant(np.stack([grid, grid]))))
    np.testing.assert_array_equal(batch[1][batch[1] > 0] - 4, labels[labels > 0])
    with pytest.raises(TypeError, match="rank 2"):  # TF 1.15's class
        tf.contrib.image.connected_components(tf.zeros([2]))


def test_cudnn_tf14_object_api_shares_the_layer_layout():
    """TF 1.0-1.4 programs built the model object with an input size, kept the parameter
    buffer in their own variable and passed it to each call."""
    cu = _cudnn()
    model = cu.CudnnLSTM(2, 3, 4, direction="bidirectional")
    assert not isinstance(model, tf.layers.Layer)
    size = model.params_size()
    params = tf.Variable(tf.random_uniform([size], -0.3, 0.3, seed=2), validate_shape=False)
    x = _x(5, 2, 4).astype(np.float32)
    h0 = np.zeros((4, 2, 3), np.float32)
    out, h, c = model(tf.constant(x), tf.constant(h0), tf.constant(h0), params,
                      is_training=False)
    weights, biases = model.params_to_canonical(params)
    again = model.canonical_to_params(weights, biases)
    gru = cu.CudnnGRU(1, 3, 4)
    gru_params = tf.random_uniform([gru.params_size()], seed=4)
    g_out, g_h = gru(tf.constant(x), tf.constant(h0[:1]), gru_params)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, hv, cv, p, p2, ws, bs, go = sess.run((out, h, c, params, again, weights, biases,
                                                 g_out))
    np.testing.assert_array_equal(p, p2)
    want_o, want_h, want_c = _np_cudnn("lstm", x, h0, h0, ws, bs, 2, 2, 3)
    np.testing.assert_allclose(o, want_o, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hv, want_h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(cv, want_c, rtol=1e-4, atol=1e-5)
    assert go.shape == (5, 2, 3) and g_h.shape.as_list() == [1, 2, 3]
    # per direction: 4 gates x (3x4 input + 3x3 recurrent) weights in layer 0, 4 x (3x6 +
    # 3x3) in layer 1, and 8 bias vectors of 3 per layer
    assert p.size == 2 * (4 * (12 + 9) + 4 * (18 + 9) + 2 * 8 * 3)


def test_program_cudnn_gru_with_contrib_summary_and_monitored_session(tmp_path):
    """A TF 1.x training program: a CudnnGRU sequence regressor trained under
    MonitoredTrainingSession (checkpoints), logging with tf.contrib.summary every 5 steps;
    the checkpoint then serves a CPU inference graph of CudnnCompatibleGRUCells."""
    from tideflow.summary.summary_iterator import summary_iterator

    rng = np.random.RandomState(0)
    data = rng.randn(8, 16, 2).astype(np.float32)  # [time, batch, depth]
    target = np.cumsum(data[..., :1], axis=0) * 0.3
    ckpt = str(tmp_path / "ckpt")
    logdir = str(tmp_path / "logs")
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        rnn = tf.contrib.cudnn_rnn.CudnnGRU(1, 6)
        outputs, _ = rnn(tf.constant(data))
        pred = tf.layers.dense(outputs, 1, name="head")
        loss = tf.losses.mean_squared_error(target, pred)
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=global_step)
        writer = tf.contrib.summary.create_file_writer(logdir)
        with writer.as_default(), tf.contrib.summary.record_summaries_every_n_global_steps(5):
            tf.contrib.summary.scalar("loss", loss)
        summaries = tf.contrib.summary.all_summary_ops()
        losses = []
        with tf.train.MonitoredTrainingSession(checkpoint_dir=ckpt, save_summaries_steps=None,
                                               save_checkpoint_steps=20,
                                               hooks=[tf.train.StopAtStepHook(last_step=40)]
                                               ) as sess:
            sess.run(tf.contrib.summary.summary_writer_initializer_op())
            while not sess.should_stop():
                sess.run(summaries)  # records at the step before this update
                _, lv = sess.run([train, loss])
                losses.append(lv)
        # closing the session closes (and flushes) the writer
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(ckpt))
            final = sess.run(loss)
    assert final < losses[0] * 0.5
    steps = [e.step for e in summary_iterator(_event_file(logdir)) if e.HasField("summary")]
    assert steps == [0, 5, 10, 15, 20, 25, 30, 35]
    with tf.Graph().as_default():
        with tf.variable_scope("cudnn_gru"):
            cell = tf.nn.rnn_cell.MultiRNNCell([tf.contrib.cudnn_rnn.CudnnCompatibleGRUCell(6)])
            outs, _ = tf.nn.dynamic_rnn(cell, tf.constant(data), dtype=tf.float32,
                                        time_major=True)
        pred = tf.layers.dense(outs, 1, name="head")
        err = tf.losses.mean_squared_error(target, pred)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, tf.train.latest_checkpoint(ckpt))
            got = sess.run(err)
    # the compatible cells reproduce the trained cuDNN model
    np.testing.assert_allclose(got, final, rtol=1e-5)


def test_every_tf1_contrib_rnn_name_exists():
    # the @@ list of TF 1.15's tensorflow/contrib/rnn/__init__.py
    names = ["RNNCell", "LayerRNNCell", "BasicRNNCell", "BasicLSTMCell", "GRUCell", "LSTMCell",
             "LSTMStateTuple", "DropoutWrapper", "MultiRNNCell", "DeviceWrapper",
             "ResidualWrapper", "EmbeddingWrapper", "InputProjectionWrapper",
             "OutputProjectionWrapper", "LayerNormBasicLSTMCell", "LSTMBlockWrapper",
             "LSTMBlockCell", "GRUBlockCell", "GRUBlockCellV2", "FusedRNNCell",
             "FusedRNNCellAdaptor", "TimeReversedFusedRNN", "LSTMBlockFusedCell",
             "CoupledInputForgetGateLSTMCell", "TimeFreqLSTMCell", "GridLSTMCell",
             "BidirectionalGridLSTMCell", "NASCell", "UGRNNCell", "IntersectionRNNCell",
             "PhasedLSTMCell", "ConvLSTMCell", "Conv1DLSTMCell", "Conv2DLSTMCell",
             "Conv3DLSTMCell", "HighwayWrapper", "GLSTMCell", "SRUCell", "IndRNNCell",
             "IndyGRUCell", "IndyLSTMCell", "AttentionCellWrapper", "CompiledWrapper",
             "static_rnn", "static_state_saving_rnn", "static_bidirectional_rnn",
             "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn", "transpose_batch_time",
             "best_effort_input_batch_size"]
    assert [n for n in names if not hasattr(R, n)] == []
    assert set(names) <= set(R.__all__)
    from tideflow.contrib import rnn as imported  # import by module path, as programs do

    assert imported.NASCell is R.NASCell


def test_cudnn_bidirectional_checkpoint_loads_into_stacked_compatible_cells(tmp_path):
    """A bidirectional CudnnLSTM's checkpoint names are those of
    stack_bidirectional_dynamic_rnn over CudnnCompatibleLSTMCells (TF's saveable), and a
    CudnnRNNTanh's those of BasicRNNCells."""
    cu = _cudnn()
    x = _x(4, 2, 3).astype(np.float32)
    path = str(tmp_path / "bi")
    with tf.Graph().as_default():
        lstm = cu.CudnnLSTM(2, 4, direction="bidirectional",
                            bias_initializer=tf.random_uniform_initializer(-1, 1))
        out, _ = lstm(tf.constant(x))
        tanh = cu.CudnnRNNTanh(1, 3)
        t_out, _ = tanh(tf.constant(x))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want, want_t = sess.run((out, t_out))
            tf.train.Saver().save(sess, path)
    with tf.Graph().as_default():
        with tf.variable_scope("cudnn_lstm"):
            fw = [cu.CudnnCompatibleLSTMCell(4) for _ in range(2)]
            bw = [cu.CudnnCompatibleLSTMCell(4) for _ in range(2)]
            got, _, _ = R.stack_bidirectional_dynamic_rnn(fw, bw, tf.constant(x),
                                                          dtype=tf.float32, time_major=True)
        with tf.variable_scope("cudnn_rnn_tanh"):
            cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(3)])
            got_t, _ = tf.nn.dynamic_rnn(cell, tf.constant(x), dtype=tf.float32,
                                         time_major=True)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            g, gt = sess.run((got, got_t))
    np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gt, want_t, rtol=1e-5, atol=1e-6)


def test_tpu_estimator_host_call_writes_contrib_summaries(tmp_path):
    """The host_call pattern of TPUEstimator programs (BERT, EfficientNet, ...): the host
    call builds tf.contrib.summary ops that run with every training step on the CPU."""
    from tideflow.summary.summary_iterator import summary_iterator

    tpu = tf.estimator.tpu
    logdir = str(tmp_path / "host")
    xs = RNG.randn(64, 3).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)

    def input_fn(params):
        ds = tf.data.Dataset.from_tensor_slices((xs, ys)).repeat()
        return ds.batch(params["batch_size"], drop_remainder=True)

    def model_fn(features, labels, mode, params):
        pred = tf.layers.dense(features, 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        gs = tf.train.get_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)

        def host_call_fn(gs, loss):
            with tf.contrib.summary.create_file_writer(logdir).as_default(), \
                    tf.contrib.summary.always_record_summaries():
                tf.contrib.summary.scalar("loss", loss[0], step=gs[0])
                return tf.contrib.summary.all_summary_ops()

        host_call = (host_call_fn, [tf.reshape(gs, [1]), tf.reshape(loss, [1])])
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host_call)

    config = tpu.RunConfig(model_dir=str(tmp_path / "model"),
                           tpu_config=tpu.TPUConfig(iterations_per_loop=10))
    est = tpu.TPUEstimator(use_tpu=False, model_fn=model_fn, config=config,
                           train_batch_size=16)
    est.train(input_fn, max_steps=6)
    events = [e for e in summary_iterator(_event_file(logdir)) if e.HasField("summary")]
    assert [e.summary.value[0].tag for e in events] == ["loss"] * 6
    losses = [e.summary.value[0].simple_value for e in events]
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "Tanh"])
def test_cudnn_params_format_converters(tmp_path, kind):
    cu = _cudnn()
    layer_cls = {"LSTM": cu.CudnnLSTM, "GRU": cu.CudnnGRU, "Tanh": cu.CudnnRNNTanh}[kind]
    layer = layer_cls(2, 3, direction="bidirectional",
                      bias_initializer=tf.random_uniform_initializer(-1, 1))
    layer(tf.zeros([2, 1, 4]))
    conv = getattr(cu, f"CudnnParamsFormatConverter{kind}")(2, 3, 4, direction="bidirectional")
    weights, biases = conv.opaque_to_tf_canonical(layer.kernel)
    back = conv.tf_canonical_to_opaque(list(weights) + list(biases))
    # TF's format keeps each input + recurrent bias pair's sum (the buffer gets halves back),
    # so a round trip keeps the TF-format values and the network's function
    w2, b2 = conv.opaque_to_tf_canonical(back)
    path = str(tmp_path / "c")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ws, bs, ws2, bs2 = sess.run((weights, biases, w2, b2))
        tf.train.Saver([layer.saveable]).save(sess, path)
    for a, b in zip(list(ws) + list(bs), list(ws2) + list(bs2), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    # the same tensors the saveable writes, in the same order (weights, then biases)
    reader = tf.train.load_checkpoint(path)
    saved = [reader.get_tensor(spec.name) for spec in layer.saveable.specs]
    for got, want in zip(list(ws) + list(bs), saved, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)
