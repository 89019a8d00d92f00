"""The ``tf.contrib.estimator`` helpers TF 1.x programs call beside the core Estimator API:
the head factories (``regression_head``, ``binary_classification_head``, ...),
``forward_features``, ``clip_gradients_by_norm`` and the one-device form of
``replicate_model_fn``/``TowerOptimizer`` (official/mnist's ``--multi_gpu`` path)."""

from tideflow.estimator.canned import heads
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.export import (
    build_raw_supervised_input_receiver_fn,
    build_supervised_input_receiver_fn_from_input_fn,
)
from tideflow.estimator.model_fn import ModeKeys
from tideflow.framework import sparse_tensor
from tideflow.ops import clip_ops, losses_impl, sparse_ops
from tideflow.train import optimizer as optimizer_lib

_MEAN = losses_impl.Reduction.SUM_OVER_BATCH_SIZE


# -- heads (contrib's argument order: weight_column first) ----------------------------------
def regression_head(weight_column=None, label_dimension=1, loss_reduction=_MEAN, loss_fn=None,
                    inverse_link_fn=None, name=None):
    return heads.RegressionHead(label_dimension=label_dimension, weight_column=weight_column,
                                loss_reduction=loss_reduction, loss_fn=loss_fn,
                                inverse_link_fn=inverse_link_fn, name=name)


def binary_classification_head(weight_column=None, thresholds=None, label_vocabulary=None,
                               loss_reduction=_MEAN, loss_fn=None, name=None):
    return heads.BinaryClassHead(weight_column=weight_column, thresholds=thresholds,
                                 label_vocabulary=label_vocabulary,
                                 loss_reduction=loss_reduction, loss_fn=loss_fn, name=name)


def multi_class_head(n_classes, weight_column=None, label_vocabulary=None,
                     loss_reduction=_MEAN, loss_fn=None, name=None):
    return heads.MultiClassHead(n_classes, weight_column=weight_column,
                                label_vocabulary=label_vocabulary,
                                loss_reduction=loss_reduction, loss_fn=loss_fn, name=name)


def poisson_regression_head(weight_column=None, label_dimension=1, loss_reduction=_MEAN,
                            compute_full_loss=True, name=None):
    return heads.PoissonRegressionHead(label_dimension=label_dimension,
                                       weight_column=weight_column,
                                       loss_reduction=loss_reduction,
                                       compute_full_loss=compute_full_loss, name=name)


def multi_label_head(n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                     loss_reduction=_MEAN, loss_fn=None, classes_for_class_based_metrics=None,
                     name=None):
    return heads.MultiLabelHead(n_classes, weight_column=weight_column, thresholds=thresholds,
                                label_vocabulary=label_vocabulary,
                                loss_reduction=loss_reduction, loss_fn=loss_fn,
                                classes_for_class_based_metrics=classes_for_class_based_metrics,
                                name=name)


def logistic_regression_head(weight_column=None, loss_reduction=_MEAN, name=None):
    return heads.LogisticRegressionHead(weight_column=weight_column,
                                        loss_reduction=loss_reduction, name=name)


# -- estimator wrappers ----------------------------------------------------------------------
def forward_features(estimator, keys=None, sparse_default_values=None):
    """A copy of ``estimator`` whose predictions also hold the features ``keys`` (all the
    features when ``None``); a sparse feature is made dense with its
    ``sparse_default_values`` entry."""
    if isinstance(keys, str):
        keys = [keys]
    if keys is not None and not all(isinstance(k, str) for k in keys):
        raise TypeError(f"keys should be either a string or a list of strings. Given: {keys}")
    sparse_default_values = dict(sparse_default_values or {})

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.PREDICT:
            return spec
        predictions = spec.predictions
        if not isinstance(predictions, dict):
            raise ValueError("Predictions should be a dict to be able to forward features. "  # noqa: TRY004 - as TF
                             f"Given: {type(predictions)}")
        if not isinstance(features, dict):
            raise ValueError("Features should be a dict to be able to forward features. "  # noqa: TRY004 - as TF
                             f"Given: {type(features)}")
        predictions = dict(predictions)
        for key in (sorted(features) if keys is None else keys):
            if key not in features:
                raise ValueError(f"Feature ({key}) is not in features dict.")
            if key in predictions:
                raise ValueError(f"Cannot forward feature key ({key}). Since it does exist in "
                                 f"predictions. Existing keys in predictions: "
                                 f"{sorted(predictions)}")
            value = features[key]
            if isinstance(value, sparse_tensor.SparseTensor):
                if key not in sparse_default_values:
                    raise ValueError(f"Feature ({key}) should be a Tensor. Please use `keys` "
                                     "argument of forward_features to filter unwanted "
                                     "features, or add a default value in "
                                     "sparse_default_values. Type of features[{key}] is "
                                     f"{type(value)}.")
                value = sparse_ops.sparse_tensor_to_dense(value, sparse_default_values[key])
            predictions[key] = value
        return spec._replace(predictions=predictions)

    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir,
                     config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)


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


__all__ = ["TowerOptimizer", "binary_classification_head",
           "build_raw_supervised_input_receiver_fn",
           "build_supervised_input_receiver_fn_from_input_fn", "clip_gradients_by_norm",
           "export_all_saved_models", "export_saved_model_for_mode", "forward_features",
           "logistic_regression_head", "multi_class_head", "multi_label_head",
           "poisson_regression_head",
           "regression_head", "replicate_model_fn"]
