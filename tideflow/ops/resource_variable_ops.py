"""Resource variables' ops, as TF 1.15's ``resource_variable_ops``: ``VarHandleOp`` (a scalar
``resource`` tensor: the handle of a variable in its device's ``ResourceMgr``), the reads
(``ReadVariableOp``, ``ResourceGather``) and the updates (``AssignVariableOp``,
``AssignAdd/SubVariableOp``, ``ResourceScatter<Op>``; the optimizers' ``ResourceApply<Opt>``
are declared beside their ref forms in ``training_ops``).

A handle's value (what the ``VarHandleOp`` kernel yields) is a ``ResourceHandle``: it names the
variable's ``VariableResource``, the same storage a ref variable (``VariableV2``) has, so the
updates share the ref kernels' math: ``resource_kernel`` gives a ref kernel the variable's
buffer in place of the handle. A read hands out a view of the buffer; an update made while such
a view lives writes into a copy (copy on write), so a value once read never changes, as TF's
resource variables promise. Handles never leave their device (the placer colocates every op
that takes one with the ``VarHandleOp``), so they never cross processes as values.
"""

import sys

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.ops import state_ops

# ------------------------------------------------------------------------------------------
# the handle
# ------------------------------------------------------------------------------------------


class ResourceHandle(state_ops.UninitializedValue):
    """A variable's handle as a kernel sees it: its name and its ``VariableResource``. It is an
    ``UninitializedValue`` so that a ref kernel given it (the variable never assigned) raises
    as for an uninitialized ref."""

    __slots__ = ("var_op",)

    def __init__(self, name, resource, var_op):
        super().__init__(name, resource)
        self.var_op = var_op

    def _tf_fetch_value(self):
        # (TF's fetch of a handle is a serialized ResourceHandleProto; its name stands in)
        return self.name.encode()

    def __repr__(self):
        return f"<resource handle {self.name}>"


def handle_var_op(t):
    """The ``VarHandleOp`` behind handle tensor ``t`` (through Identity ops), or None."""
    seen = 0
    while t._op._type == "Identity" and t._op._inputs and seen < 100:
        t = t._op._inputs[0]
        seen += 1
    op = state_ops.variable_op_of(t)
    return op if op is not None and op._type == "VarHandleOp" else None


def _var_shape(handle):
    """The static shape of the variable behind ``handle`` (unknown when not found)."""
    var_op = handle_var_op(handle)
    return var_op._attrs["shape"] if var_op is not None else unknown_shape()


def _var_handle_kernel(ctx):
    op = ctx.op
    handle = ResourceHandle(op._attrs.get("shared_name") or op._name,
                            state_ops.resource_for(ctx, op), op)
    return lambda: handle


op_registry.declare(
    "VarHandleOp",
    outputs=["resource: resource"],
    attrs=["container: string = ''", "shared_name: string = ''", "dtype: type",
           "shape: shape", "allowed_devices: list(string) = []", "debug_name: string = ''"],
    shape=lambda op: [TensorShape([])],
    kernel_factory=_var_handle_kernel,
    differentiable=False,
    stateful=True,
    newer_attrs=("allowed_devices", "debug_name"),  # (TF 2.x's, in GraphDefs it writes)
)


def var_handle_op(dtype, shape, container="", shared_name="", name=None):
    return ops.apply_op("VarHandleOp", [], {
        "dtype": dtypes.as_dtype(dtype).base_dtype, "shape": shape,
        "container": container, "shared_name": shared_name}, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# reads
# ------------------------------------------------------------------------------------------


def _read_error(ctx, h):
    return state_ops._resource_read_error(h.var_op, ctx.resource_mgr, ctx.op)


def _missing_error(ctx, h, op):
    """TF's NotFoundError for an update, gather or destroy of a variable never assigned."""
    return errors.NotFoundError(None, op,
                                state_ops._resource_missing(h.var_op, ctx.resource_mgr))


def _read_buffer(ctx, gather=False):
    """``read(h)``: the buffer of the variable of handle ``h`` (an error when never
    assigned: a gather's is TF's NotFound), marked as handed out so the next update copies
    it first."""
    def read(h):
        res = h.resource
        buf = res.buf
        if buf is None:
            if gather:
                raise _missing_error(ctx, h, ctx.op)
            raise _read_error(ctx, h)
        if type(buf.base) is np.ndarray:
            return buf[...]  # a new view: its owner's count shows the value is alive
        res.shared = True
        return buf

    return read


def _read_shape(op):
    return [_var_shape(op._inputs[0])]


op_registry.declare(
    "ReadVariableOp",
    inputs=["resource: resource"],
    outputs=["value: dtype"],
    attrs=["dtype: type"],
    shape=_read_shape,
    kernel_factory=_read_buffer,
    grad=lambda op, grad: [grad],  # (TF's: the gradient flows to the handle)
    stateful=True,
)


def read_variable_op(handle, dtype, name=None):
    return ops.apply_op("ReadVariableOp", [handle], {"dtype": dtype}, name=name)._outputs[0]


op_registry.declare(
    "VarIsInitializedOp",
    inputs=["resource: resource"],
    outputs=["is_initialized: bool"],
    shape=lambda op: [TensorShape([])],
    kernel=lambda h: np.asarray(h.resource.buf is not None),
    differentiable=False,
    stateful=True,
)


def var_is_initialized_op(handle, name=None):
    return ops.apply_op("VarIsInitializedOp", [handle], name=name)._outputs[0]


def _gather_kernel(ctx):
    from tideflow.ops import gather_ops

    read = _read_buffer(ctx, gather=True)
    batch_dims = ctx.op._attrs.get("batch_dims", 0)

    def run(h, indices):
        params = read(h)
        if batch_dims:
            return gather_ops._gather_v2_kernel(params, indices, batch_dims, batch_dims=batch_dims)
        return gather_ops._gather(params, np.asarray(indices), 0)

    return run


def _gather_shape(op):
    p, ix = _var_shape(op._inputs[0]), op._inputs[1]._shape
    if p.ndims is None or ix.ndims is None:
        return [unknown_shape()]
    if p.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [TensorShape(ix.dims + p.dims[1:])]


def _gather_grad(op, grad):
    """TF 1.15's: the rows of ``grad`` as IndexedSlices of the variable (its shape a Const
    when known)."""
    from tideflow.ops import gather_ops

    return [gather_ops._rows_grad(op._inputs[0], op._inputs[1], grad), None]


op_registry.declare(
    "ResourceGather",
    inputs=["resource: resource", "indices: Tindices"],
    outputs=["output: dtype"],
    attrs=["batch_dims: int = 0", "validate_indices: bool = true", "dtype: type",
           "Tindices: {int32, int64}"],
    shape=_gather_shape,
    kernel_factory=_gather_kernel,
    grad=_gather_grad,
    stateful=True,
)


def resource_gather(handle, indices, dtype, name=None):
    return ops.apply_op("ResourceGather", [handle, indices], {"dtype": dtype},
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# updates
# ------------------------------------------------------------------------------------------

# references to a buffer's owner when no value read from the variable is alive: the view the
# resource keeps and getrefcount's own argument
_UNSHARED_REFS = 2


def writable_buffer(res, overwrite=False):
    """The buffer of ``res`` an update may write in place: a new one (a copy, or uninitialized
    when ``overwrite``) when a value read from the variable is still alive."""
    buf = res.buf
    if res.shared or (buf.base is not None and sys.getrefcount(buf.base) > _UNSHARED_REFS):
        base = np.empty(buf.shape, buf.dtype) if overwrite else buf.copy()
        res.buf = buf = base[...]
        res.shared = False
    return buf


def resource_kernel(kernel, slots, uninitialized=None, outputs=False):
    """``kernel`` (a ref kernel) run with the buffer of each handle at the input positions
    ``slots`` (written copies when a read of it is alive); a variable never assigned leaves
    its handle there (an ``UninitializedValue``), or raises ``uninitialized(h)`` when given.
    The op has no outputs, as TF's resource updates."""

    def run(*args):
        args = list(args)
        for i in slots:
            h = args[i]
            if h.resource.buf is None:
                if uninitialized is not None:
                    raise uninitialized(h)
                continue
            args[i] = writable_buffer(h.resource)
        out = kernel(*args)
        return out if outputs else None

    return run


def _resource_slots(op_def):
    return [i for i, a in enumerate(op_def.inputs) if a.fixed_type == dtypes.resource]


def resource_form(ref_factory, uninitialized_reads=False):
    """The kernel factory of a resource update from the factory of its ref form; with
    ``uninitialized_reads``, a variable never assigned fails as TF's read of it (an
    optimizer's update), else as TF's scatter (NotFound)."""

    def factory(ctx):
        kernel = ref_factory(ctx)
        if uninitialized_reads:
            def uninit(h):
                return _read_error(ctx, h)
        else:
            def uninit(h):
                return _missing_error(ctx, h, ctx.op)
        return resource_kernel(kernel, _resource_slots(ctx.op._op_def), uninit,
                               outputs=bool(ctx.op._op_def.outputs))

    return factory


def _assign_kernel(ctx):
    np_dtype = ctx.op._attrs["dtype"].as_numpy_dtype

    def run(h, value):
        res = h.resource
        value = np.asarray(value)
        with res.lock:
            if res.buf is not None and res.buf.shape == value.shape:
                writable_buffer(res, overwrite=True)[...] = value
            else:
                res.set_new(value, np_dtype)

    return run


def _check_dtype(op):
    var_op = handle_var_op(op._inputs[0])
    if var_op is not None and var_op._attrs["dtype"] != op._attrs["dtype"]:
        raise ValueError(
            f"Trying to assign variable with wrong dtype. Expected "
            f"{var_op._attrs['dtype'].name} got {op._attrs['dtype'].name}")
    return []


op_registry.declare(
    "AssignVariableOp",
    inputs=["resource: resource", "value: dtype"],
    attrs=["dtype: type", "validate_shape: bool = false"],
    newer_attrs=("validate_shape",),  # (TF 2.x's; TF 1.15 never checks the shape)
    shape=_check_dtype,
    kernel_factory=_assign_kernel,
    differentiable=False,
    stateful=True,
)


def _update_kernel(ufunc):
    def factory(ctx):
        op = ctx.op

        def run(h, value):
            res = h.resource
            if res.buf is None:
                raise _missing_error(ctx, h, op)
            value = np.asarray(value)
            if res.buf.shape != value.shape:
                raise errors.InvalidArgumentError(
                    None, op,
                    f"Cannot update variable with shape {state_ops._shape_str(res.buf.shape)} "
                    f"using a Tensor with shape {state_ops._shape_str(value.shape)}, shapes "
                    "must be equal.")
            buf = writable_buffer(res)
            ufunc(buf, value, out=buf, casting="unsafe")

        return run

    return factory


for _name, _ufunc in (("AssignAddVariableOp", np.add), ("AssignSubVariableOp", np.subtract)):
    op_registry.declare(
        _name,
        inputs=["resource: resource", "value: dtype"],
        attrs=["dtype: type"],
        shape=_check_dtype,
        kernel_factory=_update_kernel(_ufunc),
        differentiable=False,
        stateful=True,
    )


def _scatter_shape(op):
    var = _var_shape(op._inputs[0])
    indices, updates = op._inputs[1]._shape, op._inputs[2]._shape
    if updates.ndims != 0 and var.ndims is not None and indices.ndims is not None:
        if var.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {var.ndims}")
        state_ops._merge_shapes(updates, indices.concatenate(var[1:]))
    return []


def _declare_scatters():
    from tideflow.ops import extra_array_ops

    ref_kernels = {"Update": state_ops._scatter_kernel("update"),
                   "Add": state_ops._scatter_kernel("add"),
                   "Sub": state_ops._scatter_kernel("sub")}
    for kind in ("Mul", "Div", "Min", "Max"):
        ref_kernels[kind] = op_registry.get("Scatter" + kind).kernel_factory
    for kind, factory in ref_kernels.items():
        op_registry.declare(
            "ResourceScatter" + kind,
            inputs=["resource: resource", "indices: Tindices", "updates: dtype"],
            attrs=["dtype: type" if kind == "Update" else "dtype: numbertype",
                   "Tindices: {int32, int64}"],
            shape=_scatter_shape,
            kernel_factory=resource_form(factory),
            differentiable=False,
            stateful=True,
        )
    del extra_array_ops


_declare_scatters()


def resource_scatter(kind, handle, indices, updates, name=None):
    """A ``ResourceScatter<kind>`` op (``kind``: Update, Add, Sub, Mul, Div, Min, Max)."""
    updates = ops.convert_to_tensor(updates)
    return ops.apply_op("ResourceScatter" + kind, [handle, indices, updates],
                        {"dtype": updates.dtype.base_dtype}, name=name)


def _destroy_kernel(ctx):
    op = ctx.op
    ignore = op._attrs["ignore_lookup_error"]

    def run(h):
        res = h.resource
        container = state_ops._resource_key(h.var_op)[0]
        if res.buf is None and not ignore:
            raise _missing_error(ctx, h, op)
        # (the entry stays, empty as an unassigned variable's, so the plans bound to it see a
        # later assign; TF's container outlives the resources deleted from it)
        res.buf = None
        ctx.resource_mgr.__dict__.setdefault("_emptied", set()).add(container or "localhost")

    return run


op_registry.declare(
    "DestroyResourceOp",
    inputs=["resource: resource"],
    attrs=["ignore_lookup_error: bool = true"],
    kernel_factory=_destroy_kernel,
    differentiable=False,
    stateful=True,
)


def is_handle(t):
    """Whether ``t`` is a resource tensor (a variable's handle)."""
    return isinstance(t, ops.Tensor) and t._dtype == dtypes.resource


def _variable_shape_kernel(ctx):
    np_dtype = ctx.op._attrs["out_type"].as_numpy_dtype
    read = _read_buffer(ctx)

    def run(h):
        return np.asarray(read(h).shape, dtype=np_dtype)

    return run


op_registry.declare(
    "VariableShape",
    inputs=["input: resource"],
    outputs=["output: out_type"],
    attrs=["out_type: {int32, int64} = DT_INT32"],
    shape=lambda op: [TensorShape([_var_shape(op._inputs[0]).ndims])],
    kernel_factory=_variable_shape_kernel,
    differentiable=False,
    stateful=True,
)


def variable_shape(handle, out_type=dtypes.int32, name=None):
    """TF's ``variable_shape``: the shape of the variable behind ``handle`` (a VariableShape
    op)."""
    return ops.apply_op("VariableShape", [handle], {"out_type": out_type}, name=name)._outputs[0]


def _gather_nd_kernel(ctx):
    from tideflow.ops import gather_ops

    read = _read_buffer(ctx, gather=True)
    return lambda h, indices: gather_ops._gather_nd_kernel(read(h), indices)


def _gather_nd_shape(op):
    p, ix = _var_shape(op._inputs[0]), op._inputs[1]._shape
    if p.ndims is None or ix.ndims is None or ix.dims[-1] is None:
        return [unknown_shape()]
    return [TensorShape(ix.dims[:-1] + p.dims[ix.dims[-1]:])]


def _gather_nd_grad(op, grad):
    """TF 1.15's: rows as IndexedSlices for indices of shape [n, 1], else a ScatterNd of
    ``grad`` into the variable's shape."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.ops import array_ops, scatter_nd_ops

    ref, indices = op._inputs
    ref_shape = variable_shape(ref, indices.dtype)
    if indices.shape.ndims == 2 and indices.shape.dims[-1] == 1:
        return [IndexedSlices(grad, array_ops.squeeze(indices, axis=-1), ref_shape), None]
    return [scatter_nd_ops.scatter_nd(indices, grad, ref_shape), None]


op_registry.declare(
    "ResourceGatherNd",
    inputs=["resource: resource", "indices: Tindices"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "Tindices: {int32, int64}"],
    shape=_gather_nd_shape,
    kernel_factory=_gather_nd_kernel,
    grad=_gather_nd_grad,
    stateful=True,
)


def _declare_more_forms():
    # the resource forms of StridedSliceAssign and CountUpTo, on the ref forms' kernels
    from tideflow.ops import data_flow_ops, slicing_ops

    ssa = op_registry.get("StridedSliceAssign")
    op_registry.declare(
        "ResourceStridedSliceAssign",
        inputs=["ref: resource", "begin: Index", "end: Index", "strides: Index", "value: T"],
        attrs=["T: type", "Index: {int32, int64}"] + slicing_ops._MASKS,
        kernel_factory=resource_form(ssa.kernel_factory),
        stateful=True,
    )
    op_registry.declare(
        "ResourceCountUpTo",
        inputs=["resource: resource"],
        outputs=["output: T"],
        attrs=["limit: int", "T: {int32, int64}"],
        shape=lambda op: [TensorShape([])],
        kernel_factory=resource_form(data_flow_ops._count_up_to_kernel),
        differentiable=False,
        stateful=True,
    )


_declare_more_forms()
