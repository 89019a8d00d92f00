"""``tensorflow.python.layers.utils``: static-or-dynamic conditionals used by layer code."""

from tideflow.framework.ops import constant_value
from tideflow.ops.layers_base import smart_cond

__all__ = ["constant_value", "smart_cond"]
