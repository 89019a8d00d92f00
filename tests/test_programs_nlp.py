"""Regressions found by running TF 1.x NLP / sequence-model programs against tideflow
(programs written in the style of the TF 1.x tutorials, compared with real TensorFlow)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("make_logits", ["einsum", "transpose"])
def test_sparse_xent_gradient_of_strided_rank3_logits_subtracts_the_labels(make_logits):
    # a Transformer's tied output layer: logits = einsum('btd,vd->btv', out, embedding) fed to
    # sparse_softmax_cross_entropy_with_logits. The einsum result is not C-ordered, and the
    # kernel wrote "- onehot" into a copy, so the gradient was softmax alone and training stalled.
    rs = np.random.RandomState(0)
    a_np = rs.randn(2, 3, 4).astype(np.float32)
    e_np = rs.randn(5, 4).astype(np.float32)
    y_np = np.array([[4, 4, 4], [3, 4, 0]], np.int32)
    a, e = tf.constant(a_np), tf.constant(e_np)
    if make_logits == "einsum":
        logits = tf.einsum("btd,vd->btv", a, e)
    else:
        logits = tf.transpose(tf.einsum("btd,vd->vbt", a, e), [1, 2, 0])
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_np, logits=logits)
    (g,) = tf.gradients(tf.reduce_sum(xent), [logits])
    with tf.Session() as sess:
        got = sess.run(g)
    expect = _softmax(np.einsum("btd,vd->btv", a_np, e_np).astype(np.float64))
    expect -= np.eye(5)[y_np]
    np.testing.assert_allclose(got, expect, rtol=1e-4, atol=1e-5)


def test_cast_of_a_sparse_tensor_casts_its_values():
    # speech/OCR tutorials: label error rate of a CTC decode (int64 SparseTensor) against int32
    # sparse targets, tf.edit_distance(tf.cast(decoded[0], tf.int32), targets)
    logits = tf.constant(np.log(np.eye(3, dtype=np.float32)[[1, 1, 2, 2]] + 1e-3)[:, None, :])
    decoded, _ = tf.nn.ctc_greedy_decoder(logits, [4])
    sp = tf.cast(decoded[0], tf.int32)
    assert isinstance(sp, tf.SparseTensor) and sp.dtype == tf.int32
    assert sp.indices is decoded[0].indices
    targets = tf.SparseTensor([[0, 0], [0, 1]], tf.constant([1, 1], tf.int32), [1, 2])
    dist = tf.edit_distance(sp, targets, normalize=False)
    slices = tf.cast(tf.IndexedSlices(tf.constant([1.5, 2.5]), tf.constant([0, 2])), tf.int32)
    assert isinstance(slices, tf.IndexedSlices) and slices.dtype == tf.int32
    with tf.Session() as sess:
        values, d, sv = sess.run([sp.values, dist, slices.values])
    # greedy decode of [1, 1, blank, blank] (the last class is the blank) merges the repeat: [1]
    assert values.tolist() == [1] and values.dtype == np.int32
    assert d.tolist() == [1.0] and sv.tolist() == [1, 2]
