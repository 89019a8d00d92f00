"""``tf.contrib.cudnn_rnn`` on the CPU: the ``CudnnLSTM``/``CudnnGRU``/``CudnnRNNTanh``/
``CudnnRNNRelu`` layers run cuDNN's recurrences from its parameter buffer, composed from
existing ops (a ``dynamic_rnn`` per layer and direction).

The ``opaque_kernel`` variable holds cuDNN's own layout, which is also the canonical one:
every weight matrix ([num_units, input width], row-major, layer by layer, forward before
backward, gates in cuDNN order: LSTM ``i f c o``, GRU ``r u h``, input matrices before
recurrent ones), then the biases in the same order. As in TF, a saveable also writes the
parameters under the names of the CudnnCompatible cells (``cudnn_lstm/rnn/multi_rnn_cell/
cell_0/cudnn_compatible_lstm_cell/kernel``, biases summed), so checkpoints move between these
layers, TF's GPU layers and the compatible cells."""

import numbers

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
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
    reverse_sequence_ops,
    state_ops,
)
from tideflow.ops import rnn as rnn_ops
from tideflow.ops import variable_scope as vs
from tideflow.ops.layers_base import Layer
from tideflow.ops.rnn_cell_impl import RNNCell
from tideflow.ops.rnn_contrib_cells import (
    CudnnCompatibleGRUCell,
    CudnnCompatibleLSTMCell,
    _as_fused_op,
)
from tideflow.train.saveable import SaveableObject, SaveSpec

CUDNN_RNN_UNIDIRECTION = "unidirectional"
CUDNN_RNN_BIDIRECTION = "bidirectional"
CUDNN_LSTM = "lstm"
CUDNN_GRU = "gru"
CUDNN_RNN_RELU = "rnn_relu"
CUDNN_RNN_TANH = "rnn_tanh"
CUDNN_LSTM_PARAMS_PER_LAYER = 8
CUDNN_GRU_PARAMS_PER_LAYER = 6
CUDNN_RNN_TANH_PARAMS_PER_LAYER = 2
CUDNN_RNN_RELU_PARAMS_PER_LAYER = 2
CUDNN_INPUT_LINEAR_MODE = "linear_input"
CUDNN_INPUT_SKIP_MODE = "skip_input"
CUDNN_INPUT_AUTO_MODE = "auto_select"

_GATES = {CUDNN_LSTM: 4, CUDNN_GRU: 3, CUDNN_RNN_TANH: 1, CUDNN_RNN_RELU: 1}


class _Layout:
    """Shapes and offsets of the canonical weights and biases inside the opaque buffer."""

    def __init__(self, rnn_mode, num_layers, num_units, input_size, num_dirs):
        gates = _GATES[rnn_mode]
        self.gates, self.num_layers, self.num_dirs = gates, num_layers, num_dirs
        self.weight_shapes, self.bias_shapes = [], []
        for layer in range(num_layers):
            width = input_size if layer == 0 else num_units * num_dirs
            per_dir = [(num_units, width)] * gates + [(num_units, num_units)] * gates
            self.weight_shapes += per_dir * num_dirs
            self.bias_shapes += [(num_units,)] * (2 * gates * num_dirs)
        sizes = [int(np.prod(s)) for s in self.weight_shapes + self.bias_shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int).tolist()
        self.size = self.offsets[-1]

    def unpack(self, opaque):
        """The canonical weights and biases, as slices of ``opaque``."""
        shapes = self.weight_shapes + self.bias_shapes
        parts = [array_ops.reshape(opaque[self.offsets[k]:self.offsets[k + 1]], list(s))
                 for k, s in enumerate(shapes)]
        return parts[:len(self.weight_shapes)], parts[len(self.weight_shapes):]

    def per_layer(self, items, layer, direction):
        per = 2 * self.gates
        start = (layer * self.num_dirs + direction) * per
        return items[start:start + per]


class _CanonicalCell(RNNCell):
    """One direction of one layer: the input projection ``x W^T + b_W`` comes precomputed
    as this cell's input; the step adds the recurrent part."""

    def __init__(self, mode, num_units, recurrent, recurrent_bias, dtype):
        super().__init__(name="cudnn_step", dtype=dtype)
        self._mode, self._n = mode, num_units
        self._r = concat_ops.concat([array_ops.transpose(m) for m in recurrent], 1)
        self._rb = concat_ops.concat(recurrent_bias, 0)

    @property
    def state_size(self):
        return (self._n, self._n) if self._mode == CUDNN_LSTM else self._n

    @property
    def output_size(self):
        return self._n

    def call(self, xp, state):
        h = state[0] if self._mode == CUDNN_LSTM else state
        hr = nn_impl.bias_add(linalg_ops.matmul(h, self._r), self._rb)
        if self._mode == CUDNN_LSTM:
            i, f, c_hat, o = concat_ops.split(xp + hr, 4, 1)
            c = math_ops.sigmoid(f) * state[1] + math_ops.sigmoid(i) * math_ops.tanh(c_hat)
            new_h = math_ops.sigmoid(o) * math_ops.tanh(c)
            return new_h, (new_h, c)
        if self._mode == CUDNN_GRU:
            x_r, x_u, x_h = concat_ops.split(xp, 3, 1)
            h_r, h_u, h_h = concat_ops.split(hr, 3, 1)
            r = math_ops.sigmoid(x_r + h_r)
            u = math_ops.sigmoid(x_u + h_u)
            cand = math_ops.tanh(x_h + r * h_h)
            new_h = (1 - u) * cand + u * h
            return new_h, new_h
        act = math_ops.tanh if self._mode == CUDNN_RNN_TANH else nn_impl.relu
        new_h = act(xp + hr)
        return new_h, new_h


class _CudnnRNN(Layer):
    """Abstract cuDNN RNN layer: ``outputs, states = layer(inputs [time, batch, depth],
    initial_state=None, sequence_lengths=None, time_major=True, training=True)``."""

    _rnn_mode = None
    _num_params_per_layer = None
    _saveable_cls = None

    def __new__(cls, *args, **kwargs):
        # TF 1.0-1.4's object API took (num_layers, num_units, input_size, ...)
        if cls._rnn_mode is not None and ("input_size" in kwargs or (
                len(args) >= 3 and isinstance(args[2], numbers.Integral))):
            return _LegacyCudnnRNN(cls._rnn_mode, *args, **kwargs)
        return super().__new__(cls)

    def __init__(self, num_layers, num_units, input_mode=CUDNN_INPUT_LINEAR_MODE,
                 direction=CUDNN_RNN_UNIDIRECTION, dropout=0.0, seed=None,
                 dtype=dtypes.float32, kernel_initializer=None, bias_initializer=None,
                 name=None):
        super().__init__(dtype=dtype, name=name)
        if direction not in (CUDNN_RNN_UNIDIRECTION, CUDNN_RNN_BIDIRECTION):
            raise ValueError(f"Invalid direction: {direction}, expecting "
                             f"{CUDNN_RNN_UNIDIRECTION} or {CUDNN_RNN_BIDIRECTION}")
        if input_mode not in (CUDNN_INPUT_LINEAR_MODE, CUDNN_INPUT_SKIP_MODE,
                              CUDNN_INPUT_AUTO_MODE):
            raise ValueError(f"Invalid input_mode: {input_mode}, expect one of "
                             f"({CUDNN_INPUT_LINEAR_MODE}, {CUDNN_INPUT_SKIP_MODE}, "
                             f"{CUDNN_INPUT_AUTO_MODE})")
        if dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
            raise ValueError(f"Only support float16, float32, float64, provided {dtype}")
        self._num_layers = num_layers
        self._num_units = num_units
        self._input_mode = input_mode
        self._direction = direction
        self._dropout = dropout
        self._seed = seed
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer
        self._input_size = None
        self._saveable = None
        self._layout = None
        self.kernel = None

    num_layers = property(lambda self: self._num_layers)
    num_units = property(lambda self: self._num_units)
    input_mode = property(lambda self: self._input_mode)
    rnn_mode = property(lambda self: self._rnn_mode)
    direction = property(lambda self: self._direction)
    saveable = property(lambda self: self._saveable)

    @property
    def input_size(self):
        if not self._input_size:
            raise ValueError("'input_size' is unknown since layer has not been built.")
        return self._input_size

    @property
    def num_dirs(self):
        return 1 if self._direction == CUDNN_RNN_UNIDIRECTION else 2

    @property
    def canonical_weight_shapes(self):
        if not self._input_size:
            raise RuntimeError(f"{type(self).__name__}.canonical_weight_shapes invoked before "
                               "input shape is known")
        return [tuple(s) for s in self._layout.weight_shapes]

    @property
    def canonical_bias_shapes(self):
        if not self._input_size:
            raise RuntimeError(f"{type(self).__name__}.canonical_bias_shapes invoked before "
                               "input shape is known")
        return [list(s) for s in self._layout.bias_shapes]

    def state_shape(self, batch_size):
        shape = [self._num_layers * self.num_dirs, batch_size, self._num_units]
        return (shape, shape) if self._rnn_mode == CUDNN_LSTM else (shape,)

    def build(self, input_shape):
        if self.built:
            return
        input_shape = TensorShape(input_shape)
        if input_shape.ndims != 3:
            raise ValueError(f"Expecting input_shape with 3 dims, got {input_shape.ndims}")
        if input_shape[-1].value is None:
            raise ValueError("The last dimension of the inputs to `CudnnRNN` should be "
                             "defined. Found `None`.")
        self._input_size = input_shape[-1].value
        skip = self._input_mode == CUDNN_INPUT_SKIP_MODE or (
            self._input_mode == CUDNN_INPUT_AUTO_MODE and self._input_size == self._num_units)
        if skip:
            raise NotImplementedError(
                f"{type(self).__name__}: input_mode 'skip_input' (or 'auto_select' with "
                f"input_size == num_units) is not supported on the CPU; use 'linear_input'")
        self._layout = layout = _Layout(self._rnn_mode, self._num_layers, self._num_units,
                                        self._input_size, self.num_dirs)
        dtype = dtypes.as_dtype(self.dtype)
        self._set_scope(None)
        # as TF 1.15: the canonical weights and biases drawn in the layer's scope, packed (TF:
        # one CudnnRNNCanonicalToParams op and its 3 Consts) and given as the initial value of
        # an opaque_kernel of unknown static shape; so the draws get TF's seeds
        with vs.variable_scope(self._scope, reuse=self.built):
            kernel_init = self._kernel_initializer or init_ops.glorot_uniform_initializer(
                seed=self._seed, dtype=dtype)
            bias_init = self._bias_initializer or init_ops.constant_initializer(0.0,
                                                                                dtype=dtype)
            parts = [kernel_init(list(s), dtype=dtype) for s in layout.weight_shapes]
            parts += [bias_init(list(s), dtype=dtype) for s in layout.bias_shapes]
            opaque = _as_fused_op(4, lambda: concat_ops.concat(
                [array_ops.reshape(p, [-1]) for p in parts], 0))
            self.kernel = vs.get_variable("opaque_kernel", dtype=dtype, initializer=opaque,
                                          validate_shape=False)
        if self.kernel.trainable and not any(self.kernel is v for v in self._trainable_weights):
            self._trainable_weights.append(self.kernel)
        if vs.get_variable_scope().reuse is not True and self._saveable is None:
            # (TF's saveable: a ParamsToCanonical op and 3 Consts, an Identity, the
            # strided_slice of its device lookup, and each layer and direction's conversion)
            self._saveable = _as_fused_op(
                9 + self._saveable_cls._tf_ops_per_cell * self._num_layers * self.num_dirs,
                lambda: self._saveable_cls(
                    opaque_params=self.kernel, num_layers=self._num_layers,
                    num_units=self._num_units, input_size=self._input_size,
                    input_mode=self._input_mode, direction=self._direction,
                    scope=vs.get_variable_scope(), name=f"{self.kernel.op.name}_saveable"))
            ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS, self._saveable)
        self.built = True

    def _zero_state(self, batch_size):
        return tuple(fill_ops.zeros(sp, dtype=self.dtype) for sp in self.state_shape(batch_size))

    def call(self, inputs, initial_state=None, sequence_lengths=None, time_major=True,
             training=True):
        if initial_state is not None and not isinstance(initial_state, tuple):
            raise TypeError(f"Invalid initial_state type: {initial_state}, expecting tuple.")
        dtype = self.dtype
        inputs = ops.convert_to_tensor(inputs, dtype=dtype)
        batch_major = sequence_lengths is not None and not time_major
        batch_size = array_ops.shape(inputs)[0 if batch_major else 1]
        if initial_state is None:
            initial_state = self._zero_state(batch_size)
        lstm = self._rnn_mode == CUDNN_LSTM
        if lstm:
            h0, c0 = initial_state
        else:
            h0, = initial_state
        h0 = ops.convert_to_tensor(h0, dtype=dtype)
        if lstm:
            c0 = ops.convert_to_tensor(c0, dtype=dtype)
        else:
            constant_op.constant([], dtype=dtype)  # (TF's stand-in input_c)
            c0 = None

        def run():
            x = array_ops.transpose(inputs, [1, 0, 2]) if batch_major else inputs
            outputs, h, c = _forward(self._rnn_mode, self._layout, self._num_units, x, h0, c0,
                                     self.kernel, sequence_lengths, training, self._dropout,
                                     self._seed)
            if batch_major:
                outputs = array_ops.transpose(outputs, [1, 0, 2])
            return outputs, h, c

        # (TF: one CudnnRNN op, CudnnRNNV3 with lengths, which a Const holds if not a Tensor)
        outputs, h, c = _as_fused_op(
            1 + (sequence_lengths is not None and not isinstance(sequence_lengths, ops.Tensor)),
            run)
        return (outputs, (h, c)) if lstm else (outputs, (h,))


def _reverse(x, lengths):
    if lengths is None:
        return pad_ops.reverse(x, [0])
    return reverse_sequence_ops.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1)


def _forward(mode, layout, n, inputs, h0, c0, opaque, sequence_lengths, training, dropout,
             seed):
    """Every layer and direction over time-major ``inputs``; returns (outputs, h, c)."""
    lstm = mode == CUDNN_LSTM
    weights, biases = layout.unpack(opaque)
    gates = layout.gates
    x, final_h, final_c = inputs, [], []
    for layer in range(layout.num_layers):
        if layer > 0 and training and dropout > 0:
            x = nn_impl.dropout(x, rate=dropout, seed=seed)
        outs = []
        for d in range(layout.num_dirs):
            w = layout.per_layer(weights, layer, d)
            b = layout.per_layer(biases, layer, d)
            w_in = concat_ops.concat([array_ops.transpose(m) for m in w[:gates]], 1)
            b_in = concat_ops.concat(b[:gates], 0)
            k = layer * layout.num_dirs + d
            state = (h0[k], c0[k]) if lstm else h0[k]
            seq = x if d == 0 else _reverse(x, sequence_lengths)
            shape = array_ops.shape(seq)
            # the input projections of all steps at once; the loop adds the recurrent part
            xp = linalg_ops.matmul(array_ops.reshape(seq, [-1, seq.get_shape()[-1].value]),
                                   w_in)
            xp = array_ops.reshape(nn_impl.bias_add(xp, b_in),
                                   concat_ops.stack([shape[0], shape[1], gates * n]))
            cell = _CanonicalCell(mode, n, w[gates:], b[gates:], inputs.dtype)
            out, st = rnn_ops.dynamic_rnn(cell, xp, sequence_length=sequence_lengths,
                                          initial_state=state, time_major=True,
                                          scope=f"l{layer}_d{d}")
            outs.append(out if d == 0 else _reverse(out, sequence_lengths))
            final_h.append(st[0] if lstm else st)
            if lstm:
                final_c.append(st[1])
        x = outs[0] if len(outs) == 1 else concat_ops.concat(outs, 2)
    return x, concat_ops.stack(final_h), concat_ops.stack(final_c) if lstm else None


class _LegacyCudnnRNN:
    """TF 1.0-1.4's ``CudnnLSTM(num_layers, num_units, input_size, ...)`` objects: the caller
    keeps the parameter buffer (``params_size()`` long) and passes it to each call."""

    def __init__(self, rnn_mode, num_layers, num_units, input_size,
                 input_mode=CUDNN_INPUT_LINEAR_MODE, direction=CUDNN_RNN_UNIDIRECTION,
                 dtype=dtypes.float32, dropout=0.0, seed=0):
        if input_mode != CUDNN_INPUT_LINEAR_MODE and not (
                input_mode == CUDNN_INPUT_AUTO_MODE and input_size != num_units):
            raise NotImplementedError(
                f"cuDNN RNN: input_mode {input_mode!r} with input_size {input_size} is not "
                "supported on the CPU; use 'linear_input'")
        self._rnn_mode = rnn_mode
        self._num_units = num_units
        self._dtype = dtypes.as_dtype(dtype)
        self._dropout = dropout
        self._seed = seed
        num_dirs = 1 if direction == CUDNN_RNN_UNIDIRECTION else 2
        self._layout = _Layout(rnn_mode, num_layers, num_units, input_size, num_dirs)

    def params_size(self):
        """The length of the parameter buffer, an int32 scalar tensor."""
        return constant_op.constant(self._layout.size, dtype=dtypes.int32)

    def params_to_canonical(self, params):
        """The canonical weights ([num_units, width] each) and biases in ``params``."""
        return self._layout.unpack(ops.convert_to_tensor(params, dtype=self._dtype))

    def canonical_to_params(self, weights, biases):
        """The parameter buffer holding the canonical ``weights`` and ``biases``."""
        return concat_ops.concat([array_ops.reshape(ops.convert_to_tensor(t, self._dtype),
                                                    [-1]) for t in list(weights) + list(biases)],
                                 0)

    def __call__(self, input_data, input_h, *args, is_training=True, **kwargs):
        lstm = self._rnn_mode == CUDNN_LSTM
        names = ("input_c", "params") if lstm else ("params",)
        values = dict(zip(names, args, strict=False))
        values.update({k: kwargs.pop(k) for k in names if k in kwargs})
        if "is_training" in values or kwargs or len(values) != len(names):
            raise TypeError(f"cuDNN RNN call takes (input_data, input_h, "
                            f"{', '.join(names)}, is_training=True)")
        x = ops.convert_to_tensor(input_data, dtype=self._dtype)
        h0 = ops.convert_to_tensor(input_h, dtype=self._dtype)
        c0 = ops.convert_to_tensor(values["input_c"], dtype=self._dtype) if lstm else None
        params = ops.convert_to_tensor(values["params"], dtype=self._dtype)
        out, h, c = _forward(self._rnn_mode, self._layout, self._num_units, x, h0, c0, params,
                             None, is_training, self._dropout, self._seed)
        return (out, h, c) if lstm else (out, h)


class _OpaqueSaveable(SaveableObject):
    """Saves the opaque buffer as the CudnnCompatible cells' variables (per layer and
    direction); restoring assigns the buffer from them."""

    _rnn_mode = None
    _num_params_per_layer = None
    _rnn_cell_name = None
    _tf_ops_per_cell = None  # the ops of TF's conversion of one layer and direction

    def __init__(self, opaque_params, num_layers, num_units, input_size,
                 input_mode=CUDNN_INPUT_LINEAR_MODE, direction=CUDNN_RNN_UNIDIRECTION,
                 scope=None, name="cudnn_rnn_saveable"):
        self._variables = opaque_params
        self._num_layers, self._num_units, self._input_size = num_layers, num_units, input_size
        self._direction = direction
        self._num_dirs = 1 if direction == CUDNN_RNN_UNIDIRECTION else 2
        scope_name = getattr(scope, "name", scope) if scope is not None else None
        self._layout = _Layout(self._rnn_mode, num_layers, num_units, input_size,
                               self._num_dirs)
        weights, biases = self._layout.unpack(array_ops.identity(opaque_params))
        tensors, names = [], []
        for part, items in ((0, weights), (1, biases)):
            for layer in range(num_layers):
                for d in range(self._num_dirs):
                    prefix = self._prefix(layer, d)
                    chunk = self._layout.per_layer(items, layer, d)
                    made = self._to_tf(chunk) if part == 0 else self._to_tf_bias(chunk)
                    tensors += [t for t, _ in made]
                    names += [f"{prefix}/{suffix}" for _, suffix in made]
        if scope_name:
            names = [f"{scope_name}/{nm}" for nm in names]
        specs = [SaveSpec(t, "", nm) for t, nm in zip(tensors, names, strict=True)]
        super().__init__(opaque_params, specs, name)

    def _prefix(self, layer, direction):
        if self._direction == CUDNN_RNN_UNIDIRECTION:
            return f"rnn/multi_rnn_cell/cell_{layer}/{self._rnn_cell_name}"
        side = "fw" if direction == 0 else "bw"
        return (f"stack_bidirectional_rnn/cell_{layer}/bidirectional_rnn/{side}/"
                f"{self._rnn_cell_name}")

    def _width(self, layer):
        return self._input_size if layer == 0 else self._num_units * self._num_dirs

    def restore(self, restored_tensors, restored_shapes):
        del restored_shapes
        return state_ops.assign(self._variables, self._tf_to_opaque(restored_tensors))

    def _tf_to_opaque(self, tf_canonicals):
        """The opaque buffer of TF-format tensors (all weights, then all biases)."""
        count = len(tf_canonicals) // 2
        weights, biases = tf_canonicals[:count], tf_canonicals[count:]
        per = count // (self._num_layers * self._num_dirs)
        cu_w, cu_b = [], []
        for k in range(self._num_layers * self._num_dirs):
            layer = k // self._num_dirs
            cu_w += self._from_tf(layer, weights[k * per:(k + 1) * per])
            cu_b += self._from_tf_bias(biases[k * per:(k + 1) * per])
        flat = [array_ops.reshape(t, [-1]) for t in cu_w + cu_b]
        return concat_ops.concat(flat, 0)

    def _opaque_to_tf(self, opaque):
        """(TF-format weights, TF-format biases) of an opaque buffer."""
        weights, biases = self._layout.unpack(opaque)
        out_w, out_b = [], []
        for layer in range(self._num_layers):
            for d in range(self._num_dirs):
                out_w += [t for t, _ in self._to_tf(self._layout.per_layer(weights, layer, d))]
                out_b += [t for t, _ in self._to_tf_bias(
                    self._layout.per_layer(biases, layer, d))]
        return out_w, out_b


def _t(x):
    return array_ops.transpose(x)


class CudnnLSTMSaveable(_OpaqueSaveable):
    """A CudnnLSTM buffer as ``.../cudnn_compatible_lstm_cell/{kernel,bias}`` (TF's gate
    order ``i c f o``; each bias the sum of cuDNN's input and recurrent biases)."""

    _rnn_mode = CUDNN_LSTM
    _num_params_per_layer = CUDNN_LSTM_PARAMS_PER_LAYER
    _rnn_cell_name = "cudnn_compatible_lstm_cell"
    _tf_ops_per_cell = 18

    def _to_tf(self, w):
        wi, wf, wc, wo, ri, rf, rc, ro = w
        rows = [concat_ops.concat([a, b], 1) for a, b in ((wi, ri), (wc, rc), (wf, rf),
                                                           (wo, ro))]
        return [(_t(concat_ops.concat(rows, 0)), "kernel")]

    def _to_tf_bias(self, b):
        i, f, c, o = (b[g] + b[g + 4] for g in range(4))
        return [(concat_ops.concat([i, c, f, o], 0), "bias")]

    def _from_tf(self, layer, tensors):
        gi, gc, gf, go = concat_ops.split(_t(tensors[0]), 4, 0)
        sizes = [self._width(layer), self._num_units]
        split = [concat_ops.split(g, sizes, 1) for g in (gi, gf, gc, go)]
        return [s[0] for s in split] + [s[1] for s in split]

    def _from_tf_bias(self, tensors):
        gi, gc, gf, go = concat_ops.split(tensors[0], 4, 0)
        halves = [g * 0.5 for g in (gi, gf, gc, go)]
        return halves + halves


class CudnnGRUSaveable(_OpaqueSaveable):
    """A CudnnGRU buffer as ``.../cudnn_compatible_gru_cell/gates/{kernel,bias}`` and
    ``candidate/{input,hidden}_projection/{kernel,bias}``."""

    _rnn_mode = CUDNN_GRU
    _num_params_per_layer = CUDNN_GRU_PARAMS_PER_LAYER
    _rnn_cell_name = "cudnn_compatible_gru_cell"
    _tf_ops_per_cell = 17

    def _to_tf(self, w):
        wr, wu, wh, rr, ru, rh = w
        gates = concat_ops.concat([concat_ops.concat([wr, rr], 1),
                                   concat_ops.concat([wu, ru], 1)], 0)
        return [(_t(gates), "gates/kernel"), (_t(wh), "candidate/input_projection/kernel"),
                (_t(rh), "candidate/hidden_projection/kernel")]

    def _to_tf_bias(self, b):
        br, bu, bh, rbr, rbu, rbh = b
        return [(concat_ops.concat([br + rbr, bu + rbu], 0), "gates/bias"),
                (bh, "candidate/input_projection/bias"),
                (rbh, "candidate/hidden_projection/bias")]

    def _from_tf(self, layer, tensors):
        gates, wh, rh = tensors
        sizes = [self._width(layer), self._num_units]
        (wr, rr), (wu, ru) = (concat_ops.split(g, sizes, 1)
                              for g in concat_ops.split(_t(gates), 2, 0))
        return [wr, wu, _t(wh), rr, ru, _t(rh)]

    def _from_tf_bias(self, tensors):
        gates, bh, rbh = tensors
        br, bu = concat_ops.split(gates * 0.5, 2, 0)
        return [br, bu, bh, br, bu, rbh]


class CudnnRNNTanhSaveable(_OpaqueSaveable):
    """A CudnnRNNTanh buffer as ``.../basic_rnn_cell/{kernel,bias}``."""

    _rnn_mode = CUDNN_RNN_TANH
    _num_params_per_layer = CUDNN_RNN_TANH_PARAMS_PER_LAYER
    _rnn_cell_name = "basic_rnn_cell"
    _tf_ops_per_cell = 5

    def _to_tf(self, w):
        return [(_t(concat_ops.concat(list(w), 1)), "kernel")]

    def _to_tf_bias(self, b):
        return [(b[0] + b[1], "bias")]

    def _from_tf(self, layer, tensors):
        return concat_ops.split(_t(tensors[0]), [self._width(layer), self._num_units], 1)

    def _from_tf_bias(self, tensors):
        half = tensors[0] * 0.5
        return [half, half]


class CudnnRNNReluSaveable(CudnnRNNTanhSaveable):
    """A CudnnRNNRelu buffer as ``.../basic_rnn_cell/{kernel,bias}``."""

    _rnn_mode = CUDNN_RNN_RELU


def _converter(saveable_cls, doc):
    class Converter(saveable_cls):
        def __init__(self, num_layers, num_units, input_size, num_proj=None,
                     input_mode=CUDNN_INPUT_LINEAR_MODE, direction=CUDNN_RNN_UNIDIRECTION):
            if num_proj:
                raise NotImplementedError("cuDNN LSTM projections (num_proj) are not "
                                          "supported")
            if input_mode == CUDNN_INPUT_SKIP_MODE:
                raise NotImplementedError("input_mode 'skip_input' is not supported")
            self._num_layers, self._num_units = num_layers, num_units
            self._input_size, self._direction = input_size, direction
            self._num_dirs = 1 if direction == CUDNN_RNN_UNIDIRECTION else 2
            self._layout = _Layout(self._rnn_mode, num_layers, num_units, input_size,
                                   self._num_dirs)

        def opaque_to_tf_canonical(self, opaque_param):
            """(weights, biases) in the compatible cells' format, layer by layer."""
            return self._opaque_to_tf(ops.convert_to_tensor(opaque_param))

        def tf_canonical_to_opaque(self, tf_canonicals, weights_proj=None):
            """The opaque buffer of ``tf_canonicals`` (all weights, then all biases)."""
            if weights_proj is not None:
                raise NotImplementedError("cuDNN LSTM projections are not supported")
            return self._tf_to_opaque([ops.convert_to_tensor(t) for t in tf_canonicals])

    Converter.__doc__ = doc
    return Converter


CudnnParamsFormatConverterLSTM = _converter(
    CudnnLSTMSaveable, "Converts between a CudnnLSTM buffer and CudnnCompatibleLSTMCell "
    "kernels/biases.")
CudnnParamsFormatConverterGRU = _converter(
    CudnnGRUSaveable, "Converts between a CudnnGRU buffer and CudnnCompatibleGRUCell weights.")
CudnnParamsFormatConverterTanh = _converter(
    CudnnRNNTanhSaveable, "Converts between a CudnnRNNTanh buffer and BasicRNNCell weights.")
CudnnParamsFormatConverterRelu = _converter(
    CudnnRNNReluSaveable, "Converts between a CudnnRNNRelu buffer and BasicRNNCell weights.")
for _cls, _name in ((CudnnParamsFormatConverterLSTM, "CudnnParamsFormatConverterLSTM"),
                    (CudnnParamsFormatConverterGRU, "CudnnParamsFormatConverterGRU"),
                    (CudnnParamsFormatConverterTanh, "CudnnParamsFormatConverterTanh"),
                    (CudnnParamsFormatConverterRelu, "CudnnParamsFormatConverterRelu")):
    _cls.__name__ = _cls.__qualname__ = _name


class CudnnLSTM(_CudnnRNN):
    """cuDNN's LSTM (``i f c o`` gates, no forget bias, separate input and recurrent
    biases); states ``(h, c)`` of shape [num_layers * num_dirs, batch, num_units]."""

    _rnn_mode = CUDNN_LSTM
    _num_params_per_layer = CUDNN_LSTM_PARAMS_PER_LAYER
    _saveable_cls = CudnnLSTMSaveable


class CudnnGRU(_CudnnRNN):
    """cuDNN's GRU (the reset gate applied after the recurrent projection)."""

    _rnn_mode = CUDNN_GRU
    _num_params_per_layer = CUDNN_GRU_PARAMS_PER_LAYER
    _saveable_cls = CudnnGRUSaveable


class CudnnRNNTanh(_CudnnRNN):
    """cuDNN's tanh RNN."""

    _rnn_mode = CUDNN_RNN_TANH
    _num_params_per_layer = CUDNN_RNN_TANH_PARAMS_PER_LAYER
    _saveable_cls = CudnnRNNTanhSaveable


class CudnnRNNRelu(_CudnnRNN):
    """cuDNN's ReLU RNN."""

    _rnn_mode = CUDNN_RNN_RELU
    _num_params_per_layer = CUDNN_RNN_RELU_PARAMS_PER_LAYER
    _saveable_cls = CudnnRNNReluSaveable


__all__ = ["CUDNN_GRU", "CUDNN_GRU_PARAMS_PER_LAYER", "CUDNN_INPUT_AUTO_MODE",
           "CUDNN_INPUT_LINEAR_MODE", "CUDNN_INPUT_SKIP_MODE", "CUDNN_LSTM",
           "CUDNN_LSTM_PARAMS_PER_LAYER", "CUDNN_RNN_BIDIRECTION", "CUDNN_RNN_RELU",
           "CUDNN_RNN_RELU_PARAMS_PER_LAYER", "CUDNN_RNN_TANH",
           "CUDNN_RNN_TANH_PARAMS_PER_LAYER", "CUDNN_RNN_UNIDIRECTION",
           "CudnnCompatibleGRUCell", "CudnnCompatibleLSTMCell", "CudnnGRU", "CudnnGRUSaveable",
           "CudnnLSTM", "CudnnLSTMSaveable", "CudnnParamsFormatConverterGRU",
           "CudnnParamsFormatConverterLSTM", "CudnnParamsFormatConverterRelu",
           "CudnnParamsFormatConverterTanh", "CudnnRNNRelu", "CudnnRNNReluSaveable",
           "CudnnRNNTanh", "CudnnRNNTanhSaveable"]
