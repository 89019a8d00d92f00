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
