"""tf.contrib.layers functional layers, tf.contrib.framework's global step, tf.make_template."""

import numpy as np
import pytest

import tideflow as tf

layers = tf.contrib.layers


def _names(vs):
    return sorted(v.op.name for v in vs)


def test_fully_connected_variables_values_and_reuse():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = layers.fully_connected(x, 4)
        y2 = layers.fully_connected(x, 4, activation_fn=None, scope="fully_connected",
                                    reuse=True)
        assert y.get_shape().as_list() == [None, 4]
        assert _names(tf.trainable_variables()) == ["fully_connected/biases",
                                                    "fully_connected/weights"]
        assert _names(tf.model_variables()) == _names(tf.trainable_variables())
        w, b = tf.trainable_variables()[1], tf.trainable_variables()[0]
        if w.op.name.endswith("biases"):
            w, b = b, w
        xv = np.random.RandomState(0).randn(5, 3).astype(np.float32)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(b.assign([0.5, -10.0, 0.0, 1.0]))
            got, lin, wv = s.run([y, y2, w], {x: xv})
        want = xv @ wv + np.float32([0.5, -10.0, 0.0, 1.0])
        np.testing.assert_allclose(lin, want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got, np.maximum(want, 0), rtol=1e-5, atol=1e-6)
        limit = np.sqrt(6.0 / 7)  # xavier: uniform in +-sqrt(6 / (fan_in + fan_out))
        assert np.all(np.abs(wv) <= limit) and np.std(wv) > 0


def test_fully_connected_rank3_regularizer_collections_and_normalizer():
    with tf.Graph().as_default():
        x = tf.ones([2, 5, 3])
        y = layers.fully_connected(
            x, 2, weights_initializer=tf.ones_initializer(),
            weights_regularizer=layers.l2_regularizer(0.5), variables_collections=["mine"],
            outputs_collections="outs", scope="fc")
        n = layers.fully_connected(x, 2, normalizer_fn=tf.identity, activation_fn=None,
                                   scope="norm")
        assert y.get_shape().as_list() == [2, 5, 2]
        assert _names(tf.get_collection("mine")) == ["fc/biases", "fc/weights"]
        assert tf.get_collection("outs") == [y]
        assert n.get_shape().as_list() == [2, 5, 2]
        assert "norm/biases" not in _names(tf.global_variables())
        reg = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        assert len(reg) == 1
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            yv, rv = s.run([y, reg[0]])
        np.testing.assert_allclose(yv, np.full([2, 5, 2], 3.0))
        np.testing.assert_allclose(rv, 0.5 * 6 / 2)  # l2: scale * sum(w^2) / 2
        with pytest.raises(ValueError, match="num_outputs"):
            layers.fully_connected(x, 2.0)


def test_conv2d_matches_nn_conv2d():
    with tf.Graph().as_default():
        xv = np.random.RandomState(1).randn(2, 6, 6, 3).astype(np.float32)
        x = tf.constant(xv)
        y = layers.conv2d(x, 4, [3, 3], stride=2, activation_fn=None)
        y2 = layers.convolution2d(x, 4, 3, padding="VALID", rate=2)
        assert _names(tf.trainable_variables()) == ["Conv/biases", "Conv/weights",
                                                    "Conv_1/biases", "Conv_1/weights"]
        w = next(v for v in tf.trainable_variables() if v.op.name == "Conv/weights")
        assert w.get_shape().as_list() == [3, 3, 3, 4]
        ref = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
        assert y.get_shape().as_list() == [2, 3, 3, 4]
        assert y2.get_shape().as_list() == [2, 2, 2, 4]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            a, b, c = s.run([y, ref, y2])
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        assert (c >= 0).all()


def test_flatten():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2, 3])
        f = layers.flatten(x)
        u = layers.flatten(tf.placeholder(tf.float32, [None, None, 3]))
        assert f.get_shape().as_list() == [None, 6] and f.op.name.startswith("Flatten/")
        assert u.get_shape().as_list() == [None, None]
        with tf.Session() as s:
            assert s.run(f, {x: np.zeros([4, 2, 3])}).shape == (4, 6)


@pytest.mark.parametrize("shape", [[8, 3], [4, 2, 2, 3], [4, 2, 3]])
def test_batch_norm_training_updates_and_inference(shape):
    rng = np.random.RandomState(2)
    xv = (rng.randn(*shape) * 3 + 1).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape)
        y = layers.batch_norm(x, decay=0.9, scale=True)
        names = _names(tf.global_variables())
        assert names == ["BatchNorm/beta", "BatchNorm/gamma", "BatchNorm/moving_mean",
                         "BatchNorm/moving_variance"]
        assert _names(tf.trainable_variables()) == ["BatchNorm/beta", "BatchNorm/gamma"]
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert len(updates) == 2
        infer = layers.batch_norm(x, is_training=False, scope="BatchNorm", reuse=True,
                                  scale=True)
        mm = next(v for v in tf.global_variables() if v.op.name.endswith("moving_mean"))
        mv = next(v for v in tf.global_variables() if v.op.name.endswith("moving_variance"))
        axes = tuple(range(len(shape) - 1))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got, _ = s.run([y, updates], {x: xv})
            mean, var = xv.mean(axes), xv.var(axes)
            np.testing.assert_allclose(got, (xv - mean) / np.sqrt(var + 1e-3), rtol=1e-4,
                                       atol=1e-5)
            n = xv.size / shape[-1]
            # the fused path (rank 2 and 4) feeds the unbiased variance to the moving average
            batch_var = var * n / (n - 1) if len(shape) in (2, 4) else var
            np.testing.assert_allclose(s.run(mm), 0.1 * mean, rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(s.run(mv), 0.9 + 0.1 * batch_var, rtol=1e-4)
            got_inf = s.run(infer, {x: xv})
            mmv, mvv = s.run([mm, mv])
            np.testing.assert_allclose(got_inf, (xv - mmv) / np.sqrt(mvv + 1e-3), rtol=1e-4,
                                       atol=1e-5)


def test_batch_norm_float64_uses_the_plain_path():
    xv = np.random.RandomState(4).randn(6, 3)
    with tf.Graph().as_default():
        y = layers.batch_norm(tf.constant(xv), updates_collections=None, decay=0.0)
        mv = next(v for v in tf.global_variables() if v.op.name.endswith("moving_variance"))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(y)
            np.testing.assert_allclose(s.run(mv), xv.var(0), rtol=1e-10)
        np.testing.assert_allclose(got, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-3),
                                   rtol=1e-10)


def test_batch_norm_in_place_updates_and_nchw():
    with tf.Graph().as_default():
        xv = np.random.RandomState(3).randn(2, 3, 2, 2).astype(np.float32)
        y = layers.batch_norm(tf.constant(xv), data_format="NCHW", updates_collections=None,
                              center=False, decay=0.5)
        assert not tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert _names(tf.global_variables()) == ["BatchNorm/moving_mean",
                                                 "BatchNorm/moving_variance"]
        mm = tf.global_variables()[0]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = s.run(y)
            np.testing.assert_allclose(s.run(mm), 0.5 * xv.mean((0, 2, 3)), rtol=1e-5,
                                       atol=1e-6)
        want = (xv - xv.mean((0, 2, 3), keepdims=True)) / np.sqrt(
            xv.var((0, 2, 3), keepdims=True) + 1e-3)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_batch_norm_with_tensor_is_training():
    with tf.Graph().as_default():
        training = tf.placeholder(tf.bool, [])
        xv = np.arange(12, dtype=np.float32).reshape(4, 3)
        y = layers.batch_norm(tf.constant(xv), is_training=training, updates_collections=None)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            inf = s.run(y, {training: False})
            np.testing.assert_allclose(inf, xv / np.sqrt(1 + 1e-3), rtol=1e-5)
            tr = s.run(y, {training: True})
            np.testing.assert_allclose(tr.mean(0), 0, atol=1e-5)


def test_contrib_framework_global_step():
    with tf.Graph().as_default():
        assert tf.contrib.framework.get_global_step() is None
        step = tf.contrib.framework.get_or_create_global_step()
        assert tf.contrib.framework.get_or_create_global_step() is step
        assert tf.contrib.framework.get_global_step() is step
        assert step.op.name == "global_step" and step.dtype.base_dtype == tf.int64


def test_make_template_shares_variables():
    def scale_by_var(x, init=1.0):
        v = tf.get_variable("scale", [], initializer=tf.constant_initializer(init))
        return x * v

    with tf.Graph().as_default():
        t = tf.make_template("scale_by_y", scale_by_var, init=3.0)
        assert t.variable_scope is None
        a = t(tf.constant(2.0))
        b = t(tf.constant(5.0))
        assert _names(tf.global_variables()) == ["scale_by_y/scale"]
        assert t.variable_scope_name == "scale_by_y/" and len(t.trainable_variables) == 1
        t2 = tf.make_template("scale_by_y", scale_by_var, create_scope_now_=True)
        assert t2.variable_scope_name == "scale_by_y_1/"
        c = t2(tf.constant(1.0))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run([a, b, c]) == [6.0, 15.0, 1.0]


def test_make_template_rejects_new_variables_on_later_calls():
    def bad(x):
        return x * tf.Variable(1.0)

    with tf.Graph().as_default():
        t = tf.make_template("bad", bad)
        t(tf.constant(1.0))
        with pytest.raises(ValueError, match="Trainable variable created"):
            t(tf.constant(1.0))


def test_pooling_and_dropout():
    xv = np.arange(32, dtype=np.float32).reshape(1, 4, 4, 2)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        mp = layers.max_pool2d(x, [2, 2])
        ap = layers.avg_pool2d(x, 2, stride=1, padding="SAME")
        training = tf.placeholder(tf.bool, [])
        d = layers.dropout(x, keep_prob=0.5, is_training=training, seed=1)
        d_off = layers.dropout(x, is_training=False)
        assert mp.op.name.startswith("MaxPool2D/") and mp.get_shape().as_list() == [1, 2, 2, 2]
        assert ap.get_shape().as_list() == [1, 4, 4, 2]
        with tf.Session() as s:
            m, a, off = s.run([mp, ap, d_off])
            on = s.run(d, {training: True})
            not_training = s.run(d, {training: False})
    np.testing.assert_array_equal(m, xv.reshape(1, 2, 2, 2, 2, 2).max((2, 4)))
    np.testing.assert_allclose(a[0, 0, 0], xv[0, :2, :2].mean((0, 1)))
    np.testing.assert_array_equal(off, xv)
    np.testing.assert_array_equal(not_training, xv)
    assert set(np.unique(on / np.maximum(xv, 1e-9))[1:]) <= {2.0} and (on == 0).any()


def test_arg_scope_supplies_defaults():
    framework = tf.contrib.framework
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        with framework.arg_scope([layers.fully_connected], activation_fn=None,
                                 weights_initializer=tf.ones_initializer()) as sc:
            a = layers.fully_connected(x, 2)
            b = layers.fully_connected(x, 2, activation_fn=tf.nn.relu)
        c = layers.fully_connected(-x, 2)
        with framework.arg_scope(sc):
            e = layers.fully_connected(-x, 2)
        assert framework.has_arg_scope(layers.conv2d)
        assert framework.current_arg_scope() == {}
        with pytest.raises(ValueError, match="add_arg_scope"), framework.arg_scope(
                [tf.nn.relu], x=1):
            pass
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            av, bv, cv, ev = s.run([a, b, c, e])
        assert a.op.type != "Relu" and b.op.type == "Relu"
        np.testing.assert_allclose(av, np.full([2, 2], 3.0))
        np.testing.assert_allclose(bv, av)
        assert (cv >= 0).all()  # outside the scope: relu and xavier weights again
        np.testing.assert_allclose(ev, np.full([2, 2], -3.0))


def test_layer_norm():
    xv = np.random.RandomState(5).randn(3, 4, 5)
    with tf.Graph().as_default():
        y = layers.layer_norm(tf.constant(xv))
        z = layers.layer_norm(tf.constant(xv), begin_norm_axis=-1, center=False, scope="ln2")
        assert _names(tf.trainable_variables()) == ["LayerNorm/beta", "LayerNorm/gamma",
                                                    "ln2/gamma"]
        gamma = next(v for v in tf.trainable_variables() if v.op.name == "LayerNorm/gamma")
        assert gamma.get_shape().as_list() == [5]
        with pytest.raises(ValueError, match="must be < rank"):
            layers.layer_norm(tf.constant(xv), begin_norm_axis=3)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            yv, zv = s.run([y, z])
    m, v = xv.mean((1, 2), keepdims=True), xv.var((1, 2), keepdims=True)
    np.testing.assert_allclose(yv, (xv - m) / np.sqrt(v + 1e-12), rtol=1e-9)
    m, v = xv.mean(-1, keepdims=True), xv.var(-1, keepdims=True)
    np.testing.assert_allclose(zv, (xv - m) / np.sqrt(v + 1e-12), rtol=1e-9)


def test_contrib_framework_variable_queries():
    fw = tf.contrib.framework
    with tf.Graph().as_default():
        layers.fully_connected(tf.ones([1, 2]), 3, scope="a")
        layers.fully_connected(tf.ones([1, 2]), 3, scope="b")
        tf.Variable(0, name="counter", trainable=False)
        assert _names(fw.get_variables("a")) == ["a/biases", "a/weights"]
        assert _names(fw.get_variables_by_name("weights")) == ["a/weights", "b/weights"]
        assert _names(fw.get_variables_by_suffix("biases")) == ["a/biases", "b/biases"]
        assert len(fw.get_model_variables()) == 4 and len(fw.get_trainable_variables()) == 4
        assert _names(fw.get_variables_to_restore(exclude=["b"])) == [
            "a/biases", "a/weights", "counter"]
        assert _names(fw.get_variables_to_restore(include=["b"])) == ["b/biases", "b/weights"]
        assert fw.get_unique_variable("a/weights").op.name == "a/weights"
        with pytest.raises(ValueError, match="Couldn't find"):
            fw.get_unique_variable("c/weights")


def test_one_hot_encoding_and_embed_sequence():
    with tf.Graph().as_default():
        oh = layers.one_hot_encoding(tf.constant([2, 0], tf.int32), 3)
        ids = tf.constant([[1, 2], [0, 1]])
        emb = layers.embed_sequence(ids, vocab_size=3, embed_dim=4)
        again = layers.embed_sequence(ids, scope="EmbedSequence", reuse=True)
        assert _names(tf.global_variables()) == ["EmbedSequence/embeddings"]
        assert emb.get_shape().as_list() == [2, 2, 4] and oh.dtype == tf.float32
        with pytest.raises(ValueError, match="vocab size"):
            layers.embed_sequence(ids)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            ohv, ev, av, table = s.run([oh, emb, again, tf.global_variables()[0]])
        np.testing.assert_array_equal(ohv, [[0, 0, 1], [1, 0, 0]])
        np.testing.assert_array_equal(ev, table[[[1, 2], [0, 1]]])
        np.testing.assert_array_equal(av, ev)


def test_a_small_contrib_network_trains():
    rng = np.random.RandomState(6)
    xv = rng.randn(32, 6, 6, 1).astype(np.float32)
    yv = (xv.mean((1, 2, 3)) > 0).astype(np.int64)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 6, 6, 1])
        y = tf.placeholder(tf.int64, [None])
        h = layers.conv2d(x, 4, 3, normalizer_fn=layers.batch_norm)
        h = layers.max_pool2d(h, 2)
        logits = layers.fully_connected(layers.flatten(h), 2, activation_fn=None)
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        step = tf.contrib.framework.get_or_create_global_step()
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            first = s.run(loss, {x: xv, y: yv})
            for _ in range(40):
                s.run(train, {x: xv, y: yv})
            last = s.run(loss, {x: xv, y: yv})
            assert s.run(step) == 40
    assert last < 0.5 * first, (first, last)
