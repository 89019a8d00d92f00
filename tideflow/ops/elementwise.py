"""Rule families for elementwise ops: unary ops and broadcasting binary ops, declared in one line.

A binary op's gradient function receives gradients already shaped like the broadcast output;
the family reduces them back to each input's shape, once for all binary ops.
"""

from tideflow.framework import op_registry
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape


def broadcast_shape(a, b):
    """The static shape of broadcasting shapes ``a`` and ``b`` (ValueError if incompatible)."""
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    da, db = a.dims, b.dims
    n = max(len(da), len(db))
    da = [Dimension(1)] * (n - len(da)) + da
    db = [Dimension(1)] * (n - len(db)) + db
    out = []
    for x, y in zip(da, db):
        xv, yv = x.value, y.value
        if xv == 1:
            out.append(y)
        elif yv == 1:
            out.append(x)
        elif xv is None:
            out.append(y if yv is not None and yv > 1 else Dimension(None))
        elif yv is None:
            out.append(x if xv > 1 else Dimension(None))
        elif xv == yv:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {xv} and {yv}")
    return TensorShape(out)


def _binary_shape(op):
    return [broadcast_shape(op._inputs[0]._shape, op._inputs[1]._shape)]


def _unary_shape(op):
    return [op._inputs[0]._shape]


def declare_unary(name, kernel, types="T: type", out=None, grad=None, differentiable=None):
    """An op ``y = f(x)`` with y shaped like x. ``out`` fixes the output type (e.g. "bool")."""
    return op_registry.declare(
        name,
        inputs=["x: T"],
        outputs=[f"y: {out or 'T'}"],
        attrs=[types],
        shape=_unary_shape,
        kernel=kernel,
        grad=grad,
        differentiable=differentiable,
    )


def declare_binary(name, kernel, types="T: type", out=None, grad=None, differentiable=None):
    """A broadcasting op ``z = f(x, y)``; ``grad(op, grad) -> (gx, gy)`` on the output shape."""
    return op_registry.declare(
        name,
        inputs=["x: T", "y: T"],
        outputs=[f"z: {out or 'T'}"],
        attrs=[types],
        shape=_binary_shape,
        kernel=kernel,
        grad=None if grad is None else _reducing(grad),
        differentiable=differentiable,
    )


def _reducing(grad):
    """Wraps a binary op's gradient so each partial is summed back to its input's shape."""

    def binary_grad(op, dz):
        from tideflow.ops import gradient_util

        gx, gy = grad(op, dz)
        x, y = op.inputs
        return gradient_util.reduce_to_inputs(x, y, gx, gy)

    binary_grad.__name__ = f"_{grad.__name__.strip('_')}"
    return binary_grad
