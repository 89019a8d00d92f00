"""Research TF 1.x programs (graph networks, meta-learning, physics-informed nets) reduced to
small synthetic data and run against TF 1.15: expected values are TF 1.15's printed outputs
(measured), each program's repository and path named in its test."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _f32(a):
    return np.asarray(a, np.float32)


def test_convolutions_to_one_channel_add_their_taps_in_tfs_order():
    # PetarV-/GAT utils/layers.py: attention logits are conv1d(seq_fts, 1, 1), a 1x1
    # convolution to one channel: numpy's product there is a GEMV that adds the taps out of
    # TF's order (1 ulp off, then the whole training drifts). The filter gradient to one
    # channel sums over positions the same way. TF 1.15's outputs, measured.
    x = ((np.arange(24) * 7 % 11 - 5) / np.float32(3.7)).astype(np.float32).reshape(1, 6, 4)
    w = ((np.arange(4) * 5 % 7 - 3) / np.float32(2.9)).astype(np.float32).reshape(1, 4, 1)
    x2 = ((np.arange(32) * 5 % 13 - 6) / np.float32(3.3)).astype(np.float32).reshape(2, 4, 4, 1)
    w2 = ((np.arange(4) * 3 % 5 - 2) / np.float32(6.1)).astype(np.float32).reshape(2, 2, 1, 1)
    dy = ((np.arange(18) * 4 % 9 - 4) / np.float32(1.7)).astype(np.float32).reshape(2, 3, 3, 1)
    wt = tf.constant(w2)
    y2 = tf.nn.conv2d(tf.constant(x2), wt, [1, 1, 1, 1], "VALID")
    gw = tf.gradients(y2, wt, tf.constant(dy))[0]
    y1 = tf.nn.conv1d(x, w, 1, "VALID")
    with tf.Session() as s:
        a, b, c = s.run([y1, y2, gw])
    np.testing.assert_array_equal(a.ravel(), _f32([
        0.838769793510437, -0.8387697339057922, 2.6095058917999268, -1.1183596849441528,
        2.329916000366211, -1.3979495763778687]))
    np.testing.assert_array_equal(b.ravel(), _f32([
        1.0928962230682373, -0.1987084001302719, -0.19870838522911072, 0.4470939040184021,
        -0.1987084150314331, -0.19870838522911072, -0.1987084299325943, 0.4470939040184021,
        -0.19870838522911072, -0.19870838522911072, 0.4470939040184021, -0.1987084150314331,
        -0.1987084001302719, -0.1987084299325943, 0.4470939040184021, -0.1987084001302719,
        -0.1987084299325943, 1.0928962230682373]))
    np.testing.assert_array_equal(c.ravel(), _f32([
        10.695185661315918, -7.843135833740234, 6.060606002807617, 3.743314504623413]))


def test_a_sum_over_a_trailing_run_and_size_one_axes_adds_as_eigens_inner_reduction():
    # PetarV-/GAT: the gradient of f_1 [1, n, 1] + f_2^T [1, 1, n] sums over axes [0, 2]:
    # TF's reduction helper drops the size-1 axis, leaving Eigen's packet inner reduction
    # (it was summed one after another); so does a column [n, 1] summed over axis 0.
    # TF 1.15's outputs, measured.
    x = ((np.arange(36) * 7 % 17 - 8) / np.float32(3.3)
         * np.float32(1.7) ** (np.arange(36) % 5)).astype(np.float32).reshape(1, 3, 12)
    with tf.Session() as s:
        a = s.run(tf.reduce_sum(x, [0, 2]))
        b = s.run(tf.reduce_sum(x.reshape(36, 1), 0))
    np.testing.assert_array_equal(a, _f32([12.316274642944336, 17.092153549194336,
                                           15.367792129516602]))
    np.testing.assert_array_equal(b, _f32([44.776222229003906]))


def test_broadcast_gradient_args_of_identical_shapes_reduces_nothing():
    # TF 1.15's BCast takes identical shapes by a fast path: no axes, size-1 dims included,
    # so a batch matmul's gradient Sum keeps the batch axis of 1 (GAT's tf.matmul(coefs,
    # seq_fts) on [1, n, n] x [1, n, f]). Measured in TF 1.15.
    r = tf.raw_ops.BroadcastGradientArgs(s0=[1, 3], s1=[1, 3])
    a = tf.placeholder(tf.float32, [1, 3, 4])
    b = tf.placeholder(tf.float32, [1, 4, 2])
    tf.gradients(tf.matmul(a, b), a)
    total = tf.get_default_graph().get_tensor_by_name("gradients/MatMul_grad/Sum:0")
    with tf.Session() as s:
        r0, r1 = s.run(r)
        v = s.run(total, {a: np.ones((1, 3, 4)), b: np.ones((1, 4, 2))})
    assert r0.tolist() == [] and r1.tolist() == [] and r0.dtype == np.int32
    assert v.shape == (1, 3, 4)
