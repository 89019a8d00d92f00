"""``tf.nn.rnn_cell`` / ``tf.contrib.rnn``: recurrent cells built from existing ops.

A cell is a ``tf.layers.Layer``: it makes its variables on the first call, in the variable
scope current at that call plus its own name (``rnn/basic_lstm_cell/kernel``), and reuses
them on every later call, so the variable names match TF 1.x checkpoints.
"""

import collections
import copy
import hashlib
import numbers

from tideflow import logging
from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    concat_ops,
    constant_op,
    fill_ops,
    init_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    random_ops,
    unary_ops,
)
from tideflow.ops import variable_scope as vs
from tideflow.ops.clip_ops import clip_by_value
from tideflow.ops.layers_base import InputSpec, Layer


def _size_list(size):
    return [size] if isinstance(size, numbers.Integral) else TensorShape(size).as_list()


def _shape_part(part, what):
    """(tensor or None, static list or None) of one side of a zero state's shape."""
    if isinstance(part, ops.Tensor):
        static = ops.constant_value(part)
        static = None if static is None else [int(v) for v in static.reshape(-1)]
        if part.get_shape().ndims == 0:
            part = array_ops.expand_dims(part, 0)
        elif part.get_shape().ndims != 1:
            raise ValueError(f"{what} tensor must be either a scalar or vector, but saw "
                             f"tensor: {part}")
        return part, static
    shape = TensorShape(part)
    static = shape.as_list() if shape.ndims is not None else None
    tensor = (constant_op.constant(shape.as_list(), dtype=dtypes.int32)
              if shape.is_fully_defined() else None)
    return tensor, static


def _concat_shape(prefix, suffix, static=False):
    """``prefix + suffix`` as a shape tensor (or, with ``static``, a list). Builds the same
    ops as TF's rnn_cell_impl._concat, so that a graph seed gives later random ops the same
    op-count seeds as in TF."""
    p, p_static = _shape_part(prefix, "prefix")
    s, s_static = _shape_part(suffix, "suffix")
    if static:
        shape = TensorShape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return concat_ops.concat((p, s), 0)


# TF's private name, imported by the copies of TF's rnn.py that libraries carry (DeepCTR's)
_concat = _concat_shape


def _zero_state_tensors(state_size, batch_size, dtype):
    def one(size):
        z = fill_ops.zeros(_concat_shape(batch_size, size), dtype=dtype)
        z.set_shape(_concat_shape(batch_size, size, static=True))
        return z
    return nest.map_structure(one, state_size)


ASSERT_LIKE_RNNCELL_ERROR_REGEXP = "is not an RNNCell"


def _hasattr(obj, attr_name):
    try:
        getattr(obj, attr_name)
    except AttributeError:
        return False
    return True


def assert_like_rnncell(cell_name, cell):
    """TF 1.15's check that ``cell`` looks like an RNNCell (custom decoders call it): a
    TypeError naming each missing part."""
    missing = [why for why, ok in (
        ("'output_size' property is missing", _hasattr(cell, "output_size")),
        ("'state_size' property is missing", _hasattr(cell, "state_size")),
        ("either 'zero_state' or 'get_initial_state' method is required",
         _hasattr(cell, "get_initial_state") or _hasattr(cell, "zero_state")),
        ("is not callable", callable(cell))) if not ok]
    if missing:
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: "
                        f"{', '.join(missing)}.")


def _check_supported_dtypes(dtype):
    """TF's cells compute with tanh/sigmoid: floating or complex dtypes only."""
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but saw dtype: {dtype}")


def _check_rnn_cell_input_dtypes(inputs):
    for t in nest.flatten(inputs):
        _check_supported_dtypes(t.dtype)


def _root(graph):
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


class RNNCell(Layer):
    """Abstract recurrent cell: ``output, new_state = cell(inputs, state)``.

    Subclasses define ``state_size``, ``output_size`` and ``call(inputs, state)``.
    """

    # the cells whose weights follow their inputs' dtype (not wrappers of other cells, not
    # cells that embed integer ids)
    _weights_take_input_dtype = False
    # a cell TF 1.15 derives from LayerRNNCell (its ops named from its own scope only)
    _is_layer_cell = False

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        # 0.x-1.0 cells took (and ignored) their input depth
        if kwargs.pop("input_size", None) is not None:
            logging.warning("%s: The input_size parameter is deprecated.", type(self).__name__)
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)

    def __call__(self, inputs, state, scope=None, *args, **kwargs):
        """Runs the cell on ``inputs`` [batch, depth] from ``state``; returns
        ``(output, new_state)``. With ``scope``, the variables live under that scope. Further
        arguments go to ``call`` (as TF 1.15's LayerRNNCell)."""
        self._adopt_graph(inputs)
        if not self.built and self.dtype is None and self._weights_take_input_dtype:
            # the cell takes its dtype from the inputs when it is built: integer ones are
            # refused, after the input spec's rank check (TF 1.15 checks that first)
            if self.input_spec is not None and isinstance(inputs, ops.Tensor):
                self._assert_input_compatibility(inputs)
            _check_rnn_cell_input_dtypes(inputs)
        if scope is not None:
            with vs.variable_scope(scope) as sc:
                return super().__call__(inputs, state, *args, scope=sc, **kwargs)
        if self._scope is None and not self._is_layer_cell:
            # TF 1.15's plain RNNCell (not a LayerRNNCell) re-enters the variable scope it is
            # first called in, which opens a name scope of that scope's last name: its ops sit
            # one level deeper than its variables ("rnn/rnn/multi_rnn_cell/..." in static_rnn)
            last = vs.get_variable_scope().name.rpartition("/")[2]
            if last:
                with ops.name_scope(last):
                    return super().__call__(inputs, state, *args, **kwargs)
        return super().__call__(inputs, state, *args, **kwargs)

    def _adopt_graph(self, inputs):
        # a while_loop body is a function graph of the same root graph: the cell (and its
        # variables) may be used in several such bodies and outside them
        flat = [x for x in nest.flatten(inputs) if isinstance(x, ops.Tensor)]
        if flat and self._graph is not None and _root(flat[0].graph) is _root(self._graph):
            self._graph = flat[0].graph

    @property
    def state_size(self):
        """Size(s) of the state: an int, a TensorShape, or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """Size of the output: an int or a TensorShape."""
        raise NotImplementedError("Abstract method")

    def build(self, input_shape):
        self.built = True

    def zero_state(self, batch_size, dtype):
        """Zero-filled state tensor(s) of shape ``[batch_size] + state_size``."""
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return _zero_state_tensors(self.state_size, batch_size, dtype)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """TF 1.15's Keras-style entry: ``zero_state`` with the batch size and dtype taken
        from ``inputs`` when given (they must agree with ``batch_size``/``dtype`` if those are
        passed too)."""
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs, name="inputs")
            static_batch = inputs.get_shape()[0].value if inputs.get_shape().ndims else None
            if batch_size is not None:
                given = batch_size
                if isinstance(batch_size, ops.Tensor):
                    given = ops.constant_value(batch_size)
                if static_batch != given:
                    raise ValueError("batch size from input tensor is different from the input "
                                     f"param. Input tensor batch: {static_batch}, batch_size: "
                                     f"{batch_size}")
            if dtype is not None and inputs.dtype != dtypes.as_dtype(dtype):
                raise ValueError("dtype from input tensor is different from the input param. "
                                 f"Input tensor dtype: {inputs.dtype}, dtype: {dtype}")
            batch_size = static_batch or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing initial "
                             f"state: batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell that makes its variables in ``build`` (TF's LayerRNNCell): called, it opens
    only its own scopes."""

    _is_layer_cell = True


def _input_depth(cell_name, inputs_shape, as_tuple=False):
    """The input's last dimension, which must be known. TF 1.15 names the shape as its core
    cells see it (a tuple: ``(2, None)``) or, for contrib's (``as_tuple`` False), as a
    TensorShape (``(2, ?)``)."""
    shape = TensorShape(inputs_shape)
    if shape.ndims is None or shape.ndims < 1 or shape[-1].value is None:
        shown = tuple(shape.as_list()) if as_tuple and shape.ndims is not None else shape
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {shown}")
    return shape[-1].value


def _activation(activation):
    """tanh by default; a name ('relu') or a config resolves as Keras's, as TF 1.x's cells do."""
    if activation is None:
        return math_ops.tanh
    if callable(activation):
        return activation
    from tideflow.keras import activations  # only for a name or config

    return activations.get(activation)


def _initializer(initializer):
    """An initializer given as a name or a Keras config (a cell rebuilt from its config)."""
    if initializer is None or callable(initializer):
        return initializer
    from tideflow.keras import initializers

    return initializers.get(initializer)


def _serialized(kind, value):
    if value is None:
        return None
    from tideflow.keras import activations, initializers

    return (activations if kind == "activation" else initializers).serialize(value)


class _UnitsCell(RNNCell):
    """A cell whose output (and, unless it says otherwise, state) has ``_num_units`` units."""

    _weights_take_input_dtype = True

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units


class BasicRNNCell(_UnitsCell):
    """``output = new_state = activation(W [inputs, state] + b)``; variables ``kernel``
    [depth + num_units, num_units] and ``bias`` [num_units] (zeros)."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=2)  # (TF: a [batch, depth] input)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._activation = _activation(activation)

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape, as_tuple=True)
        self._kernel = self.add_weight("kernel", shape=[depth + self._num_units, self._num_units])
        self._bias = self.add_weight("bias", shape=[self._num_units],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def get_config(self):
        return {**super().get_config(), "num_units": self._num_units,
                "activation": _serialized("activation", self._activation),
                "reuse": self._reuse}

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        gate = linalg_ops.matmul(concat_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn_impl.bias_add(gate, self._bias))
        return output, output


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """``(c, h)``: the cell state and the output of an LSTM."""

    __slots__ = ()

    @property
    def dtype(self):
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class BasicLSTMCell(_UnitsCell):
    """LSTM without peepholes: gates ``i, j, f, o`` from one ``kernel``
    [depth + num_units, 4 * num_units] and ``bias`` [4 * num_units];
    ``new_c = c * sigmoid(f + forget_bias) + sigmoid(i) * act(j)``,
    ``new_h = act(new_c) * sigmoid(o)``."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=2)  # (TF: a [batch, depth] input)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        if self._state_is_tuple:
            return LSTMStateTuple(self._num_units, self._num_units)
        return 2 * self._num_units

    def get_config(self):
        return {**super().get_config(), "num_units": self._num_units,
                "forget_bias": self._forget_bias, "state_is_tuple": self._state_is_tuple,
                "activation": _serialized("activation", self._activation),
                "reuse": self._reuse}

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape, as_tuple=True)
        n = self._num_units
        self._kernel = self.add_weight("kernel", shape=[depth + n, 4 * n])
        self._bias = self.add_weight("bias", shape=[4 * n],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype))
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        # the ops (one axis constant for both splits, Add/Mul) are TF 1.x's, so that the
        # graph's op count, and with it a graph seed's op seeds, follow TF's
        one = constant_op.constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = concat_ops.split(state, 2, axis=one)
        gates = nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, h], 1), self._kernel), self._bias)
        i, j, f, o = concat_ops.split(gates, 4, axis=one)
        forget = constant_op.constant(self._forget_bias, dtype=f.dtype)
        new_c = math_ops.add(math_ops.multiply(c, math_ops.sigmoid(math_ops.add(f, forget))),
                             math_ops.multiply(math_ops.sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), math_ops.sigmoid(o))
        if self._state_is_tuple:
            new_state = LSTMStateTuple(new_c, new_h)
        else:
            new_state = concat_ops.concat([new_c, new_h], 1)
        return new_h, new_state


def _shards(num_shards):
    if num_shards is None:
        return None
    from tideflow.ops.partitioned_variables import fixed_size_partitioner

    return fixed_size_partitioner(num_shards)


class LSTMCell(RNNCell):
    """LSTM with optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``), cell clipping
    and an output projection (``projection/kernel`` [num_units, num_proj])."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    _weights_take_input_dtype = True

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=2)  # (TF: a [batch, depth] input)
        _check_supported_dtypes(self.dtype)
        # TF 1.x: the kernels split into this many row shards (kernel/part_0, ...)
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = _initializer(initializer)
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    def get_config(self):
        return {**super().get_config(), "num_units": self._num_units,
                "use_peepholes": self._use_peepholes, "cell_clip": self._cell_clip,
                "initializer": _serialized("initializer", self._initializer),
                "num_proj": self._num_proj, "proj_clip": self._proj_clip,
                "num_unit_shards": self._num_unit_shards,
                "num_proj_shards": self._num_proj_shards, "forget_bias": self._forget_bias,
                "state_is_tuple": self._state_is_tuple,
                "activation": _serialized("activation", self._activation),
                "reuse": self._reuse}

    @property
    def state_size(self):
        out = self._num_proj or self._num_units
        if self._state_is_tuple:
            return LSTMStateTuple(self._num_units, out)
        return self._num_units + out

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape, as_tuple=True)
        n = self._num_units
        h_depth = self._num_proj or n
        self._kernel = self.add_weight("kernel", shape=[depth + h_depth, 4 * n],
                                       initializer=self._initializer,
                                       partitioner=_shards(self._num_unit_shards))
        self._bias = self.add_weight("bias", shape=[4 * n],
                                     initializer=init_ops.zeros_initializer(dtype=self.dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", shape=[n], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", shape=[n], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", shape=[n], initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_weight("projection/kernel", shape=[n, self._num_proj],
                                                initializer=self._initializer,
                                                partitioner=_shards(self._num_proj_shards))
        self.built = True

    def call(self, inputs, state):
        n = self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:  # two slices, as TF 1.15 takes them (its ops, for its op count)
            c_prev = array_ops.slice(state, [0, 0], [-1, n])
            m_prev = array_ops.slice(state, [0, n], [-1, self._num_proj or n])
        _check_rnn_cell_input_dtypes([inputs, m_prev, c_prev])
        gates = nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, m_prev], 1), self._kernel), self._bias)
        i, j, f, o = concat_ops.split(gates, 4, axis=1)
        if self._use_peepholes:
            c = (math_ops.sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + math_ops.sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = (math_ops.sigmoid(f + self._forget_bias) * c_prev
                 + math_ops.sigmoid(i) * self._activation(j))
        if self._cell_clip is not None:
            c = clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = math_ops.sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = math_ops.sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = linalg_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else concat_ops.concat([c, m], 1)
        return m, new_state


class GRUCell(_UnitsCell):
    """Gated recurrent unit: ``r, u = sigmoid(gates/kernel [x, h] + gates/bias)`` (bias
    initialised to 1.0), ``c = act(candidate/kernel [x, r * h] + candidate/bias)``,
    ``new_h = u * h + (1 - u) * c``."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        self.input_spec = InputSpec(ndim=2)  # (TF: a [batch, depth] input)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer = _initializer(kernel_initializer)
        self._bias_initializer = _initializer(bias_initializer)

    def get_config(self):
        return {**super().get_config(), "num_units": self._num_units,
                "kernel_initializer": _serialized("initializer", self._kernel_initializer),
                "bias_initializer": _serialized("initializer", self._bias_initializer),
                "activation": _serialized("activation", self._activation),
                "reuse": self._reuse}

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape, as_tuple=True)
        n = self._num_units
        gate_bias_init = self._bias_initializer or init_ops.constant_initializer(
            1.0, dtype=self.dtype)
        cand_bias_init = self._bias_initializer or init_ops.zeros_initializer(dtype=self.dtype)
        self._gate_kernel = self.add_weight("gates/kernel", shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight("gates/bias", shape=[2 * n],
                                          initializer=gate_bias_init)
        self._candidate_kernel = self.add_weight("candidate/kernel", shape=[depth + n, n],
                                                 initializer=self._kernel_initializer)
        self._candidate_bias = self.add_weight("candidate/bias", shape=[n],
                                               initializer=cand_bias_init)
        self.built = True

    def call(self, inputs, state):
        _check_rnn_cell_input_dtypes([inputs, state])
        value = math_ops.sigmoid(nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, state], 1), self._gate_kernel),
            self._gate_bias))
        r, u = concat_ops.split(value, 2, axis=1)
        candidate = nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, r * state], 1), self._candidate_kernel),
            self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Stacks ``cells``: the output of cell ``k`` is the input of cell ``k + 1``; cell ``k``'s
    variables live under ``cell_k``. The state is a tuple of the cells' states (or, with
    ``state_is_tuple=False``, their concatenation)."""

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_sequence(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_sequence(c.state_size) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag "
                             "state_is_tuple is not set. State sizes are: "
                             f"{[c.state_size for c in self._cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(c.state_size for c in self._cells)
        return sum(c.state_size for c in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._state_is_tuple:
                return tuple(c.zero_state(batch_size, dtype) for c in self._cells)
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for c in self._cells for w in c.trainable_weights]

    @property
    def non_trainable_weights(self):
        out = [w for c in self._cells for w in c.non_trainable_weights]
        if not self.trainable:
            out = [w for c in self._cells for w in c.trainable_weights] + out
        return out

    def _layer_cell(self, i, inputs):
        """The cell of layer ``i``. A cell object listed twice shares its weights (TF 1.x),
        but where its inputs there are as wide as where it was built, which TF 1.x rejects
        (a 0.x program's ``MultiRNNCell([cell] * n)`` over inputs of another width), the
        layer gets a copy with weights of its own, as 0.x gave each layer."""
        cell = self._cells[i]
        depths = self.__dict__.setdefault("_built_depths", {})
        depth = inputs.get_shape()[-1].value if inputs.get_shape().ndims else None
        first = depths.setdefault(id(cell), depth)
        if (first is not None and depth is not None and first != depth
                and any(c is cell for c in self._cells[:i]) and isinstance(cell, Layer)):
            cell = copy.copy(cell)
            cell.built = False
            cell._called = False
            cell._trainable_weights = []
            cell._non_trainable_weights = []
            cell._losses = []
            cell._updates = []
            cell._scope = None
            self._cells[i] = cell
            depths[id(cell)] = depth
            logging.warning("MultiRNNCell: the cell object of layer %d is also an earlier "
                            "layer's, but its inputs are %d wide, not %d: layer %d gets its "
                            "own weights (TF 0.x's behaviour)", i, depth, first, i)
        return cell

    def call(self, inputs, state):
        cur_inp = inputs
        new_states = []
        offset = 0
        for i, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_sequence(state):
                        raise ValueError(f"Expected state to be a tuple of length "
                                         f"{len(self.state_size)}, but received: {state}")
                    cur_state = state[i]
                else:
                    from tideflow.ops.slicing_ops import slice as _slice
                    size = cell.state_size
                    cur_state = _slice(state, [0, offset], [-1, size])
                    offset += size
                cell = self._layer_cell(i, cur_inp)
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return cur_inp, tuple(new_states)
        return cur_inp, concat_ops.concat(new_states, 1)


class _DelegatingCell(RNNCell):
    """A cell whose sizes and zero state are those of the cell it holds in ``_cell``."""

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        with ops.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self._cell.zero_state(batch_size, dtype)


class _WrapperCell(_DelegatingCell):
    """A cell that forwards to ``cell`` without a scope of its own (TF 1.x wrappers)."""

    def __init__(self, cell):
        super().__init__()
        self._cell = cell

    @property
    def wrapped_cell(self):
        return self._cell

    @property
    def trainable_weights(self):
        return self._cell.trainable_weights

    @property
    def non_trainable_weights(self):
        return self._cell.non_trainable_weights


def _check_prob(name, p):
    # as TF: a known value (a number or a constant tensor) must lie in [0, 1]; the message
    # prints it with %d
    value = p if isinstance(p, numbers.Real) else ops.constant_value(p) if isinstance(
        p, ops.Tensor) else None
    if value is not None and not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"Parameter {name} must be between 0 and 1: {int(value)}")


class DropoutWrapper(_WrapperCell):
    """Applies dropout (``keep_prob`` semantics) to the inputs, outputs and/or new state of
    ``cell``; a keep probability of 1.0 (a Python number) adds no op. ``LSTMStateTuple``
    ``c`` parts are not dropped (TF's default ``dropout_state_filter_visitor``). With
    ``variational_recurrent`` one mask, drawn once per run, serves every time step."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None):
        super().__init__(cell)
        for name, p in (("input_keep_prob", input_keep_prob),
                        ("output_keep_prob", output_keep_prob),
                        ("state_keep_prob", state_keep_prob)):
            _check_prob(name, p)
        self._input_keep_prob = input_keep_prob
        self._output_keep_prob = output_keep_prob
        self._state_keep_prob = state_keep_prob
        self._seed = seed
        self._state_filter = dropout_state_filter_visitor
        self._noise = {}
        with ops.name_scope("DropoutWrapperInit"):
            # as TF: each keep probability becomes a tensor here (a constant one is kept as a
            # Python float), so the graph holds TF's ops and graph-seeded ops get TF's seeds
            for name in ("input_keep_prob", "state_keep_prob", "output_keep_prob"):
                p = ops.convert_to_tensor(getattr(self, "_" + name))
                value = ops.constant_value(p)
                setattr(self, "_" + name, p if value is None else float(value))
        if variational_recurrent:
            if dtype is None:
                raise ValueError("When variational_recurrent=True, dtype must be provided")
            # one mask per run for every time step (and row): noise of shape [1] + size,
            # drawn once here
            if not self._is_one(self._input_keep_prob):
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob "
                                     "< 1.0 or is unknown, input_size must be provided")
                self._noise[0] = self._make_noise(input_size, dtype, "input")
            self._noise[1000] = self._make_noise(cell.state_size, dtype, "state")
            self._noise[2000] = self._make_noise(cell.output_size, dtype, "output")

    _SALTS = ("input", "state", "output")

    def _gen_seed(self, salt_prefix, index):
        """TF's per-tensor op seed: md5 of the wrapper's seed and a salt, so a seeded
        wrapper draws TF's masks."""
        if self._seed is None:
            return None
        digest = hashlib.md5(f"{self._seed}{salt_prefix}_{index}".encode()).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _make_noise(self, sizes, dtype, salt_prefix):
        out = []
        for k, size in enumerate(nest.flatten(sizes)):
            dims = [size] if isinstance(size, numbers.Integral) else TensorShape(size).as_list()
            shape = concat_ops.concat(([1], dims), 0)
            out.append(random_ops.random_uniform(shape, dtype=dtypes.as_dtype(dtype),
                                                 seed=self._gen_seed(salt_prefix, k)))
        return out

    @staticmethod
    def _is_one(p):
        return isinstance(p, numbers.Real) and float(p) == 1.0

    def _dropout(self, values, keep_prob, salt, keep_mask=None):
        if self._is_one(keep_prob):
            return values
        # (as TF: over the leaves of the state filter's shallow structure, a subtree it
        # leaves out counting as one leaf for the seeds)
        shallow = values if keep_mask is None else keep_mask
        flat = nest.flatten_up_to(shallow, values)
        masks = nest.flatten(shallow)
        noise = self._noise.get(salt)
        out = []
        for k, (v, m) in enumerate(zip(flat, masks)):
            if isinstance(m, bool) and not m:
                out.append(v)
            elif noise is not None:  # TF's ops, in its order
                binary = unary_ops.floor(keep_prob + noise[k])
                out.append(math_ops.div(v, keep_prob) * binary)
            else:
                out.append(nn_impl.dropout(v, keep_prob=keep_prob,
                                           seed=self._gen_seed(self._SALTS[salt // 1000], k)))
        return nest.pack_sequence_as(shallow, out)

    def _state_mask(self, state):
        """TF's shallow structure of the state: the filter (TF's default keeps an
        LSTMStateTuple's ``c`` and a TensorArray) visits each substructure from the top."""
        from tideflow.ops.tensor_array import TensorArray

        def default(s):
            if isinstance(s, LSTMStateTuple):
                return LSTMStateTuple(c=False, h=True)
            return not isinstance(s, TensorArray)
        return nest.get_traverse_shallow_structure(self._state_filter or default, state)

    def __call__(self, inputs, state, scope=None):
        inputs = self._dropout(inputs, self._input_keep_prob, 0)
        output, new_state = self._cell(inputs, state, scope=scope)
        if not self._is_one(self._state_keep_prob):
            new_state = self._dropout(new_state, self._state_keep_prob, 1000,
                                      keep_mask=self._state_mask(new_state))
        output = self._dropout(output, self._output_keep_prob, 2000)
        return output, new_state


class ResidualWrapper(_WrapperCell):
    """``output = cell_output + inputs`` (or ``residual_fn(inputs, cell_output)``)."""

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn

    def __call__(self, inputs, state, scope=None):
        output, new_state = self._cell(inputs, state, scope=scope)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, output), new_state
        return nest.map_structure(lambda i, o: i + o, inputs, output), new_state


class DeviceWrapper(_WrapperCell):
    """Runs ``cell`` on ``device``."""

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def __call__(self, inputs, state, scope=None):
        with ops.device(self._device):
            return self._cell(inputs, state, scope=scope)


__all__ = [
    "BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell", "LSTMCell",
    "LSTMStateTuple", "MultiRNNCell", "RNNCell", "ResidualWrapper",
]
