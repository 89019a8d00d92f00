"""Op-table row of StridedSliceAssign: ``v[spec].assign(value)`` on a ref variable."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case


def _check_strided_slice_assign():
    with tf.Graph().as_default():
        init = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        v = tf.Variable(init)
        a = v[1, ::2, 1:3].assign([[-1.0, -2.0], [-3.0, -4.0]])
        b = v[..., -1].assign(tf.zeros([2, 3]))
        c = v[0, None, 0, :2].assign([[7.0, 8.0]])  # a new axis in the spec
        bad = v[0, 0].assign([1.0, 2.0])
        assert a.get_shape().as_list() == [2, 3, 4]
        with tf.Session() as s:
            s.run(v.initializer)
            want = init.copy()
            want[1, ::2, 1:3] = [[-1, -2], [-3, -4]]
            np.testing.assert_array_equal(s.run(a), want)
            want[..., -1] = 0
            np.testing.assert_array_equal(s.run(b), want)
            want[0, 0, :2] = [7, 8]
            np.testing.assert_array_equal(s.run(c), want)
            np.testing.assert_array_equal(s.run(v), want)
            # (TF 1.15's kernel: Unimplemented, "Automatic broadcasting not yet implemented")
            with pytest.raises(tf.errors.UnimplementedError,
                               match=r"sliced l-value shape \[4\] does not match r-value shape "
                                     r"\[2\]"):
                s.run(bad)


CASES = [
    Case("StridedSliceAssign", check=_check_strided_slice_assign, name="StridedSliceAssign"),
]
