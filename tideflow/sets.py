"""``tf.sets``: set operations along the last dimension of dense or sparse tensors."""

from tideflow.ops.set_ops import set_difference, set_intersection, set_size, set_union
from tideflow.ops.set_ops import set_difference as difference
from tideflow.ops.set_ops import set_intersection as intersection
from tideflow.ops.set_ops import set_size as size
from tideflow.ops.set_ops import set_union as union

__all__ = ["difference", "intersection", "set_difference", "set_intersection", "set_size",
           "set_union", "size", "union"]
