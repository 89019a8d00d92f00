"""``tensorflow.python.tools.freeze_graph``: a GraphDef (or MetaGraph, or SavedModel) plus a
checkpoint -> one GraphDef whose variables are Consts holding the checkpoint's values, pruned
to the output nodes (what ``python -m tensorflow.python.tools.freeze_graph`` does)."""

import re

from google.protobuf import text_format

from tideflow import gfile
from tideflow.framework import graph_util_impl, importer, ops
from tideflow.protos import graph_pb2, meta_graph_pb2, saver_pb2


def freeze_graph_with_def_protos(input_graph_def, input_saver_def, input_checkpoint,
                                 output_node_names, restore_op_name, filename_tensor_name,
                                 output_graph, clear_devices, initializer_nodes,
                                 variable_names_whitelist="", variable_names_denylist="",
                                 input_meta_graph_def=None, input_saved_model_dir=None,
                                 saved_model_tags=None, checkpoint_version=saver_pb2.SaverDef.V2,
                                 variable_names_blacklist=""):
    """Freezes the given protos (see the module doc); writes the binary GraphDef to
    ``output_graph`` when given and returns it. ``restore_op_name`` and
    ``filename_tensor_name`` are unused, as in TF: the variables are restored with a Saver."""
    from tideflow.train import checkpoint_management
    from tideflow.train import saver as saver_lib
    from tideflow.train.checkpoint_utils import NewCheckpointReader

    del restore_op_name, filename_tensor_name
    if not input_saved_model_dir and not checkpoint_management.checkpoint_exists(
            input_checkpoint):
        raise ValueError("Input checkpoint '" + str(input_checkpoint) + "' doesn't exist!")
    if not output_node_names:
        raise ValueError("You need to supply the name of a node to --output_node_names.")
    variable_names_denylist = variable_names_denylist or variable_names_blacklist
    if clear_devices:
        if input_meta_graph_def:
            for node in input_meta_graph_def.graph_def.node:
                node.device = ""
        elif input_graph_def:
            for node in input_graph_def.node:
                node.device = ""
    with ops.Graph().as_default() as graph:
        if input_graph_def:
            importer.import_graph_def(input_graph_def, name="")
        from tideflow import Session

        with Session(graph=graph) as sess:
            if input_saver_def:
                saver = saver_lib.Saver(saver_def=input_saver_def,
                                        write_version=checkpoint_version)
                saver.restore(sess, input_checkpoint)
            elif input_meta_graph_def:
                restorer = saver_lib.import_meta_graph(input_meta_graph_def,
                                                       clear_devices=True)
                restorer.restore(sess, input_checkpoint)
                if initializer_nodes:
                    sess.run(initializer_nodes.replace(" ", "").split(","))
            elif input_saved_model_dir:
                from tideflow.ops import saved_model_impl

                saved_model_impl.load(sess, saved_model_tags or [], input_saved_model_dir)
            else:
                reader = NewCheckpointReader(input_checkpoint)
                partitioned = [t.name.split(":")[0] for op in graph.get_operations()
                               for t in op.outputs if re.search(r"/part_\d+/", t.name)]
                has_partition_var = False
                var_list = {}
                for key in reader.get_variable_to_shape_map():
                    try:
                        tensor = graph.get_tensor_by_name(key + ":0")
                    except KeyError:
                        continue
                    if any(key in name for name in partitioned):
                        has_partition_var = True
                    var_list[key] = tensor
                try:
                    saver = saver_lib.Saver(var_list=var_list, write_version=checkpoint_version)
                except (TypeError, ValueError):
                    if has_partition_var:
                        raise ValueError(
                            "Models containing partition variables cannot be converted from "
                            "checkpoint files. Please pass in a SavedModel using the flag "
                            "--input_saved_model_dir.") from None
                    if not var_list:
                        raise ValueError(
                            "No variables were found in this model. It is likely the model "
                            "was frozen previously. You cannot freeze a graph twice.") from None
                    raise
                saver.restore(sess, input_checkpoint)
                if initializer_nodes:
                    sess.run(initializer_nodes.replace(" ", "").split(","))
            whitelist = (variable_names_whitelist.replace(" ", "").split(",")
                         if variable_names_whitelist else None)
            denylist = (variable_names_denylist.replace(" ", "").split(",")
                        if variable_names_denylist else None)
            if input_meta_graph_def:
                source = input_meta_graph_def.graph_def
            elif input_graph_def:
                source = input_graph_def
            else:
                source = graph.as_graph_def()
            output_graph_def = graph_util_impl.convert_variables_to_constants(
                sess, source, output_node_names.replace(" ", "").split(","),
                variable_names_whitelist=whitelist, variable_names_blacklist=denylist)
    if output_graph:
        with gfile.GFile(output_graph, "wb") as f:
            f.write(output_graph_def.SerializeToString(deterministic=True))
    return output_graph_def


def _parse_input_graph_proto(input_graph, input_binary):
    """A GraphDef read from file ``input_graph`` (binary or text); OSError when missing."""
    if not gfile.Exists(input_graph):
        raise OSError("Input graph file '" + input_graph + "' does not exist!")
    return _parse(graph_pb2.GraphDef(), input_graph, input_binary)


def _parse_input_meta_graph_proto(input_graph, input_binary):
    if not gfile.Exists(input_graph):
        raise OSError("Input meta graph file '" + input_graph + "' does not exist!")
    return _parse(meta_graph_pb2.MetaGraphDef(), input_graph, input_binary)


def _parse_input_saver_proto(input_saver, input_binary):
    if not gfile.Exists(input_saver):
        raise OSError("Input saver file '" + input_saver + "' does not exist!")
    return _parse(saver_pb2.SaverDef(), input_saver, input_binary)


def _parse(message, path, binary):
    with gfile.GFile(path, "rb") as f:
        data = f.read()
    if binary:
        message.ParseFromString(data)
    else:
        text_format.Merge(data.decode("utf-8") if isinstance(data, bytes) else data, message)
    return message


def freeze_graph(input_graph, input_saver, input_binary, input_checkpoint, output_node_names,
                 restore_op_name, filename_tensor_name, output_graph, clear_devices,
                 initializer_nodes, variable_names_whitelist="", variable_names_denylist="",
                 input_meta_graph=None, input_saved_model_dir=None, saved_model_tags="serve",
                 checkpoint_version=saver_pb2.SaverDef.V2, variable_names_blacklist=""):
    """``freeze_graph_with_def_protos`` on files: ``input_graph`` a GraphDef (text unless
    ``input_binary``), ``input_saver`` a SaverDef, ``input_meta_graph`` a MetaGraphDef;
    ``output_node_names`` and ``saved_model_tags`` comma-separated."""
    input_graph_def = None
    if input_graph and not input_saved_model_dir:
        input_graph_def = _parse_input_graph_proto(input_graph, input_binary)
    input_meta_graph_def = None
    if input_meta_graph:
        input_meta_graph_def = _parse_input_meta_graph_proto(input_meta_graph, input_binary)
    input_saver_def = None
    if input_saver:
        input_saver_def = _parse_input_saver_proto(input_saver, input_binary)
    return freeze_graph_with_def_protos(
        input_graph_def, input_saver_def, input_checkpoint, output_node_names,
        restore_op_name, filename_tensor_name, output_graph, clear_devices, initializer_nodes,
        variable_names_whitelist, variable_names_denylist or variable_names_blacklist,
        input_meta_graph_def, input_saved_model_dir,
        saved_model_tags.replace(" ", "").split(","), checkpoint_version=checkpoint_version)
