"""Sampled losses for large output vocabularies: noise-contrastive estimation (``nce_loss``)
and sampled softmax, scoring the true classes against a few sampled ones."""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    candidate_sampling_ops,
    cast_ops,
    concat_ops,
    embedding_ops,
    fill_ops,
    gather_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    reduction_ops,
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

        # one lookup for the true and the sampled rows (one trip to each parameter shard)
        all_ids = concat_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_ops.embedding_lookup(weights, all_ids,
                                               partition_strategy=partition_strategy)
        all_b = embedding_ops.embedding_lookup(biases, all_ids,
                                               partition_strategy=partition_strategy)
        n_true = array_ops.size(labels_flat)
        true_w, sampled_w = all_w[:n_true], all_w[n_true:]
        true_b, sampled_b = all_b[:n_true], all_b[n_true:]
        if all_w.dtype != inputs.dtype:
            inputs = cast_ops.cast(inputs, all_w.dtype)

        # true logits: each input row dotted with each of its num_true label rows
        dim = array_ops.shape(true_w)[1:2]
        true_w = array_ops.reshape(true_w, concat_ops.concat([[-1, num_true], dim], 0))
        true_logits = reduction_ops.reduce_sum(array_ops.expand_dims(inputs, 1) * true_w, 2)
        true_logits += array_ops.reshape(true_b, [-1, num_true])
        sampled_logits = linalg_ops.matmul(inputs, sampled_w, transpose_b=True) + sampled_b

        if remove_accidental_hits:
            hit_rows, hit_cols, hit_weights = candidate_sampling_ops.compute_accidental_hits(
                labels, sampled, num_true=num_true)
            where = array_ops.stack([hit_rows, cast_ops.cast(hit_cols, dtypes.int32)], 1)
            mask = gather_ops.scatter_nd(
                where, cast_ops.cast(hit_weights, sampled_logits.dtype),
                array_ops.shape(sampled_logits))
            sampled_logits += mask
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
    return reduction_ops.reduce_sum(losses, 1)


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
