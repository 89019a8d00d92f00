"""Op-table rows for control flow: If, While, FakeParam and the TensorList ops."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import list_ops
from tideflow.ops.cond import cond, fake_param
from tideflow.ops.switch_merge_ops import DEAD
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop


def _mat(dt):
    return np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [0.1, 0.2, 0.3]], dtype=dt)


def _if(x):
    return cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x) * x, lambda: x * 2.0)


def _if_ref(x):
    return np.sin(x) * x if x.sum() > 0 else x * 2.0


def _while(x):
    return while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x + 1.0), [0, x])[1]


def _while_ref(x):
    y = x
    for _ in range(3):
        y = y * x + 1.0
    return y


def _read_write(x):
    # TF 1.x rules: an index is written once, and reading it again needs clear_after_read=False
    n = tf.shape(x)[0]
    ta = TensorArray(x.dtype, size=n + 1, clear_after_read=False).unstack(x)
    return ta.write(n, ta.read(1) * 2.0).stack()


def _read_write_ref(x):
    return np.concatenate([x, x[1:2] * 2.0])


def _gather_scatter(x):
    ta = TensorArray(x.dtype, size=3).scatter([2, 0, 1], x)
    return ta.gather([1, 2])


def _concat_split(x):
    ta = TensorArray(x.dtype, size=2, infer_shape=False).split(tf.reshape(x, [9]), [4, 5])
    return ta.concat() * 3.0


def _check_push_pop():
    with tf.Graph().as_default():
        lst = list_ops.empty_tensor_list([2], tf.float32)
        lst = list_ops.push_back(lst, tf.constant([1.0, 2.0]))
        lst = list_ops.push_back(lst, tf.constant([3.0, 4.0]))
        rest, last = list_ops.pop_back(lst, tf.float32, [2])
        assert last.get_shape().as_list() == [2]
        n, n_rest = list_ops.length(lst), list_ops.length(rest)
        with tf.Session() as s:
            got = s.run([last, n, n_rest])
        assert got[0].tolist() == [3.0, 4.0] and got[1:] == [2, 1]
        with tf.Session() as s:
            empty = list_ops.pop_back(list_ops.empty_tensor_list([2], tf.float32), tf.float32)[1]
            try:
                s.run(empty)
            except tf.errors.InvalidArgumentError as e:
                assert "empty list" in str(e)
            else:
                raise AssertionError("popping an empty list must fail")


def _check_add_zeros():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        a = list_ops.from_tensor(x)
        b = list_ops.set_item(list_ops.reserve([2], 2, tf.float32), 1, tf.constant([10.0, 10.0]))
        total = list_ops.stack(list_ops.add_n([a, b, list_ops.zeros_like(a)]), tf.float32)
        with tf.Session() as s:
            assert s.run(total).tolist() == [[1.0, 2.0], [13.0, 14.0]]


def _check_fake_param():
    with tf.Graph().as_default():
        t = fake_param(tf.float32, [2, 3])
        assert t.op.type == "FakeParam" and t.get_shape().as_list() == [2, 3]
        with tf.Session() as s:
            # the other branch's stand-in: TF's dead tensor (ops reading it do not run)
            assert s.run(t) is DEAD


CASES = [
    Case("If", _if, [_mat], _if_ref),
    Case("If", lambda x: _if(-x * x - 1.0), [_mat], lambda x: (-x * x - 1.0) * 2.0,
         name="If_else"),
    Case("While", _while, [_mat], _while_ref),
    Case(("TensorListFromTensor", "TensorListGetItem", "TensorListSetItem", "TensorListStack",
          "TensorListReserve"), _read_write, [_mat], _read_write_ref, name="TensorArray"),
    Case(("TensorListGather", "TensorListScatterIntoExistingList"), _gather_scatter, [_mat],
         lambda x: x[[2, 0]], name="TensorArray_gather_scatter"),
    Case(("TensorListConcatV2", "TensorListSplit"), _concat_split, [_mat],
         lambda x: x.reshape(9) * 3.0, name="TensorArray_concat_split"),
    Case(("EmptyTensorList", "TensorListPushBack", "TensorListPopBack", "TensorListLength"),
         check=_check_push_pop, grad=False),
    Case(("_TensorListAddN", "_TensorListZerosLike"), check=_check_add_zeros, grad=False),
    Case("FakeParam", check=_check_fake_param, grad=False),
]
