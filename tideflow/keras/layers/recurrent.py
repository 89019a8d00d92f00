"""Recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), ``RNN`` running a cell over
the time axis (in a ``while_loop`` through ``tf.nn.dynamic_rnn``), SimpleRNN, LSTM and GRU with
Keras's weights (``kernel``, ``recurrent_kernel``, ``bias``; LSTM gates i, f, c, o; GRU gates
z, r, h) and TF 1.x defaults (``recurrent_activation='hard_sigmoid'``), and the wrappers
``Bidirectional`` and ``TimeDistributed``."""

import inspect

import numpy as np

import tideflow as tf
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import activations, constraints, initializers, regularizers
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import (
    InputSpec,
    Layer,
    _input_keys,
    _loss_values,
    _merged,
    flatten,
)
from tideflow.keras.layers.core import _add_weight, _ser, _ser_attrs, training_flag


def _dropout_masks(ones, rate, training, count):
    """A cell's dropout masks as TF 1.15's cells make them: ``count`` (one per gate of an
    LSTM or GRU), each ``K.dropout`` of ``ones`` (its seed from NumPy's generator, so
    np.random.seed repeats it) in the training phase, ``ones`` else."""
    return [K.in_train_phase(lambda: K.dropout(ones, rate), ones, training=training)
            for _ in range(count)]


def _masked(t, masks, gate):
    return t if masks is None else t * masks[gate]


def _zero_states(state_size, batch_size, dtype):
    if batch_size is None or dtype is None:  # as TF 1.15's _generate_zero_filled_state
        raise ValueError("batch_size and dtype cannot be None while constructing initial "
                         f"state: batch_size={batch_size}, dtype={dtype}")

    def zeros(size):
        static = batch_size if isinstance(batch_size, int) else None
        z = tf.zeros(tf.stack([batch_size, size]), dtype=dtype or tf.float32)
        z.set_shape([static, size])
        return z
    if isinstance(state_size, (list, tuple)):
        return [zeros(size) for size in state_size]
    return zeros(state_size)


class _Cell(Layer):
    def __init__(self, units, activation="tanh", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self._masks = (None, None)

    _GATES = 1

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states: one tensor per entry of ``state_size`` (a list when it is a list)."""
        if inputs is not None:
            batch_size = tf.shape(inputs)[0]
            dtype = inputs.dtype
        return _zero_states(self.state_size, batch_size, dtype)

    def build(self, input_shape):
        input_dim = TensorShape(input_shape).as_list()[-1]
        n = self.units * self._GATES
        self.kernel = _add_weight(self, "kernel", (input_dim, n))
        self.recurrent_kernel = _add_weight(self, "recurrent_kernel", (self.units, n),
                                            "recurrent")
        self.bias = _add_weight(self, "bias", self._bias_shape(),
                                initializer=self._bias_initializer()) if self.use_bias else None
        self.built = True

    def _bias_shape(self):
        return (self.units * self._GATES,)

    def _bias_initializer(self):
        return self.bias_initializer

    def _apply_masks(self, inputs, h):
        """``inputs`` and ``h`` times their first dropout masks (SimpleRNN's only ones; an
        LSTM's or GRU's with ``implementation=2``, as TF 1.15)."""
        in_masks, rec_masks = self._masks
        if in_masks is not None:
            inputs = inputs * in_masks[0]
        if rec_masks is not None:
            h = h * rec_masks[0]
        return inputs, h

    def _per_gate(self):
        """The dropout masks one per gate (TF 1.15's implementation 1), or None for none."""
        if self.implementation != 1 or self._masks == (None, None):
            return None
        return self._masks

    def get_config(self):
        config = super().get_config()
        config.update(
            units=self.units, activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=_ser(initializers, self.kernel_initializer),
            recurrent_initializer=_ser(initializers, self.recurrent_initializer),
            bias_initializer=_ser(initializers, self.bias_initializer),
            **_ser_attrs(self, "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                         "kernel_constraint", "recurrent_constraint", "bias_constraint"),
            dropout=self.dropout, recurrent_dropout=self.recurrent_dropout)
        return config


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + h @ recurrent_kernel + bias)``."""

    def call(self, inputs, states, training=None):
        h = states[0]
        x, h_in = self._apply_masks(inputs, h)
        out = tf.matmul(x, self.kernel)
        if self.bias is not None:
            out = tf.nn.bias_add(out, self.bias)
        out = out + tf.matmul(h_in, self.recurrent_kernel)
        if self.activation is not None:
            out = self.activation(out)
        return out, [out]


# the arguments of _Cell.__init__ that the gated cells pass on by name
_CELL_ARGS = ("use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout")


def _cell_args(args):
    return {k: args[k] for k in _CELL_ARGS}


class _GatedCell(_Cell):
    """A cell with gates (LSTM, GRU): their ``recurrent_activation``, and Keras's
    ``implementation`` (kept for the config)."""

    def __init__(self, units, activation, recurrent_activation, implementation, **kwargs):
        super().__init__(units, activation=activation, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.implementation = implementation


class LSTMCell(_GatedCell):
    """LSTM: ``z = x @ kernel + h @ recurrent_kernel + bias`` split into gates i, f, c, o;
    ``c = f * c + i * activation(z_c)``, ``h = o * activation(c)``."""

    _GATES = 4

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, implementation=1,
                 **kwargs):
        super().__init__(units, activation, recurrent_activation, implementation,
                         **_cell_args(locals()), **kwargs)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base = self.bias_initializer
        units = self.units

        def init(shape, dtype=None, partition_info=None):
            return tf.concat([base((units,), dtype=dtype),
                              tf.ones((units,), dtype=dtype),
                              base((units * 2,), dtype=dtype)], 0)

        return init

    def _gate_inputs(self, inputs, h):
        """``x @ kernel + h @ recurrent_kernel (+ bias)`` (dropout masks applied): the four
        gates' pre-activations side by side, [batch, 4 * units]."""
        per_gate = self._per_gate()
        if per_gate is None:
            x, h_in = self._apply_masks(inputs, h)
            xk, hu = tf.matmul(x, self.kernel), tf.matmul(h_in, self.recurrent_kernel)
        else:  # each gate's own masks on the inputs and on h
            u = self.units
            xk = tf.concat([tf.matmul(_masked(inputs, per_gate[0], g),
                                      self.kernel[:, g * u:(g + 1) * u]) for g in range(4)], 1)
            hu = tf.concat([tf.matmul(_masked(h, per_gate[1], g),
                                      self.recurrent_kernel[:, g * u:(g + 1) * u])
                            for g in range(4)], 1)
        if self.bias is None:
            return xk + hu
        if self.implementation == 1:
            # TF 1.15's implementation 1 adds each gate's bias to the input's product before
            # the recurrent product, ``(x @ k + b) + h @ u``; implementation 2 adds it last
            return tf.nn.bias_add(xk, self.bias) + hu
        return tf.nn.bias_add(xk + hu, self.bias)

    def call(self, inputs, states, training=None):
        h, c = states[0], states[1]
        z = self._gate_inputs(inputs, h)
        u = self.units
        if self.implementation == 1:
            zi, zf, zc, zo = z[:, :u], z[:, u:2 * u], z[:, 2 * u:3 * u], z[:, 3 * u:]
        else:  # (TF 1.15's implementation 2 splits the gates: its op count, unrolled)
            zi, zf, zc, zo = tf.split(z, 4, axis=1)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = f * c + i * self.activation(zc)
        o = self.recurrent_activation(zo)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        config = super().get_config()
        config.update(recurrent_activation=activations.serialize(self.recurrent_activation),
                      unit_forget_bias=self.unit_forget_bias,
                      implementation=self.implementation)
        return config


class PeepholeLSTMCell(LSTMCell):
    """``tf.keras.experimental.PeepholeLSTMCell``: an LSTMCell whose gates also see the
    cell state through diagonal peephole weights (``input_gate_peephole_weights``,
    ``forget_gate_peephole_weights`` on the previous state, ``output_gate_peephole_weights``
    on the new one), made with the kernel initializer."""

    def build(self, input_shape):
        super().build(input_shape)
        for gate in ("input", "forget", "output"):
            name = f"{gate}_gate_peephole_weights"
            setattr(self, name, self.add_weight(name, shape=(self.units,),
                                                initializer=self.kernel_initializer))

    def call(self, inputs, states, training=None):
        h, c_prev = states[0], states[1]
        z = self._gate_inputs(inputs, h)
        u = self.units
        i = self.recurrent_activation(z[:, :u] + self.input_gate_peephole_weights * c_prev)
        f = self.recurrent_activation(z[:, u:2 * u] +
                                      self.forget_gate_peephole_weights * c_prev)
        c = f * c_prev + i * self.activation(z[:, 2 * u:3 * u])
        o = self.recurrent_activation(z[:, 3 * u:] + self.output_gate_peephole_weights * c)
        h = o * self.activation(c)
        return h, [h, c]


class GRUCell(_GatedCell):
    """GRU with gates z, r, h: ``h = z * h_prev + (1 - z) * hh``. With ``reset_after`` the
    reset gate multiplies the recurrent product (bias shape [2, 3 * units])."""

    _GATES = 3

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout=0.0, recurrent_dropout=0.0, implementation=1, reset_after=False,
                 **kwargs):
        super().__init__(units, activation, recurrent_activation, implementation,
                         **_cell_args(locals()), **kwargs)
        self.reset_after = reset_after

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _bias_pair(self):
        return self.bias

    def call(self, inputs, states, training=None):
        h_prev = states[0]
        per_gate = self._per_gate()
        x, h_in = (inputs, h_prev) if per_gate is not None else \
            self._apply_masks(inputs, h_prev)
        in_m, rec_m = per_gate or (None, None)
        if per_gate is None:
            # TF 1.15's implementation 2 carries the masked h into the new h too
            h_prev = h_in
        u = self.units
        bias = self._bias_pair() if self.bias is not None else None
        in_bias = None if bias is None else (bias[0] if self.reset_after else bias)
        if in_m is None:
            xw = tf.matmul(x, self.kernel)
            if in_bias is not None:
                xw = tf.nn.bias_add(xw, in_bias)
            x_z, x_r, x_h = xw[:, :u], xw[:, u:2 * u], xw[:, 2 * u:]
        else:  # each gate's own input mask (implementation 1)
            x_z, x_r, x_h = [tf.matmul(_masked(x, in_m, g), self.kernel[:, g * u:(g + 1) * u])
                             + (0 if in_bias is None else in_bias[g * u:(g + 1) * u])
                             for g in range(3)]
        h_z, h_r, h_h = [_masked(h_in, rec_m, g) for g in range(3)]
        if self.reset_after:
            if rec_m is None:
                hu = tf.matmul(h_in, self.recurrent_kernel)
                if bias is not None:
                    hu = tf.nn.bias_add(hu, bias[1])
                hu_z, hu_r, hu_h = hu[:, :u], hu[:, u:2 * u], hu[:, 2 * u:]
            else:
                hu_z, hu_r, hu_h = [
                    tf.matmul(hg, self.recurrent_kernel[:, g * u:(g + 1) * u])
                    + (0 if bias is None else bias[1][g * u:(g + 1) * u])
                    for g, hg in enumerate((h_z, h_r, h_h))]
            z = self.recurrent_activation(x_z + hu_z)
            r = self.recurrent_activation(x_r + hu_r)
            hh = self.activation(x_h + r * hu_h)
        else:
            rk = self.recurrent_kernel
            z = self.recurrent_activation(x_z + tf.matmul(h_z, rk[:, :u]))
            r = self.recurrent_activation(x_r + tf.matmul(h_r, rk[:, u:2 * u]))
            hh = self.activation(x_h + tf.matmul(r * h_h, rk[:, 2 * u:]))
        h = z * h_prev + (1.0 - z) * hh
        return h, [h]

    def get_config(self):
        config = super().get_config()
        config.update(recurrent_activation=activations.serialize(self.recurrent_activation),
                      reset_after=self.reset_after, implementation=self.implementation)
        return config


# the arguments CuDNN's cells fix, left out of their configs
_CUDNN_FIXED = ("activation", "recurrent_activation", "implementation", "dropout",
                "recurrent_dropout", "use_bias")


class _CuDNNLSTMCell(LSTMCell):
    """CuDNNLSTM's cell: sigmoid gates, tanh, and separate input and recurrent biases
    (bias [8 * units]; with ``unit_forget_bias`` the recurrent forget bias starts at 1)."""

    def __init__(self, units, **kwargs):
        super().__init__(units, activation="tanh", recurrent_activation="sigmoid", **kwargs)

    def _bias_shape(self):
        return (8 * self.units,)

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, units = self.bias_initializer, self.units

        def init(shape, dtype=None, partition_info=None):
            return tf.concat([base((units * 5,), dtype=dtype), tf.ones((units,), dtype=dtype),
                              base((units * 2,), dtype=dtype)], 0)

        return init

    def call(self, inputs, states, training=None):
        full = self.bias
        self.bias = full[:4 * self.units] + full[4 * self.units:]
        try:
            return super().call(inputs, states, training=training)
        finally:
            self.bias = full

    def get_config(self):
        config = super().get_config()
        for k in _CUDNN_FIXED:
            config.pop(k, None)
        return config


class _CuDNNGRUCell(GRUCell):
    """CuDNNGRU's cell: sigmoid gates, the reset gate after the recurrent product, input
    and recurrent biases in one [6 * units] bias."""

    def __init__(self, units, **kwargs):
        super().__init__(units, activation="tanh", recurrent_activation="sigmoid",
                         reset_after=True, **kwargs)

    def _bias_shape(self):
        return (6 * self.units,)

    def _bias_pair(self):
        return tf.reshape(self.bias, [2, 3 * self.units])

    def get_config(self):
        config = super().get_config()
        for k in _CUDNN_FIXED + ("reset_after",):
            config.pop(k, None)
        return config


class AbstractRNNCell(Layer):
    """Base of custom RNN cells (TF 1.15's ``tf.keras.layers.AbstractRNNCell``): define
    ``state_size``, ``call(inputs, states) -> (output, new_states)`` and, when it differs from
    the state size, ``output_size``."""

    def call(self, inputs, states):
        raise NotImplementedError("Abstract method")

    @property
    def state_size(self):
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        raise NotImplementedError("Abstract method")

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            batch_size = tf.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:  # as TF 1.15's _generate_zero_filled_state
            raise ValueError("batch_size and dtype cannot be None while constructing initial "
                             f"state: batch_size={batch_size}, dtype={dtype}")
        sizes = self.state_size
        flat = list(sizes) if isinstance(sizes, (list, tuple)) else [sizes]
        states = [tf.zeros(tf.stack([batch_size] + list(flatten(s))), dtype=dtype or K.floatx())
                  for s in flat]
        return states if isinstance(sizes, (list, tuple)) else states[0]



def _adopt_dtype(cell, dtype):
    """A tf.nn cell made without a dtype builds its weights in the RNN layer's dtype (its
    initializers need one; built through ``cell(inputs)`` it would take the inputs')."""
    if dtype is not None and getattr(cell, "_dtype", False) is None:
        cell._dtype = tf.as_dtype(dtype).base_dtype.name

class StackedRNNCells(Layer):
    """Cells applied one after the other at each step, as one cell. As TF 1.15, its
    ``state_size`` is the tuple of each cell's ``state_size`` (reversed with
    ``reverse_state_order=True``) and its states are nested the same way."""

    def __init__(self, cells, **kwargs):
        for cell in cells:
            if not hasattr(cell, "call"):
                raise ValueError(f"All cells must have a `call` method. received cells: {cells}")
            if not hasattr(cell, "state_size"):
                raise ValueError("All cells must have a `state_size` attribute. received "
                                 f"cells: {cells}")
        self.reverse_state_order = kwargs.pop("reverse_state_order", False)
        super().__init__(**kwargs)
        self.cells = list(cells)

    def _ordered_cells(self):
        return self.cells[::-1] if self.reverse_state_order else self.cells

    @property
    def state_size(self):
        return tuple(c.state_size for c in self._ordered_cells())

    @property
    def output_size(self):
        last = self.cells[-1]
        return _output_size(last) or _CellAdapter(last).state_size[0]

    # the cells' weights, tf.nn.rnn_cell cells' (made at their first call) included
    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return [w for c in self.cells for w in getattr(c, "trainable_weights", [])]

    @property
    def non_trainable_weights(self):
        name = "non_trainable_weights" if self.trainable else "weights"
        return [w for c in self.cells for w in getattr(c, name, [])]

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """One initial state (structure) per cell, in the order of ``state_size``."""
        states = []
        for cell in self._ordered_cells():
            make = getattr(cell, "get_initial_state", None)
            if make is not None:
                states.append(make(inputs=inputs, batch_size=batch_size, dtype=dtype))
            else:
                if inputs is not None:
                    batch_size, dtype = tf.shape(inputs)[0], inputs.dtype
                states.append(_zero_states(cell.state_size, batch_size, dtype))
        return tuple(states)

    def build(self, input_shape):
        if isinstance(input_shape, list):  # [step input] + constants' shapes
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        for cell in self.cells:
            if not getattr(cell, "built", True):  # (a cell that is no layer: as it is)
                _adopt_dtype(cell, self.dtype)
                with tf.name_scope(cell.name):
                    cell.build(TensorShape(dims))
                cell.built = True
            dims = [dims[0], _output_size(cell)
                    or _CellAdapter(cell).state_size[0]]
        self.built = True

    def call(self, inputs, states, constants=None, training=None):
        flat = list(flatten(states))
        per_cell, pos = {}, 0
        for cell in self._ordered_cells():
            n = len(_CellAdapter(cell).state_size)
            per_cell[id(cell)] = flat[pos:pos + n]
            pos += n
        new_states = {}
        for cell in self.cells:
            cell_states = _call_states(cell, per_cell[id(cell)])
            if constants is not None and _takes_arg(cell.call, "constants"):
                inputs, out_states = cell.call(inputs, cell_states, constants=constants)
            else:
                inputs, out_states = cell.call(inputs, cell_states)
            new_states[id(cell)] = _state_tuple(out_states)
        nested = []
        for cell in self._ordered_cells():
            got = new_states[id(cell)]
            nested.append(list(got) if isinstance(cell.state_size, (list, tuple)) else got[0])
        return inputs, tuple(nested)

    def get_config(self):
        config = super().get_config()
        config["cells"] = [{"class_name": type(c).__name__, "config": c.get_config()}
                           for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tideflow.keras.layers import deserialize

        config = dict(config)
        config["cells"] = [deserialize(c, custom_objects=custom_objects)
                           for c in config["cells"]]
        return cls(**config)


class _CellAdapter:
    """Presents a Keras cell to ``tf.nn.dynamic_rnn`` (state as a tuple)."""

    def __init__(self, cell, constants=None):
        self.cell = cell
        self.constants = constants
        # a StackedRNNCells' nested sizes run flat through the loop
        self.state_size = tuple(flatten(cell.state_size))
        self.output_size = _output_size(cell) or self.state_size[0]

    def _cell_call(self, inputs, states):
        graph = tf.get_default_graph()
        first = len(graph.get_operations())
        if self.constants is None:
            out = self.cell.call(inputs, states)
        else:
            out = self.cell.call(inputs, states, constants=self.constants)
        if "slices" not in self.__dict__:
            # (a user's cell: the StridedSlice ops its step makes, which TF 1.15 also makes
            # once outside its loop, before the last output's slice is named)
            self.slices = sum(op.type == "StridedSlice"
                              for op in graph.get_operations()[first:])
        return out

    def __call__(self, inputs, state, scope=None):
        out, new_states = self._cell_call(inputs, _call_states(self.cell, list(state)))
        return out, _state_tuple(new_states)


def _unrolled(adapter, x, initial_state, go_backwards, time_major, step_ops=None):
    """TF 1.15's ``unroll=True`` (Keras' backend.rnn): the sequence made time-major,
    unstacked, the cell called once per step in the layer's own scope, the outputs stacked
    (and made batch-major again); returns ``(outputs, states, last_output)``. ``step_ops``:
    TF's op count for one step, where tideflow's cell makes fewer (their ids are skipped,
    so a random op after the layer gets TF's seed)."""
    graph = tf.get_default_graph()
    if not time_major:
        x = tf.transpose(x, [1, 0, 2])
    tf.shape(x)[0]  # (TF's time steps tensor, made and unused)
    steps = tf.unstack(x)
    if go_backwards:
        steps.reverse()
    states, outs = tuple(initial_state), []
    for inp in steps:
        start = graph._next_id
        out, states = adapter(inp, states)
        outs.append(out)
        if step_ops is not None and graph._next_id < start + step_ops:
            graph._next_id = start + step_ops
    outputs = tf.stack(outs)
    if not time_major:
        outputs = tf.transpose(outputs, [1, 0, 2])
    if step_ops is not None and not graph.building_function:
        _note_tf_unrolled_grad(adapter.cell, graph, steps[0].op, outputs, outs[-1],
                               x.get_shape().is_fully_defined())
    return outputs, states, outs[-1]


def _note_tf_unrolled_grad(cell, graph, unstack, outputs, last, static=False):
    """Has the gradient of an unrolled layer take TF 1.15's op count: TF's cell builds its
    gates from more ops (a product per gate, their inputs' gradients summed), so its
    gradient makes more, per step (one more where the steps' inputs get a gradient, one less
    where every step's output is used too for LSTM), measured against TF 1.15 per cell; the
    ids are skipped when the walk reaches the layer's output. Over a fully known shape (a
    fixed batch size: a stateful layer) TF's LSTM gradient makes 21 fewer per step and 3
    fewer in all (its elementwise gradients skip the broadcast reductions)."""
    per_step, bias = None, bool(cell.use_bias)
    impl = getattr(cell, "implementation", 1)
    if type(cell) is LSTMCell:
        per_step = (38 if bias else 34) if impl == 1 else 0
    elif type(cell) is GRUCell and not cell.reset_after:
        per_step = (11 if bias else 3) if impl == 1 else 1
    elif type(cell) is GRUCell and impl == 1 and bias:
        per_step = 21
    if not per_step:
        return
    n = len(unstack._outputs)
    lstm, impl1 = type(cell) is LSTMCell, impl == 1
    fixed = (21 * n + 3) if lstm and static else 0

    def count(between, gated, seq=outputs.op):
        with_inputs = impl1 and unstack in between
        if seq in between:  # (every step's output has a gradient)
            return n * (per_step + with_inputs - lstm) - fixed
        return n * (per_step + with_inputs) - lstm - fixed

    def count_last(between, gated, seq=outputs.op):
        # (the sequence's own counter counts the steps when every output has a gradient)
        return 0 if seq in between else count(between, gated)

    registry = graph.__dict__.setdefault("_tf_grad_ids", {})
    registry[outputs.op], registry[last.op] = count, count_last


def _call_states(cell, states):
    """As TF's Keras RNN: a ``tf.nn.rnn_cell`` cell with a single state gets that state
    itself, not a one-element list."""
    from tideflow.ops.rnn_cell_impl import RNNCell

    return states[0] if len(states) == 1 and isinstance(cell, RNNCell) else states


def _output_size(cell):
    """A cell's ``output_size`` (None when it has none, or an AbstractRNNCell leaves it
    abstract)."""
    try:
        return getattr(cell, "output_size", None)
    except NotImplementedError:
        return None


def _state_tuple(states):
    return (states,) if isinstance(states, tf.Tensor) else tuple(flatten(states))


def _takes_arg(fn, name):
    """Whether ``fn`` accepts the keyword ``name`` (or any keyword)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind == p.VAR_KEYWORD for p in params.values())


class _MaskedCellAdapter(_CellAdapter):
    """A cell over inputs ``(x, mask)``: at a masked step the states and the output stay as
    they were (the previous output rides along as the last state)."""

    def __init__(self, cell, constants=None):
        super().__init__(cell, constants)
        self.state_size = self.state_size + (self.output_size,)

    def __call__(self, inputs, state, scope=None):
        x, m = inputs
        state = list(state)
        prev_out, old = state[-1], state[:-1]
        out, new = self._cell_call(x, _call_states(self.cell, old))
        new = list(_state_tuple(new))
        m = tf.cast(m, out.dtype)
        new = [m * n + (1.0 - m) * o for n, o in zip(new, old)]
        out = m * out + (1.0 - m) * prev_out
        return out, tuple(new) + (out,)


def _keras_loop(adapter, x, initial_state):
    """Runs ``adapter`` over the time axis of [batch, time, ...] ``x`` in a while loop as
    Keras's backend.rnn does (inputs and outputs in TensorArrays); returns the outputs
    [batch, time, units] and the final states. Fewer ops than TF's (which steps once outside
    the loop too), so RNN.call can make up TF's op count."""
    xs = list(x) if isinstance(x, (list, tuple)) else [x]  # (the inputs and their mask)
    xts = [tf.transpose(v, [1, 0] + list(range(2, v.get_shape().ndims))) for v in xs]
    steps = tf.shape(xts[0])[0]
    inputs_tas = [tf.TensorArray(v.dtype, size=steps).unstack(v) for v in xts]
    outputs_ta = tf.TensorArray(xts[0].dtype, size=steps)
    time = tf.constant(0, dtype="int32", name="time")

    def body(t, out_ta, *states):
        step_in = [ta.read(t) for ta in inputs_tas]
        out, new_states = adapter(step_in if isinstance(x, (list, tuple)) else step_in[0],
                                  states)
        for old, new in zip(states, new_states):
            new.set_shape(old.get_shape())
        return (t + 1, out_ta.write(t, out)) + tuple(new_states)

    final = tf.while_loop(lambda t, *_: t < steps, body,
                          (time, outputs_ta) + tuple(initial_state),
                          parallel_iterations=32, swap_memory=True)
    outputs = final[1].stack()
    outputs = tf.transpose(outputs, [1, 0] + list(range(2, outputs.get_shape().ndims)))
    loop = final[0].op
    while loop.type == "Identity":  # (the loop's exits)
        loop = loop.inputs[0].op
    adapter._loop_op = loop
    return outputs, tuple(final[2:])


# TF 1.15's ops for the gradient of a Keras RNN layer's loop beyond the count tideflow's
# loop gradient takes (the body's different ops), measured per cell with its defaults, by
# (return_sequences, whether the inputs get a gradient); then less without a bias, and
# what a stateful layer adds
_TF_LOOP_GRAD_EXTRA = {
    "SimpleRNNCell": ({(False, False): 30, (False, True): 24, (True, False): 10,
                       (True, True): 10}, 0, 0),
    "LSTMCell": ({(False, False): 119, (False, True): 114, (True, False): 99,
                  (True, True): 100}, 5, -36),
    "GRUCell": ({(False, False): 41, (False, True): 36, (True, False): 21, (True, True): 22},
                18, 18),
}


def _reaches_variable(t, limit=500):
    """Whether ``t`` is computed from a variable (so a fit's gradients reach it)."""
    seen, stack = set(), [t.op]
    while stack and len(seen) < limit:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in ("VariableV2", "VarHandleOp"):
            return True
        stack.extend(i.op for i in op.inputs)
    return False


def _note_tf_loop_grad(layer, loop, x):
    """Has the gradient of ``loop`` take TF 1.15's op count, for a plain layer of a
    SimpleRNN, LSTM or GRU cell, whatever its activations (their gradients are the same ops
    in both loops; later random ops then draw TF's seeds)."""
    cell = layer.cell
    extra = _TF_LOOP_GRAD_EXTRA.get(type(cell).__name__)
    if extra is None or type(cell) not in (SimpleRNNCell, LSTMCell, GRUCell):
        return
    if getattr(cell, "implementation", 1) != 1 or getattr(cell, "reset_after", False):
        return
    table, no_bias, stateful = extra
    count = table[(bool(layer.return_sequences), _reaches_variable(x))]
    if not layer.return_sequences:
        count -= 2  # (the gradient of the last output's named slice: its shape and grad)
    # (the "stateful" column is what a fixed batch size changes: TF's elementwise gradients
    # over fully known shapes skip their reductions, a stateful layer's or not)
    fixed = layer.stateful or x.get_shape().is_fully_defined()
    count += (0 if cell.use_bias else -no_bias) + (stateful if fixed else 0)
    loop._graph.__dict__.setdefault("_tf_loop_grad_extra", {})[loop] = count


# TF 1.15's ops for the gradient of a masked Keras RNN layer's loop less tideflow's (whose
# masked step selects with fewer ops), measured per cell by (use_bias, return_sequences,
# whether the inputs get a gradient)
_TF_MASKED_LOOP_GRAD_EXTRA = {
    "LSTMCell": {(True, False, True): -75, (True, False, False): -70, (True, True, True): -87,
                 (True, True, False): -88, (False, False, True): -80,
                 (False, False, False): -75, (False, True, True): -92,
                 (False, True, False): -93},
    "GRUCell": {(True, False, True): -94, (True, False, False): -89, (True, True, True): -106,
                (True, True, False): -107, (False, False, True): -112,
                (False, False, False): -107, (False, True, True): -124,
                (False, True, False): -125},
    "SimpleRNNCell": {(True, False, True): -106, (True, False, False): -100,
                      (True, True, True): -118, (True, True, False): -118},
}


def _note_tf_masked_loop_grad(layer, loop, x):
    """As ``_note_tf_loop_grad``, for a masked layer (implementation 1, not stateful: the
    settings measured; going backwards counts the same)."""
    cell = layer.cell
    table = _TF_MASKED_LOOP_GRAD_EXTRA.get(type(cell).__name__)
    if table is None or type(cell) not in (SimpleRNNCell, LSTMCell, GRUCell) or \
            getattr(cell, "implementation", 1) != 1 or getattr(cell, "reset_after", False) \
            or layer.stateful:
        return
    count = table.get((bool(cell.use_bias), bool(layer.return_sequences),
                       _reaches_variable(x)))
    if count is not None and x.get_shape().is_fully_defined():
        # (a fixed batch size: TF's elementwise gradients skip their reductions)
        count += {"LSTMCell": 96, "GRUCell": 107, "SimpleRNNCell": 95}[type(cell).__name__]
    if count is not None:
        loop._graph.__dict__.setdefault("_tf_loop_grad_extra", {})[loop] = count


# the same for a layer whose cell drops out (its masks made outside the loop), by
# (return_sequences, whether the inputs get a gradient); a GRU with recurrent dropout only
# has its own
_TF_DROPOUT_LOOP_GRAD_EXTRA = {
    "LSTMCell": {(False, True): -58, (False, False): -52, (True, True): -70,
                 (True, False): -70},
    "GRUCell": {(False, True): -42, (False, False): -36, (True, True): -54,
                (True, False): -54},
    "GRUCell/recurrent": {(False, True): 34, (False, False): 39, (True, True): 22,
                          (True, False): 21},
    "SimpleRNNCell": {(False, True): 22, (False, False): 28, (True, True): 10,
                      (True, False): 10},
}


def _note_tf_dropout_loop_grad(layer, loop, x):
    """As ``_note_tf_loop_grad``, for a layer with dropout (implementation 1 with a bias,
    not stateful: the settings measured; going backwards counts the same)."""
    cell = layer.cell
    if type(cell) not in (SimpleRNNCell, LSTMCell, GRUCell) or not cell.use_bias or \
            getattr(cell, "implementation", 1) != 1 or getattr(cell, "reset_after", False) \
            or layer.stateful:
        return
    name = type(cell).__name__
    if type(cell) is GRUCell and not 0 < cell.dropout < 1:
        name += "/recurrent"
    count = _TF_DROPOUT_LOOP_GRAD_EXTRA[name][(bool(layer.return_sequences),
                                               _reaches_variable(x))]
    if x.get_shape().is_fully_defined():  # (a fixed batch size, as for masks)
        count += {"LSTMCell": 8, "GRUCell": 42, "GRUCell/recurrent": 18}.get(name, 0)
    loop._graph.__dict__.setdefault("_tf_loop_grad_extra", {})[loop] = count


# a stateful unrolled layer's ops in TF 1.15 (its first call) less the same layer's without
# states kept
_TF_STATEFUL_UNROLLED_DELTA = {"LSTMCell": -2, "GRUCell": -2, "SimpleRNNCell": -5}


# ops TF 1.15 builds for one application of an activation
_ACTIVATION_OPS = {"tanh": 1, "sigmoid": 1, "relu": 1, "softsign": 1, "softplus": 1, "elu": 1,
                   "hard_sigmoid": 8, "linear": 0}


def _tf_step_ops(cell):
    """How many ops one step of ``cell`` is in TF 1.15's Keras (its variable reads
    included), for the cells and settings whose structure is known; else None."""
    if type(cell) not in (SimpleRNNCell, LSTMCell, GRUCell):
        return None
    act = _ACTIVATION_OPS.get(activations.serialize(cell.activation))
    if act is None:
        return None
    b = bool(cell.use_bias)
    if type(cell) is SimpleRNNCell:
        return 5 + 2 * b + act
    rec = _ACTIVATION_OPS.get(activations.serialize(cell.recurrent_activation))
    if rec is None:
        return None
    if type(cell) is LSTMCell:
        base = (40 + 8 * b) if cell.implementation == 1 else (12 + 2 * b)
        return base + 3 * rec + 2 * act
    if type(cell) is GRUCell:
        if cell.implementation == 1:
            base = 45 + (32 if cell.reset_after else 18) * b
        elif not cell.reset_after:
            base = 43 + 2 * b
        elif b:
            base = 41
        else:
            return None
        return base + 2 * rec + act
    return None


def _tf_dropout_mask_ops(cell):
    """The ops TF 1.15's cell adds for its input (or its recurrent) dropout masks: the
    learning-phase conds making one mask per gate, and their use in the step."""
    if type(cell) is SimpleRNNCell:
        return 29
    if type(cell) is LSTMCell:
        return 107 if cell.implementation == 1 else 98
    if type(cell) is GRUCell and cell.implementation == 1:
        return 81
    return None


# per cell type (implementation 1, 2): filled below, once the cells are defined
_TF_STATEFUL_EXTRA_READS = {}


def _tf_rnn_op_count(layer, masked=False, made_learning_phase=False):
    """The ops TF 1.15's Keras RNN layer builds in a call (without an initial state,
    constants, statefulness or unrolling): the zero states, Keras's backend.rnn loop (the
    inputs' TensorArray, a first step outside the loop, the while frame with one Enter per
    tensor from outside), the outputs' stack, and what a mask and dropout add; None where
    unknown."""
    cell = layer.cell
    step = _tf_step_ops(cell)
    if step is None:
        return None
    states = 2 if type(cell) is LSTMCell else 1
    weights = 2 + bool(cell.use_bias)
    count = 2 * step + 14 * states + weights + 61 + 2 * bool(layer.go_backwards)
    if masked:  # (going backwards, the mask is reversed too; masked steps that output
        # zeros take the zero output into the loop: one Enter more)
        count += 27 + 3 * states + 2 * bool(layer.go_backwards) + \
            bool(layer.zero_output_for_mask)
    drops = [r for r in (cell.dropout, cell.recurrent_dropout) if 0 < r < 1]
    if drops:
        per = _tf_dropout_mask_ops(cell)
        if per is None:
            return None
        count += per * len(drops) + 2 * bool(made_learning_phase)
    return count


def _tf_cell_slices(cell):
    """The StridedSlice ops one call of a built-in cell makes in TF 1.15's Keras; None for
    other cells."""
    if type(cell) is StackedRNNCells:
        counts = [_tf_cell_slices(c) for c in cell.cells]
        return None if None in counts else sum(counts)
    impl = getattr(cell, "implementation", 1)
    if type(cell) is SimpleRNNCell:
        return 0
    if type(cell) is LSTMCell:
        return 4 if impl == 1 else 0
    if type(cell) is GRUCell:
        if impl == 1:
            return 12 if cell.reset_after else 9
        return 6 if cell.reset_after else 7
    return None


def _tf_last_output_suffix(cell, given_state, adapter=None):
    """The ``n`` of TF 1.15's '<layer>/strided_slice_<n>' last output: the slices taking the
    batch size (for the zero states, unless states are given), the first time step, then
    those of TF's first cell step outside the loop (a user's Keras cell: as many as its
    step made here)."""
    k = _tf_cell_slices(cell)
    if k is None and adapter is not None and isinstance(cell, Layer) and not isinstance(
            cell, (StackedRNNCells, SimpleRNNCell, LSTMCell, GRUCell)):
        k = adapter.__dict__.get("slices")
    return None if k is None else k + (2 if given_state else 3)


class RNN(Layer):
    """Runs ``cell`` over [batch, time, features] inputs; returns the last output (or all with
    ``return_sequences``), followed by the final states with ``return_state``."""

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, time_major=False, **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError("`cell` should have a `call` method and a `state_size` attribute. "
                             f"The RNN was passed: {cell}")
        # True: masked steps output zeros (Bidirectional sets it with return_sequences);
        # False: they repeat the previous output
        self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        if "input_shape" not in kwargs and ("input_dim" in kwargs or "input_length" in kwargs):
            # as TF 1.x: the sequence's [time, features] given apart
            kwargs["input_shape"] = (kwargs.pop("input_length", None),
                                     kwargs.pop("input_dim", None))
        super().__init__(**kwargs)
        self.cell = cell
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = unroll
        self.time_major = time_major
        self.input_spec = InputSpec(ndim=3)
        self._num_constants = None  # set by a call with ``constants``

    @property
    def states(self):
        """A stateful layer's state variables ([batch, size] each); before they exist (or
        without ``stateful``) one None per state, as TF."""
        variables = getattr(self, "_state_vars", None)
        if variables is None:
            return [None] * len(_CellAdapter(self.cell).state_size)
        return variables

    def reset_states(self, states=None):
        """Sets a stateful layer's states to zeros (or to the arrays ``states``)."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        variables = getattr(self, "_state_vars", None)
        if variables is None:
            # (not built yet: no batch size known, TF's error)
            variables = self._make_state_vars(self._batch_size_for_states(), None)
        if states is None:
            values = [np.zeros(v.get_shape().as_list(), v.dtype.as_numpy_dtype)
                      for v in variables]
        else:
            values = [np.asarray(x) for x in flatten(states)]
            if len(values) != len(variables):
                raise ValueError(f"Layer {self.name} expects {len(variables)} states, but it "
                                 f"received {len(values)} state values. Input received: "
                                 f"{states}")
            for v, x in zip(variables, values):
                if tuple(x.shape) != tuple(v.get_shape().as_list()):
                    raise ValueError(f"State is incompatible with layer {self.name}: expected "
                                     f"shape={tuple(v.get_shape().as_list())}, found "
                                     f"shape={x.shape}")
        K.batch_set_value(list(zip(variables, values)))

    def get_initial_state(self, inputs):
        """The zero (or the cell's own) initial states for ``inputs``, as a list."""
        inputs = flatten(inputs)[0]
        batch = tf.shape(inputs)[1 if self.time_major else 0]
        make = getattr(self.cell, "get_initial_state", None)
        if make is not None:
            states = make(inputs=None, batch_size=batch, dtype=inputs.dtype)
        else:
            states = _zero_states(self.cell.state_size, batch, inputs.dtype)
        return list(states) if isinstance(states, (list, tuple)) else [states]

    def _stateful_initial_state(self, x, adapter):
        """The state variables (made at the first call, zeros) as the initial states."""
        if getattr(self, "_state_vars", None) is None:
            self._make_state_vars(x.get_shape().as_list()[0], x.dtype.base_dtype)
        # their values (a state variable's ref dtype would not match the other states')
        return tuple(tf.identity(v) for v in self._state_vars)

    def _batch_size_for_states(self):
        shape = getattr(self, "_built_batch_shape", None)
        return shape[0] if shape else None

    def _make_state_vars(self, batch, dtype):
        """The zero state variables of a stateful layer ([batch, size] each)."""
        if batch is None:
            raise ValueError(
                "If a RNN is stateful, it needs to know its batch size. Specify the batch size "
                "of your input tensors: \n- If using a Sequential model, specify the batch "
                "size by passing a `batch_input_shape` argument to your first layer.\n- If "
                "using the functional API, specify the batch size by passing a "
                "`batch_shape` argument to your Input layer.")
        sizes = _CellAdapter(self.cell).state_size
        dtype = dtype or self._dtype or K.floatx()
        self._state_vars = [K.zeros((batch, size), dtype=dtype) for size in sizes]
        return self._state_vars

    def build(self, input_shape):
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        if dims[-1] is None:
            raise ValueError(f"The last dimension of the inputs to layer {self.name} should be "
                             "defined.")
        self._sequence_spec = InputSpec(ndim=3, axes={2: dims[-1]})
        self._built_batch_shape = dims
        if not getattr(self, "_with_states", False):
            self.input_spec = self._sequence_spec
        if not getattr(self.cell, "built", True):  # (a cell that is no layer: as it is)
            _adopt_dtype(self.cell, self.dtype)
            self.cell.build(TensorShape([dims[0], dims[-1]]))
            self.cell.built = True
        self.built = True

    # (a cell that is no layer, as TF: no weights or losses of its own are tracked)
    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return list(getattr(self.cell, "trainable_weights", []))

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            return list(getattr(self.cell, "weights", []))
        return list(getattr(self.cell, "non_trainable_weights", []))

    @property
    def losses(self):
        return (list(getattr(self.cell, "losses", [])) + _loss_values(self._losses)
                + self._input_losses() + self._call_losses)

    def _unconditional_losses(self):
        if not hasattr(self.cell, "_unconditional_losses"):
            return _loss_values(self._losses)
        return self.cell._unconditional_losses() + _loss_values(self._losses)

    def get_losses_for(self, inputs):
        own = super().get_losses_for(inputs)
        if inputs is None or not hasattr(self.cell, "get_losses_for"):
            return own
        # as TF: the cell's (and stacked cells') losses tied to these inputs count too
        return _merged(own, [self.cell.get_losses_for(inputs)], False)

    def call(self, inputs, mask=None, training=None, initial_state=None, constants=None):
        if isinstance(inputs, list):
            if self._num_constants and constants is None:  # [sequence, *states, *constants]
                constants = inputs[-self._num_constants:]
                inputs = inputs[:-self._num_constants]
            inputs, initial_state = inputs[0], (inputs[1:] or None)
        if constants is not None:
            constants = list(flatten(constants))
            if not _takes_arg(self.cell.call, "constants"):
                raise ValueError("RNN cell does not support constants")
        if isinstance(mask, list):  # the masks of [sequence] + states: the sequence's counts
            mask = mask[0]
        given_state = initial_state is not None
        x = inputs
        first_id = tf.get_default_graph()._next_id
        # (TF's op count is known for a call without these; ``plain`` adds no mask)
        # (given initial states, TF 1.15 makes no zero states: counted without dropout)
        countable = ((initial_state is None or not (
            self.stateful or any(getattr(self.cell, k, 0) > 0
                                 for k in ("dropout", "recurrent_dropout"))))
                     and constants is None and training is None
                     and not self.time_major
                     and K._state().learning_phase_value is None)
        unrolled = self.unroll and mask is None
        counted_unroll = countable and unrolled
        countable = countable and not self.unroll
        made_state_vars = self.stateful and getattr(self, "_state_vars", None) is None
        plain = countable and mask is None
        if self.unroll and x.get_shape().ndims and \
                x.get_shape().as_list()[0 if self.time_major else 1] is None:
            raise ValueError(
                "Cannot unroll a RNN if the time dimension is undefined. \n- If using a "
                "Sequential model, specify the time dimension by passing an `input_shape` or "
                "`batch_input_shape` argument to your first layer. If your first layer is an "
                "Embedding, you can also use the `input_length` argument.\n- If using the "
                "functional API, specify the time dimension by passing a `shape` or "
                "`batch_shape` argument to your Input layer.")
        if self.time_major and not unrolled:
            x = tf.transpose(x, [1, 0, 2])
        if self.go_backwards and not unrolled:
            x = tf.reverse(x, [1])
        adapter = (_CellAdapter(self.cell, constants) if mask is None else
                   _MaskedCellAdapter(self.cell, constants))
        batch_axis = 1 if unrolled and self.time_major else 0
        # (an unrolled stateful layer starts from its state variables: TF 1.15 takes no
        # batch size then)
        batch = None if unrolled and self.stateful and initial_state is None else \
            tf.shape(x)[batch_axis]
        if initial_state is None and self.stateful:
            initial_state = self._stateful_initial_state(x, adapter)
            if mask is not None:  # the previous output riding along starts at zero
                initial_state = initial_state + (tf.zeros(tf.stack([batch, adapter.state_size[-1]]),
                                                          dtype=x.dtype.base_dtype),)
        elif initial_state is None and unrolled:  # (TF 1.15's zeros, by their names)
            initial_state = tuple(tf.zeros([batch, s], dtype=x.dtype.base_dtype)
                                  for s in adapter.state_size)
        elif initial_state is None:
            initial_state = tuple(tf.zeros(tf.stack([batch, s]), dtype=x.dtype.base_dtype)
                                  for s in adapter.state_size)
        else:
            initial_state = tuple(flatten(initial_state))
            if mask is not None:
                initial_state = initial_state + (tf.zeros(tf.stack([batch, adapter.state_size[-1]]),
                                                          dtype=x.dtype.base_dtype),)
            if len(initial_state) != len(adapter.state_size):
                raise ValueError(f"Layer {self.name} expects {len(adapter.state_size)} "
                                 f"initial state(s), but it received {len(initial_state)}.")
        cell = self.cell
        cells = cell.cells if isinstance(cell, StackedRNNCells) else [cell]
        if any(getattr(c, "dropout", 0) > 0 or getattr(c, "recurrent_dropout", 0) > 0
               for c in cells):
            # (the learning phase only where the cell drops out, as TF's cells ask for it)
            training = training_flag(training)
        in_size = None  # (the step input's size for the cells after the first)

        def ones(size):
            return tf.ones(tf.stack([tf.shape(x)[batch_axis] if batch is None else batch, size]),
                           x.dtype.base_dtype)

        for c in cells:  # (in TF 1.15's order: at each cell's first step, inputs first)
            masks = [None, None]
            count = getattr(c, "_GATES", 1)
            if getattr(c, "dropout", 0) > 0:
                first = x[0] if unrolled and self.time_major else x[:, 0, :]
                masks[0] = _dropout_masks(tf.ones_like(first) if in_size is None
                                          else ones(in_size), c.dropout, training, count)
            if getattr(c, "recurrent_dropout", 0) > 0:
                masks[1] = _dropout_masks(
                    tf.ones_like(initial_state[0]) if c is cell
                    else ones(_CellAdapter(c).state_size[0]), c.recurrent_dropout,
                    training, count)
            if hasattr(c, "_masks"):
                c._masks = tuple(masks)
            in_size = _output_size(c) or _CellAdapter(c).state_size[0]
        rnn_inputs = x
        if mask is not None:
            m = tf.cast(mask, x.dtype.base_dtype)
            if self.time_major:
                m = tf.transpose(m, [1, 0])
            if self.go_backwards:
                m = tf.reverse(m, [1])
            rnn_inputs = (x, tf.expand_dims(m, -1))
        try:
            if unrolled:
                if counted_unroll and not given_state and not self.stateful:
                    # TF 1.15's zero states: the batch size's Shape and slice, then a zeros
                    # of eight ops per state (tideflow's take fewer: their ids are skipped)
                    graph = tf.get_default_graph()
                    graph._next_id = max(graph._next_id,
                                         first_id + 5 + 8 * len(adapter.state_size))
                step_ops = _tf_step_ops(self.cell) if counted_unroll and \
                    not any(getattr(c, k, 0) > 0 for c in cells
                            for k in ("dropout", "recurrent_dropout")) else None
                outputs, states, last_output = _unrolled(adapter, x, initial_state,
                                                         self.go_backwards, self.time_major,
                                                         step_ops)
            elif countable and _tf_rnn_op_count(self, mask is not None) is not None:
                outputs, states = _keras_loop(adapter, rnn_inputs, initial_state)
                if not any(getattr(cell, k, 0) > 0 for k in ("dropout", "recurrent_dropout")):
                    if mask is None:
                        _note_tf_loop_grad(self, adapter._loop_op, x)
                    else:
                        _note_tf_masked_loop_grad(self, adapter._loop_op, x)
                elif mask is None:
                    _note_tf_dropout_loop_grad(self, adapter._loop_op, x)
            else:
                outputs, states = tf.nn.dynamic_rnn(adapter, rnn_inputs,
                                                    initial_state=initial_state, scope="rnn")
        finally:
            for c in cells:
                if hasattr(c, "_masks"):
                    c._masks = (None, None)
        states = list(states)
        if not unrolled:
            last_output = None
        if mask is not None:
            last_output = states.pop()
        if self.stateful and getattr(self, "_state_vars", None) is not None:
            # as Keras: the final states are written back, run with the step's outputs
            self.add_update([tf.assign(v, st) for v, st in zip(self.states, states)], inputs)
        dims = inputs.get_shape().as_list()
        if self.return_sequences:
            out = outputs
            if mask is not None and self.zero_output_for_mask:
                out = out * rnn_inputs[1]
            if self.time_major and not unrolled:
                out = tf.transpose(out, [1, 0, 2])
            # (the input's own order: [time, batch] when time-major)
            out.set_shape([dims[0], dims[1], adapter.output_size])
        else:
            if last_output is None and plain and type(cell) in (SimpleRNNCell, LSTMCell,
                                                                GRUCell):
                last_output = states[0]  # (these cells' output is their new h state)
            suffix = _tf_last_output_suffix(cell, given_state or self.stateful, adapter)
            if suffix is None or self.unroll:
                out = outputs[:, -1, :] if last_output is None else last_output
            elif last_output is None:
                # TF 1.15's last output is ``outputs[-1]``, a slice its graph names
                # '<layer>/strided_slice_<n>' (programs fetch it by that name)
                out = tf.strided_slice(outputs, [0, -1, 0], [0, 0, 0], [1, 1, 1],
                                       begin_mask=5, end_mask=5, shrink_axis_mask=2,
                                       name=f"strided_slice_{suffix}")
            else:  # (the same value: the final h state, or the last unmasked output)
                out = tf.strided_slice(last_output, [0, 0], [0, 0], [1, 1], begin_mask=3,
                                       end_mask=3, name=f"strided_slice_{suffix}")
            out.set_shape([dims[1] if self.time_major else dims[0], adapter.output_size])
        for s in states:
            s.set_shape([dims[1] if self.time_major else dims[0], None])
        graph = tf.get_default_graph()
        tf_ops = None
        if countable:
            lp = graph._nodes_by_name.get("keras_learning_phase")
            tf_ops = _tf_rnn_op_count(self, mask is not None,
                                      lp is not None and lp._id >= first_id)
            if tf_ops is not None and given_state:
                # (TF's zero states: the batch size's Shape and slice, then a zeros of
                # eight ops per state)
                tf_ops -= 5 + 8 * (2 if type(self.cell) is LSTMCell else 1)
            if tf_ops is not None and self.stateful:
                # TF 1.15 starts from the state variables (made at the first call: a zeros
                # constant and the variable's five ops each, then a read) instead of the
                # batch's zero states, and writes the final states back (assign and read)
                n = len(adapter.state_size) - (mask is not None)
                tf_ops += -5 + n if made_state_vars else -5 - 5 * n
                # (and reads a state variable again where its first step uses it again)
                reads = _TF_STATEFUL_EXTRA_READS.get(type(self.cell), (0, 0))
                tf_ops += reads[getattr(self.cell, "implementation", 1) != 1]
        if counted_unroll and self.stateful and made_state_vars and \
                getattr(self.cell, "implementation", 1) == 1 and \
                type(self.cell) in _TF_STATEFUL_UNROLLED and not any(
                    getattr(c, k, 0) > 0 for c in cells for k in ("dropout", "recurrent_dropout")):
            step = _tf_step_ops(self.cell)
            if step is not None:
                # TF 1.15's unrolled graph (16 ops and the zero states' 8 each around the
                # steps), less the zero states and more the state variables' ops: measured
                n, steps = len(adapter.state_size), x.get_shape().as_list()[
                    0 if self.time_major else 1]
                tf_ops = 16 + 8 * n + steps * step + _TF_STATEFUL_UNROLLED[type(self.cell)]
        if tf_ops is not None and graph._next_id < first_id + tf_ops:
            # TF 1.15 builds this loop from more ops (initial zeros, TensorArrays, a first
            # step outside the loop, the while frame): their ids are skipped, so the layers
            # made after get TF's op count (and their initializers TF's op seeds)
            graph._next_id = first_id + tf_ops
        if self.return_state:
            return [out] + self._nest_states(states)
        return out

    def _nest_states(self, flat):
        """The final states as TF 1.15 returns them: one entry per entry of the cell's
        ``state_size`` (a StackedRNNCells gives each cell's states, a list for a cell with
        several)."""
        sizes = self.cell.state_size
        if not isinstance(sizes, (list, tuple)) or \
                not any(isinstance(size, (list, tuple)) for size in sizes):
            return list(flat)
        nested, pos = [], 0
        for size in sizes:
            n = len(flatten(size))
            nested.append(list(flat[pos:pos + n]) if isinstance(size, (list, tuple))
                          else flat[pos])
            pos += n
        return nested

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out_mask = mask if self.return_sequences else None
        if self.return_state:
            # (flat, one per state, as TF: the masks pair with the flattened outputs)
            return [out_mask] + [None] * len(_CellAdapter(self.cell).state_size)
        return out_mask

    def __call__(self, inputs, initial_state=None, constants=None, **kwargs):
        if initial_state is None and constants is None and isinstance(inputs, (list, tuple)):
            # as TF: a list [sequence, *states, *constants] (constants counted by an earlier
            # call, or by ``num_constants`` in the config)
            inputs = list(inputs)
            if self._num_constants:
                constants = inputs[-self._num_constants:]
                inputs = inputs[:-self._num_constants]
            if len(inputs) > 1:
                inputs, initial_state = inputs[0], list(inputs[1:])
            elif constants is not None:
                inputs = inputs[0]
        if initial_state is None and constants is None:
            return super().__call__(inputs, **kwargs)
        if constants is not None:
            constants = list(flatten(constants))
            self._num_constants = len(constants)
        states = flatten(initial_state) if initial_state is not None else []
        extra = states + (constants or [])
        if not _all_keras_tensors(extra, "The initial state or constants of an RNN layer"):
            # plain tensors or variables are arguments of the call, not inputs of the node
            if constants is not None:
                kwargs["constants"] = constants
            return super().__call__(inputs, initial_state=initial_state, **kwargs)
        # the states ride along as extra inputs: only the sequence input is checked, and the
        # layer keeps its one-input spec for later calls (the Keras seq2seq example calls the
        # same decoder LSTM with the encoder's states, then with fed states)
        inputs = [inputs] + extra
        self._with_states = True
        self.input_spec = None
        try:
            return super().__call__(inputs, **kwargs)
        finally:
            self._with_states = False
            self.input_spec = getattr(self, "_sequence_spec", None)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        units = _CellAdapter(self.cell).output_size
        out = TensorShape([dims[0], dims[1], units] if self.return_sequences else
                          [dims[0], units])
        if self.return_state:
            return [out] + [TensorShape([dims[0], size]) for size in
                            _CellAdapter(self.cell).state_size]
        return out

    def get_config(self):
        config = super().get_config()
        config.update(return_sequences=self.return_sequences, return_state=self.return_state,
                      go_backwards=self.go_backwards, stateful=self.stateful,
                      unroll=self.unroll, time_major=self.time_major)
        if self._num_constants:
            config["num_constants"] = self._num_constants
        # as TF 1.x: the cell travels in the config ({'class_name', 'config'})
        config["cell"] = {"class_name": type(self.cell).__name__,
                          "config": self.cell.get_config()}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tideflow.keras.layers import deserialize

        config = dict(config)
        cell = deserialize(config.pop("cell"), custom_objects=custom_objects)
        num_constants = config.pop("num_constants", None)
        layer = cls(cell, **config)
        layer._num_constants = num_constants
        return layer


_REGS = ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
         "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint")
_TAIL = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")


class _RNNLayer(RNN):
    _CELL = None
    # Keras's (TF 1.15) order of the arguments after ``units``, for positional calls
    # (``LSTM(32, "relu")`` is an activation)
    _POSITIONAL = ()

    def __init__(self, units, *args, **kwargs):
        if len(args) > len(self._POSITIONAL):
            raise TypeError(f"{type(self).__name__}() takes at most "
                            f"{len(self._POSITIONAL) + 1} positional arguments after self "
                            f"({len(args) + 1} given)")
        for n, v in zip(self._POSITIONAL, args):
            if n in kwargs:
                raise TypeError(f"{type(self).__name__}() got multiple values for argument "
                                f"'{n}'")
            kwargs[n] = v
        if self._CELL is SimpleRNNCell and "implementation" in kwargs:
            kwargs.pop("implementation")  # TF 1.x takes it, warns, and drops it
            tf.logging.warning("The `implementation` argument in `SimpleRNN` has been "
                               "deprecated. Please remove it from your layer call.")
        return_sequences = kwargs.pop("return_sequences", False)
        return_state = kwargs.pop("return_state", False)
        go_backwards = kwargs.pop("go_backwards", False)
        stateful = kwargs.pop("stateful", False)
        unroll = kwargs.pop("unroll", False)
        time_major = kwargs.pop("time_major", False)
        layer_kwargs = {k: kwargs.pop(k) for k in list(kwargs) if k in Layer._KWARGS or k in (
            "name", "trainable", "dtype", "input_length")}
        # the activity regularizer is the layer's (on its outputs), not the cell's
        cell_kwargs = dict(kwargs)
        if "dtype" in layer_kwargs:
            cell_kwargs["dtype"] = layer_kwargs["dtype"]
        cell = self._CELL(units, name="cell", **cell_kwargs)
        super().__init__(cell, return_sequences=return_sequences, return_state=return_state,
                         go_backwards=go_backwards, stateful=stateful, unroll=unroll,
                         time_major=time_major, **layer_kwargs)

    def build(self, input_shape):
        # the cell's weights are named after this layer (e.g. lstm/kernel:0)
        super().build(input_shape)

    def __getattr__(self, name):
        if name.startswith("_") or name == "cell":
            raise AttributeError(name)
        return getattr(self.cell, name)

    def get_config(self):
        cell = self.cell.get_config()
        for k in ("name", "trainable", "dtype"):
            cell.pop(k, None)
        cell.update(_ser_attrs(self, "activity_regularizer"))
        config = super().get_config()
        config.pop("cell", None)  # LSTM/GRU/SimpleRNN rebuild their own cell
        # as TF 1.15's order: the layer's and the RNN's keys, then the cell's arguments in
        # the order of the constructor
        for k in ("units",) + self._POSITIONAL:
            if k in cell and k not in config:
                config[k] = cell.pop(k)
        for k, v in cell.items():
            config.setdefault(k, v)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


def _layer_signature(cls):
    """``cls.__init__``'s signature as TF's: ``units``, then ``_POSITIONAL`` with the cell's
    defaults (and None/False for the layer's own), then ``**kwargs``."""
    P = inspect.Parameter
    cell_params = {}
    for klass in reversed(cls._CELL.__mro__):
        if "__init__" in vars(klass) and klass is not object:
            cell_params.update(inspect.signature(klass.__init__).parameters)
    params = [P("self", P.POSITIONAL_OR_KEYWORD), P("units", P.POSITIONAL_OR_KEYWORD)]
    for n in cls._POSITIONAL:
        default = cell_params[n].default if n in cell_params else (
            False if n in _TAIL or n == "reset_after" else None)
        params.append(P(n, P.POSITIONAL_OR_KEYWORD, default=default))
    params.append(P("kwargs", P.VAR_KEYWORD))

    def __init__(self, units, *args, **kwargs):
        _RNNLayer.__init__(self, units, *args, **kwargs)

    __init__.__signature__ = inspect.Signature(params)
    __init__.__doc__ = _RNNLayer.__init__.__doc__
    # (Python names the function in a missing-argument TypeError: the class's, as TF's own)
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = __init__
    return cls


@_layer_signature
class SimpleRNN(_RNNLayer):
    _CELL = SimpleRNNCell
    _POSITIONAL = ("activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                   "bias_initializer") + _REGS + ("dropout", "recurrent_dropout") + _TAIL


@_layer_signature
class LSTM(_RNNLayer):
    _CELL = LSTMCell
    _POSITIONAL = ("activation", "recurrent_activation", "use_bias", "kernel_initializer",
                   "recurrent_initializer", "bias_initializer", "unit_forget_bias") + _REGS + (
                       "dropout", "recurrent_dropout", "implementation") + _TAIL


@_layer_signature
class GRU(_RNNLayer):
    _CELL = GRUCell
    _POSITIONAL = ("activation", "recurrent_activation", "use_bias", "kernel_initializer",
                   "recurrent_initializer", "bias_initializer") + _REGS + (
                       "dropout", "recurrent_dropout", "implementation") + _TAIL + (
                           "reset_after",)


@_layer_signature
class CuDNNLSTM(_RNNLayer):
    """The LSTM of cuDNN, computed on any device (weights as Keras's CuDNNLSTM)."""

    _CELL = _CuDNNLSTMCell
    _POSITIONAL = ("kernel_initializer", "recurrent_initializer", "bias_initializer",
                   "unit_forget_bias") + _REGS + _TAIL[:4]


@_layer_signature
class CuDNNGRU(_RNNLayer):
    """The GRU of cuDNN, computed on any device (weights as Keras's CuDNNGRU)."""

    _CELL = _CuDNNGRUCell
    _POSITIONAL = ("kernel_initializer", "recurrent_initializer", "bias_initializer") + _REGS + (
        _TAIL[:4])


# -- wrappers ------------------------------------------------------------------------------------


class Wrapper(Layer):
    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        # as TF: the wrapped layer is built (on the same shape) if it is not yet, so a
        # subclass's build can read its weights after super().build
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self):
        config = super().get_config()
        config["layer"] = {"class_name": type(self.layer).__name__,
                           "config": self.layer.get_config()}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tideflow.keras.layers import deserialize

        config = dict(config)
        config["layer"] = deserialize(config["layer"], custom_objects=custom_objects)
        return cls(**config)


class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step of [batch, time, ...] inputs: the steps are folded
    into the batch (``[batch * time, ...]``), or, for a stateful layer over a known batch size,
    run one after the other."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a `Layer` "  # noqa: TRY004 (as TF)
                             f"instance. You passed: {layer}")
        super().__init__(layer, **kwargs)
        self.supports_masking = True
        self._inner_inputs = {}  # id(outer input) -> the folded tensor the layer was called on

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if len(dims) < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape ` with "
                             f"at least 3 dimensions, received: {dims}")
        # as TF: neither the batch nor the time dimension is enforced
        self.input_spec = InputSpec(shape=[None, None] + dims[2:])
        if not self.layer.built:
            # as TF 1.15: built here, so its weights are the wrapper's
            # (time_distributed/kernel:0)
            self.layer.build(tuple([dims[0]] + dims[2:]))
            self.layer.built = True
        self.built = True

    @staticmethod
    def _shape_with(prefix, tensor, start, known=None):
        """``prefix`` + the dimensions of ``tensor`` from ``start`` (``known`` if given), the
        unknown ones read at run time."""
        known = list(tensor.get_shape().as_list()[start:] if known is None else known)
        if all(known):
            return list(prefix) + known
        dynamic = tf.shape(tensor)
        return list(prefix) + [d if d else dynamic[start + i] for i, d in enumerate(known)]

    def call(self, inputs, training=None, mask=None):
        kwargs = {}
        call_args = self.layer._call_arg_names()
        if "training" in call_args:
            kwargs["training"] = training
        dims = inputs.get_shape().as_list()
        if dims[0] and getattr(self.layer, "stateful", False):
            # the batch size matters to the layer: one call per time step
            steps = [self.layer(x, **kwargs) for x in tf.unstack(inputs, axis=1)]
            y = tf.stack(steps, axis=1)
        else:
            length = dims[1] or tf.shape(inputs)[1]
            folded = tf.reshape(inputs, self._shape_with((-1,), inputs, 2))
            self._inner_inputs[id(inputs)] = folded
            if "mask" in call_args and mask is not None:
                kwargs["mask"] = K.reshape(mask, self._shape_with((-1,), mask, 2))
            y = self.layer(folded, **kwargs)
            out_dims = self.compute_output_shape(dims).as_list()
            y = tf.reshape(y, self._shape_with((-1, length), y, 1, out_dims[2:]))
            y.set_shape([dims[0], dims[1]] + out_dims[2:])
        # (as TF 1.15, the inner layer's activity regularizer counts once: its own call adds
        # it, over the folded steps)
        return y

    def compute_mask(self, inputs, mask=None):
        """As TF 1.15: over a known batch size the input mask; else the inner layer's mask of
        the folded steps (unfolded), or the input mask reduced to [batch, time]."""
        dims = inputs.get_shape().as_list()
        if dims[0]:
            return mask
        inner_mask = None
        if mask is not None:
            inner_mask = K.reshape(mask, self._shape_with((-1,), mask, 2))
        inner_inputs = self._inner_inputs.get(id(inputs), inputs)
        out_mask = self.layer.compute_mask(inner_inputs, inner_mask)
        if out_mask is None:
            if mask is None:
                return None
            out_mask = mask
            for _ in range(2, mask.get_shape().ndims):
                out_mask = K.any(out_mask, axis=-1)
            return out_mask
        length = dims[1] or tf.shape(inputs)[1]
        known = out_mask.get_shape().as_list()
        return K.reshape(out_mask, self._shape_with((-1, length), out_mask, 1, known[1:]))

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        inner = TensorShape(self.layer.compute_output_shape(
            TensorShape([dims[0]] + dims[2:]))).as_list()
        return TensorShape([inner[0], dims[1]] + inner[1:])


def _recreate(layer, config):
    """A copy of ``layer`` from ``config``; as TF 1.15, the classes of its cell (and of a
    StackedRNNCells' cells) are known to the deserializer without a custom-object scope."""
    custom = {}
    cell = getattr(layer, "cell", None)
    for c in [cell] + list(getattr(cell, "cells", [])) if cell is not None else []:
        custom[type(c).__name__] = type(c)
    if custom and "custom_objects" in inspect.signature(type(layer).from_config).parameters:
        return type(layer).from_config(config, custom_objects=custom)
    return type(layer).from_config(config)


def _each_sublayer_counts(own, per_sublayer):
    """``own`` and then each sublayer's losses that are not among ``own``; as TF 1.15, a
    tensor two sublayers both hold counts once for each."""
    seen = {id(x) for x in own}
    return list(own) + [x for losses in per_sublayer for x in losses if id(x) not in seen]


class Bidirectional(Wrapper):
    """Runs ``layer`` forwards and a copy backwards and merges their outputs
    (``merge_mode``: 'concat', 'sum', 'mul', 'ave' or None for a list)."""

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `Bidirectional` layer with a `Layer` "  # noqa: TRY004 (as TF)
                             f"instance. You passed: {layer}")
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(f"Invalid merge mode. Merge mode should be one of "
                             f'{{"sum", "mul", "ave", "concat", None}}: {merge_mode}')
        super().__init__(layer, **kwargs)
        def fresh_config(prefix):
            # as TF 1.15, each copy is made from a config of its own: a cell's from_config may
            # consume its (nested) config
            config = layer.get_config()
            config["name"] = prefix + config["name"]
            config.pop("batch_input_shape", None)
            return config

        self.forward_layer = _recreate(layer, fresh_config("forward_"))
        self._backward_layer_config = None
        if backward_layer is None:
            config = fresh_config("backward_")
            config["go_backwards"] = not config.get("go_backwards", False)
            self.backward_layer = _recreate(layer, config)
        else:
            self.backward_layer = backward_layer
            # as TF 1.x: a given backward layer travels in the config
            self._backward_layer_config = {"class_name": type(backward_layer).__name__,
                                           "config": backward_layer.get_config()}
        # as TF 1.15: with return_sequences, masked steps of both directions output zeros
        for sub in (self.forward_layer, self.backward_layer):
            if getattr(sub, "zero_output_for_mask", None) is not None:
                sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self._sublayers = [self.forward_layer, self.backward_layer]
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self._num_constants = None  # set by a call with ``constants``

    def reset_states(self):
        """Resets both directions' states (stateful layers), as TF 1.15's."""
        self.forward_layer.reset_states()
        self.backward_layer.reset_states()

    @property
    def losses(self):
        return _each_sublayer_counts(_loss_values(self._losses) + self._input_losses()
                                     + self._call_losses,
                                     [sub.losses for sub in self._sublayers])

    def _unconditional_losses(self):
        return _each_sublayer_counts(_loss_values(self._losses),
                                     [sub._unconditional_losses() for sub in self._sublayers])

    def get_losses_for(self, inputs):
        if inputs is None:
            return self._unconditional_losses()
        keys = _input_keys(inputs)
        own = _merged(self._input_losses(keys),
                      [node.losses for node in self._calls_on(inputs)], False)
        return _each_sublayer_counts(own, [sub._input_losses(keys) for sub in self._sublayers])

    def get_config(self):
        config = super().get_config()
        config["merge_mode"] = self.merge_mode
        if self._num_constants:
            config["num_constants"] = self._num_constants
        if self._backward_layer_config is not None:
            config["backward_layer"] = self._backward_layer_config
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tideflow.keras.layers import deserialize

        config = dict(config)
        if config.get("backward_layer") is not None:
            config["backward_layer"] = deserialize(config["backward_layer"],
                                                   custom_objects=custom_objects)
        num_constants = config.pop("num_constants", None)
        layer = super().from_config(config, custom_objects=custom_objects)
        layer._set_num_constants(num_constants)
        return layer

    def _set_num_constants(self, n):
        self._num_constants = n
        for sub in (self.forward_layer, self.backward_layer):
            if hasattr(sub, "_num_constants"):
                sub._num_constants = n

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out_mask = mask if self.return_sequences else None
        if self.return_state:
            n = len(_CellAdapter(self.forward_layer.cell).state_size)
            return [out_mask] + [None] * (2 * n)
        return out_mask

    def build(self, input_shape):
        # as TF 1.15: the forward and backward layers are built here (a direct
        # ``build(shape)`` gives the wrapper its weights); with states or constants among the
        # inputs, they are built when called
        if not isinstance(input_shape, list) and not self._num_constants:
            for layer in (self.forward_layer, self.backward_layer):
                if not layer.built:
                    with K.name_scope(layer.name):
                        layer.build(input_shape)
        self.built = True

    def __call__(self, inputs, initial_state=None, constants=None, **kwargs):
        if isinstance(inputs, (list, tuple)) and initial_state is None and constants is None:
            # [sequence, *forward states, *backward states, *constants]
            inputs = list(inputs)
            if self._num_constants:
                constants = inputs[-self._num_constants:]
                inputs = inputs[:-self._num_constants]
            if len(inputs) > 1:
                inputs, initial_state = inputs[0], list(inputs[1:])
            else:
                inputs = inputs[0]
        if constants is not None:
            constants = list(flatten(constants))
            self._set_num_constants(len(constants))
        if initial_state is None and constants is None:
            return super().__call__(inputs, **kwargs)
        states = flatten(initial_state) if initial_state is not None else []
        if len(states) % 2:
            raise ValueError("When passing `initial_state` to a Bidirectional RNN, the state "
                             "should be a list containing the states of the underlying RNNs. "
                             f"Found: {initial_state}")
        extra = states + (constants or [])
        if not _all_keras_tensors(extra, "The initial state of a Bidirectional layer"):
            if constants is not None:
                kwargs["constants"] = constants
            return super().__call__(inputs, initial_state=states or None, **kwargs)
        # Keras tensors ride along as inputs of the node (the model can reach them)
        spec, self.input_spec = self.input_spec, None
        try:
            return super().__call__([inputs] + extra, **kwargs)
        finally:
            self.input_spec = spec

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list) and input_shape and not isinstance(
                input_shape[0], (int, type(None))):
            input_shape = input_shape[0]  # (the sequence's, of [sequence] + states)
        shapes = self.forward_layer.compute_output_shape(input_shape)
        states = []
        if self.return_state:
            shapes = list(shapes)
            shapes, states = shapes[0], [TensorShape(t) for t in shapes[1:]]
        out = TensorShape(shapes).as_list()
        if self.merge_mode == "concat":
            out[-1] = None if out[-1] is None else 2 * out[-1]
        outs = [TensorShape(out), TensorShape(out)] if self.merge_mode is None else \
            [TensorShape(out)]
        if self.return_state:
            return outs + states + list(states)
        return outs if self.merge_mode is None else outs[0]

    def call(self, inputs, training=None, mask=None, initial_state=None, constants=None):
        kwargs = {}
        if training is not None:
            kwargs["training"] = training
        forward_state = backward_state = None
        if isinstance(inputs, list) and self._num_constants and constants is None:
            constants = inputs[-self._num_constants:]
            inputs = inputs[:-self._num_constants]
            if len(inputs) == 1:
                inputs = inputs[0]
        if constants is not None:
            kwargs["constants"] = constants
        if isinstance(inputs, list):  # [sequence] + forward states + backward states
            half = (len(inputs) - 1) // 2
            inputs, forward_state, backward_state = inputs[0], inputs[1:1 + half], \
                inputs[1 + half:]
        elif initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(inputs, initial_state=forward_state, **kwargs)
        y_rev = self.backward_layer(inputs, initial_state=backward_state, **kwargs)
        states = []
        if self.return_state:
            states = y[1:] + y_rev[1:]
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = tf.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            out = K.concatenate([y, y_rev])
        elif self.merge_mode == "sum":
            out = y + y_rev
        elif self.merge_mode == "ave":
            out = (y + y_rev) / 2
        elif self.merge_mode == "mul":
            out = y * y_rev
        else:
            out = [y, y_rev]
        if self.return_state:
            return (out if isinstance(out, list) else [out]) + states
        return out


def _all_keras_tensors(tensors, what):
    """Whether ``tensors`` (initial states, constants) are Keras tensors (inputs of the layer's
    node) rather than plain tensors (arguments of its call); TF's ValueError naming ``what``
    for a mix."""
    keras = [isinstance(t, tf.Tensor) and K.is_keras_tensor(t) for t in tensors]
    if any(keras) and not all(keras):
        raise ValueError(f"{what} cannot be specified with a mix of Keras tensors and "
                         "non-Keras tensors (a \"Keras tensor\" is a tensor that was returned "
                         "by a Keras layer, or by `Input`)")
    return bool(keras) and all(keras)


_TF_STATEFUL_EXTRA_READS.update({GRUCell: (3, 2), LSTMCell: (3, 0)})

_TF_STATEFUL_UNROLLED = {globals()[k]: v for k, v in _TF_STATEFUL_UNROLLED_DELTA.items()}
