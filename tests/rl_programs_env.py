"""What the reduced reinforcement-learning programs share in place of gym and of their logging:
NumPy stand-ins for gym's spaces, a tiny deterministic environment, spinup's epoch logger reduced
to its printing, and the discounted cumulative sum their buffers compute with SciPy."""

import numpy as np


class Box:
    """gym.spaces.Box: bounds, shape and a seeded sampler."""

    def __init__(self, low, high, shape, seed=0):
        self.low = np.full(shape, low, np.float32)
        self.high = np.full(shape, high, np.float32)
        self.shape = shape
        self.dtype = np.float32
        self._rng = np.random.RandomState(seed)

    def sample(self):
        return self._rng.uniform(self.low, self.high).astype(np.float32)


class Discrete:
    """gym.spaces.Discrete: n actions and a seeded sampler."""

    def __init__(self, n, seed=0):
        self.n = n
        self.shape = ()
        self.dtype = np.int64
        self._rng = np.random.RandomState(seed)

    def sample(self):
        return int(self._rng.randint(self.n))


class FakeEnv:
    """A tiny deterministic stand-in for a gym env: the state drifts by the action (one-hot for
    a discrete one) through a fixed matrix; the reward is -|state|; episodes last ep_len steps."""

    def __init__(self, obs_dim=3, act_dim=2, discrete=False, ep_len=7, seed=0):
        self.observation_space = Box(-10., 10., (obs_dim,), seed)
        self.action_space = Discrete(act_dim, seed) if discrete else Box(-1., 1., (act_dim,), seed)
        self.discrete, self.ep_len, self.obs_dim, self.act_dim = discrete, ep_len, obs_dim, act_dim
        self.W = np.cos(np.arange(obs_dim * act_dim, dtype=np.float32).reshape(act_dim, obs_dim))

    def reset(self):
        self.t = 0
        self.s = np.sin(np.arange(self.obs_dim, dtype=np.float32) + 1.0).astype(np.float32)
        return self.s.copy()

    def step(self, a):
        self.t += 1
        if self.discrete:
            a = np.eye(self.act_dim, dtype=np.float32)[int(a)]
        a = np.asarray(a, np.float32).reshape(self.act_dim)
        self.s = (0.9 * self.s + 0.3 * a.dot(self.W)).astype(np.float32)
        r = float(-np.abs(self.s).sum())
        return self.s.copy(), r, self.t >= self.ep_len, {}


class EpochLogger:
    """spinup.utils.logx.EpochLogger reduced to its printing (no files); values rounded to five
    decimals, as the float32 sums of TF's kernels and NumPy's differ in the last digits."""

    def __init__(self, **kw):
        self.epoch_dict, self.row = {}, []

    def log(self, msg):
        print(msg)

    def store(self, **kwargs):
        for k, v in kwargs.items():
            self.epoch_dict.setdefault(k, []).append(v)

    def log_tabular(self, key, val=None, with_min_and_max=False, average_only=False):
        if val is not None:
            self.row.append((key, val))
            return
        v = np.array(self.epoch_dict.pop(key, [0.0]), dtype=np.float64).ravel()
        self.row.append(("Average" + key, v.mean()))
        if not average_only:
            self.row.append(("Std" + key, v.std()))
        if with_min_and_max:
            self.row.append(("Max" + key, v.max()))
            self.row.append(("Min" + key, v.min()))

    def dump_tabular(self):
        for k, v in self.row:
            print(f"|{k:>15} | {round(float(v), 5) + 0.0:.6g}")
        self.row = []


def lfilter_discount(x, discount):
    """scipy.signal.lfilter([1], [1, -discount], x[::-1], axis=0)[::-1] (the rllab discounted
    cumulative sum), as its recurrence in float64: importing scipy.signal costs seconds."""
    x = np.asarray(x, np.float64)
    out = np.empty_like(x)
    acc = 0.0
    for i in range(len(x) - 1, -1, -1):
        acc = x[i] + discount * acc
        out[i] = acc
    return out
