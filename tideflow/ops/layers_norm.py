"""``tf.layers.BatchNormalization`` and ``batch_normalization``: variables ``gamma``, ``beta``,
``moving_mean`` and ``moving_variance``; in training, batch statistics normalize and update ops
(in ``GraphKeys.UPDATE_OPS``) move the moving statistics, which inference uses.

As in TF 1.x, 4-D inputs normalized over channels take the fused path (``fused_batch_norm``),
whose moving variance follows the unbiased batch variance; the other path uses the biased one.
"""

from tideflow.framework import dtypes, ops
from tideflow.ops import array_ops, cast_ops, constant_op, init_ops, state_ops
from tideflow.ops.layers_base import InputSpec, Layer, input_shape_of, smart_cond, static_bool


def _nn():
    # tf.nn is filled by the nn op modules; import late so this module loads without them
    from tideflow import nn

    return nn


# the default initializers of the signatures (one shared instance each, as in TF)
_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()


class BatchNormalization(Layer):
    """Normalizes inputs over all axes but ``axis`` (the features), then scales by ``gamma``
    and shifts by ``beta``. Call with ``training=`` a Python bool or a bool tensor."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=_ZEROS,
                 gamma_initializer=_ONES,
                 moving_mean_initializer=_ZEROS,
                 moving_variance_initializer=_ONES,
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                 fused=None, trainable=True, virtual_batch_size=None, adjustment=None, name=None,
                 **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        if renorm:
            raise NotImplementedError("BatchNormalization(renorm=True) is not supported yet.")
        if virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError(
                "BatchNormalization(virtual_batch_size=..., adjustment=...) is not supported yet.")
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.fused = fused
        self.gamma = None
        self.beta = None

    def build(self, input_shape):
        input_shape = input_shape_of(input_shape)
        if not input_shape.ndims:
            raise ValueError(f"Input has undefined rank: {input_shape}")
        ndims = input_shape.ndims
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = [a + ndims if a < 0 else a for a in axes]
        for a in axes:
            if a < 0 or a >= ndims:
                raise ValueError(f"Invalid axis: {a}")
        if len(axes) != len(set(axes)):
            raise ValueError(f"Duplicate axis: {axes}")
        self.axis = axes
        if self.fused in (None, True):
            self.fused = ndims == 4 and axes in ([1], [3])
        self._data_format = "NCHW" if axes == [1] else "NHWC"
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in axes}
        if any(d is None for d in axis_to_dim.values()):
            raise ValueError(f"Input has undefined `axis` dimension. Input shape: {input_shape}")
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)
        if len(axes) == 1:
            param_shape = [axis_to_dim[axes[0]]]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
        self._param_shape = param_shape
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        self._param_dtype = dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype
        if self.scale:
            self.gamma = self.add_weight(
                "gamma", shape=param_shape, dtype=self._param_dtype,
                initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint, trainable=True)
        if self.center:
            self.beta = self.add_weight(
                "beta", shape=param_shape, dtype=self._param_dtype,
                initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                constraint=self.beta_constraint, trainable=True)
        self.moving_mean = self.add_weight(
            "moving_mean", shape=param_shape, dtype=self._param_dtype,
            initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(
            "moving_variance", shape=param_shape, dtype=self._param_dtype,
            initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _assign_moving_average(self, variable, value, momentum):
        with (ops.name_scope(None, "AssignMovingAvg", [variable, value, momentum]) as scope,
              ops.colocate_with(variable.op)):
            base = variable.dtype.base_dtype
            decay = ops.convert_to_tensor(1.0 - momentum, name="decay")
            if decay.dtype != base:
                decay = cast_ops.cast(decay, base)
            delta = (variable - cast_ops.cast(value, base)) * decay
            return state_ops.assign_sub(variable, delta, name=scope)

    def _fused_batch_norm(self, inputs, training, training_value):
        nn = _nn()
        gamma = self.gamma if self.scale else constant_op.constant(
            1.0, dtype=self._param_dtype, shape=self._param_shape)
        beta = self.beta if self.center else constant_op.constant(
            0.0, dtype=self._param_dtype, shape=self._param_shape)

        def train():
            return nn.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon,
                                       data_format=self._data_format)

        def infer():
            return nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                       variance=self.moving_variance, epsilon=self.epsilon,
                                       is_training=False, data_format=self._data_format)

        output, mean, variance = smart_cond(training, train, infer)
        if training_value is None:
            # a momentum of 1 leaves the moving statistics unchanged when not training
            momentum = smart_cond(training, lambda: self.momentum, lambda: 1.0)
        else:
            momentum = ops.convert_to_tensor(self.momentum)
        if training_value is not False:
            self.add_update(self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(self._assign_moving_average(self.moving_variance, variance,
                                                        momentum))
        return output

    def call(self, inputs, training=False):
        if training is None:  # TF reads the (default False) learning phase
            training = False
        training_value = static_bool(training)
        if self.fused:
            return self._fused_batch_norm(inputs, training, training_value)
        input_shape = inputs.get_shape()
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v):
            # only a single feature axis that is not the last needs the reshape
            if (v is not None and v.get_shape().ndims != ndims
                    and reduction_axes != list(range(ndims - 1))):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = _nn().moments(
                cast_ops.cast(inputs, self._param_dtype), reduction_axes,
                keep_dims=len(self.axis) > 1)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = smart_cond(training, lambda: batch_mean,
                              lambda: ops.convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: batch_variance,
                                  lambda: ops.convert_to_tensor(moving_variance))
            # with a dynamic `training` that is false, mean and variance are the moving ones,
            # so these updates change nothing
            self.add_update(self._assign_moving_average(moving_mean, mean, self.momentum))
            self.add_update(self._assign_moving_average(moving_variance, variance,
                                                        self.momentum))
        dtype = inputs.dtype.base_dtype
        mean = cast_ops.cast(mean, dtype)
        variance = cast_ops.cast(variance, dtype)
        if offset is not None:
            offset = cast_ops.cast(offset, dtype)
        if scale is not None:
            scale = cast_ops.cast(scale, dtype)
        outputs = _nn().batch_normalization(inputs, broadcast(mean), broadcast(variance), offset,
                                            scale, self.epsilon)
        outputs.set_shape(input_shape)
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape_of(input_shape)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=_ZEROS,
                        gamma_initializer=_ONES,
                        moving_mean_initializer=_ZEROS,
                        moving_variance_initializer=_ONES,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """Batch normalization of ``inputs`` (see ``BatchNormalization``). In training, run the ops
    of ``tf.get_collection(tf.GraphKeys.UPDATE_OPS)`` with the train op to move the moving
    statistics."""
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
        name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)
