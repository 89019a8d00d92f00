"""TF 1.15's signatures of public functions, constructors and methods (session 27 sweep).

TF 1.x programs pass arguments by position and lean on defaults, so each pinned callable takes
TF 1.15's parameters in TF's order with TF's defaults. Every expected list below was measured
with ``inspect.signature`` in TF 1.15.0 (tensorflow-cpu, CPython 3.7); each fixed signature also
gets a call by position that binds the way TF's does.
"""

import inspect

import numpy as np
import pytest

import tideflow as tf

_E = inspect.Parameter.empty


def _params(fn):
    """(name, default) pairs, ``self`` dropped; ``*args``/``**kwargs`` as '*name'/'**name'."""
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        out.append((prefix + p.name, p.default))
    return out


# --- the variable enums as defaults (TF: VariableSynchronization.AUTO, VariableAggregation.NONE)

_SYNC = tf.VariableSynchronization.AUTO
_AGG = tf.VariableAggregation.NONE


def test_variable_signature_enum_defaults():
    # measured in TF 1.15: tf.Variable.__init__
    assert _params(tf.Variable.__init__) == [
        ("initial_value", None), ("trainable", None), ("collections", None),
        ("validate_shape", True), ("caching_device", None), ("name", None),
        ("variable_def", None), ("dtype", None), ("expected_shape", None),
        ("import_scope", None), ("constraint", None), ("use_resource", None),
        ("synchronization", _SYNC), ("aggregation", _AGG), ("shape", None)]
    # the same objects as the public enums, as TF's
    d = inspect.signature(tf.Variable.__init__).parameters
    assert d["synchronization"].default is tf.VariableSynchronization.AUTO
    assert d["aggregation"].default is tf.VariableAggregation.NONE


@pytest.mark.parametrize("fn", ["get_variable", "get_local_variable"])
def test_get_variable_enum_defaults(fn):
    # measured in TF 1.15: the last two parameters of tf.get_variable / tf.get_local_variable
    tail = _params(getattr(tf, fn))[-2:]
    assert tail == [("synchronization", _SYNC), ("aggregation", _AGG)]
    assert tail[0][1] is tf.VariableSynchronization.AUTO


def test_variable_scope_and_slim_variable_enum_defaults():
    # measured in TF 1.15: VariableScope.get_variable, contrib.framework.(model_)variable
    for fn in (tf.VariableScope.get_variable, tf.contrib.framework.variable,
               tf.contrib.framework.model_variable):
        assert _params(fn)[-2:] == [("synchronization", _SYNC), ("aggregation", _AGG)], fn


def test_layers_add_weight_order():
    # measured in TF 1.15: tf.layers.Layer.add_weight puts synchronization and aggregation
    # before partitioner
    assert _params(tf.layers.Layer.add_weight) == [
        ("name", _E), ("shape", _E), ("dtype", None), ("initializer", None),
        ("regularizer", None), ("trainable", None), ("constraint", None),
        ("use_resource", None), ("synchronization", _SYNC), ("aggregation", _AGG),
        ("partitioner", None), ("**kwargs", _E)]
    # measured in TF 1.15: tf.keras.layers.Layer.add_weight
    assert _params(tf.keras.layers.Layer.add_weight) == [
        ("name", None), ("shape", None), ("dtype", None), ("initializer", None),
        ("regularizer", None), ("trainable", None), ("constraint", None),
        ("partitioner", None), ("use_resource", None), ("synchronization", _SYNC),
        ("aggregation", _AGG), ("**kwargs", _E)]


def test_layers_add_weight_by_position():
    with tf.Graph().as_default():
        layer = tf.layers.Layer(name="lyr")
        # by position as TF 1.15 binds it: the 11th argument is the partitioner
        v = layer.add_weight("w", [4, 2], tf.float32, tf.zeros_initializer(), None, False, None,
                             None, tf.VariableSynchronization.ON_READ,
                             tf.VariableAggregation.MEAN, None)
        assert v.name == "lyr/w:0"
        assert v not in tf.trainable_variables()  # (TF: ON_READ is never trainable)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), np.zeros((4, 2), np.float32))


def test_layers_add_weight_on_read_trainable_error():
    with tf.Graph().as_default():
        layer = tf.layers.Layer(name="lyr")
        # message measured in TF 1.15
        with pytest.raises(ValueError, match="Synchronization value can be set to "
                                             "VariableSynchronization.ON_READ only for "
                                             "non-trainable variables"):
            layer.add_weight("w", [2], trainable=True,
                             synchronization=tf.VariableSynchronization.ON_READ)


def test_keras_add_weight_by_position():
    with tf.Graph().as_default():
        layer = tf.keras.layers.Layer(name="kl")
        v = layer.add_weight("w", (3,), "float32", "ones", None, False, None, None, None,
                             tf.VariableSynchronization.ON_READ, tf.VariableAggregation.MEAN)
        assert v.synchronization == tf.VariableSynchronization.ON_READ
        assert v.aggregation == tf.VariableAggregation.MEAN
        assert layer.non_trainable_weights == [v]


# --- tf.io.gfile: TF 1.15's v2 parameter names (tf.gfile keeps the 1.x ones) ------------------

def test_io_gfile_signatures():
    # measured in TF 1.15
    g = tf.io.gfile
    expected = {
        "copy": ["src", "dst", "overwrite"], "rename": ["src", "dst", "overwrite"],
        "exists": ["path"], "isdir": ["path"], "listdir": ["path"], "makedirs": ["path"],
        "mkdir": ["path"], "remove": ["path"], "rmtree": ["path"], "stat": ["path"],
        "glob": ["pattern"], "walk": ["top", "topdown", "onerror"]}
    for name, names in expected.items():
        assert [n for n, _ in _params(getattr(g, name))] == names, name
    assert _params(g.walk) == [("top", _E), ("topdown", True), ("onerror", None)]
    # tf.gfile keeps TF 1.x's names (measured in TF 1.15)
    assert _params(tf.gfile.Walk) == [("top", _E), ("in_order", True)]
    assert _params(tf.gfile.Copy) == [("oldpath", _E), ("newpath", _E), ("overwrite", False)]
    assert _params(tf.gfile.Exists) == [("filename", _E)]


def test_io_gfile_keyword_calls(tmp_path):
    d = str(tmp_path)
    g = tf.io.gfile
    g.makedirs(path=d + "/a/b")
    with g.GFile(d + "/a/f.txt", "w") as f:
        f.write("x")
    assert g.exists(path=d + "/a") and g.isdir(path=d)
    assert g.listdir(path=d + "/a") == ["b", "f.txt"]
    g.copy(src=d + "/a/f.txt", dst=d + "/g.txt")
    g.rename(src=d + "/g.txt", dst=d + "/h.txt", overwrite=False)
    assert g.stat(path=d + "/h.txt").length == 1
    # walk by position: the second argument is topdown (values measured in TF 1.15)
    assert [(t[len(d):], s, f) for t, s, f in g.walk(d, False)] == [
        ("/a/b", [], []), ("/a", ["b"], ["f.txt"]), ("", ["a"], ["h.txt"])]
    assert list(g.walk(d + "/nope")) == []
    seen = []
    # onerror gets the NotFoundError, as TF 1.15's (whose walk then fails on an unbound local,
    # a TF bug not copied: tideflow skips the directory)
    list(g.walk(d + "/nope", True, seen.append))
    assert type(seen[0]).__name__ == "NotFoundError"
    g.remove(path=d + "/h.txt")
    g.rmtree(path=d + "/a")
    assert g.listdir(d) == []


# --- tf.nest, tf.config, tf.random.experimental parameter names ------------------------------

def test_nest_config_random_names():
    # measured in TF 1.15
    assert _params(tf.nest.is_nested) == [("seq", _E)]
    assert _params(tf.nest.map_structure) == [("func", _E), ("*structure", _E),
                                              ("**kwargs", _E)]
    assert _params(tf.config.threading.set_inter_op_parallelism_threads) == [
        ("num_threads", _E)]
    assert _params(tf.config.threading.set_intra_op_parallelism_threads) == [
        ("num_threads", _E)]
    assert _params(tf.config.experimental.set_virtual_device_configuration) == [
        ("device", _E), ("virtual_devices", _E)]
    assert _params(tf.random.experimental.create_rng_state) == [("seed", _E),
                                                                ("algorithm", _E)]
    assert tf.nest.is_nested(seq=[1]) and not tf.nest.is_nested(seq=1)
    old = tf.config.threading.get_inter_op_parallelism_threads()
    try:
        tf.config.threading.set_inter_op_parallelism_threads(num_threads=3)
        assert tf.config.threading.get_inter_op_parallelism_threads() == 3
    finally:
        tf.config.threading.set_inter_op_parallelism_threads(old)


# --- tf.contrib.layers conv1d/conv3d, tf.contrib.metrics streaming_* with an extra argument ---

_CONV_ND = ["inputs", "num_outputs", "kernel_size", "stride", "padding", "data_format", "rate",
            "activation_fn", "normalizer_fn", "normalizer_params", "weights_initializer",
            "weights_regularizer", "biases_initializer", "biases_regularizer", "reuse",
            "variables_collections", "outputs_collections", "trainable", "scope"]


@pytest.mark.parametrize("name", ["conv1d", "conv3d", "convolution1d", "convolution3d"])
def test_contrib_conv_nd_signature(name):
    fn = getattr(tf.contrib.layers, name)
    # measured in TF 1.15 (no conv_dims); arg_scope knows the keyword arguments
    assert [n for n, _ in _params(fn)] == _CONV_ND
    assert tf.contrib.framework.arg_scoped_arguments(fn) == tuple(_CONV_ND[3:])


def test_contrib_conv1d_arg_scope_and_position():
    with tf.Graph().as_default():
        x = tf.ones([2, 8, 3])
        with tf.contrib.framework.arg_scope([tf.contrib.layers.conv1d], padding="VALID"):
            y = tf.contrib.layers.conv1d(x, 4, 3, 1, activation_fn=None, scope="c")
        # by position: stride 2, padding SAME (shapes measured in TF 1.15)
        z = tf.contrib.layers.conv1d(x, 5, 3, 2, "SAME", None, 1, None, scope="d")
        assert y.shape.as_list() == [2, 6, 4]
        assert z.shape.as_list() == [2, 4, 5]


def test_contrib_streaming_extra_signatures():
    m = tf.contrib.metrics
    # measured in TF 1.15
    assert _params(m.streaming_mean_cosine_distance) == [
        ("predictions", _E), ("labels", _E), ("dim", _E), ("weights", None),
        ("metrics_collections", None), ("updates_collections", None), ("name", None)]
    assert _params(m.streaming_sensitivity_at_specificity) == [
        ("predictions", _E), ("labels", _E), ("specificity", _E), ("weights", None),
        ("num_thresholds", 200), ("metrics_collections", None), ("updates_collections", None),
        ("name", None)]
    for name, extra in [("streaming_mean_relative_error", "normalizer"),
                        ("streaming_precision_at_thresholds", "thresholds"),
                        ("streaming_recall_at_thresholds", "thresholds"),
                        ("streaming_specificity_at_sensitivity", "sensitivity")]:
        assert _params(getattr(m, name))[2] == (extra, _E), name


# --- Keras: Model.fit/evaluate/predict/compile, Layer(dynamic), SeparableConv1D, backend,
# optimizers ------------------------------------------------------------------------------------

def test_keras_model_method_signatures():
    m = tf.keras.Model
    # measured in TF 1.15: the pool arguments are named parameters; evaluate/predict take no
    # other keywords
    assert [n for n, _ in _params(m.fit)][-4:] == [
        "max_queue_size", "workers", "use_multiprocessing", "**kwargs"]
    assert _params(m.evaluate) == [
        ("x", None), ("y", None), ("batch_size", None), ("verbose", 1),
        ("sample_weight", None), ("steps", None), ("callbacks", None),
        ("max_queue_size", 10), ("workers", 1), ("use_multiprocessing", False)]
    assert _params(m.predict) == [
        ("x", _E), ("batch_size", None), ("verbose", 0), ("steps", None),
        ("callbacks", None), ("max_queue_size", 10), ("workers", 1),
        ("use_multiprocessing", False)]
    assert [n for n, _ in _params(m.compile)][-2:] == ["distribute", "**kwargs"]
    assert _params(tf.keras.layers.Layer.__init__) == [
        ("trainable", True), ("name", None), ("dtype", None), ("dynamic", False),
        ("**kwargs", _E)]


def test_keras_model_by_position():
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    y = np.ones((4, 1), np.float32)
    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,),
                                                       kernel_initializer="ones")])
        m.compile("sgd", "mse", None, None, None, None, None, None)
        h = m.fit(x, y, 2, 1, 0, None, 0.0, None, False, None, None, 0, None, None, 1, 10, 1,
                  False)
        assert sorted(h.history) == ["loss"]
        # values measured in TF 1.15
        np.testing.assert_allclose(m.evaluate(x, y, 2, 0, None, None, None, 10, 1, False),
                                   4.578068137168884, rtol=1e-6)
        np.testing.assert_allclose(m.predict(x, 2, 0, None, None, 10, 1, False).ravel(),
                                   [-0.4336001, -0.86720014, -1.3008002, -1.7344003],
                                   rtol=1e-6)
        with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
            m.predict(x, foo=1)
        with pytest.raises(TypeError, match=r"Unrecognized keyword arguments: \{'foo': 1\}"):
            m.fit(x, y, verbose=0, foo=1)


def test_keras_layer_dynamic_and_separable_conv1d_by_position():
    with tf.Graph().as_default():
        layer = tf.keras.layers.Layer(True, "lay", "float32", True)
        assert layer.dynamic and layer.name == "lay"
        # measured in TF 1.15: the 8th and 9th arguments are activation and use_bias
        s = tf.keras.layers.SeparableConv1D(3, 2, 1, "valid", None, 1, 1, "relu", False)
        out = s(tf.keras.layers.Input((5, 4)))
        assert s.activation.__name__ == "relu" and s.use_bias is False
        assert out.shape.as_list() == [None, 4, 3]
        assert [n for n, _ in _params(tf.keras.layers.SeparableConv1D.__init__)][:9] == [
            "filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
            "depth_multiplier", "activation", "use_bias"]


def test_keras_backend_name_scope_and_optimizer_defaults():
    with tf.Graph().as_default(), tf.keras.backend.name_scope(None, "dflt"):
        assert tf.constant(1.0).name == "dflt/Const:0"  # (as TF 1.15)
    # measured in TF 1.15: the learning rates are real defaults
    opt = tf.keras.optimizers
    for cls, lr in [(opt.SGD, 0.01), (opt.Adam, 0.001), (opt.RMSprop, 0.001),
                    (opt.Adagrad, 0.001), (opt.Adadelta, 0.001), (opt.Ftrl, 0.001),
                    (opt.Adamax, 0.001), (opt.Nadam, 0.001)]:
        assert _params(cls.__init__)[0] == ("learning_rate", lr), cls
    assert opt.SGD(lr=0.5).get_config()["learning_rate"] == 0.5
    assert opt.Adagrad.from_config({"learning_rate": 0.1}, None).get_config()[
        "initial_accumulator_value"] == 0.0


# --- decode_raw, adjust_jpeg_quality, export_meta_graph, contrib pieces, RNN cell calls ------

def test_decode_raw_and_adjust_jpeg_quality_order():
    # measured in TF 1.15
    assert _params(tf.io.decode_raw)[:5] == [
        ("input_bytes", None), ("out_type", None), ("little_endian", True), ("name", None),
        ("bytes", None)]
    assert _params(tf.image.adjust_jpeg_quality)[:3] == [
        ("image", _E), ("jpeg_quality", _E), ("name", None)]
    with tf.Graph().as_default():
        r = tf.io.decode_raw(tf.constant([b"\x01\x00\x02\x00"]), tf.int16, True, "dr")
        assert r.name == "dr:0"  # (as TF 1.15)
        with tf.Session() as sess:
            assert sess.run(r).tolist() == [[1, 2]]
        img = tf.zeros([4, 4, 3], tf.uint8)
        # the third argument is the name (TF 1.15's op name)
        assert tf.image.adjust_jpeg_quality(img, 90, "ajq").name == "ajq/Identity_1:0"
        with pytest.raises(ValueError, match="Cannot specify both 'bytes' and 'input_bytes'"):
            tf.io.decode_raw(tf.constant([b"ab"]), tf.uint8, bytes=tf.constant([b"ab"]))


def test_misc_signatures_measured_in_tf115():
    assert [n for n, _ in _params(tf.train.export_meta_graph)][-2:] == [
        "save_debug_info", "**kwargs"]
    assert _params(tf.contrib.distribute.AllReduceCrossDeviceOps.__init__) == [
        ("all_reduce_alg", "nccl"), ("num_packs", 1), ("agg_small_grads_max_bytes", 0),
        ("agg_small_grads_max_group", 10)]
    assert _params(tf.contrib.saved_model.load_keras_model) == [
        ("saved_model_path", _E), ("custom_objects", None)]
    assert _params(tf.keras.preprocessing.image.ImageDataGenerator.apply_transform) == [
        ("x", _E), ("transform_parameters", _E)]
    assert _params(tf.layers.Flatten.__init__) == [("data_format", None), ("**kwargs", _E)]
    assert dict(_params(tf.keras.estimator.model_to_estimator))["checkpoint_format"] == "saver"
    assert _params(tf.nn.rnn_cell.LSTMCell.__call__) == [
        ("inputs", _E), ("state", _E), ("scope", None), ("*args", _E), ("**kwargs", _E)]
    o = tf.contrib.distribute.AllReduceCrossDeviceOps("hierarchical_copy", 2)
    assert o.num_packs == 2
    with tf.Graph().as_default():
        assert tf.layers.Flatten().data_format == "channels_last"


def test_rnn_cell_call_passes_extra_arguments():
    class Scaled(tf.nn.rnn_cell.BasicRNNCell):
        def call(self, inputs, state, scale=1.0):
            output, new_state = super().call(inputs, state)
            return output * scale, new_state

    with tf.Graph().as_default():
        cell = Scaled(2, name="c")
        x = tf.ones([1, 3])
        s0 = cell.zero_state(1, tf.float32)
        o1, _ = cell(x, s0)
        o2, _ = cell(x, s0, None, 3.0)  # (by position after scope, as TF 1.15's LayerRNNCell)
        o3, _ = cell(x, s0, scale=2.0)
        assert (o2.name, o3.name) == ("c/mul_1:0", "c/mul_2:0")  # (as TF 1.15)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b, d = sess.run([o1, o2, o3])
        np.testing.assert_allclose(b, 3 * a, rtol=1e-6)
        np.testing.assert_allclose(d, 2 * a, rtol=1e-6)


# --- missing contrib names users call ------------------------------------------------------

def test_contrib_batching_and_util_loader():
    # TF 1.15: tf.contrib.batching.batch_function is tf.nondifferentiable_batch_function
    assert tf.contrib.batching.batch_function is tf.nondifferentiable_batch_function
    assert _params(tf.contrib.batching.batch_function)[:3] == [
        ("num_batch_threads", _E), ("max_batch_size", _E), ("batch_timeout_micros", _E)]
    # TF 1.15: tf.contrib.util.loader.load_op_library(path); tideflow loads no C++ libraries
    assert _params(tf.contrib.util.loader.load_op_library) == [("path", _E)]
    with pytest.raises(tf.errors.UnimplementedError):
        tf.contrib.util.loader.load_op_library("x.so")


# --- contrib.learn.RunConfig's sentinel default, the canned KMeans's seed --------------------

@pytest.mark.parametrize("kwargs, secs, steps", [
    # measured in TF 1.15 (save_checkpoints_secs, save_checkpoints_steps)
    ({}, 600, None), ({"save_checkpoints_steps": 100}, None, 100),
    ({"save_checkpoints_secs": 0}, 600, None), ({"save_checkpoints_secs": None}, None, None),
    ({"save_checkpoints_secs": 0, "save_checkpoints_steps": 100}, None, 100),
    ({"save_checkpoints_secs": 300, "save_checkpoints_steps": 100}, 300, 100),
    ({"save_checkpoints_secs": 300}, 300, None)])
def test_contrib_learn_run_config_checkpoint_defaults(kwargs, secs, steps):
    assert dict(_params(tf.contrib.learn.RunConfig.__init__))["save_checkpoints_secs"] == 0
    config = tf.contrib.learn.RunConfig(**kwargs)
    assert (config.save_checkpoints_secs, config.save_checkpoints_steps) == (secs, steps)


def test_canned_kmeans_signature(tmp_path):
    km_cls = tf.compat.v1.estimator.experimental.KMeans
    # measured in TF 1.15: the canned estimator's fifth parameter is seed (contrib's is
    # random_seed=0)
    assert _params(km_cls.__init__) == [
        ("num_clusters", _E), ("model_dir", None), ("initial_clusters", "random"),
        ("distance_metric", "squared_euclidean"), ("seed", None), ("use_mini_batch", True),
        ("mini_batch_steps_per_iteration", 1), ("kmeans_plus_plus_num_retries", 2),
        ("relative_tolerance", None), ("config", None), ("feature_columns", None)]
    assert dict(_params(tf.contrib.factorization.KMeansClustering.__init__))[
        "random_seed"] == 0
    km = km_cls(num_clusters=2, model_dir=str(tmp_path), seed=3, use_mini_batch=False)
    assert type(km).__name__ == "KMeansClustering"


def test_wide_deep_model_compile_by_position():
    # measured in TF 1.15: WideDeepModel.compile takes Model.compile's parameters
    assert [n for n, _ in _params(tf.keras.experimental.WideDeepModel.compile)][:8] == [
        "optimizer", "loss", "metrics", "loss_weights", "sample_weight_mode",
        "weighted_metrics", "target_tensors", "distribute"]
    x = np.ones((4, 2), np.float32)
    y = np.ones((4, 1), np.float32)
    with tf.Graph().as_default():
        model = tf.keras.experimental.WideDeepModel(
            tf.keras.experimental.LinearModel(), tf.keras.Sequential([tf.keras.layers.Dense(1)]))
        model.compile(["sgd", "adam"], "mse", ["mae"])  # (metrics third, as TF 1.15)
        history = model.fit([x, x], y, epochs=1, verbose=0)
        assert sorted(history.history) == ["loss", "mean_absolute_error"]  # (as TF 1.15)


def test_input_spec_config_and_bidirectional_reset_states():
    spec = tf.keras.layers.InputSpec(ndim=3, axes={-1: 4})
    # measured in TF 1.15
    assert spec.get_config() == {"dtype": None, "shape": None, "ndim": 3, "max_ndim": None,
                                 "min_ndim": None, "axes": {-1: 4}}
    assert tf.keras.layers.InputSpec.from_config(spec.get_config()).axes == {-1: 4}
    assert tf.layers.InputSpec(shape=(None, 2)).get_config()["ndim"] == 2
    with tf.Graph().as_default():
        inp = tf.keras.layers.Input(batch_shape=(2, 3, 1))
        bi = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2, stateful=True))
        model = tf.keras.Model(inp, bi(inp))
        x = np.ones((2, 3, 1), np.float32)
        first = model.predict(x)
        bi.reset_states()  # (TF 1.15's Bidirectional.reset_states)
        np.testing.assert_allclose(model.predict(x), first, rtol=1e-6)
