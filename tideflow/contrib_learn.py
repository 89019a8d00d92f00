"""``tf.contrib.learn`` (TF 0.10-1.4): its Estimator (``fit``/``evaluate``/``predict`` on
NumPy arrays or an ``input_fn``), ModelFnOps, the canned DNN/linear/wide-and-deep estimators,
SKCompat, MetricSpec, monitors and the small datasets helpers, built on ``tf.estimator`` as TF
1.x itself moved them there."""

import collections
import csv
import os
import re
import types

import numpy as np

from tideflow import contrib_learn_io as _learn_io
from tideflow import contrib_learn_monitors as _monitors_lib
from tideflow import estimator as _est
from tideflow.contrib_learn_io import (
    queue_parsed_features,
    read_batch_examples,
    read_batch_features,
    read_batch_record_features,
    read_keyed_batch_examples,
    read_keyed_batch_features,
)
from tideflow.estimator.canned import dnn as _dnn
from tideflow.estimator.canned import dnn_linear_combined as _dlc
from tideflow.estimator.canned import linear as _linear
from tideflow.feature_column import feature_column as _fc
from tideflow.framework import ops as _ops
from tideflow.ops import constant_op as _constant_op
from tideflow.ops import control_flow_ops as _control_flow_ops
from tideflow.ops import losses_impl as _losses_impl
from tideflow.ops import nn_impl as _nn_impl
from tideflow.train import basic_hooks as _basic_hooks
from tideflow.train import session_run_hook as _hook_lib

# contrib.learn's heads train on the mean loss per example (core's canned estimators: the sum)
_MEAN = _losses_impl.Reduction.SUM_OVER_BATCH_SIZE

# The key under which a bare feature array travels (TF's contrib feature columns name it "")
_BARE = ""


# the core Estimator reserves "loss" for its mean loss: a model's own loss metric travels
# under this key and is renamed in evaluate's result
_OWN_LOSS_KEY = "_contrib_learn_loss"


class ModeKeys:
    """Modes of a ``tf.contrib.learn`` model_fn."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


class ProblemType:
    UNSPECIFIED = 0
    CLASSIFICATION = 1
    LINEAR_REGRESSION = 2
    LOGISTIC_REGRESSION = 3


class PredictionKey:
    CLASSES = "classes"
    PROBABILITIES = "probabilities"
    LOGITS = "logits"
    LOGISTIC = "logistic"
    SCORES = "scores"
    TOP_K = "top_k"
    GENERIC = "output"


class NotFittedError(ValueError, AttributeError):
    """An estimator used before ``fit``."""


class ModelFnOps(collections.namedtuple("ModelFnOps", [
        "predictions", "loss", "train_op", "eval_metric_ops", "output_alternatives",
        "training_chief_hooks", "training_hooks", "scaffold", "mode"])):
    """What a ``tf.contrib.learn`` model_fn returns."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                output_alternatives=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.INFER):
            raise ValueError(f"mode must be one of ModeKeys, got {mode!r}")
        if mode == ModeKeys.TRAIN and (loss is None or train_op is None):
            raise ValueError("Missing loss or train_op in training mode.")
        if mode == ModeKeys.EVAL and loss is None:
            raise ValueError("Missing loss in eval mode.")
        if mode == ModeKeys.INFER and predictions is None:
            raise ValueError("Missing predictions in infer mode.")
        return super().__new__(cls, predictions, loss, train_op, eval_metric_ops or {},
                               output_alternatives, list(training_chief_hooks or []),
                               list(training_hooks or []), scaffold, mode)


class MetricSpec:
    """A metric function with the prediction, label and weight keys it reads."""

    def __init__(self, metric_fn, prediction_key=None, label_key=None, weight_key=None):
        if not callable(metric_fn):
            raise TypeError(f"metric_fn must be callable, got {metric_fn!r}")
        self.metric_fn = metric_fn
        self.prediction_key = prediction_key
        self.label_key = label_key
        self.weight_key = weight_key

    def create_metric_ops(self, inputs, labels, predictions):
        def pick(value, key, what):
            if isinstance(value, dict):
                if key is None:
                    if len(value) != 1:
                        raise ValueError(f"MetricSpec without {what}_key needs a single "
                                         f"{what}, got keys {sorted(value)}")
                    return next(iter(value.values()))
                if key not in value:
                    raise KeyError(f"{what} key {key!r} not in {sorted(value)}")
                return value[key]
            if key is not None and what == "prediction" and isinstance(value, _ops.Tensor):
                return value
            return value

        p = pick(predictions, self.prediction_key, "prediction")
        lab = pick(labels, self.label_key, "label")
        w = inputs[self.weight_key] if self.weight_key else None
        args = _fn_args(self.metric_fn)
        if "weights" in args and w is not None:
            return self.metric_fn(predictions=p, labels=lab, weights=w)
        if "predictions" in args and "labels" in args:
            return self.metric_fn(predictions=p, labels=lab)
        return self.metric_fn(p, lab)


def _fn_args(fn):
    import inspect

    while isinstance(fn, __import__("functools").partial):
        fn = fn.func
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ()


class RunConfig(_est.RunConfig):
    """``tf.contrib.learn.RunConfig``: the core RunConfig under the 1.0 arguments."""

    def __init__(self, master=None, num_cores=0, log_device_placement=False,
                 gpu_memory_fraction=1, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_secs=0, save_checkpoints_steps=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 protocol=None, evaluation_master="", model_dir=None, session_config=None,
                 session_creation_timeout_secs=7200):
        # as TF 1.15: 0 (its default) means 600 seconds unless steps are given; an explicit
        # number of seconds is kept beside steps
        if save_checkpoints_secs == 0:
            save_checkpoints_secs = 600 if save_checkpoints_steps is None else None
        both_secs = save_checkpoints_secs if save_checkpoints_steps is not None else None
        if session_config is None and (log_device_placement or num_cores):
            from tideflow.protos import config_pb2

            session_config = config_pb2.ConfigProto(
                log_device_placement=log_device_placement, allow_soft_placement=True,
                intra_op_parallelism_threads=num_cores,
                inter_op_parallelism_threads=num_cores)
        super().__init__(model_dir=model_dir, tf_random_seed=tf_random_seed,
                         save_summary_steps=save_summary_steps,
                         save_checkpoints_steps=save_checkpoints_steps,
                         save_checkpoints_secs=(None if both_secs is not None
                                                else save_checkpoints_secs),
                         session_config=session_config, keep_checkpoint_max=keep_checkpoint_max,
                         keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                         log_step_count_steps=log_step_count_steps, protocol=protocol,
                         session_creation_timeout_secs=session_creation_timeout_secs)
        if both_secs is not None:  # (the core RunConfig refuses both; TF 1.15's contrib keeps)
            self._save_checkpoints_secs = both_secs
        self._num_cores = num_cores
        self._gpu_memory_fraction = gpu_memory_fraction

    num_cores = property(lambda self: self._num_cores)
    gpu_memory_fraction = property(lambda self: self._gpu_memory_fraction)


# ------------------------------------------------------------------------------------------
# Arrays to input functions
# ------------------------------------------------------------------------------------------


def _as_feed_array(a):
    a = np.asarray(a)
    if a.dtype == np.float64:
        return a.astype(np.float32)
    return a


def _num_rows(x):
    if isinstance(x, dict):
        return len(next(iter(x.values())))
    return len(x)


def _array_input_fn(x, y, batch_size, shuffle, num_epochs):
    """An input_fn over in-memory ``x`` (array or dict) and ``y``; ``batch_size`` None means
    the whole data set in one batch (as TF's data feeder)."""
    if isinstance(x, dict):
        x = {k: _as_feed_array(v) for k, v in x.items()}
    else:
        x = _as_feed_array(x)
    if y is not None:
        y = {k: _as_feed_array(v) for k, v in y.items()} if isinstance(y, dict) \
            else _as_feed_array(y)
    n = _num_rows(x)
    if batch_size is None:
        batch_size = n
    elif batch_size <= 0:
        raise ValueError(f"Invalid batch_size {batch_size}.")
    # a data feeder's batches (placeholder-fed in TF: no feeding queue, no static batch size)
    return _est.inputs._numpy_input_fn(x, y, min(batch_size, n), num_epochs, shuffle, 1000, 1,
                                       as_queue=False)


class _DataFeeder:
    """TF 1.x's data feeder for in-memory ``x, y`` (arrays or dicts of arrays): placeholders
    named "input" and "output" ("input_<key>" for a dict), their dtypes the arrays' own, fed
    ``batch_size`` rows at a time in the order of a permutation drawn from RandomState(42)
    (drawn again after each pass; in order without ``shuffle``). A vector ``x`` is fed as a
    column; ``y`` of shape [n] or [n, 1] is fed as [batch]."""

    def __init__(self, x, y, batch_size, shuffle, epochs):
        self._x = {k: np.asarray(v) for k, v in x.items()} if isinstance(x, dict) \
            else np.asarray(x)
        self._y = None if y is None else (
            {k: np.asarray(v) for k, v in y.items()} if isinstance(y, dict) else np.asarray(y))
        self._n = _num_rows(self._x)
        if batch_size is None:
            batch_size = self._n
        elif batch_size <= 0:
            raise ValueError(f"Invalid batch_size {batch_size}.")
        self._batch = batch_size
        self._shuffle, self._epochs = shuffle, epochs
        self._rng = np.random.RandomState(42)
        self._indices = self._order()
        self._offset = self._epoch = 0
        self._inputs = self._outputs = None

    def _order(self):
        return self._rng.permutation(self._n) if self._shuffle else np.arange(self._n)

    @staticmethod
    def _x_shape(a):
        return list(a.shape[1:]) if a.ndim > 1 else [1]

    @staticmethod
    def _y_shape(a):
        shape = list(a.shape[1:])
        return shape[1:] if shape and shape[0] == 1 else shape

    def _placeholders(self, data, shape_of, name):
        if isinstance(data, dict):
            return {k: _constant_op.placeholder(v.dtype, [None] + shape_of(v),
                                                name=f"{name}_{k}") for k, v in data.items()}
        return _constant_op.placeholder(data.dtype, [None] + shape_of(data), name=name)

    def input_fn(self):
        self._inputs = self._placeholders(self._x, self._x_shape, "input")
        self._outputs = None if self._y is None else self._placeholders(
            self._y, self._y_shape, "output")
        return self._inputs, self._outputs

    def feed_fn(self):
        if self._epochs is not None and self._epoch + 1 > self._epochs:
            raise StopIteration
        rows = self._indices[self._offset:min(self._n, self._offset + self._batch)]
        self._offset += self._batch
        if self._offset >= self._n:
            self._indices = self._order()
            self._offset = 0
            self._epoch += 1

        def feed(phs, data, shape_of):
            pairs = phs.items() if isinstance(phs, dict) else [(None, phs)]
            return {ph: (data if k is None else data[k])[rows].reshape(
                [len(rows)] + shape_of(data if k is None else data[k])) for k, ph in pairs}

        out = feed(self._inputs, self._x, self._x_shape)
        if self._outputs is not None:
            out.update(feed(self._outputs, self._y, self._y_shape))
        return out


def _check_input(x, y, input_fn):
    if input_fn is None and x is None:
        raise ValueError("Either x or input_fn must be provided.")
    if input_fn is not None and (x is not None or y is not None):
        raise ValueError("Can not provide both input_fn and x or y.")


def _tensor_input_fn(input_fn):
    """``input_fn`` whose NumPy results (features, or features and labels) become
    constants, as TF's contrib estimators accepted them."""
    import functools

    def to_tensor(v):
        if isinstance(v, np.ndarray):
            return _ops.convert_to_tensor(_as_feed_array(v))
        if isinstance(v, dict):
            return {k: to_tensor(t) for k, t in v.items()}
        return v

    @functools.wraps(input_fn)
    def wrapped(*args, **kwargs):
        out = input_fn(*args, **kwargs)
        if isinstance(out, tuple):
            return tuple(to_tensor(v) for v in out)
        return to_tensor(out)

    return wrapped


# ops that end an input pipeline with OutOfRange; an input without any gives constant
# tensors, and contrib's predict then stops after its first batch (as TF's did)
_FINITE_INPUT_OPS = frozenset({"IteratorGetNext", "IteratorGetNextSync", "CountUpTo",
                               "IteratorGetNextAsOptional", "ReaderReadV2", "ReaderRead"})


class _OneBatchIfConstantHook(_hook_lib.SessionRunHook):
    def begin(self):
        from tideflow.framework import ops as ops_lib

        g = ops_lib.get_default_graph()
        self._constant = not g.get_collection(ops_lib.GraphKeys.QUEUE_RUNNERS) and not any(
            op.type in _FINITE_INPUT_OPS or op.type.startswith("QueueDequeue")
            for op in g.get_operations())

    def after_run(self, run_context, run_values):
        if self._constant:
            run_context.request_stop()


def _to_hooks(monitors, estimator):
    # TF's replace_monitors_with_hooks: hooks as they are, callback monitors (BaseMonitor
    # subclasses) run together by one adapter hook after them
    items = list(monitors or [])
    is_chief = getattr(getattr(estimator, "config", None), "is_chief", True)
    return _monitors_lib.wrap_monitors(items, estimator, is_chief)


# ------------------------------------------------------------------------------------------
# Estimator
# ------------------------------------------------------------------------------------------


class Estimator:
    """``tf.contrib.learn.Estimator``: a ``model_fn(features, labels, mode, params, config)``
    returning :class:`ModelFnOps` or ``(predictions, loss, train_op)``, trained with
    ``fit(x, y)`` or ``fit(input_fn=...)``."""

    # fit(x, y) feeds placeholders as TF's data feeder (a canned model takes a data set)
    _feeds_arrays = True

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None,
                 feature_engineering_fn=None):
        if model_fn is None:
            raise ValueError("model_fn must be provided")
        self._user_model_fn = model_fn
        self._feature_engineering_fn = feature_engineering_fn
        self._init_core(self._contrib_model_fn, model_dir, config, params)

    def _init_core(self, model_fn, model_dir, config, params=None):
        self._eval_metrics = None
        self.params = params
        core_params = None
        if params is not None and "params" in _fn_args(getattr(self, "_user_model_fn", None)
                                                       or (lambda: None)):
            core_params = None  # passed through our own closure, not the core's deep copy
        self._core = _est.Estimator(model_fn=model_fn, model_dir=model_dir, config=config,
                                    params=core_params)

    # --- the model function --------------------------------------------------------------

    def _call_user_model_fn(self, features, labels, mode, config):
        fn = self._user_model_fn
        args = _fn_args(fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        if "model_dir" in args:
            kwargs["model_dir"] = self.model_dir
        if "labels" in args:
            kwargs["labels"] = labels
        elif "targets" in args:
            kwargs["targets"] = labels
        elif len([a for a in args if a not in kwargs]) >= 2:
            return fn(features, labels, **kwargs)
        return fn(features, **kwargs)

    def _label_placeholders(self, labels, mode):
        """TF's label signature: fit records the labels' dtypes and shapes (batch size left
        open); predict, which has no labels, hands the model_fn unfed placeholders of that
        signature, so a model_fn that builds its loss unconditionally still builds."""
        if labels is not None:
            if mode == ModeKeys.TRAIN:
                def sig(t):
                    shape = t.get_shape()
                    dims = None if shape.ndims is None else [None] + shape.as_list()[1:]
                    return t.dtype, dims

                if isinstance(labels, dict):
                    if all(isinstance(v, _ops.Tensor) for v in labels.values()):
                        self._labels_info = {k: sig(v) for k, v in labels.items()}
                elif isinstance(labels, _ops.Tensor):
                    self._labels_info = sig(labels)
            return labels
        info = getattr(self, "_labels_info", None)
        if mode != ModeKeys.INFER or info is None:
            return labels
        if isinstance(info, dict):
            return {k: _constant_op.placeholder(d, shape=s) for k, (d, s) in info.items()}
        return _constant_op.placeholder(info[0], shape=info[1])

    def _contrib_model_fn(self, features, labels, mode, config):
        labels = self._label_placeholders(labels, mode)
        if self._feature_engineering_fn is not None:
            features, labels = self._feature_engineering_fn(features, labels)
        out = self._call_user_model_fn(features, labels, mode, config)
        if isinstance(out, ModelFnOps):
            ops = out
        elif isinstance(out, _est.EstimatorSpec):
            ops = ModelFnOps(mode, out.predictions, out.loss, out.train_op,
                             out.eval_metric_ops, None, out.training_chief_hooks,
                             out.training_hooks, out.scaffold)
        elif isinstance(out, (tuple, list)) and len(out) == 3:
            predictions, loss, train_op = out
            ops = ModelFnOps(mode, predictions, loss, train_op if mode == ModeKeys.TRAIN
                             else None)
        else:
            raise ValueError("model_fn must return a ModelFnOps or a (predictions, loss, "
                             f"train_op) tuple, got {type(out).__name__}")
        metrics = {}
        for name, metric in (ops.eval_metric_ops or {}).items():
            # TF's contrib.learn: a bare tensor is a value read after the last batch, and a
            # model's own "loss" replaces the mean loss
            if isinstance(metric, _ops.Tensor):
                metric = (metric, _control_flow_ops.no_op())
            metrics[_OWN_LOSS_KEY if name == "loss" else name] = metric
        if mode == ModeKeys.EVAL and self._eval_metrics:
            metrics.update(self._metric_ops(features, labels, ops.predictions))
        export_outputs = None
        preds = ops.predictions
        if isinstance(preds, dict) and not all(isinstance(k, str) for k in preds):
            # a multi_head's (head name, key) predictions: exported under "head/key"
            from tideflow.estimator.export import PredictOutput
            from tideflow.saved_model import signature_constants

            export_outputs = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                              PredictOutput({"/".join(k) if isinstance(k, tuple) else str(k): v
                                             for k, v in preds.items()})}
        return _est.EstimatorSpec(
            mode=mode, predictions=ops.predictions, loss=ops.loss,
            train_op=ops.train_op if mode == ModeKeys.TRAIN else None,
            eval_metric_ops=metrics, training_chief_hooks=ops.training_chief_hooks,
            training_hooks=ops.training_hooks, scaffold=ops.scaffold,
            export_outputs=export_outputs)

    def _metric_ops(self, features, labels, predictions):
        out = {}
        for name, metric in self._eval_metrics.items():
            if isinstance(name, tuple):  # 0.12's {(name, prediction_key): metric_fn}
                name, key = name
                metric = MetricSpec(metric, prediction_key=key)
            if not isinstance(metric, MetricSpec):
                metric = MetricSpec(metric)
            out[name] = metric.create_metric_ops(
                features if isinstance(features, dict) else {}, labels, predictions)
        return out

    # --- public API ----------------------------------------------------------------------

    @property
    def model_dir(self):
        return self._core.model_dir

    @property
    def config(self):
        return self._core.config

    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None,
            max_steps=None):
        """Trains for ``steps`` more steps (or up to ``max_steps``) on ``x, y`` or
        ``input_fn``; returns ``self``."""
        _check_input(x, y, input_fn)
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        hooks = _to_hooks(monitors, self)
        if x is not None and self._feeds_arrays:
            # TF's graph: "input"/"output" placeholders fed step by step (the op count, hence
            # the seeds of the model's initializers, and the batches are TF's)
            feeder = _DataFeeder(x, y, batch_size, shuffle=True, epochs=None)
            input_fn = feeder.input_fn
            hooks.append(_basic_hooks.FeedFnHook(feeder.feed_fn))
        elif x is not None:
            input_fn = _array_input_fn(x, y, batch_size, shuffle=True, num_epochs=None)
        self._core.train(_tensor_input_fn(input_fn), hooks=hooks, steps=steps,
                         max_steps=max_steps)
        return self

    def partial_fit(self, x=None, y=None, input_fn=None, steps=1, batch_size=None,
                    monitors=None):
        return self.fit(x=x, y=y, input_fn=input_fn, steps=steps, batch_size=batch_size,
                        monitors=monitors)

    def evaluate(self, x=None, y=None, input_fn=None, feed_fn=None, batch_size=None,
                 steps=None, metrics=None, name=None, checkpoint_path=None, hooks=None,
                 log_progress=True):
        """Evaluates on ``x, y`` (one pass) or ``input_fn``; ``metrics`` maps names to
        metric functions or :class:`MetricSpec`."""
        _check_input(x, y, input_fn)
        if feed_fn is not None:
            raise ValueError("feed_fn is not supported; use an input_fn")
        if metrics is not None and not isinstance(metrics, dict):
            raise ValueError(f"Metrics argument should be a dict, got {metrics!r}")
        if x is not None and self._feeds_arrays:
            feeder = _DataFeeder(x, y, batch_size, shuffle=False, epochs=1)
            input_fn = feeder.input_fn
            hooks = [*(hooks or []), _basic_hooks.FeedFnHook(feeder.feed_fn)]
        elif x is not None:
            input_fn = _array_input_fn(x, y, batch_size, shuffle=False, num_epochs=1)
        self._eval_metrics = metrics
        try:
            result = self._core.evaluate(_tensor_input_fn(input_fn), steps=steps, hooks=hooks,
                                         checkpoint_path=checkpoint_path, name=name)
        finally:
            self._eval_metrics = None
        if _OWN_LOSS_KEY in result:
            result["loss"] = result.pop(_OWN_LOSS_KEY)
        return self._eval_result(result, metrics)

    def _eval_result(self, result, metrics=None):
        return result

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True):
        """The model's predictions for ``x`` or ``input_fn``: an iterator (or, with
        ``as_iterable=False``, arrays stacked over all examples)."""
        return self._predict(x, input_fn, batch_size, outputs, as_iterable)

    def _predict(self, x, input_fn, batch_size, outputs, as_iterable, transform=None):
        _check_input(x, None, input_fn)
        hooks = [_OneBatchIfConstantHook()]
        if x is not None and self._feeds_arrays:
            feeder = _DataFeeder(x, None, batch_size, shuffle=False, epochs=1)
            input_fn = feeder.input_fn
            hooks = [_basic_hooks.FeedFnHook(feeder.feed_fn)]
        elif x is not None:
            input_fn = _array_input_fn(x, None, batch_size, shuffle=False, num_epochs=1)
        if isinstance(outputs, str):
            outputs = [outputs]
        it = self._core.predict(_tensor_input_fn(input_fn), predict_keys=outputs, hooks=hooks)
        if transform is not None:
            it = (transform(p) for p in it)
        if as_iterable:
            return it
        rows = list(it)
        if rows and isinstance(rows[0], dict):
            return {k: np.stack([r[k] for r in rows]) for k in rows[0]}
        return np.stack(rows) if rows else np.array([])

    def get_variable_names(self):
        return self._core.get_variable_names()

    def get_variable_value(self, name):
        return self._core.get_variable_value(name)

    def export_savedmodel(self, export_dir_base, serving_input_fn,
                          default_output_alternative_key=None, assets_extra=None,
                          as_text=False, checkpoint_path=None, graph_rewrite_specs=None,
                          strip_default_attrs=False):
        """Exports a SavedModel; ``serving_input_fn`` may return contrib.learn's
        ``InputFnOps`` (its default inputs are the signature's)."""
        from tideflow.contrib_learn_utils import InputFnOps
        from tideflow.estimator.export import ServingInputReceiver

        def receiver_fn():
            out = serving_input_fn()
            if isinstance(out, InputFnOps):
                return ServingInputReceiver(out.features, out.default_inputs)
            return out

        return self._core.export_savedmodel(export_dir_base, receiver_fn,
                                            assets_extra=assets_extra, as_text=as_text,
                                            checkpoint_path=checkpoint_path)

    def get_params(self, deep=True):
        return {"params": self.params}

    def set_params(self, **params):
        for k, v in params.items():
            setattr(self, k, v)
        return self


# ------------------------------------------------------------------------------------------
# Canned estimators
# ------------------------------------------------------------------------------------------


class _Canned(Estimator):
    """A core canned estimator behind the contrib interface: bare feature arrays become the
    feature named "", predictions use the contrib keys (``classes`` are class ids,
    regressors give ``scores``), and the reported ``loss`` is the mean loss per example."""

    _classifier = False
    _feeds_arrays = False
    # TF 1.15's wide-and-deep models without fix_global_step_increment_bug count each step
    # twice (each part's optimizer steps the global step)
    _steps_twice = False

    def __init__(self, core, model_dir, config):
        self._user_model_fn = None
        self._feature_engineering_fn = self._fe_fn
        inner = core.model_fn

        def model_fn(features, labels, mode, config):
            if self._feature_engineering_fn is not None:
                features, labels = self._feature_engineering_fn(features, labels)
            if not isinstance(features, dict):
                features = {_BARE: features}
            spec = inner(features, labels, mode, config)
            preds = self._contrib_predictions(spec.predictions)
            metrics = dict(spec.eval_metric_ops or {})
            if mode == ModeKeys.EVAL and self._eval_metrics:
                metrics.update(self._metric_ops(features, labels, preds))
            train_op = spec.train_op
            if train_op is not None and self._steps_twice:
                train_op = _step_again(train_op)
            return spec._replace(predictions=preds, eval_metric_ops=metrics, train_op=train_op)

        self._init_core(model_fn, model_dir or core.model_dir, config or core.config)

    _fe_fn = None

    def _contrib_predictions(self, p):
        if self._classifier:
            out = {PredictionKey.CLASSES: _nn_impl_squeeze(p["class_ids"]),
                   PredictionKey.PROBABILITIES: p["probabilities"],
                   PredictionKey.LOGITS: p["logits"]}
            if "logistic" in p:
                out[PredictionKey.LOGISTIC] = p["logistic"]
            return out
        scores = p["predictions"]
        if scores.get_shape().ndims == 2 and scores.get_shape()[1].value == 1:
            scores = _nn_impl_squeeze(scores)
        return {PredictionKey.SCORES: scores}

    def _eval_result(self, result, metrics=None):
        """The metrics under contrib.learn's keys, in the order TF 1.15's dict has them (a
        program prints it): the mean ``loss``; for classifiers ``accuracy`` (binary ones then
        the label/prediction means, ``auc`` and the threshold metrics); the caller's
        ``metrics``; ``global_step`` last."""
        core = dict(result)
        out = {"loss": core.get("average_loss", core.get("loss"))}
        if self._classifier:
            out["accuracy"] = core["accuracy"]
        if "auc" in core:
            out.update({
                "labels/prediction_mean": core.get("prediction/mean"),
                "labels/actual_label_mean": core.get("label/mean"),
                "accuracy/baseline_label_mean": core.get("label/mean"),
                "auc": core["auc"],
                "auc_precision_recall": core.get("auc_precision_recall"),
                "accuracy/threshold_0.500000_mean": core["accuracy"],
                "precision/positive_threshold_0.500000_mean": core.get("precision"),
                "recall/positive_threshold_0.500000_mean": core.get("recall")})
        for name in metrics or {}:
            key = name[0] if isinstance(name, tuple) else name
            out[key] = core[key]
        out["global_step"] = core.get("global_step")
        return {k: v for k, v in out.items() if v is not None}

    # contrib.learn's names for the canned models' variables (TF 1.15's layers.fully_connected
    # and linear model) -> the core models' names they are kept under here
    _CONTRIB_NAMES = (
        (re.compile(r"^(dnn/(?:hiddenlayer_\d+|logits))/weights$"), r"\1/kernel"),
        (re.compile(r"^(dnn/(?:hiddenlayer_\d+|logits))/biases$"), r"\1/bias"),
        (re.compile(r"^linear/bias_weight$"), "linear/linear_model/bias_weights"),
        (re.compile(r"^linear/(.*)/weights?$"), r"linear/linear_model/\1/weights"),
    )

    # the linear models' weights listed under contrib.learn's names (their optimizer slots
    # keep the core model's names)
    _LINEAR_NAMES = (
        (re.compile(r"^linear/linear_model/bias_weights$"), "linear/bias_weight"),
        # (a column may be named "", as infer_real_valued_columns_from_input names it)
        (re.compile(r"^linear/linear_model/([^/]*)/weights$"), r"linear/\1/weight"),
    )
    _contrib_linear_names = False
    # an optimizer slot of a linear weight: TF 1.15 names it after the weight, then the slot
    # variable's name ("linear/<head scope>/<weight>/part_0/<slot>") less as many leading
    # characters as "<weight>/part_0/" has: "linear/x1/weight/inear/x1/weight/part_0/Ftrl"
    # under the regression head, "linear/x/weight/head/linear/x/weight/part_0/Adam" under the
    # binary one; Adam's powers sit in the head's train_op scope
    _LINEAR_SLOT = re.compile(r"^linear/linear_model/(?:(bias)_weights|(.*)/weights)/"
                              r"part_0/([^/]+)$")
    _LINEAR_POWER = re.compile(r"^linear/head/(beta[12]_power)$")
    _head_scope = "regression_head"

    # the keys of the sparse (categorical) columns, whose weights TF 1.15 names "weights"
    _sparse_keys = frozenset()

    def _contrib_linear_name(self, name):
        for pattern, repl in self._LINEAR_NAMES:
            name = pattern.sub(repl, name)
        dense = re.match(r"^linear/([^/]*)/weight$", name)
        if dense is not None and dense.group(1) in self._sparse_keys:
            return name + "s"
        power = self._LINEAR_POWER.match(name)
        if power is not None:
            return f"linear/{self._head_scope}/train_op/{power.group(1)}"
        m = self._LINEAR_SLOT.match(name)
        if m is None:
            return name
        weight = "linear/bias_weight" if m.group(1) else (
            f"linear/{m.group(2)}/weight" + ("s" if m.group(2) in self._sparse_keys else ""))
        slot = f"linear/{self._head_scope}/{weight}/part_0/{m.group(3)}"
        return f"{weight}/" + slot[len(f"{weight}/part_0/"):]

    def get_variable_names(self):
        names = super().get_variable_names()
        if not self._contrib_linear_names:
            return names
        return sorted(self._contrib_linear_name(n) for n in names)

    def get_variable_value(self, name):
        """The value of variable ``name`` in the latest checkpoint; contrib.learn's names of
        the model's weights (``dnn/hiddenlayer_0/weights``, ``linear/bias_weight``, ...) are
        found too."""
        core_names = self._core.get_variable_names()
        if name not in core_names and self._contrib_linear_names:
            for core in core_names:
                if self._contrib_linear_name(core) == name:
                    return super().get_variable_value(core)
        if name not in core_names:
            for pattern, repl in self._CONTRIB_NAMES:
                core = pattern.sub(repl, name)
                if core != name:
                    if core in core_names:
                        return super().get_variable_value(core)
                    break
        return super().get_variable_value(name)

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True):
        if outputs:
            return super().predict(x, input_fn, batch_size, outputs, as_iterable)
        if self._classifier:
            return self.predict_classes(x, input_fn, batch_size, as_iterable)
        return self.predict_scores(x, input_fn, batch_size, as_iterable)

    def _one(self, key, x, input_fn, batch_size, as_iterable):
        return self._predict(x, input_fn, batch_size, [key], as_iterable,
                             transform=lambda p: p[key]) if as_iterable else \
            self._predict(x, input_fn, batch_size, [key], False)[key]

    def predict_classes(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
        return self._one(PredictionKey.CLASSES, x, input_fn, batch_size, as_iterable)

    def predict_proba(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
        return self._one(PredictionKey.PROBABILITIES, x, input_fn, batch_size, as_iterable)

    def predict_scores(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
        return self._one(PredictionKey.SCORES, x, input_fn, batch_size, as_iterable)


def _step_again(train_op):
    from tideflow.ops import state_ops
    from tideflow.train import training_util

    gs = training_util.get_global_step()
    with _ops.control_dependencies([train_op]):
        return state_ops.assign_add(gs, 1).op


def _nn_impl_squeeze(t):
    from tideflow.ops import array_ops

    return array_ops.squeeze(t, axis=[1])


def _optimizer(opt, clip_norm):
    """``opt`` as the core canned estimators take it, its gradients clipped to the global
    norm ``clip_norm`` when that is given (``gradient_clip_norm``)."""
    if clip_norm is None:
        return opt

    def make():
        from tideflow.estimator.canned import head

        base = opt
        if isinstance(base, str):
            base = head.get_optimizer_instance(base, 0.2 if base == "Ftrl" else 0.05)
        return _clipped(head.get_optimizer_instance(base), clip_norm)

    return make


def _clipped(base, clip_norm):
    from tideflow.ops.clip_ops import clip_by_global_norm

    class Clipped(type(base)):
        def compute_gradients(self, *args, **kwargs):
            gv = [(g, v) for g, v in super().compute_gradients(*args, **kwargs)
                  if g is not None]
            grads, _ = clip_by_global_norm([g for g, _ in gv], clip_norm)
            return list(zip(grads, [v for _, v in gv]))

    base.__class__ = Clipped
    return base


def _contrib_rate(opt, learning_rate):
    """An optimizer named by a string (or None: ``default``) at contrib.learn's rate for it
    (TF 1.15's optimize_loss makes it so), as a callable the core models take."""
    if not isinstance(opt, str):
        return opt

    def make():
        from tideflow.estimator.canned import head

        return head.get_optimizer_instance(opt, learning_rate)
    return make


def _weight(weight_column_name):
    return weight_column_name


def _contrib_dnn_logits(features, mode, hidden_units, logits_dimension, feature_columns,
                        activation_fn, dropout, config, min_slice_size=None):
    """TF 1.15's contrib.learn DNN network (layers.fully_connected under dnn/hiddenlayer_N
    with partitioned ``weights``/``biases``, the contrib input layer, TF's summaries): its
    variables, op count and so its seeded initial weights are TF's."""
    from tideflow import contrib_feature_columns as cfc
    from tideflow.ops import contrib_layers as cl
    from tideflow.ops import partitioned_variables
    from tideflow.ops import variable_scope as vs

    num_ps = config.num_ps_replicas if config else 0
    values = tuple(features.values())
    with vs.variable_scope("dnn", values=values,
                           partitioner=partitioned_variables.min_max_variable_partitioner(
                               max_partitions=num_ps)):
        with vs.variable_scope(
                "input_from_feature_columns", values=values,
                partitioner=partitioned_variables.min_max_variable_partitioner(
                    max_partitions=num_ps, min_slice_size=min_slice_size or 64 << 20)) as scope:
            net = cfc.input_from_feature_columns(features, feature_columns,
                                                 weight_collections=["dnn"], scope=scope)
        for i, units in enumerate(hidden_units):
            with vs.variable_scope(f"hiddenlayer_{i}", values=(net,)) as scope:
                net = cl.fully_connected(net, units, activation_fn=activation_fn,
                                         variables_collections=["dnn"], scope=scope)
                if dropout is not None and mode == ModeKeys.TRAIN:
                    net = cl.dropout(net, keep_prob=1.0 - dropout)
            _dnn._layer_summaries(scope.name, net)
        with vs.variable_scope("logits", values=(net,)) as scope:
            logits = cl.fully_connected(net, logits_dimension, activation_fn=None,
                                        variables_collections=["dnn"], scope=scope)
        _dnn._layer_summaries(scope.name, logits)
    return logits


def _contrib_dnn(head, hidden_units, feature_columns, model_dir, optimizer, activation_fn,
                 dropout, gradient_clip_norm, config, min_slice_size):
    """A core Estimator running contrib.learn's DNN network with ``head`` (the mean loss,
    Adagrad at 0.05 unless ``optimizer`` says otherwise)."""
    from tideflow.estimator.canned import head as head_lib
    from tideflow.train import training_util

    columns = list(feature_columns)
    optimizer = _optimizer(optimizer or "Adagrad", gradient_clip_norm)

    def model_fn(features, labels, mode, config):
        logits = _contrib_dnn_logits(features, mode, hidden_units, head.logits_dimension,
                                     columns, activation_fn, dropout, config, min_slice_size)
        opt = (head_lib.get_optimizer_instance(optimizer, learning_rate=0.05)
               if mode == ModeKeys.TRAIN else None)

        def train_op_fn(loss):
            return _dnn.minimize_op(opt, loss, None, training_util.get_global_step())

        return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                          labels=labels,
                                          train_op_fn=train_op_fn if opt is not None else None)

    return _est.Estimator(model_fn=model_fn, model_dir=model_dir, config=config)


class DNNClassifier(_Canned):
    """``tf.contrib.learn.DNNClassifier``: TF 1.15's contrib network (its variable names and
    seeded weights), fed as TF's data feeder."""

    _classifier = True
    _feeds_arrays = True

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column_name=None, optimizer=None, activation_fn=_nn_impl.relu,
                 dropout=None, gradient_clip_norm=None, enable_centered_bias=False,
                 config=None, feature_engineering_fn=None, embedding_lr_multipliers=None,
                 input_layer_min_slice_size=None, label_keys=None):
        from tideflow.estimator.canned import head as head_lib

        self._fe_fn = feature_engineering_fn
        head = head_lib.classification_head(n_classes, _weight(weight_column_name),
                                            label_keys, _MEAN)
        core = _contrib_dnn(head, hidden_units, feature_columns, model_dir, optimizer,
                            activation_fn, dropout, gradient_clip_norm, config,
                            input_layer_min_slice_size)
        super().__init__(core, model_dir, config)


class DNNRegressor(_Canned):
    """``tf.contrib.learn.DNNRegressor``: TF 1.15's contrib network, fed as TF's data
    feeder."""

    _feeds_arrays = True

    def __init__(self, hidden_units, feature_columns, model_dir=None, weight_column_name=None,
                 optimizer=None, activation_fn=_nn_impl.relu, dropout=None,
                 gradient_clip_norm=None, enable_centered_bias=False, config=None,
                 feature_engineering_fn=None, label_dimension=1,
                 embedding_lr_multipliers=None, input_layer_min_slice_size=None):
        from tideflow.estimator.canned import head as head_lib

        self._fe_fn = feature_engineering_fn
        head = head_lib.RegressionHead(label_dimension, _weight(weight_column_name), _MEAN)
        core = _contrib_dnn(head, hidden_units, feature_columns, model_dir, optimizer,
                            activation_fn, dropout, gradient_clip_norm, config,
                            input_layer_min_slice_size)
        super().__init__(core, model_dir, config)


class LinearClassifier(_Canned):
    """``tf.contrib.learn.LinearClassifier``."""

    _classifier = True
    _contrib_linear_names = True

    def __new__(cls, *args, **kwargs):
        if cls is LinearClassifier and _is_sdca(_arg(args, kwargs, 4, "optimizer")):
            # trained by SDCA (contrib.learn's sdca_model_fn)
            from tideflow.contrib_learn_head_estimators import sdca_linear

            return sdca_linear(True, *_args(args, kwargs, (
                ("feature_columns", None), ("optimizer", None), ("n_classes", 2),
                ("weight_column_name", None), ("model_dir", None), ("config", None),
                ("feature_engineering_fn", None)), cls.__init__),
                enable_centered_bias=_arg(args, kwargs, 6, "enable_centered_bias", False))
        return super().__new__(cls)

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column_name=None,
                 optimizer=None, gradient_clip_norm=None, enable_centered_bias=False,
                 _joint_weight=False, config=None, feature_engineering_fn=None,
                 label_keys=None):
        self._head_scope = "binary_logistic_head" if n_classes == 2 else "multi_class_head"
        feature_columns = list(feature_columns)
        self._sparse_keys = _sparse_column_keys(feature_columns)
        self._fe_fn = feature_engineering_fn
        core = _linear.LinearClassifier(list(feature_columns), model_dir, n_classes,
                                        _weight(weight_column_name), label_keys,
                                        _optimizer(optimizer or "Ftrl", gradient_clip_norm),
                                        config=config, loss_reduction=_MEAN)
        super().__init__(core, model_dir, config)


class LinearRegressor(_Canned):
    """``tf.contrib.learn.LinearRegressor``."""

    _contrib_linear_names = True

    def __new__(cls, *args, **kwargs):
        if cls is LinearRegressor and _is_sdca(_arg(args, kwargs, 3, "optimizer")):
            from tideflow.contrib_learn_head_estimators import sdca_linear

            cols, opt, weight, model_dir, config, fe_fn, dim, centered = _args(
                args, kwargs, (("feature_columns", None), ("optimizer", None),
                               ("weight_column_name", None), ("model_dir", None),
                               ("config", None), ("feature_engineering_fn", None),
                               ("label_dimension", 1), ("enable_centered_bias", False)),
                cls.__init__)
            return sdca_linear(False, cols, opt, 2, weight, model_dir, config, fe_fn, dim,
                               centered)
        return super().__new__(cls)

    def __init__(self, feature_columns, model_dir=None, weight_column_name=None,
                 optimizer=None, gradient_clip_norm=None, enable_centered_bias=False,
                 label_dimension=1, _joint_weights=False, config=None,
                 feature_engineering_fn=None):
        feature_columns = list(feature_columns)
        self._sparse_keys = _sparse_column_keys(feature_columns)
        self._fe_fn = feature_engineering_fn
        core = _linear.LinearRegressor(list(feature_columns), model_dir, label_dimension,
                                       _weight(weight_column_name),
                                       _optimizer(optimizer or "Ftrl", gradient_clip_norm),
                                       config=config, loss_reduction=_MEAN)
        super().__init__(core, model_dir, config)


def _arg(args, kwargs, index, name, default=None):
    return args[index] if len(args) > index else kwargs.get(name, default)


def _args(args, kwargs, wanted, init):
    """The values of the named arguments of a call to ``init`` (positional or keyword)."""
    import inspect

    bound = inspect.signature(init).bind(None, *args, **kwargs).arguments
    return [bound.get(name, default) for name, default in wanted]


def _sparse_column_keys(columns):
    """The keys of the categorical (sparse, bucketized, crossed) columns among ``columns``."""
    return frozenset(c.name for c in columns or () if isinstance(c, _fc._CategoricalColumn))


def _is_sdca(optimizer):
    import sys

    module = sys.modules.get("tideflow.contrib_linear_optimizer")
    return module is not None and isinstance(optimizer, module.SDCAOptimizer)


def _linear_rate(columns):
    """contrib.learn's rate for the linear part of a combined model: 0.2, less with many
    columns (1 / sqrt of their count)."""
    return min(0.2, 1.0 / len(list(columns or [])) ** 0.5) if columns else 0.2


class DNNLinearCombinedClassifier(_Canned):
    """``tf.contrib.learn.DNNLinearCombinedClassifier`` (wide and deep)."""

    _classifier = True

    def __init__(self, model_dir=None, n_classes=2, weight_column_name=None,
                 linear_feature_columns=None, linear_optimizer=None, _joint_linear_weights=False,
                 dnn_feature_columns=None, dnn_optimizer=None, dnn_hidden_units=None,
                 dnn_activation_fn=_nn_impl.relu, dnn_dropout=None, gradient_clip_norm=None,
                 enable_centered_bias=False, config=None, feature_engineering_fn=None,
                 embedding_lr_multipliers=None, input_layer_min_slice_size=None,
                 label_keys=None, fix_global_step_increment_bug=False):
        self._steps_twice = bool(linear_feature_columns and dnn_feature_columns
                                 and not fix_global_step_increment_bug)
        self._fe_fn = feature_engineering_fn
        core = _dlc.DNNLinearCombinedClassifier(
            model_dir, linear_feature_columns,
            _optimizer(_contrib_rate(linear_optimizer or "Ftrl",
                                     _linear_rate(linear_feature_columns)), gradient_clip_norm),
            dnn_feature_columns,
            _optimizer(_contrib_rate(dnn_optimizer or "Adagrad", 0.05), gradient_clip_norm),
            dnn_hidden_units,
            dnn_activation_fn, dnn_dropout, n_classes, _weight(weight_column_name),
            label_keys, config=config, loss_reduction=_MEAN)
        super().__init__(core, model_dir, config)


class DNNLinearCombinedRegressor(_Canned):
    """``tf.contrib.learn.DNNLinearCombinedRegressor``."""

    def __init__(self, model_dir=None, weight_column_name=None, linear_feature_columns=None,
                 linear_optimizer=None, _joint_linear_weights=False, dnn_feature_columns=None,
                 dnn_optimizer=None, dnn_hidden_units=None, dnn_activation_fn=_nn_impl.relu,
                 dnn_dropout=None, gradient_clip_norm=None, enable_centered_bias=False,
                 label_dimension=1, config=None, feature_engineering_fn=None,
                 embedding_lr_multipliers=None, input_layer_min_slice_size=None,
                 fix_global_step_increment_bug=False):
        self._steps_twice = bool(linear_feature_columns and dnn_feature_columns
                                 and not fix_global_step_increment_bug)
        self._fe_fn = feature_engineering_fn
        core = _dlc.DNNLinearCombinedRegressor(
            model_dir, linear_feature_columns,
            _optimizer(_contrib_rate(linear_optimizer or "Ftrl",
                                     _linear_rate(linear_feature_columns)), gradient_clip_norm),
            dnn_feature_columns,
            _optimizer(_contrib_rate(dnn_optimizer or "Adagrad", 0.05), gradient_clip_norm),
            dnn_hidden_units,
            dnn_activation_fn, dnn_dropout, label_dimension, _weight(weight_column_name),
            config=config, loss_reduction=_MEAN)
        super().__init__(core, model_dir, config)


class KMeansClustering(Estimator):
    """``tf.contrib.learn.KMeansClustering`` (TF 1.0-1.3): the k-means estimator with
    ``fit``/``predict_cluster_idx``/``transform``/``score``/``clusters``."""

    SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
    COSINE_DISTANCE = "cosine"
    RANDOM_INIT = "random"
    KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
    SCORES = "scores"
    CLUSTER_IDX = "cluster_idx"
    CLUSTERS = "clusters"
    ALL_SCORES = "all_scores"
    LOSS_OP_NAME = "kmeans_loss"
    _feeds_arrays = False  # (its core takes the points as a data set)

    def __init__(self, num_clusters, model_dir=None, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, random_seed=0,
                 use_mini_batch=True, mini_batch_steps_per_iteration=1,
                 kmeans_plus_plus_num_retries=2, relative_tolerance=None, config=None):
        from tideflow.ops.kmeans_estimator import KMeansClustering as _Core

        self._eval_metrics = None
        self.params = None
        self._core = _Core(num_clusters, model_dir=model_dir, initial_clusters=initial_clusters,
                           distance_metric=distance_metric, random_seed=random_seed,
                           use_mini_batch=use_mini_batch,
                           mini_batch_steps_per_iteration=mini_batch_steps_per_iteration,
                           kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries,
                           relative_tolerance=relative_tolerance, config=config)

    # TF 1.15's argument order (input_fn first); the 0.x programs' arrays are taken by keyword
    # ``x=`` or in input_fn's place
    @staticmethod
    def _points(input_fn, x):
        if input_fn is not None and not callable(input_fn):
            return None, input_fn
        return input_fn, x

    def predict_cluster_idx(self, input_fn=None, *, x=None, batch_size=None, as_iterable=True):
        """The index of each point's nearest cluster centre."""
        input_fn, x = self._points(input_fn, x)
        return self._key(x, input_fn, batch_size, "cluster_index", as_iterable)

    def transform(self, input_fn=None, as_iterable=False, *, x=None, batch_size=None):
        """Each point's distances to all centres (squared, for euclidean)."""
        input_fn, x = self._points(input_fn, x)
        return self._key(x, input_fn, batch_size, "all_distances", as_iterable)

    def _key(self, x, input_fn, batch_size, key, as_iterable):
        out = self._predict(x, input_fn, batch_size, [key], as_iterable,
                            transform=(lambda p: p[key]) if as_iterable else None)
        return out if as_iterable else out[key]

    def score(self, input_fn=None, steps=None, *, x=None, batch_size=None):
        """The sum of squared distances of the points to their nearest centres."""
        input_fn, x = self._points(input_fn, x)
        return self.evaluate(x=x, input_fn=input_fn, steps=steps or 1,
                             batch_size=batch_size)["score"]

    def clusters(self):
        """The cluster centres of the latest checkpoint."""
        return self._core.cluster_centers()


class _TensorFlowEstimator:
    """0.8-0.10's scikit-learn style estimators (``TensorFlowDNNClassifier`` and friends):
    ``fit(x, y)`` trains ``steps`` steps of ``batch_size``, ``predict(x)`` returns an array."""

    _classifier = True
    _fixed_params = ()  # base arguments a subclass sets itself (not its constructor's)

    def __init__(self, hidden_units=None, n_classes=0, batch_size=32, steps=200,
                 optimizer="Adagrad", learning_rate=0.1, clip_gradients=5.0, class_weight=None,
                 continue_training=False, config=None, verbose=1, dropout=None):
        self.hidden_units = hidden_units
        self.n_classes = n_classes
        self.batch_size = batch_size
        self.steps = steps
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.clip_gradients = clip_gradients
        self.class_weight = class_weight
        self.continue_training = continue_training
        self.verbose = verbose
        self.dropout = dropout
        self._config = config
        self._model = None
        self._x_dtype = None
        self._label_dimension = 1

    def _optimizer_instance(self):
        """The optimizer, made in the graph being built: a callable learning rate is a decay
        function of the global step (0.8's ``learning_rate=exp_decay``)."""
        from tideflow.estimator.canned import head
        from tideflow.train import training_util

        opt, lr = self.optimizer, self.learning_rate
        if callable(lr):
            lr = lr(training_util.get_global_step())
        if isinstance(opt, str):
            if _ops.is_dense_tensor_like(lr) and opt in head._OPTIMIZERS:
                from tideflow import train

                return getattr(train, head._OPTIMIZERS[opt])(learning_rate=lr)
            return head.get_optimizer_instance(opt, lr)
        if isinstance(opt, type):  # an optimizer class, as 0.8 took it
            return opt(lr)
        return head.get_optimizer_instance(opt)

    # scikit-learn's view: the constructor's arguments, a score, fitted weights

    @classmethod
    def _param_names(cls):
        import inspect

        names = []
        for klass in cls.__mro__:
            init = klass.__dict__.get("__init__")
            if init is None:
                continue
            params = inspect.signature(init).parameters.values()
            names += [p.name for p in params if p.name != "self" and p.name not in names
                      and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
            if not any(p.kind == p.VAR_KEYWORD for p in params):
                break
        return [n for n in names if n not in cls._fixed_params]

    def get_params(self, deep=True):
        """The constructor's arguments (scikit-learn's ``clone`` and grid search)."""
        return {n: getattr(self, "_config" if n == "config" else n, None)
                for n in self._param_names()}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, "_config" if key == "config" else key, value)
        self._model = None
        return self

    def score(self, x, y):
        """Accuracy for a classifier, the coefficient of determination for a regressor."""
        y = np.asarray(y)
        pred = self.predict(x)
        if self._classifier:
            return float(np.mean(pred == y.reshape(pred.shape)))
        y = y.reshape(pred.shape).astype(np.float64)
        total = np.sum((y - y.mean(axis=0)) ** 2)
        return float(1.0 - np.sum((y - pred) ** 2) / total) if total else 0.0

    def _weights(self, biases):
        names = [n for n in self._fitted().get_variable_names()
                 if n.rsplit("/", 1)[-1] in (("bias", "Bias", "bias_weights", "bias_weight")
                                             if biases else
                                             ("weights", "kernel", "Matrix", "weight"))
                 and "Adagrad" not in n and "Adam" not in n and "Momentum" not in n
                 and "Ftrl" not in n and "RMSProp" not in n]
        values = [self.get_variable_value(n) for n in names]
        return values[0] if len(values) == 1 else values

    @property
    def weights_(self):
        """The fitted weight matrices (one array, or a list for several layers)."""
        return self._weights(biases=False)

    @property
    def bias_(self):
        """The fitted biases (one array, or a list for several layers)."""
        return self._weights(biases=True)

    def _as_input(self, x):
        # as 0.8's data feeder: rows go into the placeholder fit made, of the training dtype
        x = np.asarray(x)
        return x if self._x_dtype is None else x.astype(self._x_dtype, copy=False)

    def _build(self, x):
        columns = infer_real_valued_columns_from_input(x)
        opt = _optimizer(self._optimizer_instance, self.clip_gradients)
        if self.hidden_units:
            if self._classifier:
                return DNNClassifier(self.hidden_units, columns, n_classes=self.n_classes,
                                     optimizer=opt, dropout=self.dropout, config=self._config)
            return DNNRegressor(self.hidden_units, columns, optimizer=opt,
                                dropout=self.dropout, config=self._config,
                                label_dimension=self._label_dimension)
        if self._classifier:
            return LinearClassifier(columns, n_classes=self.n_classes, optimizer=opt,
                                    config=self._config)
        return LinearRegressor(columns, optimizer=opt, config=self._config,
                               label_dimension=self._label_dimension)

    def fit(self, x, y, steps=None, monitors=None, logdir=None):
        """Trains ``steps`` (default the constructor's) batches; with ``logdir`` the model's
        checkpoints and summaries go there (unless the config names a model directory)."""
        if self._model is None:
            if logdir is not None:
                if self._config is None:
                    self._config = RunConfig(model_dir=logdir)
                elif self._config.model_dir is None:
                    self._config = self._config.replace(model_dir=logdir)
            self._x_dtype = np.asarray(x).dtype
            y_shape = np.shape(y)  # a regressor predicts as many values per row as y holds
            self._label_dimension = y_shape[1] if len(y_shape) == 2 else 1
            self._model = self._build(x)
        self._model.fit(x=x, y=y, steps=steps or self.steps, batch_size=self.batch_size,
                        monitors=monitors)
        return self

    def partial_fit(self, x, y):
        return self.fit(x, y)

    def _fitted(self):
        if self._model is None:
            raise NotFittedError("Estimator is not fitted yet.")
        return self._model

    def predict(self, x, axis=1, batch_size=None):
        """Class ids (classifiers) or values (regressors) for the rows of ``x``."""
        model = self._fitted()
        x = self._as_input(x)
        if self._classifier:
            return model.predict_classes(x=x, batch_size=batch_size, as_iterable=False)
        return model.predict_scores(x=x, batch_size=batch_size, as_iterable=False)

    def predict_proba(self, x, batch_size=None):
        return self._fitted().predict_proba(x=self._as_input(x), batch_size=batch_size,
                                            as_iterable=False)

    def evaluate(self, x=None, y=None, input_fn=None, steps=None):
        return self._fitted().evaluate(x=x, y=y, input_fn=input_fn, steps=steps)

    def get_variable_names(self):
        return self._fitted().get_variable_names()

    def get_variable_value(self, name):
        return self._fitted().get_variable_value(name)

    @property
    def model_dir(self):
        return self._fitted().model_dir


class TensorFlowDNNClassifier(_TensorFlowEstimator):
    """0.8-0.10's ``TensorFlowDNNClassifier(hidden_units, n_classes)``."""


class TensorFlowDNNRegressor(_TensorFlowEstimator):
    """0.8-0.10's ``TensorFlowDNNRegressor(hidden_units)``."""

    _classifier = False


class TensorFlowLinearClassifier(_TensorFlowEstimator):
    """0.8-0.10's ``TensorFlowLinearClassifier(n_classes)`` (softmax regression)."""

    _fixed_params = ("hidden_units",)

    def __init__(self, n_classes=0, **kwargs):
        super().__init__(None, n_classes, **kwargs)


class TensorFlowLinearRegressor(_TensorFlowEstimator):
    """0.8-0.10's ``TensorFlowLinearRegressor``."""

    _classifier = False

    _fixed_params = ("hidden_units",)

    def __init__(self, n_classes=0, **kwargs):
        super().__init__(None, n_classes, **kwargs)


TensorFlowClassifier = TensorFlowLinearClassifier
TensorFlowRegressor = TensorFlowLinearRegressor


class TensorFlowEstimator(_TensorFlowEstimator):
    """0.9-0.11's ``TensorFlowEstimator(model_fn, n_classes)``, scikit-flow's estimator over a
    ``model_fn(x, y)`` that returns ``(predictions, loss)``: a classifier's (``n_classes > 1``)
    integer labels reach it one-hot, and ``predict`` is the arg max of its predictions (the
    predictions themselves for a regressor, ``n_classes`` 0 or 1)."""

    def __init__(self, model_fn, n_classes, batch_size=32, steps=200, optimizer="Adagrad",
                 learning_rate=0.1, clip_gradients=5.0, class_weight=None,
                 continue_training=False, config=None, verbose=1):
        super().__init__(None, n_classes, batch_size=batch_size, steps=steps,
                         optimizer=optimizer, learning_rate=learning_rate,
                         clip_gradients=clip_gradients, class_weight=class_weight,
                         continue_training=continue_training, config=config, verbose=verbose)
        self.model_fn = model_fn
        self.class_weight = class_weight
        self._classifier = n_classes > 1

    def _build(self, x):
        import tideflow as tf
        from tideflow import contrib_learn_models

        def model_fn(features, labels, mode):
            if self.class_weight is not None:  # what models.logistic_regression looks up
                tf.constant(self.class_weight, dtype=features.dtype, name="class_weight")
            if labels is not None and self.n_classes > 1:
                ids = tf.cast(tf.reshape(labels, [-1]), tf.int64)
                labels = tf.one_hot(ids, self.n_classes, dtype=features.dtype)
            with contrib_learn_models._training_phase(mode == ModeKeys.TRAIN):
                predictions, loss = self.model_fn(features, labels)
            train_op = None
            if mode == ModeKeys.TRAIN:
                opt = self._optimizer_instance()
                if self.clip_gradients:
                    opt = _clipped(opt, self.clip_gradients)
                train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
            return predictions, loss, train_op

        return Estimator(model_fn=model_fn, config=self._config)

    def predict(self, x, axis=1, batch_size=None):
        """Class ids (the arg max along ``axis``) for a classifier, else the predictions."""
        out = self._fitted().predict(x=self._as_input(x), batch_size=batch_size,
                                     as_iterable=False)
        return np.argmax(out, axis=axis) if self._classifier else out

    def predict_proba(self, x, batch_size=None):
        """The predictions of ``model_fn`` (class probabilities for a classifier)."""
        return self._fitted().predict(x=self._as_input(x), batch_size=batch_size,
                                      as_iterable=False)


def _null_input_op_fn(x):
    return x


class _TensorFlowRNNEstimator(TensorFlowEstimator):
    """What the RNN classifier and regressor share: ``models.get_rnn_model``'s encoder under
    ``head``, and its settings kept as attributes (``get_params`` reads them)."""

    def _init_rnn(self, head, n_classes, rnn_size, cell_type, num_layers, input_op_fn,
                  initial_state, bidirectional, sequence_length, attn_length, attn_size,
                  attn_vec_size, **estimator_args):
        from tideflow.contrib_learn_models import get_rnn_model

        fn = get_rnn_model(rnn_size, cell_type, num_layers, input_op_fn, bidirectional, head,
                           sequence_length, initial_state, attn_length, attn_size,
                           attn_vec_size)
        TensorFlowEstimator.__init__(self, fn, n_classes, **estimator_args)
        self.rnn_size, self.cell_type, self.num_layers = rnn_size, cell_type, num_layers
        self.input_op_fn, self.initial_state = input_op_fn, initial_state
        self.bidirectional, self.sequence_length = bidirectional, sequence_length
        self.attn_length, self.attn_size = attn_length, attn_size
        self.attn_vec_size = attn_vec_size


class TensorFlowRNNClassifier(_TensorFlowRNNEstimator):
    """0.9-0.11's ``TensorFlowRNNClassifier``: ``input_op_fn(x)`` gives the list of time
    steps, ``models.get_rnn_model`` encodes them and a logistic regression classifies."""

    def __init__(self, rnn_size, n_classes, cell_type="gru", num_layers=1,
                 input_op_fn=_null_input_op_fn, initial_state=None, bidirectional=False,
                 sequence_length=None, attn_length=None, attn_size=None, attn_vec_size=None,
                 batch_size=32, steps=50, optimizer="Adagrad", learning_rate=0.1,
                 class_weight=None, clip_gradients=5.0, continue_training=False, config=None,
                 verbose=1):
        from tideflow.contrib_learn_models import logistic_regression

        self._init_rnn(logistic_regression, n_classes, rnn_size, cell_type, num_layers,
                       input_op_fn, initial_state, bidirectional, sequence_length, attn_length,
                       attn_size, attn_vec_size, batch_size=batch_size, steps=steps,
                       optimizer=optimizer, learning_rate=learning_rate,
                       clip_gradients=clip_gradients, class_weight=class_weight,
                       continue_training=continue_training, config=config, verbose=verbose)


class TensorFlowRNNRegressor(_TensorFlowRNNEstimator):
    """0.9-0.11's ``TensorFlowRNNRegressor``: the RNN encoder of ``TensorFlowRNNClassifier``
    under a linear regression."""

    def __init__(self, rnn_size, cell_type="gru", num_layers=1, input_op_fn=_null_input_op_fn,
                 initial_state=None, bidirectional=False, sequence_length=None,
                 attn_length=None, attn_size=None, attn_vec_size=None, n_classes=0,
                 batch_size=32, steps=50, optimizer="Adagrad", learning_rate=0.1,
                 clip_gradients=5.0, continue_training=False, config=None, verbose=1):
        from tideflow.contrib_learn_models import linear_regression

        self._init_rnn(linear_regression, n_classes, rnn_size, cell_type, num_layers,
                       input_op_fn, initial_state, bidirectional, sequence_length, attn_length,
                       attn_size, attn_vec_size, batch_size=batch_size, steps=steps,
                       optimizer=optimizer, learning_rate=learning_rate,
                       clip_gradients=clip_gradients, continue_training=continue_training,
                       config=config, verbose=verbose)


class SKCompat:
    """Scikit-learn style ``fit(x, y)`` / ``score`` / ``predict`` (a dict of arrays)."""

    def __init__(self, estimator):
        self._estimator = estimator

    def fit(self, x, y, batch_size=128, steps=None, max_steps=None, monitors=None):
        self._estimator.fit(x=x, y=y, batch_size=batch_size, steps=steps,
                            max_steps=max_steps, monitors=monitors)
        return self

    def score(self, x, y, batch_size=128, steps=None, metrics=None, name=None):
        return self._estimator.evaluate(x=x, y=y, batch_size=batch_size, steps=steps,
                                        metrics=metrics, name=name)

    def predict(self, x, batch_size=128, outputs=None):
        out = Estimator._predict(self._estimator, x, None, batch_size, outputs, False)
        return out


# ------------------------------------------------------------------------------------------
# Feature columns (tf.contrib.layers' names for tf.feature_column's columns)
# ------------------------------------------------------------------------------------------


def infer_real_valued_columns_from_input(x):
    """One real-valued column per feature of ``x`` (an array: the column named "")."""
    if isinstance(x, dict):
        return [_fc.numeric_column(k, shape=np.asarray(v).shape[1:] or (1,))
                for k, v in sorted(x.items())]
    x = np.asarray(x)
    return [_fc.numeric_column(_BARE, shape=x.shape[1:] or (1,))]


def infer_real_valued_columns_from_input_fn(input_fn):
    """The real-valued columns of what ``input_fn`` returns (built in a scratch graph)."""
    with _ops.Graph().as_default():
        out = input_fn()
        features = out[0] if isinstance(out, tuple) else out
        if not isinstance(features, dict):
            features = {_BARE: features}
        return [_fc.numeric_column(k, shape=t.get_shape()[1:].as_list() or (1,))
                for k, t in sorted(features.items())]


# ------------------------------------------------------------------------------------------
# Monitors
# ------------------------------------------------------------------------------------------


monitors = types.ModuleType(__name__ + ".monitors", "``tf.contrib.learn.monitors``.")
monitors.SessionRunHook = _hook_lib.SessionRunHook
for _name in ("BaseMonitor", "CaptureVariable", "EveryN", "LoggingTrainable", "NanLoss",
              "NanLossDuringTrainingError", "PrintTensor", "RunHookAdapterForMonitors",
              "StepCounter", "StopAtStep", "SummarySaver", "ValidationMonitor",
              "get_default_monitors"):
    setattr(monitors, _name, getattr(_monitors_lib, _name))
NanLossDuringTrainingError = _monitors_lib.NanLossDuringTrainingError


def _replace_monitors_with_hooks(monitors_or_hooks, estimator):
    return _to_hooks(monitors_or_hooks, estimator)


monitors.replace_monitors_with_hooks = _replace_monitors_with_hooks


# ------------------------------------------------------------------------------------------
# io and datasets
# ------------------------------------------------------------------------------------------


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=True, queue_capacity=1000,
                   num_threads=1):
    """``tf.contrib.learn.io.numpy_input_fn`` (shuffles by default)."""
    return _est.inputs.numpy_input_fn(x, y, batch_size=batch_size, num_epochs=num_epochs,
                                      shuffle=shuffle, queue_capacity=queue_capacity,
                                      num_threads=num_threads)


io = types.ModuleType(__name__ + ".io", "``tf.contrib.learn.io``: input functions and readers.")
io.numpy_input_fn = numpy_input_fn
for _name in _learn_io.__all__:  # the queue-based graph readers
    setattr(io, _name, getattr(_learn_io, _name))
if hasattr(_est.inputs, "pandas_input_fn"):
    io.pandas_input_fn = _est.inputs.pandas_input_fn

Dataset = collections.namedtuple("Dataset", ["data", "target"])
Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def load_csv_with_header(filename, target_dtype, features_dtype, target_column=-1):
    """A CSV whose first row is ``n_samples, n_features, [target names...]`` as a
    :class:`Dataset`."""
    with open(filename) as f:
        rows = csv.reader(f)
        header = next(rows)
        n_samples, n_features = int(header[0]), int(header[1])
        data = np.zeros((n_samples, n_features), dtype=features_dtype)
        target = np.zeros((n_samples,), dtype=target_dtype)
        for i, row in enumerate(rows):
            target[i] = np.asarray(row.pop(target_column), dtype=target_dtype)
            data[i] = np.asarray(row, dtype=features_dtype)
    return Dataset(data=data, target=target)


def load_csv_without_header(filename, target_dtype, features_dtype, target_column=-1):
    """A header-less CSV as a :class:`Dataset` (``target_column`` holds the target)."""
    with open(filename) as f:
        rows = [r for r in csv.reader(f) if r]
    target = np.array([r.pop(target_column) for r in rows], dtype=target_dtype)
    data = np.array(rows, dtype=features_dtype)
    return Dataset(data=data, target=target)


def load_csv(filename, target_dtype, target_column=-1, has_header=True):
    """0.x's loader: :func:`load_csv_with_header` (or ``_without_header``) with float64
    features."""
    load = load_csv_with_header if has_header else load_csv_without_header
    return load(filename, target_dtype, np.float64, target_column=target_column)


def maybe_download(filename, work_directory, source_url):
    """The path of ``filename`` in ``work_directory``, downloaded from ``source_url`` when
    it is not there yet."""
    os.makedirs(work_directory, exist_ok=True)
    path = os.path.join(work_directory, filename)
    if not os.path.exists(path):
        import urllib.request

        tmp = path + ".tmp"
        urllib.request.urlretrieve(source_url, tmp)
        os.replace(tmp, path)
    return path


datasets = types.ModuleType(__name__ + ".datasets", "``tf.contrib.learn.datasets``.")
datasets.base = types.ModuleType(__name__ + ".datasets.base",
                                 "``tf.contrib.learn.datasets.base``.")
for _m in (datasets, datasets.base):
    _m.Dataset = Dataset
    _m.Datasets = Datasets
    _m.load_csv = load_csv
    _m.load_csv_with_header = load_csv_with_header
    _m.load_csv_without_header = load_csv_without_header
    _m.maybe_download = maybe_download


def _datasets_getattr(name):
    # the loaders (and the iris table) load on first use
    from tideflow import contrib_learn_datasets as loaders

    if name not in ("DATASETS", "load_iris", "load_boston", "load_dataset", "load_mnist",
                    "mnist", "synthetic", "SYNTHETIC", "make_dataset"):
        raise AttributeError(f"module {datasets.__name__!r} has no attribute {name!r}")
    value = getattr(loaders, name)
    setattr(datasets, name, value)
    if name in ("load_iris", "load_boston"):
        setattr(datasets.base, name, value)
    return value


datasets.__getattr__ = _datasets_getattr
datasets.base.__getattr__ = _datasets_getattr


# ------------------------------------------------------------------------------------------
# Experiment and learn_runner (TF 1.1-1.4)
# ------------------------------------------------------------------------------------------


class Experiment:
    """Trains and evaluates an estimator (contrib or core) with given input functions."""

    def __init__(self, estimator, train_input_fn, eval_input_fn, eval_metrics=None,
                 train_steps=None, eval_steps=100, train_monitors=None, eval_hooks=None,
                 local_eval_frequency=None, eval_delay_secs=120,
                 continuous_eval_throttle_secs=60, min_eval_frequency=None,
                 delay_workers_by_global_step=False, export_strategies=None,
                 train_steps_per_iteration=None, checkpoint_and_export=False,
                 saving_listeners=None, check_interval_secs=5):
        self._check_interval_secs = check_interval_secs
        self._checkpoint_and_export = checkpoint_and_export
        self._saving_listeners = saving_listeners
        self._estimator = estimator
        self._train_input_fn = train_input_fn
        self._eval_input_fn = eval_input_fn
        self._eval_metrics = eval_metrics
        self._train_steps = train_steps
        self._eval_steps = eval_steps
        self._train_monitors = list(train_monitors or [])
        self._eval_hooks = list(eval_hooks or [])
        # as TF: 1 when not given (evaluate at every new checkpoint); local_run uses
        # local_eval_frequency instead
        self._min_eval_frequency = 1 if min_eval_frequency is None else min_eval_frequency
        self._local_eval_frequency = local_eval_frequency
        self._set_export_strategies(export_strategies)

    def _set_export_strategies(self, values):
        from tideflow.contrib_learn_extra import ExportStrategy

        strategies = []
        if values:
            if isinstance(values, ExportStrategy):
                strategies.append(values)
            else:
                for value in values:
                    if not isinstance(value, ExportStrategy):
                        raise ValueError("`export_strategies` must be an ExportStrategy, an "  # noqa: TRY004 - as TF
                                         f"iterable of ExportStrategy, or `None`, found {value}.")
                    strategies.append(value)
        self._export_strategies = tuple(strategies)

    def reset_export_strategies(self, new_export_strategies=None):
        """Replaces the export strategies; returns the old ones."""
        old = self._export_strategies
        self._set_export_strategies(new_export_strategies)
        return old

    def extend_train_hooks(self, additional_hooks):
        """Adds hooks (or monitors) to the training runs."""
        self._train_monitors.extend(additional_hooks)

    def _maybe_export(self, eval_result, checkpoint_path=None):
        """Runs each export strategy into ``<model_dir>/export/<strategy name>``; their
        results in a list."""
        base = os.path.join(self._estimator.model_dir, "export")
        return [s.export(self._estimator, os.path.join(base, s.name),
                         checkpoint_path=checkpoint_path, eval_result=eval_result)
                for s in self._export_strategies]

    estimator = property(lambda self: self._estimator)
    train_steps = property(lambda self: self._train_steps)
    eval_steps = property(lambda self: self._eval_steps)

    def _train(self, max_steps, extra_hooks=()):
        est = self._estimator
        hooks = _to_hooks(self._train_monitors + list(extra_hooks), est)
        if isinstance(est, Estimator):
            est.fit(input_fn=self._train_input_fn, max_steps=max_steps, monitors=hooks)
        else:
            est.train(self._train_input_fn, hooks=hooks, max_steps=max_steps,
                      saving_listeners=self._saving_listeners)

    def train(self, delay_secs=None):
        """Trains up to ``train_steps`` (or until the input ends); returns the estimator."""
        self._train(self._train_steps)
        return self._estimator

    def evaluate(self, delay_secs=None, name=None):
        est = self._estimator
        if isinstance(est, Estimator):
            return est.evaluate(input_fn=self._eval_input_fn, steps=self._eval_steps,
                                metrics=self._eval_metrics, name=name,
                                hooks=self._eval_hooks)
        return est.evaluate(self._eval_input_fn, steps=self._eval_steps, name=name,
                            hooks=self._eval_hooks)

    def train_and_evaluate(self):
        """Trains to ``train_steps`` in one run, evaluating during it, then evaluates;
        returns ``(eval_result, export_results)``. As TF 1.15's: with
        ``checkpoint_and_export`` each new checkpoint is evaluated as it is saved (named
        'intermediate_export') and the last of those results is returned; otherwise a
        ValidationMonitor evaluates the newest checkpoint every ``min_eval_frequency`` steps
        (when there is a new one) and a final evaluation follows training."""
        est = self._estimator
        config = est.config
        listener = None
        hooks = []
        if self._checkpoint_and_export and (config.save_checkpoints_secs
                                            or config.save_checkpoints_steps):
            listener = _EvalListener(self, est.model_dir)
            hooks.append(_basic_hooks.CheckpointSaverHook(
                est.model_dir, save_secs=config.save_checkpoints_secs,
                save_steps=config.save_checkpoints_steps, listeners=[listener]))
        elif self._min_eval_frequency:
            hooks.append(_monitors_lib.ValidationMonitor(
                input_fn=self._eval_input_fn, eval_steps=self._eval_steps,
                metrics=self._eval_metrics, every_n_steps=self._min_eval_frequency,
                check_interval_secs=self._check_interval_secs, hooks=self._eval_hooks))
        self._train(self._train_steps, hooks)
        if listener is not None:
            return listener.eval_result, listener.export_results
        eval_result = self.evaluate()
        return eval_result, self._maybe_export(eval_result)

    def local_run(self):
        every = self._min_eval_frequency
        self._min_eval_frequency = self._local_eval_frequency
        try:
            return self.train_and_evaluate()
        finally:
            self._min_eval_frequency = every

    def test(self):
        """One training step and one evaluation step (a smoke test)."""
        self._train(None if self._train_steps is None else 1)
        est = self._estimator
        if isinstance(est, Estimator):
            eval_result = est.evaluate(input_fn=self._eval_input_fn, steps=1)
        else:
            eval_result = est.evaluate(self._eval_input_fn, steps=1)
        self._maybe_export(eval_result)
        return eval_result


class _EvalListener(_basic_hooks.CheckpointSaverListener):
    """Evaluates each new checkpoint as it is saved (Experiment's checkpoint_and_export)."""

    def __init__(self, experiment, model_dir):
        self._experiment = experiment
        self._model_dir = model_dir
        self._latest_path = None
        self.eval_result = None
        self.export_results = []

    def after_save(self, session, global_step_value):
        from tideflow.train import checkpoint_management

        latest = checkpoint_management.latest_checkpoint(self._model_dir)
        if latest is None or latest == self._latest_path:
            return
        self._latest_path = latest
        ex = self._experiment
        est = ex._estimator
        if isinstance(est, Estimator):
            self.eval_result = est.evaluate(
                input_fn=ex._eval_input_fn, steps=ex._eval_steps, metrics=ex._eval_metrics,
                name="intermediate_export", checkpoint_path=latest, hooks=ex._eval_hooks)
        else:
            self.eval_result = est.evaluate(
                ex._eval_input_fn, steps=ex._eval_steps, name="intermediate_export",
                checkpoint_path=latest, hooks=ex._eval_hooks)
        self.export_results = ex._maybe_export(self.eval_result, checkpoint_path=latest)


def _learn_runner_run(experiment_fn, output_dir=None, schedule=None, run_config=None,
                      hparams=None):
    """``learn_runner.run``: builds the experiment (``experiment_fn(output_dir)`` or
    ``experiment_fn(run_config, hparams)``) and runs its ``schedule`` (default
    ``train_and_evaluate``)."""
    if output_dir is not None:
        if run_config is not None:
            raise ValueError("Cannot provide both `output_dir` and `run_config`")
        experiment = experiment_fn(output_dir)
    else:
        if run_config is None:
            raise ValueError("Must set either `output_dir` or `run_config`")
        experiment = experiment_fn(run_config, hparams)
    if not isinstance(experiment, Experiment):
        raise TypeError(f"Experiment builder returned {type(experiment).__name__}, not an "
                        "Experiment")
    schedule = schedule or "train_and_evaluate"
    task = getattr(experiment, schedule, None)
    if not callable(task):
        raise ValueError(f"Schedule references non-existent task {schedule}")  # noqa: TRY004 - as TF
    return task()


learn_runner = types.ModuleType(__name__ + ".learn_runner",
                                "``tf.contrib.learn.learn_runner``.")
learn_runner.run = _learn_runner_run


def __getattr__(name):
    if name == "estimators":  # tf.contrib.learn.estimators.{estimator,tensor_signature,...}
        import sys

        from tideflow import contrib_learn_estimators

        globals()[name] = contrib_learn_estimators.build(sys.modules[__name__])
        return globals()[name]
    # tf.contrib.learn.ops / models: scikit-flow's graph helpers, loaded on first use
    if name in ("ops", "models"):
        from tideflow import contrib_learn_models

        globals()[name] = getattr(contrib_learn_models, name)
        return globals()[name]
    # the heads, the head-taking estimators, SVM/SDCA and the graph actions (TF 1.1-1.4)
    # load on first use
    from tideflow import contrib_learn_extra

    if name in contrib_learn_extra.LAZY_NAMES:
        globals()[name] = value = contrib_learn_extra.lazy(name)
        return value
    # tf.contrib.learn.preprocessing (VocabularyProcessor, ...) is loaded on first use
    if name == "preprocessing":
        from tideflow import contrib_learn_preprocessing as module

        globals()[name] = module
        return module
    raise AttributeError(f"module 'tideflow.contrib.learn' has no attribute {name!r}")


def __dir__():
    from tideflow import contrib_learn_extra

    return sorted({*globals(), *contrib_learn_extra.LAZY_NAMES, "estimators", "models",
                   "ops", "preprocessing"})


__all__ = ["DNNClassifier", "DNNLinearCombinedClassifier", "DNNLinearCombinedRegressor",
           "DNNRegressor", "Dataset", "Datasets", "Estimator", "Experiment", "KMeansClustering",
           "LinearClassifier",
           "LinearRegressor", "MetricSpec", "ModeKeys", "ModelFnOps", "NanLossDuringTrainingError",
           "NotFittedError",
           "PredictionKey", "ProblemType", "RunConfig", "SKCompat", "TensorFlowClassifier",
           "TensorFlowDNNClassifier", "TensorFlowDNNRegressor", "TensorFlowEstimator",
           "TensorFlowLinearClassifier", "TensorFlowLinearRegressor", "TensorFlowRNNClassifier",
           "TensorFlowRNNRegressor", "TensorFlowRegressor", "datasets",
           "infer_real_valued_columns_from_input", "infer_real_valued_columns_from_input_fn",
           "io", "learn_runner", "monitors", "queue_parsed_features", "read_batch_examples",
           "read_batch_features", "read_batch_record_features", "read_keyed_batch_examples",
           "read_keyed_batch_features"]



def _register_source_paths():
    """TF 1.x programs import these modules by their source paths too
    (``from tensorflow.contrib.learn.python.learn.datasets import mnist``)."""
    import sys

    from tideflow import contrib_learn_datasets as loaders

    learn = sys.modules[__name__]
    python = types.ModuleType("tideflow.contrib.learn.python",
                              "``tensorflow.contrib.learn.python``.")
    python.learn = learn
    metric_spec = types.ModuleType("tideflow.contrib.learn.python.learn.metric_spec",
                                   "``tensorflow.contrib.learn.python.learn.metric_spec``.")
    metric_spec.MetricSpec = MetricSpec
    learn.metric_spec = metric_spec
    from tideflow import contrib_learn_utils as utils

    learn.utils = utils
    for suffix, module in {"utils": utils, "utils.input_fn_utils": utils.input_fn_utils,
                           "python.learn.utils": utils,
                           "python.learn.utils.input_fn_utils": utils.input_fn_utils,
                           "python": python, "python.learn": learn,
                           "python.learn.metric_spec": metric_spec,
                           "python.learn.datasets": datasets,
                           "python.learn.datasets.base": datasets.base,
                           "python.learn.datasets.mnist": loaders.mnist,
                           "python.learn.monitors": monitors}.items():
        sys.modules.setdefault("tideflow.contrib.learn." + suffix, module)


_register_source_paths()


def _install_extra():
    import sys

    from tideflow import contrib_learn_extra

    contrib_learn_extra.install(sys.modules[__name__])


_install_extra()
