"""``tf.data.experimental``: transformation functions for ``Dataset.apply`` and helpers."""

import collections

import numpy as np

from tideflow.framework import dtypes
from tideflow.ops.dataset_more import (
    INFINITE as INFINITE_CARDINALITY,
)
from tideflow.ops.dataset_more import (
    UNKNOWN as UNKNOWN_CARDINALITY,
)
from tideflow.ops.dataset_more import (
    CsvDataset,
    DatasetSpec,
    Optional,
    OptionalSpec,
    RandomDataset,
    Reducer,
    SqlDataset,
    TFRecordWriter,
    assert_cardinality,
    bucket_by_sequence_length,
    cardinality,
    choose_from_datasets,
    dense_to_sparse_batch,
    from_variant,
    get_next_as_optional,
    get_structure,
    group_by_reducer,
    group_by_window,
    sample_from_datasets,
    scan,
    take_while,
    unique,
)
from tideflow.ops.dataset_ops import AUTOTUNE, Dataset
from tideflow.ops.dataset_options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    MapVectorizationOptions,
    OptimizationOptions,
    StatsOptions,
    ThreadingOptions,
)
from tideflow.ops.dataset_stats import StatsAggregator, bytes_produced_stats, latency_stats
from tideflow.ops.function_ops import TypeSpec
from tideflow.ops.iterator_ops import get_single_element, make_saveable_from_iterator

SHARD_HINT = -1

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "SHARD_HINT",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "Counter",
    "CsvDataset",
    "DatasetInitializer",
    "DatasetSpec",
    "DatasetStructure",
    "DistributeOptions",
    "ExternalStatePolicy",
    "MapVectorizationOptions",
    "OptimizationOptions",
    "Optional",
    "OptionalStructure",
    "RaggedTensorStructure",
    "RandomDataset",
    "Reducer",
    "SparseTensorStructure",
    "SqlDataset",
    "StatsAggregator",
    "StatsOptions",
    "Structure",
    "TFRecordWriter",
    "TensorArrayStructure",
    "TensorStructure",
    "ThreadingOptions",
    "assert_cardinality",
    "bucket_by_sequence_length",
    "bytes_produced_stats",
    "cardinality",
    "choose_from_datasets",
    "copy_to_device",
    "dense_to_ragged_batch",
    "dense_to_sparse_batch",
    "enable_debug_mode",
    "enumerate_dataset",
    "filter_for_shard",
    "from_list",
    "from_variant",
    "get_next_as_optional",
    "get_single_element",
    "get_structure",
    "group_by_reducer",
    "group_by_window",
    "ignore_errors",
    "index_table_from_dataset",
    "latency_stats",
    "make_batched_features_dataset",
    "make_csv_dataset",
    "make_saveable_from_iterator",
    "map_and_batch",
    "map_and_batch_with_legacy_function",
    "pad_to_cardinality",
    "parallel_interleave",
    "parse_example_dataset",
    "prefetch_to_device",
    "rejection_resample",
    "sample_from_datasets",
    "scan",
    "shuffle_and_repeat",
    "snapshot",
    "table_from_dataset",
    "take_while",
    "to_variant",
    "unbatch",
    "unique",
]


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """``dataset.shuffle(buffer_size, seed).repeat(count)`` as one transformation: TF 1.15's
    one ShuffleAndRepeatDataset op, its count made before its seeds (the op seed is the op
    count then)."""
    def apply(dataset):
        from tideflow.ops.dataset_ops import _data_seeds, _i64, _OpDataset

        n = _i64(buffer_size, "buffer_size")
        c = _i64(-1 if count is None else count, "count")
        s, s2 = _data_seeds(seed)
        return _OpDataset("ShuffleAndRepeatDataset", [dataset, n, s, s2, c], dataset._specs)
    return apply


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """``dataset.map(map_func).batch(batch_size, drop_remainder)`` as one transformation."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("The `num_parallel_batches` and `num_parallel_calls` arguments are "
                         "mutually exclusive.")
    def apply(dataset):
        from tideflow.framework import ops
        from tideflow.ops import dataset_structure as ds
        from tideflow.ops.dataset_ops import (
            StructuredFunction,
            _i64,
            _infer_batch_dim,
            _OpDataset,
        )

        fn = StructuredFunction(map_func, "map_and_batch", dataset._specs,
                                tf_name="tf_data_experimental_map_and_batch")
        # as TF 1.15: calls as many as a batch's size (times ``num_parallel_batches``),
        # worked out before the op's inputs are made
        if num_parallel_calls is not None:
            calls = num_parallel_calls
        elif num_parallel_batches is not None:
            calls = batch_size * num_parallel_batches
        else:
            calls = batch_size
        n = _i64(batch_size, "batch_size")
        npc = _i64(calls, "num_parallel_calls")
        drop = ops.convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
        specs = ds.batched(fn.output_specs, _infer_batch_dim(fn.output_specs, drop_remainder, n))
        attrs = {"f": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured],
                 "preserve_cardinality": True}
        return _OpDataset("MapAndBatchDataset", [dataset, fn.captured, n, npc, drop], specs,
                          attrs, fn)

    return apply


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """``dataset.interleave`` reading ``cycle_length`` inputs concurrently: TF's
    ParallelInterleaveDataset. Its elements come in the deterministic order (``sloppy`` only
    allows another); an input or function that fails takes its slot in the cycle as one
    error."""
    def apply(dataset):
        from tideflow.framework import ops
        from tideflow.ops.dataset_ops import StructuredFunction, _i64, _OpDataset

        fn = StructuredFunction(map_func, "parallel_interleave", dataset._specs,
                                tf_name="tf_data_experimental_parallel_interleave",
                                returns_dataset=True)
        attrs = {"f": fn.name, "Targuments": [t.dtype.base_dtype for t in fn.captured]}
        cycle = _i64(cycle_length, "cycle_length")
        block = _i64(block_length, "block_length")
        sloppy_t = ops.convert_to_tensor(sloppy, dtype=dtypes.bool, name="sloppy")
        buffered = _i64(2 * block_length if buffer_output_elements is None
                        else buffer_output_elements, "buffer_output_elements")
        prefetched = _i64(2 * cycle_length if prefetch_input_elements is None
                          else prefetch_input_elements, "prefetch_input_elements")
        ins = [dataset, fn.captured, cycle, block, sloppy_t, buffered, prefetched]
        return _OpDataset("ParallelInterleaveDataset", ins, fn.output_specs, attrs, fn)

    return apply


def unbatch():
    return lambda dataset: dataset.unbatch()


def ignore_errors():
    """Drops the elements whose computation raised an error."""
    return lambda dataset: dataset.ignore_errors()


def enumerate_dataset(start=0):
    return lambda dataset: dataset.enumerate(start)


def filter_for_shard(num_shards, shard_index):
    """TF 1.x's ``filter_for_shard``: the elements whose position modulo ``num_shards`` is
    ``shard_index`` (both int64 scalars; values known when the graph is built are checked
    then, TF's ValueErrors)."""
    from tideflow.framework import ops
    from tideflow.ops import math_ops

    num_shards = ops.convert_to_tensor(num_shards, name="num_shards", dtype=dtypes.int64)
    shard_index = ops.convert_to_tensor(shard_index, name="shard_index", dtype=dtypes.int64)
    n, i = ops.constant_value(num_shards), ops.constant_value(shard_index)
    if n is not None and n < 1:
        raise ValueError(f"num_shards must be >= 1; got: {n}")
    if i is not None and i < 0:
        raise ValueError(f"shard_index must be >= 0; got: {i}")
    if n is not None and i is not None and i >= n:
        raise ValueError(f"shard_index must be < num_shards; {i} is not < {n}")

    def keep(position, _):
        return math_ops.equal(math_ops.mod(position, num_shards), shard_index)

    return lambda dataset: dataset.enumerate().filter(keep).map(lambda _, elem: elem)


def prefetch_to_device(device, buffer_size=None):
    del device  # every device of this process shares the host's memory
    return lambda dataset: dataset.prefetch(AUTOTUNE if buffer_size is None else buffer_size)


def Counter(start=0, step=1, dtype=dtypes.int64):
    """An infinite dataset counting from ``start`` by ``step``: as TF 1.15 builds it, a scan
    over ``from_tensors(0).repeat()`` (so the graph holds TF's ops)."""
    from tideflow.framework import ops
    from tideflow.ops.dataset_more import scan

    with ops.name_scope("counter"):
        start = ops.convert_to_tensor(start, dtype=dtype, name="start")
        step = ops.convert_to_tensor(step, dtype=dtype, name="step")
        return Dataset.from_tensors(0).repeat(None).apply(
            scan(start, lambda state, _: (state + step, state)))


def copy_to_device(target_device, source_device="/cpu:0"):
    """The identity: every device of this process shares the host's memory."""
    del target_device, source_device
    return lambda dataset: dataset


_DEBUG_MODE = [False]


def enable_debug_mode():
    """Records the request; tideflow's pipelines already run each stage in order, without
    fusing or reordering, which is what debug mode gives in TF."""
    _DEBUG_MODE[0] = True


def from_list(elements, name=None):
    """A dataset of the given elements (each a nest of the same structure)."""
    import numpy as np

    from tideflow.ops import dataset_structure as ds

    del name
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    flat = [ds.flatten(e) for e in elements]
    stacked = [np.stack([np.asarray(f[i]) for f in flat]) for i in range(len(flat[0]))]
    return Dataset.from_tensor_slices(ds.pack(elements[0], stacked))


def parse_example_dataset(features, num_parallel_calls=1, deterministic=None):
    """A transformation parsing batches (vectors) of serialized ``Example`` protos into dicts
    of features (``tf.parse_example`` per element), by one ParseExampleDataset op as TF 1.15:
    its dense defaults made beside it (``key_<key>`` ...), a SparseFeature merged by a map
    after it."""
    from tideflow.ops.parsing_ops import SparseFeature, _assemble

    del deterministic
    if features is None:
        raise ValueError(f"Missing: features was {features}.")

    def apply(dataset):
        out = _ParseExampleDataset(dataset, features, num_parallel_calls)
        if any(isinstance(f, SparseFeature) for f in features.values()):
            out = out.map(lambda x: _assemble(features, [], [], list(x), list(x.values())),
                          num_parallel_calls=num_parallel_calls)
        return out

    return apply


def _ParseExampleDataset(dataset, features, num_parallel_calls):
    from tideflow.framework import ops
    from tideflow.framework.sparse_tensor import SparseTensor
    from tideflow.ops.dataset_ops import _OpDataset
    from tideflow.ops.dataset_structure import Spec
    from tideflow.ops.parsing_ops import _default_tensors, _split_features

    spec = dataset._specs
    if not (isinstance(spec, Spec) and spec.cls is ops.Tensor and spec.dtype == dtypes.string
            and spec.shape.is_compatible_with([None])):
        raise TypeError("Input dataset should be a dataset of vectors of strings")
    sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults = \
        _split_features(features, True)
    defaults = _default_tensors(dense_keys, dense_types, dense_shapes, dense_defaults)
    with ops.name_scope("ParseExampleDataset") as scope:  # as TF's generated op function
        npc = ops.convert_to_tensor(num_parallel_calls, dtype=dtypes.int64,
                                    name="num_parallel_calls")
    batch = spec.shape.merge_with([None])
    specs = {k: Spec(t, batch.concatenate(s))
             for k, t, s in zip(dense_keys, dense_types, dense_shapes)}
    specs.update((k, Spec(t, batch.concatenate([None]), SparseTensor))
                 for k, t in zip(sparse_keys, sparse_types))
    return _OpDataset("ParseExampleDataset", [dataset, npc, defaults], specs, attrs={
        "sparse_keys": sparse_keys, "dense_keys": dense_keys, "sparse_types": sparse_types,
        "dense_shapes": dense_shapes, "sloppy": False}, name=scope)


def _acceptance_with_mixing(initial, target):
    """TF's split of resampling into a mixture: with probability ``m`` (the smallest
    target/initial ratio) an element of the input as is, else one kept with probability
    ``(ratio - m) / (max ratio - m)``. Returns (acceptance per class, m)."""
    from tideflow.ops import reduction_ops

    ratio = target / (initial + np.finfo(initial.dtype.as_numpy_dtype).tiny)
    hi, lo = reduction_ops.reduce_max(ratio), reduction_ops.reduce_min(ratio)
    return (ratio - lo) / (hi - lo), lo


def _estimated_initial_dist(target, classes, batch=32, smoothing=10):
    """The class distribution seen so far (counts starting at ``smoothing``), one estimate
    per element, updated every ``batch`` elements (TF's online estimate)."""
    from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops

    n = target.get_shape()[0].value
    if n is None:
        n = array_ops.shape(target)[0]
    start = array_ops.fill([n], np.int64(smoothing))

    def update(seen, c):
        seen = seen + reduction_ops.reduce_sum(array_ops.one_hot(c, n, dtype=dtypes.int64), 0)
        dist = cast_ops.cast(math_ops.truediv(seen, reduction_ops.reduce_sum(seen)),
                             dtypes.float32)
        return seen, array_ops.tile(array_ops.expand_dims(dist, 0), [batch, 1])

    return classes.batch(batch).apply(scan(start, update)).apply(unbatch())


def rejection_resample(class_func, target_dist, initial_dist=None, seed=None):
    """A transformation resampling the dataset so its classes (``class_func(element)``, an
    int scalar) follow ``target_dist``; its elements are ``(class, element)`` pairs. As TF: an
    element of the input is passed on as is with probability ``m`` (the smallest ratio of
    target to input probability), otherwise drawn from the input by rejection; the input's
    distribution is ``initial_dist`` or, when that is None, estimated as the data comes."""
    from tideflow.framework import ops
    from tideflow.ops import array_ops, gather_ops, math_ops, random_ops

    def apply(dataset):
        target = ops.convert_to_tensor(target_dist, name="target_dist")
        classes = dataset.map(class_func)
        # (TF 1.15's datasets, in its order: the op count before a later seeded op is TF's)
        if initial_dist is not None:
            initial = ops.convert_to_tensor(initial_dist, name="initial_dist")
            accept, p_original = _acceptance_with_mixing(initial, target)
            initial_ds = Dataset.from_tensors(initial).repeat()
            accept_ds = Dataset.from_tensors(accept).repeat()
            p_original_ds = Dataset.from_tensors(p_original).repeat()
            t, i = np.asarray(target_dist), np.asarray(initial_dist)
            static = float(np.min(t / (i + np.finfo(i.dtype).tiny))) if (
                t.dtype.kind == "f" and i.dtype.kind == "f") else None
        else:
            initial_ds = _estimated_initial_dist(target, classes)
            mixing = initial_ds.map(lambda d: _acceptance_with_mixing(d, target))
            accept_ds = mixing.map(lambda a, _: a)
            p_original_ds = mixing.map(lambda _, p: p)
            static = None

        def with_accept(c, a, elem):
            return c, gather_ops.gather(a, c), elem

        # (TF pairs each acceptance with the input distribution to warn of high rejection)
        accept_ds = Dataset.zip((accept_ds, initial_ds)).map(lambda a, _: a)
        filtered = Dataset.zip((classes, accept_ds, dataset)).map(with_accept).filter(
            lambda c, p, e: math_ops.less(random_ops.random_uniform([], seed=seed), p)
        ).map(lambda c, p, e: (c, e)).prefetch(3)
        original = Dataset.zip((classes, dataset))
        if static == 1:
            return original
        if static == 0:
            return filtered
        weights = p_original_ds.map(lambda p: array_ops.stack([p, 1.0 - p]))
        return sample_from_datasets([original, filtered], weights=weights, seed=seed)

    return apply


_INFER_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string)


def _fits(text, dtype):
    if dtype == dtypes.string:
        return True
    try:
        if dtype.is_integer:
            v = int(text)
            return bool(dtype.min <= v <= dtype.max)
        with np.errstate(over="ignore"):
            return bool(abs(dtype.as_numpy_dtype(text)) < np.inf)
    except (ValueError, OverflowError):
        return False


def _infer_type(values, na_value=""):
    """TF's inference: each value moves the column to the first of int32, int64, float32,
    float64, string that holds it and every earlier value (empty and NA values do not
    count); a column without a value is a string column."""
    t = None
    for v in values:
        if v in ("", na_value):
            continue
        for i, cand in enumerate(_INFER_ORDER):
            if _fits(v, cand) and (t is None or t in _INFER_ORDER[:i + 1]):
                t = cand
                break
    return dtypes.string if t is None else t


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of CSV rows as ``(features, label)``: ``features`` an OrderedDict of column
    name to a batch of values. Column names come from the header (or ``column_names``);
    types from ``column_defaults`` or inferred (int32, int64, float32 or string) from the
    first ``num_rows_for_inference`` rows of the first file."""
    import csv
    import io

    import numpy as np

    from tideflow import gfile

    del sloppy
    if isinstance(file_pattern, str):
        file_pattern = [file_pattern]
    files = sorted({f for p in file_pattern for f in gfile.Glob(p)})
    if not files:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    rows = None
    if column_names is None or column_defaults is None:
        # as TF: the files are probed (read here) only to infer names or types, and only
        # uncompressed or GZIP files can be
        kind = compression_type.decode() if isinstance(compression_type, bytes) else (
            compression_type or "")
        if kind == "ZLIB":
            raise ValueError(f"compression_type ({compression_type}) is not supported for "
                             "probing columns")
        if kind not in ("", "GZIP"):
            raise ValueError(f"compression_type ({compression_type}) is not supported")

        def probe(filename):
            with gfile.GFile(filename, "rb") as f:
                data = f.read()
            if kind == "GZIP":
                import gzip

                data = gzip.decompress(data)
            text = data.decode(encoding)
            return [r for r in csv.reader(io.StringIO(text), delimiter=field_delim) if r]

        rows = probe(files[0])
    if column_names is None:
        if not header:
            raise ValueError("Cannot infer column names without a header line.")
        column_names = rows[0]
        for other in files[1:]:
            first = probe(other)[:1]
            if first and first[0] != column_names:
                raise ValueError("Files have different column names in the header row.")
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Encountered duplicate column names in `column_names`.")
    if select_columns is not None:
        sel = [c if isinstance(c, int) else column_names.index(c) for c in select_columns]
        sel = sorted(sel)
    else:
        sel = list(range(len(column_names)))
    names = [column_names[i] for i in sel]
    if label_name is not None and label_name not in names:
        raise ValueError(f"`label_name` provided must be one of the columns: {names}. "
                         f"Received: {label_name}.")
    if column_defaults is None:
        body = rows[1 if header else 0:][:num_rows_for_inference]
        for r in body:
            if len(r) != len(column_names):
                raise ValueError("Problem inferring types: CSV row has different number of "
                                 "fields than expected.")
        column_defaults = []
        for i in sel:
            t = _infer_type([r[i] if i < len(r) else "" for r in body], na_value)
            column_defaults.append("" if t == dtypes.string else np.zeros([], t.as_numpy_dtype))
    elif len(column_defaults) != len(sel):
        raise ValueError(f"The number of `column_defaults` ({len(column_defaults)}) does not "
                         f"match the number of selected columns ({len(sel)}).")

    def one_file(filename):
        return CsvDataset(filename, column_defaults, compression_type=compression_type,
                          header=header, field_delim=field_delim,
                          use_quote_delim=use_quote_delim, na_value=na_value,
                          select_cols=sel if select_columns is not None else None)

    d = Dataset.from_tensor_slices(files)
    if shuffle:
        d = d.shuffle(len(files), seed=shuffle_seed)
    d = d.interleave(one_file, cycle_length=num_parallel_reads or 1, block_length=1)
    if ignore_errors:
        d = d.ignore_errors()
    if shuffle:
        d = d.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    d = d.repeat(num_epochs)
    # as TF: an endless dataset has full batches only, so the batch dimension is static
    d = d.batch(batch_size, drop_remainder=num_epochs is None)

    def to_features(*cols):
        features = collections.OrderedDict(zip(names, cols))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    d = d.map(to_features)
    return d.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


map_and_batch_with_legacy_function = map_and_batch


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=None):
    """Not available: its batches are RaggedTensors, which tideflow's tf.data does not carry
    (use ``padded_batch`` or ``dense_to_sparse_batch``, or ``tf.RaggedTensor.from_tensor`` /
    ``from_sparse`` on the batches)."""
    raise NotImplementedError("dense_to_ragged_batch produces RaggedTensors, which tideflow's "
                              "tf.data does not carry; use Dataset.padded_batch or "
                              "tf.data.experimental.dense_to_sparse_batch (then "
                              "tf.RaggedTensor.from_sparse)")


def to_variant(dataset):
    """The dataset's variant tensor (the graph's handle of the pipeline)."""
    return dataset._as_variant_tensor()


def snapshot(path, compression="AUTO", reader_func=None, shard_func=None):
    """A transformation persisting the dataset's elements under ``path`` on the first complete
    pass and reading them back afterwards (in this and later runs): tideflow's file cache,
    ``Dataset.cache(path/snapshot)``. ``compression``, ``reader_func`` and ``shard_func`` are
    accepted; the cache is one uncompressed file set."""
    import os

    del compression, reader_func, shard_func

    def apply(dataset):
        os.makedirs(path, exist_ok=True)
        return dataset.cache(os.path.join(path, "snapshot"))

    return apply


def pad_to_cardinality(cardinality, mask_key="valid"):
    """A transformation padding a dataset of dicts to ``cardinality`` elements: each element
    gets ``mask_key`` True, the added ones are zeros with ``mask_key`` False."""
    import numpy as np

    from tideflow.ops import fill_ops, math_ops

    def apply(dataset):
        specs = dataset._specs
        if not isinstance(specs, dict):
            raise ValueError(f"pad_to_cardinality requires its input dataset to be a "  # noqa: TRY004
                             f"dictionary, got {dataset.output_types}")
        if mask_key in specs:
            raise ValueError(f"The mask key {mask_key!r} is already a key of the elements.")
        for k, s in specs.items():
            if not s.shape.is_fully_defined() or s.is_sparse:
                raise ValueError(f"pad_to_cardinality: component {k!r} must be a dense tensor "
                                 f"of fully defined shape, got {s.shape}")
        current = _cardinality_of_dataset(dataset)

        def add_mask(elem):
            out = dict(elem)
            out[mask_key] = True
            return out

        padding = {k: fill_ops.zeros(s.shape.as_list(), s.dtype) for k, s in specs.items()}
        padding[mask_key] = False
        missing = math_ops.maximum(np.int64(cardinality) - current, np.int64(0))
        pad = Dataset.from_tensors(padding).repeat(missing)
        return dataset.map(add_mask).concatenate(pad)

    return apply


def _cardinality_of_dataset(dataset):
    from tideflow.ops.dataset_more import cardinality as card

    return card(dataset)


class DatasetInitializer:
    """A table initializer from a dataset of ``(key, value)`` pairs
    (``tf.data.experimental.DatasetInitializer``)."""

    def __new__(cls, dataset):
        from tideflow import lookup

        flat = dataset.output_types
        if not (isinstance(flat, tuple) and len(flat) == 2):
            raise ValueError(f"The dataset's elements must be (key, value) pairs, got "
                             f"{dataset.output_types}")
        keys, values = get_single_element(dataset.batch(np.iinfo(np.int64).max))
        return lookup.KeyValueTensorInitializer(keys, values)


def table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None, default_value=None,
                       hasher_spec=None, key_dtype=dtypes.string, name=None):
    """A lookup table from a dataset of ``(key, value)`` pairs: a StaticHashTable returning
    ``default_value`` for missing keys, or with ``num_oov_buckets`` a StaticVocabularyTable."""
    from tideflow import lookup

    del hasher_spec, key_dtype
    if vocab_size is not None:
        dataset = dataset.apply(assert_cardinality(vocab_size))
    init = DatasetInitializer(dataset)
    if num_oov_buckets:
        return lookup.StaticVocabularyTable(init, num_oov_buckets, name=name)
    if default_value is None:
        raise ValueError("table_from_dataset: default_value is required without "
                         "num_oov_buckets")
    return lookup.StaticHashTable(init, default_value, name=name)


def index_table_from_dataset(dataset=None, num_oov_buckets=0, vocab_size=None,
                             default_value=-1, hasher_spec=None, key_dtype=dtypes.string,
                             name=None):
    """A table mapping each key of ``dataset`` to its position (int64)."""
    return table_from_dataset(dataset.enumerate().map(lambda i, k: (k, i)), num_oov_buckets,
                              vocab_size, default_value, hasher_spec, key_dtype, name)


def make_batched_features_dataset(file_pattern, batch_size, features, reader=None,
                                  label_key=None, reader_args=None, num_epochs=None,
                                  shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                                  prefetch_buffer_size=None, reader_num_threads=None,
                                  parser_num_threads=None, sloppy_ordering=False,
                                  drop_final_batch=False):
    """Batches of parsed ``Example`` records: dicts of features (and the label, with
    ``label_key``), from the files matching ``file_pattern`` (TFRecords by default). As TF:
    an endless dataset (``num_epochs=None``) drops the last partial batch, so its batch
    dimension is static; a reader giving (key, value) pairs has its values parsed."""
    from tideflow.ops.dataset_readers import TFRecordDataset

    reader = reader or TFRecordDataset
    files = Dataset.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    d = files.apply(parallel_interleave(lambda f: reader(f, *(reader_args or [])),
                                        cycle_length=reader_num_threads or 1,
                                        sloppy=sloppy_ordering))
    if d.output_types == (dtypes.string, dtypes.string):
        d = d.map(lambda _, v: v)
    # as TF 1.15: one ShuffleAndRepeatDataset where both are asked for
    if num_epochs != 1 and shuffle:
        d = d.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
    elif shuffle:
        d = d.shuffle(shuffle_buffer_size, shuffle_seed)
    elif num_epochs != 1:
        d = d.repeat(num_epochs)
    d = d.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    d = d.apply(parse_example_dataset(features, num_parallel_calls=parser_num_threads or 2))
    if label_key:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key!r}) must be one of the "
                             f"`features` keys.")
        d = d.map(lambda x: (x, x.pop(label_key)))
    return d.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


DatasetStructure = DatasetSpec
OptionalStructure = OptionalSpec
Structure = TypeSpec


def _type_specs():
    from tideflow.ops import function_ops

    return function_ops


def TensorStructure(dtype, shape):
    """``tf.TensorSpec(shape, dtype)`` under TF 1.x's name."""
    return _type_specs().TensorSpec(shape, dtype)


def SparseTensorStructure(dtype, shape):
    """``tf.SparseTensorSpec(shape, dtype)`` under TF 1.x's name."""
    return _type_specs().SparseTensorSpec(shape, dtype)


def RaggedTensorStructure(dtype, shape, ragged_rank):
    """``tf.RaggedTensorSpec(shape, dtype, ragged_rank)`` under TF 1.x's name."""
    from tideflow.framework.tensor_shape import as_shape
    from tideflow.ops.ragged_tensor import RaggedTensorSpec

    return RaggedTensorSpec(as_shape(shape), dtype, ragged_rank)


def TensorArrayStructure(dtype, element_shape, dynamic_size, infer_shape):
    """``tf.TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)`` under TF 1.x's
    name."""
    from tideflow.ops.wrapped_function import TensorArraySpec

    return TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)



def __getattr__(name):
    # the hook lives with the other training hooks (ops do not import train at load time)
    if name == "CheckpointInputPipelineHook":
        from tideflow.train.input_pipeline_hook import CheckpointInputPipelineHook

        return CheckpointInputPipelineHook
    raise AttributeError(f"module 'tf.data.experimental' has no attribute {name!r}")
