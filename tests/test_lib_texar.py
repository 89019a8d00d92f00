"""Differences found by running Texar-TF (texar 0.2.4, the TF 1.x text-generation toolkit) against
tideflow, each reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# Session.run: a fetched tensor that was fed gives the fed value back
# ----------------------------------------------------------------------------------------


def test_fetching_a_fed_string_scalar_gives_the_fed_str_in_an_object_array():
    # texar's global mode is a placeholder_with_default('train'); a test feeds 'eval' and
    # compares the fetch with the str
    mode = tf.placeholder_with_default("infer", shape=[])
    with tf.Session() as sess:
        got = sess.run(mode, feed_dict={mode: "eval"})
        assert isinstance(got, np.ndarray) and got.dtype == object and got.shape == ()
        assert got.item() == "eval" and got == "eval"
        by_name = sess.run(mode, feed_dict={mode.name: "eval"})
        assert by_name.item() == "eval"
        assert sess.run(mode) == b"infer"  # computed: bytes, as TF
        fed_bytes = sess.run(mode, feed_dict={mode: b"raw"})
        assert fed_bytes.dtype == object and fed_bytes.item() == b"raw"


def test_fetching_a_fed_string_vector_keeps_its_elements_but_ops_see_bytes():
    words = tf.placeholder(tf.string, shape=[None])
    upper = tf.identity(words)
    with tf.Session() as sess:
        fed, computed = sess.run([words, upper], {words: ["ab", b"cd"]})
        assert fed.dtype == object and list(fed) == ["ab", b"cd"]
        assert list(computed) == [b"ab", b"cd"]
        fed, _ = sess.run([words, upper], {words: np.array(["x", "y"])})
        assert fed.dtype == object and list(fed) == ["x", "y"]
