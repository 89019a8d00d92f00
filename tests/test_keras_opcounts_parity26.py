"""Op counts of tf.keras programs against TF 1.15's (session 26, unrolled recurrent layers).

TF 1.15's ``unroll=True`` builds no loop: backend.rnn unstacks the time-major sequence and
calls the cell once per step, then stacks the outputs. A random op made without an op seed
takes the graph's op count as its seed, so the layers after an unrolled RNN get TF's initial
weights only when the layer leaves TF's count. Every count and value below is what TF 1.15
(tensorflow-cpu 1.15.0) printed for the same program.
"""

import numpy as np
import pytest

import tideflow as tf

L = tf.keras.layers


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g
    tf.keras.backend.clear_session()


def _data():
    rs = np.random.RandomState(0)
    return rs.rand(4, 5, 3).astype(np.float32), rs.rand(4, 2).astype(np.float32)


# (layers, the op count once built, after compile, the losses of two epochs of SGD, the
# prediction of the first sequence): TF 1.15's
_UNROLLED = [
    ("[L.LSTM(4, input_shape=(5, 3), unroll=True), L.Dense(2)]", 463, 487,
     [0.190819, 0.182614], [-0.082579, 0.200036]),
    ("[L.GRU(4, input_shape=(5, 3), unroll=True, go_backwards=True), L.Dense(2)]", 481, 505,
     [0.245111, 0.22578], [-0.124601, 0.161313]),
    (("[L.SimpleRNN(4, input_shape=(5, 3), unroll=True, return_sequences=True), "
      "L.Flatten(), L.Dense(2)]"), 127, 151, [0.300862, 0.267067], [0.305512, -0.311703]),
    (("[L.LSTM(4, input_shape=(5, 3), unroll=True, implementation=2, "
      "return_sequences=True), L.LSTM(3, unroll=True), L.Dense(2)]"), 735, 759, [0.12672, 0.123573],
     [0.144039, 0.058329]),
    ("[L.GRU(4, input_shape=(5, 3), unroll=True, reset_after=True), L.Dense(2)]", 551, 575,
     [0.535628, 0.48251], [-0.147786, 0.457082]),
]


@pytest.mark.parametrize("layers,built,compiled,losses,pred", _UNROLLED)
def test_unrolled_rnn_takes_tf_op_count_and_trains_as_tf(_fresh_graph, layers, built,
                                                         compiled, losses, pred):
    x, y = _data()
    m = tf.keras.Sequential(eval(layers))
    assert _fresh_graph._last_id == built
    m.compile("sgd", "mse")
    assert _fresh_graph._last_id == compiled
    h = m.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], losses, atol=2e-6)
    np.testing.assert_allclose(m.predict(x[:1])[0], pred, atol=2e-6)


def test_unrolled_lstm_builds_tf_ops_around_its_steps(_fresh_graph):
    tf.keras.Sequential([L.LSTM(4, input_shape=(5, 3), unroll=True)])
    names = [op.name for op in _fresh_graph.get_operations()]
    # TF 1.15's: the sequence made time-major and unstacked, no loop; the outputs stacked
    # and made batch-major again
    assert not any("while" in n for n in names)
    assert "lstm/unstack" in names and names[-3:] == ["lstm/stack", "lstm/transpose_1/perm",
                                                      "lstm/transpose_1"]
    assert _fresh_graph._last_id == 443


@pytest.mark.parametrize("layer,count", [
    ("LSTM(4, input_shape=(5, 3), unroll=True, implementation=2)", 273),
    ("GRU(4, input_shape=(5, 3), unroll=True, implementation=2)", 371),
    ("SimpleRNN(4, input_shape=(5, 3), unroll=True, use_bias=False, go_backwards=True)", 84),
])
def test_unrolled_layers_take_tf_op_count(_fresh_graph, layer, count):
    tf.keras.Sequential([eval("L." + layer)])
    assert _fresh_graph._last_id == count  # TF 1.15's


def test_unrolled_outputs_equal_the_loops(_fresh_graph):
    # unrolling changes the graph, not the numbers: the same weights give the loop's outputs
    x = np.random.RandomState(1).rand(2, 4, 3).astype(np.float32)
    s = tf.keras.backend.get_session()
    for kwargs in ({}, {"go_backwards": True}, {"return_sequences": True},
                   {"return_state": True}):
        inp = tf.keras.Input((4, 3))
        loop, unrolled = L.LSTM(3, **kwargs), L.LSTM(3, unroll=True, **kwargs)
        a, b = loop(inp), unrolled(inp)
        s.run(tf.global_variables_initializer())
        unrolled.set_weights(loop.get_weights())
        va, vb = s.run([a, b], {inp: x})
        for u, v in zip(va if isinstance(va, list) else [va],
                        vb if isinstance(vb, list) else [vb]):
            np.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)


# (layer, time steps, return_sequences, whether a Dense before it gives the steps' inputs
# a gradient, the ops of the first fit with SGD): TF 1.15's
_UNROLLED_FIT = [
    ("LSTM(4)", 2, False, False, 566), ("LSTM(4)", 3, False, True, 807),
    ("LSTM(4)", 5, True, False, 1237), ("LSTM(4)", 5, True, True, 1258),
    ("LSTM(4, use_bias=False)", 3, True, True, 794), ("GRU(4)", 5, False, True, 1059),
    ("GRU(4)", 3, True, False, 677), ("GRU(4, reset_after=True)", 5, False, False, 1098),
    ("GRU(4, reset_after=True)", 2, True, True, 536),
    ("GRU(4, implementation=2)", 5, True, True, 1009),
    ("GRU(4, use_bias=False)", 3, False, True, 661),
    ("LSTM(4, implementation=2)", 5, False, False, 1003), ("SimpleRNN(4)", 5, True, True, 214),
]


@pytest.mark.parametrize("layer,steps,seq,inputs_grad,count", _UNROLLED_FIT)
def test_unrolled_rnn_gradient_takes_tf_op_count(layer, steps, seq, inputs_grad, count):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        layers = [L.Dense(3, input_shape=(steps, 3))] if inputs_grad else []
        shape = "" if inputs_grad else f", input_shape=({steps}, 3)"
        layers.append(eval(f"L.{layer[:-1]}, unroll=True, return_sequences={seq}{shape})"))
        layers += ([L.Flatten()] if seq else []) + [L.Dense(2)]
        m = tf.keras.Sequential(layers)
        m.compile("sgd", "mse")
        before = g._last_id
        m.fit(np.ones((2, steps, 3)), np.ones((2, 2)), verbose=0)
        assert g._last_id - before == count


@pytest.mark.parametrize("opt,count,kernel", [
    ("sgd", 1768, [0.821725, -0.563122, -0.081153, 0.421924]),
    ("adam", 1854, [0.754186, -0.132622, 0.293297, -0.617882]),
])
def test_model_built_after_an_unrolled_lstm_trained_gets_tf_weights(_fresh_graph, opt, count,
                                                                    kernel):
    # TF 1.15 printed these: the second model's first kernel, after the first one's fit,
    # evaluate and predict
    rs = np.random.RandomState(0)
    rs.rand(16, 4)  # (the draws of the program TF 1.15 ran)
    y = rs.rand(16, 2)[:8].astype(np.float32)
    rs.rand(8, 6, 6, 2)
    x = rs.rand(8, 5, 3).astype(np.float32)
    a = tf.keras.Sequential([L.LSTM(4, input_shape=(5, 3), unroll=True), L.Dense(2)])
    a.compile(opt, "mse")
    a.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    a.evaluate(x, y, verbose=0)
    a.predict(x[:2])
    b = tf.keras.Sequential([L.Dense(3, input_shape=(4,), activation="relu"), L.Dense(2)])
    w = b.get_weights()
    assert _fresh_graph._last_id == count
    np.testing.assert_allclose(w[0].ravel()[:4], kernel, atol=1e-6)


# -- masked recurrent layers' gradients ------------------------------------------------------

# (layers, the op count after compile, once two epochs of Adam ran and a Dense kernel was
# made and read, the losses, that kernel's values): TF 1.15's
_MASKED_FITS = [
    (("[L.Embedding(20, 5, input_length=7, mask_zero=True), L.GRU(6, activation='relu', "
     "recurrent_activation='sigmoid'), L.Dense(3)]"), 338, 1039, [0.97996, 0.97565],
     [0.36381, -1.09746, 0.98306, 0.78941]),
    (("[L.Masking(input_shape=(7, 2)), L.LSTM(5, return_sequences=True), L.LSTM(3), "
     "L.Dense(3)]"), 678, 2404, [0.98004, 0.97342], [-0.01695, -0.79831, -0.92502, 1.16529]),
    (("[L.Embedding(20, 5, input_length=7, mask_zero=True), L.SimpleRNN(2, "
     "return_sequences=True), L.Flatten(), L.Dense(3)]"), 228, 675, [0.95977, 0.94235],
     [0.05755, -0.50963, 0.74469, 0.60586]),
]


@pytest.mark.parametrize("spec,compiled,fitted,losses,kernel", _MASKED_FITS)
def test_masked_rnn_gradient_takes_tf_op_count(spec, compiled, fitted, losses, kernel):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(2)
        m = tf.keras.Sequential(eval(spec))
        m.compile("adam", "mse")
        assert g._last_id == compiled
        x = np.array([[1, 2, 3, 4, 0, 0, 0]] * 2) if "Emb" in spec else np.ones((2, 7, 2))
        h = m.fit(x, np.ones((2, 3)), epochs=2, verbose=0)
        np.testing.assert_allclose(h.history["loss"], losses, atol=1e-5)
        d = L.Dense(2)
        d.build((None, 2))
        np.testing.assert_allclose(tf.keras.backend.get_value(d.kernel).ravel(), kernel,
                                   atol=1e-5)
        assert g._last_id == fitted  # (with the new layer's ops)


# -- recurrent layers with dropout: their loops' gradients -----------------------------------

@pytest.mark.parametrize("spec,opt,compiled,fitted,kernel", [
    (("[L.Embedding(20, 5, input_length=6), L.LSTM(6, dropout=0.1, recurrent_dropout=0.1, "
      "return_sequences=True), L.GRU(3, recurrent_dropout=0.2), L.Dense(2)]"), "adam", 911,
     2797, [-0.215898, 0.599862, -0.35408, -0.379411]),
    (("[L.SimpleRNN(5, input_shape=(4, 3), dropout=0.3, activation='relu'), L.Dropout(0.2), "
      "L.Dense(2)]"), "adam", 228, 587, [0.874905, 0.749492, -0.004616, 0.816533]),
    (("[L.TimeDistributed(L.Dense(3), input_shape=(4, 3)), L.GRU(3, dropout=0.2), "
      "L.Dense(2)]"), "rmsprop", 426, 1383, None),
])
def test_dropout_rnn_gradient_takes_tf_op_count(spec, opt, compiled, fitted, kernel):
    # TF 1.15's counts after compile and after fit, and the first values of a Dense kernel
    # made then (the dropout masks' values are not TF's; the op seeds after them are)
    with tf.Graph().as_default() as g:
        tf.set_random_seed(3)
        m = tf.keras.Sequential(eval(spec))
        m.compile(opt, "mse")
        assert g._last_id == compiled
        x = np.array([[1, 2, 3, 4, 5, 6]] * 2) if "Emb" in spec else np.ones((2, 4, 3))
        m.fit(x, np.ones((2, 2)), epochs=2, verbose=0)
        assert g._last_id == fitted
        if kernel is not None:
            d = L.Dense(2)
            d.build((None, 2))
            np.testing.assert_allclose(tf.keras.backend.get_value(d.kernel).ravel(), kernel,
                                       atol=1e-6)


@pytest.mark.parametrize("k,counts,losses,kernel", [  # TF 1.15's
    (0, (391, 415, 1521), [0.75376, 0.74575], [-0.05793, -0.47164]),
    (1, (783, 807, 2531), [1.66094, 1.64183], [-0.49974, -0.51945]),
    (2, (305, 329, 933), [1.16914, 1.16174], [1.20535, 0.20311]),
    (3, (479, 503, 1709), [0.75758, 0.75072], [0.87757, -0.51795]),
])
def test_functional_unrolled_models_as_tf(_fresh_graph, k, counts, losses, kernel):
    i = tf.keras.Input((4, 3))
    if k == 0:  # the final states as outputs too
        o, h, c = L.LSTM(3, unroll=True, return_state=True)(i)
        o = L.concatenate([o, h, c])
    elif k == 1:
        o = L.Bidirectional(L.GRU(3, unroll=True))(i)
    elif k == 2:
        o = L.LSTM(3, unroll=True, go_backwards=True, activation="relu",
                   recurrent_activation="sigmoid")(i)
    else:
        o = L.LSTM(2, unroll=True)(L.SimpleRNN(3, unroll=True, return_sequences=True)(i))
    m = tf.keras.Model(i, L.Dense(2)(o))
    made = [_fresh_graph._last_id]
    m.compile("adam", "mse")
    made.append(_fresh_graph._last_id)
    h = m.fit(np.random.RandomState(0).rand(4, 4, 3), np.ones((4, 2)), epochs=2, verbose=0,
              shuffle=False)
    made.append(_fresh_graph._last_id)
    assert tuple(made) == counts
    np.testing.assert_allclose(h.history["loss"], losses, atol=1e-5)
    d = L.Dense(2)
    d.build((None, 2))
    np.testing.assert_allclose(tf.keras.backend.get_value(d.kernel).ravel()[:2], kernel,
                               atol=1e-5)


@pytest.mark.parametrize("layer,built,fitted", [  # TF 1.15's counts
    ("LSTM", 387, 1119), ("GRU", 399, 1018),
])
def test_stateful_unrolled_layers_take_tf_op_count(_fresh_graph, layer, built, fitted):
    # TF 1.15 starts the steps from the state variables: no batch size, no zero states
    m = tf.keras.Sequential([getattr(L, layer)(3, batch_input_shape=(2, 4, 2), stateful=True,
                                               unroll=True), L.Dense(2)])
    assert _fresh_graph._last_id == built
    m.compile("sgd", "mse")
    m.fit(np.ones((2, 4, 2)), np.ones((2, 2)), epochs=1, batch_size=2, verbose=0)
    if fitted is not None:
        assert _fresh_graph._last_id == fitted
    a, b = m.predict(np.ones((2, 4, 2))), m.predict(np.ones((2, 4, 2)))
    assert not np.allclose(a, b)  # (the states carried from one batch to the next)


@pytest.mark.parametrize("layer,seq,count", [  # TF 1.15's
    ("LSTM(4)", False, 854), ("LSTM(4, use_bias=False)", True, 545), ("GRU(4)", True, 718),
])
def test_unrolled_gradient_over_a_fixed_batch_size_takes_tf_op_count(layer, seq, count):
    # (TF's LSTM gradient over fully known shapes makes fewer ops; T = 5, 3 and 5 steps)
    steps = {854: 5, 545: 3, 718: 5}[count]
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        m = tf.keras.Sequential(
            [eval(f"L.{layer[:-1]}, unroll=True, return_sequences={seq}, "
                  f"batch_input_shape=(2, {steps}, 3))")] +
            ([L.Flatten()] if seq else []) + [L.Dense(2)])
        m.compile("sgd", "mse")
        before = g._last_id
        m.fit(np.ones((2, steps, 3)), np.ones((2, 2)), verbose=0)
        assert g._last_id - before == count


@pytest.mark.parametrize("layer,steps,seq,inputs_grad,count", [  # TF 1.15's
    ("LSTM(4)", 3, True, True, 541), ("GRU(4)", 5, False, False, 452),
    ("GRU(4, use_bias=False)", 2, True, False, 426),
])
def test_rnn_loop_gradient_over_a_fixed_batch_size_takes_tf_op_count(layer, steps, seq,
                                                                      inputs_grad, count):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        shape = f"batch_input_shape=(2, {steps}, 3)"
        layers = [eval(f"L.Dense(3, {shape})")] if inputs_grad else []
        layers.append(eval(f"L.{layer[:-1]}, return_sequences={seq}"
                           f"{'' if inputs_grad else ', ' + shape})"))
        m = tf.keras.Sequential(layers + ([L.Flatten()] if seq else []) + [L.Dense(2)])
        m.compile("sgd", "mse")
        before = g._last_id
        m.fit(np.ones((2, steps, 3)), np.ones((2, 2)), verbose=0)
        assert g._last_id - before == count


@pytest.mark.parametrize("cell,seq,kind,count", [  # TF 1.15's
    ("LSTM", True, "embedding", 619), ("GRU", True, "masking", 519),
    ("SimpleRNN", False, "masking", 239), ("LSTM", False, "dropout", 524),
    ("GRU", True, "dropout", 464), ("GRU", False, "recurrent_dropout", 477),
])
def test_masked_and_dropout_loops_over_a_fixed_batch_size_take_tf_op_count(cell, seq, kind,
                                                                            count):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        layer = getattr(L, cell)
        if kind == "embedding":
            layers = [L.Embedding(10, 3, batch_input_shape=(2, 5), mask_zero=True),
                      layer(4, return_sequences=seq)]
            x = np.array([[1, 2, 3, 0, 0]] * 2)
        elif kind == "masking":
            layers = [L.Masking(batch_input_shape=(2, 5, 3)), layer(4, return_sequences=seq)]
            x = np.ones((2, 5, 3))
        else:
            layers = [layer(4, return_sequences=seq, batch_input_shape=(2, 5, 3),
                            **{kind: 0.2})]
            x = np.ones((2, 5, 3))
        if seq:
            layers.append(L.Flatten() if kind.endswith("dropout") else
                          L.GlobalAveragePooling1D())
        m = tf.keras.Sequential(layers + [L.Dense(2)])
        m.compile("sgd", "mse")
        before = g._last_id
        m.fit(x, np.ones((2, 2)), verbose=0)
        assert g._last_id - before == count


@pytest.mark.parametrize("spec,compiled,fit_ops", [  # TF 1.15's
    (("[L.Embedding(10, 3, input_length=5, mask_zero=True), L.Bidirectional(L.LSTM(3)), "
     "L.Dense(2)]"), 694, 1628),
    (("[L.Embedding(10, 3, input_length=5, mask_zero=True), L.GRU(3, go_backwards=True), "
     "L.Dense(2)]"), 370, 755),
    ("[L.LSTM(3, input_shape=(5, 3), go_backwards=True, dropout=0.2), L.Dense(2)]", 436, 810),
    (("[L.Bidirectional(L.GRU(3, recurrent_dropout=0.2, return_sequences=True), "
     "input_shape=(5, 3)), L.Flatten(), L.Dense(2)]"), 771, 1439),
    (("[L.Dense(3, input_shape=(5, 3)), L.SimpleRNN(3, go_backwards=True, dropout=0.3, "
     "recurrent_dropout=0.1), L.Dense(2)]"), 279, 328),
])
def test_backward_masked_and_dropout_loops_take_tf_op_count(spec, compiled, fit_ops):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        m = tf.keras.Sequential(eval(spec))
        m.compile("sgd", "mse")
        assert g._last_id == compiled
        x = np.array([[1, 2, 3, 0, 0]] * 2) if "Embedding" in spec else np.ones((2, 5, 3))
        m.fit(x, np.ones((2, 2)), verbose=0)
        assert g._last_id - compiled == fit_ops
