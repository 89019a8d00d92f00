"""``tf.data.Options`` and its parts (optimization, threading, distribution, autotuning).

Options are recorded and merged as TF does (``Dataset.with_options``, ``Dataset.options()``);
setting an unknown attribute raises AttributeError, as in TF. tideflow's pipeline does not act
on most of them: it runs the pipeline as built (no graph rewrites), its parallel map and
prefetch threads are sized by the ops' own arguments, and ``deterministic`` output order is
always kept.
"""

import enum
from typing import ClassVar


class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionsBase:
    """Attributes from ``_FIELDS`` (name -> (default, type or None)); others are errors."""

    _FIELDS: ClassVar[dict] = {}
    _ALIASES: ClassVar[dict] = {}

    def __init__(self):
        object.__setattr__(self, "_values", {})

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        name = self._ALIASES.get(name, name)
        fields = type(self)._FIELDS
        if name not in fields:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
        values = object.__getattribute__(self, "_values")
        if name not in values:
            default = fields[name][0]
            if isinstance(default, type) and issubclass(default, _OptionsBase):
                values[name] = default()
            else:
                return default
        return values[name]

    def __setattr__(self, name, value):
        spelled = name
        name = self._ALIASES.get(name, name)
        fields = type(self)._FIELDS
        if name not in fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = fields[name][1]
        if value is not None and kind is not None and not isinstance(value, kind):
            raise TypeError(f'Property "{spelled}" must be of type {kind}, got: {value!r} '
                            f"(type: {type(value)!r})")  # (TF 1.15's words)
        self._values[name] = value

    def __eq__(self, other):
        return type(self) is type(other) and self._values == other._values

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        items = ", ".join(f"{k}={v!r}" for k, v in sorted(self._values.items()))
        return f"{type(self).__name__}({items})"

    def _merge_from(self, other):
        for k, v in other._values.items():
            if isinstance(v, _OptionsBase):
                getattr(self, k)._merge_from(v)
            elif v is not None:
                mine = self._values.get(k)
                if mine is not None and mine != v:  # as TF 1.15's merge_options
                    # (named as TF 1.15 spells the option)
                    spelled = next((a for a, c in self._ALIASES.items() if c == k), k)
                    raise ValueError(f"Cannot merge incompatible values ({mine!r} and {v!r}) "
                                     f"of option: {spelled}")
                self._values[k] = v


_BOOL = bool
_INT = int


class MapVectorizationOptions(_OptionsBase):
    """``tf.data.experimental.MapVectorizationOptions`` (TF 1.15's ``map_vectorization``
    optimization option; recorded: tideflow runs maps as written)."""

    _FIELDS: ClassVar[dict] = {"enabled": (None, _BOOL), "use_choose_fastest": (None, _BOOL)}


class OptimizationOptions(_OptionsBase):
    _FIELDS: ClassVar[dict] = {k: (None, _BOOL) for k in (
        "apply_default_optimizations", "autotune", "autotune_buffers", "filter_fusion",
        "filter_parallelization", "hoist_random_uniform", "inject_prefetch",
        "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion", "map_parallelization",
        "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
        "shuffle_and_repeat_fusion", "warm_start")}
    _FIELDS.update({"autotune_cpu_budget": (None, _INT), "autotune_ram_budget": (None, _INT),
                    "map_vectorization": (MapVectorizationOptions, MapVectorizationOptions)})


class ThreadingOptions(_OptionsBase):
    _FIELDS: ClassVar[dict] = {"max_intra_op_parallelism": (None, _INT),
               "private_threadpool_size": (None, _INT)}


class DistributeOptions(_OptionsBase):
    _FIELDS: ClassVar[dict] = {"auto_shard_policy": (AutoShardPolicy.AUTO, AutoShardPolicy),
               "num_devices": (None, _INT)}


class AutotuneOptions(_OptionsBase):
    _FIELDS: ClassVar[dict] = {"enabled": (None, _BOOL), "cpu_budget": (None, _INT),
               "ram_budget": (None, _INT), "autotune_algorithm": (None, AutotuneAlgorithm)}


class StatsOptions(_OptionsBase):
    """``tf.data.experimental.StatsOptions``: the ``aggregator`` the dataset's stats stages
    record into (``tf.data.experimental.latency_stats``...), under ``prefix``."""

    _FIELDS: ClassVar[dict] = {"aggregator": (None, None), "prefix": ("", str),
                               "counter_prefix": ("", str), "latency_all_edges": (None, _BOOL)}


class Options(_OptionsBase):
    """``tf.data.Options``: options of a dataset (``Dataset.with_options``)."""

    _FIELDS: ClassVar[dict] = {
        "autotune": (AutotuneOptions, AutotuneOptions),
        "deterministic": (None, _BOOL),
        "experimental_distribute": (DistributeOptions, DistributeOptions),
        "experimental_external_state_policy": (None, ExternalStatePolicy),
        "experimental_optimization": (OptimizationOptions, OptimizationOptions),
        "experimental_slack": (None, _BOOL),
        "experimental_symbolic_checkpoint": (None, _BOOL),
        "experimental_warm_start": (None, _BOOL),
        "threading": (ThreadingOptions, ThreadingOptions),
        "experimental_stats": (StatsOptions, StatsOptions),
    }
    _ALIASES: ClassVar[dict] = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}

    def merge(self, options):
        """A new Options holding the options set in either; an option set to two different
        values is a ValueError ("Cannot merge incompatible values"), as in TF 1.15."""
        out = Options()
        out._merge_from(self)
        out._merge_from(options)
        return out


__all__ = ["AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "MapVectorizationOptions", "OptimizationOptions", "Options", "StatsOptions",
           "ThreadingOptions"]
