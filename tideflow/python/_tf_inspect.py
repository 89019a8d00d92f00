"""``tensorflow.python.util.tf_inspect``: ``inspect`` with TF's ``getargspec`` (gone from
Python's ``inspect`` since 3.11) and ``ArgSpec``; decorated functions are seen through their
``__wrapped__`` chain, as TF's decorators are."""

import collections
import inspect
from inspect import *  # TF's module re-exports inspect

ArgSpec = collections.namedtuple("ArgSpec", ["args", "varargs", "keywords", "defaults"])
FullArgSpec = inspect.FullArgSpec


def _declares_signature(obj):
    # a wrapper with its own ``__signature__`` (wrapt's adapters, which copy a method's
    # signature onto another callable) answers for itself, as Python's inspect does
    return getattr(obj, "__signature__", None) is not None


def _unwrap(obj):
    return inspect.unwrap(obj, stop=_declares_signature) if callable(obj) else obj


def getfullargspec(obj):
    """``inspect.getfullargspec`` of the innermost decorated target."""
    return inspect.getfullargspec(_unwrap(obj))


def getargspec(obj):
    """The TF 1.x ``ArgSpec(args, varargs, keywords, defaults)`` of a function or of a
    callable's ``__call__`` (keyword-only arguments are left out, as TF does)."""
    spec = inspect.getfullargspec(_unwrap(obj))
    return ArgSpec(spec.args, spec.varargs, spec.varkw, spec.defaults)


def getcallargs(*func_and_positional, **named):
    func, positional = func_and_positional[0], func_and_positional[1:]
    return inspect.getcallargs(_unwrap(func), *positional, **named)


def isanytargetmethod(object):
    """True when the innermost target is a method or a callable object's bound ``__call__``."""
    target = _unwrap(object)
    return inspect.ismethod(target) or (callable(target) and not inspect.isfunction(target)
                                        and not inspect.isclass(target))
