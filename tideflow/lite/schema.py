"""Facts of the TFLite model schema (version 3, file identifier ``TFL3``) as TF 1.15 ships it:
the builtin operator codes, the BuiltinOptions union's members, the tensor types and the fields
of the option tables tideflow reads and writes (in slot order, with their defaults)."""

import numpy as np

SCHEMA_VERSION = 3
FILE_IDENTIFIER = "TFL3"

BUILTIN_OPERATORS = {
    "ADD": 0, "AVERAGE_POOL_2D": 1, "CONCATENATION": 2, "CONV_2D": 3, "DEPTHWISE_CONV_2D": 4,
    "DEQUANTIZE": 6, "EMBEDDING_LOOKUP": 7, "FLOOR": 8, "FULLY_CONNECTED": 9,
    "HASHTABLE_LOOKUP": 10, "L2_NORMALIZATION": 11, "L2_POOL_2D": 12,
    "LOCAL_RESPONSE_NORMALIZATION": 13, "LOGISTIC": 14, "LSH_PROJECTION": 15, "LSTM": 16,
    "MAX_POOL_2D": 17, "MUL": 18, "RELU": 19, "RELU_N1_TO_1": 20, "RELU6": 21, "RESHAPE": 22,
    "RESIZE_BILINEAR": 23, "RNN": 24, "SOFTMAX": 25, "SPACE_TO_DEPTH": 26, "SVDF": 27, "TANH": 28,
    "CONCAT_EMBEDDINGS": 29, "SKIP_GRAM": 30, "CALL": 31, "CUSTOM": 32,
    "EMBEDDING_LOOKUP_SPARSE": 33, "PAD": 34, "UNIDIRECTIONAL_SEQUENCE_RNN": 35, "GATHER": 36,
    "BATCH_TO_SPACE_ND": 37, "SPACE_TO_BATCH_ND": 38, "TRANSPOSE": 39, "MEAN": 40, "SUB": 41,
    "DIV": 42, "SQUEEZE": 43, "UNIDIRECTIONAL_SEQUENCE_LSTM": 44, "STRIDED_SLICE": 45,
    "BIDIRECTIONAL_SEQUENCE_RNN": 46, "EXP": 47, "TOPK_V2": 48, "SPLIT": 49, "LOG_SOFTMAX": 50,
    "DELEGATE": 51, "BIDIRECTIONAL_SEQUENCE_LSTM": 52, "CAST": 53, "PRELU": 54, "MAXIMUM": 55,
    "ARG_MAX": 56, "MINIMUM": 57, "LESS": 58, "NEG": 59, "PADV2": 60, "GREATER": 61,
    "GREATER_EQUAL": 62, "LESS_EQUAL": 63, "SELECT": 64, "SLICE": 65, "SIN": 66,
    "TRANSPOSE_CONV": 67, "SPARSE_TO_DENSE": 68, "TILE": 69, "EXPAND_DIMS": 70, "EQUAL": 71,
    "NOT_EQUAL": 72, "LOG": 73, "SUM": 74, "SQRT": 75, "RSQRT": 76, "SHAPE": 77, "POW": 78,
    "ARG_MIN": 79, "FAKE_QUANT": 80, "REDUCE_PROD": 81, "REDUCE_MAX": 82, "PACK": 83,
    "LOGICAL_OR": 84, "ONE_HOT": 85, "LOGICAL_AND": 86, "LOGICAL_NOT": 87, "UNPACK": 88,
    "REDUCE_MIN": 89, "FLOOR_DIV": 90, "REDUCE_ANY": 91, "SQUARE": 92, "ZEROS_LIKE": 93,
    "FILL": 94, "FLOOR_MOD": 95, "RANGE": 96, "RESIZE_NEAREST_NEIGHBOR": 97, "LEAKY_RELU": 98,
    "SQUARED_DIFFERENCE": 99, "MIRROR_PAD": 100, "ABS": 101, "SPLIT_V": 102, "UNIQUE": 103,
    "CEIL": 104, "REVERSE_V2": 105, "ADD_N": 106, "GATHER_ND": 107, "COS": 108, "WHERE": 109,
    "RANK": 110, "ELU": 111, "REVERSE_SEQUENCE": 112, "MATRIX_DIAG": 113, "QUANTIZE": 114,
    "MATRIX_SET_DIAG": 115, "ROUND": 116,
}
OPERATOR_NAMES = {code: name for name, code in BUILTIN_OPERATORS.items()}

# the BuiltinOptions union: a member's type code is its position here plus one (0: NONE)
BUILTIN_OPTIONS = [
    "Conv2DOptions", "DepthwiseConv2DOptions", "ConcatEmbeddingsOptions", "LSHProjectionOptions",
    "Pool2DOptions", "SVDFOptions", "RNNOptions", "FullyConnectedOptions", "SoftmaxOptions",
    "ConcatenationOptions", "AddOptions", "L2NormOptions", "LocalResponseNormalizationOptions",
    "LSTMOptions", "ResizeBilinearOptions", "CallOptions", "ReshapeOptions", "SkipGramOptions",
    "SpaceToDepthOptions", "EmbeddingLookupSparseOptions", "MulOptions", "PadOptions",
    "GatherOptions", "BatchToSpaceNDOptions", "SpaceToBatchNDOptions", "TransposeOptions",
    "ReducerOptions", "SubOptions", "DivOptions", "SqueezeOptions", "SequenceRNNOptions",
    "StridedSliceOptions", "ExpOptions", "TopKV2Options", "SplitOptions", "LogSoftmaxOptions",
    "CastOptions", "DequantizeOptions", "MaximumMinimumOptions", "ArgMaxOptions", "LessOptions",
    "NegOptions", "PadV2Options", "GreaterOptions", "GreaterEqualOptions", "LessEqualOptions",
    "SelectOptions", "SliceOptions", "TransposeConvOptions", "SparseToDenseOptions", "TileOptions",
    "ExpandDimsOptions", "EqualOptions", "NotEqualOptions", "ShapeOptions", "PowOptions",
    "ArgMinOptions", "FakeQuantOptions", "PackOptions", "LogicalOrOptions", "OneHotOptions",
    "LogicalAndOptions", "LogicalNotOptions", "UnpackOptions", "FloorDivOptions", "SquareOptions",
    "ZerosLikeOptions", "FillOptions", "BidirectionalSequenceLSTMOptions",
    "BidirectionalSequenceRNNOptions", "UnidirectionalSequenceLSTMOptions", "FloorModOptions",
    "RangeOptions", "ResizeNearestNeighborOptions", "LeakyReluOptions", "SquaredDifferenceOptions",
    "MirrorPadOptions", "AbsOptions", "SplitVOptions", "UniqueOptions", "ReverseV2Options",
    "AddNOptions", "GatherNdOptions", "CosOptions", "WhereOptions", "RankOptions",
    "ReverseSequenceOptions", "MatrixDiagOptions", "QuantizeOptions", "MatrixSetDiagOptions",
]
OPTIONS_TYPE = {name: i + 1 for i, name in enumerate(BUILTIN_OPTIONS)}

# TensorType
FLOAT32, FLOAT16, INT32, UINT8, INT64, STRING, BOOL, INT16, COMPLEX64, INT8 = range(10)
TENSOR_TYPE_NAMES = ["FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16",
                     "COMPLEX64", "INT8"]
NUMPY_TYPES = {FLOAT32: np.float32, FLOAT16: np.float16, INT32: np.int32, UINT8: np.uint8,
               INT64: np.int64, STRING: np.bytes_, BOOL: np.bool_, INT16: np.int16,
               COMPLEX64: np.complex64, INT8: np.int8}
TENSOR_TYPES = {np.dtype(t): code for code, t in NUMPY_TYPES.items() if t is not np.bytes_}

# Padding and ActivationFunctionType
SAME, VALID = 0, 1
ACT_NONE, ACT_RELU, ACT_RELU_N1_TO_1, ACT_RELU6, ACT_TANH, ACT_SIGN_BIT = range(6)

# option tables: field name, struct format ("[i" a vector of int32), default, in slot order
_ACT = ("fused_activation_function", "b", 0)
_POOL_LIKE = [("padding", "b", 0), ("stride_w", "i", 0), ("stride_h", "i", 0)]
OPTION_FIELDS = {
    "Conv2DOptions": _POOL_LIKE + [_ACT, ("dilation_w_factor", "i", 1),
                                   ("dilation_h_factor", "i", 1)],
    "DepthwiseConv2DOptions": _POOL_LIKE + [("depth_multiplier", "i", 0), _ACT,
                                            ("dilation_w_factor", "i", 1),
                                            ("dilation_h_factor", "i", 1)],
    "Pool2DOptions": _POOL_LIKE + [("filter_width", "i", 0), ("filter_height", "i", 0), _ACT],
    "FullyConnectedOptions": [_ACT, ("weights_format", "b", 0)],
    "SoftmaxOptions": [("beta", "f", 0.0)],
    "ConcatenationOptions": [("axis", "i", 0), _ACT],
    "AddOptions": [_ACT],
    "MulOptions": [_ACT],
    "SubOptions": [_ACT],
    "DivOptions": [_ACT],
    "L2NormOptions": [_ACT],
    "ReshapeOptions": [("new_shape", "[i", None)],
    "SqueezeOptions": [("squeeze_dims", "[i", None)],
    "ReducerOptions": [("keep_dims", "?", False)],
    "StridedSliceOptions": [("begin_mask", "i", 0), ("end_mask", "i", 0),
                            ("ellipsis_mask", "i", 0), ("new_axis_mask", "i", 0),
                            ("shrink_axis_mask", "i", 0)],
    "GatherOptions": [("axis", "i", 0)],
    "CastOptions": [("in_data_type", "b", 0), ("out_data_type", "b", 0)],
    "ArgMaxOptions": [("output_type", "b", 0)],
    "ArgMinOptions": [("output_type", "b", 0)],
    "PackOptions": [("values_count", "i", 0), ("axis", "i", 0)],
    "UnpackOptions": [("num", "i", 0), ("axis", "i", 0)],
    "LeakyReluOptions": [("alpha", "f", 0.0)],
    "SplitOptions": [("num_splits", "i", 0)],
    "SplitVOptions": [("num_splits", "i", 0)],
    "ShapeOptions": [("out_type", "b", 0)],
    "ResizeBilinearOptions": [("new_height", "i", 0), ("new_width", "i", 0),
                              ("align_corners", "?", False)],
    "ResizeNearestNeighborOptions": [("align_corners", "?", False)],
    "SpaceToDepthOptions": [("block_size", "i", 0)],
    "LocalResponseNormalizationOptions": [("radius", "i", 0), ("bias", "f", 0.0),
                                          ("alpha", "f", 0.0), ("beta", "f", 0.0)],
    "OneHotOptions": [("axis", "i", 0)],
    "MirrorPadOptions": [("mode", "b", 0)],
    "TransposeConvOptions": _POOL_LIKE,
}
