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
        assert first.input_shape == (None, 4) and first.get_input_at(0) is inputs
        f = tf.keras.backend.function(inputs=[first.input], outputs=[model.layers[1].output])
        x = np.arange(8, dtype=np.float32).reshape(2, 4)
        out = f([x])[0]
        w, b = model.layers[1].get_weights()
        np.testing.assert_allclose(out, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
        sub = tf.keras.models.Model(inputs=first.input, outputs=model.layers[1].output)
        np.testing.assert_allclose(sub.predict(x), out, rtol=1e-5, atol=1e-6)
