"""tf.train.experimental: loss scales and the loss-scaling optimizer (skipped steps, dynamic
scale updates, unscaled gradients), the mixed-precision rewrite switch, sharding policies."""

import numpy as np
import pytest

import tideflow as tf

te = tf.train.experimental


def _train(opt, xs):
    v = tf.Variable([1.0, 2.0])
    x = tf.placeholder(tf.float32, [])
    step = opt.minimize(tf.reduce_sum(v * v) * x)
    out = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for xv in xs:
            sess.run(step, {x: xv})
            out.append(sess.run([v, opt.loss_scale()]))
    return out


def test_dynamic_loss_scale_skips_and_adapts():
    with tf.Graph().as_default():
        opt = te.MixedPrecisionLossScaleOptimizer(
            tf.train.AdamOptimizer(0.1), te.DynamicLossScale(initial_loss_scale=4.0,
                                                             increment_period=2))
        got = _train(opt, [1.0, np.inf, 1.0, 1.0, 1.0])
    with tf.Graph().as_default():
        ref = _train(tf.train.experimental.MixedPrecisionLossScaleOptimizer(
            tf.train.AdamOptimizer(0.1), 1.0), [1.0, 1.0, 1.0, 1.0])
    scales = [float(s) for _, s in got]
    assert scales == [4.0, 2.0, 2.0, 4.0, 4.0]
    np.testing.assert_array_equal(got[1][0], got[0][0])  # the non-finite step was skipped
    # the skipped step left Adam's state alone: the rest equals plain training
    for (v, _), (r, _) in zip([got[0], got[2], got[3], got[4]], ref):
        np.testing.assert_allclose(v, r, rtol=1e-6)


def test_gradients_are_unscaled_and_fixed_scale():
    with tf.Graph().as_default():
        v = tf.Variable(3.0)
        opt = te.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                  128)
        (g, _), = opt.compute_gradients(v * v, [v])
        assert isinstance(opt.loss_scale, te.FixedLossScale)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(g) == pytest.approx(6.0)
    assert te.FixedLossScale(8).get_config() == {"loss_scale_value": 8.0}
    with pytest.raises(ValueError):
        te.FixedLossScale("big")
    # TF 1.15 checks a fixed scale's value, not a dynamic scale's multiplier
    with pytest.raises(ValueError, match="loss_scale_value must be at least 1."):
        te.FixedLossScale(0.5)
    with pytest.raises(ValueError, match="Optimizer"):
        te.MixedPrecisionLossScaleOptimizer("sgd", "dynamic")


def test_rewrite_switch_and_sharding_policies():
    with tf.Graph().as_default():
        wrapped = te.enable_mixed_precision_graph_rewrite(tf.train.GradientDescentOptimizer(1.0))
        assert isinstance(wrapped, te.MixedPrecisionLossScaleOptimizer)
        assert isinstance(wrapped.loss_scale, te.DynamicLossScale)
        with pytest.raises(ValueError, match="already"):
            te.enable_mixed_precision_graph_rewrite(wrapped)
        te.disable_mixed_precision_graph_rewrite()
    ts = [te.ShardableTensor(tensor=f"t{i}", dtype=tf.float32, shape=[100], slice_spec="",
                             checkpoint_key=f"k{i}", device="/job:w/task:0") for i in range(3)]
    shards = te.MaxShardSizePolicy(800)(ts)
    assert [sorted(s) for s in shards] == [["k0", "k1"], ["k2"]]
    assert len(te.ShardByTaskPolicy()(ts)) == 1
    with pytest.raises(TypeError):
        te.PythonState()
