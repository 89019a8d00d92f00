"""Differences found by running AmpliGraph 1.3 (knowledge-graph embeddings on TF 1.x graph
mode) and DeepMatch 0.1 (matching models on tf.keras) against tideflow, each reduced to the
plain TF 1.x calls the library makes."""

import threading

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# from_generator: closing the session while a prefetch thread runs the generator
# ----------------------------------------------------------------------------------------


def test_session_close_while_prefetch_runs_generator():
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()

    def gen():
        try:
            yield np.int64(7)
            entered.set()
            release.wait(1.0)
            yield np.int64(8)
        finally:
            finished.set()

    ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([])).repeat().prefetch(1)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    sess = tf.Session()
    assert sess.run(nxt) == 7
    assert entered.wait(5.0)  # the prefetch thread is now inside the generator
    sess.close()  # no "generator already executing"
    release.set()
    assert finished.wait(5.0)  # and the generator is still closed, in its own thread



def test_prefetch_zero_reads_nothing_ahead():
    # AmpliGraph's large-graph mode: its generator yields embeddings the previous step wrote
    state = {"value": 0}

    def gen():
        while True:
            yield np.int64(state["value"])

    ds = tf.data.Dataset.from_generator(gen, tf.int64, tf.TensorShape([])).repeat().prefetch(0)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        got = []
        for step in range(4):
            state["value"] = 10 * step
            got.append(int(sess.run(nxt)))
    assert got == [0, 10, 20, 30]


# ----------------------------------------------------------------------------------------
# private names copies of TF's code import, and Keras add_weight with an initializer class
# ----------------------------------------------------------------------------------------


def test_rnn_cell_impl_concat_joins_shape_parts():
    from tideflow.python.ops import rnn_cell_impl

    assert rnn_cell_impl._concat(4, [2, 3], static=True) == [4, 2, 3]
    t = rnn_cell_impl._concat(tf.constant(5), 6)
    assert t.dtype == tf.int32 and t.get_shape().as_list() == [2]
    with tf.Session() as sess:
        assert sess.run(t).tolist() == [5, 6]


def test_add_weight_instantiates_an_initializer_class():
    from tideflow.python.keras.initializers import Ones, Zeros

    class Shift(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.shift = self.add_weight(shape=[3], initializer=Ones, dtype=tf.float32,
                                         trainable=False, name="shift")
            self.scale = self.add_weight(shape=[3], initializer=Zeros, name="scale")
            super().build(input_shape)

        def call(self, x):
            return x * (1.0 + self.scale) + self.shift

    inp = tf.keras.layers.Input((3,))
    layer = Shift()
    model = tf.keras.models.Model(inp, layer(inp))
    assert len(layer.trainable_weights) == 1 and len(layer.non_trainable_weights) == 1
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    np.testing.assert_allclose(model.predict(x), x + 1.0)


# ----------------------------------------------------------------------------------------
# Model.weights / get_weights: layer by layer, as TF's Network
# ----------------------------------------------------------------------------------------


class _Routing(tf.keras.layers.Layer):
    """A layer with a non-trainable weight made before its trainable one."""

    def build(self, input_shape):
        self.logits = self.add_weight(shape=[1, 2], initializer="zeros", trainable=False,
                                      name="logits")
        self.proj = self.add_weight(shape=[int(input_shape[-1]), 2], initializer="ones",
                                    name="proj")
        super().build(input_shape)

    def call(self, x):
        return tf.matmul(x, self.proj) + self.logits


def test_model_weights_are_listed_layer_by_layer():
    inp = tf.keras.layers.Input((3,))
    h = tf.keras.layers.Dense(4, name="first")(inp)
    h = tf.keras.layers.BatchNormalization(name="norm")(h)
    h = _Routing(name="routing")(h)
    out = tf.keras.layers.Dense(1, name="last")(h)
    model = tf.keras.models.Model(inp, out)
    names = [w.name for w in model.weights]
    assert names == ["first/kernel:0", "first/bias:0", "norm/gamma:0", "norm/beta:0",
                     "norm/moving_mean:0", "norm/moving_variance:0", "routing/proj:0",
                     "routing/logits:0", "last/kernel:0", "last/bias:0"]
    # trainable_weights keep their own order; get_weights/set_weights follow model.weights
    assert [w.name for w in model.trainable_weights] == [
        "first/kernel:0", "first/bias:0", "norm/gamma:0", "norm/beta:0", "routing/proj:0",
        "last/kernel:0", "last/bias:0"]
    values = model.get_weights()
    assert [v.shape for v in values] == [(3, 4), (4,), (4,), (4,), (4,), (4,), (4, 2), (1, 2),
                                         (2, 1), (1,)]
    values[4] = np.full(4, 0.5, np.float32)  # the moving mean, in TF's place
    model.set_weights(values)
    np.testing.assert_allclose(tf.keras.backend.get_value(model.get_layer("norm").moving_mean),
                               0.5)


def test_sequential_weights_are_listed_layer_by_layer():
    model = tf.keras.models.Sequential([
        tf.keras.layers.Dense(2, input_shape=(3,), name="a"),
        tf.keras.layers.BatchNormalization(name="b"),
        tf.keras.layers.Dense(1, name="c")])
    assert [w.name for w in model.weights] == [
        "a/kernel:0", "a/bias:0", "b/gamma:0", "b/beta:0", "b/moving_mean:0",
        "b/moving_variance:0", "c/kernel:0", "c/bias:0"]


def test_model_layers_place_inputs_by_depth():
    # as TF's Network: layers sorted by depth (longest path to an output), ties by the walk
    # from the outputs; an input feeding a deeper branch comes before the others
    user = tf.keras.layers.Input((1,), name="user")
    hist = tf.keras.layers.Input((4,), name="hist")
    item = tf.keras.layers.Input((1,), name="item")
    h = tf.keras.layers.Embedding(5, 3, name="hist_emb")(hist)
    h = tf.keras.layers.Lambda(lambda t: tf.reduce_mean(t, axis=1), name="pool")(h)
    u = tf.keras.layers.Dense(3, name="user_dense")(user)
    joined = tf.keras.layers.Concatenate(name="join")([u, h])
    i = tf.keras.layers.Dense(6, name="item_dense")(item)
    out = tf.keras.layers.Dot(axes=1, name="score")([joined, i])
    model = tf.keras.models.Model([user, hist, item], out)
    assert [la.name for la in model.layers] == [
        "hist", "user", "hist_emb", "user_dense", "pool", "item", "join", "item_dense", "score"]
    assert model.input_names == ["user", "hist", "item"]
    # an input the outputs do not use stays in the model, at depth 0
    extra = tf.keras.layers.Input((2,), name="unused")
    model2 = tf.keras.models.Model([user, extra], u)
    assert [la.name for la in model2.layers] == ["user", "unused", "user_dense"]
    rebuilt = tf.keras.models.Model.from_config(model.get_config(),
                                                custom_objects={"tf": tf})
    assert [la.name for la in rebuilt.layers] == [la.name for la in model.layers]
