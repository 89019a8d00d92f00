"""The image models the trainer and the evaluator know by name: each with its input size, number
of classes, model and loss functions, preprocessing and the training defaults of its published
recipe (optimizer, learning-rate schedule, moving-average decay, batch size)."""

import collections
import functools

import tideflow as tf
from tideflow.models import cifar10, digits, inception_v3, preprocessing

ModelSpec = collections.namedtuple("ModelSpec", [
    "name",
    "image_size",          # side of the square model input
    "channels",
    "num_classes",
    "inference",           # (images, num_classes, is_training, **options) -> (logits, end_points)
    "loss",                # (logits, labels, end_points) -> total loss (with weight decay)
    "preprocess",          # (decoded uint8 image, image_size, is_training) -> float image
    "num_examples_per_epoch",
    "defaults",            # flag name -> default value for this model
])


def _no_end_points(inference):
    @functools.wraps(inference)
    def wrapped(images, num_classes, is_training, **options):
        return inference(images, num_classes, is_training), {}
    return wrapped


def _digits_preprocess(image, image_size, is_training):
    del is_training  # the digits are used as they are
    image = tf.image.convert_image_dtype(image, tf.float32)
    image.set_shape([image_size, image_size, 1])
    return image


def _cifar10_preprocess(image, image_size, is_training):
    image.set_shape([None, None, 3])
    if is_training:
        return cifar10.distort_image(image, image_size, image_size)
    return cifar10.eval_image(image, image_size, image_size)


def _inception_preprocess(image, image_size, is_training):
    image.set_shape([None, None, 3])
    return preprocessing.preprocess_image(image, image_size, image_size, is_training)


def _inception_inference(images, num_classes, is_training, depth_multiplier=1.0, **options):
    return inception_v3.inference(images, num_classes, is_training,
                                  depth_multiplier=depth_multiplier, **options)


def _defaults(optimizer, initial_learning_rate, num_epochs_per_decay,
              learning_rate_decay_factor, moving_average_decay, batch_size):
    return {"optimizer": optimizer, "initial_learning_rate": initial_learning_rate,
            "num_epochs_per_decay": num_epochs_per_decay,
            "learning_rate_decay_factor": learning_rate_decay_factor,
            "moving_average_decay": moving_average_decay, "batch_size": batch_size}


_DIGITS_DEFAULTS = _defaults("momentum", 0.05, 100.0, 0.1, 0.999, 50)

_MODELS = {
    "digits_softmax": ModelSpec(
        "digits_softmax", digits.IMAGE_SIZE, 1, digits.NUM_CLASSES,
        _no_end_points(digits.softmax_inference), lambda lg, lb, ep: digits.loss(lg, lb),
        _digits_preprocess, 1500, _defaults("momentum", 0.1, 100.0, 0.1, 0.999, 50)),
    "digits_mlp": ModelSpec(
        "digits_mlp", digits.IMAGE_SIZE, 1, digits.NUM_CLASSES,
        _no_end_points(digits.mlp_inference), lambda lg, lb, ep: digits.loss(lg, lb),
        _digits_preprocess, 1500, _DIGITS_DEFAULTS),
    "digits_cnn": ModelSpec(
        "digits_cnn", digits.IMAGE_SIZE, 1, digits.NUM_CLASSES,
        _no_end_points(digits.cnn_inference), lambda lg, lb, ep: digits.loss(lg, lb),
        _digits_preprocess, 1500, _DIGITS_DEFAULTS),
    "cifar10": ModelSpec(
        "cifar10", cifar10.IMAGE_SIZE, 3, cifar10.NUM_CLASSES,
        _no_end_points(cifar10.inference), lambda lg, lb, ep: cifar10.loss(lg, lb),
        _cifar10_preprocess, cifar10.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN,
        _defaults("sgd", cifar10.INITIAL_LEARNING_RATE, cifar10.NUM_EPOCHS_PER_DECAY,
                  cifar10.LEARNING_RATE_DECAY_FACTOR, cifar10.MOVING_AVERAGE_DECAY, 128)),
    "inception_v3": ModelSpec(
        "inception_v3", inception_v3.IMAGE_SIZE, 3, inception_v3.NUM_CLASSES,
        _inception_inference, inception_v3.loss, _inception_preprocess,
        inception_v3.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN,
        _defaults("rmsprop", inception_v3.INITIAL_LEARNING_RATE, inception_v3.NUM_EPOCHS_PER_DECAY,
                  inception_v3.LEARNING_RATE_DECAY_FACTOR, inception_v3.MOVING_AVERAGE_DECAY,
                  32)),
}

MODEL_NAMES = sorted(_MODELS)


def get(name):
    """The ``ModelSpec`` called ``name``."""
    if name not in _MODELS:
        raise ValueError(f"Unknown model {name!r}; known: {', '.join(MODEL_NAMES)}")
    return _MODELS[name]
