"""What running DeepMind's graph_nets 1.0.x (graph networks on Sonnet 1.x) on tideflow needed,
pinned with plain TF 1.x calls: its test cases reset the default graph in ``setUp`` and keep a
graph tuple in ``self._graph``, and the API differences its modules, tests and demos showed."""

import unittest

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import test_util


@pytest.fixture(autouse=True)
def _fresh_graph(request):
    if "testcase" in request.node.name:  # these run a tf.test.TestCase as TF runs it: no graph
        yield
        return
    with tf.Graph().as_default():
        yield


def _run_case(case_cls):
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case_cls).run(result)
    problems = result.errors + result.failures
    assert not problems, problems[0][1]
    assert result.testsRun >= 1


# ------------------------------------------------------------------------------------------
# tf.test.TestCase
# ------------------------------------------------------------------------------------------

def test_testcase_setup_may_reset_the_default_graph():
    seen = []

    class Case(tf.test.TestCase):
        def setUp(self):
            super().setUp()
            tf.reset_default_graph()  # TF's setUp leaves the global graph the default one
            self.x = tf.constant([1, 2, 3])

        def test_a(self):
            assert self.x.graph is tf.get_default_graph()
            with self.test_session() as sess:
                seen.append(sess.run(self.x * 2).tolist())
            tf.reset_default_graph()
            assert self.x.graph is not tf.get_default_graph()

        def test_b(self):
            with self.cached_session() as sess:
                seen.append(sess.run(self.x + 1).tolist())

    _run_case(Case)
    assert sorted(seen) == [[2, 3, 4], [2, 4, 6]]
    # the stack is left as it was found: a top-level reset still works after the case
    tf.reset_default_graph()


def test_testcase_nested_reset_still_raises():
    class Case(tf.test.TestCase):
        def test_nested(self):
            with tf.Graph().as_default(), self.assertRaisesRegex(AssertionError, "nested"):
                tf.reset_default_graph()

    _run_case(Case)


def test_testcase_subclass_may_keep_its_own_graph_attribute():
    class Case(tf.test.TestCase):
        def setUp(self):
            super().setUp()
            self._graph = {"nodes": tf.constant([[1.0, 2.0]])}  # a user's attribute name

        def test_one(self):
            with self.test_session() as sess:
                np.testing.assert_allclose(sess.run(self._graph["nodes"]), [[1.0, 2.0]])

        @test_util.run_deprecated_v1
        def test_two(self):  # runs on the graph setUp built on
            assert self._graph["nodes"].graph is tf.get_default_graph()

    _run_case(Case)
    tf.reset_default_graph()


def test_testcase_seeds_generators_and_graph_as_tf():
    import random

    seen = []

    class Case(tf.test.TestCase):
        def test_seeded(self):
            assert tf.get_default_graph().seed == 87654321
            data = np.random.rand(3)
            seen.append((random.random(), data.tolist()))
            x = tf.random_uniform([4])
            with self.test_session() as sess:
                seen.append(sess.run(x).tolist())

    _run_case(Case)
    _run_case(Case)
    assert seen[0] == seen[2]  # Python's and NumPy's draws repeat from test to test
    assert seen[1] == seen[3]  # and so does an unseeded random op
    np.random.seed(87654321)
    assert np.allclose(seen[0][1], np.random.rand(3))
