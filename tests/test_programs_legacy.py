"""TF 0.8-0.12-era programs and names (and RL / classic-ML idioms) run under tideflow: each
test is a piece of an old-style program, checked against NumPy or against the documented
semantics of the release that had the name."""

import numpy as np
import pytest

import tideflow as tf


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        return sess.run(list(fetches), feed_dict=feed)


def test_concat_and_split_accept_0x_keywords():
    with tf.Graph().as_default():
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        b = a + 10
        c1 = tf.concat(concat_dim=1, values=[a, b])
        c0 = tf.concat(0, [a, b])
        s = tf.split(split_dim=1, num_split=3, value=a)
        s_pos = tf.split(0, 2, a)
        got = _run(c1, c0, *s, *s_pos)
    np.testing.assert_array_equal(got[0], np.concatenate([a, b], 1))
    np.testing.assert_array_equal(got[1], np.concatenate([a, b], 0))
    for g, want in zip(got[2:5], np.split(a, 3, 1)):
        np.testing.assert_array_equal(g, want)
    for g, want in zip(got[5:], np.split(a, 2, 0)):
        np.testing.assert_array_equal(g, want)


def test_concat_rejects_both_axis_and_concat_dim():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="concat_dim"):
        tf.concat([[1.0]], axis=0, concat_dim=0)


def test_listdiff_and_complex_abs():
    with tf.Graph().as_default():
        out, idx = tf.listdiff([1, 2, 3, 4, 5], [2, 4])
        z = tf.complex(tf.constant([3.0, -5.0]), tf.constant([4.0, 12.0]))
        got = _run(out, idx, tf.complex_abs(z))
        assert idx.dtype == tf.int32
        with pytest.raises(TypeError, match="complex"):
            tf.complex_abs(tf.constant([1.0]))
    np.testing.assert_array_equal(got[0], [1, 3, 5])
    np.testing.assert_array_equal(got[1], [0, 2, 4])
    np.testing.assert_allclose(got[2], [5.0, 13.0])


def test_batch_matrix_names_batch_over_leading_dims():
    rng = np.random.RandomState(0)
    m = rng.rand(3, 2, 2).astype(np.float64) + 2 * np.eye(2)
    spd = m @ np.transpose(m, (0, 2, 1))
    with tf.Graph().as_default():
        e, _ = tf.batch_self_adjoint_eig(spd)
        got = _run(tf.batch_matrix_inverse(m), tf.batch_matrix_determinant(m),
                   tf.batch_cholesky(spd), tf.batch_matrix_diag(m[:, 0]),
                   tf.batch_matrix_band_part(m, 0, 0), e,
                   tf.batch_matrix_solve(m, np.ones((3, 2, 1))))
    np.testing.assert_allclose(got[0], np.linalg.inv(m), rtol=1e-10)
    np.testing.assert_allclose(got[1], np.linalg.det(m), rtol=1e-10)
    np.testing.assert_allclose(got[2], np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(got[3], [np.diag(r) for r in m[:, 0]])
    np.testing.assert_allclose(got[4], m * np.eye(2))
    np.testing.assert_allclose(got[5], np.linalg.eigvalsh(spd), rtol=1e-10)
    np.testing.assert_allclose(got[6], np.linalg.solve(m, np.ones((3, 2, 1))), rtol=1e-10)


def test_sigmoid_cross_entropy_targets_keyword_and_positional_logits_first():
    x = np.array([[-2.0, 0.5], [3.0, -0.1]], np.float32)
    z = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    want = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    with tf.Graph().as_default():
        got = _run(tf.nn.sigmoid_cross_entropy_with_logits(logits=x, targets=z),
                   tf.nn.sigmoid_cross_entropy_with_logits(x, z))
        with pytest.raises(ValueError, match="targets"):
            tf.nn.sigmoid_cross_entropy_with_logits(logits=x, labels=z, targets=z)
    np.testing.assert_allclose(got[0], want, rtol=1e-6)
    np.testing.assert_allclose(got[1], want, rtol=1e-6)


def test_sparse_tensor_accepts_0x_shape_keyword():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(indices=[[0, 1], [2, 0]], values=[1.0, 2.0], shape=[3, 2])
        (dense,) = _run(tf.sparse_tensor_to_dense(sp))
        with pytest.raises(ValueError, match="dense_shape"):
            tf.SparseTensor([[0, 0]], [1.0], dense_shape=[1, 1], shape=[1, 1])
    np.testing.assert_array_equal(dense, [[0, 1], [0, 0], [2, 0]])


def test_per_image_whitening_is_per_image_standardization():
    img = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    with tf.Graph().as_default():
        (got,) = _run(tf.image.per_image_whitening(img))
    adj = max(img.std(), 1.0 / np.sqrt(img.size))
    np.testing.assert_allclose(got, (img - img.mean()) / adj, rtol=1e-5)


# ------------------------------------------------------------------------------------------
# tf.contrib.learn (TF 1.0-1.2 tutorials)
# ------------------------------------------------------------------------------------------


def test_contrib_learn_custom_model_fn_getting_started(tmp_path):
    """TF 1.0's getting-started model: a ModelFnOps model_fn fitted on numpy_input_fn."""
    x = np.array([1.0, 2.0, 3.0, 4.0])
    y = np.array([0.0, -1.0, -2.0, -3.0])

    def model(features, labels, mode):
        w = tf.get_variable("W", [1], dtype=tf.float64)
        b = tf.get_variable("b", [1], dtype=tf.float64)
        pred = w * features["x"] + b
        if mode == tf.contrib.learn.ModeKeys.INFER:
            return tf.contrib.learn.ModelFnOps(mode=mode, predictions=pred)
        loss = tf.reduce_sum(tf.square(pred - labels))
        train = tf.group(tf.train.GradientDescentOptimizer(0.01).minimize(loss),
                         tf.assign_add(tf.train.get_global_step(), 1))
        return tf.contrib.learn.ModelFnOps(mode=mode, predictions=pred, loss=loss,
                                           train_op=train)

    est = tf.contrib.learn.Estimator(model_fn=model, model_dir=str(tmp_path))
    input_fn = tf.contrib.learn.io.numpy_input_fn({"x": x}, y, 4, num_epochs=300)
    assert est.fit(input_fn=input_fn, steps=300) is est
    result = est.evaluate(input_fn=input_fn, steps=5)
    assert result["global_step"] == 300
    assert result["loss"] < 1e-2
    np.testing.assert_allclose(est.get_variable_value("W"), [-1.0], atol=0.05)
    pred = list(est.predict(input_fn=tf.contrib.learn.io.numpy_input_fn(
        {"x": np.array([10.0])}, shuffle=False)))
    np.testing.assert_allclose(pred, [-9.0], atol=0.3)


def test_contrib_learn_tuple_model_fn_and_metrics(tmp_path):
    """A 0.12-era model_fn(features, targets) returning (predictions, loss, train_op), fitted
    on arrays, evaluated with a MetricSpec."""
    rng = np.random.RandomState(0)
    x = rng.randn(64, 3).astype(np.float32)
    y = x @ np.array([1.0, -2.0, 0.5], np.float32)

    def model(features, targets):
        pred = tf.squeeze(tf.contrib.layers.linear(features, 1), [1])
        if targets is None:
            return pred, None, None
        loss = tf.losses.mean_squared_error(targets, pred)
        train = tf.contrib.layers.optimize_loss(loss, tf.train.get_global_step(), 0.1, "SGD")
        return pred, loss, train

    est = tf.contrib.learn.Estimator(model_fn=model, model_dir=str(tmp_path))
    est.fit(x=x, y=y, steps=200)
    spec = tf.contrib.learn.MetricSpec(metric_fn=tf.contrib.metrics.streaming_mean_absolute_error)
    result = est.evaluate(x=x, y=y, metrics={"mae": spec})
    assert result["loss"] < 1e-3 and result["mae"] < 0.05
    preds = est.predict(x=x[:4], as_iterable=False)
    np.testing.assert_allclose(preds, y[:4], atol=0.1)


def test_contrib_learn_dnn_classifier_on_arrays_iris_style(tmp_path):
    rng = np.random.RandomState(1)
    x = np.concatenate([rng.randn(30, 4) + [3 * i, 0, -3 * i, 0] for i in range(3)])
    y = np.repeat([0, 1, 2], 30)
    columns = [tf.contrib.layers.real_valued_column("", dimension=4)]
    assert columns[0] == tf.contrib.learn.infer_real_valued_columns_from_input(x)[0]
    clf = tf.contrib.learn.DNNClassifier(feature_columns=columns, hidden_units=[10],
                                         n_classes=3, model_dir=str(tmp_path),
                                         config=tf.contrib.learn.RunConfig(tf_random_seed=1))
    clf.fit(x=x, y=y, steps=150)
    result = clf.evaluate(x=x, y=y)
    assert result["accuracy"] > 0.9
    # contrib.learn's keys only (a multi-class head reports loss, accuracy, global_step)
    assert sorted(result) == ["accuracy", "global_step", "loss"]
    # the loss is the mean loss per example
    probs = clf.predict_proba(x, as_iterable=False)
    np.testing.assert_allclose(result["loss"], -np.mean(np.log(probs[np.arange(90), y])),
                               rtol=1e-4)
    classes = list(clf.predict(x[::30]))
    assert classes == [0, 1, 2]
    proba = clf.predict_proba(x[::30], as_iterable=False)
    np.testing.assert_allclose(proba.sum(1), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(proba.argmax(1), classes)
    # an input_fn returning constant features: predict stops after that one batch
    got = list(clf.predict(input_fn=lambda: tf.constant(x[::30], tf.float32)))
    assert got == classes
    sk = tf.contrib.learn.SKCompat(clf).predict(x[::30])
    np.testing.assert_array_equal(sk["classes"], classes)


def test_contrib_learn_wide_and_deep_with_contrib_feature_columns(tmp_path):
    rng = np.random.RandomState(0)
    n = 120
    gender = np.where(rng.rand(n) < 0.5, "Female", "Male")
    age = rng.randint(18, 80, n).astype(np.float32)
    label = ((gender == "Female") & (age > 40)).astype(np.int64)

    def input_fn():
        sp = tf.SparseTensor(indices=[[i, 0] for i in range(n)], values=gender,
                             dense_shape=[n, 1])
        return {"gender": sp, "age": tf.constant(age)}, tf.constant(label)

    layers = tf.contrib.layers
    g = layers.sparse_column_with_keys("gender", keys=["Female", "Male"])
    a = layers.real_valued_column("age")
    ab = layers.bucketized_column(a, boundaries=[30, 40, 50, 60])
    wide = [g, ab, layers.crossed_column([g, ab], hash_bucket_size=50)]
    m = tf.contrib.learn.LinearClassifier(feature_columns=wide, model_dir=str(tmp_path))
    m.fit(input_fn=input_fn, steps=100)
    assert m.evaluate(input_fn=input_fn, steps=1)["accuracy"] > 0.95
    with tf.Graph().as_default():
        feats, _ = input_fn()
        dense = layers.input_from_feature_columns(
            feats, [layers.one_hot_column(g), layers.embedding_column(g, 3), a])
        (v,) = _run(dense)
    assert v.shape == (n, 6)
    # columns in name order: age, gender_embedding (3), gender_indicator (2)
    np.testing.assert_array_equal(v[:, 4:6].argmax(1), (gender == "Male").astype(int))
    np.testing.assert_array_equal(v[:, 0], age)


def test_contrib_learn_datasets_csv(tmp_path):
    path = tmp_path / "iris_training.csv"
    path.write_text("3,2,a,b\n1.5,2.0,0\n3.0,4.5,1\n-1,0,1\n")
    ds = tf.contrib.learn.datasets.base.load_csv_with_header(
        filename=str(path), target_dtype=np.int64, features_dtype=np.float32)
    np.testing.assert_array_equal(ds.data, [[1.5, 2.0], [3.0, 4.5], [-1, 0]])
    np.testing.assert_array_equal(ds.target, [0, 1, 1])
    assert ds.data.dtype == np.float32


# ------------------------------------------------------------------------------------------
# tf.contrib.distributions for continuous-control policies
# ------------------------------------------------------------------------------------------


def test_multivariate_normal_diag_policy_statistics():
    rng = np.random.RandomState(0)
    mu = rng.randn(5, 3)
    sd = np.exp(rng.randn(3))
    x = rng.randn(5, 3)
    mu2, sd2 = rng.randn(5, 3), np.exp(rng.randn(5, 3))
    ds = tf.contrib.distributions
    with tf.Graph().as_default():
        pi = ds.MultivariateNormalDiag(loc=mu, scale_diag=sd)
        other = ds.MultivariateNormalDiag(loc=mu2, scale_diag=sd2)
        assert pi.batch_shape.as_list() == [5] and pi.event_shape.as_list() == [3]
        s = pi.sample(4, seed=3)
        assert s.get_shape().as_list() == [4, 5, 3]
        got = _run(pi.log_prob(x), pi.entropy(), ds.kl_divergence(pi, other), ds.kl(pi, other),
                   s, pi.stddev(), pi.covariance())
    want_lp = (-0.5 * (((x - mu) / sd) ** 2).sum(1) - np.log(sd).sum() - 1.5 * np.log(2 * np.pi))
    np.testing.assert_allclose(got[0], want_lp, rtol=1e-10)
    np.testing.assert_allclose(got[1], np.full(5, 1.5 * (1 + np.log(2 * np.pi)) + np.log(sd).sum()))
    v1, v2 = sd ** 2, sd2 ** 2
    want_kl = 0.5 * (v1 / v2 + (mu2 - mu) ** 2 / v2 - 1 + np.log(v2) - np.log(v1)).sum(1)
    np.testing.assert_allclose(got[2], want_kl, rtol=1e-10)
    np.testing.assert_allclose(got[3], want_kl, rtol=1e-10)
    assert got[4].shape == (4, 5, 3)
    # as TF 1.15: the second moments come from the scale alone (its batch shape, not loc's)
    np.testing.assert_allclose(got[5], sd)
    np.testing.assert_allclose(got[6], np.diag(sd ** 2))


def test_multivariate_normal_diag_reparameterized_gradient_and_softplus_variants():
    ds = tf.contrib.distributions
    with tf.Graph().as_default():
        loc = tf.Variable([0.5, -1.0])
        raw = tf.Variable([0.0, 1.0])
        pi = ds.MultivariateNormalDiagWithSoftplusScale(loc=loc, scale_diag=raw)
        a = pi.sample(seed=1)
        g_loc, g_raw = tf.gradients(tf.reduce_sum(a), [loc, raw])
        n = ds.NormalWithSoftplusScale(loc=0.0, scale=[-1.0, 1.0])
        got = _run(g_loc, pi.scale_diag, n.scale)
    np.testing.assert_allclose(got[0], [1.0, 1.0])
    np.testing.assert_allclose(got[1], np.log1p(np.exp([0.0, 1.0])), rtol=1e-6)
    np.testing.assert_allclose(got[2], np.log1p(np.exp([-1.0, 1.0])), rtol=1e-6)
    assert g_raw is not None


def test_one_hot_categorical():
    ds = tf.contrib.distributions
    with tf.Graph().as_default():
        d = ds.OneHotCategorical(logits=np.log([[0.2, 0.8]]), dtype=tf.float32)
        s = d.sample(4000, seed=2)
        got = _run(tf.reduce_mean(s, 0), d.log_prob([[0.0, 1.0]]), d.entropy())
    np.testing.assert_allclose(got[0], [[0.2, 0.8]], atol=0.03)
    np.testing.assert_allclose(got[1], [np.log(0.8)], rtol=1e-6)
    np.testing.assert_allclose(got[2], [-(0.2 * np.log(0.2) + 0.8 * np.log(0.8))], rtol=1e-6)


def test_contrib_learn_exposes_preprocessing_for_text_programs():
    from tideflow.contrib import learn

    vp = learn.preprocessing.VocabularyProcessor(4)
    ids = np.array(list(vp.fit_transform(["a b c", "c d"])))
    np.testing.assert_array_equal(ids, [[1, 2, 3, 0], [3, 4, 0, 0]])
    assert tf.contrib.learn.preprocessing is learn.preprocessing


def test_nn_seq2seq_and_rnn_cell_keep_their_0x_models_and_wrappers():
    """0.10-0.12's translate model built from tf.nn.seq2seq and tf.nn.rnn_cell names."""
    rng = np.random.RandomState(0)
    vocab, steps, batch = 6, 3, 4
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        enc = [tf.placeholder(tf.int32, [None]) for _ in range(steps)]
        dec = [tf.placeholder(tf.int32, [None]) for _ in range(steps + 1)]
        weights = [tf.ones([batch]) for _ in range(steps)]
        cell = tf.nn.rnn_cell.GRUCell(8)
        _, losses = tf.nn.seq2seq.model_with_buckets(
            enc, dec, dec[1:], weights, [(steps, steps)],
            lambda x, y: tf.nn.seq2seq.embedding_attention_seq2seq(
                x, y, cell, num_encoder_symbols=vocab, num_decoder_symbols=vocab,
                embedding_size=4))
        train = tf.train.AdamOptimizer(0.05).minimize(losses[0])
        wrapped = tf.nn.rnn_cell.EmbeddingWrapper(
            tf.nn.rnn_cell.OutputProjectionWrapper(tf.nn.rnn_cell.BasicRNNCell(5), 3),
            embedding_classes=vocab, embedding_size=2)
        outs, _ = tf.nn.rnn(wrapped, enc, dtype=tf.float32, scope="wrapped")
        assert outs[0].get_shape().as_list() == [None, 3]
        x = rng.randint(1, vocab, (steps, batch))
        y = np.concatenate([np.zeros((1, batch), int), x[::-1]])
        feed = {**dict(zip(enc, x)), **dict(zip(dec, y))}
        with tf.Session() as sess:
            sess.run(tf.initialize_all_variables())
            first = sess.run(losses[0], feed)
            for _ in range(60):
                sess.run(train, feed)
            last = sess.run(losses[0], feed)
    assert last < 0.5 * first


def test_op_scope_takes_values_first():
    """0.x's ``op_scope(values, name, default_name)``; names as TF 1.x's compat.v1.op_scope
    gives them (observed: 'myop/', 'default/', and 'MyOp_1:0' / 'foo:0' for the op below)."""
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        with tf.op_scope([x], "myop", "default") as scope:
            assert scope == "myop/"
        with tf.op_scope([x], None, "default") as scope:
            assert scope == "default/"

        def my_op(a, name=None):
            with tf.op_scope([a], name, "MyOp") as scope:
                return tf.identity(a, name=scope)

        assert my_op(x).name == "MyOp_1:0"
        assert my_op(x, name="foo").name == "foo:0"


def test_contrib_summaries_and_deprecated_summary_ops():
    with tf.Graph().as_default():
        x = tf.constant([[-1.0, 2.0], [3.0, -4.0]])
        act = tf.nn.relu(x, name="act")
        tf.add_to_collection(tf.GraphKeys.ACTIVATIONS, act)
        made = tf.contrib.layers.summarize_activations()
        tf.contrib.layers.summarize_tensor(tf.reduce_sum(x), tag="total")
        tf.contrib.deprecated.scalar_summary("old", tf.constant(1.5))
        merged = tf.contrib.deprecated.merge_all_summaries()
        (raw,) = _run(merged)
    assert len(made) == 1
    summ = tf.Summary.FromString(raw)
    values = {v.tag: v for v in summ.value}
    assert values["act/zeros"].simple_value == 0.5
    assert values["total"].simple_value == 0.0
    assert values["old"].simple_value == 1.5
    assert values["act/activation"].histo.num == 4


def test_contrib_framework_reads_checkpoints(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Saver().save(sess, str(tmp_path / "m.ckpt"))
    assert ("v", [2]) in [(n, list(s)) for n, s in tf.contrib.framework.list_variables(path)]
    np.testing.assert_array_equal(tf.contrib.framework.load_variable(str(tmp_path), "v"),
                                  [1.0, 2.0])


def test_rnn_zero_state_builds_tf_ops_so_graph_seeds_line_up():
    """A graph seed alone seeds each random op with the graph's op count, so the ops an RNN
    builds before its weights decide their values. Names observed from TF's
    compat.v1 BasicLSTMCell(8).zero_state(4, tf.float32) (rnn_cell_impl._concat)."""
    with tf.Graph().as_default() as g:
        cell = tf.nn.rnn_cell.BasicLSTMCell(8)
        c, h = cell.zero_state(4, tf.float32)
        names = [(op.name, op.type) for op in g.get_operations()]
        assert c.get_shape().as_list() == [4, 8] and h.get_shape().as_list() == [4, 8]
        batch = tf.placeholder(tf.int32, [])
        dyn = tf.nn.rnn_cell.GRUCell(3).zero_state(batch, tf.float32)
        assert dyn.get_shape().as_list() == [None, 3]
        (z,) = _run(dyn, feed={batch: 5})
    one = ["Const", "Const_1", "concat/axis", "concat", "zeros/Const", "zeros", "Const_2",
           "Const_3"]
    two = ["Const_4", "Const_5", "concat_1/axis", "concat_1", "zeros_1/Const", "zeros_1",
           "Const_6", "Const_7"]
    assert [n for n, _ in names] == [f"BasicLSTMCellZeroState/{n}" for n in one + two]
    assert dict(names)["BasicLSTMCellZeroState/zeros"] == "Fill"
    np.testing.assert_array_equal(z, np.zeros((5, 3)))


def test_basic_lstm_cell_step_builds_as_many_ops_with_either_state_layout():
    """TF's BasicLSTMCell splits with one shared axis constant, so a concatenated
    (state_is_tuple=False) state costs one Split (and the unused constant of its count that
    TF 1.15's tf.split makes)."""
    counts = {}
    for tuple_state in (True, False):
        with tf.Graph().as_default() as g:
            cell = tf.nn.rnn_cell.BasicLSTMCell(4, state_is_tuple=tuple_state)
            x = tf.zeros([2, 3])
            state = cell.zero_state(2, tf.float32)
            cell(x, state)  # builds the variables
            before = len(g.get_operations())
            cell(x, state)
            counts[tuple_state] = len(g.get_operations()) - before
    # the state's Split and its count constant, and the new state's concat with its axis
    # constant (TF 1.15's count)
    assert counts[False] == counts[True] + 4


def test_multi_rnn_cell_of_one_cell_object_0x_style():
    """0.x's ``MultiRNNCell([cell] * 2)`` gave each layer its own weights; TF 1.x shares the
    object's weights, which works only where every layer's inputs are as wide."""
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.GRUCell(4)
        stacked = tf.nn.rnn_cell.MultiRNNCell([cell] * 2)
        out, _ = tf.nn.dynamic_rnn(stacked, tf.ones([2, 5, 3]), dtype=tf.float32)
        kernels = sorted((v.op.name, v.get_shape().as_list()) for v in tf.trainable_variables()
                         if v.op.name.endswith("gates/kernel"))
        assert kernels == [("rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel", [7, 8]),
                           ("rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel", [8, 8])]
        assert len(stacked.trainable_weights) == 8
        (v,) = _run(out)
        assert v.shape == (2, 5, 4)
    with tf.Graph().as_default():
        cell = tf.nn.rnn_cell.GRUCell(4)
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell([cell] * 2), tf.ones([2, 5, 4]),
                          dtype=tf.float32)
        assert len(tf.trainable_variables()) == 4  # same widths: one set of weights (TF 1.x)


def test_contrib_learn_experiment_through_learn_runner(tmp_path):
    rng = np.random.RandomState(2)
    x = rng.randn(80, 2).astype(np.float32)
    y = (x[:, 0] - x[:, 1] > 0).astype(np.int64)

    def experiment_fn(run_config, hparams):
        est = tf.contrib.learn.LinearClassifier(
            feature_columns=[tf.contrib.layers.real_valued_column("x", dimension=2)],
            config=run_config, optimizer=tf.train.FtrlOptimizer(hparams.learning_rate))
        return tf.contrib.learn.Experiment(
            est, train_input_fn=tf.contrib.learn.io.numpy_input_fn(
                {"x": x}, y, batch_size=20, num_epochs=None),
            eval_input_fn=tf.contrib.learn.io.numpy_input_fn({"x": x}, y, shuffle=False),
            train_steps=40, eval_steps=None, min_eval_frequency=20)

    config = tf.contrib.learn.RunConfig(model_dir=str(tmp_path), tf_random_seed=3)
    result, _ = tf.contrib.learn.learn_runner.run(
        experiment_fn, run_config=config,
        hparams=tf.contrib.training.HParams(learning_rate=0.5))
    assert result["global_step"] == 40
    assert result["accuracy"] > 0.9
    with pytest.raises(ValueError, match="non-existent task"):
        tf.contrib.learn.learn_runner.run(experiment_fn, run_config=config, schedule="nope",
                                          hparams=tf.contrib.training.HParams(learning_rate=1))


def test_contrib_learn_kmeans_clustering_on_arrays(tmp_path):
    rng = np.random.RandomState(0)
    centres = np.array([[0, 0], [6, 6], [0, 6]], np.float32)
    pts = np.concatenate([rng.randn(30, 2) * 0.3 + c for c in centres]).astype(np.float32)
    km = tf.contrib.learn.KMeansClustering(
        num_clusters=3, model_dir=str(tmp_path), use_mini_batch=False,
        initial_clusters=tf.contrib.learn.KMeansClustering.KMEANS_PLUS_PLUS_INIT)
    km.fit(x=pts, steps=5)
    got = km.clusters()
    for c in centres:
        assert np.min(np.linalg.norm(got - c, axis=1)) < 0.3
    idx = np.array(list(km.predict_cluster_idx(x=pts)))
    assert sorted(np.bincount(idx)) == [30, 30, 30]
    dist = km.transform(x=pts[:4], as_iterable=False)
    np.testing.assert_allclose(dist, ((pts[:4, None] - got[None]) ** 2).sum(-1), rtol=1e-4,
                               atol=1e-4)
    want = ((pts - got[idx]) ** 2).sum()
    np.testing.assert_allclose(km.score(x=pts), want, rtol=1e-4)


def test_0x_argument_orders_of_ctc_loss_and_resize_images():
    rng = np.random.RandomState(0)
    logits = rng.randn(5, 2, 4).astype(np.float32)
    img = rng.rand(1, 6, 6, 1).astype(np.float32)
    with tf.Graph().as_default():
        labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 2, 1], tf.int32),
                                 [2, 2])
        lengths = tf.constant([5, 5])
        old = tf.nn.ctc_loss(tf.constant(logits), labels, lengths)  # 0.x: (inputs, labels, ...)
        new = tf.nn.ctc_loss(labels, tf.constant(logits), lengths)
        r_old = tf.image.resize_images(img, 3, 4)  # 0.x: (images, new_height, new_width)
        r_old_nn = tf.image.resize_images(img, 3, 4, tf.image.ResizeMethod.NEAREST_NEIGHBOR)
        r_kw = tf.image.resize_images(img, new_height=3, new_width=4)
        r_new = tf.image.resize_images(img, [3, 4])
        r_nn = tf.image.resize_images(img, [3, 4], tf.image.ResizeMethod.NEAREST_NEIGHBOR)
        got = _run(old, new, r_old, r_old_nn, r_kw, r_new, r_nn)
    np.testing.assert_array_equal(got[0], got[1])
    assert got[2].shape == (1, 3, 4, 1)
    np.testing.assert_array_equal(got[2], got[5])
    np.testing.assert_array_equal(got[4], got[5])
    np.testing.assert_array_equal(got[3], got[6])
    assert not np.array_equal(got[5], got[6])


def test_rnn_cells_accept_the_0x_input_size_argument():
    with tf.Graph().as_default():
        for cell in (tf.nn.rnn_cell.BasicLSTMCell(4, input_size=3),
                     tf.nn.rnn_cell.LSTMCell(4, input_size=3),
                     tf.nn.rnn_cell.GRUCell(4, input_size=3),
                     tf.nn.rnn_cell.BasicRNNCell(4, input_size=3)):
            out, _ = tf.nn.dynamic_rnn(cell, tf.ones([2, 5, 3]), dtype=tf.float32,
                                       scope=type(cell).__name__)
            assert out.get_shape().as_list() == [2, 5, 4]


def test_skflow_estimators_on_arrays():
    """0.8's ``learn.TensorFlowDNNClassifier(hidden_units, n_classes).fit(x, y)``."""
    rng = np.random.RandomState(0)
    x = np.concatenate([rng.randn(30, 3) + [4 * i, 0, -4 * i] for i in range(3)])
    y = np.repeat([0, 1, 2], 30)
    clf = tf.contrib.learn.TensorFlowDNNClassifier(hidden_units=[8], n_classes=3, steps=100,
                                                   config=tf.contrib.learn.RunConfig(
                                                       tf_random_seed=1))
    with pytest.raises(tf.contrib.learn.NotFittedError):
        clf.predict(x)
    pred = clf.fit(x, y).predict(x)
    assert pred.shape == (90,) and (pred == y).mean() > 0.9
    assert clf.predict_proba(x[:2]).shape == (2, 3)


def test_contrib_learn_regressor_trains_on_the_mean_loss(tmp_path):
    """contrib.learn's heads minimize the mean loss per example (core's canned estimators the
    sum): plain SGD at 0.1 converges on a batch of 64 here; on the sum it would diverge."""
    rng = np.random.RandomState(0)
    x = rng.randn(64, 2).astype(np.float32)
    y = x @ np.array([2.0, -1.0], np.float32) + 0.5
    reg = tf.contrib.learn.LinearRegressor(
        feature_columns=tf.contrib.learn.infer_real_valued_columns_from_input(x),
        optimizer=tf.train.GradientDescentOptimizer(0.1), model_dir=str(tmp_path))
    reg.fit(x=x, y=y, steps=100)
    assert reg.evaluate(x=x, y=y)["loss"] < 1e-3
    np.testing.assert_allclose(reg.predict(x=x[:3], as_iterable=False), y[:3], atol=0.05)


def test_contrib_learn_load_iris():
    iris = tf.contrib.learn.datasets.load_dataset("iris")
    assert iris.data.shape == (150, 4) and iris.data.dtype == np.float64
    np.testing.assert_array_equal(np.bincount(iris.target), [50, 50, 50])
    # the per-feature means of the table TF 1.15 bundles (Fisher's first printing)
    np.testing.assert_allclose(iris.data.mean(0), [5.843333, 3.054, 3.758667, 1.198667],
                               atol=1e-6)
    with pytest.raises(ValueError, match="data_path"):
        tf.contrib.learn.datasets.load_boston()


def _write_idx(path, magic, dims, data):
    import gzip

    header = np.array([magic, *dims], dtype=">u4").tobytes()
    with gzip.open(path, "wb") as f:
        f.write(header + np.asarray(data, np.uint8).tobytes())


def test_mnist_read_data_sets_from_idx_files(tmp_path):
    rng = np.random.RandomState(0)
    train_x = rng.randint(0, 256, (12, 28, 28))
    train_y = np.arange(12) % 10
    test_x = rng.randint(0, 256, (3, 28, 28))
    _write_idx(tmp_path / "train-images-idx3-ubyte.gz", 2051, [12, 28, 28], train_x)
    _write_idx(tmp_path / "train-labels-idx1-ubyte.gz", 2049, [12], train_y)
    _write_idx(tmp_path / "t10k-images-idx3-ubyte.gz", 2051, [3, 28, 28], test_x)
    _write_idx(tmp_path / "t10k-labels-idx1-ubyte.gz", 2049, [3], [1, 2, 3])
    mnist = tf.contrib.learn.datasets.mnist.read_data_sets(str(tmp_path), one_hot=True,
                                                           validation_size=2, seed=1)
    assert mnist.train.num_examples == 10 and mnist.validation.num_examples == 2
    assert mnist.train.images.shape == (10, 784) and mnist.train.images.dtype == np.float32
    np.testing.assert_allclose(mnist.validation.images[0], train_x[0].ravel() / 255.0,
                               rtol=1e-6)
    np.testing.assert_array_equal(mnist.test.labels.argmax(1), [1, 2, 3])
    seen = []
    for _ in range(3):  # 12 examples drawn from 10: an epoch and the start of the next
        xs, ys = mnist.train.next_batch(4)
        assert xs.shape == (4, 784) and ys.shape == (4, 10)
        seen.extend(ys.argmax(1))
    assert mnist.train.epochs_completed == 1
    assert sorted(seen[:10]) == sorted(train_y[2:])


def test_state_saving_rnn_0x_and_contrib_names():
    assert tf.nn.state_saving_rnn is tf.nn.static_state_saving_rnn
    assert tf.contrib.rnn.static_state_saving_rnn is tf.nn.static_state_saving_rnn


def test_contrib_distributions_take_tf_1_0_parameter_names():
    ds = tf.contrib.distributions
    with tf.Graph().as_default():
        n = ds.Normal(mu=[0.0, 1.0], sigma=[1.0, 2.0])
        assert isinstance(n, tf.distributions.Normal)
        prior = ds.Normal(mu=0.0, sigma=1.0)
        b = ds.Bernoulli(p=0.25)
        got = _run(n.mu, n.sigma, n.log_pdf(1.0), n.std(), ds.kl(n, prior),
                   n.sample_n(3, seed=1), b.p, b.pmf(1), ds.Uniform(a=1.0, b=3.0).mean(),
                   ds.Gamma(alpha=2.0, beta=4.0).mean(), ds.Exponential(lam=2.0).mean(),
                   ds.Categorical(p=[0.5, 0.5]).p)
        with pytest.raises(ValueError, match="not both"):
            ds.Normal(loc=0.0, mu=0.0, sigma=1.0)
    np.testing.assert_allclose(got[0], [0, 1])
    np.testing.assert_allclose(got[1], [1, 2])
    want = -0.5 * ((1.0 - np.array([0, 1])) / [1, 2]) ** 2 - np.log([1, 2]) - 0.5 * np.log(
        2 * np.pi)
    np.testing.assert_allclose(got[2], want, rtol=1e-6)
    np.testing.assert_allclose(got[3], [1, 2])
    np.testing.assert_allclose(got[4], [0.0, np.log(0.5) + (4 + 1) / 2 - 0.5], rtol=1e-6)
    assert got[5].shape == (3, 2)
    np.testing.assert_allclose(got[6:11], [0.25, 0.25, 2.0, 0.5, 0.5])
    np.testing.assert_allclose(got[11], [0.5, 0.5])


def test_contrib_crossed_column_of_hash_bucket_columns():
    """TF 1.0's wide_n_deep tutorial crosses sparse_column_with_hash_bucket columns."""
    layers = tf.contrib.layers
    edu = layers.sparse_column_with_hash_bucket("education", hash_bucket_size=100)
    occ = layers.sparse_column_with_hash_bucket("occupation", hash_bucket_size=100)
    cross = layers.crossed_column([edu, occ], hash_bucket_size=1000)
    with tf.Graph().as_default():
        feats = {k: tf.SparseTensor([[0, 0], [1, 0], [2, 0]], v, shape=[3, 1]) for k, v in (
            ("education", ["a", "b", "a"]), ("occupation", ["x", "y", "x"]))}
        dense = layers.input_from_feature_columns(feats, [layers.one_hot_column(cross)])
        (v,) = _run(dense)
    assert v.shape == (3, 1000)
    np.testing.assert_array_equal(v.sum(1), [1, 1, 1])
    np.testing.assert_array_equal(v[0], v[2])
    assert not np.array_equal(v[0], v[1])


def test_contrib_metrics_for_classic_ml_evaluation():
    rng = np.random.RandomState(0)
    x1, x2 = rng.randn(20).astype(np.float32), rng.randn(20).astype(np.float32)
    y1, y2 = x1 * 2 + rng.randn(20) * 0.3, x2 * 2 + rng.randn(20) * 0.3
    m = tf.contrib.metrics
    with tf.Graph().as_default():
        px = tf.placeholder(tf.float32, [None])
        py = tf.placeholder(tf.float32, [None])
        r, r_up = m.streaming_pearson_correlation(px, py)
        c, c_up = m.streaming_covariance(px, py)
        pl, pl_up = m.streaming_percentage_less(px, 0.0)
        acc = m.accuracy(tf.constant([1, 2, 3, 4]), tf.constant([1, 2, 0, 4]))
        cm = m.confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2])
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for xs, ys in ((x1, y1), (x2, y2)):
                sess.run([r_up, c_up, pl_up], {px: xs, py: ys})
            got = sess.run([r, c, pl, acc, cm])
    xs, ys = np.concatenate([x1, x2]), np.concatenate([y1, y2])
    np.testing.assert_allclose(got[0], np.corrcoef(xs, ys)[0, 1], rtol=1e-4)
    np.testing.assert_allclose(got[1], np.cov(xs, ys)[0, 1], rtol=1e-4)
    np.testing.assert_allclose(got[2], (xs < 0).mean(), rtol=1e-6)
    assert got[3] == 0.75
    np.testing.assert_array_equal(got[4], [[1, 0, 0], [0, 1, 1], [0, 0, 1]])


def test_rnn_cell_private_linear_of_0x_custom_cells():
    rng = np.random.RandomState(0)
    a, b = rng.randn(2, 3).astype(np.float32), rng.randn(2, 4).astype(np.float32)
    with tf.Graph().as_default():
        with tf.variable_scope("gates"):
            y = tf.nn.rnn_cell._linear([tf.constant(a), tf.constant(b)], 5, True, bias_start=1.0)
        names = [v.op.name for v in tf.global_variables()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, m = sess.run([y, tf.global_variables()[0]])
    assert names == ["gates/Linear/Matrix", "gates/Linear/Bias"]
    np.testing.assert_allclose(got, np.concatenate([a, b], 1) @ m + 1.0, rtol=1e-5)


def _tree_data(n=200, seed=0):
    rng = np.random.RandomState(seed)
    age = rng.uniform(0, 80, n).astype(np.float32)
    sex = rng.choice(["male", "female"], n)
    fc = tf.feature_column
    columns = [fc.bucketized_column(fc.numeric_column("age"), [10.0, 20, 30, 40, 50, 60, 70]),
               fc.indicator_column(fc.categorical_column_with_vocabulary_list(
                   "sex", ["male", "female"]))]
    return age, sex, columns


def test_boosted_trees_classifier_learns_an_interaction(tmp_path):
    age, sex, columns = _tree_data()
    y = ((sex == "female") & (age < 40)).astype(np.int64)

    def input_fn():
        return {"age": tf.constant(age), "sex": tf.constant(sex)}, tf.constant(y)

    est = tf.estimator.BoostedTreesClassifier(columns, n_batches_per_layer=1, n_trees=3,
                                              max_depth=2, learning_rate=0.5,
                                              model_dir=str(tmp_path))
    est.train(input_fn, max_steps=100)  # stops once the 3 trees of 2 layers are grown
    result = est.evaluate(input_fn, steps=1)
    assert result["global_step"] == 6
    assert result["accuracy"] == 1.0
    probs = np.array([p["probabilities"][1] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn(
            {"age": np.array([20.0, 20.0, 60.0], np.float32),
             "sex": np.array(["female", "male", "female"])}, shuffle=False))])
    assert probs[0] > 0.5 > probs[1] and probs[2] < 0.5
    # TF 1.15 names the default pruning_mode ('none', not None) first
    with pytest.raises(ValueError, match="pruning is not supported with multi class"):
        tf.estimator.BoostedTreesClassifier(columns, 1, n_classes=3)
    with pytest.raises(ValueError, match="binary"):
        tf.estimator.BoostedTreesClassifier(columns, 1, n_classes=3, pruning_mode=None)


def test_boosted_trees_regressor_first_tree_is_a_newton_step(tmp_path):
    """One tree of depth 1 on squared loss: each side of the split predicts the learning rate
    times its mean label (the Newton step from 0)."""
    age, sex, columns = _tree_data(seed=1)
    y = np.where(sex == "female", 3.0, -1.0).astype(np.float32)

    def input_fn():
        return {"age": tf.constant(age), "sex": tf.constant(sex)}, tf.constant(y)

    est = tf.estimator.BoostedTreesRegressor(columns, n_batches_per_layer=1, n_trees=1,
                                             max_depth=1, learning_rate=0.5,
                                             model_dir=str(tmp_path))
    est.train(input_fn, max_steps=10)
    preds = np.array([p["predictions"][0] for p in est.predict(
        tf.estimator.inputs.numpy_input_fn(
            {"age": np.array([30.0, 30.0], np.float32), "sex": np.array(["female", "male"])},
            shuffle=False))])
    np.testing.assert_allclose(preds, [1.5, -0.5], rtol=1e-5)


def test_boosted_trees_on_numeric_columns_finds_quantile_buckets(tmp_path):
    """TF 1.14+'s tutorial feeds numeric_column straight in: the first
    n_batches_per_layer steps find the quantile boundaries, then the trees grow."""
    rng = np.random.RandomState(3)
    x = rng.uniform(0, 10, 300).astype(np.float32)
    y = ((x > 3) & (x < 7)).astype(np.int64)

    def input_fn():
        return {"x": tf.constant(x)}, tf.constant(y)

    est = tf.estimator.BoostedTreesClassifier([tf.feature_column.numeric_column("x")],
                                              n_batches_per_layer=1, n_trees=2, max_depth=2,
                                              learning_rate=1.0, model_dir=str(tmp_path))
    est.train(input_fn, max_steps=50)
    result = est.evaluate(input_fn, steps=1)
    assert result["global_step"] == 1 + 2 * 2  # the quantile step, then 2 trees x 2 layers
    assert result["accuracy"] > 0.97
    bounds = est.get_variable_value("boosted_trees/quantile_boundaries")[0]
    assert 50 <= est.get_variable_value("boosted_trees/num_boundaries")[0] <= 100
    assert bounds[0] == x.min()


def test_contrib_learn_binary_classifier_reports_contrib_metric_keys(tmp_path):
    rng = np.random.RandomState(0)
    x = rng.randn(60, 2).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    clf = tf.contrib.learn.LinearClassifier(
        feature_columns=tf.contrib.learn.infer_real_valued_columns_from_input(x),
        model_dir=str(tmp_path))
    clf.fit(x=x, y=y, steps=30)
    result = clf.evaluate(x=x, y=y)
    assert sorted(result) == [
        "accuracy", "accuracy/baseline_label_mean", "accuracy/threshold_0.500000_mean", "auc",
        "auc_precision_recall", "global_step", "labels/actual_label_mean",
        "labels/prediction_mean", "loss", "precision/positive_threshold_0.500000_mean",
        "recall/positive_threshold_0.500000_mean"]
    np.testing.assert_allclose(result["labels/actual_label_mean"], y.mean(), rtol=1e-6)
    assert result["accuracy"] > 0.9
