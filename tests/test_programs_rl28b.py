"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
Spinning Up's TF1 SAC and TD3, and MorvanZhou's DDPG (EMA target networks through a custom
getter) and PPO (tf.contrib.distributions Normal, KL penalty and clipping)."""
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
def test_spinup_sac(capsys):
    # openai/spinningup spinup/algos/tf1/sac/core.py + sac.py
    # --- spinup/algos/tf1/sac/core.py
    EPS = 1e-8
    def placeholder(dim=None):
        return tf.placeholder(dtype=tf.float32, shape=(None,dim) if dim else (None,))
    def placeholders(*args):
        return [placeholder(dim) for dim in args]
    def mlp(x, hidden_sizes=(32,), activation=tf.tanh, output_activation=None):
        for h in hidden_sizes[:-1]:
            x = tf.layers.dense(x, units=h, activation=activation)
        return tf.layers.dense(x, units=hidden_sizes[-1], activation=output_activation)
    def get_vars(scope):
        return [x for x in tf.global_variables() if scope in x.name]
    def count_vars(scope):
        v = get_vars(scope)
        return sum([np.prod(var.shape.as_list()) for var in v])
    def gaussian_likelihood(x, mu, log_std):
        pre_sum = -0.5 * (((x-mu)/(tf.exp(log_std)+EPS))**2 + 2*log_std + np.log(2*np.pi))
        return tf.reduce_sum(pre_sum, axis=1)
    LOG_STD_MAX = 2
    LOG_STD_MIN = -20
    def mlp_gaussian_policy(x, a, hidden_sizes, activation, output_activation):
        act_dim = a.shape.as_list()[-1]
        net = mlp(x, list(hidden_sizes), activation, activation)
        mu = tf.layers.dense(net, act_dim, activation=output_activation)
        log_std = tf.layers.dense(net, act_dim, activation=None)
        log_std = tf.clip_by_value(log_std, LOG_STD_MIN, LOG_STD_MAX)
        std = tf.exp(log_std)
        pi = mu + tf.random_normal(tf.shape(mu)) * std
        logp_pi = gaussian_likelihood(pi, mu, log_std)
        return mu, pi, logp_pi
    def apply_squashing_func(mu, pi, logp_pi):
        logp_pi -= tf.reduce_sum(2*(np.log(2) - pi - tf.nn.softplus(-2*pi)), axis=1)
        mu = tf.tanh(mu)
        pi = tf.tanh(pi)
        return mu, pi, logp_pi
    def mlp_actor_critic(x, a, hidden_sizes=(256,256), activation=tf.nn.relu,
                         output_activation=None, policy=mlp_gaussian_policy, action_space=None):
        with tf.variable_scope('pi'):
            mu, pi, logp_pi = policy(x, a, hidden_sizes, activation, output_activation)
            mu, pi, logp_pi = apply_squashing_func(mu, pi, logp_pi)
        action_scale = action_space.high[0]
        mu *= action_scale
        pi *= action_scale
        vf_mlp = lambda x : tf.squeeze(mlp(x, list(hidden_sizes)+[1], activation, None), axis=1)
        with tf.variable_scope('q1'):
            q1 = vf_mlp(tf.concat([x,a], axis=-1))
        with tf.variable_scope('q2'):
            q2 = vf_mlp(tf.concat([x,a], axis=-1))
        return mu, pi, logp_pi, q1, q2
    # --- spinup/algos/tf1/sac/sac.py
    class ReplayBuffer:
        def __init__(self, obs_dim, act_dim, size):
            self.obs1_buf = np.zeros([size, obs_dim], dtype=np.float32)
            self.obs2_buf = np.zeros([size, obs_dim], dtype=np.float32)
            self.acts_buf = np.zeros([size, act_dim], dtype=np.float32)
            self.rews_buf = np.zeros(size, dtype=np.float32)
            self.done_buf = np.zeros(size, dtype=np.float32)
            self.ptr, self.size, self.max_size = 0, 0, size
        def store(self, obs, act, rew, next_obs, done):
            self.obs1_buf[self.ptr] = obs
            self.obs2_buf[self.ptr] = next_obs
            self.acts_buf[self.ptr] = act
            self.rews_buf[self.ptr] = rew
            self.done_buf[self.ptr] = done
            self.ptr = (self.ptr+1) % self.max_size
            self.size = min(self.size+1, self.max_size)
        def sample_batch(self, batch_size=32):
            idxs = np.random.randint(0, self.size, size=batch_size)
            return dict(obs1=self.obs1_buf[idxs], obs2=self.obs2_buf[idxs], acts=self.acts_buf[idxs],
                        rews=self.rews_buf[idxs], done=self.done_buf[idxs])
    def sac(env_fn, actor_critic=mlp_actor_critic, ac_kwargs=dict(), seed=0,
            steps_per_epoch=4000, epochs=100, replay_size=int(1e6), gamma=0.99,
            polyak=0.995, lr=1e-3, alpha=0.2, batch_size=100, start_steps=10000,
            update_after=1000, update_every=50, num_test_episodes=10, max_ep_len=1000,
            logger_kwargs=dict(), save_freq=1):
        logger = EpochLogger(**logger_kwargs)
        tf.set_random_seed(seed)
        np.random.seed(seed)
        env, test_env = env_fn(), env_fn()
        obs_dim = env.observation_space.shape[0]
        act_dim = env.action_space.shape[0]
        act_limit = env.action_space.high[0]
        ac_kwargs['action_space'] = env.action_space
        x_ph, a_ph, x2_ph, r_ph, d_ph = placeholders(obs_dim, act_dim, obs_dim, None, None)
        with tf.variable_scope('main'):
            mu, pi, logp_pi, q1, q2 = actor_critic(x_ph, a_ph, **ac_kwargs)
        with tf.variable_scope('main', reuse=True):
            _, _, _, q1_pi, q2_pi = actor_critic(x_ph, pi, **ac_kwargs)
            _, pi_next, logp_pi_next, _, _ = actor_critic(x2_ph, a_ph, **ac_kwargs)
        with tf.variable_scope('target'):
            _, _, _, q1_targ, q2_targ  = actor_critic(x2_ph, pi_next, **ac_kwargs)
        replay_buffer = ReplayBuffer(obs_dim=obs_dim, act_dim=act_dim, size=replay_size)
        var_counts = tuple(count_vars(scope) for scope in ['main/pi', 'main/q1', 'main/q2', 'main'])
        print('\nNumber of parameters: \t pi: %d, \t q1: %d, \t q2: %d, \t total: %d\n'%var_counts)
        min_q_pi = tf.minimum(q1_pi, q2_pi)
        min_q_targ = tf.minimum(q1_targ, q2_targ)
        q_backup = tf.stop_gradient(r_ph + gamma*(1-d_ph)*(min_q_targ - alpha * logp_pi_next))
        pi_loss = tf.reduce_mean(alpha * logp_pi - min_q_pi)
        q1_loss = 0.5 * tf.reduce_mean((q_backup - q1)**2)
        q2_loss = 0.5 * tf.reduce_mean((q_backup - q2)**2)
        value_loss = q1_loss + q2_loss
        pi_optimizer = tf.train.AdamOptimizer(learning_rate=lr)
        train_pi_op = pi_optimizer.minimize(pi_loss, var_list=get_vars('main/pi'))
        value_optimizer = tf.train.AdamOptimizer(learning_rate=lr)
        value_params = get_vars('main/q')
        with tf.control_dependencies([train_pi_op]):
            train_value_op = value_optimizer.minimize(value_loss, var_list=value_params)
        with tf.control_dependencies([train_value_op]):
            target_update = tf.group([tf.assign(v_targ, polyak*v_targ + (1-polyak)*v_main)
                                      for v_main, v_targ in zip(get_vars('main'), get_vars('target'))])
        step_ops = [pi_loss, q1_loss, q2_loss, q1, q2, logp_pi,
                    train_pi_op, train_value_op, target_update]
        target_init = tf.group([tf.assign(v_targ, v_main)
                                  for v_main, v_targ in zip(get_vars('main'), get_vars('target'))])
        print(mu, pi, logp_pi, q1_pi, q_backup, pi_loss, train_pi_op.name, train_value_op.name, target_update.name)
        print([v.name for v in get_vars('target')])
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(target_init)
        def get_action(o, deterministic=False):
            act_op = mu if deterministic else pi
            return sess.run(act_op, feed_dict={x_ph: o.reshape(1,-1)})[0]
        def test_agent():
            for j in range(num_test_episodes):
                o, d, ep_ret, ep_len = test_env.reset(), False, 0, 0
                while not(d or (ep_len == max_ep_len)):
                    o, r, d, _ = test_env.step(get_action(o, True))
                    ep_ret += r
                    ep_len += 1
                logger.store(TestEpRet=ep_ret, TestEpLen=ep_len)
        o, ep_ret, ep_len = env.reset(), 0, 0
        total_steps = steps_per_epoch * epochs
        for t in range(total_steps):
            if t > start_steps:
                a = get_action(o)
            else:
                a = env.action_space.sample()
            o2, r, d, _ = env.step(a)
            ep_ret += r
            ep_len += 1
            d = False if ep_len==max_ep_len else d
            replay_buffer.store(o, a, r, o2, d)
            o = o2
            if d or (ep_len == max_ep_len):
                logger.store(EpRet=ep_ret, EpLen=ep_len)
                o, ep_ret, ep_len = env.reset(), 0, 0
            if t >= update_after and t % update_every == 0:
                for j in range(update_every):
                    batch = replay_buffer.sample_batch(batch_size)
                    feed_dict = {x_ph: batch['obs1'], x2_ph: batch['obs2'], a_ph: batch['acts'],
                                 r_ph: batch['rews'], d_ph: batch['done']}
                    outs = sess.run(step_ops, feed_dict)
                    logger.store(LossPi=outs[0], LossQ1=outs[1], LossQ2=outs[2],
                                 Q1Vals=outs[3], Q2Vals=outs[4], LogPi=outs[5])
            if (t+1) % steps_per_epoch == 0:
                epoch = (t+1) // steps_per_epoch
                test_agent()
                logger.log_tabular('Epoch', epoch)
                logger.log_tabular('EpRet', with_min_and_max=True)
                logger.log_tabular('TestEpRet', with_min_and_max=True)
                logger.log_tabular('EpLen', average_only=True)
                logger.log_tabular('TestEpLen', average_only=True)
                logger.log_tabular('TotalEnvInteracts', t)
                logger.log_tabular('Q1Vals', with_min_and_max=True)
                logger.log_tabular('Q2Vals', with_min_and_max=True)
                logger.log_tabular('LogPi', with_min_and_max=True)
                logger.log_tabular('LossPi', average_only=True)
                logger.log_tabular('LossQ1', average_only=True)
                logger.log_tabular('LossQ2', average_only=True)
                logger.dump_tabular()
        sess.close()
    sac(lambda: FakeEnv(), ac_kwargs=dict(hidden_sizes=[8, 8]), seed=1, steps_per_epoch=12, epochs=2,
        replay_size=50, batch_size=6, start_steps=8, update_after=6, update_every=3, num_test_episodes=1, max_ep_len=5)
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["spinup_sac"], 0)


@pytest.mark.usefixtures("fresh_graph")
def test_spinup_td3(capsys):
    # openai/spinningup spinup/algos/tf1/td3/core.py + td3.py
    # --- spinup/algos/tf1/td3/core.py
    def placeholder(dim=None):
        return tf.placeholder(dtype=tf.float32, shape=(None,dim) if dim else (None,))
    def placeholders(*args):
        return [placeholder(dim) for dim in args]
    def mlp(x, hidden_sizes=(32,), activation=tf.tanh, output_activation=None):
        for h in hidden_sizes[:-1]:
            x = tf.layers.dense(x, units=h, activation=activation)
        return tf.layers.dense(x, units=hidden_sizes[-1], activation=output_activation)
    def get_vars(scope):
        return [x for x in tf.global_variables() if scope in x.name]
    def count_vars(scope):
        v = get_vars(scope)
        return sum([np.prod(var.shape.as_list()) for var in v])
    def mlp_actor_critic(x, a, hidden_sizes=(256,256), activation=tf.nn.relu,
                         output_activation=tf.tanh, action_space=None):
        act_dim = a.shape.as_list()[-1]
        act_limit = action_space.high[0]
        with tf.variable_scope('pi'):
            pi = act_limit * mlp(x, list(hidden_sizes)+[act_dim], activation, output_activation)
        with tf.variable_scope('q1'):
            q1 = tf.squeeze(mlp(tf.concat([x,a], axis=-1), list(hidden_sizes)+[1], activation, None), axis=1)
        with tf.variable_scope('q2'):
            q2 = tf.squeeze(mlp(tf.concat([x,a], axis=-1), list(hidden_sizes)+[1], activation, None), axis=1)
        with tf.variable_scope('q1', reuse=True):
            q1_pi = tf.squeeze(mlp(tf.concat([x,pi], axis=-1), list(hidden_sizes)+[1], activation, None), axis=1)
        return pi, q1, q2, q1_pi
    # --- spinup/algos/tf1/td3/td3.py
    class ReplayBuffer:
        def __init__(self, obs_dim, act_dim, size):
            self.obs1_buf = np.zeros([size, obs_dim], dtype=np.float32)
            self.obs2_buf = np.zeros([size, obs_dim], dtype=np.float32)
            self.acts_buf = np.zeros([size, act_dim], dtype=np.float32)
            self.rews_buf = np.zeros(size, dtype=np.float32)
            self.done_buf = np.zeros(size, dtype=np.float32)
            self.ptr, self.size, self.max_size = 0, 0, size
        def store(self, obs, act, rew, next_obs, done):
            self.obs1_buf[self.ptr] = obs
            self.obs2_buf[self.ptr] = next_obs
            self.acts_buf[self.ptr] = act
            self.rews_buf[self.ptr] = rew
            self.done_buf[self.ptr] = done
            self.ptr = (self.ptr+1) % self.max_size
            self.size = min(self.size+1, self.max_size)
        def sample_batch(self, batch_size=32):
            idxs = np.random.randint(0, self.size, size=batch_size)
            return dict(obs1=self.obs1_buf[idxs], obs2=self.obs2_buf[idxs], acts=self.acts_buf[idxs],
                        rews=self.rews_buf[idxs], done=self.done_buf[idxs])
    def td3(env_fn, actor_critic=mlp_actor_critic, ac_kwargs=dict(), seed=0,
            steps_per_epoch=4000, epochs=100, replay_size=int(1e6), gamma=0.99,
            polyak=0.995, pi_lr=1e-3, q_lr=1e-3, batch_size=100, start_steps=10000,
            update_after=1000, update_every=50, act_noise=0.1, target_noise=0.2,
            noise_clip=0.5, policy_delay=2, num_test_episodes=10, max_ep_len=1000,
            logger_kwargs=dict(), save_freq=1):
        logger = EpochLogger(**logger_kwargs)
        tf.set_random_seed(seed)
        np.random.seed(seed)
        env, test_env = env_fn(), env_fn()
        obs_dim = env.observation_space.shape[0]
        act_dim = env.action_space.shape[0]
        act_limit = env.action_space.high[0]
        ac_kwargs['action_space'] = env.action_space
        x_ph, a_ph, x2_ph, r_ph, d_ph = placeholders(obs_dim, act_dim, obs_dim, None, None)
        with tf.variable_scope('main'):
            pi, q1, q2, q1_pi = actor_critic(x_ph, a_ph, **ac_kwargs)
        with tf.variable_scope('target'):
            pi_targ, _, _, _  = actor_critic(x2_ph, a_ph, **ac_kwargs)
        with tf.variable_scope('target', reuse=True):
            epsilon = tf.random_normal(tf.shape(pi_targ), stddev=target_noise)
            epsilon = tf.clip_by_value(epsilon, -noise_clip, noise_clip)
            a2 = pi_targ + epsilon
            a2 = tf.clip_by_value(a2, -act_limit, act_limit)
            _, q1_targ, q2_targ, _ = actor_critic(x2_ph, a2, **ac_kwargs)
        replay_buffer = ReplayBuffer(obs_dim=obs_dim, act_dim=act_dim, size=replay_size)
        var_counts = tuple(count_vars(scope) for scope in ['main/pi', 'main/q1', 'main/q2', 'main'])
        print('\nNumber of parameters: \t pi: %d, \t q1: %d, \t q2: %d, \t total: %d\n'%var_counts)
        min_q_targ = tf.minimum(q1_targ, q2_targ)
        backup = tf.stop_gradient(r_ph + gamma*(1-d_ph)*min_q_targ)
        pi_loss = -tf.reduce_mean(q1_pi)
        q1_loss = tf.reduce_mean((q1-backup)**2)
        q2_loss = tf.reduce_mean((q2-backup)**2)
        q_loss = q1_loss + q2_loss
        pi_optimizer = tf.train.AdamOptimizer(learning_rate=pi_lr)
        q_optimizer = tf.train.AdamOptimizer(learning_rate=q_lr)
        train_pi_op = pi_optimizer.minimize(pi_loss, var_list=get_vars('main/pi'))
        train_q_op = q_optimizer.minimize(q_loss, var_list=get_vars('main/q'))
        target_update = tf.group([tf.assign(v_targ, polyak*v_targ + (1-polyak)*v_main)
                                  for v_main, v_targ in zip(get_vars('main'), get_vars('target'))])
        target_init = tf.group([tf.assign(v_targ, v_main)
                                  for v_main, v_targ in zip(get_vars('main'), get_vars('target'))])
        print(pi, q1_pi, epsilon, a2, q1_targ, backup, train_pi_op.name, train_q_op.name, target_update.name, target_init.name)
        print([v.name for v in get_vars('target')])
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(target_init)
        def get_action(o, noise_scale):
            a = sess.run(pi, feed_dict={x_ph: o.reshape(1,-1)})[0]
            a += noise_scale * np.random.randn(act_dim)
            return np.clip(a, -act_limit, act_limit)
        def test_agent():
            for j in range(num_test_episodes):
                o, d, ep_ret, ep_len = test_env.reset(), False, 0, 0
                while not(d or (ep_len == max_ep_len)):
                    o, r, d, _ = test_env.step(get_action(o, 0))
                    ep_ret += r
                    ep_len += 1
                logger.store(TestEpRet=ep_ret, TestEpLen=ep_len)
        o, ep_ret, ep_len = env.reset(), 0, 0
        total_steps = steps_per_epoch * epochs
        for t in range(total_steps):
            if t > start_steps:
                a = get_action(o, act_noise)
            else:
                a = env.action_space.sample()
            o2, r, d, _ = env.step(a)
            ep_ret += r
            ep_len += 1
            d = False if ep_len==max_ep_len else d
            replay_buffer.store(o, a, r, o2, d)
            o = o2
            if d or (ep_len == max_ep_len):
                logger.store(EpRet=ep_ret, EpLen=ep_len)
                o, ep_ret, ep_len = env.reset(), 0, 0
            if t >= update_after and t % update_every == 0:
                for j in range(update_every):
                    batch = replay_buffer.sample_batch(batch_size)
                    feed_dict = {x_ph: batch['obs1'], x2_ph: batch['obs2'], a_ph: batch['acts'],
                                 r_ph: batch['rews'], d_ph: batch['done']}
                    q_step_ops = [q_loss, q1, q2, train_q_op]
                    outs = sess.run(q_step_ops, feed_dict)
                    logger.store(LossQ=outs[0], Q1Vals=outs[1], Q2Vals=outs[2])
                    if j % policy_delay == 0:
                        outs = sess.run([pi_loss, train_pi_op, target_update], feed_dict)
                        logger.store(LossPi=outs[0])
            if (t+1) % steps_per_epoch == 0:
                epoch = (t+1) // steps_per_epoch
                test_agent()
                logger.log_tabular('Epoch', epoch)
                logger.log_tabular('EpRet', with_min_and_max=True)
                logger.log_tabular('TestEpRet', with_min_and_max=True)
                logger.log_tabular('EpLen', average_only=True)
                logger.log_tabular('TestEpLen', average_only=True)
                logger.log_tabular('TotalEnvInteracts', t)
                logger.log_tabular('Q1Vals', with_min_and_max=True)
                logger.log_tabular('Q2Vals', with_min_and_max=True)
                logger.log_tabular('LossPi', average_only=True)
                logger.log_tabular('LossQ', average_only=True)
                logger.dump_tabular()
        sess.close()
    td3(lambda: FakeEnv(), ac_kwargs=dict(hidden_sizes=[8, 8]), seed=2, steps_per_epoch=12, epochs=2,
        replay_size=50, batch_size=6, start_steps=8, update_after=6, update_every=3, num_test_episodes=1, max_ep_len=5)
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["spinup_td3"], 1e-4)


@pytest.mark.usefixtures("fresh_graph")
def test_mz_ddpg_ema(capsys):
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/9_Deep_Deterministic_Policy_Gradient_DDPG/DDPG_update2.py
    # q_ (target critic) reads the EMA shadows outside the control dependency on ema.apply, so TF 1.15
    # reads them before or after the step's update by a race (its td values move in the 4th digit from
    # run to run); tideflow reads them before the update (docs/design.md), hence the tolerance
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/9_Deep_Deterministic_Policy_Gradient_DDPG/DDPG_update2.py
    import tempfile
    MAX_EPISODES = 3
    MAX_EP_STEPS = 12
    LR_A = 0.001    # learning rate for actor
    LR_C = 0.002    # learning rate for critic
    GAMMA = 0.9     # reward discount
    TAU = 0.01      # soft replacement
    MEMORY_CAPACITY = 16
    BATCH_SIZE = 8
    tf.set_random_seed(1); np.random.seed(1)
    class DDPG(object):
        def __init__(self, a_dim, s_dim, a_bound,):
            self.memory = np.zeros((MEMORY_CAPACITY, s_dim * 2 + a_dim + 1), dtype=np.float32)
            self.pointer = 0
            self.sess = tf.Session()
            self.a_dim, self.s_dim, self.a_bound = a_dim, s_dim, a_bound,
            self.S = tf.placeholder(tf.float32, [None, s_dim], 's')
            self.S_ = tf.placeholder(tf.float32, [None, s_dim], 's_')
            self.R = tf.placeholder(tf.float32, [None, 1], 'r')
            ema = tf.train.ExponentialMovingAverage(decay=1 - TAU)
            def ema_getter(getter, name, *args, **kwargs):
                return ema.average(getter(name, *args, **kwargs))
            self.a = self._build_a(self.S,)
            a_params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope='Actor')
            q = self._build_c(self.S, self.a,)
            c_params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope='Critic')
            target_update = [ema.apply(a_params), ema.apply(c_params)]
            a_ = self._build_a(self.S_, reuse=True, custom_getter=ema_getter)
            q_ = self._build_c(self.S_, a_, reuse=True, custom_getter=ema_getter)
            with tf.control_dependencies(target_update):
                q_target = self.R + GAMMA * q_
                td_error = tf.losses.mean_squared_error(labels=q_target, predictions=q)
                a_loss = - tf.reduce_mean(q)  # maximize the q
                self.atrain = tf.train.AdamOptimizer(LR_A).minimize(a_loss, var_list=a_params)
                self.ctrain = tf.train.AdamOptimizer(LR_C).minimize(td_error, var_list=c_params)
            print(self.a, q, a_, q_, td_error, target_update)
            print([v.name for v in tf.global_variables()])
            print([v.name for v in tf.trainable_variables()], [v.name for v in tf.moving_average_variables()])
            print(tf.get_collection(tf.GraphKeys.LOSSES), ema.average_name(a_params[0]))
            self.sess.run(tf.global_variables_initializer())
            self.td_error, self.q_ = td_error, q_
        def choose_action(self, s):
            return self.sess.run(self.a, {self.S: s[np.newaxis, :]})[0]
        def learn(self):
            indices = np.random.choice(MEMORY_CAPACITY, size=BATCH_SIZE)
            bt = self.memory[indices, :]
            bs = bt[:, :self.s_dim]
            ba = bt[:, self.s_dim: self.s_dim + self.a_dim]
            br = bt[:, -self.s_dim - 1: -self.s_dim]
            bs_ = bt[:, -self.s_dim:]
            self.sess.run(self.atrain, {self.S: bs})
            self.sess.run(self.ctrain, {self.S: bs, self.a: ba, self.R: br, self.S_: bs_})
            return self.sess.run(self.td_error, {self.S: bs, self.a: ba, self.R: br, self.S_: bs_})
        def store_transition(self, s, a, r, s_):
            transition = np.hstack((s, a, [r], s_))
            index = self.pointer % MEMORY_CAPACITY
            self.memory[index, :] = transition
            self.pointer += 1
        def _build_a(self, s, reuse=None, custom_getter=None):
            trainable = True if reuse is None else False
            with tf.variable_scope('Actor', reuse=reuse, custom_getter=custom_getter):
                net = tf.layers.dense(s, 30, activation=tf.nn.relu, name='l1', trainable=trainable)
                a = tf.layers.dense(net, self.a_dim, activation=tf.nn.tanh, name='a', trainable=trainable)
                return tf.multiply(a, self.a_bound, name='scaled_a')
        def _build_c(self, s, a, reuse=None, custom_getter=None):
            trainable = True if reuse is None else False
            with tf.variable_scope('Critic', reuse=reuse, custom_getter=custom_getter):
                n_l1 = 30
                w1_s = tf.get_variable('w1_s', [self.s_dim, n_l1], trainable=trainable)
                w1_a = tf.get_variable('w1_a', [self.a_dim, n_l1], trainable=trainable)
                b1 = tf.get_variable('b1', [1, n_l1], trainable=trainable)
                net = tf.nn.relu(tf.matmul(s, w1_s) + tf.matmul(a, w1_a) + b1)
                return tf.layers.dense(net, 1, trainable=trainable)  # Q(s,a)
    env = FakeEnv(obs_dim=3, act_dim=1)
    s_dim = env.observation_space.shape[0]
    a_dim = env.action_space.shape[0]
    a_bound = env.action_space.high
    ddpg = DDPG(a_dim, s_dim, a_bound)
    var = 3  # control exploration
    for i in range(MAX_EPISODES):
        s = env.reset()
        ep_reward = 0
        for j in range(MAX_EP_STEPS):
            a = ddpg.choose_action(s)
            a = np.clip(np.random.normal(a, var), -2, 2)
            s_, r, done, info = env.step(a)
            ddpg.store_transition(s, a, r / 10, s_)
            if ddpg.pointer > MEMORY_CAPACITY:
                var *= .9995
                td = ddpg.learn()
                print('td %.5f' % td, ddpg.choose_action(s).round(5))
            s = s_
            ep_reward += r
            if j == MAX_EP_STEPS-1:
                print('Episode:', i, ' Reward: %.5f' % ep_reward, 'Explore: %.2f' % var, )
                break
    ddpg.sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["mz_ddpg_ema"], 5e-2)


@pytest.mark.usefixtures("fresh_graph")
def test_mz_simply_ppo(capsys):
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/12_Proximal_Policy_Optimization/simply_PPO.py
    # (both METHODs: kl_pen and clip)
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/12_Proximal_Policy_Optimization/simply_PPO.py
    import tempfile
    Normal, kl_divergence = tf.contrib.distributions.Normal, tf.contrib.distributions.kl_divergence
    EP_MAX = 2
    EP_LEN = 8
    GAMMA = 0.9
    A_LR = 0.0001
    C_LR = 0.0002
    BATCH = 6
    A_UPDATE_STEPS = 3
    C_UPDATE_STEPS = 3
    class PPO(object):
        def __init__(self, s_dim, a_dim,):
            self.a_dim = a_dim
            self.s_dim = s_dim
            self.sess = tf.Session()
            self.tfs = tf.placeholder(tf.float32, [None, s_dim], 'state')
            with tf.variable_scope('critic'):
                l1 = tf.layers.dense(self.tfs, 100, tf.nn.relu)
                self.v = tf.layers.dense(l1, 1)
                self.tfdc_r = tf.placeholder(tf.float32, [None, 1], 'discounted_r')
                self.advantage = self.tfdc_r - self.v
                self.closs = tf.reduce_mean(tf.square(self.advantage))
                self.ctrain_op = tf.train.AdamOptimizer(C_LR).minimize(self.closs)
            pi, pi_params = self._build_anet('pi', trainable=True)
            oldpi, oldpi_params = self._build_anet('oldpi', trainable=False)
            self.sample_op = tf.squeeze(pi.sample(1), axis=0)       # choosing action
            with tf.variable_scope('update_oldpi'):
                self.update_oldpi_op = [oldp.assign(p) for p, oldp in zip(pi_params, oldpi_params)]
            self.tfa = tf.placeholder(tf.float32, [None, a_dim], 'action')
            self.tfadv = tf.placeholder(tf.float32, [None, 1], 'advantage')
            with tf.variable_scope('surrogate'):
                ratio = pi.prob(self.tfa) / oldpi.prob(self.tfa)
                surr = ratio * self.tfadv
            if METHOD['name'] == 'kl_pen':
                self.tflam = tf.placeholder(tf.float32, None, 'lambda')
                with tf.variable_scope('loss'):
                    kl = tf.stop_gradient(kl_divergence(oldpi, pi))
                    self.kl_mean = tf.reduce_mean(kl)
                    self.aloss = -(tf.reduce_mean(surr - self.tflam * kl))
            else:   # clipping method
                with tf.variable_scope('loss'):
                    self.aloss = -tf.reduce_mean(tf.minimum(
                        surr,
                        tf.clip_by_value(ratio, 1.-METHOD['epsilon'], 1.+METHOD['epsilon'])*self.tfadv))
            with tf.variable_scope('atrain'):
                self.atrain_op = tf.train.AdamOptimizer(A_LR).minimize(self.aloss)
            tf.summary.FileWriter(tempfile.mkdtemp(), self.sess.graph)
            print(pi, pi.loc, pi.scale, self.sample_op, ratio, self.aloss, self.update_oldpi_op[0])
            print(pi.batch_shape, pi.event_shape, pi.name, pi.reparameterization_type, pi.dtype)
            if METHOD['name'] == 'kl_pen':
                print(kl)
            self.sess.run(tf.global_variables_initializer())
        def update_oldpi(self):
            self.sess.run(self.update_oldpi_op)
        def update(self, s, a, r, m=20, b=10):
            adv = self.sess.run(self.advantage, {self.tfs: s, self.tfdc_r: r})
            if METHOD['name'] == 'kl_pen':
                for _ in range(m):
                    _, kl = self.sess.run(
                        [self.atrain_op, self.kl_mean],
                        {self.tfs: s, self.tfa: a, self.tfadv: adv, self.tflam: METHOD['lam']})
                    if kl > 4*METHOD['kl_target']:
                        break
                if kl < METHOD['kl_target'] / 1.5:  # adaptive lambda
                    METHOD['lam'] /= 2
                elif kl > METHOD['kl_target'] * 1.5:
                    METHOD['lam'] *= 2
                METHOD['lam'] = np.clip(METHOD['lam'], 1e-4, 10)    # some time explode
            else:   # clipping method
                [self.sess.run(self.atrain_op, {self.tfs: s, self.tfa: a, self.tfadv: adv}) for _ in range(m)]
            [self.sess.run(self.ctrain_op, {self.tfs: s, self.tfdc_r: r}) for _ in range(b)]
        def _build_anet(self, name, trainable):
            with tf.variable_scope(name):
                l1 = tf.layers.dense(self.tfs, 100, tf.nn.relu, trainable=trainable)
                mu = 2 * tf.layers.dense(l1, self.a_dim, tf.nn.tanh, trainable=trainable)
                sigma = tf.layers.dense(l1, self.a_dim, tf.nn.softplus, trainable=trainable)
                norm_dist = Normal(loc=mu, scale=sigma)
            params = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=name)
            return norm_dist, params
        def choose_action(self, s):
            s = s[np.newaxis, :]
            a = self.sess.run(self.sample_op, {self.tfs: s})[0]
            return np.clip(a, -2, 2)
        def get_v(self, s):
            if s.ndim < 2: s = s[np.newaxis, :]
            return self.sess.run(self.v, {self.tfs: s})[0, 0]
    for METHOD in [dict(name='kl_pen', kl_target=0.01, lam=0.5), dict(name='clip', epsilon=0.2)]:
      with tf.Graph().as_default():
        tf.set_random_seed(3); np.random.seed(3)
        env = FakeEnv(obs_dim=3, act_dim=1)
        ppo = PPO(s_dim=3, a_dim=1)
        all_ep_r = []
        for ep in range(EP_MAX):
            s = env.reset()
            buffer_s, buffer_a, buffer_r = [], [], []
            ep_r = 0
            for t in range(1, EP_LEN):    # one episode
                a = ppo.choose_action(s)
                s_, r, done, _ = env.step(a)
                buffer_s.append(s)
                buffer_a.append(a)
                buffer_r.append((r+8)/8)    # normalize reward, find to be useful
                s = s_
                ep_r += r
                if t % (BATCH-1) == 0 or t == EP_LEN-1:
                    ppo.update_oldpi()
                    v_s_ = ppo.get_v(s_)
                    discounted_r = []
                    for r in buffer_r[::-1]:
                        v_s_ = r + GAMMA * v_s_
                        discounted_r.append(v_s_)
                    discounted_r.reverse()
                    bs, ba, br = np.vstack(buffer_s), np.vstack(buffer_a), np.array(discounted_r)[:, np.newaxis]
                    buffer_s, buffer_a, buffer_r = [], [], []
                    ppo.update(bs, ba, br, m=A_UPDATE_STEPS, b=C_UPDATE_STEPS)
            if ep == 0: all_ep_r.append(ep_r)
            else: all_ep_r.append(all_ep_r[-1]*0.9 + ep_r*0.1)
            print(
                'Ep: %i' % ep,
                "|Ep_r: %.4f" % ep_r,
                ("|Lam: %.4f" % METHOD['lam']) if METHOD['name'] == 'kl_pen' else '',
            )
        ppo.sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["mz_simply_ppo"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'spinup_sac': [
        '',
        'Number of parameters: \t pi: 140, \t q1: 129, \t q2: 129, \t total: 398',
        '',
        'Tensor("main/mul:0", shape=(?, 2), dtype=float32) Tensor("main/mul_1:0", shape=(?, 2), dtype=float32) Tensor("main/pi/sub_3:0", shape=(?,), dtype=float32) Tensor("main_1/q1/Squeeze:0", shape=(?,), dtype=float32) Tensor("StopGradient:0", shape=(?,), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32) Adam Adam_1 group_deps',
        "['target/pi/dense/kernel:0', 'target/pi/dense/bias:0', 'target/pi/dense_1/kernel:0', 'target/pi/dense_1/bias:0', 'target/pi/dense_2/kernel:0', 'target/pi/dense_2/bias:0', 'target/pi/dense_3/kernel:0', 'target/pi/dense_3/bias:0', 'target/q1/dense/kernel:0', 'target/q1/dense/bias:0', 'target/q1/dense_1/kernel:0', 'target/q1/dense_1/bias:0', 'target/q1/dense_2/kernel:0', 'target/q1/dense_2/bias:0', 'target/q2/dense/kernel:0', 'target/q2/dense/bias:0', 'target/q2/dense_1/kernel:0', 'target/q2/dense_1/bias:0', 'target/q2/dense_2/kernel:0', 'target/q2/dense_2/bias:0']",
        '|          Epoch | 1',
        '|   AverageEpRet | -5.75941',
        '|       StdEpRet | 0.0002',
        '|       MaxEpRet | -5.75921',
        '|       MinEpRet | -5.75962',
        '|AverageTestEpRet | -8.73192',
        '|   StdTestEpRet | 0',
        '|   MaxTestEpRet | -8.73192',
        '|   MinTestEpRet | -8.73192',
        '|   AverageEpLen | 5',
        '|AverageTestEpLen | 5',
        '|TotalEnvInteracts | 11',
        '|  AverageQ1Vals | -0.19935',
        '|      StdQ1Vals | 0.12527',
        '|      MaxQ1Vals | -0.02557',
        '|      MinQ1Vals | -0.48573',
        '|  AverageQ2Vals | 0.06045',
        '|      StdQ2Vals | 0.10219',
        '|      MaxQ2Vals | 0.27509',
        '|      MinQ2Vals | -0.10059',
        '|   AverageLogPi | -0.89294',
        '|       StdLogPi | 0.49264',
        '|       MaxLogPi | 0.09402',
        '|       MinLogPi | -1.83032',
        '|  AverageLossPi | 0.08956',
        '|  AverageLossQ1 | 0.63582',
        '|  AverageLossQ2 | 0.92479',
        '|          Epoch | 2',
        '|   AverageEpRet | -9.67666',
        '|       StdEpRet | 1.84715',
        '|       MaxEpRet | -7.8295',
        '|       MinEpRet | -11.5238',
        '|AverageTestEpRet | -8.45999',
        '|   StdTestEpRet | 0',
        '|   MaxTestEpRet | -8.45999',
        '|   MinTestEpRet | -8.45999',
        '|   AverageEpLen | 5',
        '|AverageTestEpLen | 5',
        '|TotalEnvInteracts | 23',
        '|  AverageQ1Vals | -0.33415',
        '|      StdQ1Vals | 0.17289',
        '|      MaxQ1Vals | -0.05903',
        '|      MinQ1Vals | -0.66373',
        '|  AverageQ2Vals | 0.00675',
        '|      StdQ2Vals | 0.08317',
        '|      MaxQ2Vals | 0.22914',
        '|      MinQ2Vals | -0.16353',
        '|   AverageLogPi | -1.18233',
        '|       StdLogPi | 0.7008',
        '|       MaxLogPi | 0.06362',
        '|       MinLogPi | -5.00077',
        '|  AverageLossPi | 0.1548',
        '|  AverageLossQ1 | 0.65139',
        '|  AverageLossQ2 | 1.09702',
    ],
    'spinup_td3': [
        '',
        'Number of parameters: \t pi: 122, \t q1: 129, \t q2: 129, \t total: 380',
        '',
        'Tensor("main/pi/mul:0", shape=(?, 2), dtype=float32) Tensor("main/q1_1/Squeeze:0", shape=(?,), dtype=float32) Tensor("target_1/clip_by_value:0", shape=(?, 2), dtype=float32) Tensor("target_1/clip_by_value_1:0", shape=(?, 2), dtype=float32) Tensor("target_1/q1/Squeeze:0", shape=(?,), dtype=float32) Tensor("StopGradient:0", shape=(?,), dtype=float32) Adam Adam_1 group_deps group_deps_1',
        "['target/pi/dense/kernel:0', 'target/pi/dense/bias:0', 'target/pi/dense_1/kernel:0', 'target/pi/dense_1/bias:0', 'target/pi/dense_2/kernel:0', 'target/pi/dense_2/bias:0', 'target/q1/dense/kernel:0', 'target/q1/dense/bias:0', 'target/q1/dense_1/kernel:0', 'target/q1/dense_1/bias:0', 'target/q1/dense_2/kernel:0', 'target/q1/dense_2/bias:0', 'target/q2/dense/kernel:0', 'target/q2/dense/bias:0', 'target/q2/dense_1/kernel:0', 'target/q2/dense_1/bias:0', 'target/q2/dense_2/kernel:0', 'target/q2/dense_2/bias:0']",
        '|          Epoch | 1',
        '|   AverageEpRet | -5.75763',
        '|       StdEpRet | 0.00158',
        '|       MaxEpRet | -5.75605',
        '|       MinEpRet | -5.75921',
        '|AverageTestEpRet | -7.73587',
        '|   StdTestEpRet | 0',
        '|   MaxTestEpRet | -7.73587',
        '|   MinTestEpRet | -7.73587',
        '|   AverageEpLen | 5',
        '|AverageTestEpLen | 5',
        '|TotalEnvInteracts | 11',
        '|  AverageQ1Vals | -0.42248',
        '|      StdQ1Vals | 0.18584',
        '|      MaxQ1Vals | -0.15452',
        '|      MinQ1Vals | -0.66689',
        '|  AverageQ2Vals | -0.337',
        '|      StdQ2Vals | 0.17042',
        '|      MaxQ2Vals | -0.11097',
        '|      MinQ2Vals | -0.68726',
        '|  AverageLossPi | 0.4938',
        '|   AverageLossQ | 3.12538',
        '|          Epoch | 2',
        '|   AverageEpRet | -7.86354',
        '|       StdEpRet | 0.18133',
        '|       MaxEpRet | -7.68221',
        '|       MinEpRet | -8.04487',
        '|AverageTestEpRet | -7.86818',
        '|   StdTestEpRet | 0',
        '|   MaxTestEpRet | -7.86818',
        '|   MinTestEpRet | -7.86818',
        '|   AverageEpLen | 5',
        '|AverageTestEpLen | 5',
        '|TotalEnvInteracts | 23',
        '|  AverageQ1Vals | -0.61895',
        '|      StdQ1Vals | 0.17484',
        '|      MaxQ1Vals | -0.18781',
        '|      MinQ1Vals | -0.83748',
        '|  AverageQ2Vals | -0.54907',
        '|      StdQ2Vals | 0.20162',
        '|      MaxQ2Vals | -0.13119',
        '|      MinQ2Vals | -0.87868',
        '|  AverageLossPi | 0.61832',
        '|   AverageLossQ | 3.54057',
    ],
    'mz_ddpg_ema': [
        'Tensor("Actor/scaled_a:0", shape=(?, 1), dtype=float32) Tensor("Critic/dense/BiasAdd:0", shape=(?, 1), dtype=float32) Tensor("Actor_1/scaled_a:0", shape=(?, 1), dtype=float32) Tensor("Critic_1/dense/BiasAdd:0", shape=(?, 1), dtype=float32) Tensor("mean_squared_error/value:0", shape=(), dtype=float32) [<tf.Operation \'ExponentialMovingAverage\' type=NoOp>, <tf.Operation \'ExponentialMovingAverage_1\' type=NoOp>]',
        "['Actor/l1/kernel:0', 'Actor/l1/bias:0', 'Actor/a/kernel:0', 'Actor/a/bias:0', 'Critic/w1_s:0', 'Critic/w1_a:0', 'Critic/b1:0', 'Critic/dense/kernel:0', 'Critic/dense/bias:0', 'Actor/l1/kernel/ExponentialMovingAverage:0', 'Actor/l1/bias/ExponentialMovingAverage:0', 'Actor/a/kernel/ExponentialMovingAverage:0', 'Actor/a/bias/ExponentialMovingAverage:0', 'Critic/w1_s/ExponentialMovingAverage:0', 'Critic/w1_a/ExponentialMovingAverage:0', 'Critic/b1/ExponentialMovingAverage:0', 'Critic/dense/kernel/ExponentialMovingAverage:0', 'Critic/dense/bias/ExponentialMovingAverage:0', 'beta1_power:0', 'beta2_power:0', 'Actor/l1/kernel/Adam:0', 'Actor/l1/kernel/Adam_1:0', 'Actor/l1/bias/Adam:0', 'Actor/l1/bias/Adam_1:0', 'Actor/a/kernel/Adam:0', 'Actor/a/kernel/Adam_1:0', 'Actor/a/bias/Adam:0', 'Actor/a/bias/Adam_1:0', 'beta1_power_1:0', 'beta2_power_1:0', 'Critic/w1_s/Adam:0', 'Critic/w1_s/Adam_1:0', 'Critic/w1_a/Adam:0', 'Critic/w1_a/Adam_1:0', 'Critic/b1/Adam:0', 'Critic/b1/Adam_1:0', 'Critic/dense/kernel/Adam:0', 'Critic/dense/kernel/Adam_1:0', 'Critic/dense/bias/Adam:0', 'Critic/dense/bias/Adam_1:0']",
        "['Actor/l1/kernel:0', 'Actor/l1/bias:0', 'Actor/a/kernel:0', 'Actor/a/bias:0', 'Critic/w1_s:0', 'Critic/w1_a:0', 'Critic/b1:0', 'Critic/dense/kernel:0', 'Critic/dense/bias:0'] ['Actor/l1/kernel:0', 'Actor/l1/bias:0', 'Actor/a/kernel:0', 'Actor/a/bias:0', 'Critic/w1_s:0', 'Critic/w1_a:0', 'Critic/b1:0', 'Critic/dense/kernel:0', 'Critic/dense/bias:0']",
        "[<tf.Tensor 'mean_squared_error/value:0' shape=() dtype=float32>] Actor/l1/kernel/ExponentialMovingAverage",
        'Episode: 0  Reward: -12.11304 Explore: 3.00',
        'td 0.13061 [-0.15698]',
        'td 0.18435 [-0.1762]',
        'td 0.21973 [-0.28038]',
        'td 0.14177 [-0.12021]',
        'td 0.00369 [-0.2297]',
        'td 0.12638 [-0.34055]',
        'td 0.07289 [-0.43186]',
        'td 0.14969 [-0.50226]',
        'Episode: 1  Reward: -22.10074 Explore: 2.99',
        'td 0.25091 [-0.39324]',
        'td 0.29058 [-0.38722]',
        'td 0.01742 [-0.27427]',
        'td 0.17346 [-0.13539]',
        'td 0.18481 [-0.23845]',
        'td 0.00294 [-0.36012]',
        'td 0.04846 [-0.17936]',
        'td 0.04278 [-0.0515]',
        'td 0.01613 [-0.23642]',
        'td 0.03489 [-0.25025]',
        'td 0.02395 [-0.33033]',
        'td 0.00948 [-0.31526]',
        'Episode: 2  Reward: -15.56950 Explore: 2.97',
    ],
    'mz_simply_ppo': [
        'tfp.distributions.Normal("pi/Normal/", batch_shape=(?, 1), event_shape=(), dtype=float32) Tensor("pi/Normal/loc:0", shape=(?, 1), dtype=float32) Tensor("pi/Normal/scale:0", shape=(?, 1), dtype=float32) Tensor("Squeeze:0", shape=(?, 1), dtype=float32) Tensor("surrogate/truediv:0", shape=(?, 1), dtype=float32) Tensor("loss/Neg:0", shape=(), dtype=float32) Tensor("update_oldpi/Assign:0", shape=(3, 100), dtype=float32_ref)',
        "(?, 1) () pi/Normal/ <Reparameteriation Type: FULLY_REPARAMETERIZED> <dtype: 'float32'>",
        'Tensor("loss/StopGradient:0", shape=(?, 1), dtype=float32)',
        'Ep: 0 |Ep_r: -17.8438 |Lam: 0.1250',
        'Ep: 1 |Ep_r: -18.2641 |Lam: 0.0312',
        'tfp.distributions.Normal("pi/Normal/", batch_shape=(?, 1), event_shape=(), dtype=float32) Tensor("pi/Normal/loc:0", shape=(?, 1), dtype=float32) Tensor("pi/Normal/scale:0", shape=(?, 1), dtype=float32) Tensor("Squeeze:0", shape=(?, 1), dtype=float32) Tensor("surrogate/truediv:0", shape=(?, 1), dtype=float32) Tensor("loss/Neg:0", shape=(), dtype=float32) Tensor("update_oldpi/Assign:0", shape=(3, 100), dtype=float32_ref)',
        "(?, 1) () pi/Normal/ <Reparameteriation Type: FULLY_REPARAMETERIZED> <dtype: 'float32'>",
        'Ep: 0 |Ep_r: -17.8438 ',
        'Ep: 1 |Ep_r: -18.2641 ',
    ],
}
