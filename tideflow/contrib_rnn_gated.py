"""TF 1.15 ``tf.contrib.rnn``'s single-gate research cells: ``MinimalRNNCell`` (Chen et al.,
2018) and ``CFNCell`` (the chaos-free network of Laurent and von Brecht, 2017), with TF's
variable names and shapes (``kernel``, ``recurrent_kernel``, ``bias``)."""

from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops, concat_ops, linalg_ops, math_ops, nn_impl
from tideflow.ops.rnn_cell_impl import _UnitsCell


def _resolve(activation, kernel_initializer, bias_initializer):
    from tideflow.keras import activations, initializers

    return (activations.get(activation), initializers.get(kernel_initializer),
            initializers.get(bias_initializer))


def _known_depth(inputs_shape):
    shape = TensorShape(inputs_shape)
    if shape.ndims is None or shape[-1].value is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {shape}")
    return shape[-1].value


def _call_depth(inputs):
    depth = inputs.get_shape()[-1].value if inputs.get_shape().ndims else None
    if depth is None:
        raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
    return depth


class _GatedCell(_UnitsCell):
    """The constructor both cells share (TF 1.15's arguments and defaults)."""

    def __init__(self, units, activation="tanh", kernel_initializer="glorot_uniform",
                 bias_initializer="ones", name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.units = self._num_units = units
        self.activation, self.kernel_initializer, self.bias_initializer = _resolve(
            activation, kernel_initializer, bias_initializer)


class MinimalRNNCell(_GatedCell):
    """MinimalRNN: ``z = activation(x W_x)``, ``u = sigmoid([z, h] W_g + b)``,
    ``h' = u * h + (1 - u) * z``. Variables: ``kernel`` [depth + 2 units, units] (rows: W_x,
    then W_g) and ``bias`` [units] (ones by default, so the gate starts mostly shut)."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def build(self, inputs_shape):
        depth = _known_depth(inputs_shape)
        self.kernel = self.add_weight("kernel", shape=[depth + 2 * self.units, self.units],
                                      initializer=self.kernel_initializer)
        self.bias = self.add_weight("bias", shape=[self.units],
                                    initializer=self.bias_initializer)
        self.built = True

    def call(self, inputs, state):
        depth = _call_depth(inputs)
        w_x, w_g = array_ops.split(self.kernel, [depth, 2 * self.units], axis=0)
        z = self.activation(linalg_ops.matmul(inputs, w_x))
        gate = math_ops.sigmoid(nn_impl.bias_add(
            linalg_ops.matmul(concat_ops.concat([z, state], 1), w_g), self.bias))
        new_h = gate * state + (1 - gate) * z
        return new_h, new_h


class CFNCell(_GatedCell):
    """Chaos-free network: ``[theta, eta] = sigmoid(h U + x V + b)``,
    ``h' = theta * activation(h) + (1 - eta) * activation(x W)``. Variables: ``kernel``
    [depth, 3 units] (columns: V, then W), ``recurrent_kernel`` [units, 2 units] (U) and
    ``bias`` [2 units] (ones)."""

    _is_layer_cell = True  # (TF: a LayerRNNCell)

    def build(self, inputs_shape):
        depth = _known_depth(inputs_shape)
        self.kernel = self.add_weight("kernel", shape=[depth, 3 * self.units],
                                      initializer=self.kernel_initializer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel",
                                                shape=[self.units, 2 * self.units],
                                                initializer=self.kernel_initializer)
        self.bias = self.add_weight("bias", shape=[2 * self.units],
                                    initializer=self.bias_initializer)
        self.built = True

    def call(self, inputs, state):
        _call_depth(inputs)
        v, w = array_ops.split(self.kernel, [2 * self.units, self.units], axis=1)
        gates = math_ops.sigmoid(nn_impl.bias_add(
            linalg_ops.matmul(state, self.recurrent_kernel) + linalg_ops.matmul(inputs, v),
            self.bias))
        theta, eta = array_ops.split(gates, 2, axis=1)
        new_h = (theta * self.activation(state)
                 + (1 - eta) * self.activation(linalg_ops.matmul(inputs, w)))
        return new_h, new_h


__all__ = ["CFNCell", "MinimalRNNCell"]
