"""``tf.layers.BatchNormalization`` and ``batch_normalization``: variables ``gamma``, ``beta``,
``moving_mean`` and ``moving_variance``; in training, batch statistics normalize and update ops
(in ``GraphKeys.UPDATE_OPS``) move the moving statistics, which inference uses.

As in TF 1.x, 4-D inputs normalized over channels take the fused path (``fused_batch_norm``),
whose moving variance follows the unbiased batch variance; the other path uses the biased one.
"""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    constant_op,
    init_ops,
    math_ops,
    reduction_ops,
    state_ops,
    variables,
)
from tideflow.ops.layers_base import InputSpec, Layer, input_shape_of, smart_cond, static_bool


def _nn():
    # tf.nn is filled by the nn op modules; import late so this module loads without them
    from tideflow import nn

    return nn


# the default initializers of the signatures (one shared instance each, as in TF)
_ZEROS = init_ops.zeros_initializer()
_ONES = init_ops.ones_initializer()



def check_batch_norm_args(renorm_clipping, virtual_batch_size, adjustment):
    """TF's argument checks shared by tf.layers' and Keras' BatchNormalization."""
    if renorm_clipping is not None and not set(renorm_clipping) <= {"rmax", "rmin", "dmax"}:
        raise ValueError(f"renorm_clipping {renorm_clipping} contains keys not in "
                         f"{['rmax', 'rmin', 'dmax']}")
    if virtual_batch_size is not None and virtual_batch_size <= 0:
        raise ValueError("virtual_batch_size must be a positive integer that divides the "
                         "true batch size of the input Tensor")
    if virtual_batch_size is not None and adjustment is not None:
        raise ValueError("When using virtual_batch_size, adjustment cannot be specified")

class BatchNormalization(Layer):
    """Normalizes inputs over all axes but ``axis`` (the features), then scales by ``gamma``
    and shifts by ``beta``. Call with ``training=`` a Python bool or a bool tensor."""

    supports_masking = True

    # TF's switch (set False by TF's own tests): with it off, the fused layer's moving variance
    # follows the biased batch variance as the non-fused one does; on, the unbiased one
    _bessels_correction_test_only = True

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
        check_batch_norm_args(renorm_clipping, virtual_batch_size, adjustment)
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
        self.renorm_clipping = dict(renorm_clipping or {})
        self.renorm_momentum = renorm_momentum
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        if fused and (renorm or virtual_batch_size is not None or adjustment is not None):
            raise ValueError("fused batch normalization does not support renorm, "
                             "virtual_batch_size or adjustment")
        self.fused = fused
        self.gamma = None
        self.beta = None

    def build(self, input_shape):
        input_shape = input_shape_of(input_shape)
        if not input_shape.ndims:
            raise ValueError("Input has undefined rank:", input_shape)  # (TF's two args)
        ndims = input_shape.ndims
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = [a + ndims if a < 0 else a for a in axes]
        for a in axes:
            if a < 0 or a >= ndims:
                raise ValueError(f"Invalid axis: {a}")
        if len(axes) != len(set(axes)):
            raise ValueError(f"Duplicate axis: {axes}")
        if self.virtual_batch_size is not None and 0 in axes:
            raise ValueError("When using virtual_batch_size, the batch dimension must be 0 and "
                             "thus axis cannot include 0")
        self.axis = axes
        if self.fused in (None, True):
            self.fused = (ndims == 4 and axes in ([1], [3]) and not self.renorm
                          and self.virtual_batch_size is None and self.adjustment is None)
        self._data_format = "NCHW" if axes == [1] else "NHWC"
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in axes}
        if any(d is None for d in axis_to_dim.values()):
            raise ValueError("Input has undefined `axis` dimension. Input shape: ", input_shape)
        self.input_spec = InputSpec(ndim=ndims, axes=axis_to_dim)
        if len(axes) == 1 and self.virtual_batch_size is None:
            param_shape = [axis_to_dim[axes[0]]]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(ndims)]
            if self.virtual_batch_size is not None:
                # the inputs gain a virtual-batch axis at 1 (see call)
                param_shape.insert(1, 1)
                self.axis = [a + 1 for a in axes]
        self._param_shape = param_shape
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        self._param_dtype = dtypes.float32 if dtype in (dtypes.float16, dtypes.bfloat16) else dtype
        self._build_weights(param_shape)
        self.built = True

    def _build_weights(self, param_shape):
        # without gamma (beta), the fused kernel's ones (zeros) are made here, as TF 1.15's
        # build makes them (its op count)
        self._gamma_const = self._beta_const = None
        if self.scale:
            self.gamma = self.add_weight(
                "gamma", shape=param_shape, dtype=self._param_dtype,
                initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                constraint=self.gamma_constraint, trainable=True)
        elif self.fused:
            self._gamma_const = constant_op.constant(1.0, dtype=self._param_dtype,
                                                     shape=param_shape)
        if self.center:
            self.beta = self.add_weight(
                "beta", shape=param_shape, dtype=self._param_dtype,
                initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                constraint=self.beta_constraint, trainable=True)
        elif self.fused:
            self._beta_const = constant_op.constant(0.0, dtype=self._param_dtype,
                                                    shape=param_shape)
        # as TF 1.15, the statistics are never partitioned, even under a scope with a
        # partitioner (canned DNN estimators build under one); gamma and beta are
        scope = getattr(self, "_scope", None)
        partitioner = scope.partitioner if scope is not None else None
        if partitioner is not None:
            scope.set_partitioner(None)
        try:
            self._build_statistics(param_shape)
        finally:
            if partitioner is not None:
                scope.set_partitioner(partitioner)

    def _build_statistics(self, param_shape):
        # as TF 1.15: every statistic is synchronized on read and averaged across replicas
        # (a meta graph's VariableDef carries ON_READ and MEAN)
        on_read = {"synchronization": variables.VariableSynchronization.ON_READ,
                   "aggregation": variables.VariableAggregation.MEAN}
        self.moving_mean = self.add_weight(
            "moving_mean", shape=param_shape, dtype=self._param_dtype,
            initializer=self.moving_mean_initializer, trainable=False, **on_read)
        self.moving_variance = self.add_weight(
            "moving_variance", shape=param_shape, dtype=self._param_dtype,
            initializer=self.moving_variance_initializer, trainable=False, **on_read)
        if self.renorm:
            # renorm tracks the inference statistics as a moving stddev, and the batch
            # statistics' own moving averages in renorm_mean / renorm_stddev
            variance_init = self.moving_variance_initializer

            def stddev_initializer(*args, **kwargs):
                return math_ops.sqrt(variance_init(*args, **kwargs))

            self.moving_stddev = self.add_weight(
                "moving_stddev", shape=param_shape, dtype=self._param_dtype,
                initializer=stddev_initializer, trainable=False, **on_read)
            self.renorm_mean = self.add_weight(
                "renorm_mean", shape=param_shape, dtype=self._param_dtype,
                initializer=self.moving_mean_initializer, trainable=False, **on_read)
            self.renorm_stddev = self.add_weight(
                "renorm_stddev", shape=param_shape, dtype=self._param_dtype,
                initializer=stddev_initializer, trainable=False, **on_read)

    def _assign_moving_average(self, variable, value, momentum, in_tf_cond=False):
        """``variable -= (variable - value) * (1 - momentum)``; ``in_tf_cond``: TF 1.15 makes
        it inside a cond of 13 ops (its Switch, switch_t, switch_f and pred_id first; these 4
        ops; the Switches of the 3 tensors it takes; the false branch's Switch and the Merge),
        whose other ids are skipped for TF's op count after the layer. The update is then the
        cond's ``Merge`` (an Identity of that name here), as TF's UPDATE_OPS show it."""
        if not in_tf_cond:
            return BatchNormalization._moving_average_update(variable, value, momentum)
        g = ops.get_default_graph()
        g._skip_op_ids(4)
        with ops.name_scope(None, "cond"):
            update = BatchNormalization._moving_average_update(variable, value, momentum)
            g._skip_op_ids(4)
            return array_ops.identity(update, name="Merge")

    @staticmethod
    def _moving_average_update(variable, value, momentum):
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
        g = ops.get_default_graph()

        def const(made, value):
            if made is not None and made.graph is g:
                return made
            return constant_op.constant(value, dtype=self._param_dtype, shape=self._param_shape)

        gamma = self.gamma if self.scale else const(self.__dict__.get("_gamma_const"), 1.0)
        beta = self.beta if self.center else const(self.__dict__.get("_beta_const"), 0.0)

        def train():
            return nn.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon,
                                       data_format=self._data_format)

        def infer():
            return nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                       variance=self.moving_variance, epsilon=self.epsilon,
                                       is_training=False, data_format=self._data_format)

        output, mean, variance = smart_cond(training, train, infer)
        if not self._bessels_correction_test_only:
            # as TF: the fused kernel's batch variance is unbiased; the moving variance then
            # follows the biased one, as the non-fused layer's does
            n = cast_ops.cast(array_ops.size(inputs) / array_ops.size(variance), variance.dtype)
            variance = variance * ((n - cast_ops.cast(1.0, variance.dtype)) / n)
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
        original_shape = None
        if self.virtual_batch_size is not None:
            # ghost batches: [batch, ...] -> [virtual_batch_size, batch / vbs, ...]
            original_shape = [-1] + inputs.get_shape().as_list()[1:]
            inputs = array_ops.reshape(
                inputs, [self.virtual_batch_size, -1] + original_shape[1:])
        input_shape = inputs.get_shape()
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        if self.virtual_batch_size is not None:
            del reduction_axes[1]  # statistics per virtual batch
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v):
            # only a single feature axis that is not the last needs the reshape
            if (v is not None and v.get_shape().ndims != ndims
                    and reduction_axes != list(range(ndims - 1))):
                return array_ops.reshape(v, broadcast_shape)
            return v

        def compose(scale, offset, then_scale, then_offset):
            # x * scale + offset, then * then_scale + then_offset
            if then_scale is not None:
                scale = scale * then_scale
                offset = offset * then_scale
            if then_offset is not None:
                offset = offset + then_offset
            return scale, offset

        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            if self.adjustment:
                adj_scale, adj_bias = self.adjustment(array_ops.shape(inputs))
                adj_scale = smart_cond(training, lambda: adj_scale,
                                       lambda: array_ops.ones_like(adj_scale))
                adj_bias = smart_cond(training, lambda: adj_bias,
                                      lambda: array_ops.zeros_like(adj_bias))
                scale, offset = compose(adj_scale, adj_bias, scale, offset)
            keep_dims = self.virtual_batch_size is not None or len(self.axis) > 1
            batch_mean, batch_variance = _nn().moments(
                cast_ops.cast(inputs, self._param_dtype), reduction_axes, keep_dims=keep_dims)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = smart_cond(training, lambda: batch_mean,
                              lambda: ops.convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: batch_variance,
                                  lambda: ops.convert_to_tensor(moving_variance))
            if self.virtual_batch_size is not None:
                # one update from the mean of the virtual batches' statistics (as TF)
                new_mean = reduction_ops.reduce_mean(mean, axis=1, keepdims=True)
                new_variance = reduction_ops.reduce_mean(variance, axis=1, keepdims=True)
            else:
                new_mean, new_variance = mean, variance
            if self.renorm:
                r, d, new_mean, new_variance = self._renorm_correction_and_moments(
                    new_mean, new_variance, training)
                r = broadcast(array_ops.stop_gradient(r, name="renorm_r"))
                d = broadcast(array_ops.stop_gradient(d, name="renorm_d"))
                scale, offset = compose(r, d, scale, offset)
            # with a dynamic `training` that is false, mean and variance are the moving ones,
            # so these updates change nothing (TF 1.15 makes each inside a cond)
            if self.renorm:
                # as TF 1.15: each update in a cond of its own (names and op ids as TF's)
                self.add_update(smart_cond(
                    training,
                    lambda: self._assign_moving_average(moving_mean, new_mean, self.momentum),
                    lambda: moving_mean))
                self.add_update(smart_cond(
                    training, lambda: self._renorm_variance_update(new_variance),
                    lambda: moving_variance))
            else:
                dynamic = training_value is None
                self.add_update(self._assign_moving_average(
                    moving_mean, new_mean, self.momentum, in_tf_cond=dynamic))
                self.add_update(self._assign_moving_average(
                    moving_variance, new_variance, self.momentum, in_tf_cond=dynamic))
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
        if original_shape is not None:
            outputs = array_ops.reshape(outputs, original_shape)
        return outputs

    def _renorm_variance_update(self, new_variance):
        """The moving stddev moved towards the batch's (epsilon included, as in training), the
        moving variance set from it (a relu keeps rounding from making it negative)."""
        stddev = self._assign_moving_average(
            self.moving_stddev, math_ops.sqrt(new_variance + self.epsilon), self.momentum)
        update = getattr(stddev, "_update_op", None)
        if update is None:
            square = stddev * stddev
        else:
            # a resource variable's update gives TF 1.15 an unread variable, read afresh
            # (after the update) by each operand of the square: "ReadVariableOp", then
            # "mul_N/ReadVariableOp" inside the Mul's scope
            with ops.control_dependencies([update]):
                first = self.moving_stddev.value()
            with ops.name_scope(None, "mul") as scope:
                with ops.control_dependencies([update]):
                    second = self.moving_stddev.value()
                square = math_ops.multiply(first, second, name=scope)
        # as TF 1.15: the new value is made in the layer's scope (mul, sub, Relu), only the
        # Assign in AssignNewValue
        value = _nn().relu(square - self.epsilon)
        with ops.name_scope(None, "AssignNewValue") as scope, \
                ops.colocate_with(self.moving_variance.op):
            return state_ops.assign(self.moving_variance, value, name=scope)

    def _renorm_correction_and_moments(self, mean, variance, training):
        """Batch renormalization's corrections ``r`` and ``d`` from the pre-update renorm
        averages (a stddev of at least sqrt(epsilon) early on), which are then moved towards
        the batch's mean and stddev."""
        stddev = math_ops.sqrt(variance + self.epsilon)
        renorm_stddev = math_ops.maximum(self.renorm_stddev, math_ops.sqrt(self.epsilon))
        r = stddev / renorm_stddev
        d = (mean - self.renorm_mean) / renorm_stddev
        with ops.control_dependencies([r, d]):
            mean = array_ops.identity(mean)
            stddev = array_ops.identity(stddev)
        rmin, rmax, dmax = (self.renorm_clipping.get(k) for k in ("rmin", "rmax", "dmax"))
        if rmin is not None:
            r = math_ops.maximum(r, rmin)
        if rmax is not None:
            r = math_ops.minimum(r, rmax)
        if dmax is not None:
            d = math_ops.maximum(d, -dmax)
            d = math_ops.minimum(d, dmax)
        r = smart_cond(training, lambda: r, lambda: array_ops.ones_like(r))
        d = smart_cond(training, lambda: d, lambda: array_ops.zeros_like(d))

        def update(var, value):
            value = array_ops.identity(value)
            return smart_cond(
                training,
                lambda: self._assign_moving_average(var, value, self.renorm_momentum),
                lambda: array_ops.identity(var))

        new_mean = update(self.renorm_mean, mean)
        new_stddev = update(self.renorm_stddev, stddev)
        with ops.control_dependencies([new_mean, new_stddev]):
            out_mean = array_ops.identity(mean)
            out_variance = array_ops.identity(variance)
        return r, d, out_mean, out_variance

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
