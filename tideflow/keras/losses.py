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
    return K.mean(tf.squared_difference(y_pred, y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return K.mean(tf.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = tf.abs((y_true - y_pred) / K.clip(tf.abs(y_true), K.epsilon(), None))
    return 100.0 * K.mean(diff, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    first = tf.log(K.clip(y_pred, K.epsilon(), None) + 1.0)
    second = tf.log(K.clip(y_true, K.epsilon(), None) + 1.0)
    return K.mean(tf.squared_difference(first, second), axis=-1)


def _maybe_convert_labels(y_true):
    """Labels that are all 0 or 1 become -1 or 1 (as TF 1.14+'s hinge losses)."""
    from tideflow.python.framework.smart_cond import smart_cond

    is_binary = tf.reduce_all(tf.logical_or(tf.equal(y_true, 0), tf.equal(y_true, 1)))
    # (TF's smart_cond: labels known now take their branch alone, no cond)
    return smart_cond(is_binary, lambda: 2.0 * y_true - 1.0, lambda: y_true)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return K.mean(tf.square(tf.maximum(1.0 - y_true * y_pred, 0.0)), axis=-1)


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _maybe_convert_labels(y_true)
    return K.mean(tf.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    pos = tf.reduce_sum(y_true * y_pred, axis=-1)
    neg = tf.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return tf.maximum(0.0, neg - pos + 1.0)


def logcosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return K.mean(x + tf.nn.softplus(-2.0 * x) - tf.log(2.0), axis=-1)


def huber_loss(y_true, y_pred, delta=1.0):
    """Per element (as TF 1.15's: no mean over the last axis)."""
    y_pred = tf.cast(y_pred, K.floatx())
    y_true = tf.cast(y_true, K.floatx())
    err = tf.abs(tf.subtract(y_pred, y_true))
    quad = tf.minimum(err, delta)
    linear = tf.subtract(err, quad)
    return tf.add(tf.multiply(tf.convert_to_tensor(0.5, dtype=quad.dtype),
                              tf.multiply(quad, quad)),
                  tf.multiply(delta, linear))


def _smoothing(label_smoothing):
    """Whether there is label smoothing to apply (a tensor always counts)."""
    return isinstance(label_smoothing, (tf.Tensor, tf.Variable)) or bool(label_smoothing)


def _smoothing_tensor(label_smoothing):
    # as TF 1.15: the smoothing is made a tensor first (a Const when it is a number)
    if isinstance(label_smoothing, tf.Variable):
        return label_smoothing
    return tf.convert_to_tensor(label_smoothing, dtype=K.floatx())


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    smoothing = _smoothing(label_smoothing)
    label_smoothing = _smoothing_tensor(label_smoothing)
    if smoothing:
        num_classes = tf.cast(tf.shape(y_true)[1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits, axis=axis)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0):
    y_true, y_pred = _pair(y_true, y_pred)
    smoothing = _smoothing(label_smoothing)
    label_smoothing = _smoothing_tensor(label_smoothing)
    if smoothing:
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
    """The cosine similarity along ``axis`` (as TF 1.15's Keras: not negated)."""
    y_true = tf.nn.l2_normalize(y_true, axis=axis)
    y_pred = tf.nn.l2_normalize(y_pred, axis=axis)
    return tf.reduce_sum(y_true * y_pred, axis=axis)


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


def _scale_by_sample_weight(losses, sample_weight):
    """``losses`` times ``sample_weight`` (1.0 when None) made as TF 1.15's Keras does it
    (float32 casts, the weights' last axis squeezed or expanded to the losses' rank, then
    broadcast to them), so the ops and their names are TF's."""
    from tideflow.ops import weights_broadcast_ops

    losses = tf.cast(losses, tf.float32)
    sample_weight = tf.cast(1.0 if sample_weight is None else sample_weight, tf.float32)
    rank_v = losses.get_shape().ndims
    rank_w = sample_weight.get_shape().ndims
    if rank_w and rank_v is not None:
        if rank_w - rank_v == 1:
            sample_weight = tf.squeeze(sample_weight, [-1])
        elif rank_v - rank_w == 1:
            sample_weight = tf.expand_dims(sample_weight, [-1])
        elif 0 < rank_w < rank_v:  # (several axes short: ones appended)
            sample_weight = tf.reshape(sample_weight, tf.concat(
                [tf.shape(sample_weight), tf.ones([rank_v - rank_w], "int32")], 0))
    sample_weight = weights_broadcast_ops.broadcast_weights(sample_weight, losses)
    return tf.multiply(losses, sample_weight)


def _reduce_weighted(weighted, reduction):
    """TF 1.15's ``reduce_weighted_loss``: the sum, or the sum over the number of elements
    (``<scope>/num_elements``, ``<scope>/value``)."""
    if reduction == Reduction.NONE:
        return weighted
    total = tf.reduce_sum(weighted)
    if reduction == Reduction.SUM:
        return total
    with tf.name_scope("num_elements") as scope:
        count = tf.cast(tf.size(weighted, name=scope), weighted.dtype)
    return tf.math.divide_no_nan(tf.reduce_sum(total), count, name="value")


def compute_weighted_loss(losses, sample_weight=None, reduction=Reduction.AUTO, name=None):
    """Weighted and reduced losses, in a ``weighted_loss`` scope (as TF 1.15's
    ``losses_utils.compute_weighted_loss``)."""
    Reduction.validate(reduction)
    if reduction == Reduction.AUTO:
        reduction = Reduction.SUM_OVER_BATCH_SIZE
    with tf.name_scope(name or "weighted_loss"):
        losses = tf.convert_to_tensor(losses)
        dtype = losses.dtype
        weighted = _scale_by_sample_weight(losses, sample_weight)
        return tf.cast(_reduce_weighted(weighted, reduction), dtype)


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
        name = "lambda" if self.name == "<lambda>" else self.name
        with tf.name_scope(name or type(self).__name__):
            values = self.call(y_true, y_pred)
            return compute_weighted_loss(values, sample_weight, reduction=self.reduction)

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
        config = super().get_config()  # (reduction and name first, as TF 1.15's)
        config.update(self._fn_kwargs)
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
               "msle": msle, "MSLE": msle, "kld": kld, "KLD": kld,
               "cosine_similarity": cosine})  # (no 'cosine' by name, as TF 1.15)
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

    module.ReductionV2 = Reduction
    module.compute_weighted_loss = compute_weighted_loss
    utils.losses_utils = sys.modules.setdefault(full, module)


_add_losses_utils()
