"""Patterns from the sweep of a TF 1.x lab-course repository (linear/logistic/softmax
regression, MNIST NN/CNN, char-RNN with ``tf.contrib.seq2seq.sequence_loss``, input queues).

Each test builds the small graph such a program builds and checks names, shapes and values;
values are checked against NumPy or hand-derived numbers.
"""

import numpy as np

import tideflow as tf


def test_no_nan_ops_take_their_scope_name_once():
    # sequence_loss ends in math_ops.div_no_nan inside its own scope: TF names the op
    # 'sequence_loss/div_no_nan', not 'sequence_loss/div_no_nan/sequence_loss/div_no_nan'.
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        b = tf.constant([0.0, 4.0])
        d = tf.div_no_nan(a, b)
        q = tf.math.divide_no_nan(a, b, name="q")
        with tf.name_scope("sequence_loss"):
            inner = tf.div_no_nan(a, b)
        m = tf.math.multiply_no_nan(a, b)
        c = tf.math.cumulative_logsumexp(a)
        qd = tf.quantization.quantize_and_dequantize(a, -1.0, 1.0)
        assert d.name == "div_no_nan:0"
        assert q.name == "q:0"
        assert inner.name == "sequence_loss/div_no_nan:0"
        assert m.op.name.count("/") == 0
        assert c.name == "CumulativeLogsumexp:0"
        assert qd.name == "QuantizeAndDequantizeV2:0"  # TF 1.15 opens no name scope for it
        with tf.Session() as sess:
            dv, mv, cv = sess.run([d, m, c])
        np.testing.assert_array_equal(dv, [0.0, 0.5])
        np.testing.assert_array_equal(mv, [0.0, 8.0])
        np.testing.assert_allclose(cv, np.log(np.cumsum(np.exp([1.0, 2.0]))), rtol=1e-6)


def test_sequence_loss_name_and_value():
    logits_np = np.array([[[1.0, 2.0, 0.5], [0.1, -1.0, 2.0]]], np.float32)
    targets_np = np.array([[1, 2]], np.int32)
    with tf.Graph().as_default():
        logits = tf.constant(logits_np)
        targets = tf.constant(targets_np)
        loss = tf.contrib.seq2seq.sequence_loss(
            logits=logits, targets=targets, weights=tf.ones([1, 2]))
        assert loss.name == "sequence_loss/div_no_nan:0"
        assert loss.shape.as_list() == []
        with tf.Session() as sess:
            got = sess.run(loss)
    z = logits_np[0] - logits_np[0].max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    want = -(logp[0, 1] + logp[1, 2]) / 2
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_assert_with_string_data_converts_python_values_a_second_time():
    # TF 1.x's tf.Assert hands the op its unconverted ``data`` when every item is a string or
    # int32, so each Python value becomes a second constant named after its list position.
    with tf.Graph().as_default() as g:
        a = tf.Assert(tf.constant(True), ["msg", tf.constant(3)])
        b = tf.Assert(tf.constant(True), [tf.constant("x"), 5, "y"], name="chk")
        names = [o.name for o in g.get_operations()]
        assert a.name == "Assert/Assert"
        assert b.name == "chk/Assert"
        assert names == ["Const", "Const_1", "Assert/Const", "Assert/Assert/data_0",
                         "Assert/Assert", "Const_2", "Const_3", "chk/Const", "chk/Const_1",
                         "chk/Assert/data_1", "chk/Assert/data_2", "chk/Assert"]
        x = tf.placeholder(tf.int32, [])
        check = tf.Assert(x > 0, ["x must be positive", x])
        with tf.Session() as sess:
            sess.run([a, b])
            sess.run(check, {x: 2})
            try:
                sess.run(check, {x: -4})
            except tf.errors.InvalidArgumentError as e:
                assert "x must be positive" in e.message and "-4" in e.message
            else:
                raise AssertionError("the failing Assert did not raise")


def test_input_pipeline_graph_has_tf_op_count(tmp_path):
    # lab-04-4: string_input_producer + TextLineReader + decode_csv + batch, then a
    # graph-seeded random_normal; its seed2 is the op's id, so the ops before it must be TF's.
    path = tmp_path / "scores.csv"
    path.write_text("73,80,75,152\n93,88,93,185\n89,91,90,180\n")
    with tf.Graph().as_default() as g:
        tf.set_random_seed(777)
        queue = tf.train.string_input_producer([str(path)], shuffle=False, name="filename_queue")
        _, value = tf.TextLineReader().read(queue)
        xy = tf.decode_csv(value, record_defaults=[[0.0], [0.0], [0.0], [0.0]])
        bx, by = tf.train.batch([xy[0:-1], xy[-1:]], batch_size=2)
        names = [o.name for o in g.get_operations()]
        assert "filename_queue/Assert/Assert/data_0" in names
        assert [n for n in names if n.startswith("DecodeCSV/")] == [
            f"DecodeCSV/record_defaults_{i}" for i in range(4)]
        assert names[names.index("batch/packed_1") + 1] == "batch/Const"
        # TF's graph has 40 ops at this point: 18 for the producer, 2 for the reader, 5 for
        # decode_csv and 15 for batch (counted from the op lists above and TF's own graph)
        assert len(names) == 40
        assert bx.shape.as_list() == [2, 3] and by.shape.as_list() == [2, 1]
        tf.train.shuffle_batch([xy[0]], batch_size=2, capacity=10, min_after_dequeue=2)
        tf.train.batch_join([[xy[0]], [xy[1]]], batch_size=2)
        tf.train.shuffle_batch_join([[xy[0]], [xy[1]]], batch_size=2, capacity=10,
                                    min_after_dequeue=2)
        names = [o.name for o in g.get_operations()]
        for scope in ("shuffle_batch", "batch_join", "shuffle_batch_join"):
            assert f"{scope}/Const" in names
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            xv, yv = sess.run([bx, by])
            coord.request_stop()
            coord.join(threads)
        # the other batches' queue runners read the same reader, so which lines this batch
        # gets depends on their threads (as in TF): each row is a line of the file, whole
        rows = {(73, 80, 75, 152), (93, 88, 93, 185), (89, 91, 90, 180)}
        for xr, yr in zip(xv.tolist(), yv.tolist()):
            assert (*map(int, xr), int(yr[0])) in rows


def test_keras_fit_accepts_keras1_nb_epoch():
    # the course's Keras programs call model.fit(x, y, nb_epoch=...); TF 1.x's tf.keras takes
    # it as `epochs` (with a warning) and still rejects other unknown keywords.
    x = np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0
    y = x.sum(axis=1, keepdims=True)
    with tf.Graph().as_default():
        model = tf.keras.models.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile(loss="mse", optimizer="sgd")
        history = model.fit(x, y, nb_epoch=3, batch_size=6, verbose=0)
        assert len(history.history["loss"]) == 3
        assert history.epoch == [0, 1, 2]
        try:
            model.fit(x, y, nb_epochs=2, verbose=0)
        except TypeError as e:
            assert "nb_epochs" in str(e)
        else:
            raise AssertionError("an unknown fit keyword was accepted")


def test_layers_batch_normalization_update_ops_are_operations():
    # lab-10-6: update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope=name) guards the
    # train op; as TF 1.x's (Keras-based) layers the collection holds Operations.
    x_np = np.array([[1.0, 2.0, 3.0], [2.0, 0.0, 5.0], [4.0, 1.0, 1.0], [0.0, 3.0, 2.0]],
                    np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        mode = tf.placeholder(tf.bool)
        with tf.variable_scope("bn_model"):
            y = tf.layers.batch_normalization(x, training=mode)
        ups = tf.get_collection(tf.GraphKeys.UPDATE_OPS, scope="bn_model")
        assert len(ups) == 2 and all(isinstance(u, tf.Operation) for u in ups)
        loss = tf.reduce_sum(y * tf.constant([1.0, 2.0, 3.0]))
        with tf.control_dependencies(ups):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        mm = next(v for v in tf.global_variables() if "moving_mean" in v.name)
        mv = next(v for v in tf.global_variables() if "moving_variance" in v.name)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(ups, {x: x_np, mode: False}) == [None, None]
            np.testing.assert_array_equal(sess.run(mm), np.zeros(3))
            sess.run(train, {x: x_np, mode: True})
            got_mean, got_var = sess.run([mm, mv])
    # momentum 0.99: moving <- moving - (moving - batch_stat) * 0.01, biased batch variance
    np.testing.assert_allclose(got_mean, 0.01 * x_np.mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(got_var, 0.99 + 0.01 * x_np.var(axis=0), rtol=1e-6)
