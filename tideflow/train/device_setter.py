"""``tf.train.replica_device_setter``: a device function placing variables on parameter-server
tasks (round-robin, or by a strategy such as ``GreedyLoadBalancingStrategy``) and every other op
on the worker, for between-graph replication."""

import hashlib

import numpy as np

from tideflow import logging
from tideflow.framework import device as device_lib
from tideflow.framework.tensor_shape import TensorShape

# the op types that hold state a parameter server keeps (variables and mutable tables)
STANDARD_PS_OPS = (
    "Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
    "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
    "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator",
)


class _RoundRobinStrategy:
    """Gives the ps tasks out in turn: 0, 1, ..., num_tasks - 1, 0, ..."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """``tf.contrib.training.GreedyLoadBalancingStrategy(num_tasks, load_fn)``: puts each
    variable on the ps task with the least load so far, ``load_fn(op)`` adding to it (e.g.
    ``byte_size_load_fn``). Near-optimal for a fixed set of variables; the first variable goes
    to task 0."""

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op):
        task = int(np.argmin(self._ps_loads))
        self._ps_loads[task] += self._load_fn(op)
        return task


class RandomStrategy:
    """``tf.contrib.training.RandomStrategy``: the ps task of an op from an MD5 hash of its name
    and ``seed``, so placement is spread pseudo-randomly yet the same in every run."""

    def __init__(self, num_ps_tasks, seed=0):
        self._num_ps_tasks = num_ps_tasks
        self._seed = seed

    def __call__(self, op):
        key = f"{op.name}_{self._seed}".encode()
        return int(int(hashlib.md5(key).hexdigest(), 16) % self._num_ps_tasks)


def byte_size_load_fn(op):
    """The byte size of the single output of ``op`` (typically a variable op).

    Raises ValueError when ``op`` has more than one output or its shape is not fully known.
    """
    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    output = op.outputs[0]
    elem_size = output.dtype.base_dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined():
        # the device function runs before the op's shapes are inferred: a variable op's
        # shape attr says what its output will be
        try:
            shape = TensorShape(op.get_attr("shape"))
        except (ValueError, KeyError):
            pass
    shape.assert_is_fully_defined()
    return shape.num_elements() * elem_size


def _op_type(op):
    t = getattr(op, "type", None)
    return t if t is not None else op.op  # a NodeDef


class _ReplicaDeviceChooser:
    """The device function ``replica_device_setter`` returns, with its settings."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """The device of ``op``: a ps task for the state-holding ops, the worker for the rest;
        the fields of a device already requested for ``op`` win."""
        current = op.device or ""
        if not self._merge_devices and current:
            return current
        current_spec = device_lib.DeviceSpec.from_string(current)
        if self._ps_tasks and self._ps_device and _op_type(op) in self._ps_ops:
            ps_spec = device_lib.DeviceSpec.from_string(self._ps_device)
            if ps_spec.job and (not current_spec.job or current_spec.job == ps_spec.job):
                ps_spec.task = int(self._ps_strategy(op))
            ps_spec.merge_from(current_spec)
            return ps_spec.to_string()
        worker_spec = device_lib.DeviceSpec.from_string(self._worker_device or "")
        worker_spec.merge_from(current_spec)
        return worker_spec.to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker",
                          merge_devices=True, cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``tf.device`` placing the ops in ``ps_ops`` (variables by
    default) on ``ps_device``'s tasks, chosen by ``ps_strategy`` (round-robin by default), and
    every other op on ``worker_device``.

    ``cluster`` (a ClusterSpec or its dict), when given, sets ``ps_tasks`` to the size of the
    ps job. Returns None (no placement) when there are no ps tasks. With ``merge_devices``
    (the default) the fields of a device already set on an op are kept and the rest filled in;
    without it an op that already has a device keeps it unchanged.
    """
    if cluster is None and ps_tasks == 0:
        return None
    if cluster is not None:
        from tideflow.distributed.cluster import ClusterSpec

        cluster_spec = ClusterSpec(cluster).as_dict()
        ps_job_name = device_lib.DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_spec or cluster_spec[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_spec[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        logging.warning(
            "DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter"
        )
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                    ps_strategy)
    return chooser.device_function
