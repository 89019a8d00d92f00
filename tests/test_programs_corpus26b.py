"""TF 1.x programs from public repositories (text, tabular, RL and small utilities), each
reduced to a standalone form with small synthetic data: the API calls, graph structure and
training loop kept, sizes and step counts shrunk. Expected values were printed by TF 1.15
(tensorflow-cpu 1.15.0) running the same reduced program with the same seeds."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _f32(x):
    return np.float32(x).item()


@pytest.mark.parametrize("k, plain, transposed_b", [
    # measured in TF 1.15: RandomState(0) draws, [1, k] @ [k, 1] and [1, k] @ ([1, k])^T
    (20, 2.399787425994873, 2.3997879028320312),
    (37, -12.837834358215332, -12.837833404541016),
    (200, 26.5933837890625, 26.593381881713867),
])
def test_row_times_column_matmul_adds_in_tfs_order(k, plain, transposed_b):
    # a batch-of-one critic's value (state [1, n] @ w [n, 1]): TF's matrix-vector product adds
    # the products in order (blocks of 16 from k = 128), or by 8-float lanes with b transposed;
    # tideflow took NumPy's dot there, a last bit away in a third of the cases
    rs = np.random.RandomState(0)
    for kk in (20, 37, 200):
        u = rs.randn(1, kk).astype(np.float32)
        w = rs.randn(kk, 1).astype(np.float32)
        if kk == k:
            break
    a = tf.placeholder(tf.float32, [1, k])
    b = tf.placeholder(tf.float32, [k, 1])
    bt = tf.placeholder(tf.float32, [1, k])
    with tf.Session() as sess:
        r1, r2 = sess.run([tf.matmul(a, b), tf.matmul(a, bt, transpose_b=True)],
                          {a: u, b: w, bt: w.T})
    assert r1.item() == plain and r2.item() == transposed_b


def test_sadaku_actor_critic_with_one_state_per_step():
    # Sadaku1993/ReinforcementLearning Actor_Critic/actor_critic.py (CartPole replaced by a
    # small deterministic environment): tf.random_normal weights, softmax policy indexed by a
    # fed action, critic TD error r + GAMMA * v_ - v, two AdamOptimizers in scopes 'train'
    np.random.seed(2)
    tf.set_random_seed(2)
    gamma = 0.9

    def layer(x, n_in, n_out, act):
        w = tf.Variable(tf.random_normal([n_in, n_out], stddev=1.0))
        b = tf.Variable(tf.random_normal([n_out], stddev=0.1))
        return act(tf.add(tf.matmul(x, w), b)), w

    s_a = tf.placeholder(tf.float32, [1, 4], "state")
    a_ph = tf.placeholder(tf.int32, None, "act")
    td_ph = tf.placeholder(tf.float32, None, "td_error")
    with tf.variable_scope("Actor"):
        h, w_first = layer(s_a, 4, 20, tf.nn.relu)
        probs, _ = layer(h, 20, 2, tf.nn.softmax)
    with tf.variable_scope("exp_v"):
        log_prob = tf.log(probs[0, a_ph])
        exp_v = tf.reduce_mean(log_prob * td_ph)
    with tf.variable_scope("train"):
        train_a = tf.train.AdamOptimizer(0.001).minimize(-exp_v)
    s_c = tf.placeholder(tf.float32, [1, 4], "state")
    v_next = tf.placeholder(tf.float32, [1, 1], "v_next")
    r_ph = tf.placeholder(tf.float32, None, "r")
    with tf.variable_scope("Critic"):
        hc, _ = layer(s_c, 4, 20, tf.nn.relu)
        v, _ = layer(hc, 20, 1, tf.identity)
    with tf.variable_scope("squared_TD_error"):
        td = r_ph + gamma * v_next - v
        loss = tf.square(td)
    with tf.variable_scope("train"):
        train_c = tf.train.AdamOptimizer(0.01).minimize(loss)
    # names printed by TF 1.15
    assert w_first.name == "Actor/Variable:0" and log_prob.name == "exp_v/Log:0"
    assert train_a.name == "train/Adam" and train_c.name == "train_1/Adam"
    assert s_c.name == "state_1:0" and td.name == "squared_TD_error/sub:0"
    assert td.shape.ndims is None and exp_v.shape.as_list() == []
    env = np.random.RandomState(1)
    got = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(2):
            x = env.uniform(-0.05, 0.05, 4)
            for t in range(12):
                p = sess.run(probs, {s_a: x[None]})
                act = np.random.choice(2, p=p.ravel())
                x2 = x + (0.1 if act else -0.1) * np.array([1, 0.5, -0.3, 0.2])
                x2 = x2 + env.normal(0, 0.01, 4)
                done = abs(x2[0]) > 0.5 or t == 11
                r = -20.0 if done else 1.0
                vn = sess.run(v, {s_c: x2[None]})
                err, _ = sess.run([td, train_c], {s_c: x[None], v_next: vn, r_ph: r})
                ev, _ = sess.run([exp_v, train_a], {s_a: x[None], a_ph: act, td_ph: err})
                x = x2
                if done:
                    got.append((err.item(), ev.item()))
                    break
    # measured in TF 1.15 (episode-end TD error and exp_v)
    assert got == [(_f32(-20.897753), _f32(10.412056)), (_f32(-19.736675), _f32(13.880735))]


def test_fused_dense_of_a_batch_of_one_takes_the_matrix_vector_order():
    # a dense layer's MatMul + BiasAdd (fused by TF's remapper) on a single example: TF's
    # _FusedMatMul contracts a row vector with Eigen's matrix-vector product, as the plain
    # MatMul does (with b transposed: each output's products in order), not the GEMM; the
    # expected values were printed by TF 1.15 for all three forms
    rs = np.random.RandomState(3)
    x = rs.randn(1, 20).astype(np.float32)
    w = rs.randn(20, 3).astype(np.float32)
    b = rs.randn(3).astype(np.float32)
    px = tf.placeholder(tf.float32, [None, 20])
    o1 = tf.nn.bias_add(tf.matmul(px, tf.constant(w)), tf.constant(b))
    o2 = tf.nn.bias_add(tf.matmul(px, tf.constant(w.T.copy()), transpose_b=True),
                        tf.constant(b))
    o3 = tf.nn.bias_add(tf.matmul(px, tf.constant(w[:, :1].copy())), tf.constant(b[:1]))
    with tf.Session() as sess:
        r1, r2, r3 = sess.run([o1, o2, o3], {px: x})
    expect = [_f32(-6.5490641593933105), _f32(1.6112483739852905), _f32(-2.193943977355957)]
    assert r1.ravel().tolist() == expect and r2.ravel().tolist() == expect
    assert r3.ravel().tolist() == expect[:1]


def test_chyyk_time_series_rnn_predicts_one_window():
    # CH-YYK/RNN-Time-Series-tf test_ts.py: OutputProjectionWrapper(BasicRNNCell(relu)) in
    # dynamic_rnn, MSE loss (GradientDescent here, Adam's square-root packets being a known
    # last-bit difference), then the prediction for one window (a batch of one through the
    # fused projection inside the while loop)
    tf.set_random_seed(42)
    X = tf.placeholder(tf.float32, [None, 6, 1])
    y = tf.placeholder(tf.float32, [None, 6, 1])
    cell = tf.contrib.rnn.OutputProjectionWrapper(
        tf.contrib.rnn.BasicRNNCell(num_units=10, activation=tf.nn.relu), output_size=1)
    outputs, states = tf.nn.dynamic_rnn(cell, X, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(outputs - y))
    training_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    series = (np.sin(np.arange(40)) + 1 + 0.1 * np.random.RandomState(0).randn(40))
    series = series.astype(np.float32)
    got = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for it in range(4):
            xb = np.stack([series[it + j: it + j + 6] for j in range(4)])[..., None]
            yb = np.stack([series[it + j + 1: it + j + 7] for j in range(4)])[..., None]
            sess.run(training_op, {X: xb, y: yb})
            got.append(loss.eval({X: xb, y: yb}).item())
        pred = sess.run(outputs, {X: xb[:1]}).ravel().tolist()
        st = sess.run(states, {X: xb[:1]}).ravel().tolist()
    # measured in TF 1.15
    assert (outputs.name, states.name) == ("rnn/transpose_1:0", "rnn/while/Exit_3:0")
    assert got == [_f32(v) for v in (0.5120176672935486, 0.47236180305480957,
                                     0.4345869719982147, 0.3640495240688324)]
    assert pred == [_f32(v) for v in (1.1121160984039307, 0.9038900136947632,
                                      0.2213677167892456, 0.6554040908813477,
                                      1.4140844345092773, 1.554412841796875)]
    assert st == [_f32(v) for v in (0.4545340836048126, 0.6011241674423218,
                                    0.5528289675712585, 0.0, 0.0, 0.9303373098373413,
                                    0.5723938345909119, 0.0, 0.0, 0.0)]


def test_panlc_weighted_categorical_indicator_shapes():
    # panlc2004/tensorflow_L src/feature_column_demo/weighted_categorical_column.py: a weighted
    # vocabulary-list column's indicator. TF's shape inference evaluates the merged shape only
    # when the ids and weights come from constants alone: a vocabulary table's lookup (or a
    # feed) leaves the batch unknown, identity and hashed ids keep it (shapes from TF 1.15)
    fc = tf.feature_column
    feats = {"color": [["R"], ["A"], ["G"], ["B"], ["R"]],
             "weight": [[1.0], [5.0], [4.0], [8.0], [3.0]],
             "cid": [[1], [2], [0], [3], [1]], "ch": [["a"], ["b"], ["c"], ["d"], ["e"]]}
    color = fc.categorical_column_with_vocabulary_list(
        "color", ["R", "G", "B", "A"], dtype=tf.string, default_value=-1)
    shapes = []
    for cat in (color, fc.categorical_column_with_identity("cid", 4),
                fc.categorical_column_with_hash_bucket("ch", 4)):
        with tf.Graph().as_default():
            t = fc.input_layer(feats, [fc.indicator_column(
                fc.weighted_categorical_column(cat, "weight"))])
            shapes.append(t.shape.as_list())
            if cat is color:
                with tf.Session() as sess:
                    sess.run(tf.tables_initializer())
                    value = sess.run(t)
    with tf.Graph().as_default():
        col = fc.indicator_column(fc.weighted_categorical_column(
            fc.categorical_column_with_identity("cid", 4), "weight"))
        fed = fc.input_layer({"cid": tf.placeholder(tf.int64, [5, 1]),
                              "weight": tf.placeholder(tf.float32, [5, 1])}, [col])
        shapes.append(fed.shape.as_list())
    assert shapes == [[None, 4], [5, 4], [5, 4], [None, 4]]
    assert value.tolist() == [[1, 0, 0, 0], [0, 0, 0, 5], [0, 4, 0, 0], [0, 0, 8, 0], [3, 0, 0, 0]]


def _sherjil_model(model, batch, steps, infer=False):
    # sherjilozair/char-rnn-tensorflow model.py (an early version): one cell object repeated in
    # MultiRNNCell, legacy_seq2seq.rnn_decoder with an argmax loop function when sampling,
    # sequence_loss_by_example given vocab_size as average_across_timesteps, clipped Adam
    rnn, seq2seq = tf.contrib.rnn, tf.contrib.legacy_seq2seq
    cell_fn = {"gru": rnn.GRUCell, "lstm": rnn.BasicLSTMCell}[model]
    cell = cell_fn(8, state_is_tuple=True)
    cell = rnn.MultiRNNCell([cell] * 2, state_is_tuple=True)
    x = tf.placeholder(tf.int32, [batch, steps])
    y = tf.placeholder(tf.int32, [batch, steps])
    init = cell.zero_state(batch, tf.float32)
    with tf.variable_scope("rnnlm"):
        softmax_w = tf.get_variable("softmax_w", [8, 8])
        softmax_b = tf.get_variable("softmax_b", [8])
    embedding = tf.get_variable("embedding", [8, 8])
    inputs = [tf.squeeze(i, [1]) for i in tf.split(tf.nn.embedding_lookup(embedding, x), steps, 1)]

    def loop(prev, _):
        prev = tf.matmul(prev, softmax_w) + softmax_b
        return tf.nn.embedding_lookup(embedding, tf.stop_gradient(tf.argmax(prev, 1)))

    outputs, last = seq2seq.rnn_decoder(inputs, init, cell, loop_function=loop if infer else None,
                                        scope="rnnlm")
    logits = tf.matmul(tf.reshape(tf.concat(outputs, 1), [-1, 8]), softmax_w) + softmax_b
    loss = seq2seq.sequence_loss_by_example([logits], [tf.reshape(y, [-1])],
                                            [tf.ones([batch * steps])], 8)
    cost = tf.reduce_sum(loss) / batch / steps
    lr = tf.Variable(0.0, trainable=False)
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(cost, tvars), 5.0)
    train = tf.train.AdamOptimizer(lr).apply_gradients(zip(grads, tvars))
    return x, y, init, last, tf.nn.softmax(logits), cost, lr, train


def test_sherjil_char_rnn_with_one_cell_repeated(tmp_path):
    # GRUCell takes no state_is_tuple: TF 1.15's keras-style check raises TypeError with two
    # arguments, so str() prints a tuple (tideflow printed one string)
    with pytest.raises(TypeError) as err:
        _sherjil_model("gru", 4, 5)
    assert err.value.args == ("Keyword argument not understood:", "state_is_tuple")
    tf.set_random_seed(9)
    x, y, init, last, probs, cost, lr, train = _sherjil_model("lstm", 4, 5)
    # the repeated cell builds its weights once and both layers share them (TF 1.15's names)
    assert [v.name for v in tf.trainable_variables()] == [
        "rnnlm/softmax_w:0", "rnnlm/softmax_b:0", "embedding:0",
        "rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0",
        "rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0"]
    assert last[1].h.name == "rnnlm_1/rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/Mul_29:0"
    assert cost.name == "truediv_1:0" and probs.shape.as_list() == [20, 8]
    data = np.random.RandomState(0).randint(0, 8, 100)
    costs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(lr, 0.01))
        state = sess.run(init)
        for step in range(4):
            feed = {x: data[step * 20:step * 20 + 20].reshape(4, 5),
                    y: data[step * 20 + 1:step * 20 + 21].reshape(4, 5)}
            for i, (c, h) in enumerate(init):
                feed[c], feed[h] = state[i].c, state[i].h
            c, state, _ = sess.run([cost, last, train], feed)
            costs.append(c.item())
        path = tf.train.Saver().save(sess, str(tmp_path / "model.ckpt"), global_step=4)
    # measured in TF 1.15
    assert costs == [_f32(2.1509593), _f32(2.0615234), _f32(2.1420748), _f32(2.131333)]
    with tf.Graph().as_default():
        x, _, init, last, probs, _, _, _ = _sherjil_model("lstm", 1, 1, infer=True)
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            rs = np.random.RandomState(1)
            state = sess.run(init)
            text, char = "ab ", 0
            for _ in range(20):
                feed = {x: [[char]], init: state}
                p, state = sess.run([probs, last], feed)
                char = int(np.searchsorted(np.cumsum(p[0]), rs.rand(1) * np.sum(p[0]))[0])
                text += "abcdefg "[char]
    # TF 1.15's sample from the same checkpoint and draws (the argmax loop function unused
    # with one step)
    assert text == "ab dfacaabddedfb afdeab"


def test_sadaku_policy_gradient_calls_a_model_built_with_output_lists():
    # Sadaku1993/ReinforcementLearning Policy_Gradient/policy_based.py (keras -> tf.keras, the
    # placeholder given a rank: TF 1.15 too rejects the rank-less one): Model(inputs=[x],
    # outputs=[probs]) called on a placeholder returns a tensor, as TF 1.15 unwraps a list of
    # one; compute_output_shape gives a TensorShape
    np.random.seed(3)
    tf.set_random_seed(3)
    l_input = tf.keras.layers.Input(shape=(4,))
    hidden = tf.keras.layers.Dense(20, activation="relu")(l_input)
    probs = tf.keras.layers.Dense(2, activation="softmax")(hidden)
    model = tf.keras.models.Model(inputs=[l_input], outputs=[probs])
    state = tf.placeholder(tf.float32, (None, 4))
    action = tf.placeholder(tf.float32, (None, 2))
    target = tf.placeholder(tf.float32, None)
    action_probs = model(state)
    assert isinstance(action_probs, tf.Tensor) and action_probs.name == "model/dense_1/Softmax:0"
    shape = model.compute_output_shape((None, 4))
    assert isinstance(shape, tf.TensorShape) and shape.as_list() == [None, 2]
    assert isinstance(model.outputs, list) and len(model.outputs) == 1
    loss = -tf.log(tf.reduce_sum(action_probs * action)) * target
    train = tf.train.AdamOptimizer(0.0005).minimize(loss)
    env = np.random.RandomState(7)
    out = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        s = env.uniform(-0.05, 0.05, 4)
        steps = []
        for _ in range(6):
            p = sess.run(action_probs, {state: [s]})[0]
            a = np.random.choice(2, p=p)
            steps.append((s, a))
            s = s + (0.1 if a else -0.1) + env.normal(0, 0.01, 4)
        for t, (s, a) in enumerate(steps):
            feed = {state: [s], target: 6.0 - t, action: tf.keras.utils.to_categorical([a], 2)}
            sess.run(train, feed)
            out.append(sess.run(loss, feed).item())
    # measured in TF 1.15
    assert out == [4.097923755645752, 3.643934488296509, 2.4998233318328857, 1.994394063949585,
                   1.3534376621246338, 0.7152084708213806]


def test_allawn_word2vec_nce_loss_trains_with_sampled_candidates():
    # allawn/dl book/nlp/word2vec.py (vocabulary 5000 -> 50, embedding 128 -> 16, run 5 steps)
    import math

    tf.set_random_seed(3)
    vocab, size, batch = 50, 16, 8
    embeddings = tf.Variable(tf.random_uniform([vocab, size], -1.0, 1.0))
    nce_weights = tf.Variable(tf.truncated_normal([vocab, size], stddev=1.0 / math.sqrt(size)))
    nce_biases = tf.Variable(tf.zeros([vocab]))
    train_inputs = tf.placeholder(tf.int32, shape=[batch])
    train_labels = tf.placeholder(tf.int32, shape=[batch, 1])
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)
    loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases,
                                         labels=train_labels, inputs=embed, num_sampled=6,
                                         num_classes=vocab))
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=1.0).minimize(loss)
    assert embed.name == "embedding_lookup/Identity:0" and loss.name == "Mean:0"
    assert (optimizer.name, optimizer.type) == ("GradientDescent", "NoOp")
    rs = np.random.RandomState(0)
    got = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(5):
            x = rs.randint(0, vocab, batch)
            y = rs.randint(0, vocab, (batch, 1))
            _, v = sess.run([optimizer, loss], {train_inputs: x, train_labels: y})
            got.append(v.item())
        first = sess.run(embeddings)[0, :2].tolist()
    # measured in TF 1.15 (the log-uniform candidates drawn by TF's sampler)
    assert got == [_f32(v) for v in (10.097733, 14.143898, 10.3363905, 9.791404, 12.16618)]
    assert np.allclose(first, [-0.21004514, 0.34613276], atol=1e-8, rtol=0)


def test_tlatkowski_matrix_factorization_recommender():
    # tlatkowski/neural-recommender models/matrix_factorization.py: get_variable embeddings
    # (default glorot), tf.gather, a sigmoid dense layer, tf.losses.sigmoid_cross_entropy and
    # Adam, in a graph of its own. Ratings fed as [None] (the program's) fail as in TF 1.15.
    def build(ratings_shape):
        graph = tf.Graph()
        with graph.as_default():
            tf.set_random_seed(11)
            users = tf.placeholder(dtype=tf.int32, shape=[None])
            items = tf.placeholder(dtype=tf.int32, shape=[None])
            ratings = tf.placeholder(dtype=tf.float32, shape=ratings_shape)
            with tf.name_scope("embeddings"):
                ue = tf.get_variable("users_embeddings", [20, 8])
                ie = tf.get_variable("items_embeddings", [30, 8])
                u, i = tf.gather(ue, users), tf.gather(ie, items)
            with tf.name_scope("factorization"):
                pred = tf.layers.dense(tf.multiply(u, i), units=1, activation=tf.nn.sigmoid)
            with tf.name_scope("loss"):
                loss = tf.losses.sigmoid_cross_entropy(ratings, pred)
                opt = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss)
        return graph, users, items, ratings, u, pred, loss, opt

    with pytest.raises(ValueError, match=r"Shapes \(\?, 1\) and \(\?,\) are incompatible"):
        build([None])
    graph, users, items, ratings, u, pred, loss, opt = build([None, 1])
    assert (u.name, pred.name) == ("embeddings/GatherV2:0", "factorization/dense/Sigmoid:0")
    assert loss.name == "loss/sigmoid_cross_entropy_loss/value:0"
    rs = np.random.RandomState(0)
    got = []
    with graph.as_default(), tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            feed = {users: rs.randint(0, 20, 6), items: rs.randint(0, 30, 6),
                    ratings: rs.randint(0, 2, (6, 1)).astype(np.float32)}
            got.append(sess.run([opt, loss], feed)[1].item())
        names = [v.name for v in tf.global_variables()]
    assert got == [_f32(v) for v in (0.89675885, 0.71880436, 0.7324931, 0.7246137)]
    assert names[4:8] == ["loss/beta1_power:0", "loss/beta2_power:0",
                          "users_embeddings/Adam:0", "users_embeddings/Adam_1:0"]


def test_sadaku_dqn_collections_and_target_replacement():
    # Sadaku1993/ReinforcementLearning DeepQLearning/dqn.py: get_variable with collections=
    # ['eval_net_params', GLOBAL_VARIABLES], target nets replaced by tf.assign over the two
    # collections, RMSProp on squared_difference (the gym loop replaced by random batches)
    np.random.seed(1)
    tf.set_random_seed(1)
    s = tf.placeholder(tf.float32, [None, 4], name="s")
    q_target = tf.placeholder(tf.float32, [None, 2], name="Q_target")
    s_ = tf.placeholder(tf.float32, [None, 4], name="s_")
    w_init, b_init = tf.random_normal_initializer(0., 0.3), tf.constant_initializer(0.1)

    def net(x, names):
        with tf.variable_scope("l1"):
            w1 = tf.get_variable("w1", [4, 10], initializer=w_init, collections=names)
            b1 = tf.get_variable("b1", [1, 10], initializer=b_init, collections=names)
            h = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf.variable_scope("l2"):
            w2 = tf.get_variable("w2", [10, 2], initializer=w_init, collections=names)
            b2 = tf.get_variable("b2", [1, 2], initializer=b_init, collections=names)
            return tf.matmul(h, w2) + b2

    with tf.variable_scope("eval_net"):
        q_eval = net(s, ["eval_net_params", tf.GraphKeys.GLOBAL_VARIABLES])
    with tf.variable_scope("loss"):
        loss = tf.reduce_mean(tf.squared_difference(q_target, q_eval))
    with tf.variable_scope("train"):
        train_op = tf.train.RMSPropOptimizer(0.01).minimize(loss)
    with tf.variable_scope("target_net"):
        q_next = net(s_, ["target_net_params", tf.GraphKeys.GLOBAL_VARIABLES])
    replace = [tf.assign(t, e) for t, e in zip(tf.get_collection("target_net_params"),
                                               tf.get_collection("eval_net_params"))]
    # variables of custom collections are not trainable (TF 1.15's names and lists)
    assert [v.name for v in tf.trainable_variables()] == [
        "eval_net/l1/w1:0", "eval_net/l1/b1:0", "eval_net/l2/w2:0", "eval_net/l2/b2:0",
        "target_net/l1/w1:0", "target_net/l1/b1:0", "target_net/l2/w2:0", "target_net/l2/b2:0"]
    assert [v.name for v in tf.global_variables()][4:6] == [
        "train/eval_net/l1/w1/RMSProp:0", "train/eval_net/l1/w1/RMSProp_1:0"]
    rs = np.random.RandomState(0)
    costs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(6):
            xs, xs_ = rs.randn(8, 4).astype(np.float32), rs.randn(8, 4).astype(np.float32)
            if step % 3 == 0:
                sess.run(replace)
            qn, qe = sess.run([q_next, q_eval], {s_: xs_, s: xs})
            qt = qe.copy()
            qt[np.arange(8), rs.randint(0, 2, 8)] = rs.rand(8) + 0.9 * np.max(qn, axis=1)
            costs.append(sess.run([train_op, loss], {s: xs, q_target: qt})[1].item())
        b2 = sess.run(tf.get_collection("target_net_params")[3])
    # measured in TF 1.15 (the last a bit away: RMSProp's square roots over 8-float packets
    # are the CPU's approximation in TF's kernel, docs/design.md)
    assert costs[:5] == [0.18727774918079376, 0.30189481377601624, 0.19560740888118744,
                         0.30223220586776733, 0.49143186211586]
    assert abs(costs[5] - 0.4628894031047821) < 1e-6
    assert b2.tolist() == [[0.10786686092615128, 0.11066947877407074]]


def test_lizongyue_seq2seq_trains_saves_and_decodes_from_the_meta_graph(tmp_path):
    # LiZongyue/Classic-Model-Repoduce Seq2Seq/Seq2Seq.py (letters sorted by a seq2seq model):
    # embed_sequence encoder of LSTMCells, TrainingHelper and GreedyEmbeddingHelper decoders
    # sharing a scope, dynamic_decode with impute_finished, sequence_loss, clipped gradients
    # (GradientDescent here, Adam's square-root packets being a known last-bit difference),
    # then import_meta_graph + restore and greedy decoding by tensor names
    import random

    rnd = random.Random(1)
    src = ["".join(rnd.choice("abcdefgh") for _ in range(rnd.randint(3, 6))) for _ in range(16)]
    special = ["<PAD>", "<UNK>", "<GO>", "<EOS>"]
    letters = special + sorted(set("".join(src)))
    to_int = {c: i for i, c in enumerate(letters)}
    sources = [[to_int[c] for c in s] for s in src]
    targets_ = [[to_int[c] for c in sorted(s)] + [to_int["<EOS>"]] for s in src]
    batch, vocab = 4, len(letters)
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(6)
        inputs = tf.placeholder(tf.int32, [None, None], name="inputs")
        targets = tf.placeholder(tf.int32, [None, None], name="targets")
        tlen = tf.placeholder(tf.int32, (None,), name="target_sequence_length")
        max_tlen = tf.reduce_max(tlen, name="max_target_len")
        slen = tf.placeholder(tf.int32, (None,), name="source_sequence_length")

        def cells():
            return tf.contrib.rnn.MultiRNNCell([tf.contrib.rnn.LSTMCell(
                8, initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=2)) for _ in range(2)])

        enc_in = tf.contrib.layers.embed_sequence(inputs, vocab, 5)
        _, enc_state = tf.nn.dynamic_rnn(cells(), enc_in, sequence_length=slen, dtype=tf.float32)
        ending = tf.strided_slice(targets, [0, 0], [batch, -1], [1, 1])
        dec_input = tf.concat([tf.fill([batch, 1], to_int["<GO>"]), ending], 1)
        dec_emb = tf.Variable(tf.random_uniform([vocab, 5]))
        dec_cell = cells()
        out_layer = tf.layers.Dense(vocab, kernel_initializer=tf.truncated_normal_initializer(
            mean=0.0, stddev=0.1))
        with tf.variable_scope("decode"):
            helper = tf.contrib.seq2seq.TrainingHelper(
                inputs=tf.nn.embedding_lookup(dec_emb, dec_input), sequence_length=tlen,
                time_major=False)
            train_out, _, _ = tf.contrib.seq2seq.dynamic_decode(
                tf.contrib.seq2seq.BasicDecoder(dec_cell, helper, enc_state, out_layer),
                impute_finished=True, maximum_iterations=max_tlen)
        with tf.variable_scope("decode", reuse=True):
            start = tf.tile(tf.constant([to_int["<GO>"]], dtype=tf.int32), [batch],
                            name="start_tokens")
            greedy = tf.contrib.seq2seq.GreedyEmbeddingHelper(dec_emb, start, to_int["<EOS>"])
            pred_out, _, _ = tf.contrib.seq2seq.dynamic_decode(
                tf.contrib.seq2seq.BasicDecoder(dec_cell, greedy, enc_state, out_layer),
                impute_finished=True, maximum_iterations=max_tlen)
        logits = tf.identity(train_out.rnn_output, "logits")
        tf.identity(pred_out.sample_id, name="predictions")
        masks = tf.sequence_mask(tlen, max_tlen, dtype=tf.float32, name="masks")
        with tf.name_scope("optimization"):
            cost = tf.contrib.seq2seq.sequence_loss(logits, targets, masks)
            opt = tf.train.GradientDescentOptimizer(0.5)
            grads = opt.compute_gradients(cost)
            train_op = opt.apply_gradients(
                [(tf.clip_by_value(g, -5., 5.), v) for g, v in grads if g is not None])
        names = (train_out.rnn_output.name, pred_out.sample_id.name, masks.name, cost.name)

    def pad(rows):
        n = max(len(r) for r in rows)
        return np.array([r + [0] * (n - len(r)) for r in rows])

    losses = []
    with tf.Session(graph=graph) as sess:
        sess.run(tf.global_variables_initializer())
        for b in range(4):
            s, t = sources[b * 4:b * 4 + 4], targets_[b * 4:b * 4 + 4]
            _, loss = sess.run([train_op, cost], {inputs: pad(s), targets: pad(t),
                                                  tlen: [len(x) for x in t],
                                                  slen: [len(x) for x in s]})
            losses.append(loss.item())
        path = tf.train.Saver().save(sess, str(tmp_path / "trained_model.ckpt"))
    word = [to_int[c] for c in "hgfab"] + [0, 0]
    loaded = tf.Graph()
    with tf.Session(graph=loaded) as sess:
        tf.train.import_meta_graph(path + ".meta").restore(sess, path)
        feed = {"inputs:0": [word] * 4, "target_sequence_length:0": [5] * 4,
                "source_sequence_length:0": [5] * 4}
        answer = sess.run("predictions:0", feed)[0].tolist()
        feed["targets:0"] = [word] * 4
        first = sess.run("logits:0", feed)[0, 0, :3].tolist()
    # measured in TF 1.15
    assert names == ("decode/decoder/transpose:0", "decode_1/decoder/transpose_1:0",
                     "masks/Cast_1:0", "optimization/sequence_loss/div_no_nan:0")
    assert losses == [2.4852631092071533, 2.4715349674224854, 2.457422971725464,
                      2.4220848083496094]
    assert answer == [3]
    assert first == [-0.1632479727268219, -0.15708838403224945, -0.15678317844867706]


def test_brucesz_kmeans_with_segment_sums_and_grouped_updates():
    # bruceSz/building-ml-project-with-tensorflow code/chapter2/synthetic_data.py
    # (sklearn_gen3: make_blobs replaced by seeded NumPy blobs): float64 points, centroids from
    # points.initialized_value(), tile/reshape distances, argmin, unsorted_segment_sum means,
    # an update group under control_dependencies on reduce_any(not_equal)
    rs = np.random.RandomState(42)
    centers = [(-2, 2), (-2, 1.5), (1.5, -2), (2, 1.5)]
    data = np.concatenate([rs.randn(50, 2) * 0.8 + c for c in centers])
    n, k = 200, 2
    points = tf.Variable(data)
    assignments = tf.Variable(tf.zeros([n], dtype=tf.int64))
    centroids = tf.Variable(tf.slice(points.initialized_value(), [0, 0], [k, 2]))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    rep_centroids = tf.reshape(tf.tile(centroids, [n, 1]), [n, k, 2])
    rep_points = tf.reshape(tf.tile(points, [1, k]), [n, k, 2])
    sums = tf.reduce_sum(tf.square(rep_points - rep_centroids), reduction_indices=2)
    best = tf.argmin(sums, 1)
    changed_t = tf.reduce_any(tf.not_equal(best, assignments))
    total = tf.unsorted_segment_sum(points, best, k)
    count = tf.unsorted_segment_sum(tf.ones_like(points), best, k)
    with tf.control_dependencies([changed_t]):
        updates = tf.group(centroids.assign(total / count), assignments.assign(best))
    assert (centroids.dtype, best.dtype, updates.type) == (tf.float64_ref, tf.int64, "NoOp")
    history = []
    changed = True
    while changed and len(history) < 50:
        changed, _ = sess.run([changed_t, updates])
        history.append(bool(changed))
    c, a = sess.run([centroids, assignments])
    sess.close()
    # measured in TF 1.15
    assert history == [True, True, True, True, False]
    assert c.tolist() == [[1.8743529812040556, -0.2762168671153447],
                          [-2.035998378156475, 1.7967652045838567]]
    assert np.bincount(a).tolist() == [98, 102]


def test_brucesz_iris_csv_through_a_filename_queue(tmp_path):
    # bruceSz/building-ml-project-with-tensorflow code/chapter2/iris_load.py: match_filenames_once
    # (a local variable) into string_input_producer, TextLineReader(skip_header_lines=1),
    # decode_csv, read past the end of the file as the queue cycles through its epochs
    path = tmp_path / "iris.csv"
    path.write_text("sepal_length,sepal_width,petal_length,petal_width,species\n"
                    "5.1,3.5,1.4,0.2,setosa\n4.9,3.0,1.4,0.2,setosa\n"
                    "7.0,3.2,4.7,1.4,versicolor\n")
    sess = tf.Session()
    queue = tf.train.string_input_producer(tf.train.match_filenames_once(str(path)),
                                           shuffle=False)
    key, value = tf.TextLineReader(skip_header_lines=1).read(queue)
    c1, c2, c3, c4, c5 = tf.decode_csv(value, record_defaults=[[0.], [0.], [0.], [0.], [""]])
    feats = tf.stack([c1, c2, c3, c4])
    assert (key.name, c5.name) == ("ReaderReadV2:0", "DecodeCSV:4")
    tf.global_variables_initializer().run(session=sess)
    sess.run(tf.local_variables_initializer())
    assert [v.name for v in tf.local_variables()] == ["matching_filenames:0"]
    assert tf.global_variables() == []
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    rows = [sess.run([key, feats, c5]) for _ in range(4)]
    coord.request_stop()
    coord.join(threads)
    sess.close()
    assert [r[0].decode().rsplit(":", 1)[1] for r in rows] == ["2", "3", "4", "2"]
    assert rows[2][1].tolist() == [7.0, _f32(3.2), _f32(4.7), _f32(1.4)]
    assert [r[2] for r in rows] == [b"setosa", b"setosa", b"versicolor", b"setosa"]


def test_allawn_scope_regularizers_and_a_tfrecord_example(tmp_path):
    # allawn/dl mnist/regular.py: variable_scope(regularizer=...) puts each get_variable's
    # penalty in REGULARIZATION_LOSSES (l1 0.1 * 8 and l2 0.05 * 8 / 2 add to 1.0);
    # book/chapter4/dataloader/tffeature.py: an Example written with TFRecordWriter, read back
    # by TFRecordReader + parse_single_example (names and values as TF 1.15's)
    layers = tf.contrib.layers
    with tf.variable_scope("var", initializer=tf.random_normal_initializer(),
                           regularizer=layers.l1_regularizer(0.1)):
        tf.get_variable("weight", shape=[8], initializer=tf.ones_initializer())
    with tf.variable_scope("var2", initializer=tf.random_normal_initializer(),
                           regularizer=layers.l2_regularizer(0.05)):
        tf.get_variable("weight", shape=[8], initializer=tf.ones_initializer())
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["var/weight/Regularizer/l1_regularizer:0",
                                        "var2/weight/Regularizer/l2_regularizer:0"]
    total = tf.reduce_sum(losses)
    assert total.name == "Sum:0"
    path = str(tmp_path / "out.tfrecords")
    writer = tf.python_io.TFRecordWriter(path)
    feature = {"age": tf.train.Feature(int64_list=tf.train.Int64List(value=[30])),
               "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"wuwei"]))}
    writer.write(tf.train.Example(features=tf.train.Features(feature=feature))
                 .SerializeToString())
    writer.close()
    _, serialized = tf.TFRecordReader().read(tf.train.string_input_producer([path]))
    features = tf.parse_single_example(serialized, features={
        "name": tf.FixedLenFeature([], tf.string), "age": tf.FixedLenFeature([], tf.int64)})
    assert features["age"].name == "ParseSingleExample/ParseSingleExample:0"
    assert features["name"].name == "ParseSingleExample/ParseSingleExample:1"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(total).item() == 1.0
        assert sess.run(tf.losses.get_regularization_loss()).item() == 1.0
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord=coord)
        name, age = sess.run([features["name"], features["age"]])
        coord.request_stop()
        coord.join(threads)
    assert (name, age, type(age)) == (b"wuwei", 30, np.int64)


def test_moono_gan_1d_gaussian_with_pretrained_discriminator():
    # moono/moo-dl-practice Work-place/GAN-Gaussian-1D/GAN-Gaussian-1D-tensorflow.py (sizes
    # and epochs shrunk, scipy's norm.pdf written out, plots dropped): a pre-trained D copied
    # into the GAN's discriminator variables by assign, leaky ReLU by tf.maximum, xavier
    # dense layers reused for the fake branch, two Adams on var_lists split by name
    def dense2(x, scope, out_act, reuse=False):
        with tf.variable_scope(scope, reuse=reuse):
            init = tf.contrib.layers.xavier_initializer()
            h = tf.layers.dense(x, 32, activation=None, kernel_initializer=init)
            h = tf.maximum(0.02 * h, h)
            logits = tf.layers.dense(h, 1, activation=None, kernel_initializer=init)
            return out_act(logits), logits

    np.random.seed(0)
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        x_pre = tf.placeholder(tf.float32, [None, 1], name="inputs_pre")
        y_pre = tf.placeholder(tf.float32, [None, 1], name="labels_pre")
        d_pre, _ = dense2(x_pre, "pre", tf.sigmoid)
        pre_loss = tf.reduce_mean(tf.square(d_pre - y_pre))
        pre_vars = [v for v in tf.trainable_variables() if v.name.startswith("pre")]
        pre_opt = tf.train.AdamOptimizer(0.03, beta1=0.5).minimize(pre_loss, var_list=pre_vars)
        xs = np.linspace(-5, 5, 60)
        ys = np.exp(-0.5 * ((xs - 1.) / 1.5) ** 2) / (1.5 * np.sqrt(2 * np.pi))
        pre_losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(10):
                _, v = sess.run([pre_opt, pre_loss], {x_pre: xs.reshape(60, 1),
                                                      y_pre: ys.reshape(60, 1)})
                pre_losses.append(v.item())
            weights = sess.run(pre_vars)
    with tf.Graph().as_default():
        tf.set_random_seed(8)
        x = tf.placeholder(tf.float32, [None, 1], name="inputs_real")
        z = tf.placeholder(tf.float32, [None, 1], name="inputs_z")
        g, _ = dense2(z, "generator", tf.tanh)
        _, d_real = dense2(x, "discriminator", tf.sigmoid)
        _, d_fake = dense2(g, "discriminator", tf.sigmoid, reuse=True)
        xent = tf.nn.sigmoid_cross_entropy_with_logits
        d_loss = (tf.reduce_mean(xent(logits=d_real, labels=tf.ones_like(d_real) * 0.9))
                  + tf.reduce_mean(xent(logits=d_fake, labels=tf.zeros_like(d_real))))
        g_loss = tf.reduce_mean(xent(logits=d_fake, labels=tf.ones_like(d_fake)))
        t_vars = tf.trainable_variables()
        g_vars = [v for v in t_vars if v.name.startswith("generator")]
        d_vars = [v for v in t_vars if v.name.startswith("discriminator")]
        d_opt = tf.train.AdamOptimizer(0.001, beta1=0.5).minimize(d_loss, var_list=d_vars)
        g_opt = tf.train.AdamOptimizer(0.001, beta1=0.5).minimize(g_loss, var_list=g_vars)
        assert (d_opt.name, g_opt.name) == ("Adam", "Adam_1")
        assert [v.name for v in tf.global_variables()][-2:] == [
            "generator/dense_1/bias/Adam:0", "generator/dense_1/bias/Adam_1:0"]
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v, w in zip(d_vars, weights):
                sess.run(v.assign(w))
            for _ in range(5):
                xb = np.random.normal(1., 1.5, 30).reshape(30, 1)
                zb = (np.linspace(-5, 5, 30) + np.random.random(30) * 0.01).reshape(30, 1)
                sess.run(d_opt, {x: xb, z: zb})
                sess.run(g_opt, {z: zb})
                losses.append((sess.run(d_loss, {x: xb, z: zb}).item(),
                               g_loss.eval({z: zb}).item()))
    # measured in TF 1.15
    assert round(pre_losses[4], 8) == 0.00704052 and round(pre_losses[9], 8) == 0.00180303
    assert losses == [(_f32(a), _f32(b)) for a, b in [
        (2.0206165, 1.5237858), (1.6559889, 1.5136558), (1.7976652, 1.5095181),
        (1.7746737, 1.4973807), (1.6994919, 1.4857341)]]


def test_allawn_attention_pooling_over_rnn_outputs():
    # allawn/dl book/nlp/classattention.py and book/nlp/attentionutil.py: attention weights per
    # time step from Python-unrolled matmuls over reshaped LSTM outputs; and tensordot scores
    # masked to -inf past each sequence's length by sequence_mask + where, then softmax
    tf.set_random_seed(12)
    cell = tf.nn.rnn_cell.BasicLSTMCell(num_units=20)
    inp = tf.placeholder(tf.float32, [2, 5, 1], name="input_x")
    outputs, _ = tf.nn.dynamic_rnn(cell=cell, inputs=inp, dtype=tf.float32)
    outputs = tf.reshape(outputs, shape=[5, 2, 20])
    att_w = tf.Variable(tf.truncated_normal([20, 20], stddev=0.1), name="attention_w")
    att_b = tf.Variable(tf.constant(0.1, shape=[20]), name="attention_b")
    u_list = [tf.tanh(tf.matmul(outputs[t], att_w) + att_b) for t in range(5)]
    u_w = tf.Variable(tf.truncated_normal([20, 1], stddev=0.1), name="attention_uw")
    alpha = tf.nn.softmax(tf.concat([tf.matmul(u, u_w) for u in u_list], axis=1))
    alpha_trans = tf.reshape(tf.transpose(alpha, [1, 0]), [5, -1, 1])
    final = tf.reduce_sum(outputs * alpha_trans, 0)
    raw, _ = tf.nn.dynamic_rnn(cell, inp, dtype=tf.float32, scope="rnn2")
    w = tf.get_variable("att_h", dtype=tf.float32, shape=[20, 20],
                        initializer=tf.random_normal_initializer(stddev=0.1))
    att_h = tf.tensordot(raw, w, axes=1)
    v = tf.get_variable("att_v", dtype=tf.float32, shape=[20],
                        initializer=tf.random_normal_initializer(stddev=0.1))
    values = tf.reduce_sum(tf.multiply(att_h, v), axis=-1)
    mask = tf.sequence_mask([3, 5], maxlen=tf.shape(values)[1])
    values = tf.where(mask, values, np.float32(-np.inf) * tf.ones_like(values))
    score = tf.expand_dims(tf.nn.softmax(values, axis=-1), axis=-1)
    pooled = tf.reduce_sum(tf.multiply(raw, score), axis=1)
    assert (alpha.name, final.name) == ("Softmax:0", "Sum:0")
    assert pooled.shape.as_list() == [2, 20] and values.shape.as_list() == [2, 5]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        x = np.random.RandomState(0).rand(2, 5, 1).astype(np.float32)
        a, f, p, vals = sess.run([alpha, final, pooled, values], {inp: x})
    # measured in TF 1.15
    assert a.tolist() == [
        [0.19952425360679626, 0.20015142858028412, 0.19986717402935028, 0.19977986812591553,
         0.20067721605300903],
        [0.199995756149292, 0.20005278289318085, 0.19959041476249695, 0.20030342042446136,
         0.20005759596824646]]
    assert f[0, :3].tolist() == [-0.06086894869804382, -0.07647918164730072,
                                 0.03208249434828758]
    assert p[:, :2].tolist() == [[-0.04641595482826233, -0.05812292918562889],
                                 [-0.06473931670188904, -0.08279929310083389]]
    assert vals[0].tolist() == [-0.004008801653981209, -0.008172854781150818,
                                -0.010078320279717445, -np.inf, -np.inf]


def test_allawn_luong_attention_decoders_and_beam_search():
    # allawn/dl book/nlp/encoder2decoderdemoattention.py (sizes shrunk; the training and the
    # greedy decodes fetched in separate runs: fetched together, their loops read the one
    # TrainingHelper TensorArray twice, which TF 1.15 rejects and tideflow does not)
    s2s = tf.contrib.seq2seq
    tf.set_random_seed(3)
    enc_in = tf.placeholder(shape=[6, 2], dtype=tf.int32)
    emb_enc = tf.get_variable("embedding_encoder", [12, 4], dtype=tf.float32)
    src_len = tf.placeholder(shape=[2], dtype=tf.int32)
    enc_out, enc_state = tf.nn.dynamic_rnn(
        tf.nn.rnn_cell.BasicLSTMCell(6), tf.nn.embedding_lookup(emb_enc, enc_in),
        sequence_length=src_len, time_major=True, dtype=tf.float32)
    mech = s2s.LuongAttention(6, tf.transpose(enc_out, [1, 0, 2]),
                              memory_sequence_length=src_len)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.BasicLSTMCell(6), mech, attention_layer_size=6)
    dec_in = tf.placeholder(dtype=tf.int32, shape=[5, 2])
    emb_dec = tf.get_variable("embedding_decoder", [9, 4], dtype=tf.float32)
    dec_len = tf.placeholder(shape=[2], dtype=tf.int32)
    helper = s2s.TrainingHelper(tf.nn.embedding_lookup(emb_dec, dec_in), dec_len, time_major=True)
    projection = tf.layers.Dense(9, use_bias=False)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32).clone(
        cell_state=enc_state), output_layer=projection)
    outputs, final_state, final_lengths = s2s.dynamic_decode(decoder)
    # (the program's unused greedy helper and decoder: their ops move the later op seeds)
    s2s.GreedyEmbeddingHelper(emb_dec, tf.fill([2], 0), 1)
    s2s.BasicDecoder(cell, helper, enc_state, output_layer=projection)
    max_iter = tf.round(tf.reduce_max(src_len) * 2)
    outputs2, _, _ = s2s.dynamic_decode(decoder, maximum_iterations=max_iter)
    tiled = s2s.tile_batch(tf.transpose(enc_out, [1, 0, 2]), multiplier=3)
    tiled_len = s2s.tile_batch(src_len, multiplier=3)
    tiled_state = s2s.tile_batch(enc_state, multiplier=3)
    mech2 = s2s.LuongAttention(num_units=6, memory=tiled, memory_sequence_length=tiled_len)
    cell2 = s2s.AttentionWrapper(cell=tf.nn.rnn_cell.BasicLSTMCell(6), attention_mechanism=mech2,
                                 attention_layer_size=6)
    beam = s2s.BeamSearchDecoder(
        cell=cell2, embedding=emb_dec, start_tokens=tf.tile(tf.constant([1]), [2]), end_token=2,
        initial_state=cell2.zero_state(6, tf.float32).clone(cell_state=tiled_state),
        beam_width=3, output_layer=projection, length_penalty_weight=0.0)
    beam_out, _, _ = s2s.dynamic_decode(decoder=beam, impute_finished=False,
                                        maximum_iterations=2 * tf.reduce_max(src_len))
    # names and shapes printed by TF 1.15 (tf.round of an int32 is its input)
    assert outputs.rnn_output.name == "decoder/transpose:0"
    assert final_state.cell_state.c.name == "decoder/while/Exit_3:0"
    assert final_lengths.name == "decoder/while/Exit_11:0"
    assert (outputs2.sample_id.name, max_iter.name) == ("decoder_1/transpose_1:0", "mul:0")
    assert tiled.shape.as_list() == [6, 6, 6] and tiled_state.c.name == "tile_batch_2/Reshape:0"
    assert beam_out.predicted_ids.name == "decoder_2/transpose:0"
    assert [v.name for v in tf.global_variables()][3:5] == ["memory_layer/kernel:0",
                                                           "embedding_decoder:0"]
    rs = np.random.RandomState(0)
    feed = {enc_in: rs.randint(0, 12, (6, 2)), src_len: [4, 6],
            dec_in: rs.randint(0, 9, (5, 2)), dec_len: [5, 3]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        logits, lengths = sess.run([outputs.rnn_output, final_lengths], feed)
        ids = sess.run(outputs2.sample_id, feed)
        out = sess.run(beam_out, feed)
    # measured in TF 1.15 (the Luong scores' batched products of 6 terms added in order)
    assert logits[0, 0, :3].tolist() == [0.03132175654172897, -0.0618891604244709,
                                         -0.020131967961788177]
    assert ids.tolist() == [[7, 7, 6, 6, 6], [7, 7, 7, 6, 6]] and lengths.tolist() == [5, 3]
    assert out.predicted_ids.shape == (2, 12, 3)
    assert out.predicted_ids[:, 0].tolist() == [[2, 7, 7], [0, 0, 0]]
    np.testing.assert_allclose(out.beam_search_decoder_output.scores[-1][0],
                               [-2.121500015258789, -2.1335411071777344, -2.1844348907470703],
                               rtol=1e-6)


def test_devjalax_rnn_forecast_with_a_stacked_dense_output():
    # DevJalax/python-tutorial RNN.py (the series synthetic, windows 20 -> 6, 120 units -> 12,
    # GradientDescent for Adam): BasicRNNCell(relu) outputs reshaped to [-1, units], a dense
    # layer, reshaped back, a summed squared error; then a one-window forecast
    ts = np.sin(np.arange(61) / 3.0) * 5 + np.arange(61) * 0.1
    train, test = ts[:49], ts[49:]

    def batches(df):
        x = df[:len(df) - 1 - (len(df) - 1) % 6]
        return x.reshape(-1, 6, 1), df[1:1 + len(x)].reshape(-1, 6, 1)

    xb, yb = batches(train)
    xt, _ = batches(test)
    tf.set_random_seed(21)
    X = tf.placeholder(tf.float32, [None, 6, 1])
    y = tf.placeholder(tf.float32, [None, 6, 1])
    cell = tf.contrib.rnn.BasicRNNCell(num_units=12, activation=tf.nn.relu)
    rnn_output, _ = tf.nn.dynamic_rnn(cell, X, dtype=tf.float32)
    stacked = tf.layers.dense(tf.reshape(rnn_output, [-1, 12]), 1)
    outputs = tf.reshape(stacked, [-1, 6, 1])
    loss = tf.reduce_sum(tf.square(outputs - y))
    train_op = tf.train.GradientDescentOptimizer(learning_rate=0.0005).minimize(loss)
    assert (outputs.name, loss.name) == ("Reshape_1:0", "Sum:0")
    got = []
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        for it in range(30):
            sess.run(train_op, {X: xb, y: yb})
            if it % 6 == 0:
                got.append(loss.eval({X: xb, y: yb}).item())
        pred = sess.run(outputs, {X: xt}).ravel().tolist()
    # measured in TF 1.15
    assert got == [_f32(v) for v in (464.93933, 117.977875, 88.4966, 78.12647, 72.82465)]
    assert pred == [2.1890621185302734, 0.6310737133026123, 0.18715594708919525,
                    0.4396759271621704, 0.9580479860305786, 1.7244207859039307]


def test_batched_attention_scores_of_a_short_depth_add_in_order():
    # PyMuse-style multi-head attention (ThomasGust/PyMuse Layers/MultiHeadAttention.py) with a
    # head depth under 8: TF 1.15's BatchMatMul of several matrices adds each score's products
    # in order (a multiply, then an add), where NumPy's matmul gave a last bit off in 3 of 12
    rs = np.random.RandomState(5)
    x = rs.randn(3, 2, 6).astype(np.float32)
    y = rs.randn(3, 4, 6).astype(np.float32)
    px = tf.placeholder(tf.float32, [None, 2, 6])
    py = tf.placeholder(tf.float32, [None, 4, 6])
    with tf.Session() as sess:
        r = sess.run(tf.matmul(px, py, transpose_b=True), {px: x, py: y})
    # measured in TF 1.15
    assert r[:, 0].tolist() == [
        [-1.7487986087799072, 1.1638425588607788, 2.029862642288208, -1.196814775466919],
        [2.398632049560547, 4.432962417602539, 2.6352908611297607, -1.350431203842163],
        [1.879916787147522, 0.9415625333786011, -0.9554412961006165, -1.90870201587677]]


def test_kensak_lstm_language_model_with_fed_state_tuple():
    # kensak/tf_rnn_tutorial tf-rnn-tutorial1.py (sizes shrunk, GradientDescent for Adam, a
    # synthetic text): dynamic_rnn from an LSTMStateTuple of two placeholders, the state fed
    # back each step, clip_by_global_norm, the last logits' softmax sampled one char at a time
    import random

    rnd = random.Random(0)
    data = "".join(rnd.choice("abcde fghij\n") for _ in range(600))
    chars = sorted(set(data))
    ix = np.array([chars.index(c) for c in data])[:600 // 6 * 6]
    inputs_all, targets_all = ix.reshape(-1, 6), np.append(ix[1:], ix[0]).reshape(-1, 6)
    tf.set_random_seed(4)
    np.random.seed(4)
    input_ph = tf.placeholder(tf.int32, [None, 6], name="input_ph")
    target_ph = tf.placeholder(tf.int32, [None, 6], name="target_ph")
    embedding = tf.get_variable("embedding", [12, 8], initializer=tf.random_normal_initializer())
    cell = tf.contrib.rnn.BasicLSTMCell(8, forget_bias=0.0, state_is_tuple=True)
    initial_state = cell.zero_state(4, dtype=tf.float32)
    c_ph = tf.placeholder(tf.float32, (None, cell.state_size[0]), name="cstate_ph")
    m_ph = tf.placeholder(tf.float32, (None, cell.state_size[1]), name="mstate_ph")
    output, state = tf.nn.dynamic_rnn(cell, tf.nn.embedding_lookup(embedding, input_ph),
                                      initial_state=tf.contrib.rnn.LSTMStateTuple(c_ph, m_ph))
    softmax_w = tf.get_variable("softmax_w", [8, 12])
    softmax_b = tf.get_variable("softmax_b", [12])
    logits = tf.matmul(tf.reshape(output, [-1, 8]), softmax_w) + softmax_b
    next_prob = tf.nn.softmax(logits[-1])
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.reshape(target_ph, [-1]), logits=logits))
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5)
    train_op = tf.train.GradientDescentOptimizer(0.5).apply_gradients(
        zip(grads, tvars), global_step=tf.contrib.framework.get_or_create_global_step())
    assert initial_state.c.name == "BasicLSTMCellZeroState/zeros:0"
    assert next_prob.name == "Softmax:0" and next_prob.shape.as_list() == [12]
    losses, text = [], ""
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        stride = len(inputs_all) // 4
        next_state = sess.run(initial_state)
        for epoch in range(4):
            idx = [(epoch + x * stride) % len(inputs_all) for x in range(4)]
            next_state, _, v = sess.run([state, train_op, loss], {
                input_ph: inputs_all[idx], target_ph: targets_all[idx],
                c_ph: next_state[0], m_ph: next_state[1]})
            losses.append(v.item())
        window = ix[:6]
        for _ in range(10):
            p = sess.run(next_prob, {input_ph: [window], c_ph: next_state[0][0:1],
                                     m_ph: next_state[1][0:1]})
            c = np.random.choice(range(12), p=p)
            text += chars[c]
            window = np.append(window[1:], c)
    # measured in TF 1.15
    assert losses == [2.587050437927246, 2.5013887882232666, 2.533297300338745,
                      2.5084621906280518]
    assert text == "jfjhgaj\nbd"
