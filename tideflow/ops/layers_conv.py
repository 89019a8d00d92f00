"""Convolution and pooling ``tf.layers``: ``Conv1D``, ``Conv2D``, ``Conv2DTranspose`` (variables
``kernel`` and ``bias``), ``MaxPooling1D/2D`` and ``AveragePooling1D/2D``, with their functions.

1-D layers run as 2-D ones on inputs with an extra axis of size 1, as TF's ``conv1d`` does.
"""

import numpy as np

from tideflow.framework import ops
from tideflow.ops import array_ops, concat_ops, init_ops
from tideflow.ops.layers_base import (
    InputSpec,
    Layer,
    activation_fn,
    input_shape_of,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
)


def _nn():
    # tf.nn is filled by the nn op modules; import late so this module loads without them
    from tideflow import nn

    return nn


# the default initializers of the signatures (one shared instance each, as in TF)
_ZEROS = init_ops.zeros_initializer()


def _format_2d(data_format):
    return "NCHW" if data_format == "channels_first" else "NHWC"


def _spatial(values, data_format):
    """Per-axis values of a 2-D op for its NHWC or NCHW layout."""
    values = tuple(values)
    if data_format == "channels_first":
        return [1, 1, *values]
    return [1, *values, 1]


def conv_output_length(length, filter_size, padding, stride, dilation=1):
    if length is None:
        return None
    dilated = (filter_size - 1) * dilation + 1
    if padding == "valid":
        length = length - dilated + 1
    return (length + stride - 1) // stride


def deconv_output_length(length, filter_size, padding, stride, dilation=1):
    """The output length of a transposed convolution (ints or scalar tensors); a dilated
    filter spans ``k + (k - 1) * (dilation - 1)``."""
    if length is None:
        return None
    filter_size = filter_size + (filter_size - 1) * (dilation - 1)
    length = length * stride
    if padding == "valid":
        length = length + max(filter_size - stride, 0)
    return length


class _Conv(Layer):
    """An N-D convolution layer (N = ``rank``, 1 or 2) with optional bias and activation."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
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
        self.input_spec = InputSpec(ndim=rank + 2)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (input_dim, self.filters)

    def build(self, input_shape):
        input_shape = input_shape_of(input_shape).with_rank(self.rank + 2)
        input_dim = input_shape.dims[self._channel_axis()].value
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        self.kernel = self.add_weight(
            "kernel", shape=list(self._kernel_shape(input_dim)),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.filters], initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True, dtype=self.dtype)
        self.input_spec = InputSpec(ndim=self.rank + 2,
                                    axes={self._channel_axis(): input_dim})
        if self._builds_convolution_op:
            # (its constructor's checks, in TF's words)
            from tideflow.ops import conv_ops

            conv_ops._strides_and_dilation(self.strides, self.dilation_rate, self.rank)
            # TF 1.15's layer builds its convolution object here, whose first op is this
            # constant (one op more in the graph: the random ops made after it get TF's seeds)
            self._dilation_rate_tensor = ops.convert_to_tensor(
                np.array(self.dilation_rate, np.int32), name="dilation_rate")
        self.built = True

    # the transposed convolutions build no convolution object (TF's build their own way)
    _builds_convolution_op = True

    def _convolve(self, inputs):
        nn = _nn()
        if max(self.dilation_rate) > 1 and self.data_format == "channels_last":
            # as TF 1.15's layer: SpaceToBatchND, the plain convolution, BatchToSpaceND
            from tideflow.ops import conv_ops

            out = conv_ops.space_to_batch_convolution(inputs, self.kernel, self.padding,
                                                      self.dilation_rate,
                                                      _tf_constants="no_rate",
                                                      _rate_tensor=getattr(
                                                          self, "_dilation_rate_tensor", None))
            if out is not None:
                return out
        if self.rank == 2:
            kw = {}
            if any(d != 1 for d in self.dilation_rate):
                kw["dilations"] = _spatial(self.dilation_rate, self.data_format)
            return nn.conv2d(inputs, self.kernel, strides=_spatial(self.strides, self.data_format),
                             padding=self.padding.upper(),
                             data_format=_format_2d(self.data_format), **kw)
        # 1-D: tf.nn.conv1d, a 2-D convolution over [batch, 1, width, channels]
        return nn.conv1d(inputs, self.kernel, self.strides[0], self.padding.upper(),
                         data_format="NCW" if self.data_format == "channels_first" else "NWC",
                         dilations=self.dilation_rate[0])

    def call(self, inputs):
        outputs = self._convolve(inputs)
        if self.use_bias:
            if self.data_format == "channels_first" and self.rank == 1:
                outputs = outputs + array_ops.reshape(self.bias, (1, self.filters, 1))
            elif self.data_format == "channels_first":
                outputs = _nn().bias_add(outputs, self.bias, data_format="NCHW")
            else:
                outputs = _nn().bias_add(outputs, self.bias, data_format="NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        dims = input_shape_of(input_shape).with_rank(self.rank + 2).as_list()
        space = dims[2:] if self.data_format == "channels_first" else dims[1:-1]
        new = [conv_output_length(n, k, self.padding, s, d) for n, k, s, d in
               zip(space, self.kernel_size, self.strides, self.dilation_rate)]
        if self.data_format == "channels_first":
            return input_shape_of([dims[0], self.filters, *new])
        return input_shape_of([dims[0], *new, self.filters])


class Conv1D(_Conv):
    """1-D convolution over ``[batch, width, channels]`` inputs (``kernel``:
    [kernel_size, in_channels, filters])."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(1, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over ``[batch, height, width, channels]`` inputs (``kernel``:
    [kh, kw, in_channels, filters])."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer=None,
                 bias_initializer=_ZEROS, kernel_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)


class Conv2DTranspose(Conv2D):
    """Transposed 2-D convolution (``kernel``: [kh, kw, filters, in_channels]); each spatial
    size becomes ``n * stride`` ('same') or ``n * stride + max(k - stride, 0)`` ('valid')."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", activation=None, use_bias=True,
                 kernel_initializer=None, bias_initializer=_ZEROS,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)

    _builds_convolution_op = False

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (self.filters, input_dim)

    def _convolve(self, inputs):
        kw = {}
        if any(d != 1 for d in self.dilation_rate):  # TF's layer takes it through **kwargs
            kw["dilations"] = _spatial(self.dilation_rate, self.data_format)
        output_shape = transposed_output_shape(self, inputs)
        output_shape[0]  # TF 1.15's Keras backend looks at it (one op, as TF's)
        outputs = _nn().conv2d_transpose(
            inputs, self.kernel, output_shape,
            strides=_spatial(self.strides, self.data_format), padding=self.padding.upper(),
            data_format=_format_2d(self.data_format), **kw)
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return outputs

    def compute_output_shape(self, input_shape):
        return transposed_static_shape(self, input_shape)


def _with_filters(layer, batch, sizes):
    if layer.data_format == "channels_first":
        return [batch, layer.filters, *sizes]
    return [batch, *sizes, layer.filters]


def transposed_output_shape(layer, inputs):
    """The ``output_shape`` tensor of a transposed convolution layer over ``inputs``, built as
    TF 1.15's layers build it (and so with its ops): every dimension read from tf.shape (batch,
    then the spatial ones), each output length computed from it, then stacked."""
    dynamic = array_ops.shape(inputs)
    n = len(layer.kernel_size)
    axes = range(2, 2 + n) if layer.data_format == "channels_first" else range(1, 1 + n)
    batch = dynamic[0]
    space = [dynamic[a] for a in axes]
    dilation = getattr(layer, "dilation_rate", None) or (1,) * n
    sizes = [deconv_output_length(x, k, layer.padding, s, d)
             for x, k, s, d in zip(space, layer.kernel_size, layer.strides, dilation)]
    return concat_ops.stack(_with_filters(layer, batch, sizes))


def transposed_static_shape(layer, input_shape):
    """The static output shape of a transposed convolution layer."""
    n = len(layer.kernel_size)
    dims = input_shape_of(input_shape).with_rank(n + 2).as_list()
    space = dims[2:] if layer.data_format == "channels_first" else dims[1:1 + n]
    dilation = getattr(layer, "dilation_rate", None) or (1,) * n
    new = [deconv_output_length(d, k, layer.padding, s, r)
           for d, k, s, r in zip(space, layer.kernel_size, layer.strides, dilation)]
    return input_shape_of(_with_filters(layer, dims[0], new))


def conv1d(inputs, filters, kernel_size, strides=1, padding="valid", data_format="channels_last",
           dilation_rate=1, activation=None, use_bias=True, kernel_initializer=None,
           bias_initializer=_ZEROS, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 1-D convolution layer applied to ``inputs`` (see ``Conv1D``)."""
    return Conv1D(filters, kernel_size, strides=strides, padding=padding,
                  data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _reuse=reuse, _scope=name).apply(inputs)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=_ZEROS,
           kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
           kernel_constraint=None, bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 2-D convolution layer applied to ``inputs`` (see ``Conv2D``)."""
    return Conv2D(filters, kernel_size, strides=strides, padding=padding,
                  data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _reuse=reuse, _scope=name).apply(inputs)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=_ZEROS,
                     kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """A transposed 2-D convolution layer applied to ``inputs`` (see ``Conv2DTranspose``)."""
    return Conv2DTranspose(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
        trainable=trainable, name=name, _reuse=reuse, _scope=name).apply(inputs)


# ------------------------------------------------------------------------------------------
# pooling
# ------------------------------------------------------------------------------------------


class _Pooling(Layer):
    """Max or average pooling over 1 or 2 spatial axes."""

    def __init__(self, rank, kind, pool_size, strides, padding="valid",
                 data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rank = rank
        self._kind = kind
        self.pool_size = normalize_tuple(pool_size, rank, "pool_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=rank + 2)

    def _pool(self, inputs, pool_size, strides):
        nn = _nn()
        fn = nn.max_pool if self._kind == "max" else nn.avg_pool
        return fn(inputs, ksize=_spatial(pool_size, self.data_format),
                  strides=_spatial(strides, self.data_format), padding=self.padding.upper(),
                  data_format=_format_2d(self.data_format))

    def call(self, inputs):
        if self.rank == 2:
            return self._pool(inputs, self.pool_size, self.strides)
        axis = 3 if self.data_format == "channels_first" else 2
        out = self._pool(array_ops.expand_dims(inputs, axis), self.pool_size + (1,),
                         self.strides + (1,))
        return array_ops.squeeze(out, [axis])

    def compute_output_shape(self, input_shape):
        dims = input_shape_of(input_shape).with_rank(self.rank + 2).as_list()
        space = dims[2:] if self.data_format == "channels_first" else dims[1:-1]
        new = [conv_output_length(n, k, self.padding, s)
               for n, k, s in zip(space, self.pool_size, self.strides)]
        if self.data_format == "channels_first":
            return input_shape_of([dims[0], dims[1], *new])
        return input_shape_of([dims[0], *new, dims[-1]])


class MaxPooling1D(_Pooling):
    """Max pooling over the width of ``[batch, width, channels]`` inputs."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(1, "max", pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling1D(_Pooling):
    """Average pooling over the width of ``[batch, width, channels]`` inputs."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(1, "avg", pool_size, strides, padding, data_format, name, **kwargs)


class MaxPooling2D(_Pooling):
    """Max pooling over the height and width of 4-D inputs."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(2, "max", pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling2D(_Pooling):
    """Average pooling over the height and width of 4-D inputs."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(2, "avg", pool_size, strides, padding, data_format, name, **kwargs)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """1-D max pooling of ``inputs`` (see ``MaxPooling1D``)."""
    return MaxPooling1D(pool_size, strides, padding=padding, data_format=data_format,
                        name=name).apply(inputs)


def average_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """1-D average pooling of ``inputs`` (see ``AveragePooling1D``)."""
    return AveragePooling1D(pool_size, strides, padding=padding, data_format=data_format,
                            name=name).apply(inputs)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """2-D max pooling of ``inputs`` (see ``MaxPooling2D``)."""
    return MaxPooling2D(pool_size, strides, padding=padding, data_format=data_format,
                        name=name).apply(inputs)


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """2-D average pooling of ``inputs`` (see ``AveragePooling2D``)."""
    return AveragePooling2D(pool_size, strides, padding=padding, data_format=data_format,
                            name=name).apply(inputs)
