"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
Stable Baselines' DQN graph (build_act, build_act_with_param_noise, build_train, tf_util.function
with givens, dueling and layer-normed contrib layers, tf.cond updates) and awjuliani's double
dueling DQN."""
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
def test_sb_deepq(capsys):
    # hill-a/stable-baselines (Stable-Baselines-Team/stable-baselines) stable_baselines/deepq/build_graph.py,
    # deepq/policies.py, common/tf_util.py; the learn loop of deepq/dqn.py reduced. With parameter noise, the act
    # function's outputs read the perturbed weights its own updates reassign in the same step: TF 1.15 printed
    # this in some runs (measured), and read the new weights in others; tideflow reads them before the updates
    # hill-a/stable-baselines (Stable-Baselines-Team/stable-baselines) stable_baselines/deepq/build_graph.py (build_act,
    # build_act_with_param_noise, build_train), deepq/policies.py (FeedForwardPolicy on tf.contrib.layers, dueling,
    # layer norm), common/tf_util.py (function with givens, outer_scope_getter, huber_loss); the DQN loop reduced
    import tempfile
    tf_layers = tf.contrib.layers
    def huber_loss(tensor, delta=1.0):
        return tf.where(
            tf.abs(tensor) < delta,
            tf.square(tensor) * 0.5,
            delta * (tf.abs(tensor) - 0.5 * delta)
        )
    def outer_scope_getter(scope, new_scope=""):
        def _getter(getter, name, *args, **kwargs):
            name = name.replace(scope + "/", new_scope, 1)
            val = getter(name, *args, **kwargs)
            return val
        return _getter
    def function(inputs, outputs, updates=None, givens=None):
        if isinstance(outputs, list):
            return _Function(inputs, outputs, updates, givens=givens)
        elif isinstance(outputs, dict):
            func = _Function(inputs, outputs.values(), updates, givens=givens)
            return lambda *args, **kwargs: type(outputs)(zip(outputs.keys(), func(*args, **kwargs)))
        else:
            func = _Function(inputs, [outputs], updates, givens=givens)
            return lambda *args, **kwargs: func(*args, **kwargs)[0]
    class _Function(object):
        def __init__(self, inputs, outputs, updates, givens):
            for inpt in inputs:
                if not hasattr(inpt, 'make_feed_dict') and not (isinstance(inpt, tf.Tensor) and len(inpt.op.inputs) == 0):
                    assert False, "inputs should all be placeholders, constants, or have a make_feed_dict method"
            self.inputs = inputs
            updates = updates or []
            self.update_group = tf.group(*updates)
            self.outputs_update = list(outputs) + [self.update_group]
            self.givens = {} if givens is None else givens
        @classmethod
        def _feed_input(cls, feed_dict, inpt, value):
            if hasattr(inpt, 'make_feed_dict'):
                feed_dict.update(inpt.make_feed_dict(value))
            else:
                feed_dict[inpt] = value
        def __call__(self, *args, sess=None, **kwargs):
            assert len(args) <= len(self.inputs), "Too many arguments provided"
            if sess is None:
                sess = tf.get_default_session()
            feed_dict = {}
            for inpt, value in zip(self.inputs, args):
                self._feed_input(feed_dict, inpt, value)
            for inpt in self.givens:
                feed_dict[inpt] = feed_dict.get(inpt, self.givens[inpt])
            results = sess.run(self.outputs_update, feed_dict=feed_dict, **kwargs)[:-1]
            return results
    def scope_vars(scope, trainable_only=False):
        return tf.get_collection(
            tf.GraphKeys.TRAINABLE_VARIABLES if trainable_only else tf.GraphKeys.GLOBAL_VARIABLES,
            scope=scope if isinstance(scope, str) else scope.name
        )
    def scope_name():
        return tf.get_variable_scope().name
    def absolute_scope_name(relative_scope_name):
        return scope_name() + "/" + relative_scope_name
    def default_param_noise_filter(var):
        if var not in tf.trainable_variables():
            return False
        if "fully_connected" in var.name:
            return True
        return False
    class FeedForwardPolicy:
        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, layers=None,
                     layer_norm=False, dueling=True, act_fun=tf.nn.relu, obs_phs=None):
            self.n_actions = ac_space.n
            with tf.variable_scope("input", reuse=False):
                if obs_phs is None:
                    self.obs_ph = tf.placeholder(shape=(n_batch,) + ob_space.shape, dtype=ob_space.dtype, name='Ob')
                    self.processed_obs = tf.cast(self.obs_ph, tf.float32)
                else:
                    self.obs_ph, self.processed_obs = obs_phs
            with tf.variable_scope("model", reuse=reuse):
                with tf.variable_scope("action_value"):
                    extracted_features = tf.layers.flatten(self.processed_obs)
                    action_out = extracted_features
                    for layer_size in layers:
                        action_out = tf_layers.fully_connected(action_out, num_outputs=layer_size, activation_fn=None)
                        if layer_norm:
                            action_out = tf_layers.layer_norm(action_out, center=True, scale=True)
                        action_out = act_fun(action_out)
                    action_scores = tf_layers.fully_connected(action_out, num_outputs=self.n_actions, activation_fn=None)
                if dueling:
                    with tf.variable_scope("state_value"):
                        state_out = extracted_features
                        for layer_size in layers:
                            state_out = tf_layers.fully_connected(state_out, num_outputs=layer_size, activation_fn=None)
                            if layer_norm:
                                state_out = tf_layers.layer_norm(state_out, center=True, scale=True)
                            state_out = act_fun(state_out)
                        state_score = tf_layers.fully_connected(state_out, num_outputs=1, activation_fn=None)
                    action_scores_mean = tf.reduce_mean(action_scores, axis=1)
                    action_scores_centered = action_scores - tf.expand_dims(action_scores_mean, axis=1)
                    q_out = state_score + action_scores_centered
                else:
                    q_out = action_scores
            self.q_values = q_out
            with tf.variable_scope("output", reuse=True):
                self.policy_proba = tf.nn.softmax(self.q_values)
    def build_act(q_func, ob_space, ac_space, stochastic_ph, update_eps_ph, sess):
        eps = tf.get_variable("eps", (), initializer=tf.constant_initializer(0))
        policy = q_func(sess, ob_space, ac_space, 1, 1, None)
        obs_phs = (policy.obs_ph, policy.processed_obs)
        deterministic_actions = tf.argmax(policy.q_values, axis=1)
        batch_size = tf.shape(policy.obs_ph)[0]
        n_actions = ac_space.n
        random_actions = tf.random_uniform(tf.stack([batch_size]), minval=0, maxval=n_actions, dtype=tf.int64)
        chose_random = tf.random_uniform(tf.stack([batch_size]), minval=0, maxval=1, dtype=tf.float32) < eps
        stochastic_actions = tf.where(chose_random, random_actions, deterministic_actions)
        output_actions = tf.cond(stochastic_ph, lambda: stochastic_actions, lambda: deterministic_actions)
        update_eps_expr = eps.assign(tf.cond(update_eps_ph >= 0, lambda: update_eps_ph, lambda: eps))
        _act = function(inputs=[policy.obs_ph, stochastic_ph, update_eps_ph],
                        outputs=output_actions,
                        givens={update_eps_ph: -1.0, stochastic_ph: True},
                        updates=[update_eps_expr])
        def act(obs, stochastic=True, update_eps=-1):
            return _act(obs, stochastic, update_eps)
        return act, obs_phs
    def build_act_with_param_noise(q_func, ob_space, ac_space, stochastic_ph, update_eps_ph, sess,
                                   param_noise_filter_func=None):
        if param_noise_filter_func is None:
            param_noise_filter_func = default_param_noise_filter
        update_param_noise_threshold_ph = tf.placeholder(tf.float32, (), name="update_param_noise_threshold")
        update_param_noise_scale_ph = tf.placeholder(tf.bool, (), name="update_param_noise_scale")
        reset_ph = tf.placeholder(tf.bool, (), name="reset")
        eps = tf.get_variable("eps", (), initializer=tf.constant_initializer(0))
        param_noise_scale = tf.get_variable("param_noise_scale", (), initializer=tf.constant_initializer(0.01),
                                            trainable=False)
        param_noise_threshold = tf.get_variable("param_noise_threshold", (), initializer=tf.constant_initializer(0.05),
                                                trainable=False)
        policy = q_func(sess, ob_space, ac_space, 1, 1, None)
        obs_phs = (policy.obs_ph, policy.processed_obs)
        with tf.variable_scope("perturbed_model", reuse=False):
            perturbable_policy = q_func(sess, ob_space, ac_space, 1, 1, None, obs_phs=obs_phs)
        def perturb_vars(original_scope, perturbed_scope):
            all_vars = scope_vars(absolute_scope_name(original_scope))
            all_perturbed_vars = scope_vars(absolute_scope_name(perturbed_scope))
            assert len(all_vars) == len(all_perturbed_vars)
            perturb_ops = []
            for var, perturbed_var in zip(all_vars, all_perturbed_vars):
                if param_noise_filter_func(perturbed_var):
                    operation = tf.assign(perturbed_var,
                                          var + tf.random_normal(shape=tf.shape(var), mean=0.,
                                                                 stddev=param_noise_scale))
                else:
                    operation = tf.assign(perturbed_var, var)
                perturb_ops.append(operation)
            assert len(perturb_ops) == len(all_vars)
            return tf.group(*perturb_ops)
        with tf.variable_scope("adaptive_model", reuse=False):
            adaptive_policy = q_func(sess, ob_space, ac_space, 1, 1, None, obs_phs=obs_phs)
        perturb_for_adaption = perturb_vars(original_scope="model", perturbed_scope="adaptive_model/model")
        kl_loss = tf.reduce_sum(
            tf.nn.softmax(policy.q_values) *
            (tf.log(tf.nn.softmax(policy.q_values)) - tf.log(tf.nn.softmax(adaptive_policy.q_values))),
            axis=-1)
        mean_kl = tf.reduce_mean(kl_loss)
        def update_scale():
            with tf.control_dependencies([perturb_for_adaption]):
                update_scale_expr = tf.cond(mean_kl < param_noise_threshold,
                                            lambda: param_noise_scale.assign(param_noise_scale * 1.01),
                                            lambda: param_noise_scale.assign(param_noise_scale / 1.01),
                                            )
            return update_scale_expr
        update_param_noise_thres_expr = param_noise_threshold.assign(
            tf.cond(update_param_noise_threshold_ph >= 0, lambda: update_param_noise_threshold_ph,
                    lambda: param_noise_threshold))
        perturbed_deterministic_actions = tf.argmax(perturbable_policy.q_values, axis=1)
        deterministic_actions = tf.argmax(policy.q_values, axis=1)
        batch_size = tf.shape(policy.obs_ph)[0]
        n_actions = ac_space.n
        random_actions = tf.random_uniform(tf.stack([batch_size]), minval=0, maxval=n_actions, dtype=tf.int64)
        chose_random = tf.random_uniform(tf.stack([batch_size]), minval=0, maxval=1, dtype=tf.float32) < eps
        perturbed_stochastic_actions = tf.where(chose_random, random_actions, perturbed_deterministic_actions)
        stochastic_actions = tf.where(chose_random, random_actions, deterministic_actions)
        perturbed_output_actions = tf.cond(stochastic_ph, lambda: perturbed_stochastic_actions,
                                           lambda: deterministic_actions)
        output_actions = tf.cond(stochastic_ph, lambda: stochastic_actions, lambda: deterministic_actions)
        update_eps_expr = eps.assign(tf.cond(update_eps_ph >= 0, lambda: update_eps_ph, lambda: eps))
        updates = [
            update_eps_expr,
            tf.cond(reset_ph, lambda: perturb_vars(original_scope="model", perturbed_scope="perturbed_model/model"),
                    lambda: tf.group(*[])),
            tf.cond(update_param_noise_scale_ph, lambda: update_scale(), lambda: tf.Variable(0., trainable=False)),
            update_param_noise_thres_expr,
        ]
        print([u.name for u in updates])
        _act = function(inputs=[policy.obs_ph, stochastic_ph, update_eps_ph],
                        outputs=output_actions,
                        givens={update_eps_ph: -1.0, stochastic_ph: True},
                        updates=[update_eps_expr])
        _perturbed_act = function(
            inputs=[policy.obs_ph, stochastic_ph, update_eps_ph, reset_ph, update_param_noise_threshold_ph,
                    update_param_noise_scale_ph],
            outputs=perturbed_output_actions,
            givens={update_eps_ph: -1.0, stochastic_ph: True, reset_ph: False, update_param_noise_threshold_ph: False,
                    update_param_noise_scale_ph: False},
            updates=updates)
        def act(obs, reset=None, update_param_noise_threshold=None, update_param_noise_scale=None, stochastic=True,
                update_eps=-1):
            if reset is None or update_param_noise_threshold is None or update_param_noise_scale is None:
                return _act(obs, stochastic, update_eps)
            else:
                return _perturbed_act(obs, stochastic, update_eps, reset, update_param_noise_threshold,
                                      update_param_noise_scale)
        act.param_noise_scale = param_noise_scale
        return act, obs_phs
    def build_train(q_func, ob_space, ac_space, optimizer, sess, grad_norm_clipping=None,
                    gamma=1.0, double_q=True, scope="deepq", reuse=None,
                    param_noise=False, param_noise_filter_func=None, full_tensorboard_log=False):
        n_actions = ac_space.n
        with tf.variable_scope("input", reuse=reuse):
            stochastic_ph = tf.placeholder(tf.bool, (), name="stochastic")
            update_eps_ph = tf.placeholder(tf.float32, (), name="update_eps")
        with tf.variable_scope(scope, reuse=reuse):
            if param_noise:
                act_f, obs_phs = build_act_with_param_noise(q_func, ob_space, ac_space, stochastic_ph, update_eps_ph, sess,
                                                            param_noise_filter_func=param_noise_filter_func)
            else:
                act_f, obs_phs = build_act(q_func, ob_space, ac_space, stochastic_ph, update_eps_ph, sess)
            with tf.variable_scope("step_model", reuse=True, custom_getter=outer_scope_getter("step_model")):
                step_model = q_func(sess, ob_space, ac_space, 1, 1, None, reuse=True, obs_phs=obs_phs)
            q_func_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope=tf.get_variable_scope().name + "/model")
            with tf.variable_scope("target_q_func", reuse=False):
                target_policy = q_func(sess, ob_space, ac_space, 1, 1, None, reuse=False)
            target_q_func_vars = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES,
                                                   scope=tf.get_variable_scope().name + "/target_q_func")
            double_q_values = None
            double_obs_ph = target_policy.obs_ph
            if double_q:
                with tf.variable_scope("double_q", reuse=True, custom_getter=outer_scope_getter("double_q")):
                    double_policy = q_func(sess, ob_space, ac_space, 1, 1, None, reuse=True)
                    double_q_values = double_policy.q_values
                    double_obs_ph = double_policy.obs_ph
        with tf.variable_scope("loss", reuse=reuse):
            act_t_ph = tf.placeholder(tf.int32, [None], name="action")
            rew_t_ph = tf.placeholder(tf.float32, [None], name="reward")
            done_mask_ph = tf.placeholder(tf.float32, [None], name="done")
            importance_weights_ph = tf.placeholder(tf.float32, [None], name="weight")
            q_t_selected = tf.reduce_sum(step_model.q_values * tf.one_hot(act_t_ph, n_actions), axis=1)
            if double_q:
                q_tp1_best_using_online_net = tf.argmax(double_q_values, axis=1)
                q_tp1_best = tf.reduce_sum(target_policy.q_values * tf.one_hot(q_tp1_best_using_online_net, n_actions), axis=1)
            else:
                q_tp1_best = tf.reduce_max(target_policy.q_values, axis=1)
            q_tp1_best_masked = (1.0 - done_mask_ph) * q_tp1_best
            q_t_selected_target = rew_t_ph + gamma * q_tp1_best_masked
            td_error = q_t_selected - tf.stop_gradient(q_t_selected_target)
            errors = huber_loss(td_error)
            weighted_error = tf.reduce_mean(importance_weights_ph * errors)
            tf.summary.scalar("td_error", tf.reduce_mean(td_error))
            tf.summary.scalar("loss", weighted_error)
            if full_tensorboard_log:
                tf.summary.histogram("td_error", td_error)
            update_target_expr = []
            for var, var_target in zip(sorted(q_func_vars, key=lambda v: v.name),
                                       sorted(target_q_func_vars, key=lambda v: v.name)):
                update_target_expr.append(var_target.assign(var))
            update_target_expr = tf.group(*update_target_expr)
            gradients = optimizer.compute_gradients(weighted_error, var_list=q_func_vars)
            if grad_norm_clipping is not None:
                for i, (grad, var) in enumerate(gradients):
                    if grad is not None:
                        gradients[i] = (tf.clip_by_norm(grad, grad_norm_clipping), var)
        with tf.variable_scope("input_info", reuse=False):
            tf.summary.scalar('rewards', tf.reduce_mean(rew_t_ph))
            tf.summary.scalar('importance_weights', tf.reduce_mean(importance_weights_ph))
            if full_tensorboard_log:
                tf.summary.histogram('rewards', rew_t_ph)
                tf.summary.histogram('importance_weights', importance_weights_ph)
                if len(obs_phs[0].shape) == 2:
                    tf.summary.histogram('observation', obs_phs[0])
        optimize_expr = optimizer.apply_gradients(gradients)
        summary = tf.summary.merge_all()
        train = function(
            inputs=[
                obs_phs[0],
                act_t_ph,
                rew_t_ph,
                target_policy.obs_ph,
                double_obs_ph,
                done_mask_ph,
                importance_weights_ph
            ],
            outputs=[summary, td_error],
            updates=[optimize_expr]
        )
        update_target = function([], [], updates=[update_target_expr])
        print([v.name for v in q_func_vars], [v.name for v in target_q_func_vars], len(gradients), optimize_expr.name)
        return act_f, train, update_target, step_model
    # the DQN learn loop (stable_baselines/deepq/dqn.py), reduced: a list replay buffer, a linear eps schedule
    for param_noise in (False, True):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(7); np.random.seed(7)
            sess = tf.Session(graph=graph)
            env = FakeEnv(obs_dim=4, act_dim=3, discrete=True, ep_len=5)
            q_func = lambda *a, **k: FeedForwardPolicy(*a, layers=[8], layer_norm=param_noise, **k)
            act, train, update_target, step_model = build_train(
                q_func=q_func, ob_space=env.observation_space, ac_space=env.action_space,
                optimizer=tf.train.AdamOptimizer(learning_rate=5e-3), sess=sess, gamma=0.99,
                grad_norm_clipping=10, param_noise=param_noise, full_tensorboard_log=param_noise)
            print([v.name for v in tf.global_variables()][-6:], len(tf.global_variables()))
            with sess.as_default():
                tf.global_variables_initializer().run()
                update_target(sess=sess)
                writer = tf.summary.FileWriter(tempfile.mkdtemp(), graph)
                buf = []
                obs, reset = env.reset(), True
                for step in range(14):
                    update_eps = max(0.02, 1.0 - step / 10.0)
                    kwargs = {}
                    if param_noise:
                        kwargs['reset'] = reset
                        kwargs['update_param_noise_threshold'] = -np.log(1. - 0.05 + 0.05 / 3)
                        kwargs['update_param_noise_scale'] = step % 5 == 4  # (see the note on the race)
                        update_eps = 0.
                    action = act(np.array(obs)[None], update_eps=update_eps, **kwargs)[0]
                    reset = False
                    new_obs, rew, done, _ = env.step(action)
                    buf.append((obs, action, rew, new_obs, float(done)))
                    obs = new_obs
                    if done:
                        obs, reset = env.reset(), True
                    if step >= 4:
                        idx = np.random.randint(0, len(buf), 4)
                        o, a, r, o2, d = [np.array(x) for x in zip(*[buf[i] for i in idx])]
                        summary, td_errors = train(o, a, r, o2, o2, d, np.ones_like(r))
                        writer.add_summary(summary, step)
                        print(step, action, np.round(td_errors, 5).tolist())
                    if step % 5 == 0:
                        update_target(sess=sess)
                if param_noise:
                    print('scale %.6f' % sess.run(act.param_noise_scale))
                print(act(np.ones((2, 4), np.float32), stochastic=False))
                writer.close()
            sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["sb_deepq"], 0)


def test_awj_dddqn(capsys):
    # awjuliani/DeepRL-Agents Double-Dueling-DQN.ipynb (slim convolutions split into advantage and value streams,
    # soft target updates through var.value()); gridworld replaced by a tiny NumPy game, filters 8 and h_size 16
    # awjuliani/DeepRL-Agents Double-Dueling-DQN.ipynb (Qnetwork, experience_buffer, updateTargetGraph, the training
    # cell); gridworld's gameEnv replaced by a tiny deterministic NumPy game; filters fewer, steps fewer
    import random, tempfile, os
    slim = tf.contrib.slim
    class gameEnv:
        """gridworld.gameEnv reduced: an 84x84x3 frame with the hero's square; reward at the goal cell."""
        actions = 4
        def reset(self):
            self.pos = [1, 1]; self.t = 0
            return self.render()
        def render(self):
            img = np.zeros((84, 84, 3), np.float32); img[self.pos[0] * 16:self.pos[0] * 16 + 16, self.pos[1] * 16:self.pos[1] * 16 + 16, 2] = 1.0
            img[60:76, 60:76, 1] = 1.0
            return img
        def step(self, a):
            self.t += 1
            d = [(-1, 0), (1, 0), (0, -1), (0, 1)][a]
            self.pos = [min(4, max(0, self.pos[0] + d[0])), min(4, max(0, self.pos[1] + d[1]))]
            r = 1.0 if self.pos == [4, 4] else 0.0
            return self.render(), r, r > 0 or self.t >= 6
    env = gameEnv()
    class Qnetwork():
        def __init__(self,h_size):
            self.scalarInput =  tf.placeholder(shape=[None,21168],dtype=tf.float32)
            self.imageIn = tf.reshape(self.scalarInput,shape=[-1,84,84,3])
            self.conv1 = slim.conv2d( \
                inputs=self.imageIn,num_outputs=8,kernel_size=[8,8],stride=[4,4],padding='VALID', biases_initializer=None)
            self.conv2 = slim.conv2d( \
                inputs=self.conv1,num_outputs=8,kernel_size=[4,4],stride=[2,2],padding='VALID', biases_initializer=None)
            self.conv3 = slim.conv2d( \
                inputs=self.conv2,num_outputs=8,kernel_size=[3,3],stride=[1,1],padding='VALID', biases_initializer=None)
            self.conv4 = slim.conv2d( \
                inputs=self.conv3,num_outputs=h_size,kernel_size=[7,7],stride=[1,1],padding='VALID', biases_initializer=None)
            self.streamAC,self.streamVC = tf.split(self.conv4,2,3)
            self.streamA = slim.flatten(self.streamAC)
            self.streamV = slim.flatten(self.streamVC)
            self.AW = tf.Variable(tf.random_normal([h_size//2,env.actions]))
            self.VW = tf.Variable(tf.random_normal([h_size//2,1]))
            self.Advantage = tf.matmul(self.streamA,self.AW)
            self.Value = tf.matmul(self.streamV,self.VW)
            self.Qout = self.Value + tf.subtract(self.Advantage,tf.reduce_mean(self.Advantage,axis=1,keep_dims=True))
            self.predict = tf.argmax(self.Qout,1)
            self.targetQ = tf.placeholder(shape=[None],dtype=tf.float32)
            self.actions = tf.placeholder(shape=[None],dtype=tf.int32)
            self.actions_onehot = tf.one_hot(self.actions,env.actions,dtype=tf.float32)
            self.Q = tf.reduce_sum(tf.multiply(self.Qout, self.actions_onehot), axis=1)
            self.td_error = tf.square(self.targetQ - self.Q)
            self.loss = tf.reduce_mean(self.td_error)
            self.trainer = tf.train.AdamOptimizer(learning_rate=0.0001)
            self.updateModel = self.trainer.minimize(self.loss)
            print(self.conv4, self.streamAC, self.streamA, self.Qout, self.predict, self.updateModel.name)
    class experience_buffer():
        def __init__(self, buffer_size = 50000):
            self.buffer = []
            self.buffer_size = buffer_size
        def add(self,experience):
            if len(self.buffer) + len(experience) >= self.buffer_size:
                self.buffer[0:(len(experience)+len(self.buffer))-self.buffer_size] = []
            self.buffer.extend(experience)
        def sample(self,size):
            return np.reshape(np.array(random.sample(self.buffer,size), dtype=object),[size,5])  # (dtype: NumPy 2)
    def processState(states):
        return np.reshape(states,[21168])
    def updateTargetGraph(tfVars,tau):
        total_vars = len(tfVars)
        op_holder = []
        for idx,var in enumerate(tfVars[0:total_vars//2]):
            op_holder.append(tfVars[idx+total_vars//2].assign((var.value()*tau) + ((1-tau)*tfVars[idx+total_vars//2].value())))
        return op_holder
    def updateTarget(op_holder,sess):
        for op in op_holder:
            sess.run(op)
    batch_size = 4
    update_freq = 2
    y = .99
    startE = 1
    endE = 0.1
    anneling_steps = 10.
    num_episodes = 4
    pre_train_steps = 6
    max_epLength = 6
    path = tempfile.mkdtemp()
    h_size = 16
    tau = 0.001
    random.seed(0); np.random.seed(0)
    tf.reset_default_graph()
    tf.set_random_seed(0)
    mainQN = Qnetwork(h_size)
    targetQN = Qnetwork(h_size)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    trainables = tf.trainable_variables()
    targetOps = updateTargetGraph(trainables,tau)
    print([v.name for v in trainables], targetOps[0].name)
    myBuffer = experience_buffer()
    e = startE
    stepDrop = (startE - endE)/anneling_steps
    jList = []
    rList = []
    total_steps = 0
    with tf.Session() as sess:
        sess.run(init)
        updateTarget(targetOps,sess)
        for i in range(num_episodes):
            episodeBuffer = experience_buffer()
            s = env.reset()
            s = processState(s)
            d = False
            rAll = 0
            j = 0
            while j < max_epLength:
                j+=1
                if np.random.rand(1) < e or total_steps < pre_train_steps:
                    a = np.random.randint(0,4)
                else:
                    a = sess.run(mainQN.predict,feed_dict={mainQN.scalarInput:[s]})[0]
                s1,r,d = env.step(a)
                s1 = processState(s1)
                total_steps += 1
                episodeBuffer.add(np.reshape(np.array([s,a,r,s1,d], dtype=object),[1,5]))  # (dtype: NumPy 2)
                if total_steps > pre_train_steps:
                    if e > endE:
                        e -= stepDrop
                    if total_steps % (update_freq) == 0:
                        trainBatch = myBuffer.sample(batch_size)
                        Q1 = sess.run(mainQN.predict,feed_dict={mainQN.scalarInput:np.vstack(trainBatch[:,3])})
                        Q2 = sess.run(targetQN.Qout,feed_dict={targetQN.scalarInput:np.vstack(trainBatch[:,3])})
                        end_multiplier = -(trainBatch[:,4] - 1)
                        doubleQ = Q2[range(batch_size),Q1]
                        targetQ = trainBatch[:,2] + (y*doubleQ * end_multiplier)
                        _, l = sess.run([mainQN.updateModel, mainQN.loss], \
                            feed_dict={mainQN.scalarInput:np.vstack(trainBatch[:,0]),mainQN.targetQ:targetQ, mainQN.actions:trainBatch[:,1]})
                        print(total_steps, a, '%.5f' % l, Q1.tolist())
                        updateTarget(targetOps,sess)
                rAll += r
                s = s1
                if d == True:
                    break
            myBuffer.add(episodeBuffer.buffer)
            jList.append(j)
            rList.append(rAll)
            if i % 2 == 0:
                saver.save(sess,path+'/model-'+str(i)+'.ckpt')
                print("Saved Model")
        print("Percent of succesful episodes: " + str(sum(rList)/num_episodes) + "%")
        print(np.round(sess.run(targetQN.VW).ravel(), 5).tolist())
    tf.reset_default_graph()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["awj_dddqn"], 0)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'sb_deepq': [
        "['deepq/model/action_value/fully_connected/weights:0', 'deepq/model/action_value/fully_connected/biases:0', 'deepq/model/action_value/fully_connected_1/weights:0', 'deepq/model/action_value/fully_connected_1/biases:0', 'deepq/model/state_value/fully_connected/weights:0', 'deepq/model/state_value/fully_connected/biases:0', 'deepq/model/state_value/fully_connected_1/weights:0', 'deepq/model/state_value/fully_connected_1/biases:0'] ['deepq/target_q_func/model/action_value/fully_connected/weights:0', 'deepq/target_q_func/model/action_value/fully_connected/biases:0', 'deepq/target_q_func/model/action_value/fully_connected_1/weights:0', 'deepq/target_q_func/model/action_value/fully_connected_1/biases:0', 'deepq/target_q_func/model/state_value/fully_connected/weights:0', 'deepq/target_q_func/model/state_value/fully_connected/biases:0', 'deepq/target_q_func/model/state_value/fully_connected_1/weights:0', 'deepq/target_q_func/model/state_value/fully_connected_1/biases:0'] 8 Adam",
        "['deepq/model/state_value/fully_connected/biases/Adam:0', 'deepq/model/state_value/fully_connected/biases/Adam_1:0', 'deepq/model/state_value/fully_connected_1/weights/Adam:0', 'deepq/model/state_value/fully_connected_1/weights/Adam_1:0', 'deepq/model/state_value/fully_connected_1/biases/Adam:0', 'deepq/model/state_value/fully_connected_1/biases/Adam_1:0'] 35",
        '4 2 [1.6484700441360474, 2.431720018386841, 2.71451997756958, 2.71451997756958]',
        '5 2 [1.6178799867630005, 2.4047200679779053, 2.19419002532959, 2.4047200679779053]',
        '6 1 [1.64382004737854, 2.7102200984954834, 2.7102200984954834, 2.262120008468628]',
        '7 1 [1.178439974784851, 1.5915000438690186, 1.5656399726867676, 2.216409921646118]',
        '8 1 [1.1420600414276123, 2.1646599769592285, 1.1420600414276123, 1.5414600372314453]',
        '9 1 [2.532289981842041, 1.3937100172042847, 1.2099499702453613, 1.2099499702453613]',
        '10 1 [1.06427001953125, 1.3781399726867676, 2.0556299686431885, 2.0556299686431885]',
        '11 1 [2.8794798851013184, 1.2928999662399292, 2.451119899749756, 1.5925300121307373]',
        '12 1 [1.4565900564193726, 2.4153900146484375, 1.15556001663208, 2.6459500789642334]',
        '13 1 [2.592940092086792, 1.220420002937317, 2.592940092086792, 2.159630060195923]',
        '[1 1]',
        "['deepq/Assign_13:0', 'deepq/cond_4/Merge:0', 'deepq/cond_5/Merge:0', 'deepq/Assign_12:0']",
        "['deepq/model/action_value/fully_connected/weights:0', 'deepq/model/action_value/fully_connected/biases:0', 'deepq/model/action_value/LayerNorm/beta:0', 'deepq/model/action_value/LayerNorm/gamma:0', 'deepq/model/action_value/fully_connected_1/weights:0', 'deepq/model/action_value/fully_connected_1/biases:0', 'deepq/model/state_value/fully_connected/weights:0', 'deepq/model/state_value/fully_connected/biases:0', 'deepq/model/state_value/LayerNorm/beta:0', 'deepq/model/state_value/LayerNorm/gamma:0', 'deepq/model/state_value/fully_connected_1/weights:0', 'deepq/model/state_value/fully_connected_1/biases:0'] ['deepq/target_q_func/model/action_value/fully_connected/weights:0', 'deepq/target_q_func/model/action_value/fully_connected/biases:0', 'deepq/target_q_func/model/action_value/LayerNorm/beta:0', 'deepq/target_q_func/model/action_value/LayerNorm/gamma:0', 'deepq/target_q_func/model/action_value/fully_connected_1/weights:0', 'deepq/target_q_func/model/action_value/fully_connected_1/biases:0', 'deepq/target_q_func/model/state_value/fully_connected/weights:0', 'deepq/target_q_func/model/state_value/fully_connected/biases:0', 'deepq/target_q_func/model/state_value/LayerNorm/beta:0', 'deepq/target_q_func/model/state_value/LayerNorm/gamma:0', 'deepq/target_q_func/model/state_value/fully_connected_1/weights:0', 'deepq/target_q_func/model/state_value/fully_connected_1/biases:0'] 12 Adam",
        "['deepq/model/state_value/LayerNorm/gamma/Adam:0', 'deepq/model/state_value/LayerNorm/gamma/Adam_1:0', 'deepq/model/state_value/fully_connected_1/weights/Adam:0', 'deepq/model/state_value/fully_connected_1/weights/Adam_1:0', 'deepq/model/state_value/fully_connected_1/biases/Adam:0', 'deepq/model/state_value/fully_connected_1/biases/Adam_1:0'] 78",
        '4 2 [2.7266299724578857, 2.6943600177764893, 2.2836999893188477, 2.2836999893188477]',
        '5 2 [2.58951997756958, 2.5297598838806152, 3.15664005279541, 2.5297598838806152]',
        '6 2 [1.7683099508285522, 2.2978100776672363, 2.2978100776672363, 3.347759962081909]',
        '7 2 [1.7527600526809692, 1.5953099727630615, 2.339060068130493, 3.26173996925354]',
        '8 2 [1.6103500127792358, 3.1710400581359863, 1.6103500127792358, 1.4238300323486328]',
        '9 2 [1.8535499572753906, 2.024359941482544, 1.5953099727630615, 1.5953099727630615]',
        '10 0 [1.3021600246429443, 1.88742995262146, 2.9913198947906494, 2.9913198947906494]',
        '11 0 [2.2411599159240723, 1.8129600286483765, 2.0556600093841553, 1.6821999549865723]',
        '12 0 [1.7508599758148193, 1.9310599565505981, 1.5299500226974487, 1.9318000078201294]',
        '13 0 [1.7802000045776367, 1.533560037612915, 1.7802000045776367, 3.173680067062378]',
        'scale 0.010201',
        '[1 1]',
    ],
    'awj_dddqn': [
        'Tensor("Conv_3/Relu:0", shape=(?, 1, 1, 16), dtype=float32) Tensor("split:0", shape=(?, 1, 1, 8), dtype=float32) Tensor("Flatten/flatten/Reshape:0", shape=(?, 8), dtype=float32) Tensor("add:0", shape=(?, 4), dtype=float32) Tensor("ArgMax:0", shape=(?,), dtype=int64) Adam',
        'Tensor("Conv_7/Relu:0", shape=(?, 1, 1, 16), dtype=float32) Tensor("split_1:0", shape=(?, 1, 1, 8), dtype=float32) Tensor("Flatten_2/flatten/Reshape:0", shape=(?, 8), dtype=float32) Tensor("add_1:0", shape=(?, 4), dtype=float32) Tensor("ArgMax_1:0", shape=(?,), dtype=int64) Adam_1',
        "['Conv/weights:0', 'Conv_1/weights:0', 'Conv_2/weights:0', 'Conv_3/weights:0', 'Variable:0', 'Variable_1:0', 'Conv_4/weights:0', 'Conv_5/weights:0', 'Conv_6/weights:0', 'Conv_7/weights:0', 'Variable_2:0', 'Variable_3:0'] Assign:0",
        'Saved Model',
        '8 2 0.00892 [1, 3, 3, 3]',
        '10 3 0.00471 [3, 1, 3, 3]',
        '12 3 0.00470 [3, 3, 3, 3]',
        '14 0 0.00312 [3, 3, 3, 3]',
        '16 3 0.01124 [3, 3, 3, 3]',
        '18 3 0.00374 [3, 3, 3, 3]',
        'Saved Model',
        '20 3 0.00304 [3, 3, 3, 3]',
        '22 3 0.00550 [3, 3, 3, 3]',
        '24 3 0.00832 [3, 3, 3, 3]',
        'Percent of succesful episodes: 0.0%',
        '[-1.6268399953842163, -0.07878000289201736, -1.5127700567245483, 0.7292699813842773, -0.5331900119781494, -0.7913500070571899, -0.16229000687599182, 0.4427500069141388]',
    ],
}
