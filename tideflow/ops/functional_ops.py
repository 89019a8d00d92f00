"""Higher-order functions over the first dimension: ``tf.map_fn``, ``tf.scan``, ``tf.foldl``,
``tf.foldr``, built on ``tf.while_loop`` with TensorArrays (so they have gradients)."""

from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop


def _elems(elems, name):
    flat = [ops.convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
    if not flat:
        raise ValueError(f"{name}: elems must not be empty")
    for e in flat:
        if e.get_shape().ndims == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars "
                             f"({e.name})")
    n_static = flat[0].get_shape()[0].value if flat[0].get_shape().ndims else None
    n = n_static if n_static is not None else array_ops.shape(flat[0])[0]
    tas = [TensorArray(e.dtype, size=n, element_shape=e.get_shape()[1:],
                       infer_shape=True).unstack(e) for e in flat]
    return flat, tas, n, n_static


def _pack_elems(elems, values):
    return nest.pack_sequence_as(elems, values)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """``fn`` applied to each row of ``elems`` (a tensor or nested structure), stacked.

    ``dtype`` gives the structure and dtypes of fn's result when they differ from elems'.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if parallel_iterations is None:
        parallel_iterations = 10
    with ops.name_scope(name, "map", nest.flatten(elems)):
        flat, tas, n, n_static = _elems(elems, "map_fn")
        if dtype is None:
            out_struct, out_dtypes = elems, [e.dtype.base_dtype for e in flat]
        else:
            out_struct, out_dtypes = dtype, [dtypes.as_dtype(d) for d in nest.flatten(dtype)]
        accs = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]

        def body(i, *accs_):
            x = _pack_elems(elems, [ta.read(i) for ta in tas])
            y = fn(x)
            nest.assert_same_structure(out_struct, y, check_types=False)
            ys = nest.flatten(y)
            return (i + 1, *[a.write(i, v) for a, v in zip(accs_, ys)])

        res = while_loop(lambda i, *_: i < n, body, (0, *accs),
                         parallel_iterations=parallel_iterations, back_prop=back_prop,
                         swap_memory=swap_memory)
        outs = []
        for ta in res[1:]:
            s = ta.stack()
            s.set_shape(TensorShape([n_static]).concatenate(ta.element_shape))
            outs.append(s)
        return nest.pack_sequence_as(out_struct, outs)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """Successive ``a = fn(a, x)`` over the rows of ``elems``; returns every ``a`` stacked."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with ops.name_scope(name, "scan", nest.flatten(elems)):
        _, tas, n, n_static = _elems(elems, "scan")
        if initializer is None:
            first = n - 1 if reverse else 0
            a0 = _pack_elems(elems, [ta.read(first) for ta in tas])
            start = 1
        else:
            a0 = initializer
            start = 0
        a_flat = [ops.convert_to_tensor(a) for a in nest.flatten(a0)]
        accs = [TensorArray(a.dtype, size=n, element_shape=a.get_shape(),
                            infer_shape=infer_shape) for a in a_flat]
        if start:
            accs = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs, a_flat)]
        k = len(a_flat)

        def body(i, *state):
            a = nest.pack_sequence_as(a0, list(state[:k]))
            accs_ = state[k:]
            idx = n - 1 - i if reverse else i
            x = _pack_elems(elems, [ta.read(idx) for ta in tas])
            a = fn(a, x)
            nest.assert_same_structure(a0, a, check_types=False)
            new = [ops.convert_to_tensor(v) for v in nest.flatten(a)]
            return (i + 1, *new, *[ta.write(idx, v) for ta, v in zip(accs_, new)])

        res = while_loop(lambda i, *_: i < n, body, (start, *a_flat, *accs),
                         parallel_iterations=parallel_iterations, back_prop=back_prop,
                         swap_memory=swap_memory)
        outs = []
        for ta in res[1 + k:]:
            s = ta.stack()
            s.set_shape(TensorShape([n_static]).concatenate(ta.element_shape))
            outs.append(s)
        return nest.pack_sequence_as(a0, outs)


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, reverse,
          default_name):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with ops.name_scope(name, default_name, nest.flatten(elems)):
        _, tas, n, _ = _elems(elems, default_name)
        if initializer is None:
            a0 = _pack_elems(elems, [ta.read(n - 1 if reverse else 0) for ta in tas])
            start = 1
        else:
            a0 = initializer
            start = 0
        a_flat = [ops.convert_to_tensor(a) for a in nest.flatten(a0)]
        k = len(a_flat)

        def body(i, *state):
            a = nest.pack_sequence_as(a0, list(state))
            idx = n - 1 - i if reverse else i
            x = _pack_elems(elems, [ta.read(idx) for ta in tas])
            a = fn(a, x)
            nest.assert_same_structure(a0, a, check_types=False)
            return (i + 1, *[ops.convert_to_tensor(v) for v in nest.flatten(a)])

        res = while_loop(lambda i, *_: i < n, body, (start, *a_flat),
                         parallel_iterations=parallel_iterations, back_prop=back_prop,
                         swap_memory=swap_memory)
        return nest.pack_sequence_as(a0, list(res[1:1 + k]))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 False, "foldl")


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """``fn(...fn(fn(initializer, elems[n-1]), elems[n-2])..., elems[0])``."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name,
                 True, "foldr")


# -- TF's functional ops over graph functions (``functional_ops.If/While/For``) -----------------
def _as_list(result):
    if result is None:
        return []
    if isinstance(result, (list, tuple)):
        return list(result)
    return [result]


def _invalid(message):
    from tideflow.framework import errors

    return errors.InvalidArgumentError(None, None, message)


def If(cond, inputs, then_branch, else_branch, name=None):
    """``then_branch(*inputs)`` if ``cond`` else ``else_branch(*inputs)`` (branches are
    ``Defun`` functions or callables); a list of the outputs. A non-boolean scalar ``cond``
    counts as true when nonzero (non-empty for strings), as TF's If op does."""
    from tideflow.ops import math_ops
    from tideflow.ops.cond import cond as cond_op

    with ops.name_scope(name, "If", [cond] + list(inputs)):
        inputs = [ops.convert_to_tensor(x) for x in inputs]
        cond = ops.convert_to_tensor(cond)
        if cond.dtype != dtypes.bool:
            zero = b"" if cond.dtype == dtypes.string else 0
            cond = math_ops.not_equal(cond, ops.convert_to_tensor(zero, dtype=cond.dtype))
        return _as_list(cond_op(
            cond, lambda: _as_list(then_branch(*inputs)),
            lambda: _as_list(else_branch(*inputs)), strict=True))


def While(input_, cond, body, name=None, hostmem=None):
    """Runs ``input_ = body(*input_)`` while ``cond(*input_)``; a list of the final values."""
    del hostmem
    loop_vars = [ops.convert_to_tensor(x) for x in input_]
    n = len(loop_vars)

    def cond_fn(*args):
        out = _as_list(cond(*args))
        if len(out) != 1:
            raise _invalid(f"Expected a single scalar return value from WhileOp cond, got "
                           f"{len(out)} tensors.")
        return out[0]

    def body_fn(*args):
        out = _as_list(body(*args))
        if len(out) != n:
            raise _invalid(f"While loop body returned {len(out)} arguments. Expected: {n}")
        return out

    # TF's While op keeps no shape invariant: a loop value may change shape
    return _as_list(while_loop(cond_fn, body_fn, loop_vars, name=name or "While",
                               shape_invariants=[TensorShape(None)] * n))


def For(start, limit, delta, inputs, body, name=None, hostmem=None,
        rewrite_with_while=None):
    """``for i in range(start, limit, delta): inputs = body(i, *inputs)``; a list of the final
    ``inputs`` (a negative ``delta`` counts down)."""
    del hostmem, rewrite_with_while
    from tideflow.ops import math_ops

    with ops.name_scope(name, "For", [start, limit, delta] + list(inputs)):
        start = ops.convert_to_tensor(start, dtype=dtypes.int32, name="start")
        limit = ops.convert_to_tensor(limit, dtype=dtypes.int32, name="limit")
        delta = ops.convert_to_tensor(delta, dtype=dtypes.int32, name="delta")
        loop_vars = [ops.convert_to_tensor(x) for x in inputs]

        def cond_fn(i, *args):
            up = math_ops.logical_and(math_ops.greater(delta, 0), math_ops.less(i, limit))
            down = math_ops.logical_and(math_ops.less(delta, 0), math_ops.greater(i, limit))
            return math_ops.logical_or(up, down)

        def body_fn(i, *args):
            out = _as_list(body(i, *args))
            with ops.control_dependencies(out or None):
                return [i + delta] + out

        invariants = [start.get_shape()] + [TensorShape(None)] * len(loop_vars)
        return list(while_loop(cond_fn, body_fn, [start] + loop_vars,
                               shape_invariants=invariants)[1:])
