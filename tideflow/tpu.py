"""``tf.tpu``: the TPU helpers TF 1.x programs name on their ``use_tpu=True`` path. There is
no TPU here: TPUEstimator runs on the CPU as one shard, so the cross-shard optimizer applies
the wrapped optimizer's own update and a cross-replica sum over the one replica is its input."""

from tideflow.estimator.tpu import CrossShardOptimizer


def cross_replica_sum(x, group_assignment=None, name=None):
    """The sum of ``x`` over the replicas: with one replica, ``x`` itself."""
    from tideflow.ops import array_ops

    if group_assignment is not None and [list(g) for g in group_assignment] != [[0]]:
        raise ValueError(f"cross_replica_sum: group_assignment {group_assignment} names "
                         "replicas other than the single one (replica 0) this CPU run has")
    return array_ops.identity(x, name=name or "CrossReplicaSum")


class TpuContext:
    """The shard context ``tensorflow.python.tpu.tpu_function`` answers: how many shards the
    function being built runs on (``None`` outside a sharded computation, as always here)."""

    def __init__(self):
        self.number_of_shards = None

    def set_number_of_shards(self, number_of_shards):
        self.number_of_shards = number_of_shards


_TPU_CONTEXT = TpuContext()


def get_tpu_context():
    """The current shard context (library code reads its ``number_of_shards``)."""
    return _TPU_CONTEXT


__all__ = ["CrossShardOptimizer", "cross_replica_sum"]
