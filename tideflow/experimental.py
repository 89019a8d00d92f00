"""``tf.experimental`` (TF 1.15): the function executor and control-flow toggles."""

from tideflow.config import function_executor_type, output_all_intermediates

__all__ = ["function_executor_type", "output_all_intermediates"]
