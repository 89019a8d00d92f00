"""Op-table rows for the session-7 contrib ops: the memory statistics (BytesInUse,
MaxBytesInUse, BytesLimit) and skip-gram candidates (SkipGramGenerateCandidates), each
stateful and not differentiable, checked by hand-derived expectations."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import memory_stats_ops, skip_gram_ops


def _check_memory(fn, op_type):
    def check():
        with tf.Graph().as_default():
            t = fn()
            assert t.op.type == op_type and t.dtype == tf.int64 and t.get_shape().ndims == 0
            x = tf.placeholder(tf.float64, [4])
            (g,) = tf.gradients(tf.cast(t, tf.float64) + tf.reduce_sum(x), x)
            with tf.Session() as s:
                got, dx = s.run([t, g], {x: np.zeros(4)})
        assert got.dtype == np.int64 and got > 0
        np.testing.assert_array_equal(dx, np.ones(4))  # the op itself adds no gradient

    return check


def _pairs(n, skips, start, end, emit_self):
    tokens, labels = [], []
    for i, k in zip(range(start, end), skips):
        for j in range(i - k, i + k + 1):
            if start <= j < end and (j != i or emit_self):
                tokens.append(i)
                labels.append(j)
    return np.array(tokens), np.array(labels)


def _check_skip_gram():
    values = np.arange(10, 20)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int64, [None])
        tokens, labels = skip_gram_ops.skip_gram_sample(x, min_skips=2, max_skips=2, start=1,
                                                        limit=6, emit_self_as_target=True)
        assert tokens.op.type == "SkipGramGenerateCandidates"
        assert tokens.get_shape().as_list() == [None] and tokens.dtype == tf.int64
        with tf.Session() as s:
            got_t, got_l = s.run([tokens, labels], {x: values})
    want_t, want_l = _pairs(10, [2] * 6, 1, 7, True)
    np.testing.assert_array_equal(got_t, values[want_t])
    np.testing.assert_array_equal(got_l, values[want_l])


CASES = [
    Case("BytesInUse", check=_check_memory(memory_stats_ops.BytesInUse, "BytesInUse")),
    Case("MaxBytesInUse", check=_check_memory(memory_stats_ops.MaxBytesInUse,
                                              "MaxBytesInUse")),
    Case("BytesLimit", check=_check_memory(memory_stats_ops.BytesLimit, "BytesLimit")),
    Case("SkipGramGenerateCandidates", check=_check_skip_gram),
]
