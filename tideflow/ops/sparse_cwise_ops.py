"""A SparseTensor times (or divided by) a dense tensor: ``sp * dense``, ``dense * sp``, ``sp / dense``.

As TF's SparseDenseCwiseMul/Div: the dense side broadcasts to the sparse tensor's shape, and
the result keeps the sparse tensor's indices (built here from gather_nd, so it differentiates).
"""

from tideflow.framework import dtypes, ops
from tideflow.framework.sparse_tensor import SparseTensor


def _cwise(sp, dense, fn, name):
    from tideflow.ops import array_ops, cast_ops, gather_ops

    with ops.name_scope(None, name, [sp.indices, sp.values, sp.dense_shape, dense]):
        dense = ops.convert_to_tensor(dense, dtype=sp.values.dtype.base_dtype, name="y")
        ds, ss = dense.get_shape(), sp.get_shape()
        if ds.ndims is not None and ss.ndims is not None and ds.ndims > ss.ndims:
            raise ValueError(f"{name}: the dense operand (shape {ds}) has more dimensions than "
                             f"the sparse one (shape {ss}); only the dense side broadcasts")
        full = array_ops.broadcast_to(dense, cast_ops.cast(sp.dense_shape, dtypes.int64))
        picked = gather_ops.gather_nd(full, sp.indices)
        return SparseTensor(sp.indices, fn(sp.values, picked), sp.dense_shape)


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
