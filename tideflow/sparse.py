"""``tf.sparse``: the sparse ops under their ``tf.sparse.*`` names (explicit re-exports only)."""

from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.ops.data_flow_ops import SparseConditionalAccumulator
from tideflow.ops.sparse_extra_ops import from_dense
from tideflow.ops.sparse_extra_ops import sparse_bincount as bincount
from tideflow.ops.sparse_extra_ops import sparse_cross as cross
from tideflow.ops.sparse_extra_ops import sparse_cross_hashed as cross_hashed
from tideflow.ops.sparse_extra_ops import sparse_expand_dims as expand_dims
from tideflow.ops.sparse_extra_ops import sparse_eye as eye
from tideflow.ops.sparse_extra_ops import sparse_mask as mask
from tideflow.ops.sparse_extra_ops import sparse_maximum as maximum
from tideflow.ops.sparse_extra_ops import sparse_merge as merge
from tideflow.ops.sparse_extra_ops import sparse_minimum as minimum
from tideflow.ops.sparse_extra_ops import sparse_reduce_max_sparse as reduce_max_sparse
from tideflow.ops.sparse_extra_ops import sparse_reduce_sum_sparse as reduce_sum_sparse
from tideflow.ops.sparse_extra_ops import sparse_reset_shape as reset_shape
from tideflow.ops.sparse_extra_ops import sparse_softmax as softmax
from tideflow.ops.sparse_extra_ops import sparse_split as split
from tideflow.ops.sparse_ops import sparse_add as add
from tideflow.ops.sparse_ops import sparse_concat as concat
from tideflow.ops.sparse_ops import sparse_reduce_max as reduce_max
from tideflow.ops.sparse_ops import sparse_reduce_sum as reduce_sum
from tideflow.ops.sparse_ops import sparse_reorder as reorder
from tideflow.ops.sparse_ops import sparse_reshape as reshape
from tideflow.ops.sparse_ops import sparse_slice as slice
from tideflow.ops.sparse_ops import sparse_tensor_dense_matmul as matmul
from tideflow.ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul
from tideflow.ops.sparse_ops import sparse_tensor_to_dense as to_dense
from tideflow.ops.sparse_ops import sparse_to_indicator as to_indicator
from tideflow.ops.sparse_rows_ops import sparse_fill_empty_rows as fill_empty_rows
from tideflow.ops.sparse_rows_ops import sparse_placeholder as placeholder
from tideflow.ops.sparse_rows_ops import sparse_retain as retain
from tideflow.ops.sparse_rows_ops import sparse_segment_mean as segment_mean
from tideflow.ops.sparse_rows_ops import sparse_segment_sqrt_n as segment_sqrt_n
from tideflow.ops.sparse_rows_ops import sparse_segment_sum as segment_sum
from tideflow.ops.sparse_rows_ops import sparse_transpose as transpose

__all__ = [
    "SparseConditionalAccumulator",
    "SparseTensor",
    "SparseTensorValue",
    "add",
    "bincount",
    "concat",
    "cross",
    "cross_hashed",
    "expand_dims",
    "eye",
    "fill_empty_rows",
    "from_dense",
    "mask",
    "matmul",
    "maximum",
    "merge",
    "minimum",
    "placeholder",
    "reduce_max",
    "reduce_max_sparse",
    "reduce_sum",
    "reduce_sum_sparse",
    "reorder",
    "reset_shape",
    "reshape",
    "retain",
    "segment_mean",
    "segment_sqrt_n",
    "segment_sum",
    "slice",
    "softmax",
    "sparse_dense_matmul",
    "split",
    "to_dense",
    "to_indicator",
    "transpose",
]
