"""The queue classes of TF 1.x (``tf.FIFOQueue``, ``tf.PaddingFIFOQueue``,
``tf.RandomShuffleQueue``, ``tf.PriorityQueue``) over the V2 queue ops, the accumulators
re-exported from ``accumulator_ops``, and ``CountUpTo`` (used by ``tf.train.limit_epochs``).
"""

import hashlib

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops, random_seed
from tideflow.framework.tensor_shape import Dimension, TensorShape, as_shape, unknown_shape
from tideflow.ops import queue_ops  # noqa: F401 - declares the queue ops
from tideflow.ops.accumulator_ops import (  # noqa: F401 - re-exported, as in TF
    ConditionalAccumulator,
    ConditionalAccumulatorBase,
    SparseConditionalAccumulator,
)
from tideflow.ops.barrier_ops import Barrier  # noqa: F401 - re-exported, as in TF
from tideflow.ops.embedding_ops import (  # noqa: F401 - re-exported, as in TF
    dynamic_partition,
    dynamic_stitch,
    parallel_dynamic_stitch,
)
from tideflow.ops.map_staging_ops import MapStagingArea  # noqa: F401 - re-exported, as in TF
from tideflow.ops.record_input_ops import RecordInput  # noqa: F401 - re-exported, as in TF
from tideflow.ops.staging_ops import StagingArea  # noqa: F401 - re-exported, as in TF
from tideflow.ops.state_ops import resource_for, variable_op_of

# ------------------------------------------------------------------------------------------
# argument normalization (as TF's data_flow_ops)
# ------------------------------------------------------------------------------------------


def _as_type_list(dtypes):
    if not isinstance(dtypes, (list, tuple)):
        return [_dtypes.as_dtype(dtypes)]
    return [_dtypes.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes, dtypes, unknown_dim_allowed=False, unknown_rank_allowed=False):
    del dtypes
    if unknown_dim_allowed and (not isinstance(shapes, (list, tuple)) or not shapes or any(
            s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # a single shape
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if not unknown_rank_allowed and any(s.dims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


# ------------------------------------------------------------------------------------------
# QueueBase and the queue kinds
# ------------------------------------------------------------------------------------------


def _common_shape(shapes):
    """The most specific shape every one of ``shapes`` satisfies."""
    out = shapes[0]
    for s in shapes[1:]:
        if out.ndims is None or s.ndims is None or out.ndims != s.ndims:
            return unknown_shape()
        out = TensorShape([a.value if a.value == b.value else None
                           for a, b in zip(out.dims, s.dims)])
    return out


class QueueBase:
    """Base class for queues: enqueue/dequeue ops over a queue resource handle.

    A queue holds tuples of tensors (its components, with ``dtypes`` and optional ``shapes``
    and ``names``); with names, enqueue takes and dequeue returns dictionaries.
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = self._queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue that is ``queues[index]``, chosen when a step runs (``index`` a scalar
        int32 tensor): the handles stacked and gathered, shapes merged to what all share."""
        from tideflow.ops.concat_ops import stack
        from tideflow.ops.gather_ops import gather

        if not queues or not isinstance(queues, list) or not all(
                isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [_common_shape(list(s)) for s in zip(*(q.shapes for q in queues))]
        selected = gather(stack([q.queue_ref for q in queues]), index)
        return QueueBase(dtypes=dtypes, shapes=shapes, names=names, queue_ref=selected)

    @property
    def queue_ref(self):
        """The underlying queue resource handle."""
        return self._queue_ref

    @property
    def name(self):
        """The name of the underlying queue."""
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(
                    "Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                    f"({sorted(vals.keys())}), Queue: ({sorted(self._names)})")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        # TF pairs values with dtypes by zip: extra values are dropped; too few fail when run
        return [ops.convert_to_tensor(v, dtype=d, name=f"component_{i}")
                for i, (v, d) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """Enqueues one element: a tensor, a list/tuple of tensors, or a dict (with names)."""
        with ops.name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.get_shape().assert_is_compatible_with(shape)
            return ops.apply_op("QueueEnqueueV2", [self._queue_ref, vals], name=scope)

    def enqueue_many(self, vals, name=None):
        """Enqueues the slices of ``vals`` along their first dimension as elements."""
        with ops.name_scope(name, f"{self._name}_EnqueueMany",
                            self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = Dimension(vals[0].get_shape().with_rank_at_least(1)[0])
            for val, shape in zip(vals, self._shapes):
                val_batch = Dimension(val.get_shape().with_rank_at_least(1)[0])
                batch_dim = batch_dim.merge_with(val_batch)
                val.get_shape()[1:].assert_is_compatible_with(shape)
            return ops.apply_op("QueueEnqueueManyV2", [self._queue_ref, vals], name=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def dequeue(self, name=None):
        """Dequeues one element (blocks while the queue is empty and open)."""
        if name is None:
            name = f"{self._name}_Dequeue"
        op = ops.apply_op("QueueDequeueV2", [self._queue_ref],
                          {"component_types": self._dtypes}, name=name)
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(shape)
        return self._dequeue_return_value(list(op.outputs))

    def _dequeue_n(self, op_type, n, name, known_batch):
        op = ops.apply_op(op_type, [self._queue_ref, n], {"component_types": self._dtypes},
                          name=name)
        batch = None
        if known_batch:
            v = ops.constant_value(op.inputs[1])
            # (as TF's Dimension of the value: a one-element vector counts too)
            batch = None if v is None or np.size(v) != 1 else int(np.reshape(v, -1)[0])
        for output, shape in zip(op.outputs, self._shapes):
            output.set_shape(TensorShape([batch]).concatenate(shape))
        return self._dequeue_return_value(list(op.outputs))

    def dequeue_many(self, n, name=None):
        """Dequeues and concatenates ``n`` elements (OutOfRangeError if the queue closes first)."""
        if name is None:
            name = f"{self._name}_DequeueMany"
        return self._dequeue_n("QueueDequeueManyV2", n, name, True)

    def dequeue_up_to(self, n, name=None):
        """Like ``dequeue_many``, but returns fewer than ``n`` elements once the queue closes."""
        if name is None:
            name = f"{self._name}_DequeueUpTo"
        return self._dequeue_n("QueueDequeueUpToV2", n, name, False)

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the queue: no more enqueues; dequeues drain what is left."""
        if name is None:
            name = f"{self._name}_Close"
        return ops.apply_op("QueueCloseV2", [self._queue_ref],
                            {"cancel_pending_enqueues": bool(cancel_pending_enqueues)}, name=name)

    def is_closed(self, name=None):
        """A boolean tensor: whether the queue is closed."""
        if name is None:
            name = f"{self._name}_Is_Closed"
        return ops.apply_op("QueueIsClosedV2", [self._queue_ref], name=name).outputs[0]

    def size(self, name=None):
        """An int32 tensor: the number of elements in the queue."""
        if name is None:
            name = f"{self._name}_Size"
        return ops.apply_op("QueueSizeV2", [self._queue_ref], name=name).outputs[0]


def _queue_op(op_type, attrs, name):
    attrs = dict(attrs)
    attrs["shared_name"] = attrs.get("shared_name") or ""
    attrs["container"] = ops.get_default_graph()._container
    return ops.apply_op(op_type, [], attrs, name=name).outputs[0]


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        ref = _queue_op("FIFOQueueV2", {"component_types": dtypes, "shapes": shapes or [],
                                        "capacity": capacity, "shared_name": shared_name}, name)
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose ``dequeue_many`` pads components with unknown dims (with zeros)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(
                "Shapes must be provided for all components, but received "
                f"{len(dtypes)} dtypes and {len(shapes)} shapes.")
        ref = _queue_op("PaddingFIFOQueueV2", {"component_types": dtypes, "shapes": shapes,
                                               "capacity": capacity,
                                               "shared_name": shared_name}, name)
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in random order, keeping ``min_after_dequeue`` buffered."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, dtypes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # graph seed only: seed2 depends on the graph seed and shared name, not on op ids
            digest = hashlib.md5((str(seed1) + shared_name).encode()).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        ref = _queue_op("RandomShuffleQueueV2", {
            "component_types": dtypes, "shapes": shapes or [], "capacity": capacity,
            "min_after_dequeue": min_after_dequeue, "seed": seed1, "seed2": seed2,
            "shared_name": shared_name}, name)
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue that dequeues elements by increasing int64 priority (an extra first component)."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes, types)
        if shapes is None:  # the op's shapes attr has no default
            raise TypeError("Expected list for 'shapes' argument to 'priority_queue_v2' Op, "
                            "not None.")
        ref = _queue_op("PriorityQueueV2", {"component_types": types, "shapes": shapes or [],
                                            "capacity": capacity, "shared_name": shared_name},
                        name)
        priority_dtypes = [_dtypes.int64, *types]
        priority_shapes = [(), *shapes] if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, ref)


# ------------------------------------------------------------------------------------------
# CountUpTo (a state op; limit_epochs needs it)
# ------------------------------------------------------------------------------------------


def _count_up_to_kernel(ctx):
    op = ctx.op
    limit = op._attrs["limit"]
    var_op = variable_op_of(op._inputs[0])
    res = resource_for(ctx, var_op) if var_op is not None else None

    def run(ref):
        with res.lock if res is not None else _NoLock():
            buf = res.buf if res is not None else ref
            if buf is None or not isinstance(buf, np.ndarray):
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {var_op.name}")
            before = buf[()]
            if before >= limit:
                raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
            buf[()] = before + 1
            return np.asarray(before)

    return run


def _scalar_ref_shape(shape):
    if shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims}")
    return TensorShape([])


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


op_registry.declare(
    "CountUpTo",
    inputs=["ref: Ref(T)"],
    outputs=["output: T"],
    attrs=["limit: int", "T: {int32, int64}"],
    shape=lambda op: [_scalar_ref_shape(op._inputs[0]._shape)],
    kernel_factory=_count_up_to_kernel,
    differentiable=False,
    stateful=True,
)


def count_up_to(ref, limit, name=None):
    """Increments the scalar variable ``ref`` until it reaches ``limit`` (then OutOfRangeError).

    Returns the value before the increment.
    """
    if hasattr(ref, "_ref"):
        ref = ref._ref()
    elif isinstance(ref, ops.Tensor) and not ref.dtype._is_ref_dtype:
        raise AttributeError("'Tensor' object has no attribute 'handle'")  # as TF 1.15
    if ref.dtype == _dtypes.resource:  # (TF 1.15's op for a resource variable)
        from tideflow.ops.resource_variable_ops import handle_var_op

        var_op = handle_var_op(ref)
        return ops.apply_op("ResourceCountUpTo", [ref], {
            "limit": int(limit), "T": var_op._attrs["dtype"] if var_op is not None else None},
            name=name).outputs[0]
    return ops.apply_op("CountUpTo", [ref], {"limit": int(limit)}, name=name).outputs[0]
