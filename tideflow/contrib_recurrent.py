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

    ``theta``, ``state0`` and ``inputs`` are structures of tensors. Without ``cell_grad`` the
    gradient is the loop's own; with it, the backward pass runs the steps in reverse calling
    ``cell_grad(theta, state0_t, inputs[t], extras[t], dstate1) -> (dtheta, dstate0,
    dinputs)``, as TF's (whose ``state0_t`` is the previous accumulated state, zeros before
    the first step run but at step 0).
    """
    del use_tpu
    if cell_grad is None and _is_single_time_step(inputs, max_input_length):
        # one step, statically known: no loop (as TF)
        inputs = nest.map_structure(lambda x: array_ops.squeeze(x, axis=0), inputs)
        state1, _ = cell_fn(theta, state0, inputs)
        return nest.map_structure(lambda x: array_ops.expand_dims(x, axis=0), state1), state1
    # TF calls cell_fn once outside its loop, for the extras' structure (and a cell's
    # variables are made there)
    _, first_extras = cell_fn(theta, state0, _index(inputs, 0))
    if extras is None:
        extras = nest.map_structure(array_ops.zeros_like, first_extras)
    flat_inputs = nest.flatten(inputs)
    slen = array_ops.shape(flat_inputs[0])[0]
    if max_input_length is None:
        max_input_length = reduction_ops.reduce_max(slen)
    max_input_length = cast_ops.cast(max_input_length, dtypes.int32)
    start = slen - max_input_length if aligned_end else 0
    limit = slen if aligned_end else max_input_length
    if cell_grad is None:
        acc, final, _ = _forward(theta, state0, inputs, extras, cell_fn, slen, start, limit)
        return acc, final
    return _with_cell_grad(theta, state0, inputs, extras, cell_fn, cell_grad, slen, start,
                           limit)


def _tensor_array_of(values, size):
    return tuple(TensorArray(dtype=v.dtype, size=size, element_shape=v.get_shape())
                 for v in values)


def _forward(theta, state0, inputs, extras, cell_fn, slen, start, limit):
    """The loop: ``(accumulated states, final state, accumulated extras)``."""
    flat_inputs = nest.flatten(inputs)
    flat_state0 = [ops.convert_to_tensor(s) for s in nest.flatten(state0)]
    flat_extras = [ops.convert_to_tensor(e) for e in nest.flatten(extras)]
    static_len = flat_inputs[0].get_shape()[0].value if flat_inputs[0].get_shape().ndims \
        else None
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

    def body(t, acc, acc_extras, flat_state):
        state = nest.pack_sequence_as(state0, list(flat_state))
        state1, extras1 = cell_fn(theta, state, inputs_at(t))
        flat1 = [ops.convert_to_tensor(s) for s in nest.flatten(state1)]
        for new, old in zip(flat1, flat_state, strict=True):
            new.set_shape(old.get_shape())
        acc = tuple(a.write(t, s) for a, s in zip(acc, flat1, strict=True))
        acc_extras = tuple(a.write(t, e) for a, e in
                           zip(acc_extras, nest.flatten(extras1), strict=True))
        return t + 1, acc, acc_extras, tuple(flat1)

    _, acc, acc_extras, final = while_loop(
        cond, body, (ops.convert_to_tensor(start), _tensor_array_of(flat_state0, slen),
                     _tensor_array_of(flat_extras, slen), tuple(flat_state0)))

    def stacked(tas, likes):
        out = []
        for a, like in zip(tas, likes, strict=True):
            value = a.stack()
            value.set_shape(TensorShape([static_len]).concatenate(like.get_shape()))
            out.append(value)
        return out

    return (nest.pack_sequence_as(state0, stacked(acc, flat_state0)),
            nest.pack_sequence_as(state0, list(final)),
            nest.pack_sequence_as(extras, stacked(acc_extras, flat_extras)))


def _with_cell_grad(theta, state0, inputs, extras, cell_fn, cell_grad, slen, start, limit):
    """``_forward`` whose gradient is TF's backward loop over ``cell_grad``."""
    from tideflow.ops.misc_ops import custom_gradient

    counts = [len(nest.flatten(x)) for x in (theta, state0, inputs)]

    @custom_gradient
    def run(*flat):
        th = nest.pack_sequence_as(theta, list(flat[:counts[0]]))
        s0 = nest.pack_sequence_as(state0, list(flat[counts[0]:counts[0] + counts[1]]))
        xs = nest.pack_sequence_as(inputs, list(flat[counts[0] + counts[1]:]))
        acc, final, acc_extras = _forward(th, s0, xs, extras, cell_fn, slen, start, limit)

        def grad(*dys):
            n = counts[1]
            d_acc = nest.pack_sequence_as(state0, [_zeros_if_none(d, a) for d, a in zip(
                dys[:n], nest.flatten(acc), strict=True)])
            d_final = [_zeros_if_none(d, f) for d, f in zip(dys[n:], nest.flatten(final),
                                                              strict=True)]
            return _backward(th, s0, xs, acc, acc_extras, d_acc, d_final, cell_grad, start,
                             limit)

        return [*nest.flatten(acc), *nest.flatten(final)], grad

    flat = run(*nest.flatten(theta), *nest.flatten(state0), *nest.flatten(inputs))
    n = counts[1]
    return (nest.pack_sequence_as(state0, list(flat[:n])),
            nest.pack_sequence_as(state0, list(flat[n:])))


def _zeros_if_none(grad, like):
    return array_ops.zeros_like(like) if grad is None else grad


def _backward(theta, state0, inputs, acc, acc_extras, d_acc, d_final, cell_grad, start,
              limit):
    """TF's backward loop: from the last step run down to the first, ``cell_grad`` of each
    step given the state before it; the gradients of theta (summed), state0 and inputs."""
    flat_theta = nest.flatten(theta)
    flat_inputs = nest.flatten(inputs)
    flat_state0 = nest.flatten(state0)
    slen = array_ops.shape(flat_inputs[0])[0]
    d_input_tas = tuple(TensorArray(dtype=x.dtype, size=slen,
                                    element_shape=x.get_shape()[1:]) for x in flat_inputs)

    def cond(t, *_):
        return math_ops.greater_equal(t, start)

    def body(t, d_theta, d_state1, d_input_tas):
        previous = _index(acc, math_ops.maximum(0, t - 1))
        state0_t = [array_ops.where(math_ops.equal(t, 0), s, p) for s, p in
                    zip(flat_state0, nest.flatten(previous), strict=True)]
        state0_t = nest.pack_sequence_as(state0, state0_t)
        d_state1 = [a + d for a, d in zip(nest.flatten(_index(d_acc, t)), d_state1,
                                          strict=True)]
        d_theta_t, d_state0, d_inputs_t = cell_grad(
            theta, state0_t, _index(inputs, t), _index(acc_extras, t),
            nest.pack_sequence_as(state0, d_state1))
        d_theta_t = [_zeros_if_none(d, x) for d, x in
                     zip(nest.flatten(d_theta_t), flat_theta, strict=True)]
        d_state0 = [_zeros_if_none(d, x) for d, x in
                    zip(nest.flatten(d_state0), flat_state0, strict=True)]
        d_inputs_t = [_zeros_if_none(d, x[0]) for d, x in
                      zip(nest.flatten(d_inputs_t), flat_inputs, strict=True)]
        d_theta = tuple(a + b for a, b in zip(d_theta, d_theta_t, strict=True))
        d_input_tas = tuple(ta.write(t, d) for ta, d in
                            zip(d_input_tas, d_inputs_t, strict=True))
        return t - 1, d_theta, tuple(d_state0), d_input_tas

    _, d_theta, d_state0, d_input_tas = while_loop(
        cond, body, (limit - 1, tuple(array_ops.zeros_like(x) for x in flat_theta),
                     tuple(d_final), d_input_tas))
    d_inputs = [ta.stack() for ta in d_input_tas]
    return [*d_theta, *d_state0, *d_inputs]


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
