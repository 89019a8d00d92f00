"""``tf.contrib.layers.instance_norm`` and ``group_norm`` (also in ``tf.contrib.slim``):
per-example normalization with ``beta``/``gamma`` model variables under ``InstanceNorm`` /
``GroupNorm``, as TF 1.x's contrib normalization layers (epsilon 1e-6)."""

from tideflow.framework import ops
from tideflow.ops import array_ops, init_ops, math_ops
from tideflow.ops import contrib_layers as cl
from tideflow.ops import variable_scope as vs


def _nn():
    from tideflow import nn

    return nn


def _params(center, scale, shape, dtype, param_initializers, variables_collections, trainable,
            broadcast=None):
    # as TF 1.15: each parameter is reshaped to ``broadcast`` right after it is made (beta's
    # Reshape before gamma's variable), so the graph's node order and names are TF's
    param_initializers = param_initializers or {}
    beta = gamma = None
    if center:
        beta = cl.model_variable(
            "beta", shape=shape, dtype=dtype,
            initializer=param_initializers.get("beta", init_ops.zeros_initializer()),
            trainable=trainable, collections=cl._collections(variables_collections, "beta"))
        if broadcast is not None:
            beta = array_ops.reshape(beta, broadcast)
    if scale:
        gamma = cl.model_variable(
            "gamma", shape=shape, dtype=dtype,
            initializer=param_initializers.get("gamma", init_ops.ones_initializer()),
            trainable=trainable, collections=cl._collections(variables_collections, "gamma"))
        if broadcast is not None:
            gamma = array_ops.reshape(gamma, broadcast)
    return beta, gamma


def instance_norm(inputs, center=True, scale=True, epsilon=1e-6, activation_fn=None,
                  param_initializers=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, data_format="NHWC", scope=None):
    """Normalizes each example and channel over the spatial axes, then scales by ``gamma`` and
    shifts by ``beta`` (one per channel)."""
    inputs = ops.convert_to_tensor(inputs)
    shape = inputs.get_shape()
    rank = shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with vs.variable_scope(scope, "InstanceNorm", [inputs], reuse=reuse) as sc:
        if data_format == "NCHW":
            channel_axis = 1
            broadcast = [1, shape.dims[1].value] + [1] * (rank - 2)
        else:
            channel_axis = rank - 1
            broadcast = None
        moments_axes = [a for a in range(1, rank) if a != channel_axis]
        params_shape = shape[channel_axis:channel_axis + 1]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name} has undefined channels dimension "
                             f"{params_shape}.")
        beta, gamma = _params(center, scale, params_shape.as_list(), inputs.dtype.base_dtype,
                              param_initializers, variables_collections, trainable, broadcast)
        nn = _nn()
        mean, variance = nn.moments(inputs, moments_axes, keep_dims=True)
        outputs = nn.batch_normalization(inputs, mean, variance, beta, gamma, epsilon,
                                         name="instancenorm")
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return cl._collect_outputs(outputs_collections, sc.original_name_scope, outputs)


def group_norm(inputs, groups=32, channels_axis=-1, reduction_axes=(-3, -2), center=True,
               scale=True, epsilon=1e-6, activation_fn=None, param_initializers=None,
               reuse=None, variables_collections=None, outputs_collections=None,
               trainable=True, scope=None, mean_close_to_zero=False):
    """Splits the channels into ``groups`` and normalizes each example's group over
    ``reduction_axes`` and the group's channels; ``beta``/``gamma`` are per channel."""
    inputs = ops.convert_to_tensor(inputs)
    shape = inputs.get_shape()
    rank = shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    if channels_axis > rank - 1:
        raise ValueError("Axis is out of bounds.")
    dynamic = array_ops.shape(inputs)
    shape_list = [dynamic[i] if d.value is None else d.value for i, d in enumerate(shape.dims)]
    if channels_axis < 0:
        channels_axis += rank
    channels = shape.dims[channels_axis].value
    if channels is None:
        raise ValueError(f"Inputs {inputs.name} has undefined channel dimension: "
                         f"{channels_axis}.")
    reduction_axes = [a + rank if a < 0 else a for a in reduction_axes]
    for a in reduction_axes:
        if a > rank:
            raise ValueError("Axis is out of bounds.")
        if shape.dims[a].value is None:
            raise ValueError(f"Inputs {inputs.name} has undefined dimensions {a}.")
        if a == channels_axis:
            raise ValueError("reduction_axis must be mutually exclusive with channels_axis")
    if groups > channels:
        raise ValueError(f"Invalid groups {groups} for {channels} channels.")
    if channels % groups != 0:
        raise ValueError(f"{channels} channels is not commensurate with {groups} groups.")
    before, after = shape_list[:channels_axis], shape_list[channels_axis + 1:]
    broadcast = [1] * len(before) + [groups, channels // groups] + [1] * len(after)
    grouped = array_ops.reshape(inputs, before + [groups, channels // groups] + after)
    moments_axes = [channels_axis + 1] + [a + 1 if a > channels_axis else a
                                          for a in reduction_axes]
    with vs.variable_scope(scope, "GroupNorm", [grouped], reuse=reuse) as sc:
        beta, gamma = _params(center, scale, [channels], inputs.dtype.base_dtype,
                              param_initializers, variables_collections, trainable, broadcast)
        nn = _nn()
        if mean_close_to_zero:
            counts, mean_ss, var_ss, _ = nn.sufficient_statistics(grouped, moments_axes,
                                                                  keep_dims=True)
            mean, variance = nn.normalize_moments(counts, mean_ss, var_ss, shift=None)
        else:
            mean, variance = nn.moments(grouped, moments_axes, keep_dims=True)
        gain = math_ops.rsqrt(variance + epsilon)
        offset = -mean * gain
        if gamma is not None:
            gain = gain * gamma
            offset = offset * gamma
        if beta is not None:
            offset = offset + beta
        outputs = array_ops.reshape(grouped * gain + offset, shape_list)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return cl._collect_outputs(outputs_collections, sc.original_name_scope, outputs)


instance_norm = cl.add_arg_scope(instance_norm)
group_norm = cl.add_arg_scope(group_norm)

__all__ = ["group_norm", "instance_norm"]
