"""GPU devices through CuPy: skipped where CuPy or a CUDA device is missing."""

import numpy as np
import pytest

import tideflow as tf
import tideflow.test as tftest

pytestmark = pytest.mark.skipif(not tftest.is_gpu_available(),
                                reason="needs CuPy and a CUDA device")


def test_gpu_device_listed():
    with tf.Graph().as_default(), tf.Session() as s:
        assert any(d.device_type == "GPU" for d in s.list_devices())
    assert tftest.gpu_device_name() == "/device:GPU:0"


def test_matmul_on_gpu_matches_cpu():
    rng = np.random.RandomState(0)
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 16)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [64, 32])
        with tf.device("/gpu:0"):
            y = tf.nn.relu(tf.matmul(x, tf.constant(b)))
        z = tf.reduce_sum(y)  # back on the CPU
        with tf.Session() as s:
            got_y, got_z = s.run([y, z], {x: a})
            plan = next(iter(s._plans.values()))
            assert any(d.device_type == "GPU" for d in plan.placement.values())
    ref = np.maximum(a @ b, 0)
    assert isinstance(got_y, np.ndarray)
    np.testing.assert_allclose(got_y, ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got_z, ref.sum(), rtol=1e-4)


def test_variable_request_on_gpu_needs_soft_placement():
    with tf.Graph().as_default():
        init = tf.constant(1.0)
        with tf.device("/gpu:0"):
            v = tf.Variable(init)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                              match="no supported kernel for GPU"):
            s.run(v.initializer)
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as s:
            s.run(v.initializer)
            assert s.run(v) == 1.0
