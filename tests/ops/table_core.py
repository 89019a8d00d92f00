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
         [np.arange(6.0).reshape(2, 3)], lambda x: x, grad=False, dtypes=(tf.float32,)),
]
