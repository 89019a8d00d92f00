"""``tf.keras.initializers``: the initializer classes with Keras's defaults (the random ones
draw with stddev / range 0.05), their lower-case aliases, and ``get``."""

from tideflow.framework import dtypes
from tideflow.keras._utils import deserialize as _deserialize
from tideflow.keras._utils import snake_case
from tideflow.ops import init_ops

Initializer = init_ops.Initializer
Zeros = init_ops.Zeros
Ones = init_ops.Ones
Constant = init_ops.Constant
VarianceScaling = init_ops.VarianceScaling
Orthogonal = init_ops.Orthogonal
GlorotUniform = init_ops.GlorotUniform
GlorotNormal = init_ops.GlorotNormal
Identity = init_ops.Identity  # TF 1.15's keras takes init_ops' own (gain * eye, a Mul)


class RandomNormal(init_ops.RandomNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


class RandomUniform(init_ops.RandomUniform):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(minval=minval, maxval=maxval, seed=seed, dtype=dtype)


class TruncatedNormal(init_ops.TruncatedNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed=seed)


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed=seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed=seed)


zeros = zero = Zeros
ones = one = Ones
constant = Constant
random_normal = normal = RandomNormal
random_uniform = uniform = RandomUniform
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
orthogonal = Orthogonal
identity = Identity
glorot_uniform = GlorotUniform  # the classes themselves, as TF 1.15 (not factories)
glorot_normal = GlorotNormal

_TABLE = {
    "Zeros": Zeros, "Ones": Ones, "Constant": Constant, "RandomNormal": RandomNormal,
    "RandomUniform": RandomUniform, "TruncatedNormal": TruncatedNormal,
    "VarianceScaling": VarianceScaling, "Orthogonal": Orthogonal, "Identity": Identity,
    "GlorotUniform": GlorotUniform, "GlorotNormal": GlorotNormal,
    "zeros": Zeros, "ones": Ones, "zero": Zeros, "one": Ones, "constant": Constant, "random_normal": RandomNormal,
    "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "orthogonal": Orthogonal, "identity": Identity,
    "uniform": RandomUniform, "normal": RandomNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_normal": he_normal, "he_uniform": he_uniform, "lecun_normal": lecun_normal,
    "lecun_uniform": lecun_uniform,
}


def serialize(initializer):
    if initializer is None:
        return None  # (a layer's unset initializer, as TF)
    if not hasattr(initializer, "get_config") and hasattr(initializer, "__name__"):
        return initializer.__name__  # a plain function: its name, as TF
    config = initializer.get_config() if hasattr(initializer, "get_config") else {}
    config = {k: (v.name if isinstance(v, dtypes.DType) else v) for k, v in config.items()}
    return {"class_name": type(initializer).__name__, "config": config}


def deserialize(config, custom_objects=None):
    if isinstance(config, dict) and not (custom_objects or {}).get(config.get("class_name")):
        # {'class_name': 'he_normal', 'config': {'seed': 3}}: the factories take the config
        factory = _TABLE.get(config.get("class_name"))
        if factory is not None and not isinstance(factory, type):
            return factory(**config.get("config", {}))
    return _deserialize(config, _TABLE, "initializer", custom_objects)


def get(identifier):
    """An initializer from a name (``'glorot_uniform'``, ``'he_normal'``...), a config dict, or
    itself."""
    if identifier is None:
        return None
    if isinstance(identifier, str) and identifier not in _TABLE:
        snake = snake_case(identifier)
        if snake in _TABLE:
            identifier = snake
    return deserialize(identifier)
