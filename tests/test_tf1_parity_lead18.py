"""TF 1.15 parity fixes of the eighteenth session (the lead's): argument names and orders that
TF 1.x programs pass by keyword or by position, each as TF 1.15's signature has it."""
import inspect

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _params(fn):
    return list(inspect.signature(fn).parameters)


def test_graph_collection_methods_take_name():
    g = tf.get_default_graph()
    g.add_to_collection("c", 1)
    assert g.get_collection(name="c") == [1]
    assert g.get_collection_ref(name="c") == [1]
    assert tf.get_collection(key="c") == [1]  # (the module function keeps ``key``)


def test_static_hash_table_third_positional_is_the_name():
    init = tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64),
                                               tf.constant([10, 20], tf.int64))
    table = tf.lookup.StaticHashTable(init, -1, "my_table")
    assert table.name == "my_table" and table.resource_handle.op.name == "my_table"
    with tf.Session() as sess:
        table.initializer.run()
        assert sess.run(table.lookup(tf.constant([2, 3], tf.int64))).tolist() == [20, -1]


def test_contrib_framework_checkpoint_helpers_take_contribs_names(tmp_path):
    v = tf.get_variable("w", initializer=tf.constant([1.5, 2.5]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        path = tf.train.Saver().save(sess, str(tmp_path / "m"))
    fw = tf.contrib.framework
    assert fw.list_variables(checkpoint_dir=str(tmp_path)) == [("w", [2])]
    np.testing.assert_array_equal(fw.load_variable(checkpoint_dir=path, name="w"), [1.5, 2.5])
    assert fw.load_checkpoint(filepattern=path).has_tensor("w")
    with tf.Graph().as_default():
        u = tf.get_variable("u", [2])
        fw.init_from_checkpoint(checkpoint_dir=str(tmp_path), assignment_map={"w": "u"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(u), [1.5, 2.5])
    del v


def test_contrib_variables_and_checks_take_tf_1_15_keywords():
    slim = tf.contrib.slim
    v = slim.model_variable("mv", shape=[2], synchronization=tf.VariableSynchronization.AUTO,
                            aggregation=tf.VariableAggregation.NONE)
    u = slim.variable("sv", shape=[1], aggregation=tf.VariableAggregation.NONE)
    assert v in tf.model_variables() and u in tf.global_variables()
    with pytest.raises(ValueError, match="bad: Expected scalar shape"):
        tf.contrib.framework.assert_scalar(tf.zeros([2]), message="bad: ")
    tf.add_to_collection(tf.GraphKeys.WEIGHTS, v)
    out = slim.summarize_weights(summarizer=lambda t: tf.summary.scalar("s", t[0]))
    assert [o.op.type for o in out] == ["ScalarSummary"]


def test_saver_and_test_case_signatures(tmp_path):
    v = tf.Variable(1.0)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        p = saver.save(sess, str(tmp_path / "m"), save_debug_info=False)
    assert tf.train.checkpoint_exists(p)
    assert "save_debug_info" in _params(tf.train.Saver.export_meta_graph)
    assert _params(tf.test.TestCase.assertAllGreater) == ["self", "a", "comparison_target"]
    assert _params(tf.test.TestCase.assertItemsEqual) == ["self", "first", "second", "msg"]
    tc = tf.test.TestCase()
    tc.assertAllLessEqual(a=[1, 2], comparison_target=2)
    tc.assertItemsEqual(first=[1, 2], second=[2, 1])


def test_contrib_learn_signatures():
    learn = tf.contrib.learn
    cfg = learn.RunConfig(protocol="grpc", session_creation_timeout_secs=60)
    assert cfg.protocol == "grpc" and cfg.session_creation_timeout_secs == 60
    assert _params(learn.KMeansClustering.transform)[:3] == ["self", "input_fn", "as_iterable"]
    assert _params(learn.KMeansClustering.predict_cluster_idx)[:2] == ["self", "input_fn"]
    assert "check_interval_secs" in _params(learn.Experiment)


def test_kmeans_clustering_takes_input_fn_positionally(tmp_path):
    pts = np.array([[0, 0], [0, 1], [10, 10], [10, 11]], np.float32)
    km = tf.contrib.learn.KMeansClustering(2, model_dir=str(tmp_path), random_seed=3,
                                           initial_clusters="kmeans_plus_plus")
    km.fit(x=pts, steps=5)

    def input_fn():
        return tf.constant(pts), None

    idx = list(km.predict_cluster_idx(input_fn))
    assert idx[0] == idx[1] != idx[2] == idx[3]
    dist = km.transform(input_fn)  # TF 1.15: an array unless as_iterable
    assert dist.shape == (4, 2)
    np.testing.assert_allclose(km.transform(pts), dist)  # (an array in input_fn's place)
    c = km.clusters()
    want = ((pts[:, None, :] - c[None]) ** 2).sum(-1)
    np.testing.assert_allclose(dist, want, rtol=1e-5, atol=1e-5)
    # TF 1.15's NearestNeighbors expands |p - c|^2 in float32: a few 1e-5 off here
    assert km.score(input_fn, 1) == pytest.approx(want.min(1).sum(), rel=1e-4)


def test_tf_layers_read_as_never_connected_keras_layers():
    # TF 1.15's tf.layers in graph mode record no inbound nodes: the Keras attributes exist
    # and say so
    d = tf.layers.Dense(4)
    d(tf.placeholder(tf.float32, [None, 3]))
    assert d.inbound_nodes == [] and d.outbound_nodes == [] and d.metrics == []
    assert d.dynamic is False
    with pytest.raises(AttributeError, match=f"Layer {d.name} is not connected, no input"):
        _ = d.input
    with pytest.raises(AttributeError, match=f"Layer {d.name} has no inbound nodes"):
        _ = d.output
    with pytest.raises(AttributeError, match="never been called and thus has no defined "
                                             "output shape"):
        _ = d.output_shape
    with pytest.raises(RuntimeError, match="never been called and thus has no defined input."):
        d.get_input_at(0)
    assert not hasattr(d, "input_shape")


@pytest.mark.parametrize("module, names", [
    ("io", ["decode_jpeg", "read_file", "write_graph", "PaddingFIFOQueue"]),
    ("estimator", ["DNNClassifier", "LinearRegressor", "BaselineClassifier"]),
    ("random", ["fixed_unigram_candidate_sampler"]),
    ("distribute", ["Server"]),
    ("contrib", ["slim", "layers", "rnn"]),
    ("raw_ops", ["MatMul", "Conv2D", "Placeholder"]),
])
def test_dir_of_lazy_namespaces_lists_their_names(module, names):
    # TF 1.15's dir() of these namespaces lists every public name; tideflow binds some on
    # first use, and dir() lists those too (programs and libraries walk dir(tf.X))
    mod = getattr(tf, module)
    listed = dir(mod)
    assert set(names) <= set(listed)
    assert all(hasattr(mod, n) for n in listed if not n.startswith("_"))
    assert set(names) <= set(dir(getattr(tf.compat.v1, module)))


def test_iterator_element_spec_indexed_slices_consumers_sparse_from_value():
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [1.0, 2.0]))
    it = ds.make_one_shot_iterator()
    assert it.element_spec == ds.element_spec
    assert it.element_spec[1] == tf.TensorSpec([], tf.float32)
    s = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 2]), tf.constant([4, 3]))
    d = tf.convert_to_tensor(s)
    want = {op.name for t in (s.values, s.indices, s.dense_shape) for op in t.consumers()}
    assert d.op.name in want and {op.name for op in s.consumers()} == want
    sv = tf.SparseTensorValue([[0, 1]], [5.0], [2, 2])
    st = tf.SparseTensor.from_value(sparse_tensor_value=sv)
    with tf.Session() as sess:
        assert sess.run(tf.sparse.to_dense(st)).tolist() == [[0, 5], [0, 0]]


def test_contrib_autograph_is_tf_autograph():
    from tideflow.contrib import autograph as ag

    assert ag is tf.contrib.autograph is tf.autograph and "autograph" in dir(tf.contrib)


def test_run_time_broadcast_error_reads_as_tfs_kernel_message():
    a = tf.placeholder(tf.float32, [None, None])
    b = tf.placeholder(tf.float32, [None])
    c = tf.add(a, b, name="plus")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(c, {a: np.ones([2, 3]), b: np.ones([4])})
    first, node = info.value.message.split("\n")[:2]
    assert first == "Incompatible shapes: [2,3] vs. [4]"  # TF 1.15's first line
    assert "[[node plus" in node and info.value.op is c.op


def test_keras_attributes_programs_read_as_tf_1_15():
    keras = tf.keras
    tok = keras.preprocessing.text.Tokenizer(num_words=4, oov_token="<u>")
    tok.fit_on_texts(["a b c a", "b d e a"])
    # TF 1.15 (keras-preprocessing): indices past num_words and unknown ones are the OOV token
    assert tok.sequences_to_texts([[1, 2, 3, 4, 5, 9]]) == ["<u> a b <u> <u> <u>"]
    assert list(tok.sequences_to_texts_generator([[2, 5]])) == ["a <u>"]
    seqs = keras.preprocessing.text.Tokenizer()
    seqs.fit_on_sequences([[1, 2, 2], [3, 1]])
    assert seqs.document_count == 2 and dict(seqs.index_docs) == {1: 2, 2: 1, 3: 1}
    assert keras.callbacks.EarlyStopping(monitor="acc").get_monitor_value({"acc": 0.5}) == 0.5
    plateau = keras.callbacks.ReduceLROnPlateau(cooldown=2)
    plateau.on_train_begin()
    assert plateau.in_cooldown() is False
    logger = keras.callbacks.BaseLogger(stateful_metrics=["x"])
    logger.params = {"metrics": ["loss", "x"]}
    logger.on_epoch_begin(0)
    for loss, x in ((1.0, 5.0), (3.0, 7.0)):
        logger.on_batch_end(0, {"size": 2, "loss": loss, "x": x})
    logs = {}
    logger.on_epoch_end(0, logs)
    assert logs == {"loss": 2.0, "x": 7.0}  # a stateful metric keeps its last value
    m = keras.Sequential([keras.layers.Dense(2, input_shape=(3,)), keras.layers.Dense(1)])
    assert m.metrics_names == ["loss"] and m.run_eagerly is False and m.dynamic is False
    first, second = m.layers
    assert len(first.inbound_nodes) == 1 and first.outbound_nodes == second.inbound_nodes
    assert second.outbound_nodes == []
    assert [type(x).__name__ for x in m.submodules] == ["InputLayer", "Dense", "Dense"]
    assert keras.layers.Layer(dynamic=True).dynamic is True

    class Blocks(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = []

    blocks = Blocks()
    blocks.blocks.append(keras.layers.Dense(2))  # (a tracked list, appended to later)
    assert [type(x).__name__ for x in blocks.submodules] == ["Dense"]


def test_keras_ragged_placeholder_is_ragged_in_its_last_unknown_dimension():
    p = tf.keras.backend.placeholder(shape=(None, None, 3), ragged=True)
    assert p.ragged_rank == 1 and p.flat_values.shape.as_list() == [None, 3]
    rt = tf.ragged.constant([[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]],
                            ragged_rank=1)
    with tf.Session() as sess:
        got = sess.run(p.flat_values * 2, {p: sess.run(rt)})
    np.testing.assert_array_equal(got, np.arange(1, 10).reshape(3, 3) * 2)


def test_an_op_refused_by_its_shape_function_spends_an_op_id():
    # TF 1.15 numbers the node its shape inference refuses: ops made after a caught error, and
    # the seeds of later random ops, number as TF's (TF prints these values)
    tf.set_random_seed(1)
    a = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [4, 5])
    g = tf.get_default_graph()
    for bad in (lambda: tf.matmul(a, b), lambda: tf.reshape(a, [7]),
                lambda: tf.concat([a, b], 0)):
        with pytest.raises(ValueError):
            bad()
    assert g._last_id == 7
    with tf.Session() as sess:
        got = sess.run(tf.random_normal([2]))
    np.testing.assert_allclose(got, [-0.44875857, 1.0096035], rtol=1e-6)
