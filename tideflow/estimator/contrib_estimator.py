"""The ``tf.contrib.estimator`` helpers TF 1.x programs call beside the core Estimator API:
the head factories (``regression_head``, ``binary_classification_head``, ...),
``forward_features``, ``clip_gradients_by_norm`` and the one-device form of
``replicate_model_fn``/``TowerOptimizer`` (official/mnist's ``--multi_gpu`` path)."""

from tideflow import metrics as metrics_lib
from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.canned import heads
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.export import (
    PredictOutput,
    build_raw_supervised_input_receiver_fn,
    build_supervised_input_receiver_fn_from_input_fn,
)
from tideflow.estimator.model_fn import EstimatorSpec, ModeKeys
from tideflow.framework import ops, sparse_tensor
from tideflow.ops import (
    array_ops,
    clip_ops,
    control_flow_ops,
    fill_ops,
    losses_impl,
    math_ops,
    sparse_ops,
)
from tideflow.summary import summary as summary_lib
from tideflow.train import optimizer as optimizer_lib
from tideflow.train import training_util

_MEAN = losses_impl.Reduction.SUM_OVER_BATCH_SIZE


# -- heads (contrib's argument order: weight_column first) ----------------------------------
def _v1(head):
    """``head`` as TF 1.15's contrib (v1) head: trained by any optimizer, tf.metrics AUCs."""
    head._v1 = True
    return head


def regression_head(weight_column=None, label_dimension=1, loss_reduction=_MEAN, loss_fn=None,
                    inverse_link_fn=None, name=None):
    return _v1(heads.RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                                    loss_reduction=loss_reduction, loss_fn=loss_fn,
                                    inverse_link_fn=inverse_link_fn, name=name))


def binary_classification_head(weight_column=None, thresholds=None, label_vocabulary=None,
                               loss_reduction=_MEAN, loss_fn=None, name=None):
    return _v1(heads.BinaryClassHead(weight_column=weight_column, thresholds=thresholds,
                                     label_vocabulary=label_vocabulary,
                                     loss_reduction=loss_reduction, loss_fn=loss_fn, name=name))


def multi_class_head(n_classes, weight_column=None, label_vocabulary=None,
                     loss_reduction=_MEAN, loss_fn=None, name=None):
    return _v1(heads.MultiClassHead(n_classes, weight_column=weight_column,
                                    label_vocabulary=label_vocabulary,
                                    loss_reduction=loss_reduction, loss_fn=loss_fn, name=name))


def poisson_regression_head(weight_column=None, label_dimension=1, loss_reduction=_MEAN,
                            compute_full_loss=True, name=None):
    return _v1(heads.PoissonRegressionHead(label_dimension=label_dimension,
                                           weight_column=weight_column,
                                           loss_reduction=loss_reduction,
                                           compute_full_loss=compute_full_loss, name=name))


def multi_label_head(n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                     loss_reduction=_MEAN, loss_fn=None, classes_for_class_based_metrics=None,
                     name=None):
    return _v1(heads.MultiLabelHead(n_classes, weight_column=weight_column, thresholds=thresholds,
                                    label_vocabulary=label_vocabulary,
                                    loss_reduction=loss_reduction, loss_fn=loss_fn,
                                    classes_for_class_based_metrics=classes_for_class_based_metrics,
                                    name=name))


def multi_head(heads, head_weights=None):
    """One head over several named heads (TF 1.15's contrib ``multi_head``): the logits split
    among them in order (or a dict by head name), labels a dict by head name, the losses
    added (times ``head_weights``)."""
    if head_weights and len(head_weights) != len(heads):
        raise ValueError("heads and head_weights must have the same size. Given len(heads): "
                         f"{len(heads)}. Given len(head_weights): {len(head_weights)}.")
    if not heads:
        raise ValueError(f"Must specify heads. Given: {heads}")
    for head in heads:
        if not head.name:
            raise ValueError(f"All given heads must have name specified. Given: {head}")
    return _MultiHead(tuple(heads), tuple(head_weights) if head_weights else ())


def _merge_losses(losses, head_weights=None):
    losses = tuple(losses)
    with ops.name_scope("merge_losses", values=losses + (head_weights or ())):
        if head_weights:
            losses = [math_ops.multiply(loss, w) for loss, w in zip(losses, head_weights)]
        return math_ops.add_n(losses)


class _MultiHead:
    def __init__(self, heads, head_weights):
        self._heads = heads
        self._head_weights = head_weights

    @property
    def name(self):
        return "_".join(h.name for h in self._heads)

    @property
    def logits_dimension(self):
        return sum(h.logits_dimension for h in self._heads)

    def _split_logits(self, logits):
        logits_dict = {}
        with ops.name_scope(None, "split_logits", values=[logits]):
            logits = ops.convert_to_tensor(logits)
            dims = [h.logits_dimension for h in self._heads]
            shape = logits.shape.as_list()
            if shape[-1] is not None and shape[-1] != sum(dims):
                raise ValueError(
                    f"Could not split logits of shape {shape!r} among the heads with "
                    f"individual logits dimensions: {dims!r}. The last dimension of the "
                    f"logits tensor should equal {shape[-1]} but is {sum(dims)}.")
            batch_shape = array_ops.shape(logits)[:-1]
            zeros = fill_ops.zeros_like(batch_shape)
            minus_ones = -1 * fill_ops.ones_like(batch_shape)
            begin = 0
            for head in self._heads:
                logits_dict[head.name] = array_ops.slice(
                    logits, begin=array_ops.concat([zeros, [begin]], axis=0),
                    size=array_ops.concat([minus_ones, [head.logits_dimension]], axis=0))
                begin += head.logits_dimension
        return logits_dict

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None):
        logits_dict = logits if isinstance(logits, dict) else self._split_logits(logits)
        if labels and not isinstance(labels, dict):
            raise ValueError(f"labels must be a dict. Given: {labels}")
        specs = [head.create_estimator_spec(
            features=features, mode=mode, logits=logits_dict[head.name],
            labels=labels[head.name] if labels else None,
            train_op_fn=lambda loss: control_flow_ops.no_op()) for head in self._heads]
        predictions = {(head.name, k): v for head, spec in zip(self._heads, specs)
                       for k, v in spec.predictions.items()}
        if mode == ModeKeys.TRAIN:
            metrics = {}
            for spec in specs:
                metrics.update(spec.eval_metric_ops or {})
            loss = _merge_losses([spec.loss for spec in specs], self._head_weights)
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                train_op = optimizer.minimize(loss,
                                              global_step=training_util.get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
            with ops.name_scope(""):
                summary_lib.scalar(head_lib.MetricKeys.LOSS, loss)
            return EstimatorSpec(mode=mode, loss=loss, train_op=train_op,
                                 predictions=predictions, eval_metric_ops=metrics)
        if mode == ModeKeys.PREDICT:
            return self._merge_predict(specs, predictions)
        if mode == ModeKeys.EVAL:
            metrics = {}
            with ops.name_scope("merge_eval"):
                for head, spec in zip(self._heads, specs):
                    key = head_lib._summary_key(head.name, head_lib.MetricKeys.LOSS)
                    metrics[key] = metrics_lib.mean(spec.loss, name=key)
                    metrics.update(spec.eval_metric_ops or {})
                loss = _merge_losses([spec.loss for spec in specs], self._head_weights)
            return EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                 eval_metric_ops=metrics)
        raise ValueError(f"mode={mode} unrecognized")

    def _merge_predict(self, specs, predictions):
        default_key = head_lib._DEFAULT_SERVING_KEY
        first = specs[0].export_outputs
        if len(first) == 1:
            default = next(iter(first.values()))
        elif default_key in first:
            default = first[default_key]
        else:
            raise ValueError(
                f"{self._heads[0].name} did not specify default export_outputs. Given: "
                f"{first} Suggested fix: Use one of the heads in tf.contrib.estimator, or "
                f"include key {default_key} in export_outputs.")
        export_outputs = {default_key: default}
        merged = {}
        for head, spec in zip(self._heads, specs):
            for k, v in spec.export_outputs.items():
                export_outputs[head.name if k == default_key else f"{head.name}/{k}"] = v
                if k == head_lib._PREDICT_SERVING_KEY and isinstance(v, PredictOutput):
                    for kp, vp in v.outputs.items():
                        merged[f"{head.name}/{kp}"] = vp
        export_outputs[head_lib._PREDICT_SERVING_KEY] = PredictOutput(merged)
        return EstimatorSpec(mode=ModeKeys.PREDICT, predictions=predictions,
                             export_outputs=export_outputs)


def logistic_regression_head(weight_column=None, loss_reduction=_MEAN, name=None):
    return _v1(heads.LogisticRegressionHead(weight_column=weight_column,
                                            loss_reduction=loss_reduction, name=name))


# -- estimator wrappers ----------------------------------------------------------------------
def forward_features(estimator, keys=None, sparse_default_values=None):
    """A copy of ``estimator`` whose predictions (in every mode that has a dict of them, as
    TF 1.15's) also hold the features ``keys`` (all the features when ``None``), also added to
    a ``predict``/``serving_default`` PredictOutput; a sparse feature named in
    ``sparse_default_values`` is made dense with that value."""
    if isinstance(keys, str):
        keys = [keys]
    elif keys is not None:
        if not isinstance(keys, (list, tuple)):
            raise TypeError(f"keys should be either a string or a list of strings. Given: "
                            f"{type(keys)}")
        for key in keys:
            if not isinstance(key, str):
                raise TypeError(f"All items in the given keys list should be a string. There "
                                f"exist an item with type: {type(key)}")

    def get_keys(features):
        return features.keys() if keys is None else keys

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        predictions = spec.predictions
        if predictions is None:
            return spec
        if not isinstance(predictions, dict):
            raise ValueError("Predictions should be a dict to be able to forward features. "  # noqa: TRY004 - as TF
                             f"Given: {type(predictions)}")
        for key in get_keys(features):
            if key not in features:
                raise ValueError(f'keys should be exist in features. Key "{key}" is not in '
                                 f"features dict. features dict has following keys: "
                                 f"{features.keys()}. Please check arguments of "
                                 f"forward_features.")
            if key in predictions:
                raise ValueError(f"Cannot forward feature key ({key}). Since it does exist in "
                                 f"predictions. Existing prediction keys: "
                                 f"{predictions.keys()}. Please check arguments of "
                                 f"forward_features.")
        # as TF, the model's own predictions dict (and PredictOutput) gain the features
        for key in get_keys(features):
            feature = sparse_tensor.convert_to_tensor_or_sparse_tensor(features[key])
            if sparse_default_values and key in sparse_default_values:
                if not isinstance(feature, sparse_tensor.SparseTensor):
                    raise ValueError(f"Feature ({key}) is expected to be a `SparseTensor`.")
                feature = sparse_ops.sparse_tensor_to_dense(
                    feature, default_value=sparse_default_values[key])
            if not isinstance(feature, ops.Tensor):
                # TF's words, spaces missing included
                raise ValueError(  # noqa: TRY004 - as TF
                    f"Feature ({key}) should be a Tensor. Please use `keys` argument of "
                    "forward_features to filter unwanted features, oradd key to argument "
                    f"`sparse_default_values`.Type of features[{key}] is {type(feature)}.")
            predictions[key] = feature
        spec = spec._replace(predictions=predictions)
        for ekey in ("predict", "serving_default"):
            output = (spec.export_outputs or {}).get(ekey)
            if isinstance(output, PredictOutput):
                for key in get_keys(features):
                    output.outputs[key] = predictions[key]
        return spec

    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir,
                     config=estimator.config)


class _ClippingOptimizer(optimizer_lib.Optimizer):
    def __init__(self, optimizer, clip_norm, name="ClipByNorm"):
        super().__init__(optimizer._use_locking, name + optimizer.get_name())
        self._optimizer = optimizer
        self._clip_norm = clip_norm

    def compute_gradients(self, *args, **kwargs):
        return self._optimizer.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in pairs], self._clip_norm)
        return self._optimizer.apply_gradients(
            list(zip(clipped, [v for _, v in pairs], strict=True)), global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._optimizer.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._optimizer.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._optimizer.variables()


def clip_gradients_by_norm(optimizer, clip_norm):
    """``optimizer`` with its gradients clipped to the global norm ``clip_norm``."""
    if not isinstance(optimizer, optimizer_lib.Optimizer):
        raise TypeError(f"optimizer must be an instance of tf.train.Optimizer. Given: "
                        f"{optimizer}")
    return _ClippingOptimizer(optimizer, clip_norm)


class TowerOptimizer(optimizer_lib.Optimizer):
    """The optimizer of a ``replicate_model_fn`` model: with the one tower tideflow runs,
    it applies the gradients as the optimizer it wraps."""

    def __init__(self, optimizer_or_optimizer_fn):
        super().__init__(use_locking=False, name="TowerOptimizer")
        self._optimizer = optimizer_or_optimizer_fn

    def _get_optimizer(self):
        if callable(self._optimizer) and not isinstance(self._optimizer,
                                                        optimizer_lib.Optimizer):
            self._optimizer = self._optimizer()
        return self._optimizer

    def compute_gradients(self, *args, **kwargs):
        return self._get_optimizer().compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._get_optimizer().apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, *args, **kwargs):
        return self._get_optimizer().get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._get_optimizer().get_slot_names(*args, **kwargs)

    def variables(self):
        return self._get_optimizer().variables()


def replicate_model_fn(model_fn, loss_reduction=losses_impl.Reduction.SUM_BY_NONZERO_WEIGHTS,
                       devices=None):
    """The model_fn replicated over ``devices``. tideflow runs one tower: with one device
    (the default on a machine without GPUs) the model_fn is returned as is, which is what
    TF computes for a single tower under any ``loss_reduction``."""
    if loss_reduction == losses_impl.Reduction.NONE:
        raise ValueError("Tower losses need to be reduced in some way, yet NONE was "
                         "specified for loss_reduction.")
    if devices is not None and len(devices) > 1:
        raise NotImplementedError(
            f"replicate_model_fn: tideflow runs one tower; got devices {list(devices)}. "
            "Use a tf.distribute strategy in RunConfig(train_distribute=...) instead.")
    return model_fn


def export_saved_model_for_mode(estimator, export_dir_base, input_receiver_fn,
                                assets_extra=None, as_text=False, checkpoint_path=None,
                                mode=ModeKeys.PREDICT):
    """TF 1.x's contrib form of ``estimator.export_saved_model(...,
    experimental_mode=mode)``."""
    return estimator.export_saved_model(export_dir_base, input_receiver_fn,
                                        assets_extra=assets_extra, as_text=as_text,
                                        checkpoint_path=checkpoint_path,
                                        experimental_mode=mode)


def export_all_saved_models(estimator, export_dir_base, input_receiver_fn_map,
                            assets_extra=None, as_text=False, checkpoint_path=None):
    """TF 1.x's contrib form of ``estimator.experimental_export_all_saved_models``."""
    return estimator.experimental_export_all_saved_models(
        export_dir_base, input_receiver_fn_map, assets_extra=assets_extra, as_text=as_text,
        checkpoint_path=checkpoint_path)


class MultiHead(_MultiHead, heads.Head):
    """``tf.estimator.MultiHead`` (TF 1.15's v2 head): contrib's multi-head, its checks in
    the v2 head's order."""

    def __init__(self, heads, head_weights=None):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        head = multi_head(heads, head_weights)
        super().__init__(head._heads, head._head_weights)

    @property
    def loss_reduction(self):
        reductions = [head.loss_reduction for head in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError("The loss_reduction must be the same for different heads. "
                             f"Given: {reductions}")
        return reductions[0]

    def _logits_dict(self, logits):
        return logits if isinstance(logits, dict) else self._split_logits(logits)

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The heads' training losses (weighted by ``head_weights``) summed, plus the
        regularization losses."""
        logits = self._logits_dict(logits)
        losses = [head.loss(labels[head.name], logits[head.name], features=features, mode=mode)
                  for head in self._heads]
        with ops.name_scope("merge_losses"):
            if self._head_weights:
                losses = [math_ops.multiply(x, w) for x, w in zip(losses, self._head_weights)]
            loss = math_ops.add_n(losses)
            if regularization_losses is not None:
                loss = loss + math_ops.add_n(list(regularization_losses))
        return loss

    def predictions(self, logits, keys=None):
        """The heads' predictions keyed ``(head name, prediction key)``."""
        logits = self._logits_dict(logits)
        out = {}
        with ops.name_scope("merge_pred"):
            for head in self._heads:
                for k, v in head.predictions(logits[head.name]).items():
                    out[(head.name, k)] = v
        return out

    def metrics(self, regularization_losses=None):
        """Keras means of each head's loss (``loss/<head>``), and of the regularization
        losses (``regularization_loss/<multi-head name>``) if given, as TF 1.15's."""
        from tideflow.keras import metrics as keras_metrics

        out = {}
        with ops.name_scope("metrics"):
            if regularization_losses is not None:
                key = head_lib._summary_key(self.name, head_lib.MetricKeys.LOSS_REGULARIZATION)
                out[key] = keras_metrics.Mean(name=head_lib.MetricKeys.LOSS_REGULARIZATION)
            for head in self._heads:
                key = head_lib._summary_key(head.name, head_lib.MetricKeys.LOSS)
                out[key] = keras_metrics.Mean(name=key)
        return out

    def update_metrics(self, eval_metrics, features, logits, labels,
                       regularization_losses=None):
        """Updates the means of ``metrics()`` with one batch; returns ``eval_metrics``."""
        logits = self._logits_dict(logits)
        for head in self._heads:
            key = head_lib._summary_key(head.name, head_lib.MetricKeys.LOSS)
            if key in eval_metrics:
                eval_metrics[key].update_state(
                    head.loss(labels[head.name], logits[head.name], features=features))
        key = head_lib._summary_key(self.name, head_lib.MetricKeys.LOSS_REGULARIZATION)
        if regularization_losses is not None and key in eval_metrics:
            eval_metrics[key].update_state(math_ops.add_n(list(regularization_losses)))
        return eval_metrics

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        del trainable_variables, update_ops, regularization_losses
        return super().create_estimator_spec(features, mode, logits, labels=labels,
                                             optimizer=optimizer, train_op_fn=train_op_fn)


__all__ = ["TowerOptimizer", "binary_classification_head",
           "build_raw_supervised_input_receiver_fn",
           "build_supervised_input_receiver_fn_from_input_fn", "clip_gradients_by_norm",
           "export_all_saved_models", "export_saved_model_for_mode", "forward_features",
           "logistic_regression_head", "multi_class_head", "multi_head", "multi_label_head",
           "poisson_regression_head",
           "regression_head", "replicate_model_fn"]
