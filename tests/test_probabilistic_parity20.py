"""Probabilistic TF 1.x programs (VAEs, mixture density networks, Bayesian regression, GPs,
samplers, flows) against TF 1.15: expected values, names and errors are what TF 1.15 printed
for the same programs."""

import numpy as np
import pytest

import tideflow as tf

cd = tf.contrib.distributions


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


# ------------------------------------------------------------------------------------------
# MixtureSameFamily (a mixture density network's output distribution)
# ------------------------------------------------------------------------------------------


def _msf():
    mu = tf.constant([[-1.0, 0.0, 2.0], [0.5, 1.0, 3.0]])
    return cd.MixtureSameFamily(
        mixture_distribution=cd.Categorical(logits=[[0.0, 1.0, -1.0], [2.0, 0.0, 0.0]]),
        components_distribution=cd.Normal(loc=mu, scale=tf.ones_like(mu)))


def test_mixture_same_family_draws_tf_numbers_under_a_graph_seed():
    # TF 1.15 draws the components first, then the categorical, both without the seed given
    # (their op seeds come from the graph); a random op made after them draws TF's too
    tf.set_random_seed(11)
    sm = _msf().sample(4, seed=3)
    after = tf.random_normal([2])
    got, got_after = _run([sm, after])
    want = [[-1.0718411207199097, 0.23771962523460388], [1.3865662813186646, 1.041723608970642],
            [-0.10153837502002716, 2.839289426803589], [1.2280097007751465, 0.7501611709594727]]
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got_after, [-1.7342040538787842, -0.40820661187171936], rtol=1e-6)
    assert len(tf.get_default_graph().get_operations()) == 100


def test_mixture_same_family_ops_are_tf_ones():
    # TF 1.15: the constructor asks the components for their event shape tensor; a draw pads
    # its one-hot mask under pad_mix_dims, log_prob pads the value under pad_sample_dims
    mix = _msf()
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "Normal/event_shape_tensor/event_shape" in names
    g = tf.get_default_graph()
    n0 = len(g.get_operations())
    mix.sample(2)
    new = [op.name for op in g.get_operations()[n0:]]
    assert new[2].startswith("Normal/sample/") and "Categorical/is_scalar_batch/is_scalar_batch" in new
    assert "MixtureSameFamily/sample/pad_mix_dims/Reshape" in new
    lp = mix.log_prob([0.5, 1.0])
    assert lp.op.name == "MixtureSameFamily/log_prob/ReduceLogSumExp/Add"
    assert "MixtureSameFamily/log_prob/pad_sample_dims/Reshape" in [
        op.name for op in g.get_operations()]
    assert mix.cdf([0.5, 1.0]).op.name == "MixtureSameFamily/cdf/Exp"
    np.testing.assert_allclose(_run(mix.variance()), [1.600669, 1.590202], rtol=1e-5)


def test_mixture_same_family_takes_one_mixture_for_the_whole_batch():
    # TF 1.15: a scalar-batch Categorical mixes every batch member alike
    # -> log_prob [-1.043939, -1.423152], mean [0.7, 2.7]
    m = cd.MixtureSameFamily(
        mixture_distribution=cd.Categorical(probs=[0.3, 0.7]),
        components_distribution=cd.Normal(loc=[[0.0, 1.0], [2.0, 3.0]],
                                          scale=[[1.0, 1.0], [1.0, 2.0]]))
    assert m.batch_shape.as_list() == [2] and m.event_shape.as_list() == []
    lp, mean = _run([m.log_prob([0.5, 2.5]), m.mean()])
    np.testing.assert_allclose(lp, [-1.043939, -1.423152], rtol=1e-5)
    np.testing.assert_allclose(mean, [0.7, 2.7], rtol=1e-6)


def test_mixture_same_family_batch_mismatch_names_both_shapes():
    with pytest.raises(ValueError) as e:
        cd.MixtureSameFamily(cd.Categorical(probs=[[0.3, 0.7]] * 3),
                             cd.Normal(loc=[[0.0, 1.0], [2.0, 3.0]], scale=1.0))
    assert str(e.value) == ("`mixture_distribution.batch_shape` (`[3]`) is not compatible with "
                            "`components_distribution.batch_shape` (`[2]`)")
    # TF 1.15's constructor has no reparameterize argument: the third positional one is
    # validate_args
    m = cd.MixtureSameFamily(cd.Categorical(probs=[0.3, 0.7]), cd.Normal([0.0, 1.0], 1.0), True)
    assert m.validate_args is True


# ------------------------------------------------------------------------------------------
# bijectors of a normalising flow
# ------------------------------------------------------------------------------------------


def test_chain_log_det_jacobians_go_through_the_bijector_cache():
    # TF 1.15: Chain sums at its minimal event dims and the base class negates, reduces and
    # caches; the inverse log det Jacobian at a forward output is the cached one
    tfb = cd.bijectors
    aff = tfb.Affine(shift=tf.Variable([0.5, -0.5]), scale_diag=tf.exp(tf.Variable([0.1, 0.2])))
    chain = tfb.Chain([tfb.Exp(), aff], name="exp_affine")
    y = tf.constant([[0.3, 1.5]])
    f1 = chain.forward(y)
    fl = chain.forward_log_det_jacobian(y, event_ndims=1)
    il = chain.inverse_log_det_jacobian(f1, event_ndims=1)
    assert fl.name == "exp_affine_1/forward_log_det_jacobian/Neg_1:0"
    assert il.name == "exp_affine_1/forward_log_det_jacobian/Sum:0"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run([fl, il])
    np.testing.assert_allclose(got, [[2.463655], [-2.463655]], rtol=1e-6)


def test_softplus_bijector_takes_its_name_scope_when_made():
    # TF 1.15 opens the bijector's scope in its constructor: Invert(Softplus()) takes
    # "softplus", the second Softplus "softplus_1", its calls "softplus_2", ...
    tfb = cd.bijectors
    tfb.Invert(tfb.Softplus())
    sp = tfb.Softplus()
    inv = sp.inverse(tf.constant([0.1, 1.0, 30.0, 1e-9]))
    assert inv.name == "softplus_2/inverse/softplus_inverse/SelectV2_2:0"
    ld = sp.forward_log_det_jacobian(tf.constant([-50.0, 0.0, 50.0]), event_ndims=0)
    assert ld.name == "softplus_3/forward_log_det_jacobian/Neg_3:0"
    # TF 1.15: [-2.252168, 0.541325, 30., log(1e-9)]
    np.testing.assert_allclose(_run(inv), [-2.252168, 0.541325, 30.0, np.log(1e-9)], rtol=1e-5)


# ------------------------------------------------------------------------------------------
# numerical edges such programs meet
# ------------------------------------------------------------------------------------------


def test_softplus_and_log_sigmoid_round_as_tf_kernel():
    # TF 1.15's Softplus: log(exp(x) + 1) between its thresholds (not log1p), exp(x) below,
    # a float32 subnormal flushed to 0; half uses Eigen's epsilon 2**-13 for the threshold
    x = tf.placeholder(tf.float32)
    got = _run([tf.log_sigmoid(x), tf.nn.softplus(-x)], {x: [10.0, 100.0, -100.0]})
    # (the bits TF 1.15 gives: -4.5417706e-05)
    assert got[0].view(np.uint32).tolist() == [3091103460, 2147483648, 3267887104]
    assert got[1].view(np.uint32).tolist() == [943619812, 0, 1120403456]
    h = tf.placeholder(tf.float16)
    got = _run(tf.nn.softplus(h), {h: [-12.0, -7.5, -7.0, -6.0, -3.0]})
    np.testing.assert_array_equal(got, np.float16([6.14e-06, 0.000553, 0.000976,
                                                   0.002925872802734375, 0.048614501953125]))
    d = tf.placeholder(tf.float64)
    np.testing.assert_array_equal(_run(tf.nn.softplus(d), {d: [-30.0, -750.0]}),
                                  [9.348077867343381e-14, 0.0])


# ------------------------------------------------------------------------------------------
# the distribution zoo: ops and errors of single distributions
# ------------------------------------------------------------------------------------------


def test_geometric_builds_tf_ops_and_draws_tf_numbers():
    # TF 1.15 passes probs through one more Identity ("probs_1"), so the op seed of a draw
    # without one is TF's; printed [[1, 1], [2, 2], [0, 0]]
    tf.set_random_seed(2)
    d = cd.Geometric(probs=[0.3, 0.6])
    ts = [d.log_prob([0.0, 2.0]), d.entropy(), d.mode(), d.sample(3)]
    assert [t.name for t in ts] == ["Geometric/log_prob/add:0", "Geometric/entropy/sub:0",
                                    "Geometric/mode/zeros:0", "Geometric/sample/Reshape:0"]
    lp, ent, mode, draws = _run(ts)
    np.testing.assert_array_equal(mode, [0.0, 0.0])
    np.testing.assert_allclose(lp, [-1.2039728164672852, -2.343407154083252], rtol=1e-6)
    np.testing.assert_allclose(ent, [2.0362143516540527, 1.1216859817504883], rtol=1e-6)
    np.testing.assert_array_equal(draws, [[1.0, 1.0], [2.0, 2.0], [0.0, 0.0]])
    assert "Geometric/probs_1" in [op.name for op in tf.get_default_graph().get_operations()]


def test_bernoulli_has_no_cdf():
    # TF 1.15: NotImplementedError("cdf is not implemented: Bernoulli"), log_cdf likewise
    b = cd.Bernoulli(probs=[0.2, 0.7])
    for method in (b.cdf, b.log_cdf, b.survival_function):
        with pytest.raises(NotImplementedError, match="is not implemented: Bernoulli"):
            method([1, 0])


def test_half_normal_and_deterministic_statistics_as_tf():
    # TF 1.15: HalfNormal has a quantile and takes log_prob as the log of its density;
    # Deterministic's entropy is zeros and its mode is its public mean()
    s = tf.Session()
    h = cd.HalfNormal(scale=[1.0, 2.0])
    ts = [h.quantile([0.3, 0.7]), h.log_prob([0.5, -1.0]), h.cdf([0.5, -1.0]), h.mean(), h.mode()]
    assert [t.name for t in ts] == [
        "HalfNormal/quantile/mul_1:0", "HalfNormal/log_prob/Log:0", "HalfNormal/cdf/Erf:0",
        "HalfNormal/mean/truediv:0", "HalfNormal/mode/zeros:0"]
    q, lp, cdf, _, _ = s.run(ts)
    np.testing.assert_allclose(q, [0.38532039523124695, 2.072866678237915], rtol=1e-6)
    np.testing.assert_allclose(lp, [-0.35079145431518555, -np.inf], rtol=1e-6)
    np.testing.assert_allclose(cdf, [0.3829249143600464, 0.0], rtol=1e-6)
    d = cd.Deterministic(loc=[0.0, 1.0])
    ts = [d.entropy(), d.mode()]
    assert [t.name for t in ts] == ["Deterministic/entropy/zeros:0",
                                    "Deterministic/mean/Identity:0"]
    np.testing.assert_array_equal(s.run(ts), [[0.0, 0.0], [0.0, 1.0]])


def test_kumaraswamy_is_tf_transformed_uniform():
    # TF 1.15 transforms a scalar Uniform made outside the Kumaraswamy scope (so its cdf is
    # under "Uniform/cdf"), and its entropy formula prints [2.636294, 2.597535]
    k = cd.Kumaraswamy(concentration1=[2.0, 3.0], concentration0=[2.0, 1.5])
    ts = [k.entropy(), k.mean(), k.mode(), k.cdf([0.3, 0.8])]
    assert [t.name for t in ts] == ["Kumaraswamy/entropy/add_3:0", "Kumaraswamy/mean/Exp:0",
                                    "Kumaraswamy/mode/SelectV2:0", "Uniform/cdf/SelectV2_1:0"]
    assert k.reparameterization_type == cd.FULLY_REPARAMETERIZED
    assert k.batch_shape.as_list() == [2]
    ent, mean, mode, cdf = _run(ts)
    np.testing.assert_allclose(ent, [2.636294364929199, 2.5975348949432373], rtol=1e-6)
    np.testing.assert_allclose(mean, [0.5333333015441895, 0.68834388256073], rtol=1e-6)
    np.testing.assert_allclose(mode, [0.5773502588272095, 0.8298265337944031], rtol=1e-6)
    np.testing.assert_allclose(cdf, [0.17190003395080566, 0.6590978503227234], rtol=1e-6)


def test_wishart_stddev_is_the_cholesky_factor_of_its_variance():
    # TF 1.15: stddev = cholesky(variance()); Wishart is fully reparameterized
    w = cd.WishartCholesky(df=4.0, scale=[[1.0, 0.0], [0.5, 1.0]])
    assert w.reparameterization_type == cd.FULLY_REPARAMETERIZED
    ts = [w.stddev(), w.variance(), w.mode()]
    assert [t.name for t in ts] == ["WishartCholesky/stddev/Cholesky:0",
                                    "WishartCholesky/variance_1/add:0",
                                    "WishartCholesky/mode/mul:0"]
    sd, var, mode = _run(ts)
    np.testing.assert_allclose(sd, [[2.8284270763397217, 0.0], [2.1213204860687256,
                                                                2.8284270763397217]], rtol=1e-6)
    np.testing.assert_allclose(var, [[8.0, 6.0], [6.0, 12.5]], rtol=1e-6)
    np.testing.assert_allclose(mode, [[1.0, 0.5], [0.5, 1.25]], rtol=1e-6)


def test_independent_has_no_cdf():
    # TF 1.15: NotImplementedError("cdf is not implemented: Independent")
    d = cd.Independent(cd.Normal(loc=[[0.0, 1.0], [2.0, 3.0]], scale=1.0),
                       reinterpreted_batch_ndims=1)
    with pytest.raises(NotImplementedError, match="cdf is not implemented: Independent"):
        d.cdf([0.5, 1.0])


def test_negative_binomial_draws_tf_numbers():
    # TF 1.15 takes total_count through an Identity (two ops), draws a gamma rate, then a
    # Poisson seeded from the gamma's seed; a draw without a seed then gets TF's op seeds
    tf.set_random_seed(1)
    nb = cd.NegativeBinomial(total_count=[3.0, 5.0], probs=[0.4, 0.7])
    ts = [nb.mode(), nb.log_prob([2.0, 1.0]), nb.sample(3, seed=11), nb.sample(2)]
    assert [t.name for t in ts] == [
        "NegativeBinomial/mode/Floor:0", "NegativeBinomial/log_prob/sub:0",
        "NegativeBinomial/sample/Reshape:0", "NegativeBinomial/sample_1/Reshape:0"]
    mode, lp, seeded, unseeded = _run(ts)
    np.testing.assert_array_equal(mode, [1.0, 9.0])
    np.testing.assert_allclose(lp, [-1.5732991695404053, -4.767101287841797], rtol=1e-6)
    np.testing.assert_array_equal(seeded, [[3.0, 4.0], [2.0, 12.0], [6.0, 9.0]])
    np.testing.assert_array_equal(unseeded, [[0.0, 21.0], [0.0, 4.0]])


def test_inverse_gamma_cauchy_binomial_ops_as_tf():
    # TF 1.15: NaN statistics by where_v2 over the batch; Cauchy standardizes under its own
    # scope and its variance is the square of its stddev
    ig = cd.InverseGamma(concentration=[3.0, 1.5], rate=[1.0, 2.0])
    c = cd.Cauchy(loc=[0.0, 1.0], scale=[1.0, 2.0], allow_nan_stats=False)
    b = cd.Binomial(total_count=[5.0, 10.0], probs=[0.3, 0.6])
    ts = [ig.mean(), ig.variance(), c.log_prob([0.5, 3.0]), c.entropy(), b.cdf([2.0, 10.0])]
    assert [t.name for t in ts] == [
        "InverseGamma/mean/SelectV2:0", "InverseGamma/variance/SelectV2:0",
        "Cauchy/log_prob/sub:0", "Cauchy/entropy/mul:0", "Binomial/cdf/SelectV2_1:0"]
    mean, var, lp, ent, cdf = _run(ts)
    np.testing.assert_allclose(mean, [0.5, 4.0], rtol=1e-6)
    np.testing.assert_allclose(var, [0.25, np.nan], rtol=1e-6)
    np.testing.assert_allclose(lp, [-1.3678734302520752, -2.531024217605591], rtol=1e-6)
    np.testing.assert_allclose(ent, [2.531024217605591, 3.2241714000701904], rtol=1e-6)
    np.testing.assert_allclose(cdf, [0.8369199633598328, 1.0], rtol=1e-6)
    with pytest.raises(ValueError, match="^`stddev` is undefined for Cauchy distribution.$"):
        c.variance()


def test_masked_autoregressive_flow_initialises_as_tf():
    # TF 1.15's forward takes the event size before the template's first call, and clips
    # the log scale under "clip_by_value_preserve_grad": its glorot seeds, so its draws, are
    # TF's
    tfb = cd.bijectors
    tf.set_random_seed(4)
    maf = cd.TransformedDistribution(
        distribution=cd.Normal(loc=tf.zeros([]), scale=tf.ones([])),
        bijector=tfb.MaskedAutoregressiveFlow(
            shift_and_log_scale_fn=tfb.masked_autoregressive_default_template(
                hidden_layers=[8, 8])),
        event_shape=[3])
    x = maf.sample(2)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert ("masked_autoregressive_flowNormal/sample/masked_autoregressive_flow/forward/"
            "masked_autoregressive_default_template/clip_by_value_preserve_grad/add") in names
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(x)
    np.testing.assert_allclose(got, [[0.5836931467056274, -0.8322315812110901, 0.05827103555202484],
                                     [0.9282894134521484, -0.3454180061817169, 0.4643878936767578]],
                               rtol=1e-5)


def test_a_negative_nan_prints_with_its_sign():
    # TF 1.15 (C's printf): inf - inf is a NaN with its sign bit set, printed "-nan" by
    # Assert (a KL check with allow_nan_stats=False) and by as_string
    x = tf.placeholder(tf.float32)
    y = x - x
    check = tf.Assert(tf.reduce_all(tf.equal(y, y)), [y])
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[-nan -nan\]"):
            s.run(check, {x: [np.inf, -np.inf]})
        v = tf.constant([-np.nan, np.nan, -np.inf])
        assert s.run(tf.as_string(v)).tolist() == [b"-nan", b"nan", b"-inf"]
        assert s.run(tf.as_string(v, width=6)).tolist() == [b"  -nan", b"   nan", b"  -inf"]
        assert s.run(tf.as_string(v, width=6, fill="-")).tolist() == [b"-nan  ", b"nan   ",
                                                                      b"-inf  "]


def test_multivariate_normals_have_no_cdf_as_transformed_normals():
    # TF 1.15's MultivariateNormal* are transformed Normals with an event shape override:
    # NotImplementedError("cdf is not implemented when overriding event_shape")
    for d in (cd.MultivariateNormalDiag([0.0, 1.0], [1.0, 2.0]),
              cd.MultivariateNormalTriL([1.0, 2.0], [[1.0, 0.0], [0.5, 2.0]])):
        for method in ("cdf", "log_cdf", "survival_function", "quantile"):
            with pytest.raises(NotImplementedError,
                               match=f"^{method} is not implemented when overriding event_shape$"):
                getattr(d, method)([0.5, 1.0])


@pytest.mark.parametrize("make,want,after", [
    (lambda: cd.Chi2(3.0), [1.906416416168213, 0.6457582712173462], 0.35814106464385986),
    (lambda: cd.InverseGamma(2.0, 1.0), [0.7885551452636719, 0.42214539647102356],
     0.6250022649765015),
    (lambda: cd.QuantizedDistribution(cd.Normal(0.0, 3.0)), [-1.0, -5.0], 0.13301515579223633),
], ids=["Chi2", "InverseGamma", "QuantizedDistribution"])
def test_unseeded_draws_under_a_graph_seed_are_tf(make, want, after):
    # TF 1.15 under tf.set_random_seed(5): Chi2 takes df through an Identity, InverseGamma
    # draws one random_gamma of its parameters, QuantizedDistribution draws under
    # "transform" (n a constant there); the op seeds, so the draws, are TF's
    tf.set_random_seed(5)
    x = make().sample(2)
    later = tf.random_uniform([])
    got, got_later = _run([x, later])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(got_later, after, rtol=1e-6)


def test_invert_poisson_inverse_gamma_kumaraswamy_ops_as_tf():
    # TF 1.15: Invert runs the base class's methods (its own scopes and caches) on the inner
    # bijector's private ones; Poisson's cdf and InverseGamma's are broadcasting igammacs;
    # InverseGamma's log_prob is unnormalized minus normalization; Kumaraswamy's Jacobian
    # takes (a - 1) * log(y). The random op made after all of them draws TF's number
    tf.set_random_seed(5)
    g = cd.TransformedDistribution(cd.Uniform(0.0, 1.0), cd.bijectors.Invert(cd.bijectors.Exp()))
    x = g.sample(2)
    lp = g.log_prob(x)
    pc = cd.Poisson(rate=[1.0, 3.0]).cdf([0.0, 2.0])
    ig = cd.InverseGamma(2.0, 1.0)
    il, ic = ig.log_prob([0.5, 2.0]), ig.cdf([0.5, 2.0])
    kl = cd.Kumaraswamy(2.0, 3.0).log_prob([0.2, 0.6])
    later = tf.random_uniform([])
    assert [t.name for t in [x, lp, pc, il, ic, kl]] == [
        "invert_expUniform/sample/invert_exp/forward/Log:0", "invert_expUniform/log_prob/add:0",
        "Poisson/cdf/Igammac:0", "InverseGamma/log_prob/sub_2:0", "InverseGamma/cdf/Igammac:0",
        "Kumaraswamy/log_prob/add:0"]
    got = _run([x, lp, pc, il, ic, kl, later])
    want = [[-0.4939131438732147, -1.730880856513977], [-0.4939131438732147, -1.730880856513977],
            [0.3678794503211975, 0.42319008708000183], [0.07944154739379883, -2.579441547393799],
            [0.406005859375, 0.9097959995269775], [0.10067754983901978, 0.38835960626602173],
            0.2295435667037964]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_deterministic_and_affine_scalar_op_counts_are_tf():
    # TF 1.15: Deterministic makes its slack once and tiles loc[newaxis] by constant
    # multiples; AffineScalar starts with an Identity; a random op after them draws TF's
    tf.set_random_seed(5)
    d = cd.Deterministic([1.0, 2.0], atol=0.1)
    a = cd.TransformedDistribution(cd.Normal(0.0, 1.0), cd.bijectors.AffineScalar(1.0, 2.0))
    ts = [d.sample(3), d.prob([1.05, 2.5]), d.cdf([0.95, 1.0]), a.sample(2),
          a.log_prob([0.5, 1.0])]
    later = tf.random_uniform([])
    assert [t.name for t in ts] == [
        "Deterministic/sample/Reshape:0", "Deterministic/prob/Cast:0",
        "Deterministic/cdf/Cast:0", "affine_scalarNormal/sample/affine_scalar/forward/add:0",
        "affine_scalarNormal/log_prob/add:0"]
    got = _run(ts + [later])
    want = [[[1.0, 2.0]] * 3, [1.0, 0.0], [1.0, 0.0], [-1.6128950119018555, 0.29498594999313354],
            [-1.6433357000350952, -1.6120857000350952], 0.8889051675796509]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_fill_triangular_and_permute_bijectors_as_tf():
    # TF 1.15: fill_triangular(_inverse) make a Rank op (prefer_static_rank) and TF's
    # reverses; FillTriangular's Jacobian is not marked constant (an inverse log det Jacobian
    # at 1 event dim fails); Permute opens its scope when made and checks a static permutation
    tfb = cd.bijectors
    tf.set_random_seed(5)
    b = tfb.FillTriangular()
    x = tf.constant([0.3, 0.6, 0.2, 1.0, 2.0, 3.0])
    y = b.forward(x)
    xi = b.inverse(y + 0.0)
    fl = b.forward_log_det_jacobian(x, event_ndims=1)
    py = tfb.Permute([1, 0]).forward(tf.constant([[1.0, 2.0]]))
    later = tf.random_uniform([])
    assert [t.name for t in [y, xi, fl, py]] == [
        "fill_triangular/forward/fill_triangular/MatrixBandPart:0",
        "fill_triangular_1/inverse/fill_triangular_inverse/concat_1:0",
        "fill_triangular_2/forward_log_det_jacobian/Neg_1:0", "permute_1/forward/GatherV2:0"]
    got = _run([y, xi, fl, py, later])
    np.testing.assert_allclose(got[0], [[1.0, 0.0, 0.0], [3.0, 2.0, 0.0], [0.2, 0.6, 0.3]])
    np.testing.assert_allclose(got[1], [0.3, 0.6, 0.2, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(got[4], 0.15640199184417725, rtol=1e-6)
    with pytest.raises(ValueError, match=r"event_ndims \(1\) must be larger than "
                                         r"min_event_ndims \(2\)"):
        b.inverse_log_det_jacobian(y, event_ndims=1)
    with pytest.raises(ValueError, match="Permutation over `d` must contain exactly one"):
        tfb.Permute([0, 2])


def test_independent_kl_sums_outside_the_inner_kl_scope():
    # TF 1.15: KullbackLeibler/Sum, the inner KL under KullbackLeibler/KullbackLeibler;
    # mismatched event shapes: ValueError("Event shapes do not match.")
    a = cd.Independent(cd.Normal([0.0, 1.0], 1.0), 1)
    b = cd.Independent(cd.Normal([1.0, 1.0], 2.0), 1)
    kl = cd.kl_divergence(a, b)
    assert kl.name == "KullbackLeibler/Sum:0"
    np.testing.assert_allclose(_run(kl), 0.76129, rtol=1e-4)
    c = cd.Independent(cd.Normal([[0.0, 1.0]], 1.0), 2)
    with pytest.raises(ValueError, match=r"^Event shapes do not match\.$"):
        cd.kl_divergence(a, c)


def test_softmax_centered_bijector_as_tf():
    # TF 1.15: forward pads by distribution_util.pad (a Pad of one-hot paddings) then
    # softmaxes; its event shapes are the last dimension alone; names and op seeds are TF's
    tfb = cd.bijectors
    tf.set_random_seed(5)
    b = tfb.SoftmaxCentered()
    x = tf.constant([[0.3, 0.6], [1.0, -1.0]])
    y = b.forward(x)
    xi = b.inverse(y + 0.0)
    fl = b.forward_log_det_jacobian(x, event_ndims=1)
    est = [b.forward_event_shape_tensor([4, 2]), b.inverse_event_shape_tensor([3])]
    later = tf.random_uniform([])
    assert [t.name for t in [y, xi, fl] + est] == [
        "softmax_centered/forward/Softmax:0", "softmax_centered_1/inverse/add:0",
        "softmax_centered_2/forward_log_det_jacobian/Neg_2:0",
        "softmax_centered_3/forward_event_shape_tensor/strided_slice_1:0",
        "softmax_centered_4/inverse_event_shape_tensor/strided_slice_1:0"]
    assert b.forward_event_shape(tf.TensorShape([4, 2])).as_list() == [3]
    got = _run([y, fl] + est + [later])
    np.testing.assert_allclose(got[0], [[0.3235536813735962, 0.4367518126964569,
                                         0.23969446122646332],
                                        [0.6652408838272095, 0.09003056585788727,
                                         0.2447284460067749]], rtol=1e-6)
    np.testing.assert_allclose(got[1], [-3.3851709365844727, -4.222818374633789], rtol=1e-6)
    assert got[2].tolist() == [3] and got[3].tolist() == [2]
    np.testing.assert_allclose(got[4], 0.5319099426269531, rtol=1e-6)
