"""``tf.contrib.factorization``'s k-means (TF 1.15 ``clustering_ops``): the ``KMeans`` graph
builder and its three kernels, ``KmeansPlusPlusInitialization``, ``KMC2ChainInitialization``
and ``NearestNeighbors`` (NumPy, not differentiable; TF's SimplePhilox draws and float32
arithmetic, so seeded results are TF's).

``KMeans.training_graph()`` returns ``(all_scores, cluster_idx, scores,
cluster_centers_initialized, init_op, training_op)``. The centres live in a variable named
``clusters`` that starts empty (shape ``[0]``); ``init_op`` appends up to the remaining number of
centres chosen from the current batch (random rows, k-means++ or k-MC2) and sets the
``initialized`` flag once all ``num_clusters`` are there. Full-batch training is one Lloyd step;
mini-batch training moves each centre towards its points by ``1 / count`` (with a second,
per-step copy of the centres when ``mini_batch_steps_per_iteration > 1``).

Departure: tideflow's ``tf.cond`` runs its branches as functions, inside which an ``Assign`` cannot
change a variable's shape, so the init op computes the new centres under the cond and assigns
them (with ``validate_shape=False``) after it.
"""

import math

import numpy as np

import tideflow as tf
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import philox

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


# ----------------------------------------------------------------------------- kernels


_EXACT_BUDGET = 1 << 24  # products a depth-ordered float32 inner product may take


def _inner(a, b):
    """``a @ b.T`` in float32. TF's Eigen products add the terms in depth order without fused
    multiply-adds, which BLAS's sgemm does not; sums that small are added as Eigen does."""
    if a.shape[0] * b.shape[0] * a.shape[1] > _EXACT_BUDGET:
        return a @ b.T
    out = np.zeros((a.shape[0], b.shape[0]), np.float32)
    for d in range(a.shape[1]):
        out += a[:, d:d + 1] * b[:, d]
    return out


def _half_norms(x):
    """Half of each row's squared norm, in float32 as TF's ``0.5 * rowwise().squaredNorm()``."""
    out = np.zeros(x.shape[0], np.float32)
    for d in range(x.shape[1]):
        out += x[:, d] * x[:, d]
    return np.float32(0.5) * out


def _scalar(name, value):
    v = np.asarray(value)
    if v.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"Input {name} should be a scalar.")
    return int(v)


def _matrix(name, value):
    v = np.asarray(value)
    if v.ndim != 2:
        raise errors.InvalidArgumentError(None, None, f"Input {name} should be a matrix.")
    return v


def _kmeans_pp_kernel(points, num_to_sample, seed, num_retries_per_sample):
    # TF 1.15's kernel step by step: float32 half squared distances, a SimplePhilox on
    # PhiloxRandom(seed), each centre the best of 1 + retries draws (the first among uniform
    # ones), later draws by the running sum of the distances, redrawn when already chosen
    points = _matrix("points", points)
    k = _scalar("num_to_sample", num_to_sample)
    seed = _scalar("seed", seed)
    retries = _scalar("num_retries_per_sample", num_retries_per_sample)
    n = points.shape[0]
    if retries < 0:
        retries = 2 + int(math.log(k)) if k > 0 else 2
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, "Expected points.rows() > 0.")
    if k <= 0:
        raise errors.InvalidArgumentError(None, None, "Expected num_to_sample > 0.")
    if k > n:
        raise errors.InvalidArgumentError(
            None, None, f"Expected num_to_sample <= points.rows(). {k} vs {n}.")
    pts = np.ascontiguousarray(points, dtype=np.float32)
    half = _half_norms(pts)
    rng = philox.PhiloxWords(seed, 0)
    chosen, seen = [], set()
    min_d = np.full(n, np.inf, np.float32)
    cumsum = None

    def draw():
        if not seen:
            return rng.uniform64(n)
        while True:
            v = np.float32(rng.rand_float() * cumsum[-1])
            index = int(np.searchsorted(cumsum, v, side="right"))
            if index not in seen:
                return index

    def with_point(index):
        index = min(index, n - 1)
        return np.minimum(min_d, (half - _inner(pts, pts[index:index + 1])[:, 0]) + half[index])

    for i in range(k):
        if i > 0:
            cumsum = np.cumsum(min_d, dtype=np.float32)
        if retries == 0:
            best = draw()
            best_d = with_point(best)
        else:
            best, best_d, best_potential = 0, None, np.float32(np.inf)
            for _ in range(1 + retries):
                index = draw()
                d = with_point(index)
                potential = np.sum(d, dtype=np.float32)
                if potential < best_potential:
                    best, best_d, best_potential = index, d, potential
        if best_d is not None:
            min_d = best_d
        best = min(best, n - 1)
        chosen.append(best)
        seen.add(best)
    return pts[np.asarray(chosen, np.int64)]


# no shape function: TF 1.15 registers UnknownShape for it and NearestNeighbors
op_registry.declare(
    "KmeansPlusPlusInitialization",
    inputs=["points: float", "num_to_sample: int64", "seed: int64",
            "num_retries_per_sample: int64"],
    outputs=["samples: float"],
    kernel=_kmeans_pp_kernel,
    differentiable=False,
)


def _kmc2_kernel(distances, seed):
    # TF 1.15's Markov chain: one SimplePhilox RandFloat per candidate, float32 products
    d = np.asarray(distances, np.float32)
    if d.ndim != 1:
        raise errors.InvalidArgumentError(None, None, "Input distances should be a vector.")
    seed = _scalar("seed", seed)
    if d.shape[0] == 0:
        raise errors.InvalidArgumentError(None, None,
                                          "Expected distances_tensor.size() > 0.")
    rng = philox.PhiloxWords(seed, 0)
    selected, selected_d = 0, d[0]
    for i in range(1, d.shape[0]):
        if d[i] > rng.rand_float() * selected_d:
            selected, selected_d = i, d[i]
    return np.int64(selected)


op_registry.declare(
    "KMC2ChainInitialization",
    inputs=["distances: float", "seed: int64"],
    outputs=["index: int64"],
    shape=lambda op: [TensorShape([])],
    kernel=_kmc2_kernel,
    differentiable=False,
)


def _nearest_kernel(points, centers, k):
    # TF 1.15's float32 arithmetic: distance 2 * (|p|^2 / 2 + (|c|^2 / 2 - <p, c>)), not
    # clipped at 0; ties go to the lower centre index
    points = _matrix("points", points)
    centers = _matrix("centers", centers)
    k = _scalar("k", k)
    if points.shape[0] <= 0:
        raise errors.InvalidArgumentError(None, None, "Expected points.rows() > 0.")
    if points.shape[1] != centers.shape[1]:
        raise errors.InvalidArgumentError(
            None, None, "Expected point_dimensions == center_dimensions: "
            f"{points.shape[1]} vs {centers.shape[1]}.")
    k = min(k, centers.shape[0])
    if k < 0:
        raise errors.InvalidArgumentError(None, None, "Expected k >= 0.")
    p = np.ascontiguousarray(points, dtype=np.float32)
    c = np.ascontiguousarray(centers, dtype=np.float32)
    partial = _half_norms(c)[None, :] - _inner(p, c)
    if k == 1:
        idx = np.argmin(partial, axis=1)[:, None]
    else:
        idx = np.argsort(partial, axis=1, kind="stable")[:, :k]
    d = np.float32(2.0) * (_half_norms(p)[:, None] + np.take_along_axis(partial, idx, 1))
    return idx.astype(np.int64), d.astype(np.float32)


op_registry.declare(
    "NearestNeighbors",
    inputs=["points: float", "centers: float", "k: int64"],
    outputs=["nearest_center_indices: int64", "nearest_center_distances: float"],
    kernel=_nearest_kernel,
    differentiable=False,
)


def kmeans_plus_plus_initialization(points, num_to_sample, seed, num_retries_per_sample,
                                    name=None):
    """Chooses ``num_to_sample`` rows of ``points`` by k-means++: the first uniformly, each next
    with probability proportional to its squared distance to the nearest chosen row, keeping
    the best of ``1 + num_retries_per_sample`` draws (the one leaving the smallest potential;
    ``-1``: ``2 + log(num_to_sample)`` retries)."""
    with ops.name_scope(name, "KmeansPlusPlusInitialization", [points]):
        args = [ops.convert_to_tensor(points, dtype=tf.float32, name="points")]
        args += [tf.cast(ops.convert_to_tensor(v, name=n), tf.int64) for v, n in
                 ((num_to_sample, "num_to_sample"), (seed, "seed"),
                  (num_retries_per_sample, "num_retries_per_sample"))]
        return ops.apply_op("KmeansPlusPlusInitialization", args).outputs[0]


def kmc2_chain_initialization(distances, seed, name=None):
    """The index a k-MC2 Markov chain over ``distances`` (to the current centres) ends on."""
    with ops.name_scope(name, "KMC2ChainInitialization", [distances]):
        d = ops.convert_to_tensor(distances, dtype=tf.float32, name="distances")
        s = tf.cast(ops.convert_to_tensor(seed, name="seed"), tf.int64)
        return ops.apply_op("KMC2ChainInitialization", [d, s]).outputs[0]


def nearest_neighbors(points, centers, k, name=None):
    """For each row of ``points`` the indices of and squared distances to its ``k`` nearest
    ``centers`` (int64 and float32, ``[N, min(k, K)]``)."""
    with ops.name_scope(name, "NearestNeighbors", [points, centers]):
        p = ops.convert_to_tensor(points, dtype=tf.float32, name="points")
        c = ops.convert_to_tensor(centers, dtype=tf.float32, name="centers")
        kk = tf.cast(ops.convert_to_tensor(k, name="k"), tf.int64)
        out = ops.apply_op("NearestNeighbors", [p, c, kk]).outputs
        return out[0], out[1]


# ----------------------------------------------------------------------------- KMeans


def _l2n(x):
    return tf.nn.l2_normalize(x, 1)


class KMeans:
    """Builds the graph of k-means clustering (``tf.contrib.factorization.KMeans``)."""

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, use_mini_batch=False,
                 mini_batch_steps_per_iteration=1, random_seed=0,
                 kmeans_plus_plus_num_retries=2, kmc2_chain_length=200):
        if isinstance(initial_clusters, str) and initial_clusters not in (
                RANDOM_INIT, KMEANS_PLUS_PLUS_INIT, KMC2_INIT):
            raise ValueError(f"Unsupported initialization algorithm '{initial_clusters}'")
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric '{distance_metric}'")
        self._inputs = inputs if isinstance(inputs, list) else [inputs]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = use_mini_batch
        self._mini_batch_steps_per_iteration = int(mini_batch_steps_per_iteration)
        self._random_seed = random_seed
        self._kmeans_plus_plus_num_retries = kmeans_plus_plus_num_retries
        self._kmc2_chain_length = kmc2_chain_length

    # distances -----------------------------------------------------------------------
    @classmethod
    def _distance_graph(cls, inputs, clusters, distance_metric):
        if distance_metric == SQUARED_EUCLIDEAN_DISTANCE:
            return cls._compute_euclidean_distance(inputs, clusters)
        return cls._compute_cosine_distance(inputs, clusters, inputs_normalized=True)

    @classmethod
    def _compute_euclidean_distance(cls, inputs, clusters):
        return [tf.reduce_sum(tf.square(x), 1, keepdims=True)
                - 2 * tf.matmul(x, clusters, transpose_b=True)
                + tf.transpose(tf.reduce_sum(tf.square(clusters), 1, keepdims=True))
                for x in inputs]

    @classmethod
    def _compute_cosine_distance(cls, inputs, clusters, inputs_normalized=True):
        if not inputs_normalized:
            clusters = _l2n(clusters)
            inputs = [_l2n(x) for x in inputs]
        return [1 - tf.matmul(x, clusters, transpose_b=True) for x in inputs]

    def _clusters_l2_normalized(self):
        return self._distance_metric == COSINE_DISTANCE and (
            not self._use_mini_batch or self._mini_batch_steps_per_iteration > 1)

    def _infer_graph(self, inputs, clusters):
        scores = self._distance_graph(inputs, clusters, self._distance_metric)
        if self._distance_metric == COSINE_DISTANCE and not self._clusters_l2_normalized():
            clusters = _l2n(clusters)
        out = []
        for x, score in zip(inputs, scores):
            indices, distances = nearest_neighbors(x, clusters, 1)
            if self._distance_metric == COSINE_DISTANCE:
                # for unit vectors, cosine distance is half the squared euclidean one
                distances *= 0.5
            out.append((score, tf.squeeze(distances, [-1]), tf.squeeze(indices, [-1])))
        return zip(*out)

    # variables -----------------------------------------------------------------------
    def _create_variables(self, num_clusters):
        init_value = tf.constant([], dtype=tf.float32)
        centers = tf.Variable(init_value, name=CLUSTERS_VAR_NAME, validate_shape=False)
        initialized = tf.Variable(False, dtype=tf.bool, name="initialized")
        if self._use_mini_batch and self._mini_batch_steps_per_iteration > 1:
            updated = tf.Variable(init_value, name="clusters_updated", validate_shape=False)
            update_in_steps = tf.Variable(self._mini_batch_steps_per_iteration,
                                          dtype=tf.int64, name="update_in_steps")
            counts = tf.Variable(tf.zeros([num_clusters], dtype=tf.int64))
        else:
            updated, update_in_steps = centers, None
            counts = (tf.Variable(tf.ones([num_clusters], dtype=tf.int64))
                      if self._use_mini_batch else None)
        return centers, initialized, counts, updated, update_in_steps

    def training_graph(self):
        """Returns ``(all_scores, cluster_idx, scores, cluster_centers_initialized, init_op,
        training_op)``; the first three are tuples with one entry per input tensor. Run
        ``init_op`` until ``cluster_centers_initialized`` is true, then ``training_op``."""
        if isinstance(self._initial_clusters, str) or callable(self._initial_clusters):
            initial_clusters = self._initial_clusters
            num_clusters = ops.convert_to_tensor(self._num_clusters)
        else:
            initial_clusters = ops.convert_to_tensor(self._initial_clusters)
            num_clusters = tf.shape(initial_clusters)[0]
        inputs = self._inputs
        (centers_var, initialized, total_counts, centers_updated,
         update_in_steps) = self._create_variables(num_clusters)
        init_op = _InitializeClustersOpFactory(
            self._inputs, num_clusters, initial_clusters, self._distance_metric,
            self._random_seed, self._kmeans_plus_plus_num_retries, self._kmc2_chain_length,
            centers_var, centers_updated, initialized).op()
        centers = centers_var
        if self._distance_metric == COSINE_DISTANCE:
            inputs = [_l2n(x) for x in inputs]
            if not self._clusters_l2_normalized():
                centers = _l2n(centers)
        all_scores, scores, cluster_idx = self._infer_graph(inputs, centers)
        if self._use_mini_batch:
            sync = self._mini_batch_sync_updates_op(update_in_steps, centers_var,
                                                    centers_updated, total_counts)
            with tf.control_dependencies([sync]):
                training_op = self._mini_batch_training_op(inputs, cluster_idx,
                                                           centers_updated, total_counts)
        else:
            training_op = self._full_batch_training_op(inputs, num_clusters, cluster_idx,
                                                       centers_var)
        return (tuple(all_scores), tuple(cluster_idx), tuple(scores), initialized, init_op,
                training_op)

    # training ----------------------------------------------------------------------
    def _mini_batch_sync_updates_op(self, update_in_steps, centers_var, centers_updated,
                                    total_counts):
        if not (self._use_mini_batch and self._mini_batch_steps_per_iteration > 1):
            return tf.no_op()

        def _sync():
            with tf.control_dependencies([tf.assign(
                    update_in_steps, self._mini_batch_steps_per_iteration - 1)]):
                src = (_l2n(centers_updated) if self._distance_metric == COSINE_DISTANCE
                       else centers_updated)
                with tf.control_dependencies([tf.assign(centers_var, src)]):
                    reset = tf.assign(total_counts, tf.zeros_like(total_counts))
                with tf.control_dependencies([reset]):
                    return tf.identity(update_in_steps)

        return tf.cond(update_in_steps <= 0, _sync,
                       lambda: tf.identity(tf.assign_sub(update_in_steps, 1)))

    def _mini_batch_training_op(self, inputs, cluster_idx_list, centers, total_counts):
        updates = []
        for x, idx in zip(inputs, cluster_idx_list):
            idx = tf.reshape(idx, [-1])
            unique_ids, unique_idx = tf.unique(idx)
            num_unique = tf.size(unique_ids)
            old_counts = tf.gather(total_counts, unique_ids)
            old_centers = tf.gather(centers, unique_ids)
            count_updates = tf.unsorted_segment_sum(
                tf.ones_like(unique_idx, dtype=total_counts.dtype.base_dtype), unique_idx,
                num_unique)
            # a centre x with count n and k new points d_i moves to
            # x + (sum_i d_i - k x) / (n + k)
            center_updates = tf.unsorted_segment_sum(x, unique_idx, num_unique)
            bshape = tf.concat([tf.reshape(num_unique, [1]),
                                tf.ones(tf.reshape(tf.rank(x) - 1, [1]), dtype=tf.int32)], 0)
            center_updates -= tf.cast(tf.reshape(count_updates, bshape), x.dtype) * old_centers
            rate = tf.reshape(tf.reciprocal(tf.cast(old_counts + count_updates, x.dtype)),
                              bshape)
            center_updates *= rate
            updates.append(tf.scatter_add(total_counts, unique_ids, count_updates))
            updates.append(tf.scatter_add(centers, unique_ids, center_updates))
        return tf.group(*updates)

    def _full_batch_training_op(self, inputs, num_clusters, cluster_idx_list, centers):
        sums, counts = [], []
        eps = tf.constant(1e-6, dtype=inputs[0].dtype)
        for x, idx in zip(inputs, cluster_idx_list):
            sums.append(tf.unsorted_segment_sum(x, idx, num_clusters))
            counts.append(tf.unsorted_segment_sum(
                tf.reshape(tf.ones(tf.reshape(tf.shape(x)[0], [-1])), [-1, 1]), idx,
                num_clusters))
        new_centers = tf.add_n(sums) / (tf.cast(tf.add_n(counts), sums[0].dtype) + eps)
        if self._clusters_l2_normalized():
            new_centers = _l2n(new_centers)
        return tf.assign(centers, new_centers)


class _InitializeClustersOpFactory:
    """Builds the op that appends initial centres: if all ``num_clusters`` are chosen it checks
    the ``initialized`` flag; otherwise it adds up to the remaining count from this batch and
    sets the flag when none remain."""

    def __init__(self, inputs, num_clusters, initial_clusters, distance_metric, random_seed,
                 kmeans_plus_plus_num_retries, kmc2_chain_length, cluster_centers,
                 cluster_centers_updated, cluster_centers_initialized):
        self._inputs = inputs
        self._num_clusters = tf.cast(num_clusters, tf.int32)
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._random_seed = random_seed
        self._retries = kmeans_plus_plus_num_retries
        self._kmc2_chain_length = kmc2_chain_length
        self._centers = cluster_centers
        self._centers_updated = cluster_centers_updated
        self._initialized = cluster_centers_initialized
        self._num_selected = tf.shape(cluster_centers)[0]
        self._num_remaining = self._num_clusters - self._num_selected
        self._num_data = tf.add_n([tf.shape(x)[0] for x in inputs])

    def _random(self):
        indices = tf.random_uniform(tf.reshape(self._num_remaining, [-1]), minval=0,
                                    maxval=tf.cast(self._num_data, tf.int64),
                                    seed=self._random_seed, dtype=tf.int64)
        return tf.nn.embedding_lookup(self._inputs, indices, partition_strategy="div")

    def _kmeans_plus_plus(self):
        x = self._inputs[0]
        if self._distance_metric == COSINE_DISTANCE:
            x = _l2n(x)
        return kmeans_plus_plus_initialization(
            x, tf.cast(self._num_remaining, tf.int64), self._random_seed, self._retries)

    def _choose_initial_centers(self):
        init = self._initial_clusters
        if isinstance(init, str):
            if init == RANDOM_INIT:
                # a batch no larger than what remains becomes centres whole
                return tf.cond(self._num_data <= self._num_remaining,
                               lambda: tf.concat(self._inputs, 0), self._random)
            with tf.control_dependencies([tf.assert_greater_equal(
                    self._num_data, self._num_remaining)]):
                return self._kmeans_plus_plus()
        if callable(init):
            return init(self._inputs, self._num_remaining)
        # as TF's, the check sits beside the given centres (nothing in the block runs it)
        with tf.control_dependencies([tf.assert_equal(self._num_remaining, tf.shape(init)[0])]):
            return init

    def _new_centers(self):
        """All the centres after this step (chosen so far plus new ones), computed under the
        cond whose branch runs only while centres remain to be chosen."""
        if self._initial_clusters == KMC2_INIT:
            return self._kmc2_centers()
        new = self._choose_initial_centers()
        if self._distance_metric == COSINE_DISTANCE:
            new = _l2n(new)
        return tf.cond(tf.equal(self._num_selected, 0), lambda: tf.identity(new),
                       lambda: tf.concat([tf.reshape(self._centers, [-1, tf.shape(new)[1]]),
                                          new], 0))

    def _kmc2_centers(self):
        """TF 1.15's k-MC2 step, as its while loop's parallel iterations leave it: each run
        adds one centre, the first row of the batch while none are chosen, else the end of a
        Markov chain over the subset of the loop's last iteration."""
        first = tf.cast(self._inputs[0], tf.float32)
        length = self._kmc2_chain_length
        max_to_sample = tf.cast(tf.shape(first)[0] / length, tf.int32)
        last = tf.maximum(tf.minimum(self._num_remaining, max_to_sample), 1) - 1

        def _first_point():
            c = tf.reshape(first[0], [1, -1])
            return _l2n(c) if self._distance_metric == COSINE_DISTANCE else c

        def _chain():
            subset = first[last * length:(last + 1) * length]
            centers = tf.reshape(self._centers, [-1, tf.shape(first)[1]])
            _, dist = nearest_neighbors(subset, centers, 1)
            j = kmc2_chain_initialization(tf.squeeze(dist), self._random_seed)
            c = tf.reshape(subset[j], [1, -1])
            if self._distance_metric == COSINE_DISTANCE:
                c = _l2n(c)
            return tf.concat([centers, c], 0)

        return tf.cond(tf.equal(self._num_selected, 0), _first_point, _chain)

    def _initialize(self):
        """Adds centres from this batch; sets the flag once none remain to choose."""
        with tf.control_dependencies([tf.assert_positive(self._num_remaining)]):
            a = tf.assign(self._centers, self._new_centers(), validate_shape=False)
            if self._centers_updated is not self._centers:
                a = tf.assign(self._centers_updated, a, validate_shape=False)
            return tf.cond(tf.equal(self._num_clusters - tf.shape(a)[0], 0),
                           lambda: tf.assign(self._initialized, True), tf.no_op)

    def op(self):
        """The init op: TF 1.15's nested conds, so a bool tensor ``cond/Merge:0`` (whether all
        centres were already chosen), not an Operation."""
        return tf.cond(tf.equal(self._num_remaining, 0),
                       lambda: tf.assert_equal(self._initialized, True), self._initialize)


__all__ = [
    "CLUSTERS_VAR_NAME",
    "COSINE_DISTANCE",
    "KMC2_INIT",
    "KMEANS_PLUS_PLUS_INIT",
    "RANDOM_INIT",
    "SQUARED_EUCLIDEAN_DISTANCE",
    "KMeans",
    "kmc2_chain_initialization",
    "kmeans_plus_plus_initialization",
    "nearest_neighbors",
]
