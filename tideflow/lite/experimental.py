"""``tf.lite.experimental``: ``load_delegate`` and ``get_potentially_supported_ops``."""

import collections
import os

SupportedOp = collections.namedtuple("SupportedOp", ["op"])


def load_delegate(library, options=None):
    """Loads a TFLite delegate library. tideflow's Interpreter runs no delegates: a library
    that exists cannot be loaded either (ValueError); a missing one is TF's OSError."""
    if not os.path.exists(library):
        raise OSError(f"{library}: cannot open shared object file: No such file or directory")
    raise ValueError(f"Failed to load delegate from {library}\n")


def get_potentially_supported_ops():
    """The TensorFlow ops the converter can lower to TFLite builtins (``SupportedOp``s)."""
    from tideflow.lite.python import convert

    names = set(convert._UNARY) | set(convert._BINARY) | set(convert._ARITH) | \
        set(convert._REDUCERS) | set(convert._BATCH_NORMS) | set(convert._PASSTHROUGH)
    names |= {"MatMul", "Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "LeakyRelu",
              "Softmax", "LogSoftmax", "Reshape", "ExpandDims", "Squeeze", "ConcatV2",
              "Concat", "Pad", "PadV2", "MirrorPad", "Transpose", "StridedSlice", "Slice",
              "GatherV2", "Gather", "GatherNd", "ArgMax", "ArgMin", "Cast", "Pack", "Unpack",
              "Split", "SplitV", "Tile", "AddN", "Select", "SelectV2",
              "ResizeNearestNeighbor", "ResizeBilinear", "Conv2DBackpropInput",
              "SpaceToBatchND", "BatchToSpaceND", "LRN", "Const", "Placeholder"}
    return [SupportedOp(name) for name in sorted(names)]
