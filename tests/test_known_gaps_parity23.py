"""TF 1.15 parity for gaps earlier work left: malformed device requests, the float16 matmul's
accumulation, Keras metrics as layers, RNN output names, run metadata, logging, estimator heads.

Reference strings and numbers were measured in TF 1.15 (CPU)."""

import numpy as np
import pytest

import tideflow as tf

# -- device requests the runtime's grammar rejects ------------------------------------------

@pytest.mark.parametrize("device", ["/job:", "/job:1x", "/job:a-b", "/job:a b",
                                    "/job:localhost/replica:-1", "/cpu:-1", "/device:1CPU:0",
                                    "/device:C-PU:0"])
def test_malformed_device_fails_at_run(device):
    # TF 1.15: graph building keeps the string, Session.run raises InvalidArgumentError
    # "Malformed device specification '/job:' in node: {name:'x' id:2 ..." (soft or not)
    g = tf.Graph()
    with g.as_default():
        with tf.device(device):
            x = tf.placeholder(tf.float32, name="x")
        y = tf.add(x, 1.0, name="y")
        for soft in (False, True):
            with tf.Session(config=tf.ConfigProto(allow_soft_placement=soft)) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(y, {x: 1.0})
                spec = tf.DeviceSpec.from_string(device).to_string()
                assert str(info.value).startswith(
                    f"Malformed device specification '{spec}' in node: {{name:'x' id:2 ")
                assert "Placeholder[dtype=DT_FLOAT" in str(info.value)


@pytest.mark.parametrize("device", ["//cpu:0", "/job:*", "/device:*:0", "/cpu:*",
                                    "/job:localhost/device:cpu:0", "/device:CPU:0 "])
def test_wellformed_device_runs(device):
    # TF 1.15 runs all of these on the local CPU ('//cpu:0' normalizes to '/device:CPU:0')
    g = tf.Graph()
    with g.as_default():
        with tf.device(device):
            c = tf.constant(1)
        with tf.Session() as sess:
            assert sess.run(c + 1) == 2


def test_device_spec_parse_errors():
    # TF 1.15's DeviceSpec parse errors (class and words)
    for spec, words in [("/cpu:x", "invalid literal for int() with base 10: 'x'"),
                        ("/device:CPU", "Unknown attribute: 'device' in '/device:CPU'"),
                        ("/gpu:0/cpu:0", "Cannot specify multiple device types: /gpu:0/cpu:0")]:
        with pytest.raises(ValueError) as info:
            tf.DeviceSpec.from_string(spec)
        assert str(info.value) == words
    assert tf.DeviceSpec.from_string("//cpu:0").to_string() == "/device:CPU:0"
    assert tf.DeviceSpec.from_string("/job:a/job:b").to_string() == "/job:b"


# -- float16 products accumulate in half -----------------------------------------------------

# bit patterns of TF 1.15's CPU results (measured) for the arrays of _half_operands()
_TF_HALF_MATMUL = [
    [51087, 14261, 16832, 18470, 16114], [17805, 50379, 47657, 18127, 50809],
    [17516, 17743, 50011, 47853, 17640], [15864, 16235, 16940, 16463, 17839],
    [17446, 50700, 45144, 50342, 17453], [50470, 50152, 15517, 11896, 17671]]
_TF_HALF_BATCH_MATMUL = [
    [[45518, 16330, 50302, 49782], [14156, 11728, 17868, 14988],
     [50761, 17428, 18052, 16887]],
    [[50218, 47693, 46449, 49305], [16415, 50053, 47613, 50177],
     [15276, 15500, 48945, 15600]]]


def _half_operands():
    rng = np.random.RandomState(7)
    a = rng.uniform(-1, 1, (6, 200)).astype(np.float16)
    b = rng.uniform(-1, 1, (200, 5)).astype(np.float16)
    ba = rng.uniform(-1, 1, (2, 3, 100)).astype(np.float16)
    bb = rng.uniform(-1, 1, (2, 100, 4)).astype(np.float16)
    return a, b, ba, bb


def test_float16_matmul_accumulates_in_half():
    a, b, ba, bb = _half_operands()
    with tf.Graph().as_default(), tf.Session() as sess:
        r, rt, rb = sess.run([tf.matmul(a, b),
                              tf.matmul(b, a, transpose_a=True, transpose_b=True),
                              tf.matmul(ba, bb)])
    assert r.dtype == np.float16
    assert r.view(np.uint16).tolist() == _TF_HALF_MATMUL
    assert rt.T.view(np.uint16).tolist() == _TF_HALF_MATMUL
    assert rb.view(np.uint16).tolist() == _TF_HALF_BATCH_MATMUL
    # rounding the float32 product once gives other bits (28 of the 30 differ)
    f32 = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    assert (f32.view(np.uint16) != np.array(_TF_HALF_MATMUL, np.uint16)).sum() == 28


# -- tf.logging's handler: decided once, at import, as TF 1.15 ------------------------------

def _stderr_of(code):
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr
    return [line for line in done.stderr.splitlines() if line]


def test_logging_prints_twice_when_root_is_configured_after_import():
    # TF 1.15 (measured): the "tensorflow" logger got its own handler at import, so after
    # absl's app.run (or logging.basicConfig) each record prints by it and again by the root
    lines = _stderr_of(
        "import sys\nimport tideflow as tf\nfrom absl import app\n"
        "def main(_):\n    tf.logging.set_verbosity(tf.logging.INFO)\n"
        "    tf.logging.info('hello %d', 1)\n    tf.logging.warning('warn')\n"
        "app.run(main, argv=sys.argv[:1])\n")
    assert lines[0] == "INFO:tensorflow:hello 1"
    assert lines[1].startswith("I") and lines[1].endswith("<string>:6] hello 1")
    assert lines[2] == "WARNING:tensorflow:warn"
    assert lines[3].startswith("W") and lines[3].endswith("<string>:7] warn")
    assert len(lines) == 4


def test_logging_prints_once_when_root_is_configured_before_import():
    # TF 1.15 (measured): no handler of its own, the root's format only
    lines = _stderr_of(
        "import logging\nlogging.basicConfig(level=logging.INFO, "
        "format='ROOT:%(name)s:%(message)s')\nimport tideflow as tf\n"
        "tf.logging.set_verbosity(tf.logging.INFO)\ntf.logging.info('hello %d', 1)\n"
        "assert not tf.get_logger().handlers\n")
    assert lines == ["ROOT:tensorflow:hello 1"]


# -- tf.estimator.Head and the public heads' Head methods -----------------------------------

def test_estimator_head_is_the_abstract_base_of_the_public_heads():
    import inspect

    head_cls = tf.estimator.Head
    assert inspect.isabstract(head_cls)
    with pytest.raises(TypeError):
        head_cls()
    for name in ("BinaryClassHead", "MultiClassHead", "RegressionHead", "MultiLabelHead",
                 "PoissonRegressionHead", "LogisticRegressionHead", "MultiHead"):
        cls = getattr(tf.estimator, name)
        assert issubclass(cls, head_cls) and not inspect.isabstract(cls), name
    # TF 1.15's signatures
    assert str(inspect.signature(head_cls.create_estimator_spec)) == (
        "(self, features, mode, logits, labels=None, optimizer=None, trainable_variables=None, "
        "train_op_fn=None, update_ops=None, regularization_losses=None)")
    assert str(inspect.signature(tf.estimator.BinaryClassHead.loss)) == (
        "(self, labels, logits, features=None, mode=None, regularization_losses=None)")
    assert str(inspect.signature(tf.estimator.BinaryClassHead.update_metrics)) == (
        "(self, eval_metrics, features, logits, labels, regularization_losses=None)")
    assert str(inspect.signature(tf.estimator.RegressionHead.predictions)) == "(self, logits)"
    assert str(inspect.signature(tf.estimator.BinaryClassHead.__init__)).endswith(
        "loss_reduction='sum_over_batch_size', loss_fn=None, name=None)")
    assert tf.estimator.BinaryClassHead().loss_reduction == "sum_over_batch_size"
    assert tf.estimator.RegressionHead(loss_reduction="sum").loss_reduction == "sum"

    class Custom(head_cls):  # a user's head: the abstract members make it abstract too
        pass

    assert inspect.isabstract(Custom)


def test_binary_head_loss_predictions_metrics_as_tf():
    head = tf.estimator.BinaryClassHead(thresholds=[0.3])
    labels = np.array([[0.0], [1.0], [1.0]], np.float32)
    logits = np.array([[-1.0], [2.0], [0.5]], np.float32)
    with tf.Graph().as_default():
        reg = [tf.constant(0.5)]
        loss = head.loss(labels, logits, features={"x": logits}, regularization_losses=reg)
        preds = head.predictions(logits)
        metrics = head.metrics(regularization_losses=reg)
        spec = head.create_estimator_spec({"x": logits}, tf.estimator.ModeKeys.EVAL, logits,
                                          labels)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            # TF 1.15 (measured): 'losses/add:0' 0.80475557; the spec's loss 0.30475557
            assert loss.name == "losses/add:0"
            np.testing.assert_allclose(sess.run(loss), 0.80475557, rtol=1e-6)
            np.testing.assert_allclose(sess.run(spec.loss), 0.30475557, rtol=1e-6)
            assert sorted(preds) == ["all_class_ids", "all_classes", "class_ids", "classes",
                                     "logistic", "logits", "probabilities"]
            assert sorted(head.predictions(logits, keys=["logits"])) == ["logits"]
            ops = spec.eval_metric_ops
            assert all(isinstance(v, tuple) and len(v) == 2 for v in ops.values())
            sess.run([v[1] for v in ops.values()])
            got = {k: round(float(sess.run(v[0])), 4) for k, v in ops.items()}
    # TF 1.15's keys, order and metric classes (measured)
    assert [(k, type(v).__name__) for k, v in metrics.items()] == [
        ("average_loss", "Mean"), ("accuracy", "Accuracy"), ("precision", "Precision"),
        ("recall", "Recall"), ("prediction/mean", "Mean"), ("label/mean", "Mean"),
        ("accuracy_baseline", "Mean"), ("auc", "AUC"), ("auc_precision_recall", "AUC"),
        ("regularization_loss", "Mean"), ("accuracy/positive_threshold_0.3", "BinaryAccuracy"),
        ("precision/positive_threshold_0.3", "Precision"),
        ("recall/positive_threshold_0.3", "Recall")]
    assert got == {"accuracy": 1.0, "accuracy/positive_threshold_0.3": 1.0,
                   "accuracy_baseline": 0.6667, "auc": 1.0, "auc_precision_recall": 1.0,
                   "average_loss": 0.3048, "label/mean": 0.6667, "precision": 1.0,
                   "precision/positive_threshold_0.3": 1.0, "prediction/mean": 0.5907,
                   "recall": 1.0, "recall/positive_threshold_0.3": 1.0}


def test_multi_label_head_metrics_as_tf():
    head = tf.estimator.MultiLabelHead(3, classes_for_class_based_metrics=[0, 2],
                                       thresholds=[0.4])
    with tf.Graph().as_default():
        # TF 1.15 (measured): keys in its order, the regularization mean after the head's own
        assert list(head.metrics(regularization_losses=[1.0])) == [
            "average_loss", "auc", "auc_precision_recall", "regularization_loss",
            "accuracy/positive_threshold_0.4", "precision/positive_threshold_0.4",
            "recall/positive_threshold_0.4", "probability_mean/class0", "auc/class0",
            "auc_precision_recall/class0", "probability_mean/class2", "auc/class2",
            "auc_precision_recall/class2"]
        metrics = head.metrics()
        logits = np.array([[1.0, -1, 0.5], [0.5, 2, -1]], np.float32)
        labels = np.array([[1, 0, 1], [0, 1, 0]])
        head.update_metrics(metrics, {}, logits, labels)
        mean = metrics["probability_mean/class0"]
        value = mean.result()
        with tf.Session() as sess:
            sess.run(tf.variables_initializer(mean.variables))
            sess.run(mean.updates)
            np.testing.assert_allclose(sess.run(value), np.mean(1 / (1 + np.exp(-logits[:, 0]))),
                                       rtol=1e-6)


def test_multi_head_metrics_as_tf():
    head = tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a"),
                                   tf.estimator.MultiClassHead(3, name="b")])
    with tf.Graph().as_default():
        metrics = head.metrics(regularization_losses=[1.0])
    # TF 1.15 (measured)
    assert [(k, v.name) for k, v in metrics.items()] == [
        ("regularization_loss/a_b", "regularization_loss"), ("loss/a", "loss/a"),
        ("loss/b", "loss/b")]
    assert tf.estimator.MultiClassHead(3).metrics([1.0]).keys() == {
        "average_loss", "regularization_loss", "accuracy"}


def test_public_head_trains_with_a_keras_optimizer(tmp_path):
    x = np.linspace(-1, 1, 40).astype(np.float32).reshape(-1, 1)
    y = np.minimum((x > 0.1).astype(np.float32) + (x > 0.6), 1.0)
    head = tf.estimator.RegressionHead()

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(10)

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [1, 1], initializer=tf.constant_initializer(0.5),
                            use_resource=True)
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer(), use_resource=True)
        logits = tf.matmul(features["x"], w) + b
        opt = tf.keras.optimizers.SGD(0.5)
        opt.iterations = tf.train.get_or_create_global_step()
        return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                          labels=labels, optimizer=opt,
                                          trainable_variables=tf.trainable_variables())

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(input_fn, steps=8)
    got = {k: round(float(v), 4) for k, v in est.evaluate(input_fn).items()}
    # TF 1.15 (measured)
    assert got == {"average_loss": 0.133, "global_step": 4.0, "label/mean": 0.45,
                   "loss": 0.133, "prediction/mean": 0.6274}
    with tf.Graph().as_default():
        tf.train.create_global_step()
        with pytest.raises(ValueError, match="The given optimizer is not a "
                           "tf.keras.optimizers.Optimizer instance"):
            head.create_estimator_spec({}, "train", tf.constant([[1.0]]), tf.constant([[1.0]]),
                                       optimizer=tf.train.GradientDescentOptimizer(0.1))


# -- a Keras metric is a Layer ----------------------------------------------------------------

def test_keras_metric_is_a_layer():
    with tf.Graph().as_default():
        m = tf.keras.metrics.Mean(name="mymean")
        assert isinstance(m, tf.keras.layers.Layer)
        # TF 1.15 (measured): the state exists once made, in no collection
        assert [v.name for v in m.weights] == ["total:0", "count:0"]
        assert [v.name for v in m.non_trainable_weights] == ["total:0", "count:0"]
        assert m.trainable_weights == [] and m.metrics == [] and m.losses == []
        assert (m.name, m.dtype, m.stateful, m.trainable, m.built, m.dynamic) == (
            "mymean", "float32", True, True, True, False)
        assert m.get_config() == {"name": "mymean", "dtype": "float32"}
        assert tf.keras.metrics.Mean(name="x", dtype="float64").dtype == "float64"
        update = m.update_state([1.0, 2.0, 3.0])
        result = m.result()
        assert tf.local_variables() == [] and tf.global_variables() == []
        with tf.Session() as sess:
            sess.run(tf.variables_initializer(m.variables))
            sess.run(update)
            assert sess.run(result) == 2.0
            m.reset_states()
            assert sess.run(result) == 0.0
            assert sess.run(m([4.0, 6.0])) == 5.0


def test_metric_attribute_of_a_model_is_tracked_as_in_tf():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(1)
            self.acc = tf.keras.metrics.Mean(name="acc_m")

        def call(self, x):
            return self.d(x)

    with tf.Graph().as_default():
        net = Net()
        net(tf.ones((4, 3)))
        # TF 1.15 (measured): the metric is a layer of the model, its state among its weights
        assert [w.name for w in net.weights] == ["net/dense/kernel:0", "net/dense/bias:0",
                                                 "total:0", "count:0"]
        assert [layer.name for layer in net.layers] == ["dense", "acc_m"]
        assert [m.name for m in net.metrics] == ["acc_m"]


# -- Keras RNN layers' last output: TF's '<layer>/strided_slice_<n>' --------------------------

def _rnn_output_names(make):
    with tf.Graph().as_default():
        x = tf.keras.Input((5, 3))
        out = make(x)
        return [t.name for t in (out if isinstance(out, list) else [out])]


def test_rnn_last_output_names_as_tf():
    layers = tf.keras.layers
    # names measured in TF 1.15
    cases = [
        (lambda x: layers.SimpleRNN(4)(x), ["simple_rnn/strided_slice_3:0"]),
        (lambda x: layers.LSTM(4)(x), ["lstm/strided_slice_7:0"]),
        (lambda x: layers.GRU(4)(x), ["gru/strided_slice_12:0"]),
        (lambda x: layers.LSTM(4, implementation=2)(x), ["lstm/strided_slice_3:0"]),
        (lambda x: layers.GRU(4, implementation=2)(x), ["gru/strided_slice_10:0"]),
        (lambda x: layers.GRU(4, reset_after=True, implementation=2)(x),
         ["gru/strided_slice_9:0"]),
        (lambda x: layers.LSTM(4, recurrent_dropout=0.2)(x), ["lstm/strided_slice_7:0"]),
        (lambda x: layers.LSTM(4)(layers.Masking()(x)), ["lstm/strided_slice_7:0"]),
        (lambda x: layers.LSTM(4, go_backwards=True)(x), ["lstm/strided_slice_7:0"]),
        (lambda x: layers.LSTM(4, time_major=True)(x), ["lstm/strided_slice_7:0"]),
        (lambda x: layers.RNN([layers.LSTMCell(4), layers.GRUCell(3)])(x),
         ["rnn/strided_slice_16:0"]),
        (lambda x: layers.GRU(4, return_state=True)(x),
         ["gru/strided_slice_12:0", "gru/while/Exit_2:0"]),
        (lambda x: layers.LSTM(4, return_sequences=True, return_state=True)(x),
         ["lstm/transpose_1:0", "lstm/while/Exit_2:0", "lstm/while/Exit_3:0"]),
        (lambda x: layers.Bidirectional(layers.LSTM(4))(x), ["bidirectional/concat:0"]),
    ]
    for make, want in cases:
        assert _rnn_output_names(make) == want
    with tf.Graph().as_default():
        x = tf.keras.Input((5, 3))
        h, c = tf.keras.Input((4,)), tf.keras.Input((4,))
        out = layers.LSTM(4)(x, initial_state=[h, c])
        assert out.name == "lstm/strided_slice_6:0"
        model = tf.keras.Model([x, h, c], out)
        assert model.output.name == "lstm/strided_slice_6:0"


def test_rnn_last_output_name_of_a_users_cell():
    class Cell(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units

        def build(self, input_shape):
            self.k = self.add_weight("k", (input_shape[-1], self.units))
            self.built = True

        def call(self, x, states):
            h = tf.matmul(x, self.k)[:, :self.units] + states[0][:, :self.units]
            return h, [h]

    # TF 1.15 (measured): its step's two slices come before the last output's
    assert _rnn_output_names(lambda x: tf.keras.layers.RNN(Cell(4))(x)) == [
        "rnn/strided_slice_5:0"]


def test_rnn_last_output_value_is_the_last_step():
    rng = np.random.RandomState(0)
    data = rng.rand(2, 5, 3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.keras.Input((5, 3))
        layer = tf.keras.layers.GRU(4, return_sequences=True, return_state=True)
        seq, state = layer(x)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            s, st = sess.run([seq, state], {x: data})
            np.testing.assert_allclose(s[:, -1], st, rtol=1e-6)
            out = tf.keras.layers.GRU(4)
            y = out(x)
            sess.run(tf.variables_initializer(out.weights))
            out.set_weights(layer.get_weights())
            np.testing.assert_allclose(sess.run(y, {x: data}), st, rtol=1e-6)


# -- RunMetadata: TF 1.15's step stats structure and cost graph ------------------------------

def _traced_metadata(config=None, level=3):
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2, 2], name="a")
        v = tf.Variable(tf.ones([2, 2]), name="v")
        c = tf.reduce_sum(tf.matmul(a, v, name="mm"), name="sum")
        with tf.Session(config=config) as sess:
            sess.run(v.initializer)
            md = tf.RunMetadata()
            options = tf.RunOptions(trace_level=level) if level is not None else None
            sess.run(c, {a: [[1, 2], [3, 4]]}, options=options, run_metadata=md)
    return md


def test_full_trace_step_stats_as_tf():
    md = _traced_metadata()
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    # TF 1.15 (measured): the host tracer's device first, its kernels that are not cheap
    assert [d.device for d in md.step_stats.dev_stats] == ["/host:CPU", cpu]
    host, dev = md.step_stats.dev_stats
    assert [n.node_name for n in host.node_stats] == ["v:VariableV2", "mm:MatMul", "sum:Sum"]
    assert all(n.timeline_label.startswith("id=") and n.timeline_label.endswith(
        f",device={cpu},async=false") and n.thread_id for n in host.node_stats)
    assert set(host.thread_names.values()) == {"tf_Compute"}
    nodes = {n.node_name: n for n in dev.node_stats}
    assert set(nodes) == {"_SOURCE", "Const", "_arg_a_0_0", "v", "v/read", "mm", "sum",
                          "_retval_sum_0_0"}
    assert not dev.thread_names and not any(n.thread_id for n in dev.node_stats)
    assert all(n.HasField("memory_stats") for n in dev.node_stats)
    # a constant's and a variable's buffers are persistent; an op allocating its output
    # has a memory record; a forwarded or fed buffer none
    assert nodes["Const"].memory_stats.persistent_memory_size == 8
    assert nodes["v"].memory_stats.persistent_memory_size == 16
    assert [(m.allocator_name, m.total_bytes, m.peak_bytes, m.live_bytes)
            for m in nodes["mm"].memory] == [("cpu", 16, 16, 16)]
    assert not nodes["v/read"].memory and not nodes["_arg_a_0_0"].memory
    # SOFTWARE_TRACE: no host tracer
    soft = _traced_metadata(level=1)
    assert [d.device for d in soft.step_stats.dev_stats] == [cpu]
    assert not soft.HasField("cost_graph")


def test_build_cost_model_fills_the_cost_graph():
    config = tf.ConfigProto(graph_options=tf.GraphOptions(build_cost_model=1))
    for level in (3, None):  # TF 1.15: with or without RunOptions
        md = _traced_metadata(config, level)
        nodes = {n.name: n for n in md.cost_graph.node}
        assert set(nodes) == {"_SOURCE", "_SINK", "Const", "v", "v/read", "_arg_a_0_0", "mm",
                              "sum", "_retval_sum_0_0"}
        assert (nodes["_SOURCE"].id, nodes["_SINK"].id) == (0, 1)
        ids = {n.id: name for name, n in nodes.items()}
        mm = nodes["mm"]
        assert [ids[i.preceding_node] for i in mm.input_info] == ["_arg_a_0_0", "v/read"]
        out = mm.output_info[0]
        assert (out.size, out.alias_input_port, [d.size for d in out.shape.dim]) == (
            16, -1, [2, 2])
        assert out.dtype == tf.float32.as_datatype_enum
        assert nodes["v"].persistent_memory_size == 16
        assert nodes["v"].output_info[0].dtype == tf.float32_ref.as_datatype_enum
        assert list(nodes["Const"].control_input) == [0]
        assert nodes["_arg_a_0_0"].output_info[0].size == 0
        assert ids[nodes["_SINK"].control_input[-1]] == "_retval_sum_0_0"
        assert [d.device for d in md.step_stats.dev_stats][-1].endswith("CPU:0")
    assert not _traced_metadata(level=None).HasField("cost_graph")


def test_compiled_string_metrics_are_metric_objects_as_in_tf():
    rng = np.random.RandomState(0)
    x = rng.rand(10, 3).astype(np.float32)
    y = (rng.rand(10, 1) > 0.5).astype(np.float32)
    with tf.Graph().as_default():
        inp = tf.keras.Input((3,))
        out = tf.keras.layers.Dense(1, activation="sigmoid", name="dd",
                                    kernel_initializer=tf.keras.initializers.Constant(0.3))(inp)
        model = tf.keras.Model(inp, out)
        assert model.metrics == [] and model.metrics_names == ["loss"]
        model.compile(tf.keras.optimizers.SGD(0.5), "binary_crossentropy",
                      metrics=["mae", "accuracy", tf.keras.metrics.MeanSquaredError("mymse")])
        # TF 1.15 (measured): the compiled metrics, a name or function in a
        # MeanMetricWrapper made at compile (its variables after the given object's)
        assert [(type(m).__name__, m.name, [v.name for v in m.variables])
                for m in model.metrics] == [
            ("MeanMetricWrapper", "mean_absolute_error", ["total_1:0", "count_1:0"]),
            ("MeanMetricWrapper", "acc", ["total_2:0", "count_2:0"]),
            ("MeanSquaredError", "mymse", ["total:0", "count:0"])]
        assert model.metrics_names == ["loss", "mean_absolute_error", "acc", "mymse"]
        h = model.fit(x, y, batch_size=4, epochs=3, verbose=0, shuffle=False)
        got = model.evaluate(x, y, batch_size=3, verbose=0)
        results = tf.keras.backend.get_session().run([m.result() for m in model.metrics])
    # TF 1.15's numbers (measured)
    np.testing.assert_allclose(h.history["mean_absolute_error"], [0.465991, 0.443187, 0.431621],
                               atol=2e-6)
    np.testing.assert_allclose(h.history["mymse"], [0.229455, 0.226488, 0.22629], atol=2e-6)
    np.testing.assert_allclose(got, [0.63375, 0.403569, 0.7, 0.219102], atol=2e-6)
    np.testing.assert_allclose(results, [0.403569, 0.7, 0.219102], atol=2e-6)
