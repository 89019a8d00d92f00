"""Gamma-family samples are reparameterized as in TF 1.x (implicit gradients through
RandomGamma): the derivative of a sample mean with respect to each parameter matches the
derivative of the distribution's mean; plus TF 1.x's Categorical.cdf (P(X < k)) and the Gamma
mode's NaN at concentration 1."""

import numpy as np
import pytest

import tideflow as tf

tfd = tf.distributions


def _grads(make, params, n=20000):
    ts = [tf.constant(p, tf.float64) for p in params]
    d = make(*ts)
    sample_mean = tf.reduce_mean(d.sample(n, seed=7), 0)
    g_sample = tf.gradients(tf.reduce_sum(sample_mean), ts)
    g_mean = tf.gradients(tf.reduce_sum(d.mean()), ts)
    with tf.Session() as sess:
        return d.reparameterization_type, sess.run(g_sample), sess.run(g_mean)


@pytest.mark.parametrize("make, params", [
    (lambda a, b: tfd.Gamma(a, b), ([0.7, 2.5], [1.5, 0.5])),
    (lambda a, b: tfd.Beta(a, b), ([0.8, 3.0], [2.0, 1.2])),
    (lambda r: tfd.Exponential(r), ([0.5, 3.0],)),
    (lambda c: tfd.Dirichlet(c), ([[1.5, 0.7, 3.0]],)),
])
def test_sample_gradients_follow_the_mean(make, params):
    rtype, g_sample, g_mean = _grads(make, params)
    assert rtype == tfd.FULLY_REPARAMETERIZED
    for gs, gm in zip(g_sample, g_mean):
        np.testing.assert_allclose(gs, gm, rtol=0.06, atol=0.02)


def test_student_t_is_reparameterized_in_loc_and_scale():
    df, loc, scale = (tf.constant(v, tf.float64) for v in ([5.0], [1.0], [2.0]))
    d = tfd.StudentT(df, loc, scale)
    assert d.reparameterization_type == tfd.FULLY_REPARAMETERIZED
    g = tf.gradients(tf.reduce_mean(d.sample(20000, seed=3)), [df, loc, scale])
    with tf.Session() as sess:
        g_df, g_loc, _ = sess.run(g)
    assert np.isfinite(g_df).all()
    np.testing.assert_allclose(g_loc, [1.0], rtol=1e-9)


def test_categorical_cdf_counts_the_classes_below_k():
    probs = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]], np.float32)
    c = tfd.Categorical(probs=probs)
    with tf.Session() as sess:
        cdf, log_cdf, sf = sess.run([c.cdf([2, 0]), c.log_cdf([2, 0]),
                                     c.survival_function([2, 0])])
    np.testing.assert_allclose(cdf, [0.7, 0.0], rtol=1e-6)
    assert log_cdf[1] == -np.inf
    np.testing.assert_allclose(sf, [0.3, 1.0], rtol=1e-6)


def test_gamma_mode_is_nan_unless_concentration_exceeds_one():
    with tf.Session() as sess:
        exp_mode, gamma_mode = sess.run([tfd.Exponential([0.5, 2.0]).mode(),
                                         tfd.Gamma([1.0, 3.0], 2.0).mode()])
    assert np.isnan(exp_mode).all()
    assert np.isnan(gamma_mode[0]) and gamma_mode[1] == 1.0
