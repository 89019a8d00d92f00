"""TF 1.15 parity of input pipelines and estimators as TF 1.x programs write them: each
expected value below is what the same program printed under real TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_division_by_a_constant_is_a_reciprocal_multiplication():
    # TF 1.15's grappler rewrites x / c (c a constant) into x * (1 / c): an image pipeline's
    # `tf.cast(img, tf.float32) / 255.` rounds as the product, in a session and in a dataset
    a = np.arange(256).astype(np.uint8)
    p = tf.placeholder(tf.uint8, [None])
    y = tf.cast(p, tf.float32) / 255.
    z = tf.data.Dataset.from_tensors(a).map(
        lambda v: tf.cast(v, tf.float32) / 255.).make_one_shot_iterator().get_next()
    folded = tf.cast(tf.constant(a), tf.float32) / 255.  # all constant: folded, exact
    d = tf.placeholder(tf.float64, [3])
    e = tf.div(d, tf.constant(3., tf.float64))
    i = tf.placeholder(tf.int32, [3])
    with tf.Session() as s:
        r1, r2, r3, r4, r5 = s.run([y, z, folded, e, tf.div(i, 2)],
                                   {p: a, d: [1., 2., 10.], i: [5, 7, -7]})
    f = a.astype(np.float32)
    np.testing.assert_array_equal(r1, f * (np.float32(1) / np.float32(255)))
    np.testing.assert_array_equal(r2, r1)
    np.testing.assert_array_equal(r3, f / np.float32(255))
    assert (r1 != r3).sum() == 126  # (TF 1.15: 126 of the 256 differ in the last bit)
    # TF 1.15: [0.3333333333333333, 0.6666666666666666, 3.333333333333333]
    assert r4.tolist() == [0.3333333333333333, 0.6666666666666666, 3.333333333333333]
    assert r5.tolist() == [2, 3, -4]  # integer division is left alone
