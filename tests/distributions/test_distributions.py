"""tf.distributions: densities, cdfs, statistics and entropies against scipy.stats (a test
dependency through scikit-learn), sample moments, shapes, names, gradients of log_prob with
respect to the parameters, and the KL registry."""

import numpy as np
import pytest

import tideflow as tf
import tideflow.distributions as tfd

st = pytest.importorskip("scipy.stats")


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(x):
    with tf.Session() as sess:
        return sess.run(x)


X = np.array([0.2, 0.7, 1.5, 3.0])

CONTINUOUS = [
    (lambda: tfd.Normal(np.float64(0.5), np.array([1.0, 2.0, 0.5, 3.0])),
     st.norm(0.5, np.array([1.0, 2.0, 0.5, 3.0])), X),
    (lambda: tfd.Laplace(np.float64(1.0), np.float64(2.0)), st.laplace(1.0, 2.0), X),
    (lambda: tfd.Uniform(np.float64(0.0), np.array([1.0, 1.0, 2.0, 4.0])),
     st.uniform(0.0, np.array([1.0, 1.0, 2.0, 4.0])), np.array([0.2, 0.5, 1.5, 3.0])),
    (lambda: tfd.Gamma(np.array([0.5, 1.0, 2.0, 5.0]), np.float64(2.0)),
     st.gamma(np.array([0.5, 1.0, 2.0, 5.0]), scale=0.5), X),
    (lambda: tfd.Exponential(np.array([0.5, 1.0, 2.0, 3.0])),
     st.expon(scale=1 / np.array([0.5, 1.0, 2.0, 3.0])), X),
    (lambda: tfd.Beta(np.array([0.5, 2.0, 3.0, 1.5]), np.float64(2.5)),
     st.beta(np.array([0.5, 2.0, 3.0, 1.5]), 2.5), np.array([0.1, 0.4, 0.6, 0.95])),
    (lambda: tfd.StudentT(np.array([1.5, 3.0, 5.0, 30.0]), np.float64(0.5), np.float64(2.0)),
     st.t(np.array([1.5, 3.0, 5.0, 30.0]), 0.5, 2.0), X),
]


@pytest.mark.parametrize("make,ref,x", CONTINUOUS,
                         ids=["Normal", "Laplace", "Uniform", "Gamma", "Exponential", "Beta",
                              "StudentT"])
def test_continuous_against_scipy(make, ref, x):
    d = make()
    got = _run({"log_prob": d.log_prob(x), "prob": d.prob(x), "cdf": d.cdf(x),
                "sf": d.survival_function(x), "entropy": d.entropy(), "mean": d.mean()})
    np.testing.assert_allclose(got["log_prob"], ref.logpdf(x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got["prob"], ref.pdf(x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got["cdf"], ref.cdf(x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got["sf"], ref.sf(x), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got["entropy"] + 0 * x, ref.entropy() + 0 * x, rtol=1e-6)
    mean = ref.mean() + 0 * x
    np.testing.assert_allclose(got["mean"] + 0 * x, mean, rtol=1e-6, equal_nan=True)
    if not isinstance(d, tfd.StudentT):
        np.testing.assert_allclose(_run(d.variance()) + 0 * x, ref.var() + 0 * x, rtol=1e-6)
        np.testing.assert_allclose(_run(d.stddev()) + 0 * x, ref.std() + 0 * x, rtol=1e-6)


@pytest.mark.parametrize("make,ref", [
    (lambda: tfd.Normal(np.float64(1.0), np.float64(2.0)), st.norm(1.0, 2.0)),
    (lambda: tfd.Laplace(np.float64(1.0), np.float64(2.0)), st.laplace(1.0, 2.0)),
    (lambda: tfd.Uniform(np.float64(-1.0), np.float64(3.0)), st.uniform(-1.0, 4.0)),
    (lambda: tfd.Exponential(np.float64(2.0)), st.expon(scale=0.5)),
], ids=["Normal", "Laplace", "Uniform", "Exponential"])
def test_quantiles(make, ref):
    p = np.array([0.01, 0.3, 0.5, 0.9, 0.999])
    np.testing.assert_allclose(_run(make().quantile(p)), ref.ppf(p), rtol=1e-9, atol=1e-12)


def test_student_t_moments_nan_and_inf():
    d = tfd.StudentT([0.5, 1.5, 3.0], 1.0, 2.0)
    mean, var = _run([d.mean(), d.variance()])
    assert np.isnan(mean[0]) and mean[1] == 1.0
    assert np.isnan(var[0]) and np.isinf(var[1]) and var[2] == pytest.approx(4 * 3.0)
    strict = tfd.StudentT([0.5], 1.0, 2.0, allow_nan_stats=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not defined for components of df <= 1"):
        _run(strict.mean())


@pytest.mark.parametrize("make,mean,var", [
    (lambda: tfd.Normal(1.0, 2.0), 1.0, 4.0),
    (lambda: tfd.Laplace(-1.0, 0.5), -1.0, 0.5),
    (lambda: tfd.Uniform(2.0, 5.0), 3.5, 0.75),
    (lambda: tfd.Gamma(3.0, 2.0), 1.5, 0.75),
    (lambda: tfd.Exponential(4.0), 0.25, 1 / 16),
    (lambda: tfd.Beta(2.0, 3.0), 0.4, 0.04),
    (lambda: tfd.StudentT(5.0, 0.0, 1.0), 0.0, 5 / 3),
    (lambda: tfd.Bernoulli(probs=0.3), 0.3, 0.21),
    (lambda: tfd.Categorical(probs=[0.2, 0.3, 0.5]), 1.3, 0.61),
], ids=["Normal", "Laplace", "Uniform", "Gamma", "Exponential", "Beta", "StudentT",
        "Bernoulli", "Categorical"])
def test_sample_moments(make, mean, var):
    tf.set_random_seed(1)
    d = make()
    s = d.sample([100, 200], seed=3)
    assert s.get_shape().as_list() == [100, 200]
    v = _run(s).astype(np.float64)
    assert v.shape == (100, 200)
    assert abs(v.mean() - mean) < 5 * np.sqrt(var / v.size) + 1e-3
    assert abs(v.var() - var) < 0.12 * var


def test_discrete_against_scipy():
    b = tfd.Bernoulli(logits=np.array([-1.0, 0.0, 2.0]))
    p = 1 / (1 + np.exp(-np.array([-1.0, 0.0, 2.0])))
    got = _run([b.log_prob([1, 0, 1]), b.entropy(), b.mode(), b.probs])
    np.testing.assert_allclose(got[0], st.bernoulli(p).logpmf([1, 0, 1]), rtol=1e-6)
    np.testing.assert_allclose(got[1], st.bernoulli(p).entropy(), rtol=1e-6)
    assert got[2].tolist() == [0, 0, 1] and got[2].dtype == np.int32
    # TF 1.15's Bernoulli has no cdf
    with pytest.raises(NotImplementedError, match="cdf is not implemented: Bernoulli"):
        b.cdf([0, 0, 1])
    probs = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    c = tfd.Categorical(probs=probs)
    lp, ent, mode, cdf = _run([c.log_prob([2, 1]), c.entropy(), c.mode(), c.cdf([1, 0])])
    np.testing.assert_allclose(lp, np.log([0.5, 0.3]), rtol=1e-6)
    np.testing.assert_allclose(ent, [st.entropy(r) for r in probs], rtol=1e-6)
    assert mode.tolist() == [2, 0]
    # TF 1.x's Categorical.cdf(k) is P(X < k) (its sequence_mask over the first k classes)
    np.testing.assert_allclose(cdf, [0.2, 0.0], rtol=1e-6)
    assert tf.get_static_value(c.event_size) == 3 and c.batch_shape.as_list() == [2]
    # log_prob broadcasts a batch of values over the batch of distributions
    assert _run(c.log_prob([[0, 1], [2, 2]])).shape == (2, 2)


def test_multivariate_against_scipy():
    alpha = np.array([1.5, 2.0, 3.5])
    x = np.array([0.2, 0.3, 0.5])
    d = tfd.Dirichlet(alpha)
    lp, ent, mean, var, cov = _run([d.log_prob(x), d.entropy(), d.mean(), d.variance(),
                                    d.covariance()])
    ref = st.dirichlet(alpha)
    np.testing.assert_allclose(lp, ref.logpdf(x), rtol=1e-6)
    np.testing.assert_allclose(ent, ref.entropy(), rtol=1e-6)
    np.testing.assert_allclose(mean, ref.mean(), rtol=1e-6)
    np.testing.assert_allclose(var, ref.var(), rtol=1e-6)
    np.testing.assert_allclose(np.diag(cov), ref.var(), rtol=1e-6)
    assert d.event_shape.as_list() == [3] and d.batch_shape.as_list() == []
    m = tfd.Multinomial(total_count=5.0, probs=[0.2, 0.3, 0.5])
    lp, mean, cov = _run([m.log_prob([1.0, 1.0, 3.0]), m.mean(), m.covariance()])
    ref = st.multinomial(5, [0.2, 0.3, 0.5])
    np.testing.assert_allclose(lp, ref.logpmf([1, 1, 3]), rtol=1e-6)
    np.testing.assert_allclose(mean, ref.mean(), rtol=1e-6)
    np.testing.assert_allclose(cov, ref.cov(), rtol=1e-6)
    dm = tfd.DirichletMultinomial(np.float64(4.0), alpha)
    np.testing.assert_allclose(_run(dm.log_prob([1.0, 0.0, 3.0])),
                               st.dirichlet_multinomial(alpha, 4).logpmf([1, 0, 3]), rtol=1e-6)


def test_multinomial_and_dirichlet_samples():
    tf.set_random_seed(2)
    m = tfd.Multinomial(total_count=[3.0, 10.0], probs=[0.2, 0.3, 0.5])
    s = m.sample(2000, seed=1)
    v = _run(s)
    assert v.shape == (2000, 2, 3)
    np.testing.assert_array_equal(v.sum(-1), np.broadcast_to([3.0, 10.0], (2000, 2)))
    np.testing.assert_allclose(v.mean(0), [[0.6, 0.9, 1.5], [2.0, 3.0, 5.0]], rtol=0.1)
    d = _run(tfd.Dirichlet([2.0, 3.0, 5.0]).sample(3000, seed=4))
    np.testing.assert_allclose(d.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0), [0.2, 0.3, 0.5], atol=0.02)


def test_log_prob_gradients_wrt_parameters():
    with tf.Session():
        for build, shape in [
            (lambda p: tfd.Normal(p[0], tf.exp(p[1])).log_prob(0.3), [2]),
            (lambda p: tfd.Gamma(tf.exp(p[0]), tf.exp(p[1])).log_prob(1.7), [2]),
            (lambda p: tfd.Beta(tf.exp(p[0]), tf.exp(p[1])).log_prob(0.3), [2]),
            (lambda p: tfd.StudentT(tf.exp(p[0]) + 1.0, p[1], np.float64(1.5)).log_prob(0.4),
             [2]),
            (lambda p: tfd.Categorical(logits=p).log_prob(1), [2]),
            (lambda p: tfd.Dirichlet(tf.exp(p)).log_prob([0.3, 0.7]), [2]),
        ]:
            p = tf.constant(np.array([0.3, -0.2]))
            y = build(p)
            err = tf.test.compute_gradient_error(p, shape, y, [], x_init_value=np.array(
                [0.3, -0.2]), delta=1e-6)
            assert err < 1e-6, (y, err)
    # reparameterized sampling: d sample / d loc == 1
    loc = tf.constant(0.5)
    s = tfd.Normal(loc, 2.0).sample(5, seed=1)
    assert tfd.Normal(loc, 2.0).reparameterization_type is tfd.FULLY_REPARAMETERIZED
    assert _run(tf.gradients(tf.reduce_sum(s), loc)[0]) == pytest.approx(5.0)


def test_kl_divergences_against_monte_carlo_and_closed_forms():
    a, b = tfd.Normal(0.0, 1.0), tfd.Normal(1.0, 2.0)
    kl = _run(tfd.kl_divergence(a, b))
    assert kl == pytest.approx(np.log(2) + (1 + 1) / 8 - 0.5, rel=1e-6)
    pairs = [
        (tfd.Bernoulli(probs=0.3), tfd.Bernoulli(probs=0.6)),
        (tfd.Categorical(probs=[0.2, 0.8]), tfd.Categorical(probs=[0.5, 0.5])),
        (tfd.Gamma(2.0, 1.5), tfd.Gamma(3.0, 1.0)),
        (tfd.Beta(2.0, 3.0), tfd.Beta(1.5, 1.5)),
        (tfd.Dirichlet([1.0, 2.0, 3.0]), tfd.Dirichlet([2.0, 2.0, 2.0])),
        (tfd.Exponential(2.0), tfd.Gamma(1.0, 1.0)),  # through Gamma's registration
    ]
    tf.set_random_seed(5)
    for p, q in pairs:
        x = p.sample(40000, seed=7)
        mc = tf.reduce_mean(p.log_prob(x) - q.log_prob(x), 0)
        exact, est = _run([tfd.kl_divergence(p, q), mc])
        np.testing.assert_allclose(exact, est, atol=0.03, err_msg=str(p))
        assert _run(p.kl_divergence(q)) == pytest.approx(float(exact), rel=1e-6)
        np.testing.assert_allclose(_run(p.cross_entropy(q)), _run(p.entropy()) + exact,
                                   rtol=1e-5)
    with pytest.raises(NotImplementedError, match="No KL"):
        tfd.kl_divergence(tfd.Normal(0.0, 1.0), tfd.Gamma(1.0, 1.0))


def test_register_kl_and_errors():
    class MyNormal(tfd.Normal):
        pass

    @tfd.RegisterKL(MyNormal, tfd.Uniform)
    def _kl(a, b, name=None):
        return tf.constant(42.0)

    assert _run(tfd.kl_divergence(MyNormal(0.0, 1.0), tfd.Uniform())) == 42.0
    # subclasses use their parents' registration
    assert _run(tfd.kl_divergence(MyNormal(0.0, 1.0), tfd.Normal(0.0, 1.0))) == 0.0
    with pytest.raises(ValueError, match="already been registered"):
        tfd.RegisterKL(MyNormal, tfd.Uniform)(_kl)
    with pytest.raises(ValueError, match="probs or logits"):
        tfd.Bernoulli()
    # as TF 1.15: each parameter keeps its own dtype, and they must agree
    with pytest.raises(ValueError, match="must be of the same type"):
        tfd.Normal(np.float32(0.0), np.float64(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="x > 0"):
        tfd.Normal(0.0, -1.0, validate_args=True)  # a constant fails at once, as in TF
    scale = tf.placeholder(tf.float32, [])
    checked = tfd.Normal(0.0, scale, validate_args=True).log_prob(0.0)
    with tf.Session() as sess:
        assert np.isfinite(sess.run(checked, {scale: 1.0}))
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(checked, {scale: -1.0})
    with pytest.raises(NotImplementedError, match="quantile"):
        tfd.Gamma(1.0, 1.0).quantile(0.5)


def test_shapes_names_and_copy():
    d = tfd.Normal(loc=tf.zeros([3, 1]), scale=tf.ones([4]))
    assert d.batch_shape.as_list() == [3, 4] and d.event_shape.as_list() == []
    assert _run(d.batch_shape_tensor()).tolist() == [3, 4]
    s = d.sample([2, 5])
    assert s.get_shape().as_list() == [2, 5, 3, 4]
    assert d.name == "Normal/" and s.op.name.startswith("Normal/sample/")
    assert d.log_prob(0.0).op.name.startswith("Normal/log_prob/")
    c = d.copy(scale=2.0)
    assert isinstance(c, tfd.Normal) and c.batch_shape.as_list() == [3, 1]
    assert d.parameters["scale"] is not None and "validate_args" in d.parameters
    u = tfd.Uniform(0.0, 2.0)
    assert _run(u.prob([-1.0, 1.0, 3.0])).tolist() == [0.0, 0.5, 0.0]
    assert _run(tfd.Gamma([0.5, 2.0], 1.0).mode())[1] == 1.0
    assert np.isnan(_run(tfd.Gamma([0.5, 2.0], 1.0).mode())[0])
