"""``tf.contrib.factorization``'s k-means (TF 1.15 ``clustering_ops``): the ``KMeans`` graph
builder and its three kernels, ``KmeansPlusPlusInitialization``, ``KMC2ChainInitialization``
and ``NearestNeighbors`` (NumPy, float32 points as in TF, not differentiable).

``KMeans.training_graph()`` returns ``(all_scores, cluster_idx, scores,
cluster_centers_initialized, init_op, training_op)``. The centres live in a variable named
``clusters`` that starts empty (shape ``[0]``); ``init_op`` appends up to the remaining number of
centres chosen from the current batch (random rows, k-means++ or k-MC2) and sets the
``initialized`` flag once all ``num_clusters`` are there. Full-batch training is one Lloyd step;
mini-batch training moves each centre towards its points by ``1 / count`` (with a second,
per-step copy of the centres when ``mini_batch_steps_per_iteration > 1``).

Departure: tideflow's ``tf.cond`` runs its branches as functions, inside which an ``Assign`` cannot
change a variable's shape, so the init op computes the new centres under the cond and assigns
them (with ``validate_shape=False``) after it; k-MC2 grows the centres as a loop variable.
"""

import math

import numpy as np

import tideflow as tf
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


# ----------------------------------------------------------------------------- kernels


def _squared_distances(points, centers):
    """``[N, K]`` squared euclidean distances, clipped at 0 (the expansion can round below)."""
    d = (np.sum(points * points, axis=1, keepdims=True) - 2.0 * points @ centers.T
         + np.sum(centers * centers, axis=1)[None, :])
    return np.maximum(d, 0.0)


def _scalar(name, op, value):
    v = np.asarray(value)
    if v.ndim != 0:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: {name} must be a scalar, got shape {list(v.shape)}")
    return int(v)


def _matrix(name, op, value):
    v = np.asarray(value)
    if v.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: {name} must be a matrix, got shape {list(v.shape)}")
    return v


def _kmeans_pp_kernel(points, num_to_sample, seed, num_retries_per_sample):
    op = "KmeansPlusPlusInitialization"
    points = _matrix("points", op, points)
    k = _scalar("num_to_sample", op, num_to_sample)
    retries = _scalar("num_retries_per_sample", op, num_retries_per_sample)
    n = points.shape[0]
    if k < 0 or k > n:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: num_to_sample must be in [0, {n}] (the number of points), "
            f"got {k}")
    if retries < 0:
        retries = 2 + int(math.log(max(k, 1)))
    rng = np.random.RandomState(_scalar("seed", op, seed) & 0xFFFFFFFF)
    pts = points.astype(np.float64)
    chosen = []
    min_d = None
    for i in range(k):
        if i == 0:
            best = int(rng.randint(n))
            best_d = _squared_distances(pts, pts[best:best + 1])[:, 0]
        else:
            total = float(min_d.sum())
            best, best_d, best_potential = None, None, None
            for _ in range(1 + retries):
                if total > 0:
                    c = int(np.searchsorted(np.cumsum(min_d), rng.uniform() * total,
                                            side="right"))
                    c = min(c, n - 1)
                else:  # every point coincides with a chosen centre
                    c = int(rng.randint(n))
                d = np.minimum(min_d, _squared_distances(pts, pts[c:c + 1])[:, 0])
                potential = float(d.sum())
                if best is None or potential < best_potential:
                    best, best_d, best_potential = c, d, potential
        chosen.append(best)
        min_d = best_d
    return points[np.asarray(chosen, np.int64)].reshape(k, points.shape[1])


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
    op = "KMC2ChainInitialization"
    d = np.asarray(distances, np.float64)
    if d.ndim != 1 or d.shape[0] == 0:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: distances must be a non-empty vector, got shape {list(d.shape)}")
    if np.any(d < 0):
        raise errors.InvalidArgumentError(None, None, f"{op}: distances must be non-negative")
    rng = np.random.RandomState(_scalar("seed", op, seed) & 0xFFFFFFFF)
    selected, selected_d = 0, d[0]
    for i in range(1, d.shape[0]):
        # Metropolis-Hastings step: accept with probability min(1, d[i] / selected_d)
        if d[i] > rng.uniform() * selected_d:
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
    op = "NearestNeighbors"
    points = _matrix("points", op, points)
    centers = _matrix("centers", op, centers)
    if points.shape[1] != centers.shape[1] and centers.shape[0] > 0:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: points have {points.shape[1]} columns but centers have "
            f"{centers.shape[1]}")
    k = min(_scalar("k", op, k), centers.shape[0])
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"{op}: k must be non-negative")
    d = _squared_distances(points.astype(np.float64), centers.astype(np.float64))
    idx = np.argsort(d, axis=1, kind="stable")[:, :k]
    return idx.astype(np.int64), np.take_along_axis(d, idx, 1).astype(np.float32)


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
                    self._num_data, self._num_remaining,
                    message="KMeans: fewer points in the batch than centres to choose")]):
                return self._kmeans_plus_plus()
        if callable(init):
            return init(self._inputs, self._num_remaining)
        with tf.control_dependencies([tf.assert_equal(
                self._num_remaining, tf.shape(init)[0],
                message="KMeans: initial_clusters has the wrong number of rows")]):
            return tf.identity(init)

    def _new_centers(self):
        """All the centres after this step (chosen so far plus new ones), computed under the
        cond whose branch runs only while centres remain to be chosen."""
        if self._initial_clusters == KMC2_INIT:
            return self._kmc2_centers()
        new = tf.cast(self._choose_initial_centers(), tf.float32)
        if self._distance_metric == COSINE_DISTANCE:
            new = _l2n(new)
        return tf.cond(tf.equal(self._num_selected, 0), lambda: tf.identity(new),
                       lambda: tf.concat([tf.reshape(self._centers, [-1, tf.shape(new)[1]]),
                                          new], 0))

    def _kmc2_centers(self):
        first = tf.cast(self._inputs[0], tf.float32)
        batch = tf.shape(first)[0]
        max_to_sample = tf.cast(batch / self._kmc2_chain_length, tf.int32)
        num_to_sample = tf.maximum(tf.minimum(self._num_remaining, max_to_sample), 1)
        dim = tf.shape(first)[1]
        start = tf.reshape(self._centers, [-1, dim])
        length = self._kmc2_chain_length

        def _body(i, centers):
            def _first_point():
                c = tf.reshape(first[0], [1, -1])
                return _l2n(c) if self._distance_metric == COSINE_DISTANCE else c

            def _chain():
                subset = first[i * length:(i + 1) * length]
                _, dist = nearest_neighbors(subset, centers, 1)
                j = kmc2_chain_initialization(tf.reshape(dist, [-1]), self._random_seed)
                c = tf.reshape(tf.gather(subset, j), [1, -1])
                if self._distance_metric == COSINE_DISTANCE:
                    c = _l2n(c)
                return c

            new = tf.cond(tf.equal(tf.shape(centers)[0], 0), _first_point, _chain)
            return i + 1, tf.concat([centers, new], 0)

        _, centers = tf.while_loop(
            lambda i, _: i < num_to_sample, _body, [tf.constant(0), start],
            shape_invariants=[TensorShape([]), TensorShape([None, None])])
        return centers

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
