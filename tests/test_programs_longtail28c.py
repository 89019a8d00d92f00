"""The long tail of TF 1.x programs, part 3 of 3: as in test_programs_longtail28.py, each
program reduced and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: BLE001, F401, F841, I001, RUF059, UP031

import re

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
    # (a py_func's token counts the process's py_funcs, in TF as here: a program run alone in
    # TF named pyfunc_1, the same one after other tests a later number)
    out = re.sub(r"pyfunc_\d+", "pyfunc_N", capsys.readouterr().out)
    assert out.splitlines() == re.sub(r"pyfunc_\d+", "pyfunc_N", expected).splitlines()


def test_py_func_vector_add(capsys, tmp_path):
    # beardoll/tensorflow-yolov2 tools/pyfunc_test.py (its Python 2 print made a call; the gradient and a wrong-dtype return checked) (reduced)
    import numpy as np
    # beardoll/tensorflow-yolov2 tools/pyfunc_test.py (Python 2's print made a call; its gradient note checked)
    def add_two_vector(a, b):
        c = np.zeros((a.shape[0]), dtype=np.float32)
        for i in range(a.shape[0]):
            c[i] = a[i] + b[i]
        return c
    sess = tf.Session()
    a = tf.placeholder(tf.float32, shape=(5, ))
    b = tf.placeholder(tf.float32, shape=(5, ))
    add_op = tf.py_func(add_two_vector, [a, b], [tf.float32])
    print(add_op, add_op[0].op.type, add_op[0].op.get_attr('Tout'))
    c = sess.run(add_op, feed_dict={a: np.array([1, 1, 1, 1, 1], dtype=np.float32),             b: np.array([2, 2, 2, 2, 2], dtype=np.float32)})
    print(c)
    print(tf.gradients(add_op[0], [a, b]))
    try:
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(add_op[0]) * tf.Variable(1.0), var_list=None)
        print('built')
    except Exception as e:
        print(type(e).__name__, e)
    try:
        sess.run(tf.py_func(lambda x: x.astype(np.float64), [a], tf.float32), {a: np.ones(5, np.float32)})
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    sess.close()

    _printed(capsys, """\
[<tf.Tensor 'PyFunc:0' shape=<unknown> dtype=float32>] PyFunc [tf.float32]
[array([3., 3., 3., 3., 3.], dtype=float32)]
[None, None]
built
InvalidArgumentError 0-th value returned by pyfunc_1 is double, but expects float
""")


def test_constants_and_saver_restore_by_path(capsys, tmp_path):
    # falkzach/CSCI595-Deep-Knowledge-Transfer compute.py and lvjianjunljj/deep_learning_study tensorflow/getting_started/i_saver/restore_test_2.py (with the save it restores) (reduced)
    import os
    # falkzach/CSCI595-Deep-Knowledge-Transfer compute.py and lvjianjunljj/deep_learning_study
    # tensorflow/getting_started/i_saver/restore_test_2.py (with the save it restores: global_step 1)
    def test():
        node1 = tf.constant(3.0, tf.float32)
        node2 = tf.constant(4.0) # also tf.float32 implicitly
        sess = tf.Session()
        node3 = tf.add(node1, node2)
        print("node1: ", node1)
        print("node2: ", node2)
        print("node3: ", node3)
        print("sess.run(node3): ", sess.run(node3))
        sess.close()
    test()
    tf.reset_default_graph()
    d = str(tmp_path)
    ckpt_path = os.path.join(d, 'ckpt', 'test-model.ckpt')
    v1 = tf.Variable([1.0, 2.3], name="v1")
    v2 = tf.Variable(55.5, name="v2")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(v1, [11.0, 16.3]))
        print(os.path.relpath(saver.save(sess, ckpt_path, global_step=1), d))
    tf.reset_default_graph()
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    sess = tf.Session(config=config)
    v1 = tf.Variable([11.0, 16.3], name="v1")
    saver = tf.train.Saver()
    print(saver.saver_def.filename_tensor_name, saver.saver_def.save_tensor_name, saver.saver_def.restore_op_name)
    saver.restore(sess, ckpt_path + '-' + str(1))
    print("Model restored.")
    print(sess.run(v1))
    print(tf.train.list_variables(ckpt_path + '-1'))
    try:
        saver.restore(sess, ckpt_path + '-' + str(2))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0].replace(d, 'D'))
    sess.close()

    _printed(capsys, """\
node1:  Tensor("Const:0", shape=(), dtype=float32)
node2:  Tensor("Const_1:0", shape=(), dtype=float32)
node3:  Tensor("Add:0", shape=(), dtype=float32)
sess.run(node3):  7.0
ckpt/test-model.ckpt-1
save/Const:0 save/control_dependency:0 save/restore_all
Model restored.
[11.  16.3]
[('v1', [2]), ('v2', [])]
ValueError The passed save_path is not a valid checkpoint: D/ckpt/test-model.ckpt-2
""")


def test_wrong_shape_feeds_and_keras_inputs(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46053363_original.py, s48978609_original.py and s50336110_original.py (keras -> tf.keras; Keras makes a 1-D array [n, 1] before it checks the rank) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46053363_original.py (one_hot=False labels fed to a [None, 10] placeholder; the
    # network shrunk, MNIST -> seeded rows), s48978609_original.py and s50336110_original.py (Keras models given
    # inputs of the wrong rank; keras -> tf.keras)
    x = tf.placeholder(tf.float32, [None, 16])
    y_ = tf.placeholder(tf.float32, [None,10])
    W = tf.Variable(tf.zeros([16, 10])); b = tf.Variable(tf.zeros([10]))
    y_conv = tf.matmul(x, W) + b
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    rng = np.random.RandomState(0)
    batch = (rng.rand(50, 16).astype(np.float32), rng.randint(0, 10, 50))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        try:
            train_accuracy = accuracy.eval(feed_dict={x: batch[0], y_: batch[1]})
            print('step %d, training accuracy %g' % (0, train_accuracy))
        except ValueError as e:
            print('ValueError:', e)
        print('step %d, training accuracy %g' % (0, accuracy.eval(feed_dict={x: batch[0], y_: np.eye(10)[batch[1]]})))
    from tensorflow.keras.models import Sequential
    from tensorflow.keras.layers import LSTM, Dense
    X = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    y = np.array([2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
    data_dim = 1
    timesteps = 8
    model = Sequential()
    model.add(LSTM(4, return_sequences=True, input_shape=(timesteps, data_dim)))
    model.add(LSTM(4, return_sequences=True))
    model.add(Dense(10, activation='softmax'))
    model.compile(loss='categorical_crossentropy', optimizer='rmsprop', metrics=['accuracy'])
    print(model.output_shape, [l.name for l in model.layers])
    try:
        model.fit(X,y, batch_size=10, epochs=1, verbose=0)
    except ValueError as e:
        print('ValueError:', e)
    model =Sequential()
    model.add(Dense(12, input_dim=3, activation='relu'))
    model.add(Dense(8, activation='relu'))
    model.add(Dense(4, activation='relu'))
    model.add(Dense(1, activation='sigmoid'))
    model.compile(loss='binary_crossentropy', optimizer = 'adam', metrics = ['accuracy'])
    x = np.array([[0.1],[0.2],[0.3]])
    print(x.shape, model.input_shape)
    try:
        prediction_prob = model.predict(x)
    except ValueError as e:
        print('ValueError:', e)
    print(model.predict(x.T).shape)

    _printed(capsys, """\
ValueError: Cannot feed value of shape (50,) for Tensor 'Placeholder_1:0', which has shape '(?, 10)'
step 0, training accuracy 0.16
(None, 8, 10) ['lstm', 'lstm_1', 'dense']
ValueError: Error when checking input: expected lstm_input to have 3 dimensions, but got array with shape (10, 1)
(3, 1) (None, 3)
ValueError: Error when checking input: expected dense_1_input to have shape (3,) but got array with shape (1,)
(1, 1)
""")


def test_uninitialized_closed_session_confusion_matrix(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s49065312_original.py and s50274999_original.py (MNIST and skimage's resize -> seeded rows) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s49065312_original.py (a fresh Session per step, never initialized, then the
    # closed one reused; MNIST + skimage resize -> seeded rows) and s50274999_original.py (confusion_matrix of one-hot
    # [n, 2] arrays)
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 16])
    W = tf.get_variable("weights", shape=[16, 10],
                    initializer=tf.random_normal_initializer())
    b = tf.get_variable("bias", shape=[10],
                    initializer=tf.random_normal_initializer())
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y),
    reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.2).minimize(cross_entropy)
    batch_size=5
    rng = np.random.RandomState(0)
    for _ in range(1):
        image = rng.rand(batch_size, 16)
        batch_label = np.eye(10)[rng.randint(0, 10, batch_size)]
        print(image.shape)
        try:
            with tf.Session() as sess:
                sess.run(train_step, feed_dict={x: image, y_: batch_label})
        except tf.errors.FailedPreconditionError as e:
            print(type(e).__name__, e.message.splitlines()[0], e.op.name if e.op is not None else None, e.error_code)
    correct_prediction = tf.equal(tf.argmax(y,1), tf.argmax(y_,1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    try:
        print(sess.run(accuracy, feed_dict={x: image, y_: batch_label}))
    except RuntimeError as e:
        print('RuntimeError:', e)
    batched_val_labels = np.eye(2)[rng.randint(0, 2, 6)]
    _p = np.eye(2)[rng.randint(0, 2, 6)]
    try:
        cm = tf.confusion_matrix(labels=batched_val_labels, predictions=_p)
        print(cm)
    except ValueError as e:
        print('ValueError:', e)
    cm = tf.confusion_matrix(labels=np.argmax(batched_val_labels, 1), predictions=np.argmax(_p, 1))
    print(cm)
    with tf.Session() as sess:
        print(sess.run(cm))

    _printed(capsys, """\
(5, 16)
FailedPreconditionError Attempting to use uninitialized value bias bias/read 9
RuntimeError: Attempted to use a closed Session.
ValueError: Shape (6, 2, 2) must have rank 2
Tensor("confusion_matrix_1/SparseTensorDenseAdd:0", shape=(2, 2), dtype=int32)
[[3 0]
 [1 2]]
""")


def test_vector_matmul_int_lstm_two_input_keras(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s50130413_original.py, s50352777_original.py and s49442963_original.py (keras -> tf.keras) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s50130413_original.py (matmul of a vector), s50352777_original.py (an LSTM fed
    # int32 word ids; 128 units -> 4) and s49442963_original.py (a two-input Keras model given a 1-D aux array; sizes
    # 54/162 -> 5/7; keras -> tf.keras)
    w1 = tf.Variable(tf.random_normal([2,3],stddev=1,seed=1))
    w2 = tf.Variable(tf.random_normal([3,3],stddev=1,seed=1))
    x = tf.constant([0.7,0.9])
    try:
        a = tf.matmul(x, w1)
    except ValueError as e:
        print('ValueError:', e)
    a = tf.matmul([[0.7,0.9]], w1)
    y = tf.matmul(a, w2)
    sess = tf.Session()
    sess.run(w1.initializer)
    sess.run(w2.initializer)
    print(sess.run(y))
    sess.close()
    lstm_size = 4
    batch_size = 5
    graph = tf.Graph()
    with graph.as_default():
        inputs_ = tf.placeholder(tf.int32, [None, None], name='inputs')
        labels_ = tf.placeholder(tf.int32, [None, None], name='labels')
        keep_prob = tf.placeholder(tf.float32, name='keep_prob')
    with graph.as_default():
        lstm = tf.contrib.rnn.BasicLSTMCell(lstm_size)
        drop = tf.contrib.rnn.DropoutWrapper(lstm, output_keep_prob=keep_prob)
        cell = tf.contrib.rnn.MultiRNNCell([drop] * 1)
        initial_state = cell.zero_state(batch_size, tf.float32)
        print(initial_state)
    with graph.as_default():
        try:
            outputs, final_state = tf.nn.dynamic_rnn(cell, inputs_, initial_state=initial_state)
            print(outputs)
        except (ValueError, TypeError) as e:
            print(type(e).__name__, str(e).splitlines()[0])
        emb = tf.nn.embedding_lookup(tf.Variable(tf.random_uniform((10, 3), -1, 1)), inputs_)
        outputs, final_state = tf.nn.dynamic_rnn(cell, emb, initial_state=initial_state)
        predictions = tf.contrib.layers.fully_connected(outputs[:, -1], 1, activation_fn=tf.sigmoid)
        try:
            cost = tf.losses.mean_squared_error(labels_, predictions)
            print(cost)
        except (ValueError, TypeError) as e:
            print(type(e).__name__, str(e).splitlines()[0])
    from tensorflow.keras.layers import Input, Dense, concatenate
    from tensorflow.keras.models import Model
    from tensorflow.keras.initializers import he_normal
    from tensorflow.keras.optimizers import RMSprop
    tf.reset_default_graph()
    FEATURE_VECTOR_SIZE, AUX_FEATURE_VECTOR_SIZE, NUM_ACTIONS = 5, 7, 3
    init_weights = he_normal()
    main_input = Input(shape=(FEATURE_VECTOR_SIZE,))
    aux_input = Input(shape=(AUX_FEATURE_VECTOR_SIZE,))
    merged_input = concatenate([main_input, aux_input])
    shared1 = Dense(6, activation='relu', kernel_initializer=init_weights)(merged_input)
    shared2 = Dense(4, activation='relu', kernel_initializer=init_weights)(shared1)
    main_output = Dense(NUM_ACTIONS, activation='linear', kernel_initializer=init_weights, name='main_output')(shared2)
    aux_output = Dense(1, activation='linear', kernel_initializer=init_weights, name='aux_output')(shared2)
    rms = RMSprop(lr=0.01)
    model = Model(inputs=[main_input, aux_input], outputs=[main_output, aux_output])
    model.compile(optimizer=rms, loss='mse')
    print(model.input_names, model.output_names, merged_input)
    aux_dummy = np.zeros(shape=(AUX_FEATURE_VECTOR_SIZE,))
    print(aux_dummy.shape)
    print(aux_dummy)
    try:
        q_vals, _ = model.predict([np.eye(FEATURE_VECTOR_SIZE)[[2]], aux_dummy], batch_size=1)
    except ValueError as e:
        print('ValueError:', e)
    q_vals, _ = model.predict([np.eye(FEATURE_VECTOR_SIZE)[[2]], aux_dummy[None]], batch_size=1)
    print(q_vals.shape, _.shape)

    _printed(capsys, """\
ValueError: Shape must be rank 2 but is rank 1 for 'MatMul' (op: 'MatMul') with input shapes: [2], [2,3].
[[-0.16974813 -5.221621    0.06878403]]
(LSTMStateTuple(c=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros:0' shape=(5, 4) dtype=float32>, h=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros_1:0' shape=(5, 4) dtype=float32>),)
ValueError Shape (?, ?) must have rank at least 3
Tensor("mean_squared_error/value:0", shape=(), dtype=float32)
['input_1', 'input_2'] ['main_output', 'aux_output'] Tensor("concatenate/concat:0", shape=(?, 12), dtype=float32)
(7,)
[0. 0. 0. 0. 0. 0. 0.]
ValueError: Error when checking input: expected input_2 to have shape (7,) but got array with shape (1,)
(1, 3) (1, 1)
""")


def test_evolution_strategy_and_gather_nd_grad(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46892015_original.py (plots -> prints) and s48801893_original.py (scalar gather_nd's gradient: TF 1.15's ScatterNd ValueError) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46892015_original.py (evolution strategy with contrib's Normal; plots -> prints,
    # 50 generations -> 5) and s48801893_original.py (zeros_initializer passed as the class, gather_nd of a variable)
    from tensorflow.contrib.distributions import Normal
    tf.set_random_seed(1)
    DNA_SIZE = 1
    POP_SIZE = 10
    LR = 0.1
    N_GENERATION = 5
    def F(x):
        return x**2
    def get_fitness(value):
        return -value
    mean = tf.Variable(tf.constant(13.), dtype=tf.float32)
    sigma = tf.Variable(tf.constant(5.), dtype=tf.float32)
    N_dist = Normal(loc=mean, scale=sigma)
    make_kids = N_dist.sample([POP_SIZE])
    print(N_dist, make_kids)
    tfkids = tf.placeholder(tf.float32, [POP_SIZE, DNA_SIZE])
    tfkids_fit = tf.placeholder(tf.float32, [POP_SIZE])
    loss = -tf.reduce_mean(N_dist.log_prob(tfkids) * tfkids_fit)
    print(N_dist.log_prob(tfkids), loss)
    train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss)
    sess = tf.Session()
    init = tf.global_variables_initializer()
    sess.run(init)
    for g in range(N_GENERATION):
        kids = sess.run(make_kids)
        kids_fit = get_fitness(F(kids))
        try:
            sess.run(train_op, feed_dict={tfkids: kids, tfkids_fit: kids_fit})
        except ValueError as e:
            print('ValueError:', e)
            sess.run(train_op, feed_dict={tfkids: kids[:, None], tfkids_fit: kids_fit})
        print(g, kids.shape, sess.run([mean, sigma]))
    sess.close()
    tf.reset_default_graph()
    DEPTH = 3
    initia = tf.zeros_initializer
    I = tf.placeholder(tf.float32, shape=[None,1], name='I')
    W = tf.get_variable('W', shape=[1,DEPTH], initializer=initia, dtype=tf.float32)
    b = tf.get_variable('b', shape=[DEPTH], initializer=initia, dtype=tf.float32)
    O = tf.nn.relu(tf.matmul(I, W) + b, name='O')
    O_0 = tf.gather_nd(O, [0,0])
    W_1 = tf.gather_nd(W, [0,1])
    distance = tf.square( O_0 - W_1 )
    print(O_0, W_1, distance)
    opt = tf.train.GradientDescentOptimizer(1e-1)
    try:
        print(opt.compute_gradients(distance))
    except ValueError as e:
        print('ValueError:', e)
    O_0 = tf.gather_nd(O, [[0,0]])
    W_1 = tf.gather_nd(W, [[0,1]])
    distance = tf.reduce_sum(tf.square( O_0 - W_1 ))
    print(opt.compute_gradients(distance)[0][0])
    train_op = opt.minimize(distance)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            print(sess.run([train_op, distance, W, b], {I: [[1.0]]})[1:])

    _printed(capsys, """\
tfp.distributions.Normal("Normal/", batch_shape=(), event_shape=(), dtype=float32) Tensor("Normal/sample/Reshape:0", shape=(10,), dtype=float32)
Tensor("Normal/log_prob_1/sub:0", shape=(10, 1), dtype=float32) Tensor("Neg:0", shape=(), dtype=float32)
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
0 (10,) [11.988487, 6.6969557]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
1 (10,) [11.261312, 7.448024]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
2 (10,) [9.294285, 7.5595784]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
3 (10,) [9.952735, 5.9715333]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
4 (10,) [10.091981, 6.4867587]
Tensor("GatherNd:0", shape=(), dtype=float32) Tensor("GatherNd_1:0", shape=(), dtype=float32) Tensor("Square:0", shape=(), dtype=float32)
ValueError: Shape must be at least rank 1 but is rank 0 for 'gradients/GatherNd_grad/ScatterNd' (op: 'ScatterNd') with input shapes: [2], [], [2].
Tensor("gradients_1/AddN:0", shape=(1, 3), dtype=float32)
[0.0, array([[0., 0., 0.]], dtype=float32), array([0., 0., 0.], dtype=float32)]
[0.0, array([[0., 0., 0.]], dtype=float32), array([0., 0., 0.], dtype=float32)]
[0.0, array([[0., 0., 0.]], dtype=float32), array([0., 0., 0.], dtype=float32)]
""")


def test_queue_shapes_birnn_list_tuple_matmul_nce(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s47297536_original.py, s50088092_original.py, s46273364_original.py and s46687091_original.py (sizes shrunk) (reduced)
    import numpy as np
    import math
    # tensfa/tensfa SFData/StackOverflow s47297536_original.py (FIFOQueue shapes given as one shape's dims),
    # s50088092_original.py (bidirectional_dynamic_rnn over an unstacked list; 250 units -> 3),
    # s46273364_original.py (matmul of a tuple plus a bias) and s46687091_original.py (nce_loss with weights sized by the
    # batch; sizes shrunk, GloVe -> seeded)
    a  = np.zeros((4, 4, 3))
    dtypes=[tf.float32]
    print(len(dtypes))
    shapes=[4, 4, 3]
    print(len(shapes))
    try:
        q = tf.FIFOQueue(capacity=200,dtypes=dtypes,shapes=shapes)
    except ValueError as e:
        print('ValueError:', e)
    q = tf.FIFOQueue(capacity=200,dtypes=dtypes,shapes=[shapes])
    print(q.shapes, q.dtypes, q.names, q.name)
    dataet=[[[3, 5], [7, 2], [7, 6]],
            [[2, 5], [1, 3], [4, 3]],
            [[8, 1], [1, 8], [9, 3]],
            [[1, 5], [6, 7], [4, 9]]]
    from tensorflow.contrib import rnn
    input_x=tf.placeholder(dtype=tf.int32,shape=[4,3,2])
    input_x=tf.cast(input_x,tf.float32)
    data=tf.unstack(input_x,3,axis=1)
    print(data)
    with tf.variable_scope('encoder') as scope:
        cell=rnn.LSTMCell(num_units=3)
        try:
            model=tf.nn.bidirectional_dynamic_rnn(cell,cell,inputs=data,dtype=tf.float32)
            print(model)
        except (ValueError, TypeError) as e:
            print(type(e).__name__, str(e).splitlines()[0])
    x1 = tf.placeholder(tf.float32, shape=[])
    Wo1 = tf.Variable(tf.truncated_normal([20,1], stddev=0.1))
    bo1 = tf.Variable(tf.constant(0.1, shape=[1]))
    try:
        y1 = tf.nn.tanh(tf.matmul((x1,Wo1)+ bo1),name="op_to_restore2_")
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
    batch_size, embedding_size, vocabulary_size, num_sampled = 4, 3, 10, 2
    input_data = tf.placeholder(tf.int32, shape=[batch_size, embedding_size])
    labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
    dropout_keep_prob = tf.placeholder_with_default(1.0, shape=())
    nce_weights = tf.Variable(tf.truncated_normal([vocabulary_size, batch_size], stddev=1.0 / math.sqrt(embedding_size)))
    nce_biases = tf.Variable(tf.zeros([vocabulary_size]))
    glove_embeddings_arr = np.random.RandomState(0).rand(vocabulary_size, 5).astype(np.float32)
    embed = tf.nn.embedding_lookup(tf.convert_to_tensor(glove_embeddings_arr), input_data)
    print(embed, dropout_keep_prob)
    try:
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=labels, inputs=tf.reduce_sum(embed, 1), num_sampled=num_sampled, num_classes=vocabulary_size))
        print(loss)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])

    _printed(capsys, """\
1
3
[TensorShape([Dimension(4), Dimension(4), Dimension(3)])] [tf.float32] None fifo_queue_1
[<tf.Tensor 'unstack:0' shape=(4, 2) dtype=float32>, <tf.Tensor 'unstack:1' shape=(4, 2) dtype=float32>, <tf.Tensor 'unstack:2' shape=(4, 2) dtype=float32>]
ValueError Shape (2, 4) must have rank at least 3
ValueError Shapes must be equal rank, but are 0 and 2
Tensor("embedding_lookup/Identity:0", shape=(4, 3, 5), dtype=float32) Tensor("PlaceholderWithDefault:0", shape=(), dtype=float32)
ValueError Dimensions must be equal, but are 5 and 4 for 'nce_loss/MatMul' (op: 'MatMul') with input shapes: [4,5], [2,4].
""")


def test_keras1_conv_strides_summary_static_rnn_feed(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s42235611_original.py, s44111687_original.py and s45499757_original.py (keras -> tf.keras; sizes shrunk) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s42235611_original.py (Keras 1's Convolution2D(32, 3, 3) in tf.keras: the third
    # argument is the strides; images 160x320 -> 16x32), s44111687_original.py (static_rnn, a [1, 2] batch fed to a
    # [None, 1, 2] placeholder; 128 units -> 4) and s45499757_original.py (predict of one 1-D row)
    from tensorflow.keras.models import Sequential
    from tensorflow.keras.layers import Cropping2D, Lambda, Conv2D as Convolution2D, Activation, Flatten, Dense
    model = Sequential()
    model.add(Cropping2D(cropping=((0,0), (5,2)), input_shape=(16 ,32, 3)))
    model.add(Lambda(lambda x: x/127.5 - 1.))
    model.add(Convolution2D(4, 3, 3,))
    model.add(Activation('relu'))
    model.add(Convolution2D(4, 3, 3))
    model.add(Activation('relu'))
    model.add(Flatten())
    model.add(Dense(8))
    model.add(Activation('relu'))
    model.add(Dense(4))
    print(model.summary())
    model.compile(loss='mse', optimizer='sgd')
    rng = np.random.RandomState(0)
    X = rng.rand(10, 16, 32, 3) * 255; y = rng.rand(10, 4)
    h = model.fit(X, y, validation_split=0.2, batch_size=4, epochs=2, verbose=0)
    print(sorted(h.history), len(h.history['loss']), h.params)
    tf.reset_default_graph()
    from tensorflow.contrib import rnn
    n_input = 2
    n_steps = 1
    n_hidden = 4
    n_classes = 2
    x = tf.placeholder("float", [None, n_steps, n_input])
    y = tf.placeholder("float", [None, n_classes])
    weights = {'out': tf.Variable(tf.random_normal([n_hidden, n_classes]))}
    biases = {'out': tf.Variable(tf.random_normal([n_classes]))}
    def RNN(x, weights, biases):
        x = tf.unstack(x, n_steps, 1)
        lstm_cell = rnn.BasicLSTMCell(n_hidden, forget_bias=1.0)
        outputs, states = rnn.static_rnn(lstm_cell, x, dtype=tf.float32)
        print(outputs, states)
        return tf.matmul(outputs[-1], weights['out']) + biases['out']
    pred = RNN(x, weights, biases)
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        batch_x = np.array([1., 2.]); batch_y = np.array([[0., 1.]])
        batch_x = tf.reshape(batch_x, [1, 2]).eval()
        print(batch_x, batch_x.dtype)
        try:
            sess.run(cost, feed_dict={x: batch_x, y: batch_y})
        except ValueError as e:
            print('ValueError:', e)
        print(sess.run(cost, feed_dict={x: batch_x[None], y: batch_y}).shape)
    tf.reset_default_graph()
    model = Sequential()
    model.add(Dense(8, activation="relu", input_dim=8, kernel_initializer="uniform"))
    model.add(Dense(1, activation="sigmoid", kernel_initializer="uniform"))
    model.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])
    test = np.array([6,148,72,35,0,33.6,0.627,50])
    try:
        predictions = model.predict(test)
    except ValueError as e:
        print('ValueError:', e)
    print(model.predict(test[None]).shape)

    _printed(capsys, """\
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
=================================================================
cropping2d (Cropping2D)      (None, 16, 25, 3)         0         
_________________________________________________________________
lambda (Lambda)              (None, 16, 25, 3)         0         
_________________________________________________________________
conv2d (Conv2D)              (None, 5, 8, 4)           112       
_________________________________________________________________
activation (Activation)      (None, 5, 8, 4)           0         
_________________________________________________________________
conv2d_1 (Conv2D)            (None, 1, 2, 4)           148       
_________________________________________________________________
activation_1 (Activation)    (None, 1, 2, 4)           0         
_________________________________________________________________
flatten (Flatten)            (None, 8)                 0         
_________________________________________________________________
dense (Dense)                (None, 8)                 72        
_________________________________________________________________
activation_2 (Activation)    (None, 8)                 0         
_________________________________________________________________
dense_1 (Dense)              (None, 4)                 36        
=================================================================
Total params: 368
Trainable params: 368
Non-trainable params: 0
_________________________________________________________________
None
['loss', 'val_loss'] 2 {'batch_size': 4, 'epochs': 2, 'steps': None, 'samples': 8, 'verbose': 0, 'do_validation': True, 'metrics': ['loss', 'val_loss']}
[<tf.Tensor 'rnn/basic_lstm_cell/Mul_2:0' shape=(?, 4) dtype=float32>] LSTMStateTuple(c=<tf.Tensor 'rnn/basic_lstm_cell/Add_1:0' shape=(?, 4) dtype=float32>, h=<tf.Tensor 'rnn/basic_lstm_cell/Mul_2:0' shape=(?, 4) dtype=float32>)
[[1. 2.]] float64
ValueError: Cannot feed value of shape (1, 2) for Tensor 'Placeholder:0', which has shape '(?, 1, 2)'
()
ValueError: Error when checking input: expected dense_input to have shape (8,) but got array with shape (1,)
(1, 1)
""")


def test_keras_input_dim_float64_rnn_uninitialized_interactive(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46858890_original.py, s49703387_original.py and s48250510_original.py (keras -> tf.keras; sizes shrunk) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46858890_original.py (Dense(1, input_dim=5) fit on [5, 1] columns; its
    # undefined y_val defined), s49703387_original.py (dynamic_rnn over float64 embeddings; sizes shrunk) and
    # s48250510_original.py (an InteractiveSession stepping uninitialized variables; MNIST -> seeded rows)
    from tensorflow.keras.models import Sequential
    from tensorflow.keras.layers import Dense
    x = np.array([[1],[2],[3],[4],[5]])
    y = np.array([[1],[2],[3],[4],[5]])
    x_val = np.array([[6],[7]])
    y_val = np.array([[6],[7]])
    model = Sequential()
    model.add(Dense(1, input_dim=5))
    model.compile(optimizer='rmsprop', loss='mse')
    try:
        model.fit(x, y, epochs=2, validation_data=(x_val, y_val), verbose=0)
    except ValueError as e:
        print('ValueError:', e)
    tf.reset_default_graph()
    MAX_SEQUENCE_LENGTH = 6
    lstmUnits = 4
    x = tf.placeholder(tf.int32, [None, MAX_SEQUENCE_LENGTH])
    y = tf.placeholder(tf.int32, [None])
    number_of_layers=3
    saved_embeddings = np.zeros((100, 10))
    embeddings = tf.nn.embedding_lookup(saved_embeddings, x)
    print(embeddings)
    def lstm_cell():
      return tf.contrib.rnn.BasicLSTMCell(lstmUnits,reuse=tf.get_variable_scope().reuse)
    lstmCell = tf.contrib.rnn.MultiRNNCell([lstm_cell() for _ in range(number_of_layers)])
    lstmCell = tf.contrib.rnn.DropoutWrapper(cell=lstmCell, output_keep_prob=0.75)
    try:
        outputs, final_state = tf.nn.dynamic_rnn(lstmCell, embeddings, dtype=tf.float32)
        print(outputs)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 12])
    y = tf.placeholder(tf.float32, [None, 10])
    w = tf.Variable(tf.zeros([12, 10]))
    b = tf.Variable(tf.zeros([10]))
    activation = tf.nn.softmax_cross_entropy_with_logits(logits = tf.matmul(x, w) + b, labels=y)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(activation)
    s = tf.InteractiveSession()
    rng = np.random.RandomState(0)
    try:
        for i in range(2):
            x_bat, y_bat = rng.rand(5, 12), np.eye(10)[rng.randint(0, 10, 5)]
            train_step = s.run(train, feed_dict={x: x_bat, y: y_bat})
    except tf.errors.FailedPreconditionError as e:
        print(type(e).__name__, e.message.splitlines()[0])
    s.run(tf.global_variables_initializer())
    print(s.run(train, feed_dict={x: x_bat, y: y_bat}), s.run(tf.reduce_sum(w)))
    s.close()

    _printed(capsys, """\
ValueError: Error when checking input: expected dense_input to have shape (5,) but got array with shape (1,)
Tensor("embedding_lookup/Identity:0", shape=(?, 6, 10), dtype=float64)
TypeError in converted code:
FailedPreconditionError Attempting to use uninitialized value Variable_1
None -9.536743e-07
""")


def test_keras_channels_first_and_mismatched_autoencoder(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46501505_original.py and s47842931_original.py (keras -> tf.keras; its channels-first model not run: tideflow's CPU pools take NCHW, TF 1.15's refuse, by design) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46501505_original.py (channels_first Conv2D with Keras 1's dim_ordering
    # keyword; spectrograms 1366x96 -> 12x8; keras -> tf.keras) and s47842931_original.py (a conv encoder/decoder whose
    # 28x28 input decodes to 32x32)
    from tensorflow.keras import backend as K
    from tensorflow.keras.models import Sequential, Model
    from tensorflow.keras.layers import Conv2D, MaxPooling2D, Flatten, Dense, Dropout, Input, UpSampling2D
    print(hasattr(K, 'set_image_dim_ordering'), K.image_data_format())
    K.set_image_data_format('channels_first')
    try:
        model = Sequential()
        model.add(Conv2D(4, kernel_size=(3, 3),activation='relu', padding="same", input_shape=(1, 12, 8)))
        model.add(Conv2D(4, (3, 3), activation='relu', dim_ordering="th"))
    except TypeError as e:
        print('TypeError:', e)
    model = Sequential()
    model.add(Conv2D(4, kernel_size=(3, 3),activation='relu', padding="same", input_shape=(1, 12, 8)))
    model.add(Conv2D(4, (3, 3), activation='relu'))
    model.add(MaxPooling2D(pool_size=(2, 2)))
    model.add(Flatten())
    model.add(Dense(2, activation='softmax'))
    print(model.output_shape, [l.output_shape for l in model.layers][:3])
    K.set_image_data_format('channels_last')
    tf.keras.backend.clear_session()
    inputTensor = Input((28, 28, 1))
    x = Conv2D(16, (3, 3), activation='relu', padding='same')(inputTensor)
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(x)
    x = MaxPooling2D((2, 2), padding='same')(x)
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(x)
    encoded_data = MaxPooling2D((2, 2), padding='same')(x)
    encoder_model = Model(inputTensor,encoded_data)
    print(encoder_model.output_shape)
    encoded_input = Input((4,4,8))
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(encoded_input)
    x = UpSampling2D((2, 2))(x)
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(x)
    x = UpSampling2D((2, 2))(x)
    x = Conv2D(16, (3, 3), activation='relu',padding='same')(x)
    x = UpSampling2D((2, 2))(x)
    decoded_data = Conv2D(1, (3, 3), activation='sigmoid', padding='same')(x)
    decoder_model = Model(encoded_input, decoded_data)
    print(decoder_model.output_shape)
    try:
        auto = Model(inputTensor, decoder_model(encoder_model(inputTensor)))
    except ValueError as e:
        print('ValueError:', str(e).splitlines()[0])

    _printed(capsys, """\
False channels_last
TypeError: ('Keyword argument not understood:', 'dim_ordering')
(None, 2) [(None, 4, 12, 8), (None, 4, 10, 6), (None, 4, 5, 3)]
(None, 7, 7, 8)
(None, 32, 32, 1)
""")


def test_string_in_feed_and_finalized_graph(capsys, tmp_path):
    # Asher-1/AI ML/linearRegression/11_placeholder.py and mtanti/deeplearningtutorial tensorflow/01_-_Introduction_to_Tensorflow/04_-_Variably_sized_tensors.py (reduced)
    import numpy as np
    # Asher-1/AI ML/linearRegression/11_placeholder.py (a feed mixing a string into numbers) and
    # mtanti/deeplearningtutorial tensorflow/01_-_Introduction_to_Tensorflow/04_-_Variably_sized_tensors.py
    # (a finalized graph fed batches of several sizes)
    A = tf.placeholder(tf.float32, shape=(None, 3))
    B = A + 5
    with tf.Session() as sess:
        B_val_1 = B.eval(feed_dict={A: [[1, 2, 3]]})
        try:
            B_val_2 = B.eval(feed_dict={A: [["4", 5, 6], [7, 8, 9]]})
        except Exception as e:
            B_val_2 = None
            print(type(e).__name__, e)
    print(B_val_1)
    print(B_val_2)
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [None], 'a')
        b = tf.placeholder(tf.float32, [None, 2], 'b')
        g.finalize()
        print(g.finalized)
        with tf.Session() as s:
            [ result ] = s.run([ a ], { a: [1.0] })
            print(result)
            [ result ] = s.run([ a ], { a: [1.0, 2.0, 3.0] })
            print(result)
            [ result ] = s.run([ b ], { b: [[1.0, 2.0]] })
            print(result)
            [ result ] = s.run([ b ], { b: [[1.0,2.0], [3.0,4.0], [5.0,6.0]] })
            print(result)
            try:
                s.run(a + 1, {a: [1.0]})
            except RuntimeError as e:
                print('RuntimeError:', e)
            try:
                s.run(b, {b: [[1.0, 2.0], [3.0]]})
            except Exception as e:
                print(type(e).__name__, str(e).splitlines()[0])

    _printed(capsys, """\
[[6. 7. 8.]]
[[ 9. 10. 11.]
 [12. 13. 14.]]
True
[1.]
[1. 2. 3.]
[[1. 2.]]
[[1. 2.]
 [3. 4.]
 [5. 6.]]
RuntimeError: Graph is finalized and cannot be modified.
ValueError setting an array element with a sequence.
""")


def test_interactive_session_runs_no_grappler():
    # TF 1.15's InteractiveSession sets graph_options.place_pruned_graph (and, given no config,
    # gpu_options.allow_growth); under place_pruned_graph TF runs no grappler pass: log(softmax)
    # stays two ops (-inf where the softmax underflows) and x ** 2 stays a powf (measured)
    import numpy as np
    x = tf.placeholder(tf.float32, [1, 2])
    y = tf.log(tf.nn.softmax(x))
    z = tf.pow(x, 2.0)
    got = []
    for mk in (lambda: tf.Session(), lambda: tf.InteractiveSession(),
               lambda: tf.Session(config=tf.ConfigProto(
                   graph_options=tf.GraphOptions(place_pruned_graph=True)))):
        s = mk()
        try:
            got.append((s.run(y, {x: [[0., 200.]]}).tolist(),
                        s.run(z, {x: [[0.04496875, 3.]]}).view(np.int32).tolist()))
        finally:
            s.close()
    assert got == [([[-200.0, 0.0]], [[990152369, 1091567616]]),
                   ([[-np.inf, 0.0]], [[990152370, 1091567616]]),
                   ([[-np.inf, 0.0]], [[990152370, 1091567616]])]
    s = tf.InteractiveSession(config=tf.ConfigProto(log_device_placement=False))
    try:
        assert (s._config.graph_options.place_pruned_graph, s._config.gpu_options.allow_growth) == (
            True, False)
    finally:
        s.close()
    s = tf.InteractiveSession()
    try:
        assert (s._config.graph_options.place_pruned_graph, s._config.gpu_options.allow_growth) == (
            True, True)
    finally:
        s.close()
