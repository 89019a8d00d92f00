"""Reinforcement-learning programs tideflow had not seen, reduced (gym replaced by the NumPy
environment of ``rl_programs_env``, sizes and step counts shrunk, the TF code kept): OpenAI
Spinning Up's TF1 PPO and TRPO/NPG. Each prints what TF 1.15 printed running it with the same
seeds (measured), compared by ``same_printed``."""
# ruff: noqa

import sys

import numpy as np
import pytest

import tideflow as tf
from tests.printed_programs import same_printed as _same
from tests.rl_programs_env import (
    Box,
    Discrete,
    EpochLogger,
    FakeEnv,
    lfilter_discount,
    spinup_mpi_tf,
)


@pytest.fixture
def fresh_graph():
    with tf.Graph().as_default():
        yield



@pytest.mark.usefixtures("fresh_graph")
def test_spinup_ppo(capsys):
    # openai/spinningup spinup/algos/tf1/ppo/core.py + ppo.py, with spinup/utils/mpi_tf.py for one process
    # (MpiAdamOptimizer's allreduce and sync_params' broadcast as identity py_funcs); a Box and a Discrete env
    # --- spinup/algos/tf1/ppo/core.py
    EPS = 1e-8
    def combined_shape(length, shape=None):
        if shape is None:
            return (length,)
        return (length, shape) if np.isscalar(shape) else (length, *shape)
    def placeholder(dim=None):
        return tf.placeholder(dtype=tf.float32, shape=combined_shape(None,dim))
    def placeholders(*args):
        return [placeholder(dim) for dim in args]
    def placeholder_from_space(space):
        if isinstance(space, Box):
            return placeholder(space.shape)
        elif isinstance(space, Discrete):
            return tf.placeholder(dtype=tf.int32, shape=(None,))
        raise NotImplementedError
    def placeholders_from_spaces(*args):
        return [placeholder_from_space(space) for space in args]
    def mlp(x, hidden_sizes=(32,), activation=tf.tanh, output_activation=None):
        for h in hidden_sizes[:-1]:
            x = tf.layers.dense(x, units=h, activation=activation)
        return tf.layers.dense(x, units=hidden_sizes[-1], activation=output_activation)
    def get_vars(scope=''):
        return [x for x in tf.trainable_variables() if scope in x.name]
    def count_vars(scope=''):
        v = get_vars(scope)
        return sum([np.prod(var.shape.as_list()) for var in v])
    def gaussian_likelihood(x, mu, log_std):
        pre_sum = -0.5 * (((x-mu)/(tf.exp(log_std)+EPS))**2 + 2*log_std + np.log(2*np.pi))
        return tf.reduce_sum(pre_sum, axis=1)
    def discount_cumsum(x, discount):
        return lfilter_discount(x, discount)
    def mlp_categorical_policy(x, a, hidden_sizes, activation, output_activation, action_space):
        act_dim = action_space.n
        logits = mlp(x, list(hidden_sizes)+[act_dim], activation, None)
        logp_all = tf.nn.log_softmax(logits)
        pi = tf.squeeze(tf.multinomial(logits,1), axis=1)
        logp = tf.reduce_sum(tf.one_hot(a, depth=act_dim) * logp_all, axis=1)
        logp_pi = tf.reduce_sum(tf.one_hot(pi, depth=act_dim) * logp_all, axis=1)
        return pi, logp, logp_pi
    def mlp_gaussian_policy(x, a, hidden_sizes, activation, output_activation, action_space):
        act_dim = a.shape.as_list()[-1]
        mu = mlp(x, list(hidden_sizes)+[act_dim], activation, output_activation)
        log_std = tf.get_variable(name='log_std', initializer=-0.5*np.ones(act_dim, dtype=np.float32))
        std = tf.exp(log_std)
        pi = mu + tf.random_normal(tf.shape(mu)) * std
        logp = gaussian_likelihood(a, mu, log_std)
        logp_pi = gaussian_likelihood(pi, mu, log_std)
        return pi, logp, logp_pi
    def mlp_actor_critic(x, a, hidden_sizes=(64,64), activation=tf.tanh,
                         output_activation=None, policy=None, action_space=None):
        if policy is None and isinstance(action_space, Box):
            policy = mlp_gaussian_policy
        elif policy is None and isinstance(action_space, Discrete):
            policy = mlp_categorical_policy
        with tf.variable_scope('pi'):
            pi, logp, logp_pi = policy(x, a, hidden_sizes, activation, output_activation, action_space)
        with tf.variable_scope('v'):
            v = tf.squeeze(mlp(x, list(hidden_sizes)+[1], activation, None), axis=1)
        return pi, logp, logp_pi, v
    # --- spinup/utils/mpi_tf.py (one process: the allreduce and broadcast are identities;
    # shared with the TRPO program in tests/rl_programs_env.py)
    flat_concat, assign_params_from_flat, sync_params, sync_all_params, MpiAdamOptimizer = \
        spinup_mpi_tf()
    # --- spinup/algos/tf1/ppo/ppo.py
    class PPOBuffer:
        def __init__(self, obs_dim, act_dim, size, gamma=0.99, lam=0.95):
            self.obs_buf = np.zeros(combined_shape(size, obs_dim), dtype=np.float32)
            self.act_buf = np.zeros(combined_shape(size, act_dim), dtype=np.float32)
            self.adv_buf = np.zeros(size, dtype=np.float32)
            self.rew_buf = np.zeros(size, dtype=np.float32)
            self.ret_buf = np.zeros(size, dtype=np.float32)
            self.val_buf = np.zeros(size, dtype=np.float32)
            self.logp_buf = np.zeros(size, dtype=np.float32)
            self.gamma, self.lam = gamma, lam
            self.ptr, self.path_start_idx, self.max_size = 0, 0, size
        def store(self, obs, act, rew, val, logp):
            assert self.ptr < self.max_size
            self.obs_buf[self.ptr] = obs
            self.act_buf[self.ptr] = act
            self.rew_buf[self.ptr] = rew
            self.val_buf[self.ptr] = val
            self.logp_buf[self.ptr] = logp
            self.ptr += 1
        def finish_path(self, last_val=0):
            path_slice = slice(self.path_start_idx, self.ptr)
            rews = np.append(self.rew_buf[path_slice], last_val)
            vals = np.append(self.val_buf[path_slice], last_val)
            deltas = rews[:-1] + self.gamma * vals[1:] - vals[:-1]
            self.adv_buf[path_slice] = discount_cumsum(deltas, self.gamma * self.lam)
            self.ret_buf[path_slice] = discount_cumsum(rews, self.gamma)[:-1]
            self.path_start_idx = self.ptr
        def get(self):
            assert self.ptr == self.max_size
            self.ptr, self.path_start_idx = 0, 0
            adv_mean, adv_std = np.mean(self.adv_buf), np.std(self.adv_buf)
            self.adv_buf = (self.adv_buf - adv_mean) / adv_std
            return [self.obs_buf, self.act_buf, self.adv_buf, self.ret_buf, self.logp_buf]
    def ppo(env_fn, actor_critic=mlp_actor_critic, ac_kwargs=dict(), seed=0,
            steps_per_epoch=4000, epochs=50, gamma=0.99, clip_ratio=0.2, pi_lr=3e-4,
            vf_lr=1e-3, train_pi_iters=80, train_v_iters=80, lam=0.97, max_ep_len=1000,
            target_kl=0.01, logger_kwargs=dict(), save_freq=10):
        logger = EpochLogger(**logger_kwargs)
        tf.set_random_seed(seed)
        np.random.seed(seed)
        env = env_fn()
        obs_dim = env.observation_space.shape
        act_dim = env.action_space.shape
        ac_kwargs['action_space'] = env.action_space
        x_ph, a_ph = placeholders_from_spaces(env.observation_space, env.action_space)
        adv_ph, ret_ph, logp_old_ph = placeholders(None, None, None)
        pi, logp, logp_pi, v = actor_critic(x_ph, a_ph, **ac_kwargs)
        all_phs = [x_ph, a_ph, adv_ph, ret_ph, logp_old_ph]
        get_action_ops = [pi, v, logp_pi]
        local_steps_per_epoch = int(steps_per_epoch / 1)
        buf = PPOBuffer(obs_dim, act_dim, local_steps_per_epoch, gamma, lam)
        var_counts = tuple(count_vars(scope) for scope in ['pi', 'v'])
        logger.log('\nNumber of parameters: \t pi: %d, \t v: %d\n'%var_counts)
        ratio = tf.exp(logp - logp_old_ph)
        min_adv = tf.where(adv_ph>0, (1+clip_ratio)*adv_ph, (1-clip_ratio)*adv_ph)
        pi_loss = -tf.reduce_mean(tf.minimum(ratio * adv_ph, min_adv))
        v_loss = tf.reduce_mean((ret_ph - v)**2)
        approx_kl = tf.reduce_mean(logp_old_ph - logp)
        approx_ent = tf.reduce_mean(-logp)
        clipped = tf.logical_or(ratio > (1+clip_ratio), ratio < (1-clip_ratio))
        clipfrac = tf.reduce_mean(tf.cast(clipped, tf.float32))
        train_pi = MpiAdamOptimizer(learning_rate=pi_lr).minimize(pi_loss)
        train_v = MpiAdamOptimizer(learning_rate=vf_lr).minimize(v_loss)
        print(x_ph, a_ph, pi, logp, v, ratio, train_pi.name, train_v.name)
        print([vv.name for vv in tf.global_variables()])
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(sync_all_params())
        def update():
            inputs = {k:v for k,v in zip(all_phs, buf.get())}
            pi_l_old, v_l_old, ent = sess.run([pi_loss, v_loss, approx_ent], feed_dict=inputs)
            for i in range(train_pi_iters):
                _, kl = sess.run([train_pi, approx_kl], feed_dict=inputs)
                if kl > 1.5 * target_kl:
                    logger.log('Early stopping at step %d due to reaching max kl.'%i)
                    break
            logger.store(StopIter=i)
            for _ in range(train_v_iters):
                sess.run(train_v, feed_dict=inputs)
            pi_l_new, v_l_new, kl, cf = sess.run([pi_loss, v_loss, approx_kl, clipfrac], feed_dict=inputs)
            logger.store(LossPi=pi_l_old, LossV=v_l_old, KL=kl, Entropy=ent, ClipFrac=cf,
                         DeltaLossPi=(pi_l_new - pi_l_old), DeltaLossV=(v_l_new - v_l_old))
        o, r, d, ep_ret, ep_len = env.reset(), 0, False, 0, 0
        for epoch in range(epochs):
            for t in range(local_steps_per_epoch):
                a, v_t, logp_t = sess.run(get_action_ops, feed_dict={x_ph: o.reshape(1,-1)})
                o2, r, d, _ = env.step(a[0])
                ep_ret += r
                ep_len += 1
                buf.store(o, a.reshape(act_dim) if act_dim else a[0], r, v_t[0], logp_t[0])  # NumPy 2 refuses size-1 arrays in scalar slots
                logger.store(VVals=v_t)
                o = o2
                timeout = ep_len == max_ep_len
                terminal = d or timeout
                epoch_ended = t == local_steps_per_epoch - 1
                if terminal or epoch_ended:
                    if epoch_ended and not (terminal):
                        print('Warning: trajectory cut off by epoch at %d steps.' % ep_len)
                    last_val = 0 if d else sess.run(v, feed_dict={x_ph: o.reshape(1, -1)})
                    buf.finish_path(last_val)
                    if terminal:
                        logger.store(EpRet=ep_ret, EpLen=ep_len)
                    o, ep_ret, ep_len = env.reset(), 0, 0
            update()
            logger.log_tabular('Epoch', epoch)
            logger.log_tabular('EpRet', with_min_and_max=True)
            logger.log_tabular('EpLen', average_only=True)
            logger.log_tabular('VVals', with_min_and_max=True)
            logger.log_tabular('TotalEnvInteracts', (epoch+1)*steps_per_epoch)
            logger.log_tabular('LossPi', average_only=True)
            logger.log_tabular('LossV', average_only=True)
            logger.log_tabular('DeltaLossPi', average_only=True)
            logger.log_tabular('DeltaLossV', average_only=True)
            logger.log_tabular('Entropy', average_only=True)
            logger.log_tabular('KL', average_only=True)
            logger.log_tabular('ClipFrac', average_only=True)
            logger.log_tabular('StopIter', average_only=True)
            logger.dump_tabular()
        sess.close()
    for disc in (False, True):
        with tf.Graph().as_default():
            ppo(lambda: FakeEnv(discrete=disc), ac_kwargs=dict(hidden_sizes=[8, 8]), seed=3,
                steps_per_epoch=10, epochs=2, train_pi_iters=5, train_v_iters=5, max_ep_len=6)
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["spinup_ppo"], 0)


@pytest.mark.usefixtures("fresh_graph")
def test_spinup_trpo(capsys):
    # openai/spinningup spinup/algos/tf1/trpo/core.py + trpo.py (hessian-vector products of the KL,
    # conjugate gradient, backtracking line search; also algo='npg'), with spinup/utils/mpi_tf.py for one process
    # --- spinup/algos/tf1/trpo/core.py
    EPS = 1e-8
    def combined_shape(length, shape=None):
        if shape is None:
            return (length,)
        return (length, shape) if np.isscalar(shape) else (length, *shape)
    def keys_as_sorted_list(dict):
        return sorted(list(dict.keys()))
    def values_as_sorted_list(dict):
        return [dict[k] for k in keys_as_sorted_list(dict)]
    def placeholder(dim=None):
        return tf.placeholder(dtype=tf.float32, shape=combined_shape(None,dim))
    def placeholders(*args):
        return [placeholder(dim) for dim in args]
    def placeholder_from_space(space):
        if isinstance(space, Box):
            return placeholder(space.shape)
        elif isinstance(space, Discrete):
            return tf.placeholder(dtype=tf.int32, shape=(None,))
        raise NotImplementedError
    def placeholders_from_spaces(*args):
        return [placeholder_from_space(space) for space in args]
    def mlp(x, hidden_sizes=(32,), activation=tf.tanh, output_activation=None):
        for h in hidden_sizes[:-1]:
            x = tf.layers.dense(x, units=h, activation=activation)
        return tf.layers.dense(x, units=hidden_sizes[-1], activation=output_activation)
    def get_vars(scope=''):
        return [x for x in tf.trainable_variables() if scope in x.name]
    def count_vars(scope=''):
        v = get_vars(scope)
        return sum([np.prod(var.shape.as_list()) for var in v])
    def gaussian_likelihood(x, mu, log_std):
        pre_sum = -0.5 * (((x-mu)/(tf.exp(log_std)+EPS))**2 + 2*log_std + np.log(2*np.pi))
        return tf.reduce_sum(pre_sum, axis=1)
    def diagonal_gaussian_kl(mu0, log_std0, mu1, log_std1):
        var0, var1 = tf.exp(2 * log_std0), tf.exp(2 * log_std1)
        pre_sum = 0.5*(((mu1- mu0)**2 + var0)/(var1 + EPS) - 1) +  log_std1 - log_std0
        all_kls = tf.reduce_sum(pre_sum, axis=1)
        return tf.reduce_mean(all_kls)
    def categorical_kl(logp0, logp1):
        all_kls = tf.reduce_sum(tf.exp(logp1) * (logp1 - logp0), axis=1)
        return tf.reduce_mean(all_kls)
    def flat_concat(xs):
        return tf.concat([tf.reshape(x,(-1,)) for x in xs], axis=0)
    def flat_grad(f, params):
        return flat_concat(tf.gradients(xs=params, ys=f))
    def hessian_vector_product(f, params):
        g = flat_grad(f, params)
        x = tf.placeholder(tf.float32, shape=g.shape)
        return x, flat_grad(tf.reduce_sum(g*x), params)
    def assign_params_from_flat(x, params):
        flat_size = lambda p : int(np.prod(p.shape.as_list()))
        splits = tf.split(x, [flat_size(p) for p in params])
        new_params = [tf.reshape(p_new, p.shape) for p, p_new in zip(params, splits)]
        return tf.group([tf.assign(p, p_new) for p, p_new in zip(params, new_params)])
    def discount_cumsum(x, discount):
        return lfilter_discount(x, discount)
    def mlp_categorical_policy(x, a, hidden_sizes, activation, output_activation, action_space):
        act_dim = action_space.n
        logits = mlp(x, list(hidden_sizes)+[act_dim], activation, None)
        logp_all = tf.nn.log_softmax(logits)
        pi = tf.squeeze(tf.multinomial(logits,1), axis=1)
        logp = tf.reduce_sum(tf.one_hot(a, depth=act_dim) * logp_all, axis=1)
        logp_pi = tf.reduce_sum(tf.one_hot(pi, depth=act_dim) * logp_all, axis=1)
        old_logp_all = placeholder(act_dim)
        d_kl = categorical_kl(logp_all, old_logp_all)
        info = {'logp_all': logp_all}
        info_phs = {'logp_all': old_logp_all}
        return pi, logp, logp_pi, info, info_phs, d_kl
    def mlp_gaussian_policy(x, a, hidden_sizes, activation, output_activation, action_space):
        act_dim = a.shape.as_list()[-1]
        mu = mlp(x, list(hidden_sizes)+[act_dim], activation, output_activation)
        log_std = tf.get_variable(name='log_std', initializer=-0.5*np.ones(act_dim, dtype=np.float32))
        std = tf.exp(log_std)
        pi = mu + tf.random_normal(tf.shape(mu)) * std
        logp = gaussian_likelihood(a, mu, log_std)
        logp_pi = gaussian_likelihood(pi, mu, log_std)
        old_mu_ph, old_log_std_ph = placeholders(act_dim, act_dim)
        d_kl = diagonal_gaussian_kl(mu, log_std, old_mu_ph, old_log_std_ph)
        info = {'mu': mu, 'log_std': log_std}
        info_phs = {'mu': old_mu_ph, 'log_std': old_log_std_ph}
        return pi, logp, logp_pi, info, info_phs, d_kl
    def mlp_actor_critic(x, a, hidden_sizes=(64,64), activation=tf.tanh,
                         output_activation=None, policy=None, action_space=None):
        if policy is None and isinstance(action_space, Box):
            policy = mlp_gaussian_policy
        elif policy is None and isinstance(action_space, Discrete):
            policy = mlp_categorical_policy
        with tf.variable_scope('pi'):
            policy_outs = policy(x, a, hidden_sizes, activation, output_activation, action_space)
            pi, logp, logp_pi, info, info_phs, d_kl = policy_outs
        with tf.variable_scope('v'):
            v = tf.squeeze(mlp(x, list(hidden_sizes)+[1], activation, None), axis=1)
        return pi, logp, logp_pi, info, info_phs, d_kl, v
    # --- spinup/utils/mpi_tf.py (tests/rl_programs_env.py; its flat_concat and
    # assign_params_from_flat are the ones above, the same code)
    _, _, sync_params, sync_all_params, MpiAdamOptimizer = spinup_mpi_tf()
    # --- spinup/algos/tf1/trpo/trpo.py
    class GAEBuffer:
        def __init__(self, obs_dim, act_dim, size, info_shapes, gamma=0.99, lam=0.95):
            self.obs_buf = np.zeros(combined_shape(size, obs_dim), dtype=np.float32)
            self.act_buf = np.zeros(combined_shape(size, act_dim), dtype=np.float32)
            self.adv_buf = np.zeros(size, dtype=np.float32)
            self.rew_buf = np.zeros(size, dtype=np.float32)
            self.ret_buf = np.zeros(size, dtype=np.float32)
            self.val_buf = np.zeros(size, dtype=np.float32)
            self.logp_buf = np.zeros(size, dtype=np.float32)
            self.info_bufs = {k: np.zeros([size] + list(v), dtype=np.float32) for k,v in info_shapes.items()}
            self.sorted_info_keys = keys_as_sorted_list(self.info_bufs)
            self.gamma, self.lam = gamma, lam
            self.ptr, self.path_start_idx, self.max_size = 0, 0, size
        def store(self, obs, act, rew, val, logp, info):
            assert self.ptr < self.max_size
            self.obs_buf[self.ptr] = obs
            self.act_buf[self.ptr] = act
            self.rew_buf[self.ptr] = rew
            self.val_buf[self.ptr] = val
            self.logp_buf[self.ptr] = logp
            for i, k in enumerate(self.sorted_info_keys):
                self.info_bufs[k][self.ptr] = info[i]
            self.ptr += 1
        def finish_path(self, last_val=0):
            path_slice = slice(self.path_start_idx, self.ptr)
            rews = np.append(self.rew_buf[path_slice], last_val)
            vals = np.append(self.val_buf[path_slice], last_val)
            deltas = rews[:-1] + self.gamma * vals[1:] - vals[:-1]
            self.adv_buf[path_slice] = discount_cumsum(deltas, self.gamma * self.lam)
            self.ret_buf[path_slice] = discount_cumsum(rews, self.gamma)[:-1]
            self.path_start_idx = self.ptr
        def get(self):
            assert self.ptr == self.max_size
            self.ptr, self.path_start_idx = 0, 0
            adv_mean, adv_std = np.mean(self.adv_buf), np.std(self.adv_buf)
            self.adv_buf = (self.adv_buf - adv_mean) / adv_std
            return [self.obs_buf, self.act_buf, self.adv_buf, self.ret_buf,
                    self.logp_buf] + values_as_sorted_list(self.info_bufs)
    def trpo(env_fn, actor_critic=mlp_actor_critic, ac_kwargs=dict(), seed=0,
             steps_per_epoch=4000, epochs=50, gamma=0.99, delta=0.01, vf_lr=1e-3,
             train_v_iters=80, damping_coeff=0.1, cg_iters=10, backtrack_iters=10,
             backtrack_coeff=0.8, lam=0.97, max_ep_len=1000, logger_kwargs=dict(),
             save_freq=10, algo='trpo'):
        logger = EpochLogger(**logger_kwargs)
        tf.set_random_seed(seed)
        np.random.seed(seed)
        env = env_fn()
        obs_dim = env.observation_space.shape
        act_dim = env.action_space.shape
        ac_kwargs['action_space'] = env.action_space
        x_ph, a_ph = placeholders_from_spaces(env.observation_space, env.action_space)
        adv_ph, ret_ph, logp_old_ph = placeholders(None, None, None)
        pi, logp, logp_pi, info, info_phs, d_kl, v = actor_critic(x_ph, a_ph, **ac_kwargs)
        all_phs = [x_ph, a_ph, adv_ph, ret_ph, logp_old_ph] + values_as_sorted_list(info_phs)
        get_action_ops = [pi, v, logp_pi] + values_as_sorted_list(info)
        local_steps_per_epoch = int(steps_per_epoch / 1)
        info_shapes = {k: v.shape.as_list()[1:] for k,v in info_phs.items()}
        buf = GAEBuffer(obs_dim, act_dim, local_steps_per_epoch, info_shapes, gamma, lam)
        var_counts = tuple(count_vars(scope) for scope in ['pi', 'v'])
        logger.log('\nNumber of parameters: \t pi: %d, \t v: %d\n'%var_counts)
        ratio = tf.exp(logp - logp_old_ph)
        pi_loss = -tf.reduce_mean(ratio * adv_ph)
        v_loss = tf.reduce_mean((ret_ph - v)**2)
        train_vf = MpiAdamOptimizer(learning_rate=vf_lr).minimize(v_loss)
        pi_params = get_vars('pi')
        gradient = flat_grad(pi_loss, pi_params)
        v_ph, hvp = hessian_vector_product(d_kl, pi_params)
        if damping_coeff > 0:
            hvp += damping_coeff * v_ph
        get_pi_params = flat_concat(pi_params)
        set_pi_params = assign_params_from_flat(v_ph, pi_params)
        print(info_shapes, gradient, v_ph, hvp, get_pi_params, set_pi_params.name, d_kl)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(sync_all_params())
        def cg(Ax, b):
            x = np.zeros_like(b)
            r = b.copy()
            p = r.copy()
            r_dot_old = np.dot(r,r)
            for _ in range(cg_iters):
                z = Ax(p)
                alpha = r_dot_old / (np.dot(p, z) + EPS)
                x += alpha * p
                r -= alpha * z
                r_dot_new = np.dot(r,r)
                p = r + (r_dot_new / r_dot_old) * p
                r_dot_old = r_dot_new
            return x
        def update():
            inputs = {k:v for k,v in zip(all_phs, buf.get())}
            Hx = lambda x : sess.run(hvp, feed_dict={**inputs, v_ph: x})
            g, pi_l_old, v_l_old = sess.run([gradient, pi_loss, v_loss], feed_dict=inputs)
            x = cg(Hx, g)
            alpha = np.sqrt(2*delta/(np.dot(x, Hx(x))+EPS))
            old_params = sess.run(get_pi_params)
            def set_and_eval(step):
                sess.run(set_pi_params, feed_dict={v_ph: old_params - alpha * x * step})
                return sess.run([d_kl, pi_loss], feed_dict=inputs)
            if algo=='npg':
                kl, pi_l_new = set_and_eval(step=1.)
            elif algo=='trpo':
                for j in range(backtrack_iters):
                    kl, pi_l_new = set_and_eval(step=backtrack_coeff**j)
                    if kl <= delta and pi_l_new <= pi_l_old:
                        logger.log('Accepting new params at step %d of line search.'%j)
                        logger.store(BacktrackIters=j)
                        break
                    if j==backtrack_iters-1:
                        logger.log('Line search failed! Keeping old params.')
                        logger.store(BacktrackIters=j)
                        kl, pi_l_new = set_and_eval(step=0.)
            for _ in range(train_v_iters):
                sess.run(train_vf, feed_dict=inputs)
            v_l_new = sess.run(v_loss, feed_dict=inputs)
            logger.store(LossPi=pi_l_old, LossV=v_l_old, KL=kl,
                         DeltaLossPi=(pi_l_new - pi_l_old), DeltaLossV=(v_l_new - v_l_old))
        o, ep_ret, ep_len = env.reset(), 0, 0
        for epoch in range(epochs):
            for t in range(local_steps_per_epoch):
                agent_outs = sess.run(get_action_ops, feed_dict={x_ph: o.reshape(1,-1)})
                a, v_t, logp_t, info_t = agent_outs[0][0], agent_outs[1], agent_outs[2], agent_outs[3:]
                o2, r, d, _ = env.step(a)
                ep_ret += r
                ep_len += 1
                buf.store(o, a, r, v_t[0], logp_t[0], info_t)  # NumPy 2 refuses size-1 arrays in scalar slots
                logger.store(VVals=v_t)
                o = o2
                timeout = ep_len == max_ep_len
                terminal = d or timeout
                epoch_ended = t == local_steps_per_epoch - 1
                if terminal or epoch_ended:
                    if epoch_ended and not (terminal):
                        print('Warning: trajectory cut off by epoch at %d steps.' % ep_len)
                    last_val = 0 if d else sess.run(v, feed_dict={x_ph: o.reshape(1, -1)})
                    buf.finish_path(last_val)
                    if terminal:
                        logger.store(EpRet=ep_ret, EpLen=ep_len)
                    o, ep_ret, ep_len = env.reset(), 0, 0
            update()
            logger.log_tabular('Epoch', epoch)
            logger.log_tabular('EpRet', with_min_and_max=True)
            logger.log_tabular('EpLen', average_only=True)
            logger.log_tabular('VVals', with_min_and_max=True)
            logger.log_tabular('TotalEnvInteracts', (epoch+1)*steps_per_epoch)
            logger.log_tabular('LossPi', average_only=True)
            logger.log_tabular('LossV', average_only=True)
            logger.log_tabular('DeltaLossPi', average_only=True)
            logger.log_tabular('DeltaLossV', average_only=True)
            logger.log_tabular('KL', average_only=True)
            if algo=='trpo':
                logger.log_tabular('BacktrackIters', average_only=True)
            logger.dump_tabular()
        sess.close()
    for disc, algo in ((False, 'trpo'), (True, 'trpo'), (False, 'npg')):
        with tf.Graph().as_default():
            trpo(lambda: FakeEnv(discrete=disc, act_dim=3 if disc else 2), ac_kwargs=dict(hidden_sizes=[8, 8]), seed=5,
                 steps_per_epoch=10, epochs=2, train_v_iters=3, cg_iters=4, max_ep_len=6, algo=algo)
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["spinup_trpo"], 1e-4)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'spinup_ppo': [
        '',
        'Number of parameters: \t pi: 124, \t v: 113',
        '',
        'Tensor("Placeholder:0", shape=(?, 3), dtype=float32) Tensor("Placeholder_1:0", shape=(?, 2), dtype=float32) Tensor("pi/add:0", shape=(?, 2), dtype=float32) Tensor("pi/Sum:0", shape=(?,), dtype=float32) Tensor("v/Squeeze:0", shape=(?,), dtype=float32) Tensor("Exp:0", shape=(?,), dtype=float32) group_deps_1 group_deps_3',
        "['pi/dense/kernel:0', 'pi/dense/bias:0', 'pi/dense_1/kernel:0', 'pi/dense_1/bias:0', 'pi/dense_2/kernel:0', 'pi/dense_2/bias:0', 'pi/log_std:0', 'v/dense/kernel:0', 'v/dense/bias:0', 'v/dense_1/kernel:0', 'v/dense_1/bias:0', 'v/dense_2/kernel:0', 'v/dense_2/bias:0', 'beta1_power:0', 'beta2_power:0', 'pi/dense/kernel/Adam:0', 'pi/dense/kernel/Adam_1:0', 'pi/dense/bias/Adam:0', 'pi/dense/bias/Adam_1:0', 'pi/dense_1/kernel/Adam:0', 'pi/dense_1/kernel/Adam_1:0', 'pi/dense_1/bias/Adam:0', 'pi/dense_1/bias/Adam_1:0', 'pi/dense_2/kernel/Adam:0', 'pi/dense_2/kernel/Adam_1:0', 'pi/dense_2/bias/Adam:0', 'pi/dense_2/bias/Adam_1:0', 'pi/log_std/Adam:0', 'pi/log_std/Adam_1:0', 'beta1_power_1:0', 'beta2_power_1:0', 'v/dense/kernel/Adam:0', 'v/dense/kernel/Adam_1:0', 'v/dense/bias/Adam:0', 'v/dense/bias/Adam_1:0', 'v/dense_1/kernel/Adam:0', 'v/dense_1/kernel/Adam_1:0', 'v/dense_1/bias/Adam:0', 'v/dense_1/bias/Adam_1:0', 'v/dense_2/kernel/Adam:0', 'v/dense_2/kernel/Adam_1:0', 'v/dense_2/bias/Adam:0', 'v/dense_2/bias/Adam_1:0']",
        'Warning: trajectory cut off by epoch at 4 steps.',
        '|          Epoch | 0',
        '|   AverageEpRet | -6.80345',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -6.80345',
        '|       MinEpRet | -6.80345',
        '|   AverageEpLen | 6',
        '|   AverageVVals | 0.03319',
        '|       StdVVals | 0.08921',
        '|       MaxVVals | 0.15427',
        '|       MinVVals | -0.10855',
        '|TotalEnvInteracts | 10',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 11.7436',
        '|AverageDeltaLossPi | -0.00976',
        '|AverageDeltaLossV | -0.52096',
        '| AverageEntropy | 1.80923',
        '|      AverageKL | 0.00118',
        '|AverageClipFrac | 0',
        '|AverageStopIter | 4',
        'Warning: trajectory cut off by epoch at 4 steps.',
        '|          Epoch | 1',
        '|   AverageEpRet | -6.44386',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -6.44386',
        '|       MinEpRet | -6.44386',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.06454',
        '|       StdVVals | 0.0691',
        '|       MaxVVals | 0.03958',
        '|       MinVVals | -0.17389',
        '|TotalEnvInteracts | 20',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 11.395',
        '|AverageDeltaLossPi | -0.00232',
        '|AverageDeltaLossV | -0.48991',
        '| AverageEntropy | 1.79966',
        '|      AverageKL | 0.00223',
        '|AverageClipFrac | 0',
        '|AverageStopIter | 4',
        '',
        'Number of parameters: \t pi: 122, \t v: 113',
        '',
        'Tensor("Placeholder:0", shape=(?, 3), dtype=float32) Tensor("Placeholder_1:0", shape=(?,), dtype=int32) Tensor("pi/Squeeze:0", shape=(?,), dtype=int64) Tensor("pi/Sum:0", shape=(?,), dtype=float32) Tensor("v/Squeeze:0", shape=(?,), dtype=float32) Tensor("Exp:0", shape=(?,), dtype=float32) group_deps_1 group_deps_3',
        "['pi/dense/kernel:0', 'pi/dense/bias:0', 'pi/dense_1/kernel:0', 'pi/dense_1/bias:0', 'pi/dense_2/kernel:0', 'pi/dense_2/bias:0', 'v/dense/kernel:0', 'v/dense/bias:0', 'v/dense_1/kernel:0', 'v/dense_1/bias:0', 'v/dense_2/kernel:0', 'v/dense_2/bias:0', 'beta1_power:0', 'beta2_power:0', 'pi/dense/kernel/Adam:0', 'pi/dense/kernel/Adam_1:0', 'pi/dense/bias/Adam:0', 'pi/dense/bias/Adam_1:0', 'pi/dense_1/kernel/Adam:0', 'pi/dense_1/kernel/Adam_1:0', 'pi/dense_1/bias/Adam:0', 'pi/dense_1/bias/Adam_1:0', 'pi/dense_2/kernel/Adam:0', 'pi/dense_2/kernel/Adam_1:0', 'pi/dense_2/bias/Adam:0', 'pi/dense_2/bias/Adam_1:0', 'beta1_power_1:0', 'beta2_power_1:0', 'v/dense/kernel/Adam:0', 'v/dense/kernel/Adam_1:0', 'v/dense/bias/Adam:0', 'v/dense/bias/Adam_1:0', 'v/dense_1/kernel/Adam:0', 'v/dense_1/kernel/Adam_1:0', 'v/dense_1/bias/Adam:0', 'v/dense_1/bias/Adam_1:0', 'v/dense_2/kernel/Adam:0', 'v/dense_2/kernel/Adam_1:0', 'v/dense_2/bias/Adam:0', 'v/dense_2/bias/Adam_1:0']",
        'Warning: trajectory cut off by epoch at 4 steps.',
        '|          Epoch | 0',
        '|   AverageEpRet | -11.0365',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -11.0365',
        '|       MinEpRet | -11.0365',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.15572',
        '|       StdVVals | 0.03644',
        '|       MaxVVals | -0.10048',
        '|       MinVVals | -0.22074',
        '|TotalEnvInteracts | 10',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 33.1779',
        '|AverageDeltaLossPi | -0.01118',
        '|AverageDeltaLossV | -1.16418',
        '| AverageEntropy | 0.78052',
        '|      AverageKL | 0.01342',
        '|AverageClipFrac | 0',
        '|AverageStopIter | 4',
        'Warning: trajectory cut off by epoch at 4 steps.',
        '|          Epoch | 1',
        '|   AverageEpRet | -8.0797',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -8.0797',
        '|       MinEpRet | -8.0797',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.20996',
        '|       StdVVals | 0.0511',
        '|       MaxVVals | -0.1245',
        '|       MinVVals | -0.27631',
        '|TotalEnvInteracts | 20',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 17.224',
        '|AverageDeltaLossPi | -0.00616',
        '|AverageDeltaLossV | -0.70024',
        '| AverageEntropy | 0.65983',
        '|      AverageKL | 0.00166',
        '|AverageClipFrac | 0',
        '|AverageStopIter | 4',
    ],
    'spinup_trpo': [
        '',
        'Number of parameters: \t pi: 124, \t v: 113',
        '',
        '{\'mu\': [2], \'log_std\': [2]} Tensor("concat_2:0", shape=(124,), dtype=float32) Tensor("Placeholder_5:0", shape=(124,), dtype=float32) Tensor("add:0", shape=(124,), dtype=float32) Tensor("concat_5:0", shape=(124,), dtype=float32) group_deps_2 Tensor("pi/Mean:0", shape=(), dtype=float32)',
        'Warning: trajectory cut off by epoch at 4 steps.',
        'Accepting new params at step 0 of line search.',
        '|          Epoch | 0',
        '|   AverageEpRet | -24.7198',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -24.7198',
        '|       MinEpRet | -24.7198',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.22433',
        '|       StdVVals | 0.0117',
        '|       MaxVVals | -0.19433',
        '|       MinVVals | -0.23762',
        '|TotalEnvInteracts | 10',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 229.803',
        '|AverageDeltaLossPi | -0.09135',
        '|AverageDeltaLossV | -2.35815',
        '|      AverageKL | 0.00817',
        '|AverageBacktrackIters | 0',
        'Warning: trajectory cut off by epoch at 4 steps.',
        'Accepting new params at step 0 of line search.',
        '|          Epoch | 1',
        '|   AverageEpRet | -21.7907',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -21.7907',
        '|       MinEpRet | -21.7907',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.31119',
        '|       StdVVals | 0.01187',
        '|       MaxVVals | -0.2915',
        '|       MinVVals | -0.32885',
        '|TotalEnvInteracts | 20',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 197.845',
        '|AverageDeltaLossPi | -0.0808',
        '|AverageDeltaLossV | -2.15851',
        '|      AverageKL | 0.00899',
        '|AverageBacktrackIters | 0',
        '',
        'Number of parameters: \t pi: 131, \t v: 113',
        '',
        '{\'logp_all\': [3]} Tensor("concat_2:0", shape=(131,), dtype=float32) Tensor("Placeholder_5:0", shape=(131,), dtype=float32) Tensor("add:0", shape=(131,), dtype=float32) Tensor("concat_5:0", shape=(131,), dtype=float32) group_deps_2 Tensor("pi/Mean:0", shape=(), dtype=float32)',
        'Warning: trajectory cut off by epoch at 4 steps.',
        'Accepting new params at step 0 of line search.',
        '|          Epoch | 0',
        '|   AverageEpRet | -8.94016',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -8.94016',
        '|       MinEpRet | -8.94016',
        '|   AverageEpLen | 6',
        '|   AverageVVals | 0.04455',
        '|       StdVVals | 0.04825',
        '|       MaxVVals | 0.1093',
        '|       MinVVals | -0.05405',
        '|TotalEnvInteracts | 10',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 25.1356',
        '|AverageDeltaLossPi | -0.11965',
        '|AverageDeltaLossV | -0.44501',
        '|      AverageKL | 0.00794',
        '|AverageBacktrackIters | 0',
        'Warning: trajectory cut off by epoch at 4 steps.',
        'Accepting new params at step 0 of line search.',
        '|          Epoch | 1',
        '|   AverageEpRet | -11.4396',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -11.4396',
        '|       MinEpRet | -11.4396',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.00476',
        '|       StdVVals | 0.096',
        '|       MaxVVals | 0.15424',
        '|       MinVVals | -0.14588',
        '|TotalEnvInteracts | 20',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 35.0349',
        '|AverageDeltaLossPi | -0.11761',
        '|AverageDeltaLossV | -0.49273',
        '|      AverageKL | 0.00764',
        '|AverageBacktrackIters | 0',
        '',
        'Number of parameters: \t pi: 124, \t v: 113',
        '',
        '{\'mu\': [2], \'log_std\': [2]} Tensor("concat_2:0", shape=(124,), dtype=float32) Tensor("Placeholder_5:0", shape=(124,), dtype=float32) Tensor("add:0", shape=(124,), dtype=float32) Tensor("concat_5:0", shape=(124,), dtype=float32) group_deps_2 Tensor("pi/Mean:0", shape=(), dtype=float32)',
        'Warning: trajectory cut off by epoch at 4 steps.',
        '|          Epoch | 0',
        '|   AverageEpRet | -24.7198',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -24.7198',
        '|       MinEpRet | -24.7198',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.22433',
        '|       StdVVals | 0.0117',
        '|       MaxVVals | -0.19433',
        '|       MinVVals | -0.23762',
        '|TotalEnvInteracts | 10',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 229.803',
        '|AverageDeltaLossPi | -0.09135',
        '|AverageDeltaLossV | -2.35815',
        '|      AverageKL | 0.00817',
        'Warning: trajectory cut off by epoch at 4 steps.',
        '|          Epoch | 1',
        '|   AverageEpRet | -21.7907',
        '|       StdEpRet | 0',
        '|       MaxEpRet | -21.7907',
        '|       MinEpRet | -21.7907',
        '|   AverageEpLen | 6',
        '|   AverageVVals | -0.31119',
        '|       StdVVals | 0.01187',
        '|       MaxVVals | -0.2915',
        '|       MinVVals | -0.32885',
        '|TotalEnvInteracts | 20',
        '|  AverageLossPi | 0',
        '|   AverageLossV | 197.845',
        '|AverageDeltaLossPi | -0.0808',
        '|AverageDeltaLossV | -2.15851',
        '|      AverageKL | 0.00899',
    ],
}
