"""GraphDef rewrites for deployment: freezing variables into constants, extracting the subgraph
that computes some nodes, and removing training-only nodes (``tf.graph_util``).
"""

import copy

from tideflow.framework import dtypes, ops, tensor_util
from tideflow.protos import attr_value_pb2, graph_pb2, node_def_pb2

_VARIABLE_OPS = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(n):
    n = n.removeprefix("^")
    return n.split(":")[0]


def _summary(graph_def):
    name_to_inputs, name_to_node, name_to_seq = {}, {}, {}
    for seq, node in enumerate(graph_def.node):
        n = _node_name(node.name)
        name_to_node[n] = node
        name_to_inputs[n] = [_node_name(x) for x in node.input]
        # as TF 1.15, a node's colocation group (`_class` "loc:@x") counts as one of its inputs
        if "_class" in node.attr:
            name_to_inputs[n] += [s.decode()[5:] for s in node.attr["_class"].list.s
                                  if s.startswith(b"loc:@")]
        name_to_seq[n] = seq
    return name_to_inputs, name_to_node, name_to_seq


def extract_sub_graph(graph_def, dest_nodes):
    """The GraphDef of the nodes ``dest_nodes`` need (in their original order)."""
    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    name_to_inputs, name_to_node, name_to_seq = _summary(graph_def)
    for d in dest_nodes:  # node names only, as TF 1.15 ("out:0" is not in the graph)
        if d not in name_to_node:
            raise AssertionError(f"{d} is not in graph")
    keep = set()
    stack = list(dest_nodes)
    while stack:
        n = stack.pop()
        if n in keep:
            continue
        keep.add(n)
        stack.extend(i for i in name_to_inputs.get(n, ()) if i not in keep)
    out = graph_pb2.GraphDef()
    for n in sorted(keep, key=lambda x: name_to_seq[x]):
        out.node.append(copy.deepcopy(name_to_node[n]))
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None, variable_names_blacklist=None):
    """``input_graph_def`` pruned to ``output_node_names`` with every variable it reads replaced
    by a Const holding the variable's value in ``sess`` (a "frozen" graph)."""
    inference = extract_sub_graph(input_graph_def, output_node_names)
    names, fetch = [], []
    for node in inference.node:
        if node.op in _VARIABLE_OPS:
            if variable_names_whitelist is not None and node.name not in variable_names_whitelist:
                continue
            if variable_names_blacklist is not None and node.name in variable_names_blacklist:
                continue
            names.append(node.name)
            fetch.append(node.name + (":0" if node.op != "VarHandleOp"
                                      else "/Read/ReadVariableOp:0"))
    values = dict(zip(names, sess.run(fetch))) if fetch else {}
    from tideflow import logging

    logging.info("Froze %d variables.", len(values))  # (TF logs both counts)
    out = graph_pb2.GraphDef()
    converted = 0
    for node in inference.node:
        new = node_def_pb2.NodeDef()
        if node.name in values:
            new.op = "Const"
            new.name = node.name
            dtype = node.attr["dtype"]
            data = values[node.name]
            new.attr["dtype"].CopyFrom(dtype)
            new.attr["value"].CopyFrom(attr_value_pb2.AttrValue(tensor=tensor_util.make_tensor_proto(
                data, dtype=dtypes.as_dtype(dtype.type), shape=getattr(data, "shape", None))))
            converted += 1
        elif node.op == "ReadVariableOp" and _node_name(node.input[0]) in values:
            # (as TF's: a read of a frozen resource variable passes its Const on)
            new.CopyFrom(node)
            new.op = "Identity"
            new.attr["T"].CopyFrom(node.attr["dtype"])
            del new.attr["dtype"]
        elif node.op == "ResourceGather" and _node_name(node.input[0]) in values:
            # (as TF's: a gather of a frozen resource variable is a GatherV2 of its Const,
            # with a Const axis)
            if node.attr["batch_dims"].i != 0:
                raise ValueError("batch_dims != 0 is not supported by freeze_graph.")
            axis = out.node.add()
            axis.op, axis.name = "Const", node.name + "/axis"
            axis.attr["dtype"].CopyFrom(node.attr["Tindices"])
            axis.attr["value"].CopyFrom(attr_value_pb2.AttrValue(
                tensor=tensor_util.make_tensor_proto(
                    0, dtype=dtypes.as_dtype(node.attr["Tindices"].type), shape=[])))
            new.op, new.name = "GatherV2", node.name
            new.input.extend([node.input[0], node.input[1], axis.name])
            new.attr["Tparams"].CopyFrom(node.attr["dtype"])
            new.attr["Tindices"].CopyFrom(node.attr["Tindices"])
            new.attr["Taxis"].CopyFrom(node.attr["Tindices"])
            if "_class" in node.attr:
                new.attr["_class"].CopyFrom(node.attr["_class"])
        else:
            new.CopyFrom(node)
            # a ref consumer of a now-constant variable reads a plain tensor
            if node.op == "Assign" and _node_name(node.input[0]) in values:
                raise ValueError(
                    f"Node {node.name} assigns to variable {node.input[0]}, which is being "
                    "frozen; leave it out of output_node_names"
                )
        out.node.append(new)
    out.library.CopyFrom(inference.library)  # (no versions, as TF 1.15)
    logging.info("Converted %d variables to const ops.", converted)
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """Removes CheckNumerics nodes and splices out Identity nodes (except protected ones and
    those on control edges).

    A removed CheckNumerics passes its input on to its consumers (TF drops the edge, leaving
    them an input short).
    """
    protected = set(protected_nodes or [])
    removed = {n.name: n.input[0] for n in input_graph.node
               if n.op == "CheckNumerics" and n.name not in protected and n.input}
    after = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            name = full.lstrip("^")
            if name in removed:
                if full.startswith("^"):
                    continue
                while name in removed:
                    full = removed[name]
                    name = full.lstrip("^")
            new.input.append(full)
        after.append(new)
    control_inputs, has_control = set(), set()
    for node in after:
        for i in node.input:
            if i.startswith("^"):
                control_inputs.add(i[1:])
                has_control.add(node.name)
    splice = {n.name: n.input[0] for n in after
              if n.op == "Identity" and n.name not in protected and n.name not in has_control
              and n.name not in control_inputs and n.input}
    out = graph_pb2.GraphDef()
    for node in after:
        if node.name in splice:
            continue
        new = node_def_pb2.NodeDef()
        new.CopyFrom(node)
        del new.input[:]
        for full in node.input:
            name = full.lstrip("^")
            while name in splice:
                full = splice[name]
                name = full.lstrip("^")
            new.input.append(full)
        out.node.append(new)
    return out  # the nodes only: TF 1.15 keeps neither library nor versions


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of tensor ``input_name`` (":0" implied) of ``graph``."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """True for nodes TF keeps on the CPU (string/int32 constants and casts, variables if
    asked)."""
    node_def = node.node_def if isinstance(node, ops.Operation) else node
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS + ("Assign", "AssignAdd",
                                                                "AssignSub"):
        return True
    if node_def.op == "Const":
        dt = node_def.attr["dtype"].type
        return dt in (dtypes.string.as_datatype_enum, dtypes.int32.as_datatype_enum)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == dtypes.int32.as_datatype_enum
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == dtypes.int32.as_datatype_enum
    return False
