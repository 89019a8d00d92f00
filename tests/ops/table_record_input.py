"""Op-table row for RecordInput (stateful: the row runs its own check; the semantics are in
tests/test_lib_cnn_benchmarks.py)."""

import os
import tempfile

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import data_flow_ops as dfo


def _check_record_input():
    records = [f"record-{i}".encode() for i in range(6)]
    with tempfile.TemporaryDirectory() as d:
        with tf.python_io.TFRecordWriter(os.path.join(d, "part-0")) as w:
            for r in records:
                w.write(r)
        with tf.Graph().as_default():
            out = dfo.RecordInput(os.path.join(d, "part-*"), batch_size=3, buffer_size=2,
                                  seed=5).get_yield_op()
            assert out.op.type == "RecordInput"
            assert out.dtype == tf.string and out.get_shape().as_list() == [3]
            with tf.Session() as s:
                got = np.concatenate([s.run(out), s.run(out)])
            assert got.shape == (6,)
            assert sorted(got.tolist()) == records


CASES = [Case("RecordInput", name="RecordInput", check=_check_record_input)]
