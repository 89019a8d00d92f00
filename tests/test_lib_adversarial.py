"""The TF 1.x calls the Adversarial Robustness Toolbox 1.1 and Foolbox 2.4 make through their
TensorFlow and Keras model wrappers, reduced to plain TF 1.x: per-class and loss gradients with
respect to an input placeholder, a backward pass seeded through a placeholder shaped like the
logits, gradients that do not exist (``None``), the heuristic that reads hidden layers off the
graph's ops, the SavedModel a classifier is pickled through, and Keras backend functions on a
``tf.keras`` model. Both libraries' attacks (FGSM, PGD, C&W, DeepFool, EAD, JSMA, ...) gave the
same adversarial examples on tideflow as on TensorFlow; these tests keep the calls under them."""

import os

import numpy as np
import pytest
from tideflow.python.saved_model.signature_def_utils_impl import predict_signature_def

import tideflow as tf

K = tf.keras.backend


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _linear_model(n_in=5, n_out=4, seed=3):
    rng = np.random.RandomState(seed)
    w = rng.randn(n_in, n_out).astype(np.float32)
    b = rng.randn(n_out).astype(np.float32)
    x = tf.placeholder(tf.float32, (None, n_in))
    logits = tf.matmul(x, tf.constant(w)) + b
    xv = rng.rand(3, n_in).astype(np.float32)
    return x, logits, w, b, xv


# ------------------------------------------------------------------------------------------
# gradients with respect to the input placeholder
# ------------------------------------------------------------------------------------------


def test_per_class_gradients_of_probabilities_and_logits():
    x, logits, w, b, xv = _linear_model()
    probs = tf.nn.softmax(logits)
    # one gradient per class, each of one column of the batch output (ART's class_gradient)
    g_probs = [tf.gradients(probs[:, i], x)[0] for i in range(4)]
    g_logits = [tf.gradients(logits[:, i], x)[0] for i in range(4)]
    assert all(g.shape.as_list() == [None, 5] for g in g_probs)
    with tf.Session() as sess:
        gp, gl = sess.run([g_probs, g_logits], {x: xv})
    p = _softmax(xv @ w + b)
    for i in range(4):
        want = p[:, i:i + 1] * (w[:, i] - p @ w.T)
        np.testing.assert_allclose(gp[i], want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(gl[i], np.broadcast_to(w[:, i], (3, 5)), rtol=1e-6)


def test_summed_sparse_cross_entropy_gradient_with_int64_labels():
    x, logits, w, b, xv = _linear_model()
    labels = tf.placeholder(tf.int64, (None,), name="labels")
    loss = tf.reduce_sum(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    (grad,) = tf.gradients(loss, x)
    yv = np.array([0, 3, 1])
    with tf.Session() as sess:
        lv, gv = sess.run([loss, grad], {x: xv, labels: yv})
    p = _softmax(xv @ w + b)
    np.testing.assert_allclose(lv, -np.log(p[np.arange(3), yv]).sum(), rtol=1e-5)
    np.testing.assert_allclose(gv, (p - np.eye(4)[yv]) @ w.T, rtol=1e-5, atol=1e-6)


def test_onehot_loss_gradient_from_tf_losses():
    x, logits, w, b, xv = _linear_model()
    y = tf.placeholder(tf.int32, (None, 4))
    loss = tf.reduce_mean(tf.losses.softmax_cross_entropy(logits=logits, onehot_labels=y))
    (grad,) = tf.gradients(loss, x)
    yv = np.eye(4, dtype=np.int32)[[2, 0, 1]]
    with tf.Session() as sess:
        gv = sess.run(grad, {x: xv, y: yv})
    p = _softmax(xv @ w + b)
    np.testing.assert_allclose(gv, (p - yv) @ w.T / 3.0, rtol=1e-5, atol=1e-6)


def test_backward_pass_seeded_through_a_placeholder_shaped_like_the_logits():
    x, logits, w, _, xv = _linear_model()
    seed = tf.placeholder(tf.float32, logits.shape)
    assert seed.shape.as_list() == [None, 4]
    (back,) = tf.gradients(tf.reduce_sum(logits * seed), x)
    sv = np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(back, {x: xv, seed: sv}), sv @ w.T, rtol=1e-5)


def test_gradient_through_a_comparison_or_of_an_unrelated_value_is_none():
    x = tf.placeholder(tf.float32, (None, 5, 5, 3))
    mean_on = tf.reduce_mean(tf.cast(x > 0, tf.float32), axis=(1, 2))
    assert tf.gradients(tf.reduce_sum(mean_on), x) == [None]
    other = tf.placeholder(tf.float32, (None, 3))
    assert tf.gradients(tf.reduce_sum(other * 2.0), x) == [None]
    # the wrappers then fall back to zeros of the input's shape
    with tf.Session() as sess:
        z = sess.run(tf.zeros_like(x), {x: np.ones((2, 5, 5, 3), np.float32)})
    assert z.shape == (2, 5, 5, 3) and not z.any()


# ------------------------------------------------------------------------------------------
# hidden layers read off the graph (ART's TensorFlowClassifier.layer_names)
# ------------------------------------------------------------------------------------------


def _hidden_layer_names(graph):
    names = []
    for op in graph.get_operations():
        if not op.values():
            continue
        t = op.values()[0]
        dims = t.get_shape()
        if dims.ndims is None or dims.ndims < 2:
            continue
        dims = dims.as_list()
        if dims[0] is not None or dims[1] is None or op.type == "Placeholder":
            continue
        if t.name.startswith(("gradients", "softmax_cross_entropy_loss")):
            continue
        names.append(t.name)
    kept = names[-1:]
    for name in reversed(names[:-1]):
        if kept[0].split("/")[0] != name.split("/")[0]:
            kept.insert(0, name)
    return kept


def test_hidden_layers_of_a_tf_layers_classifier_with_its_training_ops():
    x = tf.placeholder(tf.float32, [None, 12, 12, 1])
    y = tf.placeholder(tf.int32, [None, 4])
    h = tf.layers.conv2d(x, 2, 3, activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.flatten(h)
    logits = tf.layers.dense(h, 4)
    probs = tf.nn.softmax(logits)
    loss = tf.reduce_mean(tf.losses.softmax_cross_entropy(logits=logits, onehot_labels=y))
    tf.train.AdamOptimizer(0.01).minimize(loss)
    graph = tf.get_default_graph()
    # the names TensorFlow 1.x gives the same graph
    assert _hidden_layer_names(graph) == [
        "conv2d/Relu:0", "max_pooling2d/MaxPool:0", "flatten/Reshape:0", "dense/BiasAdd:0",
        "Softmax:0"]
    assert graph.get_tensor_by_name("flatten/Reshape:0").shape.as_list() == [None, 50]
    assert probs.name == "Softmax:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xv = np.random.RandomState(0).rand(2, 12, 12, 1).astype(np.float32)
        act = sess.run(graph.get_tensor_by_name("max_pooling2d/MaxPool:0"), {x: xv})
    assert act.shape == (2, 5, 5, 2)


# ------------------------------------------------------------------------------------------
# a classifier saved and loaded back as a SavedModel (ART's save and pickling)
# ------------------------------------------------------------------------------------------


def test_saved_model_with_a_predict_signature_loads_back_by_tensor_names(tmp_path):
    x, logits, _, _, xv = _linear_model()
    v = tf.Variable(np.float32(2.0), name="scale")
    out = tf.identity(logits * v, name="scaled")
    path = os.path.join(str(tmp_path), "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        want = sess.run(out, {x: xv})
        builder = tf.saved_model.builder.SavedModelBuilder(path)
        signature = predict_signature_def(inputs={"SavedInputPhD": x},
                                          outputs={"SavedOutput": out})
        builder.add_meta_graph_and_variables(
            sess=sess, tags=[tf.saved_model.tag_constants.SERVING],
            signature_def_map={"predict": signature})
        builder.save()
    for f in ("saved_model.pb", "variables/variables.index",
              "variables/variables.data-00000-of-00001"):
        assert os.path.isfile(os.path.join(path, f)), f
    with tf.Graph().as_default() as g, tf.Session(graph=g) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], path)
        sig = meta.signature_def["predict"]
        in_name = sig.inputs["SavedInputPhD"].name
        out_name = sig.outputs["SavedOutput"].name
        assert (in_name, out_name) == (x.name, "scaled:0")
        got = sess.run(g.get_tensor_by_name(out_name), {g.get_tensor_by_name(in_name): xv})
    np.testing.assert_allclose(got, want, rtol=1e-6)


# ------------------------------------------------------------------------------------------
# Keras backend functions on a tf.keras model (ART's KerasClassifier, Foolbox's from_keras)
# ------------------------------------------------------------------------------------------


def test_keras_backend_function_for_loss_and_class_gradients():
    rng = np.random.RandomState(1)
    w = rng.randn(6, 3).astype(np.float32)
    b = rng.randn(3).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="softmax",
                                                       input_shape=(6,))])
    model.set_weights([w, b])
    inp, out = model.inputs[0], model.outputs[0]
    label_ph = K.placeholder(shape=out.shape)
    assert label_ph.shape.as_list() == [None, 3]
    loss = K.categorical_crossentropy(label_ph, out)
    loss_grad = K.gradients(loss, inp)
    f_loss = K.function([inp, label_ph], loss_grad)
    f_class = K.function([inp], [K.gradients(out[:, c], inp)[0] for c in range(3)])
    f_pred = K.function([inp], [out])
    xv = rng.rand(4, 6).astype(np.float32)
    yv = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    p = _softmax(xv @ w + b)
    np.testing.assert_allclose(f_pred([xv])[0], p, rtol=1e-5)
    np.testing.assert_allclose(f_loss([xv, yv])[0], (p - yv) @ w.T, rtol=1e-4, atol=1e-6)
    for c, g in enumerate(f_class([xv])):
        np.testing.assert_allclose(g, p[:, c:c + 1] * (w[:, c] - p @ w.T), rtol=1e-4,
                                   atol=1e-6)


def test_keras_model_called_on_a_placeholder_in_the_keras_session():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    model.set_weights([np.eye(3, 2, dtype=np.float32), np.array([1.0, -1.0], np.float32)])
    sess = K.get_session()
    assert sess.graph is tf.get_default_graph()
    with sess.as_default():
        x = tf.placeholder(tf.float32, (None, 3))
        logits = model(x)
        assert tf.get_default_session() is sess
        got = sess.run(logits, {x: np.array([[1.0, 2.0, 3.0]], np.float32)})
    np.testing.assert_allclose(got, [[2.0, 1.0]])
