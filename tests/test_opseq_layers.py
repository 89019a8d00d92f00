"""tf.layers and tf.contrib.layers build the ops TF 1.15 builds, in its order (names as TF's).

TF 1.x seeds a random op without an op seed with the number of ops the graph holds when it is
made; with the same kernels (ours are TF's Philox), a program under ``tf.set_random_seed`` gets
TF's numbers only if each layer made the same ops before. The expected lists and values below
are what real TF 1.15 printed for the same programs.
"""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import op_names as _names


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        yield


def _init(scope):
    base = f"{scope}/Initializer/random_uniform"
    return [f"{base}/shape", f"{base}/min", f"{base}/max", f"{base}/RandomUniform",
            f"{base}/sub", f"{base}/mul", base, scope, f"{scope}/Assign", f"{scope}/read"]


def _zeros(scope):
    return [f"{scope}/Initializer/zeros", scope, f"{scope}/Assign", f"{scope}/read"]


def _flatten(scope):
    return [f"{scope}/Shape", f"{scope}/strided_slice/stack", f"{scope}/strided_slice/stack_1",
            f"{scope}/strided_slice/stack_2", f"{scope}/strided_slice",
            f"{scope}/Reshape/shape/1", f"{scope}/Reshape/shape", f"{scope}/Reshape"]


def test_tf_layers_cnn_builds_tf_1_15s_ops():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    c = tf.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu)
    p = tf.layers.max_pooling2d(c, 2, 2)
    f = tf.layers.flatten(p)
    tf.layers.dense(f, 10)
    want = (["Placeholder"] + _init("conv2d/kernel") + _zeros("conv2d/bias")
            + ["conv2d/dilation_rate", "conv2d/Conv2D", "conv2d/BiasAdd", "conv2d/Relu",
               "max_pooling2d/MaxPool"] + _flatten("flatten")
            + _init("dense/kernel") + _zeros("dense/bias") + ["dense/MatMul", "dense/BiasAdd"])
    assert _names() == want


def test_contrib_layers_cnn_builds_tf_1_15s_ops():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    c = tf.contrib.layers.conv2d(x, 4, 3)
    p = tf.contrib.layers.max_pool2d(c, 2)
    f = tf.contrib.layers.flatten(p)
    tf.contrib.layers.fully_connected(f, 5)
    want = (["Placeholder"] + _init("Conv/weights") + _zeros("Conv/biases")
            + ["Conv/dilation_rate", "Conv/Conv2D", "Conv/BiasAdd", "Conv/Relu",
               "MaxPool2D/MaxPool"] + _flatten("Flatten/flatten")
            + _init("fully_connected/weights") + _zeros("fully_connected/biases")
            + ["fully_connected/MatMul", "fully_connected/BiasAdd", "fully_connected/Relu"])
    assert _names() == want


def test_transposed_convolutions_build_their_output_shape_as_tf():
    x = tf.placeholder(tf.float32, [None, 9, 9, 3])
    y = tf.layers.conv2d_transpose(x, 4, 3, strides=2)
    names = _names()
    start = names.index("conv2d_transpose/Shape")
    ops_after = [n.replace("conv2d_transpose/", "") for n in names[start:]]
    assert len(names) == 44  # TF 1.15's count
    assert ops_after[-6:] == ["strided_slice_3/stack", "strided_slice_3/stack_1",
                              "strided_slice_3/stack_2", "strided_slice_3", "conv2d_transpose",
                              "BiasAdd"]
    assert y.shape.as_list() == [None, 19, 19, 4]  # 9 * 2 + max(3 - 2, 0)
    with tf.Graph().as_default():
        z = tf.contrib.layers.conv2d_transpose(tf.placeholder(tf.float32, [None, 9, 9, 3]), 4,
                                               3, stride=2)
        names = _names()
        assert len(names) == 41 and "Conv2d_transpose/conv2d_transpose_1" in names
        assert z.shape.as_list() == [None, 18, 18, 4]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out = s.run(z, {"Placeholder:0": np.ones((2, 9, 9, 3), np.float32)})
        assert out.shape == (2, 18, 18, 4)


def test_contrib_dropout_ops_are_named_as_tf_1_15s():
    tf.contrib.layers.dropout(tf.placeholder(tf.float32, [None, 4]), 0.5)
    assert _names()[1:3] == ["Dropout/dropout_1/rate", "Dropout/dropout_1/Shape"]


def test_conv1d_layer_runs_tf_nn_conv1d():
    tf.layers.conv1d(tf.placeholder(tf.float32, [None, 20, 3]), 4, 3)
    assert _names()[15:] == ["conv1d/dilation_rate", "conv1d/conv1d/ExpandDims/dim",
                             "conv1d/conv1d/ExpandDims", "conv1d/conv1d/ExpandDims_1/dim",
                             "conv1d/conv1d/ExpandDims_1", "conv1d/conv1d",
                             "conv1d/conv1d/Squeeze", "conv1d/BiasAdd"]


def test_flatten_of_a_vector_is_a_reshape_and_input_spec_errors_are_tfs_words():
    y = tf.layers.flatten(tf.ones([3]))
    assert y.op.type == "Reshape" and y.shape.as_list() == [3, 1]
    with pytest.raises(ValueError, match=r"is incompatible with the layer: : expected "
                                         r"min_ndim=1, found ndim=0\. Full shape received: "
                                         r"\[\]"):
        tf.layers.flatten(tf.ones([]))
    with pytest.raises(ValueError, match=r"is incompatible with the layer: expected ndim=4, "
                                         r"found ndim=3\. Full shape received: \[2, 3, 4\]"):
        tf.layers.conv2d(tf.ones([2, 3, 4]), 2, 1)


def test_seeded_conv_net_gives_tf_1_15s_numbers():
    """The TF 1.x course exercise: xavier-initialized conv weights (seed 0), then a
    fully_connected layer seeded by the graph's op count; TF 1.15 printed these."""
    x = tf.placeholder(tf.float32, [None, 64, 64, 3])
    tf.placeholder(tf.float32, [None, 6])  # the exercise's labels (one op: it counts)
    w1 = tf.get_variable("W1", [4, 4, 3, 8],
                         initializer=tf.contrib.layers.xavier_initializer(seed=0))
    w2 = tf.get_variable("W2", [2, 2, 8, 16],
                         initializer=tf.contrib.layers.xavier_initializer(seed=0))
    a1 = tf.nn.relu(tf.nn.conv2d(x, w1, strides=[1, 1, 1, 1], padding="SAME"))
    p1 = tf.nn.max_pool(a1, ksize=[1, 8, 8, 1], strides=[1, 8, 8, 1], padding="SAME")
    a2 = tf.nn.relu(tf.nn.conv2d(p1, w2, strides=[1, 1, 1, 1], padding="SAME"))
    p2 = tf.nn.max_pool(a2, ksize=[1, 4, 4, 1], strides=[1, 4, 4, 1], padding="SAME")
    z3 = tf.contrib.layers.fully_connected(tf.contrib.layers.flatten(p2), 6,
                                           activation_fn=None)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(
            s.run(w1)[1, 1, 1], [0.00131723, 0.14176141, -0.04434952, 0.09197326,
                                 0.14984085, -0.03514394, -0.06847463, 0.05245192], atol=1e-7)
        rng = np.random.RandomState(1)
        out = s.run(z3, {x: rng.randn(2, 64, 64, 3)})
    np.testing.assert_allclose(
        out, [[1.4416984, -0.24909686, 5.4504986, -0.26189622, -0.20669895, 1.3654672],
              [1.4070847, -0.02573191, 5.08928, -0.486699, -0.40940708, 1.2624857]],
        rtol=1e-5, atol=1e-5)


def test_split_by_a_count_makes_tf_1_15s_unused_constant():
    x = tf.placeholder(tf.float32, [None, 4])
    tf.split(x, 2, 1)
    tf.split(x, [1, 3], 1)
    assert _names()[1:] == ["Const", "split/split_dim", "split", "Const_1", "split_1/split_dim",
                            "split_1"]


def test_rnn_cells_build_tf_1_15s_ops():
    x = tf.placeholder(tf.float32, [None, 4])
    cell = tf.nn.rnn_cell.BasicLSTMCell(6)
    cell(x, cell.zero_state(2, tf.float32))
    types = [op.type for op in tf.get_default_graph().get_operations()
             if op.name.startswith("basic_lstm_cell/") and "/kernel" not in op.name
             and "/bias" not in op.name]
    assert types == ["Const", "Const", "ConcatV2", "MatMul", "BiasAdd", "Const", "Split",
                     "Const", "Add", "Sigmoid", "Mul", "Sigmoid", "Tanh", "Mul", "Add",
                     "Tanh", "Sigmoid", "Mul"]
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.LSTMCell(6, state_is_tuple=False)
        cell(tf.placeholder(tf.float32, [None, 4]), cell.zero_state(2, tf.float32))
        names = _names()
        assert "lstm_cell/Slice" in names and "lstm_cell/Slice_1" in names
        assert "lstm_cell/add/y" in names


def test_from_tensor_slices_names_its_tensors_as_tf_1_15():
    tf.data.Dataset.from_tensor_slices(np.ones((4, 2), np.float32))
    assert _names() == ["normalize_element/component_0"]


def test_slim_batch_norm_builds_tf_1_15s_ops():
    # a rank-2 input: TF's own fused path (reshape first, the moving averages' decay first)
    tf.contrib.layers.batch_norm(tf.placeholder(tf.float32, [None, 10]), is_training=True)
    names = _names()
    assert names[1:3] == ["BatchNorm/Reshape/shape", "BatchNorm/Reshape"]
    assert names.index("BatchNorm/Const") == names.index("BatchNorm/beta/read") + 1
    assert "BatchNorm/AssignMovingAvg/decay" in names and names[-2:] == [
        "BatchNorm/Shape", "BatchNorm/Reshape_1"]
    assert len(names) == 29
    with tf.Graph().as_default():
        # rank 4 with the defaults: TF's core layer (its ones made in build, before beta)
        tf.contrib.layers.batch_norm(tf.placeholder(tf.float32, [None, 4, 4, 3]))
        names = _names()
        assert names[1:3] == ["BatchNorm/Const", "BatchNorm/beta/Initializer/zeros"]
        assert len(names) == 28


def _seed2_after(build):
    """The op seed TF 1.x gives the kernel initializer of a dense layer made after ``build``."""
    x = tf.placeholder(tf.float32, [None, 8])
    t = tf.placeholder(tf.bool, [])
    tf.layers.dense(build(x, t), 4)
    ops = [op for op in tf.get_default_graph().get_operations() if op.type == "RandomUniform"]
    return ops[-1].get_attr("seed2")


@pytest.mark.parametrize("build, want", [
    (lambda x, t: tf.layers.batch_normalization(x, training=t), 77),
    (lambda x, t: tf.contrib.layers.batch_norm(x, is_training=t, updates_collections=None), 63),
    (lambda x, t: tf.contrib.layers.batch_norm(x, is_training=t), 63),
], ids=["layers", "contrib_forced_updates", "contrib_collected_updates"])
def test_batch_norm_with_a_training_tensor_counts_tf_1_15s_update_conds(build, want):
    # TF 1.15 makes the moving-average updates inside a cond when `training` is a tensor
    assert _seed2_after(build) == want


def test_batch_norm_with_a_training_tensor_trains_as_tf_1_15():
    """Dense, batch norm and dropout under a training placeholder, Adam with the update ops as
    control dependencies: TF 1.15 printed these losses and moving mean."""
    x = tf.placeholder(tf.float32, [None, 8])
    t = tf.placeholder_with_default(False, [])
    h = tf.layers.dense(x, 6)
    h = tf.layers.batch_normalization(h, training=t)
    h = tf.layers.dropout(h, 0.5, training=t)
    y = tf.layers.dense(h, 4)
    loss = tf.reduce_mean(tf.square(y))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        opt = tf.train.AdamOptimizer(0.01).minimize(loss)
    xv = np.arange(32, dtype=np.float32).reshape(4, 8) / 10
    mm = next(v for v in tf.global_variables() if v.op.name == "batch_normalization/moving_mean")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        losses = [s.run([loss, opt], {x: xv, t: True})[0] for _ in range(3)]
        before = s.run(mm)
        s.run(opt, {x: xv})  # training False: the moving statistics stay
        np.testing.assert_array_equal(s.run(mm), before)
    np.testing.assert_allclose(losses, [1.1351998, 1.3872379, 2.1897058], rtol=2e-6)
    # TF 1.15's bits: batch norm's input gradient is an AddN of three terms, two of them a
    # gradient tuple's Identity, which TF's AddN sums into the first of (it forwards the
    # buffer the Identity handed on); summed from the bare truediv, the second and third
    # come out 0.00339094758965075 and -0.0035848510451614857
    np.testing.assert_array_equal(before, np.array(
        [0.08597961068153381, 0.0034001669846475124, -0.003528294153511524,
         -0.03169194608926773, 0.07103738188743591, 0.05907576531171799], np.float32))
