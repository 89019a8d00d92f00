"""The HistogramSummary kernel against a plain reference (TF's per-value upper_bound over its
1551 limits, in float64) on hard data: signed zeros, subnormals, values on every limit and
their float32 neighbours, the float32 extremes; and its hand-written wire format against the
protobuf library's serialization, byte for byte."""

import math

import ml_dtypes
import numpy as np
import pytest

import tideflow as tf
from tests.summary.test_summary_ops import _LIMITS, _ref_histogram
from tideflow.protos import summary_pb2
from tideflow.summary import summary_ops

_F32 = np.finfo(np.float32)


def _ref_counts(x):
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    return np.bincount(np.searchsorted(_LIMITS, x, side="right"), minlength=len(_LIMITS))


def _on_limits_f32():
    """Every limit float32 can hold, rounded both ways, with one ulp either side."""
    finite = _LIMITS[np.abs(_LIMITS) <= float(_F32.max)]
    with np.errstate(over="ignore"):
        near = finite.astype(np.float32)
    up = np.nextafter(near, np.float32(np.inf))
    down = np.nextafter(near, np.float32(-np.inf))
    out = np.concatenate([near, up, down, np.nextafter(up, np.float32(np.inf)),
                          np.nextafter(down, np.float32(-np.inf))])
    return out[np.isfinite(out)]


def _hard_f32(rng, n):
    wide = rng.standard_normal(n) * 10.0 ** rng.uniform(-45, 38, n)
    with np.errstate(over="ignore"):
        wide = wide.astype(np.float32)
    wide[~np.isfinite(wide)] = _F32.max
    specials = np.array([0.0, -0.0, _F32.max, -_F32.max, _F32.tiny, -_F32.tiny,
                         _F32.smallest_subnormal, -_F32.smallest_subnormal, 1e-12, -1e-12,
                         1e20, -1e20, 1.0, -1.0], dtype=np.float32)
    return rng.permutation(np.concatenate([wide, specials, _on_limits_f32()]))


DATASETS = {
    "weights": lambda rng: rng.uniform(-0.07, 0.07, 300_000).astype(np.float32),
    "hard": lambda rng: _hard_f32(rng, 50_000),
    "zeros": lambda rng: np.array([0.0, -0.0] * 500, dtype=np.float32),
    "one negative": lambda rng: np.array([-3.5], dtype=np.float32),
    "subnormals": lambda rng: (rng.standard_normal(2000) * 1e-42).astype(np.float32),
    "huge": lambda rng: (rng.standard_normal(2000) * 1e36).astype(np.float32),
}


def _tf_extremes(values):
    """TF's Histogram::Add loop for min and max: a later equal value (0.0 after -0.0, or the
    reverse) does not replace the first."""
    lo, hi = np.finfo(np.float64).max, -np.finfo(np.float64).max
    for v in values.tolist():
        lo = min(lo, v)  # keeps lo unless v < lo, as TF's `if (min_ > value)`
        hi = max(hi, v)
    return lo, hi


def _check_against_reference(x):
    lo, hi, num, total, squares, counts = summary_ops.histogram_counts(x)
    x64 = np.asarray(x, dtype=np.float64).reshape(-1)
    np.testing.assert_array_equal(counts, _ref_counts(x64))
    assert (lo, hi, num) == (x64.min(), x64.max(), x64.size)
    if x64.size <= 5000:
        tf_lo, tf_hi = _tf_extremes(x64)
        assert (math.copysign(1.0, lo), math.copysign(1.0, hi)) == (
            math.copysign(1.0, tf_lo), math.copysign(1.0, tf_hi))
    scale = math.fsum(np.abs(x64).tolist())
    assert abs(total - math.fsum(x64.tolist())) <= 1e-13 * scale
    with np.errstate(over="ignore"):
        exact_squares = math.fsum((x64 * x64).tolist())
    if math.isinf(exact_squares):  # a double square overflows, as in TF's double loop
        assert squares == math.inf
    else:
        # float32 squares summed in float32 rows (summary_ops._sums): a few float32 ulps
        assert abs(squares - exact_squares) <= 1e-7 * exact_squares


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_float32_counts_match_reference(name):
    _check_against_reference(DATASETS[name](np.random.RandomState(7)))


@pytest.mark.parametrize("dtype", [np.float64, np.float16, ml_dtypes.bfloat16, np.int32,
                                   np.int64, np.uint8])
def test_other_dtypes_match_reference(dtype):
    rng = np.random.RandomState(3)
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        x = rng.randint(max(info.min, -2**40), min(info.max, 2**40), 5000, dtype=np.int64)
        x = np.concatenate([x, [0, info.max, info.min]]).astype(dtype)
    elif dtype == np.float64:
        x = np.concatenate([rng.standard_normal(5000) * 10.0 ** rng.uniform(-300, 300, 5000),
                            _LIMITS[1:-1], np.nextafter(_LIMITS[1:-1], np.inf),
                            np.nextafter(_LIMITS[1:-1], -np.inf), [0.0, -0.0, 5e-324]])
    else:
        x = (rng.standard_normal(5000) * 10.0 ** rng.uniform(-6, 4, 5000)).clip(-6e4, 6e4)
        x = np.concatenate([x, [0.0, -0.0]]).astype(dtype)
    _check_against_reference(x)


def _zeros_then(first, rest, sign):
    """``first`` zero, then ``rest`` zeros of the other sign among values of ``sign``."""
    rng = np.random.RandomState(5)
    tail = np.concatenate([np.full(rest, -first), sign * rng.uniform(1, 2, 3000)])
    return [first, *rng.permutation(tail).tolist()]


@pytest.mark.parametrize("values", [
    [0.0, -0.0], [-0.0, 0.0], [1.0, -0.0, 0.0], [-1.0, 0.0, -0.0, 2.0], [-0.0, -2.0, 0.0],
    [-0.0], _zeros_then(0.0, 999, 1.0), _zeros_then(-0.0, 999, 1.0),
    _zeros_then(0.0, 999, -1.0), _zeros_then(-0.0, 999, -1.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zero_extremes_follow_tf(values, dtype):
    x = np.array(values, dtype=dtype)
    lo, hi = summary_ops.histogram_counts(x)[:2]
    tf_lo, tf_hi = _tf_extremes(x.astype(np.float64))
    assert (lo, hi) == (tf_lo, tf_hi)
    assert (math.copysign(1.0, lo), math.copysign(1.0, hi)) == (
        math.copysign(1.0, tf_lo), math.copysign(1.0, tf_hi))


def test_float32_limits_are_exact_in_float64_terms():
    # the float32 thresholds split float32 data exactly where the float64 limits do
    x = _on_limits_f32()
    counts = summary_ops.histogram_counts(x)[-1]
    np.testing.assert_array_equal(counts, _ref_counts(x.astype(np.float64)))


@pytest.mark.parametrize("values, word", [
    ([1.0, np.inf, np.nan], "Infinity"),
    ([1.0, np.nan, -np.inf], "Nan"),
    ([-np.inf], "Infinity"),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [4, 400_000])
def test_first_non_finite_value_names_the_error(values, word, dtype, size):
    x = np.zeros(size, dtype=dtype)
    x[size // 4:size // 4 + len(values)] = values
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"^{word} in summary histogram for: layer/w$"):
        summary_ops.histogram_counts(x, "layer/w")


def _protobuf_summary(tag, lo, hi, num, total, squares, counts):
    """The same Summary built field by field with the protobuf library."""
    nonzero = counts > 0
    keep = nonzero | np.append(nonzero[1:], True)
    histo = summary_pb2.HistogramProto(min=lo, max=hi, num=num, sum=total, sum_squares=squares,
                                       bucket_limit=_LIMITS[keep].tolist(),
                                       bucket=counts[keep].astype(np.float64).tolist())
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, histo=histo)])


@pytest.mark.parametrize("tag", ["layer1/weights", "", "é/ü 1"])
@pytest.mark.parametrize("values", [
    np.zeros(0, np.float32), np.array([0.0], np.float32), np.array([-0.0], np.float32),
    np.array([2.5], np.float32), np.array([-1e-13, 1e-13, 7.0]),
    np.random.RandomState(0).uniform(-0.07, 0.07, 100_000).astype(np.float32),
], ids=["empty", "zero", "minus-zero", "one", "mixed", "weights"])
def test_wire_format_is_protobufs(tag, values):
    fields = summary_ops.histogram_counts(values)
    data = summary_ops._summary_value_bytes(tag, 5, summary_ops._histogram_proto_bytes(*fields))
    expected = _protobuf_summary(tag, *fields)
    assert data == expected.SerializeToString()
    assert summary_pb2.Summary.FromString(data) == expected


def test_kernel_output_is_tfs_histogram():
    # through a session: TF's bucket layout (empty runs collapsed), min/max/num as TF
    x = DATASETS["hard"](np.random.RandomState(11))
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            s = summary_pb2.Summary.FromString(sess.run(tf.summary.histogram("h", p), {p: x}))
    (v,) = s.value
    assert v.tag == "h"
    assert (list(v.histo.bucket_limit), list(v.histo.bucket)) == _ref_histogram(x)
    assert (v.histo.min, v.histo.max, v.histo.num) == (float(x.min()), float(x.max()), x.size)
