"""``tensorflow.python.framework.registry``: a name -> object registry that remembers where
each entry was registered (TF keeps its gradient and shape functions in these)."""

import sys

from tideflow import compat


class Registry:
    """Objects registered under unique string names."""

    def __init__(self, name):
        self._name = name
        self._registry = {}

    def register(self, candidate, name=None):
        """Registers ``candidate`` under ``name`` (default: its ``__name__``); KeyError when
        the name is taken."""
        if not name:
            name = candidate.__name__
        if name in self._registry:
            filename, line, function = self._registry[name]["location"]
            raise KeyError(f"Registering two {self._name} with name '{name}'! (Previous "
                           f"registration was in {function} {filename}:{line})")
        frame = sys._getframe(1)
        location = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
        # TF's entry shape: programs read (and swap) ``_registry[name]["type"]``
        self._registry[name] = {"type": candidate, "location": location}

    def list(self):
        """The registered names."""
        return self._registry.keys()

    def lookup(self, name):
        """The object registered as ``name``; LookupError when there is none."""
        name = compat.as_str(name)
        if name in self._registry:
            return self._registry[name]["type"]
        raise LookupError(f"{self._name} registry has no entry for: {name}")
