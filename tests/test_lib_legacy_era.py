"""What running libraries of the TF 0.8-1.0 era (PrettyTensor 0.7.4, skflow 0.1.0, keras-rl
0.4.2 on Keras 2.2.4) on tideflow needed, pinned with the plain TF calls they make."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.ops import variable_scope as vs_mod


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# TF 1.0's variable-scope collection: [0] is the current scope, and assigning it swaps scopes
# ------------------------------------------------------------------------------------------

def test_varscope_collection_holds_current_scope():
    outer = tf.get_variable_scope()
    slot = tf.get_collection_ref(vs_mod._VARSCOPE_KEY)
    assert slot[0] is outer
    with tf.variable_scope("tower"):
        assert slot[0] is tf.get_variable_scope()
        assert slot[0].name == "tower"
    assert slot[0] is outer
    assert tf.get_collection(vs_mod._VARSCOPE_KEY) == [outer]


def test_assigning_varscope_collection_enters_that_scope():
    old = tf.get_variable_scope()
    slot = tf.get_collection_ref(vs_mod._VARSCOPE_KEY)
    slot[0] = tf.VariableScope(old.reuse, name="net/layer1",
                               initializer=tf.constant_initializer(0.5))
    try:
        w = tf.get_variable("w", [2])
        with tf.variable_scope("inner"):
            b = tf.get_variable("b", [1])
    finally:
        slot[0] = old
    assert w.op.name == "net/layer1/w"
    assert b.op.name == "net/layer1/inner/b"
    assert tf.get_variable_scope() is old
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(w), [0.5, 0.5])
    v = tf.get_variable("v", [])
    assert v.op.name == "v"


def test_varscope_collection_asked_before_the_scope():
    # the collection is asked for first: it still ends up holding the root scope
    slot = tf.get_collection_ref(vs_mod._VARSCOPE_KEY)
    root = tf.get_variable_scope()
    assert slot == [root]
    assert root.name == ""


# ------------------------------------------------------------------------------------------
# tf.merge_summary / tf.merge_all_summaries name the op inside its own scope, as TF 1.x
# (skflow finds its merged summary again by the name 'MergeSummary/MergeSummary')
# ------------------------------------------------------------------------------------------

def test_legacy_merge_summary_op_names():
    loss = tf.constant(2.5)
    tf.scalar_summary("loss", loss)
    tf.histogram_summary("loss_hist", tf.reshape(loss, [1]))
    merged = tf.merge_all_summaries()
    assert merged.op.name == "MergeSummary/MergeSummary"
    g = tf.get_default_graph()
    assert g.get_operation_by_name("MergeSummary/MergeSummary") is merged.op
    again = tf.merge_summary(tf.get_collection(tf.GraphKeys.SUMMARIES))
    assert again.op.name == "MergeSummary_1/MergeSummary"
    named = tf.merge_summary([merged], name="all")
    assert named.op.name == "all/all"
    assert tf.summary.merge_all().op.name == "Merge/MergeSummary"
    with tf.Session() as sess:
        summ = tf.Summary.FromString(sess.run(merged))
    assert [v.tag for v in summ.value] == ["loss", "loss_hist"]
    assert summ.value[0].simple_value == 2.5


# ------------------------------------------------------------------------------------------
# tf.nn.rnn_cell.linear: the 0.8 public name of the Linear/Matrix + Linear/Bias projection
# ------------------------------------------------------------------------------------------

def test_rnn_cell_linear_public_name():
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.variable_scope("dnn", initializer=tf.constant_initializer(0.5)):
        y = tf.nn.rnn_cell.linear(x, 2, True, bias_start=0.25)
        z = tf.nn.rnn_cell.linear([x, x], 4, False, scope="twice")
    assert y.get_shape().as_list() == [1, 2]
    assert z.get_shape().as_list() == [1, 4]
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["dnn/Linear/Bias", "dnn/Linear/Matrix", "dnn/twice/Matrix"]
    assert tf.nn.rnn_cell.linear is tf.nn.rnn_cell._linear
    with tf.Session() as sess:
        sess.run(tf.initialize_all_variables())
        np.testing.assert_allclose(sess.run(y), [[3.25, 3.25]])
        np.testing.assert_allclose(sess.run(z), [[6.0] * 4])


# ------------------------------------------------------------------------------------------
# tf.contrib.learn.ops / tf.contrib.learn.models: scikit-flow's helpers as contrib.learn kept
# them through TF 1.15
# ------------------------------------------------------------------------------------------

def _learn():
    return tf.contrib.learn


def test_learn_ops_embedding_lookup_any_rank():
    table = np.arange(12.0).reshape(6, 2)
    ids = np.array([[[0, 5, 2]], [[1, 1, 4]]])
    out = _learn().ops.embedding_lookup(table, ids)
    assert out.get_shape().as_list() == [2, 1, 3, 2]
    ph = tf.placeholder(tf.int32, [None, 3])
    dyn = _learn().ops.embedding_lookup(tf.constant(table), ph)
    assert dyn.get_shape().as_list() == [None, 3, 2]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), table[ids])
        np.testing.assert_allclose(sess.run(dyn, {ph: ids[:, 0]}), table[ids[:, 0]])


def test_learn_ops_categorical_variable():
    idx = tf.placeholder(tf.int64, [2, 2])
    emb = _learn().ops.categorical_variable(idx, n_classes=5, embedding_size=3, name="colour")
    assert [v.op.name for v in tf.global_variables()] == ["colour/colour_embeddings"]
    assert emb.get_shape().as_list() == [2, 2, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a = sess.run(emb, {idx: [[0, 1], [2, 3]]})
        b = sess.run(emb, {idx: [[0, 2], [1, 3]]})
    np.testing.assert_array_equal(np.transpose(b, (1, 0, 2)), a)


def test_learn_ops_softmax_classifier_and_regressor():
    x = tf.placeholder(tf.float32, [None, 3])
    labels = tf.placeholder(tf.float32, [None, 2])
    w = tf.constant([[0.1, 0.1], [0.1, 0.1], [0.1, 0.1]])
    b = tf.constant([0.2, 0.3])
    probs, loss = _learn().ops.softmax_classifier(x, labels, w, b, tf.constant([0.1, 0.9]))
    assert probs.get_shape().as_list() == [None, 2] and loss.get_shape().ndims == 0
    y = tf.constant([1.0, 3.0])
    pred, mse = _learn().ops.mean_squared_error_regressor(
        tf.constant([[1.0, 2.0], [0.0, 1.0]]), y, tf.constant([[1.0], [1.0]]), tf.constant([0.5]))
    assert pred.get_shape().as_list() == [2]
    with tf.Session() as sess:
        # logits (0.27, 0.37) scaled to (0.027, 0.333): -log softmax[1]
        got = sess.run(loss, {x: [[0.2, 0.3, 0.2]], labels: [[0, 1]]})
        np.testing.assert_allclose(got, np.log1p(np.exp(0.027 - 0.333)), rtol=1e-6)
        p, m = sess.run([pred, mse])
    np.testing.assert_allclose(p, [3.5, 1.5])
    np.testing.assert_allclose(m, ((3.5 - 1.0) ** 2 + (1.5 - 3.0) ** 2) / 2)


def test_learn_ops_sequence_classifier():
    dec = [tf.constant(v) for v in ([[0.1, 0.9], [0.7, 0.3]], [[0.9, 0.1], [0.8, 0.2]],
                                    [[0.5, 0.5], [0.4, 0.6]])]
    lab = [tf.constant([[1.0, 0.0], [0.0, 1.0]])] * 3
    pred, cost = _learn().ops.sequence_classifier(dec, lab, dec)
    assert pred.get_shape().as_list() == [2, 3, 2]
    logits = np.array([[[0.1, 0.9], [0.7, 0.3]], [[0.9, 0.1], [0.8, 0.2]],
                       [[0.5, 0.5], [0.4, 0.6]]])
    picked = np.stack([logits[:, 0, 0], logits[:, 1, 1]], 1)
    want = float(np.sum(np.log(np.exp(logits).sum(-1)) - picked))
    with tf.Session() as sess:
        p, c = sess.run([pred, cost])
    np.testing.assert_array_equal(p.argmax(axis=2), [[1, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(c, want, rtol=1e-6)
    np.testing.assert_allclose(c, 4.7839908599, rtol=1e-6)


def test_learn_ops_seq2seq_inputs_and_decoder():
    x = tf.placeholder(tf.float32, [2, 3, 2])
    y = tf.placeholder(tf.float32, [2, 2, 3])
    enc_in, dec_in, dec_out = _learn().ops.seq2seq_inputs(x, y, 3, 2)
    assert (len(enc_in), len(dec_in), len(dec_out)) == (3, 3, 3)
    yv = np.arange(12.0).reshape(2, 2, 3)
    xv = np.ones((2, 3, 2))
    with tf.Session() as sess:
        a, b = sess.run([dec_in, dec_out], {x: xv, y: yv})
    np.testing.assert_array_equal(a, [np.zeros((2, 3)), yv[:, 0], yv[:, 1]])
    np.testing.assert_array_equal(b, [yv[:, 0], yv[:, 1], np.zeros((2, 3))])

    steps = [tf.placeholder(tf.float32, [2, 2]) for _ in range(3)]
    cell = tf.nn.rnn_cell.GRUCell(2)
    outs, states, s_outs, s_states = _learn().ops.rnn_seq2seq(steps, steps, cell)
    assert (len(outs), len(states), len(s_outs), len(s_states)) == (3, 4, 3, 4)
    assert outs[0].get_shape().as_list() == [2, 2]
    names = sorted(v.op.name for v in tf.global_variables())
    assert all(n.startswith("rnn_seq2seq/") for n in names)
    # one cell object: built once by the encoder, the decoder (both modes) reuses its weights
    assert len(names) == 4 and all(n.startswith("rnn_seq2seq/rnn/gru_cell/") for n in names)
    feed = {s: np.full((2, 2), 0.1 * i) for i, s in enumerate(steps)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, so = sess.run([outs, s_outs], feed)
    np.testing.assert_allclose(o[0], so[0])
    assert not np.allclose(o[2], so[2])


def test_learn_models_regressions():
    x = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = tf.constant([1.0, 2.0, 3.0])
    pred, loss = _learn().models.linear_regression_zero_init(x, y)
    onehot = tf.constant([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    probs, xent = _learn().models.logistic_regression_zero_init(x, onehot)
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["linear_regression/bias", "linear_regression/weights",
                     "logistic_regression/bias", "logistic_regression/weights"]
    assert tf.global_variables()[1].get_shape().as_list() == [1]
    assert len(tf.get_collection(tf.GraphKeys.SUMMARIES)) == 8
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss + xent)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        p0, l0, pr0, x0 = sess.run([pred, loss, probs, xent])
        np.testing.assert_allclose(p0, [0.0, 0.0, 0.0])
        np.testing.assert_allclose(l0, 14.0 / 3)
        np.testing.assert_allclose(pr0, np.full((3, 3), 1 / 3), rtol=1e-6)
        np.testing.assert_allclose(x0, np.log(3.0), rtol=1e-6)
        for _ in range(200):
            sess.run(train)
        p, pr = sess.run([pred, probs])
    np.testing.assert_allclose(p, [1.0, 2.0, 3.0], atol=0.05)
    assert (pr.argmax(1) == [0, 1, 2]).all()


def test_learn_models_logistic_regression_finds_class_weight():
    tf.constant([1.0, 0.0], name="class_weight")
    x = tf.constant([[1.0, 2.0]])
    probs, _ = _learn().models.logistic_regression(x, tf.constant([[0.0, 1.0]]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        p = sess.run(probs)
    # the second logit is scaled to 0 by the graph's class weight
    assert p.shape == (1, 2) and np.isfinite(p).all()
    g = tf.get_default_graph()
    mul = [op for op in g.get_operations() if op.type == "Mul"]
    assert any(op.inputs[1].name == "class_weight:0" for op in mul)


# ------------------------------------------------------------------------------------------
# tf.contrib.learn.TensorFlowEstimator(model_fn, n_classes): model_fn(x, y) -> (pred, loss)
# ------------------------------------------------------------------------------------------

def test_tensorflow_estimator_classifier_and_regressor(tmp_path):
    rs = np.random.RandomState(1)
    x = rs.randn(120, 2).astype(np.float32)
    labels = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    seen = {}

    def model(features, y):
        seen["y"] = y
        return tf.contrib.learn.models.logistic_regression_zero_init(features, y)

    cfg = tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "cls"))
    clf = tf.contrib.learn.TensorFlowEstimator(model_fn=model, n_classes=2, steps=150,
                                               learning_rate=0.5, config=cfg)
    clf.fit(x, labels)
    # the labels reach the model_fn one-hot
    assert seen["y"].get_shape().as_list() == [None, 2]
    assert seen["y"].dtype == tf.float32
    pred = clf.predict(x)
    assert pred.shape == (120,) and (pred == labels).mean() > 0.95
    proba = clf.predict_proba(x[:3])
    assert proba.shape == (3, 2)
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-5)

    y = (x @ np.array([2.0, -1.0], np.float32) + 0.5).astype(np.float32)
    cfg = tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "reg"))
    reg = tf.contrib.learn.TensorFlowEstimator(
        model_fn=tf.contrib.learn.models.linear_regression_zero_init, n_classes=0, steps=200,
        optimizer="SGD", learning_rate=0.1, config=cfg)
    reg.fit(x, y)
    out = reg.predict(x)
    assert out.shape == (120,)
    assert np.mean((out - y) ** 2) < 1e-3


def test_learn_models_bidirectional_rnn_against_numpy():
    steps = [tf.constant(v, tf.float32) for v in ([[1.0], [2.0]], [[0.5], [-1.0]], [[-0.5], [9.0]])]
    lengths = tf.constant([3, 2])
    init = tf.constant_initializer(0.3)
    with tf.variable_scope("m", initializer=init):
        cell_fw = tf.contrib.rnn.BasicRNNCell(1)
        cell_bw = tf.contrib.rnn.BasicRNNCell(1)
        outs, state = tf.contrib.learn.models.bidirectional_rnn(
            cell_fw, cell_bw, steps, dtype=tf.float32, sequence_length=lengths)
    assert len(outs) == 3 and outs[0].get_shape().as_list() == [2, 2]
    assert state.get_shape().as_list() == [2, 2]
    names = sorted(v.op.name for v in tf.global_variables())
    assert [n.split("/")[2] for n in names] == ["BW", "BW", "FW", "FW"]
    xs = np.array([[1.0, 0.5, -0.5], [2.0, -1.0, 9.0]])

    def run(seq):  # h = tanh(0.3 * x + 0.3 * h): the kernel is 0.3s, the bias starts at 0
        h, out = 0.0, []
        for v in seq:
            h = np.tanh(0.3 * v + 0.3 * h)
            out.append(h)
        return out

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        o, s = sess.run([outs, state])
    for b, n in enumerate([3, 2]):
        fw = run(xs[b, :n])
        bw = run(xs[b, :n][::-1])[::-1]
        np.testing.assert_allclose([o[t][b, 0] for t in range(n)], fw, rtol=1e-5)
        np.testing.assert_allclose([o[t][b, 1] for t in range(n)], bw, rtol=1e-5)
        np.testing.assert_allclose(s[b], [fw[-1], bw[0]], rtol=1e-5)
    np.testing.assert_allclose(o[2][1], [0.0, 0.0])  # past the second example's length


@pytest.mark.parametrize("cell_type,bidirectional", [("gru", False), ("lstm", True),
                                                     ("rnn", False)])
def test_learn_models_get_rnn_model(cell_type, bidirectional):
    x = tf.placeholder(tf.float32, [None, 4, 3])
    y = tf.placeholder(tf.float32, [None, 2])
    model = tf.contrib.learn.models.get_rnn_model(
        5, cell_type, 2, lambda t: tf.unstack(t, axis=1), bidirectional,
        tf.contrib.learn.models.logistic_regression, None, None, None, None, None)
    probs, loss = model(x, y)
    assert probs.get_shape().as_list() == [None, 2]
    width = (2 if cell_type == "lstm" else 1) * 5 * 2 * (2 if bidirectional else 1)
    w = next(v for v in tf.global_variables() if v.op.name == "logistic_regression/weights")
    assert w.get_shape().as_list() == [width, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        p, lv = sess.run([probs, loss], {x: np.ones((3, 4, 3)), y: [[1, 0]] * 3})
    np.testing.assert_allclose(p.sum(1), 1.0, rtol=1e-5)
    assert np.isfinite(lv)
    with pytest.raises(ValueError, match="not supported"):
        tf.contrib.learn.models.get_rnn_model(5, "cnn", 1, lambda t: tf.unstack(t, axis=1),
                                              False, None, None, None, None, None, None)(x, y)


def test_tensorflow_rnn_classifier_and_regressor(tmp_path):
    rs = np.random.RandomState(3)
    x = rs.randn(64, 3, 2).astype(np.float32)
    labels = (x[:, -1, 0] > 0).astype(np.int64)

    def steps(t):
        return tf.unstack(t, axis=1)

    clf = tf.contrib.learn.TensorFlowRNNClassifier(
        rnn_size=6, n_classes=2, cell_type="lstm", input_op_fn=steps, steps=120,
        learning_rate=0.3, config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "c")))
    clf.fit(x, labels)
    names = clf.get_variable_names()
    assert "logistic_regression/weights" in names
    assert any(n.startswith("rnn/multi_rnn_cell/cell_0/basic_lstm_cell/") for n in names)
    assert (clf.predict(x) == labels).mean() > 0.8
    reg = tf.contrib.learn.TensorFlowRNNRegressor(
        rnn_size=4, input_op_fn=steps, steps=5,
        config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "r")))
    reg.fit(x, x[:, -1, 0])
    assert reg.predict(x).shape == (64,)


def test_tensorflow_estimator_class_weight_reaches_logistic_regression(tmp_path):
    x = np.array([[1.0, 0.0], [0.0, 1.0]] * 8, np.float32)
    labels = np.array([0, 1] * 8)
    seen = {}

    def model(features, y):
        probs, loss = tf.contrib.learn.models.logistic_regression_zero_init(features, y)
        g = tf.get_default_graph()
        seen["uses"] = [op.name for op in g.get_operations()
                        if op.type == "Mul" and op.inputs[1].name == "class_weight:0"]
        return probs, loss

    est = tf.contrib.learn.TensorFlowEstimator(
        model_fn=model, n_classes=2, steps=3, class_weight=[0.5, 2.0],
        config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path)))
    est.fit(x, labels)
    assert seen["uses"] == ["logistic_regression/softmax_classifier/Mul"]
    # zero-initialised logits before training: the class weights leave them equal
    assert est.predict_proba(x[:1]).shape == (1, 2)


# ------------------------------------------------------------------------------------------
# tf.contrib.skflow (TF 0.8): scikit-flow's namespace before it became tf.contrib.learn
# ------------------------------------------------------------------------------------------

def test_contrib_skflow_namespace():
    from tideflow.contrib import skflow

    assert issubclass(skflow.TensorFlowEstimator, tf.contrib.learn.TensorFlowEstimator)
    assert issubclass(skflow.TensorFlowDNNClassifier, tf.contrib.learn.TensorFlowDNNClassifier)
    assert skflow.TensorFlowClassifier is skflow.TensorFlowLinearClassifier
    # 0.8's defaults: plain gradient descent, graph seed 42
    clf = skflow.TensorFlowLinearClassifier(n_classes=3)
    assert clf.optimizer == "SGD" and clf.get_params()["tf_random_seed"] == 42
    assert clf._config.tf_random_seed == 42 and "hidden_units" not in clf.get_params()
    rnn = skflow.TensorFlowRNNClassifier(4, 2, tf_random_seed=7, max_to_keep=2)
    assert rnn._config.tf_random_seed == 7 and rnn._config.keep_checkpoint_max == 2
    assert rnn.get_params()["rnn_size"] == 4
    assert skflow.models.logistic_regression is tf.contrib.learn.models.logistic_regression
    assert skflow.ops.categorical_variable is tf.contrib.learn.ops.categorical_variable
    assert skflow.preprocessing.VocabularyProcessor is \
        tf.contrib.learn.preprocessing.VocabularyProcessor


def test_skflow_ops_dnn_dropout_and_array_helpers():
    skflow = tf.contrib.skflow
    x = tf.constant(np.ones((4, 3), np.float32))
    out = skflow.ops.dnn(x, [5, 2], dropout=0.25)
    assert out.get_shape().as_list() == [4, 2]
    names = sorted(v.op.name for v in tf.global_variables())
    assert names == ["dnn/layer0/Linear/Bias", "dnn/layer0/Linear/Matrix", "dnn/layer0/prob",
                     "dnn/layer1/Linear/Bias", "dnn/layer1/Linear/Matrix", "dnn/layer1/prob"]
    assert len(tf.trainable_variables()) == 4
    probs = tf.get_collection(skflow.ops.DROPOUTS)
    assert [p.op.name for p in probs] == ["dnn/layer0/prob", "dnn/layer1/prob"]
    assert [op.type for op in tf.get_default_graph().get_operations()].count("Relu") == 2
    seq = tf.constant(np.arange(24.0).reshape(2, 3, 4))
    parts = skflow.ops.split_squeeze(1, 3, seq)
    assert [p.get_shape().as_list() for p in parts] == [[2, 4]] * 3
    back = skflow.ops.expand_concat(1, parts)
    hot = skflow.ops.one_hot_matrix(tf.constant([2, 0]), 3)
    img = tf.constant(np.ones((1, 4, 4, 2), np.float32))
    conv = skflow.ops.conv2d(img, 3, [2, 2], activation=tf.nn.relu)
    assert conv.get_shape().as_list() == [1, 4, 4, 3]
    assert {v.op.name for v in tf.global_variables()} >= {"convolution/filters",
                                                          "convolution/bias"}
    with pytest.raises(NotImplementedError, match="batch_norm"):
        skflow.ops.conv2d(img, 3, [2, 2], batch_norm=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(probs), [0.75, 0.75])
        np.testing.assert_array_equal(sess.run(back), np.arange(24.0).reshape(2, 3, 4))
        np.testing.assert_array_equal(sess.run(hot), [[0, 0, 1], [1, 0, 0]])
        d = sess.run(out)
    assert d.shape == (4, 2)


def test_skflow_estimator_prediction_keeps_every_unit(tmp_path):
    skflow = tf.contrib.skflow
    rs = np.random.RandomState(0)
    x = rs.randn(60, 4).astype(np.float32)
    labels = (x[:, 0] > 0).astype(np.int64)

    def model(features, y):
        return skflow.models.logistic_regression(skflow.ops.dnn(features, [8], dropout=0.5), y)

    est = skflow.TensorFlowEstimator(model_fn=model, n_classes=2, steps=60,
                                     config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path)))
    est.fit(x, labels)
    first, second = est.predict_proba(x), est.predict_proba(x)
    np.testing.assert_array_equal(first, second)  # no dropout outside training


# ------------------------------------------------------------------------------------------
# the TensorFlow* estimators as scikit-learn estimators of the 0.8-0.10 era
# ------------------------------------------------------------------------------------------

def test_tensorflow_estimators_sklearn_surface(tmp_path):
    rs = np.random.RandomState(5)
    x = rs.uniform(-1, 1, (200, 3)).astype(np.float32)
    w = np.array([1.5, -2.0, 0.5], np.float32)
    y = x @ w + 0.75

    def decay(global_step):  # a learning rate given as a function of the global step
        return tf.train.exponential_decay(0.2, global_step, 100, 0.5)

    reg = tf.contrib.learn.TensorFlowLinearRegressor(
        optimizer="SGD", learning_rate=decay, steps=300,
        config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "lin")))
    params = reg.get_params()
    assert "hidden_units" not in params and params["optimizer"] == "SGD"
    assert params["learning_rate"] is decay and params["steps"] == 300
    reg.fit(x, y)
    np.testing.assert_allclose(reg.weights_.reshape(-1), w, atol=0.05)
    np.testing.assert_allclose(reg.bias_.reshape(-1), [0.75], atol=0.05)
    assert reg.score(x, y) > 0.99
    # rows of another dtype go in as the training rows did
    np.testing.assert_allclose(reg.predict(x.astype(np.float64)), reg.predict(x), rtol=1e-6)

    labels = (x[:, 0] > 0).astype(np.int64)
    clf = tf.contrib.learn.TensorFlowEstimator(
        model_fn=tf.contrib.learn.models.logistic_regression, n_classes=2, steps=100,
        learning_rate=0.5, config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "c")))
    assert sorted(clf.get_params()) == sorted(
        ["model_fn", "n_classes", "batch_size", "steps", "optimizer", "learning_rate",
         "clip_gradients", "class_weight", "continue_training", "config", "verbose"])
    clf.fit(x, labels)
    assert clf.score(x, labels) > 0.9
    assert clf.weights_.shape == (3, 2) and clf.bias_.shape == (2,)
    assert clf.predict((x * 4).astype(np.int64)).dtype == np.int64
    clf.set_params(steps=5)
    assert clf.steps == 5 and clf._model is None
    rnn = tf.contrib.learn.TensorFlowRNNClassifier(4, 2, cell_type="lstm", num_layers=2)
    assert rnn.get_params()["num_layers"] == 2 and rnn.get_params()["cell_type"] == "lstm"


def test_tensorflow_regressors_predict_every_target_column(tmp_path):
    rs = np.random.RandomState(2)
    x = rs.uniform(-1, 1, (150, 2)).astype(np.float32)
    y = np.stack([x[:, 0] * 2.0, x[:, 1] - 1.0], axis=1).astype(np.float32)
    lin = tf.contrib.learn.TensorFlowLinearRegressor(
        optimizer="SGD", learning_rate=0.2, steps=300,
        config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "lin")))
    lin.fit(x, y)
    out = lin.predict(x)
    assert out.shape == (150, 2)
    np.testing.assert_allclose(out, y, atol=0.05)
    dnn = tf.contrib.learn.TensorFlowDNNRegressor(
        hidden_units=[8], steps=5, config=tf.contrib.learn.RunConfig(model_dir=str(tmp_path / "d")))
    dnn.fit(x, y)
    assert dnn.predict(x).shape == (150, 2)


def test_tensorflow_estimator_fit_logdir_gets_the_events(tmp_path):
    x = np.random.RandomState(0).randn(40, 2).astype(np.float32)
    est = tf.contrib.skflow.TensorFlowLinearRegressor(steps=3)
    est.fit(x, x[:, 0], logdir=str(tmp_path / "logs"))
    files = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert any(f.startswith("events.out.tfevents") for f in files)
    assert "checkpoint" in files
