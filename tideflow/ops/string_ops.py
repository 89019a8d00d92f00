"""String ops: formatting, joining, splitting, parsing, substrings and regex replacement.

String tensors are NumPy object arrays of ``bytes``. Regexes use Python's ``re`` on bytes,
which agrees with TF's RE2 syntax for the common patterns.
"""

import functools
import re

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape, matrix, scalar, unknown_shape, vector
from tideflow.ops.elementwise import broadcast_shape
from tideflow.ops.sparse_ops import fold_in_shape_inference


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _with_rank(shape, rank):
    if shape.ndims is not None and shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


def _strings(x):
    return np.asarray(x, dtype=object)


def _string_array(items, shape):
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)


# ------------------------------------------------------------------------------------------
# AsString
# ------------------------------------------------------------------------------------------

_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.complex64,
           dtypes.complex128)


def _as_string_factory(ctx):
    dtype = ctx.attr("T")
    precision = ctx.attr("precision")
    scientific = ctx.attr("scientific")
    shortest = ctx.attr("shortest")
    width = ctx.attr("width")
    fill = ctx.attr("fill")
    # TF 1.15's checks in its order: the dtype's, the fill's length, then both notations
    if dtype not in _FLOATS:
        if scientific or shortest:
            raise _invalid(f"scientific and shortest format not supported for datatype {dtype.name}")
        if precision > -1:
            raise _invalid(f"precision not supported for datatype {dtype.name}")
    if len(fill) > 1:
        raise _invalid("Fill string must be one or fewer characters")
    if scientific and shortest:
        raise _invalid("Cannot select both scientific and shortest notation")
    if fill and fill not in " +-0#" and width > -1 and dtype != dtypes.bool:
        # (TF 1.15 ignores the fill without a width, whatever it is, and for bools)
        raise _invalid(f'Fill argument not supported: "{fill}"')
    spec = "%"
    if width > -1:  # as TF: the fill flag goes with a width only
        spec += fill + str(width)
    if dtype in _FLOATS:
        if precision > -1:
            spec += f".{precision}"
        spec += "g" if shortest else ("e" if scientific else "f")
    else:
        spec += "d"

    # as C's printf: the 0 flag pads nan and inf with spaces (Python's % pads them with 0s)
    nonfinite_spec = spec.replace("%0", "%", 1)

    def fmt(v):
        v = float(v)
        if np.isfinite(v):
            return spec % v
        text = nonfinite_spec % v
        if np.isnan(v) and np.signbit(v):
            # C's printf keeps a NaN's sign within the same width (Python's % drops it)
            text = text.replace("+nan", "nan").replace("nan", "-nan", 1)
            if len(text) > max(width, 4):
                text = text[1:] if text.startswith(" ") else text[:-1]
        return text

    if dtype == dtypes.bool:
        def one(v):
            return b"true" if v else b"false"
    elif dtype.is_complex:
        def one(v):
            return (f"({fmt(v.real)},{fmt(v.imag)})").encode()
    elif dtype in _FLOATS:
        def one(v):
            return fmt(v).encode()
    else:
        def one(v):
            return (spec % int(v)).encode()

    def run(x):
        x = np.asarray(x)
        return _string_array([one(v) for v in x.reshape(-1)], x.shape)

    return run


op_registry.declare(
    "AsString",
    inputs=["input: T"],
    outputs=["output: string"],
    # TF 1.15's list (no unsigned or 16-bit float types: later releases added them)
    attrs=["T: {int8, int16, int32, int64, complex64, complex128, float, double, bool}",
           "precision: int = -1", "scientific: bool = false", "shortest: bool = false",
           "width: int = -1", "fill: string = ''"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_as_string_factory,
    differentiable=False,
)


@add_dispatch_support(elementwise=1)
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """Each entry of ``input`` formatted as a string (printf-like ``precision``/``width``)."""
    attrs = {"precision": precision, "scientific": scientific, "shortest": shortest,
             "width": width, "fill": fill}
    return ops.apply_op("AsString", [input], attrs, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# StringJoin
# ------------------------------------------------------------------------------------------


def _string_join_kernel(inputs, *, separator):
    arrays = [_strings(x) for x in inputs]
    shape = None
    for a in arrays:
        if a.ndim != 0:
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                raise _invalid(
                    f"Input shapes do not match: {_shape_str(shape)} vs. {_shape_str(a.shape)}"
                )
    shape = () if shape is None else shape
    sep = separator.encode()
    n = int(np.prod(shape, dtype=np.int64))
    cols = [a.reshape(-1) if a.ndim else [a[()]] * n for a in arrays]
    return _string_array([sep.join(parts) for parts in zip(*cols)] if cols else [b""] * n, shape)


def _string_join_shape(op):
    shapes = [t._shape for t in op._inputs]
    if all(s.ndims == 0 for s in shapes):
        return [scalar()]
    from tideflow.ops.concat_ops import _merge_error

    out = unknown_shape()
    for s in shapes:
        if s.ndims is not None and s.ndims != 0:
            err = _merge_error(out, s)  # (TF's shape-merge words)
            if err is not None:
                raise ValueError(err)
            out = out.merge_with(s)
    return [out]


op_registry.declare(
    "StringJoin",
    inputs=["inputs: N * string"],
    outputs=["output: string"],
    attrs=["N: int >= 1", "separator: string = ''"],
    shape=_string_join_shape,
    kernel=_string_join_kernel,
    differentiable=False,
)


@add_dispatch_support
def string_join(inputs, separator="", name=None):
    """Joins same-shaped string tensors elementwise (scalars broadcast) with ``separator``."""
    return ops.apply_op("StringJoin", [list(inputs)], {"separator": separator},
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# StringSplit
# ------------------------------------------------------------------------------------------


def _string_split_kernel(input, delimiter, *, skip_empty):
    source = _strings(input)
    delim = _strings(delimiter)
    if source.ndim != 1:
        raise _invalid(f"input must be a vector, got shape: {_shape_str(source.shape)}")
    if delim.ndim != 0:
        raise _invalid(f"delimiter must be a scalar, got shape: {_shape_str(delim.shape)}")
    delim = delim[()]
    if delim:
        pattern = re.compile(b"[" + re.escape(delim) + b"]")
    indices = []
    values = []
    width = 0
    for row, s in enumerate(source):
        if not delim or not s:  # (an empty string has no tokens, even kept empty ones)
            tokens = [s[i:i + 1] for i in range(len(s))]
        else:
            tokens = pattern.split(s)
            if skip_empty:
                tokens = [t for t in tokens if t]
        indices.extend((row, col) for col in range(len(tokens)))
        values.extend(tokens)
        width = max(width, len(tokens))
    idx = np.asarray(indices, dtype=np.int64).reshape(-1, 2)
    return idx, _string_array(values, (len(values),)), np.asarray([len(source), width],
                                                                   dtype=np.int64)


def _string_split_shape(op):
    _with_rank(op._inputs[0]._shape, 1)
    _with_rank(op._inputs[1]._shape, 0)
    return [matrix(None, 2), vector(None), vector(2)]


op_registry.declare(
    "StringSplit",
    inputs=["input: string", "delimiter: string"],
    outputs=["indices: int64", "values: string", "shape: int64"],
    attrs=["skip_empty: bool = true"],
    shape=_string_split_shape,
    kernel=_string_split_kernel,
    differentiable=False,
)
# as TF's shape refiner, which runs the split of a constant (a to_dense of it is static)
fold_in_shape_inference("StringSplit")

def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor",
                 name=None):
    """Splits each string of the vector ``source`` on any byte of ``delimiter`` (default ' ').

    An empty delimiter splits into single bytes. Returns a ``SparseTensor`` of shape
    ``[len(source), max tokens]`` whose entry ``[i, j]`` is token ``j`` of string ``i``.
    """
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'delimiter' and 'sep'")
    delimiter = sep if sep is not None else delimiter
    if delimiter is None:
        delimiter = " "
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError(f"Unsupported result_type: {result_type!r}")
    with ops.name_scope(name, "StringSplit", [source]):
        delimiter = ops.convert_to_tensor(delimiter, dtype=dtypes.string)
        source = ops.convert_to_tensor(source, dtype=dtypes.string)
        op = ops.apply_op("StringSplit", [source, delimiter], {"skip_empty": skip_empty})
        indices, values, shape = op._outputs
        sparse = SparseTensor(indices, values, shape)
        if result_type == "RaggedTensor":
            from tideflow.ops.ragged_tensor import RaggedTensor

            return RaggedTensor.from_sparse(sparse)
        return sparse


def string_split_v2(source, sep=None, maxsplit=-1):
    """Splits each string of the vector ``source`` on the exact string ``sep`` (TF's
    ``string_ops.string_split_v2``): ``sep=None`` splits on whitespace runs and drops empty
    tokens. Returns a ``SparseTensor`` of shape ``[len(source), max tokens]``."""
    from tideflow.ops.string_more_ops import split

    source = ops.convert_to_tensor(source, dtype=dtypes.string, name="source")
    if source.get_shape().ndims not in (None, 1):
        raise ValueError(f"string_split_v2: source must be a vector, got shape "
                         f"{source.get_shape()}")
    return split(source, sep, maxsplit)


# ------------------------------------------------------------------------------------------
# StringToNumber
# ------------------------------------------------------------------------------------------

# TF's safe_strtof/strtod (double-conversion: surrounding spaces, hex integers, inf and nan,
# blanks alone read as 0) and safe_strto32/64 (no '+' sign)
_FLOAT_RE = re.compile(
    rb"\s*(?:[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0x[0-9a-f]+|inf|nan))?\s*",
    re.IGNORECASE)
_INT_RE = re.compile(rb"\s*-?\d+\s*")


def parse_float(text):
    """A float as TF's string_to_number and decode_csv read ``text`` (bytes matching
    ``_FLOAT_RE``, not empty)."""
    t = text.strip()
    if not t:
        return 0.0
    body = t.lstrip(b"+-")
    if body[:2].lower() == b"0x":
        v = float(int(body, 16))
        return -v if t[:1] == b"-" else v
    return float(t)


_F32_TINY = float(np.finfo(np.float32).tiny)


def parse_float32(text):
    """``parse_float`` rounded to float32, a denormal result flushed to a zero of its sign (TF's
    kernels run with the CPU's flush-to-zero mode, which the narrowing conversion obeys)."""
    v = parse_float(text)
    with np.errstate(over="ignore"):
        f = np.float32(v)
    if f != 0 and abs(float(f)) < _F32_TINY:
        f = np.float32(np.copysign(0.0, v))
    return f


def _string_to_number_kernel(string_tensor, *, out_type):
    x = _strings(string_tensor)
    np_type = out_type.as_numpy_dtype
    is_int = out_type.is_integer
    info = np.iinfo(np_type) if is_int else None
    out = np.empty(x.shape, dtype=np_type)
    flat = out.reshape(-1)
    for i, s in enumerate(x.reshape(-1)):
        ok = bool(s) and (_INT_RE if is_int else _FLOAT_RE).fullmatch(s) is not None
        if ok and is_int:
            v = int(s)
            ok = info.min <= v <= info.max
        elif ok and out_type == dtypes.float32:
            v = parse_float32(s)
        elif ok:
            v = np_type(parse_float(s))
        if not ok:
            raise _invalid(
                "StringToNumberOp could not correctly convert string: "
                + s.decode("utf-8", "replace")
            )
        flat[i] = v
    return out


op_registry.declare(
    "StringToNumber",
    inputs=["string_tensor: string"],
    outputs=["output: out_type"],
    attrs=["out_type: {float, double, int32, int64} = DT_FLOAT"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_string_to_number_kernel,
    differentiable=False,
)


def string_to_number(string_tensor=None, out_type=dtypes.float32, name=None, input=None):
    """Parses each string as a number of ``out_type`` (float32, float64, int32 or int64); as
    TF 1.15's v1 function, no ragged dispatch."""
    if input is not None:
        if string_tensor is not None:
            raise ValueError("Cannot specify both 'input' and 'string_tensor'.")
        string_tensor = input
    return ops.apply_op("StringToNumber", [string_tensor], {"out_type": out_type},
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# ReduceJoin
# ------------------------------------------------------------------------------------------


def _reduction_dims(indices, ndims, duplicates_fail=True):
    dims = []
    for d in np.asarray(indices).reshape(-1).tolist():
        dd = d + ndims if d < 0 else d
        if not 0 <= dd < ndims:
            raise ValueError(f"Invalid reduction dimension {d} for input with {ndims} dimensions.")
        if dd in dims:
            if duplicates_fail:
                raise ValueError(f"Duplicate reduction dimension {d}")
            continue
        dims.append(dd)
    return dims


def _reduce_join_kernel(inputs, reduction_indices, *, keep_dims, separator):
    x = _strings(inputs)
    try:
        dims = _reduction_dims(reduction_indices, x.ndim)
    except ValueError as e:
        if str(e).startswith("Invalid"):  # the kernel's words and class (TF 1.15)
            d = str(e).split()[3]
            raise errors.OutOfRangeError(
                None, None, f"Invalid reduction dimension {d} for input with {x.ndim} "
                "dimension(s)") from None
        raise _invalid(str(e)) from None
    if not dims:
        return x
    kept = [d for d in range(x.ndim) if d not in dims]
    # the first listed dimension varies fastest in the joined order
    t = x.transpose(kept + dims[::-1])
    kept_shape = [x.shape[d] for d in kept]
    m = int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
    flat = t.reshape(int(np.prod(kept_shape, dtype=np.int64)), m)
    sep = separator.encode()
    joined = _string_array([sep.join(row) for row in flat], kept_shape)
    if keep_dims:
        joined = joined.reshape([1 if d in dims else n for d, n in enumerate(x.shape)])
    return joined


def _reduce_join_shape(op):
    shape = op._inputs[0]._shape
    keep_dims = op._attrs["keep_dims"]
    idx = ops.constant_value(op._inputs[1])
    if shape.ndims is None:
        return [unknown_shape()]
    if idx is None:
        return [TensorShape([None] * shape.ndims) if keep_dims else unknown_shape()]
    # (a repeated dimension fails when run, as TF's kernel checks it)
    dims = _reduction_dims(idx, shape.ndims, duplicates_fail=False)
    if not dims:
        return [shape]
    out = []
    for d, dim in enumerate(shape.dims):
        if d in dims:
            if keep_dims:
                out.append(1)
        else:
            out.append(dim)
    return [TensorShape(out)]


op_registry.declare(
    "ReduceJoin",
    inputs=["inputs: string", "reduction_indices: int32"],
    outputs=["output: string"],
    attrs=["keep_dims: bool = false", "separator: string = ''"],
    shape=_reduce_join_shape,
    kernel=_reduce_join_kernel,
    differentiable=False,
)


@add_dispatch_support  # a RaggedTensor: joins along its ragged rows
def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None,
                reduction_indices=None, keepdims=None):
    """Joins the strings of ``inputs`` across ``axis`` (default: all, in row-major order).
    ``keepdims`` is the newer name of ``keep_dims``, ``axis`` of ``reduction_indices``."""
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'reduction_indices' and 'axis'")
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    axis = axis if axis is not None else reduction_indices
    keep_dims = bool(keepdims if keepdims is not None else keep_dims)
    # TF 1.15's names: the op (``name`` or ReduceJoin) inside a ReduceJoin scope, the
    # all-axes constant a plain Const
    with ops.name_scope(None, "ReduceJoin", [inputs]):
        # (a Tensor of another dtype is the op's TypeError, as in TF)
        inputs = ops.convert_to_tensor(
            inputs, dtype=None if isinstance(inputs, ops.Tensor) else dtypes.string)
        if axis is None:
            ndims = inputs.get_shape().ndims
            if ndims is not None:
                axis = ops.convert_to_tensor(np.arange(ndims - 1, -1, -1, dtype=np.int32))
            else:
                from tideflow.ops import array_ops, range_ops

                axis = range_ops.range(array_ops.rank(inputs) - 1, -1, -1)
        return ops.apply_op(
            "ReduceJoin", [inputs, axis], {"keep_dims": keep_dims, "separator": separator},
            name=name or "ReduceJoin",
        )._outputs[0]


# ------------------------------------------------------------------------------------------
# Substr, StringLength, RegexReplace
# ------------------------------------------------------------------------------------------


def _substr_kernel(input, pos, len_, *, unit="BYTE"):
    pos = np.asarray(pos)
    len_ = np.asarray(len_)
    if pos.shape != len_.shape:
        raise _invalid(
            f"pos and len should have the same shape, got: {_shape_str(pos.shape)} vs. "
            f"{_shape_str(len_.shape)}"
        )
    try:
        s, p, n = np.broadcast_arrays(_strings(input), pos, len_)
    except ValueError:
        raise _invalid(
            f"Incompatible shapes: {_shape_str(np.shape(input))} vs. {_shape_str(pos.shape)}"
        ) from None
    out = []
    for i, (si, pi, ni) in enumerate(zip(s.reshape(-1), p.reshape(-1), n.reshape(-1))):
        given, ni = int(pi), int(ni)
        # in characters, as TF: each byte that is not a UTF-8 continuation byte starts one
        # (invalid bytes are kept as they are)
        starts = _char_starts(si, True) if unit == "UTF8_CHAR" else None
        size = len(si) if starts is None else len(starts) - 1
        pi = given + size if given < 0 else given  # as TF: negative counts from the end
        # (TF 1.15 in characters: a negative len takes no character after a position from
        # the start, and fails after one from the end)
        bad_utf8_len = starts is not None and ni < 0 and given < 0
        if not 0 <= pi <= size or bad_utf8_len:
            # TF 1.15's words: the position as given; the bytes shown for BYTE only
            shown = "" if unit == "UTF8_CHAR" else f"b'{si.decode('utf-8', 'replace')}' "
            raise _invalid(f"pos {given} out of range for string {shown}at index {i}")
        if ni < 0:
            end = size if starts is None else pi
        else:
            end = min(pi + ni, size)
        out.append(si[pi:end] if starts is None else si[starts[pi]:starts[end]])
    return _string_array(out, s.shape)


def _substr_shape(op):
    pos, len_ = op._inputs[1]._shape, op._inputs[2]._shape
    if pos.ndims is not None and len_.ndims is not None and pos.ndims != len_.ndims:
        # as TF: pos must first have len's rank
        raise ValueError(f"Shape must be rank {len_.ndims} but is rank {pos.ndims}")
    if not pos.is_compatible_with(len_):
        # (shapes as TF's shape functions print them: [2], [?,3])
        def dbg(sh):
            return "[" + ",".join("?" if d is None else str(d) for d in sh.as_list()) + "]"

        raise ValueError(f"pos and len shapes must match: {dbg(pos)} vs. {dbg(len_)}")
    return [broadcast_shape(op._inputs[0]._shape, pos)]


op_registry.declare(
    "Substr",
    inputs=["input: string", "pos: T", "len: T"],
    outputs=["output: string"],
    attrs=["T: {int32, int64}", "unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"],
    shape=_substr_shape,
    kernel=_substr_kernel,
    differentiable=False,
)


@add_dispatch_support(elementwise=3)
def substr(input, pos, len, name=None, unit="BYTE"):
    """Substrings of ``input`` starting at ``pos``, ``len`` long (broadcasting), counted in
    bytes or, with ``unit="UTF8_CHAR"``, in characters; a negative ``pos`` counts from the
    end."""
    return ops.apply_op("Substr", [input, pos, len], {"unit": unit}, name=name)._outputs[0]


def _char_starts(s, from_zero=False):
    """Byte offsets where the characters of ``s`` start (as TF counts UTF-8 characters: at
    every byte but a continuation byte; for substr also at byte 0), then ``len(s)``."""
    b = np.frombuffer(s, np.uint8)
    lead = (b & 0xC0) != 0x80
    if from_zero and lead.size:
        lead[0] = True
    return np.append(np.nonzero(lead)[0], len(s)).tolist()


def _string_length_kernel(input, *, unit):
    x = _strings(input)
    if unit == "UTF8_CHAR":
        lengths = [len(_char_starts(s)) - 1 for s in x.reshape(-1)]
    else:
        lengths = [len(s) for s in x.reshape(-1)]
    return np.asarray(lengths, dtype=np.int32).reshape(x.shape)


op_registry.declare(
    "StringLength",
    inputs=["input: string"],
    outputs=["output: int32"],
    attrs=["unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_string_length_kernel,
    differentiable=False,
)


@add_dispatch_support(elementwise=1)
def string_length(input, name=None, unit="BYTE"):
    """The length of each string, in bytes (``unit='BYTE'``) or UTF-8 characters."""
    return ops.apply_op("StringLength", [input], {"unit": unit}, name=name)._outputs[0]


_REWRITE_TOKEN = re.compile(rb"\\(.)|[^\\]+|\\$", re.DOTALL)


def _compile_rewrite(rewrite, groups):
    """RE2 rewrite strings: ``\\0``..``\\9`` name groups, ``\\\\`` is a backslash.

    Returns ``replace(match)``, and whether the rewrite is broken (another escape, or a
    trailing backslash): as TF 1.15 (RE2 unchecked), a broken rewrite leaves a single
    replace undone and makes a global one write only the text before the bad escape; a
    group the pattern lacks is empty."""
    parts = []
    broken = False
    for m in _REWRITE_TOKEN.finditer(rewrite):
        esc = m.group(1)
        if esc is None:
            if m.group(0) == b"\\":
                broken = True
                break
            parts.append(m.group(0))
        elif esc == b"\\":
            parts.append(b"\\")
        elif esc.isdigit() and int(esc) <= groups:
            parts.append(int(esc))
        elif esc.isdigit():
            parts.append(b"")
        else:
            broken = True
            break

    def replace(m):
        groups = (m.group(p) or b"" for p in parts if not isinstance(p, bytes))
        groups = [g.encode("utf-8", "surrogateescape") if isinstance(g, str) else g
                  for g in groups]
        it = iter(groups)
        return b"".join(p if isinstance(p, bytes) else next(it) for p in parts)

    return replace, broken


def compile_re2(pat):
    """``(regex, by_code_point)`` for an RE2 pattern (bytes): Python's ``re`` on the decoded
    text (RE2 matches UTF-8 by code point: ``.`` is one character), with the pattern's RE2
    syntax translated (``\\p{L}``, ``[[:alpha:]]``) and ``\\w``/``\\d``/``\\s`` ASCII
    as in RE2. An invalid pattern is TF's InvalidArgumentError."""
    from tideflow.ops import re2_classes

    text = pat.decode("utf-8", "surrogateescape")
    try:
        return re.compile(re2_classes.translate(text), re.ASCII), True
    except (re.error, ValueError) as e:
        raise _invalid(f"Invalid pattern: {text}, error: {e}") from None


@functools.lru_cache(maxsize=64)
def guarded_re2(pat):
    """``compile_re2(pat)``'s regex with no class matching a byte of invalid UTF-8 (for the
    strings that hold one: RE2 steps over such bytes, ``.`` and ``[^a]`` never take them)."""
    from tideflow.ops import re2_classes

    return re.compile(re2_classes.translate(pat.decode("utf-8", "surrogateescape"), guard=True),
                      re.ASCII)


def invalid_utf8(s):
    """Whether the bytes ``s`` are not valid UTF-8."""
    if s.isascii():
        return False
    try:
        s.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def re2_sub(regex, repl, s, count=0):
    """``regex.sub`` as RE2's GlobalReplace: each search starts where the last match ended,
    and an empty match right there is skipped by copying one character (Python's ``sub``
    replaces it, and then looks for a non-empty match at the same place)."""
    out, pos, last, n = [], 0, -1, 0
    while pos <= len(s) and not (count and n >= count):
        m = regex.search(s, pos)
        if m is None:
            break
        out.append(s[pos:m.start()])
        if m.start() == m.end() == last:
            out.append(s[pos:pos + 1])
            pos += 1
            continue
        out.append(repl(m))
        pos = last = m.end()
        n += 1
    if not n:
        return s
    out.append(s[pos:])
    return s[:0].join(out)


def _decoded(s):
    return s.decode("utf-8", "surrogateescape")


def _regex_replace_kernel(input, pattern, rewrite, *, replace_global):
    pattern = _strings(pattern)
    rewrite = _strings(rewrite)
    if pattern.ndim != 0:
        raise _invalid(f"Pattern must be scalar, but received {_shape_str(pattern.shape)}")
    if rewrite.ndim != 0:
        raise _invalid(f"Replacement rewrite must be scalar, but received "
                       f"{_shape_str(rewrite.shape)}")
    regex, by_code_point = compile_re2(pattern[()])
    repl, broken = _compile_rewrite(rewrite[()], regex.groups)
    x = _strings(input)
    if broken and not replace_global:
        return x.copy()
    count = 0 if replace_global else 1
    if by_code_point:
        def text_repl(m):
            return _decoded(repl(m))

        out = [re2_sub(guarded_re2(pattern[()]) if invalid_utf8(s) else regex, text_repl,
                       _decoded(s), count).encode("utf-8", "surrogateescape")
               for s in x.reshape(-1)]
    else:
        out = [re2_sub(regex, repl, s, count) for s in x.reshape(-1)]
    return _string_array(out, x.shape)


def _regex_replace_shape(op):
    _with_rank(op._inputs[1]._shape, 0)
    _with_rank(op._inputs[2]._shape, 0)
    return [op._inputs[0]._shape]


op_registry.declare(
    "RegexReplace",
    inputs=["input: string", "pattern: string", "rewrite: string"],
    outputs=["output: string"],
    attrs=["replace_global: bool = true"],
    shape=_regex_replace_shape,
    kernel=_regex_replace_kernel,
    differentiable=False,
)


def _static_regex_replace_kernel(input, *, pattern, rewrite, replace_global):
    # TF's StaticRegexReplace: pattern and rewrite are attrs, fixed when the graph is built
    pattern, rewrite = (v.encode() if isinstance(v, str) else v for v in (pattern, rewrite))
    return _regex_replace_kernel(input, np.array(pattern, dtype=object),
                                 np.array(rewrite, dtype=object), replace_global=replace_global)


op_registry.declare(
    "StaticRegexReplace",
    inputs=["input: string"],
    outputs=["output: string"],
    attrs=["pattern: string", "rewrite: string", "replace_global: bool = true"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_static_regex_replace_kernel,
    differentiable=False,
)


@add_dispatch_support(elementwise=1)
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Replaces matches of ``pattern`` in each string with ``rewrite`` (``\\1`` for groups).
    A Python string pattern and rewrite build TF's StaticRegexReplace (compiled once), as TF
    1.15 does; tensors build RegexReplace."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return ops.apply_op("StaticRegexReplace", [input],
                            {"pattern": pattern, "rewrite": rewrite,
                             "replace_global": replace_global}, name=name)._outputs[0]
    return ops.apply_op("RegexReplace", [input, pattern, rewrite],
                        {"replace_global": replace_global}, name=name)._outputs[0]


# TF's string_ops module also holds the string ops tideflow declares in other files
# (encode_base64, regex_full_match, string_to_hash_bucket_fast, unicode_*, ...):
# ``tensorflow.python.ops.string_ops.X`` finds them there, and in ``tf.strings``
_ELSEWHERE = ("tideflow.ops.base64_ops", "tideflow.ops.string_more_ops",
              "tideflow.ops.string_hash_ops", "tideflow.strings")


def __getattr__(name):
    import importlib

    if not name.startswith("_"):
        for module in _ELSEWHERE:
            found = getattr(importlib.import_module(module), name, None)
            if found is not None:
                return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
