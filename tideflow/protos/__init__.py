"""TensorFlow-wire-compatible protocol buffers (package ``tideflow``) and their generated modules.

``str()``/``repr()`` of every message here prints as TF 1.x programs show a proto: protobuf's text
format with map entries sorted by key (key and value always printed), non-ASCII bytes of strings
octal-escaped, float and double fields as Python's repr of the value (``0.10000000149011612``,
``simple_value: 4.0``), where the C printer of the installed protobuf writes ``0.1``, ``4``, raw
UTF-8, maps in insertion order and no map key of 0. The generated modules are patched as they
are imported (a finder of this package's ``*_pb2`` names), so they stay exactly what the pinned
generator writes.
"""

import functools
import importlib.abc
import importlib.machinery
import sys

_PB2_PREFIX = __name__ + "."


@functools.cache
def _printer_class():
    """protobuf's text printer with TF 1.x's map entries and floats; None where the installed
    protobuf's private printer does not take these hooks (its own format is used then)."""
    from google.protobuf import descriptor, text_format

    base = getattr(text_format, "_Printer", None)
    if base is None:
        return None

    class Printer(base):
        def PrintMessage(self, message):
            d = message.DESCRIPTOR
            if d.has_options and d.GetOptions().map_entry:
                for field in d.fields:  # key and value both, even when 0 or empty
                    self.PrintField(field, getattr(message, field.name))
            else:
                super().PrintMessage(message)

        def PrintFieldValue(self, field, value):
            if field.cpp_type == descriptor.FieldDescriptor.CPPTYPE_FLOAT:
                self.out.write(str(float(value)))  # the float32 value as a Python float prints
            else:
                super().PrintFieldValue(field, value)

    try:
        Printer(text_format.TextWriter(False), as_utf8=False)
    except TypeError:
        return None
    return Printer


def _message_str(self):
    """``self`` in TF 1.x's printed text format."""
    from google.protobuf import text_format

    printer = _printer_class()
    if printer is None:
        return text_format.MessageToString(self, as_utf8=False)
    out = text_format.TextWriter(False)
    printer(out, as_utf8=False).PrintMessage(self)
    return out.getvalue()


def _patch(module):
    """Every message class of a generated module (nested ones too) prints in TF 1.x's format."""
    from google.protobuf import message

    todo = [v for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, message.Message)]
    while todo:
        cls = todo.pop()
        if cls.__module__ != module.__name__ or "__str__" in vars(cls):
            continue
        cls.__str__ = cls.__repr__ = _message_str
        todo.extend(v for v in vars(cls).values()
                    if isinstance(v, type) and issubclass(v, message.Message))


class _Loader(importlib.abc.Loader):
    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        _patch(module)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds this package's ``*_pb2`` modules as the path finder does and patches them once run."""

    def find_spec(self, name, path, target=None):
        if not (name.startswith(_PB2_PREFIX) and name.endswith("_pb2")):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec


if not any(isinstance(f, _Finder) for f in sys.meta_path):
    sys.meta_path.insert(0, _Finder())
for _name, _module in list(sys.modules.items()):  # imported before this package (a reload)
    if _name.startswith(_PB2_PREFIX) and _name.endswith("_pb2") and _module is not None:
        _patch(_module)
