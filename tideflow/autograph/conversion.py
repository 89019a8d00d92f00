"""Converting Python functions: source, rewrite (``transformer``), compile, cache.

A function is converted once per code object (parse, rewrite, compile); each function object
sharing that code gets its own converted function over its own globals, closure cells and
defaults, kept while the original lives. What can't be converted (no source, a generator,
library code) runs as it is.
"""

import ast
import functools
import inspect
import linecache
import sys
import textwrap
import types
import weakref

from tideflow.autograph import operators, transformer

_CODE_CACHE = {}  # code object -> (converted code object, source text) or an Exception
_FN_CACHE = weakref.WeakKeyDictionary()  # function -> converted function
_RESOLVED = weakref.WeakKeyDictionary()  # function -> what converted code calls for it
# modules whose functions run unconverted (tideflow itself and the libraries below it)
_SKIP_MODULES = frozenset({
    "tideflow", "tensorflow", "numpy", "scipy", "ml_dtypes", "google", "six", "pytest",
    "_pytest", "pluggy", "hypothesis", "absl", "typing_extensions", "wrapt", "attr", "attrs",
})
_INNER = "ag__converted"
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def _module_of(fn):
    # the defining module (``functools.wraps`` copies ``__module__``, never the globals)
    mod = fn.__globals__.get("__name__") or getattr(fn, "__module__", None) or ""
    return mod.split(".")[0]


def is_converted(fn):
    return getattr(fn, "__ag_converted__", False)


def should_convert(fn):
    """Whether ``fn`` (a plain Python function) is user code AutoGraph rewrites."""
    if not isinstance(fn, types.FunctionType) or is_converted(fn):
        return False
    if fn.__name__ == "<lambda>" or any(hasattr(fn, a) for a in (
            "__ag_do_not_convert__", "__ag_compiled", "autograph_info__")):
        return False  # marked as converted or not to convert (TF's markers too)
    top = _module_of(fn)
    if top in _SKIP_MODULES or top in _STDLIB:
        return False
    return not fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                                       inspect.CO_ASYNC_GENERATOR)


def _parse(fn):
    """The function's definition (decorators dropped) from its source."""
    code = fn.__code__
    try:
        lines, _ = inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        raise NotImplementedError(f"the source of {fn.__qualname__} is not available: {e}") \
            from None
    source = textwrap.dedent("".join(lines))
    try:
        module = ast.parse(source)
    except SyntaxError:
        # a def inside an expression continued over lines: take the def alone
        start = source.find("def ")
        module = ast.parse(textwrap.dedent(source[start:]))
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == code.co_name:
            node.decorator_list = []
            return node
    raise NotImplementedError(f"{fn.__qualname__} is not a def statement in its source")


def _enclosing_class(qualname):
    """The innermost class a function with ``qualname`` is written in (None outside one)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None


class _Mangle(ast.NodeTransformer):
    """Python's private-name mangling (``self.__x`` in class ``C`` is ``self._C__x``), which
    the class body gave the original and a recompiled function outside it would lose."""

    def __init__(self, cls):
        self.prefix = "_" + cls.lstrip("_")

    def _m(self, name):
        if name.startswith("__") and not name.endswith("__") and self.prefix != "_":
            return self.prefix + name
        return name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._m(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._m(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self._m(node.arg)
        return node


def _compile(fn):
    """(converted code object, source text) for ``fn.__code__``."""
    code = fn.__code__
    cached = _CODE_CACHE.get(code)
    if cached is not None:
        if isinstance(cached, Exception):
            raise cached
        return cached
    try:
        fdef = _parse(fn)
        cls = _enclosing_class(fn.__qualname__)
        if cls is not None:
            fdef = _Mangle(cls).visit(fdef)
        fdef = ast.fix_missing_locations(transformer.convert_function_def(fdef))
        source = ast.unparse(fdef)
        # named apart from the original inside the factory: a recursive call by its global
        # name must not find the factory's local
        fdef.name = _INNER
        freevars = [v for v in code.co_freevars if v != transformer.AG]
        factory = transformer.function_def(
            name="ag__factory",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in
                                                     [transformer.AG, *freevars]],
                               vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                               defaults=[]),
            body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
            decorator_list=[], returns=None)
        module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
        full = ast.unparse(module)
        filename = f"<autograph {code.co_filename}:{code.co_firstlineno} {code.co_name}>"
        # tracebacks through converted code show its lines
        linecache.cache[filename] = (len(full), None, full.splitlines(True), filename)
        factory_code = compile(ast.parse(full, filename), filename, "exec")
    except Exception as e:  # remembered: a function is tried once
        _CODE_CACHE[code] = e
        raise
    factory_code = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and
                 c.co_name == _INNER)
    names = {"co_name": code.co_name}
    if hasattr(code, "co_qualname"):  # Python 3.11+
        names["co_qualname"] = code.co_qualname
    inner = inner.replace(**names)
    _CODE_CACHE[code] = (inner, source)
    return inner, source


def convert(fn):
    """The converted version of the plain function ``fn`` (raises NotImplementedError when it
    can't be converted)."""
    try:
        return _FN_CACHE[fn]
    except (KeyError, TypeError):
        pass
    inner, _ = _compile(fn)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in inner.co_freevars:
        closure.append(types.CellType(operators) if name == transformer.AG else cells[name])
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(closure) or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__doc__ = fn.__doc__
    new.__module__ = fn.__module__
    new.__dict__.update(getattr(fn, "__dict__", {}))
    new.__ag_converted__ = True
    try:
        _FN_CACHE[fn] = new
    except TypeError:
        pass
    return new


def source_of(fn):
    """The converted source of the plain function ``fn``."""
    return _compile(fn)[1]


def maybe_convert(f):
    """``f`` converted when it is user code (a function or a bound method), else ``f``."""
    if type(f) is types.FunctionType:
        try:
            out = _RESOLVED[f]
        except KeyError:
            out = _resolve(f)
            out = _RESOLVED[f] = None if out is f else out  # None: never a ref to f itself
        return f if out is None else out
    return _resolve(f)


def _resolve(f):
    if isinstance(f, types.MethodType):
        func = f.__func__
        if should_convert(func):
            conv = _try_convert(func)
            if conv is not None:
                return types.MethodType(conv, f.__self__)
        return f
    if isinstance(f, functools.partial):
        g = maybe_convert(f.func)
        return f if g is f.func else functools.partial(g, *f.args, **f.keywords)
    if should_convert(f):
        conv = _try_convert(f)
        return f if conv is None else conv
    call = None if isinstance(f, (type, types.FunctionType, types.BuiltinFunctionType)) else \
        next((vars(k)["__call__"] for k in type(f).__mro__ if "__call__" in vars(k)), None)
    if isinstance(call, types.FunctionType) and should_convert(call):  # a callable object
        conv = _try_convert(call)
        if conv is not None:
            return types.MethodType(conv, f)
    return f


def _try_convert(fn):
    """``convert(fn)``, or None (it then runs as it is) where it can't be converted: no
    source, a generator (quietly), or code the converter fails on (with TF's warning)."""
    try:
        return convert(fn)
    except NotImplementedError as e:
        operators._log(1, f"{fn.__qualname__} runs unconverted: {e}")
    except Exception as e:  # noqa: BLE001 - converting only compiles: never lose the call
        import logging

        logging.getLogger("tensorflow").warning(
            "AutoGraph could not transform %s and will run it as-is. Cause: %s: %s",
            fn.__qualname__, type(e).__name__, e)
    return None
