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
