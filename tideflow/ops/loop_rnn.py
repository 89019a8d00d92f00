"""RNN drivers steered from outside: ``raw_rnn`` (a loop function decides inputs, stopping
and emits) and ``static_state_saving_rnn`` (state kept by a state saver between runs)."""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    gather_ops,
    math_ops,
    reduction_ops,
)

# ------------------------------------------------------------------------------------------
# raw_rnn: an RNN driven by a user loop function
# ------------------------------------------------------------------------------------------


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """Runs ``cell`` in a ``while_loop`` whose inputs, stopping and emitted values come from
    ``loop_fn(time, cell_output, cell_state, loop_state) -> (finished, next_input,
    next_cell_state, emit_output, next_loop_state)`` (called first with ``time=0`` and Nones).
    Returns ``(emit_ta, final_state, final_loop_state)``; finished rows emit zeros and keep
    their state."""
    from tideflow.framework import nest
    from tideflow.ops import variable_scope as vs
    from tideflow.ops.rnn import _check_cell
    from tideflow.ops.tensor_array import TensorArray
    from tideflow.ops.while_loop import while_loop

    _check_cell(cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    with vs.variable_scope(scope or "rnn"):
        time = ops.convert_to_tensor(0, dtype=dtypes.int32, name="time")
        finished, next_input, initial_state, emit_structure, loop_state = loop_fn(
            time, None, None, None)
        finished = ops.convert_to_tensor(finished, dtype=dtypes.bool)
        if initial_state is None:
            raise ValueError("loop_fn must return an initial cell state at time 0")
        state = initial_state
        flat_input = nest.flatten(next_input)
        batch = flat_input[0].get_shape()[0].value if flat_input[0].get_shape().ndims else None
        if batch is None:
            batch_t = array_ops.shape(flat_input[0])[0]
        if emit_structure is not None:
            flat_emit = [ops.convert_to_tensor(e) for e in nest.flatten(emit_structure)]
            emit_dtypes = [e.dtype for e in flat_emit]
            emit_shapes = [e.get_shape() for e in flat_emit]
        else:
            sizes = nest.flatten(cell.output_size)
            dt = nest.flatten(state)[0].dtype
            emit_dtypes = [dt] * len(sizes)
            emit_shapes = [TensorShape([batch] + ([s] if isinstance(s, int) else
                                                  TensorShape(s).as_list())) for s in sizes]
        zeros = []
        for dt, shape in zip(emit_dtypes, emit_shapes):
            inner = shape[1:].as_list() if shape.ndims is not None else []
            if batch is not None:
                z = array_ops.zeros([batch] + inner, dt)
            else:
                from tideflow.ops.concat_ops import concat

                z = array_ops.zeros(concat([array_ops.reshape(batch_t, [1]),
                                            np.array(inner, np.int32)], 0), dt)
            z.set_shape([batch] + inner)
            zeros.append(z)
        emit_tas = tuple(TensorArray(dtype=dt, size=0, dynamic_size=True,
                                     element_shape=shape)
                         for dt, shape in zip(emit_dtypes, emit_shapes))
        has_loop_state = loop_state is not None
        loop_vars = (time, finished, next_input, state, emit_tas,
                     loop_state if has_loop_state else ops.convert_to_tensor(0))

        def cond(time, finished, *_):
            return math_ops.logical_not(reduction_ops.reduce_all(finished))

        def body(time, finished, current_input, state, emit_tas, loop_state):
            output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nxt = loop_fn(time + 1, output, cell_state, loop_state if has_loop_state else None)
            next_finished, next_input, next_state, emit, next_loop_state = nxt
            nest.assert_same_structure(state, next_state)
            emit = output if emit is None else emit
            flat_emit = nest.flatten(emit)
            flat_emit = [gather_ops.where(finished, z, e) for z, e in zip(zeros, flat_emit)]
            state = nest.map_structure(lambda s, n: gather_ops.where(finished, s, n), state,
                                       next_state)
            emit_tas = tuple(ta.write(time, e) for ta, e in zip(emit_tas, flat_emit))
            finished = math_ops.logical_or(finished, ops.convert_to_tensor(next_finished))
            return (time + 1, finished, next_input, state, emit_tas,
                    next_loop_state if has_loop_state else loop_state)

        out = while_loop(cond, body, loop_vars, parallel_iterations=parallel_iterations or 32,
                         swap_memory=swap_memory)
        _, _, _, final_state, final_tas, final_loop_state = out
        structure = emit_structure if emit_structure is not None else cell.output_size
        emit_ta = nest.pack_sequence_as(structure, list(final_tas))
        return emit_ta, final_state, final_loop_state if has_loop_state else None


# ------------------------------------------------------------------------------------------
# static_state_saving_rnn
# ------------------------------------------------------------------------------------------


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None,
                            scope=None):
    """:func:`tf.nn.static_rnn` starting from ``state_saver.state(state_name)`` and saving
    the final state with ``state_saver.save_state``; the last output and the returned state
    depend on the saves (for time-truncated training over segments)."""
    from tideflow.framework import nest
    from tideflow.ops.rnn import static_rnn

    state_size = cell.state_size
    tuple_state = nest.is_sequence(state_size)
    if tuple_state != nest.is_sequence(state_name):
        raise ValueError(f"state_name should be the same type as cell.state_size.  state_name: "
                         f"{state_name}, cell.state_size: {state_size}")
    if tuple_state:
        if len(nest.flatten(state_name)) != len(nest.flatten(state_size)):
            raise ValueError(f"Number of elements in state_name ({state_name}) does not match "
                             f"the number of elements in cell.state_size ({state_size})")
        names = nest.flatten(state_name)
        initial_state = nest.pack_sequence_as(state_size, [state_saver.state(n) for n in names])
    else:
        names = [state_name]
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    flat_state = nest.flatten(state)
    saves = [state_saver.save_state(n, s) for n, s in zip(names, flat_state)]
    outputs = list(outputs)
    with ops.control_dependencies(saves):
        last = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(last, [array_ops.identity(o)
                                                   for o in nest.flatten(last)])
        state = nest.pack_sequence_as(state, [array_ops.identity(s) for s in flat_state])
    return outputs, state


