"""``tf.random``: TF 1.x's ``tf.random.*`` names for the random ops (loaded on first use).

``uniform``/``normal``/``truncated_normal``/``shuffle``/``gamma``/``multinomial`` and
``set_random_seed`` are the same function objects as ``tf.random_uniform`` etc.;
``categorical`` is TF 1.13's ``tf.random.categorical(logits, num_samples, dtype=None, seed=None,
name=None)``, a Multinomial op under the name scope ``categorical``.

The ``stateless_*`` functions are deterministic given their seed pair; uniform, normal and
truncated normal draws are TF's own numbers, the others are not TF's sequences (see
``tideflow/ops/stateless_random_ops.py``).
"""

import types

from tideflow.framework import ops
from tideflow.framework.random_seed import set_random_seed
from tideflow.nn import log_uniform_candidate_sampler, uniform_candidate_sampler
from tideflow.ops.random_generator import (
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
    stateless_shuffle,
)
from tideflow.ops.random_ops import multinomial, truncated_normal
from tideflow.ops.random_ops import random_gamma as gamma
from tideflow.ops.random_ops import random_normal as normal
from tideflow.ops.random_ops import random_shuffle as shuffle
from tideflow.ops.random_ops import random_uniform as uniform
from tideflow.ops.stateless_random_ops import (
    fold_in,
    get_seed,
    poisson,
    split,
    stateless_categorical,
    stateless_multinomial,
    stateless_parameterized_truncated_normal,
    stateless_truncated_normal,
)
from tideflow.ops.stateless_random_ops import stateless_random_binomial as stateless_binomial
from tideflow.ops.stateless_random_ops import stateless_random_gamma as stateless_gamma
from tideflow.ops.stateless_random_ops import stateless_random_normal as stateless_normal
from tideflow.ops.stateless_random_ops import stateless_random_poisson as stateless_poisson
from tideflow.ops.stateless_random_ops import stateless_random_uniform as stateless_uniform


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``num_samples`` class indices (``dtype``, default int64) per row of ``logits``."""
    with ops.name_scope(name, "categorical", [logits]) as scope:
        return multinomial(logits, num_samples, seed=seed, name=scope, output_dtype=dtype)


experimental = types.SimpleNamespace(
    Algorithm=Algorithm, Generator=Generator, create_rng_state=create_rng_state,
    get_global_generator=get_global_generator, set_global_generator=set_global_generator,
    stateless_fold_in=fold_in, stateless_split=split, stateless_shuffle=stateless_shuffle)
experimental.__doc__ = "``tf.random.experimental``: the generator API and stateless helpers."

__all__ = [
    "Algorithm",
    "Generator",
    "categorical",
    "create_rng_state",
    "experimental",
    "fold_in",
    "gamma",
    "get_global_generator",
    "get_seed",
    "log_uniform_candidate_sampler",
    "multinomial",
    "normal",
    "poisson",
    "set_global_generator",
    "set_random_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_multinomial",
    "stateless_normal",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]

_NN_SAMPLERS = ("all_candidate_sampler", "fixed_unigram_candidate_sampler",
                "learned_unigram_candidate_sampler")


def __getattr__(name):
    """The candidate samplers tf.nn defines, under their tf.random names too."""
    if name in _NN_SAMPLERS:
        from tideflow import nn

        return getattr(nn, name)
    raise AttributeError(f"module 'tideflow.random' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_NN_SAMPLERS))
