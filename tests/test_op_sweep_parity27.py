"""Edges found by a third differential sweep against TF 1.15: gradients at edge points (the
fused derivative kernels, broadcasting gradients), graph rewrites around fed tensors and
shape inference for partially known shapes. Every expected value below was measured in TF
1.15 with the same graph (CRC-32 of the result's bytes where the result is long)."""

import zlib

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


# CRC-32s of ReciprocalGrad, RsqrtGrad and SqrtGrad over the inputs below (drawn in this
# order from one RandomState(1)), measured in TF 1.15: its packets round (0.5 / y) * dy for
# SqrtGrad and their mul_no_nan gives +0 (RsqrtGrad where y * dy is 0) or dy's signed zero
# (ReciprocalGrad's 0 - y * y) where the scalar code past the last whole packet keeps the
# product's sign
_FUSED_GRAD_CRCS = [
    (np.float32, 5, [2109986978, 473925930, 979105523]),
    (np.float32, 37, [3799822967, 1173949417, 1924296944]),
    (np.float32, 1000, [2488132415, 1067127295, 4094022933]),
    (np.float64, 5, [1567520409, 1406696011, 934587374]),
    (np.float64, 37, [1550806031, 3601114294, 485071967]),
    (np.float64, 1000, [3360121292, 3010381159, 2519332368]),
    (np.float16, 5, [4265318164, 2234440856, 930411916]),
    (np.float16, 37, [2948631146, 1410622870, 3072949908]),
    (np.float16, 1000, [2133967499, 3478974840, 1394287126]),
]


def test_fused_derivative_kernels_bits_as_tf():
    rng = np.random.RandomState(1)
    for dt, n, crcs in _FUSED_GRAD_CRCS:
        y = (rng.rand(n) * 3 + 0.01).astype(dt)
        dy = (rng.randn(n) * 3).astype(dt)
        y[::7] = 0
        y[1::11] = -0.0
        dy[2::9] = 0
        dy[::13] = -1
        y[3::17] = np.inf
        with tf.Graph().as_default():
            y_t, dy_t = tf.constant(y), tf.constant(dy)
            r = _run([tf.raw_ops.ReciprocalGrad(y=y_t, dy=dy_t),
                      tf.raw_ops.RsqrtGrad(y=y_t, dy=dy_t),
                      tf.raw_ops.SqrtGrad(y=y_t, dy=dy_t)])
        assert [zlib.crc32(a.tobytes()) for a in r] == crcs, (dt, n)


def test_fused_derivative_zero_signs_as_tf():
    # y = 0 / -0 with dy = 1, -1 (a whole packet of 8 each): measured in TF 1.15
    y = np.repeat(np.array([0.0, -0.0, 0.0, -0.0], np.float32), 8)
    dy = np.repeat(np.array([1.0, 1.0, -1.0, -1.0], np.float32), 8)
    with tf.Graph().as_default():
        r = _run([tf.raw_ops.ReciprocalGrad(y=y, dy=dy), tf.raw_ops.RsqrtGrad(y=y, dy=dy)])
    assert np.signbit(r[0][::8]).tolist() == [False, False, True, True]
    assert np.signbit(r[1][::8]).tolist() == [False] * 4


def test_atan2_gradient_sums_no_broadcast_back_as_tf():
    # TF 1.15's _Atan2Grad returns x * g / (x^2 + y^2) and its -y twin unreduced: a
    # broadcasting atan2's gradient is tf.gradients' shape check error, and over unknown
    # shapes no BroadcastGradientArgs/Sum/Reshape follow (op types and message measured)
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [3, 1])
        b = tf.placeholder(tf.float32, [1, 2])
        with pytest.raises(ValueError) as e:
            tf.gradients(tf.atan2(a, b), [a, b])
        assert str(e.value) == (
            "Incompatible shapes between op input and calculated input gradient.  Forward "
            "operation: Atan2.  Input index: 0. Original input shape: (3, 1).  Calculated "
            "input gradient shape: (3, 2)")
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [None])
        b = tf.placeholder(tf.float32, [None])
        n = len(g.get_operations())
        gr = tf.gradients(tf.atan2(a, b), [a, b])
        assert [o.type for o in g.get_operations()[n:]] == [
            "Atan2", "Shape", "Const", "Fill", "Square", "Square", "AddV2", "RealDiv", "Mul",
            "Neg", "Mul"]
        r = _run(gr, {a: [1.0, 0.0, -2.0], b: [0.0, 0.0, 3.0]})
    np.testing.assert_array_equal(r[0], np.float32([0.0, np.nan, 0.23076925]))
    np.testing.assert_array_equal(r[1], np.float32([-1.0, np.nan, 0.15384616]))


def test_ones_times_a_fed_tensor_is_multiplied_as_tf():
    # TF's constant folding forwards x for ones * x only where its shape inference knows x's
    # shape: not a fed tensor's, so (1+0j) * (1-0j) is computed there (1+0j); a variable's
    # is forwarded (1-0j). So the gradient of a fed complex abs at 1-0j is 1+0j (measured)
    xv = np.array([complex(1, -0.0)] * 4, np.complex64)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.complex64, [4])
        v = tf.Variable(xv)
        ones = tf.constant(np.ones(4, np.complex64))
        norm = tf.complex(tf.abs(x), 0.0)
        fed = tf.math.divide_no_nan(ones * x, norm)
        var = tf.math.divide_no_nan(ones * v, norm)
        g, = tf.gradients(tf.abs(x), x)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            r = s.run([fed, var, g], {x: xv})
    assert [np.signbit(a.imag).tolist() for a in r] == [[False] * 4, [True] * 4, [False] * 4]


def test_maximum_minimum_incompatible_shapes_name_x_first_as_tf():
    # shapes only known at run time: TF 1.15's broadcast error names x's shape first
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, None])
        b = tf.placeholder(tf.float32)
        for f in (tf.maximum, tf.minimum):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                _run(f(a, b), {a: np.zeros((2, 3)), b: np.ones(4)})
            assert str(e.value).startswith("Incompatible shapes: [2,3] vs. [4]")


def test_diag_band_arguments_ignored_before_the_horizon_as_tf():
    # TF 1.15 builds MatrixDiagV2/MatrixDiagPartV2/MatrixSetDiagV2 only when
    # forward_compatible(2019, 8, 31); its horizon is 2019-08-21, so k is ignored (measured)
    with tf.Graph().as_default():
        d = tf.linalg.diag(tf.ones([3]), k=1)
        assert d.op.type == "MatrixDiag" and d.shape.as_list() == [3, 3]
        p = tf.linalg.diag_part(tf.ones([3, 3]), k=(-1, 1))
        assert p.op.type == "MatrixDiagPart" and p.shape.as_list() == [3]
        with pytest.raises(ValueError) as e:
            tf.linalg.set_diag(tf.ones([3, 3]), tf.ones([2, 3]), k=(0, 1))
        assert str(e.value) == (
            "Shape must be rank 1 but is rank 2 for 'set_diag' (op: 'MatrixSetDiag') with "
            "input shapes: [3,3], [2,3].")
        with tf.compat.forward_compatibility_horizon(2019, 9, 1):
            assert tf.linalg.diag(tf.ones([3]), k=1).shape.as_list() == [4, 4]


def test_unravel_index_unchecked_and_shapes_as_tf():
    # TF 1.15's kernel takes (index / stride) % dim in C's truncating arithmetic with no
    # bounds check; its shape function counts a matrix's elements and leaves the rank error
    # to the kernel (values, shapes and messages measured)
    with tf.Graph().as_default():
        out = tf.unravel_index([7, -1, 6, 13, -7, 5], [2, 3])
        assert _run(out).tolist() == [[0, 0, 0, 0, 0, 1], [1, -1, 0, 1, -1, 2]]
        r = tf.placeholder(tf.int32, [2, 2])
        p = tf.placeholder(tf.int32)
        assert tf.unravel_index(r, [3, 2]).shape.as_list() == [2, 4]
        assert tf.unravel_index(p, [3, 2]).shape.ndims is None
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(tf.unravel_index(p, [2, 3]), {p: np.zeros((2, 2), np.int32)})
        assert str(e.value).startswith('The indices can only be scalar or vector, got "[2,2]"')
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(tf.unravel_index(3, p), {p: np.ones((2, 2), np.int32)})
        assert str(e.value).startswith('The indices can only be 1-D, got "[2,2]"')


# (indices, updates, shape) fed to ScatterNd and TF 1.15's run-time error (measured)
_SCATTER_ND_RUN = [
    (5, [1.0], [3], "Indices shape must have rank at least one. Found:[]"),
    ([1], 2.0, [3], "Updates shape must have rank at least one. Found:[]"),
    ([[1], [0], [1]], np.ones((2, 3)), [3, 3],
     ("Outer dimensions of indices and update must match. Indices shape: [3,1], updates "
     "shape:[2,3]")),
    ([[1], [0]], np.ones((2, 3, 1)), [3, 3],
     ("Inner dimensions of output shape must match inner dimensions of updates shape. Output: "
     "[3,3] updates: [2,3,1]")),
    ([[1], [0]], np.ones((2, 2)), [3, 3],
     ("The inner 1 dimensions of output.shape=[3,3] must match the inner 1 dimensions of "
     "updates.shape=[2,2]")),
    ([[0]], np.ones((1, 3)), [[3, 3]], "Shape must be a vector"),
    ([[0]], np.ones((1, 3)), [0, 3],
     "Indices and updates specified for empty output.  indices shape: [1,1]"),
]


@pytest.mark.parametrize("ix,up,shape,msg", _SCATTER_ND_RUN)
def test_scatter_nd_run_time_checks_as_tf(ix, up, shape, msg):
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32)
        u = tf.placeholder(tf.float32)
        s = tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(tf.scatter_nd(i, u, s), {i: ix, u: up, s: shape})
    assert str(e.value).startswith(msg)


def _run_error(make, feeds):
    # placeholders of unknown rank, fed: the shape checks run in the kernels
    with tf.Graph().as_default():
        phs = [tf.placeholder(dt) for _, dt in feeds]
        t = make(*phs)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(t, {p: v for p, (v, _) in zip(phs, feeds)})
    return str(e.value).split("\n")[0]


_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def test_kernel_messages_for_shapes_known_at_run_time_as_tf():
    # TF 1.15's kernels' words (measured): ReverseV2 leaves its range unclosed, Unique says
    # no shape, BiasAdd says "last dimension" for NCHW too, UnsortedSegment* names the count
    assert _run_error(lambda a: tf.reverse(a, [3]), [(_X, tf.float32)]) == (
        "'axis'[0] = 3 is out of valid range [0, 2")
    assert _run_error(lambda a: tf.unique(a[0])[0], [(_X, tf.float32)]) == (
        "unique expects a 1D vector.")
    assert _run_error(
        lambda a: tf.nn.bias_add(tf.reshape(a, [2, 4, 3, 1]), a[0, 0, :3], data_format="NCHW"),
        [(_X, tf.float32)]) == ("Must provide as many biases as the last dimension of the "
                                "input tensor: [3] vs. [2,4,3,1]")
    assert _run_error(lambda a, i: tf.math.unsorted_segment_sum(a, i, -1),
                      [(_X[0], tf.float32), ([0, 0, 0], tf.int32)]) == (
        "Input num_segments == -1 must not be negative.")


def test_pad_of_unknown_rank_checks_constant_paddings_as_tf():
    with tf.Graph().as_default(), pytest.raises(ValueError) as e:
        tf.pad(tf.placeholder(tf.float32), [[-1, 0], [0, 0], [0, 0]])
    assert str(e.value) == (
        "Paddings must be non-negative for 'Pad' (op: 'Pad') with input shapes: ?, [3,2] and "
        "with computed input tensors: input[1] = <[-1 0][0 0][0 0]>.")


def test_gather_with_batch_dims_is_one_gather_v2_as_tf():
    # TF 1.15's tf.gather builds one GatherV2 with the batch_dims attr: its shape function
    # keeps params' batch dimensions (not the indices'), takes params of unknown rank, and
    # its gradient is TF's _GatherV2Grad/_BatchGatherGrad (110 ops each here; values'
    # CRC-32s measured in TF 1.15)
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [None, None, None])
        u = tf.placeholder(tf.float32)
        y1 = tf.gather(a, [[0, 2], [1, 1]], axis=1, batch_dims=1)
        y2 = tf.gather(a, [[0, 2], [1, 1]], batch_dims=-1)
        y3 = tf.gather(u, [[0, 2], [1, 1]], batch_dims=-1)
        assert [y.op.type for y in (y1, y2, y3)] == ["GatherV2"] * 3
        assert y1.shape.as_list() == [None, 2, None]
        assert y2.shape.as_list() == [None, None, 2]
        assert y3.shape.ndims is None
        assert _run(y3, {u: _X}).ravel().tolist() == [
            0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 13.0, 13.0, 17.0, 17.0, 21.0, 21.0]
        p = tf.placeholder(tf.float32, [2, 3, 4, 5])
        grads = []
        for ix, axis in (([[0, 2], [1, 1]], 1), ([[0, 2, 3], [1, 1, 0]], 2),
                         ([[0, 4], [1, 1]], -1)):
            y = tf.gather(p, ix, axis=axis, batch_dims=1)
            n = len(g.get_operations())
            grads += tf.gradients(y * 1.5, p)
            assert len(g.get_operations()) - n == 110
        r = _run(grads, {p: x})
    assert [zlib.crc32(v.tobytes()) for v in r] == [650517461, 1130050966, 2756693050]


def test_max_pool_with_argmax_takes_a_nan_only_first_in_its_window_as_tf():
    # TF 1.15's kernel takes each window's first element, then each greater one: a NaN
    # first in its window is kept, any other passed over (CRC-32s measured in TF 1.15)
    rng = np.random.RandomState(3)
    x = rng.randn(2, 6, 6, 3).astype(np.float32)
    x[rng.rand(*x.shape) < 0.15] = np.nan
    x[0, 0, 0, 0] = np.nan
    x[0, 2, 2, 1] = np.inf
    x[0, 2, 3, 1] = np.inf
    with tf.Graph().as_default():
        xs = tf.constant(x)
        res = []
        for k, s, p in [(2, 2, "VALID"), (3, 2, "SAME"), (3, 1, "VALID"), (2, 1, "SAME")]:
            res += list(tf.nn.max_pool_with_argmax(xs, [1, k, k, 1], [1, s, s, 1], p))
        r = _run(res)
    assert [zlib.crc32(a.tobytes()) for a in r] == [
        1782024130, 2651688608, 2047088618, 2154083570, 3387630868, 3707801672, 3120772779,
        1841603974]


def test_bfloat16_nan_sign_is_finite_and_argmax_as_tf():
    # TF 1.15's bfloat16 kernels (scalar code, measured): sign of a NaN is +-1 by its sign
    # bit, isfinite is "not infinite" (a NaN passes), argmax/argmin never pick a NaN
    bf16 = tf.bfloat16.as_numpy_dtype
    v = np.array([np.nan, np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -3.0], np.float32)
    v = v.astype(bf16)
    v[1] = -v[0]
    col = np.array([[0, 1], [-2.5, 3], [np.nan, -1]], np.float32).astype(bf16)
    with tf.Graph().as_default():
        x, c = tf.constant(v), tf.constant(col)
        s, f, amax, amin = _run([tf.sign(x), tf.math.is_finite(x), tf.argmax(c, 0),
                                 tf.argmin(c, 0)])
    s = np.asarray(s, np.float32)
    assert s.tolist() == [1.0, -1.0, 1.0, -1.0, 0.0, 0.0, 1.0, -1.0]
    assert np.signbit(s).tolist() == [False, True, False, True, False, True, False, True]
    assert f.tolist() == [True, True, False, False, True, True, True, True]
    assert amax.tolist() == [0, 1] and amin.tolist() == [1, 2]


def test_add_n_run_time_shape_error_names_the_node_as_tf():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32)
        b = tf.placeholder(tf.float32)
        for t, want in ((tf.add_n([a, b], name="mysum"), "operation mysum of type AddN must"),
                        (tf.add_n([a, a, b]), "operation AddN of type AddN must")):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                _run(t, {a: np.ones(2), b: np.ones(3)})
            # (measured in TF 1.15)
            assert str(e.value).startswith(f"Inputs to {want} have the same size and shape.  ")
