"""Differences found by running AmpliGraph 1.3 (knowledge-graph embeddings on TF 1.x graph
mode) and DeepMatch 0.1 (matching models on tf.keras) against tideflow, each reduced to the
plain TF 1.x calls the library makes."""

import threading

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# from_generator: closing the session while a prefetch thread runs the generator
# ----------------------------------------------------------------------------------------


def test_session_close_while_prefetch_runs_generator():
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()

    def gen():
        try:
            yield np.int64(7)
            entered.set()
            release.wait(1.0)
            yield np.int64(8)
        finally:
            finished.set()

    ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([])).repeat().prefetch(1)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    sess = tf.Session()
    assert sess.run(nxt) == 7
    assert entered.wait(5.0)  # the prefetch thread is now inside the generator
    sess.close()  # no "generator already executing"
    release.set()
    assert finished.wait(5.0)  # and the generator is still closed, in its own thread
