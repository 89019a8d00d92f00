"""Video, volumetric and spatio-temporal programs of TF 1.x against TF 1.15: 3-D convolutions
and pools, their op names and attr errors, ConvLSTMs, warps and 3-D U-Nets."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_conv3d_transpose_sizes_const_is_named_input_sizes():
    # TF 1.15 hands output_shape to the op unconverted: its Const is "<scope>/input_sizes"
    with tf.Graph().as_default() as g:
        x = tf.zeros([2, 4, 6, 6, 3])
        w = tf.zeros([2, 3, 3, 5, 3])
        tf.nn.conv3d_transpose(x, w, [2, 8, 12, 12, 5], [1, 2, 2, 2, 1])
        y = tf.nn.conv3d_transpose(x, w, np.array([2, 8, 12, 12, 5], np.int64), [1, 2, 2, 2, 1])
        names = [op.name for op in g.get_operations()]
        assert "conv3d_transpose/input_sizes" in names
        assert y.op.inputs[0].name == "conv3d_transpose_1/input_sizes:0"
        assert y.op.inputs[0].dtype == tf.int32  # TF 1.15: an int64 array lands as int32
        assert y.get_shape().as_list() == [2, 8, 12, 12, 5]


def test_conv3d_strides_reach_the_op_as_given():
    # TF 1.15's tf.nn.conv3d is the generated op wrapper: no 1-or-3-value strides
    with tf.Graph().as_default() as g:
        x = tf.zeros([2, 4, 6, 6, 3])
        w = tf.zeros([2, 3, 3, 3, 8])
        with pytest.raises(ValueError, match=r"^Attr 'strides' of 'Conv3D' Op passed list of "
                           r"length 3 less than minimum 5\.$"):
            tf.nn.conv3d(x, w, [1, 2, 1], "SAME")
        with pytest.raises(TypeError, match=r"^Expected list for 'strides' argument to 'conv3d' "
                           r"Op, not 2\.$"):
            tf.nn.conv3d(x, w, 2, "SAME")
        with pytest.raises(ValueError, match=r"^Conv3D requires the dilation attribute to "
                           r"contain 5 values, but got: 3 for 'Conv3D_1'"):
            tf.nn.conv3d(x, w, [1] * 5, "SAME", dilations=[1, 2, 1])
        # the refused calls above took "Conv3D" and "Conv3D_1", as TF's
        assert tf.nn.conv3d(x, w, [1] * 5, "SAME", dilations=None).name == "Conv3D_2:0"
        assert [op.type for op in g.get_operations()].count("Conv3D") == 1


def test_pool3d_takes_its_name_before_checking_ksize():
    # TF 1.15's max_pool3d/avg_pool3d enter their name scope first: a refused ksize still
    # uses up "MaxPool3D"
    with tf.Graph().as_default():
        x = tf.zeros([2, 4, 6, 6, 3])
        with pytest.raises(ValueError, match="^ksize should be of length 1, 3 or 5 but was 4$"):
            tf.nn.max_pool3d(x, [1, 2, 2, 2], [1, 2, 2, 2, 1], "SAME")
        assert tf.nn.max_pool3d(x, [2, 2, 2, 2, 1], [1, 2, 2, 2, 1], "SAME").name == \
            "MaxPool3D_1:0"
        with pytest.raises(ValueError, match="^ksize should be of length 1, 3 or 5 but was 2$"):
            tf.nn.avg_pool3d(x, [2, 2], 2, "SAME")
        y = tf.nn.avg_pool3d(x, 2, 2, "SAME", data_format=None)
        assert (y.name, y.get_shape().as_list()) == ("AvgPool3D_1:0", [2, 2, 3, 3, 3])


def test_max_pool3d_grad_reaches_every_element_near_the_max():
    # TF 1.15's CPU MaxPool3DGrad adds each window's gradient wherever |x - max| < 1e-5, so
    # a ReLU's tied zeros all get it (MaxPool, and the half and bfloat16 3-D kernels, pick
    # the first max); overlapping windows add up. Expected values printed by TF 1.15.
    v = np.array([0., 0., 1., 1.000005, 2., 1.99999, 3., 3.00002, 0.5, 0.5, 0.5, 0.2],
                 np.float32)
    with tf.Graph().as_default():
        x = tf.constant(v.reshape(1, 1, 1, 12, 1))
        got = []
        for pad, k, st in [("VALID", 2, 2), ("VALID", 3, 2), ("SAME", 3, 2), ("SAME", 4, 3)]:
            y = tf.nn.max_pool3d(x, [1, 1, 1, k, 1], [1, 1, 1, st, 1], pad)
            got.append(tf.gradients(y, x, grad_ys=tf.ones_like(y) * 1.5)[0])
        h = tf.constant(np.array([0, 0, 1, 1.0005, 2, 2.001, 3, 3.02, .5, .5, .5, .2],
                                 np.float16).reshape(1, 1, 1, 12, 1))
        y = tf.nn.max_pool3d(h, [1, 1, 1, 2, 1], [1, 1, 1, 2, 1], "VALID")
        got.append(tf.gradients(y, h, grad_ys=tf.ones_like(y) * 1.5)[0])
        got = [r.ravel() for r in _run(got)]
    want = [[1.5, 1.5, 1.5, 1.5, 1.5, 0, 0, 1.5, 1.5, 1.5, 1.5, 0],
            [0, 0, 1.5, 0, 1.5, 0, 1.5, 1.5, 1.5, 1.5, 1.5, 0],
            [0, 0, 1.5, 0, 1.5, 0, 1.5, 1.5, 1.5, 1.5, 3, 0],
            [0, 0, 1.5, 1.5, 0, 0, 1.5, 1.5, 0, 1.5, 1.5, 0],
            [1.5, 0, 0, 1.5, 0, 1.5, 0, 1.5, 1.5, 0, 1.5, 0]]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, np.array(w, g.dtype))


def test_conv_lstm2d_without_dropout_leaves_the_learning_phase_to_later_layers():
    # TF 1.15's ConvLSTM2D makes no learning phase without dropout: a BatchNormalization
    # after it makes it (two op ids there), so a graph seed gives the next layer TF's
    # weights. Op id spans and the error's op name printed by TF 1.15.
    K, L = tf.keras, tf.keras.layers
    with tf.Graph().as_default() as g:
        inp = L.Input(shape=(4, 10, 10, 1))
        ids = [g._last_id]
        x = L.ConvLSTM2D(6, 3, padding="same", return_sequences=True, name="clstm1")(inp)
        ids.append(g._last_id)
        x = L.BatchNormalization(name="bn")(x)
        ids.append(g._last_id)
        L.ConvLSTM2D(4, 3, name="clstm2")(x)
        ids.append(g._last_id)
        assert np.diff(ids).tolist() == [243, 88, 243]
        assert K.backend.learning_phase().op._id > ids[1]
        with pytest.raises(ValueError, match=r"^Negative dimension size caused by subtracting "
                           r"3 from 2 for 'c5/convolution' \(op: 'Conv2D'\)"):
            L.ConvLSTM2D(3, 3, name="c5", data_format="channels_first")(
                L.Input(shape=(4, 10, 10, 2)))


def test_keras_conv3d_transpose_builds_tf_output_shape_ops():
    # TF 1.15's Conv3DTranspose slices batch, depth, height and width from the input's
    # dynamic shape and multiplies them by the strides (45 ops with its weights, printed by TF 1.15), so a
    # seeded layer after it gets TF's weights
    L = tf.keras.layers
    with tf.Graph().as_default() as g:
        inp = L.Input(shape=(6, 5, 3, 4))
        n = g._last_id
        out = L.Conv3DTranspose(2, 3, strides=2, padding="same", name="c3dt")(inp)
        assert g._last_id - n == 45
        assert out.get_shape().as_list() == [None, 12, 10, 6, 2]
        names = [op.name for op in g.get_operations()]
        assert names.index("c3dt/strided_slice_3") < names.index("c3dt/mul_2") < \
            names.index("c3dt/stack") < names.index("c3dt/conv3d_transpose")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            y = sess.run(out, {inp: np.ones([1, 6, 5, 3, 4], np.float32)})
        assert y.shape == (1, 12, 10, 6, 2)


def test_input_layer_shapes_are_lists_of_one():
    # TF 1.15: an InputLayer's node holds its placeholder in a list
    L = tf.keras.layers
    with tf.Graph().as_default():
        inp = L.Input(shape=(6, 8), name="x")
        m = tf.keras.models.Model(inp, L.Dense(2)(inp))
        layer = m.layers[0]
        assert layer.output_shape == [(None, 6, 8)]
        assert layer.input_shape == [(None, 6, 8)]
        assert layer.get_output_shape_at(0) == (None, 6, 8)
        assert layer.get_input_shape_at(0) == (None, 6, 8)
        assert (m.input_shape, m.output_shape) == ((None, 6, 8), (None, 6, 2))
        assert L.InputLayer(input_shape=(4,)).output_shape == [(None, 4)]


def test_patch_shape_functions_follow_tf():
    # TF 1.15's ExtractImagePatches/ExtractVolumePatches shape functions (messages printed by
    # TF 1.15): the rank check, a negative VALID size, an empty window's depth of 0, and
    # image rows and cols both unknown when either is
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Computed output size would be negative: -1 "
                           r"\[input_size: 5, effective_filter_size: 7, stride: 1\] for "
                           r"'ExtractVolumePatches'"):
            tf.extract_volume_patches(tf.zeros([1, 5, 5, 5, 2]), [1, 7, 2, 2, 1], [1] * 5,
                                      "VALID")
        with pytest.raises(ValueError, match=r"^Computed output size would be negative: -1 "
                           r"\[input_size: 5, effective_filter_size: 7, stride: 1\]"):
            tf.extract_image_patches(tf.zeros([1, 5, 5, 2]), [1, 3, 2, 1], [1] * 4,
                                     [1, 3, 1, 1], "VALID")
        with pytest.raises(ValueError, match=r"^Shape must be rank 5 but is rank 4 for "
                           r"'ExtractVolumePatches_1'"):
            tf.extract_volume_patches(tf.zeros([2, 4, 4, 2]), [1, 2, 2, 2, 1], [1] * 5, "VALID")
        same = tf.extract_volume_patches(tf.zeros([1, 5, 5, 5, 2]), [1, 7, 2, 2, 1], [1] * 5,
                                         "SAME")
        assert same.get_shape().as_list() == [1, 5, 5, 5, 56]
        empty = tf.extract_volume_patches(tf.zeros([1, 5, 5, 5, 2]), [1, 0, 2, 2, 1], [1] * 5,
                                          "VALID")
        assert empty.get_shape().as_list() == [1, 6, 4, 4, 0]
        with pytest.raises(tf.errors.OutOfRangeError, match="^ksizes is out of range"):
            _run(empty)
        img = tf.placeholder(tf.float32, [None, None, 5, 2])
        y = tf.extract_image_patches(img, [1, 3, 2, 1], [1] * 4, [1] * 4, "VALID")
        assert y.get_shape().as_list() == [None, None, None, 12]


def test_conv_lstm2d_op_counts_stateful_dropout_and_fixed_batch():
    # op id spans printed by TF 1.15: a stateful layer (its state variables), dropout on both
    # the inputs and the recurrent state, and the loop gradient of a fixed-batch layer
    # (TF's elementwise gradients skip their broadcast ops on fully known shapes)
    L = tf.keras.layers
    spans = []
    for kw, batch in [({"stateful": True}, 2),
                      ({"dropout": 0.3, "recurrent_dropout": 0.2}, None), ({}, 2)]:
        with tf.Graph().as_default() as g:
            inp = L.Input(batch_shape=(batch, 3, 6, 6, 1))
            n = g._last_id
            layer = L.ConvLSTM2D(2, 3, padding="same", **kw)
            out = layer(inp)
            spans.append(g._last_id - n)
            n = g._last_id
            tf.gradients(tf.reduce_sum(out), layer.weights)
            spans.append(g._last_id - n)
    assert spans[:3] == [259, 396, 459] and spans[4:] == [243, 396]


def test_channels_first_3d_layers_name_their_ops_as_tf():
    # TF 1.15 (names and words it printed): tf.nn.convolution leaves a channel mismatch to the
    # op's shape function unless dilated; tf.layers.conv3d adds its bias with an 'NCHW'
    # BiasAdd; UpSampling3D repeats along the layout's own axes (no transposes)
    with tf.Graph().as_default():
        x = tf.zeros([1, 9, 10, 11, 2])
        with pytest.raises(ValueError, match=r"^Depth of input \(2\) is not a multiple of input "
                           r"depth of filter \(4\) for 'convolution' \(op: 'Conv3D'\)"):
            tf.nn.convolution(x, tf.zeros([3, 3, 3, 4, 3]), "SAME")
        with pytest.raises(ValueError, match=r"^number of input channels does not match "
                           r"corresponding dimension of filter, 2 != 4$"):
            tf.nn.convolution(x, tf.zeros([3, 3, 3, 4, 3]), "SAME", dilation_rate=[2, 2, 2])
        y = tf.layers.conv3d(tf.ones([2, 3, 4, 5, 6]), 2, 3, data_format="channels_first",
                             bias_initializer=tf.ones_initializer())
        assert (y.op.type, y.get_shape().as_list()) == ("BiasAdd", [2, 2, 2, 3, 4])
        up = tf.keras.layers.UpSampling3D(2, data_format="channels_first")(
            tf.reshape(tf.range(6, dtype=tf.float32), [1, 1, 1, 2, 3]))
        assert (up.name, up.get_shape().as_list()) == ("up_sampling3d/concat_2:0",
                                                       [1, 1, 2, 4, 6])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            v, u = sess.run([y, up])
        assert np.allclose(v[:, 0], v[0, 0, 0, 0, 0]) and v.shape == (2, 2, 2, 3, 4)
        np.testing.assert_array_equal(u[0, 0, 1], np.repeat(np.repeat(
            np.arange(6.0).reshape(2, 3), 2, 0), 2, 1))


def test_projective_transform_refuses_a_bad_transform_in_tf_words():
    # TF 1.15's ImageProjectiveTransformV2 kernel, as it printed
    with tf.Graph().as_default():
        img = tf.zeros([2, 8, 9, 3])
        for t in ([1, 0, 2, 0, 1, -1, 0], [[1, 0, 2, 0, 1, -1, 0, 0]] * 3):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="^Input transform should be num_images x 8 or 1 x 8"):
                _run(tf.contrib.image.transform(img, t))


def test_conv3d_backprop_filter_takes_its_sizes_as_given():
    # TF 1.15's generated wrapper (names and words it printed): a list becomes the op's
    # "filter_sizes" Const, a float tensor there is a TypeError, strides must be a list
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 5, 6, 2])
        dy = tf.ones([1, 3, 2, 5, 3])
        y = tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, [1, 1, 2, 1, 1], "VALID")
        assert y.op.inputs[1].name == "Conv3DBackpropFilterV2/filter_sizes:0"
        with pytest.raises(TypeError, match=r"^Input 'filter_sizes' of 'Conv3DBackpropFilterV2' "
                           r"Op has type float32 that does not match expected type of int32\.$"):
            tf.nn.conv3d_backprop_filter(x, tf.zeros([2, 2, 2, 2, 3]), dy, [1, 1, 2, 1, 1],
                                         "VALID")
        with pytest.raises(TypeError, match=r"^Expected list for 'strides' argument to "
                           r"'conv3d_backprop_filter_v2' Op, not 1\.$"):
            tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, 1, "VALID")
        assert tf.nn.conv3d_backprop_filter_v2(x, [2, 2, 2, 2, 3], dy, [1, 1, 2, 1, 1],
                                               "VALID").name == "Conv3DBackpropFilterV2_2:0"


def test_dilated_pool_goes_through_space_to_batch():
    # TF 1.15's tf.nn.pool with a dilation pools the space-to-batch input and returns the
    # BatchToSpaceND; its checks run inside its name scope, in its words (printed by TF 1.15)
    rng = np.random.RandomState(3)
    x = rng.randn(1, 9, 10, 11, 2).astype(np.float32)
    with tf.Graph().as_default():
        y = tf.nn.pool(tf.constant(x), [2, 3, 2], "MAX", "VALID", dilation_rate=[1, 2, 3])
        assert (y.name, y.get_shape().as_list()) == ("max_pool/BatchToSpaceND:0",
                                                     [1, 8, 6, 8, 2])
        with pytest.raises(ValueError, match="^pooling with SAME padding is not implemented "
                           "for dilation_rate > 1$"):
            tf.nn.pool(tf.constant(x), [2, 2, 2], "MAX", "SAME", dilation_rate=[2, 2, 2])
        with pytest.raises(ValueError, match=r"^len\(strides\)=1 but should be 3$"):
            tf.nn.pool(tf.constant(x), [2, 2, 2], "AVG", "VALID", strides=[1])
        z = tf.nn.pool(tf.constant(x[:, 0]), [2, 2], "AVG", "VALID", dilation_rate=[2, 3])
        assert z.name == "avg_pool_1/BatchToSpaceND:0"
        got = _run(y)
    want = np.full((1, 8, 6, 8, 2), -np.inf, np.float32)
    for a in range(2):
        for b in range(3):
            for c in range(2):
                want = np.maximum(want, x[:, a:a + 8, 2 * b:2 * b + 6, 3 * c:3 * c + 8])
    np.testing.assert_array_equal(got, want)


def test_keras_conv_layers_check_their_arguments_in_tf_words():
    # TF 1.15's Keras convolutions and croppings (messages printed by TF 1.15)
    L = tf.keras.layers
    with tf.Graph().as_default():
        x5 = L.Input((4, 6, 6, 2))
        with pytest.raises(ValueError, match="^all values of strides must be positive$"):
            L.Conv3D(2, 3, strides=0)(x5)
        with pytest.raises(ValueError, match="^strides > 1 not supported in conjunction with "
                           "dilation_rate > 1$"):
            L.Conv3D(2, 3, strides=2, dilation_rate=2)(x5)
        with pytest.raises(ValueError, match='^The `data_format` argument must be one of '
                           '"channels_first", "channels_last". Received: channels_middle$'):
            L.Conv3D(2, 3, data_format="channels_middle")
        with pytest.raises(ValueError, match=r"^The `1st entry of cropping` argument must be a "
                           r"tuple of 2 integers. Received: \(1, 2, 3\)$"):
            L.Cropping3D(((1, 2, 3), (0, 0), (0, 0)))
        with pytest.raises(ValueError, match=r"^The channel dimension of the inputs should be "
                           r"defined. Found `None`.$"):
            L.Conv3D(2, 3)(L.Input((4, 6, 6, None)))
        c = L.Conv3D(2, 3, name="c")
        c(x5)
        with pytest.raises(ValueError, match=r"^Input 0 of layer c is incompatible with the "
                           r"layer: expected axis -1 of input shape to have value 2 but "
                           r"received input with shape \[None, 4, 6, 6, 3\]$"):
            c(L.Input((4, 6, 6, 3)))


def test_tf_layers_conv3d_checks_its_strides_at_build():
    # TF 1.15's tf.layers.conv3d builds its Convolution object, which refuses a zero stride
    # in its own words (printed by TF 1.15)
    with tf.Graph().as_default(), pytest.raises(
            ValueError, match="^all values of strides must be positive$"):
        tf.layers.conv3d(tf.zeros([2, 3, 6, 6, 2]), 2, 3, strides=0)


def test_recurrent_loop_gradients_keep_tf_op_counts_for_any_activation():
    # op id spans of the layer and of its weights' gradient, printed by TF 1.15: the loop
    # gradient's size does not depend on the activations (elu's forward is one op too)
    L = tf.keras.layers
    cases = [(lambda: L.ConvLSTM2D(2, 3, activation="elu"), (3, 6, 6, 2), (243, 671)),
             (lambda: L.ConvLSTM2D(2, 3, recurrent_activation="sigmoid"), (3, 6, 6, 2),
              (201, 377)),
             (lambda: L.LSTM(3, activation="relu", recurrent_activation="sigmoid"), (4, 5),
              (238, 388)),
             (lambda: L.GRU(3, activation="elu"), (4, 5), (274, 577)),
             (lambda: L.SimpleRNN(3, activation="relu", return_sequences=True), (4, 5),
              (128, 131))]
    for make, shape, want in cases:
        with tf.Graph().as_default() as g:
            inp = L.Input(shape)
            n = g._last_id
            layer = make()
            out = layer(inp)
            span = g._last_id - n
            n = g._last_id
            tf.gradients(tf.reduce_sum(out), layer.weights)
            assert (span, g._last_id - n) == want, layer.name
