"""Profiling and session driving beyond run() as TF 1.15 programs see them: tf.profiler views,
traced steps, partial runs, callables, session configs and lifecycles."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors


def test_list_devices_on_a_closed_session_is_cancelled():
    # TF 1.15: sess.list_devices() after close() raises CancelledError "Session has been closed."
    with tf.Graph().as_default():
        sess = tf.Session()
        assert [d.device_type for d in sess.list_devices()] == ["CPU"]
        sess.close()
        with pytest.raises(errors.CancelledError, match="^Session has been closed.$"):
            sess.list_devices()


def test_op_view_groups_ops_in_multi_graph_nodes():
    # TF 1.15: the op view returns MultiGraphNodeProto nodes whose graph_nodes are the
    # grouped ops' GraphNodeProto, by name (aa 64, mm 256, zz 128 flops)
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.ones((4, 4), np.float32))
        tf.matmul(x, x, name="zz")
        tf.matmul(tf.ones([2, 4]), x, name="aa")
        tf.matmul(tf.ones([8, 4]), x, name="mm")
    opts = tf.profiler.ProfileOptionBuilder.float_operation()
    opts["output"] = "none"
    root = tf.profiler.profile(g, cmd="op", options=opts)
    assert type(root).__name__ == "MultiGraphNodeProto"
    assert isinstance(root, tf.profiler.MultiGraphNodeProto)
    matmul = root.children[0]
    assert type(matmul).__name__ == "MultiGraphNodeProto"
    assert (matmul.name, matmul.total_float_ops) == ("MatMul", 448)
    nodes = [(type(n).__name__, n.name, n.float_ops, n.total_float_ops)
             for n in matmul.graph_nodes]
    assert nodes == [("GraphNodeProto", "aa", 64, 64), ("GraphNodeProto", "mm", 256, 256),
                     ("GraphNodeProto", "zz", 128, 128)]
    scope = tf.profiler.profile(g, cmd="scope", options=opts)
    assert type(scope).__name__ == "GraphNodeProto"
