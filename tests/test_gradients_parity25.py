"""tf.gradients against TF 1.15: the float32 bits of gradient sums (grappler hands on ``x``
for ``ones * x`` and folds a given grad_ys' Identity, so the AddN's inputs sort and forward as
TF's), the ops of complex gradients, and the warning for densified IndexedSlices. Expected
values were measured in TF 1.15 with the same programs."""

import warnings
import zlib

import numpy as np
import pytest

import tideflow as tf


def _x():
    r = np.random.RandomState(0)
    return r.randn(64).astype(np.float32) * 10 ** r.randint(-3, 4, size=64).astype(np.float32)


# a reduce_sum loss seeds ones: TF's constant folding makes ``ones * x`` x itself (and
# ``ones * cos(x)`` the Cos), which the AddN then sums by name, its forwarded input first
SUMS = {
    "square_first": lambda x: (tf.reduce_sum(x * x) + tf.reduce_sum(x * 2.0)
                               + tf.reduce_sum(tf.sin(x))),
    "two_constants": lambda x: (tf.reduce_sum(x * 1.5) + tf.reduce_sum(x * x)
                                + tf.reduce_sum(tf.sin(x)) + tf.reduce_sum(x * 3.0)),
    "exp_sin_scaled": lambda x: (tf.reduce_sum(x * 2.0) + tf.reduce_sum(x * x)
                                 + tf.reduce_sum(tf.sin(x)) + tf.reduce_sum(tf.exp(x))),
}
# CRC-32 of the second graph's gradient bytes (measured in TF 1.15)
SUM_CRCS = [
    ("square_first", None, 4182258359),
    ("square_first", "tree", 4182258359),
    ("two_constants", None, 3850662667),
    ("exp_sin_scaled", None, 3896902420),
    ("exp_sin_scaled", "tree", 1552713833),
]


@pytest.mark.parametrize("name,method,crc", SUM_CRCS)
def test_gradient_sum_of_ones_seeded_terms_bits_as_tf(name, method, crc):
    method = tf.AggregationMethod.EXPERIMENTAL_TREE if method == "tree" else None
    with tf.Graph().as_default():
        for _ in range(2):  # the second graph's names sort the terms the other way
            x = tf.Variable(_x())
            g, = tf.gradients(SUMS[name](x), [x], aggregation_method=method)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert zlib.crc32(s.run(g).tobytes()) == crc


def test_given_grad_ys_identity_is_folded_as_tf():
    # the 2.0 reaches the sum through grad_ys' Identity, Reshape and Tile: a constant, so
    # the AddN sums x, x (ones * x), then it (not the constant first, as its forwarded input)
    with tf.Graph().as_default():
        x = tf.Variable(_x()[:6].reshape(2, 3))
        g, = tf.gradients([x * x, tf.reduce_sum(x)], x, grad_ys=[None, 2.0])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert zlib.crc32(s.run(g).tobytes()) == 3512815496


def test_ones_times_x_only_where_shapes_match_and_zeros_added_as_tf():
    # x * ones of a broadcast shape is computed (two rows); an AddV2 of zeros TF 1.15 adds
    # (its -0.0 + 0 is 0.0); signs measured in TF 1.15
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [3])
        y = tf.identity(p * tf.ones([2, 3]))
        z = tf.identity(p + tf.zeros([3]))
        z2 = tf.identity(tf.zeros([3]) + p)
        with tf.Session() as s:
            r = s.run([y, z, z2], {p: [1.0, -0.0, 3.0]})
        assert [np.signbit(a).tolist() for a in r] == [
            [[False, True, False], [False, True, False]], [False] * 3, [False] * 3]


def test_angle_gradient_ops_as_tf():
    with tf.Graph().as_default() as g:
        z = tf.complex(tf.constant([1.0, -2.0]), tf.constant([0.5, 3.0]))
        gz, = tf.gradients(tf.reduce_sum(tf.angle(z)), z)
        ops = [(o.name, o.type) for o in g.get_operations() if "Angle_grad" in o.name]
        assert ops == [
            ("gradients/Angle_grad/Real", "Real"), ("gradients/Angle_grad/Imag", "Imag"),
            ("gradients/Angle_grad/Complex", "Complex"),
            ("gradients/Angle_grad/Reciprocal", "Reciprocal"),
            ("gradients/Angle_grad/Const", "Const"),
            ("gradients/Angle_grad/Complex_1", "Complex"), ("gradients/Angle_grad/Neg", "Neg"),
            ("gradients/Angle_grad/mul", "Mul")]
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(gz), [-0.4 + 0.8j, -3 / 13 - 2j / 13], rtol=1e-6)


def test_complex_abs_bits_as_tf():
    # std::abs of complex<float> (libm's hypot), not NumPy's complex absolute
    re = np.random.RandomState(0).randn(3).astype(np.float32)
    im = np.random.RandomState(1).randn(3).astype(np.float32)
    with tf.Graph().as_default():
        a = tf.abs(tf.complex(re, im))
        with tf.Session() as s:
            assert s.run(a).tobytes().hex() == "bf7819404b233b3f2a5b8e3f"


_UNKNOWN = ("Converting sparse IndexedSlices to a dense Tensor of unknown shape. This may "
            "consume a large amount of memory.")


def _gather_grad(x):
    return tf.gradients(tf.reduce_sum(tf.gather(x, [0, 1])), x)[0]


def _warned(build):
    with tf.Graph().as_default(), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        build(tf.placeholder(tf.float32, [None, 3]))
    return [str(m.message) for m in w if "IndexedSlices" in str(m.message)]


@pytest.mark.parametrize("build,count", [
    (lambda x: tf.convert_to_tensor(_gather_grad(x)), 1),
    (lambda x: tf.multiply(_gather_grad(x), 2.0), 1),  # (``*`` is a TypeError, as TF's)
    (lambda x: tf.reduce_sum(_gather_grad(x)), 2),  # (TF's reduce_sum converts it twice)
    # summed with a dense partial, in tf.gradients
    (lambda x: tf.gradients(tf.reduce_sum(tf.gather(x, [0, 1])) + tf.reduce_sum(x * 2.0), x),
     1),
    (lambda x: tf.gradients(tf.reduce_sum(tf.concat([tf.gather(x, [0, 1]), x], 0)), x), 1),
    # kept sparse: no warning
    (lambda x: _gather_grad(x), 0),
    (lambda x: tf.clip_by_global_norm([_gather_grad(x)], 1.0), 0),
    (lambda x: tf.gradients(tf.reduce_sum(tf.gather(tf.gather(x, [0, 1, 1]), [0, 2])), x), 0),
])
def test_densified_indexed_slices_of_unknown_shape_warn_as_tf(build, count):
    assert _warned(build) == [_UNKNOWN] * count


def test_densified_indexed_slices_of_100m_elements_warn_as_tf():
    big = ("Converting sparse IndexedSlices to a dense Tensor with 100000000 elements. This "
           "may consume a large amount of memory.")
    for rows, expected in ((100000, [big]), (99999, [])):
        with tf.Graph().as_default(), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = tf.convert_to_tensor(_gather_grad(tf.placeholder(tf.float32, [rows, 1000])))
            assert t.get_shape().as_list() == [rows, 1000]
            assert [str(m.message) for m in w if "IndexedSlices" in str(m.message)] == expected
    # a known shape under the limit: no warning (a variable's gather)
    with tf.Graph().as_default(), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tf.convert_to_tensor(_gather_grad(tf.Variable(np.ones((4, 3), np.float32))))
        assert not [m for m in w if "IndexedSlices" in str(m.message)]


def _data(shape, seed):
    r = np.random.RandomState(seed)
    return (r.randn(*shape) * 10.0 ** r.randint(-3, 4, size=shape)).astype(np.float32)


# reduce_sum / reduce_mean(keepdims) over axes that are no trailing run: [reduced, kept,
# reduced] one element after another (Eigen's generic reducer), four or more runs transposed
# to rows (CRC-32 of TF 1.15's bytes)
@pytest.mark.parametrize("shape,axes,crc_sum,crc_mean", [
    ((5, 7, 33), (0, 2), 1347714577, 3661688883),
    ((2, 3, 4, 5, 6), (0, 2, 4), 3987852514, 1396145172),
    ((3, 4, 5, 6), (1, 3), 432544658, 2648437997),
    ((1000, 3, 4), (0, 2), 2989792519, 1243115038),
])
def test_sum_over_split_axes_bits_as_tf(shape, axes, crc_sum, crc_mean):
    x = _data(shape, 3)
    with tf.Graph().as_default(), tf.Session() as s:
        total, mean = s.run([tf.reduce_sum(x, axes), tf.reduce_mean(x, axes, keepdims=True)])
    assert zlib.crc32(total.tobytes()) == crc_sum
    assert zlib.crc32(mean.tobytes()) == crc_mean


@pytest.mark.parametrize("fn,crc", [
    (tf.multiply, 1999833969), (tf.divide, 3607070379), (tf.squared_difference, 1590402866)])
def test_broadcast_gradient_summed_over_axes_0_and_2_as_tf(fn, crc):
    # b [4, 1] against a [2, 1, 3]: its gradient sums the [2, 4, 3] partials over axes 0, 2
    with tf.Graph().as_default():
        a, b = tf.constant(_data((2, 1, 3), 1)), tf.constant(_data((4, 1), 2))
        g, = tf.gradients(tf.reduce_sum(fn(a, b) * tf.constant(_data((2, 4, 3), 4))), b)
        with tf.Session() as s:
            assert zlib.crc32(s.run(g).tobytes()) == crc


def test_avg_pool_gradient_bits_as_tf():
    # each window's gradient times 1 / its count, added window after window (CRC-32 of TF
    # 1.15's forward and gradient bytes)
    r = np.random.RandomState(0)
    expected = [(2541528932, (2, 2), (1, 1), "SAME", (2, 4, 4, 1)),
                (463824215, (3, 3), (1, 1), "SAME", (1, 6, 6, 2)),
                (3292584195, (3, 3), (2, 2), "VALID", (1, 7, 7, 3)),
                (1333035317, (2, 2), (1, 1), "VALID", (2, 5, 5, 2))]
    for crc, ks, st, pad, shape in expected:
        x = (r.randn(*shape) * 10.0 ** r.randint(-3, 4, size=shape)).astype(np.float32)
        with tf.Graph().as_default():
            xv = tf.constant(x)
            y = tf.nn.avg_pool(xv, (1,) + ks + (1,), (1,) + st + (1,), pad)
            shape_y = y.shape.as_list()
            up = (r.randn(*shape_y) * 10.0 ** r.randint(-3, 4, size=shape_y)).astype(np.float32)
            g, = tf.gradients(y, xv, grad_ys=tf.constant(up))
            with tf.Session() as s:
                assert zlib.crc32(s.run(g).tobytes()) == crc, (ks, st, pad)


# complex Mul/Square without fused products, Div/RealDiv/DivNoNan/Reciprocal as Eigen's packets
# (x * conj(y) / |y|^2) then libgcc's division for the elements after the last whole packet
# (CRC-32 of TF 1.15's bytes for: div_no_nan, multiply_no_nan, a * b, a / b, square(a),
# reciprocal(b), a * b[2], b[3] / a, abs(a), conj(a) * a)
COMPLEX_CRCS = {
    ("complex64", 5): [2326671658, 3945425004, 1174428127, 3201775130, 3884741962, 1113015351,
                       4256220452, 1303364010, 2663139002, 3861795652],
    ("complex64", 1001): [1598034342, 2002739707, 2689182384, 719250497, 1634059815,
                          2677778578, 1377521603, 418555385, 2592868150, 16704847],
    ("complex128", 5): [2074071129, 1267085478, 1432274632, 2454723756, 1686373404, 519943107,
                        2934899430, 2236063824, 3580109133, 3707877187],
    ("complex128", 16): [3099338931, 2473240379, 1539734202, 3687832247, 4074555556,
                         3705780061, 3438872471, 1726280070, 1676574607, 1314446726],
}


@pytest.mark.parametrize("dtype,n", sorted(COMPLEX_CRCS))
def test_complex_arithmetic_bits_as_tf(dtype, n):
    r = np.random.RandomState(n)
    a = (r.randn(n) + 1j * r.randn(n)).astype(dtype)
    b = (r.randn(n) + 1j * r.randn(n)).astype(dtype)
    b[1] = 0
    with tf.Graph().as_default(), tf.Session() as s:
        a, b = tf.constant(a), tf.constant(b)
        res = s.run([tf.div_no_nan(a, b), tf.math.multiply_no_nan(a, b), a * b, a / b,
                     tf.square(a), tf.reciprocal(b), a * b[2], b[3] / a, tf.abs(a),
                     tf.conj(a) * a])
    assert [zlib.crc32(np.ascontiguousarray(x).tobytes()) for x in res] == COMPLEX_CRCS[
        (dtype, n)]


def test_complex_gradients_bits_as_tf():
    # |z|, z * conj(z), exp(z) and z**3 through their gradients' complex products and
    # quotients (hex of TF 1.15's float32 gradients)
    with tf.Graph().as_default(), tf.Session() as s:
        re = tf.constant(np.random.RandomState(0).randn(3).astype(np.float32))
        im = tf.constant(np.random.RandomState(1).randn(3).astype(np.float32))
        z = tf.complex(re, im)
        losses = [tf.reduce_sum(tf.abs(z)), tf.reduce_sum(tf.real(z * tf.conj(z))),
                  tf.reduce_sum(tf.real(tf.exp(z))), tf.reduce_sum(tf.imag(z * z * z))]
        got = [[s.run(g).tobytes().hex() for g in tf.gradients(loss, [re, im])]
               for loss in losses]
        assert s.run(z * tf.conj(z)).tobytes().hex() == (
            "1a03b8400000000095cc083f0000000087529e3f00000000")
    assert got == [["ac523c3fc0220c3f064a613f", "8d682d3ff63c56bf1427f3be"],
                   ["78cc614068e14c3f938efa3f", "8dea4f40119c9cbf443687bf"],
                   ["58ee9fbecf589c3f191a1340", "4e7cbac0b95d5b3f46a8ab3f"],
                   ["688a89416401bcbf728146c0", "6ac7b53fb97124bf605c0240"]]


@pytest.mark.parametrize("seed,shape,radius,bias,alpha,beta,crc_y,crc_g", [
    (0, (2, 3, 3, 8), 2, 1.0, 1e-3, 0.75, 2360895506, 1273084170),
    (1, (3, 2, 2, 12), 1, 1.0, 1.0, 1.0, 2007124802, 1673044291),
    (2, (2, 2, 2, 64), 4, 1.0, 0.001 / 9.0, 0.75, 3791511483, 1522810118),  # cifar10's
])
def test_lrn_and_its_gradient_bits_as_tf(seed, shape, radius, bias, alpha, beta, crc_y,
                                         crc_g):
    # the window's squares in ascending order, exp(log(v) * -beta) as Eigen's packets; the
    # gradient kernel's loop over each depth's window with powf (CRC-32 of TF 1.15's bytes)
    r = np.random.RandomState(seed)
    x = (r.randn(*shape) * 3).astype(np.float32)
    up = r.randn(*shape).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as s:
        xv = tf.constant(x)
        y = tf.nn.local_response_normalization(xv, radius, bias, alpha, beta)
        g, = tf.gradients(y, xv, grad_ys=tf.constant(up))
        a, b = s.run([y, g])
    assert (zlib.crc32(a.tobytes()), zlib.crc32(b.tobytes())) == (crc_y, crc_g)


@pytest.mark.parametrize("loss_fn,crcs", [
    (tf.nn.nce_loss, [3359162654, 1132134901, 3962616472, 919273832]),
    (tf.nn.sampled_softmax_loss, [914249586, 758429743, 694662381, 129884990]),
])
def test_sampled_losses_and_gradients_bits_as_tf(loss_fn, crcs):
    # the sampler's expected counts 1 - (1 - p)^tries through glibc's log1pf and expm1f
    # (CRC-32 of TF 1.15's loss and its gradients for the weights, biases and embeddings;
    # the stateful sampler draws anew in each run, as TF's)
    with tf.Graph().as_default():
        tf.set_random_seed(11)
        w = tf.Variable(np.random.RandomState(2).randn(20, 4).astype(np.float32))
        b = tf.Variable(np.zeros(20, np.float32))
        emb = tf.Variable(np.random.RandomState(3).randn(10, 4).astype(np.float32))
        x = tf.nn.embedding_lookup(emb, [1, 2, 3])
        loss = loss_fn(w, b, tf.constant([[1], [5], [7]], tf.int64), x, 5, 20)
        g = tf.gradients(tf.reduce_mean(loss), [w, b, emb])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            vals = s.run([loss] + [tf.convert_to_tensor(t) for t in g])
    assert [zlib.crc32(v.tobytes()) for v in vals] == crcs
