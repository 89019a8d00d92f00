"""Parity with TF 1.15 for reinforcement-learning programs (DQN, actor-critic, PPO, A3C) and
for several Python threads sharing one graph and session; expected values come from TF 1.15."""

import threading

import numpy as np
import pytest

import tideflow as tf


def _in_thread(fn):
    out, errors = [], []

    def run():
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - re-raised in the caller
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if errors:
        raise errors[0]
    return out[0]


def test_a_new_thread_builds_into_a_default_graph_of_its_own():
    # TF 1.15: the default graph stack is thread-local and so is its global graph, so a worker
    # thread that enters no graph neither sees the caller's `as_default()` graph nor the main
    # thread's global one; each such thread can make variables of the same names
    main = tf.get_default_graph()
    with tf.Graph().as_default() as g1:

        def build():
            g = tf.get_default_graph()
            w = tf.get_variable("w", [1])
            return g, w.name, tf.constant(1.0, name="c").name

        ga, wa, ca = _in_thread(build)
        gb, wb, cb = _in_thread(build)
    assert ga is not main and ga is not g1 and gb is not ga
    assert (wa, ca) == (wb, cb) == ("w:0", "c:0")
    assert g1.get_operations() == []
    assert not any(op.name == "w" for op in main.get_operations())


def test_reset_default_graph_in_a_thread_leaves_the_main_threads_graph():
    # TF 1.15: reset_default_graph() resets the calling thread's global graph only
    main = tf.get_default_graph()

    def reset():
        before = tf.get_default_graph()
        tf.reset_default_graph()
        return before, tf.get_default_graph()

    before, after = _in_thread(reset)
    assert before is not main and after is not before
    assert tf.get_default_graph() is main


def _agent_model():
    inp = tf.keras.layers.Input(batch_shape=(None, 4))
    hidden = tf.keras.layers.Dense(8, activation="relu")(inp)
    probs = tf.keras.layers.Dense(2, activation="softmax")(hidden)
    return tf.keras.models.Model(inputs=[inp], outputs=[probs])


def test_keras_model_makes_its_predict_function_ahead_of_predict():
    # TF 1.15: A3C agents call model._make_predict_function() before graph.finalize(); it
    # adds predict/group_deps once, and predict on the finalized graph then works
    with tf.Graph().as_default() as g:
        model = _agent_model()
        before = len(g.get_operations())
        model._make_predict_function()
        model._make_predict_function()
        assert [op.name for op in g.get_operations()[before:]] == ["predict/group_deps"]
        tf.keras.backend.manual_variable_initialization(True)
        try:
            with tf.Session() as sess:
                tf.keras.backend.set_session(sess)
                sess.run(tf.global_variables_initializer())
                g.finalize()
                assert model.predict(np.ones((3, 4))).shape == (3, 2)
        finally:
            tf.keras.backend.manual_variable_initialization(False)


def test_keras_session_is_per_thread():
    # TF 1.15: Keras keeps its session in a threading.local, so a worker thread that did not
    # call set_session gets a new session (whose variables Keras already counted as
    # initialized: FailedPreconditionError), and one that predicts outside the model's graph
    # gets the callable's InvalidArgumentError naming the input
    with tf.Graph().as_default() as g:
        model = _agent_model()
        model.compile("sgd", "mse")
        main = tf.keras.backend.get_session()
        x = np.ones((2, 4), np.float32)
        model.predict(x)

        def in_graph():
            with g.as_default():
                return tf.keras.backend.get_session()

        def set_then_predict():
            tf.keras.backend.set_session(main)
            with g.as_default():
                return model.predict(x)

        assert _in_thread(in_graph) is not main
        np.testing.assert_allclose(_in_thread(set_then_predict), model.predict(x))

        def predict_in_graph():
            with g.as_default():
                return model.predict(x)

        with pytest.raises(tf.errors.FailedPreconditionError):
            _in_thread(predict_in_graph)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Tensor input_1:0, specified in either feed_devices or "
                                 r"fetch_devices was not found in the Graph$"):
            _in_thread(lambda: model.predict(x))
        assert tf.keras.backend.get_session() is main


def test_categorical_negative_num_samples_is_tf_shape_error():
    # TF 1.15's Multinomial shape function (MakeDimForScalarInput) words
    words = (r"^Dimension size, given by scalar input 1, must be non-negative but is -4 for "
             r"'multinomial/Multinomial' \(op: 'Multinomial'\)")
    with tf.Graph().as_default(), pytest.raises(ValueError, match=words):
        tf.multinomial(tf.zeros([2, 3]), -4)


def test_a_feed_numpy_cannot_convert_raises_numpys_own_error():
    # TF 1.15's Session.run converts each feed with np.asarray(value, dtype) and lets NumPy's
    # error through unchanged: "could not convert string to float: 'a'"
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        with tf.Session() as sess, pytest.raises(
                ValueError, match=r"^could not convert string to float: 'a'$"):
            sess.run(x, {x: "a"})


def test_threads_train_seeded_graphs_of_their_own():
    # TF 1.15: three threads each build and train a seeded model in their own default graph
    # (same variable names, graph seeds of their own); the losses and draws TF 1.15 printed
    results, errors = {}, []

    def trial(lr, seed):
        try:
            tf.set_random_seed(seed)
            x = tf.placeholder(tf.float32, [None, 2], name="x")
            y = tf.placeholder(tf.float32, [None], name="y")
            w = tf.get_variable("w", [2, 1], initializer=tf.random_normal_initializer(seed=1))
            loss = tf.losses.mean_squared_error(y, tf.squeeze(tf.matmul(x, w), 1))
            train = tf.train.GradientDescentOptimizer(lr).minimize(loss)
            draw = tf.random_uniform([2])
            feed = {x: [[1.0, 2.0], [3.0, 4.0]], y: [1.0, -1.0]}
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(5):
                    sess.run(train, feed)
                results[lr] = (sess.run(loss, feed), sess.run(draw))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=trial, args=(lr, k))
               for k, lr in enumerate([0.01, 0.02, 0.05])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    expected = {0.01: (1.50458, [0.00429, 0.56613]), 0.02: (0.40243, [0.34624, 0.74822]),
                0.05: (1.73994, [0.67032, 0.42297])}
    for lr, (loss, draw) in expected.items():
        np.testing.assert_allclose(results[lr][0], loss, rtol=1e-4)
        np.testing.assert_allclose(results[lr][1], draw, atol=1e-5)
