"""The TF 1.15 Keras layers beyond ``convolutional.py``: the 3-D padding, cropping and
up-sampling layers, ``SpatialDropout3D``, ``Conv3DTranspose`` and ``SeparableConv1D``."""

import numpy as np

import tideflow as tf
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import InputSpec, Layer
from tideflow.keras.layers.convolutional import (
    Conv3D,
    SeparableConv2D,
    _ConvTranspose,
    _Cropping,
    _from_last,
    _spatial_output_shape,
    _to_last,
    _ZeroPadding,
    conv_output_length,
)
from tideflow.keras.layers.core import _add_weight, _FormattedSpatialDropout
from tideflow.ops.layers_base import normalize_tuple


class ZeroPadding3D(_ZeroPadding):
    """Zeros around the three spatial axes: ``padding`` an int, 3 ints, or 3 pairs."""

    def __init__(self, padding=(1, 1, 1), data_format=None, **kwargs):
        super().__init__(3, padding, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops the three spatial axes: ``cropping`` an int, 3 ints, or 3 pairs."""

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(3, cropping, data_format, **kwargs)


class UpSampling3D(Layer):
    """Repeats the entries of the three spatial axes ``size`` times."""

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, 3, "size")
        self.data_format = data_format or K.image_data_format()
        self.input_spec = InputSpec(ndim=5)

    def call(self, inputs):
        # (as TF's: the repeats along the layout's own axes, no transposes)
        return K.resize_volumes(inputs, *self.size, self.data_format)

    def compute_output_shape(self, input_shape):
        return _spatial_output_shape(input_shape, self.data_format, 3, self.size,
                                     lambda d, s: d * s)

    def get_config(self):
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format)
        return config


class SpatialDropout3D(_FormattedSpatialDropout):
    """Drops whole feature maps of 5-D inputs in training."""

    _rank = 5

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(rate, data_format, **kwargs)
        self.input_spec = InputSpec(ndim=5)


class Conv3DTranspose(_ConvTranspose, Conv3D):
    """Transposed 3-D convolution: ``kernel`` [kd, kh, kw, filters, in]."""

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 output_padding=None, data_format=None, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
        self._set_output_padding(output_padding)

    @staticmethod
    def _transpose_op(*args, **kwargs):
        return tf.nn.conv3d_transpose(*args, **kwargs)


class SeparableConv1D(SeparableConv2D):
    """Depthwise then pointwise 1-D convolution: ``depthwise_kernel`` [k, in, dm],
    ``pointwise_kernel`` [1, in * dm, filters] (TF's shapes), ``bias``; run as the 2-D one
    on a height of 1. ``kernel_size``, ``strides`` and ``dilation_rate`` are 1-tuples, as
    in TF (converters read them against the weights' shapes)."""

    # TF 1.15's parameters in its order (a positional ``activation`` is the 8th)
    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        causal = padding == "causal"
        super().__init__(filters, (1,) + normalize_tuple(kernel_size, 1, "kernel_size"),
                         strides=(1,) + normalize_tuple(strides, 1, "strides"),
                         padding="valid" if causal else padding,
                         data_format=data_format,
                         dilation_rate=(1,) + normalize_tuple(dilation_rate, 1, "dilation_rate"),
                         depth_multiplier=depth_multiplier, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         pointwise_initializer=pointwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         pointwise_regularizer=pointwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         pointwise_constraint=pointwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        self.rank = 1
        self.kernel_size = self.kernel_size[1:]
        self.strides = self.strides[1:]
        self.dilation_rate = self.dilation_rate[1:]
        if causal:
            self.padding = "causal"
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        self.depthwise_kernel = _add_weight(
            self, "depthwise_kernel", (self.kernel_size[0], channels, self.depth_multiplier),
            "depthwise")
        self.pointwise_kernel = _add_weight(
            self, "pointwise_kernel", (1, channels * self.depth_multiplier, self.filters),
            "pointwise")
        self.bias = self._add_bias(self.filters)
        self._set_input_spec(channels)

    def call(self, inputs):
        x = _to_last(inputs, 1, self.data_format)
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = tf.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        out = tf.nn.separable_conv2d(
            tf.expand_dims(x, 1), tf.expand_dims(self.depthwise_kernel, 0),
            tf.expand_dims(self.pointwise_kernel, 0), strides=(1, 1, self.strides[0], 1),
            padding=padding.upper(), rate=(1,) + self.dilation_rate)
        out = tf.squeeze(out, [1])
        if self.use_bias:
            out = tf.nn.bias_add(out, self.bias)
        out = _from_last(out, 1, self.data_format)
        if self.activation is not None:
            out = self.activation(out)
        return out


Convolution3DTranspose = Deconvolution3D = Deconv3D = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D


def _connection_mask(in_shape, kernel_size, strides, padding):
    """Which input position feeds which output position of an unshared convolution: a bool
    array ``in_shape + out_shape`` (with "same" padding the window is centred on
    ``output * stride`` and cut at the edges), the product of one mask per axis."""
    axes = []
    for n, k, s in zip(in_shape, kernel_size, strides):
        out = np.arange(conv_output_length(n, k, padding, s))
        left = k // 2
        centre = out * s + (left if padding == "valid" else 0)
        lo, hi = np.maximum(0, centre - left), np.minimum(n, centre + k - left)
        i = np.arange(n)[:, None]
        axes.append((i >= lo) & (i < hi))  # [in, out]
    rank = len(axes)
    mask = np.ones([1] * (2 * rank), bool)
    for d, m in enumerate(axes):
        shape = [1] * (2 * rank)
        shape[d], shape[rank + d] = m.shape
        mask = mask & m.reshape(shape)
    return mask


class _LocallyConnected(Layer):
    """Convolution with unshared weights, in TF 1.15's three implementations (same results,
    different weights): 1, ``kernel`` [positions, prod(kernel_size) * channels, filters]
    applied patch by patch; 2, a dense ``kernel`` over every (input, output) pair (input
    dims then output dims, each in the data format's order), masked to the windows, one
    matmul; 3, only the connected pairs' weights, ``kernel`` [connections], scattered into
    the [outputs, inputs] matrix. ``bias``: [*output, filters] in either data format."""

    rank = None

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 implementation=1, **kwargs):
        from tideflow.keras import activations, constraints, initializers, regularizers

        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = normalize_tuple(strides, self.rank, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError("The `padding` argument must be a list/tuple or one of \"valid\", "
                             "\"same\" (or \"causal\", only for `Conv1D). Received: "
                             f"{self.padding}")
        if self.padding != "valid" and implementation == 1:
            raise ValueError(f"Invalid border mode for LocallyConnected{self.rank}D (only "
                             f'"valid" is supported if implementation is 1): {padding}')
        self.implementation = implementation
        self.data_format = data_format or K.image_data_format()
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _spatial_and_channels(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if self.data_format == "channels_first":
            return dims[2:], dims[1]
        return dims[1:-1], dims[-1]

    def _output_spatial(self, spatial):
        return [None if d is None else conv_output_length(d, k, self.padding, s)
                for d, k, s in zip(spatial, self.kernel_size, self.strides)]

    def _with_channels(self, spatial, channels):
        spatial = tuple(spatial)
        return ((channels,) + spatial if self.data_format == "channels_first"
                else spatial + (channels,))

    def build(self, input_shape):
        spatial, channels = self._spatial_and_channels(input_shape)
        if channels is None or any(d is None for d in spatial):
            raise ValueError(f"LocallyConnected{self.rank}D ({self.name}) needs fully defined "
                             f"input dimensions, got {TensorShape(input_shape).as_list()}.")
        self.output_spatial = self._output_spatial(spatial)
        positions = int(np.prod(self.output_spatial))
        if self.implementation == 1:
            patch = channels * int(np.prod(self.kernel_size))
            self.kernel = _add_weight(self, "kernel", (positions, patch, self.filters))
        elif self.implementation == 2:
            mask = _connection_mask(spatial, self.kernel_size, self.strides, self.padding)
            rank = self.rank
            if self.data_format == "channels_first":  # [1, *in, 1, *out]
                mask = mask.reshape((1,) + mask.shape[:rank] + (1,) + mask.shape[rank:])
            else:  # [*in, 1, *out, 1]
                mask = mask.reshape(mask.shape[:rank] + (1,) + mask.shape[rank:] + (1,))
            self.kernel_mask = mask
            self.kernel = _add_weight(
                self, "kernel", self._with_channels(spatial, channels)
                + self._with_channels(self.output_spatial, self.filters))
        elif self.implementation == 3:
            mask = _connection_mask(spatial, self.kernel_size, self.strides, self.padding)
            rank = self.rank
            mask = np.transpose(mask, list(range(rank, 2 * rank)) + list(range(rank)))
            if self.data_format == "channels_first":  # [1, *out, 1, *in]
                full = mask.reshape((1,) + mask.shape[:rank] + (1,) + mask.shape[rank:])
            else:  # [*out, 1, *in, 1]
                full = mask.reshape(mask.shape[:rank] + (1,) + mask.shape[rank:] + (1,))
            shape = (self._with_channels(self.output_spatial, self.filters)
                     + self._with_channels(spatial, channels))
            self.kernel_shape = (positions * self.filters,
                                 int(np.prod(spatial)) * channels)
            # the (output, input) index pairs, sorted, of the flattened [outputs, inputs]
            self.kernel_idxs = np.argwhere(
                np.broadcast_to(full, shape).reshape(self.kernel_shape)).astype(np.int64)
            self.kernel = _add_weight(self, "kernel", (len(self.kernel_idxs),))
        else:
            raise ValueError(f"Unrecognized implementation mode: {self.implementation}.")
        if self.use_bias:
            self.bias = _add_weight(self, "bias", tuple(self.output_spatial) + (self.filters,))
        else:
            self.bias = None
        axis = 1 if self.data_format == "channels_first" else -1
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={axis: channels})
        self.built = True

    def call(self, inputs):
        out_dims = self._with_channels(self.output_spatial, self.filters)
        if self.implementation == 1:
            out = K.local_conv(inputs, self.kernel, self.kernel_size, self.strides,
                               tuple(self.output_spatial), self.data_format)
        else:
            flat = tf.reshape(inputs, [-1, int(np.prod(inputs.get_shape().as_list()[1:]))])
            if self.implementation == 2:
                kernel = self.kernel * tf.constant(self.kernel_mask, self.kernel.dtype)
                rows = int(np.prod(self.kernel.get_shape().as_list()[:self.rank + 1]))
                out = tf.matmul(flat, tf.reshape(kernel, [rows, -1]))
            else:
                dense = tf.scatter_nd(self.kernel_idxs, self.kernel, self.kernel_shape)
                out = tf.matmul(flat, dense, transpose_b=True)
            out = tf.reshape(out, (-1,) + out_dims)
        if self.use_bias:
            # as TF's bias_add of a [*output, filters] bias: channels_first reads its values
            # in [filters, *output] order
            out = out + tf.reshape(self.bias, (1,) + out_dims)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        spatial, _ = self._spatial_and_channels(input_shape)
        out = self._output_spatial(spatial)
        if self.data_format == "channels_first":
            return TensorShape([dims[0], self.filters] + out)
        return TensorShape([dims[0]] + out + [self.filters])

    def get_config(self):
        from tideflow.keras import activations, constraints, initializers, regularizers

        def ser(module, obj):
            return None if obj is None else module.serialize(obj)

        config = super().get_config()
        config.update(
            filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
            padding=self.padding, data_format=self.data_format,
            activation=activations.serialize(self.activation), use_bias=self.use_bias,
            kernel_initializer=ser(initializers, self.kernel_initializer),
            bias_initializer=ser(initializers, self.bias_initializer),
            kernel_regularizer=ser(regularizers, self.kernel_regularizer),
            bias_regularizer=ser(regularizers, self.bias_regularizer),
            activity_regularizer=ser(regularizers, self.activity_regularizer),
            kernel_constraint=ser(constraints, self.kernel_constraint),
            bias_constraint=ser(constraints, self.bias_constraint),
            implementation=self.implementation)
        return config


class LocallyConnected1D(_LocallyConnected):
    """Over steps; with implementation=1 ``kernel`` [output_length, kernel_size * input_dim,
    filters]; ``bias`` [output_length, filters]."""

    rank = 1


class LocallyConnected2D(_LocallyConnected):
    """Over rows and columns; with implementation=1 ``kernel`` [rows * cols,
    kh * kw * channels, filters]; ``bias`` [rows, cols, filters]."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 implementation=1, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         implementation=implementation, **kwargs)
