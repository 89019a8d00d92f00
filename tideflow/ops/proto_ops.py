"""``tf.io.decode_proto`` / ``encode_proto`` (DecodeProtoV2, EncodeProto): fields of serialized
protocol buffers as tensors and back, through the Python protobuf runtime.

``descriptor_source``: ``'local://'`` (the messages registered in this process; TF's own
``tensorflow.*`` names resolve to tideflow's copies), a path to a serialized
``FileDescriptorSet``, or ``'bytes://'`` followed by one. Missing fields read as the field's
default, and ``sizes`` counts the values present (0 for an unset proto3 scalar), as TF."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

_POOLS = {}


def _pool(source):
    from google.protobuf import descriptor_pb2, descriptor_pool

    if source == "local://":
        return descriptor_pool.Default()
    pool = _POOLS.get(source)
    if pool is None:
        if isinstance(source, bytes):  # a binary attr: "bytes://" then the serialized set
            if not source.startswith(b"bytes://"):
                raise errors.InvalidArgumentError(
                    None, None, f"descriptor_source {source[:40]!r}... is not valid UTF-8 and "
                                f"does not start with bytes://")
            data = source[len(b"bytes://"):]
        elif source.startswith("bytes://"):
            data = source[len("bytes://"):].encode("latin-1")
        else:
            try:
                with open(source, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise errors.NotFoundError(None, None, f"descriptor_source {source!r}: {e}")
        fds = descriptor_pb2.FileDescriptorSet.FromString(data)
        pool = descriptor_pool.DescriptorPool()
        for fd in fds.file:
            pool.Add(fd)
        _POOLS[source] = pool
    return pool


def _message_class(message_type, source):
    from google.protobuf import message_factory

    pool = _pool(source)
    names = [message_type]
    if source == "local://" and message_type.startswith("tensorflow."):
        names.append("tideflow." + message_type[len("tensorflow."):])
    for name in names:
        try:
            desc = pool.FindMessageTypeByName(name)
        except KeyError:
            continue
        return message_factory.GetMessageClass(desc)
    raise errors.InvalidArgumentError(
        None, None, f"No descriptor found for message type {message_type}")


def _allowed(field):
    t = field.type
    F = field
    if t in (F.TYPE_STRING, F.TYPE_BYTES, F.TYPE_MESSAGE, F.TYPE_GROUP):
        return (dtypes.string,)
    return {
        F.TYPE_DOUBLE: (dtypes.float64,), F.TYPE_FLOAT: (dtypes.float32, dtypes.float64),
        F.TYPE_INT64: (dtypes.int64,), F.TYPE_SINT64: (dtypes.int64,),
        F.TYPE_SFIXED64: (dtypes.int64,), F.TYPE_UINT64: (dtypes.uint64, dtypes.int64),
        F.TYPE_FIXED64: (dtypes.uint64, dtypes.int64), F.TYPE_INT32: (dtypes.int32, dtypes.int64),
        F.TYPE_SINT32: (dtypes.int32, dtypes.int64), F.TYPE_SFIXED32: (dtypes.int32, dtypes.int64),
        F.TYPE_ENUM: (dtypes.int32, dtypes.int64), F.TYPE_UINT32: (dtypes.uint32, dtypes.int64),
        F.TYPE_FIXED32: (dtypes.uint32, dtypes.int64), F.TYPE_BOOL: (dtypes.bool,),
    }[t]


def _fields(cls, field_names, types):
    desc = cls.DESCRIPTOR
    out = []
    for name, dt in zip(field_names, types):
        field = desc.fields_by_name.get(name)
        if field is None:
            raise errors.InvalidArgumentError(
                None, None, f"Unknown field: {name} in message type {desc.full_name}")
        if dtypes.as_dtype(dt) not in _allowed(field):
            shown = field.full_name.replace("tideflow.", "tensorflow.", 1)  # TF's own names
            raise errors.InvalidArgumentError(
                None, None, f"Unexpected output type for {shown}: "
                            f"{_TYPE_NAMES.get(field.type, field.type)} to "
                            f"DT_{dtypes.as_dtype(dt).name.upper()}")
        out.append(field)
    return out


_TYPE_NAMES = {1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64",
               7: "fixed32", 8: "bool", 9: "string", 10: "group", 11: "message", 12: "bytes",
               13: "uint32", 14: "enum", 15: "sfixed32", 16: "sfixed64", 17: "sint32",
               18: "sint64"}


def _is_repeated(field):
    rep = getattr(field, "is_repeated", None)  # newer protobuf runtimes drop ``label``
    return rep if rep is not None else _is_repeated(field)


def _read(msg, field):
    repeated = _is_repeated(field)
    present = {f.name for f, _ in msg.ListFields()}
    if repeated:
        vals = list(getattr(msg, field.name))
    elif field.name in present:
        vals = [getattr(msg, field.name)]
    else:
        vals = []
    if field.type in (field.TYPE_MESSAGE, field.TYPE_GROUP):
        vals = [v.SerializeToString() for v in vals]
    return vals


def _default(field, dt):
    if dt == dtypes.string:
        if field.type in (field.TYPE_MESSAGE, field.TYPE_GROUP):
            return b""
        v = field.default_value
        return v.encode() if isinstance(v, str) else bytes(v)
    return field.default_value


def _decode_kernel(serialized, *, message_type, field_names, output_types, descriptor_source,
                   message_format, sanitize):
    if message_format not in ("binary", "text"):
        raise errors.InvalidArgumentError(
            None, None, f"message_format must be 'binary' or 'text', got {message_format!r}")
    cls = _message_class(message_type, descriptor_source)
    fields = _fields(cls, field_names, output_types)
    data = np.asarray(serialized, object)
    flat = data.reshape(-1)
    per = []
    from google.protobuf import message, text_format

    for i, raw in enumerate(flat):
        msg = cls()
        try:
            if message_format == "text":
                text_format.Parse(raw.decode() if isinstance(raw, (bytes, np.bytes_)) else raw,
                                  msg)
            else:
                msg.ParseFromString(raw)
        except (message.DecodeError, text_format.ParseError, UnicodeDecodeError):
            raise errors.DataLossError(
                None, None, f"Unable to parse binary protobuf of type {message_type} at "
                            f"index {i}") from None
        per.append([_read(msg, f) for f in fields])
    sizes = np.array([[len(v) for v in row] for row in per], np.int32).reshape(
        data.shape + (len(fields),))
    outs = []
    for k, (field, dt) in enumerate(zip(fields, output_types)):
        dt = dtypes.as_dtype(dt)
        width = max((len(row[k]) for row in per), default=0)
        fill = _default(field, dt)
        np_dt = object if dt == dtypes.string else dt.as_numpy_dtype
        arr = np.empty((len(per), width), np_dt)
        arr[...] = fill
        for i, row in enumerate(per):
            vals = row[k]
            if dt == dtypes.string:
                vals = [v.encode() if isinstance(v, str) else v for v in vals]
            arr[i, :len(vals)] = vals
        outs.append(arr.reshape(data.shape + (width,)))
    return [sizes] + outs


def _decode_shape(op):
    s = op._inputs[0]._shape
    n = len(op._attrs["field_names"])
    if s.ndims is None:
        return [TensorShape(None)] * (n + 1)
    return [s.concatenate([n])] + [s.concatenate([None])] * len(op._attrs["output_types"])


op_registry.declare(
    "DecodeProtoV2",
    inputs=["bytes: string"],
    outputs=["sizes: int32", "values: output_types"],
    attrs=["message_type: string", "field_names: list(string)",
           "output_types: list(type) >= 0", "descriptor_source: string = 'local://'",
           "message_format: string = 'binary'", "sanitize: bool = false"],
    shape=_decode_shape,
    kernel=_decode_kernel,
    differentiable=False,
)


def _encode_kernel(sizes, values, *, field_names, message_type, descriptor_source,
                   Tinput_types):
    cls = _message_class(message_type, descriptor_source)
    fields = _fields(cls, field_names, Tinput_types)
    sizes = np.asarray(sizes)
    if sizes.ndim < 1 or sizes.shape[-1] != len(fields):
        raise errors.InvalidArgumentError(
            None, None, f"sizes should be batch_size + [len(field_names)], got shape "
                        f"{list(sizes.shape)} for {len(fields)} fields")
    batch = sizes.shape[:-1]
    flat_sizes = sizes.reshape(-1, len(fields))
    flat_vals = []
    for field, v in zip(fields, values):
        v = np.asarray(v)
        if v.shape[:-1] != batch:
            raise errors.InvalidArgumentError(
                None, None, f"values for field {field.name} have shape {list(v.shape)}, "
                            f"expected batch shape {list(batch)} + [max count]")
        flat_vals.append(v.reshape(-1, v.shape[-1] if v.ndim else 1))
    out = []
    for i in range(flat_sizes.shape[0]):
        msg = cls()
        for k, field in enumerate(fields):
            n = int(flat_sizes[i, k])
            if n > flat_vals[k].shape[1]:
                raise errors.InvalidArgumentError(
                    None, None, f"Field {field.name} has {n} values but its tensor holds "
                                f"{flat_vals[k].shape[1]}")
            vals = list(flat_vals[k][i, :n])
            if field.type in (field.TYPE_MESSAGE, field.TYPE_GROUP):
                for v in vals:
                    if _is_repeated(field):
                        getattr(msg, field.name).add().ParseFromString(bytes(v))
                    else:
                        getattr(msg, field.name).ParseFromString(bytes(v))
                continue
            if field.type == field.TYPE_STRING:
                vals = [bytes(v).decode("utf-8") for v in vals]
            elif field.type == field.TYPE_BYTES:
                vals = [bytes(v) for v in vals]
            elif field.type == field.TYPE_BOOL:
                vals = [bool(v) for v in vals]
            elif field.type in (field.TYPE_FLOAT, field.TYPE_DOUBLE):
                vals = [float(v) for v in vals]
            else:
                vals = [int(v) for v in vals]
            if _is_repeated(field):
                getattr(msg, field.name).extend(vals)
            elif vals:
                setattr(msg, field.name, vals[-1])
        out.append(msg.SerializeToString(deterministic=True))
    return np.array(out + [None], object)[:-1].reshape(batch)


op_registry.declare(
    "EncodeProto",
    inputs=["sizes: int32", "values: Tinput_types"],
    outputs=["bytes: string"],
    attrs=["field_names: list(string)", "message_type: string",
           "descriptor_source: string = 'local://'", "Tinput_types: list(type) >= 1"],
    shape=lambda op: [op._inputs[0]._shape[:-1] if op._inputs[0]._shape.ndims else
                      TensorShape(None)],
    kernel=_encode_kernel,
    differentiable=False,
)


def decode_proto(bytes, message_type, field_names, output_types, descriptor_source="local://",
                 message_format="binary", sanitize=False, name=None):
    """The ``field_names`` of each serialized ``message_type`` in ``bytes``: returns
    ``(sizes, values)``, ``sizes[..., i]`` the count of field i, ``values[i]`` its values
    padded with the field's default to the batch's largest count."""
    op = ops.apply_op("DecodeProtoV2", [bytes],
                      {"message_type": message_type, "field_names": list(field_names),
                       "output_types": [dtypes.as_dtype(t) for t in output_types],
                       "descriptor_source": descriptor_source,
                       "message_format": message_format, "sanitize": bool(sanitize)},
                      name=name)
    return op._outputs[0], list(op._outputs[1:])


def encode_proto(sizes, values, field_names, message_type, descriptor_source="local://",
                 name=None):
    """Serializes one ``message_type`` per batch entry from the first ``sizes[..., i]``
    values of ``values[i]`` for each field."""
    values = [ops.convert_to_tensor(v) for v in values]
    return ops.apply_op("EncodeProto", [sizes, values],
                        {"field_names": list(field_names), "message_type": message_type,
                         "descriptor_source": descriptor_source}, name=name)._outputs[0]
