"""``tf.contrib.seq2seq`` helpers: what a ``BasicDecoder`` feeds its cell at each step and how
it picks sample ids (teacher forcing, greedy or sampled embedding lookups, scheduled sampling,
or user functions)."""

import abc

import tideflow as tf
from tideflow.framework import nest
from tideflow.framework.tensor_shape import TensorShape

__all__ = [
    "CustomHelper",
    "GreedyEmbeddingHelper",
    "Helper",
    "InferenceHelper",
    "SampleEmbeddingHelper",
    "ScheduledEmbeddingTrainingHelper",
    "ScheduledOutputTrainingHelper",
    "TrainingHelper",
]


def _transpose_batch_time(x):
    ndims = x.get_shape().ndims
    if ndims is None or ndims < 2:
        raise ValueError(f"Expected input tensor {x.name} to have rank at least 2, but saw "
                         f"shape: {x.get_shape()}")
    from tideflow.ops import rnn

    return rnn._transpose_batch_time(x)  # TF's ops (its op count)


def _call_sampler(draw, sample_shape):
    """``draw(n)`` gives ``[n, batch...]`` samples; the result is ``sample_shape + batch...``
    (``sample_shape`` a scalar or a vector), in TF 1.15's ops."""
    with tf.name_scope(None, "call_sampler", [sample_shape]):
        sample_shape = tf.convert_to_tensor(sample_shape, dtype=tf.int32, name="sample_shape")
        pad = tf.cast(tf.equal(tf.rank(sample_shape), 0), tf.int32)
        sample_shape = tf.reshape(sample_shape, tf.pad(tf.shape(sample_shape),
                                                       paddings=[[pad, 0]], constant_values=1))
        samples = draw(tf.reduce_prod(sample_shape))
        final_shape = tf.concat([sample_shape, tf.shape(samples)[1:]], 0)
        return tf.reshape(samples, final_shape)


def bernoulli_sample(probs=None, logits=None, dtype=tf.int32, sample_shape=(), seed=None):
    """Bernoulli draws (TF 1.15's ``helper.bernoulli_sample``): 1 with probability ``probs``
    (or ``sigmoid(logits)``), shaped ``sample_shape + probs.shape``, cast to ``dtype``."""
    probs = tf.sigmoid(logits, name="probs") if probs is None else tf.convert_to_tensor(
        probs, name="probs")
    batch_shape = tf.shape(probs)

    def draw(n):
        shape = tf.concat([[n], batch_shape], 0)
        return tf.cast(tf.less(tf.random_uniform(shape, seed=seed, dtype=probs.dtype), probs),
                       dtype)

    return _call_sampler(draw, sample_shape)


def categorical_sample(logits, dtype=tf.int32, sample_shape=(), seed=None):
    """Categorical draws over the last axis of ``logits`` (TF 1.15's
    ``helper.categorical_sample``), shaped ``sample_shape + logits.shape[:-1]``."""
    logits = tf.convert_to_tensor(logits, name="logits")
    event_size = tf.shape(logits)[-1]
    batch_shape = tf.shape(logits)[:-1]

    def draw(n):
        flat = logits if logits.get_shape().ndims == 2 else tf.reshape(logits,
                                                                       [-1, event_size])
        out_dtype = tf.int64 if logits.dtype.size > 4 else tf.int32
        draws = tf.multinomial(flat, n, seed=seed, output_dtype=out_dtype)
        draws = tf.reshape(tf.transpose(draws), tf.concat([[n], batch_shape], 0))
        return tf.cast(draws, dtype)

    return _call_sampler(draw, sample_shape)


def _unstack_ta(inp, clear_after_read=None):
    from tideflow.framework import ops
    from tideflow.ops import rnn

    start = ops.get_default_graph()._next_id
    size = tf.shape(inp)[0]  # TF's Shape and strided_slice
    ta = rnn._unstacked(inp, size, clear_after_read)
    rnn._skip_ids_to(start + 15)  # TF's: those 5, its TensorArrayV3, the unstack's 9 ops
    return ta


def _cond_as_select(all_finished, finished_value, next_fn, tf_ids=None):
    """In a decoder's loop: ``finished_value`` where ``all_finished``, else ``next_fn()``
    (the same values as TF 1.15's cond there, which runs ``next_fn`` only while some entry is
    unfinished: ``next_fn`` must be safe to run after), in the op ids TF's cond takes
    (``tf_ids``, or counted: its Switch, switch_t, switch_f and pred_id, a Switch per tensor
    a branch takes from outside it and an Enter per one from outside the loop, the ops of
    ``next_fn``, a Merge per output), those left skipped, so the ops after get TF's op
    count."""
    graph = tf.get_default_graph()
    first = graph._next_id
    flat_finished = list({id(t): t for t in nest.flatten(finished_value)}.values())
    true_ids = sum(1 + (t.graph is not graph) for t in flat_finished)
    graph._skip_op_ids(4 + true_ids)
    start = graph._next_id
    with tf.name_scope("cond"):
        value = next_fn()
        made = [op for op in graph.get_operations() if op._id >= start]
        computed = {op for op in made if op.type != "Placeholder"}  # (not the captures)
        outside = {t for op in computed for t in op.inputs if t.op not in computed}
        out = nest.map_structure(lambda a, b: tf.where_v2(all_finished, a, b),
                                 finished_value, value)
    if tf_ids is None:
        tf_ids = 4 + true_ids + len(made) + len(outside) + len(nest.flatten(value))
    graph._skip_op_ids(to=first + tf_ids)
    return out


def _embedding_fn(embedding):
    if callable(embedding):
        return embedding
    # as TF 1.15: each lookup takes the embedding as given (a NumPy array is converted there,
    # as embedding_lookup/params_0)
    return lambda ids: tf.nn.embedding_lookup(embedding, ids)


class Helper(abc.ABC):
    """Drives a ``BasicDecoder``: ``initialize()`` gives ``(finished, first_inputs)``,
    ``sample(time, outputs, state)`` the sample ids, and ``next_inputs(time, outputs, state,
    sample_ids)`` gives ``(finished, next_inputs, next_state)``."""

    @property
    @abc.abstractmethod
    def batch_size(self):
        """The batch size (a scalar int32 Tensor)."""

    @property
    @abc.abstractmethod
    def sample_ids_shape(self):
        """The shape of one entry's sample ids (a TensorShape)."""

    @property
    @abc.abstractmethod
    def sample_ids_dtype(self):
        """The dtype of the sample ids."""

    @abc.abstractmethod
    def initialize(self, name=None):
        """Returns ``(initial_finished, initial_inputs)``."""

    @abc.abstractmethod
    def sample(self, time, outputs, state, name=None):
        """Returns the sample ids."""

    @abc.abstractmethod
    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        """Returns ``(finished, next_inputs, next_state)``."""


class CustomHelper(Helper):
    """A helper from three functions: ``initialize_fn()``, ``sample_fn(time, outputs,
    state)`` and ``next_inputs_fn(time, outputs, state, sample_ids)``."""

    def __init__(self, initialize_fn, sample_fn, next_inputs_fn, sample_ids_shape=None,
                 sample_ids_dtype=None):
        self._initialize_fn = initialize_fn
        self._sample_fn = sample_fn
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = tf.as_dtype(sample_ids_dtype or tf.int32)

    @property
    def batch_size(self):
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_ids_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_ids_dtype

    def initialize(self, name=None):
        with tf.name_scope(name, f"{type(self).__name__}Initialize"):
            finished, next_inputs = self._initialize_fn()
            if self._batch_size is None:
                self._batch_size = tf.size(finished)
        return finished, next_inputs

    def sample(self, time, outputs, state, name=None):
        with tf.name_scope(name, f"{type(self).__name__}Sample", (time, outputs, state)):
            return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with tf.name_scope(name, f"{type(self).__name__}NextInputs", (time, outputs, state)):
            return self._next_inputs_fn(time=time, outputs=outputs, state=state,
                                        sample_ids=sample_ids)


class _ScalarIdsHelper(Helper):
    """A helper of ``self._batch_size`` entries, each sampling one int32 id."""

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return TensorShape([])

    @property
    def sample_ids_dtype(self):
        return tf.int32


class TrainingHelper(_ScalarIdsHelper):
    """Teacher forcing: step ``t`` reads ``inputs[:, t]``; an entry finishes after its
    ``sequence_length`` steps. Sample ids are the argmax of the outputs."""

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        with tf.name_scope(name, "TrainingHelper", [inputs, sequence_length]):
            inputs = tf.convert_to_tensor(inputs, name="inputs")
            self._inputs = inputs
            if not time_major:
                inputs = nest.map_structure(_transpose_batch_time, inputs)
            self._time_major = inputs
            # (rows kept after a read: TF's cond reads none once all have finished; the
            # select that stands for it here reads row 0 again)
            self._input_tas = nest.map_structure(lambda x: _unstack_ta(x, False), inputs)
            self._sequence_length = tf.convert_to_tensor(sequence_length,
                                                         name="sequence_length")
            if self._sequence_length.get_shape().ndims != 1:
                raise ValueError("Expected sequence_length to be a vector, but received shape: "
                                 f"{self._sequence_length.get_shape()}")
            self._zero_inputs = nest.map_structure(lambda inp: tf.zeros_like(inp[0, :]),
                                                   inputs)
            self._batch_size = tf.size(sequence_length)  # (TF's: of the argument as given)

    @property
    def inputs(self):
        return self._inputs

    @property
    def sequence_length(self):
        return self._sequence_length

    def _read(self, time):
        def read():
            out = nest.map_structure(lambda ta: ta.read(time), self._input_tas)
            return out
        return read

    def _inputs_at(self, time, finished):
        all_finished = tf.reduce_all(finished)
        return tf.cond(all_finished, lambda: self._zero_inputs, self._read(time))

    def initialize(self, name=None):
        with tf.name_scope(name, "TrainingHelperInitialize"):
            finished = tf.equal(0, self._sequence_length)
            return finished, self._inputs_at(0, finished)

    def sample(self, time, outputs, name=None, **unused_kwargs):
        with tf.name_scope(name, "TrainingHelperSample", [time, outputs]):
            return tf.cast(tf.argmax(outputs, axis=-1), tf.int32)  # TF's ops

    def next_inputs(self, time, outputs, state, name=None, **unused_kwargs):
        with tf.name_scope(name, "TrainingHelperNextInputs", [time, outputs, state]):
            next_time = time + 1
            finished = next_time >= self._sequence_length
            all_finished = tf.reduce_all(finished)
            # the inputs' rows at next_time while some entry is unfinished (row 0 after: the
            # loop stops; a row past the inputs fails as TF's read does), read from the
            # arrays as TF's (so the inputs' gradient flows back through them); TF's cond
            # takes, per input, the Enter and Switch of its zeros, its read (5 ops) and Merge,
            # and once the Switch of next_time
            n = len(nest.flatten(self._input_tas))

            def rows():
                at = tf.where_v2(all_finished, 0, next_time)
                return nest.map_structure(lambda ta: ta.read(at), self._input_tas)

            next_inputs = _cond_as_select(all_finished, self._zero_inputs, rows, 5 + 8 * n)
            from tideflow.ops import control_flow_grad

            for t in nest.flatten(next_inputs):
                # TF's gradient of its cond there: the Merge's Switch on the stacked predicate
                # (6 and 6); its zeros of a shape not fully known stack that shape (6 each)
                control_flow_grad.emulate_loop_grad(
                    t.op, 12 + (0 if t.get_shape().is_fully_defined() else 12))
            return finished, next_inputs, state


class ScheduledEmbeddingTrainingHelper(TrainingHelper):
    """Teacher forcing where, with probability ``sampling_probability`` per entry and step,
    the next input is instead the embedding of an id sampled from the outputs (as logits).
    Sample ids are -1 where the ground truth was fed."""

    def __init__(self, inputs, sequence_length, embedding, sampling_probability,
                 time_major=False, seed=None, scheduling_seed=None, name=None):
        with tf.name_scope(name, "ScheduledEmbeddingSamplingWrapper",
                           [embedding, sampling_probability]):
            self._embedding = embedding
            self._embedding_fn = _embedding_fn(embedding)
            self._sampling_probability = tf.convert_to_tensor(sampling_probability,
                                                              name="sampling_probability")
            if self._sampling_probability.get_shape().ndims not in (0, 1):
                raise ValueError("sampling_probability must be either a scalar or a vector. "
                                 f"saw shape: {self._sampling_probability.get_shape()}")
            self._seed = seed
            self._scheduling_seed = scheduling_seed
            super().__init__(inputs=inputs, sequence_length=sequence_length,
                             time_major=time_major, name=name)

    def initialize(self, name=None):
        return super().initialize(name=name)

    def sample(self, time, outputs, state, name=None):
        with tf.name_scope(name, "ScheduledEmbeddingTrainingHelperSample",
                           [time, outputs, state]):
            select = bernoulli_sample(probs=self._sampling_probability, dtype=tf.bool,
                                      sample_shape=self.batch_size,
                                      seed=self._scheduling_seed)
            return tf.where(select, categorical_sample(logits=outputs, seed=self._seed),
                            tf.fill([self.batch_size], -1))

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with tf.name_scope(name, "ScheduledEmbeddingTrainingHelperNextInputs",
                           [time, outputs, state, sample_ids]):
            finished, base_next_inputs, state = super().next_inputs(
                time=time, outputs=outputs, state=state, sample_ids=sample_ids, name=name)

            def maybe_sample():  # (TF's ops)
                where_sampling = tf.cast(tf.where(sample_ids > -1), tf.int32)
                where_not_sampling = tf.cast(tf.where(sample_ids <= -1), tf.int32)
                sampled_ids = tf.gather_nd(sample_ids, where_sampling)
                inputs_not_sampling = tf.gather_nd(base_next_inputs, where_not_sampling)
                sampled_inputs = self._embedding_fn(sampled_ids)
                base_shape = tf.shape(base_next_inputs)
                return (tf.scatter_nd(where_sampling, sampled_inputs, base_shape)
                        + tf.scatter_nd(where_not_sampling, inputs_not_sampling, base_shape))

            all_finished = tf.reduce_all(finished)
            if callable(self._embedding):  # (a function may hold random ops)
                next_inputs = tf.cond(all_finished, lambda: base_next_inputs, maybe_sample)
            else:
                next_inputs = _cond_as_select(all_finished, base_next_inputs, maybe_sample)
            return finished, next_inputs, state


class ScheduledOutputTrainingHelper(TrainingHelper):
    """Teacher forcing where, with probability ``sampling_probability`` per entry and step,
    the next input is the step's output itself (optionally concatenated with
    ``auxiliary_inputs``) instead of the ground truth. Sample ids are int32: 1 where the
    output was fed, 0 elsewhere."""

    def __init__(self, inputs, sequence_length, sampling_probability, time_major=False,
                 seed=None, next_inputs_fn=None, auxiliary_inputs=None, name=None):
        with tf.name_scope(name, "ScheduledOutputTrainingHelper",
                           [inputs, auxiliary_inputs, sampling_probability]):
            self._sampling_probability = tf.convert_to_tensor(sampling_probability,
                                                              name="sampling_probability")
            if self._sampling_probability.get_shape().ndims not in (0, 1):
                raise ValueError("sampling_probability must be either a scalar or a vector. "
                                 f"saw shape: {self._sampling_probability.get_shape()}")
            if auxiliary_inputs is None:
                maybe_concatenated = inputs
            else:
                inputs = tf.convert_to_tensor(inputs, name="inputs")
                auxiliary_inputs = tf.convert_to_tensor(auxiliary_inputs,
                                                        name="auxiliary_inputs")
                maybe_concatenated = tf.concat([inputs, auxiliary_inputs], -1)
                if not time_major:
                    auxiliary_inputs = _transpose_batch_time(auxiliary_inputs)
            self._auxiliary_input_tas = (None if auxiliary_inputs is None
                                         else _unstack_ta(auxiliary_inputs))
            self._seed = seed
            self._next_inputs_fn = next_inputs_fn
            super().__init__(inputs=maybe_concatenated, sequence_length=sequence_length,
                             time_major=time_major, name=name)

    def sample(self, time, outputs, state, name=None):
        # TF 1.15: int32 ids (1 where the output is fed back), TrainingHelper's dtype
        with tf.name_scope(name, "ScheduledOutputTrainingHelperSample",
                           [time, outputs, state]):
            return bernoulli_sample(probs=self._sampling_probability,
                                    sample_shape=self.batch_size, seed=self._seed)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        with tf.name_scope(name, "ScheduledOutputTrainingHelperNextInputs",
                           [time, outputs, state, sample_ids]):
            finished, base_next_inputs, state = super().next_inputs(
                time=time, outputs=outputs, state=state, sample_ids=sample_ids, name=name)
            sample_ids = tf.cast(sample_ids, tf.bool)

            def with_auxiliary(outputs_, indices=None):
                if self._auxiliary_input_tas is None:
                    return outputs_
                aux = self._auxiliary_input_tas.read(time + 1)
                if indices is not None:
                    aux = tf.gather_nd(aux, indices)
                return tf.concat((outputs_, aux), -1)

            def maybe_sample():  # (TF's ops)
                if self._next_inputs_fn is None:
                    return tf.where(sample_ids, with_auxiliary(outputs), base_next_inputs)
                where_sampling = tf.cast(tf.where(sample_ids), tf.int32)
                where_not_sampling = tf.cast(tf.where(tf.logical_not(sample_ids)), tf.int32)
                outputs_sampling = tf.gather_nd(outputs, where_sampling)
                inputs_not_sampling = tf.gather_nd(base_next_inputs, where_not_sampling)
                sampled_inputs = with_auxiliary(self._next_inputs_fn(outputs_sampling),
                                                where_sampling)
                base_shape = tf.shape(base_next_inputs)
                return (tf.scatter_nd(where_sampling, sampled_inputs, base_shape)
                        + tf.scatter_nd(where_not_sampling, inputs_not_sampling, base_shape))

            all_finished = tf.reduce_all(finished)
            no_samples = tf.logical_not(tf.reduce_any(sample_ids))
            skip = tf.logical_or(all_finished, no_samples)
            if self._next_inputs_fn is None and self._auxiliary_input_tas is None:
                next_inputs = _cond_as_select(skip, base_next_inputs, maybe_sample)
            else:  # (a function may hold random ops, the auxiliary inputs end at the end)
                next_inputs = tf.cond(skip, lambda: base_next_inputs, maybe_sample)
            return finished, next_inputs, state


class GreedyEmbeddingHelper(_ScalarIdsHelper):
    """Inference: feeds the embedding of the argmax of the outputs; an entry finishes when it
    emits ``end_token``."""

    def __init__(self, embedding, start_tokens, end_token):
        self._embedding = embedding
        self._embedding_fn = _embedding_fn(embedding)
        # TF 1.15's order: both converted, then each checked (the size made between)
        self._start_tokens = tf.convert_to_tensor(start_tokens, dtype=tf.int32,
                                                  name="start_tokens")
        self._end_token = tf.convert_to_tensor(end_token, dtype=tf.int32, name="end_token")
        if self._start_tokens.get_shape().ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = tf.size(start_tokens)  # (TF's: of the argument as given)
        if self._end_token.get_shape().ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    def initialize(self, name=None):
        finished = tf.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time, outputs, state, name=None):
        del time, state
        if not isinstance(outputs, tf.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        return tf.argmax(outputs, axis=-1, output_type=tf.int32)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        del time, outputs
        finished = tf.equal(sample_ids, self._end_token)
        all_finished = tf.reduce_all(finished)
        if callable(self._embedding):  # (a function may hold random ops: run as TF runs it)
            next_inputs = tf.cond(all_finished, lambda: self._start_inputs,
                                  lambda: self._embedding_fn(sample_ids))
            return finished, next_inputs, state
        next_inputs = _cond_as_select(all_finished, self._start_inputs,
                                      lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """Inference: feeds the embedding of an id sampled from ``softmax(outputs /
    softmax_temperature)``; an entry finishes when it emits ``end_token``."""

    def __init__(self, embedding, start_tokens, end_token, softmax_temperature=None,
                 seed=None):
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time, outputs, state, name=None):
        del time, state
        if not isinstance(outputs, tf.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        logits = outputs if self._softmax_temperature is None else (
            outputs / self._softmax_temperature)
        return categorical_sample(logits=logits, seed=self._seed)


class InferenceHelper(Helper):
    """Inference without embeddings: ``sample_fn(outputs)`` gives the sample ids,
    ``next_inputs_fn(sample_ids)`` (default: the ids themselves) the next inputs, and
    ``end_fn(sample_ids)`` which entries have finished."""

    def __init__(self, sample_fn, sample_shape, sample_dtype, start_inputs, end_fn,
                 next_inputs_fn=None):
        self._sample_fn = sample_fn
        self._end_fn = end_fn
        self._sample_shape = TensorShape(sample_shape)
        self._sample_dtype = tf.as_dtype(sample_dtype)
        self._next_inputs_fn = next_inputs_fn
        self._start_inputs = tf.convert_to_tensor(start_inputs, name="start_inputs")
        self._batch_size = tf.shape(self._start_inputs)[0]

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def sample_ids_shape(self):
        return self._sample_shape

    @property
    def sample_ids_dtype(self):
        return self._sample_dtype

    def initialize(self, name=None):
        return tf.tile([False], [self._batch_size]), self._start_inputs

    def sample(self, time, outputs, state, name=None):
        del time, state
        return self._sample_fn(outputs)

    def next_inputs(self, time, outputs, state, sample_ids, name=None):
        del time, outputs
        next_inputs = sample_ids if self._next_inputs_fn is None else self._next_inputs_fn(
            sample_ids)
        return self._end_fn(sample_ids), next_inputs, state
