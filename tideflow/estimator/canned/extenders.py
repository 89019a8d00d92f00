"""``tf.estimator.add_metrics``: an estimator with extra eval metrics from a ``metric_fn``."""

import inspect

from tideflow.estimator.estimator import Estimator
from tideflow.estimator.model_fn import ModeKeys

_VALID_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator, metric_fn):
    """A copy of ``estimator`` whose evaluation also reports ``metric_fn``'s metrics
    (``metric_fn`` takes any of features, labels, predictions, config)."""
    args = set(inspect.signature(metric_fn).parameters)
    bad = args - _VALID_METRIC_FN_ARGS
    if bad:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: "
                         f"{sorted(bad)}")

    def new_model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        kwargs = {}
        if "features" in args:
            kwargs["features"] = features
        if "labels" in args:
            kwargs["labels"] = labels
        if "predictions" in args:
            kwargs["predictions"] = spec.predictions
        if "config" in args:
            kwargs["config"] = config
        metrics = dict(spec.eval_metric_ops)
        metrics.update(metric_fn(**kwargs))
        return spec._replace(eval_metric_ops=metrics)

    return Estimator(model_fn=new_model_fn, model_dir=estimator.model_dir,
                     config=estimator.config,
                     warm_start_from=estimator._warm_start_settings)


__all__ = ["add_metrics"]
