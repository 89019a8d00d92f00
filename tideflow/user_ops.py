"""``tf.user_ops``: TF's example of a user-defined op."""

from tideflow.ops.tf1_misc_ops import my_fact

__all__ = ["my_fact"]
