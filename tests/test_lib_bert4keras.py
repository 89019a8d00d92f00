"""Differences found by running bert4keras 0.11.5 (BERT/ALBERT/NEZHA/GPT/T5 builders, its
optimizer extensions, CRF, UniLM decoding) under ``TF_KERAS=1`` against tideflow, each reduced
to the plain TF 1.x / tf.keras calls the library makes."""

import sys

import numpy as np
import pytest

import tideflow as tf

K = tf.keras.backend


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield
    K.clear_session()


# ----------------------------------------------------------------------------------------
# OptimizerV2's _decayed_lr and _serialize_hyperparameter, for subclasses with their own rule
# ----------------------------------------------------------------------------------------


class _PlainSGD(tf.keras.optimizers.Optimizer):
    """An update rule of our own over OptimizerV2's protocol (as bert4keras's Adam)."""

    def __init__(self, learning_rate=0.5, scale=2.0, **kwargs):
        kwargs["name"] = kwargs.get("name") or "PlainSGD"
        super().__init__(**kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("scale", scale)

    def _resource_apply_dense(self, grad, var):
        lr_t = self._decayed_lr(var.dtype.base_dtype)
        return K.update(var, var - lr_t * grad)

    def get_config(self):
        config = {"learning_rate": self._serialize_hyperparameter("learning_rate"),
                  "scale": self._serialize_hyperparameter("scale")}
        config.update(super().get_config())
        return config


def test_decayed_lr_is_the_learning_rate_divided_by_the_decay_of_the_step():
    opt = _PlainSGD(0.5, decay=0.25)
    v = K.variable([1.0, 2.0])
    loss = tf.reduce_sum(v)
    step = opt.get_updates(loss, [v])
    lr64 = opt._decayed_lr(tf.float64)
    assert lr64.dtype == tf.float64
    sess = K.get_session()
    seen = []
    for _ in range(3):
        seen.append(sess.run(lr64))
        sess.run(step)
    np.testing.assert_allclose(seen, [0.5, 0.5 / 1.25, 0.5 / 1.5])
    np.testing.assert_allclose(sess.run(v), np.array([1.0, 2.0]) - (0.5 + 0.4 + 1 / 3),
                               rtol=1e-6)


def test_decayed_lr_follows_a_schedule():
    sched = tf.keras.optimizers.schedules.ExponentialDecay(0.8, decay_steps=1, decay_rate=0.5)
    opt = _PlainSGD(sched)
    v = K.variable([3.0])
    step = opt.get_updates(tf.reduce_sum(v), [v])
    lr = opt._decayed_lr(tf.float32)
    sess = K.get_session()
    got = []
    for _ in range(3):
        got.append(sess.run(lr))
        sess.run(step)
    np.testing.assert_allclose(got, [0.8, 0.4, 0.2], rtol=1e-6)
    np.testing.assert_allclose(sess.run(v), [3.0 - 1.4], rtol=1e-6)


def test_serialize_hyperparameter_gives_plain_values():
    opt = _PlainSGD(0.125, scale=lambda: 3.0)
    config = opt.get_config()
    assert config["learning_rate"] == 0.125
    assert config["scale"] == 3.0
    sched = tf.keras.optimizers.schedules.ExponentialDecay(0.8, decay_steps=2, decay_rate=0.5)
    got = _PlainSGD(sched)._serialize_hyperparameter("learning_rate")
    assert got["class_name"] == "ExponentialDecay"
    assert got["config"]["initial_learning_rate"] == 0.8


# ----------------------------------------------------------------------------------------
# tf.keras aliased as a top-level package (sys.modules['keras'] = tf.keras): its submodules
# imported through the alias are tf.keras's own modules, sharing the Keras session
# ----------------------------------------------------------------------------------------


def test_submodule_imported_through_an_alias_of_tf_keras_is_the_same_module():
    alias = "h156_keras_alias"
    sys.modules[alias] = tf.keras
    try:
        import h156_keras_alias.backend as aliased_backend
        import h156_keras_alias.engine.training as aliased_training
        from h156_keras_alias import layers as aliased_layers

        assert aliased_backend is tf.keras.backend
        assert aliased_layers is tf.keras.layers
        assert aliased_training.Model is tf.keras.Model
        # one Keras session: a variable read through the alias during a layer's build is
        # still initialized when the model trains
        x = tf.keras.Input((3,))
        dense = tf.keras.layers.Dense(2)
        y = dense(x)
        aliased_backend.set_value(dense.kernel, np.ones((3, 2), np.float32))
        model = tf.keras.Model(x, y)
        model.compile("sgd", "mse")
        model.train_on_batch(np.ones((4, 3), np.float32), np.zeros((4, 2), np.float32))
        assert aliased_backend.get_session() is K.get_session()
    finally:
        for name in [n for n in sys.modules if n == alias or n.startswith(alias + ".")]:
            del sys.modules[name]


def test_a_missing_submodule_through_the_alias_is_still_an_import_error():
    alias = "h156_keras_alias2"
    sys.modules[alias] = tf.keras
    try:
        with pytest.raises(ImportError):
            import h156_keras_alias2.no_such_module  # noqa: F401
    finally:
        for name in [n for n in sys.modules if n == alias or n.startswith(alias + ".")]:
            del sys.modules[name]


# ----------------------------------------------------------------------------------------
# K.get_value / batch_get_value / batch_set_value inside another graph's as_default() use the
# session of the variables' graph (bert4keras saves weights as a TF checkpoint that way)
# ----------------------------------------------------------------------------------------


def test_reading_keras_variables_inside_another_graph_uses_their_session():
    v = K.variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="kept")
    K.set_value(v, np.full((2, 3), 7.0, np.float32))
    session = K.get_session()
    with tf.Graph().as_default() as other:
        np.testing.assert_array_equal(K.get_value(v), np.full((2, 3), 7.0))
        (got,) = K.batch_get_value([v])
        np.testing.assert_array_equal(got, np.full((2, 3), 7.0))
        K.batch_set_value([(v, np.ones((2, 3), np.float32))])
        w = tf.Variable(np.zeros(2, np.float32), name="copy")
        assert w.graph is other
        with tf.Session() as sess:  # a default session on the other graph is used for its own
            K.batch_set_value([(w, np.array([3.0, 4.0], np.float32))])
            np.testing.assert_array_equal(sess.run(w), [3.0, 4.0])
    # the Keras session was kept, with its values
    assert K.get_session() is session
    np.testing.assert_array_equal(K.get_value(v), np.ones((2, 3)))


# ----------------------------------------------------------------------------------------
# einsum's gradient for an operand without an ellipsis when the others broadcast one
# (sinusoidal position embeddings: tf.einsum('...,d->...d', positions, frequencies))
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("equation,shape_a,shape_b", [
    ("...,d->...d", (2, 5), (4,)),
    ("...d,d->...", (2, 3, 4), (4,)),
    ("d,...d->...d", (3,), (2, 3)),
])
def test_einsum_gradient_of_an_operand_without_ellipsis(equation, shape_a, shape_b):
    rs = np.random.RandomState(3)
    a, b = rs.randn(*shape_a), rs.randn(*shape_b)
    x, y = tf.constant(a), tf.constant(b)
    z = tf.einsum(equation, x, y)
    gx, gy = tf.gradients(tf.reduce_sum(z * z), [x, y])
    assert gx.get_shape().as_list() == list(shape_a)
    assert gy.get_shape().as_list() == list(shape_b)
    with tf.Session() as sess:
        zv, gxv, gyv = sess.run([z, gx, gy])
        np.testing.assert_allclose(zv, np.einsum(equation, a, b))
        # d/da sum(z^2) = 2 * einsum of z with b back to a's subscripts, by finite differences
        for t, val in ((x, a), (y, b)):
            err = tf.test.compute_gradient_error(t, val.shape, z, list(zv.shape), x_init_value=val)
            assert err < 1e-8
    if equation == "...,d->...d":
        np.testing.assert_allclose(gxv, 2 * zv @ b)
        np.testing.assert_allclose(gyv, 2 * np.einsum("ij,ijd->d", a, zv))


# ----------------------------------------------------------------------------------------
# model.train_function: TF 1.x Keras's replaceable step function (adversarial training wraps
# it: perturb the embeddings, run the old step, restore); K.function ignores extra values
# ----------------------------------------------------------------------------------------


def _embedding_classifier():
    ids = tf.keras.Input((4,), dtype="int32")
    emb = tf.keras.layers.Embedding(10, 3, name="emb")
    h = tf.keras.layers.GlobalAveragePooling1D()(emb(ids))
    out = tf.keras.layers.Dense(2, activation="softmax")(tf.keras.layers.Dropout(0.1)(h))
    model = tf.keras.Model(ids, out)
    model.compile(tf.keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    return model, emb


def test_train_function_is_none_until_made_and_reset_by_compile():
    model, _ = _embedding_classifier()
    assert model.train_function is None
    model._make_train_function()
    step = model.train_function
    assert step is not None
    # as TF 1.15: no sample weight placeholder until weights are fed; the learning phase last
    assert model._feed_sample_weights == []
    assert step.inputs == model._feed_inputs + model._feed_targets + [K.learning_phase()]
    x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]])
    y = np.array([[0], [1]])
    loss, acc = step([x, y, None, True])
    assert np.isfinite(loss) and 0.0 <= acc <= 1.0
    model.train_function = lambda ins: [0.0, 0.0]
    model.compile("sgd", "sparse_categorical_crossentropy")
    assert model.train_function is None


def test_an_assigned_train_function_is_what_fit_calls():
    model, emb = _embedding_classifier()
    model._make_train_function()
    old_step = model.train_function
    grads = K.gradients(model.total_loss, [emb.embeddings])[0]
    grads = K.zeros_like(emb.embeddings) + grads
    feeds = model._feed_inputs + model._feed_targets + model._feed_sample_weights
    embedding_grads = K.function(feeds, [grads])
    calls, seen = [], []

    def adversarial_step(ins):
        calls.append(len(ins))
        g = embedding_grads(ins)[0]  # (the trailing learning phase value is ignored)
        delta = 0.5 * g / (np.sqrt((g ** 2).sum()) + 1e-8)
        before = K.get_value(emb.embeddings)
        K.set_value(emb.embeddings, before + delta)
        out = old_step(ins)
        after = K.get_value(emb.embeddings)
        K.set_value(emb.embeddings, after - delta)
        seen.append(np.abs(after - before - delta).max() > 0)  # the step moved them
        return out

    model.train_function = adversarial_step
    x = np.random.RandomState(0).randint(0, 10, size=(6, 4))
    y = np.array([[0], [1], [0], [1], [1], [0]])
    history = model.fit(x, y, batch_size=3, epochs=2, verbose=0)
    assert calls == [4, 4, 4, 4]  # inputs, targets, sample weights, learning phase
    assert all(seen)
    assert len(history.history["loss"]) == 2
    loss = model.train_on_batch(x, y)
    assert len(calls) == 5 and np.all(np.isfinite(loss))


def test_keras_function_ignores_values_beyond_its_inputs():
    a = K.placeholder((None, 2))
    f = K.function([a], [a * 2.0])
    np.testing.assert_allclose(f([np.ones((1, 2)), 123])[0], [[2.0, 2.0]])


# ----------------------------------------------------------------------------------------
# serialize(None) of regularizers, constraints and initializers is None (a layer's get_config
# with no regularizer set: CyberZHG's keras-pos-embd, keras-embed-sim, keras-layer-normalization)
# ----------------------------------------------------------------------------------------


def test_serialize_none_is_none_and_round_trips():
    for module in (tf.keras.regularizers, tf.keras.constraints, tf.keras.initializers):
        assert module.serialize(None) is None
        assert module.get(module.serialize(None)) is None
    config = {"reg": tf.keras.regularizers.serialize(tf.keras.regularizers.l2(0.5)),
              "none": tf.keras.regularizers.serialize(None)}
    assert config["reg"]["config"]["l2"] == 0.5 and config["none"] is None


# ----------------------------------------------------------------------------------------
# Bidirectional.build(shape) builds its forward and backward layers (keras-multi-head copies
# a layer by config, builds it directly and reads its weights)
# ----------------------------------------------------------------------------------------


def test_bidirectional_built_directly_has_its_weights():
    layers = tf.keras.layers
    original = layers.Bidirectional(layers.LSTM(5, return_sequences=True), name="bi")
    copy = layers.Bidirectional.from_config(original.get_config())
    copy.build(tf.TensorShape([None, None, 3]))
    assert copy.built
    shapes = [w.shape for w in copy.get_weights()]
    assert shapes == [(3, 20), (5, 20), (20,)] * 2
    assert [w.name for w in copy.weights][:1] == [copy.forward_layer.name + "/kernel:0"]
    # called afterwards: the same weights, no new ones
    x = tf.keras.Input((4, 3))
    y = copy(x)
    assert y.get_shape().as_list() == [None, 4, 10] and len(copy.weights) == 6


# ----------------------------------------------------------------------------------------
# compute_mask returning a nested list: flattened over the outputs (keras-self-attention's
# ResidualScaledDotProductAttention returns [[mask, mask_last, None], mask_last] for three
# outputs)
# ----------------------------------------------------------------------------------------


class _ThreeOutputs(tf.keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs, mask=None):
        return [inputs * 2.0, inputs[:, -1], tf.reduce_sum(inputs, axis=-1)]

    def compute_mask(self, inputs, mask=None):
        return [[mask, mask[:, -1], None], mask[:, -1]]

    def compute_output_shape(self, input_shape):
        return [input_shape, (input_shape[0], input_shape[2]), input_shape[:2]]


def test_nested_output_masks_are_flattened_over_the_outputs():
    ids = tf.keras.Input((4,))
    emb = tf.keras.layers.Embedding(5, 3, mask_zero=True)(ids)
    a, b, c = _ThreeOutputs()(emb)
    assert a._keras_mask is not None and a._keras_mask.get_shape().as_list() == [None, 4]
    assert b._keras_mask.get_shape().as_list() == [None]
    assert c._keras_mask is None
    model = tf.keras.Model(ids, a)
    model.compile("sgd", "mse")
    x = np.array([[1, 2, 0, 0], [3, 4, 1, 0]])
    loss = model.train_on_batch(x, np.zeros((2, 4, 3), np.float32))
    assert np.isfinite(loss)


# ----------------------------------------------------------------------------------------
# TF 1.x module paths and OptimizerV2 spellings that keras-bert's AdamWarmup uses
# ----------------------------------------------------------------------------------------


def test_backend_config_and_generic_utils_under_tf_python_keras():
    from tideflow.python.keras.utils.generic_utils import (
        CustomObjectScope,
        get_custom_objects,
    )

    from tideflow.python.keras import backend_config

    assert backend_config.epsilon() == K.epsilon()
    assert backend_config.floatx() == "float32"
    assert backend_config.image_data_format() == K.image_data_format()
    assert CustomObjectScope is tf.keras.utils.CustomObjectScope
    with CustomObjectScope({"h156_thing": 7}):
        assert get_custom_objects()["h156_thing"] == 7
    with pytest.raises(ImportError):
        import tideflow.keras.utils.no_such_module  # noqa: F401


class _WarmupSGD(tf.keras.optimizers.Optimizer):
    def __init__(self, learning_rate=0.1, name="WarmupSGD", **kwargs):
        super().__init__(name, **kwargs)  # name positional, as OptimizerV2
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)

    def _resource_apply_dense(self, grad, var):
        return K.update(var, var - self._decayed_lr(var.dtype.base_dtype) * grad)


def test_optimizer_name_is_positional_and_initial_decay_is_readable():
    opt = _WarmupSGD(0.1, decay=1.0)
    assert opt._initial_decay == 1.0
    assert opt.get_config()["name"] == "WarmupSGD"
    v = K.variable([1.0])
    step = opt.get_updates(tf.reduce_sum(v), [v])
    sess = K.get_session()
    sess.run(step)
    sess.run(step)  # 1 - 0.1 - 0.1 / 2
    np.testing.assert_allclose(sess.run(v), [0.85], rtol=1e-6)
    assert _WarmupSGD(name=None).get_config()["name"] == "_WarmupSGD"


def test_generic_utils_to_list_and_object_list_uid():
    from tideflow.python.keras.utils import generic_utils

    a, b = tf.constant(1.0), tf.constant(2.0)
    assert generic_utils.to_list(a) == [a]
    assert generic_utils.to_list([a, b]) == [a, b]
    assert generic_utils.to_list((a, b)) == [(a, b)]
    assert generic_utils.to_list((a, b), allow_tuple=True) == [a, b]
    uid = generic_utils.object_list_uid([a, [b]])
    assert uid == generic_utils.object_list_uid([a, b]) == f"{abs(id(a))}, {abs(id(b))}"
    assert uid != generic_utils.object_list_uid([b, a])
