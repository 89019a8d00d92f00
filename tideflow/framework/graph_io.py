"""GraphDef conversion: Operations to NodeDefs, Graphs to GraphDefs, attrs to and from AttrValue.

Attr values live on Operations as Python values (DType, TensorShape, str, ndarray, lists);
here they are converted by the op's declared attr type, as TF writes them, and back.
"""

import os
import uuid

import numpy as np

from tideflow.framework import dtypes, tensor_util
from tideflow.framework.tensor_shape import TensorShape, as_shape
from tideflow.protos import attr_value_pb2, graph_pb2, node_def_pb2, tensor_pb2, tensor_shape_pb2

# NodeDefs bigger than this are rebuilt on each call instead of cached (a cache entry would
# double the memory of big constants, and copying them costs as much as rebuilding).
_CACHE_MAX_BYTES = 1 << 16
_GRAPH_DEF_MAX_BYTES = 1 << 31


# ------------------------------------------------------------------------------------------
# Python value -> AttrValue
# ------------------------------------------------------------------------------------------


def _as_bytes(value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (np.bytes_, np.str_)):
        return _as_bytes(value.item())
    raise TypeError(f"Expected a string attr value, got {value!r}")


def _shape_proto(value):
    if isinstance(value, tensor_shape_pb2.TensorShapeProto):
        return value
    return as_shape(value).as_proto()


def _func_proto(value):
    if isinstance(value, attr_value_pb2.NameAttrList):
        return value
    if isinstance(value, (str, bytes)):
        return attr_value_pb2.NameAttrList(
            name=value.decode() if isinstance(value, bytes) else value
        )
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return attr_value_pb2.NameAttrList(name=name)
    raise TypeError(f"Expected a function attr value, got {value!r}")


def _type_enum(value):
    return dtypes.as_dtype(value).as_datatype_enum


def _tensor_attr_proto(value):
    """A tensor attr's TensorProto. A declared op's tensor default (marked
    ``_attr_default_as_values``: ImageSummary's ``bad_color``) is spelled as TF's op
    registrations spell it, one ``int_val`` per element instead of packed ``tensor_content``,
    so NodeDefs and stripped OpDefs carry TF's bytes."""
    proto = tensor_util.make_tensor_proto(value)
    if (getattr(value, "_attr_default_as_values", False) and proto.tensor_content
            and value.dtype.kind in "iu" and value.dtype.itemsize <= 4):
        proto.ClearField("tensor_content")
        proto.int_val.extend(value.ravel().tolist())
    return proto


_SCALAR_SETTERS = {
    "string": lambda av, v: setattr(av, "s", _as_bytes(v)),
    "int": lambda av, v: setattr(av, "i", int(v)),
    "float": lambda av, v: setattr(av, "f", float(v)),
    "bool": lambda av, v: setattr(av, "b", bool(v)),
    "type": lambda av, v: setattr(av, "type", _type_enum(v)),
    "shape": lambda av, v: av.shape.CopyFrom(_shape_proto(v)),
    "tensor": lambda av, v: av.tensor.CopyFrom(_tensor_attr_proto(v)),
    "func": lambda av, v: av.func.CopyFrom(_func_proto(v)),
}

_LIST_FILLERS = {
    "string": lambda lv, vs: lv.s.extend(_as_bytes(v) for v in vs),
    "int": lambda lv, vs: lv.i.extend(int(v) for v in vs),
    "float": lambda lv, vs: lv.f.extend(float(v) for v in vs),
    "bool": lambda lv, vs: lv.b.extend(bool(v) for v in vs),
    "type": lambda lv, vs: lv.type.extend(_type_enum(v) for v in vs),
    "shape": lambda lv, vs: lv.shape.extend(_shape_proto(v) for v in vs),
    "tensor": lambda lv, vs: lv.tensor.extend(tensor_util.make_tensor_proto(v) for v in vs),
    "func": lambda lv, vs: lv.func.extend(_func_proto(v) for v in vs),
}


def _guess_attr_type(value):
    """The attr type string of an undeclared (``_``-prefixed) attr's Python value."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (str, bytes, np.bytes_, np.str_)):
        return "string"
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, (TensorShape, tensor_shape_pb2.TensorShapeProto)):
        return "shape"
    if isinstance(value, (np.ndarray, tensor_pb2.TensorProto)):
        return "tensor"
    if isinstance(value, attr_value_pb2.NameAttrList):
        return "func"
    if isinstance(value, (list, tuple)):
        return f"list({_guess_attr_type(value[0]) if value else 'string'})"
    raise TypeError(f"Cannot convert attr value {value!r} of type {type(value).__name__}")


def attr_value_of(value, attr_type=None):
    """Converts a Python attr value to an ``AttrValue``, by its declared type if given."""
    if isinstance(value, attr_value_pb2.AttrValue):
        return value
    if attr_type is None:
        attr_type = _guess_attr_type(value)
    is_list = attr_type.startswith("list(")
    convert = _LIST_FILLERS.get(attr_type[5:-1]) if is_list else _SCALAR_SETTERS.get(attr_type)
    if convert is None:
        raise ValueError(f"Unknown attr type {attr_type!r}")
    av = attr_value_pb2.AttrValue()
    if is_list:
        av.list.SetInParent()
        convert(av.list, value)
    else:
        convert(av, value)
    return av


def default_attr_value(spec):
    """The ``AttrValue`` of an op attr's declared default (a shape attr's ``None`` is the
    unknown-rank shape), or None when it declares none this can write."""
    if not spec.has_default:
        return None
    if spec.default is None:
        if spec.type != "shape":
            return None
        av = attr_value_pb2.AttrValue()
        av.shape.unknown_rank = True
        return av
    try:
        return attr_value_of(spec.default, spec.type)
    except (TypeError, ValueError):
        return None


# ------------------------------------------------------------------------------------------
# AttrValue -> Python value
# ------------------------------------------------------------------------------------------

_ONEOF_TYPE = {
    "s": "string",
    "i": "int",
    "f": "float",
    "b": "bool",
    "type": "type",
    "shape": "shape",
    "tensor": "tensor",
    "func": "func",
    "list": "list",
    "placeholder": "placeholder",
}
_LIST_FIELDS = (
    ("s", "string"),
    ("i", "int"),
    ("f", "float"),
    ("b", "bool"),
    ("type", "type"),
    ("shape", "shape"),
    ("tensor", "tensor"),
    ("func", "func"),
)
_LIST_FIELD_OF = {t: f for f, t in _LIST_FIELDS}


def _decode(s):
    try:
        return s.decode("utf-8")
    except UnicodeDecodeError:
        return s  # binary string attrs stay bytes and are written back unchanged


def tensor_value(proto):
    """The read-only ndarray an op attr holds for a TensorProto (a Const's value)."""
    arr = tensor_util.make_ndarray(proto)
    if arr.size > 1 and not proto.tensor_content and _value_count(proto) == 1:
        # one value filling the shape stays one value (a view), so the graph writes it back
        # as it came (TF keeps the imported proto)
        return np.broadcast_to(arr[(slice(0, 1),) * arr.ndim].reshape(()), arr.shape)
    arr.flags.writeable = False
    return arr


def _value_count(proto):
    """How many values a TensorProto without ``tensor_content`` lists (complex ones in pairs)."""
    for field, values in proto.ListFields():
        if field.name.endswith("_val"):
            return len(values) // (2 if "complex" in field.name else 1)
    return 0


def _func_value(proto):
    out = attr_value_pb2.NameAttrList()
    out.CopyFrom(proto)
    return out


_SCALAR_GETTERS = {
    "string": lambda av: _decode(av.s),
    "int": lambda av: int(av.i),
    "float": lambda av: float(av.f),
    "bool": lambda av: bool(av.b),
    "type": lambda av: dtypes.as_dtype(av.type),
    "shape": lambda av: TensorShape(av.shape),
    "tensor": lambda av: tensor_value(av.tensor),
    "func": lambda av: _func_value(av.func),
}

_ITEM_GETTERS = {
    "string": _decode,
    "int": int,
    "float": float,
    "bool": bool,
    "type": dtypes.as_dtype,
    "shape": TensorShape,
    "tensor": tensor_value,
    "func": _func_value,
}


def attr_value_kind(av):
    """TF's name for the kind of value an AttrValue holds ("int", "list(type)", ...)."""
    which = av.WhichOneof("value")
    if which is None:
        return None
    if which != "list":
        return _ONEOF_TYPE[which]
    for field, typ in _LIST_FIELDS:
        if len(getattr(av.list, field)):
            return f"list({typ})"
    return "list"


def attr_value_to_python(av, attr_type=None):
    """Converts an ``AttrValue`` to the Python value Operations hold.

    With ``attr_type`` (a declared type such as ``"list(int)"``) the value must be of that kind
    (an empty list matches any list type); raises ValueError otherwise.
    """
    kind = attr_value_kind(av)
    if attr_type is None:
        attr_type = kind
        if kind is None or kind == "placeholder":
            raise ValueError(f"AttrValue has no value to convert: {av}")
        if kind == "list":
            return []
    if attr_type.startswith("list("):
        if kind != "list" and kind != attr_type:
            raise ValueError(f"AttrValue had value with type '{kind}' when '{attr_type}' expected")
        item = attr_type[5:-1]
        return [_ITEM_GETTERS[item](v) for v in getattr(av.list, _LIST_FIELD_OF[item])]
    if kind != attr_type:
        raise ValueError(f"AttrValue had value with type '{kind}' when '{attr_type}' expected")
    return _SCALAR_GETTERS[attr_type](av)


# ------------------------------------------------------------------------------------------
# Operation -> NodeDef, Graph -> GraphDef
# ------------------------------------------------------------------------------------------


def _build_node_def(op):
    nd = node_def_pb2.NodeDef(name=op._name, op=op._type, device=op._device)
    nd.input.extend(t._as_node_def_input() for t in op._inputs)
    nd.input.extend("^" + c._name for c in op._control_inputs)
    specs = op._op_def.attrs
    newer = op._op_def.newer_attrs
    for name, value in op._attrs.items():
        spec = specs.get(name)
        if name in newer and spec is not None and spec.has_default and value == spec.default:
            continue
        if name == "_class":
            attr_type = "list(string)"
        else:
            attr_type = spec.type if spec is not None else None
        try:
            nd.attr[name].CopyFrom(attr_value_of(value, attr_type))
        except (TypeError, ValueError, KeyError) as e:
            raise ValueError(
                f"Cannot convert attr '{name}' of op '{op._name}' ({op._type}) to an AttrValue: {e}"
            ) from None
    return nd


def _attrs_snapshot(attrs):
    return tuple((k, v, tuple(v) if isinstance(v, list) else None) for k, v in attrs.items())


def _snapshot_matches(snapshot, attrs):
    if len(snapshot) != len(attrs):
        return False
    for k, v, items in snapshot:
        cur = attrs.get(k, snapshot)
        if cur is not v or (items is not None and tuple(cur) != items):
            return False
    return True


def _cached_node_def(op):
    """The NodeDef of ``op``, shared: callers must copy it before handing it out."""
    graph = op._graph
    cache = graph.__dict__.get("_node_def_cache")
    if cache is None:
        cache = graph.__dict__.setdefault("_node_def_cache", {})
    entry = cache.get(op._id) if op._id is not None else None
    version = graph._structure_version
    if entry is not None:
        ver, device, snapshot, nd = entry
        if ver == version and device == op._device and _snapshot_matches(snapshot, op._attrs):
            return nd
    nd = _build_node_def(op)
    if op._id is not None and nd.ByteSize() <= _CACHE_MAX_BYTES:
        cache[op._id] = (version, op._device, _attrs_snapshot(op._attrs), nd)
    return nd


def node_def_of(op):
    """The ``NodeDef`` of ``op`` (a fresh message the caller may modify)."""
    nd = node_def_pb2.NodeDef()
    nd.CopyFrom(_cached_node_def(op))
    return nd


def graph_to_graph_def(graph, from_version=None, add_shapes=False, sort_control_inputs=True):
    """The ``GraphDef`` of ``graph`` (``Graph.as_graph_def``).

    from_version: only ops added after the graph's ``version`` had this value.
    add_shapes: write each node's static output shapes in its ``_output_shapes`` attr.
    sort_control_inputs: False keeps each node's control inputs in the order they were added
    (``op.node_def``'s, what TF's Python meta graph exporter copies).
    """
    gd = graph_pb2.GraphDef()
    producer, min_consumer = graph._graph_def_versions[:2]
    gd.versions.producer = producer
    if min_consumer:
        gd.versions.min_consumer = min_consumer
    with graph._lock:
        ops = list(graph._ops) if from_version is None else graph._ops[from_version:]
    for op in ops:
        nd = gd.node.add()
        nd.CopyFrom(_cached_node_def(op))
        if sort_control_inputs and len(op._control_inputs) > 1:
            # as TF's GraphDef writer: control inputs sorted by name (op.node_def keeps the
            # order they were added in)
            n = len(op._inputs)
            control = sorted(nd.input[n:])
            del nd.input[n:]
            nd.input.extend(control)
        if add_shapes and op._outputs:
            nd.attr["_output_shapes"].list.shape.extend(t._shape.as_proto() for t in op._outputs)
    if graph._functions:  # control-flow bodies: the GraphDef's function library
        from tideflow.framework import function_def

        function_def.add_library(graph, gd)
    if gd.ByteSize() >= _GRAPH_DEF_MAX_BYTES:
        raise ValueError("GraphDef cannot be larger than 2GB.")
    return gd


# ------------------------------------------------------------------------------------------
# tf.train.write_graph
# ------------------------------------------------------------------------------------------


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Writes a graph (or GraphDef) to ``logdir/name``, as text or binary; returns the path.

    The directory is created if needed and the file is replaced atomically.
    """
    if hasattr(graph_or_graph_def, "as_graph_def"):
        graph_def = graph_or_graph_def.as_graph_def()
    else:
        graph_def = graph_or_graph_def
    logdir = os.fspath(logdir)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if not hasattr(graph_def, "DESCRIPTOR"):  # TF 1.15 fails in its proto printer
        raise AttributeError(f"'{type(graph_def).__name__}' object has no attribute "
                             "'DESCRIPTOR'")
    if as_text:
        # our messages' str() is TF 1.15's text format (maps sorted by key, float fields at
        # double precision: "float_val: 0.10000000149011612"), as its files hold
        data = str(graph_def).encode("utf-8")
    else:
        data = graph_def.SerializeToString(deterministic=True)
    tmp = f"{path}.tmp{uuid.uuid4().hex}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    return path
