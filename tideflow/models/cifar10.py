"""The CIFAR-10 CNN of the TF tutorial: two 5x5 conv layers with max pooling and local response
normalization, two fully connected layers (384, 192) and a linear softmax layer, with weight decay
on the fully connected weights collected in ``'losses'``; and its ``distorted_inputs``-style
preprocessing (random 24x24 crop, flip, brightness, contrast, per-image standardization)."""

import tideflow as tf

IMAGE_SIZE = 24  # the tutorial trains on random 24x24 crops of the 32x32 images
RAW_IMAGE_SIZE = 32
NUM_CHANNELS = 3
NUM_CLASSES = 10
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 50000
NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = 10000

# the tutorial's training constants
MOVING_AVERAGE_DECAY = 0.9999
NUM_EPOCHS_PER_DECAY = 350.0
LEARNING_RATE_DECAY_FACTOR = 0.1
INITIAL_LEARNING_RATE = 0.1


def _variable_with_weight_decay(name, shape, stddev, wd):
    """A truncated-normal variable; ``wd`` times its L2 loss goes to the ``'losses'`` collection."""
    var = tf.get_variable(name, shape, initializer=tf.truncated_normal_initializer(stddev=stddev),
                          dtype=tf.float32)
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def _bias(name, size, value):
    return tf.get_variable(name, [size], initializer=tf.constant_initializer(value))


def _activation_summary(x):
    tf.summary.histogram(x.op.name + "/activations", x)
    tf.summary.scalar(x.op.name + "/sparsity", tf.nn.zero_fraction(x))


def inference(images, num_classes=NUM_CLASSES, is_training=True):
    """Logits of the tutorial's CNN for a batch of [N, H, W, 3] images (24x24 or 32x32)."""
    del is_training  # the model has no dropout or batch normalization
    with tf.variable_scope("conv1") as scope:
        kernel = _variable_with_weight_decay("weights", [5, 5, 3, 64], stddev=5e-2, wd=None)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        conv1 = tf.nn.relu(tf.nn.bias_add(conv, _bias("biases", 64, 0.0)), name=scope.name)
        _activation_summary(conv1)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")

    with tf.variable_scope("conv2") as scope:
        kernel = _variable_with_weight_decay("weights", [5, 5, 64, 64], stddev=5e-2, wd=None)
        conv = tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1], padding="SAME")
        conv2 = tf.nn.relu(tf.nn.bias_add(conv, _bias("biases", 64, 0.1)), name=scope.name)
        _activation_summary(conv2)
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm2")
    pool2 = tf.nn.max_pool(norm2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool2")

    with tf.variable_scope("local3") as scope:
        h, w, c = pool2.get_shape().as_list()[1:]
        reshape = tf.reshape(pool2, [-1, h * w * c])
        weights = _variable_with_weight_decay("weights", [h * w * c, 384], stddev=0.04, wd=0.004)
        local3 = tf.nn.relu(tf.matmul(reshape, weights) + _bias("biases", 384, 0.1),
                            name=scope.name)
        _activation_summary(local3)

    with tf.variable_scope("local4") as scope:
        weights = _variable_with_weight_decay("weights", [384, 192], stddev=0.04, wd=0.004)
        local4 = tf.nn.relu(tf.matmul(local3, weights) + _bias("biases", 192, 0.1),
                            name=scope.name)
        _activation_summary(local4)

    # linear layer: the softmax is applied by the loss, which is more efficient
    with tf.variable_scope("softmax_linear") as scope:
        weights = _variable_with_weight_decay("weights", [192, num_classes], stddev=1 / 192.0,
                                              wd=None)
        softmax_linear = tf.add(tf.matmul(local4, weights), _bias("biases", num_classes, 0.0),
                                name=scope.name)
        _activation_summary(softmax_linear)
    return softmax_linear


def loss(logits, labels):
    """Mean cross-entropy added to ``'losses'``; returns the sum of that collection (the
    cross-entropy plus all weight decay terms)."""
    labels = tf.cast(labels, tf.int64)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name="cross_entropy_per_example")
    tf.add_to_collection("losses", tf.reduce_mean(cross_entropy, name="cross_entropy"))
    return tf.add_n(tf.get_collection("losses"), name="total_loss")


def distort_image(image, height=IMAGE_SIZE, width=IMAGE_SIZE):
    """Training preprocessing of one [32, 32, 3] image (pixels 0..255): a random crop, a random
    horizontal flip, random brightness and contrast, then per-image standardization."""
    image = tf.cast(image, tf.float32)
    image = tf.random_crop(image, [height, width, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=63)
    image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
    image = tf.image.per_image_standardization(image)
    image.set_shape([height, width, 3])
    return image


def eval_image(image, height=IMAGE_SIZE, width=IMAGE_SIZE):
    """Evaluation preprocessing of one image (pixels 0..255): central crop and standardization."""
    image = tf.cast(image, tf.float32)
    image = tf.image.resize_image_with_crop_or_pad(image, height, width)
    image = tf.image.per_image_standardization(image)
    image.set_shape([height, width, 3])
    return image
