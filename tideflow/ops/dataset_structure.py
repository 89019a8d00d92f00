"""Element structures of ``tf.data`` datasets: nests of component specs, flat "wire" layouts.

As in tf.data, tuples, namedtuples and dicts nest; a list is one tensor. A dense component
travels as one array; a SparseTensor travels as one ``variant`` value (a ``SparseValue``), a
RaggedTensor as one ``variant`` value (a ``RaggedTensorValue``; batching one adds a ragged
dimension, slicing one removes it, a ragged rank of 0 being a dense component).
"""

import collections.abc

import numpy as np

from tideflow.framework import dtypes, errors, ops
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tideflow.ops.ragged_value import RaggedTensorValue


class Spec:
    """One component of an element: dtype, static shape and class (Tensor or SparseTensor)."""

    __slots__ = ("cls", "dtype", "element_specs", "ragged_rank", "shape", "ta_flags")

    def __init__(self, dtype, shape, cls=ops.Tensor, element_specs=None, ragged_rank=None,
                 ta_flags=None):
        self.dtype = dtypes.as_dtype(dtype).base_dtype
        self.shape = as_shape(shape)
        self.cls = cls
        # a component that is itself a dataset (``window``'s): the specs of its elements
        self.element_specs = element_specs
        # a RaggedTensor component: its number of ragged dimensions (None: not ragged)
        self.ragged_rank = ragged_rank
        # a TensorArray component (its shape: the element shape): (dynamic_size, infer_shape)
        self.ta_flags = ta_flags

    def with_shape(self, shape):
        """This spec with another static shape (the same class, dataset or ragged rank)."""
        return Spec(self.dtype, shape, self.cls, self.element_specs, self.ragged_rank,
                    self.ta_flags)

    @staticmethod
    def dataset(element_specs, cls, shape=()):
        return Spec(dtypes.variant, shape, cls, element_specs)

    @property
    def is_sparse(self):
        return self.cls is SparseTensor

    @property
    def is_optional(self):
        return self.element_specs is not None and getattr(self.cls, "_is_optional", False)

    @property
    def is_dataset(self):
        return self.element_specs is not None and not self.is_optional

    @property
    def is_ragged(self):
        return self.ragged_rank is not None

    @property
    def is_tensor_array(self):
        return self.ta_flags is not None

    @property
    def wire_dtype(self):
        return (dtypes.variant if self.is_sparse or self.is_ragged or self.is_tensor_array
                else self.dtype)

    @property
    def wire_shape(self):
        return (TensorShape([]) if self.is_sparse or self.is_ragged or self.is_tensor_array
                else self.shape)

    def __repr__(self):
        return f"Spec({self.dtype.name}, {self.shape}, {self.cls.__name__})"


# ------------------------------------------------------------------------------------------
# nests (tf.data's rules: tuples and dicts nest, lists do not)
# ------------------------------------------------------------------------------------------


def _ragged_classes():
    from tideflow.ops.ragged_tensor import RaggedTensor, RaggedTensorValue

    return RaggedTensor, RaggedTensorValue


def is_seq(x):
    return isinstance(x, (tuple, collections.abc.Mapping)) and not isinstance(
        x, SparseTensorValue)


def _keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten(s):
    if isinstance(s, collections.abc.Mapping):
        return [x for k in _keys(s) for x in flatten(s[k])]
    if isinstance(s, tuple) and not isinstance(s, SparseTensorValue):
        return [x for c in s for x in flatten(c)]
    return [s]


def pack(structure, flat):
    """``flat`` arranged as ``structure``."""
    flat = list(flat)
    it = iter(flat)

    def build(s):
        if isinstance(s, collections.abc.Mapping):
            vals = {k: build(s[k]) for k in _keys(s)}
            if type(s) is dict:
                return {k: vals[k] for k in s}
            try:
                return type(s)((k, vals[k]) for k in s)
            except TypeError:
                return {k: vals[k] for k in s}
        if isinstance(s, tuple) and not isinstance(s, SparseTensorValue):
            children = [build(c) for c in s]
            if hasattr(type(s), "_fields"):
                return type(s)(*children)
            return tuple(children)
        return next(it)

    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(f"Structure had {n} elements, but the flat sequence had {len(flat)}.")
    return build(structure)


def map_structure(fn, structure, *others):
    flats = [flatten(structure)] + [flatten(o) for o in others]
    return pack(structure, [fn(*xs) for xs in zip(*flats)])


def flatten_up_to(shallow, value):
    """The parts of ``value`` at the leaves of ``shallow``, in ``flatten`` order (TF's
    ``nest.flatten_up_to``): where ``shallow`` has a leaf, ``value`` may hold anything, e.g. a
    padded shape written as a tuple (``()`` for a scalar, ``(None,)`` for a vector)."""
    out = []

    def check(s, v, kind):
        # TF 1.15's tf.data nest words (a list is a leaf there, as here)
        if not is_seq(v):
            raise TypeError(f"If shallow structure is a sequence, input must also be a "
                            f"sequence. Input has type: {type(v)}.")
        if not isinstance(v, kind):
            raise TypeError(f"The two structures don't have the same sequence type. Input "
                            f"structure has type {type(v)}, while shallow structure has type "
                            f"{type(s)}.")
        if len(s) != len(v):
            raise ValueError(f"The two structures don't have the same sequence length. Input "
                             f"structure has length {len(v)}, while shallow structure has "
                             f"length {len(s)}.")

    def walk(s, v):
        if isinstance(s, collections.abc.Mapping):
            check(s, v, collections.abc.Mapping)
            if set(s) != set(v):
                raise ValueError(f"The two structures don't have the same keys. Input "
                                 f"structure has keys {list(v)}, while shallow structure has "
                                 f"keys {list(s)}.")
            for k in _keys(s):
                walk(s[k], v[k])
        elif is_seq(s):
            check(s, v, tuple)
            for u, w in zip(s, v):
                walk(u, w)
        else:
            out.append(v)

    walk(shallow, value)
    return out


def assert_same_structure(a, b):
    """Raises TypeError/ValueError unless ``a`` and ``b`` nest alike."""

    def check(x, y):
        if is_seq(x) != is_seq(y):
            raise TypeError(f"The two structures don't have the same nested structure: "
                            f"{a!r} and {b!r}")
        if isinstance(x, collections.abc.Mapping):
            if set(x) != set(y):
                raise ValueError(f"The two dictionaries don't have the same set of keys: "
                                 f"{sorted(map(str, x))} and {sorted(map(str, y))}")
            for k in x:
                check(x[k], y[k])
        elif isinstance(x, tuple):
            if len(x) != len(y):
                raise ValueError(f"The two structures don't have the same number of elements: "
                                 f"{a!r} and {b!r}")
            for u, v in zip(x, y):
                check(u, v)

    check(a, b)


# ------------------------------------------------------------------------------------------
# graph side
# ------------------------------------------------------------------------------------------


def to_tensors(value, name="component"):
    """``value`` with each leaf a Tensor or SparseTensor (lists become tensors)."""
    i = [0]

    def conv(x):
        n = f"{name}_{i[0]}"
        i[0] += 1
        if isinstance(x, SparseTensorValue):
            x = SparseTensor.from_value(x)
        if (isinstance(x, (SparseTensor, _tensor_array_class())) or _is_dataset(x)
                or _is_optional(x)):
            return x
        ragged, ragged_value = _ragged_classes()
        if isinstance(x, ragged):
            return x
        if isinstance(x, ragged_value):
            return ragged.from_nested_row_splits(
                ops.convert_to_tensor(x.flat_values, name=n),
                [ops.convert_to_tensor(s, name=f"{n}_splits") for s in x.nested_row_splits],
                validate=False)
        return ops.convert_to_tensor(x, name=n)

    return map_structure(conv, value)


def _is_dataset(x):
    from tideflow.ops.dataset_ops import Dataset

    return isinstance(x, Dataset)


def _is_optional(x):
    return getattr(type(x), "_is_optional", False)


def _tensor_array_class():
    from tideflow.ops.tensor_array import TensorArray

    return TensorArray


def spec_of(t):
    if _is_optional(t):  # an Optional as a component: a variant scalar
        return Spec(dtypes.variant, (), type(t), t._specs)
    if isinstance(t, _tensor_array_class()):  # a TensorArray: its list, a variant scalar
        return Spec(t.dtype, t.element_shape, type(t),
                    ta_flags=(t.dynamic_size, bool(t._infer_shape)))
    if _is_dataset(t):  # a dataset as a component (``map`` returning datasets): a variant
        from tideflow.ops.dataset_ops import Dataset

        variant = getattr(t, "_variant", None)  # a batch of datasets keeps its batch shape
        return Spec.dataset(t._specs, Dataset, () if variant is None else variant.get_shape())
    if isinstance(t, SparseTensor):
        return Spec(t.dtype, t.get_shape(), SparseTensor)
    ragged, _ = _ragged_classes()
    if isinstance(t, ragged):
        return Spec(t.dtype, t.shape, ragged, ragged_rank=t.ragged_rank)
    return Spec(t.dtype, t.get_shape())


def specs_of(tensors):
    return map_structure(spec_of, tensors)


def wire_types(specs):
    return [s.wire_dtype for s in flatten(specs)]


def wire_shapes(specs):
    return [s.wire_shape for s in flatten(specs)]


def wire_attrs(specs):
    """The ``output_types`` and ``output_shapes`` attrs of an op that passes the wire tensors
    of ``specs``."""
    return {"output_types": wire_types(specs), "output_shapes": wire_shapes(specs)}


def apply_structured(op_type, inputs, specs, name):
    """Applies the op ``op_type`` whose outputs are the wire tensors of ``specs``; returns them
    as the nest of Tensors/SparseTensors ``specs`` describes."""
    op = ops.apply_op(op_type, inputs, wire_attrs(specs), name=name)
    return from_wire(specs, op.outputs)


def to_wire(tensors):
    """The flat wire tensors of a nest of Tensors/SparseTensors (sparse ones serialized)."""
    from tideflow.ops import dataset_kernels

    ragged, _ = _ragged_classes()
    out = []
    for t in flatten(tensors):
        if isinstance(t, SparseTensor):
            out.append(dataset_kernels.serialize_sparse(t))
        elif isinstance(t, ragged):
            out.append(dataset_kernels.ragged_to_variant(t))
        elif _is_dataset(t):
            out.append(t._as_variant_tensor())
        elif _is_optional(t):
            out.append(t._variant_tensor)
        elif isinstance(t, _tensor_array_class()):
            out.append(_tensor_array_wire(t))
        else:
            out.append(t)
    return out


def _tensor_array_wire(ta):
    """A TensorArray's list as an element carries it: inside a dataset function its list; a
    TF 1.x TensorArray of the program is read into a new plain list first (as TF converts it
    to a TensorList), so the dataset's reads do not clear the program's array."""
    from tideflow.framework.func_graph import FuncGraph
    from tideflow.ops import list_ops

    if isinstance(ops.get_default_graph(), FuncGraph):
        return ta.flow
    with ops.name_scope("convert_tensor_array"):
        return list_ops.from_tensor(ta.stack(), element_shape=ta.element_shape)


def from_wire(specs, flat):
    """The nest of Tensors/SparseTensors ``specs`` describes, from flat wire tensors."""
    from tideflow.ops import dataset_kernels

    out = []
    for s, t in zip(flatten(specs), flat):
        if s.is_sparse:
            out.append(dataset_kernels.deserialize_sparse(t, s.dtype, s.shape))
        elif s.is_ragged:
            out.append(dataset_kernels.ragged_from_variant(t, s.dtype, s.shape, s.ragged_rank))
        elif s.is_optional:
            t.set_shape(())
            out.append(s.cls(t, s.element_specs))
        elif s.is_tensor_array:
            t.set_shape(())
            dynamic_size, infer_shape = s.ta_flags
            out.append(_tensor_array_class()(s.dtype, dynamic_size=dynamic_size,
                                             infer_shape=infer_shape, element_shape=s.shape,
                                             flow=t))
        elif s.is_dataset:
            from tideflow.ops.dataset_more import _VariantDataset

            out.append(_VariantDataset(t, s.element_specs))
        else:
            t.set_shape(s.shape)
            out.append(t)
    return pack(specs, out)


def _legacy_spec(s):
    """TF's legacy output_types/output_shapes of a dataset or Optional component: its
    DatasetSpec/OptionalSpec (the same object for all three legacy properties)."""
    from tideflow.ops.dataset_more import _type_spec

    return _type_spec(s)


def types_of(specs):
    return map_structure(lambda s: _legacy_spec(s) if s.element_specs is not None else s.dtype,
                         specs)


def shapes_of(specs):
    return map_structure(lambda s: _legacy_spec(s) if s.element_specs is not None else s.shape,
                         specs)


def _legacy_class(s):
    if s.is_tensor_array:
        from tideflow.ops.tensor_array import TensorArraySpec

        return TensorArraySpec(s.shape, s.dtype, *s.ta_flags)
    if s.element_specs is not None:
        return _legacy_spec(s)
    if s.is_ragged:
        # TF's legacy output_classes of a ragged component: its RaggedTensorSpec
        from tideflow.ops.ragged_value import RaggedTensorSpec

        return RaggedTensorSpec(s.shape, s.dtype, s.ragged_rank)
    return s.cls


def classes_of(specs):
    return map_structure(_legacy_class, specs)


class Structured:
    """The ``output_types``, ``output_shapes`` and ``output_classes`` of an object's nest of
    specs ``self._specs``."""

    @property
    def output_types(self):
        return types_of(self._specs)

    @property
    def output_shapes(self):
        return shapes_of(self._specs)

    @property
    def output_classes(self):
        return classes_of(self._specs)


def specs_from(types, shapes=None, classes=None):
    """Specs from public nests of dtypes, shapes (default unknown) and classes."""
    # TF converts the types first: a legacy DatasetSpec/OptionalSpec there is as_dtype's error
    types = map_structure(dtypes.as_dtype, types)
    if shapes is None:
        shapes = map_structure(lambda _: unknown_shape(), types)
    else:
        shapes = _broadcast(types, shapes, as_shape)
    if classes is None:
        classes = map_structure(lambda _: ops.Tensor, types)
    else:
        classes = _broadcast(types, classes, lambda c: c)
    return map_structure(_spec_from_class, types, shapes, classes)


def _spec_from_class(dtype, shape, cls):
    if type(cls).__name__ in ("OptionalSpec", "TensorArraySpec"):
        from tideflow.ops.dataset_more import _internal_spec

        return _internal_spec(cls)
    ragged_rank = getattr(cls, "ragged_rank", None)
    if ragged_rank is not None and not isinstance(cls, type):
        # a RaggedTensorSpec given as the class, as the legacy output_classes hold it
        return Spec(dtype, shape, _ragged_classes()[0], ragged_rank=ragged_rank)
    return Spec(dtype, shape, cls)


def _broadcast(types, other, conv):
    """``other`` (a nest like ``types``, shapes may be given as lists) converted leafwise."""
    if not is_seq(types):
        return conv(other)
    if isinstance(types, collections.abc.Mapping):
        return type(types)((k, _broadcast(types[k], other[k], conv)) for k in types) if (
            type(types) is not dict) else {k: _broadcast(types[k], other[k], conv)
                                           for k in types}
    if not isinstance(other, (tuple, list)):
        raise TypeError(f"If shallow structure is a sequence, input must also be a sequence. "
                        f"Input has type: {type(other).__name__}, expected the structure "
                        f"{types!r}")
    if len(types) != len(other):
        # tf.data's nest: a list is one leaf, so a list against a tuple is a TypeError
        err = ValueError if isinstance(other, tuple) else TypeError
        raise err(f"The two structures don't have the same sequence length. Input structure "
                  f"has length {len(other)}, while shallow structure has length "
                  f"{len(types)}.")
    kids = [_broadcast(t, o, conv) for t, o in zip(types, other)]
    return type(types)(*kids) if hasattr(type(types), "_fields") else tuple(kids)


def batched(specs, n):
    """Specs of a batch of ``n`` (None: unknown) elements."""
    def one(s):
        out = s.with_shape(TensorShape([n]).concatenate(s.shape))
        if s.is_ragged:
            out.ragged_rank += 1
        return out

    return map_structure(one, specs)


def unbatched(specs):
    dim = TensorShape([None])
    for s in flatten(specs):
        if s.shape.ndims:
            try:
                dim = dim.merge_with(s.shape[:1])
            except ValueError:
                raise ValueError("Cannot unbatch an input whose components have different "
                                 "batch sizes.") from None

    def one(s):
        if s.shape.ndims == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        shape = s.shape[1:] if s.shape.ndims is not None else unknown_shape()
        if s.is_ragged:
            # a ragged component loses its outer ragged dimension; at ragged rank 0 its values
            # are dense (of varying shape: batching them makes a ragged component again)
            out = s.with_shape(shape)
            out.ragged_rank -= 1
            return out
        return s.with_shape(shape)

    return map_structure(one, specs)


def most_specific(a, b):
    """Specs compatible with both ``a`` and ``b`` (same structure and dtypes)."""
    def one(x, y):
        if (x.dtype != y.dtype or x.cls is not y.cls or x.ragged_rank != y.ragged_rank
                or x.ta_flags != y.ta_flags):
            raise TypeError(f"Incompatible types: {x.dtype.name} and {y.dtype.name}")
        return x.with_shape(x.shape.most_specific_compatible_shape(y.shape))

    assert_same_structure(a, b)
    return map_structure(one, a, b)


# ------------------------------------------------------------------------------------------
# runtime values (NumPy)
# ------------------------------------------------------------------------------------------


class SparseValue:
    """A sparse component's value inside a pipeline: (indices, values, dense_shape) arrays."""

    __slots__ = ("dense_shape", "indices", "values")

    def __init__(self, indices, values, dense_shape):
        self.indices = np.asarray(indices, dtype=np.int64)
        self.values = np.asarray(values)
        self.dense_shape = np.asarray(dense_shape, dtype=np.int64)

    def __repr__(self):
        return f"SparseValue({self.indices!r}, {self.values!r}, {self.dense_shape!r})"


def _np_dtype(dtype):
    return object if dtype == dtypes.string else dtype.as_numpy_dtype


def stack(values, dtype, component=0, size_first=True):
    """Stacks equally shaped values of component ``component`` (dense arrays or
    SparseValues). ``size_first``: a value of another size fails with the words of TF's
    fused map-and-batch (its copy checks the size); else with BatchDataset's."""
    first = values[0]
    if type(first) is bytes:
        # scalar strings, as the file datasets produce them (a string component's elements
        # are all bytes scalars when the first one is)
        out = np.empty(len(values), dtype=object)
        try:
            out[:] = values
        except ValueError:
            pass
        else:
            return out
    if isinstance(first, SparseValue):
        return _stack_sparse(values)
    if isinstance(first, RaggedTensorValue):
        return _stack_ragged(values)
    if dtype == dtypes.variant and isinstance(first, np.ndarray) and first.ndim:
        # the rows of a ragged component of ragged rank 0: dense, joined into a ragged value
        return RaggedTensorValue(np.concatenate(values), np.concatenate(
            [[0], np.cumsum([len(v) for v in values])]).astype(np.int64))
    shape = np.shape(first)
    dt = _np_dtype(dtype)
    if dt is not object:
        # the common case in one NumPy call: equal shapes, the component's dtype already
        # (anything else, a ragged batch included, takes the checked loop below)
        try:
            out = np.array(values)
        except ValueError:
            out = None
        if out is not None and out.dtype == dt and out.shape == (len(values), *shape):
            return out
    size = int(np.prod(shape))
    for i, v in enumerate(values):
        if np.shape(v) != shape:
            if size_first and int(np.prod(np.shape(v))) != size:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot add tensor to the batch: number of elements does not "
                    f"match. Shapes are: [tensor]: {_shape_str(np.shape(v))}, [batch]: "
                    f"{_shape_str(shape)}")
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component "
                f"{component}. First element had shape {_shape_str(shape)} and element {i} had "
                f"shape {_shape_str(np.shape(v))}.")
    out = np.empty((len(values), *shape), dtype=dt)
    for i, v in enumerate(values):
        out[i, ...] = v  # (an object array's element takes a 0-d array's value, not the array)
    return out


def _stack_sparse(values):
    rank = max(len(v.dense_shape) for v in values)
    shape = np.zeros(rank, np.int64)
    idx, vals = [], []
    for i, v in enumerate(values):
        if len(v.dense_shape) != rank:
            raise errors.InvalidArgumentError(None, None, "Cannot batch SparseTensors of "
                                              "different ranks.")
        shape = np.maximum(shape, v.dense_shape)
        n = v.indices.shape[0]
        idx.append(np.concatenate([np.full((n, 1), i, np.int64),
                                   v.indices.reshape(n, rank)], axis=1))
        vals.append(v.values)
    indices = np.concatenate(idx) if idx else np.zeros((0, rank + 1), np.int64)
    return SparseValue(indices, np.concatenate(vals), np.concatenate([[len(values)], shape]))


def _stack_ragged(values):
    """Ragged values of one ragged rank as one value with a ragged dimension more."""
    rank = values[0].ragged_rank
    outer = np.zeros(len(values) + 1, np.int64)
    outer[1:] = np.cumsum([len(v.row_splits) - 1 for v in values])
    levels = [[] for _ in range(rank)]
    offsets = np.zeros(rank, np.int64)
    flat = []
    for v in values:
        if v.ragged_rank != rank:
            raise errors.InvalidArgumentError(None, None, "Cannot batch RaggedTensors of "
                                              "different ragged ranks.")
        for i, s in enumerate(v.nested_row_splits):
            s = np.asarray(s, np.int64)
            levels[i].append((s[1:] if levels[i] else s) - s[0] + offsets[i])
            offsets[i] += s[-1] - s[0]
        flat.append(v.flat_values)
    out = np.concatenate(flat)
    for s in reversed(levels):
        out = RaggedTensorValue(out, np.concatenate(s))
    return RaggedTensorValue(out, outer)


def _ragged_row(value, i):
    """Row ``i`` of a ragged value: an array at ragged rank 1, a ragged value above it."""
    lo, hi = int(value.row_splits[i]), int(value.row_splits[i + 1])
    inner = value.values
    if not isinstance(inner, RaggedTensorValue):
        return inner[lo:hi]
    splits = inner.row_splits[lo:hi + 1]
    return _ragged_slice(inner, splits)


def _ragged_slice(value, splits):
    """The ragged value whose row splits are ``splits`` (a window of ``value``'s rows),
    rebased to start at 0."""
    lo, hi = int(splits[0]), int(splits[-1])
    inner = value.values
    if isinstance(inner, RaggedTensorValue):
        inner = _ragged_slice(inner, inner.row_splits[lo:hi + 1])
    else:
        inner = inner[lo:hi]
    return RaggedTensorValue(inner, np.asarray(splits, np.int64) - lo)


def unstack(value):
    """The rows of a component value (a dense array, a SparseValue or a ragged value)."""
    if isinstance(value, RaggedTensorValue):
        return [_ragged_row(value, i) for i in range(len(value.row_splits) - 1)]
    if isinstance(value, SparseValue):
        n = int(value.dense_shape[0])
        rows = value.indices[:, 0]
        out = []
        for i in range(n):
            m = rows == i
            out.append(SparseValue(value.indices[m, 1:], value.values[m], value.dense_shape[1:]))
        return out
    return list(value)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def check_shape(value, shape, what):
    """Raises InvalidArgumentError unless the array ``value`` fits the static ``shape``."""
    if shape.ndims is None or isinstance(value, SparseValue):
        return
    vs = np.shape(value)
    if len(vs) != shape.ndims or any(d is not None and d != v
                                     for d, v in zip(shape.as_list(), vs)):
        raise errors.InvalidArgumentError(
            None, None, f"{what} has shape {_shape_str(vs)}, which is incompatible with the "
            f"expected shape {shape}.")
