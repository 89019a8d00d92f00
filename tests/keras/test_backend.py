"""tf.keras.backend: session, variables, learning phase, functions and the math."""

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend


def test_session_is_made_lazily_and_initializes_keras_variables():
    v = K.variable(np.arange(6).reshape(2, 3), name="v")
    assert v.name == "v:0"
    assert K.dtype(v) == "float32"
    assert K.int_shape(v) == (2, 3)
    session = K.get_session()
    assert session.graph is tf.get_default_graph()
    np.testing.assert_array_equal(K.get_value(v), np.arange(6).reshape(2, 3))
    assert K.get_session() is session


def test_default_session_is_used_when_entered():
    v = K.variable(3.0)
    with tf.Session() as sess:
        assert K.get_session() is sess
        assert K.get_value(v) == 3.0  # initialized in that session on demand


def test_set_session_and_clear_session():
    sess = tf.Session()
    K.set_session(sess)
    assert K.get_session() is sess
    g = tf.get_default_graph()
    K.clear_session()
    assert tf.get_default_graph() is not g
    assert K.get_session() is not sess


def test_set_value_and_batch_values():
    a, b = K.variable(np.zeros((2,))), K.variable(np.zeros((3,)))
    K.set_value(a, [1.0, 2.0])
    K.batch_set_value([(b, [3.0, 4.0, 5.0])])
    got = K.batch_get_value([a, b])
    np.testing.assert_array_equal(got[0], [1, 2])
    np.testing.assert_array_equal(got[1], [3, 4, 5])
    with pytest.raises(ValueError, match="shape"):
        K.set_value(a, np.zeros(5))


def test_learning_phase_default_false_and_settable():
    lp = K.learning_phase()
    assert lp.dtype == tf.bool
    out = K.in_train_phase(K.constant(1.0), K.constant(0.0))
    f = K.function([lp], [out])
    assert f([True])[0] == 1.0
    assert f([False])[0] == 0.0
    assert K.get_session().run(out) == 0.0
    K.set_learning_phase(1)
    assert K.learning_phase() == 1
    with pytest.raises(ValueError):
        K.set_learning_phase(2)


def test_floatx_and_epsilon():
    assert K.floatx() == "float32"
    assert K.epsilon() == 1e-7
    K.set_floatx("float64")
    try:
        assert K.placeholder(shape=(2,)).dtype == tf.float64
    finally:
        K.set_floatx("float32")
    with pytest.raises(ValueError):
        K.set_floatx("int8")


def test_function_with_updates():
    x = K.placeholder(shape=(None, 3))
    acc = K.variable(0.0)
    f = K.function([x], [K.sum(x)], updates=[K.update_add(acc, 1.0)])
    assert f([np.ones((2, 3))])[0] == 6.0
    f([np.ones((1, 3))])
    assert K.get_value(acc) == 2.0


def test_placeholder_shapes():
    p = K.placeholder(ndim=3)
    assert K.int_shape(p) == (None, None, None)
    assert K.ndim(p) == 3
    assert K.is_placeholder(p)


def test_math_matches_numpy():
    rng = np.random.RandomState(0)
    a = rng.randn(2, 3, 4).astype(np.float32)
    b = rng.randn(4, 5).astype(np.float32)
    ta, tb = K.constant(a), K.constant(b)
    np.testing.assert_allclose(K.eval(K.dot(ta, tb)), a @ b, rtol=1e-5)
    np.testing.assert_allclose(K.eval(K.sum(ta, axis=1)), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(K.eval(K.mean(ta, axis=(0, 2))), a.mean((0, 2)), rtol=1e-5)
    np.testing.assert_allclose(K.eval(K.max(ta, axis=-1, keepdims=True)),
                               a.max(-1, keepdims=True))
    np.testing.assert_allclose(K.eval(K.std(ta, axis=1)), a.std(1), rtol=1e-4)
    np.testing.assert_allclose(K.eval(K.clip(ta, -0.5, 0.5)), np.clip(a, -0.5, 0.5))
    np.testing.assert_allclose(K.eval(K.concatenate([ta, ta], axis=-1)),
                               np.concatenate([a, a], -1))
    np.testing.assert_allclose(K.eval(K.permute_dimensions(ta, (2, 0, 1))),
                               a.transpose(2, 0, 1))
    np.testing.assert_allclose(K.eval(K.repeat_elements(ta, 2, axis=1)), np.repeat(a, 2, 1))
    np.testing.assert_allclose(K.eval(K.batch_flatten(ta)), a.reshape(2, -1))
    c = rng.randn(2, 4, 5).astype(np.float32)
    np.testing.assert_allclose(K.eval(K.batch_dot(ta, K.constant(c), axes=[2, 1])),
                               np.einsum("bij,bjk->bik", a, c), rtol=1e-5)
    x = rng.randn(3, 4).astype(np.float32)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(K.eval(K.softmax(K.constant(x))),
                               e / e.sum(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(K.eval(K.relu(K.constant(x), alpha=0.1, max_value=0.5)),
                               np.clip(np.where(x > 0, x, 0.1 * x), None, 0.5), rtol=1e-6)
    np.testing.assert_allclose(K.eval(K.hard_sigmoid(K.constant(x))),
                               np.clip(0.2 * x + 0.5, 0, 1), rtol=1e-6)


def test_crossentropies_match_numpy():
    p = np.array([[0.2, 0.7, 0.1], [0.5, 0.25, 0.25]], np.float32)
    t = np.array([[0, 1, 0], [1, 0, 0]], np.float32)
    want = -np.sum(t * np.log(p), axis=-1)
    np.testing.assert_allclose(K.eval(K.categorical_crossentropy(K.constant(t), K.constant(p))),
                               want, rtol=1e-5)
    np.testing.assert_allclose(
        K.eval(K.sparse_categorical_crossentropy(K.constant([1, 0]), K.constant(p))), want,
        rtol=1e-5)
    logits = np.log(p)
    np.testing.assert_allclose(
        K.eval(K.categorical_crossentropy(K.constant(t), K.softmax(K.constant(logits)))),
        want, rtol=1e-5)
    q = np.array([0.9, 0.2], np.float32)
    y = np.array([1.0, 1.0], np.float32)
    np.testing.assert_allclose(K.eval(K.binary_crossentropy(K.constant(y), K.constant(q))),
                               -np.log(q), rtol=1e-5)


def test_rnn_with_a_step_function_and_mask():
    x = np.random.RandomState(0).randn(2, 4, 3).astype(np.float32)
    w = np.random.RandomState(1).randn(3, 3).astype(np.float32)

    def step(inputs, states):
        h = K.tanh(K.dot(inputs, K.constant(w)) + states[0])
        return h, [h]

    last, outputs, states = K.rnn(step, K.constant(x), [K.zeros_like(K.constant(x[:, 0]))])
    h = np.zeros((2, 3), np.float32)
    seq = []
    for t in range(4):
        h = np.tanh(x[:, t] @ w + h)
        seq.append(h)
    np.testing.assert_allclose(K.eval(outputs), np.stack(seq, 1), rtol=1e-5)
    np.testing.assert_allclose(K.eval(last), h, rtol=1e-5)
    np.testing.assert_allclose(K.eval(states[0]), h, rtol=1e-5)
    mask = K.constant([[True, True, False, False], [True] * 4], dtype="bool")
    last_m, _, _ = K.rnn(step, K.constant(x), [K.constant(np.zeros((2, 3)))], mask=mask)
    got = K.eval(last_m)
    np.testing.assert_allclose(got[1], h[1], rtol=1e-5)
    np.testing.assert_allclose(got[0], seq[1][0], rtol=1e-5)


def test_learning_phase_scope_and_normalize_batch():
    with K.learning_phase_scope(1):
        assert K.learning_phase() == 1
    assert K.learning_phase() is not None and not isinstance(K.learning_phase(), int)
    x = np.random.RandomState(0).randn(8, 3).astype(np.float32)
    normed, mean, _ = K.normalize_batch_in_training(K.constant(x), None, None, [0])
    np.testing.assert_allclose(K.eval(mean), x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(K.eval(normed), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3),
                               rtol=1e-4)


def test_ctc_batch_cost_prefers_the_right_labels():
    rng = np.random.RandomState(0)
    y_true = np.array([[1, 2, 0], [3, 0, 0]], np.float32)
    logits = rng.randn(2, 6, 5).astype(np.float32)
    logits[0, 1, 1] += 8
    logits[0, 3, 2] += 8
    logits[1, 2, 3] += 8
    probs = K.softmax(K.constant(logits))
    cost = K.eval(K.ctc_batch_cost(K.constant(y_true), probs, K.constant([[6], [6]]),
                                   K.constant([[2], [1]])))
    assert cost.shape == (2, 1)
    wrong = K.eval(K.ctc_batch_cost(K.constant([[2, 1, 0], [1, 0, 0]]), probs,
                                    K.constant([[6], [6]]), K.constant([[2], [1]])))
    assert np.all(cost < wrong)
