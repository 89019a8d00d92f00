"""``tf.data.Dataset``: a Python description of an input pipeline, built into dataset ops.

A Dataset knows its element structure (``output_types``, ``output_shapes``,
``output_classes``) when it is created; its source tensors are created then too, and its
functions are traced into the graph's library. ``_as_variant_tensor()`` creates the chain of
dataset ops (in the current default graph) that an iterator op consumes.
"""

import itertools
import re
import warnings

import numpy as np

from tideflow.framework import dtypes, func_graph, ops
from tideflow.framework.random_seed import get_seed
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.framework.tensor_shape import TensorShape, as_shape
from tideflow.ops import dataset_structure as ds
from tideflow.ops import dataset_values, iterator_ops

AUTOTUNE = -1
# ops that create a resource (a lookup table): TF warns when a dataset function makes one, as
# it is created anew for each element
_RESOURCE_OPS = frozenset({"HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
                           "MutableDenseHashTableV2"})


def _i64(x, name):
    return ops.convert_to_tensor(x, dtype=dtypes.int64, name=name)


_ERROR_NAME_IDS = itertools.count(1)


def _fn_name(fn):
    name = getattr(fn, "__name__", type(fn).__name__)
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class StructuredFunction:
    """A user function over dataset elements, traced into a function body.

    The element (a nest) is rebuilt from the wire arguments; a tuple element is unpacked
    into positional arguments, anything else is passed as one argument. A list result
    becomes a tuple, as in tf.data.
    """

    def __init__(self, func, transformation, input_specs, returns_dataset=False,
                 tf_name=None):
        graph = ops.get_default_graph()
        self.name = func_graph.unique_function_name(
            graph, f"Dataset_{transformation}_{_fn_name(func)}")
        self.output_specs = None
        self.output_dataset = None
        wire = [(s.wire_dtype, s.wire_shape) for s in ds.flatten(input_specs)]
        # as TF 1.15's tf.data: user functions are converted by AutoGraph (a Python `if` on a
        # tensor becomes tf.cond); Python conditions stay Python
        from tideflow.autograph import conversion, errors

        user_func, func = func, conversion.maybe_convert(func)

        def body(*args):
            nested = ds.from_wire(input_specs, list(args))
            try:
                ret = func(*nested) if type(nested) is tuple else func(nested)
            except Exception as e:  # (TF's AutoGraph rewrites what it can)
                err = errors.converted_code_error(e, user_func)
                if err is None:
                    raise
                raise err from None
            if returns_dataset:
                if not isinstance(ret, Dataset):
                    raise TypeError("`map_func` must return a `Dataset` object.")
                self.output_dataset = ret
                self.output_specs = ret._specs
                return [ret._as_variant_tensor()]
            if isinstance(ret, list):
                ret = tuple(ret)
            if ret is None:
                raise TypeError(f"Unsupported return value from function passed to "
                                f"Dataset.{transformation}(): None.")
            ret = ds.to_tensors(ret)
            self.output_specs = ds.specs_of(ret)
            return ds.to_wire(ret)

        n_outer = len(graph._ops)
        first_id = graph._next_id
        # the function's collections are its own, as a TF function graph's: a summary or an
        # update op made per element is not the outer graph's
        self.fg = func_graph.trace(body, wire, self.name, private_collections=True,
                                   arg_names=[f"args_{i}" for i in range(len(wire))])
        func_graph.give_back_ids(graph, first_id, n_outer)
        # the name TF 1.15's errors give the function: "__inference_" and the readable name
        # (TF's number is its process-wide uid; this one counts this process's functions)
        # (``tf_name``: TF's readable name of the transformation where it is not
        # "Dataset.<transformation>()", e.g. "tf.data.experimental.scan()")
        self.fg._tf_error_name = (f"__inference_{tf_name or 'Dataset_' + transformation}_"
                                  f"{getattr(user_func, '__name__', type(user_func).__name__)}"
                                  f"_{next(_ERROR_NAME_IDS)}")
        _tensor_arrays_keep_items(self.fg, graph, set())
        # a table made in the function lands in it, or in the outer graph (init_scope)
        if any(op.type in _RESOURCE_OPS
               for op in self.fg.get_operations() + graph._ops[n_outer:]):
            warnings.warn("Creating resources inside a function passed to Dataset.map() is "
                          "not supported. Create each resource outside the function, and "
                          "capture it inside the function to use it.", stacklevel=3)
        func_graph.add_function(graph, self.fg, tf_function=True)
        self._library = graph._functions
        self.captured = [outer for outer, _ in self.fg.captures]

    def register_in(self, graph):
        """Adds the function (and those its ops name) to ``graph``'s library when the dataset
        was built in another graph: TF 1.x programs make the Dataset at top level and only
        its iterator inside an Estimator's input_fn, and TF 1.x added a dataset's functions
        to the graph its ops were made in."""
        lib = graph._functions
        if lib is self._library:
            return
        pending = [self.fg]
        while pending:
            fg = pending.pop()
            have = lib.get(fg.name)
            if have is fg:
                continue
            if have is not None:
                raise ValueError(
                    f"The dataset function '{fg.name}' was made in another graph, and this "
                    "graph already holds a different function of that name; build the "
                    "Dataset inside the input_fn (or graph) that iterates it.")
            func_graph.add_function(graph, fg, tf_function=True)
            for op in fg.get_operations():
                for value in op._attrs.values():
                    name = value if isinstance(value, str) else getattr(value, "name", None)
                    if isinstance(name, str) and name in self._library:
                        pending.append(self._library[name])

    def add_to(self, op):
        from tideflow.ops.cond import add_control_captures

        add_control_captures(op, [self.fg])


def _tensor_arrays_keep_items(fg, graph, seen):
    """TensorArrays made in a dataset function (or a body it calls) are TF 2's: their reads
    never clear items (TF's functions build them on TensorLists), so a scan state's array may
    be stacked on every step."""
    if fg.name in seen:
        return
    seen.add(fg.name)
    for op in fg.get_operations():
        spec = op._attrs.get("_tensor_array")
        if spec is not None and len(spec) >= 2 and spec[1]:
            op._set_attr("_tensor_array", [spec[0], 0, *spec[2:]])
        for value in op._attrs.values():
            name = value if isinstance(value, str) else getattr(value, "name", None)
            if isinstance(name, str) and name in graph._functions:
                _tensor_arrays_keep_items(graph._functions[name], graph, seen)


def _tensor_seeds(op_seed):
    """TF's (seed, seed2) for an op seed given as a tensor (fed at initialization): the graph
    seed (or TF's default) as for a Python seed, and the tensor's value as the op seed, with
    (0, 0) read as (0, 2**31 - 1) as TF does."""
    from tideflow.ops import array_ops, math_ops

    graph_seed, _ = get_seed(1)  # the first seed does not depend on the op seed's value
    with ops.name_scope("seed2"):
        seed2 = ops.convert_to_tensor(op_seed, dtype=dtypes.int64)
        if graph_seed == 0:
            seed2 = array_ops.where(math_ops.equal(seed2, 0),
                                    ops.convert_to_tensor(2**31 - 1, dtype=dtypes.int64), seed2)
    return graph_seed, seed2


def _data_seeds(seed):
    """TF 1.15's tf.data seeds (data/util/random_seed.get_seed), as tensors made with its ops:
    ``seed``, and ``seed2`` where the graph has a seed: a Select that turns (0, 0) into
    (0, 2**31 - 1)."""
    from tideflow.ops import gather_ops, math_ops

    s, s2 = get_seed(seed)
    seed_t = _i64(0 if s is None else s, "seed")
    if s2 is None:
        return seed_t, _i64(0, "seed2")
    with ops.name_scope("seed2") as scope:
        seed2_t = ops.convert_to_tensor(s2, dtype=dtypes.int64)
        seed2_t = gather_ops.where(
            math_ops.logical_and(math_ops.equal(seed_t, 0), math_ops.equal(seed2_t, 0)),
            ops.convert_to_tensor(2**31 - 1, dtype=dtypes.int64), seed2_t, name=scope)
    return seed_t, seed2_t


def _infer_batch_dim(specs, drop_remainder, batch_size):
    n = None
    # (TF's smart_constant_value: a constant tensor's value counts as well)
    if drop_remainder is True or (isinstance(drop_remainder, ops.Tensor)
                                  and ops.constant_value(drop_remainder) == True):
        n = ops.constant_value(batch_size)
        n = None if n is None else int(n)
    return n


class Dataset(ds.Structured):
    """A sequence of elements, each a nest of tensors of the same structure."""

    _specs = None
    # the class TF 1.15's repr names: its tf.data datasets are DatasetV1Adapters, but for the
    # file readers (TFRecordDatasetV1...)
    _repr_name = "DatasetV1Adapter"

    # -- structure ---------------------------------------------------------------------------
    def _as_variant_tensor(self):
        raise NotImplementedError

    def __iter__(self):
        raise RuntimeError("dataset.__iter__() is only supported when eager execution is "
                           "enabled.")

    def __repr__(self):
        # TF 1.x's format: each shape as str, each dtype as repr, quotes dropped
        shapes = str(ds.map_structure(str, self.output_shapes)).replace("'", "")
        types = str(ds.map_structure(repr, self.output_types)).replace("'", "")
        return f"<{type(self)._repr_name} shapes: {shapes}, types: {types}>"

    @property
    def _variant_tensor(self):
        """The variant tensor of this dataset's ops (TF's attribute, built on each access)."""
        return self._as_variant_tensor()

    # -- iterators ---------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator initialized when first used; it cannot be re-initialized."""
        return iterator_ops.one_shot_iterator(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator whose ``initializer`` (re)starts it from the first element."""
        return iterator_ops.initializable_iterator(self, shared_name)

    # -- sources -----------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element: ``tensors``."""
        with ops.name_scope("normalize_element"):  # TF 1.15's scope for them
            t = ds.to_tensors(tensors)
        return _OpDataset("TensorDataset", [ds.to_wire(t)], ds.specs_of(t), types_attr=True)

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the slices of ``tensors`` along their first dimension."""
        with ops.name_scope("normalize_element"):  # TF 1.15's scope for them
            t = ds.to_tensors(tensors)
        flat = ds.flatten(t)
        if not flat:
            raise ValueError("from_tensor_slices() requires at least one component.")
        dim = TensorShape([None])
        for x in flat:
            shape = x.get_shape() if not isinstance(x, SparseTensor) else ds.spec_of(x).shape
            if shape.ndims == 0:
                raise ValueError(f"Value {x} has insufficient rank for batching.")
            if shape.ndims is not None:  # TF: "Dimensions 2 and 3 are not compatible"
                dim = TensorShape([dim[0].merge_with(shape[0])])
        specs = ds.unbatched(ds.specs_of(t))
        return _OpDataset("TensorSliceDataset", [ds.to_wire(t)], specs, types_attr=True)

    @staticmethod
    def from_sparse_tensor_slices(sparse_tensor):
        """TF 1.x's dataset of the rows of a SparseTensor, each the dense triple (indices
        without the row, values, dense shape without the row); ``from_tensor_slices`` of a
        SparseTensor gives SparseTensor rows instead."""
        if isinstance(sparse_tensor, SparseTensorValue):
            sparse_tensor = SparseTensor.from_value(sparse_tensor)
        if not isinstance(sparse_tensor, SparseTensor):
            raise TypeError(f"`sparse_tensor` must be a `tf.SparseTensor` object. Was "
                            f"{sparse_tensor}.")
        rank = sparse_tensor.dense_shape.get_shape()[0].value
        rest = None if rank is None else rank - 1
        specs = (ds.Spec(dtypes.int64, [None, rest]), ds.Spec(sparse_tensor.dtype, [None]),
                 ds.Spec(dtypes.int64, [rest]))
        return _OpDataset("SparseTensorSliceDataset",
                          [sparse_tensor.indices, sparse_tensor.values,
                           sparse_tensor.dense_shape], specs)

    @staticmethod
    def range(*args):
        """``range(stop)``, ``range(start, stop)``, ``range(start, stop, step)`` as int64."""
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid arguments to range: {args}")
        start, step = 0, 1
        if len(args) == 1:
            stop = args[0]
        elif len(args) == 2:
            start, stop = args
        else:
            start, stop, step = args
        ins = [_i64(start, "start"), _i64(stop, "stop"), _i64(step, "step")]
        return _OpDataset("RangeDataset", ins, ds.Spec(dtypes.int64, []))

    @staticmethod
    def zip(datasets):
        """Elements of ``datasets`` (a nest of datasets) side by side, as that nest."""
        flat = ds.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                message = ("The argument to `Dataset.zip()` must be a nested structure of "
                           "`Dataset` objects.")
                if isinstance(d, list):  # (a list is one value in tf.data's structures)
                    message += (" Nested structures do not support Python lists; please use "
                                "a tuple instead.")
                raise TypeError(message)
        specs = ds.pack(datasets, [d._specs for d in flat])
        return _OpDataset("ZipDataset", [flat], specs)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """Elements yielded by ``generator(*args)`` (a callable), of the given structure."""
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        if output_types is None:
            raise TypeError("Cannot convert value None to a TensorFlow DType: "
                            "`from_generator` needs `output_types`.")
        specs = ds.specs_from(output_types, output_shapes)
        graph = ops.get_default_graph()
        root = getattr(graph, "_root", None) or graph
        if not hasattr(root, "_py_generators"):
            root._py_generators = {}
        token = f"pygen_{len(root._py_generators)}"
        root._py_generators[token] = (generator, output_types)
        arg_tensors = [ops.convert_to_tensor(a, name=f"args_{i}")
                       for i, a in enumerate(args or ())]
        # TF 1.15 builds it as a flat_map over from_tensors(0): the ids of that Const and
        # TensorDataset are skipped (the FlatMapDataset's is this op's)
        graph._skip_op_ids(2)
        return _OpDataset("PyGeneratorDataset", [arg_tensors], specs,
                          attrs={"token": token,
                                 "Targuments": [t.dtype.base_dtype for t in arg_tensors]})

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """The file names matching ``file_pattern`` (shuffled unless ``shuffle=False``)."""
        from tideflow.ops import array_ops, control_flow_ops, io_ops, math_ops, string_ops

        with ops.name_scope("list_files"):
            # TF 1.15's ops, in its order
            file_pattern = ops.convert_to_tensor(file_pattern, dtype=dtypes.string,
                                                 name="file_pattern")
            names = io_ops.matching_files(file_pattern)
            # as TF: an Assert that something matched, as a control dependency (which a
            # one-shot iterator's copy of the graph drops: there an empty match is an empty
            # dataset, an initializable iterator's initializer fails)
            matched = math_ops.greater(array_ops.shape(names)[0], 0, name="match_not_empty")
            message = math_ops.add("No files matched pattern: ",
                                   string_ops.reduce_join(file_pattern, separator=", "),
                                   name="message")
            check = control_flow_ops.Assert(matched, [message], summarize=1,
                                            name="assert_not_empty")
            with ops.control_dependencies([check]):
                names = array_ops.identity(names)
            d = Dataset.from_tensor_slices(names)
            if shuffle is None or shuffle:
                n = array_ops.shape(names, out_type=dtypes.int64)[0]
                d = d.shuffle(math_ops.maximum(n, 1), seed=seed)
        return d

    # -- transformations ---------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None):
        """``map_func`` applied to each element (in order, even when run in parallel)."""
        fn = StructuredFunction(map_func, "map", self._specs)
        attrs = {"f": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured]}
        if num_parallel_calls is None:
            return _OpDataset("MapDataset", [self, fn.captured], fn.output_specs, attrs, fn)
        n = ops.convert_to_tensor(num_parallel_calls, dtype=dtypes.int32,
                                  name="num_parallel_calls")
        return _OpDataset("ParallelMapDataset", [self, fn.captured, n], fn.output_specs,
                          attrs, fn)

    def map_with_legacy_function(self, map_func, num_parallel_calls=None):
        """TF 1.15's deprecated ``map`` with a legacy (Defun) function: ``map`` here."""
        return self.map(map_func, num_parallel_calls)

    def filter_with_legacy_function(self, predicate):
        """TF 1.15's deprecated ``filter`` with a legacy (Defun) function: ``filter`` here."""
        return self.filter(predicate)

    def filter(self, predicate):
        """The elements for which ``predicate`` returns True."""
        fn = StructuredFunction(predicate, "filter", self._specs)
        out = ds.flatten(fn.output_specs)
        if (len(out) != 1 or is_seq_spec(fn.output_specs) or out[0].dtype != dtypes.bool
                or not out[0].shape.is_compatible_with([])):
            from tideflow.ops.function_ops import TensorSpec

            was = ""
            if not any(x.is_sparse or x.is_ragged for x in out):  # (TF names the structure)
                was = " Was {}.".format(ds.map_structure(
                    lambda x: TensorSpec(x.shape, x.dtype), fn.output_specs))
            raise ValueError("`predicate` return type must be convertible to a scalar boolean "
                             f"tensor.{was}")
        attrs = {"predicate": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured]}
        return _OpDataset("FilterDataset", [self, fn.captured], self._specs, attrs, fn)

    def flat_map(self, map_func):
        """The elements of the datasets ``map_func`` returns for each element."""
        fn = StructuredFunction(map_func, "flat_map", self._specs, returns_dataset=True)
        attrs = {"f": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured]}
        return _OpDataset("FlatMapDataset", [self, fn.captured], fn.output_specs, attrs, fn)

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1,
                   num_parallel_calls=None):
        """``map_func``'s datasets, ``cycle_length`` at a time, ``block_length`` each turn."""
        fn = StructuredFunction(map_func, "interleave", self._specs, returns_dataset=True)
        attrs = {"f": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured]}
        ins = [self, fn.captured, _i64(cycle_length, "cycle_length"),
               _i64(block_length, "block_length")]
        if num_parallel_calls is None:
            return _OpDataset("InterleaveDataset", ins, fn.output_specs, attrs, fn)
        ins.append(_i64(num_parallel_calls, "num_parallel_calls"))
        return _OpDataset("ParallelInterleaveDatasetV2", ins, fn.output_specs, attrs, fn)

    def batch(self, batch_size, drop_remainder=False):
        """Consecutive elements stacked into batches of ``batch_size``."""
        n = _i64(batch_size, "batch_size")
        drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        dim = _infer_batch_dim(self._specs, drop_remainder, n)
        return _OpDataset("BatchDatasetV2", [self, n, drop], ds.batched(self._specs, dim))

    def padded_batch(self, batch_size, padded_shapes, padding_values=None,
                     drop_remainder=False):
        """Batches whose components are padded to ``padded_shapes`` (-1/None: the longest)."""
        specs = self._specs
        flat = ds.flatten(specs)
        if any(s.is_sparse or s.is_ragged for s in flat):
            raise TypeError("Batching of padded sparse tensors is not currently supported")
        shapes = _broadcast_like(specs, padded_shapes)
        if padding_values is None:
            values = [np.array(b"" if s.dtype == dtypes.string else 0, dtype=object
                               if s.dtype == dtypes.string else s.dtype.as_numpy_dtype)
                      for s in flat]
        else:
            values = _broadcast_like(specs, padding_values)
        # TF 1.15's order: the batch size, every padded shape, every padding value
        n = _i64(batch_size, "batch_size")
        out_specs, shape_tensors = [], []
        for s, shp in zip(flat, shapes):
            static, t = _padded_shape(shp, s.shape)
            out_specs.append(ds.Spec(s.dtype, static))
            shape_tensors.append(t)
        value_tensors = [_padding_value(val, s.dtype, user_given=padding_values is not None)
                         for s, val in zip(flat, values)]
        drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        dim = _infer_batch_dim(specs, drop_remainder, n)
        new = ds.batched(ds.pack(specs, out_specs), dim)
        return _OpDataset("PaddedBatchDatasetV2",
                          [self, n, shape_tensors, value_tensors, drop], new, types_attr=True)

    def unbatch(self):
        """The rows of each element's components (the inverse of ``batch``)."""
        # TF 1.15 first maps the elements to their dense form (a MapDataset tideflow needs
        # not): its id is skipped
        ops.get_default_graph()._skip_op_ids(1)
        return _OpDataset("UnbatchDataset", [self], ds.unbatched(self._specs))

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """Elements drawn at random from a buffer of ``buffer_size`` (TF's seed rule)."""
        buffer_size = _i64(buffer_size, "buffer_size")
        if isinstance(seed, ops.Tensor):
            seed, seed2 = _tensor_seeds(seed)
            seed, seed2 = _i64(seed, "seed"), _i64(seed2, "seed2")
        else:
            seed, seed2 = _data_seeds(seed)
        attrs = {"reshuffle_each_iteration": True if reshuffle_each_iteration is None
                 else bool(reshuffle_each_iteration)}
        return _OpDataset("ShuffleDataset", [self, buffer_size, seed, seed2], self._specs,
                          attrs)

    def repeat(self, count=None):
        """The elements ``count`` times over (forever when None or -1)."""
        return _OpDataset("RepeatDataset", [self, _i64(-1 if count is None else count,
                                                       "count")], self._specs)

    def take(self, count):
        return _OpDataset("TakeDataset", [self, _i64(count, "count")], self._specs)

    def skip(self, count):
        return _OpDataset("SkipDataset", [self, _i64(count, "count")], self._specs)

    def shard(self, num_shards, index):
        return _OpDataset("ShardDataset", [self, _i64(num_shards, "num_shards"),
                                           _i64(index, "index")], self._specs)

    def prefetch(self, buffer_size):
        """Elements computed ahead by a background thread, up to ``buffer_size`` of them
        (``None`` is AUTOTUNE's -1, as TF 1.15)."""
        if buffer_size is None:
            buffer_size = -1
        return _OpDataset("PrefetchDataset", [self, _i64(buffer_size, "buffer_size")],
                          self._specs)

    def cache(self, filename=""):
        """Replays the first complete pass (kept in memory, or in ``filename``)."""
        f = ops.convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        return _OpDataset("CacheDataset", [self, f], self._specs)

    def concatenate(self, dataset):
        """This dataset's elements, then ``dataset``'s."""
        try:
            specs = ds.most_specific(self._specs, dataset._specs)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Two datasets to concatenate have different types "
                            f"{self.output_types} and {dataset.output_types}") from e
        return _OpDataset("ConcatenateDataset", [self, dataset], specs)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError(f"`transformation_func` must return a Dataset. Got {out}.")
        return out

    def enumerate(self, start=0):
        """(index, element) pairs, the index an int64 counting from ``start``."""
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def ignore_errors(self):
        return _OpDataset("IgnoreErrorsDataset", [self], self._specs)

    # -- options -----------------------------------------------------------------------------
    def with_options(self, options):
        """This dataset with ``options`` (a ``tf.data.Options``) merged into its options."""
        from tideflow.ops.dataset_options import Options

        if not isinstance(options, Options):
            raise TypeError(f"with_options: expected a tf.data.Options, got "
                            f"{type(options).__name__}")
        merged = self.options().merge(options)  # as TF: incompatible values fail here
        opt = merged.experimental_optimization
        for name, mark in (("shuffle_and_repeat_fusion", "_no_shuffle_repeat_fusion"),
                           ("noop_elimination", "_noops_kept"),
                           ("map_and_batch_fusion", "_no_map_batch_fusion")):
            on = getattr(opt, name)
            if on is False or (on is None and opt.apply_default_optimizations is False):
                _mark_repeats(self, mark)
        return _WithOptions(self, options)

    def options(self):
        """The options of this dataset: those of its inputs, merged with its own."""
        from tideflow.ops.dataset_options import Options

        out = Options()
        for d in self._input_datasets():
            out = out.merge(d.options())
        own = getattr(self, "_own_options", None)
        return out.merge(own) if own is not None else out

    def _input_datasets(self):
        return []

    def _inputs(self):
        """TF's list of the datasets this one reads (a source's is empty)."""
        return list(self._input_datasets())

    def _functions(self):
        """TF's list of the user functions this dataset applies."""
        fn = getattr(self, "_fn", None)
        if fn is None:
            return []
        return list(fn.fgs) if hasattr(fn, "fgs") else [fn]

    # -- TF 2.x methods also on compat.v1 datasets (tf.data.experimental's transformations) --
    @property
    def element_spec(self):
        """The element structure as a nest of ``tf.TensorSpec`` / ``tf.SparseTensorSpec``."""
        from tideflow.ops.dataset_more import get_structure

        return get_structure(self)

    def as_numpy_iterator(self):
        """A ``tf.data.NumpyIterator`` over the elements (its own session on this graph)."""
        from tideflow.ops.dataset_more import NumpyIterator

        return NumpyIterator(self)

    def cardinality(self):
        """An int64 scalar: the number of elements, -1 (infinite) or -2 (unknown)."""
        from tideflow.ops.dataset_more import cardinality

        return cardinality(self)

    def unique(self):
        from tideflow.ops.dataset_more import unique

        return unique()(self)

    def scan(self, initial_state, scan_func):
        from tideflow.ops.dataset_more import scan

        return scan(initial_state, scan_func)(self)

    def reduce(self, initial_state, reduce_func):
        """The final state of ``reduce_func(state, element)`` applied to every element in
        turn, starting from ``initial_state`` (a nest of tensors of the state's structure)."""
        from tideflow.ops.dataset_more import reduce

        return reduce(self, initial_state, reduce_func)

    def take_while(self, predicate):
        from tideflow.ops.dataset_more import take_while

        return take_while(predicate)(self)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """Windows of ``size`` elements, one starting every ``shift`` (default ``size``)
        elements and taking every ``stride``-th; each window is a nest of datasets (one per
        component, the structure of this dataset's elements)."""
        from tideflow.ops.dataset_more import window

        return window(self, size, shift, stride, drop_remainder)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None):
        from tideflow.ops.dataset_more import group_by_window

        return group_by_window(key_func, reduce_func, window_size, window_size_func)(self)


def _mark_repeats(dataset, mark, seen=None):
    """Sets ``mark`` on every repeat in ``dataset``'s chain, whose options turn one of TF
    1.15's default optimizations off: ``_no_shuffle_repeat_fusion`` (a repeat of a shuffle
    runs unfused) or ``_noops_kept`` (no noop_elimination before that fusion)."""
    seen = set() if seen is None else seen
    if id(dataset) in seen:
        return
    seen.add(id(dataset))
    kind = "BatchDatasetV2" if mark == "_no_map_batch_fusion" else "RepeatDataset"
    if getattr(dataset, "_op_type", None) == kind:
        setattr(dataset, mark, True)
    for d in dataset._input_datasets():
        _mark_repeats(d, mark, seen)


class _WithOptions(Dataset):
    def __init__(self, input_dataset, options):
        self._input = input_dataset
        self._specs = input_dataset._specs
        self._own_options = options

    def _input_datasets(self):
        return [self._input]

    def _as_variant_tensor(self):
        stats = self._own_options.experimental_stats
        if stats.aggregator is not None:  # TF's options apply a SetStatsAggregatorDataset
            from tideflow.ops.dataset_stats import set_stats_aggregator

            return set_stats_aggregator(self._input, stats.aggregator, stats.prefix,
                                        stats.counter_prefix)._as_variant_tensor()
        return self._input._as_variant_tensor()


def is_seq_spec(specs):
    return ds.is_seq(specs)


def _broadcast_like(specs, value):
    """``value`` as a flat list following ``specs``, read only as deep as ``specs`` nests (as
    TF: a padded shape may be a list, a tuple such as ``()`` or a TensorShape)."""
    if not ds.is_seq(specs):
        return [value]
    return ds.flatten_up_to(specs, value)


def _padding_value(value, dtype, user_given):
    """A padding value as TF 1.15 takes it: a scalar tensor of exactly the component's dtype
    (a Python ``0`` is an int32, so an int64 component needs ``np.int64(0)`` or a tensor)."""
    if not user_given:
        return ops.convert_to_tensor(value, dtype=dtype, name="padding_value")
    t = ops.convert_to_tensor(value, name="padding_value")
    if not t.get_shape().is_compatible_with([]):
        raise ValueError(f"Padding value should be a scalar, but is not: {t}")
    if t.dtype.base_dtype != dtype:
        raise TypeError(f"Padding value tensor ({t}) does not match output type: {dtype}")
    return t


def _padded_shape(shape, component):
    """(static shape, int64 vector tensor) of one component's padded shape.

    As TF: a shape-like value (TensorShape, list/tuple with None) is taken as a shape; any
    other value (``[-1]``, a tensor) is converted to a tensor, which must be a 1-D int64
    vector, and its constant value (-1: unknown) gives the static shape."""
    try:
        if isinstance(shape, ops.Tensor):
            raise TypeError
        static = as_shape(shape)
        if static.ndims is None:
            raise ValueError("Padded shape must have a known rank.")
        t = ops.convert_to_tensor(np.array([-1 if d is None else d for d in static.as_list()],
                                           np.int64))
    except (TypeError, ValueError):
        if isinstance(shape, ops.Tensor):
            t = shape
        else:
            try:
                t = ops.convert_to_tensor(shape, dtype=dtypes.int64)
            except (TypeError, ValueError):
                t = ops.convert_to_tensor(shape)
        if t.get_shape().ndims is not None and t.get_shape().ndims != 1:
            raise ValueError(f"Padded shape {shape} must be a 1-D tensor of tf.int64 values, "
                             f"but its shape was {t.get_shape()}.") from None
        if t.dtype.base_dtype != dtypes.int64:
            raise TypeError(f"Padded shape {shape} must be a 1-D tensor of tf.int64 values, "
                            f"but its element type was {t.dtype.base_dtype.name}.") from None
        from tideflow.ops.array_ops import partial_vector

        # (TF's constant_value_as_shape: a stack of constants and tensors is known in part)
        value = partial_vector(t)
        if value is not None:
            static = TensorShape([None if d is None or d < 0 else int(d) for d in value])
        elif t.get_shape().ndims == 1 and t.get_shape()[0].value is not None:
            static = TensorShape([None] * t.get_shape()[0].value)
        else:
            static = TensorShape(None)
    if not _padded_compatible(static, component):
        raise ValueError(f"The padded shape {static} is not compatible with the corresponding "
                         f"input component shape {component}.")
    return static, t


def _padded_compatible(padded, component):
    """TF's rule: same rank, and each padded dimension unknown or at least the input's."""
    if padded.ndims is None or component.ndims is None:
        return True
    if padded.ndims != component.ndims:
        return False
    return all(p is None or c is None or p >= c
               for p, c in zip(padded.as_list(), component.as_list()))


class _OpDataset(Dataset):
    """A dataset made by one op from its inputs (datasets, tensors, or lists of them)."""

    def __init__(self, op_type, inputs, specs, attrs=None, fn=None, types_attr=False,
                 name=None):
        self._op_type = op_type
        self._op_inputs = inputs
        self._specs = specs
        self._attrs = dict(attrs or {})
        self._fn = fn
        self._types_attr = types_attr  # ops with Toutput_types (from the inputs) instead
        self._reserve_op_id(name)

    def _reserve_op_id(self, name=None):
        """TF 1.15 makes a dataset's op with the Dataset (after its input constants); tideflow
        makes it when an iterator (or a function) needs it, with the id and the name (in the
        name scope of now; ``name``, a generated op's scope "X/", is taken already) reserved
        here, so the ops made in between (a shuffle's seed, without an op seed, is the op
        count) number as in TF, and the op is named as TF's."""
        graph = ops.get_default_graph()
        self._reserved = (graph, graph._reserve_op_id(),
                          name[:-1] if name else graph.unique_name(self._op_type))

    def _apply_reserved(self, op_type, inputs, attrs=None, **kwargs):
        """``ops.apply_op`` with the reserved id when the op is made in the graph that
        reserved it (or a function graph of it, a one-shot iterator's); a new id otherwise."""
        graph = ops.get_default_graph()
        reserved, self._reserved = getattr(self, "_reserved", None), None
        root = getattr(graph, "_root", None) or graph
        if reserved is None or reserved[0] not in (graph, root):
            return ops.apply_op(op_type, inputs, attrs, name=op_type, **kwargs)
        owner, rid, name = reserved
        # the name taken when the dataset was made, unless an op took it meanwhile (a dataset
        # of the graph made in a function of it with such an op)
        name = op_type if name in graph._nodes_by_name else name + "/"
        capture = getattr(graph, "capture", None)
        if capture is not None:
            # capture (a one-shot iterator's function copies) with new ids first: only the
            # dataset op itself takes the reserved one
            def cap(x):
                if isinstance(x, (list, tuple)):
                    return [cap(y) for y in x]
                return capture(x) if isinstance(x, ops.Tensor) else x

            inputs = cap(inputs)
        nxt = graph._next_id
        graph._next_id = rid
        try:
            return ops.apply_op(op_type, inputs, attrs, name=name, **kwargs)
        finally:
            graph._next_id = nxt
            if getattr(owner, "_counts_own_ops", False):
                owner._own_reserved -= 1

    def _reserved_in(self, graph):
        """Whether this dataset's op has an id reserved in ``graph`` (or its outermost)."""
        reserved = getattr(self, "_reserved", None)
        root = getattr(graph, "_root", None) or graph
        return reserved is not None and reserved[0] in (graph, root)

    def _input_datasets(self):
        out = []

        def walk(x):
            if isinstance(x, Dataset):
                out.append(x)
            elif isinstance(x, (list, tuple)):
                for y in x:
                    walk(y)

        walk(self._op_inputs)
        return out

    def _as_variant_tensor(self):
        def conv(x):
            if isinstance(x, Dataset):
                return x._as_variant_tensor()
            if isinstance(x, (list, tuple)):
                return [conv(y) for y in x]
            return x

        inputs = [conv(x) for x in self._op_inputs]
        if isinstance(self._fn, StructuredFunction):
            self._fn.register_in(ops.get_default_graph())
        attrs = dict(self._attrs)
        if not self._types_attr:
            attrs["output_types"] = ds.wire_types(self._specs)
        else:
            attrs["Toutput_types"] = ds.wire_types(self._specs)
        attrs["output_shapes"] = ds.wire_shapes(self._specs)
        op = self._apply_reserved(self._op_type, inputs, attrs)
        if self._fn is not None:
            self._fn.add_to(op)
        if getattr(self, "_no_shuffle_repeat_fusion", False):
            dataset_values.UNFUSED_REPEATS.add(op)  # read by the RepeatDataset kernel
        if getattr(self, "_noops_kept", False):
            dataset_values.NOOPS_KEPT.add(op)
        if self._op_type == "BatchDatasetV2" and (
                _UNOPTIMIZED[0] or getattr(self, "_no_map_batch_fusion", False)
                or _fusion_off(self.options())):
            dataset_values.UNFUSED_BATCHES.add(op)  # (options below it count too, as in TF)
        elif self._op_type == "RepeatDataset" and _UNOPTIMIZED[0]:
            dataset_values.UNFUSED_REPEATS.add(op)
            dataset_values.NOOPS_KEPT.add(op)
        return op._outputs[0]


# > 0 while building the ops of a dataset TF 1.15 runs without its optimizations
_UNOPTIMIZED = [0]


def unoptimized_variant(dataset):
    """``dataset``'s variant tensor as TF 1.15's ``Iterator.make_initializer``,
    ``Dataset.reduce`` and ``get_single_element`` take it: without the dataset's default
    optimizations (no map_and_batch or shuffle_and_repeat fusion, no noop elimination), which
    only ``make_one_shot_iterator``/``make_initializable_iterator`` apply."""
    _UNOPTIMIZED[0] += 1
    try:
        return dataset._as_variant_tensor()
    finally:
        _UNOPTIMIZED[0] -= 1


def _fusion_off(options):
    opt = options.experimental_optimization
    on = opt.map_and_batch_fusion
    return on is False or (on is None and opt.apply_default_optimizations is False)


class DatasetSource(_OpDataset):
    """Base of the file-reading datasets (``TFRecordDataset``...), for isinstance checks."""


class PrefetchDataset(_OpDataset):
    """TF 1.15's ``dataset_ops.PrefetchDataset``: ``input_dataset.prefetch(buffer_size)``
    (None is AUTOTUNE), with the op's ``slack_period`` attribute."""

    def __init__(self, input_dataset, buffer_size, slack_period=None):
        if buffer_size is None:
            buffer_size = AUTOTUNE
        super().__init__("PrefetchDataset", [input_dataset, _i64(buffer_size, "buffer_size")],
                         input_dataset._specs, attrs={"slack_period": slack_period or 0})


# TF 1.15's ``dataset_ops`` module names: one Dataset class serves both API versions here
DatasetV1 = DatasetV2 = Dataset


def _tf_class_name(cls, name):
    """Names ``cls`` as TF 1.15's class of such datasets (``type(d).__name__`` and the
    "'DatasetV1Adapter' object has no attribute ..." of an AttributeError)."""
    cls.__name__ = cls.__qualname__ = name


_tf_class_name(_OpDataset, "DatasetV1Adapter")
_tf_class_name(_WithOptions, "DatasetV1Adapter")


def get_legacy_output_types(dataset_or_iterator):
    """The ``output_types`` of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_legacy_output_shapes(dataset_or_iterator):
    """The ``output_shapes`` of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def get_legacy_output_classes(dataset_or_iterator):
    """The ``output_classes`` of a dataset or iterator."""
    return dataset_or_iterator.output_classes


def get_structure(dataset_or_iterator):
    """The element structure as a nest of ``tf.TensorSpec`` / ``tf.SparseTensorSpec``."""
    from tideflow.ops.dataset_more import get_structure as structure

    return structure(dataset_or_iterator)
