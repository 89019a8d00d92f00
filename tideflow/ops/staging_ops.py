"""Staging areas: ``tf.contrib.staging.StagingArea`` (``data_flow_ops.StagingArea``).

A staging area is a FIFO of tuples kept in its device's resource manager under the area's
name (every op of one area carries it as ``shared_name``; there is no handle tensor, as in
TF). ``put`` (op ``Stage``) appends a tuple and blocks while ``capacity`` tuples (or
``memory_limit`` bytes) are staged; ``get`` (``Unstage``) removes the oldest one and blocks
while the area is empty; ``peek(i)`` (``StagePeek``) returns the i-th without removing it and
blocks until it exists; ``size`` and ``clear`` are ``StageSize`` and ``StageClear``. A put
that finds the area full waits at the end of its step, not in place, so a step that stages the
next element and unstages the current one (the prefetch pattern) finishes in a serial plan.
Programs such as baselines' HER use it to prefetch a batch one step ahead of the train op.
"""

import collections

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tideflow.ops.queue_ops import COMPLETE, NO_PROGRESS, Attempt, BlockingResource

__all__ = ["StagingArea"]

_AREA_ATTRS = ["capacity: int >= 0 = 0", "memory_limit: int >= 0 = 0", "dtypes: list(type)",
               "container: string = ''", "shared_name: string = ''"]


class StagingAreaResource(BlockingResource):
    """The staged tuples and the blocked puts, gets and peeks of one area."""

    kind = "StagingArea"

    def __init__(self, name, capacity, memory_limit):
        super().__init__()
        self.name = name
        self.capacity = capacity
        self.memory_limit = memory_limit
        self.items = collections.deque()
        self.bytes = 0
        self._puts = collections.deque()
        self._gets = collections.deque()

    def _pending(self):
        return ((self._puts, "Stage"), (self._gets, "Unstage"))

    def _put_back(self, taken):
        self.items.appendleft(taken)
        self.bytes += _nbytes(taken)

    def _full(self, nbytes):
        if self.capacity and len(self.items) >= self.capacity:
            return True
        return bool(self.memory_limit) and self.items and self.bytes + nbytes > self.memory_limit

    def put(self, values, step):
        nbytes = _nbytes(values)
        if self.memory_limit and nbytes > self.memory_limit:
            raise errors.ResourceExhaustedError(
                None, None, f"Attempted to insert tensors with combined size of '{nbytes}' "
                f"bytes into Staging Area '{self.name}' with a memory limit of "
                f"'{self.memory_limit}'.")

        def run(a):
            if self._full(nbytes):
                return NO_PROGRESS
            self.items.append(values)
            self.bytes += nbytes
            return COMPLETE

        if step is None:
            return self._submit(self._puts, Attempt(1, run), step, "Stage")
        self._defer(self._puts, Attempt(1, run), step, "Stage")

    def get(self, index, remove, step):
        def run(a):
            if len(self.items) <= index:
                return NO_PROGRESS
            if remove:
                a.taken = self.items.popleft()
                self.bytes -= _nbytes(a.taken)
                a.result = a.taken
            else:
                a.result = self.items[index]
            return COMPLETE

        return self._submit(self._gets, Attempt(1, run), step, "Unstage" if remove else
                            "StagePeek")

    def size(self):
        with self._cond:
            return len(self.items)

    def clear(self):
        with self._cond:
            self.items.clear()
            self.bytes = 0
            self._flush()


def _nbytes(values):
    return sum(getattr(v, "nbytes", 0) for v in values)


def _area(ctx):
    op = ctx.op
    attrs = op._attrs
    name = attrs.get("shared_name") or op.name
    area = ctx.resource_mgr.lookup_or_create(
        attrs.get("container") or "", name,
        lambda: StagingAreaResource(name, attrs["capacity"], attrs["memory_limit"]))
    if not isinstance(area, StagingAreaResource):
        raise errors.InvalidArgumentError(
            None, op, f"Resource '{name}' of Node '{op.name}' is not a StagingArea")
    return area


def _check_types(ctx, values):
    want = ctx.op._attrs["dtypes"]
    if len(values) != len(want):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"StagingArea '{_area(ctx).name}': expected {len(want)} tensors, "
            f"got {len(values)}")


def _stage_kernel(values, *, ctx, step):
    _check_types(ctx, values)
    _area(ctx).put(tuple(np.array(v, copy=True) for v in values), step)


def _unstage_kernel(*, ctx, step):
    return list(_area(ctx).get(0, True, step))


def _peek_kernel(index, *, ctx, step):
    return list(_area(ctx).get(int(index), False, step))


def _size_kernel(*, ctx):
    return np.int32(_area(ctx).size())


def _clear_kernel(*, ctx):
    _area(ctx).clear()


op_registry.declare("Stage", inputs=["values: dtypes"], attrs=_AREA_ATTRS,
                    kernel=_stage_kernel, differentiable=False, stateful=True)
op_registry.declare("Unstage", outputs=["values: dtypes"], attrs=_AREA_ATTRS,
                    shape=lambda op: [unknown_shape() for _ in op._attrs["dtypes"]],
                    kernel=_unstage_kernel, differentiable=False, stateful=True)
op_registry.declare("StagePeek", inputs=["index: int32"], outputs=["values: dtypes"],
                    attrs=_AREA_ATTRS,
                    shape=lambda op: [unknown_shape() for _ in op._attrs["dtypes"]],
                    kernel=_peek_kernel, differentiable=False, stateful=True)
op_registry.declare("StageSize", outputs=["size: int32"], attrs=_AREA_ATTRS,
                    shape=lambda op: [scalar()], kernel=_size_kernel, differentiable=False,
                    stateful=True)
op_registry.declare("StageClear", attrs=_AREA_ATTRS, kernel=_clear_kernel,
                    differentiable=False, stateful=True)


class BaseStagingArea:
    """What TF's StagingArea and MapStagingArea share: the area's name (its ``shared_name``),
    component dtypes, optional shapes and names, capacity and memory limit."""

    _kind = "StagingArea"

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, capacity=0,
                 memory_limit=0):
        graph = ops.get_default_graph()
        self._name = graph.unique_name(self._kind) if shared_name is None else shared_name
        if not isinstance(self._name, str):
            raise ValueError(  # noqa: TRY004 - TF raises ValueError here
                f"shared_name must be a string, got {type(shared_name).__name__}")
        self._dtypes = [_dtypes.as_dtype(d) for d in dtypes]
        if shapes is None:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        else:
            if len(shapes) != len(self._dtypes):
                raise ValueError(f"StagingArea shapes must be the same length as dtypes: "
                                 f"{len(shapes)} shapes for {len(self._dtypes)} dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        if names is not None:
            if len(names) != len(self._dtypes):
                raise ValueError(f"StagingArea names must be the same length as dtypes: "
                                 f"{len(names)} names for {len(self._dtypes)} dtypes")
            self._names = list(names)
        else:
            self._names = None
        self._capacity = capacity
        self._memory_limit = memory_limit

    name = property(lambda self: self._name)
    dtypes = property(lambda self: self._dtypes)
    shapes = property(lambda self: self._shapes)
    names = property(lambda self: self._names)
    capacity = property(lambda self: self._capacity)
    memory_limit = property(lambda self: self._memory_limit)

    def _attrs(self):
        return {"dtypes": list(self._dtypes), "capacity": self._capacity,
                "memory_limit": self._memory_limit, "shared_name": self._name,
                "container": ""}


class StagingArea(BaseStagingArea):
    """A FIFO staging area of tuples (or dicts, when ``names`` is given) of tensors.

    Same constructor and methods as TF's: ``put(values)``, ``get()``, ``peek(index)``,
    ``size()``, ``clear()``; ``get`` and ``peek`` return a list of tensors (a dict when
    ``names`` is given), with ``shapes`` (optional, may be partial) set on them and checked on
    what ``put`` receives.
    """

    def _check_put_dtypes(self, values):
        # Messages as TF 1.x's StagingArea words them (users match on them).
        if isinstance(values, dict):
            if self._names is None:
                raise ValueError("Staging areas must have names to enqueue a dictionary")
            if sorted(values) != sorted(self._names):
                raise ValueError("Keys in dictionary to put do not match names of staging "
                                 f"area. Dictionary: ({sorted(values)}), Queue: "
                                 f"({sorted(self._names)})")
            values = [values[n] for n in self._names]
        else:
            if self._names is not None:
                raise ValueError("You must enqueue a dictionary in a staging area with names")
            if not isinstance(values, (list, tuple)):
                values = [values]
            if len(values) != len(self._dtypes):
                raise ValueError(f"Unexpected number of inputs '{len(values)}' vs "
                                 f"'{len(self._dtypes)}'")
        tensors = []
        for i, (v, dtype, shape) in enumerate(zip(values, self._dtypes, self._shapes)):
            vdtype = getattr(v, "dtype", None)
            if isinstance(vdtype, _dtypes.DType) and vdtype != dtype:
                raise ValueError(f"Datatypes do not match. '{vdtype}' != '{dtype}'")
            t = ops.convert_to_tensor(v, dtype=dtype, name=f"component_{i}")
            t.get_shape().assert_is_compatible_with(shape)
            tensors.append(t)
        return tensors

    def put(self, values, name=None):
        """Stages ``values`` (a list/tuple, one tensor, or a dict when names were given)."""
        with ops.name_scope(name, f"{self._name}_put") as scope:
            tensors = self._check_put_dtypes(values)
            return ops.apply_op("Stage", [tensors], self._attrs(), name=scope)

    def _outputs(self, op):
        outs = list(op.outputs)
        for t, shape in zip(outs, self._shapes):
            t.set_shape(shape)
        if self._names is not None:
            return dict(zip(self._names, outs))
        return outs  # a list even for one dtype, as in TF

    def get(self, name=None):
        """Removes and returns the oldest staged tuple (blocks while the area is empty)."""
        op = ops.apply_op("Unstage", [], self._attrs(), name=name or f"{self._name}_get")
        return self._outputs(op)

    def peek(self, index, name=None):
        """Returns the ``index``-th staged tuple without removing it."""
        index = ops.convert_to_tensor(index, dtype=_dtypes.int32)
        op = ops.apply_op("StagePeek", [index], self._attrs(),
                          name=name or f"{self._name}_peek")
        return self._outputs(op)

    def size(self, name=None):
        """An int32 scalar: the number of staged tuples."""
        return ops.apply_op("StageSize", [], self._attrs(),
                            name=name or f"{self._name}_size").outputs[0]

    def clear(self, name=None):
        """Drops every staged tuple."""
        return ops.apply_op("StageClear", [], self._attrs(), name=name or f"{self._name}_clear")
