"""Scatter by n-d indices: ScatterNdUpdate/Add/Sub (into a ref variable, in place) and
TensorScatterUpdate/Add/Sub (a new tensor, differentiable)."""

import numpy as np

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.kernels.scatter import nd_at
from tideflow.ops.array_ops import _in, _np, _register_fold, _shape_str
from tideflow.ops.gradients import dense
from tideflow.ops.state_ops import _lvalue, ref_update_factory

_INDEX = "Tindices: {int32, int64}"


def _check_static(op_type, target, ix, up):
    """ValueError when the static shapes prove ``updates`` cannot be scattered into ``target``
    (named "input" for a ref variable's ScatterNd*, "output" for TensorScatter*, as TF's)."""
    target_name = "output" if op_type.startswith("TensorScatter") else "input"
    if ix.ndims == 0:
        raise ValueError(f"{op_type}: indices must be at least rank 1 but is rank 0")
    from tideflow.ops.gather_ops import check_empty_target

    check_empty_target(target, ix, up)
    if ix.ndims is None or ix.dims[-1].value is None or target.ndims in (None, 0):
        return  # a scalar target fails when run, in TF's words ("Output must be at least 1-D")
    k = ix.dims[-1].value
    if k > target.ndims:
        raise ValueError(
            f"{op_type}: the last dimension of indices ({k}) must be <= the rank of the "
            f"target ({target.ndims}); indices.shape={_shape_str(ix)}, "
            f"target.shape={_shape_str(target)}")
    if up.ndims is None:
        return
    want = TensorShape(ix.dims[:-1] + target.dims[k:])
    if not up.is_compatible_with(want):
        from tideflow.ops.gather_ops import scatter_shape_mismatch

        raise scatter_shape_mismatch(ix, up, target, target_name)


def _scatter_into(op_type, out, indices, updates, mode, op=None):
    """Scatters ``updates`` into the ndarray ``out`` in place, after checking the shapes."""
    indices = np.asarray(indices)
    updates = _np(updates)

    def invalid(msg):  # (TF 1.15's kernels name no op in these)
        return errors.InvalidArgumentError(None, op, msg)

    if out.ndim == 0:
        raise invalid("Output must be at least 1-D, got shape: []")
    if out.size == 0 and (indices.size or updates.size):
        raise invalid("Indices and updates specified for empty output shape")
    if indices.ndim == 0:
        raise invalid("indices must be at least a vector")
    k = indices.shape[-1]
    if k > out.ndim:
        raise invalid(f"the last dimension of indices ({k}) must be <= the rank of the target "
                      f"({out.ndim}); indices shape {_shape_str(indices.shape)}, target shape "
                      f"{_shape_str(out.shape)}")
    want = indices.shape[:-1] + out.shape[k:]
    if updates.shape != want:
        raise invalid(
            f"must have updates.shape = indices.shape[:-1] + target.shape[{k}:], got "
            f"updates.shape {_shape_str(updates.shape)}, indices.shape "
            f"{_shape_str(indices.shape)}, target.shape {_shape_str(out.shape)}")
    flat = indices.reshape(int(np.prod(indices.shape[:-1])), k)
    bad = np.any((flat < 0) | (flat >= np.asarray(out.shape[:k], dtype=np.int64)), axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        if i:  # TF's CPU kernel stops at the first bad index: the slices before it are updated
            _scatter_into(op_type, out, flat[:i], updates.reshape((-1,) + out.shape[k:])[:i],
                          mode, op)
        from tideflow.ops.gather_ops import _slice_str

        raise invalid(f"indices{_slice_str(i, indices.shape[:-1])} = {flat[i].tolist()} "
                      f"does not index into shape {_shape_str(out.shape)}")
    if k == 0:
        rows = updates.reshape((int(np.prod(indices.shape[:-1])),) + out.shape)
        if mode == "update":
            if rows.shape[0]:
                out[...] = rows[-1]
        elif mode == "add":
            out += rows.sum(0, dtype=out.dtype)
        else:
            out -= rows.sum(0, dtype=out.dtype)
        return out
    where = tuple(np.moveaxis(indices, -1, 0))
    if mode == "update":
        out[where] = updates
    else:
        nd_at(np.add if mode == "add" else np.subtract, out, indices, updates)
    return out


# ------------------------------------------------------------------------------------------
# ScatterNdUpdate, ScatterNdAdd, ScatterNdSub (ref variables)
# ------------------------------------------------------------------------------------------


def _ref_shape(op):
    ref, ix, up = (t._shape for t in op._inputs)
    _check_static(op._type, ref, ix, up)
    return [ref]


def _ref_kernel(mode):
    def body(op, lock, ref, indices, updates):
        with lock():
            return _scatter_into(op._type, ref, indices, updates, mode, op)

    return ref_update_factory(body)


for _name, _mode, _t, _lock in (("ScatterNdUpdate", "update", "type", "true"),
                                ("ScatterNdAdd", "add", "numbertype", "false"),
                                ("ScatterNdSub", "sub", "numbertype", "false")):
    op_registry.declare(
        _name,
        inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=[f"T: {_t}", _INDEX, f"use_locking: bool = {_lock}"],
        shape=_ref_shape,
        kernel_factory=_ref_kernel(_mode),
        differentiable=False,
        stateful=True,
    )


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices[i]] = updates[i]`` for the n-d ``indices``; returns the ref."""
    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(scatter_nd_update, indices, updates, name, "ScatterNdUpdate")
    return ops.apply_op("ScatterNdUpdate", [_lvalue(ref), indices, updates],
                        {"use_locking": use_locking}, name=name)._outputs[0]


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices[i]] += updates[i]`` (duplicates add up); returns the ref."""
    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(scatter_nd_add, indices, updates, name, "ScatterNdAdd")
    return ops.apply_op("ScatterNdAdd", [_lvalue(ref), indices, updates],
                        {"use_locking": use_locking}, name=name)._outputs[0]


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices[i]] -= updates[i]`` (duplicates add up); returns the ref."""
    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(scatter_nd_sub, indices, updates, name, "ScatterNdSub")
    return ops.apply_op("ScatterNdSub", [_lvalue(ref), indices, updates],
                        {"use_locking": use_locking}, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# TensorScatterUpdate, TensorScatterAdd, TensorScatterSub
# ------------------------------------------------------------------------------------------


def _tensor_shape(op):
    t, ix, up = (_in(op, i) for i in range(3))
    _check_static(op._type, t, ix, up)
    return [t]


def _tensor_kernel(op_type, mode):
    def kernel(tensor, indices, updates):
        return _scatter_into(op_type, _np(tensor).copy(), indices, updates, mode)

    return kernel


def _tensor_scatter_update_grad(op, grad):
    from tideflow.ops.array_ops import identity
    from tideflow.ops.fill_ops import zeros_like
    from tideflow.ops.gather_ops import gather_nd

    grad = dense(grad)
    indices, updates = op._inputs[1], op._inputs[2]
    updates_grad = gather_nd(grad, indices)  # first, then an Identity of grad, as TF 1.15
    return [tensor_scatter_update(identity(grad), indices, zeros_like(updates)), None,
            updates_grad]


def _tensor_scatter_add_grad(op, grad):
    from tideflow.ops.array_ops import identity
    from tideflow.ops.gather_ops import gather_nd

    grad = dense(grad)
    updates_grad = gather_nd(grad, op._inputs[1])
    return [identity(grad), None, updates_grad]


def _tensor_scatter_sub_grad(op, grad):
    from tideflow.ops.array_ops import identity
    from tideflow.ops.gather_ops import gather_nd

    grad = dense(grad)
    updates_grad = gather_nd(grad, op._inputs[1])
    return [identity(grad), None, -updates_grad]


for _name, _mode, _grad in (("TensorScatterUpdate", "update", _tensor_scatter_update_grad),
                            ("TensorScatterAdd", "add", _tensor_scatter_add_grad),
                            ("TensorScatterSub", "sub", _tensor_scatter_sub_grad),
                            # TF's older name of TensorScatterAdd (array_ops.
                            # scatter_nd_non_aliasing_add), its input named "input"
                            ("ScatterNdNonAliasingAdd", "add", _tensor_scatter_add_grad)):
    op_registry.declare(
        _name,
        inputs=[("input" if _name == "ScatterNdNonAliasingAdd" else "tensor") + ": T",
                "indices: Tindices", "updates: T"],
        outputs=["output: T"],
        attrs=["T: type", _INDEX],
        shape=_tensor_shape,
        kernel=_tensor_kernel(_name, _mode),
        grad=_grad,
    )

_register_fold("TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
               "ScatterNdNonAliasingAdd")


def tensor_scatter_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``out[indices[i]] = updates[i]``."""
    return ops.apply_op("TensorScatterUpdate", [tensor, indices, updates], name=name)._outputs[0]


def tensor_scatter_add(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates[i]`` added at ``indices[i]`` (duplicates add up)."""
    return ops.apply_op("TensorScatterAdd", [tensor, indices, updates], name=name)._outputs[0]


def tensor_scatter_sub(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with ``updates[i]`` subtracted at ``indices[i]``."""
    return ops.apply_op("TensorScatterSub", [tensor, indices, updates], name=name)._outputs[0]


tensor_scatter_nd_update = tensor_scatter_update
tensor_scatter_nd_add = tensor_scatter_add
tensor_scatter_nd_sub = tensor_scatter_sub



def _resource_shape(op):
    from tideflow.ops.resource_variable_ops import _var_shape

    ref, ix, up = _var_shape(op._inputs[0]), op._inputs[1]._shape, op._inputs[2]._shape
    _check_static(op._type, ref, ix, up)
    return []


def _declare_resource_forms():
    # ResourceScatterNd<Op>: a resource variable's, on its handle (no output, as TF's)
    from tideflow.ops.resource_variable_ops import resource_form

    for name, mode, t in (("ScatterNdUpdate", "update", "type"), ("ScatterNdAdd", "add",
                                                                   "numbertype"),
                          ("ScatterNdSub", "sub", "numbertype")):
        op_registry.declare(
            "Resource" + name,
            inputs=["ref: resource", "indices: Tindices", "updates: T"],
            attrs=[f"T: {t}", _INDEX, "use_locking: bool = true"],
            shape=_resource_shape,
            kernel_factory=resource_form(_ref_kernel(mode)),
            differentiable=False,
            stateful=True,
        )


_declare_resource_forms()
