"""The few ``tensorflow.python`` modules TF 1.x programs import directly
(``from tensorflow.python.client import device_lib, timeline``), under ``tideflow.python``."""

from tideflow.python import _paths

_paths.install()
