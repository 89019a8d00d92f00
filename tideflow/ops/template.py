"""``tf.make_template``: wraps a function so that its ``get_variable`` variables are created on
the first call and shared by every later call."""

import functools

from tideflow.framework import ops
from tideflow.ops import variable_scope as vs


class Template:
    """A callable that runs ``func`` in one variable scope, reusing its variables after the
    first call. A later call that creates a new trainable variable (a ``tf.Variable`` where
    ``tf.get_variable`` was meant) raises ValueError, as in TF."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variables_created = False
        self._variable_scope = None
        if create_scope_now:
            # As in TF, only the variable scope is taken now: the name scope of that name is
            # opened by the first call, so its ops sit beside its variables ("foo/add").
            with vs._pure_variable_scope(unique_name or vs._get_unique_variable_scope(name),
                                         custom_getter=custom_getter) as scope:
                self._variable_scope = scope

    def _call_func(self, args, kwargs):
        trainable_at_start = len(ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES))
        result = self._func(*args, **kwargs)
        if self._variables_created:
            trainable_now = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
            if len(trainable_now) != trainable_at_start:
                # TF 1.15's words: the list of the new variables
                raise ValueError(
                    f"Trainable variable created when calling a template after the first time, "
                    f"perhaps you used tf.Variable when you meant tf.get_variable: "
                    f"{trainable_now[trainable_at_start:]}")
        self._variables_created = True
        return result

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            with vs.variable_scope(self._variable_scope, reuse=self._variables_created or None):
                return self._call_func(args, kwargs)
        with vs.variable_scope(self._unique_name, self._name,
                               custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    @property
    def name(self):
        return self._name

    @property
    def func(self):
        return self._func

    @property
    def variable_scope(self):
        return self._variable_scope

    @property
    def variable_scope_name(self):
        # ends in "/" (as TF's) so that "s1" does not match "s1_1"'s variables
        if self._variable_scope is None:
            return ""
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    var_scope = variable_scope

    def _scoped(self, key):
        if self._variable_scope is None:
            return []
        return ops.get_collection(key, self.variable_scope_name)

    @property
    def variables(self):
        return self.global_variables + self.local_variables

    @property
    def global_variables(self):
        return self._scoped(ops.GraphKeys.GLOBAL_VARIABLES)

    @property
    def trainable_variables(self):
        return self._scoped(ops.GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self):
        trainable = set(map(id, self.trainable_variables))
        return [v for v in self.global_variables if id(v) not in trainable]

    @property
    def local_variables(self):
        return self._scoped(ops.GraphKeys.LOCAL_VARIABLES)


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs):
    """Wraps ``func_`` (with ``kwargs`` bound) in a Template named ``name_``: the first call
    creates its variables in a fresh variable scope, later calls reuse them."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)


__all__ = ["Template", "make_template"]
