"""``tensorflow.python.layers``: ``utils`` (``smart_cond``, ``constant_value``), ``core``
(``Dense``, ``Dropout``, ``Flatten`` and their functions; TF 1.x seq2seq programs import
``from tensorflow.python.layers.core import Dense``) and ``base`` (``Layer``, ``InputSpec``)."""

import sys as _sys

from tideflow.ops import layers_base as base
from tideflow.ops import layers_core as core
from tideflow.python.layers import utils

for _name, _mod in (("base", base), ("core", core)):
    _sys.modules[__name__ + "." + _name] = _mod

__all__ = ["base", "core", "utils"]
