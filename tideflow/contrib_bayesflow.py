"""``tf.contrib.bayesflow.monte_carlo``: Monte Carlo expectations (plain, with the
score-function gradient, and by importance sampling in log space)."""

from tideflow import logging
from tideflow.framework import ops
from tideflow.ops import array_ops, math_ops, nn_impl, reduction_ops

__all__ = ["expectation", "expectation_importance_sampler",
           "expectation_importance_sampler_logspace"]


def _samples(dist, z, n, seed):
    """``z`` as a tensor, or ``n`` samples of ``dist``: exactly one of them is given."""
    with ops.name_scope("get_samples", values=[z, n]):
        if (n is None) == (z is None):
            raise ValueError('Must specify exactly one of arguments "n" and "z".  Found: '
                             f"n = {n}, z = {z}")
        if n is not None:
            return dist.sample(n, seed=seed)
        return ops.convert_to_tensor(z, name="z")


def _log_mean_exp(log_values):
    """``log(mean(exp(log_values)))`` over axis 0, shifted by the (constant) maximum so the
    exponentials stay in range."""
    center = array_ops.stop_gradient(reduction_ops.reduce_max(log_values, axis=[0]))
    centered = math_ops.exp(log_values - center)
    return math_ops.log(reduction_ops.reduce_mean(centered, axis=[0])) + center


def expectation_importance_sampler(f, log_p, sampling_dist_q, z=None, n=None, seed=None,
                                   name="expectation_importance_sampler"):
    """The importance-sampling estimate of ``E_p[f(Z)]`` from samples of ``sampling_dist_q``
    (``z``, or ``n`` drawn): the positive and negative parts of ``f`` (each plus one) are
    averaged in log space and their exponentials subtracted."""
    q = sampling_dist_q
    with ops.name_scope(name, values=[z, n]):
        z = _samples(q, z, n, seed)
        log_p_z = log_p(z)
        log_q_z = q.log_prob(z)
        f_z = f(z)
        log_f_plus = math_ops.log(nn_impl.relu(f_z) + 1.0)
        log_f_minus = math_ops.log(nn_impl.relu(-1.0 * f_z) + 1.0)
        log_plus = _log_mean_exp(log_f_plus + log_p_z - log_q_z)
        log_minus = _log_mean_exp(log_f_minus + log_p_z - log_q_z)
    return math_ops.exp(log_plus) - math_ops.exp(log_minus)


def expectation_importance_sampler_logspace(log_f, log_p, sampling_dist_q, z=None, n=None,
                                            seed=None,
                                            name="expectation_importance_sampler_logspace"):
    """``log E_p[exp(log_f(Z))]`` estimated by importance sampling from ``sampling_dist_q``,
    computed in log space."""
    q = sampling_dist_q
    with ops.name_scope(name, values=[z, n]):
        z = _samples(q, z, n, seed)
        return _log_mean_exp(log_f(z) + log_p(z) - q.log_prob(z))


_warned = []


def expectation(f, samples, log_prob=None, use_reparametrization=True, axis=0,
                keep_dims=False, name=None):
    """The Monte Carlo mean of ``f(samples)`` over ``axis``. Without reparametrization its
    gradient is the score-function one: ``f(x)`` plus ``stop(f(x)) * (log_prob(x) -
    stop(log_prob(x)))`` (zero, but carrying ``log_prob``'s gradient)."""
    if not _warned:
        _warned.append(True)
        logging.warning("expectation (from tensorflow.contrib.bayesflow.python.ops."
                        "monte_carlo_impl) is deprecated and will be removed after "
                        "2018-10-01.\nInstructions for updating:\nThe tf.contrib.bayesflow "
                        "library has moved to TensorFlow Probability "
                        "(https://github.com/tensorflow/probability). Use "
                        "`tfp.monte_carlo.expectation` instead.")
    with ops.name_scope(name, "expectation", [samples]):
        if not callable(f):
            raise ValueError("`f` must be a callable function.")  # noqa: TRY004 - as TF
        if use_reparametrization:
            return reduction_ops.reduce_mean(f(samples), axis=axis, keepdims=keep_dims)
        if not callable(log_prob):
            raise ValueError("`log_prob` must be a callable function.")  # noqa: TRY004 - as TF
        x = array_ops.stop_gradient(samples)
        log_px = log_prob(x)
        fx = f(x)  # once, in case it has side effects
        fx += array_ops.stop_gradient(fx) * (log_px - array_ops.stop_gradient(log_px))
        return reduction_ops.reduce_mean(fx, axis=axis, keepdims=keep_dims)
