"""``tf.keras.metrics``: per-sample metric functions (accuracies, the losses) and ``get``."""

import enum
import functools
import inspect

import numpy as np

import tideflow as tf
from tideflow.framework import ops
from tideflow.keras import backend as K
from tideflow.keras._utils import deserialize as _deserialize
from tideflow.keras.engine.base_layer import Layer
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
    # as TF 1.15: the predicted class takes the labels' dtype (float labels are not
    # truncated: 0.4 is no class 0)
    if pred.dtype.base_dtype != y_true.dtype.base_dtype:
        pred = tf.cast(pred, y_true.dtype.base_dtype)
    return tf.cast(tf.equal(y_true, pred), K.floatx())


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """Per sample (as TF 1.15, so sample weights apply): 1 where the true class is among the
    ``k`` highest predictions."""
    return tf.cast(tf.nn.in_top_k(y_pred, tf.argmax(y_true, -1), k), K.floatx())


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    # (as TF 1.15: the ranks from conversions of their own; the values converted again
    # where used)
    pred_rank = tf.convert_to_tensor(y_pred).get_shape().ndims
    true_rank = tf.convert_to_tensor(y_true).get_shape().ndims
    if true_rank is not None and pred_rank is not None and true_rank == pred_rank:
        y_true = tf.squeeze(y_true, [-1])  # ([samples, 1] labels)
    return tf.cast(tf.nn.in_top_k(y_pred, tf.cast(y_true, "int32"), k), K.floatx())


def accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    return tf.cast(tf.equal(tf.cast(y_true, y_pred.dtype), y_pred), K.floatx())


# -- stateful metric objects ------------------------------------------------------------------


class Metric(Layer):
    """A stateful metric: ``update_state(...)`` returns the op accumulating a batch,
    ``result()`` the value so far, ``reset_states()`` zeroes the state. Calling the metric
    updates it and returns the result. As TF 1.15's, the state variables are resource
    variables in no collection (the Keras session initializes them; an Estimator adds those of
    its ``eval_metric_ops`` to the local and metric variables). As TF's, a metric is a Keras
    ``Layer``: one set as an attribute of a layer or model is among its layers, weights and
    metrics."""

    def __init__(self, name=None, dtype=None, **kwargs):
        # (as TF's Layer: a name not given is made unique in the graph)
        Layer.__init__(self, name=name, dtype=dtype, **kwargs)
        self._dtype = tf.as_dtype(dtype or K.floatx()).name  # (TF's: the dtype's name)
        self._vars = []
        self._updates = []
        self.stateful = True
        self.built = True
        self.trainable = True

    @property
    def dtype(self):
        return self._dtype

    def __init_subclass__(cls, **kwargs):
        # As TF 1.x in graph mode: each ``update_state`` op is recorded in ``metric.updates``
        # (what ``EstimatorSpec.eval_metric_ops`` runs for a metric object), and ``result()``
        # is an Identity of the value (a subclass's call of its base's method is not wrapped)
        super().__init_subclass__(**kwargs)
        fn = cls.__dict__.get("update_state")
        if fn is not None and not getattr(fn, "_records_update", False):
            if cls.__module__ != __name__:
                fn = _user_update(fn)
            cls.update_state = _outermost(fn, "_in_update", _record_update)
        fn = cls.__dict__.get("result")
        if fn is not None and not getattr(fn, "_records_update", False):
            cls.result = _outermost(fn, "_in_result", _identity_result)

    @property
    def name(self):
        return self._name  # (as TF's: held in ``_name``, which wrappers rename through)

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def updates(self):
        return list(self.__dict__.get("_updates", []))

    def add_weight(self, name, shape=(), aggregation=tf.VariableAggregation.SUM,
                   synchronization=tf.VariableSynchronization.ON_READ, initializer=None,
                   dtype=None):
        """A state variable (TF 1.15's signature: under a distribution strategy, one copy
        per replica, summed on read; on one device a plain variable)."""
        from tideflow.keras import initializers

        dtype = tf.as_dtype(dtype or self.dtype)
        if initializer is None:  # as Layer.add_weight: Glorot for floats, zeros otherwise
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        if isinstance(init, type):  # a class, as TF: its instance for the variable's dtype
            init = init(dtype=dtype)
        # as TF 1.15: named as given in the current name scope (not under the metric's name),
        # 'total:0', then 'total_1:0' for the next metric; made outside any control flow
        with tf.init_scope():
            v = tf.Variable(lambda: init(shape, dtype=dtype), name=name, dtype=dtype,
                            trainable=False, collections=[], use_resource=True,
                            synchronization=synchronization, aggregation=aggregation)
        K._track_variable(v)
        self._vars.append(v)
        return v

    @property
    def variables(self):
        return list(self._vars)

    weights = non_trainable_weights = non_trainable_variables = variables

    @property
    def trainable_weights(self):
        return []

    trainable_variables = trainable_weights

    @property
    def losses(self):
        return []

    @property
    def metrics(self):
        return []

    def update_state(self, *args, **kwargs):
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        raise NotImplementedError("Must be implemented in subclasses.")

    def reset_states(self):
        K.batch_set_value([(v, np.zeros(v.get_shape().as_list())) for v in self._vars])

    def __call__(self, *args, **kwargs):
        update = self.update_state(*args, **kwargs)
        with tf.control_dependencies([update]):
            out = self.result()
        out._metric_obj = self  # as TF: add_metric(out) finds the metric to reset
        return out

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _outermost(fn, flag, finish):
    """``fn`` with ``finish(metric, value)`` applied to what its outermost call returns (a
    subclass calling ``super().update_state``/``result`` gets the base's plain method)."""

    @functools.wraps(fn)
    def wrapped(self, *args, **kw):
        if self.__dict__.get(flag):
            return fn(self, *args, **kw)
        self.__dict__[flag] = True
        try:
            value = fn(self, *args, **kw)
        finally:
            self.__dict__[flag] = False
        return finish(self, value)

    wrapped._records_update = True
    return wrapped


def _record_update(metric, op):
    if isinstance(op, (tf.Tensor, tf.Operation)):
        metric.__dict__.setdefault("_updates", []).append(op)
    return op


def _user_update(fn):
    """A user's ``update_state``: TF 1.15 runs it as a tf.function, whose call op is the update
    even where the method returns nothing; one op here waits for the stateful ops it made."""

    @functools.wraps(fn)
    def update_state(self, *args, **kw):
        graph = tf.get_default_graph()
        first = len(graph.get_operations())
        op = fn(self, *args, **kw)
        if op is not None:
            return op
        made = [o for o in graph.get_operations()[first:] if o.op_def.is_stateful]
        return tf.group(*made, name="PartitionedFunctionCall")

    return update_state


def _identity_result(metric, value):
    out = tf.identity(value)
    metric._call_result = out  # (TF's: the result the train and test functions fetch)
    return out


def _remove_squeezable(labels, predictions):
    """TF 1.15's ``confusion_matrix.remove_squeezable_dimensions(labels, predictions)``: with
    both ranks known, a rank one apart loses its last axis whatever its size (a size other
    than 1 fails, as TF's); else the run-time conds of ``tf.metrics``."""
    from tideflow.metrics import _remove_squeezable_dimensions

    rank_p, rank_l = predictions.get_shape().ndims, labels.get_shape().ndims
    if rank_p is None or rank_l is None:
        predictions, labels, _ = _remove_squeezable_dimensions(predictions, labels)
        return labels, predictions
    with tf.name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        if rank_p - rank_l == 1:
            predictions = tf.squeeze(predictions, [-1])
        elif rank_p - rank_l == -1:
            labels = tf.squeeze(labels, [-1])
    return labels, predictions


def _squeeze_or_expand(y_pred, y_true=None, sample_weight=None):
    """TF 1.15's ``losses_utils.squeeze_or_expand_dimensions`` (its ops and scopes): a
    trailing axis of 1 squeezed off the predictions or labels (not the predictions' last axis
    where the labels are sparse), the weights squeezed or expanded toward the predictions."""
    from tideflow.metrics import _remove_squeezable_dimensions as remove

    if y_true is not None:
        rank_p, rank_t = y_pred.get_shape().ndims, y_true.get_shape().ndims
        if rank_p is not None and rank_t is not None:
            if rank_p - rank_t != 1 or y_pred.get_shape().as_list()[-1] == 1:
                y_true, y_pred = _remove_squeezable(y_true, y_pred)
        else:
            rank_diff = tf.rank(y_pred) - tf.rank(y_true)

            def squeeze_dims():
                return remove(y_pred, y_true)[:2]

            is_last_dim_1 = tf.equal(1, tf.shape(y_pred)[-1])
            y_pred, y_true = tf.cond(
                tf.equal(1, rank_diff),
                lambda: tf.cond(is_last_dim_1, squeeze_dims, lambda: (y_pred, y_true)),
                squeeze_dims)
    if sample_weight is None:
        return y_pred, y_true, None
    y_pred, _, sample_weight = remove(y_pred, None, sample_weight)
    return y_pred, y_true, sample_weight


class Reduce(Metric):
    def __init__(self, reduction, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total", initializer="zeros")
        if reduction != "sum":
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values, sample_weight=None):
        from tideflow.ops import weights_broadcast_ops

        values = tf.cast(values, self._dtype)
        if sample_weight is not None:
            sample_weight = tf.cast(sample_weight, self._dtype)
            values, _, sample_weight = _squeeze_or_expand(values, None, sample_weight)
            try:
                sample_weight = weights_broadcast_ops.broadcast_weights(sample_weight, values)
            except ValueError:
                # as TF 1.15: weights of lower rank than the values reduce the values over
                # the extra axes (sum, or mean) instead of being broadcast
                axes = list(range(sample_weight.get_shape().ndims,
                                  values.get_shape().ndims))
                values = (tf.reduce_sum(values, axis=axes) if self.reduction == "sum"
                          else tf.reduce_mean(values, axis=axes))
            values = tf.multiply(values, sample_weight)
        # as TF 1.15: the total's update waits for the sum, the count's for the total's update
        # (so a step whose input fails updates neither); the count's update is the op returned
        value_sum = tf.reduce_sum(values)
        with tf.control_dependencies([value_sum]):
            update_total = self.total.assign_add(value_sum)
        if self.reduction == "sum":
            return update_total
        if self.reduction == "mean" and sample_weight is not None:
            num_values = tf.reduce_sum(sample_weight)
        else:
            num_values = tf.cast(tf.size(values), self._dtype)
        with tf.control_dependencies([update_total]):
            return self.count.assign_add(num_values)

    def result(self):
        if self.reduction == "sum":
            return tf.identity(self.total)
        return tf.div_no_nan(self.total, self.count)


class Sum(Reduce):
    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)


class Mean(Reduce):
    def __init__(self, name="mean", dtype=None):
        super().__init__("mean", name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    """The mean over samples of ``fn(y_true, y_pred, **kwargs)``."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        # as TF 1.15: both in the metric's dtype, and a trailing axis of 1 that only one of
        # them has is squeezed away
        y_true = tf.cast(y_true, self._dtype)
        y_pred = tf.cast(y_pred, self._dtype)
        y_pred, y_true, _ = _squeeze_or_expand(y_pred, y_true)
        return super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs),
                                    sample_weight=sample_weight)

    def get_config(self):
        config = super().get_config()  # (name and dtype first, as TF's)
        config.update(self._fn_kwargs)  # TopK's k, BinaryAccuracy's threshold (as TF)
        return config


def _wrapper_class(cls_name, fn, default_name, lead=(), **defaults):
    # Keras's positional order: ``lead`` (TopK's ``k``), ``name``, ``dtype``, then the rest
    # (BinaryAccuracy's ``threshold``)
    order = (*lead, "name", "dtype", *(k for k in defaults if k not in lead))

    def __init__(self, *args, **kwargs):
        if len(args) > len(order):
            raise TypeError(f"{cls_name}() takes at most {len(order)} positional arguments "
                            f"({len(args)} given)")
        for n, v in zip(order, args):
            if n in kwargs:
                raise TypeError(f"{cls_name}() got multiple values for argument '{n}'")
            kwargs[n] = v
        name = kwargs.pop("name", default_name)
        dtype = kwargs.pop("dtype", None)
        merged = dict(defaults)
        merged.update(kwargs)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **merged)

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             default=(default_name if n == "name" else
                                      None if n == "dtype" else defaults[n]))
           for n in order])
    return type(cls_name, (MeanMetricWrapper,), {"__init__": __init__,
                                                 "__doc__": f"Mean of ``{fn.__name__}``."})


Accuracy = _wrapper_class("Accuracy", accuracy, "accuracy")
BinaryAccuracy = _wrapper_class("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                                threshold=0.5)
CategoricalAccuracy = _wrapper_class("CategoricalAccuracy", categorical_accuracy,
                                     "categorical_accuracy")
SparseCategoricalAccuracy = _wrapper_class("SparseCategoricalAccuracy",
                                           sparse_categorical_accuracy,
                                           "sparse_categorical_accuracy")
TopKCategoricalAccuracy = _wrapper_class("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                         "top_k_categorical_accuracy", lead=("k",), k=5)
SparseTopKCategoricalAccuracy = _wrapper_class(
    "SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy", lead=("k",), k=5)
MeanSquaredError = _wrapper_class("MeanSquaredError", mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _wrapper_class("MeanAbsoluteError", mean_absolute_error,
                                   "mean_absolute_error")
MeanAbsolutePercentageError = _wrapper_class("MeanAbsolutePercentageError",
                                             mean_absolute_percentage_error,
                                             "mean_absolute_percentage_error")
BinaryCrossentropy = _wrapper_class("BinaryCrossentropy", binary_crossentropy,
                                    "binary_crossentropy", from_logits=False,
                                    label_smoothing=0)
CategoricalCrossentropy = _wrapper_class("CategoricalCrossentropy", categorical_crossentropy,
                                         "categorical_crossentropy", from_logits=False,
                                         label_smoothing=0)
SparseCategoricalCrossentropy = _wrapper_class("SparseCategoricalCrossentropy",
                                               sparse_categorical_crossentropy,
                                               "sparse_categorical_crossentropy",
                                               from_logits=False, axis=-1)
Hinge = _wrapper_class("Hinge", hinge, "hinge")
SquaredHinge = _wrapper_class("SquaredHinge", squared_hinge, "squared_hinge")
CategoricalHinge = _wrapper_class("CategoricalHinge", categorical_hinge, "categorical_hinge")
KLDivergence = _wrapper_class("KLDivergence", kullback_leibler_divergence,
                              "kullback_leibler_divergence")
Poisson = _wrapper_class("Poisson", poisson, "poisson")
LogCoshError = _wrapper_class("LogCoshError", logcosh, "logcosh")
MeanSquaredLogarithmicError = _wrapper_class("MeanSquaredLogarithmicError",
                                             mean_squared_logarithmic_error,
                                             "mean_squared_logarithmic_error")


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine of the angle between ``y_true`` and ``y_pred`` along ``axis`` (the metric
    is the positive cosine; the loss ``cosine_proximity`` is its negative)."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(y_true, y_pred.dtype)
    y_true = tf.nn.l2_normalize(y_true, axis=axis)
    y_pred = tf.nn.l2_normalize(y_pred, axis=axis)
    return tf.reduce_sum(y_true * y_pred, axis=axis)


CosineSimilarity = _wrapper_class("CosineSimilarity", cosine_similarity, "cosine_similarity",
                                  axis=-1)


class MeanRelativeError(Mean):
    """The mean of ``|y_true - y_pred| / normalizer``."""

    def __init__(self, normalizer, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.normalizer = tf.cast(normalizer, self.dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(y_true, self._dtype)
        y_pred = tf.cast(y_pred, self._dtype)
        y_pred, y_true, _ = _squeeze_or_expand(y_pred, y_true)
        y_pred, self.normalizer = _remove_squeezable(y_pred, self.normalizer)
        y_pred.get_shape().assert_is_compatible_with(y_true.get_shape())
        errors = tf.div_no_nan(tf.abs(y_true - y_pred), self.normalizer)
        return super().update_state(errors, sample_weight=sample_weight)

    def get_config(self):
        config = super().get_config()
        config["normalizer"] = K.eval(self.normalizer)
        return config


class MeanTensor(Metric):
    """The element-wise (weighted) mean of the tensors given, which must all have the fully
    known shape of the first one."""

    def __init__(self, name="mean_tensor", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._shape = None
        self._total = self._count = None

    @property
    def total(self):
        return self._total

    @property
    def count(self):
        return self._count

    def update_state(self, values, sample_weight=None):
        values = tf.cast(values, self.dtype)
        shape = values.get_shape()
        if self._shape is None:
            if not shape.is_fully_defined():
                raise ValueError(f"MeanTensor: the shape of the values must be fully "
                                 f"defined, got {shape}")
            self._shape = shape
            self._total = self.add_weight("total", shape=shape.as_list(), initializer="zeros")
            self._count = self.add_weight("count", shape=shape.as_list(), initializer="zeros")
            with ops.init_scope():  # (as TF 1.15's build: the session initializes them now)
                K._initialize_variables(K.get_session())
        elif shape.as_list() != self._shape.as_list():
            raise ValueError(f"MeanTensor input values must always have the same shape. "
                             f"Expected shape (set during the first call): {self._shape}. "
                             f"Got: {shape}")
        num_values = tf.ones_like(values)
        if sample_weight is not None:
            sample_weight = tf.cast(sample_weight, self.dtype)
            rank_v, rank_w = values.get_shape().ndims, sample_weight.get_shape().ndims
            if rank_w == rank_v + 1 and sample_weight.get_shape().as_list()[-1] == 1:
                sample_weight = tf.squeeze(sample_weight, [-1])  # [n, 1] weights of [n]
            elif rank_w is not None and 0 < rank_w < rank_v:
                sample_weight = tf.reshape(sample_weight, sample_weight.get_shape().as_list()
                                           + [1] * (rank_v - rank_w))
            num_values = num_values * sample_weight
            values = values * sample_weight
        # (as TF 1.15: the count's update after the total's, no group)
        with ops.control_dependencies([tf.assign_add(self._total, values)]):
            return tf.assign_add(self._count, num_values)

    def result(self):
        if self._shape is None:
            raise ValueError("MeanTensor does not have any result yet. Please call the "
                             "MeanTensor instance or use `.update_state(value)` before "
                             "retrieving the result.")
        return tf.div_no_nan(self._total, self._count)


class RootMeanSquaredError(Mean):
    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(y_true, self._dtype)
        y_pred = tf.cast(y_pred, self._dtype)
        y_pred, y_true, _ = _squeeze_or_expand(y_pred, y_true)
        return super().update_state(tf.squared_difference(y_pred, y_true),
                                    sample_weight=sample_weight)

    def result(self):
        return tf.sqrt(super().result())


_NEG_INF = -1e10

# TF 1.15's order of the confusion matrix's counts in an update: each with the label and
# prediction conditions it counts
_CONFUSION_ORDER = (("true_positives", True, True), ("false_negatives", True, False),
                    ("false_positives", False, True), ("true_negatives", False, False))


def _parse_thresholds(thresholds, default=0.5):
    """TF 1.15's ``parse_init_thresholds``: a list of thresholds, each checked to be in
    [0, 1] (``default`` where none are given)."""
    if thresholds is None:
        return [default]
    ts = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]
    invalid = [t for t in ts if t is None or t < 0 or t > 1]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Invalid values: {invalid}")
    return ts


def _filter_top_k(x, k):
    """``x`` with every value outside its row's top ``k`` set to -1e10."""
    _, idx = tf.nn.top_k(x, k, sorted=False)
    mask = tf.reduce_sum(tf.one_hot(idx, x.get_shape()[-1], axis=-1), axis=-2)
    return x * mask + _NEG_INF * (1 - mask)


def _update_confusion_matrix(variables, y_true, y_pred, thresholds, top_k=None,
                             class_id=None, sample_weight=None):
    """TF 1.15's ``metrics_utils.update_confusion_matrix_variables``, op for op: adds to each
    variable of ``variables`` (keyed by count name) its weighted count at each threshold."""
    from tideflow.ops import weights_broadcast_ops

    y_true = tf.cast(y_true, "float32")
    y_pred = tf.cast(y_pred, "float32")
    y_pred.get_shape().assert_is_compatible_with(y_true.get_shape())
    with tf.control_dependencies([
            tf.debugging.assert_greater_equal(y_pred, tf.cast(0.0, y_pred.dtype),
                                              message="predictions must be >= 0"),
            tf.debugging.assert_less_equal(y_pred, tf.cast(1.0, y_pred.dtype),
                                           message="predictions must be <= 1")]):
        y_pred, y_true, sample_weight = _squeeze_or_expand(y_pred, y_true, sample_weight)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true = y_true[..., class_id]
        y_pred = y_pred[..., class_id]
    num_thresholds = len(thresholds)
    num_predictions = tf.size(y_pred)
    predictions_2d = tf.reshape(y_pred, [1, -1])
    labels_2d = tf.reshape(tf.cast(y_true, "bool"), [1, -1])
    thresh_tiled = tf.tile(tf.expand_dims(tf.constant(thresholds), 1),
                           tf.stack([1, num_predictions]))
    preds_tiled = tf.tile(predictions_2d, [num_thresholds, 1])
    pred_is_pos = tf.greater(preds_tiled, thresh_tiled)
    label_is_pos = tf.tile(labels_2d, [num_thresholds, 1])
    weights_tiled = None
    if sample_weight is not None:
        weights = weights_broadcast_ops.broadcast_weights(tf.cast(sample_weight, "float32"),
                                                          y_pred)
        weights_tiled = tf.tile(tf.reshape(weights, [1, -1]), [num_thresholds, 1])
    conditions = {(True, True): (label_is_pos, pred_is_pos)}
    # (the negations TF makes: of the predictions for FN or TN, of the labels for FP or TN)
    if "false_negatives" in variables or "true_negatives" in variables:
        pred_is_neg = tf.logical_not(pred_is_pos)
        conditions[True, False] = (label_is_pos, pred_is_neg)
    if "false_positives" in variables or "true_negatives" in variables:
        label_is_neg = tf.logical_not(label_is_pos)
        conditions[False, True] = (label_is_neg, pred_is_pos)
        if "true_negatives" in variables:
            conditions[False, False] = (label_is_neg, pred_is_neg)
    updates = []
    for kind, label_pos, pred_pos in _CONFUSION_ORDER:
        if kind in variables:
            label, pred = conditions[label_pos, pred_pos]
            label_and_pred = tf.cast(tf.logical_and(label, pred), "float32")
            if weights_tiled is not None:
                label_and_pred *= weights_tiled
            updates.append(variables[kind].assign_add(tf.reduce_sum(label_and_pred, 1)))
    return tf.group(updates)


class _Confusion(Metric):
    """Counts of true/false positives/negatives at ``thresholds`` (TF's variables, in the
    order ``kinds`` names them)."""

    def __init__(self, thresholds, kinds, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.thresholds = list(thresholds)
        for kind in kinds:
            setattr(self, kind, self.add_weight(kind, shape=(len(self.thresholds),),
                                                initializer="zeros"))
        self._kinds = kinds

    top_k = class_id = None

    def update_state(self, y_true, y_pred, sample_weight=None):
        return _update_confusion_matrix({k: getattr(self, k) for k in self._kinds}, y_true,
                                        y_pred, self.thresholds, top_k=self.top_k,
                                        class_id=self.class_id, sample_weight=sample_weight)

    def reset_states(self):
        K.batch_set_value([(v, np.zeros((len(self.thresholds),))) for v in self.variables])

    def _ratio(self, other):
        """TP / (TP + ``other``) at each threshold (a scalar for one threshold)."""
        result = tf.div_no_nan(self.true_positives, self.true_positives + other)
        return result[0] if len(self.thresholds) == 1 else result


class Precision(_Confusion):
    """TP / (TP + FP) at ``thresholds`` (0.5; with ``top_k``, every prediction in a row's top
    k counts as positive), over all classes or only ``class_id``."""

    _other = "false_positives"

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        ts = _parse_thresholds(thresholds, 0.5 if top_k is None else _NEG_INF)
        super().__init__(ts, ["true_positives", self._other], name=name, dtype=dtype)
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id

    def result(self):
        return self._ratio(getattr(self, self._other))

    def get_config(self):
        config = super().get_config()
        config.update(thresholds=self.init_thresholds, top_k=self.top_k,
                      class_id=self.class_id)
        return config


class Recall(Precision):
    """TP / (TP + FN), with Precision's ``thresholds``, ``top_k`` and ``class_id``."""

    _other = "false_negatives"


class AUCCurve(str, enum.Enum):
    """TF's ``metrics_utils.AUCCurve``: the curve of an AUC (each equal to its name)."""

    ROC = "ROC"
    PR = "PR"

    @staticmethod
    def from_str(key):
        if str(key) in ("pr", "PR"):
            return AUCCurve.PR
        if str(key) in ("roc", "ROC"):
            return AUCCurve.ROC
        raise ValueError(f'Invalid AUC curve value "{key}".')


class AUCSummationMethod(str, enum.Enum):
    """TF's ``metrics_utils.AUCSummationMethod`` (each equal to its name)."""

    INTERPOLATION = "interpolation"
    MAJORING = "majoring"
    MINORING = "minoring"

    @staticmethod
    def from_str(key):
        for method in AUCSummationMethod:
            if str(key) in (method.value, method.value.capitalize()):
                return method
        raise ValueError(f'Invalid AUC summation method value "{key}".')


class AUC(_Confusion):
    """Area under the ROC or PR curve over ``num_thresholds`` thresholds (or ``thresholds``
    with -eps and 1+eps added), summed as TF 1.15: trapezoids (``'interpolation'``; for PR,
    the interpolation of Davis & Goadrich), or the lower/upper rectangles (``'minoring'``,
    ``'majoring'``)."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None):
        curve_name = curve if isinstance(curve, AUCCurve) else AUCCurve.from_str(curve)
        method = (summation_method if isinstance(summation_method, AUCSummationMethod)
                  else AUCSummationMethod.from_str(summation_method))
        eps = 1e-7
        if thresholds is not None:
            self._init_thresholds = list(thresholds)
            thresholds = [0.0 - eps] + sorted(thresholds) + [1.0 + eps]
        else:
            self._init_thresholds = None
            if num_thresholds <= 1:
                raise ValueError("`num_thresholds` must be > 1.")
            thresholds = ([0.0 - eps] + [(i + 1) / (num_thresholds - 1)
                                         for i in range(num_thresholds - 2)] + [1.0 + eps])
        self.num_thresholds = len(thresholds)
        self.curve, self.summation_method = curve_name, method
        super().__init__(thresholds, ["true_positives", "true_negatives", "false_positives",
                                      "false_negatives"], name=name, dtype=dtype)

    def interpolate_pr_auc(self):
        """The PR curve's area, interpolated as Davis & Goadrich (TF 1.15's ops and names)."""
        n = self.num_thresholds
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        dp = p[:n - 1] - p[1:]
        prec_slope = tf.div_no_nan(dtp, tf.maximum(dp, 0), name="prec_slope")
        intercept = tp[1:] - tf.multiply(prec_slope, p[1:])
        safe_p_ratio = tf.where(
            tf.logical_and(p[:n - 1] > 0, p[1:] > 0),
            tf.div_no_nan(p[:n - 1], tf.maximum(p[1:], 0), name="recall_relative_ratio"),
            tf.ones_like(p[1:]))
        return tf.reduce_sum(
            tf.div_no_nan(prec_slope * (dtp + intercept * tf.log(safe_p_ratio)),
                          tf.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment"),
            name="interpolate_pr_auc")

    def result(self):
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        n = self.num_thresholds
        tp, fp = self.true_positives, self.false_positives
        recall = tf.div_no_nan(tp, tp + self.false_negatives)
        if self.curve == "ROC":
            x, y = tf.div_no_nan(fp, fp + self.true_negatives), recall
        else:
            x, y = recall, tf.div_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = tf.minimum(y[:n - 1], y[1:])
        else:
            heights = tf.maximum(y[:n - 1], y[1:])
        return tf.reduce_sum(tf.multiply(x[:n - 1] - x[1:], heights), name=self.name)

    def get_config(self):
        config = super().get_config()
        # (as TF 1.15: the thresholds in use, less the two end points added to them)
        config.update(num_thresholds=self.num_thresholds, curve=self.curve.value,
                      summation_method=self.summation_method.value,
                      thresholds=self.thresholds[1:-1])
        return config


class _ConfusionCount(_Confusion):
    """One count of the confusion matrix at each threshold (a scalar for one threshold), in
    TF's variable ``accumulator``."""

    _kind = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        self.init_thresholds = thresholds
        super().__init__(_parse_thresholds(thresholds), ["accumulator"], name=name,
                         dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        return _update_confusion_matrix({self._kind: self.accumulator}, y_true, y_pred,
                                        self.thresholds, sample_weight=sample_weight)

    def result(self):
        if len(self.thresholds) == 1:
            return tf.convert_to_tensor(self.accumulator[0])
        return tf.convert_to_tensor(self.accumulator)

    def get_config(self):
        config = super().get_config()
        config["thresholds"] = self.init_thresholds
        return config


class TruePositives(_ConfusionCount):
    _kind = "true_positives"


class TrueNegatives(_ConfusionCount):
    _kind = "true_negatives"


class FalsePositives(_ConfusionCount):
    _kind = "false_positives"


class FalseNegatives(_ConfusionCount):
    _kind = "false_negatives"


class _SensitivitySpecificityBase(_Confusion):
    """TF 1.15's rule: the metric at the threshold whose other rate (specificity or
    sensitivity) is nearest ``value`` (tf_keras 2.x instead takes the best metric among the
    thresholds where the other rate is at least ``value``)."""

    def __init__(self, value, num_thresholds=200, name=None, dtype=None):
        if num_thresholds <= 0:
            raise ValueError("`num_thresholds` must be > 0.")
        self.value = value
        self.num_thresholds = num_thresholds
        if num_thresholds == 1:
            thresholds = [0.5]
        else:  # (as TF 1.15: 0 and 1 at the ends, where AUC takes -eps and 1 + eps)
            thresholds = ([0.0] + [(i + 1) * 1.0 / (num_thresholds - 1)
                                   for i in range(num_thresholds - 2)] + [1.0])
        super().__init__(thresholds, ["true_positives", "true_negatives", "false_positives",
                                      "false_negatives"], name=name, dtype=dtype)

    def _at_nearest(self, rates, num, den_other):
        i = tf.cast(tf.argmin(tf.abs(rates - self.value), axis=0), "int32")
        return tf.div_no_nan(num[i], num[i] + den_other[i])


class SensitivityAtSpecificity(_SensitivitySpecificityBase):
    def __init__(self, specificity, num_thresholds=200, name=None, dtype=None):
        if specificity < 0 or specificity > 1:
            raise ValueError("`specificity` must be in the range [0, 1].")
        self.specificity = specificity
        super().__init__(specificity, num_thresholds=num_thresholds, name=name, dtype=dtype)

    def result(self):
        specificities = tf.div_no_nan(self.true_negatives,
                                      self.true_negatives + self.false_positives)
        return self._at_nearest(specificities, self.true_positives, self.false_negatives)

    def get_config(self):
        config = super().get_config()
        config.update(num_thresholds=self.num_thresholds, specificity=self.specificity)
        return config


class SpecificityAtSensitivity(_SensitivitySpecificityBase):
    def __init__(self, sensitivity, num_thresholds=200, name=None, dtype=None):
        if sensitivity < 0 or sensitivity > 1:
            raise ValueError("`sensitivity` must be in the range [0, 1].")
        self.sensitivity = sensitivity
        super().__init__(sensitivity, num_thresholds=num_thresholds, name=name, dtype=dtype)

    def result(self):
        sensitivities = tf.div_no_nan(self.true_positives,
                                      self.true_positives + self.false_negatives)
        return self._at_nearest(sensitivities, self.true_negatives, self.false_positives)

    def get_config(self):
        config = super().get_config()
        config.update(num_thresholds=self.num_thresholds, sensitivity=self.sensitivity)
        return config


class MeanIoU(Metric):
    """The mean over classes of the intersection over union, from a confusion matrix of
    (weighted) counts kept as float64 (as TF)."""

    def __init__(self, num_classes, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.num_classes = num_classes
        self.total_cm = self.add_weight("total_confusion_matrix",
                                        shape=(num_classes, num_classes), dtype="float64",
                                        initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(y_true, self._dtype)
        y_pred = tf.cast(y_pred, self._dtype)
        if y_pred.get_shape().ndims > 1:
            y_pred = tf.reshape(y_pred, [-1])
        if y_true.get_shape().ndims > 1:
            y_true = tf.reshape(y_true, [-1])
        if sample_weight is not None and sample_weight.shape.ndims > 1:
            sample_weight = tf.reshape(sample_weight, [-1])
        cm = tf.confusion_matrix(y_true, y_pred, self.num_classes, weights=sample_weight,
                                 dtype="float64")
        return self.total_cm.assign_add(cm)

    def result(self):
        sum_over_row = tf.cast(tf.reduce_sum(self.total_cm, axis=0), self._dtype)
        sum_over_col = tf.cast(tf.reduce_sum(self.total_cm, axis=1), self._dtype)
        true_positives = tf.cast(tf.diag_part(self.total_cm), self._dtype)
        denominator = sum_over_row + sum_over_col - true_positives
        num_valid = tf.reduce_sum(tf.cast(tf.not_equal(denominator, 0), self._dtype))
        iou = tf.div_no_nan(true_positives, denominator)
        return tf.div_no_nan(tf.reduce_sum(iou, name="mean_iou"), num_valid)

    def get_config(self):
        config = super().get_config()
        config["num_classes"] = self.num_classes
        return config


_TABLE = {fn.__name__: fn for fn in [
    binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
    top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, accuracy,
    binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy, hinge,
    squared_hinge, categorical_hinge, kullback_leibler_divergence, logcosh,
    mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
    mean_squared_logarithmic_error, poisson, cosine_proximity]}
_TABLE.update({"mse": mse, "MSE": mse, "mae": mae, "MAE": mae, "mape": mape, "MAPE": mape,
               "msle": msle, "MSLE": msle, "kld": kld, "KLD": kld,
               # (as TF 1.15: the losses' cosine_similarity, by that name; no 'cosine')
               "cosine_similarity": cosine_proximity})


def serialize(metric):
    return metric.__name__


def _metric_classes():
    found, todo = {}, [Metric]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if not sub.__name__.startswith("_"):
                found.setdefault(sub.__name__, sub)
            todo.append(sub)
    return found


def deserialize(config, custom_objects=None):
    """A metric function from its name, or a metric object from ``{'class_name',
    'config'}`` or a class name (made with its defaults), as Keras."""
    classes = _metric_classes()
    if isinstance(config, str) and config in classes and config not in _TABLE:
        cls = (custom_objects or {}).get(config) or classes[config]
        return cls()
    table = dict(classes)
    table.update(_TABLE)
    return _deserialize(config, table, "metric function", custom_objects, instantiate=False)


def serialize_metric(metric):
    return metric.name if isinstance(metric, Metric) else metric.__name__


def get(identifier):
    return deserialize(identifier)


# TF 1.x's ``tensorflow.python.keras.utils.metrics_utils``: the AUC enums.
def _add_metrics_utils():
    import importlib.machinery
    import importlib.util
    import sys

    from tideflow.keras import utils

    full = utils.__name__ + ".metrics_utils"
    module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(full, None))
    module.__doc__ = "``keras.utils.metrics_utils`` (TF's module): metric helpers."
    module.AUCCurve, module.AUCSummationMethod = AUCCurve, AUCSummationMethod
    utils.metrics_utils = sys.modules.setdefault(full, module)


_add_metrics_utils()
