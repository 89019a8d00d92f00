"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
MorvanZhou's prioritized-replay DQN and DeepMind's trfl losses (Q-learning, double Q, Q(lambda),
TD(lambda), V-trace, masked discounted sums). PYTEST_DONT_REWRITE: trfl's own asserts
word its ValueErrors, which pytest's rewriting would change."""
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
def test_mz_prio_dqn(capsys):
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/5.2_Prioritized_Replay_DQN/RL_brain.py + run_MountainCar.py
    # MorvanZhou/Reinforcement-learning-with-tensorflow contents/5.2_Prioritized_Replay_DQN/RL_brain.py + run_MountainCar.py
    np.random.seed(1)
    tf.set_random_seed(1)
    class SumTree(object):
        data_pointer = 0
        def __init__(self, capacity):
            self.capacity = capacity    # for all priority values
            self.tree = np.zeros(2*capacity - 1)
            self.data = np.zeros(capacity, dtype=object)    # for all transitions
        def add_new_priority(self, p, data):
            leaf_idx = self.data_pointer + self.capacity - 1
            self.data[self.data_pointer] = data # update data_frame
            self.update(leaf_idx, p)    # update tree_frame
            self.data_pointer += 1
            if self.data_pointer >= self.capacity:  # replace when exceed the capacity
                self.data_pointer = 0
        def update(self, tree_idx, p):
            change = p - self.tree[tree_idx]
            self.tree[tree_idx] = p
            self._propagate_change(tree_idx, change)
        def _propagate_change(self, tree_idx, change):
            parent_idx = (tree_idx - 1) // 2
            self.tree[parent_idx] += change
            if parent_idx != 0:
                self._propagate_change(parent_idx, change)
        def get_leaf(self, lower_bound):
            leaf_idx = self._retrieve(lower_bound)  # search the max leaf priority based on the lower_bound
            data_idx = leaf_idx - self.capacity + 1
            return [leaf_idx, self.tree[leaf_idx], self.data[data_idx]]
        def _retrieve(self, lower_bound, parent_idx=0):
            left_child_idx = 2 * parent_idx + 1
            right_child_idx = left_child_idx + 1
            if left_child_idx >= len(self.tree):    # end search when no more child
                return parent_idx
            if self.tree[left_child_idx] == self.tree[right_child_idx]:
                return self._retrieve(lower_bound, np.random.choice([left_child_idx, right_child_idx]))
            if lower_bound <= self.tree[left_child_idx]:  # downward search, always search for a higher priority node
                return self._retrieve(lower_bound, left_child_idx)
            else:
                return self._retrieve(lower_bound-self.tree[left_child_idx], right_child_idx)
        @property
        def root_priority(self):
            return self.tree[0]     # the root
    class Memory(object):   # stored as ( s, a, r, s_ ) in SumTree
        epsilon = 0.01  # small amount to avoid zero priority
        alpha = 0.6     # [0~1] convert the importance of TD error to priority
        beta = 0.4      # importance-sampling, from initial value increasing to 1
        beta_increment_per_sampling = 0.001
        abs_err_upper = 1.  # clipped abs error
        def __init__(self, capacity):
            self.tree = SumTree(capacity)
        def store(self, transition):
            max_p = np.max(self.tree.tree[-self.tree.capacity:])
            if max_p == 0:
                max_p = self.abs_err_upper
            self.tree.add_new_priority(max_p, transition)   # set the max p for new p
        def sample(self, n):
            batch_idx, batch_memory, ISWeights = [], [], []
            segment = self.tree.root_priority / n
            self.beta = np.min([1, self.beta + self.beta_increment_per_sampling])  # max = 1
            min_prob = np.min(self.tree.tree[-self.tree.capacity:]) / self.tree.root_priority
            maxiwi = np.power(self.tree.capacity * min_prob, -self.beta)  # for later normalizing ISWeights
            for i in range(n):
                a = segment * i
                b = segment * (i + 1)
                lower_bound = np.random.uniform(a, b)
                idx, p, data = self.tree.get_leaf(lower_bound)
                prob = p / self.tree.root_priority
                ISWeights.append(self.tree.capacity * prob)
                batch_idx.append(idx)
                batch_memory.append(data)
            ISWeights = np.vstack(ISWeights)
            ISWeights = np.power(ISWeights, -self.beta) / maxiwi  # normalize
            return batch_idx, np.vstack(batch_memory), ISWeights
        def update(self, idx, error):
            p = self._get_priority(error)
            self.tree.update(idx, p)
        def _get_priority(self, error):
            error += self.epsilon  # avoid 0
            clipped_error = np.clip(error, 0, self.abs_err_upper)
            return np.power(clipped_error, self.alpha)
    class DQNPrioritizedReplay:
        def __init__(self, n_actions, n_features, learning_rate=0.005, reward_decay=0.9, e_greedy=0.9,
                replace_target_iter=500, memory_size=10000, batch_size=32, e_greedy_increment=None,
                output_graph=False, prioritized=True, sess=None):
            self.n_actions = n_actions
            self.n_features = n_features
            self.lr = learning_rate
            self.gamma = reward_decay
            self.epsilon_max = e_greedy
            self.replace_target_iter = replace_target_iter
            self.memory_size = memory_size
            self.batch_size = batch_size
            self.epsilon_increment = e_greedy_increment
            self.epsilon = 0 if e_greedy_increment is not None else self.epsilon_max
            self.prioritized = prioritized    # decide to use double q or not
            self.learn_step_counter = 0
            self._build_net()
            t_params = tf.get_collection('target_net_params')
            e_params = tf.get_collection('eval_net_params')
            self.replace_target_op = [tf.assign(t, e) for t, e in zip(t_params, e_params)]
            print([v.name for v in t_params], [v.name for v in e_params], self.replace_target_op[-1])
            if self.prioritized:
                self.memory = Memory(capacity=memory_size)
            else:
                self.memory = np.zeros((self.memory_size, n_features*2+2))
            if sess is None:
                self.sess = tf.Session()
                self.sess.run(tf.global_variables_initializer())
            else:
                self.sess = sess
            self.cost_his = []
        def _build_net(self):
            def build_layers(s, c_names, n_l1, w_initializer, b_initializer):
                with tf.variable_scope('l1'):
                    w1 = tf.get_variable('w1', [self.n_features, n_l1], initializer=w_initializer, collections=c_names)
                    b1 = tf.get_variable('b1', [1, n_l1], initializer=b_initializer, collections=c_names)
                    l1 = tf.nn.relu(tf.matmul(s, w1) + b1)
                with tf.variable_scope('l2'):
                    w2 = tf.get_variable('w2', [n_l1, self.n_actions], initializer=w_initializer, collections=c_names)
                    b2 = tf.get_variable('b2', [1, self.n_actions], initializer=b_initializer, collections=c_names)
                    out = tf.matmul(l1, w2) + b2
                return out
            self.s = tf.placeholder(tf.float32, [None, self.n_features], name='s')  # input
            self.q_target = tf.placeholder(tf.float32, [None, self.n_actions], name='Q_target')  # for calculating loss
            if self.prioritized:
                self.ISWeights = tf.placeholder(tf.float32, [None, 1], name='IS_weights')
            with tf.variable_scope('eval_net'):
                c_names, n_l1, w_initializer, b_initializer = \
                    ['eval_net_params', tf.GraphKeys.GLOBAL_VARIABLES], 20, \
                    tf.random_normal_initializer(0., 0.3), tf.constant_initializer(0.1)  # config of layers
                self.q_eval = build_layers(self.s, c_names, n_l1, w_initializer, b_initializer)
            with tf.variable_scope('loss'):
                if self.prioritized:
                    self.abs_errors = tf.reduce_sum(tf.abs(self.q_target - self.q_eval), axis=1)    # for updating Sumtree
                    self.loss = tf.reduce_mean(self.ISWeights * tf.squared_difference(self.q_target, self.q_eval))
                else:
                    self.loss = tf.reduce_mean(tf.squared_difference(self.q_target, self.q_eval))
            with tf.variable_scope('train'):
                self._train_op = tf.train.RMSPropOptimizer(self.lr).minimize(self.loss)
            self.s_ = tf.placeholder(tf.float32, [None, self.n_features], name='s_')    # input
            with tf.variable_scope('target_net'):
                c_names = ['target_net_params', tf.GraphKeys.GLOBAL_VARIABLES]
                self.q_next = build_layers(self.s_, c_names, n_l1, w_initializer, b_initializer)
            print(self.q_eval, self.loss, self._train_op.name, self.q_next, self.s_)
        def store_transition(self, s, a, r, s_):
            if self.prioritized:    # prioritized replay
                transition = np.hstack((s, [a, r], s_))
                self.memory.store(transition)    # have high priority for newly arrived transition
            else:       # random replay
                if not hasattr(self, 'memory_counter'):
                    self.memory_counter = 0
                transition = np.hstack((s, [a, r], s_))
                index = self.memory_counter % self.memory_size
                self.memory[index, :] = transition
                self.memory_counter += 1
        def choose_action(self, observation):
            observation = observation[np.newaxis, :]
            if np.random.uniform() < self.epsilon:
                actions_value = self.sess.run(self.q_eval, feed_dict={self.s: observation})
                action = np.argmax(actions_value)
            else:
                action = np.random.randint(0, self.n_actions)
            return action
        def learn(self):
            if self.learn_step_counter % self.replace_target_iter == 0:
                self.sess.run(self.replace_target_op)
                print('\ntarget_params_replaced\n')
            if self.prioritized:
                tree_idx, batch_memory, ISWeights = self.memory.sample(self.batch_size)
            else:
                sample_index = np.random.choice(self.memory_size, size=self.batch_size)
                batch_memory = self.memory[sample_index, :]
            q_next, q_eval = self.sess.run(
                    [self.q_next, self.q_eval],
                    feed_dict={self.s_: batch_memory[:, -self.n_features:],
                               self.s: batch_memory[:, :self.n_features]})
            q_target = q_eval.copy()
            batch_index = np.arange(self.batch_size, dtype=np.int32)
            eval_act_index = batch_memory[:, self.n_features].astype(int)
            reward = batch_memory[:, self.n_features + 1]
            q_target[batch_index, eval_act_index] = reward + self.gamma * np.max(q_next, axis=1)
            if self.prioritized:
                _, abs_errors, self.cost = self.sess.run([self._train_op, self.abs_errors, self.loss],
                                             feed_dict={self.s: batch_memory[:, :self.n_features],
                                                        self.q_target: q_target,
                                                        self.ISWeights: ISWeights})
                for i in range(len(tree_idx)):  # update priority
                    idx = tree_idx[i]
                    self.memory.update(idx, abs_errors[i])
            else:
                _, self.cost = self.sess.run([self._train_op, self.loss],
                                             feed_dict={self.s: batch_memory[:, :self.n_features],
                                                        self.q_target: q_target})
            self.cost_his.append(self.cost)
            self.epsilon = self.epsilon + self.epsilon_increment if self.epsilon < self.epsilon_max else self.epsilon_max
            self.learn_step_counter += 1
    # run_MountainCar.py: both agents in one graph and one session
    env = FakeEnv(obs_dim=2, act_dim=3, discrete=True, ep_len=9)
    MEMORY_SIZE = 16
    sess = tf.Session()
    with tf.variable_scope('natural_DQN'):
        RL_natural = DQNPrioritizedReplay(
            n_actions=3, n_features=2, memory_size=MEMORY_SIZE, batch_size=8, replace_target_iter=5,
            e_greedy_increment=0.05, sess=sess, prioritized=False,
        )
    with tf.variable_scope('DQN_with_prioritized_replay'):
        RL_prio = DQNPrioritizedReplay(
            n_actions=3, n_features=2, memory_size=MEMORY_SIZE, batch_size=8, replace_target_iter=5,
            e_greedy_increment=0.05, sess=sess, prioritized=True, output_graph=True,
        )
    sess.run(tf.global_variables_initializer())
    def train(RL):
        total_steps = 0
        steps = []
        episodes = []
        for i_episode in range(3):
            observation = env.reset()[:2]
            while True:
                action = RL.choose_action(observation)
                observation_, reward, done, info = env.step(action)
                observation_ = observation_[:2]
                if done: reward = 10
                RL.store_transition(observation, action, reward, observation_)
                if total_steps > MEMORY_SIZE:
                    RL.learn()
                if done:
                    print('episode ', i_episode, ' finished', total_steps)
                    steps.append(total_steps)
                    episodes.append(i_episode)
                    break
                observation = observation_
                total_steps += 1
        return np.vstack((episodes, steps))
    his_natural = train(RL_natural)
    his_prio = train(RL_prio)
    print(['%.5f' % c for c in RL_natural.cost_his])
    print(['%.5f' % c for c in RL_prio.cost_his])
    print(np.round(RL_prio.memory.tree.tree, 5).tolist())
    sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["mz_prio_dqn"], 1e-6)


@pytest.mark.usefixtures("fresh_graph")
def test_trfl_ops(capsys):
    # deepmind/trfl trfl/base_ops.py, indexing_ops.py, sequence_ops.py, action_value_ops.py, value_ops.py, vtrace_ops.py
    # deepmind/trfl: base_ops.py, indexing_ops.py, sequence_ops.py, action_value_ops.py (qlearning,
    # double_qlearning, qlambda), value_ops.py (td_lambda), vtrace_ops.py, used the way its README's
    # DQN example uses them; the network and data small and synthetic
    import collections
    LossOutput = collections.namedtuple("loss_output", ["loss", "extra"])
    def best_effort_shape(tensor, with_rank=None):
      tensor_shape = tf.TensorShape(tensor.shape)
      if with_rank:
        tensor_shape = tensor_shape.with_rank(with_rank)
      if tensor_shape.ndims is None:
        raise ValueError(
            "`tensor` does not have statically-known number of dimensions.")
      shape_list = tensor_shape.as_list()
      for idx, dim in enumerate(shape_list):
        if not dim:
          shape_list[idx] = tf.shape(tensor)[idx]
      return shape_list
    def assert_rank_and_shape_compatibility(tensors, rank):
      if not tensors:
        raise ValueError("List of tensors should be non-empty.")
      union_of_shapes = tf.TensorShape(None)
      for tensor in tensors:
        tensor_shape = tf.TensorShape(tensor.shape)
        tensor_shape.assert_has_rank(rank)
        union_of_shapes = union_of_shapes.merge_with(tensor_shape)
    def wrap_rank_shape_assert(tensors_list, expected_ranks, op_name):
      try:
        for tensors, rank in zip(tensors_list, expected_ranks):
          assert_rank_and_shape_compatibility(tensors, rank)
      except ValueError as e:
        error_message = ("{}: Error in rank and/or "
                         "compatibility check, {}".format(op_name, e))
        tf.logging.error(error_message)
        raise ValueError(error_message)
    def assert_compatible_shapes(value_shape, index_shape):
      if value_shape and index_shape:
        try:
          msg = ("Shapes of \"values\" and \"indices\" do not correspond to "
                 "minibatch (2-D) or sequence-minibatch (3-D) indexing")
          assert (value_shape.ndims, index_shape.ndims) in [(2, 1), (3, 2)], msg
          msg = ("\"values\" and \"indices\" have incompatible shapes of {} "
                 "and {}, respectively").format(value_shape, index_shape)
          assert value_shape[:-1].is_compatible_with(index_shape), msg
        except AssertionError as e:
          raise ValueError(e)  # Convert AssertionError to ValueError.
      else:
        tf.logging.warning("indexing function cannot get shapes")
    def batched_index(values, indices, keepdims=None):
      with tf.name_scope("batch_indexing", values=[values, indices]):
        values = tf.convert_to_tensor(values)
        indices = tf.convert_to_tensor(indices)
        assert_compatible_shapes(values.shape, indices.shape)
        one_hot_indices = tf.one_hot(
            indices, tf.shape(values)[-1], dtype=values.dtype)
        return tf.reduce_sum(values * one_hot_indices, axis=-1, keepdims=keepdims)
    def _reverse_seq(sequence, sequence_lengths=None):
      if sequence_lengths is None:
        return tf.reverse(sequence, [0])
      sequence_lengths = tf.convert_to_tensor(sequence_lengths)
      with tf.control_dependencies(
          [tf.assert_equal(sequence.shape[1], sequence_lengths.shape[0])]):
        return tf.reverse_sequence(
            sequence, sequence_lengths, seq_axis=0, batch_axis=1)
    def scan_discounted_sum(sequence, decay, initial_value, reverse=False,
                            sequence_lengths=None, back_prop=True,
                            name="scan_discounted_sum"):
      with tf.name_scope(name, values=[sequence, decay, initial_value]):
        if sequence_lengths is not None:
          with tf.control_dependencies(
              [tf.assert_equal(sequence.shape[0], decay.shape[0])]):
            mask = tf.sequence_mask(sequence_lengths, maxlen=sequence.shape[0],
                                    dtype=sequence.dtype)
            mask = tf.transpose(mask)
          to_seq = mask.shape.dims + [1] * (sequence.shape.ndims - mask.shape.ndims)
          sequence *= tf.reshape(mask, to_seq)
          to_decay = mask.shape.dims + [1] * (decay.shape.ndims - mask.shape.ndims)
          decay *= tf.reshape(mask, to_decay)
        sequences = [sequence, decay]
        if reverse:
          sequences = [_reverse_seq(s, sequence_lengths) for s in sequences]
        summed = tf.scan(lambda a, x: x[0] + x[1] * a,
                         sequences,
                         initializer=tf.convert_to_tensor(initial_value),
                         parallel_iterations=1,
                         back_prop=back_prop)
        if reverse:
          summed = _reverse_seq(summed, sequence_lengths)
        return summed
    def multistep_forward_view(rewards, pcontinues, state_values, lambda_,
                               back_prop=True, sequence_lengths=None,
                               name="multistep_forward_view_op"):
      with tf.name_scope(name, values=[rewards, pcontinues, state_values]):
        sequence = rewards + pcontinues * state_values * (1 - lambda_)
        discount = pcontinues * lambda_
        return scan_discounted_sum(sequence, discount, state_values[-1],
                                   reverse=True, sequence_lengths=sequence_lengths,
                                   back_prop=back_prop)
    QExtra = collections.namedtuple("qlearning_extra", ["target", "td_error"])
    DoubleQExtra = collections.namedtuple("double_qlearning_extra", ["target", "td_error", "best_action"])
    def qlearning(q_tm1, a_tm1, r_t, pcont_t, q_t, name="QLearning"):
      wrap_rank_shape_assert(
          [[q_tm1, q_t], [a_tm1, r_t, pcont_t]], [2, 1], name)
      with tf.name_scope(name, values=[q_tm1, a_tm1, r_t, pcont_t, q_t]):
        with tf.name_scope("target"):
          target = tf.stop_gradient(
              r_t + pcont_t * tf.reduce_max(q_t, axis=1))
        qa_tm1 = batched_index(q_tm1, a_tm1)
        td_error = target - qa_tm1
        loss = 0.5 * tf.square(td_error)
        return LossOutput(loss, QExtra(target, td_error))
    def double_qlearning(
        q_tm1, a_tm1, r_t, pcont_t, q_t_value, q_t_selector,
        name="DoubleQLearning"):
      wrap_rank_shape_assert(
          [[q_tm1, q_t_value, q_t_selector], [a_tm1, r_t, pcont_t]], [2, 1], name)
      with tf.name_scope(
          name, values=[q_tm1, a_tm1, r_t, pcont_t, q_t_value, q_t_selector]):
        best_action = tf.argmax(q_t_selector, 1, output_type=tf.int32)
        double_q_bootstrapped = batched_index(q_t_value, best_action)
        target = tf.stop_gradient(r_t + pcont_t * double_q_bootstrapped)
        qa_tm1 = batched_index(q_tm1, a_tm1)
        td_error = target - qa_tm1
        loss = 0.5 * tf.square(td_error)
        return LossOutput(
            loss, DoubleQExtra(target, td_error, best_action))
    def qlambda(
        q_tm1, a_tm1, r_t, pcont_t, q_t, lambda_, name="GeneralizedQLambda"):
      wrap_rank_shape_assert([[q_tm1, q_t]], [3], name)
      if isinstance(lambda_, tf.Tensor) and lambda_.get_shape().ndims > 0:
        wrap_rank_shape_assert([[a_tm1, r_t, pcont_t, lambda_]], [2], name)
      else:
        wrap_rank_shape_assert([[a_tm1, r_t, pcont_t]], [2], name)
      with tf.name_scope(name, values=[q_tm1, a_tm1, r_t, pcont_t, q_t]):
        with tf.name_scope("target"):
          state_values = tf.reduce_max(q_t, axis=2)
          target = multistep_forward_view(
              r_t, pcont_t, state_values, lambda_, back_prop=False)
          target = tf.stop_gradient(target)
        qa_tm1 = batched_index(q_tm1, a_tm1)
        td_error = target - qa_tm1
        loss = 0.5 * tf.square(td_error)
        return LossOutput(loss, QExtra(target, td_error))
    TDLambdaExtra = collections.namedtuple(
        "td_lambda_extra", ["temporal_differences", "discounted_returns"])
    def generalized_lambda_returns(rewards, pcontinues, values, bootstrap_value, lambda_=1,
                                   name="generalized_lambda_returns"):
      values.get_shape().assert_has_rank(2)
      rewards.get_shape().assert_has_rank(2)
      pcontinues.get_shape().assert_has_rank(2)
      bootstrap_value.get_shape().assert_has_rank(1)
      scoped_values = [rewards, pcontinues, values, bootstrap_value, lambda_]
      with tf.name_scope(name, values=scoped_values):
        if lambda_ == 1:
          return scan_discounted_sum(
              rewards,
              pcontinues,
              initial_value=bootstrap_value,
              reverse=True,
              back_prop=False,
              name="multistep_returns")
        else:
          v_tp1 = tf.concat(
              axis=0, values=[values[1:, :],
                              tf.expand_dims(bootstrap_value, 0)])
          return multistep_forward_view(
              rewards,
              pcontinues,
              v_tp1,
              lambda_,
              back_prop=False,
              name="generalized_lambda_returns")
    def td_lambda(state_values, rewards, pcontinues, bootstrap_value, lambda_=1, name="BaselineLoss"):
      scoped_values = [state_values, rewards, pcontinues, bootstrap_value]
      with tf.name_scope(name, values=scoped_values):
        discounted_returns = generalized_lambda_returns(
            rewards, pcontinues, state_values, bootstrap_value, lambda_)
        temporal_differences = discounted_returns - state_values
        loss = 0.5 * tf.reduce_sum(
            tf.square(temporal_differences), axis=0, name="l2_loss")
        return LossOutput(
            loss, TDLambdaExtra(
                temporal_differences=temporal_differences,
                discounted_returns=discounted_returns))
    VTraceFromLogitsReturns = collections.namedtuple(
        'VTraceFromLogitsReturns',
        ['vs', 'pg_advantages', 'log_rhos',
         'behaviour_action_log_probs', 'target_action_log_probs'])
    VTraceReturns = collections.namedtuple('VTraceReturns', 'vs pg_advantages')
    def log_probs_from_logits_and_actions(policy_logits, actions):
      policy_logits = tf.convert_to_tensor(policy_logits, dtype=tf.float32)
      actions = tf.convert_to_tensor(actions, dtype=tf.int32)
      policy_logits.shape.assert_has_rank(3)
      actions.shape.assert_has_rank(2)
      return -tf.nn.sparse_softmax_cross_entropy_with_logits(
          logits=policy_logits, labels=actions)
    def vtrace_from_logits(
        behaviour_policy_logits, target_policy_logits, actions,
        discounts, rewards, values, bootstrap_value,
        clip_rho_threshold=1.0, clip_pg_rho_threshold=1.0,
        name='vtrace_from_logits'):
      behaviour_policy_logits = tf.convert_to_tensor(
          behaviour_policy_logits, dtype=tf.float32)
      target_policy_logits = tf.convert_to_tensor(
          target_policy_logits, dtype=tf.float32)
      actions = tf.convert_to_tensor(actions, dtype=tf.int32)
      behaviour_policy_logits.shape.assert_has_rank(3)
      target_policy_logits.shape.assert_has_rank(3)
      actions.shape.assert_has_rank(2)
      with tf.name_scope(name, values=[
          behaviour_policy_logits, target_policy_logits, actions,
          discounts, rewards, values, bootstrap_value]):
        target_action_log_probs = log_probs_from_logits_and_actions(
            target_policy_logits, actions)
        behaviour_action_log_probs = log_probs_from_logits_and_actions(
            behaviour_policy_logits, actions)
        log_rhos = target_action_log_probs - behaviour_action_log_probs
        vtrace_returns = vtrace_from_importance_weights(
            log_rhos=log_rhos,
            discounts=discounts,
            rewards=rewards,
            values=values,
            bootstrap_value=bootstrap_value,
            clip_rho_threshold=clip_rho_threshold,
            clip_pg_rho_threshold=clip_pg_rho_threshold)
        return VTraceFromLogitsReturns(
            log_rhos=log_rhos,
            behaviour_action_log_probs=behaviour_action_log_probs,
            target_action_log_probs=target_action_log_probs,
            **vtrace_returns._asdict()
        )
    def vtrace_from_importance_weights(
        log_rhos, discounts, rewards, values, bootstrap_value,
        clip_rho_threshold=1.0, clip_pg_rho_threshold=1.0,
        name='vtrace_from_importance_weights'):
      log_rhos = tf.convert_to_tensor(log_rhos, dtype=tf.float32)
      discounts = tf.convert_to_tensor(discounts, dtype=tf.float32)
      rewards = tf.convert_to_tensor(rewards, dtype=tf.float32)
      values = tf.convert_to_tensor(values, dtype=tf.float32)
      bootstrap_value = tf.convert_to_tensor(bootstrap_value, dtype=tf.float32)
      if clip_rho_threshold is not None:
        clip_rho_threshold = tf.convert_to_tensor(clip_rho_threshold,
                                                  dtype=tf.float32)
      if clip_pg_rho_threshold is not None:
        clip_pg_rho_threshold = tf.convert_to_tensor(clip_pg_rho_threshold,
                                                     dtype=tf.float32)
      rho_rank = log_rhos.shape.ndims  # Usually 2.
      values.shape.assert_has_rank(rho_rank)
      bootstrap_value.shape.assert_has_rank(rho_rank - 1)
      discounts.shape.assert_has_rank(rho_rank)
      rewards.shape.assert_has_rank(rho_rank)
      if clip_rho_threshold is not None:
        clip_rho_threshold.shape.assert_has_rank(0)
      if clip_pg_rho_threshold is not None:
        clip_pg_rho_threshold.shape.assert_has_rank(0)
      with tf.name_scope(name, values=[
          log_rhos, discounts, rewards, values, bootstrap_value]):
        rhos = tf.exp(log_rhos)
        if clip_rho_threshold is not None:
          clipped_rhos = tf.minimum(clip_rho_threshold, rhos, name='clipped_rhos')
        else:
          clipped_rhos = rhos
        cs = tf.minimum(1.0, rhos, name='cs')
        values_t_plus_1 = tf.concat(
            [values[1:], tf.expand_dims(bootstrap_value, 0)], axis=0)
        deltas = clipped_rhos * (rewards + discounts * values_t_plus_1 - values)
        sequences = (
            tf.reverse(discounts, axis=[0]),
            tf.reverse(cs, axis=[0]),
            tf.reverse(deltas, axis=[0]),
        )
        def scanfunc(acc, sequence_item):
          discount_t, c_t, delta_t = sequence_item
          return delta_t + discount_t * c_t * acc
        initial_values = tf.zeros_like(bootstrap_value)
        vs_minus_v_xs = tf.scan(
            fn=scanfunc,
            elems=sequences,
            initializer=initial_values,
            parallel_iterations=1,
            back_prop=False,
            name='scan')
        vs_minus_v_xs = tf.reverse(vs_minus_v_xs, [0], name='vs_minus_v_xs')
        vs = tf.add(vs_minus_v_xs, values, name='vs')
        vs_t_plus_1 = tf.concat([
            vs[1:], tf.expand_dims(bootstrap_value, 0)], axis=0)
        if clip_pg_rho_threshold is not None:
          clipped_pg_rhos = tf.minimum(clip_pg_rho_threshold, rhos,
                                       name='clipped_pg_rhos')
        else:
          clipped_pg_rhos = rhos
        pg_advantages = (
            clipped_pg_rhos * (rewards + discounts * vs_t_plus_1 - values))
        return VTraceReturns(vs=tf.stop_gradient(vs),
                             pg_advantages=tf.stop_gradient(pg_advantages))
    # --- the program: a DQN-style learner on trfl's losses
    tf.set_random_seed(2)
    rng = np.random.RandomState(0)
    T, B, S, A = 5, 3, 4, 3
    obs_tm1 = tf.placeholder(tf.float32, [None, S]); obs_t = tf.placeholder(tf.float32, [None, S])
    a_tm1 = tf.placeholder(tf.int32, [None]); r_t = tf.placeholder(tf.float32, [None]); pcont_t = tf.placeholder(tf.float32, [None])
    def q_net(x):
      with tf.variable_scope('q', reuse=tf.AUTO_REUSE):
        return tf.layers.dense(tf.layers.dense(x, 8, tf.nn.relu, name='h'), A, name='out')
    def target_net(x):
      with tf.variable_scope('target_q'):
        return tf.layers.dense(tf.layers.dense(x, 8, tf.nn.relu, name='h'), A, name='out')
    q_tm1 = q_net(obs_tm1); q_t_sel = q_net(obs_t); q_t_val = target_net(obs_t)
    loss, extra = qlearning(q_tm1, a_tm1, r_t, pcont_t, q_t_val)
    dloss, dextra = double_qlearning(q_tm1, a_tm1, r_t, pcont_t, q_t_val, q_t_sel)
    print(loss, extra.target, extra.td_error, dloss, dextra.best_action)
    train = tf.train.AdamOptimizer(0.01).minimize(tf.reduce_mean(dloss))
    online = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, 'q/'); target = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, 'target_q')
    sync = tf.group(*[tf.assign(t, o) for o, t in zip(online, target)])
    # sequence losses: qlambda, td_lambda (lambda 1 and 0.8), vtrace
    qs_tm1 = tf.placeholder(tf.float32, [T, B, A]); qs_t = tf.placeholder(tf.float32, [T, B, A])
    as_tm1 = tf.placeholder(tf.int32, [T, B]); rs = tf.placeholder(tf.float32, [T, B]); ps = tf.placeholder(tf.float32, [T, B])
    ql = qlambda(qs_tm1, as_tm1, rs, ps, qs_t, 0.7)
    vals = tf.placeholder(tf.float32, [T, B]); boot = tf.placeholder(tf.float32, [B])
    td1 = td_lambda(vals, rs, ps, boot)
    td8 = td_lambda(vals, rs, ps, boot, lambda_=0.8)
    vt = vtrace_from_logits(qs_tm1, qs_t, as_tm1, ps, rs, vals, boot)
    lens = tf.constant([5, 3, 1])
    masked = scan_discounted_sum(rs, ps, boot, reverse=True, sequence_lengths=lens)
    print(ql.loss, td1.loss, td8.extra.discounted_returns, vt.vs, vt.pg_advantages, masked)
    for bad in [lambda: qlearning(qs_tm1, a_tm1, r_t, pcont_t, q_t_val),
                lambda: batched_index(qs_tm1, a_tm1),
                lambda: td_lambda(vals, rs, ps, vals),
                lambda: vtrace_from_logits(qs_tm1, qs_t, a_tm1, ps, rs, vals, boot)]:
      try:
        bad()
      except ValueError as e:
        print('ValueError:', e)
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      sess.run(sync)
      for step in range(6):
        feed = {obs_tm1: rng.randn(B, S), obs_t: rng.randn(B, S), a_tm1: rng.randint(0, A, B),
                r_t: rng.randn(B), pcont_t: np.full(B, 0.9)}
        l, d, ba, _ = sess.run([loss, dloss, dextra.best_action, train], feed)
        print(step, np.round(l, 5).tolist(), np.round(d, 5).tolist(), ba.tolist())
        if step % 3 == 2:
          sess.run(sync)
      feed = {qs_tm1: rng.randn(T, B, A), qs_t: rng.randn(T, B, A), as_tm1: rng.randint(0, A, (T, B)),
              rs: rng.randn(T, B), ps: np.full((T, B), 0.9, np.float32), vals: rng.randn(T, B), boot: rng.randn(B)}
      for name, t in [('qlambda', ql.loss), ('td1', td1.loss), ('td8', td8.extra.discounted_returns),
                      ('vs', vt.vs), ('pg', vt.pg_advantages), ('rhos', vt.log_rhos), ('masked', masked)]:
        print(name, np.round(sess.run(t, feed), 5).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["trfl_ops"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'mz_prio_dqn': [
        'Tensor("natural_DQN/eval_net/l2/add:0", shape=(?, 3), dtype=float32) Tensor("natural_DQN/loss/Mean:0", shape=(), dtype=float32) natural_DQN/train/RMSProp Tensor("natural_DQN/target_net/l2/add:0", shape=(?, 3), dtype=float32) Tensor("natural_DQN/s_:0", shape=(?, 2), dtype=float32)',
        '[\'natural_DQN/target_net/l1/w1:0\', \'natural_DQN/target_net/l1/b1:0\', \'natural_DQN/target_net/l2/w2:0\', \'natural_DQN/target_net/l2/b2:0\'] [\'natural_DQN/eval_net/l1/w1:0\', \'natural_DQN/eval_net/l1/b1:0\', \'natural_DQN/eval_net/l2/w2:0\', \'natural_DQN/eval_net/l2/b2:0\'] Tensor("natural_DQN/Assign_3:0", shape=(1, 3), dtype=float32_ref)',
        'Tensor("DQN_with_prioritized_replay/eval_net/l2/add:0", shape=(?, 3), dtype=float32) Tensor("DQN_with_prioritized_replay/loss/Mean:0", shape=(), dtype=float32) DQN_with_prioritized_replay/train/RMSProp Tensor("DQN_with_prioritized_replay/target_net/l2/add:0", shape=(?, 3), dtype=float32) Tensor("DQN_with_prioritized_replay/s_:0", shape=(?, 2), dtype=float32)',
        '[\'natural_DQN/target_net/l1/w1:0\', \'natural_DQN/target_net/l1/b1:0\', \'natural_DQN/target_net/l2/w2:0\', \'natural_DQN/target_net/l2/b2:0\', \'DQN_with_prioritized_replay/target_net/l1/w1:0\', \'DQN_with_prioritized_replay/target_net/l1/b1:0\', \'DQN_with_prioritized_replay/target_net/l2/w2:0\', \'DQN_with_prioritized_replay/target_net/l2/b2:0\'] [\'natural_DQN/eval_net/l1/w1:0\', \'natural_DQN/eval_net/l1/b1:0\', \'natural_DQN/eval_net/l2/w2:0\', \'natural_DQN/eval_net/l2/b2:0\', \'DQN_with_prioritized_replay/eval_net/l1/w1:0\', \'DQN_with_prioritized_replay/eval_net/l1/b1:0\', \'DQN_with_prioritized_replay/eval_net/l2/w2:0\', \'DQN_with_prioritized_replay/eval_net/l2/b2:0\'] Tensor("DQN_with_prioritized_replay/Assign_7:0", shape=(1, 3), dtype=float32_ref)',
        'episode  0  finished 8',
        'episode  1  finished 16',
        '',
        'target_params_replaced',
        '',
        '',
        'target_params_replaced',
        '',
        'episode  2  finished 24',
        'episode  0  finished 8',
        'episode  1  finished 16',
        '',
        'target_params_replaced',
        '',
        '',
        'target_params_replaced',
        '',
        'episode  2  finished 24',
        "['14.93214', '0.37686', '5.50648', '5.22451', '4.88959', '4.74059', '0.11006', '0.21997']",
        "['0.85003', '8.89656', '8.99670', '12.61602', '10.12384', '0.60714', '3.64179', '3.63899']",
        '[14.73457, 7.23231, 7.50227, 3.52872, 3.70359, 3.57926, 3.92301, 1.52872, 2.0, 2.0, 1.70359, 1.57926, 2.0, 2.0, 1.92301, 0.52872, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.70359, 0.57926, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.92301]',
    ],
    'trfl_ops': [
        'Tensor("QLearning/mul:0", shape=(?,), dtype=float32) Tensor("QLearning/target/StopGradient:0", shape=(?,), dtype=float32) Tensor("QLearning/sub:0", shape=(?,), dtype=float32) Tensor("DoubleQLearning/mul_1:0", shape=(?,), dtype=float32) Tensor("DoubleQLearning/ArgMax:0", shape=(?,), dtype=int32)',
        'Tensor("GeneralizedQLambda/mul:0", shape=(5, 3), dtype=float32) Tensor("BaselineLoss/mul:0", shape=(3,), dtype=float32) Tensor("BaselineLoss_1/generalized_lambda_returns/generalized_lambda_returns/scan_discounted_sum/ReverseV2_2:0", shape=(5, 3), dtype=float32) Tensor("vtrace_from_logits/vtrace_from_importance_weights/StopGradient:0", shape=(5, 3), dtype=float32) Tensor("vtrace_from_logits/vtrace_from_importance_weights/StopGradient_1:0", shape=(5, 3), dtype=float32) Tensor("scan_discounted_sum/ReverseSequence_2:0", shape=(5, 3), dtype=float32)',
        'ValueError: QLearning: Error in rank and/or compatibility check, Shape (5, 3, 3) must have rank 2',
        'ValueError: Shapes of "values" and "indices" do not correspond to minibatch (2-D) or sequence-minibatch (3-D) indexing',
        'ValueError: Shape (5, 3) must have rank 1',
        'ValueError: Shape (?,) must have rank 2',
        '0 [0.28547999262809753, 0.05838000029325485, 6.008319854736328] [0.28547999262809753, 0.05838000029325485, 6.008319854736328] [1, 1, 1]',
        '1 [0.0013200000394135714, 1.9939299821853638, 1.3894000053405762] [0.0013200000394135714, 1.9939299821853638, 1.3894000053405762] [0, 0, 0]',
        '2 [2.270699977874756, 1.7721500396728516, 0.37318000197410583] [2.270699977874756, 1.7721500396728516, 0.37318000197410583] [1, 1, 0]',
        '3 [3.468950033187866, 1.8288300037384033, 1.330489993095398] [3.468950033187866, 1.8288300037384033, 1.330489993095398] [1, 0, 1]',
        '4 [0.200080007314682, 0.0005600000149570405, 0.5161700248718262] [0.200080007314682, 0.0005600000149570405, 0.5161700248718262] [1, 1, 1]',
        '5 [1.9803999662399292, 0.14440999925136566, 0.8298100233078003] [1.9803999662399292, 0.14440999925136566, 0.8298100233078003] [0, 1, 2]',
        'qlambda [[0.024639999493956566, 1.464050054550171, 0.01336000021547079], [0.12696999311447144, 0.7965700030326843, 1.016759991645813], [2.9433400630950928, 5.754169940948486, 2.6080501079559326], [0.18434999883174896, 0.08516000211238861, 0.767769992351532], [1.876960039138794, 0.03531000018119812, 0.0015300000086426735]]',
        'td1 [6.663949966430664, 13.951000213623047, 2.3154399394989014]',
        'td8 [[-1.4339599609375, -1.0547599792480469, 1.0186400413513184], [0.8706899881362915, -2.11122989654541, 0.615559995174408], [0.9342700242996216, -2.2391700744628906, 0.4168800115585327], [0.5709099769592285, 0.41541001200675964, -1.9805200099945068], [0.3713900148868561, 0.9071000218391418, -1.9427299499511719]]',
        'vs [[-2.225800037384033, -0.6968200206756592, 0.7070299983024597], [-0.32168999314308167, -1.6023800373077393, 0.12479999661445618], [1.0082600116729736, -1.4349900484085083, 0.03044000081717968], [0.6769099831581116, 1.1750199794769287, -2.1394100189208984], [0.0960099995136261, 2.0233700275421143, -1.9427299499511719]]',
        'pg [[-4.290299892425537, -0.5862799882888794, -0.31314000487327576], [0.37035998702049255, -3.1387600898742676, -0.16155000030994415], [0.39941999316215515, -0.389739990234375, -1.1806999444961548], [-0.012910000048577785, -0.12682999670505524, -1.5113199949264526], [0.5770400166511536, -0.28053998947143555, -0.8827199935913086]]',
        'rhos [[1.5098199844360352, -0.667460024356842, -0.20388999581336975], [-1.5167800188064575, 0.7618600130081177, 0.8032799959182739], [0.67194002866745, -0.5415300130844116, 0.2367900013923645], [-2.8047099113464355, -0.04916999861598015, 0.4682599902153015], [-0.3901599943637848, -1.6052199602127075, 2.3531100749969482]]',
        'masked [[-1.005429983139038, -1.5080300569534302, 0.611840009689331], [1.0342799425125122, -1.8853399753570557, 0.0], [1.050950050354004, -1.7493900060653687, 0.0], [0.72434002161026, -0.0, 0.0], [0.3713900148868561, -0.0, 0.0]]',
    ],
}
