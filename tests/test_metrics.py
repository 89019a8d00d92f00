"""tf.metrics: streaming metrics in local variables, checked against NumPy and scikit-learn."""

import numpy as np
import pytest
from sklearn import metrics as skm

import tideflow as tf


@pytest.fixture
def graph():
    with tf.Graph().as_default() as g:
        yield g


def _batches(seed, n_batches=4, size=25):
    rng = np.random.RandomState(seed)
    return [(rng.randint(0, 2, size).astype(np.int64), rng.rand(size).astype(np.float32),
             rng.rand(size).astype(np.float32)) for _ in range(n_batches)]


def _stream(value, update, feeds):
    """Runs ``update`` once per feed dict; returns (per-batch update values, final value)."""
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        ups = [sess.run(update, feed) for feed in feeds]
        return ups, sess.run(value)


def test_mean_streams_over_batches_and_weights(graph):
    x = tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None])
    plain, plain_up = tf.metrics.mean(x)
    weighted, weighted_up = tf.metrics.mean(x, weights=w)
    batches = _batches(1)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for i, (_, vals, wts) in enumerate(batches):
            up, wup = sess.run([plain_up, weighted_up], {x: vals, w: wts})
            seen = batches[:i + 1]
            all_v = np.concatenate([b[1] for b in seen])
            all_w = np.concatenate([b[2] for b in seen])
            np.testing.assert_allclose(up, all_v.mean(), rtol=1e-5)
            np.testing.assert_allclose(wup, (all_v * all_w).sum() / all_w.sum(), rtol=1e-5)
        got, wgot = sess.run([plain, weighted])
    np.testing.assert_allclose(got, all_v.mean(), rtol=1e-5)
    np.testing.assert_allclose(wgot, np.average(all_v, weights=all_w), rtol=1e-5)


def test_value_before_any_update_is_zero_not_nan(graph):
    x = tf.placeholder(tf.float32, [None])
    labels = tf.placeholder(tf.int64, [None])
    pairs = [tf.metrics.mean(x), tf.metrics.precision(labels, labels),
             tf.metrics.recall(labels, labels), tf.metrics.accuracy(labels, labels),
             tf.metrics.root_mean_squared_error(x, x)]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run([v for v, _ in pairs]) == [0.0] * len(pairs)
        # a batch whose weights are all zero leaves the denominators at zero: still 0
        w0, up0 = tf.metrics.mean(x, weights=tf.zeros_like(x))
        sess.run(tf.local_variables_initializer())
        assert sess.run(up0, {x: [1.0, 2.0]}) == 0.0
        assert sess.run(w0) == 0.0


def test_accuracy_weights_and_squeezable_labels(graph):
    labels = tf.placeholder(tf.int64, [None, 1])
    preds = tf.placeholder(tf.int32, [None])
    w = tf.placeholder(tf.float32, [None])
    acc, acc_up = tf.metrics.accuracy(labels, preds)
    wacc, wacc_up = tf.metrics.accuracy(labels, preds, weights=w)
    rng = np.random.RandomState(2)
    feeds, ys, ps, ws = [], [], [], []
    for _ in range(3):
        y, p, wt = rng.randint(0, 3, 20), rng.randint(0, 3, 20), rng.rand(20).astype(np.float32)
        feeds.append({labels: y[:, None], preds: p, w: wt})
        ys.append(y), ps.append(p), ws.append(wt)
    y, p, wt = np.concatenate(ys), np.concatenate(ps), np.concatenate(ws)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for feed in feeds:
            sess.run([acc_up, wacc_up], feed)
        got, wgot = sess.run([acc, wacc])
    np.testing.assert_allclose(got, skm.accuracy_score(y, p), rtol=1e-6)
    np.testing.assert_allclose(wgot, skm.accuracy_score(y, p, sample_weight=wt), rtol=1e-5)


@pytest.mark.parametrize("metric, ref", [
    ("mean_squared_error", lambda d, w: np.average(d ** 2, weights=w)),
    ("mean_absolute_error", lambda d, w: np.average(np.abs(d), weights=w)),
    ("root_mean_squared_error", lambda d, w: np.sqrt(np.average(d ** 2, weights=w))),
])
@pytest.mark.parametrize("weighted", [False, True])
def test_regression_errors(graph, metric, ref, weighted):
    labels = tf.placeholder(tf.float32, [None, 3])
    preds = tf.placeholder(tf.float32, [None, 3])
    w = tf.placeholder(tf.float32, [None, 1]) if weighted else None
    value, update = getattr(tf.metrics, metric)(labels, preds, weights=w)
    rng = np.random.RandomState(3)
    data = [(rng.randn(4, 3), rng.randn(4, 3), rng.rand(4, 1)) for _ in range(3)]
    feeds = [{labels: a, preds: b, **({w: c} if weighted else {})} for a, b, c in data]
    ups, got = _stream(value, update, feeds)
    diff = np.concatenate([b - a for a, b, _ in data])
    wts = np.broadcast_to(np.concatenate([c for _, _, c in data]), diff.shape) if weighted \
        else None
    np.testing.assert_allclose(got, ref(diff, wts), rtol=1e-5)
    np.testing.assert_allclose(ups[-1], got, rtol=1e-6)
    first_w = np.broadcast_to(data[0][2], (4, 3)) if weighted else None
    np.testing.assert_allclose(ups[0], ref(data[0][1] - data[0][0], first_w), rtol=1e-5)


@pytest.mark.parametrize("weighted", [False, True])
def test_precision_recall_match_sklearn(graph, weighted):
    labels = tf.placeholder(tf.int64, [None])
    scores = tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None]) if weighted else None
    preds = tf.greater(scores, 0.5)
    prec, prec_up = tf.metrics.precision(labels, preds, weights=w)
    rec, rec_up = tf.metrics.recall(labels, preds, weights=w)
    batches = _batches(4)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for y, s, wt in batches:
            sess.run([prec_up, rec_up], {labels: y, scores: s, **({w: wt} if weighted else {})})
        got_p, got_r = sess.run([prec, rec])
    y = np.concatenate([b[0] for b in batches])
    p = np.concatenate([b[1] for b in batches]) > 0.5
    sw = np.concatenate([b[2] for b in batches]) if weighted else None
    np.testing.assert_allclose(got_p, skm.precision_score(y, p, sample_weight=sw), rtol=1e-5)
    np.testing.assert_allclose(got_r, skm.recall_score(y, p, sample_weight=sw), rtol=1e-5)


def test_confusion_counts_with_weights(graph):
    labels = tf.placeholder(tf.float32, [None])
    preds = tf.placeholder(tf.int32, [None])
    w = tf.placeholder(tf.float32, [None])
    counts = {name: getattr(tf.metrics, name)(labels, preds, weights=w)
              for name in ("true_positives", "false_positives", "true_negatives",
                           "false_negatives")}
    rng = np.random.RandomState(5)
    data = [(rng.randint(0, 2, 30), rng.randint(0, 2, 30), rng.rand(30)) for _ in range(3)]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for y, p, wt in data:
            sess.run([u for _, u in counts.values()], {labels: y, preds: p, w: wt})
        got = sess.run({k: v for k, (v, _) in counts.items()})
    y = np.concatenate([d[0] for d in data]).astype(bool)
    p = np.concatenate([d[1] for d in data]).astype(bool)
    wt = np.concatenate([d[2] for d in data])
    expected = {"true_positives": wt[y & p].sum(), "false_positives": wt[~y & p].sum(),
                "true_negatives": wt[~y & ~p].sum(), "false_negatives": wt[y & ~p].sum()}
    for k, want in expected.items():
        np.testing.assert_allclose(got[k], want, rtol=1e-5, err_msg=k)


def test_mean_tensor_is_elementwise(graph):
    x = tf.placeholder(tf.float32, [2, 3])
    w = tf.placeholder(tf.float32, [2, 1])
    value, update = tf.metrics.mean_tensor(x)
    wvalue, wupdate = tf.metrics.mean_tensor(x, weights=w)
    rng = np.random.RandomState(6)
    data = [(rng.randn(2, 3), rng.rand(2, 1)) for _ in range(4)]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for a, b in data:
            sess.run([update, wupdate], {x: a, w: b})
        got, wgot = sess.run([value, wvalue])
    assert [v.op.name for v in tf.local_variables()] == [
        "mean/total_tensor", "mean/count_tensor", "mean_1/total_tensor", "mean_1/count_tensor"]
    xs = np.stack([a for a, _ in data])
    ws = np.broadcast_to(np.stack([b for _, b in data]), xs.shape)
    assert got.shape == (2, 3)
    np.testing.assert_allclose(got, xs.mean(0), rtol=1e-5)
    np.testing.assert_allclose(wgot, (xs * ws).sum(0) / ws.sum(0), rtol=1e-5)


def _reference_auc(y, p, w, num_thresholds, curve):
    """TF 1.x's thresholded AUC, written out in NumPy from its published definition."""
    thresholds = np.concatenate([[-1e-7], np.arange(1, num_thresholds - 1) / (num_thresholds - 1),
                                 [1.0 + 1e-7]])
    pos = p[None, :] > thresholds[:, None]
    y = y.astype(bool)[None, :]
    tp = ((pos & y) * w).sum(1)
    fp = ((pos & ~y) * w).sum(1)
    fn = ((~pos & y) * w).sum(1)
    tn = ((~pos & ~y) * w).sum(1)
    eps = 1e-6
    rec = (tp + eps) / (tp + fn + eps)
    if curve == "ROC":
        x, yv = fp / (fp + tn + eps), rec
    else:
        x, yv = rec, (tp + eps) / (tp + fp + eps)
    return np.sum((x[:-1] - x[1:]) * (yv[:-1] + yv[1:]) / 2)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("weighted", [False, True])
def test_auc_streams_like_tf(graph, curve, weighted):
    labels = tf.placeholder(tf.int64, [None])
    scores = tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None]) if weighted else None
    value, update = tf.metrics.auc(labels, scores, weights=w, curve=curve)
    rng = np.random.RandomState(7)
    data = []
    for _ in range(4):
        y = rng.randint(0, 2, 100)
        data.append((y, np.clip(0.35 * y + 0.65 * rng.rand(100), 0, 1).astype(np.float32),
                     rng.rand(100)))
    feeds = [{labels: y, scores: s, **({w: wt} if weighted else {})} for y, s, wt in data]
    ups, got = _stream(value, update, feeds)
    y = np.concatenate([d[0] for d in data])
    s = np.concatenate([d[1] for d in data])
    wt = np.concatenate([d[2] for d in data]) if weighted else np.ones_like(s, dtype=np.float64)
    np.testing.assert_allclose(got, _reference_auc(y, s, wt, 200, curve), rtol=1e-4)
    np.testing.assert_allclose(ups[-1], got, rtol=1e-6)
    if curve == "ROC":  # the threshold grid approximates the exact area closely
        exact = skm.roc_auc_score(y, s, sample_weight=wt)
        assert abs(got - exact) < 5e-3
        assert 0.7 < got < 1.0


def test_auc_rejects_predictions_outside_unit_interval(graph):
    scores = tf.placeholder(tf.float32, [None])
    value, update = tf.metrics.auc([1, 0], scores)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
            sess.run(update, {scores: [0.5, 1.5]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
            sess.run(update, {scores: [-0.1, 0.5]})
        sess.run(update, {scores: [0.9, 0.1]})
        assert sess.run(value) == pytest.approx(1.0, abs=1e-4)
    # constant predictions are checked when the graph is built
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"predictions must be in \[0, 1\]"):
        tf.metrics.auc([1, 0], [0.5, 1.5])
    with pytest.raises(ValueError, match="curve"):
        tf.metrics.auc([1, 0], [0.5, 0.5], curve="DET")


def test_mean_iou_matches_confusion_matrix(graph):
    labels = tf.placeholder(tf.int32, [None, 4])
    preds = tf.placeholder(tf.int64, [None, 4])
    value, update = tf.metrics.mean_iou(labels, preds, num_classes=4)
    rng = np.random.RandomState(8)
    data = [(rng.randint(0, 3, (3, 4)), rng.randint(0, 3, (3, 4))) for _ in range(3)]
    ups, got = _stream(value, update, [{labels: a, preds: b} for a, b in data])
    y = np.concatenate([a.ravel() for a, _ in data])
    p = np.concatenate([b.ravel() for _, b in data])
    cm = skm.confusion_matrix(y, p, labels=[0, 1, 2, 3])
    np.testing.assert_array_equal(ups[-1], cm)  # update_op is the running confusion matrix
    assert ups[-1].dtype == np.float64
    inter = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - inter
    present = union > 0  # class 3 never occurs and is left out of the mean
    assert not present[3]
    np.testing.assert_allclose(got, np.mean(inter[present] / union[present]), rtol=1e-5)


def test_local_variables_initializer_resets_state(graph):
    x = tf.placeholder(tf.float32, [None])
    value, update = tf.metrics.mean(x)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(update, {x: [10.0, 20.0]})
        assert sess.run(value) == 15.0
        sess.run(tf.local_variables_initializer())
        assert sess.run(value) == 0.0
        assert sess.run(update, {x: [1.0, 3.0]}) == 2.0
        # only the metric's own variables, resettable alone
        sess.run(update, {x: [5.0]})
        sess.run(tf.variables_initializer(tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)))
        assert sess.run(value) == 0.0


def test_variable_names_and_collections(graph):
    labels = tf.constant([1, 0, 1])
    preds = tf.constant([1, 1, 1])
    acc, acc_up = tf.metrics.accuracy(labels, preds, metrics_collections=["my_metrics"],
                                      updates_collections=["my_updates"])
    tf.metrics.precision(labels, preds, name="prec")
    tf.metrics.mean(tf.constant([1.0]))
    tf.metrics.mean(tf.constant([2.0]))
    tf.metrics.auc(labels, tf.constant([0.1, 0.2, 0.9]), num_thresholds=5)
    names = [v.op.name for v in tf.local_variables()]
    assert names == [
        "accuracy/total", "accuracy/count",
        "prec/true_positives/count", "prec/false_positives/count",
        "mean/total", "mean/count", "mean_1/total", "mean_1/count",
        "auc/true_positives", "auc/false_negatives", "auc/true_negatives",
        "auc/false_positives",
    ]
    metric_vars = tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
    assert [v.op.name for v in metric_vars] == names
    assert tf.global_variables() == [] and tf.trainable_variables() == []
    assert tf.get_collection("my_metrics") == [acc]
    assert tf.get_collection("my_updates") == [acc_up]
    assert tf.local_variables()[-1].get_shape().as_list() == [5]
    with tf.variable_scope("eval"):
        tf.metrics.recall(labels, preds)
    assert "eval/recall/false_negatives/count" in [v.op.name for v in tf.local_variables()]


def test_shape_and_weight_errors(graph):
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
        tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([1, 2]))
    # TF 1.15's assert_is_compatible_with: the predictions' shape first
    with pytest.raises(ValueError, match=r"^Shapes \(3, 2\) and \(2, 3\) are incompatible$"):
        tf.metrics.precision(tf.zeros([2, 3]), tf.zeros([3, 2]))
    with pytest.raises(ValueError, match=r"^Shapes \(5,\) and \(4,\) are incompatible$"):
        tf.metrics.mean_squared_error(tf.zeros([4]), tf.zeros([5]))
    with pytest.raises(ValueError, match=r"weights.*broadcast"):
        tf.metrics.mean(tf.zeros([4, 3]), weights=tf.ones([4, 2]))
    with pytest.raises(ValueError, match="partially known TensorShape"):  # TF 1.15's words
        tf.metrics.mean_tensor(tf.placeholder(tf.float32, [None, 2]))


def test_monitored_training_session_initializes_metrics(graph, tmp_path):
    x = tf.placeholder(tf.float32, [None])
    value, update = tf.metrics.mean(x)
    step = tf.train.get_or_create_global_step()
    inc = tf.assign_add(step, 1)
    with tf.train.MonitoredTrainingSession(checkpoint_dir=str(tmp_path),
                                           save_checkpoint_secs=None,
                                           save_summaries_steps=None) as sess:
        sess.run([update, inc], {x: [1.0, 2.0, 3.0]})
        sess.run([update, inc], {x: [7.0]})
        assert sess.run(value) == pytest.approx(13.0 / 4)


def _reference_careful_pr_auc(y, p, num_thresholds):
    """PR-AUC with precision interpolated as tp(p)/p between thresholds, integrated exactly."""
    thresholds = np.concatenate([[-1e-7], np.arange(1, num_thresholds - 1) / (num_thresholds - 1),
                                 [1.0 + 1e-7]])
    pos = p[None, :] > thresholds[:, None]
    y = y.astype(bool)[None, :]
    tp, fp, fn = (pos & y).sum(1).astype(float), (pos & ~y).sum(1), (~pos & y).sum(1)
    total = 0.0
    for i in range(num_thresholds - 1):
        pa, pb = tp[i] + fp[i], tp[i + 1] + fp[i + 1]
        if pa == pb or tp[i + 1] + fn[i + 1] == 0:
            continue
        slope = (tp[i] - tp[i + 1]) / (pa - pb)
        intercept = tp[i + 1] - slope * pb
        # precision along the segment, integrated numerically over d(recall) = slope dp / pos
        grid = np.linspace(pb, pa, 20001)
        prec = np.where(grid > 0, (slope * grid + intercept) / np.maximum(grid, 1e-12), slope)
        total += np.trapezoid(prec, grid) * slope / (tp[i + 1] + fn[i + 1])
    return total


def test_auc_pr_careful_interpolation_and_explicit_thresholds(graph):
    rng = np.random.RandomState(9)
    y = rng.randint(0, 2, 300)
    s = np.clip(0.3 * y + 0.7 * rng.rand(300), 0, 1).astype(np.float32)
    careful, careful_up = tf.metrics.auc(y, s, curve="PR", num_thresholds=20,
                                         summation_method="careful_interpolation")
    # explicit thresholds (given unsorted) equal to the default grid give the same ROC area
    grid = list(np.arange(1, 19) / 19.0)
    explicit, explicit_up = tf.metrics.auc(y, s, thresholds=grid[::-1])
    default, default_up = tf.metrics.auc(y, s, num_thresholds=20)
    minoring, min_up = tf.metrics.auc(y, s, num_thresholds=20, summation_method="minoring")
    majoring, maj_up = tf.metrics.auc(y, s, num_thresholds=20, summation_method="majoring")
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run([careful_up, explicit_up, default_up, min_up, maj_up])
        got, exp_v, def_v, lo, hi = sess.run([careful, explicit, default, minoring, majoring])
    np.testing.assert_allclose(got, _reference_careful_pr_auc(y, s, 20), rtol=1e-3)
    np.testing.assert_allclose(exp_v, def_v, rtol=1e-6)
    assert lo < def_v < hi
    assert abs(got - skm.average_precision_score(y, s)) < 0.05


def test_weights_one_rank_short_are_expanded(graph):
    values = tf.constant([[1.0, 3.0], [5.0, 7.0]])
    value, update = tf.metrics.mean(values, weights=tf.constant([1.0, 0.0]))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(update) == pytest.approx(2.0)
        assert sess.run(value) == pytest.approx(2.0)


def _reference_at_k(label_rows, score_rows, weight_rows, k, class_id):
    """Weighted (tp, fp, fn) of top-k class sets against label sets, with Python sets."""
    tp = fp = fn = 0.0
    for labels, scores, w in zip(label_rows, score_rows, weight_rows):
        num_classes = len(scores)
        top = set(np.argsort(-scores, kind="stable")[:k].tolist())
        truth = {int(x) for x in np.atleast_1d(labels) if 0 <= x < num_classes}
        # as in TF, labels that are no class count as false negatives (recall), once per value
        every = {int(x) for x in np.atleast_1d(labels)}
        if class_id is not None:
            top, truth, every = top & {class_id}, truth & {class_id}, every & {class_id}
        tp += w * len(top & truth)
        fp += w * len(top - truth)
        fn += w * len(every - top)
    return tp, fp, fn


@pytest.mark.parametrize("class_id", [None, 2])
@pytest.mark.parametrize("multi_label", [False, True])
def test_precision_recall_at_k_stream(graph, class_id, multi_label):
    label_shape = [None, 3] if multi_label else [None]
    labels = tf.placeholder(tf.int64, label_shape)
    scores = tf.placeholder(tf.float32, [None, 6])
    w = tf.placeholder(tf.float32, [None])
    prec, prec_up = tf.metrics.precision_at_k(labels, scores, k=3, class_id=class_id, weights=w)
    rec, rec_up = tf.metrics.recall_at_k(labels, scores, k=3, class_id=class_id, weights=w)
    rng = np.random.RandomState(10)
    data = []
    for _ in range(3):
        lab = rng.randint(-1, 7, (8, 3) if multi_label else 8)  # -1 and 6: no class
        data.append((lab, rng.rand(8, 6).astype(np.float32), rng.rand(8).astype(np.float32)))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert np.isnan(sess.run(prec))  # like TF: 0 / 0 before any prediction
        for lab, sc, wt in data:
            up_p, up_r = sess.run([prec_up, rec_up], {labels: lab, scores: sc, w: wt})
        got_p, got_r = sess.run([prec, rec])
    tp, fp, fn = _reference_at_k(np.concatenate([d[0] for d in data]),
                                 np.concatenate([d[1] for d in data]),
                                 np.concatenate([d[2] for d in data]), 3, class_id)
    assert got_p.dtype == np.float64
    np.testing.assert_allclose([got_p, got_r], [tp / (tp + fp), tp / (tp + fn)], rtol=1e-5)
    np.testing.assert_allclose([up_p, up_r], [got_p, got_r])


def test_at_k_names_and_errors(graph):
    scores = tf.constant([[0.1, 0.9, 0.3]])
    tf.metrics.precision_at_k(tf.constant([1], tf.int64), scores, k=2)
    tf.metrics.recall_at_k(tf.constant([1], tf.int64), scores, k=1, class_id=0)
    assert [v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == [
        "precision_at_2/true_positive_at_2", "precision_at_2/false_positive_at_2",
        "recall_at_1_class0/true_positive_at_1_class0",
        "recall_at_1_class0/false_negative_at_1_class0",
    ]
    # TF 1.15 does not check k; int32 labels fail its set operation's type check
    with pytest.raises(TypeError, match="Types don't match"):
        tf.metrics.recall_at_k(tf.constant([1]), scores, k=0)
    with pytest.raises(ValueError, match="Unexpected labels shape"):  # TF 1.15's message
        tf.metrics.recall_at_k(tf.zeros([1, 2, 3], tf.int64), scores, k=1)
    # as TF 1.15: the set sizes' shape is known when the step runs, and the check with it
    _, update = tf.metrics.precision_at_k(tf.constant([1], tf.int64), scores, k=1,
                                          weights=tf.ones([1, 3]))
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast"):
            sess.run(update)


def test_counts_precision_recall_at_thresholds(graph):
    labels = tf.placeholder(tf.int64, [None])
    scores = tf.placeholder(tf.float32, [None])
    w = tf.placeholder(tf.float32, [None])
    thresholds = [0.25, 0.5, 0.75]
    counts = {key: getattr(tf.metrics, f"{key}_at_thresholds")(labels, scores, thresholds,
                                                                weights=w)
              for key in ("true_positives", "false_positives", "true_negatives",
                          "false_negatives")}
    prec, prec_up = tf.metrics.precision_at_thresholds(labels, scores, thresholds, weights=w)
    rec, rec_up = tf.metrics.recall_at_thresholds(labels, scores, thresholds, weights=w)
    batches = _batches(11)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for y, s, wt in batches:
            sess.run([u for _, u in counts.values()] + [prec_up, rec_up],
                     {labels: y, scores: s, w: wt})
        got = sess.run({k: v for k, (v, _) in counts.items()})
        got_p, got_r = sess.run([prec, rec])
    y = np.concatenate([b[0] for b in batches]).astype(bool)
    s = np.concatenate([b[1] for b in batches])
    wt = np.concatenate([b[2] for b in batches])
    for i, t in enumerate(thresholds):
        pos = s > t
        assert got["true_positives"][i] == pytest.approx(wt[pos & y].sum(), rel=1e-5)
        assert got["false_positives"][i] == pytest.approx(wt[pos & ~y].sum(), rel=1e-5)
        assert got["true_negatives"][i] == pytest.approx(wt[~pos & ~y].sum(), rel=1e-5)
        assert got["false_negatives"][i] == pytest.approx(wt[~pos & y].sum(), rel=1e-5)
        assert got_p[i] == pytest.approx(
            skm.precision_score(y, pos, sample_weight=wt), rel=1e-5)
        assert got_r[i] == pytest.approx(skm.recall_score(y, pos, sample_weight=wt), rel=1e-5)
    assert "true_positives/true_positives" in [v.op.name for v in tf.local_variables()]
    assert "precision_at_thresholds/false_positives" in [
        v.op.name for v in tf.local_variables()]


def test_value_fetched_with_update_reads_the_state_before_the_update(graph):
    # as in TF, whose executor runs the value's cheap reads before the update's assigns
    x = tf.placeholder(tf.float32, [None])
    labels = tf.placeholder(tf.int64, [None])
    pairs = [tf.metrics.mean(x), tf.metrics.precision(labels, tf.greater(x, 0.5)),
             tf.metrics.auc(labels, x)]
    rng = np.random.RandomState(12)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        before = [0.0, 0.0, 0.0]
        for _ in range(5):
            out = sess.run(pairs, {x: rng.rand(20).astype(np.float32),
                                   labels: rng.randint(0, 2, 20)})
            for (value, update), prev in zip(out, before):
                assert value == pytest.approx(prev, rel=1e-6)
            before = [update for _, update in out]


def test_saver_leaves_metric_state_out(graph, tmp_path):
    w = tf.Variable(2.0, name="w")
    _, update = tf.metrics.mean(w)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(update)
        path = saver.save(sess, str(tmp_path / "model"))
    assert [name for name, _ in tf.train.list_variables(path)] == ["w"]
