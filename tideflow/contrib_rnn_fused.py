"""``tf.contrib.rnn``'s fused-RNN helpers over time-major inputs: ``FusedRNNCell``,
``FusedRNNCellAdaptor``, ``TimeReversedFusedRNN``, the ``LSTMBlockWrapper`` base of fused
LSTMs, and ``best_effort_input_batch_size``."""

from tideflow.framework import ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    fill_ops,
    gather_ops,
    pad_ops,
    range_ops,
    reverse_sequence_ops,
)
from tideflow.ops import rnn as rnn_ops
from tideflow.ops.layers_base import Layer
from tideflow.ops.rnn_cell_impl import LSTMStateTuple, RNNCell


class FusedRNNCell:
    """Abstract fused cell: ``cell(inputs [time, batch, depth], initial_state=None,
    dtype=None, sequence_length=None, scope=None) -> (outputs, final_state)``."""

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None,
                 scope=None):
        raise NotImplementedError("Abstract method")


class FusedRNNCellAdaptor(FusedRNNCell):
    """Runs a plain ``RNNCell`` as a fused cell over time-major inputs (``dynamic_rnn`` or,
    with ``use_dynamic_rnn=False``, ``static_rnn``)."""

    def __init__(self, cell, use_dynamic_rnn=False):
        self._cell = cell
        self._use_dynamic_rnn = use_dynamic_rnn

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None,
                 scope=None):
        is_list = isinstance(inputs, list)
        if self._use_dynamic_rnn:
            if is_list:
                inputs = concat_ops.stack(inputs)
            outputs, state = rnn_ops.dynamic_rnn(
                self._cell, inputs, sequence_length=sequence_length,
                initial_state=initial_state, dtype=dtype, time_major=True, scope=scope)
            return (concat_ops.unstack(outputs) if is_list else outputs), state
        steps = inputs if is_list else concat_ops.unstack(inputs,
                                                          num=inputs.get_shape()[0].value)
        outputs, state = rnn_ops.static_rnn(self._cell, steps, initial_state=initial_state,
                                            dtype=dtype, sequence_length=sequence_length,
                                            scope=scope)
        return (outputs if is_list else concat_ops.stack(outputs)), state


class TimeReversedFusedRNN(FusedRNNCell):
    """Runs a fused cell backwards in time (each row reversed over its own length when
    ``sequence_length`` is given) and reverses its outputs back."""

    def __init__(self, cell):
        if not isinstance(cell, FusedRNNCell) and not callable(cell):
            raise TypeError(f"cell must be a FusedRNNCell, saw {type(cell).__name__}")
        if isinstance(cell, RNNCell):
            cell = FusedRNNCellAdaptor(cell)
        self._cell = cell

    def __call__(self, inputs, initial_state=None, dtype=None, sequence_length=None,
                 scope=None):

        def rev(t):
            if isinstance(t, list):  # a list of steps (TF reverses the list itself)
                return list(reversed(t))
            if sequence_length is None:
                return pad_ops.reverse(t, [0])
            return reverse_sequence_ops.reverse_sequence(t, sequence_length, seq_axis=0,
                                                         batch_axis=1)

        inputs = rev(inputs)
        outputs, state = self._cell(inputs, initial_state=initial_state, dtype=dtype,
                                    sequence_length=sequence_length, scope=scope)
        return rev(outputs), state


def best_effort_input_batch_size(flat_input):
    """The batch size of time-major ``flat_input`` (dimension 1): static where any input
    knows it, else the first input's dynamic size."""
    for x in flat_input:
        shape = x.get_shape()
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Expected input tensor {x.name} to have rank at least 2")
        if shape[1].value is not None:
            return shape[1].value
    return array_ops.shape(flat_input[0])[1]



class LSTMBlockWrapper(Layer):
    """Base of fused LSTMs over time-major inputs: subclasses define ``num_units`` and
    ``_call_cell(inputs, initial_cell_state, initial_output, dtype, sequence_length)``
    returning the cell states and outputs of every step; ``call`` supplies zero initial
    states, masks outputs past ``sequence_length`` and picks each row's final state."""

    @property
    def num_units(self):
        raise NotImplementedError("Abstract method")

    def _call_cell(self, inputs, initial_cell_state, initial_output, dtype, sequence_length):
        raise NotImplementedError("Abstract method")

    def call(self, inputs, initial_state=None, dtype=None, sequence_length=None):
        is_list = isinstance(inputs, list)
        if is_list:
            inputs = concat_ops.stack(inputs)
        shape = TensorShape(inputs.get_shape()).with_rank(3)
        if shape[2].value is None:
            raise ValueError(f"Expecting inputs_shape[2] to be set: {shape}")
        batch_size = shape[1].value or array_ops.shape(inputs)[1]
        time_len = shape[0].value or array_ops.shape(inputs)[0]
        if initial_state is None:
            if dtype is None:
                raise ValueError("Either initial_state or dtype needs to be specified")
            z = fill_ops.zeros(concat_ops.stack([batch_size, self.num_units]), dtype=dtype)
            initial_state = z, z
        else:
            if len(initial_state) != 2:
                raise ValueError("Expecting initial_state to be a tuple with length 2 or None")
            dtype = dtype or initial_state[0].dtype
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length)
        c0, h0 = initial_state
        cell_states, outputs = self._call_cell(inputs, c0, h0, dtype, sequence_length)
        if sequence_length is not None:
            mask = array_ops.transpose(range_ops.sequence_mask(sequence_length, time_len,
                                                               dtype=dtype), [1, 0])
            outputs *= pad_ops.tile(array_ops.expand_dims(mask, [-1]), [1, 1, self.num_units])
            # index 0 is the initial state, so a length of 0 picks it
            all_c = concat_ops.concat([array_ops.expand_dims(c0, [0]), cell_states], 0)
            all_h = concat_ops.concat([array_ops.expand_dims(h0, [0]), outputs], 0)

            def final(steps):  # (each with its own rows, as TF 1.15 builds them)
                rows = concat_ops.stack([cast_ops.cast(sequence_length, "int32"),
                                         range_ops.range(batch_size)], axis=1)
                return gather_ops.gather_nd(steps, rows)

            final_c, final_h = final(all_c), final(all_h)
        else:
            final_c, final_h = cell_states[-1], outputs[-1]
        if is_list:
            outputs = concat_ops.unstack(outputs)
        return outputs, LSTMStateTuple(final_c, final_h)


__all__ = ["FusedRNNCell", "FusedRNNCellAdaptor", "LSTMBlockWrapper", "TimeReversedFusedRNN",
           "best_effort_input_batch_size"]
