"""Variable scopes and ``tf.get_variable``: variables named by scope, created once and shared.

Each graph keeps one variable store (name -> Variable) and one scope store (the current
``VariableScope`` and how often each scope name was opened), in graph collections as TF does.
"""

import enum
import functools
import inspect
import threading
import traceback

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import as_shape
from tideflow.ops import init_ops, partitioned_variables, variables
from tideflow.ops.partitioned_variables import _PartitionInfo  # noqa: F401  (TF's home of it)
from tideflow.ops.variables import variable_creator_scope  # noqa: F401  (TF's home of it)

# TF 1.15's signatures default to these enum members (the same objects as tf.Variable*)
_SYNC_AUTO = variables.VariableSynchronization.AUTO
_AGG_NONE = variables.VariableAggregation.NONE

_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)
# TF 1.0-1.4 kept the current VariableScope itself at [0] of this collection, and code of that
# era (PrettyTensor) swaps scopes by assigning to it; here that list is the store's slot
_VARSCOPE_KEY = ("__varscope_current",)


class _ReuseMode(enum.Enum):
    """Reuse modes of a variable scope beyond True and None."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class _VariableStore:
    """The variables made by ``get_variable`` in one graph, by full name."""

    def __init__(self):
        self._vars = {}
        self._partitioned_vars = {}

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=_SYNC_AUTO, aggregation=_AGG_NONE):
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype).base_dtype
        synchronization, aggregation = variables._check_sync_aggregation(
            synchronization, aggregation, name)
        if trainable is None:
            # TF: a variable synchronized on read is not trained unless asked
            trainable = synchronization.name != "ON_READ"

        def true_getter(name, shape=None, dtype=dtypes.float32, initializer=None,
                        regularizer=None, reuse=None, trainable=None, collections=None,
                        caching_device=None, partitioner=None, validate_shape=True,
                        use_resource=None, constraint=None, synchronization=None,
                        aggregation=None):
            if trainable is None:
                trainable = getattr(synchronization, "name", "") != "ON_READ"
            is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                with ops.name_scope(None):
                    return partitioned_variables.get_partitioned_variable(
                        self, name, partitioner, shape=shape, dtype=dtype,
                        initializer=initializer, regularizer=regularizer, reuse=reuse,
                        trainable=trainable, collections=collections,
                        caching_device=caching_device, validate_shape=validate_shape,
                        constraint=constraint, use_resource=use_resource,
                    )
            # a partitioned variable is reused without naming its partitioner again
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                return partitioned_variables.get_partitioned_variable(
                    self, name, None, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, reuse=reuse, trainable=trainable,
                    collections=collections, caching_device=caching_device,
                    validate_shape=validate_shape, constraint=constraint,
                    use_resource=use_resource,
                )
            if f"{name}/part_0" in self._vars:
                raise ValueError(
                    "No partitioner was provided, but a partitioned version of the variable was "
                    f"found: {name}/part_0. Perhaps a variable of the same name was already "
                    "created with partitioning?"
                )
            return self._get_single_variable(
                name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                reuse=reuse, trainable=trainable, collections=collections,
                caching_device=caching_device, validate_shape=validate_shape,
                constraint=constraint, synchronization=synchronization, aggregation=aggregation,
                use_resource=use_resource,
            )

        kwargs = {
            "name": name, "shape": shape, "dtype": dtype, "initializer": initializer,
            "regularizer": regularizer, "reuse": reuse, "trainable": trainable,
            "collections": collections, "caching_device": caching_device,
            "partitioner": partitioner, "validate_shape": validate_shape,
            "use_resource": use_resource, "synchronization": synchronization,
            "aggregation": aggregation,
        }
        if custom_getter is not None:
            # getters written before `constraint` existed do not take it
            if _accepts(custom_getter, "constraint"):
                kwargs["constraint"] = constraint
            return custom_getter(getter=true_getter, **kwargs)
        return true_getter(constraint=constraint, **kwargs)

    def _get_single_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None,
                             regularizer=None, partition_info=None, reuse=None, trainable=True,
                             collections=None, caching_device=None, validate_shape=True,
                             constraint=None, synchronization=None, aggregation=None,
                             use_resource=None):
        initializing_from_value = initializer is not None and not callable(initializer)
        if shape is not None and initializing_from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        shape = as_shape(shape)

        if name in self._vars:
            if reuse is False:
                # as TF 1.15's: the innermost frames first, at most 5 (TF's own left out)
                where = "".join(traceback.format_list(self._vars[name].op.traceback[::-1][:5]))
                raise ValueError(
                    f"Variable {name} already exists, disallowed. Did you mean to set reuse=True "
                    f"or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n{where}"
                )
            found = self._vars[name]
            if not shape.is_compatible_with(found.get_shape()):
                raise ValueError(
                    f"Trying to share variable {name}, but specified shape {shape} and found "
                    f"shape {found.get_shape()}."
                )
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(
                    f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                    f"dtype {found.dtype.name}."
                )
            return found

        if reuse is True:
            raise ValueError(
                f"Variable {name} does not exist, or was not created with tf.get_variable(). Did "
                "you mean to set reuse=tf.AUTO_REUSE in VarScope?"
            )
        if initializer is None:
            initializer, initializing_from_value = _default_initializer(name, dtype)
        # a callable taking no arguments makes the initial value itself, whose shape need not
        # be known (TF: "a callable with no arguments and the shape should not be provided");
        # as TF, the default initializer with an unknown shape is "not valid" too
        value_fn = (not initializing_from_value and not shape.is_fully_defined()
                    and _no_required_args(initializer))
        if not shape.is_fully_defined() and not initializing_from_value and not value_fn:
            raise ValueError(
                "The initializer passed is not valid. It should be a callable with no "
                "arguments and the shape should not be provided or an instance of "
                "`tf.keras.initializers.*' and `shape` should be fully defined.")
        with ops.control_dependencies(None):
            if initializing_from_value or value_fn:
                init_val = initializer
                variable_dtype = None
            else:
                if isinstance(initializer, type):
                    initializer = initializer(dtype=dtype)
                dims = shape.as_list()
                # as TF: partition_info goes only to an initializer that names it (a user's
                # ``__call__(self, shape, dtype=None)`` gets shape and dtype alone)
                kwargs = {"dtype": dtype}
                if _names_arg(initializer, "partition_info"):
                    kwargs["partition_info"] = partition_info

                def init_val():
                    return initializer(dims, **kwargs)

                variable_dtype = dtype.base_dtype
        if use_resource is None:  # as TF: resolved (a bool) before the variable is made
            use_resource = variables._default_use_resource()
        v = variables.Variable(
            initial_value=init_val, name=name, trainable=trainable, collections=collections,
            caching_device=caching_device, dtype=variable_dtype, validate_shape=validate_shape,
            constraint=constraint, synchronization=synchronization, aggregation=aggregation,
            use_resource=use_resource,
        )
        self._vars[name] = v

        if regularizer:
            # as TF: the loss lives outside any loop body or cond branch the variable is made in
            with ops.colocate_with(v.op), ops.name_scope(name + "/Regularizer/"), \
                    ops.init_scope():
                loss = regularizer(v)
            if loss is not None:
                ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
        return v


def _no_required_args(fn):
    if fn is None or isinstance(fn, type) or not callable(fn):
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def _accepts(fn, arg):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return arg in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _names_arg(fn, arg):
    try:
        p = inspect.signature(fn).parameters.get(arg)
    except (TypeError, ValueError):
        return True
    return p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)


def _default_initializer(name, dtype):
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer(), False
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer(), False
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


class VariableScope:
    """The settings ``get_variable`` uses inside a ``variable_scope``: name, reuse, initializer,
    regularizer, dtype and the rest."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, name_scope="", dtype=dtypes.float32,
                 use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint

    @property
    def name(self):
        return self._name

    @property
    def original_name_scope(self):
        return self._name_scope

    @property
    def reuse(self):
        return self._reuse

    @property
    def initializer(self):
        return self._initializer

    @property
    def dtype(self):
        return self._dtype

    @property
    def use_resource(self):
        return self._use_resource

    @property
    def regularizer(self):
        return self._regularizer

    @property
    def caching_device(self):
        return self._caching_device

    @property
    def partitioner(self):
        return self._partitioner

    @property
    def custom_getter(self):
        return self._custom_getter

    @property
    def constraint(self):
        return self._constraint

    def reuse_variables(self):
        """Makes ``get_variable`` in this scope reuse existing variables."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtype

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def get_collection(self, name):
        """The items of collection ``name`` whose names are under this scope."""
        scope = self._name + "/" if self._name else ""
        return ops.get_collection(name, scope)

    def trainable_variables(self):
        return self.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(ops.GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                     regularizer=None, reuse=None, trainable=None, collections=None,
                     caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=_SYNC_AUTO, aggregation=_AGG_NONE):
        """Gets or creates variable ``<scope name>/<name>`` with this scope's defaults."""
        if regularizer is None:
            regularizer = self._regularizer
        if caching_device is None:
            caching_device = self._caching_device
        if partitioner is None:
            partitioner = self._partitioner
        if custom_getter is None:
            custom_getter = self._custom_getter
        if reuse is None:
            reuse = self._reuse
        if use_resource is None:
            use_resource = self._use_resource
        full_name = f"{self._name}/{name}" if self._name else name
        # variable names depend on the variable scope only, not on the name scope
        with ops.name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = ops.convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtypes.as_dtype(dtype):
                    raise ValueError(
                        f"Initializer type '{init_dtype}' and explicit dtype "
                        f"'{dtypes.as_dtype(dtype)}' don't match."
                    )
            if initializer is None:
                initializer = self._initializer
            if constraint is None:
                constraint = self._constraint
            if dtype is None:
                dtype = self._dtype
            return var_store.get_variable(
                full_name, shape=shape, dtype=dtype, initializer=initializer,
                regularizer=regularizer, reuse=reuse, trainable=trainable,
                collections=collections, caching_device=caching_device, partitioner=partitioner,
                validate_shape=validate_shape, use_resource=use_resource,
                custom_getter=custom_getter, constraint=constraint,
                synchronization=synchronization, aggregation=aggregation,
            )


class _VariableScopeStore(threading.local):
    """The current variable scope of a graph and how often each scope name was opened, per
    thread as in TF: a thread building part of the graph starts at the root scope."""

    def __init__(self):
        self._slot = [VariableScope(False)]
        self.variable_scopes_count = {}
        # scope name -> the names opened under it (at any depth), so closing a scope visits
        # its own subscopes, not every scope of the graph (quadratic in the number of layers)
        self._subscopes = {}

    @property
    def current_scope(self):
        return self._slot[0]

    @current_scope.setter
    def current_scope(self, scope):
        self._slot[0] = scope

    def open_variable_scope(self, scope_name):
        counts = self.variable_scopes_count
        if scope_name:
            parts = scope_name.split("/")
            for i in range(1, len(parts)):
                self._subscopes.setdefault("/".join(parts[:i]), set()).add(scope_name)
        counts[scope_name] = counts.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        counts = self.variable_scopes_count
        if scope_name is None:
            for k in counts:
                counts[k] = 0
            return
        for k in self._subscopes.get(scope_name, ()):
            if counts.get(k):
                counts[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


def _singleton(key, factory):
    coll = ops.get_collection_ref(key)
    if not coll:
        coll.append(factory())
    return coll[0]


def get_variable_scope_store():
    coll = ops.get_collection_ref(_VARSCOPESTORE_KEY)
    if not coll:
        store = _VariableScopeStore()
        # the creating thread's current scope is also the 1.0-era collection's element
        slot = ops.get_collection_ref(_VARSCOPE_KEY)
        slot[:] = [store.current_scope]
        store._slot = slot
        coll.append(store)
    return coll[0]


def _get_default_variable_store():
    return _singleton(_VARSTORE_KEY, _VariableStore)


def get_variable_scope():
    """The current ``VariableScope``."""
    return get_variable_scope_store().current_scope


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                 trainable=None, collections=None, caching_device=None, partitioner=None,
                 validate_shape=True, use_resource=None, custom_getter=None, constraint=None,
                 synchronization=_SYNC_AUTO, aggregation=_AGG_NONE):
    """Gets the variable ``<scope>/<name>`` or creates it, following the scope's reuse rule.
    ``trainable`` defaults to True unless ``synchronization`` is ``ON_READ``."""
    return get_variable_scope().get_variable(
        _get_default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections,
        caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
        use_resource=use_resource, custom_getter=custom_getter, constraint=constraint,
        synchronization=synchronization, aggregation=aggregation,
    )


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, caching_device=None, partitioner=None,
                       validate_shape=True, use_resource=None, custom_getter=None,
                       constraint=None, synchronization=_SYNC_AUTO, aggregation=_AGG_NONE):
    """``get_variable`` for a non-trainable variable in LOCAL_VARIABLES."""
    collections = list(collections or []) + [ops.GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        caching_device=caching_device, partitioner=partitioner,
                        validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint,
                        synchronization=synchronization, aggregation=aggregation)


def variable(initial_value=None, trainable=None, collections=None, validate_shape=True,
             caching_device=None, name=None, dtype=None, constraint=None, use_resource=None,
             synchronization=None, aggregation=None):
    """TF's ``variable_scope.variable``: a ``tf.Variable`` (through any creator scopes)."""
    return variables.Variable(
        initial_value=initial_value, trainable=trainable, collections=collections,
        validate_shape=validate_shape, caching_device=caching_device, name=name, dtype=dtype,
        constraint=constraint, use_resource=use_resource, synchronization=synchronization,
        aggregation=aggregation)


def _wrap_custom_getter(custom_getter, old_getter):
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped


class _pure_variable_scope:
    """Enters a variable scope without touching the name scope."""

    def __init__(self, name_or_scope, reuse=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None,
                 old_name_scope=None, dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        self._store = get_variable_scope_store()
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            scope = VariableScope(
                name_or_scope.reuse if not reuse else reuse, name=self._new_name,
                initializer=name_or_scope.initializer, regularizer=name_or_scope.regularizer,
                caching_device=name_or_scope.caching_device, partitioner=name_or_scope.partitioner,
                dtype=name_or_scope.dtype, custom_getter=name_or_scope.custom_getter,
                name_scope=name_or_scope.original_name_scope,
                # as TF 1.15: a scope's constraint is only the one given to this call (never
                # the re-entered scope's or the enclosing scope's)
                use_resource=name_or_scope.use_resource, constraint=constraint,
            )
            self._apply_overrides(scope)
            self._cached_scope = scope

    def _apply_overrides(self, scope):
        if self._initializer is not None:
            scope.set_initializer(self._initializer)
        if self._regularizer is not None:
            scope.set_regularizer(self._regularizer)
        if self._caching_device is not None:
            scope.set_caching_device(self._caching_device)
        if self._partitioner is not None:
            scope.set_partitioner(self._partitioner)
        if self._custom_getter is not None:
            scope.set_custom_getter(_wrap_custom_getter(self._custom_getter, scope.custom_getter))
        if self._dtype is not None:
            scope.set_dtype(self._dtype)
        if self._use_resource is not None:
            scope.set_use_resource(self._use_resource)
        if self._constraint is not None:
            scope._constraint = self._constraint

    def __enter__(self):
        store = self._store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            store.open_variable_scope(self._new_name)
            self._old_subscopes = dict(store.variable_scopes_count)
            scope = self._cached_scope
        else:
            old = self._old
            self._new_name = f"{old.name}/{self._name_or_scope}" if old.name else (
                self._name_or_scope
            )
            self._reuse = self._reuse or old.reuse  # reuse is inherited by sub-scopes
            name_scope = self._name_or_scope if self._old_name_scope is None else (
                self._old_name_scope
            )
            scope = VariableScope(
                self._reuse, name=self._new_name, initializer=old.initializer,
                regularizer=old.regularizer, caching_device=old.caching_device,
                partitioner=old.partitioner, dtype=old.dtype, use_resource=old.use_resource,
                custom_getter=old.custom_getter, name_scope=name_scope,
                constraint=self._constraint,  # (not inherited, as TF 1.15)
            )
            self._apply_overrides(scope)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._entered = scope
        return scope

    def __exit__(self, *exc):
        store = self._store
        if store.current_scope is not self._entered:
            # a scope left while one opened inside it is still open (``__exit__`` by hand)
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_subscopes
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old
        return False


def no_regularizer(_):
    """The regularizer that adds nothing: turns off a scope's regularizer for a variable."""


def _get_unique_variable_scope(prefix):
    store = get_variable_scope_store()
    current = get_variable_scope()
    name = f"{current.name}/{prefix}" if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    i = 1
    while store.variable_scope_count(f"{name}_{i}") > 0:
        i += 1
    return f"{prefix}_{i}"


class variable_scope:
    """``tf.variable_scope(name_or_scope, default_name=None, values=None, ...)``: a scope for
    ``get_variable`` names and defaults, opening the matching name scope for ops."""

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None,
                 regularizer=None, caching_device=None, partitioner=None, custom_getter=None,
                 reuse=None, dtype=None, use_resource=None, constraint=None,
                 auxiliary_name_scope=True):
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._reuse = reuse
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            # False means "inherit", as None does
            self._reuse = None
        if not (self._reuse is True or self._reuse is None or self._reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if self._values is None:
            self._values = []
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(
                f"The value of auxiliary_name_scope must be boolean, got {auxiliary_name_scope}"
            )
        self._auxiliary_name_scope = auxiliary_name_scope
        self._graph = ops._graph_of(self._values)
        self._graph_ctx = None
        self._name_scope_ctx = None
        self._pure = None

    def _pure_scope(self, name_or_scope, old_name_scope):
        return _pure_variable_scope(
            name_or_scope, reuse=self._reuse, initializer=self._initializer,
            regularizer=self._regularizer, caching_device=self._caching_device,
            partitioner=self._partitioner, custom_getter=self._custom_getter,
            old_name_scope=old_name_scope, dtype=self._dtype, use_resource=self._use_resource,
            constraint=self._constraint,
        )

    def __enter__(self):
        self._graph_ctx = self._graph.as_default()
        self._graph_ctx.__enter__()
        try:
            return self._enter()
        except BaseException:
            self._exit_name_scope(None, None, None)
            self._graph_ctx.__exit__(None, None, None)
            raise

    def _enter(self):
        if self._auxiliary_name_scope:
            current_ns = None
        else:
            ns = ops.get_name_scope()
            current_ns = ops.name_scope(ns + "/" if ns else "")
        if self._name_or_scope is not None:
            if not isinstance(self._name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            if isinstance(self._name_or_scope, str):
                ns_name = self._name_or_scope
            else:
                ns_name = self._name_or_scope.name.split("/")[-1]
            if ns_name or current_ns is not None:
                ns_ctx = current_ns or ops.name_scope(ns_name)
                entered = ns_ctx.__enter__()
                self._name_scope_ctx = ns_ctx
                if isinstance(self._name_or_scope, str):
                    old_name_scope = entered
                else:
                    old_name_scope = self._name_or_scope.original_name_scope
            else:
                old_name_scope = None
            self._pure = self._pure_scope(self._name_or_scope, old_name_scope)
            return self._pure.__enter__()
        if self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        ns_ctx = current_ns or ops.name_scope(self._default_name)
        entered = ns_ctx.__enter__()
        self._name_scope_ctx = ns_ctx
        unique = _get_unique_variable_scope(self._default_name)
        self._pure = self._pure_scope(unique, entered)
        return self._pure.__enter__()

    def _exit_name_scope(self, *exc):
        if self._name_scope_ctx is not None:
            self._name_scope_ctx.__exit__(*exc)
            self._name_scope_ctx = None

    def __exit__(self, *exc):
        if self._pure is not None:
            self._pure.__exit__(*exc)
            self._pure = None
        self._exit_name_scope(*exc)
        self._graph_ctx.__exit__(*exc)
        return False


def variable_op_scope(values, name_or_scope, default_name=None, initializer=None,
                      regularizer=None, caching_device=None, partitioner=None,
                      custom_getter=None, reuse=None, dtype=None, use_resource=None,
                      constraint=None):
    """The 0.x argument order of ``variable_scope`` (values first)."""
    return variable_scope(name_or_scope, default_name=default_name, values=values,
                          initializer=initializer, regularizer=regularizer,
                          caching_device=caching_device, partitioner=partitioner,
                          custom_getter=custom_getter, reuse=reuse, dtype=dtype,
                          use_resource=use_resource, constraint=constraint)


def __getattr__(name):
    # TF's variable_scope module also holds the variable enums; they live beside the other
    # TF 1.x names, which import this module, so they are looked up on first use
    if name in ("VariableSynchronization", "VariableAggregation"):
        from tideflow.ops import tf1_misc_ops

        return getattr(tf1_misc_ops, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
