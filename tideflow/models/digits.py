"""Models for scikit-learn's 8x8 digits: softmax regression, a perceptron with dropout and a small
CNN, each as ``inference(images, num_classes, is_training) -> logits`` (TF 1.x style)."""

import tideflow as tf

IMAGE_SIZE = 8
NUM_CHANNELS = 1
NUM_CLASSES = 10


def _weight(name, shape, scale=2.0):
    return tf.get_variable(name, shape, initializer=tf.variance_scaling_initializer(scale))


def _bias(name, size):
    return tf.get_variable(name, [size], initializer=tf.zeros_initializer())


def _flatten(images):
    dim = 1
    for d in images.get_shape().as_list()[1:]:
        dim *= d
    return tf.reshape(images, [-1, dim])


def softmax_inference(images, num_classes=NUM_CLASSES, is_training=True):
    """Multinomial logistic regression on the flattened pixels."""
    del is_training  # nothing differs between training and evaluation
    with tf.variable_scope("softmax_linear"):
        x = _flatten(images)
        w = _weight("weights", [x.get_shape()[1].value, num_classes], 1.0)
        return tf.nn.xw_plus_b(x, w, _bias("biases", num_classes), name="logits")


def mlp_inference(images, num_classes=NUM_CLASSES, is_training=True, hidden=128,
                  keep_prob=0.8):
    """One hidden ReLU layer of ``hidden`` units with dropout while training."""
    x = _flatten(images)
    with tf.variable_scope("hidden"):
        w = _weight("weights", [x.get_shape()[1].value, hidden])
        h = tf.nn.relu(tf.matmul(x, w) + _bias("biases", hidden))
        if is_training:
            h = tf.nn.dropout(h, keep_prob)
    with tf.variable_scope("softmax_linear"):
        w = _weight("weights", [hidden, num_classes], 1.0)
        return tf.nn.xw_plus_b(h, w, _bias("biases", num_classes), name="logits")


def cnn_inference(images, num_classes=NUM_CLASSES, is_training=True):
    """conv 3x3x32 + relu + 2x2 max pool, conv 3x3x64 + relu + 2x2 max pool, dense 128, linear."""
    del is_training  # no dropout or batch normalization here
    channels = images.get_shape()[3].value
    with tf.variable_scope("conv1"):
        h = tf.nn.conv2d(images, _weight("weights", [3, 3, channels, 32]), [1, 1, 1, 1], "SAME")
        h = tf.nn.relu(tf.nn.bias_add(h, _bias("biases", 32)))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with tf.variable_scope("conv2"):
        h = tf.nn.conv2d(h, _weight("weights", [3, 3, 32, 64]), [1, 1, 1, 1], "SAME")
        h = tf.nn.relu(tf.nn.bias_add(h, _bias("biases", 64)))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = _flatten(h)
    with tf.variable_scope("fc"):
        w = _weight("weights", [h.get_shape()[1].value, 128])
        h = tf.nn.relu(tf.matmul(h, w) + _bias("biases", 128))
    with tf.variable_scope("softmax_linear"):
        w = _weight("weights", [128, num_classes], 1.0)
        return tf.nn.xw_plus_b(h, w, _bias("biases", num_classes), name="logits")


def loss(logits, labels):
    """Mean softmax cross-entropy of integer ``labels``, plus any regularization losses."""
    labels = tf.cast(labels, tf.int64)
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="cross_entropy")
    tf.losses.add_loss(xent)
    return tf.losses.get_total_loss(name="total_loss")
