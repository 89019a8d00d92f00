"""``tf.ragged``: RaggedTensor construction and the ragged versions of array ops."""

from tideflow.ops.ragged_ops import (  # noqa: F401
    boolean_mask,
    constant,
    constant_value,
    cross,
    cross_hashed,
    map_flat_values,
    placeholder,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack,
    stack_dynamic_partitions,
)
from tideflow.ops.ragged_ops import ragged_range as range  # noqa: F401
from tideflow.ops.ragged_tensor import RaggedTensorValue  # noqa: F401
