"""tf.keras behaviours TF 1.15's Keras tests rely on (second pass: layer modules, merges,
embeddings, masks, the keras_parameterized / testing_utils helpers), checked on tideflow in
graph mode. Expected values are worked out by hand or with NumPy."""

import json

import numpy as np
import pytest

import tideflow as tf

keras = tf.keras
K = keras.backend


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# -- testing helpers under TF's internal paths ----------------------------------------------


def test_keras_parameterized_runs_once_in_graph_mode_per_model_type():
    from tideflow.python.keras import keras_parameterized, testing_utils

    seen = []

    class Case(keras_parameterized.TestCase):
        @keras_parameterized.run_with_all_model_types(exclude_models="sequential")
        @keras_parameterized.run_all_keras_modes
        def test_it(self):
            seen.append((testing_utils.get_model_type(), testing_utils.should_run_eagerly(),
                         testing_utils.should_run_tf_function()))

    names = sorted(n for n in dir(Case) if n.startswith("test_it"))
    assert names == ["test_it_v1_session_functional", "test_it_v1_session_subclass"]
    import io
    import unittest

    result = unittest.TextTestRunner(stream=io.StringIO()).run(
        unittest.TestSuite(Case(n) for n in names))
    assert result.wasSuccessful()
    assert sorted(seen) == [("functional", False, False), ("subclass", False, False)]
    with pytest.raises(ValueError, match="outside of a `model_type_scope"):
        testing_utils.get_model_type()


def test_layer_test_checks_a_layer_end_to_end():
    from tideflow.python.keras import testing_utils

    out = testing_utils.layer_test(keras.layers.Dense, kwargs={"units": 3},
                                   input_shape=(2, 4), expected_output_shape=(None, 3))
    assert out.shape == (2, 3)
    with pytest.raises(AssertionError, match="found output_shape"):
        testing_utils.layer_test(keras.layers.Dense, kwargs={"units": 3},
                                 input_shape=(2, 4), expected_output_shape=(None, 5))


def test_small_models_of_each_type_train():
    from tideflow.python.keras import testing_utils

    for kind in ("functional", "subclass", "sequential"):
        with testing_utils.model_type_scope(kind):
            model = testing_utils.get_small_mlp(4, 2, input_dim=3)
            model.compile("sgd", "sparse_categorical_crossentropy")
            hist = model.fit(np.ones((4, 3)), np.array([0, 1, 0, 1]), verbose=0)
            assert len(hist.history["loss"]) == 1


# -- layer modules ----------------------------------------------------------------------------


def test_layer_submodules_hold_the_public_classes():
    from tideflow.python.keras.layers import merge, normalization, pooling, wrappers

    assert keras.layers.pooling.GlobalMaxPooling1D is keras.layers.GlobalMaxPooling1D
    assert pooling.AvgPool2D is keras.layers.AveragePooling2D
    assert normalization.BatchNormalization is keras.layers.BatchNormalization
    assert wrappers.Bidirectional is keras.layers.Bidirectional
    assert merge.concatenate is keras.layers.concatenate


# -- embeddings --------------------------------------------------------------------------------


def test_embedding_layer_dtype_is_floatx_for_integer_ids():
    layer = keras.layers.Embedding(10, 4)
    assert layer.dtype == "float32"
    spec = layer.compute_output_signature(tf.TensorSpec((3, 2), tf.int32))
    assert spec.dtype == tf.float32 and spec.shape.as_list() == [3, 2, 4]
    assert keras.layers.Embedding(10, 4, dtype="float64").dtype == "float64"


# -- merge layers --------------------------------------------------------------------------------


def test_merge_masks_accept_float_masks_and_check_lists():
    a = keras.Input((2,))
    b = keras.Input((2,))
    add = keras.layers.Add()
    add([a, b])
    m = add.compute_mask([a, b], [K.variable([[1.0, 0.0]]), K.variable([[1.0, 1.0]])])
    np.testing.assert_array_equal(K.eval(m), [[True, False]])
    with pytest.raises(ValueError, match="`inputs` should be a list"):
        add.compute_mask(a, [None, None])
    with pytest.raises(ValueError, match="should have the same length"):
        add.compute_mask([a, b], [None])
    cat = keras.layers.Concatenate()
    c, d = tf.ones((1, 2)), tf.ones((1, 2))
    m = cat.compute_mask([c, d], [tf.constant([[True, False]]), None])
    np.testing.assert_array_equal(K.eval(m), [False])


def test_merge_call_errors_use_tf_wording():
    a = keras.Input((2,))
    b = keras.Input((2,))
    sub = keras.layers.Subtract()
    sub([a, b])
    with pytest.raises(ValueError, match=r"^A `Subtract` layer should be called on exactly 2"):
        sub([a])
    cat = keras.layers.Concatenate()
    cat([a, b])
    with pytest.raises(ValueError, match=r"^A merge layer should be called on a list of inputs"):
        cat(a)
    with pytest.raises(ValueError, match="at least 2 inputs. Got 1 inputs"):
        keras.layers.Add()([a])
    with pytest.raises(ValueError, match="list of 2 inputs"):
        keras.layers.Dot(1).compute_output_shape(1)


def test_layer_input_and_output_masks():
    x = keras.Input((3, 2))
    masked = keras.layers.Masking()
    y = masked(x)
    assert masked.input_mask is None
    assert masked.output_mask is y._keras_mask
    assert masked.get_output_mask_at(0) is y._keras_mask
    add = keras.layers.Add()
    add([y, x])
    assert add.input_mask == [y._keras_mask, None]
    assert add.output_mask.shape.as_list() == [None, 3]


# -- recurrent layers ----------------------------------------------------------------------------


def test_rnn_takes_states_as_extra_list_inputs():
    seq = keras.Input((4, 2))
    h0, c0 = keras.Input((3,)), keras.Input((3,))
    layer = keras.layers.LSTM(3)
    out = layer([seq, h0, c0])
    assert any(t is h0 for t in layer._inbound_nodes[0].input_tensors)
    model = keras.Model([seq, h0, c0], out)
    y = model.predict([np.zeros((2, 4, 2)), np.ones((2, 3)), np.ones((2, 3))])
    assert y.shape == (2, 3)


def test_rnn_initial_state_from_variables_is_not_a_model_input():
    seq = keras.Input((4, 2))
    states = [K.variable(np.full((2, 3), 0.5)), K.variable(np.zeros((2, 3)))]
    out = keras.layers.GRU(3, return_state=False)(seq, initial_state=states[:1])
    model = keras.Model(seq, out)  # the variables need no feed
    assert model.predict(np.zeros((2, 4, 2))).shape == (2, 3)
    with pytest.raises(ValueError, match="mix of Keras tensors and non-Keras tensors"):
        keras.layers.LSTM(3)(seq, initial_state=[keras.Input((3,)), states[1]])


def test_rnn_states_before_and_after_build():
    layer = keras.layers.LSTM(3)
    assert layer.states == [None, None]
    stateful = keras.layers.LSTM(3, stateful=True)
    stateful.build((2, 5, 4))
    stateful.reset_states()
    assert [K.int_shape(v) for v in stateful.states] == [(2, 3), (2, 3)]
    stateful.reset_states([np.ones((2, 3)), np.full((2, 3), 2.0)])
    np.testing.assert_allclose(K.eval(stateful.states[1]), np.full((2, 3), 2.0))
    with pytest.raises(ValueError):
        stateful.reset_states([np.ones((2, 3))] * 3)


def test_stateful_rnn_under_a_mask_keeps_its_state():
    model = keras.Sequential([
        keras.layers.Embedding(4, 2, mask_zero=True, batch_input_shape=(2, 3)),
        keras.layers.SimpleRNN(2, stateful=True)])
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    first = model.predict(ids)
    second = model.predict(ids)  # the state carried over changes the output
    assert not np.allclose(first, second)
    model.reset_states()
    np.testing.assert_allclose(model.predict(ids), first, rtol=1e-6)


def test_losses_for_a_variable_input():
    layer = keras.layers.Dense(2, activity_regularizer="l1", kernel_regularizer="l2")
    x = K.variable(np.ones((2, 3)))
    layer(x)
    assert len(layer.get_losses_for(x)) == 1
    assert len(layer.get_losses_for(None)) == 1


# -- utils and optimizer modules -------------------------------------------------------------


def test_utils_and_optimizer_v2_modules():
    from tideflow.python.keras.optimizer_v2 import adam, gradient_descent, learning_rate_schedule
    from tideflow.python.keras.utils import data_utils, generic_utils, np_utils

    assert keras.utils.data_utils.Sequence is keras.utils.Sequence is data_utils.Sequence
    assert generic_utils.Progbar is keras.utils.Progbar
    np.testing.assert_array_equal(np_utils.to_categorical([2], 3), [[0.0, 0.0, 1.0]])
    assert gradient_descent.SGD is keras.optimizers.SGD and adam.Adam is keras.optimizers.Adam
    assert learning_rate_schedule.ExponentialDecay is \
        keras.optimizers.schedules.ExponentialDecay


# -- training with sequences and callbacks ------------------------------------------------------


class _Ones(keras.utils.Sequence):
    def __getitem__(self, index):
        return np.ones((2, 3)), np.ones((2, 1))

    def __len__(self):
        return 4


class _Count(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def on_test_batch_end(self, batch, logs=None):
        self.calls.append(("test", logs["size"]))

    def on_predict_batch_end(self, batch, logs=None):
        self.calls.append(("predict", logs["size"]))


def _dense_model():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    return model


def test_fit_on_a_sequence_validates_arrays_in_training_sized_batches():
    count = _Count()
    _dense_model().fit(_Ones(), validation_data=(np.ones((6, 3)), np.ones((6, 1))),
                       epochs=2, callbacks=[count], verbose=0)
    assert count.calls == [("test", 2)] * 6


def test_evaluate_and_predict_on_a_sequence_call_their_hooks():
    model = _dense_model()
    count = _Count()
    model.evaluate(_Ones(), callbacks=[count], verbose=0)
    out = model.predict(_Ones(), callbacks=[count])
    assert out.shape == (8, 1)
    assert count.calls == [("test", 2)] * 4 + [("predict", 2)] * 4


def test_subclassed_model_evaluates_a_sequence_before_being_built():
    from tideflow.python.keras import testing_utils

    with testing_utils.model_type_scope("subclass"):
        model = testing_utils.get_model_from_layers([keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    loss = model.evaluate(_Ones(), verbose=0)
    assert np.isfinite(loss)


def test_progbar_learns_the_steps_of_a_dataset_of_unknown_length(capsys):
    model = _dense_model()
    data = tf.data.Dataset.from_tensor_slices((np.ones((6, 3), np.float32),
                                               np.ones((6, 1), np.float32))).batch(2)
    model.fit(data, epochs=2, verbose=2)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("3/")]
    assert [ln.split(" ")[0] for ln in lines] == ["3/3", "3/3"]


def test_model_checkpoint_save_freq_in_samples_and_restart(tmp_path):
    model = _dense_model()
    pattern = str(tmp_path / "w{epoch:02d}.h5")
    with pytest.raises(ValueError, match="Unrecognized save_freq: often"):
        keras.callbacks.ModelCheckpoint(pattern, save_freq="often")
    x, y = np.ones((4, 3)), np.zeros((4, 1))
    cb = keras.callbacks.ModelCheckpoint(pattern, save_weights_only=True, save_freq=6)
    model.fit(x, y, batch_size=2, epochs=4, callbacks=[cb], verbose=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w02.h5", "w03.h5"]
    assert cb._get_most_recently_modified_file_matching_pattern(pattern).endswith("w03.h5")
    model.load_weights(str(tmp_path / "w03.h5"))
    saved = model.get_weights()
    model.fit(x, y, batch_size=2, epochs=1, verbose=0)  # moves the weights away
    assert not np.allclose(model.get_weights()[0], saved[0])
    restart = keras.callbacks.ModelCheckpoint(str(tmp_path / "z{epoch}.h5"),
                                              save_weights_only=True)
    restart.filepath = pattern
    restart.load_weights_on_restart = True
    restart.set_model(model)
    restart.on_train_begin()
    for a, b in zip(model.get_weights(), saved):
        np.testing.assert_allclose(a, b)


def test_keras_test_case_captures_stdout():
    import sys

    from tideflow.python.keras import keras_parameterized

    case = keras_parameterized.TestCase()
    with case.captureWritesToStream(sys.stdout) as printed:
        print("hello from a test")
    assert printed.contents() == "hello from a test\n"


def test_reduce_lr_on_plateau_takes_keras1_epsilon(caplog):
    cb = keras.callbacks.ReduceLROnPlateau(epsilon=0.25)
    assert cb.min_delta == 0.25 and not hasattr(cb, "epsilon")


# -- wrappers ----------------------------------------------------------------------------------


def test_time_distributed_argument_and_rank_checks():
    with pytest.raises(ValueError, match="with a `Layer` instance"):
        keras.layers.TimeDistributed(tf.zeros((1, 1)))
    with pytest.raises(ValueError, match="with a `Layer` instance"):
        keras.layers.Bidirectional(tf.zeros((1, 1)))
    with pytest.raises(ValueError, match="should be passed an `input_shape ` with at least 3"):
        keras.layers.TimeDistributed(keras.layers.Dense(2))(K.placeholder(shape=(None, 4)))


def test_time_distributed_any_number_of_steps_and_unknown_inner_dims():
    td = keras.layers.TimeDistributed(keras.layers.Dense(3))
    assert td(K.placeholder(shape=(None, 5, 4))).shape.as_list() == [None, 5, 3]
    assert td(K.placeholder(shape=(None, 2, 4))).shape.as_list() == [None, 2, 3]
    with pytest.raises(ValueError, match="Input 0 is incompatible with layer time_distributed: "
                                         r"expected shape=\[None, None, 4\]"):
        td(K.placeholder(shape=(None, 2, 6)))
    # ids of unknown length in each step, masked by the embedding
    model = keras.Sequential([
        keras.layers.TimeDistributed(keras.layers.Embedding(5, 2, mask_zero=True),
                                     input_shape=(None, None)),
        keras.layers.TimeDistributed(keras.layers.SimpleRNN(3))])
    ids = np.array([[[1, 2, 0], [0, 0, 0]]])
    assert model.predict(ids).shape == (1, 2, 3)
    first, second = model.layers
    mask = first.compute_mask(model.input)
    reduced = second.compute_mask(second.input, mask)
    f = K.function([model.input], [mask, reduced])
    m, r = f([ids])
    np.testing.assert_array_equal(m, ids > 0)
    np.testing.assert_array_equal(r, [[True, False]])


def test_frozen_layer_has_no_updates():
    x = keras.Input((3, 2))
    td = keras.layers.TimeDistributed(keras.layers.BatchNormalization())
    td(x)
    assert len(td.updates) == 2
    td.trainable = False
    assert td.updates == [] and td.trainable_weights == []
    td.trainable = True
    assert len(td.updates) == 2


def test_bidirectional_initial_states_and_output_shape():
    seq = keras.Input((3, 2))
    layer = keras.layers.LSTM(2, return_state=True, return_sequences=True)
    states = keras.layers.Bidirectional(layer)(seq)[1:]
    assert len(states) == 4
    with pytest.raises(ValueError, match="should be a list containing the states"):
        keras.layers.Bidirectional(keras.layers.LSTM(2))(seq, initial_state=states[0])
    out = keras.layers.Bidirectional(keras.layers.LSTM(2))(seq, initial_state=states)
    model = keras.Model(seq, out)
    assert model.predict(np.ones((1, 3, 2))).shape == (1, 4)
    plain = [K.variable(np.zeros((1, 2))) for _ in range(4)]
    fixed = keras.Input(batch_shape=(1, 3, 2))
    out2 = keras.layers.Bidirectional(keras.layers.LSTM(2), merge_mode="sum")(
        fixed, initial_state=plain)
    assert keras.Model(fixed, out2).predict(np.ones((1, 3, 2))).shape == (1, 2)
    bi = keras.layers.Bidirectional(keras.layers.GRU(4, return_sequences=True))
    assert bi.compute_output_shape((None, 5, 3)).as_list() == [None, 5, 8]
    both = keras.layers.Bidirectional(keras.layers.GRU(4, return_state=True), merge_mode=None)
    shapes = both.compute_output_shape((None, 5, 3))
    assert [s.as_list() for s in shapes] == [[None, 4]] * 4


def test_add_loss_with_inputs_outside_a_call():
    x = keras.Input((2,))
    layer = keras.layers.Dense(1, kernel_regularizer="l2")
    layer(x)
    layer.add_loss(tf.reduce_sum(x), inputs=x)
    layer.add_loss(tf.constant(1.0))
    assert len(layer.losses) == 3
    assert len(layer.get_losses_for(x)) == 1
    assert len(layer.get_losses_for(None)) == 2


# -- activations, initializers, regularizers, constraints --------------------------------------


def test_activation_serialization_of_v2_softmax_and_layers():
    from tideflow.python.ops import nn_ops

    assert keras.activations.serialize(nn_ops.softmax_v2) == "softmax"
    layer = keras.layers.Dense(3, activation=keras.layers.LeakyReLU(alpha=0.25))
    config = keras.layers.serialize(layer)
    assert config["config"]["activation"]["class_name"] == "LeakyReLU"
    clone = keras.layers.deserialize(config)
    assert type(clone.activation).__name__ == "LeakyReLU"
    assert clone.activation.alpha == pytest.approx(0.25)


def test_plain_function_initializer_regularizer_constraint_round_trip():
    def my_init(shape, dtype=None):
        return tf.ones(shape, dtype=dtype)

    def my_reg(w):
        return tf.reduce_sum(tf.abs(w))

    def my_con(w):
        return w

    inputs = keras.Input((4,))
    dense = keras.layers.Dense(2, kernel_initializer=my_init, kernel_regularizer=my_reg,
                               kernel_constraint=my_con)
    model = keras.Model(inputs, dense(inputs))
    config = model.get_config()
    cfg = config["layers"][1]["config"]
    assert (cfg["kernel_initializer"], cfg["kernel_regularizer"],
            cfg["kernel_constraint"]) == ("my_init", "my_reg", "my_con")
    custom = {"my_init": my_init, "my_reg": my_reg, "my_con": my_con}
    clone = keras.Model.from_config(config, custom_objects=custom)
    layer = clone.layers[1]
    assert layer.kernel_initializer is my_init and layer.kernel_regularizer is my_reg
    assert layer.kernel_constraint is my_con
    with keras.utils.CustomObjectScope(custom):
        assert keras.initializers.get("my_init") is my_init


def test_backend_variable_from_a_tensor():
    v = K.variable(tf.fill([2, 3], 4.0))
    assert K.int_shape(v) == (2, 3)
    np.testing.assert_allclose(K.get_value(v), np.full((2, 3), 4.0))


def test_constraint_legacy_aliases():
    assert keras.constraints.maxnorm is keras.constraints.MaxNorm
    assert keras.constraints.nonneg is keras.constraints.NonNeg
    assert keras.constraints.unitnorm is keras.constraints.UnitNorm


# -- losses and K.function ------------------------------------------------------------------------


class _HalfMse:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, y_true, y_pred, sample_weight=None):
        return self.scale * keras.losses.mse(y_true, y_pred)

    def get_config(self):
        return {"scale": self.scale}


def test_loss_object_with_config_serializes_and_saves(tmp_path):
    with keras.utils.custom_object_scope({"_HalfMse": _HalfMse}):
        config = keras.losses.serialize(_HalfMse(0.5))
        assert config == {"class_name": "_HalfMse", "config": {"scale": 0.5}}
        assert keras.losses.deserialize(config).scale == 0.5
        inputs = keras.Input((2,))
        model = keras.Model(inputs, keras.layers.Dense(1, name="out")(inputs))
        model.compile("sgd", loss={"out": _HalfMse(0.5)})
        model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
        model.save(str(tmp_path / "m.h5"))
        loaded = keras.models.load_model(str(tmp_path / "m.h5"))
    assert loaded.predict(np.ones((1, 2))).shape == (1, 1)


def test_loss_reduction_checked_when_called_and_weight_shapes():
    from tideflow.python.keras.utils import losses_utils

    mse = keras.losses.MeanSquaredError()
    mse.reduction = "Bad"
    with pytest.raises(ValueError, match="Invalid Reduction Key Bad."):
        mse(tf.ones((2, 2)), tf.ones((2, 2)))
    mse = keras.losses.MeanSquaredError(reduction=losses_utils.ReductionV2.SUM)
    y_true = tf.constant([[1.0, 3.0], [2.0, 2.0]])
    y_pred = tf.zeros((2, 2))
    # per-sample mse [5, 4]; [batch, 1] weights apply per sample
    assert K.eval(mse(y_true, y_pred, sample_weight=tf.constant([[2.0], [0.5]]))) == \
        pytest.approx(12.0)
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        keras.losses.MeanSquaredError()(tf.ones((2, 3, 1)), tf.ones((2, 3, 1)),
                                        sample_weight=tf.ones((2, 2)))
    assert K.eval(losses_utils.compute_weighted_loss(tf.constant([1.0, 3.0]))) == 2.0


def test_k_function_keeps_output_structure_and_takes_tensor_values():
    x = K.placeholder()
    y = K.placeholder()
    single = K.function([x, y], x * y)
    assert single([tf.constant([2.0, 3.0]), np.array([4.0, 5.0])]).tolist() == [8.0, 15.0]
    listed = K.function([x, y], [x * y])
    assert [v.tolist() for v in listed([np.array([1.0]), np.array([2.0])])] == [[2.0]]


def test_sparse_crossentropy_on_unknown_rank():
    t = K.placeholder()
    p = K.placeholder()
    f = K.function([t, p], keras.losses.sparse_categorical_crossentropy(t, p))
    probs = np.array([[0.5, 0.25, 0.25], [0.25, 0.25, 0.5]], np.float32)
    np.testing.assert_allclose(f([np.array([0, 2]), probs]), -np.log([0.5, 0.5]), rtol=1e-5)


# -- models: cloning and checkpoints ---------------------------------------------------------------


def test_clone_sequential_on_a_plain_tensor_makes_no_placeholder():
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(2,))])
    assert not isinstance(model._layers[0], keras.layers.InputLayer)
    graph = tf.Graph()
    with graph.as_default():
        clone = keras.models.clone_model(model, input_tensors=[tf.ones((4, 2))])
        assert not any("Placeholder" in op.type for op in graph.get_operations())
        assert isinstance(clone._layers[0], keras.layers.InputLayer)
    with pytest.raises(ValueError, match="at most one tensor"):
        keras.models.clone_model(model, input_tensors=[keras.Input((2,)), keras.Input((2,))])
    x = keras.Input((2,))
    with pytest.raises(ValueError, match="other than an `InputLayer`"):
        keras.models.clone_model(model, input_tensors=keras.layers.Dense(2)(x))


def test_clone_with_shared_weights_and_variable_inputs():
    from tideflow.python.keras import models

    a = keras.Input((2,))
    dense = keras.layers.Dense(2)
    model = keras.Model(a, dense(a))
    shared = models._clone_functional_model(model, layer_fn=models.share_weights)
    assert shared.layers[1] is dense
    fed = keras.models.clone_model(model, input_tensors=K.variable(np.ones((3, 2))))
    fed.compile("sgd", "mse")
    assert np.isfinite(fed.train_on_batch(None, np.zeros((3, 2))))
    with pytest.raises(ValueError, match="got a `Sequential` instance"):
        models._clone_functional_model(keras.Sequential([keras.layers.Dense(1,
                                                                            input_shape=(2,))]))


def test_clone_replays_masks_of_the_new_inputs():
    x = keras.Input((2, 1))
    y = keras.layers.TimeDistributed(keras.layers.Dense(1, kernel_initializer="one"))(
        keras.layers.Masking()(x))
    clone = keras.models.clone_model(keras.Model(x, y))
    clone.compile("sgd", "mse")
    data = np.array([[[1.0], [1.0]], [[0.0], [0.0]]])
    assert float(clone.train_on_batch(data, np.ones((2, 2, 1)))) == 0.0


def test_clone_and_build_model_compiles_like_the_original():
    from tideflow.python.keras import models

    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    with pytest.raises(ValueError, match="has not been compiled"):
        models.clone_and_build_model(model)
    model.compile("rmsprop", "mse", metrics=["acc"])
    clone = models.clone_and_build_model(model)
    assert clone is not model and clone.loss == "mse"
    assert clone.metrics_names == ["loss", "acc"]
    clone.train_on_batch(np.ones((2, 3)), np.ones((2, 2)))


def test_save_weights_keeps_a_tf_optimizers_state(tmp_path):
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    opt = tf.train.AdamOptimizer(0.01)
    model.compile(opt, "mse")
    model.fit(np.ones((2, 3)), np.ones((2, 2)), epochs=1, verbose=0)
    beta1, _ = opt._get_beta_accumulators()
    K.get_session().run(beta1.assign(0.25))
    model.save_weights(str(tmp_path / "ckpt"))
    K.get_session().run(beta1.assign(0.5))
    model.load_weights(str(tmp_path / "ckpt"))
    assert K.get_value(beta1) == 0.25


def test_initializer_singular_aliases():
    assert isinstance(keras.initializers.get("one"), keras.initializers.Ones)
    assert isinstance(keras.initializers.get("zero"), keras.initializers.Zeros)


# -- HDF5 -----------------------------------------------------------------------------------


def test_hdf5_weights_without_extension_and_by_name_errors(tmp_path):
    import h5py
    from tideflow.python.keras.saving import hdf5_format

    model = keras.Sequential([keras.layers.Dense(3, input_dim=2, name="d1")])
    path = str(tmp_path / "weights")  # no extension: found to be HDF5 by its contents
    model.save_weights(path, save_format="h5")
    model.load_weights(path)
    other = keras.Sequential([keras.layers.Dense(3, input_dim=2, use_bias=False, name="d1")])
    with h5py.File(path, "r") as f, pytest.raises(
            ValueError, match=r'Layer #0 \(named "d1"\) expects 1 weight\(s\), but the saved '
                              r"weights have 2 element\(s\)\."):
        hdf5_format.load_weights_from_hdf5_group_by_name(f, other.layers)
    wide = keras.Sequential([keras.layers.Dense(4, input_dim=2, name="d1")])
    with h5py.File(path, "r") as f, pytest.raises(
            ValueError, match=r"has shape \(2, 4\), but the saved weight has shape \(2, 3\)\."):
        hdf5_format.load_weights_from_hdf5_group_by_name(f, wide.layers)


def test_preprocess_weights_for_loading_keras1_and_idempotent():
    from tideflow.python.keras.saving import hdf5_format

    lstm = keras.layers.LSTM(2)
    lstm.build((None, 4, 3))
    current = lstm.get_weights()
    for a, b in zip(current, hdf5_format.preprocess_weights_for_loading(lstm, current)):
        np.testing.assert_array_equal(a, b)
    gates = [np.full((3, 2), i, np.float32) if i % 3 == 0 else
             np.full((2, 2), i, np.float32) if i % 3 == 1 else np.full((2,), i, np.float32)
             for i in range(12)]
    kernel, recurrent, bias = hdf5_format.preprocess_weights_for_loading(
        lstm, gates, original_keras_version="1")
    # Keras 1's i, c, f, o become Keras 2's i, f, c, o
    np.testing.assert_array_equal(kernel[0], [0, 0, 6, 6, 3, 3, 9, 9])
    assert recurrent.shape == (2, 8) and bias.tolist() == [2, 2, 8, 8, 5, 5, 11, 11]
    conv = keras.layers.Conv2D(2, 3, use_bias=False, data_format="channels_first")
    conv.build((None, 4, 5, 5))
    (kernel,) = hdf5_format.preprocess_weights_for_loading(
        conv, [np.zeros((2, 4, 3, 3))], original_keras_version="1")
    assert kernel.shape == (3, 3, 4, 2)


def test_model_with_tensor_label_smoothing_saves(tmp_path):
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    model.compile("sgd", "mse", metrics=[keras.metrics.CategoricalCrossentropy(
        name="cce", label_smoothing=tf.constant(0.2))])
    model.train_on_batch(np.ones((1, 3)), np.ones((1, 2)))
    model.save(str(tmp_path / "m.h5"))
    loaded = keras.models.load_model(str(tmp_path / "m.h5"))
    assert loaded.metrics_names == ["loss", "cce"]


# -- topology ------------------------------------------------------------------------------------


def test_updates_and_losses_not_tied_to_the_call_inputs_are_unconditional():
    class Counting(keras.layers.Layer):
        def build(self, input_shape):
            self.count = self.add_weight("count", (), initializer="zeros", trainable=False)
            self.total = self.add_weight("total", (), initializer="zeros", trainable=False)
            self.add_update(tf.assign_add(self.count, 1.0))
            self.add_loss(self.count * 0.0)
            self.built = True

        def call(self, inputs):
            self.add_update(tf.assign_add(self.total, tf.reduce_sum(inputs)))
            self.add_loss(tf.reduce_sum(inputs), inputs=True)
            return inputs

    x1, x2 = keras.Input((1,)), keras.Input((1,))
    layer = Counting()
    layer(x1)
    layer(x2)
    assert len(layer.updates) == 3 and len(layer.get_updates_for(None)) == 1
    assert len(layer.get_updates_for(x1)) == 1 and len(layer.get_updates_for(x2)) == 1
    assert len(layer.losses) == 3 and len(layer.get_losses_for(None)) == 1
    assert len(layer.get_losses_for(x2)) == 1


def test_node_index_accessors_and_shapes_of_several_calls():
    dense = keras.layers.Dense(4)
    a, b = keras.Input((3,)), keras.Input((3,))
    dense(a)
    dense(b)
    assert dense.get_input_shape_at(1) == (None, 3) and dense.get_output_shape_at(0) == (None, 4)
    assert dense.input_shape == (None, 3)  # the same for every call
    with pytest.raises(ValueError, match="Asked to get input at node 2, but the layer has only 2"):
        dense.get_input_at(2)
    with pytest.raises(RuntimeError, match="never been called"):
        keras.layers.Dense(1).get_output_at(0)
    td = keras.layers.Dense(2)
    td(keras.Input((2, 3)))
    td(keras.Input((5, 3)))
    with pytest.raises(AttributeError, match="multiple inbound nodes, with different input"):
        _ = td.input_shape
    layer, node_index, tensor_index = dense.get_output_at(0)._keras_history
    assert layer is dense and (node_index, tensor_index) == (0, 0)
    assert layer._inbound_nodes[0].outbound_layer is dense
    assert not hasattr(tf.constant(1.0), "_keras_history")
    with pytest.raises(ValueError, match="Only provide the shape OR batch_shape"):
        keras.Input(shape=(3,), batch_shape=(2, 3))


def test_call_keyword_arguments_travel_in_the_model_config():
    inp = keras.Input((2,))
    out = keras.layers.Dropout(0.5)(keras.layers.Dense(3)(inp), training=True)
    model = keras.Model(inp, out)
    config = model.get_config()
    assert config["layers"][-1]["inbound_nodes"][0][0][3] == {"training": True}
    clone = keras.Model.from_config(config)
    assert "cond" not in clone.output.op.name  # dropout always on: no switch on the phase


# -- compile and fit --------------------------------------------------------------------------------


def _two_outputs():
    a = keras.Input((3,), name="input_a")
    return keras.Model(a, [keras.layers.Dense(1, name="dense_1")(a),
                           keras.layers.Dense(1, name="dense_2")(a)])


def test_compile_records_loss_functions_and_weights():
    model = _two_outputs()
    model.compile("adam", ["mse", keras.losses.MeanAbsoluteError()],
                  loss_weights={"dense_2": 2.0})
    first, second = model.loss_functions
    assert isinstance(first, keras.losses.LossFunctionWrapper)
    assert first.fn is keras.losses.mean_squared_error and first.name == "mean_squared_error"
    assert isinstance(second, keras.losses.MeanAbsoluteError)
    assert model._loss_weights_list == [1.0, 2.0]
    graph = tf.get_default_graph()
    assert graph.get_tensor_by_name("dense_1_target:0") is model.targets[0]
    # as TF 1.15: no sample weight placeholders until weights are fed
    assert model.sample_weights == [None, None]
    model.fit(np.ones((2, 3)), [np.ones((2, 1)), np.ones((2, 1))],
              sample_weight=[np.ones(2), np.ones(2)], verbose=0)
    assert graph.get_tensor_by_name("dense_2_sample_weights:0") is model.sample_weights[1]


def test_compile_dictionary_key_errors_use_tf_wording():
    model = _two_outputs()
    for kwargs, name in (({"loss": {"nope": "mse"}}, "loss"),
                         ({"loss": "mse", "loss_weights": {"nope": 1.0}}, "loss_weights"),
                         ({"loss": "mse", "sample_weight_mode": {"nope": "temporal"}},
                          "sample_weight_mode")):
        with pytest.raises(ValueError, match=rf"Unknown entries in {name} dictionary: "
                                             r"\['nope'\]. Only expected following keys: "
                                             r"\['dense_1', 'dense_2'\]"):
            model.compile("sgd", **kwargs)


def test_dataset_targets_are_not_checked_against_the_output_shape():
    model = keras.Sequential([keras.layers.Lambda(lambda t: t * 0.0, input_shape=(2,))])
    model.compile("sgd", "mae")
    data = tf.data.Dataset.from_tensor_slices((np.ones((4, 2), np.float32),
                                               np.ones((4, 1), np.float32))).batch(2)
    history = model.fit(data, epochs=1, verbose=0)
    assert history.history["loss"] == [pytest.approx(1.0)]


def test_subclassed_model_builds_from_a_vector_of_samples():
    from tideflow.python.keras import testing_utils

    with testing_utils.model_type_scope("subclass"):
        model = testing_utils.get_model_from_layers([keras.layers.Dense(2, dtype="float64")])
    model.compile("sgd", "mse")
    model.train_on_batch(np.ones(4), np.ones((4, 2)))
    assert model.predict(np.ones(3)).shape == (3, 2)


def test_a_list_holds_one_nested_list_per_input():
    x = keras.Input((3,))
    model = keras.Model(x, keras.layers.Dense(2)(x))
    model.compile("sgd", "mse")
    rows = np.random.random((4, 3)).tolist()
    history = model.fit([rows], [np.zeros((4, 2)).tolist()], batch_size=2, verbose=0)
    assert len(history.history["loss"]) == 1
    assert model.predict([rows]).shape == (4, 2)


def test_sparse_class_ids_without_the_last_axis():
    model = keras.Sequential([keras.layers.Dense(4, input_shape=(3, 2))])
    model.compile("sgd", "sparse_categorical_crossentropy", metrics=["acc"])
    x = np.random.random((6, 3, 2))
    ids = np.random.randint(0, 4, size=(6, 3))
    model.fit(x, ids, batch_size=3, verbose=0)
    model.fit(x, ids[..., None], batch_size=3, verbose=0)


def test_fit_argument_checks():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="`validation_steps` should not be specified if "
                                         "`validation_data` is None."):
        model.fit(np.ones((2, 2)), np.ones((2, 1)), validation_steps=3)
    a = keras.Input(batch_size=2, shape=(3,))
    b = keras.Input(batch_size=3, shape=(3,))
    with pytest.raises(ValueError, match=r"Found batch sizes: \[2, 3\]"):
        keras.Model([a, b], keras.layers.Lambda(lambda t: tf.concat(t, 0))([a, b]))


# -- preprocessing -----------------------------------------------------------------------------------


def test_timeseries_generator_windows_and_training():
    series = np.arange(20, dtype=np.float32)
    gen = keras.preprocessing.sequence.TimeseriesGenerator(
        series, series * 10, length=4, sampling_rate=2, stride=3, batch_size=2)
    x, y = gen[0]
    np.testing.assert_array_equal(x, [[0, 2], [3, 5]])
    np.testing.assert_array_equal(y, [40, 70])
    assert len(gen) == 3  # windows ending before 4, 7, 10, 13, 16, 19
    rev = keras.preprocessing.sequence.TimeseriesGenerator(
        series, series, length=3, reverse=True, start_index=4, end_index=10, batch_size=2)
    assert rev[0][0].tolist() == [[6, 5, 4], [7, 6, 5]] and len(rev) == 2
    config = json.loads(gen.to_json())
    assert config["class_name"] == "TimeseriesGenerator"
    assert config["config"]["start_index"] == 4 and config["config"]["length"] == 4
    with pytest.raises(ValueError, match="Data and targets have to be of same length"):
        keras.preprocessing.sequence.TimeseriesGenerator(series, series[:3], length=2)
    with pytest.raises(ValueError, match="is disallowed"):
        keras.preprocessing.sequence.TimeseriesGenerator(series, series, length=30)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    model.fit_generator(gen, epochs=1, verbose=0)


# -- backend -------------------------------------------------------------------------------------------


def test_symbolic_learning_phase_and_sparse_variables():
    import scipy.sparse

    K.set_learning_phase(1)
    with tf.name_scope("outer"):
        phase = K.symbolic_learning_phase()
    assert phase.name == "keras_learning_phase:0" and K.learning_phase() == 1
    v = K.variable(scipy.sparse.eye(3, format="csr") * 2.0)
    assert isinstance(v, tf.SparseTensor)
    np.testing.assert_allclose(K.eval(K.to_dense(v)), np.eye(3) * 2.0)


def test_repeat_elements_on_an_axis_known_at_run_time():
    x = K.placeholder(shape=(2, None, 2))
    y = K.repeat_elements(x, 3, axis=1)
    assert y.shape.as_list() == [2, None, 2]
    value = np.arange(8, dtype=np.float32).reshape(2, 2, 2)
    np.testing.assert_array_equal(K.get_session().run(y, {x: value}), np.repeat(value, 3, 1))


def test_resize_images_argument_checks():
    x = K.variable(np.ones((1, 2, 2, 3)))
    assert K.resize_images(x, 2, 3, "channels_last").shape.as_list() == [1, 4, 6, 3]
    with pytest.raises(ValueError, match="Invalid `data_format` argument: unknown"):
        K.resize_images(x, 2, 2, "unknown")
    with pytest.raises(ValueError, match='one of "nearest" or "bilinear"'):
        K.resize_images(x, 2, 2, "channels_last", interpolation="cubic")


def test_conv2d_transpose_batch_from_input_and_dilation():
    x = K.variable(np.random.random((2, 5, 6, 3)))
    k = K.variable(np.random.random((3, 3, 4, 3)))
    y = K.conv2d_transpose(x, k, (None, 5, 6, 4), padding="same")
    assert y.shape.as_list() == [2, 5, 6, 4] and K.eval(y).shape == (2, 5, 6, 4)
    d = K.conv2d_transpose(x, k, (2, 5, 6, 4), padding="same", dilation_rate=(2, 2))
    assert K.eval(d).shape == (2, 5, 6, 4)
    with pytest.raises(ValueError, match="Invalid padding: full"):
        K.conv2d_transpose(x, k, (2, 5, 6, 4), padding="full")


def test_backend_rnn_with_variable_initial_states():
    w = K.variable(np.eye(2, dtype=np.float32))

    def step(x, states):
        out = x + K.dot(states[0], w)
        return out, [out]

    inputs = K.variable(np.ones((1, 3, 2), np.float32))
    last, outputs, states = K.rnn(step, inputs, [K.variable(np.zeros((1, 2), np.float32))])
    np.testing.assert_allclose(K.eval(last), [[3.0, 3.0]])
    assert outputs.shape.as_list() == [1, 3, 2] and len(states) == 1


def test_backend_rnn_masks_outputs_and_states_of_any_rank():
    def step(inputs, states):
        return K.tile(K.expand_dims(inputs), [1, 1, 2]), [s + 1.0 for s in states]

    values = np.random.random((2, 3, 4)).astype(np.float32)
    state = np.zeros((2, 5, 6), np.float32)
    mask = np.ones((2, 3), np.float32)
    mask[1, -1] = 0.0
    _, outputs, states = K.rnn(step, K.variable(values), [K.variable(state)],
                               mask=K.variable(mask))
    expected = np.repeat(values[..., None], 2, -1)
    expected[1, -1] = expected[1, -2]
    np.testing.assert_allclose(K.eval(outputs), expected, rtol=1e-6)
    np.testing.assert_allclose(K.eval(states[0])[:, 0, 0], [3.0, 2.0])


def test_batch_normalization_along_a_channels_first_axis():
    x = np.random.random((2, 3, 4, 4)).astype(np.float32)
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    out = K.batch_normalization(K.constant(x), K.constant(mean), K.constant(var),
                                K.constant(np.zeros(3)), K.constant(np.ones(3)), axis=1,
                                epsilon=1e-3)
    ref = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-3)
    np.testing.assert_allclose(K.eval(out), ref, rtol=1e-4, atol=1e-5)


def test_k_function_structures_defaults_fetches_and_feed_dict():
    x = K.placeholder(shape=(), name="x")
    y = K.placeholder(shape=(), name="y")
    f = K.function({"x": x, "y": y}, {"sum": x + y, "prod": x * y})
    assert f({"x": 2.0, "y": 5.0}) == {"sum": 7.0, "prod": 10.0}
    d = tf.placeholder_with_default(np.float32(3.0), shape=())
    g = K.function([x, d], [x * d])
    assert g([2.0, None]) == [6.0] and g([2.0, 4.0]) == [8.0]
    counter = K.variable(0.0)
    extra = K.placeholder(shape=())
    feeds = {extra: 1.0}
    h = K.function([x], [x + 1.0], fetches=[tf.assign_add(counter, extra)], feed_dict=feeds)
    assert h([1.0]) == [2.0] and K.get_value(counter) == 1.0
    feeds[extra] = 5.0  # read at each call
    h([1.0])
    assert K.get_value(counter) == 6.0


def test_ctc_decode_paths_as_long_as_the_longest_and_unknown_rank_axis():
    probs = np.array([[[0.1, 0.8, 0.1], [0.8, 0.1, 0.1], [0.1, 0.1, 0.8]]], np.float32)
    paths, _ = K.ctc_decode(K.constant(probs), K.constant([3], dtype="int32"))
    assert K.eval(paths[0]).tolist() == [[1, 0]]
    with pytest.raises(ValueError, match="Cannot compute sparse categorical crossentropy with "
                                         "`axis=0`"):
        K.sparse_categorical_crossentropy(K.placeholder(), K.placeholder(), axis=0)


# -- optimizers ------------------------------------------------------------------------------------


def test_optimizer_clip_arguments_and_tf_optimizer_wrapper():
    with pytest.raises(ValueError, match="Expected clipvalue >= 0, received: -0.5"):
        keras.optimizers.SGD(lr=0.01, clipvalue=-0.5)
    with pytest.raises(ValueError, match="Expected clipnorm >= 0"):
        keras.optimizers.Adam(clipnorm=-2.0)
    wrapped = keras.optimizers.TFOptimizer(tf.train.AdamOptimizer(0.01))
    model = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    model.compile(wrapped, "mse")
    K.track_tf_optimizer(wrapped)
    model.fit(np.ones((10, 3)), np.ones((10, 2)), batch_size=5, verbose=0)
    assert K.get_value(model.optimizer.iterations) == 2
    for call in (lambda: wrapped.weights, wrapped.get_config,
                 lambda: keras.optimizers.TFOptimizer.from_config(None)):
        with pytest.raises(NotImplementedError):
            call()


# -- metrics -------------------------------------------------------------------------------------------


def test_metric_variables_config_and_weight_shapes():
    first, second = keras.metrics.Mean(), keras.metrics.Mean()
    assert [v.name for v in first.variables] == ["total:0", "count:0"]
    assert [v.name for v in second.variables] == ["total_1:0", "count_1:0"]
    clone = keras.metrics.Mean.from_config(keras.metrics.Mean(name="m").get_config())
    assert clone.name == "m" and len(clone.variables) == 2
    total = keras.metrics.Sum(dtype="float64")
    mean = keras.metrics.Mean(dtype="float64")
    sess = K.get_session()
    sess.run(tf.variables_initializer(total.variables + mean.variables))
    # [n, 1] weights of [n] values are squeezed (not broadcast to [n, n])
    assert sess.run(total([1.0, 5.0], sample_weight=[[1.0], [0.2]])) == pytest.approx(2.0)
    # weights of lower rank reduce the values over the extra axes
    assert sess.run(mean([[[1.0, 3.0], [2.0, 2.0]]], sample_weight=[0.5])) == pytest.approx(2.0)
    assert sess.run(mean.count) == pytest.approx(0.5)


def test_metric_wrappers_cast_and_squeeze_like_tf():
    sess = K.get_session()
    acc = keras.metrics.BinaryAccuracy()
    mae = keras.metrics.MeanAbsoluteError(name="mae", dtype=tf.int32)
    assert mae._dtype == tf.int32
    mae = keras.metrics.MeanAbsoluteError()
    sess.run(tf.variables_initializer(acc.variables + mae.variables))
    # a prediction with an extra trailing 1 is squeezed, not broadcast
    assert sess.run(acc([[1], [1]], [[[1]], [[0]]])) == pytest.approx(0.5)
    # integer inputs are cast to the metric's dtype before the function
    assert sess.run(mae(tf.constant([[0, 1]]), tf.constant([[1, 1]]))) == pytest.approx(0.5)
    sparse = keras.metrics.SparseCategoricalAccuracy()
    sess.run(tf.variables_initializer(sparse.variables))
    t, p, w = (tf.placeholder(tf.float32) for _ in range(3))
    value = sess.run(sparse(t, p, w), {t: [2, 1], p: [[0.1, 0.1, 0.8], [0.05, 0.0, 0.95]],
                                       w: [[0.5], [0.2]]})
    assert value == pytest.approx(0.5 / 0.7)  # weights of unknown rank squeezed at run time


def test_top_k_categorical_accuracy_is_per_sample():
    y_true = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], np.float32)
    y_pred = np.array([[0.0, 0.9, 0.1]] * 3, np.float32)
    values = K.eval(keras.metrics.top_k_categorical_accuracy(y_true, y_pred, k=2))
    np.testing.assert_array_equal(values, [1.0, 0.0, 1.0])
    metric = keras.metrics.TopKCategoricalAccuracy(k=2)
    sess = K.get_session()
    sess.run(tf.variables_initializer(metric.variables))
    assert sess.run(metric(y_true, y_pred, sample_weight=[1.0, 0.0, 1.0])) == pytest.approx(1.0)


def test_mean_tensor_squeezes_column_weights():
    metric = keras.metrics.MeanTensor(dtype="float64")
    update = metric([2.0, 4.0], sample_weight=[[1.0], [0.5]])
    sess = K.get_session()
    sess.run(tf.variables_initializer(metric.variables))
    sess.run(update)
    np.testing.assert_allclose(sess.run(metric.total), [2.0, 2.0])
    np.testing.assert_allclose(sess.run(metric.count), [1.0, 0.5])


def test_multi_output_metrics_get_own_copies_and_tf_order():
    a = keras.layers.Input((1,), name="in")
    o1 = keras.layers.Dense(1, name="o1", kernel_initializer="ones")(a)
    o2 = keras.layers.Dense(1, name="o2", kernel_initializer="zeros")(a)
    model = keras.Model(a, [o1, o2])
    mse = keras.metrics.MeanSquaredError(name="m")
    model.compile("sgd", "mse", metrics=[mse], weighted_metrics=["mse"])
    # as TF 1.15: per output, its metrics then its weighted metrics
    assert model.metrics_names == ["loss", "o1_loss", "o2_loss", "o1_m",
                                   "o1_weighted_mean_squared_error", "o2_m",
                                   "o2_weighted_mean_squared_error"]
    x = np.ones((4, 1), np.float32)
    out = model.evaluate(x, [np.ones((4, 1)), np.ones((4, 1))], verbose=0)
    # one metric object given for two outputs: each output keeps its own state
    assert out[3] == pytest.approx(0.0) and out[5] == pytest.approx(1.0)


def test_subclassed_model_fit_generator_builds_from_first_batch():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

    def gen():
        while True:
            yield np.ones((2, 3), np.float32), np.ones((2, 1), np.float32)

    model = Net()
    model.compile("sgd", "mse")
    hist = model.fit_generator(gen(), steps_per_epoch=2, epochs=2, verbose=0, workers=0)
    assert len(hist.history["loss"]) == 2 and model.built


def test_confusion_metrics_config_and_messages_like_tf():
    from tideflow.python.keras.utils import metrics_utils

    with pytest.raises(ValueError, match=r"Invalid values: \[-1, 2\]"):
        keras.metrics.FalsePositives(thresholds=[-1, 0.5, 2])
    with pytest.raises(ValueError, match=r"Invalid values: \[None\]"):
        keras.metrics.FalsePositives(thresholds=[None])
    recall = keras.metrics.Recall(name="r", thresholds=[0.4, 0.9], top_k=15, class_id=12)
    again = keras.metrics.Recall.from_config(recall.get_config())
    assert (again.name, again.thresholds, again.top_k, again.class_id) == ("r", [0.4, 0.9],
                                                                         15, 12)
    auc = keras.metrics.AUC(curve="PR", summation_method="majoring")
    assert auc.curve == metrics_utils.AUCCurve.PR
    assert auc.summation_method == metrics_utils.AUCSummationMethod.MAJORING
    config = auc.get_config()
    assert config == json.loads(json.dumps(config)) and config["curve"] == "PR"
    assert keras.metrics.AUC.from_config(config).get_config() == config
    with pytest.raises(ValueError, match='Invalid AUC curve value "Invalid".'):
        keras.metrics.AUC(curve="Invalid")


def test_layer_normalization_checks_axes_like_tf():
    with pytest.raises(ValueError, match="Invalid axis: 3"):
        keras.layers.LayerNormalization(axis=3).build((2, 2, 2))
    with pytest.raises(ValueError, match="Invalid axis: -1"):
        keras.layers.LayerNormalization(axis=-4).build((2, 2, 2))
    with pytest.raises(ValueError, match="Duplicate axis:"):
        keras.layers.LayerNormalization(axis=[-1, -1]).build((2, 2, 2))
    layer = keras.layers.LayerNormalization(axis=[-3, -2, -1])
    layer.build((2, 8, 8, 3))
    assert layer.gamma.get_shape().as_list() == [8, 8, 3]
    assert layer.axis == [1, 2, 3]  # resolved in place, as TF 1.15
    # TF 1.15 resolves the axes in place, which a tuple does not allow
    with pytest.raises(TypeError, match="does not support item assignment"):
        keras.layers.LayerNormalization(axis=(-3, -2, -1)).build((2, 8, 8, 3))


def test_add_weight_on_read_is_not_trainable():
    layer = keras.layers.Layer()
    v = layer.add_weight("a", (1,), synchronization=tf.VariableSynchronization.ON_READ,
                         aggregation=tf.VariableAggregation.SUM)
    assert layer.trainable_weights == [] and layer.non_trainable_weights == [v]
    with pytest.raises(ValueError, match="only for non-trainable variables"):
        layer.add_weight("b", (1,), synchronization=tf.VariableSynchronization.ON_READ,
                         trainable=True)


def test_rnn_unroll_needs_time_dimension_and_initial_state_args():
    with pytest.raises(ValueError, match="Cannot unroll a RNN if the time dimension is undefined"):
        keras.layers.SimpleRNN(3, unroll=True)(keras.Input((None, 2)))
    cell = keras.layers.SimpleRNNCell(5)
    with pytest.raises(ValueError, match="batch_size and dtype cannot be None"):
        cell.get_initial_state(None, None, None)
    inputs = keras.Input((None, 3))
    state = cell.get_initial_state(None, tf.shape(inputs)[0], inputs.dtype)
    assert state.get_shape().as_list() == [None, 5]
