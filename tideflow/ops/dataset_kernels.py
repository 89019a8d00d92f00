"""Dataset op declarations (``TensorSliceDataset``, ``MapDataset``, ``BatchDatasetV2``...).

Each op outputs a ``variant`` scalar: a ``dataset_values.DatasetValue`` describing its stage.
Function attrs (``f``, ``predicate``) name bodies in the graph's library, compiled once per
session and node; their captured tensors arrive as ``other_arguments``.
"""

import traceback

import numpy as np

from tideflow.framework import dtypes, errors, func_graph, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tideflow.ops import dataset_values as dv
from tideflow.ops.dataset_structure import SparseValue
from tideflow.runtime.rendezvous import StepAborted

_OUT = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]


def _scalar_shape(op):
    return [scalar()]


def compiled(ctx, attr):
    """The body named by function attr ``attr`` of ``ctx.op``, compiled once per session."""
    op = ctx.op

    def make():
        fg = func_graph.lookup_function(op._graph, op._attrs[attr])
        return _direct(func_graph.compile_function(fg, ctx))

    return ctx.node_state(("fn", attr), make)


class _FreshRandomState(dict):
    """A function's node states for one iterator: the random generators its seeded random
    ops make are its own, all else is the session's (see ``_declare``)."""

    def __init__(self, parent):
        super().__init__()
        self.parent = parent

    def _own(self, key):
        return isinstance(key, tuple) and len(key) == 2 and key[1] in ("rng", "philox")

    def get(self, key, default=None):
        if self._own(key):
            return super().get(key, default)
        return self.parent.get(key, default)

    def setdefault(self, key, default=None):
        if self._own(key):
            return super().setdefault(key, default)
        return self.parent.setdefault(key, default)

    def __getitem__(self, key):
        return super().__getitem__(key) if self._own(key) else self.parent[key]

    def __setitem__(self, key, value):
        if self._own(key):
            super().__setitem__(key, value)
        else:
            self.parent[key] = value

    def __contains__(self, key):
        return super().__contains__(key) if self._own(key) else key in self.parent


def _has_seeded_random(fg, graph, seen):
    """Whether the body ``fg`` (or a body it calls) holds a random op with a fixed seed."""
    if fg.name in seen:
        return False
    seen.add(fg.name)
    for op in fg.get_operations():
        attrs = op._attrs
        if "seed" in attrs and "seed2" in attrs and (attrs["seed"] or attrs["seed2"]):
            return True
        for value in attrs.values():
            name = value if isinstance(value, str) else getattr(value, "name", None)
            if isinstance(name, str) and name in graph._functions and _has_seeded_random(
                    graph._functions[name], graph, seen):
                return True
    return False


def _fresh(ctx, attr):
    """The body of function attr ``attr`` compiled anew, its seeded random ops starting over:
    TF instantiates a dataset's functions for each iterator it initializes, so a seeded
    random op in a map function gives the same values for every iterator (each epoch of a
    re-initialized iterator)."""
    from tideflow.kernels.device import KernelContext

    op = ctx.op
    fg = func_graph.lookup_function(op._graph, op._attrs[attr])
    fresh = KernelContext(op, ctx.device, _FreshRandomState(ctx.session_state), ctx.session)
    return _direct(func_graph.compile_function(fg, fresh))


def _direct(call):
    """``call`` (a compiled function) calling its plan's code directly, per element: without
    ``Plan.run``'s layers and its ``np.errstate`` (~3 us of a ~35 us parse map's element). The
    threads a pipeline runs in ignore NumPy's floating-point warnings already (the GetNext
    kernel's step, prefetch and map threads); a failure maps to its op as ``Plan.run`` maps
    it. Plans that take the intra-op pool keep ``Plan.run``."""
    plan = getattr(call, "plan", None)
    raw = getattr(plan, "_run", None)
    if raw is None or not plan.ops or plan.uses_pool:
        return call
    op_error = plan.op_error

    def direct(*values, step=None):
        try:
            return raw(values, step)
        except StepAborted:
            raise
        except Exception as e:  # noqa: BLE001 - any kernel failure maps to its op
            traceback.clear_frames(e.__traceback__)
            raise op_error(e) from (None if isinstance(e, errors.OpError) else e)

    direct.plan = plan
    return direct


def _int(x):
    return int(np.asarray(x).reshape(()))


def _declare(name, inputs, make, attrs=(), fn_attrs=(), newer_attrs=()):
    """Declares a dataset op whose kernel is ``make(ctx, *inputs)`` -> DatasetValue."""

    def factory(ctx):
        fns = [compiled(ctx, a) for a in fn_attrs]
        seen = set()
        reseed = [_has_seeded_random(func_graph.lookup_function(ctx.op._graph,
                                                                ctx.op._attrs[a]),
                                     ctx.op._graph, seen) for a in fn_attrs]
        if not any(reseed):
            def run(*args):
                return make(ctx, *fns, *args)
        else:
            def run(*args):  # a new dataset value (an iterator's): fresh random ops
                now = [_fresh(ctx, a) if r else f for a, f, r in zip(fn_attrs, fns, reseed)]
                return make(ctx, *now, *args)

        return run

    op_registry.declare(
        name,
        inputs=inputs,
        outputs=["handle: variant"],
        attrs=list(attrs),
        shape=_scalar_shape,
        kernel_factory=factory,
        differentiable=False,
        newer_attrs=newer_attrs,
    )


# ------------------------------------------------------------------------------------------
# sources
# ------------------------------------------------------------------------------------------

_declare("TensorSliceDataset", ["components: Toutput_types"],
         lambda ctx, comps: dv.TensorSlices(comps),
         ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1"])
class _SparseSlices(dv.DatasetValue):
    """``SparseTensorSliceDataset``: row ``i`` of a SparseTensor as the dense triple
    (indices of its entries without the row, their values, the dense shape without the
    row); the entries must be in row-major order, as TF's kernel requires."""

    def __init__(self, indices, values, dense_shape):
        dense_shape = np.asarray(dense_shape, np.int64)
        indices = np.asarray(indices, np.int64).reshape(len(values), dense_shape.size)
        if indices.shape[0] > 1:
            keys = np.ravel_multi_index(indices.T, dense_shape) if dense_shape.size else None
            if keys is not None and np.any(np.diff(keys) < 0):
                raise errors.UnimplementedError(
                    None, None, "SparseTensorSliceDataset: the sparse tensor's indices must "
                    "be in row-major (canonical) order")
        self.rest = dense_shape[1:]
        self.n = int(dense_shape[0]) if dense_shape.size else 0
        rows = indices[:, 0] if indices.shape[1] else np.zeros(len(values), np.int64)
        self.bounds = np.searchsorted(rows, np.arange(self.n + 1))
        self.indices, self.values = indices[:, 1:], np.asarray(values)

    def cardinality(self):
        return self.n

    def iterate(self, rt):
        b, ind, vals, rest = self.bounds, self.indices, self.values, self.rest
        for i in range(self.n):
            yield [ind[b[i]:b[i + 1]], vals[b[i]:b[i + 1]], rest]


_declare("SparseTensorSliceDataset",
         ["indices: int64", "values: Tvalues", "dense_shape: int64"],
         lambda ctx, ind, vals, shape: _SparseSlices(ind, vals, shape),
         ["Tvalues: type", *_OUT])
_declare("TensorDataset", ["components: Toutput_types"],
         lambda ctx, comps: dv.Tensors(comps),
         ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1"])
_declare("RangeDataset", ["start: int64", "stop: int64", "step: int64"],
         lambda ctx, a, b, c: dv.Range(_int(a), _int(b), _int(c)), _OUT)


def _generator(ctx, args):
    op = ctx.op
    root = getattr(op._graph, "_root", None) or op._graph
    token = op._attrs["token"]
    entry = getattr(root, "_py_generators", {}).get(token)
    if entry is None:
        raise errors.InvalidArgumentError(None, op, f"No generator registered for {token!r} "
                                          "(from_generator datasets cannot be imported).")
    specs = op._attrs["output_types"], op._attrs["output_shapes"]
    vals = [_py_arg(a) for a in args]
    return dv.Generator(entry[0], vals, list(specs[0]), list(specs[1]), entry[1])


def _py_arg(a):
    a = np.asarray(a)
    return a[()] if a.ndim == 0 else a


# tideflow's own op: TF builds from_generator from py_func and GeneratorDataset
_declare("PyGeneratorDataset", ["args: Targuments"], _generator,
         ["token: string", "Targuments: list(type) >= 0", *_OUT])

# ------------------------------------------------------------------------------------------
# transformations
# ------------------------------------------------------------------------------------------

_FN = ["Targuments: list(type) >= 0", *_OUT]

_declare("ZipDataset", ["input_datasets: N * variant"],
         lambda ctx, ds: dv.Zip(ds), [*_OUT, "N: int >= 1"])
_declare("ConcatenateDataset", ["input_dataset: variant", "another_dataset: variant"],
         lambda ctx, a, b: dv.Concatenate(a, b), _OUT)
_declare("MapDataset", ["input_dataset: variant", "other_arguments: Targuments"],
         lambda ctx, fn, d, args: dv.Map(d, fn, args),
         ["f: func", *_FN, "use_inter_op_parallelism: bool = true",
          "preserve_cardinality: bool = false"], fn_attrs=["f"])
_declare("ParallelMapDataset", ["input_dataset: variant", "other_arguments: Targuments",
                                "num_parallel_calls: int32"],
         lambda ctx, fn, d, args, n: dv.Map(d, fn, args, _parallelism(n)),
         ["f: func", *_FN, "use_inter_op_parallelism: bool = true", "sloppy: bool = false",
          "preserve_cardinality: bool = false"], fn_attrs=["f"])
_declare("FilterDataset", ["input_dataset: variant", "other_arguments: Targuments"],
         lambda ctx, fn, d, args: dv.Filter(d, fn, args),
         ["predicate: func", *_FN], fn_attrs=["predicate"])
_declare("FlatMapDataset", ["input_dataset: variant", "other_arguments: Targuments"],
         lambda ctx, fn, d, args: dv.FlatMap(d, fn, args), ["f: func", *_FN], fn_attrs=["f"])
_declare("InterleaveDataset", ["input_dataset: variant", "other_arguments: Targuments",
                               "cycle_length: int64", "block_length: int64"],
         lambda ctx, fn, d, args, c, b: dv.Interleave(d, fn, args, _int(c), _int(b),
                                                      slot_seeds=ctx.op.name),
         ["f: func", *_FN], fn_attrs=["f"])
def _interleave_lengths(cycle, block):
    # TF 1.15's ParallelInterleaveDataset(V2) words for these (InterleaveDataset's differ)
    if cycle <= 0:
        raise errors.InvalidArgumentError(None, None, "`cycle_length` must be > 0")
    if block <= 0:
        raise errors.InvalidArgumentError(None, None, "`block_length` must be > 0")


def _legacy_parallel_interleave(ctx, fn, d, args, cycle, block, sloppy, buffered, prefetched):
    _interleave_lengths(_int(cycle), _int(block))
    if _int(buffered) <= 0:
        raise errors.InvalidArgumentError(None, None, "`buffer_output_elements` must be "
                                          "greater than zero.")
    if _int(prefetched) < 0:
        raise errors.InvalidArgumentError(None, None, "`prefetch_input_elements` must be "
                                          "greater than or equal to zero.")
    return dv.Interleave(d, fn, args, _int(cycle), _int(block), error_takes_slot=True)


def _parallel_interleave_v2(ctx, fn, d, args, cycle, block, n):
    # Dataset.interleave(num_parallel_calls=...): TF 1.15 checks the lengths, then that the
    # calls are positive (or AUTOTUNE) and no more than the cycle (AUTOTUNE's: the CPUs)
    cycle, block, n = _int(cycle), _int(block), _int(n)
    if cycle == -1:
        import os

        cycle = os.cpu_count() or 1
    _interleave_lengths(cycle, block)
    if n != -1 and n <= 0:
        raise errors.InvalidArgumentError(None, None, "num_parallel_calls must be greater "
                                          "than zero.")
    if n > cycle:
        raise errors.InvalidArgumentError(None, None, "num_parallel_calls must less than or "
                                          "equal to cycle_length.")
    return dv.Interleave(d, fn, args, cycle, block)


# tf.data.experimental.parallel_interleave's op (its elements in the deterministic order)
_declare("ParallelInterleaveDataset",
         ["input_dataset: variant", "other_arguments: Targuments", "cycle_length: int64",
          "block_length: int64", "sloppy: bool", "buffer_output_elements: int64",
          "prefetch_input_elements: int64"],
         _legacy_parallel_interleave, ["f: func", *_FN], fn_attrs=["f"])
_declare("ParallelInterleaveDatasetV2",
         ["input_dataset: variant", "other_arguments: Targuments", "cycle_length: int64",
          "block_length: int64", "num_parallel_calls: int64"],
         _parallel_interleave_v2, ["f: func", *_FN, "sloppy: bool = false"], fn_attrs=["f"])


def _parallelism(n):
    n = _int(n)
    if n == -1:  # AUTOTUNE
        import os

        return os.cpu_count() or 1
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, "num_parallel_calls must be greater "
                                          "than zero.")
    return n


_declare("BatchDatasetV2", ["input_dataset: variant", "batch_size: int64",
                            "drop_remainder: bool"],
         lambda ctx, d, n, drop: dv.Batch(d, _int(n), bool(drop),
                                          ctx.op._attrs["output_types"],
                                          ctx.op in dv.UNFUSED_BATCHES),
         ["parallel_copy: bool = false", *_OUT])
_declare("MapAndBatchDataset",
         ["input_dataset: variant", "other_arguments: Targuments", "batch_size: int64",
          "num_parallel_calls: int64", "drop_remainder: bool"],
         lambda ctx, fn, d, args, n, npc, drop: dv.MapAndBatch(
             d, fn, args, _int(n), _parallelism(npc), bool(drop),
             ctx.op._attrs["output_types"]),
         ["f: func", *_FN, "preserve_cardinality: bool = false"], fn_attrs=["f"])
_declare("PaddedBatchDatasetV2",
         ["input_dataset: variant", "batch_size: int64", "padded_shapes: N * int64",
          "padding_values: Toutput_types", "drop_remainder: bool"],
         lambda ctx, d, n, shapes, pads, drop: dv.PaddedBatch(
             d, _int(n), shapes, pads, bool(drop), ctx.op._attrs["Toutput_types"]),
         ["parallel_copy: bool = false", "Toutput_types: list(type) >= 1",
          "output_shapes: list(shape) >= 1", "N: int >= 1"])
_declare("UnbatchDataset", ["input_dataset: variant"], lambda ctx, d: dv.Unbatch(d), _OUT)
_declare("ShuffleDataset", ["input_dataset: variant", "buffer_size: int64", "seed: int64",
                            "seed2: int64"],
         lambda ctx, d, n, s, s2: dv.Shuffle(d, _int(n), _int(s), _int(s2),
                                             ctx.op._attrs["reshuffle_each_iteration"],
                                             ctx.op.name),
         ["reshuffle_each_iteration: bool = true", *_OUT])
def _parse_examples(ctx, d, num_parallel_calls, defaults):
    # each element (a vector of serialized Examples) through ParseExample's kernel, its
    # results as the element's components (in key order; a sparse feature as one SparseValue)
    from tideflow.ops import parsing_ops

    attrs = ctx.op._attrs
    sparse_keys = [parsing_ops._as_str(k) for k in attrs["sparse_keys"]]
    dense_keys = [parsing_ops._as_str(k) for k in attrs["dense_keys"]]
    n, keys = len(sparse_keys), sparse_keys + dense_keys
    dup = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if dup is not None:  # (a VarLenFeature's key that a SparseFeature also reads)
        raise errors.InvalidArgumentError(None, None, f"Duplicate key not allowed: {dup}")
    order = sorted(range(len(keys)), key=keys.__getitem__)
    no_names = np.zeros(0, object)

    def parse(serialized):
        outs = parsing_ops._parse_example_kernel(
            serialized, no_names, sparse_keys, dense_keys, defaults,
            sparse_types=attrs["sparse_types"], Tdense=attrs["Tdense"],
            dense_shapes=attrs["dense_shapes"])
        comps = [SparseValue(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]
        comps += outs[3 * n:]
        return [comps[i] for i in order]

    return dv.Map(d, parse, [])


_declare("ParseExampleDataset",
         ["input_dataset: variant", "num_parallel_calls: int64", "dense_defaults: Tdense"],
         _parse_examples,
         ["sparse_keys: list(string) >= 0", "dense_keys: list(string) >= 0",
          "sparse_types: list({float,int64,string}) >= 0",
          "Tdense: list({float,int64,string}) >= 0", "dense_shapes: list(shape) >= 0", *_OUT,
          "sloppy: bool = false"])


# TF 1.15's default noop_elimination drops these stages before the fusion below (it runs on
# the pipeline as the iterator serializes it, where a fed count is a constant too), so a
# shuffle followed by skip(0)/take(-1)/repeat(1)/prefetch(0) and a repeat still fuses, and a
# shuffle's repeat(1) alone does not
_NOOPS = {dv.Take: lambda d: d.count < 0, dv.Skip: lambda d: d.count == 0,
          dv.Repeat: lambda d: d.count == 1, dv.Prefetch: lambda d: d.size == 0}


def _repeat(ctx, d, n):
    # TF 1.15's default shuffle_and_repeat_fusion (unless the dataset's options turn it off)
    n, src = _int(n), d
    if ctx.op not in dv.NOOPS_KEPT:
        if n == 1:
            return dv.Repeat(d, n)
        while type(src) in _NOOPS and _NOOPS[type(src)](src):
            src = src.input
    if (type(src) is dv.Shuffle and src.reshuffle
            and ctx.op not in dv.UNFUSED_REPEATS):
        return dv.ShuffleAndRepeat(src, n)
    return dv.Repeat(d, n)


_declare("RepeatDataset", ["input_dataset: variant", "count: int64"], _repeat, _OUT)
_declare("ShuffleAndRepeatDataset",
         ["input_dataset: variant", "buffer_size: int64", "seed: int64", "seed2: int64",
          "count: int64"],
         lambda ctx, d, n, s, s2, c: dv.ShuffleAndRepeat(
             dv.Shuffle(d, _int(n), _int(s), _int(s2), True), _int(c)), _OUT)
_declare("TakeDataset", ["input_dataset: variant", "count: int64"],
         lambda ctx, d, n: dv.Take(d, _int(n)), _OUT)
_declare("SkipDataset", ["input_dataset: variant", "count: int64"],
         lambda ctx, d, n: dv.Skip(d, _int(n)), _OUT)
_declare("ShardDataset", ["input_dataset: variant", "num_shards: int64", "index: int64"],
         lambda ctx, d, n, i: dv.Shard(d, _int(n), _int(i)),
         ["require_non_empty: bool = false", *_OUT])
_declare("CacheDataset", ["input_dataset: variant", "filename: string"],
         lambda ctx, d, f: dv.Cache(d, _str(f)), _OUT)
_declare("PrefetchDataset", ["input_dataset: variant", "buffer_size: int64"],
         lambda ctx, d, n: dv.Prefetch(d, _int(n)), [*_OUT, "slack_period: int = 0"])
_declare("IgnoreErrorsDataset", ["input_dataset: variant"],
         lambda ctx, d: dv.SetErrors(d), _OUT)


def _str(x):
    x = np.asarray(x).reshape(())[()]
    return x.decode() if isinstance(x, bytes) else str(x)


# ------------------------------------------------------------------------------------------
# sparse components (one variant value each inside a pipeline)
# ------------------------------------------------------------------------------------------


def _serialize_sparse_kernel(indices, values, dense_shape, *, out_type):
    if out_type != dtypes.variant:
        # the string form: three serialized TensorProtos (indices, values, dense_shape)
        from tideflow.ops.sparse_extra_ops import _check_sparse, _proto_bytes

        parts = _check_sparse(indices, values, dense_shape)
        out = np.empty([3], dtype=object)
        out[:] = [_proto_bytes(p) for p in parts]
        return out
    return SparseValue(np.array(indices, np.int64), np.array(values),
                       np.array(dense_shape, np.int64))


def _deserialize_sparse_kernel(serialized, *, dtype):
    v = serialized
    if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 0:
        v = v[()]
    if not isinstance(v, SparseValue):
        raise errors.InvalidArgumentError(None, None, "DeserializeSparse: expected a sparse "
                                          f"variant, got {type(v).__name__}")
    vals = v.values
    if dtype != dtypes.string:
        vals = vals.astype(dtype.as_numpy_dtype, copy=False)
    return [v.indices, vals, v.dense_shape]


op_registry.declare(
    "SerializeSparse",
    inputs=["sparse_indices: int64", "sparse_values: T", "sparse_shape: int64"],
    outputs=["serialized_sparse: out_type"],
    attrs=["T: type", "out_type: {string, variant} = DT_STRING"],
    shape=lambda op: [scalar() if op._attrs["out_type"] == dtypes.variant
                      else TensorShape([3])],
    kernel=_serialize_sparse_kernel,
    differentiable=False,
)

op_registry.declare(
    "DeserializeSparse",
    inputs=["serialized_sparse: Tserialized"],
    outputs=["sparse_indices: int64", "sparse_values: dtype", "sparse_shape: int64"],
    attrs=["dtype: type", "Tserialized: {string, variant} = DT_STRING"],
    shape=lambda op: [unknown_shape(2), unknown_shape(1), unknown_shape(1)],
    kernel=_deserialize_sparse_kernel,
    differentiable=False,
)


def serialize_sparse(st):
    """A sparse tensor as one variant scalar (a dataset's wire form of a SparseTensor)."""
    return ops.apply_op("SerializeSparse", [st.indices, st.values, st.dense_shape],
                        {"out_type": dtypes.variant}, name="SerializeSparse")._outputs[0]


def deserialize_sparse(t, dtype, shape):
    """The SparseTensor held by the variant scalar ``t``, of ``shape``'s rank: as in TF 1.15,
    its dimensions are not known statically (a map function's sparse argument, returned as
    is, has an unknown shape)."""
    from tideflow.framework.sparse_tensor import SparseTensor

    op = ops.apply_op("DeserializeSparse", [t], {"dtype": dtype, "Tserialized": dtypes.variant},
                      name="DeserializeSparse")
    ind, vals, dense = op._outputs
    if shape.ndims is not None:
        ind.set_shape([None, shape.ndims])
        dense.set_shape([shape.ndims])
    return SparseTensor(ind, vals, dense)


# -- ragged components travel as one variant scalar: a RaggedTensorValue --------------------


def _ragged_to_variant_kernel(splits, values, *, batched_input):
    from tideflow.ops.ragged_value import RaggedTensorValue

    if batched_input:
        raise errors.UnimplementedError(None, None, "RaggedTensorToVariant: batched_input=True "
                                        "is not supported")
    out = np.asarray(values)
    for s in reversed(splits):
        out = RaggedTensorValue(out, np.asarray(s, np.int64))
    return out


def _ragged_from_variant_kernel(encoded, *, output_ragged_rank, Tvalues, Tsplits):
    from tideflow.ops.ragged_value import RaggedTensorValue

    v = encoded
    if isinstance(v, np.ndarray) and v.dtype == object and v.ndim == 0:
        v = v[()]
    if output_ragged_rank == 0 and isinstance(v, np.ndarray):
        return [v if Tvalues == dtypes.string else v.astype(Tvalues.as_numpy_dtype, copy=False)]
    if not isinstance(v, RaggedTensorValue) or v.ragged_rank != output_ragged_rank:
        got = v.ragged_rank if isinstance(v, RaggedTensorValue) else type(v).__name__
        raise errors.InvalidArgumentError(
            None, None, f"RaggedTensorFromVariant: expected a ragged variant of ragged_rank "
            f"{output_ragged_rank}, got {got}")
    values = v.flat_values
    if Tvalues != dtypes.string:
        values = values.astype(Tvalues.as_numpy_dtype, copy=False)
    splits = [np.asarray(s, Tsplits.as_numpy_dtype) for s in v.nested_row_splits]
    return [*splits, values]


op_registry.declare(
    "RaggedTensorToVariant",
    inputs=["rt_nested_splits: RAGGED_RANK * Tsplits", "rt_dense_values: Tvalues"],
    outputs=["encoded_ragged: variant"],
    attrs=["RAGGED_RANK: int >= 1", "Tvalues: type", "Tsplits: {int32, int64} = DT_INT64",
           "batched_input: bool"],
    shape=lambda op: [scalar() if not op._attrs["batched_input"] else unknown_shape(1)],
    kernel=_ragged_to_variant_kernel,
    differentiable=False,
)

op_registry.declare(
    "RaggedTensorFromVariant",
    inputs=["encoded_ragged: variant"],
    outputs=["output_nested_splits: output_ragged_rank * Tsplits",
             "output_dense_values: Tvalues"],
    attrs=["input_ragged_rank: int >= -1", "output_ragged_rank: int >= 0", "Tvalues: type",
           "Tsplits: {int32, int64} = DT_INT64"],
    shape=lambda op: ([unknown_shape(1)] * op._attrs["output_ragged_rank"]
                      + [unknown_shape()]),
    kernel=_ragged_from_variant_kernel,
    differentiable=False,
)


def ragged_to_variant(rt):
    """A RaggedTensor as one variant scalar (a dataset's wire form of it)."""
    splits = list(rt.nested_row_splits)
    return ops.apply_op("RaggedTensorToVariant", [splits, rt.flat_values],
                        {"batched_input": False}, name="RaggedTensorToVariant")._outputs[0]


def ragged_from_variant(t, dtype, shape, ragged_rank):
    """The RaggedTensor of ragged rank ``ragged_rank`` held by the variant scalar ``t``, with
    the static shape ``shape`` where its row splits and values can carry it."""
    from tideflow.ops.ragged_tensor import RaggedTensor

    op = ops.apply_op("RaggedTensorFromVariant", [t],
                      {"input_ragged_rank": ragged_rank, "output_ragged_rank": ragged_rank,
                       "Tvalues": dtype, "Tsplits": dtypes.int64},
                      name="RaggedTensorFromVariant")
    *splits, values = op._outputs
    if ragged_rank == 0:
        values.set_shape(shape)
        return values
    if shape.ndims is not None:
        values.set_shape(TensorShape([None]).concatenate(shape[ragged_rank + 1:]))
        if shape[0].value is not None:
            splits[0].set_shape([shape[0].value + 1])
    return RaggedTensor.from_nested_row_splits(values, splits, validate=False)
