"""TF 1.15 parity of input pipelines and estimators as TF 1.x programs write them: each
expected value below is what the same program printed under real TF 1.15."""

import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_division_by_a_constant_is_a_reciprocal_multiplication():
    # TF 1.15's grappler rewrites x / c (c a constant) into x * (1 / c): an image pipeline's
    # `tf.cast(img, tf.float32) / 255.` rounds as the product, in a session and in a dataset
    a = np.arange(256).astype(np.uint8)
    p = tf.placeholder(tf.uint8, [None])
    y = tf.cast(p, tf.float32) / 255.
    z = tf.data.Dataset.from_tensors(a).map(
        lambda v: tf.cast(v, tf.float32) / 255.).make_one_shot_iterator().get_next()
    folded = tf.cast(tf.constant(a), tf.float32) / 255.  # all constant: folded, exact
    d = tf.placeholder(tf.float64, [3])
    e = tf.div(d, tf.constant(3., tf.float64))
    i = tf.placeholder(tf.int32, [3])
    with tf.Session() as s:
        r1, r2, r3, r4, r5 = s.run([y, z, folded, e, tf.div(i, 2)],
                                   {p: a, d: [1., 2., 10.], i: [5, 7, -7]})
    f = a.astype(np.float32)
    np.testing.assert_array_equal(r1, f * (np.float32(1) / np.float32(255)))
    np.testing.assert_array_equal(r2, r1)
    np.testing.assert_array_equal(r3, f / np.float32(255))
    assert (r1 != r3).sum() == 126  # (TF 1.15: 126 of the 256 differ in the last bit)
    # TF 1.15: [0.3333333333333333, 0.6666666666666666, 3.333333333333333]
    assert r4.tolist() == [0.3333333333333333, 0.6666666666666666, 3.333333333333333]
    assert r5.tolist() == [2, 3, -4]  # integer division is left alone


def _exported_signatures(tmp_path, n_classes, vocab):
    x = np.linspace(0., 1., 24, dtype=np.float32).reshape(8, 3)
    y = (x[:, 0] * n_classes).astype(np.int64).clip(0, n_classes - 1)
    if vocab:
        y = np.array(vocab)[y]
    cols = [tf.feature_column.numeric_column("x", shape=[3])]
    est = tf.estimator.DNNClassifier([2], cols, model_dir=str(tmp_path / "m"),
                                     n_classes=n_classes, label_vocabulary=vocab)
    est.train(tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, shuffle=False),
              steps=1)
    path = est.export_saved_model(str(tmp_path / "e"), (
        tf.estimator.export.build_parsing_serving_input_receiver_fn(
            tf.feature_column.make_parse_example_spec(cols))))
    with tf.Graph().as_default() as g, tf.Session() as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], path)
        outs = {k: {a: b.name for a, b in v.outputs.items()}
                for k, v in mg.signature_def.items()}
        head_ops = [o.name for o in g.get_operations() if "/head/" in o.name]
        ex = tf.train.Example(features=tf.train.Features(feature={"x": tf.train.Feature(
            float_list=tf.train.FloatList(value=[0.1, 0.2, 0.3]))})).SerializeToString()
        served = sess.run(outs["serving_default"]["classes"], {"input_example_tensor:0": [ex]})
    return outs, head_ops, served


def test_canned_classifier_serving_tensors_are_tfs(tmp_path):
    # TF 1.15's v1 heads: the served classes are a Tile built beside the predictions, right
    # under the head's scope; class_ids is the ExpandDims of the ArgMax named class_ids
    outs, head_ops, served = _exported_signatures(tmp_path, 2, None)
    assert outs["serving_default"] == {"classes": "dnn/head/Tile:0",
                                       "scores": "dnn/head/predictions/probabilities:0"}
    assert outs["predict"]["class_ids"] == "dnn/head/predictions/ExpandDims:0"
    assert outs["predict"]["all_classes"] == "dnn/head/predictions/Tile_1:0"
    assert served.tolist() == [[b"0", b"1"]]
    assert head_ops[:13] == [  # TF 1.15's op names, in its order
        "dnn/head/predictions/logits/Shape",
        "dnn/head/predictions/logits/assert_rank_at_least/rank",
        ("dnn/head/predictions/logits/assert_rank_at_least/assert_type/"
         "statically_determined_correct_type"),
        "dnn/head/predictions/logits/assert_rank_at_least/static_checks_determined_all_ok",
        "dnn/head/predictions/logistic", "dnn/head/predictions/zeros_like",
        "dnn/head/predictions/two_class_logits/axis", "dnn/head/predictions/two_class_logits",
        "dnn/head/predictions/probabilities", "dnn/head/predictions/class_ids/dimension",
        "dnn/head/predictions/class_ids", "dnn/head/predictions/ExpandDims/dim",
        "dnn/head/predictions/ExpandDims"]
    assert head_ops[-15:] == [
        "dnn/head/Shape", "dnn/head/strided_slice/stack", "dnn/head/strided_slice/stack_1",
        "dnn/head/strided_slice/stack_2", "dnn/head/strided_slice", "dnn/head/range/start",
        "dnn/head/range/limit", "dnn/head/range/delta", "dnn/head/range", "dnn/head/AsString",
        "dnn/head/ExpandDims/dim", "dnn/head/ExpandDims", "dnn/head/Tile/multiples/1",
        "dnn/head/Tile/multiples", "dnn/head/Tile"]


def test_multi_class_head_with_vocabulary_builds_tfs_prediction_ops(tmp_path):
    outs, head_ops, served = _exported_signatures(tmp_path, 3, ["x", "y", "z"])
    assert outs["classification"]["classes"] == "dnn/head/Tile:0"
    assert outs["predict"]["class_ids"] == "dnn/head/predictions/ExpandDims_2:0"
    assert outs["predict"]["classes"] == (
        "dnn/head/predictions/hash_table_Lookup/LookupTableFindV2:0")
    assert served.tolist() == [[b"x", b"y", b"z"]]
    # TF 1.15: the logits check under <head>/logits, then all_class_ids, all_classes,
    # class_ids, the vocabulary lookup (index_to_string's range, then its Cast) and softmax
    assert head_ops == [
        "dnn/head/logits/Shape", "dnn/head/logits/assert_rank_at_least/rank",
        "dnn/head/logits/assert_rank_at_least/assert_type/statically_determined_correct_type",
        "dnn/head/logits/assert_rank_at_least/static_checks_determined_all_ok",
        "dnn/head/predictions/Shape", "dnn/head/predictions/strided_slice/stack",
        "dnn/head/predictions/strided_slice/stack_1",
        "dnn/head/predictions/strided_slice/stack_2", "dnn/head/predictions/strided_slice",
        "dnn/head/predictions/range/start", "dnn/head/predictions/range/limit",
        "dnn/head/predictions/range/delta", "dnn/head/predictions/range",
        "dnn/head/predictions/ExpandDims/dim", "dnn/head/predictions/ExpandDims",
        "dnn/head/predictions/Tile/multiples/1", "dnn/head/predictions/Tile/multiples",
        "dnn/head/predictions/Tile", "dnn/head/predictions/Shape_1",
        "dnn/head/predictions/strided_slice_1/stack",
        "dnn/head/predictions/strided_slice_1/stack_1",
        "dnn/head/predictions/strided_slice_1/stack_2", "dnn/head/predictions/strided_slice_1",
        "dnn/head/predictions/ExpandDims_1/input", "dnn/head/predictions/ExpandDims_1/dim",
        "dnn/head/predictions/ExpandDims_1", "dnn/head/predictions/Tile_1/multiples/1",
        "dnn/head/predictions/Tile_1/multiples", "dnn/head/predictions/Tile_1",
        "dnn/head/predictions/class_ids/dimension", "dnn/head/predictions/class_ids",
        "dnn/head/predictions/ExpandDims_2/dim", "dnn/head/predictions/ExpandDims_2",
        "dnn/head/predictions/class_string_lookup/Const",
        "dnn/head/predictions/class_string_lookup/Size",
        "dnn/head/predictions/class_string_lookup/range/start",
        "dnn/head/predictions/class_string_lookup/range/delta",
        "dnn/head/predictions/class_string_lookup/range",
        "dnn/head/predictions/class_string_lookup/Cast",
        "dnn/head/predictions/class_string_lookup/Const_1",
        "dnn/head/predictions/class_string_lookup/hash_table",
        "dnn/head/predictions/class_string_lookup/table_init/LookupTableImportV2",
        "dnn/head/predictions/hash_table_Lookup/LookupTableFindV2",
        "dnn/head/predictions/probabilities", "dnn/head/Shape", "dnn/head/strided_slice/stack",
        "dnn/head/strided_slice/stack_1", "dnn/head/strided_slice/stack_2",
        "dnn/head/strided_slice", "dnn/head/ExpandDims/input", "dnn/head/ExpandDims/dim",
        "dnn/head/ExpandDims", "dnn/head/Tile/multiples/1", "dnn/head/Tile/multiples",
        "dnn/head/Tile"]


def test_matching_files_walk_from_dot_as_tf(tmp_path, monkeypatch):
    # TF 1.15's GetMatchingPaths: a pattern whose text before the first wildcard names no
    # folder is matched under '.', so the matches read './l0.txt'; '*' matches dot files and
    # never a '/'; a backslash quotes; a folder that cannot be listed is a NotFoundError
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub" / "d2").mkdir(parents=True)
    (tmp_path / "s[1]").mkdir()
    for f in ["l0.txt", "l1.txt", ".dot", "sub/a1.txt", "sub/.hid", "sub/d2/a3.txt",
              "s[1]/q.txt"]:
        (tmp_path / f).write_text("x")
    want = {  # what TF 1.15 printed for each pattern
        "l*.txt": ["./l0.txt", "./l1.txt"], "l0.txt": ["./l0.txt"], ".*": ["./.dot"],
        "sub/*": ["sub/.hid", "sub/a1.txt", "sub/d2"], "sub/[!a]*": ["sub/.hid", "sub/d2"],
        "su*/a1.txt": ["./sub/a1.txt"], "sub\\/a1.txt": ["./sub/a1.txt"],
        "s\\[1\\]/*": ["./s[1]/q.txt"], "sub/d2/../a*.txt": ["sub/d2/../a1.txt"],
        "sub/": [], "sub": ["./sub"], "sub//a1.txt": [], "sub/*/*": ["sub/d2/a3.txt"],
        "": []}
    with tf.Session() as s:
        for pattern, paths in want.items():
            assert tf.gfile.Glob(pattern) == paths, pattern
            assert [p.decode() for p in s.run(tf.matching_files(pattern))] == paths, pattern
        ds = tf.data.Dataset.list_files("l*.txt", shuffle=False)
        assert s.run(ds.batch(5).make_one_shot_iterator().get_next()).tolist() == [
            b"./l0.txt", b"./l1.txt"]
        for pattern in ("nodir/*.txt", "nodir/x.txt"):
            with pytest.raises(tf.errors.NotFoundError, match="^nodir; No such file"):
                s.run(tf.matching_files(pattern))


def test_contrib_estimator_exports_each_mode(tmp_path):
    # TF 1.15 keeps these four in tf.contrib.estimator; a TRAIN export's signature, as printed
    def input_fn():
        return {"x": tf.constant([[1., 2.], [3., 4.]])}, tf.constant([[1.], [0.]])

    def model_fn(features, labels, mode):
        pred = tf.layers.dense(features["x"], 1, name="d")
        if mode == "infer":
            return tf.estimator.EstimatorSpec(mode, predictions={"p": pred})
        loss = tf.losses.mean_squared_error(labels, pred)
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, predictions={"p": pred},
            train_op=tf.train.GradientDescentOptimizer(0.01).minimize(
                loss, tf.train.get_global_step()))

    est = tf.estimator.Estimator(model_fn, str(tmp_path / "m"))
    est.train(input_fn, steps=1)
    sup = tf.contrib.estimator.build_supervised_input_receiver_fn_from_input_fn(input_fn)
    path = tf.contrib.estimator.export_saved_model_for_mode(est, str(tmp_path / "t"), sup,
                                                             mode="train")
    with tf.Graph().as_default(), tf.Session() as s:
        sd = tf.saved_model.loader.load(s, ["train"], path).signature_def["train"]
    assert sd.method_name == "tensorflow/supervised/training"
    assert sorted((k, v.name) for k, v in sd.outputs.items()) == [
        ("loss", "mean_squared_error/value:0"), ("predictions/p", "d/BiasAdd:0")]
    raw = tf.contrib.estimator.build_raw_supervised_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 2])}, tf.placeholder(tf.float32, [None, 1]))
    path = tf.contrib.estimator.export_all_saved_models(est, str(tmp_path / "a"),
                                                        {"eval": raw})
    assert sorted(os.listdir(os.fsdecode(path))) == ["saved_model.pb", "variables"]


def test_canned_label_checks_are_tf_1x_heads(tmp_path):
    # TF 1.15's v1 heads: the labels pass <head>/labels and <head>/assert_range (identities
    # under control dependencies, so a constant label out of range fails when run, in the
    # Assert's words); a wrong static label dimension names the dimension alone
    fc = [tf.feature_column.numeric_column("x")]
    est = tf.estimator.DNNClassifier([2], fc, model_dir=str(tmp_path / "m"))
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        est.train(lambda: ({"x": tf.constant([[1.]])}, tf.constant([[2]])), steps=1)
    assert e.value.message.startswith(
        "assertion failed: [Labels must <= n_classes - 1] [Condition x <= y did not hold "
        "element-wise:] [x (dnn/head/ToFloat:0) = ] [[2]] "
        "[y (dnn/head/assert_range/Const:0) = ] [1]")
    with pytest.raises(ValueError) as e:
        est.train(lambda: ({"x": tf.constant([[1.]])}, tf.constant([[1, 0]])), steps=1)
    assert str(e.value) == (
        "Mismatched label shape. Expected labels dimension=1.  Received 2. Suggested Fix:If "
        "your classifier expects one-hot encoding label,check your n_classes argument to the "
        "estimator and/or the shape of your label. Otherwise, check the shape of your label.")
    with pytest.raises(tf.errors.UnimplementedError, match="Cast string to float"):
        est.train(lambda: ({"x": tf.constant([[1.]])}, tf.constant([["a"]])), steps=1)
    with pytest.raises(ValueError, match=r"^n_classes must be > 2: 1\.$"):
        tf.estimator.DNNClassifier([2], fc, n_classes=1)
    tf.estimator.DNNClassifier([2], fc, label_vocabulary=["a"])  # (TF checks no length)
    with pytest.raises(TypeError, match="should be a list or tuple. Given type: <class 'str'>"):
        tf.estimator.DNNClassifier([2], fc, label_vocabulary="ab")
    with pytest.raises(ValueError, match="should be a list or a tuple. Given type"):
        tf.estimator.DNNClassifier([2], fc, n_classes=3, label_vocabulary="abc")


def test_dataset_function_tensors_have_names_of_their_own():
    # TF 1.15 traces a map function into a graph of its own: its arguments are args_0,
    # args_1, ..., its ops' names start afresh and no outer name scope applies
    seen = []

    def f(x, y):
        z = tf.identity(x + tf.constant(2, tf.int64), name="c")
        seen.append((x.name, y.name, z.name, tf.get_default_graph().get_name_scope()))
        return z

    tf.constant(1, name="c")
    with tf.name_scope("input"):
        d = tf.data.Dataset.range(3).map(lambda x: (x, x)).map(f).map(lambda z: f(z, z))
    assert seen == [("args_0:0", "args_1:0", "c:0", "")] + [("args_0:0", "args_0:0", "c:0", "")]
    assert tf.constant(1, name="c").name == "c_1:0"
    # the error names the function's tensors as TF's does
    bad = tf.data.Dataset.range(3).map(
        lambda x: tf.debugging.assert_less(x, tf.constant(1, tf.int64)) and x)
    with tf.Session() as s:
        assert s.run(d.batch(3).make_one_shot_iterator().get_next()).tolist() == [4, 5, 6]
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            n = bad.make_one_shot_iterator().get_next()
            s.run(n)
            s.run(n)
    # (TF 1.15 heads it with the function's tag, kept for a lambda: "<lambda>" is outside the
    # tag pattern its session drops)
    head, rest = e.value.message.split("}} ", 1)
    assert head.startswith("{{function_node __inference_Dataset_map_<lambda>_")
    assert rest.startswith(
        "assertion failed: [Condition x < y did not hold element-wise:] [x (args_0:0) = ] [1] "
        "[y (Const:0) = ] [1]")


def test_random_ops_of_a_dataset_function_keep_their_own_state():
    # (a function's 'random_uniform' is not the outer graph's: TF 1.15 drew 0.7118 here)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        d = tf.data.Dataset.range(40).map(lambda x: tf.cast(x % 2, tf.int32)).apply(
            tf.data.experimental.rejection_resample(lambda x: x, [0.5, 0.5], seed=7))
        n = d.make_one_shot_iterator().get_next()
        w = tf.random_uniform([])
        assert w.op.name == "random_uniform"  # (TF 1.15's name too: the function's is apart)
        with tf.Session() as sess:
            for _ in range(12):
                sess.run(n)
            assert round(float(sess.run(w)), 5) == 0.7118


def test_map_function_appends_to_an_enclosing_list():
    # an input_fn's parse function recording into a list of the input_fn (TF 1.15's AutoGraph
    # runs it: the list is the closure's, appended in place)
    def input_fn(scale):
        seen = []

        def parse(x):
            y = x * scale
            seen.append(y.name)
            return y

        d = tf.data.Dataset.range(3).map(parse)
        return d, seen

    d, seen = input_fn(2)
    assert seen == ["mul:0"]
    with tf.Session() as s:
        assert s.run(d.batch(3).make_one_shot_iterator().get_next()).tolist() == [0, 2, 4]


def _line_data():
    x = np.linspace(-1, 1, 40, dtype=np.float32).reshape(20, 2)
    return x, (x[:, 0] * 0.3).astype(np.float32)


def _line_model_fn(rate):
    """A linear model of ``x`` trained by gradient descent at ``rate``."""
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer(0.5))
        pred = tf.squeeze(tf.matmul(features["x"], w), 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=(
            tf.train.GradientDescentOptimizer(rate).minimize(loss, tf.train.get_global_step())))

    return model_fn


def test_early_stopping_hook_logs_tfs_words_and_keeps_the_stop_flag(tmp_path):
    # TF 1.15: 'No decrease in metric "loss" for 6 steps, ...'; the chief's hook sets the
    # bool variable signal_early_stopping/STOP, which the checkpoints hold
    import logging

    x, y = _line_data()
    est = tf.estimator.Estimator(_line_model_fn(10.0), str(tmp_path / "m"),
                                 config=tf.estimator.RunConfig(save_checkpoints_steps=3))
    hook = tf.estimator.experimental.stop_if_no_decrease_hook(
        est, "loss", max_steps_without_decrease=4, min_steps=2, run_every_secs=None,
        run_every_steps=3)
    seen = []

    class _Keep(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    logger = logging.getLogger("tensorflow")
    keep, level = _Keep(), logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.INFO)
    try:
        tf.estimator.train_and_evaluate(
            est, tf.estimator.TrainSpec(lambda: tf.data.Dataset.from_tensor_slices(
                ({"x": x}, y)).repeat().batch(5), max_steps=40, hooks=[hook]),
            tf.estimator.EvalSpec(lambda: tf.data.Dataset.from_tensor_slices(
                ({"x": x}, y)).batch(20), throttle_secs=0, start_delay_secs=0))
    finally:
        logger.removeHandler(keep)
        logger.setLevel(level)
    assert ('No decrease in metric "loss" for 6 steps, which is greater than or equal to max '
            "steps (4) configured for early stopping.") in seen
    assert "Requesting early stopping at global step 10" in seen
    assert ["signal_early_stopping/STOP", []] in [
        list(v) for v in tf.train.list_variables(str(tmp_path / "m"))]
    assert est.get_variable_value("signal_early_stopping/STOP")


def test_in_memory_evaluator_counts_the_first_evaluation(tmp_path):
    # TF 1.15 evaluates before training (step 0), then every_n_iter steps after that one
    # (4, 8) and at the end (9): the dicts it logs name those steps
    import logging

    x, y = _line_data()
    est = tf.estimator.Estimator(_line_model_fn(0.1), str(tmp_path / "m"))
    hook = tf.estimator.experimental.InMemoryEvaluatorHook(
        est, lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(10),
        name="mem", every_n_iter=4)
    steps = []

    class _Keep(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith("Saving dict for global step "):
                steps.append(int(record.getMessage().split()[5][:-1]))

    logger = logging.getLogger("tensorflow")
    keep, level = _Keep(), logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.INFO)
    try:
        est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(5),
                  steps=9, hooks=[hook])
    finally:
        logger.removeHandler(keep)
        logger.setLevel(level)
    assert steps == [0, 4, 8, 9]


def test_numpy_input_fn_length_mismatch_without_labels():
    # TF 1.15's message shows 'Shapes in y: None' when no y was given
    fn = tf.estimator.inputs.numpy_input_fn({"a": np.arange(3.), "b": np.arange(4.)},
                                           shuffle=False)
    with pytest.raises(ValueError) as e:
        fn()
    assert str(e.value) == (
        "Length of tensors in x and y is mismatched. All elements in x and y must have the "
        "same length.\nShapes in x: {'a': (3,), 'b': (4,)}\nShapes in y: None\n")
