"""tf.keras parity with TF 1.15 (eighteenth session): recurrent dropout masks, Masking's
jointly computed mask, and what fit builds. Expected values are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


_X = np.random.RandomState(0).rand(2, 3, 2).astype("float32")


@pytest.mark.parametrize("make,expected", [
    (lambda: L.LSTM(2, dropout=0.5, recurrent_dropout=0.5, input_shape=(3, 2)),
     [[0.16506, 0.33726], [-0.04029, 0.03901]]),
    (lambda: L.GRU(2, dropout=0.5, recurrent_dropout=0.5, implementation=2,
                   input_shape=(3, 2)),
     [[-0.16919, 0.22262], [0.08759, 1.24281]]),
    (lambda: L.SimpleRNN(2, dropout=0.5, recurrent_dropout=0.5, input_shape=(3, 2)),
     [[-0.16516, -0.8972], [-0.35045, -0.97398]]),
])
def test_rnn_dropout_masks_per_gate_seeded_by_numpy(make, expected):
    # TF 1.15's cells: one mask per gate (implementation 1), each K.dropout with its seed
    # drawn from NumPy's generator; GRU's implementation 2 carries the masked h into h
    np.random.seed(3)
    tf.set_random_seed(1)
    m = tf.keras.Sequential([make()])
    f = tf.keras.backend.function([m.input, tf.keras.backend.learning_phase()], [m.output])
    np.testing.assert_allclose(f([_X, 1])[0], expected, atol=2e-5)


def test_masking_makes_its_mask_with_its_output():
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Masking(0., input_shape=(3, 2)), L.SimpleRNN(2), L.Dense(1)])
    names = [o.name for o in tf.get_default_graph().get_operations()
             if o.name.startswith("masking/")]
    assert names == ["masking/NotEqual/y", "masking/NotEqual", "masking/Any/reduction_indices",
                     "masking/Any", "masking/Cast", "masking/mul", "masking/Squeeze"]
    # (the op count before the Dense kernel as TF's: its seeded initial value)
    np.testing.assert_allclose(tf.keras.backend.get_session().run(m.weights[-2]),
                               [[-0.41119], [-0.08262]], atol=1e-5)


def test_nadam_step_is_tf_optimizer_v2s_op_for_op():
    rs = np.random.RandomState(0)
    x, y = rs.rand(4, 3).astype("float32"), rs.rand(4, 2).astype("float32")
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
    m.compile(tf.keras.optimizers.Nadam(0.01), "mse")
    h = m.fit(x, y, epochs=2, batch_size=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.688092, 0.63243], rtol=1e-5)
    np.testing.assert_allclose(tf.keras.backend.get_session().run(m.weights[1]),
                               [0.031498, 0.033937], atol=2e-6)
    assert [w.name for w in m.optimizer.weights] == [
        "training/Nadam/iter:0", "training/Nadam/momentum_cache:0",
        "training/Nadam/dense/kernel/m:0", "training/Nadam/dense/bias/m:0",
        "training/Nadam/dense/kernel/v:0", "training/Nadam/dense/bias/v:0"]
    graph = tf.get_default_graph()
    names = sorted(o.name[len("training/Nadam/Nadam/update_dense/bias/"):]
                   for o in graph.get_operations() if "update_dense/bias" in o.name)
    assert names == [
        "AssignVariableOp", "AssignVariableOp_1", "AssignVariableOp_2", "ReadVariableOp",
        "ReadVariableOp_1", "ReadVariableOp_2", "ReadVariableOp_3", "ReadVariableOp_4",
        "ReadVariableOp_5", "Sqrt", "Square", "add", "add_1", "add_2", "add_3", "mul",
        "mul/ReadVariableOp", "mul_1", "mul_2", "mul_2/ReadVariableOp", "mul_3", "mul_4",
        "mul_5", "mul_6", "sub", "truediv", "truediv_1", "truediv_2", "truediv_3"]
    tf.random_uniform([1])  # (TF 1.15's op count after the fit: its op seed)
    assert graph.get_operation_by_name("random_uniform/RandomUniform").get_attr("seed2") == 305


def _nested_model():
    inner = tf.keras.Sequential([L.Dense(3, input_shape=(2,))], name="inner")
    i = L.Input((2,))
    return tf.keras.Model(i, L.Dense(1)(inner(i)))


def test_summary_of_a_chain_through_a_nested_model_is_sequential_like():
    lines = []
    _nested_model().summary(print_fn=lines.append)
    rule = "_" * 65
    assert lines == [
        'Model: "model"', rule,
        "Layer (type)                 Output Shape              Param #   ", "=" * 65,
        "input_1 (InputLayer)         [(None, 2)]               0         ", rule,
        "inner (Sequential)           (None, 3)                 9         ", rule,
        "dense_1 (Dense)              (None, 1)                 4         ", "=" * 65,
        "Total params: 13", "Trainable params: 13", "Non-trainable params: 0", rule]


def test_config_numbers_a_nested_models_calls_after_its_own_node():
    m = _nested_model()
    config = m.get_config()
    assert config["layers"][0]["config"] == {
        "batch_input_shape": (None, 2), "dtype": "float32", "sparse": False, "ragged": False,
        "name": "input_1"}
    assert config["layers"][2]["inbound_nodes"] == [[["inner", 1, 0, {}]]]
    again = tf.keras.models.model_from_json(m.to_json())
    assert [la.name for la in again.layers] == ["input_1", "inner", "dense_1"]
    assert again.get_config()["layers"][2]["inbound_nodes"] == [[["inner", 1, 0, {}]]]


def test_a_layer_built_by_its_wrapper_takes_its_weights_dtype():
    m = tf.keras.Sequential([L.TimeDistributed(L.Dense(3), input_shape=(5, 2))])
    assert m.get_config()["layers"][0]["config"]["layer"]["config"]["dtype"] == "float32"


def test_class_and_sample_weights_and_a_rebuilt_step_keep_tf_values():
    rs = np.random.RandomState(0)
    x, y = rs.rand(10, 3).astype("float32"), (rs.rand(10) > 0.5).astype("int64")
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Dense(4, input_shape=(3,), activation="relu"),
                             L.Dense(2, activation="softmax")])
    m.compile("adam", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match=r"must contain all classes in the data\. The "
                                         r"classes \{1\} exist in the data but not in"):
        m.train_on_batch(x, y, class_weight={0: 2.})
    seen = []
    cb = tf.keras.callbacks.LambdaCallback(
        on_batch_end=lambda b, logs: seen.append(logs["loss"]))
    m.fit(x, y, epochs=1, batch_size=4, verbose=0, shuffle=False, callbacks=[cb])
    # (the batch losses are NumPy float32 scalars, printed as TF's)
    assert repr(seen) == "[0.7821527, 0.5938451, 0.5941528]"
    # class weights times the sample weights; feeding sample weights remakes the step, which
    # keeps Adam's slots and step count
    sw = np.linspace(0.1, 1, 10)
    np.testing.assert_allclose(m.train_on_batch(x, y, sample_weight=sw,
                                                class_weight={0: 2., 1: 0.5}), 0.2956423,
                               rtol=1e-6)
    h = m.fit(x, y, epochs=1, batch_size=4, verbose=0, sample_weight=sw, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.338555026], rtol=1e-6)
    np.testing.assert_allclose(m.get_weights()[3], [-0.00199401, 0.00199401], atol=1e-7)
    assert len(m.optimizer.weights) == 9
    assert m.optimizer.weights[1].name == "training/Adam/dense/kernel/m:0"


def test_conv_lstm_2d_takes_tf_op_count_so_later_layers_get_tf_initial_weights():
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.ConvLSTM2D(2, 3, input_shape=(None, 4, 4, 1), go_backwards=True),
                             L.Flatten(), L.Dense(1)])
    kernel = tf.keras.backend.get_session().run(m.weights[-2])
    np.testing.assert_allclose(kernel[:3, 0], [-0.79955, 0.22185, 0.50384], atol=1e-5)


def _seq_data():
    rs = np.random.RandomState(0)
    return rs.rand(12, 3).astype("float32"), (rs.rand(12) > 0.5).astype("int64")


def test_fit_generator_epoch_loss_is_weighted_by_batch_size():
    x, y = _seq_data()

    def gen():
        while True:
            for i in range(0, 12, 5):
                yield x[i:i + 5], y[i:i + 5]
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Dense(4, input_shape=(3,), activation="relu"),
                             L.Dense(2, activation="softmax")])
    m.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    h = m.fit_generator(gen(), steps_per_epoch=3, epochs=1, verbose=0)
    # (batches of 5, 5 and 2: TF 1.15's BaseLogger weighs them so)
    np.testing.assert_allclose(h.history["loss"], [0.6504907409350077], rtol=1e-6)
    with pytest.raises(ValueError, match=r"^Please specify the number of steps via the "
                                         r"`steps_per_epoch` argument\.$"):
        m.fit_generator(gen(), epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"^Please specify the `validation_steps` argument\.$"):
        m.fit_generator(gen(), steps_per_epoch=1, verbose=0, validation_data=gen())
    with pytest.raises(ValueError, match=r"via the `steps` argument\.$"):
        m.evaluate_generator(gen())


def test_optimizer_configs_in_tf_order():
    opt = tf.keras.optimizers.Adam(clipnorm=1.)
    assert list(opt.get_config()) == ["name", "clipnorm", "learning_rate", "decay", "beta_1",
                                      "beta_2", "epsilon", "amsgrad"]
    sched = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
    config = tf.keras.optimizers.Adam(sched).get_config()
    assert config["learning_rate"] == {
        "class_name": "ExponentialDecay",
        "config": {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.9,
                   "staircase": False, "name": None}}
    again = tf.keras.optimizers.Adam.from_config(config)
    assert type(again._values["lr"]).__name__ == "ExponentialDecay"


def test_running_accuracy_sums_in_float32_as_tf_mean_metrics():
    x, y = _seq_data()
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Dense(4, input_shape=(3,), activation="relu"),
                             L.Dense(2, activation="softmax")])
    m.compile("sgd", "sparse_categorical_crossentropy", metrics=["accuracy"])
    h = m.fit(x, y, batch_size=5, epochs=1, verbose=0, shuffle=False)
    assert repr(h.history["acc"]) == "[0.5833333]"  # (7 of 12; not 0.5833334)


def test_optimizer_config_after_training_reads_its_variables(tmp_path):
    m = tf.keras.Sequential([L.Dense(1, input_shape=(3,))])
    m.compile(tf.keras.optimizers.Adam(0.01), "mse")
    assert type(m.optimizer.get_config()["learning_rate"]) is float
    m.fit(np.zeros((4, 3), "float32"), np.zeros((4, 1), "float32"), verbose=0)
    config = m.optimizer.get_config()
    assert type(config["learning_rate"]) is np.float32 and type(config["decay"]) is np.float32
    m.save(str(tmp_path / "m.h5"))
    import json

    import h5py
    with h5py.File(str(tmp_path / "m.h5"), "r") as f:
        raw = f.attrs["training_config"]
    training = json.loads(raw if isinstance(raw, str) else raw.decode())
    assert list(training) == ["loss", "metrics", "weighted_metrics", "sample_weight_mode",
                              "loss_weights", "optimizer_config"]
    assert training["optimizer_config"]["config"]["learning_rate"] == 0.009999999776482582


def test_metric_and_loss_configs_start_with_the_base_keys():
    assert list(tf.keras.losses.Huber().get_config()) == ["reduction", "name", "delta"]
    assert list(tf.keras.metrics.Precision().get_config()) == [
        "name", "dtype", "thresholds", "top_k", "class_id"]
    auc = tf.keras.metrics.AUC().get_config()
    assert list(auc)[:2] == ["name", "dtype"]
    assert len(auc["thresholds"]) == 198 and auc["thresholds"][0] == 1 / 199


def test_data_errors_in_tf_words():
    a, b = L.Input((3,), name="a"), L.Input((4,), name="b")
    m = tf.keras.Model([a, b], L.Dense(1)(L.concatenate([a, b])))
    m.compile("sgd", "mse")
    x, y = np.zeros((8, 3)), np.zeros((8, 1))
    with pytest.raises(ValueError, match=r'^No data provided for "b"\. Need data for each key '
                                         r"in: \['a', 'b'\]$"):
        m.fit({"a": x, "c": x}, y, verbose=0)
    with pytest.raises(ValueError, match=r"^All input arrays \(x\) should have the same number "
                                         r"of samples\. Got array shapes: \[\(8, 3\), \(5, 4\)\]"):
        m.fit([x, np.zeros((5, 4))], y, verbose=0)
    with pytest.raises(ValueError, match=r"Expected to see 2 array\(s\), but instead got the "
                                         r"following list of 1 arrays: \[array\(\[\[0\., 0\., "):
        m.predict(x)


def test_amsgrad_is_one_fused_update_per_variable_as_tf():
    rs = np.random.RandomState(0)
    x, y = rs.rand(4, 3).astype("float32"), rs.rand(4, 2).astype("float32")
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Dense(2, input_shape=(3,))])
    m.compile(tf.keras.optimizers.Adam(0.01, amsgrad=True), "mse")
    h = m.fit(x, y, epochs=2, batch_size=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.689261, 0.624144], rtol=1e-5)
    np.testing.assert_allclose(tf.keras.backend.get_session().run(m.weights[1]),
                               [0.039632, 0.039328], atol=2e-6)
    assert [w.name for w in m.optimizer.weights][-2:] == [
        "training/Adam/dense/kernel/vhat:0", "training/Adam/dense/bias/vhat:0"]
    graph = tf.get_default_graph()
    updates = [o for o in graph.get_operations() if "update_dense/bias" in o.name]
    assert [o.name.rsplit("/", 1)[1] for o in updates] == ["ResourceApplyAdamWithAmsgrad"]
    tf.random_uniform([1])
    assert graph.get_operation_by_name("random_uniform/RandomUniform").get_attr("seed2") == 225


def test_rnn_fit_leaves_tf_op_count_for_the_random_ops_after():
    rs = np.random.RandomState(0)
    x, y = rs.rand(4, 5, 3).astype("float32"), rs.rand(4, 1).astype("float32")
    tf.set_random_seed(1)
    np.random.seed(0)
    m = tf.keras.Sequential([
        L.Bidirectional(L.LSTM(3, return_sequences=True), input_shape=(5, 3)), L.GRU(2),
        L.Dense(1)])
    m.compile("adam", "mse")
    m.fit(x, y, epochs=1, batch_size=2, verbose=0, shuffle=False)
    r = tf.random_uniform([2])  # (its op seed: TF 1.15's op count after the fit)
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("random_uniform/RandomUniform").get_attr("seed2") == 3119
    np.testing.assert_allclose(tf.keras.backend.get_session().run(r), [0.67227, 0.02157],
                               atol=1e-5)


def test_sgd_on_an_embedding_reads_its_learning_rate_once():
    rs = np.random.RandomState(0)
    x, y = rs.randint(1, 6, size=(4, 5)), rs.rand(4, 1).astype("float32")
    tf.set_random_seed(1)
    np.random.seed(0)
    m = tf.keras.Sequential([L.Embedding(6, 3, input_length=5), L.LSTM(3), L.Dense(1)])
    m.compile("sgd", "mse")
    m.fit(x, y, epochs=1, batch_size=2, verbose=0, shuffle=False)
    tf.random_uniform([2])
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("random_uniform/RandomUniform").get_attr("seed2") == 1171
    names = {o.name for o in graph.get_operations()}
    assert "training/SGD/SGD/update_embedding/embeddings/mul/ReadVariableOp" not in names


def test_stateful_lstm_fit_leaves_tf_op_count():
    rs = np.random.RandomState(0)
    x = rs.rand(4, 5, 3).astype("float32")
    y = rs.rand(4, 2).astype("float32")
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.LSTM(2, stateful=True, batch_input_shape=(2, 5, 3)),
                             L.Dense(2)])
    m.compile("sgd", "mse")
    np.random.seed(0)
    m.fit(x, y, epochs=1, batch_size=2, verbose=0, shuffle=False)
    with tf.name_scope("probe"):
        tf.random_uniform([1])
    op = tf.get_default_graph().get_operation_by_name("probe/random_uniform/RandomUniform")
    assert op.get_attr("seed2") == 838


def test_conv_lstm_2d_loop_gradient_takes_tf_op_count():
    tf.set_random_seed(1)
    i = L.Input((2, 4, 4, 1))
    o = L.ConvLSTM2D(2, 3, padding="same")(i)
    loss = tf.reduce_mean(o)
    graph = tf.get_default_graph()
    first = graph._next_id
    tf.gradients(loss, tf.trainable_variables())
    assert graph._next_id - first == 680  # (TF 1.15's ids for these gradients)
