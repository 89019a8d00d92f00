"""``tensorflow.python.layers``: ``utils`` (``smart_cond``, ``constant_value``)."""

from tideflow.python.layers import utils

__all__ = ["utils"]
