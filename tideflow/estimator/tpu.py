"""``tf.estimator.tpu`` (``tf.contrib.tpu`` in TF 1.x programs): ``TPUEstimator`` and its
specs and configs, run on the CPU as TF runs them with ``use_tpu=False``. ``params`` carries
the mode's batch size; ``eval_metrics`` (a metric_fn and its tensors) and ``scaffold_fn``
become the plain EstimatorSpec's metric ops and scaffold."""

import collections

from tideflow import logging
from tideflow.estimator import estimator as estimator_lib
from tideflow.estimator import run_config as run_config_lib
from tideflow.estimator.model_fn import EstimatorSpec, ModeKeys
from tideflow.train import optimizer as optimizer_lib
from tideflow.train.session_run_hook import SessionRunArgs, SessionRunHook

_BATCH_SIZE_KEY = "batch_size"
_USE_TPU_KEY = "use_tpu"
_CTX_KEY = "context"
_RESERVED_PARAMS_KEYS = [_BATCH_SIZE_KEY, _CTX_KEY]


class InputPipelineConfig:
    """How input_fn is called per host/shard (only meaningful on TPUs)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


class TPUConfig(collections.namedtuple("TPUConfig", [
        "iterations_per_loop", "num_shards", "num_cores_per_replica",
        "per_host_input_for_training", "tpu_job_name", "initial_infeed_sleep_secs",
        "input_partition_dims", "eval_training_input_configuration",
        "experimental_host_call_every_n_steps"])):
    """TPU settings; kept and validated, not used on the CPU."""

    def __new__(cls, iterations_per_loop=2, num_shards=None, num_cores_per_replica=None,
                per_host_input_for_training=True, tpu_job_name=None,
                initial_infeed_sleep_secs=None, input_partition_dims=None,
                eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
                experimental_host_call_every_n_steps=1):
        if iterations_per_loop is None or iterations_per_loop < 1:
            raise ValueError(f"iterations_per_loop must be positive, got "
                             f"{iterations_per_loop}")
        if num_shards is not None and num_shards < 1:
            raise ValueError(f"num_shards must be positive, got {num_shards}")
        return super().__new__(cls, iterations_per_loop, num_shards, num_cores_per_replica,
                               per_host_input_for_training, tpu_job_name,
                               initial_infeed_sleep_secs, input_partition_dims,
                               eval_training_input_configuration,
                               experimental_host_call_every_n_steps)


class RunConfig(run_config_lib.RunConfig):
    """``RunConfig`` with a ``tpu_config`` (and the TPU cluster arguments, unused here)."""

    def __init__(self, tpu_config=None, evaluation_master=None, master=None, cluster=None,
                 **kwargs):
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        if not isinstance(self._tpu_config, TPUConfig):
            raise TypeError(f"tpu_config must be a TPUConfig, given: {tpu_config}")
        self._tpu_master = master or ""
        self._tpu_evaluation_master = evaluation_master or ""
        self._cluster = cluster

    tpu_config = property(lambda self: self._tpu_config)
    cluster = property(lambda self: self._cluster)

    def replace(self, **kwargs):
        tpu_config = kwargs.pop("tpu_config", self._tpu_config)
        new = super().replace(**kwargs)
        new._tpu_config = tpu_config
        return new


class TPUEstimatorSpec(collections.namedtuple("TPUEstimatorSpec", [
        "mode", "predictions", "loss", "train_op", "eval_metrics", "export_outputs",
        "scaffold_fn", "host_call", "training_hooks", "evaluation_hooks",
        "prediction_hooks"])):
    """What a TPUEstimator's model_fn returns: ``eval_metrics`` is ``(metric_fn, tensors)``
    (a list or dict of tensors) and ``scaffold_fn`` a function returning the Scaffold."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metrics=None,
                export_outputs=None, scaffold_fn=None, host_call=None, training_hooks=None,
                evaluation_hooks=None, prediction_hooks=None):
        if eval_metrics is not None:
            _check_metric_tuple(eval_metrics, "eval_metrics")
        if host_call is not None:
            _check_metric_tuple(host_call, "host_call")
        # as TF: the hooks are tuples (empty when not given), each a SessionRunHook
        training_hooks = tuple(training_hooks or ())
        evaluation_hooks = tuple(evaluation_hooks or ())
        prediction_hooks = tuple(prediction_hooks or ())
        for hook in training_hooks + evaluation_hooks + prediction_hooks:
            if not isinstance(hook, SessionRunHook):
                raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
        return super().__new__(cls, mode, predictions, loss, train_op, eval_metrics,
                               export_outputs, scaffold_fn, host_call, training_hooks,
                               evaluation_hooks, prediction_hooks)

    def as_estimator_spec(self):
        """The equivalent plain EstimatorSpec (metric_fn and scaffold_fn called here)."""
        eval_metric_ops = None
        if self.eval_metrics is not None:
            eval_metric_ops = _call_with_tensors(*self.eval_metrics)
        scaffold = self.scaffold_fn() if self.scaffold_fn else None
        extra = []
        if self.host_call is not None:
            # as TF without a TPU: the host call's ops run with every step, after the
            # tf.contrib.summary writers are initialized, and the writers flush at the end
            extra = [_HostCallHook(_call_with_tensors(*self.host_call))]
        return EstimatorSpec(
            mode=self.mode, predictions=self.predictions, loss=self.loss,
            train_op=self.train_op, eval_metric_ops=eval_metric_ops,
            export_outputs=self.export_outputs, scaffold=scaffold,
            training_hooks=list(self.training_hooks or []) + extra,
            evaluation_hooks=list(self.evaluation_hooks or []) + extra,
            prediction_hooks=list(self.prediction_hooks or []) + extra)


class _HostCallHook(SessionRunHook):
    """Runs a host call's result with each step (TF's _OutfeedHostCallHook)."""

    def __init__(self, tensors):
        self._tensors = tensors

    def begin(self):
        from tideflow import contrib_summary_v2 as summary

        self._init_ops = summary.summary_writer_initializer_op()
        self._finalize_ops = [summary.flush(writer=op.inputs[0]) for op in self._init_ops]

    def after_create_session(self, session, coord):
        session.run(self._init_ops)

    def before_run(self, run_context):
        return SessionRunArgs(self._tensors)

    def end(self, session):
        session.run(self._finalize_ops)


def _check_metric_tuple(value, name):
    if not isinstance(value, (tuple, list)) or len(value) != 2 or not callable(value[0]):
        raise ValueError(f"{name} should be tuple of 2 elements: (fn, tensors). Got "
                         f"{value}")
    if not isinstance(value[1], (tuple, list, dict)):
        raise ValueError(f"{name}[1] should be a list or dict of tensors. Got {value[1]}")  # noqa: TRY004 - as TF


def _call_with_tensors(fn, tensors):
    if isinstance(tensors, dict):
        return fn(**tensors)
    return fn(*tensors)


class TPUEstimator(estimator_lib.Estimator):
    """An Estimator with per-mode batch sizes given to ``input_fn``/``model_fn`` through
    ``params['batch_size']``. Runs on the CPU; ``use_tpu=True`` is accepted with a warning."""

    def __init__(self, model_fn=None, model_dir=None, config=None, params=None, use_tpu=True,
                 train_batch_size=None, eval_batch_size=None, predict_batch_size=None,
                 batch_axis=None, eval_on_tpu=True, export_to_tpu=True, export_to_cpu=True,
                 warm_start_from=None, embedding_config_spec=None,
                 export_saved_model_api_version=None):
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(k in params for k in _RESERVED_PARAMS_KEYS):
            raise ValueError(f"{_RESERVED_PARAMS_KEYS} are reserved keys but existed in "
                             f"params {params}.")
        if use_tpu:
            logging.warning("TPUEstimator: no TPU here; running on the CPU as with "
                            "use_tpu=False.")
        for name, value in (("train_batch_size", train_batch_size),
                            ("eval_batch_size", eval_batch_size),
                            ("predict_batch_size", predict_batch_size)):
            if value is not None and (not isinstance(value, int) or value <= 0):
                raise ValueError(f"`{name}` must be a positive integer, got {value}")
        self._batch_sizes = {ModeKeys.TRAIN: train_batch_size, ModeKeys.EVAL: eval_batch_size,
                             ModeKeys.PREDICT: predict_batch_size}
        self._use_tpu = use_tpu
        self._user_model_fn = model_fn

        def wrapped_model_fn(features, labels, mode, config, params):
            args = estimator_lib.fn_args(model_fn)
            kwargs = {}
            if "labels" in args:
                kwargs["labels"] = labels
            if "mode" in args:
                kwargs["mode"] = mode
            if "config" in args:
                kwargs["config"] = config
            if "params" in args:
                kwargs["params"] = self._params_for(mode, params)
            spec = model_fn(features=features, **kwargs)
            if isinstance(spec, TPUEstimatorSpec):
                spec = spec.as_estimator_spec()
            return spec

        # the wrapped model_fn always takes params (as TF: never None, so no warning about it)
        super().__init__(model_fn=wrapped_model_fn, model_dir=model_dir, config=config,
                         params=params or {}, warm_start_from=warm_start_from)

    def _params_for(self, mode, params):
        params = dict(params or {})
        batch_size = self._batch_sizes.get(mode)
        if batch_size is not None:
            params[_BATCH_SIZE_KEY] = batch_size
        params[_USE_TPU_KEY] = False
        return params

    def _call_input_fn(self, input_fn, mode):
        if mode == ModeKeys.TRAIN and self._batch_sizes[ModeKeys.TRAIN] is None:
            raise ValueError("`train_batch_size` cannot be `None`")
        args = estimator_lib.fn_args(input_fn)
        kwargs = {}
        if "params" in args:
            kwargs["params"] = self._params_for(mode, self._params)
        if "mode" in args:
            kwargs["mode"] = mode
        if "config" in args:
            kwargs["config"] = self.config
        return input_fn(**kwargs)


def export_estimator_savedmodel(estimator, export_dir_base, serving_input_receiver_fn,
                                assets_extra=None, as_text=False, checkpoint_path=None):
    """``tf.contrib.tpu.export_estimator_savedmodel``: exports ``estimator`` (a TPUEstimator
    or a plain Estimator) for CPU serving, restored from ``checkpoint_path`` or its latest
    checkpoint; returns the new timestamped directory (bytes). With no TPU here the CPU graph
    is the whole export."""
    return estimator.export_saved_model(export_dir_base, serving_input_receiver_fn,
                                        assets_extra=assets_extra, as_text=as_text,
                                        checkpoint_path=checkpoint_path)


class CrossShardOptimizer(optimizer_lib.Optimizer):
    """``tf.contrib.tpu.CrossShardOptimizer``: sums the gradients over the TPU shards before
    the wrapped optimizer applies them. Here there is one shard (TPUEstimator runs on the CPU),
    so the gradients are the wrapped optimizer's own, as TF's with one shard; BERT-style
    programs wrap their optimizer this way when run with ``use_tpu=True``."""

    def __init__(self, opt, reduction="weighted_mean", name="CrossShardOptimizer",
                 group_assignment=None):
        from tideflow.losses import Reduction

        accepted = (Reduction.SUM, Reduction.MEAN)
        if reduction not in accepted:
            raise ValueError(f"Argument `reduction` should be one of {accepted}. Received: "
                             f"{reduction}")
        if not isinstance(opt, optimizer_lib.Optimizer):
            raise TypeError(f"CrossShardOptimizer only works with tf.training.Optimizer and not "
                            f"Keras Optimizer. Received: {opt}")
        if group_assignment is not None and [list(g) for g in group_assignment] != [[0]]:
            raise ValueError(f"CrossShardOptimizer: group_assignment {group_assignment} names "
                             "replicas other than the single one (replica 0) this CPU run has")
        super().__init__(False, name)
        self._opt = opt
        self._reduction = reduction
        self._group_assignment = group_assignment
        self._warned = False

    def compute_gradients(self, loss, var_list=None, **kwargs):
        if not self._warned:
            logging.warning("CrossShardOptimizer should be used within a tpu_shard_context, "
                            "but got unset number_of_shards. Assuming 1.")
            self._warned = True
        return self._opt.compute_gradients(loss, var_list=var_list, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        # the cross-replica sum over one replica is the gradient itself
        return self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()


__all__ = ["CrossShardOptimizer", "InputPipelineConfig", "RunConfig", "TPUConfig",
           "TPUEstimator", "TPUEstimatorSpec", "export_estimator_savedmodel"]
