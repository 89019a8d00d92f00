"""StackOverflow-question TF 1.x programs of tensfa/tensfa (SFData/StackOverflow), each reduced
to a standalone form with small synthetic data: the mistake the question is about (a wrong
feed, a wrong shape, a wrong API use) is kept, and the test pins what TF 1.15
(tensorflow-cpu 1.15.0) printed and raised running the same reduced program (measured):
the error's class, its message's first line, and whether it came while building or running."""

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


def test_s36972087_one_row_fed_to_a_batch_placeholder():
    # s36972087_original.py: x1[0] (a row of 19) fed to a [None, 19] placeholder, with the
    # variables initialized before the model was built (harmless) in an InteractiveSession
    sess = tf.InteractiveSession()
    try:
        x = tf.placeholder(tf.float32, shape=[None, 19])
        y_ = tf.placeholder(tf.float32, shape=[None, 2])
        W = tf.Variable(tf.zeros([19, 2]))
        b = tf.Variable(tf.zeros([2]))
        sess.run(tf.initialize_all_variables())
        y = tf.nn.softmax(tf.matmul(x, W) + b)
        ce = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1]))
        step = tf.train.GradientDescentOptimizer(0.5).minimize(ce)
        x1 = np.arange(38, dtype=np.float32).reshape(-1, 19)
        y1 = np.array([[1, 0], [0, 1]], np.float32)
        step.run(feed_dict={x: x1, y_: y1})
        with pytest.raises(ValueError) as e:
            step.run(feed_dict={x: x1[0], y_: y1[0]})
        assert _first_line(e) == ("Cannot feed value of shape (19,) for Tensor 'Placeholder:0', "
                                  "which has shape '(?, 19)'")
    finally:
        sess.close()


def test_s39009808_static_bidirectional_rnn_sequence_length_scalar():
    # s39009808_original.py (tf.split(x, 3, 1) in 1.x order; bidirectional_rnn -> its 1.x name)
    x = tf.zeros([2, 3, 4])
    xs = [tf.squeeze(i, [1]) for i in tf.split(x, 3, 1)]
    assert str(xs[0]) == 'Tensor("Squeeze:0", shape=(2, 4), dtype=float32)'
    fw = tf.nn.rnn_cell.GRUCell(5)
    bw = tf.nn.rnn_cell.GRUCell(5)
    with pytest.raises(ValueError) as e:
        tf.nn.static_bidirectional_rnn(
            fw, bw, xs, sequence_length=3, initial_state_fw=fw.zero_state(2, tf.float32),
            initial_state_bw=bw.zero_state(2, tf.float32))
    assert _first_line(e) == "sequence_length must be a vector of length batch_size"
    out = tf.nn.static_bidirectional_rnn(
        fw, bw, xs, sequence_length=[3, 3], initial_state_fw=fw.zero_state(2, tf.float32),
        initial_state_bw=bw.zero_state(2, tf.float32))
    assert len(out) == 3
    assert str(out[0][0]) == 'Tensor("concat:0", shape=(2, 10), dtype=float32)'
    assert str(out[1]) == ('Tensor("bidirectional_rnn_1/fw/fw/cond_2/Merge_1:0", shape=(2, 5), '
                           'dtype=float32)')


def test_s46918759_row_norms_divide_the_columns():
    # s46918759_original.py: embeddings / norm_embed divides [4, 3] by [4] (a build-time
    # error); with 4 columns it broadcasts along the rows, and where's vector condition
    # picks whole rows
    emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10.)
    norm = tf.sqrt(tf.reduce_sum(tf.multiply(emb, emb), 1))
    comp = tf.greater(norm, tf.constant(1.))
    assert str(comp) == 'Tensor("Greater:0", shape=(4,), dtype=bool)'
    with pytest.raises(ValueError) as e:
        tf.assign(emb, tf.where(comp, emb / norm, emb))
    assert _first_line(e) == ("Dimensions must be equal, but are 3 and 4 for 'truediv' (op: "
                              "'RealDiv') with input shapes: [4,3], [4].")
    e2 = tf.Variable(np.arange(16, dtype=np.float32).reshape(4, 4) / 10.)
    n2 = tf.sqrt(tf.reduce_sum(tf.multiply(e2, e2), 1))
    a = tf.assign(e2, tf.where(tf.greater(n2, tf.constant(1.)), e2 / n2, e2))
    assert str(a) == 'Tensor("Assign:0", shape=(4, 4), dtype=float32_ref)'
    n3 = tf.sqrt(tf.reduce_sum(tf.multiply(emb, emb), 1, keepdims=True))
    a3 = tf.assign(emb, tf.where(comp, emb / n3, emb))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(a), np.array(
            [[0., 0.1, 0.2, 0.3],
             [1.0690448, 0.4454354, 0.31362504, 0.25837472],
             [2.1380897, 0.80178374, 0.52270836, 0.40601745],
             [3.2071347, 1.1581321, 0.73179173, 0.55366015]], np.float32))
        np.testing.assert_array_equal(s.run(a3), np.array(
            [[0., 0.1, 0.2], [0.3, 0.4, 0.5], [0.49153918, 0.57346237, 0.65538555],
             [0.51789176, 0.57543534, 0.6329789]], np.float32))


def test_s47482082_batch_of_placeholders():
    # s47482082_original.py: tf.train.batch over [None, n] placeholders instead of the
    # records read
    images = tf.placeholder(tf.float32, shape=[None, 16])
    labels = tf.placeholder(tf.int32, shape=[None, 5])
    tf.train.slice_input_producer([images, labels], num_epochs=10, shuffle=False)
    with pytest.raises(ValueError) as e:
        tf.train.batch([images, labels], batch_size=10)
    assert _first_line(e) == (
        "All shapes must be fully defined: [TensorShape([Dimension(None), Dimension(16)]), "
        "TensorShape([Dimension(None), Dimension(5)])]")


def test_s46911972_integer_labels_fed_to_one_hot_placeholder():
    # s46911972_original.py (sonar CSV -> seeded rows): LabelEncoder's 1-D labels fed to a
    # [None, 2] placeholder
    X = tf.placeholder("float", [None, 6])
    Y = tf.placeholder("float", [None, 2])
    tf.set_random_seed(1)
    w = tf.Variable(tf.random_normal([6, 2]))
    logits = tf.nn.relu(tf.matmul(X, w))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    tx = np.random.RandomState(0).rand(5, 6)
    ty = np.array([0, 1, 1, 0, 1])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(ValueError) as e:
            s.run(train, feed_dict={X: tx, Y: ty})
        assert _first_line(e) == ("Cannot feed value of shape (5,) for Tensor "
                                  "'Placeholder_1:0', which has shape '(?, 2)'")
        assert s.run(loss, feed_dict={X: tx, Y: np.eye(2)[ty]}) == np.float32(0.7253686)


def test_s45212271_flatten_to_the_input_size_not_the_pooled_size():
    # s45212271_original.py (224x224 -> 8x8): the pooled maps reshaped to [-1, h*w*3] (a
    # run-time error), then a slice past the data (i += 100) fed as an empty batch
    x = tf.placeholder('float', [None, 8, 8, 3])
    y = tf.placeholder('float')
    tf.set_random_seed(3)
    w1 = tf.Variable(tf.random_normal([5, 5, 3, 4]))
    w2 = tf.Variable(tf.random_normal([5, 5, 4, 8]))
    pool = [1, 2, 2, 1]
    c1 = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], 'SAME')), pool, pool, 'SAME')
    c2 = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(c1, w2, [1, 1, 1, 1], 'SAME')), pool, pool, 'SAME')
    fc = tf.reshape(c2, [-1, 8 * 8 * 3])
    assert str(c2) == 'Tensor("MaxPool_1:0", shape=(?, 2, 2, 8), dtype=float32)'
    assert str(fc) == 'Tensor("Reshape:0", shape=(?, 192), dtype=float32)'
    out = tf.matmul(fc, tf.Variable(tf.random_normal([8 * 8 * 3, 5])))
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=out, labels=y))
    assert str(cost) == 'Tensor("Mean:0", shape=(), dtype=float32)'
    opt = tf.train.AdamOptimizer().minimize(cost)
    tx = np.ones((3, 8, 8, 3), np.float32)
    ty = np.eye(5)[:3]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run([opt, cost], feed_dict={x: tx[0:1], y: ty[0:1]})
        assert _first_line(e) == ("Input to reshape is a tensor with 32 values, but the "
                                  "requested shape requires a multiple of 192")
        assert np.isnan(s.run([opt, cost], feed_dict={x: tx[100:101], y: ty[100:101]})[1])


def test_s43676638_static_rnn_fed_class_ids():
    # s43676638_original.py (MNIST with one_hot=False -> zeros and two class ids)
    x = tf.placeholder("float", [None, 4, 3])
    y = tf.placeholder("float", [None, 10])
    xs = tf.split(tf.reshape(tf.transpose(x, [1, 0, 2]), [-1, 3]), 4, 0)
    cell = tf.contrib.rnn.BasicLSTMCell(6, forget_bias=1.0)
    outs, st = tf.contrib.rnn.static_rnn(cell, xs, dtype=tf.float32)
    assert str(outs[-1]) == 'Tensor("rnn/basic_lstm_cell/Mul_11:0", shape=(?, 6), dtype=float32)'
    assert str(st.c) == 'Tensor("rnn/basic_lstm_cell/Add_7:0", shape=(?, 6), dtype=float32)'
    pred = tf.matmul(outs[-1], tf.Variable(tf.ones([6, 10])))
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=pred))
    opt = tf.train.AdamOptimizer(0.01).minimize(cost)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        with pytest.raises(ValueError) as e:
            s.run(opt, feed_dict={x: np.zeros((2, 4, 3)), y: np.array([3, 7])})
        assert _first_line(e) == ("Cannot feed value of shape (2,) for Tensor "
                                  "'Placeholder_1:0', which has shape '(?, 10)'")
    tf.train.Saver(tf.all_variables())


def test_s47739707_cond_on_a_vector():
    # s47739707_original.py: numpy.newaxis indexing a tensor, Variable(x, 'float32') (the
    # dtype lands in trainable), and tf.cond on a vector predicate
    X = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    mean = tf.reduce_mean(X, axis=1)
    X2 = X - mean[:, np.newaxis]
    assert str(X2) == 'Tensor("sub:0", shape=(3, 4), dtype=float32)'
    assert not hasattr(tf, 'copy')
    assert (X2.get_shape()[1] == 1, X2.get_shape()[1] == 4) == (False, True)
    normalizers = tf.sqrt(0. + tf.reduce_sum((X2 ** 2), axis=1)) / 1.
    N = tf.Variable(normalizers, 'float32')
    M = tf.Variable(1e-8, 'float32')
    assert (repr(N), repr(M)) == ("<tf.Variable 'Variable:0' shape=(3,) dtype=float32_ref>",
                                  "<tf.Variable 'Variable_1:0' shape=() dtype=float32_ref>")
    assert N.trainable == 'float32'
    assert len(tf.trainable_variables()) == 2
    with pytest.raises(ValueError) as e:
        tf.cond(tf.less_equal(N, M), lambda: tf.assign(N, [1]), lambda: tf.assign(N, normalizers))
    assert _first_line(e) == ("Shape must be rank 0 but is rank 1 for 'cond/Switch' (op: "
                              "'Switch') with input shapes: [3], [3].")
    X3 = X2 / N[:, tf.newaxis]
    assert str(X3) == 'Tensor("truediv_1:0", shape=(3, 4), dtype=float32)'
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(
            s.run(X3), np.tile(np.array([-0.67082036, -0.2236068, 0.2236068, 0.67082036],
                                        np.float32), (3, 1)))


def test_s48951409_lstm_input_shape_from_the_whole_table():
    # s48951409_original.py (keras -> tf.keras; DataFrame -> array): input_shape=X.shape
    # makes the LSTM expect [None, 20, 6], then fit is given the 2-D table
    K = tf.keras
    Xv = np.random.RandomState(0).rand(20, 6).astype(np.float32)
    Yv = np.eye(10)[np.arange(20) % 10]
    model = K.models.Sequential()
    model.add(K.layers.LSTM(4, return_sequences=True, input_shape=Xv.shape))
    model.add(K.layers.LSTM(4, return_sequences=True))
    model.add(K.layers.LSTM(4))
    model.add(K.layers.Dense(10, activation="softmax"))
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=['accuracy'])
    assert (model.input_shape, model.output_shape) == ((None, 20, 6), (None, 10))
    with pytest.raises(ValueError) as e:
        model.fit(Xv, Yv, batch_size=5, epochs=1, validation_split=0.05, verbose=0)
    assert _first_line(e) == ("Error when checking input: expected lstm_input to have 3 "
                              "dimensions, but got array with shape (20, 6)")


def test_s50364194_stateful_lstm_sample_count():
    # s50364194_original.py (keras -> tf.keras; sizes shrunk): a stateful LSTM of batch 4
    # fit on 10 samples; TF 1.15 checks the count after the inputs' ranks
    K = tf.keras
    inputs = K.layers.Input(batch_shape=(4, None, 1))
    lay1 = K.layers.LSTM(3, stateful=True, return_sequences=True)(inputs)
    reg = K.models.Model(inputs=inputs, outputs=K.layers.Dense(units=1)(lay1))
    reg.compile(optimizer='adam', loss='mae')
    assert (reg.input_shape, reg.output_shape) == ((4, None, 1), (4, None, 1))
    rs = np.random.RandomState(1)
    expected = [
        ("In a stateful network, you should only pass inputs with a number of samples that "
        "can be divided by the batch size. Found: 10 samples"),
        ("Error when checking input: expected input_1 to have 3 dimensions, but got array "
        "with shape (8, 5)"),
        ("Error when checking input: expected input_1 to have 3 dimensions, but got array "
        "with shape (10, 5)")]
    for (xs, ys), message in zip((((10, 5, 1), (10, 5, 1)), ((8, 5), (8,)), ((10, 5), (10, 1))),
                                 expected):
        with pytest.raises(ValueError) as e:
            reg.fit(rs.rand(*xs), rs.rand(*ys), shuffle=False, epochs=1, batch_size=4, verbose=0)
        assert _first_line(e) == message
        reg.reset_states()


def test_stateful_sample_count_in_evaluate_and_nested_models():
    # (s50364194's check measured further in TF 1.15: evaluate and fit with validation_split
    # check the whole count, a model holding the stateful model checks it too; fit with
    # another batch_size fails on that first)
    K = tf.keras
    m = K.models.Sequential([K.layers.LSTM(3, stateful=True, batch_input_shape=(4, 2, 1)),
                             K.layers.Dense(1)])
    m.compile('sgd', 'mse')
    rs = np.random.RandomState(2)
    msg = ("In a stateful network, you should only pass inputs with a number of samples that "
           "can be divided by the batch size. Found: 6 samples")
    with pytest.raises(ValueError) as e:
        m.evaluate(rs.rand(6, 2, 1), rs.rand(6, 1), verbose=0)
    assert _first_line(e) == msg
    assert m.predict(rs.rand(8, 2, 1)).shape == (8, 1)
    with pytest.raises(ValueError) as e:
        m.fit(rs.rand(6, 2, 1), rs.rand(6, 1), verbose=0, validation_split=0.5)
    assert _first_line(e) == msg
    with pytest.raises(ValueError) as e:
        m.fit(rs.rand(6, 2, 1), rs.rand(6, 1), batch_size=2, verbose=0)
    assert _first_line(e) == ("The `batch_size` argument value 2 is incompatible with the "
                              "specified batch size of your Input Layer: 4")
    inp = K.layers.Input(batch_shape=(4, 2, 1))
    outer = K.models.Model(inp, m(inp))
    outer.compile('sgd', 'mse')
    with pytest.raises(ValueError) as e:
        outer.fit(rs.rand(6, 2, 1), rs.rand(6, 1), verbose=0)
    assert _first_line(e) == msg


def test_s50448601_one_hot_labels_to_a_sparse_loss():
    # s50448601_original.py (the Estimator's model_fn reduced to its loss and metric)
    labels = tf.one_hot(tf.constant([0, 0, 1, 1, 1, 1, 1, 0, 0, 0]), 2)
    assert str(labels[0]) == 'Tensor("strided_slice:0", shape=(2,), dtype=float32)'
    logits = tf.layers.dense(tf.ones([10, 3]), units=2)
    with pytest.raises(ValueError) as e:
        tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    assert _first_line(e) == (
        "Can not squeeze dim[1], expected a dimension of 1, got 2 for "
        "'sparse_softmax_cross_entropy_loss/remove_squeezable_dimensions/Squeeze' (op: "
        "'Squeeze') with input shapes: [10,2].")
    with pytest.raises(ValueError) as e:
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert _first_line(e) == ("Rank mismatch: Rank of labels (received 2) should equal rank "
                              "of logits minus 1 (received 2).")
    loss = tf.losses.softmax_cross_entropy(onehot_labels=labels, logits=logits)
    assert str(loss) == 'Tensor("softmax_cross_entropy_loss/value:0", shape=(), dtype=float32)'
    assert tf.get_collection(tf.GraphKeys.LOSSES) == [loss]
    with pytest.raises(ValueError) as e:
        tf.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, 1))
    assert _first_line(e) == (
        "Can not squeeze dim[1], expected a dimension of 1, got 2 for "
        "'remove_squeezable_dimensions/Squeeze' (op: 'Squeeze') with input shapes: [10,2].")
