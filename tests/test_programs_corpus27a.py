"""Unseen TF 1.x programs from course and book repositories (udacity/deep-learning, the GCP
training-data-analyst ML courses, ...), each reduced to a small standalone program with
synthetic data and checked against what TF 1.15 printed and computed for the same program
(the values below were measured by running it under TF 1.15.0, tensorflow-cpu, NumPy 1.18)."""

import os

import numpy as np

import tideflow as tf


# --- GoogleCloudPlatform/training-data-analyst
#     courses/machine_learning/deepdive/05_artandscience/simplernn/trainer/model.py:
# the model_fn exports a RegressionOutput over a float placeholder; no signature is valid
# (Regress wants one string input), and TF 1.15 writes the SavedModel anyway, with only a
# warning, so train_and_evaluate's LatestExporter succeeds.
def test_gcp_simplernn_export_without_valid_signature(tmp_path):
    def model_fn(features, labels, mode):
        pred = tf.matmul(features["rawdata"], tf.Variable(tf.ones([3, 1])))
        loss = train_op = None
        if mode != tf.estimator.ModeKeys.PREDICT:
            loss = tf.losses.mean_squared_error(labels, pred)
            train_op = tf.contrib.layers.optimize_loss(
                loss=loss, global_step=tf.contrib.framework.get_global_step(),
                learning_rate=0.01, optimizer="SGD")
        return tf.estimator.EstimatorSpec(
            mode=mode, predictions={"predicted": pred}, loss=loss, train_op=train_op,
            export_outputs={"regression_export_outputs":
                            tf.estimator.export.RegressionOutput(value=pred)})

    def input_fn():
        x = np.array([[1., 2., 3.], [0., 1., -1.]], np.float32)
        y = np.array([[1.], [2.]], np.float32)
        return tf.data.Dataset.from_tensor_slices(({"rawdata": x}, y)).repeat().batch(2)

    def serving_input_fn():
        ph = {"rawdata": tf.placeholder(tf.float32, [None, 3])}
        return tf.estimator.export.ServingInputReceiver(ph, ph)

    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path / "m"))
    est.train(input_fn, steps=3)
    assert est.evaluate(input_fn, steps=1) == {"loss": np.float32(6.442289), "global_step": 3}
    path = est.export_savedmodel(str(tmp_path / "export"), serving_input_fn)
    assert sorted(os.listdir(path)) == [b"saved_model.pb", b"variables"]
    with tf.Session(graph=tf.Graph()) as sess:
        mg = tf.saved_model.loader.load(sess, ["serve"], path)
        assert dict(mg.signature_def) == {}


# --- chiphuyen/stanford-tensorflow-tutorials assignments/exercises/e01_sol.py (1f): the
# determinant of a 10x10 tf.random_normal(mean=10) matrix. TF 1.15 computes it in float (Eigen's
# unblocked partial-pivot LU, then sign * exp(sum of log|diagonal|)), which on such an
# ill-conditioned matrix is ~200 ulps from the exact value; tideflow gave the exact one.
def test_cs20_e01_float_determinant_takes_tfs_lu_bits():
    tf.set_random_seed(5)
    m = tf.random_normal([10, 10], mean=10, stddev=1, seed=3)
    b = tf.constant((np.arange(2 * 9 * 9).reshape(2, 9, 9) % 11
                     + np.eye(9) * 0.25).astype(np.float32))
    with tf.Session() as sess:
        d, (s, la), db, (sb, lab) = sess.run([tf.matrix_determinant(m), tf.linalg.slogdet(m),
                                              tf.matrix_determinant(b), tf.linalg.slogdet(b)])
    # TF 1.15's bits (measured): 10855.913, log 9.292465; [-20078742., -442892.94]
    assert np.asarray(d).view(np.uint32) == 1177132967
    assert np.asarray(la).view(np.uint32) == 1091874288 and s == 1.0
    assert db.view(np.uint32).tolist() == [3415814219, 3369615774]
    assert lab.view(np.uint32).tolist() == [1099335033, 1095763056]
    assert sb.tolist() == [-1.0, -1.0]
    # edge cases as TF 1.15 (measured): singular -> 0 (sign 0, log -inf); NaN inside -> 0 too
    with tf.Session() as sess:
        z, (zs, zl) = sess.run([tf.matrix_determinant(tf.ones([4, 4])),
                                tf.linalg.slogdet(tf.ones([4, 4]))])
        nan = sess.run(tf.matrix_determinant(tf.constant([[np.nan, 1.], [1., 1.]])))
    assert z == 0.0 and zs == 0.0 and zl == -np.inf and nan == 0.0


# --- ageron/handson-ml 15_autoencoders.ipynb (the variational autoencoder's
# partial(tf.layers.dense, activation=tf.nn.elu)): TF 1.15's remapper fuses MatMul + BiasAdd +
# Elu, whose output kernel takes each row's last n % 8 values through expf, not the packet exp.
def test_ageron_vae_dense_elu_fused_by_rows():
    tf.keras.backend.clear_session()
    with tf.Graph().as_default():
        np.random.seed(0)
        xi = np.random.randn(64, 16).astype(np.float32)
        tf.set_random_seed(1)
        m = tf.keras.Sequential([tf.keras.layers.Dense(10, activation="elu", input_shape=(16,))])
        p = m.predict(xi)  # predict's target waits on the Elu: not fused
        x = tf.placeholder(tf.float32, [None, 16])
        d = tf.layers.dense(x, 10, activation=tf.nn.elu)
        with tf.control_dependencies([d]):
            z = tf.identity(x)
        sess = tf.keras.backend.get_session()
        sess.run(tf.global_variables_initializer())
        # sums of the float32 bit patterns, measured in TF 1.15
        assert p.view(np.uint32).sum() == 1382347797174
        assert sess.run(d, {x: xi}).view(np.uint32).sum() == 1381935896811  # fused
        assert sess.run([d, z], {x: xi})[0].view(np.uint32).sum() == 1381935896813  # not fused


def test_conv2d_bias_elu_fused_by_rows():
    # the same fusion for Conv2D + BiasAdd + Elu (_FusedConv2D): each pixel's channels are a row
    with tf.Graph().as_default():
        np.random.seed(0)
        xi = np.random.randn(2, 6, 6, 3).astype(np.float32)
        w = tf.Variable(np.random.randn(3, 3, 3, 10).astype(np.float32))
        b = tf.Variable(np.random.randn(10).astype(np.float32))
        x = tf.placeholder(tf.float32, [None, 6, 6, 3])
        act = tf.nn.elu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(act, {x: xi}).view(np.uint32).sum() == 1471895799023  # TF 1.15


# ---------------------------------------------------------------------------------------
# Reduced programs run whole: each helper takes the module (written to run under TF 1.15 as
# well) and returns what the program printed or computed; the expected values are what TF
# 1.15 returned for the same helper (measured).


def _gan(tf):
    # udacity/deep-learning gan_mnist/Intro_to_GANs_Solution.py
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        np.random.seed(3)

        def generator(z, out_dim, n_units=12, reuse=False, alpha=0.01):
            with tf.variable_scope("generator", reuse=reuse):
                h1 = tf.layers.dense(z, n_units, activation=None)
                h1 = tf.maximum(alpha * h1, h1)
                return tf.tanh(tf.layers.dense(h1, out_dim, activation=None))

        def discriminator(x, n_units=12, reuse=False, alpha=0.01):
            with tf.variable_scope("discriminator", reuse=reuse):
                h1 = tf.layers.dense(x, n_units, activation=None)
                h1 = tf.maximum(alpha * h1, h1)
                logits = tf.layers.dense(h1, 1, activation=None)
                return tf.sigmoid(logits), logits

        input_real = tf.placeholder(tf.float32, (None, 16), name="input_real")
        input_z = tf.placeholder(tf.float32, (None, 8), name="input_z")
        g_model = generator(input_z, 16)
        _, d_logits_real = discriminator(input_real)
        d_model_fake, d_logits_fake = discriminator(g_model, reuse=True)
        d_loss = (tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=d_logits_real, labels=tf.ones_like(d_logits_real) * 0.9))
            + tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
                logits=d_logits_fake, labels=tf.zeros_like(d_logits_real))))
        g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(
            logits=d_logits_fake, labels=tf.ones_like(d_logits_fake)))
        t_vars = tf.trainable_variables()
        g_vars = [v for v in t_vars if v.name.startswith("generator")]
        d_vars = [v for v in t_vars if v.name.startswith("discriminator")]
        d_opt = tf.train.AdamOptimizer(0.002).minimize(d_loss, var_list=d_vars)
        g_opt = tf.train.AdamOptimizer(0.002).minimize(g_loss, var_list=g_vars)
        out = [str(g_model), str(d_model_fake), d_opt.name, g_opt.name,
               sorted(v.name for v in tf.global_variables())[:6]]
        data = np.random.rand(20, 16).astype(np.float32) * 2 - 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for e in range(2):
                for ii in range(2):
                    batch = data[ii * 10:(ii + 1) * 10]
                    batch_z = np.random.uniform(-1, 1, size=(10, 8))
                    sess.run(d_opt, feed_dict={input_real: batch, input_z: batch_z})
                    sess.run(g_opt, feed_dict={input_z: batch_z})
                ld = sess.run(d_loss, {input_z: batch_z, input_real: batch})
                lg = g_loss.eval({input_z: batch_z})
                out.append(f"Epoch {e + 1}/2... Discriminator Loss: {ld:.4f}... Generator Loss: {lg:.4f}"
                           )
                out.append([float(ld), float(lg)])
    return out


def _tv_script(tf):
    # udacity/deep-learning tv-script-generation (solution and problem_unittests)
    rnn = tf.contrib.rnn
    out = []
    with tf.Graph().as_default():
        try:
            cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(16) for _ in range(2)])
            cell.zero_state(tf.placeholder(tf.int32), tf.float32)
        except ValueError as e:
            out.append(str(e))
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(21)
        input_text = tf.placeholder(tf.int32, [None, None], name="input")
        targets = tf.placeholder(tf.int32, [None, None], name="targets")
        lr = tf.placeholder(tf.float32, name="learning_rate")
        shape = tf.shape(input_text)
        cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(12) for _ in range(2)])
        initial_state = tf.identity(cell.zero_state(shape[0], tf.float32), name="initial_state")
        embedding = tf.Variable(tf.random_uniform((15, 10), -1, 1))
        embed = tf.nn.embedding_lookup(embedding, input_text)
        outputs, final_state = tf.nn.dynamic_rnn(cell, embed, dtype=tf.float32)
        final_state = tf.identity(final_state, name="final_state")
        logits = tf.contrib.layers.fully_connected(outputs, 15, activation_fn=None)
        probs = tf.nn.softmax(logits, name="probs")
        cost = tf.contrib.seq2seq.sequence_loss(logits, targets, tf.ones([shape[0], shape[1]]))
        optimizer = tf.train.AdamOptimizer(lr)
        gradients = optimizer.compute_gradients(cost)
        capped = [(tf.clip_by_value(gr, -1., 1.), v) for gr, v in gradients if gr is not None]
        train_op = optimizer.apply_gradients(capped)
        out += [str(initial_state), str(final_state), str(probs), str(cost),
                [v.name for v in tf.trainable_variables()]]
        np.random.seed(4)
        xs = np.random.randint(0, 15, (3, 4, 6))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            state = sess.run(initial_state, {input_text: xs[0]})
            out.append(state.shape)
            for x in xs:
                y = np.roll(x, -1, axis=1)
                loss, state, _ = sess.run([cost, final_state, train_op],
                                          {input_text: x, targets: y, initial_state: state,
                                           lr: 0.01})
                out.append(float(loss))
    return out


def _logistic2d(tf):
    # BinRoot/TensorFlow-Book ch04_classification/Concept03_logistic2d.ipynb
    np.random.seed(0)
    x1s = np.append(np.random.normal(3, 1, 50), np.random.normal(7, 1, 50))
    x2s = np.append(np.random.normal(2, 1, 50), np.random.normal(6, 1, 50))
    ys = np.asarray([0.] * 50 + [1.] * 50)
    out = []
    with tf.Graph().as_default():
        X1 = tf.placeholder(tf.float32, shape=(None,), name="x1")
        X2 = tf.placeholder(tf.float32, shape=(None,), name="x2")
        Y = tf.placeholder(tf.float32, shape=(None,), name="y")
        w = tf.Variable([0., 0., 0.], name="w", trainable=True)
        y_model = tf.sigmoid(w[2] * X2 + w[1] * X1 + w[0])
        cost = tf.reduce_mean(-tf.log(y_model) * Y - tf.log(1 - y_model) * (1 - Y))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
        out.append(str(y_model))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prev_err = 0
            for epoch in range(120):
                err, _ = sess.run([cost, train_op], {X1: x1s, X2: x2s, Y: ys})
                if epoch % 40 == 0:
                    out.append((epoch, float(err)))
                if abs(prev_err - err) < 0.0001:
                    break
                prev_err = err
            out.append(sess.run(w).tolist())
    return out


def _kmeans_and_spikes(tf, tmp):
    # BinRoot/TensorFlow-Book ch02_basics/Concept06_saving_variables.ipynb and
    # ch05_clustering/Concept01_clustering.ipynb (the k-means part)
    import os
    out = []
    with tf.Graph().as_default():
        sess = tf.InteractiveSession()
        raw_data = [1., 2., 8., -1., 0., 5.5, 6., 13]
        spikes = tf.Variable([False] * len(raw_data), name="spikes")
        spikes.initializer.run()
        saver = tf.train.Saver()
        for i in range(1, len(raw_data)):
            if raw_data[i] - raw_data[i - 1] > 5:
                spikes_val = spikes.eval()
                spikes_val[i] = True
                updater = tf.assign(spikes, spikes_val)
                updater.eval()
        out.append(str(updater))
        save_path = saver.save(sess, os.path.join(tmp, "spikes.ckpt"))
        out.append(os.path.basename(save_path))
        sess.close()
    with tf.Graph().as_default():
        sess = tf.InteractiveSession()
        spikes = tf.Variable([False] * 8, name="spikes")
        tf.train.Saver().restore(sess, os.path.join(tmp, "spikes.ckpt"))
        out.append(spikes.eval().tolist())
        sess.close()
    with tf.Graph().as_default():
        k = 2
        np.random.seed(3)
        X = np.asmatrix(np.random.rand(6, 12))

        def assign_cluster(X, centroids):
            distances = tf.reduce_sum(tf.square(tf.subtract(tf.expand_dims(X, 0),
                                                            tf.expand_dims(centroids, 1))), 2)
            return tf.argmin(distances, 0)

        def recompute_centroids(X, Y):
            sums = tf.unsorted_segment_sum(X, Y, k)
            counts = tf.unsorted_segment_sum(tf.ones_like(X), Y, k)
            return sums / counts

        with tf.Session() as sess:
            centroids = X[0:k, :]
            for _ in range(5):
                Y = assign_cluster(X, centroids)
                centroids = sess.run(recompute_centroids(X, Y))
            out += [str(Y), centroids.dtype.name, centroids[:, :3].tolist(), sess.run(Y).tolist()]
    return out


def _randomization(tf):
    # chiphuyen/stanford-tensorflow-tutorials examples/05_randomization.py
    out = []
    with tf.Graph().as_default():
        c = tf.random_uniform([], -10, 10, seed=2)
        with tf.Session() as sess:
            out += [float(sess.run(c)), float(sess.run(c))]
        with tf.Session() as sess:
            out.append(float(sess.run(c)))
        c = tf.random_uniform([], -10, 10, seed=2)
        d = tf.random_uniform([], -10, 10, seed=2)
        with tf.Session() as sess:
            out += [float(sess.run(c)), float(sess.run(d))]
        tf.set_random_seed(2)
        c = tf.random_uniform([], -10, 10)
        d = tf.random_uniform([], -10, 10)
        with tf.Session() as sess:
            out += [float(sess.run(c)), float(sess.run(d))]
        ru = tf.get_default_graph().get_operation_by_name("random_uniform_4/RandomUniform")
        out += [ru.get_attr("seed"), ru.get_attr("seed2")]
        try:
            c.op.get_attr("seed")
        except ValueError as e:
            out.append(str(e))
    return out


def _five_layers(tf, tmp):
    # PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition
    # Chapter03/MNIST/five_layers_relu_dropout.py (summaries written and read back)
    import glob
    import os
    out = []
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        np.random.seed(0)
        data_x = np.random.rand(20, 784).astype(np.float32)
        data_y = np.eye(10, dtype=np.float32)[np.random.randint(0, 10, 20)]
        X = tf.placeholder(tf.float32, [None, 784], name="InputData")
        Y_ = tf.placeholder(tf.float32, [None, 10], name="LabelData")
        pkeep = tf.placeholder(tf.float32)
        sizes = [784, 20, 10, 6, 3, 10]
        Ws = [tf.Variable(tf.truncated_normal([sizes[i], sizes[i + 1]], stddev=0.1))
              for i in range(len(sizes) - 1)]
        Bs = [tf.Variable(tf.zeros([sizes[1]]))] + [tf.Variable(tf.ones([s])) for s in sizes[2:]]
        h = tf.reshape(X, [-1, 28 * 28])
        for W, B in zip(Ws[:-1], Bs[:-1]):
            h = tf.nn.relu(tf.matmul(h, W) + B)
        hd = tf.nn.dropout(h, pkeep)
        Ylogits = tf.matmul(hd, Ws[-1]) + Bs[-1]
        Y = tf.nn.softmax(Ylogits)
        cost_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
            logits=Ylogits, labels=Y_)) * 100
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(Y, 1), tf.argmax(Y_, 1)),
                                          tf.float32))
        train_op = tf.train.GradientDescentOptimizer(0.003).minimize(cost_op)
        out += [str(hd), str(Y), str(tf.summary.scalar("cost", cost_op)),
                str(tf.summary.scalar("accuracy", accuracy))]
        summary_op = tf.summary.merge_all()
        out.append(str(summary_op))
        logs = os.path.join(tmp, "logs")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            writer = tf.summary.FileWriter(logs, graph=tf.get_default_graph())
            for i in range(4):
                _, summary = sess.run([train_op, summary_op],
                                      {X: data_x[i * 5:i * 5 + 5], Y_: data_y[i * 5:i * 5 + 5],
                                       pkeep: 0.75})
                writer.add_summary(summary, i)
            out.append(float(sess.run(cost_op, {X: data_x, Y_: data_y, pkeep: 1.0})))
            writer.close()
        for e in tf.train.summary_iterator(glob.glob(os.path.join(logs, "*"))[0]):
            if e.HasField("summary"):
                out.append((e.step, [(v.tag, v.simple_value) for v in e.summary.value]))
            else:
                out.append(e.WhichOneof("what"))
    return out


def _rnn_weather(tf):
    # PacktPublishing/Hands-On-Deep-Learning-with-TensorFlow "Chapter04/Exploring RNNs/rnn_tf.py"
    import math
    out = []
    with tf.Graph().as_default():
        np.random.seed(0)
        tf.set_random_seed(0)
        labels = np.eye(4)[np.random.randint(0, 4, 20)]
        train = np.random.randn(20, 5)
        train = (train - np.average(train, axis=0)) / train.std(axis=0)
        sess = tf.InteractiveSession()
        x = tf.placeholder("float", [None, 5])
        x_ = tf.reshape(x, [1, 20, 5])
        y_ = tf.placeholder("float", [None, 4])
        cell = tf.nn.rnn_cell.BasicRNNCell(11)
        outputs, states = tf.nn.dynamic_rnn(cell, x_, dtype=tf.float32, initial_state=None)
        W1 = tf.Variable(tf.truncated_normal([11, 4], stddev=1. / math.sqrt(5)))
        b1 = tf.Variable(tf.constant(0.1, shape=[4]))
        h1 = tf.reshape(outputs, [-1, 11])
        sess.run(tf.initialize_all_variables())
        y = tf.nn.softmax(tf.matmul(h1, W1) + b1)
        cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            logits=y + 1e-50, labels=y_))
        train_step = tf.train.GradientDescentOptimizer(0.01).minimize(cross_entropy)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1)), "float"))
        for i in range(20):
            if i % 10 == 0:
                out.append(float(accuracy.eval(feed_dict={x: train, y_: labels})))
            train_step.run(feed_dict={x: train, y_: labels})
        out += [float(cross_entropy.eval(feed_dict={x: train, y_: labels})), str(outputs),
                str(states), str(h1)]
        sess.close()
    return out


# --- udacity/deep-learning gan_mnist/Intro_to_GANs_Solution.py
def test_udacity_gan_mnist_losses_names_and_printed_lines():
    assert _gan(tf) == (  # TF 1.15's values
        ['Tensor("generator/Tanh:0", shape=(?, 16), dtype=float32)', 'Tensor("discriminator_1/Sigmoid:0", shape=(?, 1), dtype=float32)', 'Adam', 'Adam_1', ['beta1_power:0', 'beta1_power_1:0', 'beta2_power:0', 'beta2_power_1:0', 'discriminator/dense/bias/Adam:0', 'discriminator/dense/bias/Adam_1:0'], 'Epoch 1/2... Discriminator Loss: 1.5004... Generator Loss: 0.4870', [1.500432014465332, 0.48701515793800354], 'Epoch 2/2... Discriminator Loss: 1.4021... Generator Loss: 0.5734', [1.402115821838379, 0.5734020471572876]])

# --- udacity/deep-learning tv-script-generation (dlnd solution + problem_unittests.py)
def test_udacity_tv_script_generation_names_shapes_and_losses():
    assert _tv_script(tf) == (  # TF 1.15's values
        ['prefix tensor must be either a scalar or vector, but saw tensor: Tensor("Placeholder:0", dtype=int32)', 'Tensor("initial_state:0", shape=(2, 2, ?, 12), dtype=float32)', 'Tensor("final_state:0", shape=(2, 2, ?, 12), dtype=float32)', 'Tensor("probs:0", shape=(?, ?, 15), dtype=float32)', 'Tensor("sequence_loss/div_no_nan:0", shape=(), dtype=float32)', ['Variable:0', 'rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0', 'fully_connected/weights:0', 'fully_connected/biases:0'], (2, 2, 4, 12), 2.709110975265503, 2.704706907272339, 2.7036304473876953])

# --- BinRoot/TensorFlow-Book ch04_classification/Concept03_logistic2d.ipynb
def test_binroot_logistic2d_costs_and_weights():
    assert _logistic2d(tf) == (  # TF 1.15's values
        ['Tensor("Sigmoid:0", shape=(?,), dtype=float32)', (0, 0.6931471824645996), (40, 0.5093032121658325), (80, 0.43536949157714844), [-1.6047648191452026, 0.04417313635349274, 0.4751674234867096]])

# --- BinRoot/TensorFlow-Book ch02 Concept06_saving_variables + ch05 Concept01_clustering
def test_binroot_saving_spikes_and_kmeans(tmp_path):
    assert _kmeans_and_spikes(tf, str(tmp_path)) == (  # TF 1.15's values
        ['Tensor("Assign_2:0", shape=(8,), dtype=bool_ref)', 'spikes.ckpt', [False, False, True, False, False, True, False, True], 'Tensor("ArgMin_4:0", shape=(6,), dtype=int64)', 'float64', [[0.5507979025745755, 0.7081478226181048, 0.2909047389129443], [0.49975631978853424, 0.5478799379610015, 0.3778884411961389]], [0, 1, 1, 1, 1, 1]])

# --- chiphuyen/stanford-tensorflow-tutorials examples/05_randomization.py
def test_cs20_randomization_values_and_seeds():
    assert _randomization(tf) == (  # TF 1.15's values
        [3.574932098388672, -5.973186492919922, 3.574932098388672, 3.574932098388672, 3.574932098388672, -0.6609916687011719, 9.123926162719727, 2, 31, "Operation 'random_uniform_3' has no attr named 'seed'."])

# --- PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition Chapter03/MNIST/five_layers_relu_dropout.py
def test_packt_five_layers_dropout_summaries(tmp_path):
    assert _five_layers(tf, str(tmp_path)) == (  # TF 1.15's values
        ['Tensor("dropout/mul_1:0", shape=(?, 3), dtype=float32)', 'Tensor("Softmax:0", shape=(?, 10), dtype=float32)', 'Tensor("cost:0", shape=(), dtype=string)', 'Tensor("accuracy:0", shape=(), dtype=string)', 'Tensor("Merge/MergeSummary:0", shape=(), dtype=string)', 211.12411499023438, 'file_version', 'graph_def', 'meta_graph_def', (0, [('cost', 223.4180908203125), ('accuracy', 0.20000000298023224)]), (1, [('cost', 236.5684051513672), ('accuracy', 0.20000000298023224)]), (2, [('cost', 216.95632934570312), ('accuracy', 0.4000000059604645)]), (3, [('cost', 240.55740356445312), ('accuracy', 0.0)])])

# --- PacktPublishing/Hands-On-Deep-Learning-with-TensorFlow Chapter04/Exploring RNNs/rnn_tf.py
def test_packt_hands_on_rnn_weather():
    assert _rnn_weather(tf) == (  # TF 1.15's values
        [0.10000000149011612, 0.10000000149011612, 1.430633306503296, 'Tensor("rnn/transpose_1:0", shape=(1, 20, 11), dtype=float32)', 'Tensor("rnn/while/Exit_3:0", shape=(1, 11), dtype=float32)', 'Tensor("Reshape_1:0", shape=(20, 11), dtype=float32)'])


# --- GoogleCloudPlatform/training-data-analyst courses/machine_learning/deepdive/03_tensorflow
# (b_estimator): shutil.rmtree(OUTDIR) before each new Estimator in the same model_dir. The
# evaluation's cached summary writer then has lost its directory; TF 1.15 drops those events
# without an error (and makes no directory), where tideflow raised FileNotFoundError.
def test_gcp_taxifare_rmtree_model_dir_between_estimators(tmp_path):
    import shutil

    def model_fn(features, labels, mode):
        pred = features["x"] * tf.Variable(1.0)
        loss = tf.losses.mean_squared_error(labels, pred)
        return tf.estimator.EstimatorSpec(
            mode, predictions=pred, loss=loss,
            train_op=tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, tf.train.get_global_step()))

    x = np.array([1., 2., 3., 4.], np.float32)

    def input_fn():
        return tf.estimator.inputs.numpy_input_fn({"x": x}, 2 * x, batch_size=2, num_epochs=1,
                                                  shuffle=False)()

    out = []
    for _ in range(2):
        shutil.rmtree(str(tmp_path / "m"), ignore_errors=True)
        est = tf.estimator.Estimator(model_fn, str(tmp_path / "m"))
        est.train(input_fn)
        out.append(est.evaluate(input_fn))
    assert out == [{"loss": 4.21875, "global_step": 2}] * 2  # TF 1.15's
    # as TF 1.15 (measured): the cached writers start no new event file, in the directory
    # made again by the second Estimator or in its eval directory (not made again)
    assert not (tmp_path / "m" / "eval").exists()
    assert not [n for n in os.listdir(str(tmp_path / "m")) if n.startswith("events")]


def test_file_writer_after_its_event_file_is_deleted(tmp_path):
    import glob

    w = tf.summary.FileWriter(str(tmp_path / "w"))
    s = tf.Summary(value=[tf.Summary.Value(tag="a", simple_value=1.0)])
    w.add_summary(s, 1)
    w.flush()
    for f in glob.glob(str(tmp_path / "w" / "*")):
        os.remove(f)
    w.add_summary(s, 2)
    w.flush()
    w.close()
    assert os.listdir(str(tmp_path / "w")) == []  # TF 1.15: no new file (measured)
    w.reopen()  # a reopened writer starts one
    w.add_summary(s, 3)
    w.close()
    assert len(os.listdir(str(tmp_path / "w"))) == 1
