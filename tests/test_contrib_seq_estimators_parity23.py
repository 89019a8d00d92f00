"""TF 1.15's contrib sequence and estimator pieces: ``tf.contrib.estimator.RNNClassifier`` /
``RNNEstimator``, ``tf.contrib.model_pruning``, ``tf.contrib.recurrent`` and friends. The
reference numbers and names were measured in TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


# -- RNNClassifier / RNNEstimator ---------------------------------------------------------
def _rnn_input_fn(last_label):
    def input_fn():
        sp = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                             values=[1., 2., 3., 4., 5., 6.], dense_shape=[3, 3])
        return ({"tok": sp, "ctx": tf.constant([[1.], [2.], [3.]])},
                tf.constant([[0], [1], [last_label]]))
    return input_fn


def _fixed_rnn_classifier(tmp_path, cell_type, n_classes):
    """An RNNClassifier trained one step, its weights then overwritten by fixed values saved
    under the names the checkpoint holds (as the same program did in TF 1.15)."""
    model_dir = str(tmp_path / cell_type)
    est = tf.contrib.estimator.RNNClassifier(
        sequence_feature_columns=[tf.contrib.feature_column.sequence_numeric_column("tok")],
        context_feature_columns=[tf.feature_column.numeric_column("ctx")],
        num_units=[4, 3], cell_type=cell_type, model_dir=model_dir, n_classes=n_classes)
    input_fn = _rnn_input_fn(n_classes - 1)
    est.train(input_fn, steps=1)
    listed = tf.train.list_variables(model_dir)
    names = [(n, s) for n, s in listed if "Adagrad" not in n and n != "global_step"]
    with tf.Graph().as_default():
        variables = [tf.Variable((np.cos(np.arange(np.prod(s)) * 0.37 + k).reshape(s)
                                  * 0.5).astype(np.float32), name=n)
                     for k, (n, s) in enumerate(names)]
        step = tf.Variable(7, dtype=tf.int64, name="global_step")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver([*variables, step]).save(sess, model_dir + "/model.ckpt",
                                                    global_step=7)
    return est, input_fn, names


def test_rnn_classifier_gru_multiclass_matches_tf(tmp_path):
    est, input_fn, names = _fixed_rnn_classifier(tmp_path, "gru", 3)
    # measured in TF 1.15
    assert names == [
        ("rnn/logits/dense/bias", [3]), ("rnn/logits/dense/kernel", [3, 3]),
        ("rnn/rnn/multi_rnn_cell/cell_0/gru_cell/candidate/bias", [4]),
        ("rnn/rnn/multi_rnn_cell/cell_0/gru_cell/candidate/kernel", [6, 4]),
        ("rnn/rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias", [8]),
        ("rnn/rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel", [6, 8]),
        ("rnn/rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias", [3]),
        ("rnn/rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel", [7, 3]),
        ("rnn/rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias", [6]),
        ("rnn/rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel", [7, 6])]
    result = est.evaluate(input_fn, steps=1)
    assert sorted(result) == ["accuracy", "average_loss", "global_step", "loss"]
    np.testing.assert_allclose(result["loss"], 1.1177241802215576, rtol=1e-5)
    assert result["global_step"] == 7
    logits = [p["logits"].tolist() for _, p in zip(range(3), est.predict(input_fn))]
    np.testing.assert_allclose(logits, [
        [0.2103540003299713, 0.03633496165275574, -0.14260181784629822],
        [0.31603699922561646, 0.19372987747192383, 0.04520237445831299],
        [0.13857802748680115, -0.07885953783988953, -0.28562381863594055]], rtol=1e-5,
        atol=1e-6)


def test_rnn_classifier_basic_rnn_binary_matches_tf(tmp_path):
    est, input_fn, _ = _fixed_rnn_classifier(tmp_path, "basic_rnn", 2)
    result = est.evaluate(input_fn, steps=1)
    # measured in TF 1.15
    expected = {"accuracy": 0.6666666865348816, "accuracy_baseline": 0.6666666865348816,
                "auc": 4.99999316616595e-07, "auc_precision_recall": 0.41666683554649353,
                "average_loss": 0.6666197776794434, "global_step": 7.0,
                "label/mean": 0.6666666865348816, "loss": 0.6666197776794434,
                "precision": 0.6666666865348816, "prediction/mean": 0.5737468600273132,
                "recall": 1.0}
    assert sorted(result) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(result[key], value, rtol=1e-5, atol=1e-6, err_msg=key)
    logits = [p["logits"].tolist() for _, p in zip(range(3), est.predict(input_fn))]
    np.testing.assert_allclose(logits, [[0.33291441202163696], [0.25971075892448425],
                                        [0.29903751611709595]], rtol=1e-5)


def test_rnn_estimator_embedding_names_and_cell_fn_errors(tmp_path):
    tok = tf.feature_column.embedding_column(
        tf.contrib.feature_column.sequence_categorical_column_with_identity("tok", 5), 2)

    def input_fn():
        sp = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                             values=np.array([1, 2, 3, 4, 0, 1], np.int64),
                             dense_shape=[3, 3])
        return {"tok": sp}, tf.constant([[0.5], [1.], [2.]])

    def cell_fn(mode):
        return tf.nn.rnn_cell.LSTMCell(3)

    est = tf.contrib.estimator.RNNEstimator(
        tf.contrib.estimator.regression_head(), sequence_feature_columns=[tok],
        rnn_cell_fn=cell_fn, model_dir=str(tmp_path),
        optimizer=tf.train.GradientDescentOptimizer(0.1))
    est.train(input_fn, steps=1)
    # measured in TF 1.15 (a given optimizer is not wrapped: no slots)
    assert tf.train.list_variables(str(tmp_path)) == [
        ("global_step", []), ("rnn/logits/dense/bias", [1]),
        ("rnn/logits/dense/kernel", [3, 1]), ("rnn/rnn/lstm_cell/bias", [12]),
        ("rnn/rnn/lstm_cell/kernel", [5, 12]),
        ("rnn/sequence_input_layer/sequence_input_layer/tok_embedding/embedding_weights",
         [5, 2])]
    with pytest.raises(ValueError, match="num_units and cell_type must not be specified"):
        tf.contrib.estimator.RNNClassifier([tok], num_units=[2], rnn_cell_fn=cell_fn)
    with pytest.raises(TypeError, match="issubclass"):
        tf.contrib.estimator.RNNClassifier([tok], num_units=[2], cell_type="foo").train(
            input_fn, steps=1)
    with pytest.raises(ValueError, match="_SequentialHead"):
        tf.contrib.estimator.RNNEstimator(tf.contrib.estimator.regression_head(), [tok],
                                          num_units=[2], return_sequences=True)
