"""The dtype matrix against TF 1.15 (session 28, helper h315): common ops over every dtype
(element-wise, comparisons, bitwise, reductions, casts, matmul, conversions of Python and NumPy
values, feeds, operators with Python scalars) run in TF 1.15 and here; the minimal cases where
tideflow differed, with TF 1.15's values as measured, and a small seeded fuzz run of random
integer and float programs checked against exact NumPy (integers, wrapping as TF's kernels do)
and float64 evaluations."""

# ruff: noqa: B023  (each generated op's reference is called in the iteration that makes it)
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


# ---- a small seeded fuzz run: random integer and float programs against NumPy ---------------

# the (op, dtypes) pairs TF 1.15's CPU kernels take (measured with the dtype matrix)
_I8_64 = ("int8", "int16", "int32", "int64")
_ALLI = _I8_64 + ("uint8", "uint16", "uint32", "uint64")
_INT_OPS = {
    "add": _I8_64 + ("uint8",), "sub": _I8_64 + ("uint8", "uint16"),
    "mul": _I8_64 + ("uint8", "uint16"), "and": _ALLI, "or": _ALLI, "xor": _ALLI,
    "invert": _ALLI, "lshift": _ALLI, "rshift": _ALLI, "neg": ("int32", "int64"),
    "abs": _I8_64, "floordiv": _I8_64 + ("uint8", "uint16"), "floormod": ("int32", "int64"),
    "truncatediv": _I8_64 + ("uint8", "uint16"), "truncatemod": ("int32", "int64"),
    "max": ("int32", "int64"), "min": ("int32", "int64"), "square": ("int32", "int64"),
    "cast": _ALLI, "sum": _ALLI, "cumsum": _I8_64 + ("uint8", "uint16"),
}


def _wrap(v, dt):
    bits = np.iinfo(dt).bits
    v %= 2**bits
    return v - 2**bits if np.iinfo(dt).min < 0 and v >= 2 ** (bits - 1) else v


def _tf_floordiv(x, y, dt):
    # TF 1.15's signed FloorDiv: -(|x| + |y| - 1) / |y| (C's truncation) where the signs
    # differ, |x| stored in the type (|-128| is -128 in int8) and the sum in int or wider
    if (x < 0) == (y < 0) or np.iinfo(dt).min == 0:
        return x // y
    ax, ay = _wrap(abs(x), dt), _wrap(abs(y), dt)
    s = _wrap(ax + ay - 1, "int32" if np.iinfo(dt).bits <= 32 else "int64")
    q = abs(s) // ay * (1 if s >= 0 else -1)
    return -q


def _int_program(seed):
    """A random chain of integer ops on two placeholders of one dtype: the tideflow graph's
    result and the same chain in exact Python integers, wrapped to the dtype at every op."""
    r = np.random.RandomState(seed)
    dt = _ALLI[r.randint(len(_ALLI))]
    n = r.randint(3, 12)
    info = np.iinfo(dt)

    def draw(lo=info.min, hi=info.max):
        return [int(v) for v in r.randint(lo, hi, size=n, dtype=np.int64 if lo < 0 or hi < 2**63
                                          else np.uint64)]

    a, b = draw(), draw()
    pa, pb = tf.placeholder(getattr(tf, dt), [None]), tf.placeholder(getattr(tf, dt), [None])
    feed = {pa: np.array(a, dt), pb: np.array(b, dt)}
    pool = [(pa, a, dt), (pb, b, dt)]
    for _ in range(r.randint(3, 8)):
        t, v, d = pool[-1 - r.randint(min(2, len(pool)))]
        ops = [o for o, ds in _INT_OPS.items() if d in ds]
        op = ops[r.randint(len(ops))]
        bits = np.iinfo(d).bits
        other = [u for u in pool if u[2] == d]
        u_t, u_v, _ = other[r.randint(len(other))]
        if op in ("floordiv", "floormod", "truncatediv", "truncatemod"):
            lo, hi = max(np.iinfo(d).min, -1000), min(int(np.iinfo(d).max), 1000)
            div = [x if x not in (0, -1) else 3 for x in
                   (int(y) for y in r.randint(lo, hi, size=len(v)))]
            u_t, u_v = tf.constant(np.array(div, d)), div
        if op in ("lshift", "rshift"):
            sh = [int(s) for s in r.randint(0, bits, size=len(v))]
            u_t, u_v = tf.constant(np.array(sh, d)), sh
        if op == "cast":
            d2 = _ALLI[r.randint(len(_ALLI))]
            pool.append((tf.cast(t, getattr(tf, d2)), [_wrap(x, d2) for x in v], d2))
            continue
        if op == "sum":
            pool.append((tf.reduce_sum(t, keepdims=True), [_wrap(sum(v), d)], d))
            continue
        if op == "cumsum":
            pool.append((tf.cumsum(t), [_wrap(sum(v[:i + 1]), d) for i in range(len(v))], d))
            continue
        if op in ("invert", "neg", "abs", "square"):
            u_t, u_v = t, v
        if len(u_v) != len(v) and len(u_v) != 1 and len(v) != 1:
            continue
        m = max(len(u_v), len(v))
        xs, ys = (v * m)[:m] if len(v) == 1 else v, (u_v * m)[:m] if len(u_v) == 1 else u_v
        fn, ref = {
            "add": (tf.add, lambda x, y: x + y), "sub": (tf.subtract, lambda x, y: x - y),
            "mul": (tf.multiply, lambda x, y: x * y), "and": (tf.bitwise.bitwise_and,
                                                                lambda x, y: x & y),
            "or": (tf.bitwise.bitwise_or, lambda x, y: x | y),
            "xor": (tf.bitwise.bitwise_xor, lambda x, y: x ^ y),
            "invert": (lambda x, y: tf.bitwise.invert(x), lambda x, y: ~x),
            "lshift": (tf.bitwise.left_shift, lambda x, y: x << y),
            "rshift": (tf.bitwise.right_shift, lambda x, y: x >> y),
            "neg": (lambda x, y: -x, lambda x, y: -x),
            "abs": (lambda x, y: tf.abs(x), lambda x, y: abs(x)),
            "floordiv": (tf.floordiv, lambda x, y: _tf_floordiv(x, y, d)),
            "floormod": (tf.floormod, lambda x, y: x % y),
            "truncatediv": (tf.truncatediv,
                            lambda x, y: (abs(x) // abs(y)) * (1 if (x < 0) == (y < 0) else -1)),
            "truncatemod": (tf.truncatemod, lambda x, y: x - y * int(x / y) if abs(x) < 2**52
                            else int(np.fmod(np.int64(x), np.int64(y)))),
            "max": (tf.maximum, max), "min": (tf.minimum, min),
            "square": (lambda x, y: tf.square(x), lambda x, y: x * x),
        }[op]
        pool.append((fn(t, u_t), [_wrap(ref(x, y), d) for x, y in zip(xs, ys)], d))
    return pool[-1], feed


@pytest.mark.parametrize("seed", range(24))
def test_fuzz_integer_programs_wrap_as_numpy(seed):
    (t, ref, d), feed = _int_program(1000 + seed)
    out = _run(t, feed)
    assert out.dtype == np.dtype(d)
    assert out.tolist() == ref


_FLOAT_OPS = ["add", "sub", "mul", "div", "max", "min", "abs", "neg", "square", "tanh",
              "sigmoid", "exp", "sqrt", "floor", "ceil", "round", "cast", "sum", "cumsum",
              "softmax", "clip", "mean"]


def _float_program(seed):
    """A random chain of float32/float64 ops: the tideflow graph's result and the chain in
    float64 NumPy, each op's result rounded to the op's type."""
    r = np.random.RandomState(seed)
    dt = ("float32", "float64")[r.randint(2)]
    n = r.randint(2, 20)
    a, b = r.randn(n) * 3, r.randn(n) * 3
    pa, pb = tf.placeholder(getattr(tf, dt), [None]), tf.placeholder(getattr(tf, dt), [None])
    feed = {pa: a.astype(dt), pb: b.astype(dt)}
    pool = [(pa, a.astype(dt).astype(np.float64), dt), (pb, b.astype(dt).astype(np.float64), dt)]
    for _ in range(r.randint(3, 8)):
        t, v, d = pool[-1 - r.randint(min(2, len(pool)))]
        op = _FLOAT_OPS[r.randint(len(_FLOAT_OPS))]
        same = [u for u in pool if u[2] == d and u[1].shape in (v.shape, (1,))]
        u_t, u_v, _ = same[r.randint(len(same))]
        if op == "div":
            c = (r.rand(len(v)) + 0.5) * r.choice([-1, 1], len(v))
            u_t, u_v = tf.constant(c.astype(d)), c.astype(d).astype(np.float64)
        with np.errstate(over="ignore"):
            fn, ref = {
                "add": (tf.add, lambda: v + u_v), "sub": (tf.subtract, lambda: v - u_v),
                "mul": (tf.multiply, lambda: v * u_v), "div": (tf.divide, lambda: v / u_v),
                "max": (tf.maximum, lambda: np.maximum(v, u_v)),
                "min": (tf.minimum, lambda: np.minimum(v, u_v)),
                "abs": (lambda x, y: tf.abs(x), lambda: np.abs(v)),
                "neg": (lambda x, y: -x, lambda: -v),
                "square": (lambda x, y: tf.square(x), lambda: v * v),
                "tanh": (lambda x, y: tf.tanh(x), lambda: np.tanh(v)),
                "sigmoid": (lambda x, y: tf.sigmoid(x), lambda: 1 / (1 + np.exp(-v))),
                "exp": (lambda x, y: tf.exp(tf.clip_by_value(x, -20.0, 20.0)),
                        lambda: np.exp(np.clip(v, -20, 20))),
                "sqrt": (lambda x, y: tf.sqrt(tf.abs(x)), lambda: np.sqrt(np.abs(v))),
                "floor": (lambda x, y: tf.floor(x), lambda: np.floor(v)),
                "ceil": (lambda x, y: tf.math.ceil(x), lambda: np.ceil(v)),
                "round": (lambda x, y: tf.round(x), lambda: np.round(v)),  # (half to even)
                "cast": (lambda x, y: tf.cast(x, tf.float64 if d == "float32" else tf.float32),
                         lambda: v),
                "sum": (lambda x, y: tf.reduce_sum(x, keepdims=True),
                        lambda: v.sum(keepdims=True)),
                "mean": (lambda x, y: tf.reduce_mean(x, keepdims=True),
                         lambda: v.mean(keepdims=True)),
                "cumsum": (lambda x, y: tf.cumsum(x, reverse=True),
                           lambda: np.cumsum(v[::-1])[::-1]),
                "softmax": (lambda x, y: tf.nn.softmax(x),
                            lambda: np.exp(v - v.max()) / np.exp(v - v.max()).sum()),
                "clip": (lambda x, y: tf.clip_by_value(x, -1.5, 2.5),
                         lambda: np.clip(v, -1.5, 2.5)),
            }[op]
        d2 = ("float64" if d == "float32" else "float32") if op == "cast" else d
        if op in ("add", "sub", "mul", "div", "max", "min") and u_v.shape != v.shape and \
                v.shape != (1,):
            continue
        with np.errstate(all="ignore"):
            pool.append((fn(t, u_t), ref().astype(d2).astype(np.float64), d2))
    return pool[-1], feed


@pytest.mark.parametrize("seed", range(16))
def test_fuzz_float_programs_against_float64(seed):
    (t, ref, d), feed = _float_program(2000 + seed)
    out = _run(t, feed)
    assert out.dtype == np.dtype(d) and out.shape == ref.shape
    # (each op's result was rounded to its type in the reference; the transcendental ones
    # differ from NumPy's in the last bits, which a later floor or round may see)
    scale = max(np.abs(ref[np.isfinite(ref)]).max(initial=0.0), 1.0)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("seed", range(4))
def test_fuzz_casts_between_every_numeric_type(seed):
    # in-range values: floats truncate toward zero, integers wrap, as NumPy's casts
    r = np.random.RandomState(3000 + seed)
    names = list(_ALLI) + ["float16", "float32", "float64"]
    for src in names:
        if src.startswith("float"):
            v = (r.randn(9) * 50).astype(src)
        else:
            info = np.iinfo(src)
            v = r.randint(max(info.min, -2**62), min(info.max, 2**62), 9, dtype=np.int64)
            v = v.astype(src)
        x = tf.placeholder(getattr(tf, src), [None])
        dsts = [d for d in names if not (src.startswith("float") and d.startswith("uint"))]
        outs = _run([tf.cast(x, getattr(tf, d)) for d in dsts], {x: v})
        for d, o in zip(dsts, outs):
            with np.errstate(all="ignore"):
                want = np.trunc(v).astype(d) if d in _ALLI else v.astype(d)
            assert o.dtype == np.dtype(d)
            np.testing.assert_array_equal(o, want, err_msg=f"{src} -> {d}")


def test_float64_exp_is_eigens_packet_exp():
    # TF 1.15's float64 Exp: Eigen's packet exp on groups of 4 (Cephes' rational form), the
    # last size % 4 by glibc's exp, denormal results flushed (NumPy's SIMD exp is a unit off
    # in the last place on ~15% of these)
    v = np.array([2.206137434425207, 12.1538559350389, 7.912405585307817, -1.0243825529379365,
                  3.017358013047477, -3.500895188449757, 9.28665503615656, -708.5,
                  2.206137434425207])
    x = tf.placeholder(tf.float64, [None])
    tf115 = [9.080574253811239, 189824.63192160768, 2730.952109150872, 0.35901807163741306,
             20.437225411565365, 0.030170363169379544, 10793.021384528976, 0.0,
             9.080574253811239]
    assert _run(tf.exp(x), {x: v}).tolist() == tf115
    assert _run(tf.exp(x * 1.0), {x: v}).tolist() == tf115  # (into its dying input)
    special = np.array([0.0, -0.0, 709.5, 710.0, -745.0, -800.0, np.inf, -np.inf, np.nan, 1.0,
                        2.0])
    out = _run(tf.exp(x), {x: special})
    np.testing.assert_array_equal(out, [1.0, 1.0, np.inf, np.inf, 0.0, 0.0, np.inf, 0.0,
                                        np.nan, 2.718281828459045, 7.38905609893065])


def test_float64_sigmoid_is_one_over_one_plus_packet_exp():
    # TF 1.15's float64 Sigmoid is Eigen's 1 / (1 + exp(-x)) with its packet exp on groups
    # of 4 (glibc's on the rest): a quarter of random values were a unit off in the last place
    x = tf.placeholder(tf.float64, [None])
    w = np.array([-2.2, 0.7, -0.31, 1.9, 3.3, -5.1, 0.05, -36.5, 2.2])
    tf115 = [0.09975048911968513, 0.6681877721681662, 0.42311473886795364, 0.8698915256370021,
             0.9644288107273639, 0.006059801491584117, 0.5124973964842103,
             1.4068617124461467e-16, 0.9002495108803148]
    assert _run(tf.sigmoid(x), {x: w}).tolist() == tf115
    out = _run(tf.sigmoid(x), {x: [-800.0, 800.0, -np.inf, np.inf, np.nan, -40.0, 37.0]})
    np.testing.assert_array_equal(out, [0.0, 1.0, 0.0, 1.0, np.nan, 4.248354255291589e-18, 1.0])


def test_dtype_limits_only_for_ints_float32_and_float64():
    # TF 1.15's DType.limits looks the NumPy type up in a table of ints, float32 and float64
    assert tf.float32.limits == (0, 1) and tf.float64.limits == (0, 1)
    assert tf.uint8.limits == (0, 255) and tf.int32.limits == (0, 2147483647)
    assert tf.int64_ref.limits == (0, 9223372036854775807)
    for d, key in [(tf.float16, "<class 'numpy.float16'>"), (tf.bool, "<class 'bool'>"),
                   (tf.complex64, "<class 'numpy.complex64'>"), (tf.string, "<class 'object'>"),
                   (tf.resource, "20")]:
        with pytest.raises(KeyError) as e:
            _ = d.limits
        assert str(e.value) == key


def test_float_floordiv_of_a_denormal_quotient_is_signed_zero():
    # TF 1.15's float FloorDiv is floor(x / y) on threads that flush denormals: -1 // FLT_MAX
    # floors -0 (measured: -0.0; NumPy floors the denormal to -1)
    for dt, big in [(tf.float32, 3.4e38), (tf.float64, 1.7e308)]:
        x = tf.placeholder(dt, [None])
        v = np.array([big, -big, 3.0, -2.5, 1e-30, -np.inf, 0.5, 1.0], dt.as_numpy_dtype)
        out = _run([-1 // x, -1e-30 // x], {x: v})
        want = np.array([-0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -2.0, -1.0], dt.as_numpy_dtype)
        want[4] = np.floor(np.array(-1, want.dtype) / v[4])  # (-1e30: IEEE's quotient)
        assert out[0].tolist() == want.tolist()
        assert np.signbit(out[0]).tolist() == np.signbit(want).tolist()
        assert out[1].tolist() == [-0.0, 0.0, -1.0, 0.0, -1.0, 0.0, -1.0, -1.0]
        assert np.signbit(out[1][:2]).tolist() == [True, False]
        assert float(_run(tf.floordiv(tf.constant(-1.0, dt), tf.constant(big, dt)))) == 0.0


def test_bfloat16_from_numpy_types_its_type_cannot_cast():
    # TF 1.15's bfloat16 NumPy type registers casts only from float16/32/64, int32, int64 and
    # complex: a NumPy array or scalar of another type is its ValueError, as a constant and fed
    ok = [np.float16, np.float32, np.float64, np.int32, np.int64, np.complex64]
    bad = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64, np.longlong]
    p = tf.placeholder(tf.bfloat16)
    with tf.Session() as s:
        for t in ok:
            assert tf.constant(np.array([1], t), dtype=tf.bfloat16).dtype == tf.bfloat16
            assert float(s.run(p, {p: t(2)})) == 2.0
        for t in bad:
            for fn in (lambda: tf.constant(np.array([1], t), dtype=tf.bfloat16),
                       lambda: tf.convert_to_tensor(t(1), dtype=tf.bfloat16),
                       lambda: s.run(p, {p: np.array([1], t)})):
                with pytest.raises(ValueError, match="^No cast function available.$"):
                    fn()
    # Python values take any route
    assert tf.constant([True, 3], dtype=tf.bfloat16).dtype == tf.bfloat16


def test_python_complex_floordiv_and_mod_of_a_tensor_raise_as_python_37():
    # TF 1.15 runs on Python 3.7, whose complex // and % raise TypeError before a reflected
    # operator is tried (measured: every dtype, float and complex tensors too)
    for dt in (tf.int32, tf.float32, tf.complex64):
        x = tf.placeholder(dt, [None])
        with pytest.raises(TypeError, match=r"^can't take floor of complex number.$"):
            _ = 1j // x
        with pytest.raises(TypeError, match=r"^can't mod complex numbers.$"):
            _ = 1j % x
    x = tf.placeholder(tf.complex64, [None])
    assert (1j + x).dtype == tf.complex64 and (1j / x).dtype == tf.complex64
