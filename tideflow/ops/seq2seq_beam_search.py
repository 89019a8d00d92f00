"""``tf.contrib.seq2seq`` beam search: ``BeamSearchDecoder`` (length and coverage penalties as
in GNMT), ``tile_batch`` and the ``GatherTree`` op (``gather_tree``) that follows the parent
pointers back from the last step to spell out each beam."""

import collections

import numpy as np

import tideflow as tf
from tideflow.framework import nest, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _in, _invalid, _np, _shape_str
from tideflow.ops.seq2seq_attention import AttentionWrapperState
from tideflow.ops.seq2seq_decoder import Decoder, _check_cell
from tideflow.ops.tensor_array import TensorArray

__all__ = ["BeamSearchDecoder", "BeamSearchDecoderOutput", "BeamSearchDecoderState",
           "FinalBeamSearchDecoderOutput", "gather_tree", "tile_batch"]


# ------------------------------------------------------------------------------------------
# GatherTree
# ------------------------------------------------------------------------------------------


def _gather_tree_shape(op):
    # TF 1.15's checks, in its order and words: the ranks (3, 3, 1, 0), then step_ids and
    # parent_ids merged, then their batch dimension with max_sequence_lengths'
    ranks = (3, 3, 1, 0)
    step, parent, lengths, _ = (_in(op, i) for i in range(4))
    for i, rank in enumerate(ranks):
        s = _in(op, i)
        if s.ndims is not None and s.ndims != rank:
            raise ValueError(f"Shape must be rank {rank} but is rank {s.ndims}")
    out = step if step.ndims is not None else TensorShape([None, None, None])
    if parent.ndims is not None:
        for i, (a, b) in enumerate(zip(out.dims, parent.dims)):
            if a.value is not None and b.value is not None and a.value != b.value:
                raise ValueError(
                    f"Dimension {i} in both shapes must be equal, but are {a.value} and "
                    f"{b.value}. Shapes are {_shape_str(step)} and {_shape_str(parent)}.")
        out = out.merge_with(parent)
    if lengths.ndims == 1:
        a, b = out.dims[1].value, lengths.dims[0].value
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
        out = TensorShape([out.dims[0], out.dims[1].merge_with(b), out.dims[2]])
    return [out]


def _gather_tree_kernel(step_ids, parent_ids, max_sequence_lengths, end_token):
    step_ids, parent_ids = _np(step_ids), _np(parent_ids)
    lengths, end_token = _np(max_sequence_lengths), _np(end_token)
    # TF 1.15's kernel checks, in its order and words
    if step_ids.ndim != 3:
        raise _invalid(f"step_ids must be a 3-tensor, saw shape: {_shape_str(step_ids.shape)}")
    if lengths.ndim != 1:
        raise _invalid("max_sequence_lengths must be a vector, saw shape: "
                       f"{_shape_str(lengths.shape)}")
    if end_token.ndim != 0:
        raise _invalid(f"end_token must be a scalar, saw shape: {_shape_str(end_token.shape)}")
    if parent_ids.shape != step_ids.shape:
        raise _invalid("step_ids.shape must match parent_ids.shape.  but shapes are: "
                       f"{_shape_str(step_ids.shape)} and {_shape_str(parent_ids.shape)}")
    max_time, batch, beam_width = step_ids.shape
    if lengths.shape[0] != batch:
        raise _invalid("batch size dimensions step_ids.shape[1] and max_sequence_lengths."
                       f"shape[0] must match.  but shapes are: {_shape_str(step_ids.shape)} "
                       f"and {_shape_str(lengths.shape)}")
    end = step_ids.dtype.type(end_token)
    out = np.full(step_ids.shape, end, step_ids.dtype)
    lengths = np.minimum(lengths.astype(np.int64), max_time)
    rows = np.arange(batch)[:, None]
    parent = np.broadcast_to(np.arange(beam_width), (batch, beam_width)).copy()
    # back from each entry's last step: the id at the beam we are on, then its parent's beam
    for t in range(max_time - 1, -1, -1):
        active = (t < lengths)[:, None]
        out[t] = np.where(active, step_ids[t, rows, parent], out[t])
        if t == 0:
            break
        nxt = parent_ids[t, rows, parent]
        bad = active & ((nxt < 0) | (nxt >= beam_width))
        if bad.any():
            b, w = np.argwhere(bad)[0]
            # TF names the traced beam and the step the bad parent would be read at
            raise _invalid(f"Saw invalid parent id {nxt[b, w]} at (batch, time, beam) == "
                           f"({b}, {t - 1}, {w})")
        parent = np.where(active, nxt, parent)
    # once a beam emits end_token, the rest of it is end_token
    is_end = out == end
    ended_before = (np.cumsum(is_end, axis=0) - is_end) > 0
    out[ended_before] = end
    return out


op_registry.declare(
    "GatherTree",
    inputs=["step_ids: T", "parent_ids: T", "max_sequence_lengths: int32", "end_token: T"],
    outputs=["beams: T"],
    attrs=["T: {int32}"],
    shape=_gather_tree_shape,
    kernel=_gather_tree_kernel,
    differentiable=False,
)


def gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token, name=None):
    """The full beams ``[max_time, batch_size, beam_width]`` from the per-step ids and parent
    beam ids: each beam is followed back from step ``max_sequence_lengths[b] - 1`` through its
    parents; steps past the length, and steps after an ``end_token``, are ``end_token``."""
    # as TF's generated wrapper: Python values are converted in the op's scope, named by the
    # op's arguments, and a wrong type is refused in TF's words
    return ops.apply_op("GatherTree", [step_ids, parent_ids, max_sequence_lengths, end_token],
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Structures and tiling
# ------------------------------------------------------------------------------------------


class BeamSearchDecoderState(collections.namedtuple(
        "BeamSearchDecoderState",
        ("cell_state", "log_probs", "finished", "lengths", "accumulated_attention_probs"))):
    """The state of a beam search: the cell state and, per beam, its log probability,
    whether it has finished, its length and (with a coverage penalty) its attention sums."""

    __slots__ = ()


class BeamSearchDecoderOutput(collections.namedtuple(
        "BeamSearchDecoderOutput", ("scores", "predicted_ids", "parent_ids"))):
    """One step of a beam search: each beam's score, the id it chose and the beam it
    continues."""

    __slots__ = ()


class FinalBeamSearchDecoderOutput(collections.namedtuple(
        "FinalBeamDecoderOutput", ("predicted_ids", "beam_search_decoder_output"))):
    """The result of a beam search: the beams spelled out by ``gather_tree``
    (``[batch, time, beam_width]``) and the per-step outputs."""

    __slots__ = ()


def _tile_one(t, multiplier):
    t = tf.convert_to_tensor(t, name="t")
    dyn = tf.shape(t)  # made first, as TF 1.15 (even when the rank check below fails)
    shape = t.get_shape()
    if shape.ndims is None or shape.ndims == 0:
        # TF 1.15 gives the same message for an unknown rank and for a scalar
        raise ValueError("t must have statically known rank")
    tiling = [1] * (shape.ndims + 1)
    tiling[1] = multiplier
    tiled = tf.tile(tf.expand_dims(t, 1), tiling)
    tiled = tf.reshape(tiled, tf.concat([[dyn[0] * multiplier], dyn[1:]], 0))
    batch = shape[0].value
    tiled.set_shape(TensorShape([None if batch is None else batch * multiplier])
                    .concatenate(shape[1:]))
    return tiled


def tile_batch(t, multiplier, name=None):
    """Repeats each batch entry of ``t`` (a tensor or nested structure) ``multiplier`` times in
    place: ``[batch, ...]`` becomes ``[batch * multiplier, ...]`` with rows ``b0, b0, ...,
    b1, b1, ...``, the layout ``BeamSearchDecoder`` expects of its initial state and of an
    attention memory."""
    flat = nest.flatten(t)
    with tf.name_scope(name, "tile_batch", flat + [multiplier]):
        return nest.map_structure(lambda x: _tile_one(x, multiplier), t)


# ------------------------------------------------------------------------------------------
# The decoder
# ------------------------------------------------------------------------------------------


def _static_int(x):
    if isinstance(x, tf.Tensor):
        value = ops.constant_value(x)
        return None if value is None else int(value)
    return int(x)


def _check_maybe(t):
    if t.get_shape().ndims is None:
        raise ValueError(f"Expected tensor ({t.name}) to have known rank, but ndims == None.")


def _length_penalty(sequence_lengths, penalty_factor):
    """GNMT's ``((5 + length) / 6) ** penalty_factor`` (1.0 when the factor is 0)."""
    penalty_factor = tf.convert_to_tensor(penalty_factor, name="penalty_factor")
    penalty_factor.set_shape(())
    static = ops.constant_value(penalty_factor)
    if static is not None and static == 0:
        return 1.0
    penalty_factor = tf.cast(penalty_factor, tf.float32)
    return tf.div((5.0 + tf.cast(sequence_lengths, tf.float32)) ** penalty_factor,
                  (5.0 + 1.0) ** penalty_factor)


def _get_scores(log_probs, sequence_lengths, length_penalty_weight, coverage_penalty_weight,
                finished, accumulated_attention_probs):
    penalty = tf.cast(_length_penalty(sequence_lengths, length_penalty_weight),
                      log_probs.dtype)
    scores = log_probs / penalty
    coverage_penalty_weight = tf.convert_to_tensor(coverage_penalty_weight,
                                                   name="coverage_penalty_weight")
    if coverage_penalty_weight.get_shape().ndims != 0:
        raise ValueError("coverage_penalty_weight should be a scalar, but saw shape: "
                         f"{coverage_penalty_weight.get_shape()}")
    static = ops.constant_value(coverage_penalty_weight)
    if static is not None and static == 0.0:
        return scores
    if accumulated_attention_probs is None:
        raise ValueError("accumulated_attention_probs can be None only if coverage penalty is "
                         "disabled.")
    # memory steps never attended (masked out) count as fully covered
    acc = tf.where(tf.equal(accumulated_attention_probs, 0.0),
                   tf.ones_like(accumulated_attention_probs), accumulated_attention_probs)
    coverage = tf.reduce_sum(tf.log(tf.minimum(acc, 1.0)), 2)
    coverage *= tf.cast(finished, coverage.dtype)
    weighted = coverage * tf.cast(coverage_penalty_weight, coverage.dtype)
    return scores + tf.expand_dims(weighted, 2)


def _attention_probs_of(state):
    probs = state.alignments
    if isinstance(probs, tuple):
        probs = tf.reduce_mean(tf.stack(probs, -1), -1)
    return probs


def get_attention_probs(next_cell_state, coverage_penalty_weight):
    """The alignments of the attention states in ``next_cell_state`` (averaged over several),
    or None when the coverage penalty is off."""
    if isinstance(coverage_penalty_weight, (int, float)) and coverage_penalty_weight == 0.0:
        return None
    if isinstance(next_cell_state, AttentionWrapperState):
        per_layer = [_attention_probs_of(next_cell_state)]
    elif isinstance(next_cell_state, tuple):
        per_layer = [_attention_probs_of(s) for s in next_cell_state
                     if isinstance(s, AttentionWrapperState)]
    else:
        per_layer = []
    if not per_layer:
        raise ValueError("coverage_penalty_weight must be 0.0 if no cell is attentional.")
    if len(per_layer) == 1:
        return per_layer[0]
    return tf.reduce_mean(tf.stack(per_layer, -1), -1)


def _mask_probs(probs, eos_token, finished):
    """Finished beams put all their probability on ``eos_token``."""
    vocab_size = tf.shape(probs)[2]
    finished_row = tf.one_hot(eos_token, vocab_size, dtype=probs.dtype,
                              on_value=tf.convert_to_tensor(0.0, dtype=probs.dtype),
                              off_value=probs.dtype.min)
    finished_probs = tf.tile(tf.reshape(finished_row, [1, 1, -1]),
                             tf.concat([tf.shape(finished), [1]], 0))
    finished_mask = tf.tile(tf.expand_dims(finished, 2), [1, 1, vocab_size])
    return tf.where(finished_mask, finished_probs, probs)


def _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size, gather_shape,
                          name=None):
    """Per batch entry, rows ``gather_indices`` of ``gather_from`` (viewed as
    ``gather_shape``)."""
    with tf.name_scope(name, "tensor_gather_helper"):
        offsets = tf.expand_dims(tf.range(batch_size) * range_size, 1)
        gather_indices = tf.reshape(gather_indices + offsets, [-1])
        output = tf.gather(tf.reshape(gather_from, gather_shape), gather_indices)
        final_shape = tf.shape(gather_from)[:1 + len(gather_shape)]
        static = TensorShape([_static_int(batch_size)]).concatenate(
            gather_from.get_shape()[1:1 + len(gather_shape)])
        output = tf.reshape(output, final_shape, name="output")
        output.set_shape(static)
        return output


def _maybe_tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                                gather_shape):
    """``_tensor_gather_helper`` on tensors of rank 2 or more; TensorArrays and lower-rank
    tensors are returned as they are."""
    if isinstance(gather_from, TensorArray):
        return gather_from
    _check_maybe(gather_from)
    if gather_from.get_shape().ndims >= len(gather_shape):
        return _tensor_gather_helper(gather_indices, gather_from, batch_size, range_size,
                                     gather_shape)
    return gather_from


def _beam_search_step(time, logits, next_cell_state, beam_state, batch_size, beam_width,
                      end_token, length_penalty_weight, coverage_penalty_weight):
    """One step of beam search (TF's ``beam_search_decoder._beam_search_step``): ``logits``
    ``[batch, beam, vocab]`` extend every beam, the ``beam_width`` best continuations per
    batch entry by score survive; returns ``(BeamSearchDecoderOutput,
    BeamSearchDecoderState)``."""
    static_batch = _static_int(batch_size)
    prediction_lengths = beam_state.lengths
    previously_finished = beam_state.finished
    not_finished = tf.logical_not(previously_finished)

    step_log_probs = tf.nn.log_softmax(logits)
    step_log_probs = _mask_probs(step_log_probs, end_token, previously_finished)
    total_probs = tf.expand_dims(beam_state.log_probs, 2) + step_log_probs

    vocab_size = logits.get_shape()[-1].value or tf.shape(logits)[-1]
    # a continuing beam grows by one unless it picks end_token
    lengths_to_add = tf.one_hot(tf.fill([batch_size, beam_width], end_token),
                                depth=vocab_size, on_value=tf.to_int64(0),
                                off_value=tf.to_int64(1), dtype=tf.int64)
    lengths_to_add *= tf.expand_dims(tf.cast(not_finished, tf.int64), 2)
    new_prediction_lengths = lengths_to_add + tf.expand_dims(prediction_lengths, 2)

    accumulated_attention_probs = None
    attention_probs = get_attention_probs(next_cell_state, coverage_penalty_weight)
    if attention_probs is not None:
        attention_probs *= tf.expand_dims(tf.cast(not_finished, attention_probs.dtype), 2)
        accumulated_attention_probs = (beam_state.accumulated_attention_probs
                                       + attention_probs)

    scores = _get_scores(total_probs, new_prediction_lengths, length_penalty_weight,
                         coverage_penalty_weight, previously_finished,
                         accumulated_attention_probs)
    time = tf.convert_to_tensor(time, name="time")  # (unused after, but made as TF 1.15)
    scores_flat = tf.reshape(scores, [batch_size, -1])
    next_beam_size = tf.convert_to_tensor(beam_width, dtype=tf.int32, name="beam_width")
    next_beam_scores, word_indices = tf.nn.top_k(scores_flat, k=next_beam_size)
    next_beam_scores.set_shape([static_batch, beam_width])
    word_indices.set_shape([static_batch, beam_width])

    next_beam_probs = _tensor_gather_helper(word_indices, total_probs, batch_size,
                                            beam_width * vocab_size, [-1],
                                            name="next_beam_probs")
    # (TF's ops: the ids' mod, the parents' true division truncated to int32)
    next_word_ids = tf.cast(tf.mod(word_indices, vocab_size, name="next_beam_word_ids"),
                            tf.int32)
    next_beam_ids = tf.cast(word_indices / vocab_size, tf.int32, name="next_beam_parent_ids")

    previously_finished = _tensor_gather_helper(next_beam_ids, previously_finished,
                                                batch_size, beam_width, [-1])
    next_finished = tf.logical_or(previously_finished, tf.equal(next_word_ids, end_token),
                                  name="next_beam_finished")
    lengths_to_add = tf.cast(tf.logical_not(previously_finished), tf.int64)
    next_prediction_len = _tensor_gather_helper(next_beam_ids, beam_state.lengths,
                                                batch_size, beam_width, [-1])
    next_prediction_len += lengths_to_add
    next_accumulated = ()
    if accumulated_attention_probs is not None:
        next_accumulated = _tensor_gather_helper(
            next_beam_ids, accumulated_attention_probs, batch_size, beam_width,
            [batch_size * beam_width, -1], name="next_accumulated_attention_probs")
    next_cell_state = nest.map_structure(
        lambda t: _maybe_tensor_gather_helper(next_beam_ids, t, batch_size, beam_width,
                                               [batch_size * beam_width, -1]), next_cell_state)
    next_state = BeamSearchDecoderState(
        cell_state=next_cell_state, log_probs=next_beam_probs,
        lengths=next_prediction_len, finished=next_finished,
        accumulated_attention_probs=next_accumulated)
    output = BeamSearchDecoderOutput(scores=next_beam_scores, predicted_ids=next_word_ids,
                                     parent_ids=next_beam_ids)
    return output, next_state


def _as_shape(s):
    """A state or output size as a TensorShape (a Tensor size: unknown dimension)."""
    if isinstance(s, tf.Tensor):
        value = ops.constant_value(s)
        return TensorShape([None if value is None else int(value)])
    return TensorShape([s]) if isinstance(s, int) else TensorShape(s)


class BeamSearchDecoder(Decoder):
    """Beam search over ``cell``: keeps the ``beam_width`` best hypotheses per batch entry,
    scored by log probability divided by GNMT's length penalty (plus the coverage penalty when
    ``coverage_penalty_weight`` is set). ``initial_state`` (and any attention memory) must be
    tiled with ``tile_batch(..., beam_width)``."""

    def __init__(self, cell, embedding, start_tokens, end_token, initial_state, beam_width,
                 output_layer=None, length_penalty_weight=0.0, coverage_penalty_weight=0.0,
                 reorder_tensor_arrays=True):
        _check_cell(cell)  # (TF's assert_like_rnncell)
        if output_layer is not None and not isinstance(output_layer, tf.layers.Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._output_layer = output_layer
        self._reorder_tensor_arrays = reorder_tensor_arrays
        self._embedding_is_fn = callable(embedding)
        if callable(embedding):
            self._embedding_fn = embedding
        else:  # (the embedding as given at each lookup, as TF 1.15)
            self._embedding_fn = lambda ids: tf.nn.embedding_lookup(embedding, ids)
        self._start_tokens = tf.convert_to_tensor(start_tokens, dtype=tf.int32,
                                                  name="start_tokens")
        if self._start_tokens.get_shape().ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._end_token = tf.convert_to_tensor(end_token, dtype=tf.int32, name="end_token")
        if self._end_token.get_shape().ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._batch_size = tf.size(start_tokens)  # the argument as given, as TF 1.15
        self._beam_width = int(beam_width)
        self._length_penalty_weight = length_penalty_weight
        self._coverage_penalty_weight = coverage_penalty_weight
        self._initial_cell_state = nest.map_structure(
            self._maybe_split_batch_beams, initial_state, self._cell.state_size)
        self._start_tokens = tf.tile(tf.expand_dims(self._start_tokens, 1),
                                     [1, self._beam_width])
        self._start_inputs = self._embedding_fn(self._start_tokens)
        self._finished = tf.one_hot(tf.zeros([self._batch_size], dtype=tf.int32),
                                    depth=self._beam_width, on_value=False, off_value=True,
                                    dtype=tf.bool)

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def tracks_own_finished(self):
        return True

    @property
    def output_size(self):
        return BeamSearchDecoderOutput(scores=TensorShape([self._beam_width]),
                                       predicted_ids=TensorShape([self._beam_width]),
                                       parent_ids=TensorShape([self._beam_width]))

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_cell_state)[0].dtype
        return BeamSearchDecoderOutput(scores=dtype, predicted_ids=tf.int32,
                                       parent_ids=tf.int32)

    # -- batch/beam reshapes ---------------------------------------------------------------
    def _split_batch_beams(self, t, s):
        """``[batch * beam, s...]`` to ``[batch, beam, s...]``."""
        s = _as_shape(s)
        t_shape = tf.shape(t)
        reshaped = tf.reshape(t, tf.concat([[self._batch_size, self._beam_width],
                                            t_shape[1:]], 0))
        static_batch = _static_int(self._batch_size)
        expected = TensorShape([static_batch, self._beam_width]).concatenate(s)
        if not reshaped.get_shape().is_compatible_with(expected):
            raise ValueError(
                "Unexpected behavior when reshaping between beam width and batch size. The "
                f"reshaped tensor has shape: {reshaped.get_shape()}. We expected it to have "
                f"shape (batch_size, beam_width, depth) == {expected}. Perhaps you forgot to "
                "create a zero_state with batch_size=encoder_batch_size * beam_width?")
        reshaped.set_shape(expected)
        return reshaped

    def _merge_batch_beams(self, t, s):
        """``[batch, beam, s...]`` to ``[batch * beam, s...]``."""
        s = _as_shape(s)
        t_shape = tf.shape(t)
        reshaped = tf.reshape(t, tf.concat([[self._batch_size * self._beam_width],
                                            t_shape[2:]], 0))
        static_batch = _static_int(self._batch_size)
        expected = TensorShape([None if static_batch is None
                                else static_batch * self._beam_width]).concatenate(s)
        if not reshaped.get_shape().is_compatible_with(expected):
            raise ValueError(
                "Unexpected behavior when reshaping between beam width and batch size. The "
                f"reshaped tensor has shape: {reshaped.get_shape()}. We expected it to have "
                f"shape (batch_size * beam_width, depth) == {expected}.")
        reshaped.set_shape(expected)
        return reshaped

    def _maybe_split_batch_beams(self, t, s):
        if isinstance(t, TensorArray):
            return t
        _check_maybe(t)
        return self._split_batch_beams(t, s) if t.get_shape().ndims >= 1 else t

    def _maybe_merge_batch_beams(self, t, s):
        if isinstance(t, TensorArray):
            return t
        _check_maybe(t)
        return self._merge_batch_beams(t, s) if t.get_shape().ndims >= 2 else t

    def _maybe_gather(self, gather_indices, gather_from):
        if isinstance(gather_from, TensorArray):
            return gather_from
        _check_maybe(gather_from)
        if gather_from.get_shape().ndims >= 2:
            return _tensor_gather_helper(
                gather_indices, gather_from, self._batch_size, self._beam_width,
                [self._batch_size * self._beam_width, -1])
        return gather_from

    # -- decoding ------------------------------------------------------------------------------
    def initialize(self, name=None):
        if True:  # (TF 1.15 opens no name scope here)
            dtype = nest.flatten(self._initial_cell_state)[0].dtype
            log_probs = tf.one_hot(tf.zeros([self._batch_size], dtype=tf.int32),
                                   depth=self._beam_width,
                                   on_value=tf.convert_to_tensor(0.0, dtype=dtype),
                                   off_value=tf.convert_to_tensor(-np.inf, dtype=dtype),
                                   dtype=dtype)
            attention_probs = get_attention_probs(self._initial_cell_state,
                                                  self._coverage_penalty_weight)
            state = BeamSearchDecoderState(
                cell_state=self._initial_cell_state, log_probs=log_probs,
                finished=self._finished,
                lengths=tf.zeros([self._batch_size, self._beam_width], dtype=tf.int64),
                accumulated_attention_probs=() if attention_probs is None else attention_probs)
        return self._finished, self._start_inputs, state

    def step(self, time, inputs, state, name=None):
        with tf.name_scope(name, "BeamSearchDecoderStep", (time, inputs, state)):
            cell_state = nest.map_structure(self._maybe_merge_batch_beams, state.cell_state,
                                            self._cell.state_size)
            inputs = nest.map_structure(
                lambda inp: self._merge_batch_beams(inp, inp.get_shape()[2:]), inputs)
            cell_outputs, next_cell_state = self._cell(inputs, cell_state)
            cell_outputs = nest.map_structure(
                lambda out: self._split_batch_beams(out, out.get_shape()[1:]), cell_outputs)
            next_cell_state = nest.map_structure(self._maybe_split_batch_beams,
                                                 next_cell_state, self._cell.state_size)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            output, next_state = self._beam_search_step(time, cell_outputs, next_cell_state,
                                                        state)
            finished = next_state.finished
            all_finished = tf.reduce_all(finished)
            if self._embedding_is_fn:  # (a function may hold random ops: run as TF runs it)
                next_inputs = tf.cond(all_finished, lambda: self._start_inputs,
                                      lambda: self._embedding_fn(output.predicted_ids))
            else:
                from tideflow.ops.seq2seq_helper import _cond_as_select

                next_inputs = _cond_as_select(
                    all_finished, self._start_inputs,
                    lambda: self._embedding_fn(output.predicted_ids))
        return output, next_state, next_inputs, finished

    def _beam_search_step(self, time, logits, next_cell_state, beam_state):
        return _beam_search_step(time, logits, next_cell_state, beam_state, self._batch_size,
                                 self._beam_width, self._end_token,
                                 self._length_penalty_weight, self._coverage_penalty_weight)

    def finalize(self, outputs, final_state, sequence_lengths):
        """Spells out the beams with ``gather_tree``; with ``reorder_tensor_arrays``, the
        TensorArrays in the cell state (alignment histories) become tensors
        ``[time, batch * beam, ...]`` reordered along the chosen beams."""
        del sequence_lengths
        max_sequence_lengths = tf.cast(tf.reduce_max(final_state.lengths, axis=1), tf.int32)
        predicted_ids = gather_tree(outputs.predicted_ids, outputs.parent_ids,
                                    max_sequence_lengths=max_sequence_lengths,
                                    end_token=self._end_token)
        if self._reorder_tensor_arrays:
            final_state = final_state._replace(cell_state=nest.map_structure(
                lambda t: self._maybe_sort_array_beams(t, outputs.parent_ids,
                                                       final_state.lengths),
                final_state.cell_state))
        return FinalBeamSearchDecoderOutput(beam_search_decoder_output=outputs,
                                            predicted_ids=predicted_ids), final_state

    def _maybe_sort_array_beams(self, t, parent_ids, sequence_length):
        if not isinstance(t, TensorArray):
            return t
        shape = t.element_shape
        if shape.ndims is None or shape.ndims < 1:
            return t
        # TF 1.15's static check, as it reads: a known size-1 dimension (an alignment history's
        # memory length) must equal the beam width, the first the batch size, or the array is
        # left as it is
        batch, beam = _static_int(self._batch_size), self._beam_width
        if batch is not None and shape[0].value is not None and (
                shape[0].value != batch * beam or (
                    shape.ndims >= 2 and shape[1].value is not None
                    and (shape[0].value != batch or shape[1].value != beam))):
            return t
        t = t.stack()
        with tf.control_dependencies([_check_batch_beam(t, self._batch_size, self._beam_width)]):
            return gather_tree_from_array(t, parent_ids, sequence_length)


def _check_batch_beam(t, batch_size, beam_width):
    """An assertion op that the stacked array ``t`` (``[time, ...]``) has its second dimension
    ``batch_size * beam_width``, or (rank 3 and more) dimensions 1 and 2 ``batch_size`` and
    ``beam_width``; fails with InvalidArgumentError when run otherwise."""
    message = ("TensorArray reordering expects elements to be reshapable to [batch_size, "
               "beam_size, -1] which is incompatible with the dynamic shape of "
               f"{t.name} elements. Consider setting reorder_tensor_arrays to False to "
               "disable TensorArray reordering during the beam search.")
    shape = tf.shape(t)
    merged = tf.equal(shape[1], batch_size * beam_width)
    if t.get_shape().ndims == 2:
        condition = merged
    else:
        condition = tf.logical_or(merged, tf.logical_and(tf.equal(shape[1], batch_size),
                                                         tf.equal(shape[2], beam_width)))
    return tf.Assert(condition, [message])


def gather_tree_from_array(t, parent_ids, sequence_length):
    """``t`` ``[time, batch, beam, ...]`` or ``[time, batch * beam, ...]`` with each beam's
    steps taken along its ancestry in ``parent_ids`` ``[time, batch, beam]``; steps past a
    beam's ``sequence_length`` (``[batch, beam]``) stay where they are."""
    # TF 1.15's ops: each size static where known, else read from the parent ids' shape
    dims = parent_ids.get_shape().dims or [None] * 3
    max_time = dims[0].value or tf.shape(parent_ids)[0]
    batch_size = dims[1].value or tf.shape(parent_ids)[1]
    beam_width = dims[2].value or tf.shape(parent_ids)[2]
    beam_ids = tf.expand_dims(tf.expand_dims(tf.range(beam_width), 0), 0)
    beam_ids = tf.tile(beam_ids, [max_time, batch_size, 1])
    max_lengths = tf.cast(tf.reduce_max(sequence_length, axis=1), tf.int32)
    sorted_beam_ids = gather_tree(beam_ids, parent_ids, max_lengths, beam_width + 1)
    in_bound = tf.transpose(tf.sequence_mask(sequence_length, maxlen=max_time), perm=[2, 0, 1])
    sorted_beam_ids = tf.where(in_bound, sorted_beam_ids, beam_ids)
    time_ind = tf.tile(tf.reshape(tf.range(max_time), [-1, 1, 1]), [1, batch_size, beam_width])
    batch_ind = tf.tile(tf.reshape(tf.range(batch_size), [-1, 1, 1]), [1, max_time, beam_width])
    batch_ind = tf.transpose(batch_ind, perm=[1, 0, 2])
    indices = tf.stack([time_ind, batch_ind, sorted_beam_ids], -1)
    final_shape = tf.shape(t)
    # the trailing dimensions (whether or not batch and beam are merged) collapse into one
    split = tf.reshape(t, [max_time, batch_size, beam_width, -1])
    ordered = tf.gather_nd(split, indices)
    out = tf.reshape(ordered, final_shape)
    out.set_shape(t.get_shape())
    return out
