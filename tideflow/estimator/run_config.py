"""``tf.estimator.RunConfig``: where and how often an Estimator checkpoints and summarizes."""

import copy
import os

_USE_DEFAULT = object()

_REPLACEABLE = frozenset([
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute", "device_fn",
    "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs"])


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


class RunConfig:
    """The run-time settings of an Estimator (local, single-process)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100, train_distribute=None, device_fn=None, protocol=None,
                 eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None, session_creation_timeout_secs=7200):
        if (save_checkpoints_steps is not _USE_DEFAULT
                and save_checkpoints_secs is not _USE_DEFAULT
                and save_checkpoints_steps is not None and save_checkpoints_secs is not None):
            raise ValueError("Can not specify both save_checkpoints_steps and "
                             "save_checkpoints_secs.")
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        for name, value in (("save_summary_steps", save_summary_steps),
                            ("save_checkpoints_steps", save_checkpoints_steps),
                            ("save_checkpoints_secs", save_checkpoints_secs),
                            ("keep_checkpoint_max", keep_checkpoint_max),
                            ("log_step_count_steps", log_step_count_steps)):
            if value is not None and value < 0:
                raise ValueError(f"{name} should be >= 0, given: {value}")
        if model_dir is not None:
            model_dir = os.fspath(model_dir)
            if not model_dir:
                raise ValueError("model_dir should be non-empty")
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
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs

    def replace(self, **kwargs):
        """A copy with the given properties replaced."""
        for key in kwargs:
            if key not in _REPLACEABLE:
                raise ValueError(f"{key} is not allowed to be replaced in the RunConfig.")
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
            raise ValueError("Can not specify both save_checkpoints_steps and "
                             "save_checkpoints_secs.")
        for key, value in kwargs.items():
            if key == "model_dir" and value is not None:
                value = os.fspath(value)
            setattr(new, "_" + key, value)
        new._save_checkpoints_steps = steps
        new._save_checkpoints_secs = secs
        return new

    def __repr__(self):
        keys = sorted(_REPLACEABLE)
        return "RunConfig(" + ", ".join(f"{k}={getattr(self, '_' + k)!r}" for k in keys) + ")"

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

    # the cluster: always one local chief
    @property
    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        return ClusterSpec({})

    task_type = property(lambda self: TaskType.WORKER)
    task_id = property(lambda self: 0)
    master = property(lambda self: "")
    evaluation_master = property(lambda self: "")
    is_chief = property(lambda self: True)
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    global_id_in_cluster = property(lambda self: 0)
    service = property(lambda self: None)
