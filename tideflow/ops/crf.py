"""``tf.contrib.crf``: a linear-chain conditional random field.

Scores of tag sequences (unary potentials ``inputs [batch, time, tags]`` plus transition
scores ``transition_params [tags, tags]``), the log partition function by the forward
algorithm in log space, the log-likelihood (with a ``transitions`` variable made when none is
given), and Viterbi decoding both in the graph (``crf_decode``) and in NumPy
(``viterbi_decode``). Steps past a row's ``sequence_lengths`` do not count; the recurrences
run as ``dynamic_rnn`` cells, so everything is differentiable and works for unknown lengths.
Each function builds TF 1.15's ops in TF's order (a one-step ``smart_cond`` on an ``Equal``
of the time dimension, float32 masks, three ``Shape`` ops in the unary score), so the ops and
the seeds of random ops made after them are TF's."""

import numpy as np

from tideflow.framework import dtypes
from tideflow.framework.tensor_shape import dimension_value
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    fill_ops,
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
from tideflow.python.framework.smart_cond import smart_cond


def _one_step_cond(inputs, single, multi):
    """TF's ``layers.utils.smart_cond`` on ``equal(time, 1)``: the time dimension's static
    size (or its ``Shape`` slice) compared in an ``Equal`` op; ``single()`` or ``multi()``
    when that folds while building, else a ``cond`` between them."""
    steps = dimension_value(inputs.shape[1]) or array_ops.shape(inputs)[1]
    return smart_cond(math_ops.equal(steps, 1), single, multi)


def _mask_empty(values, sequence_lengths):
    # rows of length <= 0 score 0
    return gather_ops.where(math_ops.less_equal(sequence_lengths, 0),
                            fill_ops.zeros_like(values), values)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """``[batch]``: the unnormalized score of each tag sequence (0 for empty rows)."""

    def single():
        batch = array_ops.shape(inputs, out_type=tag_indices.dtype)[0]
        rows = array_ops.reshape(range_ops.range(batch, dtype=tag_indices.dtype), [-1, 1])
        scores = gather_ops.gather_nd(array_ops.squeeze(inputs, [1]),
                                      concat_ops.concat([rows, tag_indices], axis=1))
        return _mask_empty(scores, sequence_lengths)

    def multi():
        return (crf_unary_score(tag_indices, sequence_lengths, inputs)
                + crf_binary_score(tag_indices, sequence_lengths, transition_params))

    return _one_step_cond(inputs, single, multi)


def _allowed(inputs, tag_bitmap):
    return gather_ops.where(tag_bitmap, inputs,
                            fill_ops.fill(array_ops.shape(inputs), float("-inf")))


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """``[batch]``: the log-sum-exp of the scores of every tag sequence allowed by
    ``tag_bitmap [batch, time, tags]`` (bool: the tags each step may take)."""

    def single():
        return reduction_ops.reduce_logsumexp(_allowed(inputs, tag_bitmap), axis=[1, 2],
                                              keepdims=False)

    def multi():
        return crf_log_norm(_allowed(inputs, tag_bitmap), sequence_lengths, transition_params)

    return _one_step_cond(inputs, single, multi)


def _less_one(sequence_lengths):
    # a row's number of transitions, never below 0
    return math_ops.maximum(constant_op.constant(0, dtype=sequence_lengths.dtype),
                            sequence_lengths - 1)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """``[batch]``: the log partition function of each row (0 for empty rows)."""
    first = array_ops.squeeze(slicing_ops.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def single():
        return _mask_empty(reduction_ops.reduce_logsumexp(first, [1]), sequence_lengths)

    def multi():
        rest = slicing_ops.slice(inputs, [0, 1, 0], [-1, -1, -1])
        cell = CrfForwardRnnCell(transition_params)
        _, alphas = rnn_ops.dynamic_rnn(cell=cell, inputs=rest,
                                        sequence_length=_less_one(sequence_lengths),
                                        initial_state=first, dtype=dtypes.float32)
        return _mask_empty(reduction_ops.reduce_logsumexp(alphas, [1]), sequence_lengths)

    return _one_step_cond(inputs, single, multi)


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """``(log_likelihood [batch], transition_params)``; without ``transition_params`` a
    float32 ``transitions`` variable [tags, tags] is made in the current variable scope."""
    num_tags = dimension_value(inputs.shape[2])
    if transition_params is None:
        transition_params = vs.get_variable("transitions", [num_tags, num_tags])
    scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return scores - log_norm, transition_params


def _float_mask(sequence_lengths, tag_indices):
    # as TF 1.15, float32 whatever the scores' dtype (float64 scores then fail to multiply)
    return array_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1],
                                   dtype=dtypes.float32)


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """``[batch]``: the sum over valid steps of ``inputs[b, t, tag_indices[b, t]]``."""
    batch = array_ops.shape(inputs)[0]
    steps = array_ops.shape(inputs)[1]
    tags = array_ops.shape(inputs)[2]
    flat_inputs = array_ops.reshape(inputs, [-1])
    offsets = array_ops.expand_dims(range_ops.range(batch) * steps * tags, 1)
    offsets += array_ops.expand_dims(range_ops.range(steps) * tags, 0)
    if tag_indices.dtype == dtypes.int64:
        offsets = cast_ops.cast(offsets, dtypes.int64)
    flat_tags = array_ops.reshape(offsets + tag_indices, [-1])
    scores = array_ops.reshape(gather_ops.gather(flat_inputs, flat_tags), [batch, steps])
    return reduction_ops.reduce_sum(scores * _float_mask(sequence_lengths, tag_indices), 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """``[batch]``: the sum over valid consecutive steps of
    ``transition_params[tag[t - 1], tag[t]]``."""
    num_tags = transition_params.get_shape()[0]
    num_transitions = array_ops.shape(tag_indices)[1] - 1
    start = slicing_ops.slice(tag_indices, [0, 0], [-1, num_transitions])
    end = slicing_ops.slice(tag_indices, [0, 1], [-1, num_transitions])
    flat_index = start * num_tags + end
    flat_params = array_ops.reshape(transition_params, [-1])
    scores = gather_ops.gather(flat_params, flat_index)
    masks = slicing_ops.slice(_float_mask(sequence_lengths, tag_indices), [0, 1], [-1, -1])
    return reduction_ops.reduce_sum(scores * masks, 1)


class _TransitionCell(RNNCell):
    """A cell over ``num_tags`` states that adds ``transition_params`` to the previous
    state's scores. As TF's, it is called without a variable or name scope."""

    def __init__(self, transition_params):
        super().__init__()
        self._transition_params = array_ops.expand_dims(transition_params, 0)
        self._num_tags = dimension_value(transition_params.shape[0])

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

    def __call__(self, inputs, state, scope=None):
        new_alphas = inputs + reduction_ops.reduce_logsumexp(self._scores(state), [1])
        return new_alphas, new_alphas


def viterbi_decode(score, transition_params):
    """NumPy: ``(best tag list, its score)`` for one sequence ``score [time, tags]`` (an
    array: as in TF 1.15, a list has no ``shape``)."""
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

    def __call__(self, inputs, state, scope=None):
        scores = self._scores(state)
        new_state = inputs + reduction_ops.reduce_max(scores, [1])
        backpointers = cast_ops.cast(reduction_ops.argmax(scores, 1), dtype=dtypes.int32)
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

    def __call__(self, inputs, state, scope=None):
        state = array_ops.squeeze(state, axis=[1])
        rows = range_ops.range(array_ops.shape(inputs)[0])
        index = concat_ops.stack([rows, state], axis=1)
        new_tags = array_ops.expand_dims(gather_ops.gather_nd(inputs, index), axis=-1)
        return new_tags, new_tags


def crf_decode(potentials, transition_params, sequence_length):
    """``(decode_tags [batch, time] int32, best_score [batch])``: the highest-scoring tag
    sequence of each row (tags past the row's length are 0)."""

    def single():
        squeezed = array_ops.squeeze(potentials, [1])
        tags = array_ops.expand_dims(reduction_ops.argmax(squeezed, axis=1), 1)
        best = reduction_ops.reduce_max(squeezed, axis=1)
        return cast_ops.cast(tags, dtype=dtypes.int32), best

    def multi():
        num_tags = dimension_value(potentials.shape[2])
        forward = CrfDecodeForwardRnnCell(transition_params)
        first = array_ops.squeeze(slicing_ops.slice(potentials, [0, 0, 0], [-1, 1, -1]),
                                  axis=[1])
        rest = slicing_ops.slice(potentials, [0, 1, 0], [-1, -1, -1])
        less_one = _less_one(sequence_length)
        backpointers, last_score = rnn_ops.dynamic_rnn(
            forward, inputs=rest, sequence_length=less_one, initial_state=first,
            time_major=False, dtype=dtypes.int32)
        backpointers = reverse_sequence_ops.reverse_sequence(backpointers, less_one, seq_dim=1)
        last = array_ops.expand_dims(
            cast_ops.cast(reduction_ops.argmax(last_score, axis=1), dtype=dtypes.int32),
            axis=-1)
        tags, _ = rnn_ops.dynamic_rnn(
            CrfDecodeBackwardRnnCell(num_tags), inputs=backpointers, sequence_length=less_one,
            initial_state=last, time_major=False, dtype=dtypes.int32)
        tags = concat_ops.concat([last, array_ops.squeeze(tags, axis=[2])], axis=1)
        tags = reverse_sequence_ops.reverse_sequence(tags, sequence_length, seq_dim=1)
        return tags, reduction_ops.reduce_max(last_score, axis=1)

    return _one_step_cond(potentials, single, multi)


__all__ = ["CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell",
           "crf_binary_score", "crf_decode", "crf_log_likelihood", "crf_log_norm",
           "crf_multitag_sequence_score", "crf_sequence_score", "crf_unary_score", "viterbi_decode"]
