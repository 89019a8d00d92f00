"""``tf.xla``: ``experimental.jit_scope`` and ``experimental.compile`` (TF 1.15's names for
``tf.contrib.compiler``'s; tideflow marks the ops and runs them without XLA)."""

import sys
import types

from tideflow import contrib_compiler as _compiler

experimental = types.ModuleType(__name__ + ".experimental",
                                "``tf.xla.experimental``: jit_scope, compile.")
experimental.jit_scope = _compiler.experimental_jit_scope
experimental.compile = _compiler.compile
experimental.__all__ = ["compile", "jit_scope"]
sys.modules[experimental.__name__] = experimental

__all__ = ["experimental"]
