"""tideflow: stateful dataflow graphs with the TensorFlow 1.x API (``import tideflow as tf``)."""

from tideflow import compat, logging
from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors
from tideflow.framework.device import DeviceSpec
from tideflow.framework.dtypes import (
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
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
    name_scope,
    op_scope,
    register_tensor_conversion_function,
    reset_default_graph,
)
from tideflow.framework.random_seed import set_random_seed
from tideflow.framework.tensor_shape import Dimension, TensorShape
from tideflow.ops.array_ops import identity
from tideflow.ops.constant_op import constant, placeholder, placeholder_with_default
from tideflow.ops.math_ops import add
from tideflow.protos.config_pb2 import (
    ConfigProto,
    GPUOptions,
    GraphOptions,
    OptimizerOptions,
    RunMetadata,
    RunOptions,
)
from tideflow.runtime.session import InteractiveSession, Session

newaxis = None
