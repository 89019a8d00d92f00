"""tf.distributions build TF 1.15's op sequence (names, types, order) and so draw TF's numbers.

TF 1.15 seeds a random op without an op seed from the number of ops made before it, so a
distribution's parameters (``Normal/loc/input`` + ``Normal/loc``), the batch-shape constants
its ``__init__`` makes and ``sample()``'s shape plumbing decide every later seed. The
expected lists and values below were printed by TF 1.15.0 for the same code."""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import op_names, seed2

tfd = tf.distributions


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        yield


_TF_NORMAL_SAMPLE = [
    "Normal/loc/input", "Normal/loc", "Normal/scale/input", "Normal/scale",
    "Normal/sample/sample_shape", "Normal/sample/sample_shape_1",
    "Normal/batch_shape_tensor/batch_shape", "Normal/sample/concat/values_0",
    "Normal/sample/concat/axis", "Normal/sample/concat", "Normal/sample/random_normal/mean",
    "Normal/sample/random_normal/stddev", "Normal/sample/random_normal/RandomStandardNormal",
    "Normal/sample/random_normal/mul", "Normal/sample/random_normal", "Normal/sample/mul",
    "Normal/sample/add", "Normal/sample/Shape", "Normal/sample/strided_slice/stack",
    "Normal/sample/strided_slice/stack_1", "Normal/sample/strided_slice/stack_2",
    "Normal/sample/strided_slice", "Normal/sample/concat_1/axis", "Normal/sample/concat_1",
    "Normal/sample/Reshape"
]

_TF_NORMAL_LOG_PROB_ENTROPY = [
    "zeros", "ones", "Normal/loc", "Normal/scale", "Normal/log_prob/value",
    "Normal/log_prob/standardize/sub", "Normal/log_prob/standardize/truediv",
    "Normal/log_prob/Square", "Normal/log_prob/mul/x", "Normal/log_prob/mul",
    "Normal/log_prob/Log", "Normal/log_prob/add/x", "Normal/log_prob/add", "Normal/log_prob/sub",
    "Normal/entropy/ones_like/Shape", "Normal/entropy/ones_like/Const",
    "Normal/entropy/ones_like", "Normal/entropy/mul", "Normal/entropy/Log",
    "Normal/entropy/add/x", "Normal/entropy/add", "Normal/mean/ones_like/Shape",
    "Normal/mean/ones_like/Const", "Normal/mean/ones_like", "Normal/mean/mul"
]

_TF_KL_NORMAL = [
    "Normal/loc/input", "Normal/loc", "Normal/scale/input", "Normal/scale", "Normal_1/loc/input",
    "Normal_1/loc", "Normal_1/scale/input", "Normal_1/scale",
    "KullbackLeibler/kl_normal_normal/Const", "KullbackLeibler/kl_normal_normal/Const_1",
    "KullbackLeibler/kl_normal_normal/Const_2", "KullbackLeibler/kl_normal_normal/Square",
    "KullbackLeibler/kl_normal_normal/Square_1", "KullbackLeibler/kl_normal_normal/truediv",
    "KullbackLeibler/kl_normal_normal/SquaredDifference", "KullbackLeibler/kl_normal_normal/mul",
    "KullbackLeibler/kl_normal_normal/truediv_1", "KullbackLeibler/kl_normal_normal/sub",
    "KullbackLeibler/kl_normal_normal/Log", "KullbackLeibler/kl_normal_normal/sub_1",
    "KullbackLeibler/kl_normal_normal/mul_1", "KullbackLeibler/kl_normal_normal/add"
]

_TF_CATEGORICAL = [
    "Categorical/logits", "Categorical/probs", "Categorical/batch_rank",
    "Categorical/logits_shape", "Categorical/event_size", "Categorical/batch_shape",
    "Categorical/sample/sample_shape", "Categorical/sample/sample_shape_1",
    "Categorical/sample/Reshape/shape/0", "Categorical/sample/Reshape/shape",
    "Categorical/sample/Reshape", "Categorical/sample/multinomial/Multinomial/num_samples",
    "Categorical/sample/multinomial/Multinomial", "Categorical/sample/transpose/perm",
    "Categorical/sample/transpose", "Categorical/batch_shape_tensor/batch_shape",
    "Categorical/sample/concat/values_0", "Categorical/sample/concat/axis",
    "Categorical/sample/concat", "Categorical/sample/Reshape_1", "Categorical/sample/Shape",
    "Categorical/sample/strided_slice/stack", "Categorical/sample/strided_slice/stack_1",
    "Categorical/sample/strided_slice/stack_2", "Categorical/sample/strided_slice",
    "Categorical/sample/concat_1/axis", "Categorical/sample/concat_1",
    "Categorical/sample/Reshape_2", "Categorical/log_prob/strided_slice/stack",
    "Categorical/log_prob/strided_slice/stack_1", "Categorical/log_prob/strided_slice/stack_2",
    "Categorical/log_prob/strided_slice", "Categorical/log_prob/ones_like/Shape",
    "Categorical/log_prob/ones_like/Const", "Categorical/log_prob/ones_like",
    "Categorical/log_prob/mul", "Categorical/log_prob/Shape",
    "Categorical/log_prob/strided_slice_1/stack", "Categorical/log_prob/strided_slice_1/stack_1",
    "Categorical/log_prob/strided_slice_1/stack_2", "Categorical/log_prob/strided_slice_1",
    "Categorical/log_prob/ones/Const", "Categorical/log_prob/ones", "Categorical/log_prob/mul_1",
    "Categorical/log_prob/SparseSoftmaxCrossEntropyWithLogits/Shape",
    "Categorical/log_prob/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits",
    "Categorical/log_prob/Neg"
]

_TF_BERNOULLI = [
    "Bernoulli/probs", "Bernoulli/logits/Log", "Bernoulli/logits/mul/x", "Bernoulli/logits/mul",
    "Bernoulli/logits/Log1p", "Bernoulli/logits/sub", "Bernoulli/sample/sample_shape",
    "Bernoulli/sample/sample_shape_1", "Bernoulli/batch_shape_tensor/batch_shape",
    "Bernoulli/sample/concat/values_0", "Bernoulli/sample/concat/axis", "Bernoulli/sample/concat",
    "Bernoulli/sample/random_uniform/min", "Bernoulli/sample/random_uniform/max",
    "Bernoulli/sample/random_uniform/RandomUniform", "Bernoulli/sample/random_uniform/sub",
    "Bernoulli/sample/random_uniform/mul", "Bernoulli/sample/random_uniform",
    "Bernoulli/sample/Less", "Bernoulli/sample/Cast", "Bernoulli/sample/Shape",
    "Bernoulli/sample/strided_slice/stack", "Bernoulli/sample/strided_slice/stack_1",
    "Bernoulli/sample/strided_slice/stack_2", "Bernoulli/sample/strided_slice",
    "Bernoulli/sample/concat_1/axis", "Bernoulli/sample/concat_1", "Bernoulli/sample/Reshape"
]

_TF_SAMPLE_UNKNOWN_RANK = [
    "Placeholder", "Normal/loc/input", "Normal/loc", "Normal/scale/input", "Normal/scale",
    "Normal/sample/Rank", "Normal/sample/range/start", "Normal/sample/range/delta",
    "Normal/sample/range", "Normal/sample/Prod", "Normal/sample/Rank_1", "Normal/sample/Equal/y",
    "Normal/sample/Equal", "Normal/sample/Shape", "Normal/sample/pick_vector/true_vector",
    "Normal/sample/pick_vector/Shape", "Normal/sample/pick_vector/strided_slice/stack",
    "Normal/sample/pick_vector/strided_slice/stack_1",
    "Normal/sample/pick_vector/strided_slice/stack_2", "Normal/sample/pick_vector/strided_slice",
    "Normal/sample/pick_vector/concat/axis", "Normal/sample/pick_vector/concat",
    "Normal/sample/pick_vector/SelectV2/t", "Normal/sample/pick_vector/SelectV2",
    "Normal/sample/pick_vector/Select/e", "Normal/sample/pick_vector/Select",
    "Normal/sample/pick_vector/Slice/begin", "Normal/sample/pick_vector/Slice/size",
    "Normal/sample/pick_vector/Slice", "Normal/sample/Reshape",
    "Normal/batch_shape_tensor/batch_shape", "Normal/sample/concat/values_0",
    "Normal/sample/concat/axis", "Normal/sample/concat", "Normal/sample/random_normal/mean",
    "Normal/sample/random_normal/stddev", "Normal/sample/random_normal/RandomStandardNormal",
    "Normal/sample/random_normal/mul", "Normal/sample/random_normal", "Normal/sample/mul",
    "Normal/sample/add", "Normal/sample/Shape_1", "Normal/sample/strided_slice/stack",
    "Normal/sample/strided_slice/stack_1", "Normal/sample/strided_slice/stack_2",
    "Normal/sample/strided_slice", "Normal/sample/concat_1/axis", "Normal/sample/concat_1",
    "Normal/sample/Reshape_1"
]

_TF_ONEHOT = [
    "OneHotCategorical/logits", "OneHotCategorical/probs", "OneHotCategorical/batch_rank",
    "OneHotCategorical/event_size/Shape", "OneHotCategorical/event_size/strided_slice/stack",
    "OneHotCategorical/event_size/strided_slice/stack_1",
    "OneHotCategorical/event_size/strided_slice/stack_2",
    "OneHotCategorical/event_size/strided_slice", "OneHotCategorical/sample/sample_shape",
    "OneHotCategorical/sample/sample_shape_1", "OneHotCategorical/sample/Shape",
    "OneHotCategorical/sample/concat/values_0", "OneHotCategorical/sample/concat/axis",
    "OneHotCategorical/sample/concat", "OneHotCategorical/sample/Reshape/shape/0",
    "OneHotCategorical/sample/Reshape/shape", "OneHotCategorical/sample/Reshape",
    "OneHotCategorical/sample/multinomial/Multinomial/num_samples",
    "OneHotCategorical/sample/multinomial/Multinomial", "OneHotCategorical/sample/transpose/perm",
    "OneHotCategorical/sample/transpose", "OneHotCategorical/sample/one_hot/on_value",
    "OneHotCategorical/sample/one_hot/off_value", "OneHotCategorical/sample/one_hot",
    "OneHotCategorical/sample/Reshape_1", "OneHotCategorical/sample/Shape_1",
    "OneHotCategorical/sample/strided_slice/stack",
    "OneHotCategorical/sample/strided_slice/stack_1",
    "OneHotCategorical/sample/strided_slice/stack_2", "OneHotCategorical/sample/strided_slice",
    "OneHotCategorical/sample/concat_1/axis", "OneHotCategorical/sample/concat_1",
    "OneHotCategorical/sample/Reshape_2"
]

_TF_LOGISTIC_POISSON = [
    "Logistic/loc/input", "Logistic/loc", "Logistic/scale/input", "Logistic/scale",
    "Logistic/sample/sample_shape", "Logistic/sample/sample_shape_1",
    "Logistic/batch_shape_tensor/batch_shape", "Logistic/sample/concat/values_0",
    "Logistic/sample/concat/axis", "Logistic/sample/concat", "Logistic/sample/random_uniform/min",
    "Logistic/sample/random_uniform/max", "Logistic/sample/random_uniform/RandomUniform",
    "Logistic/sample/random_uniform/sub", "Logistic/sample/random_uniform/mul",
    "Logistic/sample/random_uniform", "Logistic/sample/Log", "Logistic/sample/mul/x",
    "Logistic/sample/mul", "Logistic/sample/Log1p", "Logistic/sample/sub",
    "Logistic/sample/mul_1", "Logistic/sample/add", "Logistic/sample/Shape",
    "Logistic/sample/strided_slice/stack", "Logistic/sample/strided_slice/stack_1",
    "Logistic/sample/strided_slice/stack_2", "Logistic/sample/strided_slice",
    "Logistic/sample/concat_1/axis", "Logistic/sample/concat_1", "Logistic/sample/Reshape",
    "Poisson/rate", "Poisson/rate_1", "Poisson/log_rate"
]

_TF_LOGSUMEXP = [
    "Placeholder", "ReduceLogSumExp/Max/reduction_indices", "ReduceLogSumExp/Max",
    "ReduceLogSumExp/IsFinite", "ReduceLogSumExp/zeros_like", "ReduceLogSumExp/Select",
    "ReduceLogSumExp/StopGradient", "ReduceLogSumExp/Sub", "ReduceLogSumExp/Exp",
    "ReduceLogSumExp/Sum/reduction_indices", "ReduceLogSumExp/Sum", "ReduceLogSumExp/Log",
    "ReduceLogSumExp/Shape", "ReduceLogSumExp/Reshape", "ReduceLogSumExp/Add"
]

_TF_TD_EXP = [
    "Normal/loc/input", "Normal/loc", "Normal/scale/input", "Normal/scale", "exp/init/power",
    "expNormal/zero", "expNormal/empty", "Normal/is_scalar_batch/is_scalar_batch",
    "expNormal/batch_shape", "expNormal/Const", "expNormal/Const_1", "expNormal/Const_2",
    "expNormal/Const_3", "expNormal/Const_4", "expNormal/Const_5",
    "Normal/is_scalar_event/is_scalar_event", "expNormal/event_shape", "expNormal/Const_6",
    "expNormal/Const_7", "expNormal/Const_8", "expNormal/Const_9", "expNormal/Const_10",
    "expNormal/Const_11", "expNormal/Const_12", "Normal/is_scalar_batch_1/is_scalar_batch",
    "expNormal/Const_13", "expNormal/Const_14", "expNormal/Const_15", "expNormal/sub/x",
    "expNormal/sub", "expNormal/range/limit", "expNormal/range/delta", "expNormal/range",
    "expNormal/sample/sample_shape", "expNormal/sample/sample_shape_1", "expNormal/sample/Const",
    "expNormal/sample/Const_1", "Normal/batch_shape_tensor/batch_shape",
    "Normal/sample/concat/values_0", "Normal/sample/concat/axis", "Normal/sample/concat",
    "Normal/sample/random_normal/mean", "Normal/sample/random_normal/stddev",
    "Normal/sample/random_normal/RandomStandardNormal", "Normal/sample/random_normal/mul",
    "Normal/sample/random_normal", "Normal/sample/mul", "Normal/sample/add",
    "Normal/sample/Shape", "Normal/sample/strided_slice/stack",
    "Normal/sample/strided_slice/stack_1", "Normal/sample/strided_slice/stack_2",
    "Normal/sample/strided_slice", "Normal/sample/concat_1/axis", "Normal/sample/concat_1",
    "Normal/sample/Reshape", "expNormal/sample/Shape", "expNormal/sample/strided_slice/stack",
    "expNormal/sample/strided_slice/stack_1", "expNormal/sample/strided_slice/stack_2",
    "expNormal/sample/strided_slice", "expNormal/sample/concat/axis", "expNormal/sample/concat",
    "expNormal/sample/Reshape", "expNormal/sample/exp/forward/Exp", "expNormal/log_prob/value",
    "expNormal/log_prob/exp/inverse/Log",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/event_ndims",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/Log",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/mul/x",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/mul",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/Rank",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/Shape",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/sub/y",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/sub",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/sub_1/y",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/sub_1",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/strided_slice/stack",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/strided_slice/stack_1",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/strided_slice/stack_2",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/strided_slice",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/ones/Const",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/ones",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/mul_1",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/Sum/reduction_indices",
    "expNormal/log_prob/exp_1/inverse_log_det_jacobian/Sum", "Normal/log_prob/standardize/sub",
    "Normal/log_prob/standardize/truediv", "Normal/log_prob/Square", "Normal/log_prob/mul/x",
    "Normal/log_prob/mul", "Normal/log_prob/Log", "Normal/log_prob/add/x", "Normal/log_prob/add",
    "Normal/log_prob/sub", "expNormal/log_prob/add"
]

_TF_EXPONENTIAL = ["Exponential/rate", "ones", "Exponential/concentration", "Exponential/rate_1"]


def test_normal_sample_ops():
    tfd.Normal(0.0, 1.0).sample(3)
    assert op_names() == _TF_NORMAL_SAMPLE
    assert seed2("RandomStandardNormal") == [12]


def test_normal_log_prob_entropy_mean_ops():
    d = tfd.Normal(loc=tf.zeros([2]), scale=tf.ones([2]))
    d.log_prob(1.0)
    d.entropy()
    d.mean()
    assert op_names() == _TF_NORMAL_LOG_PROB_ENTROPY


def test_kl_normal_normal_ops():
    p, q = tfd.Normal(0.0, 1.0), tfd.Normal(1.0, 2.0)
    kl = tfd.kl_divergence(p, q)
    assert op_names() == _TF_KL_NORMAL
    with tf.Session() as sess:
        assert sess.run(kl) == pytest.approx(np.log(2.0) + 2.0 / 8.0 - 0.5, rel=1e-6)


def test_categorical_sample_log_prob_ops():
    d = tfd.Categorical(logits=[0.0, 1.0])
    d.log_prob(d.sample(4))
    assert op_names() == _TF_CATEGORICAL
    assert seed2("Multinomial") == [11]


def test_bernoulli_sample_ops():
    tfd.Bernoulli(probs=0.3).sample(5)
    assert op_names() == _TF_BERNOULLI


def test_exponential_takes_its_unit_concentration_outside_its_scope():
    d = tfd.Exponential(2.0)
    assert op_names() == _TF_EXPONENTIAL
    assert d.rate.name == "Exponential/rate_1:0"


def test_sample_shape_of_unknown_rank_is_picked_by_slicing():
    n = tf.placeholder(tf.int32)
    tfd.Normal(0.0, 1.0).sample(n)
    assert op_names() == _TF_SAMPLE_UNKNOWN_RANK


def test_parameters_keep_their_own_dtypes():
    # as TF 1.15: a Python number is float32 next to a float64 array, an error there
    with pytest.raises(ValueError, match=r"Normal/scale:0, type=<dtype: 'float64'>, must be "
                       r"of the same type \(<dtype: 'float32'>\) as Normal/loc:0\."):
        tfd.Normal(0.0, np.float64(1.0))
    with pytest.raises(ValueError, match="Expected floating point type, got <dtype: 'int32'>"):
        tfd.Exponential(2)


def test_seeded_draws_and_the_op_seeds_after_them():
    # the op counts before each draw give TF's seeds: ids after the asserts, salted seeds
    normal = tfd.Normal(np.zeros(3, np.float32), np.ones(3, np.float32), validate_args=True)
    a = normal.sample(2, seed=3)
    beta = tfd.Beta([2.0, 3.0], 1.0).sample(2, seed=4)
    t = tfd.StudentT([3.0, 1.0], 0.0, 2.0).sample(2, seed=7)
    w = tf.random_normal([3])
    assert seed2("RandomStandardNormal") == [3, 7, 133]
    assert seed2("RandomGamma") == [4, 1365565315, 798235793]
    with tf.Session() as sess:
        got = sess.run([a, beta, t, w])
    np.testing.assert_allclose(got[0], [[-0.67086124, 0.22357145, 0.79727304],
                                        [0.09617059, 0.72314787, 0.33812162]], rtol=1e-5)
    np.testing.assert_allclose(got[1], [[0.6201407, 0.9842005], [0.6999396, 0.7776276]],
                               rtol=1e-5)
    np.testing.assert_allclose(got[2], [[-1.461387, -6.3795757], [-0.50187933, -1.1618778]],
                               rtol=1e-5)
    np.testing.assert_allclose(got[3], [1.6152112, 0.01385026, 0.04062277], rtol=1e-5)


def test_seeded_vae_trains_as_tf():
    rng = np.random.RandomState(0)
    tf.set_random_seed(42)
    x = tf.placeholder(tf.float32, [None, 8])
    h = tf.layers.dense(x, 6, activation=tf.nn.relu)
    mu = tf.layers.dense(h, 2)
    log_sigma = tf.layers.dense(h, 2)
    q = tfd.Normal(loc=mu, scale=tf.exp(log_sigma))
    z = q.sample()
    p = tfd.Normal(loc=tf.zeros_like(mu), scale=tf.ones_like(mu))
    kl = tf.reduce_sum(tfd.kl_divergence(q, p), 1)
    logits = tf.layers.dense(tf.layers.dense(z, 6, activation=tf.nn.relu), 8)
    lik = tfd.Bernoulli(logits=logits)
    elbo = tf.reduce_mean(tf.reduce_sum(lik.log_prob(x), 1) - kl)
    tf.reduce_sum(p.log_prob(z), 1)
    xs = lik.sample(seed=7)
    train = tf.train.AdamOptimizer(0.01).minimize(-elbo)
    extra = tf.random_normal([3])
    data = (rng.rand(16, 8) > 0.5).astype(np.float32)
    assert (z.name, xs.name) == ("Normal/sample/Reshape:0", "Bernoulli/sample/Reshape:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        elbos = [sess.run([elbo, train], {x: data})[0] for _ in range(5)]
        got_z = sess.run(z, {x: data[:2]})
        got_xs = sess.run(xs, {x: data[:2]})
        got_extra = sess.run(extra)
    np.testing.assert_allclose(elbos, [-6.881238, -6.738059, -6.437200, -6.503428, -6.311679],
                               rtol=1e-5)
    np.testing.assert_allclose(got_z, [[-0.22951, -0.66297], [0.62212, -0.22796]], atol=2e-5)
    assert got_xs.tolist() == [[0, 0, 0, 0, 0, 1, 0, 1], [0, 1, 1, 1, 0, 1, 0, 0]]
    np.testing.assert_allclose(got_extra, [1.49159, -0.48642, 0.4003], atol=2e-5)


def test_seeded_reinforce_policy_draws_as_tf():
    rng = np.random.RandomState(1)
    tf.set_random_seed(3)
    obs = tf.placeholder(tf.float32, [None, 4])
    act = tf.placeholder(tf.int32, [None])
    ret = tf.placeholder(tf.float32, [None])
    h = tf.layers.dense(obs, 16, activation=tf.nn.tanh)
    pi = tfd.Categorical(logits=tf.layers.dense(h, 3))
    sample = pi.sample()
    logp = pi.log_prob(act)
    entropy = tf.reduce_mean(pi.entropy())
    loss = -tf.reduce_mean(logp * ret) - 0.01 * entropy
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    tf.layers.dense(h, 1)
    u = tfd.Uniform(-1.0, 1.0).sample([2])
    assert (sample.name, logp.name) == ("Categorical/sample/Reshape_1:0",
                                        "Categorical/log_prob/Neg:0")
    actions, losses = [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o = rng.randn(6, 4).astype(np.float32)
        for _ in range(4):
            a = sess.run(sample, {obs: o})
            r = rng.randn(6).astype(np.float32)
            losses.append(sess.run([loss, train], {obs: o, act: a, ret: r})[0])
            actions.append(a.tolist())
        got_u = sess.run(u)
    assert actions == [[0, 1, 2, 2, 0, 2], [0, 0, 1, 0, 2, 2], [1, 1, 1, 1, 0, 0],
                       [0, 0, 2, 2, 1, 1]]
    np.testing.assert_allclose(losses, [-0.032752, -0.610123, 0.105068, 0.492796], atol=2e-6)
    np.testing.assert_allclose(got_u, [0.86656, 0.83196], atol=2e-5)


def test_contrib_one_hot_categorical_ops():
    tf.contrib.distributions.OneHotCategorical(logits=[0.0, 1.0, 2.0]).sample(2)
    assert op_names() == _TF_ONEHOT


def test_contrib_logistic_sample_and_poisson_ops():
    tf.contrib.distributions.Logistic(0.0, 1.0).sample(3)
    tf.contrib.distributions.Poisson(rate=2.0)
    assert op_names() == _TF_LOGISTIC_POISSON


def test_reduce_logsumexp_ops():
    x = tf.placeholder(tf.float32, [None, 3])
    assert tf.reduce_logsumexp(x, 1).name == "ReduceLogSumExp/Add:0"
    assert op_names() == _TF_LOGSUMEXP


def test_seeded_mixture_draws_as_tf():
    tf.set_random_seed(5)
    tfc = tf.contrib.distributions
    m = tfc.Mixture(cat=tfd.Categorical(probs=[0.3, 0.7]),
                    components=[tfd.Normal(0.0, 1.0), tfd.Normal(3.0, 1.0)])
    s = m.sample(6)
    lp = m.log_prob([0.5, 2.0])
    w = tf.random_normal([2])
    # each component draws only its share of the samples (TF's partition and stitch)
    assert seed2("Multinomial") == [24]
    assert seed2("RandomStandardNormal") == [68, 107, 190]
    with tf.Session() as sess:
        got = sess.run([s, lp, w])
    np.testing.assert_allclose(got[0], [3.2690597, 2.6284077, -1.1088487, 2.6202416,
                                        0.2676672, 3.3465545], rtol=1e-5)
    np.testing.assert_allclose(got[1], [-2.1380084, -1.6842866], rtol=1e-5)
    np.testing.assert_allclose(got[2], [-1.0748723, 0.12731], rtol=1e-5)


def test_str_repr_and_missing_methods_as_tf():
    d = tfd.Normal(0.0, 1.0)
    assert str(d) == ('tfp.distributions.Normal("Normal/", batch_shape=(), event_shape=(), '
                      'dtype=float32)')
    assert repr(d) == ("<tfp.distributions.Normal 'Normal/' batch_shape=() event_shape=() "
                       "dtype=float32>")
    # an unknown-rank batch shape is left out of str (not of repr)
    u = tfd.Normal(tf.placeholder(tf.float32, None), 1.0)
    assert str(u) == 'tfp.distributions.Normal("Normal_1/", event_shape=(), dtype=float32)'
    assert repr(u).startswith("<tfp.distributions.Normal 'Normal_1/' batch_shape=<unknown>")
    with pytest.raises(NotImplementedError, match="^covariance is not implemented: Normal$"):
        d.covariance()
    with pytest.raises(NotImplementedError, match="^mean is not implemented: Categorical$"):
        tfd.Categorical(logits=[0.0, 1.0]).mean()


def test_multivariate_normals_take_tf_names_in_the_callers_scope():
    # TF 1.15 builds a standard Normal (with zeros/ones) and an affine_linear_operator beside
    # the distribution, so the next Normal is Normal_1
    tf.contrib.distributions.MultivariateNormalDiag(loc=[0.0, 1.0], scale_diag=[1.0, 2.0])
    assert tfd.Normal(0.0, 1.0).loc.name == "Normal_1/loc:0"
    assert tf.zeros([2]).name == "zeros_1:0"
    tf.contrib.distributions.MultivariateNormalTriL(loc=[0.0, 0.0], scale_tril=tf.eye(2))
    assert tfd.Normal(0.0, 1.0).loc.name == "Normal_3/loc:0"


def test_transformed_distribution_ops_and_draws():
    # TF 1.15's constants of the (absent) shape overrides, the bijector's init constant and
    # the log det Jacobian summed over the event dims even when there are none
    tfc = tf.contrib.distributions
    d = tfc.TransformedDistribution(distribution=tfd.Normal(0.0, 1.0),
                                    bijector=tfc.bijectors.Exp())
    s = d.sample(3)
    lp = d.log_prob(1.5)
    assert op_names() == _TF_TD_EXP
    w = tf.random_normal([2])
    with tf.Session() as sess:
        got = sess.run([s, lp, w])
    np.testing.assert_allclose(got[0], [0.6699106, 1.4022737, 4.234604], rtol=1e-5)
    assert got[1] == pytest.approx(-1.4066046, rel=1e-5)
    np.testing.assert_allclose(got[2], [0.4185382, -0.8120263], rtol=1e-5)


def test_relaxed_categoricals_are_transformed_distributions_drawing_as_tf():
    tf.set_random_seed(7)
    tfc = tf.contrib.distributions
    r = tfc.RelaxedOneHotCategorical(0.5, logits=[0.0, 1.0, 2.0])
    s = r.sample(2)
    lp = r.log_prob([0.2, 0.3, 0.5])
    b = tfc.RelaxedBernoulli(0.5, logits=[0.0, 1.0])
    sb = b.sample()
    lb = b.log_prob([0.3, 0.6])
    w = tf.random_normal([2])
    assert (s.name, lp.name) == ("RelaxedOneHotCategorical/sample/exp/forward/Exp:0",
                                 "RelaxedOneHotCategorical/log_prob/add:0")
    assert (sb.name, lb.name) == ("RelaxedBernoulli/sample/sigmoid/forward/Sigmoid:0",
                                  "RelaxedBernoulli/log_prob/add:0")
    with tf.Session() as sess:
        got = sess.run([s, lp, sb, lb, w])
    np.testing.assert_allclose(got[0], [[3.38845e-03, 1.2328265e-03, 9.9537873e-01],
                                        [1.1784339e-04, 1.4265452e-01, 8.5722768e-01]],
                               rtol=1e-5)
    assert got[1] == pytest.approx(-1.0452886, rel=1e-5)
    np.testing.assert_allclose(got[2], [0.2068211, 0.7045079], rtol=1e-5)
    np.testing.assert_allclose(got[3], [-0.5633318, -0.8071954], rtol=1e-5)
    np.testing.assert_allclose(got[4], [-1.1357508, -2.1730566], rtol=1e-5)
