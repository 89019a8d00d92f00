"""The long tail of TF 1.x programs, part 2 of 3: as in test_programs_longtail28.py, each
program reduced and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: BLE001, F401, F841, I001, RUF059, UP004, UP032, UP034

import pytest
from tests.printed_programs import same_printed

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    # (a program may call tf.reset_default_graph() itself, which a nested graph refuses)
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _printed(capsys, expected):
    assert capsys.readouterr().out.splitlines() == expected.splitlines()


def test_save_then_import_meta_graph_restore(capsys, tmp_path):
    # jiayi-ma/STMFusionNet test.py with the saving half it restores, and zzfancitizen/demoJam_2017 model_restore.py (reduced)
    import os
    import numpy as np
    # jiayi-ma/STMFusionNet test.py (the w1/w2/bias/op_to_restore restore session) with the saving half it restores,
    # and zzfancitizen/demoJam_2017 model_restore.py (import_meta_graph, latest_checkpoint, get_tensor_by_name)
    d = str(tmp_path)
    w1 = tf.placeholder("float", name="w1")
    w2 = tf.placeholder("float", name="w2")
    b1 = tf.Variable(2.0, name="bias")
    feed_dict = {w1: 4, w2: 8}
    w3 = tf.add(w1, w2)
    w4 = tf.multiply(w3, b1, name="op_to_restore")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    saver = tf.train.Saver()
    print(sess.run(w4, feed_dict))
    print(os.path.basename(saver.save(sess, os.path.join(d, 'my_test_model'), global_step=1000)))
    print(sorted(os.listdir(d)))
    sess.close()
    tf.reset_default_graph()
    sess=tf.Session()
    saver = tf.train.import_meta_graph(os.path.join(d, 'my_test_model-1000.meta'))
    print(os.path.basename(tf.train.latest_checkpoint(d)))
    saver.restore(sess,tf.train.latest_checkpoint(d))
    print(sess.run('bias:0'))
    graph = tf.get_default_graph()
    w1 = graph.get_tensor_by_name("w1:0")
    w2 = graph.get_tensor_by_name("w2:0")
    feed_dict ={w1:13.0,w2:17.0}
    op_to_restore = graph.get_tensor_by_name("op_to_restore:0")
    print(op_to_restore, w1)
    print(sess.run(op_to_restore,feed_dict))
    add_on_op = tf.multiply(op_to_restore, 2)
    print(sess.run(add_on_op,feed_dict), add_on_op)
    print([n.name for n in graph.as_graph_def().node][:8], len(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)))
    sess.close()
    tf.reset_default_graph()
    MODEL_PATH = os.path.join(d, 'temp_simple_model')
    with tf.name_scope('input_layer'):
        x_input = tf.placeholder(tf.float32, [None, 1], name='x_input')
    with tf.name_scope('output_layer'):
        W = tf.Variable([[3.]], name='W'); bb = tf.Variable([1.], name='b')
        tf.add(tf.matmul(x_input, W), bb, name='predict')
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, MODEL_PATH + os.path.sep + 'model.ckpt')
    tf.reset_default_graph()
    with tf.Session() as sess:
        saver = tf.train.import_meta_graph(MODEL_PATH + os.path.sep + 'model.ckpt.meta')
        saver.restore(sess, tf.train.latest_checkpoint(MODEL_PATH))
        graph = tf.get_default_graph()
        xs = graph.get_tensor_by_name("input_layer/x_input:0")
        logits = graph.get_tensor_by_name("output_layer/predict:0")
        predict = sess.run(logits, feed_dict={
            xs: np.reshape([[5.]], (-1, 1))
        })
        print(predict, logits)

    _printed(capsys, """\
24.0
my_test_model-1000
['checkpoint', 'my_test_model-1000.data-00000-of-00001', 'my_test_model-1000.index', 'my_test_model-1000.meta']
my_test_model-1000
2.0
Tensor("op_to_restore:0", dtype=float32) Tensor("w1:0", dtype=float32)
60.0
120.0 Tensor("Mul:0", dtype=float32)
['w1', 'w2', 'bias/initial_value', 'bias', 'bias/Assign', 'bias/read', 'Add', 'op_to_restore'] 1
[[16.]] Tensor("output_layer/predict:0", shape=(?, 1), dtype=float32)
""")


def test_image_augmentation_chain(capsys, tmp_path):
    # emilemathieu/ImageClassificationChallenge code/draft_data_augmenting.py (reduced)
    import numpy as np
    # emilemathieu/ImageClassificationChallenge code/draft_data_augmenting.py (on a seeded random 12x12 image)
    tf.set_random_seed(4)
    height, width = 8, 8
    reshaped_image = tf.constant(np.random.RandomState(4).rand(12, 12, 3).astype(np.float32) * 255)
    distorted_image = tf.random_crop(reshaped_image, [height, width, 3])
    distorted_image = tf.image.random_flip_left_right(distorted_image)
    distorted_image = tf.image.random_brightness(distorted_image,
                                                   max_delta=63)
    distorted_image = tf.image.random_contrast(distorted_image,
                                                 lower=0.2, upper=1.8)
    float_image = tf.image.per_image_standardization(distorted_image)
    print(distorted_image, float_image)
    with tf.Session() as sess:
        for i in range(3):
            v = sess.run(float_image)
            print(v.shape, v.dtype, v[0, :2].tolist())

    _printed(capsys, """\
Tensor("adjust_contrast/Identity:0", shape=(8, 8, 3), dtype=float32) Tensor("per_image_standardization/Identity:0", shape=(8, 8, 3), dtype=float32)
(8, 8, 3) float32 [[-1.3663386106491089, 0.7284563779830933, 0.08018524944782257], [0.25946223735809326, 1.2906066179275513, -0.014569989405572414]]
(8, 8, 3) float32 [[0.33793744444847107, -1.4678940773010254, 0.34799066185951233], [0.2543538808822632, 1.232344627380371, 1.2841086387634277]]
(8, 8, 3) float32 [[1.715405821800232, -1.2588061094284058, -0.9431074261665344], [1.3531097173690796, 1.4044325351715088, 0.567118763923645]]
""")


def test_resize_images_the_old_way(capsys, tmp_path):
    # mackcmillion/reslearn test.py (resize_images given two ints, 0.x's signature: TF 1.15's ValueError) (reduced)
    import numpy as np
    import random
    # mackcmillion/reslearn test.py (resize_images called the 0.x way, size as two ints; decode_jpeg -> a constant image)
    random.seed(0)
    sess = tf.Session()
    image_tensor = tf.constant(np.random.RandomState(0).randint(0, 255, (6, 9, 3)).astype(np.uint8))
    print(image_tensor)
    shape = tf.shape(image_tensor)
    s = sess.run(shape)
    height = s[0]
    width = s[1]
    new_shorter_edge = random.choice(range(8, 12 + 1))
    if height <= width:
        new_height = new_shorter_edge
        new_width = (width / height) * new_shorter_edge
    else:
        new_width = new_shorter_edge
        new_height = (height / width) * new_shorter_edge
    print(height, new_height, new_width)
    try:
        image_tensor = tf.image.resize_images(image_tensor, new_height, new_width)
    except Exception as e:
        print(type(e).__name__, e)
    image_tensor = tf.image.resize_images(image_tensor, [new_height, int(new_width)])
    print(image_tensor)
    image_tensor.set_shape([new_height, int(new_width), s[2]])
    image = tf.image.random_flip_left_right(image_tensor)
    print(image, s)
    print(sess.run(tf.reduce_sum(image_tensor)), sess.run(image_tensor)[0, :2].tolist())
    sess.close()

    _printed(capsys, """\
Tensor("Const:0", shape=(6, 9, 3), dtype=uint8)
6 11 16.5
ValueError 'size' must be a 1-D Tensor of 2 elements: new_height, new_width
Tensor("resize_1/Squeeze:0", shape=(11, 16, 3), dtype=float32)
Tensor("random_flip_left_right/Merge:0", shape=(11, 16, 3), dtype=float32) [6 9 3]
65131.35 [[172.0, 47.0, 117.0], [183.25, 58.25, 192.375]]
""")


def test_feature_columns_input_layer(capsys, tmp_path):
    # xuzhezhaozhao/EasyCTR-release test/test_categorical_column.py, baiyuting/test_wide_and_deep test.py and davelet/yh-ml-learning-group-201903 column.py (reduced)
    # xuzhezhaozhao/EasyCTR-release test/test_categorical_column.py, baiyuting/test_wide_and_deep test.py and
    # davelet/yh-ml-learning-group-201903 column.py (feature columns through input_layer)
    column = tf.feature_column.categorical_column_with_vocabulary_list(
            'name', [0, 1, 2, 3], default_value=-1)
    print(column)
    print(column.vocabulary_list)
    indicator_column = tf.feature_column.indicator_column(column)
    print(indicator_column)
    features = {
        'name': tf.constant([[0]]),
    }
    indicator_tensor = tf.feature_column.input_layer(features, [indicator_column])
    print(indicator_tensor)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        sess.run(tf.tables_initializer())
        print(sess.run(indicator_tensor))
    tf.reset_default_graph()
    sess=tf.Session()
    features = {
        'sex': [1, 2, 1, 1, 2],
        'department': ['sport', 'sport', 'drawing', 'gardening', 'travelling'],
    }
    department = tf.feature_column.categorical_column_with_vocabulary_list('department', ['sport','drawing','gardening','travelling'], dtype=tf.string)
    sex = tf.feature_column.categorical_column_with_identity('sex', num_buckets=2, default_value=0)
    sex_department = tf.feature_column.crossed_column([department,sex], 16)
    print(sex_department)
    sex_department = tf.feature_column.indicator_column(sex_department)
    columns = [
        sex_department
    ]
    inputs = tf.feature_column.input_layer(features, columns)
    print(inputs)
    init = tf.global_variables_initializer()
    sess.run(tf.tables_initializer())
    sess.run(init)
    v=sess.run(inputs)
    print(v)
    sess.close()
    tf.reset_default_graph()
    sess = tf.Session()
    features = {
        'sales' : [[5], [10], [8], [9]],
        'department': ['sports', 'sports', 'gardening', 'gardening']}
    department_column = tf.feature_column.categorical_column_with_vocabulary_list(
            'department', ['sports', 'gardening'])
    department_column = tf.feature_column.indicator_column(department_column)
    columns = [
        tf.feature_column.numeric_column('sales'),
        department_column
    ]
    print(columns[0])
    inputs = tf.feature_column.input_layer(features, columns)
    var_init = tf.global_variables_initializer()
    table_init = tf.tables_initializer()
    sess.run((var_init, table_init))
    print(sess.run(inputs))
    print(sorted(op.type for op in tf.get_default_graph().get_operations() if 'Table' in op.type or 'Hash' in op.type))
    sess.close()

    _printed(capsys, """\
VocabularyListCategoricalColumn(key='name', vocabulary_list=(0, 1, 2, 3), dtype=tf.int64, default_value=-1, num_oov_buckets=0)
(0, 1, 2, 3)
IndicatorColumn(categorical_column=VocabularyListCategoricalColumn(key='name', vocabulary_list=(0, 1, 2, 3), dtype=tf.int64, default_value=-1, num_oov_buckets=0))
Tensor("input_layer/concat/concat:0", shape=(1, 4), dtype=float32)
[[1. 0. 0. 0.]]
CrossedColumn(keys=(VocabularyListCategoricalColumn(key='department', vocabulary_list=('sport', 'drawing', 'gardening', 'travelling'), dtype=tf.string, default_value=-1, num_oov_buckets=0), IdentityCategoricalColumn(key='sex', number_buckets=2, default_value=0)), hash_bucket_size=16, hash_key=None)
Tensor("input_layer/concat/concat:0", shape=(?, 16), dtype=float32)
[[0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 0. 0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0.]]
NumericColumn(key='sales', shape=(1,), default_value=None, dtype=tf.float32, normalizer_fn=None)
[[ 1.  0.  5.]
 [ 1.  0. 10.]
 [ 0.  1.  8.]
 [ 0.  1.  9.]]
['HashTableV2', 'LookupTableFindV2', 'LookupTableImportV2']
""")


def test_stock_scan_lstm_attention(capsys, tmp_path):
    # SymphonyPy/Stock_Prediction train.py (its tf.scan LSTM, attention and orthogonal init in an InteractiveSession with a config; Adam -> SGD, the SVD's signs normalised) (reduced)
    import numpy as np
    import os
    # SymphonyPy/Stock_Prediction train.py (its tf.scan LSTM cell, attention, orthogonal init; 1680 minutes -> 6 steps,
    # 100 units -> 5, 20 classes -> 4; data.Data -> seeded random batches; f1_score left out)
    tf.set_random_seed(55)
    np.random.seed(55)
    class LSTMcell(object):
        def __init__(self, incoming, D_input, D_cell, initializer,
                     f_bias=1.0, L2=False, h_act=tf.tanh,
                     init_h=None, init_c=None):
            self.incoming = incoming
            self.D_input = D_input
            self.D_cell = D_cell
            self.initializer = initializer
            self.f_bias = f_bias
            self.h_act = h_act
            self.type = 'lstm'
            if init_h is None and init_c is None:
                self.init_h = tf.matmul(self.incoming[0, :, :], tf.zeros([self.D_input, self.D_cell]))
                self.init_c = self.init_h
                self.previous = tf.stack([self.init_h, self.init_c])
            self.igate = self.Gate()
            self.fgate = self.Gate(bias=f_bias)
            self.ogate = self.Gate()
            self.cell = self.Gate()
            self.W_x = tf.concat(values=[self.igate[0], self.fgate[0], self.ogate[0], self.cell[0]], axis=1)
            self.W_h = tf.concat(values=[self.igate[1], self.fgate[1], self.ogate[1], self.cell[1]], axis=1)
            self.b = tf.concat(values=[self.igate[2], self.fgate[2], self.ogate[2], self.cell[2]], axis=0)
            if L2:
                self.L2_loss = tf.nn.l2_loss(self.W_x) + tf.nn.l2_loss(self.W_h)
        def Gate(self, bias=0.001):
            Wx = self.initializer([self.D_input, self.D_cell])
            Wh = self.initializer([self.D_cell, self.D_cell])
            b = tf.Variable(tf.constant(bias, shape=[self.D_cell]), trainable=True)
            return Wx, Wh, b
        def Slice_W(self, x, n):
            return x[:, n * self.D_cell:(n + 1) * self.D_cell]
        def Step(self, previous_h_c_tuple, current_x):
            prev_h, prev_c = tf.unstack(previous_h_c_tuple)
            gates = tf.matmul(current_x, self.W_x) + tf.matmul(prev_h, self.W_h) + self.b
            i = tf.sigmoid(self.Slice_W(gates, 0))
            f = tf.sigmoid(self.Slice_W(gates, 1))
            o = tf.sigmoid(self.Slice_W(gates, 2))
            c = tf.tanh(self.Slice_W(gates, 3))
            current_c = f * prev_c + i * c
            current_h = o * self.h_act(current_c)
            return tf.stack([current_h, current_c])
    def RNN(cell, cell_b=None, merge='sum'):
        hstates = tf.scan(fn=cell.Step,
                          elems=cell.incoming,
                          initializer=cell.previous,
                          name='hstates')
        if cell.type == 'lstm':
            hstates = hstates[:, 0, :, :]
        return hstates
    def attention(inputs, attention_size, l2_reg_lambda=0):
        if isinstance(inputs, tuple):
            inputs = tf.concat(inputs, 2)
        sequence_length = inputs.get_shape()[1].value
        hidden_size = inputs.get_shape()[2].value
        W_omega = tf.get_variable("W_omega", initializer=tf.random_normal([hidden_size, attention_size], stddev=0.1))
        b_omega = tf.get_variable("b_omega", initializer=tf.random_normal([attention_size], stddev=0.1))
        u_omega = tf.get_variable("u_omega", initializer=tf.random_normal([attention_size], stddev=0.1))
        v = tf.tanh(tf.matmul(tf.reshape(inputs, [-1, hidden_size]), W_omega) + tf.reshape(b_omega, [1, -1]))
        vu = tf.matmul(v, tf.reshape(u_omega, [-1, 1]))
        exps = tf.reshape(tf.exp(vu), [-1, sequence_length])
        alphas = exps / tf.reshape(tf.reduce_sum(exps, 1), [-1, 1])
        output = tf.reduce_sum(inputs * tf.reshape(alphas, [-1, sequence_length, 1]), 1)
        return output
    def weight_init(shape):
        initial = tf.random_uniform(shape, minval=-np.sqrt(5) * np.sqrt(1.0 / shape[0]),
                                    maxval=np.sqrt(5) * np.sqrt(1.0 / shape[0]))
        return tf.Variable(initial, trainable=True)
    def zero_init(shape):
        initial = tf.Variable(tf.zeros(shape))
        return tf.Variable(initial, trainable=True)
    def orthogonal_initializer(shape, scale=1.0):
        flat_shape = (shape[0], np.prod(shape[1:]))
        a = np.random.normal(0.0, 1.0, flat_shape)
        u, _, v = np.linalg.svd(a, full_matrices=False)
        q = u if u.shape == flat_shape else v
        q = q * np.sign(q[:1])  # (sign-normalised here: LAPACK builds differ in the singular vectors' signs)
        q = q.reshape(shape)
        return tf.Variable(scale * q[:shape[0], :shape[1]], dtype=tf.float32, trainable=True)
    def bias_init(shape):
        initial = tf.constant(0.01, shape=shape)
        return tf.Variable(initial, trainable=True)
    D_input = 6
    D_label = 4
    learning_rate = 1e-2
    L2_penalty = 5e-3
    sequence_length = 6
    attention_size = 3
    num_units = 5
    inputs = tf.placeholder(tf.float32, [None, sequence_length, D_input], name="inputs")
    labels = tf.placeholder(tf.float32, [None, D_label], name="labels")
    keep_prob = tf.placeholder(tf.float32, name="keep_prob")
    input = tf.transpose(inputs, perm=[1, 0, 2])
    rnn_cell = LSTMcell(input, D_input, num_units, orthogonal_initializer)
    rnn = RNN(rnn_cell)
    print(rnn_cell.previous, rnn)
    rnn_ = tf.transpose(rnn, perm=[1, 0, 2])
    a_re_ = attention(rnn_, attention_size)
    print(a_re_)
    W2 = weight_init([num_units, D_label])
    b2 = bias_init([D_label])
    z = zero_init([2])
    print(z, z.initial_value)
    re2 = tf.matmul(a_re_, W2) + b2
    output = tf.nn.softmax(re2)
    loss = tf.reduce_mean(tf.square((output - labels)))
    tf.summary.scalar('loss', loss)
    L2_total = tf.nn.l2_loss(W2)
    train_step = tf.train.GradientDescentOptimizer(learning_rate * 100).minimize(loss + L2_penalty * L2_total)
    y_pred = tf.argmax(output, 1)
    correct_prediction = tf.equal(tf.argmax(output, 1), tf.argmax(labels, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
    tf.summary.scalar('accuracy', accuracy)
    sess = tf.InteractiveSession(config=tf.ConfigProto(log_device_placement=False))
    merged = tf.summary.merge_all()
    d = str(tmp_path)
    train_writer = tf.summary.FileWriter(os.path.join(d, "train"))
    tf.global_variables_initializer().run()
    rng = np.random.RandomState(1)
    def batch(n):
        x = rng.randn(n, sequence_length, D_input).astype(np.float32)
        y = np.eye(D_label, dtype=np.float32)[rng.randint(0, D_label, n)]
        return x, y
    for k in range(21):
        x, y = batch(8)
        sess.run(train_step, feed_dict={inputs: x, labels: y, keep_prob: 0.3})
        if k % 10 == 0:
            acc = sess.run(accuracy, feed_dict={inputs: x, labels: y, keep_prob: 1})
            y_p = list(sess.run(y_pred, feed_dict={inputs: x, labels: y, keep_prob: 1}))
            print("EPOCH:{}\ttrain accuracy:{}\tpred:{}".format(k, round(acc, 3), y_p), sess.run(loss, {inputs: x, labels: y}))
            train_writer.add_summary(sess.run(merged, feed_dict={inputs: x, labels: y, keep_prob: 1}), k)
    saver = tf.train.Saver()
    save_path = saver.save(sess, os.path.join(d, "model.ckpt"))
    print("Model saved. {}".format(os.path.basename(save_path)))
    saver.restore(sess, os.path.join(d, "model.ckpt"))
    print(sess.run(y_pred, feed_dict={inputs: batch(3)[0], keep_prob: 1}))
    train_writer.close()
    sess.close()

    _printed(capsys, """\
Tensor("stack:0", shape=(2, ?, 5), dtype=float32) Tensor("strided_slice_1:0", shape=(6, ?, 5), dtype=float32)
Tensor("Sum_1:0", shape=(?, 5), dtype=float32)
<tf.Variable 'Variable_15:0' shape=(2,) dtype=float32_ref> Tensor("Variable_14/read:0", shape=(2,), dtype=float32)
EPOCH:0	train accuracy:0.375	pred:[2, 2, 3, 2, 2, 2, 2, 0] 0.18916085
EPOCH:10	train accuracy:0.25	pred:[3, 0, 2, 3, 2, 2, 3, 0] 0.18747716
EPOCH:20	train accuracy:0.375	pred:[0, 0, 0, 0, 3, 2, 3, 0] 0.19110736
Model saved. model.ckpt
[0 0 0]
""")


def test_autoencoder_anomaly_scores(capsys, tmp_path):
    #  now and then an ulp under the exact root, which the losses' last digit shows:thomasdubdub/autoencoder-anomaly-detection anomaly_detection.ipynb (reduced)
    import numpy as np
    import os
    # thomasdubdub/autoencoder-anomaly-detection anomaly_detection.ipynb (transitions.csv -> seeded [0, 1) rows of 7;
    # 10000 iterations -> 30; tqdm's trange -> range)
    rng = np.random.RandomState(42)
    X_train = rng.rand(20, 7); X_test = rng.rand(6, 7)
    print(X_train.shape, X_test.shape)
    n_inputs, n_outputs, n_hidden = (X_train.shape[1] for i in range(3))
    def reset_graph(seed=42):
        tf.reset_default_graph()
        tf.set_random_seed(seed)
    learning_rate=0.01
    reset_graph()
    X = tf.placeholder(tf.float32, shape=[None, n_inputs])
    hidden = tf.layers.dense(X, n_hidden, activation=tf.sigmoid)
    outputs = tf.layers.dense(hidden, n_outputs, activation=tf.sigmoid)
    reconstruction_loss = tf.reduce_mean(tf.square(outputs - X))
    errors = tf.reduce_mean(tf.square(outputs - X), axis=1)
    optimizer = tf.train.AdamOptimizer(learning_rate)
    training_op = optimizer.minimize(reconstruction_loss)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    print(hidden, outputs, errors)
    plot_x, plot_y, plot_y2 = ([] for i in range(3))
    n_iterations = 30
    d = str(tmp_path)
    with tf.Session() as sess:
        init.run()
        for iteration in range(n_iterations):
            _,c = sess.run([training_op,reconstruction_loss], feed_dict={X: X_train})
            c2 = sess.run([reconstruction_loss], feed_dict={X: X_test})
            plot_x.append(iteration)
            plot_y.append(c)
            plot_y2.append(c2)
        saver.save(sess, os.path.join(d, "anomaly_model.ckpt"))
    print(type(plot_y[0]).__name__, type(plot_y2[0]).__name__, plot_y[::10], plot_y2[::10])
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(d, "anomaly_model.ckpt"))
        e = errors.eval(feed_dict={X: X_test})
        print(e.round(4), np.argsort(e)[::-1][:3])

    # Adam's v.sqrt() is TF's approximate packet root (rsqrtps and a Newton step)
    same_printed(capsys.readouterr().out.splitlines(), """\
(20, 7) (6, 7)
Tensor("dense/Sigmoid:0", shape=(?, 7), dtype=float32) Tensor("dense_1/Sigmoid:0", shape=(?, 7), dtype=float32) Tensor("Mean_1:0", shape=(?,), dtype=float32)
float32 list [0.09285859, 0.08266283, 0.078931585] [[0.09713173], [0.082016274], [0.07570854]]
[0.0808 0.0654 0.0908 0.0665 0.0566 0.0767] [2 0 5]
""".splitlines(), 1e-6)


def test_contrib_layers_siamese_reuse(capsys, tmp_path):
    # mjfang/HWCNN siamese_net.py (its unnamed contrib layers fail to reuse, TF 1.15's ValueError; then named) (reduced)
    import numpy as np
    # mjfang/HWCNN siamese_net.py (its contrib.layers network and contrastive loss; 24x24/9x9 kernels -> 3x3, 256 -> 6 units)
    layers = tf.contrib.layers
    class Siamese_Net:
      def __init__(self, batch_size, input_shape):
        self.x1 = tf.placeholder(tf.float32, input_shape)
        self.x2 = tf.placeholder(tf.float32, input_shape)
        self.batch_size = batch_size
        with tf.variable_scope("siamese") as scope:
          self.out1 = self.network(self.x1)
          scope.reuse_variables()
          self.out2 = self.network(self.x2)
        pow = tf.pow(tf.subtract(self.out1,self.out2), 2)
        self.distance = tf.sqrt(tf.reduce_sum(pow,1,keep_dims=True))
        self.y = tf.placeholder(tf.float32, [None])
        self.loss = self.contrastive_loss()
        self.train_op = self.add_optimizer_loss(self.loss)
      def network(self, input):
        conv1 = layers.conv2d(input, num_outputs=4, kernel_size=[3, 3], stride=[2, 2])
        pool1 = tf.nn.max_pool(conv1,[1,4,4,1], strides = [1,3,3,1], padding='VALID')
        conv2 = layers.conv2d(pool1, num_outputs=3, kernel_size=[3, 3], stride=[1,1])
        conv2_flattened = layers.flatten(conv2)
        fc1 = layers.fully_connected(conv2_flattened, 6, biases_initializer=tf.constant_initializer(0))
        out = layers.fully_connected(fc1, 2, activation_fn=None)
        return out
      def contrastive_loss(self):
        a = self.y * tf.square(self.distance)
        a2 = (1-self.y) * tf.square(tf.maximum((1-self.distance), 0))
        return tf.reduce_sum(a + a2) / self.batch_size / 2
      def add_optimizer_loss(self, loss):
        optimizer = tf.train.AdamOptimizer()
        gvs = optimizer.compute_gradients(loss)
        gs, vs = zip(*gvs)
        self.grad_norm = tf.global_norm(gs)
        return optimizer.apply_gradients(gvs)
    tf.set_random_seed(9)
    try:
        net = Siamese_Net(4, [None, 16, 16, 1])
    except ValueError as e:
        print('ValueError:', e)
    # the layers named, as the repository's later version does, so the second tower reuses the first's
    tf.reset_default_graph()
    tf.set_random_seed(9)
    _plain = Siamese_Net.network
    def _named(self, input):
        conv1 = layers.conv2d(input, num_outputs=4, kernel_size=[3, 3], stride=[2, 2], scope='conv1')
        pool1 = tf.nn.max_pool(conv1,[1,4,4,1], strides = [1,3,3,1], padding='VALID')
        conv2 = layers.conv2d(pool1, num_outputs=3, kernel_size=[3, 3], stride=[1,1], scope='conv2')
        conv2_flattened = layers.flatten(conv2)
        fc1 = layers.fully_connected(conv2_flattened, 6, biases_initializer=tf.constant_initializer(0), scope='fc1')
        return layers.fully_connected(fc1, 2, activation_fn=None, scope='out')
    Siamese_Net.network = _named
    net = Siamese_Net(4, [None, 16, 16, 1])
    print(net.out1, net.distance, net.loss, net.grad_norm)
    print([v.name for v in tf.trainable_variables()])
    print(sorted({v.name.split('/')[-1] for v in tf.global_variables()}))
    rng = np.random.RandomState(9)
    a = rng.rand(4, 16, 16, 1).astype(np.float32); b = rng.rand(4, 16, 16, 1).astype(np.float32); y = np.array([1., 0., 1., 0.], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(sess.run([net.loss, net.grad_norm], {net.x1: a, net.x2: b, net.y: y}))
        for i in range(3):
            _, l = sess.run([net.train_op, net.loss], {net.x1: a, net.x2: b, net.y: y})
            print(i, l)
        print(sess.run(net.distance, {net.x1: a, net.x2: b}).ravel().tolist())

    # Adam's packet square root (TF's approximate root) shows in the last digits after three steps
    same_printed(capsys.readouterr().out.splitlines(), """\
ValueError: Variable siamese/Conv_2/weights does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?
Tensor("siamese/out/BiasAdd:0", shape=(?, 2), dtype=float32) Tensor("Sqrt:0", shape=(?, 1), dtype=float32) Tensor("truediv_1:0", shape=(), dtype=float32) Tensor("global_norm/global_norm:0", shape=(), dtype=float32)
['siamese/conv1/weights:0', 'siamese/conv1/biases:0', 'siamese/conv2/weights:0', 'siamese/conv2/biases:0', 'siamese/fc1/weights:0', 'siamese/fc1/biases:0', 'siamese/out/weights:0', 'siamese/out/biases:0']
['Adam:0', 'Adam_1:0', 'beta1_power:0', 'beta2_power:0', 'biases:0', 'weights:0']
[0.92696744, 2.0370529]
0 0.92696744
1 0.91508263
2 0.9055721
[0.07373028248548508, 0.004540184047073126, 0.10206831991672516, 0.04399484023451805]
""".splitlines(), 1e-6)


def test_dataset_padded_batches(capsys, tmp_path):
    # chenhanghang/tensorflow-demos functions/padded_batch.py, zyqgmzyq/tensorflow_learn programmer_guide/importing_data/batch_dataset.py and PCART-tools/PCBench's tf.data.Dataset.from_generator case (reduced)
    import numpy as np
    import itertools
    # chenhanghang/tensorflow-demos functions/padded_batch.py, zyqgmzyq/tensorflow_learn
    # programmer_guide/importing_data/batch_dataset.py and PCART-tools/PCBench's from_generator case
    tf.reset_default_graph()
    x = [[1, 0, 0],
         [2, 3, 0],
         [4, 5, 6],
         [7, 8, 0],
         [9, 0, 0],
         [0, 1, 0]]
    padded_shapes = (
        tf.TensorShape([]),
        tf.TensorShape([]),
        tf.TensorShape([])
    )
    dataset = tf.data.Dataset.from_tensor_slices(x)
    dataset = dataset.map(lambda x: [x[0], x[1], x[2]])
    print(dataset.output_shapes, dataset.output_types)
    dataset = dataset.padded_batch(2, padded_shapes=padded_shapes)
    print(dataset.output_shapes)
    iterator = dataset.make_one_shot_iterator()
    sess = tf.Session()
    try:
        while True:
            elem1, elem2, elem3 = iterator.get_next()
            print("elem:", sess.run(elem1))
    except tf.errors.OutOfRangeError:
        print("end")
    print(len([op for op in tf.get_default_graph().get_operations() if op.type == 'IteratorGetNext']))
    sess.close()
    tf.reset_default_graph()
    inc_dataset = tf.data.Dataset.range(100)
    dec_dataset = tf.data.Dataset.range(0, -100, -1)
    dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
    batched_dataset = dataset.batch(4)
    print(batched_dataset.output_shapes)
    iterator = batched_dataset.make_one_shot_iterator()
    next_element = iterator.get_next()
    with tf.Session() as sess:
        print(sess.run(next_element))
        print(sess.run(next_element))
        print(sess.run(next_element))
    dataset = tf.data.Dataset.range(100)
    dataset = dataset.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    dataset = dataset.padded_batch(4, padded_shapes=[None])
    print(dataset.output_shapes, dataset.output_types)
    iterator = dataset.make_one_shot_iterator()
    next_element = iterator.get_next()
    with tf.Session() as sess:
        print(sess.run(next_element))
        print(sess.run(next_element))
    def gen():
        for i in itertools.count(1):
            yield (i, [1] * i)
    dataset = tf.data.Dataset.from_generator(gen,  (tf.int64, tf.int64),  (tf.TensorShape([]), tf.TensorShape([None])),  None)
    print(dataset.output_shapes, dataset.output_types)
    it = dataset.padded_batch(3, padded_shapes=([], [None])).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        for _ in range(2):
            print(sess.run(it))

    _printed(capsys, """\
(TensorShape([]), TensorShape([]), TensorShape([])) (tf.int32, tf.int32, tf.int32)
(TensorShape([Dimension(None)]), TensorShape([Dimension(None)]), TensorShape([Dimension(None)]))
elem: [1 2]
elem: [4 7]
elem: [9 0]
end
4
(TensorShape([Dimension(None)]), TensorShape([Dimension(None)]))
(array([0, 1, 2, 3]), array([ 0, -1, -2, -3]))
(array([4, 5, 6, 7]), array([-4, -5, -6, -7]))
(array([ 8,  9, 10, 11]), array([ -8,  -9, -10, -11]))
(?, ?) <dtype: 'int64'>
[[0 0 0]
 [1 0 0]
 [2 2 0]
 [3 3 3]]
[[4 4 4 4 0 0 0]
 [5 5 5 5 5 0 0]
 [6 6 6 6 6 6 0]
 [7 7 7 7 7 7 7]]
(TensorShape([]), TensorShape([Dimension(None)])) (tf.int64, tf.int64)
(array([1, 2, 3]), array([[1, 0, 0],
       [1, 1, 0],
       [1, 1, 1]]))
(array([4, 5, 6]), array([[1, 1, 1, 1, 0, 0],
       [1, 1, 1, 1, 1, 0],
       [1, 1, 1, 1, 1, 1]]))
""")


def test_variational_autoencoder(capsys, tmp_path):
    # fangkun119/MLPracticeNotes deep_learning_notes/16_auto_encoder_code (Geron's variational autoencoder; Adam -> SGD, the epoch line's carriage return dropped) (reduced)
    import numpy as np
    from functools import partial
    # fangkun119/MLPracticeNotes deep_learning_notes/16_auto_encoder_code (its variational autoencoder; 784 -> 16 inputs,
    # 500 -> 8 units, 20 codings -> 3; MNIST -> seeded binary rows)
    def reset_graph(seed=42):
        tf.reset_default_graph()
        tf.set_random_seed(seed)
        np.random.seed(seed)
    reset_graph()
    n_inputs = 16
    n_hidden1 = 8
    n_hidden2 = 8
    n_hidden3 = 3  # codings
    n_hidden4 = n_hidden2
    n_hidden5 = n_hidden1
    n_outputs = n_inputs
    learning_rate = 0.001
    initializer = tf.contrib.layers.variance_scaling_initializer()
    my_dense_layer = partial(
        tf.layers.dense,
        activation=tf.nn.elu,
        kernel_initializer=initializer)
    X = tf.placeholder(tf.float32, [None, n_inputs])
    hidden1 = my_dense_layer(X, n_hidden1)
    hidden2 = my_dense_layer(hidden1, n_hidden2)
    hidden3_mean = my_dense_layer(hidden2, n_hidden3, activation=None)
    hidden3_gamma = my_dense_layer(hidden2, n_hidden3, activation=None)
    noise = tf.random_normal(tf.shape(hidden3_gamma), dtype=tf.float32)
    hidden3 = hidden3_mean + tf.exp(0.5 * hidden3_gamma) * noise
    hidden4 = my_dense_layer(hidden3, n_hidden4)
    hidden5 = my_dense_layer(hidden4, n_hidden5)
    logits = my_dense_layer(hidden5, n_outputs, activation=None)
    outputs = tf.sigmoid(logits)
    xentropy = tf.nn.sigmoid_cross_entropy_with_logits(labels=X, logits=logits)
    reconstruction_loss = tf.reduce_sum(xentropy)
    latent_loss = 0.5 * tf.reduce_sum(
        tf.exp(hidden3_gamma) + tf.square(hidden3_mean) - 1 - hidden3_gamma)
    loss = reconstruction_loss + latent_loss
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
    training_op = optimizer.minimize(loss)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    print(noise, hidden3, xentropy, latent_loss)
    print([v.name for v in tf.trainable_variables()][:4])
    X_train = (np.random.rand(10, n_inputs) > 0.5).astype(np.float32)
    n_digits = 3
    with tf.Session() as sess:
        init.run()
        for epoch in range(3):
            for iteration in range(2):
                X_batch = X_train[iteration * 5:(iteration + 1) * 5]
                sess.run(training_op, feed_dict={X: X_batch})
            loss_val, reconstruction_loss_val, latent_loss_val = sess.run([loss, reconstruction_loss, latent_loss], feed_dict={X: X_batch})
            print("{}".format(epoch), "Train total loss:", loss_val, "\tReconstruction loss:", reconstruction_loss_val, "\tLatent loss:", latent_loss_val)
        codings_rnd = np.random.normal(size=[n_digits, n_hidden3])
        outputs_val = outputs.eval(feed_dict={hidden3: codings_rnd})
        print(outputs_val.shape, outputs_val[0, :4])

    _printed(capsys, """\
Tensor("random_normal:0", shape=(?, 3), dtype=float32) Tensor("add:0", shape=(?, 3), dtype=float32) Tensor("logistic_loss:0", shape=(?, 16), dtype=float32) Tensor("mul_2:0", shape=(), dtype=float32)
['dense/kernel:0', 'dense/bias:0', 'dense_1/kernel:0', 'dense_1/bias:0']
0 Train total loss: 81.8784 	Reconstruction loss: 75.156906 	Latent loss: 6.7214956
1 Train total loss: 76.83228 	Reconstruction loss: 72.34043 	Latent loss: 4.4918528
2 Train total loss: 73.54991 	Reconstruction loss: 69.78051 	Latent loss: 3.769404
(3, 16) [0.79179984 0.1567311  0.41914782 0.42366874]
""")
