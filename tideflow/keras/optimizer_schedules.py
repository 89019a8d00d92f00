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


__all__ = ["ExponentialDecay", "InverseTimeDecay", "LearningRateSchedule",
           "PiecewiseConstantDecay", "PolynomialDecay"]
