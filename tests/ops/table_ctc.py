"""Op-table rows for CTCLoss (both outputs) and the CTC decoders, against references that
enumerate every alignment path."""

import itertools

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops as _ops
from tideflow.ops import ctc_ops  # noqa: F401 - registers the CTC ops

_rng = np.random.RandomState(5)
F = (tf.float32, tf.float64)


def _log_softmax(x):
    x = x.astype(np.float64)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def brute_ctc_loss(logits, labels, seq_len, merge_repeated=True):
    """-log p(label) summing exp(score) over every path that maps to the label."""
    lp = _log_softmax(logits)
    blank = logits.shape[2] - 1
    out = []
    for b, lab in enumerate(labels):
        total = -np.inf
        for path in itertools.product(range(logits.shape[2]), repeat=int(seq_len[b])):
            dec, prev = [], None
            for c in path:
                if c != blank and not (merge_repeated and c == prev):
                    dec.append(c)
                prev = c
            if dec == list(lab):
                total = np.logaddexp(total, sum(lp[t, b, c] for t, c in enumerate(path)))
        out.append(-total)
    return np.array(out)


def _split(indices, values, batch):
    return [values[indices[:, 0] == b].tolist() for b in range(batch)]


def _numeric_grad(logits, labels, seq_len):
    g = np.zeros(logits.shape)
    x = logits.astype(np.float64)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = 1e-6
        g.flat[i] = (brute_ctc_loss(x + d, labels, seq_len).sum() -
                     brute_ctc_loss(x - d, labels, seq_len).sum()) / 2e-6
    return g


LOGITS = _rng.randn(4, 2, 3)
IDX = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
VALS = np.array([1, 1, 0], np.int32)
SEQ = np.array([4, 3], np.int32)
LABELS = _split(IDX, VALS, 2)


def _loss(x, i, v, s):
    return _ops.apply_op("CTCLoss", [x, i, v, s])._outputs[0]


def _loss_grad_out(x, i, v, s):
    return _ops.apply_op("CTCLoss", [x, i, v, s])._outputs[1]


def _greedy(x, s):
    return list(_ops.apply_op("CTCGreedyDecoder", [x, s], {"merge_repeated": True})._outputs)


def _greedy_ref(x, s):
    seqs, lps = [], []
    for b in range(x.shape[1]):
        best = x[:s[b], b].argmax(-1)
        lps.append([-x[:s[b], b].max(-1).sum()])
        dec = [int(c) for t, c in enumerate(best) if c != 2 and (t == 0 or c != best[t - 1])]
        seqs.append(dec)
    idx = np.array([(b, j) for b, d in enumerate(seqs) for j in range(len(d))], np.int64)
    vals = np.array([c for d in seqs for c in d], np.int64)
    return [idx.reshape(-1, 2), vals, np.array([len(seqs), max(map(len, seqs))], np.int64),
            np.array(lps, x.dtype)]


def _beam(x, s):
    return list(_ops.apply_op("CTCBeamSearchDecoder", [x, s],
                              {"beam_width": 64, "top_paths": 1})._outputs)


def _beam_ref(x, s):
    # with a beam wider than the number of prefixes the search is exact: the most probable
    # labeling, whose log-probability sums every path onto it
    lp = _log_softmax(x)
    seqs, scores = [], []
    for b in range(x.shape[1]):
        probs = {}
        for path in itertools.product(range(3), repeat=int(s[b])):
            dec, prev = [], None
            for c in path:
                if c != 2 and c != prev:
                    dec.append(c)
                prev = c
            score = sum(lp[t, b, c] for t, c in enumerate(path))
            probs[tuple(dec)] = np.logaddexp(probs.get(tuple(dec), -np.inf), score)
        best = max(probs, key=probs.get)
        seqs.append(list(best))
        scores.append([probs[best]])
    idx = np.array([(b, j) for b, d in enumerate(seqs) for j in range(len(d))], np.int64)
    vals = np.array([c for d in seqs for c in d], np.int64)
    return [idx.reshape(-1, 2), vals, np.array([len(seqs), max(map(len, seqs))], np.int64),
            np.array(scores, x.dtype)]


CASES = [
    Case("CTCLoss", _loss, [LOGITS, IDX, VALS, SEQ],
         lambda x, i, v, s: brute_ctc_loss(x, LABELS, s).astype(x.dtype), dtypes=F,
         fixed=(1, 2, 3), rtol=1e-5, atol=1e-5),
    Case("CTCLoss", _loss_grad_out, [LOGITS, IDX, VALS, SEQ],
         lambda x, i, v, s: _numeric_grad(x, LABELS, s).astype(x.dtype), dtypes=F,
         fixed=(1, 2, 3), grad=False, rtol=1e-4, atol=1e-4, name="CTCLoss_gradient_output"),
    Case("CTCGreedyDecoder", _greedy, [_rng.randn(5, 3, 3), np.array([5, 2, 4], np.int32)],
         _greedy_ref, dtypes=F, fixed=(1,), grad=False),
    Case("CTCBeamSearchDecoder", _beam, [_rng.randn(4, 2, 3), np.array([4, 3], np.int32)],
         _beam_ref, dtypes=F, fixed=(1,), grad=False, rtol=1e-5, atol=1e-5),
]
