"""``tf.feature_column``: feature columns of TF 1.x."""
