"""``tf.estimator.RunConfig``: where and how often an Estimator checkpoints and summarizes, and
(from ``TF_CONFIG``, as TF 1.x) which task of which cluster this process is."""

import copy
import json
import os

_USE_DEFAULT = object()

_REPLACEABLE = [  # TF 1.15's order (its error message lists them)
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute", "device_fn",
    "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs"]


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def _tf_config():
    from tideflow import env

    value = env.tf_config()
    if value is None:
        return {}
    value = json.loads(value)  # as TF: bad JSON is json's own error (a ValueError)
    if not isinstance(value, dict):
        raise ValueError(  # noqa: TRY004 - a bad setting, not a bad argument
            f"TF_CONFIG must be a JSON object, got {type(value).__name__}")
    return value


def _task_type_and_id(cluster_spec, task_env, chief_task_type):
    """This task's type and index, checked as TF 1.x checks them: the chief job first, then
    that the task is set, then its index and type."""
    if chief_task_type not in cluster_spec.jobs:
        raise ValueError(f'If "cluster" is set in TF_CONFIG, it must have one '
                         f'"{chief_task_type}" node.')
    if len(cluster_spec.job_tasks(chief_task_type)) > 1:
        raise ValueError(f'The "cluster" in TF_CONFIG must have only one '
                         f'"{chief_task_type}" node.')
    task_type = task_env.get("type")
    task_id = task_env.get("index")
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError("Task index must be non-negative number.")
    if task_type == TaskType.EVALUATOR:  # not part of the training cluster
        return task_type, task_id
    if task_type not in cluster_spec.jobs:
        raise ValueError(f"{task_type} is not a valid task_type in the cluster_spec:\n"
                         f"{cluster_spec}\n\nNote that these values may be coming from the "
                         "TF_CONFIG environment variable.")
    if task_id >= len(cluster_spec.job_tasks(task_type)):
        raise ValueError(f"{task_id} is not a valid task_id for task_type {task_type} in the "
                         f"cluster_spec:\n{cluster_spec}\n\nNote that these values may be "
                         "coming from the TF_CONFIG environment variable.")
    return task_type, task_id


def _session_master(cluster_spec, task_type, task_id, tf_config):
    if "session_master" in tf_config:
        return tf_config["session_master"]
    jobs = cluster_spec.jobs
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return ""  # a one-node cluster runs locally
    return "grpc://" + cluster_spec.task_address(task_type, task_id)


def _global_id(cluster_spec, task_type, task_id, chief_task_type):
    """As TF: the chief first, then the other jobs in name order, the ps job last."""
    order = [chief_task_type] if chief_task_type in cluster_spec.jobs else []
    order += [j for j in sorted(cluster_spec.jobs) if j not in (chief_task_type, TaskType.PS)]
    if TaskType.PS in cluster_spec.jobs:
        order.append(TaskType.PS)
    gid = 0
    for job in order:
        if job == task_type:
            return gid + task_id
        gid += len(cluster_spec.job_tasks(job))
    raise RuntimeError(f"task_type {task_type} is not in the cluster_spec {cluster_spec}")


def _validate(config):
    """TF 1.x's checks of a RunConfig's settings (at construction and after ``replace``)."""
    from tideflow.protos import config_pb2

    def check(name, ok, message):
        value = getattr(config, "_" + name)
        if value is not None and not ok(value):
            raise ValueError(message)

    check("model_dir", lambda v: bool(v), "model_dir should be non-empty")
    check("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0")
    check("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0")
    check("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0")
    check("session_config", lambda v: isinstance(v, config_pb2.ConfigProto),
          "session_config must be instance of ConfigProto")
    check("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0")
    check("keep_checkpoint_every_n_hours", lambda v: v > 0,
          "keep_checkpoint_every_n_hours should be > 0")
    check("log_step_count_steps", lambda v: v > 0, "log_step_count_steps should be > 0")
    check("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer.")
    check("experimental_max_worker_delay_secs", lambda v: isinstance(v, int),
          "experimental_max_worker_delay_secs must be an integer if set.")
    check("session_creation_timeout_secs", lambda v: v > 0,
          "session_creation_timeout_secs should be > 0")
    check("device_fn", _is_device_fn, 'device_fn must be callable with exactly one argument "op".')


def _is_device_fn(fn):
    import inspect

    if not callable(fn):
        return False
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return True
    return params == ["op"]


_BOTH_CKPT = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."


class RunConfig:
    """The run-time settings of an Estimator; the cluster and this task come from the
    ``TF_CONFIG`` environment variable (JSON ``{"cluster": ..., "task": {"type", "index"}}``)
    read when the config is made, as in TF 1.x."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100, train_distribute=None, device_fn=None, protocol=None,
                 eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None, session_creation_timeout_secs=7200):
        if (save_checkpoints_steps is not _USE_DEFAULT
                and save_checkpoints_secs is not _USE_DEFAULT
                and save_checkpoints_steps is not None and save_checkpoints_secs is not None):
            raise ValueError(_BOTH_CKPT)
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        tf_config = _tf_config()
        if model_dir is not None:
            model_dir = os.fspath(model_dir)
            if not model_dir:
                raise ValueError("model_dir should be non-empty.")
        if "model_dir" in tf_config:  # as TF: TF_CONFIG may give the model_dir
            in_config = tf_config["model_dir"]
            if not in_config:
                raise ValueError("model_dir in TF_CONFIG should be non-empty.")
            if model_dir and model_dir != in_config:
                raise ValueError("`model_dir` provided in RunConfig construct, if set, must have "
                                 "the same value as the model_dir in TF_CONFIG. model_dir: "
                                 f"{model_dir}\nTF_CONFIG[\"model_dir\"]: {in_config}.\n")
            model_dir = model_dir or in_config
        service = tf_config.get("service")
        if service is not None and not isinstance(service, dict):
            raise TypeError(f'If "service" is set in TF_CONFIG, it must be a dict. Given {service}')
        self._model_dir = model_dir
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute = train_distribute
        self._device_fn = device_fn
        self._protocol = protocol
        self._eval_distribute = eval_distribute
        self._experimental_distribute = experimental_distribute
        if experimental_distribute is not None:  # a tf.contrib.distribute.DistributeConfig
            self._train_distribute = (train_distribute
                                      or getattr(experimental_distribute, "train_distribute", None))
            self._eval_distribute = (eval_distribute
                                     or getattr(experimental_distribute, "eval_distribute", None))
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._service = service  # after the settings, where TF 1.15's logged config shows it
        _validate(self)
        self._init_cluster(tf_config)
        # the cluster attributes in TF 1.15's order (its config log line and vars() show it)
        cluster = tf_config.get("cluster") or {}
        if not cluster or TaskType.MASTER in cluster:
            order = ("_global_id_in_cluster", "_master", "_evaluation_master")
            order += ("_num_ps_replicas", "_num_worker_replicas", "_is_chief") if cluster else (
                "_is_chief", "_num_ps_replicas", "_num_worker_replicas")
        else:
            order = ("_evaluation_master", "_master", "_num_ps_replicas",
                     "_num_worker_replicas", "_global_id_in_cluster", "_is_chief")
        for name in order:
            self.__dict__[name] = self.__dict__.pop(name)

    def _init_cluster(self, tf_config):
        from tideflow.distributed.cluster import ClusterSpec

        self._cluster_spec = ClusterSpec(tf_config.get("cluster") or {})
        task_env = tf_config.get("task") or {}
        if self._cluster_spec:
            jobs = self._cluster_spec.jobs
            chief = TaskType.MASTER if TaskType.MASTER in jobs else TaskType.CHIEF
            if chief == TaskType.MASTER and TaskType.CHIEF in jobs:
                raise ValueError("If `master` node exists in `cluster`, job `chief` is not "
                                 "supported.")
            self._task_type, self._task_id = _task_type_and_id(self._cluster_spec, task_env,
                                                               chief)
            if self._task_type == TaskType.EVALUATOR and chief == TaskType.MASTER:
                raise ValueError("If `master` node exists in `cluster`, task_type `evaluator` "
                                 "is not supported.")
            self._evaluation_master = tf_config.get("eval_session_master", "")
            self._is_chief = self._task_type == chief
            if self._task_type == TaskType.EVALUATOR:
                self._cluster_spec = ClusterSpec({})
                self._master = ""
                self._num_ps_replicas = 0
                self._num_worker_replicas = 0
                self._global_id_in_cluster = None
                return
            self._master = _session_master(self._cluster_spec, self._task_type, self._task_id,
                                           tf_config)
            self._num_ps_replicas = len(self._cluster_spec.as_dict().get(TaskType.PS, []))
            self._num_worker_replicas = sum(
                len(self._cluster_spec.as_dict().get(job, []))
                for job in (chief, TaskType.WORKER))
            self._global_id_in_cluster = _global_id(self._cluster_spec, self._task_type,
                                                    self._task_id, chief)
            if self._session_config is None:
                self._session_config = self._distributed_session_config()
        else:
            self._task_type = task_env.get("type", TaskType.WORKER)
            self._task_id = int(task_env.get("index", 0))
            if self._task_type != TaskType.WORKER:
                raise ValueError('If "cluster" is not set in TF_CONFIG, task type must be '
                                 "WORKER.")
            if self._task_id != 0:
                raise ValueError('If "cluster" is not set in TF_CONFIG, task index must be 0.')
            self._master = tf_config.get("session_master", "")
            self._evaluation_master = tf_config.get("eval_session_master", "")
            self._is_chief = True
            self._num_ps_replicas = 0
            self._num_worker_replicas = 1
            self._global_id_in_cluster = 0

    def _distributed_session_config(self):
        """TF 1.x's default session config of a cluster task: device filters by role and one
        meta-optimizer iteration; none for an evaluator or another job."""
        from tideflow.protos import config_pb2, rewriter_config_pb2

        filters = {TaskType.MASTER: ["/job:ps", "/job:master"],
                   TaskType.CHIEF: ["/job:ps", "/job:chief"],
                   TaskType.WORKER: ["/job:ps", f"/job:worker/task:{self._task_id}"],
                   TaskType.PS: ["/job:ps", "/job:worker", "/job:chief", "/job:master"]}
        if self._task_type not in filters:
            return None
        rewrite = rewriter_config_pb2.RewriterConfig(
            meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE)
        return config_pb2.ConfigProto(
            allow_soft_placement=True, device_filters=filters[self._task_type],
            graph_options=config_pb2.GraphOptions(rewrite_options=rewrite))

    def replace(self, **kwargs):
        """A copy with the given properties replaced."""
        for key in kwargs:
            if key not in _REPLACEABLE:
                raise ValueError(f"Replacing {key} is not supported. Allowed properties are "
                                 f"{_REPLACEABLE}.")
        new = copy.copy(self)
        steps = kwargs.get("save_checkpoints_steps", self._save_checkpoints_steps)
        secs = kwargs.get("save_checkpoints_secs", self._save_checkpoints_secs)
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs and (
                steps is not None):
            secs = None
        elif "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs and (
                secs is not None):
            steps = None
        if steps is not None and secs is not None:
            raise ValueError(_BOTH_CKPT)
        for key, value in kwargs.items():
            if key == "model_dir" and value is not None:
                value = os.fspath(value)
            setattr(new, "_" + key, value)
        new._save_checkpoints_steps = steps
        new._save_checkpoints_secs = secs
        _validate(new)
        return new

    # repr: TF 1.15's RunConfig has none of its own (<...RunConfig object at 0x...>)

    # the settings
    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs)

    # the cluster and this task (from TF_CONFIG)
    cluster_spec = property(lambda self: self._cluster_spec)
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    master = property(lambda self: self._master)
    evaluation_master = property(lambda self: self._evaluation_master)
    is_chief = property(lambda self: self._is_chief)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    global_id_in_cluster = property(lambda self: self._global_id_in_cluster)
    service = property(lambda self: self._service)
