"""Second-order gradients of fused batch normalization: the gradients of
``FusedBatchNormGrad{,V2,V3}``.

A gradient penalty (WGAN-GP, DRAGAN) differentiates ``tf.gradients(D(x), x)`` again, so a
discriminator with ``tf.contrib.layers.batch_norm(fused=...)`` / ``tf.layers.batch_normalization``
needs the gradient of the batch-norm gradient op. As TF does, the backward pass is written out
again with differentiable elementwise and reduction ops (the batch statistics recomputed from
``x`` in training mode, the population statistics taken as constants in inference mode) and
differentiated with ``tf.gradients``, weighted by the incoming gradients of ``x_backprop``,
``scale_backprop`` and ``offset_backprop``.
"""

from tideflow.framework import op_registry


def _backward_pass(dy, x, scale, mean, variance, epsilon, data_format, is_training):
    """(dx, dscale, doffset) of batch normalization, from differentiable ops."""
    from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops, unary_ops

    channels_first = data_format.startswith("NC")
    ndim = x.shape.ndims
    if ndim is None:
        ndim = 5 if data_format in ("NDHWC", "NCDHW") else 4
    c = 1 if channels_first else ndim - 1
    axes = [i for i in range(ndim) if i != c]
    x_dtype = x.dtype.base_dtype
    if x_dtype != scale.dtype.base_dtype:  # half inputs: the arithmetic in float32
        dy = cast_ops.cast(dy, scale.dtype)
        x = cast_ops.cast(x, scale.dtype)

    def per_channel(v):  # a [C] vector broadcast against x
        if not channels_first:
            return v
        return array_ops.reshape(v, [1, -1] + [1] * (ndim - 2))

    def channel_sum(t):
        return reduction_ops.reduce_sum(t, axes)

    if is_training:
        # TF 1.15's _BatchNormGrad, op for op (its values to the bit): the statistics of this
        # batch recomputed from x (the saved ones carry no gradient), channels-first kept
        # [1, C, 1, 1] with the scale reshaped to match
        keepdims = channels_first
        if channels_first:
            scale = array_ops.reshape(scale, [1, array_ops.size(scale)] + [1] * (ndim - 2))
        mean_dy = reduction_ops.reduce_mean(dy, axes, keepdims=keepdims)
        mean_x = reduction_ops.reduce_mean(x, axes, keepdims=keepdims)
        var_x = reduction_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), axes,
            keepdims=keepdims)
        dy_offset = dy - mean_dy
        x_offset = x - mean_x
        mean = reduction_ops.reduce_mean(dy * x_offset, axis=axes, keepdims=keepdims)
        dx = scale * unary_ops.rsqrt(var_x + epsilon) * (
            dy_offset - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        dscale = unary_ops.rsqrt(var_x + epsilon) * reduction_ops.reduce_sum(
            dy * x_offset, axis=axes, keepdims=keepdims)
        if channels_first:
            dscale = array_ops.squeeze(dscale)
    else:
        inv = unary_ops.rsqrt(per_channel(variance) + epsilon)
        dx = dy * per_channel(scale) * inv
        dscale = channel_sum(dy * (x - per_channel(mean)) * inv)
    doffset = channel_sum(dy)
    if dx.dtype.base_dtype != x_dtype:
        dx = cast_ops.cast(dx, x_dtype)
    return dx, dscale, doffset


def _fused_batch_norm_grad_grad(op, *grads):
    """Gradients of (y_backprop, x, scale) for FusedBatchNormGrad*; none for the statistics."""
    from tideflow.ops import gradients as gradients_lib

    dy, x, scale, mean, variance = op.inputs[:5]
    weights = list(grads[:3])
    data_format = op.get_attr("data_format")
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    ys = _backward_pass(dy, x, scale, mean, variance, op.get_attr("epsilon"), data_format,
                        op.get_attr("is_training"))
    keep = [i for i, w in enumerate(weights) if w is not None]
    if not keep:
        return [None] * len(op.inputs)
    d_dy, d_x, d_scale = gradients_lib.gradients(
        [ys[i] for i in keep], [dy, x, scale], grad_ys=[weights[i] for i in keep],
        stop_gradients=[dy, x, scale])  # partial derivatives: y_backprop depends on x too
    return [d_dy, d_x, d_scale] + [None] * (len(op.inputs) - 3)


for _op_type in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    if not op_registry.has_gradient_entry(_op_type):
        op_registry.register_gradient(_op_type, _fused_batch_norm_grad_grad)
