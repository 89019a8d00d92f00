"""``tf.nn``: neural-network ops (explicit re-exports)."""

# --- activations, softmax, losses, normalization, embeddings (nn_ops.py, nn_impl.py) ---
from tideflow.ops.candidate_sampling_ops import (
    compute_accidental_hits,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from tideflow.ops.ctc_ops import (
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_beam_search_decoder_v2,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_loss_v2,
    ctc_unique_labels,
)
from tideflow.ops.embedding_ops import embedding_lookup
from tideflow.ops.extra_array_ops import approx_max_k, approx_min_k
from tideflow.ops.fractional_pool_ops import (
    fractional_avg_pool,
    fractional_max_pool,
)
from tideflow.ops.loop_rnn import (
    raw_rnn,
    static_state_saving_rnn,
)
from tideflow.ops.math_ops import sigmoid, tanh
from tideflow.ops.morphology_ops import (
    dilation2d,
    erosion2d,
)
from tideflow.ops.nn_extra_ops import (
    all_candidate_sampler,
    batch_norm_with_global_normalization,
    compute_average_loss,
    embedding_lookup_sparse,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    safe_embedding_lookup_sparse,
    scale_regularization_loss,
    silu,
    swish,
    weighted_moments,
)
from tideflow.ops.nn_impl import (
    batch_normalization,
    bias_add,
    bias_add_v1,
    crelu,
    dropout,
    elu,
    fused_batch_norm,
    in_top_k,
    l2_loss,
    l2_normalize,
    leaky_relu,
    local_response_normalization,
    log_poisson_loss,
    log_softmax,
    lrn,
    moments,
    normalize_moments,
    relu,
    relu6,
    relu_layer,
    selu,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    softplus,
    softsign,
    sparse_softmax_cross_entropy_with_logits,
    sufficient_statistics,
    top_k,
    weighted_cross_entropy_with_logits,
    xw_plus_b,
    zero_fraction,
)
from tideflow.ops.quantized_ops import (
    quantized_avg_pool,
    quantized_conv2d,
    quantized_max_pool,
    quantized_relu_x,
)
from tideflow.ops.sampled_loss_ops import nce_loss, sampled_softmax_loss

# --- convolution and pooling (conv_ops.py, pooling_ops.py) ---
# isort: split
from tideflow.ops.conv_ops import (
    atrous_conv2d,
    atrous_conv2d_transpose,
    conv1d,
    conv2d,
    conv2d_backprop_filter,
    conv2d_backprop_input,
    conv2d_transpose,
    conv3d,
    conv3d_transpose,
    convolution,
    depthwise_conv2d,
    depthwise_conv2d_native,
    depthwise_conv2d_native_backprop_filter,
    depthwise_conv2d_native_backprop_input,
    separable_conv2d,
)
from tideflow.ops.nn_extra_ops import (
    avg_pool_v2,
    conv1d_transpose,
    conv3d_backprop_filter,
    conv3d_backprop_filter_v2,
    conv_transpose,
    depthwise_conv2d_backprop_filter,
    depthwise_conv2d_backprop_input,
    max_pool_v2,
    with_space_to_batch,
)
from tideflow.ops.pooling_ops import (
    avg_pool,
    avg_pool1d,
    avg_pool3d,
    max_pool,
    max_pool1d,
    max_pool2d,
    max_pool3d,
    max_pool_with_argmax,
    pool,
)
from tideflow.ops.space_ops import depth_to_space, space_to_batch, space_to_depth

# --- recurrent networks (rnn.py, rnn_cell_impl.py); tf.nn.rnn_cell is tf.contrib.rnn's cells ---
# isort: split
import sys as _sys
import types as _types

from tideflow.ops import rnn_cell_impl as _rnn_cell_impl
from tideflow.ops.rnn import (
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    static_bidirectional_rnn,
    static_rnn,
)

rnn_cell = _types.ModuleType(__name__ + ".rnn_cell", "``tf.nn.rnn_cell``: recurrent cells.")
for _name in _rnn_cell_impl.__all__:
    setattr(rnn_cell, _name, getattr(_rnn_cell_impl, _name))
rnn_cell.__all__ = list(_rnn_cell_impl.__all__)
_sys.modules[rnn_cell.__name__] = rnn_cell
del _name

# the 0.8 names: tf.nn.rnn and tf.nn.bidirectional_rnn were the static drivers, and
# tf.nn.seq2seq held the sequence losses over lists of time steps
rnn = static_rnn
bidirectional_rnn = static_bidirectional_rnn
state_saving_rnn = static_state_saving_rnn

from tideflow.ops import seq2seq_loss as _seq2seq_loss

seq2seq = _types.ModuleType(__name__ + ".seq2seq", "``tf.nn.seq2seq`` (0.8): sequence losses.")
seq2seq.sequence_loss = _seq2seq_loss.legacy_sequence_loss
seq2seq.sequence_loss_by_example = _seq2seq_loss.sequence_loss_by_example
seq2seq.__all__ = ["sequence_loss", "sequence_loss_by_example"]
_sys.modules[seq2seq.__name__] = seq2seq


def _lazy_names(module, source, names):
    """Lets ``module`` (a namespace) load ``names`` from the module ``source`` on first use."""

    def getattr_(name):
        if name not in names:
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(source), name)
        setattr(module, name, value)
        return value

    module.__getattr__ = getattr_


# 0.8-0.12 kept the seq2seq models in tf.nn.seq2seq and the projection/embedding wrappers in
# tf.nn.rnn_cell (1.x moved them to tf.contrib.legacy_seq2seq and tf.contrib.rnn)
_lazy_names(seq2seq, "tideflow.ops.legacy_seq2seq", (
    "attention_decoder", "basic_rnn_seq2seq", "embedding_attention_decoder",
    "embedding_attention_seq2seq", "embedding_rnn_decoder", "embedding_rnn_seq2seq",
    "model_with_buckets", "rnn_decoder", "tied_rnn_seq2seq"))
_lazy_names(rnn_cell, "tideflow.ops.rnn_contrib_cells", (
    "EmbeddingWrapper", "InputProjectionWrapper", "OutputProjectionWrapper"))
_linear_getattr = rnn_cell.__getattr__


def _rnn_cell_getattr(name):
    # 0.8-0.9 exported tf.nn.rnn_cell.linear; 0.10-0.12 custom cells called it as _linear
    if name in ("_linear", "linear"):
        from tideflow.ops.legacy_aliases import rnn_cell_linear

        setattr(rnn_cell, name, rnn_cell_linear)
        return rnn_cell_linear
    return _linear_getattr(name)


rnn_cell.__getattr__ = _rnn_cell_getattr

# --- tf.nn.experimental ---
from tideflow.ops import nn_extra_ops as _nn_extra_ops

experimental = _types.ModuleType(__name__ + ".experimental",
                                 "``tf.nn.experimental``: dropout from given samplers.")
experimental.general_dropout = _nn_extra_ops.general_dropout
experimental.stateless_dropout = _nn_extra_ops.stateless_dropout
experimental.__all__ = ["general_dropout", "stateless_dropout"]
_sys.modules[experimental.__name__] = experimental

# TF 1.x exports its v1 avg_pool (``value``, with the ``input`` alias) as tf.nn.avg_pool2d too
avg_pool2d = avg_pool
