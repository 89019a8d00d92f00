"""State ops: variables (``VariableV2``) and the ops that read and update them in place.

A variable's buffer lives in a resource of its device's ``ResourceMgr`` (so a new Session
starts with every variable uninitialized). The buffer is always a NumPy *view* of a private
allocation: fetching it copies, and kernels that update a variable write into it in place.
"""

import functools
import threading

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.resource_import import is_resource
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.kernels.scatter import rows_at

# ------------------------------------------------------------------------------------------
# the variable resource and the "uninitialized" value
# ------------------------------------------------------------------------------------------


class VariableResource:
    """A variable's storage: ``buf`` (None until first assigned) and a lock for use_locking.

    ``shared``: a resource variable's read has handed ``buf`` out, so the next update must
    write into a new buffer (copy on write) and leave the read's value as it was
    (``resource_variable_ops.writable_buffer``).
    """

    __slots__ = ("buf", "lock", "name", "shared")

    def __init__(self, name):
        self.name = name
        self.buf = None
        self.lock = threading.Lock()
        self.shared = False

    def set_new(self, value, np_dtype):
        """Replaces the buffer by a fresh view holding a copy of ``value``."""
        base = np.empty(np.shape(value), dtype=np_dtype)
        base[...] = value
        self.buf = base[...]
        return self.buf


def _uninitialized_error(name, op=None):
    return errors.FailedPreconditionError(None, op, f"Attempting to use uninitialized value {name}")


class UninitializedValue:
    """What an uninitialized variable yields to ops that accept it (Assign, IsVariableInitialized).

    Any other use (NumPy ufuncs and functions, conversion to an array, attributes such as
    ``.shape``) raises TF's FailedPreconditionError naming the variable.
    """

    __slots__ = ("name", "resource")

    def __init__(self, name, resource):
        self.name = name
        self.resource = resource

    def _fail(self, *args, **kwargs):
        raise _uninitialized_error(self.name)

    def _tf_fetch_value(self):
        """The value a fetch gets: the buffer if the step initialized it, else an error."""
        buf = self.resource.buf
        if buf is None:
            raise _uninitialized_error(self.name)
        return buf.copy()

    __array__ = __array_ufunc__ = __array_function__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = __getitem__ = _fail
    __len__ = __iter__ = __float__ = __int__ = __bool__ = _fail

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise _uninitialized_error(self.name)

    def __repr__(self):
        return f"<uninitialized value {self.name}>"


# ops whose output 0 forwards the ref of their input 0
_REF_FORWARDING = frozenset({
    "Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd", "ScatterSub",
    "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub", "StridedSliceAssign",
    "RefIdentity", "RefEnter", "RefExit", "RefNextIteration", "RefSwitch", "RefMerge",
    "ZeroInitializer",
})
_VARIABLE_OPS = frozenset({"VariableV2", "Variable", "VarHandleOp"})


def variable_op_of(tensor):
    """The VariableV2 op whose buffer a ref tensor refers to, or None."""
    seen = 0
    while seen < 1000:
        if tensor._op._type in _REF_FORWARDING:
            tensor = tensor._op._inputs[0]
        elif tensor._op._type == "Placeholder" and hasattr(tensor._op._graph, "captured_source"):
            # a cond branch or loop body's capture of a variable of an enclosing graph
            src = tensor._op._graph.captured_source(tensor)
            if src is None:
                break
            tensor = src
        else:
            break
        seen += 1
    return tensor._op if tensor._op._type in _VARIABLE_OPS else None


def _resource_key(op):
    attrs = op._attrs
    return attrs.get("container") or "", attrs.get("shared_name") or op._name


def resource_for(ctx, var_op):
    """The resource (created empty when missing) of ``var_op`` on the kernel's device."""
    container, name = _resource_key(var_op)
    return ctx.resource_mgr.lookup_or_create(container, name, lambda: VariableResource(name))


def _binding_key(var_op):
    return ("_variable_binding", var_op._name)


def _accepts_uninitialized(ctx, var_op):
    """Marks that the plan being bound holds an op that may see ``var_op`` uninitialized.

    TF's executor lets only "initialization ops" (Assign, IsVariableInitialized) read an
    uninitialized ref. The VariableV2 kernel of the same plan is bound first (it is an input)
    and reads this flag at run time: without such a consumer it raises itself.
    """
    if var_op is None:
        return
    flag = ctx.session_state.get(_binding_key(var_op))
    if flag is not None:
        flag[0] = True


# ------------------------------------------------------------------------------------------
# VariableV2 / Variable
# ------------------------------------------------------------------------------------------


def _resource_read_error(op, mgr, reader=None):
    """TF 1.15's words for reading a resource variable never assigned: its container
    ("localhost") does not exist until some resource variable of the session is. The error's
    op is the ``reader`` (the ReadVariableOp or update that failed), as TF's."""
    container = op._attrs.get("container") or "localhost"
    name = op._attrs.get("shared_name") or op._name
    return errors.FailedPreconditionError(
        None, reader if reader is not None else op, f"Error while reading resource variable {name} from Container: {container}. "
                  f"This could mean that the variable was uninitialized. Not found: "
                  f"{_resource_missing(op, mgr)}")


def _resource_missing(op, mgr):
    """TF's NotFound text for resource variable ``op`` never assigned (as an update of it,
    AssignAddVariableOp or a scatter, says it)."""
    container = op._attrs.get("container") or "localhost"
    name = op._attrs.get("shared_name") or op._name
    g = op._graph
    # TF's container exists once any resource was made in it: a ref variable's (its
    # VariableV2 ran), a queue's, a table's, or an assigned resource variable's; the empty
    # entry an unassigned resource variable's read leaves here is none of TF's
    unassigned = set()
    # (a VarHandleOp makes no resource until its variable is assigned, as TF's)
    for other_op in [o for o in g.get_operations() if o._type == "VarHandleOp"]:
        c2, n2 = _resource_key(other_op)
        if (c2 or "localhost") == container:
            unassigned.add(n2)
    with mgr._lock:
        entries = list(mgr._containers.get(container, {}).items())
    exists = container in mgr.__dict__.get("_emptied", ()) or any(
        not (isinstance(r, VariableResource) and r.buf is None and n in unassigned)
        for n, r in entries)
    return (f"Resource {container}/{name}/N10tensorflow3VarE does not exist." if exists else
            f"Container {container} does not exist. (Could not find resource: "
            f"{container}/{name})")


def _update_of_uninitialized(ctx, var_op):
    """For an in-place update of ``var_op``: a resource variable lets it see the variable
    uninitialized (TF's update of one never assigned fails with NotFound, not the read's
    FailedPrecondition); returns what raises then."""
    if var_op is None or not is_resource(var_op):
        return lambda ref, op: _uninitialized_error(ref.name, op)
    _accepts_uninitialized(ctx, var_op)
    mgr = ctx.resource_mgr
    return lambda ref, op: errors.NotFoundError(None, op, _resource_missing(var_op, mgr))


def _variable_kernel(ctx):
    op = ctx.op
    res = resource_for(ctx, op)
    flag = [False]
    ctx.session_state[_binding_key(op)] = flag
    uninit = UninitializedValue(op._name, res)

    def run():
        buf = res.buf
        if buf is None:
            if flag[0]:
                return uninit
            raise _uninitialized_error(op._name, op)
        return buf

    return run


for _name in ("VariableV2", "Variable"):
    op_registry.declare(
        _name,
        outputs=["ref: Ref(dtype)"],
        attrs=["shape: shape", "dtype: type", "container: string = ''",
               "shared_name: string = ''"],
        shape=lambda op: [op._attrs["shape"]],
        kernel_factory=_variable_kernel,
        differentiable=False,
        stateful=True,
    )


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """Creates a VariableV2 op; returns its ref tensor."""
    g = ops.get_default_graph()
    return ops.apply_op(
        "VariableV2", [],
        {"shape": shape, "dtype": dtypes.as_dtype(dtype).base_dtype,
         "container": container or g._container, "shared_name": shared_name},
        name=name,
    )._outputs[0]


def variable_op(shape, dtype, name="Variable", set_shape=True, container="", shared_name=""):
    """The legacy ``Variable`` op (shape unknown unless ``set_shape``)."""
    g = ops.get_default_graph()
    return ops.apply_op(
        "Variable", [],
        {"shape": shape if set_shape else unknown_shape(),
         "dtype": dtypes.as_dtype(dtype).base_dtype,
         "container": container or g._container, "shared_name": shared_name},
        name=name,
    )._outputs[0]


# ------------------------------------------------------------------------------------------
# Assign, AssignAdd, AssignSub
# ------------------------------------------------------------------------------------------


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _static_str(shape):
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _merge_shapes(a, b):
    try:
        return a.merge_with(b)
    except ValueError:
        if a.ndims is not None and b.ndims is not None and a.ndims != b.ndims:
            raise ValueError(
                f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}"
            ) from None
        # TF's words (its C++ shape Merge): the first dimension that differs
        i, x, y = next((i, x, y) for i, (x, y) in enumerate(zip(a.as_list(), b.as_list()))
                       if x is not None and y is not None and x != y)
        raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                         f"Shapes are {_static_str(a)} and {_static_str(b)}.") from None


def _assign_shape(op):
    ref, value = op._inputs[0]._shape, op._inputs[1]._shape
    if op._attrs["validate_shape"]:
        return [_merge_shapes(ref, value)]
    return [value]


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NO_LOCK = _NoLock()


def _lock_of(res, use_locking):
    return res.lock if (use_locking and res is not None) else _NO_LOCK


def _written_variable(ctx):
    """(variable op, its resource, its declared shape as a tuple or None) for a kernel that
    writes the variable of its first input, which may be uninitialized."""
    var_op = variable_op_of(ctx.op._inputs[0])
    res = resource_for(ctx, var_op) if var_op is not None else None
    _accepts_uninitialized(ctx, var_op)
    declared = var_op._attrs["shape"] if var_op is not None else unknown_shape()
    return var_op, res, tuple(declared.as_list()) if declared.is_fully_defined() else None


def _assign_kernel(ctx):
    op = ctx.op
    validate = op._attrs["validate_shape"]
    np_dtype = op._attrs["T"].as_numpy_dtype
    _, res, declared = _written_variable(ctx)
    use_lock = op._attrs.get("use_locking", False)
    # a producer that can write the value straight into the variable (RestoreV2) offers to
    offer = ctx.session_state.get(("_write_into", op._inputs[1]._op))
    if offer is not None and res is not None:
        offer(ctx, op._inputs[1], res, declared, validate, use_lock)

    def run(ref, value):
        r = ref.resource if isinstance(ref, UninitializedValue) else res
        with _lock_of(r, use_lock):
            buf = r.buf if r is not None else ref
            if value is buf:  # already written in place by its producer
                return buf
            value = np.asarray(value)
            if validate:
                lhs = buf.shape if buf is not None else declared
                if lhs is not None and lhs != value.shape:
                    raise errors.InvalidArgumentError(
                        None, op,
                        "Assign requires shapes of both tensors to match. lhs shape= "
                        f"{_shape_str(lhs)} rhs shape= {_shape_str(value.shape)}",
                    )
            if buf is not None and buf.shape == value.shape:
                buf[...] = value
                return buf
            if r is None:
                raise errors.InvalidArgumentError(
                    None, op, f"Assign of shape {_shape_str(value.shape)} to a ref of shape "
                    f"{_shape_str(buf.shape)} that does not refer to a variable",
                )
            return r.set_new(value, np_dtype)

    return run


op_registry.declare(
    "Assign",
    inputs=["ref: Ref(T)", "value: T"],
    outputs=["output_ref: Ref(T)"],
    attrs=["T: type", "validate_shape: bool = true", "use_locking: bool = true"],
    shape=_assign_shape,
    kernel_factory=_assign_kernel,
    differentiable=False,
    stateful=True,
)


# ZeroInitializer (tf.contrib.framework.zero_initializer): zeros into a variable never set


def _zero_initializer_kernel(ctx):
    op = ctx.op
    np_dtype = op._attrs["T"].as_numpy_dtype
    var_op, res, shape = _written_variable(ctx)

    def run(ref):
        r = ref.resource if isinstance(ref, UninitializedValue) else res
        with _lock_of(r, True):
            if r is None or r.buf is not None:
                raise errors.InvalidArgumentError(None, op, "input is already initialized")
            if shape is None:
                raise errors.InvalidArgumentError(
                    None, op, f"ZeroInitializer needs the fully defined shape of {var_op.name}")
            return r.set_new(np.zeros(shape, np_dtype), np_dtype)

    return run


op_registry.declare(
    "ZeroInitializer",
    inputs=["ref: Ref(T)"],
    outputs=["output_ref: Ref(T)"],
    attrs=[("T: {float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
            "float16, uint32, uint64}")],
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_zero_initializer_kernel,
    differentiable=False,
    stateful=True,
)


def _dense_update_kernel(ufunc):
    def factory(ctx):
        op = ctx.op
        var_op = variable_op_of(op._inputs[0])
        res = resource_for(ctx, var_op) if var_op is not None else None
        use_lock = op._attrs.get("use_locking", False)
        uninitialized = _update_of_uninitialized(ctx, var_op)

        def run(ref, value):
            if res is not None and res.buf is not None:
                ref = res.buf  # as in the scatter ops: the buffer an earlier Assign left
            if isinstance(ref, UninitializedValue):
                raise uninitialized(ref, op)
            value = np.asarray(value)
            if ref.shape != value.shape:
                raise errors.InvalidArgumentError(
                    None, op,
                    "Parameters and update must be the same size: ref shape= "
                    f"{_shape_str(ref.shape)} value shape= {_shape_str(value.shape)}",
                )
            with _lock_of(res, use_lock):
                ufunc(ref, value, out=ref, casting="unsafe")
            return ref

        return run

    return factory


def _update_shape(op):
    return [_merge_shapes(op._inputs[0]._shape, op._inputs[1]._shape)]


for _name, _ufunc in (("AssignAdd", np.add), ("AssignSub", np.subtract)):
    op_registry.declare(
        _name,
        inputs=["ref: Ref(T)", "value: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=["T: numbertype", "use_locking: bool = false"],
        shape=_update_shape,
        kernel_factory=_dense_update_kernel(_ufunc),
        differentiable=False,
        stateful=True,
    )


# ------------------------------------------------------------------------------------------
# ScatterUpdate, ScatterAdd, ScatterSub
# ------------------------------------------------------------------------------------------


def _scatter_shape(op):
    var, indices, updates = (t._shape for t in op._inputs)
    if updates.ndims != 0 and var.ndims is not None and indices.ndims is not None:
        if var.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {var.ndims}")
        # TF 1.15's words: its shape Merge of updates with indices.shape + params.shape[1:]
        _merge_shapes(updates, indices.concatenate(var[1:]))
    return [var]


def ref_update_factory(body):
    """The kernel factory of an op that updates its ref input (a variable) in place with
    ``indices`` and ``updates``: checks the variable is initialized, then returns
    ``body(op, lock, ref, indices, updates)``, where ``lock()`` is the variable's lock context
    (a no-op without use_locking)."""

    def factory(ctx):
        op = ctx.op
        var_op = variable_op_of(op._inputs[0])
        res = resource_for(ctx, var_op) if var_op is not None else None
        use_lock = op._attrs.get("use_locking", False)
        uninitialized = _update_of_uninitialized(ctx, var_op)

        def lock():
            return _lock_of(res, use_lock)

        def run(ref, indices, updates):
            if res is not None and res.buf is not None:
                # the variable's buffer now: an Assign (validate_shape=False) that ran earlier
                # in this step may have replaced the one the ref carried, as TF's refs follow
                ref = res.buf
            if isinstance(ref, UninitializedValue):
                raise uninitialized(ref, op)
            return body(op, lock, ref, indices, updates)

        return run

    return factory


def scatter_ref_kernel(apply):
    """The kernel factory of a ``Scatter*`` op on a ref: checks the shapes of ``indices`` and
    ``updates`` and that the indices are in range, then ``apply(ref, indices, updates)``
    updates the variable in place (under its lock)."""

    def body(op, lock, ref, indices, updates):
        indices = np.asarray(indices)
        updates = np.asarray(updates)
        if ref.ndim < 1:
            raise errors.InvalidArgumentError(
                None, op, f"params must be at least 1-D, got shape {_shape_str(ref.shape)}"
            )
        if updates.ndim != 0 and updates.shape != indices.shape + ref.shape[1:]:
            raise errors.InvalidArgumentError(
                None, op,
                "Must have updates.shape = indices.shape + params.shape[1:] or "
                f"updates.shape = [], got updates.shape {_shape_str(updates.shape)}, "
                f"indices.shape {_shape_str(indices.shape)}, params.shape "
                f"{_shape_str(ref.shape)}",
            )
        n = ref.shape[0]
        bad = np.flatnonzero((indices.reshape(-1) < 0) | (indices.reshape(-1) >= n))
        if bad.size:
            i = int(bad[0])
            if i:
                # TF's CPU kernel updates row by row and stops at the first bad index: the
                # rows before it stay updated
                rows = updates if updates.ndim == 0 else \
                    updates.reshape((-1,) + ref.shape[1:])[:i]
                with lock():
                    apply(ref, indices.reshape(-1)[:i], rows)
            # (a scalar index is TF's "indices = 7", no brackets)
            pos = _shape_str(np.unravel_index(i, indices.shape)) if indices.ndim else ""
            raise errors.InvalidArgumentError(
                None, op,
                f"indices{pos} = {int(indices.reshape(-1)[i])} is not in [0, {n})",
            )
        with lock():
            apply(ref, indices, updates)
        return ref

    return ref_update_factory(body)


def _scatter_assign(ref, indices, updates):
    ref[indices] = updates


def _scatter_kernel(mode):
    return scatter_ref_kernel({"update": _scatter_assign,
                               "add": functools.partial(rows_at, np.add),
                               "sub": functools.partial(rows_at, np.subtract)}[mode])


for _name, _mode, _t, _lock in (("ScatterUpdate", "update", "type", "true"),
                                ("ScatterAdd", "add", "numbertype", "false"),
                                ("ScatterSub", "sub", "numbertype", "false")):
    op_registry.declare(
        _name,
        inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=[f"T: {_t}", "Tindices: {int32, int64}", f"use_locking: bool = {_lock}"],
        shape=_scatter_shape,
        kernel_factory=_scatter_kernel(_mode),
        # (ScatterUpdate: no gradient defined, as TF 1.15, a LookupError; TF's add and sub give None)
        differentiable=None if _name == "ScatterUpdate" else False,
        stateful=True,
    )


# ------------------------------------------------------------------------------------------
# TemporaryVariable / DestroyTemporaryVariable
# ------------------------------------------------------------------------------------------

# steps whose temporary variables were never destroyed are forgotten once this many newer steps
# have made one (TF frees them when their step ends)
_TEMPORARY_STEPS_KEPT = 64


def _temporaries(ctx, step):
    table = ctx.session_state.setdefault("_temporary_variables", {})
    per_step = table.get(step.step_id)
    if per_step is None:
        for old in [k for k in table if k <= step.step_id - _TEMPORARY_STEPS_KEPT]:
            del table[old]
        per_step = table[step.step_id] = {}
    return per_step


def _temporary_variable_kernel(*, shape, dtype, var_name, ctx, step):
    name = var_name or ctx.op._name
    live = _temporaries(ctx, step)
    if name in live:
        raise errors.AlreadyExistsError(
            None, ctx.op, f"Resource {name} of a temporary variable already exists in this step")
    buf = live[name] = np.zeros(shape.as_list(), dtype.as_numpy_dtype)
    return buf


def _destroy_temporary_variable_kernel(ref, *, var_name, ctx, step):
    if not var_name:
        raise errors.InvalidArgumentError(None, ctx.op, "Missing var_name attribute")
    buf = _temporaries(ctx, step).pop(var_name, None)
    if buf is None:
        raise errors.NotFoundError(
            None, ctx.op, f"Temporary variable {var_name} does not exist in this step")
    return np.array(ref, copy=True)


op_registry.declare(
    "TemporaryVariable",
    outputs=["ref: Ref(dtype)"],
    attrs=["shape: shape", "dtype: type", "var_name: string = ''"],
    shape=lambda op: [op._attrs["shape"]],
    kernel=_temporary_variable_kernel,
    differentiable=False,
    stateful=True,
)
op_registry.declare(
    "DestroyTemporaryVariable",
    inputs=["ref: Ref(T)"],
    outputs=["value: T"],
    attrs=["T: type", "var_name: string"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_destroy_temporary_variable_kernel,
    differentiable=False,
    stateful=True,
)


# ------------------------------------------------------------------------------------------
# IsVariableInitialized
# ------------------------------------------------------------------------------------------

_TRUE = np.array(True)
_FALSE = np.array(False)
_TRUE.flags.writeable = False
_FALSE.flags.writeable = False


def _is_initialized_kernel(ctx):
    _accepts_uninitialized(ctx, variable_op_of(ctx.op._inputs[0]))

    def run(ref):
        return _FALSE if isinstance(ref, UninitializedValue) else _TRUE

    return run


op_registry.declare(
    "IsVariableInitialized",
    inputs=["ref: Ref(dtype)"],
    outputs=["is_initialized: bool"],
    attrs=["dtype: type"],
    shape=lambda op: [TensorShape([])],
    kernel_factory=_is_initialized_kernel,
    differentiable=False,
    stateful=True,
)


# ------------------------------------------------------------------------------------------
# public wrappers
# ------------------------------------------------------------------------------------------


def _ref_of(ref):
    """The ref tensor of a Variable (or a ref Tensor)."""
    if isinstance(ref, ops.Tensor):
        return ref
    return ops.convert_to_tensor(ref, as_ref=True)


def _lvalue(ref, attr="_lazy_read"):
    """The ref tensor an update op writes. A plain (non-ref) tensor fails as in TF 1.15, whose
    wrapper takes any non-ref for a resource variable and reaches for the variable's ``attr``
    (an AttributeError, not the op's 'requires l-value input')."""
    ref = _ref_of(ref)
    if not ref.dtype._is_ref_dtype and type(ref) is ops.Tensor:
        raise AttributeError(f"'Tensor' object has no attribute '{attr}'")
    return ref


def _own_method(ref, method):
    """``ref``'s own ``assign...`` method: TF 1.15 hands a value that is not a ref to it (and so
    a plain Tensor fails with AttributeError)."""
    try:
        return getattr(ref, method)
    except AttributeError:
        raise AttributeError(
            f"'{type(ref).__name__}' object has no attribute '{method}'") from None


def _attrs(**kw):
    return {k: v for k, v in kw.items() if v is not None}


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Stores ``value`` in the variable ``ref``; returns the ref once the value is stored."""
    if getattr(ref, "_is_mirrored_variable", False):  # tf.distribute: the copies as needed
        return ref.assign(value, name=name)  # (as TF 1.15's, for resource variables)
    if getattr(ref, "_resource", False) and hasattr(ref, "_ref"):
        return ref.assign(value, name=name)  # as TF 1.15: a resource variable's own assign
    ref = _ref_of(ref)
    if ref.dtype == dtypes.resource:  # a resource variable's handle: TF's op on it
        return _on_handle("AssignVariableOp", ref, value, name)
    if not ref.dtype._is_ref_dtype:
        return _own_method(ref, "assign")(value, name=name)
    return ops.apply_op(
        "Assign", [ref, value],
        _attrs(validate_shape=validate_shape, use_locking=use_locking), name=name,
    )._outputs[0]


def assign_add(ref, value, use_locking=None, name=None):
    """Adds ``value`` to the variable ``ref`` in place; returns the ref."""
    if getattr(ref, "_is_mirrored_variable", False):  # tf.distribute: the copies as needed
        return ref.assign_add(value)  # (as TF 1.15's, for resource variables)
    if getattr(ref, "_resource", False) and hasattr(ref, "_ref"):
        return ref.assign_add(value)  # as TF 1.15 (which drops ``name`` here)
    ref = _ref_of(ref)
    if ref.dtype == dtypes.resource:  # a resource variable's handle: TF's op on it
        return _on_handle("AssignAddVariableOp", ref, value, name)
    if not ref.dtype._is_ref_dtype:
        return _own_method(ref, "assign_add")(value)
    return ops.apply_op(
        "AssignAdd", [ref, value], _attrs(use_locking=use_locking), name=name
    )._outputs[0]


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts ``value`` from the variable ``ref`` in place; returns the ref."""
    if getattr(ref, "_is_mirrored_variable", False):  # tf.distribute: the copies as needed
        return ref.assign_sub(value)  # (as TF 1.15's, for resource variables)
    if getattr(ref, "_resource", False) and hasattr(ref, "_ref"):
        return ref.assign_sub(value)  # as TF 1.15 (which drops ``name`` here)
    ref = _ref_of(ref)
    if ref.dtype == dtypes.resource:  # a resource variable's handle: TF's op on it
        return _on_handle("AssignSubVariableOp", ref, value, name)
    if not ref.dtype._is_ref_dtype:
        return _own_method(ref, "assign_sub")(value)
    return ops.apply_op(
        "AssignSub", [ref, value], _attrs(use_locking=use_locking), name=name
    )._outputs[0]


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[indices, ...] = updates``; returns the ref."""
    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(scatter_update, indices, updates, name, "ScatterUpdate")
    if isinstance(ref, ops.Tensor) and ref.dtype == dtypes.resource:
        return _resource_scatter("Update", ref, indices, updates, name)
    return ops.apply_op(
        "ScatterUpdate", [_lvalue(ref), indices, updates], {"use_locking": use_locking},
        name=name,
    )._outputs[0]


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices, ...] += updates`` (duplicate indices add up); returns the ref."""
    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(scatter_add, indices, updates, name, "ScatterAdd")
    if isinstance(ref, ops.Tensor) and ref.dtype == dtypes.resource:
        return _resource_scatter("Add", ref, indices, updates, name)
    return ops.apply_op(
        "ScatterAdd", [_lvalue(ref), indices, updates], {"use_locking": use_locking},
        name=name,
    )._outputs[0]


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """``ref[indices, ...] -= updates`` (duplicate indices add up); returns the ref."""
    if getattr(ref, "_resource", False) is True:  # a resource variable: TF 1.15's form
        return ref._resource_scatter(scatter_sub, indices, updates, name, "ScatterSub")
    if isinstance(ref, ops.Tensor) and ref.dtype == dtypes.resource:
        return _resource_scatter("Sub", ref, indices, updates, name)
    return ops.apply_op(
        "ScatterSub", [_lvalue(ref), indices, updates], {"use_locking": use_locking},
        name=name,
    )._outputs[0]


def _on_handle(op_type, handle, value, name):
    """TF's ``op_type`` (AssignVariableOp, ...) on a resource variable's handle: an op."""
    from tideflow.ops import resource_variable_ops

    var_op = resource_variable_ops.handle_var_op(handle)
    dtype = var_op._attrs["dtype"] if var_op is not None else None
    value = ops.convert_to_tensor(value, dtype=dtype)
    return ops.apply_op(op_type, [handle, value], {"dtype": value.dtype.base_dtype},
                        name=name)


def _resource_scatter(kind, handle, indices, updates, name):
    from tideflow.ops import resource_variable_ops

    return resource_variable_ops.resource_scatter(kind, handle, indices, updates,
                                                  name=name or "ResourceScatter" + kind)


def is_variable_initialized(ref, name=None):
    """A bool scalar: whether the variable ``ref`` has been initialized."""
    if getattr(ref, "_resource", False) is True and hasattr(ref, "handle"):
        ref = ref.handle  # (TF 1.15's op for a resource variable: VarIsInitializedOp)
    if isinstance(ref, ops.Tensor) and ref.dtype == dtypes.resource:
        return ops.apply_op("VarIsInitializedOp", [ref], name=name)._outputs[0]
    return ops.apply_op("IsVariableInitialized", [_lvalue(ref, "is_initialized")],
                        name=name)._outputs[0]


# TF's state_ops also holds the other ref updates, which tideflow declares with their families
_ELSEWHERE = {
    "scatter_mul": "tideflow.ops.extra_array_ops", "scatter_div": "tideflow.ops.extra_array_ops",
    "scatter_min": "tideflow.ops.extra_array_ops", "scatter_max": "tideflow.ops.extra_array_ops",
    "scatter_nd_update": "tideflow.ops.scatter_nd_ops",
    "scatter_nd_add": "tideflow.ops.scatter_nd_ops",
    "scatter_nd_sub": "tideflow.ops.scatter_nd_ops",
    "batch_scatter_update": "tideflow.ops.tf1_misc_ops",
    "count_up_to": "tideflow.ops.data_flow_ops",
}


def __getattr__(name):
    where = _ELSEWHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(where), name)
