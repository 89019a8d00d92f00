"""``tf.lite.constants``: the data types and output formats the converter takes."""

from tideflow.framework import dtypes as _dtypes

FLOAT = _dtypes.float32
FLOAT16 = _dtypes.float16
INT32 = _dtypes.int32
INT64 = _dtypes.int64
STRING = _dtypes.string
QUANTIZED_UINT8 = _dtypes.uint8
INT8 = _dtypes.int8
# output formats (toco's FileFormat enum values)
TFLITE = 2
GRAPHVIZ_DOT = 3
