"""Differences found by running public TF 1.x tutorial programs (golbin, pkmital, instillai)
under TF 1.15 and tideflow and comparing what they print; expected values are TF 1.15's."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_cond_branch_with_a_none_element_fails_as_tf():
    # a batch-norm helper that reads an EMA's average() before apply() made it: the false
    # branch returns (None, None); TF 1.15 converts each result and says so
    x = tf.placeholder(tf.float32, [None, 3])
    train = tf.placeholder(tf.bool)
    mean = tf.reduce_mean(x, 0)
    ema = tf.train.ExponentialMovingAverage(decay=0.9)
    avg = ema.average(mean)
    assert avg is None
    with pytest.raises(ValueError, match=r"^None values not supported\.$"):
        tf.cond(train, lambda: (tf.identity(mean), mean), lambda: (avg, mean))
    with pytest.raises(ValueError, match=r"^None values not supported\.$"):
        tf.cond(train, lambda: [None], lambda: [mean])
    with pytest.raises(ValueError, match=r"^false_fn must have a return value\.$"):
        tf.cond(train, lambda: mean, lambda: None)


def test_cond_branch_reading_the_average_lazily_works():
    x = tf.placeholder(tf.float32, [None, 2])
    train = tf.placeholder(tf.bool)
    mean = tf.reduce_mean(x, 0)
    ema = tf.train.ExponentialMovingAverage(decay=0.9)

    def update():
        with tf.control_dependencies([ema.apply([mean])]):
            return tf.identity(mean)

    out = tf.cond(train, update, lambda: ema.average(mean))
    assert out.name == "cond/Merge:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
        np.testing.assert_allclose(sess.run(out, {x: feed, train: True}), [2.0, 4.0])
        np.testing.assert_allclose(sess.run(out, {x: feed, train: False}), [0.2, 0.4], rtol=1e-6)


def test_autopacked_sub_list_constants_take_tf_names():
    # pkmital's basics print every op name after tf.stack([tf.shape(z), tf.shape(z), [3], [4]]):
    # TF opens a name scope for each Python sub-list before making its Const
    t = tf.placeholder(tf.int32, [], name="t")
    a = tf.stack([[t, 1], [2, 3], (4, 5), np.array([6, 7])])
    b = tf.stack([[t, t], [1, 2]])
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["t", "stack/0/1", "stack/0", "stack/1_1", "stack/2_1", "stack/3", "stack",
                     "stack_1/0", "stack_1/1_1", "stack_1"]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(a, {t: 9}), [[9, 1], [2, 3], [4, 5], [6, 7]])
        np.testing.assert_array_equal(sess.run(b, {t: 9}), [[9, 9], [1, 2]])


def test_contrib_batch_norm_2d_forced_updates_reshape_after_identity():
    # TF 1.15: the fused path's forced-update Identity is on the 4-D tensor, then the Reshape
    # back (the output a program fetches by name is BatchNorm/Reshape_1:0)
    x = tf.constant([[1.0, 2.0], [3.0, 6.0]])
    y = tf.contrib.layers.batch_norm(x, is_training=True, updates_collections=None, decay=0.5)
    assert y.name == "BatchNorm/Reshape_1:0" and y.shape.as_list() == [2, 2]
    ident = tf.get_default_graph().get_operation_by_name("BatchNorm/Identity")
    assert ident.outputs[0].shape.as_list() == [2, 1, 1, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y), [[-0.9995, -0.99988], [0.9995, 0.99988]],
                                   atol=1e-5)
        mean = tf.get_default_graph().get_tensor_by_name("BatchNorm/moving_mean:0")
        np.testing.assert_allclose(sess.run(mean), [1.0, 2.0])


def _run_error(t):
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(t)
    return str(info.value).splitlines()[0]


def test_conv_backprop_shape_errors_name_tf_cpu_kernels():
    # a conv autoencoder's conv2d_transpose with an output_shape its strides cannot give
    msg = _run_error(tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.ones([3, 3, 1, 1]),
                                            tf.constant([1, 6, 6, 1]), [1, 2, 2, 1], "SAME"))
    assert msg == ("Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: "
                   "actual = 2, computed = 3 spatial_dim: 1 input: 6 filter: 3 output: 2 "
                   "stride: 2 dilation: 1")
    msg = _run_error(tf.nn.conv2d_transpose(tf.ones([2, 2, 2, 1]), tf.ones([3, 3, 1, 1]),
                                            tf.constant([1, 4, 4, 1]), [1, 2, 2, 1], "SAME"))
    assert msg == ("Conv2DCustomBackpropInput: input and out_backprop must have the same batch "
                   "sizeinput batch: 1outbackprop batch: 2 batch_dim: 0")
    msg = _run_error(tf.nn.conv2d_backprop_filter(
        tf.ones([1, 4, 4, 1]), tf.constant([3, 3, 1, 2]), tf.ones([1, 2, 2, 1]), [1, 2, 2, 1],
        "SAME"))
    assert msg == "Conv2DCustomBackpropFilter: filter and out_backprop must have the same out_depth"
    msg = _run_error(tf.nn.conv3d_backprop_filter_v2(
        tf.ones([1, 6, 6, 6, 1]), tf.constant([3, 3, 3, 1, 1]), tf.ones([1, 2, 2, 2, 1]),
        [1, 2, 2, 2, 1], "SAME"))
    assert msg.startswith("Conv3DBackpropFilterOp: Size of out_backprop doesn't match computed")
    msg = _run_error(tf.nn.depthwise_conv2d_native_backprop_input(
        tf.constant([1, 4, 6, 1]), tf.ones([3, 3, 1, 1]), tf.ones([1, 2, 2, 1]), [1, 2, 2, 1],
        "SAME"))
    assert msg == ("DepthwiseConv2DBackpropInput: Number of cols of out_backprop doesn't match "
                   "computed: actual = 2, computed = 3")
    msg = _run_error(tf.nn.depthwise_conv2d_native_backprop_input(
        tf.constant([2, 4, 4, 1]), tf.ones([3, 3, 1, 1]), tf.ones([1, 2, 2, 1]), [1, 2, 2, 1],
        "SAME"))
    assert msg == "DepthwiseConv2DBackpropInput: input and out_backprop must have the same batch size"


def test_get_total_loss_without_losses_fails_as_tf():
    with pytest.raises(ValueError, match=r"^inputs must be a list of at least one "
                                         r"Tensor/IndexedSlices with the same dtype and shape$"):
        tf.losses.get_total_loss()
    tf.losses.mean_squared_error(tf.constant([1.0, 2.0]), tf.constant([2.0, 2.0]))
    with tf.Session() as sess:
        assert sess.run(tf.losses.get_total_loss()) == pytest.approx(0.5)


def test_python_int_str_bytes_complex_are_no_dtypes_in_tf1():
    # TF 1.15 maps only float, bool and object (TF 2.x added the others)
    assert tf.as_dtype(float) == tf.float32 and tf.as_dtype(bool) == tf.bool
    assert tf.as_dtype(object) == tf.string and tf.as_dtype(np.int64) == tf.int64
    assert tf.as_dtype(np.dtype("int64")) == tf.int64 and tf.as_dtype(np.str_) == tf.string
    for t in (int, str, bytes, complex):
        with pytest.raises(TypeError, match=r"^Cannot convert value <class '\w+'> to a "
                                            r"TensorFlow DType\.$"):
            tf.as_dtype(t)
        with pytest.raises(TypeError, match=r"^Expected DataType for argument 'dtype' not "
                                            r"<class '\w+'>\.$"):
            tf.placeholder(t)
        with pytest.raises(TypeError, match="to a TensorFlow DType"):
            tf.zeros([2], t)


def test_piecewise_constant_value_is_named_as_tf_case_merge():
    step = tf.Variable(12, trainable=False)
    lr = tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1])
    lr2 = tf.train.piecewise_constant(step, [5], [1.0, 0.5], name="lr")
    assert lr.name == "PiecewiseConstant/case/cond/Merge:0"
    assert lr2.name == "lr/case/cond/Merge:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([lr, lr2]) == [pytest.approx(0.1), pytest.approx(0.5)]
