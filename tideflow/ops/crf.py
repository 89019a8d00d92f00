"""``tf.contrib.crf``: a linear-chain conditional random field.

Scores of tag sequences (unary potentials ``inputs [batch, time, tags]`` plus transition
scores ``transition_params [tags, tags]``), the log partition function by the forward
algorithm in log space, the log-likelihood (with a ``transitions`` variable made when none is
given), and Viterbi decoding both in the graph (``crf_decode``) and in NumPy
(``viterbi_decode``). Steps past a row's ``sequence_lengths`` do not count; the recurrences
run as ``dynamic_rnn`` cells, so everything is differentiable and works for unknown lengths."""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    cond,
    gather_ops,
    math_ops,
    range_ops,
    reduction_ops,
    reverse_sequence_ops,
    slicing_ops,
)
from tideflow.ops import rnn as rnn_ops
from tideflow.ops import variable_scope as vs
from tideflow.ops.rnn_cell_impl import RNNCell


def _sequence_mask(lengths, maxlen, dtype):
    return array_ops.sequence_mask(lengths, maxlen=maxlen, dtype=dtype)


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """``[batch]``: the sum over valid steps of ``inputs[b, t, tag_indices[b, t]]``."""
    inputs = ops.convert_to_tensor(inputs)
    tag_indices = cast_ops.cast(tag_indices, dtypes.int32)
    shape = array_ops.shape(inputs)
    batch, steps, tags = shape[0], shape[1], shape[2]
    offsets = (array_ops.expand_dims(range_ops.range(batch) * steps * tags, 1)
               + array_ops.expand_dims(range_ops.range(steps) * tags, 0))
    flat = array_ops.reshape(offsets + tag_indices, [-1])
    scores = array_ops.reshape(gather_ops.gather(array_ops.reshape(inputs, [-1]), flat),
                               [batch, steps])
    masks = _sequence_mask(sequence_lengths, array_ops.shape(tag_indices)[1],
                           inputs.dtype.base_dtype)
    return reduction_ops.reduce_sum(scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """``[batch]``: the sum over valid consecutive steps of
    ``transition_params[tag[t - 1], tag[t]]``."""
    transition_params = ops.convert_to_tensor(transition_params)
    tag_indices = cast_ops.cast(tag_indices, dtypes.int32)
    num_tags = array_ops.shape(transition_params)[0]
    num_transitions = array_ops.shape(tag_indices)[1] - 1
    start = slicing_ops.slice(tag_indices, [0, 0], concat_ops.stack([-1, num_transitions]))
    end = slicing_ops.slice(tag_indices, [0, 1], concat_ops.stack([-1, num_transitions]))
    scores = gather_ops.gather(array_ops.reshape(transition_params, [-1]),
                               start * num_tags + end)
    masks = _sequence_mask(sequence_lengths, array_ops.shape(tag_indices)[1],
                           transition_params.dtype.base_dtype)
    return reduction_ops.reduce_sum(scores * slicing_ops.slice(masks, [0, 1], [-1, -1]), 1)


def _first_step(inputs):
    return array_ops.squeeze(slicing_ops.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])


def _zero_if_empty(values, lengths):
    zero = math_ops.less_equal(lengths, 0)
    return gather_ops.where(zero, array_ops.zeros_like(values), values)


def _by_length(inputs, single, multi):
    """``single()`` for one time step, else ``multi()``: chosen while building when the
    time dimension is known (as TF's ``smart_cond``), else by a ``cond`` at run time."""
    steps = inputs.get_shape().with_rank_at_least(2)[1].value
    if steps is not None:
        return single() if steps == 1 else multi()
    return cond.cond(math_ops.equal(array_ops.shape(inputs)[1], 1), single, multi)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """``[batch]``: the unnormalized score of each tag sequence (0 for empty rows)."""
    inputs = ops.convert_to_tensor(inputs)
    transition_params = ops.convert_to_tensor(transition_params)

    def single():
        # as TF 1.15: the row numbers beside all of tag_indices' columns, so where the time
        # dimension is unknown the gathered scores (and the cond's result) have no static shape
        tags = ops.convert_to_tensor(tag_indices)
        batch = array_ops.shape(inputs, out_type=tags.dtype)[0]
        rows = array_ops.reshape(range_ops.range(batch, dtype=tags.dtype), [-1, 1])
        idx = concat_ops.concat([rows, tags], axis=1)
        return _zero_if_empty(gather_ops.gather_nd(_first_step(inputs), idx),
                              sequence_lengths)

    def multi():
        return (crf_unary_score(tag_indices, sequence_lengths, inputs)
                + crf_binary_score(tag_indices, sequence_lengths, transition_params))

    return _by_length(inputs, single, multi)


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """``[batch]``: the log-sum-exp of the scores of every tag sequence allowed by
    ``tag_bitmap [batch, time, tags]`` (bool: the tags each step may take)."""
    inputs = ops.convert_to_tensor(inputs)
    tag_bitmap = cast_ops.cast(tag_bitmap, dtypes.bool)
    sequence_lengths = cast_ops.cast(sequence_lengths, dtypes.int32)
    filtered = gather_ops.where(tag_bitmap, inputs,
                                array_ops.fill(array_ops.shape(inputs), float("-inf")))

    def single():
        return reduction_ops.reduce_logsumexp(_first_step(filtered), [1])

    def multi():
        return crf_log_norm(filtered, sequence_lengths, transition_params)

    return _by_length(inputs, single, multi)


class _TransitionCell(RNNCell):
    """A cell over ``num_tags`` states that adds ``transition_params`` to the previous
    state's scores."""

    def __init__(self, transition_params):
        super().__init__()
        self._transition_params = array_ops.expand_dims(transition_params, 0)
        self._num_tags = transition_params.get_shape()[0].value

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags

    def _scores(self, state):
        return array_ops.expand_dims(state, 2) + self._transition_params


class CrfForwardRnnCell(_TransitionCell):
    """One step of the forward algorithm: ``alpha' = inputs + logsumexp(alpha + T, 1)``."""

    def call(self, inputs, state):
        new_alphas = inputs + reduction_ops.reduce_logsumexp(self._scores(state), [1])
        return new_alphas, new_alphas


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """``[batch]``: the log partition function of each row (0 for empty rows)."""
    inputs = ops.convert_to_tensor(inputs)
    transition_params = ops.convert_to_tensor(transition_params, dtype=inputs.dtype)
    first = _first_step(inputs)

    def single():
        return _zero_if_empty(reduction_ops.reduce_logsumexp(first, [1]), sequence_lengths)

    def multi():
        rest = slicing_ops.slice(inputs, [0, 1, 0], [-1, -1, -1])
        lengths = math_ops.maximum(array_ops.zeros_like(sequence_lengths), sequence_lengths - 1)
        _, alphas = rnn_ops.dynamic_rnn(CrfForwardRnnCell(transition_params), rest,
                                        sequence_length=lengths, initial_state=first,
                                        dtype=inputs.dtype)
        return _zero_if_empty(reduction_ops.reduce_logsumexp(alphas, [1]), sequence_lengths)

    return _by_length(inputs, single, multi)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """``(log_likelihood [batch], transition_params)``; without ``transition_params`` a
    ``transitions`` variable [tags, tags] is made in the current variable scope."""
    inputs = ops.convert_to_tensor(inputs)
    num_tags = inputs.get_shape()[2].value
    if num_tags is None:
        raise ValueError(f"crf_log_likelihood: the number of tags (inputs.shape[2]) must be "
                         f"known, got shape {inputs.get_shape()}")
    if transition_params is None:
        transition_params = vs.get_variable("transitions", [num_tags, num_tags],
                                            dtype=inputs.dtype.base_dtype)
    scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return scores - log_norm, transition_params


def viterbi_decode(score, transition_params):
    """NumPy: ``(best tag list, its score)`` for one sequence ``score [time, tags]``."""
    score = np.asarray(score)
    transition_params = np.asarray(transition_params)
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = trellis[t - 1][:, None] + transition_params
        trellis[t] = score[t] + v.max(0)
        backpointers[t] = v.argmax(0)
    # NumPy scalars as TF 1.15's: the score keeps score's dtype (np.float32 prints 1.913296)
    viterbi = [np.argmax(trellis[-1])]
    for bp in reversed(backpointers[1:]):
        viterbi.append(bp[viterbi[-1]])
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


class CrfDecodeForwardRnnCell(_TransitionCell):
    """One Viterbi step: outputs the backpointers (argmax over the previous tag), carries
    ``inputs + max(state + T, 1)``."""

    def call(self, inputs, state):
        scores = self._scores(state)
        new_state = inputs + reduction_ops.reduce_max(scores, [1])
        backpointers = cast_ops.cast(reduction_ops.argmax(scores, 1), dtypes.int32)
        return backpointers, new_state


class CrfDecodeBackwardRnnCell(RNNCell):
    """Follows the backpointers one step back: ``tag' = backpointers[b, tag]``."""

    def __init__(self, num_tags):
        super().__init__()
        self._num_tags = num_tags

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return 1

    def call(self, inputs, state):
        state = array_ops.squeeze(state, [1])
        batch = array_ops.shape(state)[0]
        idx = concat_ops.stack([range_ops.range(batch), state], axis=1)
        new_tags = array_ops.expand_dims(gather_ops.gather_nd(inputs, idx), -1)
        return new_tags, new_tags


def crf_decode(potentials, transition_params, sequence_length):
    """``(decode_tags [batch, time] int32, best_score [batch])``: the highest-scoring tag
    sequence of each row (tags past the row's length are 0)."""
    potentials = ops.convert_to_tensor(potentials)
    transition_params = ops.convert_to_tensor(transition_params, dtype=potentials.dtype)
    sequence_length = cast_ops.cast(sequence_length, dtypes.int32)
    num_tags = potentials.get_shape()[2].value

    def single():
        scores = _first_step(potentials)
        tags = array_ops.expand_dims(cast_ops.cast(reduction_ops.argmax(scores, 1), dtypes.int32), 1)
        return tags, reduction_ops.reduce_max(scores, 1)

    def multi():
        first = _first_step(potentials)
        rest = slicing_ops.slice(potentials, [0, 1, 0], [-1, -1, -1])
        lengths = math_ops.maximum(array_ops.zeros_like(sequence_length), sequence_length - 1)
        backpointers, last_score = rnn_ops.dynamic_rnn(
            CrfDecodeForwardRnnCell(transition_params), rest, sequence_length=lengths,
            initial_state=first, dtype=dtypes.int32)
        backpointers = reverse_sequence_ops.reverse_sequence(backpointers, lengths, seq_axis=1,
                                                             batch_axis=0)
        last = array_ops.expand_dims(
            cast_ops.cast(reduction_ops.argmax(last_score, 1), dtypes.int32), -1)
        tags, _ = rnn_ops.dynamic_rnn(CrfDecodeBackwardRnnCell(num_tags), backpointers,
                                      sequence_length=lengths, initial_state=last,
                                      dtype=dtypes.int32)
        tags = concat_ops.concat([last, array_ops.squeeze(tags, [2])], axis=1)
        tags = reverse_sequence_ops.reverse_sequence(tags, sequence_length, seq_axis=1,
                                                     batch_axis=0)
        return tags, reduction_ops.reduce_max(last_score, 1)

    return _by_length(potentials, single, multi)


__all__ = ["CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell",
           "crf_binary_score", "crf_decode", "crf_log_likelihood", "crf_log_norm",
           "crf_multitag_sequence_score", "crf_sequence_score", "crf_unary_score", "viterbi_decode"]
