"""tf.contrib.metrics (slim.metrics) against TF 1.x's contrib metric tests: the streaming
covariance / Pearson state (variable names, NaN until two values, weighted merges),
``streaming_recall_at_k``'s ``recall_at_<k>`` scope, ``streaming_concat``, ``count``,
``streaming_dynamic_auc``, ``streaming_curve_points``,
``precision_recall_at_equal_thresholds``, the bare per-threshold counts and the contrib-only
aliases. Expected values come from NumPy."""

import numpy as np
import pytest

import tideflow as tf

m = tf.contrib.metrics


@pytest.fixture
def graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _local_names():
    local = sorted(v.name for v in tf.local_variables())
    assert local == sorted(v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES))
    return local


def test_covariance_variables_and_nan_until_two_values(graph):
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    cov, update = m.streaming_covariance(x, y)
    assert _local_names() == ["covariance/comoment:0", "covariance/count:0",
                              "covariance/mean_label:0", "covariance/mean_prediction:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert np.isnan(sess.run(cov))
        assert np.isnan(sess.run(update, {x: [2.0], y: [3.0]}))
        got = sess.run(update, {x: [4.0, 7.0], y: [1.0, 5.0]})
        np.testing.assert_allclose(got, np.cov([2, 4, 7], [3, 1, 5])[0, 1], rtol=1e-5)
        np.testing.assert_allclose(sess.run(cov), got)


def test_covariance_weighted_streaming_matches_numpy(graph):
    rng = np.random.RandomState(3)
    px = (rng.randn(40) * 5 + 1000).astype(np.float32)  # large offset: merged means
    py = (0.3 * px + rng.randn(40)).astype(np.float32)
    w = rng.rand(40).astype(np.float32)
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [None])
    wt = tf.placeholder(tf.float32, [None])
    cov, update = m.streaming_covariance(x, y, weights=wt)
    r, r_update = m.streaming_pearson_correlation(x, y, weights=wt)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for i in range(0, 40, 8):
            sess.run([update, r_update], {x: px[i:i + 8], y: py[i:i + 8], wt: w[i:i + 8]})
        xd, yd, wd = px.astype(np.float64), py.astype(np.float64), w.astype(np.float64)
        mx, my = np.sum(wd * xd) / wd.sum(), np.sum(wd * yd) / wd.sum()
        expected = np.sum(wd * (xd - mx) * (yd - my)) / (wd.sum() - 1)
        np.testing.assert_allclose(sess.run(cov), expected, rtol=1e-4)
        expected_r = np.sum(wd * (xd - mx) * (yd - my)) / np.sqrt(
            np.sum(wd * (xd - mx) ** 2) * np.sum(wd * (yd - my) ** 2))
        np.testing.assert_allclose(sess.run(r), expected_r, rtol=1e-4)


def test_pearson_variable_scopes(graph):
    m.streaming_pearson_correlation(tf.ones([4, 3]), tf.ones([4, 3]))
    names = _local_names()
    assert len(names) == 12
    for sub in ("covariance", "variance_predictions", "variance_labels"):
        for var in ("comoment", "count", "mean_label", "mean_prediction"):
            assert f"pearson_r/{sub}/{var}:0" in names


def test_recall_at_k_scope_and_value(graph):
    scores = tf.constant([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3], [0.2, 0.3, 0.5]])
    labels = tf.constant([1, 2, 0], tf.int64)
    rec, update = m.streaming_recall_at_k(scores, labels, 1)
    rec2, update2 = m.streaming_recall_at_k(scores, labels, 2)
    assert _local_names() == ["recall_at_1/count:0", "recall_at_1/total:0",
                              "recall_at_2/count:0", "recall_at_2/total:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([update, update2])
        np.testing.assert_allclose(sess.run([rec, rec2]), [1 / 3, 2 / 3], rtol=1e-6)


def test_streaming_concat_along_axes_and_max_size(graph):
    v = tf.placeholder(tf.int32, [None])
    c, update = m.streaming_concat(v)
    v3 = tf.placeholder(tf.float32, [2, None, 3])
    c3, update3 = m.streaming_concat(v3, axis=1, max_size=5)
    assert c3.get_shape().as_list() == [2, None, 3]
    assert "streaming_concat/array:0" in _local_names()
    assert "streaming_concat/size:0" in _local_names()
    a = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(c).shape == (0,)
        assert sess.run(update, {v: [0, 1, 2]}) == 3
        sess.run(update, {v: []})
        sess.run(update, {v: [3, 4]})
        np.testing.assert_array_equal(sess.run(c), [0, 1, 2, 3, 4])
        sess.run(update3, {v3: a})
        assert sess.run(update3, {v3: a + 100}) == 5
        np.testing.assert_array_equal(sess.run(c3), np.concatenate([a, a + 100], 1)[:, :5])
        sess.run(tf.local_variables_initializer())
        assert sess.run(c).shape == (0,)


@pytest.mark.parametrize("shape, axis, message", [
    (None, 0, "statically known rank"),
    ([None, None], 0, "statically known size"),
    ([None], 1, r"axis = 1 not in \[0, 1\)"),
])
def test_streaming_concat_rejects_unknown_static_shapes(graph, shape, axis, message):
    with pytest.raises(ValueError, match=message):
        m.streaming_concat(tf.placeholder(tf.float32, shape), axis=axis)


def test_count_with_and_without_weights(graph):
    n, update = m.count(tf.ones([3, 2]))
    nw, update_w = m.count(tf.ones([3, 2]), weights=[[1.0], [0.0], [2.0]], name="weighted")
    assert "count/count:0" in _local_names()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run([update, update_w]) == [6.0, 6.0]
        sess.run([update, update_w])
        assert sess.run([n, nw]) == [12.0, 12.0]


def _reference_auc(labels, preds, weights, curve):
    positive = np.sum(weights * (labels > 0))
    negative = np.sum(weights * (labels == 0))
    xs, ys = [0.0], [0.0 if curve == "ROC" else 1.0]
    for t in np.unique(preds)[::-1]:
        above = preds >= t
        tp = np.sum(weights * above * (labels > 0))
        fp = np.sum(weights * above * (labels == 0))
        xs.append(fp / negative if curve == "ROC" else tp / positive)
        ys.append(tp / positive if curve == "ROC" else tp / (tp + fp))
    xs, ys = np.array(xs), np.array(ys)
    return np.sum((ys[1:] + ys[:-1]) / 2 * np.abs(np.diff(xs)))


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("weighted", [False, True])
def test_dynamic_auc_over_batches(graph, curve, weighted):
    rng = np.random.RandomState(7)
    labels = rng.randint(0, 2, 30)
    preds = np.round(rng.rand(30), 1)  # ties between predictions
    weights = rng.rand(30) if weighted else np.ones(30)
    lt = tf.placeholder(tf.int32, [None])
    pt = tf.placeholder(tf.float64, [None])
    wt = tf.placeholder(tf.float64, [None])
    auc, update = m.streaming_dynamic_auc(lt, pt, curve=curve,
                                          weights=wt if weighted else None)
    assert auc.dtype == tf.float64
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(auc) == 0.0
        for i in range(0, 30, 7):
            sess.run(update, {lt: labels[i:i + 7], pt: preds[i:i + 7], wt: weights[i:i + 7]})
        np.testing.assert_allclose(sess.run(auc),
                                   _reference_auc(labels, preds, weights, curve), rtol=1e-9)


def test_dynamic_auc_single_class_and_bad_labels(graph):
    auc, update = m.streaming_dynamic_auc(tf.constant([1, 1]), tf.constant([0.2, 0.7]))
    fed = tf.placeholder(tf.int32, [2])
    _, bad_update = m.streaming_dynamic_auc(fed, tf.constant([0.2, 0.7]), name="bad")
    with pytest.raises(ValueError, match="curve must be either ROC or PR"):
        m.streaming_dynamic_auc(tf.constant([1]), tf.constant([0.5]), curve="XX")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        assert sess.run(auc) == 0.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="labels must be 0 or 1"):
            sess.run(bad_update, {fed: [2, 0]})


def test_contrib_only_aliases_take_predictions_first(graph):
    scores = tf.constant([[0.1, 0.6, 0.3], [0.7, 0.2, 0.1]])
    labels = tf.constant([[1], [1]], tf.int64)
    ap, ap_up = m.streaming_sparse_average_precision_at_k(scores, labels, 2)
    top = tf.constant([[1, 2], [0, 1]], tf.int64)
    prec, prec_up = m.streaming_sparse_precision_at_top_k(top, labels)
    rec, rec_up = m.sparse_recall_at_top_k(labels, top)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([ap_up, prec_up, rec_up])
        # example 0: label ranked first (AP 1); example 1: ranked second (AP 1/2)
        np.testing.assert_allclose(sess.run(ap), 0.75)
        np.testing.assert_allclose(sess.run(prec), 0.5)
        np.testing.assert_allclose(sess.run(rec), 1.0)


def test_precision_recall_at_equal_thresholds_buckets(graph):
    rng = np.random.RandomState(11)
    preds = rng.rand(40).astype(np.float32)
    labels = rng.rand(40) > 0.4
    weights = rng.rand(40).astype(np.float32)
    pt = tf.placeholder(tf.float32, [None])
    lt = tf.placeholder(tf.bool, [None])
    wt = tf.placeholder(tf.float32, [None])
    data, update = m.precision_recall_at_equal_thresholds(lt, pt, weights=wt,
                                                          num_thresholds=6)
    assert type(data).__name__ == "PrecisionRecallData"
    assert _local_names() == [
        "precision_recall_at_equal_thresholds/variables/fp_buckets:0",
        "precision_recall_at_equal_thresholds/variables/tp_buckets:0"]
    with pytest.raises(TypeError):
        m.precision_recall_at_equal_thresholds(tf.constant([1]), tf.constant([0.5]))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for i in range(0, 40, 10):
            sess.run(update, {pt: preds[i:i + 10], lt: labels[i:i + 10], wt: weights[i:i + 10]})
        got = sess.run(data)
    thresholds = np.linspace(0.0, 1.0, 6)
    w = weights.astype(np.float64)
    tp = np.array([np.sum(w * ((preds >= t) & labels)) for t in thresholds])
    fp = np.array([np.sum(w * ((preds >= t) & ~labels)) for t in thresholds])
    fn, tn = np.sum(w * labels) - tp, np.sum(w * ~labels) - fp
    assert got.tp.dtype == np.float32
    np.testing.assert_allclose(got.tp, tp, rtol=1e-5)
    np.testing.assert_allclose(got.fp, fp, rtol=1e-5)
    np.testing.assert_allclose(got.fn, fn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.tn, tn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.precision, tp / np.maximum(1e-7, tp + fp), rtol=1e-5)
    np.testing.assert_allclose(got.recall, tp / np.maximum(1e-7, tp + fn), rtol=1e-5)
    np.testing.assert_allclose(got.thresholds, thresholds, rtol=1e-6)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
def test_curve_points_on_the_threshold_grid(graph, curve):
    rng = np.random.RandomState(5)
    preds = rng.rand(30).astype(np.float32)
    labels = rng.rand(30) > 0.5
    points, update = m.streaming_curve_points(tf.constant(labels), tf.constant(preds),
                                              num_thresholds=5, curve=curve)
    assert points.get_shape().as_list() == [5, 2]
    assert "curve_points/true_positives:0" in _local_names()
    grid = [-1e-7, 0.25, 0.5, 0.75, 1 + 1e-7]
    tp = np.array([np.sum((preds > t) & labels) for t in grid], np.float64)
    fp = np.array([np.sum((preds > t) & ~labels) for t in grid], np.float64)
    fn, tn = labels.sum() - tp, (~labels).sum() - fp
    eps = 1e-6
    recall = (tp + eps) / (tp + fn + eps)
    if curve == "ROC":
        expected = np.stack([fp / (fp + tn + eps), recall], 1)
    else:
        expected = np.stack([recall, (tp + eps) / (tp + fp + eps)], 1)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update)
        np.testing.assert_allclose(sess.run(points), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="curve must be either ROC or PR"):
        m.streaming_curve_points(tf.constant(labels), tf.constant(preds), curve="AB")


def test_counts_at_thresholds_are_bare_variables_without_range_check(graph):
    preds = tf.constant([-0.5, 0.2, 0.8, 1.5])  # contrib does not require [0, 1]
    labels = tf.constant([True, False, True, True])
    tp, tp_up = m.streaming_true_positives_at_thresholds(preds, labels, [0.0, 1.0])
    fn, fn_up = m.streaming_false_negatives_at_thresholds(preds, labels, [0.0, 1.0],
                                                          weights=[1.0, 1.0, 2.0, 1.0])
    assert _local_names() == ["false_negatives:0", "true_positives:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([tp_up, fn_up])
        np.testing.assert_allclose(sess.run(tp), [2.0, 1.0])
        np.testing.assert_allclose(sess.run(fn), [1.0, 3.0])


def test_false_positive_and_negative_rates(graph):
    preds = tf.constant([1, 0, 1, 0, 1])
    labels = tf.constant([0, 0, 1, 1, 1])
    scores = tf.constant([0.2, 0.7, 0.4, 0.9, 0.1])
    fpr, fpr_up = m.streaming_false_positive_rate(preds, labels)
    fnr, fnr_up = m.streaming_false_negative_rate(preds, labels, weights=[1.0, 1, 1, 3, 1])
    fpr_t, fpr_t_up = m.streaming_false_positive_rate_at_thresholds(scores, labels, [0.3, 0.5])
    fnr_t, fnr_t_up = m.streaming_false_negative_rate_at_thresholds(scores, labels, [0.3, 0.5])
    empty, empty_up = m.streaming_false_positive_rate(tf.constant([True]), tf.constant([True]),
                                                      name="no_negatives")
    names = _local_names()
    for expected in ("false_positive_rate/false_positives/count:0",
                     "false_positive_rate/true_negatives/count:0",
                     "false_negative_rate_at_thresholds/false_negatives:0",
                     "false_negative_rate_at_thresholds/true_positives:0"):
        assert expected in names
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got = sess.run([fpr_up, fnr_up, fpr_t_up, fnr_t_up, empty_up])
        # negatives: predictions (1, 0) -> fp 1, tn 1; positives weighted (1, 3, 1) with
        # predictions (1, 0, 1) -> fn 3, tp 2
        np.testing.assert_allclose(got[0], 0.5)
        np.testing.assert_allclose(got[1], 0.6)
        np.testing.assert_allclose(got[2], [0.5, 0.5], rtol=1e-6)
        np.testing.assert_allclose(got[3], [1 / 3, 2 / 3], rtol=1e-6)
        assert got[4] == 0.0
        np.testing.assert_allclose(sess.run([fpr, fnr]), [0.5, 0.6])
        np.testing.assert_allclose(sess.run(fpr_t), [0.5, 0.5], rtol=1e-6)
        np.testing.assert_allclose(sess.run(fnr_t), [1 / 3, 2 / 3], rtol=1e-6)
        assert sess.run(empty) == 0.0


def test_threshold_metrics_take_contrib_positional_order(graph):
    scores = tf.constant([0.1, 0.6, 0.4, 0.9])
    labels = tf.constant([0, 1, 0, 1])
    sens, sens_up = m.streaming_sensitivity_at_specificity(scores, labels, 0.5, None, 50,
                                                           ["my_metrics"])
    assert tf.get_collection("my_metrics") == [sens]
    _, prec_up = m.streaming_precision_at_thresholds(scores, labels, [0.5],
                                                     [1.0, 1.0, 0.0, 1.0])
    with pytest.raises(TypeError, match="multiple values"):
        m.streaming_recall_at_thresholds(scores, labels, [0.5], None, weights=None)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'dim'"):
        m.streaming_mean_cosine_distance(scores, scores)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        got_sens, got_prec = sess.run([sens_up, prec_up])
        assert got_sens == 1.0
        np.testing.assert_allclose(got_prec, [1.0])


def test_auc_using_histogram_against_binned_numpy(graph):
    rng = np.random.RandomState(2)
    labels = rng.rand(120) > 0.5
    scores = (rng.randn(120) + labels).astype(np.float32)
    lt = tf.placeholder(tf.bool, [None])
    st = tf.placeholder(tf.float32, [None])
    auc, update = m.auc_using_histogram(lt, st, [-3.0, 4.0], nbins=40)
    assert auc.dtype == tf.float32
    assert sorted(v.name for v in tf.local_variables()) == [
        "auc_using_histogram/hist_accumulate/hist_false_acc:0",
        "auc_using_histogram/hist_accumulate/hist_true_acc:0"]
    with pytest.raises(ValueError, match="should have dtype bool"):
        m.auc_using_histogram(tf.constant([1]), tf.constant([0.5]), [0.0, 1.0])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for i in range(0, 120, 30):
            sess.run(update, {lt: labels[i:i + 30], st: scores[i:i + 30]})
        got = sess.run(auc)
    bins = np.clip(np.floor((np.clip(scores, -3, 4) + 3) / 7 * 40).astype(int), 0, 39)
    dy = np.bincount(bins[labels], minlength=40)[::-1] / labels.sum()
    dx = np.bincount(bins[~labels], minlength=40)[::-1] / (~labels).sum()
    y = np.cumsum(dy)
    expected = np.sum(dx * (y + np.concatenate([[0.0], y[:-1]])) / 2)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def _kappa(labels, preds, weights, num_classes):
    table = np.zeros((num_classes, num_classes))
    for a, b, w in zip(labels, preds, weights, strict=True):
        table[a, b] += w
    total = table.sum()
    expected = np.sum(table.sum(0) * table.sum(1)) / total
    return (np.trace(table) - expected) / (total - expected)


def test_cohen_kappa_streams_in_float64(graph):
    rng = np.random.RandomState(4)
    labels = rng.randint(0, 3, 48)
    preds = np.where(rng.rand(48) < 0.6, labels, rng.randint(0, 3, 48))
    weights = rng.rand(48).astype(np.float32)
    lt = tf.placeholder(tf.int64, [None])
    pt = tf.placeholder(tf.int64, [None])
    wt = tf.placeholder(tf.float32, [None])
    kappa, update = m.cohen_kappa(lt, pt, 3)
    kappa_w, update_w = m.cohen_kappa(lt[:, None], pt, 3, weights=wt, name="weighted")
    assert kappa.dtype == tf.float64
    assert "cohen_kappa/po:0" in _local_names()
    assert tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)[0].dtype.base_dtype == tf.int64
    with pytest.raises(ValueError, match="num_classes"):
        m.cohen_kappa(lt, pt, 1)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(kappa) == 0.0
        for i in range(0, 48, 12):
            sess.run([update, update_w], {lt: labels[i:i + 12], pt: preds[i:i + 12],
                                          wt: weights[i:i + 12]})
        np.testing.assert_allclose(sess.run(kappa), _kappa(labels, preds, np.ones(48), 3),
                                   rtol=1e-12)
        np.testing.assert_allclose(sess.run(kappa_w), _kappa(labels, preds, weights, 3),
                                   rtol=1e-6)


def test_recall_at_precision_and_precision_at_recall(graph):
    rng = np.random.RandomState(0)
    scores = rng.rand(100).astype(np.float32)
    labels = rng.rand(100) < scores
    grid = [-1e-7] + [i / 19 for i in range(1, 19)] + [1 + 1e-7]
    tp = np.array([np.sum((scores > t) & labels) for t in grid], np.float64)
    fp = np.array([np.sum((scores > t) & ~labels) for t in grid], np.float64)
    fn = labels.sum() - tp
    precision = tp / (tp + fp + 1e-7)
    recall = tp / (tp + fn + 1e-7)
    lt, st = tf.constant(labels), tf.constant(scores)
    r, r_up = m.recall_at_precision(lt, st, 0.8, num_thresholds=20)
    r_strict, r_strict_up = m.recall_at_precision(lt, st, 0.8, num_thresholds=20,
                                                  strict_mode=True, name="strict")
    # the positive scores below the negative: precision never exceeds 1/2
    none, none_up = m.recall_at_precision(tf.constant([True, False]), tf.constant([0.2, 0.9]),
                                          0.9, num_thresholds=20, strict_mode=True,
                                          name="unreachable")
    p, p_up = m.precision_at_recall(lt, st, 0.5, num_thresholds=20)
    assert "recall_at_precision/true_positives:0" in _local_names()
    assert "precision_at_recall/false_positives:0" in _local_names()
    with pytest.raises(ValueError, match="range"):
        m.recall_at_precision(lt, st, 1.5)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([r_up, r_strict_up, none_up, p_up])
        got = sess.run([r, r_strict, none, p])
    strict_index = np.argmin(np.where(precision >= 0.8, precision, 2.0))
    np.testing.assert_allclose(got[0], recall[np.argmin(np.abs(precision - 0.8))], rtol=1e-6)
    np.testing.assert_allclose(got[1], recall[strict_index], rtol=1e-6)
    assert got[2] == 0.0
    np.testing.assert_allclose(got[3], precision[np.argmin(np.abs(recall - 0.5))], rtol=1e-6)


def test_top_k_metrics_without_k_are_scoped_at_k(graph):
    # TF names the k-less forms '<metric>_at_k' (and '_at_k_class<id>'), scope and variables
    top = tf.constant([[1, 2], [0, 1]], tf.int64)
    labels = tf.constant([[1], [1]], tf.int64)
    prec, _ = m.streaming_sparse_precision_at_top_k(top, labels)
    rec, _ = m.sparse_recall_at_top_k(labels, top, class_id=1)
    core, _ = tf.metrics.precision_at_top_k(labels, top, k=2)
    assert (prec.name, rec.name, core.name) == (
        "precision_at_k:0", "recall_at_k_class1:0", "precision_at_2:0")
    assert _local_names() == [
        "precision_at_2/false_positive_at_2:0", "precision_at_2/true_positive_at_2:0",
        "precision_at_k/false_positive_at_k:0", "precision_at_k/true_positive_at_k:0",
        "recall_at_k_class1/false_negative_at_k_class1:0",
        "recall_at_k_class1/true_positive_at_k_class1:0"]


def test_contrib_metrics_implementation_paths():
    # programs import TF 1.x's implementation modules directly
    from tideflow.contrib.metrics.python.ops import confusion_matrix_ops, histogram_ops, metric_ops

    assert metric_ops.streaming_concat is m.streaming_concat
    assert metric_ops.count is m.count
    assert metric_ops.aggregate_metric_map is m.aggregate_metric_map
    assert metric_ops.precision_recall_at_equal_thresholds is \
        m.precision_recall_at_equal_thresholds
    assert histogram_ops.auc_using_histogram is m.auc_using_histogram
    assert confusion_matrix_ops.confusion_matrix is m.confusion_matrix


def _mann_whitney_interval(y, p, w, alpha, logit):
    """Weighted AUC (ties half) from placement values and its normal interval."""
    import statistics

    eps = 1e-7
    pos, neg = y == 1, y == 0
    t0, t1 = w[neg].sum(), w[pos].sum()

    def share_below(values, ref, ref_w):
        return np.array([np.sum(ref_w * ((ref < v) + 0.5 * (ref == v))) for v in values])

    place_pos = share_below(p[pos], p[neg], w[neg]) / (t0 + eps)
    place_neg = share_below(p[neg], p[pos], w[pos]) / (t1 + eps)
    auc_0 = np.sum(w[neg] * (1 - place_neg)) / (t0 + eps)
    auc_1 = np.sum(w[pos] * place_pos) / (t1 + eps)
    auc = auc_1 if t0 < t1 else auc_0
    var_0 = np.sum(w[neg] * (1 - place_neg - auc_0) ** 2) / (t0 - 1 + eps)
    var_1 = np.sum(w[pos] * (place_pos - auc_1) ** 2) / (t1 - 1 + eps)
    se = np.sqrt(var_0 / (t0 + eps) + var_1 / (t1 + eps))
    z = statistics.NormalDist().inv_cdf((1 - alpha) / 2)
    if not logit:
        return auc, auc + z * se, auc - z * se
    est = np.log(auc / (1 - auc + eps))
    se_logit = se / (auc * (1 - auc + eps))

    def inverse(x):
        return 1 / (1 + np.exp(-x) + eps)

    return auc, inverse(est + z * se_logit), inverse(est - z * se_logit)


@pytest.mark.parametrize("logit", [True, False])
def test_auc_with_confidence_intervals(graph, logit):
    rng = np.random.RandomState(3)
    y = rng.randint(0, 2, 60)
    p = np.round(rng.rand(60) + 0.3 * y, 1).astype(np.float32)  # ties across classes
    w = rng.randint(1, 3, 60).astype(np.float32)
    yt = tf.placeholder(tf.int64, [None])
    pt = tf.placeholder(tf.float32, [None])
    wt = tf.placeholder(tf.float32, [None])
    result, update = m.auc_with_confidence_intervals(yt, pt, wt, alpha=0.9,
                                                     logit_transformation=logit)
    assert type(result).__name__ == "AucData"
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        m.auc_with_confidence_intervals(yt, pt, alpha=1.0)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for i in range(0, 60, 15):
            sess.run(update, {yt: y[i:i + 15], pt: p[i:i + 15], wt: w[i:i + 15]})
        got = sess.run(result, {yt: y[:15], pt: p[:15], wt: w[:15]})
        one_class = sess.run(result, {yt: np.ones(4, np.int64), pt: p[:4], wt: w[:4]})
    expected = _mann_whitney_interval(y, p.astype(np.float64), w.astype(np.float64), 0.9, logit)
    np.testing.assert_allclose(tuple(got), expected, rtol=1e-5)
    assert got.lower < got.auc < got.upper
    assert tuple(one_class) == (0.0, 0.0, 0.0)  # the batch fed lacks a class


def test_sparse_average_precision_at_top_k_matches_scores_form(graph):
    scores = np.array([[0.1, 0.6, 0.3, 0.0], [0.7, 0.2, 0.1, 0.05], [0.2, 0.1, 0.3, 0.4]],
                      np.float32)
    labels = tf.constant([[1, 3], [1, -1], [0, 2]], tf.int64)
    from_scores, from_scores_up = m.streaming_sparse_average_precision_at_k(
        tf.constant(scores), labels, 3)
    ranked = np.argsort(-scores, axis=1)[:, :3]
    from_ids, from_ids_up = m.streaming_sparse_average_precision_at_top_k(
        tf.constant(ranked), labels)
    assert from_ids.dtype == tf.float64
    assert "average_precision_at_top_k/total:0" in _local_names()
    with pytest.raises(ValueError, match="last dimension of predictions_idx must be set"):
        m.streaming_sparse_average_precision_at_top_k(tf.placeholder(tf.int64, [None, None]),
                                                      labels)
    # rows: labels {1, 3} ranked 1st and absent -> (1/1) / 2; {1} ranked 2nd -> 1/2;
    # {0, 2} ranked 3rd and 2nd -> (1/2 + 2/3) / 2
    expected = np.mean([0.5, 0.5, (1 / 2 + 2 / 3) / 2])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        np.testing.assert_allclose(sess.run([from_scores_up, from_ids_up]), [expected] * 2)
        np.testing.assert_allclose(sess.run([from_scores, from_ids]), [expected] * 2)
