"""TF 1.15's pass order around products: constant folding drops the addition of a constant of
zeros to a MatMul or Conv2D (``x + 0`` is ``x`` where shape inference knows the sum's shape)
before the remapper fuses MatMul + BiasAdd, so a dense layer with a ``tf.zeros`` bias keeps the
plain MatMul's bits; and the sum of a fed tensor and zeros, whose shape TF does not know, is
left alone (``-0.0 + 0`` is 0).

Expected values are the float32 bits (as uint32) TF 1.15 gave for the same programs
(``import tensorflow as tf``)."""

import numpy as np

import tideflow as tf


def _data():
    rng = np.random.RandomState(1)
    return rng.randn(2, 30).astype(np.float32), rng.randn(30, 1).astype(np.float32)


def _bits(build, feed):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None if build is _bias_fed else 2, 30], name="x")
        out = build(x)
        with tf.Session() as s:
            return [np.asarray(v).view(np.uint32).ravel().tolist() for v in s.run(out, feed(x))]


def _bias_fed(x):
    _, w = _data()
    return [tf.nn.bias_add(tf.matmul(x, tf.constant(w)), tf.zeros([1]))]


# (the plain MatMul's bits: the fused GEMM gives another last bit for the second row)
_PLAIN = [1074582181, 1089157178]


def _feed(x):
    return {x: _data()[0]}


def test_dense_with_zeros_bias_is_the_plain_matmul():
    # TF 1.15: BiasAdd -> Identity(MatMul), no _FusedMatMul; the batch dimension unknown
    assert _bits(_bias_fed, _feed) == [_PLAIN]


def test_zeros_bias_read_by_relu():
    _, w = _data()
    assert _bits(lambda x: [tf.nn.relu(tf.nn.bias_add(tf.matmul(x, tf.constant(w)),
                                                      tf.zeros([1])))], _feed) == [_PLAIN]


def test_zeros_bias_from_fill_and_zeros_like():
    # (folded to constants of zeros first, as in TF)
    _, w = _data()

    def build(x):
        m = tf.matmul(x, tf.constant(w))
        return [tf.nn.bias_add(m, tf.fill([1], 0.0)),
                tf.nn.bias_add(tf.matmul(x, tf.constant(w) * 2.0), tf.zeros_like([1.0]))]

    doubled = [1082970789, 1097545786]  # TF 1.15: the plain MatMul of 2 * w
    assert _bits(build, _feed) == [_PLAIN, doubled]


def test_nonzero_bias_still_fused():
    # a bias of 0.5: TF 1.15 fuses (_FusedMatMul): the GEMM's order (plain + 0.5: ...754)
    _, w = _data()
    assert _bits(lambda x: [tf.nn.bias_add(tf.matmul(x, tf.constant(w)), [0.5])],
                 _feed) == [[1076679333, 1090205755]]


def test_fed_plus_zeros_left_alone():
    # TF 1.15 keeps BiasAdd and AddV2 of a fed tensor (shape unknown to it): -0.0 + 0 is 0
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [1, 3])
        y = [tf.nn.bias_add(x, tf.zeros([3])), x + tf.zeros([3])]
        for i in range(4):
            tf.constant(float(i), name=f"pad{i}")
        with tf.Session() as s:
            r = s.run(y, {x: [[-0.0, 1.0, -0.0]]})
    assert [v.view(np.uint32).ravel().tolist() for v in r] == [[0, 1065353216, 0]] * 2


def test_division_by_constant_flushes_subnormal_reciprocal():
    # TF 1.15 folds x / c into x * (1 / c) on the CPU, which treats subnormals as zeros: the
    # reciprocal of 3e38 is 0 (x / 3e38 is 0), that of the subnormal 1.1e-38 is inf
    res = []
    for dt, cs in ((np.float32, (3e38, -2e38, 1.1e-38, 5e-39)),
                   (np.float64, (1e308, -5e307, 2e-308))):
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(dt, [3])
            for i in range(4):
                tf.constant(float(i), name=f"pad{i}")
            outs = [x / tf.constant(dt(c)) for c in cs]
            with tf.Session() as s:
                res += [r.tolist() for r in s.run(outs, {x: [2.0, -1e-3, 0.0]})]
    zeros, inf = [0.0, -0.0, 0.0], [np.inf, -np.inf, None]
    assert [[None if np.isnan(v) else v for v in r] for r in res] == [
        zeros, [-0.0, 0.0, -0.0], inf, inf, zeros, [-0.0, 0.0, -0.0], inf]
    assert [np.signbit(r).tolist() for r in res[:2]] == [[False, True, False], [True, False, True]]


# ---- [1, k] @ [k, 1] by BatchMatMulV2 (tf.matmul of tensors of unknown rank) ----

def _dots(build_pair, ks, seed=7):
    g = tf.Graph()
    with g.as_default():
        pa, pb = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        outs = {(ta, tb): tf.matmul(pa, pb, transpose_a=ta, transpose_b=tb)
                for ta in (False, True) for tb in (False, True)}
        assert outs[(False, False)].op.type == "BatchMatMulV2"
        rs = np.random.RandomState(seed)
        res = []
        with tf.Session() as s:
            for k in ks:
                u, w = build_pair(rs, k)
                row = []
                for ta, tb in sorted(outs):
                    a = u.reshape(k, 1) if ta else u.reshape(1, k)
                    b = w.reshape(1, k) if tb else w.reshape(k, 1)
                    row.append(int(s.run(outs[(ta, tb)], {pa: a, pb: b}).view(np.uint32).item()))
                res.append(row)
    return res


def test_unknown_rank_dot_orders():
    # TF 1.15, per k, (ta, tb) = FF, FT, TF, TT: a transposed in order; neither in order to
    # k = 17, then Eigen's row-vector lanes; b transposed one packet's lanes for 8..15
    def pair(rs, k):
        return (rs.randn(k) * 10).astype(np.float32), rs.randn(k).astype(np.float32)

    assert _dots(pair, (5, 12, 17, 18, 40, 200)) == [
        [3213903768] * 4, [3224550212] * 4,
        [1100323337, 1100323335, 1100323337, 1100323337],
        [3241454707, 3241454707, 3241454703, 3241454703],
        [1101686934] * 4,
        [1119579533, 1119579533, 1119579535, 1119579535]]


def test_dot_of_negative_zeros():
    # TF 1.15: BatchMatMulV2 sums from the first product up to k = 17 (-0.0), from zero past
    # it; MatMul's [1, k] @ [k, 1] from zero (0.0)
    def pair(rs, k):
        return np.zeros(k, np.float32), -np.ones(k, np.float32)

    neg, pos = 2147483648, 0
    assert _dots(pair, (2, 10, 20)) == [[neg] * 4, [neg] * 4, [pos] * 4]
    g = tf.Graph()
    with g.as_default():
        a, b = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.float32, [None, None])
        with tf.Session() as s:
            got = [s.run(tf.matmul(a, b, transpose_a=ta), {a: np.zeros((2, 1) if ta else (1, 2)),
                                                          b: -np.ones((2, 1))})
                   for ta in (False, True)]
    assert [np.signbit(v).item() for v in got] == [False, False]


# ---- ConvertLog1p and ConvertExpm1 ----

_SMALL = np.array([1e-8, 3e-5, -2e-7, 0.5, 1e-3, 2.0, -0.3, 1e-6], np.float32)


def _log_exp_bits(build):
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.float32, [8])
        outs = build(p, tf.Variable(_SMALL))
        for i in range(4):
            tf.constant(float(i), name=f"pad{i}")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return [np.asarray(v).view(np.uint32).tolist() for v in s.run(outs, {p: _SMALL})]


def test_log1p_and_expm1_where_shapes_are_known():
    # TF 1.15: log(1 + v) and exp(v) - 1 of a variable run as Log1p and Expm1 (fetched); of
    # the fed placeholder they stay Log and Sub
    got = _log_exp_bits(lambda p, v: [tf.log(1.0 + v), tf.exp(v) - tf.ones([8]),
                                      tf.log(1.0 + p), tf.exp(p) - 1.0,
                                      tf.log(1.0 + tf.reshape(p, [2, 4]))])
    direct = _log_exp_bits(lambda p, v: [tf.log1p(v), tf.math.expm1(v)])
    # (TF 1.15's bits, first three elements: log1p(v), expm1(v); Log(1 + p), Exp(p) - 1)
    assert [r[:3] for r in direct] == [[841731191, 939239306, 3025584023],
                                       [841731191, 939239802, 3025584020]]
    assert got[:2] == direct
    assert [r[:3] for r in got[2:4]] == [[0, 939261704, 3024093185], [0, 939261952, 3024093184]]
    assert np.reshape(got[4], -1).tolist() == direct[0]  # (a Reshape's shape is known)


def test_row_times_transposed_variable():
    # TF 1.15: r @ tf.transpose(B) adds as r @ (a C-ordered copy of B.T): the transpose's view
    # must not change the order (NumPy would add a contiguous column pairwise)
    rs = np.random.RandomState(3)
    rs.randn(200, 5), rs.randn(200, 1)
    r = rs.randn(1, 200).astype(np.float32)
    b = rs.randn(5, 200).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        out = tf.matmul(r, tf.transpose(tf.Variable(b)))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(out).view(np.uint32).tolist()
    assert got == [[3230785626, 1092582873, 3235184326, 3238306187, 1097039060]]


def test_rewrite_options_turn_grappler_off():
    # TF 1.15's bits (first elements) of x / 3, log(1 + v) and a fused dense row for each
    # RewriterConfig: each optimizer set OFF skips its rewrites, disable_meta_optimizer all
    from tideflow.protos import rewriter_config_pb2 as rc

    rs = np.random.RandomState(1)
    xv = rs.uniform(0.1, 10, 64).astype(np.float32)
    x2, w = rs.randn(2, 30).astype(np.float32), rs.randn(30, 1).astype(np.float32)
    off = rc.RewriterConfig.OFF
    got = {}
    for tag, kw in [("none", {}), ("disable", {"disable_meta_optimizer": True}),
                    ("fold_off", {"constant_folding": off}),
                    ("arith_off", {"arithmetic_optimization": off}), ("remap_off", {"remapping": off})]:
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [64])
            v = tf.Variable(xv * 1e-6)
            m = tf.placeholder(tf.float32, [2, 30])
            outs = [x / 3.0, tf.log(1.0 + v), tf.nn.bias_add(tf.matmul(m, w), [0.5])]
            cfg = tf.ConfigProto(graph_options=tf.GraphOptions(
                rewrite_options=rc.RewriterConfig(**kw)))
            with tf.Session(config=cfg) as s:
                s.run(tf.global_variables_initializer())
                r = s.run(outs, {x: xv, m: x2})
        got[tag] = [r[0][:2].view(np.uint32).tolist(), r[1][:2].view(np.uint32).tolist(),
                    r[2][1].view(np.uint32).tolist()]
    div, div_exact = [1068788402, 1075463184], [1068788401, 1075463184]
    log1p, log = [915268254, 921871211], [915144685, 921960390]
    fused, plain = [3229158746], [3229158748]
    assert got == {"none": [div, log1p, fused], "disable": [div_exact, log, plain],
                   "fold_off": [div_exact, log1p, fused], "arith_off": [div, log, fused],
                   "remap_off": [div, log1p, plain]}
