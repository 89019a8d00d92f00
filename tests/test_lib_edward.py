"""What Edward 1.3.5 (a probabilistic programming library on TF 1.x) needs of tideflow, in plain
TF 1.x calls: tf.contrib.distributions' families beyond tf.distributions (Poisson, Binomial,
NegativeBinomial, Geometric, Chi2, InverseGamma, Logistic, Cauchy, HalfNormal, Deterministic,
TransformedDistribution, Independent, Mixture, RelaxedBernoulli, Kumaraswamy), its bijectors,
``Tensor.OVERLOADABLE_OPERATORS``, ``Graph.create_op`` with ``AttrValue`` attrs, and the NumPy
count ``Distribution._sample_n`` receives. Values are checked against SciPy."""

import math

import numpy as np
import pytest
from scipy import special, stats

import tideflow as tf

tfd = tf.contrib.distributions
tfb = tfd.bijectors


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches) if len(fetches) > 1 else fetches[0], feed)


# -- framework pieces Edward leans on ------------------------------------------------------------


def test_overloadable_operators_lists_what_wrappers_may_forward():
    ops = tf.Tensor.OVERLOADABLE_OPERATORS
    assert {"__add__", "__radd__", "__getitem__", "__neg__", "__abs__", "__matmul__",
            "__eq__", "__ne__", "__invert__", "__rpow__"} <= ops
    assert {"__truediv__", "__rmatmul__", "__xor__", "__rmod__"} <= ops

    class Wrapped:  # an object forwarding every operator to the tensor it holds, as Edward's
        def __init__(self, t):  # random variables do
            self.t = t

    for name in ops - {"__eq__", "__ne__"}:
        setattr(Wrapped, name, lambda self, *a, _n=name: getattr(tf.Tensor, _n)(self.t, *a))
    w = Wrapped(tf.constant([1.0, -2.0]))
    assert _run(-w).tolist() == [-1.0, 2.0]
    assert _run(w * 3.0).tolist() == [3.0, -6.0]
    assert _run(10.0 - w).tolist() == [9.0, 12.0]
    assert float(_run(w[1])) == -2.0


def test_create_op_takes_attr_value_protos_of_a_copied_node_def():
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.multiply(a, 3.0, name="b")
    g = tf.get_default_graph()
    copies = {}
    for op in (a.op, b.op.inputs[1].op, b.op):
        inputs = [copies[t.op.name].outputs[0] for t in op.inputs]
        copies[op.name] = g.create_op(op.type, inputs, [o.dtype for o in op.outputs],
                                      name="copied/" + op.name, attrs=dict(op.node_def.attr))
    out = copies["b"].outputs[0]
    assert out.op.name == "copied/b" and out.dtype == tf.float32
    assert out.get_shape().as_list() == [2]
    np.testing.assert_allclose(_run(out), [3.0, 6.0])


def test_sample_n_gets_a_numpy_count_when_the_sample_shape_is_static():
    seen = []

    class Counting(tfd.Normal):
        def _sample_n(self, n, seed=None):
            seen.append(n)
            return super()._sample_n(n, seed)

    d = Counting(0.0, 1.0)
    assert d.sample([2, 3]).get_shape().as_list() == [2, 3]
    assert isinstance(seen[-1], np.integer) and seen[-1] == 6 and seen[-1] == 6
    n = tf.placeholder(tf.int32, [])
    s = d.sample(n)
    assert isinstance(seen[-1], tf.Tensor)
    assert _run(tf.shape(s), feed={n: 4}).tolist() == [4]


# -- count families ------------------------------------------------------------------------------


def test_poisson_matches_scipy():
    rate = np.array([0.5, 3.0, 7.5])
    k = np.array([0.0, 2.0, 9.0])
    d = tfd.Poisson(rate=rate)
    lp, cdf, mean, var, mode = _run(d.log_prob(k), d.cdf(k), d.mean(), d.variance(), d.mode())
    np.testing.assert_allclose(lp, stats.poisson.logpmf(k, rate), rtol=1e-10)
    np.testing.assert_allclose(cdf, stats.poisson.cdf(k, rate), rtol=1e-10)
    np.testing.assert_allclose([mean, var, mode], [rate, rate, np.floor(rate)])
    # as TF 1.15: no flooring of a non-whole count (the density interpolates)
    np.testing.assert_allclose(_run(d.log_prob(2.5)),
                               2.5 * np.log(rate) - special.gammaln(3.5) - rate, rtol=1e-10)
    strict = tfd.Poisson(rate=rate, validate_args=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="fractional"):
        _run(strict.log_prob(2.5))
    d2 = tfd.Poisson(log_rate=np.log(rate))
    np.testing.assert_allclose(_run(d2.rate), rate)
    with pytest.raises(ValueError, match="exactly one"):
        tfd.Poisson()
    x = d.sample(4000, seed=3)
    assert x.get_shape().as_list() == [4000, 3] and d.dtype == tf.float64
    np.testing.assert_allclose(_run(x).mean(0), rate, rtol=0.1)


def test_binomial_matches_scipy_and_has_no_sampler():
    n, p = np.array([10.0, 4.0]), np.array([0.3, 0.8])
    k = np.array([2.0, 4.0])
    d = tfd.Binomial(total_count=n, probs=p)
    lp, cdf = _run(d.log_prob(k), d.cdf(k))
    np.testing.assert_allclose(lp, stats.binom.logpmf(k, n, p), rtol=1e-10)
    np.testing.assert_allclose(cdf, stats.binom.cdf(k, n, p), rtol=1e-10)
    np.testing.assert_allclose(_run(d.cdf(n)), [1.0, 1.0])
    np.testing.assert_allclose(_run(d.mean()), n * p)
    np.testing.assert_allclose(_run(d.variance()), n * p * (1 - p))
    np.testing.assert_allclose(_run(d.mode()), np.floor((n + 1) * p))
    d_logits = tfd.Binomial(total_count=n, logits=special.logit(p))
    np.testing.assert_allclose(_run(d_logits.probs), p)
    with pytest.raises(NotImplementedError):
        d.sample()


def test_negative_binomial_and_geometric_match_scipy():
    r, p = 3.0, 0.4
    k = np.arange(6.0)
    nb = tfd.NegativeBinomial(total_count=r, probs=p)
    lp, cdf, mean, var = _run(nb.log_prob(k), nb.cdf(k), nb.mean(), nb.variance())
    # successes (probability p) before r failures: scipy counts failures before r successes
    np.testing.assert_allclose(lp, stats.nbinom.logpmf(k, r, 1 - p), rtol=1e-6)
    np.testing.assert_allclose(cdf, stats.nbinom.cdf(k, r, 1 - p), rtol=1e-5)
    np.testing.assert_allclose([mean, var], [r * p / (1 - p), r * p / (1 - p) ** 2], rtol=1e-6)
    np.testing.assert_allclose(_run(tf.reduce_mean(nb.sample(4000, seed=1))), r * p / (1 - p),
                               rtol=0.1)
    g = tfd.Geometric(probs=p)
    lp, cdf, ent, mean, var = _run(g.log_prob(k), g.cdf(k), g.entropy(), g.mean(), g.variance())
    np.testing.assert_allclose(lp, stats.geom.logpmf(k + 1, p), rtol=1e-6)
    np.testing.assert_allclose(cdf, stats.geom.cdf(k + 1, p), rtol=1e-6)
    np.testing.assert_allclose(ent, stats.geom.entropy(p), rtol=1e-6)
    np.testing.assert_allclose([mean, var], [(1 - p) / p, (1 - p) / p ** 2], rtol=1e-6)
    assert _run(g.cdf(-1.0)) == 0.0
    # p = 1: all mass at 0 (finite, not NaN)
    assert _run(tfd.Geometric(probs=1.0).log_prob(0.0)) == 0.0
    draws = _run(g.sample(3000, seed=7))
    assert draws.min() >= 0 and np.all(draws == np.floor(draws))
    np.testing.assert_allclose(draws.mean(), (1 - p) / p, rtol=0.1)


# -- continuous families ------------------------------------------------------------------------


def test_chi2_and_inverse_gamma_match_scipy():
    x = np.array([0.3, 1.0, 4.5])
    c = tfd.Chi2(df=np.array([1.0, 3.0, 6.0]))
    lp, cdf, ent = _run(c.log_prob(x), c.cdf(x), c.entropy())
    np.testing.assert_allclose(lp, stats.chi2.logpdf(x, [1, 3, 6]), rtol=1e-10)
    np.testing.assert_allclose(cdf, stats.chi2.cdf(x, [1, 3, 6]), rtol=1e-8)
    np.testing.assert_allclose(ent, stats.chi2.entropy([1, 3, 6]), rtol=1e-8)
    assert isinstance(c, tfd.Gamma) and sorted(c.parameters) == [
        "allow_nan_stats", "df", "name", "validate_args"]
    np.testing.assert_allclose(_run(tfd.Chi2WithAbsDf(-3.7).df), 3.0)
    a, b = np.array([3.5, 1.5]), np.array([2.0, 0.5])
    ig = tfd.InverseGamma(concentration=a, rate=b)
    x = np.array([0.4, 2.0])
    lp, cdf, ent, mode = _run(ig.log_prob(x), ig.cdf(x), ig.entropy(), ig.mode())
    np.testing.assert_allclose(lp, stats.invgamma.logpdf(x, a, scale=b), rtol=1e-10)
    np.testing.assert_allclose(cdf, stats.invgamma.cdf(x, a, scale=b), rtol=1e-8)
    np.testing.assert_allclose(ent, stats.invgamma.entropy(a, scale=b), rtol=1e-8)
    np.testing.assert_allclose(mode, b / (a + 1))
    mean, var = _run(ig.mean(), ig.variance())
    np.testing.assert_allclose(mean[0], b[0] / (a[0] - 1))
    np.testing.assert_allclose(var[0], stats.invgamma.var(a[0], scale=b[0]))
    assert np.isnan(var[1]) and not np.isnan(mean[1])
    strict = tfd.InverseGamma(1.5, 1.0, allow_nan_stats=False)
    with pytest.raises(tf.errors.InvalidArgumentError, match="variance undefined"):
        _run(strict.variance())


def test_logistic_cauchy_half_normal_match_scipy():
    x = np.array([-2.0, 0.3, 4.0])
    lo = tfd.Logistic(loc=np.float64(0.5), scale=np.array([1.0, 2.0, 0.5]))
    got = _run(lo.log_prob(x), lo.cdf(x), lo.log_cdf(x), lo.log_survival_function(x),
               lo.entropy(), lo.stddev())
    scale = np.array([1.0, 2.0, 0.5])
    want = [stats.logistic.logpdf(x, 0.5, scale), stats.logistic.cdf(x, 0.5, scale),
            stats.logistic.logcdf(x, 0.5, scale), stats.logistic.logsf(x, 0.5, scale),
            stats.logistic.entropy(0.5, scale), stats.logistic.std(0.5, scale)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-8)
    assert lo.reparameterization_type == tfd.FULLY_REPARAMETERIZED
    ca = tfd.Cauchy(loc=1.0, scale=2.0)
    lp, cdf, ent, q = _run(ca.log_prob(x), ca.cdf(x), ca.entropy(), ca.quantile(0.9))
    np.testing.assert_allclose(lp, stats.cauchy.logpdf(x, 1.0, 2.0), rtol=1e-6)
    np.testing.assert_allclose(cdf, stats.cauchy.cdf(x, 1.0, 2.0), rtol=1e-6)
    np.testing.assert_allclose(ent, stats.cauchy.entropy(1.0, 2.0), rtol=1e-6)
    np.testing.assert_allclose(q, stats.cauchy.ppf(0.9, 1.0, 2.0), rtol=1e-5)
    assert np.isnan(_run(ca.mean()))
    with pytest.raises(ValueError, match="undefined"):
        tfd.Cauchy(0.0, 1.0, allow_nan_stats=False).variance()
    hn = tfd.HalfNormal(scale=np.array([1.0, 2.5]))
    x = np.array([0.7, 3.0])
    lp, cdf, ent, mean, var = _run(hn.log_prob(x), hn.cdf(x), hn.entropy(), hn.mean(),
                                   hn.variance())
    s = np.array([1.0, 2.5])
    np.testing.assert_allclose(lp, stats.halfnorm.logpdf(x, scale=s), rtol=1e-10)
    np.testing.assert_allclose(cdf, stats.halfnorm.cdf(x, scale=s), rtol=1e-10)
    np.testing.assert_allclose(ent, stats.halfnorm.entropy(scale=s), rtol=1e-10)
    np.testing.assert_allclose(mean, stats.halfnorm.mean(scale=s), rtol=1e-10)
    np.testing.assert_allclose(var, stats.halfnorm.var(scale=s), rtol=1e-10)
    assert _run(hn.log_prob([-1.0, 1.0]))[0] == -np.inf
    assert (_run(hn.sample(100, seed=2)) >= 0).all()


def test_deterministic_point_masses():
    d = tfd.Deterministic(loc=[1.0, 2.0], atol=0.1)
    assert d.batch_shape.as_list() == [2] and d.event_shape.as_list() == []
    np.testing.assert_allclose(_run(d.prob([1.05, 2.5])), [1.0, 0.0])
    np.testing.assert_allclose(_run(d.cdf([0.5, 2.0])), [0.0, 1.0])
    assert _run(d.sample(3)).tolist() == [[1.0, 2.0]] * 3
    np.testing.assert_allclose(_run(d.variance()), [0.0, 0.0])
    v = tfd.VectorDeterministic(loc=[[1.0, 2.0], [3.0, 4.0]])
    assert v.batch_shape.as_list() == [2] and v.event_shape.as_list() == [2]
    np.testing.assert_allclose(_run(v.prob([[1.0, 2.0], [3.0, 5.0]])), [1.0, 0.0])
    assert v.sample(5).get_shape().as_list() == [5, 2, 2]


# -- bijectors ----------------------------------------------------------------------------------


def _numeric_log_slope(f, x, eps=1e-6):
    return np.log(np.abs((f(x + eps) - f(x - eps)) / (2 * eps)))


@pytest.mark.parametrize("make,f", [
    (lambda: tfb.Exp(), np.exp),
    (lambda: tfb.Sigmoid(), special.expit),
    (lambda: tfb.Softplus(), lambda x: np.log1p(np.exp(x))),
    (lambda: tfb.Softplus(hinge_softness=0.5), lambda x: 0.5 * np.log1p(np.exp(x / 0.5))),
    (lambda: tfb.Softsign(), lambda x: x / (1 + np.abs(x))),
    (lambda: tfb.AffineScalar(shift=1.5, scale=-2.0), lambda x: -2.0 * x + 1.5),
    (lambda: tfb.PowerTransform(power=0.5), lambda x: (1 + 0.5 * x) ** 2.0),
    (lambda: tfb.Gumbel(loc=0.5, scale=2.0), lambda x: np.exp(-np.exp(-(x - 0.5) / 2.0))),
])
def test_scalar_bijectors_forward_inverse_and_log_det_jacobians(make, f):
    b = make()  # float32, as the Python-number parameters make the bijectors
    x = np.array([-0.7, 0.2, 1.3])
    x32, y32 = tf.constant(x, tf.float32), tf.constant(f(x), tf.float32)
    y, x_back, fldj, ildj = _run(b.forward(x32), b.inverse(y32),
                                 b.forward_log_det_jacobian(x32, event_ndims=0),
                                 b.inverse_log_det_jacobian(y32, event_ndims=0))
    np.testing.assert_allclose(y, f(x), rtol=1e-5)
    np.testing.assert_allclose(x_back, x, rtol=1e-4)
    np.testing.assert_allclose(fldj, _numeric_log_slope(f, x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ildj, -fldj, rtol=1e-4, atol=1e-5)
    # summed over one event dim (a constant Jacobian, given once, counts per element)
    summed = _run(b.forward_log_det_jacobian(x32, event_ndims=1))
    np.testing.assert_allclose(summed, np.broadcast_to(fldj, x.shape).sum(), rtol=1e-5)


def test_weibull_and_kumaraswamy_bijectors():
    w = tfb.Weibull(scale=np.float64(2.0), concentration=1.5)
    x = np.array([0.5, 1.0, 3.0])
    np.testing.assert_allclose(_run(w.forward(x)), stats.weibull_min.cdf(x, 1.5, scale=2.0))
    np.testing.assert_allclose(_run(w.forward_log_det_jacobian(x, event_ndims=0)),
                               stats.weibull_min.logpdf(x, 1.5, scale=2.0), rtol=1e-8)
    k = tfb.Kumaraswamy(concentration1=np.float64(2.0), concentration0=3.0)
    u = np.array([0.1, 0.5, 0.9])
    y = _run(k.forward(u))
    np.testing.assert_allclose(_run(k.inverse(y)), u, rtol=1e-8)
    np.testing.assert_allclose(y, (1 - (1 - u) ** (1 / 3.0)) ** (1 / 2.0), rtol=1e-8)


def test_invert_chain_and_inline():
    inv = tfb.Invert(tfb.Softplus())
    assert inv.name == "invert_softplus"
    np.testing.assert_allclose(_run(inv.forward(2.0)), np.log(np.expm1(2.0)))
    np.testing.assert_allclose(_run(inv.inverse(1.0)), np.log1p(np.e))
    np.testing.assert_allclose(_run(inv.inverse_log_det_jacobian(1.0, event_ndims=0)),
                               np.log(special.expit(1.0)), rtol=1e-6)
    chain = tfb.Chain([tfb.Exp(), tfb.AffineScalar(shift=np.float64(1.0), scale=2.0)])
    assert chain.name == "chain_of_exp_of_affine_scalar"
    x = np.array([0.1, 0.4])
    np.testing.assert_allclose(_run(chain.forward(x)), np.exp(2 * x + 1))
    np.testing.assert_allclose(_run(chain.inverse(np.exp(2 * x + 1))), x)
    np.testing.assert_allclose(_run(chain.forward_log_det_jacobian(x, event_ndims=0)),
                               np.log(2) + 2 * x + 1)
    np.testing.assert_allclose(_run(chain.inverse_log_det_jacobian(np.exp(2 * x + 1),
                                                                  event_ndims=1)),
                               -(np.log(2) * 2 + (2 * x + 1).sum()))
    assert tfb.Chain().name == "identity"
    inline = tfb.Inline(forward_fn=lambda x: 3.0 * x, inverse_fn=lambda y: y / 3.0,
                        inverse_log_det_jacobian_fn=lambda y: -math.log(3.0) * tf.ones_like(y),
                        forward_min_event_ndims=0, name="triple")
    assert inline.name == "triple"
    np.testing.assert_allclose(_run(inline.forward_log_det_jacobian([1.0, 2.0], 0)),
                               [math.log(3.0)] * 2)
    no_inverse = tfb.Inline(forward_fn=tf.exp, forward_min_event_ndims=0)
    with pytest.raises(NotImplementedError):
        no_inverse.inverse(1.0)


def test_softmax_centered_and_affine_vector_bijectors():
    sc = tfb.SoftmaxCentered()
    assert sc.forward_min_event_ndims == 1
    assert sc.forward_event_shape([3]).as_list() == [4]
    assert sc.inverse_event_shape([4]).as_list() == [3]
    assert _run(sc.forward_event_shape_tensor([3])).tolist() == [4]
    x = np.array([[0.2, -1.0, 0.5], [0.0, 0.0, 0.0]])
    y = _run(sc.forward(x))
    padded = np.concatenate([x, np.zeros([2, 1])], 1)
    np.testing.assert_allclose(y, special.softmax(padded, 1))
    np.testing.assert_allclose(_run(sc.inverse(tf.constant(y))), x, atol=1e-12)
    np.testing.assert_allclose(_run(sc.inverse_log_det_jacobian(tf.constant(y), 1)),
                               -np.log(y).sum(1))
    # the Jacobian of x -> y[:k] is diag(y) - y y^T: log det = sum of all k+1 log y
    np.testing.assert_allclose(_run(sc.forward_log_det_jacobian(x, 1)), np.log(y).sum(1))
    with pytest.raises(TypeError):
        tfb.SoftmaxCentered(event_ndims=1)  # TF >= 1.6 dropped the argument
    tril = np.array([[2.0, 0.0], [0.5, 1.5]])
    aff = tfb.Affine(shift=[1.0, -1.0], scale_tril=tril, scale_diag=[0.5, 0.5])
    m = tril + np.diag([0.5, 0.5])
    v = np.array([[1.0, 2.0], [-1.0, 0.5]])
    out = _run(aff.forward(v))
    np.testing.assert_allclose(out, v @ m.T + [1.0, -1.0])
    np.testing.assert_allclose(_run(aff.inverse(tf.constant(out))), v)
    np.testing.assert_allclose(_run(aff.forward_log_det_jacobian(v, 1)),
                               np.log(np.abs(np.linalg.det(m))))
    ident = tfb.Affine(shift=[1.0, 2.0], scale_identity_multiplier=3.0)
    np.testing.assert_allclose(_run(ident.forward([1.0, 1.0])), [4.0, 5.0])
    np.testing.assert_allclose(_run(ident.forward_log_det_jacobian([1.0, 1.0], 1)),
                               2 * np.log(3.0))


# -- composite distributions -----------------------------------------------------------------------


def test_transformed_distribution_log_normal_and_affine_override():
    ln = tfd.TransformedDistribution(distribution=tfd.Normal(loc=np.float64(0.3), scale=np.float64(0.8)),
                                     bijector=tfb.Exp(), name="LogNormal")
    x = np.array([0.5, 1.0, 4.0])
    lp, cdf, q = _run(ln.log_prob(x), ln.cdf(x), ln.quantile(0.3))
    np.testing.assert_allclose(lp, stats.lognorm.logpdf(x, 0.8, scale=np.exp(0.3)), rtol=1e-6)
    np.testing.assert_allclose(cdf, stats.lognorm.cdf(x, 0.8, scale=np.exp(0.3)), rtol=1e-6)
    np.testing.assert_allclose(q, stats.lognorm.ppf(0.3, 0.8, scale=np.exp(0.3)), rtol=1e-5)
    assert ln.sample([2, 5]).get_shape().as_list() == [2, 5]
    assert ln.reparameterization_type == tfd.FULLY_REPARAMETERIZED
    with pytest.raises(NotImplementedError):
        ln.mean()  # a non-constant Jacobian, as TF
    # an MVN from scalar normals: an event_shape override and an affine map
    tril = np.array([[1.0, 0.0], [0.6, 0.8]])
    mvn = tfd.TransformedDistribution(distribution=tfd.Normal(np.float64(0.0), np.float64(1.0)),
                                      bijector=tfb.Affine(shift=[1.0, 2.0], scale_tril=tril),
                                      event_shape=[2])
    assert mvn.event_shape.as_list() == [2] and mvn.batch_shape.as_list() == []
    v = np.array([0.5, 1.5])
    want = stats.multivariate_normal.logpdf(v, [1.0, 2.0], tril @ tril.T)
    np.testing.assert_allclose(_run(mvn.log_prob(v)), want, rtol=1e-6)
    with pytest.raises(NotImplementedError):
        mvn.mean()  # TF 1.15's TransformedDistribution has no moments
    np.testing.assert_allclose(_run(mvn.entropy()),
                               stats.multivariate_normal.entropy([1.0, 2.0], tril @ tril.T),
                               rtol=1e-6)
    assert mvn.sample(7).get_shape().as_list() == [7, 2]
    # an event override over a batch of base distributions: event dims drawn, then rotated
    loc = np.array([0.0, 1.0, 2.0])
    rot = tfd.TransformedDistribution(tfd.Normal(loc=loc, scale=np.float64(1.0)),
                                      bijector=tfb.AffineScalar(shift=np.float64(0.5)),
                                      event_shape=[2])
    assert rot.batch_shape.as_list() == [3] and rot.event_shape.as_list() == [2]
    assert rot.sample(4).get_shape().as_list() == [4, 3, 2]
    yv = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(_run(rot.log_prob(yv)),
                               stats.norm.logpdf(yv - 0.5, loc[:, None]).sum(1), rtol=1e-10)
    np.testing.assert_allclose(_run(rot.entropy()), [2 * stats.norm.entropy()] * 3, rtol=1e-10)
    draws = _run(rot.sample(3000, seed=8))
    np.testing.assert_allclose(draws.mean(0), np.broadcast_to(loc[:, None] + 0.5, (3, 2)),
                               atol=0.1)
    # Edward's transform of a Beta: sigmoid-inverse; density of the logit
    t = tfd.TransformedDistribution(tfd.Beta(np.float64(2.0), np.float64(3.0)),
                                    tfb.Invert(tfb.Sigmoid()))
    z = 0.4
    p = special.expit(z)
    np.testing.assert_allclose(_run(t.log_prob(z)),
                               stats.beta.logpdf(p, 2, 3) + np.log(p * (1 - p)), rtol=1e-6)


def test_independent_sums_reinterpreted_dims_and_its_kl():
    loc = np.arange(6.0).reshape(3, 2)
    ind = tfd.Independent(tfd.Normal(loc=loc, scale=np.float64(1.0)))
    assert ind.reinterpreted_batch_ndims == 1
    assert ind.batch_shape.as_list() == [3] and ind.event_shape.as_list() == [2]
    x = np.zeros([3, 2])
    np.testing.assert_allclose(_run(ind.log_prob(x)),
                               stats.norm.logpdf(x, loc).sum(1))
    assert ind.sample(4).get_shape().as_list() == [4, 3, 2]
    np.testing.assert_allclose(_run(ind.entropy()), [stats.norm.entropy() * 2] * 3)
    other = tfd.Independent(tfd.Normal(loc=np.zeros([3, 2]), scale=np.float64(1.0)))
    np.testing.assert_allclose(_run(tfd.kl_divergence(ind, other)),
                               0.5 * (loc ** 2).sum(1))
    whole = tfd.Independent(tfd.Normal(loc=loc, scale=np.float64(1.0)),
                            reinterpreted_batch_ndims=2)
    assert whole.batch_shape.as_list() == [] and whole.event_shape.as_list() == [3, 2]
    with pytest.raises(ValueError):
        tfd.Independent(tfd.Normal(loc=loc, scale=1.0), reinterpreted_batch_ndims=3)


def test_mixture_density_moments_and_samples():
    probs = np.array([0.3, 0.7], np.float32)
    mix = tfd.Mixture(cat=tfd.Categorical(probs=probs),
                      components=[tfd.Normal(-1.0, 0.5), tfd.Normal(2.0, 1.5)])
    x = np.array([-1.0, 0.0, 3.0])
    want = np.log(0.3 * stats.norm.pdf(x, -1, 0.5) + 0.7 * stats.norm.pdf(x, 2, 1.5))
    np.testing.assert_allclose(_run(mix.log_prob(x)), want, rtol=1e-6)
    np.testing.assert_allclose(_run(mix.cdf(0.5)),
                               0.3 * stats.norm.cdf(0.5, -1, 0.5)
                               + 0.7 * stats.norm.cdf(0.5, 2, 1.5), rtol=1e-6)
    mean = 0.3 * -1.0 + 0.7 * 2.0
    var = 0.3 * (0.25 + 1.0) + 0.7 * (2.25 + 4.0) - mean ** 2
    np.testing.assert_allclose(_run(mix.mean()), mean, rtol=1e-6)
    np.testing.assert_allclose(_run(mix.variance()), var, rtol=1e-6)
    draws = _run(mix.sample(6000, seed=11))
    np.testing.assert_allclose([draws.mean(), draws.var()], [mean, var], rtol=0.08)
    assert mix.num_components == 2 and mix.sample([2, 3]).get_shape().as_list() == [2, 3]
    np.testing.assert_allclose(_run(mix.entropy_lower_bound()),
                               0.3 * stats.norm.entropy(-1, 0.5)
                               + 0.7 * stats.norm.entropy(2, 1.5), rtol=1e-6)
    vec = tfd.Mixture(cat=tfd.Categorical(probs=[[0.5, 0.5]] * 3),
                      components=[tfd.MultivariateNormalDiag(tf.zeros([3, 2])),
                                  tfd.MultivariateNormalDiag(tf.ones([3, 2]))])
    assert vec.batch_shape.as_list() == [3] and vec.event_shape.as_list() == [2]
    assert vec.sample(4).get_shape().as_list() == [4, 3, 2]
    v = np.array([[0.0, 0.0], [1.0, 1.0], [0.5, -0.5]], np.float32)
    want = np.logaddexp(stats.multivariate_normal.logpdf(v, [0, 0]),
                        stats.multivariate_normal.logpdf(v, [1, 1])) + np.log(0.5)
    np.testing.assert_allclose(_run(vec.log_prob(v)), want, rtol=1e-5)
    np.testing.assert_allclose(_run(vec.mean()), np.full([3, 2], 0.5))
    # TF 1.15: the components' stddevs (of their identity scales, shape [2]) do not line up
    # with the mixture weights
    with pytest.raises(ValueError, match="Expecting stddevs to have same shape"):
        vec.variance()
    with pytest.raises(ValueError, match="num_classes"):
        tfd.Mixture(cat=tfd.Categorical(probs=[0.5, 0.5]), components=[tfd.Normal(0.0, 1.0)])
    with pytest.raises(TypeError):
        tfd.Mixture(cat=tfd.Normal(0.0, 1.0), components=[tfd.Normal(0.0, 1.0)])


def test_relaxed_bernoulli_and_kumaraswamy():
    rb = tfd.RelaxedBernoulli(temperature=0.5, probs=0.3)
    assert isinstance(rb, tfd.TransformedDistribution)
    y = np.array([0.1, 0.5, 0.9])
    t, logit = 0.5, special.logit(0.3)
    z = special.logit(y)
    # the logistic(logit / t, 1 / t) density of logit(y), times |d logit / dy|
    want = stats.logistic.logpdf(z, logit / t, 1 / t) - np.log(y * (1 - y))
    np.testing.assert_allclose(_run(rb.log_prob(y)), want, rtol=1e-5)
    s = _run(rb.sample(500, seed=4))
    assert s.min() > 0 and s.max() < 1
    np.testing.assert_allclose(_run(rb.temperature), 0.5)
    k = tfd.Kumaraswamy(concentration1=2.0, concentration0=3.0)
    a, b = 2.0, 3.0
    x = np.array([0.2, 0.6])
    lp, cdf, mean, mode = _run(k.log_prob(x), k.cdf(x), k.mean(), k.mode())
    np.testing.assert_allclose(lp, np.log(a * b * x ** (a - 1) * (1 - x ** a) ** (b - 1)),
                               rtol=1e-6)
    np.testing.assert_allclose(cdf, 1 - (1 - x ** a) ** b, rtol=1e-6)
    np.testing.assert_allclose(mean, b * special.beta(1 + 1 / a, b), rtol=1e-6)
    np.testing.assert_allclose(mode, ((a - 1) / (a * b - 1)) ** (1 / a), rtol=1e-6)
    # TF 1.15's entropy formula (swapped a and b terms, log(a) + log(b) added) prints
    # 3.513981819152832 where the true entropy is -0.2084
    np.testing.assert_allclose(_run(k.entropy()), 3.513981819152832, rtol=1e-6)


def test_contrib_distributions_namespace_and_bijectors_module():
    for name in ["Binomial", "Cauchy", "Chi2", "Deterministic", "Geometric", "HalfNormal",
                 "Independent", "InverseGamma", "Kumaraswamy", "Logistic", "Mixture",
                 "NegativeBinomial", "Poisson", "RelaxedBernoulli", "TransformedDistribution",
                 "VectorDeterministic", "bijectors"]:
        assert name in tfd.__all__ and hasattr(tfd, name)
    import importlib

    mod = importlib.import_module("tideflow.contrib.distributions.bijectors")
    assert mod.Invert is tfb.Invert and issubclass(tfb.Softplus, tfb.Bijector)
    # classes a library may enumerate (Edward wraps every Distribution subclass it finds)
    found = [n for n in dir(tfd) if isinstance(getattr(tfd, n), type)
             and issubclass(getattr(tfd, n), tfd.Distribution)]
    assert {"Poisson", "Binomial", "Chi2", "InverseGamma", "Mixture"} <= set(found)


# -- compound families and helpers ---------------------------------------------------------------


def test_mixture_same_family_scalar_and_vector_components():
    msf = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(probs=[0.25, 0.75]),
        components_distribution=tfd.Normal(loc=[-2.0, 1.0], scale=[0.5, 1.5]))
    assert msf.batch_shape.as_list() == [] and msf.event_shape.as_list() == []
    x = np.array([-2.0, 0.0, 2.5], np.float32)
    want = np.log(0.25 * stats.norm.pdf(x, -2, 0.5) + 0.75 * stats.norm.pdf(x, 1, 1.5))
    np.testing.assert_allclose(_run(msf.log_prob(x)), want, rtol=1e-5)
    np.testing.assert_allclose(_run(msf.cdf(0.0)), 0.25 * stats.norm.cdf(0, -2, 0.5)
                               + 0.75 * stats.norm.cdf(0, 1, 1.5), rtol=1e-5)
    mean = 0.25 * -2 + 0.75 * 1
    var = 0.25 * (0.25 + 4) + 0.75 * (2.25 + 1) - mean ** 2
    np.testing.assert_allclose(_run([msf.mean(), msf.variance()]), [mean, var], rtol=1e-5)
    # TF 1.15 ignores this seed (its op seeds come from the graph): the draws vary by run
    draws = _run(msf.sample(8000, seed=5))
    np.testing.assert_allclose(draws.mean(), mean, atol=0.1)
    np.testing.assert_allclose(draws.var(), var, rtol=0.1)
    mv = tfd.MixtureSameFamily(
        mixture_distribution=tfd.Categorical(probs=[[0.5, 0.5]] * 3),
        components_distribution=tfd.MultivariateNormalDiag(loc=tf.zeros([3, 2, 4]),
                                                           scale_diag=tf.ones([3, 2, 4])))
    assert mv.batch_shape.as_list() == [3] and mv.event_shape.as_list() == [4]
    assert mv.sample(5).get_shape().as_list() == [5, 3, 4]
    np.testing.assert_allclose(_run(mv.log_prob(tf.zeros([3, 4]))),
                               [stats.multivariate_normal.logpdf(np.zeros(4), np.zeros(4))] * 3,
                               rtol=1e-5)
    with pytest.raises(ValueError, match="does not equal"):
        tfd.MixtureSameFamily(tfd.Categorical(probs=[0.5, 0.5]), tfd.Normal([0.0] * 3, 1.0))


def test_quantized_distribution_folds_the_tails():
    q = tfd.QuantizedDistribution(tfd.Normal(loc=np.float64(0.3), scale=np.float64(1.2)), low=-1.0,
                                  high=2.0)
    ys = np.arange(-2.0, 4.0)
    f = stats.norm(0.3, 1.2).cdf
    want = [0.0, f(-1), f(0) - f(-1), f(1) - f(0), 1 - f(1), 0.0]
    np.testing.assert_allclose(_run(q.prob(ys)), want, rtol=1e-10)
    np.testing.assert_allclose(_run(q.cdf(ys)), [0.0, f(-1), f(0), f(1), 1.0, 1.0],
                               rtol=1e-10)
    assert _run(q.prob(0.5)) == 0.0
    draws = _run(q.sample(500, seed=1))
    assert set(np.unique(draws)) <= {-1.0, 0.0, 1.0, 2.0}
    plain = tfd.QuantizedDistribution(tfd.Poisson(rate=np.float64(3.0)))
    np.testing.assert_allclose(_run(plain.prob(2.0)), stats.poisson.pmf(2, 3.0), rtol=1e-10)


def test_vector_laplace_and_exponential_diag():
    vl = tfd.VectorLaplaceDiag(loc=[[1.0, 2.0]] * 2, scale_diag=[0.5, 2.0])
    assert vl.batch_shape.as_list() == [2] and vl.event_shape.as_list() == [2]
    x = np.array([0.3, 2.5], np.float32)
    np.testing.assert_allclose(_run(vl.log_prob(x)),
                               [stats.laplace.logpdf(x, [1, 2], [0.5, 2]).sum()] * 2, rtol=1e-6)
    np.testing.assert_allclose(_run(vl.mean()), [[1.0, 2.0]] * 2)
    np.testing.assert_allclose(_run(vl.stddev()), [[0.5 * 2 ** 0.5, 2 * 2 ** 0.5]] * 2,
                               rtol=1e-6)
    np.testing.assert_allclose(_run(vl.covariance())[0], np.diag([0.5, 8.0]), rtol=1e-6)
    assert vl.sample(3).get_shape().as_list() == [3, 2, 2]
    ve = tfd.VectorExponentialDiag(loc=[1.0, 2.0], scale_diag=[0.5, 2.0])
    np.testing.assert_allclose(_run(ve.log_prob([1.5, 3.0])),
                               stats.expon.logpdf([1.5, 3.0], [1, 2], [0.5, 2]).sum(), rtol=1e-6)
    np.testing.assert_allclose(_run(ve.mean()), [1.5, 4.0])
    assert (_run(ve.sample(200, seed=3)) >= [1.0, 2.0]).all()


def test_wishart_full_and_cholesky_match_scipy():
    s = np.array([[2.0, 0.3], [0.3, 1.0]])
    x = np.array([[8.0, 1.0], [1.0, 4.0]])
    w = tfd.WishartFull(df=5.0, scale=s)
    lp, ent, mean, var = _run(w.log_prob(x), w.entropy(), w.mean(), w.variance())
    np.testing.assert_allclose(lp, stats.wishart.logpdf(x, 5, s), rtol=1e-10)
    np.testing.assert_allclose(ent, stats.wishart.entropy(5, s), rtol=1e-10)
    np.testing.assert_allclose(mean, 5 * s)
    np.testing.assert_allclose(var, stats.wishart.var(5, s), rtol=1e-10)
    np.testing.assert_allclose(_run(w.mode()), (5 - 2 - 1) * s)
    assert w.event_shape.as_list() == [2, 2] and w.batch_shape.as_list() == []
    draws = _run(w.sample(4000, seed=2))
    np.testing.assert_allclose(draws.mean(0), 5 * s, rtol=0.1, atol=0.1)
    assert np.all(np.linalg.eigvalsh(draws) > 0)
    wc = tfd.WishartCholesky(df=5.0, scale=np.linalg.cholesky(s),
                             cholesky_input_output_matrices=True)
    np.testing.assert_allclose(_run(wc.log_prob(np.linalg.cholesky(x))),
                               stats.wishart.logpdf(x, 5, s), rtol=1e-10)
    chol = _run(wc.sample(2, seed=4))
    assert np.allclose(np.triu(chol, 1), 0.0)


def test_normal_conjugates_percentile_tridiag_and_matrix_diag_transform():
    prior = tfd.Normal(loc=0.0, scale=2.0)
    post = tfd.normal_conjugates_known_scale_posterior(prior, 1.0, tf.constant(6.0), 4)
    np.testing.assert_allclose(_run([post.loc, post.scale]),
                               [6.0 / 4.25, (1 / 4.25) ** 0.5], rtol=1e-6)
    pred = tfd.normal_conjugates_known_scale_predictive(prior, 1.0, tf.constant(6.0), 4)
    np.testing.assert_allclose(_run(pred.scale), (1 / 4.25 + 1.0) ** 0.5, rtol=1e-6)
    with pytest.raises(TypeError):
        tfd.normal_conjugates_known_scale_posterior(tfd.Laplace(0.0, 1.0), 1.0,
                                                    tf.constant(1.0), 1)
    x = np.array([[1.0, 9.0, 3.0, 7.0], [5.0, 6.0, 8.0, 2.0]])
    for q, how in [(40.0, "nearest"), (30.0, "lower"), (30.0, "higher"), (90.0, None)]:
        got = _run(tfd.percentile(x, q, axis=1, interpolation=how))
        want = np.percentile(x, q, axis=1, method=how or "nearest")
        np.testing.assert_allclose(got, want)
    assert _run(tfd.percentile(x, 50.0, keep_dims=True)).shape == (1, 1)
    with pytest.raises(ValueError, match="interpolation"):
        tfd.percentile(x, 50.0, interpolation="linear")
    np.testing.assert_allclose(_run(tfd.tridiag([1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0])),
                               [[3, 6, 0], [1, 4, 7], [0, 2, 5]])
    np.testing.assert_allclose(_run(tfd.tridiag(diag=[1.0, 2.0])), np.diag([1.0, 2.0]))
    with pytest.raises(ValueError):
        tfd.tridiag()
    m = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(_run(tfd.matrix_diag_transform(m, tf.exp)),
                               [[np.e, 2.0], [3.0, np.exp(4.0)]])


def _numeric_log_det(f, v, eps=1e-6):
    jac = np.zeros((len(v), len(v)))
    for i in range(len(v)):
        d = np.zeros(len(v))
        d[i] = eps
        jac[:, i] = (f(v + d) - f(v - d)) / (2 * eps)
    return np.log(abs(np.linalg.det(jac)))


def test_matrix_and_shape_bijectors():
    low = np.array([[1.5, 0.0], [0.3, 0.8]])
    tri = np.tril_indices(2)

    def on_tril(fn):
        def f(v):
            m = np.zeros((2, 2))
            m[tri] = v
            return fn(m)[tri]
        return f

    v = low[tri]
    cop = tfb.CholeskyOuterProduct()
    np.testing.assert_allclose(_run(cop.forward(low)), low @ low.T)
    np.testing.assert_allclose(_run(cop.inverse(low @ low.T)), low)
    np.testing.assert_allclose(_run(cop.forward_log_det_jacobian(low, 2)),
                               _numeric_log_det(on_tril(lambda m: m @ m.T), v), rtol=1e-6)
    inv = tfb.MatrixInverseTriL()
    np.testing.assert_allclose(_run(inv.forward(low)), np.linalg.inv(low), atol=1e-12)
    np.testing.assert_allclose(_run(inv.forward_log_det_jacobian(low, 2)),
                               _numeric_log_det(on_tril(np.linalg.inv), v), rtol=1e-6)
    ft = tfb.FillTriangular()
    assert ft.forward_min_event_ndims == 1 and ft.inverse_min_event_ndims == 2
    np.testing.assert_allclose(_run(ft.forward([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
                               [[4, 0, 0], [6, 5, 0], [3, 2, 1]])
    assert ft.forward_event_shape([5, 6]).as_list() == [5, 3, 3]
    assert ft.inverse_event_shape([3, 3]).as_list() == [6]
    assert _run(ft.forward_event_shape_tensor([6])).tolist() == [3, 3]
    td = tfb.TransformDiagonal(diag_bijector=tfb.Exp())
    np.testing.assert_allclose(_run(td.forward(low)), [[np.exp(1.5), 0], [0.3, np.exp(0.8)]])
    np.testing.assert_allclose(_run(td.forward_log_det_jacobian(low, 2)), 1.5 + 0.8)
    st = tfb.ScaleTriL()
    out = _run(st.forward(np.array([0.0, 1.0, 2.0], np.float32)))
    sp = np.log1p(np.exp([2.0, 0.0])) + 1e-5
    np.testing.assert_allclose(out, [[sp[0], 0.0], [1.0, sp[1]]], rtol=1e-6)
    r = tfb.Reshape(event_shape_out=[2, 3])
    assert r.forward_event_shape([4, 6]).as_list() == [4, 2, 3]
    assert r.inverse_event_shape([4, 2, 3]).as_list() == [4, 6]
    assert _run(tf.shape(r.forward(tf.zeros([4, 6])))).tolist() == [4, 2, 3]
    assert _run(r.inverse_event_shape_tensor([4, 2, 3])).tolist() == [4, 6]
    with pytest.raises(ValueError):
        tfb.Reshape(event_shape_out=[-1, -1])
    sa = tfb.SinhArcsinh(skewness=np.float64(0.5), tailweight=2.0)
    x = np.array([-1.0, 0.3, 2.0])

    def fwd(t):
        return np.sinh((np.arcsinh(t) + 0.5) * 2.0)
    np.testing.assert_allclose(_run(sa.forward(x)), fwd(x))
    np.testing.assert_allclose(_run(sa.inverse(fwd(x))), x, rtol=1e-8)
    np.testing.assert_allclose(_run(sa.forward_log_det_jacobian(x, 0)),
                               _numeric_log_slope(fwd, x), rtol=1e-6)


def test_absolute_value_folds_densities_and_sinh_arcsinh_distribution():
    av = tfb.AbsoluteValue()
    neg, pos = _run(av.inverse([1.0, 2.0]))
    assert neg.tolist() == [-1.0, -2.0] and pos.tolist() == [1.0, 2.0]
    with pytest.raises(NotImplementedError):
        av.forward_log_det_jacobian(1.0, 0)
    with pytest.raises(NotImplementedError):
        tfb.Invert(av)
    folded = tfd.TransformedDistribution(tfd.Normal(np.float64(0.0), np.float64(2.0)), av)
    np.testing.assert_allclose(_run(folded.log_prob([0.5, 3.0])),
                               stats.halfnorm.logpdf([0.5, 3.0], scale=2), rtol=1e-10)
    with pytest.raises(NotImplementedError, match="injective"):
        folded.cdf(1.0)
    plain = tfd.SinhArcsinh(loc=np.float64(1.0), scale=2.0)
    x = np.array([0.0, 1.0, 4.0])
    np.testing.assert_allclose(_run(plain.log_prob(x)), stats.norm.logpdf(x, 1, 2), rtol=1e-10)
    skewed = tfd.SinhArcsinh(loc=np.float64(0.0), scale=1.0, skewness=0.5, tailweight=1.5)
    grid = np.linspace(-30, 30, 200001)
    dens = _run(skewed.prob(grid))
    np.testing.assert_allclose(np.trapezoid(dens, grid), 1.0, rtol=1e-6)
    below = grid <= 0.3
    np.testing.assert_allclose(_run(skewed.cdf(0.3)), np.trapezoid(dens[below], grid[below]),
                               rtol=1e-6)
    assert skewed.sample([3, 2]).get_shape().as_list() == [3, 2]


def test_batch_reshape_moves_batch_members_and_keeps_events():
    loc = np.arange(6.0).reshape(2, 3)
    br = tfd.BatchReshape(tfd.Normal(loc=loc, scale=np.float64(1.0)), [3, 2])
    assert br.batch_shape.as_list() == [3, 2] and br.event_shape.as_list() == []
    assert br.name == "BatchReshapeNormal/"
    np.testing.assert_allclose(_run(br.log_prob(np.zeros([3, 2]))),
                               stats.norm.logpdf(0.0, loc.reshape(3, 2)))
    np.testing.assert_allclose(_run(br.mean()), loc.reshape(3, 2))
    assert _run(tf.shape(br.sample([4, 5]))).tolist() == [4, 5, 3, 2]
    mv = tfd.BatchReshape(tfd.MultivariateNormalDiag(tf.zeros([6, 2])), [-1, 3])
    assert mv.batch_shape.as_list() == [2, 3] and mv.event_shape.as_list() == [2]
    assert _run(tf.shape(mv.log_prob(tf.zeros([2, 3, 2])))).tolist() == [2, 3]
    assert _run(tf.shape(mv.sample(7))).tolist() == [7, 2, 3, 2]
    with pytest.raises(ValueError, match="must match"):
        tfd.BatchReshape(tfd.Normal(loc=loc, scale=np.float64(1.0)), [4, 2])


def test_moving_statistics_and_seed_stream():
    mean, var = tf.Variable(0.0), tf.Variable(0.0)
    update = tfd.assign_moving_mean_variance(mean, var, 1.0, 0.9)
    log_mean = tf.Variable(np.log(2.0))
    log_update = tfd.assign_log_moving_mean_exp(log_mean, np.log(4.0), 0.75)
    moving = tfd.moving_mean_variance(tf.constant([1.0, 3.0]), 0.5)
    names = sorted(v.op.name for v in tf.global_variables())
    assert "moving_mean_variance/moving_mean" in names
    assert not any("moving" in v.op.name for v in tf.trainable_variables())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(update), [0.1, 0.09], rtol=1e-6)
        np.testing.assert_allclose(sess.run(update), [0.19, 0.9 * (0.09 + 0.1 * 0.81)],
                                   rtol=1e-5)
        np.testing.assert_allclose(sess.run(log_update), np.log(0.75 * 2 + 0.25 * 4))
        m, v = sess.run(moving)
        np.testing.assert_allclose(m, [0.5, 1.5])
        np.testing.assert_allclose(v, [0.25, 2.25])
    with pytest.raises(TypeError):
        tfd.assign_moving_mean_variance(tf.Variable(0), tf.Variable(0), 1, 0.5)
    a, b = tfd.SeedStream(42, salt="x"), tfd.SeedStream(42, salt="x")
    first = [a() for _ in range(3)]
    assert first == [b() for _ in range(3)] and len(set(first)) == 3
    assert all(0 <= s < 2 ** 31 for s in first)
    assert tfd.SeedStream(42, salt="y")() != first[0]
    assert tfd.SeedStream(a, salt="z").original_seed == 42


def _variables_behind(t):
    """The variables a tensor's value depends on (what Edward's ``get_variables`` finds by
    walking op inputs)."""
    seen, stack, found = set(), [t.op], set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type in ("VariableV2", "Variable", "VarHandleOp"):
            found.add(op.name)
        stack.extend(i.op for i in op.inputs)
    return found


def test_mvn_second_moments_come_from_the_scale_alone():
    loc = tf.Variable(tf.zeros([4, 3]), name="loc")
    diag = tf.Variable(tf.ones(3), name="diag")
    tril = tf.Variable(tf.eye(3), name="tril")
    mvn_diag = tfd.MultivariateNormalDiag(loc=loc, scale_diag=diag)
    mvn_tril = tfd.MultivariateNormalTriL(loc=loc, scale_tril=tril)
    for dist, scale_var in ((mvn_diag, "diag"), (mvn_tril, "tril")):
        for stat in (dist.variance(), dist.stddev(), dist.covariance()):
            # as TF 1.15: shaped by the scale's batch (none here), not loc's
            assert _variables_behind(stat) == {scale_var}
        assert dist.covariance().get_shape().as_list() == [3, 3]
        assert dist.mean().get_shape().as_list() == [4, 3]
        assert dist.entropy().get_shape().as_list() == [4]
    only_loc = tfd.MultivariateNormalDiag(loc=loc, scale_identity_multiplier=2.0)
    assert _variables_behind(only_loc.variance()) == set()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(only_loc.variance()), [4.0, 4.0, 4.0])
        np.testing.assert_allclose(sess.run(mvn_tril.covariance()), np.eye(3))
        np.testing.assert_allclose(sess.run(mvn_diag.entropy()),
                                   [1.5 * (1 + np.log(2 * np.pi))] * 4, rtol=1e-6)


def test_zeros_like_of_a_static_shape_does_not_read_its_input():
    v = tf.Variable(tf.ones([2, 3]), name="v")
    z = tf.zeros_like(v)
    assert z.op.name == "zeros_like" and _variables_behind(z) == set()
    assert z.get_shape().as_list() == [2, 3] and z.dtype == tf.float32
    assert tf.zeros_like(v, dtype=tf.int32).dtype == tf.int32
    # an unknown shape still takes the value's shape at run time
    p = tf.placeholder(tf.float32, [None, 3])
    zp = tf.zeros_like(p)
    assert zp.op.type == "ZerosLike"
    normal = tfd.Normal(loc=tf.Variable(tf.zeros(3), name="loc"),
                        scale=tf.Variable(tf.ones(3), name="scale"))
    assert _variables_behind(normal.stddev()) == {"scale"}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(z).tolist() == [[0.0] * 3] * 2
        assert sess.run(zp, {p: np.ones([4, 3])}).shape == (4, 3)


def test_masked_autoregressive_flow_is_autoregressive_and_invertible():
    template = tfb.masked_autoregressive_default_template(hidden_layers=[8, 8])
    maf = tfb.MaskedAutoregressiveFlow(shift_and_log_scale_fn=template)
    assert maf.name == "masked_autoregressive_flow" and maf.forward_min_event_ndims == 1
    flow = tfd.TransformedDistribution(distribution=tfd.Normal(0.0, 1.0), bijector=maf,
                                       event_shape=[3])
    x = tf.constant(np.random.RandomState(0).randn(4, 3).astype(np.float32))
    y = maf.forward(x)
    unrolled = tfb.MaskedAutoregressiveFlow(shift_and_log_scale_fn=template, unroll_loop=True)
    y_unrolled = unrolled.forward(x)
    jac = [tf.gradients(y[0, i], x)[0][0] for i in range(3)]
    lp = flow.log_prob(tf.identity(y))
    names = sorted(v.op.name for v in tf.trainable_variables())
    assert names[:2] == ["masked_autoregressive_default_template/dense/bias",
                         "masked_autoregressive_default_template/dense/kernel"]
    assert len(names) == 6  # three masked layers, built once and reused
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xv, yv, yu, jv = sess.run([x, y, y_unrolled, jac])
        np.testing.assert_allclose(yu, yv, rtol=1e-5, atol=1e-6)
        # y_i depends on x_j only for j <= i, and on x_i with slope exp(log_scale_i) > 0
        jv = np.array(jv)
        np.testing.assert_allclose(np.triu(jv, 1), 0.0, atol=1e-7)
        assert np.all(np.diag(jv) > 0)
        back = sess.run(maf.inverse(tf.constant(yv)))
        np.testing.assert_allclose(back, xv, rtol=1e-4, atol=1e-5)
        _, log_scale = sess.run(template(tf.constant(yv)))
        want = stats.norm.logpdf(xv).sum(1) - log_scale.sum(1)
        np.testing.assert_allclose(sess.run(lp), want, rtol=1e-4, atol=1e-4)
        kernel = sess.run(next(v for v in tf.trainable_variables() if v.op.name.endswith(
            "template/dense/kernel")))
        # the first layer is exclusive: 8 units in blocks of 8 // 3 = 2, input i feeding the
        # units from 2 (i + 1) on
        assert kernel.shape == (3, 8)
        for i in range(3):
            assert np.all(kernel[i, :2 * (i + 1)] == 0.0) and np.all(kernel[i, 2 * (i + 1):])


def test_real_nvp_coupling_layer():
    nvp = tfb.RealNVP(num_masked=2, shift_and_log_scale_fn=tfb.real_nvp_default_template(
        hidden_layers=[16]))
    assert nvp.name == "real_nvp"
    z = tf.constant(np.random.RandomState(1).randn(4, 5).astype(np.float32))
    y = nvp.forward(z)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        zv, yv = sess.run([z, y])
        np.testing.assert_allclose(yv[:, :2], zv[:, :2])
        np.testing.assert_allclose(sess.run(nvp.inverse(tf.constant(yv))), zv, rtol=1e-4,
                                   atol=1e-5)
        fldj = sess.run(nvp.forward_log_det_jacobian(z, 1))
        ildj = sess.run(nvp.inverse_log_det_jacobian(tf.constant(yv), 1))
        np.testing.assert_allclose(fldj, -ildj, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        tfb.RealNVP(num_masked=0, shift_and_log_scale_fn=lambda x, n: (x, None))
    shift_only = tfb.RealNVP(num_masked=1, shift_and_log_scale_fn=lambda x, n: (
        tf.tile(x, [1, n]), None))
    np.testing.assert_allclose(_run(shift_only.forward([[1.0, 2.0, 3.0]])), [[1.0, 3.0, 4.0]])
    assert _run(shift_only.forward_log_det_jacobian([[1.0, 2.0, 3.0]], 1)) == 0.0


def test_affine_linear_operator_and_softplus_variants():
    tril = np.array([[2.0, 0.0], [0.5, 1.0]])
    alo = tfb.AffineLinearOperator(shift=np.array([1.0, -1.0]),
                                   scale=tf.linalg.LinearOperatorLowerTriangular(tril))
    v = np.array([[0.3, 0.7]])
    out = _run(alo.forward(v))
    np.testing.assert_allclose(out, v @ tril.T + [1.0, -1.0])
    np.testing.assert_allclose(_run(alo.inverse(out)), v)
    np.testing.assert_allclose(_run(alo.forward_log_det_jacobian(v, 1)), np.log(2.0))
    assert alo.is_constant_jacobian
    for name in ("BetaWithSoftplusConcentration", "ExponentialWithSoftplusRate",
                 "GammaWithSoftplusConcentrationRate", "LaplaceWithSoftplusScale",
                 "StudentTWithAbsDfSoftplusScale"):
        assert name in tfd.__all__ and issubclass(getattr(tfd, name), tfd.Distribution)
    np.testing.assert_allclose(_run(tfd.ExponentialWithSoftplusRate(0.0).rate), np.log(2.0),
                               rtol=1e-6)


class _Shifted(tfb.ConditionalBijector):
    """y = x + shift, the shift given per call."""

    def __init__(self):
        super().__init__(forward_min_event_ndims=0, name="shifted")

    def _forward(self, x, shift=0.0):
        return x + shift

    def _inverse(self, y, shift=0.0):
        return y - shift

    def _inverse_log_det_jacobian(self, y, shift=0.0):
        return tf.zeros_like(y)


class _CondNormal(tfd.ConditionalDistribution):
    """A unit normal whose mean is given per call."""

    def __init__(self):
        super().__init__(tf.float32, tfd.FULLY_REPARAMETERIZED, False, True, name="CondNormal")

    def _batch_shape(self):
        return tf.TensorShape([])

    def _sample_n(self, n, seed=None, mean=0.0):
        return tf.random_normal([n], seed=seed) + mean

    def _log_prob(self, x, mean=0.0):
        return -0.5 * tf.square(x - mean) - 0.5 * np.log(2 * np.pi)


def test_conditional_bijector_and_transformed_distribution():
    b = _Shifted()
    np.testing.assert_allclose(_run(b.forward(1.0, shift=2.0)), 3.0)
    np.testing.assert_allclose(_run(b.inverse(3.0, shift=2.0)), 1.0)
    assert _run(b.forward_log_det_jacobian(1.0, 0, shift=2.0)) == 0.0
    d = tfd.ConditionalTransformedDistribution(distribution=_CondNormal(), bijector=b)
    lp = d.log_prob(5.0, bijector_kwargs={"shift": 2.0}, distribution_kwargs={"mean": 3.0})
    np.testing.assert_allclose(_run(lp), stats.norm.logpdf(0.0), rtol=1e-6)
    draws = d.sample(2000, seed=3, bijector_kwargs={"shift": 10.0},
                     distribution_kwargs={"mean": -4.0})
    np.testing.assert_allclose(_run(tf.reduce_mean(draws)), 6.0, atol=0.1)
    # without kwargs the defaults apply
    np.testing.assert_allclose(_run(d.log_prob(0.0)), stats.norm.logpdf(0.0), rtol=1e-6)
    base = _CondNormal()
    np.testing.assert_allclose(_run(base.log_prob(1.0, mean=1.0)), stats.norm.logpdf(0.0),
                               rtol=1e-6)
    np.testing.assert_allclose(_run(tf.reduce_mean(base.sample(2000, seed=1, mean=5.0))), 5.0,
                               atol=0.1)


def test_auto_correlation_matches_the_lagged_sum():
    rng = np.random.RandomState(0)
    x = rng.randn(3, 50)

    def lagged(v, lags, center=True, normalize=True):
        w = v - v.mean() if center else v
        r = np.array([(w[m:] * w[:len(w) - m]).sum() / (len(w) - m) for m in range(lags + 1)])
        return r / r[0] if normalize else r

    out = tfd.auto_correlation(x, axis=-1, max_lags=10)
    assert out.get_shape().as_list() == [3, 11]
    np.testing.assert_allclose(_run(out), [lagged(r, 10) for r in x], atol=1e-12)
    along0 = _run(tfd.auto_correlation(x.T, axis=0))
    assert along0.shape == (50, 3)
    np.testing.assert_allclose(along0[:, 2], lagged(x[2], 49), atol=1e-12)
    raw = _run(tfd.auto_correlation(x[0], center=False, normalize=False, max_lags=100))
    np.testing.assert_allclose(raw, lagged(x[0], 49, False, False), atol=1e-12)
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(tfd.percentile([1.0, 2.0], 150.0, validate_args=True))


def test_vector_sinh_arcsinh_diag():
    d = tfd.VectorSinhArcsinhDiag(loc=np.array([1.0, 2.0]), scale_diag=[0.5, 2.0])
    assert d.batch_shape.as_list() == [] and d.event_shape.as_list() == [2]
    x = np.array([0.3, 2.5])
    # no skew, unit tail weight: the diagonal normal
    np.testing.assert_allclose(_run(d.log_prob(x)),
                               stats.norm.logpdf(x, [1, 2], [0.5, 2]).sum(), rtol=1e-10)
    skewed = tfd.VectorSinhArcsinhDiag(loc=np.zeros([3, 2]), skewness=0.3, tailweight=1.4)
    assert skewed.batch_shape.as_list() == [3] and skewed.event_shape.as_list() == [2]
    assert _run(tf.shape(skewed.sample(5))).tolist() == [5, 3, 2]
    g = np.linspace(-20, 20, 1001)
    grid = np.stack(np.meshgrid(g, g, indexing="ij"), -1).reshape(-1, 2)
    dens = _run(skewed.prob(np.broadcast_to(grid[:, None, :], (grid.shape[0], 3, 2))))
    np.testing.assert_allclose(dens.sum(0) * (g[1] - g[0]) ** 2, [1.0] * 3, rtol=1e-4)


def test_autoregressive_feeds_draws_back():
    def normal_fn(x=None):
        # x_0 ~ N(0, 1), x_1 ~ N(x_0, 0.5): a two-step autoregressive chain
        loc = tf.zeros([2]) if x is None else tf.stack([tf.zeros_like(x[..., 0]),
                                                        x[..., 0]], -1)
        return tfd.Independent(tfd.Normal(loc=loc, scale=[1.0, 0.5]),
                               reinterpreted_batch_ndims=1)

    ar = tfd.Autoregressive(normal_fn)
    assert ar.num_steps == 2 and ar.event_shape.as_list() == [2]
    draws = ar.sample(4000, seed=5)
    x = np.array([0.4, 1.0], np.float32)
    np.testing.assert_allclose(_run(ar.log_prob(x)),
                               stats.norm.logpdf(0.4) + stats.norm.logpdf(1.0, 0.4, 0.5),
                               rtol=1e-5)
    dv = _run(draws)
    assert dv.shape == (4000, 2)
    np.testing.assert_allclose(np.cov(dv.T), [[1.0, 1.0], [1.0, 1.25]], atol=0.12)
