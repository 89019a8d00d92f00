"""``Model``: a ``Network`` with ``compile``, ``fit``, ``evaluate``, ``predict``, the
``*_on_batch`` methods and weight saving, running in the Keras session.

As in TF 1.x, a metric given as ``'accuracy'``/``'acc'`` is reported as ``acc`` and picks
binary, categorical or sparse categorical accuracy from the loss and the output shape; other
metrics are named after their function (``'mae'`` -> ``mean_absolute_error``); with several
outputs each name is prefixed by the output layer's name. Epoch values are averages over the
epoch's samples.
"""

import contextlib
import sys

import numpy as np

import tideflow as tf
from tideflow.framework import ops
from tideflow.keras import backend as K
from tideflow.keras import callbacks as cbks
from tideflow.keras import losses as losses_mod
from tideflow.keras import metrics as metrics_mod
from tideflow.keras import optimizers as optimizers_mod
from tideflow.keras.engine import base_layer
from tideflow.keras.engine.base_layer import flatten
from tideflow.keras.engine.network import Network

# the transformations TF 1.15's Keras knows keep a dataset unshuffled (by op type; the file
# readers by class)
_UNSHUFFLING = frozenset({
    "BatchDataset", "BatchDatasetV2", "ConcatenateDataset", "CacheDataset", "CacheDatasetV2",
    "FilterDataset", "MapDataset", "PaddedBatchDataset", "PaddedBatchDatasetV2",
    "ParallelMapDataset", "PrefetchDataset", "RangeDataset", "RepeatDataset", "SkipDataset",
    "SparseTensorSliceDataset", "TakeDataset", "TensorDataset", "TensorSliceDataset",
    "WindowDataset", "ZipDataset"})
_UNSHUFFLING_CLASSES = frozenset({
    "TextLineDatasetV1", "TextLineDataset", "TFRecordDatasetV1",
    "TFRecordDataset", "FixedLengthRecordDatasetV1", "FixedLengthRecordDataset"})


def _surely_not_shuffled(x):
    """TF 1.15's check before it warns that fit's dataset is not shuffled: every dataset of
    the pipeline is one it knows keeps the order (a shuffle, or any other, and it cannot
    tell)."""
    from tideflow.ops.dataset_ops import Dataset, _WithOptions

    if not isinstance(x, Dataset):
        return False
    if (getattr(x, "_op_type", None) not in _UNSHUFFLING and not isinstance(x, _WithOptions)
            and type(x).__name__ not in _UNSHUFFLING_CLASSES):
        return False
    return all(_surely_not_shuffled(d) for d in x._inputs())


def _is_dataset(x):
    """A tf.data dataset or iterator, or symbolic tensors (read batch by batch)."""
    if hasattr(x, "make_one_shot_iterator") or type(x).__name__.endswith("Dataset"):
        return True
    if hasattr(x, "get_next"):
        return True
    # (variables too: K.zeros(...) given as data is read each step, as TF 1.x)
    symbolic = (ops.Tensor, tf.Variable)
    return bool(flatten(x)) and all(isinstance(t, symbolic) for t in flatten(x)) \
        if isinstance(x, (*symbolic, list, tuple, dict)) else False


def _is_real_dataset(x):
    """A tf.data dataset or iterator (not plain tensors)."""
    return hasattr(x, "make_one_shot_iterator") or type(x).__name__.endswith("Dataset") or \
        hasattr(x, "get_next")


def _symbolic_values(x):
    """A batch given as tensors or variables (TF 1.x's *_on_batch take them): their values
    now, as arrays; anything else unchanged."""
    if x is None or hasattr(x, "get_next") or hasattr(x, "make_one_shot_iterator"):
        return x
    if _is_dataset(x) and not isinstance(x, dict):
        return K.get_session().run(x)
    return x


class Model(Network):
    """``Model(inputs, outputs)`` (functional) or a subclass defining ``call``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._compiled = False
        self.metrics_names = ["loss"]  # (TF 1.15's before compile)
        self.optimizer = None
        self.stop_training = False
        self.history = None
        self._train_fn = self._test_fn = self._predict_fn = None

    run_eagerly = property(lambda self: False)  # graph mode, always

    # -- compile -------------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                distribute=None, **kwargs):
        """Sets the optimizer, the loss(es) and the metrics; the loss graph is made now for
        functional models, at the first ``fit``/``evaluate`` for subclassed ones."""
        for k in kwargs:
            if k not in ("run_eagerly", "experimental_run_tf_function"):
                raise TypeError(f"Invalid keyword argument(s) in `compile`: {k}")
        self.optimizer = optimizers_mod.get(optimizer)
        self.loss = loss
        self._compile_metrics = metrics or []
        self._compile_weighted_metrics = weighted_metrics
        self.loss_weights = loss_weights
        self.sample_weight_mode = sample_weight_mode
        self._target_tensors = target_tensors
        self._compiled = True
        self._train_fn = self._test_fn = None
        self.__dict__.pop("_train_function_set", None)
        self.__dict__.pop("_tf_function_predict", None)
        self.__dict__.pop("_tf_function_evaluation", None)
        self.__dict__.pop("_sample_weights_fed", None)
        self.__dict__.pop("_tf_metric_resets", None)
        dist = sys.modules.get("tideflow.distribute")  # compiled in a strategy's scope?
        self._distribution_strategy = distribute or (  # TF 1.11-1.13's kwarg
            dist.get_strategy() if dist is not None and dist.has_strategy() else None)
        if self.outputs:
            self._compile_graph()

    def _loss_per_output(self):
        n = len(self.outputs)
        loss = self.loss
        if isinstance(loss, dict):
            _check_for_unexpected_keys("loss", loss, self.output_names)
            fns = [loss.get(name) for name in self.output_names]
        elif isinstance(loss, (list, tuple)):
            if len(loss) != n:
                raise ValueError(f"When passing a list as loss, it should have one entry per "
                                 f"model outputs. The model has {n} outputs, but you passed "
                                 f"loss={loss}")
            fns = list(loss)
        else:
            fns = [loss] * n
        out = []
        for fn in fns:
            if fn is None:
                out.append(None)
                continue
            out.append(losses_mod.get(fn))
        return out

    def _metrics_per_output(self, weighted=False):
        metrics = (self._compile_weighted_metrics if weighted else self._compile_metrics) or []
        n = len(self.outputs)
        if isinstance(metrics, dict):
            return [list(flatten([metrics.get(name, [])])) for name in self.output_names]
        if metrics and isinstance(metrics[0], (list, tuple)) and len(metrics) == n:
            return [list(m) for m in metrics]
        if n > 1:  # as TF 1.15: each output gets its own copy of a metric object
            return [[_clone_metric(m) for m in metrics] for _ in range(n)]
        return [list(metrics) for _ in range(n)]

    def _compile_graph(self):
        if not self._compiled:
            return
        n = len(self.outputs)
        self._loss_fns = self._loss_per_output()
        if (self.loss is None or all(fn is None for fn in self._loss_fns)) and not self.losses:
            raise ValueError("The model cannot be compiled because it has no loss to "
                             "optimize.")
        weights = self.loss_weights
        if isinstance(weights, dict):
            _check_for_unexpected_keys("loss_weights", weights, self.output_names)
            weights = [weights.get(name, 1.0) for name in self.output_names]
        elif weights is None:
            weights = [1.0] * n
        elif isinstance(weights, (list, tuple)):
            if len(weights) != n:
                raise ValueError("When passing a list as loss_weights, it should have one entry "
                                 f"per model output. The model has {n} outputs, but you passed "
                                 f"loss_weights={weights}")
        else:
            raise TypeError(f"Could not interpret loss_weights argument: {weights} - expected "
                            "a list of dicts.")
        if isinstance(self.sample_weight_mode, dict):
            _check_for_unexpected_keys("sample_weight_mode", self.sample_weight_mode,
                                       self.output_names)
        # as TF 1.15: the loss objects per output (functions wrapped) and the weights
        self.loss_functions = [_loss_object(fn) for fn in self._loss_fns]
        self._loss_weights_list = [float(w) for w in weights]
        self.targets = []
        self.sample_weights = []
        self._stateful_positions = set()
        self._stateful_metrics = []
        self._weighted_metric_objects = {}
        self._string_metric_objects = {}
        self.metrics_names = ["loss"]
        self._metric_tensors = []
        graph = self._outputs_graph()
        with graph.as_default():
            for i, (out, fn) in enumerate(zip(self.outputs, self._loss_fns)):
                if fn is None:
                    self.targets.append(None)
                    continue
                if self._target_tensors is not None:
                    target = flatten(self._target_tensors)[i]
                else:
                    rank = out.get_shape().ndims
                    # as TF: '<output>_target' at the top
                    target = tf.placeholder(out.dtype.base_dtype,
                                            shape=[None] * (rank or 0)
                                            if rank is not None else None,
                                            name=f"{self.output_names[i]}_target")
                self.targets.append(target)
        self._loss_weight_values = weights
        total = self._build_loss(graph)
        self.total_loss = total
        # a loss left per example (reduction NONE) is what the optimizer gets (a DP
        # optimizer clips each example's gradient); fit and evaluate report its mean, as TF's
        # progress bar shows
        self._reported_loss = total
        if total is not None and total.get_shape().ndims != 0:
            with graph.as_default():
                self._reported_loss = tf.reduce_mean(total)
        # as in Keras, the weights trained are those trainable when the model is compiled
        self._collected_trainable_weights = self.trainable_weights
        self._build_metrics(graph)
        self._build_metrics(graph, weighted=True)
        self._assemble_metrics()
        self._train_fn = self._test_fn = None

    def _build_metrics(self, graph, weighted=False):
        """Each output's metrics (``weighted``: its weighted metrics) as (name, value,
        metric object or None) entries. As TF 1.15, `metrics` see no sample weights (only
        the output's mask), while `weighted_metrics` (named weighted_<name>) see the sample
        and class weights."""
        n = len(self.outputs)
        per_output = self._metrics_per_output(weighted=weighted)
        entries = []
        with graph.as_default(), ops.name_scope("metrics"):
            for i in range(n):
                out = []
                entries.append(out)
                if self.targets[i] is None:
                    continue
                target, output = self.targets[i], self.outputs[i]
                # as TF 1.15: with several outputs each metric is named (and scoped) after
                # its output, and a metric object takes that name
                prefix = f"{self.output_names[i]}_" if n > 1 else ""
                for k, metric in enumerate(per_output[i]):
                    if weighted:
                        if not isinstance(metric, metrics_mod.Metric):
                            # as TF 1.15: made once per compile; a loss remade for fed
                            # weights updates the same metric (its variables, its reset)
                            made = self.__dict__.setdefault("_weighted_metric_objects", {})
                            if (i, k) not in made:
                                name, fn = self._resolve_metric(metric, i)
                                made[i, k] = metrics_mod.MeanMetricWrapper(fn, name=name)
                            metric = made[i, k]
                        mask = self._output_mask(output)
                        w = self.sample_weights[i]
                        if mask is not None:
                            w = mask if w is None else _times_mask(w, mask)
                        name = prefix + "weighted_" + _compiled_name(metric)
                        with ops.name_scope(name):
                            value = metric(target, output, sample_weight=w)
                        metric._name = name
                        out.append((name, value, metric))
                        continue
                    if isinstance(metric, metrics_mod.Metric):
                        mask = self._output_mask(output)
                        name = prefix + _compiled_name(metric)
                        with ops.name_scope(name):
                            value = metric(target, output, sample_weight=mask)
                        metric._name = name
                        out.append((name, value, metric))
                        continue
                    name, fn = self._resolve_metric(metric, i)
                    name = prefix + name
                    first = graph._next_id
                    if getattr(self, "_distribution_strategy", None) is not None:
                        # (compiled in a strategy's scope: its batches' means, combined as
                        # the loss's are, one graph for every replica)
                        out.append(self._batch_mean_metric(graph, name, fn, target, output,
                                                           first))
                        continue
                    # as TF 1.15: a metric named by a string or given as a function is kept
                    # in a MeanMetricWrapper (made once per compile; listed in
                    # ``model.metrics``, its running mean what fit and evaluate report)
                    made = self.__dict__.setdefault("_string_metric_objects", {})
                    if (i, k) not in made:
                        with ops.name_scope(None):  # (its variables: 'total_2', as TF's)
                            made[i, k] = metrics_mod.MeanMetricWrapper(fn, name=name)
                    metric = made[i, k]
                    mask = self._output_mask(output)
                    with ops.name_scope(name):
                        value = metric(target, output, sample_weight=mask)
                    metric._name = name
                    if mask is None:
                        # the ids TF's ops for it take beyond ours are skipped, so later
                        # ops number as TF's
                        tf_ops = _TF_METRIC_OPS.get(getattr(fn, "__name__", None))
                        if tf_ops is not None:
                            graph._skip_op_ids(to=first + tf_ops)
                    out.append((name, value, metric))
                if len({e[0] for e in out}) < len(out):
                    # as TF 1.15 (an ordered dict by name): a metric named twice is listed
                    # once, where it first came, as the last one given
                    by_name = {}
                    for e in out:
                        by_name[e[0]] = e
                    out[:] = by_name.values()
        if weighted:
            self._weighted_metric_entries = entries
        else:
            self._unweighted_metric_entries = entries

    def _batch_mean_metric(self, graph, name, fn, target, output, first):
        """(name, the batch's mean of ``fn``, None): a stateless metric entry."""
        with ops.name_scope(name):
            value = tf.cast(fn(target, output), K.floatx())
            fn_ops = graph._next_id - first
            mask = self._output_mask(output)
            if mask is None:
                value = tf.reduce_mean(value)
            else:  # the mean over the unmasked steps, as TF
                m = _times_mask(tf.ones_like(value), mask)
                value = tf.math.divide_no_nan(tf.reduce_sum(value * m), tf.reduce_sum(m))
        if mask is None:
            # TF 1.15 keeps it in a Mean metric (two variables, the update and result ops):
            # those ids are skipped, so later ops number as TF's
            tf_ops = _TF_METRIC_OPS.get(getattr(fn, "__name__", None))
            graph._skip_op_ids(to=first + (tf_ops or fn_ops + _TF_MEAN_METRIC_OPS))
        return name, value, None

    def _assemble_metrics(self):
        """``metrics_names`` and the fetched metric tensors: the loss (and each output's loss),
        then per output its metrics and weighted metrics (prefixed by the output's name when
        there are several), then the metrics added with ``add_metric``."""
        names, tensors = self._loss_metric_entries
        self.metrics_names = list(names)
        self._metric_tensors = list(tensors)
        self._stateful_positions = set()
        self._stateful_metrics = []
        for i in range(len(self.outputs)):
            for name, value, metric in (self._unweighted_metric_entries[i]
                                        + self._weighted_metric_entries[i]):
                if metric is not None:
                    self._stateful_positions.add(len(self.metrics_names))
                    self._stateful_metrics.append(metric)
                self.metrics_names.append(name)
                self._metric_tensors.append(value)
        # as TF 1.15: then the metrics its layers and itself added with add_metric
        for metric, value in self._added_metric_entries():
            self._stateful_positions.add(len(self.metrics_names))
            self._stateful_metrics.append(metric)
            self.metrics_names.append(metric.name)
            self._metric_tensors.append(value)

    def _use_fed_sample_weights(self):
        """As TF 1.15: sample (or class) weights fed to a model compiled without a weighting
        mode make its sample weight placeholders, and its loss and weighted metrics are
        made again with them (under ``loss_1``, ...); the train and test functions with
        them."""
        if self.__dict__.get("_sample_weights_fed") or not self._compiled:
            return
        if any(w is not None for w in getattr(self, "sample_weights", [])):
            return
        self._rebuild_weighted_loss(True)
        self._train_fn = self._test_fn = None

    def _rebuild_weighted_loss(self, fed):
        """The loss and weighted metrics made again, with sample weight placeholders
        (``fed``) or without."""
        self._sample_weights_fed = fed
        graph = self._outputs_graph()
        total = self._build_loss(graph, rebuilt=True)
        self.total_loss = self._reported_loss = total
        if total is not None and total.get_shape().ndims != 0:
            with graph.as_default():
                self._reported_loss = tf.reduce_mean(total)
        self._build_metrics(graph, weighted=True)
        self._assemble_metrics()

    def _sync_weight_modes(self, sws, testing=False):
        """As TF 1.15 (``_update_sample_weight_modes``, then the recompile check of
        ``_make_train_function``/``_make_test_function``): a model compiled without a
        weighting mode has its loss and weighted metrics made again whenever a call's
        arrays come with sample weights and the loss has no placeholders for them, or the
        other way round (a fit with class weights validating on unweighted data makes the
        loss for the validation pass without them). A remade train function comes next; a
        validation pass leaves the train function (and the placeholders it feeds) as it
        was, as TF's fit keeps its step function; a remade train function leaves the test
        function (``_test_function``) as it was, as TF's does."""
        if not self._compiled or not self.outputs or any(
                self._weight_mode(i) for i in range(len(self.outputs))):
            return
        given = any(w is not None for w in sws or ())
        if given == bool(self._feed_sample_weights):
            return
        self._rebuild_weighted_loss(given)
        if testing:
            self.__dict__.pop("_tf_function_evaluation", None)  # (a new test function)
            self._test_fn = None
        else:
            self._train_fn = None

    def _test_function(self):
        """TF 1.15's test function: the loss and metrics it fetches and the sample weight
        placeholders it feeds, as when it was made (once per compile, and again when a test
        call remade the loss: TF reuses it otherwise, even across a loss remade for
        training)."""
        if self._test_fn is None:
            self._test_fn = ([self._reported_loss] + self._metric_tensors,
                             list(self._feed_sample_weights))
        return self._test_fn

    def _build_loss(self, graph, rebuilt=False):
        """The sample weights and the total loss, made as TF 1.15's compile makes them: a
        sample weight placeholder only for an output with a weighting mode (compile's
        ``sample_weight_mode``, or 'samplewise' once weights are fed), then under
        ``loss/<output>_loss`` the loss function's ops, the weighting block
        (``weighted_loss``), the reduction (``Sum``, ``num_elements``, ``value``) and the
        loss weight's ``mul``; the regularization losses last (made a second time and left
        unused, as TF 1.15 collects them twice). So the names and the op count are TF's."""
        n = len(self.outputs)
        weights = self._loss_weight_values
        # (an output with a mode gives the others placeholders too: all or none are fed)
        fed = self.__dict__.get("_sample_weights_fed", False) or any(
            self._weight_mode(i) for i in range(n))
        self.sample_weights = []
        per_output_losses = []
        total = None
        with graph.as_default():
            for i, target in enumerate(self.targets):
                mode = self._weight_mode(i) or ("samplewise" if fed else None)
                if target is None or mode is None:
                    self.sample_weights.append(None)
                    continue
                temporal = mode == "temporal"
                default = tf.constant([[1.0]] if temporal else [1.0], K.floatx())
                self.sample_weights.append(tf.placeholder_with_default(
                    default, shape=[None, None] if temporal else [None],
                    name=f"{self.output_names[i]}_sample_weights"))
            with ops.name_scope("loss"):
                for i, (out, fn) in enumerate(zip(self.outputs, self.loss_functions)):
                    if fn is None:
                        continue
                    target, sw = self.targets[i], self.sample_weights[i]
                    with ops.name_scope(f"{self.output_names[i]}_loss"):
                        # as TF: the output's Keras mask (e.g. from Embedding(mask_zero=True))
                        # weights the losses, so padded steps add none
                        mask = self._output_mask(out)
                        if mask is not None:
                            sw = mask if sw is None else _times_mask(sw, mask)
                        per_sample = fn.call(target, out)
                        weighted = losses_mod.compute_weighted_loss(
                            per_sample, sw, reduction=losses_mod.Reduction.NONE)
                        reduction = fn.reduction
                        if reduction == losses_mod.Reduction.AUTO:
                            reduction = losses_mod.Reduction.SUM_OVER_BATCH_SIZE
                        value = losses_mod._reduce_weighted(weighted, reduction)
                    if n > 1:
                        # (TF 1.15 keeps a Mean metric of each output's loss: its variables
                        # and update ops are counted; a rebuilt loss updates the same one)
                        graph._skip_op_ids(_TF_MEAN_METRIC_UPDATE_OPS if rebuilt
                                           else _TF_MEAN_METRIC_OPS)
                    per_output_losses.append(value)
                    weighted = weights[i] * value
                    total = weighted if total is None else total + weighted
                # as TF 1.15: the per-output losses' epoch values are means over the batches
                self._batch_mean_positions = set()
                names, tensors = ["loss"], []
                if n > 1:
                    for i, value in zip([i for i, f in enumerate(self.loss_functions)
                                         if f is not None], per_output_losses):
                        self._batch_mean_positions.add(len(names))
                        names.append(f"{self.output_names[i]}_loss")
                        tensors.append(value)
                self._loss_metric_entries = (names, tensors)
                reg = self.losses
                if reg:
                    order = {id(r): k for k, r in enumerate(reg)}
                    made = [w for w in _weight_regularizations(self) if id(w.value) in order]
                    made.sort(key=lambda w: order[id(w.value)])
                    for w in made:  # TF's second collection
                        with ops.name_scope(w.variable.op.name + "/Regularizer"):
                            w.regularizer(w.variable)
                    reg_total = tf.add_n([tf.cast(r, K.floatx()) for r in reg])
                    # (as TF: with no output's loss the total starts from 0.)
                    total = 0.0 + reg_total if total is None else total + reg_total
        return total

    def _added_metric_entries(self):
        return base_layer._added_metric_entries(self)

    def _weight_mode(self, i):
        mode = getattr(self, "sample_weight_mode", None)
        if isinstance(mode, dict):
            mode = mode.get(self.output_names[i])
        elif isinstance(mode, (list, tuple)):
            mode = mode[i]
        if mode not in (None, "temporal", "samplewise"):
            raise ValueError('"sample_weight_mode should be None or "temporal". Found: '
                             f"{mode}")
        return mode

    def _outputs_graph(self):
        out = self.outputs[0]
        # (an output of a registered symbolic type, a TF Probability distribution, has no
        # graph of its own: the inputs' is the model's)
        return out.graph if isinstance(out, ops.Tensor) or not self.inputs else \
            self.inputs[0].graph

    def _output_mask(self, out):
        if not isinstance(out, ops.Tensor):
            return None
        mask = K._state(out.graph).masks.get(out)
        return None if mask is None else tf.cast(mask, out.dtype)

    def _resolve_metric(self, metric, i):
        if metric in ("accuracy", "acc", "crossentropy", "ce"):
            fn = self._loss_fns[i]
            fn_name = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None),
                                                               "__name__", "")
            last = self.outputs[i].get_shape().as_list()[-1] if \
                self.outputs[i].get_shape().ndims else None
            is_binary = fn_name == "binary_crossentropy"
            is_sparse = fn_name == "sparse_categorical_crossentropy"
            if metric in ("accuracy", "acc"):
                if last == 1 or is_binary:
                    return "acc", metrics_mod.binary_accuracy
                if is_sparse:
                    return "acc", metrics_mod.sparse_categorical_accuracy
                return "acc", metrics_mod.categorical_accuracy
            if is_binary:
                return "ce", metrics_mod.binary_crossentropy
            if is_sparse:
                return "ce", metrics_mod.sparse_categorical_crossentropy
            return "ce", metrics_mod.categorical_crossentropy
        if isinstance(metric, losses_mod.Loss):
            return metric.name, lambda t, p: metric.call(t, p)
        fn = metrics_mod.get(metric)
        return getattr(fn, "name", None) or fn.__name__, fn

    @property
    def metrics(self):
        """As TF 1.15: the metric objects of ``compile`` (once its graph is built), then
        those the layers and the model added with ``add_metric``."""
        added = super().metrics
        compiled = self.__dict__.get("_stateful_metrics", []) if self._compiled else []
        return [m for m in compiled if not any(m is a for a in added)] + added

    # -- building a subclassed or deferred model from data ---------------------------------------
    def _ensure_built(self, x):
        if self.outputs:
            return
        strategy = getattr(self, "_distribution_strategy", None)
        # as TF, a model compiled in a strategy's scope makes its weights in that scope
        with strategy.scope() if strategy is not None else contextlib.nullcontext():
            self._build_from_arrays(x)
        if self._compiled:
            self._compile_graph()
        pending = self.__dict__.pop("_pending_weights", None)
        if pending is not None:
            self.load_weights(pending)

    def _build_from_arrays(self, x):
        from tideflow.keras.engine.input_layer import Input

        # as TF: a dict of arrays calls the model on a dict of inputs named by its keys
        keys = sorted(x) if isinstance(x, dict) else None
        arrays = [x[k] for k in keys] if keys else x if isinstance(x, (list, tuple)) else [x]
        inputs = []
        for i, a in enumerate(arrays):
            a = np.asarray(a)
            if a.ndim == 1:  # as TF: a vector of samples is a column (n, 1)
                a = a.reshape(-1, 1)
            dtype = K.floatx() if a.dtype.kind == "f" else a.dtype.name
            # named as TF 1.15's placeholders, taking no layer-name number (the program's
            # own Input() is still input_1)
            inputs.append(Input(batch_shape=(None,) + a.shape[1:], dtype=dtype,
                                name=keys[i] if keys else f"input_{i + 1}"))
        nested = (dict(zip(keys, inputs)) if keys else
                  inputs if isinstance(x, (list, tuple)) else inputs[0])
        outputs = self(nested, **self._training_kwargs())
        self._nested_inputs = nested
        self.inputs = inputs
        self.outputs = flatten(outputs)
        self._nested_outputs = outputs
        self._set_output_node(outputs)
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self.input_names = list(keys) if keys else [f"input_{i + 1}"
                                                    for i in range(len(self.inputs))]
        self.built = True

    def _training_kwargs(self):
        # as TF 1.x: a subclassed call taking `training` is built with the learning phase
        if "training" in self._call_arg_names():
            return {"training": K.learning_phase()}
        return {}

    def _add_node(self, inputs, outputs, kwargs, frame):
        node = super()._add_node(inputs, outputs, kwargs, frame)
        if not self._is_graph_network and not self.inputs:
            # as TF 1.x: a subclassed model's first call on tensors makes them its ``inputs``
            # (``get_updates_for(model.inputs)`` then finds its batch-norm updates)
            flat = [t for t in flatten(inputs) if isinstance(t, ops.Tensor)]
            if flat and not self.outputs:
                self.inputs = flat
        return node

    def _maybe_build(self, inputs):
        # a model's layers build themselves when the model's call reaches them; a subclass's
        # own ``build`` (not Model's or Sequential's) runs first, as TF 1.x calls a build the
        # program overrode (one that makes the sublayers its call uses)
        if not self.built and not type(self).build.__module__.startswith(
                "tideflow.keras.engine"):
            self._building_in_call = True  # its ``super().build(shape)`` only marks it built
            try:
                super()._maybe_build(inputs)
            finally:
                self._building_in_call = False
            return
        self.built = True

    def build(self, input_shape):
        """Builds the model for inputs of ``input_shape`` (with the batch axis)."""
        if self._is_graph_network or getattr(self, "_building_in_call", False):
            # (a subclass's build calling ``super().build(input_shape)`` while its first call
            # builds it: TF's build runs ``call`` on placeholders, never ``__call__`` again)
            self.built = True
            return
        if self.outputs:
            return
        from tideflow.keras.engine.input_layer import Input

        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        inputs = [Input(batch_shape=tuple(s), name=f"input_{i + 1}") for i, s in enumerate(shapes)]
        nested = inputs if isinstance(input_shape, list) else inputs[0]
        # built already, so the call does not run a subclass's build again (this may be that
        # build's ``super().build``); the sublayers build as the call reaches them
        self.built = True
        try:
            outputs = self(nested, **self._training_kwargs())
        except BaseException:
            self.built = False
            raise
        self.inputs, self.outputs = inputs, flatten(outputs)
        self._nested_inputs, self._nested_outputs = nested, outputs
        self._set_output_node(outputs)
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        self.input_names = [f"input_{i + 1}" for i in range(len(self.inputs))]
        self.built = True

    # -- data ------------------------------------------------------------------------------------
    def _standardize(self, data, refs, names, what, check_last=None, loss_names=None):
        if data is None:
            if what == "input" and refs and all(r.op.type != "Placeholder" for r in refs):
                return []  # inputs computed in the graph (Input(tensor=...)): nothing to feed
            raise ValueError(f"Error when checking model {what}: no data provided.")
        if isinstance(data, dict):
            missing = [n for n in names if n not in data]
            if missing:
                raise ValueError(f'No data provided for "{missing[0]}". Need data for each key '
                                 f"in: {names}")
            arrays = [data[n] for n in names]
        elif isinstance(data, (list, tuple)) and not (len(refs) == 1 and len(data) > 0 and
                                                    isinstance(data[0], (float, int))):
            # (as TF: a list holds one array, or nested list, per input; a list of Python
            # numbers is one array for one input, and other values must have a shape)
            arrays = list(data)
            if arrays and not isinstance(arrays[0], (list, tuple)):
                for a in arrays:
                    if a is not None and not hasattr(a, "shape") and not hasattr(
                            a, "dense_shape"):  # (composite values pass, as in TF)
                        raise AttributeError(
                            f"'{type(a).__name__}' object has no attribute 'shape'")
        else:
            arrays = [data]
        if what == "input" and refs and len(arrays) > len(refs) and self._is_graph_network:
            # (TF 1.15 pairs a graph network's input arrays with its inputs' shapes: arrays
            # past the last input are dropped unseen)
            arrays = arrays[:len(refs)]
        if len(arrays) != len(refs):
            if arrays and isinstance(arrays[0], (list, tuple)):
                arrays = [np.asarray(a) for a in arrays]  # (TF: nested lists become arrays)
            if arrays and not hasattr(arrays[0], "shape") and len(refs) > 1:
                raise ValueError(f"Error when checking model {what}: you are passing a list as "
                                 "input to your model, but the model expects a list of "
                                 f"{len(refs)} Numpy arrays instead. The list you passed was: "
                                 f"{str(arrays)[:200]}")
            # the message shows the arrays as TF 1.15's standardize_single_array left them: 1-D
            # ones made [n, 1] (unless the input they pair with is rank 1; targets always)
            ranks = [r.get_shape().ndims if what == "input" and r is not None else None
                     for r in refs] + [None] * len(arrays)
            arrays = [a[:, None] if isinstance(a, np.ndarray) and a.ndim == 1 and rank != 1
                      else a for a, rank in zip(arrays, ranks)]
            raise ValueError(f"Error when checking model {what}: the list of Numpy arrays that "
                             f"you are passing to your model is not the size the model "
                             f"expected. Expected to see {len(refs)} array(s), but instead got "
                             f"the following list of {len(arrays)} arrays: "
                             f"{str(arrays)[:200]}...")
        out = []
        for i, (a, ref, name) in enumerate(zip(arrays, refs, names)):
            a = np.asarray(a)
            if ref is None:
                out.append(a)
                continue
            shape = ref.get_shape()
            if a.ndim == 1 and shape.ndims != 1:
                # Keras's standardize_single_array: a 1-D array is made [n, 1] unless the model
                # expects rank 1 (so a rank error names the [n, 1] shape, as TF 1.15's)
                a = a.reshape(-1, 1)
            unchecked = check_last is not None and check_last[i] is None
            loss_name = loss_names[i] if loss_names else None
            if (loss_name == "categorical_crossentropy" and not unchecked and a.ndim
                    and a.shape[-1] == 1):
                # Keras's check_loss_and_target_compatibility
                raise ValueError(
                    f"You are passing a target array of shape {a.shape} while using as loss "
                    "`categorical_crossentropy`. `categorical_crossentropy` expects targets to "
                    "be binary matrices (1s and 0s) of shape (samples, classes). If your "
                    "targets are integer classes, you can convert them to the expected format "
                    "via:\n```\nfrom keras.utils import to_categorical\ny_binary = "
                    "to_categorical(y_int)\n```\n\nAlternatively, you can use the loss function "
                    "`sparse_categorical_crossentropy` instead, which does expect integer "
                    "targets.")
            if loss_name in ("mean_squared_error", "binary_crossentropy",
                             "categorical_crossentropy") and shape.ndims is not None and \
                    not unchecked:
                out_shape = tuple(shape.as_list())
                if any(o is not None and t != o for t, o in zip(a.shape[1:], out_shape[1:])):
                    raise ValueError(
                        f"A target array with shape {a.shape} was passed for an output of shape "
                        f"{out_shape} while using as loss `{loss_name}`. This loss expects "
                        "targets to have the same shape as the output.")
            if (loss_name == "sparse_categorical_crossentropy" and shape.ndims is not None
                    and a.ndim == shape.ndims - 1):
                a = a[..., None]  # class ids without their last axis: fed as [batch, ..., 1]
            if shape.ndims is not None and not unchecked:
                if a.ndim != shape.ndims:
                    raise ValueError(f"Error when checking {what}: expected {name} to have "
                                     f"{shape.ndims} dimensions, but got array with shape "
                                     f"{a.shape}")
                expected = shape.as_list()
                checked = range(1, len(expected)) if check_last is None else (
                    [len(expected) - 1] if check_last[i] else [])
                for j in checked:
                    if expected[j] is not None and a.shape[j] != expected[j]:
                        raise ValueError(f"Error when checking {what}: expected {name} to "
                                         f"have shape {tuple(expected[1:])} but got array "
                                         f"with shape {a.shape[1:]}")
            dtype = ref.dtype.base_dtype.as_numpy_dtype
            if a.dtype != dtype:
                a = a.astype(dtype)
            out.append(a)
        lengths = {len(a) for a in out}
        if len(lengths) > 1:
            kind = {"input": "input arrays (x)", "target": "target arrays (y)"}.get(
                what, f"{what} arrays")
            raise ValueError(f"All {kind} should have the same number of samples. Got "
                             f"array shapes: {[a.shape for a in out]}")
        return out

    def _standardize_weights(self, ys, sample_weight, class_weight, sync=False):
        """Per-output sample weight arrays (None: all ones). Weights make the loss's
        placeholders for them; with ``sync`` the caller does it (``_sync_weight_modes``)."""
        n_live = len(ys)
        live_names = [nm for nm, t in zip(self.output_names, self.targets) if t is not None]
        if sample_weight is None:
            sws = [None] * n_live
        elif isinstance(sample_weight, dict):
            sws = [sample_weight.get(nm) for nm in live_names]
        elif isinstance(sample_weight, (list, tuple)):
            sws = list(sample_weight)
        else:
            sws = [sample_weight] * n_live
        out = []
        for i, (w, y) in enumerate(zip(sws, ys)):
            per_class = None
            if class_weight is not None:
                cw = class_weight.get(live_names[i], class_weight) if isinstance(
                    next(iter(class_weight), None), str) else class_weight
                if isinstance(cw, dict):
                    per_class = _class_weights_to_sample(cw, y)
            times_class = per_class is not None and w is not None
            if w is None:
                w = per_class
            if w is not None:
                w = np.asarray(w, np.float32)
                if self._weight_mode(i) == "temporal":
                    if np.ndim(y) < 3:
                        raise ValueError(
                            "Found a sample_weight array for an input with shape "
                            f"{np.shape(y)}. Timestep-wise sample weighting (use of "
                            'sample_weight_mode="temporal") is restricted to outputs that are '
                            "at least 3D, i.e. that have a time dimension.")
                    if w.ndim != 2:
                        raise ValueError(
                            f"Found a sample_weight array with shape {w.shape}. In order to "
                            "use timestep-wise sample weighting, you should pass a 2D "
                            "sample_weight array.")
                elif w.ndim != 1:
                    raise ValueError(
                        f"Found a sample_weight array with shape {w.shape}. In order to use "
                        "timestep-wise sample weights, you should specify "
                        'sample_weight_mode="temporal" in compile(). If you just mean to use '
                        "sample-wise weights, make sure your sample_weight array is 1D.")
                if np.shape(y)[:w.ndim] != w.shape:
                    raise ValueError(f"Found a sample_weight array with shape {w.shape} for an "
                                     f"input with shape {np.shape(y)}. sample_weight cannot "
                                     "be broadcast.")
                if times_class:
                    # (as TF 1.15: the sample weights, checked, times the class weights)
                    w = np.asarray(per_class * w, np.float32)
            out.append(w)
        if not sync and any(w is not None for w in out):
            self._use_fed_sample_weights()
        return out

    def _standardize_xy(self, x, y=None, need_y=True, check_shapes=True):
        self._ensure_built(x)
        xs = self._standardize(x, self.inputs, self.input_names, "input")
        ys = None
        if need_y:
            if not self._compiled:
                raise RuntimeError("You must compile your model before training/testing. Use "
                                   "`model.compile(optimizer, loss)`.")
            if all(t is None for t in self.targets):  # the losses were added with add_loss
                if y is not None:
                    raise ValueError("The model has no loss functions (its losses come from "
                                     "add_loss), so it takes no targets `y`; got some.")
                return xs, []
            if y is None:
                raise ValueError("You must specify `y` (the targets) when training/testing.")
            # as TF 1.15's _feed_output_names: outputs whose loss is None take no targets
            feed = [i for i, t in enumerate(self.targets) if t is not None]
            live = [self.outputs[i] for i in feed]
            names = [self.output_names[i] for i in feed]
            check_last = []
            loss_names = []
            for fn in (self._loss_fns[i] for i in feed):
                fname = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None),
                                                                 "__name__", "")
                if not fname or getattr(losses_mod, fname, None) is None:
                    # as Keras: a user-defined loss makes no assumption on the targets' shape
                    check_last.append(None)
                    loss_names.append(None)
                else:
                    # (nor are a dataset's targets checked against the outputs)
                    check_last.append(fname not in ("sparse_categorical_crossentropy",)
                                      if check_shapes else None)
                    loss_names.append(getattr(getattr(losses_mod, fname), "__name__", fname))
            ys = self._standardize(y, live, names, "target", check_last=check_last,
                                   loss_names=loss_names)
            if xs and len(ys[0]) != len(xs[0]):
                raise ValueError(f"Input arrays should have the same number of samples as "
                                 f"target arrays. Found {len(xs[0])} input samples and "
                                 f"{len(ys[0])} target samples.")
        return xs, ys

    # -- step functions -----------------------------------------------------------------------------
    def _feeds(self, xs, ys, training, sws=None, weight_placeholders=None):
        feed = dict(zip(self.inputs, xs))
        if ys is not None:
            feed.update(zip([t for t in self.targets if t is not None], ys))
        if sws is not None:
            if weight_placeholders is None:
                weight_placeholders = self._feed_sample_weights
            for ph, w in zip(weight_placeholders, sws):
                if w is not None:
                    feed[ph] = w
        # (the learning phase is fed when the graph has it: evaluate and predict make none)
        st = K._state(self._outputs_graph())
        lp = st.learning_phase if st.learning_phase_value is None else None
        if lp is not None and isinstance(lp, ops.Tensor):
            feed[lp] = training
        return feed

    @property
    def _feed_inputs(self):
        return list(self.inputs)

    @property
    def _feed_targets(self):
        return [t for t in getattr(self, "targets", []) if t is not None]

    @property
    def _feed_sample_weights(self):
        return [w for w in getattr(self, "sample_weights", []) if w is not None]

    @property
    def train_function(self):
        """TF 1.x Keras's step function (None until ``_make_train_function``): called with
        the list inputs + targets + sample weights (+ the learning phase), it runs one
        training step and returns the loss and metrics. A function assigned here (one that
        wraps the old one, as adversarial training does) is what fit and train_on_batch
        call; compile resets it."""
        fn = self.__dict__.get("_train_function_set")
        if fn is not None or self._train_fn is None:
            return fn
        return _TrainStep(self)

    @train_function.setter
    def train_function(self, fn):
        self.__dict__["_train_function_set"] = fn

    def _train_step(self, xs, ys, sws):
        """The loss and metrics of one training step on a batch (by ``train_function`` when
        one was assigned)."""
        fn = self.__dict__.get("_train_function_set")
        if fn is None:
            if self._train_fn is None:  # (remade after fed sample weights rebuilt the loss)
                self._make_train_function()
            return self._run(self._train_fn, self._feeds(
                xs, ys, True, sws, self.__dict__.get("_train_fn_weights")))[1:]
        sws = list(sws or [])
        sws += [None] * (len(self._feed_sample_weights) - len(sws))
        ins = list(xs) + list(ys) + sws
        if isinstance(K._learning_phase_placeholder(), ops.Tensor):
            ins.append(True)
        out = fn(ins)
        return list(out) if isinstance(out, (list, tuple)) else [out]

    def _make_train_function(self):
        if self._train_fn is not None:
            return
        with self._outputs_graph().as_default():
            # as TF 1.15: the learning phase (an input of the train function) comes first
            K.symbolic_learning_phase()
            params = getattr(self, "_collected_trainable_weights", None)
            if params is None:
                params = self.trainable_weights
            # as TF 1.x: nothing trainable (model.trainable = False) still runs the loss and
            # metrics, and changes nothing
            from tideflow.distribute import keras_training

            loss = self._reported_loss
            if params and keras_training.uses_replicas(self):
                step, loss = keras_training.train_op(self, params)
                train_op = tf.group(step, *self._model_updates())
            else:
                with ops.name_scope("training"):
                    # by keyword, as TF 1.15 calls it: an optimizer subclass may order them
                    # (params, loss), as Keras 2.x's base class does (keras-rl's wrapper)
                    updates = (self.optimizer.get_updates(params=params, loss=self.total_loss)
                               if params else [])
                    updates = updates + list(self._model_updates())
                    # a (variable, new value) pair is an assignment, as TF 1.15's K.function
                    # makes of it (keras-rl's soft target updates ride on the optimizer's)
                    updates = [tf.assign(u[0], u[1]) if isinstance(u, tuple) else u
                               for u in updates]
                with ops.name_scope("training"):  # (TF's K.function: training_1/group_deps)
                    train_op = tf.group(*updates)
        self._train_fn = [train_op, loss] + self._metric_tensors
        self._train_fn_weights = list(self._feed_sample_weights)
        self._restore_pending_optimizer_state()

    def _note_function(self, mode):
        """The NoOp TF 1.15's Keras makes with its predict or evaluation function (grouping
        the stateful layers' updates), once per compile: '<mode>/group_deps'."""
        key = "_tf_function_" + mode
        if self.__dict__.get(key) or not self.outputs:
            return
        # (the predict one waits on the first output, as TF's, and runs with each batch: TF's
        # remapper then leaves that output's MatMul and BiasAdd apart, so a linear Dense last
        # layer predicts with the plain product's bits)
        first = [self.outputs[0]] if mode == "predict" else []
        with self._outputs_graph().as_default(), ops.name_scope(mode), \
                tf.control_dependencies(first):
            op = tf.no_op(name="group_deps")
        self.__dict__[key] = op if mode == "predict" else True

    def _make_predict_function(self):
        """TF 1.x Keras's predict function made ahead of the first predict (A3C programs call
        it before finalizing the graph that their agent threads then predict on)."""
        self._note_function("predict")

    @property
    def state_updates(self):
        """The state updates of the stateful layers (run with every predict/test step too,
        as in Keras)."""
        out = []
        for layer in getattr(self, "layers", []):
            if getattr(layer, "stateful", False) and hasattr(layer, "updates"):
                out.extend(u for u in layer.updates if not any(u is o for o in out))
        return out

    def _run_predict(self, feed):
        """One batch's outputs, run with TF 1.15's predict target when it was made."""
        waiter = self.__dict__.get("_tf_function_predict")
        if not isinstance(waiter, ops.Operation):
            return self._run(self.outputs, feed)
        return self._run([self.outputs, waiter], feed)[0]

    def _run(self, fetches, feed):
        session = K.get_session()
        extra = self.state_updates if fetches is not self._train_fn else []
        if extra:
            return K._run(session, [fetches, extra], feed)[0]
        return K._run(session, fetches, feed)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True):
        """One optimizer step on one batch; returns the loss (and metrics)."""
        x, y = _symbolic_values(x), _symbolic_values(y)
        xs, ys = self._standardize_xy(x, y)
        sws = self._standardize_weights(ys, sample_weight, class_weight, sync=True)
        self._sync_weight_modes(sws)
        self._make_train_function()
        out = self._carried(self._train_step(xs, ys, sws), len(xs[0]) if xs else 1)
        if reset_metrics:
            self.reset_metrics()
        # the fetched numpy scalars, as TF (print(loss) shows float32's short form)
        return _unlist([np.float32(v) for v in out])

    def _carried(self, outs, size):
        """A batch's loss and its metrics as TF 1.15's metric states give them: the means
        over every batch since their last reset (the previous fit epoch or evaluation left
        theirs; train/test_on_batch reset after their batch unless told not to)."""
        c = self.__dict__.get("_metric_carry")
        if c is None or len(c[0]) != len(outs):
            c = [np.zeros(len(outs)), 0, np.zeros(len(outs)), 0]
        values = _scalars(outs)
        c = [c[0] + values * size, c[1] + size, c[2] + values, c[3] + 1]
        self.__dict__["_metric_carry"] = c
        return [outs[0]] + self._combine(c[0], c[1], outs, c[2], c[3])[1:]

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True):
        x, y = _symbolic_values(x), _symbolic_values(y)
        xs, ys = self._standardize_xy(x, y)
        sws = self._standardize_weights(ys, sample_weight, None, sync=True)
        self._sync_weight_modes(sws, testing=True)
        self._note_function("evaluation")
        fetches, weights = self._test_function()
        out = self._run(fetches, self._feeds(xs, ys, False, sws, weights))
        out = self._carried(out, len(xs[0]) if xs else 1)
        if reset_metrics:
            self.reset_metrics()
        return _unlist([np.float32(v) for v in out])

    def predict_on_batch(self, x):
        xs, _ = self._standardize_xy(_symbolic_values(x), need_y=False)
        self._note_function("predict")
        out = self._run_predict(self._feeds(xs, None, False))
        return out[0] if len(out) == 1 else out

    def _check_stateful_samples(self, xs, batch_size):
        """As TF 1.15's _standardize_user_data (fit and evaluate on arrays, not predict,
        after the inputs and targets are checked): a model with a stateful layer takes only a number
        of samples that its batch size divides."""
        if batch_size and xs and len(xs[0]) % batch_size and _is_stateful(self):
            raise ValueError("In a stateful network, you should only pass inputs with a "
                             "number of samples that can be divided by the batch size. "
                             f"Found: {len(xs[0])} samples")

    # -- loops ---------------------------------------------------------------------------------
    def _validate_or_infer_batch_size(self, batch_size):
        """As TF 1.15: a model whose first input has a fixed batch size (stateful RNNs'
        ``batch_input_shape``) runs in batches of that size; another ``batch_size`` is an
        error."""
        inputs = getattr(self, "inputs", None) or []
        dims = inputs[0].get_shape().as_list() if inputs and inputs[0].get_shape().ndims \
            else [None]
        static = dims[0] if dims else None
        if static is None:
            return batch_size
        if batch_size is not None and batch_size != static:
            raise ValueError(f"The `batch_size` argument value {batch_size} is incompatible "
                             f"with the specified batch size of your Input Layer: {static}")
        return static

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_freq=1, max_queue_size=10, workers=1, use_multiprocessing=False,
            **kwargs):
        """Trains for ``epochs`` epochs of ``batch_size`` (32) samples (or of
        ``steps_per_epoch`` batches of a ``tf.data`` dataset); returns the History."""
        if "nb_epoch" in kwargs:  # as TF 1.x's tf.keras: Keras 1's name, with a warning
            tf.logging.warning("The `nb_epoch` argument in `fit` has been renamed `epochs`.")
            epochs = kwargs.pop("nb_epoch")
        if kwargs:  # (TF 1.15's message)
            raise TypeError("Unrecognized keyword arguments: " + str(kwargs))
        if validation_steps is not None and validation_data is None:
            raise ValueError("`validation_steps` should not be specified if `validation_data` "
                             "is None.")
        if _is_generator_or_sequence(x):  # as TF 1.15: to fit_generator
            return self.fit_generator(
                x, steps_per_epoch=steps_per_epoch, epochs=epochs, verbose=verbose,
                callbacks=callbacks, validation_data=validation_data,
                validation_steps=validation_steps, validation_freq=validation_freq,
                class_weight=class_weight, shuffle=shuffle, initial_epoch=initial_epoch,
                max_queue_size=max_queue_size, workers=workers,
                use_multiprocessing=use_multiprocessing)
        if _is_real_dataset(x):
            if batch_size is not None:
                raise ValueError("The `batch_size` argument must not be specified for the given "
                                 f"input type. Received input: {x}, batch_size: {batch_size}")
            if validation_split:
                raise ValueError("`validation_split` argument is not supported when input `x` "
                                 "is a dataset or a dataset iterator. Please use "
                                 "`validation_data` instead.")
        batch_size = _default_batch(self._validate_or_infer_batch_size(batch_size))
        if x is None and y is None and self._fed_by_tensors():
            if steps_per_epoch is None:
                raise ValueError("When the model's inputs and targets are tensors (Input(tensor="
                                 "...), compile(target_tensors=...)), fit needs "
                                 "`steps_per_epoch`.")
            source = _NoFeedSource(steps_per_epoch)
            val = None
        elif _is_dataset(x):
            if y is not None and not _is_dataset(y):
                raise ValueError("`y` argument is not supported when using dataset as input.")
            if y is not None:  # symbolic inputs and targets
                x = (x, y)
            if shuffle and _surely_not_shuffled(x):
                tf.logging.warning("Expected a shuffled dataset but input dataset `x` is not "
                                   "shuffled. Please invoke `shuffle()` on input dataset.")
            source = _DatasetSource(self, x, steps_per_epoch, steps_name="steps_per_epoch")
            source.peek()
            val = None
            if validation_data is not None:
                val = (_DatasetSource(self, validation_data, validation_steps, restart=True,
                                      steps_name="validation_steps")
                       if _is_dataset(validation_data) else
                       self._array_val_source(validation_data, batch_size))
        else:
            xs, ys = self._standardize_xy(x, y)
            sws = self._standardize_weights(ys, sample_weight, class_weight, sync=True)
            self._check_stateful_samples(xs, batch_size if steps_per_epoch is None else
                                         self._validate_or_infer_batch_size(None))
            self._sync_weight_modes(sws)
            val = None
            if validation_data is not None:
                val = (_DatasetSource(self, validation_data, validation_steps, restart=True,
                                      steps_name="validation_steps")
                       if _is_dataset(validation_data) else
                       self._array_val_source(validation_data, batch_size))
            elif validation_split and 0.0 < validation_split < 1.0:
                split = int(len(xs[0]) * (1.0 - validation_split))
                val = _ArraySource([a[split:] for a in xs], [a[split:] for a in ys],
                                   [None if w is None else w[split:] for w in sws],
                                   batch_size, False)
                xs, ys = [a[:split] for a in xs], [a[:split] for a in ys]
                sws = [None if w is None else w[:split] for w in sws]
            source = (_ArraySource(xs, ys, sws, batch_size, shuffle) if steps_per_epoch is None
                      else _WholeArraysSource(xs, ys, sws, steps_per_epoch))
            source.hdf5 = _holds_hdf5(x) or _holds_hdf5(y)
        return self._fit_loop(source, val, epochs=epochs, verbose=verbose, callbacks=callbacks,
                              initial_epoch=initial_epoch, validation_freq=validation_freq,
                              batch_size=batch_size)

    def _fit_loop(self, source, val, epochs, verbose, callbacks, initial_epoch,
                  validation_freq, batch_size=None):
        if not self.outputs and isinstance(source, _GeneratorSource):
            source.peek()  # a subclassed model builds from the first batch
        self._make_train_function()
        out_labels = list(self.metrics_names)
        callback_metrics = out_labels + (["val_" + m for m in out_labels] if val else [])
        self.history = cbks.History()
        # as TF 1.15: the bar counts steps when fed by steps (datasets, generators)
        count_mode = "steps" if source.samples is None else "samples"
        stateful = out_labels[1:]  # (as TF 1.15: the bar averages only the loss)
        for c in callbacks or []:
            if isinstance(c, cbks.ProgbarLogger):
                c.stateful_metrics = set(stateful)
        callbacks = cbks.CallbackList(
            list(callbacks or []) + [self.history]
            + ([cbks.ProgbarLogger(count_mode, stateful)] if verbose else []))
        callbacks.set_model(self)
        if isinstance(val, _ArraySource):
            # as TF 1.x: callbacks see the validation arrays (inputs, targets, sample weights)
            n_val = val.samples
            val_ins = list(val.xs) + list(val.ys) + [
                w if w is not None else np.ones(n_val, np.float32) for w in val.sws]
            for c in callbacks.callbacks:
                c.validation_data = val_ins
        # as TF 1.15: fed by steps (datasets, generators), batch_size is None and samples
        # holds the steps
        by_steps = source.samples is None
        params = {"batch_size": None if by_steps else batch_size, "epochs": epochs,
                  "steps": source.steps, "samples": source.steps if by_steps else source.samples,
                  "verbose": verbose, "do_validation": bool(val), "metrics": callback_metrics}
        callbacks.set_params(params)
        generator = isinstance(source, _GeneratorSource)
        if isinstance(val, _ArraySource) and not generator:
            # TF 1.15's array loop validates with its default shuffle=True: each pass draws a
            # permutation from NumPy's generator (whatever the fit's shuffle)
            val.shuffle = True
        if verbose and not generator:  # (TF 1.15's generator loop prints no such line)
            unit = "steps" if getattr(source, "is_dataset", False) else "samples"
            line = f"Train on {source.steps if by_steps else source.samples} {unit}"
            val_count = getattr(val, "steps" if isinstance(val, _DatasetSource) else "samples",
                                None)
            if val_count:
                line += f", validate on {val_count} {unit}"
            print(line)
        self.stop_training = False
        self._fit_epochs = epochs
        callbacks.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            callbacks.on_epoch_begin(epoch)
            self.reset_metrics()
            totals = np.zeros(len(out_labels))
            step_totals = np.zeros(len(out_labels))
            f32 = sorted(getattr(self, "_batch_mean_positions", ()))
            seen, steps, last = 0, 0, None
            for batch_index, (bx, by, bw) in enumerate(source.epoch()):
                size = len(bx[0]) if bx else 1
                # (TF 1.15's loop over steps of a dataset or tensors logs size 1)
                batch_logs = {"batch": batch_index,
                              "size": 1 if by_steps and not generator else size}
                callbacks.on_batch_begin(batch_index, batch_logs)
                outs = self._train_step(bx, by, bw)
                totals += _batch_sums(outs, size)
                step_totals += _scalars(outs)
                if f32:  # (the outputs' losses: TF 1.15's Mean metrics sum in float32)
                    step_totals[f32] = step_totals[f32].astype(np.float32)
                seen += size
                steps += 1
                last = outs
                # as TF 1.15: the batch's loss, and the metrics so far in the epoch (TF's
                # metrics are running means)
                running = self._combine(totals, seen, last, step_totals, steps, by_steps)
                # (NumPy scalars, as TF 1.15's: the loss prints as 0.7821527)
                for label, value in zip(out_labels, [outs[0]] + running[1:]):
                    batch_logs[label] = value if isinstance(value, np.generic) else \
                        np.float32(value)
                callbacks.on_batch_end(batch_index, batch_logs)
                if self.stop_training:
                    break
            # (a generator's epoch loss is weighted by its batches' sizes: TF 1.15's
            # BaseLogger averages the batch logs so)
            epoch_logs = dict(zip(out_labels, self._combine(
                totals, seen, last, step_totals, steps,
                by_steps=source.samples is None and not generator)))
            self.__dict__["_metric_carry"] = [totals, seen, step_totals, steps]
            if val is not None and _should_run_validation(validation_freq, epoch):
                if isinstance(val, _ArraySource) and val.batch_size is None:
                    # arrays validating a generator's training: batches of the training size
                    val.batch_size = size if seen else 32
                if isinstance(val, _ArraySource) and not generator:
                    self._sync_weight_modes(val.sws, testing=True)
                self._note_function("evaluation")  # (TF 1.15's test function, made here)
                val_bar = None
                if generator and verbose:
                    # TF 1.15's generator loop validates with a bar of its own on the fit's
                    # params (its epochs and steps: an "Epoch 1/n" line, the fit's target)
                    val_bar = cbks.ProgbarLogger(
                        "samples" if isinstance(val, _ArraySource) else "steps", stateful)
                    val_bar._fix_unknown_target = False
                    val_bar.set_params(params)
                    val_bar.on_train_begin()
                    val_bar.on_epoch_begin(0)
                for label, value in zip(out_labels,
                                        self._evaluate_source(val, callbacks, val_bar)):
                    epoch_logs["val_" + label] = value
                if isinstance(val, _GeneratorSource):
                    # as TF 1.15: each validation pass draws through an enqueuer of its own,
                    # stopped after its steps (a generator's batches drawn ahead are lost; a
                    # Sequence's pass seldom lives to its on_epoch_end)
                    val.close()
                if not generator:
                    # TF 1.15's validation pass shares the callbacks' params and sets their
                    # verbose to its own (0)
                    params["verbose"] = 0
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end()
        return self.history

    def _fed_by_tensors(self):
        """Whether the inputs and targets are tensors computed in the graph (nothing to
        feed)."""
        if not self.outputs:
            return False
        ins = all(t.op.type not in ("Placeholder",) for t in self.inputs)
        targets = [t for t in getattr(self, "targets", []) if t is not None]
        return ins and all(t.op.type != "Placeholder" for t in targets)

    def _array_val_source(self, validation_data, batch_size):
        if not isinstance(validation_data, (list, tuple)) or len(validation_data) not in (2, 3):
            raise ValueError("When passing validation_data, it must contain 2 (x_val, y_val) "
                             "or 3 (x_val, y_val, val_sample_weights) items, however it "
                             f"contains {len(validation_data)} items")
        vx, vy = self._standardize_xy(validation_data[0], validation_data[1])
        vw = self._standardize_weights(
            vy, validation_data[2] if len(validation_data) == 3 else None, None, sync=True)
        return _ArraySource(vx, vy, vw, batch_size, False)

    def _progbar(self, verbose, source, metrics=True, batch_size=None):
        """TF 1.15's progress bar of evaluate/predict (one epoch), or None (verbose=0)."""
        if not verbose:
            return None
        by_steps = getattr(source, "samples", None) is None
        names = list(getattr(self, "metrics_names", [])) if metrics else []
        bar = cbks.ProgbarLogger("steps" if by_steps else "samples", names[1:])
        bar._fix_unknown_target = False
        bar.set_params({"batch_size": batch_size, "epochs": 1, "steps": source.steps,
                        "samples": source.steps if by_steps else source.samples,
                        "verbose": verbose, "do_validation": False, "metrics": names})
        bar.on_train_begin()
        bar.on_epoch_begin(0)
        return bar

    def _evaluate_source(self, source, callbacks=None, progbar=None):
        fetches = totals = step_totals = None
        seen, steps, last = 0, 0, None
        self.reset_metrics()
        if callbacks is not None:
            callbacks.on_test_begin()
        by_steps = getattr(source, "samples", None) is None
        for batch_index, (bx, by, bw) in enumerate(source.epoch()):
            if fetches is None:  # (after the first batch: it builds a subclassed model)
                fetches, weights = self._test_function()
                totals, step_totals = np.zeros(len(fetches)), np.zeros(len(fetches))
                f32 = sorted(getattr(self, "_batch_mean_positions", ()))
            size = len(bx[0]) if bx else 1
            logged = 1 if by_steps and not isinstance(source, _GeneratorSource) else size
            if callbacks is not None:
                callbacks.on_test_batch_begin(batch_index, {"batch": batch_index,
                                                            "size": logged})
            if progbar is not None:
                progbar.on_batch_begin(batch_index)
            outs = self._run(fetches, self._feeds(bx, by, False, bw, weights))
            totals += _batch_sums(outs, size)
            step_totals += _scalars(outs)
            if f32:  # (the outputs' losses: TF 1.15's Mean metrics sum in float32)
                step_totals[f32] = step_totals[f32].astype(np.float32)
            seen += size
            steps += 1
            last = outs
            if callbacks is not None or progbar is not None:
                running = self._combine(totals, seen, last, step_totals, steps, by_steps)
                batch_logs = {"batch": batch_index, "size": logged}
                batch_logs.update(zip(self.metrics_names, [np.float32(outs[0])] + running[1:]))
            if callbacks is not None:
                callbacks.on_test_batch_end(batch_index, batch_logs)
            if progbar is not None:
                progbar.on_batch_end(batch_index, batch_logs)
        if callbacks is not None:
            callbacks.on_test_end()
        if fetches is None:
            totals = step_totals = np.zeros(1 + len(getattr(self, "_metric_tensors", [])))
        result = self._combine(totals, seen, last, step_totals, steps, by_steps=by_steps)
        if fetches is not None:  # (the metrics keep their state, as TF's)
            self.__dict__["_metric_carry"] = [totals, seen, step_totals, steps]
        if progbar is not None:
            progbar.on_epoch_end(0, dict(zip(self.metrics_names, result)))
        return result

    def _evaluate_arrays(self, xs, ys, batch_size, sws=None, callbacks=None, verbose=0):
        source = _ArraySource(xs, ys, sws or [None] * len(ys), batch_size, False)
        return self._evaluate_source(source, callbacks,
                                     self._progbar(verbose, source, batch_size=batch_size))

    def _mode_callbacks(self, callbacks, verbose, steps):
        """evaluate/predict's CallbackList (None when no callbacks were given)."""
        if not callbacks:
            return None
        callbacks = cbks.CallbackList(list(callbacks))
        callbacks.set_model(self)
        callbacks.set_params({"batch_size": None, "epochs": 1, "steps": steps,
                              "samples": None, "verbose": verbose, "do_validation": False,
                              "metrics": list(getattr(self, "metrics_names", []))})
        return callbacks

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, max_queue_size=10, workers=1,
                 use_multiprocessing=False):
        """The loss (and metrics) averaged over the samples: a scalar, or a list when the
        model has metrics."""
        if _is_generator_or_sequence(x) or _is_dataset(x) or (x is None and y is None):
            self._note_function("evaluation")
        if _is_generator_or_sequence(x):
            return self.evaluate_generator(x, steps=steps, verbose=verbose,
                                           callbacks=callbacks, max_queue_size=max_queue_size,
                                           workers=workers,
                                           use_multiprocessing=use_multiprocessing)
        cb_list = self._mode_callbacks(callbacks, verbose, steps)
        if x is None and y is None and steps and self._fed_by_tensors():
            source = _NoFeedSource(steps)
            outs = self._evaluate_source(source, cb_list, self._progbar(verbose, source))
        elif _is_dataset(x):
            source = _DatasetSource(self, x if y is None else (x, y), steps)
            source.peek()
            outs = self._evaluate_source(source, cb_list, self._progbar(verbose, source))
        else:
            xs, ys = self._standardize_xy(x, y)
            sws = self._standardize_weights(ys, sample_weight, None, sync=True)
            self._check_stateful_samples(xs, self._validate_or_infer_batch_size(batch_size)
                                         or (None if steps is not None else 32))
            self._sync_weight_modes(sws, testing=True)
            self._note_function("evaluation")  # (as TF 1.15: after the data are checked)
            if steps is not None:  # (as TF 1.15: each step evaluates all the samples)
                source = _WholeArraysSource(xs, ys, sws, steps)
                outs = self._evaluate_source(source, cb_list, self._progbar(verbose, source))
            else:
                outs = self._evaluate_arrays(
                    xs, ys, _default_batch(self._validate_or_infer_batch_size(batch_size)), sws,
                    cb_list, verbose)
        return _unlist(outs)

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None,
                max_queue_size=10, workers=1, use_multiprocessing=False):
        """The outputs for ``x``, batch by batch (``batch_size`` 32), concatenated."""
        arrays = not (_is_generator_or_sequence(x) or _is_dataset(x))
        if not arrays:
            self._note_function("predict")
        if _is_dataset(x) and not _is_generator_or_sequence(x):
            self.reset_metrics()  # (as TF 1.15's loops, predict's too)
        if _is_generator_or_sequence(x):
            return self.predict_generator(x, steps=steps, verbose=verbose, callbacks=callbacks,
                                          max_queue_size=max_queue_size, workers=workers,
                                          use_multiprocessing=use_multiprocessing)
        if _is_dataset(x):
            source = _DatasetSource(self, x, steps, need_y=False)
            source.peek()
            bar = self._progbar(verbose, source, metrics=False)
            parts = [[] for _ in self.outputs]
            for index, (bx, _, _) in enumerate(source.epoch()):
                if bar is not None:
                    bar.on_batch_begin(index)
                for p, o in zip(parts, self._run_predict(self._feeds(bx, None, False))):
                    p.append(o)
                if bar is not None:
                    bar.on_batch_end(index, {"batch": index, "size": 1})
            if bar is not None:
                bar.on_epoch_end(0)
            results = [np.concatenate(p) for p in parts]
            return results[0] if len(results) == 1 else results
        xs, _ = self._standardize_xy(x, need_y=False)
        self._note_function("predict")  # (as TF 1.15: after the inputs are checked)
        self.reset_metrics()  # (as TF 1.15's loops, predict's too)
        batch_size = _default_batch(self._validate_or_infer_batch_size(batch_size))
        n = len(xs[0])
        parts = [[] for _ in self.outputs]
        cb_list = self._mode_callbacks(callbacks, verbose, steps)
        # (as TF 1.15: with `steps`, each step predicts on all the samples)
        source = (_ArraySource(xs, [], [], batch_size, False) if steps is None
                  else _WholeArraysSource(xs, [], [], steps))
        bar = self._progbar(verbose, source, metrics=False,
                            batch_size=batch_size if steps is None else None)
        if cb_list is not None:
            cb_list.on_predict_begin()
        if steps is None:
            _check_batch_size(batch_size)
        chunks = ([(slice(start, start + batch_size), min(n, start + batch_size) - start)
                   for start in range(0, n, batch_size)] if steps is None
                  else [(slice(None), 1)] * steps)
        for index, (sl, size) in enumerate(chunks):
            if cb_list is not None:
                cb_list.on_predict_batch_begin(index, {"batch": index, "size": size})
            if bar is not None:
                bar.on_batch_begin(index)
            outs = self._run_predict(self._feeds([a[sl] for a in xs], None, False))
            for p, o in zip(parts, outs):
                p.append(o)
            if cb_list is not None:
                cb_list.on_predict_batch_end(index, {"batch": index, "size": size,
                                                     "outputs": outs})
            if bar is not None:
                bar.on_batch_end(index, {"batch": index, "size": size})
        if cb_list is not None:
            cb_list.on_predict_end()
        if bar is not None:
            bar.on_epoch_end(0)
        results = [np.concatenate(p) if p else np.zeros((0,)) for p in parts]
        return results[0] if len(results) == 1 else results

    def fit_generator(self, generator, steps_per_epoch=None, epochs=1, verbose=1,
                      callbacks=None, validation_data=None, validation_steps=None,
                      validation_freq=1, class_weight=None, max_queue_size=10, workers=1,
                      use_multiprocessing=False, shuffle=True, initial_epoch=0):
        """Trains on batches ``(x, y[, sample_weight])`` from a generator or a
        ``keras.utils.Sequence`` (``steps_per_epoch`` batches per epoch; a Sequence's length
        by default)."""
        pool = {"workers": workers, "use_multiprocessing": use_multiprocessing,
                "max_queue_size": max_queue_size}
        source = _GeneratorSource(self, generator, steps_per_epoch, class_weight=class_weight,
                                  shuffle=shuffle, **pool)
        val = None
        # (TF 1.15's fit_generator zeroes the metrics before it makes the train function:
        # their variables are initialized on their own, one more 'init' group)
        self.__dict__["_tf_reset_before_train"] = True
        try:
            if validation_data is not None:
                if isinstance(validation_data, (list, tuple)) and not _is_generator(
                        validation_data):
                    val = self._array_val_source(validation_data, None)
                else:
                    val = _GeneratorSource(self, validation_data, validation_steps,
                                           steps_name="validation_steps", **pool)
            return self._fit_loop(source, val, epochs=epochs, verbose=verbose,
                                  callbacks=callbacks, initial_epoch=initial_epoch,
                                  validation_freq=validation_freq)
        finally:
            source.close(end_epoch=True)
            if isinstance(val, _GeneratorSource):
                val.close()

    def predict_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                          workers=1, use_multiprocessing=False, verbose=0):
        """The outputs for the inputs drawn from a generator or Sequence, concatenated."""
        source = _GeneratorSource(self, generator, steps, need_y=False, steps_name="steps",
                                  max_queue_size=max_queue_size, workers=workers,
                                  use_multiprocessing=use_multiprocessing)
        parts = [[] for _ in self.outputs] if self.outputs else None
        cb_list = self._mode_callbacks(callbacks, verbose, steps)
        bar = self._progbar(verbose, source, metrics=False)
        if cb_list is not None:
            cb_list.on_predict_begin()
        try:
            for index, (bx, _, _) in enumerate(source.epoch()):
                size = len(bx[0]) if bx else 1
                if cb_list is not None:
                    cb_list.on_predict_batch_begin(index, {"batch": index, "size": size})
                if bar is not None:
                    bar.on_batch_begin(index)
                outs = self._run_predict(self._feeds(bx, None, False))
                if bar is not None:
                    bar.on_batch_end(index, {"batch": index, "size": size})
                if parts is None:
                    parts = [[] for _ in self.outputs]
                for p, o in zip(parts, outs):
                    p.append(o)
                if cb_list is not None:
                    cb_list.on_predict_batch_end(index, {"batch": index, "size": size,
                                                         "outputs": outs})
        finally:
            source.close()
        if cb_list is not None:
            cb_list.on_predict_end()
        if bar is not None:
            bar.on_epoch_end(0)
        self.reset_metrics()  # (as TF 1.15's loops, predict's too)
        self._note_function("predict")  # (TF 1.15's predict function)
        results = [np.concatenate(p) for p in parts]
        return results[0] if len(results) == 1 else results

    def evaluate_generator(self, generator, steps=None, callbacks=None, max_queue_size=10,
                           workers=1, use_multiprocessing=False, verbose=0):
        """The loss (and metrics) over the batches of a generator or Sequence."""
        source = _GeneratorSource(self, generator, steps, max_queue_size=max_queue_size,
                                  workers=workers, use_multiprocessing=use_multiprocessing,
                                  steps_name="steps")
        try:
            out = _unlist(self._evaluate_source(
                source, self._mode_callbacks(callbacks, verbose, steps),
                self._progbar(verbose, source)))
        finally:
            source.close()
        self._note_function("evaluation")  # (TF 1.15's test function)
        return out

    def reset_metrics(self):
        """Zeroes the state of the stateful metrics (metric objects given to compile)."""
        self.__dict__.pop("_metric_carry", None)
        for metric in getattr(self, "_stateful_metrics", []):
            metric.reset_states()
        if self._compiled and self.outputs and not self.__dict__.get("_tf_metric_resets"):
            # TF 1.15 keeps a metric given by name (and, with several outputs, each output's
            # loss) in a Mean of two variables, zeroed here the first time (an assign and
            # its placeholder and read per variable) and then checked by the session's
            # initialization: we keep the outputs' losses as batch means, and skip those ids
            self.__dict__["_tf_metric_resets"] = True
            stateless = sum(1 for entries in getattr(self, "_unweighted_metric_entries", ())
                            for _, _, metric in entries if metric is None)
            stateless += len(getattr(self, "_batch_mean_positions", ()))
            named = len(self.__dict__.get("_string_metric_objects", ()))
            early = self.__dict__.pop("_tf_reset_before_train", False) and (stateless or named)
            self._outputs_graph()._skip_op_ids(8 * stateless + bool(early))
        self.__dict__.pop("_tf_reset_before_train", None)

    def _combine(self, totals, seen, last, step_totals=None, steps=0, by_steps=False):
        """Epoch values as TF 1.15's: stateful metrics' last value (it covers the epoch);
        means over the batches for the per-output losses, and for the loss when fed by steps
        (datasets, generators); else sample-weighted means of the batch values. The loss is
        a Python float, the rest float32 scalars as TF's Mean metrics give them (they print
        as 0.50186664 in evaluate's list and the history)."""
        out = []
        batch_means = set(getattr(self, "_batch_mean_positions", ()))
        if by_steps:
            batch_means.add(0)
        for i, total in enumerate(totals):
            if i in self._stateful_positions and last is not None:
                out.append(np.asarray(last[i])[()])
                continue
            if i in batch_means and step_totals is not None and steps:
                if i:  # (an output's loss: a float32 Mean metric's total / count)
                    value = np.float32(step_totals[i]) / np.float32(steps)
                else:
                    value = float(step_totals[i] / steps)
            else:
                value = float(total / max(seen, 1))
            out.append(np.float32(value) if i else value)
        return out

    # -- saving ------------------------------------------------------------------------------------
    def save_weights(self, filepath, overwrite=True, save_format=None):
        """Saves the weights: TF checkpoint format (through ``tf.train.Saver``), or HDF5 when
        ``filepath`` ends in ``.h5`` (needs h5py)."""
        if _is_h5(filepath, save_format):
            from tideflow.keras import saving

            saving.save_weights_to_hdf5(self, filepath)
            return
        import os

        directory = os.path.dirname(os.path.abspath(filepath))
        os.makedirs(directory, exist_ok=True)
        keys = self._checkpoint_keys()
        session = K.get_session()
        saver = self._saver_for(keys, object_graph=True)
        self._count_tf_checkpoint_ops(keys, saving=True)
        saver.save(session, filepath, write_meta_graph=False)

    def _saver_for(self, keys, object_graph=False):
        """A Saver of ``keys`` (kept, so repeated saves and loads add no ops); one that saves
        also writes their object graph, as TF's. Its ops take ids set aside:
        ``_count_tf_checkpoint_ops`` counts TF 1.15's instead."""
        cache = self.__dict__.setdefault("_weights_savers", {})
        ident = (object_graph,) + tuple((k, id(v)) for k, v in keys)
        saver = cache.get(ident)
        if saver is None:
            from tideflow.train import trackable_checkpoint

            graph = keys[0][1].graph
            with graph.as_default(), graph.aside_ids():
                saver = cache[ident] = (
                    trackable_checkpoint.saver_with_object_graph(dict(keys)) if object_graph
                    else tf.train.Saver(var_list=dict(keys), max_to_keep=None))
        return saver

    def _count_tf_checkpoint_ops(self, keys, saving):
        """Skips the op ids TF 1.15's object-based saver takes, so later ops (a second model's
        initializers, a Dropout's seed) number as TF's. A save: the file prefix and object
        graph constants the first time, then a save op of two shards (16 ops) whenever the
        saved objects changed since the last save. A restore: its file prefix constant the
        first time, then for the variables not restored before one RestoreV2 (3 ops) and an
        Identity and an assign each, but a RestoreV2 of its own for each optimizer slot."""
        state = self.__dict__.setdefault("_tf_checkpoint_ops", {})
        names = frozenset(k for k, _ in keys)
        if saving:
            count = 2 * ("saved" not in state) + 16 * (names != state.get("saved"))
            state["saved"] = names
        else:
            count = int("restored" not in state)
            new = names - state.setdefault("restored", set())
            slots = sum("/.OPTIMIZER_SLOT/" in k for k in new)
            count += (3 + 2 * (len(new) - slots)) * (len(new) > slots) + 5 * slots
            state["restored"] |= new
        keys[0][1].graph._skip_op_ids(count)

    def load_weights(self, filepath, by_name=False):
        """Loads weights saved by ``save_weights`` (same architecture), and the optimizer's
        state when the checkpoint has it: now if the optimizer's variables exist, else when
        the first training step makes them (as TF's deferred restoration)."""
        if _is_h5(filepath, None) or _is_h5_file(filepath):
            from tideflow.keras import saving

            saving.load_weights_from_hdf5(self, filepath, by_name=by_name)
            return
        import os

        if by_name:
            raise NotImplementedError(
                "Weights may only be loaded based on topology into Models when loading "
                "TensorFlow-formatted weights (got by_name=True to load_weights).")
        if os.path.isdir(filepath):
            filepath = tf.train.latest_checkpoint(filepath)
        stored = dict(tf.train.list_variables(filepath))
        from tideflow.train.trackable_checkpoint import CheckpointLoadStatus

        if not self.weights and not self._is_graph_network:
            # as TF 1.15: a subclassed model not built yet takes the values when its
            # variables are made (its first fit, evaluate or predict)
            self._pending_weights = filepath
            return CheckpointLoadStatus(None, filepath, {}, stored)
        keys = self._checkpoint_keys()
        missing = [k for k, v in keys if k not in stored and not _is_optimizer_key(k)]
        if missing:
            raise tf.errors.NotFoundError(
                None, None, f"load_weights: {filepath} has no value for {missing[0]} (and "
                f"{len(missing) - 1} more); was it saved from a model of this architecture?")
        matched = [(k, v) for k, v in keys if k in stored]
        if matched:
            self._count_tf_checkpoint_ops(matched, saving=False)
        self._restore_keys(filepath, matched)
        for _, v in keys:
            v._keras_initialized = True
        # the optimizer's state waits for its variables when they are not made yet
        has_optimizer_state = any(_is_optimizer_key(k) for k in stored)
        made = any(_is_optimizer_key(k) for k, _ in keys)
        self._pending_optimizer_state = filepath if has_optimizer_state and not made else None
        # as TF 1.15: TF format weights give the status Checkpoint.restore gives (its
        # assert_consumed, expect_partial...); HDF5 ones give None
        return CheckpointLoadStatus(None, filepath, dict(keys), stored)

    def _restore_keys(self, filepath, keys):
        if keys:
            self._saver_for(keys).restore(K.get_session(), filepath)

    def _restore_pending_optimizer_state(self):
        filepath = getattr(self, "_pending_optimizer_state", None)
        if filepath is None:
            return
        self._pending_optimizer_state = None
        stored = dict(tf.train.list_variables(filepath))
        keys = [(k, v) for k, v in self._checkpoint_keys() if _is_optimizer_key(k) and k in stored]
        if not keys:
            return
        # TF 1.15 restores each of these as it is made (a RestoreV2 of 3 ops, an Identity and
        # an assign); the next session use only checks them (they are initialized: no 'init')
        keys[0][1].graph._skip_op_ids(5 * len(keys))
        manual = K._MANUAL_VAR_INIT[0]
        K._MANUAL_VAR_INIT[0] = True
        try:
            session = K.get_session()
        finally:
            K._MANUAL_VAR_INIT[0] = manual
        self._saver_for(keys).restore(session, filepath)

    def _checkpoint_keys(self):
        """Checkpoint keys by structure, as TF's object-based format names them
        (``layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE``...): a model of the same
        architecture loads them whatever its variables are called. A trained model adds its
        optimizer's state as TF does: ``optimizer/iter``, ``optimizer/learning_rate``...
        and each slot under its weight
        (``layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE``)."""
        weights = self.weights
        if not weights:
            raise ValueError(f"Model {self.name} has no weights to save or load (build it "
                             "first).")
        keys, seen = [], set()
        suffix = "/.ATTRIBUTES/VARIABLE_VALUE"
        layers = [la for la in self.layers if la.weights]
        for k, layer in enumerate(layers):
            for j, v in enumerate(layer.weights):
                short = v.op.name.split("/")[-1]
                key = f"layer_with_weights-{k}/{short}"
                if key in seen:
                    key = f"{key}_{j}"
                seen.add(key)
                keys.append((key + suffix, v))
        listed = {id(v) for _, v in keys}
        for j, v in enumerate(w for w in weights if id(w) not in listed):
            keys.append((f"model_weights/{j}/{v.op.name.split('/')[-1]}{suffix}", v))
        return keys + self._optimizer_checkpoint_keys(keys, suffix)

    def _optimizer_checkpoint_keys(self, weight_keys, suffix):
        from tideflow.keras import optimizers

        opt = getattr(self, "optimizer", None)
        if isinstance(opt, optimizers.TFOptimizer):
            return _native_optimizer_keys(opt.optimizer, weight_keys, suffix)
        if not isinstance(opt, optimizers.Optimizer):
            return []
        graph = weight_keys[0][1].graph
        made = opt._vars.get(graph)
        if not made or not opt.weights or opt.weights[0].graph is not graph:
            return []
        out = []
        for key, var in sorted(made.items()):
            if isinstance(var, tf.Variable):
                name = "iter" if key == "iterations" else var.op.name.split("/")[-1]
                out.append((f"optimizer/{name}{suffix}", var))
        by_param = {v.op.name: k[:-len(suffix)] for k, v in weight_keys}
        scope = made["iterations"].op.name.rsplit("/", 1)[0] + "/"
        for w in opt.weights[1:]:
            name = w.op.name
            rel = name.removeprefix(scope)
            param, _, slot = rel.rpartition("/")
            if param in by_param:
                out.append((f"{by_param[param]}/.OPTIMIZER_SLOT/optimizer/{slot}{suffix}", w))
            elif not param:
                out.append((f"optimizer/{slot}{suffix}", w))  # Nadam's momentum_cache
        return out

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None,
             signatures=None, options=None):
        """The whole model (architecture, weights, training configuration and optimizer
        state) to an HDF5 file (``tf.keras.models.save_model``)."""
        from tideflow.keras import saving

        saving.save_model(self, filepath, overwrite=overwrite,
                          include_optimizer=include_optimizer, save_format=save_format,
                          signatures=signatures, options=options)


def _compiled_name(metric):
    """The name a metric object had when compile first took it (compile renames it)."""
    return metric.__dict__.setdefault("_compile_base_name", metric.name)


def _clone_metric(metric):
    """A fresh metric object of ``metric``'s class and config (other metrics as they are)."""
    if isinstance(metric, metrics_mod.Metric):
        return type(metric).from_config(metric.get_config())
    return metric


# ops TF 1.15's compile makes for a loss on one output (its target placeholder, the loss
# function, the weighting and Keras's reduction), by the output op's type where the loss
# looks at it (crossentropies take the logits under a softmax or a sigmoid)
# ops of a metric in TF 1.15's compile (a Mean of it: its total and count variables, update
# and result), and of the Mean alone (beside the metric function's own ops)
_TF_METRIC_OPS = {"mean_absolute_error": 26, "mean_squared_error": 25, "binary_accuracy": 29,
                  "categorical_accuracy": 28, "sparse_categorical_accuracy": 28}
_TF_MEAN_METRIC_OPS = 22
_TF_MEAN_METRIC_UPDATE_OPS = 12  # (its update and result alone)


def _weight_regularizations(model):
    """The weight regularization losses of the model's layers (made when collected)."""
    out, seen = [], set()

    def visit(layer):
        if id(layer) in seen:
            return
        seen.add(id(layer))
        for x in layer.__dict__.get("_losses", ()):
            if isinstance(x, base_layer._WeightRegularization):
                out.append(x)
        for sub in list(layer.__dict__.get("_sublayers", ())) + list(
                getattr(layer, "layers", None) or ()):
            visit(sub)

    visit(model)
    return out


def _check_for_unexpected_keys(name, mapping, expected):
    unknown = [k for k in mapping if k not in expected]
    if unknown:
        raise ValueError(f"Unknown entries in {name} dictionary: {unknown}. Only expected "
                         f"following keys: {list(expected)}")


def _loss_object(fn):
    """A compiled loss as TF 1.15's ``model.loss_functions`` holds it: a ``Loss`` as it is, a
    function in a ``LossFunctionWrapper`` of its name."""
    if fn is None or isinstance(fn, losses_mod.Loss):
        return fn
    return losses_mod.LossFunctionWrapper(fn, name=getattr(fn, "__name__", None))


def _native_optimizer_keys(native, weight_keys, suffix):
    """The checkpoint keys of a ``tf.train`` optimizer's state (as TF's object-based format
    tracks it): its non-slot variables (Adam's beta powers) under ``optimizer/`` and each
    slot under its weight."""
    if not hasattr(native, "get_slot_names"):
        return []
    graph = weight_keys[0][1].graph
    out = []
    non_slot = getattr(native, "_non_slot_variables", list)()
    for var in sorted(non_slot, key=lambda v: v.op.name):
        if var.graph is graph:
            out.append((f"optimizer/{var.op.name.split('/')[-1]}{suffix}", var))
    for key, var in weight_keys:
        for slot_name in native.get_slot_names():
            slot = native.get_slot(var, slot_name)
            if slot is not None:
                slot_key = f"{key[:-len(suffix)]}/.OPTIMIZER_SLOT/optimizer/{slot_name}"
                out.append((slot_key + suffix, slot))
    return out


def _should_run_validation(validation_freq, epoch):
    """As TF 1.15: ``validation_freq`` an int (every that many epochs) or a container of the
    (1-based) epochs to validate after."""
    if isinstance(validation_freq, int):
        if validation_freq < 1:
            raise ValueError("`validation_freq` can not be less than 1.")
        return (epoch + 1) % validation_freq == 0
    if not hasattr(validation_freq, "__contains__"):
        raise ValueError("`validation_freq` must be an Integer or `collections_abc.Container` "
                         f"(e.g. list, tuple, etc.). Received: {validation_freq}")
    return epoch + 1 in validation_freq


def _is_optimizer_key(key):
    return key.startswith("optimizer/") or "/.OPTIMIZER_SLOT/" in key


def _holds_hdf5(data):
    from tideflow.keras.utils import HDF5Matrix

    if isinstance(data, dict):
        data = list(data.values())
    return any(isinstance(a, HDF5Matrix) for a in (
        data if isinstance(data, (list, tuple)) else [data]))


def _is_stateful(model):
    """TF 1.15's Network.stateful: whether any of its layers (nested models' too) is."""
    return any(_is_stateful(layer) if isinstance(layer, Network)
               else getattr(layer, "stateful", False) for layer in model.layers)


def _default_batch(batch_size):
    """32 for ``None`` (as TF 1.15, a batch size of 0 is kept: its epochs fail dividing by
    it)."""
    return 32 if batch_size is None else batch_size


def _check_batch_size(batch_size):
    if batch_size == 0:  # (TF 1.15's make_batches: ceil(size / float(batch_size)))
        raise ZeroDivisionError("float division by zero")


class _ArraySource:
    """Batches of NumPy arrays, shuffled each epoch when asked."""

    def __init__(self, xs, ys, sws, batch_size, shuffle):
        self.xs, self.ys, self.sws = xs, ys, sws
        self.batch_size, self.shuffle = batch_size, shuffle
        self.samples = len(xs[0])
        self.steps = None

    hdf5 = False  # (fed HDF5Matrix inputs, read here as arrays)

    def epoch(self):
        n = self.samples
        _check_batch_size(self.batch_size)
        if self.hdf5 and self.shuffle is True and n > self.batch_size:
            # TF 1.15 reads each batch from the file, which h5py refuses for indices out of
            # order
            raise TypeError('TypeError while preparing batch. If using HDF5 input data, pass '
                            'shuffle="batch".')
        if self.shuffle == "batch":
            # as TF 1.15's batch_shuffle: whole batches in a random order, the ragged last
            # batch last
            whole = n // self.batch_size * self.batch_size
            blocks = np.arange(whole).reshape(-1, self.batch_size)
            np.random.shuffle(blocks)
            index = np.append(blocks.flatten(), np.arange(whole, n))
        else:
            index = np.random.permutation(n) if self.shuffle else np.arange(n)
        if 0 < n <= self.batch_size:
            # as TF 1.15: one batch is fed as given, in order (the shuffle drew all the same)
            yield list(self.xs), list(self.ys), list(self.sws)
            return
        for start in range(0, n, self.batch_size):
            ids = index[start:start + self.batch_size]
            yield ([a[ids] for a in self.xs], [a[ids] for a in self.ys],
                   [None if w is None else w[ids] for w in self.sws])


class _WholeArraysSource:
    """As TF 1.15's fit given arrays and ``steps_per_epoch``: each of the ``steps`` steps is
    fed the whole arrays (no batches, no shuffle)."""

    def __init__(self, xs, ys, sws, steps):
        self.xs, self.ys, self.sws = xs, ys, sws
        self.steps, self.samples = steps, None

    def epoch(self):
        for _ in range(self.steps):
            yield list(self.xs), list(self.ys), list(self.sws)


class _NoFeedSource:
    """``steps`` steps with nothing fed (the model reads tensors of the graph)."""

    def __init__(self, steps):
        self.steps, self.samples = steps, None

    def epoch(self):
        for _ in range(self.steps):
            yield [], [], []


class _DatasetSource:
    """Batches drawn from a ``tf.data`` dataset of ``(x, y)`` or ``(x, y, sample_weight)``
    elements: ``steps`` batches per epoch from one iterator, or (``steps=None``) the whole
    dataset each epoch from a re-initialized iterator."""

    def __init__(self, model, dataset, steps, need_y=True, restart=None, steps_name="steps"):
        self.model, self.steps, self.need_y = model, steps, need_y
        self.samples = None
        self.is_dataset = hasattr(dataset, "make_one_shot_iterator")
        # as TF 1.15: a dataset without steps restarts each epoch (validation: each pass)
        self.restart = steps is None if restart is None else restart
        self._started = False
        if self.is_dataset:
            if steps is None:
                self.steps = _infer_dataset_steps(dataset, steps_name)
            self.iterator = dataset.make_initializable_iterator()
            self.next = self.iterator.get_next()
        else:  # an iterator the program runs itself, or tensors
            if steps is None:
                raise ValueError("When using symbolic tensors or an iterator as input to a "
                                 "model, you should specify the `steps_per_epoch` (or "
                                 "`steps`) argument.")
            self.iterator = None
            self.next = dataset.get_next() if hasattr(dataset, "get_next") else dataset
        self._pending = None
        self._initialized = False

    def _pull(self):
        return K.get_session().run(self.next)

    def _init(self):
        if self.iterator is not None and (self.restart or not self._started):
            K.get_session().run(self.iterator.initializer)
        self._started = self._initialized = True

    def peek(self):
        """Pulls the first element now (a subclassed model builds from it)."""
        self._init()
        self._pending = self._pull()
        self._split(self._pending)

    def _split(self, element):
        if isinstance(element, tuple) and self.need_y:
            if len(element) not in (2, 3):
                raise ValueError("A dataset given to fit/evaluate must yield (inputs, targets) "
                                 f"or (inputs, targets, sample_weights); got {len(element)} "
                                 "items.")
            x, y = element[0], element[1]
            xs, ys = self.model._standardize_xy(x, y, check_shapes=False)
            sws = self.model._standardize_weights(
                ys, element[2] if len(element) == 3 else None, None)
            return xs, ys, sws
        x = element[0] if isinstance(element, tuple) and not self.need_y else element
        xs, _ = self.model._standardize_xy(x, need_y=False)
        return xs, None, None

    def epoch(self):
        if not self._initialized:
            self._init()
        step = 0
        while self.steps is None or step < self.steps:
            if self._pending is not None:
                element, self._pending = self._pending, None
            else:
                try:
                    element = self._pull()
                except tf.errors.OutOfRangeError:
                    if self.steps is not None:
                        # as TF 1.15: a warning, and training stops after this epoch
                        tf.logging.warning(
                            "Your dataset ran out of data; interrupting training. Make sure "
                            "that your dataset can generate at least `steps_per_epoch * "
                            "epochs` batches (in this case, %d batches). You may need to "
                            "use the repeat() function when building your dataset.",
                            self.steps * getattr(self.model, "_fit_epochs", 1))
                        self.model.stop_training = True
                    break
            yield self._split(element)
            step += 1
        self._initialized = False


def _infer_dataset_steps(dataset, steps_name):
    """As TF 1.15's fit/evaluate/predict: the number of batches of a dataset given without
    steps (its cardinality, read through a DatasetCardinality op), or None when unknown."""
    from tideflow.ops.dataset_more import cardinality

    size = int(K.get_value(cardinality(dataset)))
    if size == -1:
        raise ValueError("When passing an infinitely repeating dataset, you must specify the "
                         f"`{steps_name}` argument.")
    return size if size >= 0 else None


def _is_generator_or_sequence(x):
    """TF 1.15's test for the inputs ``fit``/``evaluate``/``predict`` hand to the
    ``*_generator`` methods: a ``keras.utils.Sequence`` or an iterator."""
    import collections.abc

    from tideflow.keras.utils import Sequence

    return isinstance(x, (Sequence, collections.abc.Iterator))


def _is_generator(x):
    return hasattr(x, "__next__") or (hasattr(x, "__getitem__") and hasattr(x, "__len__")
                                      and not isinstance(x, (list, tuple, np.ndarray)))


class _GeneratorSource:
    """Batches from a Python generator (``steps`` per epoch, drawn on) or a
    ``keras.utils.Sequence`` (its batches in order, ``on_epoch_end`` after each epoch).

    With ``workers > 0`` (the default 1 included, as TF 1.15) the batches are drawn ahead
    by Keras's enqueuers (``OrderedEnqueuer`` for a Sequence, in a new random order each
    epoch with ``shuffle``; ``GeneratorEnqueuer`` for a generator) on threads, or processes
    with ``use_multiprocessing``, for the whole of the call; ``close()`` stops them.
    ``workers=0`` draws on the calling thread, in order."""

    def __init__(self, model, generator, steps, need_y=True, class_weight=None, workers=1,
                 use_multiprocessing=False, max_queue_size=10, shuffle=False,
                 steps_name="steps_per_epoch"):
        self.model, self.need_y, self.class_weight = model, need_y, class_weight
        self._enqueuer = None
        self._batches_taken = 0
        self._pool = (workers, use_multiprocessing, max_queue_size, shuffle)
        self.is_sequence = hasattr(generator, "__getitem__") and hasattr(generator, "__len__")
        if steps is None:
            if not self.is_sequence:  # (TF 1.15's words)
                if steps_name == "validation_steps":
                    raise ValueError("Please specify the `validation_steps` argument.")
                raise ValueError("Please specify the number of steps via the "
                                 f"`{steps_name}` argument.")
            steps = len(generator)
        # a fractional count (``len(x) / batch_size``) runs its last partial step, as TF's
        # ``while step < steps`` loop
        steps = int(np.ceil(steps))
        self.generator, self.steps, self.samples = generator, steps, None
        self._iter = self._drawn = None if self.is_sequence else iter(generator)
        self._pending = None

    def _start_enqueuer(self):
        from tideflow.keras.data_utils import GeneratorEnqueuer, OrderedEnqueuer

        workers, use_mp, max_queue_size, shuffle = self._pool
        if self.is_sequence:
            self._enqueuer = OrderedEnqueuer(self.generator, use_multiprocessing=use_mp,
                                             shuffle=shuffle)
        else:
            self._enqueuer = GeneratorEnqueuer(self._drawn, use_multiprocessing=use_mp)
        self._enqueuer.start(workers=workers, max_queue_size=max_queue_size)
        self._iter = self._enqueuer.get()

    def close(self, end_epoch=False):
        """Stops the enqueuer. With ``end_epoch`` (training), a Sequence whose last pass was
        taken whole gets that pass's ``on_epoch_end`` if the enqueuer had not run it yet."""
        if self._enqueuer is None:
            return
        enqueuer, self._enqueuer = self._enqueuer, None
        enqueuer.stop()
        self._iter = self._drawn  # (a later pass starts an enqueuer of its own)
        if end_epoch and self.is_sequence and self._batches_taken and \
                self._batches_taken % len(self.generator) == 0 and \
                enqueuer.epochs_done < self._batches_taken // len(self.generator):
            self.generator.on_epoch_end()

    def peek(self):
        """Draws the first batch now (a subclassed model builds from it); the next epoch
        starts with it."""
        if self._pool[0] > 0 and self._enqueuer is None:
            self._start_enqueuer()
        if self._enqueuer is not None:
            batch = next(self._iter)
            self._batches_taken += 1
        else:
            batch = self.generator[0] if self.is_sequence else next(self._iter)
        self._pending = self._standardize(batch)

    def _standardize(self, batch):
        if not self.need_y:
            x = batch[0] if isinstance(batch, tuple) else batch
            xs, _ = self.model._standardize_xy(x, need_y=False)
            return xs, None, None
        if not isinstance(batch, tuple) or len(batch) not in (2, 3):
            raise ValueError("Output of generator should be a tuple `(x, y, sample_weight)` "
                             f"or `(x, y)`. Found: {type(batch).__name__}")
        xs, ys = self.model._standardize_xy(batch[0], batch[1])
        sws = self.model._standardize_weights(
            ys, batch[2] if len(batch) == 3 else None, self.class_weight)
        return xs, ys, sws

    def epoch(self):
        if self._pool[0] > 0 and self._enqueuer is None:
            self._start_enqueuer()
        for step in range(self.steps):
            if step == 0 and self._pending is not None:
                pending, self._pending = self._pending, None
                yield pending
                continue
            if self._enqueuer is not None:
                try:
                    batch = next(self._iter)
                    self._batches_taken += 1
                except StopIteration:
                    raise ValueError("The generator ran out of batches before the end of "
                                     f"the epoch ({step} of {self.steps} steps).") from None
            else:
                batch = self.generator[step] if self.is_sequence else next(self._iter)
            yield self._standardize(batch)
        if self._enqueuer is None and self.is_sequence and hasattr(self.generator,
                                                                    "on_epoch_end"):
            self.generator.on_epoch_end()


def _expand_to(weights, values):
    """Sample weights ([batch], or [batch, time]) shaped to broadcast against per-sample
    ``values``."""
    rank = None if values is None else values.get_shape().ndims
    wrank = weights.get_shape().ndims or 1
    if rank is None or rank <= wrank:
        return weights
    return tf.reshape(weights, tf.concat([tf.shape(weights), [1] * (rank - wrank)], 0))


def _times_mask(weights, mask):
    """``weights`` (rank 1 or 2) times a Keras output ``mask`` ([batch] or [batch, time]),
    each expanded to the other's rank."""
    wr, mr = weights.get_shape().ndims, mask.get_shape().ndims
    if wr is not None and mr is not None:
        if wr < mr:
            weights = tf.reshape(weights, tf.concat([tf.shape(weights), [1] * (mr - wr)], 0))
        elif mr < wr:
            mask = tf.reshape(mask, tf.concat([tf.shape(mask), [1] * (wr - mr)], 0))
    return weights * mask


def _batch_sums(outs, size):
    """A batch's loss and metric values times its size: the loss in float64, the metrics
    rounded to float32 as the sums TF 1.15's Mean metrics add (so 7 of 12 correct is
    0.5833333, not 0.5833334)."""
    sums = _scalars(outs) * size
    sums[1:] = _scalars(outs[1:]).astype(np.float32) * np.float32(size)
    return sums


def _scalars(outs):
    """The batch's values as float64s; a vector metric's (TruePositives at several
    thresholds), which only its last value reports, counts as 0."""
    return np.array([np.float64(v) if np.ndim(v) == 0 else 0.0 for v in outs])


def _class_weights_to_sample(class_weight, y):
    """Each sample's class weight (its class: the target's argmax, or the target itself);
    every class in the data must have one, as in TF 1.15."""
    y = np.asarray(y)
    if y.ndim > 2:
        raise ValueError("`class_weight` not supported for 3+ dimensional targets.")
    ids = (y.argmax(1) if y.ndim == 2 and y.shape[1] > 1 else y.reshape(len(y))).tolist()
    weights = [class_weight[c] for c in ids if c in class_weight]
    if len(weights) != len(ids):
        # (named as the labels usually are, integers: the targets here are already cast)
        missing = {int(c) if float(c).is_integer() else c for c in set(ids) - set(class_weight)}
        raise ValueError("`class_weight` must contain all classes in the data. The classes "
                         f"{missing} exist in the data but not in `class_weight`.")
    return np.asarray(weights, np.float32)


def _is_h5(filepath, save_format):
    if save_format is not None:
        return save_format in ("h5", "hdf5", "keras")
    return str(filepath).endswith((".h5", ".keras", ".hdf5"))


def _is_h5_file(filepath):
    """Whether ``filepath`` is an HDF5 file whatever its name (as TF's load_weights checks)."""
    import os

    if not os.path.isfile(filepath):
        return False
    with open(filepath, "rb") as f:
        return f.read(8) == b"\x89HDF\r\n\x1a\n"


def _unlist(values):
    return values[0] if len(values) == 1 else values


class _TrainStep:
    """``model.train_function``: one training step on the list inputs + targets + sample
    weights (None for a weight left at its default; a trailing learning phase is ignored:
    training steps run in the training phase)."""

    def __init__(self, model):
        self._model = model
        self.inputs = (model._feed_inputs + model._feed_targets
                       + model._feed_sample_weights)
        lp = K._learning_phase_placeholder()
        if isinstance(lp, ops.Tensor):  # as TF 1.15's: the learning phase last
            self.inputs.append(lp)
        self.outputs = model._train_fn[1:]

    def __call__(self, inputs):
        m = self._model
        n_x, n_y = len(m._feed_inputs), len(m._feed_targets)
        xs, ys = list(inputs[:n_x]), list(inputs[n_x:n_x + n_y])
        sws = list(inputs[n_x + n_y:n_x + n_y + len(m._feed_sample_weights)])
        return m._run(m._train_fn, m._feeds(xs, ys, True, sws))[1:]
