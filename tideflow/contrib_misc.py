"""Smaller ``tf.contrib`` modules TF 1.x programs import, composed from existing ops (so they
are differentiable as TF's are): ``sparsemax``, ``nn`` (alpha dropout, scaled softplus,
sampled/rank-sampled softmax losses, the flipped cross entropies), ``losses.metric_learning``,
``resampler`` and ``image``'s polyharmonic splines and sparse warps."""

import numbers

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    embedding_ops,
    fill_ops,
    gather_ops,
    linalg_ops,
    math_ops,
    matrix_diag_ops,
    nn_extra_ops,
    nn_impl,
    pad_ops,
    random_ops,
    range_ops,
    reduction_ops,
    unary_ops,
)

# ------------------------------------------------------------------------------------------
# tf.contrib.sparsemax
# ------------------------------------------------------------------------------------------


def _cast(x, dtype):
    return cast_ops.cast(x, dtype)


def sparsemax(logits, name=None):
    """Sparsemax (Martins & Astudillo 2016) of [batch, classes] ``logits``: the Euclidean
    projection onto the simplex, ``max(z - tau(z), 0)``; rows with a NaN give NaN."""
    with ops.name_scope(name, "sparsemax", [logits]):
        logits = ops.convert_to_tensor(logits, name="logits")
        if logits.get_shape().ndims not in (None, 2):
            raise ValueError(f"sparsemax: logits must be 2-D [batch, classes], got shape "
                             f"{logits.get_shape()}")
        dtype = logits.dtype
        obs = array_ops.shape(logits)[0]
        dims = array_ops.shape(logits)[1]
        # as TF 1.15: the logits as given (no shift by the row mean, which would turn a row
        # with -inf entries, an attention mask's, into NaN)
        z = logits
        z_sorted = nn_impl.top_k(z, k=dims).values
        z_cumsum = reduction_ops.cumsum(z_sorted, axis=1)
        k = range_ops.range(1, _cast(dims, dtype) + 1, dtype=dtype)
        z_check = 1 + k * z_sorted > z_cumsum
        k_z = reduction_ops.reduce_sum(_cast(z_check, dtypes.int32), axis=1)
        k_z_safe = math_ops.maximum(k_z, 1)
        indices = array_ops.stack([range_ops.range(0, obs), k_z_safe - 1], axis=1)
        tau_sum = gather_ops.gather_nd(z_cumsum, indices)
        tau_z = (tau_sum - 1) / _cast(k_z, dtype)
        p = math_ops.maximum(_cast(0, dtype), z - tau_z[:, None])
        bad = math_ops.logical_or(math_ops.equal(k_z, 0), math_ops.is_nan(z_cumsum[:, -1]))
        nan = fill_ops.fill([obs, dims], _cast(float("nan"), dtype))
        return gather_ops.where(bad, nan, p)


def sparsemax_loss(logits, sparsemax, labels, name=None):
    """The sparsemax loss per example (its gradient in ``logits`` is ``sparsemax - labels``)."""
    with ops.name_scope(name, "sparsemax_loss", [logits, sparsemax, labels]):
        logits = ops.convert_to_tensor(logits, name="logits")
        sparsemax = ops.convert_to_tensor(sparsemax, name="sparsemax")
        labels = ops.convert_to_tensor(labels, name="labels")
        z = logits  # (as given, as TF 1.15)
        sum_s = gather_ops.where(math_ops.logical_or(sparsemax > 0, math_ops.is_nan(sparsemax)),
                                 sparsemax * (z - 0.5 * sparsemax),
                                 array_ops.zeros_like(sparsemax))
        q_part = labels * (0.5 * labels - z)
        q_part_safe = gather_ops.where(
            math_ops.logical_and(math_ops.equal(labels, 0), math_ops.is_inf(z)),
            array_ops.zeros_like(z), q_part)
        return reduction_ops.reduce_sum(sum_s + q_part_safe, axis=1)


SPARSEMAX_NAMES = ["sparsemax", "sparsemax_loss"]

# ------------------------------------------------------------------------------------------
# tf.contrib.nn
# ------------------------------------------------------------------------------------------


def alpha_dropout(x, keep_prob, noise_shape=None, seed=None, name=None):
    """Dropout for SELU networks (Klambauer et al.): dropped units take SELU's negative
    saturation, then an affine map restores the mean and variance."""
    with ops.name_scope(name, "alpha_dropout", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if isinstance(keep_prob, numbers.Real) and not 0 < keep_prob <= 1.0:
            raise ValueError(f"keep_prob must be a scalar tensor or a float in the range "
                             f"(0, 1], got {keep_prob:g}")
        keep_prob = ops.convert_to_tensor(keep_prob, dtype=x.dtype, name="keep_prob")
        keep_prob.get_shape().assert_is_compatible_with([])
        if ops.constant_value(keep_prob) == 1:
            return x
        alpha = -1.7580993408473766
        shape = noise_shape if noise_shape is not None else array_ops.shape(x)
        random_tensor = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype)
        kept = _cast(math_ops.greater_equal(random_tensor, 1 - keep_prob), x.dtype)
        x = x * kept + alpha * (1 - kept)
        a = (keep_prob + keep_prob * (1 - keep_prob) * alpha ** 2) ** -0.5
        b = -a * alpha * (1 - keep_prob)
        return a * x + b


def scaled_softplus(x, alpha, clip=None, name=None):
    """``alpha * softplus(x / alpha)``, optionally clipped above at ``clip``."""
    with ops.name_scope(name, "scaled_softplus", [x, alpha]):
        x = ops.convert_to_tensor(x, name="x")
        alpha = ops.convert_to_tensor(alpha, dtype=x.dtype, name="alpha")
        y = alpha * nn_impl.softplus(x / alpha)
        if clip is not None:
            y = math_ops.minimum(y, ops.convert_to_tensor(clip, dtype=x.dtype, name="clip"))
        return y


def deprecated_flipped_softmax_cross_entropy_with_logits(logits, labels, dim=-1, name=None):
    """``softmax_cross_entropy_with_logits`` with TF 0.x's (logits, labels) order."""
    return nn_impl.softmax_cross_entropy_with_logits(labels=labels, logits=logits, dim=dim,
                                                     name=name)


def deprecated_flipped_sparse_softmax_cross_entropy_with_logits(logits, labels, name=None):
    """``sparse_softmax_cross_entropy_with_logits`` with TF 0.x's (logits, labels) order."""
    return nn_impl.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                            name=name)


def deprecated_flipped_sigmoid_cross_entropy_with_logits(logits=None, targets=None,
                                                         name=None):
    """``sigmoid_cross_entropy_with_logits`` with TF 0.x's (logits, targets) order."""
    return nn_impl.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits, name=name)


def nth_element(input, n, reverse=False, name=None):
    """The ``n``-th smallest (``reverse``: largest) value along the last dimension."""
    with ops.name_scope(name, "NthElement", [input, n]):
        x = ops.convert_to_tensor(input, name="input")
        if isinstance(n, numbers.Integral) and n < 0:
            raise ValueError(f"nth_element: n must be non-negative, got {n}")
        n = ops.convert_to_tensor(n, dtype=dtypes.int32)
        if reverse:
            return nn_impl.top_k(x, k=n + 1, sorted=True).values[..., -1]
        # the n-th smallest is the (m - n)-th largest: no negation, so unsigned and 8/16-bit
        # integers work as TF's NthElement kernel takes them (and the lowest int stays itself)
        m = array_ops.shape(x)[-1]
        return nn_impl.top_k(x, k=m - n, sorted=True).values[..., -1]


def sampled_sparse_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                                sampled_values=None, remove_accidental_hits=True,
                                partition_strategy="mod", name="sampled_sparse_softmax_loss"):
    """Sampled softmax loss per example for one true class per row (labels [batch, 1])."""
    from tideflow.ops.sampled_loss_ops import _compute_sampled_logits

    logits, _ = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                        num_classes, 1, sampled_values, True,
                                        remove_accidental_hits, partition_strategy, name)
    # the true logit is column 0
    zeros = fill_ops.zeros(array_ops.stack([array_ops.shape(logits)[0]]), dtypes.int64)
    return nn_impl.sparse_softmax_cross_entropy_with_logits(labels=zeros, logits=logits)


def _rank_resample(weights, biases, inputs, sampled_values, num_resampled,
                   resampling_temperature, partition_strategy):
    sampled, true_expected, sampled_expected = sampled_values
    sampled = _cast(array_ops.stop_gradient(sampled), dtypes.int64)
    true_expected = array_ops.stop_gradient(true_expected)
    sampled_expected = array_ops.stop_gradient(sampled_expected)
    reweighted = inputs / resampling_temperature
    emb = embedding_ops.embedding_lookup(weights, sampled, partition_strategy=partition_strategy)
    logits = reduction_ops.reduce_logsumexp(
        linalg_ops.matmul(emb, reweighted, transpose_b=True), axis=1)
    sampled_b = array_ops.reshape(
        embedding_ops.embedding_lookup(biases, sampled, partition_strategy=partition_strategy),
        [-1])
    logits += sampled_b / resampling_temperature
    idx = nn_impl.top_k(logits, k=num_resampled, sorted=False).indices
    return (gather_ops.gather(sampled, idx), true_expected,
            gather_ops.gather(sampled_expected, idx))


def rank_sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_resampled,
                              num_classes, num_true, sampled_values, resampling_temperature,
                              remove_accidental_hits, partition_strategy, name=None):
    """TAPAS (Bai et al. 2017): the sampled softmax loss over the ``num_resampled`` of
    ``num_sampled`` candidates the batch ranks highest."""
    from tideflow.ops import nn_extra_ops, sampled_loss_ops

    if num_sampled > num_classes:
        raise ValueError(f"num_sampled ({num_sampled}) cannot be greater than num_classes "
                         f"({num_classes})")
    if num_sampled <= num_resampled:
        raise ValueError(f"num_resampled ({num_resampled}) must be less than num_sampled "
                         f"({num_sampled})")
    if partition_strategy not in ("div", "mod"):
        raise ValueError(f"unsupported partition_strategy ({partition_strategy})")
    with ops.name_scope(name, "rank_sampled_softmax_loss", [weights, biases, labels, inputs]):
        if not sampled_values:
            sampled_values = nn_extra_ops.learned_unigram_candidate_sampler(
                true_classes=labels, num_true=num_true, num_sampled=num_sampled, unique=True,
                range_max=num_classes)
        resampled = _rank_resample(weights, biases, inputs, sampled_values, num_resampled,
                                   resampling_temperature, partition_strategy)
        return sampled_loss_ops.sampled_softmax_loss(
            weights=weights, biases=biases, labels=labels, inputs=inputs,
            num_sampled=num_resampled, num_classes=num_classes, num_true=num_true,
            sampled_values=resampled, remove_accidental_hits=remove_accidental_hits,
            partition_strategy=partition_strategy)


# TF 1.15's contrib.nn.conv1d_transpose is core's (input, filters, strides, dilations)
conv1d_transpose = nn_extra_ops.conv1d_transpose

NN_NAMES = ["alpha_dropout", "conv1d_transpose",
            "deprecated_flipped_sigmoid_cross_entropy_with_logits",
            "deprecated_flipped_softmax_cross_entropy_with_logits",
            "deprecated_flipped_sparse_softmax_cross_entropy_with_logits", "nth_element",
            "rank_sampled_softmax_loss", "sampled_sparse_softmax_loss", "scaled_softplus"]

# ------------------------------------------------------------------------------------------
# tf.contrib.losses.metric_learning
# ------------------------------------------------------------------------------------------


def _f32(x):
    return _cast(x, dtypes.float32)


# The losses below build TF 1.15's graphs op for op (math_ops.add's 'Add', multiply's 'Mul',
# tile multiples packed from Python lists), so op names, and the op-level seeds of random ops
# made after them, are TF's.


def pairwise_distance(feature, squared=False):
    """[n, n] Euclidean (or squared) distances between the rows of ``feature``, with exact
    zeros on the diagonal and where rounding gives negatives."""
    row_norms = reduction_ops.reduce_sum(unary_ops.square(feature), axis=[1], keepdims=True)
    col_norms = reduction_ops.reduce_sum(unary_ops.square(array_ops.transpose(feature)),
                                         axis=[0], keepdims=True)
    sq = math_ops.add(row_norms, col_norms) - 2.0 * linalg_ops.matmul(
        feature, array_ops.transpose(feature))
    sq = math_ops.maximum(sq, 0.0)
    error_mask = math_ops.less_equal(sq, 0.0)
    dist = sq if squared else unary_ops.sqrt(sq + _f32(error_mask) * 1e-16)
    dist = math_ops.multiply(dist, _f32(math_ops.logical_not(error_mask)))
    num_data = array_ops.shape(feature)[0]
    off_diagonal = fill_ops.ones_like(dist) - matrix_diag_ops.diag(fill_ops.ones([num_data]))
    return math_ops.multiply(dist, off_diagonal)


def contrastive_loss(labels, embeddings_anchor, embeddings_positive, margin=1.0):
    """Hadsell et al.'s contrastive loss over (anchor, positive) pairs, labels 1 (similar)
    or 0 (dissimilar)."""
    distances = unary_ops.sqrt(reduction_ops.reduce_sum(
        math_ops.squared_difference(embeddings_anchor, embeddings_positive), 1))
    similar = _cast(labels, distances.dtype) * unary_ops.square(distances)
    apart = (1.0 - _cast(labels, distances.dtype)) * unary_ops.square(
        math_ops.maximum(margin - distances, 0.0))
    return reduction_ops.reduce_mean(similar + apart, name="contrastive_loss")


def masked_maximum(data, mask, dim=1):
    """The maximum of ``data`` along ``dim`` over the entries where ``mask`` is 1."""
    mins = reduction_ops.reduce_min(data, dim, keepdims=True)
    return reduction_ops.reduce_max(math_ops.multiply(data - mins, mask), dim,
                                    keepdims=True) + mins


def masked_minimum(data, mask, dim=1):
    """The minimum of ``data`` along ``dim`` over the entries where ``mask`` is 1."""
    maxs = reduction_ops.reduce_max(data, dim, keepdims=True)
    return reduction_ops.reduce_min(math_ops.multiply(data - maxs, mask), dim,
                                    keepdims=True) + maxs


def _labels_column(labels):
    # TF 1.15 reshapes through the run-time length after a bare `assert` that the labels are
    # known to be rank 1, so any other rank, unknown included, is an AssertionError
    lshape = array_ops.shape(labels)
    if lshape.get_shape().as_list() != [1]:
        raise AssertionError
    return array_ops.reshape(labels, [lshape[0], 1])


def _positives_mask(adjacency, batch_size):
    return _f32(adjacency) - matrix_diag_ops.diag(fill_ops.ones([batch_size]))


def triplet_semihard_loss(labels, embeddings, margin=1.0):
    """FaceNet's triplet loss with semi-hard negatives (the closest negative farther than
    the positive; the farthest negative where none is)."""
    labels = _labels_column(labels)
    pdist = pairwise_distance(embeddings, squared=True)
    adjacency = math_ops.equal(labels, array_ops.transpose(labels))
    adjacency_not = math_ops.logical_not(adjacency)
    batch_size = array_ops.size(labels)
    pdist_tile = pad_ops.tile(pdist, [batch_size, 1])
    mask = math_ops.logical_and(
        pad_ops.tile(adjacency_not, [batch_size, 1]),
        math_ops.greater(pdist_tile, array_ops.reshape(array_ops.transpose(pdist), [-1, 1])))
    mask_final = array_ops.transpose(array_ops.reshape(math_ops.greater(
        reduction_ops.reduce_sum(_f32(mask), 1, keepdims=True), 0.0),
        [batch_size, batch_size]))
    adjacency_not = _f32(adjacency_not)
    mask = _f32(mask)
    negatives_outside = array_ops.transpose(array_ops.reshape(
        masked_minimum(pdist_tile, mask), [batch_size, batch_size]))
    negatives_inside = pad_ops.tile(masked_maximum(pdist, adjacency_not), [1, batch_size])
    semi_hard = gather_ops.where(mask_final, negatives_outside, negatives_inside)
    loss_mat = math_ops.add(margin, pdist - semi_hard)
    mask_positives = _positives_mask(adjacency, batch_size)
    num_positives = reduction_ops.reduce_sum(mask_positives)
    return math_ops.truediv(
        reduction_ops.reduce_sum(math_ops.maximum(
            math_ops.multiply(loss_mat, mask_positives), 0.0)),
        num_positives, name="triplet_semihard_loss")


def _npairs_xent(embeddings_anchor, embeddings_positive, reg_lambda, print_losses,
                 targets_fn):
    """The N-pairs loss given a builder of its [n, n] target weights, made between the
    similarity matrix and the normalization as TF 1.15 orders them."""
    reg_anchor = reduction_ops.reduce_mean(reduction_ops.reduce_sum(
        unary_ops.square(embeddings_anchor), 1))
    reg_positive = reduction_ops.reduce_mean(reduction_ops.reduce_sum(
        unary_ops.square(embeddings_positive), 1))
    l2loss = math_ops.multiply(0.25 * reg_lambda, reg_anchor + reg_positive, name="l2loss")
    similarity = linalg_ops.matmul(embeddings_anchor, embeddings_positive, transpose_a=False,
                                   transpose_b=True)
    targets = targets_fn()
    targets /= reduction_ops.reduce_sum(targets, 1, keepdims=True)
    xent = nn_impl.softmax_cross_entropy_with_logits(logits=similarity, labels=targets)
    xent = reduction_ops.reduce_mean(xent, name="xentropy")
    if print_losses:
        from tideflow.ops import logging_ops

        xent = logging_ops.Print(xent, ["cross entropy:", xent, "l2loss:", l2loss])
    return l2loss + xent


def npairs_loss(labels, embeddings_anchor, embeddings_positive, reg_lambda=0.002,
                print_losses=False):
    """Sohn's N-pairs loss: softmax cross entropy over anchor-positive similarities plus an
    L2 penalty on the embeddings."""
    def targets():
        column = _labels_column(labels)
        return _f32(math_ops.equal(column, array_ops.transpose(column)))

    return _npairs_xent(embeddings_anchor, embeddings_positive, reg_lambda, print_losses,
                        targets)


def _multilabel_adjacency(sparse_labels):
    # TF 1.15 sums sparse_minimum (implicit zeros) of every pair of label rows, one padded
    # one-hot [n, n] term per pair, so the values must be numeric (bool is a TypeError)
    # and the rows' dense shapes equal (checked when it runs)
    from tideflow.ops import sparse_extra_ops, sparse_ops

    n = len(sparse_labels)
    adjacency = fill_ops.zeros([n, n])
    for i in range(n):
        for j in range(n):
            shared = _f32(sparse_ops.sparse_reduce_sum(sparse_extra_ops.sparse_minimum(
                sparse_labels[i], sparse_labels[j])))
            shared = array_ops.expand_dims(array_ops.expand_dims(shared, 0), 1)
            adjacency += pad_ops.pad(shared, [[i, n - i - 1], [j, n - j - 1]], "CONSTANT")
    return _f32(adjacency)


def npairs_loss_multilabel(sparse_labels, embeddings_anchor, embeddings_positive,
                           reg_lambda=0.002, print_losses=False):
    """N-pairs loss for multi-label pairs: ``sparse_labels`` is a list of SparseTensors
    [1, num_classes] (one per pair); pairs are weighted by how many labels they share."""
    from tideflow.framework.sparse_tensor import SparseTensor

    if not all(isinstance(lab, SparseTensor) for lab in sparse_labels):
        raise TypeError(f"sparse_labels must be a list of SparseTensors, but got "
                        f"{sparse_labels}")
    with ops.name_scope("NpairsLossMultiLabel"):
        return _npairs_xent(embeddings_anchor, embeddings_positive, reg_lambda, print_losses,
                            lambda: _multilabel_adjacency(sparse_labels))


def lifted_struct_loss(labels, embeddings, margin=1.0):
    """Oh Song et al.'s lifted structured loss (a smooth max over each positive pair's
    negatives), as TF 1.x computes it."""
    labels = _labels_column(labels)
    pdist = pairwise_distance(embeddings)
    adjacency = math_ops.equal(labels, array_ops.transpose(labels))
    adjacency_not = math_ops.logical_not(adjacency)
    batch_size = array_ops.size(labels)
    diff = margin - pdist
    mask = _f32(adjacency_not)
    row_min = reduction_ops.reduce_min(diff, 1, keepdims=True)
    row_neg_max = reduction_ops.reduce_max(math_ops.multiply(diff - row_min, mask), 1,
                                           keepdims=True) + row_min
    max_elements = math_ops.maximum(row_neg_max, array_ops.transpose(row_neg_max))
    diff_tiled = pad_ops.tile(diff, [batch_size, 1])
    mask_tiled = pad_ops.tile(mask, [batch_size, 1])
    max_vect = array_ops.reshape(array_ops.transpose(max_elements), [-1, 1])
    loss_exp_left = array_ops.reshape(reduction_ops.reduce_sum(math_ops.multiply(
        unary_ops.exp(diff_tiled - max_vect), mask_tiled), 1, keepdims=True),
        [batch_size, batch_size])
    loss_mat = max_elements + unary_ops.log(loss_exp_left + array_ops.transpose(loss_exp_left))
    loss_mat += pdist
    mask_positives = _positives_mask(adjacency, batch_size)
    num_positives = reduction_ops.reduce_sum(mask_positives) / 2.0
    return math_ops.truediv(
        0.25 * reduction_ops.reduce_sum(unary_ops.square(math_ops.maximum(
            math_ops.multiply(loss_mat, mask_positives), 0.0))),
        num_positives, name="liftedstruct_loss")


def cluster_loss(labels, embeddings, margin_multiplier, enable_pam_finetuning=True,
                 margin_type="nmi", print_losses=False):
    """The structured clustering loss (Song et al. 2017); see ``contrib_cluster_loss``."""
    from tideflow.contrib_cluster_loss import cluster_loss as loss

    return loss(labels, embeddings, margin_multiplier, enable_pam_finetuning, margin_type,
                print_losses)


METRIC_LEARNING_NAMES = ["cluster_loss", "contrastive_loss", "lifted_struct_loss",
                         "npairs_loss", "npairs_loss_multilabel", "pairwise_distance",
                         "triplet_semihard_loss"]

# ------------------------------------------------------------------------------------------
# tf.contrib.resampler
# ------------------------------------------------------------------------------------------


def resampler(data, warp, name="resampler"):
    """Bilinear samples of ``data`` [batch, height, width, channels] at the (x, y) points of
    ``warp`` [batch, ..., 2]; pixels outside the image count as zero, and points with
    x <= -1, x >= width, y <= -1 or y >= height give zero (TF's Resampler)."""
    with ops.name_scope(name, "resampler", [data, warp]):
        data = ops.convert_to_tensor(data, name="data")
        warp = ops.convert_to_tensor(warp, name="warp")
        if data.get_shape().ndims not in (None, 4):
            raise ValueError(f"resampler: data must be 4-D [batch, height, width, channels], "
                             f"got shape {data.get_shape()}")
        if warp.get_shape().ndims is not None and warp.get_shape()[-1].value not in (None, 2):
            raise ValueError(f"resampler: the last dimension of warp must be 2, got shape "
                             f"{warp.get_shape()}")
        dtype = data.dtype
        dshape = array_ops.shape(data)
        batch, height, width, channels = dshape[0], dshape[1], dshape[2], dshape[3]
        wshape = array_ops.shape(warp)
        flat = array_ops.reshape(_cast(warp, dtype), array_ops.stack([batch, -1, 2]))
        x, y = flat[..., 0], flat[..., 1]
        h_f, w_f = _cast(height, dtype), _cast(width, dtype)
        inside = math_ops.logical_and(
            math_ops.logical_and(x > -1.0, y > -1.0), math_ops.logical_and(x < w_f, y < h_f))
        fx, fy = unary_ops.floor(x), unary_ops.floor(y)
        dx, dy = fx + 1 - x, fy + 1 - y  # weights of the floor corner
        n = array_ops.shape(flat)[1]
        b_idx = pad_ops.tile(array_ops.expand_dims(range_ops.range(batch), 1),
                             array_ops.stack([1, n]))
        flat_data = array_ops.reshape(data, array_ops.stack([-1, channels]))

        def corner(cx, cy, weight):
            ix, iy = _cast(cx, dtypes.int32), _cast(cy, dtypes.int32)
            valid = math_ops.logical_and(
                math_ops.logical_and(ix >= 0, ix < width),
                math_ops.logical_and(iy >= 0, iy < height))
            ix = math_ops.minimum(math_ops.maximum(ix, 0), width - 1)
            iy = math_ops.minimum(math_ops.maximum(iy, 0), height - 1)
            pixels = gather_ops.gather(flat_data, (b_idx * height + iy) * width + ix)
            weight = weight * _cast(math_ops.logical_and(valid, inside), dtype)
            return pixels * array_ops.expand_dims(weight, -1)

        out = (corner(fx, fy, dx * dy) + corner(fx + 1, fy + 1, (1 - dx) * (1 - dy))
               + corner(fx, fy + 1, dx * (1 - dy)) + corner(fx + 1, fy, (1 - dx) * dy))
        out_shape = concat_ops.concat([wshape[:-1], array_ops.expand_dims(channels, 0)], 0)
        result = array_ops.reshape(out, out_shape)
        static = warp.get_shape()
        if static.ndims is not None:
            result.set_shape(static[:-1].concatenate(data.get_shape()[-1:]))
        return result


# ------------------------------------------------------------------------------------------
# tf.contrib.image: interpolate_spline, sparse_image_warp
# ------------------------------------------------------------------------------------------

_EPSILON = 0.0000000001


def _phi(r, order):
    with ops.name_scope("phi"):
        if order == 1:
            return math_ops.sqrt(math_ops.maximum(r, _EPSILON))
        if order == 2:
            return 0.5 * r * unary_ops.log(math_ops.maximum(r, _EPSILON))
        if order == 4:
            return 0.5 * math_ops.square(r) * unary_ops.log(math_ops.maximum(r, _EPSILON))
        r = math_ops.maximum(r, _EPSILON)
        if order % 2 == 0:
            return 0.5 * math_ops.pow(r, 0.5 * order) * unary_ops.log(r)
        return math_ops.pow(r, 0.5 * order)


def _cross_squared_distance(x, y):
    xx = array_ops.expand_dims(reduction_ops.reduce_sum(math_ops.square(x), 2), 2)
    yy = array_ops.expand_dims(reduction_ops.reduce_sum(math_ops.square(y), 2), 1)
    return xx - 2 * linalg_ops.matmul(x, y, adjoint_b=True) + yy


def interpolate_spline(train_points, train_values, query_points, order,
                       regularization_weight=0.0, name="interpolate_spline"):
    """Polyharmonic spline through ``train_values`` [b, n, k] at ``train_points`` [b, n, d],
    evaluated at ``query_points`` [b, m, d] (order 2: the thin-plate spline);
    ``regularization_weight`` > 0 trades exactness for smoothness."""
    with ops.name_scope(name):
        c = ops.convert_to_tensor(train_points)
        f = ops.convert_to_tensor(train_values)
        q = ops.convert_to_tensor(query_points)
        d, k = c.get_shape()[-1].value, f.get_shape()[-1].value
        if d is None:
            raise ValueError("The dimensionality of the input points (d) must be "
                             "statically-inferrable.")
        if k is None:
            raise ValueError("The dimensionality of the output values (k) must be "
                             "statically-inferrable.")
        shape = array_ops.shape(c)
        b, n = shape[0], shape[1]
        with ops.name_scope("solve"):
            matrix_a = _phi(_cross_squared_distance(c, c), order)
            if regularization_weight > 0:
                eye = range_ops.eye(n, dtype=c.dtype)
                matrix_a += regularization_weight * array_ops.expand_dims(eye, 0)
            matrix_b = concat_ops.concat([c, array_ops.ones_like(c[..., :1])], 2)
            left = concat_ops.concat([matrix_a, array_ops.transpose(matrix_b, [0, 2, 1])], 1)
            lhs_zeros = fill_ops.zeros(array_ops.stack([b, d + 1, d + 1]), c.dtype)
            right = concat_ops.concat([matrix_b, lhs_zeros], 1)
            lhs = concat_ops.concat([left, right], 2)
            rhs = concat_ops.concat([f, fill_ops.zeros(array_ops.stack([b, d + 1, k]),
                                                       c.dtype)], 1)
            w_v = linalg_ops.matrix_solve(lhs, rhs)
            w, v = w_v[:, :n, :], w_v[:, n:, :]
        with ops.name_scope("predict"):
            rbf = linalg_ops.matmul(_phi(_cross_squared_distance(q, c), order), w)
            q_pad = concat_ops.concat([q, array_ops.ones_like(q[..., :1])], 2)
            return rbf + linalg_ops.matmul(q_pad, v)


def _boundary_locations(height, width, per_edge):
    ys, xs = np.meshgrid(np.linspace(0, height - 1, per_edge + 2),
                         np.linspace(0, width - 1, per_edge + 2), indexing="ij")
    edge = (xs == 0) | (xs == width - 1) | (ys == 0) | (ys == height - 1)
    return np.stack([ys[edge], xs[edge]], axis=-1)


def sparse_image_warp(image, source_control_point_locations, dest_control_point_locations,
                      interpolation_order=2, regularization_weight=0.0, num_boundary_points=0,
                      name="sparse_image_warp"):
    """Warps ``image`` so that the pixels at the source control points move to the
    destination points: a spline interpolates the points' flows to a dense flow, then
    ``dense_image_warp``. Returns ``(warped_image, dense_flows)``."""
    from tideflow.ops.image_warp_ops import dense_image_warp

    image = ops.convert_to_tensor(image)
    src = ops.convert_to_tensor(source_control_point_locations)
    dst = ops.convert_to_tensor(dest_control_point_locations)
    flows = dst - src
    with ops.name_scope(name):
        batch, height, width, _ = image.get_shape().as_list()
        if None in (batch, height, width):
            raise ValueError(f"sparse_image_warp needs the image's batch, height and width "
                             f"statically, got shape {image.get_shape()}")
        ys, xs = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
        grid = np.stack([ys, xs], -1).reshape(1, height * width, 2)
        grid = constant_op.constant(np.tile(grid, [batch, 1, 1]), dtype=image.dtype)
        if num_boundary_points > 0:
            edge = _boundary_locations(height, width, num_boundary_points - 1)
            edge_loc = constant_op.constant(np.tile(edge[None], [batch, 1, 1]), dtype=dst.dtype)
            dst = concat_ops.concat([dst, edge_loc], 1)
            flows = concat_ops.concat([flows, array_ops.zeros_like(edge_loc)], 1)
        flat_flows = interpolate_spline(dst, flows, grid, interpolation_order,
                                        regularization_weight)
        dense = array_ops.reshape(flat_flows, [batch, height, width, 2])
        return dense_image_warp(image, dense), dense
