"""The few ``tensorflow.python`` modules TF 1.x programs import directly
(``from tensorflow.python.client import device_lib, timeline``), under ``tideflow.python``."""

from tideflow.python import _paths

_paths.install()

# as TF 1.x: ``from tensorflow.python import saved_model`` is the convenience module (its
# ``simple_save`` the function), while the package's ``simple_save`` is the module
from tideflow.python.saved_model import saved_model  # noqa: F401
