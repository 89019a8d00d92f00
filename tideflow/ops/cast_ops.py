"""Type conversion: the Cast op, ``tf.cast``, ``tf.saturate_cast`` and the ``tf.to_*`` helpers."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops, sparse_tensor
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops.array_ops import _np, _register_fold


def _type_name(dt):
    from tideflow.ops.script_ops import _type_name as name  # TF's names: float, double, half

    return name(dt)


# types TF's CPU Cast kernel has no conversion for, to or from (its Unimplemented error)
_NO_CASTS = frozenset({dtypes.string, dtypes.resource, dtypes.variant})


def _cast_kernel(x, *, SrcT, DstT, Truncate):
    x = _np(x)
    dst = np.dtype(DstT.as_numpy_dtype)
    if x.dtype == dst:
        return x
    if x.dtype.kind in "biu" and dst.kind in "fc" and dst.itemsize >= 4:
        return x.astype(dst)  # no floating-point error: every integer fits (float16 may not)
    if SrcT in _NO_CASTS or DstT in _NO_CASTS:
        raise errors.UnimplementedError(
            None, None, f"Cast {_type_name(SrcT)} to {_type_name(DstT)} is not supported"
        )
    if x.dtype.kind == "c" and dst.kind != "c":
        x = x.real  # to bool as well: TF 1.15 tests the real part only (1j is False)
    if dst == np.bool_:
        return x != 0
    if Truncate and DstT == dtypes.bfloat16 and x.dtype.kind == "f":
        # drop the low mantissa bits instead of rounding
        bits = x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
        return bits.view(np.float32).astype(dst)
    with np.errstate(invalid="ignore", over="ignore"):
        if dst == np.uint32 and x.dtype.kind in "fV":
            # as TF's CPU kernel (x86): through int64, keeping the low 32 bits (-1.0 is
            # 4294967295; NaN and values past int64 are 0)
            return x.astype(np.int64).astype(dst)
        return x.astype(dst)


def _cast_grad(op, grad):
    # only casts between floating/complex types carry a gradient (cast back to the source)
    src = op._inputs[0].dtype.base_dtype
    dst = grad.dtype.base_dtype
    if (src.is_floating or src.is_complex) and (dst.is_floating or dst.is_complex):
        if isinstance(grad, IndexedSlices):
            return IndexedSlices(cast(grad.values, src), grad.indices, grad.dense_shape)
        return cast(grad, src)
    return None


op_registry.declare(
    "Cast",
    inputs=["x: SrcT"],
    outputs=["y: DstT"],
    attrs=["SrcT: type", "DstT: type", "Truncate: bool = false"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_cast_kernel,
    grad=_cast_grad,
)
_register_fold("Cast")


@add_dispatch_support(elementwise=1)
def cast(x, dtype, name=None):
    """Casts ``x`` to ``dtype`` (bool <-> numbers as 0/1; float -> int truncates toward zero)."""
    base = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, ops.Tensor) and x.dtype.base_dtype == base:
        return x
    if getattr(x, "_resource", False) is True and hasattr(x, "_ref") and x.dtype == base:
        return x  # as TF 1.15: a resource variable of that dtype is returned itself (unread)
    with ops.name_scope(name, "Cast", [x]) as scope:
        if isinstance(x, sparse_tensor.SparseTensor):
            # as TF: the values are cast, indices and dense shape pass through
            return sparse_tensor.SparseTensor(x.indices, cast(x.values, base, name=scope),
                                              x.dense_shape)
        if isinstance(x, IndexedSlices):
            return IndexedSlices(cast(x.values, base, name=scope), x.indices, x.dense_shape)
        x = ops.convert_to_tensor(x, name="x")
        if x.dtype.base_dtype != base:
            x = ops.apply_op("Cast", [x], {"DstT": base}, name=scope)._outputs[0]
        return x


def _as_number(v):
    return v if isinstance(v, int) else float(v)


@add_dispatch_support(elementwise=1)
def saturate_cast(value, dtype, name=None):
    """Casts ``value`` to ``dtype``, first clamping it to ``dtype``'s range."""
    with ops.name_scope(name, "saturate_cast", [value]) as scope:
        value = ops.convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        src = value.dtype.base_dtype
        # as TF 1.15: a bool or complex end has no range (DType.min's TypeError); compared
        # as Python numbers (NumPy 2 would cast int32's min to float16 and warn)
        if _as_number(src.min) < _as_number(dtype.min):
            lo = ops.convert_to_tensor(dtype.min, dtype=src, name="min")
            value = ops.apply_op("Maximum", [value, lo])._outputs[0]
        if _as_number(src.max) > _as_number(dtype.max):
            hi = ops.convert_to_tensor(dtype.max, dtype=src, name="max")
            value = ops.apply_op("Minimum", [value, hi])._outputs[0]
        return cast(value, dtype, name=scope)


def to_float(x, name="ToFloat"):
    """Casts ``x`` to float32."""
    return cast(x, dtypes.float32, name=name)


def to_double(x, name="ToDouble"):
    """Casts ``x`` to float64."""
    return cast(x, dtypes.float64, name=name)


def to_int32(x, name="ToInt32"):
    """Casts ``x`` to int32."""
    return cast(x, dtypes.int32, name=name)


def to_int64(x, name="ToInt64"):
    """Casts ``x`` to int64."""
    return cast(x, dtypes.int64, name=name)


def to_bfloat16(x, name="ToBFloat16"):
    """Casts ``x`` to bfloat16."""
    return cast(x, dtypes.bfloat16, name=name)
