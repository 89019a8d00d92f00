"""``tf.contrib.factorization.gmm`` and ``GmmAlgorithm`` (TF 1.15 ``gmm_ops``): a Gaussian mixture
fitted by expectation-maximisation, with full or diagonal covariances.

Variables: ``clusters`` (means, ``[K, 1, D]``), ``clusters_covs`` (``[K, D, D]`` or ``[K, D]``),
``alphas`` (mixture weights) and ``initialized``. The init op samples the means from the data
(or takes ``initial_clusters``) and sets every covariance to the data's covariance plus
``1e-3 I``; a training step is one EM iteration over the given shards, updating the parts named in
``params`` ("w" weights, "m" means, "c" covariances).

Departure: the covariance update uses the means of the same step directly (TF reads the means
variable's snapshot, whose order against the means update is not fixed), and the init op assigns
after its cond (tideflow's cond branches cannot change a variable's shape).
"""

import numpy as np

import tideflow as tf

MEPS = np.finfo(float).eps
FULL_COVARIANCE = "full"
DIAG_COVARIANCE = "diag"


def _covariance(x, diag):
    """The sample covariance of the rows of ``x`` (only its diagonal, ``[1, D]``, if ``diag``)."""
    n = tf.cast(tf.shape(x)[0], tf.float32)
    x -= tf.reduce_mean(x, 0, keepdims=True)
    if diag:
        return tf.reduce_sum(tf.square(x), 0, keepdims=True) / (n - 1)
    return tf.matmul(x, x, transpose_a=True) / (n - 1)


def _init_clusters_random(data, num_clusters, random_seed):
    """``num_clusters`` rows drawn uniformly (with replacement) from the shards of ``data``."""
    num_data = tf.add_n([tf.shape(x)[0] for x in data])
    with tf.control_dependencies([tf.assert_less_equal(
            num_clusters, num_data, message="GMM: fewer points than clusters")]):
        indices = tf.random_uniform([num_clusters], minval=0,
                                    maxval=tf.cast(num_data, tf.int64), seed=random_seed,
                                    dtype=tf.int64)
    indices %= tf.cast(num_data, tf.int64)
    return tf.nn.embedding_lookup(data, indices, partition_strategy="div")


class GmmAlgorithm:
    """The EM graph of a Gaussian mixture over a list of data shards."""

    CLUSTERS_WEIGHT = "alphas"
    CLUSTERS_VARIABLE = "clusters"
    CLUSTERS_COVS_VARIABLE = "clusters_covs"

    def __init__(self, data, num_classes, initial_means=None, params="wmc",
                 covariance_type=FULL_COVARIANCE, random_seed=0):
        if covariance_type not in (DIAG_COVARIANCE, FULL_COVARIANCE):
            raise ValueError(f"GMM: invalid covariance type {covariance_type!r} (expected "
                             f"'{FULL_COVARIANCE}' or '{DIAG_COVARIANCE}')")
        data = data if isinstance(data, list) else [data]
        self._params = params
        self._random_seed = random_seed
        self._covariance_type = covariance_type
        self._num_classes = num_classes
        self._dimensions = tf.shape(data[0])[1]
        self._min_var = tf.diag(tf.ones(tf.stack([self._dimensions]))) * 1e-3
        self._create_variables()
        self._initialize_variables(data, initial_means)
        self._define_graph(data)

    def _create_variables(self):
        init_value = tf.constant([], dtype=tf.float32)
        self._means = tf.Variable(init_value, name=self.CLUSTERS_VARIABLE, validate_shape=False)
        self._covs = tf.Variable(init_value, name=self.CLUSTERS_COVS_VARIABLE,
                                 validate_shape=False)
        self._alpha = tf.Variable(tf.tile([1.0 / self._num_classes], [self._num_classes]),
                                  name=self.CLUSTERS_WEIGHT, validate_shape=False)
        self._cluster_centers_initialized = tf.Variable(False, dtype=tf.bool,
                                                        name="initialized")

    def _initialize_variables(self, data, initial_means=None):
        first = data[0]

        def _fresh():
            if initial_means is not None:
                means = tf.expand_dims(tf.cast(initial_means, tf.float32), 1)
            else:
                means = tf.expand_dims(
                    _init_clusters_random(data, self._num_classes, self._random_seed), 1)
            cov = _covariance(first, self._covariance_type == DIAG_COVARIANCE) + self._min_var
            if self._covariance_type == FULL_COVARIANCE:
                covs = tf.tile(tf.expand_dims(cov, 0), [self._num_classes, 1, 1])
            else:
                covs = tf.tile(tf.expand_dims(tf.diag_part(cov), 0), [self._num_classes, 1])
            return means, covs

        means, covs = tf.cond(self._cluster_centers_initialized,
                              lambda: (tf.identity(self._means), tf.identity(self._covs)),
                              _fresh)
        a = tf.assign(self._means, means, validate_shape=False)
        b = tf.assign(self._covs, covs, validate_shape=False)
        with tf.control_dependencies([a, b]):
            flag = tf.assign(self._cluster_centers_initialized, True)
        self._init_ops = [flag.op]

    def init_ops(self):
        """The initialization op (a no-op once initialized)."""
        return tf.group(*self._init_ops)

    def training_ops(self):
        """One EM iteration."""
        return tf.group(*self._train_ops)

    def is_initialized(self):
        """The ``initialized`` flag variable."""
        return self._cluster_centers_initialized

    def alphas(self):
        return self._alpha

    def clusters(self):
        """The means, ``[num_classes, 1, dims]``."""
        return self._means

    def covariances(self):
        return self._covs

    def assignments(self):
        """Per shard, each example's most probable component."""
        return [tf.argmax(w, 1) for w in self._w]

    def scores(self):
        """Per-example log-likelihood."""
        return self._scores

    def log_likelihood_op(self):
        return self._log_likelihood_op

    # graph -----------------------------------------------------------------------------
    def _define_graph(self, data):
        n = len(data)
        self._probs, self._prior_probs, self._w = [None] * n, [None] * n, [None] * n
        self._points_in_k = [None] * n
        self._w_mul_x, self._w_mul_x2 = [], []
        for i, shard in enumerate(data):
            num_examples = tf.shape(shard)[0]
            shard = tf.expand_dims(tf.cast(shard, tf.float32), 0)
            self._define_log_prob_operation(i, shard)
            self._prior_probs[i] = tf.reduce_logsumexp(self._probs[i], axis=1, keepdims=True)
            # membership weights w_ik = alpha_k f_k(x_i) / sum_m alpha_m f_m(x_i)
            # reshaped as TF's, so a batch of known size gives weights of known shape
            self._w[i] = tf.reshape(tf.exp(self._probs[i] - self._prior_probs[i]),
                                    tf.stack([num_examples, self._num_classes]))
            self._define_partial_maximization_operation(i, shard)
        self._define_maximization_operation(n)
        self._log_likelihood_op = tf.reduce_logsumexp(
            [tf.reduce_logsumexp(p) for p in self._prior_probs])
        self._scores = tf.squeeze(tf.reduce_logsumexp(
            [p + tf.log(w) for p, w in zip(self._prior_probs, self._w)], axis=2,
            keepdims=True), axis=0)

    def _define_log_prob_operation(self, i, shard):
        d = tf.cast(self._dimensions, tf.float32)
        if self._covariance_type == FULL_COVARIANCE:
            diff = shard - self._means  # K x N x D
            chol = tf.cholesky(self._covs + self._min_var)
            log_det = 2.0 * tf.reduce_sum(tf.log(tf.matrix_diag_part(chol)), 1)
            sq = tf.square(tf.matrix_triangular_solve(chol, tf.transpose(diff, [0, 2, 1]),
                                                      lower=True))
            maha = tf.transpose(tf.reduce_sum(sq, 1))  # N x K
            probs = -0.5 * (maha + d * np.log(2 * np.pi) + log_det)
        else:
            log_det = tf.reduce_sum(tf.log(self._covs + 1e-3), 1, keepdims=True)
            x2 = tf.squared_difference(shard, self._means)  # K x N x D
            inv = tf.expand_dims(1.0 / (self._covs + 1e-3), 2)
            maha = tf.transpose(tf.squeeze(tf.matmul(x2, inv), [2]))
            probs = -0.5 * (d * np.log(2.0 * np.pi) + tf.transpose(log_det) + maha)
        self._probs[i] = probs + tf.log(self._alpha)

    def _define_partial_maximization_operation(self, i, shard):
        w = self._w[i]
        x = tf.squeeze(shard, [0])
        self._points_in_k[i] = tf.reduce_sum(w, 0, keepdims=True)
        self._w_mul_x.append(tf.expand_dims(tf.matmul(w, x, transpose_a=True), 1))
        # sum_i w_ik x_i x_i^T for each k: K x D x D
        wx = tf.expand_dims(tf.transpose(w), 2) * tf.expand_dims(x, 0)  # K x N x D
        self._w_mul_x2.append(tf.matmul(wx, tf.tile(tf.expand_dims(x, 0),
                                                    [self._num_classes, 1, 1]),
                                        transpose_a=True))

    def _define_maximization_operation(self, num_batches):
        points_in_k = tf.squeeze(tf.add_n(self._points_in_k), axis=[0])
        self._train_ops = []
        if "w" in self._params:
            final = points_in_k / num_batches
            self._train_ops.append(tf.assign(
                self._alpha, final / (tf.reduce_sum(final) + MEPS), validate_shape=False))
        nk = tf.reshape(points_in_k, [self._num_classes, 1, 1])
        new_means = tf.add_n(self._w_mul_x) / (nk + MEPS)
        means = self._means
        if "m" in self._params and "c" in self._params:
            # TF 1.15 runs the means' assignment only as a dependency of the covariances':
            # with "m" but no "c" in params the means never move
            self._train_ops.append(tf.assign(self._means, new_means, validate_shape=False))
            means = new_means
        if "c" in self._params:
            b = tf.add_n(self._w_mul_x2) / (nk + MEPS)
            new_covs = b - tf.matmul(means, means, transpose_a=True) + self._min_var
            if self._covariance_type == DIAG_COVARIANCE:
                new_covs = tf.matrix_diag_part(new_covs)
            self._train_ops.append(tf.assign(self._covs, new_covs, validate_shape=False))


def gmm(inp, initial_clusters, num_clusters, random_seed, covariance_type=FULL_COVARIANCE,
        params="wmc"):
    """Builds a GMM's EM graph: ``(loss, scores, [assignments], training_op, init_op,
    is_initialized)`` (``loss`` is the log-likelihood; ``initial_clusters`` is "random" or the
    initial means)."""
    initial_means = None
    if not (isinstance(initial_clusters, str) and initial_clusters == "random"):
        initial_means = (initial_clusters if isinstance(initial_clusters, tf.Tensor)
                         else tf.constant(initial_clusters, dtype=tf.float32))
    inp = inp if isinstance(inp, list) else [inp]
    tool = GmmAlgorithm(inp, num_clusters, initial_means, params, covariance_type, random_seed)
    return (tool.log_likelihood_op(), tool.scores(), [tool.assignments()],
            tool.training_ops(), tool.init_ops(), tool.is_initialized())


__all__ = ["DIAG_COVARIANCE", "FULL_COVARIANCE", "GmmAlgorithm", "gmm"]
