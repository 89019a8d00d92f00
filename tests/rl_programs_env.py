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


def spinup_mpi_tf():
    """spinup/utils/mpi_tf.py in one process (the allreduce and the broadcast are identities),
    as the PPO and TRPO programs use it: (flat_concat, assign_params_from_flat, sync_params,
    sync_all_params, MpiAdamOptimizer). Built on call, after the test imports tideflow."""
    import tideflow as tf

    def flat_concat(xs):
        return tf.concat([tf.reshape(x, (-1,)) for x in xs], axis=0)

    def assign_params_from_flat(x, params):
        splits = tf.split(x, [int(np.prod(p.shape.as_list())) for p in params])
        new_params = [tf.reshape(p_new, p.shape) for p, p_new in zip(params, splits)]
        return tf.group([tf.assign(p, p_new) for p, p_new in zip(params, new_params)])

    def sync_params(params):
        synced_params = tf.py_func(lambda x: x, [flat_concat(params)], tf.float32)
        return assign_params_from_flat(synced_params, params)

    def sync_all_params():
        return sync_params(tf.global_variables())

    class MpiAdamOptimizer(tf.train.AdamOptimizer):
        def __init__(self, **kwargs):
            tf.train.AdamOptimizer.__init__(self, **kwargs)

        def compute_gradients(self, loss, var_list, **kwargs):
            grads_and_vars = super().compute_gradients(loss, var_list, **kwargs)
            grads_and_vars = [(g, v) for g, v in grads_and_vars if g is not None]
            flat_grad = flat_concat([g for g, v in grads_and_vars])
            sizes = [int(np.prod(v.shape.as_list())) for g, v in grads_and_vars]
            buf = np.zeros(flat_grad.shape, np.float32)

            def _collect_grads(flat_grad):
                buf[:] = flat_grad
                np.divide(buf, 1.0, out=buf)  # (one task)
                return buf

            avg_flat_grad = tf.py_func(_collect_grads, [flat_grad], tf.float32)
            avg_flat_grad.set_shape(flat_grad.shape)
            avg_grads = tf.split(avg_flat_grad, sizes, axis=0)
            return [(tf.reshape(g, v.shape), v) for g, (_, v) in zip(avg_grads, grads_and_vars)]

        def apply_gradients(self, grads_and_vars, global_step=None, name=None):
            opt = super().apply_gradients(grads_and_vars, global_step, name)
            with tf.control_dependencies([opt]):
                sync = sync_params([v for g, v in grads_and_vars])
            return tf.group([opt, sync])

    return flat_concat, assign_params_from_flat, sync_params, sync_all_params, MpiAdamOptimizer
