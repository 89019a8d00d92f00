"""``data_flow_ops.Barrier`` (TF 1.x): a map from string keys to tuples filled one component
at a time.

``insert_many(component, keys, values)`` (op ``BarrierInsertMany``) sets one component of
each key's tuple; a key seen for the first time is *incomplete* and is stamped with the
barrier's insertion counter (an int64 starting at -2**63 and advanced by each insert that
creates keys). Once all of a key's components are set it is *ready*. ``take_many(n)``
(``BarrierTakeMany``) removes the ``n`` ready tuples of smallest stamp and returns
``(indices, keys, values)``, blocking until ``n`` are ready. ``close()`` refuses new keys
(inserts into incomplete keys still complete them); ``close(cancel_pending_enqueues=True)``
also drops the incomplete keys and refuses every insert. A take on a closed barrier fails
with OutOfRangeError when it cannot be satisfied (with ``allow_small_batch`` it returns what
is ready). Handles are ``Ref(string)`` tensors, as in TF.
"""

import heapq
import itertools

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tideflow.ops.queue_ops import (
    COMPLETE,
    NO_PROGRESS,
    Attempt,
    BlockingResource,
    resource_name,
)

__all__ = ["Barrier"]

_FIRST_INDEX = -2 ** 63


def _shape_str(shape):
    return "?" if shape is None else "[" + ",".join(str(d) for d in shape) + "]"


class BarrierResource(BlockingResource):
    """The incomplete and ready tuples of one barrier and its blocked takes."""

    kind = "Barrier"
    _in_order = False  # a take completes as soon as its key (or tuple) is there

    def __init__(self, name, dtypes, shapes):
        super().__init__()
        self.name = name
        self.dtypes = list(dtypes)
        self.shapes = shapes  # a tuple per component (fully defined) or None (any)
        self.incomplete = {}  # key -> (index, [array or None per component])
        self.ready = []       # heap of (index, order, key, values)
        self.order = itertools.count()
        self.next_index = _FIRST_INDEX
        self.closed = False
        self.cancelled = False
        self._takes = []

    def matches(self, op):
        types = list(op._attrs["component_types"])
        if types != self.dtypes:
            raise errors.InvalidArgumentError(
                None, op, f"Shared barrier '{self.name}' has component types "
                f"{[d.name for d in self.dtypes]} but requested component types were "
                f"{[d.name for d in types]}")
        shapes = _attr_shapes(op._attrs["shapes"], len(types))
        if shapes != self.shapes:
            mine = ", ".join(_shape_str(s) for s in (self.shapes or [None] * len(types)))
            theirs = ", ".join(_shape_str(s) for s in (shapes or [None] * len(types)))
            raise errors.InvalidArgumentError(
                None, op, f"Shared barrier '{self.name}' has component shapes [{mine}] but "
                f"requested component shapes were [{theirs}]")

    def _pending(self):
        return ((self._takes, "BarrierTakeMany"),)

    def _put_back(self, taken):
        for item in taken:
            heapq.heappush(self.ready, item)

    def insert(self, component, keys, values):
        n = len(self.dtypes)
        if not 0 <= component < n:
            raise errors.InvalidArgumentError(
                None, None, f"The component ID is out of range {component} > num_components "
                f"{n} (barrier '{self.name}')")
        if values.dtype != self.dtypes[component].as_numpy_dtype and not (
                self.dtypes[component] == _dtypes.string and values.dtype == object):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid data type for component {component} of barrier "
                f"'{self.name}': expected {self.dtypes[component].name}")
        if values.ndim == 0 or values.shape[0] != len(keys):
            raise errors.InvalidArgumentError(
                None, None, f"Shapes of keys and values are not compatible when inserting "
                f"into barrier '{self.name}': keys {[len(keys)]}, values {list(values.shape)}")
        if len(keys) and values.size == 0:
            raise errors.InvalidArgumentError(
                None, None, f"Tensors with no elements are not supported {self.name}: "
                f"received shape {list(values.shape)}")
        if self.shapes is not None and tuple(values.shape[1:]) != self.shapes[component]:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch in tuple component {component} of barrier "
                f"'{self.name}'. Expected {_shape_str(self.shapes[component])}, got "
                f"{_shape_str(values.shape[1:])}")
        with self._cond:
            if self.cancelled:
                raise errors.CancelledError(None, None, f"Barrier '{self.name}' is closed")
            new = [k for k in dict.fromkeys(keys) if k not in self.incomplete]
            if new and self.closed:
                raise errors.CancelledError(
                    None, None, f"Barrier '{self.name}' is closed, but attempted to insert a "
                    f"brand new key: {new[0]!r}")
            for k in keys:
                entry = self.incomplete.get(k)
                if entry is not None and entry[1][component] is not None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Key {k!r} already has a value for component "
                        f"{component} in barrier '{self.name}'")
            if new:
                for k in new:
                    self.incomplete[k] = (self.next_index, [None] * n)
                self.next_index += 1
            for k, v in zip(keys, values):
                index, parts = self.incomplete[k]
                parts[component] = np.array(v, copy=True)
                if all(p is not None for p in parts):
                    del self.incomplete[k]
                    heapq.heappush(self.ready, (index, next(self.order), k, parts))
            self._flush()

    def take(self, num, allow_small_batch, step):
        def run(a):
            want = num
            if self.closed:
                available = len(self.ready)
                if allow_small_batch:
                    want = min(num, available)
                else:
                    available += len(self.incomplete)
                if available < max(want, 1):
                    a.error = errors.OutOfRangeError(
                        None, None, f"Barrier '{self.name}' is closed and has insufficient "
                        f"elements (requested {want}, total size {available})")
                    return COMPLETE
            if len(self.ready) < want:
                return NO_PROGRESS
            a.taken = [heapq.heappop(self.ready) for _ in range(want)]
            a.result = a.taken
            return COMPLETE

        return self._submit(self._takes, Attempt(num, run), step, "BarrierTakeMany")

    def close(self, cancel_pending_enqueues):
        with self._cond:
            self.closed = True
            if cancel_pending_enqueues:
                self.cancelled = True
                self.incomplete.clear()
            self._flush()

    def sizes(self):
        with self._cond:
            return len(self.ready), len(self.incomplete)


def _attr_shapes(shapes, n):
    """The attr's shapes as tuples, or None when they are not all fully defined."""
    if not shapes or len(shapes) != n or any(not s.is_fully_defined() for s in shapes):
        return None
    return [tuple(s.as_list()) for s in shapes]


def _barrier_factory(ctx):
    op = ctx.op
    attrs = op._attrs
    container = attrs.get("container") or ""
    name = resource_name(ctx)
    created = []

    def creator():
        created.append(True)
        return BarrierResource(name, attrs["component_types"],
                               _attr_shapes(attrs["shapes"], len(attrs["component_types"])))

    def run():
        b = ctx.resource_mgr.lookup_or_create(container, name, creator)
        if not isinstance(b, BarrierResource):
            raise errors.InvalidArgumentError(
                None, op, f"Resource '{name}' of Node '{op.name}' is not a Barrier")
        if not created:
            b.matches(op)
            created.append(True)
        return b

    return run


def _barrier(handle):
    if not isinstance(handle, BarrierResource):
        raise errors.InvalidArgumentError(
            None, None, f"Expected a Barrier handle, got {type(handle).__name__}")
    return handle


def _insert_kernel(handle, keys, values, *, component_index):
    keys = [k if isinstance(k, bytes) else str(k).encode() for k in np.reshape(keys, -1)]
    _barrier(handle).insert(component_index, keys, np.asarray(values))


def _take_kernel(handle, num_elements, *, ctx, step):
    b = _barrier(handle)
    taken = b.take(int(num_elements), ctx.op._attrs["allow_small_batch"], step)
    indices = np.array([t[0] for t in taken], dtype=np.int64)
    keys = np.array([t[2] for t in taken], dtype=object).reshape(-1)
    values = []
    for c, dtype in enumerate(b.dtypes):
        if taken:
            values.append(np.stack([t[3][c] for t in taken]))
        else:
            tail = b.shapes[c] if b.shapes is not None else ()
            values.append(np.zeros((0, *tail), dtype=dtype.as_numpy_dtype))
    return [indices, keys, *values]


def _close_kernel(handle, *, cancel_pending_enqueues):
    _barrier(handle).close(cancel_pending_enqueues)


def _ready_size_kernel(handle):
    return np.int32(_barrier(handle).sizes()[0])


def _incomplete_size_kernel(handle):
    return np.int32(_barrier(handle).sizes()[1])


op_registry.declare(
    "Barrier", outputs=["handle: Ref(string)"],
    attrs=["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []",
           "capacity: int = -1", "container: string = ''", "shared_name: string = ''"],
    shape=lambda op: [TensorShape([2])], kernel_factory=_barrier_factory,
    differentiable=False, stateful=True)
op_registry.declare(
    "BarrierInsertMany", inputs=["handle: Ref(string)", "keys: string", "values: T"],
    attrs=["T: type", "component_index: int"], kernel=_insert_kernel, differentiable=False,
    stateful=True)
op_registry.declare(
    "BarrierTakeMany", inputs=["handle: Ref(string)", "num_elements: int32"],
    outputs=["indices: int64", "keys: string", "values: component_types"],
    attrs=["component_types: list(type) >= 1", "allow_small_batch: bool = false",
           "wait_for_incomplete: bool = false", "timeout_ms: int = -1"],
    shape=lambda op: [TensorShape([None]), TensorShape([None])]
    + [unknown_shape() for _ in op._attrs["component_types"]],
    kernel=_take_kernel, differentiable=False, stateful=True)
op_registry.declare(
    "BarrierClose", inputs=["handle: Ref(string)"],
    attrs=["cancel_pending_enqueues: bool = false"], kernel=_close_kernel,
    differentiable=False, stateful=True)
op_registry.declare(
    "BarrierReadySize", inputs=["handle: Ref(string)"], outputs=["size: int32"],
    shape=lambda op: [scalar()], kernel=_ready_size_kernel, differentiable=False,
    stateful=True)
op_registry.declare(
    "BarrierIncompleteSize", inputs=["handle: Ref(string)"], outputs=["size: int32"],
    shape=lambda op: [scalar()], kernel=_incomplete_size_kernel, differentiable=False,
    stateful=True)


class Barrier:
    """A barrier of string-keyed tuples (TF 1.x ``data_flow_ops.Barrier``).

    ``types`` is one dtype or a list; ``shapes`` (optional) one fully-defined shape per
    component. Methods as TF's: ``insert_many``, ``take_many``, ``close``, ``ready_size``,
    ``incomplete_size``; properties ``barrier_ref``, ``name``, ``component_types``,
    ``shapes``.
    """

    def __init__(self, types, shapes=None, shared_name=None, name="barrier"):
        from tideflow.ops.data_flow_ops import _as_shape_list, _as_type_list
        self._types = _as_type_list(types)
        if shapes is not None:
            shapes = _as_shape_list(shapes, self._types)
            self._shapes = [TensorShape(s) for s in shapes]
            for i, s in enumerate(self._shapes):
                if s.num_elements() == 0:
                    raise ValueError(f"Empty tensors are not supported, but received shape "
                                     f"'{tuple(s.as_list())}' at index {i}")
        else:
            self._shapes = [unknown_shape() for _ in self._types]
        attrs = {"component_types": list(self._types),
                 "shapes": [] if shapes is None else list(self._shapes), "capacity": -1,
                 "container": "", "shared_name": shared_name or ""}
        self._barrier_ref = ops.apply_op("Barrier", [], attrs, name=name).outputs[0]
        self._name = self._barrier_ref.op.name.split("/")[-1]

    barrier_ref = property(lambda self: self._barrier_ref)
    name = property(lambda self: self._barrier_ref.op.name)
    component_types = property(lambda self: self._types)
    shapes = property(lambda self: self._shapes)

    def insert_many(self, component_index, keys, values, name=None):
        """Sets component ``component_index`` of each key's tuple to the matching row of
        ``values``."""
        with ops.name_scope(name, f"{self._name}_BarrierInsertMany",
                            [self._barrier_ref, keys, values]) as scope:
            keys_t = ops.convert_to_tensor(keys, dtype=_dtypes.string, name="keys")
            values_t = ops.convert_to_tensor(values, dtype=self._types[component_index],
                                             name="values")
            return ops.apply_op("BarrierInsertMany", [self._barrier_ref, keys_t, values_t],
                                {"T": values_t.dtype, "component_index": component_index},
                                name=scope)

    def take_many(self, num_elements, allow_small_batch=False, timeout=None, name=None):
        """``(indices, keys, values)``: removes ``num_elements`` ready tuples (fewer, on a
        closed barrier, with ``allow_small_batch``), blocking until they are ready."""
        if name is None:
            name = f"{self._name}_BarrierTakeMany"
        num = ops.convert_to_tensor(num_elements, dtype=_dtypes.int32, name="num_elements")
        op = ops.apply_op("BarrierTakeMany", [self._barrier_ref, num],
                          {"component_types": list(self._types),
                           "allow_small_batch": allow_small_batch,
                           "wait_for_incomplete": False,
                           "timeout_ms": -1 if timeout is None else int(timeout)}, name=name)
        indices, keys = op.outputs[0], op.outputs[1]
        values = list(op.outputs[2:])
        batch_dim = None
        if not allow_small_batch:
            value = ops.constant_value(num)
            batch_dim = None if value is None else int(value)
        indices.set_shape([batch_dim])
        keys.set_shape([batch_dim])
        for v, shape in zip(values, self._shapes):
            v.set_shape(TensorShape([batch_dim]).concatenate(shape))
        return indices, keys, values

    def close(self, cancel_pending_enqueues=False, name=None):
        """Refuses new keys; with ``cancel_pending_enqueues`` also drops the incomplete ones
        and refuses every insert."""
        if name is None:
            name = f"{self._name}_BarrierClose"
        return ops.apply_op("BarrierClose", [self._barrier_ref],
                            {"cancel_pending_enqueues": cancel_pending_enqueues}, name=name)

    def ready_size(self, name=None):
        """An int32 scalar: the number of complete tuples."""
        if name is None:
            name = f"{self._name}_BarrierReadySize"
        return ops.apply_op("BarrierReadySize", [self._barrier_ref], {},
                            name=name).outputs[0]

    def incomplete_size(self, name=None):
        """An int32 scalar: the number of keys still missing components."""
        if name is None:
            name = f"{self._name}_BarrierIncompleteSize"
        return ops.apply_op("BarrierIncompleteSize", [self._barrier_ref], {},
                            name=name).outputs[0]
