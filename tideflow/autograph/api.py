"""The public entry points: ``to_graph``, ``to_code``, ``do_not_convert``, ``set_verbosity``,
``trace``."""

import functools
import inspect
import types

from tideflow.autograph import conversion, operators


def _converted_class(cls):
    members = {}
    for name, member in vars(cls).items():
        if isinstance(member, types.FunctionType) and conversion.should_convert(member):
            members[name] = conversion.convert(member)
    return type(cls.__name__, (cls,), members)


def to_graph(entity, recursive=True, arg_values=None, arg_types=None,
             experimental_optional_features=None):
    """``entity`` (a function, method or class) with its Python control flow on tensors
    rewritten as graph control flow; the functions it calls are converted when they run
    (``recursive``). Lambdas and library functions are returned as they are."""
    del recursive, arg_values, arg_types, experimental_optional_features
    if inspect.isclass(entity):
        return _converted_class(entity)
    if isinstance(entity, types.MethodType):
        func = entity.__func__
        if isinstance(func, types.FunctionType) and not conversion.is_converted(func) and \
                func.__name__ != "<lambda>":
            return types.MethodType(conversion.convert(func), entity.__self__)
        return entity
    if isinstance(entity, types.FunctionType):
        if conversion.is_converted(entity) or entity.__name__ == "<lambda>":
            return entity
        return conversion.convert(entity)
    call = vars(type(entity)).get("__call__")
    if isinstance(call, types.FunctionType):  # a callable object: its __call__
        return types.MethodType(conversion.convert(call), entity)
    raise ValueError(f"Cannot convert {entity!r}: expected a function, method or class")


def to_code(entity, recursive=True, arg_values=None, arg_types=None, indentation="  ",
            experimental_optional_features=None):
    """The source of the converted ``entity`` (``ag__`` names tideflow's run-time operators)."""
    del recursive, arg_values, arg_types, indentation, experimental_optional_features
    if inspect.isclass(entity):
        return "\n\n".join(conversion.source_of(m) for m in vars(entity).values()
                           if isinstance(m, types.FunctionType))
    func = getattr(entity, "__func__", entity)
    if not isinstance(func, types.FunctionType):
        func = type(entity).__call__
    return conversion.source_of(func) + "\n"


def do_not_convert(func=None):
    """Decorator: ``func`` runs as it is, unconverted, when converted code calls it."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    wrapper.__ag_do_not_convert__ = True
    return wrapper


def set_verbosity(level, alsologtostdout=False):
    """How much the converter logs (to stderr): 0 nothing, 1 functions left unconverted."""
    del alsologtostdout
    operators._VERBOSITY[0] = int(level)


def trace(*args):
    """Prints ``args`` when the converted function runs in Python (at graph construction)."""
    print(*args)
