"""The normalizing-flow bijectors of ``tf.contrib.distributions.bijectors`` (TF 1.15):
``MaskedAutoregressiveFlow`` with ``masked_dense`` and ``masked_autoregressive_default_template``,
and ``RealNVP`` with ``real_nvp_default_template``."""

import numpy as np

import tideflow as tf
from tideflow.distributions.bijector import Bijector

__all__ = ["MaskedAutoregressiveFlow", "RealNVP", "masked_autoregressive_default_template",
           "masked_dense", "real_nvp_default_template"]


def _affine(x, shift, log_scale):
    y = x
    if log_scale is not None:
        y = y * tf.exp(log_scale)
    if shift is not None:
        y = y + shift
    return y


class MaskedAutoregressiveFlow(Bijector):
    """The autoregressive affine flow ``y_i = x_i * exp(log_scale_i(y_<i)) + shift_i(y_<i)``
    (``shift_and_log_scale_fn`` must be autoregressive, e.g.
    ``masked_autoregressive_default_template``): the forward pass takes one step per event
    element, the inverse one call."""

    def __init__(self, shift_and_log_scale_fn, is_constant_jacobian=False, validate_args=False,
                 unroll_loop=False, event_ndims=1, name=None):
        self._fn = shift_and_log_scale_fn
        self._unroll_loop = unroll_loop
        self._event_ndims = event_ndims
        super().__init__(forward_min_event_ndims=event_ndims,
                         is_constant_jacobian=is_constant_jacobian,
                         validate_args=validate_args,
                         name=name or "masked_autoregressive_flow")

    def _forward(self, x):
        if self._unroll_loop:
            event_size = x.get_shape().with_rank_at_least(1)[-1].value
            if event_size is None:
                raise ValueError(f"The final dimension of `x` must be known at graph "
                                 f"construction time if `unroll_loop=True`. `x.shape`: "
                                 f"{x.get_shape()!r}")
            y = tf.zeros_like(x, name="y0")
            for _ in range(event_size):
                y = _affine(x, *self._fn(y))
            return y
        # TF 1.15's order: the event size, then the template's first call (creating its
        # variables outside the loop)
        event_size = tf.shape(x)[-1]
        static_size = x.get_shape().with_rank_at_least(1)[-1].value
        y0 = tf.zeros_like(x, name="y0")
        self._fn(y0)

        def body(index, y):
            return index + 1, _affine(x, *self._fn(y))

        _, y = tf.while_loop(lambda index, _: index < event_size, body, (0, y0),
                             maximum_iterations=static_size)
        return y

    def _inverse(self, y):
        shift, log_scale = self._fn(y)
        x = y
        if shift is not None:
            x = x - shift
        if log_scale is not None:
            x = x * tf.exp(-log_scale)
        return x

    def _inverse_log_det_jacobian(self, y):
        _, log_scale = self._fn(y)
        if log_scale is None:
            return tf.constant(0.0, dtype=y.dtype, name="ildj")
        return -tf.reduce_sum(log_scale, list(range(-self._event_ndims, 0)))


def _mask(num_blocks, n_in, n_out, exclusive):
    """The ``[n_out, n_in]`` autoregressive connectivity: block ``b`` of outputs sees input
    blocks ``< b`` (exclusive) or ``<= b``."""
    mask = np.zeros([n_out, n_in], np.float32)
    d_in, d_out = n_in // num_blocks, n_out // num_blocks
    row = d_out if exclusive else 0
    for b in range(num_blocks):
        mask[row:, b * d_in:(b + 1) * d_in] = 1
        row += d_out
    return mask


def masked_dense(inputs, units, num_blocks=None, exclusive=False, kernel_initializer=None,
                 reuse=None, name=None, *args, **kwargs):
    """A dense layer whose kernel is masked (at initialization and by a constraint) so that
    output block ``b`` depends only on input blocks before (``exclusive``) or up to ``b``."""
    input_depth = inputs.get_shape().with_rank_at_least(1)[-1].value
    if input_depth is None:
        raise NotImplementedError("Rightmost dimension must be known prior to graph execution.")
    mask = _mask(num_blocks or input_depth, input_depth, units, exclusive).T
    if kernel_initializer is None:
        kernel_initializer = tf.glorot_normal_initializer()

    def masked_initializer(shape, dtype=None, partition_info=None):
        return mask * kernel_initializer(shape, dtype, partition_info)

    with tf.name_scope(name, "masked_dense", [inputs, units, num_blocks]):
        layer = tf.layers.Dense(units, *args, kernel_initializer=masked_initializer,
                                kernel_constraint=lambda x: mask * x, name=name,
                                dtype=inputs.dtype.base_dtype, _scope=name, _reuse=reuse,
                                **kwargs)
        return layer.apply(inputs)


def _clip_preserving_grad(x, low, high):
    """``clip_by_value`` whose gradient is the identity's (under TF's scope name)."""
    with tf.name_scope(None, "clip_by_value_preserve_grad", [x, low, high]):
        return x + tf.stop_gradient(tf.clip_by_value(x, low, high) - x)


def masked_autoregressive_default_template(hidden_layers, shift_only=False,
                                           activation=tf.nn.relu, log_scale_min_clip=-5.0,
                                           log_scale_max_clip=3.0,
                                           log_scale_clip_gradient=False, name=None, *args,
                                           **kwargs):
    """The MADE network of ``hidden_layers`` masked dense layers giving ``(shift, log_scale)``
    (``log_scale`` clipped to the given range; None with ``shift_only``), as a template."""
    name = name or "masked_autoregressive_default_template"
    with tf.name_scope(name, values=[log_scale_min_clip, log_scale_max_clip]):

        def fn(x):
            input_depth = x.get_shape().with_rank_at_least(1)[-1].value
            if input_depth is None:
                raise NotImplementedError("Rightmost dimension must be known prior to graph "
                                          "execution.")
            input_shape = (np.int32(x.get_shape().as_list()) if x.get_shape().is_fully_defined()
                           else tf.shape(x))
            if x.get_shape().ndims == 1:
                x = x[tf.newaxis, ...]
            # (num_blocks, exclusive, kernel_initializer, reuse, name) by position, so that
            # extra positional args reach the Dense layers as in TF
            for i, units in enumerate(hidden_layers):
                x = masked_dense(x, units, input_depth, i == 0, None, None, None, *args,
                                 activation=activation, **kwargs)
            x = masked_dense(x, (1 if shift_only else 2) * input_depth, input_depth, False,
                             None, None, None, *args, activation=None, **kwargs)
            if shift_only:
                return tf.reshape(x, input_shape), None
            x = tf.reshape(x, tf.concat([input_shape, [2]], 0))
            shift, log_scale = tf.unstack(x, num=2, axis=-1)
            clip = tf.clip_by_value if log_scale_clip_gradient else _clip_preserving_grad
            return shift, clip(log_scale, log_scale_min_clip, log_scale_max_clip)

        return tf.make_template(name, fn)


class RealNVP(Bijector):
    """The affine coupling layer: the first ``num_masked`` event entries pass unchanged and
    condition ``(shift, log_scale) = shift_and_log_scale_fn(x[:num_masked], d - num_masked)``
    applied to the rest."""

    def __init__(self, num_masked, shift_and_log_scale_fn, is_constant_jacobian=False,
                 validate_args=False, name=None):
        if num_masked <= 0:
            raise ValueError(f"num_masked must be a positive integer, got {num_masked}")
        self._num_masked = num_masked
        self._input_depth = None
        self._fn = shift_and_log_scale_fn
        super().__init__(forward_min_event_ndims=1, is_constant_jacobian=is_constant_jacobian,
                         validate_args=validate_args, name=name or "real_nvp")

    def _check_depth(self, x):
        depth = x.get_shape().with_rank_at_least(1)[-1].value
        if depth is None:
            raise NotImplementedError("Rightmost dimension must be known prior to graph "
                                      "execution.")
        if self._num_masked >= depth:
            raise ValueError("Number of masked units must be smaller than the event size.")
        self._input_depth = depth
        return depth

    def _forward(self, x):
        depth = self._check_depth(x)
        x0, x1 = x[..., :self._num_masked], x[..., self._num_masked:]
        shift, log_scale = self._fn(x0, depth - self._num_masked)
        return tf.concat([x0, _affine(x1, shift, log_scale)], -1)

    def _inverse(self, y):
        depth = self._check_depth(y)
        y0, y1 = y[..., :self._num_masked], y[..., self._num_masked:]
        shift, log_scale = self._fn(y0, depth - self._num_masked)
        x1 = y1
        if shift is not None:
            x1 = x1 - shift
        if log_scale is not None:
            x1 = x1 * tf.exp(-log_scale)
        return tf.concat([y0, x1], -1)

    def _log_scale_sum(self, x, sign):
        depth = self._check_depth(x)
        _, log_scale = self._fn(x[..., :self._num_masked], depth - self._num_masked)
        if log_scale is None:
            return tf.constant(0.0, dtype=x.dtype)
        return sign * tf.reduce_sum(log_scale, -1)

    def _forward_log_det_jacobian(self, x):
        return self._log_scale_sum(x, 1.0)

    def _inverse_log_det_jacobian(self, y):
        return self._log_scale_sum(y, -1.0)


def real_nvp_default_template(hidden_layers, shift_only=False, activation=tf.nn.relu,
                              name=None, *args, **kwargs):
    """A dense network of ``hidden_layers`` giving ``(shift, log_scale)`` for ``RealNVP``
    (``log_scale`` None with ``shift_only``), as a template."""
    with tf.name_scope(name, "real_nvp_default_template"):

        def fn(x, output_units, **condition_kwargs):
            if condition_kwargs:
                raise NotImplementedError("Conditioning not implemented in the default "
                                          "template.")
            if x.get_shape().ndims == 1:
                x = x[tf.newaxis, ...]

                def reshape_output(t):
                    return t[0]
            else:
                def reshape_output(t):
                    return t
            for units in hidden_layers:
                x = tf.layers.dense(x, units, *args, activation=activation, **kwargs)
            x = tf.layers.dense(x, (1 if shift_only else 2) * output_units, *args,
                                activation=None, **kwargs)
            if shift_only:
                return reshape_output(x), None
            shift, log_scale = tf.split(x, 2, axis=-1)
            return reshape_output(shift), reshape_output(log_scale)

        return tf.make_template("real_nvp_default_template", fn)
