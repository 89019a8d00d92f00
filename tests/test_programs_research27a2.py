"""Research TF 1.x programs, continued (test_programs_research27a.py): what cbfinn/maml's
omniglot model and other second-order programs exercise; expected values are TF 1.15's
(measured)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_second_order_gradients_through_fused_batch_norm_compose_as_tf():
    # cbfinn/maml utils.py normalize (contrib batch_norm, fused on 4-D) inside the inner
    # gradient step: the meta-gradient differentiates FusedBatchNormGradV3, which TF 1.15
    # writes out as _BatchNormGrad (rsqrt twice, a reciprocal, the centred products); the
    # other composition was 1-2 ulps off. Values printed by TF 1.15 (measured).
    rs = np.random.RandomState(0)
    x = rs.rand(3, 4, 4, 4).astype(np.float32)
    w0 = (rs.randn(4, 4) * 0.5).astype(np.float32)
    xt = tf.constant(x)
    wv = tf.Variable(w0)
    with tf.variable_scope("m"):
        h = tf.contrib.layers.batch_norm(xt, activation_fn=tf.nn.relu, scope="0")
    y = tf.reduce_mean(h, [1, 2])
    loss = tf.reduce_sum(tf.square(tf.matmul(y, wv)))
    beta = next(v for v in tf.trainable_variables() if "beta" in v.name)
    gx = tf.gradients(loss, xt)[0]
    g2 = tf.gradients(tf.reduce_sum(tf.square(gx)), [beta, wv])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        g2b, g2w = s.run(g2)
    np.testing.assert_array_equal(g2b, np.array([
        0.30770325660705566, -0.1770016998052597, 0.3797991871833801, 0.2673310339450836],
        np.float32))
    np.testing.assert_array_equal(g2w.ravel()[:6], np.array([
        0.26280561089515686, 0.4570537805557251, -0.1859547346830368, -0.4352404475212097,
        0.23538541793823242, 0.20264868438243866], np.float32))
