"""``tf.keras.layers.ConvLSTM2D``: an LSTM whose input and recurrent transforms are 2-D
convolutions, over [batch, time, rows, cols, channels] (or [batch, time, channels, rows,
cols]) sequences.

Weights as TF 1.15's: ``kernel`` [kh, kw, channels, 4 * filters], ``recurrent_kernel``
[kh, kw, filters, 4 * filters] and ``bias`` [4 * filters], gates in the order i, f, c, o
(``unit_forget_bias`` starts the f part of the bias at one). The input convolution uses the
layer's strides, padding and dilation; the recurrent one stride 1 and 'same' padding. The
time loop is a ``tf.scan``; the states start at zeros shaped as the input convolution's
output. A mask ([batch, time], or per position as ``Masking`` gives) keeps the previous
output and states at the masked steps, as Keras's ``rnn``."""

import numpy as np

import tideflow as tf
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import activations, constraints, initializers, regularizers
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import InputSpec, Layer
from tideflow.keras.layers.convolutional import conv_output_length
from tideflow.keras.layers.core import _ser, training_flag
from tideflow.ops.layers_base import normalize_padding, normalize_tuple


class ConvLSTM2D(Layer):
    """Convolutional LSTM (TF 1.15's arguments and defaults; ``return_state`` and
    ``unroll`` are accepted through ``kwargs`` as there, ``unroll=True`` refused)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation="tanh",
                 recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None,
                 recurrent_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 return_sequences=False, go_backwards=False, stateful=False, dropout=0.0,
                 recurrent_dropout=0.0, **kwargs):
        return_state = kwargs.pop("return_state", False)
        unroll = kwargs.pop("unroll", False)
        kwargs.pop("time_major", None)  # (in the config; always False here)
        if unroll:
            raise TypeError("Unrolling isn't possible with convolutional RNNs.")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = normalize_tuple(strides, 2, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = data_format or K.image_data_format()
        if self.data_format not in ("channels_first", "channels_last"):
            raise ValueError("The `data_format` argument must be one of "
                             f'"channels_first", "channels_last". Received: {data_format}')
        self.dilation_rate = normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = unit_forget_bias
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.return_sequences = return_sequences
        self.return_state = return_state
        self.go_backwards = go_backwards
        self.stateful = stateful
        self.unroll = False
        self.input_spec = InputSpec(ndim=5)
        self._state_vars = None

    # -- shapes ----------------------------------------------------------------------------

    def _channel_axis(self):
        return 2 if self.data_format == "channels_first" else -1

    def _out_spatial(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rows, cols = (dims[3], dims[4]) if self.data_format == "channels_first" else \
            (dims[2], dims[3])
        return [conv_output_length(n, k, self.padding, s, d) for n, k, s, d in zip(
            (rows, cols), self.kernel_size, self.strides, self.dilation_rate)]

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        rows, cols = self._out_spatial(dims)
        step = [self.filters, rows, cols] if self.data_format == "channels_first" else \
            [rows, cols, self.filters]
        out = TensorShape([dims[0], dims[1]] + step if self.return_sequences else
                          [dims[0]] + step)
        if self.return_state:
            return [out] + [TensorShape([dims[0]] + step)] * 2
        return out

    # -- weights ---------------------------------------------------------------------------

    def build(self, input_shape):
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        dims = TensorShape(input_shape).as_list()
        channels = dims[self._channel_axis()]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        self.input_spec = InputSpec(ndim=5, axes={self._channel_axis() % 5: channels})
        f = self.filters
        self.kernel = self.add_weight(
            "kernel", shape=self.kernel_size + (channels, 4 * f),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", shape=self.kernel_size + (f, 4 * f),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            if self.unit_forget_bias:
                base = self.bias_initializer

                def bias_init(shape, dtype=None, partition_info=None):
                    return tf.concat([base((f,), dtype=dtype), tf.ones((f,), dtype=dtype),
                                      base((2 * f,), dtype=dtype)], 0)
            else:
                bias_init = self.bias_initializer
            self.bias = self.add_weight("bias", shape=(4 * f,), initializer=bias_init,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        else:
            self.bias = None
        self.built = True

    # -- the step --------------------------------------------------------------------------

    # (tf.nn.convolution, as Keras's backend conv2d: the ops, and the shape errors, name
    # "convolution")
    def _input_conv(self, x, w, b):
        out = tf.nn.convolution(x, w, self.padding.upper(), strides=self.strides,
                                dilation_rate=self.dilation_rate)
        return out if b is None else tf.nn.bias_add(out, b)

    def _recurrent_conv(self, h, w):
        return tf.nn.convolution(h, w, "SAME")

    def _step(self, x, h, c, in_masks, rec_masks):
        f = self.filters
        # (masked gates take their weights from splits, as TF's cell: fewer ops than slices,
        # so the layer stays within TF 1.15's op count)
        if in_masks is None:
            zx = self._input_conv(x, self.kernel, self.bias)
        else:
            ws = tf.split(self.kernel, 4, axis=3)
            bs = [None] * 4 if self.bias is None else tf.split(self.bias, 4)
            zx = tf.concat([self._input_conv(x * in_masks[k], ws[k], bs[k])
                            for k in range(4)], -1)
        if rec_masks is None:
            zh = self._recurrent_conv(h, self.recurrent_kernel)
        else:
            rs = tf.split(self.recurrent_kernel, 4, axis=3)
            zh = tf.concat([self._recurrent_conv(h * rec_masks[k], rs[k]) for k in range(4)],
                           -1)
        z = zx + zh
        i = self.recurrent_activation(z[..., :f])
        fg = self.recurrent_activation(z[..., f:2 * f])
        c = fg * c + i * self.activation(z[..., 2 * f:3 * f])
        o = self.recurrent_activation(z[..., 3 * f:])
        return o * self.activation(c), c

    def _zero_state(self, x):
        """Zeros shaped as the input convolution's output ([batch, rows', cols', filters])."""
        step_zeros = tf.reduce_sum(tf.zeros_like(x), 1)
        shape = self.kernel_size + (x.get_shape().as_list()[-1], self.filters)
        return self._input_conv(step_zeros, tf.zeros(shape, x.dtype.base_dtype), None)

    def _stateful_initial_state(self, x):
        dims = x.get_shape().as_list()
        if dims[0] is None:
            raise ValueError(
                "If a RNN is stateful, it needs to know its batch size. Specify the batch "
                "size of your input tensors: \n- If using a Sequential model, specify the "
                "batch size by passing a `batch_input_shape` argument to your first layer."
                "\n- If using the functional API, specify the batch size by passing a "
                "`batch_shape` argument to your Input layer.")
        if self._state_vars is None:
            rows, cols = [conv_output_length(n, k, self.padding, s, d) for n, k, s, d in zip(
                dims[2:4], self.kernel_size, self.strides, self.dilation_rate)]
            self._state_vars = [K.zeros((dims[0], rows, cols, self.filters),
                                        dtype=x.dtype.base_dtype) for _ in range(2)]
        return tuple(self._state_vars)

    @property
    def states(self):
        return self._state_vars

    def reset_states(self, states=None):
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        if self._state_vars is None:
            return
        if states is None:
            values = [np.zeros(v.get_shape().as_list(), v.dtype.as_numpy_dtype)
                      for v in self._state_vars]
        else:
            values = [np.asarray(s) for s in states]
            if self.data_format == "channels_first":
                values = [np.transpose(s, (0, 2, 3, 1)) for s in values]
        K.batch_set_value(list(zip(self._state_vars, values)))

    def _tf_op_count(self, inputs, made_learning_phase):
        """The ops TF 1.15's ConvLSTM2D call builds (zero states from an input convolution,
        Keras's backend.rnn loop stepping once outside the loop too, and the dropout masks'
        conds), channels last, without initial state or mask (a stateful layer's two state
        variables included); None where unknown."""
        from tideflow.keras.layers.recurrent import _ACTIVATION_OPS

        act = _ACTIVATION_OPS.get(activations.serialize(self.activation))
        rec = _ACTIVATION_OPS.get(activations.serialize(self.recurrent_activation))
        if act is None or rec is None:
            return None
        count = (205 + 2 * bool(self.go_backwards) - 17 * (not self.use_bias)
                 + 16 * self.stateful)  # (the stateful layer's state variables)
        count += 2 * (3 * (rec - 8) + 2 * (act - 1))  # (two steps: the first outside the loop)
        count -= 13 * (inputs.get_shape().as_list()[1] is None)
        drops = sum(1 for r in (self.dropout, self.recurrent_dropout) if r > 0)
        return count + 107 * drops + 2 * bool(drops and made_learning_phase)

    def _note_tf_loop_grad(self, hs, inputs):
        """Has the gradient of the time loop take TF 1.15's op count (its loop body's ops
        beyond ours, measured: 84, one more when the inputs get a gradient, five fewer
        without a bias; 48 where the inputs' shape is fully known, as with a fixed batch
        size, since TF's elementwise gradients then skip their broadcast ops), whatever the
        activations (their gradients are the same ops in both loops)."""
        from tideflow.keras.layers.recurrent import _reaches_variable

        seen, stack = set(), [hs.op]
        while stack:  # (the scan's While, a few ops up from its stacked outputs)
            op = stack.pop()
            if op.type == "While":
                extra = (48 if inputs.get_shape().is_fully_defined() else 84) + \
                    _reaches_variable(inputs) - 5 * (not self.use_bias)
                op._graph.__dict__.setdefault("_tf_loop_grad_extra", {})[op] = extra
                return
            if op not in seen and len(seen) < 20:
                seen.add(op)
                stack.extend(i.op for i in op.inputs)

    def call(self, inputs, mask=None, training=None, initial_state=None):
        if isinstance(inputs, list):
            inputs, initial_state = inputs[0], inputs[1:]
        if isinstance(mask, list):
            mask = mask[0]
        graph = tf.get_default_graph()
        first_id = graph._next_id
        countable = (mask is None and training is None
                     and (initial_state is None or not len(initial_state))
                     and self.data_format == "channels_last"
                     and K._state().learning_phase_value is None)
        channels_first = self.data_format == "channels_first"
        x = tf.transpose(inputs, [0, 1, 3, 4, 2]) if channels_first else inputs
        if self.go_backwards:
            x = tf.reverse(x, [1])
        if initial_state is not None and len(initial_state):
            states = [tf.convert_to_tensor(s) for s in initial_state]
            if len(states) != 2:
                raise ValueError(f"Layer {self.name} expects 2 initial states, but it "
                                 f"received {len(states)}.")
            if channels_first:
                states = [tf.transpose(s, [0, 2, 3, 1]) for s in states]
        elif self.stateful:
            states = list(self._stateful_initial_state(x))
        else:
            zero = self._zero_state(x)
            states = [zero, zero]
        if self.dropout > 0 or self.recurrent_dropout > 0:
            # (TF 1.15 makes the learning phase here only for the dropout masks' conds)
            training = training_flag(training)
        in_masks = rec_masks = None
        if self.dropout > 0:
            ones = tf.ones_like(x[:, 0])
            in_masks = [K.in_train_phase(lambda: K.dropout(ones, self.dropout),
                                         lambda: ones, training=training) for _ in range(4)]
        if self.recurrent_dropout > 0:
            ones = tf.ones_like(states[0])
            rec_masks = [K.in_train_phase(
                lambda: K.dropout(ones, self.recurrent_dropout), lambda: ones,
                training=training) for _ in range(4)]

        if mask is None:
            def step(carry, x_t):
                return self._step(x_t, carry[0], carry[1], in_masks, rec_masks)

            elems = tf.transpose(x, [1, 0, 2, 3, 4])
        else:
            # as Keras's rnn: a masked step keeps the previous output and states; the mask is
            # [batch, time] or per position [batch, time, rows, cols] (then the output must
            # keep the input's rows and columns)
            m = tf.cast(mask, x.dtype.base_dtype)
            if m.get_shape().ndims == 2:
                m = tf.reshape(m, tf.concat([tf.shape(m), [1, 1]], 0))
            spatial = states[0].get_shape().as_list()[1:3]
            mdims = m.get_shape().as_list()[2:4]
            if all(d not in (None, 1) for d in mdims) and None not in spatial and \
                    mdims != spatial:
                raise ValueError(f"ConvLSTM2D: a mask of positions {mdims} cannot apply to "
                                 f"outputs of positions {spatial} (layer {self.name}).")
            m = tf.expand_dims(m, -1)

            def step(carry, elem):
                x_t, m_t = elem
                h, c = self._step(x_t, carry[0], carry[1], in_masks, rec_masks)
                return m_t * h + (1 - m_t) * carry[0], m_t * c + (1 - m_t) * carry[1]

            if self.go_backwards:
                m = tf.reverse(m, [1])
            elems = (tf.transpose(x, [1, 0, 2, 3, 4]), tf.transpose(m, [1, 0, 2, 3, 4]))
        hs, cs = tf.scan(step, elems, initializer=(states[0], states[1]))
        if countable and not (self.dropout or self.recurrent_dropout):
            self._note_tf_loop_grad(hs, inputs)
        h_last, c_last = hs[-1], cs[-1]
        if self.stateful and self._state_vars is not None and initial_state is None:
            self.add_update([tf.assign(self._state_vars[0], h_last),
                             tf.assign(self._state_vars[1], c_last)], inputs)
        dims = inputs.get_shape().as_list()
        rows, cols = self._out_spatial(dims)
        step_shape = [self.filters, rows, cols] if channels_first else \
            [rows, cols, self.filters]

        def to_format(state):
            out = tf.transpose(state, [0, 3, 1, 2]) if channels_first else state
            out.set_shape([dims[0]] + step_shape)
            return out

        if self.return_sequences:
            out = tf.transpose(hs, [1, 0, 2, 3, 4])
            if channels_first:
                out = tf.transpose(out, [0, 1, 4, 2, 3])
            out.set_shape([dims[0], dims[1]] + step_shape)
        else:
            out = to_format(h_last)
        if countable:
            lp = graph._nodes_by_name.get("keras_learning_phase")
            tf_ops = self._tf_op_count(inputs, lp is not None and lp._id >= first_id)
            if tf_ops is not None and graph._next_id < first_id + tf_ops:
                # TF 1.15 builds this layer from more ops: their ids are skipped, so the
                # layers made after get TF's op seeds
                graph._skip_op_ids(to=first_id + tf_ops)
        if self.return_state:
            return [out, to_format(h_last), to_format(c_last)]
        return out

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, list):
            mask = mask[0]
        out = mask if self.return_sequences else None
        if self.return_state:
            return [out, None, None]
        return out

    def __call__(self, inputs, initial_state=None, **kwargs):
        if initial_state is None:
            return super().__call__(inputs, **kwargs)
        spec = self.input_spec
        self.input_spec = None
        try:
            return super().__call__([inputs] + list(initial_state), **kwargs)
        finally:
            self.input_spec = spec

    def get_config(self):
        config = {
            "filters": self.filters, "kernel_size": self.kernel_size, "strides": self.strides,
            "padding": self.padding, "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": _ser(initializers, self.kernel_initializer),
            "recurrent_initializer": _ser(initializers, self.recurrent_initializer),
            "bias_initializer": _ser(initializers, self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": _ser(regularizers, self.kernel_regularizer),
            "recurrent_regularizer": _ser(regularizers, self.recurrent_regularizer),
            "bias_regularizer": _ser(regularizers, self.bias_regularizer),
            "activity_regularizer": _ser(regularizers, self.activity_regularizer),
            "kernel_constraint": _ser(constraints, self.kernel_constraint),
            "recurrent_constraint": _ser(constraints, self.recurrent_constraint),
            "bias_constraint": _ser(constraints, self.bias_constraint),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
        }
        base = super().get_config()
        base.update(return_sequences=self.return_sequences, return_state=self.return_state,
                    go_backwards=self.go_backwards, stateful=self.stateful, unroll=False,
                    time_major=False)
        base.update(config)
        return base
