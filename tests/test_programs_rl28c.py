"""Reinforcement-learning programs tideflow had not seen, reduced as in ``test_programs_rl28.py``:
Stable Baselines' PPO2 with its MlpPolicy (tf_util, tf_layers, distributions, policies inline)."""
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
def test_sb_ppo2(capsys):
    # hill-a/stable-baselines (Stable-Baselines-Team/stable-baselines) stable_baselines/ppo2/ppo2.py setup_model,
    # _train_step, the runner and learn for one env; common/tf_util.py, input.py, tf_layers.py, distributions.py
    # (categorical, diagonal Gaussian), policies.py (FeedForwardPolicy, MlpPolicy) inline; summaries to a FileWriter
    import tempfile, random, warnings
    from itertools import zip_longest
    # --- stable_baselines/common/tf_util.py
    def make_session(num_cpu=None, make_default=False, graph=None):
        if num_cpu is None:
            num_cpu = 1
        tf_config = tf.ConfigProto(allow_soft_placement=True, inter_op_parallelism_threads=num_cpu,
                                   intra_op_parallelism_threads=num_cpu)
        tf_config.gpu_options.allow_growth = True
        if make_default:
            return tf.InteractiveSession(config=tf_config, graph=graph)
        else:
            return tf.Session(config=tf_config, graph=graph)
    def outer_scope_getter(scope, new_scope=""):
        def _getter(getter, name, *args, **kwargs):
            name = name.replace(scope + "/", new_scope, 1)
            val = getter(name, *args, **kwargs)
            return val
        return _getter
    # --- stable_baselines/common/input.py
    def observation_input(ob_space, batch_size=None, name='Ob', scale=False):
        if isinstance(ob_space, Discrete):
            observation_ph = tf.placeholder(shape=(batch_size,), dtype=tf.int32, name=name)
            processed_observations = tf.cast(tf.one_hot(observation_ph, ob_space.n), tf.float32)
            return observation_ph, processed_observations
        elif isinstance(ob_space, Box):
            observation_ph = tf.placeholder(shape=(batch_size,) + ob_space.shape, dtype=ob_space.dtype, name=name)
            processed_observations = tf.cast(observation_ph, tf.float32)
            return observation_ph, processed_observations
    # --- stable_baselines/common/tf_layers.py
    def ortho_init(scale=1.0):
        def _ortho_init(shape, *_, **_kwargs):
            shape = tuple(shape)
            if len(shape) == 2:
                flat_shape = shape
            elif len(shape) == 4:
                flat_shape = (np.prod(shape[:-1]), shape[-1])
            else:
                raise NotImplementedError
            gaussian_noise = np.random.normal(0.0, 1.0, flat_shape)
            u, _, v = np.linalg.svd(gaussian_noise, full_matrices=False)
            # (not in the repository) NumPy 1.18's and 2.4's LAPACK choose different signs for the
            # singular vectors; fix them so that both runs start from the same weights
            u = u * np.sign(u[0:1, :]); v = v * np.sign(v[:, 0:1])
            weights = u if u.shape == flat_shape else v
            weights = weights.reshape(shape)
            return (scale * weights[:shape[0], :shape[1]]).astype(np.float32)
        return _ortho_init
    def linear(input_tensor, scope, n_hidden, *, init_scale=1.0, init_bias=0.0):
        with tf.variable_scope(scope):
            n_input = input_tensor.get_shape()[1].value
            weight = tf.get_variable("w", [n_input, n_hidden], initializer=ortho_init(init_scale))
            bias = tf.get_variable("b", [n_hidden], initializer=tf.constant_initializer(init_bias))
            return tf.matmul(input_tensor, weight) + bias
    # --- stable_baselines/common/distributions.py (categorical and diagonal Gaussian)
    class ProbabilityDistribution(object):
        def __init__(self, seed=0):
            self.current_seed = seed
        def logp(self, x):
            return - self.neglogp(x)
    class ProbabilityDistributionType(object):
        def proba_distribution_from_flat(self, flat):
            return self.probability_distribution_class()(flat)
        def sample_placeholder(self, prepend_shape, name=None):
            return tf.placeholder(dtype=self.sample_dtype(), shape=prepend_shape + self.sample_shape(), name=name)
    class CategoricalProbabilityDistributionType(ProbabilityDistributionType):
        def __init__(self, n_cat):
            self.n_cat = n_cat
        def probability_distribution_class(self):
            return CategoricalProbabilityDistribution
        def proba_distribution_from_latent(self, pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0):
            pdparam = linear(pi_latent_vector, 'pi', self.n_cat, init_scale=init_scale, init_bias=init_bias)
            q_values = linear(vf_latent_vector, 'q', self.n_cat, init_scale=init_scale, init_bias=init_bias)
            return self.proba_distribution_from_flat(pdparam), pdparam, q_values
        def param_shape(self):
            return [self.n_cat]
        def sample_shape(self):
            return []
        def sample_dtype(self):
            return tf.int32
    class DiagGaussianProbabilityDistributionType(ProbabilityDistributionType):
        def __init__(self, size):
            self.size = size
        def probability_distribution_class(self):
            return DiagGaussianProbabilityDistribution
        def proba_distribution_from_latent(self, pi_latent_vector, vf_latent_vector, init_scale=1.0, init_bias=0.0):
            mean = linear(pi_latent_vector, 'pi', self.size, init_scale=init_scale, init_bias=init_bias)
            logstd = tf.get_variable(name='pi/logstd', shape=[1, self.size], initializer=tf.zeros_initializer())
            pdparam = tf.concat([mean, mean * 0.0 + logstd], axis=1)
            q_values = linear(vf_latent_vector, 'q', self.size, init_scale=init_scale, init_bias=init_bias)
            return self.proba_distribution_from_flat(pdparam), mean, q_values
        def param_shape(self):
            return [2 * self.size]
        def sample_shape(self):
            return [self.size]
        def sample_dtype(self):
            return tf.float32
    class CategoricalProbabilityDistribution(ProbabilityDistribution):
        def __init__(self, logits, seed=0):
            self.logits = logits
            super(CategoricalProbabilityDistribution, self).__init__(seed)
        def flatparam(self):
            return self.logits
        def mode(self):
            return tf.argmax(self.logits, axis=-1)
        def neglogp(self, x):
            one_hot_actions = tf.one_hot(x, self.logits.get_shape().as_list()[-1])
            return tf.nn.softmax_cross_entropy_with_logits_v2(
                logits=self.logits,
                labels=tf.stop_gradient(one_hot_actions))
        def kl(self, other):
            a_0 = self.logits - tf.reduce_max(self.logits, axis=-1, keepdims=True)
            a_1 = other.logits - tf.reduce_max(other.logits, axis=-1, keepdims=True)
            exp_a_0 = tf.exp(a_0)
            exp_a_1 = tf.exp(a_1)
            z_0 = tf.reduce_sum(exp_a_0, axis=-1, keepdims=True)
            z_1 = tf.reduce_sum(exp_a_1, axis=-1, keepdims=True)
            p_0 = exp_a_0 / z_0
            return tf.reduce_sum(p_0 * (a_0 - tf.log(z_0) - a_1 + tf.log(z_1)), axis=-1)
        def entropy(self):
            a_0 = self.logits - tf.reduce_max(self.logits, axis=-1, keepdims=True)
            exp_a_0 = tf.exp(a_0)
            z_0 = tf.reduce_sum(exp_a_0, axis=-1, keepdims=True)
            p_0 = exp_a_0 / z_0
            return tf.reduce_sum(p_0 * (tf.log(z_0) - a_0), axis=-1)
        def sample(self):
            self.current_seed += 1
            uniform = tf.random_uniform(tf.shape(self.logits), dtype=self.logits.dtype, seed=self.current_seed)
            return tf.argmax(self.logits - tf.log(-tf.log(uniform)), axis=-1)
    class DiagGaussianProbabilityDistribution(ProbabilityDistribution):
        def __init__(self, flat, seed=0):
            self.flat = flat
            mean, logstd = tf.split(axis=len(flat.shape) - 1, num_or_size_splits=2, value=flat)
            self.mean = mean
            self.logstd = logstd
            self.std = tf.exp(logstd)
            super(DiagGaussianProbabilityDistribution, self).__init__(seed)
        def flatparam(self):
            return self.flat
        def mode(self):
            return self.mean
        def neglogp(self, x):
            return 0.5 * tf.reduce_sum(tf.square((x - self.mean) / self.std), axis=-1) \
                   + 0.5 * np.log(2.0 * np.pi) * tf.to_float(tf.shape(x)[-1]) \
                   + tf.reduce_sum(self.logstd, axis=-1)
        def kl(self, other):
            return tf.reduce_sum(other.logstd - self.logstd + (tf.square(self.std) + tf.square(self.mean - other.mean)) /
                                 (2.0 * tf.square(other.std)) - 0.5, axis=-1)
        def entropy(self):
            return tf.reduce_sum(self.logstd + .5 * np.log(2.0 * np.pi * np.e), axis=-1)
        def sample(self):
            self.current_seed += 1
            return self.mean + self.std * tf.random_normal(tf.shape(self.mean),
                                                           seed=self.current_seed,
                                                           dtype=self.mean.dtype)
    def make_proba_dist_type(ac_space):
        if isinstance(ac_space, Box):
            return DiagGaussianProbabilityDistributionType(ac_space.shape[0])
        elif isinstance(ac_space, Discrete):
            return CategoricalProbabilityDistributionType(ac_space.n)
    # --- stable_baselines/common/policies.py (MlpPolicy)
    def mlp_extractor(flat_observations, net_arch, act_fun):
        latent = flat_observations
        policy_only_layers = []
        value_only_layers = []
        for idx, layer in enumerate(net_arch):
            if isinstance(layer, int):
                layer_size = layer
                latent = act_fun(linear(latent, "shared_fc{}".format(idx), layer_size, init_scale=np.sqrt(2)))
            else:
                if 'pi' in layer:
                    policy_only_layers = layer['pi']
                if 'vf' in layer:
                    value_only_layers = layer['vf']
                break
        latent_policy = latent
        latent_value = latent
        for idx, (pi_layer_size, vf_layer_size) in enumerate(zip_longest(policy_only_layers, value_only_layers)):
            if pi_layer_size is not None:
                latent_policy = act_fun(linear(latent_policy, "pi_fc{}".format(idx), pi_layer_size, init_scale=np.sqrt(2)))
            if vf_layer_size is not None:
                latent_value = act_fun(linear(latent_value, "vf_fc{}".format(idx), vf_layer_size, init_scale=np.sqrt(2)))
        return latent_policy, latent_value
    class BasePolicy(object):
        recurrent = False
        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, scale=False,
                     obs_phs=None, add_action_ph=False):
            self.n_env = n_env
            self.n_steps = n_steps
            self.n_batch = n_batch
            with tf.variable_scope("input", reuse=False):
                if obs_phs is None:
                    self._obs_ph, self._processed_obs = observation_input(ob_space, n_batch, scale=scale)
                else:
                    self._obs_ph, self._processed_obs = obs_phs
                self._action_ph = None
            self.sess = sess
            self.reuse = reuse
            self.ob_space = ob_space
            self.ac_space = ac_space
        @property
        def initial_state(self):
            return None
        @property
        def obs_ph(self):
            return self._obs_ph
        @property
        def processed_obs(self):
            return self._processed_obs
    class ActorCriticPolicy(BasePolicy):
        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, scale=False):
            super(ActorCriticPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                                                    scale=scale)
            self._pdtype = make_proba_dist_type(ac_space)
            self._policy = None
            self._proba_distribution = None
            self._value_fn = None
            self._action = None
            self._deterministic_action = None
        def _setup_init(self):
            with tf.variable_scope("output", reuse=True):
                assert self.policy is not None and self.proba_distribution is not None and self.value_fn is not None
                self._action = self.proba_distribution.sample()
                self._deterministic_action = self.proba_distribution.mode()
                self._neglogp = self.proba_distribution.neglogp(self.action)
                if isinstance(self.proba_distribution, CategoricalProbabilityDistribution):
                    self._policy_proba = tf.nn.softmax(self.policy)
                elif isinstance(self.proba_distribution, DiagGaussianProbabilityDistribution):
                    self._policy_proba = [self.proba_distribution.mean, self.proba_distribution.std]
                self._value_flat = self.value_fn[:, 0]
        pdtype = property(lambda self: self._pdtype)
        policy = property(lambda self: self._policy)
        proba_distribution = property(lambda self: self._proba_distribution)
        value_fn = property(lambda self: self._value_fn)
        value_flat = property(lambda self: self._value_flat)
        action = property(lambda self: self._action)
        deterministic_action = property(lambda self: self._deterministic_action)
        neglogp = property(lambda self: self._neglogp)
        policy_proba = property(lambda self: self._policy_proba)
    class FeedForwardPolicy(ActorCriticPolicy):
        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, layers=None, net_arch=None,
                     act_fun=tf.tanh, cnn_extractor=None, feature_extraction="cnn", **kwargs):
            super(FeedForwardPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=reuse,
                                                    scale=(feature_extraction == "cnn"))
            if net_arch is None:
                if layers is None:
                    layers = [64, 64]
                net_arch = [dict(vf=layers, pi=layers)]
            with tf.variable_scope("model", reuse=reuse):
                pi_latent, vf_latent = mlp_extractor(tf.layers.flatten(self.processed_obs), net_arch, act_fun)
                self._value_fn = linear(vf_latent, 'vf', 1)
                self._proba_distribution, self._policy, self.q_value = \
                    self.pdtype.proba_distribution_from_latent(pi_latent, vf_latent, init_scale=0.01)
            self._setup_init()
        def step(self, obs, state=None, mask=None, deterministic=False):
            if deterministic:
                action, value, neglogp = self.sess.run([self.deterministic_action, self.value_flat, self.neglogp],
                                                       {self.obs_ph: obs})
            else:
                action, value, neglogp = self.sess.run([self.action, self.value_flat, self.neglogp],
                                                       {self.obs_ph: obs})
            return action, value, self.initial_state, neglogp
        def proba_step(self, obs, state=None, mask=None):
            return self.sess.run(self.policy_proba, {self.obs_ph: obs})
        def value(self, obs, state=None, mask=None):
            return self.sess.run(self.value_flat, {self.obs_ph: obs})
    class MlpPolicy(FeedForwardPolicy):
        def __init__(self, sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse=False, **_kwargs):
            super(MlpPolicy, self).__init__(sess, ob_space, ac_space, n_env, n_steps, n_batch, reuse,
                                            feature_extraction="mlp", **_kwargs)
    # --- stable_baselines/ppo2/ppo2.py setup_model and _train_step; the runner reduced to one env
    class PPO2:
        def __init__(self, policy, env, gamma=0.99, n_steps=128, ent_coef=0.01, learning_rate=2.5e-4, vf_coef=0.5,
                     max_grad_norm=0.5, lam=0.95, nminibatches=4, noptepochs=4, cliprange=0.2, cliprange_vf=None,
                     seed=None, policy_kwargs=None, full_tensorboard_log=False):
            self.policy, self.env = policy, env
            self.observation_space, self.action_space = env.observation_space, env.action_space
            self.n_envs, self.n_steps, self.gamma, self.lam = 1, n_steps, gamma, lam
            self.ent_coef, self.vf_coef, self.max_grad_norm = ent_coef, vf_coef, max_grad_norm
            self.learning_rate, self.nminibatches, self.noptepochs = learning_rate, nminibatches, noptepochs
            self.cliprange, self.cliprange_vf, self.seed = cliprange, cliprange_vf, seed
            self.policy_kwargs = {} if policy_kwargs is None else policy_kwargs
            self.full_tensorboard_log, self.n_cpu_tf_sess = full_tensorboard_log, 1
            self.setup_model()
        def set_random_seed(self, seed):
            if seed is None:
                return
            np.random.seed(seed)
            random.seed(seed)
            tf.set_random_seed(seed)
        def setup_model(self):
            self.n_batch = self.n_envs * self.n_steps
            self.graph = tf.Graph()
            with self.graph.as_default():
                self.set_random_seed(self.seed)
                self.sess = make_session(num_cpu=self.n_cpu_tf_sess, graph=self.graph)
                n_batch_step = None
                n_batch_train = None
                act_model = self.policy(self.sess, self.observation_space, self.action_space, self.n_envs, 1,
                                        n_batch_step, reuse=False, **self.policy_kwargs)
                with tf.variable_scope("train_model", reuse=True,
                                       custom_getter=outer_scope_getter("train_model")):
                    train_model = self.policy(self.sess, self.observation_space, self.action_space,
                                              self.n_envs // self.nminibatches, self.n_steps, n_batch_train,
                                              reuse=True, **self.policy_kwargs)
                with tf.variable_scope("loss", reuse=False):
                    self.action_ph = train_model.pdtype.sample_placeholder([None], name="action_ph")
                    self.advs_ph = tf.placeholder(tf.float32, [None], name="advs_ph")
                    self.rewards_ph = tf.placeholder(tf.float32, [None], name="rewards_ph")
                    self.old_neglog_pac_ph = tf.placeholder(tf.float32, [None], name="old_neglog_pac_ph")
                    self.old_vpred_ph = tf.placeholder(tf.float32, [None], name="old_vpred_ph")
                    self.learning_rate_ph = tf.placeholder(tf.float32, [], name="learning_rate_ph")
                    self.clip_range_ph = tf.placeholder(tf.float32, [], name="clip_range_ph")
                    neglogpac = train_model.proba_distribution.neglogp(self.action_ph)
                    self.entropy = tf.reduce_mean(train_model.proba_distribution.entropy())
                    vpred = train_model.value_flat
                    if self.cliprange_vf is None:
                        self.clip_range_vf_ph = self.clip_range_ph
                        self.cliprange_vf = self.cliprange
                    elif isinstance(self.cliprange_vf, (float, int)) and self.cliprange_vf < 0:
                        self.clip_range_vf_ph = None
                    else:
                        self.clip_range_vf_ph = tf.placeholder(tf.float32, [], name="clip_range_vf_ph")
                    if self.clip_range_vf_ph is None:
                        vpred_clipped = train_model.value_flat
                    else:
                        vpred_clipped = self.old_vpred_ph + \
                            tf.clip_by_value(train_model.value_flat - self.old_vpred_ph,
                                             - self.clip_range_vf_ph, self.clip_range_vf_ph)
                    vf_losses1 = tf.square(vpred - self.rewards_ph)
                    vf_losses2 = tf.square(vpred_clipped - self.rewards_ph)
                    self.vf_loss = .5 * tf.reduce_mean(tf.maximum(vf_losses1, vf_losses2))
                    ratio = tf.exp(self.old_neglog_pac_ph - neglogpac)
                    pg_losses = -self.advs_ph * ratio
                    pg_losses2 = -self.advs_ph * tf.clip_by_value(ratio, 1.0 - self.clip_range_ph, 1.0 +
                                                                  self.clip_range_ph)
                    self.pg_loss = tf.reduce_mean(tf.maximum(pg_losses, pg_losses2))
                    self.approxkl = .5 * tf.reduce_mean(tf.square(neglogpac - self.old_neglog_pac_ph))
                    self.clipfrac = tf.reduce_mean(tf.cast(tf.greater(tf.abs(ratio - 1.0),
                                                                      self.clip_range_ph), tf.float32))
                    loss = self.pg_loss - self.entropy * self.ent_coef + self.vf_loss * self.vf_coef
                    tf.summary.scalar('entropy_loss', self.entropy)
                    tf.summary.scalar('policy_gradient_loss', self.pg_loss)
                    tf.summary.scalar('value_function_loss', self.vf_loss)
                    tf.summary.scalar('approximate_kullback-leibler', self.approxkl)
                    tf.summary.scalar('clip_factor', self.clipfrac)
                    tf.summary.scalar('loss', loss)
                    with tf.variable_scope('model'):
                        self.params = tf.trainable_variables()
                        if self.full_tensorboard_log:
                            for var in self.params:
                                tf.summary.histogram(var.name, var)
                    grads = tf.gradients(loss, self.params)
                    if self.max_grad_norm is not None:
                        grads, _grad_norm = tf.clip_by_global_norm(grads, self.max_grad_norm)
                    grads = list(zip(grads, self.params))
                trainer = tf.train.AdamOptimizer(learning_rate=self.learning_rate_ph, epsilon=1e-5)
                self._train = trainer.apply_gradients(grads)
                with tf.variable_scope("input_info", reuse=False):
                    tf.summary.scalar('discounted_rewards', tf.reduce_mean(self.rewards_ph))
                    tf.summary.scalar('learning_rate', tf.reduce_mean(self.learning_rate_ph))
                    tf.summary.scalar('advantage', tf.reduce_mean(self.advs_ph))
                    tf.summary.scalar('clip_range', tf.reduce_mean(self.clip_range_ph))
                    if self.clip_range_vf_ph is not None:
                        tf.summary.scalar('clip_range_vf', tf.reduce_mean(self.clip_range_vf_ph))
                    tf.summary.scalar('old_neglog_action_probability', tf.reduce_mean(self.old_neglog_pac_ph))
                    tf.summary.scalar('old_value_pred', tf.reduce_mean(self.old_vpred_ph))
                    if self.full_tensorboard_log:
                        tf.summary.histogram('discounted_rewards', self.rewards_ph)
                        tf.summary.histogram('observation', train_model.obs_ph)
                self.train_model = train_model
                self.act_model = act_model
                self.step = act_model.step
                self.proba_step = act_model.proba_step
                self.value = act_model.value
                tf.global_variables_initializer().run(session=self.sess)
                self.summary = tf.summary.merge_all()
                print(act_model.obs_ph, train_model.obs_ph, act_model.action, act_model.neglogp, train_model.value_flat)
                print([p.name for p in self.params])
                print(self.summary, [s.name for s in self.graph.get_collection(tf.GraphKeys.SUMMARIES)])
                print(len(self.graph.get_operations()), self._train.name)
        def _train_step(self, learning_rate, cliprange, obs, returns, masks, actions, values, neglogpacs, update,
                        writer, states=None, cliprange_vf=None):
            advs = returns - values
            advs = (advs - advs.mean()) / (advs.std() + 1e-8)
            td_map = {self.train_model.obs_ph: obs, self.action_ph: actions,
                      self.advs_ph: advs, self.rewards_ph: returns,
                      self.learning_rate_ph: learning_rate, self.clip_range_ph: cliprange,
                      self.old_neglog_pac_ph: neglogpacs, self.old_vpred_ph: values}
            if cliprange_vf is not None and cliprange_vf >= 0:
                td_map[self.clip_range_vf_ph] = cliprange_vf
            update_fac = max(self.n_batch // self.nminibatches // self.noptepochs, 1)
            if writer is not None:
                if self.full_tensorboard_log and (1 + update) % 10 == 0:
                    run_options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
                    run_metadata = tf.RunMetadata()
                    summary, policy_loss, value_loss, policy_entropy, approxkl, clipfrac, _ = self.sess.run(
                        [self.summary, self.pg_loss, self.vf_loss, self.entropy, self.approxkl, self.clipfrac, self._train],
                        td_map, options=run_options, run_metadata=run_metadata)
                    writer.add_run_metadata(run_metadata, 'step%d' % (update * update_fac))
                else:
                    summary, policy_loss, value_loss, policy_entropy, approxkl, clipfrac, _ = self.sess.run(
                        [self.summary, self.pg_loss, self.vf_loss, self.entropy, self.approxkl, self.clipfrac, self._train],
                        td_map)
                writer.add_summary(summary, (update * update_fac))
            else:
                policy_loss, value_loss, policy_entropy, approxkl, clipfrac, _ = self.sess.run(
                    [self.pg_loss, self.vf_loss, self.entropy, self.approxkl, self.clipfrac, self._train], td_map)
            return policy_loss, value_loss, policy_entropy, approxkl, clipfrac
        def _run(self):
            # stable_baselines/ppo2/ppo2.py Runner._run for one env
            mb_obs, mb_rewards, mb_actions, mb_values, mb_dones, mb_neglogpacs = [], [], [], [], [], []
            for _ in range(self.n_steps):
                actions, values, _, neglogpacs = self.step(self.obs[None])
                mb_obs.append(self.obs.copy())
                mb_actions.append(actions[0])
                mb_values.append(values[0])
                mb_neglogpacs.append(neglogpacs[0])
                mb_dones.append(self.done)
                clipped_actions = actions[0]
                if isinstance(self.action_space, Box):
                    clipped_actions = np.clip(actions[0], self.action_space.low, self.action_space.high)
                self.obs, rew, self.done, _ = self.env.step(clipped_actions)
                if self.done:
                    self.obs = self.env.reset()
                mb_rewards.append(rew)
            mb_obs = np.asarray(mb_obs, dtype=np.float32)
            mb_rewards = np.asarray(mb_rewards, dtype=np.float32)
            mb_actions = np.asarray(mb_actions)
            mb_values = np.asarray(mb_values, dtype=np.float32)
            mb_neglogpacs = np.asarray(mb_neglogpacs, dtype=np.float32)
            mb_dones = np.asarray(mb_dones, dtype=bool)
            last_values = self.value(self.obs[None])[0]
            mb_advs = np.zeros_like(mb_rewards)
            last_gae_lam = 0
            for step in reversed(range(self.n_steps)):
                if step == self.n_steps - 1:
                    nextnonterminal = 1.0 - self.done
                    nextvalues = last_values
                else:
                    nextnonterminal = 1.0 - mb_dones[step + 1]
                    nextvalues = mb_values[step + 1]
                delta = mb_rewards[step] + self.gamma * nextvalues * nextnonterminal - mb_values[step]
                mb_advs[step] = last_gae_lam = delta + self.gamma * self.lam * nextnonterminal * last_gae_lam
            mb_returns = mb_advs + mb_values
            return mb_obs, mb_returns, mb_dones, mb_actions, mb_values, mb_neglogpacs
        def learn(self, total_timesteps, writer=None):
            self.obs, self.done = self.env.reset(), False
            n_updates = total_timesteps // self.n_batch
            for update in range(1, n_updates + 1):
                batch_size = self.n_batch // self.nminibatches
                obs, returns, masks, actions, values, neglogpacs = self._run()
                mb_loss_vals = []
                update_fac = max(self.n_batch // self.nminibatches // self.noptepochs, 1)
                inds = np.arange(self.n_batch)
                for epoch_num in range(self.noptepochs):
                    np.random.shuffle(inds)
                    for start in range(0, self.n_batch, batch_size):
                        timestep = ((epoch_num * self.n_batch + start) // batch_size)
                        end = start + batch_size
                        mbinds = inds[start:end]
                        slices = (arr[mbinds] for arr in (obs, returns, masks, actions, values, neglogpacs))
                        mb_loss_vals.append(self._train_step(self.learning_rate, self.cliprange, *slices, writer=writer,
                                                             update=timestep, cliprange_vf=self.cliprange_vf))
                loss_vals = np.mean(mb_loss_vals, axis=0)
                print(update, ' '.join('%.5f' % (round(float(v), 5) + 0.0) for v in loss_vals))
    for disc in (True, False):
        model = PPO2(MlpPolicy, FakeEnv(discrete=disc), n_steps=8, nminibatches=2, noptepochs=2, seed=4,
                     policy_kwargs=dict(net_arch=[8, dict(pi=[6], vf=[5])]), full_tensorboard_log=disc,
                     cliprange_vf=None if disc else 0.3)
        logdir = tempfile.mkdtemp()
        with model.graph.as_default():
            writer = tf.summary.FileWriter(logdir, graph=model.graph)
        model.learn(32, writer=writer)
        writer.close()
        print(model.proba_step(np.ones((2, 3), np.float32)))
        print(model.step(np.ones((1, 3), np.float32), deterministic=True))
        model.sess.close()
    _same(capsys.readouterr().out.splitlines(), _TF115_PRINTED["sb_ppo2"], 1e-6)


# What TF 1.15 (tensorflow-cpu 1.15.0, NumPy 1.18) printed running each program (measured).
_TF115_PRINTED = {
    'sb_ppo2': [
        'Tensor("input/Ob:0", shape=(?, 3), dtype=float32) Tensor("train_model/input/Ob:0", shape=(?, 3), dtype=float32) Tensor("output/ArgMax:0", shape=(?,), dtype=int64) Tensor("output/softmax_cross_entropy_with_logits/Reshape_2:0", shape=(?,), dtype=float32) Tensor("train_model/output/strided_slice:0", shape=(?,), dtype=float32)',
        "['model/shared_fc0/w:0', 'model/shared_fc0/b:0', 'model/pi_fc0/w:0', 'model/pi_fc0/b:0', 'model/vf_fc0/w:0', 'model/vf_fc0/b:0', 'model/vf/w:0', 'model/vf/b:0', 'model/pi/w:0', 'model/pi/b:0', 'model/q/w:0', 'model/q/b:0']",
        'Tensor("Merge/MergeSummary:0", shape=(), dtype=string) [\'loss/entropy_loss:0\', \'loss/policy_gradient_loss:0\', \'loss/value_function_loss:0\', \'loss/approximate_kullback-leibler:0\', \'loss/clip_factor:0\', \'loss/loss:0\', \'loss/model/model/shared_fc0/w_0:0\', \'loss/model/model/shared_fc0/b_0:0\', \'loss/model/model/pi_fc0/w_0:0\', \'loss/model/model/pi_fc0/b_0:0\', \'loss/model/model/vf_fc0/w_0:0\', \'loss/model/model/vf_fc0/b_0:0\', \'loss/model/model/vf/w_0:0\', \'loss/model/model/vf/b_0:0\', \'loss/model/model/pi/w_0:0\', \'loss/model/model/pi/b_0:0\', \'loss/model/model/q/w_0:0\', \'loss/model/model/q/b_0:0\', \'input_info/discounted_rewards:0\', \'input_info/learning_rate:0\', \'input_info/advantage:0\', \'input_info/clip_range:0\', \'input_info/clip_range_vf:0\', \'input_info/old_neglog_action_probability:0\', \'input_info/old_value_pred:0\', \'input_info/discounted_rewards_1:0\', \'input_info/observation:0\']',
        '894 Adam',
        '1 -0.00071 7.71747 0.69314 0.00000 0.00000',
        '2 -0.00016 3.52522 0.69313 0.00000 0.00000',
        '3 -0.00028 2.73027 0.69311 0.00000 0.00000',
        '4 -0.00039 4.34981 0.69310 0.00000 0.00000',
        '[[0.49256963 0.5074303 ]',
        ' [0.49256963 0.5074303 ]]',
        '(array([1]), array([0.14013577], dtype=float32), None, array([0.67839587], dtype=float32))',
        'Tensor("input/Ob:0", shape=(?, 3), dtype=float32) Tensor("train_model/input/Ob:0", shape=(?, 3), dtype=float32) Tensor("output/add:0", shape=(?, 2), dtype=float32) Tensor("output/add_2:0", shape=(?,), dtype=float32) Tensor("train_model/output/strided_slice_1:0", shape=(?,), dtype=float32)',
        "['model/shared_fc0/w:0', 'model/shared_fc0/b:0', 'model/pi_fc0/w:0', 'model/pi_fc0/b:0', 'model/vf_fc0/w:0', 'model/vf_fc0/b:0', 'model/vf/w:0', 'model/vf/b:0', 'model/pi/w:0', 'model/pi/b:0', 'model/pi/logstd:0', 'model/q/w:0', 'model/q/b:0']",
        'Tensor("Merge/MergeSummary:0", shape=(), dtype=string) [\'loss/entropy_loss:0\', \'loss/policy_gradient_loss:0\', \'loss/value_function_loss:0\', \'loss/approximate_kullback-leibler:0\', \'loss/clip_factor:0\', \'loss/loss:0\', \'input_info/discounted_rewards:0\', \'input_info/learning_rate:0\', \'input_info/advantage:0\', \'input_info/clip_range:0\', \'input_info/clip_range_vf:0\', \'input_info/old_neglog_action_probability:0\', \'input_info/old_value_pred:0\']',
        '846 Adam',
        '1 -0.00130 37.34058 2.83835 0.00001 0.00000',
        '2 -0.00015 5.40127 2.83904 0.00000 0.00000',
        '3 -0.00031 5.01620 2.83906 0.00000 0.00000',
        '4 -0.00038 23.79512 2.83858 0.00000 0.00000',
        '[array([[-0.01039405,  0.01263524],',
        '       [-0.01039405,  0.01263524]], dtype=float32), array([[1.0004815 , 0.99999493],',
        '       [1.0004815 , 0.99999493]], dtype=float32)]',
        '(array([[-0.01039406,  0.01263525]], dtype=float32), array([0.14348891], dtype=float32), None, array([3.928195], dtype=float32))',
    ],
}
