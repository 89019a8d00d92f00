"""``tf.keras.backend``: the Keras backend of TF 1.x in graph mode.

A default session is made lazily on the default graph (``get_session``); the variables Keras
made (layers' weights, ``variable``) are initialized the first time a session is asked for and
they are not yet initialized there, as TF does. The learning phase is a boolean
``placeholder_with_default(False)`` per graph, fed True while training.
"""

import json
import os
import re
import threading
import weakref

import numpy as np

import tideflow as tf
from tideflow.framework import dtypes, ops
from tideflow.ops.layers_base import layer_name_uids

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"


class _ThreadSession(threading.local):
    # per thread, as TF 1.x Keras's: a thread that did not set_session (or enter a default
    # session) gets a session of its own, on its own default graph
    session = None


_SESSION = _ThreadSession()
_MANUAL_VAR_INIT = [False]
# per graph (an attribute of the graph, so that it goes with it: the tensors it holds refer to
# their graph, which a WeakKeyDictionary entry would keep alive forever): the learning phase
# placeholder, a value set by set_learning_phase, layer-name uids, the variables made by Keras,
# and the Keras history of symbolic tensors


class _GraphState:
    def __init__(self):
        self.learning_phase = None
        self.learning_phase_value = None
        self.uids = {}
        self.variables = []
        self.pending = []  # Keras variables not yet checked for initialization
        self.history = {}
        self.masks = {}


def _state_graph(graph=None):
    """The graph whose Keras state ``graph`` uses: a cond branch or loop body shares its
    enclosing graph's (TF 1.x builds those bodies in the graph itself)."""
    graph = graph if graph is not None else ops.get_default_graph()
    while getattr(graph, "control_flow_body", False):
        graph = graph.outer_graph
    return graph


def _state(graph=None):
    graph = _state_graph(graph)
    st = graph.__dict__.get("_keras_state")
    if st is None:
        st = graph.__dict__["_keras_state"] = _GraphState()
    return st


def _keras_history(tensor):
    st = tensor.graph.__dict__.get("_keras_state")
    return None if st is None else st.history.get(tensor)


ops.KERAS_HISTORY_LOOKUP[0] = _keras_history  # Tensor._keras_history, as TF 1.x sets it


# -- configuration -------------------------------------------------------------------------------


def floatx():
    """The default float type as a string (``'float32'``)."""
    return _FLOATX


def set_floatx(value):
    global _FLOATX
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value}")
    _FLOATX = str(value)


def epsilon():
    """The fuzz factor used in numeric expressions (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = float(value)


def image_data_format():
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT = str(data_format)


def cast_to_floatx(x):
    return np.asarray(x, dtype=_FLOATX)


def get_uid(prefix=""):
    """1, 2, 3... per ``prefix`` in the default graph."""
    uids = _state().uids
    uids[prefix] = uids.get(prefix, 0) + 1
    return uids[prefix]


def reset_uids():
    _state().uids.clear()
    layer_name_uids(_state_graph()).clear()


def unique_object_name(base):
    """``base``, ``base_1``, ``base_2``... per graph (Keras numbers layer names from 0). As
    TF 1.15 they count apart from ``get_uid(base)``'s, with tf.layers' names (one-based)."""
    uids = layer_name_uids(_state_graph())
    n = uids.get(base, 0)
    uids[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


# -- sessions ------------------------------------------------------------------------------------


def get_graph():
    return ops.get_default_graph()


def _track_variable(v):
    st = _state(v.graph)
    st.variables.append(v)
    st.pending.append(v)
    return v


def track_variable(v):
    """Has the Keras session initialize ``v`` (as TF 1.x's ``backend.track_variable``)."""
    _track_variable(v)


def manual_variable_initialization(value):
    _MANUAL_VAR_INIT[0] = bool(value)


def _initialize_variables(session):
    st = _state(session.graph)
    if not st.pending:
        return
    candidates = [v for v in st.pending if not getattr(v, "_keras_initialized", False)]
    st.pending = []
    if not candidates:
        return
    flags = session.run([tf.is_variable_initialized(v) for v in candidates])
    for v in candidates:
        v._keras_initialized = True
    todo = [v for v, ok in zip(candidates, flags) if not ok]
    if todo:  # (grouped in an 'init' NoOp, as TF's)
        session.run(tf.variables_initializer(todo))


def _graph_of(op_input_list):
    for x in op_input_list:
        graph = getattr(x, "graph", None)
        if isinstance(graph, ops.Graph):
            return graph
    return ops.get_default_graph()


def _default_session_config():
    """The ConfigProto of the session Keras makes, as TF 1.15's: soft placement (a model built
    under a strategy of absent devices runs), over the process's logical CPUs."""
    from tideflow import config as process_config

    config = tf.ConfigProto(allow_soft_placement=True)
    cpus = process_config._logical_cpu_count()
    if cpus:
        config.device_count["CPU"] = cpus
    return config


def get_session(op_input_list=()):
    """The session Keras uses: the default session if one is entered, else one made (once) on
    the graph of ``op_input_list`` (the default graph when it holds no graph elements), so
    reading a Keras variable from inside another graph's ``as_default()`` uses its session.
    Keras variables not yet initialized in it are initialized."""
    default = ops.get_default_session()
    if default is not None:
        session = default
    else:
        session = _SESSION.session
        graph = _graph_of(op_input_list)
        if session is None or session.graph is not graph or getattr(
                session, "_closed", False):
            session = tf.Session(graph=graph, config=_default_session_config())
            _SESSION.session = session
    if not _MANUAL_VAR_INIT[0]:
        _initialize_variables(session)
    return session


def _run(session, fetches, feed_dict, **kwargs):
    """``session.run`` as TF 1.x Keras's callables run: a fed or fetched tensor of another
    graph than the session's (a thread's own session on its own graph) is the
    InvalidArgumentError of TF's callable, not a plain run's error."""
    for t in list(feed_dict) + list(fetches):
        graph = getattr(t, "graph", None)
        if isinstance(t, ops.Tensor) and graph is not session.graph:
            raise tf.errors.InvalidArgumentError(
                None, None, f"Tensor {t.name}, specified in either feed_devices or "
                "fetch_devices was not found in the Graph")
    try:
        return session.run(fetches, feed_dict=feed_dict, **kwargs)
    except tf.errors.OpError as e:
        _as_callable_error(e)
        raise


# a node as a session's error names it, and as TF's runtime did before the session's rewrite
_NODE_DEFINED_AT = re.compile(r"\[\[node (\S+) \(defined at [^)\n]*\) \]\]")


def _as_callable_error(e):
    """``e`` as TF 1.15's Keras callables (``Session._make_callable_from_options``) raise it:
    the runtime's words, the node as "[[{{node X}}]]" and no op (so str() shows no stack),
    where ``Session.run`` names the node where it was defined and shows the op's stack."""
    e._message = _NODE_DEFINED_AT.sub(r"[[{{node \1}}]]", e._message)
    e._op = None
    e._node_def = None


def set_session(session):
    """Makes ``session`` the one Keras uses."""
    _SESSION.session = session


def clear_session():
    """Resets the default graph and forgets the Keras session, uids and learning phase."""
    if _SESSION.session is not None and not getattr(_SESSION.session, "_closed", False):
        _SESSION.session.close()
    _SESSION.session = None
    tf.reset_default_graph()
    symbolic_learning_phase()  # (as TF 1.15: the new graph's first ops)


def in_multi_worker_mode():
    """Whether ``TF_CONFIG`` describes a cluster without a ``master`` job (multi-worker
    training), as TF 1.x's Keras asks before checkpointing."""
    config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    return bool(config) and "master" not in config.get("cluster", {})


# -- learning phase ------------------------------------------------------------------------------


def learning_phase():
    """The learning phase flag: a bool tensor (False unless fed), or the int set with
    ``set_learning_phase``."""
    st = _state()
    if st.learning_phase_value is not None:
        return st.learning_phase_value
    return symbolic_learning_phase()


def track_tf_optimizer(tf_optimizer):
    """Notes a TFOptimizer of the current graph (TF 1.x keeps a weak set per graph; tideflow's
    Keras session initializes the variables it makes when it trains)."""
    _state().__dict__.setdefault("tf_optimizers", weakref.WeakSet()).add(tf_optimizer)


def symbolic_learning_phase():
    """The learning phase placeholder of the current graph (whatever value was set with
    ``set_learning_phase``): ``keras_learning_phase``, False unless fed."""
    st = _state()
    if st.learning_phase is None:
        with _state_graph().as_default(), ops.name_scope(""):
            st.learning_phase = tf.placeholder_with_default(False, shape=(),
                                                            name="keras_learning_phase")
    return st.learning_phase


def _learning_phase_placeholder():
    st = _state()
    if st.learning_phase_value is not None:
        return None
    return learning_phase()


def set_learning_phase(value):
    """Fixes the learning phase to 0 (test) or 1 (train)."""
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _state().learning_phase_value = int(value)


def in_train_phase(x, alt, training=None):
    if training is None:
        training = learning_phase()
    if training is True or (isinstance(training, int) and training == 1):
        return x() if callable(x) else x
    if training is False or (isinstance(training, int) and training == 0):
        return alt() if callable(alt) else alt
    return switch(training, x, alt)


def in_test_phase(x, alt, training=None):
    return in_train_phase(alt, x, training=training)


def switch(condition, then_expression, else_expression):
    """A cond on a scalar (or unknown-rank) condition; TF 1.15's elementwise select, the
    condition tiled up to the expressions' shape, on one of higher rank."""
    if condition.dtype != dtypes.bool:
        condition = tf.cast(condition, "bool")
    cond_ndim = ndim(condition)
    if not cond_ndim:
        t = then_expression if callable(then_expression) else (lambda: then_expression)
        e = else_expression if callable(else_expression) else (lambda: else_expression)
        return tf.cond(condition, t, e)
    if callable(then_expression):
        then_expression = then_expression()
    if callable(else_expression):
        else_expression = else_expression()
    expr_ndim = ndim(then_expression)
    if cond_ndim > expr_ndim:
        raise ValueError(f"Rank of `condition` should be less than or equal to rank of "
                         f"`then_expression` and `else_expression`. ndim(condition)="
                         f"{cond_ndim}, ndim(then_expression)={expr_ndim}")
    if cond_ndim > 1:
        cond_shape = tf.concat([tf.shape(condition), [1] * (expr_ndim - cond_ndim)], axis=0)
        condition = tf.reshape(condition, cond_shape)
        expr_shape = tf.shape(then_expression)
        tile_shape = tf.where(expr_shape - cond_shape > 0, expr_shape,
                              tf.ones_like(expr_shape))
        condition = tf.tile(condition, tile_shape)
    return tf.where(condition, then_expression, else_expression)


# -- tensors and variables -----------------------------------------------------------------------


def _dtype(dtype):
    return dtypes.as_dtype(dtype or _FLOATX)


def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None, ragged=False):
    """A placeholder of ``shape`` (or of rank ``ndim`` with unknown sizes)."""
    if ragged:  # ragged in its last unknown dimension past the batch, as TF 1.15's
        if shape is None:
            raise ValueError("A ragged placeholder needs a shape")
        shape = tuple(shape)
        unknown = [i for i in range(1, len(shape)) if shape[i] is None]
        rank = unknown[-1] if unknown else 0
        return tf.ragged.placeholder(_dtype(dtype), rank, list(shape[rank + 1:]), name=name)
    if sparse:  # TF 1.x: a SparseTensor placeholder (its values, indices and shape fed)
        if shape is None and ndim is not None:
            shape = (None,) * ndim
        return tf.sparse_placeholder(_dtype(dtype), shape=shape, name=name)
    if shape is None and ndim is not None:
        shape = (None,) * ndim
    return tf.placeholder(_dtype(dtype), shape=shape, name=name)


def is_placeholder(x):
    return getattr(x, "op", None) is not None and x.op.type in ("Placeholder",
                                                               "PlaceholderWithDefault")


def variable(value, dtype=None, name=None, constraint=None):
    """A variable holding ``value`` (initialized when the Keras session is next asked for)."""
    if hasattr(value, "tocoo"):  # a SciPy sparse matrix: a SparseTensor, as TF
        coo = value.tocoo()
        indices = np.stack([coo.row, coo.col], axis=1).astype(np.int64)
        return tf.SparseTensor(indices=indices,
                               values=coo.data.astype(_dtype(dtype).as_numpy_dtype),
                               dense_shape=coo.shape)
    if isinstance(value, ops.Tensor):  # an initial value computed in the graph, as TF
        v = tf.Variable(tf.cast(value, _dtype(dtype)), name=name, constraint=constraint,
                        use_resource=True)  # as TF 1.15's: a resource variable
        v._keras_shape = tuple(value.get_shape().as_list())
        return _track_variable(v)
    value = np.asarray(value, dtype=_dtype(dtype).as_numpy_dtype)
    v = tf.Variable(value, dtype=_dtype(dtype), name=name, constraint=constraint,
                    use_resource=True)
    v._keras_shape = value.shape
    return _track_variable(v)


def constant(value, dtype=None, shape=None, name=None):
    return tf.constant(value, dtype=_dtype(dtype), shape=shape, name=name)


def is_keras_tensor(x):
    if not isinstance(x, (ops.Tensor, tf.Variable)):
        raise ValueError(f"Unexpectedly found an instance of type `{type(x)}`. Expected a "  # noqa: TRY004
                         "symbolic tensor instance.")
    return isinstance(x, ops.Tensor) and x in _state(x.graph).history


def is_tensor(x):
    return isinstance(x, (ops.Tensor, tf.Variable))


def zeros(shape, dtype=None, name=None):
    return variable(np.zeros(shape), dtype=dtype, name=name)


def ones(shape, dtype=None, name=None):
    return variable(np.ones(shape), dtype=dtype, name=name)


def eye(size, dtype=None, name=None):
    return variable(np.eye(size), dtype=dtype, name=name)


def zeros_like(x, dtype=None, name=None):
    return tf.zeros_like(x, dtype=dtype, name=name)


def ones_like(x, dtype=None, name=None):
    return tf.ones_like(x, dtype=dtype, name=name)


def identity(x, name=None):
    return tf.identity(x, name=name)


def _random_variable(initializer, a, b, shape, dtype, name, seed):
    """As TF 1.15: a variable initialized by TF's ``initializer(a, b)`` (its seed from NumPy's
    generator when none is given)."""
    dtype = floatx() if dtype is None else dtype
    if seed is None:
        seed = np.random.randint(10e8)
    value = initializer(a, b, dtype=tf.as_dtype(dtype), seed=seed)(shape)
    return variable(value, dtype=dtype, name=name)


def random_uniform_variable(shape, low, high, dtype=None, name=None, seed=None):
    """A variable of uniform values in [low, high) (TF's uniform initializer)."""
    return _random_variable(tf.random_uniform_initializer, low, high, shape, dtype, name, seed)


def random_normal_variable(shape, mean, scale, dtype=None, name=None, seed=None):
    """A variable of normal values (TF's normal initializer)."""
    return _random_variable(tf.random_normal_initializer, mean, scale, shape, dtype, name, seed)


def _np_seed(seed):
    """As TF 1.15's Keras: a random op without a seed takes one from NumPy's generator (so
    np.random.seed makes it repeat, and the graph's op count does not enter)."""
    return np.random.randint(10e6) if seed is None else seed


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return tf.random_uniform(shape, minval=minval, maxval=maxval, dtype=_dtype(dtype),
                             seed=_np_seed(seed))


def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return tf.random_normal(shape, mean=mean, stddev=stddev, dtype=_dtype(dtype),
                            seed=_np_seed(seed))


def random_binomial(shape, p=0.0, dtype=None, seed=None):
    dtype = _dtype(dtype)
    return tf.where(tf.random_uniform(shape, dtype=dtype, seed=_np_seed(seed)) <= p,
                    tf.ones(shape, dtype=dtype), tf.zeros(shape, dtype=dtype))


def count_params(x):
    return int(np.prod(x.get_shape().as_list()))


def int_shape(x):
    """The static shape as a tuple of ints or None (None when the rank is unknown)."""
    try:
        shape = x.get_shape()
    except AttributeError:
        return tuple(np.shape(x))
    if shape.ndims is None:
        return None
    return tuple(shape.as_list())


def shape(x):
    return tf.shape(x)


def ndim(x):
    return x.get_shape().ndims


def dtype(x):
    return x.dtype.base_dtype.name


def eval(x):
    return get_value(x)


def get_value(x):
    """The value of a variable (or tensor) as a NumPy array."""
    if not isinstance(x, (ops.Tensor, tf.Variable)):
        return np.asarray(x)
    return get_session((x,)).run(x)


def batch_get_value(tensors):
    if not tensors:
        return []
    tensors = list(tensors)
    return get_session(tensors).run(tensors)


def _assign_placeholder(x):
    cache = getattr(x, "_keras_assign", None)
    if cache is None:
        with x.graph.as_default():
            ph = tf.placeholder(x.dtype.base_dtype, shape=x.get_shape())
            op = tf.assign(x, ph)
        cache = x._keras_assign = (ph, op)
    return cache


def set_value(x, value):
    batch_set_value([(x, value)])


def batch_set_value(tuples):
    """Assigns each ``(variable, value)`` in one session run (placeholders are made once per
    variable)."""
    tuples = list(tuples)
    if not tuples:
        return
    session = get_session([x for x, _ in tuples])
    feed, fetches = {}, []
    for x, value in tuples:
        value = np.asarray(value, dtype=x.dtype.base_dtype.as_numpy_dtype)
        if tuple(value.shape) != tuple(x.get_shape().as_list()):
            raise ValueError(f"Cannot assign a value of shape {value.shape} to variable "
                             f"{x.name} of shape {tuple(x.get_shape().as_list())}.")
        ph, op = _assign_placeholder(x)
        feed[ph] = value
        fetches.append(op)
        x._keras_initialized = True
    session.run(fetches, feed_dict=feed)


def update(x, new_x):
    return tf.assign(x, new_x)


def update_add(x, increment):
    return tf.assign_add(x, increment)


def update_sub(x, decrement):
    return tf.assign_sub(x, decrement)


def moving_average_update(x, value, momentum):
    """TF 1.15's: ``assign_moving_average`` zero-debiased (its ``biased`` and ``local_step``
    variables beside ``x``)."""
    from tideflow.train import moving_averages

    return moving_averages.assign_moving_average(x, value, momentum, zero_debias=True)


class Function:
    """``K.function``: runs ``outputs`` (any nest: a tensor, a list, a dict) and ``updates``
    with ``inputs`` (a list, a dict by key, or one tensor) fed; as TF 1.15, ``fetches`` run
    alongside, ``feed_dict`` adds feeds (read at each call), ``options``/``run_metadata`` go
    to ``Session.run``, and a None value leaves a ``placeholder_with_default`` unfed. Values
    are paired with the inputs in order: extra values are ignored, as TF's (a model's
    ``train_function`` inputs end with the learning phase)."""

    def __init__(self, inputs, outputs, updates=None, name=None, **session_kwargs):
        self._input_keys = None
        if isinstance(inputs, dict):
            self._input_keys = list(inputs)
            inputs = [inputs[k] for k in self._input_keys]
        self.inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        self._outputs_structure = outputs
        self._single = not isinstance(outputs, (list, tuple, dict))
        self.outputs = tf.nest.flatten(outputs) if not self._single else [outputs]
        # (as TF 1.15: a variable is fetched through an identity of it)
        self.outputs = [tf.identity(o) if isinstance(o, tf.Variable) else o
                        for o in self.outputs]
        # as TF 1.15: the updates (made here) run after the first output, and are grouped
        # into 'group_deps' even when there are none
        first = self.outputs[:1]
        if first and isinstance(first[0], tf.SparseTensor):
            first = [first[0].indices]  # (TF's first component of the flattened outputs)
        with ops.control_dependencies(first):
            ops_list = []
            for u in updates or []:
                if isinstance(u, tuple):
                    u = tf.assign(u[0], u[1])
                ops_list.append(u)
            self.updates_op = tf.group(*ops_list)
        self.name = name
        self.fetches = list(session_kwargs.pop("fetches", None) or [])
        self.feed_dict = session_kwargs.pop("feed_dict", None)
        self.session_kwargs = session_kwargs

    def __call__(self, inputs):
        if self._input_keys is not None and isinstance(inputs, dict):
            inputs = [inputs[k] for k in self._input_keys]
        if not isinstance(inputs, (list, tuple)):
            inputs = [inputs]
        feed = dict(self.feed_dict) if self.feed_dict else {}
        for ph, value in zip(self.inputs, inputs):
            if value is None and getattr(ph, "op", None) is not None and \
                    ph.op.type == "PlaceholderWithDefault":
                continue  # its default value
            feed[ph] = value
        symbolic = [ph for ph, value in feed.items() if isinstance(value, (ops.Tensor,
                                                                           tf.Variable))]
        if symbolic:  # tensors given as input values (as TF 1.x allows): their values
            values = get_session().run([feed[ph] for ph in symbolic])
            feed.update(zip(symbolic, values))
        fetches = list(self.outputs)
        if self.updates_op is not None:
            fetches.append(self.updates_op)
        fetches += self.fetches
        out = _run(get_session(), fetches, feed, **self.session_kwargs)
        out = out[:len(self.outputs)]
        if self._single:
            return out[0]
        if isinstance(self._outputs_structure, dict):
            return tf.nest.pack_sequence_as(self._outputs_structure, out)
        return out  # the structure of ``outputs``, as TF


def function(inputs, outputs, updates=None, name=None, **kwargs):
    return Function(inputs, outputs, updates=updates, name=name, **kwargs)


def gradients(loss, variables):
    return tf.gradients(loss, variables)


def stop_gradient(variables):
    if isinstance(variables, (list, tuple)):
        return [tf.stop_gradient(v) for v in variables]
    return tf.stop_gradient(variables)


# TF 1.15's backend.name_scope is tf.name_scope itself (name, default_name, values)
name_scope = ops.name_scope


# -- math ----------------------------------------------------------------------------------------


def cast(x, dtype):
    return tf.cast(x, dtype)


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def sum(x, axis=None, keepdims=False):
    return tf.reduce_sum(x, _axis(axis), keepdims=keepdims)


def prod(x, axis=None, keepdims=False):
    return tf.reduce_prod(x, _axis(axis), keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    if x.dtype.base_dtype == dtypes.bool:
        x = tf.cast(x, _FLOATX)
    return tf.reduce_mean(x, _axis(axis), keepdims=keepdims)


def max(x, axis=None, keepdims=False):
    return tf.reduce_max(x, _axis(axis), keepdims=keepdims)


def min(x, axis=None, keepdims=False):
    return tf.reduce_min(x, _axis(axis), keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    if x.dtype.base_dtype == dtypes.bool:
        x = tf.cast(x, _FLOATX)
    return tf.math.reduce_variance(x, axis=_axis(axis), keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    if x.dtype.base_dtype == dtypes.bool:
        x = tf.cast(x, _FLOATX)
    return tf.math.reduce_std(x, axis=_axis(axis), keepdims=keepdims)


def any(x, axis=None, keepdims=False):
    return tf.reduce_any(tf.cast(x, "bool"), _axis(axis), keepdims=keepdims)


def all(x, axis=None, keepdims=False):
    return tf.reduce_all(tf.cast(x, "bool"), _axis(axis), keepdims=keepdims)


def argmax(x, axis=-1):
    return tf.argmax(x, axis)


def argmin(x, axis=-1):
    return tf.argmin(x, axis)


def logsumexp(x, axis=None, keepdims=False):
    return tf.reduce_logsumexp(x, _axis(axis), keepdims=keepdims)


def cumsum(x, axis=0):
    return tf.cumsum(x, axis=axis)


def square(x):
    return tf.square(x)


def abs(x):
    return tf.abs(x)


def sqrt(x):
    # TF 1.15 clips to [0, inf] (a Minimum and a Maximum) before the root
    zero = _constant_to_tensor(0.0, x.dtype.base_dtype)
    inf = _constant_to_tensor(np.inf, x.dtype.base_dtype)
    return tf.sqrt(tf.clip_by_value(x, zero, inf))


def exp(x):
    return tf.exp(x)


def log(x):
    return tf.log(x)


def pow(x, a):
    return tf.pow(x, a)


def round(x):
    return tf.round(x)


def sign(x):
    return tf.sign(x)


def sin(x):
    return tf.sin(x)


def cos(x):
    return tf.cos(x)


def clip(x, min_value, max_value):
    """Clips ``x`` to [min_value, max_value] (max_value < min_value becomes min_value)."""
    if max_value is not None and min_value is not None and max_value < min_value:
        max_value = min_value
    if max_value is None:
        max_value = np.inf
    if min_value is None:
        min_value = -np.inf
    x = ops.convert_to_tensor(x)
    lo = _constant_to_tensor(min_value, x.dtype.base_dtype)
    hi = _constant_to_tensor(max_value, x.dtype.base_dtype)
    return tf.clip_by_value(x, lo, hi)


def _constant_to_tensor(x, dtype):
    """A number as a constant of ``dtype`` (a ``Const``, as TF's backend makes it); a tensor
    cast to it."""
    if isinstance(x, (ops.Tensor, tf.Variable)):
        return tf.cast(x, dtype)
    return tf.constant(x, dtype)


def equal(x, y):
    return tf.equal(x, y)


def not_equal(x, y):
    return tf.not_equal(x, y)


def greater(x, y):
    return tf.greater(x, y)


def greater_equal(x, y):
    return tf.greater_equal(x, y)


def less(x, y):
    return tf.less(x, y)


def less_equal(x, y):
    return tf.less_equal(x, y)


def maximum(x, y):
    return tf.maximum(x, y)


def minimum(x, y):
    return tf.minimum(x, y)


def dot(x, y):
    """Matrix product; for rank > 2 the last axis of ``x`` meets the second-to-last of ``y``."""
    x_rank, y_rank = ndim(x), ndim(y)
    if x_rank is not None and (x_rank > 2 or (y_rank or 0) > 2):
        x_shape = [d if d is not None else s for d, s in zip(int_shape(x),
                                                             tf.unstack(tf.shape(x)))]
        y_shape = [d if d is not None else s for d, s in zip(int_shape(y),
                                                             tf.unstack(tf.shape(y)))]
        perm = list(range(y_rank))
        perm = [perm[-2]] + perm[:-2] + [perm[-1]]
        xr = tf.reshape(x, [-1, x_shape[-1]])
        yr = tf.reshape(tf.transpose(y, perm), [y_shape[-2], -1])
        out = tf.matmul(xr, yr)
        return tf.reshape(out, x_shape[:-1] + y_shape[:-2] + y_shape[-1:])
    return tf.matmul(x, y)


def batch_dot(x, y, axes=None):
    """Batched dot product over ``axes`` ([axis of x, axis of y]), as TF 1.15's: the input of
    lower rank is padded with trailing 1s (a Reshape) for one MatMul, squeezed after."""
    if isinstance(axes, int):
        axes = (axes, axes)
    x_ndim, y_ndim = ndim(x), ndim(y)
    if axes is None:
        axes = [x_ndim - 1, y_ndim - 2]
    diff = x_ndim - y_ndim if x_ndim > y_ndim else y_ndim - x_ndim
    if x_ndim > y_ndim:
        y = tf.reshape(y, tf.concat([tf.shape(y), [1] * diff], axis=0))
    elif y_ndim > x_ndim:
        x = tf.reshape(x, tf.concat([tf.shape(x), [1] * diff], axis=0))
    if ndim(x) == 2 and ndim(y) == 2:  # (TF 1.15's ops: Mul, Sum, then ExpandDims)
        if axes[0] == axes[1]:
            out = tf.reduce_sum(tf.multiply(x, y), axes[0])
        else:
            out = tf.reduce_sum(tf.multiply(tf.transpose(x, [1, 0]), y), axes[1])
    else:
        # (TF compares the axes as given: a negative one is no last axis)
        adj_x = None if axes[0] == ndim(x) - 1 else True
        adj_y = True if axes[1] == ndim(y) - 1 else None
        out = tf.matmul(x, y, adjoint_a=adj_x, adjoint_b=adj_y)
    if diff:
        idx = x_ndim + y_ndim - 3 if x_ndim > y_ndim else x_ndim - 1
        out = tf.squeeze(out, list(range(idx, idx + diff)))
    if ndim(out) == 1:
        out = tf.expand_dims(out, 1)
    return out


def transpose(x):
    return tf.transpose(x)


def gather(reference, indices):
    return tf.gather(reference, indices)


def concatenate(tensors, axis=-1):
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    return tf.concat(list(tensors), axis)


def reshape(x, shape):
    return tf.reshape(x, shape)


def permute_dimensions(x, pattern):
    return tf.transpose(x, list(pattern))


def repeat_elements(x, rep, axis):
    """Each entry of ``x`` along ``axis`` repeated ``rep`` times (np.repeat), also when that
    axis's size is known only at run time."""
    x = ops.convert_to_tensor(x)
    dims = x.get_shape().as_list()
    rank = len(dims)
    axis = axis % rank
    if dims[axis] is not None:
        parts = tf.split(x, dims[axis], axis=axis)
        return tf.concat([p for p in parts for _ in range(rep)], axis)
    # a new axis after ``axis`` tiled ``rep`` times, then merged into it
    multiples = [1] * (rank + 1)
    multiples[axis + 1] = rep
    tiled = tf.tile(tf.expand_dims(x, axis + 1), multiples)
    scale = np.ones(rank, np.int32)
    scale[axis] = rep
    out = tf.reshape(tiled, tf.shape(x) * scale)
    out.set_shape(dims)
    return out


def repeat(x, n):
    """[batch, dim] -> [batch, n, dim]."""
    x = tf.expand_dims(x, 1)
    return tf.tile(x, tf.stack([1, n, 1]))  # (TF's ops: the multiples stacked)


def tile(x, n):
    if isinstance(n, int):
        n = [n]
    return tf.tile(x, n)


def flatten(x):
    return tf.reshape(x, [-1])


def batch_flatten(x):
    return tf.reshape(x, tf.stack([-1, tf.reduce_prod(tf.shape(x)[1:])]))


def expand_dims(x, axis=-1):
    return tf.expand_dims(x, axis)


def squeeze(x, axis):
    return tf.squeeze(x, [axis])


def stack(x, axis=0):
    return tf.stack(x, axis=axis)


def unstack(x, axis=0):
    return tf.unstack(x, axis=axis)


def one_hot(indices, num_classes):
    return tf.one_hot(indices, depth=num_classes, axis=-1)


def reverse(x, axes):
    if isinstance(axes, int):
        axes = [axes]
    return tf.reverse(x, axes)


def arange(start, stop=None, step=1, dtype="int32"):
    if stop is None and start < 0:
        start = 0
    out = tf.range(start, limit=stop, delta=step)
    return tf.cast(out, dtype) if dtype != "int32" else out


def bias_add(x, bias, data_format=None):
    data_format = data_format or _IMAGE_DATA_FORMAT
    if data_format == "channels_first" and ndim(x) > 2:
        return tf.nn.bias_add(x, bias, data_format="NCHW") if ndim(x) == 4 else \
            x + tf.reshape(bias, [1, -1] + [1] * (ndim(x) - 2))
    return tf.nn.bias_add(x, bias)


def l2_normalize(x, axis=None):
    return tf.nn.l2_normalize(x, axis=axis)


# -- activations and losses ----------------------------------------------------------------------


def relu(x, alpha=0.0, max_value=None, threshold=0):
    """max(x, 0), with ``alpha`` slope below ``threshold`` and a cap at ``max_value``."""
    x = ops.convert_to_tensor(x)
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return tf.nn.leaky_relu(x, alpha=alpha)
        if threshold != 0:
            negative_part = tf.nn.relu(-x + threshold)
        else:
            negative_part = tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = x * tf.cast(tf.greater(x, threshold), x.dtype.base_dtype)
    elif max_value == 6:
        x = tf.nn.relu6(x)
        clip_max = False
    else:
        x = tf.nn.relu(x)
    if clip_max:
        # (TF 1.15's order: the cap's Const before the zero's)
        max_value = _constant_to_tensor(max_value, x.dtype.base_dtype)
        x = tf.clip_by_value(x, _constant_to_tensor(0., x.dtype.base_dtype), max_value)
    if alpha != 0.0:
        x = x - ops.convert_to_tensor(alpha, x.dtype.base_dtype) * negative_part
    return x


def elu(x, alpha=1.0):
    res = tf.nn.elu(x)
    if alpha == 1:
        return res
    return tf.where(x > 0, res, alpha * res)


def softmax(x, axis=-1):
    return tf.nn.softmax(x, axis=axis)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return tf.nn.softsign(x)


def sigmoid(x):
    return tf.nn.sigmoid(x)


def hard_sigmoid(x):
    x = 0.2 * x + 0.5
    return clip(x, 0.0, 1.0)


def tanh(x):
    return tf.nn.tanh(x)


def dropout(x, level, noise_shape=None, seed=None):
    return tf.nn.dropout(x, rate=level, noise_shape=noise_shape, seed=_np_seed(seed))


def _eps(x):
    return tf.constant(_EPSILON, x.dtype.base_dtype)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of ``output`` (probabilities, or logits when ``from_logits``) against
    one-hot ``target``; a Softmax output is read back as its logits, as TF does (with TF
    1.15's ops: the probabilities renormalized and clipped to [eps, 1 - eps])."""
    target = ops.convert_to_tensor(target)
    output = ops.convert_to_tensor(output)
    if not from_logits:
        if isinstance(output, tf.Variable) or output.op.type != "Softmax":
            output = output / tf.reduce_sum(output, axis, True)
            eps = _constant_to_tensor(_EPSILON, output.dtype.base_dtype)
            output = tf.clip_by_value(output, eps, 1.0 - eps)
            return -tf.reduce_sum(tf.cast(target, output.dtype) * tf.log(output), axis)
        output = output.op.inputs[0]
    return tf.nn.softmax_cross_entropy_with_logits_v2(labels=target, logits=output, axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of ``output`` against integer class ids ``target`` (TF 1.15's ops: the
    ids flattened and the scores made [-1, classes] when the ranks ask for it)."""
    target = ops.convert_to_tensor(target)
    output = ops.convert_to_tensor(output)
    if not from_logits:
        if isinstance(output, tf.Variable) or output.op.type != "Softmax":
            eps = _constant_to_tensor(_EPSILON, output.dtype.base_dtype)
            output = tf.log(tf.clip_by_value(output, eps, 1 - eps))
        else:
            output = output.op.inputs[0]
    rank = ndim(output)
    if rank is not None:
        axis %= rank
        if axis != rank - 1:
            perm = [i for i in range(rank) if i != axis] + [axis]
            output = tf.transpose(output, perm=perm)
    elif axis != -1:
        raise ValueError(f"Cannot compute sparse categorical crossentropy with `axis={axis}` "
                         "on an output tensor with unknown rank")
    target = cast(target, "int64")
    output_shape = tf.shape(output)
    target_rank = target.get_shape().ndims
    update_shape = target_rank is not None and rank is not None and target_rank != rank - 1
    if update_shape:
        target = flatten(target)
        output = tf.reshape(output, [-1, output_shape[-1]])
    res = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if update_shape and rank >= 3:
        return tf.reshape(res, output_shape[:-1])
    return res


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy; a Sigmoid output is read back as its logits, as
    TF does (other probabilities clipped to [eps, 1 - eps], TF 1.15's formula)."""
    target = ops.convert_to_tensor(target)
    output = ops.convert_to_tensor(output)
    target = tf.cast(target, output.dtype)  # (no op when it is already)
    if not from_logits:
        if isinstance(output, tf.Variable) or output.op.type != "Sigmoid":
            eps = _constant_to_tensor(_EPSILON, output.dtype.base_dtype)
            output = tf.clip_by_value(output, eps, 1.0 - eps)
            bce = target * tf.log(output + _EPSILON)
            bce += (1 - target) * tf.log(1 - output + _EPSILON)
            return -bce
        output = output.op.inputs[0]
    return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)


def _check_format(data_format):
    data_format = data_format or _IMAGE_DATA_FORMAT
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    return data_format


def _to_channels_last(x, data_format):
    """``x`` with its channels last (as the NHWC kernels take it)."""
    if _check_format(data_format) == "channels_first":
        rank = x.get_shape().ndims
        return tf.transpose(x, [0] + list(range(2, rank)) + [1])
    return x


def _from_channels_last(x, data_format):
    if _check_format(data_format) == "channels_first":
        rank = x.get_shape().ndims
        return tf.transpose(x, [0, rank - 1] + list(range(1, rank - 1)))
    return x


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution; ``padding='causal'`` pads the start by ``dilation * (k - 1)``."""
    x = _to_channels_last(x, data_format)
    dilation = _tuple(dilation_rate, 1)[0]
    if padding == "causal":
        left = dilation * (int(kernel.get_shape()[0]) - 1)
        x = tf.pad(x, [[0, 0], [left, 0], [0, 0]])
        padding = "valid"
    out = tf.nn.convolution(x, kernel, padding=padding.upper(), strides=_tuple(strides, 1),
                            dilation_rate=(dilation,))
    return _from_channels_last(out, data_format)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1)):
    x = _to_channels_last(x, data_format)
    out = tf.nn.conv2d(x, kernel, strides=(1,) + _tuple(strides, 2) + (1,),
                       padding=padding.upper(), dilations=(1,) + _tuple(dilation_rate, 2) + (1,))
    return _from_channels_last(out, data_format)


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    fn = tf.nn.max_pool if pool_mode == "max" else tf.nn.avg_pool
    x = _to_channels_last(x, data_format)
    out = fn(x, (1,) + _tuple(pool_size, 2) + (1,), (1,) + _tuple(strides, 2) + (1,),
             padding.upper())
    return _from_channels_last(out, data_format)


def map_fn(fn, elems, name=None, dtype=None):
    return tf.map_fn(fn, elems, name=name, dtype=dtype)


def print_tensor(x, message=""):
    return tf.Print(x, [x], message)


# -- more of Keras's backend ---------------------------------------------------------------------


class learning_phase_scope:
    """Within the block, the learning phase is ``value`` (0 or 1)."""

    def __init__(self, value):
        if value not in (0, 1):
            raise ValueError("Expected learning phase to be 0 or 1.")
        self.value = value

    def __enter__(self):
        st = _state()
        self.previous = st.learning_phase_value
        st.learning_phase_value = self.value

    def __exit__(self, *exc):
        _state().learning_phase_value = self.previous


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return tf.truncated_normal(shape, mean=mean, stddev=stddev, dtype=_dtype(dtype),
                               seed=_np_seed(seed))


def get_variable_shape(x):
    return int_shape(x)


def is_sparse(tensor):
    return isinstance(tensor, tf.SparseTensor)


def to_dense(tensor):
    return tf.sparse_tensor_to_dense(tensor) if is_sparse(tensor) else tensor


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """``x`` normalized with the statistics (vectors along ``axis``, or broadcastable)."""
    rank = ndim(x)
    if rank is not None and axis % rank != rank - 1:
        shape = [1] * rank
        shape[axis % rank] = -1

        def along(v):
            if v is None or ndim(v) != 1:
                return v
            return tf.reshape(v, shape)

        mean, var, beta, gamma = along(mean), along(var), along(beta), along(gamma)
    return tf.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def normalize_batch_in_training(x, gamma, beta, reduction_axes, epsilon=1e-3):
    """``(normalized, mean, variance)`` of ``x`` over ``reduction_axes``."""
    mean, variance = tf.nn.moments(x, list(reduction_axes), keep_dims=False)
    rank = ndim(x)
    if sorted(reduction_axes) == list(range(rank - 1)):
        return tf.nn.batch_normalization(x, mean, variance, beta, gamma, epsilon), mean, \
            variance
    shape = [1 if i in reduction_axes else tf.shape(x)[i] for i in range(rank)]
    shape = tf.stack(shape)

    def b(v):
        return None if v is None else tf.reshape(v, shape)

    normed = tf.nn.batch_normalization(x, b(mean), b(variance), b(beta), b(gamma), epsilon)
    return normed, mean, variance


def temporal_padding(x, padding=(1, 1)):
    return tf.pad(x, [[0, 0], list(padding), [0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    pads = [list(p) for p in padding]
    if (data_format or _IMAGE_DATA_FORMAT) == "channels_first":
        return tf.pad(x, [[0, 0], [0, 0]] + pads)
    return tf.pad(x, [[0, 0]] + pads + [[0, 0]])


def resize_images(x, height_factor, width_factor, data_format=None,
                  interpolation="nearest"):
    data_format = data_format or _IMAGE_DATA_FORMAT
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError('interpolation should be one of "nearest" or "bilinear".')
    channels_first = data_format == "channels_first"
    if channels_first:
        x = tf.transpose(x, [0, 2, 3, 1])
    shape = tf.shape(x)
    size = tf.stack([shape[1] * height_factor, shape[2] * width_factor])
    if interpolation == "bilinear":
        out = tf.image.resize_bilinear(x, size)
    else:
        out = tf.image.resize_nearest_neighbor(x, size)
    return tf.transpose(out, [0, 3, 1, 2]) if channels_first else out


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """Repeats the depth, height and width entries of a 5-D tensor by the factors."""
    if data_format == "channels_first":
        axes = (2, 3, 4)
    elif data_format == "channels_last":
        axes = (1, 2, 3)
    else:
        raise ValueError("Invalid data_format: " + str(data_format))
    out = x
    for axis, factor in zip(axes, (depth_factor, height_factor, width_factor)):
        out = repeat_elements(out, factor, axis=axis)
    return out


def local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """An unshared-weights convolution: each output position ``p`` (of ``output_shape``)
    multiplies its flattened input patch by ``kernel[p]`` (``kernel``: [positions,
    patch size * channels in, filters]); the patch is flattened in the input's own axis
    order (rows, columns, channels for channels_last)."""
    import itertools

    data_format = data_format or _IMAGE_DATA_FORMAT
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("Unknown data_format: " + str(data_format))
    kernel_shape = int_shape(kernel)
    feature_dim, channels_out = kernel_shape[1], kernel_shape[-1]
    output_shape = tuple(int(d) for d in output_shape)
    ndims = len(output_shape)
    patches = []
    for position in itertools.product(*[range(n) for n in output_shape]):
        index = [slice(None)]
        if data_format == "channels_first":
            index.append(slice(None))
        index.extend(slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d])
                     for d in range(ndims))
        if data_format == "channels_last":
            index.append(slice(None))
        patches.append(tf.reshape(inputs[tuple(index)], (1, -1, feature_dim)))
    out = tf.matmul(tf.concat(patches, 0), kernel)  # [positions, batch, filters]
    out = tf.reshape(out, output_shape + (-1, channels_out))
    if data_format == "channels_first":
        perm = [ndims, ndims + 1] + list(range(ndims))
    else:
        perm = [ndims] + list(range(ndims)) + [ndims + 1]
    return tf.transpose(out, perm)


def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    """``local_conv`` over steps: ``kernel`` [output length, kernel_size * channels,
    filters]."""
    output_shape = (int_shape(kernel)[0],)
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """``local_conv`` over rows and columns: ``kernel`` [rows * cols of the output,
    kernel rows * cols * channels, filters]."""
    return local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format)


def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    """``output_shape`` in ``data_format``'s order, as TF (a None batch size is the input's);
    with ``dilation_rate`` an atrous transposed convolution."""
    if padding not in ("same", "valid"):
        raise ValueError(f"Invalid padding: {padding}")
    if _check_format(data_format) == "channels_first":
        if isinstance(output_shape, (list, tuple)):
            output_shape = (output_shape[0],) + tuple(output_shape[2:]) + (output_shape[1],)
        else:
            output_shape = tf.gather(output_shape, [0, 2, 3, 1])
    x = _to_channels_last(x, data_format)
    static = None
    if isinstance(output_shape, (list, tuple)):
        static = list(output_shape)
        if output_shape[0] is None:
            static[0] = x.get_shape().as_list()[0]
            output_shape = tf.stack([tf.shape(x)[0]] + [int(d) for d in output_shape[1:]])
    if tuple(_tuple(dilation_rate, 2)) == (1, 1):
        out = tf.nn.conv2d_transpose(x, kernel, output_shape,
                                     (1,) + _tuple(strides, 2) + (1,), padding=padding.upper())
    else:
        out = tf.nn.atrous_conv2d_transpose(x, kernel, output_shape,
                                            rate=_tuple(dilation_rate, 2)[0],
                                            padding=padding.upper())
    if static is not None:
        out.set_shape(static)
    return _from_channels_last(out, data_format)


def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    x = _to_channels_last(x, data_format)
    out = tf.nn.depthwise_conv2d(x, depthwise_kernel, (1,) + _tuple(strides, 2) + (1,),
                                 padding.upper(), dilations=_tuple(dilation_rate, 2))
    return _from_channels_last(out, data_format)


def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid",
                     data_format=None, dilation_rate=(1, 1)):
    x = _to_channels_last(x, data_format)
    out = tf.nn.separable_conv2d(x, depthwise_kernel, pointwise_kernel,
                                 (1,) + _tuple(strides, 2) + (1,), padding.upper(),
                                 rate=_tuple(dilation_rate, 2))
    return _from_channels_last(out, data_format)


def _held(mask, new, old):
    """``new`` where the [batch, 1] ``mask`` is 1, else ``old`` (of any rank)."""
    rank = new.get_shape().ndims
    if rank is not None and rank > 2:
        mask = tf.reshape(mask, [-1] + [1] * (rank - 1))
    return mask * new + (1.0 - mask) * old


def _step_size(tensor):
    """A step tensor's size without the batch axis, as a cell's state/output size."""
    dims = int_shape(tensor)[1:]
    return dims[0] if len(dims) == 1 else tf.TensorShape(dims)


class _StepCell:
    """A ``step_function(inputs, states) -> (output, new_states)`` as a cell for
    ``tf.nn.dynamic_rnn`` (with the mask, held states and output at masked steps)."""

    def __init__(self, step_function, state_sizes, output_size, masked, constants):
        self.step_function = step_function
        self.masked = masked
        self.constants = constants or []
        self.state_size = tuple(state_sizes) + ((output_size,) if masked else ())
        self.output_size = output_size

    def __call__(self, inputs, state, scope=None):
        state = list(state)
        if self.masked:
            x, m = inputs
            prev_out, old = state[-1], state[:-1]
        else:
            x, old = inputs, state
        out, new = self.step_function(x, list(old) + list(self.constants))
        new = list(new)
        if self.masked:
            m = tf.cast(m, out.dtype)
            new = [_held(m, n, o) for n, o in zip(new, old)]
            out = _held(m, out, prev_out)
            return out, tuple(new) + (out,)
        return out, tuple(new)


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None,
        unroll=False, input_length=None, time_major=False, zero_output_for_mask=False):
    """Runs ``step_function`` over the time axis of ``inputs`` [batch, time, ...]; returns
    ``(last_output, outputs, new_states)``."""
    x = tf.transpose(inputs, [1, 0] + list(range(2, ndim(inputs)))) if time_major else inputs
    # variables as states: their values (a ref dtype would not match the states computed)
    initial_states = [tf.identity(s) if isinstance(s, tf.Variable) else s
                      for s in initial_states]
    if go_backwards:
        x = tf.reverse(x, [1])
        if mask is not None:
            mask = tf.reverse(mask, [1])
    probe_out, _ = step_function(x[:, 0], list(initial_states) + list(constants or []))
    output_size = _step_size(probe_out)
    state_sizes = [_step_size(s) for s in initial_states]
    cell = _StepCell(step_function, state_sizes, output_size, mask is not None, constants)
    states = tuple(initial_states)
    rnn_inputs = x
    if mask is not None:
        states = states + (tf.zeros_like(probe_out),)
        rnn_inputs = (x, tf.expand_dims(tf.cast(mask, x.dtype.base_dtype), -1))
    outputs, new_states = tf.nn.dynamic_rnn(cell, rnn_inputs, initial_state=states,
                                            scope="keras_rnn")
    new_states = list(new_states)
    last = new_states.pop() if mask is not None else outputs[:, -1]
    if time_major:
        outputs = tf.transpose(outputs, [1, 0] + list(range(2, ndim(outputs))))
    return last, outputs, new_states


def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """CTC loss per batch element: ``y_true`` [batch, max_label] (padded), ``y_pred``
    [batch, time, classes] softmax outputs, the lengths [batch, 1]; returns [batch, 1]."""
    label_length = tf.cast(tf.squeeze(label_length, [-1]), "int32")
    input_length = tf.cast(tf.squeeze(input_length, [-1]), "int32")
    max_len = tf.shape(y_true)[1]
    keep = tf.sequence_mask(label_length, max_len)
    indices = tf.cast(tf.where(keep), "int64")
    values = tf.cast(tf.gather_nd(y_true, indices), "int32")
    labels = tf.SparseTensor(indices, values, tf.cast(tf.shape(y_true), "int64"))
    logits = tf.log(tf.transpose(y_pred, [1, 0, 2]) + epsilon())
    loss = tf.nn.ctc_loss(labels=labels, inputs=logits, sequence_length=input_length)
    return tf.expand_dims(loss, 1)


def ctc_label_dense_to_sparse(labels, label_lengths):
    """The first ``label_lengths[i]`` entries of each row of ``labels`` as a SparseTensor."""
    keep = tf.sequence_mask(tf.cast(label_lengths, "int32"), tf.shape(labels)[1])
    indices = tf.cast(tf.where(keep), "int64")
    values = tf.cast(tf.gather_nd(labels, indices), "int32")
    return tf.SparseTensor(indices, values, tf.cast(tf.shape(labels), "int64"))


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Decodes softmax outputs [batch, time, classes]: ``([dense paths], log_probabilities)``,
    each path [batch, longest decoded] padded with -1 (greedy, or a beam search of
    ``top_paths``), as TF 1.15."""
    logits = tf.log(tf.transpose(y_pred, [1, 0, 2]) + epsilon())
    input_length = tf.cast(input_length, "int32")
    if greedy:
        decoded, log_prob = tf.nn.ctc_greedy_decoder(inputs=logits,
                                                     sequence_length=input_length)
    else:
        decoded, log_prob = tf.nn.ctc_beam_search_decoder(
            inputs=logits, sequence_length=input_length, beam_width=beam_width,
            top_paths=top_paths)
    paths = [tf.sparse_to_dense(st.indices, st.dense_shape, st.values, default_value=-1)
             for st in decoded]
    return paths, log_prob


def backend():
    """The name of the backend: ``'tensorflow'``."""
    return "tensorflow"


def in_top_k(predictions, targets, k):
    return tf.nn.in_top_k(predictions, targets, k)


def cumprod(x, axis=0):
    return tf.cumprod(x, axis=axis)


def foldl(fn, elems, initializer=None, name=None):
    return tf.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn, elems, initializer=None, name=None):
    return tf.foldr(fn, elems, initializer=initializer, name=name)


def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None,
           dilation_rate=(1, 1, 1)):
    x = _to_channels_last(x, data_format)
    out = tf.nn.conv3d(x, kernel, strides=(1,) + _tuple(strides, 3) + (1,),
                       padding=padding.upper(), dilations=(1,) + _tuple(dilation_rate, 3) + (1,))
    return _from_channels_last(out, data_format)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    fn = tf.nn.max_pool3d if pool_mode == "max" else tf.nn.avg_pool3d
    x = _to_channels_last(x, data_format)
    out = fn(x, (1,) + _tuple(pool_size, 3) + (1,), (1,) + _tuple(strides, 3) + (1,),
             padding.upper())
    return _from_channels_last(out, data_format)


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    pads = [list(p) for p in padding]
    if (data_format or _IMAGE_DATA_FORMAT) == "channels_first":
        return tf.pad(x, [[0, 0], [0, 0]] + pads)
    return tf.pad(x, [[0, 0]] + pads + [[0, 0]])
