"""Parsing ``tf.train.Example`` and ``SequenceExample`` protos into tensors.

The feature configurations (``FixedLenFeature``, ``VarLenFeature``, ``FixedLenSequenceFeature``,
``SparseFeature``), the ParseExample, ParseSingleExample and ParseSingleSequenceExample ops,
whose kernels decode the serialized protos with our generated ``example_pb2``, and the
``tf.parse_*`` wrappers.
"""

import collections
import math
import re

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape, as_shape, matrix, unknown_shape, vector

# TF's parsing_ops module also holds these
from tideflow.ops.decode_ops import decode_csv, decode_raw, decode_raw_v1  # noqa: F401

# ------------------------------------------------------------------------------------------
# Feature configurations
# ------------------------------------------------------------------------------------------


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature with any number of values, parsed into a ``SparseTensor``."""


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature with exactly ``prod(shape)`` values, parsed into a dense tensor of ``shape``.

    A missing feature takes ``default_value``; without one it is an error.
    """

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature holding any number of elements of ``shape``, parsed densely.

    In ``parse_example`` the batch is padded with ``default_value`` (zeros by default) to its
    longest entry; there ``allow_missing`` must be True.
    """

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A sparse feature given by index feature(s) and a value feature of the same length."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


_KINDS = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_NP = {dtypes.float32: np.float32, dtypes.int64: np.int64, dtypes.string: object}
_TYPE_NAME = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _shape_str(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


# ------------------------------------------------------------------------------------------
# Decoding one Features map
# ------------------------------------------------------------------------------------------


def _example_pb2():
    from tideflow.protos import example_pb2

    return example_pb2


def _decode(cls, data, name):
    msg = cls()
    try:
        msg.ParseFromString(bytes(data))
    except Exception:  # noqa: BLE001 - any decode failure is a corrupt record
        raise _invalid("Could not parse example input, value: "
                       f"'{bytes(data).decode('utf-8', 'backslashreplace')}'") from None
    return msg


def _debug_string(feature):
    """A Feature as TF's DebugString prints it (multi-line; floats as C++'s SimpleFtoa)."""
    from tideflow.ops.logging_ops import _c_escape, _format_float

    kind = feature.WhichOneof("kind")
    if kind is None:
        return ""
    vals = getattr(feature, kind).value
    if kind == "bytes_list":
        shown = [f'"{_c_escape(bytes(v))}"' for v in vals]
    elif kind == "float_list":
        shown = [_format_float(float(v), 32) for v in vals]
    else:
        shown = [str(int(v)) for v in vals]
    return f"{kind} {{\n" + "".join(f"  value: {v}\n" for v in shown) + "}\n"


def _values(feature, dtype, where, sparse=False, context=False):
    """The values of a Feature proto as a NumPy array of ``dtype``; a type mismatch is an error
    in the words of TF's parser of that kind of feature."""
    want = _KINDS[dtype]
    kind = feature.WhichOneof("kind")
    if kind is None:
        return np.zeros(0, dtype=_NP[dtype])
    if kind != want:
        if context:
            raise _invalid(f"{where}.  Data types don't match. Expected type: "
                           f"{dtypes.type_string(dtype)}  Feature is: {_debug_string(feature)}")
        if sparse:
            raise _invalid(f"{where}.  Data types don't match. Expected type: "
                           f"{_TYPE_NAME[want]}, Actual type: {_TYPE_NAME[kind]}")
        raise _invalid(f"{where}.  Data types don't match. Data type: {_TYPE_NAME[kind]} but "
                       f"expected type: {_TYPE_NAME[want]}")
    vals = getattr(feature, kind).value
    if dtype == dtypes.string:
        out = np.empty(len(vals), dtype=object)
        out[:] = list(vals)
        return out
    if len(vals) <= 4:  # asarray of a proto container costs ~5 us however short it is
        return np.array(list(vals), dtype=_NP[dtype])
    return np.asarray(vals, dtype=_NP[dtype])


def _dense_values(vals, dtype, shape, where, size_word="Values"):
    """Checks a fixed-length dense feature's values against ``shape`` (TF's sequence parser
    spells the size ``values size``)."""
    n = math.prod(shape)
    if vals.size != n:
        raise _invalid(f"{where}.  Number of {_type_name(dtype)} values != expected.  "
                       f"{size_word} size: {vals.size} but output shape: {_shape_str(shape)}")
    return vals.reshape(shape)


def _list_values(feature, dtype, name, key, step, sparse=False):
    """The values of step ``step`` of feature list ``key``; a step of another type is TF's
    sequence-parser error, which shows the offending Feature."""
    kind = feature.WhichOneof("kind")
    if kind is not None and kind != _KINDS[dtype]:
        # (TF spells it "Feature List" for a VarLen feature list)
        raise _invalid(f"Name: {name}, Feature {'List' if sparse else 'list'}: {key}, Index: "
                       f"{step}.  Data types don't match. Expected type: "
                       f"{dtypes.type_string(dtype)}  Feature is: {_debug_string(feature)}")
    return _values(feature, dtype, f"Name: {name}, Feature list: {key}, Index: {step}")


def _type_name(dtype):
    # TF's fast parser names the string kind by its proto list (BytesList)
    return {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "bytes"}[dtype]


def _seq_values(vals, dtype, inner, where):
    """Splits a variable-length dense feature's values into rows of shape ``inner``."""
    stride = int(np.prod(inner, dtype=np.int64))
    if stride == 0 or vals.size % stride:
        raise _invalid(f"{where}.  Number of {_type_name(dtype)} values is not a multiple of "
                       f"stride length. Saw {vals.size} values but output shape is: "
                       f"{_shape_str([None] + list(inner))}")
    return vals.reshape([vals.size // stride] + list(inner))


def _is_var_len(shape):
    return shape.ndims is not None and shape.ndims > 0 and shape.dims[0].value is None


def _dense_specs(dense_shapes):
    """Per dense key, (variable length?, its dims: the row dims when variable length)."""
    return [(True, [d.value for d in s.dims[1:]]) if _is_var_len(s) else (False, s.as_list())
            for s in dense_shapes]


def _parse_features(fmap, name, sparse_keys, sparse_types, dense_keys, dense_types,
                    dense_shapes, dense_defaults, specs=None, index=0, style="batch"):
    """One Features map: the sparse value vectors and the dense arrays (var-len: rows).
    ``specs`` is ``_dense_specs(dense_shapes)``, computed once for a batch; ``index`` is the
    example's place in its batch (TF's errors name it). A Feature with no list set counts as
    missing. ``style`` picks the error words of TF's parser: "batch" (ParseExample), "single"
    (ParseSingleExample) or "context" (a SequenceExample's context)."""
    if specs is None:
        specs = _dense_specs(dense_shapes)
    context = style == "context"
    sparse = []
    for key, dtype in zip(sparse_keys, sparse_types):
        feature = fmap.get(key)
        sparse.append(np.zeros(0, dtype=_NP[dtype]) if feature is None else _values(
            feature, dtype, _where(style, name, key, index, dtype=True), sparse=True,
            context=context))
    dense = []
    for key, dtype, (var_len, dims), default in zip(dense_keys, dense_types, specs,
                                                    dense_defaults):
        feature = fmap.get(key)
        if feature is not None and feature.WhichOneof("kind") is None:
            feature = None
        where = _where(style, name, key, index)
        if var_len:
            if feature is None:
                dense.append(np.zeros([0] + dims, dtype=_NP[dtype]))
            else:
                vals = _values(feature, dtype, _where(style, name, key, index, dtype=True),
                               context=context)
                if style == "single":
                    stride = math.prod(dims)
                    if stride == 0 or vals.size % stride:
                        raise _invalid(f"Key: {key}.  Can't parse serialized Example.")
                dense.append(_seq_values(vals, dtype, dims, where))
            continue
        if feature is None:
            default = np.asarray(default)
            if default.size == 0:
                if context:
                    raise _invalid(f"Name: {name}, Context feature '{key}' is required but "
                                   "could not be found.")
                named = "" if style == "single" else f"Name: {name}, "
                raise _invalid(f"{named}Feature: {key} (data type: {_type_name(dtype)}) is "
                               "required but could not be found.")
            dense.append(default.reshape(dims))
        else:
            vals = _values(feature, dtype, _where(style, name, key, index, dtype=True),
                           context=context)
            if style == "single" and vals.size != math.prod(dims):
                raise _invalid(f"Key: {key}.  Can't parse serialized Example.")
            dense.append(_dense_values(vals, dtype, dims, where,
                                       "values" if context else "Values"))
    return sparse, dense


def _where(style, name, key, index, dtype=False):
    """Where TF's parser says an error is (``dtype``: for a data-type mismatch)."""
    if style == "single":
        return f"Key: {key}"
    if style == "context" and dtype:
        return f"Name: {name}, Context feature: {key}"
    return f"Name: {name}, Key: {key}, Index: {index}"


def _pad_rows(rows, dtype, inner, default):
    """Stacks per-example row arrays into [batch, max_rows] + inner, padding with default."""
    width = max((r.shape[0] for r in rows), default=0)
    out = np.empty([len(rows), width] + list(inner), dtype=_NP[dtype])
    out[...] = np.asarray(default).reshape(()) if np.size(default) else (
        b"" if dtype == dtypes.string else 0)
    for b, r in enumerate(rows):
        out[b, :r.shape[0]] = r
    return out


def _sparse_batch(per_example, dtype):
    """The (indices, values, shape) of a batch of value vectors: indices are [batch, i]."""
    idx = [(b, i) for b, v in enumerate(per_example) for i in range(v.size)]
    values = np.concatenate(per_example) if per_example else np.zeros(0)
    values = values.astype(_NP[dtype]) if dtype != dtypes.string else values.astype(object)
    width = max((v.size for v in per_example), default=0)
    return (np.asarray(idx, np.int64).reshape(-1, 2), values,
            np.asarray([len(per_example), width], np.int64))


# ------------------------------------------------------------------------------------------
# ParseExample, ParseSingleExample
# ------------------------------------------------------------------------------------------


def _as_str(key):
    key = key[()] if isinstance(key, np.ndarray) else key
    return key.decode("utf-8") if isinstance(key, bytes) else str(key)


def _parse_example_kernel(serialized, names, sparse_keys, dense_keys, dense_defaults, *,
                          sparse_types, Tdense, dense_shapes):
    serialized = np.asarray(serialized, dtype=object)
    names = np.asarray(names, dtype=object)
    if serialized.ndim != 1:
        raise _invalid(f"Expected serialized to be a vector, got shape: "
                       f"{_shape_str(serialized.shape)}")
    if names.size and names.shape != serialized.shape:
        raise _invalid(f"Expected len(names) == len(serialized), but got: {names.size} vs. "
                       f"{serialized.size}")
    sparse_keys = [_as_str(k) for k in sparse_keys]
    dense_keys = [_as_str(k) for k in dense_keys]
    shapes = [as_shape(s) for s in dense_shapes]
    example_cls = _example_pb2().Example
    specs = _dense_specs(shapes)
    sparse_rows = [[] for _ in sparse_keys]
    dense_rows = [[] for _ in dense_keys]
    # fixed-length dense keys: each example's values read here (the common case: the key is
    # there, of its type, with its count); short ones gathered as lists and converted once
    # for the batch. Anything else, and the other keys, through _parse_features.
    fixed = [j for j, (var_len, _) in enumerate(specs) if not var_len]
    fixed_set = set(fixed)
    fast = [(j, dense_keys[j], _KINDS[Tdense[j]], math.prod(specs[j][1]),
             math.prod(specs[j][1]) <= 4, dense_rows[j]) for j in fixed]
    rest = [j for j in range(len(dense_keys)) if j not in fixed_set]
    rest_args = ([dense_keys[j] for j in rest], [Tdense[j] for j in rest],
                 [shapes[j] for j in rest], [dense_defaults[j] for j in rest],
                 [specs[j] for j in rest])
    rest_rows = [dense_rows[j] for j in rest]
    for b, data in enumerate(serialized.tolist()):
        name = _as_str(names[b]) if names.size else "<unknown>"
        fmap = _decode(example_cls, data, name).features.feature
        for j, key, kind, size, short, rows in fast:
            feature = fmap.get(key)
            if feature is not None and feature.WhichOneof("kind") == kind:
                vals = getattr(feature, kind).value
                if len(vals) == size:
                    if short:
                        rows.append(list(vals))
                    elif kind == "bytes_list":
                        out = np.empty(size, dtype=object)
                        out[:] = list(vals)
                        rows.append(out)
                    else:
                        rows.append(np.asarray(vals, dtype=_NP[Tdense[j]]))
                    continue
            # missing (its default), or an error to report as the general path does
            _, (v,) = _parse_features(fmap, name, [], [], [key], [Tdense[j]], [shapes[j]],
                                      [dense_defaults[j]], [specs[j]], index=b)
            rows.append(v.reshape(-1).tolist() if short else v.reshape(-1))
        if not sparse_keys and not rest:
            continue
        sparse, dense = _parse_features(fmap, name, sparse_keys, sparse_types, *rest_args,
                                        index=b)
        for rows, v in zip(sparse_rows, sparse):
            rows.append(v)
        for rows, v in zip(rest_rows, dense):
            rows.append(v)
    for j, _, _, _, short, rows in fast:
        if rows:
            arr = (np.array(rows, dtype=_NP[Tdense[j]]) if short else
                   np.stack(rows).astype(_NP[Tdense[j]], copy=False))
            dense_rows[j] = arr.reshape([len(rows)] + specs[j][1])
    sp = [_sparse_batch(rows, t) for rows, t in zip(sparse_rows, sparse_types)]
    dense_out = []
    for rows, dtype, shape, default in zip(dense_rows, Tdense, shapes, dense_defaults):
        if _is_var_len(shape):
            dense_out.append(_pad_rows(rows, dtype, [d.value for d in shape.dims[1:]], default))
        else:  # (the fixed-length keys' rows: their batch array already)
            dense_out.append(rows if len(rows) else np.zeros([0] + shape.as_list(), _NP[dtype]))
    return [s[0] for s in sp] + [s[1] for s in sp] + [s[2] for s in sp] + dense_out


def _parse_example_shape(op):
    shape = op._inputs[0]._shape
    if shape.ndims is not None and shape.ndims != 1:  # (TF's shape-function words)
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims}")
    batch = shape.merge_with(unknown_shape(1))
    n = len(op._attrs["sparse_types"])
    return ([matrix(None, 2)] * n + [vector(None)] * n + [vector(2)] * n
            + [batch.concatenate(as_shape(s)) for s in op._attrs["dense_shapes"]])


op_registry.declare(
    "ParseExample",
    inputs=["serialized: string", "names: string", "sparse_keys: Nsparse * string",
            "dense_keys: Ndense * string", "dense_defaults: Tdense"],
    outputs=["sparse_indices: Nsparse * int64", "sparse_values: sparse_types",
             "sparse_shapes: Nsparse * int64", "dense_values: Tdense"],
    attrs=["Nsparse: int >= 0", "Ndense: int >= 0",
           "sparse_types: list({float,int64,string}) >= 0",
           "Tdense: list({float,int64,string}) >= 0", "dense_shapes: list(shape) >= 0"],
    shape=_parse_example_shape,
    kernel=_parse_example_kernel,
    differentiable=False,
)


def _parse_single_example_factory(ctx):
    """ParseSingleExample's kernel, with its keys, types and dense shapes digested once per
    plan (a tf.data map runs it once per element)."""
    sparse_keys, dense_keys = ctx.attr("sparse_keys"), ctx.attr("dense_keys")
    sparse_types, dense_types = ctx.attr("sparse_types"), ctx.attr("Tdense")
    shapes = [as_shape(s) for s in ctx.attr("dense_shapes")]
    specs = _dense_specs(shapes)
    out_types = [_NP[t] for t in dense_types]
    example_cls = _example_pb2().Example
    # only fixed-length dense keys (the common case): each read directly when it is there, of
    # its type and count; anything else through _parse_features (defaults, errors)
    fixed = None
    if not sparse_keys and not any(var_len for var_len, _ in specs):
        fixed = [(j, key, _KINDS[t], math.prod(dims), dims, np_t) for j, (key, t, (_, dims), np_t)
                 in enumerate(zip(dense_keys, dense_types, specs, out_types))]

    def run_fixed(fmap, dense_defaults):
        dense = []
        for j, key, kind, size, dims, np_t in fixed:
            feature = fmap.get(key)
            if feature is not None and feature.WhichOneof("kind") == kind:
                vals = getattr(feature, kind).value
                if len(vals) == size:
                    if kind == "bytes_list":
                        out = np.empty(size, dtype=object)
                        out[:] = list(vals)
                    elif size <= 4:
                        out = np.array(list(vals), dtype=np_t)
                    else:
                        out = np.asarray(vals, dtype=np_t)
                    dense.append(out.reshape(dims))
                    continue
            _, (v,) = _parse_features(fmap, "<unknown>", [], [], [key], [dense_types[j]],
                                      [shapes[j]], [dense_defaults[j]], [specs[j]],
                                      style="single")
            dense.append(v.astype(np_t, copy=False))
        return dense

    def run(serialized, dense_defaults):
        serialized = np.asarray(serialized, dtype=object)
        if serialized.ndim != 0:
            raise _invalid(f"Expected serialized to be a scalar, got shape: "
                           f"{_shape_str(serialized.shape)}")
        fmap = _decode(example_cls, serialized[()], "<unknown>").features.feature
        if fixed is not None:
            return run_fixed(fmap, dense_defaults)
        sparse, dense = _parse_features(fmap, "<unknown>", sparse_keys, sparse_types, dense_keys,
                                        dense_types, shapes, dense_defaults, specs,
                                        style="single")
        idx = [np.arange(v.size, dtype=np.int64).reshape(-1, 1) for v in sparse]
        sizes = [np.asarray([v.size], np.int64) for v in sparse]
        dense = [d.astype(t, copy=False) for d, t in zip(dense, out_types)]
        return idx + sparse + sizes + dense

    return run


class _AttrsOf:
    """The part of a kernel context the parse factory reads: the op's attributes."""

    def __init__(self, op):
        self.op = op

    def attr(self, name):
        return self.op._attrs[name]


_FOLD_BYTES = 1 << 20


def _parsed_constant(op, index):
    """The value of a parse of a constant serialized example (TF 1.x's shape inference
    evaluates it, so a decoder's sparse-to-dense of a constant example has a static shape);
    None otherwise."""
    serialized = ops.constant_value(op._inputs[0])
    defaults = [ops.constant_value(t) for t in op._inputs[1:]]
    if serialized is None or any(v is None for v in defaults):
        return None
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim or len(serialized[()]) > _FOLD_BYTES:
        return None
    try:
        return _parse_single_example_factory(_AttrsOf(op))(serialized, defaults)[index]
    except Exception:  # noqa: BLE001 - a parse that fails just means "not known"
        return None


def _parse_single_example_shape(op):
    rank = op._inputs[0]._shape.ndims
    if rank is not None and rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {rank}")
    n = len(op._attrs["sparse_keys"])
    return ([matrix(None, 1)] * n + [vector(None)] * n + [vector(1)] * n
            + [as_shape(s) for s in op._attrs["dense_shapes"]])


op_registry.declare(
    "ParseSingleExample",
    inputs=["serialized: string", "dense_defaults: Tdense"],
    outputs=["sparse_indices: num_sparse * int64", "sparse_values: sparse_types",
             "sparse_shapes: num_sparse * int64", "dense_values: Tdense"],
    attrs=["num_sparse: int >= 0", "sparse_keys: list(string) >= 0",
           "dense_keys: list(string) >= 0", "sparse_types: list({float,int64,string}) >= 0",
           "Tdense: list({float,int64,string}) >= 0", "dense_shapes: list(shape) >= 0"],
    shape=_parse_single_example_shape,
    kernel_factory=_parse_single_example_factory,
    differentiable=False,
)
# (only while shapes are inferred: TF's Python constant_value stops at the op, so a parsed
# VarLenFeature's own get_shape() stays (?,))
ops.register_constant_value("ParseSingleExample", _parsed_constant, shape_inference_only=True)


# ------------------------------------------------------------------------------------------
# Python wrappers
# ------------------------------------------------------------------------------------------


def _check_dtype(param, dtype):
    """``dtype`` if a parse op takes it, else TF's TypeError naming the op's ``param``."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _KINDS:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {dtype.name} not in "
                        "list of allowed values: float32, int64, string")
    return dtype


def _split_features(features, for_parse_example, prefix=""):
    """Sorted raw parameters: (sparse keys, types), (dense keys, types, shapes, defaults)."""
    if not features:
        raise ValueError(f"Missing: features was {features}.")
    sparse_keys, sparse_types = [], []
    dense_keys, dense_types, dense_shapes, dense_defaults = [], [], [], []
    for key in sorted(features):
        f = features[key]
        if isinstance(f, VarLenFeature):
            sparse_keys.append(key)
            sparse_types.append(_check_dtype(prefix + "sparse_types", f.dtype))
        elif isinstance(f, SparseFeature):
            keys = f.index_key if isinstance(f.index_key, (list, tuple)) else [f.index_key]
            for k in keys:
                if k not in sparse_keys:
                    sparse_keys.append(k)
                    sparse_types.append(dtypes.int64)
            if f.value_key not in sparse_keys:
                sparse_keys.append(f.value_key)
                sparse_types.append(_check_dtype(prefix + "sparse_types", f.dtype))
        elif isinstance(f, FixedLenFeature):
            if f.shape is None:
                raise ValueError(f"Missing shape for feature {key}.")
            first = as_shape(f.shape)
            if first.ndims and first.dims[0].value is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. "
                                 "Consider using FixedLenSequenceFeature.")
            shape = _defined_shape(key, f.shape)
            dense_keys.append(key)
            dense_types.append(_check_dtype(prefix + "dense_defaults", f.dtype))
            dense_shapes.append(shape)
            dense_defaults.append(f.default_value)
        elif isinstance(f, FixedLenSequenceFeature):
            shape = _defined_shape(key, f.shape)
            if for_parse_example and not f.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to"
                                 " be True.")
            dense_keys.append(key)
            dense_types.append(_check_dtype(prefix + "dense_defaults", f.dtype))
            dense_shapes.append(TensorShape([None]).concatenate(shape))
            dense_defaults.append(f.default_value)
        else:
            raise ValueError(f"Invalid feature {key}:{f}.")  # noqa: TRY004 - TF's error class
    return sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes, dense_defaults


def _default_tensors(dense_keys, dense_types, dense_shapes, dense_defaults, reshape=True):
    """The dense defaults as TF builds them: an unnamed constant where there is none (an empty
    one, or a zero pad for a variable first dimension), else ``key_<key>`` (``padding_<key>``)
    reshaped to the feature's shape (a scalar); a Tensor default of a fixed shape is kept.
    (A batch of SequenceExamples takes its context defaults as given: ``reshape=False``.)"""
    from tideflow.ops import array_ops, constant_op

    out = []
    for key, dtype, shape, default in zip(dense_keys, dense_types, dense_shapes,
                                          dense_defaults):
        safe_key = re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)
        if _is_var_len(shape):
            if default is None:
                out.append(ops.convert_to_tensor("" if dtype == dtypes.string else 0,
                                                 dtype=dtype))
            else:
                t = ops.convert_to_tensor(default, dtype=dtype, name="padding_" + safe_key)
                out.append(array_ops.reshape(t, []))
        elif default is None:
            out.append(constant_op.constant([], dtype=dtype))
        elif isinstance(default, ops.Tensor):
            out.append(default)
        else:
            t = ops.convert_to_tensor(default, dtype=dtype, name="key_" + safe_key)
            out.append(array_ops.reshape(t, shape.as_list()) if reshape else t)
    return out


def _assemble(features, sparse_keys, sparse, dense_keys, dense):
    """The results by feature key, as TF: each SparseFeature merged from its index and value
    features by ``sparse_merge`` (outside the parse's scope, in key order)."""
    from tideflow.ops.sparse_extra_ops import sparse_merge

    parsed = dict(zip(sparse_keys, sparse))
    parsed.update(zip(dense_keys, dense))
    for key in sorted(features):
        f = features[key]
        if isinstance(f, SparseFeature):
            ids = parsed[f.index_key] if isinstance(f.index_key, str) else \
                [parsed[k] for k in f.index_key]
            parsed[key] = sparse_merge(ids, parsed[f.value_key], vocab_size=f.size,
                                       already_sorted=f.already_sorted)
    # as TF 1.15: the sparse results first, then the dense ones (each in key order), then the
    # SparseFeatures; the index and value features only a SparseFeature asked for dropped
    for key in set(parsed) - set(features):
        del parsed[key]
    return parsed


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch (vector) of serialized Example protos into a dict of tensors.

    ``features`` maps keys to ``FixedLenFeature`` (dense ``[batch] + shape``),
    ``VarLenFeature`` (a SparseTensor indexed ``[batch, i]``), ``FixedLenSequenceFeature``
    (dense ``[batch, None] + shape``, padded) and ``SparseFeature``.
    """
    try:
        (sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes,
         dense_defaults) = _split_features(features, True)
    except TypeError:
        # a dtype the op does not take fails in TF when the op is made, in its scope
        with ops.name_scope(name, "ParseExample", [serialized, example_names]):
            raise
    with ops.name_scope(name, "ParseExample", [serialized, example_names]):
        defaults = _default_tensors(dense_keys, dense_types, dense_shapes, dense_defaults)
        # as TF, the op takes the Python names and keys (made constants in its own scope) and
        # the name given (``pe/pe``)
        op = ops.apply_op(
            "ParseExample",
            [serialized, [] if example_names is None else example_names, sparse_keys,
             dense_keys, defaults],
            {"sparse_types": sparse_types, "Tdense": dense_types, "dense_shapes": dense_shapes},
            name=name or "ParseExample")
        outs = op._outputs
        n = len(sparse_keys)
        sparse = [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]
    return _assemble(features, sparse_keys, sparse, dense_keys, outs[3 * n:])


def parse_single_example(serialized, features, name=None, example_names=None):
    """Parses one serialized Example (a scalar string) into a dict of tensors.

    As ``parse_example`` without the batch dimension: VarLenFeatures come back as rank-1
    SparseTensors, FixedLenFeatures with their own shape.
    """
    del example_names  # only used in error messages by TF
    try:
        (sparse_keys, sparse_types, dense_keys, dense_types, dense_shapes,
         dense_defaults) = _split_features(features, False)
    except TypeError:
        with ops.name_scope(name, "ParseSingleExample", [serialized]):  # (as parse_example)
            raise
    with ops.name_scope(name, "ParseSingleExample", [serialized]):
        serialized = ops.convert_to_tensor(serialized, dtype=dtypes.string, name="serialized")
        defaults = _default_tensors(dense_keys, dense_types, dense_shapes, dense_defaults)
        op = ops.apply_op(
            "ParseSingleExample", [serialized, defaults],
            {"num_sparse": len(sparse_keys), "sparse_keys": sparse_keys,
             "dense_keys": dense_keys, "sparse_types": sparse_types, "Tdense": dense_types,
             "dense_shapes": dense_shapes},
            name=name or "ParseSingleExample")
        outs = op._outputs
        n = len(sparse_keys)
        sparse = [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]
    return _assemble(features, sparse_keys, sparse, dense_keys, outs[3 * n:])


# ------------------------------------------------------------------------------------------
# ParseSingleSequenceExample
# ------------------------------------------------------------------------------------------


def _parse_sequence_kernel(serialized, missing_assumed_empty, context_sparse_keys,
                           context_dense_keys, feature_list_sparse_keys, feature_list_dense_keys,
                           context_dense_defaults, debug_name, *, context_sparse_types,
                           Tcontext_dense, feature_list_dense_types, context_dense_shapes,
                           feature_list_sparse_types, feature_list_dense_shapes):
    return _parse_sequence(
        serialized, missing_assumed_empty, context_sparse_keys, context_dense_keys,
        feature_list_sparse_keys, feature_list_dense_keys, context_dense_defaults, debug_name,
        context_sparse_types, Tcontext_dense, feature_list_dense_types, context_dense_shapes,
        feature_list_sparse_types, feature_list_dense_shapes)


def _parse_sequence(serialized, missing_assumed_empty, context_sparse_keys, context_dense_keys,
                    feature_list_sparse_keys, feature_list_dense_keys, context_dense_defaults,
                    debug_name, context_sparse_types, Tcontext_dense, feature_list_dense_types,
                    context_dense_shapes, feature_list_sparse_types, feature_list_dense_shapes,
                    batched=False, seq=None):
    """One SequenceExample (``seq``: already decoded); ``batched``: with the messages of TF's
    batch (fast) parser."""
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim != 0:
        raise _invalid(f"Expected serialized to be a scalar, got shape: "
                       f"{_shape_str(serialized.shape)}")
    name = _as_str(debug_name) if np.size(debug_name) else "<unknown>"
    if seq is None:
        seq = _decode(_example_pb2().SequenceExample, serialized[()], name)
    c_sparse_keys = [_as_str(k) for k in context_sparse_keys]
    c_dense_keys = [_as_str(k) for k in context_dense_keys]
    c_sparse, c_dense = _parse_features(
        seq.context.feature, name, c_sparse_keys, context_sparse_types, c_dense_keys,
        Tcontext_dense, [as_shape(s) for s in context_dense_shapes], context_dense_defaults,
        style="context")
    c_dense = [d.astype(_NP[t]) for d, t in zip(c_dense, Tcontext_dense)]
    lists = seq.feature_lists.feature_list
    fl_sparse = []
    for key, dtype in zip((_as_str(k) for k in feature_list_sparse_keys),
                          feature_list_sparse_types):
        steps = lists[key].feature if key in lists else []
        per_step = [_list_values(f, dtype, name, key, t, sparse=True)
                    for t, f in enumerate(steps)]
        idx = [(t, i) for t, v in enumerate(per_step) for i in range(v.size)]
        vals = (np.concatenate(per_step) if per_step else np.zeros(0)).astype(_NP[dtype])
        fl_sparse.append((np.asarray(idx, np.int64).reshape(-1, 2), vals,
                          np.asarray([len(per_step), max((v.size for v in per_step),
                                                         default=0)], np.int64)))
    may_be_empty = {_as_str(k) for k in np.asarray(missing_assumed_empty, object).reshape(-1)}
    fl_dense = []
    for key, dtype, shape in zip((_as_str(k) for k in feature_list_dense_keys),
                                 feature_list_dense_types, feature_list_dense_shapes):
        dims = as_shape(shape).as_list()
        if key not in lists:
            if key not in may_be_empty and batched:  # (TF's fast batch parser's words)
                raise _invalid(f"Missing feature {key} in example {name}")
            if key not in may_be_empty:
                raise _invalid(f"Name: {name}, Feature list '{key}' is required but could not "
                               "be found.  Did you mean to include it in "
                               "feature_list_dense_missing_assumed_empty or "
                               "feature_list_dense_defaults?")
            fl_dense.append(np.zeros([0] + dims, _NP[dtype]))
            continue
        per_step = [_list_values(f, dtype, name, key, t) for t, f in enumerate(lists[key].feature)]
        if batched and any(v.size != math.prod(dims) for v in per_step):
            raise _invalid(f"Unexpected number of elements in feature {key}, example {name}")
        rows = [_dense_values(v, dtype, dims, f"Name: {name}, Key: {key}, Index: {t}", "values")
                for t, v in enumerate(per_step)]
        fl_dense.append(np.stack(rows).astype(_NP[dtype]) if rows else
                        np.zeros([0] + dims, _NP[dtype]))
    return ([np.arange(v.size, dtype=np.int64).reshape(-1, 1) for v in c_sparse] + c_sparse
            + [np.asarray([v.size], np.int64) for v in c_sparse] + c_dense
            + [s[0] for s in fl_sparse] + [s[1] for s in fl_sparse] + [s[2] for s in fl_sparse]
            + fl_dense)


def _parse_sequence_shape(op):
    op._inputs[0]._shape.merge_with(TensorShape([]))
    a = op._attrs
    nc, nf = len(a["context_sparse_types"]), len(a["feature_list_sparse_types"])
    return ([matrix(None, 1)] * nc + [vector(None)] * nc + [vector(1)] * nc
            + [as_shape(s) for s in a["context_dense_shapes"]]
            + [matrix(None, 2)] * nf + [vector(None)] * nf + [vector(2)] * nf
            + [vector(None).concatenate(as_shape(s)) for s in a["feature_list_dense_shapes"]])


op_registry.declare(
    "ParseSingleSequenceExample",
    inputs=["serialized: string", "feature_list_dense_missing_assumed_empty: string",
            "context_sparse_keys: Ncontext_sparse * string",
            "context_dense_keys: Ncontext_dense * string",
            "feature_list_sparse_keys: Nfeature_list_sparse * string",
            "feature_list_dense_keys: Nfeature_list_dense * string",
            "context_dense_defaults: Tcontext_dense", "debug_name: string"],
    outputs=["context_sparse_indices: Ncontext_sparse * int64",
             "context_sparse_values: context_sparse_types",
             "context_sparse_shapes: Ncontext_sparse * int64",
             "context_dense_values: Tcontext_dense",
             "feature_list_sparse_indices: Nfeature_list_sparse * int64",
             "feature_list_sparse_values: feature_list_sparse_types",
             "feature_list_sparse_shapes: Nfeature_list_sparse * int64",
             "feature_list_dense_values: feature_list_dense_types"],
    attrs=["Ncontext_sparse: int >= 0 = 0", "Ncontext_dense: int >= 0 = 0",
           "Nfeature_list_sparse: int >= 0 = 0", "Nfeature_list_dense: int >= 0 = 0",
           "context_sparse_types: list({float,int64,string}) >= 0 = []",
           "Tcontext_dense: list({float,int64,string}) >= 0 = []",
           "feature_list_dense_types: list({float,int64,string}) >= 0 = []",
           "context_dense_shapes: list(shape) >= 0 = []",
           "feature_list_sparse_types: list({float,int64,string}) >= 0 = []",
           "feature_list_dense_shapes: list(shape) >= 0 = []"],
    shape=_parse_sequence_shape,
    kernel=_parse_sequence_kernel,
    differentiable=False,
)


def _defined_shape(key, shape):
    """``shape`` as a TensorShape, which a dense feature needs fully defined (TF's error)."""
    defined = as_shape(shape)
    if not defined.is_fully_defined():
        raise ValueError(f"All dimensions of shape for feature {key} need to be known but"
                         f" received {shape}.")
    return defined


def _split_sequence_features(sequence_features):
    """Sorted keys, dtypes and shapes of the sparse (VarLenFeature) and dense
    (FixedLenSequenceFeature) feature lists, and the dense ones allowed to be missing."""
    fl_sparse_keys, fl_sparse_types = [], []
    fl_dense_keys, fl_dense_types, fl_dense_shapes, missing_ok = [], [], [], []
    for key in sorted(sequence_features):
        f = sequence_features[key]
        if isinstance(f, VarLenFeature):
            fl_sparse_keys.append(key)
            fl_sparse_types.append(_check_dtype("feature_list_sparse_types", f.dtype))
        elif isinstance(f, FixedLenSequenceFeature):
            shape = _defined_shape(key, f.shape)
            fl_dense_keys.append(key)
            fl_dense_types.append(_check_dtype("feature_list_dense_types", f.dtype))
            fl_dense_shapes.append(shape)
            if f.allow_missing:
                missing_ok.append(key)
        else:
            # (TF's words and error class)
            raise ValueError(f"Unsupported {type(f).__name__} {f}.")  # noqa: TRY004
    for key in fl_dense_keys:
        # TF 1.15's sequence parsers take no default for a feature list (a missing one is
        # empty), and refuse one given
        if sequence_features[key].default_value is not None:
            raise ValueError(f"Value feature_list_dense_defaults[{key}] must be None")
    return fl_sparse_keys, fl_sparse_types, fl_dense_keys, fl_dense_types, fl_dense_shapes, missing_ok


def _sequence_results(outs, c_sparse_keys, c_dense_keys, fl_sparse_keys, fl_dense_keys):
    """(context dict, feature-list dict, the outputs after them) from a sequence parse op."""
    nc, ncd, nf = len(c_sparse_keys), len(c_dense_keys), len(fl_sparse_keys)
    context = {k: SparseTensor(outs[i], outs[nc + i], outs[2 * nc + i])
               for i, k in enumerate(c_sparse_keys)}
    context.update(zip(c_dense_keys, outs[3 * nc:3 * nc + ncd]))
    rest = outs[3 * nc + ncd:]
    sequence = {k: SparseTensor(rest[i], rest[nf + i], rest[2 * nf + i])
                for i, k in enumerate(fl_sparse_keys)}
    nd = len(fl_dense_keys)
    sequence.update(zip(fl_dense_keys, rest[3 * nf:3 * nf + nd]))
    return context, sequence, rest[3 * nf + nd:]


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None,
                                  example_name=None, name=None):
    """Parses one serialized SequenceExample: returns ``(context dict, sequence dict)``.

    Context features are ``FixedLenFeature`` or ``VarLenFeature``; sequence features are
    ``FixedLenSequenceFeature`` (dense ``[steps] + shape``) or ``VarLenFeature`` (a
    SparseTensor indexed ``[step, i]``).
    """
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    (c_sparse_keys, c_sparse_types, c_dense_keys, c_dense_types, c_dense_shapes,
     c_dense_defaults) = ([], [], [], [], [], [])
    if context_features:
        for f in context_features.values():
            if not isinstance(f, (FixedLenFeature, VarLenFeature)):
                # (TF's words and error class)
                raise ValueError(f"Unsupported {type(f).__name__} {f}.")  # noqa: TRY004
        (c_sparse_keys, c_sparse_types, c_dense_keys, c_dense_types, c_dense_shapes,
         c_dense_defaults) = _split_features(context_features, False, "context_")
    (fl_sparse_keys, fl_sparse_types, fl_dense_keys, fl_dense_types, fl_dense_shapes,
     missing_ok) = _split_sequence_features(sequence_features)
    with ops.name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        defaults = _default_tensors(c_dense_keys, c_dense_types, c_dense_shapes,
                                    c_dense_defaults)
        # as TF, the Python keys and names become constants in the op's own scope
        outs = ops.apply_op(
            "ParseSingleSequenceExample",
            [serialized, list(missing_ok), c_sparse_keys, c_dense_keys, fl_sparse_keys,
             fl_dense_keys, defaults, "" if example_name is None else example_name],
            {"context_sparse_types": c_sparse_types, "Tcontext_dense": c_dense_types,
             "context_dense_shapes": c_dense_shapes,
             "feature_list_sparse_types": fl_sparse_types,
             "feature_list_dense_types": fl_dense_types,
             "feature_list_dense_shapes": fl_dense_shapes},
            name=name or "ParseSingleSequenceExample")._outputs
        context, sequence, _ = _sequence_results(outs, c_sparse_keys, c_dense_keys,
                                                 fl_sparse_keys, fl_dense_keys)
        return context, sequence


# ------------------------------------------------------------------------------------------
# ParseSequenceExample: a batch of SequenceExamples
# ------------------------------------------------------------------------------------------


def _batched_sparse(parts, rank):
    """Per-example (indices, values, shape) -> one SparseTensor with a leading batch index."""
    idx = [np.concatenate([np.full((len(i), 1), b, np.int64), i], axis=1)
           for b, (i, _, _) in enumerate(parts)]
    shape = [len(parts)] + [max((int(s[d]) for _, _, s in parts), default=0)
                            for d in range(rank)]
    return (np.concatenate(idx) if idx else np.zeros((0, rank + 1), np.int64),
            np.concatenate([v for _, v, _ in parts]), np.asarray(shape, np.int64))


def _check_sequence_batch(seqs, names, keys, context_sparse_types, Tcontext_dense,
                          context_dense_shapes, context_dense_defaults,
                          feature_list_sparse_types, feature_list_dense_types,
                          feature_list_dense_shapes):
    """The checks TF 1.15's batch (fast) SequenceExample parser makes across the batch, in its
    order and words: a feature of another type, then each context dense feature's number of
    values (the largest seen, or its default's, must fill its shape; each example must have
    exactly that many), then each dense feature list's largest number of values (whole
    steps)."""
    c_sparse, c_dense, l_sparse, l_dense = ([_as_str(k) for k in ks] for ks in keys)
    c_types = dict(zip(c_sparse, context_sparse_types)) | dict(zip(c_dense, Tcontext_dense))
    l_types = dict(zip(l_sparse, feature_list_sparse_types)) | dict(
        zip(l_dense, feature_list_dense_types))
    counts = []
    for seq, name in zip(seqs, names):
        found = {}
        for key, dtype in c_types.items():
            if key in seq.context.feature:
                kind = seq.context.feature[key].WhichOneof("kind")
                if kind is not None and kind != _KINDS[dtype]:
                    raise _invalid(f"Error in context feature {key} in example {name}")
                feature = seq.context.feature[key]
                found[key] = 0 if kind is None else len(getattr(feature, kind).value)
        for key, dtype in l_types.items():
            if key in seq.feature_lists.feature_list:
                for frame in seq.feature_lists.feature_list[key].feature:
                    kind = frame.WhichOneof("kind")
                    if kind is not None and kind != _KINDS[dtype]:
                        raise _invalid(f"Error in sequence feature {key} in example {name}")
        counts.append(found)
    for key, dtype, shape, default in zip(c_dense, Tcontext_dense, context_dense_shapes,
                                          context_dense_defaults):
        want = math.prod(as_shape(shape).as_list())
        expected = max([np.size(default)] + [c[key] for c in counts if key in c])
        if expected != want:
            raise _invalid(f"Inconsistent number of elements for feature {key}: {expected} vs 1")
        for found, name in zip(counts, names):
            if key not in found and np.size(default) == 0:
                raise _invalid(f"Feature: {key} (data type: {_DT_STRING[dtype]}) is required "
                               "but could not be found.")
            if key in found and found[key] != expected:
                raise _invalid(f"Unexpected number of elements in example {name}")
    for key, shape in zip(l_dense, feature_list_dense_shapes):
        per_row = math.prod(as_shape(shape).as_list())
        most = max((sum(len(getattr(f, f.WhichOneof("kind")).value) for f in
                        seq.feature_lists.feature_list[key].feature if f.WhichOneof("kind"))
                    for seq in seqs if key in seq.feature_lists.feature_list), default=0)
        if per_row and most % per_row:
            raise _invalid(f"Unexpected shape error in feature {key}")


_DT_STRING = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "string"}


def _parse_sequence_batch_kernel(serialized, debug_name, context_dense_defaults, *,
                                 feature_list_dense_missing_assumed_empty, context_sparse_keys,
                                 context_dense_keys, feature_list_sparse_keys,
                                 feature_list_dense_keys, context_sparse_types, Tcontext_dense,
                                 feature_list_dense_types, context_dense_shapes,
                                 feature_list_sparse_types, feature_list_dense_shapes,
                                 **_counts):
    serialized = np.asarray(serialized, dtype=object)
    if serialized.ndim != 1:
        raise _invalid(f"Expected serialized to be a vector, got shape: "
                       f"{_shape_str(serialized.shape)}")
    names = np.asarray(debug_name, dtype=object).reshape(-1)
    keys = [np.asarray(k, dtype=object) for k in (context_sparse_keys, context_dense_keys,
                                                  feature_list_sparse_keys,
                                                  feature_list_dense_keys)]
    shown = [_as_str(names[b]) if names.size and _as_str(names[b]) else "<unknown>"
             for b in range(serialized.size)]
    seqs = [_decode(_example_pb2().SequenceExample, serialized[b], shown[b])
            for b in range(serialized.size)]
    _check_sequence_batch(seqs, shown, keys, context_sparse_types, Tcontext_dense,
                          context_dense_shapes, context_dense_defaults,
                          feature_list_sparse_types, feature_list_dense_types,
                          feature_list_dense_shapes)
    each = [_parse_sequence(
        serialized[b], np.asarray(feature_list_dense_missing_assumed_empty, object), *keys,
        context_dense_defaults, shown[b], context_sparse_types,
        Tcontext_dense, feature_list_dense_types, context_dense_shapes,
        feature_list_sparse_types, feature_list_dense_shapes, batched=True, seq=seqs[b])
        for b in range(serialized.size)]
    nc, ncd = len(context_sparse_types), len(Tcontext_dense)
    nf = len(feature_list_sparse_types)

    def column(i):
        return [e[i] for e in each]

    out_c = [_batched_sparse(list(zip(column(i), column(nc + i), column(2 * nc + i))), 1)
             for i in range(nc)]
    for k, (i, v, s) in enumerate(out_c):
        out_c[k] = (i, v.astype(_NP[context_sparse_types[k]]), s)
    c_dense = [np.stack(column(3 * nc + i)).astype(_NP[t]) if each else
               np.zeros([0] + as_shape(s).as_list(), _NP[t])
               for i, (t, s) in enumerate(zip(Tcontext_dense, context_dense_shapes))]
    base = 3 * nc + ncd
    out_f = [_batched_sparse(list(zip(column(base + i), column(base + nf + i),
                                      column(base + 2 * nf + i))), 2) for i in range(nf)]
    for k, (i, v, s) in enumerate(out_f):
        out_f[k] = (i, v.astype(_NP[feature_list_sparse_types[k]]), s)
    f_dense, lengths = [], []
    for i, (t, s) in enumerate(zip(feature_list_dense_types, feature_list_dense_shapes)):
        rows = column(base + 3 * nf + i)
        steps = max((len(r) for r in rows), default=0)
        padded = np.zeros([len(rows), steps] + as_shape(s).as_list(), _NP[t])
        if t == dtypes.string:
            padded[...] = b""
        for b, r in enumerate(rows):
            padded[b, :len(r)] = r
        f_dense.append(padded)
        lengths.append(np.asarray([len(r) for r in rows], np.int64))
    return ([c[0] for c in out_c] + [c[1] for c in out_c] + [c[2] for c in out_c] + c_dense
            + [f[0] for f in out_f] + [f[1] for f in out_f] + [f[2] for f in out_f] + f_dense
            + lengths)


def _parse_sequence_batch_shape(op):
    rank = op._inputs[0]._shape.ndims
    if rank not in (None, 1):  # (TF's words)
        raise ValueError(f"Shape must be rank 1 but is rank {rank}")
    a = op._attrs
    nc, nf = len(a["context_sparse_types"]), len(a["feature_list_sparse_types"])
    batch = op._inputs[0]._shape[:1]
    return ([matrix(None, 2)] * nc + [vector(None)] * nc + [vector(2)] * nc
            + [batch.concatenate(as_shape(s)) for s in a["context_dense_shapes"]]
            + [matrix(None, 3)] * nf + [vector(None)] * nf + [vector(3)] * nf
            + [batch.concatenate([None]).concatenate(as_shape(s))
               for s in a["feature_list_dense_shapes"]]
            + [batch] * len(a["feature_list_dense_shapes"]))


op_registry.declare(
    "ParseSequenceExample",
    inputs=["serialized: string", "debug_name: string", "context_dense_defaults: Tcontext_dense"],
    outputs=["context_sparse_indices: Ncontext_sparse * int64",
             "context_sparse_values: context_sparse_types",
             "context_sparse_shapes: Ncontext_sparse * int64",
             "context_dense_values: Tcontext_dense",
             "feature_list_sparse_indices: Nfeature_list_sparse * int64",
             "feature_list_sparse_values: feature_list_sparse_types",
             "feature_list_sparse_shapes: Nfeature_list_sparse * int64",
             "feature_list_dense_values: feature_list_dense_types",
             "feature_list_dense_lengths: Nfeature_list_dense * int64"],
    attrs=["feature_list_dense_missing_assumed_empty: list(string) >= 0",
           "context_sparse_keys: list(string) >= 0", "context_dense_keys: list(string) >= 0",
           "feature_list_sparse_keys: list(string) >= 0",
           "feature_list_dense_keys: list(string) >= 0",
           "Ncontext_sparse: int >= 0 = 0", "Ncontext_dense: int >= 0 = 0",
           "Nfeature_list_sparse: int >= 0 = 0", "Nfeature_list_dense: int >= 0 = 0",
           "context_sparse_types: list({float,int64,string}) >= 0 = []",
           "Tcontext_dense: list({float,int64,string}) >= 0 = []",
           "feature_list_dense_types: list({float,int64,string}) >= 0 = []",
           "context_dense_shapes: list(shape) >= 0 = []",
           "feature_list_sparse_types: list({float,int64,string}) >= 0 = []",
           "feature_list_dense_shapes: list(shape) >= 0 = []"],
    shape=_parse_sequence_batch_shape,
    kernel=_parse_sequence_batch_kernel,
    differentiable=False,
)


def parse_sequence_example(serialized, context_features=None, sequence_features=None,
                           example_names=None, name=None):
    """Parses a batch of serialized SequenceExamples: returns ``(context, feature_lists,
    lengths)``, the dense feature lists padded to the longest example, ``lengths`` the number of
    steps of each example for every FixedLenSequenceFeature (TF 1.x's tf.io.parse_sequence_example).
    """
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    (c_sparse_keys, c_sparse_types, c_dense_keys, c_dense_types, c_dense_shapes,
     c_dense_defaults) = _split_features(context_features, False, "context_") \
        if context_features else (
        [], [], [], [], [], [])
    (fl_sparse_keys, fl_sparse_types, fl_dense_keys, fl_dense_types, fl_dense_shapes,
     missing_ok) = _split_sequence_features(sequence_features)
    with ops.name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        defaults = _default_tensors(c_dense_keys, c_dense_types, c_dense_shapes,
                                    c_dense_defaults, reshape=False)
        outs = ops.apply_op(
            "ParseSequenceExample",
            [serialized, [] if example_names is None else example_names, defaults],
            {"feature_list_dense_missing_assumed_empty": missing_ok,
             "context_sparse_keys": c_sparse_keys, "context_dense_keys": c_dense_keys,
             "feature_list_sparse_keys": fl_sparse_keys,
             "feature_list_dense_keys": fl_dense_keys,
             "context_sparse_types": c_sparse_types, "Tcontext_dense": c_dense_types,
             "context_dense_shapes": c_dense_shapes,
             "feature_list_sparse_types": fl_sparse_types,
             "feature_list_dense_types": fl_dense_types,
             "feature_list_dense_shapes": fl_dense_shapes,
             "Ncontext_sparse": len(c_sparse_keys), "Ncontext_dense": len(c_dense_keys),
             "Nfeature_list_sparse": len(fl_sparse_keys),
             "Nfeature_list_dense": len(fl_dense_keys)},
            name=name or "ParseSequenceExample")._outputs
        context, sequence, lengths = _sequence_results(outs, c_sparse_keys, c_dense_keys,
                                                       fl_sparse_keys, fl_dense_keys)
        return context, sequence, dict(zip(fl_dense_keys, lengths))
