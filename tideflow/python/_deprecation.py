"""``tensorflow.python.util.deprecation`` and ``tf_decorator``: the decorators TF 1.x library
code applies to its own functions. A deprecated function logs one warning (through
``tf.logging``) the first time it is called and otherwise behaves as before."""

import functools
import inspect

from tideflow import logging as _logging

_warned = set()
_silenced = [0]


def _warn_once(key, message):
    if key not in _warned and not _silenced[0]:
        _warned.add(key)
        _logging.warning(message)


def deprecated(date, instructions, warn_once=True):
    """Marks a function or class deprecated: a warning naming it and ``instructions``."""
    def decorate(fn):
        when = "in a future version" if date is None else f"after {date}"

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            _warn_once(fn, f"From {fn.__module__}: {fn.__qualname__} (from "
                           f"{fn.__module__}) is deprecated and will be removed {when}.\n"
                           f"Instructions for updating:\n{instructions}")
            return fn(*args, **kwargs)

        if inspect.isclass(fn):
            return fn
        return wrapper

    return decorate


def deprecated_args(date, instructions, *deprecated_arg_names_or_tuples, warn_once=True):
    """Warns when one of the named arguments is passed."""
    names = [a[0] if isinstance(a, tuple) else a for a in deprecated_arg_names_or_tuples]

    def decorate(fn):
        params = list(inspect.signature(fn).parameters)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            passed = set(params[:len(args)]) | set(kwargs)
            for name in names:
                if name in passed:
                    _warn_once((fn, name), f"Calling {fn.__qualname__} with {name} is "
                                           f"deprecated.\nInstructions for updating:\n"
                                           f"{instructions}")
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def deprecated_arg_values(date, instructions, warn_once=True, **deprecated_kwargs):
    """Warns when a named argument is passed with the given value."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for name, value in deprecated_kwargs.items():
                if name in kwargs and kwargs[name] == value:
                    _warn_once((fn, name), f"Calling {fn.__qualname__} with {name}={value!r} "
                                           f"is deprecated.\nInstructions for updating:\n"
                                           f"{instructions}")
            return fn(*args, **kwargs)

        return wrapper

    return decorate


def deprecated_alias(deprecated_name, name, func_or_class, warn_once=True):
    """``func_or_class`` under an old name (the very object)."""
    return func_or_class


def deprecated_argument_lookup(new_name, new_value, old_name, old_value):
    """The value of whichever of the new/old argument was given; both is a ValueError."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
        return old_value
    return new_value


def deprecated_endpoints(*args):
    return lambda fn: fn


def rewrite_argument_docstring(old_doc, old_argument, new_argument):
    return (old_doc or "").replace(f"`{old_argument}`", f"`{new_argument}`").replace(
        f"{old_argument}:", f"{new_argument}:")


class silence:
    """A context in which deprecation warnings are not logged."""

    def __enter__(self):
        _silenced[0] += 1
        return self

    def __exit__(self, *exc):
        _silenced[0] -= 1
        return False


# -- tf_decorator -----------------------------------------------------------------------
def make_decorator(target, decorator_func, decorator_name=None, decorator_doc="",
                   decorator_argspec=None):
    """``decorator_func`` made to look like ``target`` (name, doc, ``__wrapped__``)."""
    functools.update_wrapper(decorator_func, target)
    return decorator_func


def unwrap(maybe_tf_decorator):
    """(decorators, innermost target): the chain of ``__wrapped__`` functions."""
    decorators = []
    cur = maybe_tf_decorator
    while hasattr(cur, "__wrapped__"):
        decorators.append(cur)
        cur = cur.__wrapped__
    return decorators, cur


def rewrap(decorator_func, previous_target, new_target):
    decorator_func.__wrapped__ = new_target
    return decorator_func


class TFDecorator:
    """A callable that wraps ``target`` under ``decorator_name``."""

    def __init__(self, decorator_name, target, decorator_doc="", decorator_argspec=None):
        self.decorator_name = decorator_name
        self.decorated_target = target
        self.__wrapped__ = target
        functools.update_wrapper(self, target)

    def __call__(self, *args, **kwargs):
        return self.decorated_target(*args, **kwargs)
