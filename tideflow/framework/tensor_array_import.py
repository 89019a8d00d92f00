"""Imports TF 1.x TensorArray ops (``TensorArrayV3`` and the ops on its handle) as TensorLists.

TF 1.x's TensorArray is a resource with a float "flow" tensor threaded through the ops that
change it (``tf.nn.dynamic_rnn``, ``tf.map_fn``, ``tf.scan`` write one in a while loop);
tideflow's is a TensorList value, as TF 2.x's. Before import each op is rewritten, GraphDef to
GraphDef, so that the flow tensor carries the list itself:

- ``TensorArrayV3(size)`` -> ``TensorListReserve(element_shape, size)`` (its flow output 1 is
  the list, output 0 the handle is read only by the ops below);
- ``TensorArrayWriteV3(h, i, v, flow)`` -> ``TensorListSetItem(flow, i, v)``;
  ``TensorArrayReadV3(h, i, flow)`` -> ``TensorListGetItem(flow, i, shape)``;
  ``TensorArrayScatterV3(h, idx, v, flow)`` -> ``TensorListScatterIntoExistingList(flow, v,
  idx)``; ``TensorArrayGatherV3(h, idx, flow)`` -> ``TensorListGather(flow, idx, shape)``;
  ``TensorArraySizeV3(h, flow)`` -> ``TensorListLength(flow)``; ``TensorArrayCloseV3`` -> NoOp;
- the Enter/Merge/Switch/Exit/NextIteration/Identity nodes that carry a flow carry a variant,
  and those that carried only the handle are dropped.

A ``dynamic_size`` array grows on write (``resize_if_index_out_of_bounds``). A TensorArray
gradient (``TensorArrayGradV3``) is left, to fail at import naming the op.
"""

from tideflow.framework import dtypes
from tideflow.protos import graph_pb2, node_def_pb2

_TA_OPS = frozenset({"TensorArrayV3", "TensorArrayWriteV3", "TensorArrayReadV3",
                     "TensorArrayScatterV3", "TensorArrayGatherV3", "TensorArraySizeV3",
                     "TensorArrayCloseV3"})
_PASS = frozenset({"Enter", "Merge", "Switch", "Exit", "NextIteration", "Identity"})
_VARIANT = dtypes.variant.as_datatype_enum


def _name(inp):
    return inp.lstrip("^").split(":")[0]


def has_tensor_arrays(graph_def):
    return any(nd.op == "TensorArrayV3" for nd in graph_def.node)


def _shape_const(name, shape_proto, device):
    """An int32 Const of a TensorShapeProto as TensorList ops take it (-1: unknown)."""
    nd = node_def_pb2.NodeDef(name=name, op="Const", device=device)
    nd.attr["dtype"].type = dtypes.int32.as_datatype_enum
    t = nd.attr["value"].tensor
    t.dtype = dtypes.int32.as_datatype_enum
    if shape_proto is None or shape_proto.unknown_rank:
        t.int_val.append(-1)
    else:
        t.tensor_shape.dim.add(size=len(shape_proto.dim))
        t.int_val.extend(d.size for d in shape_proto.dim)
    return nd


def rewrite_tensor_arrays(graph_def):
    """A copy of ``graph_def`` with its TensorArrays as TensorLists (see the module doc)."""
    gd = graph_pb2.GraphDef()
    gd.CopyFrom(graph_def)
    nodes = {nd.name: nd for nd in gd.node}
    arrays = {nd.name: nd for nd in gd.node if nd.op == "TensorArrayV3"}
    arrays = {name: _copy(nd) for name, nd in arrays.items()}  # as written, before rewriting

    def array_of(inp):
        """The TensorArrayV3 a handle input comes from (through Enter/Identity/Switch)."""
        nd = nodes.get(_name(inp))
        while nd is not None and nd.op in _PASS and nd.input:
            nd = nodes.get(_name(nd.input[0]))
        return arrays.get(nd.name) if nd is not None else None

    added = []
    handle_nodes = set()  # pass-through nodes that carried only a handle
    flow_sources = set()

    def element_shape(nd, array, suffix):
        shape = array.attr["element_shape"].shape if "element_shape" in array.attr else None
        if nd.op == "TensorArrayGatherV3" and "element_shape" in nd.attr and (
                shape is None or shape.unknown_rank):
            shape = nd.attr["element_shape"].shape
        c = _shape_const(f"{nd.name}/{suffix}", shape, nd.device)
        # inside a loop a Const runs in the loop's frame: tie it to the node's flow input
        c.input.append("^" + _name(nd.input[-1]))
        added.append(c)
        return c.name

    for nd in list(gd.node):
        if nd.op not in _TA_OPS:
            continue
        if nd.op == "TensorArrayV3":
            size = nd.input[0]
            dtype = nd.attr["dtype"].type
            shape_name = element_shape(nd, nd, "element_shape")
            added[-1].ClearField("input")
            nd.op = "TensorListReserve"
            del nd.input[:]
            nd.input.extend([shape_name, size])
            for key in list(nd.attr):
                if not key.startswith("_") or key == "_output_shapes":
                    del nd.attr[key]
            nd.attr["element_dtype"].type = dtype
            nd.attr["shape_type"].type = dtypes.int32.as_datatype_enum
            flow_sources.add(nd.name)
            continue
        array = array_of(nd.input[0])
        if array is None:
            return graph_def  # a handle from somewhere unknown: leave the graph as it was
        handle_nodes |= _handle_chain(nodes, nd.input[0])
        dtype = array.attr["dtype"].type
        data, controls = [i for i in nd.input if not i.startswith("^")], [
            i for i in nd.input if i.startswith("^")]
        if nd.op == "TensorArrayWriteV3":
            new_op, new_inputs = "TensorListSetItem", [data[3], data[1], data[2]]
        elif nd.op == "TensorArrayReadV3":
            new_op, new_inputs = "TensorListGetItem", [data[2], data[1],
                                                       element_shape(nd, array, "element_shape")]
        elif nd.op == "TensorArrayScatterV3":
            new_op, new_inputs = "TensorListScatterIntoExistingList", [data[3], data[2], data[1]]
        elif nd.op == "TensorArrayGatherV3":
            new_op, new_inputs = "TensorListGather", [data[2], data[1],
                                                      element_shape(nd, array, "element_shape")]
        elif nd.op == "TensorArraySizeV3":
            new_op, new_inputs = "TensorListLength", [data[1]]
        else:  # TensorArrayCloseV3
            new_op, new_inputs = "NoOp", []
        nd.op = new_op
        del nd.input[:]
        nd.input.extend(new_inputs + controls)
        for key in list(nd.attr):
            if not key.startswith("_") or key == "_output_shapes":
                del nd.attr[key]
        if new_op not in ("TensorListLength", "NoOp"):
            nd.attr["element_dtype"].type = dtype
        if new_op == "TensorListSetItem" and array.attr["dynamic_size"].b:
            nd.attr["resize_if_index_out_of_bounds"].b = True  # a dynamic_size array grows
        if new_op in ("TensorListSetItem", "TensorListScatterIntoExistingList"):
            flow_sources.add(nd.name)
    # the flow's old ":1" output of TensorArrayV3 is the list's ":0"
    for nd in gd.node:
        fixed = [(f"^{_name(i)}" if i.startswith("^") else f"{_name(i)}:0")
                 if _name(i) in arrays and (i.endswith(":1") or i.startswith("^")) else i
                 for i in nd.input]
        del nd.input[:]
        nd.input.extend(fixed)
    # retype what carries a flow (loop variables and their Enter/Merge/Switch/Exit/...)
    consumers = {}
    for nd in gd.node:
        for i in nd.input:
            if not i.startswith("^"):
                consumers.setdefault(_name(i), []).append(nd)
    stack = list(flow_sources)
    seen = set()
    while stack:
        n = stack.pop()
        for c in consumers.get(n, ()):
            if c.op in _PASS and c.name not in seen and c.name not in handle_nodes:
                seen.add(c.name)
                c.attr["T"].type = _VARIANT
                c.attr.pop("_output_shapes", None)
                stack.append(c.name)
    gd.node.extend(added)
    if handle_nodes:
        keep = [nd for nd in gd.node if nd.name not in handle_nodes]
        del gd.node[:]
        gd.node.extend(keep)
    return gd


def _copy(nd):
    out = node_def_pb2.NodeDef()
    out.CopyFrom(nd)
    return out


def _handle_chain(nodes, inp):
    """The pass-through nodes between a TensorArray handle and ``inp``'s reader."""
    out = set()
    nd = nodes.get(_name(inp))
    while nd is not None and nd.op in _PASS:
        out.add(nd.name)
        nd = nodes.get(_name(nd.input[0])) if nd.input else None
    return out


__all__ = ["has_tensor_arrays", "rewrite_tensor_arrays"]
