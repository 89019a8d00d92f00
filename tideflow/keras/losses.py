"""``tf.keras.losses``: per-sample loss functions (mean over the last axis) and the loss
classes (``MeanSquaredError``, ``CategoricalCrossentropy``...) that reduce them to a scalar."""

import inspect

import tideflow as tf
from tideflow.keras import backend as K
from tideflow.keras._utils import deserialize as _deserialize


def _pair(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(tf.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(tf.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / K.maximum(tf.abs(y_true), K.epsilon()))
    return 100.0 * K.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    first = tf.log(K.maximum(y_pred, K.epsilon()) + 1.0)
    second = tf.log(K.maximum(y_true, K.epsilon()) + 1.0)
    return K.mean(tf.square(first - second), axis=-1)


def _maybe_convert_labels(y_true):
    """Labels that are all 0 or 1 become -1 or 1 (as TF 1.14+'s hinge losses)."""
    is_binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0.0), tf.equal(y_true, 1.0)))
    return tf.cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return K.mean(tf.square(K.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return K.mean(K.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return K.maximum(0.0, neg - pos + 1.0)


def logcosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return K.mean(x + tf.nn.softplus(-2.0 * x) - tf.log(2.0), axis=-1)


def huber_loss(y_true, y_pred, delta=1.0):
    y_true, y_pred = _pair(y_true, y_pred)
    err = tf.abs(y_pred - y_true)
    quad = tf.minimum(err, delta)
    return K.mean(0.5 * tf.square(quad) + delta * (err - quad), axis=-1)


def _smoothing(label_smoothing):
    """Whether there is label smoothing to apply (a tensor always counts)."""
    return isinstance(label_smoothing, (tf.Tensor, tf.Variable)) or bool(label_smoothing)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    if _smoothing(label_smoothing):
        num_classes = tf.cast(tf.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    if _smoothing(label_smoothing):
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return K.mean(K.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1)


def kullback_leibler_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = K.clip(y_true, K.epsilon(), 1)
    y_pred = K.clip(y_pred, K.epsilon(), 1)
    return tf.reduce_sum(y_true * tf.log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(y_pred - y_true * tf.log(y_pred + K.epsilon()), axis=-1)


def cosine_proximity(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = tf.nn.l2_normalize(y_true, axis=axis)
    y_pred = tf.nn.l2_normalize(y_pred, axis=axis)
    return -tf.reduce_sum(y_true * y_pred, axis=axis)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence
cosine = cosine_similarity = cosine_proximity


class Reduction:
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    AUTO = "auto"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _weighted(values, sample_weight):
    """``values`` times ``sample_weight`` (of lower rank: expanded at the end), which must
    broadcast to them (TF's ValueError when it cannot)."""
    sample_weight = tf.cast(sample_weight, values.dtype)
    rank_v = values.get_shape().ndims
    rank_w = sample_weight.get_shape().ndims
    if (rank_v is not None and rank_w == rank_v + 1
            and sample_weight.get_shape().as_list()[-1] == 1):
        sample_weight = tf.squeeze(sample_weight, [-1])  # [batch, 1] weights [batch] values
        rank_w = rank_v
    if rank_v is not None and rank_w is not None and 0 < rank_w < rank_v:
        sample_weight = tf.reshape(sample_weight, tf.concat(
            [tf.shape(sample_weight), tf.ones([rank_v - rank_w], "int32")], 0))
    v_dims = values.get_shape().as_list() if rank_v is not None else None
    w_dims = sample_weight.get_shape().as_list() \
        if sample_weight.get_shape().ndims is not None else None
    if v_dims is not None and w_dims is not None and w_dims and (
            len(w_dims) != len(v_dims) or any(
                w not in (None, 1) and v is not None and w != v
                for w, v in zip(w_dims, v_dims))):
        raise ValueError(f"weights can not be broadcast to values. values.rank={len(v_dims)}. "
                         f"weights.rank={rank_w}. values.shape={values.get_shape()}. "
                         f"weights.shape={sample_weight.get_shape()}.")
    return values * sample_weight


class Loss:
    """A loss object: ``loss(y_true, y_pred, sample_weight=None)`` is the reduced loss
    (by default the mean over all per-sample values)."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)  # TF 1.x refuses an unknown reduction up front
        self.reduction = reduction
        self.name = name

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        Reduction.validate(self.reduction)  # (it may have been set after construction)
        with tf.name_scope(self.name or type(self).__name__.lower()):
            values = self.call(y_true, y_pred)
            if sample_weight is not None:
                values = _weighted(values, sample_weight)
            if self.reduction == Reduction.NONE:
                return values
            if self.reduction == Reduction.SUM:
                return tf.reduce_sum(values)
            return tf.reduce_sum(values) / tf.cast(tf.size(values), values.dtype)

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super().get_config())
        return config


def _wrapper(fn, default_name, **defaults):
    # Keras's positional order: the loss's own arguments (``from_logits``, ``delta``, ...)
    # first, then ``reduction`` and ``name`` (``BinaryCrossentropy(True)`` is from_logits)
    order = (*defaults, "reduction", "name")

    def __init__(self, *args, **kwargs):
        if len(args) > len(order):
            raise TypeError(f"{type(self).__name__}() takes at most {len(order)} positional "
                            f"arguments ({len(args)} given)")
        for n, v in zip(order, args):
            if n in kwargs:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument "
                                f"'{n}'")
            kwargs[n] = v
        reduction = kwargs.pop("reduction", Reduction.AUTO)
        name = kwargs.pop("name", default_name)
        merged = dict(defaults)
        merged.update(kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, **merged)

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             default=(Reduction.AUTO if n == "reduction" else
                                      default_name if n == "name" else defaults[n]))
           for n in order])
    return __init__


class MeanSquaredError(LossFunctionWrapper):
    __init__ = _wrapper(mean_squared_error, "mean_squared_error")


class MeanAbsoluteError(LossFunctionWrapper):
    __init__ = _wrapper(mean_absolute_error, "mean_absolute_error")


class MeanAbsolutePercentageError(LossFunctionWrapper):
    __init__ = _wrapper(mean_absolute_percentage_error, "mean_absolute_percentage_error")


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    __init__ = _wrapper(mean_squared_logarithmic_error, "mean_squared_logarithmic_error")


class BinaryCrossentropy(LossFunctionWrapper):
    __init__ = _wrapper(binary_crossentropy, "binary_crossentropy", from_logits=False,
                        label_smoothing=0)


class CategoricalCrossentropy(LossFunctionWrapper):
    __init__ = _wrapper(categorical_crossentropy, "categorical_crossentropy", from_logits=False,
                        label_smoothing=0)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    __init__ = _wrapper(sparse_categorical_crossentropy, "sparse_categorical_crossentropy",
                        from_logits=False)


class Hinge(LossFunctionWrapper):
    __init__ = _wrapper(hinge, "hinge")


class SquaredHinge(LossFunctionWrapper):
    __init__ = _wrapper(squared_hinge, "squared_hinge")


class CategoricalHinge(LossFunctionWrapper):
    __init__ = _wrapper(categorical_hinge, "categorical_hinge")


class Huber(LossFunctionWrapper):
    __init__ = _wrapper(huber_loss, "huber_loss", delta=1.0)


class LogCosh(LossFunctionWrapper):
    __init__ = _wrapper(logcosh, "logcosh")


class KLDivergence(LossFunctionWrapper):
    __init__ = _wrapper(kullback_leibler_divergence, "kullback_leibler_divergence")


class Poisson(LossFunctionWrapper):
    __init__ = _wrapper(poisson, "poisson")


class CosineSimilarity(LossFunctionWrapper):
    __init__ = _wrapper(cosine_proximity, "cosine_similarity", axis=-1)


_TABLE = {fn.__name__: fn for fn in [
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, squared_hinge, hinge, categorical_hinge, logcosh,
    huber_loss, categorical_crossentropy, sparse_categorical_crossentropy, binary_crossentropy,
    kullback_leibler_divergence, poisson, cosine_proximity]}
_TABLE.update({"mse": mse, "MSE": mse, "mae": mae, "MAE": mae, "mape": mape, "MAPE": mape,
               "msle": msle, "MSLE": msle, "kld": kld, "KLD": kld, "cosine": cosine,
               "cosine_similarity": cosine})
_CLASSES = {c.__name__: c for c in [
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy, Hinge, SquaredHinge, CategoricalHinge, Huber, LogCosh,
    KLDivergence, Poisson, CosineSimilarity]}


def serialize(loss):
    if isinstance(loss, Loss) or hasattr(loss, "get_config"):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return loss.__name__


def deserialize(name, custom_objects=None):
    table = dict(_TABLE)
    table.update(_CLASSES)
    if isinstance(name, str) and name in _CLASSES:
        return _CLASSES[name]()
    return _deserialize(name, table, "loss function", custom_objects, instantiate=False)


def get(identifier):
    """A loss function from a name (``'mse'``, ``'categorical_crossentropy'``...), a config,
    a function or a ``Loss``."""
    if identifier is None:
        return None
    return deserialize(identifier)


# TF 1.x's ``tensorflow.python.keras.utils.losses_utils``: the reduction keys
# (``ReductionV2``) and the weighting of per-sample losses that Loss objects use.
def _add_losses_utils():
    import importlib.machinery
    import importlib.util
    import sys

    from tideflow.keras import utils

    full = utils.__name__ + ".losses_utils"
    module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(full, None))
    module.__doc__ = "``keras.utils.losses_utils`` (TF's module): loss reductions."

    def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        with tf.name_scope(name or "weighted_loss"):
            values = tf.convert_to_tensor(losses)
            if sample_weight is not None:
                values = _weighted(values, sample_weight)
            if reduction == Reduction.NONE:
                return values
            total = tf.reduce_sum(values)
            if reduction == Reduction.SUM:
                return total
            return total / tf.cast(tf.size(values), values.dtype)

    module.ReductionV2 = Reduction
    module.compute_weighted_loss = compute_weighted_loss
    utils.losses_utils = sys.modules.setdefault(full, module)


_add_losses_utils()
