"""``tensorflow.python.framework.tensor_util``: proto conversion (``make_tensor_proto``,
``MakeNdarray``), ``constant_value`` and ``constant_value_as_shape``, ``is_tensor``,
``ShapeEquals``."""

import numpy as np

from tideflow.framework import ops
from tideflow.framework.tensor_shape import as_shape
from tideflow.framework.tensor_util import make_ndarray, make_tensor_proto
from tideflow.ops.array_ops import constant_value_as_shape
from tideflow.ops.misc_ops import get_static_value, is_tensor

MakeNdarray = make_ndarray  # TF's own spelling


def constant_value(tensor, partial=False):
    """The value of ``tensor`` when known without running the graph, else None; values that
    are not tensors come back as they are. With ``partial``, a ``tf.stack`` (axis 0) of
    partly known values gives an object array holding None for the unknown ones."""
    value = get_static_value(tensor)
    if value is not None or not partial or not isinstance(tensor, ops.Tensor):
        return value
    op = tensor.op
    if op.type != "Pack" or not op.inputs or op.get_attr("axis") != 0:
        return None
    out = np.empty(len(op.inputs), dtype=object)
    for i, x in enumerate(op.inputs):
        out[i] = constant_value(x, partial=True)
    return out


def ShapeEquals(tensor_proto, shape):
    """Whether ``tensor_proto``'s shape is ``shape`` (a list, tuple or TensorShapeProto)."""
    if not isinstance(shape, (list, tuple)):
        shape = [d.size for d in shape.dim]
    return [d.size for d in tensor_proto.tensor_shape.dim] == list(shape)


def shape_tensor(shape):
    """A fully known TensorShape (or list) as an int32 Tensor."""
    from tideflow.framework import ops

    dims = as_shape(shape).as_list() if not isinstance(shape, ops.Tensor) else None
    return shape if dims is None else ops.convert_to_tensor(dims, name="shape")


__all__ = ["MakeNdarray", "ShapeEquals", "constant_value", "constant_value_as_shape",
           "is_tensor", "make_ndarray", "make_tensor_proto", "shape_tensor"]
