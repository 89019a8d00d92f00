"""``tensorflow.models.rnn.rnn`` (0.x): the recurrent drivers, ``rnn`` being today's
``static_rnn``."""

from tideflow.ops.loop_rnn import static_state_saving_rnn
from tideflow.ops.rnn import (
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    static_bidirectional_rnn,
    static_rnn,
)

rnn = static_rnn
bidirectional_rnn = static_bidirectional_rnn
state_saving_rnn = static_state_saving_rnn

__all__ = ["bidirectional_dynamic_rnn", "bidirectional_rnn", "dynamic_rnn", "rnn",
           "state_saving_rnn", "static_bidirectional_rnn", "static_rnn",
           "static_state_saving_rnn"]
