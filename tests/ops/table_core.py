"""Op-table rows for the core ops: Const, Placeholder, PlaceholderWithDefault."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

_ALL = (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int8, tf.int16, tf.int32, tf.int64,
        tf.uint8, tf.uint16, tf.complex64, tf.complex128, tf.bool)


def _check_const():
    for dt in _ALL + (tf.string,):
        value = np.arange(6).reshape(2, 3) % 2 if dt != tf.string else [[b"a", b"bc"]]
        c = tf.constant(value, dtype=dt)
        with tf.Session() as s:
            got = s.run(c)
        assert c.dtype == dt
        assert c.get_shape().as_list() == list(np.shape(got))
        want = np.asarray(value, dtype=dt.as_numpy_dtype)
        assert got.dtype == want.dtype and got.tolist() == want.tolist()


CASES = [
    Case("Const", check=_check_const, grad=False),
    Case("Placeholder", lambda x: x, [np.arange(6.0).reshape(2, 3)], lambda x: x,
         dtypes=_ALL, grad=False),
    Case("PlaceholderWithDefault",
         lambda x: tf.identity(tf.placeholder_with_default(x, shape=[None, 3])),
         [np.arange(6.0).reshape(2, 3)], lambda x: x, dtypes=(tf.float32,)),
]


def _check_broadcast_gradient_args():
    from tideflow.framework import ops as _ops

    # (equal shapes reduce nothing: TF 1.15 measured [] and [] for [1] and [1])
    for s0, s1, w0, w1 in [([2, 3], [3], [], [0]), ([2, 1, 4], [5, 1], [1], [0, 2]),
                           ([1], [1], [], []), ([], [2, 2], [0, 1], [])]:
        a = tf.placeholder(tf.int32, [None])
        b = tf.placeholder(tf.int32, [None])
        r0, r1 = _ops.apply_op("BroadcastGradientArgs", [a, b])._outputs
        with tf.Session() as s:
            g0, g1 = s.run([r0, r1], {a: s0, b: s1})
        assert g0.tolist() == w0 and g1.tolist() == w1, (s0, s1, g0, g1)
        assert g0.dtype == np.int32


CASES.append(Case("BroadcastGradientArgs", check=_check_broadcast_gradient_args, grad=False))
