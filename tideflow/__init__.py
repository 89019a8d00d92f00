"""tideflow: stateful dataflow graphs with the TensorFlow 1.x API (``import tideflow as tf``)."""

from tideflow import compat, initializers, linalg, logging, nn, strings
from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors
from tideflow.framework.device import DeviceSpec
from tideflow.framework.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bfloat16_ref,
    bool,
    bool_ref,
    complex64,
    complex64_ref,
    complex128,
    complex128_ref,
    double,
    float16,
    float16_ref,
    float32,
    float32_ref,
    float64,
    float64_ref,
    half,
    int8,
    int8_ref,
    int16,
    int16_ref,
    int32,
    int32_ref,
    int64,
    int64_ref,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    string_ref,
    uint8,
    uint8_ref,
    uint16,
    uint16_ref,
    uint32,
    uint64,
    variant,
)
from tideflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from tideflow.framework.ops import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    add_to_collections,
    colocate_with,
    container,
    control_dependencies,
    convert_to_tensor,
    device,
    get_collection,
    get_collection_ref,
    get_default_graph,
    get_default_session,
    init_scope,
    name_scope,
    op_scope,
    register_tensor_conversion_function,
    reset_default_graph,
)
from tideflow.framework.random_seed import set_random_seed
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.framework.tensor_shape import Dimension, TensorShape
from tideflow.ops import lookup_ops as _lookup_ops  # registers the table ops
from tideflow.ops.array_ops import (
    expand_dims,
    identity,
    identity_n,
    rank,
    reshape,
    shape,
    shape_n,
    size,
    squeeze,
    stop_gradient,
    transpose,
)
from tideflow.ops.cast_ops import (
    cast,
    saturate_cast,
    to_bfloat16,
    to_double,
    to_float,
    to_int32,
    to_int64,
)
from tideflow.ops.check_ops import (
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_same_float_dtype,
    assert_scalar,
    assert_type,
    is_non_decreasing,
    is_numeric_tensor,
    is_strictly_increasing,
)
from tideflow.ops.clip_ops import (
    clip_by_average_norm,
    clip_by_global_norm,
    clip_by_norm,
    global_norm,
)
from tideflow.ops.concat_ops import (
    concat,
    concat_v2,
    pack,
    pad,
    reverse,
    reverse_v2,
    split,
    stack,
    tile,
    unpack,
    unstack,
)
from tideflow.ops.cond import case, cond
from tideflow.ops.constant_op import constant, placeholder, placeholder_with_default
from tideflow.ops.control_flow_ops import group, no_op, tuple, with_dependencies
from tideflow.ops.counting_ops import (
    batch_gather,
    bincount,
    confusion_matrix,
    histogram_fixed_width,
    lbeta,
    setdiff1d,
    unique_with_counts,
    unravel_index,
)
from tideflow.ops.data_flow_ops import (
    ConditionalAccumulator,
    ConditionalAccumulatorBase,
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
    SparseConditionalAccumulator,
    count_up_to,
)
from tideflow.ops.decode_ops import decode_csv, decode_raw, parse_tensor, serialize_tensor
from tideflow.ops.embedding_ops import dynamic_partition, dynamic_stitch, parallel_dynamic_stitch
from tideflow.ops.fill_ops import (
    broadcast_dynamic_shape,
    broadcast_static_shape,
    broadcast_to,
    fill,
    ones,
    ones_like,
    zeros,
    zeros_like,
)
from tideflow.ops.functional_ops import foldl, foldr, map_fn, scan
from tideflow.ops.gather_ops import (
    gather,
    gather_nd,
    invert_permutation,
    scatter_nd,
    select,
    unique,
    where,
    where_v2,
)
from tideflow.ops.gradients import (
    NoGradient,
    NotDifferentiable,
    RegisterGradient,
    gradients,
    hessians,
)
from tideflow.ops.init_ops import (
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    orthogonal_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    uniform_unit_scaling_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
from tideflow.ops.io_ops import (
    FixedLengthRecordReader,
    IdentityReader,
    ReaderBase,
    TextLineReader,
    TFRecordReader,
    WholeFileReader,
    matching_files,
    read_file,
    write_file,
)
from tideflow.ops.linalg_extra_ops import (
    cholesky_solve,
    matrix_solve_ls,
    matrix_transpose,
    matrix_triangular_solve,
    qr,
    self_adjoint_eig,
    self_adjoint_eigvals,
)
from tideflow.ops.linalg_ops import (
    batch_matmul,
    cholesky,
    einsum,
    matmul,
    matrix_determinant,
    matrix_inverse,
    matrix_solve,
    tensordot,
)
from tideflow.ops.logging_ops import Assert, Print
from tideflow.ops.math_ops import (
    abs,
    acos,
    add,
    add_n,
    angle,
    asin,
    atan,
    atan2,
    ceil,
    clip_by_value,
    complex,
    conj,
    cos,
    cosh,
    digamma,
    div,
    divide,
    equal,
    erf,
    erfc,
    exp,
    expm1,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    imag,
    inv,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    lgamma,
    log,
    log1p,
    log_sigmoid,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    mul,
    multiply,
    neg,
    negative,
    not_equal,
    pow,
    real,
    realdiv,
    reciprocal,
    rint,
    round,
    rsqrt,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    squared_difference,
    sub,
    subtract,
    tan,
    tanh,
    truediv,
    truncatediv,
    truncatemod,
)
from tideflow.ops.matrix_diag_ops import (
    diag,
    diag_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    trace,
)
from tideflow.ops.norm_ops import norm
from tideflow.ops.numerics import add_check_numerics_ops, check_numerics, verify_tensor_all_finite
from tideflow.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    parse_example,
    parse_single_example,
    parse_single_sequence_example,
)
from tideflow.ops.partitioned_variables import (
    PartitionedVariable,
    create_partitioned_variables,
    fixed_size_partitioner,
    min_max_variable_partitioner,
    variable_axis_size_partitioner,
)
from tideflow.ops.patches_ops import bitcast, extract_image_patches
from tideflow.ops.random_ops import (
    multinomial,
    random_gamma,
    random_normal,
    random_shuffle,
    random_uniform,
    truncated_normal,
)
from tideflow.ops.range_ops import (
    eye,
    lin_space,
    linspace,
    matrix_band_part,
    meshgrid,
    one_hot,
    range,
    sequence_mask,
)
from tideflow.ops.reduction_ops import (
    arg_max,
    arg_min,
    argmax,
    argmin,
    count_nonzero,
    cumprod,
    cumsum,
    reduce_all,
    reduce_any,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sum,
)
from tideflow.ops.reverse_sequence_ops import reverse_sequence
from tideflow.ops.scatter_nd_ops import (
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    tensor_scatter_add,
    tensor_scatter_nd_add,
    tensor_scatter_nd_sub,
    tensor_scatter_nd_update,
    tensor_scatter_sub,
    tensor_scatter_update,
)
from tideflow.ops.script_ops import numpy_function, py_func
from tideflow.ops.slicing_ops import boolean_mask, slice, strided_slice
from tideflow.ops.sort_ops import argsort, searchsorted, sort
from tideflow.ops.space_ops import (
    batch_to_space,
    batch_to_space_nd,
    depth_to_space,
    space_to_batch,
    space_to_batch_nd,
    space_to_depth,
)
from tideflow.ops.sparse_ops import (
    sparse_add,
    sparse_concat,
    sparse_reduce_max,
    sparse_reduce_sum,
    sparse_reorder,
    sparse_reshape,
    sparse_slice,
    sparse_tensor_dense_matmul,
    sparse_tensor_to_dense,
    sparse_to_dense,
    sparse_to_indicator,
)
from tideflow.ops.sparse_rows_ops import (
    sparse_fill_empty_rows,
    sparse_placeholder,
    sparse_retain,
    sparse_segment_mean,
    sparse_segment_sqrt_n,
    sparse_segment_sum,
    sparse_transpose,
)
from tideflow.ops.state_ops import (
    assign,
    assign_add,
    assign_sub,
    is_variable_initialized,
    scatter_add,
    scatter_sub,
    scatter_update,
)
from tideflow.ops.string_ops import (
    as_string,
    reduce_join,
    regex_replace,
    string_join,
    string_split,
    string_to_number,
    substr,
)
from tideflow.ops.svd_ops import svd
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.unary_ops import polygamma, zeta
from tideflow.ops.variable_scope import (
    AUTO_REUSE,
    VariableScope,
    get_local_variable,
    get_variable,
    get_variable_scope,
    variable_op_scope,
    variable_scope,
)
from tideflow.ops.variables import (
    Variable,
    all_variables,
    assert_variables_initialized,
    global_variables,
    global_variables_initializer,
    initialize_all_tables,
    initialize_all_variables,
    initialize_local_variables,
    initialize_variables,
    local_variables,
    local_variables_initializer,
    model_variables,
    moving_average_variables,
    report_uninitialized_variables,
    tables_initializer,
    trainable_variables,
    variables_initializer,
)
from tideflow.ops.while_loop import while_loop
from tideflow.runtime.session import InteractiveSession, Session

newaxis = None


# Protos and GraphDef I/O load on first use, so `import tideflow` stays light.
_LAZY = {
    "ConfigProto": ("tideflow.protos.config_pb2", "ConfigProto"),
    "GPUOptions": ("tideflow.protos.config_pb2", "GPUOptions"),
    "GraphOptions": ("tideflow.protos.config_pb2", "GraphOptions"),
    "OptimizerOptions": ("tideflow.protos.config_pb2", "OptimizerOptions"),
    "RunMetadata": ("tideflow.protos.config_pb2", "RunMetadata"),
    "RunOptions": ("tideflow.protos.config_pb2", "RunOptions"),
    "GraphDef": ("tideflow.protos.graph_pb2", "GraphDef"),
    "NodeDef": ("tideflow.protos.node_def_pb2", "NodeDef"),
    "AttrValue": ("tideflow.protos.attr_value_pb2", "AttrValue"),
    "NameAttrList": ("tideflow.protos.attr_value_pb2", "NameAttrList"),
    "TensorProto": ("tideflow.protos.tensor_pb2", "TensorProto"),
    "Summary": ("tideflow.protos.summary_pb2", "Summary"),
    "HistogramProto": ("tideflow.protos.summary_pb2", "HistogramProto"),
    "Event": ("tideflow.protos.event_pb2", "Event"),
    "SessionLog": ("tideflow.protos.event_pb2", "SessionLog"),
    "import_graph_def": ("tideflow.framework.importer", "import_graph_def"),
    "make_tensor_proto": ("tideflow.framework.tensor_util", "make_tensor_proto"),
    "make_ndarray": ("tideflow.framework.tensor_util", "make_ndarray"),
    "graph_util": ("tideflow.graph_util", None),
    "train": ("tideflow.train", None),
    "losses": ("tideflow.losses", None),
    "metrics": ("tideflow.metrics", None),
    "layers": ("tideflow.layers", None),
    "keras": ("tideflow.keras", None),
    "estimator": ("tideflow.estimator", None),
    "feature_column": ("tideflow.feature_column", None),
    "contrib": ("tideflow.contrib", None),
    "lookup": ("tideflow.lookup", None),
    "make_template": ("tideflow.ops.template", "make_template"),
    "string_to_hash_bucket_fast": ("tideflow.ops.string_hash_ops", "string_to_hash_bucket_fast"),
    "summary": ("tideflow.summary", None),
    "saved_model": ("tideflow.saved_model", None),
    "data": ("tideflow.data", None),
    "test": ("tideflow.test", None),
    "timeline": ("tideflow.timeline", None),
    "image": ("tideflow.image", None),
    "gfile": ("tideflow.gfile", None),
    "python_io": ("tideflow.python_io", None),
    "io": ("tideflow.io", None),
    "sparse": ("tideflow.sparse", None),
    "app": ("tideflow.app", None),
    "flags": ("tideflow.flags", None),
    "math": ("tideflow.math", None),
    "random": ("tideflow.random", None),
    "print": ("tideflow.ops.logging_ops", "print_v2"),
    "random_crop": ("tideflow.ops.image_ops", "random_crop"),
    "scalar_summary": ("tideflow.summary.summary", "scalar_summary"),
    "histogram_summary": ("tideflow.summary.summary", "histogram_summary"),
    "image_summary": ("tideflow.summary.summary", "image_summary"),
    "audio_summary": ("tideflow.summary.summary", "audio_summary"),
    "merge_summary": ("tideflow.summary.summary", "merge_summary"),
    "merge_all_summaries": ("tideflow.summary.summary", "merge_all_summaries"),
}


def __getattr__(name):
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError(f"module 'tideflow' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(entry[0])
    value = module if entry[1] is None else getattr(module, entry[1])
    globals()[name] = value
    return value
