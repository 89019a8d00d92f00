"""Inception-v3 (Szegedy et al., "Rethinking the Inception Architecture for Computer Vision",
2015) as TF-slim publishes it: the stem, Mixed_5b..Mixed_7c with factorized 1x7/7x1 and 1x3/3x1
convolutions, batch normalization after every convolution, the auxiliary head on Mixed_6e,
dropout and 1x1-convolution logits; ``depth_multiplier``/``min_depth`` scale the channels.

Variables carry slim's names (``InceptionV3/Mixed_6b/Branch_1/Conv2d_0b_1x7/weights``,
``.../BatchNorm/beta``, ``moving_mean``, ``moving_variance``). Batch normalization is
``tf.layers.batch_normalization`` (decay 0.9997, epsilon 0.001, no scale, as slim's Inception
arg scope); its moving-average updates go to ``tf.GraphKeys.UPDATE_OPS``.
"""

import tideflow as tf

IMAGE_SIZE = 299
NUM_CHANNELS = 3
NUM_CLASSES = 1001  # ImageNet's 1000 classes plus slim's background class 0
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 1281167
NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = 50000

# the constants of the Inception trainer (inception_train.py)
BATCHNORM_DECAY = 0.9997
BATCHNORM_EPSILON = 0.001
WEIGHT_DECAY = 0.00004
MOVING_AVERAGE_DECAY = 0.9999
LABEL_SMOOTHING = 0.1
AUX_LOSS_WEIGHT = 0.4
INITIAL_LEARNING_RATE = 0.1
NUM_EPOCHS_PER_DECAY = 30.0
LEARNING_RATE_DECAY_FACTOR = 0.16


class _Builder:
    """Holds what every convolution of one network shares: training mode and the depth rule."""

    def __init__(self, is_training, depth_multiplier, min_depth, weight_decay):
        if depth_multiplier <= 0:
            raise ValueError("depth_multiplier is not greater than zero.")
        self.is_training = is_training
        self.depth_multiplier = depth_multiplier
        self.min_depth = min_depth
        self.regularizer = (tf.contrib.layers.l2_regularizer(weight_decay)
                            if weight_decay else None)

    def depth(self, d):
        return max(int(d * self.depth_multiplier), self.min_depth)

    def conv(self, net, depth, kernel, scope, stride=1, padding="SAME", stddev=None,
             batch_norm=True, activation=True):
        """A bias-free convolution, batch normalization and ReLU (slim's ``conv2d`` under the
        Inception arg scope); without ``batch_norm`` it has biases instead."""
        kh, kw = kernel
        with tf.variable_scope(scope):
            in_depth = net.get_shape()[3].value
            init = (tf.truncated_normal_initializer(stddev=stddev) if stddev is not None
                    else tf.variance_scaling_initializer(scale=2.0))
            weights = tf.get_variable("weights", [kh, kw, in_depth, depth], initializer=init,
                                      regularizer=self.regularizer)
            net = tf.nn.conv2d(net, weights, [1, stride, stride, 1], padding)
            if batch_norm:
                net = tf.layers.batch_normalization(
                    net, momentum=BATCHNORM_DECAY, epsilon=BATCHNORM_EPSILON, scale=False,
                    training=self.is_training, name="BatchNorm")
            else:
                biases = tf.get_variable("biases", [depth], initializer=tf.zeros_initializer())
                net = tf.nn.bias_add(net, biases)
            if activation:
                net = tf.nn.relu(net)
        return net


def _max_pool(net, size, stride, padding, name):
    return tf.nn.max_pool(net, [1, size, size, 1], [1, stride, stride, 1], padding, name=name)


def _avg_pool(net, kernel, stride, padding, name):
    kh, kw = kernel
    return tf.nn.avg_pool(net, [1, kh, kw, 1], [1, stride, stride, 1], padding, name=name)


def _reduced_kernel_size(net, kernel):
    """``kernel`` shrunk to the feature map when the input is too small for it (as slim does)."""
    shape = net.get_shape().as_list()
    if shape[1] is None or shape[2] is None:
        return list(kernel)
    return [min(shape[1], kernel[0]), min(shape[2], kernel[1])]


def _mixed_5(b, net, pool_depth, first):
    """Mixed_5b/5c/5d: 1x1; 1x1 -> 5x5; 1x1 -> 3x3 -> 3x3; avg pool -> 1x1 (35x35 grid)."""
    d = b.depth
    with tf.variable_scope("Branch_0"):
        branch_0 = b.conv(net, d(64), [1, 1], "Conv2d_0a_1x1")
    with tf.variable_scope("Branch_1"):
        # slim names Mixed_5c/5d's layers of this branch 0b/1_0c (a quirk kept for checkpoints)
        branch_1 = b.conv(net, d(48), [1, 1], "Conv2d_0a_1x1" if first else "Conv2d_0b_1x1")
        branch_1 = b.conv(branch_1, d(64), [5, 5], "Conv2d_0b_5x5" if first else "Conv_1_0c_5x5")
    with tf.variable_scope("Branch_2"):
        branch_2 = b.conv(net, d(64), [1, 1], "Conv2d_0a_1x1")
        branch_2 = b.conv(branch_2, d(96), [3, 3], "Conv2d_0b_3x3")
        branch_2 = b.conv(branch_2, d(96), [3, 3], "Conv2d_0c_3x3")
    with tf.variable_scope("Branch_3"):
        branch_3 = _avg_pool(net, [3, 3], 1, "SAME", "AvgPool_0a_3x3")
        branch_3 = b.conv(branch_3, d(pool_depth), [1, 1], "Conv2d_0b_1x1")
    return tf.concat(axis=3, values=[branch_0, branch_1, branch_2, branch_3])


def _mixed_6a(b, net):
    """Grid reduction 35x35 -> 17x17."""
    d = b.depth
    with tf.variable_scope("Branch_0"):
        branch_0 = b.conv(net, d(384), [3, 3], "Conv2d_1a_1x1", stride=2, padding="VALID")
    with tf.variable_scope("Branch_1"):
        branch_1 = b.conv(net, d(64), [1, 1], "Conv2d_0a_1x1")
        branch_1 = b.conv(branch_1, d(96), [3, 3], "Conv2d_0b_3x3")
        branch_1 = b.conv(branch_1, d(96), [3, 3], "Conv2d_1a_1x1", stride=2, padding="VALID")
    with tf.variable_scope("Branch_2"):
        branch_2 = _max_pool(net, 3, 2, "VALID", "MaxPool_1a_3x3")
    return tf.concat(axis=3, values=[branch_0, branch_1, branch_2])


def _mixed_6(b, net, width):
    """Mixed_6b..6e: the 7x7 convolutions factorized into 1x7 and 7x1 (17x17 grid)."""
    d = b.depth
    with tf.variable_scope("Branch_0"):
        branch_0 = b.conv(net, d(192), [1, 1], "Conv2d_0a_1x1")
    with tf.variable_scope("Branch_1"):
        branch_1 = b.conv(net, d(width), [1, 1], "Conv2d_0a_1x1")
        branch_1 = b.conv(branch_1, d(width), [1, 7], "Conv2d_0b_1x7")
        branch_1 = b.conv(branch_1, d(192), [7, 1], "Conv2d_0c_7x1")
    with tf.variable_scope("Branch_2"):
        branch_2 = b.conv(net, d(width), [1, 1], "Conv2d_0a_1x1")
        branch_2 = b.conv(branch_2, d(width), [7, 1], "Conv2d_0b_7x1")
        branch_2 = b.conv(branch_2, d(width), [1, 7], "Conv2d_0c_1x7")
        branch_2 = b.conv(branch_2, d(width), [7, 1], "Conv2d_0d_7x1")
        branch_2 = b.conv(branch_2, d(192), [1, 7], "Conv2d_0e_1x7")
    with tf.variable_scope("Branch_3"):
        branch_3 = _avg_pool(net, [3, 3], 1, "SAME", "AvgPool_0a_3x3")
        branch_3 = b.conv(branch_3, d(192), [1, 1], "Conv2d_0b_1x1")
    return tf.concat(axis=3, values=[branch_0, branch_1, branch_2, branch_3])


def _mixed_7a(b, net):
    """Grid reduction 17x17 -> 8x8."""
    d = b.depth
    with tf.variable_scope("Branch_0"):
        branch_0 = b.conv(net, d(192), [1, 1], "Conv2d_0a_1x1")
        branch_0 = b.conv(branch_0, d(320), [3, 3], "Conv2d_1a_3x3", stride=2, padding="VALID")
    with tf.variable_scope("Branch_1"):
        branch_1 = b.conv(net, d(192), [1, 1], "Conv2d_0a_1x1")
        branch_1 = b.conv(branch_1, d(192), [1, 7], "Conv2d_0b_1x7")
        branch_1 = b.conv(branch_1, d(192), [7, 1], "Conv2d_0c_7x1")
        branch_1 = b.conv(branch_1, d(192), [3, 3], "Conv2d_1a_3x3", stride=2, padding="VALID")
    with tf.variable_scope("Branch_2"):
        branch_2 = _max_pool(net, 3, 2, "VALID", "MaxPool_1a_3x3")
    return tf.concat(axis=3, values=[branch_0, branch_1, branch_2])


def _mixed_7(b, net, last):
    """Mixed_7b/7c: expanded filter banks with 1x3 and 3x1 branches side by side (8x8 grid)."""
    d = b.depth
    with tf.variable_scope("Branch_0"):
        branch_0 = b.conv(net, d(320), [1, 1], "Conv2d_0a_1x1")
    with tf.variable_scope("Branch_1"):
        branch_1 = b.conv(net, d(384), [1, 1], "Conv2d_0a_1x1")
        branch_1 = tf.concat(axis=3, values=[
            b.conv(branch_1, d(384), [1, 3], "Conv2d_0b_1x3"),
            b.conv(branch_1, d(384), [3, 1], "Conv2d_0c_3x1" if last else "Conv2d_0b_3x1")])
    with tf.variable_scope("Branch_2"):
        branch_2 = b.conv(net, d(448), [1, 1], "Conv2d_0a_1x1")
        branch_2 = b.conv(branch_2, d(384), [3, 3], "Conv2d_0b_3x3")
        branch_2 = tf.concat(axis=3, values=[
            b.conv(branch_2, d(384), [1, 3], "Conv2d_0c_1x3"),
            b.conv(branch_2, d(384), [3, 1], "Conv2d_0d_3x1")])
    with tf.variable_scope("Branch_3"):
        branch_3 = _avg_pool(net, [3, 3], 1, "SAME", "AvgPool_0a_3x3")
        branch_3 = b.conv(branch_3, d(192), [1, 1], "Conv2d_0b_1x1")
    return tf.concat(axis=3, values=[branch_0, branch_1, branch_2, branch_3])


def inception_v3_base(b, inputs):
    """The network up to Mixed_7c; returns (net, end_points)."""
    end_points = {}
    d = b.depth

    def add(name, net):
        end_points[name] = net
        return net

    # stem: 299 x 299 x 3 -> 35 x 35 x 192
    net = add("Conv2d_1a_3x3", b.conv(inputs, d(32), [3, 3], "Conv2d_1a_3x3", stride=2,
                                      padding="VALID"))
    net = add("Conv2d_2a_3x3", b.conv(net, d(32), [3, 3], "Conv2d_2a_3x3", padding="VALID"))
    net = add("Conv2d_2b_3x3", b.conv(net, d(64), [3, 3], "Conv2d_2b_3x3"))
    net = add("MaxPool_3a_3x3", _max_pool(net, 3, 2, "VALID", "MaxPool_3a_3x3"))
    net = add("Conv2d_3b_1x1", b.conv(net, d(80), [1, 1], "Conv2d_3b_1x1", padding="VALID"))
    net = add("Conv2d_4a_3x3", b.conv(net, d(192), [3, 3], "Conv2d_4a_3x3", padding="VALID"))
    net = add("MaxPool_5a_3x3", _max_pool(net, 3, 2, "VALID", "MaxPool_5a_3x3"))

    for name, pool_depth in (("Mixed_5b", 32), ("Mixed_5c", 64), ("Mixed_5d", 64)):
        with tf.variable_scope(name):
            net = add(name, _mixed_5(b, net, pool_depth, first=name == "Mixed_5b"))
    with tf.variable_scope("Mixed_6a"):
        net = add("Mixed_6a", _mixed_6a(b, net))
    for name, width in (("Mixed_6b", 128), ("Mixed_6c", 160), ("Mixed_6d", 160),
                        ("Mixed_6e", 192)):
        with tf.variable_scope(name):
            net = add(name, _mixed_6(b, net, width))
    with tf.variable_scope("Mixed_7a"):
        net = add("Mixed_7a", _mixed_7a(b, net))
    for name in ("Mixed_7b", "Mixed_7c"):
        with tf.variable_scope(name):
            net = add(name, _mixed_7(b, net, last=name == "Mixed_7c"))
    return net, end_points


def inference(images, num_classes=NUM_CLASSES, is_training=True, dropout_keep_prob=0.8,
              depth_multiplier=1.0, min_depth=16, aux_logits=True, weight_decay=WEIGHT_DECAY,
              scope="InceptionV3"):
    """Inception-v3 logits for [N, H, W, 3] images scaled to [-1, 1]; returns
    ``(logits, end_points)`` with ``end_points['AuxLogits']`` when ``aux_logits``.

    Below about 107x107 pixels the auxiliary head's 5x5 average pool is shrunk to the Mixed_6e
    feature map (slim would fail there), so reduced models build down to 75x75.
    """
    b = _Builder(is_training, depth_multiplier, min_depth, weight_decay)
    with tf.variable_scope(scope, "InceptionV3", [images]):
        net, end_points = inception_v3_base(b, images)

        if aux_logits:
            with tf.variable_scope("AuxLogits"):
                aux = end_points["Mixed_6e"]
                aux = _avg_pool(aux, _reduced_kernel_size(aux, [5, 5]), 3, "VALID",
                                "AvgPool_1a_5x5")
                aux = b.conv(aux, b.depth(128), [1, 1], "Conv2d_1b_1x1")
                kernel = _reduced_kernel_size(aux, [5, 5])
                aux = b.conv(aux, b.depth(768), kernel, "Conv2d_2a_{}x{}".format(*kernel),
                             padding="VALID", stddev=0.01)
                aux = b.conv(aux, num_classes, [1, 1], "Conv2d_2b_1x1", stddev=0.001,
                             batch_norm=False, activation=False)
                end_points["AuxLogits"] = tf.squeeze(aux, [1, 2], name="SpatialSqueeze")

        with tf.variable_scope("Logits"):
            kernel = _reduced_kernel_size(net, [8, 8])
            net = _avg_pool(net, kernel, 1, "VALID", "AvgPool_1a_{}x{}".format(*kernel))
            net = tf.layers.dropout(net, rate=1.0 - dropout_keep_prob, training=is_training,
                                    name="Dropout_1b")
            end_points["PreLogits"] = net
            logits = b.conv(net, num_classes, [1, 1], "Conv2d_1c_1x1", batch_norm=False,
                            activation=False)
            logits = tf.squeeze(logits, [1, 2], name="SpatialSqueeze")
        end_points["Logits"] = logits
        end_points["Predictions"] = tf.nn.softmax(logits, name="Predictions")
    return logits, end_points


def loss(logits, labels, end_points=None, label_smoothing=LABEL_SMOOTHING,
         aux_weight=AUX_LOSS_WEIGHT):
    """Softmax cross-entropy with label smoothing on the logits and (weighted 0.4) on the
    auxiliary logits, plus the weight decay terms; returns the total loss."""
    num_classes = logits.get_shape()[-1].value
    onehot = tf.one_hot(tf.cast(labels, tf.int32), num_classes)
    tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=label_smoothing,
                                    scope="cross_entropy")
    if end_points is not None and "AuxLogits" in end_points:
        tf.losses.softmax_cross_entropy(onehot, end_points["AuxLogits"], weights=aux_weight,
                                        label_smoothing=label_smoothing,
                                        scope="aux_cross_entropy")
    return tf.losses.get_total_loss(name="total_loss")
