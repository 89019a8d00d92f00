"""tf.metrics: mean_cosine_distance, mean_relative_error, percentage_below,
mean_per_class_accuracy, sensitivity/specificity at a point, average_precision_at_k and the
*_at_top_k metrics, against NumPy references over two batches (and, where a real TensorFlow is
installed, against it)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tideflow as tf

_RNG = np.random.RandomState(0)


def _stream(build, batches):
    """Runs the metric over the batches; returns (update results, final value)."""
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.as_dtype(a.dtype), a.shape) for a in batches[0]]
        value, update = build(*phs)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            ups = [sess.run(update, dict(zip(phs, b))) for b in batches]
            return ups, sess.run(value)


def test_mean_cosine_distance_relative_error_percentage_below():
    def unit(shape):
        x = _RNG.randn(*shape)
        return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)

    b = [(unit((4, 3)), unit((4, 3))) for _ in range(2)]
    ups, val = _stream(lambda lab, pred: tf.metrics.mean_cosine_distance(lab, pred, dim=1), b)
    want = 1 - np.mean([np.sum(lab * p, 1) for lab, p in b])
    np.testing.assert_allclose(val, want, rtol=1e-5)
    np.testing.assert_allclose(ups[0], 1 - np.sum(b[0][0] * b[0][1], 1).mean(), rtol=1e-5)

    b = [(_RNG.randn(6).astype(np.float32), _RNG.randn(6).astype(np.float32),
          _RNG.randint(0, 3, 6).astype(np.float32)) for _ in range(2)]
    _, val = _stream(lambda lab, p, n: tf.metrics.mean_relative_error(lab, p, n), b)
    rel = [np.where(n == 0, 0, np.abs(lab - p) / np.where(n == 0, 1, n)) for lab, p, n in b]
    np.testing.assert_allclose(val, np.mean(rel), rtol=1e-5)

    b = [(_RNG.randn(10).astype(np.float32), _RNG.rand(10).astype(np.float32))
         for _ in range(2)]
    _, val = _stream(lambda v, w: tf.metrics.percentage_below(v, 0.25, weights=w), b)
    num = sum(np.sum((v < 0.25) * w) for v, w in b)
    np.testing.assert_allclose(val, num / sum(w.sum() for _, w in b), rtol=1e-5)


def test_mean_per_class_accuracy():
    b = [(_RNG.randint(0, 4, 12), _RNG.randint(0, 4, 12)) for _ in range(2)]
    ups, val = _stream(lambda lab, p: tf.metrics.mean_per_class_accuracy(lab, p, 5), b)
    lab = np.concatenate([x[0] for x in b])
    pred = np.concatenate([x[1] for x in b])
    per = np.array([np.mean(pred[lab == c] == c) if (lab == c).any() else 0.0
                    for c in range(5)])
    np.testing.assert_allclose(val, per.mean(), rtol=1e-5)
    np.testing.assert_allclose(ups[-1], per, rtol=1e-5)  # update_op: per-class accuracies
    with tf.Graph().as_default():
        tf.metrics.mean_per_class_accuracy([1, 2], [1, 2], 3)
        names = sorted(v.op.name for v in tf.local_variables())
        assert names == ["mean_accuracy/count", "mean_accuracy/total"]


def _counts_at(labels, probs, thresholds):
    pos = probs[None, :] > np.asarray(thresholds)[:, None]
    lab = labels.astype(bool)[None, :]
    return ((pos & lab).sum(1), (~pos & lab).sum(1), (~pos & ~lab).sum(1),
            (pos & ~lab).sum(1))


def test_sensitivity_and_specificity_at():
    probs = [_RNG.rand(30).astype(np.float32) for _ in range(2)]
    b = [((_RNG.rand(30) < p).astype(np.int64), p) for p in probs]
    n = 20
    th = [-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7]
    lab = np.concatenate([x[0] for x in b])
    pr = np.concatenate([x[1] for x in b])
    # float32, as the metric computes: nearly equal distances must tie the same way
    tp, fn, tn, fp = (c.astype(np.float32) for c in _counts_at(lab, pr, th))
    eps = np.float32(1e-7)
    spec = tn / (tn + fp + eps)
    i = np.argmin(np.abs(spec - np.float32(0.6)))
    _, val = _stream(lambda y, p: tf.metrics.sensitivity_at_specificity(
        y, p, 0.6, num_thresholds=n), b)
    np.testing.assert_allclose(val, tp[i] / (tp[i] + fn[i] + eps), rtol=1e-5)
    sens = tp / (tp + fn + eps)
    gap = np.abs(sens - np.float32(0.8))
    j = np.flatnonzero(gap == gap.min())[-1]
    _, val = _stream(lambda y, p: tf.metrics.specificity_at_sensitivity(
        y, p, 0.8, num_thresholds=n), b)
    np.testing.assert_allclose(val, tn[j] / (tn[j] + fp[j] + eps), rtol=1e-5)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="specificity"):
        tf.metrics.sensitivity_at_specificity([1], [0.5], 1.5)


def _ap_reference(labels, scores, k):
    aps = []
    for lab, sc in zip(labels.reshape(-1, labels.shape[-1]), scores.reshape(-1, scores.shape[-1])):
        top = np.argsort(-sc, kind="stable")[:k]
        lab = lab[(lab >= 0) & (lab < sc.size)]  # labels that are no class drop out
        truth = {int(x) for x in lab}
        hits, total = 0, 0.0
        for rank, c in enumerate(top, 1):
            if c in truth:
                hits += 1
                total += hits / rank
        aps.append(total / min(k, lab.size))
    return np.array(aps)


def test_average_precision_at_k():
    b = [(_RNG.randint(-1, 8, (5, 3)).astype(np.int64), _RNG.rand(5, 6).astype(np.float32))
         for _ in range(2)]
    for lab, _ in b:
        lab[:, 0] = np.abs(lab[:, 0]) % 6  # every row has a label
    ups, val = _stream(lambda lab, s: tf.metrics.average_precision_at_k(lab, s, 3), b)
    aps = np.concatenate([_ap_reference(lab, s, 3) for lab, s in b])
    np.testing.assert_allclose(val, aps.mean(), rtol=1e-10)
    np.testing.assert_allclose(ups[0], aps[:5].mean(), rtol=1e-10)
    assert tf.metrics.sparse_average_precision_at_k is tf.metrics.average_precision_at_k
    with tf.Graph().as_default(), pytest.raises(ValueError, match="k=0"):
        tf.metrics.average_precision_at_k(tf.constant([[1]]), tf.constant([[0.5, 0.5]]), 0)


def test_precision_recall_at_top_k():
    lab = np.array([[0, 2, -1], [1, 1, 3], [4, -1, -1]], np.int64)
    idx = np.array([[2, 1], [1, 0], [0, 3]], np.int64)
    _, p = _stream(lambda a, b: tf.metrics.precision_at_top_k(a, b, k=2), [(lab, idx)])
    _, r = _stream(lambda a, b: tf.metrics.recall_at_top_k(a, b), [(lab, idx)])
    tp = 1 + 1 + 0
    np.testing.assert_allclose(p, tp / 6)
    # distinct label values not predicted: {0, -1}, {3}, {4, -1}
    np.testing.assert_allclose(r, tp / (tp + 5))
    _, pc = _stream(lambda a, b: tf.metrics.precision_at_top_k(a, b, class_id=1),
                    [(lab, idx)])
    np.testing.assert_allclose(pc, 1 / 2)
    # TF 1.15: k only names the metric (precision_at_3), no check against idx's last dim
    _, p3 = _stream(lambda a, b: tf.metrics.precision_at_top_k(a, b, k=3), [(lab, idx)])
    np.testing.assert_allclose(p3, tp / 6)


_TF = "/tmp/tfvenv/bin/python"
_PROGRAM = r"""
import sys, numpy as np
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import tideflow as tf
rng = np.random.RandomState(1)
lab = rng.randint(0, 4, (2, 9)); pred = rng.randint(0, 4, (2, 9)); w = rng.rand(2, 9)
sc = rng.rand(2, 7, 5).astype(np.float32); ml = rng.randint(-1, 6, (2, 7, 3))
pr = rng.rand(2, 30).astype(np.float32); bl = (rng.rand(2, 30) < pr).astype(np.int64)
phs = [tf.placeholder(tf.as_dtype(a.dtype), a.shape[1:]) for a in (lab, pred, w, sc, ml, pr, bl)]
L, P, W, S, M, PR, BL = phs
ms = [tf.metrics.mean_per_class_accuracy(L, P, 4, weights=W),
      tf.metrics.sensitivity_at_specificity(BL, PR, 0.4),
      tf.metrics.specificity_at_sensitivity(BL, PR, 0.3, num_thresholds=30),
      tf.metrics.average_precision_at_k(M, S, 2, weights=W[:7]),
      tf.metrics.recall_at_k(M, S, 2), tf.metrics.precision_at_k(M, S, 2),
      tf.metrics.recall_at_top_k(M, tf.nn.top_k(S, 3)[1], class_id=4)]
with tf.Session() as s:
    s.run(tf.local_variables_initializer())
    for b in range(2):
        feed = {p: a[b] for p, a in zip(phs, (lab, pred, w, sc, ml, pr, bl))}
        for u in s.run([m[1] for m in ms], feed):
            print(np.round(np.asarray(u, np.float64), 5).tolist())
    for v in s.run([m[0] for m in ms]):
        print(round(float(v), 5))
"""


@pytest.mark.skipif(not os.path.exists(_TF), reason="no real TensorFlow to compare with")
def test_same_values_as_tensorflow():
    def run(which, exe):
        return subprocess.run([exe, "-c", _PROGRAM, which], capture_output=True, text=True,
                              check=True, timeout=120).stdout

    assert run("tideflow", sys.executable) == run("tf", _TF)
