"""Distributions built from other distributions (TF 1.15): ``TransformedDistribution`` (a
bijector applied to draws), ``Independent`` (batch dims read as event dims), ``Mixture`` (a
Categorical choice among components), and the transformed families ``RelaxedBernoulli`` and
``Kumaraswamy``."""

from types import MappingProxyType

import numpy as np

import tideflow as tf
from tideflow.distributions import bijectors
from tideflow.distributions.contrib_scalar import Logistic
from tideflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    kl_divergence,
)
from tideflow.distributions.dists import Categorical, Uniform
from tideflow.distributions.util import (
    gen_new_seed,
    get_logits_and_probs,
    pad_mixture_dimensions,
    pick_vector,
)
from tideflow.framework import ops
from tideflow.ops.control_flow_ops import with_dependencies

__all__ = ["ConditionalDistribution", "ConditionalTransformedDistribution", "Independent",
           "Kumaraswamy", "Mixture", "RelaxedBernoulli", "TransformedDistribution"]


# TF 1.15's helpers of TransformedDistribution: each folds what is known statically into a
# new constant (so a graph gets TF's constants, names and op count), else builds the op


def _static_value(x):
    return ops.constant_value(tf.convert_to_tensor(x))


def _logical_and(*args):
    values = [_static_value(x) for x in args]
    if any(v is not None and not bool(v) for v in values):
        return tf.constant(False)
    if all(v is not None and bool(v) for v in values):
        return tf.constant(True)
    if len(args) == 2:
        return tf.logical_and(*args)
    return tf.reduce_all(args)


def _logical_equal(x, y):
    x_, y_ = _static_value(x), _static_value(y)
    if x_ is None or y_ is None:
        return tf.equal(x, y)
    return tf.constant(np.array_equal(x_, y_))


def _logical_not(x):
    x_ = _static_value(x)
    if x_ is None:
        return tf.logical_not(x)
    return tf.constant(np.logical_not(x_))


def _concat_vectors(*args):
    values = [_static_value(x) for x in args]
    if any(v is None for v in values):
        return tf.concat(args, 0)
    return tf.constant([v for vec in values for v in vec])


def _pick_scalar_condition(pred, cond_true, cond_false):
    pred_ = _static_value(pred)
    if pred_ is None:
        return tf.where_v2(pred, cond_true, cond_false)
    return cond_true if pred_ else cond_false


def _ones_like(x):
    if x.get_shape().is_fully_defined():
        return tf.ones(x.get_shape().as_list(), dtype=x.dtype)
    return tf.ones_like(x)


def _ndims_from_shape(shape):
    if shape.get_shape().ndims not in (None, 1):
        raise ValueError("input is not a valid shape: not 1D")
    if not shape.dtype.is_integer:
        raise TypeError("input is not a valid shape: wrong dtype")
    if shape.get_shape().is_fully_defined():
        return tf.constant(shape.get_shape().as_list()[0])
    return tf.shape(shape)[0]


def _is_scalar_from_shape(shape):
    return _logical_equal(_ndims_from_shape(shape), 0)


class TransformedDistribution(Distribution):
    """The distribution of ``bijector.forward(X)`` for ``X ~ distribution``; its density is
    ``p(bijector.inverse(y)) * |det J(bijector.inverse)(y)|``. A ``batch_shape`` or
    ``event_shape`` override draws iid base members (an event override over a batch of base
    distributions draws its dims first and rotates them behind the batch, as TF 1.15)."""

    def __init__(self, distribution, bijector=None, batch_shape=None, event_shape=None,
                 validate_args=False, name=None):
        parameters = dict(locals())
        name = name or (("" if bijector is None else bijector.name) + distribution.name)
        with tf.name_scope(name, values=[event_shape, batch_shape]) as scope:
            self._zero = tf.constant(0, dtype=tf.int32, name="zero")
            self._empty = tf.constant([], dtype=tf.int32, name="empty")
            if bijector is None:
                bijector = bijectors.Identity(validate_args=validate_args)
            self._override_batch_shape = self._validated_override(
                batch_shape, distribution.is_scalar_batch(), validate_args, "batch_shape")
            self._is_batch_override = _logical_not(_logical_equal(
                _ndims_from_shape(self._override_batch_shape), self._zero))
            value = ops.constant_value(self._override_batch_shape)
            self._is_maybe_batch_override = bool(value is None or value.size != 0)
            self._override_event_shape = self._validated_override(
                event_shape, distribution.is_scalar_event(), validate_args, "event_shape")
            self._is_event_override = _logical_not(_logical_equal(
                _ndims_from_shape(self._override_event_shape), self._zero))
            value = ops.constant_value(self._override_event_shape)
            self._is_maybe_event_override = bool(value is None or value.size != 0)
            # an event override over a batch of base distributions draws the event dims as
            # leading sample dims, then rotates them behind the batch dims
            self._needs_rotation = _logical_and(
                self._is_event_override, _logical_not(self._is_batch_override),
                _logical_not(distribution.is_scalar_batch()))
            override_event_ndims = _ndims_from_shape(self._override_event_shape)
            self._rotate_ndims = _pick_scalar_condition(self._needs_rotation,
                                                        override_event_ndims, 0)
            self._reduce_event_indices = tf.range(self._rotate_ndims - override_event_ndims,
                                                  self._rotate_ndims)
        self._distribution = distribution
        self._bijector = bijector
        super().__init__(distribution.dtype, distribution.reparameterization_type,
                         validate_args, distribution.allow_nan_stats, parameters,
                         list(distribution.graph_parents) + list(bijector.graph_parents),
                         scope)

    def _validated_override(self, override, base_is_scalar, validate_args, name):
        """The override shape as an int32 vector (``empty`` when there is none), checked."""
        if override is None:
            override = []
        override = tf.convert_to_tensor(override, dtype=tf.int32, name=name)
        if not override.dtype.is_integer:
            raise TypeError("shape override must be an integer")
        override_is_scalar = _is_scalar_from_shape(override)
        if ops.constant_value(override_is_scalar):
            return self._empty
        checks = []
        if override.get_shape().ndims is not None:
            if override.get_shape().ndims != 1:
                raise ValueError("shape override must be a vector")
        elif validate_args:
            checks.append(tf.assert_rank(override, 1, message="shape override must be a "
                                         "vector"))
        value = ops.constant_value(override)
        if value is not None:
            if any(d <= 0 for d in value):
                raise ValueError("shape override must have positive elements")
        elif validate_args:
            checks.append(tf.assert_positive(override, message="shape override must have "
                                             "positive elements"))
        both_nonscalar = _logical_and(_logical_not(base_is_scalar),
                                      _logical_not(override_is_scalar))
        both = ops.constant_value(both_nonscalar)
        if both is not None:
            if both:
                raise ValueError("base distribution not scalar")
        elif validate_args:
            checks.append(tf.assert_equal(both_nonscalar, False,
                                          message="base distribution not scalar"))
        if not checks:
            return override
        return with_dependencies(checks, override)

    @property
    def distribution(self):
        return self._distribution

    @property
    def bijector(self):
        return self._bijector

    # the condition keyword arguments of the call under way (ConditionalTransformedDistribution)
    _bk = _dk = MappingProxyType({})

    # -- shapes ------------------------------------------------------------------------------
    def _event_shape_tensor(self):
        return self._bijector.forward_event_shape_tensor(pick_vector(
            self._is_event_override, self._override_event_shape,
            self._distribution.event_shape_tensor()))

    def _event_shape(self):
        override = tf.TensorShape(_shape_value(self._override_event_shape))
        return self._bijector.forward_event_shape(
            override if self._is_maybe_event_override else self._distribution.event_shape)

    def _batch_shape_tensor(self):
        return pick_vector(self._is_batch_override, self._override_batch_shape,
                           self._distribution.batch_shape_tensor())

    def _batch_shape(self):
        override = tf.TensorShape(_shape_value(self._override_batch_shape))
        return override if self._is_maybe_batch_override else self._distribution.batch_shape

    def _static_event_ndims(self):
        if self.event_shape.ndims is not None:
            return self.event_shape.ndims
        event_ndims = tf.size(self.event_shape_tensor())
        value = ops.constant_value(event_ndims)
        return int(value) if value is not None else event_ndims

    def _rotated(self, x, rotate_right=False):
        needs = ops.constant_value(self._needs_rotation)
        if needs is not None and not needs:
            return x
        ndims = tf.rank(x)
        n = ndims - self._rotate_ndims if rotate_right else self._rotate_ndims
        return tf.transpose(x, _concat_vectors(tf.range(n, ndims), tf.range(0, n)))

    # -- sampling and densities -------------------------------------------------------------------
    def sample(self, sample_shape=(), seed=None, name="sample"):
        # as TF 1.15: the base draws are reshaped to the sample shape, then mapped
        with self._name_scope(name, values=[sample_shape]):
            shape_t = tf.convert_to_tensor(sample_shape, dtype=tf.int32, name="sample_shape")
            shape_t, n = self._sample_shape_vector(shape_t, "sample_shape")
            x = self._sample_n(n, seed)
            x = tf.reshape(x, tf.concat([shape_t, tf.shape(x)[1:]], 0))
            y = self._bijector.forward(x, **self._bk)
            return self._set_sample_static_shape(y, shape_t)

    def _sample_n(self, n, seed):
        shape = _concat_vectors(pick_vector(self._needs_rotation, self._empty, [n]),
                                self._override_batch_shape, self._override_event_shape,
                                pick_vector(self._needs_rotation, [n], self._empty))
        x = self._distribution.sample(sample_shape=shape, seed=seed, **self._dk)
        return self._rotated(x)

    def _fiber_log_prob(self, y, x, ildj, event_ndims):
        x = self._rotated(x, rotate_right=True)
        lp = self._distribution.log_prob(x, **self._dk)
        if self._is_maybe_event_override:
            lp = tf.reduce_sum(lp, self._reduce_event_indices)
        lp += tf.cast(ildj, lp.dtype)
        if self._is_maybe_event_override and isinstance(event_ndims, int):
            lp.set_shape(tf.broadcast_static_shape(
                y.get_shape().with_rank_at_least(1)[:-event_ndims], self.batch_shape))
        return lp

    def _fiber_prob(self, y, x, ildj, event_ndims):
        x = self._rotated(x, rotate_right=True)
        prob = self._distribution.prob(x, **self._dk)
        if self._is_maybe_event_override:
            prob = tf.reduce_prod(prob, self._reduce_event_indices)
        prob *= tf.exp(tf.cast(ildj, prob.dtype))
        if self._is_maybe_event_override and isinstance(event_ndims, int):
            prob.set_shape(tf.broadcast_static_shape(
                y.get_shape().with_rank_at_least(1)[:-event_ndims], self.batch_shape))
        return prob

    def _log_prob(self, y):
        x = self._bijector.inverse(y, **self._bk)
        event_ndims = self._static_event_ndims()
        ildj = self._bijector.inverse_log_det_jacobian(y, event_ndims=event_ndims,
                                                      **self._bk)
        if self._bijector._is_injective:
            return self._fiber_log_prob(y, x, ildj, event_ndims)
        # a non-injective bijector: the density sums over the preimages
        lps = [self._fiber_log_prob(y, x_i, ildj_i, event_ndims)
               for x_i, ildj_i in zip(x, ildj)]
        return tf.reduce_logsumexp(tf.stack(lps), axis=0)

    def _prob(self, y):
        x = self._bijector.inverse(y, **self._bk)
        event_ndims = self._static_event_ndims()
        ildj = self._bijector.inverse_log_det_jacobian(y, event_ndims=event_ndims,
                                                      **self._bk)
        if self._bijector._is_injective:
            return self._fiber_prob(y, x, ildj, event_ndims)
        return sum(self._fiber_prob(y, x_i, ildj_i, event_ndims)
                   for x_i, ildj_i in zip(x, ildj))

    def _scalar_only(self, what):
        if self._is_maybe_event_override:
            raise NotImplementedError(f"{what} is not implemented when overriding "
                                      f"event_shape")
        if not self._bijector._is_injective:
            raise NotImplementedError(f"{what} is not implemented when bijector is not "
                                      f"injective.")

    def _cdf(self, y):
        self._scalar_only("cdf")
        return self._distribution.cdf(self._bijector.inverse(y, **self._bk), **self._dk)

    def _log_cdf(self, y):
        self._scalar_only("log_cdf")
        return self._distribution.log_cdf(self._bijector.inverse(y, **self._bk), **self._dk)

    def _survival_function(self, y):
        self._scalar_only("survival_function")
        x = self._bijector.inverse(y, **self._bk)
        return self._distribution.survival_function(x, **self._dk)

    def _log_survival_function(self, y):
        self._scalar_only("log_survival_function")
        x = self._bijector.inverse(y, **self._bk)
        return self._distribution.log_survival_function(x, **self._dk)

    def _quantile(self, p):
        self._scalar_only("quantile")
        return self._bijector.forward(self._distribution.quantile(p, **self._dk), **self._bk)

    # -- statistics: TF 1.15 gives only the entropy (a constant Jacobian), no moments ----------------
    def _entropy(self):
        if not self._bijector.is_constant_jacobian:
            raise NotImplementedError("entropy is not implemented")
        if not self._bijector._is_injective:
            raise NotImplementedError("entropy is not implemented when bijector is not "
                                      "injective.")
        entropy = self._distribution.entropy()
        if self._is_maybe_event_override:
            entropy *= tf.cast(tf.reduce_prod(self._override_event_shape),
                               dtype=entropy.dtype.base_dtype)
        if self._is_maybe_batch_override:
            new_shape = tf.concat([_ones_like(self._override_batch_shape),
                                   self._distribution.batch_shape_tensor()], 0)
            entropy = tf.reshape(entropy, new_shape)
            multiples = tf.concat([self._override_batch_shape,
                                   _ones_like(self._distribution.batch_shape_tensor())], 0)
            entropy = tf.tile(entropy, multiples)
        dummy = tf.zeros(shape=tf.concat([self.batch_shape_tensor(), self.event_shape_tensor()],
                                         0), dtype=self.dtype)
        event_ndims = (self.event_shape.ndims if self.event_shape.ndims is not None
                       else tf.size(self.event_shape_tensor()))
        ildj = self._bijector.inverse_log_det_jacobian(dummy, event_ndims=event_ndims)
        entropy -= tf.cast(ildj, entropy.dtype)
        entropy.set_shape(self.batch_shape)
        return entropy


def _shape_value(shape_t):
    """The static value of a shape vector as a list (None entries unknown; None if its rank
    is unknown)."""
    value = ops.constant_value(shape_t)
    if value is not None:
        return [int(d) for d in np.reshape(value, -1)]
    from tideflow.ops.array_ops import partial_vector
    return partial_vector(shape_t)


class ConditionalDistribution(Distribution):
    """A distribution whose sampling and densities take extra keyword arguments
    (``**condition_kwargs``), passed on to ``_sample_n``, ``_log_prob``, ``_cdf``, ..."""

    def sample(self, sample_shape=(), seed=None, name="sample", **condition_kwargs):
        if not condition_kwargs:
            return super().sample(sample_shape, seed=seed, name=name)
        plain = self._sample_n
        self._sample_n = lambda n, seed: plain(n, seed, **condition_kwargs)
        try:
            return super().sample(sample_shape, seed=seed, name=name)
        finally:
            del self._sample_n

    def _with_condition(self, method, value, name, condition_kwargs):
        base = getattr(Distribution, method)
        if not condition_kwargs:
            return base(self, value, name=name)
        private = "_" + method
        plain = getattr(self, private)
        setattr(self, private, lambda v: plain(v, **condition_kwargs))
        try:
            return base(self, value, name=name)
        finally:
            delattr(self, private)

    def log_prob(self, value, name="log_prob", **condition_kwargs):
        return self._with_condition("log_prob", value, name, condition_kwargs)

    def prob(self, value, name="prob", **condition_kwargs):
        return self._with_condition("prob", value, name, condition_kwargs)

    def cdf(self, value, name="cdf", **condition_kwargs):
        return self._with_condition("cdf", value, name, condition_kwargs)

    def log_cdf(self, value, name="log_cdf", **condition_kwargs):
        return self._with_condition("log_cdf", value, name, condition_kwargs)

    def survival_function(self, value, name="survival_function", **condition_kwargs):
        return self._with_condition("survival_function", value, name, condition_kwargs)

    def log_survival_function(self, value, name="log_survival_function",
                              **condition_kwargs):
        return self._with_condition("log_survival_function", value, name, condition_kwargs)


class ConditionalTransformedDistribution(TransformedDistribution):
    """A ``TransformedDistribution`` whose methods take ``bijector_kwargs`` (for a
    ``ConditionalBijector``) and ``distribution_kwargs`` (for a ``ConditionalDistribution``)."""

    def _conditioned(self, call, bijector_kwargs, distribution_kwargs):
        self._bk = MappingProxyType(dict(bijector_kwargs or {}))
        self._dk = MappingProxyType(dict(distribution_kwargs or {}))
        try:
            return call()
        finally:
            del self._bk, self._dk

    def sample(self, sample_shape=(), seed=None, name="sample", bijector_kwargs=None,
               distribution_kwargs=None):
        return self._conditioned(lambda: TransformedDistribution.sample(
            self, sample_shape, seed=seed, name=name), bijector_kwargs, distribution_kwargs)

    def _method(method):  # a class-body helper making the methods below
        def call(self, value, name=method, bijector_kwargs=None, distribution_kwargs=None):
            return self._conditioned(lambda: getattr(TransformedDistribution, method)(
                self, value, name=name), bijector_kwargs, distribution_kwargs)
        call.__name__ = method
        return call

    log_prob = _method("log_prob")
    prob = _method("prob")
    cdf = _method("cdf")
    log_cdf = _method("log_cdf")
    survival_function = _method("survival_function")
    log_survival_function = _method("log_survival_function")
    quantile = _method("quantile")
    del _method


class Independent(Distribution):
    """``distribution`` with its rightmost ``reinterpreted_batch_ndims`` batch dims read as
    event dims (by default all but the first): log densities sum over them."""

    def __init__(self, distribution, reinterpreted_batch_ndims=None, validate_args=False,
                 name=None):
        parameters = dict(locals())
        name = name or "Independent" + distribution.name
        with tf.name_scope(name) as scope:
            batch_ndims = distribution.batch_shape.ndims
            if reinterpreted_batch_ndims is None:
                if batch_ndims is None:
                    raise NotImplementedError("Independent: a base of unknown batch rank "
                                              "needs reinterpreted_batch_ndims")
                reinterpreted_batch_ndims = max(0, batch_ndims - 1)
            ndims = ops.constant_value(tf.convert_to_tensor(reinterpreted_batch_ndims,
                                                            name="reinterpreted_batch_ndims"))
            if ndims is None:
                raise NotImplementedError("Independent: reinterpreted_batch_ndims must be "
                                          "known statically")
            ndims = int(ndims)
            if ndims < 0:
                raise ValueError("reinterpreted_batch_ndims must be non-negative")
            if batch_ndims is not None and ndims > batch_ndims:
                raise ValueError(f"reinterpreted_batch_ndims({ndims}) cannot exceed "
                                 f"distribution.batch_ndims({batch_ndims})")
            self._ndims = ndims
            self._distribution = distribution
        super().__init__(distribution.dtype, distribution.reparameterization_type,
                         validate_args, distribution.allow_nan_stats, parameters,
                         distribution.graph_parents, scope)

    @property
    def distribution(self):
        return self._distribution

    @property
    def reinterpreted_batch_ndims(self):
        return self._ndims

    def _batch_shape(self):
        shape = self._distribution.batch_shape
        if shape.ndims is None or self._ndims == 0:
            return shape
        return shape[:shape.ndims - self._ndims]

    def _batch_shape_tensor(self):
        shape = self._distribution.batch_shape_tensor()
        return shape[:tf.size(shape) - self._ndims]

    def _event_shape(self):
        shape = self._distribution.batch_shape
        moved = tf.TensorShape(None) if shape.ndims is None else \
            shape[shape.ndims - self._ndims:]
        return moved.concatenate(self._distribution.event_shape)

    def _event_shape_tensor(self):
        shape = self._distribution.batch_shape_tensor()
        return tf.concat([shape[tf.size(shape) - self._ndims:],
                          self._distribution.event_shape_tensor()], 0)

    def _sample_n(self, n, seed):
        return self._distribution.sample(n, seed=seed)

    def _sum(self, x):
        if self._ndims == 0:
            return x
        return tf.reduce_sum(x, list(range(-self._ndims, 0)))

    def _log_prob(self, x):
        return self._sum(self._distribution.log_prob(x))

    def _prob(self, x):
        return tf.exp(self._log_prob(x))

    # (no cdf: TF 1.15's Independent raises NotImplementedError for it)
    def _entropy(self):
        return self._sum(self._distribution.entropy())

    def _mean(self):
        return self._distribution.mean()

    def _variance(self):
        return self._distribution.variance()

    def _stddev(self):
        return self._distribution.stddev()

    def _mode(self):
        return self._distribution.mode()


@RegisterKL(Independent, Independent)
def _kl_independent(a, b, name=None):
    # TF 1.15's ops: the inner KL (its own KullbackLeibler scope) summed in the caller's scope
    p, q = a.distribution, b.distribution
    if a.event_shape.is_fully_defined() and b.event_shape.is_fully_defined():
        if a.event_shape != b.event_shape:
            raise ValueError("Event shapes do not match.")
        if p.event_shape != q.event_shape:
            raise NotImplementedError("KL between Independents with different event shapes "
                                      "not supported.")
        num_reduce_dims = a.event_shape.ndims - p.event_shape.ndims
        reduce_dims = [-i - 1 for i in range(num_reduce_dims)]
        return tf.reduce_sum(kl_divergence(p, q, name=name), axis=reduce_dims)
    with tf.control_dependencies([
            tf.assert_equal(a.event_shape_tensor(), b.event_shape_tensor()),
            tf.assert_equal(p.event_shape_tensor(), q.event_shape_tensor())]):
        num_reduce_dims = (tf.shape(a.event_shape_tensor()[0])
                           - tf.shape(p.event_shape_tensor()[0]))
        reduce_dims = tf.range(-num_reduce_dims - 1, -1, 1)
        return tf.reduce_sum(kl_divergence(p, q, name=name), axis=reduce_dims)


class Mixture(Distribution):
    """A mixture: draw a component index from ``cat`` (a Categorical), then a value from that
    component; all components share dtype, batch and event shape. Its ops are TF 1.15's (the
    draws partition the sample indices by component, each component draws only its share)."""

    def __init__(self, cat, components, validate_args=False, allow_nan_stats=True,
                 use_static_graph=False, name="Mixture"):
        parameters = dict(locals())
        if not isinstance(cat, Categorical):
            raise TypeError(f"cat must be a Categorical distribution, but saw: {cat}")
        if not components:
            raise ValueError("components must be a non-empty list or tuple")
        if not isinstance(components, (list, tuple)):
            raise TypeError(f"components must be a list or tuple, but saw: {components}")
        if not all(isinstance(c, Distribution) for c in components):
            raise TypeError(f"all entries in components must be Distribution instances but "
                            f"saw: {components}")
        dtype = components[0].dtype
        if not all(c.dtype == dtype for c in components):
            raise TypeError(f"All components must have the same dtype, but saw dtypes: "
                            f"{[(c.name, c.dtype) for c in components]}")
        event = components[0].event_shape
        batch = cat.batch_shape
        for c in components:
            event = event.merge_with(c.event_shape)
            batch = batch.merge_with(c.batch_shape)
        if event.ndims is None:
            raise ValueError("Expected to know rank(event_shape) from components, but none of "
                             "the components provide a static number of ndims")
        with tf.name_scope(name, values=[cat.logits]) as scope:
            k = ops.constant_value(cat.event_size)
            if k is None:
                raise ValueError("Could not infer number of classes from cat and unable to "
                                 "compare this value to the number of components passed in.")
            k = int(k)
            if k != len(components):
                raise ValueError(f"cat.num_classes != len(components): {k} vs. "
                                 f"{len(components)}")
            # as TF 1.15: the batch shape and its size are made here (checks when validating)
            cat_batch_shape = cat.batch_shape_tensor()
            cat_batch_rank = tf.size(cat_batch_shape)
            if validate_args:
                shapes = [c.batch_shape_tensor() for c in components]
                ranks = [tf.size(s) for s in shapes]
                msg = "components[%d] batch shape must match cat batch shape"
                self._assertions = [tf.assert_equal(cat_batch_rank, ranks[i], message=msg % i)
                                    for i in range(len(components))]
                self._assertions += [tf.assert_equal(cat_batch_shape, shapes[i],
                                                     message=msg % i)
                                     for i in range(len(components))]
            else:
                self._assertions = []
            self._cat = cat
            self._components = list(components)
            self._num_components = k
            self._static_batch = batch
            self._static_event = event
            self._use_static_graph = use_static_graph
        parents = list(cat.graph_parents) + [t for c in components for t in c.graph_parents]
        super().__init__(dtype, NOT_REPARAMETERIZED, validate_args, allow_nan_stats,
                         parameters, parents, scope)

    @property
    def cat(self):
        return self._cat

    @property
    def components(self):
        return list(self._components)

    @property
    def num_components(self):
        return self._num_components

    def _batch_shape(self):
        return self._static_batch

    def _batch_shape_tensor(self):
        return self._cat.batch_shape_tensor()

    def _event_shape(self):
        return self._static_event

    def _event_shape_tensor(self):
        return self._components[0].event_shape_tensor()

    def _cat_probs(self, log_probs):
        probs = (tf.nn.log_softmax if log_probs else tf.nn.softmax)(self._cat.logits)
        return tf.unstack(probs, num=self._num_components, axis=-1)

    def _to_event_rank(self, x):
        for _ in range(self.event_shape.ndims):
            x = tf.expand_dims(x, -1)
        return x

    def _mean(self):
        with tf.control_dependencies(self._assertions):
            means = [c.mean() for c in self._components]
            probs = [self._to_event_rank(p) for p in self._cat_probs(log_probs=False)]
            return tf.add_n([p * m for p, m in zip(probs, means)])

    def _stddev(self):
        with tf.control_dependencies(self._assertions):
            means = [c.mean() for c in self._components]
            devs = [c.stddev() for c in self._components]
            probs = self._cat_probs(log_probs=False)
            means = tf.stack(means, axis=-1)
            devs = tf.stack(devs, axis=-1)
            probs = [self._to_event_rank(p) for p in probs]
            probs = tf.stack(probs, axis=-1) * tf.ones_like(means)
            k = len(self._components)
            # the mixture's variance: E[var] + E[mean^2] - E[mean]^2, per batch member
            w, mu, sigma = (tf.reshape(t, [-1, k]) for t in (probs, means, devs))
            w.shape.assert_has_rank(2)
            if not mu.shape.is_compatible_with(w.shape):
                raise ValueError("Expecting means to have same shape as mixture weights.")
            if not sigma.shape.is_compatible_with(w.shape):
                raise ValueError("Expecting stddevs to have same shape as mixture weights.")
            w = tf.expand_dims(w, axis=1)
            mu = tf.expand_dims(mu, axis=2)
            sigma = tf.expand_dims(sigma, axis=2)
            mean = tf.reshape(tf.matmul(w, mu), (-1,))
            var = tf.reshape(tf.matmul(w, tf.square(sigma)), (-1,))
            sq_mean = tf.reshape(tf.matmul(w, tf.square(mu)), (-1,))
            dev = tf.sqrt(var + sq_mean - tf.square(mean))
            return tf.reshape(dev, tf.shape(probs)[:-1])

    def _log_prob(self, x):
        with tf.control_dependencies(self._assertions):
            x = tf.convert_to_tensor(x, name="x")
            lps = [c.log_prob(x) for c in self._components]
            cat_lps = self._cat_probs(log_probs=True)
            joint = [c + d for c, d in zip(cat_lps, lps)]
            return tf.reduce_logsumexp(tf.stack(joint, 0), [0])

    def _log_cdf(self, x):
        with tf.control_dependencies(self._assertions):
            x = tf.convert_to_tensor(x, name="x")
            lcs = [c.log_cdf(x) for c in self._components]
            cat_lps = self._cat_probs(log_probs=True)
            joint = [c + d for c, d in zip(cat_lps, lcs)]
            return tf.reduce_logsumexp(tf.stack(joint, axis=0), [0])

    def _static_graph_draws(self, n, seed):
        """Every component draws n; a one-hot of the categorical draw picks among them."""
        draws = []
        picks = self._cat.sample(n, seed=seed)
        for c in self._components:
            seed = gen_new_seed(seed, "mixture")
            draws.append(c.sample(n, seed=seed))
        event_ndims = self._static_event.ndims
        x = tf.stack(draws, -event_ndims - 1)
        np_dtype = x.dtype.as_numpy_dtype
        mask = tf.one_hot(indices=picks, depth=self._num_components,
                          on_value=np.ones([], dtype=np_dtype),
                          off_value=np.zeros([], dtype=np_dtype))
        mask = pad_mixture_dimensions(mask, self, self._cat, event_ndims)
        return tf.reduce_sum(x * mask, axis=-1 - event_ndims)

    def _sample_n(self, n, seed):
        if self._use_static_graph:
            return self._static_graph_draws(n, seed)
        with tf.control_dependencies(self._assertions):
            n = tf.convert_to_tensor(n, name="n")
            static_n = ops.constant_value(n)
            n = int(static_n) if static_n is not None else n
            picks = self._cat.sample(n, seed=seed)
            static_samples = picks.get_shape()
            if static_samples.is_fully_defined():
                samples_shape = static_samples.as_list()
                samples_size = static_samples.num_elements()
            else:
                samples_shape = tf.shape(picks)
                samples_size = tf.size(picks)
            if self.batch_shape.is_fully_defined():
                batch_size = self.batch_shape.num_elements()
            else:
                batch_size = tf.reduce_prod(self.batch_shape_tensor())
            if self.event_shape.is_fully_defined():
                event_shape = np.array(self.event_shape.as_list(), dtype=np.int32)
            else:
                event_shape = self.event_shape_tensor()
            # the flat sample indices and batch members, split by the component drawn
            sample_idx = tf.reshape(tf.range(0, samples_size), samples_shape)
            sample_parts = tf.dynamic_partition(data=sample_idx, partitions=picks,
                                                num_partitions=self._num_components)
            batch_idx = tf.reshape(tf.tile(tf.range(0, batch_size), [n]), samples_shape)
            batch_parts = tf.dynamic_partition(data=batch_idx, partitions=picks,
                                               num_partitions=self._num_components)
            per_class = []
            for c in range(self._num_components):
                n_class = tf.size(sample_parts[c])
                seed = gen_new_seed(seed, "mixture")
                draws = self._components[c].sample(n_class, seed=seed)
                lookup = batch_size * tf.range(n_class) + batch_parts[c]
                draws = tf.reshape(draws, tf.concat([[n_class * batch_size], event_shape], 0))
                per_class.append(tf.gather(draws, lookup, name="samples_class_c_gather"))
            flat = tf.dynamic_stitch(indices=sample_parts, data=per_class)
            out = tf.reshape(flat, tf.concat([samples_shape, self.event_shape_tensor()], 0))
            out.set_shape(tf.TensorShape(static_samples).concatenate(self.event_shape))
            return out

    def entropy_lower_bound(self, name="entropy_lower_bound"):
        """``sum_i p_i H(component_i)`` (a lower bound of the mixture's entropy)."""
        with self._name_scope(name, values=[self._cat.logits]), \
                tf.control_dependencies(self._assertions):
            entropies = [c.entropy() for c in self._components]
            probs = self._cat_probs(log_probs=False)
            return tf.add_n([p * h for p, h in zip(probs, entropies)])


class RelaxedBernoulli(TransformedDistribution):
    """The binary Concrete relaxation of a Bernoulli: ``sigmoid(L)`` for
    ``L ~ Logistic(logits / temperature, 1 / temperature)``."""

    def __init__(self, temperature, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="RelaxedBernoulli"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[logits, probs, temperature]) as scope:
            # TF 1.15's ops and names: the temperature's identity first, the logits in a
            # get_logits_and_probs scope, the Logistic named "<scope>/Logistic"
            with tf.control_dependencies([tf.assert_positive(temperature)] if validate_args
                                         else []):
                self._temperature = tf.identity(temperature, name="temperature")
            self._logits, self._probs = get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args)
            logistic = Logistic(self._logits / self._temperature, 1.0 / self._temperature,
                                validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                                name=scope + "/Logistic")
            super().__init__(logistic, bijectors.Sigmoid(validate_args=validate_args),
                             validate_args=validate_args, name=scope)
        self._parameters = {k: v for k, v in parameters.items()
                            if k not in ("self", "__class__")}

    @property
    def temperature(self):
        return self._temperature

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on (0, 1): density
    ``a b x**(a-1) (1 - x**a)**(b-1)`` (``a = concentration1``, ``b = concentration0``).
    Built as TF 1.15 builds it: a scalar standard Uniform (made outside this scope) through
    the inverse Kumaraswamy bijector, with the parameters' broadcast batch shape."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Kumaraswamy"):
        parameters = dict(locals())
        with tf.name_scope(name, values=[concentration1, concentration0]) as scope:
            concentration1 = tf.convert_to_tensor(concentration1, name="concentration1")
            concentration0 = tf.convert_to_tensor(concentration0, name="concentration0")
        uniform = Uniform(low=tf.zeros([], dtype=concentration1.dtype),
                          high=tf.ones([], dtype=concentration1.dtype),
                          allow_nan_stats=allow_nan_stats)
        bij = bijectors.Kumaraswamy(concentration1=concentration1,
                                    concentration0=concentration0,
                                    validate_args=validate_args)
        shape = tf.broadcast_static_shape(concentration1.get_shape(),
                                          concentration0.get_shape())
        if shape.is_fully_defined():
            batch_shape = shape.as_list()
        else:
            batch_shape = tf.broadcast_dynamic_shape(tf.shape(concentration1),
                                                     tf.shape(concentration0))
        super().__init__(uniform, bij, batch_shape=batch_shape, name=scope)
        self._reparameterization_type = FULLY_REPARAMETERIZED
        self._parameters = {k: v for k, v in parameters.items()
                            if k not in ("self", "__class__")}

    @property
    def concentration1(self):
        return self.bijector.concentration1

    @property
    def concentration0(self):
        return self.bijector.concentration0

    def _entropy(self):
        # TF 1.15's formula, log terms added (the true entropy subtracts them)
        a, b = self.concentration1, self.concentration0
        one = tf.ones([], dtype=b.dtype)
        harmonic_b = tf.digamma(b + one) - tf.digamma(one)
        return (1 - 1.0 / a) + (1 - 1.0 / b) * harmonic_b + tf.log(a) + tf.log(b)

    def _moment(self, n):
        total = self.concentration1 + self.concentration0
        a = tf.ones_like(total, dtype=self.dtype) * self.concentration1
        b = tf.ones_like(total, dtype=self.dtype) * self.concentration0
        beta_arg = tf.stack([1 + n / a, b], -1)
        return tf.exp(tf.log(b) + tf.lbeta(beta_arg))

    def _mean(self):
        return self._moment(1)

    def _variance(self):
        return self._moment(2) - tf.square(self._moment(1))

    def _mode(self):
        a, b = self.concentration1, self.concentration0
        mode = ((a - 1) / (a * b - 1)) ** (1.0 / a)
        if self.allow_nan_stats:
            nan = tf.fill(self.batch_shape_tensor(),
                          np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            is_defined = (a > 1.0) & (b > 1.0)
            return tf.where_v2(is_defined, mode, nan)
        return with_dependencies([
            tf.assert_less(tf.ones([], dtype=a.dtype), a,
                           message="Mode undefined for concentration1 <= 1."),
            tf.assert_less(tf.ones([], dtype=b.dtype), b,
                           message="Mode undefined for concentration0 <= 1.")], mode)
