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


# -- tf.contrib.model_pruning -----------------------------------------------------------------
def _pruned_model():
    mp = tf.contrib.model_pruning
    x = tf.constant(np.cos(np.arange(2 * 5 * 5 * 3)).reshape(2, 5, 5, 3).astype(np.float32))
    step = tf.train.get_or_create_global_step()
    net = mp.masked_conv2d(x, 4, 3, weights_initializer=tf.constant_initializer(
        np.sin(np.arange(3 * 3 * 3 * 4) * 1.3).reshape(3, 3, 3, 4)))
    net = tf.reshape(net, [2, -1])
    net = mp.masked_fully_connected(net, 6, weights_initializer=tf.constant_initializer(
        np.sin(np.arange(100 * 6) * 0.7).reshape(100, 6)))
    extra = tf.get_variable("extra", [4, 8], initializer=tf.constant_initializer(
        np.cos(np.arange(32) * 2.1).reshape(4, 8)))
    with tf.variable_scope("extra_scope"):
        masked_extra = mp.apply_mask(extra, "extra_scope")
    hparams = mp.get_pruning_hparams().parse(
        "begin_pruning_step=1,end_pruning_step=8,pruning_frequency=2,target_sparsity=0.75,"
        "sparsity_function_end_step=6,threshold_decay=0.5,"
        "weight_sparsity_map=[fully_connected:0.5],block_dims_map=[extra:2x2],nbins=64")
    pruning = mp.Pruning(hparams, global_step=step)
    return mp, step, net, masked_extra, hparams, pruning


def test_model_pruning_names_collections_and_schedule_match_tf():
    with tf.Graph().as_default():
        mp, step, net, masked_extra, hparams, pruning = _pruned_model()
        update = pruning.conditional_mask_update_op()
        pruning.add_pruning_summaries()
        # measured in TF 1.15
        assert [v.op.name for v in mp.get_masks()] == [
            "Conv/mask", "fully_connected/mask", "extra_scope/extra_scope/mask"]
        assert [v.op.name for v in mp.get_thresholds()] == [
            "Conv/threshold", "fully_connected/threshold", "extra_scope/extra_scope/threshold"]
        assert [v.op.name for v in mp.get_weights()] == [
            "Conv/weights", "fully_connected/weights", "extra"]
        assert [t.name for t in mp.get_masked_weights()] == [
            "Conv/weights/masked_weight:0", "fully_connected/weights/masked_weight:0",
            "extra_scope/weights/masked_weight:0"]
        assert [v.op.name for v in tf.global_variables()] == [
            "global_step", "Conv/mask", "Conv/weights", "Conv/threshold", "Conv/biases",
            "fully_connected/weights", "fully_connected/mask", "fully_connected/threshold",
            "fully_connected/biases", "extra", "extra_scope/extra_scope/mask",
            "extra_scope/extra_scope/threshold", "model_pruning/last_mask_update_step"]
        assert [v.op.name for v in tf.trainable_variables()] == [
            "Conv/weights", "Conv/biases", "fully_connected/weights", "fully_connected/biases",
            "extra"]
        assert len(tf.model_variables()) == 8
        names = {op.name for op in tf.get_default_graph().get_operations()}
        for name in ("Conv/convolution", "Conv/BiasAdd", "Conv/Relu", "fully_connected/MatMul",
                     "model_pruning/sparsity", "model_pruning_summaries/Conv/mask/sparsity",
                     "model_pruning_summaries/extra_scope/extra_scope/threshold/threshold"):
            assert name in names, name
        assert (update.name, net.name, masked_extra.name) == (
            "cond/Merge:0", "fully_connected/Relu:0", "extra_scope/weights/masked_weight:0")
        # measured in TF 1.15: (sparsity, each mask's mean, thresholds, last update step)
        expected = [
            (0.0, [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], 0),
            (0.31597224, [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], 0),
            (0.5277778, [0.7592592835426331, 0.8333333134651184, 1.0],
             [0.38041604, 0.26342273, 0.32691562], 2),
            (0.65625, [0.7592592835426331, 0.8333333134651184, 1.0],
             [0.38041604, 0.26342273, 0.32691562], 2),
            (0.7222222, [0.5462962985038757, 0.6850000023841858, 1.0],
             [0.6541103, 0.47302884, 0.5334656], 4),
            (0.7465278, [0.5462962985038757, 0.6850000023841858, 1.0],
             [0.6541103, 0.47302884, 0.5334656], 4),
            (0.75, [0.40740740299224854, 0.6033333539962769, 0.75],
             [0.79145277, 0.5877183, 0.63674057], 6),
            (0.75, [0.40740740299224854, 0.6033333539962769, 0.75],
             [0.79145277, 0.5877183, 0.63674057], 6),
            (0.75, [0.34259259700775146, 0.5516666769981384, 0.375],
             [0.860124, 0.64506304, 0.6883781], 8),
            (0.75, [0.34259259700775146, 0.5516666769981384, 0.375],
             [0.860124, 0.64506304, 0.6883781], 8)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for sparsity, means, thresholds, last in expected:
                sess.run(update)
                masks, got_thresholds, got_sparsity, got_last = sess.run(
                    [mp.get_masks(), mp.get_thresholds(), pruning._sparsity,
                     pruning._last_update_step])
                # (the schedule's Pow(x, 3) runs as TF's grappler rewrites it: TF's bits)
                np.testing.assert_allclose(got_sparsity, sparsity, rtol=1e-6)
                np.testing.assert_allclose([m.mean() for m in masks], means, rtol=1e-6)
                np.testing.assert_allclose(got_thresholds, thresholds, rtol=1e-6)
                assert got_last == last
                sess.run(tf.assign_add(step, 1))
            np.testing.assert_allclose(sess.run(net), [
                [0.0, 11.183639526367188, 12.879400253295898, 0.0, 16.813079833984375,
                 17.211050033569336],
                [0.0, 13.085700035095215, 15.792750358581543, 0.0, 14.737099647521973,
                 17.89459991455078]], rtol=1e-5)
            np.testing.assert_allclose(sess.run(mp.get_weight_sparsity()),
                                       [0.6574074, 0.44833335, 0.625], rtol=1e-6)
            # the 2x2 blocks of "extra" pruned together
            assert sess.run(mp.get_masks()[2]).tolist() == [
                [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0],
                [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]]
        assert hparams.to_json() == (
            '{"name": "model_pruning", "begin_pruning_step": 1, "end_pruning_step": 8, '
            '"weight_sparsity_map": ["fully_connected:0.5"], "block_dims_map": ["extra:2x2"], '
            '"threshold_decay": 0.5, "pruning_frequency": 2, "nbins": 64, "block_height": 1, '
            '"block_width": 1, "block_pooling_function": "AVG", "initial_sparsity": 0.0, '
            '"target_sparsity": 0.75, "sparsity_function_begin_step": 0, '
            '"sparsity_function_end_step": 6, "sparsity_function_exponent": 3.0, '
            '"use_tpu": false}')


def test_model_pruning_masked_lstm_cells_match_tf():
    mp = tf.contrib.model_pruning
    with tf.Graph().as_default():
        x = tf.constant(np.cos(np.arange(2 * 3 * 4)).reshape(2, 3, 4).astype(np.float32))
        with tf.variable_scope("a", initializer=tf.constant_initializer(
                np.sin(np.arange(8 * 20) * 0.9).reshape(8, 20) * 0.5)):
            out1, _ = tf.nn.dynamic_rnn(mp.MaskedBasicLSTMCell(5), x, dtype=tf.float32)
        with tf.variable_scope("b", initializer=tf.constant_initializer(
                np.sin(np.arange(8 * 20) * 0.6).reshape(8, 20) * 0.5)):
            out2, _ = tf.nn.dynamic_rnn(mp.MaskedLSTMCell(5), x, dtype=tf.float32)
        # measured in TF 1.15
        assert [v.op.name for v in tf.global_variables()] == [
            "a/rnn/masked_basic_lstm_cell/kernel", "a/rnn/masked_basic_lstm_cell/bias",
            "a/rnn/masked_basic_lstm_cell/mask", "a/rnn/masked_basic_lstm_cell/threshold",
            "b/rnn/masked_lstm_cell/kernel", "b/rnn/masked_lstm_cell/bias",
            "b/rnn/masked_lstm_cell/mask", "b/rnn/masked_lstm_cell/threshold"]
        assert [t.name for t in mp.get_masked_weights()] == [
            "a/rnn/while/masked_basic_lstm_cell/weights/masked_weight:0",
            "b/rnn/while/masked_lstm_cell/weights/masked_weight:0"]
        step = tf.train.get_or_create_global_step()
        pruning = mp.Pruning(mp.get_pruning_hparams().parse(
            "target_sparsity=0.6,sparsity_function_end_step=2,pruning_frequency=1"),
            global_step=step)
        update = pruning.mask_update_op()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(step, 5))
            sess.run(update)
            np.testing.assert_allclose([m.mean() for m in sess.run(mp.get_masks())],
                                       [0.4, 0.4], rtol=1e-6)
            np.testing.assert_allclose(sess.run(mp.get_thresholds()), [0.4392128, 0.4375113],
                                       rtol=1e-6)
            np.testing.assert_allclose(sess.run(out1)[0][-1], [
                -0.02933, 0.00504, 0.03321, -0.00616, -0.01097], atol=1e-5)
            np.testing.assert_allclose(sess.run(out2)[1][-1], [
                -0.12414, -0.06067, -0.03195, -0.05397, -0.03918], atol=1e-5)


def test_model_pruning_spec_checks_and_strip():
    mp = tf.contrib.model_pruning
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        with pytest.raises(ValueError, match="Pruning must begin before it can end"):
            mp.Pruning(mp.get_pruning_hparams().parse("begin_pruning_step=5,"
                                                      "end_pruning_step=3"))
        with pytest.raises(ValueError, match=r"target_sparsity must be in range \[0,1\)"):
            mp.Pruning(mp.get_pruning_hparams().parse("target_sparsity=1.0"))
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        out = mp.masked_fully_connected(x, 2, activation_fn=None, scope="fc",
                                        weights_initializer=tf.constant_initializer(
                                            np.arange(6).reshape(3, 2) - 2.5))
        out = tf.identity(out, name="out")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(mp.get_masks()[0], [[1., 0.], [0., 1.], [1., 1.]]))
            expected = sess.run(out)
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, tf.get_default_graph().as_graph_def(), ["out"])
    stripped = mp.strip_pruning_vars_fn(frozen, ["out"])
    names = [n.name for n in stripped.node]
    assert "fc/weights/masked_weight" in names
    assert not any("mask" in n and "masked_weight" not in n for n in names)
    assert next(n for n in stripped.node if n.name == "fc/weights/masked_weight").op == "Const"
    with tf.Graph().as_default():
        tf.import_graph_def(stripped, name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run("out:0"), expected)
    np.testing.assert_allclose(expected, [[3.0, 5.5], [0.0, 14.5]])



# -- tf.contrib.recurrent ------------------------------------------------------------------
_RECURRENT_TF = {  # measured in TF 1.15 (rounded to 5 places)
    "acc2_h": [[-0.26662999391555786, 0.6070899963378906, 0.775629997253418], [0.4149099886417389,
        -0.5209400057792664, -0.7878400087356567]],
    "acc3_h0": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
    "final3_c": [[-0.49351999163627625, 2.159250020980835, 3.3201000690460205], [2.735219955444336,
        0.16620999574661255, -1.2907999753952026]],
    "g_w": [[0.25558000802993774, -0.02858000062406063, 0.016510000452399254],
        [-0.6109899878501892, 1.6591099500656128, 1.2686799764633179], [-0.8111600279808044,
        1.6944600343704224, 1.2814799547195435]],
    "g_x": [[[1.173740029335022, 1.2432199716567993, 1.9319000244140625], [2.4320499897003174,
        -0.8962600231170654, -0.28731998801231384]], [[0.4297100007534027, 1.8420300483703613,
        1.2922500371932983], [1.5962599515914917, -0.45607998967170715, -0.5276399850845337]],
        [[0.31633999943733215, -0.43073999881744385, 0.22089999914169312],
        [0.2549700140953064, -0.45381999015808105, 0.21971000730991364]],
        [[0.5267000198364258, 0.9723600149154663, 0.4039100110530853], [0.4747300148010254,
        0.9984300136566162, 0.44574999809265137]]],
    "gr_last": [3.2881898880004883, 4.653299808502197, 4.998970031738281],
    "gr_x": [[[0.9703099727630615, -0.12031999975442886, -0.9335500001907349],
        [0.9002799987792969, -0.12392999976873398, -1.0273799896240234], [0.9354900121688843,
        -0.00343000004068017, -1.3250099420547485], [0.14020000398159027, 0.18256999552249908,
        -0.10824999958276749]], [[1.116919994354248, -0.014580000191926956,
        -1.2068099975585938], [1.22885000705719, -0.20688000321388245, -1.2135299444198608],
        [1.0573899745941162, -0.3587299883365631, -0.9309700131416321], [1.06017005443573,
        -0.4334700107574463, -1.044100046157837]]],
    "obw": [[[0.2998799979686737, 0.08828999847173691, -0.17051999270915985],
        [0.24196000397205353, 0.16529999673366547, 0.03311999887228012], [0.11520999670028687,
        0.12043999880552292, 0.10864000022411346], [0.0, 0.0, 0.0]], [[-0.11270999908447266,
        -0.25707998871803284, -0.3204500079154968], [-0.0018400000408291817,
        -0.2637700140476227, -0.4611000120639801], [0.14222000539302826, -0.14535999298095703,
        -0.3928000032901764], [0.1584399938583374, -0.01607999950647354,
        -0.20024999976158142]]],
    "out": [[[0.07199999690055847, 0.08675999939441681, 0.08938000351190567],
        [0.15721000730991364, 0.1545500010251999, 0.13654999434947968], [0.17971999943256378,
        0.16078999638557434, 0.11231999844312668], [0.18052999675273895, 0.14342999458312988,
        0.02816000021994114]], [[0.06938999891281128, 0.0018100000452250242,
        -0.0833899974822998], [0.08601000159978867, -0.013000000268220901,
        -0.11467999964952469], [0.0, 0.0, -0.0], [0.0, 0.0, 0.0]]],
    "sbw": [[0.2998799979686737, 0.08828999847173691, -0.17051999270915985],
        [-0.11270999908447266, -0.25707998871803284, -0.3204500079154968]],
    "st_c": [[0.9167500138282776, 0.568589985370636, 0.08214999735355377], [0.21163000166416168,
        -0.029519999399781227, -0.24448999762535095]],
}


def test_recurrent_and_functional_rnn_match_tf():
    recurrent = tf.contrib.recurrent
    steps, batch, depth = 4, 2, 3
    with tf.Graph().as_default():
        xs = tf.constant(np.sin(np.arange(steps * batch * depth)).reshape(
            steps, batch, depth).astype(np.float32))
        w = tf.constant(np.cos(np.arange(depth * depth)).reshape(depth, depth).astype(
            np.float32) * 0.5)

        def cell_fn(theta, state0, inputs):
            h = tf.tanh(tf.matmul(state0["h"], theta["w"]) + inputs["x"])
            return {"h": h, "c": state0["c"] + h}, {}

        state0 = {"h": tf.zeros([batch, depth]), "c": tf.ones([batch, depth])}
        acc2, _ = recurrent.Recurrent({"w": w}, state0, {"x": xs}, cell_fn,
                                      max_input_length=tf.constant(2))
        acc3, final3 = recurrent.Recurrent({"w": w}, state0, {"x": xs}, cell_fn,
                                           max_input_length=tf.constant(3), aligned_end=True)
        loss = tf.reduce_sum(acc2["h"] * acc2["c"]) + tf.reduce_sum(final3["h"])
        g_w, g_x = tf.gradients(loss, [w, xs])
        x2 = tf.constant(np.cos(np.arange(batch * steps * depth) * 0.3).reshape(
            batch, steps, depth).astype(np.float32))
        with tf.variable_scope("f"):
            out, st = recurrent.functional_rnn(tf.nn.rnn_cell.BasicLSTMCell(3), x2,
                                               sequence_length=[4, 2], dtype=tf.float32)
        with tf.variable_scope("g"):
            (_, obw), (_, sbw) = recurrent.bidirectional_functional_rnn(
                tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), x2,
                sequence_length=[3, 4], dtype=tf.float32)
        grads = tf.gradients(tf.reduce_sum(out) + tf.reduce_sum(obw),
                             [x2] + tf.trainable_variables())
        # measured in TF 1.15 (the scope's variables as TF names them)
        assert [v.op.name for v in tf.global_variables()] == [
            "f/rnn/basic_lstm_cell/kernel", "f/rnn/basic_lstm_cell/bias",
            "g/bidirectional_rnn/fw/gru_cell/gates/kernel",
            "g/bidirectional_rnn/fw/gru_cell/gates/bias",
            "g/bidirectional_rnn/fw/gru_cell/candidate/kernel",
            "g/bidirectional_rnn/fw/gru_cell/candidate/bias",
            "g/bidirectional_rnn/bw/gru_cell/gates/kernel",
            "g/bidirectional_rnn/bw/gru_cell/gates/bias",
            "g/bidirectional_rnn/bw/gru_cell/candidate/kernel",
            "g/bidirectional_rnn/bw/gru_cell/candidate/bias"]
        assert out.shape.as_list() == [2, 4, 3] and obw.shape.as_list() == [2, 4, 3]
        # the backward GRU's forward-direction variables get no gradient from these outputs
        assert [g is None for g in grads] == [False, False, False, True, True, True, True,
                                              False, False, False, False]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for k, v in enumerate(tf.trainable_variables()):
                shape = v.get_shape().as_list()
                sess.run(v.assign((np.sin(np.arange(int(np.prod(shape))) * 0.4 + k).reshape(
                    shape) * 0.5).astype(np.float32)))
            got = sess.run({"acc2_h": acc2["h"][1], "final3_c": final3["c"],
                            "acc3_h0": acc3["h"][0], "g_w": g_w, "g_x": g_x, "out": out,
                            "st_c": st.c, "obw": obw, "sbw": sbw, "gr_x": grads[0],
                            "gr_last": grads[-1]})
    for key, value in _RECURRENT_TF.items():
        np.testing.assert_allclose(got[key], value, atol=2e-5, err_msg=key)


# -- DNN*WithLayerAnnotations ---------------------------------------------------------------
def test_dnn_with_layer_annotations_are_the_dnns_as_estimators(tmp_path):
    columns = [tf.feature_column.numeric_column("x", shape=[2]),
               tf.feature_column.embedding_column(
                   tf.feature_column.categorical_column_with_identity("c", 4), 2)]

    def input_fn():
        return ({"x": tf.constant([[1., 2.], [3., 4.]]),
                 "c": tf.SparseTensor([[0, 0], [1, 0]], tf.constant([1, 3], tf.int64),
                                      [2, 1])},
                tf.constant([[0], [1]]))

    est = tf.contrib.estimator.DNNClassifierWithLayerAnnotations([3], columns,
                                                                 model_dir=str(tmp_path))
    assert type(est) is tf.estimator.Estimator
    est.train(input_fn, steps=1)
    # measured in TF 1.15
    assert sorted(est.get_variable_names()) == [
        "dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/bias/t_0/Adagrad",
        "dnn/hiddenlayer_0/kernel", "dnn/hiddenlayer_0/kernel/t_0/Adagrad",
        "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights",
        "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights/t_0/Adagrad",
        "dnn/logits/bias", "dnn/logits/bias/t_0/Adagrad", "dnn/logits/kernel",
        "dnn/logits/kernel/t_0/Adagrad", "global_step"]
    # TF 1.15's annotation hook never runs: no layer_annotations collections
    with tf.Graph().as_default() as graph:
        features, labels = input_fn()
        tf.train.get_or_create_global_step()
        est.model_fn(features, labels, tf.estimator.ModeKeys.TRAIN, est.config)
        assert not [k for k in graph.get_all_collection_keys() if "annot" in k]
    regressor = tf.contrib.estimator.DNNRegressorWithLayerAnnotations([3], columns[:1])
    assert type(regressor) is tf.estimator.Estimator


# -- SavedModelEstimator ----------------------------------------------------------------------
def test_saved_model_estimator_trains_evaluates_and_predicts_as_tf(tmp_path):
    f1 = tf.feature_column.numeric_column("f1", shape=[2])
    est = tf.estimator.LinearRegressor([f1], model_dir=str(tmp_path / "md"),
                                       optimizer=tf.train.GradientDescentOptimizer(0.1))

    def input_fn():
        return ({"f1": tf.constant([[1., 2.], [3., 4.], [0.5, -1.]])},
                tf.constant([[1.], [2.], [0.]]))

    est.train(input_fn, steps=3)
    supervised = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
        {"f1": tf.placeholder(tf.float32, [None, 2])}, tf.placeholder(tf.float32, [None, 1]))
    serving = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"f1": tf.placeholder(tf.float32, [None, 2])})
    export_dir = est.experimental_export_all_saved_models(str(tmp_path / "export"), {
        tf.estimator.ModeKeys.TRAIN: supervised, tf.estimator.ModeKeys.EVAL: supervised,
        tf.estimator.ModeKeys.PREDICT: serving})
    sme = tf.contrib.estimator.SavedModelEstimator(export_dir, model_dir=str(tmp_path / "sme"))
    # measured in TF 1.15 (a regressor's raw serving export has no "serving_default")
    assert sme._available_modes == ["train", "eval"]
    result = sme.evaluate(input_fn, steps=1)
    expected = {"global_step": 3.0, "loss": 115639.5, "metrics/average_loss": 38546.5,
                "metrics/label/mean": 1.0, "metrics/prediction/mean": 145.45111083984375}
    assert sorted(result) == sorted(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(result[key], value, rtol=1e-6, err_msg=key)
    sme.train(input_fn, steps=2)
    assert sorted(sme.get_variable_names()) == [
        "global_step", "linear/linear_model/bias_weights", "linear/linear_model/f1/weights"]
    np.testing.assert_allclose(
        sme.get_variable_value("linear/linear_model/f1/weights").ravel(),
        [951.740234375, 1382.444091796875], rtol=1e-6)
    result = sme.evaluate(input_fn, steps=1)
    assert result["global_step"] == 5
    np.testing.assert_allclose(result["loss"], 94090760.0, rtol=1e-6)
    with pytest.raises(RuntimeError, match="infer mode is not available in the SavedModel"):
        next(sme.predict(input_fn))

    def int_input_fn():
        return {"f1": tf.constant([[1, 2]])}, tf.constant([[1.]])

    with pytest.raises(ValueError, match="Tensor shape and/or dtype validation failed for input "
                                         "f1:\n\tExpected dtype: <dtype: 'float32'>, Got: "
                                         "<dtype: 'int32'>"):
        sme.evaluate(int_input_fn, steps=1)

    parsing = tf.estimator.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec([f1]))
    predict_only = tf.contrib.estimator.SavedModelEstimator(
        est.export_saved_model(str(tmp_path / "export2"), parsing),
        model_dir=str(tmp_path / "sme3"))
    assert predict_only._available_modes == ["infer"]

    def predict_input_fn():
        example = tf.train.Example()
        example.features.feature["f1"].float_list.value.extend([1., 2.])
        return {"inputs": tf.constant([example.SerializeToString()])}

    prediction = next(predict_only.predict(predict_input_fn))
    assert sorted(prediction) == ["outputs"]
    np.testing.assert_allclose(prediction["outputs"], [144.90151977539062], rtol=1e-6)
    with pytest.raises(RuntimeError, match="train mode is not available"):
        predict_only.train(input_fn, steps=1)


# -- SequenceQueueingStateSaver / batch_sequences_with_states ----------------------------------
def test_sequence_queueing_state_saver_matches_tf():
    with tf.Graph().as_default():
        key = tf.placeholder(tf.string, [])
        seq = tf.placeholder(tf.float32, [None, 2])
        length = tf.placeholder(tf.int32, [])
        label = tf.placeholder(tf.int64, [])
        sqss = tf.contrib.training.SequenceQueueingStateSaver(
            batch_size=2, num_unroll=3, input_length=length, input_key=key,
            input_sequences={"x": seq}, input_context={"label": label},
            initial_states={"h": tf.zeros([2])}, capacity=4)
        batch = sqss.next_batch
        new_h = batch.state("h") + tf.reduce_sum(batch.sequences["x"], axis=1)
        with tf.control_dependencies([batch.save_state("h", new_h)]):
            out = tf.identity(new_h)
        # measured in TF 1.15
        assert [batch.sequences["x"].shape.as_list(), batch.state("h").shape.as_list(),
                batch.key.shape.as_list()] == [[2, 3, 2], [2, 2], [2]]
        assert (sqss.barrier.name, sqss.name, sqss.prefetch_op.name) == (
            "InputQueueingStateSaver/barrier", "InputQueueingStateSaver/",
            "InputQueueingStateSaver/StateSaverPrefetchGroup")
        with pytest.raises(KeyError, match="state was not declared: g"):
            batch.save_state("g", new_h)
        with tf.Session() as sess:
            for i, (k, n) in enumerate([("a", 6), ("b", 3), ("c", 9), ("d", 5)]):
                padded = -(-n // 3) * 3
                x = np.arange(padded * 2, dtype=np.float32).reshape(padded, 2) + 100 * i
                sess.run(sqss.prefetch_op, {key: k, seq: x, length: n, label: i})
            assert sess.run([sqss.barrier.ready_size(), sqss.barrier.incomplete_size()]) == [4, 4]
            got = [sess.run({"key": batch.key, "next": batch.next_key, "len": batch.length,
                             "tot": batch.total_length, "seq": batch.sequence,
                             "cnt": batch.sequence_count, "lab": batch.context["label"],
                             "out": out, "h": batch.state("h"), "idx": batch.insertion_index,
                             "bs": batch.batch_size, "x0": batch.sequences["x"][:, 0]})
                   for _ in range(4)]
            assert sess.run([sqss.barrier.ready_size(), sqss.barrier.incomplete_size()]) == [0, 0]
            sess.run(sqss.close())
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(batch.key)
    first = -9223372036854775808
    # measured in TF 1.15
    expected = [
        {"bs": 2, "cnt": [2, 1], "h": [[0., 0.], [0., 0.]], "idx": [first, first + 1],
         "key": [b"00000_of_00002:a", b"00000_of_00001:b"], "lab": [0, 1], "len": [3, 3],
         "next": [b"00001_of_00002:a", b"STOP:b"], "out": [[6., 9.], [306., 309.]],
         "seq": [0, 0], "tot": [6, 3], "x0": [[0., 1.], [100., 101.]]},
        {"bs": 2, "cnt": [2, 3], "h": [[6., 9.], [0., 0.]], "idx": [first, first + 2],
         "key": [b"00001_of_00002:a", b"00000_of_00003:c"], "lab": [0, 2], "len": [3, 3],
         "next": [b"STOP:a", b"00001_of_00003:c"], "out": [[30., 36.], [606., 609.]],
         "seq": [1, 0], "tot": [6, 9], "x0": [[6., 7.], [200., 201.]]},
        {"bs": 2, "cnt": [3, 2], "h": [[606., 609.], [0., 0.]], "idx": [first + 2, first + 3],
         "key": [b"00001_of_00003:c", b"00000_of_00002:d"], "lab": [2, 3], "len": [3, 3],
         "next": [b"00002_of_00003:c", b"00001_of_00002:d"],
         "out": [[1230., 1236.], [906., 909.]], "seq": [1, 0], "tot": [9, 5],
         "x0": [[206., 207.], [300., 301.]]},
        {"bs": 2, "cnt": [3, 2], "h": [[1230., 1236.], [906., 909.]],
         "idx": [first + 2, first + 3], "key": [b"00002_of_00003:c", b"00001_of_00002:d"],
         "lab": [2, 3], "len": [3, 2], "next": [b"STOP:c", b"STOP:d"],
         "out": [[1872., 1881.], [1830., 1836.]], "seq": [2, 1], "tot": [9, 5],
         "x0": [[212., 213.], [306., 307.]]}]
    for step, want in zip(got, expected, strict=True):
        assert {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in step.items()} == want


def test_batch_sequences_with_states_carries_states_across_segments():
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, [tf.string, tf.int32], shapes=[[], []])
        fill = queue.enqueue_many(([b"k%d" % i for i in range(5)], [5, 2, 7, 3, 4]))
        key, n = queue.dequeue()
        x = tf.cast(tf.reshape(tf.range(n * 2), [n, 2]), tf.float32)
        batch = tf.contrib.training.batch_sequences_with_states(
            input_key=key, input_sequences={"x": x}, input_context={"n": n},
            input_length=None, initial_states={"s": tf.zeros([2])}, num_unroll=3,
            batch_size=2, num_threads=1, capacity=4)
        new = batch.state("s") + tf.reduce_sum(batch.sequences["x"], axis=1)
        with tf.control_dependencies([batch.save_state("s", new)]):
            out = tf.identity(new)
        # measured in TF 1.15
        assert batch.sequences["x"].shape.as_list() == [None, 3, 2]
        assert [qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)] == [
            "batch_sequences_with_states/InputQueueingStateSaver/"]
        assert [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)] == [
            ("batch_sequences_with_states/queue/batch_sequences_with_states/"
             "InputQueueingStateSaver/barrier/ready_segment_batches_")]
        seen = {}
        with tf.Session() as sess:
            sess.run([fill, queue.close()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    r = sess.run({"key": batch.key, "out": out, "len": batch.length,
                                  "tot": batch.total_length, "n": batch.context["n"]})
                    for k, o, ln, tot, nn in zip(r["key"], r["out"], r["len"], r["tot"],
                                                 r["n"], strict=True):
                        segment, name = k.decode().split(":")
                        seen.setdefault(name, []).append(
                            (segment, o.tolist(), int(ln), int(tot), int(nn)))
            coord.request_stop()
            coord.join(threads)
    # measured in TF 1.15 (the order of the batches varies with the thread; each example's
    # segments come in order, the state summed over them)
    assert seen == {
        "k0": [("00000_of_00002", [6., 9.], 3, 5, 5), ("00001_of_00002", [20., 25.], 2, 5, 5)],
        "k1": [("00000_of_00001", [2., 4.], 2, 2, 2)],
        "k2": [("00000_of_00003", [6., 9.], 3, 7, 7), ("00001_of_00003", [30., 36.], 3, 7, 7),
               ("00002_of_00003", [42., 49.], 1, 7, 7)],
        "k3": [("00000_of_00001", [6., 9.], 3, 3, 3)],
        "k4": [("00000_of_00002", [6., 9.], 3, 4, 4), ("00001_of_00002", [12., 16.], 1, 4, 4)]}


def test_sequence_queueing_state_saver_argument_checks():
    with tf.Graph().as_default():
        args = {"batch_size": 2, "num_unroll": 3, "input_length": tf.constant(3),
                "input_key": tf.constant("k"), "input_sequences": {"x": tf.zeros([3, 1])},
                "input_context": {}}
        with pytest.raises(ValueError, match="initial_states may not be empty"):
            tf.contrib.training.SequenceQueueingStateSaver(initial_states={}, **args)
        with pytest.raises(ValueError, match="state name may not have a colon: 'a:b'"):
            tf.contrib.training.SequenceQueueingStateSaver(
                initial_states={"a:b": tf.zeros([1])}, **args)
        with pytest.raises(ValueError, match="capacity 1 needs to be >= batch_size 2"):
            tf.contrib.training.SequenceQueueingStateSaver(
                initial_states={"s": tf.zeros([1])}, capacity=1, **args)
        with pytest.raises(TypeError, match="length dtype must be int32"):
            tf.contrib.training.SequenceQueueingStateSaver(
                initial_states={"s": tf.zeros([1])},
                **{**args, "input_length": tf.constant(3, tf.int64)})


def test_model_pruning_train_updates_masks_after_each_step(tmp_path):
    mp = tf.contrib.model_pruning
    with tf.Graph().as_default():
        x = tf.constant(np.cos(np.arange(12)).reshape(4, 3).astype(np.float32))
        y = mp.masked_fully_connected(x, 2, activation_fn=None,
                                      weights_initializer=tf.constant_initializer(0.5))
        loss = tf.reduce_mean(tf.square(y - 1.0))
        step = tf.train.get_or_create_global_step()
        train_op = tf.contrib.slim.learning.create_train_op(
            loss, tf.train.GradientDescentOptimizer(0.1))
        pruning = mp.Pruning(mp.get_pruning_hparams().parse(
            "pruning_frequency=1,target_sparsity=0.5,sparsity_function_end_step=3"),
            global_step=step)
        # TF 1.15's train fails once done (it unpacks slim's float loss); tideflow returns it
        final_loss = mp.train(train_op, str(tmp_path), pruning.conditional_mask_update_op(),
                              number_of_steps=4, log_every_n_steps=100)
    assert np.isfinite(final_loss)
    reader = tf.train.load_checkpoint(str(tmp_path))
    # measured in TF 1.15 (its checkpoint, written before it fails)
    assert reader.get_tensor("fully_connected/mask").tolist() == [[0., 0.], [1., 1.], [1., 1.]]
    np.testing.assert_allclose(reader.get_tensor("fully_connected/threshold"), 0.40531555,
                               rtol=1e-6)
    assert reader.get_tensor("global_step") == 4
    np.testing.assert_allclose(reader.get_tensor("fully_connected/weights"),
                               [[0.40334, 0.40334], [0.40532, 0.40532], [0.50032, 0.50032]],
                               atol=1e-5)
    with tf.Graph().as_default():
        frozen = mp.graph_def_from_checkpoint(str(tmp_path), ["fully_connected/BiasAdd"])
        # measured in TF 1.15
        assert sorted(n.name for n in frozen.node) == [
            "Const", "fully_connected/BiasAdd", "fully_connected/MatMul",
            "fully_connected/biases", "fully_connected/biases/read", "fully_connected/mask",
            "fully_connected/mask/read", "fully_connected/weights",
            "fully_connected/weights/masked_weight", "fully_connected/weights/read"]
        stripped = mp.strip_pruning_vars_fn(frozen, ["fully_connected/BiasAdd"])
        assert sorted((n.name, n.op) for n in stripped.node) == [
            ("Const", "Const"), ("fully_connected/BiasAdd", "BiasAdd"),
            ("fully_connected/MatMul", "MatMul"), ("fully_connected/biases", "Const"),
            ("fully_connected/biases/read", "Identity"),
            ("fully_connected/weights/masked_weight", "Const")]
    with tf.Graph().as_default():
        out, = tf.import_graph_def(stripped, return_elements=["fully_connected/BiasAdd:0"])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(out)[:, 0],
                                       [0.3711, 0.23731, 0.59309, 0.02244], atol=1e-5)


def test_implementation_module_paths_import():
    import importlib

    tf.contrib.training  # noqa: B018 - binds the implementation paths
    for path, name in [
            ("tideflow.contrib.training.python.training.sequence_queueing_state_saver",
             "SequenceQueueingStateSaver"),
            ("tideflow.contrib.recurrent.python.ops.functional_rnn", "functional_rnn"),
            ("tideflow.contrib.recurrent.python.ops.recurrent", "Recurrent"),
            ("tideflow.contrib.model_pruning.python.pruning", "Pruning"),
            ("tideflow.contrib.model_pruning.python.layers.layers", "masked_conv2d"),
            ("tideflow.contrib.model_pruning.python.strip_pruning_vars_lib",
             "strip_pruning_vars_fn")]:
        assert hasattr(importlib.import_module(path), name), path
    assert not hasattr(tf.contrib.model_pruning, "python")  # hidden, as TF's


def test_batch_sequences_with_states_sparse_sequences_and_context():
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, [tf.string, tf.int32], shapes=[[], []])
        fill = queue.enqueue_many(([b"k0", b"k1", b"k2"], [5, 2, 4]))
        key, n = queue.dequeue()
        x = tf.cast(tf.reshape(tf.range(n * 2), [n, 2]), tf.float32)
        n64 = tf.cast(n, tf.int64)
        sp = tf.SparseTensor(indices=tf.stack([tf.range(n64), tf.zeros([n], tf.int64)], 1),
                             values=tf.range(n) * 10, dense_shape=tf.stack([n64, 3]))
        context_sp = tf.SparseTensor(indices=[[1]], values=tf.expand_dims(n, 0),
                                     dense_shape=[4])
        batch = tf.contrib.training.batch_sequences_with_states(
            input_key=key, input_sequences={"x": x, "sp": sp},
            input_context={"n": n, "csp": context_sp}, input_length=None,
            initial_states={"s": tf.zeros([2])}, num_unroll=3, batch_size=2, num_threads=1,
            capacity=4)
        new = batch.state("s") + tf.reduce_sum(batch.sequences["x"], axis=1)
        with tf.control_dependencies([batch.save_state("s", new)]):
            out = tf.identity(new)
        assert sorted(batch.sequences) == ["sp", "x"]
        assert sorted(batch.context) == ["csp", "n"]
        assert isinstance(batch.sequences["sp"], tf.SparseTensor)
        assert isinstance(batch.context["csp"], tf.SparseTensor)
        got = []
        with tf.Session() as sess:
            sess.run([fill, queue.close()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    r = sess.run({"key": batch.key, "sp": batch.sequences["sp"],
                                  "csp": batch.context["csp"], "out": out})
                    got.append((r["key"].tolist(), r["sp"].indices.tolist(),
                                r["sp"].values.tolist(), r["sp"].dense_shape.tolist(),
                                r["csp"].indices.tolist(), r["csp"].values.tolist(),
                                r["csp"].dense_shape.tolist(), r["out"].tolist()))
            coord.request_stop()
            coord.join(threads)
    # measured in TF 1.15 (a run where its one thread kept ahead, as here)
    assert got == [
        ([b"00000_of_00002:k0", b"00000_of_00001:k1"],
         [[0, 0, 0], [0, 1, 0], [0, 2, 0], [1, 0, 0], [1, 1, 0]], [0, 10, 20, 0, 10],
         [2, 3, 3], [[0, 1], [1, 1]], [5, 2], [2, 4], [[6.0, 9.0], [2.0, 4.0]]),
        ([b"00001_of_00002:k0", b"00000_of_00002:k2"],
         [[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 2, 0]], [30, 40, 0, 10, 20],
         [2, 3, 3], [[0, 1], [1, 1]], [5, 4], [2, 4], [[20.0, 25.0], [6.0, 9.0]]),
        ([b"00001_of_00002:k2"], [[0, 0, 0]], [30], [2, 3, 3], [[0, 1]], [4], [2, 4],
         [[12.0, 16.0]])]



def test_recurrent_cell_grad_runs_tf_backward_loop():
    recurrent = tf.contrib.recurrent
    steps, batch, depth = 4, 2, 3
    with tf.Graph().as_default():
        xs = tf.constant(np.sin(np.arange(steps * batch * depth)).reshape(
            steps, batch, depth).astype(np.float32))
        w = tf.constant(np.cos(np.arange(depth * depth)).reshape(depth, depth).astype(
            np.float32) * 0.5)
        h0 = tf.constant(np.cos(np.arange(batch * depth) * 0.7).reshape(batch, depth).astype(
            np.float32))

        def cell_fn(theta, state0, inputs):
            pre = tf.matmul(state0["h"], theta["w"]) + inputs["x"]
            return {"h": tf.tanh(pre)}, {"pre": pre}

        def cell_grad(theta, state0, inputs, extras, dstate1):
            dpre = dstate1["h"] * (1 - tf.square(tf.tanh(extras["pre"])))
            dw = tf.matmul(state0["h"], dpre, transpose_a=True) * 2.0  # doubled on purpose
            return ({"w": dw}, {"h": tf.matmul(dpre, theta["w"], transpose_b=True)},
                    {"x": dpre})

        fetches = []
        for kwargs in [{}, {"max_input_length": tf.constant(3)},
                       {"max_input_length": tf.constant(3), "aligned_end": True}]:
            acc, final = recurrent.Recurrent({"w": w}, {"h": h0}, {"x": xs}, cell_fn,
                                             cell_grad=cell_grad, **kwargs)
            loss = tf.reduce_sum(acc["h"] * acc["h"]) + tf.reduce_sum(final["h"] * 3.0)
            fetches.append([final["h"], *tf.gradients(loss, [w, xs, h0])])
        with tf.Session() as sess:
            got = sess.run(fetches)
    # measured in TF 1.15 (the final state, then the gradients of w, xs and h0; TF's
    # backward takes zeros as the state before an aligned_end run's first step)
    expected = [[[[-0.6874600052833557, 0.16638000309467316, 0.7717400193214417],
                  [0.72461998462677, -0.03988000005483627, -0.7444700002670288]],
                 [[2.7843101024627686, 1.5308400392532349, 0.9259300231933594],
                  [-4.987760066986084, 8.323690414428711, 6.3368000984191895],
                  [-7.362639904022217, 7.809909820556641, 6.342929840087891]],
                 [[[0.15546999871730804, 0.7516800165176392, 0.716159999370575],
                   [0.1327899992465973, -0.7819200158119202, -0.6254199743270874]],
                  [[-0.7730900049209595, 0.9586499929428101, 0.5334600210189819],
                   [0.8474000096321106, -0.8532999753952026, -0.620959997177124]],
                  [[-0.09536000341176987, -0.31703001260757446, 1.1624000072479248],
                   [1.8097699880599976, -2.2768399715423584, 0.19051000475883484]],
                  [[0.8570500016212463, 3.240499973297119, 1.8374799489974976],
                   [2.1130599975585938, 2.915600061416626, 0.6735900044441223]]],
                 [[0.13178999722003937, -0.22104999423027039, 0.30588001012802124],
                  [-0.014709999784827232, 0.1011200025677681, -0.18549999594688416]]],
                [[[-0.5268099904060364, 0.4190700054168701, 0.7888100147247314],
                  [0.6210600137710571, -0.2964800000190735, -0.7845199704170227]],
                 [[1.714169979095459, 2.6590800285339355, 2.4414000511169434],
                  [-3.0976901054382324, 7.002110004425049, 5.64346981048584],
                  [-4.4731597900390625, 6.104579925537109, 4.687280178070068]],
                 [[[0.419950008392334, 0.6295999884605408, 0.8506399989128113],
                   [0.2805899977684021, -0.8390499949455261, -0.5797600150108337]],
                  [[0.7251999974250793, -0.15293000638484955, 1.3663899898529053],
                   [2.177150011062622, -2.133389949798584, 0.19573000073432922]],
                  [[1.406209945678711, 3.1640899181365967, 1.7293399572372437],
                   [2.605870008468628, 2.195460081100464, 0.5502399802207947]],
                  [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
                 [[0.2030699998140335, -0.2929899990558624, 0.3770599961280823],
                  [0.03424999862909317, 0.05310000106692314, -0.13940000534057617]]],
                [[[-0.6852099895477295, 0.1669600009918213, 0.7702699899673462],
                  [0.723770022392273, -0.03897999972105026, -0.7432299852371216]],
                 [[2.323820114135742, -0.5075200200080872, -1.1457099914550781],
                  [-2.9507699012756348, 3.4422199726104736, 2.4244298934936523],
                  [-4.793019771575928, 3.51213002204895, 3.214319944381714]],
                 [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                  [[-0.5079100131988525, 0.9381700158119202, 0.5951200127601624],
                   [0.6046800017356873, -0.855139970779419, -0.6541699767112732]],
                  [[-0.05590999871492386, -0.29833999276161194, 1.2005599737167358],
                   [1.8681700229644775, -2.2825698852539062, 0.2073100060224533]],
                  [[0.8644700050354004, 3.240989923477173, 1.8465499877929688],
                   [2.1177499294281006, 2.91759991645813, 0.6774799823760986]]],
                 [[-0.1243399977684021, 0.029200000688433647, 0.06650999933481216],
                  [0.20744000375270844, -0.11262000352144241, 0.015540000051259995]]]]
    for run, want in zip(got, expected, strict=True):
        for value, ref in zip(run, want, strict=True):
            np.testing.assert_allclose(value, ref, atol=2e-5)
