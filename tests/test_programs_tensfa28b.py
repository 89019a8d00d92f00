"""More of tensfa/tensfa's StackOverflow-question TF 1.x programs (SFData/ICSE2020 and
ISSTA2018; test_programs_tensfa28.py holds the first ones), each reduced to a standalone form
with small synthetic data: the mistake the question is about is kept, and the test pins what
TF 1.15 (tensorflow-cpu 1.15.0) printed and raised running the same reduced program
(measured): the error's class, its message's first line, whether at build or at run."""


import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _first_line(excinfo):
    return str(excinfo.value).strip().splitlines()[0]


def test_s36241731_keras1_simple_rnn_arguments():
    # ICSE2020/s36241731_original.py (keras -> tf.keras; a DataFrame -> 6 rows of 3): Keras
    # 1's init/output_dim keywords, fit(X=...), then a 2-D table given to the RNN.
    # (TF 1.15 on Python 3.7 says "__init__() missing ..."; Python 3.10+ prefixes the class
    # of the __init__, SimpleRNN in TF)
    K = tf.keras
    m = K.models.Sequential()
    with pytest.raises(TypeError) as e:
        m.add(K.layers.SimpleRNN(init='uniform', output_dim=1, input_dim=3))
    assert _first_line(e) == "SimpleRNN.__init__() missing 1 required positional argument: 'units'"
    with pytest.raises(TypeError) as e:
        m.add(K.layers.SimpleRNN(1, init='uniform', input_dim=3))
    assert _first_line(e) == "('Keyword argument not understood:', 'init')"
    m.add(K.layers.SimpleRNN(1, kernel_initializer='uniform', input_dim=3))
    assert (m.input_shape, m.output_shape) == ((None, None, 3), (None, 1))
    m.compile(loss="mse", optimizer="sgd")
    X = np.random.RandomState(0).rand(6, 3)
    Y = np.arange(6.)
    with pytest.raises(TypeError) as e:
        m.fit(X=X, y=Y, batch_size=6, show_accuracy=True)
    assert _first_line(e) == ("Unrecognized keyword arguments: {'X': array([[0.5488135 , "
                              "0.71518937, 0.60276338],")
    with pytest.raises(ValueError) as e:
        m.fit(X, Y, batch_size=6, verbose=0)
    assert _first_line(e) == ("Error when checking input: expected simple_rnn_input to have 3 "
                              "dimensions, but got array with shape (6, 3)")


def test_s37085653_s38584268_s38656566_keras1_convolutions():
    # ICSE2020/s37085653, s38584268 and s38656566 (keras -> tf.keras; sizes shrunk): Keras 1's
    # border_mode, a Conv2D given 2-D images, a Dense after a conv (applied per position) and
    # a Conv1D over a length-1 axis
    K = tf.keras
    with pytest.raises(TypeError) as e:
        K.layers.Convolution2D(10, 3, 3, border_mode='same', input_shape=(10, 10))
    assert _first_line(e) == "('Keyword argument not understood:', 'border_mode')"
    for make in (lambda: K.layers.Convolution2D(10, 3, 3, padding='same', input_shape=(10, 10)),
                 lambda: K.layers.Conv2D(10, (3, 3), padding='same', input_shape=(10, 10))):
        m = K.models.Sequential()
        with pytest.raises(ValueError) as e:
            m.add(make())
    assert _first_line(e) == (
        "Input 0 of layer conv2d_1 is incompatible with the layer: expected ndim=4, found "
        "ndim=3. Full shape received: [None, 10, 10]")
    m = K.models.Sequential()
    m.add(K.layers.Convolution2D(15, (7, 7), activation='relu', padding='same',
                                 input_shape=(12, 10, 1)))
    shapes = [m.output_shape]
    m.add(K.layers.MaxPooling2D((2, 2), padding='same'))
    shapes.append(m.output_shape)
    m.add(K.layers.Convolution2D(25, (5, 5), activation='relu', padding='same'))
    shapes.append(m.output_shape)
    m.add(K.layers.Dense(5))
    shapes.append(m.output_shape)
    assert shapes == [(None, 12, 10, 15), (None, 6, 5, 15), (None, 6, 5, 25), (None, 6, 5, 5)]
    assert m.count_params() == 10280
    with pytest.raises(TypeError) as e:
        K.layers.MaxPooling2D((2, 2), border_mode='same')
    assert _first_line(e) == "('Keyword argument not understood:', 'border_mode')"
    conv = K.models.Sequential()
    with pytest.raises(ValueError) as e:
        conv.add(K.layers.Convolution1D(64, 10, input_shape=(1, 101)))
    assert _first_line(e) == (
        "Negative dimension size caused by subtracting 10 from 1 for 'conv1d/conv1d' (op: "
        "'Conv2D') with input shapes: [?,1,1,101], [1,10,101,64].")
    conv = K.models.Sequential()
    conv.add(K.layers.Convolution1D(8, 10, input_shape=(101, 1)))
    conv.add(K.layers.Activation('relu'))
    conv.add(K.layers.MaxPooling1D(2))
    conv.add(K.layers.Flatten())
    conv.add(K.layers.Dense(10))
    assert [la.output_shape for la in conv.layers] == [
        (None, 92, 8), (None, 92, 8), (None, 46, 8), (None, 368), (None, 10)]


def test_s39032277_s38157794_wrong_feeds():
    # ICSE2020/s39032277_original.py (an OpenCV image fed to the [None, 784] placeholder;
    # argmax of numpy labels) and s38157794_original.py (one_hot=False labels) (reduced)
    x = tf.placeholder("float", [None, 12])
    act = tf.nn.softmax(tf.matmul(x, tf.Variable(tf.zeros([12, 10]))))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(tf.argmax(act, 1), {x: np.zeros((1, 12))}).tolist() == [0]
        assert s.run(tf.argmax(np.eye(10)[3:4], 1)).tolist() == [3]
        with pytest.raises(ValueError) as e:
            s.run(tf.argmax(act, 1), {x: np.zeros((2, 2, 3), np.uint8)})
        assert _first_line(e) == ("Cannot feed value of shape (2, 2, 3) for Tensor "
                                  "'Placeholder:0', which has shape '(?, 12)'")
    tf.reset_default_graph()
    sess = tf.InteractiveSession()
    try:
        x = tf.placeholder("float", shape=[None, 6])
        y_ = tf.placeholder("float", shape=[None, 10])
        W = tf.Variable(tf.zeros([6, 10]))
        sess.run(tf.initialize_all_variables())
        y = tf.nn.softmax(tf.matmul(x, W))
        step = tf.train.GradientDescentOptimizer(0.01).minimize(-tf.reduce_sum(y_ * tf.log(y)))
        with pytest.raises(ValueError) as e:
            step.run(feed_dict={x: np.zeros((5, 6)), y_: np.arange(5)})
        assert _first_line(e) == ("Cannot feed value of shape (5,) for Tensor "
                                  "'Placeholder_1:0', which has shape '(?, 10)'")
    finally:
        sess.close()


def test_s39112176_variable_from_a_shapeless_placeholder():
    # ICSE2020/s39112176_original.py (100x300 -> 3x4): random_uniform's bounds from a
    # shapeless placeholder leave the initial value without a shape
    init = tf.placeholder(tf.float32, name="init")
    with pytest.raises(ValueError) as e:
        tf.Variable(tf.random_uniform((3, 4), -init, init), dtype=tf.float32)
    assert _first_line(e) == ('initial_value must have a shape specified: '
                              'Tensor("random_uniform:0", dtype=float32)')


def test_s39376169_s39815518_channels_first_shapes_in_channels_last_keras():
    # ICSE2020/s39376169 and s39815518 (keras -> tf.keras; 150x150 and 224x224 -> 15x15 and
    # 32x32): (3, h, w) inputs read as 3 rows, and Keras 1's Convolution2D(n, 3, 3) striding
    # by 3, until a pool has under 2 rows
    K = tf.keras
    model = K.models.Sequential()
    model.add(K.layers.Convolution2D(4, 3, 3, input_shape=(3, 15, 15)))
    model.add(K.layers.Activation('relu'))
    assert model.output_shape == (None, 1, 5, 4)
    with pytest.raises(ValueError) as e:
        model.add(K.layers.MaxPooling2D(pool_size=(2, 2)))
    assert _first_line(e) == (
        "Negative dimension size caused by subtracting 2 from 1 for 'max_pooling2d/MaxPool' "
        "(op: 'MaxPool') with input shapes: [?,1,5,4].")
    model = K.models.Sequential()
    model.add(K.layers.Conv2D(4, (3, 3), input_shape=(3, 15, 15)))
    with pytest.raises(ValueError) as e:
        model.add(K.layers.MaxPooling2D(pool_size=(2, 2)))
    assert _first_line(e) == (
        "Negative dimension size caused by subtracting 2 from 1 for 'max_pooling2d_1/MaxPool' "
        "(op: 'MaxPool') with input shapes: [?,1,13,4].")
    tf.reset_default_graph()
    model = K.models.Sequential()
    model.add(K.layers.ZeroPadding2D((1, 1), input_shape=(3, 32, 32)))
    model.add(K.layers.Convolution2D(8, 3, 3, activation='relu'))
    model.add(K.layers.ZeroPadding2D((1, 1)))
    model.add(K.layers.Convolution2D(8, 3, 3, activation='relu'))
    assert [la.output_shape for la in model.layers] == [
        (None, 5, 34, 32), (None, 1, 11, 8), (None, 3, 13, 8), (None, 1, 4, 8)]
    with pytest.raises(ValueError) as e:
        model.add(K.layers.MaxPooling2D((2, 2), strides=(2, 2)))
    assert _first_line(e) == (
        "Negative dimension size caused by subtracting 2 from 1 for 'max_pooling2d/MaxPool' "
        "(op: 'MaxPool') with input shapes: [?,1,4,8].")
    assert len(model.layers) == 4


def test_s39950311_keras1_dense_and_a_flat_image_to_predict():
    # ICSE2020/s39950311_original.py (keras -> tf.keras; MNIST -> 10 seeded rows of 16): Keras
    # 1's init= and nb_epoch=, then one flattened image given to predict
    K = tf.keras
    np.random.seed(7)
    m = K.models.Sequential()
    with pytest.raises(TypeError) as e:
        m.add(K.layers.Dense(16, input_dim=16, init='normal', activation='relu'))
    assert _first_line(e) == "('Keyword argument not understood:', 'init')"
    m.add(K.layers.Dense(16, input_dim=16, kernel_initializer='normal', activation='relu'))
    m.add(K.layers.Dense(3, kernel_initializer='normal', activation='softmax'))
    m.compile(loss='categorical_crossentropy', optimizer='adam', metrics=['accuracy'])
    X = np.random.rand(10, 16).astype('float32')
    Y = np.eye(3)[np.arange(10) % 3]
    h = m.fit(X, Y, validation_data=(X, Y), nb_epoch=2, batch_size=5, verbose=0)
    assert (h.params['epochs'], sorted(h.history)) == (2, ['acc', 'loss', 'val_acc', 'val_loss'])
    img = X[0].flatten() / 255
    with pytest.raises(ValueError) as e:
        m.predict(img)
    assert _first_line(e) == ("Error when checking input: expected dense_input to have shape "
                              "(16,) but got array with shape (1,)")
    assert m.predict(img[None]).shape == (1, 3)


def test_s40331510_s40430186_stacked_lstm_and_an_unbatched_image():
    # ICSE2020/s40331510_original.py (keras -> tf.keras): an LSTM after one that returns only
    # its last output; s40430186_original.py (a 64x64 photo -> 8x8 zeros): one image fed
    # without its batch axis
    K = tf.keras
    m = K.models.Sequential()
    m.add(K.layers.LSTM(10, input_shape=(5, 3)))
    with pytest.raises(ValueError) as e:
        m.add(K.layers.LSTM(10))
    assert _first_line(e) == ("Input 0 of layer lstm_1 is incompatible with the layer: "
                              "expected ndim=3, found ndim=2. Full shape received: [None, 10]")
    m2 = K.models.Sequential()
    m2.add(K.layers.LSTM(10, input_shape=(5, 3), return_sequences=True))
    m2.add(K.layers.LSTM(10))
    assert m2.output_shape == (None, 10)
    tf.reset_default_graph()
    image = np.zeros((8, 8, 3))
    with tf.name_scope('weights'):
        w = tf.Variable(tf.random_normal([5, 5, 3, 4]))
    assert repr(w) == "<tf.Variable 'weights/Variable:0' shape=(5, 5, 3, 4) dtype=float32_ref>"
    x_ = tf.placeholder(tf.float32, shape=[None, 8, 8, 3])
    y_ = tf.placeholder(tf.float32, shape=[None, 2])
    with tf.Session() as s:
        s.run(tf.initialize_all_variables())
        with pytest.raises(ValueError) as e:
            s.run(tf.argmax(y_, 1), feed_dict={x_: image})
        assert _first_line(e) == ("Cannot feed value of shape (8, 8, 3) for Tensor "
                                  "'Placeholder:0', which has shape '(?, 8, 8, 3)'")
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(tf.argmax(y_, 1), feed_dict={x_: image[None]})
        assert _first_line(e) == ("You must feed a value for placeholder tensor "
                                  "'Placeholder_1' with dtype float and shape [?,2]")


@pytest.mark.parametrize("shape", [4, None])
def test_s41604686_while_loop_over_a_placeholder_of_unknown_length(shape):
    # ICSE2020/s41604686_original.py (TensorArray.pack -> stack): with shape=(None) the
    # placeholder has no rank, so m's shape is unknown after one step (a build-time error)
    with tf.Graph().as_default(), tf.Session() as sess:
        initial_m = tf.Variable(0.0, name='m')
        inputs = tf.placeholder(dtype='float32', shape=shape)
        time_steps = tf.shape(inputs)[0]
        ta = tf.TensorArray(dtype=tf.float32, size=time_steps)

        def body(t, m, o):
            m = m * 0.5 + tf.gather(inputs, t) * 0.5
            return t + 1, m, o.write(t, m)

        if shape is None:
            with pytest.raises(ValueError) as e:
                tf.while_loop(lambda t, *args: t < time_steps, body,
                              [tf.constant(0, dtype='int32'), initial_m, ta])
            assert _first_line(e) == (
                "Input tensor 'm/read:0' enters the loop with shape (), but has shape <unknown> "
                "after one iteration. To allow the shape to vary across iterations, use the "
                "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.")
            return
        t, m, outputs = tf.while_loop(lambda t, *args: t < time_steps, body,
                                      [tf.constant(0, dtype='int32'), initial_m, ta])
        assert (str(t), str(m)) == ('Tensor("while/Exit:0", shape=(), dtype=int32)',
                                    'Tensor("while/Exit_1:0", shape=(), dtype=float32)')
        out = outputs.stack()
        assert str(out) == ('Tensor("TensorArrayStack/TensorArrayGatherV3:0", shape=(?,), '
                            'dtype=float32)')
        sess.run([tf.global_variables_initializer()])
        np.testing.assert_array_equal(
            sess.run(out, feed_dict={inputs: np.asarray([1, 1, 1, 1])}),
            np.array([0.5, 0.75, 0.875, 0.9375], np.float32))


def test_s41563720_s42855033_s43396572_keras1_model_calls():
    # ICSE2020/s41563720 (Keras 1's fit_generator keywords), s42855033 (Concatenate given
    # the models as its axis) and s43396572 (Conv1D's input_shape from the whole table)
    # (keras -> tf.keras; sizes shrunk). (TF 1.15 on Python 3.7 says "fit_generator() got
    # ..."; Python 3.10+ prefixes the class, Model in TF)
    K = tf.keras
    model = K.models.Sequential()
    model.add(K.layers.Conv2D(2, 3, 3, input_shape=(8, 8, 3)))
    model.add(K.layers.Flatten())
    model.compile('sgd', 'mse')

    def gen():
        while 1:
            for _ in range(1, 5):
                yield (np.ones((1, 8, 8, 3)), np.ones((1, 8)))

    with pytest.raises(TypeError) as e:
        model.fit_generator(gen(), samples_per_epoch=1, nb_epoch=1, nb_val_samples=5,
                            verbose=1, validation_data=gen())
    assert _first_line(e) == ("Model.fit_generator() got an unexpected keyword argument "
                              "'samples_per_epoch'")
    h = model.fit_generator(gen(), steps_per_epoch=2, epochs=1, verbose=0,
                            validation_data=gen(), validation_steps=1)
    assert (sorted(h.history), model.output_shape) == (['loss', 'val_loss'], (None, 8))
    first = K.models.Sequential()
    first.add(K.layers.Dense(1, input_shape=(2,), activation='sigmoid'))
    second = K.models.Sequential()
    second.add(K.layers.Dense(1, input_shape=(1,), activation='sigmoid'))
    result = K.models.Sequential()
    result.add(K.layers.Concatenate([first, second]))
    assert len(result.layers) == 1
    result.compile(optimizer=K.optimizers.Adagrad(lr=0.1, epsilon=1e-08, decay=0.0),
                   loss='mse', metrics=['accuracy'])
    assert str(K.layers.Concatenate()([first.output, second.output])) == (
        'Tensor("concatenate_1/concat:0", shape=(?, 2), dtype=float32)')
    np.random.seed(7)
    X = np.random.rand(10, 6)
    Y = (np.arange(10) % 2).astype(float)
    model = K.models.Sequential()
    model.add(K.layers.Conv1D(2, 2, activation='relu', input_shape=X.shape))
    assert model.output_shape == (None, 9, 2)
    model.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])
    with pytest.raises(ValueError) as e:
        model.fit(X, Y, epochs=1, batch_size=5, verbose=0)
    assert _first_line(e) == ("Error when checking input: expected conv1d_input to have 3 "
                              "dimensions, but got array with shape (10, 6)")
    with pytest.raises(ValueError) as e:
        model.fit(X[None], Y[None], epochs=1, batch_size=5, verbose=0)
    assert _first_line(e) == (
        "A target array with shape (1, 10) was passed for an output of shape (None, 9, 2) "
        "while using as loss `binary_crossentropy`. This loss expects targets to have the "
        "same shape as the output.")


def test_s42492824_integer_classes_to_categorical_crossentropy():
    # ICSE2020/s42492824_original.py (keras -> tf.keras; the sklearn pipeline dropped; sonar
    # CSV -> 8 seeded rows; maxnorm -> max_norm, the name tf.keras exports)
    K = tf.keras
    np.random.seed(7)
    m = K.models.Sequential()
    m.add(K.layers.Dropout(0.2, input_shape=(6,)))
    with pytest.raises(TypeError) as e:
        m.add(K.layers.Dense(6, init='normal', activation='relu',
                             W_constraint=K.constraints.max_norm(3)))
    assert _first_line(e) == "('Keyword argument not understood:', 'init')"
    m.add(K.layers.Dense(6, kernel_initializer='normal', activation='relu',
                         kernel_constraint=K.constraints.max_norm(3)))
    m.add(K.layers.Dense(5, kernel_initializer='normal', activation='softmax'))
    m.compile(loss='categorical_crossentropy', metrics=['accuracy'],
              optimizer=K.optimizers.SGD(lr=0.1, momentum=0.8, decay=0.0, nesterov=False))
    X = np.random.rand(8, 6)
    y = np.arange(8) % 2
    with pytest.raises(ValueError) as e:
        m.fit(X, y, epochs=1, batch_size=4, verbose=0)
    assert _first_line(e) == (
        "You are passing a target array of shape (8, 1) while using as loss "
        "`categorical_crossentropy`. `categorical_crossentropy` expects targets to be binary "
        "matrices (1s and 0s) of shape (samples, classes). If your targets are integer "
        "classes, you can convert them to the expected format via:")
    h = m.fit(X, np.eye(5)[y], epochs=2, batch_size=4, verbose=0,
              callbacks=[K.callbacks.EarlyStopping(monitor='acc', patience=10)])
    assert (sorted(h.history), len(h.history['loss'])) == (['acc', 'loss'], 2)


def test_s44472693_s34908033_s44847446_layers_reused_on_other_shapes():
    # ICSE2020/s44472693 (keras -> tf.keras; 784/128/64/32 -> 20/8/4): the autoencoder's last
    # layer reused on the code; s34908033 (matmul by a vector); s44847446 (one image, no
    # batch axis, to predict)
    K = tf.keras
    input_img = K.layers.Input(shape=(20,))
    e = K.layers.Dense(8, activation='relu')(input_img)
    e = K.layers.Dense(4, activation='relu')(e)
    d = K.layers.Dense(8, activation='relu')(e)
    d = K.layers.Dense(20, activation='sigmoid')(d)
    auto = K.models.Model(input_img, d)
    K.models.Model(input_img, e)
    ei = K.layers.Input(shape=(4,))
    dl = auto.layers[-1]
    assert (dl.name, dl.input_shape) == ('dense_3', (None, 8))
    with pytest.raises(ValueError) as ex:
        K.models.Model(ei, dl(ei))
    assert _first_line(ex) == (
        "Input 0 of layer dense_3 is incompatible with the layer: expected axis -1 of input "
        "shape to have value 8 but received input with shape [None, 4]")
    x = ei
    for la in auto.layers[-2:]:
        x = la(x)
    dec = K.models.Model(ei, x)
    assert (dec.output_shape, len(dec.layers)) == ((None, 20), 3)
    tf.reset_default_graph()
    x = tf.placeholder("float", shape=[2])
    T1 = tf.Variable(tf.ones([2, 2]))
    with pytest.raises(ValueError) as ex:
        tf.matmul(T1, x)
    assert _first_line(ex) == ("Shape must be rank 2 but is rank 1 for 'MatMul' (op: "
                               "'MatMul') with input shapes: [2,2], [2].")
    l1 = tf.matmul(T1, tf.expand_dims(x, 1))
    with tf.Session() as s:
        s.run(tf.initialize_all_variables())
        np.testing.assert_array_equal(s.run(l1, feed_dict={x: np.array([0.1, 0.2])}),
                                      np.array([[0.3], [0.3]], np.float32))
    tf.reset_default_graph()
    inp = K.layers.Input(shape=(16, 8, 1), name='the_input')
    m = K.models.Model(inp, K.layers.Conv2D(2, (3, 3), padding='same')(inp))
    img = np.zeros((8, 16)).transpose()
    img = img.reshape(img.shape + (1,))
    with pytest.raises(ValueError) as ex:
        m.predict(img)
    assert _first_line(ex) == ("Error when checking input: expected the_input to have 4 "
                               "dimensions, but got array with shape (16, 8, 1)")
    assert m.predict(img[None]).shape == (1, 16, 8, 2)


def test_s51155356_lstm_pooled_then_flattened():
    # ICSE2020/s51155356_original.py (100x50 -> 10x6 samples, 32 -> 3 units): runs, with
    # Keras 1's nb_epoch
    K = tf.keras
    rs = np.random.RandomState(0)
    trainX = np.array(rs.random_sample((10, 6, 1)), dtype=np.float32)
    trainY = np.array(rs.random_sample(10), dtype=np.float32)
    model = K.models.Sequential()
    model.add(K.layers.LSTM(3, input_shape=trainX.shape[1:], activation='tanh',
                            recurrent_activation='sigmoid', return_sequences=True))
    model.add(K.layers.AveragePooling1D(pool_size=2, strides=2, padding='valid'))
    model.add(K.layers.Flatten())
    model.add(K.layers.Dense(1))
    model.compile(loss='mean_squared_error', optimizer='adam')
    assert [la.output_shape for la in model.layers] == [
        (None, 6, 3), (None, 3, 3), (None, 9), (None, 1)]
    h = model.fit(trainX, trainY, validation_split=0.33, nb_epoch=1, batch_size=32, verbose=0)
    assert (sorted(h.history), h.params['samples'], h.params['epochs']) == (
        ['loss', 'val_loss'], 6, 1)


def test_s51755160_one_target_per_sample_for_a_multi_output_model():
    # ICSE2020/s51755160_original.py (keras -> tf.keras; 3 outputs, 5 samples): a list of
    # targets per sample, and loss weights per sample; TF 1.15's message shows the targets
    # as it made them ([n, 1] from 1-D)
    K = tf.keras
    text_input = K.layers.Input(shape=(1,))
    h = K.layers.Dense(8, activation='relu')(text_input)
    h = K.layers.Dense(4, activation='relu')(h)
    outs = [K.layers.Dense(2, activation='sigmoid')(h) for _ in range(3)]
    model = K.models.Model(inputs=text_input, outputs=outs)
    with pytest.raises(ValueError) as e:
        model.compile(optimizer='RMSprop', loss='binary_crossentropy', metrics=['accuracy'],
                      loss_weights=[0.2] * 5)
    assert _first_line(e) == (
        "When passing a list as loss_weights, it should have one entry per model output. The "
        "model has 3 outputs, but you passed loss_weights=[0.2, 0.2, 0.2, 0.2, 0.2]")
    model.compile(optimizer='RMSprop', loss='binary_crossentropy', metrics=['accuracy'],
                  loss_weights=[1 / 3.] * 3)
    prefix = ("Error when checking model target: the list of Numpy arrays that you are passing "
              "to your model is not the size the model expected. Expected to see 3 array(s), "
              "but instead got the following list of ")
    with pytest.raises(ValueError) as e:
        model.fit(np.arange(5.), [np.array([1, 0]) for _ in range(5)], epochs=1, verbose=0)
    assert str(e.value) == prefix + "5 arrays: [" + ", ".join(
        ["array([[1],\n       [0]])"] * 5) + "]..."
    with pytest.raises(ValueError) as e:
        model.fit(np.arange(2.), [[1, 2]] * 4, epochs=1, verbose=0)
    assert str(e.value) == prefix + "4 arrays: [" + ", ".join(
        ["array([[1],\n       [2]])"] * 4) + "]..."
    assert model.metrics_names == ['loss', 'dense_2_loss', 'dense_3_loss', 'dense_4_loss',
                                   'dense_2_acc', 'dense_3_acc', 'dense_4_acc']
    a = K.layers.Input(shape=(1,))
    b = K.layers.Input(shape=(2,))
    c = K.layers.Input(shape=(3,))
    three = K.models.Model(inputs=[a, b, c], outputs=K.layers.concatenate([a, b, c]))
    three.compile(optimizer='RMSprop', loss='mse')
    with pytest.raises(ValueError) as e:
        three.predict([np.arange(2.), np.zeros((2, 2))])
    assert str(e.value) == (
        "Error when checking model input: the list of Numpy arrays that you are passing to "
        "your model is not the size the model expected. Expected to see 3 array(s), but "
        "instead got the following list of 2 arrays: [array([[0.],\n       [1.]]), "
        "array([[0., 0.],\n       [0., 0.]])]...")


def test_s35295191_s42191656_embedded_ids_and_a_one_column_argmax():
    # ISSTA2018/s35295191 (embedding_lookup of [None, n] ids: [?, n, d], which matmul takes
    # as a batch) and s42191656 (XOR with SummaryWriter dropped, unseeded -> seeded, 100 ->
    # 20 steps: argmax over one column, so every prediction "matches")
    x = tf.placeholder(tf.int32, [None, 4])
    with tf.device('/cpu:0'), tf.name_scope("embedding"):
        W = tf.Variable(tf.random_uniform([10, 3], -1.0, 1.0), name="W")
        emb = tf.nn.embedding_lookup(W, x)
    assert str(emb) == ('Tensor("embedding/embedding_lookup/Identity:0", shape=(?, 4, 3), '
                        'dtype=float32, device=/device:CPU:0)')
    assert tf.matmul(emb, tf.Variable(tf.ones([3, 5]))).get_shape().as_list() == [None, 4, 5]
    tf.reset_default_graph()
    tf.set_random_seed(1)
    X = tf.placeholder(tf.float32, shape=[4, 2], name='x')
    Y = tf.placeholder(tf.float32, shape=[4, 1], name='y')
    W = tf.Variable(tf.random_uniform([2, 2], -1, 1), name='W')
    c = tf.Variable(tf.zeros([2]), name='c')
    w = tf.Variable(tf.random_uniform([2, 1], -1, 1), name='w')
    b = tf.Variable(tf.zeros([1]), name='b')
    Yhat1 = tf.matmul(tf.matmul(X, W) + c, w) + b
    ce = -tf.reduce_sum(Y * tf.log(tf.clip_by_value(Yhat1, 1e-10, 1.0)))
    step1 = tf.train.AdamOptimizer(0.01).minimize(ce)
    xd = [[0., 0.], [0., 1.], [1., 0.], [1., 1.]]
    yd = [[0], [1], [1], [0]]
    with tf.Session() as s:
        s.run(tf.initialize_all_variables())
        for _ in range(20):
            s.run(step1, feed_dict={X: xd, Y: yd})
        assert s.run(ce, feed_dict={X: xd, Y: yd}) == np.float32(0.23370299)
        acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(Y, 1), tf.argmax(Yhat1, 1)), tf.float32))
        r = s.run(acc, feed_dict={X: xd, Y: yd})
        assert 'accuracy: ' + str(r * 100) + '%' == 'accuracy: 100.0%'
