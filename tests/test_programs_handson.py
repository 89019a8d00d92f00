"""Patterns from the TF 1.x programs of "Hands-On Machine Learning" (1st edition, chapters 9-16
and the reproducibility notebook), in small self-contained forms.

The sweep ran every chapter unchanged under tideflow; these tests pin the behaviours those
programs lean on (exact seeded random values, queue/reader pipelines, device placement by
``replica_device_setter``, feeding an ``Assign``'s initial value, regularizers that return
None).  Expected values are computed here with NumPy, or (where stated) are the values the book's
own TF 1.x outputs show.
"""

import os

import numpy as np
import pytest

import tideflow as tf


def _fresh(seed=None):
    tf.reset_default_graph()
    if seed is not None:
        tf.set_random_seed(seed)


# --- graph and op seeds --------------------------------------------------------------------
# The values below are the outputs printed by TF 1.x in the book's
# extra_tensorflow_reproducibility notebook (the same code, run by its author under TF 1.x).
# TF 2.x's compat.v1 prints other numbers here: its random_uniform derives another op seed
# (0.8354591, 0.46399975 for the first test), so these pin TF 1.x's seeding, as tideflow follows.

def test_graph_seed_only_repeats_the_sequence_in_every_new_session():
    _fresh(42)
    rnd = tf.random_uniform(shape=[])
    for _ in range(2):
        with tf.Session():
            got = [rnd.eval(), rnd.eval()]
        np.testing.assert_allclose(got, [0.63789964, 0.8774011], rtol=1e-6)


def test_own_graph_needs_its_own_seed():
    _fresh(42)
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(42)
        rnd = tf.random_uniform(shape=[])
    with tf.Session(graph=graph):
        np.testing.assert_allclose([rnd.eval(), rnd.eval()], [0.63789964, 0.8774011],
                                   rtol=1e-6)


def test_op_seeds_with_and_without_a_graph_seed():
    _fresh()
    rnd1 = tf.random_uniform(shape=[], seed=42)
    rnd2 = tf.random_uniform(shape=[], seed=42)
    with tf.Session():
        got = [rnd1.eval(), rnd2.eval(), rnd1.eval(), rnd2.eval()]
    np.testing.assert_allclose(got, [0.95227146, 0.95227146, 0.8960779, 0.8960779], rtol=1e-6)

    _fresh(42)
    rnd1 = tf.random_uniform(shape=[], seed=42)
    rnd2 = tf.random_uniform(shape=[], seed=42)
    rnd3 = tf.random_uniform(shape=[])  # op seed from the graph's op count
    with tf.Session():
        got = [rnd1.eval(), rnd2.eval(), rnd3.eval(), rnd1.eval(), rnd2.eval(), rnd3.eval()]
    np.testing.assert_allclose(
        got, [0.4163028, 0.4163028, 0.96100175, 0.033224702, 0.033224702, 0.17637014],
        rtol=1e-6)


# --- chapter 12: readers, queues, timeouts, devices, the Data API -------------------------------

def _write_csv(tmp_path):
    path = tmp_path / "my_test.csv"
    path.write_text("x1, x2 , target\n1.,, 0\n4., 5. , 1\n7., 8. , 0\n")
    return str(path)


def test_decode_csv_fills_missing_fields_from_tensor_defaults():
    _fresh()
    dec = tf.decode_csv(tf.constant("1.,,44"),
                        record_defaults=[tf.constant([5.]), tf.constant([6]), tf.constant([7])])
    with tf.Session() as sess:
        vals = sess.run(dec)
    assert [v.dtype for v in vals] == [np.float32, np.int32, np.int32]
    assert [v.item() for v in vals] == [1.0, 6, 44]


def _reader_pipeline():
    filename_queue = tf.FIFOQueue(capacity=10, dtypes=[tf.string], shapes=[()])
    filename = tf.placeholder(tf.string)
    enqueue_filename = filename_queue.enqueue([filename])
    close_filename_queue = filename_queue.close()
    reader = tf.TextLineReader(skip_header_lines=1)
    _, value = reader.read(filename_queue)
    x1, x2, target = tf.decode_csv(value, record_defaults=[[-1.], [-1.], [-1]])
    features = tf.stack([x1, x2])
    instance_queue = tf.RandomShuffleQueue(
        capacity=10, min_after_dequeue=2, dtypes=[tf.float32, tf.int32], shapes=[[2], []],
        name="instance_q", shared_name="shared_instance_q")
    enqueue_instance = instance_queue.enqueue([features, target])
    batch = instance_queue.dequeue_up_to(2)
    return filename, enqueue_filename, close_filename_queue, instance_queue, enqueue_instance, batch


def _rows(batches):
    rows = []
    for xs, ts in batches:
        assert xs.dtype == np.float32 and ts.dtype == np.int32
        rows += [(tuple(x), int(t)) for x, t in zip(xs, ts)]
    return sorted(rows)


EXPECTED_ROWS = [((1.0, -1.0), 0), ((4.0, 5.0), 1), ((7.0, 8.0), 0)]


def test_text_line_reader_into_shuffle_queue_then_dequeue_up_to_after_close(tmp_path):
    _fresh()
    path = _write_csv(tmp_path)
    filename, enq_f, close_f, q, enq_i, batch = _reader_pipeline()
    close_q = q.close()
    batches = []
    with tf.Session() as sess:
        sess.run(enq_f, feed_dict={filename: path})
        sess.run(close_f)
        with pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(10):
                sess.run(enq_i)
        sess.run(close_q)
        with pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(10):
                batches.append(sess.run(batch))
    # 3 records, batches of up to 2 once the queue is closed (min_after_dequeue is waived)
    assert sorted(len(b[1]) for b in batches) == [1, 2]
    assert _rows(batches) == EXPECTED_ROWS


def test_queue_runner_threads_close_the_queue_when_the_reader_runs_out(tmp_path):
    _fresh()
    path = _write_csv(tmp_path)
    filename, enq_f, close_f, q, enq_i, batch = _reader_pipeline()
    queue_runner = tf.train.QueueRunner(q, [enq_i] * 5)
    coord = tf.train.Coordinator()
    batches = []
    with tf.Session() as sess:
        sess.run(enq_f, feed_dict={filename: path})
        sess.run(close_f)
        threads = queue_runner.create_threads(sess, coord=coord, start=True)
        with pytest.raises(tf.errors.OutOfRangeError):
            for _ in range(10):
                batches.append(sess.run(batch))
        coord.request_stop()
        coord.join(threads)
    assert _rows(batches) == EXPECTED_ROWS


def test_operation_timeout_and_feeding_a_dequeue_in_place_of_the_queue():
    _fresh()
    q = tf.FIFOQueue(capacity=10, dtypes=[tf.float32], shapes=[()])
    v = tf.placeholder(tf.float32)
    enqueue = q.enqueue([v])
    dequeue = q.dequeue()
    output = dequeue + 1
    config = tf.ConfigProto()
    config.operation_timeout_in_ms = 200
    with tf.Session(config=config) as sess:
        for x in (1.0, 2.0, 3.0):
            sess.run(enqueue, feed_dict={v: x})
        got = [sess.run(output), sess.run(output, feed_dict={dequeue: 5}),
               sess.run(output), sess.run(output)]
        assert got == [2.0, 6.0, 3.0, 4.0]  # the fed run leaves the queue alone
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(output)


def test_replica_device_setter_round_robins_variables_over_ps_tasks():
    # (in a graph of its own: variables on /job:ps left in the default graph would fail the
    # next test file's initializers there, which no session of one process can place)
    with tf.Graph().as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=2, ps_device="/job:ps", worker_device="/job:worker")):
        v1 = tf.Variable(1.0, name="v1")
        v2 = tf.Variable(2.0, name="v2")
        v3 = tf.Variable(3.0, name="v3")
        s = v1 + v2
        with tf.device("/task:1"):
            p1 = 2 * s
            with tf.device("/cpu:0"):
                p2 = 3 * s
    assert [v1.device, v2.device, v3.device] == ["/job:ps/task:0", "/job:ps/task:1",
                                                 "/job:ps/task:0"]
    assert s.device == "/job:worker"
    assert p1.device == "/job:worker/task:1"
    assert p2.device == "/job:worker/task:1/device:CPU:0"


def test_interleave_of_batched_repeats_keeps_tf_order():
    # the order TF 1.x printed in the book's chapter 12 notebook
    _fresh()
    dataset = tf.data.Dataset.from_tensor_slices(np.arange(10)).repeat(3).batch(7)
    dataset = dataset.interleave(lambda v: tf.data.Dataset.from_tensor_slices(v),
                                 cycle_length=3, block_length=2)
    nxt = dataset.make_one_shot_iterator().get_next()
    got = []
    with tf.Session() as sess, pytest.raises(tf.errors.OutOfRangeError):
        while True:
            got.append(int(sess.run(nxt)))
    assert got == [0, 1, 7, 8, 4, 5, 2, 3, 9, 0, 6, 7, 4, 5, 1, 2, 8, 9, 6, 3, 0, 1, 2, 8, 9,
                   3, 4, 5, 6, 7]


# --- chapter 11: reusing weights, regularizers, max-norm --------------------------------------

def test_feeding_the_assign_ops_initial_value_loads_foreign_weights():
    _fresh()
    w = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)
    b = np.array([7., 8., 9.], np.float32)
    X = tf.placeholder(tf.float32, shape=(None, 2), name="X")
    hidden1 = tf.layers.dense(X, 3, activation=tf.nn.relu, name="hidden1")
    graph = tf.get_default_graph()
    init_kernel = graph.get_operation_by_name("hidden1/kernel/Assign").inputs[1]
    init_bias = graph.get_operation_by_name("hidden1/bias/Assign").inputs[1]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(),
                 feed_dict={init_kernel: w, init_bias: b})
        out = hidden1.eval(feed_dict={X: [[10.0, 11.0]]})
    np.testing.assert_allclose(out, np.maximum(np.array([[10., 11.]]) @ w + b, 0))


def test_regularizer_returning_none_adds_no_loss_and_max_norm_clips_rows():
    _fresh(0)

    def max_norm_regularizer(threshold, axes=1, collection="max_norm"):
        def max_norm(weights):  # returns None: no loss term, only a clip op to run
            clipped = tf.clip_by_norm(weights, clip_norm=threshold, axes=axes)
            tf.add_to_collection(collection, tf.assign(weights, clipped, name="max_norm"))
        return max_norm

    X = tf.placeholder(tf.float32, shape=(None, 4))
    tf.layers.dense(X, 5, kernel_regularizer=max_norm_regularizer(0.1), name="h1",
                    kernel_initializer=tf.constant_initializer(1.0))
    tf.layers.dense(X, 5, name="h2",
                    kernel_regularizer=tf.contrib.layers.l1_regularizer(0.01))
    reg = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [r.name for r in reg] == ["h2/kernel/Regularizer/l1_regularizer:0"]
    clip_ops = tf.get_collection("max_norm")
    assert len(clip_ops) == 1
    kernel = tf.get_default_graph().get_tensor_by_name("h1/kernel:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(clip_ops)
        k = sess.run(kernel)
        h2k = sess.run(tf.get_default_graph().get_tensor_by_name("h2/kernel:0"))
        np.testing.assert_allclose(sess.run(reg[0]), 0.01 * np.abs(h2k).sum(), rtol=1e-5)
    # every row (axes=1) of a 4x5 all-ones kernel scaled to norm 0.1
    np.testing.assert_allclose(np.linalg.norm(k, axis=1), np.full(4, 0.1), rtol=1e-5)


def test_batch_norm_update_ops_run_with_the_training_op():
    _fresh(0)
    X = tf.placeholder(tf.float32, shape=(None, 3))
    training = tf.placeholder_with_default(False, shape=(), name="training")
    bn = tf.layers.batch_normalization(X, training=training, momentum=0.9)
    loss = tf.reduce_mean(tf.square(bn))
    extra_update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(extra_update_ops):
        training_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    moving_mean = next(v for v in tf.global_variables() if "moving_mean" in v.name)
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(training_op, feed_dict={X: data, training: True})
        np.testing.assert_allclose(sess.run(moving_mean), 0.1 * data.mean(axis=0), rtol=1e-5)


# --- chapters 14 and 16 ----------------------------------------------------------------------

def test_dynamic_rnn_sequence_length_zeroes_padded_outputs_and_keeps_last_state():
    _fresh(0)
    X = tf.placeholder(tf.float32, [None, 2, 3])
    seq_length = tf.placeholder(tf.int32, [None])
    cell = tf.nn.rnn_cell.BasicRNNCell(num_units=5)
    outputs, states = tf.nn.dynamic_rnn(cell, X, dtype=tf.float32, sequence_length=seq_length)
    X_batch = np.array([[[0, 1, 2], [9, 8, 7]], [[3, 4, 5], [0, 0, 0]]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, st = sess.run([outputs, states], {X: X_batch, seq_length: [2, 1]})
        kernel, bias = sess.run(cell.weights)
    h = np.zeros((2, 5), np.float32)
    for t in range(2):
        h_new = np.tanh(np.concatenate([X_batch[:, t], h], axis=1) @ kernel + bias)
        alive = (np.array([2, 1]) > t)[:, None]
        np.testing.assert_allclose(out[:, t], np.where(alive, h_new, 0), rtol=1e-5, atol=1e-6)
        h = np.where(alive, h_new, h)
    np.testing.assert_allclose(st, h, rtol=1e-5, atol=1e-6)


def test_policy_gradient_feeds_averaged_gradients_back_through_placeholders():
    _fresh(42)
    X = tf.placeholder(tf.float32, shape=[None, 4])
    logits = tf.layers.dense(X, 1)
    outputs = tf.nn.sigmoid(logits)
    p_left_and_right = tf.concat(axis=1, values=[outputs, 1 - outputs])
    action = tf.multinomial(tf.log(p_left_and_right), num_samples=1)
    y = 1. - tf.to_float(action)
    cross_entropy = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)
    optimizer = tf.train.GradientDescentOptimizer(0.5)
    grads_and_vars = optimizer.compute_gradients(cross_entropy)
    gradients = [g for g, _ in grads_and_vars]
    placeholders = [tf.placeholder(tf.float32, shape=g.get_shape()) for g in gradients]
    training_op = optimizer.apply_gradients(
        [(p, v) for p, (_, v) in zip(placeholders, grads_and_vars)])
    obs = np.array([[0.1, -0.2, 0.03, 0.4]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        act, grads = sess.run([action, gradients], feed_dict={X: obs})
        assert act.shape == (1, 1) and act.dtype == np.int64 and act[0, 0] in (0, 1)
        before = sess.run([v for _, v in grads_and_vars])
        sess.run(training_op, feed_dict=dict(zip(placeholders, [2 * g for g in grads])))
        after = sess.run([v for _, v in grads_and_vars])
    for b, a, g in zip(before, after, grads):
        np.testing.assert_allclose(a, b - 0.5 * 2 * g, rtol=1e-5, atol=1e-7)


def test_target_network_copy_by_scope_name():
    _fresh(0)
    X_state = tf.placeholder(tf.float32, shape=[None, 8, 8, 1])

    def q_network(X_state, name):
        with tf.variable_scope(name) as scope:
            h = tf.layers.conv2d(X_state, filters=2, kernel_size=3, strides=2, padding="SAME",
                                 activation=tf.nn.relu)
            out = tf.layers.dense(tf.reshape(h, [-1, 32]), 3)
        trainable = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope=scope.name)
        return out, {v.name[len(scope.name):]: v for v in trainable}

    online_q, online_vars = q_network(X_state, "q_networks/online")
    target_q, target_vars = q_network(X_state, "q_networks/target")
    assert sorted(online_vars) == sorted(target_vars) == [
        "/conv2d/bias:0", "/conv2d/kernel:0", "/dense/bias:0", "/dense/kernel:0"]
    copy = tf.group(*[v.assign(online_vars[k]) for k, v in target_vars.items()])
    s = np.random.RandomState(0).rand(2, 8, 8, 1).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert not np.allclose(*sess.run([online_q, target_q], {X_state: s}))
        copy.run()
        a, b = sess.run([online_q, target_q], {X_state: s})
    np.testing.assert_array_equal(a, b)


def test_checkpoint_epoch_file_resume_pattern(tmp_path):
    # chapter 10's exercise: save a checkpoint plus the epoch, restore it in a new session
    _fresh(0)
    v = tf.Variable(0.0, name="v")
    inc = tf.assign_add(v, 1.0)
    saver = tf.train.Saver()
    ckpt = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(inc)
        saver.save(sess, ckpt)
    assert os.path.isfile(ckpt + ".index") and tf.train.checkpoint_exists(ckpt)
    with tf.Session() as sess:
        saver.restore(sess, ckpt)
        assert sess.run(v) == 3.0


def test_dynamic_rnn_final_states_are_named_as_tf_1x_prints_them():
    # chapter 14 prints the LSTM states: TF 1.x shows rnn/while/Exit_3..., since dynamic_rnn
    # bounds its loop with maximum_iterations (a counter, the loop's first variable)
    _fresh(0)
    X = tf.placeholder(tf.float32, [None, 4, 3])
    cells = [tf.nn.rnn_cell.BasicLSTMCell(num_units=5) for _ in range(2)]
    outputs, states = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), X, dtype=tf.float32)
    assert [t.name for s in states for t in s] == [
        "rnn/while/Exit_3:0", "rnn/while/Exit_4:0", "rnn/while/Exit_5:0", "rnn/while/Exit_6:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out, h = sess.run([outputs, states[-1].h], {X: np.ones((2, 4, 3), np.float32)})
    assert out.shape == (2, 4, 5)
    np.testing.assert_allclose(out[:, -1], h, rtol=1e-6)


def test_grpc_session_logs_the_whole_graphs_placement_once(capsys):
    # chapter 12 runs v1.initializer through a master with log_device_placement: TF's master
    # places (and logs) every op of the graph, once, not only the ops of the run
    from tests.distributed.cluster_procs import cluster_spec

    spec = tf.train.ClusterSpec(cluster_spec(ps=2, worker=2))
    servers = [tf.train.Server(spec, job_name=job, task_index=i)
               for job, i in (("ps", 0), ("ps", 1), ("worker", 0), ("worker", 1))]
    try:
        _fresh()
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="/job:ps",
                                                      worker_device="/job:worker")):
            v1 = tf.Variable(1.0, name="v1")
            v2 = tf.Variable(2.0, name="v2")
            s = v1 + v2
            with tf.device("/task:1"):
                p1 = 2 * s
        config = tf.ConfigProto(log_device_placement=True)
        with tf.Session(servers[0].target, config=config) as sess:
            capsys.readouterr()
            sess.run(v1.initializer)
            lines = capsys.readouterr().out.splitlines()
            sess.run(v2.initializer)
            assert capsys.readouterr().out == ""  # same graph: nothing logged again
            assert sess.run(p1) == 6.0
        ps = "/job:ps/replica:0/task:{}/device:CPU:0"
        worker = "/job:worker/replica:0/task:{}/device:CPU:0"
        # as TF 2.x's compat.v1 prints it: ops with inputs (and variables) first, then constants
        assert lines == [
            "v1: (VariableV2): " + ps.format(0), "v1/Assign: (Assign): " + ps.format(0),
            "v1/read: (Identity): " + ps.format(0),
            "v2: (VariableV2): " + ps.format(1), "v2/Assign: (Assign): " + ps.format(1),
            "v2/read: (Identity): " + ps.format(1),
            "add: (AddV2): " + worker.format(0), "mul: (Mul): " + worker.format(1),
            "v1/initial_value: (Const): " + worker.format(0),
            "v2/initial_value: (Const): " + worker.format(0),
            "mul/x: (Const): " + worker.format(1)]
    finally:
        for server in servers:
            server.stop()
        _fresh()  # (no /job:ps variables left in the default graph for later test files)
