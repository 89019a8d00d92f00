"""``tensorflow.python.util``: the utility modules TF 1.x programs import directly
(``from tensorflow.python.util import nest``, ``... import compat``)."""

import sys

from tideflow import compat
from tideflow.framework import nest

sys.modules[__name__ + ".nest"] = nest
sys.modules[__name__ + ".compat"] = compat

__all__ = ["compat", "nest"]
