"""``tf.feature_column``: each column's dense output against a NumPy computation, the
input_layer order and variables, linear_model, parse specs, and the argument errors."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops.string_hash_ops import fingerprint64

fc = tf.feature_column


def run(tensors, init=True):
    with tf.Session() as sess:
        if init:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        return sess.run(tensors)


def test_numeric_column_normalizer_shape_and_dtype():
    with tf.Graph().as_default():
        col = fc.numeric_column("x", shape=(2,), normalizer_fn=lambda t: (t - 3.0) / 2.0)
        assert col.shape == (2,) and col.dtype == tf.float32 and col.name == "x"
        raw = np.array([[1, 5], [3, 9]], np.float32)
        got = run(fc.input_layer({"x": raw}, [col]))
        np.testing.assert_allclose(got, (raw - 3.0) / 2.0)
        # rank-1 features become [batch, 1]; matrices of shape (2, 2) flatten to 4 values
        grid = fc.numeric_column("g", shape=(2, 2))
        out = fc.input_layer({"s": np.array([1.5, 2.5]), "g": np.arange(8).reshape(2, 2, 2)},
                             [fc.numeric_column("s"), grid])
        np.testing.assert_allclose(run(out), np.hstack([np.arange(8).reshape(2, 4),
                                                        [[1.5], [2.5]]]))
        assert fc.numeric_column("d", default_value=2.0).default_value == (2.0,)


def test_bucketized_column_boundaries():
    with tf.Graph().as_default():
        boundaries = [0.0, 10.0, 100.0]
        col = fc.bucketized_column(fc.numeric_column("v"), boundaries)
        values = np.array([-5.0, 0.0, 9.99, 10.0, 100.0, 1e6], np.float32)
        got = run(fc.input_layer({"v": values}, [col]))
        expected = np.eye(4)[np.searchsorted(boundaries, values, side="right")]
        np.testing.assert_array_equal(got, expected)
        assert col.name == "v_bucketized" and col.num_buckets == 4
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("v"), [1.0, 0.0])
    with pytest.raises(ValueError, match="source_column must be a column generated with"):
        fc.bucketized_column(fc.categorical_column_with_identity("i", 3), [1.0])


def test_vocabulary_list_oov_default_and_buckets():
    vocab = ["red", "green", "blue"]
    words = np.array([["green"], ["black"], ["red"], ["white"]])
    with tf.Graph().as_default():
        default = fc.indicator_column(fc.categorical_column_with_vocabulary_list("w", vocab))
        oov = fc.categorical_column_with_vocabulary_list("w2", vocab, num_oov_buckets=2)
        got_default, got_oov = run([fc.input_layer({"w": words}, [default]),
                                    fc.input_layer({"w2": words}, [fc.indicator_column(oov)])])
    ids = [vocab.index(w) if w in vocab else -1 for w in words[:, 0]]
    np.testing.assert_array_equal(got_default,
                                  [np.eye(3)[i] if i >= 0 else np.zeros(3) for i in ids])
    oov_ids = [vocab.index(w) if w in vocab else 3 + fingerprint64(w.encode()) % 2
               for w in words[:, 0]]
    np.testing.assert_array_equal(got_oov, np.eye(5)[oov_ids])
    assert oov.num_buckets == 5

    # integer vocabularies, and the ignored -1 of dense integer input
    with tf.Graph().as_default():
        col = fc.indicator_column(fc.categorical_column_with_vocabulary_list(
            "n", [10, 20, 30], default_value=0))
        got = run(fc.input_layer({"n": np.array([[30, -1], [25, 10]])}, [col]))
    np.testing.assert_array_equal(got, [[0, 0, 1], [2, 0, 0]])


def test_vocabulary_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("apple\nbanana\ncherry\n")
    col = fc.categorical_column_with_vocabulary_file("f", str(path), num_oov_buckets=1)
    assert col.vocabulary_size == 3 and col.num_buckets == 4
    with tf.Graph().as_default():
        got = run(fc.input_layer({"f": np.array([["cherry"], ["kiwi"], ["apple"]])},
                                 [fc.indicator_column(col)]))
    np.testing.assert_array_equal(got, np.eye(4)[[2, 3, 0]])


def test_identity_column_default_and_out_of_range():
    with tf.Graph().as_default():
        col = fc.categorical_column_with_identity("i", 4, default_value=0)
        got = run(fc.input_layer({"i": np.array([[3], [7], [1]])}, [fc.indicator_column(col)]))
        np.testing.assert_array_equal(got, np.eye(4)[[3, 0, 1]])
        strict = fc.categorical_column_with_identity("j", 4)
        out = fc.input_layer({"j": np.array([[3], [4]])}, [fc.indicator_column(strict)])
        with pytest.raises(tf.errors.InvalidArgumentError, match="exceeds number of buckets"):
            run(out)


def test_hash_bucket_matches_string_to_hash_bucket_fast():
    words = np.array([["a"], ["hello"], ["tideflow"], ["a"]])
    with tf.Graph().as_default():
        col = fc.categorical_column_with_hash_bucket("h", 10)
        int_col = fc.categorical_column_with_hash_bucket("k", 7, dtype=tf.int64)
        got, got_int, ref = run([
            fc.input_layer({"h": words}, [fc.indicator_column(col)]),
            fc.input_layer({"k": np.array([[12], [345]])}, [fc.indicator_column(int_col)]),
            tf.string_to_hash_bucket_fast(words[:, 0], 10)])
    np.testing.assert_array_equal(got, np.eye(10)[ref])
    np.testing.assert_array_equal(got.argmax(1), [fingerprint64(w.encode()) % 10
                                                  for w in words[:, 0]])
    np.testing.assert_array_equal(got_int.argmax(1), [fingerprint64(b"12") % 7,
                                                      fingerprint64(b"345") % 7])


def test_indicator_multi_hot_from_sparse_and_weighted():
    sp = tf.SparseTensorValue(indices=[[0, 0], [0, 1], [0, 2], [2, 0]],
                              values=np.array(["b", "a", "b", "c"]), dense_shape=[3, 3])
    with tf.Graph().as_default():
        cat = fc.categorical_column_with_vocabulary_list("t", ["a", "b", "c"])
        weighted = fc.weighted_categorical_column(cat, "tw")
        wsp = tf.SparseTensorValue(indices=sp.indices, values=np.array([0.5, 2.0, 1.0, 3.0],
                                                                       np.float32),
                                   dense_shape=sp.dense_shape)
        multi, wmulti = run([fc.input_layer({"t": sp}, [fc.indicator_column(cat)]),
                             fc.input_layer({"t": sp, "tw": wsp},
                                            [fc.indicator_column(weighted)])])
    np.testing.assert_array_equal(multi, [[1, 2, 0], [0, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(wmulti, [[2.0, 1.5, 0], [0, 0, 0], [0, 0, 3.0]])


@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
def test_embedding_combiners(combiner):
    sp = tf.SparseTensorValue(indices=[[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1]],
                              values=np.array(["w1", "w3", "w3", "w0", "w2", "oov"]),
                              dense_shape=[4, 3])
    with tf.Graph().as_default():
        cat = fc.categorical_column_with_vocabulary_list("e", ["w0", "w1", "w2", "w3"])
        col = fc.embedding_column(cat, 3, combiner=combiner)
        out = fc.input_layer({"e": sp}, [col])
        (var,) = tf.global_variables()
        assert var.op.name == "input_layer/e_embedding/embedding_weights"
        assert var.shape.as_list() == [4, 3]
        got, table = run([out, var])
    rows = [[1, 3, 3], [], [0], [2]]  # the out-of-vocabulary id -1 is left out, as in TF
    expected = np.zeros((4, 3))
    for r, ids in enumerate(rows):
        if ids:
            s = table[ids].sum(0)
            expected[r] = {"sum": s, "mean": s / len(ids), "sqrtn": s / np.sqrt(len(ids))}[
                combiner]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_embedding_initializer_is_truncated_normal_of_inverse_sqrt_dimension():
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        col = fc.embedding_column(fc.categorical_column_with_identity("e", 2000), 16)
        fc.input_layer({"e": np.array([[0]])}, [col])
        table = run(tf.global_variables()[0])
    bound = 2.0 / np.sqrt(16)
    assert np.abs(table).max() <= bound + 1e-6
    # a normal truncated at two standard deviations has 0.88 of the standard deviation
    np.testing.assert_allclose(table.std(), 0.88 / np.sqrt(16), rtol=0.05)


def test_input_layer_orders_columns_by_name_and_checks_them():
    with tf.Graph().as_default():
        features = {"b": np.array([[1.0]]), "a": np.array([[2.0, 3.0]]),
                    "c": np.array([["x"]])}
        cols = [fc.numeric_column("b"), fc.numeric_column("a", shape=2),
                fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["x"]))]
        out = fc.input_layer(features, cols)
        assert out.shape.as_list() == [1, 4]
        np.testing.assert_array_equal(run(out), [[2.0, 3.0, 1.0, 1.0]])
        with pytest.raises(ValueError, match="must be a _DenseColumn"):
            fc.input_layer(features, [fc.categorical_column_with_identity("b", 2)])
        with pytest.raises(ValueError, match="Duplicate feature column name"):
            fc.input_layer(features, [fc.numeric_column("b"), fc.numeric_column("b")])
        with pytest.raises(ValueError, match="Feature missing is not in features dictionary"):
            fc.input_layer(features, [fc.numeric_column("missing")])


def test_linear_model_weighted_sums_and_variables():
    with tf.Graph().as_default():
        cat = fc.categorical_column_with_vocabulary_list("c", ["p", "q", "r"])
        cols = [fc.numeric_column("x", shape=2), cat]
        features = {"x": np.array([[1.0, 2.0], [3.0, -1.0]], np.float32),
                    "c": tf.SparseTensorValue(indices=[[0, 0], [0, 1], [1, 0]],
                                              values=np.array(["p", "r", "q"]),
                                              dense_shape=[2, 2])}
        cols_to_vars = {}
        out = fc.linear_model(features, cols, units=2, cols_to_vars=cols_to_vars)
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["linear_model/bias_weights", "linear_model/c/weights",
                         "linear_model/x/weights"]
        wx = np.array([[0.5, -1.0], [2.0, 0.0]], np.float32)
        wc = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
        bias = np.array([0.25, -0.5], np.float32)
        assigns = [tf.assign(cols_to_vars[cols[0]][0], wx),
                   tf.assign(cols_to_vars[cat][0], wc), tf.assign(cols_to_vars["bias"][0], bias)]
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            assert not sess.run(out).any()  # all weights start at zero
            sess.run(assigns)
            got = sess.run(out)
    expected = features["x"] @ wx + np.stack([wc[0] + wc[2], wc[1]]) + bias
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_make_parse_example_spec_and_parsed_input():
    cat = fc.categorical_column_with_vocabulary_list("kind", ["cat", "dog"])
    cols = [fc.numeric_column("age", default_value=-1.0),
            fc.indicator_column(cat), fc.embedding_column(cat, 2)]
    spec = fc.make_parse_example_spec(cols)
    assert spec == {"age": tf.FixedLenFeature((1,), tf.float32, default_value=(-1.0,)),
                    "kind": tf.VarLenFeature(tf.string)}
    with pytest.raises(ValueError, match="different parse_spec for key age"):
        fc.make_parse_example_spec([fc.numeric_column("age"),
                                    fc.numeric_column("age", shape=2)])
    ex = tf.train.Example(features=tf.train.Features(feature={
        "kind": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"dog", b"dog"]))}))
    with tf.Graph().as_default():
        parsed = tf.parse_example([ex.SerializeToString()], spec)
        got = run(fc.input_layer(parsed, cols[:2]))
    np.testing.assert_array_equal(got, [[-1.0, 0.0, 2.0]])


def test_column_argument_errors():
    with pytest.raises(ValueError, match="must be non-empty"):
        fc.categorical_column_with_vocabulary_list("a", [])
    with pytest.raises(ValueError, match="Duplicate keys in vocabulary_list"):
        fc.categorical_column_with_vocabulary_list("a", ["x", "x"])
    with pytest.raises(ValueError, match="Can't specify both"):
        fc.categorical_column_with_vocabulary_list("a", ["x"], default_value=0,
                                                   num_oov_buckets=1)
    with pytest.raises(ValueError, match="hash_bucket_size must be at least 1"):
        fc.categorical_column_with_hash_bucket("a", 0)
    with pytest.raises(ValueError, match="Invalid dimension"):
        fc.embedding_column(fc.categorical_column_with_identity("a", 3), 0)
    with pytest.raises(ValueError, match="key must be a string"):
        fc.numeric_column(3)
    with pytest.raises(TypeError, match="normalizer_fn must be a callable"):
        fc.numeric_column("a", normalizer_fn=1)


def test_sparse_cross_hashed_matches_tf_fingerprints():
    from tideflow.feature_column.sparse_cross import (
        DEFAULT_HASH_KEY,
        sparse_cross,
        sparse_cross_hashed,
    )

    # the values TF's own sparse_cross_op tests pin down
    with tf.Graph().as_default():
        inputs = [tf.SparseTensor([[0, 0]], [v], [1, 1])
                  for v in ("batch1-FC1-F1", "batch1-FC2-F1", "batch1-FC3-F1")]
        got = run([sparse_cross_hashed(inputs).values,
                   sparse_cross_hashed(inputs, 100).values,
                   sparse_cross_hashed(inputs, 100, DEFAULT_HASH_KEY + 1).values,
                   sparse_cross_hashed(inputs, 0, DEFAULT_HASH_KEY + 1).values], init=False)
        assert [int(g[0]) for g in got] == [1971693436396284976, 83, 31, 4847552627144134031]
        # the string form shows the order of the crosses: the last input varies fastest
        strings = run(sparse_cross([tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2]),
                                    tf.constant([[1, 2]], tf.int64)]), init=False)
    assert list(strings.values) == [b"a_X_1", b"a_X_2", b"b_X_1", b"b_X_2"]
    np.testing.assert_array_equal(strings.indices, [[0, 0], [0, 1], [0, 2], [0, 3]])


def test_crossed_column_of_a_feature_and_a_bucketized_column():
    from tideflow.feature_column.sparse_cross import sparse_cross_hashed

    age = fc.bucketized_column(fc.numeric_column("age"), [18.0, 65.0])
    crossed = fc.crossed_column([age, "city"], hash_bucket_size=50)
    assert crossed.name == "age_bucketized_X_city" and crossed.num_buckets == 50
    assert set(crossed._parse_example_spec) == {"age", "city"}
    features = {"age": np.array([[10.0], [40.0], [70.0]], np.float32),
                "city": np.array([["paris"], ["rome"], ["oslo"]])}
    with tf.Graph().as_default():
        got = run(fc.input_layer(features, [fc.indicator_column(crossed)]))
        ref = run(sparse_cross_hashed([tf.constant([[0], [1], [2]], tf.int64),
                                       tf.constant(features["city"])], 50).values)
    np.testing.assert_array_equal(got, np.eye(50)[ref])
    with pytest.raises(ValueError, match="not supported for crossing"):
        fc.crossed_column([fc.categorical_column_with_hash_bucket("c", 4), "d"], 10)
    with pytest.raises(ValueError, match="keys must be a list with length > 1"):
        fc.crossed_column(["a"], 10)


def test_shared_embedding_columns_use_one_table():
    a = fc.categorical_column_with_identity("a", 5)
    b = fc.categorical_column_with_identity("b", 5)
    ea, eb = fc.shared_embedding_columns([a, b], 3, combiner="sum")
    assert ea.name == "a_shared_embedding" and eb.name == "b_shared_embedding"
    with tf.Graph().as_default():
        out = fc.input_layer({"a": np.array([[1], [4]]), "b": np.array([[2], [1]])}, [eb, ea])
        (table_var,) = tf.global_variables()
        assert table_var.op.name == "input_layer/a_b_shared_embedding/embedding_weights"
        got, table = run([out, table_var])
    np.testing.assert_allclose(got, np.hstack([table[[1, 4]], table[[2, 1]]]), rtol=1e-6)
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([a, fc.categorical_column_with_identity("c", 6)], 2)


def test_sequence_columns_give_steps_and_lengths():
    from tideflow.feature_column.sequence_feature_column import sequence_input_layer

    tok = fc.sequence_categorical_column_with_vocabulary_list("tok", ["a", "b", "c"])
    ids = fc.sequence_categorical_column_with_identity("ids", 4)
    num = fc.sequence_numeric_column("v", shape=2)
    words = [["a", "c", "b"], ["b"], []]
    numbers = [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0], []]
    ints = [[3, 0], [1], [2]]

    def sparse(rows, dtype):
        idx = [[r, c] for r, row in enumerate(rows) for c in range(len(row))]
        vals = np.array([v for row in rows for v in row], dtype=dtype)
        return tf.SparseTensorValue(np.array(idx, np.int64).reshape(-1, 2), vals,
                                    [len(rows), max(len(r) for r in rows)])

    features = {"tok": sparse(words, object), "v": sparse(numbers, np.float32),
                "ids": sparse(ints, np.int64)}
    with tf.Graph().as_default():
        out, length = sequence_input_layer(
            {"tok": features["tok"], "v": features["v"]},
            [fc.embedding_column(tok, 2, combiner="sum"), fc.indicator_column(tok), num])
        (table_var,) = tf.global_variables()
        assert table_var.op.name == "sequence_input_layer/tok_embedding/embedding_weights"
        id_out, id_length = sequence_input_layer({"ids": features["ids"]},
                                                 [fc.indicator_column(ids)])
        got, lengths, table, got_ids, lengths_ids = run([out, length, table_var, id_out,
                                                         id_length])
    assert got.shape == (3, 3, 2 + 3 + 2)
    np.testing.assert_array_equal(lengths, [3, 1, 0])
    np.testing.assert_array_equal(lengths_ids, [2, 1, 1])
    for b, row in enumerate(words):
        for t in range(3):
            token = row[t] if t < len(row) else None
            k = "abc".index(token) if token else None
            np.testing.assert_allclose(got[b, t, :2], table[k] if token else 0.0, rtol=1e-6)
            np.testing.assert_array_equal(got[b, t, 2:5], np.eye(3)[k] if token else 0.0)
            pair = numbers[b][2 * t:2 * t + 2] if token else [0.0, 0.0]
            np.testing.assert_array_equal(got[b, t, 5:], pair)
    np.testing.assert_array_equal(got_ids[0], np.eye(4)[[3, 0]])
    with pytest.raises(ValueError, match="must be a SparseTensor"), tf.Graph().as_default():
        sequence_input_layer({"v": np.zeros((2, 3), np.float32)}, [num])
    # columns whose lengths disagree: a ValueError while building when the static shapes
    # show it (as TF's concat shape check), an InvalidArgumentError when run otherwise
    short = sparse([[1.0, 2.0], [7.0, 8.0], []], np.float32)  # one step in row 0
    with tf.Graph().as_default(), pytest.raises(ValueError, match="must be equal"):
        sequence_input_layer({"tok": features["tok"], "v": short},
                             [fc.indicator_column(tok), num])
    with tf.Graph().as_default():
        fed = tf.sparse_placeholder(tf.float32)
        bad, _ = sequence_input_layer({"tok": features["tok"], "v": fed},
                                      [fc.indicator_column(tok), num])
        # as TF 1.15: the lengths' assert guards only the length, the concat fails first
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="Dimensions of inputs should match"):
            sess.run(tf.tables_initializer())
            sess.run(bad, {fed: short})
