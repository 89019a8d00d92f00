"""SparseTensorsMap ops: SparseTensors stored by int64 handle, so that queues (which hold dense
tensors) can batch them. ``tf.train.batch`` and friends store each SparseTensor input
(AddSparseToTensorsMap, or AddManySparseToTensorsMap with ``enqueue_many``), batch the handles,
and rebuild one SparseTensor from a batch of handles (TakeManySparseFromTensorsMap), which
gains a leading batch dimension, as in TF.

A map is a resource of the device's resource manager named by the op's ``shared_name`` (or its
node name); taking a handle removes its entry.
"""

import itertools
import threading

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape, scalar


class SparseTensorsMap:
    """Handle -> (indices, values, dense_shape) of the SparseTensors stored so far."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self._next = itertools.count(0)  # as TF: the first handle is 0
        self._items = {}

    def add(self, indices, values, shape):
        with self._lock:
            h = next(self._next)
            self._items[h] = (indices, values, shape)
        return h

    def take(self, handle):
        with self._lock:
            item = self._items.pop(int(handle), None)
        if item is None:
            raise errors.InvalidArgumentError(
                None, None, f"Unable to find SparseTensor: {int(handle)} in map: {self.name}")
        return item


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _map_factory(ctx):
    op = ctx.op
    container = op._attrs.get("container") or ""
    name = op._attrs.get("shared_name") or op.name
    return lambda: ctx.resource_mgr.lookup_or_create(container, name,
                                                     lambda: SparseTensorsMap(name))


def _check_sparse(indices, values, shape):
    indices = np.asarray(indices, np.int64)
    shape = np.asarray(shape, np.int64)
    values = np.asarray(values)
    if indices.ndim != 2 or shape.ndim != 1 or values.ndim != 1:
        raise _invalid(f"Input indices should be a matrix, values a vector and shape a vector "
                       f"but received shapes: {list(indices.shape)}, {list(values.shape)}, "
                       f"{list(shape.shape)}")
    if indices.shape[1] != shape.shape[0] or indices.shape[0] != values.shape[0]:
        raise _invalid(f"Inconsistent SparseTensor: indices {list(indices.shape)}, values "
                       f"{list(values.shape)}, shape {list(shape.shape)}")
    return indices, values, shape


def _add_factory(ctx):
    get_map = _map_factory(ctx)

    def run(sparse_indices, sparse_values, sparse_shape):
        item = _check_sparse(sparse_indices, sparse_values, sparse_shape)
        return np.int64(get_map().add(*item))

    return run


def _add_many_factory(ctx):
    get_map = _map_factory(ctx)

    def run(sparse_indices, sparse_values, sparse_shape):
        indices, values, shape = _check_sparse(sparse_indices, sparse_values, sparse_shape)
        if shape.shape[0] < 2:
            raise _invalid(f"Rank of input SparseTensor should be > 1, but saw rank: "
                           f"{shape.shape[0]}")
        m = get_map()
        out = []
        for i in range(int(shape[0])):
            rows = indices[:, 0] == i
            out.append(m.add(indices[rows, 1:], values[rows], shape[1:]))
        return np.asarray(out, np.int64)

    return run


def _take_many_factory(ctx):
    get_map = _map_factory(ctx)
    dtype = ctx.op._attrs["dtype"]

    def run(sparse_handles):
        handles = np.asarray(sparse_handles, np.int64)
        if handles.ndim != 1:
            raise _invalid(f"sparse_handles should be a vector but received shape "
                           f"{list(handles.shape)}")
        m = get_map()
        items = [m.take(h) for h in handles]
        if not items:
            raise _invalid("Must provide at least 1 serialized SparseTensor, but "
                           "sparse_handles has 0 elements")
        rank = items[0][2].shape[0]
        for i, (_, _, shape) in enumerate(items):
            if shape.shape[0] != rank:
                # as TF, the ranks named count the batch dimension the result gains
                raise _invalid(f"Inconsistent rank across SparseTensors: rank prior to "
                               f"SparseTensor[{i}] was: {rank + 1} but rank of "
                               f"SparseTensor[{i}] is: {shape.shape[0] + 1}")
        out_shape = np.max(np.stack([s for _, _, s in items]), axis=0) if rank else np.zeros(
            [0], np.int64)
        out_idx = [np.concatenate([np.full((len(idx), 1), b, np.int64), idx], axis=1)
                   for b, (idx, _, _) in enumerate(items)]
        np_dtype = dtype.as_numpy_dtype if dtype != dtypes.string else object
        values = np.concatenate([np.asarray(v, np_dtype) for _, v, _ in items])
        return [np.concatenate(out_idx).reshape(-1, rank + 1), values,
                np.concatenate([[len(items)], out_shape]).astype(np.int64)]

    return run


_MAP_ATTRS = ["T: type", "container: string = ''", "shared_name: string = ''"]
_SPARSE_IN = ["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"]

op_registry.declare(
    "AddSparseToTensorsMap",
    inputs=_SPARSE_IN,
    outputs=["sparse_handle: int64"],
    attrs=_MAP_ATTRS,
    shape=lambda op: [scalar()],
    kernel_factory=_add_factory,
    differentiable=False,
    stateful=True,
)

op_registry.declare(
    "AddManySparseToTensorsMap",
    inputs=_SPARSE_IN,
    outputs=["sparse_handles: int64"],
    attrs=_MAP_ATTRS,
    shape=lambda op: [TensorShape([None])],
    kernel_factory=_add_many_factory,
    differentiable=False,
    stateful=True,
)


def _take_shape(op):  # the rank is not known from the handles (take_many sets it)
    return [TensorShape([None, None]), TensorShape([None]), TensorShape([None])]


op_registry.declare(
    "TakeManySparseFromTensorsMap",
    inputs=["sparse_handles: int64"],
    outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
    attrs=["dtype: type", "container: string = ''", "shared_name: string = ''"],
    shape=_take_shape,
    kernel_factory=_take_many_factory,
    differentiable=False,
    stateful=True,
)


def add_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """Stores ``sp_input``; returns its int64 scalar handle."""
    sp_input = SparseTensor.from_value(sp_input) if not isinstance(sp_input, SparseTensor) \
        else sp_input
    return ops.apply_op("AddSparseToTensorsMap",
                        [sp_input.indices, sp_input.values, sp_input.dense_shape],
                        {"container": container or "", "shared_name": shared_name or ""},
                        name=name)._outputs[0]


def add_many_sparse_to_tensors_map(sp_input, container=None, shared_name=None, name=None):
    """Stores each row (along dimension 0) of ``sp_input``; returns the int64 handles."""
    sp_input = SparseTensor.from_value(sp_input) if not isinstance(sp_input, SparseTensor) \
        else sp_input
    return ops.apply_op("AddManySparseToTensorsMap",
                        [sp_input.indices, sp_input.values, sp_input.dense_shape],
                        {"container": container or "", "shared_name": shared_name or ""},
                        name=name)._outputs[0]


def take_many_sparse_from_tensors_map(sparse_map_op, sparse_handles, rank=None, name=None):
    """The SparseTensors of ``sparse_handles`` (stored by ``sparse_map_op``) as one
    SparseTensor with a leading batch dimension."""
    return take_many(sparse_map_op._attrs.get("shared_name") or sparse_map_op.name,
                     sparse_map_op._attrs["T"], sparse_handles, rank=rank,
                     container=sparse_map_op._attrs.get("container") or "", name=name)


def take_many(shared_name, dtype, sparse_handles, rank=None, container="", name=None):
    """``take_many_sparse_from_tensors_map`` from the map named ``shared_name``."""
    op = ops.apply_op("TakeManySparseFromTensorsMap", [sparse_handles],
                      {"dtype": dtype, "container": container, "shared_name": shared_name},
                      name=name)
    indices, values, shape = op._outputs
    if rank is not None:
        indices.set_shape([None, rank + 1])
        shape.set_shape([rank + 1])
    return SparseTensor(indices, values, shape)
