"""TF 1.x ``tf.contrib.rnn``'s sharded-weight LSTMs: ``CoupledInputForgetGateLSTMCell``,
``TimeFreqLSTMCell``, ``GridLSTMCell`` and ``BidirectionalGridLSTMCell``. Their weights are
``W_0``.. (``num_unit_shards`` row shards, concatenated), ``B``, and upper-case peepholes
(``W_F_diag``...), exactly as TF 1.15 names them."""

import collections

from tideflow import logging
from tideflow.contrib_rnn_cells import _norm, _SizedCell
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    concat_ops,
    constant_op,
    fill_ops,
    init_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    pad_ops,
    slicing_ops,
)
from tideflow.ops import variable_scope as vs
from tideflow.ops.clip_ops import clip_by_value
from tideflow.ops.rnn_cell_impl import LSTMStateTuple


def _sharded_variable(name, shape, dtype, num_shards):
    if num_shards > shape[0]:
        raise ValueError(f"Too many shards: shape={shape}, num_shards={num_shards}")
    unit, remaining = divmod(shape[0], num_shards)
    return [vs.get_variable(f"{name}_{i}", [unit + (1 if i < remaining else 0)] + shape[1:],
                            dtype=dtype) for i in range(num_shards)]


def _concat_variable(name, shape, dtype, num_shards):
    """TF's ``_get_concat_variable``: the shards, concatenated once per scope (the
    concatenation is kept in the CONCATENATED_VARIABLES collection)."""
    shards = _sharded_variable(name, shape, dtype, num_shards)
    if len(shards) == 1:
        return shards[0]
    full = vs.get_variable_scope().name + "/" + name + "/concat:0"
    for value in ops.get_collection(ops.GraphKeys.CONCATENATED_VARIABLES):
        if value.name == full:
            return value
    value = concat_ops.concat(shards, 0, name=name + "/concat")
    ops.add_to_collection(ops.GraphKeys.CONCATENATED_VARIABLES, value)
    return value


def _input_size(inputs):
    size = inputs.get_shape().with_rank(2)[1].value
    if size is None:
        raise ValueError("Could not infer input size from inputs.get_shape()[-1] "
                         f"(shape {inputs.get_shape()})")
    return size


def _bias(name, size, dtype):
    return vs.get_variable(name, shape=[size], initializer=init_ops.zeros_initializer(),
                           dtype=dtype)


def _diag(name, n, dtype):
    return vs.get_variable(name, shape=[n], dtype=dtype)


def _batch_size(inputs):
    return inputs.get_shape()[0].value or array_ops.shape(inputs)[0]


class CoupledInputForgetGateLSTMCell(_SizedCell):
    """An LSTM whose input gate is ``1 - forget gate`` (Greff et al.): ``W_0``..
    [depth + out, 3n], ``B`` [3n], peepholes ``W_F_diag``/``W_O_diag``, projection
    ``W_P_0``.., optional layer norm (``transform``, ``forget``, ``output``, ``state``)."""

    def __init__(self, num_units, use_peepholes=False, initializer=None, num_proj=None,
                 proj_clip=None, num_unit_shards=1, num_proj_shards=1, forget_bias=1.0,
                 state_is_tuple=True, activation=math_ops.tanh, reuse=None, layer_norm=False,
                 norm_gain=1.0, norm_shift=0.0):
        super().__init__(_reuse=reuse)
        if not state_is_tuple:
            logging.warning("%s: Using a concatenated state is slower and will soon be "
                            "deprecated.  Use state_is_tuple=True.", self)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift
        out = num_proj or num_units
        self._state_size = (LSTMStateTuple(num_units, out) if state_is_tuple
                            else num_units + out)
        self._output_size = out

    def call(self, inputs, state):
        sigmoid, n = math_ops.sigmoid, self._num_units
        num_proj = self._num_proj or n
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = slicing_ops.slice(state, [0, 0], [-1, n])
            m_prev = slicing_ops.slice(state, [0, n], [-1, num_proj])
        dtype = inputs.dtype
        w = _concat_variable("W", [_input_size(inputs) + num_proj, 3 * n], dtype,
                             self._num_unit_shards)
        b = _bias("B", 3 * n, dtype)
        matrix = linalg_ops.matmul(concat_ops.concat([inputs, m_prev], 1), w)
        if not self._layer_norm:
            matrix = nn_impl.bias_add(matrix, b)
        j, f, o = concat_ops.split(matrix, 3, 1)
        g, s = self._norm_gain, self._norm_shift
        if self._layer_norm:
            j, f, o = _norm(g, s, j, "transform"), _norm(g, s, f, "forget"), _norm(
                g, s, o, "output")
        if self._use_peepholes:
            w_f, w_o = _diag("W_F_diag", n, dtype), _diag("W_O_diag", n, dtype)
            f_act = sigmoid(f + self._forget_bias + w_f * c_prev)
        else:
            f_act = sigmoid(f + self._forget_bias)
        c = f_act * c_prev + (1 - f_act) * self._activation(j)
        if self._layer_norm:
            c = _norm(g, s, c, "state")
        o_pre = o + w_o * c if self._use_peepholes else o
        m = sigmoid(o_pre) * self._activation(c)
        if self._num_proj is not None:
            w_p = _concat_variable("W_P", [n, self._num_proj], dtype, self._num_proj_shards)
            m = linalg_ops.matmul(m, w_p)
            if self._proj_clip is not None:
                m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else concat_ops.concat(
            [c, m], 1)
        return m, new_state


class TimeFreqLSTMCell(_SizedCell):
    """Time-frequency LSTM (Sainath & Li 2016): an LSTM steps over frequency windows of
    ``feature_size`` every ``frequency_skip`` inputs, each also seeing the previous window's
    output. State ``[c, m]`` per window, concatenated; weights ``W_0``.., ``B``, peepholes
    ``W_F_diag``, ``W_I_diag``, ``W_O_diag``."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_unit_shards=1, forget_bias=1.0, feature_size=None, frequency_skip=1,
                 reuse=None):
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_unit_shards = num_unit_shards
        self._forget_bias = forget_bias
        self._feature_size = feature_size
        self._frequency_skip = frequency_skip
        self._state_size = 2 * num_units
        self._output_size = num_units

    def _make_tf_features(self, input_feat):
        size = _input_size(input_feat)
        count = int((size - self._feature_size) / self._frequency_skip) + 1
        return [slicing_ops.slice(input_feat, [0, f * self._frequency_skip],
                                  [-1, self._feature_size]) for f in range(count)]

    def call(self, inputs, state):
        sigmoid, tanh, n = math_ops.sigmoid, math_ops.tanh, self._num_units
        freq_inputs = self._make_tf_features(inputs)
        dtype = inputs.dtype
        size = freq_inputs[0].get_shape().as_list()[1]
        w = _concat_variable("W", [size + 2 * n, 4 * n], dtype, self._num_unit_shards)
        b = _bias("B", 4 * n, dtype)
        if self._use_peepholes:
            w_f, w_i, w_o = (_diag(name, n, dtype)
                             for name in ("W_F_diag", "W_I_diag", "W_O_diag"))
        batch = inputs.get_shape()[0].value
        m_prev_freq = (fill_ops.zeros([batch, n], dtype) if batch is not None else
                       fill_ops.zeros(concat_ops.stack([_batch_size(inputs), n]), dtype))
        for fq, feat in enumerate(freq_inputs):
            c_prev = slicing_ops.slice(state, [0, 2 * fq * n], [-1, n])
            m_prev = slicing_ops.slice(state, [0, (2 * fq + 1) * n], [-1, n])
            matrix = nn_impl.bias_add(linalg_ops.matmul(
                concat_ops.concat([feat, m_prev, m_prev_freq], 1), w), b)
            i, j, f, o = concat_ops.split(matrix, 4, 1)
            if self._use_peepholes:
                c = (sigmoid(f + self._forget_bias + w_f * c_prev) * c_prev
                     + sigmoid(i + w_i * c_prev) * tanh(j))
            else:
                c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * tanh(j)
            if self._cell_clip is not None:
                c = clip_by_value(c, -self._cell_clip, self._cell_clip)
            o_pre = o + w_o * c if self._use_peepholes else o
            m = sigmoid(o_pre) * tanh(c)
            m_prev_freq = m
            # (TF's running concatenations, one window at a time)
            if fq == 0:
                state_out, m_out = concat_ops.concat([c, m], 1), m
            else:
                state_out = concat_ops.concat([state_out, c, m], 1)
                m_out = concat_ops.concat([m_out, m], 1)
        return m_out, state_out


class GridLSTMCell(_SizedCell):
    """Grid LSTM (Kalchbrenner et al. 2016) over time and frequency: per frequency block
    ``W_f_<b>``/``B_f_<b>`` (frequency LSTM) and ``W_t_<b>``/``B_t_<b>`` (time LSTM, unless
    ``share_time_frequency_weights``) plus ``W_{F,I,O}_diag_{freq,time}{f,t}_<b>`` peepholes.
    The state is a ``GridLSTMStateTuple`` (``state_f00_b00_c``, ``state_f00_b00_m``, ...)."""

    def __init__(self, num_units, use_peepholes=False, share_time_frequency_weights=False,
                 cell_clip=None, initializer=None, num_unit_shards=1, forget_bias=1.0,
                 feature_size=None, frequency_skip=None, num_frequency_blocks=None,
                 start_freqindex_list=None, end_freqindex_list=None,
                 couple_input_forget_gates=False, state_is_tuple=True, reuse=None):
        super().__init__(_reuse=reuse)
        if not state_is_tuple:
            logging.warning("%s: Using a concatenated state is slower and will soon be "
                            "deprecated.  Use state_is_tuple=True.", self)
        if num_frequency_blocks is None:
            raise ValueError("Must specify num_frequency_blocks")
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._share_time_frequency_weights = share_time_frequency_weights
        self._couple_input_forget_gates = couple_input_forget_gates
        self._state_is_tuple = state_is_tuple
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_unit_shards = num_unit_shards
        self._forget_bias = forget_bias
        self._feature_size = feature_size
        self._frequency_skip = frequency_skip
        self._start_freqindex_list = start_freqindex_list
        self._end_freqindex_list = end_freqindex_list
        self._num_frequency_blocks = num_frequency_blocks
        self._total_blocks = sum(int(b) for b in num_frequency_blocks)
        if state_is_tuple:
            names = [f"state_f{f:02d}_b{b:02d}_{part}"
                     for b in range(len(num_frequency_blocks))
                     for f in range(num_frequency_blocks[b]) for part in ("c", "m")]
            self._state_tuple_type = collections.namedtuple("GridLSTMStateTuple", names)
            self._state_size = self._state_tuple_type(*([num_units] * len(names)))
        else:
            self._state_tuple_type = None
            self._state_size = num_units * self._total_blocks * 2
        self._output_size = num_units * self._total_blocks * 2

    @property
    def state_tuple_type(self):
        return self._state_tuple_type

    def call(self, inputs, state):
        batch_size = _batch_size(inputs)
        m_out, state_out = [], []
        for block, block_inputs in enumerate(self._make_tf_features(inputs)):
            m, s = self._compute(block_inputs, block, state, batch_size,
                                 state_is_tuple=self._state_is_tuple)
            m_out += m
            state_out += s
        if self._state_is_tuple:
            new_state = self._state_tuple_type(*state_out)
        else:
            new_state = concat_ops.concat(state_out, 1)
        return concat_ops.concat(m_out, 1), new_state

    def _compute(self, freq_inputs, block, state, batch_size, state_prefix="state",
                 state_is_tuple=True):
        sigmoid, tanh, n = math_ops.sigmoid, math_ops.tanh, self._num_units
        couple, share = self._couple_input_forget_gates, self._share_time_frequency_weights
        peep = self._use_peepholes
        num_gates = 3 if couple else 4
        dtype = freq_inputs[0].dtype
        size = freq_inputs[0].get_shape().as_list()[1]
        w_f = _concat_variable(f"W_f_{block}", [size + 2 * n, num_gates * n], dtype,
                               self._num_unit_shards)
        b_f = _bias(f"B_f_{block}", num_gates * n, dtype)
        if not share:
            w_t = _concat_variable(f"W_t_{block}", [size + 2 * n, num_gates * n], dtype,
                                   self._num_unit_shards)
            b_t = _bias(f"B_t_{block}", num_gates * n, dtype)
        d = {}
        if peep:
            names = ([] if couple else ["F"]) + ["I", "O"]
            for kind in ("freq",) + (() if share else ("time",)):
                for gate in names:
                    for src in "ft":
                        d[gate, kind, src] = _diag(f"W_{gate}_diag_{kind}{src}_{block}", n,
                                                   dtype)

        def gate_act(pre, gate, kind, c_f, c_t, bias=0.0):
            if not peep:
                return sigmoid(pre + bias) if bias else sigmoid(pre)
            kind = "freq" if share else kind
            total = pre + bias if bias else pre
            return sigmoid(total + d[gate, kind, "f"] * c_f + d[gate, kind, "t"] * c_t)

        # (TF 1.15's: two zeros of the list shape, an int or a tensor batch size)
        m_prev_freq = fill_ops.zeros([batch_size, n], dtype)
        c_prev_freq = fill_ops.zeros([batch_size, n], dtype)
        m_out, state_out = [], []
        for fi, feat in enumerate(freq_inputs):
            if state_is_tuple:
                prefix = f"{state_prefix}_f{fi:02d}_b{block:02d}"
                c_prev_time = getattr(state, prefix + "_c")
                m_prev_time = getattr(state, prefix + "_m")
            else:
                c_prev_time = slicing_ops.slice(state, [0, 2 * fi * n], [-1, n])
                m_prev_time = slicing_ops.slice(state, [0, (2 * fi + 1) * n], [-1, n])
            cell_inputs = concat_ops.concat([feat, m_prev_time, m_prev_freq], 1)
            freq = concat_ops.split(nn_impl.bias_add(
                linalg_ops.matmul(cell_inputs, w_f), b_f), num_gates, 1)
            time = freq if share else concat_ops.split(nn_impl.bias_add(
                linalg_ops.matmul(cell_inputs, w_t), b_t), num_gates, 1)
            if couple:
                (i_fr, j_fr, o_fr), (i_ti, j_ti, o_ti) = freq, time
            else:
                (i_fr, j_fr, f_fr, o_fr), (i_ti, j_ti, f_ti, o_ti) = freq, time
            results = {}
            for kind, i, j, f, c_old in (("freq", i_fr, j_fr, None if couple else f_fr,
                                          c_prev_freq),
                                         ("time", i_ti, j_ti, None if couple else f_ti,
                                          c_prev_time)):
                i_g = gate_act(i, "I", kind, c_prev_freq, c_prev_time)
                if couple:
                    f_g = 1.0 - i_g
                else:
                    f_g = gate_act(f, "F", kind, c_prev_freq, c_prev_time, self._forget_bias)
                c = f_g * c_old + i_g * tanh(j)
                if self._cell_clip is not None:
                    c = clip_by_value(c, -self._cell_clip, self._cell_clip)
                results[kind] = c
            c_freq, c_time = results["freq"], results["time"]
            m_freq = gate_act(o_fr, "O", "freq", c_freq, c_time) * tanh(c_freq)
            m_time = gate_act(o_ti, "O", "time", c_freq, c_time) * tanh(c_time)
            m_prev_freq, c_prev_freq = m_freq, c_freq
            state_out += [c_time, m_time]
            m_out += [m_time, m_freq]
        return m_out, state_out

    def _make_tf_features(self, input_feat, slice_offset=0):
        size = _input_size(input_feat)
        if slice_offset > 0:
            inputs = pad_ops.pad(input_feat, constant_op.constant(
                [[0, 0], [0, slice_offset]], dtype=dtypes.int32))
        elif slice_offset < 0:
            inputs = pad_ops.pad(input_feat, constant_op.constant(
                [[0, 0], [-slice_offset, 0]], dtype=dtypes.int32))
            slice_offset = 0
        else:
            inputs = input_feat
        if not self._start_freqindex_list:
            if len(self._num_frequency_blocks) != 1:
                raise ValueError("Length of num_frequency_blocks is not 1, but instead is "
                                 f"{len(self._num_frequency_blocks)}")
            ranges = [(0, size)]
        else:
            if len(self._start_freqindex_list) != len(self._end_freqindex_list):
                raise ValueError("Length of start and end freqindex_list does not match "
                                 f"{len(self._start_freqindex_list)} "
                                 f"{len(self._end_freqindex_list)}")
            if len(self._num_frequency_blocks) != len(self._start_freqindex_list):
                raise ValueError("Length of num_frequency_blocks is not equal to "
                                 f"start_freqindex_list {len(self._num_frequency_blocks)} "
                                 f"{len(self._start_freqindex_list)}")
            ranges = list(zip(self._start_freqindex_list, self._end_freqindex_list,
                              strict=True))
        blocks = []
        for b, (start, end) in enumerate(ranges):
            count = int((end - start - self._feature_size) / self._frequency_skip) + 1
            if count != self._num_frequency_blocks[b]:
                raise ValueError(f"Invalid num_frequency_blocks, requires "
                                 f"{self._num_frequency_blocks[b]} but gets {count}, please "
                                 "check the input size and filter config are correct.")
            blocks.append([slicing_ops.slice(
                inputs, [0, start + slice_offset + f * self._frequency_skip],
                [-1, self._feature_size]) for f in range(count)])
        return blocks


class BidirectionalGridLSTMCell(GridLSTMCell):
    """A ``GridLSTMCell`` run forwards (scope ``fwd``) and backwards (scope ``bwd``) over the
    frequency windows; the state holds ``fwd_state_*`` and ``bwd_state_*`` entries and the
    output both directions' outputs."""

    def __init__(self, num_units, use_peepholes=False, share_time_frequency_weights=False,
                 cell_clip=None, initializer=None, num_unit_shards=1, forget_bias=1.0,
                 feature_size=None, frequency_skip=None, num_frequency_blocks=None,
                 start_freqindex_list=None, end_freqindex_list=None,
                 couple_input_forget_gates=False, backward_slice_offset=0, reuse=None):
        super().__init__(num_units, use_peepholes, share_time_frequency_weights, cell_clip,
                         initializer, num_unit_shards, forget_bias, feature_size,
                         frequency_skip, num_frequency_blocks, start_freqindex_list,
                         end_freqindex_list, couple_input_forget_gates, True, reuse)
        self._backward_slice_offset = int(backward_slice_offset)
        names = [f"{direction}_state_f{f:02d}_b{b:02d}_{part}"
                 for direction in ("fwd", "bwd")
                 for b in range(len(self._num_frequency_blocks))
                 for f in range(self._num_frequency_blocks[b]) for part in ("c", "m")]
        self._state_tuple_type = collections.namedtuple("BidirectionalGridLSTMStateTuple",
                                                        names)
        self._state_size = self._state_tuple_type(*([num_units] * len(names)))
        self._output_size = 2 * num_units * self._total_blocks * 2

    def call(self, inputs, state):
        batch_size = _batch_size(inputs)
        fwd_inputs = self._make_tf_features(inputs)
        bwd_inputs = (self._make_tf_features(inputs, self._backward_slice_offset)
                      if self._backward_slice_offset else fwd_inputs)
        m_out, state_out = {}, {}
        for direction, blocks in (("fwd", fwd_inputs), ("bwd", bwd_inputs)):
            m_out[direction], state_out[direction] = [], []
            with vs.variable_scope(direction):
                for block, block_inputs in enumerate(blocks):
                    if direction == "bwd":
                        block_inputs = block_inputs[::-1]
                    m, s = self._compute(block_inputs, block, state, batch_size,
                                         state_prefix=f"{direction}_state",
                                         state_is_tuple=True)
                    m_out[direction] += m
                    state_out[direction] += s
        new_state = self._state_tuple_type(*(state_out["fwd"] + state_out["bwd"]))
        return concat_ops.concat(m_out["fwd"] + m_out["bwd"], 1), new_state


__all__ = ["BidirectionalGridLSTMCell", "CoupledInputForgetGateLSTMCell", "GridLSTMCell",
           "TimeFreqLSTMCell"]
