"""More convolution ``tf.layers``: ``SeparableConv1D/2D`` (variables ``depthwise_kernel``,
``pointwise_kernel``, ``bias``), ``Conv3D``, ``Conv3DTranspose``, ``MaxPooling3D`` and
``AveragePooling3D``, with their functions.
"""

from tideflow.ops import array_ops
from tideflow.ops.layers_base import InputSpec, input_shape_of
from tideflow.ops.layers_conv import (
    _ZEROS,
    _Conv,
    _format_2d,
    _nn,
    _Pooling,
    _spatial,
    transposed_output_shape,
    transposed_static_shape,
)


def _format_3d(data_format):
    return "NCDHW" if data_format == "channels_first" else "NDHWC"


class _SeparableConv(_Conv):
    """A depthwise convolution (``depth_multiplier`` channels out per channel in) followed by a
    1x1 convolution to ``filters`` channels, over 1 or 2 spatial axes."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(rank, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint
        self.depthwise_kernel = None
        self.pointwise_kernel = None

    def build(self, input_shape):
        input_shape = input_shape_of(input_shape).with_rank(self.rank + 2)
        input_dim = input_shape.dims[self._channel_axis()].value
        if input_dim is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=[*self.kernel_size, input_dim, self.depth_multiplier],
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, trainable=True, dtype=self.dtype)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=[1] * self.rank + [self.depth_multiplier * input_dim, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, trainable=True, dtype=self.dtype)
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=[self.filters], initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                trainable=True, dtype=self.dtype)
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): input_dim})
        self.built = True

    def _convolve(self, inputs):
        nn = _nn()
        depthwise, pointwise = self.depthwise_kernel, self.pointwise_kernel
        strides, rate = self.strides, self.dilation_rate
        axis = None
        if self.rank == 1:
            # a 2-D separable convolution over an added spatial axis of size 1
            axis = 2 if self.data_format == "channels_first" else 1
            inputs = array_ops.expand_dims(inputs, axis)
            depthwise = array_ops.expand_dims(depthwise, 0)
            pointwise = array_ops.expand_dims(pointwise, 0)
            strides, rate = (1, *strides), (1, *rate)
        out = nn.separable_conv2d(inputs, depthwise, pointwise,
                                  strides=_spatial(strides, self.data_format),
                                  padding=self.padding.upper(), rate=rate,
                                  data_format=_format_2d(self.data_format))
        return out if axis is None else array_ops.squeeze(out, [axis])


class SeparableConv1D(_SeparableConv):
    """Depthwise-separable 1-D convolution over ``[batch, width, channels]`` inputs."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, depthwise_initializer,
                         pointwise_initializer, bias_initializer, depthwise_regularizer,
                         pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint,
                         trainable, name, **kwargs)


class SeparableConv2D(_SeparableConv):
    """Depthwise-separable 2-D convolution over 4-D inputs."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                 activation=None, use_bias=True, depthwise_initializer=None,
                 pointwise_initializer=None, bias_initializer=_ZEROS,
                 depthwise_regularizer=None, pointwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 bias_constraint=None, trainable=True, name=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, depthwise_initializer,
                         pointwise_initializer, bias_initializer, depthwise_regularizer,
                         pointwise_regularizer, bias_regularizer, activity_regularizer,
                         depthwise_constraint, pointwise_constraint, bias_constraint,
                         trainable, name, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over ``[batch, depth, height, width, channels]`` inputs (``kernel``:
    [kd, kh, kw, in_channels, filters])."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format="channels_last", dilation_rate=(1, 1, 1), activation=None,
                 use_bias=True, kernel_initializer=None, bias_initializer=_ZEROS,
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(3, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)

    def _convolve(self, inputs):
        return _nn().conv3d(inputs, self.kernel, strides=_spatial(self.strides, self.data_format),
                            padding=self.padding.upper(),
                            data_format=_format_3d(self.data_format),
                            dilations=_spatial(self.dilation_rate, self.data_format))

    def call(self, inputs):
        outputs = self._convolve(inputs)
        if self.use_bias:  # (TF's 'NCHW' BiasAdd takes the channels first at any rank)
            outputs = _nn().bias_add(outputs, self.bias, data_format="NCHW" if
                                     self.data_format == "channels_first" else "NHWC")
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


class Conv3DTranspose(Conv3D):
    """Transposed 3-D convolution (``kernel``: [kd, kh, kw, filters, in_channels])."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
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

    _builds_convolution_op = False  # (as Conv2DTranspose)

    def _kernel_shape(self, input_dim):
        return self.kernel_size + (self.filters, input_dim)

    def _convolve(self, inputs):
        outputs = _nn().conv3d_transpose(
            inputs, self.kernel, transposed_output_shape(self, inputs),
            strides=_spatial(self.strides, self.data_format), padding=self.padding.upper(),
            data_format=_format_3d(self.data_format))
        outputs.set_shape(self.compute_output_shape(inputs.get_shape()))
        return outputs

    def compute_output_shape(self, input_shape):
        return transposed_static_shape(self, input_shape)


class _Pooling3D(_Pooling):
    def __init__(self, kind, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__(3, kind, pool_size, strides, padding, data_format, name, **kwargs)

    def call(self, inputs):
        nn = _nn()
        fn = nn.max_pool3d if self._kind == "max" else nn.avg_pool3d
        return fn(inputs, ksize=_spatial(self.pool_size, self.data_format),
                  strides=_spatial(self.strides, self.data_format),
                  padding=self.padding.upper(), data_format=_format_3d(self.data_format))


class MaxPooling3D(_Pooling3D):
    """Max pooling over the depth, height and width of 5-D inputs."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__("max", pool_size, strides, padding, data_format, name, **kwargs)


class AveragePooling3D(_Pooling3D):
    """Average pooling over the depth, height and width of 5-D inputs."""

    def __init__(self, pool_size, strides, padding="valid", data_format="channels_last",
                 name=None, **kwargs):
        super().__init__("avg", pool_size, strides, padding, data_format, name, **kwargs)


def separable_conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
                     data_format="channels_last", dilation_rate=1, depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=_ZEROS,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                     pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """A depthwise-separable 1-D convolution layer applied to ``inputs``."""
    return SeparableConv1D(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
        use_bias=use_bias, depthwise_initializer=depthwise_initializer,
        pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
        depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
        bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
        depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
        bias_constraint=bias_constraint, trainable=trainable, name=name, _reuse=reuse,
        _scope=name).apply(inputs)


def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=_ZEROS,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                     pointwise_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """A depthwise-separable 2-D convolution layer applied to ``inputs``."""
    return SeparableConv2D(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        dilation_rate=dilation_rate, depth_multiplier=depth_multiplier, activation=activation,
        use_bias=use_bias, depthwise_initializer=depthwise_initializer,
        pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
        depthwise_regularizer=depthwise_regularizer, pointwise_regularizer=pointwise_regularizer,
        bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
        depthwise_constraint=depthwise_constraint, pointwise_constraint=pointwise_constraint,
        bias_constraint=bias_constraint, trainable=trainable, name=name, _reuse=reuse,
        _scope=name).apply(inputs)


def conv3d(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=_ZEROS, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """A 3-D convolution layer applied to ``inputs`` (see ``Conv3D``)."""
    return Conv3D(filters, kernel_size, strides=strides, padding=padding,
                  data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _reuse=reuse, _scope=name).apply(inputs)


def conv3d_transpose(inputs, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=_ZEROS,
                     kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                     kernel_constraint=None, bias_constraint=None, trainable=True, name=None,
                     reuse=None):
    """A transposed 3-D convolution layer applied to ``inputs`` (see ``Conv3DTranspose``)."""
    return Conv3DTranspose(
        filters, kernel_size, strides=strides, padding=padding, data_format=data_format,
        activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
        bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
        bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
        kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
        trainable=trainable, name=name, _reuse=reuse, _scope=name).apply(inputs)


def max_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """3-D max pooling of ``inputs`` (see ``MaxPooling3D``)."""
    return MaxPooling3D(pool_size, strides, padding=padding, data_format=data_format,
                        name=name).apply(inputs)


def average_pooling3d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                      name=None):
    """3-D average pooling of ``inputs`` (see ``AveragePooling3D``)."""
    return AveragePooling3D(pool_size, strides, padding=padding, data_format=data_format,
                            name=name).apply(inputs)
