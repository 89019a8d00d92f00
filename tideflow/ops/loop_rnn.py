"""RNN drivers steered from outside: ``raw_rnn`` (a loop function decides inputs, stopping
and emits) and ``static_state_saving_rnn`` (state kept by a state saver between runs)."""


from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    fill_ops,
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
    from tideflow.ops.array_ops import constant_value_as_shape
    from tideflow.ops.rnn import _check_cell
    from tideflow.ops.rnn_cell_impl import _concat_shape
    from tideflow.ops.tensor_array import ProgramTensorArray
    from tideflow.ops.while_loop import while_loop

    _check_cell(cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    # (TF 1.15's ops, in its order: the loop variables are time, finished, inputs, the emit
    # arrays, the state and the loop state, a Const 0 where loop_fn gives none)
    with vs.variable_scope(scope or "rnn"):
        time = ops.convert_to_tensor(0, dtype=dtypes.int32)
        finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(
            time, None, None, None)
        if initial_state is None:
            raise ValueError("loop_fn must return an initial cell state at time 0")
        flat_input = nest.flatten(next_input)
        loop_state = (init_loop_state if init_loop_state is not None else
                      ops.convert_to_tensor(0, dtype=dtypes.int32))
        const_batch = flat_input[0].get_shape().with_rank_at_least(1)[0].value
        batch = const_batch if const_batch is not None else array_ops.shape(flat_input[0])[0]
        state = nest.map_structure(ops.convert_to_tensor, initial_state)
        if emit_structure is not None:
            flat_emit = [ops.convert_to_tensor(e) for e in nest.flatten(emit_structure)]
            emit_sizes = [e.get_shape() if e.get_shape().is_fully_defined()
                          else array_ops.shape(e) for e in flat_emit]
            emit_dtypes = [e.dtype for e in flat_emit]
        else:
            emit_structure = cell.output_size
            emit_sizes = nest.flatten(emit_structure)
            emit_dtypes = [nest.flatten(state)[0].dtype] * len(emit_sizes)
        static = [TensorShape([const_batch]).concatenate(
            constant_value_as_shape(size) if isinstance(size, ops.Tensor) else size)
            for size in emit_sizes]
        emit_tas = [ProgramTensorArray(dtype=dt, size=0, dynamic_size=True, name=f"rnn_output_{i}",
                                element_shape=shape)
                    for i, (dt, shape) in enumerate(zip(emit_dtypes, static))]
        zeros = []
        for dt, size, shape in zip(emit_dtypes, emit_sizes, static):
            z = fill_ops.zeros(_concat_shape(batch, size), dt)
            z.set_shape(shape)
            zeros.append(z)

        def cond(time, finished, *_):
            return math_ops.logical_not(reduction_ops.reduce_all(finished))

        def body(time, finished, current_input, emit_tas, state, loop_state):
            output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            next_time = time + 1
            next_finished, next_input, next_state, emit, next_loop_state = loop_fn(
                next_time, output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            if next_loop_state is not None:
                loop_state = next_loop_state

            def keep_finished(current, candidate):
                # (a scalar, as a TensorArray, is taken as given)
                candidate = ops.convert_to_tensor(candidate)
                if current.get_shape().ndims == 0:
                    return candidate
                return gather_ops.where(finished, current, candidate)

            emit = output if emit is None else emit
            flat_emit = [keep_finished(z, e) for z, e in zip(zeros, nest.flatten(emit))]
            next_state = nest.map_structure(keep_finished, state, next_state)
            emit_tas = [ta.write(time, e) for ta, e in zip(emit_tas, flat_emit)]
            finished = math_ops.logical_or(finished, next_finished)
            return (next_time, finished, next_input, emit_tas, next_state, loop_state)

        out = while_loop(cond, body, [time, finished, next_input, emit_tas, state, loop_state],
                         parallel_iterations=parallel_iterations or 32,
                         swap_memory=swap_memory)
        final_tas, final_state, final_loop_state = out[-3:]
        emit_ta = nest.pack_sequence_as(emit_structure, list(final_tas))
        return emit_ta, final_state, final_loop_state if init_loop_state is not None else None


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


