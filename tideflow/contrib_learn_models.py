"""``tf.contrib.learn.ops`` and ``tf.contrib.learn.models``: the graph-building helpers that
``contrib.learn`` took over from scikit-flow (N-d embedding lookups, softmax and squared-error
heads over a linear layer, list-of-steps sequence-to-sequence pieces, linear and logistic
regression with their variables under ``linear_regression/`` and ``logistic_regression/``)."""

import contextlib
import threading
import types

import tideflow as _tf

_phase = threading.local()


def training_phase():
    """False while a scikit-flow estimator builds its model for prediction or evaluation
    (its dropout layers then keep everything, as 0.8 fed their keep probabilities 1.0)."""
    return getattr(_phase, "training", True)


@contextlib.contextmanager
def _training_phase(training):
    old = training_phase()
    _phase.training = training
    try:
        yield
    finally:
        _phase.training = old


# ------------------------------------------------------------------------------------------
# ops: embeddings
# ------------------------------------------------------------------------------------------


def embedding_lookup(params, ids, name="embedding_lookup"):
    """Rows of ``params`` for ids of any rank: the result has ``ids``' shape followed by the
    shape of one row of ``params``."""
    with _tf.name_scope(name, "embedding_lookup", [params, ids]):
        params = _tf.convert_to_tensor(params)
        ids = _tf.convert_to_tensor(ids)
        ids_shape = _tf.shape(ids)
        flat = _tf.reshape(ids, _tf.reduce_prod(ids_shape, keepdims=True))
        rows = _tf.nn.embedding_lookup(params, flat)
        out = _tf.reshape(rows, _tf.concat([ids_shape, [-1]], 0))
        out.set_shape(ids.get_shape().concatenate(params.get_shape()[1:]))
        return out


def categorical_variable(tensor_in, n_classes, embedding_size, name):
    """An embedding of ``n_classes`` ids, the variable ``<name>/<name>_embeddings``, looked up
    for ``tensor_in``."""
    with _tf.variable_scope(name):
        table = _tf.get_variable(name + "_embeddings", [n_classes, embedding_size])
        return embedding_lookup(table, tensor_in)


# ------------------------------------------------------------------------------------------
# ops: losses over a linear layer
# ------------------------------------------------------------------------------------------


def mean_squared_error_regressor(tensor_in, labels, weights, biases, name=None):
    """``(predictions, loss)`` of ``tensor_in @ weights + biases`` against ``labels`` (the
    predictions lose their last axis when the labels are a vector), the loss by
    ``tf.losses.mean_squared_error``."""
    with _tf.name_scope(name, "mean_squared_error_regressor", [tensor_in, labels]):
        predictions = _tf.nn.xw_plus_b(tensor_in, weights, biases)
        if labels.get_shape().ndims == 1 and predictions.get_shape().ndims == 2:
            predictions = _tf.squeeze(predictions, axis=[1])
        return predictions, _tf.losses.mean_squared_error(labels, predictions)


def softmax_classifier(tensor_in, labels, weights, biases, class_weight=None, name=None):
    """``(softmax, loss)`` of the logits ``tensor_in @ weights + biases`` (scaled per class by
    ``class_weight``), the loss by ``tf.losses.softmax_cross_entropy`` on one-hot labels."""
    with _tf.name_scope(name, "softmax_classifier", [tensor_in, labels]):
        logits = _tf.nn.xw_plus_b(tensor_in, weights, biases)
        if class_weight is not None:
            logits = _tf.multiply(logits, class_weight)
        return _tf.nn.softmax(logits), _tf.losses.softmax_cross_entropy(labels, logits)


# ------------------------------------------------------------------------------------------
# ops: sequence to sequence over lists of time steps
# ------------------------------------------------------------------------------------------


def sequence_classifier(decoding, labels, sampling_decoding=None, name=None):
    """``(predictions, loss)`` of per-step logits: the softmax of each step (of
    ``sampling_decoding`` when given) stacked to ``[batch, steps, classes]``, and the sum over
    steps and examples of the softmax cross entropy of ``decoding`` against ``labels``."""
    with _tf.name_scope(name, "sequence_classifier", [decoding, labels]):
        predictions, xents = [], []
        for i, logits in enumerate(decoding):
            xents.append(_tf.nn.softmax_cross_entropy_with_logits(
                labels=labels[i], logits=logits, name=f"sequence_loss/xent_raw{i}"))
            shown = sampling_decoding[i] if sampling_decoding else logits
            predictions.append(_tf.nn.softmax(shown))
        xent = _tf.add_n(xents, name="sequence_loss/xent")
        loss = _tf.reduce_sum(xent, name="sequence_loss")
        return _tf.stack(predictions, axis=1), loss


def seq2seq_inputs(x, y, input_length, output_length, sentinel=None, name=None):
    """Splits ``x`` ``[batch, in_steps, ...]`` and ``y`` ``[batch, out_steps, depth]`` into
    lists of steps: ``(encoder inputs, decoder inputs, decoder targets)``, the decoder inputs
    starting with ``sentinel`` (zeros by default) and the targets ending with it."""
    del input_length, output_length  # the static step counts of x and y decide
    with _tf.name_scope(name, "seq2seq_inputs", [x, y]):
        in_x = _tf.unstack(x, axis=1)
        steps = _tf.unstack(y, axis=1)
        if sentinel is None:
            depth = steps[0].get_shape()[1]
            sentinel = _tf.zeros(_tf.stack([_tf.shape(x)[0], depth]), dtype=steps[0].dtype)
            sentinel.set_shape(steps[0].get_shape())
        return in_x, [sentinel] + steps, steps + [sentinel]


def rnn_decoder(decoder_inputs, initial_state, cell, scope=None):
    """Runs ``cell`` over ``decoder_inputs`` from ``initial_state`` (training), and again
    feeding each step's output back as the next input (sampling), sharing its variables.
    Returns ``(outputs, states, sampling_outputs, sampling_states)``; the state lists start
    with ``initial_state``."""
    with _tf.variable_scope(scope or "dnn_decoder"):
        states, outputs = [initial_state], []
        with _tf.name_scope("training", values=[decoder_inputs, initial_state]):
            for i, step_in in enumerate(decoder_inputs):
                if i > 0:
                    _tf.get_variable_scope().reuse_variables()
                out, state = cell(step_in, states[-1])
                outputs.append(out)
                states.append(state)
        sampling_states, sampling_outputs = [initial_state], []
        with _tf.name_scope("sampling", values=[initial_state]):
            for i in range(len(decoder_inputs)):
                if i == 0:  # the first step sees the same input in both modes
                    out, state = outputs[0], states[1]
                else:
                    out, state = cell(sampling_outputs[-1], sampling_states[-1])
                sampling_outputs.append(out)
                sampling_states.append(state)
    return outputs, states, sampling_outputs, sampling_states


def rnn_seq2seq(encoder_inputs, decoder_inputs, encoder_cell, decoder_cell=None,
                dtype=_tf.float32, scope=None):
    """Encodes ``encoder_inputs`` with ``encoder_cell`` (a static RNN) and decodes from its
    last state with ``rnn_decoder`` (``decoder_cell``, default the encoder's)."""
    with _tf.variable_scope(scope or "rnn_seq2seq"):
        _, last_state = _tf.nn.static_rnn(encoder_cell, encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, last_state, decoder_cell or encoder_cell)


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------


def _weights_and_bias(x, n_out, init_mean, init_stddev):
    dtype = x.dtype.base_dtype
    init = None
    if init_mean is not None:
        init = _tf.random_normal_initializer(init_mean, init_stddev, dtype=dtype)
    weights = _tf.get_variable("weights", [x.get_shape()[1], n_out], initializer=init,
                               dtype=dtype)
    bias = _tf.get_variable("bias", [n_out], initializer=init, dtype=dtype)
    return weights, bias


def _histograms(scope_name, **tensors):
    for key, t in tensors.items():
        _tf.summary.histogram(f"{scope_name}.{key}", t)


def linear_regression(x, y, init_mean=None, init_stddev=1.0):
    """``(predictions, loss)`` of a linear layer ``linear_regression/{weights,bias}`` fitted
    to ``y`` by mean squared error; ``init_mean`` set draws both from a normal distribution
    (else the default initializer), and histograms of x, y and the variables are summarized."""
    with _tf.variable_scope("linear_regression"):
        scope_name = _tf.get_variable_scope().name
        _histograms(scope_name, x=x, y=y)
        y_shape = y.get_shape()
        n_out = 1 if y_shape.ndims == 1 else y_shape[1]
        weights, bias = _weights_and_bias(x, n_out, init_mean, init_stddev)
        _histograms(scope_name, weights=weights, bias=bias)
        return mean_squared_error_regressor(x, y, weights, bias)


def logistic_regression(x, y, class_weight=None, init_mean=None, init_stddev=1.0):
    """``(softmax, loss)`` of a linear layer ``logistic_regression/{weights,bias}`` on one-hot
    ``y``; without ``class_weight`` a graph tensor named ``class_weight:0`` is used if any."""
    with _tf.variable_scope("logistic_regression"):
        scope_name = _tf.get_variable_scope().name
        _histograms(scope_name, x=x, y=y)
        weights, bias = _weights_and_bias(x, y.get_shape()[-1], init_mean, init_stddev)
        _histograms(scope_name, weights=weights, bias=bias)
        if class_weight is None:
            try:
                class_weight = _tf.get_default_graph().get_tensor_by_name("class_weight:0")
            except KeyError:
                pass
        return softmax_classifier(x, y, weights, bias, class_weight=class_weight)


def linear_regression_zero_init(x, y):
    """``linear_regression`` with every variable starting at zero."""
    return linear_regression(x, y, init_mean=0.0, init_stddev=0.0)


def logistic_regression_zero_init(x, y):
    """``logistic_regression`` with every variable starting at zero."""
    return logistic_regression(x, y, init_mean=0.0, init_stddev=0.0)


def _reversed_steps(steps, lengths):
    """The time steps in reverse order, each example's own ``lengths`` steps when given (its
    padding stays at the end)."""
    if lengths is None:
        return list(reversed(steps))
    packed = _tf.stack(steps, axis=1)  # [batch, time, depth]
    flipped = _tf.reverse_sequence(packed, _tf.cast(lengths, _tf.int64), seq_axis=1,
                                   batch_axis=0)
    return _tf.unstack(flipped, num=len(steps), axis=1)


def bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None, initial_state_bw=None,
                      dtype=None, sequence_length=None, scope=None):
    """A forward and a backward static RNN over the list ``inputs`` (scopes ``BiRNN/FW`` and
    ``BiRNN/BW``): ``(outputs, state)``, each step's outputs and the two final states joined
    along their last axis (states of cells built with ``state_is_tuple=False``)."""
    if not isinstance(cell_fw, _tf.nn.rnn_cell.RNNCell):
        raise TypeError("cell_fw must be an instance of RNNCell")
    if not isinstance(cell_bw, _tf.nn.rnn_cell.RNNCell):
        raise TypeError("cell_bw must be an instance of RNNCell")
    if not isinstance(inputs, list):
        raise TypeError("inputs must be a list")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with _tf.variable_scope(scope or "BiRNN"):
        with _tf.variable_scope("FW"):
            out_fw, state_fw = _tf.nn.static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                                 sequence_length)
        with _tf.variable_scope("BW"):
            out_bw, state_bw = _tf.nn.static_rnn(
                cell_bw, _reversed_steps(inputs, sequence_length), initial_state_bw, dtype,
                sequence_length)
        out_bw = _reversed_steps(out_bw, sequence_length)
        outputs = [_tf.concat([f, b], 1) for f, b in zip(out_fw, out_bw)]
        return outputs, _tf.concat([state_fw, state_bw], 1)


def get_rnn_model(rnn_size, cell_type, num_layers, input_op_fn, bidirectional,
                  target_predictor_fn, sequence_length, initial_state, attn_length,
                  attn_size, attn_vec_size):
    """A ``model_fn(x, y)``: ``input_op_fn(x)`` gives the list of time steps, ``num_layers``
    cells of ``cell_type`` (``'rnn'``, ``'gru'`` or ``'lstm'``, optionally wrapped in attention
    over ``attn_length`` steps) encode them, one or both ways, into a single state tensor, and
    ``target_predictor_fn(encoding, y)`` gives ``(predictions, loss)``."""
    def new_cell():
        if cell_type == "rnn":
            cell = _tf.contrib.rnn.BasicRNNCell(rnn_size)
        elif cell_type == "gru":
            cell = _tf.contrib.rnn.GRUCell(rnn_size)
        elif cell_type == "lstm":
            # the encoding is one tensor: LSTM states stay concatenated
            cell = _tf.contrib.rnn.BasicLSTMCell(rnn_size, state_is_tuple=False)
        else:
            raise ValueError(f"cell_type {cell_type} is not supported. ")
        if attn_length is not None:
            cell = _tf.contrib.rnn.AttentionCellWrapper(
                cell, attn_length=attn_length, attn_size=attn_size,
                attn_vec_size=attn_vec_size, state_is_tuple=False)
        return cell

    def stacked():
        return _tf.contrib.rnn.MultiRNNCell([new_cell() for _ in range(num_layers)],
                                            state_is_tuple=False)

    def rnn_estimator(x, y):
        steps = input_op_fn(x)
        if bidirectional:
            _, encoding = bidirectional_rnn(stacked(), stacked(), steps, dtype=_tf.float32,
                                            sequence_length=sequence_length,
                                            initial_state_fw=initial_state,
                                            initial_state_bw=initial_state)
        else:
            _, encoding = _tf.nn.static_rnn(stacked(), steps, dtype=_tf.float32,
                                            sequence_length=sequence_length,
                                            initial_state=initial_state)
        return target_predictor_fn(encoding, y)

    return rnn_estimator


def _namespace(name, doc, names):
    module = types.ModuleType(f"tideflow.contrib.learn.{name}", doc)
    for n in names:
        setattr(module, n, globals()[n])
    module.__all__ = list(names)
    return module


ops = _namespace("ops", "``tf.contrib.learn.ops``: embeddings, loss heads, seq2seq steps.",
                 ["categorical_variable", "embedding_lookup", "mean_squared_error_regressor",
                  "rnn_decoder", "rnn_seq2seq", "seq2seq_inputs", "sequence_classifier",
                  "softmax_classifier"])
models = _namespace("models", "``tf.contrib.learn.models``: linear and logistic regression, "
                    "static RNN encoders.",
                    ["bidirectional_rnn", "get_rnn_model", "linear_regression",
                     "linear_regression_zero_init", "logistic_regression",
                     "logistic_regression_zero_init"])
