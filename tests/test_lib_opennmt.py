"""TF 1.x calls OpenNMT-tf 1.25 makes, reduced to plain programs: each pins a difference its
inputters, layers, decoders and Runner found in tideflow."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_estimator_util_fn_args_module_path():
    from tideflow.python.estimator.util import fn_args

    def model_fn(features, labels, mode, params, config):
        return None

    assert tuple(fn_args(model_fn)) == ("features", "labels", "mode", "params", "config")


def test_layer_may_set_sublayers_before_its_init():
    # a Layer subclass that stores its child layers, then calls Layer.__init__
    class Pair(tf.keras.layers.Layer):
        def __init__(self, first, second):
            self.first = first
            self.second = second
            super().__init__()

        def call(self, x):
            return self.second(self.first(x))

    pair = Pair(tf.keras.layers.Dense(4), tf.keras.layers.Dense(2))
    y = pair(tf.zeros([3, 5]))
    assert y.shape.as_list() == [3, 2]
    assert len(pair.trainable_weights) == 4


def test_model_setting_layers_before_init_still_refused():
    class Bad(tf.keras.Model):
        def __init__(self):
            self.dense = tf.keras.layers.Dense(2)
            super().__init__()

    with pytest.raises(RuntimeError, match="forgot to call"):
        Bad()


def test_prefetch_none_buffer_is_autotune():
    ds = tf.data.Dataset.range(5).prefetch(None)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt) for _ in range(5)] == [0, 1, 2, 3, 4]


def test_adam_subclass_applies_inside_cond():
    # an Adam subclass that applies its update inside tf.cond (gradient accumulation) finds
    # its beta power accumulators from the branch
    class CondAdam(tf.train.AdamOptimizer):
        def _apply_dense(self, grad, var):
            parent = super()._apply_dense
            return tf.cond(tf.constant(True), lambda: tf.group(parent(grad, var)), tf.no_op)

    v = tf.Variable([1.0, -2.0])
    w = tf.Variable([1.0, -2.0])
    step_cond = CondAdam(0.1).minimize(tf.reduce_sum(v * v))
    step_plain = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            sess.run([step_cond, step_plain])
        a, b = sess.run([v, w])
    np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_allclose(a, [0.8, -1.8], atol=1e-3)  # two steps of ~lr each


def test_bidirectional_copies_a_cell_whose_from_config_consumes_its_config():
    # a wrapper cell whose from_config pops the wrapped cell out of its config dict: the
    # forward and backward copies are each made from a config of their own
    class Wrapped(tf.keras.layers.Layer):
        def __init__(self, cell, **kwargs):
            super().__init__(**kwargs)
            self.cell = cell

        @property
        def state_size(self):
            return self.cell.state_size

        @property
        def output_size(self):
            return self.cell.output_size

        def call(self, inputs, states):
            return self.cell(inputs, states)

        def get_config(self):
            config = super().get_config()
            config["layer"] = tf.keras.layers.serialize(self.cell)
            return config

        @classmethod
        def from_config(cls, config):
            return cls(tf.keras.layers.deserialize(config.pop("layer")), **config)

    cells = [Wrapped(tf.keras.layers.GRUCell(3)), Wrapped(tf.keras.layers.GRUCell(3))]
    rnn = tf.keras.layers.RNN(tf.keras.layers.StackedRNNCells(cells), return_sequences=True)
    with tf.keras.utils.custom_object_scope({"Wrapped": Wrapped}):
        bi = tf.keras.layers.Bidirectional(rnn, merge_mode="concat")
    y = bi(tf.zeros([2, 4, 5]))
    assert y.shape.as_list() == [2, 4, 6]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y).shape == (2, 4, 6)


def _psd_power(mat, alpha, eps):
    w, v = np.linalg.eigh(mat + eps * np.eye(len(mat)))
    return (v * np.maximum(w, eps) ** alpha) @ v.T


def _shampoo_reference(w, grads, lr=0.5, eps=1e-4, alpha=0.5, max_size=768):
    """NumPy Shampoo (no momentum, accumulating statistics) for a 2-D variable."""
    w = w.astype(np.float64).copy()
    stats = [np.zeros((d, d)) if d <= max_size else np.zeros(d) for d in w.shape]
    for g in grads:
        pre = g
        for i, d in enumerate(w.shape):
            if d <= max_size:
                stats[i] += g @ g.T if i == 0 else g.T @ g
                pre = np.tensordot(pre, _psd_power(stats[i] / d, -alpha / 2, eps), axes=([0], [0]))
            else:
                stats[i] += (g * g).sum(axis=1 - i) / d
                power = np.where(stats[i] > 0, stats[i] ** (-alpha / 2), 0.0)
                pre = pre.T * power
        w -= lr * pre
    return w


@pytest.mark.parametrize("max_size,iterative", [(768, False), (3, False), (768, True)])
def test_contrib_opt_shampoo_matches_numpy(max_size, iterative):
    rng = np.random.RandomState(0)
    w0 = rng.randn(4, 3).astype(np.float32)
    grads = [rng.randn(4, 3).astype(np.float32) for _ in range(3)]
    w = tf.Variable(w0)
    g = tf.placeholder(tf.float32, [4, 3])
    gs = tf.train.get_or_create_global_step()
    opt = tf.contrib.opt.ShampooOptimizer(global_step=gs, learning_rate=0.5,
                                          max_matrix_size=max_size, use_iterative_root=iterative)
    step = opt.apply_gradients([(g, w)], global_step=gs)
    assert opt.get_slot_names() and opt.get_slot(w, "gbar") is not None
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for x in grads:
            sess.run(step, {g: x})
        got = sess.run(w)
    np.testing.assert_allclose(got, _shampoo_reference(w0, grads, max_size=max_size),
                               rtol=2e-3, atol=2e-3)


def test_contrib_opt_shampoo_intervals_sparse_and_minimize():
    emb = tf.Variable(np.ones([5, 2], np.float32))
    v = tf.Variable([1.0, -2.0, 3.0])
    loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 3]) ** 2) + tf.reduce_sum(v * v)
    gs = tf.train.get_or_create_global_step()
    opt = tf.contrib.opt.ShampooOptimizer(global_step=gs, learning_rate=0.1, svd_interval=2,
                                          precond_update_interval=2, gbar_decay=0.9,
                                          gbar_weight=lambda t: 1.0 / t)
    train = opt.minimize(loss, global_step=gs)
    assert opt.get_slot(emb, "H_0").shape.as_list() == [5, 5]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(loss)
        for _ in range(4):
            sess.run(train)
        after, e = sess.run([loss, emb])
    assert after < before
    np.testing.assert_array_equal(e[[1, 2, 4]], 1.0)  # rows without gradient stay put


def test_shampoo_module_path():
    import importlib

    mod = importlib.import_module("tideflow.contrib.opt.python.training.shampoo")
    assert mod.ShampooOptimizer is tf.contrib.opt.ShampooOptimizer
