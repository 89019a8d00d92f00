"""``tf.estimator``: Estimators of TF 1.x over monitored sessions (explicit re-exports)."""

from tideflow.estimator import experimental, export, inputs, tpu
from tideflow.estimator.estimator import Estimator, VocabInfo, WarmStartSettings
from tideflow.estimator.model_fn import EstimatorSpec, ModeKeys
from tideflow.estimator.run_config import RunConfig
from tideflow.estimator.training import (
    BestExporter,
    EvalSpec,
    Exporter,
    FinalExporter,
    LatestExporter,
    TrainSpec,
    train_and_evaluate,
)
from tideflow.train.basic_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from tideflow.train.profiler_hook import ProfilerHook
from tideflow.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)

_CANNED = {
    "DNNClassifier": "tideflow.estimator.canned.dnn",
    "DNNRegressor": "tideflow.estimator.canned.dnn",
    "DNNEstimator": "tideflow.estimator.canned.dnn",
    "LinearClassifier": "tideflow.estimator.canned.linear",
    "LinearRegressor": "tideflow.estimator.canned.linear",
    "LinearEstimator": "tideflow.estimator.canned.linear",
    "DNNLinearCombinedClassifier": "tideflow.estimator.canned.dnn_linear_combined",
    "DNNLinearCombinedRegressor": "tideflow.estimator.canned.dnn_linear_combined",
    "DNNLinearCombinedEstimator": "tideflow.estimator.canned.dnn_linear_combined",
    "BaselineClassifier": "tideflow.estimator.canned.baseline",
    "BaselineRegressor": "tideflow.estimator.canned.baseline",
    "BaselineEstimator": "tideflow.estimator.canned.baseline",
    "BoostedTreesClassifier": "tideflow.estimator.canned.boosted_trees",
    "BoostedTreesRegressor": "tideflow.estimator.canned.boosted_trees",
    "BoostedTreesEstimator": "tideflow.estimator.canned.boosted_trees",
    "classifier_parse_example_spec": "tideflow.estimator.canned.parsing_utils",
    "regressor_parse_example_spec": "tideflow.estimator.canned.parsing_utils",
    "add_metrics": "tideflow.estimator.canned.extenders",
    "BinaryClassHead": "tideflow.estimator.canned.heads",
    "Head": "tideflow.estimator.canned.heads",
    "MultiClassHead": "tideflow.estimator.canned.heads",
    "RegressionHead": "tideflow.estimator.canned.heads",
    "LogisticRegressionHead": "tideflow.estimator.canned.heads",
    "PoissonRegressionHead": "tideflow.estimator.canned.heads",
    "MultiLabelHead": "tideflow.estimator.canned.heads",
    "MultiHead": "tideflow.estimator.contrib_estimator",
}


def __getattr__(name):
    module = _CANNED.get(name)
    if module is None:
        raise AttributeError(f"module 'tideflow.estimator' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BaselineClassifier", "BaselineEstimator", "BaselineRegressor", "BestExporter",
    "BinaryClassHead", "BoostedTreesClassifier", "BoostedTreesEstimator", "BoostedTreesRegressor",
    "CheckpointSaverHook", "CheckpointSaverListener", "DNNClassifier", "DNNEstimator",
    "DNNLinearCombinedClassifier", "DNNLinearCombinedEstimator", "DNNLinearCombinedRegressor",
    "DNNRegressor", "Estimator",
    "EstimatorSpec", "EvalSpec", "Exporter", "FeedFnHook", "FinalExporter", "FinalOpsHook",
    "GlobalStepWaiterHook", "Head", "LatestExporter", "LinearClassifier", "LinearEstimator",
    "LinearRegressor", "LoggingTensorHook", "LogisticRegressionHead", "ModeKeys",
    "MultiClassHead", "MultiHead", "MultiLabelHead", "NanLossDuringTrainingError", "NanTensorHook",
    "PoissonRegressionHead", "ProfilerHook", "RegressionHead", "RunConfig", "SecondOrStepTimer",
    "SessionRunArgs", "SessionRunContext", "SessionRunHook", "SessionRunValues", "StepCounterHook",
    "StopAtStepHook", "SummarySaverHook", "TrainSpec", "VocabInfo", "WarmStartSettings",
    "add_metrics", "classifier_parse_example_spec", "experimental", "export", "inputs",
    "regressor_parse_example_spec", "tpu", "train_and_evaluate",
]


def __dir__():
    return sorted(set(globals()) | set(_CANNED))
