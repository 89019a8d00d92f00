"""Math ops: elementwise arithmetic, comparisons, reductions, matrix products; Tensor operators."""

from tideflow.framework import ops
from tideflow.ops.elementwise import declare_binary

declare_binary("Add", "add")
declare_binary("AddV2", "add")


def add(x, y, name=None):
    """x + y elementwise, with broadcasting."""
    return ops.apply_op("Add", [x, y], name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Python operators on Tensors
# ------------------------------------------------------------------------------------------


def _binary_operator(fn, name):
    def op(x, y):
        with ops.name_scope(None, name, [x, y]) as scope:
            if not isinstance(y, ops.Tensor):
                y = ops.convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            return fn(x, y, name=scope)

    def rop(y, x):
        with ops.name_scope(None, name, [x, y]) as scope:
            x = ops.convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return fn(x, y, name=scope)

    return op, rop


def _override_binary(op_name, fn, name):
    op, rop = _binary_operator(fn, name)
    ops.Tensor._override_operator(f"__{op_name}__", op)
    ops.Tensor._override_operator(f"__r{op_name}__", rop)


_override_binary("add", add, "add")
