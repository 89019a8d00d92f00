"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
awjuliani's A3C (slim convolutions, an LSTM, a worker thread) and keras-rl's DQN agent on tf.keras
(dueling Lambda heads, a cloned target model, soft target updates riding on the optimizer's)."""
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



def test_awj_a3c(capsys):
    # awjuliani/DeepRL-Agents A3C-Doom.ipynb (VizDoom replaced by a tiny NumPy game, frames 48x48, layers 32 wide)
    # awjuliani/DeepRL-Agents A3C-Doom.ipynb (helper functions, AC_Network, Worker, the threaded main cell);
    # VizDoom replaced by a tiny deterministic NumPy game; frames 48x48 and layers narrower; one worker thread
    import threading, tempfile, os
    from time import sleep
    slim = tf.contrib.slim
    H = 32  # 256 in the notebook
    np.random.seed(0); tf.set_random_seed(0)
    class FakeGame:
        """VizDoom's DoomGame reduced to what the Worker calls."""
        class _State:
            def __init__(self, buf): self.screen_buffer = buf
        def __init__(self): self.t = 0; self.pos = 0
        def new_episode(self): self.t = 0; self.pos = 0
        def get_state(self):
            img = np.zeros((68, 108), np.uint8); img[20:40, 40 + 3 * self.pos:50 + 3 * self.pos] = 200 - 10 * self.t
            return FakeGame._State(img)
        def make_action(self, act):
            self.t += 1; self.pos += (1 if act[1] else 0) - (1 if act[0] else 0)
            return 100.0 if (act[2] and self.pos == 2) else -1.0
        def is_episode_finished(self): return self.t >= 7
    def update_target_graph(from_scope,to_scope):
        from_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, from_scope)
        to_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, to_scope)
        op_holder = []
        for from_var,to_var in zip(from_vars,to_vars):
            op_holder.append(to_var.assign(from_var))
        return op_holder
    def process_frame(frame):
        s = frame[10:-10,30:-30]
        s = s[::1, ::1][:48, :48]  # scipy.misc.imresize(s,[84,84]) in the notebook (gone from SciPy)
        s = np.reshape(s,[np.prod(s.shape)]) / 255.0
        return s
    def discount(x, gamma):
        return lfilter_discount(x, gamma)
    def normalized_columns_initializer(std=1.0):
        def _initializer(shape, dtype=None, partition_info=None):
            out = np.random.randn(*shape).astype(np.float32)
            out *= std / np.sqrt(np.square(out).sum(axis=0, keepdims=True))
            return tf.constant(out)
        return _initializer
    class AC_Network():
        def __init__(self,s_size,a_size,scope,trainer):
            with tf.variable_scope(scope):
                self.inputs = tf.placeholder(shape=[None,s_size],dtype=tf.float32)
                self.imageIn = tf.reshape(self.inputs,shape=[-1,48,48,1])
                self.conv1 = slim.conv2d(activation_fn=tf.nn.elu,
                    inputs=self.imageIn,num_outputs=16,
                    kernel_size=[8,8],stride=[4,4],padding='VALID')
                self.conv2 = slim.conv2d(activation_fn=tf.nn.elu,
                    inputs=self.conv1,num_outputs=32,
                    kernel_size=[4,4],stride=[2,2],padding='VALID')
                hidden = slim.fully_connected(slim.flatten(self.conv2),H,activation_fn=tf.nn.elu)
                lstm_cell = tf.contrib.rnn.BasicLSTMCell(H,state_is_tuple=True)
                c_init = np.zeros((1, lstm_cell.state_size.c), np.float32)
                h_init = np.zeros((1, lstm_cell.state_size.h), np.float32)
                self.state_init = [c_init, h_init]
                c_in = tf.placeholder(tf.float32, [1, lstm_cell.state_size.c])
                h_in = tf.placeholder(tf.float32, [1, lstm_cell.state_size.h])
                self.state_in = (c_in, h_in)
                rnn_in = tf.expand_dims(hidden, [0])
                step_size = tf.shape(self.imageIn)[:1]
                state_in = tf.contrib.rnn.LSTMStateTuple(c_in, h_in)
                lstm_outputs, lstm_state = tf.nn.dynamic_rnn(
                    lstm_cell, rnn_in, initial_state=state_in, sequence_length=step_size,
                    time_major=False)
                lstm_c, lstm_h = lstm_state
                self.state_out = (lstm_c[:1, :], lstm_h[:1, :])
                rnn_out = tf.reshape(lstm_outputs, [-1, H])
                self.policy = slim.fully_connected(rnn_out,a_size,
                    activation_fn=tf.nn.softmax,
                    weights_initializer=normalized_columns_initializer(0.01),
                    biases_initializer=None)
                self.value = slim.fully_connected(rnn_out,1,
                    activation_fn=None,
                    weights_initializer=normalized_columns_initializer(1.0),
                    biases_initializer=None)
                if scope != 'global':
                    self.actions = tf.placeholder(shape=[None],dtype=tf.int32)
                    self.actions_onehot = tf.one_hot(self.actions,a_size,dtype=tf.float32)
                    self.target_v = tf.placeholder(shape=[None],dtype=tf.float32)
                    self.advantages = tf.placeholder(shape=[None],dtype=tf.float32)
                    self.responsible_outputs = tf.reduce_sum(self.policy * self.actions_onehot, [1])
                    self.value_loss = 0.5 * tf.reduce_sum(tf.square(self.target_v - tf.reshape(self.value,[-1])))
                    self.entropy = - tf.reduce_sum(self.policy * tf.log(self.policy))
                    self.policy_loss = -tf.reduce_sum(tf.log(self.responsible_outputs)*self.advantages)
                    self.loss = 0.5 * self.value_loss + self.policy_loss - self.entropy * 0.01
                    local_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope)
                    self.gradients = tf.gradients(self.loss,local_vars)
                    self.var_norms = tf.global_norm(local_vars)
                    grads,self.grad_norms = tf.clip_by_global_norm(self.gradients,40.0)
                    global_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, 'global')
                    self.apply_grads = trainer.apply_gradients(zip(grads,global_vars))
                    print(self.conv1, self.conv2, hidden, lstm_outputs, self.state_out, self.policy, self.value)
                    print([v.name for v in local_vars], self.apply_grads.name, self.grad_norms, self.var_norms)
    class Worker():
        def __init__(self,game,name,s_size,a_size,trainer,model_path,global_episodes):
            self.name = "worker_" + str(name)
            self.number = name
            self.model_path = model_path
            self.trainer = trainer
            self.global_episodes = global_episodes
            self.increment = self.global_episodes.assign_add(1)
            self.episode_rewards = []
            self.episode_lengths = []
            self.episode_mean_values = []
            self.summary_writer = tf.summary.FileWriter(os.path.join(model_path, "train_"+str(self.number)))
            self.local_AC = AC_Network(s_size,a_size,self.name,trainer)
            self.update_local_ops = update_target_graph('global',self.name)
            self.actions = self.actions = np.identity(a_size,dtype=bool).tolist()
            self.env = game
        def train(self,rollout,sess,gamma,bootstrap_value):
            rollout = np.array(rollout, dtype=object)  # NumPy 2 needs dtype=object for the ragged rows
            observations = rollout[:,0]
            actions = rollout[:,1]
            rewards = rollout[:,2]
            next_observations = rollout[:,3]
            values = rollout[:,5]
            self.rewards_plus = np.asarray(rewards.tolist() + [bootstrap_value])
            discounted_rewards = discount(self.rewards_plus,gamma)[:-1]
            self.value_plus = np.asarray(values.tolist() + [bootstrap_value])
            advantages = rewards + gamma * self.value_plus[1:] - self.value_plus[:-1]
            advantages = discount(advantages.astype(np.float64),gamma)  # SciPy 1.1x filters no object arrays
            feed_dict = {self.local_AC.target_v:discounted_rewards,
                self.local_AC.inputs:np.vstack(observations),
                self.local_AC.actions:actions,
                self.local_AC.advantages:advantages,
                self.local_AC.state_in[0]:self.batch_rnn_state[0],
                self.local_AC.state_in[1]:self.batch_rnn_state[1]}
            v_l,p_l,e_l,g_n,v_n, self.batch_rnn_state,_ = sess.run([self.local_AC.value_loss,
                self.local_AC.policy_loss,
                self.local_AC.entropy,
                self.local_AC.grad_norms,
                self.local_AC.var_norms,
                self.local_AC.state_out,
                self.local_AC.apply_grads],
                feed_dict=feed_dict)
            return v_l / len(rollout),p_l / len(rollout),e_l / len(rollout), g_n,v_n
        def work(self,max_episode_length,gamma,sess,coord,saver):
            episode_count = sess.run(self.global_episodes)
            total_steps = 0
            print ("Starting worker " + str(self.number))
            with sess.as_default(), sess.graph.as_default():
                while not coord.should_stop():
                    sess.run(self.update_local_ops)
                    episode_buffer = []
                    episode_values = []
                    episode_frames = []
                    episode_reward = 0
                    episode_step_count = 0
                    d = False
                    self.env.new_episode()
                    s = self.env.get_state().screen_buffer
                    episode_frames.append(s)
                    s = process_frame(s)
                    rnn_state = self.local_AC.state_init
                    self.batch_rnn_state = rnn_state
                    while self.env.is_episode_finished() == False:
                        a_dist,v,rnn_state = sess.run([self.local_AC.policy,self.local_AC.value,self.local_AC.state_out],
                            feed_dict={self.local_AC.inputs:[s],
                            self.local_AC.state_in[0]:rnn_state[0],
                            self.local_AC.state_in[1]:rnn_state[1]})
                        a = np.random.choice(a_dist[0],p=a_dist[0])
                        a = np.argmax(a_dist == a)
                        r = self.env.make_action(self.actions[a]) / 100.0
                        d = self.env.is_episode_finished()
                        if d == False:
                            s1 = self.env.get_state().screen_buffer
                            episode_frames.append(s1)
                            s1 = process_frame(s1)
                        else:
                            s1 = s
                        episode_buffer.append([s,a,r,s1,d,v[0,0]])
                        episode_values.append(v[0,0])
                        episode_reward += r
                        s = s1
                        total_steps += 1
                        episode_step_count += 1
                        if len(episode_buffer) == 4 and d != True and episode_step_count != max_episode_length - 1:
                            v1 = sess.run(self.local_AC.value,
                                feed_dict={self.local_AC.inputs:[s],
                                self.local_AC.state_in[0]:rnn_state[0],
                                self.local_AC.state_in[1]:rnn_state[1]})[0,0]
                            v_l,p_l,e_l,g_n,v_n = self.train(episode_buffer,sess,gamma,v1)
                            episode_buffer = []
                            sess.run(self.update_local_ops)
                        if d == True:
                            break
                    self.episode_rewards.append(episode_reward)
                    self.episode_lengths.append(episode_step_count)
                    self.episode_mean_values.append(np.mean(episode_values))
                    if len(episode_buffer) != 0:
                        v_l,p_l,e_l,g_n,v_n = self.train(episode_buffer,sess,gamma,0.0)
                    print(episode_count, '%.4f %.5f %.5f %.5f %.5f %.5f' % (episode_reward, v_l, p_l, e_l, g_n, v_n))
                    if episode_count % 2 == 0 and episode_count != 0:
                        if episode_count % 4 == 0 and self.name == 'worker_0':
                            saver.save(sess,self.model_path+'/model-'+str(episode_count)+'.cptk')
                            print ("Saved Model")
                        mean_reward = np.mean(self.episode_rewards[-5:])
                        mean_length = np.mean(self.episode_lengths[-5:])
                        mean_value = np.mean(self.episode_mean_values[-5:])
                        summary = tf.Summary()
                        summary.value.add(tag='Perf/Reward', simple_value=float(mean_reward))
                        summary.value.add(tag='Perf/Length', simple_value=float(mean_length))
                        summary.value.add(tag='Perf/Value', simple_value=float(mean_value))
                        summary.value.add(tag='Losses/Value Loss', simple_value=float(v_l))
                        summary.value.add(tag='Losses/Grad Norm', simple_value=float(g_n))
                        self.summary_writer.add_summary(summary, episode_count)
                        self.summary_writer.flush()
                    if self.name == 'worker_0':
                        sess.run(self.increment)
                    episode_count += 1
                    if episode_count == 5:
                        coord.request_stop()
    max_episode_length = 300
    gamma = .99
    s_size = 48 * 48
    a_size = 3
    model_path = tempfile.mkdtemp()
    tf.reset_default_graph()
    tf.set_random_seed(0)
    with tf.device("/cpu:0"):
        global_episodes = tf.Variable(0,dtype=tf.int32,name='global_episodes',trainable=False)
        trainer = tf.train.AdamOptimizer(learning_rate=1e-4)
        master_network = AC_Network(s_size,a_size,'global',None) # Generate global network
        num_workers = 1
        workers = []
        for i in range(num_workers):
            workers.append(Worker(FakeGame(),i,s_size,a_size,trainer,model_path,global_episodes))
        saver = tf.train.Saver(max_to_keep=5)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        sess.run(tf.global_variables_initializer())
        worker_threads = []
        for worker in workers:
            worker_work = lambda: worker.work(max_episode_length,gamma,sess,coord,saver)
            t = threading.Thread(target=(worker_work))
            t.start()
            sleep(0.1)
            worker_threads.append(t)
        coord.join(worker_threads)
        print(sess.run(global_episodes), sorted(os.listdir(model_path)))
        print(tf.train.get_checkpoint_state(model_path).all_model_checkpoint_paths[-1][len(model_path):])
    tf.reset_default_graph()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["awj_a3c"], 0)


def test_kerasrl_dqn(capsys):
    # keras-rl/keras-rl rl/agents/dqn.py, rl/util.py in their tf.keras form (inarikami/keras-rl2); the memory a list
    # keras-rl (keras-rl2 for tf.keras: inarikami/keras-rl2) rl/agents/dqn.py DQNAgent.__init__/compile/backward,
    # rl/util.py clone_model, get_soft_target_model_updates, huber_loss, AdditionalUpdatesOptimizer,
    # rl/policy.py EpsGreedyQPolicy and examples/duel_dqn_cartpole.py's model; the memory reduced to a list
    model_from_config, Sequential, Model = tf.keras.models.model_from_config, tf.keras.models.Sequential, tf.keras.models.Model
    optimizers = tf.keras.optimizers
    K = tf.keras.backend
    Lambda, Input, Layer, Dense, Activation, Flatten = (tf.keras.layers.Lambda, tf.keras.layers.Input, tf.keras.layers.Layer,
                                                        tf.keras.layers.Dense, tf.keras.layers.Activation, tf.keras.layers.Flatten)
    np.random.seed(123); tf.set_random_seed(123)
    def clone_model(model, custom_objects={}):
        config = {
            'class_name': model.__class__.__name__,
            'config': model.get_config(),
        }
        clone = model_from_config(config, custom_objects=custom_objects)
        clone.set_weights(model.get_weights())
        return clone
    def get_soft_target_model_updates(target, source, tau):
        target_weights = target.trainable_weights + sum([l.non_trainable_weights for l in target.layers], [])
        source_weights = source.trainable_weights + sum([l.non_trainable_weights for l in source.layers], [])
        assert len(target_weights) == len(source_weights)
        updates = []
        for tw, sw in zip(target_weights, source_weights):
            updates.append((tw, tau * sw + (1. - tau) * tw))
        return updates
    def huber_loss(y_true, y_pred, clip_value):
        assert clip_value > 0.
        x = y_true - y_pred
        if np.isinf(clip_value):
            return .5 * K.square(x)
        condition = K.abs(x) < clip_value
        squared_loss = .5 * K.square(x)
        linear_loss = clip_value * (K.abs(x) - .5 * clip_value)
        if hasattr(tf, 'select'):
            return tf.select(condition, squared_loss, linear_loss)  # condition, true, false
        else:
            return tf.where(condition, squared_loss, linear_loss)  # condition, true, false
    class AdditionalUpdatesOptimizer(optimizers.Optimizer):
        def __init__(self, optimizer, additional_updates):
            super().__init__(optimizer._name)
            self.optimizer = optimizer
            self.additional_updates = additional_updates
        def get_updates(self, params, loss):
            updates = self.optimizer.get_updates(params=params, loss=loss)
            updates += self.additional_updates
            self.updates = updates
            return self.updates
        def get_config(self):
            return self.optimizer.get_config()
    def mean_q(y_true, y_pred):
        return K.mean(K.max(y_pred, axis=-1))
    class EpsGreedyQPolicy:
        def __init__(self, eps=.1):
            self.eps = eps
        def select_action(self, q_values):
            assert q_values.ndim == 1
            nb_actions = q_values.shape[0]
            if np.random.uniform() < self.eps:
                action = np.random.randint(0, nb_actions)
            else:
                action = np.argmax(q_values)
            return action
    class DQNAgent:
        def __init__(self, model, nb_actions, policy=None, enable_double_dqn=True, enable_dueling_network=False,
                     dueling_type='avg', gamma=.99, batch_size=32, nb_steps_warmup=1000, train_interval=1,
                     target_model_update=10000, delta_clip=np.inf, custom_model_objects={}):
            if target_model_update >= 1:
                target_model_update = int(target_model_update)
            else:
                target_model_update = float(target_model_update)
            self.nb_actions, self.gamma, self.batch_size = nb_actions, gamma, batch_size
            self.nb_steps_warmup, self.train_interval = nb_steps_warmup, train_interval
            self.target_model_update, self.delta_clip = target_model_update, delta_clip
            self.custom_model_objects = custom_model_objects
            if isinstance(model.output, list) and len(model.output) > 1:  # (TF 1.15's Tensor.__len__ raises)
                raise ValueError('Model "{}" has more than one output. DQN expects a model that has a single output.'.format(model))
            if model.output.shape.as_list() != [None, self.nb_actions]:
                raise ValueError('Model output "{}" has invalid shape. DQN expects a model that has one dimension for each action, in this case {}.'.format(model.output, self.nb_actions))
            self.enable_double_dqn = enable_double_dqn
            self.enable_dueling_network = enable_dueling_network
            self.dueling_type = dueling_type
            if self.enable_dueling_network:
                layer = model.layers[-2]
                nb_action = model.output.shape.as_list()[-1]
                y = Dense(nb_action + 1, activation='linear')(layer.output)
                if self.dueling_type == 'avg':
                    outputlayer = Lambda(lambda a: K.expand_dims(a[:, 0], -1) + a[:, 1:] - K.mean(a[:, 1:], axis=1, keepdims=True), output_shape=(nb_action,))(y)
                elif self.dueling_type == 'max':
                    outputlayer = Lambda(lambda a: K.expand_dims(a[:, 0], -1) + a[:, 1:] - K.max(a[:, 1:], axis=1, keepdims=True), output_shape=(nb_action,))(y)
                elif self.dueling_type == 'naive':
                    outputlayer = Lambda(lambda a: K.expand_dims(a[:, 0], -1) + a[:, 1:], output_shape=(nb_action,))(y)
                model = Model(inputs=model.input, outputs=outputlayer)
            self.model = model
            self.policy = EpsGreedyQPolicy() if policy is None else policy
            self.step = 0
            self.processor = None
        def compile(self, optimizer, metrics=[]):
            metrics += [mean_q]  # register default metrics
            self.target_model = clone_model(self.model, self.custom_model_objects)
            self.target_model.compile(optimizer='sgd', loss='mse')
            self.model.compile(optimizer='sgd', loss='mse')
            if self.target_model_update < 1.:
                updates = get_soft_target_model_updates(self.target_model, self.model, self.target_model_update)
                optimizer = AdditionalUpdatesOptimizer(optimizer, updates)
            def clipped_masked_error(args):
                y_true, y_pred, mask = args
                loss = huber_loss(y_true, y_pred, self.delta_clip)
                loss *= mask  # apply element-wise mask
                return K.sum(loss, axis=-1)
            y_pred = self.model.output
            y_true = Input(name='y_true', shape=(self.nb_actions,))
            mask = Input(name='mask', shape=(self.nb_actions,))
            loss_out = Lambda(clipped_masked_error, output_shape=(1,), name='loss')([y_true, y_pred, mask])
            ins = [self.model.input] if type(self.model.input) is not list else self.model.input
            trainable_model = Model(inputs=ins + [y_true, mask], outputs=[loss_out, y_pred])
            assert len(trainable_model.output_names) == 2
            combined_metrics = {trainable_model.output_names[1]: metrics}
            losses = [
                lambda y_true, y_pred: y_pred,  # loss is computed in Lambda layer
                lambda y_true, y_pred: K.zeros_like(y_pred),  # we only include this for the metrics
            ]
            trainable_model.compile(optimizer=optimizer, loss=losses, metrics=combined_metrics)
            self.trainable_model = trainable_model
            self.compiled = True
            print(trainable_model.output_names, [l.name for l in trainable_model.layers])
            print([w.name for w in self.target_model.weights])
        def update_target_model_hard(self):
            self.target_model.set_weights(self.model.get_weights())
        def process_state_batch(self, batch):
            return np.array(batch)
        def compute_q_values(self, state):
            q_values = self.model.predict_on_batch(self.process_state_batch([state])).flatten()
            assert q_values.shape == (self.nb_actions,)
            return q_values
        def train_batch(self, experiences):
            state0_batch = []
            reward_batch = []
            action_batch = []
            terminal1_batch = []
            state1_batch = []
            for e in experiences:
                state0_batch.append(e[0])
                state1_batch.append(e[4])
                reward_batch.append(e[2])
                action_batch.append(e[1])
                terminal1_batch.append(0. if e[3] else 1.)
            state0_batch = self.process_state_batch(state0_batch)
            state1_batch = self.process_state_batch(state1_batch)
            terminal1_batch = np.array(terminal1_batch)
            reward_batch = np.array(reward_batch)
            if self.enable_double_dqn:
                q_values = self.model.predict_on_batch(state1_batch)
                actions = np.argmax(q_values, axis=1)
                target_q_values = self.target_model.predict_on_batch(state1_batch)
                q_batch = target_q_values[range(self.batch_size), actions]
            else:
                target_q_values = self.target_model.predict_on_batch(state1_batch)
                q_batch = np.max(target_q_values, axis=1).flatten()
            targets = np.zeros((self.batch_size, self.nb_actions))
            dummy_targets = np.zeros((self.batch_size,))
            masks = np.zeros((self.batch_size, self.nb_actions))
            discounted_reward_batch = self.gamma * q_batch
            discounted_reward_batch *= terminal1_batch
            Rs = reward_batch + discounted_reward_batch
            for idx, (target, mask, R, action) in enumerate(zip(targets, masks, Rs, action_batch)):
                target[action] = R  # update action with estimated accumulated reward
                dummy_targets[idx] = R
                mask[action] = 1.  # enable loss for this specific action
            targets = np.array(targets).astype('float32')
            masks = np.array(masks).astype('float32')
            ins = [state0_batch]
            metrics = self.trainable_model.train_on_batch(ins + [targets, masks], [dummy_targets, targets])
            metrics = [metric for idx, metric in enumerate(metrics) if idx not in (1, 2)]  # throw away individual losses
            return metrics
    for dueling, tmu, clip in [('avg', 1e-2, np.inf), ('max', 3, 1.0)]:
        K.clear_session()
        tf.set_random_seed(1)
        env = FakeEnv(obs_dim=4, act_dim=2, discrete=True, ep_len=6)
        nb_actions = env.action_space.n
        model = Sequential()
        model.add(Flatten(input_shape=(1,) + env.observation_space.shape))
        model.add(Dense(8))
        model.add(Activation('relu'))
        model.add(Dense(nb_actions, activation='linear'))
        dqn = DQNAgent(model=model, nb_actions=nb_actions, nb_steps_warmup=6, enable_dueling_network=True,
                       dueling_type=dueling, target_model_update=tmu, batch_size=4, delta_clip=clip)
        dqn.compile(tf.keras.optimizers.Adam(lr=1e-3), metrics=['mae'])
        print(dqn.trainable_model.metrics_names)
        memory = []
        obs = env.reset()
        for step in range(1, 17):
            dqn.step = step
            state = [obs]  # window_length 1
            action = dqn.policy.select_action(dqn.compute_q_values(state))
            obs2, r, done, _ = env.step(action)
            memory.append(([obs], action, r, done, [obs2]))
            obs = env.reset() if done else obs2
            if step > dqn.nb_steps_warmup:
                idx = np.random.randint(0, len(memory), dqn.batch_size)
                m = dqn.train_batch([memory[i] for i in idx])
                print(step, action, ['%.5f' % v for v in m])
            if dqn.target_model_update >= 1 and step % dqn.target_model_update == 0:
                dqn.update_target_model_hard()
        print(np.round(dqn.target_model.get_weights()[-1], 5).tolist())
    K.clear_session()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["kerasrl_dqn"], 0)


def test_keras_updates(capsys):
    # keras-rl's AdditionalUpdatesOptimizer pattern alone: TF 1.15's Keras calls get_updates(params=, loss=)
    # by keyword and makes an assignment of each (variable, value) pair it returns
    K = tf.keras.backend
    K.clear_session()  # (a graph as Keras leaves it after a clear: the test is not the process's first)
    tf.set_random_seed(0)
    class Wrapped(tf.keras.optimizers.Optimizer):
        # a wrapper whose get_updates takes (params, loss), as Keras 2.x's base class orders them
        def __init__(self, opt, extra):
            super().__init__(opt._name)
            self.opt, self.extra = opt, extra
        def get_updates(self, params, loss):
            return self.opt.get_updates(params=params, loss=loss) + self.extra
        def get_config(self):
            return self.opt.get_config()
    x = tf.keras.layers.Input((2,))
    model = tf.keras.models.Model(x, tf.keras.layers.Dense(1, kernel_initializer='ones')(x))
    shadow = K.variable(np.zeros((2, 1), np.float32), name='shadow')
    model.compile(Wrapped(tf.keras.optimizers.SGD(0.1), [(shadow, 0.5 * shadow + 0.5 * model.weights[0])]), 'mse')
    for i in range(3):
        loss = model.train_on_batch(np.array([[1., 2.]], np.float32), np.array([[1.]], np.float32))
        print(i, round(float(loss), 5), K.get_value(shadow).ravel().round(5).tolist(), K.get_value(model.weights[0]).ravel().round(5).tolist())
    K.clear_session()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["keras_updates"], 0)


@pytest.mark.usefixtures("fresh_graph")
def test_keras_step_op(capsys):
    # what a tf.keras optimizer's minimize and get_updates return, printed (keras-rl prints its updates):
    # OptimizerV2's iterations.assign_add(1).op, the AssignAddVariableOp itself
    w = tf.Variable([1.0, 2.0], use_resource=True)
    for opt in (tf.keras.optimizers.Adam(0.1), tf.keras.optimizers.SGD(0.1, momentum=0.9), tf.keras.optimizers.RMSprop(0.1)):
        t = opt.minimize(lambda: tf.reduce_sum(w * w), var_list=[w])
        print(t.name, t.type)
    x = tf.keras.layers.Input((2,)); m = tf.keras.models.Model(x, tf.keras.layers.Dense(1)(x))
    print(tf.keras.optimizers.SGD().get_updates(loss=tf.reduce_sum(m.output), params=m.trainable_weights))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for i in range(2):
            s.run(t)
            print(s.run(w).round(5).tolist())
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["keras_step_op"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'awj_a3c': [
        'Tensor("worker_0/Conv/Elu:0", shape=(?, 11, 11, 16), dtype=float32, device=/device:CPU:0) Tensor("worker_0/Conv_1/Elu:0", shape=(?, 4, 4, 32), dtype=float32, device=/device:CPU:0) Tensor("worker_0/fully_connected/Elu:0", shape=(?, 32), dtype=float32, device=/device:CPU:0) Tensor("worker_0/rnn/transpose_1:0", shape=(1, ?, 32), dtype=float32, device=/device:CPU:0) (<tf.Tensor \'worker_0/strided_slice_1:0\' shape=(1, 32) dtype=float32>, <tf.Tensor \'worker_0/strided_slice_2:0\' shape=(1, 32) dtype=float32>) Tensor("worker_0/fully_connected_1/Softmax:0", shape=(?, 3), dtype=float32, device=/device:CPU:0) Tensor("worker_0/fully_connected_2/MatMul:0", shape=(?, 1), dtype=float32, device=/device:CPU:0)',
        '[\'worker_0/Conv/weights:0\', \'worker_0/Conv/biases:0\', \'worker_0/Conv_1/weights:0\', \'worker_0/Conv_1/biases:0\', \'worker_0/fully_connected/weights:0\', \'worker_0/fully_connected/biases:0\', \'worker_0/rnn/basic_lstm_cell/kernel:0\', \'worker_0/rnn/basic_lstm_cell/bias:0\', \'worker_0/fully_connected_1/weights:0\', \'worker_0/fully_connected_2/weights:0\'] worker_0/Adam Tensor("worker_0/global_norm_1/global_norm:0", shape=(), dtype=float32, device=/device:CPU:0) Tensor("worker_0/global_norm/global_norm:0", shape=(), dtype=float32, device=/device:CPU:0)',
        'Starting worker 0',
        '0 -0.0700 0.00125 -0.05429 1.09861 0.05770 12.93542',
        '1 -0.0700 0.00015 -0.01496 1.09861 0.01279 12.93545',
        '2 -0.0700 0.00023 -0.02156 1.09861 0.02005 12.93555',
        '3 -0.0700 0.00040 0.02786 1.09861 0.03647 12.93563',
        '4 2.9600 2.35670 2.21456 1.09861 2.21736 12.93567',
        'Saved Model',
        "5 ['checkpoint', 'model-4.cptk.data-00000-of-00001', 'model-4.cptk.index', 'model-4.cptk.meta', 'train_0']",
        '/model-4.cptk',
    ],
    'kerasrl_dqn': [
        "['loss', 'lambda'] ['flatten_input', 'flatten', 'dense', 'activation', 'dense_2', 'y_true', 'lambda', 'mask', 'loss']",
        "['dense_3/kernel:0', 'dense_3/bias:0', 'dense_2_1/kernel:0', 'dense_2_1/bias:0']",
        "['loss', 'loss_loss', 'lambda_loss', 'lambda_mean_absolute_error', 'lambda_mean_q']",
        "7 1 ['1.81425', '1.08303', '-0.08393']",
        "8 1 ['1.85328', '1.07858', '0.11370']",
        "9 1 ['2.88899', '1.36887', '0.27858']",
        "10 1 ['2.19697', '1.14498', '0.43167']",
        "11 1 ['1.77108', '1.05791', '0.16024']",
        "12 1 ['4.17398', '1.51582', '0.36275']",
        "13 1 ['3.57819', '1.35821', '0.23997']",
        "14 1 ['6.13661', '1.87267', '0.57405']",
        "15 1 ['2.03602', '1.12597', '0.17076']",
        "16 1 ['5.52251', '1.71946', '0.36261']",
        '[-0.0004400000034365803, 0.0004400000034365803, -0.0004400000034365803]',
        "['loss', 'lambda'] ['flatten_input', 'flatten', 'dense', 'activation', 'dense_2', 'y_true', 'lambda', 'mask', 'loss']",
        "['dense_3/kernel:0', 'dense_3/bias:0', 'dense_2_1/kernel:0', 'dense_2_1/bias:0']",
        "['loss', 'loss_loss', 'lambda_loss', 'lambda_mean_absolute_error', 'lambda_mean_q']",
        "7 1 ['1.94618', '1.54437', '0.12855']",
        "8 1 ['1.67281', '1.35071', '-0.01013']",
        "9 1 ['1.94362', '1.53109', '0.07390']",
        "10 1 ['1.53949', '1.25788', '-0.03852']",
        "11 1 ['2.05276', '1.63986', '0.11919']",
        "12 1 ['2.03351', '1.65142', '0.15221']",
        "13 1 ['1.66112', '1.35685', '-0.03828']",
        "14 1 ['1.98799', '1.56850', '-0.19604']",
        "15 0 ['2.09255', '1.72121', '0.15290']",
        "16 1 ['1.87174', '1.50326', '-0.05359']",
        '[-0.008999999612569809, 0.0, 0.0]',
    ],
    'keras_updates': [
        '0 4.0 [0.5, 0.5] [0.6000000238418579, 0.20000000298023224]',
        '1 0.16 [0.550000011920929, 0.3499999940395355] [0.6800000071525574, 0.36000001430511475]',
        '2 0.0064 [0.6150000095367432, 0.35499998927116394] [0.6639999747276306, 0.328000009059906]',
    ],
    'keras_step_op': [
        'Adam/Adam/AssignAddVariableOp AssignAddVariableOp',
        'SGD/SGD/AssignAddVariableOp AssignAddVariableOp',
        'RMSprop/RMSprop/AssignAddVariableOp AssignAddVariableOp',
        "[<tf.Operation 'SGD_1/SGD/AssignAddVariableOp' type=AssignAddVariableOp>]",
        '[0.6837700009346008, 1.683769941329956]',
        '[0.49886998534202576, 1.4738800525665283]',
    ],
}
