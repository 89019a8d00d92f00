"""TF 1.x programs from individual authors' repositories (carpedm20, dennybritz, Kyubyong,
wiseodd, hwalsuklee, jiegzhan, openai), each reduced to a standalone form with small synthetic
data: API calls, graph structure and training loop kept, sizes and step counts shrunk. Expected
values, names and printed lines were measured with TF 1.15 (tensorflow-cpu 1.15.0) running the
same reduced program with the same seeds."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# Kyubyong/dc_tts modules.py (embed with zero_pad, hc) + train.py (noam learning rate, clipped
# Adam applied in the loop that clips) ------------------------------------------------------------

def _dc_tts_embed(inputs, vocab_size, num_units, zero_pad=True, scope="embedding"):
    with tf.variable_scope(scope):
        lookup_table = tf.get_variable(
            "lookup_table", dtype=tf.float32, shape=[vocab_size, num_units],
            initializer=tf.truncated_normal_initializer(mean=0.0, stddev=0.1))
        if zero_pad:
            lookup_table = tf.concat((tf.zeros(shape=[1, num_units]), lookup_table[1:, :]), 0)
        return tf.nn.embedding_lookup(lookup_table, inputs)


def _dc_tts_hc(inputs, size=3, rate=1, scope="hc"):
    _inputs = inputs
    with tf.variable_scope(scope):
        pad_len = (size - 1) * rate  # causal
        inputs = tf.pad(inputs, [[0, 0], [pad_len, 0], [0, 0]])
        filters = inputs.get_shape().as_list()[-1]
        tensor = tf.layers.conv1d(
            inputs=inputs, filters=2 * filters, kernel_size=size, dilation_rate=rate,
            padding="valid", kernel_initializer=tf.contrib.layers.variance_scaling_initializer())
        H1, H2 = tf.split(tensor, 2, axis=-1)
        H1 = tf.contrib.layers.layer_norm(H1, begin_norm_axis=-1, scope="H1")
        H2 = tf.contrib.layers.layer_norm(H2, begin_norm_axis=-1, scope="H2")
        H1 = tf.nn.sigmoid(H1, "gate")
        return H1 * H2 + (1. - H1) * _inputs


def test_dc_tts_zero_padded_embedding_gradients_take_tfs_ops():
    # the gradient of lookup_table[1:, :] concatenated after a zero row reaches the concat as
    # IndexedSlices: TF 1.15 takes the axis mod the rank first, gathers each input's size
    # along the axis, gates both row gradients (compute_gradients' tuple) and makes the
    # StridedSliceGrad's dy dense inside that op's scope; tideflow sliced the sizes, left
    # IndexedSlices ungated and densified dy outside (624 ops in TF, one fewer here)
    tf.set_random_seed(5)
    L = tf.constant([[1, 2, 3, 0], [4, 1, 0, 0]])
    with tf.variable_scope("TextEnc"):
        t = _dc_tts_embed(L, vocab_size=5, num_units=4, scope="embed_1")
        t = _dc_tts_hc(t, rate=3, scope="HC_2")
    gs = tf.Variable(0, name="global_step", trainable=False)
    loss = tf.reduce_mean(tf.abs(tf.nn.sigmoid(t) - 0.25))
    step = tf.to_float(gs + 1)
    lr = 0.001 * 4000.0 ** 0.5 * tf.minimum(step * 4000.0 ** -1.5, step ** -0.5)
    opt = tf.train.AdamOptimizer(learning_rate=lr)
    gvs = opt.compute_gradients(loss)
    clipped = []
    for grad, var in gvs:
        clipped.append((tf.clip_by_value(grad, -1., 1.), var))
        train_op = opt.apply_gradients(clipped, global_step=gs)
    names = [o.name for o in tf.get_default_graph().get_operations()]
    assert (train_op.name, len(names), len(tf.global_variables())) == ("Adam_6", 624, 24)
    prefix = "gradients/TextEnc/embed_1/"
    assert [n[len(prefix):] for n in names if n.startswith(prefix) and "_grad/" in n
            and "embedding_lookup_grad" not in n] == [  # measured in TF 1.15
        "concat_grad/Rank", "concat_grad/mod", "concat_grad/Shape", "concat_grad/Shape_1",
        "concat_grad/Const", "concat_grad/GatherV2/axis", "concat_grad/GatherV2",
        "concat_grad/add", "concat_grad/GreaterEqual", "concat_grad/Less",
        "concat_grad/LogicalAnd", "concat_grad/Where", "concat_grad/Squeeze",
        "concat_grad/GatherV2_1/axis", "concat_grad/GatherV2_1", "concat_grad/sub",
        "concat_grad/GatherV2_2/axis", "concat_grad/GatherV2_2", "concat_grad/GatherV2_3/axis",
        "concat_grad/GatherV2_3", "concat_grad/add_1", "concat_grad/GreaterEqual_1",
        "concat_grad/Less_1", "concat_grad/LogicalAnd_1", "concat_grad/Where_1",
        "concat_grad/Squeeze_1", "concat_grad/GatherV2_4/axis", "concat_grad/GatherV2_4",
        "concat_grad/sub_1", "concat_grad/GatherV2_5/axis", "concat_grad/GatherV2_5",
        "concat_grad/tuple/group_deps", "concat_grad/tuple/control_dependency",
        "concat_grad/tuple/control_dependency_1", "strided_slice_grad/Shape",
        "strided_slice_grad/StridedSliceGrad/strided_slice/stack",
        "strided_slice_grad/StridedSliceGrad/strided_slice/stack_1",
        "strided_slice_grad/StridedSliceGrad/strided_slice/stack_2",
        "strided_slice_grad/StridedSliceGrad/strided_slice",
        "strided_slice_grad/StridedSliceGrad/dy", "strided_slice_grad/StridedSliceGrad"]
    g = gvs[0][0]
    assert g.op.inputs[4].name == prefix + "strided_slice_grad/StridedSliceGrad/dy:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = []
        for _ in range(2):
            out.append((sess.run([gs, train_op])[0], f"{sess.run(loss):.6f}"))
        assert out == [(1, "0.225863"), (2, "0.225085")]  # TF 1.15
        np.testing.assert_allclose(sess.run(g)[:2], [  # TF 1.15 (rounded to 4 places)
            [0.0, 0.0, 0.0, 0.0], [-0.0794, 0.0443, -0.1048, 0.0968]], atol=1e-4)


_CONCAT_ROWS = ["Shape", "Shape_1", "Const", "GatherV2/axis", "GatherV2", "add",
                "GreaterEqual", "Less", "LogicalAnd", "Where", "Squeeze", "GatherV2_1/axis",
                "GatherV2_1", "sub", "GatherV2_2/axis", "GatherV2_2", "GatherV2_3/axis",
                "GatherV2_3", "add_1", "GreaterEqual_1", "Less_1", "LogicalAnd_1", "Where_1",
                "Squeeze_1", "GatherV2_4/axis", "GatherV2_4", "sub_1", "GatherV2_5/axis",
                "GatherV2_5"]
_CONCAT_COLS = ["Shape", "Shape_1", "Shape_2", "ExpandDims/dim", "ExpandDims", "Fill/value",
                "Fill", "sub", "sub_1/y", "sub_1", "Fill_1/value", "Fill_1", "concat/values_1",
                "concat/axis", "concat", "Fill_2/value", "Fill_2", "Slice/begin", "Slice/size",
                "Slice", "concat_1/values_0", "concat_1/axis", "concat_1", "Slice_1", "mul",
                "Add", "Slice_2/begin", "Slice_2/size", "Slice_2", "concat_2/values_0",
                "concat_2/axis", "concat_2", "Slice_3", "mul_1", "Add_1"]
_TUPLE = ["tuple/group_deps", "tuple/control_dependency", "tuple/control_dependency_1"]


@pytest.mark.parametrize("axis, first_ops, rest, values", [
    # measured in TF 1.15
    (0, ["Rank", "mod"], _CONCAT_ROWS, [[[1.0, 2.0, 3.0]] * 3, []]),
    (-2, ["Rank", "mod", "Rank_1"], _CONCAT_ROWS, [[[1.0, 2.0, 3.0]] * 3, []]),
    (1, ["Rank", "mod"], _CONCAT_COLS, [[[1.0, 2.0, 3.0]] * 3, [[4.0, 5.0]] * 3]),
    (-1, ["Rank", "mod", "Rank_1"], _CONCAT_COLS, [[[1.0, 2.0, 3.0]] * 3, [[4.0, 5.0]] * 3]),
])
def test_concat_gradient_of_indexed_slices_builds_tfs_ops(axis, first_ops, rest, values):
    # an embedding lookup in tables concatenated along rows (axis 0) or columns: TF 1.15's
    # _ConcatGradHelper for IndexedSlices, op for op (rows: a gather of each size; columns: a
    # dense mask and begin vector moved by Add), each input's IndexedSlices gated
    opt = tf.train.GradientDescentOptimizer(0.1)
    a = tf.Variable(tf.ones([5, 3]), name="a")
    b = tf.Variable(tf.ones([4, 3]), name="b")
    c = tf.Variable(tf.ones([4, 2]), name="c")
    vs = [a, b] if axis in (0, -2) else [b, c]
    e = tf.nn.embedding_lookup(tf.concat(vs, axis), [1, 3, 3])
    loss = tf.reduce_sum(e * tf.range(1., 1. + int(e.shape[1])))
    n0 = len(tf.get_default_graph().get_operations())
    gv = opt.compute_gradients(loss, vs)
    assert [o.name.split("concat_grad/")[1] for o in tf.get_default_graph().get_operations()[n0:]
            if "concat_grad/" in o.name] == first_ops + rest + _TUPLE
    assert [g.values.name for g, _ in gv] == ["gradients/concat_grad/tuple/control_dependency:0",
                                              "gradients/concat_grad/tuple/control_dependency_1:0"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([g for g, _ in gv])
    assert [r.values.tolist() for r in got] == values
    if axis in (0, -2):
        assert [r.indices.tolist() for r in got] == [[1, 3, 3], []]
        assert [r.dense_shape.tolist() for r in got] == [[5, 3], [4, 3]]
    else:
        assert [r.indices.tolist() for r in got] == [[1, 3, 3], [1, 3, 3]]


def test_partitioned_variable_row_gradients_are_gated():
    # a gather from a partitioned variable reads the concat of its parts: TF 1.15's
    # compute_gradients gates the parts' IndexedSlices with a tuple, as it gates dense ones
    v = tf.get_variable("pv", [6, 2], partitioner=tf.fixed_size_partitioner(2))
    loss = tf.reduce_sum(tf.gather(v, [1, 4]))
    gv = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, list(v))
    assert [g.values.name for g, _ in gv] == [  # measured in TF 1.15
        "gradients/pv/ConcatPartitions/concat_grad/tuple/control_dependency:0",
        "gradients/pv/ConcatPartitions/concat_grad/tuple/control_dependency_1:0"]
    assert [type(g).__name__ for g, _ in gv] == ["IndexedSlices", "IndexedSlices"]
