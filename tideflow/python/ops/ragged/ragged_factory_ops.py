"""``tensorflow.python.ops.ragged.ragged_factory_ops``: building ragged tensors from nested
Python lists (``constant``, ``constant_value``) and ragged placeholders."""

from tideflow.ops.ragged_ops import constant, constant_value, placeholder  # noqa: F401
