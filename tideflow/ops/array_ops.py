"""Array ops: identity, shapes, reshape/squeeze/expand_dims/transpose; the static-shape helpers.

The other array families sit beside this file: ``concat_ops`` (concat, stack, split),
``pad_ops`` (pad, tile, reverse), ``slicing_ops``, ``gather_ops``, ``fill_ops``, ``range_ops`` and
``cast_ops``; their public functions are reachable here too (``array_ops.stack``), as in TF.
"""

import numpy as np

from tideflow.framework import dtypes, errors, kernel_types, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from tideflow.ops import constant_op

# ------------------------------------------------------------------------------------------
# helpers shared by the array-op families
# ------------------------------------------------------------------------------------------

# TF's words for an index ``Tensor.__getitem__`` cannot take (array_ops._SLICE_TYPE_ERROR)
_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices"
)
_FOLD_LIMIT = 1000  # the largest output constant_value computes by running a kernel


def _np(x):
    """``x`` as an ndarray (a 0-d string arrives as ``bytes``; keep it an object array)."""
    if type(x) is np.ndarray:
        return x
    if isinstance(x, (bytes, str)):
        return np.array(x, dtype=object)
    return np.asarray(x)


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _shape_str(shape):
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "?"
        shape = shape.as_list()
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _fold(op, index):
    """constant_value by running ``op``'s kernel on its inputs' constant values (small only)."""
    try:
        return _fold_inputs(op, index)
    except RecursionError:  # a very long constant chain: just "not known"
        return None


def _fold_inputs(op, index, limit=_FOLD_LIMIT):
    n = op._outputs[index]._shape.num_elements()
    if n is not None:
        return None if n > limit else _fold_values(op, index, n, limit)
    # a data-dependent size (Where's): folded only a few such ops deep, so a shape query
    # never walks a long chain of unknown-size ops back to its placeholder; deeper only when
    # constants alone lie up the chain (TF's evaluation has no depth limit)
    local = op._graph._thread_local
    depth = getattr(local, "unknown_size_folds", 0)
    if depth == _UNKNOWN_SIZE_FOLD_DEPTH and not ops.constant_rooted(op):
        local.evaluation_truncated = True  # (not known here, but may be when asked directly)
        return None
    # (past the limit, everything above was found constant: no second walk)
    local.unknown_size_folds = depth + 1
    try:
        return _fold_values(op, index, None, limit)
    finally:
        local.unknown_size_folds = depth


_UNKNOWN_SIZE_FOLD_DEPTH = 6


def _fold_values(op, index, n, limit=_FOLD_LIMIT):
    od = op._op_def
    args = []
    pos = 0
    for arg in od.inputs:
        if arg.is_list:
            k = op._attrs[arg.number_attr] if arg.number_attr else len(op._attrs[arg.type_list_attr])
            vals = [ops.constant_value(t) for t in op._inputs[pos:pos + k]]
            if any(v is None for v in vals):
                return None
            args.append(vals)
            pos += k
        else:
            v = ops.constant_value(op._inputs[pos])
            if v is None:
                return None
            args.append(v)
            pos += 1
    if n is None and any(np.size(v) > limit for v in args):
        return None  # an unknown size is folded from small inputs only
    kw = {a: op._attrs[a] for a in od.kernel_attrs}
    # a string kernel names a function of the array module (NumPy here)
    kernel = getattr(np, od.kernel) if isinstance(od.kernel, str) else od.kernel
    try:
        result = kernel(*args, **kw)
    except Exception:  # noqa: BLE001 - a failing fold just means "not known"
        return None
    single = len(od.outputs) == 1 and not od.outputs[0].is_list
    result = _np(result if single else result[index])
    return None if n is None and result.size > limit else result


def _evaluate_kernel(op, index, limit):
    """ops.constant_value's evaluation of an op without a constant-value function (only while
    a shape function runs): its kernel on its inputs' values, if TF 1.15 has a CPU kernel for
    its dtypes (as TF's, whose constant evaluation runs on the host)."""
    try:
        kernel_types.check_cpu_kernel(op)
        if op._op_def.check_attrs is not None:
            op._op_def.check_attrs(op._attrs)
    except Exception:  # noqa: BLE001 - no kernel: not evaluated
        return None
    with np.errstate(all="ignore"):
        return _fold_inputs(op, index, limit)


ops._evaluate_kernel = _evaluate_kernel
ops._size_limited_fold = _fold
ops._SIZE_LIMITED_FOLD_ELEMENTS = _FOLD_LIMIT


def _register_fold(*op_types):
    for t in op_types:
        ops.register_constant_value(t, _fold)


def _scalar(t):
    """The value of scalar int tensor ``t`` if it is a constant (``tf.shape(x)[i]`` only when
    x's shape is fully known)."""
    v = ops.constant_value(t)
    if v is not None:
        v = np.asarray(v)
        return int(v) if v.ndim == 0 and v.dtype.kind in "iu" else None
    op = t._op
    if op._type in ("Identity", "Cast", "StopGradient"):
        return _scalar(op._inputs[0])
    if op._type == "Placeholder":
        src = _visible_source(t)
        return None if src is None else _scalar(src)
    # (as TF 1.15's shape inference: an element of a partly known shape, or arithmetic on
    # one, is not a constant, so it is unknown: tf.reshape(x, [tf.shape(x)[1], -1]) is (?, ?))
    return None


def sliced_partial_vector(op):
    """A StridedSlice over a 1-D partially known int vector (``tf.shape(x)[1:]``, ``[0]``).

    Returns a list (ints or None), an int or None for a shrunk element, or None if unknown.
    """
    a = op._attrs
    if a["new_axis_mask"] or a["ellipsis_mask"] or a["shrink_axis_mask"] not in (0, 1):
        return None
    base = partial_vector(op._inputs[0], nested=True)
    bes = [ops.constant_value(x) for x in op._inputs[1:]]
    if base is None or not all(x is not None and np.size(x) == 1 for x in bes):
        return None
    b, e, st = (int(np.asarray(x).reshape(-1)[0]) for x in bes)
    if a["shrink_axis_mask"]:
        return base[b] if -len(base) <= b < len(base) else None
    if st == 0:
        return None
    return base[None if a["begin_mask"] & 1 else b:None if a["end_mask"] & 1 else e:st]


def partial_vector(t, nested=False):
    """A 1-D int tensor's value as a list of ints (None where unknown); None if length unknown.

    ``nested``: ``t`` feeds another op of the value (a slice, a concat part) rather than being
    the shape argument itself, so a cond branch's capture does not pass its value on.
    """
    op = t._op
    if op._type in _PARTIAL_SHAPE_SOURCES:
        # as TF's ConstantPartialShape: these are read part by part (a Shape's is its input's
        # static shape, a Pack's its elements' values), never evaluated as a whole
        v = ops.constant_value_unevaluated(t)
    else:
        v = ops.constant_value(t)
    if v is not None:
        v = np.asarray(v)
        if v.ndim != 1 or v.dtype.kind not in "iu":
            return None
        return [int(x) for x in v]
    typ = op._type
    if typ in ("Shape", "ShapeN"):
        s = op._inputs[t._value_index if typ == "ShapeN" else 0]._shape
        if s.ndims is not None:
            return s.as_list()
    if typ == "Pack" and op._attrs["axis"] == 0:
        return [_scalar(x) for x in op._inputs]
    if typ == "ConcatV2":
        axis = ops.constant_value(op._inputs[-1])
        if axis is not None and int(axis) in (0, -1):
            out = []
            for x in op._inputs[:-1]:
                part = partial_vector(x, nested=True)
                if part is None:
                    break
                out.extend(part)
            else:
                return out
    if typ == "StridedSlice" and not op._attrs["shrink_axis_mask"]:
        v = sliced_partial_vector(op)
        if isinstance(v, list):
            return v
    if typ == "Placeholder":
        src = captured_source(t) if not nested else _visible_source(t)
        if src is not None:
            return partial_vector(src)
    if typ in _PARTIAL_SHAPE_SOURCES and not nested and op._graph._thread_local.inferring_shapes:
        # as TF's MakeShapeFromShapeTensor: a shape read of unknown rank gives way to the
        # tensor's value, evaluated (tf.fill(tf.shape(tf.squeeze(x)), 1) of a constant x)
        v = ops.constant_value(t)
        if v is not None:
            v = np.asarray(v)
            if v.ndim == 1 and v.dtype.kind in "iu":
                return [int(x) for x in v]
    s = t._shape
    if s.ndims == 1 and s.dims[0].value is not None:
        return [None] * s.dims[0].value
    return None


def value_or_partial_vector(t):
    """``partial_vector`` for an input a shape function asks the value of first (TF's
    ``input_tensor``, evaluated whatever op makes it) and reads as a partial shape only when
    that is not known: Slice's begin and size, StridedSlice's, SplitV's size_splits."""
    v = ops.constant_value(t)
    if v is not None:
        v = np.asarray(v)
        if v.ndim == 1 and v.dtype.kind in "iu":
            return [int(x) for x in v]
    return partial_vector(t)


_PARTIAL_SHAPE_SOURCES = frozenset(("Shape", "ShapeN", "Pack", "ConcatV2", "StridedSlice"))


def constant_value_as_shape(tensor):
    """The (partial) TensorShape that 1-D int tensor ``tensor`` describes (-1 is unknown)."""
    s = tensor._shape
    if s.ndims == 0:
        v = ops.constant_value(tensor)
        if v is None:
            raise ValueError(
                "Received a scalar with unknown value as shape; require a statically known "
                "scalar with value '-1' to describe an unknown shape."
            )
        if int(v) != -1:
            raise ValueError(
                f"Received a scalar value '{int(v)}' as shape; require a statically known "
                "scalar with value '-1' to describe an unknown shape."
            )
        return unknown_shape()
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")
    local = tensor._op._graph._thread_local
    if local.shape_reads is not None:  # a shape function's error replayed (framework/ops)
        hidden = id(tensor) in local.shape_gate[0] and id(tensor) not in local.shape_gate[1]
        vec = None if hidden else partial_vector(tensor)
        if vec is None and hidden and s.ndims == 1 and s.dims[0].value is not None:
            # TF's first pass: a shape tensor of known length is that many unknown dims (a
            # shape of length 0 is a scalar, so reshaping 2 elements to it fails right there)
            vec = [None] * s.dims[0].value
        out = unknown_shape() if vec is None else _vector_as_shape(vec, local)
        local.shape_reads.append((tensor, out))
        return out
    vec = partial_vector(tensor)
    if vec is None:
        return unknown_shape()
    return _vector_as_shape(vec, local)


def _vector_as_shape(vec, local):
    # -1 is an unknown dimension; below that TF's shape refiner fails before the op's shape
    # function runs (so its error names no op)
    # (a partly known vector, a Pack with unknown entries, reads a negative entry as unknown)
    bad = [d for d in vec if d is not None and d < -1]
    if bad and local.inferring_shapes and None not in vec:
        raise ops.shape_tensor_error(f"Invalid value in tensor used for shape: {bad[0]}")
    return TensorShape([None if d is None or d < 0 else d for d in vec])


def _check_rank(shape, rank, what=""):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}{what}")


def _in(op, i):
    return op._inputs[i]._shape


def dim_for_scalar_input(op, i):
    """The size input ``i`` of ``op`` gives when it is a known constant, else None (TF's
    MakeDimForScalarInput, with its words for a negative size)."""
    n = ops.constant_value(op._inputs[i])
    if n is not None and int(n) < 0:
        raise ValueError(f"Dimension size, given by scalar input {i}, must be non-negative but "
                         f"is {int(n)}")
    return None if n is None else int(n)


def _reshape_to_input(op, grad):
    """``grad`` reshaped to the shape of ``op``'s first input. As TF's, the shape comes first and
    an IndexedSlices grad is made dense inside the Reshape (``<op>_grad/Reshape/tensor``)."""
    to = shape(op._inputs[0])
    return reshape(grad, to)


# ------------------------------------------------------------------------------------------
# Identity, IdentityN, StopGradient
# ------------------------------------------------------------------------------------------


def _identity_grad(op, grad):
    return grad


def _identity_n_grad(op, *grads):
    return list(grads)


def _identity_factory(ctx):
    src = ctx.op._inputs[0]
    if not src._dtype._is_ref_dtype:
        return _same
    from tideflow.ops import state_ops

    var_op = state_ops.variable_op_of(src)
    if var_op is None or var_op._attrs["shape"].is_fully_defined():
        return _same  # (a variable of a fixed shape keeps its buffer)
    res = state_ops.resource_for(ctx, var_op)

    def read(x):
        # a read of a variable sees its current value: an assign earlier in the step may have
        # given it a new buffer (validate_shape=False) since the ref was produced
        buf = res.buf
        return x if buf is None else buf

    return read


def _same(x):
    return x


_identity_factory.host_kernel = _same  # what the executor may elide (runtime/executor.py)

op_registry.declare(
    "Identity",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_identity_factory,
    grad=_identity_grad,
)
# the same ref as its input (TF 1.x graphs carry it): reads and assignments through it reach
# the variable (state_ops follows it back to the variable)
op_registry.declare(
    "RefIdentity",
    inputs=["input: Ref(T)"],
    outputs=["output: Ref(T)"],
    attrs=["T: type"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=lambda x: x,
    grad=_identity_grad,
)
op_registry.declare(
    "IdentityN",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: list(type) >= 1"],
    shape=lambda op: [t._shape for t in op._inputs],
    kernel=lambda inputs: list(inputs),
    grad=_identity_n_grad,
)
op_registry.declare(
    "StopGradient",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=lambda x: x,
    differentiable=False,
)


def _prevent_gradient_grad(op, _):
    message = op.get_attr("message")
    if isinstance(message, str):
        message = message.encode("utf-8")
    # TF 1.15 formats the attr's bytes with %s, so the reason reads b'...'
    raise LookupError(f"Gradient explicitly disabled. Reason: {message!r}")


# an identity whose gradient is an error: TF puts it where a second derivative is undefined
op_registry.declare(
    "PreventGradient",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "message: string = ''"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=lambda x: x,
    grad=_prevent_gradient_grad,
)
def captured_source(t):
    """The enclosing tensor a loop/cond/function body's capture placeholder ``t`` stands for
    (so ``tf.fill(n, x)`` in a while body knows ``n`` computed outside it), else None."""
    lookup = getattr(t._op._graph, "captured_source", None)
    return None if lookup is None else lookup(t)


def _visible_source(t):
    """``captured_source(t)`` where the capture passes its value on to value inference.

    A cond branch traced with ``hides_capture_values`` (its predicate not known to select it)
    does not: TF 1.x's branches see an outer tensor through a Switch, whose value its shape
    inference cannot evaluate, so ``tf.reshape(x, [-1, n[0]])`` in a branch leaves the sizes
    unknown. Only a captured tensor used itself as a shape (``tf.fill(n, v)``) keeps them.
    """
    if getattr(t._op._graph, "hides_capture_values", False):
        return None
    return captured_source(t)


def _captured_value(op, i):
    src = _visible_source(op._outputs[0])
    return None if src is None else ops.constant_value(src)


ops.register_constant_value("Placeholder", _captured_value)
ops.register_constant_value("Identity", lambda op, i: ops.constant_value(op._inputs[0]))
ops.register_constant_value("StopGradient", lambda op, i: ops.constant_value(op._inputs[0]))
ops.register_constant_value("IdentityN", lambda op, i: ops.constant_value(op._inputs[i]))


@add_dispatch_support(elementwise=1)
def identity(input, name=None):
    """Returns a tensor with the same value as ``input``."""
    return ops.apply_op("Identity", [input], name=name)._outputs[0]


def identity_n(input, name=None):
    """Returns a list of tensors with the same values as the tensors in ``input``."""
    return list(ops.apply_op("IdentityN", [list(input)], name=name)._outputs)


def stop_gradient(input, name=None):
    """``input``, through which no gradient flows."""
    return ops.apply_op("StopGradient", [input], name=name)._outputs[0]


def prevent_gradient(input, message="", name=None):
    """``input``; asking for a gradient through it raises ``LookupError`` naming ``message``."""
    return ops.apply_op("PreventGradient", [input], {"message": message},
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Shape, ShapeN, Size, Rank
# ------------------------------------------------------------------------------------------


def _shape_kernel(x, *, out_type):
    if type(x) is np.ndarray:
        return np.array(x.shape, dtype=out_type._np)  # int32/int64: its NumPy dtype as is
    return np.array(np.shape(x), dtype=out_type.as_numpy_dtype)


def _shape_n_kernel(xs, *, out_type):
    return [np.array(np.shape(x), dtype=out_type.as_numpy_dtype) for x in xs]


def _size_kernel(x, *, out_type):
    if type(x) is np.ndarray:
        return np.array(x.size, dtype=out_type.as_numpy_dtype)
    return np.array(np.size(x), dtype=out_type.as_numpy_dtype)


def _rank_kernel(x):
    return np.array(np.ndim(x), dtype=np.int32)


op_registry.declare(
    "Shape",
    inputs=["input: T"],
    outputs=["output: out_type"],
    attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
    shape=lambda op: [[_in(op, 0).ndims]],
    kernel=_shape_kernel,
    differentiable=False,
)
op_registry.declare(
    "ShapeN",
    inputs=["input: N * T"],
    outputs=["output: N * out_type"],
    attrs=["N: int >= 1", "T: type", "out_type: {int32, int64} = DT_INT32"],
    shape=lambda op: [[t._shape.ndims] for t in op._inputs],
    kernel=_shape_n_kernel,
    differentiable=False,
)
op_registry.declare(
    "Size",
    inputs=["input: T"],
    outputs=["output: out_type"],
    attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
    shape=lambda op: [[]],
    kernel=_size_kernel,
    differentiable=False,
)
op_registry.declare(
    "Rank",
    inputs=["input: T"],
    outputs=["output: int32"],
    attrs=["T: type"],
    shape=lambda op: [[]],
    kernel=_rank_kernel,
    differentiable=False,
)


def _static_shape_value(op, i):
    s = op._inputs[i]._shape
    if not s.is_fully_defined():
        return None
    return np.array(s.as_list(), dtype=op._attrs["out_type"].as_numpy_dtype)


def _unfolded_in_shape_inference(op):
    # TF 1.15's shape inference folds a Size or Rank op that an op reads directly only when
    # its input's value is known (a constant subgraph), not from a known input shape alone;
    # one deeper in the evaluated subgraph (Fill's shape Reshape(Size(x), [-1])) it folds from
    # the shape, as Python's constant evaluation (and tf.get_static_value) always does
    local = op._graph._thread_local
    reader = local.inferring_op
    return (local.inferring_shapes and reader is not None
            and any(t._op is op for t in reader._inputs)
            and ops.constant_value(op._inputs[0]) is None)


def _static_size_value(op, i):
    n = op._inputs[0]._shape.num_elements()
    if n is None or _unfolded_in_shape_inference(op):
        return None
    return np.array(n, dtype=op._attrs["out_type"].as_numpy_dtype)


def _static_rank_value(op, i):
    r = op._inputs[0]._shape.ndims
    if r is None or _unfolded_in_shape_inference(op):
        return None
    return np.array(r, dtype=np.int32)


ops.register_constant_value("Shape", lambda op, i: _static_shape_value(op, 0))
ops.register_constant_value("ShapeN", _static_shape_value)
ops.register_constant_value("Size", _static_size_value)
ops.register_constant_value("Rank", _static_rank_value)


def shape(input, name=None, out_type=dtypes.int32):
    """The shape of ``input`` as a 1-D tensor (a constant when it is statically known)."""
    return _shape_internal(input, name, True, out_type)


def _sparse_shape(input):
    """A SparseTensor's (or SparseTensorValue's) dense_shape as a tensor, else None."""
    from tideflow.framework import sparse_tensor

    if isinstance(input, (sparse_tensor.SparseTensor, sparse_tensor.SparseTensorValue)):
        return ops.convert_to_tensor(input.dense_shape, dtype=dtypes.int64)
    return None


def _shape_internal(input, name=None, optimize=True, out_type=dtypes.int32):
    with ops.name_scope(name, "Shape", [input]) as scope:
        dense_shape = _sparse_shape(input)
        if dense_shape is not None:
            # TF 1.x: a sparse tensor's dense_shape through a Cast op (always one, "Shape/Cast")
            return ops.apply_op("Cast", [dense_shape], {"DstT": out_type,
                                                        "Truncate": False})._outputs[0]
        t = ops.convert_to_tensor(input)
        s = t.get_shape()
        if optimize and s.is_fully_defined():
            return constant_op.constant(s.as_list(), dtype=out_type, name=scope)
        return ops.apply_op("Shape", [t], {"out_type": out_type}, name=scope)._outputs[0]


def shape_n(input, out_type=dtypes.int32, name=None):
    """The shapes of the tensors in ``input``."""
    return list(ops.apply_op("ShapeN", [list(input)], {"out_type": out_type},
                             name=name)._outputs)


@add_dispatch_support  # a RaggedTensor: the size of its flat values
def size(input, name=None, out_type=dtypes.int32):
    """The number of elements of ``input`` (a constant when statically known)."""
    with ops.name_scope(name, "Size", [input]) as scope:
        dense_shape = _sparse_shape(input)
        if dense_shape is not None:
            # TF 1.x: a Prod (the size's name) over axis 0 of the dense_shape cast first
            shape = ops.apply_op("Cast", [dense_shape], {"DstT": dtypes.as_dtype(out_type),
                                                         "Truncate": False})._outputs[0]
            return ops.apply_op("Prod", [shape, 0], {"keep_dims": False},
                                name=scope)._outputs[0]
        t = ops.convert_to_tensor(input)
        s = t.get_shape()
        if s.is_fully_defined():
            return constant_op.constant(s.num_elements(), dtype=out_type, name=scope)
        if s.ndims is not None and any(d.value == 0 for d in s.dims):
            return constant_op.constant(0, dtype=out_type, name=scope)
        return ops.apply_op("Size", [t], {"out_type": out_type}, name=scope)._outputs[0]


@add_dispatch_support
def rank(input, name=None):
    """The rank of ``input`` (a constant when statically known)."""
    with ops.name_scope(name, "Rank", [input]) as scope:
        dense_shape = _sparse_shape(input)
        if dense_shape is not None:
            # TF 1.x: a Size op of a sparse tensor's dense_shape, even when its length is known
            return ops.apply_op("Size", [dense_shape], {"out_type": dtypes.int32},
                                name=scope)._outputs[0]
        t = ops.convert_to_tensor(input)
        if t.get_shape().ndims is not None:
            return constant_op.constant(t.get_shape().ndims, dtype=dtypes.int32, name=scope)
        return ops.apply_op("Rank", [t], name=scope)._outputs[0]


# ------------------------------------------------------------------------------------------
# Reshape, Squeeze, ExpandDims, Transpose
# ------------------------------------------------------------------------------------------


def _reshape_shape(op):
    in_shape = _in(op, 0)
    target = constant_value_as_shape(op._inputs[1])
    # (several -1s are left unknown, as TF's shape function does: the kernel refuses them)
    if target.ndims is None:
        return [target]
    dims = target.as_list()
    missing = [i for i, d in enumerate(dims) if d is None]
    known = int(np.prod([d for d in dims if d is not None], dtype=np.int64))
    n = in_shape.num_elements()
    if n is None and in_shape.ndims is not None and 0 in in_shape.as_list() and not missing:
        n = 0  # TF's NumElements: a known 0 dimension makes 0 elements, the others unknown
    if n is None and len(missing) == 1 and known > 0 and in_shape.ndims is not None and (
            0 in in_shape.as_list()):
        # an input with a zero dimension has no elements whatever its other dimensions (TF)
        dims[missing[0]] = 0
        return [TensorShape(dims)]
    if n is None and in_shape.ndims is not None and not missing and \
            in_shape.as_list().count(None) == 1:
        # as TF's shape function: the known input dimensions must divide the target's size
        # (when one input dimension is unknown: with more, TF infers nothing)
        known_in = int(np.prod([d for d in in_shape.as_list() if d is not None],
                               dtype=np.int64))
        if known_in > 0 and known % known_in:
            raise ValueError(f"Dimension size must be evenly divisible by {known_in} but is "
                             f"{known}")
    if n is not None:
        if (not missing and known != n) or (len(missing) == 1 and known == 0 and n):
            # (with a -1: a zero dimension asks for no elements, which TF's shape function
            # already refuses for an input with some)
            raise ValueError(
                f"Cannot reshape a tensor with {n} elements to shape {_shape_str(dims)} "
                f"({known} elements)"
            )
        if len(missing) == 1 and known > 0:
            if n % known:  # TF's shape function divides the input's size by the known dims
                raise ValueError(f"Dimension size must be evenly divisible by {known} but is {n}")
            dims[missing[0]] = n // known
    return [dims]


def _reshape_kernel(x, shape):
    x = _np(x)
    if type(shape) is np.ndarray and shape.ndim == 1:
        dims = shape.tolist()  # (a list converts to a shape four times faster than an array)
        if not dims or min(dims) >= -1:  # NumPy takes any negative size as -1; TF does not
            try:  # the common case costs one NumPy call; failures get TF's messages below
                return x.reshape(dims)
            except (ValueError, TypeError):
                pass
    want = [int(d) for d in np.reshape(shape, -1)]
    unknown = [i for i, d in enumerate(want) if d == -1]
    if len(unknown) > 1:
        raise _invalid(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    known = int(np.prod([d for d in want if d != -1], dtype=np.int64))
    for i, d in enumerate(want):
        if d < -1:
            raise _invalid(f"Size {i} must be non-negative, not {d}")
    if unknown:
        # TF's kernel: a zero in the requested shape leaves the input's zero dimensions out of
        # the count, so the -1 still takes the size the other dimensions give it
        has_zero = 0 in want
        product = int(np.prod([d for d in want if d > 0], dtype=np.int64))
        count = int(np.prod([d for d in x.shape if d > 0 or not has_zero], dtype=np.int64))
        missing = count // product
        if not (has_zero and 0 in x.shape) and product * missing != count:
            raise _invalid(
                f"Input to reshape is a tensor with {x.size} values, but the requested shape "
                f"requires a multiple of {product}"
            )
        want[unknown[0]] = missing
        known = int(np.prod(want, dtype=np.int64))
    if known != x.size:
        raise _invalid(
            f"Input to reshape is a tensor with {x.size} values, but the requested shape has "
            f"{known}"
        )
    return x.reshape(want)


def _reshape_grad(op, grad):
    # shape(x): a Const when x's shape is known, else a Shape op, as TF 1.15 builds it
    return [_reshape_to_input(op, grad), None]


op_registry.declare(
    "Reshape",
    inputs=["tensor: T", "shape: Tshape"],
    outputs=["output: T"],
    attrs=["T: type", "Tshape: {int32, int64} = DT_INT32"],
    shape=_reshape_shape,
    kernel=_reshape_kernel,
    grad=_reshape_grad,
)


def _squeeze_shape(op):
    s = _in(op, 0)
    axes = op._attrs["squeeze_dims"]
    if s.ndims is None:
        return [None]
    r = s.ndims
    canon = set()
    for i, a in enumerate(axes):
        if not -r <= a < r:  # TF 1.15's shape function's words (the kernel's differ)
            raise ValueError(f"squeeze_dims[{i}] not in [{-r},{r}).")
        canon.add(a % r)
    out = []
    for i, d in enumerate(s.dims):
        if canon:
            if i in canon:
                if d.value is not None and d.value != 1:
                    raise ValueError(
                        f"Can not squeeze dim[{i}], expected a dimension of 1, got {d.value}"
                    )
                continue
        elif d.value == 1:
            continue
        elif d.value is None:
            return [None]  # it may or may not be squeezed
        out.append(d)
    return [out]


def _squeeze_kernel(x, *, squeeze_dims):
    x = _np(x)
    if not squeeze_dims:
        return np.squeeze(x)
    r = x.ndim
    for a in squeeze_dims:
        if not -r <= a < r:
            raise _invalid(f"Tried to squeeze dim index {a} for tensor with {r} dimensions.")
        if x.shape[a] != 1:
            raise _invalid(
                f"Can not squeeze dim[{a % r}], expected a dimension of 1, got {x.shape[a]}"
            )
    return np.squeeze(x, axis=tuple(a % r for a in squeeze_dims))


def _squeeze_grad(op, grad):
    return _reshape_to_input(op, grad)


op_registry.declare(
    "Squeeze",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "squeeze_dims: list(int) >= 0 = []"],
    shape=_squeeze_shape,
    kernel=_squeeze_kernel,
    grad=_squeeze_grad,
)


def _expand_dims_shape(op):
    s = _in(op, 0)
    d = ops.constant_value(op._inputs[1])
    if d is not None and np.size(d) != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    if d is None:  # as TF: an axis known only when run says nothing of the shape
        return [None]
    d = int(np.reshape(d, -1)[0])
    if s.ndims is None:
        return [None]
    r = s.ndims
    if not -r - 1 <= d <= r:
        raise ValueError(f"dim {d} not in the interval [{-r - 1}, {r}].")
    d = d % (r + 1)
    dims = s.dims
    return [dims[:d] + [Dimension(1)] + dims[d:]]


def _expand_dims_kernel(x, dim):
    x = _np(x)
    if type(dim) is np.ndarray and dim.ndim == 0 and dim.dtype.kind == "i":
        d, r = int(dim), x.ndim  # the common case: a scalar axis, one reshape
        if -r - 1 <= d <= r:
            d %= r + 1
            return x.reshape(x.shape[:d] + (1,) + x.shape[d:])
    if np.size(dim) != 1:
        raise _invalid(f"'dim' must be a tensor with a single value, got {np.size(dim)} values")
    d = int(np.reshape(dim, -1)[0])
    r = x.ndim
    if not -r - 1 <= d <= r:
        raise _invalid(f"Tried to expand dim index {d} for tensor with {r} dimensions.")
    return np.expand_dims(x, d % (r + 1))


def _expand_dims_grad(op, grad):
    return [_reshape_to_input(op, grad), None]


op_registry.declare(
    "ExpandDims",
    inputs=["input: T", "dim: Tdim"],
    outputs=["output: T"],
    attrs=["T: type", "Tdim: {int32, int64} = DT_INT32"],
    shape=_expand_dims_shape,
    kernel=_expand_dims_kernel,
    grad=_expand_dims_grad,
)


def _transpose_shape(op):
    s = _in(op, 0)
    perm = partial_vector(op._inputs[1])
    _check_rank(_in(op, 1), 1)
    if perm is None:
        return [None if s.ndims is None else [None] * s.ndims]
    r = len(perm)
    if None in perm:
        # TF 1.15 reads perm as a whole constant or not at all: a partly known perm gives the
        # rank only
        if s.ndims is not None and s.ndims != r:
            raise ValueError(f"Dimension must be {s.ndims} but is {r}")
        return [None if s.ndims is None and r < 2 else [None] * r]
    if s.ndims is not None and s.ndims != r:
        raise ValueError(f"Dimension must be {s.ndims} but is {r}")
    known = [p for p in perm if p is not None]
    for p in known:
        if not -r <= p < r:
            raise ValueError(f"perm dim {p} is out of range of input rank {r}")
    # a repeated entry fails when run ("1 is missing from {0,2,2}."), as in TF
    if s.ndims is None:
        # TF: a one-entry perm of an input of unknown rank could be a scalar's or a vector's
        return [None] if r < 2 else [[None] * r]
    return [[None if p is None else s.dims[p] for p in perm]]


def _transpose_kernel(x, perm):
    x = _np(x)
    perm = [int(p) for p in np.reshape(perm, -1)]
    if len(perm) != x.ndim:
        raise _invalid(
            f"transpose expects a vector of size {x.ndim}. But input(1) is a vector of size "
            f"{len(perm)}"
        )
    seen = set()
    for p in perm:
        if not 0 <= p < x.ndim:  # (a negative entry too: TF's kernel takes no -1)
            raise _invalid(f"{p} is out of range [0 .. {x.ndim})")
        seen.add(p)
    for i in range(x.ndim):
        if i not in seen:
            raise _invalid(f"{i} is missing from {{{','.join(map(str, perm))}}}.")
    return np.transpose(x, perm)


def _transpose_grad(op, grad, conjugate=False):
    perm = op._inputs[1]
    p = ops.constant_value(perm)
    if p is not None and np.any(np.asarray(p) < 0):
        inverse = np.argsort(np.reshape(p, -1) % max(np.size(p), 1)).astype(np.int32)
    else:  # an InvertPermutation op, as TF 1.15 builds it
        from tideflow.ops.gather_ops import invert_permutation

        inverse = invert_permutation(perm)
    # (an IndexedSlices is densified by the Transpose's conversion: "transpose/x", as TF's)
    return [transpose(grad, inverse, conjugate=conjugate), None]


op_registry.declare(
    "Transpose",
    inputs=["x: T", "perm: Tperm"],
    outputs=["y: T"],
    attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"],
    shape=_transpose_shape,
    kernel=_transpose_kernel,
    grad=_transpose_grad,
)


def _conjugate_transpose_grad(op, grad):
    return _transpose_grad(op, grad, conjugate=True)


op_registry.declare(
    "ConjugateTranspose",
    inputs=["x: T", "perm: Tperm"],
    outputs=["y: T"],
    attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"],
    shape=_transpose_shape,
    kernel=lambda x, perm: np.conj(_transpose_kernel(x, perm)),
    grad=_conjugate_transpose_grad,
)
_register_fold("Reshape", "Squeeze", "ExpandDims", "Transpose", "ConjugateTranspose")


def reshape(tensor, shape, name=None):
    """Reshapes ``tensor`` to ``shape`` (one dimension may be -1)."""
    if type(shape) in (list, tuple) and not shape:  # [] converts inside the op, as in TF
        shape = _EMPTY_SHAPE
    return ops.apply_op("Reshape", [tensor, shape], name=name)._outputs[0]


_EMPTY_SHAPE = np.zeros([0], np.int32)


@add_dispatch_support  # a RaggedTensor: ragged squeeze
def squeeze(input, axis=None, name=None, squeeze_dims=None):
    """Removes dimensions of size 1 (those in ``axis``, or all)."""
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
        axis = squeeze_dims
    if axis is None:
        axis = []
    elif np.isscalar(axis) or isinstance(axis, Dimension):
        axis = [int(axis)]
    elif not isinstance(axis, (list, tuple, np.ndarray)):
        # an attr, never a tensor: TF's wrapper rejects a Tensor before iterating it
        raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axis!r}.")
    dims = []
    for a in axis:  # TF's wrapper makes each an int under its Python name 'axis'
        try:
            if isinstance(a, str):
                raise TypeError
            dims.append(int(a))
        except (TypeError, ValueError):
            raise TypeError(f"Expected int for argument 'axis' not {a!r}.") from None
    return ops.apply_op("Squeeze", [input], {"squeeze_dims": dims}, name=name)._outputs[0]


@add_dispatch_support  # a RaggedTensor: ragged expand_dims
def expand_dims(input, axis=None, name=None, dim=None):
    """Inserts a dimension of size 1 at index ``axis``."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        axis = dim
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return ops.apply_op("ExpandDims", [input, axis], name=name)._outputs[0]


def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of ``a`` by ``perm`` (default: reverses them); ``conjugate``
    (complex ``a``) is one ConjugateTranspose, as in TF."""
    with ops.name_scope(name, "transpose", [a]) as scope:
        # as TF 1.15: with a perm, the op's own conversion names a non-tensor "x"
        a = ops.convert_to_tensor(a, name="a" if perm is None else "x")
        op_type = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        if perm is None:
            r = a.get_shape().ndims
            if not r:  # as TF, also for a scalar: (rank - 1) - Range(0, rank, 1)
                from tideflow.ops import range_ops

                n = ops.apply_op("Rank", [a], name="Rank")._outputs[0]  # a Rank op, unfolded
                perm = (n - 1) - range_ops.range(0, n, 1, name="Range")
            else:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
        return ops.apply_op(op_type, [a, perm], name=scope)._outputs[0]


# ------------------------------------------------------------------------------------------
# the sibling families' wrappers, reachable as array_ops.<name> (loaded on first use)
# ------------------------------------------------------------------------------------------

_SIBLINGS = {
    "concat_ops": "concat concat_v2 stack unstack pack unpack split",
    "pad_ops": "tile pad reverse reverse_v2",
    "fill_ops": "fill zeros ones zeros_like ones_like broadcast_to broadcast_dynamic_shape "
    "broadcast_static_shape",
    "gather_ops": "gather gather_nd scatter_nd where where_v2 select unique invert_permutation",
    "slicing_ops": "slice strided_slice boolean_mask",
    "range_ops": "one_hot matrix_band_part sequence_mask meshgrid",
}
_SIBLING_OF = {n: m for m, names in _SIBLINGS.items() for n in names.split()}


def __getattr__(name):
    module = _SIBLING_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"tideflow.ops.{module}"), name)
    globals()[name] = value
    return value
