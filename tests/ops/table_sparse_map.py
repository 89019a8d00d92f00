"""Op-table rows of the SparseTensorsMap ops (ops/sparse_map_ops.py), which let queues batch
SparseTensors: stored by handle, then taken back with a leading batch dimension."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import sparse_map_ops


def _check_store_and_take():
    with tf.Graph().as_default():
        a = tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 2])
        b = tf.SparseTensor([[1, 3]], [5.0], [2, 4])
        ha = sparse_map_ops.add_sparse_to_tensors_map(a, shared_name="m")
        hb = sparse_map_ops.add_sparse_to_tensors_map(b, shared_name="m")
        many = sparse_map_ops.add_many_sparse_to_tensors_map(a, shared_name="m")
        handles = tf.placeholder(tf.int64, [None])
        taken = sparse_map_ops.take_many_sparse_from_tensors_map(ha.op, handles, rank=2)
        assert taken.indices.get_shape().as_list() == [None, 3]
        with tf.Session() as s:
            h = s.run([ha, hb])
            got = s.run(taken, {handles: h})
            # the batch's dense shape is the largest of each dimension
            assert got.dense_shape.tolist() == [2, 3, 4]
            assert got.indices.tolist() == [[0, 0, 1], [0, 2, 0], [1, 1, 3]]
            assert got.values.tolist() == [1.0, 2.0, 5.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Unable to find"):
                s.run(taken, {handles: h[:1]})  # taking a handle removes it
            rows = s.run(many)
            assert len(rows) == 3
            got = s.run(taken, {handles: rows[::-1]})
            assert got.dense_shape.tolist() == [3, 2]
            assert got.indices.tolist() == [[0, 0], [2, 1]]
            assert got.values.tolist() == [2.0, 1.0]
            assert got.values.dtype == np.float32


CASES = [
    Case(("AddSparseToTensorsMap", "AddManySparseToTensorsMap",
          "TakeManySparseFromTensorsMap"), check=_check_store_and_take, name="SparseTensorsMap"),
]
