"""``tf.lite``: the TFLite converter (graph -> ``.tflite`` flatbuffer) and interpreter.

``TFLiteConverter.convert()`` writes a genuine TFLite model (schema version 3) that TF's own
interpreter loads, and ``Interpreter`` runs the float32 builtin ops of tideflow's files and of
TF's converter's. See :mod:`tideflow.lite.python.convert` for what the converter covers.
"""

from tideflow.lite import experimental
from tideflow.lite.python import lite_constants as constants
from tideflow.lite.python.convert import ConverterError
from tideflow.lite.python.interpreter import Interpreter
from tideflow.lite.python.lite import (
    OpsSet,
    Optimize,
    RepresentativeDataset,
    TargetSpec,
    TFLiteConverter,
    TocoConverter,
    toco_convert,
)

__all__ = ["Interpreter", "OpsSet", "Optimize", "RepresentativeDataset", "TFLiteConverter",
           "TargetSpec", "TocoConverter", "constants", "experimental", "toco_convert"]
_ = ConverterError
