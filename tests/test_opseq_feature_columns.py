"""Feature columns build TF 1.15's ops: the op count before each random op (so its op seed),
the op names where the ops are the same, and the values a seeded program prints. The literals
are TF 1.15's (its op names, seed2 attributes and printed numbers)."""

import tempfile

import numpy as np
import pytest

import tideflow as tf

fc = tf.feature_column


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g


def _seeds(g):
    return [op.get_attr("seed2") for op in g.get_operations() if "seed2" in op.node_def.attr]


def _round(x):
    return np.round(np.asarray(x, np.float64), 5).tolist()


def _run(*fetches):
    with tf.Session() as s:
        s.run([tf.global_variables_initializer(), tf.tables_initializer()])
        return s.run(list(fetches))


def test_indicator_of_hash_bucket_and_numeric_build_tf_ops(_graph):
    feats = {"inc": tf.constant([[1.], [2.]]), "city": tf.constant([["a"], ["b"]])}
    fc.input_layer(feats, [fc.numeric_column("inc"),
                           fc.indicator_column(fc.categorical_column_with_hash_bucket("city", 5))])
    tf.random_normal([2])
    il, ci = "input_layer/", "input_layer/city_indicator/"
    want = (["Const", "Const_1"]
            + [ci + n for n in (
                "to_sparse_input/ignore_value/x", "to_sparse_input/NotEqual",
                "to_sparse_input/indices", "to_sparse_input/values",
                "to_sparse_input/dense_shape", "lookup", "SparseToDense/default_value",
                "SparseToDense", "one_hot/Const", "one_hot/Const_1", "one_hot/depth",
                "one_hot/on_value", "one_hot/off_value", "one_hot", "Sum/reduction_indices",
                "Sum", "Shape", "strided_slice/stack", "strided_slice/stack_1",
                "strided_slice/stack_2", "strided_slice", "Reshape/shape/1", "Reshape/shape",
                "Reshape")]
            + [il + "inc/" + n for n in (
                "Shape", "strided_slice/stack", "strided_slice/stack_1",
                "strided_slice/stack_2", "strided_slice", "Reshape/shape/1", "Reshape/shape",
                "Reshape")]
            + [il + "concat/axis", il + "concat", "random_normal/shape", "random_normal/mean",
               "random_normal/stddev", "random_normal/RandomStandardNormal",
               "random_normal/mul", "random_normal"])
    assert [op.name for op in _graph.get_operations()] == want
    assert _seeds(_graph) == [39]


def test_bucketized_and_vocabulary_embedding_seeds_and_values(_graph):
    feats = {"age": tf.constant([[20.], [40.], [60.]]),
             "city": tf.constant([["a"], ["b"], ["z"]])}
    out = fc.input_layer(feats, [
        fc.bucketized_column(fc.numeric_column("age"), [30., 50.]),
        fc.embedding_column(fc.categorical_column_with_vocabulary_list("city", ["a", "b", "c"]),
                            2)])
    r = tf.random_normal([2])
    assert _seeds(_graph) == [36, 111]
    names = [op.name for op in _graph.get_operations()]
    for name in ("input_layer/age_bucketized/Cast",
                 "input_layer/city_embedding/city_embedding_weights/SparseReshape/Identity",
                 ("input_layer/city_embedding/city_embedding_weights/SparseFillEmptyRows/"
                  "SparseFillEmptyRows"),
                 "input_layer/city_embedding/city_embedding_weights/embedding_lookup_sparse",
                 "input_layer/city_embedding/city_embedding_weights/Reshape_2"):
        assert name in names
    got, noise = _run(out, r)
    assert _round(got) == [[1.0, 0.0, 0.0, -0.63435, 0.2778],
                           [0.0, 1.0, 0.0, 0.28354, -1.35557], [0.0, 0.0, 1.0, 0.0, 0.0]]
    assert _round(noise) == [-1.45636, -0.01625]


def test_weighted_identity_embedding_with_max_norm(_graph):
    feats = {"id": tf.constant([[1, 2], [3, -1]], dtype=tf.int64),
             "w": tf.constant([[0.5, 1.], [2., 0.]])}
    out = fc.input_layer(feats, [fc.embedding_column(
        fc.weighted_categorical_column(fc.categorical_column_with_identity("id", 5), "w"), 3,
        combiner="sqrtn", max_norm=0.5)])
    r = tf.random_normal([2])
    got, noise = _run(out, r)
    assert _round(got) == [[-0.41613, -0.20218, -0.03102], [0.00104, 0.20897, 0.45423]]
    assert _round(noise) == [0.36217, 1.24851]


def test_identity_embedding_sqrtn_seeds(_graph):
    feats = {"id": tf.constant([[1, 2], [3, -1]], dtype=tf.int64)}
    fc.input_layer(feats, [fc.embedding_column(fc.categorical_column_with_identity("id", 5), 3,
                                               combiner="sqrtn")])
    tf.random_normal([2])
    assert _seeds(_graph) == [48, 123]


@pytest.mark.parametrize("case,seeds", [
    ("cross", [26]),
    ("weighted", [54, 177]),
    ("shared", [49, 232]),
    ("oov_max_norm", [24, 116]),
])
def test_more_columns_give_tf_op_seeds(_graph, case, seeds):
    if case == "cross":
        feats = {"a": tf.constant([["x"], ["y"]]), "b": tf.constant([[1], [2]], tf.int64)}
        fc.input_layer(feats, [fc.indicator_column(fc.crossed_column(["a", "b"], 7))])
    elif case == "weighted":
        feats = {"id": tf.constant([[1, 2], [3, -1]], tf.int64),
                 "w": tf.constant([[0.5, 1.], [2., 0.]])}
        fc.input_layer(feats, [fc.embedding_column(fc.weighted_categorical_column(
            fc.categorical_column_with_identity("id", 5), "w"), 3)])
    elif case == "shared":
        feats = {"a": tf.constant([[1], [2]], tf.int64), "b": tf.constant([[3], [4]], tf.int64)}
        fc.input_layer(feats, fc.shared_embedding_columns(
            [fc.categorical_column_with_identity("a", 5),
             fc.categorical_column_with_identity("b", 5)], 2))
    else:
        feats = {"c": tf.constant([["a"], ["q"]])}
        fc.input_layer(feats, [fc.embedding_column(fc.categorical_column_with_vocabulary_list(
            "c", ["a", "b"], num_oov_buckets=2), 2, combiner="sum", max_norm=1.0)])
    tf.random_normal([2])
    assert _seeds(_graph) == seeds


def test_linear_model_builds_tf_keras_model_ops(_graph):
    feats = {"inc": tf.constant([[1.], [2.]]), "city": tf.constant([["a"], ["b"]])}
    fc.linear_model(feats, [fc.numeric_column("inc"),
                            fc.categorical_column_with_vocabulary_list("city", ["a", "b"])])
    tf.random_normal([2])
    names = [op.name for op in _graph.get_operations()]
    assert len(names) == 117
    assert names[2:4] == ["linear_model/city/weights/Initializer/zeros",
                          "linear_model/city/weights"]
    for name in ("linear_model_1/linear_model/city/to_sparse_input/indices",
                 "linear_model_1/linear_model/city/SparseReshape",
                 "linear_model_1/linear_model/city/weighted_sum/Reshape_2",
                 "linear_model_1/linear_model/inc/weighted_sum",
                 "linear_model_1/linear_model/weighted_sum_no_bias",
                 "linear_model/bias_weights", "linear_model_1/linear_model/weighted_sum"):
        assert name in names
    assert _seeds(_graph) == [114]


def test_linear_model_bucketized_and_cross_values(_graph):
    feats = {"age": tf.constant([[20.], [40.]]), "c": tf.constant([[1], [3]], tf.int64)}
    out = fc.linear_model(feats, [
        fc.bucketized_column(fc.numeric_column("age"), [30.]),
        fc.crossed_column([fc.categorical_column_with_identity("c", 4), "c"], 5)],
        units=2, sparse_combiner="mean")
    r = tf.random_normal([2])
    assert _seeds(_graph) == [233]
    got, noise = _run(out, r)
    assert _round(got) == [[0.0, 0.0], [0.0, 0.0]]
    assert _round(noise) == [2.344, -0.11385]


def _input_fn(shuffle):
    rng = np.random.RandomState(0)
    n = 120
    age = rng.randint(18, 70, n).astype(np.float32)
    inc = rng.rand(n).astype(np.float32) * 100
    city = rng.choice(["a", "b", "c", "d"], n)
    y = ((age > 40) ^ (city == "b")).astype(np.int64)

    def fn():
        ds = tf.data.Dataset.from_tensor_slices(({"age": age, "inc": inc, "city": city}, y))
        if shuffle:
            ds = ds.shuffle(100, seed=1).repeat()
        return ds.batch(16)
    return fn


def _columns():
    return [fc.bucketized_column(fc.numeric_column("age"), [25, 35, 45, 55]),
            fc.numeric_column("inc", normalizer_fn=lambda x: x / 100.0),
            fc.embedding_column(fc.categorical_column_with_vocabulary_list(
                "city", ["a", "b", "c", "d"]), 3),
            fc.indicator_column(fc.categorical_column_with_hash_bucket("city", 5))]


def test_dnn_classifier_input_layer_makes_tables_first(_graph):
    est = tf.estimator.DNNClassifier([8, 4], _columns(), model_dir=tempfile.mkdtemp(),
                                     config=tf.estimator.RunConfig(tf_random_seed=3))
    tf.train.get_or_create_global_step()
    feats = {"age": tf.constant([20., 40.]), "inc": tf.constant([1., 2.]),
             "city": tf.constant(["a", "b"])}
    est.model_fn(feats, tf.constant([[0], [1]], tf.int64), tf.estimator.ModeKeys.PREDICT,
                 est.config)
    assert _seeds(_graph) == [11, 158, 211, 264]
    names = [op.name for op in _graph.get_operations()]
    il = "dnn/input_from_feature_columns/input_layer/"
    assert names.index(il + "city_embedding/embedding_weights/part_0") < names.index(
        il + "age_bucketized/ExpandDims")
    assert il + "city_embedding/city_embedding_weights/Reshape_2" in names
    assert il + "inc/truediv" in names


def test_seeded_dnn_classifier_prints_tf_numbers():
    est = tf.estimator.DNNClassifier([8, 4], _columns(), model_dir=tempfile.mkdtemp(),
                                     config=tf.estimator.RunConfig(tf_random_seed=3),
                                     optimizer=tf.train.AdamOptimizer(0.01))
    est.train(_input_fn(True), steps=30)
    r = est.evaluate(_input_fn(False))
    got = {k: round(float(v), 5) for k, v in sorted(r.items())}
    assert got == {"accuracy": 0.775, "accuracy_baseline": 0.55, "auc": 0.80191,
                   "auc_precision_recall": 0.79742, "average_loss": 0.58072,
                   "global_step": 30.0, "label/mean": 0.55, "loss": 8.71085,
                   "precision": 0.72941, "prediction/mean": 0.48001, "recall": 0.93939}
    probs = [round(float(p["probabilities"][1]), 5)
             for p in list(est.predict(_input_fn(False)))[:5]]
    assert probs == [0.59083, 0.58737, 0.57266, 0.57331, 0.48322]


def test_sequence_input_layer_seeds_and_values(_graph):
    sfc = tf.contrib.feature_column
    tok = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 2, 0], tf.int64), [3, 2])
    num = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]],
                          tf.constant([1., 2., 3., 4., 5., 6.]), [3, 4])
    cols = [fc.embedding_column(sfc.sequence_categorical_column_with_identity("tok", 4), 3),
            fc.indicator_column(sfc.sequence_categorical_column_with_identity("tok2", 4)),
            sfc.sequence_numeric_column("num", shape=(2,))]
    out, length = sfc.sequence_input_layer({"tok": tok, "tok2": tok, "num": num}, cols)
    r = tf.random_normal([2])
    assert _seeds(_graph) == [256, 412]
    got, lengths, noise = _run(out, length, r)
    zero = [0.0] * 9
    assert _round(got) == [
        [[1.0, 2.0, 0.0, 1.0, 0.0, 0.0, 0.43161, -0.19223, -0.71308],
         [3.0, 4.0, 0.0, 0.0, 1.0, 0.0, -0.11162, 0.01251, 1.13936]],
        [[5.0, 6.0, 1.0, 0.0, 0.0, 0.0, 0.41968, -0.01731, 0.25605], zero],
        [zero, zero]]
    assert lengths.tolist() == [2, 1, 0]
    assert _round(noise) == [-1.15938, 0.85584]


def test_one_sequence_embedding_column_seeds(_graph):
    sfc = tf.contrib.feature_column
    sp = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 2, 0], tf.int64), [2, 2])
    col = fc.embedding_column(sfc.sequence_categorical_column_with_identity("tok", 4), 3)
    sfc.sequence_input_layer({"tok": sp}, [col])
    tf.random_normal([2])
    assert _seeds(_graph) == [63, 176]


def test_weighted_indicator_merges_weights(_graph):
    feats = {"id": tf.constant([[1, 2], [3, -1]], tf.int64),
             "w": tf.constant([[0.5, 1.], [2., 0.]])}
    out = fc.input_layer(feats, [fc.indicator_column(fc.weighted_categorical_column(
        fc.categorical_column_with_identity("id", 5, default_value=0), "w"))])
    tf.random_normal([2])
    assert _seeds(_graph) == [60]
    assert out.shape.as_list() == [2, 5]
    assert _round(_run(out)[0]) == [[0.0, 0.5, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0, 0.0]]


def test_dnn_linear_combined_and_dnn_regressor_print_tf_numbers():
    rng = np.random.RandomState(0)
    n = 120
    age = rng.randint(18, 70, n).astype(np.float32)
    inc = rng.rand(n).astype(np.float32) * 100
    city = rng.choice(["a", "b", "c", "d"], n)
    ids = rng.randint(0, 6, n).astype(np.int64)
    y = ((age > 40) ^ (city == "b")).astype(np.int64)

    def input_fn(shuffle, label=y):
        def fn():
            ds = tf.data.Dataset.from_tensor_slices(
                ({"age": age, "inc": inc, "city": city, "id": ids}, label))
            if shuffle:
                ds = ds.shuffle(100, seed=1).repeat()
            return ds.batch(16)
        return fn

    city_v = fc.categorical_column_with_vocabulary_list("city", ["a", "b", "c", "d"])
    idc = fc.categorical_column_with_identity("id", 6)
    dnn_cols = [fc.bucketized_column(fc.numeric_column("age"), [25, 35, 45, 55]),
                fc.embedding_column(city_v, 3), fc.embedding_column(idc, 2, combiner="sqrtn")]
    lin_cols = [fc.numeric_column("inc", normalizer_fn=lambda x: x / 100.0), city_v,
                fc.crossed_column(["city", idc], 7)]
    cfg = tf.estimator.RunConfig(tf_random_seed=3)
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=lin_cols, dnn_feature_columns=dnn_cols, dnn_hidden_units=[6],
        model_dir=tempfile.mkdtemp(), config=cfg)
    est.train(input_fn(True), steps=20)
    got = {k: round(float(v), 5) for k, v in sorted(est.evaluate(input_fn(False)).items())}
    assert got == {"accuracy": 0.5, "accuracy_baseline": 0.55, "auc": 0.6525,
                   "auc_precision_recall": 0.71695, "average_loss": 0.72571,
                   "global_step": 20.0, "label/mean": 0.55, "loss": 10.88569, "precision": 1.0,
                   "prediction/mean": 0.36846, "recall": 0.09091}
    reg = tf.estimator.DNNRegressor([5], dnn_cols + [fc.indicator_column(idc)],
                                    model_dir=tempfile.mkdtemp(), config=cfg)
    reg.train(input_fn(True, inc / 10), steps=20)
    got = {k: round(float(v), 5) for k, v in sorted(reg.evaluate(input_fn(False, inc / 10)).items())}
    # (TF 1.15 prints 205.8020782470703, its graph optimizer's constant push-down adding the
    # loss in another order; with Grappler off it is 205.80209350585938)
    assert got == {"average_loss": 13.72014, "global_step": 20.0, "label/mean": 5.0917,
                   "loss": 205.80208, "prediction/mean": 3.02254}


def test_dnn_over_shared_embeddings_builds_the_v1_input_layer(_graph):
    # shared embedding columns are v1 columns in TF 1.15: a ref-variable table made with the
    # transforms, so the hidden layers' kernels get TF's op seeds
    a = fc.categorical_column_with_identity("a", 5)
    b = fc.categorical_column_with_identity("b", 5)
    cols = fc.shared_embedding_columns([a, b], 2) + [fc.numeric_column("x")]
    est = tf.estimator.DNNClassifier([4], cols, model_dir=tempfile.mkdtemp(),
                                     config=tf.estimator.RunConfig(tf_random_seed=3))
    tf.train.get_or_create_global_step()
    feats = {"a": tf.constant([1, 2], tf.int64), "b": tf.constant([3, 4], tf.int64),
             "x": tf.constant([1., 2.])}
    est.model_fn(feats, tf.constant([[0], [1]], tf.int64), tf.estimator.ModeKeys.PREDICT,
                 est.config)
    assert _seeds(_graph) == [57, 252, 305]
    names = [op.name for op in _graph.get_operations()]
    assert ("dnn/input_from_feature_columns/input_layer/a_b_shared_embedding/"
            "embedding_weights/part_0/read") in names


def test_dnn_regressor_with_dropout_seeds(_graph):
    cols = [fc.embedding_column(fc.categorical_column_with_hash_bucket("s", 9), 2),
            fc.embedding_column(fc.categorical_column_with_identity("a", 5), 3, combiner="sum"),
            fc.numeric_column("x", shape=(2,))]
    est = tf.estimator.DNNRegressor([4, 3], cols, model_dir=tempfile.mkdtemp(),
                                    config=tf.estimator.RunConfig(tf_random_seed=3),
                                    dropout=0.2)
    tf.train.get_or_create_global_step()
    feats = {"a": tf.constant([[1], [2]], tf.int64), "s": tf.constant([["p"], ["q"]]),
             "x": tf.constant([[1., 2.], [3., 4.]])}
    est.model_fn(feats, tf.constant([[0.], [1.]]), tf.estimator.ModeKeys.TRAIN, est.config)
    assert _seeds(_graph) == [11, 21, 219, 243, 288, 312, 357]


def test_columns_repr_as_tf_v2_columns():
    ident = fc.categorical_column_with_identity("i", 3)
    assert repr(fc.indicator_column(ident)) == (
        "IndicatorColumn(categorical_column=IdentityCategoricalColumn(key='i', "
        "number_buckets=3, default_value=None))")
    assert repr(fc.bucketized_column(fc.numeric_column("x"), [1.])) == (
        "BucketizedColumn(source_column=NumericColumn(key='x', shape=(1,), "
        "default_value=None, dtype=tf.float32, normalizer_fn=None), boundaries=(1.0,))")
    assert repr(fc.categorical_column_with_vocabulary_list("v", ["a"])) == (
        "VocabularyListCategoricalColumn(key='v', vocabulary_list=('a',), dtype=tf.string, "
        "default_value=-1, num_oov_buckets=0)")
    assert repr(fc.crossed_column(["a", "b"], 3)) == (
        "CrossedColumn(keys=('a', 'b'), hash_bucket_size=3, hash_key=None)")


def test_vocabulary_table_names_as_tf(_graph):
    table = tf.contrib.lookup.index_table_from_tensor(["a", "b", "c"], name="city_lookup")
    got = table.lookup(tf.constant(["a", "q"]))
    size = table.size()
    names = [op.name for op in _graph.get_operations()]
    assert names[:10] == ["city_lookup/Const", "city_lookup/Size", "city_lookup/range/start",
                          "city_lookup/range/delta", "city_lookup/range", "city_lookup/Cast",
                          "city_lookup/hash_table/Const", "city_lookup/hash_table/hash_table",
                          names[8], "Const"]
    assert names[8].startswith("city_lookup/hash_table/table_init/")
    assert got.name == "hash_table_Lookup/LookupTableFindV2:0"
    assert size.name == "hash_table_Size/LookupTableSizeV2:0"
    with pytest.raises(ValueError, match="Expected non-integer, got <dtype: 'int64'>"):
        tf.contrib.lookup.index_table_from_tensor(tf.constant([3, 4], tf.int64))


def test_vocabulary_file_column_builds_tf_ops(_graph, tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("a\nb\nc\n")
    feats = {"c": tf.constant([["a"], ["q"]])}
    fc.input_layer(feats, [fc.embedding_column(
        fc.categorical_column_with_vocabulary_file("c", str(path), 3), 2)])
    tf.random_normal([2])
    names = [op.name for op in _graph.get_operations()]
    lk = "input_layer/c_embedding/c_lookup/hash_table/"
    assert names[6:10] == [lk + "asset_path", lk + "Const", lk + "hash_table",
                           lk + "table_init/InitializeTableFromTextFileV2"]
    assert len(names) == 92
    assert _seeds(_graph) == [14, 89]


def test_sparse_helpers_build_tf_ops(_graph):
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1., 2.], [2, 3])
    tf.sparse_tensor_to_dense(tf.sparse_reshape(sp, [3, -1]))
    tf.sparse_to_dense([[0], [2]], [4], [1., 2.])
    names = [(op.name, op.type) for op in _graph.get_operations()][3:]
    assert names == [
        ("Cast/x", "Const"), ("Cast", "Cast"), ("SparseReshape", "SparseReshape"),
        ("SparseReshape/Const", "Const"), ("SparseReshape/Identity", "Identity"),
        ("zeros", "Const"), ("SparseToDense", "SparseToDense"),
        ("SparseToDense_1/sparse_indices", "Const"), ("SparseToDense_1/output_shape", "Const"),
        ("SparseToDense_1/sparse_values", "Const"), ("SparseToDense_1/default_value", "Const"),
        ("SparseToDense_1", "SparseToDense")]
