"""``tf.Module``: a named container of variables and other modules, with its own name scope.

As TF's: the name defaults to the class name in snake case, the module's scope is made unique
when it is created and re-entered by ``name_scope`` and ``with_name_scope``, and
``variables`` / ``trainable_variables`` / ``submodules`` walk the attributes (sorted by name;
lists, tuples and dicts included), a module's own attributes before its submodules'.
"""

import functools
import re

from tideflow.framework import ops


def _snake(name):
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class _ScopeReentry:
    """Re-enters a name scope given by its full name ("a/b/")."""

    def __init__(self, name):
        self.name = name
        self._ctx = None

    def __enter__(self):
        self._ctx = ops.name_scope(self.name)
        return self._ctx.__enter__()

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def _leaves(value):
    if isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _leaves(value[k])
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


class Module:
    """Base class of models and layers built from variables and other modules."""

    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = _snake(type(self).__name__)
        elif not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"{name!r} is not a valid module name. Module names must be "
                             "valid Python identifiers (e.g. a valid class name).")
        self._name = name
        with ops.name_scope(name) as scope:
            self._scope_name = scope

    @property
    def name(self):
        return self._name

    def __setattr__(self, name, value):
        # as TF's trackable objects: assigning an attribute the very object it already holds is
        # a no-op (so ``self.shape = self.shape`` passes even for a read-only property)
        try:
            if getattr(self, name) is value:
                return
        except AttributeError:
            pass
        super().__setattr__(name, value)

    def _no_dependency(self, value):
        """``value``, marked as not tracked for checkpointing (subclasses such as TF
        Probability's distributions store their parameters through it)."""
        return value

    @property
    def name_scope(self):
        """A context manager re-entering this module's name scope (``.name`` is its name)."""
        return _ScopeReentry(self._scope_name)

    def _walk(self, predicate, seen=None):
        seen = set() if seen is None else seen
        subs = []
        for key in sorted(vars(self)):
            if key in self._TF_MODULE_IGNORED_PROPERTIES:
                continue
            for leaf in _leaves(vars(self)[key]):
                if id(leaf) in seen:
                    continue
                if predicate(leaf):
                    seen.add(id(leaf))
                    yield leaf
                if isinstance(leaf, Module) and id(leaf) not in {id(s) for s in subs}:
                    subs.append(leaf)
        for sub in subs:
            yield from sub._walk(predicate, seen)

    @property
    def variables(self):
        """The variables of this module and its submodules (each once)."""
        from tideflow.ops.variables import Variable

        return tuple(self._walk(lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self):
        from tideflow.ops.variables import Variable

        return tuple(self._walk(lambda v: isinstance(v, Variable) and v.trainable))

    @property
    def non_trainable_variables(self):
        from tideflow.ops.variables import Variable

        return tuple(self._walk(lambda v: isinstance(v, Variable) and not v.trainable))

    @property
    def submodules(self):
        """The modules reachable from this one's attributes (not itself)."""
        return tuple(self._walk(lambda v: isinstance(v, Module)))

    @classmethod
    def with_name_scope(cls, method):
        """Decorator: runs ``method`` inside the module's name scope."""

        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped
