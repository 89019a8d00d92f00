"""``tensorflow.python.tools.strip_unused_lib``: cut a GraphDef down to what the outputs need,
its inputs turned into Placeholders."""

from google.protobuf import text_format

from tideflow.framework import graph_util_impl
from tideflow.protos import graph_pb2, node_def_pb2


def strip_unused(input_graph_def, input_node_names, output_node_names,
                 placeholder_type_enum):
    """The GraphDef of the nodes ``output_node_names`` need, each of ``input_node_names``
    replaced by a Placeholder of dtype ``placeholder_type_enum`` (one DataType enum, or one per
    input) keeping its ``shape`` and ``_output_shapes`` attrs. KeyError names inputs not found."""
    not_found = {name for name in input_node_names}
    inputs_replaced = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        if node.name in input_node_names:
            not_found.remove(node.name)
            placeholder = node_def_pb2.NodeDef()
            placeholder.op = "Placeholder"
            placeholder.name = node.name
            if isinstance(placeholder_type_enum, list):
                dtype = placeholder_type_enum[input_node_names.index(node.name)]
            else:
                dtype = placeholder_type_enum
            placeholder.attr["dtype"].type = dtype
            if "_output_shapes" in node.attr:
                placeholder.attr["_output_shapes"].CopyFrom(node.attr["_output_shapes"])
            if "shape" in node.attr:
                placeholder.attr["shape"].CopyFrom(node.attr["shape"])
            inputs_replaced.node.append(placeholder)
        else:
            inputs_replaced.node.append(node_def_pb2.NodeDef.FromString(
                node.SerializeToString()))
    inputs_replaced.library.CopyFrom(input_graph_def.library)
    inputs_replaced.versions.CopyFrom(input_graph_def.versions)
    if not_found:
        raise KeyError(f"The following input nodes were not found: {not_found}.")
    return graph_util_impl.extract_sub_graph(inputs_replaced, output_node_names)


def strip_unused_from_files(input_graph, input_binary, output_graph, output_binary,
                            input_node_names, output_node_names, placeholder_type_enum):
    """``strip_unused`` from file ``input_graph`` to file ``output_graph`` (text or binary);
    node names are comma-separated strings, as on the tool's command line."""
    from tideflow import gfile

    if not gfile.Exists(input_graph):
        print("Input graph file '" + input_graph + "' does not exist!")
        return -1
    if not output_node_names:
        print("You need to supply the name of a node to --output_node_names.")
        return -1
    input_graph_def = graph_pb2.GraphDef()
    with gfile.GFile(input_graph, "rb" if input_binary else "r") as f:
        data = f.read()
    if input_binary:
        input_graph_def.ParseFromString(data)
    else:
        text_format.Merge(data if isinstance(data, str) else data.decode("utf-8"),
                          input_graph_def)
    output_graph_def = strip_unused(input_graph_def, input_node_names.split(","),
                                    output_node_names.split(","), placeholder_type_enum)
    if output_binary:
        with gfile.GFile(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString())
    else:
        with gfile.GFile(output_graph, "w") as f:
            f.write(text_format.MessageToString(output_graph_def))
    print(f"{len(output_graph_def.node)} ops in the final graph.")
    return 0
