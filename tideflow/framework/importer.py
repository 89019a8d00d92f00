"""``tf.import_graph_def``: checks a whole GraphDef, then creates its ops in the default graph.

Nothing is created unless the GraphDef is valid (known ops, attrs, inputs, dtypes, no cycle);
if an op's shape function still fails, the ops already created are removed again.
"""

import heapq
import socket

from tideflow.framework import device as device_lib
from tideflow.framework import (
    dtypes,
    errors,
    graph_io,
    op_registry,
    ops,
    tensor_array_import,
    v1_control_flow,
)
from tideflow.framework.tensor_shape import TensorShape, as_shape
from tideflow.protos import attr_value_pb2, graph_pb2

# The GraphDef version this binary produces and consumes (as Graph._graph_def_versions).
_GRAPH_DEF_VERSION = 134  # TF 1.15's
_GRAPH_DEF_VERSION_MIN_PRODUCER = 0

# A Merge may take its loop's NextIteration output before that op exists: a back edge.
_BACK_EDGE_SOURCES = frozenset({"NextIteration", "RefNextIteration"})
_BACK_EDGE_SINKS = frozenset({"Merge", "RefMerge"})


class OpNotRegisteredError(errors.NotFoundError, ValueError):
    """A GraphDef names an op type that is not registered.

    TF 1.x raised ``ValueError`` for this before its C API importer and ``NotFoundError``
    after; this error is both, so either ``except`` clause catches it.
    """


class _Node:
    """One NodeDef, parsed and checked: attrs as Python values, inputs split and typed."""

    __slots__ = (
        "attrs",
        "coloc",
        "control",
        "data",
        "in_types",
        "index",
        "nd",
        "new_name",
        "op",
        "op_def",
        "out_types",
        "output_shapes",
    )

    def __init__(self, index, nd, op_def):
        self.index = index
        self.nd = nd
        self.op_def = op_def
        self.attrs = {}
        self.data = []  # (source name, output index, input_map key)
        self.control = []  # source names
        self.in_types = []
        self.out_types = []
        self.output_shapes = None
        self.coloc = []  # original names of ops this one is colocated with
        self.new_name = None
        self.op = None


def _parse_tensor_name(name):
    parts = name.split(":")
    if len(parts) == 1:
        return parts[0], 0
    if len(parts) == 2:
        try:
            return parts[0], int(parts[1])
        except ValueError:
            pass
    raise ValueError(f"Cannot convert {name!r} to a tensor name.")


def _as_str(s):
    return s.decode("utf-8") if isinstance(s, bytes) else s


# ------------------------------------------------------------------------------------------
# argument checks
# ------------------------------------------------------------------------------------------


def _process_graph_def(graph_def):
    if isinstance(graph_def, graph_pb2.GraphDef):
        # as TF 1.15, the caller's GraphDef itself gains its nodes' missing default attrs
        for nd in graph_def.node:
            op_def = op_registry.lookup(nd.op)
            if op_def is None:
                continue
            newer = op_def.newer_attrs
            for key, spec in op_def.attrs.items():
                if key in newer:  # TF 1.15's op has no such attr to add
                    continue
                if key not in nd.attr or nd.attr[key].WhichOneof("value") is None:
                    default = graph_io.default_attr_value(spec)
                    if default is not None:
                        nd.attr[key].CopyFrom(default)
        return graph_def
    # another GraphDef class (TF's own, or a dynamically created message): go through bytes
    serialize = getattr(graph_def, "SerializeToString", None)
    if serialize is not None and type(graph_def).__name__ == "GraphDef":
        return graph_pb2.GraphDef.FromString(serialize())
    raise TypeError("graph_def must be a GraphDef proto.")


def _process_input_map(input_map):
    if input_map is None:
        return {}
    if not isinstance(input_map, dict) or not all(isinstance(k, (str, bytes)) for k in input_map):
        raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    out = {}
    for k, v in input_map.items():
        k = _as_str(k)
        if k.startswith("^"):
            out[k] = v
        else:
            src, idx = _parse_tensor_name(k)
            out[f"{src}:{idx}"] = v
    return out


def _process_return_elements(return_elements):
    if return_elements is None:
        return None
    return_elements = tuple(return_elements)
    if not all(isinstance(x, (str, bytes)) for x in return_elements):
        raise TypeError("return_elements must be a list of strings.")
    return tuple(_as_str(x) for x in return_elements)


def _tf_version():
    from tideflow import VERSION

    return VERSION


def _check_versions(versions):
    if versions.min_consumer > _GRAPH_DEF_VERSION:
        raise ValueError(
            f"GraphDef min consumer version {versions.min_consumer} above current version "
            f"{_GRAPH_DEF_VERSION} for TensorFlow {_tf_version()}.  Please upgrade TensorFlow."
        )
    if versions.producer < _GRAPH_DEF_VERSION_MIN_PRODUCER:
        raise ValueError(
            f"GraphDef producer version {versions.producer} below min producer "
            f"{_GRAPH_DEF_VERSION_MIN_PRODUCER} supported by TensorFlow {_tf_version()}.  "
            "Please regenerate "
            "your graph."
        )
    if _GRAPH_DEF_VERSION in versions.bad_consumers:
        raise ValueError(
            f"GraphDef disallows consumer version {_GRAPH_DEF_VERSION}.  Please upgrade TensorFlow."
        )


# ------------------------------------------------------------------------------------------
# parsing and validating the nodes (no graph changes)
# ------------------------------------------------------------------------------------------


def _op_summary(op_def, nd, prefix=""):
    from tideflow.framework.meta_graph import op_def_proto, summarize_op_def

    return (f"{summarize_op_def(op_def_proto(op_def))}; "
            f"NodeDef: {{{{node {_prefixed(prefix, nd.name)}}}}}")


def _convert_attrs(node, producer_op_def, prefix=""):
    nd, op_def = node.nd, node.op_def
    attrs = node.attrs
    for key in sorted(nd.attr):
        av = nd.attr[key]
        spec = op_def.attrs.get(key)
        if spec is None:
            if key == "_class":
                attrs[key] = [_as_str(s) for s in av.list.s]
            elif key == "_output_shapes":
                node.output_shapes = [TensorShape(p) for p in av.list.shape]
            elif key.startswith("_"):
                copy = attr_value_pb2.AttrValue()
                copy.CopyFrom(av)
                attrs[key] = copy
            elif not (_is_producer_default(producer_op_def, key, av) or _is_empty_value(av)
                      or (nd.op, key) in _HINT_ATTRS):
                raise ValueError(
                    f"NodeDef mentions attr '{key}' not in {_op_summary(op_def, nd, prefix)}. "
                    "(Check whether your GraphDef-interpreting binary is up to date with your "
                    "GraphDef-generating binary.).")
            continue
        if av.WhichOneof("value") is None:
            continue  # an unset AttrValue takes the declared default, as in TF
        try:
            value = graph_io.attr_value_to_python(av, spec.type)
            if not isinstance(value, bytes):
                value = ops._coerce_attr(op_def, spec, value)
        except (TypeError, ValueError) as e:
            raise ValueError(
                f"Node '{nd.name}': invalid value for attr '{key}' of op '{nd.op}': {e}"
            ) from None
        attrs[key] = value
    for key, spec in op_def.attrs.items():
        if key in attrs:
            continue
        if not spec.has_default:
            # TF names every missing attr, sorted
            missing = sorted(k for k, sp in op_def.attrs.items()
                             if k not in attrs and not sp.has_default)
            raise ValueError(
                f"NodeDef missing attr{'s' if len(missing) > 1 else ''} "
                f"{', '.join(repr(k) for k in missing)} from {_op_summary(op_def, nd, prefix)}")
        d = spec.default
        attrs[key] = (
            list(d) if isinstance(d, list) else (as_shape(d) if spec.type == "shape" else d)
        )


# Attrs newer TF producers add that change nothing computed (MatMul's gradient hints): dropped.
_HINT_ATTRS = frozenset({("MatMul", "grad_a"), ("MatMul", "grad_b")})


def _is_empty_value(av):
    """Whether ``av`` holds its type's empty value (false, 0, "", [], DT_INVALID).

    A newer producer's attr added with such a default (e.g. MaxPool's ``explicit_paddings=[]``,
    GatherV2's ``batch_dims=0`` as TF 2.x writes them) means the op's older behaviour, so it is
    dropped as TF drops attrs holding the producer's default (``RemoveNewDefaultAttrsFromGraphDef``)
    even when the GraphDef comes without the producer's op list (a frozen ``.pb``).
    """
    kind = av.WhichOneof("value")
    if kind == "list":
        return not any(len(getattr(av.list, f)) for f in
                       ("s", "i", "f", "b", "type", "shape", "tensor", "func"))
    if kind in ("s", "i", "f", "b", "type"):
        return not getattr(av, kind)
    return kind is None


def _is_producer_default(producer_op_def, key, av):
    if producer_op_def is None:
        return False
    for attr_def in producer_op_def.attr:
        if attr_def.name == key:
            return attr_def.HasField("default_value") and attr_def.default_value == av
    return False


def _arg_types(args, attrs, inputs):
    """The dtypes of an op's flattened inputs or outputs, as ``ops.apply_op`` computes them."""
    out = []
    for arg in args:
        t = (
            arg.fixed_type
            if arg.fixed_type is not None
            else (attrs[arg.type_attr] if arg.type_attr is not None else None)
        )
        if arg.number_attr is not None:
            n = attrs[arg.number_attr]
            out.extend([t._as_ref if (inputs and arg.is_ref) else t] * n)
        elif arg.type_list_attr is not None:
            out.extend(
                d._as_ref if (inputs and arg.is_ref) else d for d in attrs[arg.type_list_attr]
            )
        else:
            out.append(t._as_ref if arg.is_ref else t)
    return out


def _parse_node(index, nd, producer_ops, prefix=""):
    if not ops._VALID_OP_NAME.match(nd.name):
        raise ValueError(f"Node '{nd.name}': Node name contains invalid characters")
    op_def = op_registry.lookup_or_load(nd.op)
    if op_def is None:
        raise OpNotRegisteredError(
            None,
            None,
            f"Op type not registered '{nd.op}' in binary running on {socket.gethostname()}. "
            "Make sure the Op and Kernel are registered in the binary running in this process. "
            "Note that if you are loading a saved graph which used ops from tf.contrib, "
            "accessing (e.g.) `tf.contrib.resampler` should be done before importing the graph, "
            "as contrib ops are lazily registered when the module is first accessed.",
        )
    node = _Node(index, nd, op_def)
    _convert_attrs(node, producer_ops.get(nd.op), prefix)
    try:
        node.in_types = _arg_types(op_def.inputs, node.attrs, True)
        node.out_types = _arg_types(op_def.outputs, node.attrs, False)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(
            f"Node '{nd.name}': cannot compute the types of op '{nd.op}': {e}"
        ) from None
    for inp in nd.input:
        if inp.startswith("^"):
            node.control.append(inp[1:])
            continue
        if node.control:
            raise ValueError(
                f"Node '{nd.name}': Control dependencies must come after regular dependencies"
            )
        try:
            src, idx = _parse_tensor_name(inp)
        except ValueError:
            raise ValueError(f"Node '{nd.name}': Unknown input node '{inp}'") from None
        node.data.append((src, idx, f"{src}:{idx}"))
    if len(node.data) != len(node.in_types):
        expected = ", ".join(_type_string(t) for t in node.in_types)
        raise ValueError(
            f"NodeDef expected inputs '{expected}' do not match {len(node.data)} inputs "
            f"specified; {_op_summary(op_def, nd, prefix)}"
        )
    if node.output_shapes is not None and len(node.output_shapes) < len(node.out_types):
        raise ValueError(
            f"Node '{nd.name}' has {len(node.out_types)} outputs but the _output_shapes "
            f"attribute specifies shapes for {len(node.output_shapes)} outputs"
        )
    for s in node.attrs.get("_class", ()):
        if s.startswith("loc:@") and s[5:] != nd.name:
            node.coloc.append(s[5:])
    if nd.device:
        try:
            device_lib.canonical_name(nd.device)
        except (TypeError, ValueError) as e:
            raise ValueError(f"Node '{nd.name}': invalid device '{nd.device}': {e}") from None
    return node


def _parse(graph_def, input_map, producer_op_list, validate_colocation=True, prefix=""):
    producer_ops = {}
    if producer_op_list is not None:
        producer_ops = {op.name: op for op in producer_op_list.op}
    _check_input_nodes(graph_def, input_map)
    nodes = {}
    for i, nd in enumerate(graph_def.node):
        if nd.name in nodes:
            raise ValueError(f"Node '{nd.name}' is not unique")
        nodes[nd.name] = _parse_node(i, nd, producer_ops, prefix)

    used_keys = set()
    for node in nodes.values():
        name = node.nd.name
        for i, (src, idx, key) in enumerate(node.data):
            if key in input_map:
                used_keys.add(key)
                continue
            source = nodes.get(src)
            if source is None:
                raise ValueError(f"Node '{name}': Unknown input node '{node.nd.input[i]}'")
            if idx >= len(source.out_types) or idx < 0:
                raise ValueError(
                    f"Node '{name}': Connecting to invalid output {idx} of source node {src} "
                    f"which has {len(source.out_types)} outputs."
                )
            _check_input_dtype(node, i, source.out_types[idx], _prefixed(prefix, key), prefix)
        for src in node.control:
            if "^" + src in input_map:
                used_keys.add("^" + src)
            elif src not in nodes:
                raise ValueError(f"Node '{name}': Unknown input node '^{src}'")
        for other in node.coloc if validate_colocation else ():
            if other not in nodes:
                raise ValueError(f"Node '{name}' expects to be colocated with unknown node "
                                 f"'{other}'")
    missing = [k for k in input_map if k not in used_keys and not _names_output(k, nodes)]
    return nodes, missing


def _check_input_nodes(graph_def, input_map):
    """As TF's importer, before any node's op or attrs are checked: every input names a node
    of the GraphDef or an ``input_map`` key."""
    names = {nd.name for nd in graph_def.node}
    for nd in graph_def.node:
        for inp in nd.input:
            src = inp[1:] if inp[:1] == "^" else inp.partition(":")[0]
            if src not in names and inp not in input_map and (
                    inp[:1] == "^" or f"{src}:{inp.partition(':')[2] or 0}" not in input_map):
                raise ValueError(f"Node '{nd.name}': Unknown input node '{inp}'")


def _names_output(key, nodes):
    """Whether an input_map key names an op (``^x``) or an existing output (``x:i``)."""
    if key.startswith("^"):
        return key[1:] in nodes
    src, _, idx = key.rpartition(":")
    node = nodes.get(src)
    return node is not None and idx.isdigit() and int(idx) < len(node.out_types)


def _prefixed(prefix, name):
    return f"{prefix}/{name}" if prefix else name


def _type_string(dtype):
    """TF's DataTypeString (``float``, ``double``, ``int32``, ``float_ref``)."""
    return dtypes.type_string(dtype)


def _check_input_dtype(node, i, dtype, source_name, prefix=""):
    expected = node.in_types[i]
    if not _compatible(dtype, expected):
        raise ValueError(
            f"Input {i} of node {_prefixed(prefix, node.nd.name)} was passed "
            f"{_type_string(dtype)} from {source_name} incompatible with expected "
            f"{_type_string(expected)}."
        )


def _is_back_edge(node, source):
    return node.op_def.name in _BACK_EDGE_SINKS and source.op_def.name in _BACK_EDGE_SOURCES


def _topological_order(nodes, input_map):
    """The nodes in an order where each comes after its inputs; GraphDef order when it is one."""
    node_list = sorted(nodes.values(), key=lambda n: n.index)
    pending = [0] * len(node_list)
    consumers = [[] for _ in node_list]
    for node in node_list:
        for src, _, key in node.data:
            if key in input_map:
                continue
            source = nodes[src]
            if _is_back_edge(node, source):
                continue
            pending[node.index] += 1
            consumers[source.index].append(node.index)
        for src in node.control:
            if "^" + src in input_map:
                continue
            pending[node.index] += 1
            consumers[nodes[src].index].append(node.index)
    ready = [i for i, n in enumerate(pending) if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(node_list[i])
        for j in consumers[i]:
            pending[j] -= 1
            if pending[j] == 0:
                heapq.heappush(ready, j)
    if len(order) < len(node_list):
        raise ValueError(f"{sum(1 for n in pending if n)} nodes in a cycle")  # TF's words
    return order


def _check_return_elements(return_elements, nodes, input_map):
    for name in return_elements or ():
        if ":" in name:
            src, idx = _parse_tensor_name(name)
            if f"{src}:{idx}" in input_map:
                continue
            node = nodes.get(src)
            if node is None:
                raise ValueError(f"Requested return tensor '{name}' not found in graph def")
            if not 0 <= idx < len(node.out_types):
                raise ValueError(f"Invalid return output {idx} of node '{src}', which has "
                                 f"{len(node.out_types)} output(s)")
        elif name not in nodes:
            raise ValueError(f"Requested return node '{name}' not found in graph def")


# ------------------------------------------------------------------------------------------
# import_graph_def
# ------------------------------------------------------------------------------------------


def import_graph_def(
    graph_def, input_map=None, return_elements=None, name=None, op_dict=None, producer_op_list=None,
    *, _validate_colocation_constraints=True, _uniquify_names=True, _op_values=False,
):
    """Imports the graph in ``graph_def`` into the default graph.

    Args:
      graph_def: a ``GraphDef`` proto.
      input_map: maps input names in ``graph_def`` (``"x:0"``, ``"x"``, ``"^x"`` for a control
        input) to Tensors of the default graph that replace them.
      return_elements: names in ``graph_def`` of ops (``"x"``) and tensors (``"x:0"``) to return.
      name: prefix for the imported names (default ``"import"``; ``""`` keeps the names).
      op_dict: deprecated and ignored.
      producer_op_list: an ``OpList`` of the producer's ops: attrs unknown here that hold the
        producer's default value are dropped.

    Returns:
      The requested Operations and Tensors in order, or None without ``return_elements``.

    Raises:
      TypeError: ``graph_def``, ``input_map`` or ``return_elements`` has the wrong type.
      ValueError: the GraphDef is malformed (unknown inputs, duplicate names, a cycle, bad
        attrs or dtypes), or ``input_map``/``return_elements`` name what is not in it. An
        unregistered op type raises ``OpNotRegisteredError`` (a ValueError and NotFoundError).

    ``_validate_colocation_constraints=False`` (TF's internal option, for a master extending
    its graph) lets a ``loc:@`` name an op of the destination graph outside ``graph_def``;
    ``_uniquify_names=False`` (the master's too) keeps a name that is a name scope of the graph
    (``emb/t`` beside ``emb/t/part_0``), as TF's GraphDef extension does.
    """
    del op_dict
    graph_def = _process_graph_def(graph_def)
    input_map = _process_input_map(input_map)
    return_elements = _process_return_elements(return_elements)
    graph = ops.get_default_graph()
    graph._check_not_finalized()
    _check_versions(graph_def.versions)
    if tensor_array_import.has_tensor_arrays(graph_def):
        # TF 1.x TensorArrays (dynamic_rnn, map_fn in v1 loops) run as TensorLists
        graph_def = tensor_array_import.rewrite_tensor_arrays(graph_def)
    if any(nd.op in v1_control_flow.V1_CONTROL_FLOW_OPS for nd in graph_def.node):
        # TF 1.x Switch/Merge conds and Enter/Exit loops run here as If/While
        graph_def = v1_control_flow.functionalize(graph_def, {
            op.name: op for op in producer_op_list.op} if producer_op_list is not None else {})
    if graph_def.library.function:
        # function bodies first (renamed where the graph already has such a name)
        from tideflow.framework import function_def

        renames = function_def.import_library(graph, graph_def.library)
        if renames:
            graph_def = _renamed_functions(graph_def, renames)
    # as TF, the import's name scope is taken first (errors name the prefixed nodes)
    tensor_values = [v for v in input_map.values() if isinstance(v, ops.Tensor)]
    with ops.name_scope(name, "import", tensor_values) as scope:
        prefix = scope[:-1] if scope else ""
    nodes, missing = _parse(graph_def, input_map, producer_op_list,
                            _validate_colocation_constraints, prefix)
    order = _topological_order(nodes, input_map)
    _check_return_elements(return_elements, nodes, input_map)
    traceback = ops._user_frame()
    if scope:
        with ops.name_scope(scope):
            input_map = _convert_input_map_values(name, input_map, _op_values)
    else:
        input_map = _convert_input_map_values(name, input_map, _op_values)
    mapped = _check_mapped_inputs(graph, nodes, input_map, prefix)

    _assign_names(graph, nodes, prefix, _uniquify_names)
    with graph._lock:
        _create_ops(graph, order, nodes, mapped, traceback)
    producer, min_consumer = graph._graph_def_versions[:2]
    graph._graph_def_versions = (
        min(producer, graph_def.versions.producer),
        max(min_consumer, graph_def.versions.min_consumer),
    )
    if missing:
        # as TF: a mapping no node uses (likely a typo) fails the call after the import, so the
        # imported ops stay in the graph and a retry under the same name gets a fresh scope
        raise ValueError(
            f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]"
        )

    if return_elements is None:
        return None
    out = []
    for el in return_elements:
        if ":" in el:
            src, idx = _parse_tensor_name(el)
            key = f"{src}:{idx}"
            out.append(mapped[key] if key in mapped else nodes[src].op._outputs[idx])
        else:
            out.append(nodes[el].op)
    return out


def _renamed_functions(graph_def, renames):
    """A copy of ``graph_def`` whose func attrs use the renamed library functions."""
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    out.ClearField("library")
    for nd in out.node:
        for av in nd.attr.values():
            if av.WhichOneof("value") == "func" and av.func.name in renames:
                av.func.name = renames[av.func.name]
    return out


def _is_mapped_value(key, value, op_values=False):
    if key.startswith("^") and op_values:
        return isinstance(value, (ops.Tensor, ops.Operation))
    return isinstance(value, ops.Tensor)


def _convert_input_map_values(name, input_map, op_values=False):
    """The values as tensors (TF converts each: an Operation, even for a "^x" key, is TF's
    TypeError); ``op_values`` lets the master map a control input to an op of its graph."""
    if all(_is_mapped_value(k, v, op_values) for k, v in input_map.items()):
        return input_map
    if name == "":
        raise ValueError(
            "tf.import_graph_def() requires a non-empty `name` if `input_map` contains "
            "non-Tensor values. Try calling tf.convert_to_tensor() on `input_map` values before "
            "calling tf.import_graph_def()."
        )
    with ops.name_scope("_inputs"):
        return {
            k: v if _is_mapped_value(k, v, op_values) else ops.convert_to_tensor(v)
            for k, v in input_map.items()
        }


def _check_mapped_inputs(graph, nodes, input_map, prefix=""):
    """Checks each input_map value's graph and dtype; returns key -> Tensor or Operation."""
    for key, value in input_map.items():
        if key.startswith("^"):
            op = value._op if isinstance(value, ops.Tensor) else value
            if not isinstance(op, ops.Operation):
                raise TypeError(f"input_map value for {key!r} must be a Tensor or Operation.")
            if op._graph is not graph:
                raise ValueError(
                    f"input_map value {op.name} for {key!r} is not an element of the default graph."
                )
        elif value._op._graph is not graph:
            # TF 1.15's C importer finds the value by its name in the importing graph
            if value._op.name not in graph._nodes_by_name:
                raise ValueError(f"node '{value._op.name}' in input_map does not exist in graph "
                                 f"(input_map entry: {key}->{value.name})")
            input_map = dict(input_map)
            input_map[key] = graph._nodes_by_name[value._op.name]._outputs[value.value_index]
    for node in nodes.values():
        for i, (_, _, key) in enumerate(node.data):
            value = input_map.get(key)
            if value is not None:
                _check_input_dtype(node, i, value._dtype, value.name, prefix)
    return input_map


def _compatible(actual, expected):
    if expected._is_ref_dtype:
        return actual == expected
    return actual.base_dtype == expected


def _assign_names(graph, nodes, prefix, uniquify=True):
    """Prefixed names, made unique against the ops already in the graph and the name scopes
    their names use (TF's uniquify: ``foo`` is taken while ``foo/Const`` exists); without
    ``uniquify``, only against the ops."""
    existing = set(graph._nodes_by_name)
    for op_name in graph._nodes_by_name if uniquify else ():
        parts = op_name.split("/")
        for k in range(1, len(parts)):
            existing.add("/".join(parts[:k]))
    wanted = {(f"{prefix}/{n}" if prefix else n) for n in nodes}
    taken = set(wanted)
    for orig, node in nodes.items():
        full = f"{prefix}/{orig}" if prefix else orig
        if full in existing:
            i = 1
            while f"{full}_{i}" in existing or f"{full}_{i}" in taken:
                i += 1
            full = f"{full}_{i}"
            taken.add(full)
        node.new_name = full


# ------------------------------------------------------------------------------------------
# op creation
# ------------------------------------------------------------------------------------------


def _create_ops(graph, order, nodes, mapped, traceback):
    created = []
    added_names = []
    version_before = graph._version
    patches = []  # loop back edges: (op, input index, source node, output index)
    try:
        for node in order:
            op = _create_op(graph, node, nodes, mapped, traceback, patches)
            created.append(op)
            key = op._name.lower()
            if key not in graph._names_in_use:
                graph._names_in_use[key] = 1
                added_names.append(key)
        for op, i, source, idx in patches:
            op._update_input(i, source.op._outputs[idx])
        _set_colocated_devices(graph, order, nodes)
    except BaseException:
        _rollback(graph, created, added_names, version_before)
        raise


def _create_op(graph, node, nodes, mapped, traceback, patches):
    nd, op_def = node.nd, node.op_def
    name = node.new_name
    attrs = dict(node.attrs)
    if "_class" in attrs:
        attrs["_class"] = [
            "loc:@" + nodes[s[5:]].new_name if s.startswith("loc:@") and s[5:] in nodes else s
            for s in attrs["_class"]
        ]
    for k, v in graph._attr_scope_map.items():
        attrs.setdefault(k, v)
    # as TF, imported ops pass the op-creation hook too: the graph's kernel label and gradient
    # override for the op's type replace what the GraphDef carried (Lucid imports a frozen
    # model under gradient_override_map({"Relu": ...}) and differentiates it afterwards)
    if graph._kernel_label_map_dict and op_def.name in graph._kernel_label_map_dict:
        attrs["_kernel"] = graph._kernel_label_map_dict[op_def.name]
    if graph._gradient_override_map and op_def.name in graph._gradient_override_map:
        attrs["_gradient_op_type"] = graph._gradient_override_map[op_def.name]
    if (
        graph._container
        and op_def.is_stateful
        and "container" in op_def.attrs
        and not attrs["container"]
    ):
        attrs["container"] = graph._container

    inputs = []
    back = []
    for i, (src, idx, key) in enumerate(node.data):
        if key in mapped:
            inputs.append(mapped[key])
            continue
        source = nodes[src]
        if source.op is None:  # a loop's back edge, connected once its source exists
            back.append(i)
            inputs.append(None)
            continue
        inputs.append(source.op._outputs[idx])
    if back:
        # a loop Merge is created with a stand-in and connected to NextIteration afterwards
        stand_in = next((t for t in inputs if t is not None), None)
        if stand_in is None:
            raise ValueError(f"Node '{nd.name}': all inputs of a loop Merge are back edges")
        for i in back:
            inputs[i] = stand_in
    control = []
    for src in node.control:
        key = "^" + src
        if key in mapped:
            v = mapped[key]
            c = v._op if isinstance(v, ops.Tensor) else v
        else:
            c = nodes[src].op
        if c not in control:
            control.append(c)
    if graph._control_dependencies_stack:  # as TF: every imported op waits on the context's
        control.extend(c for c in graph._control_dependencies_for_inputs(())
                       if c not in control)

    op = ops.Operation(
        graph, name, op_def, inputs, attrs, node.out_types, control, traceback=traceback
    )
    for i in back:
        src, idx, _ = node.data[i]
        patches.append((op, i, nodes[src], idx))
    if graph._colocation_stack:
        groups = set()
        for c in graph._colocation_stack:
            groups.update(_as_str(g) for g in c.colocation_groups())
        attrs["_class"] = sorted(groups)
        op._device = graph._colocation_stack[-1]._device
    elif not node.coloc:
        if nd.device:
            with graph.device(nd.device):
                op._device = graph._apply_device_functions(op)
        else:
            op._device = graph._apply_device_functions(op)
    _infer_shapes(op, node)
    node.op = op
    graph._add_created_op(op)
    return op


def _infer_shapes(op, node):
    ops.infer_shapes(op)
    if node.output_shapes is not None:
        for i, t in enumerate(op._outputs):
            try:
                t._shape = t._shape.merge_with(node.output_shapes[i])
            except ValueError as e:
                raise ValueError(
                    f"Node '{op._name}' has an _output_shapes attribute inconsistent with the "
                    f"GraphDef for output #{i}: {e}"
                ) from None


def _set_colocated_devices(graph, order, nodes):
    """An op colocated with others takes the device of the first of them that has one."""
    if graph._colocation_stack:
        return
    for node in order:
        if not node.coloc:
            continue
        device = ""
        for other in node.coloc:
            if other in nodes:
                d = nodes[other].op._device
            else:  # an op already in the graph (unvalidated colocation)
                existing = graph._nodes_by_name.get(other)
                d = existing._device if existing is not None else ""
            if d:
                device = d
                break
        node.op._device = device


def _rollback(graph, created, added_names, version_before):
    """Removes the ops of a failed import, so the graph is as before."""
    graph._remove_ops(created)
    for key in added_names:
        graph._names_in_use.pop(key, None)
    graph._version = version_before
