"""``tensorflow.python.ops.ragged.ragged_tensor``: the ``RaggedTensor`` class and its fetched
value, ``RaggedTensorValue``."""

from tideflow.ops.ragged_ops import is_ragged  # noqa: F401
from tideflow.ops.ragged_tensor import RaggedTensor, RaggedTensorValue  # noqa: F401
