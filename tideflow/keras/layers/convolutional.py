"""Convolution, pooling, padding, cropping and upsampling layers (1-D and 2-D).

``channels_first`` inputs are transposed to channels_last around the channels_last kernels.
"""

import numpy as np

import tideflow as tf
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import activations, constraints, initializers, regularizers
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import InputSpec, Layer
from tideflow.keras.layers.core import _add_weight, _ser, _ser_attrs, _weights_config
from tideflow.ops import conv_ops
from tideflow.ops.layers_base import normalize_data_format, normalize_padding, normalize_tuple


def conv_output_length(length, filter_size, padding, stride, dilation=1):
    if length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        out = length
    else:
        out = length - dilated + 1
    return (out + stride - 1) // stride


def deconv_output_length(length, filter_size, padding, stride, output_padding=None):
    if length is None:
        return None
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(filter_size - stride, 0)
        return length * stride
    pad = filter_size // 2 if padding == "same" else 0
    return (length - 1) * stride + filter_size - 2 * pad + output_padding


def _to_last(x, rank, data_format):
    if data_format == "channels_first":
        return tf.transpose(x, [0] + list(range(2, rank + 2)) + [1])
    return x


def _from_last(x, rank, data_format):
    if data_format == "channels_first":
        return tf.transpose(x, [0, rank + 1] + list(range(1, rank + 1)))
    return x


def _channels_last_shape(shape, data_format):
    dims = TensorShape(shape).as_list()
    if data_format == "channels_first":
        return [dims[0]] + dims[2:] + [dims[1]]
    return dims


def _restore_format(dims, data_format):
    if data_format == "channels_first":
        return TensorShape([dims[0], dims[-1]] + dims[1:-1])
    return TensorShape(dims)


class Conv(Layer):
    """N-D convolution (rank 1 or 2): weights ``kernel`` [*kernel_size, in, filters] and
    ``bias`` [filters]."""

    def __init__(self, rank, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = padding.lower() if padding == "causal" else normalize_padding(padding)
        if self.padding == "causal" and rank != 1:
            raise ValueError("Causal padding is only supported for `Conv1D` and "
                             "``SeparableConv1D`.")
        self.data_format = normalize_data_format(data_format or K.image_data_format())
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)

    _prepares_convolution = True  # (TF's transposed convolutions build no Convolution op)

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _input_channels(self, input_shape):
        return TensorShape(input_shape).as_list()[self._channel_axis()]

    def _add_bias(self, units):
        """The ``bias`` weight ``[units]`` (None without ``use_bias``)."""
        return _add_weight(self, "bias", (units,)) if self.use_bias else None

    def _set_input_spec(self, channels):
        """Marks the layer built for inputs of ``channels`` channels (on axis -1 or 1, as TF
        words its InputSpec errors)."""
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={self._channel_axis(): channels})
        self.built = True

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels, self.filters)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found "
                             "`None`.")
        self.kernel = _add_weight(self, "kernel", self._kernel_shape(channels))
        self.bias = self._add_bias(self.filters)
        # TF 1.15's build prepares its convolution op, which holds the dilation rate as a
        # constant ('conv2d/dilation_rate'): made here too, so later ops get TF's op count
        if self._prepares_convolution:
            # (and checks the rates and strides first, in TF's words)
            conv_ops._strides_and_dilation(self.strides, self.dilation_rate, self.rank)
            tf.constant(list(self.dilation_rate), dtype=tf.int32, name="dilation_rate")
            dims = TensorShape(input_shape).as_list()
            spatial = dims[2:] if self.data_format == "channels_first" else dims[1:-1]
            if max(self.dilation_rate) > 1 and None not in spatial and \
                    self.padding != "causal":  # (causal: made at the call, after its pad)
                self._space_to_batch_constants()
        self._set_input_spec(channels)

    def _space_to_batch_constants(self):
        # TF's dilated convolution over a known size works its paddings out as constants
        # (the call then makes none: _tf_constants="made")
        names = ("input_shape", "base_paddings", "paddings", "crops")
        if self.padding == "same":
            tf.constant(list(self.kernel_size), name="filter_shape")
            tf.constant(0, name="stack")  # (the same-padding sizes)
            names = ("input_shape", "paddings", "crops")
        with tf.name_scope("required_space_to_batch_paddings"):
            for name in names:
                tf.constant(0, name=name)
        self._space_to_batch_made = True

    def _add_depthwise_kernel(self, channels):
        """The ``depthwise_kernel`` weight of the depthwise and separable convolutions."""
        return _add_weight(self, "depthwise_kernel",
                           self.kernel_size + (channels, self.depth_multiplier), "depthwise")

    def _convolve(self, x):
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            x = tf.pad(x, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
            if max(self.dilation_rate) > 1 and x.get_shape()[1].value is not None:
                self._space_to_batch_constants()
        if max(self.dilation_rate) > 1:  # as TF 1.15's: SpaceToBatchND, conv, BatchToSpaceND
            out = conv_ops.space_to_batch_convolution(
                x, self.kernel, padding, self.dilation_rate,
                _tf_constants="made" if getattr(self, "_space_to_batch_made", False) else False)
            if out is not None:
                return out
        if self.rank == 3:
            return tf.nn.conv3d(x, self.kernel, strides=(1,) + self.strides + (1,),
                                padding=padding.upper(),
                                dilations=(1,) + self.dilation_rate + (1,))
        if self.rank == 1:  # as TF's: 'conv1d/conv1d' and its ExpandDims and Squeeze
            return tf.nn.conv1d(x, self.kernel, stride=self.strides[0], padding=padding.upper(),
                                dilations=self.dilation_rate[0])
        return tf.nn.conv2d(x, self.kernel, strides=(1,) + self.strides + (1,),
                            padding=padding.upper(), dilations=(1,) + self.dilation_rate + (1,))

    def call(self, inputs):
        x = _to_last(inputs, self.rank, self.data_format)
        out = self._convolve(x)
        if self.use_bias:
            out = tf.nn.bias_add(out, self.bias)
        out = _from_last(out, self.rank, self.data_format)
        if self.activation is not None:
            out = self.activation(out)
        return out

    def compute_output_shape(self, input_shape):
        dims = _channels_last_shape(input_shape, self.data_format)
        space = [conv_output_length(d, k, self.padding, s, r) for d, k, s, r in zip(
            dims[1:-1], self.kernel_size, self.strides, self.dilation_rate)]
        return _restore_format([dims[0]] + space + [self.filters], self.data_format)

    def get_config(self):
        config = super().get_config()
        config.update(
            filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
            padding=self.padding, data_format=self.data_format,
            dilation_rate=self.dilation_rate, activation=activations.serialize(self.activation),
            use_bias=self.use_bias, **_weights_config(self, activity_regularizer=True))
        return config


class Conv1D(Conv):
    # the arguments in Keras's order, for positional calls (``Conv1D(8, 3, 1, "same", ...)``)
    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(1, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)


class Conv2D(Conv):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(2, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)


class Conv3D(Conv):
    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1, 1), activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(3, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)


def _deconv_length(length, kernel, padding, output_padding, stride):
    """A transposed convolution's output length from a length tensor, with TF 1.15's
    arithmetic (conv_utils.deconv_output_length), op for op."""
    if output_padding is None:
        if padding == "valid":
            return length * stride + max(kernel - stride, 0)
        if padding == "full":
            return length * stride - (stride + kernel - 2)
        return length * stride
    pad = {"same": kernel // 2, "valid": 0, "full": kernel - 1}[padding]
    return (length - 1) * stride + kernel - 2 * pad + output_padding


class _ConvTranspose:
    """What the transposed convolutions share: ``kernel`` [*kernel_size, filters, in],
    ``output_padding``, and ``_transpose_op`` (``tf.nn.conv{rank}d_transpose``) run on
    channels-last inputs."""

    _prepares_convolution = False

    def _set_output_padding(self, output_padding):
        self.output_padding = None if output_padding is None else normalize_tuple(
            output_padding, self.rank, "output_padding")

    def get_config(self):
        config = super().get_config()
        config["output_padding"] = self.output_padding
        return config

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def _convolve(self, x):
        shape = tf.shape(x)
        static = x.get_shape().as_list()
        op = self.output_padding or (None,) * self.rank
        if self.rank == 3 or (self.rank == 2 and self.dilation_rate == (1, 1)):
            return self._convolve_as_tf(x, shape, static, op)
        sizes = [deconv_output_length(static[i + 1] if static[i + 1] is not None
                                      else shape[i + 1], self.kernel_size[i], self.padding,
                                      self.strides[i], op[i]) for i in range(self.rank)]
        out = self._transpose_op(x, self.kernel, tf.stack([shape[0]] + sizes + [self.filters]),
                                 strides=(1,) + self.strides + (1,),
                                 padding=self.padding.upper())
        out.set_shape([static[0]] + [s if isinstance(s, int) else None for s in sizes] +
                      [self.filters])
        return out

    def _convolve_as_tf(self, x, shape, static, op):
        # TF 1.15's ops in its order: the batch and spatial sizes sliced from the input's
        # dynamic shape, the output sizes computed from them, their stack (and, in 2-D, the
        # batch size sliced again from it, as backend.conv2d_transpose does)
        batch, sizes = shape[0], [shape[i + 1] for i in range(self.rank)]
        out_sizes = [_deconv_length(d, k, self.padding, p, s) for d, k, p, s in
                     zip(sizes, self.kernel_size, op, self.strides)]
        output_shape = tf.stack([batch] + out_sizes + [self.filters])
        if self.rank == 2:
            output_shape[0]  # (TF's backend reads it: its op is counted)
        out = self._transpose_op(x, self.kernel, output_shape,
                                 strides=(1,) + self.strides + (1,),
                                 padding=self.padding.upper())
        space = [deconv_output_length(d, k, self.padding, s, p) for d, k, s, p in zip(
            static[1:1 + self.rank], self.kernel_size, self.strides, op)]
        out.set_shape([static[0]] + space + [self.filters])
        return out

    def compute_output_shape(self, input_shape):
        dims = _channels_last_shape(input_shape, self.data_format)
        op = self.output_padding or (None,) * self.rank
        space = [deconv_output_length(d, k, self.padding, s, p) for d, k, s, p in zip(
            dims[1:-1], self.kernel_size, self.strides, op)]
        return _restore_format([dims[0]] + space + [self.filters], self.data_format)


class Conv2DTranspose(_ConvTranspose, Conv2D):
    """Transposed 2-D convolution: ``kernel`` [kh, kw, filters, in]."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         **kwargs)
        self._set_output_padding(output_padding)

    @staticmethod
    def _transpose_op(*args, **kwargs):
        return tf.nn.conv2d_transpose(*args, **kwargs)


class DepthwiseConv2D(Conv2D):
    """Depthwise 2-D convolution: ``depthwise_kernel`` [kh, kw, in, depth_multiplier]."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters=1, kernel_size=kernel_size, strides=strides, padding=padding,
                         data_format=data_format, activation=activation, use_bias=use_bias,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, bias_initializer=bias_initializer,
                         **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        if channels is None:
            raise ValueError("The channel dimension of the inputs to `DepthwiseConv2D` should "
                             "be defined. Found `None`.")
        self.depthwise_kernel = self._add_depthwise_kernel(channels)
        self.bias = self._add_bias(channels * self.depth_multiplier)
        self.filters = channels * self.depth_multiplier
        self._set_input_spec(channels)

    def get_config(self):
        config = super().get_config()
        for k in ("filters", "kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            config.pop(k, None)
        config.update(depth_multiplier=self.depth_multiplier,
                      depthwise_initializer=_ser(initializers, self.depthwise_initializer),
                      depthwise_regularizer=_ser(regularizers, self.depthwise_regularizer),
                      depthwise_constraint=_ser(constraints, self.depthwise_constraint))
        return config

    def _convolve(self, x):
        return tf.nn.depthwise_conv2d(x, self.depthwise_kernel, strides=(1,) + self.strides + (1,),
                                      padding=self.padding.upper(),
                                      dilations=self.dilation_rate)


class SeparableConv2D(Conv2D):
    """Depthwise then pointwise 2-D convolution: ``depthwise_kernel`` [kh, kw, in, dm],
    ``pointwise_kernel`` [1, 1, in * dm, filters], ``bias``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self._add_depthwise_kernel(channels)
        self.pointwise_kernel = _add_weight(
            self, "pointwise_kernel", (1, 1, channels * self.depth_multiplier, self.filters),
            "pointwise")
        self.bias = self._add_bias(self.filters)
        self._set_input_spec(channels)

    def get_config(self):
        # (as TF 1.15: the Conv base's unused kernel_* keys stay in)
        config = super().get_config()
        config.update(depth_multiplier=self.depth_multiplier,
                      **_ser_attrs(self, "depthwise_initializer", "pointwise_initializer",
                                   "depthwise_regularizer", "pointwise_regularizer",
                                   "depthwise_constraint", "pointwise_constraint"))
        return config

    def _convolve(self, x):
        return tf.nn.separable_conv2d(x, self.depthwise_kernel, self.pointwise_kernel,
                                      strides=(1,) + self.strides + (1,),
                                      padding=self.padding.upper(), rate=self.dilation_rate)


# -- pooling -------------------------------------------------------------------------------------


class _Pooling(Layer):
    def __init__(self, rank, pool_size, strides, padding, data_format, mode, **kwargs):
        super().__init__(**kwargs)
        self.rank = rank
        if strides is None:
            strides = pool_size
        self.pool_size = normalize_tuple(pool_size, rank, "pool_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = data_format or ("channels_last" if rank == 1 else
                                           K.image_data_format())
        self.mode = mode
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        x = _to_last(inputs, self.rank, self.data_format)
        fn = tf.nn.max_pool if self.mode == "max" else tf.nn.avg_pool
        if self.rank == 3:
            fn = tf.nn.max_pool3d if self.mode == "max" else tf.nn.avg_pool3d
            out = fn(x, (1,) + self.pool_size + (1,), (1,) + self.strides + (1,),
                     self.padding.upper())
        elif self.rank == 1:
            x = tf.expand_dims(x, 1)
            out = fn(x, [1, 1, self.pool_size[0], 1], [1, 1, self.strides[0], 1],
                     self.padding.upper())
            out = tf.squeeze(out, [1])
        else:
            out = fn(x, (1,) + self.pool_size + (1,), (1,) + self.strides + (1,),
                     self.padding.upper())
        return _from_last(out, self.rank, self.data_format)

    def compute_output_shape(self, input_shape):
        dims = _channels_last_shape(input_shape, self.data_format)
        space = [conv_output_length(d, k, self.padding, s) for d, k, s in zip(
            dims[1:-1], self.pool_size, self.strides)]
        return _restore_format([dims[0]] + space + [dims[-1]], self.data_format)

    def get_config(self):
        config = super().get_config()
        if self.rank == 1:  # (TF 1.15's key orders)
            config.update(strides=self.strides, pool_size=self.pool_size)
        else:
            config.update(pool_size=self.pool_size, padding=self.padding, strides=self.strides)
        config.update(padding=self.padding, data_format=self.data_format)
        return config


class MaxPooling1D(_Pooling):
    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last",
                 **kwargs):
        super().__init__(1, pool_size, strides, padding, data_format, "max", **kwargs)


class AveragePooling1D(_Pooling):
    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last",
                 **kwargs):
        super().__init__(1, pool_size, strides, padding, data_format, "avg", **kwargs)


class MaxPooling2D(_Pooling):
    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(2, pool_size, strides, padding, data_format, "max", **kwargs)


class AveragePooling2D(_Pooling):
    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(2, pool_size, strides, padding, data_format, "avg", **kwargs)


class MaxPooling3D(_Pooling):
    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(3, pool_size, strides, padding, data_format, "max", **kwargs)


class AveragePooling3D(_Pooling):
    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(3, pool_size, strides, padding, data_format, "avg", **kwargs)


class _GlobalPooling(Layer):
    def __init__(self, rank, mode, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.rank = rank
        self.mode = mode
        self.data_format = data_format or ("channels_last" if rank == 1 else
                                           K.image_data_format())
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs, mask=None):
        if self.data_format == "channels_first":
            axes = list(range(2, self.rank + 2))
        else:
            axes = list(range(1, self.rank + 1))
        if self.rank == 1:  # (TF 1.15's 1-D layers reduce over the scalar steps axis)
            axes = axes[0]
        if mask is not None and self.mode == "avg" and self.rank == 1:
            # the mean over the unmasked steps
            m = tf.cast(mask, inputs.dtype.base_dtype)
            m = tf.expand_dims(m, 1 if self.data_format == "channels_first" else 2)
            return tf.reduce_sum(inputs * m, axis=axes) / tf.reduce_sum(m, axis=axes)
        fn = tf.reduce_max if self.mode == "max" else tf.reduce_mean
        return fn(inputs, axis=axes)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        channels = dims[1] if self.data_format == "channels_first" else dims[-1]
        return TensorShape([dims[0], channels])

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class GlobalAveragePooling1D(_GlobalPooling):
    def __init__(self, data_format="channels_last", **kwargs):
        super().__init__(1, "avg", data_format, **kwargs)


class GlobalMaxPooling1D(_GlobalPooling):
    def __init__(self, data_format="channels_last", **kwargs):
        super().__init__(1, "max", data_format, **kwargs)


class GlobalAveragePooling2D(_GlobalPooling):
    def __init__(self, data_format=None, **kwargs):
        super().__init__(2, "avg", data_format, **kwargs)


class GlobalMaxPooling2D(_GlobalPooling):
    def __init__(self, data_format=None, **kwargs):
        super().__init__(2, "max", data_format, **kwargs)


# -- padding, cropping, upsampling ---------------------------------------------------------------


def _pairs(value, rank, name):
    if isinstance(value, int):
        return ((value, value),) * rank
    value = tuple(value)
    if len(value) != rank:
        raise ValueError(f"`{name}` should have {rank} elements. Found: {value}")
    # (each entry a pair, in TF's words: "The `2nd entry of cropping` argument must be ...")
    return tuple(normalize_tuple(v, 2, f"{nth} entry of {name}")
                 for v, nth in zip(value, ("1st", "2nd", "3rd")))


class GlobalAveragePooling3D(_GlobalPooling):
    def __init__(self, data_format=None, **kwargs):
        super().__init__(3, "avg", data_format, **kwargs)


class GlobalMaxPooling3D(_GlobalPooling):
    def __init__(self, data_format=None, **kwargs):
        super().__init__(3, "max", data_format, **kwargs)


class ZeroPadding1D(Layer):
    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, 1, "padding")[0] if not isinstance(
            padding, tuple) or len(padding) != 2 else tuple(padding)
        self.input_spec = InputSpec(ndim=3)

    def get_config(self):
        config = super().get_config()
        config["padding"] = self.padding
        return config

    def call(self, inputs):
        return tf.pad(inputs, [[0, 0], list(self.padding), [0, 0]])

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        length = None if dims[1] is None else dims[1] + sum(self.padding)
        return TensorShape([dims[0], length, dims[2]])


def _spatial_output_shape(input_shape, data_format, rank, params, resize):
    """The shape after each of the ``rank`` spatial axes becomes ``resize(length, param)``
    (an unknown length stays unknown)."""
    dims = _channels_last_shape(input_shape, data_format)
    space = [None if d is None else resize(d, p) for d, p in zip(dims[1:rank + 1], params)]
    return _restore_format([dims[0]] + space + [dims[rank + 1]], data_format)


class _ZeroPadding(Layer):
    """Zeros around the ``rank`` spatial axes: ``padding`` an int, ``rank`` ints, or pairs."""

    def __init__(self, rank, padding, data_format, **kwargs):
        super().__init__(**kwargs)
        self._rank = rank
        self.padding = _pairs(padding, rank, "padding")
        self.data_format = data_format or K.image_data_format()
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs):
        pads = [list(p) for p in self.padding]
        if self.data_format == "channels_first":
            return tf.pad(inputs, [[0, 0], [0, 0]] + pads)
        return tf.pad(inputs, [[0, 0]] + pads + [[0, 0]])

    def compute_output_shape(self, input_shape):
        return _spatial_output_shape(input_shape, self.data_format, self._rank, self.padding,
                                     lambda d, p: d + sum(p))

    def get_config(self):
        config = super().get_config()
        config.update(padding=self.padding, data_format=self.data_format)
        return config


class ZeroPadding2D(_ZeroPadding):
    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(2, padding, data_format, **kwargs)


class Cropping1D(Layer):
    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = normalize_tuple(cropping, 2, "cropping")  # TF 1.x: 2 integers
        self.input_spec = InputSpec(ndim=3)

    def get_config(self):
        config = super().get_config()
        config["cropping"] = self.cropping
        return config

    def call(self, inputs):
        end = -self.cropping[1] if self.cropping[1] else None
        return inputs[:, self.cropping[0]:end, :]

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        length = None if dims[1] is None else dims[1] - sum(self.cropping)
        return TensorShape([dims[0], length, dims[2]])


class _Cropping(Layer):
    """Crops the ``rank`` spatial axes: ``cropping`` an int, ``rank`` ints, or pairs."""

    def __init__(self, rank, cropping, data_format, **kwargs):
        super().__init__(**kwargs)
        self._rank = rank
        self.cropping = _pairs(cropping, rank, "cropping")
        self.data_format = data_format or K.image_data_format()
        self.input_spec = InputSpec(ndim=rank + 2)

    def get_config(self):
        config = super().get_config()
        config.update(cropping=self.cropping, data_format=self.data_format)
        return config

    def call(self, inputs):
        spatial = tuple(slice(a, -b if b else None) for a, b in self.cropping)
        if self.data_format == "channels_first":
            return inputs[(slice(None), slice(None)) + spatial]
        return inputs[(slice(None),) + spatial + (slice(None),)]

    def compute_output_shape(self, input_shape):
        return _spatial_output_shape(input_shape, self.data_format, self._rank, self.cropping,
                                     lambda d, p: d - sum(p))


class Cropping2D(_Cropping):
    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(2, cropping, data_format, **kwargs)


class UpSampling1D(Layer):
    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)
        self.input_spec = InputSpec(ndim=3)

    def get_config(self):
        config = super().get_config()
        config["size"] = self.size
        return config

    def call(self, inputs):
        return K.repeat_elements(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], None if dims[1] is None else dims[1] * self.size, dims[2]])


class UpSampling2D(Layer):
    """Repeats rows and columns ``size`` times (nearest neighbour)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, 2, "size")
        self.data_format = data_format or K.image_data_format()
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError("interpolation should be one of `nearest` or `bilinear`.")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def get_config(self):
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format,
                      interpolation=self.interpolation)
        return config

    def call(self, inputs):
        x = _to_last(inputs, 2, self.data_format)
        h, w = x.get_shape().as_list()[1:3]
        # as TF 1.15's backend.resize_images: the input's dynamic size times the factors,
        # then TF 2's resize (half-pixel centres) under 'resize'
        new_shape = tf.shape(x)[1:3] * tf.constant(np.array(self.size, dtype="int32"))
        with tf.name_scope("resize"):
            if self.interpolation == "bilinear":
                out = tf.image.resize_bilinear(x, new_shape, half_pixel_centers=True)
            else:
                out = tf.image.resize_nearest_neighbor(x, new_shape, half_pixel_centers=True)
        new_h = h * self.size[0] if h is not None else None
        new_w = w * self.size[1] if w is not None else None
        out.set_shape([x.get_shape().as_list()[0], new_h, new_w, x.get_shape().as_list()[3]])
        return _from_last(out, 2, self.data_format)

    def compute_output_shape(self, input_shape):
        return _spatial_output_shape(input_shape, self.data_format, 2, self.size,
                                     lambda d, s: d * s)


Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
MaxPool3D = MaxPooling3D
AvgPool3D = AveragePooling3D
GlobalAvgPool3D = GlobalAveragePooling3D
GlobalMaxPool3D = GlobalMaxPooling3D
Convolution2DTranspose = Conv2DTranspose
Deconvolution2D = Deconv2D = Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
MaxPool1D = MaxPooling1D
MaxPool2D = MaxPooling2D
AvgPool1D = AveragePooling1D
AvgPool2D = AveragePooling2D
GlobalAvgPool1D = GlobalAveragePooling1D
GlobalAvgPool2D = GlobalAveragePooling2D
GlobalMaxPool1D = GlobalMaxPooling1D
GlobalMaxPool2D = GlobalMaxPooling2D
