"""Patterns from the Hvass-Labs TensorFlow tutorials (TF 1.x era), each in a small form
written here: the tf.keras internals they import and the graph API calls they make."""

import numpy as np

import tideflow as tf


def test_python_keras_path_gives_the_tf_keras_modules():
    # Tutorial 03C imports Keras through TF 1.x's internal path.
    from tideflow.python.keras.layers import Dense, Input
    from tideflow.python.keras.models import Model, Sequential, load_model
    from tideflow.python.keras.optimizers import Adam

    from tideflow.python.keras import backend as K

    assert Dense is tf.keras.layers.Dense
    assert Model is tf.keras.models.Model and Sequential is tf.keras.Sequential
    assert load_model is tf.keras.models.load_model
    assert Adam is tf.keras.optimizers.Adam
    assert K is tf.keras.backend
    assert Input is tf.keras.Input
    import tideflow.python.keras.preprocessing.sequence as seq
    assert seq is tf.keras.preprocessing.sequence


def test_input_layer_input_is_its_placeholder():
    # model.layers[0].input fed through K.function, as the 03C tutorial plots layer outputs.
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.keras.backend.set_session(sess)
        inputs = tf.keras.layers.Input(shape=(4,))
        hidden = tf.keras.layers.Dense(3, activation="relu", name="hidden")(inputs)
        model = tf.keras.models.Model(inputs=inputs, outputs=tf.keras.layers.Dense(2)(hidden))
        first = model.layers[0]
        assert isinstance(first, tf.keras.layers.InputLayer)
        assert first.input is inputs and first.output is inputs
        # (TF 1.15: an InputLayer's input_shape is a list of one shape)
        assert first.input_shape == [(None, 4)] and first.get_input_at(0) is inputs
        f = tf.keras.backend.function(inputs=[first.input], outputs=[model.layers[1].output])
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        out = f([x])[0]
        w, b = model.layers[1].get_weights()
        np.testing.assert_allclose(out, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
        sub = tf.keras.models.Model(inputs=first.input, outputs=model.layers[1].output)
        np.testing.assert_allclose(sub.predict(x), out, rtol=1e-5, atol=1e-6)


def test_python_training_modules_are_the_train_modules():
    # Tutorial 06 (CIFAR-10) builds its batch norm with moving_averages from this path.
    from tideflow.python.training.training_util import get_or_create_global_step

    from tideflow.python.training import basic_session_run_hooks, moving_averages, saver

    assert saver.Saver is tf.train.Saver
    assert basic_session_run_hooks.StopAtStepHook is tf.train.StopAtStepHook
    assert get_or_create_global_step is tf.train.get_or_create_global_step
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 3])
        mean, _ = tf.nn.moments(x, axes=[0])
        with tf.variable_scope("bn"):
            moving = tf.get_variable("moving_mean", shape=[3], trainable=False,
                                     initializer=tf.constant_initializer(0.0))
        update = moving_averages.assign_moving_average(moving, mean, decay=0.9,
                                                       zero_debias=False)
        sess.run(tf.global_variables_initializer())
        batch = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]], np.float32)
        sess.run(update, {x: batch})
        np.testing.assert_allclose(sess.run(moving), 0.1 * batch.mean(axis=0), rtol=1e-6)


def _tiny_regressor(loss):
    model = tf.keras.models.Sequential(
        [tf.keras.layers.Dense(2, input_shape=(3,), kernel_initializer="ones")])
    model.compile(optimizer=tf.keras.optimizers.SGD(lr=0.0), loss=loss)
    return model


def test_custom_loss_returning_a_scalar_mean_is_not_scaled_by_batch_size():
    # Tutorial 23 compiles a loss function that already reduces to a scalar
    # (tf.losses.mean_squared_error over a slice); Keras must report that mean.
    def scalar_mse(y_true, y_pred):
        return tf.reduce_mean(tf.losses.mean_squared_error(labels=y_true, predictions=y_pred))

    with tf.Graph().as_default(), tf.Session() as sess:
        tf.keras.backend.set_session(sess)
        model = _tiny_regressor(scalar_mse)
        x = np.arange(24, dtype=np.float32).reshape(8, 3) / 10
        y = np.zeros((8, 2), np.float32)
        expected = float(np.mean((x.sum(axis=1, keepdims=True) - y) ** 2))
        np.testing.assert_allclose(model.evaluate(x, y, batch_size=8, verbose=0), expected,
                                   rtol=1e-5)
        history = model.fit(x, y, batch_size=4, epochs=1, verbose=0)
        np.testing.assert_allclose(history.history["loss"][0], expected, rtol=1e-5)


def test_fit_generator_progress_bar_counts_steps(capsys):
    def batches():
        rng = np.random.RandomState(0)
        while True:
            yield rng.rand(16, 3).astype(np.float16), np.zeros((16, 2), np.float16)

    with tf.Graph().as_default(), tf.Session() as sess:
        tf.keras.backend.set_session(sess)
        model = _tiny_regressor("mse")
        model.fit_generator(batches(), steps_per_epoch=5, epochs=1, verbose=1)
    out = capsys.readouterr().out
    assert "5/5 [" in out and "/step" in out and "80/5" not in out


def test_strided_slices_with_one_spec_and_different_masks_stay_distinct():
    # Keras RNN steps (tutorials 20, 21, 23) slice with the same constant spec at every
    # step; the kernel remembers each spec's index, which must key on the masks too.
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    with tf.Graph().as_default(), tf.Session() as sess:
        t = tf.placeholder(tf.float32, [4, 6])
        outs = [tf.strided_slice(t, [1, 2], [3, 5], [1, 1]),
                tf.strided_slice(t, [1, 2], [3, 5], [1, 1], begin_mask=1),
                tf.strided_slice(t, [1, 2], [3, 5], [1, 1], end_mask=2),
                tf.strided_slice(t, [1, 2], [3, 5], [1, 1], shrink_axis_mask=1),
                tf.strided_slice(t, np.array([1, 2], np.int64), np.array([3, 5], np.int64),
                                 np.array([1, 1], np.int64))]
        grads = [tf.gradients(tf.reduce_sum(o), t)[0] for o in outs[:3]]
        for _ in range(2):
            got = sess.run(outs + grads, {t: x})
            expected = [x[1:3, 2:5], x[:3, 2:5], x[1:3, 2:], x[1, 2:5], x[1:3, 2:5]]
            for g, e in zip(got, expected):
                np.testing.assert_array_equal(g, e)
            for g, index in zip(got[5:], [np.s_[1:3, 2:5], np.s_[:3, 2:5], np.s_[1:3, 2:]]):
                want = np.zeros_like(x)
                want[index] = 1
                np.testing.assert_array_equal(g, want)
