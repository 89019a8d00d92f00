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


def test_tensorflow_python_holds_tfs_module_attributes():
    # pkmital/tensorflow_tutorials python/libs/batch_norm.py (the 2016 batch-norm recipe) does
    # `from tensorflow.python import control_flow_ops`: TF 1.15's tensorflow.python package
    # holds its op modules as attributes (measured: these are the very functions of tf.*);
    # tideflow.python raised ImportError
    from tideflow.python import array_ops, control_flow_ops, math_ops, nn, state_ops, vs

    assert control_flow_ops.cond is tf.cond and math_ops.matmul is tf.matmul
    assert array_ops.concat is tf.concat and state_ops.assign is tf.assign
    assert nn.relu is tf.nn.relu and vs.variable_scope is tf.variable_scope


def test_pkmital_modern_convnet_batch_norm_with_cond_and_ema():
    # pkmital/tensorflow_tutorials python/06_modern_convnet.py + libs/batch_norm.py: moments,
    # an EMA applied in a cond's true branch on a fed is_training, batch_norm_with_global_
    # normalization, Adam; one step (TF 1.15's later steps race: its ref reads alias the
    # variables Adam updates)
    from tideflow.python import control_flow_ops

    def batch_norm(x, phase_train, scope="bn", affine=True):
        with tf.variable_scope(scope):
            shape = x.get_shape().as_list()
            beta = tf.Variable(tf.constant(0.0, shape=[shape[-1]]), name="beta", trainable=True)
            gamma = tf.Variable(tf.constant(1.0, shape=[shape[-1]]), name="gamma",
                                trainable=affine)
            batch_mean, batch_var = tf.nn.moments(x, [0, 1, 2], name="moments")
            ema = tf.train.ExponentialMovingAverage(decay=0.9)
            ema_apply_op = ema.apply([batch_mean, batch_var])
            ema_mean, ema_var = ema.average(batch_mean), ema.average(batch_var)

            def mean_var_with_update():
                with tf.control_dependencies([ema_apply_op]):
                    return tf.identity(batch_mean), tf.identity(batch_var)
            mean, var = control_flow_ops.cond(phase_train, mean_var_with_update,
                                              lambda: (ema_mean, ema_var))
            return tf.nn.batch_norm_with_global_normalization(x, mean, var, beta, gamma, 1e-3,
                                                              affine)

    def lrelu(x, leak=0.2, name="lrelu"):
        with tf.variable_scope(name):
            return 0.5 * (1 + leak) * x + 0.5 * (1 - leak) * abs(x)

    def conv2d(x, n_filters, k_h=5, k_w=5, stride_h=2, stride_w=2, stddev=0.02, name="Conv2D"):
        with tf.variable_scope(name):
            w = tf.get_variable("w", [k_h, k_w, x.get_shape()[-1], n_filters],
                                initializer=tf.truncated_normal_initializer(stddev=stddev))
            conv = tf.nn.conv2d(x, w, strides=[1, stride_h, stride_w, 1], padding="SAME")
            b = tf.get_variable("b", [n_filters],
                                initializer=tf.truncated_normal_initializer(stddev=stddev))
            return conv + b

    np.random.seed(5)
    tf.set_random_seed(5)
    images = np.random.rand(20, 144).astype(np.float32)
    labels = np.eye(10)[np.random.randint(0, 10, 20)]
    x = tf.placeholder(tf.float32, [None, 144])
    y = tf.placeholder(tf.float32, [None, 10])
    is_training = tf.placeholder(tf.bool, name="is_training")
    x_tensor = tf.reshape(x, [-1, 12, 12, 1])
    h_1 = lrelu(batch_norm(conv2d(x_tensor, 4, name="conv1"), is_training, scope="bn1"),
                name="lrelu1")
    h_2 = lrelu(batch_norm(conv2d(h_1, 6, name="conv2"), is_training, scope="bn2"), name="lrelu2")
    h_3 = lrelu(batch_norm(conv2d(h_2, 6, name="conv3"), is_training, scope="bn3"), name="lrelu3")
    h_3_flat = tf.reshape(h_3, [-1, 6 * 2 * 2])  # (before the Matrix: its seed is its op id)
    with tf.variable_scope("Linear"):
        matrix = tf.get_variable("Matrix", [24, 10], tf.float32,
                                 tf.random_normal_initializer(stddev=0.02))
    y_pred = tf.nn.softmax(tf.matmul(h_3_flat, matrix))
    cross_entropy = -tf.reduce_sum(y * tf.log(y_pred))
    train_step = tf.train.AdamOptimizer().minimize(cross_entropy)
    assert str(h_3) == ('Tensor("lrelu3/add:0", shape=(?, 2, 2, 6), dtype=float32)')
    assert [v.name for v in tf.global_variables()][:6] == [  # measured in TF 1.15
        "conv1/w:0", "conv1/b:0", "bn1/beta:0", "bn1/gamma:0",
        "bn1/bn1/moments/Squeeze/ExponentialMovingAverage:0",
        "bn1/bn1/moments/Squeeze_1/ExponentialMovingAverage:0"]
    ema_vars = [v for v in tf.global_variables() if "ExponentialMovingAverage" in v.name]
    fd = {x: images[:5], y: labels[:5], is_training: True}
    with tf.Session() as sess:
        sess.run(tf.initialize_all_variables())
        sess.run(train_step, fd)
        np.testing.assert_allclose(sess.run(ema_vars[0]), [0.00227, -0.00055, 0.00296, -0.00052],
                                   atol=6e-6)  # TF 1.15, to 5 places
        np.testing.assert_allclose(sess.run(tf.trainable_variables()[1]),
                                   [-0.03273, -0.0015, 0.01789, 0.00416], atol=6e-6)
