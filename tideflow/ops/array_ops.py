"""Array ops: shapes, reshaping, slicing, joining, gathering and scattering, casts."""

from tideflow.framework import op_registry, ops

op_registry.declare(
    "Identity",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=lambda x: x,
)


def identity(input, name=None):  # noqa: A002 - TF's argument name
    """Returns a tensor with the same value as ``input``."""
    return ops.apply_op("Identity", [input], name=name)._outputs[0]
