"""TF 1.x ``tf.contrib.rnn`` research cells: IndRNN/IndyGRU/IndyLSTM, NAS, UGRNN,
Intersection RNN, SRU, G-LSTM, layer-normalized and weight-normalized LSTMs, Phased LSTM and
the convolutional LSTMs, plus the fused-RNN adaptors. Composed from existing ops; variable
names and shapes are TF 1.15's (``rnn/nas_cell/recurrent_kernel``,
``rnn/conv_lstm_cell/biases``, ...), so checkpoints of TF programs load."""

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    conv_ops,
    gather_ops,
    init_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    pad_ops,
    random_ops,
    slicing_ops,
    unary_ops,
)
from tideflow.ops import variable_scope as vs
from tideflow.ops.clip_ops import clip_by_value
from tideflow.ops.rnn_cell_impl import (
    LSTMStateTuple,
    RNNCell,
    _DelegatingCell,
    _input_depth,
    _UnitsCell,
)


def _depth(what, tensor):
    shape = tensor.get_shape()
    if shape.ndims != 2:
        raise ValueError(f"{what}: expected 2-D inputs [batch, depth], saw shape {shape}")
    if shape[1].value is None:
        raise ValueError(f"{what}: could not infer input size from inputs.get_shape()[-1] "
                         f"(shape {shape})")
    return shape[1].value


def _linear(args, output_size, bias, kernel_initializer=None, bias_initializer=None,
            vars_first=False):
    """TF's ``core_rnn_cell._linear``: ``concat(args) @ kernel (+ bias)`` with variables
    ``kernel`` [sum of depths, output_size] and ``bias`` (zeros) in the current scope. With
    ``vars_first``, its ``_Linear`` class (both variables made before the product)."""
    args = list(args) if isinstance(args, (list, tuple)) else [args]
    total = sum(_depth("linear", a) for a in args)
    dtype = args[0].dtype

    def make_bias():
        return vs.get_variable("bias", [output_size], dtype=dtype,
                               initializer=bias_initializer or init_ops.constant_initializer(
                                   0.0, dtype=dtype))

    kernel = vs.get_variable("kernel", [total, output_size], dtype=dtype,
                             initializer=kernel_initializer)
    biases = make_bias() if bias and vars_first else None
    x = args[0] if len(args) == 1 else concat_ops.concat(args, 1)
    res = linalg_ops.matmul(x, kernel)
    if not bias:
        return res
    return nn_impl.bias_add(res, biases if biases is not None else make_bias())


def _norm(gain, shift, inp, scope):
    """TF's contrib ``_norm``: ``gamma``/``beta`` made in ``scope`` with the given initial
    values, then ``layers.layer_norm`` reusing them."""
    from tideflow.ops.contrib_layers import layer_norm

    shape = inp.get_shape()[-1:]
    with vs.variable_scope(scope):
        vs.get_variable("gamma", shape=shape, initializer=init_ops.constant_initializer(gain))
        vs.get_variable("beta", shape=shape, initializer=init_ops.constant_initializer(shift))
    return layer_norm(inp, reuse=True, scope=scope)


def _lstm_sizes(num_units, num_proj):
    out = num_proj if num_proj else num_units
    return LSTMStateTuple(num_units, out), out


class _SizedCell(RNNCell):
    """A cell whose ``__init__`` sets ``_state_size`` and ``_output_size``."""

    @property
    def state_size(self):
        return self._state_size

    @property
    def output_size(self):
        return self._output_size


class _UnitsLSTMCell(_UnitsCell):
    """A cell with ``num_units`` outputs and an ``LSTMStateTuple(num_units, num_units)``
    state."""

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units)


def _diagonal_weights(cell, prefix, kernel_name, depth, width, kernel_initializer=None,
                      bias_initializer=None):
    """The weights of the Indy cells' diagonal-recurrence layer: ``<prefix><kernel_name>``
    [depth, width], ``<prefix>kernel_u`` [1, width] (uniform in [-1, 1]) and ``<prefix>bias``
    [width] (``bias_initializer``, else zeros)."""
    kernel_w = cell.add_weight(prefix + kernel_name, shape=[depth, width],
                               initializer=kernel_initializer)
    kernel_u = cell.add_weight(prefix + "kernel_u", shape=[1, width],
                               initializer=init_ops.random_uniform_initializer(-1, 1))
    bias = cell.add_weight(prefix + "bias", shape=[width],
                           initializer=bias_initializer or init_ops.zeros_initializer())
    return kernel_w, kernel_u, bias


class IndRNNCell(_UnitsCell):
    """IndRNN (Li et al. 2018): ``h = act(x W + u * h_prev + b)``; variables ``kernel_w``
    [depth, n], ``kernel_u`` [1, n] (uniform in [-1, 1]) and ``bias``."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    def build(self, inputs_shape):
        self._kernel_w, self._kernel_u, self._bias = _diagonal_weights(
            self, "", "kernel_w", _input_depth(self.name, inputs_shape), self._num_units)
        self.built = True

    def call(self, inputs, state):
        gates = linalg_ops.matmul(inputs, self._kernel_w) + state * self._kernel_u
        output = self._activation(nn_impl.bias_add(gates, self._bias))
        return output, output


class IndyGRUCell(_UnitsCell):
    """A GRU whose recurrent matrices are diagonal: variables ``gates/kernel_w``,
    ``gates/kernel_u``, ``gates/bias`` (ones), ``candidate/kernel``, ``candidate/kernel_u`` and
    ``candidate/bias`` (zeros), as TF 1.15 names them."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape)
        n = self._num_units
        self._gate_w, self._gate_u, self._gate_b = _diagonal_weights(
            self, "gates/", "kernel_w", depth, 2 * n, self._kernel_initializer,
            self._bias_initializer or init_ops.constant_initializer(1.0))
        self._cand_w, self._cand_u, self._cand_b = _diagonal_weights(
            self, "candidate/", "kernel", depth, n, self._kernel_initializer,
            self._bias_initializer)
        self.built = True

    def call(self, inputs, state):
        gates = (linalg_ops.matmul(inputs, self._gate_w)
                 + pad_ops.tile(state, [1, 2]) * self._gate_u)
        r, u = concat_ops.split(math_ops.sigmoid(nn_impl.bias_add(gates, self._gate_b)), 2, 1)
        candidate = linalg_ops.matmul(inputs, self._cand_w) + r * state * self._cand_u
        c = self._activation(nn_impl.bias_add(candidate, self._cand_b))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class IndyLSTMCell(_UnitsLSTMCell):
    """An LSTM whose recurrent matrices are diagonal: ``kernel_w`` [depth, 4n], ``kernel_u``
    [1, 4n] (uniform in [-1, 1]) and ``bias``; gates ``i, j, f, o``."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, forget_bias=1.0, activation=None, reuse=None,
                 kernel_initializer=None, bias_initializer=None, name=None, dtype=None):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    def build(self, inputs_shape):
        self._kernel_w, self._kernel_u, self._bias = _diagonal_weights(
            self, "", "kernel_w", _input_depth(self.name, inputs_shape), 4 * self._num_units,
            self._kernel_initializer, self._bias_initializer)
        self.built = True

    def call(self, inputs, state):
        c, h = state
        gates = (linalg_ops.matmul(inputs, self._kernel_w)
                 + pad_ops.tile(h, [1, 4]) * self._kernel_u)
        i, j, f, o = concat_ops.split(nn_impl.bias_add(gates, self._bias), 4, 1)
        forget = ops.convert_to_tensor(self._forget_bias, dtype=f.dtype)
        new_c = (c * math_ops.sigmoid(f + forget)
                 + math_ops.sigmoid(i) * self._activation(j))
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class NASCell(_SizedCell):
    """The recurrent cell found by Neural Architecture Search (Zoph & Le 2017): variables
    ``recurrent_kernel`` [num_proj or n, 8n], ``kernel`` [depth, 8n], optional ``bias`` and
    ``projection_weights`` [n, num_proj]."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    _NAS_BASE = 8

    def __init__(self, num_units, num_proj=None, use_bias=False, reuse=None, **kwargs):
        use_bias = kwargs.pop("use_biases", use_bias)  # the TF 1.4-1.9 spelling
        super().__init__(_reuse=reuse, **kwargs)
        self._num_units = num_units
        self._num_proj = num_proj
        self._use_bias = use_bias
        self._state_size, self._output_size = _lstm_sizes(num_units, num_proj)

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape)
        n, base = self._num_units, self._NAS_BASE
        proj = self._num_proj or n
        self.recurrent_kernel = self.add_weight("recurrent_kernel", [proj, base * n])
        self.kernel = self.add_weight("kernel", [depth, base * n])
        if self._use_bias:
            self.bias = self.add_weight("bias", shape=[base * n],
                                        initializer=init_ops.zeros_initializer())
        if self._num_proj is not None:
            self.projection_weights = self.add_weight("projection_weights",
                                                      [n, self._num_proj])
        self.built = True

    def call(self, inputs, state):
        sigmoid, tanh, relu = math_ops.sigmoid, math_ops.tanh, nn_impl.relu
        c_prev, m_prev = state
        m_matrix = linalg_ops.matmul(m_prev, self.recurrent_kernel)
        if self._use_bias:
            m_matrix = nn_impl.bias_add(m_matrix, self.bias)
        x = concat_ops.split(linalg_ops.matmul(inputs, self.kernel), self._NAS_BASE, 1)
        m = concat_ops.split(m_matrix, self._NAS_BASE, 1)
        l1 = [sigmoid(x[0] + m[0]), relu(x[1] + m[1]), sigmoid(x[2] + m[2]),
              relu(x[3] * m[3]), tanh(x[4] + m[4]), sigmoid(x[5] + m[5]),
              tanh(x[6] + m[6]), sigmoid(x[7] + m[7])]
        l2_0 = tanh(tanh(l1[0] * l1[1]) + c_prev)
        l2_1 = tanh(l1[2] + l1[3])
        l2_2 = tanh(l1[4] * l1[5])
        l2_3 = sigmoid(l1[6] + l1[7])
        new_c = l2_0 * l2_1
        new_m = tanh(new_c * tanh(l2_2 + l2_3))
        if self._num_proj is not None:
            new_m = linalg_ops.matmul(new_m, self.projection_weights)
        return new_m, LSTMStateTuple(new_c, new_m)


class UGRNNCell(_UnitsCell):
    """Update-gate RNN (Collins et al. 2017): one gate mixes the state with a candidate;
    variables ``kernel`` [depth + n, 2n] and ``bias``."""

    def __init__(self, num_units, initializer=None, forget_bias=1.0, activation=math_ops.tanh,
                 reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._initializer = initializer
        self._forget_bias = forget_bias
        self._activation = activation

    def call(self, inputs, state):
        _depth(type(self).__name__, inputs)
        with vs.variable_scope(vs.get_variable_scope(), initializer=self._initializer):
            cell_inputs = concat_ops.concat([inputs, state], 1)
            matrix = _linear(cell_inputs, 2 * self._num_units, True, vars_first=True)
            g_act, c_act = concat_ops.split(matrix, 2, 1)
            c = self._activation(c_act)
            g = math_ops.sigmoid(g_act + self._forget_bias)
            new_state = g * state + (1.0 - g) * c
        return new_state, new_state


class IntersectionRNNCell(_UnitsCell):
    """Intersection RNN (+RNN, Collins et al. 2017) with gates through time and depth;
    variables ``kernel`` [2n, 4n], ``bias`` and, with ``num_in_proj``, ``in_projection/*``."""

    def __init__(self, num_units, num_in_proj=None, initializer=None, forget_bias=1.0,
                 y_activation=nn_impl.relu, reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._initializer = initializer
        self._forget_bias = forget_bias
        self._num_input_proj = num_in_proj
        self._y_activation = y_activation

    def call(self, inputs, state):
        depth = _depth(type(self).__name__, inputs)
        n = self._num_units
        with vs.variable_scope(vs.get_variable_scope(), initializer=self._initializer):
            if depth != n:
                if not self._num_input_proj:
                    raise ValueError("Must have input size == output size for Intersection "
                                     "RNN. To fix, num_in_proj should be set to num_units at "
                                     f"cell init (input size {depth}, num_units {n}).")
                with vs.variable_scope("in_projection"):
                    inputs = _linear(inputs, n, True, vars_first=True)
            cell_inputs = concat_ops.concat([inputs, state], 1)
            matrix = _linear(cell_inputs, 4 * n, True, vars_first=True)
            # (sliced as TF 1.15 slices it)
            gh_act, h_act, gy_act, y_act = (matrix[:, :n], matrix[:, n:2 * n],
                                            matrix[:, 2 * n:3 * n], matrix[:, 3 * n:4 * n])
            h = math_ops.tanh(h_act)
            y = self._y_activation(y_act)
            gh = math_ops.sigmoid(gh_act + self._forget_bias)
            gy = math_ops.sigmoid(gy_act + self._forget_bias)
            new_state = gh * state + (1.0 - gh) * h
            new_y = gy * inputs + (1.0 - gy) * y
        return new_y, new_state


class SRUCell(_UnitsCell):
    """Simple Recurrent Unit (Lei et al. 2017): ``kernel`` [depth, 4n] and ``bias`` [2n];
    the state only meets the input elementwise. Inputs must be as wide as ``num_units``
    (the highway term adds them to the output's width)."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, activation=None, reuse=None, name=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight("kernel", shape=[depth, 4 * n])
        self._bias = self.add_weight("bias", shape=[2 * n],
                                     initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        x_bar, f_pre, r_pre, x_tx = concat_ops.split(
            linalg_ops.matmul(inputs, self._kernel), 4, 1)
        f_r = math_ops.sigmoid(nn_impl.bias_add(concat_ops.concat([f_pre, r_pre], 1),
                                                self._bias))
        f, r = concat_ops.split(f_r, 2, 1)
        c = f * state + (1.0 - f) * x_bar
        h = r * self._activation(c) + (1.0 - r) * x_tx
        return h, c


class GLSTMCell(_SizedCell):
    """Group LSTM (Kuchaiev & Ginsburg 2017): ``number_of_groups`` independent LSTMs over
    slices of the input and output; variables ``group<k>/kernel``, ``bias_{i,j,f,o}`` and,
    with ``num_proj``, ``projection/kernel``."""

    def __init__(self, num_units, initializer=None, num_proj=None, number_of_groups=1,
                 forget_bias=1.0, activation=math_ops.tanh, reuse=None):
        super().__init__(_reuse=reuse)
        if num_units % number_of_groups != 0:
            raise ValueError("num_units must be divisible by number_of_groups")
        if num_proj and num_proj % number_of_groups != 0:
            raise ValueError("num_proj must be divisible by number_of_groups")
        self._num_units = num_units
        self._initializer = initializer
        self._num_proj = num_proj
        self._forget_bias = forget_bias
        self._activation = activation
        self._groups = number_of_groups
        self._group_shape = [(num_proj or num_units) // number_of_groups,
                             num_units // number_of_groups]
        self._state_size, self._output_size = _lstm_sizes(num_units, num_proj)

    def call(self, inputs, state):
        c_prev, m_prev = state
        batch = inputs.get_shape()[0].value or array_ops.shape(inputs)[0]
        if inputs.get_shape().ndims == 2 and inputs.get_shape()[1].value is None:
            raise ValueError("input size must be statically known")  # TF's words
        depth = _depth(type(self).__name__, inputs)
        if depth % self._groups != 0:
            raise ValueError(f"input size ({depth}) must be divisible by number_of_groups "
                             f"({self._groups})")
        in_size, (m_size, unit_size) = depth // self._groups, self._group_shape
        dtype = inputs.dtype
        parts = ([], [], [], [])
        with vs.variable_scope(vs.get_variable_scope(), initializer=self._initializer):
            def group_part(t, g, size):  # (TF's named Slice)
                return slicing_ops.slice(t, [0, g * size], [batch, size],
                                         name=f"GLSTM_group{g}_input_generation")

            for g in range(self._groups):
                with vs.variable_scope(f"group{g}"):
                    x = concat_ops.concat([group_part(inputs, g, in_size),
                                           group_part(m_prev, g, m_size)], 1)
                    for part, piece in zip(parts, concat_ops.split(
                            _linear(x, 4 * unit_size, False), 4, 1), strict=True):
                        part.append(piece)
            # (TF makes the four biases, then adds each)
            biases = [vs.get_variable(f"bias_{gate}", shape=[self._num_units], dtype=dtype,
                                      initializer=init_ops.constant_initializer(0.0,
                                                                                dtype=dtype))
                      for gate in "ijfo"]
            gates = [nn_impl.bias_add(concat_ops.concat(part, 1), bias)
                     for part, bias in zip(parts, biases, strict=True)]
        i, j, f, o = gates
        c = (math_ops.sigmoid(f + self._forget_bias) * c_prev
             + math_ops.sigmoid(i) * math_ops.tanh(j))
        m = math_ops.sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            with vs.variable_scope("projection"):
                m = _linear(m, self._num_proj, False)
        return m, LSTMStateTuple(c, m)


class LayerNormLSTMCell(_SizedCell):
    """``LSTMCell`` with optional layer normalization of the gates and the cell (scopes
    ``input``, ``transform``, ``forget``, ``output``, ``state``): ``kernel`` [depth + out, 4n],
    ``bias`` (made but unused under layer norm, as in TF), ``w_{f,i,o}_diag`` peepholes,
    ``projection/kernel``."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, forget_bias=1.0, activation=None,
                 layer_norm=False, norm_gain=1.0, norm_shift=0.0, reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._activation = activation or math_ops.tanh
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift
        self._state_size, self._output_size = _lstm_sizes(num_units, num_proj)

    def call(self, inputs, state):
        sigmoid, act, n = math_ops.sigmoid, self._activation, self._num_units
        c_prev, m_prev = state
        _depth(type(self).__name__, inputs)
        dtype = inputs.dtype
        with vs.variable_scope(vs.get_variable_scope(), initializer=self._initializer):
            args = concat_ops.concat([inputs, m_prev], 1)
            kernel = vs.get_variable("kernel", [args.get_shape()[1].value, 4 * n], dtype=dtype)
            bias = vs.get_variable("bias", [4 * n], dtype=dtype,
                                   initializer=init_ops.zeros_initializer())
            matrix = linalg_ops.matmul(args, kernel)
            if not self._layer_norm:
                matrix = nn_impl.bias_add(matrix, bias)
            i, j, f, o = concat_ops.split(matrix, 4, 1)
            if self._layer_norm:
                g, b = self._norm_gain, self._norm_shift
                i, j = _norm(g, b, i, "input"), _norm(g, b, j, "transform")
                f, o = _norm(g, b, f, "forget"), _norm(g, b, o, "output")
            if self._use_peepholes:
                w_f, w_i, w_o = (vs.get_variable(name, shape=[n], dtype=dtype)
                                 for name in ("w_f_diag", "w_i_diag", "w_o_diag"))
                c = (sigmoid(f + self._forget_bias + w_f * c_prev) * c_prev
                     + sigmoid(i + w_i * c_prev) * act(j))
            else:
                c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * act(j)
            if self._layer_norm:
                c = _norm(self._norm_gain, self._norm_shift, c, "state")
            if self._cell_clip is not None:
                c = clip_by_value(c, -self._cell_clip, self._cell_clip)
            m = sigmoid(o + w_o * c) * act(c) if self._use_peepholes else sigmoid(o) * act(c)
            if self._num_proj is not None:
                with vs.variable_scope("projection"):
                    m = _linear(m, self._num_proj, False)
                if self._proj_clip is not None:
                    m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        return m, LSTMStateTuple(c, m)


def _random_exp_initializer(minval, maxval, seed=None, dtype=dtypes.float32):
    """Values ``exp(U(log(minval), log(maxval)))`` (the Phased LSTM's periods)."""
    def initializer(shape, dtype=dtype, partition_info=None):
        del partition_info
        low = unary_ops.log(ops.convert_to_tensor(minval, dtype=dtype))
        high = unary_ops.log(ops.convert_to_tensor(maxval, dtype=dtype))
        return unary_ops.exp(random_ops.random_uniform(shape, low, high, dtype, seed=seed))
    return initializer


class PhasedLSTMCell(_UnitsLSTMCell):
    """Phased LSTM (Neil et al. 2016): inputs are ``(time [batch, 1], features)``; the
    state moves only while each unit's time gate (``period``, ``phase``, ``ratio_on``) is
    open. Gates from ``mask_gates/``, ``new_input/`` and ``output_gate/`` ``kernel``/``bias``."""

    def __init__(self, num_units, use_peepholes=False, leak=0.001, ratio_on=0.1,
                 trainable_ratio_on=True, period_init_min=1.0, period_init_max=1000.0,
                 reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._leak = leak
        self._ratio_on = ratio_on
        self._trainable_ratio_on = trainable_ratio_on
        self._period_init_min = period_init_min
        self._period_init_max = period_init_max

    @staticmethod
    def _mod(x, y):
        # the modulo with x's gradient passed straight through
        return array_ops.stop_gradient(math_ops.floormod(x, y) - x) + x

    def _cycle_ratio(self, time, phase, period):
        phase = cast_ops.cast(phase, time.dtype)
        period = cast_ops.cast(period, time.dtype)
        return cast_ops.cast(self._mod(time - phase, period) / period, dtypes.float32)

    def call(self, inputs, state):
        c_prev, h_prev = state
        time, x = inputs
        n = self._num_units
        with vs.variable_scope("mask_gates"):
            gates_in = [x, h_prev] + ([c_prev] if self._use_peepholes else [])
            input_gate, forget_gate = concat_ops.split(
                math_ops.sigmoid(_linear(gates_in, 2 * n, True, vars_first=True)), 2, 1)
        with vs.variable_scope("new_input"):
            new_input = math_ops.tanh(_linear([x, h_prev], n, True, vars_first=True))
        new_c = c_prev * forget_gate + input_gate * new_input
        with vs.variable_scope("output_gate"):
            out_in = [x, h_prev] + ([new_c] if self._use_peepholes else [])
            output_gate = math_ops.sigmoid(_linear(out_in, n, True, vars_first=True))
        new_h = math_ops.tanh(new_c) * output_gate
        period = vs.get_variable("period", [n], initializer=_random_exp_initializer(
            self._period_init_min, self._period_init_max))
        phase = vs.get_variable("phase", [n], initializer=init_ops.random_uniform_initializer(
            0.0, period.initial_value))
        ratio_on = vs.get_variable("ratio_on", [n],
                                   initializer=init_ops.constant_initializer(self._ratio_on),
                                   trainable=self._trainable_ratio_on)
        cycle = self._cycle_ratio(time, phase, period)
        k_up = 2 * cycle / ratio_on
        k_down = 2 - k_up
        k_closed = self._leak * cycle
        k = gather_ops.where(cycle < ratio_on, k_down, k_closed)
        k = gather_ops.where(cycle < 0.5 * ratio_on, k_up, k)
        new_c = k * new_c + (1 - k) * c_prev
        new_h = k * new_h + (1 - k) * h_prev
        return new_h, LSTMStateTuple(new_c, new_h)


def _conv(args, filter_size, num_features, bias, bias_start=0.0):
    """TF's contrib ``_conv``: a SAME, stride-1 convolution of the concatenated ``args``
    with variables ``kernel`` (filter_size + [depth, num_features]) and ``biases``."""
    shapes = [a.get_shape().as_list() for a in args]
    rank = len(shapes[0])
    for shape in shapes:
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Conv Linear expects 3D, 4D or 5D arguments: {shapes}")
        if len(shape) != rank:
            raise ValueError(f"Conv Linear expects all args to be of same Dimension: {shapes}")
    depth = sum(shape[-1] for shape in shapes)
    dtype = args[0].dtype
    kernel = vs.get_variable("kernel", list(filter_size) + [depth, num_features], dtype=dtype)
    x = args[0] if len(args) == 1 else concat_ops.concat(args, rank - 1)
    if rank == 3:
        res = conv_ops.conv1d(x, kernel, 1, padding="SAME")
    elif rank == 4:
        res = conv_ops.conv2d(x, kernel, [1] * 4, padding="SAME")
    else:
        res = conv_ops.conv3d(x, kernel, [1] * 5, padding="SAME")
    if not bias:
        return res
    return res + vs.get_variable("biases", [num_features], dtype=dtype,
                                 initializer=init_ops.constant_initializer(bias_start))


class ConvLSTMCell(_SizedCell):
    """Convolutional LSTM (Shi et al. 2015) over 1-3 spatial dimensions: the gates are one
    SAME convolution of ``[inputs, h]`` (``kernel``, ``biases``); state shapes are
    ``input_shape[:-1] + [output_channels]``."""

    def __init__(self, conv_ndims, input_shape, output_channels, kernel_shape, use_bias=True,
                 skip_connection=False, forget_bias=1.0, initializers=None,
                 name="conv_lstm_cell"):
        super().__init__(name=name)
        if conv_ndims != len(input_shape) - 1:
            raise ValueError(f"Invalid input_shape {input_shape} for conv_ndims={conv_ndims}.")
        self._conv_ndims = conv_ndims
        self._input_shape = list(input_shape)
        self._output_channels = output_channels
        self._kernel_shape = list(kernel_shape)
        self._use_bias = use_bias
        self._forget_bias = forget_bias
        self._skip_connection = skip_connection
        total = output_channels + (self._input_shape[-1] if skip_connection else 0)
        size = TensorShape(self._input_shape[:-1] + [output_channels])
        self._state_size = LSTMStateTuple(size, size)
        self._output_size = TensorShape(self._input_shape[:-1] + [total])

    def call(self, inputs, state, scope=None):
        cell, hidden = state
        gates = _conv([inputs, hidden], self._kernel_shape, 4 * self._output_channels,
                      self._use_bias)
        i, j, f, o = concat_ops.split(gates, 4, self._conv_ndims + 1)
        new_cell = math_ops.sigmoid(f + self._forget_bias) * cell
        new_cell += math_ops.sigmoid(i) * math_ops.tanh(j)
        output = math_ops.tanh(new_cell) * math_ops.sigmoid(o)
        if self._skip_connection:
            output = concat_ops.concat([output, inputs], -1)
        return output, LSTMStateTuple(new_cell, output)


class Conv1DLSTMCell(ConvLSTMCell):
    """``ConvLSTMCell`` with ``conv_ndims=1``."""

    def __init__(self, name="conv_1d_lstm_cell", **kwargs):
        super().__init__(conv_ndims=1, name=name, **kwargs)


class Conv2DLSTMCell(ConvLSTMCell):
    """``ConvLSTMCell`` with ``conv_ndims=2``."""

    def __init__(self, name="conv_2d_lstm_cell", **kwargs):
        super().__init__(conv_ndims=2, name=name, **kwargs)


class Conv3DLSTMCell(ConvLSTMCell):
    """``ConvLSTMCell`` with ``conv_ndims=3``."""

    def __init__(self, name="conv_3d_lstm_cell", **kwargs):
        super().__init__(conv_ndims=3, name=name, **kwargs)


class CompiledWrapper(_DelegatingCell):
    """TF runs the wrapped cell under an XLA JIT scope; there is no JIT here, so the cell
    runs as it is (same variables, same results)."""

    def __init__(self, cell, compile_stateful=False):
        super().__init__()
        self._cell = cell
        self._compile_stateful = compile_stateful

    def __call__(self, inputs, state, scope=None):
        return self._cell(inputs, state, scope=scope)


class WeightNormLSTMCell(_SizedCell):
    """LSTM with weight normalisation (Salimans & Kingma 2016), TF 1.15's contrib cell: with
    ``norm`` each input's slice of ``kernel`` has unit-norm columns scaled by a learned gain
    (``norm_0`` for the inputs, ``norm_1`` for the recurrent part); ``bias`` starts at zero;
    optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``), ``cell_clip`` and a
    ``projection`` (``num_proj``, ``proj_clip``)."""

    def __init__(self, num_units, norm=True, use_peepholes=False, cell_clip=None,
                 initializer=None, num_proj=None, proj_clip=None, forget_bias=1,
                 activation=None, reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._norm = norm
        self._initializer = initializer
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._activation = activation or math_ops.tanh
        self._forget_bias = forget_bias
        self._state_size, self._output_size = _lstm_sizes(num_units, num_proj)

    def _normalize(self, weight, name):
        gain = vs.get_variable(name, [weight.get_shape()[1].value], dtype=weight.dtype)
        return nn_impl.l2_normalize(weight, axis=0) * gain

    def _wn_linear(self, args, output_size, bias):
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        depths = [_depth(type(self).__name__, a) for a in args]
        dtype = args[0].dtype
        kernel = vs.get_variable("kernel", [sum(depths), output_size], dtype=dtype)
        if self._norm:
            parts, start = [], 0
            for k, depth in enumerate(depths):
                parts.append(self._normalize(kernel[start:start + depth, :], f"norm_{k}"))
                start += depth
            kernel = concat_ops.concat(parts, 0)
        x = args[0] if len(args) == 1 else concat_ops.concat(args, 1)
        res = linalg_ops.matmul(x, kernel)
        if not bias:
            return res
        biases = vs.get_variable("bias", [output_size], dtype=dtype,
                                 initializer=init_ops.constant_initializer(0.0))
        return nn_impl.bias_add(res, biases)

    def call(self, inputs, state):
        c, h = state
        n = self._num_units
        sigmoid = math_ops.sigmoid
        dtype = inputs.dtype
        with vs.variable_scope(vs.get_variable_scope(), initializer=self._initializer):
            gates = self._wn_linear([inputs, h], 4 * n, bias=True)
            i, j, f, o = concat_ops.split(gates, 4, axis=1)
            forget = ops.convert_to_tensor(self._forget_bias, dtype=dtype)
            if self._use_peepholes:
                w_f = vs.get_variable("w_f_diag", shape=[n], dtype=dtype)
                w_i = vs.get_variable("w_i_diag", shape=[n], dtype=dtype)
                w_o = vs.get_variable("w_o_diag", shape=[n], dtype=dtype)
                new_c = (c * sigmoid(f + forget + w_f * c)
                         + sigmoid(i + w_i * c) * self._activation(j))
            else:
                new_c = c * sigmoid(f + forget) + sigmoid(i) * self._activation(j)
            if self._cell_clip is not None:
                new_c = clip_by_value(new_c, -self._cell_clip, self._cell_clip)
            if self._use_peepholes:
                new_h = sigmoid(o + w_o * new_c) * self._activation(new_c)
            else:
                new_h = sigmoid(o) * self._activation(new_c)
            if self._num_proj is not None:
                with vs.variable_scope("projection"):
                    new_h = self._wn_linear(new_h, self._num_proj, bias=False)
                if self._proj_clip is not None:
                    new_h = clip_by_value(new_h, -self._proj_clip, self._proj_clip)
        return new_h, LSTMStateTuple(new_c, new_h)


__all__ = ["CompiledWrapper", "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "ConvLSTMCell", "GLSTMCell", "IndRNNCell", "IndyGRUCell", "IndyLSTMCell",
           "IntersectionRNNCell", "LayerNormLSTMCell", "NASCell", "PhasedLSTMCell", "SRUCell",
           "UGRNNCell", "WeightNormLSTMCell"]
