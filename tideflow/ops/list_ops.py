"""TensorList ops (TF's list_ops): immutable lists of tensors carried as ``variant`` values.

They back ``tf.TensorArray`` and the per-iteration accumulators that loop gradients need.
A list value is never changed once produced: every "write" returns a new ``TensorList``
(pushes share structure, so accumulating n values costs O(n)).
"""

import itertools

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, unknown_shape

_new = object.__new__


class TensorList:
    """An immutable list of arrays (None marks an item never set: zeros when stacked)."""

    __slots__ = ("_base", "_blen", "_tail", "element_shape", "ta")

    def __init__(self, items=(), element_shape=None, _tail=None, _blen=None, ta=None):
        self._base = items if isinstance(items, tuple) else tuple(items)
        self._blen = len(self._base) if _blen is None else _blen
        self._tail = _tail  # pushed items, newest first: (value, rest)
        self.element_shape = element_shape  # tuple with None for unknown dims, or None
        self.ta = ta  # a TensorArrayState when tf.TensorArray made the list: TF 1.x checks

    def __len__(self):
        n = self._blen
        t = self._tail
        while t is not None:
            n += 1
            t = t[1]
        return n

    def items(self):
        """The items as a tuple (the representation is compacted; the value is unchanged)."""
        if self._tail is None:
            if self._blen != len(self._base):
                self._base = self._base[:self._blen]
            return self._base
        pushed = []
        t = self._tail
        while t is not None:
            pushed.append(t[0])
            t = t[1]
        self._base = self._base[:self._blen] + tuple(reversed(pushed))
        self._blen = len(self._base)
        self._tail = None
        return self._base

    # push and pop run once per loop iteration for every accumulated value: they build the
    # new list without __init__'s argument handling

    def push(self, value):
        out = _new(TensorList)
        out._base = self._base
        out._blen = self._blen
        out._tail = (value, self._tail)
        out.element_shape = self.element_shape
        out.ta = self.ta
        return out

    def pop(self):
        """(the list without its last item, that item)."""
        tail = self._tail
        out = _new(TensorList)
        out._base = self._base
        out.element_shape = self.element_shape
        out.ta = self.ta
        if tail is not None:
            out._blen = self._blen
            out._tail = tail[1]
            return out, tail[0]
        n = self._blen
        if n == 0:
            raise errors.InvalidArgumentError(None, None, "Trying to pop from an empty list.")
        out._blen = n - 1
        out._tail = None
        return out, self._base[n - 1]

    def with_items(self, items, element_shape=False):
        return TensorList(tuple(items), self.element_shape if element_shape is False else
                          element_shape, ta=self.ta)

    def __add__(self, other):
        a, b = self.items(), other.items()
        if len(a) != len(b):
            raise errors.InvalidArgumentError(
                None, None, f"Trying to add two lists of tensors with different lengths, one is "
                f"{len(a)} and the other is {len(b)}")
        out = [y if x is None else x if y is None else np.add(x, y) for x, y in zip(a, b)]
        return TensorList(tuple(out), self.element_shape or other.element_shape)

    def __repr__(self):
        return f"<TensorList of {len(self)}>"


def _shape_tuple(value):
    """An element_shape input (-1 or a vector with -1 for unknown dims) as a tuple or None."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return None
    return tuple(None if d < 0 else int(d) for d in arr.reshape(-1))


def _shape_of_input(t):
    """The static TensorShape an element_shape input tensor denotes."""
    v = ops.constant_value(t)
    if v is None:
        if t._shape.ndims != 1:
            return unknown_shape()
        from tideflow.ops import array_ops

        # partially known, as ``tf.shape(x)[1:]`` with some of x's dims known
        return array_ops.constant_value_as_shape(t)
    s = _shape_tuple(v)
    return unknown_shape() if s is None else TensorShape(list(s))


def _item_zeros(lst, i, dtype, element_shape):
    # (a scalar's shape () is known: only None falls back to the list's)
    shape = element_shape if element_shape is not None else lst.element_shape
    if shape is None or any(d is None for d in shape):
        known = [x for x in lst.items() if x is not None]
        if not known:
            raise errors.InvalidArgumentError(
                None, None, f"Item {i} of the list was never set and its shape is unknown.")
        return np.zeros_like(known[0])
    return np.zeros(shape, dtype)


# ------------------------------------------------------------------------------------------
# TF 1.x TensorArray semantics
# ------------------------------------------------------------------------------------------
# A list made by ``tf.TensorArray`` carries a TensorArrayState, made afresh by its creating op
# on every step and shared by every list derived from it in that step, as TF 1.x's
# TensorArray resource is: it holds the flags and the set of indices a read has cleared. The
# kernels below check what TF's TensorArray ops check; plain lists (gradients, accumulators)
# skip all of it.


_TENSOR_ARRAY_COUNT = itertools.count()


class TensorArrayState:
    """One tf.TensorArray's run-time state within a step."""

    __slots__ = ("clear", "cleared", "dynamic", "identical", "name")

    def __init__(self, name, dynamic, clear, identical):
        # as TF's kernel: the op's name and a process-wide count of the arrays made
        self.name = f"{name}_{next(_TENSOR_ARRAY_COUNT)}"
        self.dynamic = dynamic
        self.clear = clear  # clear_after_read
        self.identical = identical  # infer_shape: the first write fixes the element shape
        self.cleared = set()


def _shape_str(shape):
    """A shape as TF's PartialTensorShape::DebugString writes it."""
    if shape is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _fully_defined(shape):
    return shape is not None and None not in shape


def _ta_error(ta, msg):
    return errors.InvalidArgumentError(None, None, f"TensorArray {ta.name}: {msg}")


def _ta_read(lst, items, i, dtype, shape=None):
    """Item ``i`` of a TensorArray's list, with TF's checks; clears it if clear_after_read.
    ``shape``: the element shape of the stack/gather reading it (TF's attr, merged into the
    array's), whose zeros an item never written reads as when it is fully defined."""
    ta = lst.ta
    n = len(items)
    i = int(i)
    if i < 0 or i >= n:
        raise errors.InvalidArgumentError(
            None, None, f"Tried to read from index {i} but array size is: {n}")
    if i in ta.cleared:
        raise _ta_error(ta, f"Could not read index {i} twice because it was cleared after a "
                        "previous read (perhaps try setting clear_after_read = false?).")
    v = items[i]
    if v is None:
        if not _fully_defined(shape):
            shape = lst.element_shape
        if not _fully_defined(shape):
            raise _ta_error(
                ta, f"Could not read from TensorArray index {i}.  Furthermore, the element "
                f"shape is not fully defined: {_shape_str(shape)}.  It is possible you are "
                "working with a resizeable TensorArray and stop_gradients is not allowing the "
                "gradients to be written.  If you set the full element_shape property on the "
                "forward TensorArray, the proper all-zeros tensor will be returned instead of "
                "incurring this error.")
        v = np.zeros(shape, dtype)
    if ta.clear:
        ta.cleared.add(i)
    return v


def _ta_check_write(ta, es, n, i, vshape):
    """TF's checks before writing a value of shape ``vshape`` at ``i`` of an array of ``n``
    items whose inferred element shape is ``es``; returns the new inferred element shape."""
    if i < 0 or (i >= n and not ta.dynamic):
        raise _ta_error(ta, f"Tried to write to index {i} but array is not resizeable and size "
                        f"is: {n}")
    if es != vshape:
        if es is not None and (len(es) != len(vshape) or any(
                d is not None and d != v for d, v in zip(es, vshape))):
            raise _ta_error(
                ta, f"Could not write to TensorArray index {i} because the value shape is "
                f"{_shape_str(vshape)} which is incompatible with the TensorArray's inferred "
                f"element shape: {_shape_str(es)} (consider setting infer_shape=False).")
        if ta.identical:
            es = vshape
    return es


def _ta_slot_error(ta, items, i):
    if i in ta.cleared:
        return _ta_error(ta, f"Could not write to TensorArray index {i} because it has already "
                         "been read.")
    return _ta_error(ta, f"Could not write to TensorArray index {i} because it has already "
                     "been written to.")


def _ta_write(lst, index, value):
    # runs once per loop iteration in dynamic_rnn: the checks cost a shape compare when the
    # write is in bounds and of the inferred shape
    ta = lst.ta
    items = lst.items()
    n = len(items)
    i = int(index)
    try:
        vshape = value.shape
    except AttributeError:
        vshape = np.shape(value)
    es = lst.element_shape
    if es != vshape or i < 0 or (i >= n and not ta.dynamic):
        es = _ta_check_write(ta, es, n, i, vshape)
    items = list(items)
    if i < n:
        if items[i] is not None or i in ta.cleared:
            raise _ta_slot_error(ta, items, i)
    else:
        items.extend([None] * (i + 1 - n))
    items[i] = value
    out = _new(TensorList)
    out._base = tuple(items)
    out._blen = len(items)
    out._tail = None
    out.element_shape = es
    out.ta = ta
    return out


def _ta_scatter(lst, tensor, indices):
    ta = lst.ta
    items = lst.items()
    n = len(items)
    tensor = np.asarray(tensor)
    idx = np.asarray(indices).reshape(-1).tolist()
    if tensor.shape[:1] != (len(idx),):
        raise errors.InvalidArgumentError(
            None, None, f"Expected len(indices) == values.shape[0], but saw: {len(idx)} vs. "
            f"{tensor.shape[0] if tensor.ndim else 0}")
    if not idx:
        return lst
    top = max(idx)
    if not ta.dynamic and top >= n:
        raise errors.InvalidArgumentError(
            None, None, f"Max scatter index must be < array size ({top} vs. {n})")
    es = _ta_check_write(ta, lst.element_shape, n, min(idx), tensor.shape[1:])
    items = list(items)
    if top >= n:
        items.extend([None] * (top + 1 - n))
    cleared = ta.cleared
    for i, row in zip(idx, tensor):
        if items[i] is not None or i in cleared:
            raise _ta_slot_error(ta, items, i)
        items[i] = row
    return TensorList(tuple(items), es, ta=ta)


def _ta_read_many(lst, indices, dtype, concat=False, shape=None):
    """The items at ``indices`` for stack/gather/concat, with TF's shape checks."""
    items = lst.items()
    out = [np.asarray(_ta_read(lst, items, i, dtype, shape), dtype) for i in indices]
    if not out:
        return out
    first = out[0].shape
    if concat:
        for k, x in enumerate(out):
            if x.ndim == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Concat saw a scalar shape at index {indices[k]} but requires "
                    "at least vectors.  Did you mean to call pack?")
        first = first[1:]
    for k, x in enumerate(out):
        s = x.shape[1:] if concat else x.shape
        if s != first:
            what = " (excepting dimension 0)" if concat else ""
            raise errors.InvalidArgumentError(
                None, None, f"TensorArray has inconsistent shapes.  Index {indices[0]} has"
                f"{what} shape: {_shape_str(first)} but index {indices[k]} has{what} shape: "
                f"{_shape_str(s)}")
    return out


def _ta_empty(lst, dtype, element_shape, concat=False):
    shape = element_shape if element_shape is not None else lst.element_shape
    if concat:
        if shape is None or not _fully_defined(shape[1:]):
            raise errors.UnimplementedError(
                None, None, "TensorArray has size zero, but element shape "
                f"{_shape_str(shape)} is not fully defined. Currently only static shapes are "
                "supported when concatenating zero-size TensorArrays.")
        return np.zeros((0, *shape[1:]), dtype)
    if not _fully_defined(shape):
        raise errors.UnimplementedError(
            None, None, f"TensorArray has size zero, but element shape {_shape_str(shape)} is "
            "not fully defined. Currently only static shapes are supported when packing "
            "zero-size TensorArrays.")
    return np.zeros((0, *shape), dtype)


def _elem(op):
    return op._attrs["element_dtype"]


def _np_elem(op):
    return op._attrs["element_dtype"].as_numpy_dtype


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


def _empty_kernel(element_shape, max_num_elements):
    return TensorList((), _shape_tuple(element_shape))


def _reserve_kernel(element_shape, num_elements):
    n = int(num_elements)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"num_elements must be >= 0, got {n}")
    return TensorList((None,) * n, _shape_tuple(element_shape))


def _ta_factory(kernel):
    """A creating op's kernel: with a ``_tensor_array`` attr (tf.TensorArray's lists), each
    run's list carries a fresh TensorArrayState."""

    def factory(ctx):
        spec = ctx.op._attrs.get("_tensor_array")
        if spec is None:
            return kernel
        name = ctx.op._attrs.get("_tensor_array_name") or ctx.op.name
        if hasattr(spec, "list"):  # imported from a GraphDef: AttrValue protos
            spec = list(spec.list.i)
            name = getattr(name, "s", b"").decode() or ctx.op.name
        dynamic, clear, identical = (bool(x) for x in spec)

        def run(element_shape, n):
            if kernel is _reserve_kernel and int(n) < 0:  # (TF's TensorArrayV3 kernel's)
                raise errors.InvalidArgumentError(None, None, "Size should be >= 0.")
            lst = kernel(element_shape, n)
            lst.ta = TensorArrayState(name, dynamic, clear, identical)
            return lst

        return run

    return factory


_push_kernel = TensorList.push  # (lst, tensor) -> lst with tensor pushed


def _pop_kernel(lst, element_shape):
    return lst.pop()


def _length_kernel(lst):
    return np.int32(len(lst))


def _check_index(lst, i):
    n = len(lst)
    i = int(i)
    if not 0 <= i < n:
        raise errors.InvalidArgumentError(
            None, None, f"Trying to access element {i} in a list with {n} elements.")
    return i


def _get_item_factory(ctx):
    dtype = _np_elem(ctx.op)

    def run(lst, index, element_shape):
        if lst.ta is not None:
            return _ta_read(lst, lst.items(), index, dtype)
        i = _check_index(lst, index)
        v = lst.items()[i]
        if v is None:
            return _item_zeros(lst, i, dtype, _shape_tuple(element_shape))
        return v

    return run


def check_array_dtype(attrs):
    """A tf.TensorArray write of another dtype than the array's (TensorArray.write marks it:
    TF 1.x builds it, logging an error): TF's kernel refuses it."""
    want = attrs.get("_tensor_array_dtype")
    if want is None:
        return
    want = dtypes.as_dtype(getattr(want, "type", want))
    got = dtypes.as_dtype(attrs["element_dtype"])
    if want.base_dtype != got.base_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"TensorArray dtype is {dtypes.type_string(want)} but Op is trying to "
            f"write dtype {dtypes.type_string(got)}.")


def _set_item_kernel(lst, index, item, *, resize_if_index_out_of_bounds):
    if lst.ta is not None:
        return _ta_write(lst, index, item)
    if resize_if_index_out_of_bounds and int(index) >= len(lst):
        items = list(lst.items()) + [None] * (int(index) + 1 - len(lst))
    else:
        items = list(lst.items())
    i = _check_index(items, index)
    items[i] = item
    return lst.with_items(items)


def _stack_factory(ctx):
    dtype = _np_elem(ctx.op)
    num = ctx.op._attrs["num_elements"]

    def run(lst, element_shape):
        items = lst.items()
        if num != -1 and len(items) != num:
            raise errors.InvalidArgumentError(
                None, None, f"Operation expected a list with {num} elements but got a list "
                f"with {len(items)} elements.")
        if lst.ta is not None:
            if not items:
                return _ta_empty(lst, dtype, _shape_tuple(element_shape))
            return np.stack(_ta_read_many(lst, range(len(items)), dtype,
                                          shape=_shape_tuple(element_shape)))
        shape = _shape_tuple(element_shape)
        shape = shape if shape is not None else lst.element_shape
        if not items:
            if shape is None or any(d is None for d in shape):
                raise errors.InvalidArgumentError(
                    None, None, "Tried to stack elements of an empty list with non-fully-defined "
                    "element_shape")
            return np.zeros((0, *shape), dtype)
        filled = [_item_zeros(lst, i, dtype, shape) if x is None else x
                  for i, x in enumerate(items)]
        try:
            return np.stack([np.asarray(x, dtype) for x in filled])
        except ValueError as e:
            raise errors.InvalidArgumentError(
                None, None, f"Tried to stack list items of different shapes: {e}") from None

    return run


def _from_tensor_kernel(tensor, element_shape):
    tensor = np.asarray(tensor)
    if tensor.ndim == 0:
        raise errors.InvalidArgumentError(None, None, "Tensor must be at least a vector")
    return TensorList(tuple(tensor[i] for i in range(tensor.shape[0])),
                      tuple(tensor.shape[1:]))


def _gather_factory(ctx):
    dtype = _np_elem(ctx.op)

    def run(lst, indices, element_shape):
        if lst.ta is not None:
            idx = np.asarray(indices)
            out = _ta_read_many(lst, idx.reshape(-1).tolist(), dtype,
                                shape=_shape_tuple(element_shape))
            if not out:
                return _ta_empty(lst, dtype, _shape_tuple(element_shape))
            return np.stack(out).reshape(idx.shape + out[0].shape)
        items = lst.items()
        shape = _shape_tuple(element_shape)
        out = []
        for i in np.asarray(indices).reshape(-1):
            i = _check_index(lst, i)
            x = items[i]
            out.append(_item_zeros(lst, i, dtype, shape) if x is None else np.asarray(x, dtype))
        if not out:
            if shape is None:  # () is a known scalar element shape
                shape = lst.element_shape
            if shape is None or any(d is None for d in shape):
                raise errors.InvalidArgumentError(None, None, "Gathering no elements needs a "
                                                  "fully defined element_shape")
            return np.zeros((0, *shape), dtype)
        return np.stack(out).reshape(np.shape(indices) + np.shape(out[0]))

    return run


def _scatter_kernel(lst, tensor, indices):
    if lst.ta is not None:
        return _ta_scatter(lst, tensor, indices)
    items = list(lst.items())
    tensor = np.asarray(tensor)
    idx = np.asarray(indices).reshape(-1)
    if tensor.shape[:1] != idx.shape:
        raise errors.InvalidArgumentError(
            None, None, f"Invalid number of rows in input tensor. Expected: {idx.shape[0]} "
            f"Actual: {tensor.shape[0] if tensor.ndim else 0}")
    for k, i in enumerate(idx):
        i = int(i)
        if i < 0:
            raise errors.InvalidArgumentError(None, None, f"Negative index {i}")
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = tensor[k]
    return lst.with_items(items)


def _concat_factory(ctx):
    dtype = _np_elem(ctx.op)

    def run(lst, element_shape, leading_dims):
        if lst.ta is not None:
            parts = _ta_read_many(lst, range(len(lst)), dtype, concat=True)
            if not parts:
                return (_ta_empty(lst, dtype, _shape_tuple(element_shape), concat=True),
                        np.zeros([0], np.int64))
            return (np.concatenate(parts),
                    np.array([p.shape[0] for p in parts], np.int64))
        items = lst.items()
        shape = _shape_tuple(element_shape)
        leading = np.asarray(leading_dims).reshape(-1)
        rest = _concat_rest(items, shape) if len(leading) == len(items) else None
        parts = []
        for i, x in enumerate(items):
            if x is None:
                if rest is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"Concat of a list whose item {i} was never set")
                # an item a gradient never reached: zeros of its forward length (leading_dims)
                x = np.zeros((int(leading[i]), *rest), dtype)
            parts.append(np.asarray(x, dtype))
        if not parts:
            rest = () if shape is None else tuple(0 if d is None else d for d in shape[1:])
            return np.zeros((0, *rest), dtype), np.zeros([0], np.int64)
        lengths = np.array([p.shape[0] if p.ndim else 1 for p in parts], np.int64)
        return np.concatenate([p.reshape((-1, *p.shape[1:])) for p in parts]), lengths

    return run


def _concat_rest(items, shape):
    """The dims after the first of every item: element_shape's when known, else a set item's."""
    if shape is not None and len(shape) and all(d is not None for d in shape[1:]):
        return shape[1:]
    for x in items:
        if x is not None and np.ndim(x):
            return np.shape(x)[1:]
    return None


def _split_kernel(tensor, element_shape, lengths):
    tensor = np.asarray(tensor)
    lengths = np.asarray(lengths).reshape(-1)
    if int(lengths.sum()) != tensor.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Unaligned lengths: they sum to {int(lengths.sum())}, the tensor has "
            f"{tensor.shape[0]} rows")
    bounds = np.cumsum(lengths)[:-1]
    return TensorList(tuple(np.split(tensor, bounds)), (None, *tensor.shape[1:]))


def _split_factory(ctx):
    """TensorListSplit; made by TensorArray.split (a ``_tensor_array`` attr: dynamic, clear,
    infer_shape, the array's static size or -1), the list is that array's, with TF 1.x's
    checks: as many pieces as a non-dynamic array's size, each piece written with the shape
    rules of a write."""
    spec = ctx.op._attrs.get("_tensor_array")
    if spec is None:
        return _split_kernel
    if hasattr(spec, "list"):  # imported from a GraphDef
        spec = list(spec.list.i)
    dynamic, clear, identical, size = (int(x) for x in spec)
    name = ctx.op._attrs.get("_tensor_array_name") or ctx.op.name
    if hasattr(name, "s"):
        name = name.s.decode() or ctx.op.name

    def run(tensor, element_shape, lengths):
        def dims(x):
            return "[" + ",".join(str(d) for d in np.shape(x)) + "]"

        # the array exists before TF's split runs: a failed split has counted it too
        ta = TensorArrayState(name, bool(dynamic), bool(clear), bool(identical))
        # TF's TensorArraySplit checks, in its order
        if np.ndim(lengths) != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Expected lengths to be a vector, received shape: {dims(lengths)}")
        if np.ndim(tensor) < 1:
            raise errors.InvalidArgumentError(
                None, None, "Expected value to be at least a vector, but received shape: "
                f"{dims(tensor)}")
        if int(np.sum(lengths)) != np.shape(tensor)[0]:
            raise errors.InvalidArgumentError(
                None, None, "Expected sum of lengths to be equal to values.shape[0], but sum of "
                f"lengths is {int(np.sum(lengths))} and value's shape is: {dims(tensor)}")
        n = int(np.size(lengths))
        if size >= 0 and not dynamic and n != size:
            raise errors.InvalidArgumentError(
                None, None, f"TensorArray's size is not equal to the size of lengths ({size} vs. "
                f"{n}), and the TensorArray is not marked as dynamically resizeable")
        lst = _split_kernel(tensor, element_shape, lengths)
        es = _shape_tuple(element_shape)
        for i, piece in enumerate(lst.items()):
            es = _ta_check_write(ta, es, n, i, piece.shape)
        lst.ta = ta
        lst.element_shape = es
        return lst

    return run


def _add_n_kernel(inputs):
    out = inputs[0]
    for x in inputs[1:]:
        out = out + x
    return out


def _zeros_like_kernel(lst):
    items = lst.items()
    return TensorList(tuple(None if x is None else np.zeros_like(x) for x in items),
                      lst.element_shape)


# ------------------------------------------------------------------------------------------
# gradients
# ------------------------------------------------------------------------------------------


def _counted_as_tf(fn):
    """A TensorArray op's gradient (its op carries ``_tensor_array_op``) made outside loops and
    conds counts as TF 1.15's three ops (TensorArrayGradV3, gradient_flow and the read, write,
    gather, scatter, split or concat): its own ops take ids set aside, then the graph's count
    skips three, so later random ops draw TF's seeds. (In a loop body, the loop's gradient
    counts them: control_flow_grad._TA_GRAD_OPS.)"""
    def grad(op, *grads):
        graph = op._graph
        if ("_tensor_array_op" not in op._attrs or graph.building_function
                or graph._next_id >= ops.Graph.ASIDE_IDS):
            return fn(op, *grads)
        first = graph._next_id
        with graph.aside_ids():
            out = fn(op, *grads)
        graph._skip_op_ids(to=first + 3)
        return out

    return grad


def _ta_name(op, tf_name):
    """The name TF 1.x's gradient of a TensorArray op gives the tensor it returns (a read or
    gather of the gradient array); None for a plain list's gradient."""
    return tf_name if "_tensor_array_op" in op._attrs else None


def _set_item_grad(op, grad):
    if grad is None:
        return None, None, None
    index = op._inputs[1]
    item_grad = get_item(grad, index, _elem(op), element_shape=-1, name=_ta_name(
        op, "TensorArrayReadV3"))
    from tideflow.ops import array_ops

    # (zeros shaped as the item's gradient: no forward value is read, as TF's write)
    list_grad = set_item(grad, index, array_ops.zeros_like(item_grad))
    return list_grad, None, item_grad


def _get_item_grad(op, grad):
    lst, index = op._inputs[0], op._inputs[1]
    zeros = reserve(-1, length(lst), _elem(op))
    return set_item(zeros, index, grad), None, None


def _stack_grad(op, grad):
    return from_tensor(grad, element_shape=-1), None


def _from_tensor_grad(op, grad):
    if grad is None:
        return None, None
    from tideflow.ops import array_ops

    t = op._inputs[0]
    shape = array_ops.shape(t)[1:]
    n = t._shape.dims[0].value if t._shape.ndims else None
    return stack(grad, _elem(op), element_shape=shape, num_elements=-1 if n is None else n), None


def _gather_grad(op, grad):
    lst, indices = op._inputs[0], op._inputs[1]
    from tideflow.ops import array_ops

    zeros = reserve(array_ops.shape(grad)[1:], length(lst), _elem(op))
    return scatter_into(zeros, grad, indices), None, None


def _scatter_grad(op, grad):
    if grad is None:
        return None, None, None
    indices = op._inputs[2]
    from tideflow.ops import array_ops

    tensor_grad = gather(grad, indices, _elem(op), element_shape=-1,
                         name=_ta_name(op, "TensorArrayGatherV3"))
    tensor_grad.set_shape(op._inputs[1]._shape)  # the rows scattered: the tensor's own shape
    list_grad = scatter_into(grad, array_ops.zeros_like(op._inputs[1]), indices)
    return list_grad, tensor_grad, None


def _concat_grad(op, grad, lengths_grad=None):
    return split(grad, op._outputs[1], -1), None, None


def _split_grad(op, grad):
    if grad is None:
        return None, None, None
    from tideflow.ops import array_ops

    # the split filled the first len(lengths) items; later writes (a dynamic array) add items
    # whose gradients are not the tensor's
    value = op._inputs[0]
    # the split's lengths size the pieces a gradient never reached (zeros); the leading_dims
    # input is the split's own, so the count of ops made stays as before (one id skipped)
    op._graph._skip_op_ids(1)
    tensor_grad = concat(grad, _elem(op), leading_dims=op._inputs[2])[0][
        : array_ops.shape(value)[0]]
    tensor_grad.set_shape(value._shape)
    return tensor_grad, None, None


def _add_n_grad(op, grad):
    return [grad] * len(op._inputs)


# ------------------------------------------------------------------------------------------
# declarations
# ------------------------------------------------------------------------------------------

_SHAPE_TYPE = "shape_type: {int32, int64} = DT_INT32"


def _scalar_variant(op):
    return [TensorShape([])]


def _stack_shape(op):
    elem = _shape_of_input(op._inputs[1])
    n = op._attrs.get("num_elements", -1)
    return [TensorShape([None if n == -1 else n]).concatenate(elem)]


op_registry.declare("EmptyTensorList", inputs=["element_shape: shape_type",
                                               "max_num_elements: int32"],
                    outputs=["handle: variant"], attrs=["element_dtype: type", _SHAPE_TYPE],
                    shape=_scalar_variant, kernel_factory=_ta_factory(_empty_kernel),
                    differentiable=False)
op_registry.declare("TensorListReserve", inputs=["element_shape: shape_type",
                                                 "num_elements: int32"],
                    outputs=["handle: variant"], attrs=["element_dtype: type", _SHAPE_TYPE],
                    shape=_scalar_variant, kernel_factory=_ta_factory(_reserve_kernel),
                    differentiable=False)
op_registry.declare("TensorListPushBack", inputs=["input_handle: variant",
                                                  "tensor: element_dtype"],
                    outputs=["output_handle: variant"], attrs=["element_dtype: type"],
                    shape=_scalar_variant, kernel=_push_kernel, differentiable=False)
op_registry.declare("TensorListPopBack", inputs=["input_handle: variant", "element_shape: int32"],
                    outputs=["output_handle: variant", "tensor: element_dtype"],
                    attrs=["element_dtype: type"],
                    shape=lambda op: [TensorShape([]), _shape_of_input(op._inputs[1])],
                    kernel=_pop_kernel, differentiable=False)
op_registry.declare("TensorListLength", inputs=["input_handle: variant"],
                    outputs=["length: int32"], shape=_scalar_variant, kernel=_length_kernel,
                    differentiable=False)
op_registry.declare("TensorListGetItem", inputs=["input_handle: variant", "index: int32",
                                                 "element_shape: int32"],
                    outputs=["item: element_dtype"], attrs=["element_dtype: type"],
                    shape=lambda op: [_shape_of_input(op._inputs[2])],
                    kernel_factory=_get_item_factory, grad=_counted_as_tf(_get_item_grad))
op_registry.declare("TensorListSetItem", inputs=["input_handle: variant", "index: int32",
                                                 "item: element_dtype"],
                    outputs=["output_handle: variant"],
                    attrs=["element_dtype: type", "resize_if_index_out_of_bounds: bool = false"],
                    shape=_scalar_variant, kernel=_set_item_kernel, grad=_counted_as_tf(_set_item_grad),
                    newer_attrs=["resize_if_index_out_of_bounds"], check_attrs=check_array_dtype)
op_registry.declare("TensorListStack", inputs=["input_handle: variant", "element_shape: int32"],
                    outputs=["tensor: element_dtype"],
                    attrs=["element_dtype: type", "num_elements: int = -1"],
                    shape=_stack_shape, kernel_factory=_stack_factory, grad=_counted_as_tf(_stack_grad))
op_registry.declare("TensorListFromTensor", inputs=["tensor: element_dtype",
                                                    "element_shape: shape_type"],
                    outputs=["output_handle: variant"], attrs=["element_dtype: type", _SHAPE_TYPE],
                    shape=_scalar_variant, kernel=_from_tensor_kernel, grad=_from_tensor_grad)
op_registry.declare("TensorListGather", inputs=["input_handle: variant", "indices: int32",
                                                "element_shape: int32"],
                    outputs=["values: element_dtype"], attrs=["element_dtype: type"],
                    shape=lambda op: [op._inputs[1]._shape.concatenate(
                        _shape_of_input(op._inputs[2]))],
                    kernel_factory=_gather_factory, grad=_counted_as_tf(_gather_grad))
op_registry.declare("TensorListScatterIntoExistingList",
                    inputs=["input_handle: variant", "tensor: element_dtype", "indices: int32"],
                    outputs=["output_handle: variant"], attrs=["element_dtype: type"],
                    shape=_scalar_variant, kernel=_scatter_kernel, grad=_counted_as_tf(_scatter_grad),
                    check_attrs=check_array_dtype)
op_registry.declare("TensorListConcatV2", inputs=["input_handle: variant",
                                                  "element_shape: shape_type",
                                                  "leading_dims: int64"],
                    outputs=["tensor: element_dtype", "lengths: int64"],
                    attrs=["element_dtype: type", "shape_type: {int32, int64}"],
                    shape=lambda op: [TensorShape([None]).concatenate(
                        _shape_of_input(op._inputs[1])[1:] if _shape_of_input(
                            op._inputs[1]).ndims else unknown_shape()), TensorShape([None])],
                    kernel_factory=_concat_factory, grad=_counted_as_tf(_concat_grad))
op_registry.declare("TensorListSplit", inputs=["tensor: element_dtype",
                                               "element_shape: shape_type", "lengths: int64"],
                    outputs=["output_handle: variant"],
                    attrs=["element_dtype: type", "shape_type: {int32, int64}"],
                    shape=_scalar_variant, kernel_factory=_split_factory, grad=_counted_as_tf(_split_grad))
# the sum of gradient lists (TF sums them with a variant AddN); None items count as zeros
op_registry.declare("_TensorListAddN", inputs=["inputs: N * variant"],
                    outputs=["sum: variant"], attrs=["N: int >= 1"],
                    shape=_scalar_variant, kernel=_add_n_kernel, grad=_add_n_grad)
op_registry.declare("_TensorListZerosLike", inputs=["input_handle: variant"],
                    outputs=["output_handle: variant"], shape=_scalar_variant,
                    kernel=_zeros_like_kernel, differentiable=False)


# ------------------------------------------------------------------------------------------
# Python wrappers
# ------------------------------------------------------------------------------------------


def _shape_arg(element_shape):
    if isinstance(element_shape, ops.Tensor):
        return element_shape
    if element_shape is None or (isinstance(element_shape, int) and element_shape == -1):
        return np.int32(-1)
    s = element_shape if isinstance(element_shape, TensorShape) else TensorShape(element_shape)
    if s.ndims is None:
        return np.int32(-1)
    return np.array([-1 if d is None else d for d in s.as_list()], np.int32)


def _apply(op_type, inputs, attrs, name=None):
    op = ops.apply_op(op_type, inputs, attrs, name=name)
    return op._outputs if len(op._outputs) > 1 else op._outputs[0]


def empty_tensor_list(element_shape, element_dtype, max_num_elements=-1, name=None):
    return _apply("EmptyTensorList", [_shape_arg(element_shape), max_num_elements],
                  {"element_dtype": element_dtype}, name)


def reserve(element_shape, num_elements, element_dtype, name=None):
    return _apply("TensorListReserve", [_shape_arg(element_shape), num_elements],
                  {"element_dtype": element_dtype}, name)


def push_back(lst, tensor, name=None):
    tensor = ops.convert_to_tensor(tensor)
    return _apply("TensorListPushBack", [lst, tensor],
                  {"element_dtype": tensor.dtype.base_dtype}, name)


def pop_back(lst, element_dtype, element_shape=-1, name=None):
    """Returns (rest of the list, last item)."""
    rest, item = _apply("TensorListPopBack", [lst, _shape_arg(element_shape)],
                        {"element_dtype": element_dtype}, name)
    return rest, item


def length(lst, name=None):
    return _apply("TensorListLength", [lst], {}, name)


def get_item(lst, index, element_dtype, element_shape=-1, name=None):
    return _apply("TensorListGetItem", [lst, index, _shape_arg(element_shape)],
                  {"element_dtype": element_dtype}, name)


def set_item(lst, index, item, resize_if_index_out_of_bounds=False, name=None):
    item = ops.convert_to_tensor(item)
    return _apply("TensorListSetItem", [lst, index, item],
                  {"element_dtype": item.dtype.base_dtype,
                   "resize_if_index_out_of_bounds": resize_if_index_out_of_bounds}, name)


def stack(lst, element_dtype, element_shape=-1, num_elements=-1, name=None):
    return _apply("TensorListStack", [lst, _shape_arg(element_shape)],
                  {"element_dtype": element_dtype, "num_elements": num_elements}, name)


def from_tensor(tensor, element_shape=-1, name=None):
    tensor = ops.convert_to_tensor(tensor)
    if not isinstance(element_shape, ops.Tensor) and (
            element_shape is None or element_shape == -1):
        element_shape = tensor.get_shape()[1:] if tensor.get_shape().ndims else None
    return _apply("TensorListFromTensor", [tensor, _shape_arg(element_shape)],
                  {"element_dtype": tensor.dtype.base_dtype}, name)


def gather(lst, indices, element_dtype, element_shape=-1, name=None):
    return _apply("TensorListGather", [lst, indices, _shape_arg(element_shape)],
                  {"element_dtype": element_dtype}, name)


def scatter_into(lst, tensor, indices, name=None):
    tensor = ops.convert_to_tensor(tensor)
    return _apply("TensorListScatterIntoExistingList", [lst, tensor, indices],
                  {"element_dtype": tensor.dtype.base_dtype}, name)


def concat(lst, element_dtype, element_shape=-1, name=None, leading_dims=None):
    """Returns (the items concatenated along axis 0, their lengths)."""
    leading_dims = np.int64(0) if leading_dims is None else leading_dims
    out = _apply("TensorListConcatV2", [lst, _shape_arg(element_shape), leading_dims],
                 {"element_dtype": element_dtype, "shape_type": dtypes.int32}, name)
    return out[0], out[1]


def split(tensor, lengths, element_shape=-1, name=None):
    tensor = ops.convert_to_tensor(tensor)
    return _apply("TensorListSplit", [tensor, _shape_arg(element_shape), lengths],
                  {"element_dtype": tensor.dtype.base_dtype, "shape_type": dtypes.int32}, name)


def add_n(lists, name=None):
    """The sum of gradient lists."""
    if len(lists) == 1:
        return lists[0]
    return _apply("_TensorListAddN", [list(lists)], {}, name)


def zeros_like(lst, name=None):
    return _apply("_TensorListZerosLike", [lst], {}, name)

