"""Classical machine-learning programs of TF 1.x (k-means, WALS, GMM, forests, kernel methods,
linear models) against TF 1.15: expected values come from running each program under TF 1.15."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import gen_clustering_ops as gen

_RNG0 = np.random.RandomState(0)
_PTS12 = _RNG0.randn(12, 3).astype(np.float32)


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


def _blobs30():
    rng = np.random.RandomState(1)
    return np.concatenate([rng.randn(10, 2) + 5, rng.randn(10, 2) - 5,
                           rng.randn(10, 2)]).astype(np.float32)


# ----------------------------------------------------------------------------- k-means kernels


def test_kmeans_plus_plus_kernel_draws_tf_philox_stream():
    # TF 1.15: SimplePhilox over PhiloxRandom(seed); the first centre is the best of
    # 1 + retries uniform draws, the rest drawn by the running sum of half squared distances
    with tf.Graph().as_default():
        got = _run(gen.kmeans_plus_plus_initialization(_PTS12, 4, 17, -1))
        np.testing.assert_array_equal(got, np.float32(
            [[0.3336743414402008, 1.4940791130065918, -0.2051582634449005],
             [0.9500884413719177, -0.15135720372200012, -0.10321885347366333],
             [-1.980796456336975, -0.34791216254234314, 0.15634897351264954],
             [0.3130677044391632, -0.8540957570075989, -2.5529897212982178]]))
        got = _run(gen.kmeans_plus_plus_initialization(_PTS12, 3, 5, 0))  # no retries
        np.testing.assert_array_equal(got, _PTS12[[1, 9, 6]])


def test_kmc2_chain_kernel_draws_tf_philox_stream():
    with tf.Graph().as_default():
        d = np.abs(_PTS12[:, 0])
        got = [int(_run(gen.kmc2_chain_initialization(d, s))) for s in range(6)]
    assert got == [11, 11, 11, 8, 11, 11]  # TF 1.15


def test_nearest_neighbors_distances_are_tf_float32_expansion():
    # TF 1.15: 2 * (|p|^2/2 + (|c|^2/2 - <p, c>)) in float32, so bits as TF's, not the exact
    # squared distance
    cen = _PTS12[[1, 7]] + 0.25
    with tf.Graph().as_default():
        idx, dist = _run(gen.nearest_neighbors(_PTS12, cen, 1))
        assert idx.ravel().tolist() == [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
        np.testing.assert_array_equal(dist.ravel(), np.float32(
            [3.4140965938568115, 0.1875009536743164, 1.7556712627410889, 4.973353385925293,
             1.8820528984069824, 0.5513381958007812, 8.470866203308105, 0.18750011920928955,
             8.754432678222656, 5.212436676025391, 1.2591230869293213, 10.878883361816406]))
        idx, dist = _run(gen.nearest_neighbors(_PTS12, cen, 3))
        assert idx.shape == (12, 2) and idx[1].tolist() == [0, 1]
        np.testing.assert_array_equal(dist[:3], np.float32(
            [[3.4140965938568115, 6.388254165649414], [0.1875009536743164, 2.5908308029174805],
             [1.7556712627410889, 7.911505699157715]]))


@pytest.mark.parametrize("make,message", [
    (lambda p: gen.kmeans_plus_plus_initialization(p, 60, 1, 1),
     "Expected num_to_sample <= points.rows(). 60 vs 12."),
    (lambda p: gen.kmeans_plus_plus_initialization(p[0], 2, 1, 1),
     "Input points should be a matrix."),
    (lambda p: gen.kmeans_plus_plus_initialization(p, 0, 1, 1), "Expected num_to_sample > 0."),
    (lambda p: gen.nearest_neighbors(p, p[:, :2], 1),
     "Expected point_dimensions == center_dimensions: 3 vs 2."),
    (lambda p: gen.kmc2_chain_initialization(p[:0, 0], 1),
     "Expected distances_tensor.size() > 0."),
    (lambda p: gen.kmc2_chain_initialization(p[:, 0], [1, 2]), "Input seed should be a scalar."),
])
def test_clustering_kernel_errors_in_tf_words(make, message):
    with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(make(_PTS12))
    assert e.value.message.split("\n")[0] == message


# ----------------------------------------------------------------------------- KMeans graphs


def test_kmeans_plus_plus_init_op_gives_tf_centres_and_scores():
    fac = tf.contrib.factorization
    with tf.Graph().as_default():
        km = fac.KMeans(tf.constant(_blobs30()), 3, initial_clusters=fac.KMEANS_PLUS_PLUS_INIT,
                        random_seed=11)
        _, _, scores, inited, init_op, train = km.training_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init_op)
            assert sess.run(inited)
            np.testing.assert_array_equal(sess.run("clusters:0"), np.float32(
                [[-1.142518162727356, -0.3493427336215973],
                 [4.827571868896484, 4.122141361236572],
                 [-5.267888069152832, -4.469644546508789]]))
            sess.run(train)
            np.testing.assert_array_equal(sess.run(scores[0])[:4], np.float32(
                [1.0889053344726562, 1.3469772338867188, 2.0723304748535156,
                 1.2872390747070312]))


def test_kmeans_kmc2_init_adds_one_centre_per_run():
    # TF 1.15's k-MC2 loop reads the centres as they were when the run began and its
    # iterations assign in parallel: each run adds one centre (the first row, then the end of
    # the chain over the last iteration's subset); TF's usual outcome is rows 0, 9, 2
    co = tf.contrib.factorization.python.ops.clustering_ops
    pts = _blobs30()
    with tf.Graph().as_default():
        km = co.KMeans(tf.constant(pts), 3, initial_clusters=co.KMC2_INIT, random_seed=11,
                       kmc2_chain_length=5)
        _, _, _, inited, init_op, _ = km.training_graph()
        got = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(init_op)
                rows = sess.run("clusters:0")
                got.append((bool(sess.run(inited)),
                            [int(np.flatnonzero((pts == r).all(1))[0]) for r in rows]))
    assert got == [(False, [0]), (False, [0, 9]), (True, [0, 9, 2])]


def test_kmeans_plus_plus_init_on_too_few_points_fails_in_tf_words():
    fac = tf.contrib.factorization
    pts = np.random.RandomState(0).randn(5, 2).astype(np.float32)
    with tf.Graph().as_default():
        _, _, _, _, init_op, _ = fac.KMeans(
            tf.constant(pts), 8, initial_clusters=fac.KMEANS_PLUS_PLUS_INIT).training_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(init_op)
    # TF 1.15: assert_greater_equal's own message, nothing added
    assert e.value.message.startswith(
        "assertion failed: [Condition x >= y did not hold element-wise:] [x (strided_slice_1:0)"
        " = ] [5] [y (sub:0) = ] [8]")


# ----------------------------------------------------------------------------- GMM


def _gmm_points():
    rng = np.random.RandomState(7)
    return np.concatenate([rng.randn(25, 2) * 0.5 + [3, 3],
                           rng.randn(25, 2) * 0.7 - [3, 1]]).astype(np.float32)


def test_gmm_is_a_contrib_learn_estimator_with_tf_eval_results(tmp_path):
    # TF 1.15: fit (no train); evaluate gives the last batch's per-example scores and the
    # summed log-likelihood as "loss"; score is the log-sum-exp of the scores
    pts = _gmm_points()

    def input_fn():
        return tf.constant(pts), None

    gmm = tf.contrib.factorization.GMM(num_clusters=2, model_dir=str(tmp_path), random_seed=2)
    assert not hasattr(gmm, "train")
    assert gmm.fit(input_fn=input_fn, steps=4) is gmm
    np.testing.assert_allclose(gmm.clusters(), [[3.014540672302246, 2.891737222671509],
                                                [-2.8561580181121826, -0.9793886542320251]],
                               rtol=1e-5)
    assert list(gmm.predict_assignments(input_fn)) == [0] * 25 + [1] * 25
    ev = gmm.evaluate(input_fn=input_fn, steps=1)
    assert sorted(ev) == ["global_step", "loss", "scores"]
    assert np.asarray(ev["scores"]).shape == (50, 1)
    np.testing.assert_allclose(ev["loss"], 1.6980169, rtol=1e-5)
    np.testing.assert_allclose(gmm.score(input_fn, steps=1), 1.6980169, rtol=1e-5)


def test_gmm_assignments_have_the_batch_static_shape():
    gmm_ops = tf.contrib.factorization.python.ops.gmm_ops
    with tf.Graph().as_default():
        _, _, preds, _, _, _ = gmm_ops.gmm(tf.constant(_gmm_points()), "random", 2, 2)
        assert preds[0][0].get_shape().as_list() == [50]  # TF 1.15: (50,)


def test_contrib_learn_model_loss_metric_and_bare_tensor_metric(tmp_path):
    # TF 1.15's contrib.learn: a model's own "loss" metric replaces the mean loss, and a bare
    # tensor is read after the last batch
    x = np.arange(8, dtype=np.float32).reshape(8, 1)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1, 1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w)
        loss = tf.reduce_mean(tf.square(pred - labels))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(
            loss, tf.train.get_global_step())
        return tf.contrib.learn.ModelFnOps(
            mode=mode, predictions={"p": pred}, loss=loss, train_op=train,
            eval_metric_ops={"loss": tf.metrics.mean(loss * 10), "raw": tf.reduce_sum(pred)})

    est = tf.contrib.learn.Estimator(model_fn=model_fn, model_dir=str(tmp_path))
    est.fit(input_fn=lambda: (tf.constant(x), tf.constant(2 * x + 1)), steps=3)
    ev = est.evaluate(input_fn=lambda: (tf.constant(x), tf.constant(2 * x + 1)), steps=2)
    assert sorted(ev) == ["global_step", "loss", "raw"]
    np.testing.assert_allclose([ev["loss"], ev["raw"]], [66.87981414794922, 44.68309783935547],
                               rtol=1e-6)


# ----------------------------------------------------------------------------- WALS


def test_wals_update_builds_tf_ops_and_names():
    # TF 1.15: the factors' and weights' initial values sit in the variables' Initializer
    # scopes; the kernels are named as generated ops (unknown static shapes); the loss is
    # built from sparse ops, so the returned tensors carry TF's names
    rng = np.random.RandomState(11)
    dense = rng.rand(6, 5).astype(np.float32)
    mask = rng.rand(6, 5) < 0.6
    with tf.Graph().as_default() as g:
        tf.set_random_seed(4)
        sp = tf.SparseTensor(np.argwhere(mask).astype(np.int64), dense[mask], [6, 5])
        m = tf.contrib.factorization.WALSModel(6, 5, 3)
        _, update, loss, reg, sum_w = m.update_row_factors(sp_input=sp)
        assert [update.name, loss.name, reg.name, sum_w.name] == [
            "row_update", "mul_5:0", "Const_4:0", "add_3:0"]
        names = {op.name: op for op in g.get_operations()}
        for name in ("row_weights_shard_0/Initializer/mul",
                     "row_factors_shard_0/Initializer/random_normal",
                     "col_factors_shard_0/Initializer/random_normal"):
            assert name in names
        for name, op_type in (("wals_compute_partial_lhs_rhs", "WALSComputePartialLhsAndRhs"),
                              ("MaskedMatmul", "MaskedMatmul")):
            assert names[name].type == op_type
            assert names[name].outputs[0].get_shape().ndims is None
        types = {op.type for op in g.get_operations()}
        assert {"SparseAdd", "SparseReduceSum", "SparseDenseCwiseMul"} <= types
        with tf.Session() as sess:
            sess.run(m.initialize_op)
            sess.run(m.worker_init)
            sess.run(m.row_update_prep_gramian_op)
            sess.run(m.initialize_row_update_op)
            _, got = sess.run([update, [loss, reg, sum_w]])
    np.testing.assert_allclose(got, [1.7854718, 0.0, 20.0], rtol=1e-6)  # TF 1.15


# ----------------------------------------------------------------------------- tensor_forest


def test_forest_hparams_fill_as_tf():
    # TF 1.15's fill(): max_fertile_nodes stays (deprecated, unused), the split count is
    # min(max(10, floor(sqrt(F))), 1000), and the proto enums are set by name
    tensor_forest = tf.contrib.tensor_forest.python.tensor_forest
    p = tensor_forest.ForestHParams(num_classes=3, num_features=5000,
                                    split_finish_name="hoeffding",
                                    early_finish_check_every_samples=3,
                                    model_name="all_sparse", split_name="less").fill()
    got = {k: v for k, v in p.values().items()}
    assert got == {
        "bagged_features": None, "bagged_num_features": 5000, "bagging_fraction": 1.0,
        "base_random_seed": 0, "checkpoint_stats": False, "collate_examples": False,
        "dominate_fraction": 0.99, "dominate_method": "bootstrap",
        "early_finish_check_every_samples": 3, "feature_bagging_fraction": 1.0,
        "finish_type": 2, "inference_tree_paths": False, "initialize_average_splits": False,
        "leaf_model_type": 1, "max_fertile_nodes": 0, "max_nodes": 10000,
        "model_name": "all_sparse", "num_classes": 3, "num_features": 5000,
        "num_output_columns": 4, "num_outputs": 1, "num_splits_to_consider": 70,
        "num_trees": 100, "param_file": None, "prune_every_samples": 0, "pruning_type": 0,
        "regression": False, "split_after_samples": 250, "split_finish_name": "hoeffding",
        "split_name": "less", "split_pruning_name": "none", "split_type": 1,
        "stats_model_type": 1, "use_running_stats_method": False, "valid_leaf_threshold": 1}
    p = tensor_forest.ForestHParams(num_classes=3, num_features=150, num_trees=2,
                                    feature_bagging_fraction=0.5, regression=True,
                                    split_pruning_name="half", prune_every_samples=7).fill()
    assert (p.num_splits_to_consider, p.bagged_num_features, p.leaf_model_type,
            p.stats_model_type, p.finish_type, p.pruning_type, p.prune_every_samples,
            p.num_outputs) == (12, 75, 2, 2, 0, 1, 7, 3)
    assert len(p.bagged_features) == 2 and all(len(set(f)) == 75 for f in p.bagged_features)
    with pytest.raises(AttributeError, match="has no attribute 'num_features'"):
        tensor_forest.ForestHParams(num_classes=2).fill()


# ----------------------------------------------------------------------------- linear models


def test_contrib_learn_linear_classifier_on_an_unnamed_column(tmp_path):
    # TF 1.15: infer_real_valued_columns_from_input's column is named "", its weight
    # "linear//weight"
    rng = np.random.RandomState(9)
    x = rng.randn(48, 2).astype(np.float32)
    y = (x[:, 0] - x[:, 1] > 0).astype(np.int64)
    learn = tf.contrib.learn
    clf = learn.LinearClassifier(
        feature_columns=[tf.contrib.layers.real_valued_column("", dimension=2)], n_classes=2,
        model_dir=str(tmp_path), optimizer=tf.train.GradientDescentOptimizer(0.2))
    clf.fit(input_fn=tf.estimator.inputs.numpy_input_fn(x, y, batch_size=16, num_epochs=None,
                                                        shuffle=False), steps=9)
    assert sorted(clf.get_variable_names()) == ["global_step", "linear//weight",
                                                "linear/bias_weight"]
    proba = list(clf.predict_proba(input_fn=tf.estimator.inputs.numpy_input_fn(
        x[:3], shuffle=False)))
    np.testing.assert_allclose(proba, [[0.48361, 0.51639], [0.62389, 0.37611],
                                       [0.50097, 0.49903]], atol=2e-5)


@pytest.mark.parametrize("num_classes", [2, 3])
def test_tensor_forest_estimator_has_tf_head_outputs(tmp_path, num_classes):
    # TF 1.15: a contrib.learn head over the class frequencies (two classes: a binary
    # logistic head on the log-odds of class 1), plus prediction_variance
    tensor_forest = tf.contrib.tensor_forest.python.tensor_forest
    random_forest = tf.contrib.tensor_forest.client.random_forest
    rng = np.random.RandomState(5)
    x = rng.rand(80, 4).astype(np.float32)
    y = np.digitize(x[:, 0] + x[:, 1], [1.0] if num_classes == 2 else [0.7, 1.3])
    params = tensor_forest.ForestHParams(num_classes=num_classes, num_features=4, num_trees=4,
                                         max_nodes=100, split_after_samples=10)
    est = random_forest.TensorForestEstimator(params.fill(), model_dir=str(tmp_path))
    numpy_input_fn = tf.estimator.inputs.numpy_input_fn
    est.fit(input_fn=numpy_input_fn(x, y.astype(np.int64), batch_size=40, num_epochs=None,
                                    shuffle=False), steps=6)
    ev = est.evaluate(input_fn=numpy_input_fn(x, y.astype(np.int64), batch_size=80,
                                              num_epochs=1, shuffle=False), steps=1)
    pred = next(est.predict(input_fn=numpy_input_fn(x[:1], shuffle=False)))
    if num_classes == 2:
        assert sorted(ev) == [
            "accuracy", "accuracy/baseline_label_mean", "accuracy/threshold_0.500000_mean",
            "auc", "auc_precision_recall", "global_step", "labels/actual_label_mean",
            "labels/prediction_mean", "loss", "precision/positive_threshold_0.500000_mean",
            "recall/positive_threshold_0.500000_mean"]
        assert sorted(pred) == ["classes", "logistic", "logits", "prediction_variance",
                                "probabilities"]
        np.testing.assert_allclose(pred["probabilities"][1], 1 / (1 + np.exp(-pred["logits"][0])),
                                   rtol=1e-5)
    else:
        assert sorted(ev) == ["accuracy", "global_step", "loss"]
        assert sorted(pred) == ["classes", "logits", "prediction_variance", "probabilities"]
        e = np.exp(pred["logits"])
        np.testing.assert_allclose(pred["probabilities"], e / e.sum(), rtol=1e-5)
    assert ev["loss"] > 0 and pred["prediction_variance"].shape == (num_classes,)


def test_gmm_means_move_only_with_the_covariances():
    # TF 1.15 assigns the means only as a dependency of the covariance update: params "m"
    # (or "wm") leaves them where the init put them
    gmm_ops = tf.contrib.factorization.python.ops.gmm_ops
    pts = _gmm_points()
    for params, moved in (("m", False), ("mc", True)):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 2])
            _, _, _, train, init_op, _ = gmm_ops.gmm(x, pts[[1, 40]], 2, 3, "full", params)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(init_op, {x: pts})
                for _ in range(2):
                    sess.run(train, {x: pts})
                means = sess.run("clusters:0")[:, 0]
        assert np.array_equal(means, pts[[1, 40]]) is not moved


def test_wals_argument_checks_are_tf_asserts():
    # TF 1.15: bare asserts (AssertionError, empty message); an unsharded-list init with
    # several shards is indexed by shard as it is
    fac = tf.contrib.factorization
    with tf.Graph().as_default():
        model = fac.WALSModel(4, 3, 2)
        for make in (lambda: model.update_row_factors(sp_input=tf.zeros([4, 3])),
                     lambda: fac.WALSModel(4, 3, 2, row_weights=[1.0, 2.0]),
                     lambda: fac.WALSModel(4, 3, 2, row_init=[np.zeros((4, 2))],
                                           num_row_shards=2),
                     lambda: fac.WALSModel(4, 3, 2, row_weights=None)):
            with pytest.raises(AssertionError) as e:
                make()
            assert str(e.value) == ""


def test_kmeans_on_float64_points_fails_where_tf_does():
    # TF 1.15 takes the chosen centres as they are: float64 points meet the float32 centres
    # variable in the init op's concat
    message = r"Tensors in list passed to 'values' of 'ConcatV2' Op have types \[float32, float64\]"
    with tf.Graph().as_default(), pytest.raises(TypeError, match=message):
        tf.contrib.factorization.KMeans(tf.constant(_PTS12, tf.float64), 2).training_graph()


# TF 1.15's WALSComputePartialLhsAndRhs outputs (flattened) for the inputs below
_WALS_TF = {
    "lhs": [4.162735462188721, 1.6308553218841553, 0.5107017755508423, 1.6308553218841553,
        1.9467508792877197, 0.13299964368343353, 0.5107017755508423, 0.13299964368343353,
        0.0818413645029068, 3.6035234928131104, 1.2756450176239014, 0.10579431056976318,
        1.2756450176239014, 2.225159168243408, -1.3545981645584106, 0.10579431056976318,
        -1.3545981645584106, 1.0956981182098389, 3.1167449951171875, 0.8109997510910034,
        0.17141658067703247, 0.8109997510910034, 0.5795930624008179, 0.06850694864988327,
        0.17141658067703247, 0.06850694864988327, 0.010977894067764282],
    "rhs": [-0.9955418705940247, -1.2855687141418457, 0.03736673668026924, 0.07696524262428284,
        -1.1902164220809937, 0.9578215479850769, -2.3120927810668945, -0.4373311698436737,
        -0.11650674790143967],
    "lhs_t": [2.913914442062378, 1.1415985822677612, 0.3574911952018738, 1.1415985822677612,
        1.3627257347106934, 0.09309974312782288, 0.3574911952018738, 0.09309974312782288,
        0.05728895217180252, 2.5224664211273193, 0.892951488494873, 0.07405596971511841,
        0.892951488494873, 1.5576114654541016, -0.948218822479248, 0.07405596971511841,
        -0.948218822479248, 0.7669886350631714, 2.1817216873168945, 0.5676999092102051,
        0.11999161541461945, 0.5676999092102051, 0.40571510791778564, 0.04795486107468605,
        0.11999161541461945, 0.04795486107468605, 0.0076845260336995125],
    "rhs_t": [-0.5594427585601807, -0.7412489652633667, 0.022449877113103867, 0.03954461216926575,
        -0.7498067021369934, 0.6006568670272827, -1.418497085571289, -0.26804429292678833,
        -0.07146120816469193],
}


def test_wals_partial_normal_equations_are_tf_float32_bits():
    # TF 1.15 adds each entry in float32: (sqrt(w) f)(sqrt(w) f)^T and (v (w0 + w)) f
    from tideflow.ops.factorization_ops import wals_compute_partial_lhs_and_rhs as partial

    rng = np.random.RandomState(3)
    factors = rng.randn(5, 3).astype(np.float32)
    fw = (rng.rand(5) + 0.5).astype(np.float32)
    iw = (rng.rand(3) + 0.5).astype(np.float32)
    idx = np.array([[0, 1], [2, 0], [0, 4], [1, 3], [2, 2], [0, 0], [1, 1]], np.int64)
    vals = rng.randn(7).astype(np.float32)
    with tf.Graph().as_default():
        got = _run([*partial(factors, fw, 0.3, iw, idx, vals, 3, False),
                    *partial(factors, fw, 0.1, iw * 0.7, idx[:, ::-1].copy(), vals, 3, True)])
    for name, value in zip(("lhs", "rhs", "lhs_t", "rhs_t"), got):
        np.testing.assert_array_equal(value.ravel(), np.float32(_WALS_TF[name]), err_msg=name)
