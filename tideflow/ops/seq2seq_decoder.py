"""``tf.contrib.seq2seq`` decoders: the ``Decoder`` interface, ``BasicDecoder`` (a cell, a
helper and an optional output layer) and ``dynamic_decode``, a ``while_loop`` that runs a
decoder until every batch entry has finished or ``maximum_iterations`` is reached."""

import abc
import collections

import tideflow as tf
from tideflow.framework import nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.tensor_array import TensorArray

__all__ = ["BasicDecoder", "BasicDecoderOutput", "Decoder", "dynamic_decode"]


class Decoder(abc.ABC):
    """A decoder for ``dynamic_decode``: ``initialize()`` returns ``(finished, first_inputs,
    initial_state)``, ``step(time, inputs, state)`` returns ``(outputs, next_state,
    next_inputs, finished)``; ``output_size``/``output_dtype`` describe one step's outputs
    (without the batch dimension) and ``finalize`` may post-process the stacked outputs."""

    @property
    @abc.abstractmethod
    def batch_size(self):
        """The batch size of the input (a scalar int32 Tensor or an int)."""

    @property
    @abc.abstractmethod
    def output_size(self):
        """Shapes of one step's outputs (a structure of TensorShapes or ints)."""

    @property
    @abc.abstractmethod
    def output_dtype(self):
        """Dtypes of one step's outputs (the structure of ``output_size``)."""

    @abc.abstractmethod
    def initialize(self, name=None):
        """Returns ``(finished, initial_inputs, initial_state)``."""

    @abc.abstractmethod
    def step(self, time, inputs, state, name=None):
        """Returns ``(outputs, next_state, next_inputs, finished)``."""

    @property
    def tracks_own_finished(self):
        """Whether ``step`` returns the full finished vector (beam search), so that
        ``dynamic_decode`` need not OR it with the previous one."""
        return False

    def finalize(self, outputs, final_state, sequence_lengths):
        raise NotImplementedError


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput",
                                                ("rnn_output", "sample_id"))):
    """One step of a ``BasicDecoder``: the (projected) cell output and the sampled ids."""

    __slots__ = ()


def _check_cell(cell):
    """TF's assert_like_rnncell("cell", cell): a TypeError naming each missing part."""
    from tideflow.ops import rnn

    rnn._check_cell(cell)


class BasicDecoder(Decoder):
    """Runs ``cell`` one step, applies ``output_layer`` to its output, and asks ``helper`` for
    the sample ids, the next inputs and which entries have finished."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        from tideflow.ops.seq2seq_helper import Helper

        _check_cell(cell)
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        if output_layer is not None and not isinstance(output_layer, tf.layers.Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self):
        return self._helper.batch_size

    def _rnn_output_size(self):
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        # the layer's output shape for a [None] + size input, without the batch dimension
        shapes = nest.map_structure(lambda s: TensorShape([None]).concatenate(s), size)
        layer_shape = self._output_layer.compute_output_shape(shapes)
        return nest.map_structure(lambda s: s[1:], layer_shape)

    @property
    def output_size(self):
        return BasicDecoderOutput(rnn_output=self._rnn_output_size(),
                                  sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self):
        dtype = nest.flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(
            nest.map_structure(lambda _: dtype, self._rnn_output_size()),
            self._helper.sample_ids_dtype)

    def initialize(self, name=None):
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time, inputs, state, name=None):
        with tf.name_scope(name, "BasicDecoderStep", (time, inputs, state)):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


def _static_int(x):
    if isinstance(x, tf.Tensor):
        value = ops.constant_value(x)
        return None if value is None else int(value)
    return None if x is None else int(x)


def _batch_shape(batch_size, size):
    dims = TensorShape([size]) if isinstance(size, int) else TensorShape(size)
    return TensorShape([_static_int(batch_size)]).concatenate(dims)


def _zero_outputs(size, dtype, batch_size):
    def one(s, d):
        dims = [s] if isinstance(s, int) else TensorShape(s).as_list()
        if any(v is None for v in dims):
            raise ValueError(f"dynamic_decode: the decoder's output_size {size} must be fully "
                             "defined")
        shape = tf.concat([tf.expand_dims(tf.cast(batch_size, tf.int32), 0),
                           tf.constant(dims, dtype=tf.int32)], 0)
        z = tf.zeros(shape, dtype=d)
        z.set_shape(_batch_shape(batch_size, s))
        return z
    return nest.map_structure(one, size, dtype)


def _transpose_batch_time(x):
    ndims = x.get_shape().ndims
    if ndims is not None and ndims < 2:
        return x
    from tideflow.ops import rnn

    return rnn._transpose_batch_time(x)  # TF's ops (its op count)


def dynamic_decode(decoder, output_time_major=False, impute_finished=False,
                   maximum_iterations=None, parallel_iterations=32, swap_memory=False,
                   scope=None, **kwargs):
    """Runs ``decoder`` step by step until all entries have finished (or for at most
    ``maximum_iterations`` steps); returns ``(final_outputs, final_state,
    final_sequence_lengths)``. Outputs are ``[batch, time, ...]`` (``[time, batch, ...]``
    with ``output_time_major``). With ``impute_finished``, a finished entry's outputs are
    zeros and its state is carried through unchanged. Other keyword arguments are taken
    and left unused, as TF 1.15 does for a ``Decoder`` (they are for a ``BaseDecoder``)."""
    del kwargs
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with tf.variable_scope(scope, "decoder") as varscope:  # a second decode opens decoder_1
        del varscope
        if maximum_iterations is not None:
            maximum_iterations = tf.convert_to_tensor(maximum_iterations, dtype=tf.int32,
                                                      name="maximum_iterations")
            if maximum_iterations.get_shape().ndims not in (None, 0):
                raise ValueError("maximum_iterations must be a scalar, saw shape: "
                                 f"{maximum_iterations.get_shape()}")
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        initial_finished = tf.convert_to_tensor(initial_finished)
        from tideflow.ops import rnn

        graph = tf.get_default_graph()
        after_init = graph._next_id
        zero_outputs = _zero_outputs(decoder.output_size, decoder.output_dtype,
                                     decoder.batch_size)
        if maximum_iterations is not None:
            initial_finished = tf.logical_or(initial_finished, 0 >= maximum_iterations)
        initial_sequence_lengths = tf.zeros_like(initial_finished, dtype=tf.int32)
        initial_time = tf.constant(0, dtype=tf.int32)
        batch_size = decoder.batch_size

        def make_ta(s, d):
            return TensorArray(dtype=d, size=0, dynamic_size=True,
                               element_shape=_batch_shape(batch_size, s))

        initial_outputs_ta = nest.map_structure(make_ta, decoder.output_size,
                                                decoder.output_dtype)
        # TF 1.15 made, after the decoder's initialize: per output its zero output (10 ops)
        # and TensorArray (2: its size and the array), the sequence lengths' zeros_like,
        # the time (1), and with maximum_iterations its test (3); the ids tideflow does not
        # take here are skipped, so the ops made after get TF's op seeds
        n_out = len(nest.flatten(decoder.output_size))
        # (zeros_like of a fully known shape is one constant)
        zeros_like = 1 if initial_finished.get_shape().is_fully_defined() else 3
        rnn._skip_ids_to(after_init + 12 * n_out + zeros_like + 1
                         + (3 if maximum_iterations is not None else 0))

        def condition(unused_time, unused_outputs_ta, unused_state, unused_inputs, finished,
                      unused_sequence_lengths):
            return tf.logical_not(tf.reduce_all(finished))

        def body(time, outputs_ta, state, inputs, finished, sequence_lengths):
            next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(
                time, inputs, state)
            decoder_finished = tf.convert_to_tensor(decoder_finished)
            if decoder.tracks_own_finished:
                next_finished = decoder_finished
            else:
                next_finished = tf.logical_or(decoder_finished, finished)
            next_sequence_lengths = tf.where(
                tf.logical_not(finished), tf.fill(tf.shape(sequence_lengths), time + 1),
                sequence_lengths)
            nest.assert_same_structure(state, decoder_state)
            nest.assert_same_structure(outputs_ta, next_outputs)
            nest.assert_same_structure(inputs, next_inputs)
            # (TF 1.15 leaves the bound to the loop's maximum_iterations: an entry still running
            # at the last step is not marked finished by it)
            if impute_finished:
                emit = nest.map_structure(lambda out, zero: _select(finished, zero, out),
                                          next_outputs, zero_outputs)

                def maybe_copy_state(new, cur):
                    if isinstance(cur, TensorArray):
                        return new
                    new.set_shape(cur.get_shape())
                    if new.get_shape().ndims == 0:
                        return new
                    return _select(finished, cur, new)

                next_state = nest.map_structure(maybe_copy_state, decoder_state, state)
            else:
                emit = next_outputs
                next_state = decoder_state
            before_writes = graph._next_id
            outputs_ta = nest.map_structure(lambda ta, out: ta.write(time, out), outputs_ta,
                                            emit)
            # TF: per output a TensorArrayWriteV3 and the Enter of its handle
            rnn._skip_ids_to(before_writes + 2 * n_out)
            return (time + 1, outputs_ta, next_state, next_inputs, next_finished,
                    next_sequence_lengths)

        res = tf.while_loop(
            condition, body,
            loop_vars=(initial_time, initial_outputs_ta, initial_state, initial_inputs,
                       initial_finished, initial_sequence_lengths),
            parallel_iterations=parallel_iterations, maximum_iterations=maximum_iterations,
            swap_memory=swap_memory)
        final_outputs_ta, final_state, final_sequence_lengths = res[1], res[2], res[5]
        before_stack = graph._next_id
        final_outputs = nest.map_structure(lambda ta: ta.stack(), final_outputs_ta)
        rnn._skip_ids_to(before_stack + 5 * n_out)  # TF's stacks: size, range, gather
        try:
            final_outputs, final_state = decoder.finalize(final_outputs, final_state,
                                                          final_sequence_lengths)
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = nest.map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_sequence_lengths


def _select(cond, x, y):
    """``x`` where ``cond`` (a leading-dims bool tensor), else ``y``; broadcasts ``cond`` over
    the trailing dimensions of ``x``."""
    x = tf.convert_to_tensor(x)
    y = tf.convert_to_tensor(y)
    c_rank = cond.get_shape().ndims
    x_rank = x.get_shape().ndims
    # (a vector selects rows, as TF 1.15's Select: its op)
    if c_rank is not None and x_rank is not None and x_rank > c_rank > 1:
        cond = tf.reshape(cond, tf.concat([tf.shape(cond),
                                           tf.ones([x_rank - c_rank], tf.int32)], 0))
        return tf.where_v2(cond, x, y)
    return tf.where(cond, x, y)
