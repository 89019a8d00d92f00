"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
OpenAI Baselines' PPO1 (pposgd_simple with its MlpPolicy, running mean/std filter, MpiAdam on flat
gradients and tf_util helpers), for a Box and a Discrete action space, and keon's Keras double DQN."""
# ruff: noqa

import sys

import numpy as np
import pytest

import tideflow as tf
from tests.printed_programs import same_printed as _same
from tests.rl_programs_env import Box, Discrete, EpochLogger, FakeEnv, lfilter_discount


@pytest.fixture
def fresh_graph():
    with tf.Graph().as_default():
        yield



@pytest.mark.usefixtures("fresh_graph")
def test_baselines_ppo1(capsys):
    # openai/baselines baselines/ppo1/pposgd_simple.py, ppo1/mlp_policy.py, common/mpi_running_mean_std.py,
    # common/mpi_adam.py (one process), common/tf_util.py, common/distributions.py, common/dataset.py,
    # common/misc_util.py fmt_row; the loss rows rounded to 4 places in float64 (the KL is float32 noise)
    # openai/baselines baselines/ppo1/pposgd_simple.py (traj_segment_generator, add_vtarg_and_adv, learn),
    # ppo1/mlp_policy.py, common/mpi_running_mean_std.py, common/mpi_adam.py (one process: no MPI),
    # common/tf_util.py (function, switch, normc_initializer, flatgrad, SetFromFlat, GetFlat, initialize,
    # get_placeholder), common/distributions.py (diagonal Gaussian, categorical), common/dataset.py, misc_util
    import copy, time
    from collections import deque
    # --- baselines/common/tf_util.py
    def switch(condition, then_expression, else_expression):
        x_shape = copy.copy(then_expression.get_shape())
        x = tf.cond(tf.cast(condition, 'bool'),
                    lambda: then_expression,
                    lambda: else_expression)
        x.set_shape(x_shape)
        return x
    def normc_initializer(std=1.0, axis=0):
        def _initializer(shape, dtype=None, partition_info=None):  # pylint: disable=W0613
            out = np.random.randn(*shape).astype(dtype.as_numpy_dtype)
            out *= std / np.sqrt(np.square(out).sum(axis=axis, keepdims=True))
            return tf.constant(out)
        return _initializer
    def function(inputs, outputs, updates=None, givens=None):
        if isinstance(outputs, list):
            return _Function(inputs, outputs, updates, givens=givens)
        elif isinstance(outputs, dict):
            f = _Function(inputs, outputs.values(), updates, givens=givens)
            return lambda *args, **kwargs: type(outputs)(zip(outputs.keys(), f(*args, **kwargs)))
        else:
            f = _Function(inputs, [outputs], updates, givens=givens)
            return lambda *args, **kwargs: f(*args, **kwargs)[0]
    class _Function(object):
        def __init__(self, inputs, outputs, updates, givens):
            for inpt in inputs:
                if not hasattr(inpt, 'make_feed_dict') and not (type(inpt) is tf.Tensor and len(inpt.op.inputs) == 0):
                    assert False, "inputs should all be placeholders, constants, or have a make_feed_dict method"
            self.inputs = inputs
            updates = updates or []
            self.update_group = tf.group(*updates)
            self.outputs_update = list(outputs) + [self.update_group]
            self.givens = {} if givens is None else givens
        def _feed_input(self, feed_dict, inpt, value):
            if hasattr(inpt, 'make_feed_dict'):
                feed_dict.update(inpt.make_feed_dict(value))
            else:
                feed_dict[inpt] = value
        def __call__(self, *args):
            assert len(args) <= len(self.inputs), "Too many arguments provided"
            feed_dict = {}
            for inpt, value in zip(self.inputs, args):
                self._feed_input(feed_dict, inpt, value)
            for inpt in self.givens:
                feed_dict[inpt] = feed_dict.get(inpt, self.givens[inpt])
            results = tf.get_default_session().run(self.outputs_update, feed_dict=feed_dict)[:-1]
            return results
    def var_shape(x):
        out = x.get_shape().as_list()
        assert all(isinstance(a, int) for a in out), \
            "shape function assumes that shape is fully known"
        return out
    def numel(x):
        return intprod(var_shape(x))
    def intprod(x):
        return int(np.prod(x))
    def flatgrad(loss, var_list, clip_norm=None):
        grads = tf.gradients(loss, var_list)
        if clip_norm is not None:
            grads = [tf.clip_by_norm(grad, clip_norm=clip_norm) for grad in grads]
        return tf.concat(axis=0, values=[
            tf.reshape(grad if grad is not None else tf.zeros_like(v), [numel(v)])
            for (v, grad) in zip(var_list, grads)
        ])
    class SetFromFlat(object):
        def __init__(self, var_list, dtype=tf.float32):
            assigns = []
            shapes = list(map(var_shape, var_list))
            total_size = np.sum([intprod(shape) for shape in shapes])
            self.theta = theta = tf.placeholder(dtype, [total_size])
            start = 0
            assigns = []
            for (shape, v) in zip(shapes, var_list):
                size = intprod(shape)
                assigns.append(tf.assign(v, tf.reshape(theta[start:start + size], shape)))
                start += size
            self.op = tf.group(*assigns)
        def __call__(self, theta):
            tf.get_default_session().run(self.op, feed_dict={self.theta: theta})
    class GetFlat(object):
        def __init__(self, var_list):
            self.op = tf.concat(axis=0, values=[tf.reshape(v, [numel(v)]) for v in var_list])
        def __call__(self):
            return tf.get_default_session().run(self.op)
    _PLACEHOLDER_CACHE = {}  # name -> (placeholder, dtype, shape)
    def get_placeholder(name, dtype, shape):
        if name in _PLACEHOLDER_CACHE:
            out, dtype1, shape1 = _PLACEHOLDER_CACHE[name]
            if out.graph == tf.get_default_graph():
                assert dtype1 == dtype and shape1 == shape, \
                    'Placeholder with name {} has already been registered and has shape {}, different from requested {}'.format(name, shape1, shape)
                return out
        out = tf.placeholder(dtype=dtype, shape=shape, name=name)
        _PLACEHOLDER_CACHE[name] = (out, dtype, shape)
        return out
    def get_placeholder_cached(name):
        return _PLACEHOLDER_CACHE[name][0]
    ALREADY_INITIALIZED = set()
    def initialize():
        new_variables = set(tf.global_variables()) - ALREADY_INITIALIZED
        tf.get_default_session().run(tf.variables_initializer(new_variables))
        ALREADY_INITIALIZED.update(new_variables)
    def single_threaded_session():
        config = tf.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
        return tf.Session(config=config)
    # --- baselines/common/distributions.py (the two families used here)
    class Pd(object):
        def logp(self, x):
            return - self.neglogp(x)
    class PdType(object):
        def pdfromflat(self, flat):
            return self.pdclass()(flat)
        def sample_placeholder(self, prepend_shape, name=None):
            return tf.placeholder(dtype=self.sample_dtype(), shape=prepend_shape+self.sample_shape(), name=name)
    class CategoricalPdType(PdType):
        def __init__(self, ncat):
            self.ncat = ncat
        def pdclass(self):
            return CategoricalPd
        def param_shape(self):
            return [self.ncat]
        def sample_shape(self):
            return []
        def sample_dtype(self):
            return tf.int32
    class DiagGaussianPdType(PdType):
        def __init__(self, size):
            self.size = size
        def pdclass(self):
            return DiagGaussianPd
        def param_shape(self):
            return [2*self.size]
        def sample_shape(self):
            return [self.size]
        def sample_dtype(self):
            return tf.float32
    class CategoricalPd(Pd):
        def __init__(self, logits):
            self.logits = logits
        def mode(self):
            return tf.argmax(self.logits, axis=-1)
        def neglogp(self, x):
            if x.dtype in {tf.uint8, tf.int32, tf.int64}:
                x_shape_list = x.shape.as_list()
                logits_shape_list = self.logits.get_shape().as_list()[:-1]
                for xs, ls in zip(x_shape_list, logits_shape_list):
                    if xs is not None and ls is not None:
                        assert xs == ls, 'shape mismatch: {} in x vs {} in logits'.format(xs, ls)
                x = tf.one_hot(x, self.logits.get_shape().as_list()[-1])
            else:
                assert x.shape.as_list() == self.logits.shape.as_list()
            return tf.nn.softmax_cross_entropy_with_logits_v2(
                logits=self.logits,
                labels=x)
        def kl(self, other):
            a0 = self.logits - tf.reduce_max(self.logits, axis=-1, keepdims=True)
            a1 = other.logits - tf.reduce_max(other.logits, axis=-1, keepdims=True)
            ea0 = tf.exp(a0)
            ea1 = tf.exp(a1)
            z0 = tf.reduce_sum(ea0, axis=-1, keepdims=True)
            z1 = tf.reduce_sum(ea1, axis=-1, keepdims=True)
            p0 = ea0 / z0
            return tf.reduce_sum(p0 * (a0 - tf.log(z0) - a1 + tf.log(z1)), axis=-1)
        def entropy(self):
            a0 = self.logits - tf.reduce_max(self.logits, axis=-1, keepdims=True)
            ea0 = tf.exp(a0)
            z0 = tf.reduce_sum(ea0, axis=-1, keepdims=True)
            p0 = ea0 / z0
            return tf.reduce_sum(p0 * (tf.log(z0) - a0), axis=-1)
        def sample(self):
            u = tf.random_uniform(tf.shape(self.logits), dtype=self.logits.dtype)
            return tf.argmax(self.logits - tf.log(-tf.log(u)), axis=-1)
    class DiagGaussianPd(Pd):
        def __init__(self, flat):
            self.flat = flat
            mean, logstd = tf.split(axis=len(flat.shape)-1, num_or_size_splits=2, value=flat)
            self.mean = mean
            self.logstd = logstd
            self.std = tf.exp(logstd)
        def mode(self):
            return self.mean
        def neglogp(self, x):
            return 0.5 * tf.reduce_sum(tf.square((x - self.mean) / self.std), axis=-1) \
                   + 0.5 * np.log(2.0 * np.pi) * tf.to_float(tf.shape(x)[-1]) \
                   + tf.reduce_sum(self.logstd, axis=-1)
        def kl(self, other):
            assert isinstance(other, DiagGaussianPd)
            return tf.reduce_sum(other.logstd - self.logstd + (tf.square(self.std) + tf.square(self.mean - other.mean)) / (2.0 * tf.square(other.std)) - 0.5, axis=-1)
        def entropy(self):
            return tf.reduce_sum(self.logstd + .5 * np.log(2.0 * np.pi * np.e), axis=-1)
        def sample(self):
            return self.mean + self.std * tf.random_normal(tf.shape(self.mean))
    def make_pdtype(ac_space):
        if isinstance(ac_space, Box):
            return DiagGaussianPdType(ac_space.shape[0])
        elif isinstance(ac_space, Discrete):
            return CategoricalPdType(ac_space.n)
    # --- baselines/common/mpi_running_mean_std.py (one process)
    class RunningMeanStd(object):
        def __init__(self, epsilon=1e-2, shape=()):
            self._sum = tf.get_variable(
                dtype=tf.float64,
                shape=shape,
                initializer=tf.constant_initializer(0.0),
                name="runningsum", trainable=False)
            self._sumsq = tf.get_variable(
                dtype=tf.float64,
                shape=shape,
                initializer=tf.constant_initializer(epsilon),
                name="runningsumsq", trainable=False)
            self._count = tf.get_variable(
                dtype=tf.float64,
                shape=(),
                initializer=tf.constant_initializer(epsilon),
                name="count", trainable=False)
            self.shape = shape
            self.mean = tf.to_float(self._sum / self._count)
            self.std = tf.sqrt( tf.maximum( tf.to_float(self._sumsq / self._count) - tf.square(self.mean) , 1e-2 ))
            newsum = tf.placeholder(shape=self.shape, dtype=tf.float64, name='sum')
            newsumsq = tf.placeholder(shape=self.shape, dtype=tf.float64, name='var')
            newcount = tf.placeholder(shape=[], dtype=tf.float64, name='count')
            self.incfiltparams = function([newsum, newsumsq, newcount], [],
                updates=[tf.assign_add(self._sum, newsum),
                         tf.assign_add(self._sumsq, newsumsq),
                         tf.assign_add(self._count, newcount)])
        def update(self, x):
            x = x.astype('float64')
            n = int(np.prod(self.shape))
            addvec = np.concatenate([x.sum(axis=0).ravel(), np.square(x).sum(axis=0).ravel(), np.array([len(x)],dtype='float64')])
            totalvec = addvec.copy()  # (MPI's Allreduce over one process)
            self.incfiltparams(totalvec[0:n].reshape(self.shape), totalvec[n:2*n].reshape(self.shape), totalvec[2*n])
    # --- baselines/common/mpi_adam.py (one process)
    class MpiAdam(object):
        def __init__(self, var_list, *, beta1=0.9, beta2=0.999, epsilon=1e-08, scale_grad_by_procs=True):
            self.var_list = var_list
            self.beta1 = beta1
            self.beta2 = beta2
            self.epsilon = epsilon
            self.scale_grad_by_procs = scale_grad_by_procs
            size = sum(numel(v) for v in var_list)
            self.m = np.zeros(size, 'float32')
            self.v = np.zeros(size, 'float32')
            self.t = 0
            self.setfromflat = SetFromFlat(var_list)
            self.getflat = GetFlat(var_list)
        def update(self, localg, stepsize):
            localg = localg.astype('float32')
            globalg = localg.copy()
            self.t += 1
            a = stepsize * np.sqrt(1 - self.beta2**self.t)/(1 - self.beta1**self.t)
            self.m = self.beta1 * self.m + (1 - self.beta1) * globalg
            self.v = self.beta2 * self.v + (1 - self.beta2) * (globalg * globalg)
            step = (- a) * self.m / (np.sqrt(self.v) + self.epsilon)
            self.setfromflat(self.getflat() + step)
        def sync(self):
            theta = self.getflat()
            self.setfromflat(theta)
    # --- baselines/common/dataset.py, misc_util.py, math_util.py
    class Dataset(object):
        def __init__(self, data_map, deterministic=False, shuffle=True):
            self.data_map = data_map
            self.deterministic = deterministic
            self.enable_shuffle = shuffle
            self.n = next(iter(data_map.values())).shape[0]
            self._next_id = 0
            self.shuffle()
        def shuffle(self):
            if self.deterministic:
                return
            perm = np.arange(self.n)
            np.random.shuffle(perm)
            for key in self.data_map:
                self.data_map[key] = self.data_map[key][perm]
            self._next_id = 0
        def next_batch(self, batch_size):
            if self._next_id >= self.n and self.enable_shuffle:
                self.shuffle()
            cur_id = self._next_id
            cur_batch_size = min(batch_size, self.n - self._next_id)
            self._next_id += cur_batch_size
            data_map = dict()
            for key in self.data_map:
                data_map[key] = self.data_map[key][cur_id:cur_id+cur_batch_size]
            return data_map
        def iterate_once(self, batch_size):
            if self.enable_shuffle: self.shuffle()
            while self._next_id <= self.n - batch_size:
                yield self.next_batch(batch_size)
            self._next_id = 0
    def explained_variance(ypred,y):
        assert y.ndim == 1 and ypred.ndim == 1
        vary = np.var(y)
        return np.nan if vary==0 else 1 - np.var(y-ypred)/vary
    def fmt_item(x, l):
        if isinstance(x, np.ndarray):
            assert x.ndim==0
            x = x.item()
        if isinstance(x, (float, np.float32, np.float64)):
            v = abs(x)
            if (v < 1e-4 or v > 1e+4) and v > 0:
                rep = "%7.2e" % x
            else:
                rep = "%7.5f" % x
        else: rep = str(x)
        return " "*(l - len(rep)) + rep
    def fmt_row(width, row, header=False):
        out = " | ".join(fmt_item(x, width) for x in row)
        if header: out = out + "\n" + "-"*len(out)
        return out
    def zipsame(*seqs):
        L = len(seqs[0])
        assert all(len(seq) == L for seq in seqs[1:])
        return zip(*seqs)
    # --- baselines/ppo1/mlp_policy.py
    class MlpPolicy(object):
        recurrent = False
        def __init__(self, name, *args, **kwargs):
            with tf.variable_scope(name):
                self._init(*args, **kwargs)
                self.scope = tf.get_variable_scope().name
        def _init(self, ob_space, ac_space, hid_size, num_hid_layers, gaussian_fixed_var=True):
            self.pdtype = pdtype = make_pdtype(ac_space)
            sequence_length = None
            ob = get_placeholder(name="ob", dtype=tf.float32, shape=[sequence_length] + list(ob_space.shape))
            with tf.variable_scope("obfilter"):
                self.ob_rms = RunningMeanStd(shape=ob_space.shape)
            with tf.variable_scope('vf'):
                obz = tf.clip_by_value((ob - self.ob_rms.mean) / self.ob_rms.std, -5.0, 5.0)
                last_out = obz
                for i in range(num_hid_layers):
                    last_out = tf.nn.tanh(tf.layers.dense(last_out, hid_size, name="fc%i"%(i+1), kernel_initializer=normc_initializer(1.0)))
                self.vpred = tf.layers.dense(last_out, 1, name='final', kernel_initializer=normc_initializer(1.0))[:,0]
            with tf.variable_scope('pol'):
                last_out = obz
                for i in range(num_hid_layers):
                    last_out = tf.nn.tanh(tf.layers.dense(last_out, hid_size, name='fc%i'%(i+1), kernel_initializer=normc_initializer(1.0)))
                if gaussian_fixed_var and isinstance(ac_space, Box):
                    mean = tf.layers.dense(last_out, pdtype.param_shape()[0]//2, name='final', kernel_initializer=normc_initializer(0.01))
                    logstd = tf.get_variable(name="logstd", shape=[1, pdtype.param_shape()[0]//2], initializer=tf.zeros_initializer())
                    pdparam = tf.concat([mean, mean * 0.0 + logstd], axis=1)
                else:
                    pdparam = tf.layers.dense(last_out, pdtype.param_shape()[0], name='final', kernel_initializer=normc_initializer(0.01))
            self.pd = pdtype.pdfromflat(pdparam)
            self.state_in = []
            self.state_out = []
            stochastic = tf.placeholder(dtype=tf.bool, shape=())
            ac = switch(stochastic, self.pd.sample(), self.pd.mode())
            self._act = function([stochastic, ob], [ac, self.vpred])
        def act(self, stochastic, ob):
            ac1, vpred1 =  self._act(stochastic, ob[None])
            return ac1[0], vpred1[0]
        def get_variables(self):
            return tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, self.scope)
        def get_trainable_variables(self):
            return tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, self.scope)
        def get_initial_state(self):
            return []
    # --- baselines/ppo1/pposgd_simple.py
    def traj_segment_generator(pi, env, horizon, stochastic):
        t = 0
        ac = env.action_space.sample() # not used, just so we have the datatype
        new = True # marks if we're on first timestep of an episode
        ob = env.reset()
        cur_ep_ret = 0 # return in current episode
        cur_ep_len = 0 # len of current episode
        ep_rets = [] # returns of completed episodes in this segment
        ep_lens = [] # lengths of ...
        obs = np.array([ob for _ in range(horizon)])
        rews = np.zeros(horizon, 'float32')
        vpreds = np.zeros(horizon, 'float32')
        news = np.zeros(horizon, 'int32')
        acs = np.array([ac for _ in range(horizon)])
        prevacs = acs.copy()
        while True:
            prevac = ac
            ac, vpred = pi.act(stochastic, ob)
            if t > 0 and t % horizon == 0:
                yield {"ob" : obs, "rew" : rews, "vpred" : vpreds, "new" : news,
                        "ac" : acs, "prevac" : prevacs, "nextvpred": vpred * (1 - new),
                        "ep_rets" : ep_rets, "ep_lens" : ep_lens}
                ep_rets = []
                ep_lens = []
            i = t % horizon
            obs[i] = ob
            vpreds[i] = vpred
            news[i] = new
            acs[i] = ac
            prevacs[i] = prevac
            ob, rew, new, _ = env.step(ac)
            rews[i] = rew
            cur_ep_ret += rew
            cur_ep_len += 1
            if new:
                ep_rets.append(cur_ep_ret)
                ep_lens.append(cur_ep_len)
                cur_ep_ret = 0
                cur_ep_len = 0
                ob = env.reset()
            t += 1
    def add_vtarg_and_adv(seg, gamma, lam):
        new = np.append(seg["new"], 0) # last element is only used for last vtarg, but we already zeroed it if last new = 1
        vpred = np.append(seg["vpred"], seg["nextvpred"])
        T = len(seg["rew"])
        seg["adv"] = gaelam = np.empty(T, 'float32')
        rew = seg["rew"]
        lastgaelam = 0
        for t in reversed(range(T)):
            nonterminal = 1-new[t+1]
            delta = rew[t] + gamma * vpred[t+1] * nonterminal - vpred[t]
            gaelam[t] = lastgaelam = delta + gamma * lam * nonterminal * lastgaelam
        seg["tdlamret"] = seg["adv"] + seg["vpred"]
    def learn(env, policy_fn, *,
            timesteps_per_actorbatch, clip_param, entcoeff, optim_epochs, optim_stepsize, optim_batchsize,
            gamma, lam, max_timesteps=0, max_episodes=0, max_iters=0, max_seconds=0, callback=None,
            adam_epsilon=1e-5, schedule='constant'):
        ob_space = env.observation_space
        ac_space = env.action_space
        pi = policy_fn("pi", ob_space, ac_space) # Construct network for new policy
        oldpi = policy_fn("oldpi", ob_space, ac_space) # Network for old policy
        atarg = tf.placeholder(dtype=tf.float32, shape=[None]) # Target advantage function (if applicable)
        ret = tf.placeholder(dtype=tf.float32, shape=[None]) # Empirical return
        lrmult = tf.placeholder(name='lrmult', dtype=tf.float32, shape=[]) # learning rate multiplier, updated with schedule
        clip_param = clip_param * lrmult # Annealed cliping parameter epislon
        ob = get_placeholder_cached(name="ob")
        ac = pi.pdtype.sample_placeholder([None])
        kloldnew = oldpi.pd.kl(pi.pd)
        ent = pi.pd.entropy()
        meankl = tf.reduce_mean(kloldnew)
        meanent = tf.reduce_mean(ent)
        pol_entpen = (-entcoeff) * meanent
        ratio = tf.exp(pi.pd.logp(ac) - oldpi.pd.logp(ac)) # pnew / pold
        surr1 = ratio * atarg # surrogate from conservative policy iteration
        surr2 = tf.clip_by_value(ratio, 1.0 - clip_param, 1.0 + clip_param) * atarg #
        pol_surr = - tf.reduce_mean(tf.minimum(surr1, surr2)) # PPO's pessimistic surrogate (L^CLIP)
        vf_loss = tf.reduce_mean(tf.square(pi.vpred - ret))
        total_loss = pol_surr + pol_entpen + vf_loss
        losses = [pol_surr, pol_entpen, vf_loss, meankl, meanent]
        loss_names = ["pol_surr", "pol_entpen", "vf_loss", "kl", "ent"]
        var_list = pi.get_trainable_variables()
        lossandgrad = function([ob, ac, atarg, ret, lrmult], losses + [flatgrad(total_loss, var_list)])
        adam = MpiAdam(var_list, epsilon=adam_epsilon)
        assign_old_eq_new = function([],[], updates=[tf.assign(oldv, newv)
            for (oldv, newv) in zipsame(oldpi.get_variables(), pi.get_variables())])
        compute_losses = function([ob, ac, atarg, ret, lrmult], losses)
        print(ob, ac, ratio, [v.name for v in var_list], [v.name for v in oldpi.get_variables()])
        initialize()
        adam.sync()
        seg_gen = traj_segment_generator(pi, env, timesteps_per_actorbatch, stochastic=True)
        episodes_so_far = 0
        timesteps_so_far = 0
        iters_so_far = 0
        lenbuffer = deque(maxlen=100) # rolling buffer for episode lengths
        rewbuffer = deque(maxlen=100) # rolling buffer for episode rewards
        while True:
            if max_iters and iters_so_far >= max_iters:
                break
            if schedule == 'constant':
                cur_lrmult = 1.0
            print("********** Iteration %i ************"%iters_so_far)
            seg = seg_gen.__next__()
            add_vtarg_and_adv(seg, gamma, lam)
            ob, ac, atarg, tdlamret = seg["ob"], seg["ac"], seg["adv"], seg["tdlamret"]
            vpredbefore = seg["vpred"] # predicted value function before udpate
            atarg = (atarg - atarg.mean()) / atarg.std() # standardized advantage function estimate
            d = Dataset(dict(ob=ob, ac=ac, atarg=atarg, vtarg=tdlamret), deterministic=pi.recurrent)
            optim_batchsize = optim_batchsize or ob.shape[0]
            if hasattr(pi, "ob_rms"): pi.ob_rms.update(ob) # update running mean/std for policy
            assign_old_eq_new() # set old parameter values to new parameter values
            print("Optimizing...")
            print(fmt_row(13, loss_names))
            for _ in range(optim_epochs):
                losses = [] # list of tuples, each of which gives the loss for a minibatch
                for batch in d.iterate_once(optim_batchsize):
                    *newlosses, g = lossandgrad(batch["ob"], batch["ac"], batch["atarg"], batch["vtarg"], cur_lrmult)
                    adam.update(g, optim_stepsize * cur_lrmult)
                    losses.append(newlosses)
                print(fmt_row(13, np.round(np.mean(losses, axis=0).astype(np.float64), 4) + 0.0))  # (rounded: the kl is float32 noise)
            print("Evaluating losses...")
            losses = []
            for batch in d.iterate_once(optim_batchsize):
                newlosses = compute_losses(batch["ob"], batch["ac"], batch["atarg"], batch["vtarg"], cur_lrmult)
                losses.append(newlosses)
            meanlosses = np.mean(losses, axis=0)
            print(fmt_row(13, np.round(meanlosses.astype(np.float64), 4) + 0.0))
            print("ev_tdlam_before %.5f" % explained_variance(vpredbefore, tdlamret))
            lens, rews = seg["ep_lens"], seg["ep_rets"]
            lenbuffer.extend(lens)
            rewbuffer.extend(rews)
            print("EpLenMean", np.mean(lenbuffer), "EpRewMean %.5f" % np.mean(rewbuffer), "EpThisIter", len(lens))
            episodes_so_far += len(lens)
            timesteps_so_far += sum(lens)
            iters_so_far += 1
        return pi
    for disc in (False, True):
        with tf.Graph().as_default():
            tf.set_random_seed(5); np.random.seed(5)
            with single_threaded_session() as sess, sess.as_default():
                env = FakeEnv(obs_dim=3, act_dim=2, discrete=disc, ep_len=6)
                def policy_fn(name, ob_space, ac_space):
                    return MlpPolicy(name=name, ob_space=ob_space, ac_space=ac_space, hid_size=8, num_hid_layers=2)
                pi = learn(env, policy_fn, max_iters=2, timesteps_per_actorbatch=12, clip_param=0.2, entcoeff=0.0,
                           optim_epochs=2, optim_stepsize=3e-4, optim_batchsize=6, gamma=0.99, lam=0.95, schedule='constant')
                print(np.round(sess.run(pi.ob_rms.mean), 5).tolist(), np.round(sess.run(pi.ob_rms.std), 5).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["baselines_ppo1"], 0)


def test_keon_ddqn(capsys):
    # keon/deep-q-learning ddqn.py (a Keras DQN agent: target model, Huber loss with K and tf.where, fit on single
    # samples, save/load_weights to HDF5); keras as tf.keras, CartPole as FakeEnv
    # keon/deep-q-learning ddqn.py (a Keras DQN agent with a target model, a Huber loss written with K and tf.where,
    # model.fit on single samples, save/load_weights); keras as tf.keras, gym's CartPole as the NumPy FakeEnv
    import random, tempfile, os
    from collections import deque
    Sequential, Dense, Adam = tf.keras.models.Sequential, tf.keras.layers.Dense, tf.keras.optimizers.Adam
    K = tf.keras.backend
    EPISODES = 3
    class DQNAgent:
        def __init__(self, state_size, action_size):
            self.state_size = state_size
            self.action_size = action_size
            self.memory = deque(maxlen=2000)
            self.gamma = 0.95    # discount rate
            self.epsilon = 1.0  # exploration rate
            self.epsilon_min = 0.01
            self.epsilon_decay = 0.8
            self.learning_rate = 0.001
            self.model = self._build_model()
            self.target_model = self._build_model()
            self.update_target_model()
        def _huber_loss(self, y_true, y_pred, clip_delta=1.0):
            error = y_true - y_pred
            cond  = K.abs(error) <= clip_delta
            squared_loss = 0.5 * K.square(error)
            quadratic_loss = 0.5 * K.square(clip_delta) + clip_delta * (K.abs(error) - clip_delta)
            return K.mean(tf.where(cond, squared_loss, quadratic_loss))
        def _build_model(self):
            model = Sequential()
            model.add(Dense(24, input_dim=self.state_size, activation='relu'))
            model.add(Dense(24, activation='relu'))
            model.add(Dense(self.action_size, activation='linear'))
            model.compile(loss=self._huber_loss,
                          optimizer=Adam(lr=self.learning_rate))
            return model
        def update_target_model(self):
            self.target_model.set_weights(self.model.get_weights())
        def memorize(self, state, action, reward, next_state, done):
            self.memory.append((state, action, reward, next_state, done))
        def act(self, state):
            if np.random.rand() <= self.epsilon:
                return random.randrange(self.action_size)
            act_values = self.model.predict(state)
            return np.argmax(act_values[0])  # returns action
        def replay(self, batch_size):
            minibatch = random.sample(self.memory, batch_size)
            for state, action, reward, next_state, done in minibatch:
                target = self.model.predict(state)
                if done:
                    target[0][action] = reward
                else:
                    t = self.target_model.predict(next_state)[0]
                    target[0][action] = reward + self.gamma * np.amax(t)
                self.model.fit(state, target, epochs=1, verbose=0)
            if self.epsilon > self.epsilon_min:
                self.epsilon *= self.epsilon_decay
        def load(self, name):
            self.model.load_weights(name)
        def save(self, name):
            self.model.save_weights(name)
    K.clear_session()  # (a graph as Keras leaves it after a clear: the test is not the process's first)
    random.seed(0); np.random.seed(0); tf.set_random_seed(0)
    env = FakeEnv(obs_dim=4, act_dim=2, discrete=True, ep_len=8)
    state_size = env.observation_space.shape[0]
    action_size = env.action_space.n
    agent = DQNAgent(state_size, action_size)
    done = False
    batch_size = 4
    for e in range(EPISODES):
        state = env.reset()
        state = np.reshape(state, [1, state_size])
        for time in range(500):
            action = agent.act(state)
            next_state, reward, done, _ = env.step(action)
            next_state = np.reshape(next_state, [1, state_size])
            agent.memorize(state, action, reward, next_state, done)
            state = next_state
            if done:
                agent.update_target_model()
                print("episode: {}/{}, score: {}, e: {:.2}"
                      .format(e, EPISODES, time, agent.epsilon))
                break
            if len(agent.memory) > batch_size:
                agent.replay(batch_size)
        print(np.round(agent.model.predict(state), 5).tolist())
    path = os.path.join(tempfile.mkdtemp(), 'cartpole-ddqn.h5')
    agent.save(path)
    agent2 = DQNAgent(state_size, action_size)
    agent2.load(path)
    print(np.round(agent2.model.predict(state), 5).tolist(), [w.name for w in agent2.model.weights])
    K.clear_session()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["keon_ddqn"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'baselines_ppo1': [
        'Tensor("pi/ob:0", shape=(?, 3), dtype=float32) Tensor("Placeholder_2:0", shape=(?, 2), dtype=float32) Tensor("Exp:0", shape=(?,), dtype=float32) [\'pi/vf/fc1/kernel:0\', \'pi/vf/fc1/bias:0\', \'pi/vf/fc2/kernel:0\', \'pi/vf/fc2/bias:0\', \'pi/vf/final/kernel:0\', \'pi/vf/final/bias:0\', \'pi/pol/fc1/kernel:0\', \'pi/pol/fc1/bias:0\', \'pi/pol/fc2/kernel:0\', \'pi/pol/fc2/bias:0\', \'pi/pol/final/kernel:0\', \'pi/pol/final/bias:0\', \'pi/pol/logstd:0\'] [\'oldpi/obfilter/runningsum:0\', \'oldpi/obfilter/runningsumsq:0\', \'oldpi/obfilter/count:0\', \'oldpi/vf/fc1/kernel:0\', \'oldpi/vf/fc1/bias:0\', \'oldpi/vf/fc2/kernel:0\', \'oldpi/vf/fc2/bias:0\', \'oldpi/vf/final/kernel:0\', \'oldpi/vf/final/bias:0\', \'oldpi/pol/fc1/kernel:0\', \'oldpi/pol/fc1/bias:0\', \'oldpi/pol/fc2/kernel:0\', \'oldpi/pol/fc2/bias:0\', \'oldpi/pol/final/kernel:0\', \'oldpi/pol/final/bias:0\', \'oldpi/pol/logstd:0\']',
        '********** Iteration 0 ************',
        'Optimizing...',
        '     pol_surr |    pol_entpen |       vf_loss |            kl |           ent',
        '      0.00010 |       0.00000 |      21.62320 |       0.00000 |       2.83790',
        '     -0.00090 |       0.00000 |      21.56950 |       0.00000 |       2.83810',
        'Evaluating losses...',
        '     -0.00150 |       0.00000 |      21.54340 |       0.00000 |       2.83820',
        'ev_tdlam_before -0.02234',
        'EpLenMean 6.0 EpRewMean -8.03956 EpThisIter 2',
        '********** Iteration 1 ************',
        'Optimizing...',
        '     pol_surr |    pol_entpen |       vf_loss |            kl |           ent',
        '      0.00000 |       0.00000 |      35.25930 |       0.00000 |       2.83830',
        '     -0.00030 |       0.00000 |      35.19120 |       0.00000 |       2.83850',
        'Evaluating losses...',
        '     -0.00060 |       0.00000 |      35.14430 |       0.00000 |       2.83880',
        'ev_tdlam_before -0.28052',
        'EpLenMean 6.0 EpRewMean -9.05332 EpThisIter 2',
        '[0.7504000067710876, 0.776390016078949, 0.0885699987411499] [0.254940003156662, 0.1704699993133545, 0.11279000341892242]',
        'Tensor("pi/ob:0", shape=(?, 3), dtype=float32) Tensor("Placeholder_2:0", shape=(?,), dtype=int32) Tensor("Exp_3:0", shape=(?,), dtype=float32) [\'pi/vf/fc1/kernel:0\', \'pi/vf/fc1/bias:0\', \'pi/vf/fc2/kernel:0\', \'pi/vf/fc2/bias:0\', \'pi/vf/final/kernel:0\', \'pi/vf/final/bias:0\', \'pi/pol/fc1/kernel:0\', \'pi/pol/fc1/bias:0\', \'pi/pol/fc2/kernel:0\', \'pi/pol/fc2/bias:0\', \'pi/pol/final/kernel:0\', \'pi/pol/final/bias:0\'] [\'oldpi/obfilter/runningsum:0\', \'oldpi/obfilter/runningsumsq:0\', \'oldpi/obfilter/count:0\', \'oldpi/vf/fc1/kernel:0\', \'oldpi/vf/fc1/bias:0\', \'oldpi/vf/fc2/kernel:0\', \'oldpi/vf/fc2/bias:0\', \'oldpi/vf/final/kernel:0\', \'oldpi/vf/final/bias:0\', \'oldpi/pol/fc1/kernel:0\', \'oldpi/pol/fc1/bias:0\', \'oldpi/pol/fc2/kernel:0\', \'oldpi/pol/fc2/bias:0\', \'oldpi/pol/final/kernel:0\', \'oldpi/pol/final/bias:0\']',
        '********** Iteration 0 ************',
        'Optimizing...',
        '     pol_surr |    pol_entpen |       vf_loss |            kl |           ent',
        '     -0.00020 |       0.00000 |      40.86360 |       0.00000 |       0.69310',
        '     -0.00140 |       0.00000 |      40.79740 |       0.00000 |       0.69310',
        'Evaluating losses...',
        '     -0.00220 |       0.00000 |      40.75270 |       0.00000 |       0.69310',
        'ev_tdlam_before -0.02910',
        'EpLenMean 6.0 EpRewMean -10.59749 EpThisIter 2',
        '********** Iteration 1 ************',
        'Optimizing...',
        '     pol_surr |    pol_entpen |       vf_loss |            kl |           ent',
        '      0.00010 |       0.00000 |      13.23770 |       0.00000 |       0.69310',
        '     -0.00010 |       0.00000 |      13.20150 |       0.00000 |       0.69310',
        'Evaluating losses...',
        '     -0.00010 |       0.00000 |      13.18020 |       0.00000 |       0.69310',
        'ev_tdlam_before -0.17281',
        'EpLenMean 6.0 EpRewMean -8.38064 EpThisIter 2',
        '[0.6916700005531311, 0.6914899945259094, 0.055560000240802765] [0.39934998750686646, 0.2843399941921234, 0.13219000399112701]',
    ],
    'keon_ddqn': [
        'episode: 0/3, score: 7, e: 0.51',
        '[[-0.25916001200675964, -0.8978800177574158]]',
        'episode: 1/3, score: 7, e: 0.11',
        '[[-1.1507099866867065, -2.19635009765625]]',
        'episode: 2/3, score: 7, e: 0.023',
        '[[-3.605139970779419, -4.446390151977539]]',
        "[[-3.605139970779419, -4.446390151977539]] ['dense_6/kernel:0', 'dense_6/bias:0', 'dense_7/kernel:0', 'dense_7/bias:0', 'dense_8/kernel:0', 'dense_8/bias:0']",
    ],
}
