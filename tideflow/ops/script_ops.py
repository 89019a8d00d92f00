"""Python functions as graph ops: ``tf.py_func`` and ``tf.numpy_function`` (PyFunc,
PyFuncStateless).

The function lives in this process's registry under a token (the op's ``token`` attr), held for
as long as the graph that uses it: a GraphDef with a PyFunc runs only where its function was
registered, as in TF. The kernel calls it with NumPy values (0-d inputs as NumPy scalars, strings
as bytes) and checks what it returns against ``Tout``; its exceptions become TF's error classes
(ValueError/TypeError -> InvalidArgumentError, StopIteration -> OutOfRangeError, MemoryError ->
ResourceExhaustedError, NotImplementedError -> UnimplementedError, others -> UnknownError), and
anything that is not an ``Exception`` (KeyboardInterrupt) passes through untouched.
"""

import itertools
import re
import threading
import traceback

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

_FUNCS = {}
_LOCK = threading.Lock()
_IDS = itertools.count()

def _type_name(dt):
    # TF's DataTypeString, used in its messages
    return dtypes.type_string(dt.base_dtype if isinstance(dt, dtypes.DType) else dt)


def _register(func, graph):
    with _LOCK:
        token = f"pyfunc_{next(_IDS)}"
        _FUNCS[token] = func
    # the graph holds its functions: they go when it does
    tokens = graph.__dict__.setdefault("_py_func_tokens", _Tokens())
    tokens.add(token)
    return token


class _Tokens(set):
    """The registry tokens of one graph's py_funcs, released with the graph."""

    def __del__(self):
        with _LOCK:
            for t in self:
                _FUNCS.pop(t, None)


def _as_arg(value):
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value[()]  # a NumPy scalar (bytes for strings), as TF hands them over
        # as TF, the function gets an array of its own, writable: changing it in place must
        # not reach a variable, a constant or the caller's fed array
        return value.copy()
    return value


def _to_array(value):
    """One returned value as TF converts it: an array, strings as bytes objects; a structured
    array, or an object that is not a string, has no tensor type (TF's InternalError)."""
    if isinstance(value, np.ndarray):
        result = value.copy()  # the tensor owns its values, as TF's: the function may keep
        # the array and change it later
    else:
        result = np.asarray(value)
        if result.dtype.kind in "SU":
            # dtype=object: NumPy's fixed-width 'S' would drop the bytes' trailing NULs
            result = np.array(value, dtype=object)
    if result.dtype.kind == "V":
        raise errors.InternalError(None, None, "Unsupported numpy data type")
    if result.dtype.kind in "SUO":
        flat = result.ravel()
        bad = [v for v in flat if not isinstance(v, (bytes, str))][:1]
        if bad:
            raise errors.InternalError(None, None,
                                       f"Unsupported object type {type(bad[0]).__name__}")
        # strings travel as bytes objects (str encoded as UTF-8), as TF converts them
        flat = [v.encode("utf-8") if isinstance(v, str) else v for v in flat]
        result = np.array(flat + [None], dtype=object)[:-1].reshape(result.shape)
    return result


def _checked(result, i, token, expected):
    """``result`` (from _to_array) if its type is ``expected``, else TF's InvalidArgumentError."""
    if result.dtype == object:
        if expected == dtypes.string:
            return result
        got = "string"
    else:
        try:
            got_dt = dtypes.as_dtype(result.dtype)
        except (TypeError, ValueError, KeyError):
            got_dt = None
        if got_dt == expected:
            # (np.ascontiguousarray would turn a 0-d result into shape [1])
            return result if result.flags.c_contiguous else np.array(result, order="C")
        got = _type_name(got_dt) if got_dt is not None else str(result.dtype)
    raise errors.InvalidArgumentError(
        None, None, f"{i}-th value returned by {token} is {got}, but expects "
        f"{_type_name(expected)}")


_EXCEPTIONS = (
    ((ValueError, TypeError), errors.InvalidArgumentError),
    ((StopIteration,), errors.OutOfRangeError),
    ((MemoryError,), errors.ResourceExhaustedError),
    ((NotImplementedError,), errors.UnimplementedError),
)


_CARETS = re.compile(r"\n[ \t]*[\^~]+[ \t]*(?=\n)")


def py_error_text(e):
    """A Python exception raised in a py_func as TF 1.15 writes it: "Type: message", then the
    traceback's parts joined by blank lines and one more newline at the end (and no position
    carets under the lines, which its Python had not)."""
    parts = [_CARETS.sub("", p) for p in traceback.format_exception(type(e), e, e.__traceback__)]
    main = errors._main_script()
    if main:  # (the main script named as the command line gave it, as Python 3.7 did)
        parts = [p.replace(f'  File "{main[0]}", ', f'  File "{main[1]}", ') for p in parts]
    return f"{type(e).__name__}: {e}\n" + "\n".join(parts) + "\n"


def py_func_error(e):
    """The OpError TF 1.15 raises for ``e``, raised in the py_func a tf.data function runs (a
    generator's): its class mapped as a py_func's, its text as one's, the node as TF's function
    runtime names it (the iterator's op adds its own line; the error names no op)."""
    cls = next((c for kinds, c in _EXCEPTIONS if isinstance(e, kinds)), errors.UnknownError)
    out = cls(None, None, py_error_text(e) + "\n\t [[{{node PyFunc}}]]")
    out._in_function = True
    return out


def _py_func_kernel_factory(ctx):
    token = ctx.op._attrs["token"]
    tout = list(ctx.op._attrs["Tout"])

    def run(inputs):
        func = _FUNCS.get(token)
        if func is None:
            raise errors.InvalidArgumentError(
                None, None, f"The function {token} of this PyFunc is not registered in this "
                "process (a py_func runs only in the process that created it)")
        try:
            ret = func(*[_as_arg(v) for v in inputs])
        except Exception as e:  # a TF error raised in func too: TF maps it by its Python class
            cls = next((c for kinds, c in _EXCEPTIONS if isinstance(e, kinds)),
                       errors.UnknownError)
            raise cls(None, None, py_error_text(e)) from e
        # as TF: the values are converted, then counted, then their types checked
        values = [] if ret is None else [_to_array(v) for v in (
            ret if isinstance(ret, (list, tuple)) else [ret])]
        if len(values) != len(tout):
            raise errors.InvalidArgumentError(
                None, None, f"{token} returns {len(values)} values, but expects to see "
                f"{len(tout)} values.")
        return [_checked(v, i, token, dt) for i, (v, dt) in enumerate(zip(values, tout))]

    return run


def _eager_py_func_grad(op, *grads):
    # as TF: one more EagerPyFunc, on the output gradients and after the op, that
    # differentiates the function at the values the op last ran on (py_function's gradient)
    from tideflow.ops import array_ops

    forward = _FUNCS.get(op._attrs["token"])
    types = [t.dtype.base_dtype for t in op._inputs]
    if not types:
        return []
    dy = [g if g is not None else array_ops.zeros_like(y) for g, y in zip(grads, op._outputs)]

    def gradient(*dy_values):
        return forward.gradient(dy_values, types)

    with ops.control_dependencies(op._outputs):
        return list(_py_op("EagerPyFunc", gradient, dy, list(types), None))


for _name, _stateful, _grad in (("PyFunc", True, None), ("PyFuncStateless", False, None),
                                ("EagerPyFunc", True, _eager_py_func_grad)):
    op_registry.declare(
        _name,
        inputs=["input: Tin"],
        outputs=["output: Tout"],
        attrs=["token: string"] + (["is_async: bool = false"] if _grad else []) + [
            "Tin: list(type) >= 0", "Tout: list(type) >= 0"],
        shape=lambda op: [TensorShape(None) for _ in op._outputs],
        kernel_factory=_py_func_kernel_factory,
        grad=_grad,
        differentiable=None if _grad else False,
        stateful=_stateful,
    )


def py_func(func, inp, Tout, stateful=True, name=None):
    """Wraps the Python function ``func`` (NumPy arrays in, NumPy arrays out) as an op.

    ``Tout``: a dtype (the op then returns one Tensor) or a list of dtypes (a list of Tensors;
    an empty list returns the Operation, or, as TF's stateless wrapper does, the empty list of
    its outputs when ``stateful=False``). ``stateful=False`` lets the graph passes treat calls
    with the same inputs as one (PyFuncStateless). The outputs' shapes are unknown.
    """
    return _py_op("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name)


def _as_tout(t):
    try:
        return dtypes.as_dtype(t)
    except TypeError:  # (a list is unhashable: TypeError too)
        raise TypeError(f"Expected DataType for argument 'Tout' not {t!r}.") from None


def _py_op(op_type, func, inp, Tout, name):
    if not callable(func):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError here
            f"Expected func to be callable, got func of type {type(func)}")
    # (as TF, ``inp`` is the op's list input: its Python values become the constants
    # "PyFunc/input_0"...; a lone Tensor is refused)
    graph = ops._graph_from_inputs([inp]) if isinstance(inp, (list, tuple)) else \
        ops.get_default_graph()
    token = _register(func, graph)  # before Tout is checked: a bad one uses a token, as TF
    single = not isinstance(Tout, (list, tuple))
    tout = [_as_tout(t) for t in ([Tout] if single else Tout)]
    op = ops.apply_op(op_type, [inp], {"token": token, "Tout": tout}, name=name)
    if single:
        return op._outputs[0]
    if not tout:
        return [] if op_type == "PyFuncStateless" else op
    return list(op._outputs)


def numpy_function(func, inp, Tout, name=None):
    """``py_func`` under its later name (TF 1.14+): a stateful op calling ``func`` on NumPy
    values."""
    return py_func(func, inp, Tout, stateful=True, name=name)


def __getattr__(name):
    # TF's script_ops also holds eager_py_func (tf.py_function), which lives with the other
    # TF 1.x functions
    if name == "eager_py_func":
        from tideflow.ops.misc_ops import py_function

        return py_function
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
