"""``tensorflow.python.util.all_util``: the helpers TF 1.x libraries call at the end of their
``__init__`` to trim a module's public names down to those its docstring lists as ``@@name``
lines (``remove_undocumented``) or to build an ``__all__`` from them (``make_all``)."""

import re
import sys

_DOC_NAME = re.compile(r"^@@(\w+)$", re.MULTILINE)

# "module.name" -> (module, value) of each name remove_undocumented took away
_HIDDEN_ATTRIBUTES = {}


def make_all(module_name, doc_string_modules=None):
    """The names ``@@name`` lines in the docstrings of ``doc_string_modules`` (default: the
    module itself) list that module ``module_name`` holds."""
    module = sys.modules[module_name]
    present = set(dir(module))
    listed = set()
    for doc_module in doc_string_modules or [module]:
        listed.update(n for n in _DOC_NAME.findall(doc_module.__doc__ or "") if n in present)
    return list(listed)


def reveal_undocumented(symbol_name, target_module=None):
    """Puts back a name ``remove_undocumented`` took away (``symbol_name`` is
    ``"module.name"``), on its module or on ``target_module``."""
    if symbol_name not in _HIDDEN_ATTRIBUTES:
        raise LookupError(f"Symbol {symbol_name} is not a hidden symbol")
    module, value = _HIDDEN_ATTRIBUTES[symbol_name]
    setattr(target_module or module, symbol_name.rpartition(".")[2], value)


def remove_undocumented(module_name, allowed_exception_list=None, doc_string_modules=None):
    """Deletes from module ``module_name`` every public name (not starting with ``_``) that
    neither a ``@@name`` docstring line nor ``allowed_exception_list`` names."""
    module = sys.modules[module_name]
    keep = set(make_all(module_name, doc_string_modules)) | set(allowed_exception_list or ())
    for name in sorted(set(dir(module)) - keep):
        if name.startswith("_"):
            continue
        _HIDDEN_ATTRIBUTES[f"{module_name}.{name}"] = (module, getattr(module, name))
        delattr(module, name)


__all__ = ["make_all", "remove_undocumented", "reveal_undocumented"]
