"""Learning-rate schedules: tensors computed from the global step (exponential, piecewise
constant, polynomial, natural-exp, inverse-time, cosine and its variants)."""

import math

from tideflow.framework import dtypes, nest, ops
from tideflow.ops import array_ops, cast_ops, constant_op, gather_ops, math_ops


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * decay_rate ** (global_step / decay_steps)`` (floored when staircase)."""
    with ops.name_scope(name, "ExponentialDecay",
                        [learning_rate, global_step, decay_steps, decay_rate]) as scope:
        # TF 1.15's ops in its order (its ExponentialDecay schedule): the rate, the steps and
        # the decay rate cast to the rate's type, then the global step
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        rate = cast_ops.cast(decay_rate, dtype)
        p = cast_ops.cast(global_step, dtype) / steps
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(rate, p), name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` on
    ``(boundaries[i-1], boundaries[i]]``, ``values[-1]`` past the last boundary."""
    # as TF 1.15: everything is converted (and checked) before the scope opens, so the
    # boundaries' and values' Consts (and an int32 boundary's Cast to an int64 step) are
    # top-level ops
    bounds = ops.convert_n_to_tensor(nest.flatten(boundaries))
    vals = ops.convert_n_to_tensor(nest.flatten(values))
    x = ops.convert_to_tensor(x)
    for i, b in enumerate(bounds):
        if b.dtype.base_dtype != x.dtype.base_dtype:
            # Python ints (int32) may meet an int64 step; nothing else is converted
            if b.dtype.base_dtype == dtypes.int32 and x.dtype.base_dtype == dtypes.int64:
                bounds[i] = cast_ops.cast(b, dtypes.int64)
            else:
                raise ValueError(
                    f"Boundaries ({b.dtype.base_dtype}) must have the same dtype as x "
                    f"({x.dtype.base_dtype}).")
    for v in vals[1:]:
        if v.dtype.base_dtype != vals[0].dtype.base_dtype:
            raise ValueError(
                f"Values must have elements all with the same dtype "
                f"({vals[0].dtype.base_dtype} vs {v.dtype.base_dtype}).")
    if len(bounds) != len(vals) - 1:
        raise ValueError(
            "The length of boundaries should be 1 less than the length of values")
    return piecewise_constant_schedule(x, bounds, vals, name)


def piecewise_constant_schedule(x, boundaries, values, name=None):
    """Keras's ``PiecewiseConstantDecay(boundaries, values, name)(x)`` (tf.train's
    piecewise_constant after its checks): in its scope, the boundaries, values and x become
    tensors and each boundary is cast to x's dtype."""
    with ops.name_scope(name, "PiecewiseConstant") as scope:
        bounds = ops.convert_n_to_tensor(boundaries)
        vals = ops.convert_n_to_tensor(values)
        x = ops.convert_to_tensor(x)
        bounds = [b if b.dtype.base_dtype == x.dtype.base_dtype
                  else cast_ops.cast(b, x.dtype.base_dtype) for b in bounds]
        if not bounds:
            raise IndexError("list index out of range")  # TF 1.15's boundaries[0]
        # from the last interval back: x <= b[i] picks values[i] over what lies above
        result = vals[-1]
        for b, v in reversed(list(zip(bounds, vals[:-1]))):
            result = gather_ops.where(math_ops.less_equal(x, b), v, result)
        with ops.name_scope(f"{scope}case/cond/"):  # TF's value: its tf.case's outer Merge
            result = array_ops.identity(result, name="Merge")
        # TF 1.15 picks the value with tf.case (nested Switch/Merge conds and an exclusivity
        # Assert): n * n + 9 * n + 24 ops more than these Selects for n boundaries. Their ids
        # are skipped, so the ops after it (and the seeds of random ones) get TF's op count
        n = len(bounds)
        ops.get_default_graph()._skip_op_ids(n * n + 9 * n + 24)
        return result


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """Decays from ``learning_rate`` to ``end_learning_rate`` as ``(1 - step/decay_steps) **
    power``; with ``cycle`` it restarts with a longer horizon instead of staying at the end."""
    with ops.name_scope(name, "PolynomialDecay",
                        [learning_rate, global_step, decay_steps, end_learning_rate,
                         power]) as scope:
        # TF 1.15's ops in its order (its PolynomialDecay schedule)
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        end_lr = cast_ops.cast(end_learning_rate, dtype)
        power = cast_ops.cast(power, dtype)
        step = cast_ops.cast(global_step, dtype)
        steps = cast_ops.cast(decay_steps, dtype)
        if cycle:
            # the horizon is the first multiple of decay_steps at or past the step (1 at step
            # 0): a tf.cond, as TF 1.15 builds it
            from tideflow.ops.cond import cond

            multiplier = cond(math_ops.equal(step, 0), lambda: 1.0,
                              lambda: math_ops.ceil(step / decay_steps))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, decay_steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(lr - end_lr, math_ops.pow(1 - p, power)), end_lr,
                            name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """``learning_rate * exp(-decay_rate * global_step / decay_steps)``."""
    # as TF 1.15: an exponential decay by exp(-decay_rate) (its ops and its scope's name)
    natural_exp_rate = math_ops.exp(math_ops.negative(decay_rate))
    return exponential_decay(learning_rate, global_step, decay_steps, natural_exp_rate,
                             staircase=staircase, name=name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """``learning_rate / (1 + decay_rate * global_step / decay_steps)``."""
    with ops.name_scope(name, "InverseTimeDecay",
                        [learning_rate, global_step, decay_rate]) as scope:
        # TF 1.15's ops in its order (its InverseTimeDecay schedule)
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        rate = cast_ops.cast(decay_rate, dtype)
        p = cast_ops.cast(global_step, dtype) / steps
        if staircase:
            p = math_ops.floor(p)
        one = cast_ops.cast(constant_op.constant(1), dtype)
        return math_ops.div(lr, math_ops.add(one, math_ops.multiply(rate, p)), name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """Half a cosine from ``learning_rate`` down to ``alpha * learning_rate`` over
    ``decay_steps`` (Loshchilov and Hutter, SGDR)."""
    with ops.name_scope(name, "CosineDecay", [learning_rate, global_step]):
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        step = math_ops.minimum(cast_ops.cast(global_step, dtype), steps)
        fraction = step / steps
        cosine = 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(lr, decayed)  # unnamed in TF 1.15: CosineDecay/Mul_3


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0,
                          alpha=0.0, name=None):
    """Cosine decay with warm restarts: period ``i`` lasts ``first_decay_steps * t_mul**i``
    steps and starts at ``learning_rate * m_mul**i``."""
    with ops.name_scope(name, "SGDRDecay", [learning_rate, global_step]) as scope:
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        first = cast_ops.cast(first_decay_steps, dtype)
        alpha = cast_ops.cast(alpha, dtype)
        t_mul_t = cast_ops.cast(t_mul, dtype)
        m_mul = cast_ops.cast(m_mul, dtype)
        fraction = cast_ops.cast(global_step, dtype) / first

        def compute_step(fraction, geometric):
            # period lengths grow geometrically unless t_mul is 1
            if geometric:
                i_restart = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_mul_t))
                                           / math_ops.log(t_mul_t))
                sum_r = (1.0 - t_mul_t ** i_restart) / (1.0 - t_mul_t)
                return i_restart, (fraction - sum_r) / t_mul_t ** i_restart
            i_restart = math_ops.floor(fraction)
            return i_restart, fraction - i_restart

        # a tf.cond on t_mul == 1, as TF 1.15 builds it
        from tideflow.ops.cond import cond

        i_restart, fraction = cond(math_ops.equal(t_mul_t, 1.0),
                                   lambda: compute_step(fraction, False),
                                   lambda: compute_step(fraction, True))
        m_fac = m_mul ** i_restart
        cosine = 0.5 * m_fac * (1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))
        decayed = (1 - alpha) * cosine + alpha
        return math_ops.multiply(lr, decayed, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """``learning_rate * ((alpha + linear) * cosine + beta)``, where ``linear`` goes from 1 to 0
    over ``decay_steps`` and ``cosine`` makes ``num_periods`` periods."""
    with ops.name_scope(name, "LinearCosineDecay", [learning_rate, global_step]) as scope:
        lr = ops.convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = lr.dtype
        steps = cast_ops.cast(decay_steps, dtype)
        num_periods = cast_ops.cast(num_periods, dtype)
        alpha = cast_ops.cast(alpha, dtype)
        beta = cast_ops.cast(beta, dtype)
        step = math_ops.minimum(cast_ops.cast(global_step, dtype), steps)
        linear = (steps - step) / steps
        completed = step / steps  # TF 1.15's order
        fraction = 2.0 * num_periods * completed
        cosine = 0.5 * (1.0 + math_ops.cos(constant_op.constant(math.pi) * fraction))
        return math_ops.multiply(lr, (alpha + linear) * cosine + beta, name=scope)


def __getattr__(name):
    # TF's learning_rate_decay module also holds noisy_linear_cosine_decay, which tideflow keeps
    # with the other tf.train extras (that module imports this one)
    if name == "noisy_linear_cosine_decay":
        from tideflow.train import train_extras

        return train_extras.noisy_linear_cosine_decay
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
