"""``tensorflow.models.rnn.linear`` (0.x): ``linear(args, output_size, bias, bias_start=0.0,
scope=None)``."""

from tideflow.ops.legacy_aliases import rnn_cell_linear as linear

__all__ = ["linear"]
