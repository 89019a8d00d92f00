"""MetaGraphDef export and import: a GraphDef plus its SaverDef, collections (as CollectionDefs)
and stripped op list, so a model can be restored and trained on in a process without its code.

Collections whose key has a registered proto function (variables, savers, queue runners) are
stored as serialized protos; other collections as node names, strings, int64s or floats.
"""

import importlib
import importlib.util
import numbers
import os
import re

from google.protobuf import text_format

from tideflow.framework import graph_io, importer, op_registry, ops
from tideflow.protos import meta_graph_pb2, op_def_pb2, types_pb2

_PROTO_FUNCTIONS = {}  # collection key -> (proto_type, to_proto, from_proto)

_SAVE_OP_TYPES = frozenset({"SaveV2", "RestoreV2", "MergeV2Checkpoints", "Save", "SaveSlices",
                            "Restore", "RestoreSlice", "ShardedFilename", "ShardedFilespec"})


# ------------------------------------------------------------------------------------------
# proto functions for collections
# ------------------------------------------------------------------------------------------


def register_proto_function(collection_name, proto_type=None, to_proto=None, from_proto=None):
    """Declares how the members of a collection convert to and from a proto."""
    _PROTO_FUNCTIONS[collection_name] = (proto_type, to_proto, from_proto)


def has_proto_function(collection_name):
    return collection_name in _PROTO_FUNCTIONS


_DEFAULT_PROTOS_REGISTERED = False


def _ensure_default_protos():
    """TF registers the variable collections' (and savers', queue runners') proto functions
    as its modules load; tideflow does it on the first look-up, so that meta_graph's own
    export / import (without a Saver) turns VariableDefs back into Variables."""
    global _DEFAULT_PROTOS_REGISTERED
    if not _DEFAULT_PROTOS_REGISTERED:
        _DEFAULT_PROTOS_REGISTERED = True
        from tideflow.train import saver

        saver._register_protos()


def get_collection_proto_type(collection_name):
    _ensure_default_protos()
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[0]


def get_to_proto_function(collection_name):
    _ensure_default_protos()
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[1]


def get_from_proto_function(collection_name):
    _ensure_default_protos()
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))[2]


def register_queue_runners():
    """Registers QueueRunnerDef conversion when ``tideflow.train.queue_runner`` exists."""
    key = ops.GraphKeys.QUEUE_RUNNERS
    if key in _PROTO_FUNCTIONS:
        return
    name = "tideflow.train.queue_runner"
    try:
        if importlib.util.find_spec(name) is None:
            return
        module = importlib.import_module(name)
    except ImportError:
        return
    if key in _PROTO_FUNCTIONS:  # the module registered itself
        return
    qr = getattr(module, "QueueRunner", None)
    if qr is None or not hasattr(qr, "to_proto") or not hasattr(qr, "from_proto"):
        return
    from tideflow.protos import queue_runner_pb2

    register_proto_function(
        key, proto_type=queue_runner_pb2.QueueRunnerDef,
        to_proto=lambda q, export_scope=None: q.to_proto(export_scope=export_scope),
        from_proto=lambda p, import_scope=None: qr.from_proto(p, import_scope=import_scope),
    )


# ------------------------------------------------------------------------------------------
# name scopes
# ------------------------------------------------------------------------------------------


def prepend_name_scope(name, import_scope):
    """``import_scope/name`` (also inside ``^name`` and ``loc:@name``)."""
    if not import_scope:
        return name
    import_scope = import_scope.rstrip("/")
    if isinstance(name, bytes):
        name = name.decode()
    if not isinstance(name, str):
        return name
    m = re.match(r"(\^|loc:@)?(.*)", name, re.DOTALL)
    return f"{m.group(1) or ''}{import_scope}/{m.group(2)}"


def strip_name_scope(name, export_scope):
    """``name`` without a leading ``export_scope/`` (also inside ``^`` and ``loc:@``)."""
    if not export_scope:
        return name
    export_scope = export_scope.rstrip("/")
    if isinstance(name, bytes):
        name = name.decode()
    if not isinstance(name, str):
        return name
    return re.sub(r"(\^|loc:@|^)" + re.escape(export_scope) + r"/+(.*)", r"\1\2", name,
                  count=1, flags=re.DOTALL)


# ------------------------------------------------------------------------------------------
# op lists
# ------------------------------------------------------------------------------------------


# The ops whose ref input may be an uninitialized variable (TF's allows_uninitialized_input)
_UNINITIALIZED_INPUT_OPS = frozenset({
    "Assign", "IsVariableInitialized", "RefIdentity", "RefSwitch", "Copy", "CopyHost",
    "DebugGradientIdentity", "DebugGradientRefIdentity", "DebugIdentity", "DebugNanCount",
    "DebugNumericSummary"})


# TF 1.15's commutative and aggregate ops (OpDef flags a graph rewriter may read)
_COMMUTATIVE_OPS = frozenset({
    "AccumulateNV2", "AddN", "AddV2", "ApproximateEqual", "BitwiseAnd", "BitwiseOr",
    "BitwiseXor", "Equal", "LogicalAnd", "LogicalOr", "Mul", "NotEqual", "SquaredDifference"})
_AGGREGATE_OPS = frozenset({"AccumulateNV2", "AddN", "AddV2"})
# TF 1.15's is_stateful where tideflow's executor flag differs (it decides what the plan may
# fold or merge here; an exported op def says what TF 1.15's registry says)
_TF_STATEFUL = frozenset({
    "CSVDataset", "CheckNumerics", "DatasetToSingleElement", "DeepCopy",
    "FixedLengthRecordDatasetV2", "GroupByReducerDataset", "GuaranteeConst", "RandomDataset",
    "RangeDataset", "SetStatsAggregatorDataset", "SparseTensorSliceDataset", "SqlDataset",
    "TFRecordDataset", "TensorDataset", "TensorSliceDataset", "TextLineDataset"})
_TF_NOT_STATEFUL = frozenset({
    "ExtractGlimpse", "FakeParam", "FractionalAvgPool", "FractionalMaxPool", "MatchingFiles",
    "Merge", "ReadFile", "Switch"})


def op_def_proto(op_def):
    """The OpDef proto of a registered op declaration."""
    # TF marks an op that updates a ref input (Assign, ApplyAdam) not stateful: the ref is
    # the state; tideflow's executor treats them as stateful
    stateful = bool(op_def.is_stateful) and not any(a.is_ref for a in op_def.inputs)
    if op_def.name in _TF_STATEFUL or op_def.name in _TF_NOT_STATEFUL:
        stateful = op_def.name in _TF_STATEFUL
    p = op_def_pb2.OpDef(name=op_def.name, is_stateful=stateful,
                         allows_uninitialized_input=op_def.name in _UNINITIALIZED_INPUT_OPS,
                         is_commutative=op_def.name in _COMMUTATIVE_OPS,
                         is_aggregate=op_def.name in _AGGREGATE_OPS)
    newer = op_def.newer_attrs
    for args, field in ((op_def.inputs, p.input_arg), (op_def.outputs, p.output_arg)):
        for a in args:
            arg = field.add(name=a.name, is_ref=a.is_ref)
            if a.fixed_type is not None:
                arg.type = a.fixed_type.as_datatype_enum
            if a.type_attr in newer:
                # typed by an attr TF 1.15's op lacks: TF 1.15's fixed type, the attr's
                # default (ConcatOffset's int32 shapes, RFFT's float32 input)
                arg.type = op_def.attrs[a.type_attr].default.as_datatype_enum
            elif a.type_attr:
                arg.type_attr = a.type_attr
            if a.number_attr:
                arg.number_attr = a.number_attr
            if a.type_list_attr:
                arg.type_list_attr = a.type_list_attr
    for spec in op_def.attrs.values():
        if spec.name in op_def.newer_attrs:  # TF 1.15's op lacks it
            continue
        attr = p.attr.add(name=spec.name, type=spec.type)
        if spec.allowed:  # TF's allowed_values, in the order declared
            if spec.type == "string":
                allowed = list(spec.allowed)
                if spec.name == "padding" and "explicit_paddings" in newer:
                    allowed.remove("EXPLICIT")  # (TF 1.15's op has no explicit paddings)
                attr.allowed_values.list.s.extend(str(v).encode() for v in allowed)
            else:
                attr.allowed_values.list.type.extend(d.as_datatype_enum for d in spec.allowed)
        if spec.minimum is not None:
            attr.has_minimum = True
            attr.minimum = spec.minimum
        if spec.has_default and spec.default is None and spec.type == "shape":
            attr.default_value.shape.unknown_rank = True  # TF's default: any shape
        elif spec.has_default and spec.default is not None:
            try:
                attr.default_value.CopyFrom(graph_io.attr_value_of(spec.default, spec.type))
            except (TypeError, ValueError):
                pass
    return p


def _summarize_attr_value(value):
    """TF's SummarizeAttrValue, for the kinds an op's defaults and allowed values hold."""
    kind = value.WhichOneof("value")
    if kind == "s":
        return '"' + value.s.decode("utf-8", "backslashreplace") + '"'
    if kind == "b":
        return "true" if value.b else "false"
    if kind == "type":
        return types_pb2.DataType.Name(value.type)
    if kind == "shape":
        if value.shape.unknown_rank:
            return "<unknown>"
        return "[" + ",".join("?" if d.size < 0 else str(d.size) for d in value.shape.dim) + "]"
    if kind == "list":
        lst = value.list
        pieces = ['"' + v.decode("utf-8", "backslashreplace") + '"' for v in lst.s]
        pieces += [str(v) for v in lst.i] + [f"{v:g}" for v in lst.f]
        pieces += ["true" if v else "false" for v in lst.b]
        pieces += [types_pb2.DataType.Name(v) for v in lst.type]
        if len(pieces) >= 15:  # TF's kMaxListSummarySize: the first 5, "...", the last 5
            pieces = pieces[:5] + ["..."] + pieces[-5:]
        return "[" + ", ".join(pieces) + "]"
    if kind == "f":
        return f"{value.f:g}"
    return str(getattr(value, kind)) if kind else "<Unknown AttrValue type>"


def summarize_op_def(p):
    """TF's SummarizeOpDef of an OpDef proto: ``Op<name=...; signature=...; attr=...>``, as
    its import and validation errors print it."""
    def args(arg_list):
        out = []
        for a in arg_list:
            t = a.type_attr if a.type == types_pb2.DT_INVALID else types_pb2.DataType.Name(
                a.type)[3:].lower()
            t = (f"{a.number_attr}*" if a.number_attr else "") + t
            out.append(f"{a.name}:" + (f"Ref({t})" if a.is_ref else t))
        return ", ".join(out)

    parts = [f"name={p.name}",
             f"signature={args(p.input_arg)} -> {args(p.output_arg)}"]
    for a in p.attr:
        text = f"attr={a.name}:{a.type}"
        if a.HasField("default_value"):
            text += f",default={_summarize_attr_value(a.default_value)}"
        if a.has_minimum:
            text += f",min={a.minimum}"
        if a.HasField("allowed_values"):
            text += f",allowed={_summarize_attr_value(a.allowed_values)}"
        parts.append(text)
    parts += [f"{flag}=true" for flag in ("is_commutative", "is_aggregate", "is_stateful",
                                          "allows_uninitialized_input") if getattr(p, flag)]
    return "Op<" + "; ".join(parts) + ">"


def ops_used_by_graph_def(graph_def):
    """The op names ``graph_def`` uses: its nodes' ops, where a node calling a library function
    counts as the ops inside that function (followed through nested and recursive calls)."""
    functions = {f.signature.name: f for f in graph_def.library.function}
    used, seen = set(), set()
    pending = [n.op for n in graph_def.node]
    while pending:
        op = pending.pop()
        if op in functions:
            if op not in seen:
                seen.add(op)
                pending.extend(n.op for n in functions[op].node_def)
        else:
            used.add(op)
    return sorted(used)


def stripped_op_list_for_graph(graph_def):
    """An OpList of the (registered) ops ``graph_def`` uses, sorted by name (ops inside the
    library functions it calls included)."""
    used = ops_used_by_graph_def(graph_def)
    out = op_def_pb2.OpList()
    for name in used:
        d = op_registry.lookup(name)
        if d is not None:
            out.op.append(op_def_proto(d))
    return out


def strip_graph_default_valued_attrs(meta_graph_def):
    """Removes, in place, the attrs of ``meta_graph_def``'s nodes (function bodies included)
    that hold their op's default value, and records that it did."""
    _strip_default_attrs(meta_graph_def.graph_def)
    meta_graph_def.meta_info_def.stripped_default_attrs = True


def _strip_default_attrs(graph_def):
    nodes = list(graph_def.node)
    for fd in graph_def.library.function:
        nodes.extend(fd.node_def)
    for node in nodes:
        d = op_registry.lookup(node.op)
        if d is None:
            continue
        for key, spec in d.attrs.items():
            if key in node.attr:
                default = graph_io.default_attr_value(spec)
                if default is not None and node.attr[key] == default:
                    del node.attr[key]


# ------------------------------------------------------------------------------------------
# export
# ------------------------------------------------------------------------------------------


def _kind_of(item):
    if hasattr(item, "Pack") and hasattr(item, "type_url"):  # google.protobuf.Any
        return "any_list"
    if isinstance(item, (str, bytes)):
        return "bytes_list"
    if isinstance(item, bool):
        return "node_list"
    if isinstance(item, int):
        return "int64_list"
    if isinstance(item, float):
        return "float_list"
    return "node_list"


def _include(item, export_scope, exclude):
    if isinstance(item, str):
        name = item
    else:
        name = getattr(item, "name", None)
        if not isinstance(name, str):
            return True
    if exclude and name.split(":")[0] in exclude:
        return False
    return not export_scope or name.startswith((_UNBOUND_INPUT_PREFIX, export_scope))


def _in_body(item):
    """Whether ``item`` is a tensor or op of a cond branch or while body: those file into the
    enclosing graph's collections (as TF 1.x's in-graph control flow), but the body is a
    function here, so the GraphDef holds no node by that name to export (TF's importer would
    fail on it)."""
    return getattr(getattr(item, "graph", None), "outer_graph", None) is not None


def add_collection_def(meta_graph_def, key, graph=None, export_scope=None, exclude_nodes=None,
                       override_contents=None):
    """Adds collection ``key`` of ``graph`` to ``meta_graph_def`` (skipped with a warning when
    its members cannot be serialized)."""
    if not isinstance(key, str) and not isinstance(key, bytes):
        from tideflow import logging

        # internal collections (e.g. the variable store's tuple key) are not serialized
        logging.debug("Only collections with string type keys will be serialized. This key "
                      "has %s", type(key))
        return
    graph = graph or ops.get_default_graph()
    items = override_contents if override_contents is not None else graph.get_collection(key)
    items = [x for x in items if _include(x, export_scope, exclude_nodes) and not _in_body(x)]
    if not items:
        return
    try:
        col_def = meta_graph_def.collection_def[key]
        to_proto = get_to_proto_function(key)
        proto_type = get_collection_proto_type(key)
        if to_proto is not None:
            for x in items:
                proto = to_proto(x, export_scope=export_scope)
                if proto:
                    if proto_type is not None and not isinstance(proto, proto_type):
                        raise TypeError(f"{x} converted to {type(proto)}, not {proto_type}")
                    col_def.bytes_list.value.append(proto.SerializeToString())
            return
        kind = _kind_of(items[0])
        if kind == "node_list":
            for x in items:
                if not export_scope or x.name.startswith(export_scope):
                    col_def.node_list.value.append(strip_name_scope(x.name, export_scope))
        elif kind == "bytes_list":
            from tideflow.compat import as_bytes

            col_def.bytes_list.value.extend(as_bytes(x) for x in items)
        elif kind == "int64_list":
            for x in items:
                if not isinstance(x, numbers.Integral) or isinstance(x, bool):
                    # TF's proto field refuses it, and the collection is skipped
                    raise TypeError(f"{x!r} has type {type(x).__name__}, but expected one of: "
                                    "int")
            col_def.int64_list.value.extend(int(x) for x in items)
        elif kind == "any_list":
            col_def.any_list.value.extend(items)
        else:
            col_def.float_list.value.extend(float(x) for x in items)
    except Exception as e:  # noqa: BLE001 - TF skips what it cannot serialize, with a warning
        from tideflow import logging

        logging.warning("Issue encountered when serializing %s.\nType is unsupported, or the "
                        "types of the items don't match field type in CollectionDef. Note this "
                        "is a warning and probably safe to ignore.\n%s", key, str(e))
        if key in meta_graph_def.collection_def:
            del meta_graph_def.collection_def[key]


def _version():
    # the TF version tideflow follows: TF's importers compare it with "1.9" (LooseVersion in
    # 1.x, packaging.version in 2.x) and fail on anything else; tideflow's own name goes in
    # tensorflow_git_version
    from tideflow.version import VERSION

    return VERSION


def _extraneous_saver_nodes(graph_def, saver_def):
    """Names of the nodes of savers other than ``saver_def``'s (by their name scope)."""
    keep = saver_def.filename_tensor_name.split("/")[0] if saver_def else None
    scopes = set()
    for node in graph_def.node:
        if node.op in _SAVE_OP_TYPES and "/" in node.name:
            top = node.name.split("/")[0]
            if top != keep:
                scopes.add(top)
    return {n.name for n in graph_def.node if n.name.split("/")[0] in scopes}


def create_meta_graph_def(meta_info_def=None, graph_def=None, saver_def=None,
                          collection_list=None, graph=None, export_scope=None,
                          exclude_nodes=None, clear_extraneous_savers=False,
                          strip_default_attrs=False):
    """Builds a MetaGraphDef from its parts and the graph's collections."""
    graph = graph or ops.get_default_graph()
    if collection_list is None:
        collection_list = graph.get_all_collection_keys()
    mgd = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        mgd.meta_info_def.MergeFrom(meta_info_def)
    if graph_def is None:
        graph_def = graph.as_graph_def(add_shapes=True)
    mgd.graph_def.MergeFrom(graph_def)
    if strip_default_attrs:
        _strip_default_attrs(mgd.graph_def)
        mgd.meta_info_def.stripped_default_attrs = True
    mgd.meta_info_def.tensorflow_version = _version()
    from tideflow.version import GIT_VERSION

    mgd.meta_info_def.tensorflow_git_version = GIT_VERSION
    mgd.meta_info_def.stripped_op_list.MergeFrom(stripped_op_list_for_graph(mgd.graph_def))
    if saver_def is not None:
        mgd.saver_def.MergeFrom(saver_def)
    for key in collection_list:
        if clear_extraneous_savers and key == ops.GraphKeys.SAVERS:
            contents = [s for s in graph.get_collection(key)
                        if saver_def is None or getattr(s, "saver_def", None) == saver_def]
            add_collection_def(mgd, key, graph, export_scope, exclude_nodes, contents)
        else:
            add_collection_def(mgd, key, graph, export_scope, exclude_nodes)
    return mgd


_UNBOUND_INPUT_PREFIX = "$unbound_inputs_"


def _scope_graph_def(graph_def, export_scope, exclude, clear_devices, unbound_inputs=None,
                     keep_library=False):
    """The nodes of ``graph_def`` under ``export_scope`` with the scope stripped; an input
    from outside the scope becomes ``$unbound_inputs_<name>`` (appended to ``unbound_inputs``),
    for the importer's ``input_map`` to bind, as TF's."""
    if unbound_inputs is None:
        unbound_inputs = []
    out = type(graph_def)()
    out.versions.CopyFrom(graph_def.versions)
    # as TF 1.15: the library of a GraphDef the caller gave, else only one that has functions
    if keep_library or graph_def.library.ByteSize():
        out.library.CopyFrom(graph_def.library)
    for node in graph_def.node:
        if exclude and node.name in exclude:
            continue
        if export_scope and not node.name.startswith(export_scope + "/"):
            continue
        nd = out.node.add()
        nd.CopyFrom(node)
        if export_scope:
            nd.name = strip_name_scope(nd.name, export_scope)
            inputs = []
            for i in nd.input:
                if i.lstrip("^").startswith(export_scope):
                    inputs.append(strip_name_scope(i, export_scope))
                else:
                    inputs.append(re.sub(r"(\^|^)(.*)", r"\1" + _UNBOUND_INPUT_PREFIX + r"\2", i,
                                         count=1, flags=re.DOTALL))
                    unbound_inputs.append(inputs[-1])
            del nd.input[:]
            nd.input.extend(inputs)
            if "_class" in nd.attr:
                # colocation with nodes outside the scope is dropped
                cls = [strip_name_scope(s.decode(), export_scope).encode()
                       for s in nd.attr["_class"].list.s
                       if s.decode().split("@", 1)[-1].startswith(export_scope)]
                del nd.attr["_class"].list.s[:]
                nd.attr["_class"].list.s.extend(cls)
        if clear_devices:
            nd.device = ""
    return out


def export_scoped_meta_graph(filename=None, graph_def=None, graph=None, export_scope=None,
                             as_text=False, unbound_inputs_col_name="unbound_inputs",
                             clear_devices=False, saver_def=None, clear_extraneous_savers=False,
                             strip_default_attrs=False, meta_info_def=None,
                             collection_list=None, **kwargs):
    """Exports (and writes, given ``filename``) the MetaGraphDef; returns (it, var_list)."""
    del kwargs
    graph = graph or ops.get_default_graph()
    given = graph_def is not None  # (TF copies a given GraphDef's library, even empty)
    if graph_def is None:
        # as TF 1.15: scoping, clearing devices or savers copies every op's own NodeDef, whose
        # control inputs keep the order they were added in (the C++ GraphDef writer sorts them)
        graph_def = graph_io.graph_to_graph_def(
            graph, add_shapes=True,
            sort_control_inputs=not (export_scope or clear_devices or clear_extraneous_savers))
    exclude = _extraneous_saver_nodes(graph_def, saver_def) if clear_extraneous_savers else None
    unbound_inputs = []
    if export_scope or exclude or clear_devices:
        graph_def = _scope_graph_def(graph_def, export_scope, exclude, clear_devices,
                                     unbound_inputs, keep_library=given)
    if unbound_inputs_col_name and (unbound_inputs or graph.get_collection(
            unbound_inputs_col_name)):
        # as TF, the graph's unbound-inputs collection is replaced by this export's (through
        # the collection itself: a Saver exports a finalized graph at every save)
        graph.get_collection_ref(unbound_inputs_col_name)[:] = unbound_inputs
    mgd = create_meta_graph_def(
        meta_info_def=meta_info_def, graph_def=graph_def, saver_def=saver_def,
        collection_list=collection_list, graph=graph, export_scope=export_scope,
        exclude_nodes=exclude, clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs)
    if filename:
        write_meta_graph_file(mgd, filename, as_text=as_text)
    var_list = {}
    for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=export_scope):
        if not export_scope or v.name.startswith(export_scope):
            var_list[strip_name_scope(v.name, export_scope)] = v
    return mgd, var_list


def copy_scoped_meta_graph(from_scope, to_scope, from_graph=None, to_graph=None):
    """Copies the ops and variables under ``from_scope`` of ``from_graph`` to ``to_scope`` of
    ``to_graph`` (default graphs when None); returns {name: Variable} of the copies."""
    from_graph = from_graph or ops.get_default_graph()
    to_graph = to_graph or ops.get_default_graph()
    if from_graph is to_graph and from_scope == to_scope:
        raise ValueError("'from_scope' and 'to_scope' need to be different when performing copy "
                         "in the same graph.")
    mgd, _ = export_scoped_meta_graph(export_scope=from_scope, graph=from_graph)
    return import_scoped_meta_graph(mgd, graph=to_graph, import_scope=to_scope)


def write_meta_graph_file(meta_graph_def, filename, as_text=False):
    """Writes a MetaGraphDef atomically (binary, or text with ``as_text``)."""
    d = os.path.dirname(os.fspath(filename))
    if d:
        os.makedirs(d, exist_ok=True)
    graph_io.write_graph(meta_graph_def, d or ".", os.path.basename(os.fspath(filename)),
                         as_text=as_text)


def read_meta_graph_file(filename):
    """Reads a MetaGraphDef written in binary or text format."""
    if isinstance(filename, bytes):
        filename = filename.decode()
    filename = os.fspath(filename)
    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as f:
        data = f.read()
    mgd = meta_graph_pb2.MetaGraphDef()
    try:
        mgd.ParseFromString(data)
    except Exception:  # noqa: BLE001 - not binary: fall back to the text format
        mgd.Clear()
    else:
        return mgd
    try:
        text_format.Merge(data.decode("utf-8"), mgd)
    except (text_format.ParseError, UnicodeDecodeError) as e:
        raise OSError(f"Cannot parse file {filename}: {e}.") from None
    return mgd


# ------------------------------------------------------------------------------------------
# import
# ------------------------------------------------------------------------------------------


def import_scoped_meta_graph(meta_graph_or_file, clear_devices=False, graph=None,
                             import_scope=None, input_map=None,
                             unbound_inputs_col_name="unbound_inputs",
                             restore_collections_predicate=lambda key: True,
                             return_elements=None):
    """Imports a MetaGraphDef's graph and collections; returns {name: Variable}."""
    return import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, graph, import_scope, input_map,
        unbound_inputs_col_name, restore_collections_predicate, return_elements)[0]


def import_scoped_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices=False, graph=None, import_scope=None, input_map=None,
        unbound_inputs_col_name="unbound_inputs", restore_collections_predicate=lambda key: True,
        return_elements=None):
    """As import_scoped_meta_graph; returns (var_list, the imported return elements)."""
    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        mgd = meta_graph_or_file
    else:
        mgd = read_meta_graph_file(meta_graph_or_file)
    if unbound_inputs_col_name and unbound_inputs_col_name in mgd.collection_def:
        col = mgd.collection_def[unbound_inputs_col_name]
        kind = col.WhichOneof("kind")
        values = [v.decode() if isinstance(v, bytes) else v for v in getattr(col, kind).value]
        if values and (not input_map or sorted(values) != sorted(input_map)):
            missing = [v for v in values if not input_map or v not in input_map]
            raise ValueError(f"Graph contains unbound inputs: {','.join(missing)}. Must provide "
                             "these inputs through input_map.")
    graph = graph or ops.get_default_graph()
    with graph.as_default():
        producer_op_list = None
        if mgd.meta_info_def.HasField("stripped_op_list"):
            producer_op_list = mgd.meta_info_def.stripped_op_list
        graph_def = mgd.graph_def
        if clear_devices:
            graph_def = type(graph_def)()
            graph_def.CopyFrom(mgd.graph_def)
            for node in graph_def.node:
                node.device = ""
        # without import_scope, an enclosing name_scope is the scope (TF's unique_name(""))
        scope = graph.unique_name(import_scope or "", mark_as_used=False)
        returned = importer.import_graph_def(
            graph_def, name=import_scope or scope, input_map=input_map,
            producer_op_list=producer_op_list, return_elements=return_elements)
        keys = sorted(mgd.collection_def)
        if ops.GraphKeys.TRAINABLE_VARIABLES in keys:  # trainable ones first, as TF
            keys.remove(ops.GraphKeys.TRAINABLE_VARIABLES)
            keys.insert(0, ops.GraphKeys.TRAINABLE_VARIABLES)
        variable_objects = {}
        for key in keys:
            col = mgd.collection_def[key]
            if key == unbound_inputs_col_name or not restore_collections_predicate(key):
                continue
            kind = col.WhichOneof("kind")
            if kind is None:
                from tideflow import logging

                logging.error("Cannot identify data type for collection %s. Skipping.", key)
                continue
            if key in ("cond_context", "while_context"):
                # TF 1.x's CondContextDef/WhileContextDef: their Switch/Merge/Enter/Exit nodes
                # were rewritten to If/While on import, so the contexts describe nothing here
                continue
            from_proto = get_from_proto_function(key)
            if from_proto is not None and kind == "bytes_list":
                proto_type = get_collection_proto_type(key)
                shared = key in ops.GraphKeys._VARIABLE_COLLECTIONS
                for value in col.bytes_list.value:
                    obj = variable_objects.get(value) if shared else None
                    if obj is None:
                        proto = proto_type()
                        proto.ParseFromString(value)
                        obj = from_proto(proto, import_scope=scope)
                        if shared:
                            variable_objects[value] = obj
                    graph.add_to_collection(key, obj)
                continue
            field = getattr(col, kind)
            if kind == "node_list":
                for value in field.value:
                    graph.add_to_collection(
                        key, graph.as_graph_element(prepend_name_scope(value, scope)))
            elif kind == "int64_list":
                for value in field.value:
                    graph.add_to_collection(key, int(value))
            elif kind == "bytes_list":
                for value in field.value:
                    graph.add_to_collection(key, prepend_name_scope(value, scope))
            else:
                for value in field.value:
                    graph.add_to_collection(key, value)
        var_list = {}
        for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=scope or None):
            var_list[strip_name_scope(v.name, scope)] = v
    return var_list, returned
