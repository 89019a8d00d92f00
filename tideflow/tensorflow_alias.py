"""Runs code that imports ``tensorflow`` on tideflow, unchanged.

A TF 1.x program needs only its import line changed; a library written for TF 1.x (or a
program spread over many files) imports ``tensorflow`` and ``tensorflow.python.X`` in places
one would rather not edit. After ``install()``, ``import tensorflow`` gives tideflow and every
``tensorflow.X`` import gives ``tideflow.X`` (``tensorflow.python.ops.math_ops``,
``tensorflow.compat.v1``, ``tensorflow.contrib.slim``, ...)::

    import tideflow.tensorflow_alias
    tideflow.tensorflow_alias.install()
    import keras                      # a library that imports tensorflow

or from the shell: ``tideflow run program.py args...`` (``tideflow run -m module args...``).

``install()`` puts the alias first, before any installed TensorFlow, and refuses to stand in
for a real TensorFlow that is already imported. ``import tideflow`` itself adds the fallback
form (``install_fallback()``): ``tensorflow`` and ``tensorflow.X`` resolve to tideflow only
where the path holds no TensorFlow. A TF 1.x program
whose ``import tensorflow as tf`` became ``import tideflow as tf`` then runs with its other
imports unchanged (``from tensorflow.contrib import rnn``, ``from
tensorflow.examples.tutorials.mnist import input_data``); with a real TensorFlow installed,
``import tensorflow`` still gives it.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys

_PREFIX = "tensorflow."


def _resolve(target):
    """The tideflow module (or module-like namespace attribute) named ``target``."""
    try:
        return importlib.import_module(target)
    except ImportError:
        parent, _, leaf = target.rpartition(".")
        if not parent:
            raise
        found = getattr(_resolve(parent), leaf, None)
        if found is None or not hasattr(found, "__dict__") or isinstance(found, type):
            raise
        return found


class _Loader(importlib.abc.Loader):
    """Hands an already imported module to the import system as the one it asked for."""

    def __init__(self, module):
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module):
        # the import system has just set the alias's spec on the module: it keeps its own
        # (its submodules, reloads and error messages go by it)
        if self._spec is not None:
            module.__spec__ = self._spec


class _Finder(importlib.abc.MetaPathFinder):
    """Answers ``tensorflow.X`` with the module ``tideflow.X`` itself."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        return _spec(fullname)


class _FallbackFinder(importlib.abc.MetaPathFinder):
    """Answers ``tensorflow`` with tideflow only when the path holds no TensorFlow, and then
    (first on the meta path, so that no other finder loads tideflow's files a second time
    under ``tensorflow.X`` names through the alias's ``__path__``) ``tensorflow.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tensorflow":
            if importlib.machinery.PathFinder.find_spec(fullname) is not None:
                return None  # an installed TensorFlow
            import tideflow

            return importlib.util.spec_from_loader(fullname, _Loader(tideflow),
                                                   is_package=True)
        if not fullname.startswith(_PREFIX):
            return None
        import tideflow

        if sys.modules.get("tensorflow") is not tideflow:
            return None
        return _spec(fullname)


def _spec(fullname):
    """The spec that hands ``tideflow.X`` over as ``tensorflow.X`` (None if there is none)."""
    try:
        module = _resolve("tideflow." + fullname[len(_PREFIX):])
    except (ImportError, AttributeError):
        return None
    if not hasattr(module, "__path__"):
        # a plain module may have names imported below it (``tensorflow.compat.v1``): the
        # import system asks the parent for a ``__path__`` first
        try:
            module.__path__ = []
        except (AttributeError, TypeError):
            pass
    spec = importlib.util.spec_from_loader(fullname, _Loader(module), is_package=True)
    spec.submodule_search_locations = list(getattr(module, "__path__", []))
    return spec


def install_fallback():
    """Adds the fallback finder (idempotent): ``tensorflow`` imports resolve to tideflow in
    this process only where no TensorFlow is installed."""
    if not any(isinstance(f, _FallbackFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _FallbackFinder())


def install():
    """Makes ``tensorflow`` and ``tensorflow.X`` imports resolve to tideflow in this process
    (idempotent). Raises RuntimeError if a real TensorFlow is already imported."""
    import tideflow

    current = sys.modules.get("tensorflow")
    if current is not None and current is not tideflow:
        raise RuntimeError("tideflow.tensorflow_alias.install(): a real TensorFlow is already "
                           f"imported ({getattr(current, '__file__', current)!r}).")
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    sys.modules["tensorflow"] = tideflow
    return tideflow


def run(argv):
    """``run(['program.py', args...])`` or ``run(['-m', 'module', args...])``: runs the program
    as ``__main__`` with the alias installed and ``sys.argv`` set to what it would see."""
    if not argv:
        raise SystemExit("usage: tideflow run program.py [args...] | -m module [args...]")
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            raise SystemExit("usage: tideflow run -m module [args...]")
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        # as `python program.py`: the program's folder first on the path
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    run(sys.argv[1:])
