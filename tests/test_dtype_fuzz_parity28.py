"""The dtype matrix against TF 1.15 (session 28, helper h315): common ops over every dtype
(element-wise, comparisons, bitwise, reductions, casts, matmul, conversions of Python and NumPy
values, feeds, operators with Python scalars) run in TF 1.15 and here; the minimal cases where
tideflow differed, with TF 1.15's values as measured, and a small seeded fuzz run of random
integer and float programs checked against exact NumPy (integers, wrapping as TF's kernels do)
and float64 evaluations."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(fetch, feed=None):
    with tf.Session() as s:
        return s.run(fetch, feed)


# ---- minimal wrong-value cases (values measured in TF 1.15) ---------------------------------

def test_float32_sqrt_packet_special_values():
    # TF 1.15's float32 Sqrt on whole 8-float packets is x * r * (1.5 - 0.5 x r^2) with
    # r = rsqrtps(x): +inf is NaN, -0 and denormals +0, and x > ~8.5e37 or x < 2 * FLT_MIN
    # come out 1.5 times the root (r * r or 0.5 x flushed); the scalar tail reads a
    # denormal as a signed 0 (DAZ)
    v = np.array([np.inf, -0.0, 1e-40, 0.0, 3e38, 4.0, 2.0e-38, -1.0,
                  8.6e37, 8.4e37, -1e-40, 1.2e-38, 9e37, 1e38, 16.0, np.nan,
                  np.inf, -0.0, 1e-40, 3e38, -1e-40, 8.6e37], np.float32)
    x = tf.placeholder(tf.float32, [None])
    out = _run(tf.sqrt(x), {x: v})
    tf115 = [np.nan, 0.0, 0.0, 0.0, 2.597876596085883e+19, 2.0, 2.1215331895364572e-19, np.nan,
             1.3911087085319619e+19, 9.165151796652409e+18, 0.0, 1.6429806415940035e-19,
             1.4229359417677054e+19, 1.500042383249218e+19, 4.0, np.nan, np.inf, -0.0, 0.0,
             1.7320507716308828e+19, -0.0, 9.273618618732511e+18]
    # (the CPU's approximate root decides the last bits of the 1.5x values: not compared)
    np.testing.assert_allclose(out, np.array(tf115, np.float32), rtol=1e-3)
    assert np.signbit(out)[[1, 2, 3, 10, 17, 18, 20]].tolist() == [0, 0, 0, 0, 1, 0, 1]
    # all in the scalar tail
    assert _run(tf.sqrt(x), {x: v[:6]}).tolist() == [np.inf, -0.0, 0.0, 0.0,
                                                     1.7320507716308828e+19, 2.0]


def test_complex_expm1_log1p_take_eigens_fallback_formulas():
    # TF 1.15's complex Expm1 is Eigen's std_fallback: (exp(x) - 1) * x / log(exp(x)), so an
    # imaginary part outside (-pi, pi] scales the value by x / log(exp(x)) (25j here); Log1p is
    # x * (log(1 + x) / ((1 + x) - 1)), -inf + NaN j at -1
    v = np.array([4.5 + 25.0j, -1 + 0j, complex(np.inf, 0), 1 + 2j, 1e-20 + 0j, -2 + 7j])
    x = tf.placeholder(tf.complex128, [None])
    em1, l1p = _run([tf.math.expm1(x), tf.math.log1p(x)], {x: v})
    tf115_em1 = [140.18498269366995 + 482.36144588351397j, -0.6321205588285577 - 0j,
                 complex(np.inf, 0), -2.1312043837568133 + 2.4717266720048188j, 1e-20 + 0j,
                 -1.5464298013687425 + 2.6775581529670807j]
    tf115_l1p = [3.242508421101758 + 1.3542460218188075j, complex(-np.inf, np.nan),
                 complex(np.inf, 0), 1.039720770839918 + 0.7853981633974483j, 1e-20 + 0j,
                 1.956011502714073 + 1.7126933813990606j]
    np.testing.assert_array_equal(em1, tf115_em1)
    np.testing.assert_array_equal(l1p, tf115_l1p)
    x32 = tf.placeholder(tf.complex64, [None])
    np.testing.assert_allclose(_run(tf.math.expm1(x32), {x32: v[:1].astype(np.complex64)}),
                               [140.18498269366995 + 482.36144588351397j], rtol=1e-5)


def test_where_of_float16_is_unimplemented_on_cpu():
    # TF 1.15 registers a CPU Where kernel for half that refuses it at run time
    x = tf.placeholder(tf.float16, [None])
    with pytest.raises(tf.errors.UnimplementedError, match="No WhereOp available for "
                       "float16/half type on CPU; dying in CPU WhereOp to avoid silently"):
        _run(tf.where(x), {x: np.float16([0, 1])})
    assert _run(tf.where(tf.constant([0.0, 2.0], tf.bfloat16))).tolist() == [[1]]
    with pytest.raises(TypeError, match="int64, qint8, quint8, qint32, bfloat16, uint16"):
        tf.where(tf.constant(["a"]))


def test_feeding_a_big_python_int_to_uint32():
    # NumPy 1.x converts a Python int for uint32 through an unsigned long (2**63 wraps to 0),
    # so TF 1.15's feed check raises its TypeError there; past 2**64 it is NumPy's OverflowError
    p = tf.placeholder(tf.uint32)
    with tf.Session() as s:
        with pytest.raises(TypeError, match=r"Type of feed value 9223372036854775808 with type "
                           r"<class 'int'> is not compatible with Tensor type <class "
                           r"'numpy.uint32'>. Try explicitly setting the type"):
            s.run(p, {p: 2**63})
        with pytest.raises(TypeError, match="Type of feed value 18446744073709551615"):
            s.run(p, {p: 2**64 - 1})
        with pytest.raises(OverflowError, match="Python int too large to convert to C long"):
            s.run(p, {p: 2**64})
        assert s.run(p, {p: 2**32 - 1}) == 4294967295
