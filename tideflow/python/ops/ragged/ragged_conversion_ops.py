"""``tensorflow.python.ops.ragged.ragged_conversion_ops``: conversions between ragged tensors
and dense or sparse ones, as functions (the ``RaggedTensor`` class methods)."""

from tideflow.ops.ragged_tensor import RaggedTensor


def from_tensor(tensor, lengths=None, padding=None, ragged_rank=1, name=None):
    """``RaggedTensor.from_tensor``."""
    return RaggedTensor.from_tensor(tensor, lengths=lengths, padding=padding,
                                    ragged_rank=ragged_rank, name=name)


def to_tensor(rt_input, default_value=None, name=None):
    """``rt_input.to_tensor(default_value)``; a dense tensor passes through."""
    if isinstance(rt_input, RaggedTensor):
        return rt_input.to_tensor(default_value=default_value, name=name)
    return rt_input


def from_sparse(st_input, name=None):
    """``RaggedTensor.from_sparse``."""
    return RaggedTensor.from_sparse(st_input, name=name)


def to_sparse(rt_input, name=None):
    """``rt_input.to_sparse()``."""
    return rt_input.to_sparse(name=name)
