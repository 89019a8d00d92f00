"""Core ``tf.layers``: ``Dense`` (variables ``kernel`` and ``bias``), ``Dropout`` and ``Flatten``,
as classes and as the functions ``dense``, ``dropout`` and ``flatten``."""

from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops, init_ops, linalg_ops
from tideflow.ops.layers_base import (
    InputSpec,
    Layer,
    activation_fn,
    input_shape_of,
    normalize_data_format,
    smart_cond,
)


def _nn():
    # tf.nn is filled by the nn op modules; import late so this module loads without them
    from tideflow import nn

    return nn


# the default initializers of the signatures (one shared instance each, as in TF)
_ZEROS = init_ops.zeros_initializer()


def _check_float_dtype(layer):
    """TF 1.x's ``Dense`` builds only with a floating (or complex) dtype: the layer's, else
    its first input's."""
    dtype = layer._dtype or getattr(layer, "_build_input_dtype", None)
    if dtype is None:
        return
    from tideflow.framework import dtypes

    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise TypeError(f"Unable to build `Dense` layer with non-floating point dtype {dtype}")


class Dense(Layer):
    """``outputs = activation(inputs @ kernel + bias)``; inputs of rank > 2 are contracted on
    their last axis. Variables: ``kernel`` [input_dim, units], ``bias`` [units]."""

    supports_masking = True

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        self.activation = activation_fn(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.kernel = None
        self.bias = None
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = input_shape_of(input_shape)
        if input_shape.ndims is None or input_shape.dims[-1].value is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        _check_float_dtype(self)
        last_dim = input_shape.dims[-1].value
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight(
            "kernel", shape=[last_dim, self.units], initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
            dtype=self.dtype, trainable=True)
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.units], initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                dtype=self.dtype, trainable=True)
        self.built = True

    def call(self, inputs):
        rank = inputs.get_shape().ndims
        if rank is not None and rank > 2:
            outputs = linalg_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.get_shape().as_list()[:-1] + [self.units])
        else:
            outputs = linalg_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = _nn().bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = input_shape_of(input_shape).with_rank_at_least(2)
        if input_shape.ndims is None or input_shape[-1].value is None:
            raise ValueError("The innermost dimension of input_shape must be defined, but saw: "
                             f"{input_shape}")
        return input_shape[:-1].concatenate(self.units)


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=_ZEROS, kernel_regularizer=None,
          bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):
    """A densely-connected layer applied to ``inputs`` (see ``Dense``); ``name`` is the variable
    scope (reusing it needs ``reuse=True``)."""
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                  bias_constraint=bias_constraint, trainable=trainable, name=name,
                  _scope=name, _reuse=reuse)
    return layer.apply(inputs)


class Dropout(Layer):
    """Zeroes each input with probability ``rate`` and scales the rest by ``1 / (1 - rate)``,
    only when ``training`` (a Python bool or a bool tensor) is true."""

    supports_masking = True

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dynamic = array_ops.shape(inputs)
        return [dynamic[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=False):
        if training is None:  # TF reads the (default False) learning phase
            training = False

        def dropped():
            return _nn().dropout(inputs, 1 - self.rate, noise_shape=self._get_noise_shape(inputs),
                                 seed=self.seed)

        return smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return input_shape_of(input_shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Dropout applied to ``inputs`` (see ``Dropout``); a no-op unless ``training``."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)


class Flatten(Layer):
    """Reshapes ``[batch, d1, d2...]`` to ``[batch, d1 * d2 * ...]`` (channels_first inputs are
    first moved to channels_last order, so the result matches channels_last models)."""

    def __init__(self, data_format=None, **kwargs):  # (TF 1.15's default: None, channels_last)
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = inputs.get_shape().ndims
        if self.data_format == "channels_first" and rank is not None and rank > 2:
            inputs = array_ops.transpose(inputs, [0] + list(range(2, rank)) + [1])
        batch = inputs.get_shape().as_list()[0] if rank else None
        outputs = array_ops.reshape(
            inputs, [batch if batch is not None else array_ops.shape(inputs)[0], -1])
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return outputs

    def compute_output_shape(self, input_shape):
        dims = input_shape_of(input_shape).as_list()
        rest = dims[1:]
        flat = None if any(d is None for d in rest) else int(_prod(rest))
        return TensorShape([dims[0], flat])


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens ``inputs`` to ``[batch, -1]`` (see ``Flatten``)."""
    return Flatten(name=name, data_format=data_format).apply(inputs)
