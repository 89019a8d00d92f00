"""``tensorflow.models.rnn.rnn_cell`` (0.x): the cells of ``tf.nn.rnn_cell``, the projection and
embedding wrappers, and ``linear`` (variables ``Linear/Matrix`` and ``Linear/Bias``).

The module only existed in the 0.x releases, so its cells keep their 0.x signatures: LSTM cells
and ``MultiRNNCell`` default to ``state_is_tuple=False`` (one concatenated ``[c, h]`` state,
``state_size`` an int: the programs of that era feed a ``[None, 2 * num_units]`` placeholder as
the initial state), and ``input_size`` (ignored, as 0.x ignored it) keeps its positional place."""

from tideflow.ops import rnn_cell_impl as _impl
from tideflow.ops.legacy_aliases import rnn_cell_linear as linear
from tideflow.ops.rnn_cell_impl import (
    DeviceWrapper,
    DropoutWrapper,
    LSTMStateTuple,
    ResidualWrapper,
    RNNCell,
)
from tideflow.ops.rnn_contrib_cells import (
    EmbeddingWrapper,
    InputProjectionWrapper,
    OutputProjectionWrapper,
)

_linear = linear


class BasicRNNCell(_impl.BasicRNNCell):
    """0.x signature ``BasicRNNCell(num_units, input_size=None, activation=tanh)``."""

    def __init__(self, num_units, input_size=None, activation=None, **kwargs):
        super().__init__(num_units, activation=activation, **kwargs)


class GRUCell(_impl.GRUCell):
    """0.x signature ``GRUCell(num_units, input_size=None, activation=tanh)``."""

    def __init__(self, num_units, input_size=None, activation=None, **kwargs):
        super().__init__(num_units, activation=activation, **kwargs)


class BasicLSTMCell(_impl.BasicLSTMCell):
    """0.x signature ``BasicLSTMCell(num_units, forget_bias=1.0, input_size=None,
    state_is_tuple=False, activation=tanh)``."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, state_is_tuple=False,
                 activation=None, **kwargs):
        super().__init__(num_units, forget_bias=forget_bias, state_is_tuple=state_is_tuple,
                         activation=activation, **kwargs)


class LSTMCell(_impl.LSTMCell):
    """0.x signature ``LSTMCell(num_units, input_size=None, use_peepholes=False,
    cell_clip=None, initializer=None, num_proj=None, proj_clip=None, num_unit_shards=1,
    num_proj_shards=1, forget_bias=1.0, state_is_tuple=False, activation=tanh)``."""

    def __init__(self, num_units, input_size=None, use_peepholes=False, cell_clip=None,
                 initializer=None, num_proj=None, proj_clip=None, num_unit_shards=1,
                 num_proj_shards=1, forget_bias=1.0, state_is_tuple=False, activation=None,
                 **kwargs):
        super().__init__(num_units, use_peepholes=use_peepholes, cell_clip=cell_clip,
                         initializer=initializer, num_proj=num_proj, proj_clip=proj_clip,
                         num_unit_shards=None if num_unit_shards == 1 else num_unit_shards,
                         num_proj_shards=None if num_proj_shards == 1 else num_proj_shards,
                         forget_bias=forget_bias, state_is_tuple=state_is_tuple,
                         activation=activation, **kwargs)


class MultiRNNCell(_impl.MultiRNNCell):
    """0.x signature ``MultiRNNCell(cells, state_is_tuple=False)``."""

    def __init__(self, cells, state_is_tuple=False):
        super().__init__(cells, state_is_tuple=state_is_tuple)

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "EmbeddingWrapper",
           "GRUCell", "InputProjectionWrapper", "LSTMCell", "LSTMStateTuple", "MultiRNNCell",
           "OutputProjectionWrapper", "RNNCell", "ResidualWrapper", "linear"]
