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


def _master(spec, task_type, task_id, rpc_layer):
    if task_type is None or task_id is None or task_type not in spec.jobs:
        return ""
    address = spec.task_address(task_type, task_id)
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
        if task_type is not None and task_id is not None:
            return _master(self._cluster_spec, task_type, task_id, rpc_layer or self.rpc_layer)
        return self._master

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
        try:
            return json.loads(raw)
        except ValueError as e:
            raise ValueError(f"TF_CONFIG is not valid JSON: {e}") from None

    def cluster_spec(self):
        from tideflow.distributed.cluster import ClusterSpec

        return ClusterSpec(self._config().get("cluster", {}))

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        return _master(self.cluster_spec(), task_type, task_id, rpc_layer or self.rpc_layer)


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


__all__ = ["ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver",
           "TPUClusterResolver"]
