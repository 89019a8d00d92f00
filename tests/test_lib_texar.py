"""Differences found by running Texar-TF (texar 0.2.4, the TF 1.x text-generation toolkit) against
tideflow, each reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# Session.run: a fetched tensor that was fed gives the fed value back
# ----------------------------------------------------------------------------------------


def test_fetching_a_fed_string_scalar_gives_the_fed_str_in_an_object_array():
    # texar's global mode is a placeholder_with_default('train'); a test feeds 'eval' and
    # compares the fetch with the str
    mode = tf.placeholder_with_default("infer", shape=[])
    with tf.Session() as sess:
        got = sess.run(mode, feed_dict={mode: "eval"})
        assert isinstance(got, np.ndarray) and got.dtype == object and got.shape == ()
        assert got.item() == "eval" and got == "eval"
        by_name = sess.run(mode, feed_dict={mode.name: "eval"})
        assert by_name.item() == "eval"
        assert sess.run(mode) == b"infer"  # computed: bytes, as TF
        fed_bytes = sess.run(mode, feed_dict={mode: b"raw"})
        assert fed_bytes.dtype == object and fed_bytes.item() == b"raw"


def test_fetching_a_fed_string_vector_keeps_its_elements_but_ops_see_bytes():
    words = tf.placeholder(tf.string, shape=[None])
    upper = tf.identity(words)
    with tf.Session() as sess:
        fed, computed = sess.run([words, upper], {words: ["ab", b"cd"]})
        assert fed.dtype == object and list(fed) == ["ab", b"cd"]
        assert list(computed) == [b"ab", b"cd"]
        fed, _ = sess.run([words, upper], {words: np.array(["x", "y"])})
        assert fed.dtype == object and list(fed) == ["x", "y"]


# ----------------------------------------------------------------------------------------
# tf.contrib.distributions: the Concrete (Gumbel-softmax) relaxations
# ----------------------------------------------------------------------------------------


def _concrete_log_density(logits, temperature, y):
    # log density of a point y of the simplex under the Concrete distribution (ours, NumPy)
    k = logits.shape[-1]
    temperature = np.asarray(temperature, dtype=np.float64)
    z = logits - temperature[..., None] * np.log(y)
    lse = np.log(np.sum(np.exp(z - z.max(-1, keepdims=True)), -1)) + z.max(-1)
    log_gamma_k = np.log(float(np.prod(np.arange(1, k))))
    return (log_gamma_k + (k - 1) * np.log(temperature) + np.sum(z, -1) - k * lse
            - np.sum(np.log(y), -1))


def test_relaxed_one_hot_categorical_samples_are_simplex_points_with_gradients():
    dist = tf.contrib.distributions.RelaxedOneHotCategorical(
        0.4, logits=tf.constant([[0.5, -1.0, 2.0, 0.0]] * 3))
    assert dist.reparameterization_type is tf.contrib.distributions.FULLY_REPARAMETERIZED
    assert dist.batch_shape.as_list() == [3] and dist.event_shape.as_list() == [4]
    draws = dist.sample(5, seed=11)
    assert draws.shape.as_list() == [5, 3, 4] and draws.dtype == tf.float32
    grad = tf.gradients(tf.reduce_sum(draws * [1.0, 2.0, 3.0, 4.0]), dist.logits)[0]
    with tf.Session() as sess:
        d, g = sess.run([draws, grad])
    np.testing.assert_allclose(d.sum(-1), np.ones([5, 3]), rtol=1e-5)
    assert (d > 0).all() and np.abs(g).sum() > 0


def test_relaxed_one_hot_categorical_log_prob_is_the_concrete_density():
    logits = np.array([[0.2, 1.5, -0.3], [2.0, 0.0, 0.0]])
    temperature = np.array([0.6, 1.7])
    y = np.array([[0.25, 0.6, 0.15], [0.7, 0.1, 0.2]])
    dist = tf.contrib.distributions.RelaxedOneHotCategorical(temperature, logits=logits)
    exp_dist = tf.contrib.distributions.ExpRelaxedOneHotCategorical(temperature, logits=logits)
    with tf.Session() as sess:
        lp, elp = sess.run([dist.log_prob(y), exp_dist.log_prob(np.log(y))])
    want = _concrete_log_density(logits, temperature, y)
    np.testing.assert_allclose(lp, want, rtol=1e-10)
    # the log-space density differs by the exp map's log-Jacobian
    np.testing.assert_allclose(elp, want + np.log(y).sum(-1), rtol=1e-10)


def test_relaxed_one_hot_categorical_density_integrates_to_one():
    dist = tf.contrib.distributions.RelaxedOneHotCategorical(1.5, logits=[0.3, -0.8])
    p = np.linspace(1e-7, 1 - 1e-7, 20001)
    y = np.stack([p, 1 - p], -1)
    with tf.Session() as sess:
        dens = np.exp(sess.run(dist.log_prob(y)))
    total = np.sum((dens[1:] + dens[:-1]) * np.diff(p)) / 2
    assert abs(total - 1.0) < 1e-3
