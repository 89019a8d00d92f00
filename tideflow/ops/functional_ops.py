"""Higher-order functions over the first dimension: ``tf.map_fn``, ``tf.scan``, ``tf.foldl``,
``tf.foldr``, built on ``tf.while_loop`` with TensorArrays (so they have gradients)."""

from tideflow.framework import dtypes, nest, ops, sparse_tensor
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops, constant_op, range_ops
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop


# TF 1.15 builds these loops from v1 TensorArray ops and a Switch/Merge while frame; tideflow
# builds TensorLists and a functional While (whose frame ids while_loop skips). The ids of
# the TensorArray ops TF makes and tideflow does not are skipped where TF makes them (before
# the loop, around fn in the body, at the stack), so the ops fn makes and every op made after
# the call take TF's op count: with tf.set_random_seed, a random op in fn or after the call
# gets TF's op seed. TF's op counts: a TensorArray 2 ops (its size Const and the array; 1 for
# a size tensor), an unstack 9 (the rows' shape, strided slice, range and scatter), a read or
# write 1 (+ the index Const for a Python index; in the loop body + the Enters of the handle
# and of an outside array's flow), a stack 5 (size, range, gather).
def _skip_to(graph, op_id):
    graph._skip_op_ids(to=op_id)


def _mark(graph):
    return graph._next_id, len(getattr(graph, "captures", ()))


def _skip_past(graph, mark, count):
    """Skips to ``count`` ops after ``mark``, and the outside tensors captured since (an
    Enter or Switch in TF, a placeholder here: both count)."""
    first, captures = mark
    _skip_to(graph, first + count + len(getattr(graph, "captures", ())) - captures)


def _ta_ops(size):
    return 1 if isinstance(size, ops.Tensor) else 2


def _index_ops(index):
    return 0 if isinstance(index, ops.Tensor) else 1


def _converted(values):
    return sum(not isinstance(v, ops.Tensor) for v in values)


def _num_rows(first, use_or):
    """TF's ``n``: the static number of rows, else ``shape(first)[0]`` (and, as TF's map_fn
    and folds, a static 0 also takes the tensor); with the TF op count of making it."""
    shape = first.get_shape()
    # (a scalar's missing dimension: TF's IndexError, list index out of range)
    n = shape.dims[0].value if shape.ndims is not None else None
    if n is None or (use_or and not n):
        return array_ops.shape(first)[0], 5
    return n, 0


def _unstacked(flat, n, element_shapes=True):
    tas = []
    for e in flat:
        ta = TensorArray(e.dtype, size=n, element_shape=e.get_shape()[1:] if element_shapes
                         else None, infer_shape=True)
        if isinstance(n, ops.Tensor):  # the rows counted once (TF counts them per array)
            with ops.name_scope("TensorArrayUnstack"):
                ta = ta.scatter(range_ops.range(n), e)
        else:
            ta = ta.unstack(e)
        tas.append(ta)
    return tas


def _check_rank(flat):
    shape = flat[0].get_shape()
    if shape.ndims is not None and shape.ndims < 1:
        if len(flat) == 1:
            raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
        raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")


def _rows_static(flat):
    """The static row count of ``flat``'s tensors: the first's (TF 1.x checks the others
    agree, after the loop: "Dimensions 3 and 2 are not compatible", but drops the merge, so
    a known count of a later tensor is not taken)."""
    n = flat[0].get_shape().with_rank_at_least(1)[0]
    for e in flat[1:]:
        n.merge_with(e.get_shape().with_rank_at_least(1)[0])
    return n.value


def _stacked(graph, tas, n_static):
    first = graph._next_id
    outs = []
    for ta in tas:
        s = ta.stack()
        s.set_shape(TensorShape([n_static]).concatenate(s.get_shape()[1:]))
        outs.append(s)
    _skip_to(graph, first + 5 * len(tas))
    return outs


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None):
    """``fn`` applied to each row of ``elems`` (a tensor or nested structure), stacked.

    ``dtype`` gives the structure and dtypes of fn's result when they differ from elems'.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if isinstance(elems, sparse_tensor.SparseTensor):
        raise TypeError(  # TF 1.15's words
            "To perform a map on the values of a sparse tensor use either "
            " SparseTensor(input.indices, fn(input.values), input.dense_shape) or "
            " SparseTensor(input.indices, map_fn(fn, input.values), input.dense_shape)")
    if not parallel_iterations:
        parallel_iterations = 10
    in_seq = nest.is_sequence(elems)
    out_struct = elems if dtype is None else dtype
    out_seq = in_seq if dtype is None else nest.is_sequence(dtype)
    graph = ops.get_default_graph()
    with ops.name_scope(name, "map", nest.flatten(elems)):
        flat = [ops.convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        _check_rank(flat)
        mark = _mark(graph)
        n, n_ops = _num_rows(flat[0], True)
        tas = _unstacked(flat, n, element_shapes=False)
        i = constant_op.constant(0)
        if dtype is None:
            out_dtypes = [e.dtype.base_dtype for e in flat]
        else:
            out_dtypes = [dtypes.as_dtype(d) for d in nest.flatten(dtype)]
        accs = [TensorArray(d, size=n, infer_shape=infer_shape) for d in out_dtypes]
        # (TF checks fn's result against the dtype structure, elems' dtypes by default)
        dtype_struct = dtype if dtype is not None else (
            nest.pack_sequence_as(elems, out_dtypes) if in_seq else out_dtypes[0])
        _skip_past(graph, mark, n_ops + len(flat) * (_ta_ops(n) + 9) + 1
                   + len(accs) * _ta_ops(n))

        def compute(i, accs_):
            start = graph._next_id
            rows = [ta.read(i) for ta in tas]
            _skip_to(graph, start + 3 * len(tas))
            y = fn(nest.pack_sequence_as(elems, rows) if in_seq else rows[0])
            nest.assert_same_structure(dtype_struct, y, check_types=False)
            ys = nest.flatten(y) if out_seq else [y]
            start = graph._next_id
            accs_ = [a.write(i, v) for a, v in zip(accs_, ys)]
            _skip_to(graph, start + 2 * len(accs_) + _converted(ys))
            return i + 1, accs_

        _, res = while_loop(lambda i, _: i < n, compute, (i, accs),
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        n_static = _rows_static(flat)
        outs = _stacked(graph, res, n_static)
        return nest.pack_sequence_as(out_struct, outs) if out_seq else outs[0]


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """Successive ``a = fn(a, x)`` over the rows of ``elems``; returns every ``a`` stacked."""
    if not callable(fn):
        raise TypeError("fn must be callable.")
    in_seq = nest.is_sequence(elems)
    out_struct = elems if initializer is None else initializer
    out_seq = in_seq if initializer is None else nest.is_sequence(initializer)
    graph = ops.get_default_graph()
    with ops.name_scope(name, "scan", nest.flatten(elems)):
        flat = [ops.convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        mark = _mark(graph)
        n, count = _num_rows(flat[0], False)
        tas = _unstacked(flat, n)
        count += len(flat) * (_ta_ops(n) + 9)
        def first_index():
            # the first element's index (n - 1 counting down: two ops for a tensor n) and
            # the ops TF makes for it and its read or write
            index = n - 1 if reverse else 0
            extra = 2 if reverse and isinstance(n, ops.Tensor) else 0
            return index, extra + 1 + _index_ops(index)

        if initializer is None:
            a_flat = []
            for ta in tas:
                index, made = first_index()
                count += made
                a_flat.append(ta.read(index))
            i = 1
        else:
            init = nest.flatten(initializer) if out_seq else [initializer]
            before = graph._next_id
            a_flat = [ops.convert_to_tensor(v) for v in init]
            count += graph._next_id - before
            i = 0
        accs = [TensorArray(a.dtype, size=n, element_shape=a.get_shape() if infer_shape
                            else None, infer_shape=infer_shape) for a in a_flat]
        count += len(accs) * _ta_ops(n)
        if initializer is None:
            written = []
            for acc, a in zip(accs, a_flat):
                index, made = first_index()
                count += made
                written.append(acc.write(index, a))
            accs = written
        if reverse:
            initial_i = n - 1 - i
            count += 4 if isinstance(n, ops.Tensor) else 0
        else:
            initial_i = i
        _skip_past(graph, mark, count)

        def compute(i, a_flat_, accs_):
            start = graph._next_id
            rows = [ta.read(i) for ta in tas]
            _skip_to(graph, start + 3 * len(tas))
            a = fn(nest.pack_sequence_as(out_struct, a_flat_) if out_seq else a_flat_[0],
                   nest.pack_sequence_as(elems, rows) if in_seq else rows[0])
            nest.assert_same_structure(out_struct, a, check_types=False)
            a_out = nest.flatten(a) if out_seq else [a]
            start = graph._next_id
            accs_ = [ta.write(i, v) for ta, v in zip(accs_, a_out)]
            _skip_to(graph, start + 2 * len(accs_) + _converted(a_out))
            return (i - 1 if reverse else i + 1), a_out, accs_

        if reverse:
            condition = lambda i, _1, _2: i >= 0
        else:
            condition = lambda i, _1, _2: i < n
        _, _, res = while_loop(condition, compute, (initial_i, a_flat, accs),
                               parallel_iterations=parallel_iterations, back_prop=back_prop,
                               swap_memory=swap_memory, maximum_iterations=n)
        n_static = _rows_static(flat)
        outs = _stacked(graph, res, n_static)
        return nest.pack_sequence_as(out_struct, outs) if out_seq else outs[0]


def _fold(fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, reverse,
          default_name):
    if not callable(fn):
        raise TypeError("fn must be callable.")
    graph = ops.get_default_graph()
    with ops.name_scope(name, default_name, [elems]):
        flat = [ops.convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        mark = _mark(graph)
        n, count = _num_rows(flat[0], True)
        tas = _unstacked(flat, n, element_shapes=False)
        count += len(flat) * (_ta_ops(n) + 9)
        if reverse:
            if initializer is None:
                i = n - 1
                count += 2 if isinstance(n, ops.Tensor) else 0
                a = nest.pack_sequence_as(elems, [ta.read(i) for ta in tas])
                count += len(tas) * (1 + _index_ops(i))
            else:
                i, a = n, initializer
        else:
            if initializer is None:
                a = nest.pack_sequence_as(elems, [ta.read(0) for ta in tas])
                count += 2 * len(tas)
                i = constant_op.constant(1)
            else:
                a = initializer
                i = constant_op.constant(0)
            count += 1
        _skip_past(graph, mark, count)

        def compute(i, a):
            start = graph._next_id
            if reverse:
                i -= 1
                start += 2
            rows = [ta.read(i) for ta in tas]
            _skip_to(graph, start + 3 * len(tas))
            a = fn(a, nest.pack_sequence_as(elems, rows))
            return [i, a] if reverse else [i + 1, a]

        if reverse:
            condition = lambda i, a: i > 0
        else:
            condition = lambda i, a: i < n
        _, r_a = while_loop(condition, compute, [i, a], parallel_iterations=parallel_iterations,
                            back_prop=back_prop, swap_memory=swap_memory,
                            maximum_iterations=n)
        return r_a


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
