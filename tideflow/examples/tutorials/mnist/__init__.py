"""``tf.examples.tutorials.mnist``: ``input_data.read_data_sets`` and the ``mnist`` model
helpers of TF 1.x's tutorials."""
