"""Devices of a session, kernels per device type, tf.test helpers, log_device_placement."""

import unittest

import numpy as np
import pytest

import tideflow as tf
import tideflow.test as tftest
from tideflow.framework import op_registry
from tideflow.kernels.device import gpu_info

CPU = "/job:localhost/replica:0/task:0/device:CPU:"


def test_device_count_gives_cpu_devices():
    cfg = tf.ConfigProto(device_count={"CPU": 3})
    with tf.Graph().as_default(), tf.Session(config=cfg) as s:
        devs = s.list_devices()
        # as TF 1.15: the CPUs, then the one XLA_CPU device its CPU build registers
        assert [d.name for d in devs] == [CPU + "0", CPU + "1", CPU + "2",
                                          "/job:localhost/replica:0/task:0/device:XLA_CPU:0"]
        assert [d.device_type for d in devs] == ["CPU"] * 3 + ["XLA_CPU"]
        assert [d.memory_limit_bytes for d in devs] == [268435456] * 3 + [17179869184]


def test_no_gpu_device_without_cupy_devices():
    with tf.Graph().as_default(), tf.Session() as s:
        names = [d.name for d in s.list_devices()]
    has_gpu = bool(gpu_info()[1])
    assert any("GPU" in n for n in names) == has_gpu
    assert tftest.is_gpu_available() == has_gpu
    assert tftest.is_gpu_available(cuda_only=True, min_cuda_compute_capability=(1, 0)) == has_gpu
    assert tftest.gpu_device_name() == ("/device:GPU:0" if has_gpu else "")
    assert isinstance(tftest.is_built_with_cuda(), bool)


def test_device_count_gpu_zero_hides_gpus():
    cfg = tf.ConfigProto(device_count={"CPU": 1, "GPU": 0})
    with tf.Graph().as_default(), tf.Session(config=cfg) as s:
        assert [d.device_type for d in s.list_devices()] == ["CPU", "XLA_CPU"]


def test_kernels_per_device_type():
    mm = op_registry.get("MatMul")
    assert op_registry.supports_device_type(mm, "CPU")
    var = op_registry.get("VariableV2")
    assert op_registry.supports_device_type(var, "CPU")
    assert not op_registry.supports_device_type(var, "GPU")
    add = op_registry.get("Add")
    # a string kernel names a function of the device's array module: generic
    if isinstance(add.kernel, str):
        assert op_registry.supports_device_type(add, "GPU")


def test_register_kernel_for_a_device_type():
    d = op_registry.get("RandomShuffle")  # a Python kernel: CPU only as declared
    assert not op_registry.supports_device_type(d, "TESTDEV")
    try:
        op_registry.register_kernel("RandomShuffle", "TESTDEV", kernel=lambda x: x)
        assert op_registry.supports_device_type(d, "TESTDEV")
        assert op_registry.device_kernel("RandomShuffle", "TESTDEV") is not None
        with pytest.raises(ValueError, match="registered twice"):
            op_registry.register_kernel("RandomShuffle", "TESTDEV", kernel=lambda x: x)
    finally:
        op_registry._DEVICE_KERNELS.pop(("RandomShuffle", "TESTDEV"), None)


def test_log_device_placement_prints_each_node(capsys):
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            a = tf.constant(2.0, name="a")
            b = tf.square(a, name="b")
        c = tf.add(b, 1.0, name="c")
        cfg = tf.ConfigProto(device_count={"CPU": 2}, log_device_placement=True)
        with tf.Session(config=cfg) as s:
            assert s.run(c) == 5.0
    out = capsys.readouterr().out
    assert f"b: (Square): {CPU}1" in out
    assert f"c: (AddV2): {CPU}0" in out or f"c: (Add): {CPU}0" in out
    assert "Device mapping:" in out


def test_tf_test_case():
    class MyTest(tftest.TestCase):
        def test_add(self):
            x = tf.constant([1.0, 2.0])
            with self.test_session() as sess:
                self.assertAllClose(sess.run(x + 1.0), [2.0, 3.0])
            self.assertAllEqual(self.evaluate(x * 2.0), np.array([2.0, 4.0], np.float32))
            with self.cached_session() as s1, self.cached_session() as s2:
                assert s1 is s2
            with self.session() as s3:
                self.assertAllClose(s3.run(x), [1.0, 2.0])

        def test_fails(self):
            self.assertAllClose([1.0], [2.0])

    suite = unittest.TestLoader().loadTestsFromTestCase(MyTest)
    result = unittest.TestResult()
    suite.run(result)
    assert result.testsRun == 3 and len(result.skipped) == 1  # test_session: "Not a test."
    assert not result.errors, result.errors
    assert len(result.failures) == 1 and "test_fails" in str(result.failures[0][0])
