"""Differential parity with TF 1.15 on the GitHub programs of the TensorFlow-Program-Bugs
study (DCGAN, spatial transformer, slim ResNet feature extractors, seq2seq...): each test
reduces one program's differing call to plain TF 1.x calls; expected values are TF 1.15's
printed outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_slim_softmax_goes_through_a_2d_view_and_is_named_reshape_1():
    # APIM-1 (slim resnet_v1 with num_classes): end_points['predictions'] is TF 1.15's
    # "<scope>/predictions/Reshape_1:0", the 4-D logits softmaxed through a 2-D view
    slim = tf.contrib.slim
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0)
    p = slim.softmax(x)
    p2 = tf.contrib.layers.softmax(tf.constant([[1., 2.], [3., 5.]]), scope="sm2")
    ph = tf.placeholder(tf.float32, [None, None, 3])
    p3 = slim.softmax(ph)
    assert (p.name, p2.name, p3.name) == ("softmax/Reshape_1:0", "sm2/Reshape_1:0",
                                          "softmax_1/Reshape_1:0")
    assert p.get_shape().as_list() == [2, 3, 4]
    assert p3.get_shape().as_list() == [None, None, 3]
    assert [o.name for o in tf.get_default_graph().get_operations()][1:6] == [
        "softmax/Reshape/shape", "softmax/Reshape", "softmax/Softmax", "softmax/Shape",
        "softmax/Reshape_1"]
    g = tf.gradients(tf.reduce_sum(p * tf.constant(np.arange(4, dtype=np.float32))), x)[0]
    with pytest.raises(ValueError, match=r"^dimension -1 of shape must be known but is None: "
                       r"\(2, \?\)$"):
        slim.softmax(tf.placeholder(tf.float32, [2, None]))
    with pytest.raises(ValueError, match="^rank of shape must be at least 2 not: 1$"):
        slim.softmax(tf.constant([1., 2.]))
    with pytest.raises(ValueError, match="^dims of shape must be known but is None$"):
        slim.softmax(tf.placeholder(tf.float32))
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(p)[1, 2],
                                   [0.1992294, 0.22982404, 0.26511693, 0.30582967], rtol=1e-5)
        np.testing.assert_allclose(sess.run(g)[0][0],
                                   [-0.33421656, -0.15571651, 0.08548782, 0.40444538], rtol=1e-5)
        assert sess.run(p3, {ph: np.ones([2, 0, 3])}).shape == (2, 0, 3)
    with tf.contrib.slim.arg_scope(tf.contrib.slim.nets.resnet_v1.resnet_arg_scope()):
        _, ends = tf.contrib.slim.nets.resnet_v1.resnet_v1_50(
            tf.zeros([1, 32, 32, 3]), num_classes=5, scope="r50")
    assert ends["predictions"].name == "r50/predictions/Reshape_1:0"


def test_softmax_cross_entropy_of_zero_classes_is_zero_per_row():
    # APIC-24 (sequence losses, differential corner): TF 1.15 gives a 0 loss per row and an
    # empty backprop for logits of shape [batch, 0]; a zero-row batch gives an empty loss
    x = tf.zeros([2, 0])
    y = tf.zeros([2, 0])
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(logits=x, labels=y)
    gx, gy = tf.gradients(loss, [x, y])
    empty = tf.nn.softmax_cross_entropy_with_logits_v2(logits=tf.zeros([0, 3]),
                                                       labels=tf.zeros([0, 3]))
    mean = tf.losses.softmax_cross_entropy(tf.zeros([2, 0]), tf.zeros([2, 0]))
    with tf.Session() as sess:
        lv, gxv, gyv, ev, mv = sess.run([loss, gx, gy, empty, mean])
    assert lv.tolist() == [0.0, 0.0] and lv.dtype == np.float32
    assert gxv.shape == (2, 0) and gyv.shape == (2, 0)
    assert ev.shape == (0,)
    assert mv == 0.0


def test_contrib_conv2d_reads_every_nc_format_as_channels_first():
    # APIC-16 (adversarial crypto's contrib convolutions): TF 1.15's conv2d takes any of
    # convolution's formats; one starting "NC" is channels first, the others channels last
    x = tf.constant(np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5) / 50)
    shapes = {}
    for i, df in enumerate([None, "NHWC", "NWC", "NDHWC", "NCW", "NCDHW", "NCHW"]):
        y = tf.contrib.layers.conv2d(x, 2, 3, data_format=df, scope=f"c{i}",
                                     weights_initializer=tf.constant_initializer(0.1))
        shapes[df] = y.get_shape().as_list()
    assert shapes[None] == shapes["NWC"] == shapes["NDHWC"] == [2, 3, 4, 2]
    assert shapes["NCW"] == shapes["NCDHW"] == shapes["NCHW"] == [2, 2, 4, 5]
    for df in ("nhwc", "NHCW", ""):
        with pytest.raises(ValueError, match=f"^Invalid data_format: '{df}'$"):
            tf.contrib.layers.conv2d(x, 2, 3, data_format=df)
    with pytest.raises(ValueError, match="^Convolution expects input with rank 4, got 3$"):
        tf.contrib.layers.conv2d(tf.zeros([1, 1, 8]), 2, 3, data_format="NCW")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run("c2/Relu:0").sum(), 166.6, rtol=1e-5)


def test_draw_bounding_boxes_of_a_3d_image_says_shape_must_be_rank_4():
    # APIC-5/APIC-19 (im2txt / inception image processing): drawing the distorted box on the
    # un-batched image is TF 1.15's C++ rank error
    image = tf.zeros([10, 12, 3])
    boxes = tf.constant([[[0.1, 0.2, 0.5, 0.5]]])
    with pytest.raises(ValueError, match=r"^Shape must be rank 4 but is rank 3 for "
                       r"'DrawBoundingBoxes' \(op: 'DrawBoundingBoxes'\) with input shapes: "
                       r"\[10,12,3\], \[1,1,4\]\.$"):
        tf.image.draw_bounding_boxes(image, boxes)
    out = tf.image.draw_bounding_boxes(tf.expand_dims(image, 0), boxes)
    assert out.get_shape().as_list() == [1, 10, 12, 3]
    # (TF 1.15 hands on the images' shape unchanged: an unknown rank stays unknown)
    assert tf.image.draw_bounding_boxes(tf.placeholder(tf.float32), boxes).get_shape().ndims is None


def test_metrics_auc_argument_errors_are_tf_1_15s_and_spend_its_scope():
    # APIC-17 (ptn metrics, differential corner): TF 1.15 checks `curve` inside the "auc"
    # scope and `summation_method` only after the confusion counts exist
    fl = tf.constant([0., 1., 1., 0.])
    fp = tf.constant([0.1, 0.8, 0.4, 0.6])
    with pytest.raises(ValueError, match="^curve must be either ROC or PR, XX unknown$"):
        tf.metrics.auc(fl, fp, curve="XX")
    with pytest.raises(ValueError, match="^Invalid summation_method: xx$"):
        tf.metrics.auc(fl, fp, curve="PR", summation_method="xx")
    value, update = tf.metrics.auc(fl, fp, num_thresholds=3)
    assert value.name == "auc_2/value:0"
    assert [v.name for v in tf.local_variables()][:4] == [
        "auc_1/true_positives:0", "auc_1/false_negatives:0", "auc_1/true_negatives:0",
        "auc_1/false_positives:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run(update), 0.5, atol=1e-5)


def test_dilated_depthwise_and_separable_conv_go_through_space_to_batch():
    # APIC-18 (video prediction's CDNA, differential corner): TF 1.15 runs a dilated
    # depthwise_conv2d / separable_conv2d as with_space_to_batch around the native op, so
    # the result is <scope>/BatchToSpaceND and the later ops (and op seeds) number as in TF
    g = tf.get_default_graph()
    x = tf.reshape(tf.range(2 * 9 * 9 * 3, dtype=tf.float32), [2, 9, 9, 3]) / 100.
    f = tf.reshape(tf.range(3 * 3 * 3 * 2, dtype=tf.float32), [3, 3, 3, 2]) / 10.
    n0 = len(g.get_operations())
    y = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID", rate=[2, 2])
    assert y.name == "depthwise/BatchToSpaceND:0"
    assert [f"{o.name}:{o.type}" for o in g.get_operations()[n0:]] == [
        "depthwise/Shape:Const", "depthwise/dilation_rate:Const",
        "depthwise/required_space_to_batch_paddings/input_shape:Const",
        "depthwise/required_space_to_batch_paddings/base_paddings:Const",
        "depthwise/required_space_to_batch_paddings/paddings:Const",
        "depthwise/required_space_to_batch_paddings/crops:Const",
        "depthwise/SpaceToBatchND/block_shape:Const", "depthwise/SpaceToBatchND/paddings:Const",
        "depthwise/SpaceToBatchND:SpaceToBatchND", "depthwise:DepthwiseConv2dNative",
        "depthwise/BatchToSpaceND/block_shape:Const", "depthwise/BatchToSpaceND/crops:Const",
        "depthwise/BatchToSpaceND:BatchToSpaceND"]
    y2 = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME", rate=[2, 2])
    y3 = tf.nn.depthwise_conv2d(x, f, [1, 2, 2, 1], "VALID", rate=[2, 2])
    assert y3.get_shape().as_list() == [2, 3, 3, 6]
    ph = tf.placeholder(tf.float32, [None, None, None, 3])
    y4 = tf.nn.depthwise_conv2d(ph, f, [1, 1, 1, 1], "SAME", rate=[2, 2])
    assert y4.name == "depthwise_3/BatchToSpaceND:0"
    n1 = len(g.get_operations())
    s2 = tf.nn.separable_conv2d(x, f, tf.ones([1, 1, 6, 4]), [1, 1, 1, 1], "SAME", rate=[2, 2])
    names = [o.name for o in g.get_operations()[n1:]]
    assert names[:3] == ["ones", "separable_conv2d/Shape", "separable_conv2d/dilation_rate"]
    assert names[-3:] == ["separable_conv2d/BatchToSpaceND/crops",
                          "separable_conv2d/BatchToSpaceND", "separable_conv2d"]
    assert "separable_conv2d/depthwise" in names
    gx, gf = tf.gradients(tf.reduce_sum(y2 ** 2), [x, f])
    with tf.Session() as sess:
        v1, v2, v3, v4, sv = sess.run([y, y2, y3, y4, s2], {ph: np.ones([1, 5, 6, 3])})
        gxv, gfv = sess.run([gx, gf])
    np.testing.assert_allclose([v1.sum(), v2.sum(), v3.sum(), v4.sum(), sv.sum()],
                               [19168.875, 42749.754, 6643.2153, 2448.6, 170999.03], rtol=1e-5)
    np.testing.assert_allclose([gxv.sum(), gfv.sum()], [1633627.2, 1847278.5], rtol=1e-5)


def test_layer_padding_error_names_the_lowercased_padding():
    # APIC-18: TF 1.15's normalize_padding reports the lowercased value
    slim = tf.contrib.slim
    x = tf.zeros([1, 4, 4, 2])
    with pytest.raises(ValueError, match=r"Received: full$"):
        slim.conv2d_transpose(x, 2, 3, padding="FULL")
    with pytest.raises(ValueError, match=r"Received: full$"):
        tf.layers.conv2d(x, 2, 3, padding="FULL")
    with pytest.raises(ValueError, match=r"Received: full$"):
        tf.keras.layers.LocallyConnected2D(2, 3, padding="FULL")
