"""Row updates and fresh buffers of TF 1.x's ``inplace_ops``: InplaceUpdate, InplaceAdd,
InplaceSub (rows ``i`` of ``x`` set to, raised or lowered by ``v``), Empty, DeepCopy and
ParallelConcat (``tf.parallel_stack``'s op in TF graphs).

tideflow kernels never write into their inputs, so the ``alias_*`` forms return the updated
copy, as the plain forms do; only a program reading ``x`` again after an alias update (to see
the change through the shared buffer) sees a difference."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _in, _invalid, _np, _shape_str, constant_value_as_shape


def _inplace_kernel(mode):
    def kernel(x, i, v):
        x, i, v = _np(x), np.asarray(i), _np(v)
        if i.ndim != 1:
            raise _invalid(f"i must be a vector. {_shape_str(i.shape)}")
        if x.ndim != v.ndim:
            raise _invalid(f"x and v shape doesn't match (ranks differ): {_shape_str(x.shape)} "
                           f"vs. {_shape_str(v.shape)}")
        for k in range(1, x.ndim):
            if x.shape[k] != v.shape[k]:
                raise _invalid(f"x and v shape doesn't match at index {k} : "
                               f"{_shape_str(x.shape)} vs. {_shape_str(v.shape)}")
        if i.shape[0] != v.shape[0]:
            raise _invalid(f"i and x shape doesn't match at index 0: {_shape_str(i.shape)} vs. "
                           f"{_shape_str(v.shape)}")
        n = x.shape[0] if x.ndim else 0
        bad = (i < -n) | (i >= n)
        if bad.any():
            k = int(np.argmax(bad))
            raise _invalid(f"i[{k}] = {int(i[k])} is not in [{-n}, {n})")
        out = x.copy()
        rows = i % n if n else i
        if mode == "update":
            out[rows] = v
        elif mode == "add":
            np.add.at(out, rows, v)
        else:
            np.subtract.at(out, rows, v)
        return out

    return kernel


for _name, _mode in (("InplaceUpdate", "update"), ("InplaceAdd", "add"), ("InplaceSub", "sub")):
    op_registry.declare(
        _name,
        inputs=["x: T", "i: int32", "v: T"],
        outputs=["y: T"],
        attrs=["T: type"],
        shape=lambda op: [_in(op, 0)],
        kernel=_inplace_kernel(_mode),
    )  # as TF: no gradient is defined


def _helper(op_type, x, i, v):
    from tideflow.ops.array_ops import expand_dims, reshape, shape
    from tideflow.ops.cast_ops import cast

    x = ops.convert_to_tensor(x)
    v = ops.convert_to_tensor(v, dtype=x.dtype.base_dtype)
    if i is None:  # the whole tensor: one row of everything
        y = ops.apply_op(op_type, [reshape(x, [1, -1]), [0], reshape(v, [1, -1])])._outputs[0]
        return reshape(y, shape(x))
    i = cast(i, dtypes.int32)
    if i.get_shape().ndims == 0:  # one row
        return ops.apply_op(op_type, [x, reshape(i, [1]), expand_dims(v, 0)])._outputs[0]
    return ops.apply_op(op_type, [x, i, v])._outputs[0]


def alias_inplace_update(x, i, v):
    """``x`` with rows ``i`` set to ``v`` (``i`` None: all of ``x``; a scalar: one row)."""
    return _helper("InplaceUpdate", x, i, v)


def alias_inplace_add(x, i, v):
    """``x`` with ``v`` added to rows ``i``."""
    return _helper("InplaceAdd", x, i, v)


def alias_inplace_sub(x, i, v):
    """``x`` with ``v`` subtracted from rows ``i``."""
    return _helper("InplaceSub", x, i, v)


def inplace_update(x, i, v):
    """A copy of ``x`` with rows ``i`` set to ``v``."""
    return alias_inplace_update(deep_copy(x), i, v)


def inplace_add(x, i, v):
    """A copy of ``x`` with ``v`` added to rows ``i``."""
    return alias_inplace_add(deep_copy(x), i, v)


def inplace_sub(x, i, v):
    """A copy of ``x`` with ``v`` subtracted from rows ``i``."""
    return alias_inplace_sub(deep_copy(x), i, v)


# ------------------------------------------------------------------------------------------
# DeepCopy, Empty
# ------------------------------------------------------------------------------------------

op_registry.declare(
    "DeepCopy",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: type"],
    shape=lambda op: [_in(op, 0)],
    kernel=lambda x: np.array(x, copy=True),
)


def deep_copy(x, name=None):
    """A copy of ``x`` in a buffer of its own."""
    return ops.apply_op("DeepCopy", [x], name=name)._outputs[0]


def _empty_kernel(shape, *, dtype, init):
    dims = [int(d) for d in np.reshape(shape, -1)]
    if any(d < 0 for d in dims):
        raise _invalid(f"Empty: a dimension is negative: {dims}")
    if dtype == dtypes.string:
        return np.full(dims, b"", dtype=object)
    # uninitialized in TF unless init; zeros here either way (NumPy's empty would be garbage)
    return np.zeros(dims, dtype=dtype.as_numpy_dtype)


op_registry.declare(
    "Empty",
    inputs=["shape: int32"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "init: bool = false"],
    shape=lambda op: [constant_value_as_shape(op._inputs[0])],
    kernel=_empty_kernel,
    differentiable=False,
    stateful=True,
)


def empty(shape, dtype, init=False, name=None):
    """A new tensor of ``shape`` and ``dtype`` (zeros when ``init``)."""
    return ops.apply_op("Empty", [ops.convert_to_tensor(shape, dtype=dtypes.int32)],
                        {"dtype": dtypes.as_dtype(dtype), "init": bool(init)},
                        name=name)._outputs[0]


def empty_like(x, init=None):
    """A new tensor of ``x``'s shape and dtype (zeros when ``init``)."""
    from tideflow.ops.array_ops import shape

    x = ops.convert_to_tensor(x)
    return empty(shape(x), x.dtype.base_dtype, init=bool(init))


# ------------------------------------------------------------------------------------------
# ParallelConcat: the rows of a shape known in advance, one from each input
# ------------------------------------------------------------------------------------------


def _parallel_concat_kernel(values, *, shape):
    values = [_np(v) for v in values]
    want = [d.value for d in shape.dims] if shape.ndims is not None else None
    for k, v in enumerate(values):
        if v.ndim == 0 or v.shape[0] != 1:
            raise _invalid(f"ParallelConcat: input {k} should have a leading dimension of 1, "
                           f"got shape {_shape_str(v.shape)}")
    out = np.concatenate(values, axis=0)
    if want is not None and any(w is not None and w != d for w, d in zip(want, out.shape)):
        raise _invalid(f"ParallelConcat: the inputs make shape {_shape_str(out.shape)}, not "
                       f"{_shape_str(shape)}")
    return out


def _parallel_concat_shape(op):
    shape = op._attrs["shape"]
    if not TensorShape(shape).is_fully_defined():
        raise ValueError("shape attr must be fully defined.")
    shape = TensorShape(shape)
    # as TF: each input is shaped [1] + shape[1:]
    want = TensorShape([1]).concatenate(shape[1:]) if shape.ndims else TensorShape([1])
    for t in op._inputs:
        s = t._shape
        if not s.is_fully_defined():
            raise ValueError("All input shapes must be fully defined.")
        if s.ndims is not None and s.ndims >= 1 and s.dims[0].value not in (None, 1):
            raise ValueError(f"ParallelConcat: each input must have a leading dimension of 1, "
                             f"got {_shape_str(s)}")
        if not want.is_compatible_with(s):
            raise ValueError(f"Shapes must be equal: {_shape_str(s)} and {_shape_str(want)}")
    return [shape]


op_registry.declare(
    "ParallelConcat",
    inputs=["values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 1", "T: type", "shape: shape"],
    shape=_parallel_concat_shape,
    kernel=_parallel_concat_kernel,
)  # as TF: no gradient is defined (tf.parallel_stack does not backpropagate)
