"""Sampled losses for large output vocabularies: noise-contrastive estimation (``nce_loss``)
and sampled softmax, scoring the true classes against a few sampled ones."""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    candidate_sampling_ops,
    cast_ops,
    concat_ops,
    embedding_ops,
    fill_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    slicing_ops,
)
from tideflow.ops.partitioned_variables import PartitionedVariable


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true, sampled_values, subtract_log_q, remove_accidental_hits,
                            partition_strategy, name, seed=None):
    """Logits of the true and sampled classes, [batch, num_true + num_sampled], and their
    target probabilities (1/num_true for the true classes, 0 for the sampled)."""
    if isinstance(weights, PartitionedVariable):
        weights = list(weights)
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    weights = list(weights)
    with ops.name_scope(name, "compute_sampled_logits", weights + [biases, inputs, labels]):
        labels = ops.convert_to_tensor(labels, name="labels")
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        if labels.dtype != dtypes.int64:
            labels = cast_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = candidate_sampling_ops.log_uniform_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes, seed=seed)
        sampled, true_expected, sampled_expected = (array_ops.stop_gradient(s)
                                                    for s in sampled_values)
        sampled = cast_ops.cast(sampled, dtypes.int64)
        # TF 1.15's ops in its order: one lookup of weights for the true and sampled ids,
        # sliced; then the biases; the true logits through _sum_rows' matmul with ones
        all_ids = concat_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_ops.embedding_lookup(weights, all_ids,
                                               partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = cast_ops.cast(all_w, inputs.dtype)
        true_w = slicing_ops.slice(
            all_w, [0, 0], array_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = slicing_ops.slice(
            all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1])
        sampled_logits = linalg_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_ops.embedding_lookup(biases, all_ids,
                                               partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = cast_ops.cast(all_b, inputs.dtype)
        true_b = slicing_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = slicing_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = concat_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(array_ops.expand_dims(inputs, 1),
                                          array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, concat_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b

        if remove_accidental_hits:
            hit_rows, hit_cols, hit_weights = candidate_sampling_ops.compute_accidental_hits(
                labels, sampled, num_true=num_true)
            rows_2d = array_ops.reshape(hit_rows, [-1, 1])
            cols_2d = array_ops.reshape(cast_ops.cast(hit_cols, dtypes.int32), [-1, 1])
            sparse_indices = concat_ops.concat([rows_2d, cols_2d], 1, "sparse_indices")
            logits_shape = concat_ops.concat(
                [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype != hit_weights.dtype:
                hit_weights = cast_ops.cast(hit_weights, sampled_logits.dtype)
            # the raw op, as TF calls it (its default value converted inside it)
            sampled_logits += ops.apply_op(
                "SparseToDense", [sparse_indices, logits_shape, hit_weights,
                                  np.asarray(0.0, hit_weights.dtype.as_numpy_dtype)],
                {"validate_indices": False})._outputs[0]
        if subtract_log_q:
            true_logits -= math_ops.log(cast_ops.cast(true_expected, true_logits.dtype))
            sampled_logits -= math_ops.log(cast_ops.cast(sampled_expected,
                                                         sampled_logits.dtype))
        out_logits = concat_ops.concat([true_logits, sampled_logits], 1)
        out_labels = concat_ops.concat([fill_ops.ones_like(true_logits) / num_true,
                                        fill_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """Noise-contrastive estimation loss per example, [batch]: logistic losses of the true
    classes against ``num_sampled`` classes drawn from the log-uniform sampler."""
    labels, inputs = _labels_inputs(labels, inputs)
    logits, targets = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        True, remove_accidental_hits, partition_strategy, name)
    losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits,
                                                       name="sampled_losses")
    return _sum_rows(losses)


def _sum_rows(x):
    """The sum of each row of matrix ``x``, as TF builds it (a matmul with a column of ones,
    whose gradient is cheaper than a reduction's)."""
    ones = fill_ops.ones(array_ops.stack([array_ops.shape(x)[1], 1]), x.dtype)
    return array_ops.reshape(linalg_ops.matmul(x, ones), [-1])


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """Softmax cross entropy per example, [batch], over the true classes and ``num_sampled``
    sampled ones (logits corrected by the log of each class's expected count)."""
    labels, inputs = _labels_inputs(labels, inputs)
    logits, targets = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
        True, remove_accidental_hits, partition_strategy, name, seed=seed)
    targets = array_ops.stop_gradient(targets, name="labels_stop_gradient")
    return nn_impl.softmax_cross_entropy_with_logits_v2(labels=targets, logits=logits)


def nce_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                sampled_values=None, remove_accidental_hits=False, name="nce_loss"):
    """``tf.nn.nce_loss`` of TF 2: sharded weights are split with the "div" strategy."""
    return nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, remove_accidental_hits, "div", name)


def sampled_softmax_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes,
                            num_true=1, sampled_values=None, remove_accidental_hits=True,
                            seed=None, name="sampled_softmax_loss"):
    """``tf.nn.sampled_softmax_loss`` of TF 2: sharded weights are split with "div"."""
    return sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                                num_true, sampled_values, remove_accidental_hits, "div", name,
                                seed)


def _labels_inputs(labels, inputs):
    """Accepts 0.x's argument order (inputs before labels), told apart by dtype."""
    lab = ops.convert_to_tensor(labels)
    inp = ops.convert_to_tensor(inputs)
    if lab.dtype.is_floating and inp.dtype.is_integer:
        return inp, lab
    return lab, inp
