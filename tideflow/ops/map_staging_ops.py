"""Keyed staging areas: ``data_flow_ops.MapStagingArea`` (TF 1.x).

A map staging area holds tuples under int64 keys in its device's resource manager (every op
of one area carries the area's name as ``shared_name``). ``put(key, values, indices)``
(``MapStage``) stores some or all components of the tuple of ``key``: a tuple missing
components is *incomplete* and waits for the rest; a complete one counts towards
``capacity``/``memory_limit`` and a put that would exceed them blocks. ``get(key, indices)``
(``MapUnstage``) blocks until ``key`` is complete and removes the components asked for (the
key goes once all are removed); ``get()`` without a key (``MapUnstageNoKey``) takes the
smallest key (``ordered=True``) or the oldest one; ``peek`` (``MapPeek``) reads without
removing. ``size``/``incomplete_size``/``clear`` count complete and incomplete keys and drop
everything. With ``ordered=True`` the ops are the ``OrderedMap*`` ones.
"""

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import scalar, unknown_shape
from tideflow.ops.queue_ops import COMPLETE, NO_PROGRESS, Attempt, BlockingResource
from tideflow.ops.staging_ops import BaseStagingArea

__all__ = ["MapStagingArea"]

_ATTRS = ["capacity: int >= 0 = 0", "memory_limit: int >= 0 = 0", "dtypes: list(type)",
          "container: string = ''", "shared_name: string = ''"]


def _nbytes(values):
    return sum(getattr(v, "nbytes", 0) for v in values if v is not None)


class MapStagingAreaResource(BlockingResource):
    """The complete and incomplete tuples of one area and its blocked ops."""

    kind = "MapStagingArea"
    _in_order = False  # a take completes as soon as its key (or tuple) is there

    def __init__(self, name, capacity, memory_limit, ordered, size):
        super().__init__()
        self.name = name
        self.n = size  # the tuple's length, known from the first put (gets may pick fewer)
        self.capacity = capacity
        self.memory_limit = memory_limit
        self.ordered = ordered
        self.complete = {}    # key -> list of arrays (None where already removed)
        self.incomplete = {}  # key -> list of arrays (None where not yet put)
        self.bytes = 0
        self._puts = []
        self._gets = []

    def _pending(self):
        return ((self._puts, "MapStage"), (self._gets, "MapUnstage"))

    def _put_back(self, taken):
        pass  # what a dead step's get removed is not restored

    def _full(self, nbytes):
        if self.capacity and len(self.complete) >= self.capacity:
            return True
        return bool(self.memory_limit) and bool(self.complete) and (
            self.bytes + nbytes > self.memory_limit)

    def put(self, key, indices, values, size, step):
        if self.n is None:
            self.n = size
        nbytes = _nbytes(values)
        if self.memory_limit and nbytes > self.memory_limit:
            raise errors.ResourceExhaustedError(
                None, None, f"Attempted to insert tensors with combined size of '{nbytes}' "
                f"bytes into Staging Area '{self.name}' with a memory limit of "
                f"'{self.memory_limit}'.")
        if len(indices) != len(values):
            raise errors.InvalidArgumentError(
                None, None, f"Number of indices '{len(indices)}' must equal the number of "
                f"values '{len(values)}'.")
        for i in indices:
            if not 0 <= i < self.n:
                raise errors.InvalidArgumentError(
                    None, None, f"Index '{i}' for key '{key}' was out of bounds '{self.n}'.")

        def run(a):
            if key in self.complete:
                a.error = errors.InvalidArgumentError(
                    None, None, f"Key '{key}' already exists in the Staging Area.")
                return COMPLETE
            tup = self.incomplete.get(key)
            if tup is None and len(indices) < self.n:
                tup = self.incomplete[key] = [None] * self.n
            if tup is not None:
                for i, v in zip(indices, values):
                    if tup[i] is not None:
                        a.error = errors.InvalidArgumentError(
                            None, None, f"Tensor at index '{i}' for key '{key}' has already "
                            f"been inserted.")
                        return COMPLETE
                merged = list(tup)
                for i, v in zip(indices, values):
                    merged[i] = v
                if any(v is None for v in merged):
                    self.incomplete[key] = merged
                    return COMPLETE
            else:
                merged = [None] * self.n
                for i, v in zip(indices, values):
                    merged[i] = v
            # the tuple is complete: it enters the map when there is room
            size = _nbytes(merged)
            if self._full(size):
                if tup is not None:
                    for i, v in zip(indices, values):
                        tup[i] = v  # keep what was put; the key stays incomplete until room
                return NO_PROGRESS
            self.incomplete.pop(key, None)
            self.complete[key] = merged
            self.bytes += size
            return COMPLETE

        if step is None:
            return self._submit(self._puts, Attempt(1, run), step, "MapStage")
        # a full map: the put waits at the end of its step (see staging_ops)
        self._defer(self._puts, Attempt(1, run), step, "MapStage")
        return None

    def _pick(self, key):
        if key is not None:
            return key if key in self.complete else None
        if not self.complete:
            return None
        return min(self.complete) if self.ordered else next(iter(self.complete))

    def get(self, key, indices, remove, step):
        def run(a):
            k = self._pick(key)
            if k is None:
                return NO_PROGRESS
            tup = self.complete[k]
            for i in indices:
                if tup[i] is None:
                    a.error = errors.InvalidArgumentError(
                        None, None, f"Tensor at index '{i}' for key '{k}' has already been "
                        f"removed.")
                    return COMPLETE
            a.result = (k, [tup[i] for i in indices])
            if remove:
                for i in indices:
                    self.bytes -= _nbytes([tup[i]])
                    tup[i] = None
                if all(v is None for v in tup):
                    del self.complete[k]
            return COMPLETE

        what = "MapUnstage" if remove else "MapPeek"
        return self._submit(self._gets, Attempt(1, run), step, what)

    def sizes(self):
        with self._cond:
            return len(self.complete), len(self.incomplete)

    def clear(self):
        with self._cond:
            self.complete.clear()
            self.incomplete.clear()
            self.bytes = 0
            self._flush()


def _area(ctx):
    op = ctx.op
    attrs = op._attrs
    name = attrs.get("shared_name") or op.name
    ordered = op.type.startswith("Ordered")
    area = ctx.resource_mgr.lookup_or_create(
        attrs.get("container") or "", name,
        lambda: MapStagingAreaResource(name, attrs["capacity"], attrs["memory_limit"], ordered,
                                       None))
    if not isinstance(area, MapStagingAreaResource):
        raise errors.InvalidArgumentError(
            None, op, f"Resource '{name}' of Node '{op.name}' is not a MapStagingArea")
    return area


def _indices(indices):
    return [int(i) for i in np.reshape(indices, -1)]


def _stage_kernel(key, indices, values, *, ctx, step):
    _area(ctx).put(int(key), _indices(indices), [np.array(v, copy=True) for v in values],
                   len(ctx.op._attrs["dtypes"]), step)


def _unstage_kernel(key, indices, *, ctx, step):
    return list(_area(ctx).get(int(key), _indices(indices), True, step)[1])


def _peek_kernel(key, indices, *, ctx, step):
    return list(_area(ctx).get(int(key), _indices(indices), False, step)[1])


def _unstage_no_key_kernel(indices, *, ctx, step):
    k, values = _area(ctx).get(None, _indices(indices), True, step)
    return [np.int64(k)] + list(values)


def _size_kernel(*, ctx):
    return np.int32(_area(ctx).sizes()[0])


def _incomplete_size_kernel(*, ctx):
    return np.int32(_area(ctx).sizes()[1])


def _clear_kernel(*, ctx):
    _area(ctx).clear()


def _unknown(op):
    return [unknown_shape() for _ in op._attrs["dtypes"]]


for _prefix in ("", "Ordered"):
    op_registry.declare(f"{_prefix}MapStage",
                        inputs=["key: int64", "indices: int32", "values: fake_dtypes"],
                        attrs=_ATTRS + ["fake_dtypes: list(type)"], kernel=_stage_kernel,
                        differentiable=False, stateful=True)
    op_registry.declare(f"{_prefix}MapUnstage", inputs=["key: int64", "indices: int32"],
                        outputs=["values: dtypes"], attrs=_ATTRS, shape=_unknown,
                        kernel=_unstage_kernel, differentiable=False, stateful=True)
    op_registry.declare(f"{_prefix}MapPeek", inputs=["key: int64", "indices: int32"],
                        outputs=["values: dtypes"], attrs=_ATTRS, shape=_unknown,
                        kernel=_peek_kernel, differentiable=False, stateful=True)
    op_registry.declare(f"{_prefix}MapUnstageNoKey", inputs=["indices: int32"],
                        outputs=["key: int64", "values: dtypes"], attrs=_ATTRS,
                        shape=lambda op: [scalar()] + _unknown(op),
                        kernel=_unstage_no_key_kernel, differentiable=False, stateful=True)
    op_registry.declare(f"{_prefix}MapSize", outputs=["size: int32"], attrs=_ATTRS,
                        shape=lambda op: [scalar()], kernel=_size_kernel,
                        differentiable=False, stateful=True)
    op_registry.declare(f"{_prefix}MapIncompleteSize", outputs=["size: int32"], attrs=_ATTRS,
                        shape=lambda op: [scalar()], kernel=_incomplete_size_kernel,
                        differentiable=False, stateful=True)
    op_registry.declare(f"{_prefix}MapClear", attrs=_ATTRS, kernel=_clear_kernel,
                        differentiable=False, stateful=True)


class MapStagingArea(BaseStagingArea):
    """A staging area of tuples (dicts when ``names`` is given) under int64 keys.

    Same constructor and methods as TF's: ``put(key, vals, indices=None)``,
    ``get(key=None, indices=None)`` (a ``(key, values)`` pair), ``peek(key, indices=None)``,
    ``size()``, ``incomplete_size()``, ``clear()``. ``indices`` pick components (positions,
    or names when the area has names), so tuples can be put and taken in parts.
    """

    _kind = "MapStagingArea"

    def __init__(self, dtypes, shapes=None, names=None, shared_name=None, ordered=False,
                 capacity=0, memory_limit=0):
        super().__init__(dtypes, shapes, names, shared_name, capacity, memory_limit)
        self._ordered = ordered
        prefix = "Ordered" if ordered else ""
        self._ops = {k: prefix + k for k in ("MapStage", "MapUnstage", "MapPeek",
                                            "MapUnstageNoKey", "MapSize", "MapIncompleteSize",
                                            "MapClear")}

    def _positions(self, indices):
        """Component positions for ``indices`` (all when None; names when the area has
        names)."""
        if indices is None:
            return list(range(len(self._dtypes)))
        if not isinstance(indices, (list, tuple)):
            indices = [indices]
        out = []
        for i in indices:
            if isinstance(i, str):
                if self._names is None:
                    raise ValueError(f"String index '{i}' given but the staging area has no "
                                     "names")
                if i not in self._names:
                    raise ValueError(f"Named index '{i}' not in staging area names "
                                     f"{self._names}")
                out.append(self._names.index(i))
            else:
                out.append(int(i))
        return out

    def _key(self, key):
        return ops.convert_to_tensor(key, dtype=_dtypes.int64, name="key")

    def put(self, key, vals, indices=None, name=None):
        """Stages the components ``vals`` (a list, or a dict of names) of ``key``'s tuple."""
        with ops.name_scope(name, f"{self._name}_put") as scope:
            if isinstance(vals, dict):
                if self._names is None:
                    raise ValueError("Staging areas must have names to enqueue a dictionary")
                unknown = [k for k in vals if k not in self._names]
                if unknown:
                    raise ValueError(f"Keys {unknown} of the values are not in the staging "
                                     f"area's names {self._names}")
                order = sorted(vals, key=self._names.index)
                positions = [self._names.index(k) for k in order]
                vals = [vals[k] for k in order]
            else:
                if not isinstance(vals, (list, tuple)):
                    vals = [vals]
                positions = self._positions(indices)
                if len(positions) != len(vals):
                    raise ValueError(f"Number of indices {len(positions)} does not match the "
                                     f"number of values {len(vals)}")
            tensors = []
            for i, v in zip(positions, vals):
                t = ops.convert_to_tensor(v, dtype=self._dtypes[i], name=f"component_{i}")
                if not t.get_shape().is_compatible_with(self._shapes[i]):
                    raise ValueError(f"MapStagingArea.put: component {i} has shape "
                                     f"{t.get_shape()}, incompatible with the area's "
                                     f"{self._shapes[i]}")
                tensors.append(t)
            attrs = self._attrs()
            attrs["fake_dtypes"] = [t.dtype for t in tensors]
            idx = ops.convert_to_tensor(positions, dtype=_dtypes.int32, name="indices")
            return ops.apply_op(self._ops["MapStage"], [self._key(key), idx, tensors], attrs,
                                name=scope)

    def _values(self, outs, positions):
        for t, i in zip(outs, positions):
            t.set_shape(self._shapes[i])
        if self._names is not None:
            return {self._names[i]: t for t, i in zip(outs, positions)}
        return list(outs)

    def _pick_attrs(self, positions):
        attrs = self._attrs()
        attrs["dtypes"] = [self._dtypes[i] for i in positions]
        return attrs

    def get(self, key=None, indices=None, name=None):
        """``(key, values)``: removes the components ``indices`` of ``key``'s tuple (of the
        smallest or oldest key when ``key`` is None), blocking until it is complete."""
        positions = self._positions(indices)
        idx = ops.convert_to_tensor(positions, dtype=_dtypes.int32)
        if key is None:
            op = ops.apply_op(self._ops["MapUnstageNoKey"], [idx], self._pick_attrs(positions),
                              name=name or f"{self._name}_get_nokey")
            return op.outputs[0], self._values(op.outputs[1:], positions)
        key_t = self._key(key)
        op = ops.apply_op(self._ops["MapUnstage"], [key_t, idx], self._pick_attrs(positions),
                          name=name or f"{self._name}_get")
        return key_t, self._values(op.outputs, positions)

    def peek(self, key, indices=None, name=None):
        """The components ``indices`` of ``key``'s tuple, without removing them."""
        positions = self._positions(indices)
        idx = ops.convert_to_tensor(positions, dtype=_dtypes.int32)
        op = ops.apply_op(self._ops["MapPeek"], [self._key(key), idx],
                          self._pick_attrs(positions), name=name or f"{self._name}_peek")
        return self._values(op.outputs, positions)

    def size(self, name=None):
        """An int32 scalar: the number of complete tuples."""
        return ops.apply_op(self._ops["MapSize"], [], self._attrs(),
                            name=name or f"{self._name}_size").outputs[0]

    def incomplete_size(self, name=None):
        """An int32 scalar: the number of tuples still missing components."""
        return ops.apply_op(self._ops["MapIncompleteSize"], [], self._attrs(),
                            name=name or f"{self._name}_incomplete_size").outputs[0]

    def clear(self, name=None):
        """Drops every complete and incomplete tuple."""
        return ops.apply_op(self._ops["MapClear"], [], self._attrs(),
                            name=name or f"{self._name}_clear")
