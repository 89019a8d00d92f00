"""``tf.keras.optimizers.schedules``: learning rates as functions of the optimizer's step."""

import tideflow as tf


class LearningRateSchedule:
    """``schedule(step)`` is the learning rate at ``step`` (a tensor)."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _f(x):
    return tf.cast(x, tf.float32)


class _StepDecay(LearningRateSchedule):
    """A decay of ``initial_learning_rate`` by ``decay_rate`` over the progress
    ``step / decay_steps`` (floored with ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def _progress(self, step):
        p = _f(step) / _f(self.decay_steps)
        if self.staircase:
            p = tf.floor(p)
        return p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored
    with ``staircase``)."""

    def __call__(self, step):
        p = self._progress(step)
        return _f(self.initial_learning_rate) * tf.pow(_f(self.decay_rate), p)


class InverseTimeDecay(_StepDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``."""

    def __call__(self, step):
        p = self._progress(step)
        return _f(self.initial_learning_rate) / (1.0 + _f(self.decay_rate) * p)


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` while ``boundaries[i-1] < step <= boundaries[i]``."""

    def __init__(self, boundaries, values, name=None):
        if len(values) != len(boundaries) + 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             "values")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        step = _f(step)
        out = _f(self.values[-1])
        for b, v in reversed(list(zip(self.boundaries, self.values[:-1]))):
            out = tf.where(step <= _f(b), _f(v), out)
        return out

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """From ``initial_learning_rate`` to ``end_learning_rate`` over ``decay_steps`` along
    ``(1 - step / decay_steps) ** power``."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle = end_learning_rate, power, cycle
        self.name = name

    def __call__(self, step):
        step = _f(step)
        steps = _f(self.decay_steps)
        if self.cycle:
            steps = steps * tf.maximum(tf.ceil(step / steps), 1.0)
        else:
            step = tf.minimum(step, steps)
        frac = tf.pow(1.0 - step / steps, _f(self.power))
        start, end = _f(self.initial_learning_rate), _f(self.end_learning_rate)
        return (start - end) * frac + end

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


# -- tf.keras.experimental's cosine schedules (TF 1.14/1.15) ----------------------------------

class _Configured(LearningRateSchedule):
    _ARGS = ()

    def get_config(self):
        return {k: getattr(self, k) for k in self._ARGS}


def _cosine(fraction):
    return 0.5 * (1.0 + tf.cos(tf.constant(3.141592653589793) * fraction))


class CosineDecay(_Configured):
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps))
    + alpha)``."""

    _ARGS = ("initial_learning_rate", "decay_steps", "alpha", "name")

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.alpha, self.name = alpha, name

    def __call__(self, step):
        steps = _f(self.decay_steps)
        fraction = tf.minimum(_f(step), steps) / steps
        alpha = _f(self.alpha)
        return _f(self.initial_learning_rate) * ((1.0 - alpha) * _cosine(fraction) + alpha)


class CosineDecayRestarts(_Configured):
    """Cosine decay with warm restarts (SGDR): periods of ``first_decay_steps`` growing by
    ``t_mul``, each restart's peak scaled by ``m_mul``."""

    _ARGS = ("initial_learning_rate", "first_decay_steps", "t_mul", "m_mul", "alpha", "name")

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name=None):
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul, self.m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step):
        fraction = _f(step) / _f(self.first_decay_steps)
        t_mul, m_mul, alpha = _f(self.t_mul), _f(self.m_mul), _f(self.alpha)
        if self.t_mul == 1.0:
            i_restart = tf.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = tf.floor(tf.log(1.0 - fraction * (1.0 - t_mul)) / tf.log(t_mul))
            sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
            fraction = (fraction - sum_r) / t_mul ** i_restart
        decayed = m_mul ** i_restart * _cosine(fraction)
        return _f(self.initial_learning_rate) * ((1.0 - alpha) * decayed + alpha)


class LinearCosineDecay(_Configured):
    """``lr * ((alpha + linear) * cosine + beta)``: a linear decay over ``decay_steps``
    times a cosine of ``num_periods`` periods."""

    _ARGS = ("initial_learning_rate", "decay_steps", "num_periods", "alpha", "beta", "name")

    def __init__(self, initial_learning_rate, decay_steps, num_periods=0.5, alpha=0.0,
                 beta=0.001, name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.num_periods, self.alpha, self.beta, self.name = num_periods, alpha, beta, name

    def _linear(self, step):
        steps = _f(self.decay_steps)
        step = tf.minimum(_f(step), steps)
        return (steps - step) / steps, step / steps

    def _finish(self, linear, completed):
        cosine = _cosine(2.0 * _f(self.num_periods) * completed)
        return _f(self.initial_learning_rate) * (
            (_f(self.alpha) + linear) * cosine + _f(self.beta))

    def __call__(self, step):
        linear, completed = self._linear(step)
        return self._finish(linear, completed)


class NoisyLinearCosineDecay(LinearCosineDecay):
    """``LinearCosineDecay`` whose linear part gets Gaussian noise of variance
    ``initial_variance / (1 + step) ** variance_decay``."""

    _ARGS = ("initial_learning_rate", "decay_steps", "initial_variance", "variance_decay",
             "num_periods", "alpha", "beta", "name")

    def __init__(self, initial_learning_rate, decay_steps, initial_variance=1.0,
                 variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001, name=None):
        super().__init__(initial_learning_rate, decay_steps, num_periods, alpha, beta, name)
        self.initial_variance, self.variance_decay = initial_variance, variance_decay

    def __call__(self, step):
        linear, completed = self._linear(step)
        variance = _f(self.initial_variance) / tf.pow(1.0 + _f(step), _f(self.variance_decay))
        noisy = linear + tf.random_normal(tf.shape(linear), stddev=tf.sqrt(variance))
        return self._finish(noisy, completed)


def serialize(learning_rate_schedule):
    """A schedule as ``{'class_name', 'config'}``."""
    return {"class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config()}


def deserialize(config, custom_objects=None):
    """The schedule ``serialize`` described (a user's class found in ``custom_objects`` or
    among the registered custom objects)."""
    from tideflow.keras._utils import deserialize as _deserialize

    table = {name: obj for name, obj in globals().items()
             if isinstance(obj, type) and issubclass(obj, LearningRateSchedule)
             and not name.startswith("_")}
    cls = _deserialize(config["class_name"], table, "learning rate schedule", custom_objects,
                       instantiate=False)
    return cls.from_config(config.get("config", {}))


__all__ = ["ExponentialDecay", "InverseTimeDecay", "LearningRateSchedule",
           "PiecewiseConstantDecay", "PolynomialDecay", "deserialize", "serialize"]
