"""The rest of TF 1.15's ``tf.contrib.learn`` top level: the head factories and head-taking
estimators, SVM, the graph actions, export strategies, the estimator ABCs, the pandas/dask
extractors, the shared-queue readers and three more monitors; loaded on first use."""

import abc
import collections
import os
import time
import types

import numpy as np

from tideflow import contrib_learn_monitors as _monitors_lib


def _tf():
    import tideflow

    return tideflow


# ------------------------------------------------------------------------------------------
# The estimator interfaces
# ------------------------------------------------------------------------------------------


class Evaluable(abc.ABC):
    """Something with ``evaluate`` and a ``model_dir``."""

    @abc.abstractproperty
    def model_dir(self):
        """The directory of the model's checkpoints."""

    @abc.abstractmethod
    def evaluate(self, x=None, y=None, input_fn=None, feed_fn=None, batch_size=None,
                 steps=None, metrics=None, name=None, checkpoint_path=None, hooks=None):
        """Evaluates the model."""


class Trainable(abc.ABC):
    """Something with ``fit``."""

    @abc.abstractmethod
    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None,
            max_steps=None):
        """Trains the model."""


class BaseEstimator(Evaluable, Trainable):
    """contrib.learn's estimator base (``Estimator`` and the canned models are its
    subclasses)."""

    def __init__(self, model_dir=None, config=None):
        raise TypeError("BaseEstimator is abstract; use tf.contrib.learn.Estimator")


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"


def _register_interfaces():
    from tideflow import contrib_learn

    for cls in (BaseEstimator, Evaluable, Trainable):
        cls.register(contrib_learn.Estimator)


# ------------------------------------------------------------------------------------------
# Export strategies
# ------------------------------------------------------------------------------------------


class ExportStrategy(collections.namedtuple("ExportStrategy",
                                           ["name", "export_fn", "strip_default_attrs"])):
    """A named export function ``export_fn(estimator, export_dir_base[, checkpoint_path[,
    eval_result]])`` an Experiment calls after evaluating."""

    def __new__(cls, name, export_fn, strip_default_attrs=None):
        return super().__new__(cls, name, export_fn, strip_default_attrs)

    def export(self, estimator, export_path, checkpoint_path=None, eval_result=None):
        from tideflow.contrib_learn import _fn_args

        args = _fn_args(self.export_fn)
        kwargs = {}
        if "checkpoint_path" in args:
            kwargs["checkpoint_path"] = checkpoint_path
        if "eval_result" in args:
            if "checkpoint_path" not in args:
                raise ValueError("An export_fn accepting eval_result must also accept "
                                 "checkpoint_path.")
            kwargs["eval_result"] = eval_result
        if "strip_default_attrs" in args:
            kwargs["strip_default_attrs"] = self.strip_default_attrs
        return self.export_fn(estimator, export_path, **kwargs)


def _keep_newest(export_dir_base, n):
    """Deletes all but the ``n`` newest timestamped exports under ``export_dir_base``."""
    import shutil

    if n is None or not os.path.isdir(export_dir_base):
        return
    stamped = sorted(d for d in os.listdir(export_dir_base) if d.isdigit())
    for d in stamped[:-n] if n else stamped:
        shutil.rmtree(os.path.join(export_dir_base, d), ignore_errors=True)


def make_export_strategy(serving_input_fn, default_output_alternative_key=None,
                         assets_extra=None, as_text=False, exports_to_keep=5,
                         strip_default_attrs=None):
    """An ExportStrategy ("Servo") writing a SavedModel with ``serving_input_fn`` and keeping
    the newest ``exports_to_keep`` exports."""

    def export_fn(estimator, export_dir_base, checkpoint_path=None, strip_default_attrs=False):
        kwargs = {"assets_extra": assets_extra, "as_text": as_text,
                  "checkpoint_path": checkpoint_path}
        from tideflow import contrib_learn

        if isinstance(estimator, contrib_learn.Estimator):
            kwargs["default_output_alternative_key"] = default_output_alternative_key
        path = estimator.export_savedmodel(export_dir_base, serving_input_fn, **kwargs)
        _keep_newest(export_dir_base, exports_to_keep)
        return path

    return ExportStrategy("Servo", export_fn, strip_default_attrs)


# ------------------------------------------------------------------------------------------
# pandas and dask extractors (as TF 1.15's, whose modules fail with NameError without them)
# ------------------------------------------------------------------------------------------

_PANDAS_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", "bool"}


def _pandas():
    try:
        import pandas
    except ImportError:
        raise NameError("name 'pd' is not defined") from None
    return pandas


def extract_pandas_data(data):
    """A DataFrame's values as a float array (int, float and bool columns only); anything
    else unchanged."""
    pd = _pandas()
    if not isinstance(data, pd.DataFrame):
        return data
    bad = [c for c in data if data[c].dtype.name not in _PANDAS_DTYPES]
    if bad:
        report = [f"'{c}' type='{data[c].dtype.name}'" for c in bad]
        raise ValueError("Data types for extracting pandas data must be int, float, or bool. "
                         "Found: " + ", ".join(report))
    return data.values.astype("float")


def extract_pandas_matrix(data):
    """A DataFrame's values as a matrix; anything else unchanged."""
    pd = _pandas()
    if not isinstance(data, pd.DataFrame):
        return data
    return data.values


def extract_pandas_labels(labels):
    """A one-column DataFrame's values (int, float or bool); anything else unchanged."""
    pd = _pandas()
    if not isinstance(labels, pd.DataFrame):
        return labels
    if len(labels.columns) > 1:
        raise ValueError("Only one column for labels is allowed.")
    bad = [c for c in labels if labels[c].dtype.name not in _PANDAS_DTYPES]
    if bad:
        report = [f"'{c}' type={labels[c].dtype.name}" for c in bad]
        raise ValueError("Data types for extracting labels must be int, float, or bool. "
                         "Found: " + ", ".join(report))
    return labels.values


def _dask(missing):
    try:
        import dask.dataframe as dd
    except ImportError:
        raise NameError(f"name '{missing}' is not defined") from None
    return dd


def _dask_with_divisions(df, dd):
    lengths = df.map_partitions(len).compute()
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).tolist()

    def shifted(part, partition_info=None):
        part = part.copy()
        part.index += starts[partition_info["number"]] if partition_info else 0
        return part

    return df.map_partitions(shifted)


def extract_dask_data(data):
    """A dask DataFrame or Series re-indexed to run over all its partitions; anything else
    unchanged."""
    dd = _dask("allowed_classes")
    if isinstance(data, (dd.Series, dd.DataFrame)):
        return _dask_with_divisions(data, dd)
    return data


def extract_dask_labels(labels):
    """As :func:`extract_dask_data` for a single label column."""
    dd = _dask("dd")
    if isinstance(labels, dd.DataFrame):
        if len(labels.columns) > 1:
            raise ValueError("Only one column for labels is allowed.")
        return _dask_with_divisions(labels, dd)
    if isinstance(labels, dd.Series):
        return _dask_with_divisions(labels, dd)
    return labels


# ------------------------------------------------------------------------------------------
# Shared-queue readers
# ------------------------------------------------------------------------------------------


def read_keyed_batch_examples_shared_queue(file_pattern, batch_size, reader,
                                           randomize_input=True, num_epochs=None,
                                           queue_capacity=10000, num_threads=1,
                                           read_batch_size=1, parse_fn=None, name=None,
                                           seed=None):
    """``(keys, examples)`` batches read through one queue of parsed records (TF shares it
    among workers by name; in one process it is ``read_keyed_batch_examples``'s queue)."""
    from tideflow import contrib_learn_io

    return contrib_learn_io.read_keyed_batch_examples(
        file_pattern, batch_size, reader, randomize_input=randomize_input,
        num_epochs=num_epochs, queue_capacity=queue_capacity, num_threads=num_threads,
        read_batch_size=read_batch_size, parse_fn=parse_fn, name=name, seed=seed)


def read_keyed_batch_features_shared_queue(file_pattern, batch_size, features, reader,
                                           randomize_input=True, num_epochs=None,
                                           queue_capacity=10000, reader_num_threads=1,
                                           feature_queue_capacity=100, num_queue_runners=2,
                                           parse_fn=None, name=None):
    """``(keys, features)`` batches parsed with ``features`` (see
    :func:`read_keyed_batch_examples_shared_queue`)."""
    from tideflow import contrib_learn_io

    return contrib_learn_io.read_keyed_batch_features(
        file_pattern, batch_size, features, reader, randomize_input=randomize_input,
        num_epochs=num_epochs, queue_capacity=queue_capacity,
        reader_num_threads=reader_num_threads, feature_queue_capacity=feature_queue_capacity,
        num_enqueue_threads=num_queue_runners, parse_fn=parse_fn, name=name)


# ------------------------------------------------------------------------------------------
# Monitors
# ------------------------------------------------------------------------------------------


class CheckpointSaver(_monitors_lib.BaseMonitor):
    """Saves a checkpoint every ``save_steps`` steps or ``save_secs`` seconds, and at the
    end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None):
        super().__init__()
        if save_steps is None and save_secs is None:
            raise ValueError("Either save_steps or save_secs should be provided")
        if save_steps is not None and save_secs is not None:
            raise ValueError("Can not provide both save_steps and save_secs.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._save_secs, self._save_steps = save_secs, save_steps
        self._last_saved_time = self._last_begin_step = self._last_saved_step = None

    def begin(self, max_steps=None):
        super().begin(max_steps)
        self._last_saved_time = self._last_begin_step = self._last_saved_step = None
        if self._saver is None and self._scaffold is None:
            # (TF 1.15 fails on its missing scaffold here; a default Saver, built while the
            # graph can still grow, saves instead)
            self._saver = _tf().train.Saver()

    def step_begin(self, step):
        out = super().step_begin(step)
        self._last_begin_step = step
        return out

    def post_step(self, step, session):
        super().post_step(step, session)
        if self._last_saved_time is None:
            self._save(step, session)
        if self._save_steps is not None and step >= self._last_saved_step + self._save_steps:
            self._save(step, session)
        if self._save_secs is not None and time.time() >= self._last_saved_time + \
                self._save_secs:
            self._save(step, session)

    def end(self, session=None):
        super().end(session)
        self._save(self._last_begin_step, session)

    def _save(self, step, session):
        if step == self._last_saved_step:
            return
        tf = _tf()
        self._last_saved_time = time.time()
        self._last_saved_step = step
        saver = self._saver if self._saver is not None else self._scaffold.saver
        saver.save(session, self._save_path, global_step=step)
        tf.summary.FileWriterCache.get(self._checkpoint_dir).add_session_log(
            tf.SessionLog(status=tf.SessionLog.CHECKPOINT, checkpoint_path=self._save_path),
            step)


class GraphDump(_monitors_lib.BaseMonitor):
    """Fetches (almost) every op's first output at each step, kept in ``data[step]``."""

    IGNORE_OPS = ("Const", "Assign", "Identity", "Placeholder", "RandomUniform", "Cast",
                  "RestoreSlice")

    def __init__(self, ignore_ops=None):
        super().__init__()
        self._ignore_ops = ignore_ops or GraphDump.IGNORE_OPS
        self._data = {}

    def begin(self, max_steps=None):
        super().begin(max_steps=max_steps)
        graph = _tf().get_default_graph()
        self._tensors = [op.outputs[0] for op in graph.get_operations()
                         if op.type not in self._ignore_ops and op.outputs]

    def step_begin(self, step):
        super().step_begin(step)
        return self._tensors

    def step_end(self, step, output):
        super().step_end(step, output)
        self._data[step] = output

    @property
    def data(self):
        return self._data

    def compare(self, other_dump, step, atol=1e-06):
        """``(matched keys, {key: difference})`` of this dump and ``other_dump`` at
        ``step``."""
        non_matched, matched = {}, []
        mine = self.data.get(step, {})
        other = other_dump.data.get(step, {})
        for key in mine:
            if not isinstance(key, str):
                continue
            if key not in other:
                raise ValueError(f"{key} missing at step {step}.")
            a, b = mine[key], other[key]
            if isinstance(a, str):
                continue
            if isinstance(a, np.ndarray):
                if np.allclose(a, b, atol=atol):
                    matched.append(key)
                else:
                    non_matched[key] = a - b
            elif a != b:
                non_matched[key] = (a, b)
            else:
                matched.append(key)
        return matched, non_matched


class ExportMonitor(_monitors_lib.EveryN):
    """Exports the model every ``every_n_steps`` steps and at the end, as a SavedModel
    under ``export_dir`` (``input_fn`` is the serving input function: it returns
    ``InputFnOps`` or a ``ServingInputReceiver``)."""

    def __init__(self, every_n_steps, export_dir, input_fn=None, input_feature_key=None,
                 exports_to_keep=5, signature_fn=None, default_batch_size=1):
        super().__init__(every_n_steps=every_n_steps)
        self._export_dir = export_dir
        self._input_fn = input_fn
        self._input_feature_key = input_feature_key
        self._exports_to_keep = exports_to_keep
        self._signature_fn = signature_fn
        self._default_batch_size = default_batch_size
        self._last_export_dir = None

    export_dir = property(lambda self: self._export_dir)
    exports_to_keep = property(lambda self: self._exports_to_keep)
    signature_fn = property(lambda self: self._signature_fn)

    @property
    def last_export_dir(self):
        """The directory of the latest export (None before the first)."""
        return self._last_export_dir

    def _export(self):
        if self._input_fn is None:
            raise ValueError("ExportMonitor needs an input_fn (the serving input function) "
                             "to export a SavedModel")
        path = self._estimator.export_savedmodel(self._export_dir, self._input_fn)
        _keep_newest(self._export_dir, self._exports_to_keep)
        self._last_export_dir = path
        return path

    def every_n_step_end(self, step, outputs):
        super().every_n_step_end(step, outputs)
        self._export()
        return False

    def end(self, session=None):
        super().end(session=session)
        self._export()


# ------------------------------------------------------------------------------------------
# learn_runner.tune
# ------------------------------------------------------------------------------------------


def tune(experiment_fn, tuner):
    """Runs trials while ``tuner.next_trial()`` says so: each builds an Experiment from
    ``experiment_fn(run_config, hparams)`` with the tuner's settings and runs the tuner's
    schedule, reporting the result back."""
    while tuner.next_trial():
        tuner.run_experiment(experiment_fn)


# ------------------------------------------------------------------------------------------
# Lazy names of tf.contrib.learn
# ------------------------------------------------------------------------------------------

_HEAD_NAMES = ("Head", "regression_head", "multi_class_head", "binary_svm_head",
               "multi_label_head", "poisson_regression_head", "multi_head", "no_op_train_fn")
_ESTIMATOR_NAMES = ("SVM", "LogisticRegressor", "DNNEstimator", "LinearEstimator",
                    "DNNLinearCombinedEstimator")
_GRAPH_ACTIONS = ("evaluate", "infer", "train", "run_n", "run_feeds")
_HERE = ("BaseEstimator", "Evaluable", "Trainable", "TaskType", "ExportStrategy",
         "make_export_strategy", "extract_pandas_data", "extract_pandas_labels",
         "extract_pandas_matrix", "extract_dask_data", "extract_dask_labels",
         "read_keyed_batch_examples_shared_queue", "read_keyed_batch_features_shared_queue")
LAZY_NAMES = frozenset(_HEAD_NAMES + _ESTIMATOR_NAMES + _GRAPH_ACTIONS + _HERE
                       + ("head", "graph_actions", "InputFnOps",
                          "build_parsing_serving_input_fn", "DynamicRnnEstimator"))


def lazy(name):
    """The value of ``tf.contrib.learn.<name>``."""
    if name in _HEAD_NAMES:
        from tideflow import contrib_learn_heads

        return getattr(contrib_learn_heads, name)
    if name == "head":
        from tideflow import contrib_learn_heads

        return contrib_learn_heads
    if name in _ESTIMATOR_NAMES:
        from tideflow import contrib_learn_head_estimators

        return getattr(contrib_learn_head_estimators, name)
    if name in _GRAPH_ACTIONS or name == "graph_actions":
        from tideflow import contrib_learn_graph_actions

        return contrib_learn_graph_actions if name == "graph_actions" else getattr(
            contrib_learn_graph_actions, name)
    if name == "DynamicRnnEstimator":
        from tideflow import contrib_learn_dynamic_rnn

        return contrib_learn_dynamic_rnn.DynamicRnnEstimator
    if name in ("InputFnOps", "build_parsing_serving_input_fn"):
        from tideflow import contrib_learn_utils

        return getattr(contrib_learn_utils, name)
    return globals()[name]


def install(learn):
    """Adds the names TF 1.15 has in ``learn.monitors``, ``learn.io`` and
    ``learn.learn_runner`` (called once by contrib_learn)."""
    _register_interfaces()
    for name in ("CheckpointSaver", "ExportMonitor", "GraphDump"):
        setattr(learn.monitors, name, globals()[name])
    learn.monitors.SessionLog = _tf().SessionLog
    learn.monitors.Summary = _tf().Summary
    learn.utils.make_export_strategy = make_export_strategy
    # the loaders the datasets module binds on first use are listed by dir() as TF's
    lazy_sets = ("DATASETS", "SYNTHETIC", "load_boston", "load_dataset", "load_iris",
                 "make_dataset", "mnist", "synthetic")
    learn.datasets.__dir__ = lambda: sorted({*vars(learn.datasets), *lazy_sets})
    for name in ("extract_dask_data", "extract_dask_labels", "extract_pandas_data",
                 "extract_pandas_labels", "extract_pandas_matrix",
                 "read_keyed_batch_examples_shared_queue",
                 "read_keyed_batch_features_shared_queue"):
        setattr(learn.io, name, globals()[name])
    learn.io.HAS_PANDAS = _has("pandas")
    learn.io.HAS_DASK = _has("dask")
    learn.learn_runner.tune = tune
    # TF's module paths of the estimators package (dynamic_rnn_estimator, rnn_common, ...)
    import sys

    from tideflow import contrib_learn_dynamic_rnn

    estimators = learn.estimators
    _estimator_modules(learn, estimators)
    for path in ("tideflow.contrib.learn.estimators",
                 "tideflow.contrib.learn.python.learn.estimators"):
        sys.modules.setdefault(path, estimators)
        for name in ("estimator", "model_fn", "run_config", "prediction_key", "constants",
                     "tensor_signature", "head", "metric_key", "dnn", "linear",
                     "dnn_linear_combined", "svm", "logistic_regressor"):
            sys.modules.setdefault(f"{path}.{name}", getattr(estimators, name))
    sys.modules.setdefault("tideflow.contrib.learn.python.learn.graph_actions",
                           _LazyModule("graph_actions"))
    contrib_learn_dynamic_rnn.register(learn)


class _LazyModule(types.ModuleType):
    """A module of tf.contrib.learn whose contents load on first use."""

    def __init__(self, name):
        super().__init__("tideflow.contrib.learn.python.learn." + name)
        self._lazy_name = name

    def __getattr__(self, attr):
        return getattr(lazy(self._lazy_name), attr)


def _estimator_modules(learn, estimators):
    """TF's estimator implementation modules (head, metric_key, dnn, linear, svm, ...) as
    namespaces over the classes, loaded on first use."""
    metric_key = types.ModuleType(estimators.__name__ + ".metric_key", "``metric_key``.")

    class MetricKey:
        pass

    for key in ("LOSS", "AUC", "AUC_PR", "CLASS_AUC", "CLASS_AUC_PR", "PREDICTION_MEAN",
                "CLASS_PREDICTION_MEAN", "CLASS_LOGITS_MEAN", "CLASS_PROBABILITY_MEAN",
                "LABEL_MEAN", "CLASS_LABEL_MEAN", "ACCURACY", "ACCURACY_BASELINE",
                "ACCURACY_MEAN", "PRECISION_MEAN", "RECALL_MEAN"):
        from tideflow import contrib_learn_heads

        setattr(MetricKey, key, getattr(contrib_learn_heads, key))
    metric_key.MetricKey = MetricKey
    estimators.metric_key = metric_key
    contents = {"head": None, "dnn": ("DNNClassifier", "DNNRegressor", "DNNEstimator"),
                "linear": ("LinearClassifier", "LinearRegressor", "LinearEstimator"),
                "dnn_linear_combined": ("DNNLinearCombinedClassifier",
                                        "DNNLinearCombinedRegressor",
                                        "DNNLinearCombinedEstimator"),
                "svm": ("SVM",), "logistic_regressor": ("LogisticRegressor",)}
    for name, names in contents.items():
        if names is None:
            from tideflow import contrib_learn_heads

            setattr(estimators, name, contrib_learn_heads)
            continue
        module = _Namespace(f"{estimators.__name__}.{name}", learn, names)
        setattr(estimators, name, module)


class _Namespace(types.ModuleType):
    def __init__(self, name, learn, names):
        super().__init__(name)
        self._learn, self._names = learn, names

    def __getattr__(self, attr):
        if attr in self._names:
            return getattr(self._learn, attr)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")

    def __dir__(self):
        return sorted({*vars(self), *self._names})


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


__all__ = ["LAZY_NAMES", "install", "lazy"]
