"""Slot variables: per-variable optimizer state (accumulators, moving averages) named
``<var>/<name>``, colocated with their primary variable and never trainable."""

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import as_shape
from tideflow.ops import array_ops, fill_ops, init_ops, variable_scope


def _create_slot_var(primary, val, scope, validate_shape, shape, dtype):
    current = variable_scope.get_variable_scope()
    partitioner = current.partitioner
    current.set_partitioner(None)
    try:
        # a resource slot for a resource primary, a ref slot for a ref one (TF 1.15's rule)
        slot = variable_scope.get_variable(
            scope, initializer=val, trainable=False, shape=shape if callable(val) else None,
            dtype=dtype, validate_shape=validate_shape,
            use_resource=bool(getattr(primary, "_resource", False)),
        )
    finally:
        current.set_partitioner(partitioner)
    info = getattr(primary, "_save_slice_info", None)
    if info is not None:
        # the slot of a partition is a partition of the slot: saved as "<full name>/<slot>"
        # with the primary's offsets (truncated to the slot's rank; scalar slots stay whole)
        from tideflow.ops.variables import SaveSliceInfo

        real_slot_name = slot.name[len(primary.op.name + "/"):-2]
        n = slot.shape.ndims
        if n is None or n > 0:
            slot._set_save_slice_info(SaveSliceInfo(
                info.full_name + "/" + real_slot_name, info.full_shape[:n],
                info.var_offset[:n], info.var_shape[:n]))
    return slot


def create_slot(primary, val, name, colocate_with_primary=True):
    """A slot for ``primary`` initialized from the tensor ``val``, named ``<primary>/<name>``."""
    validate_shape = val.get_shape().is_fully_defined()
    prefix = primary.op.name
    with variable_scope.variable_scope(None, prefix + "/" + name):
        if colocate_with_primary:
            with ops.colocate_with(primary):
                return _create_slot_var(primary, val, "", validate_shape, None, None)
        return _create_slot_var(primary, val, "", validate_shape, None, None)


def create_slot_with_initializer(primary, initializer, shape, dtype, name,
                                 colocate_with_primary=True):
    """A slot for ``primary`` of ``shape`` and ``dtype`` made by ``initializer``."""
    shape = as_shape(shape)
    validate_shape = shape.is_fully_defined()
    prefix = primary.op.name
    with variable_scope.variable_scope(None, prefix + "/" + name):
        if colocate_with_primary:
            with ops.colocate_with(primary):
                return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)
        return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot for ``primary`` holding zeros of its shape (and its dtype unless given)."""
    if dtype is None:
        dtype = primary.dtype
    dtype = dtypes.as_dtype(dtype).base_dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(primary, init_ops.zeros_initializer(dtype=dtype),
                                            slot_shape, dtype, name, colocate_with_primary)
    val = fill_ops.zeros(array_ops.shape(primary), dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary=colocate_with_primary)
