"""Op-table rows for the random ops: values, static shapes, dtypes, seeding and statistics."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case


def _run_twice(build, seed=1234):
    """Builds the same program in two graphs with a graph seed; returns both first results and
    a second run of the first session (which must differ)."""
    out = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(seed)
            t = build()
            with tf.Session() as s:
                out.append((t, s.run(t), s.run(t)))
    return out


def _check_common(build, dtype, shape):
    (t, a1, a2), (_, b1, _) = _run_twice(build)
    assert t.dtype == dtype, (t.dtype, dtype)
    assert t.get_shape().is_compatible_with(a1.shape)
    assert tuple(a1.shape) == tuple(shape), (a1.shape, shape)
    assert tf.as_dtype(a1.dtype) == dtype
    np.testing.assert_array_equal(a1, b1)  # same graph seed -> same numbers
    if a1.size > 4:
        assert not np.array_equal(a1, a2)  # the sequence advances across runs
    return a1


def _float_dtypes(op_fn, op_type, stats):
    def check():
        for dt in (tf.float16, tf.bfloat16, tf.float32, tf.float64):
            a = _check_common(lambda dt=dt: op_fn([100, 50], dtype=dt), dt, (100, 50))
            stats(np.asarray(a, np.float64))
        with tf.Graph().as_default() as g:
            t = op_fn([100, 50])
            assert any(o.type == op_type for o in g.get_operations())
            # a shape from a placeholder: rank known, dims not
            p = tf.placeholder(tf.int32, [2])
            u = op_fn(p)
            assert u.get_shape().as_list() == [None, None]
            with tf.Session() as s:
                assert s.run(u, {p: [3, 4]}).shape == (3, 4)
                first = s.run(t)
            with tf.Session() as s:  # no seeds: another session gives other numbers
                assert not np.array_equal(first, s.run(t))

    return check


def _uniform_stats(a):
    assert a.min() >= 0.0 and a.max() < 1.0
    assert abs(a.mean() - 0.5) < 0.05 and abs(a.std() - np.sqrt(1 / 12)) < 0.03


def _normal_stats(a):
    assert abs(a.mean()) < 0.1 and abs(a.std() - 1.0) < 0.1


def _truncated_stats(a):
    assert np.abs(a).max() <= 2.0 + 1e-2
    assert abs(a.mean()) < 0.1 and abs(a.std() - 0.88) < 0.08


def _check_uniform_int():
    for dt in (tf.int32, tf.int64):
        a = _check_common(lambda dt=dt: tf.random_uniform([1000], -3, 7, dtype=dt), dt, (1000,))
        assert a.min() >= -3 and a.max() <= 6 and len(np.unique(a)) == 10
    with tf.Graph().as_default():
        t = tf.random_uniform([2], 0, 10, dtype=tf.int32)
        assert t.op.type == "RandomUniformInt"
        bad = tf.random_uniform([2], 5, 5, dtype=tf.int32)
        with tf.Session() as s:
            try:
                s.run(bad)
                raise AssertionError("minval >= maxval must fail")
            except tf.errors.InvalidArgumentError as e:
                assert "Need minval < maxval, got 5 >= 5" in str(e)


def _check_shuffle():
    x = np.arange(40).reshape(20, 2)
    for dt in (tf.int32, tf.float32, tf.string):
        value = x.astype(dt.as_numpy_dtype) if dt != tf.string else x.astype(bytes).astype(object)
        a = _check_common(lambda value=value, dt=dt: tf.random_shuffle(tf.constant(value, dt)),
                          dt, (20, 2))
        assert sorted(a.tolist()) == sorted(value.tolist()) and a.tolist() != value.tolist()
    with tf.Graph().as_default():
        c = tf.constant(x)
        t = tf.random_shuffle(c)
        assert t.get_shape().as_list() == [20, 2]
        with tf.Session() as s:
            s.run(t)
            np.testing.assert_array_equal(s.run(c), x)  # the input is not shuffled in place


def _check_multinomial():
    with np.errstate(divide="ignore"):
        logits = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]]))
    for out_dt in (tf.int64, tf.int32):
        a = _check_common(
            lambda out_dt=out_dt: tf.multinomial(tf.constant(logits, tf.float32), 4000,
                                                 output_dtype=out_dt), out_dt, (2, 4000))
        freq = np.bincount(a[0], minlength=3) / 4000
        np.testing.assert_allclose(freq, [0.1, 0.2, 0.7], atol=0.03)
        assert set(np.unique(a[1])) <= {0, 1}
    with tf.Graph().as_default():
        t = tf.multinomial(tf.placeholder(tf.float32, [None, 3]), 5)
        assert t.dtype == tf.int64 and t.get_shape().as_list() == [None, 5]


def _check_gamma():
    for dt in (tf.float32, tf.float64):
        a = _check_common(lambda dt=dt: tf.random_gamma([5000], [1.0, 4.0], dtype=dt), dt,
                          (5000, 2))
        np.testing.assert_allclose(a.mean(axis=0), [1.0, 4.0], rtol=0.08)
        assert a.min() > 0
    with tf.Graph().as_default():
        t = tf.random_gamma([3, 2], tf.placeholder(tf.float32, [4]), beta=2.0)
        assert t.get_shape().as_list() == [3, 2, 4]
        assert any(o.type == "RandomGamma" for o in tf.get_default_graph().get_operations())


CASES = [
    Case("RandomUniform", check=_float_dtypes(tf.random_uniform, "RandomUniform",
                                              _uniform_stats), grad=False),
    Case("RandomStandardNormal", check=_float_dtypes(tf.random_normal, "RandomStandardNormal",
                                                     _normal_stats), grad=False),
    Case("TruncatedNormal", check=_float_dtypes(tf.truncated_normal, "TruncatedNormal",
                                                _truncated_stats), grad=False),
    Case("RandomUniformInt", check=_check_uniform_int, grad=False),
    Case("RandomShuffle", check=_check_shuffle, grad=False),
    Case("Multinomial", check=_check_multinomial, grad=False),
    Case("RandomGamma", check=_check_gamma, grad=False),
]
