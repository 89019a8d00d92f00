"""A SparseTensor times (or divided by) a dense tensor: ``sp * dense``, ``dense * sp``, ``sp / dense``.

As TF: the ops SparseDenseCwiseMul/Div/Add take the sparse tensor's parts and the dense side,
which broadcasts to the sparse tensor's shape (only that way); the result keeps the sparse
tensor's indices. The operators build them as TF's do (ops named ``mul``, ``truediv``, ...).
"""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import vector
from tideflow.ops.sparse_ops import _invalid


def _shape_str(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _cwise_kernel(fn):
    def kernel(sp_indices, sp_values, sp_shape, dense):
        idx = np.asarray(sp_indices, dtype=np.int64)
        vals = np.asarray(sp_values)
        shape = np.asarray(sp_shape, dtype=np.int64)
        dense = np.asarray(dense)
        # TF's checks and words
        if idx.ndim != 2 or vals.ndim != 1 or shape.ndim != 1:
            raise _invalid(f"Inputs sp_indices, sp_values, sp_shape should be a matrix, a "
                           f"vector and a vector; got shapes {_shape_str(idx.shape)}, "
                           f"{_shape_str(vals.shape)} and {_shape_str(shape.shape)}")
        lead = shape.shape[0] - dense.ndim
        ok = lead >= 0 and all(d in (1, s) for d, s in zip(dense.shape, shape[lead:]))
        if not ok:
            raise _invalid(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got "
                           f"incompatible shapes: {_shape_str(shape)} vs. "
                           f"{_shape_str(dense.shape)}")
        if idx.shape[1] != shape.shape[0] or ((idx < 0) | (idx >= shape)).any():
            raise _invalid("Provided indices are out-of-bounds w.r.t. dense side with "
                           "broadcasted shape")
        # the dense value at each index (a broadcast dimension of size 1 takes index 0)
        picked = dense[tuple(np.where(np.asarray(dense.shape) == 1, 0, idx[:, lead:]).T)]
        return fn(vals, picked.astype(vals.dtype, copy=False)).astype(vals.dtype, copy=False)

    return kernel


def _div(x, y):
    if x.dtype.kind in "iu":  # C++ integer division truncates; a zero divisor fails
        if (y == 0).any():
            raise _invalid("Integer division by zero")
        return np.trunc(np.true_divide(x, y)).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return x / y


def _cwise_grad(is_mul):
    def grad(op, g):
        from tideflow.ops import array_ops, cast_ops, concat_ops, fill_ops, gather_ops, math_ops
        from tideflow.ops.sparse_ops import sparse_add

        # as TF: each index scaled down to the dense side's (broadcast) shape, its dense
        # value gathered; the dense side's gradient adds up over the indices sharing one
        x_indices, x_values, x_shape, y = op._inputs
        y_shape = cast_ops.cast(array_ops.shape(y), dtypes.int64)
        added = array_ops.expand_dims(array_ops.size(x_shape) - array_ops.size(y_shape), 0)
        augmented = concat_ops.concat([fill_ops.ones(added, dtypes.int64), y_shape], 0)
        scaling = math_ops.floordiv(x_shape, augmented)
        scaled = math_ops.floordiv(x_indices, scaling)
        scaled = array_ops.slice(scaled, concat_ops.concat([[0], added], 0), [-1, -1])
        dense_vals = gather_ops.gather_nd(y, scaled)
        if is_mul:
            dx = g * dense_vals
            dy_val = g * x_values
        else:
            dx = g / dense_vals
            dy_val = g * (-x_values / math_ops.square(dense_vals))
        dy = sparse_add(fill_ops.zeros_like(y), SparseTensor(scaled, dy_val, y_shape))
        return [None, dx, None, dy]

    return grad


def _add_grad(op, g):
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is currently not implemented "
                              "yet.")  # (TF 1.15's)


def _values_shape(op):
    # as TF: one value per index row
    return [vector(op._inputs[0]._shape.with_rank(2).dims[0].value)]


for _name, _fn, _grad in (("SparseDenseCwiseMul", np.multiply, _cwise_grad(True)),
                          ("SparseDenseCwiseDiv", _div, _cwise_grad(False)),
                          ("SparseDenseCwiseAdd", np.add, _add_grad)):
    op_registry.declare(
        _name,
        inputs=["sp_indices: int64", "sp_values: T", "sp_shape: int64", "dense: T"],
        outputs=["output: T"],
        attrs=["T: numbertype"],
        shape=_values_shape,
        kernel=_cwise_kernel(_fn),
        grad=_grad,
    )


def _cwise(op_type, sp, dense, scope, name):
    """The op on ``sp``'s parts and ``dense`` (made ``sp``'s dtype, named ``y``) in a
    ``scope`` name scope whose name the op takes; a SparseTensor of the results."""
    with ops.name_scope(None, scope, [sp.indices, sp.values, sp.dense_shape]) as s:
        dense = _dense_side(dense, sp, name)
        values = ops.apply_op(op_type, [sp.indices, sp.values, sp.dense_shape, dense],
                              name=s)._outputs[0]
        return SparseTensor(sp.indices, values, sp.dense_shape)


def _dense_side(other, sp, name):
    dtype = sp.values.dtype.base_dtype
    if isinstance(other, SparseTensor):  # (TF's words: sparse * sparse is no op of TF's)
        raise TypeError(f"Expected {dtype.name}, got {other!r} of type 'SparseTensor' "
                        f"instead.")
    return ops.convert_to_tensor(other, dtype=dtype, name=name)


def _mul(self, other):
    return _cwise("SparseDenseCwiseMul", self, other, "mul", "y")


def _div_op(self, other):
    return _cwise("SparseDenseCwiseDiv", self, other, "div", "y")


_TRUEDIV = {dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32,
            dtypes.uint16: dtypes.float32, dtypes.int16: dtypes.float32,
            dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64}


def _truediv(self, other):
    from tideflow.ops import cast_ops

    sp = self
    with ops.name_scope(None, "truediv", [sp.indices, sp.values, sp.dense_shape]) as s:
        # as TF: both sides of one dtype, integers divided as floats
        y = _dense_side(other, sp, "y")
        values = ops.convert_to_tensor(sp.values, name="sp_values")
        x_dtype, y_dtype = values.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x_dtype!r} != {y_dtype!r}")
        dtype = _TRUEDIV.get(x_dtype)
        if dtype is not None:
            values = cast_ops.cast(values, dtype)
            y = cast_ops.cast(y, dtype)
        out = ops.apply_op("SparseDenseCwiseDiv", [sp.indices, values, sp.dense_shape, y],
                           name=s)._outputs[0]
        return SparseTensor(sp.indices, out, sp.dense_shape)


def _rmul(self, other):
    # Tensor * sparse (TF's Tensor.__mul__ dispatches it to SparseDenseCwiseMul): a SparseTensor;
    # a Python number or NumPy array times a SparseTensor is a TypeError, as in TF
    if not isinstance(other, ops.Tensor):
        return NotImplemented
    with ops.name_scope(None, "mul", [other, self]) as s:
        values = ops.apply_op("SparseDenseCwiseMul", [self.indices, self.values,
                                                      self.dense_shape, other],
                              name=s)._outputs[0]
        return SparseTensor(self.indices, values, self.dense_shape)


SparseTensor.__mul__ = _mul
SparseTensor.__rmul__ = _rmul
SparseTensor.__truediv__ = _truediv
SparseTensor.__div__ = _div_op
