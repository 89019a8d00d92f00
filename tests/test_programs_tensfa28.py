"""StackOverflow-question TF 1.x programs of tensfa/tensfa (SFData/StackOverflow), each reduced
to a standalone form with small synthetic data: the mistake the question is about (a wrong
feed, a wrong shape, a wrong API use) is kept, and the test pins what TF 1.15
(tensorflow-cpu 1.15.0) printed and raised running the same reduced program (measured):
the error's class, its message's first line, and whether it came while building or running."""

import re

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


def test_s33762831_seq2seq_fed_rank_1_integer_ids():
    # ICSE2020/s33762831_original.py (tensorflow.models.rnn -> contrib.legacy_seq2seq; 350/45
    # steps -> 3/2): [None] int32 ids given to basic_rnn_seq2seq: TF 1.15 names the rank
    # before the dtype
    enc = [tf.placeholder(tf.int32, shape=[None], name=f"encoder{i}") for i in range(3)]
    dec = [tf.placeholder(tf.int32, shape=[None], name=f"decoder{i}") for i in range(2)]
    with pytest.raises(ValueError) as e:
        tf.contrib.legacy_seq2seq.basic_rnn_seq2seq(enc, dec, tf.nn.rnn_cell.BasicLSTMCell(8))
    assert _first_line(e) == (
        "Input 0 of layer basic_lstm_cell_1 is incompatible with the layer: expected ndim=2, "
        "found ndim=1. Full shape received: [None]")
    tf.reset_default_graph()
    enc = [tf.placeholder(tf.float32, shape=[None, 4]) for i in range(3)]
    dec = [tf.placeholder(tf.float32, shape=[None, 4]) for i in range(2)]
    outs, st = tf.contrib.legacy_seq2seq.basic_rnn_seq2seq(enc, dec,
                                                           tf.nn.rnn_cell.BasicLSTMCell(8))
    assert [str(o) for o in outs] == [
        'Tensor("basic_rnn_seq2seq/rnn_decoder/basic_lstm_cell/Mul_2:0", shape=(?, 8), dtype=float32)',
        'Tensor("basic_rnn_seq2seq/rnn_decoder/basic_lstm_cell/Mul_5:0", shape=(?, 8), dtype=float32)']
    assert str(st.c) == ('Tensor("basic_rnn_seq2seq/rnn_decoder/basic_lstm_cell/Add_3:0", '
                         'shape=(?, 8), dtype=float32)')


@pytest.mark.parametrize("make, name", [
    (lambda: tf.nn.rnn_cell.BasicLSTMCell(4), "basic_lstm_cell_1"),
    (lambda: tf.nn.rnn_cell.GRUCell(4), "gru_cell_1"),
    (lambda: tf.nn.rnn_cell.BasicRNNCell(4), "basic_rnn_cell_1"),
    (lambda: tf.nn.rnn_cell.LSTMCell(4), "lstm_cell_1")])
def test_rnn_cell_integer_inputs_rank_checked_first(make, name):
    # (s33762831's case measured further in TF 1.15: each cell called directly)
    expected = {
        (None,): f"Input 0 of layer {name} is incompatible with the layer: expected ndim=2, "
                 "found ndim=1. Full shape received: [None]",
        (None, 3): "RNN cell only supports floating point inputs, but saw dtype: "
                   "<dtype: 'int32'>",
        (2, 3, 1): f"Input 0 of layer {name} is incompatible with the layer: expected ndim=2, "
                   "found ndim=3. Full shape received: [2, 3, 1]"}
    for shape, message in expected.items():
        tf.reset_default_graph()
        cell = make()
        x = tf.placeholder(tf.int32, list(shape))
        with pytest.raises(ValueError) as e:
            cell(x, cell.zero_state(2, tf.float32))
        assert _first_line(e) == message


def test_s33889366_flatten_size_of_another_image():
    # ICSE2020/s33889366_original.py (388x191 -> 20x12 images, 32/64/1024 -> 4/8/2 units):
    # the pooled maps flattened as MNIST's 7*7*c, a run-time reshape error in eval and run
    rs = np.random.RandomState(0)
    images = np.array(rs.random_sample((10, 20 * 12)), dtype=np.float32)
    labels = np.eye(2)[rs.randint(0, 2, 10)]
    sess = tf.InteractiveSession()
    try:
        x = tf.placeholder("float", shape=[None, 240])
        y_ = tf.placeholder("float", shape=[None, 2])
        tf.set_random_seed(0)
        W1 = tf.Variable(tf.truncated_normal([5, 5, 1, 4], stddev=0.1))
        xi = tf.reshape(x, [-1, 20, 12, 1])
        pool = [1, 2, 2, 1]
        h1 = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(xi, W1, [1] * 4, "SAME") + 0.1), pool, pool, "SAME")
        W2 = tf.Variable(tf.truncated_normal([5, 5, 4, 8], stddev=0.1))
        h2 = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(h1, W2, [1] * 4, "SAME") + 0.1), pool, pool, "SAME")
        flat = tf.reshape(h2, [-1, 7 * 7 * 8])
        assert str(h2) == 'Tensor("MaxPool_1:0", shape=(?, 5, 3, 8), dtype=float32)'
        assert str(flat) == 'Tensor("Reshape_1:0", shape=(?, 392), dtype=float32)'
        Wf = tf.Variable(tf.truncated_normal([7 * 7 * 8, 2], stddev=0.1))
        keep_prob = tf.placeholder("float")
        y = tf.nn.softmax(tf.matmul(tf.nn.dropout(flat, keep_prob), Wf))
        step = tf.train.AdamOptimizer(1e-4).minimize(-tf.reduce_sum(y_ * tf.log(y)))
        acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1)), "float"))
        sess.run(tf.initialize_all_variables())
        message = ("Input to reshape is a tensor with 1200 values, but the requested shape "
                   "requires a multiple of 392")
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            acc.eval(feed_dict={x: images, y_: labels, keep_prob: 1.0})
        assert _first_line(e) == message
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            step.run(feed_dict={x: images, y_: labels, keep_prob: 0.5})
        assert _first_line(e) == message
    finally:
        sess.close()


def test_s33974231_rows_reshaped_to_smaller_images():
    # ICSE2020/s33974231_original.py (9216 -> 96 inputs, 28x28 -> 8x8): a batch divides into
    # whole images only by chance; MNIST's rows fed to the wider placeholder
    X = tf.placeholder(tf.float32, [None, 96])
    x = tf.reshape(X, shape=[-1, 8, 8, 1])
    assert str(x) == 'Tensor("Reshape:0", shape=(?, 8, 8, 1), dtype=float32)'
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(x, {X: np.zeros((1, 96))})
        assert _first_line(e) == ("Input to reshape is a tensor with 96 values, but the "
                                  "requested shape requires a multiple of 64")
        assert s.run(x, {X: np.zeros((2, 96))}).shape == (3, 8, 8, 1)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(x, {X: np.zeros((3, 96))})
        assert _first_line(e) == ("Input to reshape is a tensor with 288 values, but the "
                                  "requested shape requires a multiple of 64")
        with pytest.raises(ValueError) as e:
            s.run(x, {X: np.zeros((2, 64))})
        assert _first_line(e) == ("Cannot feed value of shape (2, 64) for Tensor "
                                  "'Placeholder:0', which has shape '(?, 96)'")


def test_s34079787_variable_of_a_run_time_shape():
    # ICSE2020/s34079787_original.py (tf.pack -> tf.stack): the name given as stack's axis,
    # then a Variable whose initial value's shape is known only at run time
    input_data = tf.placeholder(tf.float32, [None, None])
    labels = tf.placeholder(tf.float32, [None, None])
    input_size = tf.shape(input_data)[1]
    num_classes = tf.shape(labels)[1]
    stddev = 1.0 / tf.cast(input_size, tf.float32)
    with pytest.raises(TypeError) as e:
        tf.stack([input_size, num_classes], 'w-shape')
    assert _first_line(e) == "'<' not supported between instances of 'str' and 'int'"
    w_shape = tf.stack([input_size, num_classes], name='w-shape')
    assert str(w_shape) == 'Tensor("w-shape:0", shape=(2,), dtype=int32)'
    nd = tf.truncated_normal(w_shape, stddev=stddev, name='normaldist')
    with pytest.raises(ValueError) as e:
        tf.Variable(nd, name='weights')
    assert _first_line(e) == ('initial_value must have a shape specified: '
                              'Tensor("normaldist:0", shape=(?, ?), dtype=float32)')
    w = tf.Variable(nd, name='weights2', validate_shape=False)
    assert repr(w) == "<tf.Variable 'weights2:0' shape=<unknown> dtype=float32_ref>"
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(w.initializer)
        # (TF 1.15 names whichever unfed placeholder its executor reaches first: either)
        assert re.fullmatch(r"You must feed a value for placeholder tensor 'Placeholder(_1)?' "
                            r"with dtype float and shape \[\?,\?\]", _first_line(e))
        s.run(w.initializer, {input_data: np.zeros((2, 3)), labels: np.zeros((2, 4))})
        assert s.run(w).shape == (3, 4)


def test_s34311893_scalar_placeholder_fed_the_whole_column():
    # ICSE2020/s34311893_original.py (40 -> 6 points, 10 -> 4 units, 1000 epochs -> 1): a
    # shapeless placeholder times a [1, 4] weight, then fed all x at once; the cost's value
    # fetched as if it were a tensor
    X = tf.placeholder("float")
    Y = tf.placeholder("float")
    tf.set_random_seed(0)
    W1 = tf.Variable(tf.truncated_normal([1, 4], stddev=0.1))
    b1 = tf.Variable(tf.constant(0.1, shape=[1, 4]))
    mul = X * W1
    assert str(mul) == 'Tensor("mul:0", dtype=float32)'
    h1 = tf.nn.sigmoid(mul) + b1
    W2 = tf.Variable(tf.truncated_normal([4, 1], stddev=0.1))
    b2 = tf.Variable(tf.constant(0.1, shape=[1]))
    act = tf.nn.sigmoid(tf.matmul(h1, W2) + b2)
    l2 = tf.reduce_sum(tf.pow(act - Y, 2)) / (2 * 6)
    assert (str(act), str(l2)) == ('Tensor("Sigmoid_1:0", dtype=float32)',
                                   'Tensor("truediv:0", shape=(), dtype=float32)')
    opt = tf.train.GradientDescentOptimizer(0.01).minimize(l2)
    tX = np.arange(-3., 3.)
    tY = tX ** 2
    with tf.Session() as s:
        s.run(tf.initialize_all_variables())
        for (a, b) in zip(tX, tY):
            s.run(opt, feed_dict={X: a, Y: b})
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(l2, feed_dict={X: tX, Y: tY})
        assert _first_line(e) == "Incompatible shapes: [6] vs. [1,4]"
        cost = s.run(l2, feed_dict={X: 1.0, Y: 1.0})
        assert (type(cost).__name__, f"{cost:.9f}") == ("float32", "0.019190077")
        with pytest.raises(TypeError) as e:
            s.run(cost, feed_dict={X: tX, Y: tY})
        assert _first_line(e) == (
            "Fetch argument 0.019190077 has invalid type <class 'numpy.float32'>, must be a "
            "string or Tensor. (Can not convert a float32 into a Tensor or Operation.)")


def test_s35673874_batch_tensors_fed_back():
    # ICSE2020/s35673874_original.py (JPEG reader -> a constant image, 32x32 -> 2x2): the
    # batches of already-batched [1, h, w, c] images, and slices of them given as feeds
    image = tf.constant(np.arange(2 * 2 * 3, dtype=np.uint8).reshape(2, 2, 3))
    flipped = tf.image.flip_up_down(image)
    assert str(flipped) == 'Tensor("flip_up_down/ReverseV2:0", shape=(2, 2, 3), dtype=uint8)'
    image = tf.reshape(tf.cast(flipped, tf.float32), [-1, 2, 2, 3])
    label = tf.reshape(tf.constant([1]), [-1, 1])
    assert str(image) == 'Tensor("Reshape:0", shape=(1, 2, 2, 3), dtype=float32)'
    ib = tf.train.batch([image], batch_size=2)
    lb = tf.train.batch([label], batch_size=2)
    assert (str(ib), str(lb)) == ('Tensor("batch:0", shape=(2, 1, 2, 2, 3), dtype=float32)',
                                  'Tensor("batch_1:0", shape=(2, 1, 1), dtype=int32)')
    x = tf.placeholder(tf.float32, shape=[None, 2, 2, 3])
    y_ = tf.placeholder(tf.float32, shape=[None, 1])
    out = tf.reduce_sum(x) + tf.reduce_sum(y_)
    assert str(ib[1]) == 'Tensor("strided_slice:0", shape=(1, 2, 2, 3), dtype=float32)'
    with tf.Session() as s:
        with pytest.raises(TypeError) as e:
            s.run(out, feed_dict={x: ib[0:1], y_: lb[0:1]})
        assert _first_line(e) == (
            "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
            "Python scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, "
            "the tensor object was Tensor(\"strided_slice_1:0\", shape=(1, 1, 2, 2, 3), "
            "dtype=float32) which was passed to the feed with key Tensor(\"Placeholder:0\", "
            "shape=(?, 2, 2, 3), dtype=float32).")
