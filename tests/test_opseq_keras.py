"""Op-sequence parity of tf.keras (graph mode) with TF 1.15.

A random op without an op seed takes the graph's op count as its seed (tf.set_random_seed's
rule), so a seeded Keras program gets TF 1.15's initial weights and dropout masks only when
the same number of ops comes before each random op. The expected names, counts and values
below are what TF 1.15 (tf.keras 2.2.4-tf) built and printed for the same calls.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g
    tf.keras.backend.clear_session()


def _names(g):
    return [op.name for op in g.get_operations()]


# -- tf.cond: the Switch/Merge frame TF 1.x builds is counted -------------------------------


def test_cond_counts_tf1_switch_and_merge_ops(_fresh_graph):
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [4])
    y = tf.cond(p, lambda: tf.nn.dropout(x, rate=0.5), lambda: x)
    r = tf.random_uniform([2])
    # TF 1.15: 32 ops (4 before the branches, a Switch per captured tensor, one Merge)
    assert _fresh_graph._last_id == 32
    with tf.Session() as s:
        yv, rv = s.run([y, r], {p: True, x: np.ones(4)})
    np.testing.assert_array_equal(yv, [2.0, 2.0, 2.0, 0.0])
    np.testing.assert_allclose(rv, [0.03881812, 0.5522677], rtol=1e-6)


def test_cond_counts_captures_of_one_branch_only(_fresh_graph):
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [3])
    z = tf.placeholder(tf.float32, [3])
    tf.cond(p, lambda: x * 2 + tf.random_normal([3]), lambda: z - 1.0)
    assert _fresh_graph._last_id == 21  # TF 1.15's count
    tf.cond(p, lambda: (x, x + 1), lambda: (x * 3, tf.ones([3])))
    assert _fresh_graph._last_id == 34


def test_keras_dropout_learning_phase_cond_seeds(_fresh_graph):
    x = tf.keras.Input(shape=(6,))
    d = tf.keras.layers.Dropout(0.5)(x)
    r = tf.random_uniform([2])
    assert _fresh_graph._last_id == 34
    s = tf.keras.backend.get_session()
    dv, rv = s.run([d, r], {x: np.ones((2, 6)), tf.keras.backend.learning_phase(): 1})
    np.testing.assert_array_equal(dv, [[2, 2, 2, 2, 0, 2], [2, 0, 0, 2, 2, 0]])
    np.testing.assert_allclose(rv, [0.04386163, 0.07983994], rtol=1e-6)


# -- layers: the ops TF 1.15's layers build, in its order ------------------------------------

_VARIABLE_PARTS = ("VariableV2", "VarHandleOp", "VarIsInitializedOp", "ReadVariableOp",
                   "AssignVariableOp", "IsVariableInitialized")


def _core(g):
    """The graph's op names but a variable's own ops (handle, initializer, assign, reads):
    how a weight is made and read is pinned elsewhere. An AssignSubVariableOp counts as its
    scope."""
    out = []
    for op in g.get_operations():
        last = op.name.rsplit("/", 1)[-1]
        if op.type in _VARIABLE_PARTS or "/Initializer/" in op.name or \
                last.startswith("ReadVariableOp") or last == "read" or \
                (op.type == "Assign" and last == "Assign"):
            continue
        out.append(op.name.removesuffix("/AssignSubVariableOp"))
    return out


def test_conv2d_pooling_flatten_ops(_fresh_graph):
    x = tf.keras.Input(shape=(8, 8, 3))
    c = tf.keras.layers.Conv2D(4, 3, padding="same")(x)
    p = tf.keras.layers.MaxPooling2D()(c)
    f = tf.keras.layers.Flatten()(p)
    assert _core(_fresh_graph) == [
        "input_1", "conv2d/dilation_rate", "conv2d/Conv2D", "conv2d/BiasAdd",
        "max_pooling2d/MaxPool", "flatten/Shape", "flatten/strided_slice/stack",
        "flatten/strided_slice/stack_1", "flatten/strided_slice/stack_2",
        "flatten/strided_slice", "flatten/Reshape/shape/1", "flatten/Reshape/shape",
        "flatten/Reshape"]
    assert f.get_shape().as_list() == [None, 64]
    v = tf.keras.backend.get_session().run(f, {x: np.zeros((2, 8, 8, 3))})
    assert v.shape == (2, 64)


def test_conv1d_ops(_fresh_graph):
    x = tf.keras.Input(shape=(10, 3))
    c = tf.keras.layers.Conv1D(4, 3)(x)
    assert _core(_fresh_graph) == [
        "input_1", "conv1d/dilation_rate", "conv1d/conv1d/ExpandDims/dim",
        "conv1d/conv1d/ExpandDims", "conv1d/conv1d/ExpandDims_1/dim",
        "conv1d/conv1d/ExpandDims_1", "conv1d/conv1d", "conv1d/conv1d/Squeeze",
        "conv1d/BiasAdd"]
    assert c.get_shape().as_list() == [None, 8, 4]


def test_batch_norm_4d_is_fused_as_tf(_fresh_graph):
    x = tf.keras.Input(shape=(4, 4, 3))
    tf.keras.layers.BatchNormalization()(x, training=True)
    assert _core(_fresh_graph) == [
        "input_1", "batch_normalization/Const", "batch_normalization/Const_1",
        "batch_normalization/FusedBatchNormV3", "batch_normalization/Const_2",
        "batch_normalization/AssignMovingAvg/sub/x", "batch_normalization/AssignMovingAvg/sub",
        "batch_normalization/AssignMovingAvg/sub_1", "batch_normalization/AssignMovingAvg/mul",
        "batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1/sub/x",
        "batch_normalization/AssignMovingAvg_1/sub",
        "batch_normalization/AssignMovingAvg_1/sub_1",
        "batch_normalization/AssignMovingAvg_1/mul", "batch_normalization/AssignMovingAvg_1"]


def test_batch_norm_2d_ops(_fresh_graph):
    x = tf.keras.Input(shape=(5,))
    tf.keras.layers.BatchNormalization()(x, training=True)
    bn = "batch_normalization/"
    assert _core(_fresh_graph) == ["input_1"] + [bn + n for n in (
        "moments/mean/reduction_indices", "moments/mean", "moments/StopGradient",
        "moments/SquaredDifference", "moments/variance/reduction_indices", "moments/variance",
        "moments/Squeeze", "moments/Squeeze_1", "AssignMovingAvg/decay", "AssignMovingAvg/sub",
        "AssignMovingAvg/mul", "AssignMovingAvg", "AssignMovingAvg_1/decay",
        "AssignMovingAvg_1/sub", "AssignMovingAvg_1/mul", "AssignMovingAvg_1",
        "batchnorm/add/y", "batchnorm/add", "batchnorm/Rsqrt", "batchnorm/mul",
        "batchnorm/mul_1", "batchnorm/mul_2", "batchnorm/sub", "batchnorm/add_1")]


def test_batch_norm_learning_phase_values(_fresh_graph):
    # TF 1.15's outputs and moving statistics (fused kernel, momentum 0.99)
    xv = np.random.RandomState(0).rand(6, 4, 4, 3).astype(np.float32)
    x = tf.keras.Input(shape=(4, 4, 3))
    layer = tf.keras.layers.BatchNormalization()
    b = layer(x)
    s = tf.keras.backend.get_session()
    s.run(tf.global_variables_initializer())
    feed = {x: xv, tf.keras.backend.learning_phase(): 1}
    o1 = s.run(b, feed)
    s.run(layer.updates, feed)
    o2 = s.run(b, {x: xv})
    np.testing.assert_allclose(o1[0, 0, 0], [0.1573325, 0.8087205, 0.271613], rtol=1e-5)
    np.testing.assert_allclose(o2[0, 0, 0], [0.5460134, 0.7133103, 0.5999648], rtol=1e-6)
    mm, mv = s.run(layer.weights[2:])
    np.testing.assert_allclose(mm, [0.00501668, 0.00479147, 0.00527173], rtol=1e-5)
    np.testing.assert_allclose(mv, [0.9908973, 0.99085075, 0.99077255], rtol=1e-6)


# -- recurrent layers: TF 1.15's op count around the loop ------------------------------------

# ops TF 1.15 made in the call of each layer (built first) on Input(shape)
_TF_RNN_CALL_OPS = [
    ("SimpleRNN(4)", (5, 3), 94), ("LSTM(4)", (5, 3), 240), ("GRU(4)", (5, 3), 238),
    ("SimpleRNN(4, return_sequences=True)", (5, 3), 94),
    ("LSTM(6, return_sequences=True)", (None, 3), 240), ("GRU(2)", (7, 5), 238),
    ("SimpleRNN(4, activation='relu')", (5, 3), 94), ("LSTM(4, use_bias=False)", (5, 3), 223),
    ("GRU(4, reset_after=True)", (5, 3), 266), ("LSTM(4, implementation=2)", (5, 3), 172),
    ("SimpleRNN(4, use_bias=False)", (5, 3), 89), ("LSTM(4, return_state=True)", (5, 3), 240),
    ("GRU(4, use_bias=False)", (5, 3), 201), ("GRU(4, implementation=2)", (5, 3), 202),
    ("GRU(4, reset_after=True, implementation=2)", (5, 3), 194),
    ("LSTM(4, implementation=2, use_bias=False)", (5, 3), 167),
    ("LSTM(4, recurrent_activation='sigmoid')", (5, 3), 198),
    ("GRU(4, recurrent_activation='sigmoid')", (5, 3), 210),
    ("SimpleRNN(4, go_backwards=True)", (5, 3), 96), ("SimpleRNN(4, activation=None)", (5, 3), 92),
    ("GRU(4, implementation=2, use_bias=False)", (5, 3), 197),
]


@pytest.mark.parametrize("spec,shape,count", _TF_RNN_CALL_OPS)
def test_rnn_layer_call_takes_tf_op_count(_fresh_graph, spec, shape, count):
    x = tf.keras.Input(shape=shape)
    layer = eval("tf.keras.layers." + spec)
    layer.build(x.shape)
    before = _fresh_graph._last_id
    layer(x)
    assert _fresh_graph._last_id - before == count


def test_rnn_without_dropout_makes_no_learning_phase(_fresh_graph):
    x = tf.keras.Input(shape=(5, 3))
    tf.keras.layers.LSTM(4)(x)
    assert "keras_learning_phase" not in _names(_fresh_graph)  # as TF 1.15



def test_conv2d_transpose_ops(_fresh_graph):
    x = tf.keras.Input(shape=(8, 8, 3))
    y = tf.keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(x)
    c = "conv2d_transpose/"
    slices = [f"{c}strided_slice{s}{p}" for s in ("", "_1", "_2")
              for p in ("/stack", "/stack_1", "/stack_2", "")]
    assert _core(_fresh_graph) == ["input_1", c + "Shape"] + slices + [
        c + "mul/y", c + "mul", c + "mul_1/y", c + "mul_1", c + "stack/3", c + "stack",
        c + "strided_slice_3/stack", c + "strided_slice_3/stack_1", c + "strided_slice_3/stack_2",
        c + "strided_slice_3", c + "conv2d_transpose", c + "BiasAdd"]
    assert y.get_shape().as_list() == [None, 16, 16, 4]
    z = tf.keras.layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)(x)
    assert z.get_shape().as_list() == [None, 18, 18, 2]
    assert tf.keras.backend.get_session().run(
        tf.shape(z), {x: np.zeros((1, 8, 8, 3))}).tolist() == [1, 18, 18, 2]


def test_upsampling_reshape_repeat_vector_ops(_fresh_graph):
    x = tf.keras.Input(shape=(4, 4, 3))
    u = tf.keras.layers.UpSampling2D()(x)
    assert _core(_fresh_graph)[1:] == [
        "up_sampling2d/Shape", "up_sampling2d/strided_slice/stack",
        "up_sampling2d/strided_slice/stack_1", "up_sampling2d/strided_slice/stack_2",
        "up_sampling2d/strided_slice", "up_sampling2d/Const", "up_sampling2d/mul",
        "up_sampling2d/resize/ResizeNearestNeighbor"]
    assert u.get_shape().as_list() == [None, 8, 8, 3]
    with tf.Graph().as_default() as g:
        x = tf.keras.Input(shape=(4, 6))
        tf.keras.layers.Reshape((2, 12))(x)
        v = tf.keras.layers.RepeatVector(3)(tf.keras.layers.Flatten()(x))
        assert _core(g)[1:10] == [
            "reshape/Shape", "reshape/strided_slice/stack", "reshape/strided_slice/stack_1",
            "reshape/strided_slice/stack_2", "reshape/strided_slice", "reshape/Reshape/shape/1",
            "reshape/Reshape/shape/2", "reshape/Reshape/shape", "reshape/Reshape"]
        assert _core(g)[-4:] == ["repeat_vector/ExpandDims/dim", "repeat_vector/ExpandDims",
                                 "repeat_vector/stack", "repeat_vector/Tile"]
        assert v.get_shape().as_list() == [None, 3, 24]


def test_weight_regularizer_is_made_when_losses_are_collected(_fresh_graph):
    x = tf.keras.Input(shape=(4,))
    layer = tf.keras.layers.Dense(3, kernel_regularizer=tf.keras.regularizers.l2(0.01))
    layer(x)
    # TF 1.15: nothing at build
    assert _core(_fresh_graph) == ["input_1", "dense/MatMul", "dense/BiasAdd"]
    with tf.name_scope("loss"):
        (reg,) = layer.losses
    assert reg.op.name == "loss/dense/kernel/Regularizer/add"
    assert [n for n in _core(_fresh_graph) if "Regularizer" in n] == [
        "loss/dense/kernel/Regularizer/Square", "loss/dense/kernel/Regularizer/Const",
        "loss/dense/kernel/Regularizer/Sum", "loss/dense/kernel/Regularizer/mul/x",
        "loss/dense/kernel/Regularizer/mul", "loss/dense/kernel/Regularizer/add/x",
        "loss/dense/kernel/Regularizer/add"]
    assert layer.losses == [reg]  # made once
    s = tf.keras.backend.get_session()
    s.run(tf.global_variables_initializer())
    np.testing.assert_allclose(s.run(reg), 0.01 * np.sum(s.run(layer.kernel) ** 2), rtol=1e-6)


def test_noise_layers_draw_tf_numbers(_fresh_graph):
    # TF 1.15's Keras seeds these from NumPy's generator (np.random.seed repeats them)
    np.random.seed(3)
    x = tf.keras.Input(shape=(6,))
    n = tf.keras.layers.GaussianNoise(0.1)(x)
    a = tf.keras.layers.AlphaDropout(0.3)(x)
    tf.keras.layers.GaussianDropout(0.3)(x)
    y = tf.keras.Input(shape=(2, 2, 3))
    sd = tf.keras.layers.SpatialDropout2D(0.5)(y)
    w = tf.random_normal([2])
    s = tf.keras.backend.get_session()
    nv, av, sv, wv = s.run([n, a, sd, w], {x: np.ones((2, 6)), y: np.ones((2, 2, 2, 3)),
                                           tf.keras.backend.learning_phase(): 1})
    np.testing.assert_allclose(nv[0], [0.9216667, 0.84839416, 0.944535, 1.0569187, 0.8815364,
                                       1.1816106], rtol=1e-6)
    hi, lo = 1.3150446, -1.0595481
    np.testing.assert_allclose(av, [[lo, lo, hi, lo, hi, hi], [lo, hi, lo, hi, hi, hi]],
                               rtol=1e-6)
    np.testing.assert_array_equal(sv[:, 0, 0], [[0, 2, 0], [2, 0, 0]])
    np.testing.assert_allclose(wv, [-0.70387346, -0.01866959], rtol=1e-6)


def test_backend_random_ops_take_numpy_seeds(_fresh_graph):
    np.random.seed(5)
    b = tf.keras.backend.random_binomial((2, 3), p=0.5)
    t = tf.keras.backend.truncated_normal((2,))
    u = tf.keras.backend.random_uniform((2,))
    bv, tv, uv = tf.Session().run([b, t, u])
    np.testing.assert_array_equal(bv, [[0, 1, 1], [0, 1, 1]])
    np.testing.assert_allclose(tv, [0.6998593, 0.36459264], rtol=1e-6)
    np.testing.assert_allclose(uv, [0.04364276, 0.43515325], rtol=1e-6)


# -- compile: TF 1.15's op count ---------------------------------------------------------------

# ops TF 1.15's compile made for a one-output model (Dense(3) with the activation given)
_TF_COMPILE_OPS = [
    ("mse", None, None, 24), ("mse", None, ["mae"], 50), ("mae", None, None, 25),
    ("binary_crossentropy", "sigmoid", ["accuracy"], 63),
    ("binary_crossentropy", None, None, 43), ("categorical_crossentropy", "softmax", ["acc"], 81),
    ("categorical_crossentropy", "relu", None, 35),
    ("sparse_categorical_crossentropy", "softmax", ["accuracy"], 62),
    ("sparse_categorical_crossentropy", "sigmoid", None, 40),
    ("mse", None, ["mae", "accuracy"], 78), ("mse", "softmax", ["mse"], 49),
]


@pytest.mark.parametrize("loss,act,metrics,count", _TF_COMPILE_OPS)
def test_compile_takes_tf_op_count(_fresh_graph, loss, act, metrics, count):
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,), activation=act)])
    before = _fresh_graph._last_id
    m.compile("sgd", loss, metrics=metrics)
    assert _fresh_graph._last_id - before == count


# -- seeded models: TF 1.15's numbers ---------------------------------------------------------


def test_seeded_sequential_with_dropout_trains_as_tf(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,), activation="relu"),
                             tf.keras.layers.Dropout(0.5),
                             tf.keras.layers.Dense(2, activation="softmax")])
    m.compile(tf.keras.optimizers.SGD(0.1), "categorical_crossentropy", metrics=["accuracy"])
    w0 = m.get_weights()
    rs = np.random.RandomState(0)
    xv = rs.rand(16, 3).astype(np.float32)
    yv = np.eye(2)[rs.randint(0, 2, 16)].astype(np.float32)
    h = m.fit(xv, yv, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_array_equal(w0[0], np.float32([
        [-0.21222126483917236, -0.25554025173187256, -0.09754335880279541, -0.852995753288269],
        [0.3660576343536377, 0.6796040534973145, -0.6496419906616211, 0.6397621631622314],
        [0.4058840274810791, 0.4902510643005371, -0.21801990270614624, 0.6338703632354736]]))
    np.testing.assert_array_equal(w0[2], np.float32([
        [0.7750718593597412, -0.4168086051940918], [-0.6934401988983154, -0.2569453716278076],
        [0.8041741847991943, 0.35260581970214844], [0.6733365058898926, 0.35480523109436035]]))
    # the dropout masks of the two epochs are TF's: the same losses
    np.testing.assert_allclose(h.history["loss"], [0.6345254778862, 0.6452674269676208],
                               rtol=1e-6)
    np.testing.assert_allclose(m.predict(xv[:3]), [
        [0.5803481936454773, 0.4196517765522003], [0.5624600052833557, 0.4375399649143219],
        [0.6421545743942261, 0.3578454256057739]], rtol=1e-5)


def test_seeded_dense_after_lstm_gets_tf_weights(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Embedding(20, 4, input_length=5),
                             tf.keras.layers.LSTM(3), tf.keras.layers.Dense(2)])
    np.testing.assert_array_equal(m.get_weights()[-2], np.float32([
        [-0.2012808918952942, -0.5820017457008362], [-0.692603349685669, -0.07069158554077148],
        [-0.8481988310813904, -0.692769467830658]]))
    np.testing.assert_allclose(m.predict(np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 0]])), [
        [0.0019536043982952833, 0.004857135470956564],
        [-0.0008589065982960165, 0.0035148579627275467]], rtol=1e-5, atol=1e-8)


def test_seeded_gan_generator_after_discriminator_compile(_fresh_graph):
    d = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,), activation="relu"),
                             tf.keras.layers.Dense(1, activation="sigmoid")])
    d.compile(tf.keras.optimizers.Adam(0.001), "binary_crossentropy", metrics=["accuracy"])
    g = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))])
    z = tf.keras.Input(shape=(2,))
    d.trainable = False
    combined = tf.keras.Model(z, d(g(z)))
    combined.compile("adam", "binary_crossentropy")
    h = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(2,))])
    np.testing.assert_array_equal(g.get_weights()[0], np.float32([
        [-0.6885480880737305, 0.8718289136886597, -0.8711012601852417],
        [0.5622924566268921, -1.0736525058746338, -0.39969491958618164]]))
    np.testing.assert_array_equal(h.get_weights()[0], np.float32([
        [-0.8908859491348267, -0.19005322456359863], [-0.4681456685066223, -1.1367542743682861]]))


def test_dot_and_layer_normalization_ops(_fresh_graph):
    x = tf.keras.Input(shape=(6,))
    y = tf.keras.Input(shape=(6,))
    d = tf.keras.layers.Dot(axes=1)([x, y])
    assert _core(_fresh_graph)[2:] == ["dot/Mul", "dot/Sum/reduction_indices", "dot/Sum",
                                       "dot/ExpandDims/dim", "dot/ExpandDims"]
    assert d.get_shape().as_list() == [None, 1]
    tf.keras.layers.LayerNormalization()(x)
    assert "layer_normalization/Reshape" not in _names(_fresh_graph)  # as TF: last axis only


def test_dense_on_a_sequence_transposes_and_reshapes_its_kernel(_fresh_graph):
    x = tf.keras.Input(shape=(6, 4))
    y = tf.keras.layers.Dense(3, name="q")(x)
    td = [n for n in _core(_fresh_graph) if n.startswith("q/Tensordot")]
    assert td[td.index("q/Tensordot/Reshape") + 1:] == [  # TF 1.15's, after the input's
        "q/Tensordot/transpose_1/perm", "q/Tensordot/transpose_1", "q/Tensordot/Reshape_1/shape",
        "q/Tensordot/Reshape_1", "q/Tensordot/MatMul", "q/Tensordot/Const_2",
        "q/Tensordot/concat_1/axis", "q/Tensordot/concat_1", "q/Tensordot"]
    assert y.get_shape().as_list() == [None, 6, 3]


# what a mask (Embedding(mask_zero=True) before) and dropout add to TF 1.15's count
_TF_RNN_EXTRA_OPS = [
    ("SimpleRNN(2{})", 94, [30, 30, 31, 31, 60, 31, 61]),
    ("LSTM(2{})", 240, [33, 33, 109, 109, 216, 109, 142]),
    ("GRU(2{})", 238, [30, 30, 83, 83, 164, 83, 113]),
    ("LSTM(2, implementation=2{})", 172, [33, 33, 100, 100, 198, 100, 133]),
]
_EXTRAS = [("", True), (", return_sequences=True", True), (", dropout=0.2", False),
           (", recurrent_dropout=0.2", False), (", dropout=0.2, recurrent_dropout=0.3", False),
           (", dropout=0.2, return_sequences=True", False), (", dropout=0.2", True)]


@pytest.mark.parametrize("spec,base,extras", _TF_RNN_EXTRA_OPS)
def test_masked_and_dropout_rnn_take_tf_op_count(spec, base, extras):
    def count(args, masked):
        with tf.Graph().as_default() as g:
            if masked:
                x = tf.keras.Input(shape=(5,))
                x = tf.keras.layers.Embedding(10, 3, mask_zero=True)(x)
            else:
                x = tf.keras.Input(shape=(5, 3))
            layer = eval("tf.keras.layers." + spec.format(args))
            layer.build(x.shape)
            before = g._last_id
            layer(x)
            return g._last_id - before

    assert count("", False) == base
    assert [count(a, m) - base for a, m in _EXTRAS] == extras


def test_seeded_masked_and_dropout_rnns_as_tf(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Embedding(20, 4, input_length=5, mask_zero=True),
                             tf.keras.layers.LSTM(3, return_sequences=True),
                             tf.keras.layers.GRU(2), tf.keras.layers.Dense(2)])
    np.testing.assert_array_equal(m.get_weights()[-2], np.float32([
        [-0.5876314043998718, -0.8787643909454346], [-0.7296121120452881, -0.8778693675994873]]))
    np.testing.assert_allclose(m.predict(np.array([[1, 2, 3, 0, 0], [6, 7, 8, 9, 4]])), [
        [0.001875565736554563, 0.0024206084199249744],
        [0.004913401789963245, 0.006867638323456049]], rtol=1e-5)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.LSTM(3, input_shape=(5, 2), dropout=0.3,
                                                      recurrent_dropout=0.2),
                                 tf.keras.layers.Dense(2)])
        np.testing.assert_array_equal(m.get_weights()[-2], np.float32([
            [0.41592323780059814, -0.13319140672683716],
            [-0.7945692539215088, 0.027262210845947266],
            [-0.6419587731361389, 0.14676618576049805]]))
        np.testing.assert_allclose(m.predict(np.ones((2, 5, 2))), [
            [-0.5917624235153198, 0.10924578458070755]] * 2, rtol=1e-5)


def test_dilated_convolution_constants(_fresh_graph):
    x = tf.keras.Input(shape=(8, 8, 3))
    tf.keras.layers.Conv2D(4, 3, dilation_rate=2)(x)
    names = _core(_fresh_graph)
    i = names.index("conv2d/dilation_rate")
    assert names[i + 1:i + 5] == [  # TF 1.15's, made with the layer's convolution op
        "conv2d/required_space_to_batch_paddings/input_shape",
        "conv2d/required_space_to_batch_paddings/base_paddings",
        "conv2d/required_space_to_batch_paddings/paddings",
        "conv2d/required_space_to_batch_paddings/crops"]
    y = tf.keras.Input(shape=(10, 3))
    c = tf.keras.layers.Conv1D(4, 3, dilation_rate=2, padding="causal")(y)
    names = _core(_fresh_graph)
    assert names[names.index("conv1d/Pad") + 1] == \
        "conv1d/required_space_to_batch_paddings/input_shape"
    assert c.get_shape().as_list() == [None, 10, 4]


def test_fit_predict_evaluate_functions_ops(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,), activation="relu"),
                             tf.keras.layers.Dense(1)])
    m.compile("sgd", "mse")
    before = _fresh_graph._last_id
    m.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1, verbose=0)
    made = [op.name for op in _fresh_graph.get_operations() if op._id > before]
    # TF 1.15: the learning phase first, the train function's group in its own scope
    assert made[:2] == ["keras_learning_phase/input", "keras_learning_phase"]
    assert "training_1/group_deps" in made
    before = _fresh_graph._last_id
    m.predict(np.ones((2, 4)))
    m.evaluate(np.ones((2, 4)), np.ones((2, 1)), verbose=0)
    m.predict(np.ones((2, 4)))
    assert [op.name for op in _fresh_graph.get_operations() if op._id > before] == [
        "predict/group_deps", "evaluation/group_deps"]
