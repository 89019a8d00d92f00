"""``tensorflow.python.keras``: TF 1.x's internal path to the modules of ``tf.keras``.

``from tensorflow.python.keras.layers import Dense`` must give the very classes of
``tf.keras.layers`` (not a second copy of each module), so every
``tideflow.python.keras.<sub>`` import is answered with ``tideflow.keras.<sub>`` itself."""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

import tideflow.keras as _keras

_ALIAS = __name__ + "."
_REAL = _keras.__name__ + "."


class _AliasLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # The import system returns whatever sits in sys.modules after exec_module.
        real = importlib.import_module(_REAL + module.__name__[len(_ALIAS):])
        sys.modules[module.__name__] = real


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_ALIAS):
            return None
        if importlib.util.find_spec(_REAL + fullname[len(_ALIAS):]) is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader())


if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
    sys.meta_path.insert(0, _AliasFinder())

sys.modules[__name__] = _keras
# (``tensorflow.python.keras.utils.np_utils`` and the other modules TF keeps under
# ``keras.utils`` are made by tideflow.keras.utils itself)
