"""Connectionist temporal classification: the CTCLoss op (forward-backward in log space,
vectorized over the batch; its second output is the loss's gradient wrt the logits; float32 as
TF 1.15's kernel computes it, bit for bit, other types in float64), the greedy and beam-search
decoders, and ``tf.nn.ctc_*``'s Python functions."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _check_rank, _invalid, _np, _register_fold, _shape_str
from tideflow.ops.conv_ops import _merge

_NEG = -np.inf


def _check_inputs_shape(op, ranks=(3, 1)):
    """TF 1.15's shape checks of the CTC ops, in its order and words: each input's rank, then
    (CTCLoss) the labels' rows, then the batch size of inputs and sequence_length."""
    shapes = [op._inputs[i]._shape for i in range(len(ranks))]
    for shape, rank in zip(shapes, ranks):
        _check_rank(shape, rank)
    if len(ranks) == 4 and shapes[1].ndims is not None and shapes[2].ndims is not None:
        _merge(shapes[1][0].value, shapes[2][0].value)
    x, seq = shapes[0], shapes[-1]
    batch = _merge(x[1].value if x.ndims is not None else None,
                   seq[0].value if seq.ndims is not None else None)
    return x, batch


def _labels_by_batch(indices, values, batch):
    """The label rows of a ``[batch, max_label_len]`` SparseTensor, checked as TF 1.15's
    CTCLoss kernel checks them (in its order, with its words)."""
    from tideflow.framework.errors import InvalidArgumentError
    from tideflow.ops.sparse_ops import _validate_index_order

    if indices.shape[1] != 2:
        raise _invalid("Order length must be SparseTensor rank.")
    max_len = max(0, int(indices[:, 1].max()) + 1) if len(indices) else 0
    try:
        _validate_index_order(indices, np.array([batch, max_len]))
    except InvalidArgumentError as e:
        raise _invalid(f"label SparseTensor is not valid: {e.message}") from None
    return [values[indices[:, 0] == b].astype(np.int64) for b in range(batch)]


def _label_sequence(b, label, num_classes, collapse):
    """TF's PopulateLPrimes for one row: a label of the blank class or above ends the
    sequence (later ones are dropped), a real label after it is an error."""
    seen, finished = [], False
    for i, v in enumerate(label.tolist()):
        if i and collapse and v == label[i - 1]:
            continue
        if v >= num_classes - 1:
            finished = True
        elif finished:
            raise _invalid(
                f"Saw a non-null label (index >= num_classes - 1) following a null label, "
                f"batch: {b} num_classes: {num_classes} labels: "
                f"{','.join(map(str, label.tolist()))} labels seen so far: "
                f"{','.join(map(str, seen))}")
        else:
            seen.append(v)
    if any(v < 0 for v in seen):
        raise _invalid(f"All labels must be nonnegative integers, batch: {b} labels: "
                       f"{','.join(map(str, seen))}")
    return np.asarray(seen, np.int64)


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    z = x - m
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def _lse(a, b):
    m = np.maximum(a, b)
    safe = np.where(np.isfinite(m), m, 0)
    with np.errstate(invalid="ignore"):
        out = safe + np.log(np.exp(a - safe) + np.exp(b - safe))
    return np.where(np.isneginf(m), _NEG, out)


def ctc_forward_backward(logits, seq_len, labels, merge_repeated=True):
    """Loss ``-log p(labels | logits)`` and its gradient wrt the (unnormalized) logits.

    logits ``[T, B, C]`` (float64), seq_len ``[B]``, labels a list of B int arrays (blank is
    ``C - 1``). Log-space alpha/beta recursions over the extended label ``l'`` (blanks around
    every label), one NumPy step per time step for the whole batch.
    """
    t_max, batch, num_classes = logits.shape
    blank = num_classes - 1
    lp = _log_softmax(logits)  # [T, B, C]
    lmax = max((len(lab) for lab in labels), default=0)
    s_max = max(2 * lmax + 1, 3)  # (padded: the recursions below look two labels back)
    ext = np.full((batch, s_max), blank, np.int64)
    s_len = np.zeros(batch, np.int64)
    for b, lab in enumerate(labels):
        ext[b, 1:2 * len(lab):2] = lab
        s_len[b] = 2 * len(lab) + 1
    pos = np.arange(s_max)
    valid = pos[None, :] < s_len[:, None]  # [B, S]
    # the s-2 -> s skip: onto a label, from a different label (or the same one when repeats
    # are not merged)
    prev2 = np.concatenate([np.full((batch, 2), -1), ext[:, :-2]], axis=1)
    skip = (ext != blank) & (pos[None, :] >= 2)
    if merge_repeated:
        skip &= ext != prev2
    stay = np.ones_like(skip) if merge_repeated else (ext == blank)
    bidx = np.arange(batch)[:, None]
    # y[t, b, s] = log p(l'[b, s] at t)
    y = np.where(valid[None], lp[:, bidx, ext], _NEG)  # [T, B, S]

    def step(prev):
        a = np.where(stay, prev, _NEG)
        a = _lse(a, np.concatenate([np.full((batch, 1), _NEG), prev[:, :-1]], axis=1))
        return _lse(a, np.where(skip, np.concatenate(
            [np.full((batch, 2), _NEG), prev[:, :-2]], axis=1), _NEG))

    alpha = np.full((t_max, batch, s_max), _NEG)
    if t_max:
        alpha[0, :, :2] = y[0, :, :2]
    for t in range(1, t_max):
        alpha[t] = step(alpha[t - 1]) + y[t]
    # beta[t] excludes y[t]: the probability of finishing from (s, t) given we are there
    beta = np.full((t_max, batch, s_max), _NEG)
    end = np.full((batch, s_max), _NEG)
    end[pos[None, :] == (s_len - 1)[:, None]] = 0.0
    end[(pos[None, :] == (s_len - 2)[:, None])] = 0.0
    # the reverse step: from s to s, s+1 and (where s+2 may skip from s) s+2
    skip_from = np.zeros_like(skip)
    skip_from[:, :max(s_max - 2, 0)] = skip[:, 2:]
    stay_from = stay
    for t in range(t_max - 1, -1, -1):
        nxt = beta[t + 1] + y[t + 1] if t + 1 < t_max else np.full((batch, s_max), _NEG)
        b = np.where(stay_from, nxt, _NEG)
        b = _lse(b, np.concatenate([nxt[:, 1:], np.full((batch, 1), _NEG)], axis=1))
        b = _lse(b, np.where(skip_from, np.concatenate(
            [nxt[:, 2:], np.full((batch, 2), _NEG)], axis=1), _NEG))
        last = (seq_len - 1) == t
        b[last] = end[last]
        # TF 1.15 starts beta at (U'-2, T-1) and (U'-1, T-1); for an empty label (U' = 1) the
        # first lands, column-major, on (0, T-2), so that cell starts at log 1 rather than log 0
        # and an all-blank row scores p(blank)_0..T-2 * (1 + p(blank)_{T-1})
        early = (s_len == 1) & (seq_len - 2 == t)
        b[early, 0] = _lse(b[early, 0], 0.0)
        b[t >= seq_len] = _NEG
        beta[t] = b
    tl = np.clip(seq_len - 1, 0, None)
    fin = alpha[tl, np.arange(batch)]  # [B, S]
    log_p = _lse(np.take_along_axis(fin, (s_len - 1)[:, None], 1)[:, 0],
                 np.where(s_len >= 2, np.take_along_axis(
                     fin, np.clip(s_len - 2, 0, None)[:, None], 1)[:, 0], _NEG))
    if t_max:
        # TF's likelihood is sum_u alpha(u, 0) * beta(u, 0): the rows above differ from alpha's end
        log_p = np.where((s_len == 1) & (seq_len >= 2), alpha[0, :, 0] + beta[0, :, 0], log_p)
    log_p = np.where(seq_len > 0, log_p, np.where(s_len == 1, 0.0, _NEG))
    # d loss / d logits = softmax - sum_{s: l'[s] = k} alpha * beta / p
    with np.errstate(invalid="ignore", over="ignore"):
        occ = np.exp(alpha + beta - log_p[None, :, None])
    occ = np.where(np.isfinite(occ), occ, 0.0)
    onehot = np.zeros((batch, s_max, num_classes))
    onehot[np.arange(batch)[:, None], pos[None, :], ext] = valid
    grad = np.exp(lp) - np.einsum("tbs,bsc->tbc", occ, onehot)
    live = np.arange(t_max)[:, None] < seq_len[None, :]
    grad = np.where(live[..., None], grad, 0.0)
    grad = np.where(np.isfinite(log_p)[None, :, None], grad, 0.0)
    return -log_p, grad


# -- TF 1.15's float CTC, bit for bit ------------------------------------------------------------
# TF's CTCLossCalculator works per batch row in float: a softmax over each (t, b) row (Eigen's
# packet exp over whole 8-float packets, glibc expf on the tail, Eigen's redux sum), log-space
# alpha/beta with glibc logf, and LogSumExp(a, b) = max + log1pf(expf(min - max)) taken one
# term at a time in TF's order. The recursions here run over all rows at once, per time step.

def _f32_lse(a, b):
    """TF's ctc LogSumExp: the other argument where one is -inf, else max + log1pf(expf(d))."""
    from tideflow.ops import eigen_float32, glibc_float32

    out = np.where(a == _NEG, b, a)  # (b where a is -inf, a where b is)
    both = (a != _NEG) & (b != _NEG)
    if both.any():
        aa, bb = a[both], b[both]
        hi = np.maximum(aa, bb)
        out[both] = hi + glibc_float32.log1pf(eigen_float32._expf(np.minimum(aa, bb) - hi,
                                                                  nonpositive=True))
    return out


def _eigen_row_sum(e):
    """Eigen's linear redux sum of each row of ``e`` (float32, last axis): two packet
    accumulators over whole 8-float packets, folded as AVX/SSE predux does, then the tail."""
    n = e.shape[-1]
    full = n // 8 * 8
    if not full:
        acc = e[..., 0].copy()
        for i in range(1, n):
            acc += e[..., i]
        return acc
    r0 = e[..., 0:8].copy()
    end2 = n // 16 * 16
    if full > 8:
        r1 = e[..., 8:16].copy()
        for i in range(16, end2, 16):
            r0 += e[..., i:i + 8]
            r1 += e[..., i + 8:i + 16]
        r0 += r1
        if end2 < full:
            r0 += e[..., end2:end2 + 8]
    h = r0[..., :4] + r0[..., 4:]
    acc = (h[..., 0] + h[..., 2]) + (h[..., 1] + h[..., 3])
    for i in range(full, n):
        acc += e[..., i]
    return acc


def _ctc_float32(x, seq_len, labels, merge_repeated):
    from tideflow.ops import eigen_float32, glibc_float32

    f32, neg = np.float32, np.float32(-np.inf)
    t_max, batch, num_classes = x.shape
    blank = num_classes - 1
    # the softmax of each row
    z = x - x.max(-1, keepdims=True)
    full = num_classes // 8 * 8
    e = np.empty_like(z)
    if full:
        e[..., :full] = eigen_float32._packet_exp(
            np.ascontiguousarray(z[..., :full]).reshape(-1)).reshape(t_max, batch, full)
    if full < num_classes:
        e[..., full:] = eigen_float32._expf(z[..., full:], nonpositive=True)
    e = eigen_float32._flush_denormals(e)
    y = e / _eigen_row_sum(e)[..., None]
    # the extended labels l' (blank, l1, blank, ..., blank), padded with blanks
    s_max = max(2 * max(len(lab) for lab in labels) + 1, 1)
    ext = np.full((batch, s_max), blank, np.int64)
    u_len = np.array([2 * len(lab) + 1 for lab in labels], np.int64)
    for b, lab in enumerate(labels):
        ext[b, 1:2 * len(lab):2] = lab
    pos = np.arange(s_max)
    bidx = np.arange(batch)[:, None]
    gathered = y[:, bidx, ext]  # [T, B, S]
    with np.errstate(divide="ignore"):
        logy = glibc_float32.logf(gathered.reshape(-1)).reshape(gathered.shape)
    stay = np.ones((batch, s_max), bool) if merge_repeated else ext == blank
    prev2 = np.full_like(ext, -1)
    prev2[:, 2:] = ext[:, :-2]
    skip = (ext != blank) & (pos[None, :] >= 2)
    if merge_repeated:
        skip &= ext != prev2
    t_b = seq_len.astype(np.int64)
    live = t_b > 0
    alpha = np.full((t_max, batch, s_max), neg, f32)
    beta = np.full((t_max, batch, s_max), neg, f32)
    if t_max:
        alpha[0, live, 0] = logy[0, live, 0]
        if s_max > 1:  # (with U' = 1 TF's write of (1, 0) lands outside the row's alphas)
            two = live & (u_len > 1)
            alpha[0, two, 1] = logy[0, two, 1]

    def window(t):  # the (u, t) TF visits: enough time left, no label skipped
        lo = np.maximum(0, u_len - 2 * (t_b - t))
        hi = np.minimum(u_len, 2 * (t + 1))
        return (pos[None, :] >= lo[:, None]) & (pos[None, :] < hi[:, None]) & (t < t_b)[:, None]

    def down(a, k):  # a[:, u - k] at u (-inf above)
        out = np.full_like(a, neg)
        out[:, k:] = a[:, :s_max - k] if k < s_max else out[:, k:]
        return out

    def up(a, k):  # a[:, u + k] at u (-inf beyond)
        out = np.full_like(a, neg)
        out[:, :s_max - k] = a[:, k:] if k < s_max else out[:, :0]
        return out

    for t in range(1, t_max):
        prev = alpha[t - 1]
        acc = np.where(stay, prev, neg)
        acc = _f32_lse(acc, down(prev, 1))
        acc = _f32_lse(acc, np.where(skip, down(prev, 2), neg))
        alpha[t] = np.where(window(t), logy[t] + acc, neg)
    # beta starts at log 1 in the last two rows at T-1; with U' = 1 TF's (U'-2, T-1) lands,
    # column-major, on (0, T-2)
    for b in np.nonzero(live)[0]:
        beta[t_b[b] - 1, b, u_len[b] - 1] = 0
        if u_len[b] >= 2:
            beta[t_b[b] - 1, b, u_len[b] - 2] = 0
        elif t_b[b] >= 2:
            beta[t_b[b] - 2, b, 0] = 0
    skip_from = np.zeros_like(skip)
    skip_from[:, :max(s_max - 2, 0)] = skip[:, 2:]
    for t in range(t_max - 2, -1, -1):
        w = window(t) & (t < t_b - 1)[:, None]
        nxt = beta[t + 1] + logy[t + 1]
        acc = beta[t]
        acc = np.where(w & stay, _f32_lse(acc, nxt), acc)
        acc = np.where(w, _f32_lse(acc, up(nxt, 1)), acc)
        acc = np.where(w & skip_from, _f32_lse(acc, up(nxt, 2)), acc)
        beta[t] = acc
    # log p(z|x): sum over u of alpha(u, 0) beta(u, 0), one term after another
    log_p = np.full(batch, neg, f32)
    ab = alpha + beta
    for u in range(s_max):
        log_p = np.where(u < u_len, _f32_lse(log_p, ab[0, :, u] if t_max else log_p), log_p)
    # the gradient: y - exp(sum over u with l'(u) = k of alpha beta - log p), per label k
    prob = np.full((t_max, batch, num_classes), neg, f32)
    tb = np.arange(batch)
    for u in range(s_max):
        k = ext[:, u]
        cur = prob[:, tb, k]
        prob[:, tb, k] = np.where((u < u_len)[None, :], _f32_lse(cur, ab[:, :, u]), cur)
    with np.errstate(invalid="ignore"):
        shifted = prob - log_p[None, :, None]
    neg_term = eigen_float32._expf(np.where(np.isnan(shifted), f32(-200), shifted))
    grad = np.where(np.isneginf(log_p)[None, :, None], y, y - neg_term)
    steps = np.arange(t_max)[:, None] < t_b[None, :]
    grad = np.where(steps[..., None], grad, f32(0)).astype(f32)
    loss = np.where(live, -log_p, f32(0)).astype(f32)
    return loss, grad


def _collapse(lab):
    if len(lab) == 0:
        return lab
    keep = np.concatenate([[True], lab[1:] != lab[:-1]])
    return lab[keep]


def _ctc_loss_kernel(inputs, labels_indices, labels_values, sequence_length, *,
                     preprocess_collapse_repeated, ctc_merge_repeated,
                     ignore_longer_outputs_than_inputs):
    x, seq = _np(inputs), _np(sequence_length)
    idx, vals = _np(labels_indices), _np(labels_values)
    for arr, ndim, what in ((x, 3, "inputs is not a 3-Tensor"),
                            (seq, 1, "sequence_length is not a vector"),
                            (idx, 2, "labels_indices is not a matrix"),
                            (vals, 1, "labels_values is not a vector")):
        if arr.ndim != ndim:
            raise _invalid(what)
    t_max, batch, num_classes = x.shape
    if seq.shape[0] != batch:
        raise _invalid(f"len(sequence_length) != batch_size.  len(sequence_length):  "
                       f"{seq.shape[0]} batch_size: {batch}")
    if idx.shape[0] != vals.shape[0]:
        raise _invalid(f"labels_indices and labels_values must contain the same number of "
                       f"rows, but saw shapes: {_shape_str(idx.shape)} vs. "
                       f"{_shape_str(vals.shape)}")
    if batch == 0:
        raise _invalid("batch_size must not be 0")
    raw = _labels_by_batch(idx.astype(np.int64), vals, batch)
    seq = seq.astype(np.int64)
    for b in range(batch):
        if seq[b] > t_max:
            raise _invalid(f"sequence_length({b}) <= {t_max}")
    for b in range(batch):
        if seq[b] < 0:
            raise _invalid(f"seq_len({b}) < 0")
    labels = []
    for b, lab in enumerate(raw):
        if len(lab) == 0:
            raise _invalid(f"Labels length is zero in batch {b}")
        labels.append(_label_sequence(b, lab, num_classes, preprocess_collapse_repeated))
        # TF counts the labels as given (before collapsing and the blank's end)
        if not ignore_longer_outputs_than_inputs and len(lab) > seq[b]:
            raise _invalid(
                f"Not enough time for target transition sequence (required: {len(lab)}, "
                f"available: {seq[b]}){b}You can turn this error into a warning by using the "
                f"flag ignore_longer_outputs_than_inputs")
    skipped = np.array([seq[b] == 0 or (ignore_longer_outputs_than_inputs
                                        and len(raw[b]) > seq[b]) for b in range(batch)])
    if x.dtype == np.float32:  # TF 1.15's float arithmetic, bit for bit
        loss, grad = _ctc_float32(x, seq, labels, ctc_merge_repeated)
    else:
        loss, grad = ctc_forward_backward(x.astype(np.float64), seq, labels, ctc_merge_repeated)
    loss[skipped] = 0.0
    grad[:, skipped] = 0.0
    return loss.astype(x.dtype), grad.astype(x.dtype)


def _ctc_loss_shape(op):
    x, batch = _check_inputs_shape(op, (3, 2, 1, 1))
    grad = TensorShape([None] * 3) if x.ndims is None else TensorShape([x[0], batch, x[2]])
    return [TensorShape([batch]), grad]


def _ctc_loss_grad(op, grad_loss, _):
    from tideflow.ops import array_ops
    from tideflow.ops.gradients import dense

    # the op's own gradient output; a second derivative is an error, as in TF
    g = array_ops.prevent_gradient(
        op._outputs[1], message="Currently there is no way to take the second derivative of "
        "ctc_loss due to the fused implementation's interaction with tf.gradients()")
    return [array_ops.expand_dims(dense(grad_loss), -1) * g, None, None, None]


op_registry.declare(
    "CTCLoss",
    inputs=["inputs: T", "labels_indices: int64", "labels_values: int32",
            "sequence_length: int32"],
    outputs=["loss: T", "gradient: T"],
    attrs=["preprocess_collapse_repeated: bool = false", "ctc_merge_repeated: bool = true",
           "ignore_longer_outputs_than_inputs: bool = false", "T: {float, double} = DT_FLOAT"],
    shape=_ctc_loss_shape,
    kernel=_ctc_loss_kernel,
    grad=_ctc_loss_grad,
)


# -- decoders ---------------------------------------------------------------------------------


def _decoder_checks(x, seq, op_type):
    """TF 1.15's checks of the decoders' inputs, in its order and words (a length past the
    inputs' time is a FailedPrecondition; a negative one decodes nothing)."""
    from tideflow.framework import errors

    if x.ndim != 3:
        raise _invalid("inputs is not a 3-Tensor")
    t_max, batch, _ = x.shape
    if t_max == 0:
        raise _invalid("max_time is 0")
    if seq.ndim != 1:
        raise _invalid("sequence_length is not a vector")
    if seq.shape[0] != batch:
        raise errors.FailedPreconditionError(
            None, None, f"len(sequence_length) != batch_size.  len(sequence_length):  "
            f"{seq.shape[0]} batch_size: {batch}")
    for b in range(batch):
        if seq[b] > t_max:
            raise errors.FailedPreconditionError(None, None, f"sequence_length({b}) <= {t_max}")


def _to_sparse(seqs):
    batch = len(seqs)
    width = max((len(s) for s in seqs), default=0)
    idx = [(b, j) for b, s in enumerate(seqs) for j in range(len(s))]
    indices = np.array(idx, np.int64).reshape(-1, 2)
    values = np.array([v for s in seqs for v in s], np.int64)
    return indices, values, np.array([batch, width], np.int64)


def _greedy_kernel(inputs, sequence_length, *, merge_repeated, blank_index):
    x = _np(inputs)
    seq = _np(sequence_length).astype(np.int64)
    _decoder_checks(x, seq, "CTCGreedyDecoder")
    _, batch, num_classes = x.shape
    blank = blank_index + num_classes if blank_index < 0 else blank_index
    if not 0 <= blank < num_classes:
        raise _invalid(f"CTCGreedyDecoder: blank_index must be in [0, {num_classes}), got "
                       f"{blank_index}")
    log_prob = np.zeros((batch, 1), x.dtype)
    seqs = []
    for b in range(batch):
        n = int(seq[b])
        if n <= 0:
            seqs.append([])
            continue
        best = x[:n, b].argmax(-1)
        # TF's kernel starts at 0 and adds -max step by step: its rounding, and +0.0 (not
        # -0.0) for all-zero maxima
        log_prob[b, 0] = np.cumsum(-x[:n, b].max(-1))[-1] + 0
        prev = np.concatenate([[-1], best[:-1]])
        keep = best != blank
        if merge_repeated:
            keep &= best != prev
        seqs.append(best[keep].tolist())
    indices, values, shape = _to_sparse(seqs)
    return indices, values, shape, log_prob


def _decoder_shape(op, top_paths):
    _, batch = _check_inputs_shape(op)
    sparse = [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]
    out = [s for s in sparse for _ in range(top_paths)]
    return out + [TensorShape([batch, top_paths])]


op_registry.declare(
    "CTCGreedyDecoder",
    inputs=["inputs: T", "sequence_length: int32"],
    outputs=["decoded_indices: int64", "decoded_values: int64", "decoded_shape: int64",
             "log_probability: T"],
    attrs=["merge_repeated: bool = false", "blank_index: int = -1",
           "T: {float, double} = DT_FLOAT"],
    newer_attrs=["blank_index"],  # TF 2.3's
    shape=lambda op: _decoder_shape(op, 1),
    kernel=_greedy_kernel,
    differentiable=False,
)


def _prefix_beam_search(lp, beam_width):
    """Prefix beam search over log-probabilities ``lp [T, C]`` (blank ``C - 1``): the surviving
    prefixes with their (blank-ending, label-ending) log-probabilities. Each step scores every
    beam's blank/repeat continuation and all its one-label extensions as arrays; extensions
    that reach another surviving beam are merged into it."""
    num_labels = lp.shape[1] - 1
    prefixes = [()]
    pb = np.array([0.0])
    pl = np.array([_NEG])
    labels = np.arange(num_labels)
    for t in range(lp.shape[0]):
        row = lp[t]
        total = np.logaddexp(pb, pl)
        last = np.array([p[-1] if p else -1 for p in prefixes])
        # staying: a blank after anything, or the last label repeated (merged)
        stay_b = total + row[-1]
        stay_l = np.where(last >= 0, pl + row[np.maximum(last, 0)], _NEG)
        # extending with label c: after a blank only when c repeats the last label
        ext = np.where(labels[None, :] == last[:, None], pb[:, None], total[:, None]) + \
            row[None, :num_labels]
        index = {p: k for k, p in enumerate(prefixes)}
        for k, p in enumerate(prefixes):
            parent = index.get(p[:-1]) if p else None
            if parent is not None:
                stay_l[k] = np.logaddexp(stay_l[k], ext[parent, p[-1]])
                ext[parent, p[-1]] = _NEG
        scores = np.concatenate([np.logaddexp(stay_b, stay_l), ext.reshape(-1)])
        n = min(beam_width, int(np.isfinite(scores).sum()) or 1)
        keep = np.argpartition(-scores, n - 1)[:n] if n < scores.size else np.arange(
            scores.size)
        keep = keep[np.argsort(-scores[keep], kind="stable")]
        new_prefixes, new_b, new_l = [], [], []
        for j in keep:
            if j < len(prefixes):
                new_prefixes.append(prefixes[j])
                new_b.append(stay_b[j])
                new_l.append(stay_l[j])
            else:
                k, c = divmod(int(j) - len(prefixes), num_labels)
                new_prefixes.append(prefixes[k] + (c,))
                new_b.append(_NEG)
                new_l.append(ext[k, c])
        prefixes, pb, pl = new_prefixes, np.array(new_b), np.array(new_l)
    return {p: (float(b), float(l_)) for p, b, l_ in zip(prefixes, pb, pl)}


def _beam_kernel(inputs, sequence_length, *, beam_width, top_paths, merge_repeated):
    x = _np(inputs)
    seq = _np(sequence_length).astype(np.int64)
    _decoder_checks(x, seq, "CTCBeamSearchDecoder")
    if top_paths > beam_width:
        raise _invalid("requested more paths than the beam width.")
    _, batch, _ = x.shape
    lp = _log_softmax(x.astype(np.float64))
    paths = [[] for _ in range(top_paths)]
    log_prob = np.zeros((batch, top_paths), x.dtype)
    for b in range(batch):
        beams = _prefix_beam_search(lp[:max(int(seq[b]), 0), b], beam_width)
        ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        if len(ranked) < top_paths:
            raise _invalid("Less leaves in the beam search than requested.")
        for i in range(top_paths):
            prefix, (pb, pl) = ranked[i]
            lab = np.array(prefix, np.int64)
            if merge_repeated:  # TF merges repeats within the decoded prefix too
                lab = _collapse(lab)
            paths[i].append(lab.tolist())
            log_prob[b, i] = np.logaddexp(pb, pl)
    sparse = [_to_sparse(p) for p in paths]
    return ([s[0] for s in sparse] + [s[1] for s in sparse] + [s[2] for s in sparse] +
            [log_prob])


def _beam_shape(op):
    return _decoder_shape(op, op._attrs["top_paths"])


op_registry.declare(
    "CTCBeamSearchDecoder",
    inputs=["inputs: T", "sequence_length: int32"],
    outputs=["decoded_indices: top_paths * int64", "decoded_values: top_paths * int64",
             "decoded_shape: top_paths * int64", "log_probability: T"],
    attrs=["beam_width: int >= 1", "top_paths: int >= 1", "merge_repeated: bool = true",
           "T: {float, double} = DT_FLOAT"],
    shape=_beam_shape,
    kernel=_beam_kernel,
    differentiable=False,
)


# -- public API -------------------------------------------------------------------------------


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False, time_major=True,
             logits=None):
    """CTC loss per batch element (TF 1.x): ``labels`` a SparseTensor of int32 class ids,
    ``inputs`` unnormalized logits ``[max_time, batch, num_classes]`` (blank is the last
    class), ``sequence_length [batch]``."""
    if not isinstance(labels, SparseTensor) and isinstance(inputs, SparseTensor):
        labels, inputs = inputs, labels  # 0.x's ctc_loss(inputs, labels, sequence_length)
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    if inputs is None:
        inputs = logits
    elif logits is not None:
        raise ValueError("ctc_loss: pass inputs or logits, not both")
    # as TF 1.15: no name scope of its own, so the loss is "CTCLoss:0"
    if not time_major:
        from tideflow.ops import array_ops

        inputs = array_ops.transpose(inputs, [1, 0, 2])
    values = labels.values
    if values.dtype.base_dtype != dtypes.int32:
        from tideflow.ops import cast_ops

        values = cast_ops.cast(values, dtypes.int32)
    op = ops.apply_op("CTCLoss", [inputs, labels.indices, values, sequence_length], {
        "preprocess_collapse_repeated": preprocess_collapse_repeated,
        "ctc_merge_repeated": ctc_merge_repeated,
        "ignore_longer_outputs_than_inputs": ignore_longer_outputs_than_inputs})
    return op._outputs[0]


def _dense_labels_to_sparse(dense, length):
    from tideflow.ops import array_ops, cast_ops, gather_ops, range_ops
    from tideflow.ops.math_ops import less

    dense = ops.convert_to_tensor(dense, name="labels")
    length = cast_ops.cast(ops.convert_to_tensor(length, name="label_length"), dtypes.int32)
    width = array_ops.shape(dense)[1]
    mask = less(array_ops.expand_dims(range_ops.range(width), 0),
                array_ops.expand_dims(length, 1))
    indices = gather_ops.where(mask)
    values = gather_ops.gather_nd(dense, indices)
    shape = cast_ops.cast(array_ops.shape(dense), dtypes.int64)
    return SparseTensor(indices, values, shape)


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True,
                unique=None, blank_index=None, name=None):
    """CTC loss (TF 2 signature): dense ``labels [batch, max_label_len]`` with
    ``label_length``, or a SparseTensor; ``blank_index`` defaults to 0 and is moved to the last
    class."""
    del unique  # an optimization hint only
    from tideflow.ops import array_ops, cast_ops, math_ops
    from tideflow.ops.concat_ops import concat

    if isinstance(labels, SparseTensor):
        # TF 1.15: no scope of its own, the blank moved last, and ctc_loss's defaults (labels
        # longer than their inputs are an error)
        if blank_index is None:
            raise ValueError("blank_index must be given when using SparseTensor labels.")
        # (TF's _get_dim: a NumPy array's own shape, a tensor's static one, else its run-time)
        shape = logits.get_shape() if isinstance(logits, ops.Tensor) else None
        last = (np.shape(logits)[2] if shape is None else shape[2].value
                or array_ops.shape(logits)[2])
        if blank_index < 0:
            blank_index += last
        if blank_index != last - 1:
            from tideflow.ops.gather_ops import where

            logits = concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                             logits[:, :, blank_index:blank_index + 1]], axis=2)
            labels = SparseTensor(labels.indices,
                                  where(labels.values < blank_index, labels.values,
                                        labels.values - 1), labels.dense_shape)
        return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length,
                        time_major=logits_time_major)
    with ops.name_scope(name, "ctc_loss_dense"):
        logits = ops.convert_to_tensor(logits, name="logits")
        if not logits_time_major:
            logits = array_ops.transpose(logits, [1, 0, 2])
        if not isinstance(labels, SparseTensor):
            if label_length is None:
                raise ValueError("ctc_loss_v2: label_length is needed with dense labels")
            labels = _dense_labels_to_sparse(labels, label_length)
        if blank_index is None:
            blank_index = 0
        num_classes = logits.get_shape()[-1].value if logits.get_shape().ndims else None
        values = cast_ops.cast(labels.values, dtypes.int32)
        if blank_index < 0:
            if num_classes is None:
                raise ValueError("ctc_loss_v2: a negative blank_index needs a known number of "
                                 "classes")
            blank_index += num_classes
        if num_classes is None or blank_index != num_classes - 1:
            logits = concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                             logits[:, :, blank_index:blank_index + 1]], axis=2)
            values = values - cast_ops.cast(math_ops.greater(values, blank_index), dtypes.int32)
        labels = SparseTensor(labels.indices, values, labels.dense_shape)
        return ctc_loss(labels, logits, logit_length, ignore_longer_outputs_than_inputs=True)


def dense_labels_to_sparse(dense, length):
    """Dense ``labels [batch, max_len]`` with ``length [batch]`` as a SparseTensor."""
    return _dense_labels_to_sparse(dense, length)


def ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major=True,
                   unique=None, blank_index=0, name=None):
    """CTC loss of dense ``labels`` (TF's ``ctc_loss_dense``: ``blank_index`` 0 by default)."""
    return ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major, unique,
                       blank_index, name)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding: per time step the most likely class, repeats merged, blanks (class
    ``blank_index``, default the last) dropped. Returns ``([SparseTensor decoded],
    log_probability [batch, 1])``."""
    op = ops.apply_op("CTCGreedyDecoder", [inputs, sequence_length],
        {"merge_repeated": merge_repeated,
         "blank_index": -1 if blank_index is None else int(blank_index)})
    ix, vals, shape, log_prob = op._outputs
    return [SparseTensor(ix, vals, shape)], log_prob


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1,
                            merge_repeated=True):
    """Prefix beam search decoding; returns ``(top_paths SparseTensors, log_probability
    [batch, top_paths])``."""
    op = ops.apply_op("CTCBeamSearchDecoder", [inputs, sequence_length],
        {"beam_width": beam_width, "top_paths": top_paths, "merge_repeated": merge_repeated})
    outs = op._outputs
    k = top_paths
    decoded = [SparseTensor(outs[i], outs[k + i], outs[2 * k + i]) for i in range(k)]
    return decoded, outs[3 * k]


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """:func:`ctc_beam_search_decoder` without merging repeated labels (TF 2)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths,
                                   merge_repeated=False)


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of repeated labels in ``labels [batch, max_len]``; returns the
    left-aligned, zero-padded labels and their new lengths."""
    from tideflow.ops import array_ops, cast_ops, gather_ops, math_ops, range_ops, reduction_ops
    from tideflow.ops.concat_ops import concat

    with ops.name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = ops.convert_to_tensor(labels, name="labels")
        seq_length = ops.convert_to_tensor(seq_length, name="seq_length")
        width = array_ops.shape(labels)[1]
        differs = math_ops.not_equal(labels[:, 1:], labels[:, :-1])
        first = array_ops.ones_like(labels[:, :1], dtype=dtypes.bool)
        keep = concat([first, differs], 1)
        in_seq = math_ops.less(array_ops.expand_dims(range_ops.range(width), 0),
                               array_ops.expand_dims(cast_ops.cast(seq_length, dtypes.int32), 1))
        keep = math_ops.logical_and(keep, in_seq)
        new_len = reduction_ops.reduce_sum(cast_ops.cast(keep, dtypes.int32), axis=1)
        # the kept labels move left: position = running count of kept labels - 1
        pos = reduction_ops.cumsum(cast_ops.cast(keep, dtypes.int32), axis=1) - 1
        where = gather_ops.where(keep)
        rows = where[:, 0]
        cols = gather_ops.gather_nd(pos, where)
        vals = gather_ops.gather_nd(labels, where)
        out_width = reduction_ops.reduce_max(new_len)
        idx = array_ops.stack([rows, cast_ops.cast(cols, dtypes.int64)], axis=1)
        shape = cast_ops.cast(array_ops.stack([array_ops.shape(labels)[0], out_width]),
                              dtypes.int64)
        dense = gather_ops.scatter_nd(idx, vals, shape)
        return dense, cast_ops.cast(new_len, seq_length.dtype)


def ctc_unique_labels(labels, name=None):
    """Per row, the unique labels in order of first appearance (zero-padded) and each label's
    index into them, as ``tf.unique`` row by row."""
    from tideflow.ops import array_ops, cast_ops, gather_ops, math_ops, range_ops, reduction_ops

    with ops.name_scope(name, "ctc_unique_labels", [labels]):
        labels = ops.convert_to_tensor(labels, name="labels")
        if labels.get_shape().ndims not in (None, 2):
            raise ValueError(f"ctc_unique_labels: labels must be 2-D, got shape "
                             f"{labels.get_shape()}")
        width = array_ops.shape(labels)[1]
        eq = math_ops.equal(array_ops.expand_dims(labels, 2), array_ops.expand_dims(labels, 1))
        steps = range_ops.range(width)
        earlier = math_ops.less(array_ops.expand_dims(steps, 0), array_ops.expand_dims(steps, 1))
        # first[b, j]: no k < j holds the same label
        first = math_ops.logical_not(reduction_ops.reduce_any(
            math_ops.logical_and(eq, earlier), axis=2))
        rank = reduction_ops.cumsum(cast_ops.cast(first, dtypes.int32), axis=1) - 1
        # each label's index: the rank at its first occurrence (the first k equal to it)
        first_k = reduction_ops.argmax(cast_ops.cast(eq, dtypes.int32), axis=2,
                                       output_type=dtypes.int32)
        rows = array_ops.expand_dims(range_ops.range(array_ops.shape(labels)[0]), 1)
        idx = gather_ops.gather_nd(rank, array_ops.stack(
            [rows + array_ops.zeros_like(first_k), first_k], axis=2))
        where = gather_ops.where(first)
        scatter_idx = array_ops.stack(
            [where[:, 0], cast_ops.cast(gather_ops.gather_nd(rank, where), dtypes.int64)], 1)
        uniq = gather_ops.scatter_nd(scatter_idx, gather_ops.gather_nd(labels, where),
                                     cast_ops.cast(array_ops.shape(labels), dtypes.int64))
        uniq = cast_ops.cast(uniq, dtypes.int64)
        uniq.set_shape(labels.get_shape())
        idx.set_shape(labels.get_shape())
        return [uniq, idx]  # a list, as TF 1.15's map_fn

# as TF's shape refiner: decoding constant inputs gives a dense shape known when built
_register_fold("CTCGreedyDecoder", "CTCBeamSearchDecoder")
