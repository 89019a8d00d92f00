"""``tensorflow.python.util.lazy_loader``: ``LazyLoader``, a module stand-in that imports the
real module on first attribute access (libraries use it to defer heavy or circular imports)."""

import importlib
import types


class LazyLoader(types.ModuleType):
    """Stands in for module ``name`` under the global name ``local_name`` of the importing
    module; the first attribute access imports it and rebinds that global to it."""

    def __init__(self, local_name, parent_module_globals, name):
        self._local_name = local_name
        self._parent_module_globals = parent_module_globals
        super().__init__(name)

    def _load(self):
        module = importlib.import_module(self.__name__)
        self._parent_module_globals[self._local_name] = module
        self.__dict__.update(module.__dict__)
        return module

    def __getattr__(self, item):
        return getattr(self._load(), item)

    def __dir__(self):
        return dir(self._load())
