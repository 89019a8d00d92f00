"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
keras-rl's DDPG agent on tf.keras (a functional critic called on the actor's output, soft target
updates in both the critic's optimizer and a K.function), and the names TF 1.15 gives the copy of
an input a layer hands back unchanged."""
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



def test_kerasrl_ddpg(capsys):
    # keras-rl/keras-rl rl/agents/ddpg.py, rl/util.py, rl/random.py in their tf.keras form (inarikami/keras-rl2),
    # examples/ddpg_pendulum.py's models; the memory a list. The actor_train_fn output reads the actor's
    # weights with nothing ordering it against the Adam step: in one TF 1.15 run of three it read them after
    # the step (actor values ~1e-3 off); the other runs, printed here, read them before, as tideflow does
    # keras-rl (its tf.keras form: inarikami/keras-rl2) rl/agents/ddpg.py DDPGAgent.compile/select_action/backward,
    # rl/util.py (clone_model, clone_optimizer, get_soft_target_model_updates, huber_loss,
    # AdditionalUpdatesOptimizer), rl/random.py OrnsteinUhlenbeckProcess and examples/ddpg_pendulum.py's models
    K = tf.keras.backend
    optimizers = tf.keras.optimizers
    model_from_config, Sequential, Model = tf.keras.models.model_from_config, tf.keras.models.Sequential, tf.keras.models.Model
    Dense, Activation, Flatten, Input, Concatenate = (tf.keras.layers.Dense, tf.keras.layers.Activation, tf.keras.layers.Flatten,
                                                      tf.keras.layers.Input, tf.keras.layers.Concatenate)
    def clone_model(model, custom_objects={}):
        config = {
            'class_name': model.__class__.__name__,
            'config': model.get_config(),
        }
        clone = model_from_config(config, custom_objects=custom_objects)
        clone.set_weights(model.get_weights())
        return clone
    def clone_optimizer(optimizer):
        if type(optimizer) is str:
            return optimizers.get(optimizer)
        params = {k: v for k, v in optimizer.get_config().items()}
        config = {
            'class_name': optimizer.__class__.__name__,
            'config': params,
        }
        if hasattr(optimizers, 'optimizer_from_config'):
            clone = optimizers.optimizer_from_config(config)
        else:
            clone = optimizers.deserialize(config)
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
            return tf.select(condition, squared_loss, linear_loss)
        else:
            return tf.where(condition, squared_loss, linear_loss)
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
    class OrnsteinUhlenbeckProcess:
        def __init__(self, theta, mu=0., sigma=1., dt=1e-2, size=1, sigma_min=None, n_steps_annealing=1000):
            self.mu, self.sigma, self.n_steps = mu, sigma, 0
            self.m, self.c = 0., sigma
            self.theta, self.dt, self.size = theta, dt, size
            self.reset_states()
        @property
        def current_sigma(self):
            return max(0., self.m * float(self.n_steps) + self.c)
        def sample(self):
            x = self.x_prev + self.theta * (self.mu - self.x_prev) * self.dt + self.current_sigma * np.sqrt(self.dt) * np.random.normal(size=self.size)
            self.x_prev = x
            self.n_steps += 1
            return x
        def reset_states(self):
            self.x_prev = np.random.normal(self.mu, self.current_sigma, self.size)
    def mean_q(y_true, y_pred):
        return K.mean(K.max(y_pred, axis=-1))
    class DDPGAgent:
        def __init__(self, nb_actions, actor, critic, critic_action_input, gamma=.99, batch_size=32,
                     nb_steps_warmup_critic=1000, nb_steps_warmup_actor=1000, delta_clip=np.inf,
                     random_process=None, custom_model_objects={}, target_model_update=.001):
            if target_model_update >= 1:
                target_model_update = int(target_model_update)
            else:
                target_model_update = float(target_model_update)
            self.nb_actions = nb_actions
            self.nb_steps_warmup_actor = nb_steps_warmup_actor
            self.nb_steps_warmup_critic = nb_steps_warmup_critic
            self.random_process = random_process
            self.delta_clip = delta_clip
            self.gamma = gamma
            self.target_model_update = target_model_update
            self.batch_size = batch_size
            self.custom_model_objects = custom_model_objects
            self.actor = actor
            self.critic = critic
            self.critic_action_input = critic_action_input
            self.critic_action_input_idx = self.critic.input.index(critic_action_input)
            self.compiled = False
            self.training = True
            self.processor = None
        def compile(self, optimizer, metrics=[]):
            metrics += [mean_q]
            if type(optimizer) in (list, tuple):
                actor_optimizer, critic_optimizer = optimizer
            else:
                actor_optimizer = optimizer
                critic_optimizer = clone_optimizer(optimizer)
            if type(actor_optimizer) is str:
                actor_optimizer = optimizers.get(actor_optimizer)
            if type(critic_optimizer) is str:
                critic_optimizer = optimizers.get(critic_optimizer)
            assert actor_optimizer != critic_optimizer
            if len(metrics) == 2 and hasattr(metrics[0], '__len__') and hasattr(metrics[1], '__len__'):
                actor_metrics, critic_metrics = metrics
            else:
                actor_metrics = critic_metrics = metrics
            def clipped_error(y_true, y_pred):
                return K.mean(huber_loss(y_true, y_pred, self.delta_clip), axis=-1)
            self.target_actor = clone_model(self.actor, self.custom_model_objects)
            self.target_actor.compile(optimizer='sgd', loss='mse')
            self.target_critic = clone_model(self.critic, self.custom_model_objects)
            self.target_critic.compile(optimizer='sgd', loss='mse')
            self.actor.compile(optimizer='sgd', loss='mse')
            if self.target_model_update < 1.:
                critic_updates = get_soft_target_model_updates(self.target_critic, self.critic, self.target_model_update)
                critic_optimizer = AdditionalUpdatesOptimizer(critic_optimizer, critic_updates)
            self.critic.compile(optimizer=critic_optimizer, loss=clipped_error, metrics=critic_metrics)
            combined_inputs = []
            state_inputs = []
            for i in self.critic.input:
                if i == self.critic_action_input:
                    combined_inputs.append([])
                else:
                    combined_inputs.append(i)
                    state_inputs.append(i)
            combined_inputs[self.critic_action_input_idx] = self.actor(state_inputs)
            combined_output = self.critic(combined_inputs)
            self.loss = -K.mean(combined_output)
            with self.loss.graph.as_default():
                updates = actor_optimizer.get_updates(
                    params=self.actor.trainable_weights, loss=self.loss)
            if self.target_model_update < 1.:
                updates += get_soft_target_model_updates(self.target_actor, self.actor, self.target_model_update)
            updates += self.actor.updates  # include other updates of the actor, e.g. for BN
            self.actor_train_fn = K.function(state_inputs + [K.learning_phase()],
                                                 [self.actor(state_inputs)], updates=updates)
            self.actor_optimizer = actor_optimizer
            self.compiled = True
            print(self.critic.metrics_names, combined_output, self.loss, [w.name for w in self.target_critic.weights])
        def update_target_models_hard(self):
            self.target_critic.set_weights(self.critic.get_weights())
            self.target_actor.set_weights(self.actor.get_weights())
        def select_action(self, state):
            batch = np.array([state])
            action = self.actor.predict_on_batch(batch).flatten()
            assert action.shape == (self.nb_actions,)
            if self.training and self.random_process is not None:
                noise = self.random_process.sample()
                assert noise.shape == action.shape
                action += noise
            return action
        def backward(self, experiences):
            metrics = []
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
            state0_batch = np.array(state0_batch)
            state1_batch = np.array(state1_batch)
            terminal1_batch = np.array(terminal1_batch)
            reward_batch = np.array(reward_batch)
            action_batch = np.array(action_batch)
            if self.step > self.nb_steps_warmup_critic:
                target_actions = self.target_actor.predict_on_batch(state1_batch)
                assert target_actions.shape == (self.batch_size, self.nb_actions)
                if len(self.critic.inputs) >= 3:
                    state1_batch_with_action = state1_batch[:]
                else:
                    state1_batch_with_action = [state1_batch]
                state1_batch_with_action.insert(self.critic_action_input_idx, target_actions)
                target_q_values = self.target_critic.predict_on_batch(state1_batch_with_action).flatten()
                assert target_q_values.shape == (self.batch_size,)
                discounted_reward_batch = self.gamma * target_q_values
                discounted_reward_batch *= terminal1_batch
                targets = (reward_batch + discounted_reward_batch).reshape(self.batch_size, 1)
                if len(self.critic.inputs) >= 3:
                    state0_batch_with_action = state0_batch[:]
                else:
                    state0_batch_with_action = [state0_batch]
                state0_batch_with_action.insert(self.critic_action_input_idx, action_batch)
                metrics = self.critic.train_on_batch(state0_batch_with_action, targets)
            if self.step > self.nb_steps_warmup_actor:
                if len(self.actor.inputs) >= 2:
                    inputs = state0_batch[:]
                else:
                    inputs = [state0_batch]
                action_values = self.actor_train_fn(inputs)[0]
                assert action_values.shape == (self.batch_size, self.nb_actions)
                print('actor', action_values.round(5).tolist()[:2])
            if self.target_model_update >= 1 and self.step % self.target_model_update == 0:
                self.update_target_models_hard()
            return metrics
    np.random.seed(123)
    for tmu in (1e-3, 4):
        K.clear_session()
        tf.set_random_seed(123)
        env = FakeEnv(obs_dim=3, act_dim=1, ep_len=6)
        nb_actions = env.action_space.shape[0]
        actor = Sequential()
        actor.add(Flatten(input_shape=(1,) + env.observation_space.shape))
        actor.add(Dense(8))
        actor.add(Activation('relu'))
        actor.add(Dense(nb_actions))
        actor.add(Activation('linear'))
        action_input = Input(shape=(nb_actions,), name='action_input')
        observation_input = Input(shape=(1,) + env.observation_space.shape, name='observation_input')
        flattened_observation = Flatten()(observation_input)
        x = Concatenate()([action_input, flattened_observation])
        x = Dense(8)(x)
        x = Activation('relu')(x)
        x = Dense(1)(x)
        x = Activation('linear')(x)
        critic = Model(inputs=[action_input, observation_input], outputs=x)
        random_process = OrnsteinUhlenbeckProcess(size=nb_actions, theta=.15, mu=0., sigma=.3)
        agent = DDPGAgent(nb_actions=nb_actions, actor=actor, critic=critic, critic_action_input=action_input,
                          nb_steps_warmup_critic=5, nb_steps_warmup_actor=5, batch_size=4,
                          random_process=random_process, gamma=.99, target_model_update=tmu, delta_clip=1.0)
        agent.compile(tf.keras.optimizers.Adam(lr=.001, clipnorm=1.), metrics=['mae'])
        memory = []
        obs = env.reset()
        for step in range(1, 13):
            agent.step = step
            action = agent.select_action([obs])
            obs2, r, done, _ = env.step(action)
            memory.append(([obs], action, r, done, [obs2]))
            obs = env.reset() if done else obs2
            if step > 4:
                idx = np.random.randint(0, len(memory), agent.batch_size)
                m = agent.backward([memory[i] for i in idx])
                print(step, ['%.5f' % v for v in m])
        print(np.round(agent.target_actor.get_weights()[-1], 5).tolist(), np.round(agent.target_critic.get_weights()[-1], 5).tolist())
    K.clear_session()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["kerasrl_ddpg"], 0)


@pytest.mark.usefixtures("fresh_graph")
def test_keras_passthrough_names(capsys):
    # an input a layer returns unchanged (linear Activation, identity Lambda) is copied by an identity
    # under a scope of the layer's name: 'activation/activation/Identity', also when a model is called again
    import sys
    if sys.argv[1:] == ['tf']:
        import tensorflow as tf
    else:
        import tideflow as tf
    x = tf.keras.layers.Input((2,))
    y = tf.keras.layers.Activation('linear')(x)
    z = tf.keras.layers.Lambda(lambda t: t)(y)
    d = tf.keras.layers.Dropout(0.5)(z)
    print(y, z, d)
    m = tf.keras.models.Model(x, d)
    print(m(tf.keras.layers.Input((2,))))
    s = tf.keras.models.Sequential([tf.keras.layers.Activation('linear', input_shape=(2,))])
    print(s.output, s(x))
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["keras_passthrough_names"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'kerasrl_ddpg': [
        '[\'loss\', \'mean_absolute_error\', \'mean_q\'] Tensor("model/activation_3/activation_3/Identity:0", shape=(?, 1), dtype=float32) Tensor("Neg:0", shape=(), dtype=float32) [\'dense_2_1/kernel:0\', \'dense_2_1/bias:0\', \'dense_3_1/kernel:0\', \'dense_3_1/bias:0\']',
        '5 []',
        'actor [[-0.3328000009059906], [0.05770999938249588]]',
        "6 ['0.14060', '0.46388', '-0.72333']",
        'actor [[-0.7262700200080872], [-0.7262700200080872]]',
        "7 ['0.34134', '0.80331', '-1.18707']",
        'actor [[-0.3417600095272064], [-0.05976000055670738]]',
        "8 ['0.21661', '0.64868', '-0.94206']",
        'actor [[-0.05869000032544136], [-0.7382199764251709]]',
        "9 ['0.25172', '0.68703', '-1.08238']",
        'actor [[-0.3511900007724762], [0.19514000415802002]]',
        "10 ['0.21901', '0.57261', '-1.03881']",
        'actor [[-0.3568199872970581], [-0.06537000089883804]]',
        "11 ['0.15773', '0.55006', '-0.87036']",
        'actor [[-0.07221999764442444], [0.15115000307559967]]',
        "12 ['0.06540', '0.25595', '-0.66565']",
        '[-0.0] [-1.9999999494757503e-05]',
        '[\'loss\', \'mean_absolute_error\', \'mean_q\'] Tensor("model/activation_3/activation_3/Identity:0", shape=(?, 1), dtype=float32) Tensor("Neg:0", shape=(), dtype=float32) [\'dense_2_1/kernel:0\', \'dense_2_1/bias:0\', \'dense_3_1/kernel:0\', \'dense_3_1/bias:0\']',
        '5 []',
        'actor [[-0.21201999485492706], [-0.03652999922633171]]',
        "6 ['0.37987', '0.85590', '-1.11269']",
        'actor [[-0.09946999698877335], [-0.0413299985229969]]',
        "7 ['0.20734', '0.55418', '-0.85353']",
        'actor [[-0.7367500066757202], [-0.7367500066757202]]',
        "8 ['0.43885', '0.92426', '-1.30785']",
        'actor [[-0.029559999704360962], [-0.47758999466896057]]',
        "9 ['0.24423', '0.60905', '-0.93874']",
        'actor [[-0.11729999631643295], [-0.11729999631643295]]',
        "10 ['0.34186', '0.81181', '-1.08964']",
        'actor [[-0.12308000028133392], [-0.14786000549793243]]',
        "11 ['0.40168', '0.87784', '-1.25161']",
        'actor [[-0.06639999896287918], [-0.7639399766921997]]',
        "12 ['0.28316', '0.65118', '-1.09572']",
        '[-0.006409999914467335] [-0.00687999976798892]',
    ],
    'keras_passthrough_names': [
        'Tensor("activation/activation/Identity:0", shape=(?, 2), dtype=float32) Tensor("lambda/lambda/Identity:0", shape=(?, 2), dtype=float32) Tensor("dropout/cond/Merge:0", shape=(?, 2), dtype=float32)',
        'Tensor("model/dropout/cond/Merge:0", shape=(?, 2), dtype=float32)',
        'Tensor("activation_1/activation_1/Identity:0", shape=(?, 2), dtype=float32) Tensor("sequential/activation_1/activation_1/Identity:0", shape=(?, 2), dtype=float32)',
    ],
}
