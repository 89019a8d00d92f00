"""``tf.keras.optimizers.schedules``: learning rates as functions of the optimizer's step."""


class LearningRateSchedule:
    """``schedule(step)`` is the learning rate at ``step`` (a tensor)."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _lrd():
    """tf.train's schedules: TF 1.15 builds those with these classes, so they share ops,
    names, dtypes and seeds."""
    from tideflow.train import learning_rate_decay

    return learning_rate_decay


class _StepDecay(LearningRateSchedule):
    """A decay of ``initial_learning_rate`` by ``decay_rate`` over the progress
    ``step / decay_steps`` (floored with ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.decay_rate, self.staircase, self.name = decay_rate, staircase, name

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class ExponentialDecay(_StepDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored
    with ``staircase``)."""

    def __call__(self, step):
        return _lrd().exponential_decay(self.initial_learning_rate, step, self.decay_steps,
                                        self.decay_rate, self.staircase, self.name)


class InverseTimeDecay(_StepDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``."""

    def __call__(self, step):
        return _lrd().inverse_time_decay(self.initial_learning_rate, step, self.decay_steps,
                                         self.decay_rate, self.staircase, self.name)


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` while ``boundaries[i-1] < step <= boundaries[i]``."""

    def __init__(self, boundaries, values, name=None):
        if len(values) != len(boundaries) + 1:
            raise ValueError("The length of boundaries should be 1 less than the length of "
                             "values")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        return _lrd().piecewise_constant_schedule(step, self.boundaries, self.values, self.name)

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
        return _lrd().polynomial_decay(self.initial_learning_rate, step, self.decay_steps,
                                       self.end_learning_rate, self.power, self.cycle,
                                       self.name)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


# -- tf.keras.experimental's cosine schedules (TF 1.14/1.15) ----------------------------------

class _Configured(LearningRateSchedule):
    _ARGS = ()

    def get_config(self):
        return {k: getattr(self, k) for k in self._ARGS}


class CosineDecay(_Configured):
    """``lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps))
    + alpha)``."""

    _ARGS = ("initial_learning_rate", "decay_steps", "alpha", "name")

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.alpha, self.name = alpha, name

    def __call__(self, step):
        return _lrd().cosine_decay(self.initial_learning_rate, step, self.decay_steps,
                                   self.alpha, self.name)


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
        return _lrd().cosine_decay_restarts(self.initial_learning_rate, step,
                                            self.first_decay_steps, self.t_mul, self.m_mul,
                                            self.alpha, self.name)


class LinearCosineDecay(_Configured):
    """``lr * ((alpha + linear) * cosine + beta)``: a linear decay over ``decay_steps``
    times a cosine of ``num_periods`` periods."""

    _ARGS = ("initial_learning_rate", "decay_steps", "num_periods", "alpha", "beta", "name")

    def __init__(self, initial_learning_rate, decay_steps, num_periods=0.5, alpha=0.0,
                 beta=0.001, name=None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.num_periods, self.alpha, self.beta, self.name = num_periods, alpha, beta, name

    def __call__(self, step):
        return _lrd().linear_cosine_decay(self.initial_learning_rate, step, self.decay_steps,
                                          self.num_periods, self.alpha, self.beta, self.name)


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
        return _lrd().noisy_linear_cosine_decay(
            self.initial_learning_rate, step, self.decay_steps, self.initial_variance,
            self.variance_decay, self.num_periods, self.alpha, self.beta, self.name)


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
