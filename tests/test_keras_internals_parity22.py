"""tf.keras internals as TF 1.15 graph-mode programs meet them: metric objects' variables,
update and result ops, and model internals; expected values were printed by TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _ops_after(graph, start):
    return [op.name for op in graph.get_operations()[start:]]


def test_mean_metric_variables_are_resource_variables_in_no_collection():
    m = tf.keras.metrics.Mean(name="my_mean")
    x = tf.placeholder(tf.float32, [None])
    g = tf.get_default_graph()
    start = len(g.get_operations())
    upd = m.update_state(x)
    res = m.result()
    # TF 1.15: no collection holds them (local_variables_initializer leaves them alone)
    assert [v.name for v in m.variables] == ["total:0", "count:0"]
    assert tf.local_variables() == [] and tf.global_variables() == []
    assert tf.get_collection(tf.GraphKeys.METRIC_VARIABLES) == []
    assert all(isinstance(v, tf.Variable) and "Resource" in type(v).__name__
               for v in m.variables)
    # TF 1.15's ops: the total's and the count's AssignAddVariableOp, each read back, and the
    # result an Identity of div_no_nan
    assert _ops_after(g, start) == [
        "Const", "Sum", "AssignAddVariableOp", "ReadVariableOp", "Size", "Cast",
        "AssignAddVariableOp_1", "ReadVariableOp_1", "div_no_nan/ReadVariableOp",
        "div_no_nan/ReadVariableOp_1", "div_no_nan", "Identity"]
    assert res.name == "Identity:0"
    with tf.Session() as s:
        s.run(tf.local_variables_initializer())
        with pytest.raises(tf.errors.NotFoundError, match="localhost/total"):
            s.run(upd, {x: [1.0]})
        s.run(tf.variables_initializer(m.variables))
        assert s.run(upd, {x: [1.0, 2.0, 3.0]}) == 3.0  # (the count's new value)
        s.run(upd, {x: [10.0]})
        assert s.run(res) == 4.0
        assert s.run(m.variables) == [16.0, 4.0]


def test_metric_call_result_and_names():
    acc = tf.keras.metrics.Accuracy()
    rmse = tf.keras.metrics.RootMeanSquaredError()
    tf.keras.metrics.Mean()
    # TF 1.15 numbers the names a metric takes by default per graph, as layers'
    assert tf.keras.metrics.Mean().name == "mean" and tf.keras.metrics.Precision().name == \
        "precision"
    assert tf.keras.metrics.Precision().name == "precision_1"
    yt, yp = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    w = tf.placeholder(tf.float32, [None])
    u = acc.update_state(yt, yp, sample_weight=w)
    # TF 1.15: RMSE squeezes the [2, 1] predictions and takes a SquaredDifference
    v = rmse(tf.constant([1.0, 2.0]), tf.constant([[1.5], [2.5]]))
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "SquaredDifference" in names and "remove_squeezable_dimensions_1/Squeeze" in names
    assert acc.trainable_weights == [] and len(acc.non_trainable_weights) == 2
    with tf.Session() as s:
        s.run(tf.variables_initializer(acc.variables + rmse.variables))
        s.run(u, {yt: [1, 2, 3, 4], yp: [1, 2, 0, 4], w: [1.0, 1.0, 2.0, 0.0]})
        assert s.run(acc.result()) == 0.5
        assert s.run(v) == pytest.approx(0.5)  # (TF 1.15: 0.5)


def test_confusion_metrics_variables_and_results():
    prec1 = tf.keras.metrics.Precision(thresholds=[0.5])
    tp = tf.keras.metrics.TruePositives()
    sens = tf.keras.metrics.SensitivityAtSpecificity(0.5, num_thresholds=5)
    auc = tf.keras.metrics.AUC(thresholds=[0.7, 0.2])
    # TF 1.15: a count metric's one variable is its accumulator; a one-threshold list still
    # gives a scalar; SensitivityAtSpecificity's end thresholds are 0 and 1
    assert [v.name for v in tp.variables] == ["accumulator:0"]
    assert list(sens.thresholds) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert list(auc.thresholds) == [-1e-07, 0.2, 0.7, 1.0000001]
    v1 = prec1([1, 0, 1], [0.6, 0.7, 0.2])
    v2 = tp([1, 0, 1], [0.6, 0.7, 0.2])
    assert v1.get_shape().as_list() == []
    with pytest.raises(ValueError, match="`num_thresholds` must be > 0.$"):
        tf.keras.metrics.SensitivityAtSpecificity(0.5, num_thresholds=0)
    with tf.Session() as s:
        s.run(tf.variables_initializer(prec1.variables + tp.variables))
        assert s.run([v1, v2]) == [0.5, 1.0]


def test_confusion_metric_ops_and_values_match_tf():
    yt = tf.placeholder(tf.float32, [None, 3])
    yp = tf.placeholder(tf.float32, [None, 3])
    ms = [tf.keras.metrics.Precision(), tf.keras.metrics.Recall(thresholds=[0.3, 0.6]),
          tf.keras.metrics.Precision(top_k=2, name="p_top2"),
          tf.keras.metrics.Recall(class_id=1), tf.keras.metrics.AUC(num_thresholds=5),
          tf.keras.metrics.AUC(curve="PR", num_thresholds=7, name="prauc"),
          tf.keras.metrics.FalseNegatives(thresholds=[0.2, 0.8]),
          tf.keras.metrics.SensitivityAtSpecificity(0.5, num_thresholds=5)]
    g = tf.get_default_graph()
    start = len(g.get_operations())
    vals = [m(yt, yp) for m in ms]
    names = _ops_after(g, start)
    # TF 1.15's update: tiled thresholds, one AssignAddVariableOp per count in its order
    for name in ["Tile", "Tile_1", "Greater", "Tile_2", "LogicalAnd", "Cast_2", "Sum",
                 "AssignAddVariableOp", "ReadVariableOp", "group_deps", "div_no_nan",
                 "strided_slice", "prec_slope", "recall_relative_ratio",
                 "pr_auc_increment", "interpolate_pr_auc", "auc", "Identity_7"]:
        assert name in names, name
    fd = {yt: [[1, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 1]],
          yp: [[.9, .2, .3], [.1, .55, .7], [.3, .4, .8], [0.25, 0.61, 0.95]]}
    with tf.Session() as s:
        s.run(tf.variables_initializer([v for m in ms for v in m.variables]))
        s.run(vals, fd)
        got = s.run(vals, fd)
        # TF 1.15 printed these
        want = [0.6666667, [1.0, 0.6], 0.625, 0.5, 0.8857143, 0.848201, [0.0, 6.0], 1.0]
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5)
        # (TF 1.15 runs this: its range checks guard only the squeezes, which equal ranks
        # do not make)
        s.run(vals[0], {yt: [[1, 0, 0]], yp: [[1.5, 0, 0]]})


def test_class_id_metric_cannot_take_per_sample_weights():
    # TF 1.15 expands [n] weights to [n, 1] before taking the class's column
    r = np.random.RandomState(0)
    with pytest.raises(ValueError, match="values.rank=1. weights.rank=2"):
        tf.keras.metrics.Precision(class_id=2)(
            (r.rand(6, 4) > 0.6).astype("f"), r.rand(6, 4).astype("f"),
            sample_weight=r.rand(6).astype("f"))


def test_layer_losses_list_added_tensors_before_weight_regularizations():
    class Scaled(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", (3,), regularizer="l1")

        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x * self.w

    layer = Scaled()
    layer(tf.placeholder(tf.float32, [None, 3]))
    # TF 1.15 keeps weight regularizers as callables, listed after the tensors
    assert [t.name for t in layer.losses] == ["scaled/Sum:0", "scaled/w/Regularizer/add:0"]


def test_sparse_input_feeds_dense_through_a_sparse_matmul():
    # TF 1.15: Input(sparse=True) is a SparseTensor placeholder; of unknown width, Dense
    # cannot be built on it; of a known batch shape, Dense multiplies it sparsely
    inp = tf.keras.Input(shape=(5,), sparse=True)
    assert isinstance(inp, tf.SparseTensor) and inp.get_shape().as_list() == [None, None]
    assert inp.indices.name == "input_1/indices:0" and tf.keras.backend.is_sparse(inp)
    with pytest.raises(ValueError, match="last dimension of the inputs to `Dense`"):
        tf.keras.layers.Dense(3)(inp)
    sp = tf.keras.Input(batch_shape=(2, 5), sparse=True, name="sp")
    out = tf.keras.layers.Dense(3, kernel_initializer="ones", activation="relu")(sp)
    assert out.name == "dense_1/Relu:0" and out.get_shape().as_list() == [2, 3]
    model = tf.keras.Model(sp, out)
    assert model.input_shape == (2, 5) and model.layers[0].get_config()["sparse"] is True
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "dense_1/SparseTensorDenseMatMul/SparseTensorDenseMatMul" in names
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(out, {sp.indices: [[0, 1], [1, 3], [1, 4]], sp.values: [1.0, 2.0, 3.0]})
    np.testing.assert_array_equal(got, [[1, 1, 1], [5, 5, 5]])


def test_weighted_metric_of_a_remade_loss_is_the_same_metric():
    # TF 1.15 remakes the loss when weights come or go, but updates (and resets) the weighted
    # metrics it made at compile: the fit after two evaluations reports the training rows'
    # weighted accuracy alone (printed 0.37627 to five places, as the first fit's)
    tf.set_random_seed(42)
    rs = np.random.RandomState(1)
    x, y, w = rs.rand(64, 6).astype("f"), rs.randint(0, 3, 64), rs.rand(64).astype("f")
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax",
                                                       input_shape=(6,))])
    model.compile(tf.keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy",
                  metrics=["accuracy"], weighted_metrics=["accuracy"])
    kw = {"batch_size": 32, "epochs": 1, "verbose": 0, "shuffle": False,
          "validation_split": 0.25}
    first = model.fit(x, y, sample_weight=w, **kw).history
    model.evaluate(x[48:], y[48:], batch_size=32, verbose=0)
    model.evaluate(x[48:], y[48:], sample_weight=w[48:], batch_size=32, verbose=0)
    again = model.fit(x, y, sample_weight=w, **kw).history
    assert again["weighted_acc"] == first["weighted_acc"]
    np.testing.assert_allclose(again["weighted_acc"], [0.37627], atol=5e-6)


def test_mixed_precision_policies_as_tf115():
    mp = tf.keras.mixed_precision.experimental
    p = mp.Policy("mixed_float16")
    assert (p.name, p.compute_dtype, p.variable_dtype, p.should_cast_variables) == (
        "mixed_float16", "float16", "float32", True)
    assert repr(p) == ('<Policy "mixed_float16", loss_scale=DynamicLossScale('
                       'initial_loss_scale=32768.0, increment_period=2000, multiplier=2.0)>')
    q = mp.Policy("infer_float32_vars")
    assert (q.name, q.compute_dtype, q.variable_dtype, q.loss_scale) == (
        "infer_with_float32_vars", None, "float32", None)
    assert mp.Policy("float32_with_float32_vars").name == "float32"
    assert mp.Policy("mixed_bfloat16").compute_dtype == "bfloat16"
    with pytest.raises(ValueError, match='Cannot convert value float33 to a mixed precision'):
        mp.Policy("float33")
    with pytest.raises(TypeError, match="not a DType. Instead, pass DType.name. Got: float16"):
        mp.Policy(tf.float16)
    # TF 1.x keeps an "infer" global policy: a dtype is refused
    assert mp.global_policy().name == "infer"
    with pytest.raises(ValueError, match="non-infer policy in TensorFlow 2"):
        mp.set_policy("mixed_float16")
    mp.set_policy("infer_with_float32_vars")
    assert mp.global_policy().name == "infer_with_float32_vars"
    mp.set_policy(None)
    assert mp.global_policy().name == "infer"


def test_keras_loss_scale_optimizer_trains_as_tf115():
    mp = tf.keras.mixed_precision.experimental
    with pytest.raises(ValueError, match="does not support wrapping optimizers with a clipnorm"):
        mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1, clipnorm=1.0), "dynamic")
    with pytest.raises(ValueError, match='"opt" must be an instance of OptimizerV2'):
        mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1), "dynamic")
    tf.set_random_seed(1)
    rs = np.random.RandomState(0)
    x, y = rs.rand(16, 3).astype("f"), rs.rand(16, 1).astype("f")
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
    opt = mp.LossScaleOptimizer(tf.keras.optimizers.SGD(0.1), "dynamic")
    model.compile(opt, "mse")
    h = model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    # TF 1.15 printed these (the step applies under a cond on finite gradients, so the
    # optimizer's variables are named under it)
    np.testing.assert_allclose(h.history["loss"], [0.16565570794045925, 0.14975738897919655],
                               rtol=1e-6)
    assert tf.keras.backend.get_session().run([opt.loss_scale(), opt.iterations]) == [32768.0, 8]
    assert sorted(v.name for v in tf.global_variables()) == [
        "current_loss_scale:0", "dense/bias:0", "dense/kernel:0", "dense_1/bias:0",
        "dense_1/kernel:0", "good_steps:0", "training/cond_1/SGD/decay:0",
        "training/cond_1/SGD/iter:0", "training/cond_1/SGD/learning_rate:0",
        "training/cond_1/SGD/momentum:0"]
    opt2 = mp.LossScaleOptimizer(tf.keras.optimizers.Adam(0.01), 64)
    v = tf.Variable(1.0, name="vv", use_resource=True)
    step = opt2.minimize(lambda: v * v * 3.0, [v])
    scaled = opt2.get_scaled_loss(tf.constant(2.0))
    unscaled = opt2.get_unscaled_gradients([tf.constant(128.0), None])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(step)
        np.testing.assert_allclose(s.run([v, scaled, unscaled[0]]), [0.99, 128.0, 2.0])
    assert unscaled[1] is None
    with pytest.raises(NotImplementedError, match="get_config"):
        opt2.get_config()


def test_mixed_float16_layer_keeps_float32_weights_read_as_float16():
    mp = tf.keras.mixed_precision.experimental
    x = tf.placeholder(tf.float32, [None, 3])
    d = tf.keras.layers.Dense(2, kernel_initializer="ones", activation="relu",
                              dtype=mp.Policy("mixed_float16"))
    g = tf.get_default_graph()
    y = d(x)
    # TF 1.15: float32 variables (AutoCastVariable) read and cast to float16 in the call,
    # the inputs cast by Dense, a float16 output
    assert (d.dtype, d._compute_dtype, y.dtype) == ("float32", "float16", tf.float16)
    assert type(d.kernel).__name__ == "AutoCastVariable" and d.kernel.dtype == tf.float32
    assert repr(d.kernel) == ("<AutoCastVariable 'dense/kernel:0' shape=(3, 2) "
                              "dtype=float32 true_dtype=float32>")
    names = [op.name for op in g.get_operations()]
    assert names[names.index("dense/Cast"):] == [
        "dense/Cast", "dense/MatMul/ReadVariableOp", "dense/MatMul/Cast", "dense/MatMul",
        "dense/BiasAdd/ReadVariableOp", "dense/BiasAdd/Cast", "dense/BiasAdd", "dense/Relu"]
    assert [v.name for v in tf.trainable_variables()] == ["dense/kernel:0", "dense/bias:0"]
    z = tf.keras.layers.Activation("softmax", dtype="float32")(y)
    assert z.dtype == tf.float16  # (TF 1.x layers do not cast their inputs)
    loss = tf.reduce_mean(tf.cast(y, tf.float32) ** 2)
    grads = tf.gradients(loss, d.trainable_weights)
    assert [t.dtype for t in grads] == [tf.float32, tf.float32]
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss, var_list=d.trainable_weights)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out = s.run(y, {x: [[1.0, 2.0, 3.0]]})
        assert out.dtype == np.float16 and out.tolist() == [[6.0, 6.0]]
        s.run(step, {x: [[1.0, 2.0, 3.0]]})
        # TF 1.15: the kernel's first column after the step (its gradient cast to float32)
        np.testing.assert_allclose(s.run(d.kernel)[:, 0], [-2.0, -5.0, -8.0])


def test_ragged_input_feeds_layers_that_take_ragged_tensors():
    # TF 1.15: Input(ragged=True) is a ragged placeholder; Embedding cannot convert it, a
    # Lambda reducing it can, and a model takes it as its input
    inp = tf.keras.Input(shape=(None,), ragged=True, dtype=tf.int32, name="tok")
    assert isinstance(inp, tf.RaggedTensor) and inp.ragged_rank == 1
    assert inp.flat_values.name == "tok/flat_values:0"
    assert [t.name for t in inp.nested_row_splits] == ["tok/row_splits_0:0"]
    with pytest.raises(TypeError, match="Failed to convert object of type"):
        tf.keras.layers.Embedding(10, 3)(inp)
    total = tf.keras.layers.Lambda(
        lambda r: tf.reduce_sum(tf.cast(r, tf.float32), axis=1))(inp)
    assert total.name == "lambda/RaggedReduceSum/UnsortedSegmentSum:0"
    model = tf.keras.Model(inp, total)
    assert model.layers[0].get_config() == {
        "batch_input_shape": (None, None), "dtype": "int32", "sparse": False, "ragged": True,
        "name": "tok"}
    with tf.Session() as s:
        got = s.run(total, {inp: tf.ragged.constant_value([[1, 2], [3], [4, 5, 6]])})
    np.testing.assert_array_equal(got, [3.0, 3.0, 15.0])


def test_user_metric_whose_update_returns_nothing_still_updates():
    # TF 1.15 runs a user's update_state as a tf.function: its call is the update op even
    # when the method returns nothing, so compile's metrics and __call__ work
    class PosRate(tf.keras.metrics.Metric):
        def __init__(self, name="pos_rate", **kw):
            super().__init__(name=name, **kw)
            self.pos = self.add_weight("pos", initializer="zeros")
            self.n = self.add_weight("n", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            p = tf.cast(y_pred > 0.5, tf.float32)
            self.pos.assign_add(tf.reduce_sum(p))
            self.n.assign_add(tf.cast(tf.size(p), tf.float32))

        def result(self):
            return self.pos / self.n

    m = PosRate()
    value = m(tf.constant([1.0, 0.0, 1.0]), tf.constant([0.7, 0.2, 0.9]))
    assert m.updates[0].name == "PartitionedFunctionCall"  # (TF 1.15: its call op)
    with tf.Session() as s:
        s.run(tf.variables_initializer(m.variables))
        assert s.run(value) == pytest.approx(2 / 3)
        assert s.run(m.variables) == [2.0, 3.0]


class _Block(tf.keras.layers.Layer):
    def __init__(self, n, **kw):
        super().__init__(**kw)
        self.d1 = tf.keras.layers.Dense(n, activation="relu")
        self.bn = tf.keras.layers.BatchNormalization()

    def call(self, x, training=None):
        return self.bn(self.d1(x), training=training) + x


class _Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inp = tf.keras.layers.Dense(4)
        self.blocks = [_Block(4, name=f"b{i}") for i in range(2)]
        self.head = tf.keras.layers.Dense(1)

    def call(self, x, training=None):
        h = self.inp(x)
        for b in self.blocks:
            h = b(h, training=training)
        return self.head(h)


def test_subclassed_model_weights_group_a_list_of_layers_and_load_deferred(tmp_path):
    net = _Net()
    rs = np.random.RandomState(1)
    x = rs.rand(8, 3).astype("f")
    net.predict(x)
    # TF 1.15 printed these: a list attribute is one tracked layer (its ListWrapper), all
    # its trainable weights, then all its non-trainable ones, where it comes among the layers
    assert [v.name for v in net.weights] == [
        "private__net/dense/kernel:0", "private__net/dense/bias:0",
        "private__net/b0/dense_1/kernel:0", "private__net/b0/dense_1/bias:0",
        "private__net/b0/batch_normalization/gamma:0", "private__net/b0/batch_normalization/beta:0",
        "private__net/b1/dense_2/kernel:0", "private__net/b1/dense_2/bias:0",
        "private__net/b1/batch_normalization_1/gamma:0", "private__net/b1/batch_normalization_1/beta:0",
        "private__net/b0/batch_normalization/moving_mean:0",
        "private__net/b0/batch_normalization/moving_variance:0",
        "private__net/b1/batch_normalization_1/moving_mean:0",
        "private__net/b1/batch_normalization_1/moving_variance:0",
        "private__net/dense_3/kernel:0", "private__net/dense_3/bias:0"]
    net.save_weights(str(tmp_path / "ck"))
    # TF 1.15: a model not built yet takes the values when its first predict makes them
    other = _Net()
    status = other.load_weights(str(tmp_path / "ck"))
    assert type(status).__name__ == "CheckpointLoadStatus"
    np.testing.assert_array_equal(other.predict(x), net.predict(x))


def test_compile_names_metric_objects_after_their_output():
    # TF 1.15 renames (and scopes) each output's metrics after it when there are several,
    # and a weighted metric object weighted_<name>
    inp = tf.keras.Input((5,), name="x")
    h = tf.keras.layers.Dense(6, activation="relu", name="h")(inp)
    model = tf.keras.Model(inp, [tf.keras.layers.Dense(3, activation="softmax", name="cls")(h),
                                 tf.keras.layers.Dense(1, name="reg")(h)])
    top2 = tf.keras.metrics.SparseTopKCategoricalAccuracy(k=2)
    mae = tf.keras.metrics.MeanAbsoluteError()
    model.compile("adam", loss={"cls": "sparse_categorical_crossentropy", "reg": "mse"},
                  metrics={"cls": ["accuracy", top2], "reg": [mae, "mse"]})
    assert model.metrics_names == [
        "loss", "cls_loss", "reg_loss", "cls_acc", "cls_sparse_top_k_categorical_accuracy",
        "reg_mean_absolute_error", "reg_mean_squared_error"]
    assert (top2.name, mae.name) == ("cls_sparse_top_k_categorical_accuracy",
                                     "reg_mean_absolute_error")
    scopes = {op.name.split("/")[1] for op in tf.get_default_graph().get_operations()
              if op.name.startswith("metrics/")}
    assert scopes == {"cls_acc", "cls_sparse_top_k_categorical_accuracy",
                      "reg_mean_absolute_error", "reg_mean_squared_error"}
    single = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    bacc = tf.keras.metrics.BinaryAccuracy(name="bacc")
    single.compile("sgd", "mse", weighted_metrics=["acc", bacc])
    assert bacc.name == "weighted_bacc"


def test_fit_reports_a_metric_at_several_thresholds_as_a_vector():
    # TF 1.15 printed these for this program (a TruePositives at two thresholds in compile)
    tf.set_random_seed(11)
    rs = np.random.RandomState(4)
    x = rs.rand(30, 4).astype("f")
    y = np.eye(3, dtype="f")[rs.randint(0, 3, 30)]
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax",
                                                       input_shape=(4,))])
    model.compile("adam", "categorical_crossentropy",
                  metrics=[tf.keras.metrics.Precision(top_k=1, name="p1"),
                           tf.keras.metrics.Recall(class_id=2, name="r2"),
                           tf.keras.metrics.AUC(num_thresholds=50, curve="PR", name="prauc"),
                           tf.keras.metrics.TruePositives(thresholds=[0.3, 0.5])])
    h = model.fit(x, y, batch_size=10, epochs=2, verbose=0, shuffle=False).history
    np.testing.assert_allclose(h["loss"], [1.32081, 1.31618], atol=5e-6)
    np.testing.assert_allclose(h["p1"], [0.33333, 0.3], atol=5e-6)
    np.testing.assert_allclose(h["r2"], [0.1, 0.1], atol=5e-6)
    np.testing.assert_allclose(h["prauc"], [0.33192, 0.33005], atol=5e-6)
    np.testing.assert_array_equal(h["true_positives"], [[19.0, 4.0], [19.0, 4.0]])
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=7, verbose=0)[:4],
                               [1.31341, 0.3, 0.1, 0.32963], atol=5e-6)


def test_mean_relative_error_squeezes_as_tf115():
    yt = tf.constant([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    yp = tf.constant([[0.2, 0.8], [0.6, 0.4], [0.3, 0.9]])
    # TF 1.15 squeezes the [3, 2] predictions toward a [2] normalizer, whatever their size
    with pytest.raises(ValueError, match="Can not squeeze dim\\[1\\], expected a dimension "
                                         "of 1, got 2"):
        tf.keras.metrics.MeanRelativeError(normalizer=[1.0, 2.0])(yt, yp)
    m = tf.keras.metrics.MeanRelativeError(normalizer=[[1.0, 2.0]])
    v = m(yt, yp)
    with tf.Session() as s:
        s.run(tf.variables_initializer(m.variables))
        assert s.run(v) == pytest.approx(0.275)  # (TF 1.15: 0.27499998)
