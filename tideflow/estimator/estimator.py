"""``tf.estimator.Estimator``: trains, evaluates, predicts with and exports a ``model_fn``,
each call in a fresh graph over a monitored session that restores the latest checkpoint of
``model_dir``."""

import collections
import copy
import functools
import inspect
import os
import shutil
import tempfile
import time

import numpy as np

from tideflow import logging
from tideflow.compat import as_bytes, as_text
from tideflow.estimator import export as export_lib
from tideflow.estimator import run_config as run_config_lib
from tideflow.estimator.model_fn import LOSS_METRIC_KEY, EstimatorSpec, ModeKeys
from tideflow.framework import errors, ops, random_seed
from tideflow.ops import control_flow_ops, dataset_ops, iterator_ops
from tideflow.ops import saved_model_impl as sm
from tideflow.protos import summary_pb2
from tideflow.runtime import session as session_lib
from tideflow.summary import summary as summary_lib
from tideflow.summary.writer import FileWriterCache
from tideflow.train import (
    basic_hooks,
    checkpoint_management,
    checkpoint_utils,
    monitored_session,
    session_run_hook,
    training_util,
    warm_starting,
)
from tideflow.train import saver as saver_lib
from tideflow.train.warm_starting import VocabInfo  # tf.estimator.VocabInfo is tf.train's

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}
GLOBAL_STEP = "global_step"


def fn_args(fn):
    """The argument names ``fn`` accepts (``self`` and partial-bound ones left out)."""
    if isinstance(fn, functools.partial):
        args = fn_args(fn.func)
        args = args[len(fn.args):]
        return tuple(a for a in args if a not in (fn.keywords or {}))
    if not callable(fn):
        raise TypeError("unsupported callable")  # inspect's words, as TF's fn_args
    if not (inspect.isfunction(fn) or inspect.ismethod(fn) or inspect.isclass(fn)):
        fn = fn.__call__
    return tuple(name for name, p in inspect.signature(fn).parameters.items()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))


def _check_hooks_type(hooks, message="Hooks must be a SessionRunHook, given: {}"):
    hooks = list(hooks or [])
    for h in hooks:
        if not isinstance(h, session_run_hook.SessionRunHook):
            raise TypeError(message.format(h))
    return hooks


def _check_listeners_type(listeners):
    listeners = list(listeners or [])
    for listener in listeners:
        if not isinstance(listener, basic_hooks.CheckpointSaverListener):
            raise TypeError("saving_listeners must be a list of CheckpointSaverListener, "
                            f"given: {listener}")
    return listeners


class _DatasetInitializerHook(session_run_hook.SessionRunHook):
    """Initializes the input ``Dataset``'s iterator when the session is created."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


class _StopAfterNEvalsHook(session_run_hook.SessionRunHook):
    """Stops evaluation after ``num_evals`` batches."""

    def __init__(self, num_evals, log_progress=True):
        self._num_evals = num_evals
        self._log_progress = log_progress
        self._done = 0

    def begin(self):
        self._done = 0

    def after_run(self, run_context, run_values):
        self._done += 1
        # about ten progress lines per evaluation, as TF logs
        every = max(1, self._num_evals // 10)
        if self._log_progress and (self._done % every == 0 or self._done == self._num_evals):
            logging.info("Evaluation [%d/%d]", self._done, self._num_evals)
        if self._done >= self._num_evals:
            run_context.request_stop()


def parse_input_fn_result(result):
    """(features, labels, input hooks) from what an ``input_fn`` returned."""
    input_hooks = []
    if isinstance(result, dataset_ops.Dataset):
        iterator = iterator_ops.make_initializable_iterator(result)
        input_hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1], input_hooks
    return result, None, input_hooks


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    try:
        return int(checkpoint_utils.load_variable(checkpoint_dir, ops.GraphKeys.GLOBAL_STEP))
    except Exception:  # noqa: BLE001 - no checkpoint, or no global step in it
        return 0


class WarmStartSettings(collections.namedtuple(
        "WarmStartSettings", ["ckpt_to_initialize_from", "vars_to_warm_start",
                              "var_name_to_vocab_info", "var_name_to_prev_var_name"])):
    """Where and what to warm-start from (as TF 1.15: the maps default to {})."""

    __slots__ = ()

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(cls, ckpt_to_initialize_from, vars_to_warm_start,
                               var_name_to_vocab_info or {}, var_name_to_prev_var_name or {})



def _warm_start(settings):
    """Initializes the chosen variables from ``settings.ckpt_to_initialize_from``, as TF's
    Estimator: ``tf.train.warm_start`` with the settings (partitioned variables by their whole
    names, renames and vocabulary remapping)."""
    logging.info("Warm-starting with WarmStartSettings: %s", settings)
    warm_starting.warm_start(*settings)


def _write_dict_to_summary(output_dir, dictionary, current_global_step):
    logging.info("Saving dict for global step %d: %s", current_global_step,
                 ", ".join(f"{k} = {dictionary[k]!s}" for k in sorted(dictionary)))
    writer = FileWriterCache.get(output_dir)
    proto = summary_pb2.Summary()
    for key, value in dictionary.items():
        if value is None or key == GLOBAL_STEP:
            continue
        if isinstance(value, (np.floating, float)) or (
                isinstance(value, np.ndarray) and value.shape == () and
                value.dtype.kind == "f"):
            proto.value.add(tag=key, simple_value=float(value))
        elif isinstance(value, (np.integer, int)) or (
                isinstance(value, np.ndarray) and value.shape == () and
                value.dtype.kind in "iu"):
            proto.value.add(tag=key, simple_value=int(value))
        elif isinstance(value, bytes):
            try:
                summ = summary_pb2.Summary.FromString(value)
                for i, v in enumerate(summ.value):  # tagged "<key>/<i>" as TF
                    v.tag = f"{key}/{i}"
                    proto.value.add().CopyFrom(v)
            except Exception:  # noqa: BLE001 - not a Summary: skipped as TF does
                logging.warning("Skipping summary for %s, cannot parse string to Summary.",
                                key)
        elif isinstance(value, np.ndarray):  # a tensor-valued metric: a tensor summary
            from tideflow.framework import tensor_util

            v = proto.value.add(tag=key, node_name=key)
            v.tensor.CopyFrom(tensor_util.make_tensor_proto(value))
        else:
            logging.warning("Skipping summary for %s, must be a float, np.float32, np.int64, "
                            "np.int32 or int or a serialized string of Summary.", key)
    writer.add_summary(proto, current_global_step)
    writer.flush()


_EXPORT_TAGS = {ModeKeys.TRAIN: ["train"], ModeKeys.EVAL: ["eval"],
                ModeKeys.PREDICT: ["serve"]}


def _supervised_signature_def(receiver_tensors, spec, mode):
    """The SignatureDef of a model exported for training or evaluation: its loss,
    predictions and metric values/updates (TF's ``TrainOutput``/``EvalOutput``)."""
    from tideflow.estimator.model_fn import metric_value_and_update
    from tideflow.ops import constant_op

    outputs = {}
    if spec.loss is not None:
        outputs["loss"] = spec.loss
    preds = spec.predictions
    if isinstance(preds, dict):
        outputs.update({f"predictions/{k}": v for k, v in preds.items()})
    elif preds is not None:
        outputs["predictions"] = preds
    for name, metric in spec.eval_metric_ops.items():
        value, update = metric_value_and_update(metric)
        if not isinstance(update, ops.Tensor):  # signatures hold tensors only
            with ops.control_dependencies([update]):
                update = constant_op.constant([], name="metric_op_wrapper")
        outputs[f"metrics/{name}/value"] = value
        outputs[f"metrics/{name}/update_op"] = update
    method = ("tensorflow/supervised/training" if mode == ModeKeys.TRAIN
              else "tensorflow/supervised/eval")
    return sm.build_signature_def(
        inputs={k: sm.build_tensor_info(t) for k, t in receiver_tensors.items()},
        outputs={k: sm.build_tensor_info(t) for k, t in outputs.items()}, method_name=method)


def _write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step):
    """Records which checkpoint an evaluation read, as a string tensor summary."""
    from tideflow.framework import dtypes, tensor_util

    logging.info("Saving 'checkpoint_path' summary for global step %d: %s", current_global_step,
                 checkpoint_path)
    proto = summary_pb2.Summary()
    proto.value.add(tag="checkpoint_path", tensor=tensor_util.make_tensor_proto(
        as_bytes(checkpoint_path), dtype=dtypes.string))
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(proto, current_global_step)
    writer.flush()


def _get_timestamped_export_dir(export_dir_base):
    for _ in range(10):
        export_dir = os.path.join(as_bytes(os.fspath(export_dir_base)),
                                  as_bytes(str(int(time.time()))))
        if not os.path.exists(export_dir):
            return export_dir
        time.sleep(1)
    raise RuntimeError("Failed to obtain a unique export directory name after 10 attempts.")


def _replica_device_setter(config):
    """TF 1.x's default device function in a cluster with ps tasks: variables round-robin
    on the ps tasks, everything else on this task."""
    if not config.task_type or not config.num_ps_replicas:
        return None
    from tideflow.train import device_setter

    return device_setter.replica_device_setter(
        ps_tasks=config.num_ps_replicas,
        worker_device=f"/job:{config.task_type}/task:{config.task_id}", merge_devices=True,
        ps_ops=list(device_setter.STANDARD_PS_OPS), cluster=config.cluster_spec)


def maybe_overwrite_model_dir_and_session_config(config, model_dir):
    """``config`` (a default RunConfig for None) with TF's default Estimator session config
    when it has none, and ``model_dir`` (or a new temporary folder when neither gives one)."""
    if config is None:
        config = run_config_lib.RunConfig()
        logging.info("Using default config.")
    if not isinstance(config, run_config_lib.RunConfig):
        raise ValueError(  # noqa: TRY004 - as TF
            f"config must be an instance of `RunConfig`, but provided {config}.")
    if config.session_config is None:
        from tideflow.protos import config_pb2, rewriter_config_pb2

        rewrite = rewriter_config_pb2.RewriterConfig(
            meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE)
        config = config.replace(session_config=config_pb2.ConfigProto(
            allow_soft_placement=True,
            graph_options=config_pb2.GraphOptions(rewrite_options=rewrite)))
    if model_dir is not None:
        model_dir = os.fspath(model_dir)
        if config.model_dir is not None and config.model_dir != model_dir:
            raise ValueError(
                "`model_dir` are set both in constructor and `RunConfig`, but with "
                f"different values. In constructor: '{model_dir}', in `RunConfig`: "
                f"'{config.model_dir}' ")
    if model_dir:
        config = config.replace(model_dir=model_dir)
    elif config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        config = config.replace(model_dir=model_dir)
    return config


class Estimator:
    """Trains and evaluates a model given by ``model_fn(features, labels, mode, params,
    config) -> EstimatorSpec``."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        # through the class, as TF: a library may replace this check (AdaNet does)
        self.__class__._assert_members_are_not_overridden(self)
        config = maybe_overwrite_model_dir_and_session_config(config, model_dir)
        self._config = config
        self._model_dir = config.model_dir
        self._session_config = config.session_config
        # TF prints the config's attribute dict: {'_model_dir': ..., '_tf_random_seed': ...},
        # before it checks model_fn
        logging.info("Using config: %s", str(vars(self._config)))
        if not callable(model_fn):
            raise ValueError(f"model_fn must be callable, given: {model_fn}")  # noqa: TRY004 - as TF
        _verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        if isinstance(warm_start_from, (str, bytes, os.PathLike)):
            warm_start_from = WarmStartSettings(ckpt_to_initialize_from=as_text(
                os.fspath(warm_start_from)))
        elif warm_start_from is not None and not isinstance(warm_start_from,
                                                              WarmStartSettings):
            raise ValueError("warm_start_from must be a string or a WarmStartSettings, "
                             f"instead got {type(warm_start_from)}")
        if warm_start_from is not None:
            # a SavedModel directory warm-starts from its variables checkpoint
            saved_vars = os.path.join(as_text(os.fspath(warm_start_from.ckpt_to_initialize_from)),
                                      "variables", "variables")
            if os.path.exists(saved_vars + ".index"):
                warm_start_from = warm_start_from._replace(ckpt_to_initialize_from=saved_vars)
        self._warm_start_settings = warm_start_from
        self._device_fn = self._config.device_fn or _replica_device_setter(self._config)

    # --- properties -----------------------------------------------------------------------

    @property
    def config(self):
        return copy.deepcopy(self._config)

    @property
    def params(self):
        return copy.deepcopy(self._params)

    @property
    def model_dir(self):
        return self._model_dir

    @property
    def model_fn(self):
        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)
        return public_model_fn

    def _assert_members_are_not_overridden(self):
        """Raises ValueError when a subclass redefines one of Estimator's own members."""
        _assert_members_are_not_overridden(self)

    def eval_dir(self, name=None):
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    def latest_checkpoint(self):
        return checkpoint_management.latest_checkpoint(self._model_dir)

    def _check_checkpoint_available(self):
        if not self.latest_checkpoint():
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")

    def get_variable_names(self):
        self._check_checkpoint_available()
        return [name for name, _ in checkpoint_utils.list_variables(self._model_dir)]

    def get_variable_value(self, name):
        self._check_checkpoint_available()
        return checkpoint_utils.load_variable(self._model_dir, name)

    # --- calling input_fn and model_fn ------------------------------------------------------

    def _call_input_fn(self, input_fn, mode):
        args = fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        with ops.device("/cpu:0"):
            return input_fn(**kwargs)

    def _get_features_and_labels(self, input_fn, mode):
        return parse_input_fn_result(self._call_input_fn(input_fn, mode))

    def _call_model_fn(self, features, labels, mode, config):
        args = fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        spec = self._model_fn(features=features, **kwargs)
        logging.info("Done calling model_fn.")
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")  # noqa: TRY004 - as TF
        return spec

    def _maybe_warm_start(self, checkpoint_path):
        """Evaluate and predict without a checkpoint start from the warm-start source."""
        if not checkpoint_path and self._warm_start_settings:
            _warm_start(self._warm_start_settings)

    def _new_graph_setup(self, graph):
        random_seed.set_random_seed(self._config.tf_random_seed)
        return self._create_and_assert_global_step(graph)

    def _create_global_step(self, graph):
        """The global step of a new train/eval/predict graph (a subclass may make its own)."""
        return training_util.get_or_create_global_step(graph)

    def _create_and_assert_global_step(self, graph):
        """``_create_global_step``, checked to be the graph's integer global step."""
        step = self._create_global_step(graph)
        if step is not training_util.get_global_step(graph) or not step.dtype.is_integer:
            raise AssertionError(f"{step} is not the integer global step of its graph")
        return step

    # --- train ------------------------------------------------------------------------------

    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains for ``steps`` more steps, up to ``max_steps`` in all, or until the input
        runs out; returns ``self``."""
        if self._config.task_type in (run_config_lib.TaskType.EVALUATOR,
                                      run_config_lib.TaskType.PS):
            raise ValueError(
                "Train has been called wrong configuration. Please use "
                "tf.estimator.train_and_evaluate which calls proper API according to given "
                f"configuration. Current configuration: {self._config}.")
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            start_step = _load_global_step_from_checkpoint_dir(self._model_dir)
            if max_steps <= start_step:
                logging.info("Skipping training since max_steps has already saved.")
                return self
        hooks = _check_hooks_type(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(basic_hooks.StopAtStepHook(steps, max_steps))
        saving_listeners = _check_listeners_type(saving_listeners)
        loss = self._train_model(input_fn, hooks, saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, saving_listeners):
        if self._config.train_distribute is not None:
            from tideflow.distribute.estimator_training import train_distributed

            return train_distributed(self, input_fn, hooks, saving_listeners)
        with ops.Graph().as_default() as g, g.device(self._device_fn):
            global_step_tensor = self._new_graph_setup(g)
            if global_step_tensor is not None:  # as TF 1.15, the hooks' read of the step
                training_util._get_or_create_global_step_read(g)
            features, labels, input_hooks = self._get_features_and_labels(input_fn,
                                                                         ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
            global_step_tensor = training_util.get_global_step(g)
            return self._train_with_estimator_spec(spec, input_hooks + hooks,
                                                   global_step_tensor, saving_listeners)

    def _train_with_estimator_spec(self, spec, worker_hooks, global_step_tensor,
                                   saving_listeners):
        if self._warm_start_settings:
            _warm_start(self._warm_start_settings)
        if not any(s.op.name == "loss" or s.op.name.endswith("/loss")
                   for s in ops.get_collection(ops.GraphKeys.SUMMARIES)):
            summary_lib.scalar("loss", spec.loss)
        ops.add_to_collection(ops.GraphKeys.LOSSES, spec.loss)
        worker_hooks = list(worker_hooks)
        worker_hooks.append(basic_hooks.NanTensorHook(spec.loss))
        if self._config.log_step_count_steps:
            worker_hooks.append(basic_hooks.LoggingTensorHook(
                {"loss": spec.loss, "step": global_step_tensor},
                every_n_iter=self._config.log_step_count_steps))
        worker_hooks.extend(spec.training_hooks)

        if not (spec.scaffold.saver or ops.get_collection(ops.GraphKeys.SAVERS)):
            ops.add_to_collection(ops.GraphKeys.SAVERS, saver_lib.Saver(
                sharded=True, max_to_keep=self._config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
                defer_build=True, save_relative_paths=True))

        chief_hooks = []
        all_hooks = worker_hooks + list(spec.training_chief_hooks)
        saver_hooks = [h for h in all_hooks if isinstance(h, basic_hooks.CheckpointSaverHook)]
        if (self._config.save_checkpoints_secs or self._config.save_checkpoints_steps) and (
                not saver_hooks):
            chief_hooks = [basic_hooks.CheckpointSaverHook(
                self._model_dir, save_secs=self._config.save_checkpoints_secs,
                save_steps=self._config.save_checkpoints_steps, scaffold=spec.scaffold)]
            saver_hooks = chief_hooks
        if saving_listeners:
            if not saver_hooks:
                raise ValueError(
                    "There should be a CheckpointSaverHook to use saving_listeners. Please set "
                    "one of the RunConfig.save_checkpoints_steps or "
                    "RunConfig.save_checkpoints_secs.")
            saver_hooks[0]._listeners.extend(saving_listeners)

        loss = None
        any_step_done = False
        with monitored_session.MonitoredTrainingSession(
                master=self._config.master, is_chief=self._config.is_chief,
                checkpoint_dir=self._model_dir,
                scaffold=spec.scaffold, hooks=worker_hooks,
                chief_only_hooks=tuple(chief_hooks) + tuple(spec.training_chief_hooks),
                save_checkpoint_secs=0, save_summaries_steps=self._config.save_summary_steps,
                config=self._session_config,
                log_step_count_steps=self._config.log_step_count_steps) as mon_sess:
            while not mon_sess.should_stop():
                _, loss = mon_sess.run([spec.train_op, spec.loss])
                any_step_done = True
        if not any_step_done:
            logging.warning("Training with estimator made no steps. Perhaps input is empty or "
                            "misspecified.")
        return loss

    # --- evaluate ---------------------------------------------------------------------------

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates the model on ``steps`` batches (or the whole input); returns the metric
        values with ``loss`` and ``global_step``, and writes them to ``eval_dir(name)``."""
        hooks = _check_hooks_type(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError(f"Must specify steps > 0, given: {steps}")
            hooks.append(_StopAfterNEvalsHook(num_evals=steps))
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                logging.info("Could not find trained model in model_dir: %s, running "
                             "initialization to evaluate.", self._model_dir)
        with ops.Graph().as_default():
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(input_fn,
                                                                                   hooks)
            self._maybe_warm_start(checkpoint_path)
            return self._evaluate_run(checkpoint_path, scaffold, update_op, eval_dict,
                                      all_hooks, self.eval_dir(name))

    def _evaluate_build_graph(self, input_fn, hooks):
        """In the default graph: the eval model, its metric update op and values (with
        ``loss`` and ``global_step``), and the hooks of an evaluation."""
        if self._config.eval_distribute is not None:
            from tideflow.distribute.estimator_training import evaluate_build_graph

            return evaluate_build_graph(self, input_fn, hooks)
        self._new_graph_setup(ops.get_default_graph())
        features, labels, input_hooks = self._get_features_and_labels(input_fn, ModeKeys.EVAL)
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
        # as TF, read after the model: a model may bring its own (SavedModelEstimator's)
        global_step_tensor = training_util.get_global_step(ops.get_default_graph())
        if LOSS_METRIC_KEY in spec.eval_metric_ops:
            raise ValueError(f'Metric with name "{LOSS_METRIC_KEY}" is not allowed, because '
                             "Estimator already defines a default metric with the same name.")
        from tideflow import metrics as metrics_lib
        from tideflow.estimator.model_fn import metric_value_and_update

        metric_ops = {k: metric_value_and_update(v) for k, v in spec.eval_metric_ops.items()}
        metric_ops[LOSS_METRIC_KEY] = metrics_lib.mean(spec.loss)
        if GLOBAL_STEP in metric_ops:
            raise ValueError("Metric with name `global_step` is not allowed, because Estimator "
                             "already defines a default metric with the same name.")
        # as TF, the metrics in name order (the dict evaluate returns), then the global step
        update_op = control_flow_ops.group(*[metric_ops[k][1] for k in sorted(metric_ops)])
        eval_dict = {k: metric_ops[k][0] for k in sorted(metric_ops)}
        eval_dict[GLOBAL_STEP] = global_step_tensor
        all_hooks = list(input_hooks) + list(hooks) + list(spec.evaluation_hooks)
        scaffold = spec.scaffold
        if scaffold is not None and scaffold.local_init_op is not None:
            # the metrics above are local variables the model_fn's own local_init_op does not
            # know: TF runs it together with the default one
            scaffold = monitored_session.Scaffold(
                local_init_op=control_flow_ops.group(
                    scaffold.local_init_op, monitored_session.Scaffold.default_local_init_op()),
                copy_from_scaffold=scaffold)
        return scaffold, update_op, eval_dict, all_hooks

    def _evaluate_run(self, checkpoint_path, scaffold, update_op, eval_dict, all_hooks,
                      output_dir):
        final_hook = basic_hooks.FinalOpsHook(eval_dict)
        creator = monitored_session.ChiefSessionCreator(
            scaffold=scaffold, checkpoint_filename_with_path=checkpoint_path,
            master=self._config.evaluation_master, config=self._session_config)
        logging.info("Starting evaluation at "
                     + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        with monitored_session.MonitoredSession(session_creator=creator,
                                                hooks=list(all_hooks) + [final_hook]) as sess:
            while not sess.should_stop():
                sess.run(update_op)
        results = final_hook.final_ops_values
        logging.info("Finished evaluation at "
                     + time.strftime("%Y-%m-%d-%H:%M:%S", time.gmtime()))
        _write_dict_to_summary(output_dir, results, int(results[GLOBAL_STEP]))
        if checkpoint_path:
            _write_checkpoint_path_to_summary(output_dir, checkpoint_path,
                                              int(results[GLOBAL_STEP]))
        return results

    # --- predict ----------------------------------------------------------------------------

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields the predictions, one example at a time (or one batch at a time)."""
        hooks = _check_hooks_type(hooks)
        if not checkpoint_path:
            checkpoint_path = self.latest_checkpoint()
            if not checkpoint_path:
                logging.info("Could not find trained model in model_dir: %s, running "
                             "initialization to predict.", self._model_dir)
        with ops.Graph().as_default() as g:
            self._new_graph_setup(g)
            features, _, input_hooks = self._get_features_and_labels(input_fn,
                                                                     ModeKeys.PREDICT)
            self._validate_features_in_predict_input(features)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            self._maybe_warm_start(checkpoint_path)
            predictions = self._extract_keys(spec.predictions, predict_keys)
            all_hooks = list(input_hooks) + hooks + list(spec.prediction_hooks)
            creator = monitored_session.ChiefSessionCreator(
                checkpoint_filename_with_path=checkpoint_path, master=self._config.master,
                scaffold=spec.scaffold, config=self._session_config)
            with monitored_session.MonitoredSession(session_creator=creator,
                                                    hooks=all_hooks) as sess:
                while not sess.should_stop():
                    values = sess.run(predictions)
                    if not yield_single_examples:
                        yield values
                    elif not isinstance(predictions, dict):
                        yield from values
                    else:
                        for i in range(self._extract_batch_length(values)):
                            yield {key: value[i] for key, value in values.items()}

    def _validate_features_in_predict_input(self, features):
        # an input that neither comes from a dataset nor a queue never ends
        from tideflow.framework import nest

        if any(getattr(getattr(t, "op", None), "type", None) == "IteratorGetNext"
               for t in nest.flatten(features)):
            return
        if not ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
            logging.warning("Input graph does not use tf.data.Dataset or contain a "
                            "QueueRunner. That means predict yields forever. This is "
                            "probably a mistake.")

    @staticmethod
    def _extract_keys(predictions, predict_keys):
        if predict_keys is None:
            return predictions
        if not isinstance(predictions, dict):
            raise ValueError("predict_keys argument is not valid in case of non-dict "  # noqa: TRY004 - as TF
                             "predictions.")
        if isinstance(predict_keys, str):
            predict_keys = [predict_keys]
        existing = predictions.keys()
        picked = {k: v for k, v in predictions.items() if k in predict_keys}
        if not picked:
            raise ValueError(f"Expected to run at least one output from {existing}, provided "
                             f"{predict_keys}.")
        return picked

    @staticmethod
    def _extract_batch_length(values):
        # TF 1.15's: a scalar prediction is numpy's IndexError, and a 0-row one takes the
        # next one's length (``length or``)
        length = None
        for key, value in values.items():
            rows = np.shape(value)[0]
            length = length or rows
            if rows != length:
                raise ValueError(f"Batch length of predictions should be same. {key} has "
                                 "different batch length than others.")
        return length

    # --- export -----------------------------------------------------------------------------

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                           assets_extra=None, as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT):
        """Exports the model, restored from the latest checkpoint, as a SavedModel in a new
        timestamped directory under ``export_dir_base``; returns its path (bytes)."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_all_saved_models(
            export_dir_base, {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path)

    def experimental_export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                             assets_extra=None, as_text=False,
                                             checkpoint_path=None):
        """Exports one SavedModel holding a MetaGraphDef per mode of ``input_receiver_fn_map``
        (TRAIN and EVAL take supervised receivers, PREDICT a serving one)."""
        return self._export_all_saved_models(export_dir_base, input_receiver_fn_map,
                                             assets_extra=assets_extra, as_text=as_text,
                                             checkpoint_path=checkpoint_path)

    def _export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                 assets_extra=None, as_text=False, checkpoint_path=None,
                                 strip_default_attrs=True):
        for mode in input_receiver_fn_map:
            if mode not in _EXPORT_TAGS:
                raise ValueError(f"Unknown mode {mode}; expected one of "
                                 f"{sorted(_EXPORT_TAGS)}.")
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path and self._warm_start_settings:
            # nothing trained yet: export the warm-start source's values
            checkpoint_path = self._warm_start_settings.ckpt_to_initialize_from
            if os.path.isdir(checkpoint_path):
                checkpoint_path = checkpoint_management.latest_checkpoint(checkpoint_path)
        if not checkpoint_path:
            raise ValueError(f"Couldn't find trained model at {self._model_dir}.")
        export_dir = _get_timestamped_export_dir(export_dir_base)
        # TF 1.15 formats the bytes basename into the name: "temp-b'1700000000'"
        temp_dir = os.path.join(os.path.dirname(export_dir),
                                f"temp-{os.path.basename(export_dir)!r}".encode())
        builder = sm.SavedModelBuilder(as_text_path(temp_dir))
        # TF's order: TRAIN, EVAL, then PREDICT; the first saves the variables
        modes = [m for m in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)
                 if input_receiver_fn_map.get(m)]
        for i, mode in enumerate(modes):
            self._add_meta_graph_for_mode(builder, input_receiver_fn_map[mode],
                                          checkpoint_path, mode, save_variables=(i == 0),
                                          strip_default_attrs=strip_default_attrs)
        builder.save(as_text)
        if assets_extra:
            extra_dir = os.path.join(as_text_path(temp_dir), "assets.extra")
            for dest, source in assets_extra.items():
                target = os.path.join(extra_dir, dest)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target)
        os.rename(temp_dir, export_dir)
        return export_dir

    def _add_meta_graph_for_mode(self, builder, input_receiver_fn, checkpoint_path, mode,
                                 save_variables, strip_default_attrs=True):
        with ops.Graph().as_default() as g:
            self._new_graph_setup(g)
            receiver = input_receiver_fn()
            if mode == ModeKeys.PREDICT:
                spec = self._call_model_fn(receiver.features, None, mode, self.config)
                signatures = export_lib.build_all_signature_defs(
                    receiver.receiver_tensors, spec.export_outputs,
                    receiver.receiver_tensors_alternatives)
            else:
                labels = getattr(receiver, "labels", None)
                spec = self._call_model_fn(receiver.features, labels, mode, self.config)
                signatures = {mode: _supervised_signature_def(receiver.receiver_tensors,
                                                              spec, mode)}
            with session_lib.Session(config=self._session_config) as sess:
                local_init_op = (spec.scaffold.local_init_op
                                 or monitored_session.Scaffold.default_local_init_op())
                saver = spec.scaffold.saver or saver_lib.Saver(sharded=True)
                try:
                    saver.restore(sess, checkpoint_path)
                except errors.NotFoundError as e:
                    raise ValueError(  # TF 1.15's words, its error after them
                        "Could not load all requested variables from checkpoint. Please make "
                        "sure your model_fn does not expect variables that were not saved in "
                        f"the checkpoint.\n\nEncountered error with mode `{mode}` while "
                        f"restoring checkpoint from: `{checkpoint_path}`. Full Traceback:\n\n"
                        f"{e}") from e
                # as TF (a no-op for PREDICT, whose spec has no train_op)
                builder._add_train_op(spec.train_op)
                common = {"signature_def_map": signatures, "main_op": local_init_op,
                          "saver": saver, "strip_default_attrs": strip_default_attrs}
                assets = ops.get_collection(ops.GraphKeys.ASSET_FILEPATHS)
                if save_variables:
                    builder.add_meta_graph_and_variables(sess, _EXPORT_TAGS[mode],
                                                         assets_collection=assets, **common)
                else:
                    builder.add_meta_graph(_EXPORT_TAGS[mode], assets_collection=assets,
                                           **common)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn,
                          assets_extra=None, as_text=False, checkpoint_path=None,
                          strip_default_attrs=False):
        """Deprecated form of ``export_saved_model`` (as TF 1.15, it keeps default-valued
        attributes unless told to strip them)."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_all_saved_models(
            export_dir_base, {ModeKeys.PREDICT: serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs)


def as_text_path(path):
    return as_text(path) if isinstance(path, bytes) else path


# Members a subclass may redefine (TF's list of hooks for canned and TPU estimators).
_OVERRIDABLE_MEMBERS = frozenset({
    "_call_input_fn", "_create_and_assert_global_step", "_export_all_saved_models",
    "_add_meta_graph_for_mode", "_validate_features_in_predict_input", "latest_checkpoint",
    "_tf_api_names", "_tf_api_names_v1", "_estimator_api_names", "_estimator_api_names_v1",
    "_estimator_api_constants", "_estimator_api_constants_v1",
})


def _assert_members_are_not_overridden(obj):
    """TF forbids a user's subclass to redefine Estimator's own members (its train, predict,
    ...); new members are fine. tideflow's canned subclasses are trusted."""
    cls = type(obj)
    if cls is Estimator or cls.__module__.startswith("tideflow."):
        return
    common = (set(vars(cls)) & {m for m in dir(Estimator) if not m.startswith("__")}
              ) - _OVERRIDABLE_MEMBERS
    overridden = sorted(m for m in common if getattr(Estimator, m) != getattr(cls, m))
    if overridden:
        raise ValueError("Subclasses of Estimator cannot override members of Estimator. "
                         f"{cls} does override {overridden}")


def _verify_model_fn_args(model_fn, params):
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but params "
                         f"({params}) is passed to Estimator.")
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params are "
                        "not passed to Estimator.", model_fn)
    bad = sorted(args - _VALID_MODEL_FN_ARGS)
    if bad:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {bad}")


__all__ = ["Estimator", "VocabInfo", "WarmStartSettings"]
