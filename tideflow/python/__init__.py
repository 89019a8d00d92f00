"""The few ``tensorflow.python`` modules TF 1.x programs import directly
(``from tensorflow.python.client import device_lib, timeline``), under ``tideflow.python``."""

from tideflow.python import _paths

_paths.install()

# as TF 1.x: ``from tensorflow.python import saved_model`` is the convenience module (its
# ``simple_save`` the function), while the package's ``simple_save`` is the module
from tideflow.python.saved_model import saved_model  # noqa: F401


def __getattr__(name):
    # TF 1.15's module attributes of ``tensorflow.python`` (``control_flow_ops``, ``math_ops``,
    # ...), imported on first use
    path = _paths.TOP_LEVEL_ALIASES.get(name)
    if path is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module("tideflow.python." + path)
    globals()[name] = module
    return module
