"""BatchNormalization, LayerNormalization, Embedding and the merge layers (Add, Subtract,
Multiply, Average, Maximum, Minimum, Concatenate, Dot) with their functional forms."""

import tideflow as tf
from tideflow.distribute.replica import has_strategy
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import backend as K
from tideflow.keras import constraints, initializers, regularizers
from tideflow.keras.engine.base_layer import InputSpec, Layer
from tideflow.keras.layers.core import _ser, _ser_attrs, training_flag
from tideflow.ops.layers_base import smart_cond, static_bool


class BatchNormalization(Layer):
    """Normalizes over all axes but ``axis`` with batch statistics in training (then updates
    ``moving_mean``/``moving_variance``: ``moving = moving * momentum + batch * (1 -
    momentum)``, run by ``fit``) and with the moving statistics in inference. Weights:
    ``gamma``, ``beta``, ``moving_mean``, ``moving_variance``."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, trainable=True, virtual_batch_size=None,
                 adjustment=None, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        from tideflow.ops.layers_norm import check_batch_norm_args

        check_batch_norm_args(renorm_clipping, virtual_batch_size, adjustment)
        if fused and (renorm or virtual_batch_size is not None or adjustment is not None):
            raise ValueError("fused batch normalization does not support renorm, "
                             "virtual_batch_size or adjustment")
        self.renorm = renorm
        self.renorm_clipping = dict(renorm_clipping or {})
        self.renorm_momentum = renorm_momentum
        self.virtual_batch_size = virtual_batch_size
        self.adjustment = adjustment
        # batch renormalization, ghost batches and adjustment run tf.layers' algorithm
        # (the one TF 1.x shares between both classes) on this layer's own weights
        self._general = bool(renorm) or virtual_batch_size is not None or \
            adjustment is not None
        self.fused = False if self._general else fused
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        # the axis as given (ghost batches shift self.axis by one when built)
        self._given_axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def _build_weights(self, param_shape):
        # (the general path builds with tf.layers' algorithm, which makes its weights here)
        _tf_layers_bn()._build_weights(self, param_shape)

    def _build_statistics(self, param_shape):
        _tf_layers_bn()._build_statistics(self, param_shape)

    def build(self, input_shape):
        if self._general:
            _tf_layers_bn().build(self, input_shape)
            self.input_spec = InputSpec(ndim=self.input_spec.ndim, axes=self.input_spec.axes)
            return
        dims = TensorShape(input_shape).as_list()
        rank = len(dims)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(f"Invalid axis: {a}")
        axes = [a % rank for a in axes]
        if len(axes) != len(set(axes)):
            raise ValueError(f"Duplicate axis: {axes}")
        for a in axes:
            if dims[a] is None:
                raise ValueError(f"Axis {a} of input tensor should have a defined dimension "
                                 f"but the layer received an input with shape {dims}.")
        self._axes = axes
        self.axis = list(axes)  # as TF's build: a list of non-negative axes from now on
        # TF 1.15's: one axis gives [channels]; several keep the input's rank (1 elsewhere)
        param_shape = ([dims[axes[0]]] if len(axes) == 1
                       else [dims[i] if i in axes else 1 for i in range(rank)])
        self.input_spec = InputSpec(ndim=rank, axes={a: dims[a] for a in axes})
        if not self.scale and self._uses_fused(rank):
            self._gamma_const = K.constant(1.0, shape=param_shape)
        self.gamma = self.add_weight("gamma", shape=param_shape,
                                     initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight("beta", shape=param_shape,
                                    initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        if not self.center and self._uses_fused(rank):
            self._beta_const = K.constant(0.0, shape=param_shape)
        # as TF: under a tf.distribute strategy each replica keeps its own statistics and
        # a read is their mean
        on_read = {"synchronization": tf.VariableSynchronization.ON_READ,
                   "aggregation": tf.VariableAggregation.MEAN}
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False, **on_read)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False, **on_read)
        self.built = True

    def _assign_moving_average(self, variable, value, momentum, in_tf_cond=False):
        if self._general:
            return _tf_layers_bn()._assign_moving_average(self, variable, value, momentum,
                                                          in_tf_cond)
        # as TF 1.15's Keras: variable -= (variable - value) * (1 - momentum)
        with K.name_scope("AssignMovingAvg") as scope:
            decay = tf.convert_to_tensor(1.0 - momentum, name="decay")
            if decay.dtype != variable.dtype.base_dtype:
                decay = tf.cast(decay, variable.dtype.base_dtype)
            delta = (variable - tf.cast(value, variable.dtype)) * decay
            if variable.dtype._is_ref_dtype:
                return tf.assign_sub(variable, delta, name=scope)
            return variable.assign_sub(delta)  # (as TF's state_ops.assign_sub on a resource)

    def _renorm_correction_and_moments(self, mean, variance, training):
        return _tf_layers_bn()._renorm_correction_and_moments(self, mean, variance, training)

    def _renorm_variance_update(self, new_variance):
        return _tf_layers_bn()._renorm_variance_update(self, new_variance)

    def _uses_fused(self, rank):
        """TF 1.15's choice: the fused kernel for 4-D inputs normalized over axis 1 or 3
        (unless ``fused=False``)."""
        return self.fused is not False and rank == 4 and self._axes in ([1], [3])

    def _fused_call(self, inputs, training):
        # as TF 1.15's: FusedBatchNormV3 in both branches of the learning-phase cond, then the
        # moving averages with momentum 1.0 (no change) in inference; the moving variance
        # follows the kernel's unbiased batch variance
        gamma = self.gamma if self.scale else self._gamma_const
        beta = self.beta if self.center else self._beta_const
        fmt = "NCHW" if self._axes == [1] else "NHWC"

        def training_fn():
            return tf.nn.fused_batch_norm(inputs, gamma, beta, epsilon=self.epsilon,
                                          data_format=fmt)

        def inference_fn():
            return tf.nn.fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean,
                                          variance=self.moving_variance, epsilon=self.epsilon,
                                          is_training=False, data_format=fmt)

        output, mean, variance = smart_cond(training, training_fn, inference_fn)
        value = static_bool(training)
        if value is None:
            momentum = smart_cond(training, lambda: self.momentum, lambda: 1.0)
        else:
            momentum = tf.convert_to_tensor(self.momentum)
        if value is None or value:
            self.add_update(self._assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(self._assign_moving_average(self.moving_variance, variance,
                                                        momentum))
        return output

    def call(self, inputs, training=None):
        training = training_flag(training)
        if self._general:
            return _tf_layers_bn().call(self, inputs, training=training)
        rank = inputs.get_shape().ndims
        if self._uses_fused(rank):
            return self._fused_call(inputs, training)
        reduction = [i for i in range(rank) if i not in self._axes]
        broadcast = [1] * rank
        for a in self._axes:
            broadcast[a] = inputs.get_shape().as_list()[a]
        needs_reshape = sorted(self._axes) != [rank - 1]

        def shaped(v):
            if v is None or not needs_reshape or len(v.get_shape()) == rank:
                return v
            return tf.reshape(v, broadcast)

        # the same ops in the same order as TF 1.15's Keras layer (so later ops get its op
        # count): batch moments, the learning-phase conds choosing them or the moving
        # statistics, a cond per moving average updating it in training
        scale, offset = shaped(self.gamma), shaped(self.beta)
        value = static_bool(training)
        if value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            mean, variance = tf.nn.moments(inputs, reduction, keep_dims=len(self._axes) > 1)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            batch_mean, batch_variance = mean, variance
            mean = smart_cond(training, lambda: batch_mean,
                              lambda: tf.convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: batch_variance,
                                  lambda: tf.convert_to_tensor(moving_variance))
            new_mean, new_variance = mean, variance
            if has_strategy():
                # each replica updates its own copy (sync-on-read): not from inside a cond,
                # where the copies would meet (an inference step updates by zero)
                self.add_update(self._assign_moving_average(self.moving_mean, new_mean,
                                                            self.momentum))
                self.add_update(self._assign_moving_average(self.moving_variance,
                                                            new_variance, self.momentum))
                return self._normalized(inputs, mean, variance, shaped, offset, scale)
            self.add_update(smart_cond(
                training,
                lambda: self._assign_moving_average(self.moving_mean, new_mean, self.momentum),
                lambda: self.moving_mean))
            self.add_update(smart_cond(
                training,
                lambda: self._assign_moving_average(self.moving_variance, new_variance,
                                                    self.momentum),
                lambda: self.moving_variance))
        return self._normalized(inputs, mean, variance, shaped, offset, scale)

    def _normalized(self, inputs, mean, variance, shaped, offset, scale):
        outputs = tf.nn.batch_normalization(inputs, shaped(mean), shaped(variance), offset,
                                            scale, self.epsilon)
        outputs.set_shape(inputs.get_shape())
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        # as TF 1.15: once built, the axes as build resolved them ([1] for -1 on 2-D inputs)
        axis = self._given_axis if self.virtual_batch_size is not None else self.axis
        config.update(axis=axis, momentum=self.momentum, epsilon=self.epsilon,
                      center=self.center, scale=self.scale,
                      beta_initializer=_ser(initializers, self.beta_initializer),
                      gamma_initializer=_ser(initializers, self.gamma_initializer),
                      moving_mean_initializer=_ser(initializers, self.moving_mean_initializer),
                      moving_variance_initializer=_ser(initializers,
                                                       self.moving_variance_initializer),
                      **_ser_attrs(self, "beta_regularizer", "gamma_regularizer",
                                   "beta_constraint", "gamma_constraint"))
        # as TF 1.x: the TF-only arguments only when set (adjustment is not serializable)
        if self.renorm:
            config.update(renorm=True, renorm_clipping=self.renorm_clipping,
                          renorm_momentum=self.renorm_momentum)
        if self.virtual_batch_size is not None:
            config["virtual_batch_size"] = self.virtual_batch_size
        return config


def _tf_layers_bn():
    from tideflow.ops.layers_norm import BatchNormalization as TFLayersBatchNormalization

    return TFLayersBatchNormalization


class LayerNormalization(Layer):
    """Normalizes each sample over ``axis`` (default: the last), then scales by ``gamma`` and
    shifts by ``beta``."""

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, trainable=True, name=None,
                 **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        # as TF 1.15: an int stays an int (a list after build), a list or tuple is copied
        if isinstance(axis, (list, tuple)):
            self.axis = axis[:]
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise ValueError(  # noqa: TRY004 - as TF 1.15
                "Expected an int or a list/tuple of ints for the argument 'axis', "
                f"but received instead: {axis}")
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)

    def build(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        # as TF 1.15: the axis attribute itself becomes the list of resolved axes (so
        # get_config gives them), then checked; a tuple holding a negative axis fails there
        if isinstance(self.axis, int):
            self.axis = [self.axis]
        for i, a in enumerate(self.axis):
            if a < 0:
                self.axis[i] = len(dims) + a
        self._axes = list(self.axis)
        for a in self._axes:
            if a < 0 or a >= len(dims):
                raise ValueError(f"Invalid axis: {a}")
        if len(self._axes) != len(set(self._axes)):
            raise ValueError(f"Duplicate axis: {tuple(self._axes)}")
        shape = [dims[a] for a in self._axes]
        self.gamma = self.add_weight("gamma", shape=shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint) if self.scale else None
        self.beta = self.add_weight("beta", shape=shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint) if self.center else None
        self.built = True

    def get_config(self):
        config = super().get_config()
        config.update(axis=self.axis, epsilon=self.epsilon, center=self.center,
                      scale=self.scale,
                      **_ser_attrs(self, "beta_initializer", "gamma_initializer",
                                   "beta_regularizer", "gamma_regularizer",
                                   "beta_constraint", "gamma_constraint"))
        return config

    def call(self, inputs):
        rank = inputs.get_shape().ndims
        mean, variance = tf.nn.moments(inputs, self._axes, keep_dims=True)
        broadcast = [1] * rank
        for a in self._axes:
            broadcast[a] = inputs.get_shape().as_list()[a]
        # as TF 1.15's: the weights reshaped only where the axes are not just the last one
        last_only = sorted(self._axes) == [rank - 1]

        def shaped(v):
            if v is None or last_only or len(v.get_shape()) == rank:
                return v
            return tf.reshape(v, broadcast)

        gamma, beta = shaped(self.gamma), shaped(self.beta)
        outputs = tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, self.epsilon)
        outputs.set_shape(inputs.get_shape())
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape


class Embedding(Layer):
    """Maps integer ids [batch, ...] to rows of ``embeddings`` [input_dim, output_dim]."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        # the layer's dtype is its output's (floatx), not its integer inputs', as in TF
        kwargs.setdefault("dtype", K.floatx())
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.input_length = input_length

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint,
                                          dtype=K.floatx())
        self.built = True

    @property
    def _produces_mask(self):
        return self.mask_zero

    def compute_mask(self, inputs, mask=None):
        """With ``mask_zero``: the positions whose id is not 0."""
        if not self.mask_zero:
            return None
        return tf.not_equal(inputs, 0)  # (as TF 1.15: its constant is NotEqual/y)

    def call(self, inputs):
        if inputs.dtype.base_dtype != tf.int32:  # as TF 1.15's (int64 ids too)
            inputs = tf.cast(inputs, "int32")
        return tf.nn.embedding_lookup(self.embeddings, inputs)

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape).concatenate(self.output_dim)

    def get_config(self):
        config = super().get_config()
        config.update(input_dim=self.input_dim, output_dim=self.output_dim,
                      embeddings_initializer=_ser(initializers, self.embeddings_initializer),
                      **_ser_attrs(self, "embeddings_regularizer", "activity_regularizer",
                                   "embeddings_constraint"),
                      mask_zero=self.mask_zero, input_length=self.input_length)
        return config


# -- merge layers ------------------------------------------------------------------------------


def _check_is_list(inputs):
    if not isinstance(inputs, (list, tuple)):
        raise ValueError("A merge layer should be called on a list of inputs.")  # noqa: TRY004


def _check_mask_list(inputs, mask):
    """A merge layer's masks and inputs are lists of one length (TF's checks and words)."""
    if not isinstance(mask, (list, tuple)):
        raise ValueError("`mask` should be a list.")  # noqa: TRY004 (as Keras)
    if not isinstance(inputs, (list, tuple)):
        raise ValueError("`inputs` should be a list.")  # noqa: TRY004 (as Keras)
    if len(mask) != len(inputs):
        raise ValueError("The lists `inputs` and `mask` should have the same length.")


class _Merge(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check(self, inputs):
        _check_is_list(inputs)
        if len(inputs) < 2:
            raise ValueError("A merge layer should be called on a list of at least 2 inputs. "
                             f"Got {len(inputs)} inputs.")

    def build(self, input_shape):
        self._check(input_shape)
        shapes = [TensorShape(s).as_list()[1:] if TensorShape(s).ndims is not None else None
                  for s in input_shape]
        known = [s for s in shapes if s is not None]
        for s in known[1:]:
            if len(s) == len(known[0]):
                for a, b in zip(s, known[0]):
                    if a is not None and b is not None and a != b and 1 not in (a, b):
                        raise ValueError(f"Operands could not be broadcast together with "
                                         f"shapes {tuple(known[0])} {tuple(s)}")
        self.built = True

    _elementwise = True  # Concatenate and Dot take their inputs as they are

    def call(self, inputs):
        _check_is_list(inputs)
        inputs = list(inputs)
        if self._elementwise:
            # as Keras: inputs of lower (known) rank get size-1 axes after the batch axis
            ranks = [x.get_shape().ndims for x in inputs]
            if None not in ranks and len(set(ranks)) > 1:
                top = max(ranks)
                for i, r in enumerate(ranks):
                    for _ in range(top - r):
                        inputs[i] = tf.expand_dims(inputs[i], 1)
        return self._merge(inputs)

    def compute_output_shape(self, input_shape):
        if not self._elementwise:
            return input_shape[0]
        shapes = [None if TensorShape(s).ndims is None else TensorShape(s).as_list()
                  for s in input_shape]
        if any(s is None for s in shapes):
            return input_shape[0]
        out = None
        for s in shapes:
            out = s[1:] if out is None else _broadcast_dims(out, s[1:], self.name)
        batch = {s[0] for s in shapes} - {None}
        return TensorShape([batch.pop() if len(batch) == 1 else None] + list(out))

    def compute_mask(self, inputs, mask=None):
        """As Keras: the AND of the inputs' masks (None when no input is masked)."""
        if mask is None:
            return None
        _check_mask_list(inputs, mask)
        if all(m is None for m in mask):
            return None
        masks = [tf.expand_dims(m, 0) for m in mask if m is not None]
        return K.all(K.concatenate(masks, axis=0), axis=0, keepdims=False)


def _broadcast_dims(a, b, name):
    """The per-sample shape of an elementwise merge of per-sample shapes ``a`` and ``b``
    (trailing axes aligned; ``None`` where unknown)."""
    if len(a) < len(b):
        a, b = b, a
    out = list(a[:len(a) - len(b)])
    for i, j in zip(a[len(a) - len(b):], b):
        if i is None or j is None:
            out.append(None)
        elif i == 1 or j == 1:
            out.append(j if i == 1 else i)
        elif i != j:
            raise ValueError(f"Operands could not be broadcast together with shapes "
                             f"{tuple(a)} {tuple(b)}")
        else:
            out.append(i)
    return out


class Add(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out


class Subtract(_Merge):
    def _check(self, inputs):
        super()._check(inputs)
        _check_two(inputs)

    def _merge(self, inputs):
        _check_two(inputs)
        return inputs[0] - inputs[1]


def _check_two(inputs):
    if len(inputs) != 2:
        raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")


class Multiply(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = out * x
        return out


class Average(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = out + x
        return out / len(inputs)


class Maximum(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = tf.maximum(out, x)
        return out


class Minimum(_Merge):
    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = tf.minimum(out, x)
        return out


class Concatenate(_Merge):
    """Concatenates the inputs along ``axis`` (the others must match)."""

    _elementwise = False

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape):
        self._check(input_shape)
        shapes = [TensorShape(s).as_list() for s in input_shape]
        rank = len(shapes[0])
        axis = self.axis % rank
        # as TF 1.15: the other axes must be equal as shapes (None differs from a size)
        for s in shapes[1:]:
            if len(s) != rank or any(a != b for i, (a, b) in enumerate(zip(s, shapes[0]))
                                     if i != axis):
                raise ValueError("A `Concatenate` layer requires inputs with matching shapes "
                                 "except for the concat axis. Got inputs shapes: "
                                 f"{[tuple(x) for x in shapes]}")
        self.built = True

    def _merge(self, inputs):
        return K.concatenate(inputs, axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        """As Keras: the inputs' masks (all-true for an unmasked input) concatenated along
        ``axis`` and reduced with AND over the last axis."""
        if mask is None:
            return None
        _check_mask_list(inputs, mask)
        if all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(tf.ones_like(x, dtype="bool"))
            elif m.get_shape().ndims < x.get_shape().ndims:
                masks.append(tf.expand_dims(m, axis=-1))
            else:
                masks.append(m)
        return K.all(K.concatenate(masks, axis=self.axis), axis=-1, keepdims=False)

    def compute_output_shape(self, input_shape):
        shapes = [TensorShape(s).as_list() for s in input_shape]
        out = list(shapes[0])
        axis = self.axis % len(out)
        sizes = [s[axis] for s in shapes]
        out[axis] = None if any(v is None for v in sizes) else sum(sizes)
        return TensorShape(out)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class Dot(_Merge):
    """Dot product of two samples along ``axes`` (optionally L2-normalized first)."""

    _elementwise = False

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, int):
            if not isinstance(axes, (list, tuple)):
                raise TypeError("Invalid type for `axes` - should be a list or an int.")
            if len(axes) != 2:
                raise ValueError("Invalid format for `axes` - should contain two elements.")
            if not isinstance(axes[0], int) or not isinstance(axes[1], int):
                raise ValueError(  # noqa: TRY004 - as TF
                    'Invalid format for `axes` - list elements should be "int".')
        self.axes = axes  # (as given, as TF 1.15 keeps it and its config says it)
        self.normalize = normalize

    @property
    def _axes_pair(self):
        return (self.axes, self.axes) if isinstance(self.axes, int) else tuple(self.axes)

    def build(self, input_shape):
        self._check(input_shape)
        if len(input_shape) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs.")
        a, b = (TensorShape(s).as_list() for s in input_shape)
        axes = [ax % len(s) for ax, s in zip(self._axes_pair, (a, b))]
        if a[axes[0]] is not None and b[axes[1]] is not None and a[axes[0]] != b[axes[1]]:
            raise ValueError(f"Dimension incompatibility {a[axes[0]]} != {b[axes[1]]}. Layer "
                             f"shapes: {tuple(a)}, {tuple(b)}")
        self.built = True

    def _merge(self, inputs):
        x, y = inputs
        axes = [ax % x.get_shape().ndims if i == 0 else ax % y.get_shape().ndims
                for i, ax in enumerate(self._axes_pair)]
        if self.normalize:
            x = tf.nn.l2_normalize(x, axis=axes[0])
            y = tf.nn.l2_normalize(y, axis=axes[1])
        return K.batch_dot(x, y, axes)

    def compute_output_shape(self, input_shape):
        # as TF: both shapes less their dot axis (and y's batch axis), (batch, 1) if nothing
        # is left
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs. "
                             f"Got: {input_shape}")
        a, b = (list(TensorShape(s).as_list()) for s in input_shape)
        axes = [ax % len(s) for ax, s in zip(self._axes_pair, (a, b))]
        a.pop(axes[0])
        b.pop(axes[1])
        b.pop(0)
        shape = a + b
        if len(shape) == 1:
            shape += [1]
        return TensorShape(shape)

    def get_config(self):
        config = super().get_config()
        config.update(axes=self.axes, normalize=self.normalize)
        return config


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes, normalize=False, **kwargs):
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
