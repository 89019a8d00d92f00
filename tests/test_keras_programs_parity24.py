"""Keras and estimator programs as users write them, against TF 1.15's printed results (each
number below was measured by running the same program under TF 1.15)."""

import numpy as np

import tideflow as tf


def _zero_model():
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,),
                                                   kernel_initializer="zeros")])
    m.compile(tf.keras.optimizers.SGD(0.0), "mse")
    return m


def test_fit_generator_validates_through_an_enqueuer_per_pass():
    # TF 1.15 makes a validation pass's enqueuer at the pass and stops it after its steps: a
    # generator's batches drawn ahead are lost (TF's second pass began at item 12 or 13, as
    # its threads ran), and a Sequence's pass ends before its on_epoch_end (0 calls in TF)
    tf.reset_default_graph()

    def gen():
        i = 0
        while True:
            yield np.ones((4, 3), np.float32), np.full((4, 1), float(i), np.float32)
            i += 1

    def train():
        while True:
            yield np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32)

    m = _zero_model()
    h = m.fit_generator(train(), steps_per_epoch=2, epochs=2, validation_data=gen(),
                        validation_steps=2, verbose=0)
    first, second = h.history["val_loss"]
    assert first == 0.5  # items 0 and 1
    assert second > 12  # not items 2 and 3 (6.5): at least one item drawn ahead was lost

    class Seq(tf.keras.utils.Sequence):
        def __init__(self):
            self.ends = 0

        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32)

        def on_epoch_end(self):
            self.ends += 1

    val = Seq()
    m.fit_generator(train(), steps_per_epoch=2, epochs=3, validation_data=val, verbose=0)
    assert val.ends == 0


def test_a_graph_network_drops_input_arrays_past_its_inputs():
    # TF 1.15 pairs the arrays with the inputs' shapes (zip): a second array is never seen,
    # even one of another sample count or width; a subclassed model has no shapes to pair
    tf.reset_default_graph()
    tf.set_random_seed(1)
    inp = tf.keras.Input((3,))
    m = tf.keras.Model(inp, tf.keras.layers.Dense(2, kernel_initializer="ones")(inp))
    m.compile("sgd", "mse")
    ones = np.ones((4, 3))
    got = []
    for xs in ([ones, 2 * ones], [2 * ones, ones], (ones, np.ones((5, 3))),
               [ones, np.ones((4, 7))]):
        got.append(round(float(m.evaluate(xs, np.zeros((4, 2)), verbose=0)), 4))
        assert m.predict(xs).shape == (4, 2)
        got.append(round(float(m.train_on_batch(xs, np.zeros((4, 2)))), 4))
    # (measured in TF 1.15)
    assert got == [9.0, 9.0, 33.5241, 33.5241, 6.1241, 6.1241, 5.644, 5.644]


def test_a_batch_size_of_zero_fails_as_tf_dividing_by_it():
    tf.reset_default_graph()
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    m.compile("sgd", "mse")
    x, y = np.zeros((4, 3)), np.zeros((4, 2))
    for call in (lambda: m.fit(x, y, batch_size=0, verbose=0),
                 lambda: m.evaluate(x, y, batch_size=0, verbose=0),
                 lambda: m.predict(x, batch_size=0)):
        try:
            call()
        except ZeroDivisionError as e:
            assert str(e) == "float division by zero"
        else:
            raise AssertionError("no error")


def test_sample_weights_are_checked_before_the_class_weights_multiply_them():
    tf.reset_default_graph()
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    m.compile("sgd", "mse")
    try:
        m.fit(np.zeros((4, 3)), np.zeros((4, 2)), class_weight={0: 1},
              sample_weight=np.ones(3), verbose=0)
    except ValueError as e:
        assert str(e) == ("Found a sample_weight array with shape (3,) for an input with shape "
                          "(4, 2). sample_weight cannot be broadcast.")
    else:
        raise AssertionError("no error")


def test_tf_ops_between_layers_compute_their_constants_as_tf():
    # TF 1.15 makes TensorFlowOpLayers of the TF ops on Keras tensors when a layer is called
    # on them (or a model made of them), computing each constant input with K.function (its
    # 'group_deps', and the session's initialization of the variables made so far): the
    # layers made after take TF's op seeds; a call on new inputs makes the constants again
    tf.reset_default_graph()
    tf.set_random_seed(19)
    layers = tf.keras.layers
    inp = tf.keras.Input((4,), name="x")
    h = layers.Dense(3, name="d1")(inp)
    s = tf.nn.relu(h) * 2.0
    o = layers.Dense(2, name="d2")(s)
    m = tf.keras.Model(inp, layers.Dense(1, name="d3")(o))
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[names.index("mul"):names.index("mul") + 5] == [
        "mul", "group_deps", "VarIsInitializedOp", "VarIsInitializedOp_1", "init"]
    w = m.get_weights()
    # (measured in TF 1.15)
    np.testing.assert_allclose(w[2].ravel()[:3], [0.5578, -0.773, -0.6642], atol=1e-4)
    np.testing.assert_allclose(w[4].ravel(), [-0.4161, -1.3247], atol=1e-4)

    tf.reset_default_graph()
    tf.set_random_seed(19)
    inp = tf.keras.Input((4,), name="x")
    h = layers.Dense(3, name="d1")(inp)
    enc = tf.keras.Model(inp, tf.nn.relu(h) * 2.0 + tf.reduce_mean(h, axis=1, keepdims=True),
                         name="enc")
    lines = []
    enc.summary(print_fn=lines.append)
    assert lines[8].startswith("tf_op_layer_Relu (TensorFlowOpL [(None, 3)]          0")
    x2 = tf.keras.Input((4,), name="x2")
    z = enc(x2)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "enc/tf_op_layer_mul/mul/y" in names
    assert "enc/tf_op_layer_Mean/Mean/reduction_indices" in names
    m = tf.keras.Model(x2, layers.Dense(1, name="head")(layers.concatenate([z, x2])))
    np.testing.assert_allclose(m.get_weights()[2].ravel()[:3], [-0.8623, -0.1121, -0.2267],
                               atol=1e-4)
    lines = []
    enc.summary(print_fn=lines.append)
    assert lines[8].startswith("tf_op_layer_Relu (TensorFlowOpL multiple ")
    try:
        shape = enc.layers[2].output_shape
    except AttributeError as e:
        assert str(e).startswith('The layer "tf_op_layer_Relu" has multiple inbound nodes')
    else:
        raise AssertionError(f"no error: {shape}")


def test_k_function_groups_its_updates_after_the_first_output():
    tf.reset_default_graph()
    K = tf.keras.backend
    x = tf.keras.Input((2,))
    v = K.variable(np.zeros((2,)), name="v")
    f = K.function([x], [K.sum(x) + K.sum(v)], updates=[(v, v + 1.0)])
    assert f([np.ones((1, 2))]) == [2.0] and f([np.ones((1, 2))]) == [4.0]
    assert K.function([], [v])([])[0].tolist() == [2.0, 2.0]
    names = [op.name for op in tf.get_default_graph().get_operations()]
    # (TF 1.15's ops: a 'group_deps' per function, an identity of a fetched variable)
    assert [n for n in names if n.startswith(("group_deps", "Identity"))] == [
        "group_deps", "Identity/ReadVariableOp", "Identity", "group_deps_1"]


def test_keras_layers_on_tf_layers_outputs_make_no_op_layers():
    # TF 1.15's tf.layers are Keras layers: their outputs have a Keras history, so a Keras
    # layer called on one computes nothing (a computed constant would make ops and move the
    # op seeds of the layers after)
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 8, 8, 1])
    net = tf.layers.conv2d(x, 4, 3, padding="same")
    net = tf.keras.layers.MaxPooling2D(2)(net)
    net = tf.layers.batch_normalization(net, training=False)
    net = tf.keras.layers.Dense(3)(tf.layers.flatten(net))
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert not [n for n in names if "group_deps" in n or n.startswith("init")]


def test_image_generator_fit_rescales_and_augments_as_keras_preprocessing():
    np.random.seed(26)
    imgs = np.random.randint(0, 255, (5, 6, 6, 3)).astype("float32")
    g = tf.keras.preprocessing.image.ImageDataGenerator(
        rotation_range=20, width_shift_range=0.2, horizontal_flip=True, rescale=1.0 / 255,
        featurewise_center=True, featurewise_std_normalization=True)
    g.fit(imgs, augment=True, rounds=2, seed=3)
    # (measured in TF 1.15, keras_preprocessing 1.1.2)
    np.testing.assert_allclose(g.mean.ravel(), [0.51391, 0.5024, 0.47984], atol=1e-5)
    np.testing.assert_allclose(g.std.ravel(), [0.19376, 0.21381, 0.21], atol=1e-5)
    batch = next(g.flow(imgs, batch_size=5, shuffle=True, seed=4))
    np.testing.assert_allclose(batch[0, :2, :2, 0], [[0.7416, 0.3172], [-1.905, 0.305]],
                               atol=1e-4)
    try:
        g.fit(imgs[0])
    except ValueError as e:
        assert str(e) == ("Input to `.fit()` should have rank 4. Got array with shape: "
                          "(6, 6, 3)")
    else:
        raise AssertionError("no error")


def test_rnn_layers_given_initial_states_take_tf_op_count():
    # TF 1.15 makes no zero states when the initial states are given (the batch size's five
    # ops and eight per state fewer): the layers made after get TF's op seeds
    layers = tf.keras.layers
    got = []
    for cls, n in ((layers.LSTM, 2), (layers.GRU, 1), (layers.SimpleRNN, 1)):
        tf.reset_default_graph()
        tf.set_random_seed(27)
        a = tf.keras.Input((5,))
        ea = layers.Embedding(10, 3, mask_zero=cls is layers.GRU)(a)
        h0 = layers.Dense(4)(layers.Lambda(lambda t: t[:, 0])(ea))
        d = layers.Dense(1)
        d(cls(4)(ea, initial_state=[h0] * n))
        got.append(round(float(np.sum(tf.keras.backend.get_value(d.kernel))), 4))
    assert got == [0.9067, -2.8647, -2.7073]  # (measured in TF 1.15)


def test_losses_and_metrics_on_numpy_values_make_tf_ops():
    # measured in TF 1.15: hinge losses of labels known now take their branch with no cond
    # (TF's smart_cond evaluates the constant predicate), MeanTensor initializes its variables
    # when built and chains its two updates, sparse top-k converts its arguments as TF
    tf.reset_default_graph()
    np.random.seed(30)
    K = tf.keras.backend
    yt = tf.keras.utils.to_categorical(np.random.randint(0, 4, 6), 4)
    yp = np.random.rand(6, 4).astype("float32")
    graph = tf.get_default_graph()
    start = graph._next_id
    loss = tf.keras.losses.squared_hinge(K.constant(yt), K.constant(yp))
    assert graph._next_id - start == 21  # (measured in TF 1.15, as the counts below)
    assert not [op for op in graph.get_operations() if op.type in ("If", "Switch", "Merge")]
    np.testing.assert_allclose(K.eval(loss), np.mean(np.maximum(1 - (2 * yt - 1) * yp, 0) ** 2,
                                                     axis=-1), rtol=1e-6)
    start = graph._next_id
    m = tf.keras.metrics.MeanTensor()
    update = m.update_state(yp)
    K.get_session().run(update)
    assert graph._next_id - start == 21
    np.testing.assert_allclose(K.get_session().run(m.result()), yp)
    start = graph._next_id
    got = K.eval(tf.keras.metrics.sparse_top_k_categorical_accuracy(np.argmax(yt, 1), yp, k=1))
    assert graph._next_id - start == 8
    np.testing.assert_array_equal(got, (np.argmax(yt, 1) == np.argmax(yp, 1)).astype("f"))
    for get in (tf.keras.losses.get, tf.keras.metrics.get):
        assert get("cosine_similarity").__name__ == "cosine_proximity"
        try:
            get("cosine")
        except ValueError as e:
            assert str(e).startswith("Unknown ") and str(e).endswith(" function:cosine")
        else:
            raise AssertionError("no error")


def test_dense_units_and_list_data_as_tf():
    tf.reset_default_graph()
    # TF 1.15 takes 0 units (an empty output); a negative count fails as a TensorShape
    assert tf.keras.layers.Dense(0)(tf.keras.Input((2,))).get_shape().as_list() == [None, 0]
    try:
        tf.keras.layers.Dense(-1)(tf.keras.Input((2,)))
    except ValueError as e:
        assert str(e) == "Dimension -1 must be >= 0"
    else:
        raise AssertionError("no error")
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    m.compile("sgd", "mse")
    # a list of Python numbers is one array; a list of other values is one array each, which
    # must have a shape (TF's AttributeError)
    m.fit(np.zeros((4, 3)), [0.0, 1.0, 2.0, 3.0], verbose=0)
    try:
        m.fit(np.zeros((4, 3)), ["a", "b", "c", "d"], verbose=0)
    except AttributeError as e:
        assert str(e) == "'str' object has no attribute 'shape'"
    else:
        raise AssertionError("no error")
    try:
        m.fit(np.zeros((4, 3)), [np.float32(0)] * 4, verbose=0)
    except ValueError as e:
        assert "Expected to see 1 array(s), but instead got the following list of 4" in str(e)
    else:
        raise AssertionError("no error")


def test_a_model_output_on_no_keras_tensor_is_an_op_layer():
    # TF 1.15 makes any output op a TensorFlowOpLayer, inputs or not
    tf.reset_default_graph()
    inp = tf.keras.Input((3,))
    m = tf.keras.Model(inp, tf.zeros((2, 2)))
    assert [type(la).__name__ for la in m.layers] == ["InputLayer", "TensorFlowOpLayer"]
    assert m.output_names == ["tf_op_layer_zeros"]
    assert m.predict(np.ones((2, 3))).tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_attention_on_query_value_key_without_masks():
    # TF 1.15 hands compute_mask None when no input has a mask (not a list of Nones, which
    # the attention layers would take for a mask of the wrong length)
    tf.reset_default_graph()
    q, v = tf.keras.Input((4, 6)), tf.keras.Input((5, 6))
    out = tf.keras.layers.AdditiveAttention()([q, v, v])
    assert out.get_shape().as_list() == [None, 4, 6]
    assert getattr(out, "_keras_mask", None) is None


def test_shared_embedding_columns_of_two_types_in_tf_words():
    fc = tf.feature_column
    a = fc.categorical_column_with_identity("a", 3)
    b = fc.categorical_column_with_vocabulary_list("b", ["x", "y", "z"])
    try:
        fc.shared_embedding_columns([a, b], 2)
    except ValueError as e:
        assert str(e).startswith(
            "To use shared_embedding_column, all categorical_columns must have the same type, "
            "or be weighted_categorical_column of the same type. Given column: ")
    else:
        raise AssertionError("no error")
