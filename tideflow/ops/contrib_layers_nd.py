"""``tf.contrib.layers`` beyond 2-D: ``convolution`` of any rank (``conv1d``, ``conv3d``),
``conv3d_transpose``, ``max_pool3d``/``avg_pool3d``/``pool``, with ``maxout`` and ``elu``.

As in TF 1.x, the N-d layers run the core ``tf.layers`` classes under a variable getter that
names their variables ``weights``/``biases`` and files them as model variables.
"""

import functools

from tideflow.framework import ops
from tideflow.ops import array_ops, reduction_ops
from tideflow.ops import contrib_layers as cl
from tideflow.ops import variable_scope as vs
from tideflow.ops.layer_initializers import xavier_initializer


def _nn():
    from tideflow import nn

    return nn


_RENAMES = {"kernel": "weights", "bias": "biases"}


def _model_variable_getter(getter, name, *args, **kwargs):
    """Renames a core layer's ``kernel``/``bias`` and makes them model variables."""
    head, _, short = name.rpartition("/")
    if short in _RENAMES:
        name = f"{head}/{_RENAMES[short]}" if head else _RENAMES[short]
    collections = list(kwargs.get("collections") or [ops.GraphKeys.GLOBAL_VARIABLES])
    if ops.GraphKeys.MODEL_VARIABLES not in collections:
        collections.append(ops.GraphKeys.MODEL_VARIABLES)
    kwargs["collections"] = collections
    return getter(name, *args, **kwargs)


def _add_to_collections(variable, variables_collections, name):
    colls = cl._collections(variables_collections, name)
    if colls:
        ops.add_to_collections(colls, variable)


def _apply_layer(layer, inputs, sc, variables_collections, normalizer_fn, normalizer_params,
                 activation_fn, outputs_collections):
    """A convolution layer's output with contrib's trimmings: its variables added to
    ``variables_collections``, then the normalizer, the activation and the outputs
    collections."""
    outputs = layer.apply(inputs)
    _add_to_collections(layer.kernel, variables_collections, "weights")
    if layer.use_bias:
        _add_to_collections(layer.bias, variables_collections, "biases")
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return cl._collect_outputs(outputs_collections, sc.name, outputs)


def _channels_first(data_format):
    return bool(data_format) and data_format.startswith("NC")


def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                rate=1, activation_fn=cl._RELU, normalizer_fn=None, normalizer_params=None,
                weights_initializer=None, weights_regularizer=None,
                biases_initializer=cl._ZEROS, biases_regularizer=None, reuse=None,
                variables_collections=None, outputs_collections=None, trainable=True,
                scope=None, conv_dims=None):
    """An N-d convolution (N = rank of ``inputs`` - 2, 1 to 3) with ``weights`` and
    ``biases`` (or ``normalizer_fn``) and ``activation_fn``."""
    from tideflow.ops import layers_conv, layers_conv_more

    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse,
                           custom_getter=_model_variable_getter) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if conv_dims is not None and conv_dims + 2 != rank:
            raise ValueError(f"Convolution expects input with rank {conv_dims + 2}, got {rank}")
        classes = {3: layers_conv.Conv1D, 4: layers_conv.Conv2D, 5: layers_conv_more.Conv3D}
        if rank not in classes:
            raise ValueError(f"Convolution not supported for input with rank {rank}")
        layer = classes[rank](
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format="channels_first" if _channels_first(data_format) else "channels_last",
            dilation_rate=rate, activation=None,
            use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        return _apply_layer(layer, inputs, sc, variables_collections, normalizer_fn,
                            normalizer_params, activation_fn, outputs_collections)


def convolution3d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                            data_format="NDHWC", activation_fn=cl._RELU, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=None,
                            weights_regularizer=None, biases_initializer=cl._ZEROS,
                            biases_regularizer=None, reuse=None, variables_collections=None,
                            outputs_collections=None, trainable=True, scope=None):
    """A transposed 3-D convolution with ``weights`` [kd, kh, kw, num_outputs, in]."""
    from tideflow.ops.layers_conv_more import Conv3DTranspose

    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError("data_format has to be either NCDHW or NDHWC.")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with vs.variable_scope(scope, "Conv3d_transpose", [inputs], reuse=reuse,
                           custom_getter=_model_variable_getter) as sc:
        inputs = ops.convert_to_tensor(inputs)
        layer = Conv3DTranspose(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format="channels_first" if data_format == "NCDHW" else "channels_last",
            activation=None, use_bias=not normalizer_fn and biases_initializer is not None,
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        return _apply_layer(layer, inputs, sc, variables_collections, normalizer_fn,
                            normalizer_params, activation_fn, outputs_collections)


def _triple(value, name):
    if isinstance(value, int):
        return [value] * 3
    value = list(value)
    if len(value) != 3:
        raise ValueError(f"{name} must be an int or a list of 3 ints, got {value}")
    return value


def _pool3d(kind, default_scope, inputs, kernel_size, stride, padding, data_format,
            outputs_collections, scope):
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError("data_format has to be either NCDHW or NDHWC.")
    k, s = _triple(kernel_size, "kernel_size"), _triple(stride, "stride")
    if data_format == "NCDHW":
        ksize, strides = [1, 1, *k], [1, 1, *s]
    else:
        ksize, strides = [1, *k, 1], [1, *s, 1]
    with ops.name_scope(scope, default_scope, [inputs]) as sc:
        fn = getattr(_nn(), kind)
        outputs = fn(ops.convert_to_tensor(inputs), ksize=ksize, strides=strides,
                     padding=padding, data_format=data_format)
        return cl._collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def max_pool3d(inputs, kernel_size, stride=2, padding="VALID", data_format="NDHWC",
               outputs_collections=None, scope=None):
    """3-D max pooling over ``kernel_size`` windows (default stride 2, VALID padding)."""
    return _pool3d("max_pool3d", "MaxPool3D", inputs, kernel_size, stride, padding,
                   data_format, outputs_collections, scope)


def avg_pool3d(inputs, kernel_size, stride=2, padding="VALID", data_format="NDHWC",
               outputs_collections=None, scope=None):
    """3-D average pooling over ``kernel_size`` windows (default stride 2, VALID padding)."""
    return _pool3d("avg_pool3d", "AvgPool3D", inputs, kernel_size, stride, padding,
                   data_format, outputs_collections, scope)


def pool(inputs, kernel_size, pooling_type, padding="VALID", data_format=None, dilation_rate=1,
         stride=1, outputs_collections=None, scope=None):
    """N-d ``'MAX'`` or ``'AVG'`` pooling through ``tf.nn.pool``."""
    with ops.name_scope(scope, f"{pooling_type.lower()}_pool", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if rank is None:
            raise ValueError("Rank of inputs must be known")
        if rank < 3:
            raise ValueError("Rank of inputs must be >= 3")
        n = rank - 2

        def seq(v):
            return [v] * n if isinstance(v, int) else list(v)

        outputs = _nn().pool(inputs, window_shape=seq(kernel_size), pooling_type=pooling_type,
                             padding=padding, dilation_rate=seq(dilation_rate),
                             strides=seq(stride), data_format=data_format, name=sc)
        return cl._collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def maxout(inputs, num_units, axis=-1, scope=None):
    """The max over each of ``num_units`` equal groups of features along ``axis``."""
    with vs.variable_scope(scope, "MaxOut", [inputs]):
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape().as_list()
        num_channels = shape[axis]
        if num_channels % num_units:
            raise ValueError(f"number of features({num_channels}) is not a multiple of "
                             f"num_units({num_units})")
        shape[axis] = num_units
        shape += [num_channels // num_units]
        dynamic = array_ops.shape(inputs)
        shape = [dynamic[i] if d is None else d for i, d in enumerate(shape)]
        return reduction_ops.reduce_max(array_ops.reshape(inputs, shape), -1, keepdims=False)


# TF 1.15 spells out convolution's parameters (less conv_dims) for these two, so they bind
# by position as it and arg_scope knows their keyword arguments


def convolution1d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=cl._RELU, normalizer_fn=None, normalizer_params=None,
                  weights_initializer=None, weights_regularizer=None,
                  biases_initializer=cl._ZEROS, biases_regularizer=None, reuse=None,
                  variables_collections=None, outputs_collections=None, trainable=True,
                  scope=None):
    """``convolution`` of a 3-D ``[batch, width, channels]`` input."""
    return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate,
                       activation_fn, normalizer_fn, normalizer_params, weights_initializer,
                       weights_regularizer, biases_initializer, biases_regularizer, reuse,
                       variables_collections, outputs_collections, trainable, scope,
                       conv_dims=1)


def convolution3d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=cl._RELU, normalizer_fn=None, normalizer_params=None,
                  weights_initializer=None, weights_regularizer=None,
                  biases_initializer=cl._ZEROS, biases_regularizer=None, reuse=None,
                  variables_collections=None, outputs_collections=None, trainable=True,
                  scope=None):
    """``convolution`` of a 5-D ``[batch, depth, height, width, channels]`` input."""
    return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format, rate,
                       activation_fn, normalizer_fn, normalizer_params, weights_initializer,
                       weights_regularizer, biases_initializer, biases_regularizer, reuse,
                       variables_collections, outputs_collections, trainable, scope,
                       conv_dims=3)


convolution = cl.add_arg_scope(convolution)
convolution1d = conv1d = cl.add_arg_scope(convolution1d)
convolution3d = conv3d = cl.add_arg_scope(convolution3d)
convolution3d_transpose = conv3d_transpose = cl.add_arg_scope(convolution3d_transpose)
max_pool3d = cl.add_arg_scope(max_pool3d)
avg_pool3d = cl.add_arg_scope(avg_pool3d)
pool = cl.add_arg_scope(pool)
elu = functools.partial(cl.fully_connected, activation_fn=lambda x: _nn().elu(x))

__all__ = ["avg_pool3d", "conv1d", "conv3d", "conv3d_transpose", "convolution",
           "convolution1d", "convolution3d", "convolution3d_transpose", "elu", "max_pool3d",
           "maxout", "pool"]
