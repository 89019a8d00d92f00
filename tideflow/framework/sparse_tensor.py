"""``tf.SparseTensor``: indices [N, rank] int64, values [N], dense_shape [rank] int64.

Fetching one gives a ``SparseTensorValue``; feeding one (as a feed_dict key) takes a
``SparseTensorValue`` or an (indices, values, dense_shape) tuple, as TF does.
"""

import collections

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import as_shape, unknown_shape

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


class SparseTensor:
    """A sparse tensor: the values at ``indices`` of a tensor of shape ``dense_shape``."""

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values,
                   sparse_tensor_value.dense_shape)

    def __init__(self, indices, values, dense_shape=None, shape=None):
        if shape is not None:  # 0.x's name for dense_shape
            if dense_shape is not None:
                raise ValueError("Cannot specify both 'dense_shape' and 'shape'")
            dense_shape = shape
        if dense_shape is None:
            raise TypeError("__init__() missing 1 required positional argument: 'dense_shape'")
        with ops.name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            self._indices = ops.convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
            self._values = ops.convert_to_tensor(values, name="values")
            self._dense_shape = ops.convert_to_tensor(dense_shape, dtype=dtypes.int64,
                                                      name="dense_shape")
        # as TF: the parts' ranks are checked ("Shape (2,) must have rank 2"), then one index
        # row per value and one index column per dense dimension, leaving the parts' own
        # static shapes as they are
        ind = self._indices.get_shape().with_rank(2)
        vals = self._values.get_shape().with_rank(1)
        shape = self._dense_shape.get_shape().with_rank(1)
        ind.dims[0].merge_with(vals.dims[0])
        ind.dims[1].merge_with(shape.dims[0])

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    def consumers(self):
        """The ops that use any of the indices, values or dense_shape tensors (each once)."""
        seen = {}
        for component in (self._indices, self._values, self._dense_shape):
            for op in component.consumers():
                seen.setdefault(id(op), op)
        return list(seen.values())

    @property
    def graph(self):
        return self._indices.graph

    def get_shape(self):
        # as TF 1.15: what its Python constant_value_as_shape finds in dense_shape (a shape
        # TF's C++ shape inference sees, e.g. a slice's, stays unknown here as in TF)
        return _python_shape_value(self._dense_shape)

    @property
    def shape(self):
        return self.get_shape()

    def eval(self, feed_dict=None, session=None):
        session = ops._session_for(
            session, self.graph, "evaluate tensor", "tensor",
            "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`",
            "`eval(session=sess)`")  # TF 1.15's words, as Tensor.eval's
        return session.run(self, feed_dict)

    def __str__(self):  # as TF: the components' str(), Tensor("...", shape=..., dtype=...)
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self._dense_shape})")

    # repr: TF 1.15's SparseTensor has none of its own (<...SparseTensor object at 0x...>)

    # Session.run protocol: one fetch made of three tensors
    def _tf_fetch_components(self):
        return [self._indices, self._values, self._dense_shape], (
            lambda vals: SparseTensorValue(*vals)
        )

    # feed_dict protocol: a SparseTensor key is fed (indices, values, dense_shape)
    def _tf_feed_components(self):
        def split(value):
            # as TF, the parts are zipped with (indices, values, dense_shape): a shorter value
            # leaves the rest unfed, and a value that is no sequence (a SparseTensor, a number)
            # fails as that zip does under TF 1.15's Python
            if not hasattr(value, "__iter__"):
                raise TypeError("zip argument #2 must support iteration")
            return list(value)

        return [self._indices, self._values, self._dense_shape], split


def is_sparse(x):
    """Whether ``x`` is a SparseTensor or a SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """SparseTensors and SparseTensorValues stay sparse; anything else becomes a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype: requested = {dtype}, actual = {value.dtype}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


# ------------------------------------------------------------------------------------------
# TF 1.15's Python-side constant evaluation (tensor_util.constant_value and
# constant_value_as_shape), which SparseTensor.get_shape uses: it sees through fewer ops than
# tideflow's ops.constant_value (which also serves shape inference)
# ------------------------------------------------------------------------------------------


def _python_value(t):
    """``t``'s value as TF 1.15's ``tensor_util.constant_value`` finds it, else None. As TF,
    a tensor whose value was found (the inputs it was found from too) may no longer be fed,
    since the graph built from here on may rely on that value."""
    v = _python_value_of(t)
    if v is not None:
        t._op._graph.prevent_feeding(t)
    return v


def _python_values(ts):
    # as TF: stops at the first unknown value (those after it are not looked at)
    values = []
    for x in ts:
        v = _python_value(x)
        if v is None:
            return None
        values.append(v)
    return values


def _python_value_of(t):
    op = t._op
    typ = op._type
    ins = op._inputs
    if typ == "Const":
        return ops.constant_value(t)
    if typ in ("Shape", "Size", "Rank"):
        s = ins[0]._shape
        if typ == "Rank":
            return None if s.ndims is None else np.array(s.ndims, np.int32)
        if not s.is_fully_defined():
            return None
        dims = s.as_list()
        if typ == "Size":
            return np.array(np.prod(dims, dtype=np.int64), t.dtype.as_numpy_dtype)
        return np.array(dims, t.dtype.as_numpy_dtype)
    if typ == "Range":
        bounds = _python_values(ins)
        if bounds is None:
            return None
        return np.arange(*bounds, dtype=t.dtype.as_numpy_dtype)
    if typ == "Cast":
        v = _python_value(ins[0])
        return None if v is None else np.asarray(v).astype(t.dtype.as_numpy_dtype)
    if typ in ("Concat", "ConcatV2"):
        axis, parts = (ins[0], ins[1:]) if typ == "Concat" else (ins[-1], ins[:-1])
        axis = _python_value(axis)
        values = None if axis is None else _python_values(parts)
        return None if values is None else np.concatenate(values, axis=int(axis))
    if typ == "Pack":
        if not ins or op._attrs.get("axis", 0) != 0:
            return None
        values = _python_values(ins)
        return None if values is None else np.array(values)
    if typ == "Fill":
        v = _python_value(ins[1])
        if v is None or not t._shape.is_fully_defined():
            return None
        return np.full(t._shape.as_list(), v, dtype=t.dtype.as_numpy_dtype)
    if typ in ("Equal", "NotEqual"):
        values = _python_values(ins[:2])
        if values is None:
            return None
        return np.equal(*values) if typ == "Equal" else np.not_equal(*values)
    return None


def _python_shape_value(t):
    """The TensorShape a 1-D shape tensor ``t`` describes, as TF 1.15's
    ``tensor_util.constant_value_as_shape`` finds it."""
    shape = t._shape.with_rank(1)
    n = shape.dims[0].value
    if n == 0:
        return as_shape([])
    op = t._op
    typ = op._type
    if typ == "Shape":
        return op._inputs[0]._shape
    if typ == "Pack":
        dims = []
        for x in op._inputs:
            v = _python_value(x)
            dims.append(None if v is None or int(v) < 0 else int(v))
        return as_shape(dims)
    if typ in ("Concat", "ConcatV2"):
        parts = op._inputs[1:] if typ == "Concat" else op._inputs[:-1]
        out = as_shape([])
        for x in parts:
            out = out.concatenate(_python_shape_value(x))
        return out
    if typ == "StridedSlice":
        a = op._attrs
        begin, end, strides = (_python_value(x) for x in op._inputs[1:4])
        masks_ok = (not a["ellipsis_mask"] and not a["new_axis_mask"]
                    and not a["shrink_axis_mask"] and a["begin_mask"] in (0, 1)
                    and a["end_mask"] in (0, 1))
        if begin is not None and end is not None and strides is not None and masks_ok:
            try:
                b = None if a["begin_mask"] == 1 else int(np.asarray(begin).reshape(-1)[0])
                e = None if a["end_mask"] == 1 else int(np.asarray(end).reshape(-1)[0])
                st = int(np.asarray(strides).reshape(-1)[0])
                prev = _python_shape_value(op._inputs[0])
                return as_shape(prev.dims[b:e:st] if prev.ndims is not None else None)
            except (TypeError, ValueError):
                pass
    out = unknown_shape(n)
    v = _python_value(t)
    if v is not None:
        out = out.merge_with(as_shape([int(d) if d >= 0 else None for d in np.asarray(v)]))
    return out
