"""tf.keras programs trained for a few epochs give TF 1.15's losses, metrics, evaluate()
results and weights bit for bit (every expected number below was measured by running the same
program under TF 1.15; a weight is checked by the float64 sum of its float32 values)."""

import numpy as np

import tideflow as tf

L = tf.keras.layers


def _setup(seed):
    tf.reset_default_graph()
    tf.set_random_seed(seed)
    np.random.seed(seed)
    return np.random.RandomState(0)


def _result(m, h, x, y):
    hist = {k: [float(v) for v in vs] for k, vs in sorted(h.history.items())}
    ev = [float(v) for v in np.atleast_1d(m.evaluate(x, y, verbose=0, batch_size=16))]
    sums = [float(np.sum(w, dtype=np.float64)) for w in m.get_weights()]
    return hist, ev, sums


def _conv_program():
    r = _setup(3)
    x = r.randn(8, 8, 8, 1).astype(np.float32)
    y = np.arange(8) % 4
    m = tf.keras.Sequential(
        [
            L.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
            L.MaxPooling2D(),
            L.Flatten(),
            L.Dense(4, activation="softmax"),
        ]
    )
    m.compile(
        tf.keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy", metrics=["accuracy"]
    )
    h = m.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    return _result(m, h, x, y)


def _conv_bn_program():
    r = _setup(1)
    x = r.randn(32, 8, 8, 1).astype(np.float32)
    y = np.arange(32) % 4
    m = tf.keras.Sequential(
        [
            L.Conv2D(4, 3, input_shape=(8, 8, 1)),
            L.BatchNormalization(),
            L.Activation("relu"),
            L.MaxPooling2D(),
            L.Flatten(),
            L.Dropout(0.2),
            L.Dense(4, activation="softmax"),
        ]
    )
    m.compile(
        tf.keras.optimizers.SGD(0.05, momentum=0.9),
        "sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    h = m.fit(x, y, batch_size=8, epochs=3, shuffle=True, validation_split=0.25, verbose=0)
    return _result(m, h, x, y)


def _functional_sample_weight_program():
    r = _setup(1)
    x = r.randn(40, 4).astype(np.float32)
    y = np.stack([x[:, 0] * 2 - x[:, 1], x[:, 2]], 1)
    sw = np.linspace(0.5, 2.0, 40).astype(np.float32)
    inp = tf.keras.Input((4,))
    out = L.Dense(2)(L.Dense(8, activation="tanh")(inp))
    m = tf.keras.Model(inp, out)
    m.compile(tf.keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True), "mse", metrics=["mae"])
    h = m.fit(
        x,
        y,
        batch_size=10,
        epochs=3,
        shuffle=False,
        sample_weight=sw,
        validation_split=0.2,
        verbose=0,
    )
    return _result(m, h, x, y)


def _embedding_class_weight_program():
    r = _setup(1)
    x = np.random.RandomState(3).randint(0, 20, size=(48, 7))
    y = (x.mean(1) > 9.5).astype(np.float32)
    del r
    inp = tf.keras.Input((7,))
    h = L.GlobalAveragePooling1D()(L.Embedding(20, 5)(inp))
    m = tf.keras.Model(inp, L.Dense(1, activation="sigmoid")(h))
    m.compile("adagrad", "binary_crossentropy", metrics=["accuracy"])
    h = m.fit(
        x, y, batch_size=12, epochs=3, shuffle=False, class_weight={0: 1.0, 1: 2.5}, verbose=0
    )
    return _result(m, h, x, y)


def _mlp_dropout_bn_program():
    r = _setup(1)
    x = r.randn(64, 6).astype(np.float32)
    y = (x.sum(1) > 0).astype(np.float32)[:, None]
    m = tf.keras.Sequential(
        [
            L.Dense(7, input_shape=(6,)),
            L.BatchNormalization(),
            L.Activation("relu"),
            L.Dropout(0.3),
            L.Dense(1, activation="sigmoid"),
        ]
    )
    m.compile(tf.keras.optimizers.SGD(0.05), "binary_crossentropy", metrics=["accuracy"])
    h = m.fit(x, y, batch_size=16, epochs=3, shuffle=True, verbose=0)
    return _result(m, h, x, y)


def _mlp_sgd_string_program():
    r = _setup(1)
    x = r.randn(64, 8).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[x[:, :3].argmax(1)]
    m = tf.keras.Sequential(
        [L.Dense(16, activation="relu", input_shape=(8,)), L.Dense(3, activation="softmax")]
    )
    m.compile("sgd", "categorical_crossentropy", metrics=["accuracy"])
    h = m.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0)
    return _result(m, h, x, y)


def _fingerprint(a):
    return [float(np.sum(a, dtype=np.float64)), [float(v) for v in np.ravel(a)[:4]]]


def _linear_dense_predict_program():
    r = _setup(1)
    x = r.randn(32, 6).astype(np.float32)
    m = tf.keras.Sequential([L.Dense(1, input_shape=(6,), bias_initializer="ones")])
    return _fingerprint(m.predict(x)) + _fingerprint(m.predict_on_batch(x[:8]))


def _lstm_forward_program():
    r = _setup(1)
    x = 3 * r.randn(32, 5, 3).astype(np.float32)
    m = tf.keras.Sequential([L.LSTM(6, input_shape=(5, 3), return_sequences=True)])
    m.set_weights([0.5 * r.randn(*w.shape).astype(np.float32) for w in m.get_weights()])
    return _fingerprint(m.predict(x)) + _fingerprint(m.predict(x, batch_size=4))


def _control_waited_bias_add_program():
    r = _setup(1)
    x = r.randn(32, 6).astype(np.float32)
    w = tf.constant(r.randn(6, 1).astype(np.float32))
    px = tf.placeholder(tf.float32, [None, 6])
    y = tf.nn.bias_add(tf.matmul(px, w), tf.constant([1.0]))
    y2 = tf.nn.bias_add(tf.matmul(px, w), tf.constant([1.0]))
    with tf.control_dependencies([y2]):
        wait = tf.no_op()
    with tf.Session() as sess:
        fused = sess.run(y, {px: x})
        plain = sess.run([y2, wait], {px: x})[0]
    return _fingerprint(fused) + _fingerprint(plain)


def test_conv_bn_trains_as_tf():
    # fused batch norm over 4 channels, dropout, seeded shuffling, momentum, validation_split
    # (measured in TF 1.15)
    assert _conv_bn_program() == (
        {
            "acc": [0.25, 0.4583333432674408, 0.5416666865348816],
            "loss": [1.5631057421366374, 1.2206662893295288, 1.1273374557495117],
            "val_acc": [0.5, 0.5, 0.25],
            "val_loss": [1.3765579462051392, 1.484509825706482, 1.5727424621582031],
        },
        [1.095843255519867, 0.5],
        [
            3.1153309629298747,
            6.742859159913905e-09,
            3.3724074363708496,
            -0.5742257796227932,
            -0.003873149660648778,
            3.7887269258499146,
            -1.06216054642573,
            -1.0244548320770264e-08,
        ],
    )


def test_conv_trains_as_tf():
    # Conv2DBackpropFilter contracts the batch's patch matrix with dy at once, each filter
    # tap's products added in order along images and pixels (an FMA each), as TF's kernel
    # (measured in TF 1.15)
    assert _conv_program() == (
        {
            "acc": [0.25, 0.375, 0.5],
            "loss": [1.912570834159851, 1.449457049369812, 1.2280223369598389],
        },
        [1.0907666683197021, 0.75],
        [0.44516336638480425, -0.1176164299249649, 0.5399813549593091, 0.0],
    )


def test_embedding_class_weight_trains_as_tf():
    # Embedding (sparse Adagrad rows), GlobalAveragePooling1D, class_weight
    # (measured in TF 1.15)
    assert _embedding_class_weight_program() == (
        {
            "acc": [0.5208333134651184, 0.4791666567325592, 0.6458333134651184],
            "loss": [1.148282378911972, 1.1467910408973694, 1.145846277475357],
        },
        [0.6916999419530233, 0.6458333134651184],
        [0.001199973063194193, 0.8073006942868233, 0.005690637975931168],
    )


def test_functional_sample_weight_trains_as_tf():
    # functional model, Nesterov momentum, sample_weight, validation_split, metrics=['mae']
    # (measured in TF 1.15)
    assert _functional_sample_weight_program() == (
        {
            "loss": [3.386206952854991, 0.8622053489089012, 0.40892833285033703],
            "mean_absolute_error": [1.3429570198059082, 0.6910963654518127, 0.4884580671787262],
            "val_loss": [1.1391239166259766, 0.5375852584838867, 0.2621679902076721],
            "val_mean_absolute_error": [
                0.6555641293525696,
                0.41571515798568726,
                0.258182168006897,
            ],
        },
        [0.337667852640152, 0.4165121018886566],
        [4.718161456286907, -0.0982478316873312, -2.538592269644141, 0.21072185784578323],
    )


def test_mlp_dropout_bn_trains_as_tf():
    # BatchNormalization on 7 channels (NumPy's roots = Eigen's scalar ones), Dropout
    # (measured in TF 1.15)
    assert _mlp_dropout_bn_program() == (
        {
            "acc": [0.5625, 0.515625, 0.484375],
            "loss": [0.9661593437194824, 0.8619743138551712, 0.837386965751648],
        },
        [0.7545462846755981, 0.5625],
        [
            2.225921779870987,
            1.40971712775384e-09,
            6.789967238903046,
            -0.19156584609299898,
            0.010478881886228919,
            6.737526297569275,
            -2.404068574309349,
            0.06244287267327309,
        ],
    )


def test_mlp_sgd_string_trains_as_tf():
    # 'sgd' given as a string, categorical cross-entropy, accuracy
    # (measured in TF 1.15)
    assert _mlp_sgd_string_program() == (
        {
            "acc": [0.375, 0.390625, 0.390625],
            "loss": [1.056607961654663, 1.046576052904129, 1.0367815494537354],
        },
        [1.0290635824203491, 0.390625],
        [2.3428241508081555, 0.004404140971018933, -1.6815410975832492, -1.6298145055770874e-09],
    )


def test_lstm_implementation_1_adds_the_bias_before_the_recurrent_product():
    # TF 1.15's LSTMCell (implementation 1): (x @ k + b) + h @ u, each gate
    # (measured in TF 1.15)
    assert _lstm_forward_program() == [
        -66.29314274336502,
        [0.028234751895070076, 0.0, 0.0, 0.04337233304977417],
        -66.29314274336502,
        [0.028234751895070076, 0.0, 0.0, 0.04337233304977417],
    ]


def test_keras_predict_leaves_a_linear_last_dense_unfused():
    # Keras's predict target waits on the first output, so TF's remapper leaves its MatMul
    # and BiasAdd apart: the matrix-vector product's bits, then the bias
    # (measured in TF 1.15)
    assert _linear_dense_predict_program() == [
        21.331277549266815,
        [-1.4640955924987793, 1.5379366874694824, 0.8869726657867432, 0.6553646326065063],
        7.581794857978821,
        [-1.4640955924987793, 1.5379366874694824, 0.8869726657867432, 0.6553646326065063],
    ]


def test_a_control_waited_bias_add_is_not_fused():
    # TF's remapper fuses MatMul + BiasAdd, but not where a control edge leaves the BiasAdd
    # (measured in TF 1.15)
    assert _control_waited_bias_add_program() == [
        11.120049118995667,
        [1.227587103843689, 2.3238000869750977, 1.9871666431427002, 0.5933073163032532],
        11.120050609111786,
        [1.227587103843689, 2.3238000869750977, 1.9871666431427002, 0.5933074355125427],
    ]
