"""More ``tf.data`` stages: ``scan``, ``take_while``, ``unique``, ``group_by_window``,
``group_by_reducer``, directed interleaves (``sample_from_datasets``/``choose_from_datasets``),
``RandomDataset``, ``dense_to_sparse_batch``, ``assert_cardinality``, ``cardinality``,
``CsvDataset``, ``TFRecordWriter`` and ``Optional`` values (``get_next_as_optional``).

As for the other dataset ops, each op's kernel returns a ``DatasetValue`` (a pipeline stage)
whose ``iterate`` yields flat elements; function attrs name bodies traced into the graph.
"""

import csv
import io

import numpy as np

from tideflow.framework import dtypes, errors, func_graph, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape, scalar
from tideflow.ops import dataset_readers
from tideflow.ops import dataset_structure as ds
from tideflow.ops import dataset_values as dv
from tideflow.ops.dataset_kernels import _FN, _OUT, _declare, _int, _str
from tideflow.ops.dataset_ops import (
    _ERROR_NAME_IDS,
    Dataset,
    StructuredFunction,
    _fn_name,
    _i64,
    _OpDataset,
    _tf_class_name,
    unoptimized_variant,
)

INFINITE = -1
UNKNOWN = -2


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


# ------------------------------------------------------------------------------------------
# cardinality
# ------------------------------------------------------------------------------------------


def cardinality_of(value):
    """The number of elements of a dataset value: a count, INFINITE (-1) or UNKNOWN (-2)."""
    fn = getattr(value, "cardinality", None)
    if fn is not None:
        return fn()
    t = type(value)
    if t is dv.TensorSlices:
        return value.n
    if t is dv.Tensors:
        return 1
    if t is dv.Range:
        return len(range(*value.args))
    if t is dv.Zip:
        cs = [cardinality_of(d) for d in value.inputs]
        if UNKNOWN in cs:  # (as TF: an input of unknown length makes the zip's unknown)
            return UNKNOWN
        finite = [c for c in cs if c >= 0]
        return min(finite) if finite else INFINITE
    if t is dv.Concatenate:
        a, b = cardinality_of(value.a), cardinality_of(value.b)
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b
    if t in (dv.Map, dv.Shuffle, dv.Cache, dv.Prefetch):
        return cardinality_of(value.input)
    if t in (dv.Batch, dv.PaddedBatch):
        c = cardinality_of(value.input)
        if c < 0:
            return c
        return c // value.n if value.drop else -(-c // value.n)
    if t is dv.Repeat:
        c = cardinality_of(value.input)
        if c == 0:
            return 0
        if value.count < 0:
            return INFINITE if c != UNKNOWN else UNKNOWN
        return c * value.count if c >= 0 else c
    if t is dv.Take:
        c = cardinality_of(value.input)
        if value.count < 0:
            return c
        if c == INFINITE:
            return value.count
        return UNKNOWN if c == UNKNOWN else min(c, value.count)
    if t is dv.Skip:
        c = cardinality_of(value.input)
        if c < 0:
            return c
        return 0 if value.count < 0 else max(0, c - value.count)
    if t is dv.Shard:
        c = cardinality_of(value.input)
        if c < 0:
            return c
        return c // value.n + (1 if value.i < c % value.n else 0)
    return UNKNOWN


op_registry.declare(
    "DatasetCardinality",
    inputs=["input_dataset: variant"],
    outputs=["cardinality: int64"],
    shape=lambda op: [scalar()],
    kernel=lambda input_dataset: np.int64(cardinality_of(input_dataset)),
    differentiable=False,
)


def cardinality(dataset):
    """An int64 scalar tensor: the number of elements of ``dataset``, or
    ``INFINITE_CARDINALITY`` (-1), or ``UNKNOWN_CARDINALITY`` (-2) when it cannot tell without
    iterating (after ``filter``, for instance)."""
    return ops.apply_op("DatasetCardinality", [dataset._as_variant_tensor()],
                        name="DatasetCardinality").outputs[0]


class _AssertCardinality(dv.DatasetValue):
    def __init__(self, input_, n):
        self.input, self.n = input_, int(n)

    def cardinality(self):
        return self.n

    @dv.resumable
    def iterate(self, rt):
        count = 0
        for elem in dv._tap(self.input.iterate(rt)):
            if type(elem) is dv._Fail:
                yield elem
                continue
            count += 1
            if self.n != INFINITE and count > self.n:
                raise _invalid(f"Input dataset was expected to contain {self.n} elements but "
                               f"contained at least {count} elements.")
            yield elem
        if self.n == INFINITE:
            raise _invalid(f"Input dataset was expected to contain an infinite number of "
                           f"elements but contained only {count} elements.")
        if count < self.n:
            raise _invalid(f"Input dataset was expected to contain {self.n} elements but "
                           f"contained only {count} elements.")


_declare("AssertCardinalityDataset", ["input_dataset: variant", "cardinality: int64"],
         lambda ctx, d, n: _AssertCardinality(d, _int(n)), _OUT)


def assert_cardinality(expected_cardinality):
    """A transformation failing (InvalidArgumentError) when the dataset's number of elements
    is not ``expected_cardinality``; ``cardinality()`` of the result is that number."""
    def apply(dataset):
        return _OpDataset("AssertCardinalityDataset",
                          [dataset, _i64(expected_cardinality, "cardinality")], dataset._specs)
    return apply


# ------------------------------------------------------------------------------------------
# scan, take_while, unique
# ------------------------------------------------------------------------------------------


class _Scan(dv.DatasetValue):
    def __init__(self, input_, fn, state, captured, n_state, preserve_cardinality):
        self.input, self.fn, self.state = input_, fn, list(state)
        self.captured, self.n_state = list(captured), n_state
        self.preserve = preserve_cardinality

    def cardinality(self):
        return cardinality_of(self.input)

    @dv.resumable
    def iterate(self, rt):
        state = list(self.state)
        for elem in dv._tap(self.input.iterate(rt)):
            if type(elem) is dv._Fail:  # an input error, raised in its turn
                yield elem
                continue
            try:
                out = self.fn(*state, *elem, *self.captured)
            except errors.OutOfRangeError as e:
                if not self.preserve:
                    return  # (the function's end of sequence ends the dataset)
                yield dv._Fail(errors.InvalidArgumentError(
                    None, None, f"Function invocation produced OutOfRangeError: {e.message}"))
                continue
            except errors.OpError as e:
                yield dv._Fail(e.with_traceback(None))
                continue
            state, result = list(out[:self.n_state]), list(out[self.n_state:])
            yield result


_declare("ScanDataset", ["input_dataset: variant", "initial_state: Tstate",
                         "other_arguments: Targuments"],
         lambda ctx, fn, d, state, args: _Scan(d, fn, state, args,
                                               len(ctx.op._attrs["Tstate"]),
                                               ctx.op._attrs["preserve_cardinality"]),
         ["f: func", "Tstate: list(type) >= 1", *_FN, "preserve_cardinality: bool = false",
          "use_default_device: bool = true"], fn_attrs=["f"], newer_attrs=["use_default_device"])


def _relaxed(a, b):
    return ds.map_structure(
        lambda x, y: x.with_shape(x.shape.most_specific_compatible_shape(y.shape)),
        a, b)


def scan(initial_state, scan_func):
    """A transformation carrying a state across elements: ``scan_func(state, element)``
    returns ``(new_state, output_element)``; the outputs make the new dataset."""
    def apply(dataset):
        with ops.name_scope("normalize_element"):  # TF 1.15's names for them
            state = ds.to_tensors(initial_state)
        state_specs = ds.specs_of(state)
        for _ in range(3):
            fn = StructuredFunction(scan_func, "scan", (state_specs, dataset._specs),
                                    tf_name="tf_data_experimental_scan")
            out = fn.output_specs
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError("The scan function must return a pair comprising the new state "
                                "and the output value.")
            new_state, out_specs = out
            try:
                ds.assert_same_structure(state_specs, new_state)
            except (TypeError, ValueError) as e:
                raise TypeError(f"The element structure for the new state must match the "
                                f"initial state. Expected {ds.types_of(state_specs)}; got "
                                f"{ds.types_of(new_state)}.") from e
            for a, b in zip(ds.flatten(state_specs), ds.flatten(new_state)):
                if (a.cls is not b.cls or a.ragged_rank != b.ragged_rank
                        or a.ta_flags != b.ta_flags):
                    raise TypeError(f"The element classes for the new state must match the "
                                    f"initial state. Expected {ds.classes_of(state_specs)}; "
                                    f"got {ds.classes_of(new_state)}.")
                if a.dtype != b.dtype:
                    raise TypeError(f"The element types for the new state must match the "
                                    f"initial state. Expected {ds.types_of(state_specs)}; "
                                    f"got {ds.types_of(new_state)}.")
            relaxed = _relaxed(state_specs, new_state)
            if [s.shape.as_list() if s.shape.ndims is not None else None
                    for s in ds.flatten(relaxed)] == [
                    s.shape.as_list() if s.shape.ndims is not None else None
                    for s in ds.flatten(state_specs)]:
                break
            state_specs = relaxed  # the state's shape changes: trace again with it relaxed
        # (a sparse or ragged state travels as its variant, as the elements do; TF's scan keeps
        # the cardinality: a function's end of sequence is an error)
        attrs = {"f": fn.name, "Tstate": ds.wire_types(state_specs),
                 "Targuments": [t.dtype.base_dtype for t in fn.captured],
                 "preserve_cardinality": True}
        return _OpDataset("ScanDataset", [dataset, ds.to_wire(state), fn.captured], out_specs,
                          attrs, fn)
    return apply


def _reduce_kernel(dataset, state, args, *, ctx, step):
    from tideflow.ops.dataset_kernels import compiled

    fn = compiled(ctx, "f")
    rt = dv.IterRuntime(getattr(ctx.session, "_cancelled", None))
    rt.step = step
    try:
        state = list(state)
        for elem in dataset.iterate(rt):
            if rt.should_stop():  # a closed session ends an endless reduce
                raise errors.CancelledError(None, None, "Reduce was cancelled")
            state = list(fn(*state, *elem, *args))
    finally:
        rt.step = None
        rt.close()
    return state


op_registry.declare(
    "ReduceDataset",
    inputs=["input_dataset: variant", "initial_state: Tstate", "other_arguments: Targuments"],
    outputs=["components: output_types"],
    attrs=["f: func", "Tstate: list(type) >= 1", *_FN,
           "use_inter_op_parallelism: bool = true"],
    shape=lambda op: list(op._attrs["output_shapes"]),
    kernel=_reduce_kernel,
    differentiable=False,
    stateful=True,
)


def reduce(dataset, initial_state, reduce_func):
    """``dataset.reduce(initial_state, reduce_func)``: ``reduce_func(state, element)`` folded
    over the elements from ``initial_state``; the final state (its tensors)."""
    with ops.name_scope("initial_state"):
        state = ds.to_tensors(initial_state, name="initial_state")
    state_specs = ds.specs_of(state)
    if any(s.is_dataset for s in ds.flatten(state_specs)):
        raise TypeError("reduce: Dataset states are not supported by tideflow")
    for _ in range(3):
        fn = StructuredFunction(reduce_func, "reduce", (state_specs, dataset._specs),
                                tf_name="reduce")
        new_state = fn.output_specs
        try:
            ds.assert_same_structure(state_specs, new_state)
        except (TypeError, ValueError) as e:
            raise TypeError(f"The element structure for the new state must match the initial "
                            f"state. Expected {ds.types_of(state_specs)}; got "
                            f"{ds.types_of(new_state)}.") from e
        want = [(s.dtype, s.cls) for s in ds.flatten(state_specs)]
        got = [(s.dtype, s.cls) for s in ds.flatten(new_state)]
        if want != got:
            raise TypeError(f"The element types for the new state must match the initial state. "
                            f"Expected {ds.types_of(state_specs)}; got {ds.types_of(new_state)}.")
        relaxed = _relaxed(state_specs, new_state)
        if [repr(s.shape) for s in ds.flatten(relaxed)] == [
                repr(s.shape) for s in ds.flatten(state_specs)]:
            break
        state_specs = relaxed  # the state's shape changes: trace again with it relaxed
    fn.register_in(ops.get_default_graph())
    attrs = {"f": fn.name, "Tstate": ds.wire_types(state_specs),
             "Targuments": [t.dtype.base_dtype for t in fn.captured], **ds.wire_attrs(state_specs)}
    op = ops.apply_op("ReduceDataset", [unoptimized_variant(dataset), ds.to_wire(state),
                                        fn.captured], attrs, name="ReduceDataset")
    fn.add_to(op)
    return ds.from_wire(state_specs, op.outputs)


class _TakeWhile(dv.DatasetValue):
    def __init__(self, input_, fn, captured):
        self.input, self.fn, self.captured = input_, fn, list(captured)

    @dv.resumable
    def iterate(self, rt):
        for elem in dv._tap(self.input.iterate(rt)):
            if type(elem) is dv._Fail:
                yield elem
                continue
            try:
                (keep,) = self.fn(*elem, *self.captured)
            except errors.OpError as e:
                yield dv._Fail(e.with_traceback(None))
                continue
            if np.ndim(keep) != 0:
                raise _invalid("`predicate` must return a scalar boolean tensor.")
            if not keep:
                return
            yield elem


_declare("TakeWhileDataset", ["input_dataset: variant", "other_arguments: Targuments"],
         lambda ctx, fn, d, args: _TakeWhile(d, fn, args), ["predicate: func", *_FN],
         fn_attrs=["predicate"])


def take_while(predicate):
    """A transformation ending the dataset at the first element where ``predicate`` is False."""
    def apply(dataset):
        fn = StructuredFunction(predicate, "take_while", dataset._specs,
                                tf_name="tf_data_experimental_take_while")
        out = ds.flatten(fn.output_specs)
        if (len(out) != 1 or ds.is_seq(fn.output_specs) or out[0].dtype != dtypes.bool
                or not out[0].shape.is_compatible_with([])):
            raise ValueError("`predicate` must return a scalar boolean tensor.")
        attrs = {"predicate": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured]}
        return _OpDataset("TakeWhileDataset", [dataset, fn.captured], dataset._specs, attrs, fn)
    return apply


class _Unique(dv.DatasetValue):
    def __init__(self, input_):
        self.input = input_

    @dv.resumable
    def iterate(self, rt):
        seen = set()
        for elem in dv._tap(self.input.iterate(rt)):
            if type(elem) is dv._Fail:
                yield elem
                continue
            v = np.asarray(elem[0])
            key = v.tobytes() if v.dtype != object else repr(v.tolist())
            key = (v.shape, key)
            if key not in seen:
                seen.add(key)
                yield elem


_declare("UniqueDataset", ["input_dataset: variant"], lambda ctx, d: _Unique(d), _OUT)


def unique():
    """A transformation keeping the first occurrence of each element (elements: one int32,
    int64 or string tensor)."""
    def apply(dataset):
        flat = ds.flatten(dataset._specs)
        if len(flat) != 1 or flat[0].is_sparse or flat[0].is_ragged or ds.is_seq(dataset._specs):
            raise TypeError("Dataset.unique() only supports datasets with 1 component.")
        if flat[0].dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError(f"Dataset.unique() only supports datasets with 1 component of type "
                            f"tf.int32, tf.int64 or tf.string, got {flat[0].dtype.name}.")
        return _OpDataset("UniqueDataset", [dataset], dataset._specs)
    return apply


# ------------------------------------------------------------------------------------------
# group_by_window, group_by_reducer
# ------------------------------------------------------------------------------------------


class _ListValue(dv.DatasetValue):
    """A dataset value over a Python list of flat elements (a window)."""

    def __init__(self, elements):
        self.elements = list(elements)

    def cardinality(self):
        return len(self.elements)

    def iterate(self, rt):
        return iter(list(self.elements))


class _VariantDataset(Dataset):
    """A Dataset whose variant tensor already exists (a function's dataset argument)."""

    def __init__(self, variant, specs):
        self._variant = variant
        self._specs = specs

    def _as_variant_tensor(self):
        return self._variant


def _check_window(size, shift, stride):
    # TF 1.15's words for Dataset.window and sliding_window_batch alike
    for what, v in (("size", size), ("shift", shift), ("stride", stride)):
        if v <= 0:
            raise _invalid(f"Window {what} must be greater than zero.")


class _Window(dv.DatasetValue):
    """``Dataset.window``: each element a tuple of one-component window datasets."""

    def __init__(self, input_, size, shift, stride, drop):
        _check_window(size, shift, stride)
        self.input, self.size, self.shift, self.stride, self.drop = (
            input_, size, shift, stride, drop)

    def cardinality(self):
        n = cardinality_of(self.input)
        if n < 0:
            return n
        if self.drop:  # the windows whose last element is in the input
            rest = n - ((self.size - 1) * self.stride + 1)
            return 0 if rest < 0 else rest // self.shift + 1
        return -(-n // self.shift)

    @dv.resumable
    def iterate(self, rt):
        span = (self.size - 1) * self.stride + 1  # input elements one full window covers
        buf, ended = [], False  # buf: the input from the current window's start on
        src = self.input.iterate(rt)
        while True:
            while not ended and len(buf) < span:
                try:
                    buf.append(next(src))
                except StopIteration:
                    ended = True
                except errors.OpError as e:  # as TF: an error counts only if in a window
                    buf.append(e)
            if not buf:
                return
            window = buf[:span:self.stride]
            if len(window) < self.size and self.drop:
                return
            fail = next((e for e in window if isinstance(e, errors.OpError)), None)
            if fail is not None:  # raised in its turn; the windows after it still come
                yield dv._Fail(fail.with_traceback(None))
            else:
                yield tuple(_ListValue([(e[c],) for e in window])
                            for c in range(len(window[0])))
            if self.shift <= len(buf):
                del buf[:self.shift]
            else:  # the next window starts beyond the buffered input
                for _ in range(self.shift - len(buf)):
                    try:
                        if ended or next(src, None) is None:
                            ended = True
                            break
                    except errors.OpError:  # a skipped element's error is not seen
                        pass
                buf = []


_declare("WindowDataset", ["input_dataset: variant", "size: int64", "shift: int64",
                           "stride: int64", "drop_remainder: bool"],
         lambda ctx, d, size, shift, stride, drop: _Window(d, _int(size), _int(shift),
                                                           _int(stride), bool(drop)), _OUT)


def window(dataset, size, shift=None, stride=1, drop_remainder=False):
    """``dataset.window(size, shift, stride, drop_remainder)``."""
    elem = dataset._specs
    specs = ds.map_structure(lambda s: ds.Spec.dataset(s, Dataset), elem)
    ins = [dataset, _i64(size, "size"), _i64(size if shift is None else shift, "shift"),
           _i64(stride, "stride"),
           ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")]
    return _OpDataset("WindowDataset", ins, specs)


class _Slide(dv.DatasetValue):
    """tf.contrib.data's SlidingWindowDataset: each element a batch of ``size`` input
    elements (every ``stride``-th), one starting every ``shift`` elements; the windows that
    would run past the input's end are dropped."""

    def __init__(self, input_, size, shift, stride):
        _check_window(size, shift, stride)
        self.input, self.size, self.shift, self.stride = input_, size, shift, stride

    @dv.resumable
    def iterate(self, rt):
        span = (self.size - 1) * self.stride + 1
        buf = []
        src = dv._tap(self.input.iterate(rt))
        skip = 0  # input elements to pass over before the next window starts
        for elem in src:
            if type(elem) is dv._Fail:
                yield elem
                continue
            if skip:
                skip -= 1
                continue
            buf.append(elem)
            if len(buf) < span:
                continue
            window = buf[::self.stride]
            yield [np.stack([e[c] for e in window]) for c in range(len(window[0]))]
            if self.shift < len(buf):
                del buf[:self.shift]
            else:
                skip, buf = self.shift - len(buf), []


_declare("SlidingWindowDataset", ["input_dataset: variant", "window_size: int64",
                                  "window_shift: int64", "window_stride: int64"],
         lambda ctx, d, size, shift, stride: _Slide(d, _int(size), _int(shift), _int(stride)),
         _OUT)


def sliding_window_batch(window_size, stride=None, window_shift=None, window_stride=1):
    """``tf.contrib.data.sliding_window_batch``: batches of ``window_size`` elements (every
    ``window_stride``-th), one starting every ``window_shift`` (``stride``, default 1)."""
    if stride is None and window_shift is None:
        window_shift = 1
    elif stride is not None and window_shift is None:
        window_shift = stride
    elif stride is not None and window_shift is not None:
        raise ValueError("Cannot specify both `stride` and `window_shift`")

    def apply(dataset):
        # TF 1.15's constant names (the size's is "window_stride" there too)
        size = _i64(window_size, "window_stride")
        stride_t = _i64(window_stride, "window_stride")
        shift = _i64(window_shift, "window_shift")
        ins = [dataset, size, shift, stride_t]
        return _OpDataset("SlidingWindowDataset", ins, ds.batched(dataset._specs, None))

    return apply


def assert_element_shape(expected_shapes):
    """``tf.contrib.data.assert_element_shape``: each component checked (at run time) and
    given the static shape ``expected_shapes`` (merged with its own)."""
    from tideflow.contrib_framework_extra import with_shape

    def apply(dataset):
        # as TF 1.15, the shapes are merged first: an incompatible one fails here
        shapes = dataset.output_shapes
        for have, want in zip(ds.flatten(shapes), ds.flatten_up_to(shapes, expected_shapes)):
            have.merge_with(want)

        def check(*elements):
            elements = elements[0] if len(elements) == 1 else elements
            flat = ds.flatten(elements)
            shapes = ds.flatten_up_to(elements, expected_shapes)
            return ds.pack(elements, [with_shape(s, t) if TensorShape(s).ndims is not None
                                      else t for s, t in zip(shapes, flat)])

        return dataset.map(check)

    return apply


def _scalar_key(v, what):
    a = np.asarray(v)
    if a.shape != () or a.dtype != np.int64:
        raise _invalid(f"{what}: key_func must return a single tf.int64 scalar, got "
                       f"{a.dtype} of shape {list(a.shape)}")
    return int(a)


class _GroupByWindow(dv.DatasetValue):
    def __init__(self, input_, key_fn, reduce_fn, size_fn, kargs, rargs, wargs):
        self.input, self.key_fn, self.reduce_fn, self.size_fn = input_, key_fn, reduce_fn, size_fn
        self.kargs, self.rargs, self.wargs = list(kargs), list(rargs), list(wargs)

    def _flush(self, groups, key, rt):
        """The elements of ``reduce_fn``'s dataset of group ``key``, which goes only once that
        is made: a group whose reduce_fn fails stays, as TF 1.15's (GroupByWindow erases
        it after), so its window never fills again and it fails again at each later call
        after the input's end (where TF flushes the groups by key, smallest first)."""
        try:
            (d,) = self.reduce_fn(np.int64(key), _ListValue(groups[key]), *self.rargs)
        except errors.OpError as e:
            yield dv._Fail(e.with_traceback(None))
            return
        del groups[key]
        yield from dv._tap(d.iterate(rt))

    @dv.resumable
    def iterate(self, rt):
        groups, sizes = {}, {}
        for elem in dv._tap(self.input.iterate(rt)):
            if type(elem) is dv._Fail:
                yield elem
                continue
            try:
                key = _scalar_key(self.key_fn(*elem, *self.kargs)[0], "group_by_window")
            except errors.OpError as e:
                yield dv._Fail(e.with_traceback(None))
                continue
            if key not in sizes:
                (size,) = self.size_fn(np.int64(key), *self.wargs)
                size = int(np.asarray(size))
                if size < 1:
                    raise _invalid(f"Window size must be greater than zero, but got {size}.")
                sizes[key] = size
            window = groups.setdefault(key, [])
            window.append(elem)
            if len(window) == sizes[key]:
                yield from self._flush(groups, key, rt)
        while groups:  # the partial windows, by key (TF keeps them in a map)
            yield from self._flush(groups, min(groups), rt)


_declare("GroupByWindowDataset",
         ["input_dataset: variant", "key_func_other_arguments: Tkey_func_other_arguments",
          "reduce_func_other_arguments: Treduce_func_other_arguments",
          "window_size_func_other_arguments: Twindow_size_func_other_arguments"],
         lambda ctx, kf, rf, wf, d, ka, ra, wa: _GroupByWindow(d, kf, rf, wf, ka, ra, wa),
         ["key_func: func", "reduce_func: func", "window_size_func: func",
          "Tkey_func_other_arguments: list(type) >= 0",
          "Treduce_func_other_arguments: list(type) >= 0",
          "Twindow_size_func_other_arguments: list(type) >= 0", *_OUT],
         fn_attrs=["key_func", "reduce_func", "window_size_func"])


def _trace_window_reduce(reduce_func, elem_specs):
    graph = ops.get_default_graph()
    name = func_graph.unique_function_name(
        graph, f"Dataset_group_by_window_reduce_{_fn_name(reduce_func)}")
    holder = {}

    def body(key, window):
        ret = reduce_func(key, _VariantDataset(window, elem_specs))
        if not isinstance(ret, Dataset):
            raise TypeError("`reduce_func` must return a `Dataset` object.")
        holder["specs"] = ret._specs
        return [ret._as_variant_tensor()]

    n_outer, first_id = len(graph._ops), graph._next_id
    fg = func_graph.trace(body, [(dtypes.int64, TensorShape([])),
                                 (dtypes.variant, TensorShape([]))], name,
                          arg_names=["args_0", "args_1"], private_collections=True)
    # (ids of the function's own ops are given back: TF's outer graph does not count them)
    func_graph.give_back_ids(graph, first_id, n_outer)
    # (the name TF 1.15's errors give it, see StructuredFunction)
    fg._tf_error_name = (f"__inference_tf_data_experimental_group_by_window_"
                         f"{getattr(reduce_func, '__name__', type(reduce_func).__name__)}_"
                         f"{next(_ERROR_NAME_IDS)}")
    func_graph.add_function(graph, fg, tf_function=True)
    return name, fg, [outer for outer, _ in fg.captures], holder["specs"]


class _MultiFn:
    """Adds the control captures of several traced functions to an op."""

    def __init__(self, fgs):
        self.fgs = fgs

    def add_to(self, op):
        from tideflow.ops.cond import add_control_captures

        add_control_captures(op, self.fgs)


def _check_int64_scalar(fn, what):
    out = ds.flatten(fn.output_specs)
    if (len(out) != 1 or ds.is_seq(fn.output_specs) or out[0].dtype != dtypes.int64
            or not out[0].shape.is_compatible_with([])):
        raise ValueError(f"`{what}` must return a single tf.int64 scalar tensor.")


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """A transformation grouping elements by ``key_func(element)`` (an int64 scalar) into
    windows of ``window_size`` (or ``window_size_func(key)``) elements, each turned into a
    dataset by ``reduce_func(key, window_dataset)``; partial windows are reduced at the end, in
    ascending key order."""
    if (window_size is None) == (window_size_func is None):  # (TF 1.15's words for both)
        raise ValueError("Must pass either window_size or window_size_func.")

    def as_int64(fn, name):
        # as TF's wrappers: a Python number is an int64; a tensor of another dtype is TF's
        # ValueError ("Tensor conversion requested dtype int64 for Tensor with dtype int32")
        def wrapped(*args):
            return ops.convert_to_tensor(fn(*args), dtype=dtypes.int64, name=name)

        return wrapped

    def apply(dataset):
        kf = StructuredFunction(as_int64(key_func, "key"), "group_by_window_key",
                                dataset._specs)
        _check_int64_scalar(kf, "key_func")
        if window_size_func is not None:
            size_func = as_int64(window_size_func, "window_size")
        else:
            def size_func(_):
                return ops.convert_to_tensor(window_size, dtype=dtypes.int64,
                                             name="window_size")
        wf = StructuredFunction(size_func, "group_by_window_size", ds.Spec(dtypes.int64, []))
        _check_int64_scalar(wf, "window_size_func")
        rname, rfg, rcaptured, out_specs = _trace_window_reduce(reduce_func, dataset._specs)
        attrs = {"key_func": kf.name, "reduce_func": rname, "window_size_func": wf.name,
                 "Tkey_func_other_arguments": [t.dtype.base_dtype for t in kf.captured],
                 "Treduce_func_other_arguments": [t.dtype.base_dtype for t in rcaptured],
                 "Twindow_size_func_other_arguments": [t.dtype.base_dtype for t in wf.captured]}
        return _OpDataset("GroupByWindowDataset",
                          [dataset, kf.captured, rcaptured, wf.captured], out_specs, attrs,
                          _MultiFn([kf.fg, rfg, wf.fg]))
    return apply


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """A transformation batching elements of similar length: an element of length ``L`` goes
    to the bucket ``i`` with ``boundaries[i-1] <= L < boundaries[i]``, batched by
    ``bucket_batch_sizes[i]`` and padded (to the batch's longest, or to the bucket boundary)."""
    if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
    from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops

    # as TF 1.15: the batch sizes are a constant of the graph (made now, captured by the
    # window functions)
    with ops.name_scope("bucket_by_seq_length"):
        batch_sizes = ops.convert_to_tensor(np.asarray(bucket_batch_sizes, np.int64))
    lows = np.asarray([np.iinfo(np.int32).min] + list(bucket_boundaries), np.int64)
    highs = np.asarray(list(bucket_boundaries) + [np.iinfo(np.int32).max], np.int64)

    def element_to_bucket_id(*args):
        length = cast_ops.cast(element_length_func(*args), dtypes.int64)
        inside = math_ops.logical_and(math_ops.less_equal(lows, length),
                                      math_ops.less(length, highs))
        return reduction_ops.argmin(cast_ops.cast(math_ops.logical_not(inside), dtypes.int32),
                                    0, output_type=dtypes.int64)

    def window_size_fn(bucket_id):
        from tideflow.ops.gather_ops import gather

        return gather(batch_sizes, bucket_id)

    def batching_fn(bucket_id, grouped):
        from tideflow.ops.gather_ops import gather

        batch_size = window_size_fn(bucket_id)
        if no_padding:
            return grouped.batch(batch_size, drop_remainder=drop_remainder)
        # as TF 1.15: the padded shapes are the given ones, else the elements' own; with
        # pad_to_bucket_boundary each unknown dimension of them is the bucket's boundary - 1
        base = padded_shapes if padded_shapes is not None else ds.map_structure(
            lambda s: s.shape, grouped._specs)
        if not pad_to_bucket_boundary:
            return grouped.padded_batch(batch_size, base, padding_values,
                                        drop_remainder=drop_remainder)
        if any(b < 1 for b in bucket_boundaries):
            raise ValueError("pad_to_bucket_boundary=True needs bucket_boundaries >= 1")
        from tideflow.ops import check_ops

        # an element as long as the last boundary or longer has no bucket to pad to (the
        # bound is a constant of the function's own, "Const", as TF names it)
        check = check_ops.assert_less(
            bucket_id, ops.convert_to_tensor(np.int64(len(bucket_batch_sizes) - 1)),
            message="When pad_to_bucket_boundary=True, elements must have length < "
                    "max(bucket_boundaries).")
        with ops.control_dependencies([check]):
            filler = gather(ops.convert_to_tensor(np.asarray(
                list(bucket_boundaries) + [1], np.int64)), bucket_id) - 1

        def fill(shape):
            dims = TensorShape(shape).as_list()
            if None not in dims:
                return TensorShape(dims)
            return array_ops.stack([filler if d is None else np.int64(d) for d in dims])

        shapes = ds.map_structure(fill, base)
        return grouped.padded_batch(batch_size, shapes, padding_values,
                                    drop_remainder=drop_remainder)

    return group_by_window(element_to_bucket_id, batching_fn, window_size_func=window_size_fn)


class Reducer:
    """``tf.data.experimental.Reducer``: ``init_func(key) -> state``, ``reduce_func(state,
    element) -> state``, ``finalize_func(state) -> output`` for ``group_by_reducer``."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func = init_func
        self._reduce_func = reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


class _GroupByReducer(dv.DatasetValue):
    def __init__(self, input_, fns, args, n_state):
        self.input, self.fns, self.args, self.n_state = input_, fns, args, n_state

    def iterate(self, rt):
        key_fn, init_fn, reduce_fn, final_fn = self.fns
        ka, ia, ra, fa = self.args
        states = {}
        for elem in self.input.iterate(rt):
            key = _scalar_key(key_fn(*elem, *ka)[0], "group_by_reducer")
            if key not in states:
                states[key] = list(init_fn(np.int64(key), *ia))
            states[key] = list(reduce_fn(*states[key], *elem, *ra))
        for key in sorted(states):  # by key, as TF's map of states
            yield list(final_fn(*states[key], *fa))


_declare("GroupByReducerDataset",
         ["input_dataset: variant", "key_func_other_arguments: Tkey_func_other_arguments",
          "init_func_other_arguments: Tinit_func_other_arguments",
          "reduce_func_other_arguments: Treduce_func_other_arguments",
          "finalize_func_other_arguments: Tfinalize_func_other_arguments"],
         lambda ctx, kf, inf, rf, ff, d, ka, ia, ra, fa: _GroupByReducer(
             d, (kf, inf, rf, ff), (list(ka), list(ia), list(ra), list(fa)), 0),
         ["key_func: func", "init_func: func", "reduce_func: func", "finalize_func: func",
          "Tkey_func_other_arguments: list(type) >= 0",
          "Tinit_func_other_arguments: list(type) >= 0",
          "Treduce_func_other_arguments: list(type) >= 0",
          "Tfinalize_func_other_arguments: list(type) >= 0", *_OUT],
         fn_attrs=["key_func", "init_func", "reduce_func", "finalize_func"])


_GBR = "tf_data_experimental_group_by_reducer"  # (TF's name of its functions, in errors)


def group_by_reducer(key_func, reducer):
    """A transformation reducing the elements of each key group with ``reducer``: one output
    element per key, in ascending key order, once the input is exhausted."""
    def apply(dataset):
        kf = StructuredFunction(key_func, "group_by_reducer_key", dataset._specs,
                                tf_name=_GBR)
        out = ds.flatten(kf.output_specs)
        if (len(out) != 1 or ds.is_seq(kf.output_specs) or out[0].dtype != dtypes.int64
                or not out[0].shape.is_compatible_with([])):
            raise ValueError(f"`key_func` must return a single tf.int64 tensor. Got "
                             f"type={ds.types_of(kf.output_specs)} and "
                             f"shape={ds.shapes_of(kf.output_specs)}")
        inf = StructuredFunction(reducer.init_func, "group_by_reducer_init",
                                 ds.Spec(dtypes.int64, []), tf_name=_GBR)
        state_specs = inf.output_specs
        rf = StructuredFunction(reducer.reduce_func, "group_by_reducer_reduce",
                                (state_specs, dataset._specs), tf_name=_GBR)
        try:
            ds.assert_same_structure(state_specs, rf.output_specs)
        except (TypeError, ValueError) as e:
            raise TypeError("`reduce_func` must return a state of the structure `init_func` "
                            "returns.") from e
        for new, old in zip(ds.flatten(rf.output_specs), ds.flatten(state_specs)):
            if new.cls is not old.cls or new.ragged_rank != old.ragged_rank:
                raise TypeError(f"The element classes for the new state must match the "
                                f"initial state. Expected {ds.classes_of(state_specs)}; got "
                                f"{ds.classes_of(rf.output_specs)}.")
            if new.dtype != old.dtype:
                raise TypeError(f"The element types for the new state must match the "
                                f"initial state. Expected {ds.types_of(state_specs)}; got "
                                f"{ds.types_of(rf.output_specs)}.")
        state_specs = _relaxed(state_specs, rf.output_specs)
        ff = StructuredFunction(reducer.finalize_func, "group_by_reducer_finalize", state_specs,
                                tf_name=_GBR)
        fns = (kf, inf, rf, ff)
        attrs = {"key_func": kf.name, "init_func": inf.name, "reduce_func": rf.name,
                 "finalize_func": ff.name}
        for attr, f in zip(("Tkey", "Tinit", "Treduce", "Tfinalize"), fns):
            attrs[f"{attr}_func_other_arguments"] = [t.dtype.base_dtype for t in f.captured]
        return _OpDataset("GroupByReducerDataset", [dataset] + [f.captured for f in fns],
                          ff.output_specs, attrs, _MultiFn([f.fg for f in fns]))
    return apply


# ------------------------------------------------------------------------------------------
# directed interleave: sample_from_datasets, choose_from_datasets; RandomDataset
# ------------------------------------------------------------------------------------------


class _DirectedInterleave(dv.DatasetValue):
    def __init__(self, selector, inputs, stop_on_empty):
        self.selector, self.inputs, self.stop_on_empty = selector, list(inputs), stop_on_empty

    @dv.resumable
    def iterate(self, rt):
        its = [d.iterate(rt) for d in self.inputs]
        live = [True] * len(its)
        for choice in dv._tap(self.selector.iterate(rt)):
            if type(choice) is dv._Fail:
                yield choice
                continue
            i = int(np.asarray(choice[0]))
            if not 0 <= i < len(its):
                raise _invalid(f"Selector index out of range: {i} >= {len(its)}")
            if not live[i]:
                continue
            try:
                elem = next(its[i])
            except errors.OpError as e:  # raised in its turn; that input goes on
                yield dv._Fail(e.with_traceback(None))
                continue
            except StopIteration:
                if self.stop_on_empty:
                    return
                live[i] = False
                if not any(live):
                    return
                continue
            yield elem


_declare("DirectedInterleaveDataset",
         ["selector_input_dataset: variant", "data_input_datasets: N * variant"],
         lambda ctx, s, data: _DirectedInterleave(s, data,
                                                  ctx.op._attrs["stop_on_empty_dataset"]),
         [*_OUT, "N: int >= 1", "stop_on_empty_dataset: bool = false"],
         newer_attrs=["stop_on_empty_dataset"])


def _DirectedInterleaveDataset(selector_input, data_inputs, stop_on_empty_dataset=False):
    """TF's ``interleave_ops._DirectedInterleaveDataset``: the element of
    ``data_inputs[i]`` for each ``i`` the int64 ``selector_input`` yields."""
    return _directed(selector_input, data_inputs, stop_on_empty_dataset)


def _directed(selector, datasets, stop_on_empty):
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    specs = datasets[0]._specs
    for d in datasets[1:]:
        try:
            specs = ds.most_specific(specs, d._specs)
        except (TypeError, ValueError) as e:
            raise TypeError("All datasets must have the same type and class.") from e
    return _OpDataset("DirectedInterleaveDataset", [selector, datasets], specs,
                      {"stop_on_empty_dataset": bool(stop_on_empty)})


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """Elements taken from ``datasets[i]`` for each ``i`` of the int64 ``choice_dataset``; an
    exhausted input is skipped (or, with ``stop_on_empty_dataset``, ends the result)."""
    flat = ds.flatten(choice_dataset._specs)
    if len(flat) != 1 or flat[0].dtype != dtypes.int64 or not flat[0].shape.is_compatible_with(
            []):
        raise TypeError("`choice_dataset` must be a dataset of scalar `tf.int64` tensors.")
    return _directed(choice_dataset, datasets, stop_on_empty_dataset)


class _Random(dv.DatasetValue):
    def __init__(self, seed, seed2):
        self.seed, self.seed2 = seed, seed2

    def cardinality(self):
        return INFINITE

    def iterate(self, rt):
        # TF's RandomDataset: the 32-bit words of Philox(seed, seed2), each as an int64
        seed, seed2 = self.seed, self.seed2
        if seed == 0 and seed2 == 0:  # TF: random seeds
            seed, seed2 = (int(x) for x in np.random.SeedSequence().generate_state(2, np.uint64))
        words = dv.PhiloxWords(seed, seed2)
        while True:
            yield [np.asarray(words(), np.int64)]


_declare("RandomDataset", ["seed: int64", "seed2: int64"],
         lambda ctx, s, s2: _Random(_int(s), _int(s2)), _OUT)


class RandomDataset(_OpDataset):
    """An infinite dataset of random int64 scalars (``tf.data.experimental.RandomDataset``)."""

    def __init__(self, seed=None):
        from tideflow.ops.dataset_ops import _data_seeds

        super().__init__("RandomDataset", list(_data_seeds(seed)), ds.Spec(dtypes.int64, []))


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """Elements drawn at random from ``datasets``, dataset ``i`` with probability
    ``weights[i]`` (uniform by default); ends when all inputs are exhausted."""
    from tideflow.ops import array_ops, unary_ops
    from tideflow.ops.stateless_random_ops import stateless_multinomial

    datasets = list(datasets)
    n = len(datasets)
    if isinstance(weights, Dataset):
        # a weights vector per draw: each element's logits with a fresh pair of seeds
        def select_varying(logits, seeds):
            return array_ops.reshape(stateless_multinomial(logits, 1, seed=seeds), [])

        logits = weights.map(lambda *p: array_ops.reshape(unary_ops.log(p), [1, -1]))
        selector = Dataset.zip((logits, RandomDataset(seed).batch(2))).map(select_varying)
        return _directed(selector, datasets, stop_on_empty_dataset)
    if weights is None:
        # TF 1.15: equal logits, made in the selector function (no op in the graph)
        if n == 1:
            return datasets[0]

        def select_uniform(seeds):
            return array_ops.reshape(stateless_multinomial([[1.0] * n], 1, seed=seeds), [])

        selector = RandomDataset(seed).batch(2).map(select_uniform)
        return _directed(selector, datasets, stop_on_empty_dataset)
    w = ops.convert_to_tensor(weights, name="weights")
    if w.dtype not in (dtypes.float32, dtypes.float64):
        raise TypeError("`weights` must be convertible to a tensor of `tf.float32` or "
                        "`tf.float64` elements.")
    if not w.get_shape().is_compatible_with([n]):
        raise ValueError("`weights` must be a vector of length `len(datasets)`.")
    if n == 1:
        return datasets[0]  # (as TF: nothing to choose)
    logits = array_ops.reshape(unary_ops.log(w), [1, -1])

    def select(seeds):
        return array_ops.reshape(stateless_multinomial(logits, 1, seed=seeds), [])

    selector = RandomDataset(seed).batch(2).map(select)
    return _directed(selector, datasets, stop_on_empty_dataset)


# ------------------------------------------------------------------------------------------
# dense_to_sparse_batch
# ------------------------------------------------------------------------------------------


class _DenseToSparseBatch(dv.DatasetValue):
    def __init__(self, input_, n, row_shape):
        if n <= 0:
            raise _invalid("Batch size must be greater than zero.")
        self.input, self.n, self.row_shape = input_, n, [int(d) for d in row_shape]

    @dv.resumable
    def iterate(self, rt):
        src = dv._tap(self.input.iterate(rt))
        while True:
            rows, fail = [], None
            for elem in src:
                if type(elem) is not dv._Fail:
                    # as TF: each element is checked as it is read; a bad one fails the
                    # batch begun, and the next batch starts after it
                    elem = self._check(elem)
                if type(elem) is dv._Fail:  # as batch: the batch begun is dropped
                    fail = elem
                    break
                rows.append(elem)
                if len(rows) == self.n:
                    break
            if fail is not None:
                yield fail
                continue
            if not rows:
                return
            yield self._sparse(rows)

    def _check(self, elem):
        v = np.asarray(elem[0])
        row_str = "[" + ",".join("?" if d < 0 else str(d) for d in self.row_shape) + "]"
        v_str = "[" + ",".join(str(d) for d in v.shape) + "]"
        if v.ndim != len(self.row_shape):
            return dv._Fail(errors.InvalidArgumentError(
                None, None, f"Input element had shape ({v_str}) that is incompatible with the "
                f"row shape ({row_str})."))
        if any(r >= 0 and d > r for d, r in zip(v.shape, self.row_shape)):
            return dv._Fail(errors.DataLossError(
                None, None, f"Input element had shape ({v_str}) that is larger than the row "
                f"shape ({row_str})."))
        return elem

    def _sparse(self, rows):
        rank = len(self.row_shape)
        idx, vals = [], []
        shape = [max(d, 0) for d in self.row_shape]
        for b, (v,) in enumerate(rows):
            v = np.asarray(v)
            for k, (d, r) in enumerate(zip(v.shape, self.row_shape)):
                if r < 0:
                    shape[k] = max(shape[k], d)
            for pos in np.ndindex(*v.shape):
                idx.append((b,) + pos)
                vals.append(v[pos])
        indices = np.asarray(idx, np.int64).reshape(-1, rank + 1)
        values = np.asarray(vals, dtype=object if rows[0][0].dtype == object
                            else np.asarray(rows[0][0]).dtype)
        return [ds.SparseValue(indices, values, np.asarray([len(rows)] + shape, np.int64))]


_declare("DenseToSparseBatchDataset", ["input_dataset: variant", "batch_size: int64",
                                       "row_shape: int64"],
         lambda ctx, d, n, shape: _DenseToSparseBatch(d, _int(n), np.reshape(shape, -1)), _OUT)


def dense_to_sparse_batch(batch_size, row_shape):
    """A transformation batching dense elements of varying shape into SparseTensors of dense
    shape ``[batch, *row_shape]`` (-1 in ``row_shape``: the batch's largest)."""
    def apply(dataset):
        flat = ds.flatten(dataset._specs)
        if len(flat) != 1 or ds.is_seq(dataset._specs) or flat[0].is_sparse or flat[0].is_ragged:
            raise TypeError("dense_to_sparse_batch: the elements must be single dense tensors")
        rows = row_shape
        if isinstance(rows, ops.Tensor):
            value = ops.constant_value(rows)
            if value is None:
                raise ValueError("dense_to_sparse_batch: row_shape must be known when the "
                                 "graph is built")
            rows = list(np.reshape(value, -1))
        elif isinstance(rows, TensorShape):
            rows = rows.as_list()
        else:
            # a shape given in Python: None for a dimension taken from the batch (TF's
            # TensorShape refuses negative sizes: "Dimension -2 must be >= 0")
            rows = TensorShape(rows).as_list()
        shape = [-1 if d is None or int(d) < 0 else int(d) for d in rows]
        out = ds.Spec(flat[0].dtype, TensorShape([None] + [None if d < 0 else d
                                                           for d in shape]), SparseTensor)
        return _OpDataset("DenseToSparseBatchDataset",
                          [dataset, _i64(batch_size, "batch_size"),
                           ops.convert_to_tensor(np.asarray(shape, np.int64), name="row_shape")],
                          out)
    return apply


# ------------------------------------------------------------------------------------------
# CsvDataset, TFRecordWriter
# ------------------------------------------------------------------------------------------

_CSV_TYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)


class _Csv(dv.DatasetValue):
    def __init__(self, paths, compression, header, delim, quote, na, cols, defaults, types):
        self.paths, self.compression, self.header = paths, compression, header
        self.delim, self.quote, self.na = delim, quote, na
        self.cols, self.defaults, self.types = cols, defaults, types

    def _convert(self, text, k):
        # TF 1.15's messages (they name no record number or file)
        d, default = self.types[k], self.defaults[k]
        if text == self.na or text == "":
            if default.size == 0:
                raise _invalid(f"Field {k} is required but missing in record!")
            return default.reshape(())
        try:
            if d == dtypes.string:
                return np.asarray(text.encode(), dtype=object)
            if d.is_integer:
                return np.asarray(int(text), dtype=d.as_numpy_dtype)
            return np.asarray(float(text), dtype=d.as_numpy_dtype)
        except (ValueError, OverflowError):  # an integer out of the column type's range too
            from tideflow.framework.importer import _type_string

            raise _invalid(f"Field {k} in record is not a valid {_type_string(d)}: "
                           f"{text}") from None

    def _record(self, fields):
        n = len(self.types)
        if self.cols:
            if max(self.cols) >= len(fields):
                raise _invalid(f"Expect {n} fields but have {len(fields)} in record")
            cols = self.cols
        else:
            if len(fields) < n:
                raise _invalid(f"Expect {n} fields but have {len(fields)} in record")
            if len(fields) > n:
                raise _invalid(f"Expect {n} fields but have more in record")
            cols = range(n)
        return [self._convert(fields[c], k) for k, c in enumerate(cols)]

    @dv.resumable
    def iterate(self, rt):
        # as TF: a bad record raises its error in its turn and the records after it follow
        for path in self.paths:
            lines = dataset_readers.text_lines(path, self.compression)
            if self.header:
                next(lines, None)
            text = io.StringIO("\n".join(b.decode("utf-8") for b in lines))
            reader = csv.reader(text, delimiter=self.delim, strict=bool(self.quote),
                                quoting=csv.QUOTE_MINIMAL if self.quote else csv.QUOTE_NONE,
                                quotechar='"' if self.quote else None)
            while True:
                try:
                    fields = next(reader)
                except StopIteration:
                    break
                except csv.Error as e:
                    if "unexpected end of data" in str(e):
                        yield dv._Fail(_invalid("Reached end of file without closing quoted "
                                                "field in record"))
                        break
                    yield dv._Fail(_invalid(f"{e} in record"))
                    continue
                if not fields:
                    continue
                try:
                    yield self._record(fields)
                except errors.InvalidArgumentError as e:
                    yield dv._Fail(e.with_traceback(None))


def _csv_kernel(ctx, filenames, compression, buffer_size, header, field_delim, use_quote_delim,
                na_value, select_cols, record_defaults):
    del buffer_size
    types = ctx.op._attrs["output_types"]
    defaults = [np.asarray(d) for d in record_defaults]
    for k, d in enumerate(defaults):
        if d.size > 1:
            raise _invalid(f"There should only be 1 default per field but field {k} has "
                           f"{d.size}")
    delim = _str(field_delim)
    if len(delim) != 1:
        raise _invalid(f"field_delim should be only 1 char, got {delim!r}")
    cols = [int(c) for c in np.reshape(select_cols, -1)]
    if cols and (cols != sorted(cols) or len(set(cols)) != len(cols) or cols[0] < 0):
        raise _invalid("select_cols should be strictly increasing non-negative indices")
    if cols and len(cols) != len(types):
        raise _invalid(f"select_cols should match output size, got {len(cols)} columns and "
                       f"{len(types)} outputs")
    return _Csv(dataset_readers._paths(filenames),
                dataset_readers._compression(compression, "named"),
                bool(np.asarray(header)), delim, bool(np.asarray(use_quote_delim)),
                _str(na_value), cols, defaults, list(types))


_declare("CSVDataset", ["filenames: string", "compression_type: string", "buffer_size: int64",
                        "header: bool", "field_delim: string", "use_quote_delim: bool",
                        "na_value: string", "select_cols: int64",
                        "record_defaults: output_types"], _csv_kernel,
         ["output_types: list({float,double,int32,int64,string}) >= 1",
          "output_shapes: list(shape) >= 1"])


class CsvDataset(_OpDataset):
    """``tf.data.experimental.CsvDataset``: the records of CSV files, one tuple of scalars per
    line, typed by ``record_defaults`` (a default value per column, or a type for a required
    one)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None):
        if exclude_cols is not None:
            raise NotImplementedError("CsvDataset: exclude_cols is not supported by tideflow; "
                                      "use select_cols")
        defaults = []
        for k, d in enumerate(record_defaults):
            if isinstance(d, dtypes.DType) or (isinstance(d, type) and d is not bool):
                d = dtypes.as_dtype(d)
                t = ops.convert_to_tensor(np.zeros([0], d.as_numpy_dtype if d != dtypes.string
                                                   else object), dtype=d,
                                          name=f"record_default_{k}")
            else:
                t = ops.convert_to_tensor(d, name=f"record_default_{k}")
            if t.dtype.base_dtype not in _CSV_TYPES:
                raise TypeError(f"CsvDataset: record_defaults[{k}] has unsupported type "
                                f"{t.dtype.name}")
            defaults.append(t)
        files = ops.convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
        ins = [files, ops.convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                            name="compression_type"),
               _i64(-1 if buffer_size is None else buffer_size, "buffer_size"),
               ops.convert_to_tensor(bool(header), name="header"),
               ops.convert_to_tensor(field_delim, dtype=dtypes.string, name="field_delim"),
               ops.convert_to_tensor(bool(use_quote_delim), name="use_quote_delim"),
               ops.convert_to_tensor(na_value, dtype=dtypes.string, name="na_value"),
               ops.convert_to_tensor(np.asarray(select_cols or [], np.int64),
                                     name="select_cols"),
               defaults]
        specs = tuple(ds.Spec(t.dtype.base_dtype, []) for t in defaults)
        super().__init__("CSVDataset", ins, specs)


def _dataset_to_tfrecord_kernel(input_dataset, filename, compression_type):
    from tideflow.framework.record_io import TFRecordWriter as Writer

    comp = dataset_readers._compression(compression_type, "none")
    writer = Writer(_str(filename), comp or None)
    rt = dv.IterRuntime()
    try:
        for elem in input_dataset.iterate(rt):
            v = elem[0]
            v = np.asarray(v).reshape(())[()] if not isinstance(v, bytes) else v
            writer.write(v)
    finally:
        rt.close()
        writer.close()


op_registry.declare(
    "DatasetToTFRecord",
    inputs=["input_dataset: variant", "filename: string", "compression_type: string"],
    kernel=_dataset_to_tfrecord_kernel,
    differentiable=False,
    stateful=True,
)


class TFRecordWriter:
    """``tf.data.experimental.TFRecordWriter(filename, compression_type=None)``: ``write(dataset)``
    returns the op that writes a dataset of scalar strings to a TFRecord file."""

    def __init__(self, filename, compression_type=None):
        self._filename = ops.convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        self._compression = ops.convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                                  name="compression_type")

    def write(self, dataset):
        flat = ds.flatten(dataset._specs)
        if len(flat) != 1 or ds.is_seq(dataset._specs) or flat[0].dtype != dtypes.string or \
                not flat[0].shape.is_compatible_with([]):
            raise TypeError(f"`dataset` must produce scalar `DT_STRING` tensors whereas it "
                            f"produces shape {dataset.output_shapes} and types "
                            f"{dataset.output_types}")
        return ops.apply_op("DatasetToTFRecord", [dataset._as_variant_tensor(), self._filename,
                                                  self._compression], name="DatasetToTFRecord")


# ------------------------------------------------------------------------------------------
# Optional
# ------------------------------------------------------------------------------------------


class OptionalValue:
    """The value of an ``Optional`` variant: a flat list of components, or None (empty)."""

    __slots__ = ("components",)

    def __init__(self, components):
        self.components = components


op_registry.declare(
    "OptionalFromValue",
    inputs=["components: Toutput_types"],
    outputs=["optional: variant"],
    attrs=["Toutput_types: list(type) >= 1"],
    shape=lambda op: [scalar()],
    kernel=lambda components: OptionalValue(list(components)),
    differentiable=False,
)
op_registry.declare(
    "OptionalNone",
    outputs=["optional: variant"],
    shape=lambda op: [scalar()],
    kernel=lambda: OptionalValue(None),
    differentiable=False,
)


def _optional(v):
    if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 0:
        v = v[()]
    if not isinstance(v, OptionalValue):
        raise _invalid(f"Input tensor must be an Optional value, got {type(v).__name__}")
    return v


op_registry.declare(
    "OptionalHasValue",
    inputs=["optional: variant"],
    outputs=["has_value: bool"],
    shape=lambda op: [scalar()],
    kernel=lambda optional: np.bool_(_optional(optional).components is not None),
    differentiable=False,
)


def _get_value_kernel(optional, *, output_types):
    v = _optional(optional)
    if v.components is None:
        raise _invalid("The optional variant does not have a value.")
    if len(v.components) != len(output_types):
        raise _invalid(f"The optional has {len(v.components)} components, expected "
                       f"{len(output_types)}")
    return list(v.components)


op_registry.declare(
    "OptionalGetValue",
    inputs=["optional: variant"],
    outputs=["components: output_types"],
    attrs=["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
    shape=lambda op: list(op._attrs["output_shapes"]),
    kernel=_get_value_kernel,
    differentiable=False,
)


def _get_next_as_optional_kernel(iterator, *, step):
    from tideflow.ops.iterator_ops import _check

    try:
        return OptionalValue(list(_check(iterator).get_next(step)))
    except errors.OutOfRangeError:
        return OptionalValue(None)


op_registry.declare(
    "IteratorGetNextAsOptional",
    inputs=["iterator: resource"],
    outputs=["optional: variant"],
    attrs=["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
    shape=lambda op: [scalar()],
    kernel=_get_next_as_optional_kernel,
    differentiable=False,
    stateful=True,
)


class Optional(ds.Structured):
    """``tf.data.experimental.Optional``: a value that may be absent (a variant tensor)."""

    _is_optional = True  # (an Optional may be a component of an element or of an Optional)

    def __init__(self, variant, specs):
        self._variant_tensor = variant
        self._specs = specs

    @staticmethod
    def from_value(value):
        """An Optional holding ``value`` (a nest of tensors)."""
        with ops.name_scope("optional") as scope:
            tensors = ds.to_tensors(value, name="value")
            specs = ds.specs_of(tensors)
            wire = ds.to_wire(tensors)
            v = ops.apply_op("OptionalFromValue", [wire], name=scope).outputs[0]
        return Optional(v, specs)

    @staticmethod
    def none_from_structure(value_structure, output_shapes=None, output_classes=None):
        """An empty Optional of the given structure: TF 1.15's nest of ``tf.TensorSpec`` /
        ``tf.SparseTensorSpec`` (or the older output types, shapes and classes)."""
        from tideflow.ops.function_ops import SparseTensorSpec, TensorSpec

        if all(isinstance(x, (TensorSpec, SparseTensorSpec))
               for x in ds.flatten(value_structure)):
            specs = _specs_from_structure(value_structure)
        else:
            specs = ds.specs_from(value_structure, output_shapes, output_classes)
        return Optional(ops.apply_op("OptionalNone", [], name="OptionalNone").outputs[0], specs)

    def has_value(self, name=None):
        """A bool scalar: whether this Optional holds a value."""
        return ops.apply_op("OptionalHasValue", [self._variant_tensor],
                            name=name or "OptionalHasValue").outputs[0]

    def get_value(self, name=None):
        """The value (running it on an empty Optional fails with InvalidArgumentError)."""
        return ds.apply_structured("OptionalGetValue", [self._variant_tensor], self._specs,
                                   name or "OptionalGetValue")

    @property
    def element_spec(self):
        """The value's structure as TensorSpecs."""
        return ds.map_structure(_type_spec, self._specs)

    value_structure = element_spec


class _OptionalImpl(Optional):
    """TF's ``optional_ops._OptionalImpl``: an Optional over a variant tensor and the
    structure (nest of type specs) of its value."""

    def __init__(self, variant, value_structure):
        super().__init__(variant, _specs_from_structure(value_structure))


def get_next_as_optional(iterator):
    """The iterator's next element as an ``Optional`` (empty at the end of the data, where
    ``get_next`` would raise OutOfRangeError)."""
    specs = iterator._specs
    v = ops.apply_op("IteratorGetNextAsOptional", [iterator._iterator_resource],
                     ds.wire_attrs(specs), name="IteratorGetNextAsOptional").outputs[0]
    return Optional(v, specs)



# ------------------------------------------------------------------------------------------
# SqlDataset (SQLite)
# ------------------------------------------------------------------------------------------


class _Sql(dv.DatasetValue):
    def __init__(self, driver, source, query, types):
        if driver != "sqlite":
            raise _invalid(f"The database type, {driver}, is not supported by SqlDataset. The "
                           f"set of supported databases is: {{'sqlite'}}.")
        self.source, self.query, self.types = source, query, list(types)

    def iterate(self, rt):
        import sqlite3

        try:
            conn = sqlite3.connect(f"file:{self.source}?mode=ro", uri=True,
                                   check_same_thread=False)
        except sqlite3.Error as e:
            raise _invalid(f"SqlDataset: cannot open {self.source!r}: {e}") from None
        rt.add_closer(conn.close)
        try:
            cursor = conn.execute(self.query)
        except sqlite3.Error as e:
            conn.close()
            raise _invalid(f"SqlDataset: the query failed: {e}") from None
        try:
            if cursor.description is not None and len(cursor.description) != len(self.types):
                raise _invalid(f"The number of columns in query ({len(cursor.description)}) "
                               f"must match the number of elements in output_types "
                               f"({len(self.types)}).")
            for row in cursor:
                out = []
                for v, d in zip(row, self.types):
                    if d == dtypes.string:
                        out.append(np.asarray(v if isinstance(v, bytes) else str(v).encode(),
                                              dtype=object))
                    elif d == dtypes.bool:
                        out.append(np.asarray(bool(v)))
                    else:
                        out.append(np.asarray(v, dtype=d.as_numpy_dtype))
                yield out
        finally:
            conn.close()


_declare("SqlDataset", ["driver_name: string", "data_source_name: string", "query: string"],
         lambda ctx, drv, src, q: _Sql(_str(drv), _str(src), _str(q),
                                       ctx.op._attrs["output_types"]), _OUT)


class SqlDataset(_OpDataset):
    """``tf.data.experimental.SqlDataset``: the rows of a SQL query (SQLite, read-only), one
    tuple of scalars of ``output_types`` per row."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        types = output_types if isinstance(output_types, tuple) else (output_types,)
        specs = tuple(ds.Spec(dtypes.as_dtype(t), []) for t in types)
        if not isinstance(output_types, tuple):
            specs = specs[0]
        ins = [ops.convert_to_tensor(x, dtype=dtypes.string, name=n) for x, n in
               ((driver_name, "driver_name"), (data_source_name, "data_source_name"),
                (query, "query"))]
        super().__init__("SqlDataset", ins, specs)


# ------------------------------------------------------------------------------------------
# structures as TypeSpecs: get_structure, DatasetSpec, from_variant
# ------------------------------------------------------------------------------------------


def _type_spec(spec):
    from tideflow.ops.function_ops import SparseTensorSpec, TensorSpec

    if spec.is_sparse:
        return SparseTensorSpec(spec.shape, spec.dtype)
    if spec.is_optional:
        return OptionalSpec(ds.map_structure(_type_spec, spec.element_specs))
    if spec.is_dataset:
        return DatasetSpec(ds.map_structure(_type_spec, spec.element_specs), spec.shape)
    if spec.is_tensor_array:
        from tideflow.ops.tensor_array import TensorArraySpec

        return TensorArraySpec(spec.shape, spec.dtype, *spec.ta_flags)
    if spec.is_ragged:
        from tideflow.ops.ragged_value import RaggedTensorSpec

        return RaggedTensorSpec(spec.shape, spec.dtype, spec.ragged_rank)
    return TensorSpec(spec.shape, spec.dtype)


def _internal_spec(type_spec):
    from tideflow.ops.function_ops import SparseTensorSpec, TensorSpec

    if isinstance(type_spec, SparseTensorSpec):
        return ds.Spec(type_spec.dtype, type_spec.shape, SparseTensor)
    if type(type_spec).__name__ == "TensorArraySpec":
        from tideflow.ops.tensor_array import TensorArray

        return ds.Spec(type_spec.dtype, type_spec.element_shape, TensorArray,
                       ta_flags=(type_spec.dynamic_size, type_spec.infer_shape))
    if isinstance(type_spec, OptionalSpec):
        return ds.Spec(dtypes.variant, (), Optional, _specs_from_structure(type_spec.element_spec))
    if isinstance(type_spec, DatasetSpec):
        return ds.Spec.dataset(_specs_from_structure(type_spec.element_spec), Dataset,
                               type_spec.shape)
    if type(type_spec).__name__ == "RaggedTensorSpec":
        from tideflow.ops.ragged_tensor import RaggedTensor

        return ds.Spec(type_spec.dtype, type_spec.shape, RaggedTensor,
                       ragged_rank=type_spec.ragged_rank)
    if isinstance(type_spec, TensorSpec):
        return ds.Spec(type_spec.dtype, type_spec.shape)
    raise TypeError(f"Expected a TensorSpec or SparseTensorSpec in the structure, got "
                    f"{type_spec!r}")


def get_structure(dataset_or_iterator):
    """The element structure of a dataset or iterator: a nest of ``tf.TensorSpec`` (and
    ``tf.SparseTensorSpec``) like its elements."""
    specs = getattr(dataset_or_iterator, "_specs", None)
    if specs is None:
        raise TypeError(f"Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        f"`tf.data.Dataset` or tf.data.Iterator object, but got "
                        f"{type(dataset_or_iterator)}.")
    return ds.map_structure(_type_spec, specs)


def are_compatible(spec1, spec2):
    """Whether two element structures (nests of type specs) could describe one element: the
    same nesting, and leaf by leaf the same kind of spec, compatible with the other."""
    try:
        ds.assert_same_structure(spec1, spec2)
    except (TypeError, ValueError):
        return False
    return all(type(a) is type(b) and a.is_compatible_with(b)
               for a, b in zip(ds.flatten(spec1), ds.flatten(spec2)))


def _specs_from_structure(structure):
    return ds.map_structure(_internal_spec, structure)


def _make_dataset_spec_class():
    from tideflow.ops.function_ops import TypeSpec

    class DatasetSpec(TypeSpec):
        """``tf.data.DatasetSpec``: the type of a dataset (its element spec)."""

        def __init__(self, element_spec, dataset_shape=()):
            self._element_spec = element_spec
            self._dataset_shape = TensorShape(dataset_shape)

        @property
        def element_spec(self):
            return self._element_spec

        @property
        def shape(self):
            return self._dataset_shape

        @property
        def value_type(self):
            return Dataset

        @staticmethod
        def from_value(value):
            return DatasetSpec(get_structure(value))

        def _to_tensor_list(self, value):
            return [value._as_variant_tensor()]

        def _from_tensor_list(self, tensor_list):
            return _VariantDataset(tensor_list[0], _specs_from_structure(self._element_spec))

        def is_compatible_with(self, spec_or_value):
            """Another DatasetSpec (or dataset) of compatible elements and shape."""
            if isinstance(spec_or_value, Dataset):
                spec_or_value = DatasetSpec.from_value(spec_or_value)
            return (type(spec_or_value) is type(self)
                    and self._dataset_shape.is_compatible_with(spec_or_value._dataset_shape)
                    and are_compatible(self._element_spec, spec_or_value._element_spec))

        def __eq__(self, other):
            return (type(other) is type(self) and repr(self._element_spec) ==
                    repr(other._element_spec) and self._dataset_shape.as_list() ==
                    other._dataset_shape.as_list())

        def __hash__(self):
            return hash(repr(self._element_spec))

        def __repr__(self):
            return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"

    return DatasetSpec


DatasetSpec = _make_dataset_spec_class()


def _make_optional_spec_class():
    from tideflow.ops.function_ops import TypeSpec

    class OptionalSpec(TypeSpec):
        """``tf.OptionalSpec``: the type of an Optional (the spec of its value)."""

        def __init__(self, element_spec):
            self._element_spec = element_spec

        @property
        def element_spec(self):
            return self._element_spec

        @property
        def value_type(self):
            return Optional

        @staticmethod
        def from_value(value):
            return OptionalSpec(value.element_spec)

        _value_structure = element_spec

        def is_compatible_with(self, spec_or_value):
            """Another OptionalSpec (or Optional) whose value structure is compatible."""
            if isinstance(spec_or_value, Optional):
                spec_or_value = OptionalSpec.from_value(spec_or_value)
            return type(spec_or_value) is type(self) and are_compatible(
                self._element_spec, spec_or_value._element_spec)

        def _to_tensor_list(self, value):
            return [value._variant_tensor]

        def _from_tensor_list(self, tensor_list):
            return _OptionalImpl(tensor_list[0], self._element_spec)

        def __eq__(self, other):
            return type(other) is type(self) and repr(self._element_spec) == repr(
                other._element_spec)

        def __hash__(self):
            return hash(repr(self._element_spec))

        def __repr__(self):
            # TF's TypeSpec repr: the class name and the tuple of its serialized fields
            return f"OptionalSpec({self._element_spec!r},)"

    return OptionalSpec


OptionalSpec = _make_optional_spec_class()


def from_variant(variant, structure):
    """A Dataset over the variant tensor ``variant`` with elements of ``structure`` (a nest of
    TensorSpecs, as ``get_structure`` gives)."""
    if isinstance(structure, DatasetSpec):
        structure = structure.element_spec
    return _VariantDataset(variant, _specs_from_structure(structure))


# ------------------------------------------------------------------------------------------
# NumpyIterator
# ------------------------------------------------------------------------------------------


class NumpyIterator:
    """``tf.data.NumpyIterator``: the elements of a dataset as NumPy values (nests like the
    elements). In graph mode it runs its own session on the default graph (where the dataset
    was made); it closes that session when the data ends or on ``close()``."""

    def __init__(self, dataset):
        from tideflow.runtime.session import Session

        self._graph = ops.get_default_graph()
        with self._graph.as_default():
            self._next = dataset.make_one_shot_iterator().get_next()
        self._session = Session(graph=self._graph)

    def __iter__(self):
        return self

    def __next__(self):
        if self._session is None:
            raise StopIteration
        try:
            return self._session.run(self._next)
        except errors.OutOfRangeError:
            self.close()
            raise StopIteration from None

    next = __next__

    def close(self):
        if self._session is not None:
            self._session.close()
            self._session = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass

    def __repr__(self):
        return f"<NumpyIterator of {self._next!r}>"


for _cls in (RandomDataset, CsvDataset, SqlDataset):
    _tf_class_name(_cls, _cls.__name__ + "V1")  # TF 1.15's names of these V1 classes
    _cls._repr_name = _cls.__name__  # (their reprs too, as the file readers')
del _cls
