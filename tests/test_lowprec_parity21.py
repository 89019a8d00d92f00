"""Low-precision and quantization programs compared with TF 1.15: fake quantization's values,
gradients and checks, quantize/dequantize, float16/bfloat16 training; expected values are
TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf

F32 = np.float32


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _same(got, want):
    np.testing.assert_array_equal(np.asarray(got, F32), np.asarray(want, F32))


# ------------------------------------------------------------------------------------------
# fake quantization: TF 1.15's kernels (Args multiplies by 1 / scale, Vars divides)
# ------------------------------------------------------------------------------------------


def test_fake_quant_vars_divides_by_the_scale_as_tf115():
    # 0.9 / (1 / 255) rounds down in float32: TF 1.15 prints 0.8980392813682556 (TF 2's
    # separate zero point gives the next level, 0.90196)
    x = np.array([0.9, 0.2, -0.7, 0.45], F32)
    q = tf.quantization
    got = _run([q.fake_quant_with_min_max_vars(x, 0.0, 1.0),
                q.fake_quant_with_min_max_vars_per_channel(x.reshape(2, 2), [0.0, -1.0],
                                                           [1.0, 1.0])])
    _same(got[0], [0.8980392813682556, 0.20000001788139343, 0.0, 0.45098042488098145])
    _same(got[1], [[0.8980392813682556, 0.20392155647277832], [0.0, 0.4470587968826294]])


def test_fake_quant_args_multiplies_by_the_inverse_scale_as_tf115():
    xv = (np.random.RandomState(7).randn(3, 5) * 4).astype(F32)
    q = tf.quantization
    got = _run([q.fake_quant_with_min_max_args(xv, min=-3.3, max=5.1, num_bits=2),
                q.fake_quant_with_min_max_args(xv, min=-3.3, max=5.1, num_bits=4)])
    _same(got[0][0], [5.59999942779541, -2.799999952316284, 0.0, 2.799999952316284,
                      -2.799999952316284])
    _same(got[1][2], [-2.2400002479553223, -0.5600001811981201, 2.239999771118164,
                      -1.1200001239776611, -1.1200001239776611])


def test_fake_quant_zero_range_gives_zeros_and_an_inverted_range_is_not_checked():
    x = np.array([0.9, 0.2, -0.7, 0.45], F32)
    q = tf.quantization
    got = _run([q.fake_quant_with_min_max_vars(x, -0.0, 0.0),
                q.fake_quant_with_min_max_vars_per_channel(x.reshape(2, 2), [0.0, -1.0],
                                                           [0.0, 1.0]),
                q.fake_quant_with_min_max_vars(x, 3.0, 1.0)])
    _same(got[0], [0.0] * 4)
    _same(got[1], [[0.0, 0.20392155647277832], [0.0, 0.4470587968826294]])
    _same(got[2], [2.0] * 4)  # TF 1.15: every value clamps to the nudged min


def test_fake_quant_gradient_ops_return_tf_namedtuples_and_keep_negative_zeros():
    x = np.array([0.9, 0.2, -0.7, 0.45], F32)
    g = tf.quantization.fake_quant_with_min_max_vars_gradient(
        np.array([-1.0, 2.0, -3.0, 4.0], F32), x, -0.5, 0.5)
    assert type(g).__name__ == "FakeQuantWithMinMaxVarsGradient"
    assert g._fields == ("backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max")
    assert [t.get_shape().as_list() for t in g] == [[4], [], []]
    dx, dmin, dmax = _run(g)
    _same(dx, [-0.0, 2.0, -0.0, 4.0])
    assert list(np.signbit(dx)) == [True, False, True, False]
    assert (dmin, dmax) == (-3.0, -1.0)
    pc = tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
        tf.zeros([2, 3, 4]), tf.zeros([2, 3, 4]), [-1.0] * 4, [1.0] * 4)
    assert type(pc).__name__ == "FakeQuantWithMinMaxVarsPerChannelGradient"


def test_fake_quant_kernel_errors_use_tf115_words():
    x = tf.constant(np.linspace(-2, 2, 24).astype(F32).reshape(2, 3, 4))
    q = tf.quantization
    cases = [
        (q.fake_quant_with_min_max_args(x, min=2.0, max=1.0),
         "min has to be smaller than max, was: 2 >= 1"),
        (q.fake_quant_with_min_max_args(x, min=1.1234567, max=0.1),
         "min has to be smaller than max, was: 1.12345672 >= 0.1"),
        (q.fake_quant_with_min_max_args(x, min=-1.0, max=1.0, num_bits=17),
         "num_bits must be between 2 and 16, inclusive"),
        (q.fake_quant_with_min_max_vars(x, -1.0, 1.0, num_bits=1),
         "num_bits must be between 2 and 16, inclusive"),
        (q.fake_quant_with_min_max_args_gradient(x, x[0]),
         (r"Inputs to operation FakeQuantWithMinMaxArgsGradient of type "
          r"FakeQuantWithMinMaxArgsGradient must have the same size and shape.  Input 0: "
          r"\[2,3,4\] != input 1: \[3,4\]")),
    ]
    p = tf.placeholder(tf.float32)
    fed = [
        (q.fake_quant_with_min_max_vars_per_channel(x, p, [1.0] * 4), [[-1.0] * 4],
         "min has incorrect size, expected 4 was 1"),
        (q.fake_quant_with_min_max_vars_per_channel_gradient(x, x, [-1.0] * 4, p), [1.0] * 3,
         "max has incorrect size, expected 4 was 3"),
        (q.fake_quant_with_min_max_vars_gradient(p, x, -1.0, 1.0), np.ones([3, 4]),
         "gradient and input must be the same size"),
    ]
    with tf.Session() as s:
        for t, words in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match=words):
                s.run(t)
        for t, value, words in fed:
            with pytest.raises(tf.errors.InvalidArgumentError, match=words):
                s.run(t, {p: value})


def test_fake_quant_shape_functions_as_tf115():
    x, x2 = tf.zeros([2, 3, 4]), tf.zeros([3, 4])
    q = tf.quantization
    bad = [
        (lambda: q.fake_quant_with_min_max_vars(x, [-1.0], [2.0]),
         "Shape must be rank 0 but is rank 1"),
        (lambda: q.fake_quant_with_min_max_vars_per_channel(tf.constant(1.0), [1.0], [2.0]),
         "Shape must be at least rank 1 but is rank 0"),
        (lambda: q.fake_quant_with_min_max_vars_per_channel(x, [-1.0] * 3, [1.0] * 2),
         "Dimensions must be equal, but are 4 and 3"),
        (lambda: q.fake_quant_with_min_max_vars_gradient(x, x2, [-1.0], 1.0),
         "Shapes must be equal rank, but are 3 and 2"),
        (lambda: q.fake_quant_with_min_max_vars_gradient(x, x, -1.0, [1.0]),
         "Shapes must be equal rank, but are 0 and 1"),
        (lambda: q.fake_quant_with_min_max_vars_per_channel_gradient(
            tf.zeros([1, 2, 1, 3, 4]), tf.zeros([1, 2, 1, 3, 4]), [-1.0] * 4, [1.0] * 4),
         "Shape must be at most rank 4 but is rank 5"),
        (lambda: q.fake_quant_with_min_max_vars_per_channel_gradient(
            x, x, [-1.0] * 4, [1.0] * 3),
         (r"Dimension 0 in both shapes must be equal, but are 3 and 4. Shapes are \[3\] and "
          r"\[4\].")),
        (lambda: q.fake_quant_with_min_max_vars_per_channel_gradient(
            x, tf.constant(1.0), [-1.0] * 4, [1.0] * 4),
         "Shapes must be equal rank, but are 3 and 0"),
    ]
    for make, words in bad:
        with pytest.raises(ValueError, match=words):
            make()
    p, ph = tf.placeholder(tf.float32), tf.placeholder(tf.float32, [None, None])
    shapes = lambda ts: [t.get_shape().as_list() for t in ts]
    assert shapes(q.fake_quant_with_min_max_vars_gradient(p, ph, p, p)) == [[None, None], [], []]
    assert shapes(q.fake_quant_with_min_max_vars_per_channel_gradient(
        p, ph, p, p)) == [[None, None], [None], [None]]
    assert shapes(q.fake_quant_with_min_max_vars_per_channel_gradient(
        ph, p, [-1.0] * 4, p)) == [[None, None], [4], [4]]
    # no static check between the Args gradient's two inputs: the first one's shape
    assert q.fake_quant_with_min_max_args_gradient(x2, x).get_shape().as_list() == [3, 4]


# ------------------------------------------------------------------------------------------
# quantize_and_dequantize (QuantizeAndDequantizeV2/V3)
# ------------------------------------------------------------------------------------------


def test_quantize_and_dequantize_rounds_small_negatives_to_positive_zero():
    # TF 1.15 rounds half to even by floor and fraction, so -0.3 -> +0.0; -0.0 stays -0.0
    x = tf.constant([-0.3, 0.2, 1.7, -0.0, -0.6], tf.float32)
    q = tf.quantization
    got = _run([q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=2),
                q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=2, range_given=True),
                q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=3, signed_input=False,
                                          range_given=True),
                q.quantize_and_dequantize(x, 0.0, 0.0, num_bits=3, range_given=True)])
    want = [([0.0, 0.0, 1.7, -0.0, 0.0], [False, False, False, True, False]),
            ([0.0, 0.0, 1.0, -0.0, -1.0], [False, False, False, True, True]),
            ([0.0, 1 / 7, 1.0, -0.0, 0.0], [False, False, False, True, False]),
            ([-0.0, 0.0, 0.0, -0.0, -0.0], [True, False, False, True, True])]
    for g, (values, signs) in zip(got, want):
        np.testing.assert_allclose(g, values, rtol=1e-6)
        assert list(np.signbit(g)) == signs


def test_quantize_and_dequantize_op_name_checks_and_v3():
    x = tf.constant([-0.3, 0.2, 1.7, -0.0, -0.6], tf.float32)
    q = tf.quantization
    assert q.quantize_and_dequantize(x, -1.0, 1.0).name == "QuantizeAndDequantizeV2:0"
    with tf.name_scope("blk"):
        assert q.quantize_and_dequantize(x, -1.0, 1.0).name == "blk/QuantizeAndDequantizeV2:0"
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        q.quantize_and_dequantize(x, [-1.0], 1.0)
    with pytest.raises(TypeError, match="DataType int32 not in list of allowed values"):
        q.quantize_and_dequantize(tf.constant([1, 2]), -2.0, 2.0)
    v3 = tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=-1.0, input_max=1.0,
                                            num_bits=3, range_given=False)
    assert v3.op.type == "QuantizeAndDequantizeV3"
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=-1.0, input_max=1.0, num_bits=[3])
    (g,) = tf.gradients(tf.reduce_sum(v3 * 2.0), x)  # straight through, as TF 1.15
    errs = [
        (q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=62, range_given=True),
         "num_bits is out of range: 62 with signed_input_ 1"),
        (q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=63, signed_input=False),
         "num_bits is out of range: 63 with signed_input_ 0"),
        (tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=-1.0, input_max=1.0,
                                            num_bits=0),
         "num_bits is out of range: 0 with signed_input_ 1"),
        (q.quantize_and_dequantize(tf.cast(x, tf.float64), 1.1, 1.0, range_given=True),
         "Invalid range: input_min 1.1 > input_max 1\n"),
    ]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(v3), [-0.566667, 0.0, 1.7, -0.0, -0.566667],
                                   rtol=1e-5)
        _same(s.run(g), [2.0] * 5)
        # unsigned 62 bits and signed 61 bits are in range
        s.run(q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=62, signed_input=False))
        np.testing.assert_allclose(
            s.run(q.quantize_and_dequantize(x, -1.0, 1.0, num_bits=61, range_given=True)),
            [-0.3, 0.2, 1.0, -0.0, -0.6], rtol=1e-6)
        for t, words in errs:
            with pytest.raises(tf.errors.InvalidArgumentError, match=words):
                s.run(t)
        # TF 1.15 checks the given range of float and double inputs only
        half = s.run(q.quantize_and_dequantize(tf.cast(x, tf.float16), 1.5, 1.25,
                                               range_given=True))
        np.testing.assert_allclose(half, [-0.295166, 0.196777, 1.25, -0.0, -0.600586],
                                   rtol=1e-3)


# ------------------------------------------------------------------------------------------
# quantized dtypes
# ------------------------------------------------------------------------------------------


def test_quantized_numpy_dtype_is_tfs_structured_dtype():
    assert tf.qint8.as_numpy_dtype == np.dtype([("qint8", np.int8)])
    assert tf.quint16.as_numpy_dtype == np.dtype([("quint16", np.uint16)])
    assert tf.float32.as_numpy_dtype is np.float32
    z = np.zeros(3, tf.qint8.as_numpy_dtype)  # feeds as TF: [0 0 0]
    p = tf.placeholder(tf.qint8, [3])
    c = tf.constant(np.array([1, 2, 3], np.int8), tf.qint8)
    v = tf.Variable(c)
    with tf.Session() as s:
        _same(s.run(tf.identity(p), {p: z}), [0, 0, 0])
        s.run(v.initializer)
        got = s.run(v)
        assert got.dtype == np.int8 and got.tolist() == [1, 2, 3]


def test_python_values_of_quantized_types_are_tuples_as_tf115():
    assert tf.constant([(1,), (2,)], tf.qint8).get_shape().as_list() == [2]
    assert tf.constant((1,), tf.qint8).get_shape().as_list() == []
    for value, dtype, words in [([1, 2, 3], tf.qint8, "got 1 of type 'int'"),
                                (5, tf.quint8, "got 5 of type 'int'"),
                                ([1.5], tf.qint8, "got 1.5 of type 'float'"),
                                ([300], tf.quint8, "got 300 of type 'int'")]:
        with pytest.raises(TypeError, match=f"Expected {dtype.name}, {words} instead."):
            tf.constant(value, dtype)
    with pytest.raises(TypeError, match="Expected qint8, got 0 of type 'int' instead."):
        tf.zeros([2], tf.qint8)


def test_bitcast_reaches_the_quantized_types():
    c = tf.constant(np.array([1, -2, 3], np.int8), tf.qint8)
    got = _run([tf.bitcast(c, tf.int8),
                tf.bitcast(tf.constant([1, 2], tf.int8), tf.qint8),
                tf.bitcast(tf.constant([1, 2], tf.int32), tf.qint32)])
    assert [g.tolist() for g in got] == [[1, -2, 3], [1, 2], [1, 2]]
    assert got[0].dtype == np.int8 and got[2].dtype == np.int32


# ------------------------------------------------------------------------------------------
# loss scaling (tf.train.experimental)
# ------------------------------------------------------------------------------------------


def test_loss_scale_optimizer_names_as_tf115():
    te = tf.train.experimental
    x = tf.placeholder(tf.float32, [None, 5])
    loss = tf.reduce_mean(tf.square(tf.layers.dense(x, 1, name="l2")))
    opt = te.MixedPrecisionLossScaleOptimizer(tf.train.AdamOptimizer(0.05), "dynamic")
    assert opt.get_name() == "Adam"
    train = opt.minimize(loss)
    # TF 1.15: the scale update's cond is 'cond', the wrapped Adam ('Adam-wrapped') runs in
    # 'cond_1', whose name scope its beta powers take; the group is named after the optimizer
    assert train.name == "Adam"
    assert [v.name for v in tf.global_variables()] == [
        "l2/kernel:0", "l2/bias:0", "current_loss_scale:0", "good_steps:0",
        "cond_1/beta1_power:0", "cond_1/beta2_power:0", "l2/kernel/Adam:0", "l2/kernel/Adam_1:0",
        "l2/bias/Adam:0", "l2/bias/Adam_1:0"]
    assert [op.name for op in tf.get_collection(tf.GraphKeys.TRAIN_OP)] == ["cond_1/Adam-wrapped"]
    # the wrapper keeps no slots of its own (TF 1.15: None and [])
    assert opt.get_slot(tf.trainable_variables()[0], "m") is None
    assert opt.get_slot_names() == [] and opt.variables() == []
    # a fixed scale hands apply_gradients to the wrapped optimizer
    fixed = te.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1), 64)
    assert fixed.minimize(loss).name == "GradientDescent"


def test_dynamic_loss_scale_steps_and_stops_short_of_overflow_as_tf115():
    x = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable([[0.5], [0.25]], name="w")
    loss = tf.reduce_sum(tf.matmul(x, w) ** 2)
    gs = tf.train.get_or_create_global_step()
    ls = tf.train.experimental.DynamicLossScale(initial_loss_scale=2.0 ** 20,
                                                increment_period=2, multiplier=4.0)
    opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.MomentumOptimizer(0.01, 0.9), ls)
    train = opt.minimize(loss, global_step=gs)
    feeds = [[[1.0, 2.0]]] * 2 + [[[1e30, 1.0]]] + [[[1.0, 2.0]]] * 2 + [[[np.nan, 1.0]]]
    # TF 1.15: (scale, global step, w[1]) after each step; non-finite steps are skipped
    want = [(1048576.0, 1, 0.21), (4194304.0, 2, 0.138), (1048576.0, 2, 0.138),
            (1048576.0, 3, 0.0444), (4194304.0, 4, -0.05928), (1048576.0, 4, -0.05928)]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for f, (scale, step, w1) in zip(feeds, want):
            s.run(train, {x: f})
            got_scale, got_step, got_w = s.run([ls(), gs, w])
            assert (got_scale, got_step) == (scale, step)
            np.testing.assert_allclose(got_w[1, 0], w1, rtol=1e-5)
    # a scale that would overflow float32 is not grown
    w = tf.Variable([1.0, 2.0])
    ls = tf.train.experimental.DynamicLossScale(initial_loss_scale=2.0 ** 126,
                                                increment_period=1, multiplier=4.0)
    opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(0.0), ls)
    train = opt.minimize(tf.reduce_sum(w) * 1e-30)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        assert s.run(ls()) == np.float32(2.0 ** 126)  # TF 1.15: 8.507059e+37 kept


def test_fixed_loss_scale_checks_as_tf115():
    te = tf.train.experimental
    with pytest.raises(ValueError, match="loss_scale_value must be at least 1."):
        te.FixedLossScale(0.5)
    with pytest.raises(ValueError, match="loss_scale_value must be a Python int or float."):
        te.FixedLossScale("x")
    with pytest.raises(ValueError, match="Could not interpret loss scale identifier: foo"):
        te.MixedPrecisionLossScaleOptimizer(tf.train.AdamOptimizer(), "foo")
    update, apply = te.FixedLossScale(3).update([])
    assert apply is True and update.type == "NoOp"
    assert _run(te.FixedLossScale(3)()) == 3.0


def test_contrib_exponential_loss_scale_manager_updates_under_conds():
    # TF 1.15's manager updates under nested conds, so its ops take no top-level names: the
    # train op is 'group_deps' and a later product is 'mul_3'
    mp = tf.contrib.mixed_precision
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.get_variable("w", [3, 2], initializer=tf.ones_initializer())
    loss = tf.reduce_sum(tf.matmul(x, w) ** 2)
    mgr = mp.ExponentialUpdateLossScaleManager(2.0 ** 10, 2, decr_every_n_nan_or_inf=2,
                                               incr_ratio=2, decr_ratio=0.5)
    opt = mp.LossScaleOptimizer(tf.train.AdamOptimizer(0.01), mgr)
    train = opt.minimize(loss)
    assert train.name == "group_deps"
    assert [g.name for g, _ in opt.compute_gradients(loss)] == ["mul_3:0"]
    scales = []
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for f in [1.0, 1.0, np.inf, 1.0, np.inf, np.inf, 1.0]:
            s.run(train, {x: np.full([2, 3], f, np.float32)})
            scales.append(s.run(mgr.get_loss_scale()))
    # TF 1.15's rule: x2 after two good steps in a row, x0.5 after two bad ones (a good
    # step does not reset the bad count)
    assert scales == [1024.0, 2048.0, 2048.0, 2048.0, 1024.0, 1024.0, 1024.0]


# ------------------------------------------------------------------------------------------
# float16 and bfloat16 kernels: TF 1.15 rounds each step to the 16-bit type
# ------------------------------------------------------------------------------------------

_LOGITS = np.array([[-5.0, -4.09, -1.0, 0.0, 0.5, 3.0, 2.2, -0.3, 1.7, 0.01]], np.float32)


def test_half_softmax_log_softmax_and_sigmoid_round_each_step():
    h = tf.constant(_LOGITS, tf.float16)
    sm, lsm, sig = _run([tf.nn.softmax(h), tf.nn.log_softmax(h), tf.nn.sigmoid(h)])
    assert sm.dtype == np.float16
    # TF 1.15's printed values
    _same(sm, [[0.00017118453979492188, 0.0004253387451171875, 0.00934600830078125,
                0.025390625, 0.041900634765625, 0.51025390625, 0.2291259765625,
                0.0188140869140625, 0.13916015625, 0.0256500244140625]])
    _same(lsm, [[-8.671875, -7.76171875, -4.671875, -3.671875, -3.171875, -0.6728515625,
                 -1.4736328125, -3.97265625, -1.97265625, -3.6640625]])
    _same(sig, [[0.006694793701171875, 0.0164642333984375, 0.268798828125, 0.5,
                 0.62255859375, 0.95263671875, 0.89990234375, 0.425537109375, 0.845703125,
                 0.50244140625]])


def test_bfloat16_sigmoid_and_sums_round_each_step():
    b = tf.constant(_LOGITS, tf.bfloat16)
    v = tf.cast(tf.linspace(0.0, 1.0, 300), tf.bfloat16)
    m = tf.cast(tf.reshape(tf.linspace(-3.0, 7.0, 120), [4, 30]), tf.bfloat16)
    got = _run([tf.cast(t, tf.float32) for t in [
        tf.nn.sigmoid(b), tf.reduce_sum(v), tf.reduce_mean(v), tf.reduce_sum(m, 1),
        tf.reduce_mean(m, 0)]])
    # TF 1.15: sigmoid is 0.5 + 0.5 * tanh(x / 2) in bfloat16; sums add one after another
    # in bfloat16 (the exact sum of the 300 values is 150)
    _same(got[0], [[0.005859375, 0.015625, 0.26953125, 0.5, 0.62109375, 0.953125, 0.8984375,
                    0.42578125, 0.84375, 0.50390625]])
    assert (got[1], got[2]) == (153.0, 0.51171875)
    _same(got[3], [-53.75, 22.25, 98.0, 174.0])
    _same(got[4][:4], [0.78125, 0.8671875, 0.9453125, 1.03125])


def test_saturate_cast_to_half_compares_ranges_without_numpy_warnings():
    import warnings

    i = tf.constant([-70000, -200, 70000, 2 ** 31 - 1], tf.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # TF 1.15 prints nothing here
        t = tf.saturate_cast(i, tf.float16)
        u = tf.saturate_cast(tf.constant([-1e10, 7e4, np.nan]), tf.float16)
    got = _run([t, u])
    _same(got[0], [-65504.0, -200.0, 65504.0, 65504.0])
    _same(got[1], [-65504.0, 65504.0, np.nan])


def test_quantized_avg_pool_truncates_the_mean_as_tf115():
    xv = np.random.RandomState(3).rand(1, 5, 5, 2).astype(np.float32) * 4 - 1
    q = tf.quantization.quantize(xv, -1.0, 3.0, tf.quint8)
    pools = [tf.nn.quantized_avg_pool(q.output, q.output_min, q.output_max, [1, 2, 2, 1],
                                      [1, 2, 2, 1], "VALID"),
             tf.nn.quantized_avg_pool(q.output, q.output_min, q.output_max, [1, 2, 3, 1],
                                      [1, 2, 1, 1], "VALID")]
    got = _run([p.output for p in pools])
    # TF 1.15 (window means 124.5, 109.5, 165.75, 105.5 -> 124, 109, 165, 105)
    assert got[0].ravel().tolist() == [97, 124, 109, 144, 165, 151, 120, 105]
    assert got[1].ravel().tolist() == [131, 146, 113, 129, 86, 132, 149, 137, 137, 113, 111, 119]


def test_print_shows_quantized_values():
    # TF 1.15 prints a quantized tensor's integers (bfloat16 as '?')
    q = tf.quantization.quantize([0.5, 1.0, -0.2], -1.0, 1.0, tf.qint8, mode="SCALED").output
    b = tf.cast(tf.constant([1.5, -2.25]), tf.bfloat16)
    assert _run(tf.strings.format("{} {}", [q, b])) == b"[64 127 -25] [? ?]"


def test_16_bit_activations_round_each_step():
    # TF 1.15's printed values: half's Elu/Selu use exp(x) - 1 in half; bfloat16's Softplus is
    # log(exp(x) + 1) in bfloat16 without thresholds; Softsign rounds its denominator
    v = [-0.000755, -0.3, -2.5, 0.00042, 0.4166, 1.5]
    want = {
        tf.float16: [[-0.0009765625, -0.25927734375, -0.91796875, 0.0004200935363769531,
                      0.41650390625, 1.5],
                     [-0.00171661376953125, -0.455810546875, -1.61328125,
                      0.0004413127899169922, 0.437744140625, 1.576171875],
                     [-0.0007538795471191406, -0.2308349609375, -0.71435546875,
                      0.0004200935363769531, 0.294189453125, 0.60009765625],
                     [0.69287109375, 0.55419921875, 0.078857421875, 0.693359375,
                      0.92236328125, 1.701171875]],
        tf.bfloat16: [[-0.00075531005859375, -0.259765625, -0.91796875, 0.00041961669921875,
                       0.416015625, 1.5],
                      [-0.0013275146484375, -0.45703125, -1.6171875, 0.000438690185546875,
                       0.435546875, 1.5703125],
                      [-0.00075531005859375, -0.2314453125, -0.71484375, 0.00041961669921875,
                       0.294921875, 0.6015625],
                      [0.69140625, 0.5546875, 0.0751953125, 0.69140625, 0.921875, 1.6953125]],
    }
    for dt, rows in want.items():
        x = tf.cast(tf.constant(v), dt)
        got = _run([tf.cast(f(x), tf.float32) for f in [tf.nn.elu, tf.nn.selu, tf.nn.softsign,
                                                        tf.nn.softplus]])
        for g, w in zip(got, rows):
            _same(g, w)


def test_16_bit_activation_gradients_round_each_step():
    v, gv = [-2.3, -0.41, 0.07, 1.9], [0.7, -1.3, 2.1, 0.37]
    # TF 1.15's printed gradients of elu, selu, softsign, sigmoid (4 elements: half's scalar
    # code, (dy * y) * (1 - y) for the sigmoid)
    want = {
        tf.float16: [[0.070068359375, -0.8623046875, 2.099609375, 0.3701171875],
                     [0.12310791015625, -1.515625, 2.20703125, 0.388916015625],
                     [0.06427001953125, -0.65380859375, 1.8330078125, 0.043975830078125],
                     [0.0579833984375, -0.311767578125, 0.5244140625, 0.041839599609375]],
        tf.bfloat16: [[0.07080078125, -0.859375, 2.09375, 0.369140625],
                      [0.1259765625, -1.5234375, 2.1875, 0.38671875],
                      [0.064453125, -0.65625, 1.8203125, 0.043701171875],
                      [0.057861328125, -0.310546875, 0.5234375, 0.04248046875]],
    }
    for dt, rows in want.items():
        x, g = tf.cast(tf.constant(v), dt), tf.cast(tf.constant(gv), dt)
        got = _run([tf.cast(tf.gradients(f(x), x, grad_ys=g)[0], tf.float32)
                    for f in [tf.nn.elu, tf.nn.selu, tf.nn.softsign, tf.nn.sigmoid]])
        for gr, w in zip(got, rows):
            _same(gr, w)
    # a Python float times a bfloat16 array is float32 under ml_dtypes: the square root
    # gradients stay bfloat16, as TF's
    b = tf.cast(tf.constant([0.3, 1.7]), tf.bfloat16)
    got = _run([tf.gradients(tf.sqrt(b), b)[0], tf.gradients(tf.rsqrt(b), b)[0]])
    assert [np.asarray(t).dtype for t in got] == [tf.bfloat16.as_numpy_dtype] * 2


def test_checkpoint_reader_gives_quantized_values_as_integers(tmp_path):
    tf.Variable(tf.quantization.quantize([0.1, 0.9], 0.0, 1.0, tf.quint8).output, name="q")
    tf.Variable(np.array([1.5, -2.25], np.float16), name="h")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(s, str(tmp_path / "m"))
    # TF 1.15: array([ 26, 230], dtype=uint8) and 'q (DT_QUINT8) [2]'
    got = tf.train.load_variable(path, "q")
    assert got.dtype == np.uint8 and got.tolist() == [26, 230]
    assert tf.train.load_variable(path, "h").dtype == np.float16
    assert tf.train.NewCheckpointReader(path).debug_string() == (
        b"h (DT_HALF) [2]\nq (DT_QUINT8) [2]\n")


def test_feeding_an_overflowing_value_to_half_is_silent():
    import warnings

    p = tf.placeholder(tf.float16, [None])
    with tf.Session() as s, warnings.catch_warnings():
        warnings.simplefilter("error")  # TF 1.15 prints nothing: [2.2 4.4 inf]
        got = s.run(p * 2, {p: [1.1, 2.2, 70000.0]})
    assert got.dtype == np.float16 and np.isinf(got[2])


def test_half_avg_pool_adds_its_taps_in_half():
    xv = np.array([[0.1, 1000.0, 0.3], [2.7, -999.0, 0.6], [-0.05, 3.3, 0.4]], np.float16)
    x = tf.constant(xv.reshape(1, 3, 3, 1))
    got = _run(tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")).ravel()
    # TF 1.15 sums each window tap by tap in half, then divides in half
    want = []
    for i, j in np.ndindex(3, 3):
        acc = np.float16(0)
        for r, c in np.ndindex(2, 2):
            if i + r < 3 and j + c < 3:
                acc = np.float16(acc + xv[i + r, j + c])
        want.append(acc / np.float16(min(2, 3 - i) * min(2, 3 - j)))
    _same(got, want)


def test_half_reduce_prod_multiplies_in_half():
    xv = (np.random.RandomState(4).rand(3, 11) * 1.5 + 0.5).astype(np.float16)
    inner, outer = _run([tf.reduce_prod(tf.constant(xv), 1), tf.reduce_prod(tf.constant(xv), 0)])
    # TF 1.15's printed values: 8-lane packets along the last axis, rows one after another
    _same(inner, [17.125, 3.966796875, 8.328125])
    _same(outer[:4], [2.607421875, 4.265625, 2.94140625, 0.7177734375])


def test_bfloat16_prod_and_scans_in_bfloat16():
    xv = (np.random.RandomState(4).rand(3, 11) * 1.5 + 0.5).astype(np.float32)
    x = tf.cast(tf.constant(xv), tf.bfloat16)
    prod, cs, cp = _run([tf.cast(t, tf.float32) for t in [
        tf.reduce_prod(x, 1), tf.cumsum(x, 1), tf.cumprod(x, 1)]])
    # TF 1.15's printed values (each partial result rounded to bfloat16)
    _same(prod, [17.0, 3.96875, 8.3125])
    _same(cs[1], [0.796875, 2.59375, 4.5625, 5.3125, 6.71875, 7.21875, 8.3125, 8.875, 10.8125,
                  12.0, 13.9375])
    _same(cp[2], [1.6796875, 3.015625, 2.28125, 1.3984375, 1.953125, 1.46875, 2.359375, 2.625,
                  3.390625, 6.46875, 8.3125])


def test_bfloat16_matmul_truncates_its_float32_product():
    a = np.array([[1.0, 2.0, 3.0], [0.1, -0.7, 2.5]], np.float32)
    b = np.array([[0.3, -1.1], [1.9, 0.2], [-0.6, 2.2]], np.float32)
    got = _run(tf.cast(tf.matmul(tf.cast(a, tf.bfloat16), tf.cast(b, tf.bfloat16)),
                       tf.float32))
    # TF 1.15 keeps the upper 16 bits of the float32 product (no rounding)
    ab = tf.cast(a, tf.bfloat16), tf.cast(b, tf.bfloat16)
    fa, fb = _run([tf.cast(t, tf.float32) for t in ab])
    want = ((fa @ fb).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    _same(got, want)
    # TF 1.15 prints [[2.28125, 5.90625], [-2.796875, 5.25]]: 2.2929688 truncates to
    # 2.28125 (rounding gives 2.296875)
    _same(got, [[2.28125, 5.90625], [-2.796875, 5.25]])
