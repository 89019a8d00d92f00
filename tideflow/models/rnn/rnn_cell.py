"""``tensorflow.models.rnn.rnn_cell`` (0.x): the cells of ``tf.nn.rnn_cell``, the projection and
embedding wrappers, and ``linear`` (variables ``Linear/Matrix`` and ``Linear/Bias``)."""

from tideflow.ops.legacy_aliases import rnn_cell_linear as linear
from tideflow.ops.rnn_cell_impl import (
    BasicLSTMCell,
    BasicRNNCell,
    DeviceWrapper,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    ResidualWrapper,
    RNNCell,
)
from tideflow.ops.rnn_contrib_cells import (
    EmbeddingWrapper,
    InputProjectionWrapper,
    OutputProjectionWrapper,
)

_linear = linear

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "EmbeddingWrapper",
           "GRUCell", "InputProjectionWrapper", "LSTMCell", "LSTMStateTuple", "MultiRNNCell",
           "OutputProjectionWrapper", "RNNCell", "ResidualWrapper", "linear"]
