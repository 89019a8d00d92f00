"""More string ops: case mapping, stripping, full-match regexes, ``StringSplitV2``, n-grams,
segment joins, the legacy and keyed hash buckets and the Unicode ops.

TF's ragged results (``StringNGrams``, ``UnicodeDecode``) are produced as TF's ops produce them,
as flat values plus row splits; the ``tf.strings`` wrappers turn them into dense tensors (dense
n-gram input) or ``RaggedTensor`` s (decoding and splitting non-scalar strings).

Hashes: ``StringToHashBucket`` uses TF's legacy ``Hash64`` (MurmurHash64A seeded with
0xDECAFCAFFE) and ``StringToHashBucketStrong`` SipHash-2-4 under the 128-bit ``key``, so bucket
numbers agree with TF's.
"""

import builtins
import codecs
import re
import struct

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape, matrix, unknown_shape, vector
from tideflow.ops.sparse_ops import fold_in_shape_inference
from tideflow.ops.string_ops import _with_rank

_M = 0xFFFFFFFFFFFFFFFF


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _strings(x):
    return np.asarray(x, dtype=object)


def _string_array(items, shape):
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out.reshape(shape)


def _map_strings(fn, x):
    x = _strings(x)
    return _string_array([fn(s) for s in x.reshape(-1)], x.shape)


def _same_shape(op):
    return [op.inputs[0].get_shape()]


# ------------------------------------------------------------------------------------------
# hashes
# ------------------------------------------------------------------------------------------


def hash64(s, seed=0xDECAFCAFFE):
    """TF's legacy ``Hash64`` of the bytes ``s`` (MurmurHash64A), an unsigned 64-bit int."""
    m, r = 0xC6A4A7935BD1E995, 47
    n = len(s)
    h = (seed ^ (n * m)) & _M
    end = n - n % 8
    for i in range(0, end, 8):
        k = (struct.unpack_from("<Q", s, i)[0] * m) & _M
        k ^= k >> r
        h ^= (k * m) & _M
        h = (h * m) & _M
    if n % 8:
        for j in range(n % 8):
            h ^= s[end + j] << (8 * j)
        h = (h * m) & _M
    h ^= h >> r
    h = (h * m) & _M
    return h ^ (h >> r)


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M


def siphash24(k0, k1, s):
    """SipHash-2-4 of the bytes ``s`` under the key ``(k0, k1)``, an unsigned 64-bit int."""
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261,
         k1 ^ 0x7465646279746573]

    def rounds(count):
        v0, v1, v2, v3 = v
        for _ in range(count):
            v0 = (v0 + v1) & _M
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        v[:] = [v0, v1, v2, v3]

    n = len(s)
    end = n - n % 8
    for i in range(0, end, 8):
        word = struct.unpack_from("<Q", s, i)[0]
        v[3] ^= word
        rounds(2)
        v[0] ^= word
    last = (n & 0xFF) << 56
    for j in range(n % 8):
        last |= s[end + j] << (8 * j)
    v[3] ^= last
    rounds(2)
    v[0] ^= last
    v[2] ^= 0xFF
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def _as_bytes(s):
    return s if isinstance(s, bytes) else str(s).encode()


def _bucket_kernel(hash_fn):
    def kernel(string_tensor, *, num_buckets, **kw):
        flat = _strings(string_tensor).reshape(-1)
        out = np.empty(flat.shape, np.int64)
        for i, s in enumerate(flat.tolist()):
            out[i] = hash_fn(_as_bytes(s), **kw) % num_buckets
        return out.reshape(np.shape(string_tensor))
    return kernel


def _strong_kernel(input, *, num_buckets, key):
    if len(key) != 2:
        raise _invalid("Key must have 2 elements")
    k0, k1 = (int(k) & _M for k in key)
    return _bucket_kernel(lambda s: siphash24(k0, k1, s))(input, num_buckets=num_buckets)


op_registry.declare(
    "StringToHashBucket",
    inputs=["string_tensor: string"],
    outputs=["output: int64"],
    attrs=["num_buckets: int >= 1"],
    shape=_same_shape,
    kernel=_bucket_kernel(hash64),
    differentiable=False,
)
op_registry.declare(
    "StringToHashBucketStrong",
    inputs=["input: string"],
    outputs=["output: int64"],
    attrs=["num_buckets: int >= 1", "key: list(int)"],
    shape=_same_shape,
    kernel=_strong_kernel,
    differentiable=False,
)


def _check_buckets(op_type, num_buckets):
    from tideflow.ops.string_hash_ops import num_buckets_attr

    return num_buckets_attr(op_type, num_buckets)


def string_to_hash_bucket(string_tensor=None, num_buckets=None, name=None, input=None):
    """Each string's bucket, ``Hash64(s) % num_buckets`` (TF's legacy hash), as int64 (no
    ragged dispatch, as TF 1.15)."""
    if string_tensor is None:
        string_tensor = input
    num_buckets = _check_buckets("StringToHashBucket", num_buckets)
    return ops.apply_op("StringToHashBucket", [string_tensor], {"num_buckets": num_buckets},
                        name=name).outputs[0]


@add_dispatch_support(elementwise=1)
def string_to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's bucket under the keyed SipHash-2-4 (``key``: two ints), as int64."""
    num_buckets = _check_buckets("StringToHashBucketStrong", num_buckets)
    # (a key of another length fails when run, as TF's kernel checks it)
    key = [int(k) for k in key]
    return ops.apply_op("StringToHashBucketStrong", [input],
                        {"num_buckets": num_buckets, "key": key}, name=name).outputs[0]


# ------------------------------------------------------------------------------------------
# case, strip, regex_full_match
# ------------------------------------------------------------------------------------------


def _case_kernel(method):
    ascii_map = bytes.lower if method == "lower" else bytes.upper

    def kernel(input, *, encoding):
        if encoding == "":
            return _map_strings(lambda s: ascii_map(_as_bytes(s)), input)
        if encoding.lower().replace("-", "") != "utf8":
            raise _invalid(f"String{method.title()}: encoding must be '' or 'utf-8', got "
                           f"{encoding!r}")
        return _map_strings(
            lambda s: getattr(_as_bytes(s).decode("utf-8", "replace"), method)().encode(), input)
    return kernel


for _op, _m in (("StringLower", "lower"), ("StringUpper", "upper")):
    op_registry.declare(
        _op,
        inputs=["input: string"],
        outputs=["output: string"],
        attrs=["encoding: string = ''"],
        shape=_same_shape,
        kernel=_case_kernel(_m),
        differentiable=False,
    )

op_registry.declare(
    "StringStrip",
    inputs=["input: string"],
    outputs=["output: string"],
    shape=_same_shape,
    kernel=lambda input: _map_strings(lambda s: _as_bytes(s).strip(b" \t\n\v\f\r"), input),
    differentiable=False,
)


def _regex_full_match_kernel(input, pattern):
    pattern = _strings(pattern)
    if pattern.ndim != 0:
        raise _invalid(f"Pattern must be scalar, but received {list(pattern.shape)}")
    from tideflow.ops.string_ops import compile_re2, guarded_re2, invalid_utf8

    pat = _as_bytes(pattern[()])
    rx, by_code_point = compile_re2(pat)
    x = _strings(input)
    if not by_code_point:
        out = [rx.fullmatch(_as_bytes(s)) is not None for s in x.reshape(-1)]
        return np.array(out, dtype=bool).reshape(x.shape)
    out = []
    for s in x.reshape(-1):
        s = _as_bytes(s)
        # (invalid UTF-8 is matched by no class, as in RE2)
        r = guarded_re2(pat) if invalid_utf8(s) else rx
        out.append(r.fullmatch(s.decode("utf-8", "surrogateescape")) is not None)
    return np.array(out, dtype=bool).reshape(x.shape)


def _regex_full_match_shape(op):
    _with_rank(op.inputs[1].get_shape(), 0)
    return [op.inputs[0].get_shape()]


op_registry.declare(
    "RegexFullMatch",
    inputs=["input: string", "pattern: string"],
    outputs=["output: bool"],
    shape=_regex_full_match_shape,
    kernel=_regex_full_match_kernel,
    differentiable=False,
)


def _static_regex_full_match_kernel(input, *, pattern):
    # TF's StaticRegexFullMatch: the pattern is an attr (compiled once per op); TF's own
    # regex_full_match emits it for a constant pattern, as TF 2.x's Saver does for "^s3://.*".
    return _regex_full_match_kernel(input, np.array(pattern, dtype=object))


op_registry.declare(
    "StaticRegexFullMatch",
    inputs=["input: string"],
    outputs=["output: bool"],
    attrs=["pattern: string"],
    shape=lambda op: [op.inputs[0].get_shape()],
    kernel=_static_regex_full_match_kernel,
    differentiable=False,
)


def lower(input, encoding="", name=None):  # no ragged dispatch in TF 1.15
    """Lower-cases each string (ASCII only unless ``encoding='utf-8'``)."""
    return ops.apply_op("StringLower", [input],  # (another dtype: the op's TypeError, as TF)
                        {"encoding": encoding}, name=name).outputs[0]


def upper(input, encoding="", name=None):  # no ragged dispatch in TF 1.15
    """Upper-cases each string (ASCII only unless ``encoding='utf-8'``)."""
    return ops.apply_op("StringUpper", [input],  # (another dtype: the op's TypeError, as TF)
                        {"encoding": encoding}, name=name).outputs[0]


@add_dispatch_support(elementwise=1)
def strip(input, name=None):
    """Strips leading and trailing ASCII whitespace from each string."""
    return ops.apply_op("StringStrip", [input],  # (another dtype: the op's TypeError, as TF)
                        name=name).outputs[0]


@add_dispatch_support(elementwise=1)
def regex_full_match(input, pattern, name=None):
    """True where the whole string matches ``pattern`` (Python ``re`` syntax, which agrees with
    RE2 for the common patterns). A Python-string pattern builds TF's StaticRegexFullMatch
    (compiled once), as TF 1.15 does; a tensor builds RegexFullMatch."""
    if isinstance(pattern, (str, bytes)):
        return ops.apply_op("StaticRegexFullMatch", [input], {"pattern": pattern},
                            name=name).outputs[0]
    input = ops.convert_to_tensor(input, dtype=dtypes.string)
    pattern = ops.convert_to_tensor(pattern, dtype=dtypes.string)
    return ops.apply_op("RegexFullMatch", [input, pattern], name=name).outputs[0]


# ------------------------------------------------------------------------------------------
# StringSplitV2
# ------------------------------------------------------------------------------------------


def _split_v2_kernel(input, sep, *, maxsplit):
    source = _strings(input)
    sep = _strings(sep)
    # (the shapes as TF's DebugString: [2,1])
    if source.ndim != 1:
        raise _invalid(f"input must be a vector, got shape: [{','.join(map(str, source.shape))}]")
    if sep.ndim != 0:
        raise _invalid(f"sep must be a scalar, got shape: [{','.join(map(str, sep.shape))}]")
    sep = _as_bytes(sep[()]) or None  # '' splits on runs of whitespace, as None does
    indices, values, width = [], [], 0
    for row, s in enumerate(source.tolist()):
        s = _as_bytes(s)
        if maxsplit == 0:
            tokens = [s]  # as TF: the string untouched (Python would strip its left side)
        elif sep is None and maxsplit > 0:
            tokens = _whitespace_split(s, maxsplit)
        else:
            tokens = s.split(sep, maxsplit)
        indices.extend((row, c) for c in range(len(tokens)))
        values.extend(tokens)
        width = max(width, len(tokens))
    return (np.asarray(indices, np.int64).reshape(-1, 2), _string_array(values, (len(values),)),
            np.asarray([len(source), width], np.int64))


def _whitespace_split(s, maxsplit):
    """TF's whitespace SplitV2 with a split limit: once ``maxsplit`` tokens are taken the rest
    (its leading whitespace dropped) is one more token, empty when nothing is left (TF 1.15:
    b'ab' with maxsplit 1 is [b'ab', b''], where Python's split gives [b'ab'])."""
    tokens = s.split(None, maxsplit)
    if len(tokens) == maxsplit:
        tokens.append(b"")
    return tokens


def _split_v2_shape(op):
    _with_rank(op.inputs[0].get_shape(), 1)
    _with_rank(op.inputs[1].get_shape(), 0)
    return [matrix(None, 2), vector(None), vector(2)]


op_registry.declare(
    "StringSplitV2",
    inputs=["input: string", "sep: string"],
    outputs=["indices: int64", "values: string", "shape: int64"],
    attrs=["maxsplit: int = -1"],
    shape=_split_v2_shape,
    kernel=_split_v2_kernel,
    differentiable=False,
)
# as TF's shape refiner, which runs the split of a constant (a to_dense of it is static)
fold_in_shape_inference("StringSplitV2")


def _split_v2(input, sep, maxsplit):
    """The StringSplitV2 of a string vector, as a SparseTensor [len(input), max tokens]."""
    sep = ops.convert_to_tensor("" if sep is None else sep, dtype=dtypes.string)
    op = ops.apply_op("StringSplitV2", [input, sep], {"maxsplit": int(maxsplit)})
    indices, values, shape = op.outputs
    return SparseTensor(indices, values, shape)


def _ragged_split(input, sep, maxsplit, name=None):
    """TF 1.15's ragged ``string_split_v2``: one dimension more than ``input`` (a scalar gives
    a vector of tokens)."""
    from tideflow.ops import array_ops
    from tideflow.ops.ragged_tensor import RaggedTensor

    with ops.name_scope(name, "StringSplit", [input]):
        if not isinstance(input, RaggedTensor):
            input = ops.convert_to_tensor(input, dtype=dtypes.string, name="input")
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(_ragged_split(input.flat_values, sep, maxsplit))
        rank = input.get_shape().ndims
        if rank == 0:
            return _ragged_split(array_ops.stack([input]), sep, maxsplit)[0]
        if rank == 1 or rank is None:
            sparse = _split_v2(input, sep, maxsplit)
            return _known_rows(input, RaggedTensor.from_value_rowids(
                sparse.values, sparse.indices[:, 0], nrows=sparse.dense_shape[0],
                validate=False))
        return _ragged_split(RaggedTensor.from_tensor(input), sep, maxsplit)


def _known_rows(input, rt):
    """``rt`` (a row per string of the vector ``input``) with a static row count where TF
    1.15's shape inference has one: it evaluates the split of a constant vector."""
    n = input.get_shape().as_list()[0] if input.get_shape().ndims == 1 else None
    if n is not None and ops.constant_value(input) is not None:
        rt.row_splits.set_shape([n + 1])
    return rt


def split(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None,
          name=None):
    """Splits each string of ``input`` on ``sep`` (TF 1.x ``tf.strings.split``).

    ``sep=None`` splits on runs of whitespace and drops empty tokens; a given ``sep`` splits on
    that exact string and keeps empty tokens. At most ``maxsplit`` splits per string (-1: all).
    A vector gives a ``SparseTensor`` of shape ``[len(input), max tokens]``; other ranks (and
    ``result_type="RaggedTensor"``) go through TF 1.15's ragged split: a ``RaggedTensor`` one
    dimension deeper, made sparse for a ``SparseTensor`` result (a scalar's tokens are a
    vector, which has no ``to_sparse``: TF 1.15's AttributeError).
    """
    if input is None:
        input = source
    elif source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'.")
    from tideflow.ops.ragged_tensor import RaggedTensor

    with ops.name_scope(name, "StringSplit", [input]):
        if not isinstance(input, RaggedTensor):
            input = ops.convert_to_tensor(input, dtype=dtypes.string, name="input")
        if result_type == "SparseTensor" and input.get_shape().ndims == 1:
            return _split_v2(input, sep, maxsplit)
        result = _ragged_split(input, sep, maxsplit)
        if result_type == "SparseTensor":
            return result.to_sparse()
        if result_type == "RaggedTensor":
            return result
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


# ------------------------------------------------------------------------------------------
# StringNGrams
# ------------------------------------------------------------------------------------------


def _ngrams_kernel(data, data_splits, *, separator, ngram_widths, left_pad, right_pad,
                   pad_width, preserve_short_sequences):
    data = _strings(data)
    splits = np.asarray(data_splits).astype(np.int64)
    if data.ndim != 1 or splits.ndim != 1:
        raise _invalid(f"StringNGrams: data and data_splits must be vectors, got shapes "
                       f"{list(data.shape)} and {list(splits.shape)}")
    if splits.size and (splits[0] != 0 or splits[-1] != data.size or
                        np.any(np.diff(splits) < 0)):
        raise _invalid(f"Invalid split values: {splits.tolist()} for {data.size} values")
    sep = _as_bytes(separator)
    lp, rp = _as_bytes(left_pad), _as_bytes(right_pad)
    out, out_splits = [], [0]
    for r in range(max(len(splits) - 1, 0)):
        row = [_as_bytes(s) for s in data[splits[r]:splits[r + 1]]]
        n = len(row)
        produced = 0
        for w in ngram_widths:
            pad = w - 1 if pad_width < 0 else min(pad_width, w - 1)
            padded = [lp] * pad + row + [rp] * pad
            count = len(padded) - w + 1
            if n == 0 and splits[r] > 0:
                # TF 1.15's kernel writes the string before an empty row between its pads
                # (it reads data[start - 1]; a first empty row crashes it)
                padded = padded[:pad] + [_as_bytes(data[splits[r] - 1])] + padded[pad:]
                w += 1
            for i in range(max(count, 0)):
                out.append(sep.join(padded[i:i + w]))
            produced += max(count, 0)
        if preserve_short_sequences and produced == 0 and n > 0:
            pad = (max(ngram_widths) - 1) if pad_width < 0 else pad_width
            out.append(sep.join([lp] * pad + row + [rp] * pad))
        out_splits.append(len(out))
    return (_string_array(out, (len(out),)),
            np.asarray(out_splits if len(splits) else [], dtype=np.asarray(data_splits).dtype))


op_registry.declare(
    "StringNGrams",
    inputs=["data: string", "data_splits: Tsplits"],
    outputs=["ngrams: string", "ngrams_splits: Tsplits"],
    attrs=["separator: string", "ngram_widths: list(int) >= 0", "left_pad: string",
           "right_pad: string", "pad_width: int", "preserve_short_sequences: bool",
           "Tsplits: {int32, int64} = DT_INT64"],
    shape=lambda op: [vector(None), op.inputs[1].get_shape()],
    kernel=_ngrams_kernel,
    differentiable=False,
)


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of the innermost dimension of the dense string tensor ``data``.

    Output shape: ``data``'s shape with the last dimension replaced by the number of n-grams
    (the same for every row of a dense input). A ``RaggedTensor`` gives a ``RaggedTensor``: the
    n-grams of each innermost row.
    """
    # TF 1.15's checks, in its order (a longer tuple's first two strings are the pads)
    if pad_values is None:
        left_pad = right_pad = ""
    elif isinstance(pad_values, (list, tuple)):
        if not all(isinstance(p, (str, bytes)) for p in pad_values[:2]):
            raise TypeError("pad_values must be a string, tuple of strings, or None.")
        left_pad, right_pad = pad_values[0], pad_values[1]
    elif isinstance(pad_values, (str, bytes)):
        left_pad = right_pad = pad_values
    else:
        raise TypeError("pad_values must be a string, tuple of strings, or None.")
    if padding_width is not None and padding_width < 1:
        raise ValueError("padding_width must be greater than 0.")
    if padding_width is not None and pad_values is None:
        raise ValueError("pad_values must be provided if padding_width is set.")
    if pad_values is None:
        padding_width = 0
    elif padding_width is None:
        padding_width = -1
    widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
    for w in widths:
        if w < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    from tideflow.ops import array_ops
    from tideflow.ops.concat_ops import concat
    from tideflow.ops.ragged_tensor import RaggedTensor

    with ops.name_scope(name, "StringNGrams", [data]):
        attrs = {"separator": separator, "ngram_widths": widths, "left_pad": left_pad,
                 "right_pad": right_pad, "pad_width": int(padding_width),
                 "preserve_short_sequences": bool(preserve_short_sequences)}
        if isinstance(data, RaggedTensor):
            # the n-grams of each innermost row; the outer partitions stay
            if data.flat_values.get_shape().ndims != 1:
                raise ValueError("ngrams of a RaggedTensor need 1-D flat_values")
            splits = data.nested_row_splits
            out, out_splits = ops.apply_op(
                "StringNGrams", [data.flat_values, _cast_int64(splits[-1])], attrs).outputs
            result = RaggedTensor(out, out_splits, internal=True)
            for outer in reversed(splits[:-1]):
                result = RaggedTensor(result, _cast_int64(outer), internal=True)
            return result
        data = ops.convert_to_tensor(data, dtype=dtypes.string, name="data")
        rank = data.get_shape().ndims
        if rank is None:
            raise ValueError("Rank of data must be known.")
        if rank == 0:
            raise ValueError("Data must have rank>0")
        shape, splits = _dense_rows(data)
        flat = array_ops.reshape(data, [-1])
        out, _ = ops.apply_op("StringNGrams", [flat, splits], attrs).outputs
        out_shape = concat([shape[:-1], np.array([-1], np.int64)], axis=0)
        result = array_ops.reshape(out, out_shape)
        # TF 1.15 goes through a ragged tensor and back: the n-gram count stays unknown
        static = data.get_shape()
        result.set_shape(TensorShape(static.as_list()[:-1] + [None]))
        return result


# ------------------------------------------------------------------------------------------
# UnsortedSegmentJoin
# ------------------------------------------------------------------------------------------


def _segment_join_kernel(inputs, segment_ids, num_segments, *, separator):
    x = _strings(inputs)
    ids = np.asarray(segment_ids)
    n = int(np.asarray(num_segments))
    if x.shape[:ids.ndim] != ids.shape:
        raise _invalid(f"segment_ids.shape = {list(ids.shape)} is not a prefix of "
                       f"input.shape = {list(x.shape)}")
    if n < 0:
        raise _invalid(f"Number of segments cannot be negative, got {n}")
    inner = x.shape[ids.ndim:]
    rows = x.reshape((ids.size,) + inner)
    parts = [[] for _ in range(n)]
    for i, sid in enumerate(ids.reshape(-1).tolist()):
        if not 0 <= sid < n:
            raise _invalid("segment_ids are not allowed to exceed num_segments or to have "
                           "negative values.")  # TF 1.15's words
        parts[sid].append(rows[i])
    sep = _as_bytes(separator)
    out = np.empty((n,) + inner, dtype=object)
    for s in range(n):
        if not parts[s]:
            out[s] = b""
            continue
        stack = np.stack(parts[s]) if inner else np.asarray(parts[s], dtype=object)
        flat_out = out[s].reshape(-1) if inner else None
        if inner:
            cols = stack.reshape(len(parts[s]), -1)
            flat_out[:] = [sep.join(_as_bytes(v) for v in cols[:, j]) for j in
                           range(cols.shape[1])]
        else:
            out[s] = sep.join(_as_bytes(v) for v in stack)
    return out


def _segment_join_shape(op):
    # TF's: num_segments a scalar, then the ids' shape a prefix of the inputs'
    x, ids = op.inputs[0].get_shape(), op.inputs[1].get_shape()
    _with_rank(op.inputs[2].get_shape(), 0)
    if ids.ndims is None:
        return [unknown_shape()]
    if x.ndims is not None:
        if x.ndims < ids.ndims:
            raise ValueError(f"Shape must be at least rank {ids.ndims} but is rank {x.ndims}")
        for a, b in zip(x.as_list(), ids.as_list()):
            if a is not None and b is not None and a != b:
                raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    n = ops.constant_value(op.inputs[2])
    if x.ndims is None:
        return [unknown_shape()]
    return [TensorShape([None if n is None else int(n)] + x.as_list()[ids.ndims:])]


op_registry.declare(
    "UnsortedSegmentJoin",
    inputs=["inputs: string", "segment_ids: Tindices", "num_segments: Tnumsegments"],
    outputs=["output: string"],
    attrs=["separator: string = ''", "Tindices: {int32, int64}",
           "Tnumsegments: {int32, int64} = DT_INT32"],
    shape=_segment_join_shape,
    kernel=_segment_join_kernel,
    differentiable=False,
)


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """Joins the strings of ``inputs`` by segment (in order of appearance), with
    ``separator``; empty segments give ``''``. Segment ids must lie in
    ``[0, num_segments)``."""
    inputs = ops.convert_to_tensor(inputs, dtype=dtypes.string)
    segment_ids = ops.convert_to_tensor(segment_ids)
    num_segments = ops.convert_to_tensor(num_segments)
    return ops.apply_op("UnsortedSegmentJoin", [inputs, segment_ids, num_segments],
                        {"separator": separator}, name=name).outputs[0]


# ------------------------------------------------------------------------------------------
# Unicode
# ------------------------------------------------------------------------------------------

_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be",
              "UTF-16-LE": "utf-16-le", "UTF-32-LE": "utf-32-le", "UTF-16": "utf-16",
              "UTF-32": "utf-32", "US-ASCII": "ascii", "ISO-8859-1": "latin-1",
              # more of the encodings TF's ICU decoder knows
              "SHIFT-JIS": "shift_jis", "SHIFT_JIS": "shift_jis", "EUC-JP": "euc_jp",
              "EUC-KR": "euc_kr", "GBK": "gbk", "GB2312": "gb2312", "BIG5": "big5",
              "WINDOWS-1252": "cp1252", "KOI8-R": "koi8_r", "ISO-8859-15": "iso8859_15"}
_OUT_ENCODINGS = ("UTF-8", "UTF-16-BE", "UTF-32-BE")


def _loose_name(name):
    # ICU matches converter names ignoring case and any '-', '_' or ' ' ("US ASCII", "utf8")
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


_ENCODINGS_LOOSE = {_loose_name(k): v for k, v in _ENCODINGS.items()}
_MARK = "\ud800"  # a lone surrogate: no strict decoder produces it, so it marks bad input


def _mark_errors(exc):
    return _MARK, exc.end


codecs.register_error("tideflow.mark", _mark_errors)


def _codec(encoding, what, allowed=None):
    if allowed is not None and encoding not in allowed:
        raise _invalid(f"{what}: unsupported encoding {encoding!r}; expected one of "
                       f"{', '.join(allowed)}")
    try:
        return _ENCODINGS_LOOSE[_loose_name(encoding)]
    except KeyError:  # TF's words (ICU has no converter)
        raise _invalid(f"Could not create converter for input encoding: {encoding}") from None


def _check_errors(errors_attr, what):
    if errors_attr not in ("strict", "replace", "ignore"):
        raise _invalid(f"{what}: errors must be 'strict', 'replace' or 'ignore', got "
                       f"{errors_attr!r}")


def _decode_codepoints(s, codec, errors_attr, replacement_char, replace_control, what):
    text = s.decode(codec, "tideflow.mark")
    out = []
    for ch in text:
        if ch == _MARK:
            if errors_attr == "strict":
                raise _invalid("Invalid formatting on input string")  # (TF's words)
            if errors_attr == "replace":
                out.append(replacement_char)
            continue
        cp = ord(ch)
        if replace_control and cp <= 0x1F:
            # as TF: a control character (C0 only) is handled as a format error: dropped by
            # errors='ignore', an error for a strict transcode (a strict decode replaces it)
            if errors_attr == "ignore":
                continue
            if errors_attr == "strict" and what == "UnicodeTranscode":
                raise _invalid("Invalid formatting on input string")
            cp = replacement_char
        out.append(cp)
    return out


def _encode_codepoints(cps, codec, errors_attr, replacement_char, what):
    # as TF (ICU): the code points go into a UTF-16 string, so surrogates given one by one
    # stay code units there; a high one followed by a low one makes one character, and a lone
    # one is written as it is in UTF-16 and UTF-32, and as U+FFFD in UTF-8
    units = []
    for cp in cps:
        cp = int(cp)
        if not 0 <= cp <= 0x10FFFF:
            if errors_attr == "strict":
                raise _invalid("Code point value out of valid Unicode range.")  # (TF's words)
            if errors_attr == "ignore":
                continue
            cp = replacement_char
        if cp > 0xFFFF:
            units += [0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)]
        else:
            units.append(cp)
    text = "".join(map(chr, units))
    if codec.startswith("utf-16"):
        return text.encode(codec, "surrogatepass")
    # pairs joined; the lone surrogates left
    text = text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    if codec == "utf-8":
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch
                       for ch in text).encode(codec)
    return text.encode(codec, "surrogatepass")


def _transcode_kernel(input, *, input_encoding, output_encoding, errors, replacement_char,
                      replace_control_characters):
    what = "UnicodeTranscode"
    _check_errors(errors, what)
    src = _codec(input_encoding, what)
    dst = _codec(output_encoding, what, _OUT_ENCODINGS)
    return _map_strings(lambda s: _encode_codepoints(
        _decode_codepoints(_as_bytes(s), src, errors, replacement_char,
                           replace_control_characters, what), dst, "replace",
        replacement_char, what), input)


op_registry.declare(
    "UnicodeTranscode",
    inputs=["input: string"],
    outputs=["output: string"],
    attrs=["input_encoding: string", "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
           "errors: {'strict', 'replace', 'ignore'} = 'replace'",
           "replacement_char: int = 65533", "replace_control_characters: bool = false"],
    shape=_same_shape,
    kernel=_transcode_kernel,
    differentiable=False,
)


def _decode_kernel(with_offsets):
    def kernel(input, *, input_encoding, errors, replacement_char, replace_control_characters,
               Tsplits):
        what = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
        _check_errors(errors, what)
        if not 0 <= replacement_char <= 0x10FFFF or 0xD800 <= replacement_char <= 0xDFFF:
            raise _invalid("replacement_char out of unicode codepoint range")
        codec = _codec(input_encoding, what)
        flat = _strings(input).reshape(-1)
        splits, values, starts = [0], [], []
        for s in flat.tolist():
            s = _as_bytes(s)
            if with_offsets:
                cps, where = _decode_with_starts(s, codec, errors, replacement_char,
                                                 replace_control_characters, what)
                starts.extend(where)
            else:
                cps = _decode_codepoints(s, codec, errors, replacement_char,
                                         replace_control_characters, what)
            values.extend(cps)
            splits.append(len(values))
        out = [np.asarray(splits, Tsplits.as_numpy_dtype), np.asarray(values, np.int32)]
        if with_offsets:
            out.append(np.asarray(starts, np.int64))
        return tuple(out)
    return kernel


def _decode_with_starts(s, codec, errors_attr, replacement_char, replace_control, what):
    """Code points of ``s`` and the byte offset where each starts: the bytes are fed one at a
    time, so a character ends at the byte that completes it and a bad sequence starts where
    the last character ended (ignored ones leave their bytes unaccounted, as TF)."""
    if codec in ("utf-16", "utf-32"):  # a BOM to honour: offsets by code unit
        cps = _decode_codepoints(s, codec, errors_attr, replacement_char, replace_control,
                                 what)
        return cps, _char_starts(s, codec, len(cps))
    decoder = codecs.getincrementaldecoder(codec)("tideflow.mark")
    cps, starts, begin = [], [], 0
    for i in builtins.range(len(s) + 1):
        text = decoder.decode(s[i:i + 1], final=i == len(s))
        for ch in text:
            if ch == _MARK:
                if errors_attr == "strict":
                    raise _invalid("Invalid formatting on input string")  # (TF's words)
                if errors_attr == "replace":
                    cps.append(replacement_char)
                    starts.append(begin)
                continue
            cp = ord(ch)
            if replace_control and cp <= 0x1F:  # (as _decode_codepoints)
                if errors_attr == "ignore":
                    continue
                cp = replacement_char
            cps.append(cp)
            starts.append(i + 1 - len(ch.encode(codec, "surrogatepass")))
        if text:
            begin = i + 1
    return cps, starts


def _char_starts(s, codec, count):
    """Byte offsets where each decoded character starts (one per code point)."""
    if codec == "utf-8":
        starts = [i for i, b in enumerate(s) if b & 0xC0 != 0x80]
    elif codec in ("utf-16-be", "utf-16-le"):
        starts, i = [], 0
        while i + 1 < len(s):
            unit = s[i] << 8 | s[i + 1] if codec == "utf-16-be" else s[i + 1] << 8 | s[i]
            starts.append(i)
            i += 4 if 0xD800 <= unit <= 0xDBFF else 2
    elif codec in ("utf-32-be", "utf-32-le"):
        starts = list(range(0, len(s), 4))
    else:
        starts = list(range(len(s)))
    starts = starts[:count]
    return starts + [len(s)] * (count - len(starts))


for _op, _wo in (("UnicodeDecode", False), ("UnicodeDecodeWithOffsets", True)):
    op_registry.declare(
        _op,
        inputs=["input: string"],
        outputs=["row_splits: Tsplits", "char_values: int32"] +
        (["char_to_byte_starts: int64"] if _wo else []),
        attrs=["input_encoding: string", "errors: {'strict', 'replace', 'ignore'} = 'replace'",
               "replacement_char: int = 65533", "replace_control_characters: bool = false",
               "Tsplits: {int32, int64} = DT_INT64"],
        shape=lambda op: [vector(None if op.inputs[0].get_shape().num_elements() is None
                                 else op.inputs[0].get_shape().num_elements() + 1)] +
        [vector(None)] * (len(op.outputs) - 1),
        kernel=_decode_kernel(_wo),
        differentiable=False,
    )


def _encode_kernel(input_values, input_splits, *, errors, output_encoding, replacement_char):
    what = "UnicodeEncode"
    _check_errors(errors, what)
    codec = _codec(output_encoding, what, _OUT_ENCODINGS)
    vals = np.asarray(input_values).reshape(-1)
    splits = np.asarray(input_splits).reshape(-1)
    if splits.size == 0 or splits[0] != 0 or splits[-1] != vals.size or \
            np.any(np.diff(splits) < 0):
        raise _invalid(f"{what}: invalid input_splits {splits.tolist()} for "
                       f"{vals.size} values")
    out = [_encode_codepoints(vals[splits[i]:splits[i + 1]], codec, errors, replacement_char,
                              what) for i in range(splits.size - 1)]
    return _string_array(out, (len(out),))


op_registry.declare(
    "UnicodeEncode",
    inputs=["input_values: int32", "input_splits: Tsplits"],
    outputs=["output: string"],
    attrs=["errors: {'ignore', 'replace', 'strict'} = 'replace'",
           "output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}",
           "replacement_char: int = 65533", "Tsplits: {int32, int64} = DT_INT64"],
    shape=lambda op: [vector(None if op.inputs[1].get_shape()[0].value is None
                             else op.inputs[1].get_shape()[0].value - 1)],
    kernel=_encode_kernel,
    differentiable=False,
)


def _dense_rows(t):
    """``(shape, row_splits)`` of a dense tensor of known rank >= 1 viewed as rows of its last
    axis (all rows the same length)."""
    from tideflow.ops import array_ops
    from tideflow.ops.range_ops import range as range_
    from tideflow.ops.reduction_ops import reduce_prod

    shape = array_ops.shape(t, out_type=dtypes.int64)
    nrows = reduce_prod(shape[:-1]) if t.get_shape().ndims > 1 else ops.convert_to_tensor(
        np.int64(1))
    return shape, range_(nrows + 1, dtype=dtypes.int64) * shape[-1]


def _cast_int64(t):
    from tideflow.ops.cast_ops import cast

    return cast(t, dtypes.int64)


def _cast_int32(t):
    from tideflow.ops.cast_ops import cast

    return cast(t, dtypes.int32)


def _ragged_rows(input, flat_rows):
    """``flat_rows`` (a RaggedTensor, one row per string of the flattened ``input``) with
    ``input``'s leading dimensions restored as uniform ragged dimensions, as TF."""
    from tideflow.ops import array_ops
    from tideflow.ops.ragged_tensor import RaggedTensor
    from tideflow.ops.range_ops import range as range_
    from tideflow.ops.reduction_ops import reduce_prod

    rank = input.get_shape().ndims
    if rank is None:
        raise ValueError(f"input {input.name} must have a known rank for a ragged result")
    if rank == 1:
        flat_rows.row_splits.set_shape([None if input.get_shape()[0].value is None
                                        else input.get_shape()[0].value + 1])
        return flat_rows
    shape = array_ops.shape(input, out_type=dtypes.int64)
    result = flat_rows
    for d in reversed(builtins.range(1, rank)):
        splits = range_(reduce_prod(shape[:d]) + 1, dtype=dtypes.int64) * shape[d]
        result = RaggedTensor(result, splits, internal=True)
    return result


def _decode_scalar(fn, input, input_encoding, errors, replacement_char,
                   replace_control_characters, name, with_offsets):
    """Code points (and offsets) of each string: vectors for a scalar ``input``, else
    RaggedTensors with one row per string."""
    from tideflow.ops import array_ops
    from tideflow.ops.ragged_ops import _ragged_from_value
    from tideflow.ops.ragged_tensor import RaggedTensor

    input = _ragged_from_value(input)
    if isinstance(input, RaggedTensor):  # the strings are its flat values
        with ops.name_scope(name, fn, [input]):
            parts = _decode_scalar(fn, input.flat_values, input_encoding, errors,
                                   replacement_char, replace_control_characters, None,
                                   with_offsets)
            return [input.with_flat_values(p) for p in parts]
    with ops.name_scope(name, fn, [input]):
        input = ops.convert_to_tensor(input, dtype=dtypes.string, name="input")
        if input.get_shape().ndims is None:  # (TF's words, before any op is made)
            raise ValueError("Rank of `input` must be statically known.")
        scalar = input.get_shape().ndims == 0
        op = ops.apply_op("UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode",
                          [input if scalar else array_ops.reshape(input, [-1])],
                          {"input_encoding": input_encoding, "errors": errors,
                           "replacement_char": int(replacement_char),
                           "replace_control_characters": bool(replace_control_characters)})
        if scalar:
            return op.outputs[1:]
        splits = op.outputs[0]
        return [_ragged_rows(input, RaggedTensor(v, splits, internal=True))
                for v in op.outputs[1:]]


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """The code points (int32) of the scalar string ``input``."""
    return _decode_scalar("UnicodeDecode", input, input_encoding, errors, replacement_char,
                          replace_control_characters, name, False)[0]


def unicode_decode_with_offsets(input, input_encoding, errors="replace",
                                replacement_char=65533, replace_control_characters=False,
                                name=None):
    """``(code points, byte offset where each starts)`` of the scalar string ``input``."""
    cps, starts = _decode_scalar("UnicodeDecodeWithOffsets", input, input_encoding, errors,
                                 replacement_char, replace_control_characters, name, True)
    return cps, starts


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,
                   name=None):
    """Encodes the int32 code points of ``input`` along its last axis: a vector gives a scalar
    string, a ``[..., n]`` tensor gives ``[...]`` strings."""
    from tideflow.ops import array_ops
    from tideflow.ops.ragged_tensor import RaggedTensor, RaggedTensorValue

    with ops.name_scope(name, "UnicodeEncode", [input]):
        if isinstance(input, RaggedTensorValue):
            input = RaggedTensor.from_nested_row_splits(
                input.flat_values, input.nested_row_splits, validate=False)
        if isinstance(input, RaggedTensor):
            # as TF 1.15: the innermost dimension (ragged or not) holds each string's points
            if input.flat_values.get_shape().ndims != 1:
                return input.with_flat_values(
                    unicode_encode(input.flat_values, output_encoding, errors, replacement_char))
            if isinstance(input.values, RaggedTensor):
                return input.with_values(
                    unicode_encode(input.values, output_encoding, errors, replacement_char))
            return ops.apply_op("UnicodeEncode", [
                _cast_int32(input.values), input.row_splits],
                {"errors": errors, "output_encoding": output_encoding,
                 "replacement_char": int(replacement_char)}).outputs[0]
        input = ops.convert_to_tensor(input, dtype=dtypes.int32)
        rank = input.get_shape().ndims
        if rank is None:  # TF 1.15's words
            raise ValueError("Rank of input_tensor must be statically known.")
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        # as TF 1.15, through the ragged form, each step in a scope of its own (so the op is
        # "UnicodeEncode/UnicodeEncode/UnicodeEncode" for a matrix)
        if rank == 2:
            return unicode_encode(RaggedTensor.from_tensor(input), output_encoding, errors,
                                  replacement_char)
        if rank == 1:
            from tideflow.ops.array_ops import shape as shape_of
            from tideflow.ops.array_ops import stack

            splits = stack([0, shape_of(input, out_type=dtypes.int32)[0]])
            rows = RaggedTensor.from_row_splits(input, splits, validate=False)
            return array_ops.reshape(
                unicode_encode(rows, output_encoding, errors, replacement_char), [])
        from tideflow.ops.array_ops import stack

        flat = array_ops.reshape(input, stack([-1, array_ops.shape(input)[-1]]))
        out = unicode_encode(flat, output_encoding, errors, replacement_char)
        outer = input.get_shape()[:-1]
        if outer.is_fully_defined():
            return array_ops.reshape(out, outer.as_list())
        result = array_ops.reshape(out, array_ops.shape(input)[:-1])
        result.set_shape(outer)
        return result


def unicode_transcode(input, input_encoding, output_encoding, errors="replace",
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Re-encodes each string from ``input_encoding`` to ``output_encoding``."""
    return ops.apply_op("UnicodeTranscode", [input], {
        "input_encoding": input_encoding, "output_encoding": output_encoding,
        "errors": errors, "replacement_char": int(replacement_char),
        "replace_control_characters": bool(replace_control_characters)}, name=name).outputs[0]


def _encode_chars(cps, input_encoding, errors, replacement_char):
    from tideflow.ops import array_ops

    if not hasattr(cps, "flat_values"):
        return unicode_encode(array_ops.expand_dims(cps, 1), input_encoding, errors,
                              replacement_char)
    # (TF encodes the ragged points expanded by a dimension: its unicode_encode opens a scope
    # for the ragged tensor before the one for its flat values)
    flat = array_ops.expand_dims(cps.flat_values, 1)
    with ops.name_scope(None, "UnicodeEncode", [flat]):
        chars = unicode_encode(flat, input_encoding, errors, replacement_char)
    return cps.with_flat_values(chars)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """The characters of each string of ``input``, each a string in ``input_encoding`` (a
    vector for a scalar, else a RaggedTensor)."""
    with ops.name_scope(name, "UnicodeSplit", [input]):
        cps = unicode_decode(input, input_encoding, errors, replacement_char)
        return _encode_chars(cps, input_encoding, errors, replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,
                               name=None):
    """``(characters, byte offset where each starts)`` of each string of ``input``."""
    with ops.name_scope(name, "UnicodeSplitWithOffsets", [input]):
        cps, starts = unicode_decode_with_offsets(input, input_encoding, errors,
                                                  replacement_char)
        return _encode_chars(cps, input_encoding, errors, replacement_char), starts


_SCRIPT_TABLE = []


def _script_table():
    if not _SCRIPT_TABLE:
        from tideflow.ops.unicode_script_data import RUNS

        runs = np.asarray(RUNS, np.int64).reshape(-1, 2)
        _SCRIPT_TABLE.extend([runs[:, 0], runs[:, 1].astype(np.int32)])
    return _SCRIPT_TABLE


def _unicode_script_kernel(input):
    cps = np.asarray(input, np.int64)
    starts, codes = _script_table()
    idx = np.searchsorted(starts, cps, side="right") - 1
    out = codes[np.clip(idx, 0, len(codes) - 1)]
    return np.where((cps < 0) | (cps > 0x10FFFF), np.int32(-1), out).astype(np.int32)


op_registry.declare(
    "UnicodeScript",
    inputs=["input: int32"],
    outputs=["output: int32"],
    shape=_same_shape,
    kernel=_unicode_script_kernel,
    differentiable=False,
)


@add_dispatch_support(elementwise=1)
def unicode_script(input, name=None):
    """The ICU script code (``UScriptCode``: 0 Common, 25 Latin, 17 Han, ...) of each int32
    code point; -1 for values that are no code point."""
    # (converted by the op, in its scope: a ragged input fails there, after the scope took
    # the op's name, as in TF)
    return ops.apply_op("UnicodeScript", [input], name=name).outputs[0]


def bytes_split(input, name=None):
    """The single bytes of each string of ``input`` (a Tensor or RaggedTensor): a vector of
    strings for a scalar, else a RaggedTensor one dimension deeper, as TF 1.15's
    ``string_bytes_split`` builds it (a StringSplit on the empty delimiter)."""
    from tideflow.ops import array_ops
    from tideflow.ops.ragged_tensor import RaggedTensor

    with ops.name_scope(name, "StringsByteSplit", [input]):
        if not isinstance(input, RaggedTensor):
            input = ops.convert_to_tensor(input, name="input")
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(bytes_split(input.flat_values))
        rank = input.get_shape().ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return bytes_split(array_ops.stack([input]))[0]
        if rank == 1:
            with ops.name_scope(None, "StringSplit") as scope:  # TF's generated wrapper
                delimiter = ops.convert_to_tensor("", dtype=dtypes.string, name="delimiter")
                indices, values, shape = ops.apply_op(
                    "StringSplit", [input, delimiter], {"skip_empty": False}, name=scope).outputs
            return _known_rows(input, RaggedTensor.from_value_rowids(
                values, indices[:, 0], nrows=shape[0], validate=False))
        return bytes_split(RaggedTensor.from_tensor(input))


__all__ = ["bytes_split", "hash64", "lower", "ngrams", "regex_full_match", "siphash24", "split",
           "string_to_hash_bucket", "string_to_hash_bucket_strong", "strip",
           "unicode_decode", "unicode_decode_with_offsets", "unicode_encode", "unicode_script",
           "unicode_split",
           "unicode_split_with_offsets", "unicode_transcode", "unsorted_segment_join", "upper"]
