"""A layer that hands its input back unchanged still gets a node of its own in a functional
model (TF 1.x copies such outputs through an Identity)."""

import numpy as np

import tideflow as tf


def test_lambda_identity_on_an_input_builds_a_model():
    with tf.Graph().as_default():
        inp = tf.keras.Input((3,))
        same = tf.keras.layers.Lambda(lambda t: t)(inp)
        assert same is not inp and same.op.type == "Identity"
        model = tf.keras.Model(inp, tf.keras.layers.Dense(1, kernel_initializer="ones")(same))
        assert [la.name for la in model.layers] == ["input_1", "lambda", "dense"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            x = np.arange(6, dtype=np.float32).reshape(2, 3)
            np.testing.assert_allclose(sess.run(model.output, {inp: x}), x.sum(1, keepdims=True))
