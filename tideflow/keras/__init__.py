"""``tf.keras``: the Keras API of TF 1.x, in graph mode over tideflow sessions."""
