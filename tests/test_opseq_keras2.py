"""tf.keras (graph mode) parity with TF 1.15, second part: the numbers seeded programs print
and the op counts of compile and the training functions. The expected values are what TF 1.15
(tf.keras 2.2.4-tf) printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        yield g
    tf.keras.backend.clear_session()


def _data():
    rs = np.random.RandomState(0)
    x = rs.rand(16, 3).astype(np.float32)
    rs.randint(0, 2, 16)
    return x, rs.rand(16, 2).astype(np.float32)


def _small_model():
    return tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,), activation="relu"),
                                tf.keras.layers.Dense(2)])


def _fit(m, x, y):
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return h.history["loss"], m.evaluate(x[:8], y[:8], verbose=0), m.predict(x[:2])


# -- Adagrad -----------------------------------------------------------------------------------


def test_adagrad_by_name_starts_its_accumulator_at_zero(_fresh_graph):
    # TF 1.15: 'adagrad' is Adagrad.from_config({}), whose accumulator starts at 0, the
    # update lr * g / (sqrt(acc) + epsilon)
    assert tf.keras.optimizers.get("adagrad").get_config()["initial_accumulator_value"] == 0.0
    assert tf.keras.optimizers.Adagrad().get_config()["initial_accumulator_value"] == 0.1
    x, y = _data()
    m = _small_model()
    m.compile("adagrad", "mse", metrics=["mae"])
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.253572, 0.249886], atol=2e-6)
    np.testing.assert_allclose(h.history["mean_absolute_error"], [0.397795, 0.395028],
                               atol=2e-6)
    np.testing.assert_allclose(m.evaluate(x[:8], y[:8], verbose=0), [0.337625, 0.469178],
                               atol=2e-6)
    np.testing.assert_allclose(m.predict(x[:2]), [[0.466761, 0.84752], [0.370395, 0.599623]],
                               atol=2e-6)


def test_adagrad_object_and_sparse_updates(_fresh_graph):
    x, y = _data()
    m = _small_model()
    m.compile(tf.keras.optimizers.Adagrad(0.05), "mse")
    loss, ev, pred = _fit(m, x, y)
    np.testing.assert_allclose(loss, [0.243437, 0.167175], atol=2e-6)
    np.testing.assert_allclose(ev, 0.163104, atol=2e-6)
    np.testing.assert_allclose(pred, [[0.513199, 0.525623], [0.421264, 0.323284]], atol=2e-6)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Embedding(10, 3, input_length=4),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
        m.compile(tf.keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.0), "mse")
        ids = np.random.RandomState(3).randint(0, 10, (16, 4))
        h = m.fit(ids, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        np.testing.assert_allclose(h.history["loss"], [0.196987, 0.063803], atol=2e-6)
        np.testing.assert_allclose(m.predict(ids[:2]), [[0.538651, 0.175639],
                                                        [0.568174, 0.426202]], atol=2e-6)


# -- compile: TF 1.15's loss block ----------------------------------------------------------


def test_compile_builds_tf_loss_block(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    before = _fresh_graph._last_id
    m.compile("sgd", "mse")
    made = [op.name for op in _fresh_graph.get_operations() if op._id > before]
    w = "loss/dense_loss/weighted_loss/"
    b = w + "broadcast_weights/"
    a = b + "assert_broadcastable/"
    assert made == [  # TF 1.15's names, in its order
        "dense_target", "loss/dense_loss/SquaredDifference", "loss/dense_loss/Mean/reduction_indices",
        "loss/dense_loss/Mean", w + "Cast/x", a + "weights/shape", a + "weights/rank",
        a + "values/shape", a + "values/rank", a + "static_scalar_check_success",
        b + "ones_like/Shape", b + "ones_like/Const", b + "ones_like", b[:-1], w + "Mul",
        "loss/dense_loss/Const", "loss/dense_loss/Sum", "loss/dense_loss/num_elements",
        "loss/dense_loss/num_elements/Cast", "loss/dense_loss/Const_1", "loss/dense_loss/Sum_1",
        "loss/dense_loss/value", "loss/mul/x", "loss/mul"]
    assert m.sample_weights == [None]  # as TF 1.15: made once weights are fed
    assert m.total_loss.op.name == "loss/mul"


_L = "tf.keras.losses."
# ops TF 1.15's compile made (Dense(2) on Input(3,), activation given)
_TF_COMPILE_OPS = [
    (None, _L + "mean_squared_error", None, 24), (None, _L + "MeanSquaredError()", None, 24),
    ("softmax", _L + "CategoricalCrossentropy()", None, 53),
    (None, _L + "CategoricalCrossentropy(from_logits=True)", ["accuracy"], 81),
    (None, "'huber_loss'", None, 32), (None, "'hinge'", None, 46),
    ("softmax", "'kld'", None, 34), (None, "'mape'", None, 33), (None, "'msle'", None, 38),
    (None, "'logcosh'", None, 31), (None, "'poisson'", None, 28),
    (None, "'cosine_similarity'", None, 38),
    (None, "lambda yt, yp: tf.reduce_mean(tf.square(yt - yp))", None, 16),
    (None, "'mse'", ["mae", "mse", "acc"], 103),
    ("softmax", "'categorical_crossentropy'", ["top_k_categorical_accuracy"], 80),
    ("sigmoid", "'binary_crossentropy'", ["binary_accuracy", "mse"], 88),
]


@pytest.mark.parametrize("act,loss,metrics,count", _TF_COMPILE_OPS)
def test_compile_takes_tf_op_count_for_loss_objects_and_functions(_fresh_graph, act, loss,
                                                                  metrics, count):
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,), activation=act)])
    before = _fresh_graph._last_id
    m.compile("sgd", eval(loss), metrics=metrics)
    assert _fresh_graph._last_id - before == count


def test_compile_counts_for_two_outputs_regularizers_and_masks(_fresh_graph):
    a = tf.keras.Input(shape=(3,))
    o1 = tf.keras.layers.Dense(2, name="o1")(a)
    o2 = tf.keras.layers.Dense(1, name="o2")(a)
    m = tf.keras.Model(a, [o1, o2])
    before = _fresh_graph._last_id
    m.compile("sgd", ["mse", "mae"], loss_weights=[1.0, 0.5])
    assert _fresh_graph._last_id - before == 94  # TF 1.15's (each output's loss metric too)
    assert m.total_loss.op.name == "loss/add"
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,),
                                                       kernel_regularizer="l2")])
        before = g._last_id
        m.compile("sgd", "mse")
        # TF 1.15 collects the regularization twice (the second copy unused)
        assert g._last_id - before == 41
        names = [op.name for op in g.get_operations()]
        assert "loss/dense/kernel/Regularizer_1/add" in names
        assert m.total_loss.op.name == "loss/add"
    with tf.Graph().as_default() as g:
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Embedding(5, 2, input_length=4, mask_zero=True),
                                 tf.keras.layers.Dense(2)])
        before = g._last_id
        m.compile("sgd", "mse")
        assert g._last_id - before == 82


def test_fed_sample_weights_make_the_placeholders_and_remake_the_loss(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    m.compile("sgd", "mse", weighted_metrics=["mae"])
    x, y = _data()
    h = m.fit(x, y, sample_weight=np.linspace(0.5, 2, 16), batch_size=8, epochs=2,
              verbose=0, shuffle=False)
    (sw,) = m.sample_weights
    assert sw.op.name == "dense_sample_weights" and sw.op.inputs[0].op.name == "Const"
    assert m.total_loss.op.name == "loss_1/mul"  # as TF 1.15: the loss made again
    assert list(h.history) == ["loss", "weighted_mean_absolute_error"]
    assert _fresh_graph.get_tensor_by_name("loss_1/dense_loss/value:0") is not None


# -- seeded programs: TF 1.15's numbers ----------------------------------------------------


def test_seeded_losses_with_probabilities_class_weights_and_regularizers(_fresh_graph):
    rs = np.random.RandomState(0)
    x = rs.rand(16, 3).astype(np.float32)
    onehot = np.eye(2)[rs.randint(0, 2, 16)].astype(np.float32)
    rs.rand(16, 2)
    ids = rs.randint(0, 2, (16, 1)).astype(np.float32)
    # binary cross-entropy of probabilities that are no Sigmoid's: TF 1.15's clipped formula
    m = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,), activation="relu"),
                             tf.keras.layers.Dense(1), tf.keras.layers.Activation("sigmoid"),
                             tf.keras.layers.Lambda(lambda t: t * 1.0)])
    m.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    loss, ev, pred = _fit(m, x, ids)
    np.testing.assert_allclose(loss, [0.906111, 0.901242], atol=2e-6)
    np.testing.assert_allclose(ev, [0.930718, 0.375], atol=2e-6)
    np.testing.assert_allclose(pred, [[0.713098], [0.650794]], atol=2e-6)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,), activation="relu"),
                                 tf.keras.layers.Dense(2, activation="softmax")])
        m.compile("sgd", "categorical_crossentropy", metrics=["acc"], weighted_metrics=["acc"])
        h = m.fit(x, onehot, batch_size=8, epochs=2, verbose=0, shuffle=False,
                  class_weight={0: 1.0, 1: 3.0})
        np.testing.assert_allclose(h.history["loss"], [1.242758, 1.239017], atol=2e-6)
        np.testing.assert_allclose(h.history["weighted_acc"], [0.7, 0.7], atol=1e-6)
        np.testing.assert_allclose(m.evaluate(x[:8], onehot[:8], verbose=0),
                                   [0.754537, 0.5, 0.5], atol=2e-6)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        m = tf.keras.Sequential([
            tf.keras.layers.Dense(4, input_shape=(3,), kernel_regularizer="l2",
                                  activation="relu"),
            tf.keras.layers.Dense(2, activity_regularizer=tf.keras.regularizers.l1(0.01))])
        m.compile("sgd", "mse")
        loss, ev, pred = _fit(m, x, _data()[1])
        np.testing.assert_allclose(loss, [0.29368, 0.280397], atol=2e-6)
        np.testing.assert_allclose(ev, 0.351724, atol=2e-6)
        np.testing.assert_allclose(pred, [[0.458839, 0.801567], [0.364243, 0.558923]],
                                   atol=2e-6)


def test_seeded_temporal_weights_and_sparse_logits_on_sequences(_fresh_graph):
    xs = np.random.RandomState(4).rand(8, 4, 3).astype(np.float32)
    ys = np.random.RandomState(5).rand(8, 4, 2).astype(np.float32)
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4, 3))])
    m.compile("sgd", "mse", sample_weight_mode="temporal")
    h = m.fit(xs, ys, sample_weight=np.random.RandomState(7).rand(8, 4), batch_size=4,
              epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.331927, 0.322535], atol=2e-6)
    np.testing.assert_allclose(m.evaluate(xs, ys, verbose=0), 0.5859755, atol=2e-6)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4, 3))])
        xs = np.random.RandomState(4).rand(16, 4, 3).astype(np.float32)
        ids = np.random.RandomState(5).randint(0, 3, (16, 4))
        m.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        h = m.fit(xs, ids, batch_size=8, epochs=2, verbose=0, shuffle=False)
        np.testing.assert_allclose(h.history["loss"], [1.289563, 1.287378], atol=2e-6)
        np.testing.assert_allclose(m.predict(xs[:1])[0, 0], [-1.390232, 0.614437, 0.715258],
                                   atol=2e-6)


def test_loss_functions_print_tf_values(_fresh_graph):
    rs = np.random.RandomState(0)
    rs.rand(16, 3)
    onehot = np.eye(2)[rs.randint(0, 2, 16)].astype(np.float32)
    yt = tf.constant(rs.rand(16, 2).astype(np.float32)[:4])
    yp = tf.constant(onehot[:4] * 0.8 + 0.1)
    L = tf.keras.losses
    got = tf.Session().run([L.mean_absolute_percentage_error(yt, yp), L.hinge(yt, yp),
                            L.categorical_crossentropy(yt, yp),
                            L.binary_crossentropy(yt, yp), L.cosine_proximity(yt, yp),
                            L.Huber()(yt, yp, sample_weight=tf.constant([1., 2., 0.5, 1.])),
                            L.BinaryCrossentropy(label_smoothing=0.1)(yt, yp)])
    np.testing.assert_allclose(got[0], [49.161194, 173.382645, 376.247925, 32.379204],
                               rtol=1e-6)
    np.testing.assert_allclose(got[1], [0.693437, 0.866693, 0.942383, 0.697742], atol=2e-6)
    np.testing.assert_allclose(got[2], [0.652037, 1.099473, 0.37767, 0.387329], atol=2e-6)
    np.testing.assert_allclose(got[3], [0.764729, 1.447738, 1.257359, 0.63473], atol=2e-6)
    # TF 1.15's cosine_proximity is the cosine itself (not negated)
    np.testing.assert_allclose(got[4], [0.966567, 0.559226, 0.657547, 0.995313], atol=2e-6)
    np.testing.assert_allclose(got[5:], [0.099169, 1.043922], atol=2e-6)


# -- fit: TF 1.15's op count for the train function ------------------------------------------

_O = "tf.keras.optimizers."
# ops TF 1.15's first fit made (learning phase, gradients, optimizer state and step, the
# group, the initializer of the new variables) for Dense(2) on Input(3,), and for
# Dense(4) -> Dense(2)
_TF_FIT_OPS = [("'sgd'", 115, 122), ("'adam'", 165, 196), ("'rmsprop'", 169, 218),
               ("'adagrad'", 122, 141), ("'adamax'", 160, 191),
               ("'adadelta'", 140, 171), (_O + "RMSprop(momentum=0.5)", 151, 182),
               (_O + "SGD(0.1, clipnorm=1.0)", 149, 190), (_O + "Adam(decay=0.01)", 172, 203)]


@pytest.mark.parametrize("opt,one,two", _TF_FIT_OPS)
def test_fit_takes_tf_op_count(opt, one, two):
    for layers, count in ((["Dense(2, input_shape=(3,))"], one),
                          (["Dense(4, input_shape=(3,))", "Dense(2)"], two)):
        with tf.Graph().as_default() as g:
            tf.set_random_seed(1)
            m = tf.keras.Sequential([eval("tf.keras.layers." + s) for s in layers])
            m.compile(eval(opt), "mse")
            before = g._last_id
            m.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
            assert g._last_id - before == count


def test_tf_optimizer_wrapper_makes_its_iterations_at_compile(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    before = _fresh_graph._last_id
    m.compile(tf.train.GradientDescentOptimizer(0.01), "mse")
    assert _fresh_graph._last_id - before == 29  # TF 1.15's: its step counter, then the loss
    assert m.optimizer.iterations.op.name == "TFOptimizer/iterations"
    m.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    assert tf.keras.backend.get_value(m.optimizer.iterations) == 1
    names = [op.name for op in _fresh_graph.get_operations()]
    assert "GradientDescent/learning_rate" not in names and names[-1] == "init"


def test_fit_and_evaluate_with_metrics_take_tf_op_count(_fresh_graph):
    def model():
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
        m.compile("sgd", "mse", metrics=["mae"])
        return m

    m = model()
    before = _fresh_graph._last_id
    m.fit(np.ones((8, 3)), np.ones((8, 2)), epochs=1, verbose=0)
    # TF 1.15's: the train function, its metric's reset ops, the variables' checks
    assert _fresh_graph._last_id - before == 123
    names = [op.name for op in _fresh_graph.get_operations()]
    assert "training/SGD/gradients/gradients/loss/mul_grad/Mul" in names  # TF's scope
    for kwargs, count in (({"validation_split": 0.25}, 124), (None, 12)):
        with tf.Graph().as_default() as g:
            tf.set_random_seed(1)
            m = model()
            before = g._last_id
            if kwargs is None:  # evaluate makes no learning phase, as TF's
                m.evaluate(np.ones((8, 3)), np.ones((8, 2)), verbose=0)
                assert "keras_learning_phase" not in [op.name for op in g.get_operations()]
            else:
                m.fit(np.ones((8, 3)), np.ones((8, 2)), epochs=1, verbose=0, **kwargs)
            assert g._last_id - before == count


def test_selu_activation_builds_tf_ops(_fresh_graph):
    x = tf.keras.Input(shape=(3,))
    y = tf.keras.layers.Activation("selu")(x)
    assert [op.type for op in _fresh_graph.get_operations()][1:] == [
        "Elu", "Const", "Greater", "Const", "Mul", "Select", "Const", "Mul"]  # TF 1.15's
    v = tf.keras.backend.get_session().run(y, {x: [[-1.0, 0.0, 2.0]]})
    np.testing.assert_allclose(v, [[-1.1113307, 0.0, 2.101402]], rtol=1e-6)


@pytest.mark.parametrize("opt,metrics,expected", [
    ("'sgd'", None, (509, [0.547397, 0.151719, 0.247383], [0.358685, 0.485903],
                     [0.090387, -0.384339])),
    ("'rmsprop'", ["mae", "acc"], (675, [0.335644, 0.733186, -0.668309], [0.302418, 0.378966],
                                   [0.125594, -0.147832])),
    ("'adadelta'", None, (558, [-0.979247, 0.271711, 0.617072], [0.174226, 0.180182],
                          [0.156255, 0.211603])),
])
def test_model_built_after_another_model_trained_gets_tf_numbers(_fresh_graph, opt, metrics,
                                                                 expected):
    # TF 1.15 printed these: a second model made after the first one's fit, evaluate and
    # predict gets TF's initial weights and dropout masks only with TF's op count
    rs = np.random.RandomState(0)
    x, y = rs.rand(16, 3).astype(np.float32), rs.rand(16, 2).astype(np.float32)
    a = _small_model()
    a.compile(eval(opt), "mse", metrics=metrics)
    a.fit(x, y, batch_size=8, epochs=1, verbose=0, shuffle=False)
    a.evaluate(x, y, verbose=0)
    a.predict(x[:2])
    b = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(3,), activation="relu"),
                             tf.keras.layers.Dropout(0.3), tf.keras.layers.Dense(2)])
    b.compile("adam", "mse")
    w0 = b.get_weights()[0]
    h = b.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    count, row, losses, pred = expected
    np.testing.assert_allclose(w0[0], row, atol=1e-6)
    np.testing.assert_allclose(h.history["loss"], losses, atol=2e-6)
    assert _fresh_graph._last_id == count
    np.testing.assert_allclose(b.predict(x[:1])[0], pred, atol=2e-6)


# -- stateful recurrent layers ---------------------------------------------------------------

_B = "batch_input_shape=(2, 4, 2), stateful=True"
# the graph's op count once TF 1.15 built the Sequential of these layers
_TF_STATEFUL_OPS = [
    ([f"LSTM(3, {_B})"], 281), ([f"SimpleRNN(3, {_B})"], 125),
    ([f"GRU(3, {_B}, return_sequences=True)", "Dense(1)"], 304),
    ([f"GRU(3, {_B}, reset_after=True)"], 302), ([f"GRU(3, {_B}, implementation=2)"], 237),
    ([f"LSTM(3, {_B}, implementation=2)"], 210),
    ([f"LSTM(3, {_B}, go_backwards=True, use_bias=False)"], 257),
    ([f"SimpleRNN(3, {_B}, return_sequences=True)", "SimpleRNN(2, stateful=True)"], 249),
    (["Embedding(5, 2, batch_input_shape=(2, 4), mask_zero=True)", "LSTM(3, stateful=True)"],
     331),
]


@pytest.mark.parametrize("layers,count", _TF_STATEFUL_OPS)
def test_stateful_rnn_takes_tf_op_count(_fresh_graph, layers, count):
    m = tf.keras.Sequential([eval("tf.keras.layers." + s) for s in layers])
    assert _fresh_graph._last_id == count
    out = m.predict(np.ones((2, 4, 2) if "Embedding" not in layers[0] else (2, 4)))
    assert np.all(np.isfinite(out))


def test_seeded_stateful_lstm_carries_its_states_as_tf(_fresh_graph):
    x = np.random.RandomState(0).rand(2, 4, 2).astype(np.float32)
    m = tf.keras.Sequential([tf.keras.layers.LSTM(3, batch_input_shape=(2, 4, 2), stateful=True),
                             tf.keras.layers.Dense(1)])
    m.compile("adam", "mse")
    first, second = m.predict(x), m.predict(x)
    m.reset_states()
    again = m.predict(x)
    h = m.fit(x, np.ones((2, 1)), batch_size=2, epochs=3, verbose=0, shuffle=False)
    np.testing.assert_allclose(first.ravel(), [-0.008715, -0.056161], atol=2e-6)  # TF 1.15's
    np.testing.assert_allclose(second.ravel(), [-0.025537, -0.10135], atol=2e-6)
    np.testing.assert_allclose(again, first, atol=1e-7)
    np.testing.assert_allclose(h.history["loss"], [1.132349, 1.15503, 1.156902], atol=2e-6)


def test_reading_the_learning_rate_before_training_makes_tf_hyperparameters(_fresh_graph):
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    m.compile("sgd", "mse")
    m.set_weights(m.get_weights())
    before = _fresh_graph._last_id
    tf.keras.backend.set_value(m.optimizer.lr, 0.5)
    made = [op.name for op in _fresh_graph.get_operations() if op._id > before]
    # TF 1.15: the hyperparameters only (no 'iter' yet), outside any scope, then the assign
    assert [n for n in made if "/" not in n or n.endswith("/Read/ReadVariableOp")][:6] == [
        "decay", "decay/Read/ReadVariableOp", "learning_rate", "learning_rate/Read/ReadVariableOp",
        "momentum", "momentum/Read/ReadVariableOp"]
    assert _fresh_graph._last_id - before == 22  # TF 1.15's
    m.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    assert m.optimizer.iterations.op.name == "training/SGD/iter"
    assert tf.keras.backend.get_value(m.optimizer.lr) == 0.5


def test_binary_crossentropy_of_probabilities_builds_tf_ops(_fresh_graph):
    yt = tf.placeholder(tf.float32, [None, 3])
    yp = tf.placeholder(tf.float32, [None, 3])
    before = _fresh_graph._last_id
    tf.keras.losses.binary_crossentropy(yt, yp)
    made = [op.name for op in _fresh_graph.get_operations() if op._id > before]
    assert made == [  # TF 1.15's (label smoothing's constant, the clipped probabilities)
        "Const", "Const_1", "sub/x", "sub", "clip_by_value/Minimum", "clip_by_value", "add/y",
        "add", "Log", "mul", "sub_1/x", "sub_1", "sub_2/x", "sub_2", "add_1/y", "add_1",
        "Log_1", "mul_1", "add_2", "Neg", "Mean/reduction_indices", "Mean"]


def test_sparse_adam_on_an_embedding_as_tf(_fresh_graph):
    _, y = _data()
    m = tf.keras.Sequential([tf.keras.layers.Embedding(10, 3, input_length=4),
                             tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
    m.compile(tf.keras.optimizers.Adam(0.05), "mse")
    ids = np.random.RandomState(3).randint(0, 10, (16, 4))
    before = _fresh_graph._last_id
    h = m.fit(ids, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
    # TF 1.15 made 221 ops (the resource gather's gradient takes the params' shape as one
    # Const)
    assert _fresh_graph._last_id - before == 221
    np.testing.assert_allclose(h.history["loss"], [0.193299, 0.082522, 0.05487], atol=2e-6)
    np.testing.assert_allclose(m.predict(ids[:2]), [[0.66231, 0.150154], [0.781315, 0.530414]],
                               atol=2e-6)
    np.testing.assert_allclose(m.get_weights()[0][0], [-0.163896, 0.13957, -0.129108],
                               atol=2e-6)


def test_generator_loops_take_tf_op_count(_fresh_graph):
    def batches():
        while True:
            yield np.ones((4, 3)), np.ones((4, 2))

    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    m.compile("sgd", "mse", metrics=["mae"])
    before = _fresh_graph._last_id
    m.fit_generator(batches(), steps_per_epoch=2, epochs=1, verbose=0)
    assert _fresh_graph._last_id - before == 124  # TF 1.15's (its metrics zeroed first)
    with tf.Graph().as_default() as g:
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
        m.compile("sgd", "mse", metrics=["mae"])
        before = g._last_id
        m.evaluate_generator(batches(), steps=2)
        assert g._last_id - before == 12
        m.predict_generator((np.ones((4, 3)) for _ in range(3)), steps=2)
        assert [op.name for op in g.get_operations()][-2:] == ["evaluation/group_deps",
                                                               "predict/group_deps"]


def test_compile_without_an_output_loss_starts_the_total_from_zero(_fresh_graph):
    x = tf.keras.Input(shape=(3,))
    y = tf.keras.layers.Dense(2, activity_regularizer="l2")(x)
    m = tf.keras.Model(x, y)
    before = _fresh_graph._last_id
    m.compile("adam")
    assert _fresh_graph._last_id - before == 2  # TF 1.15's: 0. + the layers' losses
    before = _fresh_graph._last_id
    h = m.fit(np.ones((4, 3)), verbose=0)
    assert _fresh_graph._last_id - before == 116
    assert np.isfinite(h.history["loss"][0])


def test_seeded_adamax_fit_as_tf(_fresh_graph):
    x, y = _data()
    m = _small_model()
    m.compile("adamax", "mse", metrics=["mae"])
    h = m.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    np.testing.assert_allclose(h.history["loss"], [0.253572, 0.248703], atol=2e-6)  # TF 1.15's
    np.testing.assert_allclose(m.evaluate(x[:8], y[:8], verbose=0), [0.333408, 0.466083],
                               atol=2e-6)
    np.testing.assert_allclose(m.predict(x[:2]), [[0.466617, 0.841171], [0.370051, 0.594001]],
                               atol=2e-6)
