"""The module paths under ``tensorflow.contrib.rnn.python.ops``,
``tensorflow.contrib.seq2seq.python.ops``, ``tensorflow.contrib.legacy_seq2seq.python.ops`` and
``tensorflow.contrib.image.python.ops`` that TF 1.x programs import from
(``core_rnn_cell._linear``, ``rnn_cell``, ``attention_wrapper``, ``beam_search_decoder``,
``helper``, ``decoder``, ``basic_decoder``, ``loss``, ``beam_search_ops``), over the modules behind ``tf.contrib.rnn``
and ``tf.contrib.seq2seq``."""

import sys
import types

from tideflow.framework import nest

_WEIGHTS_VARIABLE_NAME = "kernel"
_BIAS_VARIABLE_NAME = "bias"


def _linear(args, output_size, bias, bias_initializer=None, kernel_initializer=None):
    """TF's ``core_rnn_cell._linear``: ``concat(args, 1) @ kernel (+ bias)`` with the variables
    ``kernel`` and ``bias`` in the current variable scope."""
    from tideflow.nn import bias_add
    from tideflow.ops import concat_ops, init_ops, linalg_ops
    from tideflow.ops import variable_scope as vs

    if args is None or (nest.is_sequence(args) and not args):
        raise ValueError("`args` must be specified")
    if not nest.is_sequence(args):
        args = [args]
    total = 0
    for a in args:
        shape = a.get_shape()
        if shape.ndims != 2:
            raise ValueError(f"linear is expecting 2D arguments: {[x.get_shape() for x in args]}")
        if shape[1].value is None:
            raise ValueError(f"linear expects shape[1] to be provided for shape {shape}, but saw "
                             f"{shape[1]}")
        total += shape[1].value
    dtype = args[0].dtype
    scope = vs.get_variable_scope()
    with vs.variable_scope(scope) as outer_scope:
        weights = vs.get_variable(_WEIGHTS_VARIABLE_NAME, [total, output_size], dtype=dtype,
                                  initializer=kernel_initializer)
        res = linalg_ops.matmul(args[0] if len(args) == 1 else concat_ops.concat(args, 1), weights)
        if not bias:
            return res
        with vs.variable_scope(outer_scope) as inner_scope:
            inner_scope.set_partitioner(None)
            if bias_initializer is None:
                bias_initializer = init_ops.constant_initializer(0.0, dtype=dtype)
            biases = vs.get_variable(_BIAS_VARIABLE_NAME, [output_size], dtype=dtype,
                                     initializer=bias_initializer)
        return bias_add(res, biases)


def _module(name, doc, members):
    module = types.ModuleType(name, doc)
    for key, value in members.items():
        setattr(module, key, value)
    sys.modules.setdefault(name, module)
    return module


def register(contrib):
    """Adds ``contrib.rnn.python.ops.*`` and ``contrib.seq2seq.python.ops.*`` (and their
    ``sys.modules`` entries) to the ``tf.contrib`` module ``contrib``."""
    from tideflow.ops import (
        rnn_cell_impl,
        rnn_contrib_cells,
        seq2seq_attention,
        seq2seq_beam_search,
        seq2seq_decoder,
        seq2seq_helper,
        seq2seq_loss,
    )

    base = contrib.__name__
    public = {n: getattr(contrib.rnn, n) for n in dir(contrib.rnn) if not n.startswith("_")}
    core_rnn_cell = _module(f"{base}.rnn.python.ops.core_rnn_cell",
                            "``contrib.rnn.python.ops.core_rnn_cell``.",
                            {**{n: getattr(rnn_cell_impl, n) for n in rnn_cell_impl.__all__},
                             **{n: public[n] for n in ("EmbeddingWrapper",
                                                       "InputProjectionWrapper",
                                                       "OutputProjectionWrapper")
                                if n in public},
                             "_linear": _linear, "_WEIGHTS_VARIABLE_NAME": _WEIGHTS_VARIABLE_NAME,
                             "_BIAS_VARIABLE_NAME": _BIAS_VARIABLE_NAME})
    rnn_ops = {"core_rnn_cell": core_rnn_cell,
               "rnn_cell": _module(f"{base}.rnn.python.ops.rnn_cell",
                                   "``contrib.rnn.python.ops.rnn_cell``.",
                                   {**public, "_linear": _linear}),
               "rnn": _module(f"{base}.rnn.python.ops.rnn", "``contrib.rnn.python.ops.rnn``.",
                              {n: public[n] for n in ("stack_bidirectional_rnn",
                                                      "stack_bidirectional_dynamic_rnn")
                               if n in public}),
               "core_rnn_cell_impl": core_rnn_cell,
               "lstm_ops": _module(f"{base}.rnn.python.ops.lstm_ops",
                                   "``contrib.rnn.python.ops.lstm_ops``: the LSTMBlock cells.",
                                   {**{n: public[n] for n in ("LSTMBlockCell",
                                                              "LSTMBlockFusedCell",
                                                              "LSTMBlockWrapper")
                                       if n in public},
                                    "_block_lstm": rnn_contrib_cells._block_lstm}),
               "gru_ops": _module(f"{base}.rnn.python.ops.gru_ops",
                                  "``contrib.rnn.python.ops.gru_ops``: the GRUBlock cells.",
                                  {n: public[n] for n in ("GRUBlockCell", "GRUBlockCellV2")
                                   if n in public}),
               "fused_rnn_cell": _module(f"{base}.rnn.python.ops.fused_rnn_cell",
                                         "``contrib.rnn.python.ops.fused_rnn_cell``.",
                                         {n: public[n] for n in ("FusedRNNCell",
                                                                 "FusedRNNCellAdaptor",
                                                                 "TimeReversedFusedRNN")
                                          if n in public})}
    s2s = {"attention_wrapper": seq2seq_attention, "beam_search_decoder": seq2seq_beam_search,
           "decoder": seq2seq_decoder, "basic_decoder": seq2seq_decoder,
           "helper": seq2seq_helper, "loss": seq2seq_loss,
           "beam_search_ops": _module(f"{base}.seq2seq.python.ops.beam_search_ops",
                                      "``contrib.seq2seq.python.ops.beam_search_ops``: the "
                                      "GatherTree op.",
                                      {"gather_tree": seq2seq_beam_search.gather_tree})}
    # `from tensorflow.contrib.legacy_seq2seq.python.ops import seq2seq` (the 0.x tutorials')
    legacy = {"seq2seq": contrib.legacy_seq2seq}
    # `from tensorflow.contrib.image.python.ops import distort_image_ops` (tf_cnn_benchmarks'
    # random_hsv_in_yiq), `... import image_ops` (transform, rotate, ...)
    img = {n: getattr(contrib.image, n) for n in contrib.image.__all__}
    image_ops = {
        "distort_image_ops": _module(f"{base}.image.python.ops.distort_image_ops",
                                     "``contrib.image.python.ops.distort_image_ops``.",
                                     {n: img[n] for n in ("adjust_hsv_in_yiq",
                                                          "random_hsv_in_yiq")}),
        "image_ops": _module(f"{base}.image.python.ops.image_ops",
                             "``contrib.image.python.ops.image_ops``.", img),
        "dense_image_warp": _module(f"{base}.image.python.ops.dense_image_warp",
                                    "``contrib.image.python.ops.dense_image_warp``.",
                                    {"dense_image_warp": img["dense_image_warp"]})}
    for pkg, members in ((contrib.rnn, rnn_ops), (contrib.seq2seq, s2s),
                         (contrib.legacy_seq2seq, legacy), (contrib.image, image_ops)):
        python = _module(f"{pkg.__name__}.python", f"``{pkg.__name__}.python``.", {})
        python.ops = _module(f"{pkg.__name__}.python.ops", f"``{pkg.__name__}.python.ops``.",
                             members)
        pkg.python = python
        for key, value in members.items():
            sys.modules.setdefault(f"{pkg.__name__}.python.ops.{key}", value)
