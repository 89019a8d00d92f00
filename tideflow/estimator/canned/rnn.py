"""``tf.contrib.estimator.RNNClassifier`` and ``RNNEstimator``: a recurrent network over
sequence feature columns (context columns tiled over the steps), its last relevant output
(or every output) through a dense logits layer; variables under ``rnn/``, as TF 1.15's."""

from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.estimator import Estimator
from tideflow.feature_column import feature_column as fc
from tideflow.feature_column import sequence_feature_column as seq_fc
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    init_ops,
    layers_core,
    losses_impl,
    partitioned_variables,
    range_ops,
    rnn,
    rnn_cell_impl,
    variable_scope,
)
from tideflow.summary import summary as summary_lib
from tideflow.train import optimizer as optimizer_lib
from tideflow.train import training_util

_DEFAULT_LEARNING_RATE = 0.05
_DEFAULT_CLIP_NORM = 5.0

_CELL_TYPES = {"basic_rnn": rnn_cell_impl.BasicRNNCell,
               "lstm": rnn_cell_impl.BasicLSTMCell,
               "gru": rnn_cell_impl.GRUCell}

USE_DEFAULT = object()


def _single_rnn_cell(num_units, cell_type):
    cell_class = _CELL_TYPES.get(cell_type, cell_type) if isinstance(cell_type, str) \
        else cell_type
    if cell_class and not isinstance(cell_class, type):
        # TF 1.15 fails here on issubclass() of a non-class (an unknown name): a TypeError
        raise TypeError(f"issubclass() arg 1 must be a class: supported cell types are "
                        f"{list(_CELL_TYPES)}; got {cell_type!r}")
    if not cell_class or not issubclass(cell_class, rnn_cell_impl.RNNCell):
        raise ValueError(f"Supported cell types are {list(_CELL_TYPES)}; got {cell_type}")
    return cell_class(num_units=num_units)


def _make_rnn_cell_fn(num_units, cell_type="basic_rnn"):
    """An ``rnn_cell_fn(mode)``: one cell of ``cell_type`` per entry of ``num_units``,
    stacked in a MultiRNNCell when there are several."""
    def rnn_cell_fn(mode):
        del mode
        cells = [_single_rnn_cell(n, cell_type) for n in num_units]
        return cells[0] if len(cells) == 1 else rnn_cell_impl.MultiRNNCell(cells)
    return rnn_cell_fn


def _concatenate_context_input(sequence_input, context_input):
    """``context_input`` ``[batch, d1]`` repeated over the steps of ``sequence_input``
    ``[batch, steps, d0]`` and appended on the last axis."""
    checks = [
        check_ops.assert_rank(sequence_input, 3, message="sequence_input must have rank 3",
                              data=[array_ops.shape(sequence_input)]),
        check_ops.assert_type(sequence_input, dtypes.float32,
                              message=f"sequence_input must have dtype float32; got "
                                      f"{sequence_input.dtype}."),
        check_ops.assert_rank(context_input, 2, message="context_input must have rank 2",
                              data=[array_ops.shape(context_input)]),
        check_ops.assert_type(context_input, dtypes.float32,
                              message=f"context_input must have dtype float32; got "
                                      f"{context_input.dtype}."),
    ]
    with ops.control_dependencies([c for c in checks if c is not None]):
        padded_length = array_ops.shape(sequence_input)[1]
        tiled = array_ops.tile(array_ops.expand_dims(context_input, 1),
                               array_ops.concat([[1], [padded_length], [1]], 0))
    return array_ops.concat([sequence_input, tiled], 2)


def _select_last_activations(activations, sequence_lengths):
    """``activations[i, sequence_lengths[i] - 1, :]`` for each example ``i`` (the last step
    when ``sequence_lengths`` is None)."""
    with ops.name_scope("select_last_activations", values=[activations, sequence_lengths]):
        shape = array_ops.shape(activations)
        batch_size, padded_length, output_units = shape[0], shape[1], shape[2]
        if sequence_lengths is None:
            sequence_lengths = padded_length
        start_indices = cast_ops.to_int64(range_ops.range(batch_size) * padded_length)
        last_indices = start_indices + sequence_lengths - 1
        flat = array_ops.reshape(activations, [batch_size * padded_length, output_units])
        last = array_ops.gather(flat, last_indices)
        last.set_shape([activations.shape[0], activations.shape[2]])
        return last


def _rnn_logit_fn_builder(output_units, rnn_cell_fn, sequence_feature_columns,
                          context_feature_columns, input_layer_partitioner,
                          return_sequences=False):
    if not isinstance(output_units, int):
        raise ValueError(f"output_units must be an int.  Given type: {type(output_units)}")  # noqa: TRY004 - as TF

    def rnn_logit_fn(features, mode):
        with variable_scope.variable_scope("sequence_input_layer",
                                           values=tuple(features.values()),
                                           partitioner=input_layer_partitioner):
            sequence_input, sequence_length = seq_fc.sequence_input_layer(
                features=features, feature_columns=sequence_feature_columns)
            summary_lib.histogram("sequence_length", sequence_length)
            if context_feature_columns:
                context_input = fc.input_layer(features=features,
                                               feature_columns=context_feature_columns)
                sequence_input = _concatenate_context_input(sequence_input, context_input)
        cell = rnn_cell_fn(mode)
        outputs, _ = rnn.dynamic_rnn(cell=cell, inputs=sequence_input,
                                     sequence_length=sequence_length, dtype=dtypes.float32,
                                     time_major=False)
        if not return_sequences:
            outputs = _select_last_activations(outputs, sequence_length)
        with variable_scope.variable_scope("logits", values=(outputs,)):
            logits = layers_core.dense(outputs, units=output_units, activation=None,
                                       kernel_initializer=init_ops.glorot_uniform_initializer())
        return logits, array_ops.sequence_mask(sequence_length)

    return rnn_logit_fn


def _rnn_model_fn(features, labels, mode, head, rnn_cell_fn, sequence_feature_columns,
                  context_feature_columns, return_sequences=False, optimizer="Adagrad",
                  input_layer_partitioner=None, config=None):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "  # noqa: TRY004 - as TF
                         f"{type(features)}")
    if not isinstance(optimizer, optimizer_lib.Optimizer):
        from tideflow.estimator.contrib_estimator import clip_gradients_by_norm

        optimizer = head_lib.get_optimizer_instance(optimizer,
                                                    learning_rate=_DEFAULT_LEARNING_RATE)
        optimizer = clip_gradients_by_norm(optimizer, _DEFAULT_CLIP_NORM)
    num_ps = config.num_ps_replicas if config else 0
    partitioner = partitioned_variables.min_max_variable_partitioner(max_partitions=num_ps)
    with variable_scope.variable_scope("rnn", values=tuple(features.values()),
                                       partitioner=partitioner):
        input_layer_partitioner = input_layer_partitioner or (
            partitioned_variables.min_max_variable_partitioner(max_partitions=num_ps,
                                                               min_slice_size=64 << 20))
        logit_fn = _rnn_logit_fn_builder(head.logits_dimension, rnn_cell_fn,
                                         sequence_feature_columns, context_feature_columns,
                                         input_layer_partitioner, return_sequences)
        logits, sequence_length_mask = logit_fn(features=features, mode=mode)

        def train_op_fn(loss):
            return optimizer.minimize(loss, global_step=training_util.get_global_step())

        mask_key = getattr(head, "input_sequence_mask_key", None)
        if return_sequences and mask_key not in features:
            features[mask_key] = sequence_length_mask
        return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          train_op_fn=train_op_fn, logits=logits)


def _assert_rnn_cell_fn(rnn_cell_fn, num_units, cell_type):
    if rnn_cell_fn and (num_units or cell_type is not USE_DEFAULT):
        raise ValueError("num_units and cell_type must not be specified when using rnn_cell_fn")
    if not rnn_cell_fn:
        if cell_type is USE_DEFAULT:
            cell_type = "basic_rnn"
        rnn_cell_fn = _make_rnn_cell_fn(num_units, cell_type)
    return rnn_cell_fn


class RNNClassifier(Estimator):
    """A recurrent network classifying sequences into ``n_classes`` (sigmoid for 2, softmax
    above), its loss reduced by ``loss_reduction``."""

    def __init__(self, sequence_feature_columns, context_feature_columns=None,
                 num_units=None, cell_type=USE_DEFAULT, rnn_cell_fn=None, model_dir=None,
                 n_classes=2, weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 loss_reduction=losses_impl.Reduction.SUM_OVER_BATCH_SIZE,
                 input_layer_partitioner=None, config=None):
        rnn_cell_fn = _assert_rnn_cell_fn(rnn_cell_fn, num_units, cell_type)
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)

        def model_fn(features, labels, mode, config):
            return _rnn_model_fn(features, labels, mode, head, rnn_cell_fn,
                                 tuple(sequence_feature_columns or []),
                                 tuple(context_feature_columns or []), False, optimizer,
                                 input_layer_partitioner, config)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


class RNNEstimator(Estimator):
    """A recurrent network over sequence columns with a given ``head``."""

    def __init__(self, head, sequence_feature_columns, context_feature_columns=None,
                 num_units=None, cell_type=USE_DEFAULT, rnn_cell_fn=None,
                 return_sequences=False, model_dir=None, optimizer="Adagrad",
                 input_layer_partitioner=None, config=None):
        rnn_cell_fn = _assert_rnn_cell_fn(rnn_cell_fn, num_units, cell_type)
        if return_sequences and not hasattr(head, "input_sequence_mask_key"):
            raise ValueError("Provided head must be a `_SequentialHead` object when "
                             "`return_sequences` is set to True.")

        def model_fn(features, labels, mode, config):
            return _rnn_model_fn(features, labels, mode, head, rnn_cell_fn,
                                 tuple(sequence_feature_columns or []),
                                 tuple(context_feature_columns or []), return_sequences,
                                 optimizer, input_layer_partitioner, config)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


__all__ = ["RNNClassifier", "RNNEstimator"]
