"""What running DeepMind's Sonnet 1.x (1.36) on tideflow needed, pinned with plain TF 1.x calls:
the framework names a module library registers itself through (``ops.register_proto_function``
for its module-info collection), ``tf.contrib.eager``'s graph-mode names (``defun``), and the API
differences its modules and tests showed."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# import-time names
# ------------------------------------------------------------------------------------------

def test_ops_module_registers_collection_proto_functions():
    from tideflow.protos import meta_graph_pb2
    from tideflow.python.framework import ops

    def to_proto(value, export_scope=None):
        return meta_graph_pb2.CollectionDef()

    ops.register_proto_function("my_lib_modules", proto_type=meta_graph_pb2.CollectionDef,
                                to_proto=to_proto, from_proto=None)
    assert ops.get_to_proto_function("my_lib_modules") is to_proto
    assert ops.get_collection_proto_type("my_lib_modules") is meta_graph_pb2.CollectionDef
    assert ops.get_from_proto_function("my_lib_modules") is None


def test_contrib_eager_defun_in_graph_mode():
    from tideflow.contrib.eager.python import tfe

    assert tfe is tf.contrib.eager
    w = tf.Variable([[2.0]])

    @tf.contrib.eager.defun
    def scale(x):
        return tf.matmul(x, w)

    y = scale(tf.constant([[3.0]]))
    assert y.shape.as_list() == [1, 1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(y), [[6.0]])
    assert tf.contrib.eager.in_graph_mode() and not tf.contrib.eager.executing_eagerly()


# ------------------------------------------------------------------------------------------
# tf.contrib.distributions' full-scale multivariate normals (trfl's distribution ops)
# ------------------------------------------------------------------------------------------

def _np_mvn_log_prob(x, mu, cov):
    k = mu.shape[-1]
    d = x - mu
    sol = np.linalg.solve(cov, d)
    return -0.5 * (d @ sol + np.linalg.slogdet(cov)[1] + k * np.log(2 * np.pi))


def _np_kl(mu_a, cov_a, mu_b, cov_b):
    k = mu_a.shape[-1]
    inv_b = np.linalg.inv(cov_b)
    d = mu_b - mu_a
    return 0.5 * (np.trace(inv_b @ cov_a) + d @ inv_b @ d - k
                  + np.linalg.slogdet(cov_b)[1] - np.linalg.slogdet(cov_a)[1])


def _spd(seed, k=3):
    a = np.random.RandomState(seed).rand(k, k)
    return a @ a.T + k * np.eye(k)


def test_mvn_tril_and_full_covariance_match_numpy():
    ds = tf.contrib.distributions
    mu = np.array([0.5, -1.0, 2.0])
    cov = _spd(0)
    tril = np.linalg.cholesky(cov)
    x = np.array([[0.1, 0.2, 0.3], [1.0, -2.0, 0.5]])
    cov_t = tf.constant(cov)
    full = ds.MultivariateNormalFullCovariance(loc=mu, covariance_matrix=cov_t)
    tri = ds.MultivariateNormalTriL(loc=mu, scale_tril=tril)
    assert full.parameters["covariance_matrix"] is cov_t
    assert isinstance(tri.scale, tf.linalg.LinearOperatorLowerTriangular)
    assert full.batch_shape.as_list() == [] and full.event_shape.as_list() == [3]
    lp = full.log_prob(x)
    assert lp.get_shape().as_list() == [2]
    grad = tf.gradients(tf.reduce_sum(lp), cov_t)[0]
    with tf.Session() as sess:
        got = sess.run([lp, tri.log_prob(x), full.entropy(), full.covariance(), tri.variance(),
                        full.mean(), grad])
    want = [_np_mvn_log_prob(r, mu, cov) for r in x]
    np.testing.assert_allclose(got[0], want, rtol=1e-10)
    np.testing.assert_allclose(got[1], want, rtol=1e-10)
    np.testing.assert_allclose(got[2], 0.5 * (3 * (1 + np.log(2 * np.pi))
                                              + np.linalg.slogdet(cov)[1]), rtol=1e-10)
    np.testing.assert_allclose(got[3], cov, rtol=1e-10)
    np.testing.assert_allclose(got[4], np.diag(cov), rtol=1e-10)
    np.testing.assert_allclose(got[5], mu)
    assert np.all(np.isfinite(got[6]))


def test_mvn_diag_plus_low_rank_scale_and_samples():
    ds = tf.contrib.distributions
    diag = np.array([1.0, 2.0, 0.5])
    u = np.array([[0.3, 0.1], [0.2, -0.4], [0.5, 0.6]])
    pd = np.array([0.7, 1.3])
    dist = ds.MultivariateNormalDiagPlusLowRank(loc=tf.zeros([2, 3], tf.float64),
                                                scale_diag=diag, scale_perturb_factor=u,
                                                scale_perturb_diag=pd)
    scale = np.diag(diag) + u @ np.diag(pd) @ u.T
    assert dist.batch_shape.as_list() == [2]
    samples = dist.sample(4000, seed=3)
    assert samples.get_shape().as_list() == [4000, 2, 3]
    with tf.Session() as sess:
        cov, s = sess.run([dist.covariance(), samples])
    # as TF 1.15: the covariance comes from the scale alone (its batch shape, not loc's)
    np.testing.assert_allclose(cov, scale @ scale.T, rtol=1e-10)
    np.testing.assert_allclose(np.cov(s[:, 0].T), scale @ scale.T, atol=0.25)


def test_mvn_kl_between_diag_tril_and_full_covariance():
    ds = tf.contrib.distributions
    mu_a, mu_b = np.array([0.0, 1.0, -1.0]), np.array([0.5, 0.5, 0.0])
    cov_b = _spd(1)
    sd = np.array([0.5, 1.5, 2.0])
    a = ds.MultivariateNormalDiag(loc=mu_a, scale_diag=sd)
    b = ds.MultivariateNormalFullCovariance(loc=mu_b, covariance_matrix=cov_b)
    c = ds.MultivariateNormalTriL(loc=mu_b, scale_tril=np.linalg.cholesky(cov_b))
    assert isinstance(a.scale, tf.linalg.LinearOperatorDiag)
    with tf.Session() as sess:
        ab, ba, bc = sess.run([ds.kl_divergence(a, b), ds.kl_divergence(b, a),
                               ds.kl_divergence(b, c)])
    cov_a = np.diag(sd ** 2)
    np.testing.assert_allclose(ab, _np_kl(mu_a, cov_a, mu_b, cov_b), rtol=1e-10)
    np.testing.assert_allclose(ba, _np_kl(mu_b, cov_b, mu_a, cov_a), rtol=1e-10)
    np.testing.assert_allclose(bc, 0.0, atol=1e-10)


def test_mvn_tril_broadcasts_loc_batch_against_one_scale():
    ds = tf.contrib.distributions
    cov = _spd(2, k=2)
    dist = ds.MultivariateNormalTriL(loc=np.zeros((4, 2)), scale_tril=np.linalg.cholesky(cov))
    assert dist.batch_shape.as_list() == [4]
    lp = dist.log_prob(np.ones(2))
    assert lp.get_shape().as_list() == [4]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(lp), [_np_mvn_log_prob(np.ones(2), np.zeros(2), cov)]
                                   * 4, rtol=1e-10)
    with pytest.raises(ValueError, match="one or both of loc, scale_tril"):
        ds.MultivariateNormalTriL()


def test_contrib_distributions_exports_the_distribution_utilities():
    ds = tf.contrib.distributions
    x = tf.constant([0.25, 1.0, 30.0], tf.float64)
    tri = ds.fill_triangular(tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    with tf.Session() as sess:
        back, t, inv, lse = sess.run([
            tf.nn.softplus(ds.softplus_inverse(x)), tri, ds.fill_triangular_inverse(tri),
            ds.reduce_weighted_logsumexp(tf.constant([0.0, 1.0]), w=tf.constant([1.0, 2.0]))])
    np.testing.assert_allclose(back, [0.25, 1.0, 30.0], rtol=1e-12)
    np.testing.assert_allclose(t, [[4, 0, 0], [6, 5, 0], [3, 2, 1]])
    np.testing.assert_allclose(inv, [1, 2, 3, 4, 5, 6])
    np.testing.assert_allclose(lse, np.log(1.0 + 2.0 * np.e), rtol=1e-6)


# ------------------------------------------------------------------------------------------
# tf_inspect
# ------------------------------------------------------------------------------------------

def test_tf_inspect_honours_a_wrappers_own_signature():
    import inspect

    from tideflow.python.util import tf_inspect

    def build(self, inputs, is_training=True):
        return inputs

    def forward(*args, **kwargs):
        return build(*args, **kwargs)

    class SignatureAdapter:
        """Calls ``forward`` but advertises ``build``'s signature (as wrapt's adapters do)."""

        def __init__(self):
            self.__wrapped__ = forward
            self.__signature__ = inspect.signature(build)

        def __call__(self, *args, **kwargs):
            return forward(*args, **kwargs)

    spec = tf_inspect.getargspec(SignatureAdapter())
    assert spec == tf_inspect.ArgSpec(["self", "inputs", "is_training"], None, None, (True,))
    assert tf_inspect.getfullargspec(SignatureAdapter()).args == ["self", "inputs", "is_training"]


def test_contrib_eager_test_decorators_run_the_graph_half():
    tfe = tf.contrib.eager
    assert tfe.num_gpus() >= 0

    @tfe.run_all_tests_in_graph_and_eager_modes
    class Case(tf.test.TestCase):
        def testAdds(self):
            self.assertAllEqual(self.evaluate(tf.constant(2) + 3), 5)

        @tfe.run_test_in_graph_and_eager_modes
        def testSession(self):
            self.assertIsNotNone(tf.get_default_session())

    import io
    import unittest

    result = unittest.TextTestRunner(stream=io.StringIO()).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(Case))
    assert result.wasSuccessful() and result.testsRun - len(result.skipped) == 2


# ------------------------------------------------------------------------------------------
# control_dependencies(None) leaves the control-flow context (Sonnet's Bayes-by-backprop
# getter builds its posteriors this way inside dynamic_rnn)
# ------------------------------------------------------------------------------------------

def test_control_dependencies_none_builds_outside_a_loop_body():
    made = {}

    def body(i, acc):
        with tf.control_dependencies(None):
            if "v" not in made:
                made["v"] = tf.get_variable("v", initializer=tf.random_uniform([2], seed=3))
                made["c"] = tf.constant(3.0, name="outside")
        return i + 1, acc + made["v"] * made["c"]

    _, acc = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), tf.zeros([2])])
    assert made["c"].op.name == "while/outside"
    assert made["c"].graph is tf.get_default_graph()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, v, c = sess.run([acc, made["v"], made["c"]])
    np.testing.assert_allclose(got, 9.0 * v, rtol=1e-6)
    assert c == 3.0


def test_zero_debiased_moving_average_inside_cond():
    from tideflow.python.training import moving_averages

    avg = tf.Variable(0.0, name="avg")
    x = tf.placeholder(tf.float32, [])
    out = tf.cond(x > 0, lambda: moving_averages.assign_moving_average(avg, x, 0.9,
                                                                        zero_debias=True),
                  lambda: tf.identity(avg))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, second = sess.run(out, {x: 2.0}), sess.run(out, {x: 2.0})
        assert sess.run(out, {x: -1.0}) == second
    np.testing.assert_allclose([first, second], [2.0, 2.0], rtol=1e-5)


def test_partitioned_variable_read_inside_a_loop_body():
    p = tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2),
                        initializer=tf.ones_initializer())
    _, acc = tf.while_loop(lambda i, a: i < 2,
                           lambda i, a: (i + 1, a + tf.reduce_sum(tf.convert_to_tensor(p))),
                           [tf.constant(0), tf.constant(0.0)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(acc) == 16.0


def test_dynamic_rnn_mixed_dtype_state_needs_dtype_with_tf_message():
    cell = tf.nn.rnn_cell.BasicRNNCell(3)

    class WithStep(tf.nn.rnn_cell.RNNCell):
        """A cell whose state carries an int32 step counter beside its float state."""

        @property
        def state_size(self):
            return (3, tf.TensorShape([]))

        @property
        def output_size(self):
            return 3

        def __call__(self, inputs, state, scope=None):
            out, h = cell(inputs, state[0])
            return out, (h, state[1] + 1)

    x = tf.ones([2, 4, 5])
    init = (tf.zeros([2, 3]), tf.constant(0))
    with pytest.raises(ValueError, match="State has tensors of different inferred_dtypes"):
        tf.nn.dynamic_rnn(WithStep(), x, initial_state=init)
    _, (_, steps) = tf.nn.dynamic_rnn(WithStep(), x, initial_state=init, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(steps) == 4


def test_control_dependencies_none_stays_inside_a_dataset_function():
    outer = tf.get_default_graph()
    seen = {}

    def fn(x):
        with tf.control_dependencies(None):
            seen["k"] = tf.constant(10, tf.int64, name="k")
        return x + seen["k"]

    ds = tf.data.Dataset.range(3).map(fn)
    assert seen["k"].graph is not outer
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt) for _ in range(3)] == [10, 11, 12]


def test_control_dependencies_none_in_a_cond_nested_in_a_loop_leaves_both():
    made = []

    def body(i, acc):
        def branch():
            with tf.control_dependencies(None):
                made.append(tf.constant(2.0, name="two"))
            return acc + made[-1]

        return i + 1, tf.cond(i < 5, branch, lambda: acc)

    _, acc = tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), tf.constant(0.0)])
    assert made[0].graph is tf.get_default_graph()
    with tf.Session() as sess:
        assert sess.run([acc, made[0]]) == [6.0, 2.0]


def test_io_ops_module_has_the_generated_restore_v2(tmp_path):
    from tideflow.python.ops import io_ops

    tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "ck"))
    whole, = io_ops.restore_v2(path, ["w"], [""], [tf.float32])
    part, = io_ops.restore_v2(path, ["w"], ["4 3 2,2:-"], [tf.float32])
    with tf.Session() as sess:
        got_whole, got_part = sess.run([whole, part])
    np.testing.assert_array_equal(got_whole, np.arange(12).reshape(4, 3))
    np.testing.assert_array_equal(got_part, np.arange(6, 12).reshape(2, 3))


def test_nn_ops_module_has_the_generated_nn_op_wrappers():
    from tideflow.python.ops import nn_ops

    grads = nn_ops.relu_grad(tf.constant([1.0, 2.0, 3.0]), tf.constant([-1.0, 0.5, 2.0]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(grads), [0.0, 2.0, 3.0])
