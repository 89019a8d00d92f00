"""``tf.distribute``: strategies that run one program on several devices (graph mode):
MirroredStrategy, OneDeviceStrategy and the experimental ones, their contexts and values."""

import sys
import types

from tideflow.distribute import cluster_resolver
from tideflow.distribute import updates as _updates  # noqa: F401 - the optimizer's hook
from tideflow.distribute.contrib import TPUStrategy  # noqa: F401 - in experimental
from tideflow.distribute.input_lib import InputContext
from tideflow.distribute.strategy import (
    CentralStorageStrategy,  # noqa: F401 - in experimental
    CollectiveCommunication,  # noqa: F401 - in experimental
    CommunicationImplementation,  # noqa: F401 - in experimental
    CommunicationOptions,  # noqa: F401 - in experimental
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    InputReplicationMode,
    MirroredStrategy,
    MultiWorkerMirroredStrategy,  # noqa: F401 - in experimental
    NcclAllReduce,
    OneDeviceStrategy,
    ParameterServerStrategy,  # noqa: F401 - in experimental
    ReduceOp,
    ReductionToOneDevice,
    ReplicaContext,
    RunOptions,
    Strategy,
    StrategyExtended,
    experimental_set_strategy,
    get_cross_replica_context,
    get_loss_reduction,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from tideflow.distribute.values import DistributedValues, Mirrored, MirroredVariable, PerReplica
from tideflow.distributed.cluster import ClusterSpec


def _module(name, doc, names):
    module = types.ModuleType(f"{__name__}.{name}", doc)
    for n in names:
        setattr(module, n, globals()[n])
    module.__all__ = sorted(names)
    sys.modules[module.__name__] = module
    return module


experimental = _module(
    "experimental", "``tf.distribute.experimental``: strategies across workers and devices.",
    ["CentralStorageStrategy", "CollectiveCommunication", "CommunicationImplementation",
     "CommunicationOptions", "MultiWorkerMirroredStrategy", "ParameterServerStrategy",
     "TPUStrategy"])
sys.modules[cluster_resolver.__name__] = cluster_resolver


def __getattr__(name):
    if name == "Server":  # the gRPC server loads on first use
        from tideflow.distributed.server import Server

        return Server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "ClusterSpec", "CrossDeviceOps", "DistributedValues", "HierarchicalCopyAllReduce",
    "InputContext", "InputReplicationMode", "Mirrored", "MirroredStrategy", "MirroredVariable",
    "NcclAllReduce", "OneDeviceStrategy", "PerReplica", "ReduceOp", "ReductionToOneDevice",
    "ReplicaContext", "RunOptions", "Server", "Strategy", "StrategyExtended",
    "cluster_resolver", "experimental", "experimental_set_strategy",
    "get_cross_replica_context", "get_loss_reduction", "get_replica_context", "get_strategy",
    "has_strategy", "in_cross_replica_context",
]


def __dir__():
    return sorted(set(globals()) | {"Server"})
