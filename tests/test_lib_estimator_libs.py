"""What running estimator-based TF 1.x libraries (TensorFlow Ranking 0.1.x, AdaNet) on tideflow
needed, pinned with plain TF 1.x calls: ``tensorflow.python.util.all_util`` (the
``remove_undocumented`` a library's ``__init__`` ends with) and ``tf.io.decode_proto`` given an
inline binary descriptor (``b"bytes://" + FileDescriptorSet``, how Ranking parses its
ExampleListWithContext records)."""

import sys
import types

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# tensorflow.python.util.all_util
# ------------------------------------------------------------------------------------------

def _fake_module(name, doc):
    mod = types.ModuleType(name, doc)
    mod.kept_by_doc = 1
    mod.kept_by_list = 2
    mod.dropped = 3
    mod._private = 4
    sys.modules[name] = mod
    return mod


def test_remove_undocumented_keeps_doc_listed_and_allowed_names():
    from tideflow.python.util.all_util import remove_undocumented, reveal_undocumented

    mod = _fake_module("my_ranking_lib_api", "My API.\n\n@@kept_by_doc\n@@not_there\n")
    try:
        remove_undocumented("my_ranking_lib_api", allowed_exception_list=["kept_by_list"])
        assert mod.kept_by_doc == 1 and mod.kept_by_list == 2 and mod._private == 4
        assert not hasattr(mod, "dropped") and not hasattr(mod, "not_there")
        reveal_undocumented("my_ranking_lib_api.dropped")
        assert mod.dropped == 3
        with pytest.raises(LookupError):
            reveal_undocumented("my_ranking_lib_api.never_hidden")
    finally:
        del sys.modules["my_ranking_lib_api"]


def test_make_all_reads_other_modules_docstrings():
    from tideflow.python.util import all_util

    _fake_module("my_ranking_lib_api2", None)
    docs = types.ModuleType("docs", "@@dropped\n@@kept_by_doc\n  @@indented_is_ignored\n")
    try:
        names = all_util.make_all("my_ranking_lib_api2", doc_string_modules=[docs])
        assert sorted(names) == ["dropped", "kept_by_doc"]
        assert all_util.make_all("my_ranking_lib_api2") == []
    finally:
        del sys.modules["my_ranking_lib_api2"]


# ------------------------------------------------------------------------------------------
# decode_proto with an inline binary descriptor set
# ------------------------------------------------------------------------------------------

def _descriptor_bytes():
    """A FileDescriptorSet for message ``my.pkg.Pair {repeated bytes items = 1; bytes head = 2;}``
    whose serialization holds non-UTF-8 bytes (its file entry is longer than 127 bytes)."""
    from google.protobuf import descriptor_pb2 as pb

    fds = pb.FileDescriptorSet()
    f = fds.file.add(name="my_pair_file_with_a_rather_long_name_" + "x" * 40 + ".proto",
                     package="my.pkg", syntax="proto3")
    m = f.message_type.add(name="Pair")
    m.field.add(name="items", number=1, type=pb.FieldDescriptorProto.TYPE_BYTES,
                label=pb.FieldDescriptorProto.LABEL_REPEATED)
    m.field.add(name="head", number=2, type=pb.FieldDescriptorProto.TYPE_BYTES)
    data = fds.SerializeToString()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    return b"bytes://" + data


def _pair(items, head):
    out = b""
    for it in items:
        out += b"\x0a" + bytes([len(it)]) + it
    return out + b"\x12" + bytes([len(head)]) + head


def test_decode_proto_binary_descriptor_source():
    source = _descriptor_bytes()
    serialized = tf.placeholder(tf.string, [None])
    sizes, (head, items) = tf.io.decode_proto(
        serialized, message_type="my.pkg.Pair", field_names=["head", "items"],
        output_types=[tf.string, tf.string], descriptor_source=source)
    assert sizes.shape.as_list() == [None, 2]
    assert head.shape.as_list() == [None, None]
    data = [_pair([b"a", b"bc"], b"h1"), _pair([b"d"], b"h2")]
    with tf.Session() as sess:
        s, h, it = sess.run([sizes, head, items], {serialized: data})
    np.testing.assert_array_equal(s, [[1, 2], [1, 1]])
    assert h.tolist() == [[b"h1"], [b"h2"]]
    assert it.tolist() == [[b"a", b"bc"], [b"d", b""]]
    # the attr keeps its exact bytes, through a GraphDef too
    op = sizes.op
    assert op.get_attr("descriptor_source") == source
    gd = tf.get_default_graph().as_graph_def()
    node = next(n for n in gd.node if n.op == "DecodeProtoV2")
    assert node.attr["descriptor_source"].s == source
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
        g = tf.get_default_graph()
        with tf.Session() as sess:
            s2 = sess.run(g.get_tensor_by_name(sizes.name),
                          {g.get_tensor_by_name(serialized.name): data})
    np.testing.assert_array_equal(s2, s)


def test_encode_proto_binary_descriptor_source_round_trip():
    source = _descriptor_bytes()
    sizes = tf.constant([[2, 1]])
    items = tf.constant([[b"x", b"yz"]])
    head = tf.constant([[b"top"]])
    blob = tf.io.encode_proto(sizes, [items, head], field_names=["items", "head"],
                              message_type="my.pkg.Pair", descriptor_source=source)
    _, (back,) = tf.io.decode_proto(blob, "my.pkg.Pair", ["items"], [tf.string],
                                    descriptor_source=source)
    with tf.Session() as sess:
        b, out = sess.run([blob, back])
    assert b.tolist() == [_pair([b"x", b"yz"], b"top")]
    assert out.tolist() == [[b"x", b"yz"]]


# ------------------------------------------------------------------------------------------
# Estimator: the override check goes through the class (AdaNet replaces it)
# ------------------------------------------------------------------------------------------

def _model_fn(features, labels, mode):
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      predictions={"y": features["x"] * w})


def test_estimator_subclass_overriding_train_is_refused(tmp_path):
    class MyEstimator(tf.estimator.Estimator):
        def train(self, *args, **kwargs):
            return super().train(*args, **kwargs)

    with pytest.raises(ValueError, match="cannot override members of Estimator"):
        MyEstimator(_model_fn, model_dir=str(tmp_path))


def test_estimator_subclass_may_replace_the_override_check(tmp_path):
    class MyEstimator(tf.estimator.Estimator):
        def _assert_members_are_not_overridden(self):
            pass

        def train(self, input_fn, steps=None, max_steps=None, hooks=None):
            self.calls = getattr(self, "calls", 0) + 1
            return super().train(input_fn, steps=steps, max_steps=max_steps, hooks=hooks)

    est = MyEstimator(_model_fn, model_dir=str(tmp_path))

    def input_fn():
        return {"x": tf.constant([1.0, 2.0])}, tf.constant([2.0, 4.0])

    est.train(input_fn, steps=3)
    assert est.calls == 1 and est.get_variable_value("global_step") == 3
    # the plain check is a method of Estimator too
    assert callable(tf.estimator.Estimator._assert_members_are_not_overridden)


# ------------------------------------------------------------------------------------------
# checkpoint reader: scalars come back as NumPy scalars
# ------------------------------------------------------------------------------------------

def test_load_variable_scalars_are_numpy_scalars(tmp_path):
    tf.Variable(7, dtype=tf.int64, name="iteration")
    tf.Variable(1.5, name="rate")
    tf.Variable(b"tag", name="label")
    tf.Variable([[1.0, 2.0]], name="matrix")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "model"))
    it = tf.train.load_variable(path, "iteration")
    assert isinstance(it, np.int64) and it == 7
    rate = tf.train.load_variable(path, "rate")
    assert isinstance(rate, np.float32) and rate == 1.5
    assert tf.train.load_variable(path, "label") == b"tag"
    m = tf.train.load_variable(path, "matrix")
    assert isinstance(m, np.ndarray) and m.shape == (1, 2)
    reader = tf.train.NewCheckpointReader(path)
    assert isinstance(reader.get_tensor("iteration"), np.int64)
    # usable where Python ints are expected
    assert list(range(it)) == list(range(7))


# ------------------------------------------------------------------------------------------
# tensorflow.python.ops.summary_op_util
# ------------------------------------------------------------------------------------------

def test_summary_op_util_summary_scope():
    from tideflow.python.ops import summary_op_util

    with tf.name_scope("outer"):
        with summary_op_util.summary_scope("loss", family="train", values=[]) as (tag, scope):
            assert tag == "train/outer/train/loss"
            assert scope == "outer/train/loss/"
        with summary_op_util.summary_scope("bad name:1") as (tag, scope):
            assert tag == "outer/bad_name_1"
    assert summary_op_util.clean_tag("a b") == "a_b"
    assert summary_op_util.skip_summary() is False


# ------------------------------------------------------------------------------------------
# Estimator: evaluation with a model_fn's own local_init_op; the global step hook
# ------------------------------------------------------------------------------------------

def _model_fn_with_local_init(features, labels, mode):
    spec = _model_fn(features, labels, mode)
    counter = tf.Variable(0.0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                          name="my_counter")
    scaffold = tf.train.Scaffold(local_init_op=tf.group(counter.initializer))
    if mode != tf.estimator.ModeKeys.EVAL:
        return spec._replace(scaffold=scaffold)
    # made in the model_fn, so covered by its local_init_op, as a library would
    total = tf.Variable(0.0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="x_total")
    scaffold = tf.train.Scaffold(local_init_op=tf.group(counter.initializer, total.initializer))
    update = tf.assign_add(total, tf.reduce_sum(features["x"]))
    return spec._replace(scaffold=scaffold, eval_metric_ops={"x_total": (total.value(), update)})


def test_evaluate_runs_the_default_local_init_op_beside_the_specs(tmp_path):
    est = tf.estimator.Estimator(_model_fn_with_local_init, model_dir=str(tmp_path))

    def input_fn():
        return {"x": tf.constant([1.0, 2.0])}, tf.constant([2.0, 4.0])

    est.train(input_fn, steps=2)
    # the loss mean Estimator adds after the model_fn is a local variable the spec's
    # local_init_op does not cover
    res = est.evaluate(input_fn, steps=2)
    assert res["global_step"] == 2
    np.testing.assert_allclose(res["x_total"], 6.0)
    assert np.isfinite(res["loss"])


def test_estimator_subclass_creates_its_global_step(tmp_path):
    made = []

    class MyEstimator(tf.estimator.Estimator):
        def _create_and_assert_global_step(self, graph):  # one of TF's allowed overrides
            made.append(graph)
            return super()._create_and_assert_global_step(graph)

    est = MyEstimator(_model_fn, model_dir=str(tmp_path))

    def input_fn():
        return {"x": tf.constant([1.0, 2.0])}, tf.constant([2.0, 4.0])

    est.train(input_fn, steps=1)
    assert len(made) == 1
    with tf.Graph().as_default() as g:
        step = est._create_and_assert_global_step(g)
        assert step is tf.train.get_global_step(g) and step.dtype.base_dtype == tf.int64


# ------------------------------------------------------------------------------------------
# tensorflow.python.ops.metrics_impl and tensorflow.python.tf2
# ------------------------------------------------------------------------------------------

def test_metrics_impl_metric_variable_and_confusion_counts():
    from tideflow.python.ops import metrics_impl

    assert metrics_impl.mean is tf.metrics.mean
    v = metrics_impl.metric_variable([3], tf.float32, name="totals")
    assert v in tf.local_variables() and v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)
    assert v not in tf.trainable_variables() and v.shape.as_list() == [3]

    labels = tf.constant([True, False, True, False])
    preds = tf.constant([0.9, 0.6, 0.3, 0.1])
    values, updates = metrics_impl._confusion_matrix_at_thresholds(
        labels, preds, [0.0, 0.5, 1.0], weights=tf.constant([1.0, 2.0, 1.0, 1.0]))
    assert sorted(values) == ["fn", "fp", "tn", "tp"]
    only, _ = metrics_impl._confusion_matrix_at_thresholds(labels, preds, [0.5], includes=["tp"])
    assert sorted(only) == ["tp"]
    with pytest.raises(ValueError, match="Invalid key"):
        metrics_impl._confusion_matrix_at_thresholds(labels, preds, [0.5], includes=["xx"])
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(updates)
        out = sess.run(values)
    np.testing.assert_allclose(out["tp"], [2, 1, 0])
    np.testing.assert_allclose(out["fn"], [0, 1, 2])
    np.testing.assert_allclose(out["fp"], [3, 2, 0])
    np.testing.assert_allclose(out["tn"], [0, 1, 3])


def test_tf2_module_says_disabled():
    from tideflow.python import tf2

    assert tf2.enabled() is False
    tf2.disable()
    assert tf2.enabled() is False


def test_feature_column_lib_dense_features_and_v2_check():
    from tideflow.python.feature_column import feature_column_lib

    cat = tf.feature_column.categorical_column_with_hash_bucket("tokens", 7)
    cols = [tf.feature_column.embedding_column(cat, 3),
            tf.feature_column.numeric_column("score")]
    assert feature_column_lib.is_feature_column_v2(cols) is True
    assert feature_column_lib.is_feature_column_v2(cols + ["score"]) is False
    assert feature_column_lib.DenseFeatures is tf.keras.layers.DenseFeatures
    layer = feature_column_lib.DenseFeatures(feature_columns=cols, name="encoding_layer")
    features = {"tokens": tf.SparseTensor([[0, 0], [1, 0]], [b"a", b"b"], [2, 1]),
                "score": tf.constant([[0.5], [1.5]])}
    outs = {}
    dense = layer(features, cols_to_output_tensors=outs)
    assert dense.shape.as_list() == [2, 4]
    assert outs[cols[0]].shape.as_list() == [2, 3]
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["encoding_layer/tokens_embedding/embedding_weights"]
