"""``tf.contrib.distribute``: TF 1.x's names of the strategies (MirroredStrategy taking
``num_gpus``, CollectiveAllReduceStrategy, ``DistributeConfig``) over ``tf.distribute``."""

import collections

from tideflow.distribute import strategy as _s
from tideflow.distribute.cluster_resolver import TPUClusterResolver
from tideflow.distribute.strategy import (
    CentralStorageStrategy,
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    NcclAllReduce,
    OneDeviceStrategy,
    ReduceOp,
    ReductionToOneDevice,
    ReplicaContext,
    Strategy,
    StrategyExtended,
    get_cross_replica_context,
    get_loss_reduction,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)

DistributionStrategy = Strategy
ReductionToOneDeviceCrossDeviceOps = ReductionToOneDevice


class AllReduceCrossDeviceOps(HierarchicalCopyAllReduce):
    """TF 1.15's ``AllReduceCrossDeviceOps``: its algorithm choices are taken and kept (one
    process's in-memory reduction serves them all here)."""

    def __init__(self, all_reduce_alg="nccl", num_packs=1, agg_small_grads_max_bytes=0,
                 agg_small_grads_max_group=10):
        super().__init__(num_packs=num_packs)
        self._all_reduce_alg = all_reduce_alg
        self._agg_small_grads_max_bytes = agg_small_grads_max_bytes
        self._agg_small_grads_max_group = agg_small_grads_max_group

get_distribution_strategy = get_strategy
has_distribution_strategy = has_strategy


def _gpu_devices(num_gpus):
    if not num_gpus:
        return ["/device:CPU:0"]
    return [f"/device:GPU:{i}" for i in range(num_gpus)]


class MirroredStrategy(_s.MirroredStrategy):
    """TF 1.x's contrib MirroredStrategy: ``devices`` or ``num_gpus`` (``num_gpus_per_worker``)
    GPUs; with neither, the local GPUs or the CPU."""

    def __init__(self, devices=None, num_gpus=None, num_gpus_per_worker=None,
                 cross_device_ops=None, auto_shard_dataset=False, cross_tower_ops=None):
        if devices is not None and (num_gpus is not None or num_gpus_per_worker is not None):
            raise ValueError("Must only specify one of `devices` and `num_gpus`.")
        if num_gpus is not None and num_gpus_per_worker is not None:
            raise ValueError("You cannot specify both `num_gpus` and `num_gpus_per_worker`.")
        count = num_gpus if num_gpus is not None else num_gpus_per_worker
        if devices is None and count is not None:
            devices = _gpu_devices(count)
        super().__init__(devices=devices, cross_device_ops=cross_device_ops or cross_tower_ops)


class ParameterServerStrategy(_s.ParameterServerStrategy):
    """TF 1.x's contrib ParameterServerStrategy(num_gpus_per_worker=0): local without a
    cluster in ``TF_CONFIG``."""

    def __init__(self, num_gpus_per_worker=0):
        super().__init__()


class CollectiveAllReduceStrategy(_s.MultiWorkerMirroredStrategy):
    """TF 1.x's name of the multi-worker mirrored strategy (one worker: local devices)."""

    def __init__(self, num_gpus_per_worker=0, communication=None):
        super().__init__(communication=communication)


class TPUStrategy(Strategy):
    """TF 1.x's TPU strategy. No TPU can be reached from tideflow: the class exists (for
    annotations and isinstance checks), and making one fails as TF does without a TPU, with
    the resolver's ValueError."""

    def __init__(self, tpu_cluster_resolver=None, steps_per_run=None, device_assignment=None):
        if tpu_cluster_resolver is None:
            TPUClusterResolver("")  # raises: no TPU name
        raise ValueError(f"TPUStrategy: cannot connect to the TPU of {tpu_cluster_resolver!r}: "
                         "tideflow has no TPU runtime")


class DistributeConfig(collections.namedtuple(
        "DistributeConfig", ["train_distribute", "eval_distribute", "remote_cluster"])):
    """``RunConfig(experimental_distribute=DistributeConfig(...))``'s strategies."""

    def __new__(cls, train_distribute=None, eval_distribute=None, remote_cluster=None):
        return super().__new__(cls, train_distribute, eval_distribute, remote_cluster)


__all__ = [
    "AllReduceCrossDeviceOps", "CentralStorageStrategy", "CollectiveAllReduceStrategy",
    "CrossDeviceOps", "DistributeConfig", "DistributionStrategy", "HierarchicalCopyAllReduce",
    "MirroredStrategy", "NcclAllReduce", "OneDeviceStrategy", "ParameterServerStrategy",
    "ReduceOp", "ReductionToOneDevice", "ReductionToOneDeviceCrossDeviceOps", "ReplicaContext",
    "Strategy", "StrategyExtended", "TPUStrategy", "get_cross_replica_context", "get_distribution_strategy",
    "get_loss_reduction", "get_replica_context", "get_strategy", "has_distribution_strategy",
    "has_strategy", "in_cross_replica_context",
]
