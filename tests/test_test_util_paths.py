"""``tensorflow.python.framework.test_util``: TF's test decorators run a test once in a graph of
its own, skip eager-only and GPU-only tests, and the module answers ``tf.test``'s names."""

import unittest

import tideflow as tf
from tideflow.python.framework import constant_op, test_util


def _run(case_cls):
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case_cls).run(result)
    return result


def test_decorators_run_in_a_fresh_graph_and_skip_eager_only():
    graphs = []

    class Case(test_util.TensorFlowTestCase):
        @test_util.run_deprecated_v1
        def testBare(self):
            graphs.append(tf.get_default_graph())
            with self.cached_session():
                self.assertAllClose(self.evaluate(constant_op.constant([1.0, 2.0]) * 2), [2, 4])

        @test_util.run_in_graph_and_eager_modes()
        def testCalled(self):
            graphs.append(tf.get_default_graph())
            self.assertAllEqual(self.evaluate(tf.ones([2], tf.int32)), [1, 1])

        @test_util.run_v2_only
        def testEagerOnly(self):
            raise AssertionError("must not run")

        @test_util.run_gpu_only
        def testGpuOnly(self):
            raise AssertionError("must not run")

    result = _run(Case)
    assert not result.failures and not result.errors, result.failures + result.errors
    assert result.testsRun == 5  # four tests + test_session, which skips itself as in TF
    assert len(result.skipped) == 3
    assert len(graphs) == 2 and graphs[0] is not graphs[1]


def test_class_decorator_and_fallback_names():
    seen = []

    @test_util.run_all_in_graph_and_eager_modes
    class Case(test_util.TensorFlowTestCase):
        def testOne(self):
            seen.append(self.evaluate(tf.constant(3)))

    result = _run(Case)
    assert not result.errors and seen == [3]
    assert test_util.TensorFlowTestCase is tf.test.TestCase
    assert test_util.compute_gradient_error is tf.test.compute_gradient_error
    assert not test_util.IsGoogleCudaEnabled()
    with test_util.force_cpu():
        c = tf.constant(1.0)
    assert c.device.endswith("CPU:0")
