"""``tf.keras.metrics``: per-sample metric functions (accuracies, the losses) and ``get``."""

import enum
import functools
import inspect

import numpy as np

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
    """Per sample (as TF 1.15, so sample weights apply): 1 where the true class is among the
    ``k`` highest predictions."""
    return tf.cast(tf.nn.in_top_k(y_pred, tf.argmax(y_true, -1), k), K.floatx())


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_true = tf.convert_to_tensor(y_true)
    if y_true.get_shape().ndims == y_pred.get_shape().ndims:
        y_true = tf.squeeze(y_true, [-1])
    return tf.cast(tf.nn.in_top_k(y_pred, tf.cast(y_true, "int32"), k), K.floatx())


def accuracy(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    return tf.cast(tf.equal(tf.cast(y_true, y_pred.dtype), y_pred), K.floatx())


# -- stateful metric objects ------------------------------------------------------------------


class Metric:
    """A stateful metric: ``update_state(...)`` returns the op accumulating a batch,
    ``result()`` the value so far, ``reset_states()`` zeroes the state. Calling the metric
    updates it and returns the result. The state variables are local variables (initialized by
    the Keras session like the other Keras variables)."""

    def __init__(self, name=None, dtype=None):
        from tideflow.keras._utils import snake_case

        self._name = name or snake_case(type(self).__name__)
        self.dtype = dtype or K.floatx()
        self._dtype = tf.as_dtype(self.dtype).name  # (TF's attribute: the dtype's name)
        self._vars = []
        self._updates = []
        self.stateful = True

    def __init_subclass__(cls, **kwargs):
        # As TF 1.x in graph mode: each ``update_state`` op is recorded in ``metric.updates``
        # (what ``EstimatorSpec.eval_metric_ops`` runs for a metric object).
        super().__init_subclass__(**kwargs)
        fn = cls.__dict__.get("update_state")
        if fn is None or getattr(fn, "_records_update", False):
            return

        @functools.wraps(fn)
        def update_state(self, *args, **kw):
            if self.__dict__.get("_in_update"):  # a subclass calling super().update_state
                return fn(self, *args, **kw)
            self.__dict__["_in_update"] = True
            try:
                op = fn(self, *args, **kw)
            finally:
                self.__dict__["_in_update"] = False
            if isinstance(op, (tf.Tensor, tf.Operation)):
                self.__dict__.setdefault("_updates", []).append(op)
            return op

        update_state._records_update = True
        cls.update_state = update_state

    @property
    def name(self):
        return self._name  # (as TF's: held in ``_name``, which wrappers rename through)

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def updates(self):
        return list(self.__dict__.get("_updates", []))

    def add_weight(self, name, shape=(), aggregation=None, synchronization=None,
                   initializer=None, dtype=None):
        """A state variable (TF 1.15's signature; the aggregation and synchronization of a
        distributed variable change nothing on one device)."""
        from tideflow.keras import initializers

        dtype = tf.as_dtype(dtype or self.dtype)
        if initializer is None:  # as Layer.add_weight: Glorot for floats, zeros otherwise
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        if isinstance(init, type):  # a class, as TF: its instance for the variable's dtype
            init = init(dtype=dtype)
        # as TF 1.15: named as given in the current name scope (not under the metric's name),
        # 'total:0', then 'total_1:0' for the next metric
        v = tf.Variable(lambda: init(shape, dtype=dtype), name=name, dtype=dtype,
                        trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES,
                                                      tf.GraphKeys.METRIC_VARIABLES])
        K._track_variable(v)
        self._vars.append(v)
        return v

    @property
    def variables(self):
        return list(self._vars)

    weights = variables

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def reset_states(self):
        K.batch_set_value([(v, np.zeros(v.get_shape().as_list())) for v in self._vars])

    def __call__(self, *args, **kwargs):
        update = self.update_state(*args, **kwargs)
        with tf.control_dependencies([update]):
            out = tf.identity(self.result())
        out._metric_obj = self  # as TF: add_metric(out) finds the metric to reset
        return out

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Reduce(Metric):
    def __init__(self, reduction, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total", initializer="zeros")
        if reduction != "sum":
            self.count = self.add_weight("count", initializer="zeros")

    def update_state(self, values, sample_weight=None):
        values = tf.cast(values, self.dtype)
        if sample_weight is not None:
            sample_weight = tf.cast(sample_weight, self.dtype)
            rank_v, rank_w = values.get_shape().ndims, sample_weight.get_shape().ndims
            if rank_v is not None and rank_w is not None:
                # as TF 1.15: [n, 1] weights of [n] values are squeezed, [n] weights of
                # [n, 1] values expanded; weights of lower rank than that reduce the values
                # over the extra axes (sum, or mean) instead of being broadcast
                if rank_w == rank_v + 1 and sample_weight.get_shape().as_list()[-1] == 1:
                    sample_weight = tf.squeeze(sample_weight, [-1])
                    rank_w = rank_v
                elif rank_w == rank_v - 1 and rank_w > 0:
                    sample_weight = tf.expand_dims(sample_weight, -1)
                    rank_w = rank_v
                if 0 < rank_w < rank_v:
                    axes = list(range(rank_w, rank_v))
                    values = (tf.reduce_sum(values, axes) if self.reduction == "sum"
                              else tf.reduce_mean(values, axes))
            else:  # ranks known only at run time: the same squeeze or expansion, then
                diff = tf.rank(sample_weight) - tf.rank(values)
                weight = sample_weight
                sample_weight = tf.cond(tf.equal(diff, 1),
                                        lambda: tf.squeeze(weight, [-1]),
                                        lambda: tf.identity(weight))
                expanded = sample_weight
                sample_weight = tf.cond(tf.equal(diff, -1),
                                        lambda: tf.expand_dims(expanded, -1),
                                        lambda: tf.identity(expanded))
            values = values * sample_weight
        # as TF 1.15: the total's update waits for the sum, the count's for the total's update
        # (so a step whose input fails updates neither)
        value_sum = tf.reduce_sum(values)
        with tf.control_dependencies([value_sum]):
            ops_ = [tf.assign_add(self.total, value_sum)]
        if self.reduction != "sum":
            num = (tf.cast(tf.size(values), self.dtype) if sample_weight is None
                   else tf.reduce_sum(sample_weight * tf.ones_like(values)))
            with tf.control_dependencies(ops_):
                ops_.append(tf.assign_add(self.count, num))
        return tf.group(*ops_)

    def result(self):
        if self.reduction == "sum":
            return tf.identity(self.total)
        return tf.div_no_nan(self.total, self.count) if hasattr(tf, "div_no_nan") else \
            self.total / tf.maximum(self.count, 1e-12)


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
        y_true = tf.cast(y_true, self.dtype)
        y_pred = tf.cast(y_pred, self.dtype)
        rank_t, rank_p = y_true.get_shape().ndims, y_pred.get_shape().ndims
        if rank_t is not None and rank_p is not None:
            if rank_p == rank_t + 1 and y_pred.get_shape().as_list()[-1] == 1:
                y_pred = tf.squeeze(y_pred, [-1])
            elif rank_t == rank_p + 1 and y_true.get_shape().as_list()[-1] == 1:
                y_true = tf.squeeze(y_true, [-1])
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
        y_pred = tf.cast(y_pred, self.dtype)
        y_true = tf.cast(y_true, self.dtype)
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
        return tf.group(tf.assign_add(self._total, values),
                        tf.assign_add(self._count, num_values))

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
        y_pred = tf.cast(y_pred, self.dtype)
        return super().update_state(tf.square(y_pred - tf.cast(y_true, self.dtype)),
                                    sample_weight=sample_weight)

    def result(self):
        return tf.sqrt(super().result())


class _Confusion(Metric):
    """Counts of true/false positives/negatives at ``thresholds``."""

    def __init__(self, thresholds, kinds, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.thresholds = [float(t) for t in thresholds]
        n = len(self.thresholds)
        for kind in kinds:
            setattr(self, kind, self.add_weight(kind, shape=(n,), initializer="zeros"))
        self._kinds = kinds

    _top_k = _class_id = None

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.cast(y_pred, "float32")
        if self._top_k is not None:
            # as TF: predictions outside each row's top k fall below every threshold
            _, idx = tf.nn.top_k(y_pred, self._top_k, sorted=False)
            depth = y_pred.get_shape().as_list()[-1]
            mask = tf.reduce_sum(tf.one_hot(idx, depth, axis=-1), axis=-2)
            y_pred = y_pred * mask + _NEG_INF * (1 - mask)
        if self._class_id is not None:
            y_true = tf.convert_to_tensor(y_true)[..., self._class_id]
            y_pred = y_pred[..., self._class_id]
        w = tf.ones_like(y_pred)
        if sample_weight is not None:
            # per-sample weights ([batch]) cover every prediction of their sample
            sw = tf.cast(sample_weight, "float32")
            rank, wrank = y_pred.get_shape().ndims, sw.get_shape().ndims
            if rank is not None and wrank is not None and wrank < rank:
                sw = tf.reshape(sw, tf.concat([tf.shape(sw), [1] * (rank - wrank)], 0))
            w = sw * w
        y_pred = tf.reshape(y_pred, [1, -1])
        w = tf.reshape(w, [1, -1])
        y_true = tf.reshape(tf.cast(y_true, "bool"), [1, -1])
        thresholds = tf.constant(self.thresholds, "float32", shape=[len(self.thresholds), 1])
        above = tf.greater(y_pred, thresholds)  # [thresholds, samples]
        pos, neg = tf.cast(y_true, "float32") * w, tf.cast(tf.logical_not(y_true), "float32") * w
        abovef = tf.cast(above, "float32")
        counts = {
            "true_positives": tf.reduce_sum(abovef * pos, 1),
            "false_positives": tf.reduce_sum(abovef * neg, 1),
            "true_negatives": tf.reduce_sum((1 - abovef) * neg, 1),
            "false_negatives": tf.reduce_sum((1 - abovef) * pos, 1),
        }
        return tf.group(*[tf.assign_add(getattr(self, k), tf.cast(counts[k], self.dtype))
                          for k in self._kinds])


_NEG_INF = -1e10


def _top_k_thresholds(thresholds, top_k):
    default = 0.5 if top_k is None else _NEG_INF
    return [default] if thresholds is None else (
        list(thresholds) if isinstance(thresholds, (list, tuple)) else [thresholds])


class Precision(_Confusion):
    """TP / (TP + FP) at ``thresholds`` (0.5; with ``top_k``, every prediction in a row's top
    k counts as positive), over all classes or only ``class_id``."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        ts = _top_k_thresholds(thresholds, top_k)
        super().__init__(ts, ["true_positives", "false_positives"], name=name, dtype=dtype)
        self._single = not isinstance(thresholds, (list, tuple))
        self.init_thresholds, self._top_k, self._class_id = thresholds, top_k, class_id
        self.top_k, self.class_id = top_k, class_id

    def get_config(self):
        config = _Confusion.get_config(self)  # (Recall shares this method)
        config.update(thresholds=self.init_thresholds, top_k=self.top_k,
                      class_id=self.class_id)
        return config

    def result(self):
        r = self.true_positives / tf.maximum(self.true_positives + self.false_positives, 1e-12)
        return r[0] if self._single else r


class Recall(_Confusion):
    """TP / (TP + FN), with Precision's ``thresholds``, ``top_k`` and ``class_id``."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        ts = _top_k_thresholds(thresholds, top_k)
        super().__init__(ts, ["true_positives", "false_negatives"], name=name, dtype=dtype)
        self._single = not isinstance(thresholds, (list, tuple))
        self.init_thresholds, self._top_k, self._class_id = thresholds, top_k, class_id
        self.top_k, self.class_id = top_k, class_id

    get_config = Precision.get_config

    def result(self):
        r = self.true_positives / tf.maximum(self.true_positives + self.false_negatives, 1e-12)
        return r[0] if self._single else r


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
            thresholds = [0.0 - eps] + list(thresholds) + [1.0 + eps]
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

    def _interpolate_pr_auc(self):
        n = self.num_thresholds
        tp, fp, fn = self.true_positives, self.false_positives, self.false_negatives
        dtp = tp[:n - 1] - tp[1:]
        p = tp + fp
        dp = p[:n - 1] - p[1:]
        slope = tf.div_no_nan(dtp, tf.maximum(dp, 0))
        intercept = tp[1:] - slope * p[1:]
        ratio = tf.where(tf.logical_and(p[:n - 1] > 0, p[1:] > 0),
                         tf.div_no_nan(p[:n - 1], tf.maximum(p[1:], 0)), tf.ones_like(p[1:]))
        return tf.reduce_sum(tf.div_no_nan(slope * (dtp + intercept * tf.log(ratio)),
                                           tf.maximum(tp[1:] + fn[1:], 0)))

    def result(self):
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolate_pr_auc()
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
        return tf.reduce_sum((x[:n - 1] - x[1:]) * heights)

    def get_config(self):
        config = super().get_config()
        # (as TF 1.15: the thresholds in use, less the two end points added to them)
        config.update(num_thresholds=self.num_thresholds, curve=self.curve.value,
                      summation_method=self.summation_method.value,
                      thresholds=self.thresholds[1:-1])
        return config


def _thresholds_list(thresholds, default=0.5):
    if thresholds is None:
        return [default]
    ts = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]
    invalid = [t for t in ts if t is None or not 0.0 <= float(t) <= 1.0]
    if invalid:
        raise ValueError(f"Threshold values must be in [0, 1]. Invalid values: {invalid}")
    return ts


class _ConfusionCount(_Confusion):
    """One count of the confusion matrix at each threshold (a scalar for one threshold)."""

    _kind = None

    def __init__(self, thresholds=None, name=None, dtype=None):
        self.init_thresholds = thresholds
        super().__init__(_thresholds_list(thresholds), [self._kind], name=name, dtype=dtype)
        self.accumulator = getattr(self, self._kind)

    def result(self):
        if len(self.thresholds) == 1:
            return tf.identity(self.accumulator[0])
        return tf.identity(self.accumulator)

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
            raise ValueError(f"`num_thresholds` must be > 0, got {num_thresholds}")
        self.value = value
        self.num_thresholds = num_thresholds
        eps = 1e-7
        if num_thresholds == 1:
            thresholds = [0.5]
        else:
            thresholds = ([0.0 - eps] + [(i + 1) / (num_thresholds - 1)
                                         for i in range(num_thresholds - 2)] + [1.0 + eps])
        super().__init__(thresholds, ["true_positives", "true_negatives", "false_positives",
                                      "false_negatives"], name=name, dtype=dtype)

    def _at_nearest(self, rates, num, den_other):
        i = tf.cast(tf.argmin(tf.abs(rates - self.value), axis=0), "int32")
        return tf.div_no_nan(tf.gather(num, i), tf.gather(num, i) + tf.gather(den_other, i))


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
        y_true = tf.reshape(tf.cast(y_true, "int64"), [-1])
        y_pred = tf.reshape(tf.cast(y_pred, "int64"), [-1])
        if sample_weight is not None:
            sample_weight = tf.reshape(tf.cast(sample_weight, "float64"), [-1])
        cm = tf.confusion_matrix(y_true, y_pred, self.num_classes, weights=sample_weight,
                                 dtype="float64")
        return tf.assign_add(self.total_cm, cm)

    def result(self):
        cm = tf.cast(self.total_cm, self.dtype)
        sum_over_row = tf.reduce_sum(cm, axis=0)
        sum_over_col = tf.reduce_sum(cm, axis=1)
        true_positives = tf.diag_part(cm)
        denominator = sum_over_row + sum_over_col - true_positives
        num_valid = tf.reduce_sum(tf.cast(tf.not_equal(denominator, 0), self.dtype))
        iou = tf.div_no_nan(true_positives, denominator)
        return tf.div_no_nan(tf.reduce_sum(iou), num_valid)

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
               "msle": msle, "MSLE": msle, "kld": kld, "KLD": kld, "cosine": cosine_proximity})


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
