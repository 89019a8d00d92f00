"""``tf.contrib.distributions``' streaming statistics and plumbing (TF 1.15): the moving
mean/variance updates, ``auto_correlation``, ``SeedStream``, ``BatchReshape`` and
``Autoregressive``."""

import hashlib

import numpy as np

import tideflow as tf
from tideflow.distributions.distribution import Distribution
from tideflow.framework import ops

__all__ = ["Autoregressive", "BatchReshape", "SeedStream", "assign_log_moving_mean_exp",
           "assign_moving_mean_variance", "auto_correlation", "moving_mean_variance"]


def assign_moving_mean_variance(mean_var, variance_var, value, decay, name=None):
    """Updates the exponentially weighted moving mean and variance of ``value`` in place:
    ``variance <- decay * (variance + (1 - decay) * (value - mean)**2)``, then
    ``mean <- mean + (1 - decay) * (value - mean)``; returns the two updated variables."""
    scope = tf.name_scope(name, "assign_moving_mean_variance",
                          [variance_var, mean_var, value, decay])
    with scope, tf.colocate_with(variance_var), tf.colocate_with(mean_var):
        base_dtype = mean_var.dtype.base_dtype
        if not base_dtype.is_floating:
            raise TypeError(f"mean_var.base_dtype({base_dtype.name}) does not have float "
                            f"type `dtype`.")
        if base_dtype != variance_var.dtype.base_dtype:
            raise TypeError(f"mean_var.base_dtype({base_dtype.name}) != "
                            f"variance_var.base_dtype({variance_var.dtype.base_dtype.name})")
        value = tf.convert_to_tensor(value, dtype=base_dtype, name="value")
        decay = tf.convert_to_tensor(decay, dtype=base_dtype, name="decay")
        delta = value - mean_var
        with tf.control_dependencies([delta]):
            mean_t = tf.assign_add(mean_var, (1.0 - decay) * delta)
            variance_t = tf.assign_sub(
                variance_var, (1.0 - decay) * (variance_var - decay * tf.square(delta)))
        return mean_t, variance_t


def assign_log_moving_mean_exp(log_mean_exp_var, log_value, decay, name=None):
    """Updates ``log_mean_exp_var`` in place to
    ``log(decay * exp(log_mean_exp_var) + (1 - decay) * exp(log_value))``, stably."""
    with tf.name_scope(name, "assign_log_moving_mean_exp",
                       [log_mean_exp_var, log_value, decay]), tf.colocate_with(log_mean_exp_var):
        base_dtype = log_mean_exp_var.dtype.base_dtype
        if not base_dtype.is_floating:
            raise TypeError(f"log_mean_exp_var.base_dtype({base_dtype.name}) does not "
                            f"have float type `dtype`.")
        log_value = tf.convert_to_tensor(log_value, dtype=base_dtype, name="log_value")
        decay = tf.convert_to_tensor(decay, dtype=base_dtype, name="decay")
        delta = log_value - log_mean_exp_var
        # new = old + log(decay + (1 - decay) exp(delta)), with the larger term factored
        # out so neither exp overflows
        x = tf.concat([tf.expand_dims(tf.log(decay) + tf.zeros_like(delta), 0),
                       tf.expand_dims(tf.log1p(-decay) + delta, 0)], 0)
        return tf.assign_add(log_mean_exp_var, tf.reduce_logsumexp(x, 0))


def moving_mean_variance(value, decay, collections=None, name=None):
    """Creates non-trainable ``moving_mean`` and ``moving_variance`` variables (zeros, shaped
    like ``value``) and returns their ``assign_moving_mean_variance`` update."""
    with tf.variable_scope(name, "moving_mean_variance", [value, decay]):
        value = tf.convert_to_tensor(value, name="x")
        base_dtype = value.dtype.base_dtype
        if not base_dtype.is_floating:
            raise TypeError(f"value.base_dtype({base_dtype.name}) does not have float type "
                            f"`dtype`.")
        if collections is None:
            collections = [tf.GraphKeys.GLOBAL_VARIABLES]
        variance_var = tf.get_variable("moving_variance", shape=value.shape, dtype=base_dtype,
                                       initializer=tf.zeros_initializer(), trainable=False,
                                       collections=collections)
        mean_var = tf.get_variable("moving_mean", shape=value.shape, dtype=base_dtype,
                                   initializer=tf.zeros_initializer(), trainable=False,
                                   collections=collections)
        return assign_moving_mean_variance(mean_var, variance_var, value, decay)


class SeedStream:
    """A reproducible stream of seeds: each call hashes ``(seed, count, salt)``, so one user
    seed feeds many random ops without correlating them."""

    def __init__(self, seed, salt):
        self._seed = seed.original_seed if isinstance(seed, SeedStream) else seed
        self._salt = salt
        self._count = 0

    def __call__(self):
        self._count += 1
        if self._seed is None:
            return None
        composite = str((self._seed, self._count, self._salt)).encode("utf-8")
        return int(hashlib.sha512(composite).hexdigest(), 16) % (2 ** 31)

    @property
    def original_seed(self):
        return self._seed

    @property
    def salt(self):
        return self._salt


class BatchReshape(Distribution):
    """``distribution`` with its batch dims reshaped to ``batch_shape`` (same number of
    members; one ``-1`` allowed)."""

    def __init__(self, distribution, batch_shape, validate_args=False, allow_nan_stats=True,
                 name=None):
        parameters = dict(locals())
        name = name or "BatchReshape" + distribution.name
        with tf.name_scope(name, values=[batch_shape]) as scope:
            self._dist = distribution
            shape = tf.convert_to_tensor(batch_shape, dtype=tf.int32, name="batch_shape")
            value = ops.constant_value(shape)
            if value is not None:
                value = np.reshape(value, -1)
                if (value == -1).sum() > 1:
                    raise ValueError("`batch_shape` can have at most one -1")
                size = distribution.batch_shape.num_elements()
                if -1 in value and size is not None:
                    known = int(np.prod(value[value != -1]))
                    value = np.where(value == -1, size // max(known, 1), value)
                if size is not None and -1 not in value and int(np.prod(value)) != size:
                    raise ValueError(f"`batch_shape` size ({int(np.prod(value))}) must match "
                                     f"`distribution.batch_shape` size ({size}).")
                shape = tf.constant(value, tf.int32)
                self._static_batch = tf.TensorShape([int(d) for d in value])
            else:
                self._static_batch = tf.TensorShape(None)
            self._batch_shape_t = shape
        super().__init__(distribution.dtype, distribution.reparameterization_type,
                         validate_args, allow_nan_stats, parameters,
                         distribution.graph_parents, scope)

    @property
    def distribution(self):
        return self._dist

    def _batch_shape(self):
        return self._static_batch

    def _batch_shape_tensor(self):
        return self._batch_shape_t

    def _event_shape(self):
        return self._dist.event_shape

    def _event_shape_tensor(self):
        return self._dist.event_shape_tensor()

    def _reshape_batch(self, t, old, new, trailing):
        """``t`` of shape ``sample + old + trailing`` as ``sample + new + trailing``."""
        rank = tf.rank(t)
        n_old = tf.size(old)
        n_trailing = tf.size(trailing)
        sample = tf.shape(t)[:rank - n_old - n_trailing]
        return tf.reshape(t, tf.concat([sample, new, trailing], 0))

    def _sample_n(self, n, seed):
        x = self._dist.sample(n, seed=seed)
        return self._reshape_batch(x, self._dist.batch_shape_tensor(), self._batch_shape_t,
                                   self._dist.event_shape_tensor())

    def _through(self, method, x):
        event = self._dist.event_shape_tensor()
        x = self._reshape_batch(x, self._batch_shape_t, self._dist.batch_shape_tensor(), event)
        out = getattr(self._dist, method)(x)
        return self._reshape_batch(out, self._dist.batch_shape_tensor(), self._batch_shape_t,
                                   tf.constant([], tf.int32))

    def _log_prob(self, x):
        return self._through("log_prob", x)

    def _prob(self, x):
        return self._through("prob", x)

    def _cdf(self, x):
        return self._through("cdf", x)

    def _log_cdf(self, x):
        return self._through("log_cdf", x)

    def _reshaped(self, method, with_event):
        out = getattr(self._dist, method)()
        trailing = self._dist.event_shape_tensor() if with_event else tf.constant([], tf.int32)
        return self._reshape_batch(out, self._dist.batch_shape_tensor(), self._batch_shape_t,
                                   trailing)

    def _entropy(self):
        return self._reshaped("entropy", False)

    def _mean(self):
        return self._reshaped("mean", True)

    def _mode(self):
        return self._reshaped("mode", True)

    def _stddev(self):
        return self._reshaped("stddev", True)

    def _variance(self):
        return self._reshaped("variance", True)


def auto_correlation(x, axis=-1, max_lags=None, center=True, normalize=True,
                     name="auto_correlation"):
    """The auto correlation of ``x`` along ``axis`` for lags ``0..max_lags``:
    ``rxx[m] = (L - m)**-1 sum_n w[n + m] conj(w[n])`` with ``w`` centered (``center``) and
    divided by ``rxx[0]`` (``normalize``), computed through a zero-padded FFT, as TF."""
    with tf.name_scope(name, values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        dtype = x.dtype.base_dtype
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"Argument x must have either float or complex dtype found: "
                            f"{dtype}")
        rank = x.get_shape().ndims
        if rank is None:
            raise NotImplementedError("auto_correlation needs x of known rank")
        axis = axis % rank
        perm = [d for d in range(rank) if d != axis] + [axis]
        y = tf.transpose(x, perm)
        if center:
            y = y - tf.reduce_mean(y, -1, keepdims=True)
        length = y.get_shape()[-1].value
        length_t = tf.shape(y)[-1] if length is None else length
        # zero pad to the power of two at or above twice the length (no wrap-around)
        if length is not None:
            padded = 2 ** int(np.ceil(np.log2(2 * length)))
            pad = padded - length
        else:
            lf = tf.cast(length_t, tf.float64)
            pad = tf.cast(tf.pow(2.0, tf.ceil(tf.log(2.0 * lf) / np.log(2.0))) - lf, tf.int32)
        zeros = tf.zeros(tf.concat([tf.shape(y)[:-1], [pad]], 0), dtype)
        y_pad = tf.concat([y, zeros], -1)
        if not dtype.is_complex:
            y_pad = tf.complex(y_pad, tf.zeros_like(y_pad))
        spectrum = tf.spectral.fft(y_pad)
        product = tf.spectral.ifft(spectrum * tf.conj(spectrum))
        product = tf.real(product) if not dtype.is_complex else product
        if max_lags is None:
            lags = length_t - 1
        else:
            static = ops.constant_value(tf.convert_to_tensor(max_lags))
            if static is not None and length is not None:
                lags = min(length - 1, int(static))
            else:
                lags = tf.minimum(length_t - 1, max_lags)
        chopped = product[..., :lags + 1]
        real = dtype.real_dtype if dtype.is_complex else dtype
        denominator = tf.cast(length_t, real) - tf.range(0.0, tf.cast(lags, real) + 1.0,
                                                         dtype=real)
        out = chopped / tf.cast(denominator, dtype)
        if normalize:
            out = out / out[..., :1]
        inverse = np.argsort(perm).tolist()
        return tf.transpose(out, inverse)


class Autoregressive(Distribution):
    """The fixed point of ``distribution_fn``: draws start from ``distribution_fn(sample0)``
    (or ``distribution_fn()``) and are fed back ``num_steps`` times (default: the event
    size); ``log_prob(x)`` is ``distribution_fn(x).log_prob(x)``."""

    def __init__(self, distribution_fn, sample0=None, num_steps=None, validate_args=False,
                 allow_nan_stats=True, name="Autoregressive"):
        parameters = dict(locals())
        with tf.name_scope(name) as scope:
            self._distribution_fn = distribution_fn
            self._sample0 = sample0
            self._distribution0 = distribution_fn() if sample0 is None \
                else distribution_fn(sample0)
            if num_steps is None:
                num_steps = self._distribution0.event_shape.num_elements()
                if num_steps is None:
                    raise NotImplementedError("Autoregressive needs num_steps when the event "
                                              "size is not known statically")
            self._num_steps = num_steps
        super().__init__(self._distribution0.dtype,
                         self._distribution0.reparameterization_type, validate_args,
                         allow_nan_stats, parameters, self._distribution0.graph_parents, scope)

    distribution_fn = property(lambda self: self._distribution_fn)
    sample0 = property(lambda self: self._sample0)
    num_steps = property(lambda self: self._num_steps)
    distribution0 = property(lambda self: self._distribution0)

    def _batch_shape(self):
        return self._distribution0.batch_shape

    def _batch_shape_tensor(self):
        return self._distribution0.batch_shape_tensor()

    def _event_shape(self):
        return self._distribution0.event_shape

    def _event_shape_tensor(self):
        return self._distribution0.event_shape_tensor()

    def _sample_n(self, n, seed):
        samples = self._distribution0.sample(n, seed=seed)
        for _ in range(self._num_steps):
            samples = self._distribution_fn(samples).sample(seed=seed)
        return samples

    def _log_prob(self, value):
        return self._distribution_fn(value).log_prob(value)

    def _prob(self, value):
        return self._distribution_fn(value).prob(value)
