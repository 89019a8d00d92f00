"""tf.nn.ctc_*: the TF 1.x and 2.x loss signatures, their options and errors, the decoders'
options, collapse_repeated and ctc_unique_labels, against path enumeration and loops."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.table_ctc import brute_ctc_loss
from tideflow.ops import ctc_ops as ctc

_rng = np.random.RandomState(9)
X = _rng.randn(5, 2, 4)
LABELS = [[1, 1, 2], [0]]


def _sparse(labels):
    idx = [[b, j] for b, lab in enumerate(labels) for j in range(len(lab))]
    vals = [v for lab in labels for v in lab]
    return tf.SparseTensor(idx, np.array(vals, np.int32), [len(labels), max(map(len, labels))])


def _run(t):
    with tf.Session() as s:
        return s.run(t)


def test_ctc_loss_options_match_path_enumeration():
    seq = np.array([5, 3])
    with tf.Graph().as_default():
        sp = _sparse(LABELS)
        plain, nomerge, collapsed, batch_major = _run([
            # (float64 tensors: as TF 1.15, a NumPy array alone would be taken as float32)
            ctc.ctc_loss(sp, tf.constant(X), seq),
            ctc.ctc_loss(sp, tf.constant(X), seq, ctc_merge_repeated=False),
            ctc.ctc_loss(sp, tf.constant(X), seq, preprocess_collapse_repeated=True),
            ctc.ctc_loss(sp, tf.constant(np.transpose(X, [1, 0, 2])), seq, time_major=False)])
    np.testing.assert_allclose(plain, brute_ctc_loss(X, LABELS, seq), rtol=1e-10)
    np.testing.assert_allclose(batch_major, plain, rtol=1e-12)
    np.testing.assert_allclose(nomerge, brute_ctc_loss(X, LABELS, seq, merge_repeated=False),
                               rtol=1e-10)
    np.testing.assert_allclose(collapsed, brute_ctc_loss(X, [[1, 2], [0]], seq), rtol=1e-10)


def test_ctc_loss_gradient_is_softmax_minus_occupancy():
    seq = np.array([4, 2])
    with tf.Graph().as_default():
        x = tf.constant(X)
        loss = ctc.ctc_loss(_sparse([[2, 1], [1]]), x, seq)
        g = _run(tf.gradients(tf.reduce_sum(loss * [1.0, 3.0]), x)[0])
    num = np.zeros_like(X)
    for i in range(X.size):
        d = np.zeros_like(X)
        d.flat[i] = 1e-6
        num.flat[i] = ((brute_ctc_loss(X + d, [[2, 1], [1]], seq) * [1, 3]).sum() -
                       (brute_ctc_loss(X - d, [[2, 1], [1]], seq) * [1, 3]).sum()) / 2e-6
    np.testing.assert_allclose(g, num, atol=1e-6)
    assert (g[2:, 1] == 0).all()  # past the sequence end


def test_ctc_loss_infeasible_and_too_long_labels():
    with tf.Graph().as_default():
        sp = _sparse(LABELS)
        # [1, 1, 2] needs 4 steps (a blank between the 1s): no path, infinite loss
        assert np.isinf(_run(ctc.ctc_loss(sp, X, [3, 3]))[0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Not enough time for target transition sequence \(required: "
                                 r"3, available: 2\)"):
            _run(ctc.ctc_loss(sp, X, [2, 3]))
        ignored = _run(ctc.ctc_loss(sp, X, [2, 3], ignore_longer_outputs_than_inputs=True))
        assert ignored[0] == 0.0 and ignored[1] > 0
        with pytest.raises(tf.errors.InvalidArgumentError, match="sequence_length"):
            _run(ctc.ctc_loss(sp, X, [6, 3]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Labels length is zero"):
            _run(ctc.ctc_loss(tf.SparseTensor([[0, 0]], [1], [2, 1]), X, [3, 3]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be nonnegative"):
            _run(ctc.ctc_loss(_sparse([[-1], [1]]), X, [3, 3]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 1"):
            ctc.ctc_loss(sp, X, [5])
        with pytest.raises(TypeError, match="SparseTensor"):
            ctc.ctc_loss(tf.constant([[1]]), X, [5, 3])


def test_ctc_loss_v2_dense_labels_and_blank_index():
    seq = np.array([5, 3])
    with tf.Graph().as_default():
        dense = tf.constant([[1, 1, 3], [2, 0, 0]])
        first, last, mid = _run([
            ctc.ctc_loss_v2(dense, X, [3, 1], seq),  # blank 0
            ctc.ctc_loss_v2(_sparse(LABELS), X, None, seq, blank_index=-1),
            ctc.ctc_loss_v2(tf.constant([[0, 0, 3], [1, 0, 0]]), X, [3, 1], seq, blank_index=2)])
    rolled = np.concatenate([X[..., 1:], X[..., :1]], -1)  # blank 0 moved last
    np.testing.assert_allclose(first, brute_ctc_loss(rolled, [[0, 0, 2], [1]], seq), rtol=1e-10)
    # (SparseTensor labels go straight to ctc_loss, as TF 1.15's: a float64 NumPy array is
    # converted to the op's float32, measured)
    assert last.dtype == np.float32
    np.testing.assert_allclose(last, brute_ctc_loss(X, LABELS, seq), rtol=1e-6)
    rolled2 = X[..., [0, 1, 3, 2]]
    np.testing.assert_allclose(mid, brute_ctc_loss(rolled2, [[0, 0, 2], [1]], seq), rtol=1e-10)


def test_greedy_decoder_merge_options():
    x = np.zeros((6, 1, 3))
    for t, c in enumerate([0, 0, 2, 0, 1, 1]):
        x[t, 0, c] = 1.0
    with tf.Graph().as_default():
        (d,), lp = ctc.ctc_greedy_decoder(x, [6])
        (dn,), _ = ctc.ctc_greedy_decoder(x, [6], merge_repeated=False)
        (d0,), _ = ctc.ctc_greedy_decoder(x, [6], blank_index=0)
        (d1,), _ = ctc.ctc_greedy_decoder(x, [6], blank_index=1)
        vals, shape, lpv, valsn, v0, v1 = _run([d.values, d.dense_shape, lp, dn.values,
                                                d0.values, d1.values])
    assert vals.tolist() == [0, 0, 1] and shape.tolist() == [1, 3]
    assert valsn.tolist() == [0, 0, 0, 1, 1]
    assert v0.tolist() == [2, 1] and v1.tolist() == [0, 2, 0]  # as TF
    assert lpv.tolist() == [[-6.0]]


def test_beam_search_top_paths_are_ordered_and_errors():
    x = _rng.randn(6, 2, 4)
    with tf.Graph().as_default():
        decoded, lp = ctc.ctc_beam_search_decoder(x, [6, 4], beam_width=8, top_paths=3)
        assert len(decoded) == 3 and lp.get_shape().as_list() == [2, 3]
        lpv = _run(lp)
        assert (np.diff(lpv, axis=1) <= 0).all()
        with pytest.raises(tf.errors.InvalidArgumentError, match="more paths than the beam"):
            _run(ctc.ctc_beam_search_decoder(x, [6, 4], beam_width=2, top_paths=3)[1])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Less leaves"):
            _run(ctc.ctc_beam_search_decoder(x, [0, 4], beam_width=3, top_paths=2)[1])


def test_collapse_repeated_and_unique_labels():
    with tf.Graph().as_default():
        labels = tf.constant([[1, 1, 2, 2, 2, 3], [4, 4, 5, 5, 0, 0]])
        (col, n), (u, i) = _run([ctc.collapse_repeated(labels, [6, 3]),
                                 ctc.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 0, 0]]))])
    assert col.tolist() == [[1, 2, 3], [4, 5, 0]] and n.tolist() == [3, 2]
    assert u.tolist() == [[3, 4, 0, 0], [1, 0, 0, 0]]
    assert i.tolist() == [[0, 1, 1, 0], [0, 0, 1, 1]]
