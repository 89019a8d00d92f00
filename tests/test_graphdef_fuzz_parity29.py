"""GraphDef / MetaGraphDef parity with TF 1.15 (session 29, helper h327), found by building
seeded random graphs (element-wise ops, matmul, conv, pooling, reductions, reshapes, variables
of both kinds, optimizers, layers, scopes, devices, colocation) in TF 1.15 and tideflow and
comparing the GraphDefs node by node (names, ops, inputs, devices, every attr), the
MetaGraphDefs (collections, saver_def, stripped op list) and the values: the minimal cases,
with TF 1.15's output as measured; and a small seeded fuzz run of round-trip invariants
(as_graph_def -> import_graph_def -> as_graph_def, export/import_meta_graph) without TF."""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- colocation attrs -------------------------------------------------------------------------

def test_sum_gradient_shape_ops_colocate_with_the_shape():
    # TF 1.15's _SumGrad builds the reduced shape and tile multiples of an input of unknown
    # shape under colocate_with(Shape) (measured: their _class is the Shape's group)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    tf.gradients(tf.reduce_sum(x, axis=1), x)
    g = tf.get_default_graph()
    grp = {n: g.get_operation_by_name("gradients/Sum_grad/" + n).colocation_groups()
           for n in ("Shape", "Size", "DynamicStitch", "floordiv", "Reshape", "Tile")}
    shape = [b"loc:@gradients/Sum_grad/Shape"]
    assert grp == {"Shape": shape, "Size": shape, "DynamicStitch": shape, "floordiv": shape,
                   "Reshape": [b"loc:@gradients/Sum_grad/Reshape"],
                   "Tile": [b"loc:@gradients/Sum_grad/Tile"]}
    assert g.get_operation_by_name("gradients/Sum_grad/Size").get_attr("_class") == shape


def test_resource_variable_colocation_is_its_handle():
    # TF 1.15's _op_to_colocate_with: a resource variable colocates with its VarHandleOp
    # (loc:@v), so do its slots, their reads and the update op (measured)
    v = tf.get_variable("v", [3], use_resource=True)
    with tf.colocate_with(v):
        tf.constant(1.0, name="c")
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(v * v))
    g = tf.get_default_graph()
    groups = {n: g.get_operation_by_name(n).colocation_groups() for n in (
        "v", "v/Read/ReadVariableOp", "c", "v/Momentum", "v/Momentum/Read/ReadVariableOp",
        "v/Momentum/Initializer/zeros", "Momentum/update_v/ResourceApplyMomentum",
        "v/Momentum/Assign")}
    at_v = [b"loc:@v"]
    assert groups == {"v": at_v, "v/Read/ReadVariableOp": [b"loc:@v/Read/ReadVariableOp"],
                      "c": at_v, "v/Momentum": at_v, "v/Momentum/Read/ReadVariableOp": at_v,
                      "v/Momentum/Initializer/zeros": at_v,
                      "Momentum/update_v/ResourceApplyMomentum": at_v,
                      "v/Momentum/Assign": [b"loc:@v/Momentum/Assign"]}
    assert "_class" not in g.get_operation_by_name("v/Read/ReadVariableOp").node_def.attr


# ---- VariableDefs ---------------------------------------------------------------------------

def test_statistics_and_metric_variables_are_synchronized_on_read():
    # TF 1.15: batch norm's moving statistics (renorm's too) are ON_READ (3) / MEAN (2), the
    # metrics' totals and counts ON_READ / SUM (1); a meta graph's VariableDefs say so
    x = tf.placeholder(tf.float32, [None, 3])
    tf.metrics.mean(x)
    tf.metrics.accuracy(tf.constant([1, 2]), tf.constant([1, 1]))
    got = {v.name: (v.to_proto().synchronization, v.to_proto().aggregation, v.trainable)
           for v in tf.local_variables()}
    assert got == {n: (3, 1, False) for n in (
        "mean/total:0", "mean/count:0", "accuracy/total:0", "accuracy/count:0")}
    tf.layers.batch_normalization(x, training=True, renorm=True)
    got = {v.name: (v.to_proto().synchronization, v.to_proto().aggregation)
           for v in tf.global_variables()}
    stats = ("moving_mean", "moving_variance", "moving_stddev", "renorm_mean", "renorm_stddev")
    assert got == dict({"batch_normalization/gamma:0": (0, 0),
                        "batch_normalization/beta:0": (0, 0)},
                       **{f"batch_normalization/{n}:0": (3, 2) for n in stats})
    assert [v.name for v in tf.trainable_variables()] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0"]
