"""``tensorflow.examples.tutorials.mnist.mnist``: the two-hidden-layer MNIST model of TF 1.x's
"mechanics" tutorial (``inference``, ``loss``, ``training``, ``evaluation``)."""

import math

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(name, inputs, fan_in, units, activation):
    import tideflow as tf

    with tf.name_scope(name):
        weights = tf.Variable(
            tf.truncated_normal([fan_in, units], stddev=1.0 / math.sqrt(float(fan_in))),
            name="weights")
        biases = tf.Variable(tf.zeros([units]), name="biases")
        out = tf.matmul(inputs, weights) + biases
        return activation(out) if activation is not None else out


def inference(images, hidden1_units, hidden2_units):
    """Logits ``[batch, NUM_CLASSES]`` of two ReLU layers and a linear one, in the name scopes
    ``hidden1``, ``hidden2``, ``softmax_linear`` (variables ``weights``, ``biases``)."""
    import tideflow as tf

    hidden1 = _layer("hidden1", images, IMAGE_PIXELS, hidden1_units, tf.nn.relu)
    hidden2 = _layer("hidden2", hidden1, hidden1_units, hidden2_units, tf.nn.relu)
    return _layer("softmax_linear", hidden2, hidden2_units, NUM_CLASSES, None)


def loss(logits, labels):
    """The mean sparse softmax cross-entropy of ``logits`` against int ``labels``."""
    import tideflow as tf

    labels = tf.to_int64(labels)
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate):
    """A gradient-descent step on ``loss`` that counts ``global_step``, with a ``loss``
    scalar summary."""
    import tideflow as tf

    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    """How many of the batch's ``labels`` are the top-1 class of ``logits`` (int32)."""
    import tideflow as tf

    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))
