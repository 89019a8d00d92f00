"""``tf.examples``: the tutorials' helper modules TF 1.x shipped (``tutorials.mnist``)."""
