"""A SparseTensor times (or divided by) a dense tensor: ``sp * dense``, ``dense * sp``, ``sp / dense``.

As TF's SparseDenseCwiseMul/Div: the dense side broadcasts to the sparse tensor's shape, and
the result keeps the sparse tensor's indices (built here from gather_nd, so it differentiates).
"""

from tideflow.framework import dtypes, ops
from tideflow.framework.sparse_tensor import SparseTensor


def _cwise(sp, dense, fn, name):
    from tideflow.ops import array_ops, cast_ops, constant_op, gather_ops

    with ops.name_scope(None, name, [sp.indices, sp.values, sp.dense_shape, dense]):
        dense = ops.convert_to_tensor(dense, dtype=sp.values.dtype.base_dtype, name="y")
        ds, ss = dense.get_shape(), sp.get_shape()
        if ds.ndims is not None and ss.ndims is not None and ds.ndims > ss.ndims:
            raise ValueError(f"{name}: the dense operand (shape {ds}) has more dimensions than "
                             f"the sparse one (shape {ss}); only the dense side broadcasts")
        shape = cast_ops.cast(sp.dense_shape, dtypes.int64)
        if not _may_broadcast(ds, ss):
            # TF checks the shapes when the op runs, not when it is built (a graph whose
            # mismatched product is never run builds); hide the known shape from inference
            shape = constant_op.placeholder_with_default(shape, [None])
        full = array_ops.broadcast_to(dense, shape)
        picked = gather_ops.gather_nd(full, sp.indices)
        values = fn(sp.values, picked)
        values.set_shape(sp.values.get_shape())  # one value per index, as TF infers
        return SparseTensor(sp.indices, values, sp.dense_shape)


def _may_broadcast(dense_shape, sparse_shape):
    """False when the static shapes show the dense side cannot broadcast to the sparse one."""
    if dense_shape.ndims is None or sparse_shape.ndims is None:
        return True
    for d, s in zip(reversed(dense_shape.as_list()), reversed(sparse_shape.as_list())):
        if d is not None and s is not None and d != 1 and d != s:
            return False
    return True


def _mul(self, other):
    if isinstance(other, SparseTensor):
        return NotImplemented
    from tideflow.ops import math_ops

    return _cwise(self, other, math_ops.multiply, "SparseDenseCwiseMul")


def _truediv(self, other):
    if isinstance(other, SparseTensor):
        return NotImplemented
    from tideflow.ops import math_ops

    return _cwise(self, other, math_ops.truediv, "SparseDenseCwiseDiv")


def _div(self, other):
    if isinstance(other, SparseTensor):
        return NotImplemented
    from tideflow.ops import math_ops

    return _cwise(self, other, math_ops.div, "SparseDenseCwiseDiv")


def _rmul(self, other):
    # Tensor * sparse (TF's Tensor.__mul__ dispatches it to SparseDenseCwiseMul): a SparseTensor;
    # a Python number or NumPy array times a SparseTensor is a TypeError, as in TF
    if not isinstance(other, ops.Tensor):
        return NotImplemented
    from tideflow.ops import math_ops

    return _cwise(self, other, math_ops.multiply, "SparseDenseCwiseMul")


SparseTensor.__mul__ = _mul
SparseTensor.__rmul__ = _rmul
SparseTensor.__truediv__ = _truediv
SparseTensor.__div__ = _div
