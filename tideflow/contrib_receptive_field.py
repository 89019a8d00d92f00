"""``tf.contrib.receptive_field``: the receptive field of a CNN's output with respect to its
input, read off a GraphDef's convolution, pooling and padding nodes.

Each node's layer parameters (kernel size, stride, padding per spatial axis) come from its
attrs and the nodes it reads (a conv's ``<weights>/read``, a MaxPoolV2's ``/ksize`` and
``/strides``, a Pad's ``/paddings``), as in TF 1.15; elementwise and normalization ops leave the
field unchanged, other ops end the walk. Walking from the output node back to the input node,
the field size, effective stride and effective padding grow layer by layer; paths that join
must agree on stride and centre ("aligned"), else ValueError.
"""

import collections
import math

import numpy as np

from tideflow import logging
from tideflow.framework import ops

_UNCHANGED_RF_LAYER_OPS = (
    "Add", "AddV2", "BiasAdd", "Cast", "Ceil", "ConcatV2", "Const", "Floor", "FusedBatchNorm",
    "Identity", "Log", "Mul", "Pow", "RealDiv", "Relu", "Relu6", "Round", "Rsqrt", "Softplus",
    "Sub", "VariableV2", "LRN", "GreaterEqual")
_VALID, _SAME = ("VALID", b"VALID"), ("SAME", b"SAME")


def _const_value(node):
    from tideflow.framework.tensor_util import make_ndarray

    return make_ndarray(node.attr["value"].tensor)


def _stride_size(node, name_to_node):
    if node.op == "MaxPoolV2":
        name = node.input[2]
        if not name.endswith("/strides"):
            raise ValueError("Strides name does not end with '/strides'")
        t = _const_value(name_to_node[name])
        return t[2], t[1]
    strides = node.attr["strides"].list.i
    return strides[2], strides[1]


def _conv_kernel_size(node, name_to_node):
    read = node.input[1]
    if not read.endswith("/read"):
        raise ValueError("Weight layer's name input to conv layer does not end with '/read'")
    param = read[:-5]
    weights = name_to_node[param]
    if weights.op == "VariableV2":
        dims = weights.attr["shape"].shape.dim
    elif weights.op == "Const":
        dims = weights.attr["value"].tensor.tensor_shape.dim
    else:
        raise ValueError(f"Weight layer {param} is not of type VariableV2 or Const: "
                         f"{weights.op}")
    if len(dims) != 4:
        raise ValueError(f"Weight layer {param} does not have rank 4. Instead, it has: "
                         f"{len(dims)}")
    return dims[1].size, dims[0].size


def _padding_size_conv_pool(node, kernel_size, stride, input_resolution=None):
    """``(total padding, padding before)`` along one axis; None where SAME padding depends
    on an input size not given."""
    padding = node.attr["padding"].s
    if padding in _VALID:
        return 0, 0
    if padding not in _SAME:
        raise ValueError(f"Invalid padding operation {padding}")
    if input_resolution is not None:
        rest = input_resolution % stride
        total = int(max(float(kernel_size - (stride if rest == 0 else rest)), 0.0))
        return total, math.floor(total / 2)
    if kernel_size == 1:
        return 0, 0
    if stride == 1:
        total = kernel_size - 1
        return total, math.floor(total / 2)
    if stride == 2 and kernel_size % 2 == 0:
        return None, math.floor((kernel_size - 1) / 2)
    logging.warning("Padding depends on input size, which means that the effective padding may "
                 "be different depending on the input image dimensionality. In this case, "
                 "alignment check will be skipped. If you know the input resolution, please "
                 "set it.")
    return None, None


def _pool_kernel_size(node, name_to_node):
    if node.op == "MaxPoolV2":
        name = node.input[1]
        if not name.endswith("/ksize"):
            raise ValueError("Kernel size name does not end with '/ksize'")
        k = _const_value(name_to_node[name])
    else:
        k = node.attr["ksize"].list.i
    if k[0] != 1:
        raise ValueError("pool ksize for first dim is not 1")
    if k[3] != 1:
        raise ValueError("pool ksize for last dim is not 1")
    return k[2], k[1]


def _padding_size_pad_layer(node, name_to_node):
    name = node.input[1]
    if not name.endswith("/paddings"):
        raise ValueError("Padding layer name does not end with '/paddings'")
    paddings = name_to_node[name]
    if paddings.op != "Const":
        raise ValueError("Padding op is not Const")
    t = _const_value(paddings)
    if t[0][0] != 0 or t[0][1] != 0:
        raise ValueError("padding is not zero for first tensor dim")
    if t[3][0] != 0 or t[3][1] != 0:
        raise ValueError("padding is not zero for last tensor dim")
    return t[2][0] + t[2][1], t[2][0], t[1][0] + t[1][1], t[1][0]


def get_layer_params(node, name_to_node, input_resolution=None, force=False):
    """``(kernel_size_x, kernel_size_y, stride_x, stride_y, padding_x, padding_y,
    total_padding_x, total_padding_y)`` of one NodeDef (all None for an unknown op with
    ``force``, else ValueError)."""
    res_x = input_resolution[1] if input_resolution is not None else None
    res_y = input_resolution[0] if input_resolution is not None else None
    if node.op in ("Conv2D", "DepthwiseConv2dNative", "MaxPool", "MaxPoolV2", "AvgPool"):
        stride_x, stride_y = _stride_size(node, name_to_node)
        if node.op.startswith(("Conv", "Depthwise")):
            kx, ky = _conv_kernel_size(node, name_to_node)
        else:
            kx, ky = _pool_kernel_size(node, name_to_node)
        total_x, pad_x = _padding_size_conv_pool(node, kx, stride_x, res_x)
        total_y, pad_y = _padding_size_conv_pool(node, ky, stride_y, res_y)
    elif node.op == "Pad":
        kx = ky = stride_x = stride_y = 1
        total_x, pad_x, total_y, pad_y = _padding_size_pad_layer(node, name_to_node)
    elif node.op in _UNCHANGED_RF_LAYER_OPS:
        kx = ky = stride_x = stride_y = 1
        total_x = pad_x = total_y = pad_y = 0
    elif force:
        kx = ky = stride_x = stride_y = total_x = pad_x = total_y = pad_y = None
    else:
        raise ValueError(f"Unknown layer for operation '{node.name}': {node.op}")
    return kx, ky, stride_x, stride_y, pad_x, pad_y, total_x, total_y


NodeInfo = collections.namedtuple("NodeInfo", ["order", "node", "input_size", "output_size"])


def _output_resolution(size, kernel, stride, total_padding):
    if size is None or kernel is None or stride is None or total_padding is None:
        return None
    return math.ceil((size + total_padding - kernel + 1) / stride)


def get_compute_order(graph_def, input_node_name="", input_node_size=None):
    """``(node_info, name_to_node)``: for each node its topological ``order`` (one more than
    its deepest data input), NodeDef, and, from ``input_node_size`` ([height, width]) at
    ``input_node_name``, the spatial ``input_size``/``output_size`` through the layers
    (None past an unknown op)."""
    name_to_node = {n.name: n for n in graph_def.node}
    info = collections.defaultdict(NodeInfo)

    def visit(root):
        # depth first, a node filed after its inputs (in input order), as TF's recursion
        stack = [(root, False)]
        while stack:
            name, expanded = stack.pop()
            if name in info:
                continue
            node = name_to_node[name]
            if name == input_node_name:
                info[name] = NodeInfo(0, node, None, input_node_size)
                continue
            inputs = [i.split(":")[0] for i in node.input if not i.startswith("^")]
            if not expanded:
                stack.append((name, True))
                stack.extend((i, False) for i in reversed(inputs) if i not in info)
                continue
            order, input_size = 0, None
            for k, i in enumerate(inputs):
                order = max(order, info[i].order + 1)
                if k == 0:
                    input_size = info[i].output_size
            output_size = None
            if input_size is not None:
                kx, ky, sx, sy, _, _, tx, ty = get_layer_params(node, name_to_node, input_size,
                                                                force=True)
                output_size = [_output_resolution(input_size[0], kx, sx, tx),
                               _output_resolution(input_size[1], ky, sy, ty)]
            info[name] = NodeInfo(order, node, input_size, output_size)

    for node in graph_def.node:
        visit(node.name)
    return info, name_to_node


class ReceptiveField:
    """A receptive field: ``size``, effective ``stride`` and effective ``padding`` (numpy
    arrays over x, y); unpacks as the six numbers."""

    def __init__(self, size, stride, padding):
        self.size = np.asarray(size)
        self.stride = np.asarray(stride)
        self.padding = np.asarray(padding)

    def compute_input_center_coordinates(self, y, axis=None):
        """The input coordinates of the field centres of feature coordinates ``y``."""
        axis = list(range(self.size.size) if axis is None else axis)
        y = np.asarray(y)
        if y.shape[-1] != len(axis):
            raise ValueError(f"Dimensionality of the feature coordinates `y` ({y.shape[-1]}) "
                             f"does not match dimensionality of `axis` ({len(axis)})")
        return -self.padding[axis] + y * self.stride[axis] + (self.size[axis] - 1) / 2

    def compute_feature_coordinates(self, x, axis=None):
        """The feature coordinates whose fields centre on input coordinates ``x``."""
        axis = list(range(self.size.size) if axis is None else axis)
        x = np.asarray(x)
        if x.shape[-1] != len(axis):
            raise ValueError(f"Dimensionality of the input center coordinates `x` "
                             f"({x.shape[-1]}) does not match dimensionality of `axis` "
                             f"({len(axis)})")
        return (x + self.padding[axis] + (1 - self.size[axis]) / 2) / self.stride[axis]

    def __iter__(self):
        return iter(np.concatenate([self.size, self.stride, self.padding]))


def _aligned(name, field, stride_in, rf_in, pad_in):
    rf, stride, pad = field
    for k, axis in ((0, "horizontal"), (1, "vertical")):
        if stride[k] != stride_in[k]:
            raise ValueError("Graph is not aligned since effective stride from different "
                             f"paths is different in {axis} direction")
    for k, axis in ((0, "horizontal"), (1, "vertical")):
        if (rf[k] - 1) / 2 - pad[k] != (rf_in[k] - 1) / 2 - pad_in[k]:
            raise ValueError("Graph is not aligned since center shift from different paths "
                             f"is different in {axis} direction")


def compute_receptive_field_from_graph_def(graph_def, input_node, output_node,
                                           stop_propagation=None, input_resolution=None):
    """The :class:`ReceptiveField` of ``output_node`` over ``input_node`` (node names, or
    tensors) in ``graph_def`` (or a Graph); inputs whose names start with an entry of
    ``stop_propagation`` are not followed; ``input_resolution`` ([height, width]) fixes
    SAME paddings that depend on it (else the padding may come back None)."""
    if isinstance(graph_def, ops.Graph):
        graph_def = graph_def.as_graph_def()
    if isinstance(input_node, ops.Tensor):
        input_node = input_node.op.name
    if isinstance(output_node, ops.Tensor):
        output_node = output_node.op.name
    stop_propagation = stop_propagation or []
    info, name_to_node = get_compute_order(graph_def, input_node, input_resolution)
    # per node: [size_x, size_y], [stride_x, stride_y], [padding_x, padding_y]
    fields = {output_node: ([1, 1], [1, 1], [0, 0])}
    found_output = undefined_padding = False
    for _, (_, node, _, _) in sorted(info.items(), key=lambda kv: -kv[1].order):
        if not node:
            continue
        if node.name == input_node:
            break
        found_output = found_output or node.name == output_node
        if not found_output or node.name not in fields:
            continue
        kx, ky, sx, sy, px, py, _, _ = get_layer_params(node, name_to_node,
                                                        info[node.name].input_size)
        if px is None or py is None:
            undefined_padding = True
        rf, stride, pad = fields[node.name]
        rf_in = [sx * rf[0] + kx - sx, sy * rf[1] + ky - sy]
        stride_in = [sx * stride[0], sy * stride[1]]
        pad_in = ([None, None] if undefined_padding
                  else [sx * pad[0] + px, sy * pad[1] + py])
        for inp in node.input:
            if any(inp.startswith(stop) for stop in stop_propagation) or inp.startswith("^"):
                continue
            if inp not in name_to_node:  # (as TF: an input "x:1" is a KeyError)
                raise KeyError(inp)
            if inp not in fields:
                fields[inp] = (list(rf_in), list(stride_in), list(pad_in))
                continue
            have = fields[inp]
            if not undefined_padding:
                _aligned(inp, have, stride_in, rf_in, pad_in)
            for k in (0, 1):
                if have[0][k] < rf_in[k]:
                    have[0][k], have[1][k], have[2][k] = rf_in[k], stride_in[k], pad_in[k]
    if not found_output:
        raise ValueError("Output node was not found")
    if input_node not in fields:
        raise ValueError("Input node was not found")
    rf, stride, pad = fields[input_node]
    return ReceptiveField(tuple(rf), tuple(stride), tuple(pad))


__all__ = ["compute_receptive_field_from_graph_def", "get_compute_order"]
