"""The run-time side of AutoGraph: the functions converted code calls (``ag__.if_stmt``,
``ag__.while_stmt``, ``ag__.for_stmt``, ``ag__.and_``, ...). Each looks at its operands when the
converted function runs: on a Tensor it builds graph control flow (``tf.cond``,
``tf.while_loop``), on a Python value it does what the original Python statement did.

State passes through ``get_state``/``set_state`` closures over the converted function's
variables; ``names`` lists them with the live ones (the cond outputs, the loop variables)
first, ``n_live`` of them.
"""

import builtins
import sys

import numpy as np

from tideflow.framework import dtypes, ops

_PY_SCALARS = (bool, int, float, complex, str, bytes, np.ndarray, np.generic)


class Undefined:
    """The value of a variable not yet assigned (converted code binds every variable a
    statement may assign, so that nested functions can share it)."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name):
        self.symbol_name = symbol_name

    def __repr__(self):
        return f"<undefined {self.symbol_name}>"

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise _unbound(self.symbol_name)


class UndefinedReturnValue:
    """The return value of a converted function before a ``return`` ran."""

    __slots__ = ()


def _unbound(name):
    return UnboundLocalError(
        f"cannot access local variable '{name}' where it is not associated with a value")


def maybe_undefined(read, name):
    """``read()`` (the variable's value), or an ``Undefined`` when it is not bound yet."""
    try:
        return read()
    except NameError:
        return Undefined(name)


def get_attr(obj, attr, name):
    """``obj.attr`` for the state of converted control flow (Undefined where it is unset)."""
    try:
        return getattr(obj, attr)
    except AttributeError:
        return Undefined(name)


def set_attr(obj, attr, value):
    """``obj.attr = value``; an Undefined value leaves the attribute unset."""
    if type(value) is Undefined:
        if hasattr(obj, attr):
            delattr(obj, attr)
        return
    if getattr(obj, attr, Undefined) is not value:
        setattr(obj, attr, value)


def ld(value):
    """A read of a variable that may be undefined: Python's error when it is."""
    if type(value) is Undefined:
        raise _unbound(value.symbol_name)
    return value


def retval(value):
    """The converted function's return value (None where no ``return`` ran)."""
    return None if type(value) is UndefinedReturnValue else value


def _is_tensor(x):
    if isinstance(x, ops.Tensor):
        return True
    from tideflow.ops.variables import Variable

    return isinstance(x, Variable)


def _as_condition(c, what):
    c = ops.convert_to_tensor(c)
    if c.dtype.base_dtype != dtypes.bool:
        raise ValueError(f"condition of {what} expected to be `tf.bool` scalar, got {c}; to use "
                         "as boolean Tensor, use `tf.cast`; to check for None, use `is not None`")
    if c.get_shape().ndims not in (None, 0):
        from tideflow.ops import array_ops

        if c.get_shape().num_elements() not in (None, 1):
            raise ValueError(f"condition of {what} expected to be `tf.bool` scalar, got {c}")
        c = array_ops.reshape(c, [])
    return c


# -- logical operators --------------------------------------------------------------------------


def and_(a, b):
    """``a() and b()``: a ``tf.cond`` (``b`` only runs where ``a`` holds) on a Tensor."""
    a_val = a()
    if _is_tensor(a_val):
        from tideflow.ops.cond import cond

        a_val = _as_condition(a_val, "`and`")
        return cond(a_val, lambda: _as_condition(b(), "`and`"), lambda: a_val)
    return a_val and b()


def or_(a, b):
    """``a() or b()``: a ``tf.cond`` (``b`` only runs where ``a`` fails) on a Tensor."""
    a_val = a()
    if _is_tensor(a_val):
        from tideflow.ops.cond import cond

        a_val = _as_condition(a_val, "`or`")
        return cond(a_val, lambda: a_val, lambda: _as_condition(b(), "`or`"))
    return a_val or b()


def not_(a):
    """``not a``: ``tf.logical_not`` on a Tensor."""
    if _is_tensor(a):
        from tideflow.ops.math_ops import logical_not

        return logical_not(a)
    return not a


def if_exp(cond, if_true, if_false):
    """``if_true() if cond else if_false()``: a ``tf.cond`` on a Tensor condition."""
    if _is_tensor(cond):
        from tideflow.ops.cond import cond as tf_cond

        return tf_cond(_as_condition(cond, "a conditional expression"), if_true, if_false)
    return if_true() if cond else if_false()


# -- if -----------------------------------------------------------------------------------------


def if_stmt(cond, body, orelse, get_state, set_state, names, n_live):
    """``if cond: body() else: orelse()``; a ``tf.cond`` whose outputs are the first ``n_live``
    variables of ``names`` when ``cond`` is a Tensor."""
    if _is_tensor(cond):
        _tf_if(cond, body, orelse, get_state, set_state, names, n_live)
    elif cond:
        body()
    else:
        orelse()


def _branch_value(v):
    """A branch's value of a cond output as tf.cond takes it (None: not a tensor)."""
    if isinstance(v, _PY_SCALARS):
        return ops.convert_to_tensor(v)
    from tideflow.framework import nest
    from tideflow.ops.cond import _composite_kind

    if _is_tensor(v) or _composite_kind(v) is not None:
        return v
    if isinstance(v, (list, tuple, dict)) and v and all(
            _is_tensor(x) or _composite_kind(x) is not None for x in nest.flatten(v)):
        return v
    return None


def _check_branches(name, main, other):
    """TF's errors for a variable the two branches leave in different states."""
    for value, branch in ((main, "main"), (other, "else")):
        if type(value) is Undefined:
            raise ValueError(f"'{name}' must also be initialized in the {branch} branch")
        if type(value) is UndefinedReturnValue:
            raise ValueError(f"the {branch} branch must also have a return statement.")
        if value is None:
            raise ValueError(f"'{name}' is None at the end of the {branch} branch.")


def _run_keeping_effects(fn, outputs):
    """Runs ``fn`` and then ``outputs()``: the tensors made depend on the prints and asserts
    ``fn`` made (as TF's automatic control dependencies; a function body runs only what its
    outputs need)."""
    from tideflow.ops.function_ops import _with_side_effects

    graph = ops.get_default_graph()
    start = len(graph._ops)
    fn()
    out = outputs()
    return _with_side_effects(out, graph._ops[start:])


def _tf_if(cond, body, orelse, get_state, set_state, names, n_live):
    from tideflow.ops.cond import cond as tf_cond

    cond = _as_condition(cond, "if statement")
    init = tuple(get_state())
    raw = {}

    def branch(fn, which):
        def run():
            set_state(init)
            return _run_keeping_effects(fn, lambda: collect(which))

        return run

    def collect(which):
        values = tuple(get_state())[:n_live]
        raw[which] = values
        out = []
        for k, v in enumerate(values):
            t = _branch_value(v)
            if which == "else":
                a, ta = raw["main"][k], raw["main_t"][k]
                if (t is None) != (ta is None) or (t is None and a is not v):
                    _check_branches(names[k], a, v)
                    raise ValueError(
                        f"'{names[k]}' must be a Tensor in both branches of a tf.cond on "
                        f"{cond.name}: the main branch gives {a!r}, the else branch {v!r}")
                if (t is not None and hasattr(t, "dtype") and hasattr(ta, "dtype")
                        and t.dtype.base_dtype != ta.dtype.base_dtype):
                    raise TypeError(
                        f"'{names[k]}' has dtype {ta.dtype.base_dtype.name} in the main "
                        f"branch, but dtype {t.dtype.base_dtype.name} in the else branch")
            out.append(() if t is None else t)
        if which == "main":
            raw["main_t"] = [None if o == () else o for o in out]
        if not any(isinstance(o, ops.Tensor) for o in out):
            # an output for the branches' prints and asserts to run before
            out.append(ops.convert_to_tensor(True))
            raw["flag"] = True
        return tuple(out)

    outs = tf_cond(cond, branch(body, "main"), branch(orelse, "else"), strict=True)
    if raw.get("flag"):
        outs = outs[:-1]
    # a value both branches left as the same object (a variable, a Python value) stays itself
    final = [raw["main"][k] if o == () or raw["main"][k] is raw["else"][k] else o
             for k, o in enumerate(outs)]
    set_state(tuple(final) + init[n_live:])


# -- loops --------------------------------------------------------------------------------------


def _loop_init(init, names, n_live):
    """The loop variables' values before a TensorFlow loop, as tensors (TF's errors for
    variables that have none)."""
    values = []
    for name, v in zip(names[:n_live], init[:n_live]):
        if type(v) is UndefinedReturnValue:
            raise NotImplementedError(
                "a return statement cannot be placed inside this TensorFlow loop; this may "
                "happen if a return statement depends on a static Python condition such as a "
                "hyperparameter")
        if type(v) is Undefined:
            raise ValueError(f"'{name}' must be defined before the loop")
        if v is None:
            raise ValueError(f"'{name}' is not allowed to be None before the loop")
        t = _branch_value(v)
        if t is None:
            raise ValueError(
                f"'{name}' is modified in a loop on a Tensor but holds {type(v).__name__} "
                f"{v!r}, not a Tensor: a TensorFlow loop carries only tensors (for a list, "
                "use tf.TensorArray or tf.autograph.experimental.set_element_type)")
        values.append(t)
    return values


def _loop_outputs(values, init, names):
    out = []
    for name, v, v0 in zip(names, values, init):
        t = _branch_value(v)
        if t is None:
            if type(v) is Undefined:
                raise ValueError(f"'{name}' must be defined in the loop body")
            raise ValueError(f"'{name}' holds {v!r} after one iteration of a TensorFlow loop; "
                             "a TensorFlow loop variable must stay a Tensor")
        if hasattr(t, "dtype") and hasattr(v0, "dtype") and \
                t.dtype.base_dtype != v0.dtype.base_dtype:
            raise TypeError(f"'{name}' has dtype {v0.dtype.base_dtype.name} before the loop, "
                            f"but dtype {t.dtype.base_dtype.name} after one iteration")
        out.append(t)
    return out


def _loop_options(opts, loop_vars):
    kw = {}
    for key in ("parallel_iterations", "back_prop", "swap_memory", "maximum_iterations"):
        v = (opts or {}).get(key, UNSPECIFIED)
        if v is not UNSPECIFIED:
            kw[key] = v
    pairs = (opts or {}).get("shape_invariants", UNSPECIFIED)
    if pairs is not UNSPECIFIED and pairs:
        from tideflow.framework.tensor_shape import as_shape

        by_id = {id(v): as_shape(s) for v, s in pairs}
        kw["shape_invariants"] = [by_id.get(id(v), v.get_shape() if hasattr(v, "get_shape")
                                            else None) for v in loop_vars]
    return kw


class _Unspecified:
    def __repr__(self):
        return "UNSPECIFIED"


UNSPECIFIED = _Unspecified()


def while_stmt(test, body, get_state, set_state, names, n_live, opts=None):
    """``while test(): body()``: a ``tf.while_loop`` over the first ``n_live`` variables of
    ``names`` once ``test()`` gives a Tensor (a Python loop until then)."""
    while True:
        t = test()
        if _is_tensor(t):
            _tf_while(test, body, get_state, set_state, names, n_live, opts)
            return
        if not t:
            return
        body()


def _tf_while(test, body, get_state, set_state, names, n_live, opts, index=None):
    """A ``tf.while_loop``; with ``index`` = (start tensor, step fn) a for loop's counter rides
    in front of the variables."""
    from tideflow.ops.while_loop import while_loop

    init = tuple(get_state())
    loop_vars = user_vars = _loop_init(init, names, n_live)
    rest = init[n_live:]
    extra = 0 if index is None else 1

    def cond_fn(*vals):
        set_state(tuple(vals[extra:]) + rest)
        t = test(*vals[:extra])
        return _as_condition(t, "while loop") if not isinstance(t, bool) else \
            ops.convert_to_tensor(t)

    def body_fn(*vals):
        set_state(tuple(vals[extra:]) + rest)

        def outputs():
            out = _loop_outputs(tuple(get_state())[:n_live], user_vars, names)
            return ([index[1](vals[0])] if extra else []) + out

        return _run_keeping_effects(lambda: body(*vals[:extra]), outputs)

    kw = _loop_options(opts, loop_vars)
    if extra:
        if "shape_invariants" in kw:
            kw["shape_invariants"] = [index[0].get_shape(), *kw["shape_invariants"]]
        loop_vars = [index[0], *loop_vars]
    if not loop_vars:
        # a while loop on a Tensor whose body assigns nothing the condition reads
        raise ValueError("a while loop on a Tensor condition must assign a variable its "
                         "condition reads (no loop variable: it would never end)")
    outs = while_loop(cond_fn, body_fn, loop_vars, return_same_structure=True, **kw)
    set_state(tuple(outs[extra:]) + rest)


def for_stmt(iter_, extra_test, body, get_state, set_state, names, n_live, opts=None):
    """``for x in iter_: body(x)`` (stopping once ``extra_test()`` fails: a ``break`` or a
    ``return``): a ``tf.while_loop`` over the first dimension of a Tensor ``iter_``."""
    from tideflow.ops.tensor_array import TensorArray

    if _is_tensor(iter_):
        _tf_for(ops.convert_to_tensor(iter_), extra_test, body, get_state, set_state, names,
                n_live, opts)
        return
    if isinstance(iter_, TensorArray):
        _tf_for(iter_.stack(), extra_test, body, get_state, set_state, names, n_live, opts)
        return
    from tideflow.ops.dataset_ops import Dataset

    if isinstance(iter_, Dataset):
        _dataset_for(iter_, extra_test, body, get_state, set_state, names, n_live)
        return
    for x in iter_:
        if extra_test is not None:
            t = extra_test()
            if _is_tensor(t):
                # a break or return under a Tensor condition: the remaining (Python) iterations
                # run under it
                _tf_if(t, lambda x=x: body(x), lambda: None, get_state, set_state, names,
                       n_live)
                continue
            if not t:
                break
        body(x)


def _tf_for(iter_, extra_test, body, get_state, set_state, names, n_live, opts):
    from tideflow.ops import array_ops, math_ops

    shape = iter_.get_shape()
    if shape.ndims == 0:
        raise ValueError(f"cannot iterate over a scalar tensor: {iter_}")
    n = shape.dims[0].value if shape.ndims is not None and shape.dims[0].value is not None \
        else array_ops.shape(iter_)[0]
    i0 = ops.convert_to_tensor(0, dtype=dtypes.int32)

    def test(i):
        more = math_ops.less(i, n)
        if extra_test is None:
            return more
        return and_(lambda: more, extra_test)

    def step(i):
        body(iter_[i])

    _tf_while(test, step, get_state, set_state, names, n_live, opts, index=(i0, lambda i: i + 1))


def _dataset_for(dataset, extra_test, body, get_state, set_state, names, n_live):
    """``for x in dataset``: the loop variables are the state of a ``scan`` over the elements
    (with the loop's ``break``/``return`` test, taken before each iteration, ending it through
    ``take_while``), the last state their values after the loop."""
    from tideflow.ops import math_ops

    init = tuple(get_state())
    user_vars = _loop_init(init, names, n_live)
    rest = init[n_live:]
    count = ops.convert_to_tensor(0, dtype=dtypes.int64)  # a state even with no variables
    start = (count, tuple(user_vars))

    def step(state, element):
        set_state(tuple(state[1]) + rest)
        go = True if extra_test is None else extra_test()
        go = _as_condition(go, "for loop") if _is_tensor(go) else ops.convert_to_tensor(
            bool(go))

        def outputs():
            return (math_ops.add(state[0], 1),
                    tuple(_loop_outputs(tuple(get_state())[:n_live], user_vars, names)))

        new = _run_keeping_effects(lambda: body(element), outputs)
        return new, (new, go)

    scanned = dataset.scan(start, step)
    if extra_test is not None:
        scanned = scanned.take_while(lambda new, go: go)
    final = scanned.reduce(start, lambda state, item: item[0])
    set_state(tuple(final[1]) + rest)


# -- statements and builtins --------------------------------------------------------------------


def assert_stmt(expression, message):
    """``assert expression, message()``: a ``tf.Assert`` Operation on a Tensor."""
    if _is_tensor(expression):
        from tideflow.ops.logging_ops import Assert

        msg = message() if message is not None else "Assertion failed"
        data = list(msg) if isinstance(msg, (list, tuple)) else [msg]
        return Assert(expression, data)
    if not expression:
        raise AssertionError(message()) if message is not None else AssertionError()
    return None


def _any_tensor(values):
    from tideflow.framework import nest

    return any(_is_tensor(x) for v in values for x in nest.flatten(v))


def print_(*objects, **kwargs):
    """``print``: ``tf.print`` where an argument is a Tensor."""
    if _any_tensor(objects):
        from tideflow.ops.logging_ops import print_v2

        kw = {k: v for k, v in kwargs.items() if k in ("sep", "end")}
        if kwargs.get("file") is not None:
            kw["output_stream"] = kwargs["file"]
        return print_v2(*objects, **kw)
    return builtins.print(*objects, **kwargs)


def range_(*args):
    """``range``: ``tf.range`` where an argument is a Tensor."""
    if _any_tensor(args):
        from tideflow.ops.range_ops import range as tf_range

        return tf_range(*args)
    return builtins.range(*args)


def len_(s):
    """``len``: the first dimension of a Tensor (a Tensor when it is not known statically),
    the size of a TensorArray."""
    from tideflow.ops.tensor_array import TensorArray

    if isinstance(s, TensorArray):
        return s.size()
    if _is_tensor(s):
        shape = s.get_shape()
        if shape.ndims == 0:
            raise ValueError(f"len requires a non-scalar tensor, got {s}")
        if shape.ndims is not None and shape.dims[0].value is not None:
            return shape.dims[0].value
        from tideflow.ops import array_ops

        return array_ops.shape(s)[0]
    return len(s)


def list_append(target, element):
    """``target.append(element)``: a write at the end of a TensorArray."""
    from tideflow.ops.tensor_array import TensorArray

    if isinstance(target, TensorArray):
        return target.write(target.size(), element)
    target.append(element)
    return target


def set_element_type(entity, dtype, shape=None):
    """Marks a list as holding tensors of ``dtype`` (and ``shape``): converted code carries it
    as a TensorArray, which loops on Tensors can grow."""
    from tideflow.ops.tensor_array import TensorArray

    if not isinstance(entity, list):
        return entity
    ta = TensorArray(dtype, size=0, dynamic_size=True, element_shape=shape)
    for i, x in enumerate(entity):
        ta = ta.write(i, x)
    return ta


_STACKERS = set()


def _builtin_overload(f):
    if f is builtins.print:
        return print_
    if f is builtins.range:
        return range_
    if f is builtins.len:
        return len_
    return None


def converted_call(f, args, kwargs=None):
    """``f(*args, **kwargs)`` from converted code: a user function is converted (once) before
    it runs; tideflow's own functions, builtins and library code run as they are."""
    kwargs = kwargs or {}
    if type(f) is type(builtins.print):  # a builtin function
        over = _builtin_overload(f)
        if over is not None:
            return over(*args, **kwargs)
        return f(*args, **kwargs)
    if not _STACKERS:
        from tideflow.ops import array_ops

        _STACKERS.add(array_ops.stack)
        _STACKERS.add(getattr(array_ops, "pack", array_ops.stack))
    if f in _STACKERS and args:
        from tideflow.ops.tensor_array import TensorArray

        if isinstance(args[0], TensorArray):
            return args[0].stack()
    from tideflow.autograph import conversion

    return conversion.maybe_convert(f)(*args, **kwargs)


_VERBOSITY = [0]


def _log(level, msg):
    if _VERBOSITY[0] >= level:
        sys.stderr.write(f"AutoGraph: {msg}\n")
