"""What running DeepMind's Sonnet 1.x (1.36) on tideflow needed, pinned with plain TF 1.x calls:
the framework names a module library registers itself through (``ops.register_proto_function``
for its module-info collection), ``tf.contrib.eager``'s graph-mode names (``defun``), and the API
differences its modules and tests showed."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# import-time names
# ------------------------------------------------------------------------------------------

def test_ops_module_registers_collection_proto_functions():
    from tideflow.protos import meta_graph_pb2
    from tideflow.python.framework import ops

    def to_proto(value, export_scope=None):
        return meta_graph_pb2.CollectionDef()

    ops.register_proto_function("my_lib_modules", proto_type=meta_graph_pb2.CollectionDef,
                                to_proto=to_proto, from_proto=None)
    assert ops.get_to_proto_function("my_lib_modules") is to_proto
    assert ops.get_collection_proto_type("my_lib_modules") is meta_graph_pb2.CollectionDef
    assert ops.get_from_proto_function("my_lib_modules") is None


def test_contrib_eager_defun_in_graph_mode():
    from tideflow.contrib.eager.python import tfe

    assert tfe is tf.contrib.eager
    w = tf.Variable([[2.0]])

    @tf.contrib.eager.defun
    def scale(x):
        return tf.matmul(x, w)

    y = scale(tf.constant([[3.0]]))
    assert y.shape.as_list() == [1, 1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y), [[6.0]])
    assert tf.contrib.eager.in_graph_mode() and not tf.contrib.eager.executing_eagerly()
