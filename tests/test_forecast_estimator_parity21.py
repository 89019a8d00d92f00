"""TF 1.15 parity of forecasting programs (sliding windows, RNN forecasters) and of custom
Estimators that export: each expected value below is what the same program printed under
real TF 1.15."""

import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_window_components_legacy_structure_is_their_dataset_spec():
    # TF 1.15: a window dataset's (or an Optional-valued one's) output_types, output_shapes
    # and output_classes each hold the component's DatasetSpec/OptionalSpec, which as_dtype
    # then refuses in Iterator.from_structure
    d = tf.data.Dataset.from_tensor_slices((np.arange(8), np.arange(8) * 10.0)).window(4)
    want = ("(DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([])), "
            "DatasetSpec(TensorSpec(shape=(), dtype=tf.float64, name=None), TensorShape([])))")
    assert str(d.output_types) == want
    assert str(d.output_shapes) == want
    assert str(d.output_classes) == want
    assert str(tf.compat.v1.data.get_output_shapes(d)) == want
    o = tf.data.Dataset.range(3).map(lambda x: tf.data.experimental.Optional.from_value(x))
    spec = "OptionalSpec(TensorSpec(shape=(), dtype=tf.int64, name=None),)"
    assert repr(o.output_types) == repr(o.output_shapes) == spec
    assert repr(o) == f"<DatasetV1Adapter shapes: {spec}, types: {spec}>"
    with pytest.raises(TypeError, match=r"^Cannot convert value OptionalSpec\(TensorSpec\("
                       r"shape=\(\), dtype=tf.int64, name=None\),\) to a TensorFlow DType.$"):
        tf.data.Iterator.from_structure(o.output_types, o.output_shapes)
    w = tf.data.Dataset.range(5).window(2)
    with pytest.raises(TypeError, match=r"^Cannot convert value DatasetSpec\("):
        tf.data.Iterator.from_structure(w.output_types, w.output_shapes)


def _serving_fn():
    return None


def test_exporter_names_are_checked_by_the_eval_spec():
    # TF 1.15 builds exporters of any name; EvalSpec then refuses an empty one, a non-string
    # one and a repeated one with these words
    def input_fn():
        return None

    latest = tf.estimator.LatestExporter("", _serving_fn)
    assert latest.name == "" and tf.estimator.FinalExporter("", _serving_fn).name == ""
    with pytest.raises(ValueError, match=r"^An Exporter cannot have a name that is `None` or "
                       r"empty. All exporter names: \['', 'b'\]$"):
        tf.estimator.EvalSpec(input_fn, exporters=[latest,
                                                   tf.estimator.FinalExporter("b", _serving_fn)])
    with pytest.raises(ValueError, match=r"^An Exporter must have a string name. Given: "
                       r"<class 'int'>$"):
        tf.estimator.EvalSpec(input_fn, exporters=tf.estimator.LatestExporter(3, _serving_fn))
    twice = [tf.estimator.LatestExporter("a", _serving_fn),
             tf.estimator.BestExporter("a", _serving_fn)]
    with pytest.raises(ValueError, match=r"^`exporters` must have unique names. Such a name "
                       r"cannot be `None`. All exporter names: \['a', 'a'\]$"):
        tf.estimator.EvalSpec(input_fn, exporters=twice)
    with pytest.raises(TypeError, match=r"^`exporters` must be an Exporter, an iterable of "
                       r"Exporter, or `None`, found \[3\].$"):
        tf.estimator.EvalSpec(input_fn, exporters=[3])
    with pytest.raises(TypeError, match=r"^All hooks must be `SessionRunHook` instances, "
                       r"given: 1$"):
        tf.estimator.TrainSpec(input_fn, hooks=[1])
    with pytest.raises(TypeError, match=r"^All hooks must be `SessionRunHook` instances"):
        tf.estimator.EvalSpec(input_fn, hooks=["x"])


def test_exporter_and_run_config_argument_errors():
    # TF 1.15's words: LatestExporter's and BestExporter's exports_to_keep messages differ,
    # a non-callable compare_fn is inspect's 'unsupported callable'
    with pytest.raises(ValueError, match=r"^`exports_to_keep`, if provided, must be positive "
                       r"number$"):
        tf.estimator.LatestExporter("x", _serving_fn, exports_to_keep=0)
    with pytest.raises(ValueError, match=r"^`exports_to_keep`, if provided, must be a positive "
                       r"number. Got 0$"):
        tf.estimator.BestExporter("x", _serving_fn, exports_to_keep=0)
    with pytest.raises(TypeError, match=r"^unsupported callable$"):
        tf.estimator.BestExporter("x", _serving_fn, compare_fn=3)
    with pytest.raises(ValueError, match=r"^`compare_fn` must not be None.$"):
        tf.estimator.BestExporter("x", _serving_fn, compare_fn=None)
    with pytest.raises(ValueError, match=r"^log_step_count_steps should be > 0$"):
        tf.estimator.RunConfig(log_step_count_steps=0)
    with pytest.raises(ValueError, match=r"^model_dir should be non-empty.$"):
        tf.estimator.RunConfig(model_dir="")
    assert tf.estimator.RunConfig(log_step_count_steps=None).log_step_count_steps is None


def test_serving_receiver_alternatives_and_raw_receiver_of_a_tensor():
    # TF 1.15 checks each alternative as a 'receiver_tensors_alternative' (its single tensor
    # named 'input'), updating the caller's dict; build_raw_serving_input_receiver_fn takes
    # only a dict (its fn fails on a Tensor)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with pytest.raises(ValueError, match=r"^receiver_tensors_alternative input must be a "
                       r"Tensor or SparseTensor.$"):
        tf.estimator.export.ServingInputReceiver({"f": x}, x,
                                                 receiver_tensors_alternatives={"alt": 3})
    with pytest.raises(ValueError, match=r"^receiver_tensors_alternative keys must be "
                       r"strings: 1.$"):
        tf.estimator.export.ServingInputReceiver({"f": x}, x,
                                                 receiver_tensors_alternatives={"a": {1: x}})
    alts = {"alt": x}
    r = tf.estimator.export.ServingInputReceiver({"f": x}, x, receiver_tensors_alternatives=alts)
    assert alts == {"alt": {"input": x}} and r.receiver_tensors_alternatives is alts
    fn = tf.estimator.export.build_raw_serving_input_receiver_fn(x)
    with pytest.raises(AttributeError):
        fn()
    r = tf.estimator.export.build_raw_serving_input_receiver_fn({"a": x}, 5)()
    assert r.features is r.receiver_tensors
    assert r.features["a"].name == "x_1:0" and r.features["a"].get_shape().as_list() == [5, 3]


def test_estimator_spec_graph_checks_and_variables():
    # TF 1.15: a Variable passes as a Tensor (a train_op Variable becomes its op; a default
    # PredictOutput then refuses it), and each value from another graph is named in TF's words
    mode = tf.estimator.ModeKeys
    v = tf.Variable(1.0, name="vv")
    spec = tf.estimator.EstimatorSpec(mode.TRAIN, loss=v, train_op=v)
    assert isinstance(spec.train_op, tf.Operation) and spec.train_op.name == "vv"
    assert spec.loss is v
    spec = tf.estimator.EstimatorSpec(mode.EVAL, predictions={"w": v}, loss=tf.constant(1.0))
    assert spec.predictions["w"] is v
    with pytest.raises(ValueError, match=r"^Prediction output value must be a Tensor; got "
                       r"<tf.Variable 'vv:0' shape=\(\) dtype=float32_ref>.$"):
        tf.estimator.EstimatorSpec(mode.PREDICT, predictions={"w": v})
    with tf.Graph().as_default():
        other = tf.constant(2.0, name="other")
        nop = tf.no_op(name="nop")

    def words(what, name):
        return (f'{what} with "{name}" must be from the default graph. Possible causes of this '
                f"error include: \n\n1) {what} was created outside the context of the default "
                f"graph.\n\n2) The object passed through to EstimatorSpec was not created in "
                f'the most recent call to "model_fn".')

    cases = [
        ({"mode": mode.TRAIN, "loss": tf.constant(1.0), "train_op": nop},
         words("train_op", "nop")),
        ({"mode": mode.TRAIN, "loss": other, "train_op": tf.no_op()}, words("loss", "other:0")),
        ({"mode": mode.PREDICT, "predictions": {"p": other}},
         words("prediction values", "p: other:0")),
        ({"mode": mode.PREDICT, "predictions": other}, words("prediction values", "other:0")),
        ({"mode": mode.EVAL, "loss": tf.constant(1.0),
          "eval_metric_ops": {"m": (other, tf.no_op())}}, words("eval_metric_ops", "m: other:0")),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError) as e:
            tf.estimator.EstimatorSpec(**kwargs)
        assert str(e.value) == message
    with pytest.raises(AttributeError, match="'int' object has no attribute 'graph'"):
        tf.estimator.EstimatorSpec(mode.EVAL, loss=tf.constant(1.0),
                                   eval_metric_ops={"m": (tf.constant(1.0), 3)})


def test_import_graph_def_fills_the_callers_default_attrs():
    # TF 1.15's import_graph_def adds the missing default attrs to the GraphDef it is given
    # (so a loaded SavedModel's meta_graph_def shows them even when its file stripped them)
    gd = tf.GraphDef()
    a = gd.node.add(name="a", op="Placeholder")
    a.attr["dtype"].type = tf.float32.as_datatype_enum
    m = gd.node.add(name="m", op="MatMul", input=["a", "a"])
    m.attr["T"].type = tf.float32.as_datatype_enum
    tf.import_graph_def(gd, name="")
    assert sorted(a.attr) == ["dtype", "shape"] and a.attr["shape"].shape.unknown_rank
    assert sorted(m.attr) == ["T", "transpose_a", "transpose_b"]
    assert not m.attr["transpose_a"].b


def _tiny_estimator(model_dir):
    def model_fn(features, labels, mode):
        out = tf.matmul(features["x"], tf.get_variable("w", [2, 1]))
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"y": out})
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(out), train_op=tf.assign_add(
            tf.train.get_global_step(), 1))

    est = tf.estimator.Estimator(model_fn, str(model_dir))
    est.train(lambda: ({"x": tf.ones([1, 2])}, tf.ones([1])), steps=1)
    return est


def test_export_savedmodel_keeps_default_attrs_unless_told(tmp_path):
    # TF 1.15: the deprecated export_savedmodel strips default-valued attrs only with
    # strip_default_attrs=True; export_saved_model always strips them
    from tideflow.protos import saved_model_pb2

    est = _tiny_estimator(tmp_path / "m")
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 2])})
    got = []
    for export in (lambda b: est.export_savedmodel(b, raw),
                   lambda b: est.export_savedmodel(b, raw, strip_default_attrs=True),
                   lambda b: est.export_saved_model(b, raw)):
        path = export(str(tmp_path / f"e{len(got)}")).decode()
        with open(os.path.join(path, "saved_model.pb"), "rb") as f:
            mg = saved_model_pb2.SavedModel.FromString(f.read()).meta_graphs[0]
        attrs = {n.name: sorted(n.attr) for n in mg.graph_def.node}
        got.append((mg.meta_info_def.stripped_default_attrs, attrs["MatMul"], attrs["w"]))
    full = ["_class", "_output_shapes", "container", "dtype", "shape", "shared_name"]
    assert got == [(False, ["T", "_output_shapes", "transpose_a", "transpose_b"], full),
                   (True, ["T", "_output_shapes"], ["_class", "_output_shapes", "dtype", "shape"]),
                   (True, ["T", "_output_shapes"], ["_class", "_output_shapes", "dtype", "shape"])]


def test_model_to_estimator_warm_starts_from_a_keras_checkpoint(tmp_path):
    # TF 1.15 saves the Keras weights (with the training graph's global step and optimizer
    # variables) as model_dir/keras/keras_model.ckpt and warm-starts the trainable variables
    # from it: a BatchNormalization's moving statistics start again from 0 and 1
    tf.set_random_seed(5)
    x = np.random.RandomState(0).rand(32, 3).astype("float32") * 5 + 2
    inp = tf.keras.layers.Input((3,), name="f")
    h = tf.keras.layers.BatchNormalization(name="bn")(inp)
    m = tf.keras.Model(inp, tf.keras.layers.Dense(1, name="o", kernel_initializer="ones")(h))
    m.compile(tf.keras.optimizers.SGD(0.0), "mse")
    m.fit(x, x[:, :1], batch_size=32, epochs=3, verbose=0)
    est = tf.keras.estimator.model_to_estimator(keras_model=m, model_dir=str(tmp_path))
    ckpt = str(tmp_path / "keras" / "keras_model.ckpt")
    assert est._warm_start_settings.ckpt_to_initialize_from == ckpt
    assert sorted(os.listdir(tmp_path)) == ["keras"]
    assert sorted(n for n, _ in tf.train.list_variables(ckpt)) == [
        "bn/beta", "bn/gamma", "bn/moving_mean", "bn/moving_variance", "global_step", "o/bias",
        "o/kernel", "training/SGD/decay", "training/SGD/learning_rate", "training/SGD/momentum"]
    np.testing.assert_allclose(tf.train.load_variable(ckpt, "bn/moving_mean"),
                               m.get_weights()[2])
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"f": x}, x[:, :1])).batch(32), steps=1)
    # TF 1.15: [0.0427, 0.0427, 0.0462], one 0.99-momentum step from zero
    np.testing.assert_allclose(est.get_variable_value("bn/moving_mean"), x.mean(0) * 0.01,
                               rtol=1e-4)


def test_warm_start_checks_variables_in_checkpoint_name_order(tmp_path):
    # TF 1.15 gathers every variable without a vocabulary into one init_from_checkpoint,
    # which goes through them sorted by checkpoint name: a too-wide layer's bias (enc/h/bias)
    # is reported before its kernel, and a missing new/h/bias before nope/kernel
    def build(units, scope):
        with tf.variable_scope(scope):
            tf.layers.dense(tf.ones([2, 3]), units, name="h")

    with tf.Graph().as_default():
        build(4, "enc")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            tf.train.Saver().save(s, str(tmp_path / "m"))
    with tf.Graph().as_default():
        build(5, "enc")
        with pytest.raises(ValueError, match=r"^Shape of variable enc/h/bias:0 \(\(5,\)\) "
                           r"doesn't match with shape of tensor enc/h/bias \(\[4\]\)"):
            tf.train.warm_start(str(tmp_path))
    with tf.Graph().as_default():
        build(4, "new")
        with pytest.raises(ValueError, match=r"^Tensor new/h/bias is not found in "):
            tf.train.warm_start(str(tmp_path), "new/.*",
                                var_name_to_prev_var_name={"new/h/kernel": "nope/kernel"})


def test_forward_features_as_tf_contrib(tmp_path):
    # TF 1.15's contrib forward_features: every mode with predictions is checked (a Tensor
    # there fails training too), keys are type-checked with TF's words, a feature named in
    # sparse_default_values must be sparse, and the serving PredictOutput gains the features
    x = np.random.RandomState(0).rand(6, 2).astype(np.float32)

    def model_fn(features, labels, mode):
        out = tf.layers.dense(features["x"], 1, name="d", kernel_initializer=tf.ones_initializer())
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"y": out}, export_outputs={
                "serving_default": tf.estimator.export.PredictOutput({"y": out})})
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(out), predictions=out,
                                          train_op=tf.assign_add(tf.train.get_global_step(), 1))

    est = tf.estimator.Estimator(model_fn, str(tmp_path))
    ff = tf.contrib.estimator.forward_features
    with pytest.raises(TypeError, match=r"^keys should be either a string or a list of strings. "
                       r"Given: <class 'int'>$"):
        ff(est, 3)
    with pytest.raises(TypeError, match=r"^All items in the given keys list should be a string. "
                       r"There exist an item with type: <class 'int'>$"):
        ff(est, ["a", 3])
    with pytest.raises(ValueError, match=r"^Predictions should be a dict to be able to forward "
                       r"features. Given: <class '.*Tensor'>$"):
        ff(est, "x").train(lambda: ({"x": tf.constant(x)}, tf.zeros([6, 1])), steps=1)
    est.train(lambda: ({"x": tf.constant(x)}, tf.zeros([6, 1])), steps=1)

    def pin():
        return {"x": tf.constant(x[:2]), "id": tf.constant([7, 8]),
                "sp": tf.SparseTensor([[0, 0]], [5], [2, 2])}

    got = next(ff(est, ["id", "sp"], sparse_default_values={"sp": -1}).predict(pin))
    assert sorted(got) == ["id", "sp", "y"] and got["sp"].tolist() == [5, -1]
    with pytest.raises(ValueError, match=r"^Feature \(id\) is expected to be a `SparseTensor`.$"):
        next(ff(est, ["id"], sparse_default_values={"id": -1}).predict(pin))
    with pytest.raises(ValueError, match=r"^Feature \(sp\) should be a Tensor. Please use `keys` "
                       r"argument of forward_features to filter unwanted features, oradd key to "
                       r"argument `sparse_default_values`.Type of features\[sp\] is"):
        next(ff(est).predict(pin))
    with pytest.raises(ValueError, match=r"^keys should be exist in features. Key \"zz\" is not "
                       r"in features dict. features dict has following keys: dict_keys\(\['x', "
                       r"'id', 'sp'\]\). Please check arguments of forward_features.$"):
        next(ff(est, ["zz"]).predict(pin))
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 2]), "id": tf.placeholder(tf.int64, [None])})
    path = ff(est, "id").export_saved_model(str(tmp_path / "e"), raw)
    with tf.Session(graph=tf.Graph()) as s:
        mg = tf.saved_model.loader.load(s, ["serve"], path)
    assert sorted(mg.signature_def["serving_default"].outputs) == ["id", "y"]


def test_dataset_functions_raise_the_graph_def_min_consumer():
    # TF 1.15 (Graph::AddFunctionLibrary): a graph holding a function (a dataset's map or a
    # one-shot iterator's factory) needs GraphDef consumers of version 12; conds and loops,
    # v1 frames there, leave the versions alone
    g = tf.get_default_graph()
    tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(2))
    tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    d = tf.data.Dataset.range(3)
    assert str(g.as_graph_def().versions) == "producer: 134\n"
    d.map(lambda x: x + 1)
    assert str(g.as_graph_def().versions) == "producer: 134\nmin_consumer: 12\n"
    assert str(g.graph_def_versions) == "producer: 134\nmin_consumer: 12\n"
    with tf.Graph().as_default() as g2:
        tf.data.Dataset.range(3).make_one_shot_iterator()
    assert g2.graph_def_versions.min_consumer == 12


def test_window_argument_errors_are_tfs_words():
    # TF 1.15's WindowDataset: 'Window size must be greater than zero.' (nothing appended),
    # raised when the iterator is initialized
    r = tf.data.Dataset.range(10)
    for make, what in ((lambda: r.window(0), "size"), (lambda: r.window(2, shift=0), "shift"),
                       (lambda: r.window(2, stride=-1), "stride")):
        it = make().flat_map(lambda w: w.batch(2)).make_initializable_iterator()
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(it.initializer)
        assert e.value.message.split("\n")[0] == f"Window {what} must be greater than zero."


def test_export_all_saved_models_train_op_and_restore_error(tmp_path):
    # TF 1.15: tf.estimator.experimental has build_raw_supervised_input_receiver_fn (and
    # make_stop_at_checkpoint_step_hook, a StopAtStepHook on the chief); the TRAIN and EVAL
    # MetaGraphDefs hold the spec's train op in 'saved_model_train_op'; a variable missing from
    # the checkpoint is a ValueError naming the mode and checkpoint
    from tideflow.protos import saved_model_pb2

    x = np.random.RandomState(0).rand(8, 3).astype(np.float32)
    extra = []

    def model_fn(features, labels, mode):
        out = tf.layers.dense(features["x"], 1, name="d")
        if mode == tf.estimator.ModeKeys.PREDICT:
            if extra:
                out += tf.get_variable("extra", [1])
            return tf.estimator.EstimatorSpec(mode, predictions={"y": out})
        loss = tf.losses.mean_squared_error(labels, out)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.assign_add(
            tf.train.get_global_step(), 1))

    est = tf.estimator.Estimator(model_fn, str(tmp_path / "m"))
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(4),
              steps=1)
    assert isinstance(tf.estimator.experimental.make_stop_at_checkpoint_step_hook(est, 5),
                      tf.train.StopAtStepHook)
    sup = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 3])}, tf.placeholder(tf.float32, [None, 1]))
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 3])})
    m = tf.estimator.ModeKeys
    path = est.experimental_export_all_saved_models(
        str(tmp_path / "all"), {m.TRAIN: sup, m.EVAL: sup, m.PREDICT: raw})
    with open(os.path.join(path, b"saved_model.pb"), "rb") as f:
        graphs = saved_model_pb2.SavedModel.FromString(f.read()).meta_graphs
    assert [("saved_model_train_op" in g.collection_def, list(g.meta_info_def.tags))
            for g in graphs] == [(True, ["train"]), (True, ["eval"]), (False, ["serve"])]
    extra.append(1)
    with pytest.raises(ValueError) as e:
        est.export_saved_model(str(tmp_path / "e"), raw)
    ckpt = str(tmp_path / "m" / "model.ckpt-1")
    assert str(e.value).startswith(
        "Could not load all requested variables from checkpoint. Please make sure your model_fn "
        "does not expect variables that were not saved in the checkpoint.\n\nEncountered error "
        f"with mode `infer` while restoring checkpoint from: `{ckpt}`. Full Traceback:\n\n"
        "Restoring from checkpoint failed.")


def test_predict_batch_length_as_tf(tmp_path):
    # TF 1.15's _extract_batch_length: a scalar prediction fails on numpy's shape[0]
    # (IndexError), a length mismatch is its ValueError
    x = np.random.RandomState(0).rand(5, 3).astype(np.float32)

    def model_fn(features, labels, mode, params):
        out = tf.layers.dense(features["x"], 1, name="d")
        if mode == tf.estimator.ModeKeys.PREDICT:
            extra = {"s": lambda: tf.constant(3.0), "z": lambda: tf.zeros([7])}
            return tf.estimator.EstimatorSpec(mode, predictions={
                "y": out, **{k: extra[k]() for k in params["keys"]}})
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_mean(out),
                                          train_op=tf.assign_add(tf.train.get_global_step(), 1))

    tf.estimator.Estimator(model_fn, str(tmp_path), params={"keys": ()}).train(
        lambda: ({"x": tf.constant(x)}, tf.zeros([5, 1])), steps=1)

    def predict(*keys):
        est = tf.estimator.Estimator(model_fn, str(tmp_path), params={"keys": keys})
        return list(est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(5)))

    with pytest.raises(IndexError, match="tuple index out of range"):
        predict("s")
    with pytest.raises(ValueError, match=r"^Batch length of predictions should be same. z has "
                       r"different batch length than others.$"):
        predict("z")
    assert len(predict()) == 5
