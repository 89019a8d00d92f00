"""``tf.manip``: the reshaping and index ops under their ``tf.manip.*`` names."""

from tideflow.ops.array_ops import reshape
from tideflow.ops.concat_ops import reverse, tile
from tideflow.ops.extra_array_ops import roll
from tideflow.ops.gather_ops import gather_nd, scatter_nd
from tideflow.ops.space_ops import batch_to_space_nd, space_to_batch_nd

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd",
           "space_to_batch_nd", "tile"]
