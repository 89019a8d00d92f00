"""``tf.contrib.grid_rnn``: Grid RNN cells (Kalchbrenner et al., 2015): one inner recurrent cell
per grid dimension, with input/output, priority and non-recurrent dimensions and optional weight
tying, named and scoped as TF 1.15's ``grid_rnn_cell`` module names them."""

import collections

from tideflow import logging
from tideflow.framework import tensor_shape
from tideflow.ops import concat_ops, fill_ops, linalg_ops, nn_impl, slicing_ops
from tideflow.ops import contrib_layers as _layers
from tideflow.ops import rnn_cell_impl as _cells
from tideflow.ops import variable_scope as vs

__all__ = ["Grid1BasicLSTMCell", "Grid1BasicRNNCell", "Grid1LSTMCell", "Grid2BasicLSTMCell",
           "Grid2BasicRNNCell", "Grid2GRUCell", "Grid2LSTMCell", "Grid3LSTMCell", "GridRNNCell"]

_Dim = collections.namedtuple(
    "_GridRNNDimension", ["idx", "is_input", "is_output", "is_priority", "non_recurrent_fn"])
_Config = collections.namedtuple(
    "_GridRNNConfig", ["num_dims", "dims", "inputs", "outputs", "recurrents", "priority",
                       "non_priority", "tied", "num_units"])


def _dim_list(dims, num_dims):
    dims = [] if dims is None else dims
    dims = sorted(set(dims if isinstance(dims, (list, tuple)) else [dims]))
    if any(d < 0 or d >= num_dims for d in dims):
        raise ValueError(f"Invalid dims: {dims}. Must be in [0, {num_dims})")
    return dims


def _grid_config(num_dims, input_dims, output_dims, priority_dims, non_recurrent_dims,
                 non_recurrent_fn, tied, num_units):
    inputs = _dim_list(input_dims, num_dims)
    outputs = _dim_list(output_dims, num_dims)
    priority = _dim_list(priority_dims, num_dims)
    non_recurrent = _dim_list(non_recurrent_dims, num_dims)
    dims = [_Dim(i, i in inputs, i in outputs, i in priority,
                 non_recurrent_fn if i in non_recurrent else None) for i in range(num_dims)]
    return _Config(num_dims, dims, inputs, outputs,
                   [i for i in range(num_dims) if i not in non_recurrent], priority,
                   [i for i in range(num_dims) if i not in priority], tied, num_units)


def _non_recurrent_initializer():
    initializer = vs.get_variable_scope().initializer
    if initializer is None:
        # TF 1.15 falls back to ``tf.contrib.layers.initializers.xavier_initializer``, a name
        # its public contrib.layers does not bind: a non-recurrent dimension needs an
        # initializer on the enclosing variable scope there, and fails without one
        raise AttributeError("module 'tensorflow.contrib.layers' has no attribute "
                             "'initializers'")
    return initializer


def _propagate(dim_indices, conf, cells, c_prev, m_prev, new_output, new_state, first_call):
    """Runs the cells of the dimensions ``dim_indices``: each reads the other dimensions'
    latest outputs as its input and the last dimension's output as its recurrent state."""
    if not dim_indices:
        return
    if conf.num_dims > 1:
        cell_inputs = concat_ops.concat(
            [m_prev[d.idx] if new_output[d.idx] is None else new_output[d.idx]
             for d in conf.dims[:-1]], 1)
    else:
        cell_inputs = fill_ops.zeros([m_prev[0].get_shape().as_list()[0], 0], m_prev[0].dtype)
    last_output = new_output[-1] if new_output[-1] is not None else m_prev[-1]

    for i in dim_indices:
        d = conf.dims[i]
        reuse = conf.tied and not (first_call and i == dim_indices[0])
        if d.non_recurrent_fn:
            args = (concat_ops.concat([cell_inputs, last_output], 1) if conf.num_dims > 1
                    else last_output)
            with vs.variable_scope("non_recurrent" if conf.tied
                                   else f"non_recurrent/cell_{i}"):
                if reuse:
                    vs.get_variable_scope().reuse_variables()
                scope = vs.get_variable_scope()
                new_output[d.idx] = _layers.fully_connected(
                    args, num_outputs=conf.num_units, activation_fn=d.non_recurrent_fn,
                    weights_initializer=_non_recurrent_initializer(),
                    weights_regularizer=scope.regularizer)
        else:
            # LSTM cells carry (c, h); GRU/basic RNN cells only the previous output
            state = last_output if c_prev[i] is None else (c_prev[i], last_output)
            with vs.variable_scope("recurrent" if conf.tied else f"recurrent/cell_{i}"):
                if reuse:
                    vs.get_variable_scope().reuse_variables()
                new_output[d.idx], new_state[d.idx] = cells[i](cell_inputs, state)


class GridRNNCell(_cells.RNNCell):
    """A Grid RNN cell of ``num_dims`` dimensions, each an inner cell from ``cell_fn(num_units)``
    (an ``LSTMCell`` by default). ``input_dims`` receive (projected) input, ``output_dims`` give
    the output, ``priority_dims`` run after the others, ``non_recurrent_dims`` are a fully
    connected layer with ``non_recurrent_fn`` (default relu); ``tied`` shares the weights."""

    def __init__(self, num_units, num_dims=1, input_dims=None, output_dims=None,
                 priority_dims=None, non_recurrent_dims=None, tied=False, cell_fn=None,
                 non_recurrent_fn=None, state_is_tuple=True, output_is_tuple=True):
        # as TF 1.15's, the cell is not initialised as a Layer: it is only a callable
        # container of its inner cells
        if not state_is_tuple:
            logging.warning("%s: Using a concatenated state is slower and will soon be "
                            "deprecated.  Use state_is_tuple=True.", self)
        if not output_is_tuple:
            logging.warning("%s: Using a concatenated output is slower and will soon be "
                            "deprecated.  Use output_is_tuple=True.", self)
        if num_dims < 1:
            raise ValueError(f"dims must be >= 1: {num_dims}")
        self._config = _grid_config(num_dims, input_dims, output_dims, priority_dims,
                                    non_recurrent_dims, non_recurrent_fn or nn_impl.relu, tied,
                                    num_units)
        self._state_is_tuple = state_is_tuple
        self._output_is_tuple = output_is_tuple

        if cell_fn is None:
            def make():
                return _cells.LSTMCell(num_units=num_units, state_is_tuple=state_is_tuple)
        else:
            def make():
                return cell_fn(num_units)
        self._cells = [make()] * num_dims if tied else [make() for _ in range(num_dims)]
        if not isinstance(self._cells[0], _cells.RNNCell):
            raise TypeError("cell_fn must return an RNNCell instance, saw: "
                            f"{type(self._cells[0])}")

        conf = self._config
        cell = self._cells[0]
        if output_is_tuple:
            self._output_size = tuple(cell.output_size for _ in conf.outputs)
        else:
            self._output_size = cell.output_size * len(conf.outputs)
        if state_is_tuple:
            self._state_size = tuple(cell.state_size for _ in conf.recurrents)
        else:
            self._state_size = self._cell_state_size() * len(conf.recurrents)

    @property
    def output_size(self):
        return self._output_size

    @property
    def state_size(self):
        return self._state_size

    def __call__(self, inputs, state, scope=None):
        """One step of the grid: ``(output, new_state)`` from ``inputs`` [batch, depth] and
        the recurrent dimensions' ``state``; variables under ``scope`` (default: the class
        name)."""
        conf = self._config
        dtype = inputs.dtype
        c_prev, m_prev, cell_output_size = self._extract_states(state)
        new_output = [None] * conf.num_dims
        new_state = [None] * conf.num_dims

        with vs.variable_scope(scope or type(self).__name__):
            self._project_input(inputs, c_prev, m_prev, cell_output_size > 0)
            _propagate(conf.non_priority, conf, self._cells, c_prev, m_prev, new_output,
                       new_state, True)
            _propagate(conf.priority, conf, self._cells, c_prev, m_prev, new_output,
                       new_state, False)

            outputs = [new_output[i] for i in conf.outputs]
            if self._output_is_tuple:
                output = tuple(outputs)
            elif outputs:
                output = concat_ops.concat(outputs, 1)
            else:
                output = fill_ops.zeros([0, 0], dtype)

            if self._state_is_tuple:
                states = tuple(new_state[i] for i in conf.recurrents)
            else:
                # iterating each dimension's state: (c, h) pairs flatten, a single tensor
                # (GRU/basic RNN) cannot be iterated in a graph, as in TF 1.15
                parts = [x for i in conf.recurrents for x in new_state[i]]
                states = (concat_ops.concat(parts, 1) if parts
                          else fill_ops.zeros([0, 0], dtype))
        return output, states

    def _extract_states(self, state):
        """Each recurrent dimension's previous cell value ``c`` and output ``m``, and the size
        of ``c`` (0 for cells whose state is their output)."""
        conf = self._config
        c_prev = [None] * conf.num_dims
        m_prev = [None] * conf.num_dims
        cell_state_size = self._cell_state_size()
        cell_output_size = cell_state_size - conf.num_units
        if self._state_is_tuple:
            if len(conf.recurrents) != len(state):
                raise ValueError(f"Expected state as a tuple of {len(conf.recurrents)} element")
            for dim, dim_state in zip(conf.recurrents, state):
                if cell_output_size > 0:
                    c_prev[dim], m_prev[dim] = dim_state
                else:
                    m_prev[dim] = dim_state
        else:
            for dim, start in zip(conf.recurrents,
                                  range(0, self.state_size, cell_state_size)):
                if cell_output_size > 0:
                    c_prev[dim] = slicing_ops.slice(state, [0, start], [-1, conf.num_units])
                    m_prev[dim] = slicing_ops.slice(state, [0, start + conf.num_units],
                                                    [-1, cell_output_size])
                else:
                    m_prev[dim] = slicing_ops.slice(state, [0, start], [-1, conf.num_units])
        return c_prev, m_prev, cell_output_size

    def _project_input(self, inputs, c_prev, m_prev, with_c):
        """Sets each input dimension's previous ``m`` (and ``c``) to its share of the input
        times the ``project_m_<dim>`` (``project_c_<dim>``) matrix."""
        conf = self._config
        # (in TF's order: an unknown input depth fails the comparison, inputs or not)
        if not (inputs is not None
                and tensor_shape.dimension_value(inputs.shape.with_rank(2)[1]) > 0
                and conf.inputs):
            return
        if isinstance(inputs, tuple):
            if len(conf.inputs) != len(inputs):
                raise ValueError(f"Expect inputs as a tuple of {len(conf.inputs)} tensors")
            splits = inputs
        else:
            splits = concat_ops.split(value=inputs, num_or_size_splits=len(conf.inputs), axis=1)
        depth = tensor_shape.dimension_value(splits[0].shape.with_rank(2)[1])
        for k, dim in enumerate(conf.inputs):
            project_m = vs.get_variable(f"project_m_{dim}", [depth, conf.num_units],
                                        dtype=inputs.dtype)
            m_prev[dim] = linalg_ops.matmul(splits[k], project_m)
            if with_c:
                project_c = vs.get_variable(f"project_c_{dim}", [depth, conf.num_units],
                                            dtype=inputs.dtype)
                c_prev[dim] = linalg_ops.matmul(splits[k], project_c)

    def _cell_state_size(self):
        size = self._cells[0].state_size
        return sum(size) if isinstance(size, tuple) else size


class Grid1BasicRNNCell(GridRNNCell):
    """A 1-D grid of one ``BasicRNNCell``."""

    def __init__(self, num_units, state_is_tuple=True, output_is_tuple=True):
        super().__init__(num_units=num_units, num_dims=1, input_dims=0, output_dims=0,
                         priority_dims=0, tied=False,
                         cell_fn=lambda n: _cells.BasicRNNCell(num_units=n),
                         state_is_tuple=state_is_tuple, output_is_tuple=output_is_tuple)


def _grid(num_dims, cell_fn, tied, non_recurrent_fn, state_is_tuple, output_is_tuple):
    """The arguments of the 2-D and 3-D convenience cells: input, output and priority in
    dimension 0, which is non-recurrent when ``non_recurrent_fn`` is given."""
    return {"num_dims": num_dims, "input_dims": 0, "output_dims": 0, "priority_dims": 0,
            "tied": tied, "non_recurrent_dims": None if non_recurrent_fn is None else 0,
            "cell_fn": cell_fn, "non_recurrent_fn": non_recurrent_fn,
            "state_is_tuple": state_is_tuple, "output_is_tuple": output_is_tuple}


class Grid2BasicRNNCell(GridRNNCell):
    """A 2-D grid of ``BasicRNNCell``s."""

    def __init__(self, num_units, tied=False, non_recurrent_fn=None, state_is_tuple=True,
                 output_is_tuple=True):
        super().__init__(num_units, **_grid(2, lambda n: _cells.BasicRNNCell(num_units=n),
                                            tied, non_recurrent_fn, state_is_tuple,
                                            output_is_tuple))


class Grid1BasicLSTMCell(GridRNNCell):
    """A 1-D grid of one ``BasicLSTMCell``."""

    def __init__(self, num_units, forget_bias=1, state_is_tuple=True, output_is_tuple=True):
        def cell_fn(n):
            return _cells.BasicLSTMCell(num_units=n, forget_bias=forget_bias)

        super().__init__(num_units=num_units, num_dims=1, input_dims=0, output_dims=0,
                         priority_dims=0, tied=False, cell_fn=cell_fn,
                         state_is_tuple=state_is_tuple, output_is_tuple=output_is_tuple)


class Grid2BasicLSTMCell(GridRNNCell):
    """A 2-D grid of ``BasicLSTMCell``s."""

    def __init__(self, num_units, tied=False, non_recurrent_fn=None, forget_bias=1,
                 state_is_tuple=True, output_is_tuple=True):
        def cell_fn(n):
            return _cells.BasicLSTMCell(num_units=n, forget_bias=forget_bias)

        super().__init__(num_units, **_grid(2, cell_fn, tied, non_recurrent_fn, state_is_tuple,
                                            output_is_tuple))


def _lstm_fn(use_peepholes, forget_bias):
    def cell_fn(n):
        return _cells.LSTMCell(num_units=n, forget_bias=forget_bias, use_peepholes=use_peepholes)
    return cell_fn


class Grid1LSTMCell(GridRNNCell):
    """A 1-D grid of one ``LSTMCell`` (optionally with peepholes)."""

    def __init__(self, num_units, use_peepholes=False, forget_bias=1.0, state_is_tuple=True,
                 output_is_tuple=True):
        super().__init__(num_units=num_units, num_dims=1, input_dims=0, output_dims=0,
                         priority_dims=0, cell_fn=_lstm_fn(use_peepholes, forget_bias),
                         state_is_tuple=state_is_tuple, output_is_tuple=output_is_tuple)


class Grid2LSTMCell(GridRNNCell):
    """A 2-D grid of ``LSTMCell``s."""

    def __init__(self, num_units, tied=False, non_recurrent_fn=None, use_peepholes=False,
                 forget_bias=1.0, state_is_tuple=True, output_is_tuple=True):
        super().__init__(num_units, **_grid(2, _lstm_fn(use_peepholes, forget_bias), tied,
                                            non_recurrent_fn, state_is_tuple, output_is_tuple))


class Grid3LSTMCell(GridRNNCell):
    """A 3-D grid of ``LSTMCell``s."""

    def __init__(self, num_units, tied=False, non_recurrent_fn=None, use_peepholes=False,
                 forget_bias=1.0, state_is_tuple=True, output_is_tuple=True):
        super().__init__(num_units, **_grid(3, _lstm_fn(use_peepholes, forget_bias), tied,
                                            non_recurrent_fn, state_is_tuple, output_is_tuple))


class Grid2GRUCell(GridRNNCell):
    """A 2-D grid of ``GRUCell``s."""

    def __init__(self, num_units, tied=False, non_recurrent_fn=None, state_is_tuple=True,
                 output_is_tuple=True):
        super().__init__(num_units, **_grid(2, lambda n: _cells.GRUCell(num_units=n), tied,
                                            non_recurrent_fn, state_is_tuple, output_is_tuple))
