"""Framework-level functions of TF 1.x's top level: ``is_tensor``, ``get_static_value``, the
eager/v2 switches (tideflow always builds graphs), ``custom_gradient``, ``py_function``,
``ensure_shape`` (EnsureShape), ``timestamp`` (Timestamp), ``switch_case`` and the
``Dimension`` helpers."""

import collections
import itertools
import logging as _logging
import time

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import Dimension, TensorShape, as_shape
from tideflow.ops.gradients import AggregationMethod, UnconnectedGradients  # noqa: F401

# ------------------------------------------------------------------------------------------
# tensors and their static values
# ------------------------------------------------------------------------------------------


def is_tensor(x):
    """True for graph tensors and tensor-like objects (Tensor, SparseTensor, IndexedSlices,
    Variable), False for NumPy arrays and Python values (as ``tf.is_tensor``)."""
    from tideflow.ops.variables import Variable

    return isinstance(x, (ops.Tensor, SparseTensor, IndexedSlices, Variable)) or (
        getattr(x, "is_tensor_like", False) is True
    )


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array when TF 1.15's Python constant evaluation
    (``tensor_util.constant_value``) finds it, else None: constants, shapes, sizes and ranks of
    statically known tensors, and Range, Cast, Concat, Pack (axis 0), Fill, Equal and NotEqual
    of such values; not arithmetic (``tf.constant(3) * 2`` gives None, as in TF). Values that
    are not tensors are returned unchanged. As TF, a tensor whose value is returned may no
    longer be fed (what is built from here on may rely on the value)."""
    from tideflow.framework.sparse_tensor import _python_value
    from tideflow.ops.variables import Variable

    if isinstance(tensor, Variable):
        return None
    if isinstance(tensor, (SparseTensor, IndexedSlices)):
        return None
    if not isinstance(tensor, ops.Tensor):
        return tensor
    if partial:
        from tideflow.python.framework.tensor_util import constant_value as _partial

        return _partial(tensor, partial=True)
    v = _python_value(tensor)
    return None if v is None else np.asarray(v)


constant_value = get_static_value


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """IndexedSlices and SparseTensors stay as they are (TF's tensor-like types); anything
    else becomes a Tensor."""
    if isinstance(value, (IndexedSlices, SparseTensor)):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {value.dtype.name}: {value!r}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """SparseTensor(Value)s become SparseTensors; anything else becomes a Tensor."""
    from tideflow.framework import sparse_tensor

    return sparse_tensor.convert_to_tensor_or_sparse_tensor(value, dtype=dtype, name=name)


def dimension_value(dimension):
    """The int (or None) of a ``Dimension``; ints and None pass through."""
    if isinstance(dimension, Dimension):
        return dimension.value
    return dimension


def dimension_at_index(shape, index):
    """``Dimension`` ``index`` of ``shape`` (an unknown Dimension when the rank is unknown)."""
    shape = as_shape(shape)
    if shape.ndims is None:
        return Dimension(None)
    return shape.dims[index] if isinstance(shape.dims[index], Dimension) else Dimension(
        shape.dims[index])


# ------------------------------------------------------------------------------------------
# eager / v2 switches: tideflow is TF 1.x graph mode, always
# ------------------------------------------------------------------------------------------


def executing_eagerly():
    """Always False: tideflow builds graphs and runs them in Sessions."""
    return False


executing_eagerly_outside_functions = executing_eagerly


def _noop_switch(name, doc):
    def switch():
        return None

    switch.__name__ = name
    switch.__doc__ = doc
    return switch


disable_eager_execution = _noop_switch(
    "disable_eager_execution", "Does nothing: tideflow never executes eagerly.")
disable_v2_behavior = _noop_switch(
    "disable_v2_behavior", "Does nothing: tideflow has TF 1.x behaviour only.")
disable_control_flow_v2 = _noop_switch(
    "disable_control_flow_v2", "Does nothing: tideflow keeps one control-flow implementation.")
disable_v2_tensorshape = _noop_switch(
    "disable_v2_tensorshape", "Does nothing: TensorShape dims are Dimensions, as in TF 1.x.")
disable_tensor_equality = _noop_switch(
    "disable_tensor_equality", "Does nothing: Tensors compare by identity, as in TF 1.x.")


def _unsupported(name, what):
    def switch(*args, **kwargs):
        raise ValueError(
            f"tf.{name}: tideflow implements TF 1.x graph mode only and cannot enable {what}; "
            "build a graph and run it in a tf.Session.")

    switch.__name__ = name
    switch.__doc__ = f"Raises ValueError: tideflow cannot enable {what}."
    return switch


enable_eager_execution = _unsupported("enable_eager_execution", "eager execution")
enable_v2_behavior = _unsupported("enable_v2_behavior", "TF 2.x behaviour")
_RESOURCE_VARIABLES = [False]


def enable_resource_variables():
    """Variables made afterwards are resource variables (``ops/resource_variable_ops``): a
    read is a snapshot that later updates of the step do not change."""
    _RESOURCE_VARIABLES[0] = True


def disable_resource_variables():
    """Variables made afterwards are reference variables again."""
    _RESOURCE_VARIABLES[0] = False


enable_control_flow_v2 = _unsupported("enable_control_flow_v2", "control flow v2")
enable_v2_tensorshape = _unsupported("enable_v2_tensorshape", "v2 TensorShape semantics")
# TF 1.15's switch only matters when executing eagerly: graph Tensors keep comparing by identity
enable_tensor_equality = _noop_switch(
    "enable_tensor_equality", "Does nothing in graph mode (as in TF 1.x): Tensors compare by "
    "identity and stay hashable.")


def resource_variables_enabled():
    return _RESOURCE_VARIABLES[0]


def control_flow_v2_enabled():
    return False


def get_logger():
    """The Python ``logging`` logger named 'tensorflow' (what ``tf.logging`` writes to)."""
    return _logging.getLogger("tensorflow")


# ------------------------------------------------------------------------------------------
# gradients
# ------------------------------------------------------------------------------------------


def no_gradient(op_type):
    """Declares ops of type ``op_type`` not differentiable (``tf.NotDifferentiable``)."""
    from tideflow.ops.gradients import NotDifferentiable

    NotDifferentiable(op_type)


_custom_ids = itertools.count()


def custom_gradient(f=None):
    """Decorator: ``f(*x)`` returns ``(y, grad_fn)``; ``tf.gradients`` then differentiates y
    with ``grad_fn(*dy) -> dx`` instead of through the ops that computed y.

    Graph mode, as TF 1.x: the results and inputs pass through one IdentityN whose gradient is
    overridden to call ``grad_fn``. Trainable variables that ``f`` creates or reads are passed
    to a ``grad_fn(*dy, variables=...)`` that must then return ``(dx, dvariables)``.
    """
    if f is None:
        return custom_gradient

    import functools
    import inspect

    from tideflow.framework import nest
    from tideflow.ops import array_ops

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator only supports keyword arguments "
                             f"in eager mode; got {sorted(kwargs)} for {f.__name__}")
        from tideflow.ops import variable_scope
        from tideflow.ops.training_ops import _is_resource_variable

        graph = ops.get_default_graph()
        args = [ops.convert_to_tensor(a) for a in args]
        first_id = graph._next_id
        scope = variable_scope.get_variable_scope()
        before = {id(v) for v in scope.global_variables() + scope.local_variables()}
        result, grad_fn = f(*args)
        for v in scope.global_variables() + scope.local_variables():
            if id(v) not in before and not _is_resource_variable(v):
                raise TypeError(  # TF 1.15's words: f may create resource variables only
                    "All variables used by a function wrapped with @custom_gradient must be "
                    "`ResourceVariable`s. Ensure that no `variable_scope` is created with "
                    "`use_resource=False`.")
        new_vars = _variables_used(graph, first_id, args)
        for r in nest.flatten(result):  # TF's get_dependent_variables: one Identity per result
            ops.apply_op("Identity", [r], name="Identity")
        takes_vars = "variables" in inspect.signature(grad_fn).parameters or any(
            p.kind is p.VAR_KEYWORD for p in inspect.signature(grad_fn).parameters.values())
        if new_vars and not takes_vars:
            raise TypeError(  # TF 1.15's words
                "If using @custom_gradient with a function that uses variables, then grad_fn "
                "must accept a keyword argument 'variables'.")
        flat = [ops.convert_to_tensor(r) for r in nest.flatten(result)]
        var_tensors = [ops.convert_to_tensor(v) for v in new_vars]
        n_out = len(flat)
        grad_name = f"CustomGradient-{next(_custom_ids)}"

        def identity_grad(op, *dys):
            dys = list(dys[:n_out])
            if new_vars:  # as TF: grad_fn gets variables= only when f used some
                res = grad_fn(*dys, variables=new_vars)
                if not (isinstance(res, (list, tuple)) and len(res) == 2):
                    raise ValueError(f"custom_gradient {f.__name__}: grad_fn with variables "
                                     "must return (input_grads, variable_grads)")
                in_grads, var_grads = res
            else:
                in_grads, var_grads = grad_fn(*dys), []
            var_grads = list(var_grads or [])
            if len(var_grads) != len(new_vars):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn.")
            # as TF, a wrong number of input gradients is left for the IdentityN's own check
            return [None] * n_out + nest.flatten(in_grads) + var_grads

        op_registry.register_gradient(grad_name, identity_grad)
        with graph.gradient_override_map({"IdentityN": grad_name}):
            outs = array_ops.identity_n(flat + args + var_tensors)
        return nest.pack_sequence_as(result, list(outs[:n_out]))

    return decorated


def get_dependent_variables(input_ops, output_ops):
    """The trainable variables that ``output_ops`` depend on differentiably without passing
    through ``input_ops`` (nested structures of tensors), as TF's custom_gradient module finds
    them: walking back from the outputs, not past the inputs nor into the inputs of an op that
    has no gradient (``ones_like(var)`` does not depend on ``var``)."""
    from tideflow.framework import nest
    from tideflow.ops.gradients import _gradient_fn

    stop = {id(t) for t in nest.flatten(input_ops)}
    seeds = [ops.convert_to_tensor(t)._op for t in nest.flatten(output_ops)]
    seen = {id(op) for op in seeds}
    queue = collections.deque(seeds)
    var_ops = set()
    while queue:
        op = queue.popleft()
        if op._type in ("VariableV2", "Variable", "VarHandleOp"):
            var_ops.add(id(op))
        fn, found = _gradient_fn(op)
        if not found or fn is None:
            continue
        for t in op._inputs:
            if id(t) not in stop and id(t._op) not in seen:
                seen.add(id(t._op))
                queue.append(t._op)
    graph = seeds[0]._graph if seeds else ops.get_default_graph()
    return [v for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
            if v.trainable and id(v.op) in var_ops]


def _variables_used(graph, first_id, args=()):
    """The trainable variables created, or read by ops created, since op id ``first_id``; a
    variable passed in as one of ``args`` is an input, not a variable the function uses."""
    new_ops = [op for i, op in graph._nodes_by_id.items() if i >= first_id]
    read = {id(t) for op in new_ops for t in op._inputs} - {id(a) for a in args}
    created = {id(op) for op in new_ops}
    out = []
    for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES):
        ref = getattr(v, "_variable", None)
        snap = getattr(v, "_snapshot", None)
        if (ref is not None and (id(ref._op) in created or id(ref) in read)) or (
                snap is not None and id(snap) in read):
            out.append(v)
    return out


# ------------------------------------------------------------------------------------------
# py_function
# ------------------------------------------------------------------------------------------


_eager_ids = itertools.count(1)


class _EagerValue(np.ndarray):
    """A NumPy array that also answers ``.numpy()``, as the EagerTensors py_function passes:
    its operators give EagerValues again (TF's tensor ops), a NumPy function of it gives plain
    NumPy values (``np.sqrt(t)`` converts the tensor, as TF's)."""

    def numpy(self):
        return np.asarray(self)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        out = np.asarray(array)
        return out[()] if return_scalar else out


def _eager_operator(name):
    method = getattr(np.ndarray, name)

    def op(self, *args):
        out = method(self, *args)
        return out if out is NotImplemented else np.asarray(out).view(_EagerValue)

    op.__name__ = name
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
              "__abs__", "__invert__", "__lt__", "__le__", "__gt__", "__ge__", "__and__",
              "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__getitem__"):
    setattr(_EagerValue, _name, _eager_operator(_name))


def _check_eager_dtype(value, dtype):
    """TF's convert_to_tensor of an EagerTensor returned for ``dtype``: another dtype is a
    ValueError (no cast), in TF's words."""
    if not isinstance(value, _EagerValue) or dtype == dtypes.string or \
            value.dtype == dtype.as_numpy_dtype:
        return
    src = dtypes.as_dtype(value.dtype)
    plain = np.asarray(value)
    shown = str(plain[()]) if plain.ndim == 0 else repr(plain)
    raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                     f"{src.name}: <tf.Tensor: id={next(_eager_ids)}, shape={value.shape}, "
                     f"dtype={src.name}, numpy={shown}>")


class _EagerBytes(bytes):
    """A scalar string as py_function passes it: ``.numpy()`` gives the bytes, ``.dtype`` is
    tf.string (``s.numpy().decode()`` is the usual way to read one)."""

    dtype = dtypes.string
    shape = TensorShape([])

    def numpy(self):
        return bytes(self)


def py_function(func, inp, Tout, name=None):
    """Wraps ``func`` as an op (``tf.py_function``, EagerPyFunc): it receives array values that
    also have ``.numpy()``; ``Tout`` a dtype gives one Tensor, a list of dtypes a list, [] the
    Operation.

    TF runs ``func`` eagerly; here the tideflow ops it builds go into a graph of their own, and
    the Tensors it returns are evaluated there. Its gradient is, as TF's, one more EagerPyFunc
    (on the output gradients, after the op): it traces ``func`` over the values the op last
    ran on, in a graph of its own (zeros where ``func`` cannot be traced, as a tape that saw
    only NumPy).
    """
    from tideflow.ops import script_ops

    if not callable(func):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError here
            f"Expected func to be callable, got func of type {type(func)}")
    single = not isinstance(Tout, (list, tuple))
    touts = [script_ops._as_tout(t) for t in ([Tout] if single else Tout)]

    def call(*values):
        call.tape = values  # (TF's tape_cache: what the gradient differentiates at)
        args = [_EagerBytes(v) if isinstance(v, bytes) else np.asarray(v).view(_EagerValue)
                for v in values]
        # the ops func builds are run at once, in a graph of their own (not the caller's)
        with ops.Graph().as_default() as g:
            out = func(*args)
            if not touts:
                return None
            outs = [out] if single else list(out) if isinstance(out, (list, tuple)) else [out]
            outs = _run_symbolic(g, outs)
        for o, t in zip(outs, touts):
            _check_eager_dtype(o, t)
        # as py_function's conversion to Tout: numbers take the declared dtype
        return [_as_type(_plain(o), t) for o, t in zip(outs, touts)] + outs[len(touts):]

    call.__name__ = getattr(func, "__name__", "py_function")
    call.gradient = lambda dy, types: _eager_gradient(func, call.__dict__.pop("tape"), dy, types)
    return script_ops._py_op("EagerPyFunc", call, inp if inp is not None else [], Tout, name)


def _run_symbolic(graph, outs):
    """``outs`` with the Tensors of ``graph`` among them replaced by their values."""
    from tideflow.ops.variables import Variable

    if any(isinstance(o, Variable) for o in outs):
        raise errors.UnknownError(None, None, "Attempting to return a variable from an eagerly "
                                  "executed py_func. Only numeric data structures like Tensors "
                                  "or NumPy arrays should be returned; to return the value of a "
                                  "variable, make sure to obtain the Tensor backing it by "
                                  "calling `.read_value()` on the variable in question")
    at = [i for i, o in enumerate(outs) if isinstance(o, ops.Tensor)]
    if not at:
        return outs
    from tideflow.runtime.session import Session

    with Session(graph=graph) as sess:
        values = sess.run([outs[i] for i in at])
    outs = list(outs)
    for i, v in zip(at, values):  # (tensors computed eagerly in TF: EagerValues)
        outs[i] = v if isinstance(v, (bytes, str)) or getattr(v, "dtype", None) == object \
            else np.asarray(v).view(_EagerValue)
    return outs


eager_py_func = py_function


def _eager_gradient(func, values, dy, types):
    """The gradients of ``func``'s outputs at ``values`` (its inputs' values) weighted by
    ``dy``, as arrays of ``types``: ``func`` traced in a graph of its own over constants of the
    values, its floating inputs watched (zeros for the others and where nothing is traced)."""
    from tideflow.ops import constant_op
    from tideflow.ops.gradients import gradients

    grads = [None] * len(values)
    with ops.Graph().as_default() as g:
        xs = [constant_op.constant(v) for v in values]
        try:
            ys = func(*xs)
        except Exception:  # noqa: BLE001 - untraceable (NumPy code): a tape would see nothing
            ys = None
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        pairs = [(y, d) for y, d in zip(ys, dy) if isinstance(y, ops.Tensor)]
        watched = [i for i, x in enumerate(xs) if x.dtype.is_floating]
        if pairs and watched:
            found = gradients([y for y, _ in pairs], [xs[i] for i in watched],
                              grad_ys=[constant_op.constant(d, dtype=y.dtype) for y, d in pairs])
            for i, gr in zip(watched, found):
                grads[i] = gr
        at = [i for i, gr in enumerate(grads) if gr is not None]
        got = _run_symbolic(g, [grads[i] for i in at])
    for i, v in zip(at, got):
        grads[i] = v
    return [np.zeros((), t.as_numpy_dtype) if v is None else np.asarray(v, t.as_numpy_dtype)
            for v, t in zip(grads, types)]


def _fits(x, dtype):
    """Whether the Python scalar ``x`` converts to ``dtype`` (TF's rules for Python values: a
    bool is an integer, no float is, no number is a string)."""
    if isinstance(x, (str, bytes)):
        return dtype == dtypes.string
    if dtype == dtypes.string or not isinstance(x, (bool, int, float, complex)):
        return dtype != dtypes.string
    if dtype.is_bool:
        return isinstance(x, bool)
    if dtype.is_integer:
        return isinstance(x, int)
    return dtype.is_complex or not isinstance(x, complex)


def _as_type(v, dtype):
    if not isinstance(v, (np.ndarray, np.generic)):
        # as TF's conversion of the Python values returned: the first that does not fit is named
        from tideflow.ops.constant_op import _flat_values

        bad = next((x for x in _flat_values(v) if not _fits(x, dtype)), None)
        if bad is not None:
            from tideflow.ops.script_ops import _type_name

            raise TypeError(f"Cannot convert {bad!r} to EagerTensor of dtype "
                            f"{_type_name(dtype)}")
    if dtype == dtypes.string:
        return v
    a = np.asarray(v)
    if a.dtype.kind in "biufc" and a.dtype != dtype.as_numpy_dtype:
        return a.astype(dtype.as_numpy_dtype)
    return a


def _plain(v):
    if isinstance(v, _EagerValue):
        return np.asarray(v)
    if isinstance(v, _EagerBytes):
        return bytes(v)
    if hasattr(v, "numpy") and not isinstance(v, np.ndarray):
        return v.numpy()
    return v


# ------------------------------------------------------------------------------------------
# EnsureShape, Timestamp
# ------------------------------------------------------------------------------------------


def _shape_text(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _ensure_shape_kernel(x, *, shape, ctx):
    want = as_shape(shape)
    if not want.is_compatible_with(x.shape):
        raise errors.InvalidArgumentError(
            # the input as TF's NodeDef names it ("split:1"; "x" for output 0)
            None, None, f"Shape of tensor {ctx.op._inputs[0].name.removesuffix(':0')} "
            f"{_shape_text(list(x.shape))} is not "
            f"compatible with expected shape "
            f"{_shape_text(want.as_list()) if want.ndims is not None else '<unknown>'}.")
    return x


def _ensure_shape_shape(op):
    from tideflow.ops.concat_ops import _merge_error

    have, want = op._inputs[0]._shape, as_shape(op._attrs["shape"])
    if None not in (want.ndims, have.ndims) and want.ndims != have.ndims:
        raise ValueError(f"Shape must be rank {want.ndims} but is rank {have.ndims}")
    message = _merge_error(want, have)  # TF merges the wanted shape with the input's
    if message is not None:
        raise ValueError(message)
    return [have.merge_with(want)]


op_registry.declare(
    "EnsureShape",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["shape: shape", "T: type"],
    shape=_ensure_shape_shape,
    kernel=_ensure_shape_kernel,
    grad=lambda op, grad: grad,
)


def ensure_shape(x, shape, name=None):
    """``x``, checked at run time to have a shape compatible with ``shape`` (InvalidArgumentError
    otherwise); its static shape becomes the merge of the two."""
    x = ops.convert_to_tensor(x)
    return ops.apply_op("EnsureShape", [x], {"shape": as_shape(shape)}, name=name)._outputs[0]


op_registry.declare(
    "Timestamp",
    outputs=["ts: float64"],
    shape=lambda op: [TensorShape([])],
    kernel=lambda: np.float64(time.time()),
    stateful=True,
    differentiable=False,
)


def timestamp(name=None):
    """The time (seconds since the epoch, float64) at which the op runs."""
    return ops.apply_op("Timestamp", [], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# switch_case
# ------------------------------------------------------------------------------------------


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs ``branch_fns[branch_index]`` (``default``, or the last branch, when the index is out
    of range), built with nested ``tf.cond``s so only the chosen branch runs."""
    from tideflow.ops import array_ops, math_ops
    from tideflow.ops.cond import cond

    # TF 1.15's argument checks, in its order and words
    if not isinstance(branch_index, ops.Tensor):
        raise TypeError(f"branch_index must a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"branch_index must an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in branch_fns")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("branch_fns must be a list, tuple, or dict")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in branch_fns must be a 2-tuple")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in pairs]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(map(str, sorted(keys)))}}}")
    if default is not None and not callable(default):
        raise TypeError(f"fn for branch must be callable, got {default!r}")
    fns = [fn for _, fn in sorted(pairs, key=lambda p: p[0])]
    keys = list(range(len(fns)))
    if default is None:
        default = fns[-1]  # an index out of range runs the last branch, as TF's Case op
    from tideflow.framework import nest

    with ops.name_scope(name, "switch_case", [branch_index]):
        idx = branch_index
        if idx.dtype.base_dtype != dtypes.int32:
            raise TypeError(f"Input 'branch_index' of 'Case' Op has type "
                            f"{idx.dtype.base_dtype.name} that does not match expected type "
                            f"of int32.")
        failed = []

        def build(i):
            if i == len(fns):
                return default()
            try:
                return cond(math_ops.equal(idx, keys[i]), fns[i], lambda: build(i + 1))
            except (TypeError, ValueError):
                failed.append(i)
                raise

        graph = ops.get_default_graph()
        with ops.name_scope("indexed_case"):
            # TF 1.15 builds one Case op whose branches are functions of their own: the graph
            # counts the Case and an Identity per output (the conds here take ids set aside,
            # so later random ops draw TF's seeds; the gradient counts as TF's Case gradient)
            with graph.aside_ids():
                try:
                    out = build(0)
                except (TypeError, ValueError) as e:
                    if not str(e).startswith(("Outputs of true_fn", "true_fn and false_fn",
                                              "Incompatible return", "The two structures")):
                        raise
                    raise TypeError(
                        f"branches[0] and branches[{failed[0] + 1}] arguments to "
                        f"tf.switch_case must have the same number, type, and overall "
                        f"structure of return values.\n\nError details:\n{e}") from None
            graph._skip_op_ids(1)  # (TF's Case op)
            for t in nest.flatten(out):
                if isinstance(t, ops.Tensor) and t.op.inputs and t.op.inputs[0].op.type == "If":
                    # (its gradient counts as TF's Case gradient: control_flow_grad._if_grad)
                    graph.__dict__.setdefault("_tf_case_ifs", set()).add(t.op.inputs[0].op)
                    break
            return nest.map_structure(
                lambda t: array_ops.identity(t, name="Identity") if isinstance(t, ops.Tensor)
                else t, out)

