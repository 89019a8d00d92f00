"""``tf.contrib.legacy_seq2seq``'s list-of-steps decoders: ``rnn_decoder`` (optionally feeding
each output back through ``loop_function``), ``basic_rnn_seq2seq`` and ``tied_rnn_seq2seq``.

Inputs are Python lists of ``[batch, depth]`` tensors, one per step, as in TF 1.x.
"""

import copy

from tideflow.framework import dtypes
from tideflow.ops import rnn, variable_scope

__all__ = ["basic_rnn_seq2seq", "rnn_decoder", "tied_rnn_seq2seq"]


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
        enc_cell = copy.deepcopy(cell)
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
