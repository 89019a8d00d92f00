"""``tensorflow.python.framework.tensor_util``: proto conversion plus ``constant_value``."""

from tideflow.framework.ops import constant_value
from tideflow.framework.tensor_util import make_ndarray, make_tensor_proto

__all__ = ["constant_value", "make_ndarray", "make_tensor_proto"]
