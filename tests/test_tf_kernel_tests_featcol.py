"""TF 1.x behaviour of ``tf.feature_column`` (v1 columns, ``input_layer``, ``linear_model``)
that TF 1.15's own feature_column tests exposed as differences: each test pins the TF behaviour
with values worked out by hand."""

import numpy as np
import pytest
from tideflow.python.feature_column import feature_column as fc_path

import tideflow as tf
from tideflow.feature_column import feature_column as fcm

fc = tf.feature_column


def _run(fetch, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.tables_initializer())
        return sess.run(fetch, feed_dict=feed)


def _sp(values, indices, shape):
    return tf.SparseTensor(indices=indices, values=values, dense_shape=shape)


# -- the module path TF's tests import -----------------------------------------------------------

def test_private_v1_constructor_names_and_transform_features():
    # TF 1.15 keeps the v1 constructors as feature_column._numeric_column and so on
    assert fc_path._numeric_column is fc.numeric_column
    assert fc_path._crossed_column is fc.crossed_column
    assert fc_path._shared_embedding_columns is fc.shared_embedding_columns
    with tf.Graph().as_default():
        col = fc.numeric_column("x", shape=[3], normalizer_fn=lambda t: t * 10.0)
        out = fcm._transform_features({"x": [[0.5, 1.0, 2.0]]}, [col])
        assert list(out) == [col]
        np.testing.assert_allclose(_run(out[col]), [[5.0, 10.0, 20.0]])


# -- column constructors -------------------------------------------------------------------------

def test_numeric_default_value_must_fit_the_dtype():
    fc.numeric_column("n", shape=[3], default_value=[4, 5, 6], dtype=tf.int64)
    fc.numeric_column("n", shape=[2], default_value=[4, 5.5])
    with pytest.raises(TypeError, match="default_value must be compatible with dtype"):
        fc.numeric_column("n", shape=[2], default_value=[4, 5.5], dtype=tf.int64)
    with pytest.raises(TypeError, match="default_value must be compatible with dtype"):
        fc.numeric_column("n", default_value="seven")


def test_crossed_column_name_flattens_nested_crosses_before_sorting():
    inner = fc.crossed_column(["zeta", "alpha"], 7)
    outer = fc.crossed_column([inner, "mid"], 7)
    assert inner.name == "alpha_X_zeta"
    assert outer.name == "alpha_X_mid_X_zeta"


def test_hash_bucket_refuses_float_input_by_its_dtype():
    col = fc.categorical_column_with_hash_bucket("h", 5)
    builder = fcm._LazyBuilder({"h": _sp([1.5], [[0, 0]], [1, 1])})
    with pytest.raises(ValueError, match="column_name: h input_tensor dtype must be string or "
                                         "integer"):
        builder.get(col)


# -- linear_model ----------------------------------------------------------------------------

def test_linear_model_sum_combiner_keeps_negative_weights():
    ids = fc.categorical_column_with_identity("ids", 3)
    weighted = fc.weighted_categorical_column(ids, "w")
    with tf.Graph().as_default():
        features = {"ids": _sp([0, 2, 1], [[0, 0], [0, 1], [1, 0]], [2, 2]),
                    "w": _sp([2.0, -3.0, 0.5], [[0, 0], [0, 1], [1, 0]], [2, 2])}
        out_sum = fc.linear_model(features, [weighted])
        out_mean = fc.linear_model(features, [weighted], sparse_combiner="mean")
        scopes = ("linear_model", "linear_model_1")
        assigns = [tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, s + "/ids_weighted_by_w")[0]
                   .assign([[1.0], [10.0], [100.0]]) for s in scopes]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(assigns)
            got_sum, got_mean = sess.run([out_sum, out_mean])
    # sum: 2*1 - 3*100 = -298 and 0.5*10 = 5; mean prunes the weight <= 0: 2*1/2 = 1, 10
    np.testing.assert_allclose(got_sum, [[-298.0], [5.0]])
    np.testing.assert_allclose(got_mean, [[1.0], [10.0]])


def test_linear_model_refuses_a_column_neither_dense_nor_categorical():
    class Odd(fcm._FeatureColumn):
        name = "odd"
        _parse_example_spec = None

        def _transform_feature(self, inputs):
            return inputs.get("odd")

    with tf.Graph().as_default(), pytest.raises(
            ValueError, match="must be either a _DenseColumn or _CategoricalColumn"):
        fc.linear_model({"odd": [[1.0]]}, [Odd()])


@pytest.mark.parametrize("builder", [fc.linear_model, fc.input_layer])
def test_static_batch_sizes_must_agree(builder):
    cols = [fc.numeric_column("p"), fc.numeric_column("q"), fc.numeric_column("r")]
    with tf.Graph().as_default():
        features = {"p": tf.placeholder(tf.float32), "q": [[1.0], [2.0], [3.0], [4.0]],
                    "r": [[1.0], [2.0]]}
        with pytest.raises(ValueError, match=r"Batch size \(first dimension\) of each feature "
                                             r"must be same. Batch size of columns \(q, r\)"):
            builder(features, cols)


@pytest.mark.parametrize("builder", [fc.linear_model, fc.input_layer])
def test_feature_of_unknown_rank_is_checked_and_expanded_when_run(builder):
    col = fc.numeric_column("v")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        out = builder({"v": x}, [col])
        assert out.shape.as_list()[1] == 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # a rank-1 feed is one value per example
            assert sess.run(out, {x: np.array([1.0, 2.0, 3.0])}).shape == (3, 1)
            assert sess.run(out, {x: np.array([[1.0], [2.0]])}).shape == (2, 1)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Feature .* cannot have rank 0"):
                sess.run(out, {x: np.array(4.0)})


# -- vocabulary and identity columns --------------------------------------------------------------

def test_vocabulary_list_dtype_errors_in_tf_order():
    with pytest.raises(ValueError, match="column_name: v vocabulary dtype must be string or "
                                         "integer"):
        fc.categorical_column_with_vocabulary_list("v", [0.5, 1.5])
    with pytest.raises(ValueError, match="column_name: v dtype must be string or integer"):
        fc.categorical_column_with_vocabulary_list("v", ["x", "y"], dtype=tf.float64)
    with pytest.raises(ValueError, match="dtype <dtype: 'int32'> and vocabulary dtype "
                                         "<dtype: 'string'> do not match"):
        fc.categorical_column_with_vocabulary_list("v", ["x", "y"], dtype=tf.int32)


def test_vocabulary_file_dtype_and_missing_file(tmp_path):
    with pytest.raises(ValueError, match="column_name: f dtype must be string or integer"):
        fc.categorical_column_with_vocabulary_file("f", "some_path", 4, dtype=tf.float32)
    with pytest.raises(ValueError, match="vocabulary_file in f does not exist"):
        fc.categorical_column_with_vocabulary_file("f", str(tmp_path / "absent.txt"))


def test_identity_column_refuses_strings_and_checks_ranges_when_run():
    col = fc.categorical_column_with_identity("k", 5)
    with pytest.raises(ValueError, match="Invalid input, not integer. key: k"):
        fcm._LazyBuilder({"k": _sp(["a"], [[0, 0]], [1, 1])}).get(col)
    with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError,
                                                match="exceeds number of buckets"):
        # constant out-of-range ids fail while building, as TF 1.15's assert_less
        col._get_sparse_tensors(fcm._LazyBuilder({"k": _sp([4, 5], [[0, 0], [1, 0]],
                                                             [2, 1])}))
    with tf.Graph().as_default():
        # fed ids: the check is an Assert run with the step
        fed = tf.sparse_placeholder(tf.int64)
        ids = col._get_sparse_tensors(fcm._LazyBuilder({"k": fed})).id_tensor
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="assertion failed"):
            sess.run(ids, {fed: tf.SparseTensorValue([[0, 0], [1, 0]], [4, 5], [2, 1])})


# -- embeddings -------------------------------------------------------------------------------

def test_embedding_combiner_is_checked_at_lookup_not_construction():
    col = fc.embedding_column(fc.categorical_column_with_identity("e", 3), 2, combiner="max")
    assert col.combiner == "max"
    with tf.Graph().as_default(), pytest.raises(ValueError, match="combiner must be one of"):
        fc.input_layer({"e": _sp([1], [[0, 0]], [1, 1])}, [col])


def test_embedding_variable_is_global_and_in_the_given_collections():
    col = fc.embedding_column(fc.categorical_column_with_identity("e", 3), 2)
    with tf.Graph().as_default():
        col._get_dense_tensor(fcm._LazyBuilder({"e": _sp([1], [[0, 0]], [1, 1])}),
                              weight_collections=["mine"])
        names = [v.name for v in tf.global_variables()]
        assert names == ["embedding_weights:0"]
        assert [v.name for v in tf.get_collection("mine")] == names


def test_embedding_of_rank_3_ids_keeps_the_leading_dims():
    table = np.array([[1.0, 0.0], [0.0, 2.0], [4.0, 4.0]], np.float32)
    col = fc.embedding_column(fc.categorical_column_with_identity("e", 3), 2,
                              initializer=lambda *a, **k: table, combiner="sum")
    with tf.Graph().as_default():
        ids = _sp([2, 0, 1, 1], [[0, 0, 0], [0, 0, 1], [1, 1, 0], [1, 1, 3]], [2, 2, 4])
        out = col._get_dense_tensor(fcm._LazyBuilder({"e": ids}))
        assert out.shape.ndims == 3 and out.shape.as_list()[-1] == 2
        got = _run(out)
    np.testing.assert_allclose(got, [[[5.0, 4.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 4.0]]])


def test_linear_model_combines_rank_3_ids_over_each_example():
    col = fc.categorical_column_with_identity("c", 4)
    with tf.Graph().as_default():
        ids = _sp([1, 3, 3], [[0, 0, 0], [0, 1, 0], [1, 0, 1]], [2, 2, 2])
        out = fc.linear_model({"c": ids}, [col])
        var = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "linear_model/c")[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(var.assign([[1.0], [10.0], [100.0], [1000.0]]))
            np.testing.assert_allclose(sess.run(out), [[1010.0], [1000.0]])


# -- shared embeddings and weighted columns ------------------------------------------------------

def test_shared_embedding_columns_need_one_column_type():
    a = fc.categorical_column_with_identity("a", 4)
    b = fc.categorical_column_with_hash_bucket("b", 4)
    with pytest.raises(ValueError, match="all categorical_columns must have the same type.*"
                                         r"\.IdentityCategoricalColumn'.*\.HashedCategoricalColumn'"):
        fc.shared_embedding_columns([b, a], 3)
    # a weighted column shares with the kind of column it wraps
    wa = fc.weighted_categorical_column(a, "wa")
    c = fc.categorical_column_with_identity("c", 4)
    cols = fc.shared_embedding_columns([c, wa], 3, combiner="not-checked-yet")
    assert cols[0].shared_embedding_collection_name == "a_weighted_by_wa_c_shared_embedding"
    with pytest.raises(ValueError, match="same number of buckets"):
        fc.shared_embedding_columns([c, fc.categorical_column_with_identity("d", 5)], 3)


def test_weighted_column_dtype_none_and_weight_count_mismatch():
    ids = fc.categorical_column_with_identity("i", 3)
    with pytest.raises(ValueError, match="dtype None is not convertible to float"):
        fc.weighted_categorical_column(ids, "w", dtype=None)
    weighted = fc.weighted_categorical_column(ids, "w")
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Dimensions 2 and 3 are not "
                                                                  "compatible"):
        fc.linear_model({"i": _sp([0, 1], [[0, 0], [1, 0]], [2, 1]),
                         "w": _sp([1.0, 2.0, 3.0], [[0, 0], [1, 0], [1, 1]], [2, 2])},
                        [weighted])


# -- canned estimators -----------------------------------------------------------------------------

class _VarNames(tf.train.SessionRunHook):
    def begin(self):
        self.trainable = sorted(v.name for v in tf.trainable_variables())


def _numpy_fn(x, y, epochs=None):
    return tf.estimator.inputs.numpy_input_fn(x, y, batch_size=len(y), shuffle=False,
                                              num_epochs=epochs)


def test_linear_regressor_variables_are_single_parts_and_load_plain_checkpoints(tmp_path):
    from tideflow.python.estimator.canned import metric_keys

    with tf.Graph().as_default():
        tf.Variable([[3.0]], name="linear/linear_model/size/weights")
        tf.Variable([-1.0], name="linear/linear_model/bias_weights")
        tf.Variable(7, name="global_step", dtype=tf.int64)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    est = tf.estimator.LinearRegressor([fc.numeric_column("size")], model_dir=str(tmp_path),
                                       weight_column="w")
    got = est.evaluate(lambda: ({"size": [[2.0], [4.0]], "w": [[1.0], [3.0]]},
                                [[4.0], [10.0]]), steps=1)
    # predictions 5 and 11: squared errors 1 and 1, weighted sum 4, weighted mean 1
    keys = metric_keys.MetricKeys
    assert got == {keys.LOSS: 4.0, keys.LOSS_MEAN: 1.0, keys.PREDICTION_MEAN: 9.5,
                   keys.LABEL_MEAN: 8.5, "global_step": 7}
    hook = _VarNames()
    fresh = tf.estimator.LinearRegressor([fc.numeric_column("size")],
                                         model_dir=str(tmp_path / "fresh"))
    fresh.train(_numpy_fn({"size": np.array([[1.0]])}, np.array([[1.0]])), steps=1,
                hooks=[hook])
    assert hook.trainable == ["linear/linear_model/bias_weights/part_0:0",
                              "linear/linear_model/size/weights/part_0:0"]


def test_linear_regressor_uses_the_given_partitioner(tmp_path):
    col = fc.categorical_column_with_hash_bucket("word", 8)

    class Check(tf.train.SessionRunHook):
        def begin(self):
            with tf.variable_scope(tf.get_variable_scope(), reuse=True):
                w = tf.get_variable("linear/linear_model/word/weights", shape=(8, 1))
            self.parts = [p.get_shape().as_list() for p in w]

    est = tf.estimator.LinearRegressor(
        [col], model_dir=str(tmp_path),
        partitioner=lambda shape, dtype: [2, 1] if shape[0] == 8 else [1])
    hook = Check()
    est.train(lambda: ({"word": _sp(["a", "b"], [[0, 0], [0, 1]], [1, 2])}, [[3.0]]),
              steps=2, hooks=[hook])
    assert hook.parts == [[4, 1], [4, 1]]
    assert est.get_variable_value("linear/linear_model/word/weights").shape == (8, 1)


def test_dnn_variables_and_batch_norm_parameters_are_single_parts(tmp_path):
    # as TF 1.15 printed: gamma and beta keep the scope's partitioner (part_0), only the
    # moving statistics are built without it
    hook = _VarNames()
    est = tf.estimator.DNNRegressor([2], [fc.numeric_column("x")], model_dir=str(tmp_path),
                                    batch_norm=True)
    est.train(_numpy_fn({"x": np.ones((3, 1), np.float32)}, np.ones((3, 1), np.float32)),
              steps=1, hooks=[hook])
    assert hook.trainable == sorted([
        "dnn/hiddenlayer_0/kernel/part_0:0", "dnn/hiddenlayer_0/bias/part_0:0",
        "dnn/hiddenlayer_0/batchnorm_0/gamma/part_0:0",
        "dnn/hiddenlayer_0/batchnorm_0/beta/part_0:0",
        "dnn/logits/kernel/part_0:0", "dnn/logits/bias/part_0:0"])
    # the checkpoint keeps the whole names
    assert "dnn/hiddenlayer_0/kernel" in est.get_variable_names()


def test_multi_class_head_weights_of_shape_batch_by_one(tmp_path):
    # the per-example loss is [batch, 1], as the weights: a [batch, 1] weight feature works
    est = tf.estimator.LinearClassifier([fc.numeric_column("a")], n_classes=3,
                                        weight_column="w", model_dir=str(tmp_path))
    x = {"a": np.array([0.0, 1.0, 2.0]), "w": np.array([[1.0], [0.0], [2.0]])}
    est.train(_numpy_fn(x, np.array([0, 1, 2])), steps=2)
    got = est.evaluate(_numpy_fn(x, np.array([0, 1, 2]), epochs=1))
    assert got["global_step"] == 2 and np.isfinite(got["loss"])


def test_binary_head_takes_soft_labels_and_multi_class_refuses_floats(tmp_path):
    with tf.Graph().as_default():
        tf.Variable([[0.0]], name="linear/linear_model/a/weights")
        tf.Variable([1.0], name="linear/linear_model/bias_weights")
        tf.Variable(1, name="global_step", dtype=tf.int64)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"))
    est = tf.estimator.LinearClassifier([fc.numeric_column("a")], model_dir=str(tmp_path))
    got = est.evaluate(lambda: ({"a": [[3.0]]}, [[0.25]]), steps=1)
    # logit 1 with label 0.25: 0.25 * log(1 + e^-1) + 0.75 * log(1 + e)
    want = 0.25 * np.log1p(np.exp(-1.0)) + 0.75 * np.log1p(np.exp(1.0))
    np.testing.assert_allclose(got["loss"], want, rtol=1e-5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Labels must <= n_classes - 1"):
        est.evaluate(lambda: ({"a": [[3.0]]}, [[1.5]]), steps=1)
    multi = tf.estimator.LinearClassifier([fc.numeric_column("a")], n_classes=3,
                                          model_dir=str(tmp_path / "m"))
    with pytest.raises(ValueError, match="Labels dtype should be integer"):
        multi.train(lambda: ({"a": [[3.0]]}, [[1.0]]), steps=1)


def test_linear_logit_fn_builder_names_and_fraction_of_zero():
    from tideflow.estimator.canned import linear

    age = fc.numeric_column("age")
    job = fc.categorical_column_with_hash_bucket("job", 4)
    with tf.Graph().as_default():
        logit_fn = tf.estimator.experimental.linear_logit_fn_builder(2, [age, job])
        logits = logit_fn({"age": [[2.0], [3.0]], "job": [["a"], ["b"]]})
        names = sorted(v.op.name for v in tf.global_variables())
        assert names == ["linear_model/age/weights", "linear_model/bias_weights",
                         "linear_model/job/weights"]
        tags = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        assert tags == ["bias", "fraction_of_zero_weights"]
        age_w = tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "linear_model/age")[0]
        frac = linear._compute_fraction_of_zero([age_w, [tf.get_collection(
            tf.GraphKeys.GLOBAL_VARIABLES, "linear_model/job")[0]]])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(frac) == 1.0
            sess.run(age_w.assign([[5.0, 0.0]]))
            # one of the 2 + 8 weights is not zero
            np.testing.assert_allclose(sess.run(frac), 0.9)
            np.testing.assert_allclose(sess.run(logits), [[10.0, 0.0], [15.0, 0.0]])


def test_estimator_warm_start_handles_partitioned_variables_and_vocabularies(tmp_path):
    old_vocab, new_vocab = tmp_path / "old.txt", tmp_path / "new.txt"
    old_vocab.write_text("red\ngreen\nblue\n")
    new_vocab.write_text("blue\nred\nviolet\n")
    color = fc.categorical_column_with_vocabulary_file("color", str(old_vocab), 3)

    def input_fn():
        return {"color": [["red"], ["blue"]], "n": [[1.0], [2.0]]}, [[1.0], [3.0]]

    first = tf.estimator.LinearRegressor([color, fc.numeric_column("n")],
                                         model_dir=str(tmp_path / "a"), optimizer="SGD")
    first.train(input_fn, max_steps=2)
    old_w = first.get_variable_value("linear/linear_model/color/weights")
    info = tf.estimator.VocabInfo(str(new_vocab), 3, 0, str(old_vocab),
                                  backup_initializer=tf.constant_initializer(7.0))
    assert info is not None and tf.estimator.VocabInfo is tf.train.VocabInfo
    second = tf.estimator.LinearRegressor(
        [fc.categorical_column_with_vocabulary_file("color", str(new_vocab), 3),
         fc.numeric_column("n")], model_dir=str(tmp_path / "b"),
        optimizer=tf.train.GradientDescentOptimizer(0.0),
        warm_start_from=tf.estimator.WarmStartSettings(
            str(tmp_path / "a"), var_name_to_vocab_info={
                "linear/linear_model/color/weights": info}))
    second.train(input_fn, max_steps=1)
    new_w = second.get_variable_value("linear/linear_model/color/weights")
    np.testing.assert_allclose(new_w, [old_w[2], old_w[0], [7.0]])
    # the other variables (single parts in the graph) start from the checkpoint too
    for name in ("linear/linear_model/n/weights", "linear/linear_model/bias_weights"):
        np.testing.assert_allclose(second.get_variable_value(name),
                                   first.get_variable_value(name))


def test_dnn_writes_fraction_of_zero_values_per_layer(tmp_path):
    tags = {}

    class Collect(tf.train.SessionRunHook):
        def begin(self):
            self.op = tf.summary.merge_all()

        def before_run(self, run_context):
            return tf.train.SessionRunArgs(self.op)

        def after_run(self, run_context, run_values):
            from tideflow.protos import summary_pb2

            s = summary_pb2.Summary()
            s.ParseFromString(run_values.results)
            tags.update({v.tag: v.simple_value for v in s.value if v.HasField("simple_value")})

    est = tf.estimator.DNNRegressor([3], [fc.numeric_column("x")], model_dir=str(tmp_path))
    est.train(lambda: ({"x": [[1.0], [2.0]]}, [[1.0], [0.0]]), steps=1, hooks=[Collect()])
    assert {"dnn/dnn/hiddenlayer_0/fraction_of_zero_values",
            "dnn/dnn/logits/fraction_of_zero_values", "loss", "average_loss"} <= set(tags)
    assert 0.0 <= tags["dnn/dnn/hiddenlayer_0/fraction_of_zero_values"] <= 1.0


def test_gated_gradients_of_a_lookup_in_a_partitioned_variable():
    # minimize gates each op's input gradients; the lookup's gradient reaches the parts as
    # IndexedSlices only, with nothing dense to gate (was "Must have at least one Tensor")
    col = fc.categorical_column_with_identity("c", 4)
    with tf.Graph().as_default():
        with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2)):
            out = fc.linear_model({"c": _sp([1, 3], [[0, 0], [1, 0]], [2, 1])}, [col])
        step = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(out))
        parts = [v for v in tf.global_variables() if "c/weights" in v.name]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            got = [sess.run(v).ravel().tolist() for v in parts]
    assert got == [[0.0, -0.5], [0.0, -0.5]]
