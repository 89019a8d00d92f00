"""``tf.keras``: the Keras API of TF 1.x, in graph mode over tideflow sessions."""

import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys

from tideflow.keras import (
    activations,
    applications,
    backend,
    callbacks,
    constraints,
    datasets,
    estimator,
    experimental,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    optimizers,
    preprocessing,
    regularizers,
    utils,
    wrappers,
)
from tideflow.keras.engine.input_layer import Input
from tideflow.keras.engine.sequential import Sequential
from tideflow.keras.engine.training import Model
from tideflow.tensorflow_alias import _Loader as _ExistingModuleLoader

__version__ = "2.2.4-tf"


class _AliasedSubmoduleFinder(_abc.MetaPathFinder):
    """Programs alias ``tf.keras`` as a package (``sys.modules['keras'] = tf.keras``, as
    bert4keras under ``TF_KERAS=1``) and then ``import keras.backend``: the submodule is
    tideflow's own module, not a second copy of its file (whose session, uids and learning
    phase would be separate from the ones the layers use)."""

    def find_spec(self, fullname, path=None, target=None):
        parent, _, leaf = fullname.rpartition(".")
        real = getattr(_sys.modules.get(parent), "__name__", None) if parent else None
        # (only aliases of tf.keras: other tideflow modules' aliases, such as a test
        # harness's `tensorflow` package, resolve their submodules themselves)
        if real is None or real == parent or not isinstance(real, str) or not (
                real == "tideflow.keras" or real.startswith("tideflow.keras.")):
            return None
        try:
            module = _importlib.import_module(f"{real}.{leaf}")
        except ImportError:
            return None
        return _util.spec_from_loader(fullname, _ExistingModuleLoader(module))


if not any(isinstance(f, _AliasedSubmoduleFinder) for f in _sys.meta_path):
    _sys.meta_path.insert(0, _AliasedSubmoduleFinder())

__all__ = [
    "Input", "Model", "Sequential", "activations", "applications", "backend", "callbacks", "constraints",
    "datasets", "estimator", "experimental", "initializers", "layers", "losses", "metrics",
    "mixed_precision", "models", "optimizers",
    "preprocessing", "regularizers", "utils", "wrappers",
]
