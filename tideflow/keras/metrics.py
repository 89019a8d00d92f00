"""``tf.keras.metrics``: per-sample metric functions (accuracies, the losses) and ``get``."""

import tideflow as tf
from tideflow.keras import backend as K
from tideflow.keras._utils import deserialize as _deserialize
from tideflow.keras.losses import (
    binary_crossentropy,
    categorical_crossentropy,
    categorical_hinge,
    cosine_proximity,
    hinge,
    kld,
    kullback_leibler_divergence,
    logcosh,
    mae,
    mape,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
    mse,
    msle,
    poisson,
    sparse_categorical_crossentropy,
    squared_hinge,
)

MSE = mse
MAE = mae
MAPE = mape
MSLE = msle
KLD = kld
cosine = cosine_proximity


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = tf.convert_to_tensor(y_pred)
    threshold = tf.cast(threshold, y_pred.dtype)
    y_pred = tf.cast(y_pred > threshold, y_pred.dtype)
    return K.mean(tf.cast(tf.equal(tf.cast(y_true, y_pred.dtype), y_pred), K.floatx()),
                  axis=-1)


def categorical_accuracy(y_true, y_pred):
    return tf.cast(tf.equal(tf.argmax(y_true, -1), tf.argmax(y_pred, -1)), K.floatx())


def sparse_categorical_accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    y_true_rank, y_pred_rank = y_true.get_shape().ndims, y_pred.get_shape().ndims
    if y_true_rank is not None and y_pred_rank is not None and y_true_rank == y_pred_rank:
        y_true = tf.squeeze(y_true, [-1])
    pred = tf.argmax(y_pred, -1)
    return tf.cast(tf.equal(tf.cast(y_true, "int64"), pred), K.floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return K.mean(tf.cast(tf.nn.in_top_k(y_pred, tf.argmax(y_true, -1), k), K.floatx()),
                  axis=-1)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_true = tf.convert_to_tensor(y_true)
    if y_true.get_shape().ndims == y_pred.get_shape().ndims:
        y_true = tf.squeeze(y_true, [-1])
    return tf.cast(tf.nn.in_top_k(y_pred, tf.cast(y_true, "int32"), k), K.floatx())


def accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    return tf.cast(tf.equal(tf.cast(y_true, y_pred.dtype), y_pred), K.floatx())


_TABLE = {fn.__name__: fn for fn in [
    binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, accuracy,
    binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy, hinge,
    squared_hinge, categorical_hinge, kullback_leibler_divergence, logcosh,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, poisson, cosine_proximity]}
_TABLE.update({"mse": mse, "MSE": mse, "mae": mae, "MAE": mae, "mape": mape, "MAPE": mape,
               "msle": msle, "MSLE": msle, "kld": kld, "KLD": kld, "cosine": cosine_proximity})


def serialize(metric):
    return metric.__name__


def deserialize(name, custom_objects=None):
    return _deserialize(name, _TABLE, "metric function", custom_objects, instantiate=False)


def get(identifier):
    return deserialize(identifier)
