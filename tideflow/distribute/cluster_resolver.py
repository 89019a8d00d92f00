"""``tf.distribute.cluster_resolver``: the cluster a program runs in, from ``TF_CONFIG`` or
given directly."""

import json

from tideflow import env


class ClusterResolver:
    """The base class: ``cluster_spec()``, ``master()``, the task and the devices."""

    task_type = None
    task_id = None
    rpc_layer = None
    environment = ""

    def cluster_spec(self):
        raise NotImplementedError()

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        raise NotImplementedError()

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return {}


def _format_master(address, rpc_layer):
    return f"{rpc_layer}://{address}" if rpc_layer else address


class SimpleClusterResolver(ClusterResolver):
    """A cluster given as a ``ClusterSpec`` (and the task, master and RPC layer)."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None, environment="",
                 num_accelerators=None, rpc_layer=None):
        from tideflow.distributed.cluster import ClusterSpec

        self._cluster_spec = ClusterSpec(cluster_spec) if not isinstance(
            cluster_spec, ClusterSpec) else cluster_spec
        self._master = master
        self.task_type, self.task_id = task_type, task_id
        self.environment = environment
        self._num_accelerators = num_accelerators or {}
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        return self._cluster_spec

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The given master, or the address of ``task_type``/``task_id`` (ValueError for a
        task the cluster lacks), with ``rpc_layer://`` when there is an RPC layer."""
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
        else:
            address = self._master
        return _format_master(address, rpc_layer or self.rpc_layer)

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return dict(self._num_accelerators)


class TFConfigClusterResolver(ClusterResolver):
    """The cluster, task and RPC layer of the ``TF_CONFIG`` environment variable (JSON); an
    empty cluster when it is unset."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        config = self._config()
        task = config.get("task", {})
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = task_id if task_id is not None else task.get("index")
        self.rpc_layer = rpc_layer if rpc_layer is not None else config.get("rpc_layer")
        self.environment = environment if environment is not None else config.get(
            "environment", "")

    @staticmethod
    def _config():
        raw = env.tf_config()
        if not raw:
            return {}
        return json.loads(raw)  # as TF: bad JSON is json's own error (a ValueError)

    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """As TF 1.15's: ``session_master`` of ``TF_CONFIG`` when set; "" for a cluster of at
        most one task; else the task's address (ValueError for a task the cluster lacks) with
        this resolver's RPC layer (the ``rpc_layer`` argument is not used, as there)."""
        config = self._config()
        if config.get("session_master") is not None:
            return config["session_master"]
        spec = self.cluster_spec()
        if not spec.jobs or (len(spec.jobs) == 1 and len(spec.job_tasks(spec.jobs[0])) == 1):
            return ""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return _format_master(spec.task_address(task_type, task_id), self.rpc_layer)


class UnionClusterResolver(ClusterResolver):
    """The union of several resolvers' clusters (``UnionResolver(r1, r2, ...)``); the task,
    RPC layer, environment and master are the first resolver's unless given here."""

    def __init__(self, *args, **kwargs):
        self._rpc_layer = kwargs.pop("rpc_layer", None)
        self._task_type = kwargs.pop("task_type", None)
        self._task_id = kwargs.pop("task_id", None)
        if kwargs:
            raise ValueError(f"Unexpected kwargs provided {kwargs!r}")
        if not args:
            raise ValueError("At least one ClusterResolver is required.")
        for r in args:
            if not isinstance(r, ClusterResolver):
                raise TypeError("All arguments must be a sub-class of `ClusterResolver.`")
        self._cluster_resolvers = args

    def cluster_spec(self):
        """The jobs of every resolver: a job's task lists are concatenated in order, unless
        one of them is sparse (a dict), when the tasks are merged by index (KeyError for an
        index given twice)."""
        from tideflow.distributed.cluster import ClusterSpec

        dicts = [r.cluster_spec().as_dict() for r in self._cluster_resolvers]
        sparse = {job for d in dicts for job, tasks in d.items() if isinstance(tasks, dict)}
        merged = {}
        for d in dicts:
            for job, tasks in d.items():
                if job not in sparse:
                    merged.setdefault(job, []).extend(tasks)
                    continue
                tasks = dict(enumerate(tasks)) if isinstance(tasks, list) else dict(tasks)
                have = merged.setdefault(job, {})
                both = set(tasks) & set(have)
                if both:
                    raise KeyError(
                        f"Duplicate keys detected when merging two ClusterSpecs: {both!r}")
                have.update(tasks)
        return ClusterSpec(merged)

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        if task_type is not None and task_id is not None:
            return _format_master(self.cluster_spec().task_address(task_type, task_id),
                                  rpc_layer or self._rpc_layer)
        return self._cluster_resolvers[0].master(rpc_layer=rpc_layer)

    @property
    def task_type(self):
        return self._task_type or self._cluster_resolvers[0].task_type

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return self._task_id or self._cluster_resolvers[0].task_id

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        return self._rpc_layer or self._cluster_resolvers[0].rpc_layer

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    @property
    def environment(self):
        return self._cluster_resolvers[0].environment

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        return self._cluster_resolvers[0].num_accelerators(task_type, task_id, config_proto)


class TPUClusterResolver(ClusterResolver):
    """A Cloud TPU's cluster. No TPU can be reached from tideflow (there is no TPU runtime, and
    TPUEstimator runs on the CPU), so making one raises ValueError naming the TPU; programs
    that build it only for ``--use_tpu --tpu_name=...`` (BERT) run with ``use_tpu=False``."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker",
                 coordinator_name=None, coordinator_address=None, credentials="default",
                 service=None, discovery_url=None):
        if isinstance(tpu, (list, tuple)):
            tpu = ",".join(map(str, tpu))
        if not tpu:
            raise ValueError("Please provide a TPU Name to connect to.")
        raise ValueError(f"TPUClusterResolver: cannot connect to TPU {tpu!r} (zone={zone!r}, "
                         f"project={project!r}): tideflow has no TPU runtime; run without a "
                         "TPU (use_tpu=False), TPUEstimator then trains on the CPU")


UnionResolver = UnionClusterResolver  # tf.distribute.cluster_resolver's name for it

__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver",
           "TPUClusterResolver", "UnionClusterResolver", "UnionResolver"]
