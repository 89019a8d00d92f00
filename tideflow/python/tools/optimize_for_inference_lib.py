"""``tensorflow.python.tools.optimize_for_inference_lib``: rewrite a frozen GraphDef for
serving: inputs become Placeholders and what the outputs do not need goes (``strip_unused``),
training-only nodes go (CheckNumerics, spliced Identities), and batch norms in inference mode
after a convolution are folded into its weights plus a BiasAdd."""

import numpy as np

from tideflow import logging
from tideflow.framework import dtypes, graph_util_impl, tensor_util
from tideflow.protos import graph_pb2, node_def_pb2
from tideflow.python.tools import strip_unused_lib

_BATCH_NORMS = ("BatchNormWithGlobalNormalization", "FusedBatchNorm", "FusedBatchNormV2",
                "FusedBatchNormV3")
# input index of (mean, variance, beta, gamma) per op
_BN_INPUTS = {"BatchNormWithGlobalNormalization": (1, 2, 3, 4)}
_FUSED_INPUTS = (3, 4, 2, 1)


def optimize_for_inference(input_graph_def, input_node_names, output_node_names,
                           placeholder_type_enum, toco_compatible=False,
                           placeholder_to_const_names=None):
    """The optimized GraphDef (see the module doc); ValueError when the input or the result
    is not a valid graph (duplicate names, inputs naming missing nodes)."""
    ensure_graph_is_valid(input_graph_def)
    optimized = input_graph_def
    optimized = convert_placeholder_to_const(optimized, placeholder_to_const_names)
    optimized = strip_unused_lib.strip_unused(optimized, input_node_names, output_node_names,
                                              placeholder_type_enum)
    optimized = graph_util_impl.remove_training_nodes(optimized, output_node_names)
    optimized = fuse_decomposed_batch_norm(optimized)
    optimized = fold_batch_norms(optimized)
    if not toco_compatible:
        optimized = fuse_resize_and_conv(optimized, output_node_names)
    ensure_graph_is_valid(optimized)
    return optimized


def ensure_graph_is_valid(graph_def):
    """ValueError on duplicate node names or an input naming a node not in the graph."""
    node_map = {}
    for node in graph_def.node:
        if node.name in node_map:
            raise ValueError("Duplicate node names detected for ", node.name)
        node_map[node.name] = node
    for node in graph_def.node:
        for input_name in node.input:
            if node_name_from_input(input_name) not in node_map:
                raise ValueError("Input for ", node.name, " not found: ", input_name)


def node_name_from_input(node_name):
    """``"^a"``, ``"a:1"`` -> ``"a"``."""
    node_name = node_name.removeprefix("^")
    return node_name.split(":")[0]


def node_from_map(node_map, name):
    stripped = node_name_from_input(name)
    if stripped not in node_map:
        raise ValueError(f"No node named '{name}' found in map.")
    return node_map[stripped]


def values_from_const(node_def):
    """The value of a Const node as a NumPy array (ValueError for any other op)."""
    if node_def.op != "Const":
        raise ValueError("Can not extract constant value from a node that is not Const. Got:\n"
                         f"{node_def}")
    return tensor_util.make_ndarray(node_def.attr["value"].tensor)


def scale_after_normalization(node):
    if node.op == "BatchNormWithGlobalNormalization":
        return node.attr["scale_after_normalization"].b
    return True


def strtobool(val_str):
    if val_str in ("True", "true"):
        return True
    if val_str in ("False", "false"):
        return False
    raise ValueError(f"Invalid value {val_str!r}: expected True/true or False/false")


def parse_entry(entry):
    items = entry.split("=")
    if len(items) > 1:
        return items[0].strip(), items[1]
    return None, None


def parse_nodes_dict(nodes):
    out = {}
    for node in nodes or ():
        key, value = parse_entry(node)
        if key is not None:
            out[key] = value
    return out


def convert_placeholder_to_const(input_graph_def, nodes_to_convert=None):
    """Each (PlaceholderWithDefault or Placeholder) node named in ``nodes_to_convert`` (a dict,
    or ``["name=value", ...]``) becomes a scalar Const of that value in the node's dtype (a bool
    one from ``True``/``False``); without names the graph is returned as is."""
    if not nodes_to_convert:
        return input_graph_def
    if not isinstance(nodes_to_convert, dict):
        nodes_to_convert = parse_nodes_dict(nodes_to_convert)
    out = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        if node.name in nodes_to_convert and node.op in ("PlaceholderWithDefault",
                                                         "Placeholder"):
            dtype = dtypes.as_dtype(node.attr["dtype"].type)
            text = nodes_to_convert[node.name]
            value = strtobool(text) if dtype == dtypes.bool else np.array(
                text, dtype=dtype.as_numpy_dtype)
            const = node_def_pb2.NodeDef(name=node.name, op="Const")
            const.attr["dtype"].type = node.attr["dtype"].type
            const.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(value, dtype))
            out.node.append(const)
        else:
            out.node.append(node_def_pb2.NodeDef.FromString(node.SerializeToString()))
    out.library.CopyFrom(input_graph_def.library)
    out.versions.CopyFrom(input_graph_def.versions)
    return out


def fuse_decomposed_batch_norm(input_graph_def):
    """Returns the graph unchanged: tideflow does not recognise the Rsqrt/Mul/Add pattern of a
    decomposed batch norm, so such a graph keeps its (equivalent) arithmetic."""
    return input_graph_def


def fuse_resize_and_conv(input_graph_def, output_node_names):
    """Returns the graph unchanged: tideflow has no FusedResizeAndPadConv2D kernel, so a
    ResizeBilinear / MirrorPad / Conv2D chain stays as its three (equivalent) ops."""
    return input_graph_def


def fold_batch_norms(input_graph_def, _warn=True):
    """Folds each inference-mode batch norm (``BatchNormWithGlobalNormalization``,
    ``FusedBatchNorm*`` with ``is_training`` false) whose input is a ``Conv2D`` or
    ``DepthwiseConv2dNative`` with Const weights into those weights (scaled per output channel
    by gamma / sqrt(variance + epsilon)) and a ``BiasAdd`` of beta - mean * scale, which takes
    the batch norm's name so its consumers are unchanged. (``_warn=False``: batch norms that do
    not fit are left silently, as the Graph Transform Tool's ``fold_old_batch_norms`` does.)"""
    node_map = {node.name: node for node in input_graph_def.node}
    used_outputs, consumers = {}, {}
    for node in input_graph_def.node:
        for name in node.input:
            src = node_name_from_input(name)
            consumers[src] = consumers.get(src, 0) + 1
            if not name.startswith("^"):
                used_outputs.setdefault(src, set()).add(int(name.partition(":")[2] or 0))
    replacements = {}  # name -> list of nodes to put in its place
    for node in input_graph_def.node:
        if node.op not in _BATCH_NORMS:
            continue
        if node.op != "BatchNormWithGlobalNormalization" and (
                node.attr["is_training"].b
                or node.attr["data_format"].s not in (b"", b"NHWC")):
            continue
        if used_outputs.get(node.name, {0}) - {0}:
            continue  # a consumer reads the batch mean/variance outputs
        conv_op = node_from_map(node_map, node.input[0])
        if conv_op.op not in ("Conv2D", "DepthwiseConv2dNative"):
            if _warn:
                logging.warning("Didn't find expected Conv2D or DepthwiseConv2dNative input "
                                "to '%s'", node.name)
            continue
        if conv_op.attr["data_format"].s not in (b"", b"NHWC"):
            continue
        weights_op = node_from_map(node_map, conv_op.input[1])
        if consumers.get(weights_op.name, 0) != 1 or consumers.get(conv_op.name, 0) != 1:
            continue  # scaling weights another node also reads would change that node
        if weights_op.op != "Const":
            if _warn:
                logging.warning("Didn't find expected conv Constant input to '%s', found %s "
                                "instead. Maybe because freeze_graph wasn't run first?",
                                conv_op.name, weights_op.op)
            continue
        weights = values_from_const(weights_op)
        channel_count = (weights.shape[3] if conv_op.op == "Conv2D"
                         else weights.shape[2] * weights.shape[3])
        consts = []
        for index in _BN_INPUTS.get(node.op, _FUSED_INPUTS):
            op = node_from_map(node_map, node.input[index])
            if op.op != "Const":
                break
            value = values_from_const(op)
            if value.shape != (channel_count,):
                if _warn:
                    logging.warning("Incorrect shape for %s in '%s', expected (%d,), found %s",
                                    op.name, node.name, channel_count, value.shape)
                break
            consts.append(value.astype(np.float64))
        if len(consts) != 4:
            continue
        mean, var, beta, gamma = consts
        eps = (node.attr["variance_epsilon"].f if node.op == "BatchNormWithGlobalNormalization"
               else node.attr["epsilon"].f)
        scale = 1.0 / np.sqrt(var + eps)
        if scale_after_normalization(node):
            scale = scale * gamma
        offset = beta - mean * scale
        if conv_op.op == "Conv2D":
            scaled = weights * scale
        else:
            scaled = weights * scale.reshape(weights.shape[2], weights.shape[3])
        dtype = dtypes.as_dtype(weights_op.attr["dtype"].type)
        new_weights = node_def_pb2.NodeDef()
        new_weights.CopyFrom(weights_op)
        new_weights.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(
            scaled.astype(dtype.as_numpy_dtype), dtype, weights.shape))
        offset_node = node_def_pb2.NodeDef(name=node.name + "_bn_offset", op="Const")
        offset_node.attr["dtype"].type = weights_op.attr["dtype"].type
        offset_node.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(
            offset.astype(dtype.as_numpy_dtype), dtype, [channel_count]))
        bias_add = node_def_pb2.NodeDef(name=node.name, op="BiasAdd",
                                        input=[conv_op.name, offset_node.name],
                                        device=node.device)
        bias_add.attr["T"].CopyFrom(conv_op.attr["T"])
        bias_add.attr["data_format"].CopyFrom(conv_op.attr["data_format"])
        if not bias_add.attr["data_format"].s:
            bias_add.attr["data_format"].s = b"NHWC"
        replacements[weights_op.name] = [new_weights]
        replacements[node.name] = [offset_node, bias_add]
    out = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        for new in replacements.get(node.name, [node]):
            copy = node_def_pb2.NodeDef()
            copy.CopyFrom(new)
            out.node.append(copy)
    out.library.CopyFrom(input_graph_def.library)
    out.versions.CopyFrom(input_graph_def.versions)
    return out
