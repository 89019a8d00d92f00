"""``tf.contrib.legacy_seq2seq``'s list-of-steps models: ``rnn_decoder`` (optionally feeding
each output back through ``loop_function``), ``basic_rnn_seq2seq``, ``tied_rnn_seq2seq``, their
embedding forms, attention decoders, ``one2many_rnn_seq2seq`` and ``model_with_buckets``.

Inputs are Python lists of ``[batch, depth]`` tensors, one per step, as in TF 1.x.
"""

import copy

from tideflow.framework import dtypes, ops
from tideflow.ops import rnn, variable_scope

__all__ = ["attention_decoder", "basic_rnn_seq2seq", "embedding_attention_decoder",
           "embedding_attention_seq2seq", "embedding_rnn_decoder", "embedding_rnn_seq2seq",
           "embedding_tied_rnn_seq2seq", "model_with_buckets", "one2many_rnn_seq2seq",
           "rnn_decoder", "tied_rnn_seq2seq"]


def _copy_cell(cell):
    """``copy.deepcopy(cell)``: the encoder's copy of the decoder's cell, as TF 1.x takes it.
    A cell already called (a 0.x program's one cell shared by its buckets: 0.x's cells held
    no variables and were never copied) is copied unbuilt, so the copy makes, or under reuse
    finds, its variables by name where it runs, as 0.x's encoder did."""
    if not _was_called(cell, set()):
        return copy.deepcopy(cell)
    return _unbuilt_copy(cell, {})


def _cell_parts(obj):
    from tideflow.ops.layers_base import Layer

    for key, value in vars(obj).items():
        if isinstance(value, Layer) or (isinstance(value, (list, tuple)) and value and all(
                isinstance(c, Layer) for c in value)):
            yield key, value


def _was_called(obj, seen):
    if id(obj) in seen:
        return False
    seen.add(id(obj))
    if getattr(obj, "built", False) or getattr(obj, "_called", False):
        return True
    return any(_was_called(c, seen) for _, v in _cell_parts(obj)
               for c in (v if isinstance(v, (list, tuple)) else [v]))


def _unbuilt_copy(obj, memo):
    from tideflow.ops import variables

    if id(obj) in memo:
        return memo[id(obj)]
    new = copy.copy(obj)
    memo[id(obj)] = new
    state = vars(new)
    for key in [k for k, v in state.items() if isinstance(v, variables.Variable)]:
        del state[key]  # (the weights a cell keeps from its build are made anew)
    for key in ("_trainable_weights", "_non_trainable_weights", "_losses", "_updates",
                "_call_inputs"):
        if key in state:
            state[key] = []
    state.pop("_built_depths", None)
    new.built = False
    new._called = False
    new._scope = None
    new._current_scope = None
    new._graph = None
    for key, value in list(_cell_parts(new)):
        state[key] = (type(value)(_unbuilt_copy(c, memo) for c in value)
                      if isinstance(value, (list, tuple)) else _unbuilt_copy(value, memo))
    return new


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """Runs ``cell`` over ``decoder_inputs`` from ``initial_state``; returns (outputs, state).

    With ``loop_function(prev_output, i)``, every step after the first reads the previous
    output mapped through it instead of its own input (greedy decoding)."""
    with variable_scope.variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                variable_scope.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=dtypes.float32, scope=None):
    """Encodes with a copy of ``cell``, decodes from its final state with ``cell``."""
    with variable_scope.variable_scope(scope or "basic_rnn_seq2seq"):
        enc_cell = _copy_cell(cell)
        _, enc_state = rnn.static_rnn(enc_cell, encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None,
                     dtype=dtypes.float32, scope=None):
    """Like ``basic_rnn_seq2seq`` but encoder and decoder share one set of weights."""
    with variable_scope.variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = rnn.static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        variable_scope.get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function,
                           scope=scope)


def _extract_argmax_and_embed(embedding, output_projection=None, update_embedding=True):
    """A loop function feeding back the embedding of the previous step's argmax symbol."""
    from tideflow.ops import array_ops, embedding_ops, nn_impl, reduction_ops

    def loop_function(prev, _):
        if output_projection is not None:
            prev = nn_impl.xw_plus_b(prev, output_projection[0], output_projection[1])
        prev_symbol = reduction_ops.argmax(prev, 1)
        emb_prev = embedding_ops.embedding_lookup(embedding, prev_symbol)
        if not update_embedding:
            emb_prev = array_ops.stop_gradient(emb_prev)
        return emb_prev

    return loop_function


def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size,
                          output_projection=None, feed_previous=False,
                          update_embedding_for_previous=True, scope=None):
    """``rnn_decoder`` over embedded int32 ``decoder_inputs``; with ``feed_previous`` every
    step after the first reads the embedding of the previous output's argmax."""
    from tideflow.ops import embedding_ops

    with variable_scope.variable_scope(scope or "embedding_rnn_decoder") as vs:
        if output_projection is not None:
            weights = ops.convert_to_tensor(output_projection[0], dtype=vs.dtype)
            weights.get_shape().assert_is_compatible_with([None, num_symbols])
            biases = ops.convert_to_tensor(output_projection[1], dtype=vs.dtype)
            biases.get_shape().assert_is_compatible_with([num_symbols])
        embedding = variable_scope.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = (_extract_argmax_and_embed(embedding, output_projection,
                                                   update_embedding_for_previous)
                         if feed_previous else None)
        # (a generator, as TF's: each step's lookup is made in the decoder's scope as it runs)
        emb_inp = (embedding_ops.embedding_lookup(embedding, i) for i in decoder_inputs)
        return rnn_decoder(emb_inp, initial_state, cell, loop_function=loop_function)


def embedding_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols,
                          num_decoder_symbols, embedding_size, output_projection=None,
                          feed_previous=False, dtype=None, scope=None):
    """Embeds and encodes ``encoder_inputs`` with a copy of ``cell``, then decodes with
    ``embedding_rnn_decoder`` (logits over ``num_decoder_symbols`` unless an
    ``output_projection`` is given)."""
    from tideflow.ops.rnn_contrib_cells import EmbeddingWrapper, OutputProjectionWrapper

    with variable_scope.variable_scope(scope or "embedding_rnn_seq2seq") as vs:
        if dtype is not None:
            vs.set_dtype(dtype)
        else:
            dtype = vs.dtype
        encoder_cell = EmbeddingWrapper(_copy_cell(cell),
                                        embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        _, encoder_state = rnn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
        if isinstance(feed_previous, bool):
            return embedding_rnn_decoder(decoder_inputs, encoder_state, cell,
                                         num_decoder_symbols, embedding_size,
                                         output_projection=output_projection,
                                         feed_previous=feed_previous)

        # feed_previous is a boolean tensor: both decoders, one picked by tf.cond
        return _cond_feed_previous(
            feed_previous, lambda flag: embedding_rnn_decoder(
                decoder_inputs, encoder_state, cell, num_decoder_symbols, embedding_size,
                output_projection=output_projection, feed_previous=flag,
                update_embedding_for_previous=False),
            len(decoder_inputs), encoder_state)


def _cond_feed_previous(feed_previous, decode, num_outputs, state_structure):
    """TF's decoding under a boolean-tensor ``feed_previous``: ``decode(flag) -> (outputs,
    state)`` is built for True (creating the variables) and for False (reusing them), and
    ``tf.cond`` picks one; returns (outputs, state shaped as ``state_structure``)."""
    from tideflow.framework import nest
    from tideflow.ops.cond import cond

    def branch(flag):
        with variable_scope.variable_scope(variable_scope.get_variable_scope(),
                                           reuse=None if flag else True):
            outputs, state = decode(flag)
            return list(outputs) + nest.flatten(state)

    both = cond(feed_previous, lambda: branch(True), lambda: branch(False))
    state_list = both[num_outputs:]
    state = state_list[0]
    if nest.is_sequence(state_structure):
        state = nest.pack_sequence_as(structure=state_structure, flat_sequence=state_list)
    return both[:num_outputs], state


def embedding_tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, num_symbols,
                               embedding_size, num_decoder_symbols=None,
                               output_projection=None, feed_previous=False, dtype=None,
                               scope=None):
    """``tied_rnn_seq2seq`` over inputs embedded with one shared ``embedding`` (encoder and
    decoder share the cell's weights too); logits over ``num_decoder_symbols`` (default
    ``num_symbols``) unless an ``output_projection`` is given."""
    from tideflow.ops import embedding_ops
    from tideflow.ops.rnn_contrib_cells import OutputProjectionWrapper

    with variable_scope.variable_scope(scope or "embedding_tied_rnn_seq2seq",
                                       dtype=dtype) as vs:
        dtype = vs.dtype
        if output_projection is not None:
            weights = ops.convert_to_tensor(output_projection[0], dtype=dtype)
            weights.get_shape().assert_is_compatible_with([None, num_symbols])
            biases = ops.convert_to_tensor(output_projection[1], dtype=dtype)
            biases.get_shape().assert_is_compatible_with([num_symbols])
        embedding = variable_scope.get_variable("embedding", [num_symbols, embedding_size],
                                                dtype=dtype)
        emb_encoder_inputs = [embedding_ops.embedding_lookup(embedding, x)
                              for x in encoder_inputs]
        emb_decoder_inputs = [embedding_ops.embedding_lookup(embedding, x)
                              for x in decoder_inputs]
        if output_projection is None:
            cell = OutputProjectionWrapper(
                cell, num_symbols if num_decoder_symbols is None else num_decoder_symbols)

        def decode(flag, update_embedding=True):
            loop_function = (_extract_argmax_and_embed(embedding, output_projection,
                                                       update_embedding) if flag else None)
            return tied_rnn_seq2seq(emb_encoder_inputs, emb_decoder_inputs, cell,
                                    loop_function=loop_function, dtype=dtype)

        if isinstance(feed_previous, bool):
            return decode(feed_previous)
        # the encoder state has the decoder state's structure (one cell)
        return _cond_feed_previous(feed_previous, lambda flag: decode(flag, False),
                                   len(decoder_inputs), cell.state_size)


def one2many_rnn_seq2seq(encoder_inputs, decoder_inputs_dict, enc_cell, dec_cells_dict,
                         num_encoder_symbols, num_decoder_symbols_dict, embedding_size,
                         feed_previous=False, dtype=None, scope=None):
    """One embedding encoder (``enc_cell``) and one ``embedding_rnn_decoder`` per key of
    ``decoder_inputs_dict``/``dec_cells_dict`` (each in scope ``one2many_decoder_<key>``,
    logits over ``num_decoder_symbols_dict[key]``); returns (outputs dict, states dict)."""
    from tideflow.ops.rnn_cell_impl import RNNCell
    from tideflow.ops.rnn_contrib_cells import EmbeddingWrapper, OutputProjectionWrapper

    if not isinstance(enc_cell, RNNCell):
        raise TypeError(f"enc_cell is not an RNNCell: {type(enc_cell)}")
    if set(dec_cells_dict) != set(decoder_inputs_dict):
        raise ValueError("keys of dec_cells_dict != keys of decodre_inputs_dict")
    for dec_cell in dec_cells_dict.values():
        if not isinstance(dec_cell, RNNCell):
            raise TypeError(f"dec_cell is not an RNNCell: {type(dec_cell)}")
    outputs_dict = {}
    state_dict = {}
    with variable_scope.variable_scope(scope or "one2many_rnn_seq2seq") as vs:
        if dtype is not None:
            vs.set_dtype(dtype)
        else:
            dtype = vs.dtype
        encoder_cell = EmbeddingWrapper(enc_cell, embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        _, encoder_state = rnn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        for name, decoder_inputs in decoder_inputs_dict.items():
            num_decoder_symbols = num_decoder_symbols_dict[name]
            with variable_scope.variable_scope(f"one2many_decoder_{name}"):
                dec_cell = OutputProjectionWrapper(dec_cells_dict[name], num_decoder_symbols)

                def decode(flag, decoder_inputs=decoder_inputs, dec_cell=dec_cell,
                           num_decoder_symbols=num_decoder_symbols):
                    return embedding_rnn_decoder(decoder_inputs, encoder_state, dec_cell,
                                                 num_decoder_symbols, embedding_size,
                                                 feed_previous=flag)

                if isinstance(feed_previous, bool):
                    outputs, state = decode(feed_previous)
                else:
                    outputs, state = _cond_feed_previous(feed_previous, decode,
                                                         len(decoder_inputs), encoder_state)
            outputs_dict[name] = outputs
            state_dict[name] = state
    return outputs_dict, state_dict


def model_with_buckets(encoder_inputs, decoder_inputs, targets, weights, buckets, seq2seq,
                       softmax_loss_function=None, per_example_loss=False, name=None):
    """Builds ``seq2seq(encoder_inputs[:e], decoder_inputs[:d])`` once per ``(e, d)`` bucket
    (sharing variables) with its sequence loss; returns (outputs per bucket, losses)."""
    from tideflow.ops.seq2seq_loss import legacy_sequence_loss, sequence_loss_by_example

    if len(encoder_inputs) < buckets[-1][0]:
        raise ValueError(f"Length of encoder_inputs ({len(encoder_inputs)}) must be at least "
                         f"that of last bucket ({buckets[-1][0]}).")
    if len(targets) < buckets[-1][1]:
        raise ValueError(f"Length of targets ({len(targets)}) must be at least that of last "
                         f"bucket ({buckets[-1][1]}).")
    if len(weights) < buckets[-1][1]:
        raise ValueError(f"Length of weights ({len(weights)}) must be at least that of last "
                         f"bucket ({buckets[-1][1]}).")
    all_inputs = encoder_inputs + decoder_inputs + targets + weights
    losses = []
    outputs = []
    with ops.name_scope(name, "model_with_buckets", all_inputs):
        for j, bucket in enumerate(buckets):
            with variable_scope.variable_scope(variable_scope.get_variable_scope(),
                                               reuse=True if j > 0 else None):
                bucket_outputs, _ = seq2seq(encoder_inputs[:bucket[0]],
                                            decoder_inputs[:bucket[1]])
                outputs.append(bucket_outputs)
                loss_fn = sequence_loss_by_example if per_example_loss else legacy_sequence_loss
                losses.append(loss_fn(outputs[-1], targets[:bucket[1]], weights[:bucket[1]],
                                      softmax_loss_function=softmax_loss_function))
    return outputs, losses


def _linear(args, output_size, dtype):
    """``concat(args) @ kernel + bias`` with the ``kernel``/``bias`` variables of the current
    scope (TF's ``_Linear``)."""
    import tideflow as tf_api

    total = sum(a.get_shape()[1].value for a in args)
    # TF re-enters the current variable scope for the kernel and again for the bias (each
    # opening a name scope of its own, which later names count past), the bias unpartitioned
    with variable_scope.variable_scope(variable_scope.get_variable_scope()) as outer:
        kernel = variable_scope.get_variable("kernel", [total, output_size], dtype=dtype)
        with variable_scope.variable_scope(outer) as inner:
            inner.set_partitioner(None)
            bias = variable_scope.get_variable(
                "bias", [output_size], dtype=dtype,
                initializer=tf_api.constant_initializer(0.0, dtype=dtype))
    if len(args) == 1:
        x = args[0]
    else:  # along a Const of its own, named "Const"
        x = tf_api.concat(args, tf_api.constant(1, dtype=dtypes.int32))
    return tf_api.nn.bias_add(tf_api.matmul(x, kernel), bias)


def attention_decoder(decoder_inputs, initial_state, attention_states, cell, output_size=None,
                      num_heads=1, loop_function=None, dtype=None, scope=None,
                      initial_state_attention=False):
    """``rnn_decoder`` with Bahdanau-style attention over ``attention_states`` ``[batch,
    length, size]``: each step's input is mixed with the previous attention reads, and each
    output is projected from the cell output and the new reads."""
    import tideflow as tf_api
    from tideflow.framework import nest

    if not decoder_inputs:
        raise ValueError("Must provide at least 1 input to attention decoder.")
    if num_heads < 1:
        raise ValueError("With less than 1 heads, use a non-attention decoder.")
    if attention_states.get_shape()[2].value is None:
        raise ValueError(f"Shape[2] of attention_states must be known: "
                         f"{attention_states.get_shape()}")
    if output_size is None:
        output_size = cell.output_size
    with variable_scope.variable_scope(scope or "attention_decoder", dtype=dtype) as vs:
        dtype = vs.dtype
        batch_size = tf_api.shape(decoder_inputs[0])[0]
        attn_length = attention_states.get_shape()[1].value
        if attn_length is None:
            attn_length = tf_api.shape(attention_states)[1]
        attn_size = attention_states.get_shape()[2].value
        # the attention queries' keys: a 1x1 convolution of the states, once per head
        hidden = tf_api.reshape(attention_states, [-1, attn_length, 1, attn_size])
        hidden_features = []
        v = []
        for a in range(num_heads):
            k = variable_scope.get_variable(f"AttnW_{a}", [1, 1, attn_size, attn_size],
                                            dtype=dtype)
            hidden_features.append(tf_api.nn.conv2d(hidden, k, [1, 1, 1, 1], "SAME"))
            v.append(variable_scope.get_variable(f"AttnV_{a}", [attn_size], dtype=dtype))
        state = initial_state

        def attention(query):
            if nest.is_sequence(query):
                query = tf_api.concat(nest.flatten(query), 1)
            reads = []
            for a in range(num_heads):
                with variable_scope.variable_scope(f"Attention_{a}"):
                    y = tf_api.reshape(_linear([query], attn_size, dtype),
                                          [-1, 1, 1, attn_size])
                    s = tf_api.reduce_sum(v[a] * tf_api.tanh(hidden_features[a] + y),
                                            [2, 3])
                    weights = tf_api.nn.softmax(s)
                    d = tf_api.reduce_sum(
                        tf_api.reshape(weights, [-1, attn_length, 1, 1]) * hidden, [1, 2])
                    reads.append(tf_api.reshape(d, [-1, attn_size]))
            return reads

        outputs = []
        prev = None
        batch_attn_size = tf_api.stack([batch_size, attn_size])
        attns = [tf_api.zeros(batch_attn_size, dtype=dtype) for _ in range(num_heads)]
        for a in attns:
            a.set_shape([None, attn_size])
        if initial_state_attention:
            attns = attention(initial_state)
        for i, inp in enumerate(decoder_inputs):
            if i > 0:
                variable_scope.get_variable_scope().reuse_variables()
            if loop_function is not None and prev is not None:
                with variable_scope.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            input_size = inp.get_shape().with_rank(2)[1]
            if input_size.value is None:
                raise ValueError(f"Could not infer input size from input: {inp.name}")
            x = _linear([inp, *attns], input_size.value, dtype)
            cell_output, state = cell(x, state)
            if i == 0 and initial_state_attention:
                with variable_scope.variable_scope(variable_scope.get_variable_scope(),
                                                   reuse=True):
                    attns = attention(state)
            else:
                attns = attention(state)
            with variable_scope.variable_scope("AttnOutputProjection"):
                output = _linear([cell_output, *attns], output_size, dtype)
            if loop_function is not None:
                prev = output
            outputs.append(output)
    return outputs, state


def embedding_attention_decoder(decoder_inputs, initial_state, attention_states, cell,
                                num_symbols, embedding_size, num_heads=1, output_size=None,
                                output_projection=None, feed_previous=False,
                                update_embedding_for_previous=True, dtype=None, scope=None,
                                initial_state_attention=False):
    """``attention_decoder`` over embedded int32 ``decoder_inputs`` (see
    ``embedding_rnn_decoder`` for ``feed_previous``)."""
    from tideflow.ops import embedding_ops

    if output_size is None:
        output_size = cell.output_size
    if output_projection is not None:
        biases = ops.convert_to_tensor(output_projection[1], dtype=dtype)
        biases.get_shape().assert_is_compatible_with([num_symbols])
    with variable_scope.variable_scope(scope or "embedding_attention_decoder", dtype=dtype):
        embedding = variable_scope.get_variable("embedding", [num_symbols, embedding_size])
        loop_function = (_extract_argmax_and_embed(embedding, output_projection,
                                                   update_embedding_for_previous)
                         if feed_previous else None)
        emb_inp = [embedding_ops.embedding_lookup(embedding, i) for i in decoder_inputs]
        return attention_decoder(emb_inp, initial_state, attention_states, cell,
                                 output_size=output_size, num_heads=num_heads,
                                 loop_function=loop_function,
                                 initial_state_attention=initial_state_attention)


def embedding_attention_seq2seq(encoder_inputs, decoder_inputs, cell, num_encoder_symbols,
                                num_decoder_symbols, embedding_size, num_heads=1,
                                output_projection=None, feed_previous=False, dtype=None,
                                scope=None, initial_state_attention=False):
    """The translate tutorial's model: an embedding encoder (a copy of ``cell``) whose
    outputs the ``embedding_attention_decoder`` attends to."""
    import tideflow as tf_api
    from tideflow.ops.rnn_contrib_cells import EmbeddingWrapper, OutputProjectionWrapper

    with variable_scope.variable_scope(scope or "embedding_attention_seq2seq",
                                       dtype=dtype) as vs:
        dtype = vs.dtype
        encoder_cell = EmbeddingWrapper(_copy_cell(cell),
                                        embedding_classes=num_encoder_symbols,
                                        embedding_size=embedding_size)
        encoder_outputs, encoder_state = rnn.static_rnn(encoder_cell, encoder_inputs,
                                                        dtype=dtype)
        top_states = [tf_api.reshape(e, [-1, 1, cell.output_size]) for e in encoder_outputs]
        attention_states = tf_api.concat(top_states, 1)
        output_size = None
        if output_projection is None:
            cell = OutputProjectionWrapper(cell, num_decoder_symbols)
            output_size = num_decoder_symbols

        def decode(feed_previous_bool, update_embedding=True):
            return embedding_attention_decoder(
                decoder_inputs, encoder_state, attention_states, cell, num_decoder_symbols,
                embedding_size, num_heads=num_heads, output_size=output_size,
                output_projection=output_projection, feed_previous=feed_previous_bool,
                update_embedding_for_previous=update_embedding,
                initial_state_attention=initial_state_attention)

        if isinstance(feed_previous, bool):
            return decode(feed_previous)

        return _cond_feed_previous(feed_previous, lambda flag: decode(flag, False),
                                   len(decoder_inputs), encoder_state)
