"""Assertions and boolean checks (``tf.assert_equal``, ``tf.assert_rank``, ...), as in TF 1.x.

A check whose outcome is known while building (constant values, static shapes and dtypes)
fails at once; otherwise it becomes an ``Assert`` op that fails the step that runs it.
"""

import numpy as np

from tideflow.framework import dtypes, errors, ops
from tideflow.framework.sparse_tensor import _python_value
from tideflow.ops import control_flow_ops
from tideflow.ops.logging_ops import Assert
from tideflow.ops.misc_ops import ensure_shape  # noqa: F401  (TF's check_ops holds it)

NUMERIC_TYPES = frozenset([
    dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
    dtypes.uint8, dtypes.qint8, dtypes.qint32, dtypes.quint8, dtypes.complex64,
])


def _math():
    # composed from ops of other families, imported when first needed
    from tideflow.ops import math_ops

    return math_ops


def _reduce_all(x):
    from tideflow.ops import reduction_ops

    return reduction_ops.reduce_all(x)


def _array():
    from tideflow.ops import array_ops

    return array_ops


def _static_value(t):
    """``t``'s value as TF 1.15's check_ops knows it statically (its Python constant_value,
    which an Identity such as with_dependencies' output stops), else None."""
    if not isinstance(t, ops.Tensor):
        return None
    return _python_value(t)


def _maybe_constant_value_string(t):
    if not isinstance(t, ops.Tensor):
        return str(t)
    value = _static_value(t)
    # a tensor without a static value stays a Tensor, as in TF 1.15: joining the message
    # then fails with TypeError (what a failed static check with such data raises there)
    return t if value is None else str(value)


def _assert_static(condition, data):
    """Raises InvalidArgumentError now, listing ``data``, when ``condition`` is false."""
    if not condition:
        raise errors.InvalidArgumentError(
            None, None, "\n".join([_maybe_constant_value_string(x) for x in data])
        )


def _binary_assert(sym, opname, op_name, static_func, x, y, data, summarize, message, name):
    with ops.name_scope(name, opname, [x, y, data]):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y")
        if data is None:
            data = [
                f"Condition x {sym} y did not hold element-wise:",
                f"x ({x.name}) = ", x,
                f"y ({y.name}) = ", y,
            ]
        if message is not None:
            data = [message] + list(data)
        # the comparison op first, as TF: shapes that do not broadcast fail its shape check
        condition = _reduce_all(getattr(_math(), op_name)(x, y))
        x_static = _static_value(x)
        y_static = _static_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(bool(np.all(static_func(x_static, y_static))), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x == y`` everywhere (broadcasting)."""
    with ops.name_scope(name, "assert_equal", [x, y, data]):
        if x is y:
            return control_flow_ops.no_op()
    return _binary_assert("==", "assert_equal", "equal", np.equal, x, y, data, summarize,
                          message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x != y`` everywhere (broadcasting)."""
    return _binary_assert("!=", "assert_none_equal", "not_equal", np.not_equal, x, y, data,
                          summarize, message, name)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x < y`` everywhere (broadcasting)."""
    return _binary_assert("<", "assert_less", "less", np.less, x, y, data, summarize, message,
                          name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x <= y`` everywhere (broadcasting)."""
    return _binary_assert("<=", "assert_less_equal", "less_equal", np.less_equal, x, y, data,
                          summarize, message, name)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x > y`` everywhere (broadcasting)."""
    return _binary_assert(">", "assert_greater", "greater", np.greater, x, y, data, summarize,
                          message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x >= y`` everywhere (broadcasting)."""
    return _binary_assert(">=", "assert_greater_equal", "greater_equal", np.greater_equal, x,
                          y, data, summarize, message, name)


def _unary_assert(sym, opname, compare, zero_first, x, data, summarize, message, name):
    message = message or ""
    with ops.name_scope(name, opname, [x, data]):
        x = ops.convert_to_tensor(x, name="x")
        if data is None:
            data = [message, f"Condition x {sym} did not hold element-wise:",
                    f"x ({x.name}) = ", x]
            if sym == "<= 0":  # TF 1.15 runs these two strings together (a missing comma)
                data[1:3] = [data[1] + data[2]]
        zero = ops.convert_to_tensor(0, dtype=x.dtype.base_dtype)
        a, b = (zero, x) if zero_first else (x, zero)
        return compare(a, b, data=data, summarize=summarize)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x < 0`` everywhere."""
    return _unary_assert("< 0", "assert_negative", assert_less, False, x, data, summarize,
                         message, name)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x > 0`` everywhere."""
    return _unary_assert("> 0", "assert_positive", assert_less, True, x, data, summarize,
                         message, name)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x >= 0`` everywhere."""
    return _unary_assert(">= 0", "assert_non_negative", assert_less_equal, True, x, data,
                         summarize, message, name)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``x <= 0`` everywhere."""
    return _unary_assert("<= 0", "assert_non_positive", assert_less_equal, False, x, data,
                         summarize, message, name)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """An op that fails the step unless ``|x - y| < atol + rtol * |y|`` everywhere."""
    message = message or ""
    with ops.name_scope(name, "assert_near", [x, y, rtol, atol, data]):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        # x's dtype even when complex, as TF 1.15 (whose complex tolerance then fails to
        # multiply |y|)
        dtype = x.dtype.base_dtype
        eps = np.finfo(dtype.as_numpy_dtype).eps
        rtol = ops.convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = ops.convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                    f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        m = _math()
        tol = atol + rtol * m.abs(y)
        diff = m.abs(x - y)
        condition = _reduce_all(m.less(diff, tol))
        return Assert(condition, data, summarize=summarize)


# ------------------------------------------------------------------------------------------
# ranks, types, scalars
# ------------------------------------------------------------------------------------------


class _StaticRankFailure(ValueError):
    def __init__(self, actual, given):
        super().__init__("Static rank condition failed", actual, given)
        self.actual, self.given = actual, given


def _assert_rank_condition(x, rank, static_condition, dynamic_condition, data, summarize):
    assert_type(rank, dtypes.int32)
    rank_static = _static_value(rank)
    if rank_static is not None:
        if np.ndim(rank_static) != 0:
            raise ValueError("Rank must be a scalar.")
        x_rank_static = x.get_shape().ndims
        if x_rank_static is not None:
            if not static_condition(x_rank_static, int(rank_static)):
                raise _StaticRankFailure(x_rank_static, int(rank_static))
            return control_flow_ops.no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(_array().rank(x), rank)
    if rank_static is None:
        # catches assert_rank(x, [n]) meant as assert_rank(x, n)
        this_data = ["Rank must be a scalar. Received rank: ", rank]
        rank_check = assert_rank(rank, 0, data=this_data)
        condition = control_flow_ops.with_dependencies([rank_check], condition)
    return Assert(condition, data() if callable(data) else data, summarize=summarize)


def _assert_rank_common(opname, what, static_condition, dyn_name, x, rank, data, summarize,
                        message, name):
    with ops.name_scope(name, opname, [x, rank] + list(data or [])):
        x = ops.convert_to_tensor(x, name="x")
        rank = ops.convert_to_tensor(rank, name="rank")
        message = message or ""
        x_name = x.name
        if data is None:
            # made now, as TF 1.15 makes it (its Shape op is in the graph even when the
            # static rank settles the check)
            data = [message, f"Tensor {x_name} must have {what}", rank, "Received shape: ",
                    _array().shape(x)]
        try:
            return _assert_rank_condition(x, rank, static_condition,
                                          getattr(_math(), dyn_name), data, summarize)
        except _StaticRankFailure as e:
            raise ValueError(  # TF 1.15 keeps the ".  " even with no message
                f"{message}.  Tensor {x_name} must have {what} "
                f"{e.given}.  Received rank "
                f"{e.actual}, shape {x.get_shape()}"
            ) from None


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks ``x`` has rank ``rank``: ValueError now if known, else an Assert op.

    Returns a NoOp when the static shape already proves it.
    """
    return _assert_rank_common("assert_rank", "rank", lambda a, g: a == g, "equal", x, rank,
                               data, summarize, message, name)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Checks ``x`` has rank ``rank`` or more: ValueError now if known, else an Assert op."""
    return _assert_rank_common("assert_rank_at_least", "rank at least", lambda a, g: a >= g,
                               "greater_equal", x, rank, data, summarize, message, name)


def assert_type(tensor, tf_type, message=None, name=None):
    """Raises TypeError now unless ``tensor`` has dtype ``tf_type``; returns a NoOp."""
    message = message or ""
    with ops.name_scope(name, "assert_type", [tensor]):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if tensor.dtype != tf_type:
            # TF 1.15's wording: the expected type as given (str of a DType: <dtype: 'int32'>)
            raise TypeError(f"{message}  {tensor.name} must be of type {tf_type}")
        return control_flow_ops.no_op("statically_determined_correct_type")


def assert_integer(x, message=None, name=None):
    """Raises TypeError now unless ``x`` has an integer dtype; returns a NoOp."""
    message = message or ""
    with ops.name_scope(name, "assert_integer", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            raise TypeError(
                f'{message}  Expected "x" to be integer type.  Found: {x.name} of dtype '
                f"{x.dtype}"
            )
        return control_flow_ops.no_op("statically_determined_was_integer")


def assert_scalar(tensor, name=None, message=None):
    """Returns ``tensor`` after checking its static shape is a scalar (ValueError if not)."""
    with ops.name_scope(name, "assert_scalar", [tensor]) as name_scope:
        tensor = ops.convert_to_tensor(tensor, name=name_scope)
        shape = tensor.get_shape()
        if shape.ndims != 0:
            raise ValueError(
                f"{message or ''}Expected scalar shape for {tensor.name}, saw shape: {shape}."
            )
        return tensor


def assert_proper_iterable(values):
    """TypeError unless ``values`` is iterable and not a Tensor, ndarray, str or bytes."""
    from tideflow.framework.sparse_tensor import SparseTensor

    if isinstance(values, (ops.Tensor, SparseTensor, np.ndarray, str, bytes)):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` and ``dtype`` (ValueError if they differ)."""
    if tensors:
        # TF's message: the first tensor of another dtype, that dtype, the expected one and
        # (when it came from the tensors) the tensor that set it
        first = None
        for t in tensors:
            if t is None:
                continue
            t_dtype = t.dtype.base_dtype
            if dtype is None:
                dtype, first = t_dtype, t
            elif t_dtype != dtype:
                origin = f" as {getattr(first, 'name', first)}" if first is not None else ""
                raise ValueError(f"{getattr(t, 'name', t)}, type={t_dtype}, must be of the "
                                 f"same type ({dtype}){origin}.")
    if not dtype:
        return dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


# ------------------------------------------------------------------------------------------
# boolean checks
# ------------------------------------------------------------------------------------------


def is_numeric_tensor(tensor):
    """Whether ``tensor`` is a Tensor of a numeric dtype."""
    return isinstance(tensor, ops.Tensor) and tensor.dtype in NUMERIC_TYPES


def _diff_for_monotonic_comparison(x):
    x = _array().reshape(x, [-1])
    if not is_numeric_tensor(x):
        raise TypeError(f"Expected x to be numeric, instead found: {x}")
    from tideflow.ops.cond import cond

    a = _array()
    # TF 1.15's ops: a cond on the size (an empty diff for fewer than two elements, so the
    # check is vacuously true) around two StridedSlices
    shorter_than_two = _math().less(a.size(x), 2)
    end = a.shape(x) - 1
    return cond(shorter_than_two, lambda: ops.convert_to_tensor([], dtype=x.dtype),
                lambda: a.strided_slice(x, [1], [1] + end) - a.strided_slice(x, [0], end))


def is_non_decreasing(x, name=None):
    """A bool scalar: whether ``x`` (flattened) never decreases."""
    with ops.name_scope(name, "is_non_decreasing", [x]):
        diff = _diff_for_monotonic_comparison(x)
        zero = ops.convert_to_tensor(0, dtype=diff.dtype)
        m = _math()
        return _reduce_all(m.less_equal(zero, diff))


def is_strictly_increasing(x, name=None):
    """A bool scalar: whether ``x`` (flattened) strictly increases."""
    with ops.name_scope(name, "is_strictly_increasing", [x]):
        diff = _diff_for_monotonic_comparison(x)
        zero = ops.convert_to_tensor(0, dtype=diff.dtype)
        m = _math()
        return _reduce_all(m.less(zero, diff))


def __getattr__(name):
    # TF's check_ops also holds these; they live in check_extra_ops, which imports this module
    if name in ("assert_rank_in", "assert_shapes", "assert_all_finite"):
        from tideflow.ops import check_extra_ops

        return getattr(check_extra_ops, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
