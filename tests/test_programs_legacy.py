"""TF 0.8-0.12-era programs and names (and RL / classic-ML idioms) run under tideflow: each
test is a piece of an old-style program, checked against NumPy or against the documented
semantics of the release that had the name."""

import numpy as np
import pytest

import tideflow as tf


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(list(fetches), feed_dict=feed)


def test_concat_and_split_accept_0x_keywords():
    with tf.Graph().as_default():
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = a + 10
        c1 = tf.concat(concat_dim=1, values=[a, b])
        c0 = tf.concat(0, [a, b])
        s = tf.split(split_dim=1, num_split=3, value=a)
        s_pos = tf.split(0, 2, a)
        got = _run(c1, c0, *s, *s_pos)
    np.testing.assert_array_equal(got[0], np.concatenate([a, b], 1))
    np.testing.assert_array_equal(got[1], np.concatenate([a, b], 0))
    for g, want in zip(got[2:5], np.split(a, 3, 1)):
        np.testing.assert_array_equal(g, want)
    for g, want in zip(got[5:], np.split(a, 2, 0)):
        np.testing.assert_array_equal(g, want)


def test_concat_rejects_both_axis_and_concat_dim():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="concat_dim"):
        tf.concat([[1.0]], axis=0, concat_dim=0)


def test_listdiff_and_complex_abs():
    with tf.Graph().as_default():
        out, idx = tf.listdiff([1, 2, 3, 4, 5], [2, 4])
        z = tf.complex(tf.constant([3.0, -5.0]), tf.constant([4.0, 12.0]))
        got = _run(out, idx, tf.complex_abs(z))
        assert idx.dtype == tf.int32
        with pytest.raises(TypeError, match="complex"):
            tf.complex_abs(tf.constant([1.0]))
    np.testing.assert_array_equal(got[0], [1, 3, 5])
    np.testing.assert_array_equal(got[1], [0, 2, 4])
    np.testing.assert_allclose(got[2], [5.0, 13.0])


def test_batch_matrix_names_batch_over_leading_dims():
    rng = np.random.RandomState(0)
    m = rng.rand(3, 2, 2).astype(np.float64) + 2 * np.eye(2)
    spd = m @ np.transpose(m, (0, 2, 1))
    with tf.Graph().as_default():
        e, _ = tf.batch_self_adjoint_eig(spd)
        got = _run(tf.batch_matrix_inverse(m), tf.batch_matrix_determinant(m),
                   tf.batch_cholesky(spd), tf.batch_matrix_diag(m[:, 0]),
                   tf.batch_matrix_band_part(m, 0, 0), e,
                   tf.batch_matrix_solve(m, np.ones((3, 2, 1))))
    np.testing.assert_allclose(got[0], np.linalg.inv(m), rtol=1e-10)
    np.testing.assert_allclose(got[1], np.linalg.det(m), rtol=1e-10)
    np.testing.assert_allclose(got[2], np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(got[3], [np.diag(r) for r in m[:, 0]])
    np.testing.assert_allclose(got[4], m * np.eye(2))
    np.testing.assert_allclose(got[5], np.linalg.eigvalsh(spd), rtol=1e-10)
    np.testing.assert_allclose(got[6], np.linalg.solve(m, np.ones((3, 2, 1))), rtol=1e-10)


def test_sigmoid_cross_entropy_targets_keyword_and_positional_logits_first():
    x = np.array([[-2.0, 0.5], [3.0, -0.1]], np.float32)
    z = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    want = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    with tf.Graph().as_default():
        got = _run(tf.nn.sigmoid_cross_entropy_with_logits(logits=x, targets=z),
                   tf.nn.sigmoid_cross_entropy_with_logits(x, z))
        with pytest.raises(ValueError, match="targets"):
            tf.nn.sigmoid_cross_entropy_with_logits(logits=x, labels=z, targets=z)
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], want, rtol=1e-6)


def test_sparse_tensor_accepts_0x_shape_keyword():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(indices=[[0, 1], [2, 0]], values=[1.0, 2.0], shape=[3, 2])
        (dense,) = _run(tf.sparse_tensor_to_dense(sp))
        with pytest.raises(ValueError, match="dense_shape"):
            tf.SparseTensor([[0, 0]], [1.0], dense_shape=[1, 1], shape=[1, 1])
    np.testing.assert_array_equal(dense, [[0, 1], [0, 0], [2, 0]])


def test_per_image_whitening_is_per_image_standardization():
    img = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    with tf.Graph().as_default():
        (got,) = _run(tf.image.per_image_whitening(img))
    adj = max(img.std(), 1.0 / np.sqrt(img.size))
    np.testing.assert_allclose(got, (img - img.mean()) / adj, rtol=1e-5)
