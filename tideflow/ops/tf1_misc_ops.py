"""More TF 1.x top-level names: GuaranteeConst, Snapshot, Fingerprint, DecodeCompressed,
DecodeJSONExample, Fact (``tf.user_ops.my_fact``); the composed ``batch_scatter_update``,
``sparse_matmul``, ``required_space_to_batch_paddings``, ``vectorized_map``,
``grad_pass_through`` and ``recompute_grad``; the variable enums; library loading (refused:
tideflow has no C++ kernels to load)."""

import inspect
import json
import re
import struct
import zlib

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.framework.wire_format import encode_varint as _varint
from tideflow.ops.variable_scope import no_regularizer  # noqa: F401  (tf.no_regularizer)
from tideflow.ops.variables import (  # noqa: F401  (the variable enums: TF's home is variables)
    VariableAggregation,
    VariableSynchronization,
)


def _bad(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _strings_like(x, values):
    return np.array(list(values) + [None], dtype=object)[:-1].reshape(np.shape(x))


# ------------------------------------------------------------------------------------------
# GuaranteeConst
# ------------------------------------------------------------------------------------------

op_registry.declare(
    "GuaranteeConst", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
    shape=lambda op: [op._inputs[0]._shape], kernel=lambda input: input,
)  # as TF: no gradient is defined (tf.gradients through it raises LookupError)


def guarantee_const(input, name=None):
    """``input``, promised constant over the session's lifetime (an optimization hint)."""
    return ops.apply_op("GuaranteeConst", [input], name=name)._outputs[0]


op_registry.declare(
    "Snapshot", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
    shape=lambda op: [op._inputs[0]._shape], kernel=lambda input: np.array(input, copy=True),
)  # a copy of its input; as TF, no gradient is defined


def snapshot(input, name=None):
    """A copy of ``input`` (TF's ``gen_array_ops.snapshot``)."""
    return ops.apply_op("Snapshot", [input], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Fingerprint (FarmHash Fingerprint64 of each row's bytes)
# ------------------------------------------------------------------------------------------


def _fingerprint_kernel(data, method):
    from tideflow.ops.string_hash_ops import fingerprint64

    m = method.item() if isinstance(method, np.ndarray) else method
    m = m.decode() if isinstance(m, bytes) else m
    if m != "farmhash64":
        raise _bad(f"Unsupported fingerprint method: {m}")
    if np.ndim(data) < 1:
        raise _bad("`data` should have at least one dimension")
    n = data.shape[0]
    rows = np.asarray(data).reshape(n, -1) if n else np.zeros((0, 0))
    out = np.zeros((n, 8), np.uint8)
    for i in range(n):
        row = rows[i]
        if data.dtype == object:
            if row.size == 1:
                fp = fingerprint64(bytes(row[0]))
            else:  # the fingerprints of the strings, fingerprinted together
                fp = fingerprint64(np.array([fingerprint64(bytes(v)) for v in row],
                                            "<u8").tobytes())
        else:
            fp = fingerprint64(np.ascontiguousarray(row).astype(
                row.dtype.newbyteorder("<"), copy=False).tobytes())
        out[i] = np.array([fp], "<u8").view(np.uint8)
    return out


op_registry.declare(
    "Fingerprint", inputs=["data: T", "method: string"], outputs=["fingerprint: uint8"],
    attrs=["T: type"],
    shape=lambda op: [TensorShape([op._inputs[0]._shape.dims[0] if op._inputs[0]._shape.ndims
                                   else None, 8])],
    kernel=_fingerprint_kernel, differentiable=False,
)


def fingerprint(data, method="farmhash64", name=None):
    """An 8-byte fingerprint (uint8 [N, 8]) of each row ``data[i]`` of a tensor of rank >= 1:
    FarmHash Fingerprint64 of its bytes, as TF (stable across runs and platforms)."""
    return ops.apply_op("Fingerprint", [data, ops.convert_to_tensor(method, dtypes.string)],
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# DecodeCompressed, DecodeJSONExample
# ------------------------------------------------------------------------------------------


_ZLIB_ERROR = re.compile(r"Error (-?\d+) while decompressing data: (.*)", re.DOTALL)


def _decompress(v, kind):
    """As TF 1.15's streaming inflate: the first stream's bytes, as much of them as a
    truncated input holds; corrupt data is a DataLossError in zlib's words."""
    v = bytes(v)
    if kind == "":
        return v
    inflater = zlib.decompressobj(zlib.MAX_WBITS | (16 if kind == "GZIP" else 0))
    try:
        return inflater.decompress(v)
    except zlib.error as e:
        m = _ZLIB_ERROR.match(str(e))
        what = f"inflate() failed with error {m.group(1)}: {m.group(2)}" if m else str(e)
        raise errors.DataLossError(None, None, what) from None


def _decode_compressed_kernel(bytes, *, compression_type):
    if compression_type not in ("", "ZLIB", "GZIP"):
        raise _bad("Only ZLIB, GZIP or NONE are supported compressions")  # TF's words
    return _strings_like(bytes, [_decompress(v, compression_type)
                                 for v in np.asarray(bytes, object).reshape(-1)])


op_registry.declare(
    "DecodeCompressed", inputs=["bytes: string"], outputs=["output: string"],
    attrs=["compression_type: string = ''"], shape=lambda op: [op._inputs[0]._shape],
    kernel=_decode_compressed_kernel, differentiable=False,
)


def decode_compressed(bytes, compression_type="", name=None):
    """Decompresses each string ('' for none, 'ZLIB' or 'GZIP')."""
    return ops.apply_op("DecodeCompressed", [bytes], {"compression_type": compression_type},
                        name=name)._outputs[0]


def _delimited(field, payload):
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _feature_bytes(feature):
    kind = feature.WhichOneof("kind")
    if kind is None:
        return b""
    values = getattr(feature, kind).value
    if kind == "float_list":
        body = b"".join(b"\x0d" + struct.pack("<f", v) for v in values)
    elif kind == "int64_list":
        body = b"".join(b"\x08" + _varint(int(v)) for v in values)
    else:
        body = b"".join(_delimited(1, bytes(v)) for v in values)
    return _delimited({"bytes_list": 1, "float_list": 2, "int64_list": 3}[kind], body)


def _example_bytes(ex, order):
    """The wire bytes TF's JSON converter writes: features in the JSON's order, repeated
    numbers unpacked (one tag per value)."""
    if not ex.HasField("features"):
        return b""
    feature = ex.features.feature
    keys = [k for k in order if k in feature] + sorted(k for k in feature if k not in order)
    body = b"".join(_delimited(1, _delimited(1, k.encode()) +
                               _delimited(2, _feature_bytes(feature[k]))) for k in keys)
    return _delimited(1, body)


def _json_feature_order(text):
    order = []

    def hook(pairs):
        d = dict(pairs)
        if "feature" in d and isinstance(d["feature"], dict):
            order[:] = list(d["feature"])
        return d

    json.loads(text, object_pairs_hook=hook)
    return order


def _decode_json_example_kernel(json_examples):
    from google.protobuf import json_format

    from tideflow.protos import example_pb2

    out = []
    for v in np.asarray(json_examples, object).reshape(-1):
        ex = example_pb2.Example()
        try:
            text = bytes(v).decode("utf-8")
            json_format.Parse(text, ex)
        except (json_format.ParseError, UnicodeDecodeError) as e:
            raise _bad(f"Error while parsing JSON: {e}") from None
        out.append(_example_bytes(ex, _json_feature_order(text)))
    return _strings_like(json_examples, out)


op_registry.declare(
    "DecodeJSONExample", inputs=["json_examples: string"], outputs=["binary_examples: string"],
    shape=lambda op: [op._inputs[0]._shape], kernel=_decode_json_example_kernel,
    differentiable=False,
)


def decode_json_example(json_examples, name=None):
    """Converts JSON-encoded ``tf.train.Example`` records to binary protos."""
    return ops.apply_op("DecodeJSONExample", [json_examples], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Fact (tf.user_ops.my_fact, TF's example user op)
# ------------------------------------------------------------------------------------------

op_registry.declare(
    "Fact", outputs=["fact: string"], shape=lambda op: [TensorShape([])],
    kernel=lambda: np.array(b"0! == 1", dtype=object), differentiable=False,
)


def my_fact():
    """TF's example user op: the string '0! == 1'."""
    return ops.apply_op("Fact", [])._outputs[0]


# ------------------------------------------------------------------------------------------
# composed
# ------------------------------------------------------------------------------------------


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[i..., indices[i..., j]] = updates[i..., j]`` for the batch dimensions i... of
    ``indices`` (a scatter_nd_update with the batch coordinates added), built from TF 1.15's
    ops: per batch dimension a Range reshaped to broadcast, times ones like the indices."""
    from tideflow.ops import array_ops
    from tideflow.ops.cast_ops import cast
    from tideflow.ops.concat_ops import concat
    from tideflow.ops.fill_ops import ones_like
    from tideflow.ops.scatter_nd_ops import scatter_nd_update

    with ops.name_scope(name):  # (no default: TF's ops sit in the current scope)
        indices = ops.convert_to_tensor(indices, name="indices")
        indices_shape = array_ops.shape(indices)
        rank = indices.get_shape().ndims
        if rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd = array_ops.expand_dims(indices, axis=-1)
        parts = []
        for d in range(rank - 1):
            size = indices_shape[d]
            bshape = [1] * (rank + 1)
            bshape[d] = size
            r = array_ops.reshape(ops.apply_op("Range", [0, size, 1])._outputs[0], bshape)
            if r.dtype.base_dtype != nd.dtype.base_dtype:
                r = cast(r, nd.dtype)
            parts.append(r * ones_like(nd))
        parts.append(nd)
        final = concat(parts, axis=-1)
        return scatter_nd_update(ref, final, updates, use_locking=use_locking)


def _sparse_matmul_kernel(a, b, *, transpose_a, transpose_b, a_is_sparse, b_is_sparse):
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    return np.matmul(a.T if transpose_a else a, b.T if transpose_b else b).astype(np.float32)


def _sparse_matmul_shape(op):
    for x in op._inputs:  # (TF's words)
        if x._shape.ndims not in (None, 2):
            raise ValueError(f"Shape must be rank 2 but is rank {x._shape.ndims}")
    a = op._inputs[0]._shape.with_rank(2)
    b = op._inputs[1]._shape.with_rank(2)
    m, k = (a.dims[1], a.dims[0]) if op._attrs["transpose_a"] else (a.dims[0], a.dims[1])
    k_b, n = (b.dims[1], b.dims[0]) if op._attrs["transpose_b"] else (b.dims[0], b.dims[1])
    if k.value is not None and k_b.value is not None and k.value != k_b.value:
        raise ValueError(f"Dimensions must be equal, but are {k.value} and {k_b.value}")
    return [TensorShape([m, n])]


def _sparse_matmul_grad(op, grad):
    # as TF: the products of the gradient with the other input (transposed as the op's
    # flags ask), each cast back to its input's dtype
    from tideflow.ops.cast_ops import cast
    from tideflow.ops.linalg_ops import matmul

    a, b = op._inputs
    t_a, t_b = op._attrs["transpose_a"], op._attrs["transpose_b"]

    def mm(x, y, dtype, ta=False, tb=False):
        prod = matmul(cast(x, dtypes.float32), cast(y, dtypes.float32), transpose_a=ta,
                      transpose_b=tb)
        return prod if dtype == dtypes.float32 else cast(prod, dtype)

    da, db = a.dtype.base_dtype, b.dtype.base_dtype
    if not t_a and not t_b:
        return [mm(grad, b, da, tb=True), mm(a, grad, db, ta=True)]
    if not t_a and t_b:
        return [mm(grad, b, da), mm(grad, a, db, ta=True)]
    if t_a and not t_b:
        return [mm(b, grad, da, tb=True), mm(a, grad, db)]
    return [mm(b, grad, da, ta=True, tb=True), mm(grad, a, db, ta=True, tb=True)]


op_registry.declare(
    "SparseMatMul",
    inputs=["a: Ta", "b: Tb"],
    outputs=["product: float"],
    attrs=["transpose_a: bool = false", "transpose_b: bool = false",
           "a_is_sparse: bool = false", "b_is_sparse: bool = false",
           "Ta: {float, bfloat16} = DT_FLOAT", "Tb: {float, bfloat16} = DT_FLOAT"],
    shape=_sparse_matmul_shape,
    kernel=_sparse_matmul_kernel,
    grad=_sparse_matmul_grad,
)


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False,
                  b_is_sparse=False, name=None):
    """``matmul(a, b)`` in float32, as TF's SparseMatMul op (float32 or bfloat16 inputs; the
    sparsity flags are hints: NumPy's dense product is used either way)."""
    return ops.apply_op("SparseMatMul", [a, b],
                        {"transpose_a": transpose_a, "transpose_b": transpose_b,
                         "a_is_sparse": a_is_sparse, "b_is_sparse": b_is_sparse},
                        name=name)._outputs[0]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) making each padded input dimension divisible by its block size."""
    from tideflow.ops.concat_ops import stack
    from tideflow.ops.fill_ops import zeros

    with ops.name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = ops.convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = ops.convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        block_shape.get_shape().assert_has_rank(1)
        n = block_shape.get_shape().dims[0].value
        if n is None:
            raise ValueError("block_shape must have a known length")
        if base_paddings is not None:
            base_paddings = ops.convert_to_tensor(base_paddings, dtype=dtypes.int32,
                                                  name="base_paddings")
        else:
            base_paddings = zeros([n, 2], dtypes.int32)
        pad_start = base_paddings[:, 0]
        orig_end = base_paddings[:, 1]
        full = input_shape + pad_start + orig_end
        extra = (block_shape - full % block_shape) % block_shape
        pad_end = orig_end + extra
        paddings = stack([[pad_start[i], pad_end[i]] for i in range(n)], name="paddings")
        crops = stack([[0, extra[i]] for i in range(n)], name="crops")
        return paddings, crops


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` over the first dimension of ``elems``, stacked (a ``map_fn`` loop: tideflow has
    no auto-vectorizer, which is TF's fallback too)."""
    from tideflow.framework import nest
    from tideflow.ops import array_ops
    from tideflow.ops.functional_ops import map_fn

    flat = [ops.convert_to_tensor(e) for e in nest.flatten(elems)]
    # the output structure and dtypes, from one call on the first elements (ops left unused)
    with ops.name_scope("vectorized_map_probe"):
        probe = fn(nest.pack_sequence_as(elems, [array_ops.gather(e, 0) for e in flat]))
    dtype = nest.map_structure(lambda t: ops.convert_to_tensor(t).dtype, probe)
    return map_fn(fn, nest.pack_sequence_as(elems, flat), dtype=dtype)


def grad_pass_through(f):
    """``f`` whose gradient is the identity: the incoming gradients pass to its inputs."""
    from tideflow.ops.misc_ops import custom_gradient

    @custom_gradient
    def _grad_pass_through_op(*args):
        def grad(*dys, variables=None):
            if variables is not None and variables:
                return list(dys), [None] * len(variables)
            return list(dys)

        return f(*args), grad

    return _grad_pass_through_op


def recompute_grad(f):
    """``f`` whose activations are recomputed in the backward pass (memory for time): the
    gradient re-runs ``f`` on its inputs, reusing its variables."""
    from tideflow.framework import nest
    from tideflow.ops import array_ops
    from tideflow.ops.gradients import gradients
    from tideflow.ops.misc_ops import custom_gradient
    from tideflow.ops.variable_scope import get_variable_scope, variable_scope

    @custom_gradient
    def inner(*args):
        scope = get_variable_scope()
        result = f(*args)

        def grad(*dresult, variables=None):
            with ops.control_dependencies(list(dresult)):
                again = [array_ops.identity(a) for a in args]
            with variable_scope(scope, reuse=True):
                res = f(*again)
            vs = list(variables or [])
            gs = gradients(nest.flatten(res), again + vs, grad_ys=list(dresult))
            n = len(again)
            return (gs[:n], gs[n:]) if variables is not None else gs[:n]

        return result, grad

    return inner


def is_symbolic_tensor(tensor):
    """True for graph tensors (every tideflow Tensor)."""
    from tideflow.ops.misc_ops import is_tensor

    return is_tensor(tensor)


def _no_native_libraries(name, argument="library_filename"):
    def load(*args, **kwargs):
        library = args[0] if args else kwargs.get(argument)
        raise errors.UnimplementedError(
            None, None, f"tf.{name}({library!r}): tideflow is pure Python and cannot "
            "load TensorFlow C++ op or kernel libraries; declare the op with "
            "tideflow.framework.op_registry.declare instead")

    load.__name__ = name
    load.__signature__ = inspect.Signature(
        [inspect.Parameter(argument, inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    return load


load_op_library = _no_native_libraries("load_op_library")
load_library = _no_native_libraries("load_library", "library_location")
load_file_system_library = _no_native_libraries("load_file_system_library")
# tf.contrib.util.loader.load_op_library takes a ``path`` (TF 1.15)
contrib_load_op_library = _no_native_libraries("contrib.util.loader.load_op_library", "path")
