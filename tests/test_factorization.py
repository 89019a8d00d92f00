"""tf.contrib.factorization: KMeans (init schemes, distances, full and mini-batch steps) against
NumPy, the aymericdamien-style k-means classifier on digits, and WALS against a NumPy solve."""

import numpy as np
import pytest

import tideflow as tf

fac = tf.contrib.factorization

_CENTRES = np.array([[0.0, 0.0, 0.0], [12.0, 12.0, 0.0], [-12.0, 12.0, 6.0]], np.float32)
# unit directions 120 degrees apart, scaled by varying radii: clusters for cosine distance
_DIRS = np.array([[1.0, 0.0, 0.0], [-0.5, 0.866, 0.0], [-0.5, -0.866, 0.0]], np.float32)


def _blobs(centres, n=600, noise=1.0, seed=0):
    rng = np.random.RandomState(seed)
    lab = rng.randint(len(centres), size=n)
    return (centres[lab] + noise * rng.randn(n, centres.shape[1])).astype(np.float32), lab


def _cosine_blobs(n=600, seed=0):
    rng = np.random.RandomState(seed)
    lab = rng.randint(3, size=n)
    radii = rng.uniform(1.0, 20.0, size=(n, 1))
    x = radii * (_DIRS[lab] + 0.08 * rng.randn(n, 3))
    return x.astype(np.float32), lab


def _clusters_var():
    return next(v for v in tf.global_variables() if v.op.name == fac.CLUSTERS_VAR_NAME)


def _train(x, k, steps, batch=None, random_seed=1, **kw):
    """Builds KMeans, initialises it and runs ``steps`` training steps; returns the centres."""
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, x.shape[1]])
        km = fac.KMeans(ph, k, random_seed=random_seed, **kw)
        out = km.training_graph()
        assert len(out) == 6
        _, idx, _, initialized, init_op, train_op = out
        assert isinstance(idx, tuple) and len(idx) == 1
        centres = _clusters_var()
        rng = np.random.RandomState(2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            while not sess.run(initialized):
                sess.run(init_op, {ph: x})
            for _ in range(steps):
                feed = x if batch is None else x[rng.choice(len(x), batch, replace=False)]
                sess.run(train_op, {ph: feed})
            return sess.run(centres)


def _match(got, want):
    """Max distance from each wanted centre to its nearest found one."""
    d = np.sqrt(((want[:, None, :] - got[None, :, :]) ** 2).sum(-1))
    assert sorted(d.argmin(1).tolist()) == list(range(len(want))), d
    return d.min(1).max()


@pytest.mark.parametrize("init", ["random", "kmeans_plus_plus", "kmc2"])
@pytest.mark.parametrize("mini_batch", [False, True])
def test_kmeans_recovers_euclidean_blobs(init, mini_batch):
    x, _ = _blobs(_CENTRES)
    # random init can land two centres in one blob: keep the best of a few restarts, by the
    # sum of squared distances to the nearest centre
    runs = [_train(x, 3, 30, batch=100 if mini_batch else None, initial_clusters=init,
                   use_mini_batch=mini_batch, kmc2_chain_length=50, random_seed=seed)
            for seed in (range(1, 9) if init == "random" else (1,))]
    got = min(runs, key=lambda c: ((x[:, None] - c[None]) ** 2).sum(-1).min(1).sum())
    assert got.shape == (3, 3)
    assert _match(got, _CENTRES) < (0.5 if mini_batch else 0.2)


@pytest.mark.parametrize("mini_batch,steps_per_iter", [(False, 1), (True, 1), (True, 3)])
def test_kmeans_recovers_cosine_directions(mini_batch, steps_per_iter):
    x, _ = _cosine_blobs()
    got = _train(x, 3, 30, batch=100 if mini_batch else None, distance_metric="cosine",
                 initial_clusters="kmeans_plus_plus", use_mini_batch=mini_batch,
                 mini_batch_steps_per_iteration=steps_per_iter)
    got = got / np.linalg.norm(got, axis=1, keepdims=True)
    want = _DIRS / np.linalg.norm(_DIRS, axis=1, keepdims=True)
    assert _match(got, want) < 0.05


@pytest.mark.parametrize("metric", ["squared_euclidean", "cosine"])
def test_scores_and_indices_and_full_batch_step_match_numpy(metric):
    rng = np.random.RandomState(5)
    x = rng.randn(40, 4).astype(np.float32)
    init = rng.randn(5, 4).astype(np.float32)
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 4])
        km = fac.KMeans(ph, 5, initial_clusters=init, distance_metric=metric)
        all_scores, idx, scores, initialized, init_op, train_op = km.training_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {ph: x})
            assert sess.run(initialized)
            sess.run(init_op, {ph: x})  # a no-op once initialised
            a, i, s = sess.run([all_scores[0], idx[0], scores[0]], {ph: x})
            sess.run(train_op, {ph: x})
            centres = sess.run(_clusters_var())
    if metric == "cosine":
        xn = x / np.linalg.norm(x, axis=1, keepdims=True)
        cn = init / np.linalg.norm(init, axis=1, keepdims=True)
        want_all = 1 - xn @ cn.T
    else:
        xn, cn = x, init
        want_all = ((x[:, None, :] - init[None]) ** 2).sum(-1)
    assert a.shape == (40, 5) and i.shape == (40,) and s.shape == (40,)
    assert i.dtype == np.int64
    np.testing.assert_allclose(a, want_all, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(i, want_all.argmin(1))
    np.testing.assert_allclose(s, want_all.min(1), rtol=1e-4, atol=1e-4)
    # one Lloyd step: each centre becomes the mean of its (normalised) points
    want = np.stack([xn[i == c].sum(0) / ((i == c).sum() + 1e-6) for c in range(5)])
    if metric == "cosine":
        want = want / np.maximum(np.linalg.norm(want, axis=1, keepdims=True), 1e-6)
    np.testing.assert_allclose(centres, want, rtol=1e-4, atol=1e-5)


def test_mini_batch_step_is_the_running_mean():
    x = np.float32([[0, 0], [2, 0], [10, 10], [10, 12]])
    init = np.float32([[1, 1], [9, 9]])
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 2])
        km = fac.KMeans(ph, 2, initial_clusters=init, use_mini_batch=True)
        _, _, _, _, init_op, train_op = km.training_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {ph: x})
            sess.run(train_op, {ph: x})
            c = sess.run(_clusters_var())
    # counts start at 1: each centre is the mean of itself and its new points
    np.testing.assert_allclose(c, [[(1 + 0 + 2) / 3, 1 / 3], [29 / 3, 31 / 3]], rtol=1e-6)


def test_kmeans_plus_plus_samples_by_squared_distance():
    # points 0, 1, 3 on a line: with the first centre at 0 the second is 1 with probability
    # 1/10 and 3 with 9/10 (no retries), and never 0 again
    pts = np.float32([[0, 0], [1, 0], [3, 0]])
    with tf.Graph().as_default():
        seed = tf.placeholder(tf.int64, [])
        s = fac.kmeans_plus_plus_initialization(pts, 3 - 1, seed, 0)
        with tf.Session() as sess:
            draws = [sess.run(s, {seed: v})[:, 0].tolist() for v in range(600)]
    after0 = [d[1] for d in draws if d[0] == 0.0]
    firsts = np.array([d[0] for d in draws])
    assert len(after0) > 120
    assert all(np.mean(firsts == v) > 0.25 for v in (0.0, 1.0, 3.0))  # first: uniform
    assert 0.83 < np.mean(np.array(after0) == 3.0) < 0.97
    assert all(d[0] != d[1] for d in draws)


def test_init_errors():
    with pytest.raises(ValueError, match="Unsupported initialization"):
        fac.KMeans(tf.zeros([3, 2]), 2, initial_clusters="nope")
    with pytest.raises(ValueError, match="Unsupported distance"):
        fac.KMeans(tf.zeros([3, 2]), 2, distance_metric="manhattan")
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 2])
        _, _, _, _, init_op, _ = fac.KMeans(ph, 5, initial_clusters="kmeans_plus_plus"
                                            ).training_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match="fewer points"):
                sess.run(init_op, {ph: np.zeros((3, 2), np.float32)})


def test_random_init_takes_small_batches_whole():
    # a batch no larger than the remaining count is taken as centres whole, over several runs
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 2])
        _, _, _, initialized, init_op, _ = fac.KMeans(ph, 5).training_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {ph: np.float32([[1, 1], [2, 2]])})
            assert not sess.run(initialized)
            sess.run(init_op, {ph: np.float32([[3, 3], [4, 4]])})
            sess.run(init_op, {ph: np.float32([[5, 5], [6, 6], [7, 7]])})
            assert sess.run(initialized)
            c = sess.run(_clusters_var())
    assert c.shape == (5, 2)
    assert c[:4, 0].tolist() == [1, 2, 3, 4] and c[4, 0] in (5, 6, 7)


def test_aymericdamien_kmeans_program_on_digits():
    """TensorFlow-Examples' kmeans.py, unchanged but for digits in place of MNIST."""
    from sklearn.datasets import load_digits
    from tideflow.contrib.factorization import KMeans  # bound: tf.contrib.factorization used

    d = load_digits()
    images = (d.data / 16.0).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[d.target]
    full_data_x, test_x, test_y = images[:1400], images[1400:], labels[1400:]
    train_labels = labels[:1400]
    num_steps, k, num_classes, num_features = 50, 25, 10, 64
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, shape=[None, num_features])
        Y = tf.placeholder(tf.float32, shape=[None, num_classes])
        kmeans = KMeans(inputs=X, num_clusters=k, distance_metric="cosine",
                        use_mini_batch=True)
        training_graph = kmeans.training_graph()
        if len(training_graph) > 6:  # Tensorflow 1.4+
            (all_scores, cluster_idx, scores, cluster_centers_initialized,
             cluster_centers_var, init_op, train_op) = training_graph  # noqa: RUF059
        else:
            (all_scores, cluster_idx, scores, cluster_centers_initialized,  # noqa: RUF059
             init_op, train_op) = training_graph
        cluster_idx = cluster_idx[0]  # fix for cluster_idx being a tuple
        avg_distance = tf.reduce_mean(scores)
        init_vars = tf.global_variables_initializer()
        sess = tf.Session()
        sess.run(init_vars, feed_dict={X: full_data_x})
        sess.run(init_op, feed_dict={X: full_data_x})
        first = None
        for _ in range(1, num_steps + 1):
            _, dist, idx = sess.run([train_op, avg_distance, cluster_idx],
                                    feed_dict={X: full_data_x})
            first = dist if first is None else first
        counts = np.zeros(shape=(k, num_classes))
        for i in range(len(idx)):
            counts[idx[i]] += train_labels[i]
        labels_map = [np.argmax(c) for c in counts]
        labels_map = tf.convert_to_tensor(labels_map)
        cluster_label = tf.nn.embedding_lookup(labels_map, cluster_idx)
        correct_prediction = tf.equal(cluster_label, tf.cast(tf.argmax(Y, 1), tf.int32))
        accuracy_op = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        acc = sess.run(accuracy_op, feed_dict={X: test_x, Y: test_y})
        sess.close()
    assert dist < first
    print("digits k-means accuracy", acc)
    assert acc > 0.75, acc
