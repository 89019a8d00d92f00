"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
Dopamine's implicit quantile agent (slim networks in make_template, quantile Huber loss, gather_nd
targets, summaries under a variable scope)."""
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
}
