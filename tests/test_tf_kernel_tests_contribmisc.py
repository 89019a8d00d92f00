"""tf.contrib's smaller modules (crf, training's HParams, framework's arg_scope and variable
helpers, losses) checked against TF 1.15's behaviour: values from brute force in NumPy, error
classes and messages where TF 1.x programs see them."""

import itertools

import numpy as np

import tideflow as tf

_TRANS = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-2.0, 1.0, 0.25]], np.float32)
_UNARY = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0], [2.0, 2.0, -3.0]], np.float32)


def _path_score(unary, tags):
    return (sum(unary[i, t] for i, t in enumerate(tags))
            + sum(_TRANS[a, b] for a, b in itertools.pairwise(tags)))


def test_crf_python_ops_path_and_multitag_score():
    from tideflow.contrib.crf.python.ops import crf

    assert crf.crf_log_norm is tf.contrib.crf.crf_log_norm
    allowed = np.array([[True, False, True], [True, True, False], [False, True, True]])
    for steps in (3, 1):
        unary, mask = _UNARY[:steps], allowed[:steps]
        score = crf.crf_multitag_sequence_score(unary[None], mask[None], [steps],
                                                tf.constant(_TRANS))
        with tf.Session() as sess:
            got = sess.run(score)
        choices = [np.nonzero(row)[0] for row in mask]
        want = np.logaddexp.reduce([_path_score(unary, p) for p in itertools.product(*choices)])
        assert got.shape == (1,)
        np.testing.assert_allclose(got[0], want, rtol=1e-5)


def test_crf_static_time_builds_no_cond():
    g = tf.Graph()
    with g.as_default():
        tf.contrib.crf.crf_log_norm(tf.constant(_UNARY[None]), tf.constant([3]),
                                    tf.constant(_TRANS))
        tf.contrib.crf.crf_sequence_score(tf.constant(_UNARY[None]), tf.constant([[0, 1, 2]]),
                                          tf.constant([3]), tf.constant(_TRANS))
    assert not [op for op in g.get_operations() if op.type in ("Switch", "If", "StatelessIf")]


def test_crf_unknown_time_still_chooses_at_run_time():
    x = tf.placeholder(tf.float32, [1, None, 3])
    norm = tf.contrib.crf.crf_log_norm(x, tf.constant([3]), tf.constant(_TRANS))
    with tf.Session() as sess:
        got = sess.run(norm, {x: _UNARY[None]})
        one = sess.run(norm, {x: _UNARY[None, :1]})
    paths = [_path_score(_UNARY, p) for p in itertools.product(range(3), repeat=3)]
    np.testing.assert_allclose(got[0], np.logaddexp.reduce(paths), rtol=1e-5)
    np.testing.assert_allclose(one[0], np.logaddexp.reduce(_UNARY[0]), rtol=1e-5)
