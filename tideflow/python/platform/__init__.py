"""``tensorflow.python.platform``: ``app``, ``flags``, ``gfile`` and ``tf_logging``, the same
modules as ``tf.app``, ``tf.flags``, ``tf.gfile`` and ``tf.logging``."""

import sys

from tideflow import app, flags, gfile
from tideflow import logging as tf_logging

for _name, _module in (("app", app), ("flags", flags), ("gfile", gfile),
                       ("tf_logging", tf_logging)):
    sys.modules.setdefault(f"{__name__}.{_name}", _module)

__all__ = ["app", "flags", "gfile", "tf_logging"]
