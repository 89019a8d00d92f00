"""TF 1.x-style programs (written for tideflow's tests) covering fixes found by running
classic tutorial-style graph-mode programs under tideflow."""

import numpy as np

import tideflow as tf


def test_softmax_xent_flattens_rank3_one_hot_labels_against_matrix_logits():
    # tf.one_hot of a [N, 1] label column gives [N, 1, C]; TF flattens the labels' outer
    # dims to [N, C] so they pair with [N, C] logits.
    g = tf.Graph()
    with g.as_default():
        ys = np.array([[0], [2], [1], [2]], dtype=np.float32)
        onehot = tf.one_hot(ys, 3)
        x = tf.placeholder(tf.float32, [None, 3])
        w = tf.Variable(tf.zeros([3, 3]))
        logits = tf.matmul(x, w) + tf.constant([0.5, -0.25, 1.0])
        cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=onehot,
                                                                      logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
        xv = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            c0 = sess.run(cost, {x: xv})
            for _ in range(30):
                sess.run(train, {x: xv})
            c1 = sess.run(cost, {x: xv})
    z = np.array([0.5, -0.25, 1.0])
    logp = z - np.log(np.exp(z).sum())
    expected = -np.mean(logp[[0, 2, 1, 2]])
    np.testing.assert_allclose(c0, expected, rtol=1e-5)
    assert c1 < c0 * 0.5


def test_tensorflow_python_framework_ops_and_layers_utils_imports():
    # Layer code of the TF 1.x era imports these internals directly.
    import tideflow.python.framework.ops as ops_mod

    from tideflow.python.framework import ops, tensor_shape, tensor_util
    from tideflow.python.layers import utils
    from tideflow.python.ops import array_ops, math_ops, random_ops

    assert ops_mod is ops
    g = tf.Graph()
    with g.as_default():
        x = ops.convert_to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), name="x")
        keep = ops.convert_to_tensor(0.5, dtype=x.dtype, name="keep")
        keep.get_shape().assert_is_compatible_with(tensor_shape.scalar())
        assert tensor_util.constant_value(keep) == 0.5
        mask = math_ops.floor(keep + random_ops.random_uniform(array_ops.shape(x), seed=3))
        off = utils.smart_cond(False, lambda: x * mask, lambda: array_ops.identity(x))
        on = utils.smart_cond(True, lambda: x * mask, lambda: array_ops.identity(x))
        with tf.Session() as sess:
            off_v, on_v, m = sess.run([off, on, mask])
    np.testing.assert_array_equal(off_v, np.arange(6).reshape(2, 3))
    assert set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_array_equal(on_v, np.arange(6).reshape(2, 3) * m)
