"""tf.contrib.factorization: KMeans (init schemes, distances, full and mini-batch steps) against
NumPy, the aymericdamien-style k-means classifier on digits, and WALS against a NumPy solve."""

import itertools

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


@pytest.mark.parametrize("init", ["random", "kmeans_plus_plus"])
def test_kmeans_over_sharded_inputs(init):
    # two input shards of unknown size: one score/index tensor each, one set of centres
    x, lab = _blobs(_CENTRES, seed=6)
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, 3])
        b = tf.placeholder(tf.float32, [None, 3])
        _, idx, scores, initialized, init_op, train_op = fac.KMeans(
            [a, b], 3, initial_clusters=init, random_seed=5).training_graph()
        assert len(idx) == 2 and len(scores) == 2
        feed = {a: x[:250], b: x[250:]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, feed)
            assert sess.run(initialized)
            for _ in range(10):
                sess.run(train_op, feed)
            i0, i1 = sess.run(idx, feed)
            centres = sess.run(_clusters_var())
    assert i0.shape == (250,) and i1.shape == (350,)
    want = ((x[:, None] - centres[None]) ** 2).sum(-1).argmin(1)
    np.testing.assert_array_equal(np.concatenate([i0, i1]), want)
    # Lloyd's steps over both shards converge to the blobs' sample means
    assert _match(centres, np.stack([x[lab == c].mean(0) for c in range(3)])) < 1e-3


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
            with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x >= y"):
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


# ----------------------------------------------------------------------------- WALS

_M, _N, _K = 7, 5, 3
_W0, _LAM = 0.3, 0.2


def _wals_problem(seed=0):
    rng = np.random.RandomState(seed)
    mask = rng.rand(_M, _N) < 0.6
    mask[np.arange(_M), np.arange(_M) % _N] = True  # every row and column observed
    a = (rng.rand(_M, _N) * mask).astype(np.float32)
    rw = (rng.rand(_M) + 0.5).astype(np.float32)
    cw = (rng.rand(_N) + 0.5).astype(np.float32)
    u0 = rng.randn(_M, _K).astype(np.float32)
    v0 = rng.randn(_N, _K).astype(np.float32)
    return a, mask, rw, cw, u0, v0


def _np_solve(a, w, v, lam):
    """Rows of the weighted least-squares solution: (V^T W_i V + lam I) u_i = V^T W_i a_i."""
    return np.stack([np.linalg.solve(v.T @ (w[i][:, None] * v) + lam * np.eye(v.shape[1]),
                                     v.T @ (w[i] * a[i])) for i in range(a.shape[0])])


def _np_loss(a, w, u, v, lam):
    return (w * (a - u @ v.T) ** 2).sum() + lam * ((u ** 2).sum() + (v ** 2).sum())


def _shards(x, cut, shards):
    return x if shards == 1 else [x[:cut], x[cut:]]


@pytest.mark.parametrize("shards", [1, 2])
def test_wals_matches_numpy_weighted_als_and_reduces_the_loss(shards):
    a, mask, rw, cw, u0, v0 = _wals_problem()
    w = _W0 + mask * rw[:, None] * cw[None, :]
    idx = np.argwhere(mask).astype(np.int64)
    with tf.Graph().as_default():
        # "div" sharding: 7 rows -> 4 + 3, 5 columns -> 3 + 2
        model = fac.WALSModel(_M, _N, _K, unobserved_weight=_W0, regularization=_LAM,
                              row_init=_shards(u0, 4, shards), col_init=_shards(v0, 3, shards),
                              row_weights=_shards(rw, 4, shards),
                              col_weights=_shards(cw, 3, shards),
                              num_row_shards=shards, num_col_shards=shards)
        assert len(model.row_factors) == shards and len(model.col_factors) == shards
        sp = tf.SparseTensor(idx, a[mask], [_M, _N])
        sp_t = tf.SparseTensor(idx[:, ::-1].copy(), a[mask], [_N, _M])
        _, row_update, row_loss, row_reg, row_sw = model.update_row_factors(sp)
        _, col_update, col_loss, col_reg, _ = model.update_col_factors(sp_t,
                                                                       transpose_input=True)
        u_t, v_t = tf.concat(model.row_factors, 0), tf.concat(model.col_factors, 0)
        losses = []
        with tf.Session() as sess:
            sess.run(model.initialize_op)
            sess.run(model.worker_init)
            u, v = u0, v0
            for _ in range(3):
                sess.run(model.row_update_prep_gramian_op)
                sess.run(model.initialize_row_update_op)
                _, unreg, reg, sw = sess.run([row_update, row_loss, row_reg, row_sw])
                u = _np_solve(a, w, v, _LAM)
                np.testing.assert_allclose(sess.run(u_t), u, rtol=1e-3, atol=1e-4)
                np.testing.assert_allclose(unreg + reg, _np_loss(a, w, u, v, _LAM), rtol=1e-4)
                np.testing.assert_allclose(reg, _LAM * ((u ** 2).sum() + (v ** 2).sum()),
                                           rtol=1e-4)
                np.testing.assert_allclose(sw, w.sum(), rtol=1e-5)  # every weight, all rows
                losses.append(unreg + reg)
                sess.run(model.col_update_prep_gramian_op)
                sess.run(model.initialize_col_update_op)
                _, unreg, reg = sess.run([col_update, col_loss, col_reg])
                v = _np_solve(a.T, w.T, u, _LAM)
                np.testing.assert_allclose(sess.run(v_t), v, rtol=1e-3, atol=1e-4)
                np.testing.assert_allclose(unreg + reg, _np_loss(a, w, u, v, _LAM), rtol=1e-4)
                losses.append(unreg + reg)
    assert all(b <= x * (1 + 1e-6) for x, b in itertools.pairwise(losses)), losses
    assert losses[-1] < 0.5 * losses[0]


def test_wals_without_weights_is_plain_als():
    a, mask, _, _, u0, v0 = _wals_problem(1)
    idx = np.argwhere(mask).astype(np.int64)
    with tf.Graph().as_default():
        model = fac.WALSModel(_M, _N, _K, unobserved_weight=1.0, regularization=0.1,
                              row_init=u0, col_init=v0, row_weights=None, col_weights=None)
        _, row_update, _, _, sum_w = model.update_row_factors(
            tf.SparseTensor(idx, a[mask], [_M, _N]))
        with tf.Session() as sess:
            sess.run(model.initialize_op)
            sess.run(model.worker_init)
            sess.run(model.row_update_prep_gramian_op)
            sess.run(model.initialize_row_update_op)
            _, got_sw = sess.run([row_update, sum_w])
            got = sess.run(model.row_factors[0])
    # every entry weighs 1: u_i = (V^T V + 0.1 I)^-1 V^T a_i
    want = np.linalg.solve(v0.T @ v0 + 0.1 * np.eye(_K), v0.T @ a.T).T
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    assert got_sw == _M * _N  # unobserved_weight 1 on every entry


def test_wals_mini_batch_of_rows_and_projection():
    a, mask, rw, cw, u0, v0 = _wals_problem(2)
    w = _W0 + mask * rw[:, None] * cw[None, :]
    rows = [5, 2]
    sub = np.argwhere(mask[rows]).astype(np.int64)
    sub_idx = np.stack([np.array(rows)[sub[:, 0]], sub[:, 1]], 1)
    with tf.Graph().as_default():
        model = fac.WALSModel(_M, _N, _K, unobserved_weight=_W0, regularization=_LAM,
                              row_init=u0, col_init=v0, row_weights=rw, col_weights=cw)
        sp = tf.SparseTensor(sub_idx, a[sub_idx[:, 0], sub_idx[:, 1]], [_M, _N])
        new_rows, update, unreg, reg, sum_w = model.update_row_factors(sp)
        projected = model.project_row_factors(sp, projection_weights=rw[rows])
        with tf.Session() as sess:
            sess.run(model.initialize_op)
            sess.run(model.worker_init)
            sess.run(model.row_update_prep_gramian_op)
            sess.run(model.initialize_row_update_op)
            proj = sess.run(projected)
            got_rows, _, got_unreg, got_reg, got_sw = sess.run(
                [new_rows, update, unreg, reg, sum_w])
            u = sess.run(model.row_factors[0])
    want = _np_solve(a[rows], w[rows], v0, _LAM)
    np.testing.assert_allclose(got_rows, want, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(proj, want, rtol=1e-3, atol=1e-4)
    others = [i for i in range(_M) if i not in rows]
    np.testing.assert_array_equal(u[others], u0[others])  # untouched rows keep their values
    np.testing.assert_allclose(u[rows], want, rtol=1e-3, atol=1e-4)
    # the batch's loss and regularization scaled from 2 rows to 7, plus lam ||V||^2
    scale = _M / 2
    np.testing.assert_allclose(got_unreg, (w[rows] * (a[rows] - want @ v0.T) ** 2).sum()
                               * scale, rtol=1e-4)
    np.testing.assert_allclose(got_reg, _LAM * ((want ** 2).sum() * scale
                                                + (v0 ** 2).sum()), rtol=1e-4)
    # all unobserved weights, plus the batch's observed R_i C_j scaled likewise
    np.testing.assert_allclose(got_sw, _W0 * _M * _N + (w[rows] - _W0).sum() * scale,
                               rtol=1e-5)


def test_wals_argument_errors():
    # TF 1.15 checks these with bare asserts
    with pytest.raises(AssertionError):
        fac.WALSModel(3, 3, 2, row_weights=None, col_weights=1)
    with pytest.raises(ValueError, match="Invalid weight"):
        fac.WALSModel(3, 3, 2, row_weights=-1.0)
    with tf.Graph().as_default():
        model = fac.WALSModel(3, 3, 2)
        with pytest.raises(AssertionError):
            model.update_row_factors(np.zeros((3, 3), np.float32))
    with tf.Graph().as_default():
        plain = fac.WALSModel(3, 3, 2)
        scoped = fac.WALSModel(3, 3, 2, use_scoped_vars=True)
        assert plain.row_factors[0].op.name == "row_factors_shard_0"
        assert scoped.row_factors[0].op.name.endswith("row_factors/row_factors_shard_0")
        assert scoped.col_weights[0].op.name.endswith("col_weights/col_weights_shard_0")


# ----------------------------------------------------------------------------- GMM


def _np_gauss_logpdf(x, mu, cov):
    d = x - mu
    sol = np.linalg.solve(cov, d.T).T
    return -0.5 * ((d * sol).sum(1) + len(mu) * np.log(2 * np.pi) + np.linalg.slogdet(cov)[1])


@pytest.mark.parametrize("cov_type", ["full", "diag"])
def test_gmm_em_steps_match_numpy(cov_type):
    rng = np.random.RandomState(0)
    centres = np.float32([[0, 0], [6, 6], [-6, 6]])
    x = (centres[rng.randint(3, size=300)] + rng.randn(300, 2) * [[1.0, 0.5]]).astype(
        np.float32)
    init = x[:3]
    eye = 1e-3 * np.eye(2)
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 2])
        loss, scores, assignments, train, init_op, initialized = fac.gmm(
            ph, init, 3, 0, covariance_type=cov_type)
        named = {v.op.name: v for v in tf.global_variables()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {ph: x})
            assert sess.run(initialized)
            mu = init.astype(np.float64)
            s0 = np.cov(x.T) + eye
            covs = np.stack([s0] * 3) if cov_type == "full" else np.stack([np.diag(s0)] * 3)
            alpha = np.ones(3) / 3
            for _ in range(3):
                got_loss, got_scores, got_assign = sess.run(
                    [loss, scores, assignments[0][0]], {ph: x})
                full = covs if cov_type == "full" else np.stack([np.diag(c) for c in covs])
                lp = np.stack([_np_gauss_logpdf(x, mu[k], full[k] + eye) for k in range(3)],
                              1) + np.log(alpha)
                per_example = np.logaddexp.reduce(lp, 1)
                w = np.exp(lp - per_example[:, None])
                # float32 log densities against float64 ones: ~2e-5 relative under
                # OpenBLAS 0.3.31's products (NumPy 2.4.6)
                np.testing.assert_allclose(got_scores.ravel(), per_example, rtol=5e-5,
                                           atol=1e-4)
                np.testing.assert_allclose(got_loss, np.logaddexp.reduce(per_example),
                                           rtol=5e-5, atol=1e-4)
                np.testing.assert_array_equal(got_assign, w.argmax(1))
                sess.run(train, {ph: x})
                nk = w.sum(0)
                alpha, mu = nk / nk.sum(), (w.T @ x) / nk[:, None]
                cv = (np.einsum("nk,ni,nj->kij", w, x, x) / nk[:, None, None]
                      - np.einsum("ki,kj->kij", mu, mu) + eye)
                covs = cv if cov_type == "full" else np.stack([np.diag(c) for c in cv])
                np.testing.assert_allclose(sess.run(named["clusters"])[:, 0], mu, atol=1e-4)
                np.testing.assert_allclose(sess.run(named["clusters_covs"]), covs, atol=2e-4)
                np.testing.assert_allclose(sess.run(named["alphas"]), alpha, atol=1e-5)


def test_gmm_random_init_recovers_blobs():
    x, _ = _blobs(_CENTRES[:, :2] * 0.8, n=400, noise=0.7, seed=3)
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [None, 2])
        _, _, _, train, init_op, _ = fac.gmm(ph, "random", 3, 4)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op, {ph: x})
            before = sess.run(fac.GmmAlgorithm.CLUSTERS_VARIABLE + ":0")
            sess.run(init_op, {ph: x})  # a no-op once initialised
            np.testing.assert_array_equal(
                sess.run(fac.GmmAlgorithm.CLUSTERS_VARIABLE + ":0"), before)
            for _ in range(25):
                sess.run(train, {ph: x})
            means = sess.run("clusters:0")[:, 0]
    assert _match(means, _CENTRES[:, :2] * 0.8) < 0.3


# ----------------------------------------------------------------------------- estimator


@pytest.mark.parametrize("mini_batch", [False, True])
def test_kmeans_clustering_estimator(tmp_path, mini_batch):
    x, lab = _blobs(_CENTRES, n=300, seed=4)

    def train_input_fn():
        return tf.constant(x)

    def input_fn():  # one pass over the points
        return tf.train.limit_epochs(tf.convert_to_tensor(x, dtype=tf.float32), num_epochs=1)

    est = fac.KMeansClustering(num_clusters=3, model_dir=str(tmp_path),
                               initial_clusters=fac.KMeansClustering.KMEANS_PLUS_PLUS_INIT,
                               use_mini_batch=mini_batch, random_seed=3)
    scores = []
    for _ in range(2):
        est.train(train_input_fn, steps=5)
        scores.append(est.score(input_fn))
    centres = est.cluster_centers()
    # full batch converges to the blobs' sample means; mini-batch near them
    blob_means = np.stack([x[lab == c].mean(0) for c in range(3)])
    assert _match(centres, blob_means) < (0.5 if mini_batch else 1e-3)
    idx = np.array(list(est.predict_cluster_index(input_fn)))
    dist = np.stack(list(est.transform(input_fn)))
    want = ((x[:, None, :] - centres[None]) ** 2).sum(-1)
    np.testing.assert_allclose(dist, want, rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(idx, want.argmin(1))
    # the score is the sum of squared distances to the nearest centre
    np.testing.assert_allclose(scores[-1], want.min(1).sum(), rtol=1e-4)
    # mini-batch steps average in each batch again, so the score may rise by a few ulps
    assert scores[-1] <= scores[0] * (1 + 1e-5)
    # each blob is one cluster
    assert all(len(set(idx[lab == c])) == 1 for c in range(3))
    with pytest.raises(ValueError, match="Unsupported initialization"):
        fac.KMeansClustering(3, initial_clusters="kmc2")


def test_gmm_estimator(tmp_path):
    x, lab = _blobs(_CENTRES[:, :2] * 0.7, n=300, seed=7)
    first_of_each = x[[int(np.argmax(lab == c)) for c in range(3)]]

    def train_input_fn():
        return tf.constant(x)

    def input_fn():
        return tf.train.limit_epochs(tf.constant(x), num_epochs=1)

    est = fac.GMM(3, model_dir=str(tmp_path), initial_clusters=first_of_each, random_seed=1)
    est.fit(input_fn=train_input_fn, steps=15)  # TF 1.15's GMM is a contrib.learn Estimator
    means, covs, weights = est.clusters(), est.covariances(), est.weights()
    assert means.shape == (3, 2) and covs.shape == (3, 2, 2)
    np.testing.assert_allclose(weights.sum(), 1.0, rtol=1e-5)
    blob_means = np.stack([x[lab == c].mean(0) for c in range(3)])
    np.testing.assert_allclose(means, blob_means, atol=1e-2)  # component c started in blob c
    assignments = np.array(list(est.predict_assignments(input_fn)))
    np.testing.assert_array_equal(assignments, lab)
    # score: the log-sum-exp of the per-example log-likelihoods, which TF 1.15 reads after
    # the last batch (so from an input that does not run out)
    lp = np.stack([_np_gauss_logpdf(x, means[k], covs[k] + 1e-3 * np.eye(2))
                   for k in range(3)], 1) + np.log(weights)
    np.testing.assert_allclose(est.score(train_input_fn, steps=1), np.logaddexp.reduce(
        np.logaddexp.reduce(lp, 1)), rtol=1e-4, atol=1e-3)


def test_kmc2_adds_one_centre_per_small_batch():
    # batches shorter than kmc2_chain_length add one centre per init run (the first is the
    # batch's first point); the input's rank is unknown
    x, _ = _blobs(_CENTRES, seed=8)
    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32)
        _, _, _, initialized, init_op, train_op = fac.KMeans(
            ph, 3, initial_clusters="kmc2", use_mini_batch=True).training_graph()
        rng = np.random.RandomState(0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sizes = []
            while not sess.run(initialized):
                sess.run(init_op, {ph: x[len(sizes) * 50:(len(sizes) + 1) * 50]})
                sizes.append(sess.run(_clusters_var()).shape[0])
            first = sess.run(_clusters_var())[0]
            for _ in range(30):
                sess.run(train_op, {ph: x[rng.choice(len(x), 100, replace=False)]})
            centres = sess.run(_clusters_var())
    assert sizes == [1, 2, 3]
    np.testing.assert_array_equal(first, x[0])
    assert _match(centres, _CENTRES) < 0.5


def test_wals_matrix_factorization_estimator(tmp_path):
    a, mask, _, _, u0, v0 = _wals_problem(3)
    w = _W0 + mask * 1.0  # row and column weights 1
    idx = np.argwhere(mask).astype(np.int64)
    wmf = fac.WALSMatrixFactorization

    def features(project_row=None, one_pass=False):
        vals = tf.constant(a[mask])
        if one_pass:  # prediction and evaluation read until the input runs out
            vals = tf.train.limit_epochs(vals, num_epochs=1)
        out = {wmf.INPUT_ROWS: tf.SparseTensor(idx, vals, [_M, _N]),
               wmf.INPUT_COLS: tf.SparseTensor(idx[:, ::-1].copy(), a[mask], [_N, _M])}
        if project_row is not None:
            out[wmf.PROJECT_ROW] = tf.constant(project_row)
        return out, None

    est = wmf(_M, _N, _K, unobserved_weight=_W0, regularization_coeff=_LAM, row_init=u0,
              col_init=v0, max_sweeps=4, model_dir=str(tmp_path))
    est.fit(input_fn=features, steps=100)  # max_sweeps stops it first: row, col, row, col
    assert est.get_variable_value(wmf.COMPLETED_SWEEPS) == 4
    assert est.get_variable_value("global_step") == 4
    u, v = u0, v0
    for _ in range(2):
        u = _np_solve(a, w, v, _LAM)
        v = _np_solve(a.T, w.T, u, _LAM)
    np.testing.assert_allclose(est.get_row_factors()[0], u, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(est.get_col_factors()[0], v, rtol=1e-3, atol=1e-4)
    # a row projection solves against the current V but, as in TF, the column Gramian the
    # checkpoint holds: the one prepared before the last row sweep (from the previous V)
    proj = np.stack(list(est.get_projections(lambda: features(True, one_pass=True))))
    v_prev = _np_solve(a.T, w.T, _np_solve(a, w, v0, _LAM), _LAM)
    want = np.stack([np.linalg.solve(
        _W0 * v_prev.T @ v_prev + v[mask[i]].T @ v[mask[i]] + _LAM * np.eye(_K),
        v[mask[i]].T @ ((_W0 + 1.0) * a[i][mask[i]])) for i in range(_M)])
    np.testing.assert_allclose(proj, want, rtol=1e-3, atol=1e-4)
    loss = est.evaluate(lambda: features(True, one_pass=True), steps=1)["loss"]
    assert np.isfinite(loss) and loss > 0
