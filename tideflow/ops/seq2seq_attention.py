"""``tf.contrib.seq2seq`` attention: Bahdanau (additive) and Luong (multiplicative)
attention mechanisms over a memory, and ``AttentionWrapper``, a cell that attends after each
step of the cell it wraps. Variable names are TF 1.x's (``memory_layer/kernel``,
``.../bahdanau_attention/attention_v``, ``.../attention_wrapper/attention_layer/kernel``)."""

import collections
import math

import numpy as np

import tideflow as tf
from tideflow.framework import nest
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.rnn_cell_impl import RNNCell, _zero_state_tensors
from tideflow.ops.tensor_array import TensorArray

__all__ = [
    "AttentionMechanism",
    "AttentionWrapper",
    "AttentionWrapperState",
    "BahdanauAttention",
    "BahdanauMonotonicAttention",
    "LuongAttention",
    "LuongMonotonicAttention",
    "hardmax",
    "monotonic_attention",
    "safe_cumprod",
]


def _check_cell(cell):
    from tideflow.ops import rnn  # (TF's assert_like_rnncell)

    rnn._check_cell(cell)


class AttentionMechanism:
    """Base class of attention mechanisms (``AttentionWrapper`` accepts its instances)."""

    @property
    def alignments_size(self):
        raise NotImplementedError

    @property
    def state_size(self):
        raise NotImplementedError


def _prepare_memory(memory, memory_sequence_length, check_inner_dims_defined):
    """``memory`` converted to tensors, each zeroed past its row's length."""
    memory = nest.map_structure(lambda m: tf.convert_to_tensor(m, name="memory"), memory)
    if memory_sequence_length is not None:
        memory_sequence_length = tf.convert_to_tensor(memory_sequence_length,
                                                      name="memory_sequence_length")
        if memory_sequence_length.get_shape().ndims not in (None, 1):
            raise ValueError("memory_sequence_length must be a vector, saw shape: "
                             f"{memory_sequence_length.get_shape()}")
    if check_inner_dims_defined:
        for m in nest.flatten(memory):
            if not m.get_shape()[2:].is_fully_defined():
                raise ValueError(f"Expected memory {m.name} to have fully defined inner dims, "
                                 f"but saw shape: {m.get_shape()}")
    if memory_sequence_length is None:
        return memory

    first = nest.flatten(memory)[0]  # (TF's one mask, for every memory)
    seq_mask = tf.sequence_mask(memory_sequence_length, maxlen=tf.shape(first)[1],
                                dtype=first.dtype)

    def mask(m):
        rank = m.get_shape().ndims
        extra = tf.ones(rank - 2 if rank is not None else tf.rank(m) - 2, dtype=tf.int32)
        return m * tf.reshape(seq_mask, tf.concat((tf.shape(seq_mask), extra), 0))

    return nest.map_structure(mask, memory)


def _maybe_mask_score(score, memory_sequence_length, score_mask_value):
    if memory_sequence_length is None:
        return score
    positive = tf.assert_positive(
        memory_sequence_length,
        message="All values in memory_sequence_length must greater than zero.")
    with tf.control_dependencies([positive]):
        mask = tf.sequence_mask(memory_sequence_length, maxlen=tf.shape(score)[1])
        return tf.where(mask, score, score_mask_value * tf.ones_like(score))


class _BaseAttentionMechanism(AttentionMechanism):
    """Holds the memory (``values``), its projection (``keys``) and a probability function
    that masks the scores past ``memory_sequence_length`` before normalizing them."""

    def __init__(self, query_layer, memory, probability_fn, memory_sequence_length=None,
                 memory_layer=None, check_inner_dims_defined=True, score_mask_value=None,
                 name=None):
        for what, layer in (("query_layer", query_layer), ("memory_layer", memory_layer)):
            if layer is not None and not isinstance(layer, tf.layers.Layer):
                raise TypeError(f"{what} is not a Layer: {type(layer).__name__}")
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = memory_layer.dtype if memory_layer is not None else None
        if not callable(probability_fn):
            raise TypeError(f"probability_fn must be callable, saw type: "
                            f"{type(probability_fn).__name__}")
        memory = nest.map_structure(lambda m: tf.convert_to_tensor(m, name="memory"), memory)
        if score_mask_value is None:
            score_mask_value = nest.flatten(memory)[0].dtype.as_numpy_dtype(-np.inf)
        self._memory_sequence_length = memory_sequence_length
        self._probability_fn = lambda score, prev: probability_fn(
            _maybe_mask_score(score, self._memory_sequence_length, score_mask_value), prev)
        with tf.name_scope(name, "BaseAttentionMechanismInit", nest.flatten(memory)):
            self._values = _prepare_memory(memory, memory_sequence_length,
                                           check_inner_dims_defined)
            self._keys = (self._memory_layer(self._values) if self._memory_layer is not None
                          else self._values)
            if self.dtype is None:
                self.dtype = self._keys.dtype
            self._batch_size = (self._keys.get_shape()[0].value
                                or tf.shape(self._keys)[0])
            self._alignments_size = (self._keys.get_shape()[1].value
                                     or tf.shape(self._keys)[1])

    @property
    def memory_layer(self):
        return self._memory_layer

    @property
    def query_layer(self):
        return self._query_layer

    @property
    def values(self):
        return self._values

    @property
    def keys(self):
        return self._keys

    @property
    def batch_size(self):
        return self._batch_size

    @property
    def alignments_size(self):
        return self._alignments_size

    @property
    def state_size(self):
        return self._alignments_size

    def initial_alignments(self, batch_size, dtype):
        """Zeros ``[batch_size, max_time]``: the alignments before the first step."""
        # (TF's zero state ops, a memory of unknown length's max_time a scalar tensor)
        return _zero_state_tensors(self._alignments_size, batch_size, dtype)

    def initial_state(self, batch_size, dtype):
        """The attention state before the first step (the initial alignments)."""
        return self.initial_alignments(batch_size, dtype)


def _units_dense(num_units, name, dtype):
    return tf.layers.Dense(num_units, name=name, use_bias=False, dtype=dtype)


def _luong_score(query, keys, scale):
    depth = query.get_shape()[-1].value
    key_units = keys.get_shape()[-1].value
    if depth != key_units:
        raise ValueError(
            f"Incompatible or unknown inner dimensions between query and keys.  Query "
            f"({query}) has units: {depth}.  Keys ({keys}) have units: {key_units}.  "
            f"Perhaps you need to set num_units to the keys' dimension ({key_units})?")
    score = tf.squeeze(tf.matmul(tf.expand_dims(query, 1), keys, transpose_b=True), [1])
    if scale is not None:
        score = scale * score
    return score


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention (Luong et al., 2015): ``score = query . keys`` with ``keys``
    the memory projected to ``num_units``; ``scale=True`` multiplies by a learned scalar
    ``attention_g`` (initially 1)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="LuongAttention"):
        if custom_key_value_fn is not None:
            raise NotImplementedError("LuongAttention: custom_key_value_fn is not supported")
        probability_fn = probability_fn or tf.nn.softmax
        dtype = dtype or tf.float32
        super().__init__(
            query_layer=None, memory_layer=_units_dense(num_units, "memory_layer", dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._scale = scale
        self._name = name

    def __call__(self, query, state):
        """Returns ``(alignments, next_state)`` for ``query`` [batch, num_units]."""
        with tf.variable_scope(None, "luong_attention", [query]):
            g = None
            if self._scale:
                g = tf.get_variable("attention_g", dtype=query.dtype,
                                    initializer=tf.ones_initializer(), shape=())
            score = _luong_score(query, self._keys, g)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def _bahdanau_variables(mechanism, dtype):
    """``attention_v`` and, when normalized, ``attention_g`` and ``attention_b`` (made before
    the score's ops, as TF 1.15 makes them)."""
    n = mechanism._num_units
    v = tf.get_variable("attention_v", [n], dtype=dtype)
    if not mechanism._normalize:
        return v, None, None
    g = tf.get_variable("attention_g", dtype=dtype, shape=(),
                        initializer=tf.constant_initializer(math.sqrt(1.0 / n)))
    b = tf.get_variable("attention_b", [n], dtype=dtype, initializer=tf.zeros_initializer())
    return v, g, b


def _bahdanau_score(processed_query, keys, v, g=None, b=None):
    processed_query = tf.expand_dims(processed_query, 1)
    if g is not None:
        normed_v = g * v * tf.rsqrt(tf.reduce_sum(tf.square(v)))
        return tf.reduce_sum(normed_v * tf.tanh(keys + processed_query + b), [2])
    return tf.reduce_sum(v * tf.tanh(keys + processed_query), [2])


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention (Bahdanau et al., 2015): ``score = v . tanh(keys + W query)``;
    ``normalize=True`` is weight normalization of ``v`` (a learned scale ``attention_g`` and
    bias ``attention_b``)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="BahdanauAttention"):
        if custom_key_value_fn is not None:
            raise NotImplementedError("BahdanauAttention: custom_key_value_fn is not supported")
        probability_fn = probability_fn or tf.nn.softmax
        dtype = dtype or tf.float32
        super().__init__(
            query_layer=_units_dense(num_units, "query_layer", dtype),
            memory_layer=_units_dense(num_units, "memory_layer", dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._name = name

    def __call__(self, query, state):
        """Returns ``(alignments, next_state)`` for ``query`` [batch, query_depth]."""
        with tf.variable_scope(None, "bahdanau_attention", [query]):
            processed = self._query_layer(query) if self._query_layer is not None else query
            score = _bahdanau_score(processed, self._keys,
                                    *_bahdanau_variables(self, query.dtype))
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def hardmax(logits, name=None):
    """One-hot of the argmax of ``logits`` along the last axis, in ``logits``' dtype."""
    with tf.name_scope(name, "Hardmax", [logits]):
        logits = tf.convert_to_tensor(logits, name="logits")
        depth = logits.get_shape()[-1].value or tf.shape(logits)[-1]
        return tf.one_hot(tf.argmax(logits, -1), depth, dtype=logits.dtype)


def safe_cumprod(x, *args, **kwargs):
    """``tf.cumprod`` computed as ``exp(cumsum(log(x)))`` with ``x`` clipped to
    ``[tiny, 1]``, which keeps its gradient finite; extra arguments go to ``tf.cumsum``."""
    with tf.name_scope(None, "SafeCumprod", [x]):
        x = tf.convert_to_tensor(x, name="x")
        tiny = np.finfo(x.dtype.as_numpy_dtype).tiny
        return tf.exp(tf.cumsum(tf.log(tf.clip_by_value(x, tiny, 1)), *args, **kwargs))


def monotonic_attention(p_choose_i, previous_attention, mode):
    """Monotonic attention (Raffel et al., 2017) from the probabilities ``p_choose_i``
    [batch, max_time] of stopping at each memory entry and the previous step's attention:
    ``mode`` is ``"recursive"`` (exact, a ``tf.scan`` over memory), ``"parallel"`` (the
    cumulative-product closed form, inexact where ``p_choose_i`` nears 1) or ``"hard"`` (for
    0/1 probabilities: attend to the first chosen entry at or after the last one)."""
    p_choose_i = tf.convert_to_tensor(p_choose_i, name="p_choose_i")
    previous_attention = tf.convert_to_tensor(previous_attention, name="previous_attention")
    if mode == "recursive":
        # (TF 1.15's ops: a known batch size stays a Python int, so the ones and zeros are
        # constants; the step reshapes its result to [batch])
        batch_size = p_choose_i.shape[0].value or tf.shape(p_choose_i)[0]
        shifted = tf.concat([tf.ones((batch_size, 1), dtype=p_choose_i.dtype),
                             1 - p_choose_i[:, :-1]], 1)
        # q_i = (1 - p_{i-1}) q_{i-1} + a_prev_i, attention_i = p_i q_i
        q = tf.scan(lambda acc, yz: tf.reshape(yz[0] * acc + yz[1], (batch_size,)),
                    [tf.transpose(shifted), tf.transpose(previous_attention)],
                    initializer=tf.zeros((batch_size,), dtype=p_choose_i.dtype))
        return p_choose_i * tf.transpose(q)
    if mode == "parallel":
        cumprod_1mp = safe_cumprod(1 - p_choose_i, axis=1, exclusive=True)
        return p_choose_i * cumprod_1mp * tf.cumsum(
            previous_attention / tf.clip_by_value(cumprod_1mp, 1e-10, 1.0), axis=1)
    if mode == "hard":
        # drop the entries before the one chosen last step, then all after the first chosen
        p_choose_i *= tf.cumsum(previous_attention, axis=1)
        return p_choose_i * tf.cumprod(1 - p_choose_i, axis=1, exclusive=True)
    raise ValueError("mode must be 'recursive', 'parallel', or 'hard'.")  # (TF's words)


def _monotonic_probability_fn(score, previous_alignments, sigmoid_noise, mode, seed=None):
    if sigmoid_noise > 0:
        score += sigmoid_noise * tf.random_normal(tf.shape(score), dtype=score.dtype,
                                                  seed=seed)
    if mode == "hard":
        p_choose_i = tf.cast(score > 0, score.dtype)
    else:
        p_choose_i = tf.sigmoid(score)
    return monotonic_attention(p_choose_i, previous_alignments, mode)


class _BaseMonotonicAttentionMechanism(_BaseAttentionMechanism):
    """A monotonic mechanism starts attending to the first memory entry."""

    def initial_alignments(self, batch_size, dtype):
        max_time = self._alignments_size
        return tf.one_hot(tf.zeros([batch_size], dtype=tf.int32), max_time, dtype=dtype)


def _monotonic_fn(sigmoid_noise, mode, seed):
    return lambda score, prev: _monotonic_probability_fn(score, prev, sigmoid_noise, mode,
                                                         seed)


class BahdanauMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """Monotonic attention with Bahdanau scores plus a learned scalar
    ``attention_score_bias`` (initially ``score_bias_init``)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 score_mask_value=None, sigmoid_noise=0.0, sigmoid_noise_seed=None,
                 score_bias_init=0.0, mode="parallel", dtype=None,
                 name="BahdanauMonotonicAttention"):
        dtype = dtype or tf.float32
        super().__init__(
            query_layer=_units_dense(num_units, "query_layer", dtype),
            memory_layer=_units_dense(num_units, "memory_layer", dtype),
            memory=memory, probability_fn=_monotonic_fn(sigmoid_noise, mode,
                                                        sigmoid_noise_seed),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._score_bias_init = score_bias_init
        self._name = name

    def __call__(self, query, state):
        with tf.variable_scope(None, "bahdanau_monotonic_attention", [query]):
            processed = self._query_layer(query)
            score = _bahdanau_score(processed, self._keys,
                                    *_bahdanau_variables(self, query.dtype))
            score_bias = tf.get_variable("attention_score_bias", dtype=processed.dtype,
                                         initializer=float(self._score_bias_init))
            score += score_bias
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class LuongMonotonicAttention(_BaseMonotonicAttentionMechanism):
    """Monotonic attention with Luong scores plus a learned scalar ``attention_score_bias``
    (initially ``score_bias_init``)."""

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 score_mask_value=None, sigmoid_noise=0.0, sigmoid_noise_seed=None,
                 score_bias_init=0.0, mode="parallel", dtype=None,
                 name="LuongMonotonicAttention"):
        dtype = dtype or tf.float32
        super().__init__(
            query_layer=None, memory_layer=_units_dense(num_units, "memory_layer", dtype),
            memory=memory, probability_fn=_monotonic_fn(sigmoid_noise, mode,
                                                        sigmoid_noise_seed),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._scale = scale
        self._score_bias_init = score_bias_init
        self._name = name

    def __call__(self, query, state):
        with tf.variable_scope(None, "luong_monotonic_attention", [query]):
            g = None
            if self._scale:
                g = tf.get_variable("attention_g", dtype=query.dtype,
                                    initializer=tf.ones_initializer(), shape=())
            score = _luong_score(query, self._keys, g)
            score_bias = tf.get_variable("attention_score_bias", dtype=query.dtype,
                                         initializer=float(self._score_bias_init))
            score += score_bias
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState", ("cell_state", "attention", "time", "alignments",
                                  "alignment_history", "attention_state"))):
    """The state of an ``AttentionWrapper``: the wrapped cell's state, the last attention
    vector, the step count, the last alignments, their history (TensorArrays, when kept)
    and the mechanisms' states."""

    __slots__ = ()

    def clone(self, **kwargs):
        """A copy with the given fields replaced. As TF 1.15, every tensor field (replaced
        or not) goes through ``with_same_shape`` against the old one: a static check where
        the old shape is fully known, else a run-time shape assertion and an Identity."""
        from tideflow.contrib_framework_extra import with_same_shape as checked

        def with_same_shape(old, new):
            if isinstance(old, tf.Tensor) and isinstance(new, tf.Tensor):
                return checked(old, new)
            return new

        return nest.map_structure(with_same_shape, self,
                                  super()._replace(**kwargs))


def _compute_attention(mechanism, cell_output, attention_state, attention_layer):
    alignments, next_attention_state = mechanism(cell_output, state=attention_state)
    context = tf.squeeze(tf.matmul(tf.expand_dims(alignments, 1), mechanism.values), [1])
    if attention_layer is not None:
        attention = attention_layer(tf.concat([cell_output, context], 1))
    else:
        attention = context
    return attention, alignments, next_attention_state


def _history_array(dtype, element_shape):
    """An alignment history: a TensorArray that counts its ops as TF 1.15's (its size's Const
    and the array here; its writes in the decoder's loop, a program's stack of it), as one a
    program makes."""
    from tideflow.ops import tensor_array

    graph = tf.get_default_graph()
    if not tensor_array._v1_rules(graph):
        return TensorArray(dtype, size=0, dynamic_size=True, element_shape=element_shape)
    # (its ops take ids set aside: none is owed to a later loop, which a single step of the
    # cell may never build)
    with graph.aside_ids():
        ta = TensorArray(dtype, size=0, dynamic_size=True, element_shape=element_shape)
    op = ta._list.op
    ta._counted = (graph, op, {graph: op.inputs[0]})
    graph._skip_op_ids(2)
    return ta


class AttentionWrapper(RNNCell):
    """Wraps ``cell`` with attention: each step feeds ``cell_input_fn(inputs,
    previous_attention)`` (by default their concatenation) to the cell, scores its output
    against the memory, and outputs the attention (``attention_layer_size`` units through a
    bias-free ``attention_layer``, or the context vector) or, with
    ``output_attention=False``, the cell's output."""

    def __init__(self, cell, attention_mechanism, attention_layer_size=None,
                 alignment_history=False, cell_input_fn=None, output_attention=True,
                 initial_cell_state=None, name=None, attention_layer=None,
                 attention_fn=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        _check_cell(cell)  # (TF's assert_like_rnncell)
        if isinstance(attention_mechanism, (list, tuple)):
            self._is_multi = True
            mechanisms = tuple(attention_mechanism)
            if not mechanisms:
                raise ValueError("attention_mechanism must contain at least one mechanism")
        else:
            self._is_multi = False
            mechanisms = (attention_mechanism,)
        for m in mechanisms:
            if not isinstance(m, AttentionMechanism):
                raise TypeError("attention_mechanism must be an AttentionMechanism or list of "
                                f"multiple AttentionMechanism instances, saw type: "
                                f"{type(m).__name__}")
        if cell_input_fn is None:
            cell_input_fn = lambda inputs, attention: tf.concat([inputs, attention], -1)
        elif not callable(cell_input_fn):
            raise TypeError(f"cell_input_fn must be callable, saw type: "
                            f"{type(cell_input_fn).__name__}")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be "
                             "set")
        if attention_layer_size is not None:
            sizes = tuple(attention_layer_size if isinstance(attention_layer_size, (list, tuple))
                          else (attention_layer_size,))
            if len(sizes) != len(mechanisms):
                raise ValueError(
                    "If provided, attention_layer_size must contain exactly one integer per "
                    f"attention_mechanism, saw: {len(sizes)} vs {len(mechanisms)}")
            self._attention_layers = tuple(
                tf.layers.Dense(size, name="attention_layer", use_bias=False, dtype=m.dtype)
                for size, m in zip(sizes, mechanisms))
            self._attention_layer_size = sum(sizes)
        elif attention_layer is not None:
            layers = tuple(attention_layer if isinstance(attention_layer, (list, tuple))
                           else (attention_layer,))
            if len(layers) != len(mechanisms):
                raise ValueError(
                    "If provided, attention_layer must contain exactly one layer per "
                    f"attention_mechanism, saw: {len(layers)} vs {len(mechanisms)}")
            self._attention_layers = layers
            self._attention_layer_size = sum(
                layer.compute_output_shape(
                    [None, cell.output_size + m.values.get_shape()[-1].value])[-1].value
                for layer, m in zip(layers, mechanisms))
        else:
            self._attention_layers = None
            self._attention_layer_size = sum(m.values.get_shape()[-1].value
                                             for m in mechanisms)
        if attention_fn is None:
            attention_fn = _compute_attention
        self._attention_fn = attention_fn
        self._cell = cell
        self._attention_mechanisms = mechanisms
        self._cell_input_fn = cell_input_fn
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        self._initial_cell_state = None
        # (as TF: the scope is entered even without a state to check, so a named
        # wrapper's first call runs in "<name>_1")
        with tf.name_scope(name, "AttentionWrapperInit"):
            if initial_cell_state is not None:
                # (checked against each memory's batch size)
                last = nest.flatten(initial_cell_state)[-1]
                state_batch = last.shape[0].value or tf.shape(last)[0]
                message = (f"When constructing AttentionWrapper {self._base_name}: "
                           "Non-matching batch sizes between the memory (encoder output) and "
                           "initial_cell_state.  Are you using the BeamSearchDecoder?  You may "
                           "need to tile your initial state via the "
                           "tf.contrib.seq2seq.tile_batch function with argument "
                           "multiple=beam_width.")
                with tf.control_dependencies(self._batch_size_checks(state_batch, message)):
                    self._initial_cell_state = nest.map_structure(
                        lambda s: tf.identity(s, name="check_initial_cell_state"),
                        initial_cell_state)

    def _batch_size_checks(self, batch_size, error_message):
        """TF's assertions that ``batch_size`` equals each memory's batch size (a static
        mismatch fails at once with InvalidArgumentError, a dynamic one when run)."""
        return [tf.assert_equal(batch_size, m.batch_size, message=error_message)
                for m in self._attention_mechanisms]

    def _item_or_tuple(self, seq):
        t = tuple(seq)
        return t if self._is_multi else t[0]

    @property
    def output_size(self):
        return self._attention_layer_size if self._output_attention else self._cell.output_size

    @property
    def state_size(self):
        return AttentionWrapperState(
            cell_state=self._cell.state_size,
            time=TensorShape([]),
            attention=self._attention_layer_size,
            alignments=self._item_or_tuple(m.alignments_size
                                           for m in self._attention_mechanisms),
            attention_state=self._item_or_tuple(m.state_size
                                                for m in self._attention_mechanisms),
            alignment_history=self._item_or_tuple(
                m.alignments_size if self._alignment_history else ()
                for m in self._attention_mechanisms))

    @property
    def trainable_weights(self):
        weights = list(self._trainable_weights) + list(self._cell.trainable_weights)
        for layer in self._attention_layers or ():
            weights += layer.trainable_weights
        return weights

    def zero_state(self, batch_size, dtype):
        """The initial state: the wrapped cell's zero state (or ``initial_cell_state``), zero
        attention and alignments, time 0 and empty alignment histories."""
        with tf.name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._initial_cell_state is not None:
                cell_state = self._initial_cell_state
            else:
                cell_state = self._cell.zero_state(batch_size, dtype)
            message = (f"When calling zero_state of AttentionWrapper {self._base_name}: "
                       "Non-matching batch sizes between the memory (encoder output) and the "
                       "requested batch size.  Are you using the BeamSearchDecoder?  If so, "
                       "make sure your encoder output has been tiled to beam_width via "
                       "tf.contrib.seq2seq.tile_batch, and the batch_size= argument passed to "
                       "zero_state is batch_size * beam_width.")
            with tf.control_dependencies(self._batch_size_checks(batch_size, message)):
                cell_state = nest.map_structure(
                    lambda s: tf.identity(s, name="checked_cell_state"), cell_state)
            initial_alignments = [m.initial_alignments(batch_size, dtype)
                                  for m in self._attention_mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state,
                time=tf.zeros([], dtype=tf.int32),
                attention=_zero_state_tensors(self._attention_layer_size, batch_size, dtype),
                alignments=self._item_or_tuple(initial_alignments),
                attention_state=self._item_or_tuple(
                    m.initial_state(batch_size, dtype) for m in self._attention_mechanisms),
                alignment_history=self._item_or_tuple(
                    _history_array(dtype, a.get_shape()) if self._alignment_history
                    else () for a in initial_alignments))

    def call(self, inputs, state):
        if not isinstance(state, AttentionWrapperState):
            raise TypeError("Expected state to be instance of AttentionWrapperState. "
                            f"Received type {type(state).__name__} instead.")
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        cell_batch_size = cell_output.get_shape()[0].value or tf.shape(cell_output)[0]
        message = (f"When applying AttentionWrapper {self.name}: Non-matching batch sizes "
                   "between the memory (encoder output) and the query (decoder output).  Are "
                   "you using the BeamSearchDecoder?  You may need to tile your memory input "
                   "via the tf.contrib.seq2seq.tile_batch function with argument "
                   "multiple=beam_width.")
        with tf.control_dependencies(self._batch_size_checks(cell_batch_size, message)):
            cell_output = tf.identity(cell_output, name="checked_cell_output")
        if self._is_multi:
            previous_states = state.attention_state
            previous_histories = state.alignment_history
        else:
            previous_states = [state.attention_state]
            previous_histories = [state.alignment_history]
        attentions, alignments_all, states_all, histories = [], [], [], []
        for i, mechanism in enumerate(self._attention_mechanisms):
            attention, alignments, next_attention_state = self._attention_fn(
                mechanism, cell_output, previous_states[i],
                self._attention_layers[i] if self._attention_layers else None)
            history = (previous_histories[i].write(state.time, alignments)
                       if self._alignment_history else ())
            attentions.append(attention)
            alignments_all.append(alignments)
            states_all.append(next_attention_state)
            histories.append(history)
        attention = tf.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1,
            cell_state=next_cell_state,
            attention=attention,
            attention_state=self._item_or_tuple(states_all),
            alignments=self._item_or_tuple(alignments_all),
            alignment_history=self._item_or_tuple(histories))
        if self._output_attention:
            return attention, next_state
        return cell_output, next_state
