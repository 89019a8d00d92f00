"""Monitored training, hooks and their log lines against TF 1.15, eighteenth session.

Each expected log line, error class and message below was printed by the same program under
real TensorFlow 1.15 (tensorflow-cpu 1.15.0); the tests need only tideflow.
"""

import logging

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.fixture()
def info_lines():
    """The messages the "tensorflow" logger emits at INFO and above, in order."""
    lines = []

    class _Keep(logging.Handler):
        def emit(self, record):
            lines.append((record.levelname, record.getMessage()))

    logger = logging.getLogger("tensorflow")
    handler, old_level = _Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    yield lines
    logger.removeHandler(handler)
    logger.setLevel(old_level)


# -- SessionManager.wait_for_session -----------------------------------------------------------


def test_waiting_worker_logs_nothing_when_its_deadline_is_shorter_than_one_wait(info_lines):
    # TF gives up at the first miss without a "Waiting for model" line when max_wait_secs
    # leaves no room for one recovery_wait_secs (30 s by default)
    tf.Variable(1.0, name="x")
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables())
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match=r"^Session was not ready after waiting 1 secs\.$"):
        sm.wait_for_session("", max_wait_secs=1)
    assert not [m for _, m in info_lines if m.startswith("Waiting for model")]


def test_waiting_worker_logs_once_per_recovery_wait(info_lines):
    tf.Variable(1.0, name="x")
    sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(),
                                 recovery_wait_secs=0.5)
    with pytest.raises(tf.errors.DeadlineExceededError,
                       match=r"^Session was not ready after waiting 0 secs\.$"):
        sm.wait_for_session("", max_wait_secs=0.8)
    waiting = [m for _, m in info_lines if m.startswith("Waiting for model")]
    assert waiting == [("Waiting for model to be ready.  Ready_for_local_init_op:  None, "
                        "ready: Variables not initialized: x")]


# -- NanTensorHook -----------------------------------------------------------------------------


def test_nan_tensor_hook_tests_the_truth_of_the_loss_as_is():
    tf.train.get_or_create_global_step()
    hook = tf.train.NanTensorHook(tf.constant([1.0, np.nan]))
    with (pytest.raises(ValueError, match="truth value of an array with more than one element"),
          tf.train.MonitoredSession(hooks=[hook]) as sess):
        sess.run(tf.train.get_global_step())
