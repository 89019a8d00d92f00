"""The model zoo: output shapes, exact parameter counts (Inception-v3 against the published
figures, the CIFAR-10 tutorial CNN), slim's variable names, the losses (weight decay, label
smoothing), Inception preprocessing, and a reduced Inception-v3 that trains."""

import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.models import cifar10, digits, inception_v3, inputs, preprocessing


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _count(variables):
    return sum(int(np.prod(v.get_shape().as_list())) for v in variables)


def test_inception_v3_published_parameter_count():
    # Keras' InceptionV3 (1000 classes, no auxiliary head): 23,851,784 parameters in all, of
    # which 23,817,352 trainable and 34,432 the batch-norm moving means and variances.
    start = time.time()
    images = tf.placeholder(tf.float32, [None, 299, 299, 3])
    logits, end_points = inception_v3.inference(images, 1000, is_training=True, aux_logits=False)
    assert time.time() - start < 20.0  # graph construction only
    assert logits.get_shape().as_list() == [None, 1000]
    assert _count(tf.trainable_variables()) == 23_817_352
    assert _count(tf.global_variables()) == 23_851_784
    # one beta, moving mean and moving variance per batch-normalized convolution (94 of them)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2 * 94
    shapes = {name: end_points[name].get_shape().as_list()[1:] for name in (
        "Conv2d_4a_3x3", "Mixed_5b", "Mixed_5d", "Mixed_6a", "Mixed_6e", "Mixed_7a", "Mixed_7c")}
    assert shapes == {"Conv2d_4a_3x3": [71, 71, 192], "Mixed_5b": [35, 35, 256],
                      "Mixed_5d": [35, 35, 288], "Mixed_6a": [17, 17, 768],
                      "Mixed_6e": [17, 17, 768], "Mixed_7a": [8, 8, 1280],
                      "Mixed_7c": [8, 8, 2048]}


def test_inception_v3_slim_parameter_count_with_aux_head():
    # TF-slim's inception_v3 for the 1001-class ImageNet checkpoint, auxiliary head included
    images = tf.placeholder(tf.float32, [None, 299, 299, 3])
    _, end_points = inception_v3.inference(images, 1001)
    assert end_points["AuxLogits"].get_shape().as_list() == [None, 1001]
    assert _count(tf.trainable_variables()) == 27_145_970
    assert _count(tf.global_variables()) == 27_182_194
    names = {v.op.name for v in tf.global_variables()}
    for name in ("InceptionV3/Conv2d_1a_3x3/weights",
                 "InceptionV3/Conv2d_1a_3x3/BatchNorm/beta",
                 "InceptionV3/Conv2d_1a_3x3/BatchNorm/moving_mean",
                 "InceptionV3/Mixed_5c/Branch_1/Conv_1_0c_5x5/weights",
                 "InceptionV3/Mixed_6b/Branch_2/Conv2d_0e_1x7/weights",
                 "InceptionV3/Mixed_7c/Branch_1/Conv2d_0c_3x1/weights",
                 "InceptionV3/AuxLogits/Conv2d_2a_5x5/weights",
                 "InceptionV3/AuxLogits/Conv2d_2b_1x1/biases",
                 "InceptionV3/Logits/Conv2d_1c_1x1/weights"):
        assert name in names, name
    # weight decay on every convolution's weights: 94 + 2 (aux head) batch-normalized, 2 logits
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 94 + 2 + 2


def test_inception_v3_depth_multiplier_and_small_inputs():
    images = tf.placeholder(tf.float32, [4, 75, 75, 3])
    logits, end_points = inception_v3.inference(images, 10, depth_multiplier=0.1)
    assert logits.get_shape().as_list() == [4, 10]
    assert end_points["AuxLogits"].get_shape().as_list() == [4, 10]
    # depth(d) = max(int(0.1 * d), 16): Mixed_7c's branches 32 + 2*38 + 2*38 + 19
    assert end_points["Mixed_7c"].get_shape().as_list() == [4, 1, 1, 203]
    with pytest.raises(ValueError, match="depth_multiplier"):
        inception_v3.inference(images, 10, depth_multiplier=0.0, scope="bad")


def test_inception_v3_label_smoothing_loss():
    logits_value = np.random.RandomState(0).randn(4, 5).astype(np.float32)
    labels_value = np.array([0, 3, 1, 4])
    logits = tf.constant(logits_value)
    total = inception_v3.loss(logits, tf.constant(labels_value), label_smoothing=0.1)
    target = np.full((4, 5), 0.1 / 5) + 0.9 * np.eye(5)[labels_value]
    log_softmax = logits_value - np.log(np.exp(logits_value).sum(1, keepdims=True))
    expected = -(target * log_softmax).sum(1).mean()
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(total), expected, rtol=1e-5)


def test_reduced_inception_v3_trains():
    tf.set_random_seed(1)
    images, labels = inputs.synthetic_inputs(8, 75, 3, 4, seed=3)
    global_step = tf.train.get_or_create_global_step()
    logits, end_points = inception_v3.inference(images, 4, depth_multiplier=0.1)
    loss = inception_v3.loss(logits, labels, end_points)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        loss = tf.identity(loss)
    train_op = tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.9, epsilon=1.0).minimize(
        loss, global_step)
    moving_mean = tf.get_default_graph().get_tensor_by_name(
        "InceptionV3/Conv2d_1a_3x3/BatchNorm/moving_mean:0")
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        losses = [sess.run([train_op, loss])[1] for _ in range(12)]
        assert np.abs(sess.run(moving_mean)).sum() > 0  # the batch-norm updates ran
    assert np.isfinite(losses).all()
    assert np.mean(losses[-3:]) < losses[0], losses


def test_cifar10_parameter_count_and_weight_decay():
    images = tf.placeholder(tf.float32, [None, 24, 24, 3])
    logits = cifar10.inference(images)
    assert logits.get_shape().as_list() == [None, 10]
    # conv1 4,864 + conv2 102,464 + local3 885,120 + local4 73,920 + softmax 1,930
    assert _count(tf.trainable_variables()) == 1_068_298
    assert len(tf.get_collection("losses")) == 2  # weight decay of local3 and local4
    total = cifar10.loss(logits, tf.placeholder(tf.int64, [None]))
    assert len(tf.get_collection("losses")) == 3
    assert total.op.type == "AddN"


def test_cifar10_preprocessing_shapes():
    raw = tf.constant(np.random.RandomState(0).randint(0, 256, (32, 32, 3)).astype(np.uint8))
    train, evaluation = cifar10.distort_image(raw), cifar10.eval_image(raw)
    with tf.Session() as sess:
        a, b = sess.run([train, evaluation])
    assert a.shape == b.shape == (24, 24, 3)
    np.testing.assert_allclose([b.mean(), b.std()], [0.0, 1.0], atol=1e-4)


@pytest.mark.parametrize("model", [digits.softmax_inference, digits.mlp_inference,
                                   digits.cnn_inference])
def test_digits_models(model):
    images = tf.placeholder(tf.float32, [None, 8, 8, 1])
    logits = model(images, 10, is_training=True)
    assert logits.get_shape().as_list() == [None, 10]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(logits, {images: np.zeros((3, 8, 8, 1))}).shape == (3, 10)


def test_inception_preprocessing():
    image = tf.placeholder(tf.uint8, [None, None, 3])
    train = preprocessing.preprocess_image(image, 48, 40, is_training=True)
    evaluation = preprocessing.preprocess_image(image, 48, 40)
    assert train.get_shape().as_list() == evaluation.get_shape().as_list() == [48, 40, 3]
    pixels = np.random.RandomState(0).randint(0, 256, (70, 90, 3)).astype(np.uint8)
    with tf.Session() as sess:
        for _ in range(8):
            a, b = sess.run([train, evaluation], {image: pixels})
            assert a.shape == b.shape == (48, 40, 3)
            assert a.min() >= -1.0 and a.max() <= 1.0
        # the evaluation crop is deterministic: the central 87.5%, resized
        b2 = sess.run(evaluation, {image: pixels})
    np.testing.assert_array_equal(b, b2)
    assert -1.0 <= b.min() and b.max() <= 1.0


def test_random_selector_runs_every_case():
    x = tf.constant(0.0)
    picked = preprocessing.apply_with_random_selector(x, lambda v, case: v + case, 4)
    with tf.Session() as sess:
        seen = {float(sess.run(picked)) for _ in range(60)}
    assert seen == {0.0, 1.0, 2.0, 3.0}


def test_distort_color_stays_in_range():
    image = tf.constant(np.random.RandomState(1).rand(16, 16, 3).astype(np.float32))
    outs = [preprocessing.distort_color(image, order) for order in range(4)]
    outs.append(preprocessing.distort_color(image, 1, fast_mode=True))
    with tf.Session() as sess:
        for value in sess.run(outs):
            assert value.shape == (16, 16, 3)
            assert value.min() >= 0.0 and value.max() <= 1.0
