"""``tf.random.Generator`` in graph mode, ``tf.random.Algorithm``, ``create_rng_state`` and the
global generator.

A generator's state is an int64 variable ``[counter, 0, key]`` (Philox's layout, three words;
``from_seed(s)`` starts the counter at ``s``, as TF does); each draw advances the counter by
``2**32`` and draws from the stateless ops under the seed pair ``(key, counter)``, so a
generator made from a seed repeats its sequence of draws, separate draws are independent
streams, and generators from different seeds share no stream unless their seeds differ by a
multiple of ``2**32`` within the number of draws made. The numbers are not TF's (see
``stateless_random_ops``); TF moves the counter by the amount of randomness used instead.
"""

import enum

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import stateless_random_ops as srs


class Algorithm(enum.Enum):
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_STATE_SIZES = {Algorithm.PHILOX.value: 3, Algorithm.THREEFRY.value: 2,
                Algorithm.AUTO_SELECT.value: 3}


def _alg_value(alg):
    if alg is None:
        return Algorithm.AUTO_SELECT.value
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        names = {"philox": 1, "threefry": 2, "auto_select": 3}
        if alg.lower() not in names:
            raise ValueError(f"Unsupported random algorithm: {alg!r}")
        return names[alg.lower()]
    if int(alg) not in _STATE_SIZES:
        raise ValueError(f"Unsupported random algorithm: {alg!r}")
    return int(alg)


def _state_array(seed, alg):
    # as TF 1.15: the Python integer chopped into 64-bit words, least significant first, in
    # two's complement of infinite precision (a negative seed's upper words are all ones)
    size = _STATE_SIZES[_alg_value(alg)]
    seed = int(seed)
    mask = (1 << 64) - 1
    words = [(seed >> (64 * i)) & mask for i in range(size)]
    return np.array(words, dtype=np.uint64).view(np.int64)


def create_rng_state(seed, algorithm):
    """The initial state of a generator seeded with the integer ``seed``: an int64 NumPy
    vector, as TF 1.15 returns it (its parameter name: ``algorithm``)."""
    return _state_array(seed, algorithm)


class Generator:
    """A random number generator whose state is a variable (``tf.random.Generator``)."""

    def __init__(self, copy_from=None, state=None, alg=None):
        from tideflow.ops import variables

        if copy_from is not None:
            if state is not None or alg is not None:
                raise ValueError("When `copy_from` is given, `state` and `alg` must be None.")
            state = copy_from.state.initialized_value()
            alg = copy_from.algorithm
        elif state is None:
            raise ValueError("Generator: give `copy_from` or a `state`")
        self._alg = _alg_value(alg)
        with ops.name_scope("random_generator"), ops.init_scope():
            init = ops.convert_to_tensor(state, dtype=dtypes.int64, name="initial_state")
            self._state_var = variables.Variable(init, name="StateVar", trainable=False,
                                                 dtype=dtypes.int64)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state comes from the integer ``seed``."""
        return cls(state=_state_array(seed, alg), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator seeded from the operating system's entropy."""
        return cls.from_seed(int(np.random.SeedSequence().entropy) & ((1 << 63) - 1), alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        counter = np.reshape(np.asarray(counter, np.int64), -1)
        return cls(state=np.concatenate([counter, [np.int64(key)]]).astype(np.int64), alg=alg)

    @property
    def state(self):
        """The state variable (int64)."""
        return self._state_var

    @property
    def algorithm(self):
        return self._alg

    @property
    def key(self):
        return self._state_var.value()[-1]

    def reset(self, state):
        """An op setting the state."""
        return self._state_var.assign(ops.convert_to_tensor(state, dtype=dtypes.int64))

    def reset_from_seed(self, seed):
        return self.reset(_state_array(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        counter = np.reshape(np.asarray(counter, np.int64), -1)
        return self.reset(np.concatenate([counter, [np.int64(key)]]).astype(np.int64))

    def skip(self, delta):
        """An op skipping ``delta`` draws."""
        from tideflow.ops import state_ops

        size = len(_state_array(0, self._alg))
        delta = ops.convert_to_tensor(delta, dtype=dtypes.int64)
        return state_ops.assign_add(self._state_var, _first(size, delta * _STEP))

    def _seed(self):
        """The seed pair for one draw: (key, counter after advancing it)."""
        from tideflow.ops import array_ops, state_ops

        size = len(_state_array(0, self._alg))
        new = state_ops.assign_add(self._state_var, _first(size, _STEP))
        return array_ops.stack([new[size - 1], new[0]])

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        with ops.name_scope(name, "stateful_normal", [shape, mean, stddev]) as n:
            return srs.stateless_random_normal(shape, self._seed(), mean, stddev, dtype, name=n)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        with ops.name_scope(name, "truncated_normal", [shape, mean, stddev]) as n:
            return srs.stateless_truncated_normal(shape, self._seed(), mean, stddev, dtype,
                                                  name=n)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        with ops.name_scope(name, "stateful_uniform", [shape, minval, maxval]) as n:
            return srs.stateless_random_uniform(shape, self._seed(), minval, maxval, dtype,
                                                name=n)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        with ops.name_scope(name, "stateful_uniform_full_int", [shape]) as n:
            return srs.stateless_random_uniform(shape, self._seed(), None, None, dtype, name=n)

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        with ops.name_scope(name, "binomial", [shape, counts, probs]) as n:
            return srs.stateless_random_binomial(shape, self._seed(), counts, probs, dtype,
                                                 name=n)

    def make_seeds(self, count=1):
        """``count`` new seed pairs for the stateless ops: an int64 tensor ``[2, count]``."""
        return srs.stateless_random_uniform([2, count], self._seed(), None, None,
                                            dtypes.int64)

    def split(self, count=1):
        """``count`` new generators seeded from this one.

        The children's states derive from this generator's state (as initialized) and the
        number of earlier splits, without an assignment, so the children can be initialized
        with ``global_variables_initializer`` together with their parent."""
        from tideflow.ops import array_ops

        self._splits = getattr(self, "_splits", 0) + 1
        base = self._state_var.initialized_value()
        size = len(_state_array(0, self._alg))
        seed = array_ops.stack([base[size - 1] + np.int64(self._splits), base[0]])
        seeds = srs.stateless_random_uniform([2, count], seed, None, None, dtypes.int64)
        out = []
        for i in range(count):
            key = seeds[0, i]
            zeros = [np.int64(0)] * (size - 2)
            state = array_ops.stack([seeds[1, i]] + zeros + [key])
            out.append(Generator(state=state, alg=self._alg))
        return out


def _first(size, value):
    """An int64 vector of ``size`` with ``value`` in the first place (a counter step)."""
    from tideflow.ops import array_ops

    value = ops.convert_to_tensor(value, dtype=dtypes.int64)
    return array_ops.concat([array_ops.reshape(value, [1]), np.zeros(size - 1, np.int64)], 0) \
        if size > 1 else array_ops.reshape(value, [1])


_STEP = np.int64(1 << 32)

def get_global_generator():
    """This graph's global generator (seeded from the OS on first use). Kept on the graph
    itself: a generator's variable points back at its graph, so a table keyed by graphs would
    keep every graph that ever used one alive."""
    g = ops.get_default_graph()
    gen = g.__dict__.get("_global_generator")
    if gen is None:
        gen = g.__dict__["_global_generator"] = Generator.from_non_deterministic_state()
    return gen


def set_global_generator(generator):
    """Makes ``generator`` this graph's global generator."""
    if not isinstance(generator, Generator):
        raise TypeError(f"set_global_generator: expected a tf.random.Generator, got "
                        f"{type(generator).__name__}")
    ops.get_default_graph().__dict__["_global_generator"] = generator


def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """``value`` with its first dimension permuted deterministically by ``seed``."""
    from tideflow.ops import array_ops, gather_ops, sort_ops

    del alg
    with ops.name_scope(name, "stateless_shuffle", [value, seed]):
        value = ops.convert_to_tensor(value, name="value")
        n = array_ops.shape(value)[:1]
        keys = srs.stateless_random_uniform(n, seed, dtype=dtypes.float64)
        return gather_ops.gather(value, sort_ops.argsort(keys))


__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator",
           "set_global_generator", "stateless_shuffle"]
