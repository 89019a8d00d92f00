"""tf.losses against NumPy: each loss under each reduction and weight shape, label smoothing,
the loss collections and tf.contrib.layers regularizers."""

import numpy as np
import pytest

import tideflow as tf
from tideflow import losses
from tideflow.contrib import layers as contrib_layers

R = losses.Reduction


@pytest.fixture(autouse=True)
def graph():
    with tf.Graph().as_default() as g:
        yield g


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def np_reduce(elementwise, weights, reduction):
    w = np.broadcast_to(np.asarray(weights, np.float64), elementwise.shape)
    weighted = elementwise * w
    total = weighted.sum()
    if reduction == R.NONE:
        return weighted
    if reduction == R.SUM:
        return total
    if reduction == R.MEAN:
        denom = w.sum()
    elif reduction == R.SUM_OVER_BATCH_SIZE:
        denom = elementwise.size
    else:
        denom = np.count_nonzero(w)
    return total / denom if denom > 0 else 0.0


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


RNG = np.random.default_rng(0)
LABELS = RNG.uniform(0.0, 1.0, (4, 3))
PREDS = RNG.uniform(0.05, 0.95, (4, 3))
LOGITS = RNG.normal(size=(4, 3)) * 2
BINARY = (RNG.uniform(size=(4, 3)) > 0.5).astype(np.float64)
ONEHOT = np.eye(3)[[0, 2, 1, 2]]


def _huber(x, d=1.0):
    a = np.abs(x)
    return np.where(a <= d, 0.5 * a * a, 0.5 * d * d + d * (a - d))


# name -> (builder(weights, reduction), elementwise NumPy reference)
CASES = {
    "mean_squared_error": (
        lambda w, r: losses.mean_squared_error(LABELS, PREDS, weights=w, reduction=r),
        (PREDS - LABELS) ** 2),
    "absolute_difference": (
        lambda w, r: losses.absolute_difference(LABELS, PREDS, weights=w, reduction=r),
        np.abs(PREDS - LABELS)),
    "huber_loss": (
        lambda w, r: losses.huber_loss(LABELS, 3 * PREDS, weights=w, delta=1.0, reduction=r),
        _huber(3 * PREDS - LABELS)),
    "log_loss": (
        lambda w, r: losses.log_loss(BINARY, PREDS, weights=w, reduction=r),
        -BINARY * np.log(PREDS + 1e-7) - (1 - BINARY) * np.log(1 - PREDS + 1e-7)),
    "hinge_loss": (
        lambda w, r: losses.hinge_loss(BINARY, LOGITS, weights=w, reduction=r),
        np.maximum(0.0, 1 - (2 * BINARY - 1) * LOGITS)),
    "sigmoid_cross_entropy": (
        lambda w, r: losses.sigmoid_cross_entropy(BINARY, LOGITS, weights=w, reduction=r),
        np.maximum(LOGITS, 0) - LOGITS * BINARY + np.log1p(np.exp(-np.abs(LOGITS)))),
}

WEIGHTS = {
    "scalar": 1.0,
    "scalar2": 2.5,
    "per_example": np.array([[1.0], [0.0], [2.0], [0.5]]),
    "per_column": np.array([[0.0, 1.0, 3.0]]),
    "full": RNG.uniform(0, 2, (4, 3)) * (RNG.uniform(size=(4, 3)) > 0.3),
    "all_zero": np.zeros((4, 1)),
}


@pytest.mark.parametrize("reduction", R.all()[:5])
@pytest.mark.parametrize("wname", sorted(WEIGHTS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_elementwise_losses(name, wname, reduction):
    build, elementwise = CASES[name]
    weights = WEIGHTS[wname]
    loss = build(weights, reduction)
    expected = np_reduce(elementwise, weights, reduction)
    got = run(loss)
    # the xentropy losses keep the logits' dtype (float64 here); the others compute in float32
    assert loss.dtype == (tf.float64 if name == "sigmoid_cross_entropy" else tf.float32)
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]


def test_weights_as_tensor_and_placeholder():
    w = tf.placeholder(tf.float32, [4, 1])
    loss = losses.mean_squared_error(LABELS, PREDS, weights=w)
    wv = np.array([[1.0], [0.0], [0.0], [3.0]])
    np.testing.assert_allclose(run(loss, {w: wv}),
                               np_reduce((PREDS - LABELS) ** 2, wv, R.SUM_BY_NONZERO_WEIGHTS),
                               rtol=1e-5)


def test_cosine_distance():
    a = LABELS / np.linalg.norm(LABELS, axis=1, keepdims=True)
    b = PREDS / np.linalg.norm(PREDS, axis=1, keepdims=True)
    w = np.array([[1.0], [2.0], [0.0], [1.0]])
    loss = losses.cosine_distance(a, b, axis=1, weights=w)
    elementwise = 1 - (a * b).sum(1, keepdims=True)
    np.testing.assert_allclose(run(loss), np_reduce(elementwise, w, R.SUM_BY_NONZERO_WEIGHTS),
                               rtol=1e-5)
    none = losses.cosine_distance(a, b, dim=1, reduction=R.NONE)
    assert none.get_shape().as_list() == [4, 1]
    with pytest.raises(ValueError, match="axis"):
        losses.cosine_distance(a, b)
    with pytest.raises(ValueError, match="both"):
        losses.cosine_distance(a, b, axis=1, dim=1)


@pytest.mark.parametrize("smoothing", [0, 0.1])
@pytest.mark.parametrize("reduction", [R.SUM_BY_NONZERO_WEIGHTS, R.MEAN, R.NONE, R.SUM])
def test_softmax_cross_entropy(smoothing, reduction):
    w = np.array([1.0, 0.0, 2.0, 1.0])
    loss = losses.softmax_cross_entropy(ONEHOT, LOGITS, weights=w, label_smoothing=smoothing,
                                        reduction=reduction)
    labels = ONEHOT * (1 - smoothing) + smoothing / 3
    elementwise = -(labels * _log_softmax(LOGITS)).sum(-1)
    np.testing.assert_allclose(run(loss), np_reduce(elementwise, w, reduction), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("smoothing", [0, 0.2])
def test_sigmoid_cross_entropy_label_smoothing(smoothing):
    loss = losses.sigmoid_cross_entropy(BINARY, LOGITS, label_smoothing=smoothing)
    z = BINARY * (1 - smoothing) + 0.5 * smoothing
    elementwise = np.maximum(LOGITS, 0) - LOGITS * z + np.log1p(np.exp(-np.abs(LOGITS)))
    np.testing.assert_allclose(run(loss), elementwise.mean(), rtol=1e-5)


@pytest.mark.parametrize("label_shape", [(4,), (4, 1)])
def test_sparse_softmax_cross_entropy(label_shape):
    ids = np.array([0, 2, 1, 2]).reshape(label_shape)
    w = np.array([2.0, 1.0, 0.0, 1.0]).reshape(label_shape)
    loss = losses.sparse_softmax_cross_entropy(ids, LOGITS, weights=w)
    elementwise = -_log_softmax(LOGITS)[np.arange(4), ids.reshape(-1)]
    np.testing.assert_allclose(
        run(loss), np_reduce(elementwise, w.reshape(-1), R.SUM_BY_NONZERO_WEIGHTS), rtol=1e-5)


def test_mean_pairwise_squared_error():
    w = np.array([[1.0], [2.0], [0.0], [1.0]])
    loss = losses.mean_pairwise_squared_error(LABELS, PREDS, weights=w)
    d = PREDS - LABELS
    per = np.array([np.mean([(r[i] - r[j]) ** 2 for i in range(3) for j in range(3) if i != j])
                    for r in d])
    np.testing.assert_allclose(run(loss), (per * w[:, 0]).sum(), rtol=1e-5)


def test_compute_weighted_loss_keeps_dtype_and_names():
    x = tf.constant(np.arange(6.0).reshape(2, 3), dtype=tf.float64)
    loss = losses.compute_weighted_loss(x, weights=[[1.0], [0.0]])
    assert loss.dtype == tf.float64
    assert run(loss) == pytest.approx(1.0)
    mse = losses.mean_squared_error(LABELS, PREDS)
    assert mse.name == "mean_squared_error/value:0"
    assert losses.absolute_difference(LABELS, PREDS, scope="l1").name.startswith("l1/")


def test_invalid_arguments():
    with pytest.raises(ValueError, match="broadcast"):
        losses.mean_squared_error(LABELS, PREDS, weights=np.ones((4,)))
    with pytest.raises(ValueError, match="broadcast"):
        losses.mean_squared_error(LABELS, PREDS, weights=np.ones((2, 3)))
    with pytest.raises(ValueError):
        losses.mean_squared_error(LABELS, PREDS[:, :2])
    with pytest.raises(ValueError, match="labels"):
        losses.mean_squared_error(None, PREDS)
    with pytest.raises(ValueError, match="Reduction"):
        losses.compute_weighted_loss(LABELS, reduction="bogus")
    assert R.SUM_OVER_NONZERO_WEIGHTS == R.SUM_BY_NONZERO_WEIGHTS
    R.validate(R.MEAN)


def test_collections_and_totals():
    a = losses.mean_squared_error(LABELS, PREDS)
    b = losses.absolute_difference(LABELS, PREDS, loss_collection=None)
    with tf.name_scope("tower"):
        c = losses.log_loss(BINARY, PREDS)
    assert losses.get_losses() == [a, c]
    assert losses.get_losses(scope="tower") == [c]
    assert b not in losses.get_losses()
    extra = tf.constant(1.5)
    losses.add_loss(extra)
    assert losses.get_losses()[-1] is extra
    assert losses.get_regularization_losses() == []
    zero = losses.get_regularization_loss()
    w = tf.get_variable("w", initializer=tf.constant([[1.0, -2.0]]),
                        regularizer=contrib_layers.l2_regularizer(0.5))
    reg = losses.get_regularization_losses()
    assert len(reg) == 1 and reg[0].name == "w/Regularizer/l2_regularizer:0"
    total = losses.get_total_loss()
    no_reg = losses.get_total_loss(add_regularization_losses=False, name="no_reg")
    assert total.name == "total_loss:0"
    va, vc, z, r, t, n, wv = run([a, c, zero, losses.get_regularization_loss(), total, no_reg,
                                  w])
    assert z == 0.0
    assert r == pytest.approx(0.5 * 0.5 * (wv ** 2).sum())
    assert t == pytest.approx(va + vc + 1.5 + r, rel=1e-6)
    assert n == pytest.approx(va + vc + 1.5, rel=1e-6)


def test_get_total_loss_without_losses():
    with pytest.raises(ValueError):
        losses.get_total_loss()


def test_regularizers():
    w = tf.constant([[1.0, -2.0], [0.5, 3.0]])
    wv = np.array([[1.0, -2.0], [0.5, 3.0]])
    l1 = contrib_layers.l1_regularizer(0.1)(w)
    l2 = contrib_layers.l2_regularizer(0.2)(w)
    l12 = contrib_layers.l1_l2_regularizer(0.1, 0.2)(w)
    s = contrib_layers.sum_regularizer([contrib_layers.l1_regularizer(1.0), None])(w)
    assert l1.name == "l1_regularizer:0" and l12.name.startswith("l1_l2_regularizer")
    v1, v2, v12, vs = run([l1, l2, l12, s])
    assert v1 == pytest.approx(0.1 * np.abs(wv).sum())
    assert v2 == pytest.approx(0.2 * (wv ** 2).sum() / 2)
    assert v12 == pytest.approx(v1 + v2)
    assert vs == pytest.approx(np.abs(wv).sum())
    assert contrib_layers.l2_regularizer(0.0)(w) is None
    assert contrib_layers.sum_regularizer([None]) is None
    with pytest.raises(ValueError, match="integer"):
        contrib_layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        contrib_layers.l1_regularizer(-0.5)


def test_apply_regularization():
    a = tf.get_variable("a", initializer=tf.constant([1.0, 2.0]))
    b = tf.get_variable("b", initializer=tf.constant([[3.0]]))
    penalty = contrib_layers.apply_regularization(contrib_layers.l1_regularizer(0.5), [a, b])
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [penalty]
    assert run(penalty) == pytest.approx(3.0)
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, a)
    assert run(contrib_layers.apply_regularization(contrib_layers.l1_regularizer(1.0))) == 3.0
    with tf.Graph().as_default(), pytest.raises(ValueError, match="No weights"):
        contrib_layers.apply_regularization(contrib_layers.l1_regularizer(1.0))


def test_contrib_initializers():
    x = tf.get_variable("x", [200, 300], initializer=contrib_layers.xavier_initializer(seed=1))
    n = tf.get_variable("n", [3, 3, 40, 50],
                        initializer=contrib_layers.variance_scaling_initializer(seed=2))
    xv, nv = run([x, n])
    limit = np.sqrt(6.0 / 500)
    assert np.abs(xv).max() <= limit and np.abs(xv).max() > 0.9 * limit
    assert nv.std() == pytest.approx(np.sqrt(1.3 * 2.0 / 360) * 0.8796, rel=0.05)
    with pytest.raises(TypeError):
        contrib_layers.variance_scaling_initializer(mode="FAN_SUM")
