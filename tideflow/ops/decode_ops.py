"""Decoding ops: raw bytes to numbers (DecodeRaw), CSV records to columns (DecodeCSV), and
tensors to and from serialized TensorProtos (SerializeTensor, ParseTensor).
"""

import functools
import itertools

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import scalar, unknown_shape
from tideflow.ops.string_ops import _FLOAT_RE, _INT_RE, parse_float, parse_float32


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# ------------------------------------------------------------------------------------------
# DecodeRaw
# ------------------------------------------------------------------------------------------


def _decode_raw_kernel(bytes, *, out_type, little_endian):
    x = np.asarray(bytes, dtype=object)
    dt = np.dtype(out_type.as_numpy_dtype)
    dt = dt.newbyteorder("<" if little_endian else ">")
    flat = x.reshape(-1)
    if flat.size == 0:
        return np.zeros(x.shape + (0,), dtype=out_type.as_numpy_dtype)
    size = len(flat[0])
    for i, s in enumerate(flat.tolist()):
        if len(s) != size:
            # TF's order: the first string's size, then this one's
            raise _invalid(f"DecodeRaw requires input strings to all be the same size, but "
                           f"element {i} has size {size} != {len(s)}")
    if size % dt.itemsize:  # (checked after the sizes, as TF does)
        from tideflow.framework.importer import _type_string

        raise _invalid(f"Input to DecodeRaw has length {size} that is not a multiple of "
                       f"{dt.itemsize}, the size of {_type_string(out_type)}")
    out = _from_buffer(b"".join(flat.tolist()), dt, out_type.as_numpy_dtype)
    return out.reshape(x.shape + (size // dt.itemsize,))


def _from_buffer(buf, dt, native):
    """The values in ``buf`` read as ``dt``, as a copy in the native order ``native``."""
    if dt.kind == "c" and dt.byteorder == ">":
        # as TF: a big-endian complex swaps all its bytes at once (the imaginary part first)
        swapped = np.frombuffer(buf, np.uint8).reshape(-1, dt.itemsize)[:, ::-1]
        return np.ascontiguousarray(swapped).view(np.dtype(native).newbyteorder("<")).astype(
            native).reshape(-1)
    return np.frombuffer(buf, dtype=dt).astype(native)  # a copy that owns its memory


def _decode_raw_factory(ctx):
    """DecodeRaw's kernel; one string (a tf.data map's element) goes straight to frombuffer."""
    out_type, little_endian = ctx.attr("out_type"), ctx.attr("little_endian")
    native = np.dtype(out_type.as_numpy_dtype)
    dt = native.newbyteorder("<" if little_endian else ">")

    def run(data):
        if type(data) is np.ndarray and data.ndim == 0:
            s = data[()]
            if type(s) is bytes and len(s) % dt.itemsize == 0:
                return _from_buffer(s, dt, native)
        return _decode_raw_kernel(data, out_type=out_type, little_endian=little_endian)

    return run


_RAW_TYPES = ("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, "
              "complex64, complex128, bool}")

op_registry.declare(
    "DecodeRaw",
    inputs=["bytes: string"],
    outputs=["output: out_type"],
    attrs=[_RAW_TYPES, "little_endian: bool = true"],
    shape=lambda op: [op._inputs[0]._shape.concatenate([None])],
    kernel_factory=_decode_raw_factory,
    differentiable=False,
)


def _decode_padded_raw_kernel(input_bytes, fixed_length, *, out_type, little_endian):
    x = np.asarray(input_bytes, dtype=object)
    width = int(np.asarray(fixed_length))
    dt = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    if width % dt.itemsize:
        raise _invalid(f"fixed_length ({width}) must be a multiple of the size of out_type "
                       f"({dt.itemsize})")
    if width < 0:
        raise _invalid(f"fixed_length must be non-negative, got {width}")
    # each string cut or zero-padded to fixed_length bytes
    flat = [s[:width].ljust(width, b"\0") for s in x.reshape(-1).tolist()]
    data = np.frombuffer(b"".join(flat), dtype=dt).astype(out_type.as_numpy_dtype)
    return data.reshape(x.shape + (width // dt.itemsize,))


def _decode_padded_raw_shape(op):
    n = ops.constant_value(op._inputs[1])
    itemsize = np.dtype(op._attrs["out_type"].as_numpy_dtype).itemsize
    return [op._inputs[0]._shape.concatenate([None if n is None else int(n) // itemsize])]


op_registry.declare(
    "DecodePaddedRaw",
    inputs=["input_bytes: string", "fixed_length: int32"],
    outputs=["output: out_type"],
    attrs=["out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64}",
           "little_endian: bool = true"],
    shape=_decode_padded_raw_shape,
    kernel=_decode_padded_raw_kernel,
    differentiable=False,
)


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None,
               fixed_length=None):
    """Reinterprets each string's bytes as a vector of ``out_type`` (one more dimension).
    With ``fixed_length`` (TF's ``decode_raw`` v2), each string is first cut or zero-padded
    to that many bytes, so strings of different lengths decode (DecodePaddedRaw). (TF 1.15's
    parameter order: ``input_bytes`` first, its old name ``bytes`` fifth.)"""
    if input_bytes is not None:
        if bytes is not None:
            raise ValueError("Cannot specify both 'bytes' and 'input_bytes'")
        bytes = input_bytes
    attrs = {"out_type": dtypes.as_dtype(out_type), "little_endian": little_endian}
    if fixed_length is not None:
        return ops.apply_op("DecodePaddedRaw", [bytes, fixed_length], attrs,
                            name=name)._outputs[0]
    return ops.apply_op("DecodeRaw", [bytes], attrs, name=name)._outputs[0]


decode_raw_v1 = decode_raw


# ------------------------------------------------------------------------------------------
# DecodeCSV
# ------------------------------------------------------------------------------------------


def _split_record(rec, delim, use_quote, stop=None):
    """A CSV record's fields, following TF's quoting rules (RFC 4180 with its checks); with
    ``stop``, only the first ``stop`` fields (as TF with select_cols: the fields after the last
    selected one are not read, so not checked)."""
    if rec and not ((use_quote and b'"' in rec) or b"\n" in rec or b"\r" in rec):
        return rec.split(bytes((delim,)))  # nothing quoted, nothing to skip or reject
    fields = []
    i, n = 0, len(rec)
    quote = ord('"')
    while i < n:
        if stop is not None and len(fields) == stop:
            return fields
        if rec[i] in (10, 13):  # stray CR / LF before a field are skipped, as TF does
            i += 1
            continue
        field = bytearray()
        if use_quote and rec[i] == quote:
            i += 1
            while i < n - 1 and (rec[i] != quote or rec[i + 1] != delim):
                if rec[i] != quote:
                    field.append(rec[i])
                    i += 1
                else:
                    if rec[i + 1] != quote:
                        raise _invalid("Quote inside a string has to be escaped by another quote")
                    field.append(quote)
                    i += 2
            if not (i < n and rec[i] == quote and (i == n - 1 or rec[i + 1] == delim)):
                raise _invalid("Quoted field has to end with quote followed by delim or end")
            i += 2
        else:
            while i < n and rec[i] != delim:
                c = rec[i]
                if (use_quote and c == quote) or c in (10, 13):
                    raise _invalid("Unquoted fields cannot have quotes/CRLFs inside")
                field.append(c)
                i += 1
            i += 1
        fields.append(bytes(field))
    if n and rec[-1] == delim:
        fields.append(b"")
    return fields


@functools.cache
def _int_range(np_dtype):
    info = np.iinfo(np_dtype)
    return int(info.min), int(info.max)


def _parse_number(text, dtype, col, row):
    is_int = dtype.is_integer
    ok = (_INT_RE if is_int else _FLOAT_RE).fullmatch(text) is not None
    if ok and is_int:
        v = int(text)
        lo, hi = _int_range(dtype.as_numpy_dtype)
        ok = lo <= v <= hi
    if not ok:
        raise _invalid(f"Field {col} in record {row} is not a valid {_type_name(dtype)}: "
                       f"{text.decode('utf-8', 'replace')}")
    if is_int:
        return v
    return parse_float32(text) if dtype == dtypes.float32 else parse_float(text)


def _type_name(dtype):
    return dtypes.type_string(dtype)


def _decode_csv_kernel(records, record_defaults, *, OUT_TYPE, field_delim, use_quote_delim,
                       na_value, select_cols):
    recs = np.asarray(records, dtype=object)
    if len(field_delim.encode()) != 1:
        raise _invalid("field_delim should be only 1 char")
    delim = field_delim.encode()[0]
    na = na_value.encode()
    defaults = [np.asarray(d) for d in record_defaults]
    for i, d in enumerate(defaults):
        if d.size > 1:
            raise _invalid(f"There should only be 1 default per field but field {i} has "
                           f"{d.size}")
    if select_cols and len(select_cols) != len(OUT_TYPE):
        raise _invalid("select_cols should match output size")
    outs = [np.empty(recs.shape, dtype=t.as_numpy_dtype) for t in OUT_TYPE]
    flats = [o.reshape(-1) for o in outs]
    for row, rec in enumerate(recs.reshape(-1).tolist()):
        fields = _split_record(rec, delim, use_quote_delim,
                               max(select_cols) + 1 if select_cols else None)
        if select_cols:
            fields = [fields[c] for c in select_cols if c < len(fields)]
        if len(fields) != len(OUT_TYPE):
            raise _invalid(f"Expect {len(OUT_TYPE)} fields but have {len(fields)} in record "
                           f"{row}")
        for col, (text, dtype) in enumerate(zip(fields, OUT_TYPE)):
            if not text or text == na:
                if defaults[col].size != 1:
                    raise _invalid(f"Field {col} is required but missing in record {row}!")
                flats[col][row] = defaults[col].reshape(-1)[0]
            elif dtype == dtypes.string:
                flats[col][row] = text
            else:
                flats[col][row] = _parse_number(text, dtype, col, row)
    return outs


def _decode_csv_shape(op):
    for t in op._inputs[1:]:
        s = t._shape
        if s.ndims is not None and s.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {s.ndims}")
        if s.ndims == 1 and s.dims[0].value is not None and s.dims[0].value > 1:
            raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a "
                             "scalar.")
    return [op._inputs[0]._shape] * (len(op._inputs) - 1)


op_registry.declare(
    "DecodeCSV",
    inputs=["records: string", "record_defaults: OUT_TYPE"],
    outputs=["output: OUT_TYPE"],
    attrs=["OUT_TYPE: list({float, double, int32, int64, string}) >= 1",
           "field_delim: string = ','", "use_quote_delim: bool = true",
           "na_value: string = ''", "select_cols: list(int) = []"],
    shape=_decode_csv_shape,
    kernel=_decode_csv_kernel,
    differentiable=False,
)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Splits each CSV record into columns, one tensor per column shaped like ``records``.

    ``record_defaults`` gives each column's type and default (``[]`` makes it required).
    """
    if not isinstance(record_defaults, (list, tuple)):
        # a NumPy array is one tensor, not a list of per-column defaults (TF's op-def check)
        raise TypeError(f"Expected list for 'record_defaults' argument to 'DecodeCSV' Op, not "
                        f"{record_defaults}.")
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(a >= b for a, b in itertools.pairwise(select_cols)):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    # a new list: programs assign into it (``cols[4] = tf.cond(...)``), which must not
    # rewrite the op's outputs
    return list(ops.apply_op(
        "DecodeCSV", [records, list(record_defaults)],
        {"field_delim": field_delim, "use_quote_delim": use_quote_delim, "na_value": na_value,
         "select_cols": select_cols or []},
        name=name)._outputs)


# ------------------------------------------------------------------------------------------
# SerializeTensor, ParseTensor
# ------------------------------------------------------------------------------------------


def _serialize_tensor_kernel(tensor, *, T):
    from tideflow.framework import tensor_util
    from tideflow.protos import tensor_pb2

    a = np.asarray(tensor)
    if T == dtypes.string or T.base_dtype in tensor_util._QUANTIZED_BASE:
        proto = tensor_util.make_tensor_proto(a)
    else:
        # as TF's kernel (Tensor::AsProtoTensorContent): every fixed-size type, scalars, bool
        # and float16 included, as little-endian tensor_content, never in a typed value field
        proto = tensor_pb2.TensorProto(dtype=T.as_datatype_enum,
                                       tensor_shape=tensor_util._shape_proto(a.shape))
        if a.size:
            proto.tensor_content = tensor_util._le_bytes(a)
    return np.asarray(proto.SerializeToString(), dtype=object)


op_registry.declare(
    "SerializeTensor",
    inputs=["tensor: T"],
    outputs=["serialized: string"],
    attrs=["T: type"],
    shape=lambda op: [scalar()],
    kernel=_serialize_tensor_kernel,
    differentiable=False,
)


def _parse_tensor_kernel(serialized, *, out_type):
    from tideflow.framework import tensor_util
    from tideflow.protos import tensor_pb2

    s = np.asarray(serialized, dtype=object)
    if s.ndim != 0:
        raise _invalid(f"Expected `serialized` to be a scalar, got shape: {_shape_str(s.shape)}")
    proto = tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(bytes(s[()]))
    except Exception:  # noqa: BLE001 - any decode failure means a bad proto
        raise _invalid("Could not parse `serialized` as TensorProto: "
                       f"'{bytes(s[()]).decode('utf-8', 'replace')}'") from None
    parsed = dtypes.as_dtype(proto.dtype)
    if parsed != out_type:
        from tideflow.framework.importer import _type_string

        raise _invalid(f"Type mismatch between parsed tensor ({_type_string(parsed)}) and "
                       f"dtype ({_type_string(out_type)})")
    return np.array(tensor_util.make_ndarray(proto), copy=True)


op_registry.declare(
    "ParseTensor",
    inputs=["serialized: string"],
    outputs=["output: out_type"],
    attrs=["out_type: type"],
    shape=lambda op: [unknown_shape()],
    kernel=_parse_tensor_kernel,
    differentiable=False,
)


def serialize_tensor(tensor, name=None):
    """A scalar string: ``tensor`` as a serialized TensorProto."""
    return ops.apply_op("SerializeTensor", [tensor], name=name)._outputs[0]


def parse_tensor(serialized, out_type, name=None):
    """The tensor of type ``out_type`` in a serialized TensorProto."""
    return ops.apply_op("ParseTensor", [serialized], {"out_type": dtypes.as_dtype(out_type)},
                        name=name)._outputs[0]
