"""``tf.estimator``: Estimators of TF 1.x over monitored sessions."""
