"""tideflow: stateful dataflow graphs with the TensorFlow 1.x API (``import tideflow as tf``)."""


def _tf1_scalar_printing():
    """Fetched scalars print as TF 1.x programs show them: ``[1.0, 0.5]``, not NumPy 2's
    ``[np.float32(1.0), np.float32(0.5)]`` (TF 1.15 ran on NumPy 1.x, and programs print lists
    of fetched values). Only scalars' repr changes (NumPy's ``legacy='1.25'`` printing), only
    when the program has not chosen a legacy mode itself; ``TIDEFLOW_NUMPY_PRINTING=numpy``
    keeps NumPy's own."""
    import numpy as np

    from tideflow import env

    if env.numpy_printing() == "numpy" or int(np.__version__.split(".")[0]) < 2:
        return
    if np.get_printoptions().get("legacy") is False:
        np.set_printoptions(legacy="1.25")


_tf1_scalar_printing()

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
from tideflow.ops import sparse_cwise_ops as _sparse_cwise_ops  # SparseTensor * or / dense
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
from tideflow.ops.check_extra_ops import assert_rank_in
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
from tideflow.ops.extra_array_ops import (
    accumulate_n,
    approx_top_k,
    cross,
    parallel_stack,
    repeat,
    roll,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    tensor_scatter_nd_max,
    tensor_scatter_nd_min,
)
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
from tideflow.ops.gradient_tape import GradientTape
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
from tideflow.ops.misc_ops import (
    AggregationMethod,
    UnconnectedGradients,
    control_flow_v2_enabled,
    convert_to_tensor_or_indexed_slices,
    convert_to_tensor_or_sparse_tensor,
    custom_gradient,
    dimension_at_index,
    dimension_value,
    disable_control_flow_v2,
    disable_eager_execution,
    disable_resource_variables,
    disable_tensor_equality,
    disable_v2_behavior,
    disable_v2_tensorshape,
    enable_control_flow_v2,
    enable_eager_execution,
    enable_resource_variables,
    enable_tensor_equality,
    enable_v2_behavior,
    enable_v2_tensorshape,
    ensure_shape,
    executing_eagerly,
    executing_eagerly_outside_functions,
    get_logger,
    get_static_value,
    is_tensor,
    no_gradient,
    py_function,
    resource_variables_enabled,
    switch_case,
    timestamp,
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
from tideflow.ops.patches_ops import bitcast, extract_image_patches, extract_volume_patches
from tideflow.ops.ragged_tensor import RaggedTensor, RaggedTensorSpec
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
from tideflow.version import (
    COMPILER_VERSION,
    GIT_VERSION,
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    VERSION,
)

newaxis = None
# TF 1.x programs gate features on the version: tideflow answers as TF 1.15 (see version.py)
__version__ = VERSION
__git_version__ = GIT_VERSION
__compiler_version__ = COMPILER_VERSION


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
    "tpu": ("tideflow.tpu", None),
    "feature_column": ("tideflow.feature_column", None),
    "profiler": ("tideflow.profiler", None),
    "contrib": ("tideflow.contrib", None),
    "xla": ("tideflow.xla", None),
    "distribute": ("tideflow.distribute", None),
    "variable_creator_scope": ("tideflow.ops.variables", "variable_creator_scope"),
    "lookup": ("tideflow.lookup", None),
    "make_template": ("tideflow.ops.template", "make_template"),
    "string_to_hash_bucket_fast": ("tideflow.ops.string_hash_ops", "string_to_hash_bucket_fast"),
    "string_to_hash_bucket": ("tideflow.ops.string_more_ops", "string_to_hash_bucket"),
    "string_to_hash_bucket_strong": ("tideflow.ops.string_more_ops",
                                     "string_to_hash_bucket_strong"),
    "string_strip": ("tideflow.ops.string_more_ops", "strip"),
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
    "ragged": ("tideflow.ragged", None),
    "app": ("tideflow.app", None),
    "flags": ("tideflow.flags", None),
    "math": ("tideflow.math", None),
    "signal": ("tideflow.signal", None),
    "distributions": ("tideflow.distributions", None),
    "nest": ("tideflow.framework.nest", None),
    "random_poisson": ("tideflow.ops.stateless_random_ops", "random_poisson"),
    "OptionalSpec": ("tideflow.ops.dataset_more", "OptionalSpec"),
    "spectral": ("tideflow.spectral", None),
    "fft": ("tideflow.ops.fft_ops", "fft"),
    "ifft": ("tideflow.ops.fft_ops", "ifft"),
    "fft2d": ("tideflow.ops.fft_ops", "fft2d"),
    "ifft2d": ("tideflow.ops.fft_ops", "ifft2d"),
    "fft3d": ("tideflow.ops.fft_ops", "fft3d"),
    "ifft3d": ("tideflow.ops.fft_ops", "ifft3d"),
    "fftnd": ("tideflow.ops.fft_ops", "fftnd"),
    "ifftnd": ("tideflow.ops.fft_ops", "ifftnd"),
    "rfftnd": ("tideflow.ops.fft_ops", "rfftnd"),
    "irfftnd": ("tideflow.ops.fft_ops", "irfftnd"),
    "matrix_square_root": ("tideflow.ops.linalg_more_ops", "sqrtm"),
    "random": ("tideflow.random", None),
    "version": ("tideflow.version", None),
    "sysconfig": ("tideflow.sysconfig", None),
    "resource_loader": ("tideflow.resource_loader", None),
    "config": ("tideflow.config", None),
    "debugging": ("tideflow.debugging", None),
    "dtypes": ("tideflow.dtypes", None),
    "queue": ("tideflow.queue", None),
    "manip": ("tideflow.manip", None),
    "bitwise": ("tideflow.bitwise", None),
    "sets": ("tideflow.sets", None),
    "autograph": ("tideflow.autograph", None),
    "audio": ("tideflow.audio", None),
    "quantization": ("tideflow.quantization", None),
    "user_ops": ("tideflow.user_ops", None),
    # TF 1.x later additions, loaded on first use
    "acosh": ("tideflow.ops.special_math_ops", "acosh"),
    "asinh": ("tideflow.ops.special_math_ops", "asinh"),
    "atanh": ("tideflow.ops.special_math_ops", "atanh"),
    "betainc": ("tideflow.ops.special_math_ops", "betainc"),
    "div_no_nan": ("tideflow.ops.special_math_ops", "div_no_nan"),
    "histogram_fixed_width_bins": ("tideflow.ops.special_math_ops", "histogram_fixed_width_bins"),
    "igamma": ("tideflow.ops.special_math_ops", "igamma"),
    "igammac": ("tideflow.ops.special_math_ops", "igammac"),
    "to_complex64": ("tideflow.ops.special_math_ops", "to_complex64"),
    "to_complex128": ("tideflow.ops.special_math_ops", "to_complex128"),
    "unsorted_segment_mean": ("tideflow.ops.special_math_ops", "unsorted_segment_mean"),
    "unsorted_segment_sqrt_n": ("tideflow.ops.special_math_ops", "unsorted_segment_sqrt_n"),
    "deserialize_many_sparse": ("tideflow.ops.sparse_extra_ops", "deserialize_many_sparse"),
    "edit_distance": ("tideflow.ops.sparse_extra_ops", "edit_distance"),
    "serialize_many_sparse": ("tideflow.ops.sparse_extra_ops", "serialize_many_sparse"),
    "serialize_sparse": ("tideflow.ops.sparse_extra_ops", "serialize_sparse"),
    "sparse_mask": ("tideflow.ops.sparse_extra_ops", "sparse_mask"),
    "sparse_maximum": ("tideflow.ops.sparse_extra_ops", "sparse_maximum"),
    "sparse_merge": ("tideflow.ops.sparse_extra_ops", "sparse_merge"),
    "sparse_minimum": ("tideflow.ops.sparse_extra_ops", "sparse_minimum"),
    "sparse_reduce_max_sparse": ("tideflow.ops.sparse_extra_ops", "sparse_reduce_max_sparse"),
    "sparse_reduce_sum_sparse": ("tideflow.ops.sparse_extra_ops", "sparse_reduce_sum_sparse"),
    "sparse_reset_shape": ("tideflow.ops.sparse_extra_ops", "sparse_reset_shape"),
    "sparse_softmax": ("tideflow.ops.sparse_extra_ops", "sparse_softmax"),
    "sparse_split": ("tideflow.ops.sparse_extra_ops", "sparse_split"),
    "fake_quant_with_min_max_args": ("tideflow.ops.quantization_ops", "fake_quant_with_min_max_args"),
    "fake_quant_with_min_max_args_gradient": ("tideflow.ops.quantization_ops", "fake_quant_with_min_max_args_gradient"),
    "fake_quant_with_min_max_vars": ("tideflow.ops.quantization_ops", "fake_quant_with_min_max_vars"),
    "fake_quant_with_min_max_vars_gradient": ("tideflow.ops.quantization_ops", "fake_quant_with_min_max_vars_gradient"),
    "fake_quant_with_min_max_vars_per_channel": ("tideflow.ops.quantization_ops", "fake_quant_with_min_max_vars_per_channel"),
    "fake_quant_with_min_max_vars_per_channel_gradient": ("tideflow.ops.quantization_ops", "fake_quant_with_min_max_vars_per_channel_gradient"),
    "quantize": ("tideflow.ops.quantized_ops", "quantize"),
    "quantize_v2": ("tideflow.ops.quantized_ops", "quantize_v2"),
    "dequantize": ("tideflow.ops.quantized_ops", "dequantize"),
    "quantized_concat": ("tideflow.ops.quantized_ops", "quantized_concat"),
    "VariableAggregation": ("tideflow.ops.tf1_misc_ops", "VariableAggregation"),
    "VariableSynchronization": ("tideflow.ops.tf1_misc_ops", "VariableSynchronization"),
    "batch_scatter_update": ("tideflow.ops.tf1_misc_ops", "batch_scatter_update"),
    "decode_compressed": ("tideflow.ops.tf1_misc_ops", "decode_compressed"),
    "decode_json_example": ("tideflow.ops.tf1_misc_ops", "decode_json_example"),
    "fingerprint": ("tideflow.ops.tf1_misc_ops", "fingerprint"),
    "grad_pass_through": ("tideflow.ops.tf1_misc_ops", "grad_pass_through"),
    "guarantee_const": ("tideflow.ops.tf1_misc_ops", "guarantee_const"),
    "is_symbolic_tensor": ("tideflow.ops.tf1_misc_ops", "is_symbolic_tensor"),
    "load_file_system_library": ("tideflow.ops.tf1_misc_ops", "load_file_system_library"),
    "load_library": ("tideflow.ops.tf1_misc_ops", "load_library"),
    "load_op_library": ("tideflow.ops.tf1_misc_ops", "load_op_library"),
    "no_regularizer": ("tideflow.ops.tf1_misc_ops", "no_regularizer"),
    "recompute_grad": ("tideflow.ops.tf1_misc_ops", "recompute_grad"),
    "required_space_to_batch_paddings": ("tideflow.ops.tf1_misc_ops", "required_space_to_batch_paddings"),
    "sparse_matmul": ("tideflow.ops.tf1_misc_ops", "sparse_matmul"),
    "vectorized_map": ("tideflow.ops.tf1_misc_ops", "vectorized_map"),
    "decode_base64": ("tideflow.ops.base64_ops", "decode_base64"),
    "encode_base64": ("tideflow.ops.base64_ops", "encode_base64"),
    "raw_ops": ("tideflow.raw_ops", None),
    "Module": ("tideflow.ops.tf_module", "Module"),
    "CriticalSection": ("tideflow.ops.critical_section_ops", "CriticalSection"),
    "TensorSpec": ("tideflow.ops.function_ops", "TensorSpec"),
    "get_session_handle": ("tideflow.ops.session_ops", "get_session_handle"),
    "get_session_tensor": ("tideflow.ops.session_ops", "get_session_tensor"),
    "delete_session_tensor": ("tideflow.ops.session_ops", "delete_session_tensor"),
    "TypeSpec": ("tideflow.ops.function_ops", "TypeSpec"),
    "SparseTensorSpec": ("tideflow.ops.function_ops", "SparseTensorSpec"),
    "IndexedSlicesSpec": ("tideflow.ops.function_ops", "IndexedSlicesSpec"),
    "type_spec_from_value": ("tideflow.ops.function_ops", "type_spec_from_value"),
    "function": ("tideflow.ops.function_ops", "function"),
    "nondifferentiable_batch_function": ("tideflow.ops.function_ops",
                                         "nondifferentiable_batch_function"),
    "OpError": ("tideflow.framework.errors", "OpError"),
    "floor_div": ("tideflow.ops.math_ops", "floordiv"),
    "get_seed": ("tideflow.framework.random_seed", "get_seed"),
    "MetaGraphDef": ("tideflow.protos.meta_graph_pb2", "MetaGraphDef"),
    "TensorInfo": ("tideflow.protos.meta_graph_pb2", "TensorInfo"),
    "SummaryMetadata": ("tideflow.protos.summary_pb2", "SummaryMetadata"),
    "LogMessage": ("tideflow.protos.event_pb2", "LogMessage"),
    "QUANTIZED_DTYPES": ("tideflow.dtypes", "QUANTIZED_DTYPES"),
    "CXX11_ABI_FLAG": ("tideflow.sysconfig", "CXX11_ABI_FLAG"),
    "CXX_VERSION": ("tideflow.sysconfig", "CXX_VERSION"),
    "MONOLITHIC_BUILD": ("tideflow.sysconfig", "MONOLITHIC_BUILD"),
    "print": ("tideflow.ops.logging_ops", "print_v2"),
    "random_crop": ("tideflow.ops.image_ops", "random_crop"),
    "scalar_summary": ("tideflow.summary.summary", "scalar_summary"),
    "histogram_summary": ("tideflow.summary.summary", "histogram_summary"),
    "image_summary": ("tideflow.summary.summary", "image_summary"),
    "audio_summary": ("tideflow.summary.summary", "audio_summary"),
    "merge_summary": ("tideflow.summary.summary", "merge_summary"),
    "merge_all_summaries": ("tideflow.summary.summary", "merge_all_summaries"),
    # 0.8-0.11 names (tideflow/ops/legacy_aliases.py)
    "listdiff": ("tideflow.ops.legacy_aliases", "listdiff"),
    "complex_abs": ("tideflow.ops.legacy_aliases", "complex_abs"),
    "batch_matrix_determinant": ("tideflow.ops.legacy_aliases", "batch_matrix_determinant"),
    "batch_matrix_inverse": ("tideflow.ops.legacy_aliases", "batch_matrix_inverse"),
    "batch_cholesky": ("tideflow.ops.legacy_aliases", "batch_cholesky"),
    "batch_matrix_solve": ("tideflow.ops.legacy_aliases", "batch_matrix_solve"),
    "batch_matrix_triangular_solve": ("tideflow.ops.legacy_aliases", "batch_matrix_triangular_solve"),
    "batch_matrix_solve_ls": ("tideflow.ops.legacy_aliases", "batch_matrix_solve_ls"),
    "batch_self_adjoint_eig": ("tideflow.ops.legacy_aliases", "batch_self_adjoint_eig"),
    "batch_self_adjoint_eigvals": ("tideflow.ops.legacy_aliases", "batch_self_adjoint_eigvals"),
    "batch_svd": ("tideflow.ops.legacy_aliases", "batch_svd"),
    "batch_matrix_diag": ("tideflow.ops.legacy_aliases", "batch_matrix_diag"),
    "batch_matrix_diag_part": ("tideflow.ops.legacy_aliases", "batch_matrix_diag_part"),
    "batch_matrix_set_diag": ("tideflow.ops.legacy_aliases", "batch_matrix_set_diag"),
    "batch_matrix_band_part": ("tideflow.ops.legacy_aliases", "batch_matrix_band_part"),
    "batch_fft": ("tideflow.ops.legacy_aliases", "batch_fft"),
    "batch_ifft": ("tideflow.ops.legacy_aliases", "batch_ifft"),
    "batch_fft2d": ("tideflow.ops.legacy_aliases", "batch_fft2d"),
    "batch_ifft2d": ("tideflow.ops.legacy_aliases", "batch_ifft2d"),
    "batch_fft3d": ("tideflow.ops.legacy_aliases", "batch_fft3d"),
    "batch_ifft3d": ("tideflow.ops.legacy_aliases", "batch_ifft3d"),
}


# tideflow's own layers (submodules, not TF API names): kept out of a star import
_INTERNAL = frozenset({"kernels", "runtime", "protos", "distributed", "env", "ops", "framework"})


def __getattr__(name):
    if name == "__all__":
        # ``from tensorflow.compat.v1 import *`` binds the lazily loaded names too, as in TF
        return [n for n in __dir__() if not n.startswith(("_", "contrib_")) and n not in _INTERNAL]
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError(f"module 'tideflow' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(entry[0])
    value = module if entry[1] is None else getattr(module, entry[1])
    globals()[name] = value
    return value


def __dir__():
    # the lazily loaded names too, as ``dir(tf)`` lists every public name in TF
    return sorted(set(globals()) | set(_LAZY))
