"""``tensorflow.tools.graph_transforms``: ``TransformGraph`` rewrites a (frozen) GraphDef by a
list of named transforms, as TF 1.x's Graph Transform Tool does from Python.

Transforms: ``fold_constants`` (``ignore_errors``, ``clear_output_shapes``), ``fold_batch_norms``
(a Mul by a Const after Conv2D / DepthwiseConv2dNative / MatMul goes into the weights),
``fold_old_batch_norms`` (inference batch norms after a convolution become scaled weights and a
BiasAdd), ``remove_attribute`` (``attribute_name``, ``op_name``), ``remove_device``,
``remove_control_dependencies``, ``remove_nodes`` (``op``, repeatable: single-input pass-through
nodes are spliced out), ``strip_unused_nodes`` and ``sort_by_execution_order``.
"""

import numpy as np

from tideflow.framework import dtypes, errors, importer, ops, tensor_util
from tideflow.protos import graph_pb2, node_def_pb2

# TF's limit on one folded value (ConstantFoldingOptions' default)
_MAX_FOLDED_BYTES = 10 * 1024 * 1024
_CONTROL_FLOW = {"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
                 "RefExit", "NextIteration", "RefNextIteration", "LoopCond", "ControlTrigger"}
_NOT_FOLDED = _CONTROL_FLOW | {"Placeholder", "PlaceholderV2", "NoOp", "_Send", "_Recv"}


def TransformGraph(input_graph_def, inputs, outputs, transforms):
    """The GraphDef ``input_graph_def`` rewritten by ``transforms`` (strings such as
    ``"fold_constants(ignore_errors=true)"``), in order. ``inputs`` and ``outputs`` name the
    graph's feeds and fetches (``"x"`` or ``"x:0"``); transforms keep those nodes.
    InvalidArgumentError for a transform it does not know or a malformed parameter list."""
    steps = []
    for text in transforms:
        steps.extend(_parse_transforms(text))
    context = _Context([_node_name(n) for n in inputs], [_node_name(n) for n in outputs])
    graph_def = graph_pb2.GraphDef()
    graph_def.CopyFrom(input_graph_def)
    for name, params in steps:
        fn = _TRANSFORMS.get(name)
        if fn is None:
            raise errors.InvalidArgumentError(None, None, f"Transform '{name}' not recognized.")
        graph_def = fn(graph_def, context, params)
    return graph_def


class _Context:
    def __init__(self, inputs, outputs):
        self.inputs = inputs
        self.outputs = outputs


def _node_name(name):
    return name.lstrip("^").split(":")[0]


def _bad(text, why):
    return errors.InvalidArgumentError(None, None, f"Bad transform '{text}': {why}")


def _parse_transforms(text):
    """``"a b(k=v, k2='x y')"`` -> ``[("a", {}), ("b", {"k": ["v"], "k2": ["x y"]})]``."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] != "(":
            i += 1
        name, params = text[start:i], {}
        if i < n and text[i] == "(":
            close = i + 1
            quote = None
            while close < n and (quote or text[close] != ")"):
                if text[close] in "\"'" and quote in (None, text[close]):
                    quote = None if quote else text[close]
                close += 1
            if close >= n:
                raise _bad(text, f"no ')' closes the parameters of {name}")
            for item in _split_params(text[i + 1:close]):
                key, eq, value = item.partition("=")
                if not eq or not key.strip():
                    raise _bad(text, f"parameter '{item}' of {name} is not key=value")
                value = value.strip()
                if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                    value = value[1:-1]
                params.setdefault(key.strip(), []).append(value)
            i = close + 1
        out.append((name, params))
    return out


def _split_params(body):
    items, cur, quote = [], [], None
    for ch in body:
        if ch in "\"'" and quote in (None, ch):
            quote = None if quote else ch
        if ch == "," and quote is None:
            items.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    items.append("".join(cur))
    return [s.strip() for s in items if s.strip()]


def _bool_param(params, key, default):
    values = params.get(key)
    if not values:
        return default
    text = values[0].lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise errors.InvalidArgumentError(
        None, None, f"Couldn't interpret the {key} argument as a boolean: {values[0]}")


def _new_graph_def(like, nodes):
    out = graph_pb2.GraphDef()
    out.node.extend(nodes)
    out.library.CopyFrom(like.library)
    out.versions.CopyFrom(like.versions)
    return out


def _remove_unused(graph_def, context):
    """Only the nodes the outputs need, walking back no further than the inputs (TF's
    RemoveUnusedNodes)."""
    by_name = {node.name: node for node in graph_def.node}
    stop = set(context.inputs)
    used = set()
    todo = [n for n in context.outputs if n in by_name]
    while todo:
        name = todo.pop()
        if name in used:
            continue
        used.add(name)
        if name in stop:
            continue
        todo.extend(_node_name(i) for i in by_name[name].input if _node_name(i) in by_name)
    used.update(n for n in context.inputs if n in by_name)
    return _new_graph_def(graph_def, [n for n in graph_def.node if n.name in used])


def _strip_attr(graph_def, attr_name, op_name="*"):
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        if op_name in ("*", node.name) and attr_name in node.attr:
            del node.attr[attr_name]
    return out


def _fold_constants(graph_def, context, params):
    """Each tensor computed only from constants (no placeholder, input, stateful, random or
    control-flow op on its way) and read by a node that is not, becomes a Const; then what the
    outputs no longer need goes."""
    ignore_errors = _bool_param(params, "ignore_errors", False)
    if _bool_param(params, "clear_output_shapes", True):
        graph_def = _strip_attr(graph_def, "_output_shapes")
    try:
        folded = _fold(graph_def, context)
    except Exception as e:
        if not ignore_errors:
            raise
        from tideflow import logging

        logging.warning("fold_constants: %s", e)
        folded = graph_def
    return _remove_unused(folded, context)


def _fold(graph_def, context):
    graph = ops.Graph()
    with graph.as_default():
        importer.import_graph_def(graph_def, name="")
    keep = set(context.inputs)
    foldable = set()
    for op in graph.get_operations():
        od = op._op_def
        if (op.name in keep or op.type in _NOT_FOLDED or od.is_stateful
                or getattr(od, "is_random", False)):
            continue
        if all(t.op.name in foldable for t in op.inputs) and all(
                c.name in foldable for c in op.control_inputs):
            foldable.add(op.name)
    # frontier: a folded tensor read (as data) by a node that is not folded
    wanted = {}
    for node in graph_def.node:
        if node.name in foldable:
            continue
        for name in node.input:
            if name.startswith("^"):
                continue
            src, _, idx = name.partition(":")
            if src in foldable and graph.get_operation_by_name(src).type != "Const":
                wanted.setdefault(f"{src}:{idx or 0}", None)
    if not wanted:
        return graph_def
    from tideflow.runtime.session import Session

    names = list(wanted)
    with Session(graph=graph) as sess:
        values = sess.run(names)
    taken = {node.name for node in graph_def.node}
    new_nodes = {}  # producer name -> [Const NodeDef]
    renamed = {}
    for name, value in zip(names, values):
        tensor = graph.get_tensor_by_name(name)
        if np.asarray(value).nbytes > _MAX_FOLDED_BYTES:
            continue
        src = tensor.op.name
        k = 0
        while f"{src}/_{k}__cf__{k}" in taken:
            k += 1
        const_name = f"{src}/_{k}__cf__{k}"
        taken.add(const_name)
        dtype = tensor.dtype.base_dtype
        const = node_def_pb2.NodeDef(name=const_name, op="Const", device=tensor.op.device)
        const.attr["dtype"].type = dtype.as_datatype_enum
        const.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(
            np.asarray(value, dtype=dtype.as_numpy_dtype) if dtype != dtypes.string else value,
            dtype, np.shape(value)))
        new_nodes.setdefault(src, []).append(const)
        renamed[name] = const_name
    out = []
    for node in graph_def.node:
        copy = node_def_pb2.NodeDef()
        copy.CopyFrom(node)
        if node.name not in foldable:
            for i, name in enumerate(copy.input):
                if not name.startswith("^"):
                    src, _, idx = name.partition(":")
                    key = f"{src}:{idx or 0}"
                    if key in renamed:
                        copy.input[i] = renamed[key]
        out.append(copy)
        out.extend(new_nodes.get(node.name, ()))
    return _new_graph_def(graph_def, out)


def _fold_batch_norms(graph_def, context, params):
    """Mul(Conv2D|DepthwiseConv2dNative|MatMul(x, Const w), Const m) -> the op on w scaled by m
    along its output channels, under the Mul's name."""
    by_name = {node.name: node for node in graph_def.node}
    readers = {}
    for node in graph_def.node:
        for name in node.input:
            readers[_node_name(name)] = readers.get(_node_name(name), 0) + 1
    for name in context.outputs:
        readers[name] = readers.get(name, 0) + 1
    replace, drop = {}, set()
    for node in graph_def.node:
        if node.op != "Mul" or len(node.input) != 2:
            continue
        conv = by_name.get(_node_name(node.input[0]))
        mul_const = by_name.get(_node_name(node.input[1]))
        if (conv is None or mul_const is None or mul_const.op != "Const"
                or conv.op not in ("Conv2D", "DepthwiseConv2dNative", "MatMul")
                or readers.get(conv.name) != 1 or conv.name in drop):
            continue
        if conv.op == "MatMul" and conv.attr["transpose_b"].b:
            continue
        weights_node = by_name.get(_node_name(conv.input[1]))
        if (weights_node is None or weights_node.op != "Const"
                or readers.get(weights_node.name) != 1):
            continue
        weights = tensor_util.make_ndarray(weights_node.attr["value"].tensor)
        scale = tensor_util.make_ndarray(mul_const.attr["value"].tensor).reshape(-1)
        cols = (weights.shape[-2] * weights.shape[-1] if conv.op == "DepthwiseConv2dNative"
                else weights.shape[-1])
        if scale.size not in (1, cols):
            continue
        scaled = (weights.reshape(-1, cols) * scale).reshape(weights.shape)
        new_weights = node_def_pb2.NodeDef()
        new_weights.CopyFrom(weights_node)
        new_weights.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(
            scaled.astype(weights.dtype), dtypes.as_dtype(weights.dtype), weights.shape))
        new_conv = node_def_pb2.NodeDef()
        new_conv.CopyFrom(conv)
        new_conv.name = node.name
        replace[weights_node.name] = new_weights
        replace[node.name] = new_conv
        drop.add(conv.name)
    return _new_graph_def(graph_def, [replace.get(n.name, n) for n in graph_def.node
                                      if n.name not in drop])


def _fold_old_batch_norms(graph_def, context, params):
    from tideflow.python.tools import optimize_for_inference_lib

    return optimize_for_inference_lib.fold_batch_norms(graph_def, _warn=False)


def _remove_attribute(graph_def, context, params):
    names = params.get("attribute_name")
    if not names:
        raise errors.InvalidArgumentError(
            None, None, "remove_attribute expects exactly one 'attribute_name' argument")
    return _strip_attr(graph_def, names[0], params.get("op_name", ["*"])[0])


def _remove_device(graph_def, context, params):
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        node.device = ""
    return out


def _remove_control_dependencies(graph_def, context, params):
    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    for node in out.node:
        data = [i for i in node.input if not i.startswith("^")]
        del node.input[:]
        node.input.extend(data)
    return out


def _remove_nodes(graph_def, context, params):
    """Splices out nodes of the named op types that have one data input (their readers read
    that input instead); inputs and outputs stay."""
    types = set(params.get("op", ()))
    keep = set(context.inputs) | set(context.outputs)
    gone = {}
    for node in graph_def.node:
        data = [i for i in node.input if not i.startswith("^")]
        if node.op in types and node.name not in keep and len(data) == 1:
            gone[node.name] = (data[0], [i for i in node.input if i.startswith("^")])

    def source(name):
        seen = set()
        while _node_name(name) in gone and _node_name(name) not in seen:
            seen.add(_node_name(name))
            name = ("^" if name.startswith("^") else "") + gone[_node_name(name)][0].lstrip("^")
        return name

    out = []
    for node in graph_def.node:
        if node.name in gone:
            continue
        copy = node_def_pb2.NodeDef()
        copy.CopyFrom(node)
        inputs = []
        for name in node.input:
            if _node_name(name) in gone and name.startswith("^"):
                inputs.append("^" + _node_name(source(name)))
                inputs.extend(gone[_node_name(name)][1])
            else:
                inputs.append(source(name))
        del copy.input[:]
        seen = set()
        copy.input.extend(i for i in inputs if not (i in seen or seen.add(i)))
        out.append(copy)
    return _new_graph_def(graph_def, out)


def _strip_unused_nodes(graph_def, context, params):
    return _remove_unused(graph_def, context)


def _sort_by_execution_order(graph_def, context, params):
    by_name = {node.name: node for node in graph_def.node}
    done, entered, order = set(), set(), []
    for root in graph_def.node:
        stack = [(root.name, False)]
        while stack:
            name, expanded = stack.pop()
            if name in done or name not in by_name:
                continue
            if expanded:
                done.add(name)
                order.append(by_name[name])
                continue
            if name in entered:  # a loop's back edge: order by where the walk met it
                continue
            entered.add(name)
            stack.append((name, True))
            stack.extend((_node_name(i), False) for i in reversed(by_name[name].input)
                         if _node_name(i) not in done)
    return _new_graph_def(graph_def, order)


_TRANSFORMS = {
    "fold_constants": _fold_constants,
    "fold_batch_norms": _fold_batch_norms,
    "fold_old_batch_norms": _fold_old_batch_norms,
    "remove_attribute": _remove_attribute,
    "remove_device": _remove_device,
    "remove_control_dependencies": _remove_control_dependencies,
    "remove_nodes": _remove_nodes,
    "strip_unused_nodes": _strip_unused_nodes,
    "sort_by_execution_order": _sort_by_execution_order,
}
