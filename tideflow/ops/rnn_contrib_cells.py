"""The ``tf.contrib.rnn`` cells beyond ``tf.nn.rnn_cell``: ``LSTMBlockCell``,
``LSTMBlockFusedCell``, ``GRUBlockCell``/``GRUBlockCellV2``, ``LayerNormBasicLSTMCell``, the
projection, embedding, attention (LSTMA) and highway wrappers, and ``stack_bidirectional_(dynamic_)rnn``.

The block cells compute what the fused kernels of TF compute, from the same variables
(``lstm_cell/kernel``, ``lstm_cell/bias``, ``gru_cell/w_ru``, ...), so checkpoints of
TF programs using them load here."""

from tideflow.contrib_rnn_fused import LSTMBlockWrapper
from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    conv_ops,
    embedding_ops,
    fill_ops,
    init_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    reduction_ops,
)
from tideflow.ops import rnn as rnn_ops
from tideflow.ops import variable_scope as vs
from tideflow.ops.clip_ops import clip_by_value
from tideflow.ops.layers_base import InputSpec
from tideflow.ops.rnn_cell_impl import (
    GRUCell,
    LSTMStateTuple,
    RNNCell,
    _activation,
    _DelegatingCell,
    _input_depth,
    _UnitsCell,
    _WrapperCell,
)


def _as_fused_op(tf_ops, step, *args):
    """``step(*args)``, tideflow's composite of what TF 1.15 runs as one fused kernel: its
    ops take ids set aside and the graph's count moves on by ``tf_ops`` (TF's ops: the kernel
    and any constant it is given), so later random ops draw TF's seeds. In a loop's body the
    tensors it captures count too (TF's Enter ops)."""
    graph = ops.get_default_graph()
    captures = getattr(graph, "captures", ())
    n0 = len(captures)
    with graph.aside_ids():
        result = step(*args)
    graph._skip_op_ids(tf_ops + len(captures) - n0)
    return result


def _clip_cell(cs, clip):
    """``cs`` clipped to [-clip, clip], its gradient passed through unclipped: TF's LSTMBlock
    kernels' backprop does not mask the clipped entries. ``clipped + (cs - cs)`` keeps the
    clipped value exactly."""
    return array_ops.stop_gradient(clip_by_value(cs, -clip, clip)) + (
        cs - array_ops.stop_gradient(cs))


def _block_lstm_step(inputs, state, kernel, bias, peepholes, forget_bias, cell_clip):
    c, h = state
    gates = nn_impl.bias_add(linalg_ops.matmul(concat_ops.concat([inputs, h], 1), kernel), bias)
    i, ci, f, o = concat_ops.split(gates, 4, axis=1)
    forget = ops.convert_to_tensor(forget_bias, dtype=f.dtype)
    f = f + forget
    if peepholes is not None:  # (TF's kernel: (gates_f + forget_bias) + cs_prev * w_f)
        w_i, w_f, w_o = peepholes
        i = i + c * w_i
        f = f + c * w_f
    new_c = math_ops.sigmoid(f) * c + math_ops.sigmoid(i) * math_ops.tanh(ci)
    if cell_clip is not None:
        new_c = _clip_cell(new_c, cell_clip)
    if peepholes is not None:
        o = o + new_c * w_o
    new_h = math_ops.tanh(new_c) * math_ops.sigmoid(o)
    return new_h, LSTMStateTuple(new_c, new_h)


def _block_lstm(seq_len_max, x, w, b, cs_prev=None, h_prev=None, wci=None, wcf=None,
                wco=None, forget_bias=None, cell_clip=None, use_peephole=None, name=None):
    """TF's ``lstm_ops._block_lstm`` (the BlockLSTM op over a list of ``[batch, depth]``
    inputs ``x``): returns the per-step lists ``i, cs, f, o, ci, co, h`` (gates after their
    activations, ``co = tanh(cs)``); steps at or past ``seq_len_max`` are all zeros."""
    with ops.name_scope(name, "BlockLSTM", [seq_len_max, *x, w, b]):
        b = ops.convert_to_tensor(b, name="b")
        cell_size4 = b.get_shape().with_rank(1)[0].value
        if cell_size4 is None:
            raise ValueError("`b` shape must not be None.")
        n = cell_size4 // 4
        dtype = b.dtype
        batch = array_ops.shape(x[0])[0]
        zero = array_ops.zeros(concat_ops.stack([batch, n]), dtype=dtype)
        c = zero if cs_prev is None else cs_prev
        h = zero if h_prev is None else h_prev
        forget_bias = 1.0 if forget_bias is None else forget_bias
        clip = _clip(cell_clip)
        steps = {k: [] for k in ("i", "cs", "f", "o", "ci", "co", "h")}
        seq_len_max = ops.convert_to_tensor(seq_len_max)
        for t, inputs in enumerate(x):
            gates = nn_impl.bias_add(linalg_ops.matmul(concat_ops.concat([inputs, h], 1), w),
                                     b)
            i, ci, f, o = concat_ops.split(gates, 4, axis=1)
            f = f + ops.convert_to_tensor(forget_bias, dtype=dtype)
            if use_peephole:  # (TF's kernel adds the forget bias before the peephole)
                i = i + c * wci
                f = f + c * wcf
            i = math_ops.sigmoid(i)
            f = math_ops.sigmoid(f)
            ci = math_ops.tanh(ci)
            cs = f * c + i * ci
            if clip is not None:
                cs = _clip_cell(cs, clip)
            if use_peephole:
                o = o + cs * wco
            o = math_ops.sigmoid(o)
            co = math_ops.tanh(cs)
            h = co * o
            live = cast_ops.cast(math_ops.less(ops.convert_to_tensor(t, seq_len_max.dtype),
                                               seq_len_max), dtype)
            for key, value in (("i", i), ("cs", cs), ("f", f), ("o", o), ("ci", ci),
                               ("co", co), ("h", h)):
                steps[key].append(value * live)
            c = cs
        return tuple(steps[k] for k in ("i", "cs", "f", "o", "ci", "co", "h"))


def _clip(cell_clip):
    # TF's LSTMBlock kernels clip only for a positive cell_clip (0 and -1 mean no clipping)
    return cell_clip if cell_clip is not None and cell_clip > 0 else None


class _TupleLSTM(_UnitsCell):
    """An LSTM cell: ``LSTMStateTuple(c, h)`` state and a ``kernel`` [depth + n, 4 n]."""

    @property
    def state_size(self):
        return LSTMStateTuple(self._num_units, self._num_units)

    def _add_kernel(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape)
        n = self._num_units
        self._kernel = self.add_weight("kernel", shape=[depth + n, 4 * n])
        return n


class LSTMBlockCell(_TupleLSTM):
    """The LSTM of TF's fused LSTMBlock kernel: gates ``i, ci, f, o`` from ``kernel``
    [depth + num_units, 4 * num_units] and ``bias``, optional peepholes (``w_i_diag``,
    ``w_f_diag``, ``w_o_diag``) and ``cell_clip``; the state is an ``LSTMStateTuple``."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 dtype=None, reuse=None, name="lstm_cell"):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._cell_clip = _clip(cell_clip)
        self._use_peephole = use_peephole

    def build(self, inputs_shape):
        n = self._add_kernel(inputs_shape)
        self._bias = self.add_weight("bias", shape=[4 * n],
                                     initializer=init_ops.constant_initializer(0.0))
        self._peepholes = None
        if self._use_peephole:
            self._peepholes = tuple(self.add_weight(name, shape=[n])
                                    for name in ("w_i_diag", "w_f_diag", "w_o_diag"))
        self.built = True

    def call(self, inputs, state):
        if len(state) != 2:  # (a Tensor state: TF's TypeError from len)
            raise ValueError("Expecting state to be a tuple with length 2.")
        # (TF: an LSTMBlockCell op, and before it a zeros Const for the absent peepholes)
        return _as_fused_op(1 if self._use_peephole else 2, _block_lstm_step, inputs, state,
                            self._kernel, self._bias, self._peepholes, self._forget_bias,
                            self._cell_clip)


class _FixedWeightsLSTM(RNNCell):
    """One step of ``LSTMBlockFusedCell`` inside ``dynamic_rnn``, over the fused cell's
    variables (it has none of its own): its output is the step's ``(c, h)``."""

    def __init__(self, fused):
        super().__init__(name="step")
        self._fused = fused

    @property
    def state_size(self):
        return LSTMStateTuple(self._fused.num_units, self._fused.num_units)

    @property
    def output_size(self):
        return (self._fused.num_units, self._fused.num_units)

    def call(self, inputs, state):
        f = self._fused
        h, new_state = _block_lstm_step(inputs, state, f.kernel, f.bias, f.peepholes,
                                        f.forget_bias, f.cell_clip)
        return (new_state.c, h), new_state


class LSTMBlockFusedCell(LSTMBlockWrapper):
    """``LSTMBlockCell`` over a whole time-major sequence, a layer:
    ``outputs, (c, h) = cell(inputs [time, batch, depth], initial_state, dtype,
    sequence_length)``; variables ``<name>/kernel`` and ``<name>/bias`` (+ peepholes), made
    on the first call and reused after. Past a row's length outputs are zero and its final
    state is the one at its length. TF 1.15 runs the steps as one BlockLSTM op: tideflow's
    loop takes ids set aside, so the ops around it (and later seeds) number as TF's."""

    def __init__(self, num_units, forget_bias=1.0, cell_clip=None, use_peephole=False,
                 reuse=None, dtype=None, name="lstm_fused_cell"):
        super().__init__(_reuse=reuse, name=name, dtype=dtype)
        self.input_spec = InputSpec(ndim=3)
        self._num_units = num_units
        self.forget_bias = forget_bias
        self.cell_clip = _clip(cell_clip)
        self._use_peephole = use_peephole
        self.kernel = self.bias = self.peepholes = None

    @property
    def num_units(self):
        return self._num_units

    def build(self, input_shape):
        depth = _input_depth(self.name, TensorShape(input_shape).with_rank(3))
        n = self._num_units
        self.kernel = self.add_weight("kernel", [depth + n, 4 * n])
        self.bias = self.add_weight("bias", [4 * n],
                                    initializer=init_ops.constant_initializer(0.0))
        if self._use_peephole:
            self.peepholes = tuple(self.add_weight(name, [n])
                                   for name in ("w_i_diag", "w_f_diag", "w_o_diag"))
        self.built = True

    def _call_cell(self, inputs, initial_cell_state, initial_output, dtype, sequence_length):
        time_len = inputs.get_shape()[0].value
        if time_len is None:
            time_len = array_ops.shape(inputs)[0]
        if not self._use_peephole:
            fill_ops.zeros([self._num_units], dtype=dtype)  # (TF's zero peepholes)
        if sequence_length is None:
            cast_ops.cast(time_len, dtypes.int64)  # (TF's seq_len_max)
        else:
            cast_ops.cast(reduction_ops.reduce_max(sequence_length), dtypes.int64)

        def steps():  # (TF: every step's c and h from one BlockLSTM op)
            (cs, h), _ = rnn_ops.dynamic_rnn(
                _FixedWeightsLSTM(self), inputs,
                initial_state=LSTMStateTuple(initial_cell_state, initial_output),
                dtype=dtype, time_major=True)
            return cs, h

        return _as_fused_op(1, steps)


class GRUBlockCell(GRUCell):
    """The GRU of TF's fused GRUBlock kernel. TF 1.15 names its variables ``w_ru``, ``b_ru``
    (initialised to 1), ``w_c`` and ``b_c`` (zeros); ``GRUBlockCellV2`` differs only in
    using ``GRUCell``'s names (``gates/kernel``, ...). ``cell_size`` is the old name of
    ``num_units``."""

    _variable_names = ("w_ru", "b_ru", "w_c", "b_c")

    def __init__(self, num_units=None, cell_size=None, reuse=None, name="gru_cell",
                 gate_kernel_initializer=None, gate_bias_initializer=None,
                 candidate_kernel_initializer=None, candidate_bias_initializer=None):
        if (num_units is None) == (cell_size is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        super().__init__(num_units if num_units is not None else cell_size, reuse=reuse,
                         kernel_initializer=gate_kernel_initializer, name=name)
        self._gate_bias_init = gate_bias_initializer
        self._cand_kernel_init = candidate_kernel_initializer
        self._cand_bias_init = candidate_bias_initializer

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape)
        n = self._num_units
        w_ru, b_ru, w_c, b_c = self._variable_names
        self._gate_kernel = self.add_weight(w_ru, shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            b_ru, shape=[2 * n],
            initializer=self._gate_bias_init or init_ops.constant_initializer(1.0))
        self._candidate_kernel = self.add_weight(w_c, shape=[depth + n, n],
                                                 initializer=self._cand_kernel_init)
        self._candidate_bias = self.add_weight(
            b_c, shape=[n],
            initializer=self._cand_bias_init or init_ops.constant_initializer(0.0))
        self.built = True

    def call(self, inputs, state):
        return _as_fused_op(1, self._block_step, inputs, state)  # (TF: one GRUBlockCell op)

    def _block_step(self, inputs, state):
        # TF 1.15's GRUBlockCell kernel: GRUCell's gates, but h = u * (h_prev - c) + c
        value = math_ops.sigmoid(nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, state], 1), self._gate_kernel),
            self._gate_bias))
        r, u = concat_ops.split(value, 2, axis=1)
        c = math_ops.tanh(nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, r * state], 1), self._candidate_kernel),
            self._candidate_bias))
        new_h = u * (state - c) + c
        return new_h, new_h


class GRUBlockCellV2(GRUBlockCell):
    """``GRUBlockCell`` with ``GRUCell``'s variable names (``gates/kernel``, ``gates/bias``,
    ``candidate/kernel``, ``candidate/bias``)."""

    _variable_names = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")


class LayerNormBasicLSTMCell(_TupleLSTM):
    """A basic LSTM whose four gate pre-activations and new cell state are layer-normalized
    (``input``, ``transform``, ``forget``, ``output``, ``state`` scopes, each with ``gamma``
    initialised to ``norm_gain`` and ``beta`` to ``norm_shift``), with optional recurrent
    dropout on the candidate (``dropout_keep_prob``)."""

    def __init__(self, num_units, forget_bias=1.0, input_size=None, activation=None,
                 layer_norm=True, norm_gain=1.0, norm_shift=0.0, dropout_keep_prob=1.0,
                 dropout_prob_seed=None, reuse=None):
        del input_size
        super().__init__(_reuse=reuse)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._activation = _activation(activation)
        self._layer_norm = layer_norm
        self._norm_gain = norm_gain
        self._norm_shift = norm_shift
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed

    def build(self, inputs_shape):
        # (as TF, the variables are made in the first call, where it makes them: the kernel
        # after the concatenation, each gamma and beta before its normalization)
        self._depth = _input_depth(self.name, inputs_shape)
        self._weights_made = {}
        self.built = True

    def _weight(self, name, shape, initializer=None):
        if name not in self._weights_made:
            self._weights_made[name] = self.add_weight(name, shape=shape,
                                                       initializer=initializer)
        return self._weights_made[name]

    def _norm(self, x, scope):
        """TF's contrib layer_norm over the last axis (nn.moments and batch_normalization,
        epsilon 1e-12) with ``<scope>/gamma`` and ``<scope>/beta``."""
        n = self._num_units
        gamma = self._weight(f"{scope}/gamma", [n], init_ops.constant_initializer(
            self._norm_gain))
        beta = self._weight(f"{scope}/beta", [n], init_ops.constant_initializer(
            self._norm_shift))
        with ops.name_scope(scope):  # (TF's variable scope's, then its layer_norm's)
            pass
        with ops.name_scope(scope):
            mean, variance = nn_impl.moments(x, [1], keep_dims=True)
            out = nn_impl.batch_normalization(x, mean, variance, beta, gamma, 1e-12)
        out.set_shape(x.get_shape())
        return out

    def call(self, inputs, state):
        c, h = state
        n = self._num_units
        args = concat_ops.concat([inputs, h], 1)
        kernel = self._weight("kernel", [self._depth + n, 4 * n])
        gates = linalg_ops.matmul(args, kernel)
        if not self._layer_norm:
            # TF makes this bias with get_variable and no initializer of its own: the scope's
            # initializer (or the default one) sets it, not zeros
            gates = nn_impl.bias_add(gates, self._weight("bias", [4 * n]))
        i, j, f, o = concat_ops.split(gates, 4, axis=1)
        if self._layer_norm:
            i = self._norm(i, "input")
            j = self._norm(j, "transform")
            f = self._norm(f, "forget")
            o = self._norm(o, "output")
        g = self._activation(j)
        if not (isinstance(self._keep_prob, float | int) and self._keep_prob == 1):
            from tideflow import nn

            g = nn.dropout(g, keep_prob=self._keep_prob, seed=self._seed)
        new_c = c * math_ops.sigmoid(f + self._forget_bias) + math_ops.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state")
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class _OwnScopeWrapper(_WrapperCell):
    """A wrapper with variables of its own under its scope (``<name>/...``) besides the
    wrapped cell's; state and output are the wrapped cell's unless a subclass says
    otherwise."""

    def __init__(self, cell, reuse, name):
        RNNCell.__init__(self, _reuse=reuse, name=name)
        if not isinstance(cell, RNNCell):
            raise TypeError(f"The parameter cell is not RNNCell: {cell!r}")
        self._cell = cell

    @property
    def trainable_weights(self):
        return self._cell.trainable_weights + RNNCell.trainable_weights.fget(self)

    @property
    def non_trainable_weights(self):
        return self._cell.non_trainable_weights + RNNCell.non_trainable_weights.fget(self)


class _ProjectingWrapper(_OwnScopeWrapper):
    """Adds a dense projection (``kernel``, ``bias``) of ``num_units``."""

    def __init__(self, cell, num_units, activation, reuse, name):
        super().__init__(cell, reuse, name)
        if num_units < 1:
            raise ValueError(f"Parameter output_size must be > 0: {num_units}.")
        self._units = num_units
        self._proj_activation = activation

    def _project(self, x):
        depth = _input_depth(self.name, x.get_shape())
        if not hasattr(self, "_proj_kernel"):
            self._proj_kernel = self.add_weight("kernel", shape=[depth, self._units])
            self._proj_bias = self.add_weight("bias", shape=[self._units],
                                              initializer=init_ops.constant_initializer(0.0))
        out = nn_impl.bias_add(linalg_ops.matmul(x, self._proj_kernel), self._proj_bias)
        return self._proj_activation(out) if self._proj_activation is not None else out


class OutputProjectionWrapper(_ProjectingWrapper):
    """Projects ``cell``'s output to ``output_size`` (``output_projection_wrapper/kernel``)."""

    def __init__(self, cell, output_size, activation=None, reuse=None):
        super().__init__(cell, output_size, activation, reuse, "output_projection_wrapper")

    @property
    def output_size(self):
        return self._units

    def call(self, inputs, state):
        output, new_state = self._cell(inputs, state)
        return self._project(output), new_state


class InputProjectionWrapper(_ProjectingWrapper):
    """Projects the inputs to ``num_proj`` before ``cell`` (``input_projection_wrapper``)."""

    def __init__(self, cell, num_proj, activation=None, input_size=None, reuse=None):
        del input_size
        super().__init__(cell, num_proj, activation, reuse, "input_projection_wrapper")

    def call(self, inputs, state):
        return self._cell(self._project(inputs), state)


class EmbeddingWrapper(_OwnScopeWrapper):
    """Embeds integer inputs ``[batch]`` (or ``[batch, 1]``) with an ``embedding`` variable
    [embedding_classes, embedding_size] before ``cell``."""

    def __init__(self, cell, embedding_classes, embedding_size, initializer=None, reuse=None):
        super().__init__(cell, reuse, "embedding_wrapper")
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError(f"Both embedding_classes and embedding_size must be > 0: "
                             f"{embedding_classes}, {embedding_size}.")
        self._classes = embedding_classes
        self._size = embedding_size
        self._initializer = initializer

    def build(self, inputs_shape):
        init = self._initializer or vs.get_variable_scope().initializer
        if init is None:
            init = init_ops.random_uniform_initializer(-3 ** 0.5, 3 ** 0.5)
        with ops.device("/cpu:0"):
            self._embedding = self.add_weight("embedding", shape=[self._classes, self._size],
                                              initializer=init)
        self.built = True

    def call(self, inputs, state):
        # TF runs the lookup and the wrapped cell (its variables too) on the CPU
        with ops.device("/cpu:0"):
            ids = array_ops.reshape(inputs, [-1])
            embedded = embedding_ops.embedding_lookup(self._embedding, ids)
            return self._cell(embedded, state)


class CudnnCompatibleLSTMCell(LSTMBlockCell):
    """``tf.contrib.cudnn_rnn.CudnnCompatibleLSTMCell``: the LSTM whose weights a cuDNN LSTM's
    checkpoint converts to (``cudnn_compatible_lstm_cell/kernel``, ``bias``; no forget
    bias added), for running a cuDNN-trained model on the CPU."""

    def __init__(self, num_units, reuse=None):
        super().__init__(num_units, forget_bias=0, cell_clip=None, use_peephole=False,
                         reuse=reuse, name="cudnn_compatible_lstm_cell")


class CudnnCompatibleGRUCell(GRUCell):
    """``tf.contrib.cudnn_rnn.CudnnCompatibleGRUCell``: cuDNN's GRU, whose candidate applies
    the reset gate after the hidden projection: ``c = tanh(x W_i + b_i + r * (h W_h + b_h))``
    (variables ``gates/{kernel,bias}``, ``candidate/{input,hidden}_projection/{kernel,bias}``)."""

    def __init__(self, num_units, reuse=None, kernel_initializer=None):
        super().__init__(num_units, activation=None, reuse=reuse,
                         kernel_initializer=kernel_initializer)

    def build(self, inputs_shape):
        depth = _input_depth(self.name, inputs_shape)
        n = self._num_units
        zeros = self._bias_initializer or init_ops.zeros_initializer(dtype=self.dtype)
        self._gate_kernel = self.add_weight("gates/kernel", shape=[depth + n, 2 * n],
                                            initializer=self._kernel_initializer)
        self._gate_bias = self.add_weight(
            "gates/bias", shape=[2 * n],
            initializer=self._bias_initializer or init_ops.constant_initializer(
                1.0, dtype=self.dtype))
        self._cand_in_kernel = self.add_weight("candidate/input_projection/kernel",
                                               shape=[depth, n],
                                               initializer=self._kernel_initializer)
        self._cand_h_kernel = self.add_weight("candidate/hidden_projection/kernel",
                                              shape=[n, n], initializer=self._kernel_initializer)
        self._cand_in_bias = self.add_weight("candidate/input_projection/bias", shape=[n],
                                             initializer=zeros)
        self._cand_h_bias = self.add_weight("candidate/hidden_projection/bias", shape=[n],
                                            initializer=zeros)
        self.built = True

    def call(self, inputs, state):
        value = math_ops.sigmoid(nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([inputs, state], 1), self._gate_kernel),
            self._gate_bias))
        r, u = concat_ops.split(value, 2, axis=1)
        candidate = nn_impl.bias_add(linalg_ops.matmul(inputs, self._cand_in_kernel),
                                     self._cand_in_bias)
        candidate += r * nn_impl.bias_add(linalg_ops.matmul(state, self._cand_h_kernel),
                                          self._cand_h_bias)
        candidate = self._activation(candidate)
        new_h = (1 - u) * candidate + u * state
        return new_h, new_h


def _linear(args, output_size):
    """``concat(args) @ kernel + bias`` with the ``kernel``/``bias`` variables of the current
    variable scope (TF's ``_Linear``: zero bias)."""
    args = nest.flatten(args)
    total = sum(_input_depth("linear", a.get_shape()) for a in args)
    kernel = vs.get_variable("kernel", [total, output_size], dtype=args[0].dtype)
    bias = vs.get_variable("bias", [output_size], dtype=args[0].dtype,
                           initializer=init_ops.constant_initializer(0.0))
    if len(args) == 1:
        x = args[0]
    else:  # (TF's _Linear concatenates along a Const of its own, named "Const")
        x = concat_ops.concat(args, constant_op.constant(1, dtype=dtypes.int32))
    return nn_impl.bias_add(linalg_ops.matmul(x, kernel), bias)


class AttentionCellWrapper(RNNCell):
    """TF 1.x's LSTMA wrapper (Cheng et al. 2016): the inputs are mixed with the previous
    attention read, the wrapped cell runs, and its output attends over a window of the last
    ``attn_length`` outputs. State: ``(cell_state, attns, attn_states)``; variables
    ``attention_cell_wrapper/{kernel,bias}``, ``.../attention/{attn_w,attn_v,kernel,bias}``
    and ``.../attn_output_projection/{kernel,bias}`` as in TF."""

    def __init__(self, cell, attn_length, attn_size=None, attn_vec_size=None, input_size=None,
                 state_is_tuple=True, reuse=None):
        super().__init__(_reuse=reuse, name="attention_cell_wrapper")
        if not (hasattr(cell, "output_size") and hasattr(cell, "state_size")
                and callable(cell)):
            raise TypeError(f"The argument 'cell' ({cell}) is not an RNNCell: 'output_size' "
                            "property is missing, 'state_size' property is missing, or it is "
                            "not callable.")
        if nest.is_sequence(cell.state_size) and not state_is_tuple:
            raise ValueError("Cell returns tuple of states, but the flag state_is_tuple is "
                             f"not set. State size is: {cell.state_size}")
        if attn_length <= 0:
            raise ValueError(f"attn_length should be greater than zero, got {attn_length}")
        self._cell = cell
        self._attn_size = cell.output_size if attn_size is None else attn_size
        self._attn_vec_size = self._attn_size if attn_vec_size is None else attn_vec_size
        self._input_size = input_size
        self._attn_length = attn_length
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self):
        size = (self._cell.state_size, self._attn_size, self._attn_size * self._attn_length)
        return size if self._state_is_tuple else sum(size)

    @property
    def output_size(self):
        return self._attn_size

    def call(self, inputs, state):
        n, length = self._attn_size, self._attn_length
        if self._state_is_tuple:
            state, attns, attn_states = state
        else:
            cs = self._cell.state_size
            states = state
            state = array_ops.slice(states, [0, 0], [-1, cs])
            attns = array_ops.slice(states, [0, cs], [-1, n])
            attn_states = array_ops.slice(states, [0, cs + n], [-1, n * length])
        attn_states = array_ops.reshape(attn_states, [-1, length, n])
        input_size = self._input_size
        if input_size is None:
            input_size = inputs.get_shape().as_list()[1]
        inputs = _linear([inputs, attns], input_size)
        cell_output, new_state = self._cell(inputs, state)
        new_state_cat = (concat_ops.concat(nest.flatten(new_state), 1)
                         if self._state_is_tuple else new_state)
        new_attns, new_attn_states = self._attention(new_state_cat, attn_states)
        with vs.variable_scope("attn_output_projection"):
            output = _linear([cell_output, new_attns], n)
        new_attn_states = concat_ops.concat(
            [new_attn_states, array_ops.expand_dims(output, 1)], 1)
        new_attn_states = array_ops.reshape(new_attn_states, [-1, length * n])
        new_state = (new_state, new_attns, new_attn_states)
        if not self._state_is_tuple:
            new_state = concat_ops.concat(list(new_state), 1)
        return output, new_state

    def _attention(self, query, attn_states):
        n, length, vec = self._attn_size, self._attn_length, self._attn_vec_size
        with vs.variable_scope("attention"):
            k = vs.get_variable("attn_w", [1, 1, n, vec])
            v = vs.get_variable("attn_v", [vec])
            hidden = array_ops.reshape(attn_states, [-1, length, 1, n])
            hidden_features = conv_ops.conv2d(hidden, k, [1, 1, 1, 1], "SAME")
            y = array_ops.reshape(_linear(query, vec), [-1, 1, 1, vec])
            s = reduction_ops.reduce_sum(v * math_ops.tanh(hidden_features + y), [2, 3])
            a = nn_impl.softmax(s)
            d = reduction_ops.reduce_sum(array_ops.reshape(a, [-1, length, 1, 1]) * hidden,
                                         [1, 2])
            new_attns = array_ops.reshape(d, [-1, n])
            new_attn_states = array_ops.slice(attn_states, [0, 1, 0], [-1, -1, -1])
            return new_attns, new_attn_states


class HighwayWrapper(_DelegatingCell):
    """``output = inputs * carry + cell_output * transform`` with ``carry =
    sigmoid(inputs @ carry_w + carry_b)`` and ``transform = 1 - carry`` (or its own
    ``transform_w``/``transform_b`` gate); the variables sit in the calling scope, as TF's."""

    def __init__(self, cell, couple_carry_transform_gates=True, carry_bias_init=1.0):
        super().__init__(name="highway_wrapper")
        self._cell = cell
        self._couple = couple_carry_transform_gates
        self._carry_bias_init = carry_bias_init

    def _highway(self, inp, out):
        size = inp.get_shape().with_rank(2)[1].value
        carry_w = vs.get_variable("carry_w", [size, size])
        carry_b = vs.get_variable("carry_b", [size], initializer=init_ops.constant_initializer(
            self._carry_bias_init))
        carry = math_ops.sigmoid(nn_impl.bias_add(linalg_ops.matmul(inp, carry_w), carry_b))
        if self._couple:
            transform = 1 - carry
        else:
            transform_w = vs.get_variable("transform_w", [size, size])
            transform_b = vs.get_variable(
                "transform_b", [size],
                initializer=init_ops.constant_initializer(-self._carry_bias_init))
            transform = math_ops.sigmoid(
                nn_impl.bias_add(linalg_ops.matmul(inp, transform_w), transform_b))
        return inp * carry + out * transform

    def __call__(self, inputs, state, scope=None):
        outputs, new_state = self._cell(inputs, state, scope=scope)
        nest.assert_same_structure(inputs, outputs)
        nest.map_structure(lambda i, o: i.get_shape().assert_is_compatible_with(o.get_shape()),
                           inputs, outputs)
        return nest.map_structure(self._highway, inputs, outputs), new_state


def stack_bidirectional_dynamic_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                                    initial_states_bw=None, dtype=None, sequence_length=None,
                                    parallel_iterations=None, time_major=False, scope=None,
                                    swap_memory=False):
    """Layers of ``bidirectional_dynamic_rnn``, each fed the depth-concatenated outputs of the
    previous one (scopes ``stack_bidirectional_rnn/cell_<i>``); returns
    ``(outputs, states_fw, states_bw)``."""
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list) or not isinstance(cells_bw, list):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError
            "cells_fw and cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states, name in ((initial_states_fw, "fw"), (initial_states_bw, "bw")):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells_fw)):
            raise ValueError(f"initial_states_{name} must be a list of state tensors (one per "
                             f"layer).")
    states_fw, states_bw = [], []
    prev = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw, strict=True)):
            init_fw = initial_states_fw[i] if initial_states_fw else None
            init_bw = initial_states_bw[i] if initial_states_bw else None
            with vs.variable_scope(f"cell_{i}"):
                (out_fw, out_bw), (st_fw, st_bw) = rnn_ops.bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev, initial_state_fw=init_fw, initial_state_bw=init_bw,
                    sequence_length=sequence_length, parallel_iterations=parallel_iterations,
                    dtype=dtype, swap_memory=swap_memory, time_major=time_major)
                prev = concat_ops.concat([out_fw, out_bw], 2)
            states_fw.append(st_fw)
            states_bw.append(st_bw)
    return prev, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_rnn(cells_fw, cells_bw, inputs, initial_states_fw=None,
                            initial_states_bw=None, dtype=None, sequence_length=None,
                            scope=None):
    """The static (list of time steps) form of ``stack_bidirectional_dynamic_rnn``."""
    if not cells_fw or not cells_bw:
        raise ValueError("Must specify at least one fw and one bw cell for BidirectionalRNN.")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    states_fw, states_bw = [], []
    prev = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw, strict=True)):
            init_fw = initial_states_fw[i] if initial_states_fw else None
            init_bw = initial_states_bw[i] if initial_states_bw else None
            with vs.variable_scope(f"cell_{i}") as cell_scope:  # (TF: fw, bw right under it)
                prev, st_fw, st_bw = rnn_ops.static_bidirectional_rnn(
                    cell_fw, cell_bw, prev, initial_state_fw=init_fw, initial_state_bw=init_bw,
                    sequence_length=sequence_length, dtype=dtype, scope=cell_scope)
            states_fw.append(st_fw)
            states_bw.append(st_bw)
    return prev, tuple(states_fw), tuple(states_bw)


__all__ = ["AttentionCellWrapper", "EmbeddingWrapper", "GRUBlockCell", "GRUBlockCellV2",
           "HighwayWrapper", "InputProjectionWrapper", "LSTMBlockCell", "LSTMBlockFusedCell",
           "LayerNormBasicLSTMCell", "OutputProjectionWrapper",
           "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn"]
