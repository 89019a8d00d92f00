"""tf.keras parity with TF 1.15 (nineteenth session): applications, configs, saving,
callbacks and training loops. Expected values are TF 1.15's printed outputs."""

import json

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend
L = tf.keras.layers


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_mobilenet_top_reshapes_before_the_softmax():
    # keras_applications 1.0.8: conv_preds, reshape_2, act_softmax (the softmax on (None, 7))
    m = tf.keras.applications.MobileNet(input_shape=(32, 32, 3), weights=None, alpha=0.25,
                                        classes=7)
    assert [la.name for la in m.layers][-3:] == ["conv_preds", "reshape_2", "act_softmax"]
    assert m.layers[-1].output_shape == (None, 7)
    assert m.count_params() == 220343


def _double(t, k=2.0):
    return t * k


def test_lambda_config_marshals_every_python_function():
    # TF 1.15 tests for LambdaType (any def): (code, defaults, closure) and 'lambda'
    cfg = L.Lambda(_double, name="dbl").get_config()
    assert cfg["function_type"] == "lambda" and cfg["module"] == __name__
    code, defaults, closure = cfg["function"]
    assert isinstance(code, str) and defaults == (2.0,) and closure is None
    json.dumps(cfg)  # a plain-JSON config, as TF's
    again = L.Lambda.from_config(cfg)
    assert K.get_session().run(again(tf.constant([1.5]))) == [3.0]
    cfg = L.Lambda(lambda t: t, mask=lambda i, m: None, output_shape=lambda s: s).get_config()
    assert [cfg[k] for k in ("function_type", "output_shape_type", "mask_type")] == \
        ["lambda"] * 3
    assert [type(cfg[k]).__name__ for k in ("function", "output_shape", "mask")] == \
        ["tuple"] * 3


def test_advanced_activation_configs_hold_float32_values():
    # TF 1.15 casts them with K.cast_to_floatx: 0.3 saved as 0.30000001192092896, ReLU's as
    # 0-d float32 arrays
    assert L.LeakyReLU(0.3).get_config()["alpha"] == 0.30000001192092896
    assert L.ELU(0.7).get_config()["alpha"] == 0.699999988079071
    assert L.ThresholdedReLU(0.1).get_config()["theta"] == 0.10000000149011612
    cfg = L.ReLU(6., 0.1, 0.5).get_config()
    for k, v in (("max_value", 6.0), ("negative_slope", 0.1), ("threshold", 0.5)):
        assert isinstance(cfg[k], np.ndarray) and cfg[k].dtype == np.float32
        assert cfg[k] == np.float32(v)
    assert L.ReLU().get_config()["max_value"] is None


def test_relu_layers_build_tf_ops():
    x = tf.constant(np.linspace(-3, 8, 12).reshape(2, 6).astype("float32"))
    L.LeakyReLU(0.3)(x)
    y = L.ReLU(6., 0.1, 0.5)(x)
    L.ReLU(negative_slope=0.2)(x)
    names = [o.name for o in tf.get_default_graph().get_operations()]
    # TF 1.15: LeakyRelu takes the float32 alpha as its attr; K.relu makes the cap's Const,
    # the zero's, then alpha's Const_2
    assert names == [
        "Const", "leaky_re_lu/LeakyRelu", "re_lu/Neg", "re_lu/add/y", "re_lu/add", "re_lu/Relu",
        "re_lu/Greater/y", "re_lu/Greater", "re_lu/Cast", "re_lu/mul", "re_lu/Const",
        "re_lu/Const_1", "re_lu/clip_by_value/Minimum", "re_lu/clip_by_value", "re_lu/Const_2",
        "re_lu/mul_1", "re_lu/sub", "re_lu_1/LeakyRelu"]
    g = tf.get_default_graph()
    assert K.get_session().run([g.get_tensor_by_name("re_lu/Const:0"),
                                g.get_tensor_by_name("re_lu/Const_1:0")]) == [6.0, 0.0]
    # (TF 1.15 prints [-0.35 -0.25 -0.15 -0.05 1. 2.])
    np.testing.assert_allclose(K.get_session().run(y)[0], [-0.35, -0.25, -0.15, -0.05, 1, 2],
                               atol=1e-6)


def test_separable_and_alpha_dropout_config_keys():
    # TF 1.15: SeparableConv keeps the Conv base's kernel_* keys; AlphaDropout saves only rate
    keys = set(L.SeparableConv2D(4, 3).get_config())
    assert {"kernel_initializer", "kernel_regularizer", "kernel_constraint",
            "depthwise_initializer", "pointwise_initializer"} <= keys
    assert "kernel_initializer" in L.SeparableConv1D(4, 3).get_config()
    assert sorted(L.AlphaDropout(0.3).get_config()) == ["dtype", "name", "rate", "trainable"]
    layer = L.SeparableConv2D.from_config(L.SeparableConv2D(4, 3).get_config())
    assert layer.filters == 4


def test_load_weights_of_tf_format_returns_a_load_status(tmp_path):
    def make():
        return tf.keras.Sequential([L.Dense(3, input_shape=(2,)), L.Dense(1)])

    m = make()
    m.compile("adam", "mse")
    m.fit(np.ones((4, 2), "float32"), np.ones((4, 1), "float32"), verbose=0)
    path = str(tmp_path / "w")
    m.save_weights(path)
    m2 = make()
    status = m2.load_weights(path)
    # TF 1.15: a CheckpointLoadStatus; the optimizer's saved state is not consumed yet
    assert type(status).__name__ == "CheckpointLoadStatus"
    assert status.assert_existing_objects_matched() is status
    assert status.assert_nontrivial_match() is status
    assert status.expect_partial() is status
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    np.testing.assert_allclose(K.get_value(m2.weights[0]), K.get_value(m.weights[0]))
    with pytest.raises(NotImplementedError, match="Weights may only be loaded based on "
                       "topology into Models when loading TensorFlow-formatted weights"):
        m2.load_weights(path, by_name=True)
    m2.save_weights(str(tmp_path / "w.h5"))
    assert m2.load_weights(str(tmp_path / "w.h5")) is None


def test_get_uid_counts_apart_from_layer_names():
    # TF 1.15 numbers layer names under the key (None, 'dense'): get_uid('dense') starts at 1
    L.Dense(2)
    L.Dense(2)
    assert [K.get_uid("dense"), K.get_uid("dense")] == [1, 2]
    assert L.Dense(1).name == "dense_2"


def test_bidirectional_masked_sequences_count_the_zero_output_enter():
    # TF 1.15's Bidirectional makes its layers output zeros at masked steps (with
    # return_sequences): each loop takes the zero output in with one Enter more, so the Dense
    # after it draws these initial values (TF 1.15's printed kernel)
    tf.set_random_seed(1)
    m = tf.keras.Sequential([L.Embedding(8, 4, mask_zero=True, input_length=5),
                             L.Bidirectional(L.LSTM(3, return_sequences=True)), L.Dense(2)])
    np.testing.assert_allclose(K.get_session().run(m.layers[-1].kernel), [
        [0.399536, -0.560047], [-0.498048, -0.150923], [-0.080195, -0.296075],
        [0.051112, 0.247513], [0.425044, -0.326503], [0.149312, 0.229994]], atol=1e-6)


def test_model_to_estimator_of_an_uninitialized_model_starts_from_a_seeded_clone(tmp_path):
    # TF 1.15: with no Keras weight initialized yet, the Estimator starts from a clone made
    # in a new graph seeded with the RunConfig's tf_random_seed (TF's printed predictions)
    tf.set_random_seed(6)
    inp = L.Input((3,), name="feats")
    out = L.Dense(1, name="pred")(L.Dense(4, activation="relu")(inp))
    m = tf.keras.Model(inp, out)
    m.compile(tf.keras.optimizers.SGD(0.1), "mse")
    x = np.random.RandomState(0).rand(16, 3).astype("float32")
    y = x.sum(1, keepdims=True)
    est = tf.keras.estimator.model_to_estimator(
        keras_model=m, model_dir=str(tmp_path / "est"),
        config=tf.estimator.RunConfig(tf_random_seed=3))

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"feats": x}, y)).batch(4).repeat(2)

    est.train(input_fn, steps=6)
    preds = est.predict(lambda: tf.data.Dataset.from_tensor_slices({"feats": x[:3]}).batch(3))
    np.testing.assert_allclose([p["pred"][0] for p in preds], [1.86904, 1.67553, 1.95296],
                               atol=2e-5)
    # (the Keras model keeps its own initial values, drawn in its own graph)
    np.testing.assert_allclose(m.get_weights()[2].ravel(), [0.87576, 0.8354, 0.49978, 0.33579],
                               atol=2e-5)


@pytest.mark.parametrize("make,names", [
    (lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9, decay=0.01), [
        "training/SGD/decay", "training/SGD/dense/bias/momentum",
        "training/SGD/dense/kernel/momentum", "training/SGD/learning_rate",
        "training/SGD/momentum"]),
    (lambda: tf.train.AdamOptimizer(0.05), [
        "dense/bias/Adam", "dense/bias/Adam_1", "dense/kernel/Adam", "dense/kernel/Adam_1",
        "training/beta1_power", "training/beta2_power"]),
])
def test_model_to_estimator_optimizer_counts_in_the_global_step(tmp_path, make, names):
    # TF 1.15's clone takes the global step as its optimizer's iterations (no 'iter' or
    # 'TFOptimizer/iterations' variable) and builds its step under 'training'
    inp = L.Input((3,), name="feats")
    m = tf.keras.Model(inp, L.Dense(1)(inp))
    m.compile(make(), "mse")
    m.get_weights()
    est = tf.keras.estimator.model_to_estimator(keras_model=m, model_dir=str(tmp_path))
    x = np.ones((4, 3), "float32")
    est.train(lambda: tf.data.Dataset.from_tensor_slices(({"feats": x}, x[:, :1])).batch(2),
              steps=2)
    assert sorted(n for n, _ in tf.train.list_variables(str(tmp_path))) == sorted(
        ["dense/bias", "dense/kernel", "global_step"] + names)
    assert est.get_variable_value("global_step") == 2


def test_tf_format_weights_save_and_load_count_tf_ops(tmp_path):
    # TF 1.15's object-based saver: 2 constants + a 16-op save the first time, a constant +
    # a RestoreV2 + Identity/assign pairs for a first load, and 5 ops per optimizer variable
    # restored as a later fit makes it; the random op after them draws TF 1.15's numbers
    tf.set_random_seed(3)

    def make():
        return tf.keras.Sequential([L.Dense(3, input_shape=(2,)), L.Dense(3)])

    x, y = np.ones((2, 2), "float32"), np.ones((2, 3), "float32")
    a = make()
    a.compile(tf.keras.optimizers.Adam(0.1), "mse")
    a.fit(x, y, verbose=0)
    g = tf.get_default_graph()
    before = g._last_id
    a.save_weights(str(tmp_path / "w"))
    a.save_weights(str(tmp_path / "again"))
    assert g._last_id - before == 18
    b = make()
    b.load_weights(str(tmp_path / "w"))
    b.save_weights(str(tmp_path / "w2"))
    c = make()
    c.compile(tf.keras.optimizers.Adam(0.1), "mse")
    c.load_weights(str(tmp_path / "w"))
    c.fit(x, y, verbose=0)
    np.testing.assert_allclose(K.get_session().run(tf.random_uniform([3])),
                               [0.700621, 0.803883, 0.308456], atol=1e-6)


def test_export_saved_model_takes_tf_ids_and_an_init_op_signature(tmp_path):
    # TF 1.15 builds the SavedModel's graphs apart: the model's graph only takes its
    # save_weights' 18 ops; the serving graph has the '__saved_model_init_op' signature
    tf.set_random_seed(4)
    m = tf.keras.Sequential([L.Dense(3, input_shape=(2,)), L.Dense(1)])
    m.compile(tf.keras.optimizers.SGD(0.1), "mse")
    m.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0)
    g = tf.get_default_graph()
    before = g._last_id
    tf.keras.experimental.export_saved_model(m, str(tmp_path / "sm"))
    assert g._last_id - before == 18
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "sm"))
        assert sorted(meta.signature_def) == ["__saved_model_init_op", "serving_default"]
        init = meta.signature_def["__saved_model_init_op"]
        assert list(init.outputs) == ["__saved_model_init_op"] and not init.inputs


def test_subclassed_model_config_is_a_bare_not_implemented_error():
    # TF 1.15: Network.get_config raises NotImplementedError with no message (to_json too)
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(2)

        def call(self, x):
            return self.d(x)

    m = Net()
    m(tf.ones((1, 3)))
    for fn in (m.get_config, m.to_json):
        with pytest.raises(NotImplementedError) as info:
            fn()
        assert str(info.value) == ""


def test_model_checkpoint_missing_key_is_str_format_keyerror(tmp_path):
    # TF 1.15 formats the path with str.format: a key the logs lack is KeyError('nokey')
    m = tf.keras.Sequential([L.Dense(1, input_shape=(2,))])
    m.compile("sgd", "mse")
    cb = tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "c-{nokey}.h5"))
    with pytest.raises(KeyError) as info:
        m.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0, callbacks=[cb])
    assert info.value.args == ("nokey",)


def test_embedding_mask_compares_with_a_notequal_constant():
    # TF 1.15: math_ops.not_equal(inputs, 0), its constant named NotEqual/y
    for dtype in ("int32", "float32", "int64"):
        with tf.Graph().as_default():
            ids = L.Input((4,), dtype=dtype)
            out = L.Embedding(8, 2, mask_zero=True)(ids)
            names = [o.name for o in tf.get_default_graph().get_operations()
                     if o.name.startswith("embedding/NotEqual")]
            assert names == ["embedding/NotEqual/y", "embedding/NotEqual"]
            got = K.get_session().run(out._keras_mask, {ids: [[3, 0, 1, 0]]})
            assert got.tolist() == [[True, False, True, False]]


def test_sequential_built_by_build_is_a_subclass_style_model(capsys):
    # TF 1.15: build() runs the layers on a plain placeholder (the summary prints 'multiple');
    # fit then calls them again on input_1 as a subclassed model (its target output_1_target),
    # so the Dropout used in training is the one fit makes (TF's printed weights after fit)
    tf.set_random_seed(71)
    m = tf.keras.Sequential([L.Dense(4, activation="relu"), L.Dropout(0.1), L.Dense(2)])
    g = tf.get_default_graph()
    before = g._last_id
    m.build((None, 3))
    assert g._last_id - before == 68
    m.summary()
    assert capsys.readouterr().out.count("multiple") == 3
    m.compile("sgd", "mse")
    x = np.random.RandomState(0).rand(6, 3).astype("float32")
    before = g._last_id
    m.fit(x, x[:, :2], verbose=0, batch_size=3, shuffle=False)
    assert g._last_id - before == 211
    assert "output_1_target" in [o.name for o in g.get_operations()]
    np.testing.assert_allclose(m.get_weights()[0][0], [0.0552, 0.8552, -0.2209, -0.0599],
                               atol=1e-4)
