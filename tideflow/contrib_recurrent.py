"""``tf.contrib.recurrent``: ``Recurrent`` (a cell function of ``(theta, state, inputs[t])``
run over time, every step's state kept) and ``functional_rnn`` /
``bidirectional_functional_rnn``, dynamic_rnn's interface over it, as TF 1.15 defines them."""

from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    init_ops,
    math_ops,
    range_ops,
    reduction_ops,
)
from tideflow.ops import variable_scope as vs
from tideflow.ops.reverse_sequence_ops import reverse_sequence
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop


def _index(struct, index):
    index = ops.convert_to_tensor(index)
    index.get_shape().assert_has_rank(0)
    return nest.map_structure(lambda x: array_ops.gather(x, index), struct)


def _is_single_time_step(inputs, max_input_length):
    if not isinstance(max_input_length, ops.Tensor):
        return max_input_length == 1
    for x in nest.flatten(inputs):
        if x.shape.dims is None or x.shape[0].value != 1:
            return False
    return True


def Recurrent(theta, state0, inputs, cell_fn, cell_grad=None, extras=None,
              max_input_length=None, use_tpu=False, aligned_end=False):
    """``(accumulated states, final state)``: ``state = cell_fn(theta, state, inputs[t])[0]``
    for each step ``t`` of the inputs' first axis, up to ``max_input_length`` steps (the last
    ones when ``aligned_end``), every step's state stored at its index of the accumulated
    states (zeros at the steps not run).

    ``theta``, ``state0`` and ``inputs`` are structures of tensors. The gradient is the
    loop's own (tideflow differentiates through the steps): a given ``cell_grad`` is not
    called, so it must be ``cell_fn``'s true gradient for the results to agree with TF's.
    """
    del use_tpu, extras  # the extras ``cell_fn`` returns are not returned by TF either
    if cell_grad is None and _is_single_time_step(inputs, max_input_length):
        # one step, statically known: no loop (as TF)
        inputs = nest.map_structure(lambda x: array_ops.squeeze(x, axis=0), inputs)
        state1, _ = cell_fn(theta, state0, inputs)
        return nest.map_structure(lambda x: array_ops.expand_dims(x, axis=0), state1), state1
    # TF calls cell_fn once outside its loop, for the extras' structure (and a cell's
    # variables are made there)
    cell_fn(theta, state0, _index(inputs, 0))
    flat_inputs = nest.flatten(inputs)
    slen = array_ops.shape(flat_inputs[0])[0]
    if max_input_length is None:
        max_input_length = reduction_ops.reduce_max(slen)
    max_input_length = cast_ops.cast(max_input_length, dtypes.int32)
    start = slen - max_input_length if aligned_end else 0
    limit = slen if aligned_end else max_input_length
    flat_state0 = [ops.convert_to_tensor(s) for s in nest.flatten(state0)]
    static_len = flat_inputs[0].get_shape()[0].value if flat_inputs[0].get_shape().ndims \
        else None
    accumulators = tuple(
        TensorArray(dtype=s.dtype, size=slen, element_shape=s.get_shape())
        for s in flat_state0)
    # the steps read the inputs from TensorArrays (their gradient, a TensorArray too, sums
    # over the steps)
    input_tas = tuple(
        TensorArray(dtype=x.dtype, size=slen, element_shape=x.get_shape()[1:]).unstack(x)
        for x in flat_inputs)

    def inputs_at(t):
        values = [ta.read(t) for ta in input_tas]
        for value, x in zip(values, flat_inputs, strict=True):
            value.set_shape(x.get_shape()[1:])
        return nest.pack_sequence_as(inputs, values)

    def cond(t, *_):
        return math_ops.less(t, limit)

    def body(t, acc, flat_state):
        state = nest.pack_sequence_as(state0, list(flat_state))
        state1, _ = cell_fn(theta, state, inputs_at(t))
        flat1 = [ops.convert_to_tensor(s) for s in nest.flatten(state1)]
        for new, old in zip(flat1, flat_state, strict=True):
            new.set_shape(old.get_shape())
        acc = tuple(a.write(t, s) for a, s in zip(acc, flat1, strict=True))
        return t + 1, acc, tuple(flat1)

    _, acc, final = while_loop(cond, body, (ops.convert_to_tensor(start), accumulators,
                                            tuple(flat_state0)))
    stacked = []
    for a, s in zip(acc, flat_state0, strict=True):
        value = a.stack()
        value.set_shape(TensorShape([static_len]).concatenate(s.get_shape()))
        stacked.append(value)
    return (nest.pack_sequence_as(state0, stacked),
            nest.pack_sequence_as(state0, list(final)))


def _apply_lengths(sequence_lengths, output):
    """``output`` [batch, time, depth] zeroed at and after each example's length."""
    shape = array_ops.shape(output)
    batch, max_time, depth = shape[0], shape[1], shape[2]
    times = array_ops.reshape(array_ops.tile(range_ops.range(0, max_time), [batch]),
                              [batch, max_time])
    lengths = array_ops.tile(array_ops.reshape(sequence_lengths, [-1, 1]), [1, max_time])
    keep = cast_ops.cast(math_ops.less(times, lengths), output.dtype)
    return array_ops.tile(array_ops.expand_dims(keep, -1), [1, 1, depth]) * output


def _final_from_history(acc_state, sequence_length):
    """``acc_state[sequence_length - 1]`` per example, for each [time, batch, ...] tensor."""
    last = []
    for value in nest.flatten(acc_state):
        shape = array_ops.shape(value)
        max_time, batch = shape[0], shape[1]
        times = array_ops.reshape(array_ops.tile(range_ops.range(0, max_time), [batch]),
                                  [batch, max_time])
        lengths = array_ops.tile(array_ops.reshape(sequence_length, [-1, 1]), [1, max_time])
        pick = array_ops.transpose(cast_ops.cast(math_ops.equal(times, lengths - 1),
                                                 value.dtype))
        last.append(reduction_ops.reduce_sum(
            math_ops.multiply(array_ops.expand_dims(pick, -1), value), 0))
    return nest.pack_sequence_as(acc_state, last)


def functional_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                   time_major=False, scope=None, use_tpu=False, reverse=False):
    """``tf.nn.dynamic_rnn``'s interface over ``Recurrent``. As TF's, the cell runs to the
    longest sequence for every example: the outputs past an example's length are zeros and
    its final state is the one at its last step; ``reverse`` runs the steps from the end."""
    with vs.variable_scope(scope or "rnn"):
        if not time_major:
            inputs = nest.map_structure(lambda t: array_ops.transpose(t, [1, 0, 2]), inputs)
        flat_inputs = nest.flatten(inputs)
        batch_size = array_ops.shape(flat_inputs[0])[1]
        if initial_state is None:
            initial_state = cell.zero_state(batch_size, dtype)
        state_dtype = nest.flatten(initial_state)[0].dtype
        template = initial_state
        output_size = cell.output_size
        # the state carries the output too, so the history holds every step's output
        extended0 = [array_ops.zeros([batch_size, output_size], dtype=state_dtype),
                     template]

        def cell_step(theta, extended_state0, inputs_t):
            del theta
            outputs_t, state1 = cell(inputs_t, extended_state0[1])
            return [outputs_t, state1], []

        max_length = None
        if sequence_length is not None:
            max_length = reduction_ops.reduce_max(sequence_length)
        if reverse:
            inputs = array_ops.reverse(inputs, [0])
        # TF builds the cell in a function graph, whose variables miss the enclosing scopes'
        # initializer: a weight without its own takes the layers' default, glorot uniform
        with vs.variable_scope(vs.get_variable_scope(),
                               initializer=init_ops.glorot_uniform_initializer()):
            acc, final = Recurrent(theta=[], state0=extended0, inputs=inputs,
                                   cell_fn=cell_step, max_input_length=max_length,
                                   use_tpu=use_tpu, aligned_end=reverse)
    if sequence_length is None or reverse:
        state = final[1]
    else:
        state = _final_from_history(acc[1], sequence_length)
    output = acc[0]
    if reverse:
        output = array_ops.reverse(output, [0])
    output = array_ops.transpose(output, [1, 0, 2])
    total_time = flat_inputs[0].get_shape()[0].value if flat_inputs[0].get_shape().ndims \
        else None
    batch_static = flat_inputs[0].get_shape()[1].value if flat_inputs[0].get_shape().ndims \
        else None
    output.set_shape([batch_static, total_time, output_size])
    if sequence_length is not None:
        output = _apply_lengths(sequence_length, output)
    for value, like in zip(nest.flatten(state), nest.flatten(template), strict=True):
        value.set_shape(like.get_shape())
    if time_major:
        output = array_ops.transpose(output, [1, 0, 2])
    return output, state


def bidirectional_functional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                                 initial_state_bw=None, dtype=None, sequence_length=None,
                                 time_major=False, use_tpu=False, fast_reverse=False,
                                 scope=None):
    """``tf.nn.bidirectional_dynamic_rnn``'s interface over ``functional_rnn``:
    ``((output_fw, output_bw), (state_fw, state_bw))``. ``fast_reverse`` runs the backward
    cell from the padded end (``tf.reverse``), which agrees with the per-example reversal
    only when every sequence is as long or the cell ignores padding."""
    time_dim, batch_dim = (0, 1) if time_major else (1, 0)

    def _reverse(value):
        if sequence_length is not None:
            return reverse_sequence(value, seq_lengths=sequence_length, seq_axis=time_dim,
                                    batch_axis=batch_dim)
        if use_tpu:
            raise AssertionError("Bidirectional with variable sequence lengths unsupported "
                                 "on TPU")
        return array_ops.reverse(value, axis=[time_dim])

    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = functional_rnn(
                cell_fw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype, time_major=time_major,
                scope=fw_scope, use_tpu=use_tpu)
        with vs.variable_scope("bw") as bw_scope:
            if not fast_reverse:
                inputs = _reverse(inputs)
            output_bw, state_bw = functional_rnn(
                cell_bw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype, time_major=time_major,
                scope=bw_scope, use_tpu=use_tpu, reverse=fast_reverse)
    if not fast_reverse:
        output_bw = _reverse(output_bw)
    return (output_fw, output_bw), (state_fw, state_bw)


__all__ = ["Recurrent", "bidirectional_functional_rnn", "functional_rnn"]
