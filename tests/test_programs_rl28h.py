"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
Dopamine's implicit quantile agent (slim networks in make_template, quantile Huber loss, gather_nd
targets, summaries under a variable scope), jaromiru's Keras A3C and MorvanZhou's continuous A3C."""
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


@pytest.fixture
def new_default_graph():
    # (for a program that finalizes the default graph and sets Keras's manual variable
    # initialization: the next test gets a new graph and Keras's default)
    try:
        yield
    finally:
        tf.keras.backend.manual_variable_initialization(False)
        tf.keras.backend.clear_session()



@pytest.mark.usefixtures("fresh_graph")
def test_dopamine_iqn(capsys):
    # google/dopamine (2.0) dopamine/agents/implicit_quantile/implicit_quantile_agent.py, discrete_domains/atari_lib.py
    # implicit_quantile_network, dqn_agent.py _build_sync_op; replay tensors as placeholders, frames 36x36
    # google/dopamine (2.0, slim) dopamine/agents/implicit_quantile/implicit_quantile_agent.py (_build_networks,
    # _build_target_quantile_values_op, _build_train_op), dopamine/discrete_domains/atari_lib.py
    # implicit_quantile_network and dqn_agent's _build_sync_op; the replay buffer's tensors as placeholders,
    # frames 36x36, layers narrower
    import collections, math
    slim = tf.contrib.slim
    IQNNetworkType = collections.namedtuple('iqn_network', ['quantile_values', 'quantiles'])
    def implicit_quantile_network(num_actions, quantile_embedding_dim, network_type, state, num_quantiles):
      weights_initializer = slim.variance_scaling_initializer(
          factor=1.0 / np.sqrt(3.0), mode='FAN_IN', uniform=True)
      state_net = tf.cast(state, tf.float32)
      state_net = tf.div(state_net, 255.)
      state_net = slim.conv2d(
          state_net, 8, [8, 8], stride=4,
          weights_initializer=weights_initializer)
      state_net = slim.conv2d(
          state_net, 8, [4, 4], stride=2,
          weights_initializer=weights_initializer)
      state_net = slim.conv2d(
          state_net, 8, [3, 3], stride=1,
          weights_initializer=weights_initializer)
      state_net = slim.flatten(state_net)
      state_net_size = state_net.get_shape().as_list()[-1]
      state_net_tiled = tf.tile(state_net, [num_quantiles, 1])
      batch_size = state_net.get_shape().as_list()[0]
      quantiles_shape = [num_quantiles * batch_size, 1]
      quantiles = tf.random_uniform(
          quantiles_shape, minval=0, maxval=1, dtype=tf.float32)
      quantile_net = tf.tile(quantiles, [1, quantile_embedding_dim])
      pi = tf.constant(math.pi)
      quantile_net = tf.cast(tf.range(
          1, quantile_embedding_dim + 1, 1), tf.float32) * pi * quantile_net
      quantile_net = tf.cos(quantile_net)
      quantile_net = slim.fully_connected(quantile_net, state_net_size,
                                          weights_initializer=weights_initializer)
      net = tf.multiply(state_net_tiled, quantile_net)
      net = slim.fully_connected(
          net, 32, weights_initializer=weights_initializer)
      quantile_values = slim.fully_connected(
          net,
          num_actions,
          activation_fn=None,
          weights_initializer=weights_initializer)
      return network_type(quantile_values=quantile_values, quantiles=quantiles)
    class Replay:
      def __init__(self, batch_size):
        self.batch_size = batch_size
        self.states = tf.placeholder(tf.uint8, [batch_size, 36, 36, 4], 'states')
        self.next_states = tf.placeholder(tf.uint8, [batch_size, 36, 36, 4], 'next_states')
        self.actions = tf.placeholder(tf.int32, [batch_size], 'actions')
        self.rewards = tf.placeholder(tf.float32, [batch_size], 'rewards')
        self.terminals = tf.placeholder(tf.uint8, [batch_size], 'terminals')
    class ImplicitQuantileAgent:
      def __init__(self, num_actions, kappa=1.0, num_tau_samples=4, num_tau_prime_samples=4,
                   num_quantile_samples=4, quantile_embedding_dim=16, double_dqn=False, gamma=0.99,
                   update_horizon=1, summary_writer=None):
        self.num_actions = num_actions
        self.kappa = kappa
        self.num_tau_samples = num_tau_samples
        self.num_tau_prime_samples = num_tau_prime_samples
        self.num_quantile_samples = num_quantile_samples
        self.quantile_embedding_dim = quantile_embedding_dim
        self.double_dqn = double_dqn
        self.cumulative_gamma = math.pow(gamma, update_horizon)
        self.summary_writer = summary_writer
        self.optimizer = tf.train.AdamOptimizer(learning_rate=0.00005, epsilon=0.0003125)
        self.state_ph = tf.placeholder(tf.uint8, (1, 36, 36, 4), name='state_ph')
        self._replay = Replay(3)
        self._build_networks()
        self._train_op, self._loss = self._build_train_op()
        self._sync_qt_ops = self._build_sync_op()
      def _get_network_type(self):
        return IQNNetworkType
      def _network_template(self, state, num_quantiles):
        return implicit_quantile_network(self.num_actions, self.quantile_embedding_dim,
                                         self._get_network_type(), state, num_quantiles)
      def _create_network(self, name):
        return tf.make_template(name, self._network_template)
      def _build_networks(self):
        self.online_convnet = self._create_network(name='Online')
        self.target_convnet = self._create_network(name='Target')
        self._net_outputs = self.online_convnet(self.state_ph,
                                                self.num_quantile_samples)
        self._q_values = tf.reduce_mean(input_tensor=self._net_outputs.quantile_values, axis=0)
        self._q_argmax = tf.argmax(input=self._q_values, axis=0)
        self._replay_net_outputs = self.online_convnet(self._replay.states,
                                                       self.num_tau_samples)
        self._replay_net_quantile_values = self._replay_net_outputs.quantile_values
        self._replay_net_quantiles = self._replay_net_outputs.quantiles
        self._replay_net_target_outputs = self.target_convnet(
            self._replay.next_states, self.num_tau_prime_samples)
        vals = self._replay_net_target_outputs.quantile_values
        self._replay_net_target_quantile_values = vals
        if self.double_dqn:
          outputs_action = self.online_convnet(self._replay.next_states,
                                               self.num_quantile_samples)
        else:
          outputs_action = self.target_convnet(self._replay.next_states,
                                               self.num_quantile_samples)
        target_quantile_values_action = outputs_action.quantile_values
        target_quantile_values_action = tf.reshape(target_quantile_values_action,
                                                   [self.num_quantile_samples,
                                                    self._replay.batch_size,
                                                    self.num_actions])
        self._replay_net_target_q_values = tf.squeeze(tf.reduce_mean(
            input_tensor=target_quantile_values_action, axis=0))
        self._replay_next_qt_argmax = tf.argmax(
            input=self._replay_net_target_q_values, axis=1)
      def _build_target_quantile_values_op(self):
        batch_size = tf.shape(input=self._replay.rewards)[0]
        rewards = self._replay.rewards[:, None]
        rewards = tf.tile(rewards, [self.num_tau_prime_samples, 1])
        is_terminal_multiplier = 1. - tf.cast(self._replay.terminals, dtype=tf.float32)
        gamma_with_terminal = self.cumulative_gamma * is_terminal_multiplier
        gamma_with_terminal = tf.tile(gamma_with_terminal[:, None],
                                      [self.num_tau_prime_samples, 1])
        replay_next_qt_argmax = tf.tile(
            self._replay_next_qt_argmax[:, None], [self.num_tau_prime_samples, 1])
        batch_indices = tf.cast(tf.range(
            self.num_tau_prime_samples * batch_size)[:, None], tf.int64)
        batch_indexed_target_values = tf.concat(
            [batch_indices, replay_next_qt_argmax], axis=1)
        target_quantile_values = tf.gather_nd(
            self._replay_net_target_quantile_values,
            batch_indexed_target_values)[:, None]
        return rewards + gamma_with_terminal * target_quantile_values
      def _build_train_op(self):
        batch_size = tf.shape(input=self._replay.rewards)[0]
        target_quantile_values = tf.stop_gradient(
            self._build_target_quantile_values_op())
        target_quantile_values = tf.reshape(target_quantile_values,
                                            [self.num_tau_prime_samples,
                                             batch_size, 1])
        target_quantile_values = tf.transpose(a=target_quantile_values, perm=[1, 0, 2])
        indices = tf.range(self.num_tau_samples * batch_size)[:, None]
        reshaped_actions = self._replay.actions[:, None]
        reshaped_actions = tf.tile(reshaped_actions, [self.num_tau_samples, 1])
        reshaped_actions = tf.concat([indices, reshaped_actions], axis=1)
        chosen_action_quantile_values = tf.gather_nd(
            self._replay_net_quantile_values, reshaped_actions)
        chosen_action_quantile_values = tf.reshape(chosen_action_quantile_values,
                                                   [self.num_tau_samples,
                                                    batch_size, 1])
        chosen_action_quantile_values = tf.transpose(
            a=chosen_action_quantile_values, perm=[1, 0, 2])
        bellman_errors = target_quantile_values[
            :, :, None, :] - chosen_action_quantile_values[:, None, :, :]
        huber_loss_case_one = tf.cast(
            tf.abs(bellman_errors) <= self.kappa, dtype=tf.float32) * 0.5 * bellman_errors ** 2
        huber_loss_case_two = tf.cast(
            tf.abs(bellman_errors) > self.kappa, dtype=tf.float32) * self.kappa * (
                tf.abs(bellman_errors) - 0.5 * self.kappa)
        huber_loss = huber_loss_case_one + huber_loss_case_two
        replay_quantiles = tf.reshape(
            self._replay_net_quantiles, [self.num_tau_samples, batch_size, 1])
        replay_quantiles = tf.transpose(a=replay_quantiles, perm=[1, 0, 2])
        replay_quantiles = tf.cast(tf.tile(
            replay_quantiles[:, None, :, :], [1, self.num_tau_prime_samples, 1, 1]), dtype=tf.float32)
        quantile_huber_loss = (tf.abs(replay_quantiles - tf.stop_gradient(
            tf.cast(bellman_errors < 0, dtype=tf.float32))) * huber_loss) / self.kappa
        loss = tf.reduce_sum(input_tensor=quantile_huber_loss, axis=2)
        loss = tf.reduce_mean(input_tensor=loss, axis=1)
        update_priorities_op = tf.no_op()
        with tf.control_dependencies([update_priorities_op]):
          if self.summary_writer is not None:
            with tf.compat.v1.variable_scope('Losses'):
              tf.compat.v1.summary.scalar('QuantileLoss', tf.reduce_mean(input_tensor=loss))
          return self.optimizer.minimize(tf.reduce_mean(input_tensor=loss)), tf.reduce_mean(input_tensor=loss)
      def _build_sync_op(self):
        sync_qt_ops = []
        trainables_online = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='Online')
        trainables_target = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='Target')
        for (w_online, w_target) in zip(trainables_online, trainables_target):
          sync_qt_ops.append(w_target.assign(w_online, use_locking=True))
        return sync_qt_ops
    for double in (False, True):
      with tf.Graph().as_default():
        tf.set_random_seed(11)
        rng = np.random.RandomState(0)
        agent = ImplicitQuantileAgent(num_actions=3, double_dqn=double, summary_writer=True)
        print(agent._net_outputs.quantile_values, agent._q_argmax, agent._replay_net_target_q_values, agent._loss, agent._train_op.name)
        print([v.name for v in tf.trainable_variables()], [s.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)])
        with tf.Session() as sess:
          sess.run(tf.global_variables_initializer())
          sess.run(agent._sync_qt_ops)
          for step in range(4):
            feed = {agent._replay.states: rng.randint(0, 255, (3, 36, 36, 4)), agent._replay.next_states: rng.randint(0, 255, (3, 36, 36, 4)),
                    agent._replay.actions: rng.randint(0, 3, 3), agent._replay.rewards: rng.randn(3), agent._replay.terminals: [0, 1, 0]}
            _, l = sess.run([agent._train_op, agent._loss], feed)
            a = sess.run(agent._q_argmax, {agent.state_ph: rng.randint(0, 255, (1, 36, 36, 4))})
            print(step, '%.5f' % l, a)
            if step == 1:
              sess.run(agent._sync_qt_ops)
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["dopamine_iqn"], 0)


@pytest.mark.usefixtures("new_default_graph")
def test_jaromiru_a3c(capsys):
    # jaromiru/AI-blog CartPole-A3C.py (a Keras model's _make_predict_function, a finalized graph, RMSProp on a tf
    # loss, Environment threads: tf.keras's session is per thread, so a thread's predict fails as in TF 1.15,
    # and the episodes run again in the main thread); keras as tf.keras, gym as FakeEnv, no timing
    # jaromiru/AI-blog CartPole-A3C.py (Brain on a Keras model with _make_predict_function, a finalized graph,
    # RMSProp on a tf loss, Environment threads); keras as tf.keras; gym replaced by the NumPy FakeEnv; the
    # threads run one at a time for a fixed number of episodes (no timing), the optimizer called between them
    import time, random, threading
    Model, Input, Dense = tf.keras.models.Model, tf.keras.layers.Input, tf.keras.layers.Dense
    K = tf.keras.backend
    THREADS = 2
    THREAD_DELAY = 0.0
    GAMMA = 0.99
    N_STEP_RETURN = 3
    GAMMA_N = GAMMA ** N_STEP_RETURN
    EPS_START = 0.4
    EPS_STOP  = .15
    EPS_STEPS = 75
    MIN_BATCH = 8
    LEARNING_RATE = 5e-3
    LOSS_V = .5
    LOSS_ENTROPY = .01
    K.clear_session()  # (a graph as Keras leaves it after a clear: the test is not the process's first)
    random.seed(0); np.random.seed(0); tf.set_random_seed(0)
    class Brain:
    	train_queue = [ [], [], [], [], [] ]	# s, a, r, s', s' terminal mask
    	lock_queue = threading.Lock()
    	def __init__(self):
    		self.session = tf.Session()
    		K.set_session(self.session)
    		K.manual_variable_initialization(True)
    		self.model = self._build_model()
    		self.graph = self._build_graph(self.model)
    		self.session.run(tf.global_variables_initializer())
    		self.default_graph = tf.get_default_graph()
    		self.default_graph.finalize()	# avoid modifications
    	def _build_model(self):
    		l_input = Input( batch_shape=(None, NUM_STATE) )
    		l_dense = Dense(16, activation='relu')(l_input)
    		out_actions = Dense(NUM_ACTIONS, activation='softmax')(l_dense)
    		out_value   = Dense(1, activation='linear')(l_dense)
    		model = Model(inputs=[l_input], outputs=[out_actions, out_value])
    		model._make_predict_function()	# have to initialize before threading
    		return model
    	def _build_graph(self, model):
    		s_t = tf.placeholder(tf.float32, shape=(None, NUM_STATE))
    		a_t = tf.placeholder(tf.float32, shape=(None, NUM_ACTIONS))
    		r_t = tf.placeholder(tf.float32, shape=(None, 1)) # not immediate, but discounted n step reward
    		p, v = model(s_t)
    		log_prob = tf.log( tf.reduce_sum(p * a_t, axis=1, keep_dims=True) + 1e-10)
    		advantage = r_t - v
    		loss_policy = - log_prob * tf.stop_gradient(advantage)
    		loss_value  = LOSS_V * tf.square(advantage)
    		entropy = LOSS_ENTROPY * tf.reduce_sum(p * tf.log(p + 1e-10), axis=1, keep_dims=True)
    		loss_total = tf.reduce_mean(loss_policy + loss_value + entropy)
    		optimizer = tf.train.RMSPropOptimizer(LEARNING_RATE, decay=.99)
    		minimize = optimizer.minimize(loss_total)
    		print(p, v, loss_total, minimize.name, [w.name for w in model.weights])
    		self.loss_total = loss_total
    		return s_t, a_t, r_t, minimize
    	def optimize(self):
    		if len(self.train_queue[0]) < MIN_BATCH:
    			time.sleep(0)	# yield
    			return
    		with self.lock_queue:
    			s, a, r, s_, s_mask = self.train_queue
    			self.train_queue = [ [], [], [], [], [] ]
    		s = np.vstack(s)
    		a = np.vstack(a)
    		r = np.vstack(r)
    		s_ = np.vstack(s_)
    		s_mask = np.vstack(s_mask)
    		if len(s) > 5*MIN_BATCH: print("Optimizer alert! Minimizing batch of %d" % len(s))
    		v = self.predict_v(s_)
    		r = r + GAMMA_N * v * s_mask	# set v to 0 where s_ is terminal state
    		s_t, a_t, r_t, minimize = self.graph
    		_, l = self.session.run([minimize, self.loss_total], feed_dict={s_t: s, a_t: a, r_t: r})
    		print('optimize', len(s), '%.5f' % l)
    	def train_push(self, s, a, r, s_):
    		with self.lock_queue:
    			self.train_queue[0].append(s)
    			self.train_queue[1].append(a)
    			self.train_queue[2].append(r)
    			if s_ is None:
    				self.train_queue[3].append(NONE_STATE)
    				self.train_queue[4].append(0.)
    			else:
    				self.train_queue[3].append(s_)
    				self.train_queue[4].append(1.)
    	def predict(self, s):
    		with self.default_graph.as_default():
    			p, v = self.model.predict(s)
    			return p, v
    	def predict_p(self, s):
    		with self.default_graph.as_default():
    			p, v = self.model.predict(s)
    			return p
    	def predict_v(self, s):
    		with self.default_graph.as_default():
    			p, v = self.model.predict(s)
    			return v
    global frames  # (a no-op at module level; in the test function, frames stays a global)
    frames = 0
    class Agent:
    	def __init__(self, eps_start, eps_end, eps_steps):
    		self.eps_start = eps_start
    		self.eps_end   = eps_end
    		self.eps_steps = eps_steps
    		self.memory = []	# used for n_step return
    		self.R = 0.
    	def getEpsilon(self):
    		if(frames >= self.eps_steps):
    			return self.eps_end
    		else:
    			return self.eps_start + frames * (self.eps_end - self.eps_start) / self.eps_steps	# linearly interpolate
    	def act(self, s):
    		eps = self.getEpsilon()
    		global frames; frames = frames + 1
    		if random.random() < eps:
    			return random.randint(0, NUM_ACTIONS-1)
    		else:
    			s = np.array([s])
    			p = brain.predict_p(s)[0]
    			a = np.random.choice(NUM_ACTIONS, p=p / p.sum())  # (renormalized: NumPy 2 checks float32 sums more tightly)
    			return a
    	def train(self, s, a, r, s_):
    		def get_sample(memory, n):
    			s, a, _, _  = memory[0]
    			_, _, _, s_ = memory[n-1]
    			return s, a, self.R, s_
    		a_cats = np.zeros(NUM_ACTIONS)	# turn action into one-hot representation
    		a_cats[a] = 1
    		self.memory.append( (s, a_cats, r, s_) )
    		self.R = ( self.R + r * GAMMA_N ) / GAMMA
    		if s_ is None:
    			while len(self.memory) > 0:
    				n = len(self.memory)
    				s, a, r, s_ = get_sample(self.memory, n)
    				brain.train_push(s, a, r, s_)
    				self.R = ( self.R - self.memory[0][2] ) / GAMMA
    				self.memory.pop(0)
    			self.R = 0
    		if len(self.memory) >= N_STEP_RETURN:
    			s, a, r, s_ = get_sample(self.memory, N_STEP_RETURN)
    			brain.train_push(s, a, r, s_)
    			self.R = self.R - self.memory[0][2]
    			self.memory.pop(0)
    class Environment(threading.Thread):
    	stop_signal = False
    	def __init__(self, render=False, eps_start=EPS_START, eps_end=EPS_STOP, eps_steps=EPS_STEPS, episodes=2):
    		threading.Thread.__init__(self)
    		self.render = render
    		self.env = FakeEnv(obs_dim=4, act_dim=2, discrete=True, ep_len=7)
    		self.agent = Agent(eps_start, eps_end, eps_steps)
    		self.episodes = episodes
    	def runEpisode(self):
    		s = self.env.reset()
    		R = 0
    		while True:
    			time.sleep(THREAD_DELAY) # yield
    			a = self.agent.act(s)
    			s_, r, done, info = self.env.step(a)
    			if done: # terminal state
    				s_ = None
    			self.agent.train(s, a, r, s_)
    			s = s_
    			R += r
    			if done or self.stop_signal:
    				break
    		print("Total R: %.4f" % R)
    	def run(self):
    		for _ in range(self.episodes):  # (the repository runs until stop(), for RUN_TIME seconds)
    			self.runEpisode()
    	def stop(self):
    		self.stop_signal = True
    env_test = Environment(render=True, eps_start=0., eps_end=0.)
    NUM_STATE = env_test.env.observation_space.shape[0]
    NUM_ACTIONS = env_test.env.action_space.n
    NONE_STATE = np.zeros(NUM_STATE)
    brain = Brain()	# brain is global in A3C
    envs = [Environment() for i in range(THREADS)]
    for e in envs:
    	e.start()  # (tf.keras's session is per thread: the thread's predict finds its variables uninitialized)
    	e.join()
    	e.run()  # the same episodes in the main thread
    	brain.optimize()
    brain.optimize()
    print("Training finished")
    env_test.run()
    try:
    	tf.Variable(1.0)
    except RuntimeError as err:
    	print('RuntimeError:', err)
    brain.session.close()
    K.clear_session()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["jaromiru_a3c"], 0)


@pytest.mark.usefixtures("fresh_graph")
def test_mz_a3c_cont(capsys):
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/10_A3C/A3C_continuous_action.py (global and local
    # nets, contrib Normal, pull/push ops, RMSProp on the global params, a Coordinator joining one worker thread)
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/10_A3C/A3C_continuous_action.py (global and local
    # ACNets, tf.contrib.distributions.Normal, pull/push ops, RMSProp on the global params, a Coordinator and a
    # worker thread); gym's Pendulum as the NumPy FakeEnv, one worker, episodes short
    import threading, tempfile
    global SESS, OPT_A, OPT_C, COORD, GLOBAL_RUNNING_R, GLOBAL_EP, N_S, N_A, A_BOUND  # (no-ops at module level)
    N_WORKERS = 1
    MAX_EP_STEP = 8
    MAX_GLOBAL_EP = 3
    GLOBAL_NET_SCOPE = 'Global_Net'
    UPDATE_GLOBAL_ITER = 5
    GAMMA = 0.9
    ENTROPY_BETA = 0.01
    LR_A = 0.0001    # learning rate for actor
    LR_C = 0.001    # learning rate for critic
    GLOBAL_RUNNING_R = []
    GLOBAL_EP = 0
    env = FakeEnv(obs_dim=3, act_dim=1)
    N_S = env.observation_space.shape[0]
    N_A = env.action_space.shape[0]
    A_BOUND = [env.action_space.low, env.action_space.high]
    class ACNet(object):
        def __init__(self, scope, globalAC=None):
            if scope == GLOBAL_NET_SCOPE:   # get global network
                with tf.variable_scope(scope):
                    self.s = tf.placeholder(tf.float32, [None, N_S], 'S')
                    self._build_net()
                    self.a_params = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + '/actor')
                    self.c_params = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + '/critic')
            else:   # local net, calculate losses
                with tf.variable_scope(scope):
                    self.s = tf.placeholder(tf.float32, [None, N_S], 'S')
                    self.a_his = tf.placeholder(tf.float32, [None, N_A], 'A')
                    self.v_target = tf.placeholder(tf.float32, [None, 1], 'Vtarget')
                    mu, sigma, self.v = self._build_net()
                    td = tf.subtract(self.v_target, self.v, name='TD_error')
                    with tf.name_scope('c_loss'):
                        self.c_loss = tf.reduce_mean(tf.square(td))
                    with tf.name_scope('wrap_a_out'):
                        mu, sigma = mu * A_BOUND[1], sigma + 1e-4
                    normal_dist = tf.contrib.distributions.Normal(mu, sigma)
                    with tf.name_scope('a_loss'):
                        log_prob = normal_dist.log_prob(self.a_his)
                        exp_v = log_prob * td
                        entropy = tf.stop_gradient(normal_dist.entropy())  # encourage exploration
                        self.exp_v = ENTROPY_BETA * entropy + exp_v
                        self.a_loss = tf.reduce_mean(-self.exp_v)
                    with tf.name_scope('choose_a'):  # use local params to choose action
                        self.A = tf.clip_by_value(tf.squeeze(normal_dist.sample(1), axis=0), A_BOUND[0], A_BOUND[1])
                    with tf.name_scope('local_grad'):
                        self.a_params = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + '/actor')
                        self.c_params = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope + '/critic')
                        self.a_grads = tf.gradients(self.a_loss, self.a_params)
                        self.c_grads = tf.gradients(self.c_loss, self.c_params)
                with tf.name_scope('sync'):
                    with tf.name_scope('pull'):
                        self.pull_a_params_op = [l_p.assign(g_p) for l_p, g_p in zip(self.a_params, globalAC.a_params)]
                        self.pull_c_params_op = [l_p.assign(g_p) for l_p, g_p in zip(self.c_params, globalAC.c_params)]
                    with tf.name_scope('push'):
                        self.update_a_op = OPT_A.apply_gradients(zip(self.a_grads, globalAC.a_params))
                        self.update_c_op = OPT_C.apply_gradients(zip(self.c_grads, globalAC.c_params))
                print(self.A, log_prob, entropy, self.a_loss, self.pull_a_params_op[0], self.update_a_op.name, self.update_c_op.name)
        def _build_net(self):
            w_init = tf.random_normal_initializer(0., .1)
            with tf.variable_scope('actor'):
                l_a = tf.layers.dense(self.s, 20, tf.nn.relu6, kernel_initializer=w_init, name='la')
                mu = tf.layers.dense(l_a, N_A, tf.nn.tanh, kernel_initializer=w_init, name='mu')
                sigma = tf.layers.dense(l_a, N_A, tf.nn.softplus, kernel_initializer=w_init, name='sigma')
            with tf.variable_scope('critic'):
                l_c = tf.layers.dense(self.s, 10, tf.nn.relu6, kernel_initializer=w_init, name='lc')
                v = tf.layers.dense(l_c, 1, kernel_initializer=w_init, name='v')  # state value
            return mu, sigma, v
        def update_global(self, feed_dict):  # run by a local
            SESS.run([self.update_a_op, self.update_c_op], feed_dict)  # local grads applies to global net
        def pull_global(self):  # run by a local
            SESS.run([self.pull_a_params_op, self.pull_c_params_op])
        def choose_action(self, s):  # run by a local
            s = s[np.newaxis, :]
            return SESS.run(self.A, {self.s: s})[0]
    class Worker(object):
        def __init__(self, name, globalAC):
            self.env = FakeEnv(obs_dim=3, act_dim=1, ep_len=100)
            self.name = name
            self.AC = ACNet(name, globalAC)
        def work(self):
            global GLOBAL_RUNNING_R, GLOBAL_EP
            total_step = 1
            buffer_s, buffer_a, buffer_r = [], [], []
            while not COORD.should_stop() and GLOBAL_EP < MAX_GLOBAL_EP:
                s = self.env.reset()
                ep_r = 0
                for ep_t in range(MAX_EP_STEP):
                    a = self.AC.choose_action(s)
                    s_, r, done, info = self.env.step(a)
                    done = True if ep_t == MAX_EP_STEP - 1 else False
                    r /= 10     # normalize reward
                    ep_r += r
                    buffer_s.append(s)
                    buffer_a.append(a)
                    buffer_r.append(r)
                    if total_step % UPDATE_GLOBAL_ITER == 0 or done:   # update global and assign to local net
                        if done:
                            v_s_ = 0   # terminal
                        else:
                            v_s_ = SESS.run(self.AC.v, {self.AC.s: s_[np.newaxis, :]})[0, 0]
                        buffer_v_target = []
                        for r in buffer_r[::-1]:    # reverse buffer r
                            v_s_ = r + GAMMA * v_s_
                            buffer_v_target.append(v_s_)
                        buffer_v_target.reverse()
                        buffer_s, buffer_a, buffer_v_target = np.vstack(buffer_s), np.vstack(buffer_a), np.vstack(buffer_v_target)
                        feed_dict = {
                            self.AC.s: buffer_s,
                            self.AC.a_his: buffer_a,
                            self.AC.v_target: buffer_v_target,
                        }
                        self.AC.update_global(feed_dict)
                        buffer_s, buffer_a, buffer_r = [], [], []
                        self.AC.pull_global()
                    s = s_
                    total_step += 1
                    if done:
                        if len(GLOBAL_RUNNING_R) == 0:  # record running episode reward
                            GLOBAL_RUNNING_R.append(ep_r)
                        else:
                            GLOBAL_RUNNING_R.append(0.9 * GLOBAL_RUNNING_R[-1] + 0.1 * ep_r)
                        print(
                            self.name,
                            "Ep:", GLOBAL_EP,
                            "| Ep_r: %.5f" % GLOBAL_RUNNING_R[-1],
                              )
                        GLOBAL_EP += 1
                        break
    tf.set_random_seed(4); np.random.seed(4)
    SESS = tf.Session()
    with tf.device("/cpu:0"):
        OPT_A = tf.train.RMSPropOptimizer(LR_A, name='RMSPropA')
        OPT_C = tf.train.RMSPropOptimizer(LR_C, name='RMSPropC')
        GLOBAL_AC = ACNet(GLOBAL_NET_SCOPE)  # we only need its params
        workers = []
        for i in range(N_WORKERS):
            i_name = 'W_%i' % i   # worker name
            workers.append(Worker(i_name, GLOBAL_AC))
    COORD = tf.train.Coordinator()
    SESS.run(tf.global_variables_initializer())
    tf.summary.FileWriter(tempfile.mkdtemp(), SESS.graph)
    worker_threads = []
    for worker in workers:
        job = lambda: worker.work()
        t = threading.Thread(target=job)
        t.start()
        worker_threads.append(t)
    COORD.join(worker_threads)
    print(np.round(GLOBAL_RUNNING_R, 5).tolist(), [v.name for v in tf.global_variables()][-6:])
    SESS.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["mz_a3c_cont"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'dopamine_iqn': [
        'Tensor("Online/fully_connected_2/BiasAdd:0", shape=(4, 3), dtype=float32) Tensor("ArgMax:0", shape=(), dtype=int64) Tensor("Squeeze:0", shape=(3, 3), dtype=float32) Tensor("Mean_4:0", shape=(), dtype=float32) Adam',
        "['Online/Conv/weights:0', 'Online/Conv/biases:0', 'Online/Conv_1/weights:0', 'Online/Conv_1/biases:0', 'Online/Conv_2/weights:0', 'Online/Conv_2/biases:0', 'Online/fully_connected/weights:0', 'Online/fully_connected/biases:0', 'Online/fully_connected_1/weights:0', 'Online/fully_connected_1/biases:0', 'Online/fully_connected_2/weights:0', 'Online/fully_connected_2/biases:0', 'Target/Conv/weights:0', 'Target/Conv/biases:0', 'Target/Conv_1/weights:0', 'Target/Conv_1/biases:0', 'Target/Conv_2/weights:0', 'Target/Conv_2/biases:0', 'Target/fully_connected/weights:0', 'Target/fully_connected/biases:0', 'Target/fully_connected_1/weights:0', 'Target/fully_connected_1/biases:0', 'Target/fully_connected_2/weights:0', 'Target/fully_connected_2/biases:0'] ['Losses/QuantileLoss:0']",
        '0 0.92588 1',
        '1 0.03361 1',
        '2 0.96877 2',
        '3 0.52485 2',
        'Tensor("Online/fully_connected_2/BiasAdd:0", shape=(4, 3), dtype=float32) Tensor("ArgMax:0", shape=(), dtype=int64) Tensor("Squeeze:0", shape=(3, 3), dtype=float32) Tensor("Mean_4:0", shape=(), dtype=float32) Adam',
        "['Online/Conv/weights:0', 'Online/Conv/biases:0', 'Online/Conv_1/weights:0', 'Online/Conv_1/biases:0', 'Online/Conv_2/weights:0', 'Online/Conv_2/biases:0', 'Online/fully_connected/weights:0', 'Online/fully_connected/biases:0', 'Online/fully_connected_1/weights:0', 'Online/fully_connected_1/biases:0', 'Online/fully_connected_2/weights:0', 'Online/fully_connected_2/biases:0', 'Target/Conv/weights:0', 'Target/Conv/biases:0', 'Target/Conv_1/weights:0', 'Target/Conv_1/biases:0', 'Target/Conv_2/weights:0', 'Target/Conv_2/biases:0', 'Target/fully_connected/weights:0', 'Target/fully_connected/biases:0', 'Target/fully_connected_1/weights:0', 'Target/fully_connected_1/biases:0', 'Target/fully_connected_2/weights:0', 'Target/fully_connected_2/biases:0'] ['Losses/QuantileLoss:0']",
        '0 0.92588 1',
        '1 0.03361 1',
        '2 0.96877 2',
        '3 0.52485 2',
    ],
    'jaromiru_a3c': [
        'Tensor("model/dense_1/Softmax:0", shape=(?, 2), dtype=float32) Tensor("model/dense_2/BiasAdd:0", shape=(?, 1), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32) RMSProp [\'dense/kernel:0\', \'dense/bias:0\', \'dense_1/kernel:0\', \'dense_1/bias:0\', \'dense_2/kernel:0\', \'dense_2/bias:0\']',
        'Total R: -17.5852',
        'Total R: -18.7085',
        'optimize 14 20.51256',
        'Total R: -16.0771',
        'Total R: -16.9273',
        'optimize 14 15.23239',
        'Training finished',
        'Total R: -17.5852',
        'Total R: -16.0771',
        'RuntimeError: Graph is finalized and cannot be modified.',
    ],
    'mz_a3c_cont': [
        'Tensor("W_0/choose_a/clip_by_value:0", shape=(?, 1), dtype=float32, device=/device:CPU:0) Tensor("W_0/Normal/log_prob/sub:0", shape=(?, 1), dtype=float32, device=/device:CPU:0) Tensor("W_0/a_loss/StopGradient:0", shape=(?, 1), dtype=float32, device=/device:CPU:0) Tensor("W_0/a_loss/Mean:0", shape=(), dtype=float32, device=/device:CPU:0) Tensor("sync/pull/Assign:0", shape=(3, 20), dtype=float32_ref, device=/device:CPU:0) sync/push/RMSPropA sync/push/RMSPropC',
        'W_0 Ep: 0 | Ep_r: -1.12020',
        'W_0 Ep: 1 | Ep_r: -1.14355',
        'W_0 Ep: 2 | Ep_r: -1.16192',
        "[-1.1202, -1.14355, -1.16192] ['Global_Net/critic/lc/bias/RMSPropC:0', 'Global_Net/critic/lc/bias/RMSPropC_1:0', 'Global_Net/critic/v/kernel/RMSPropC:0', 'Global_Net/critic/v/kernel/RMSPropC_1:0', 'Global_Net/critic/v/bias/RMSPropC:0', 'Global_Net/critic/v/bias/RMSPropC_1:0']",
    ],
}
