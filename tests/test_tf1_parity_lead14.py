"""TF 1.15 parity found by the lead in the fourteenth session; expected values are what real
TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_random_ops_in_dataset_functions_count_the_functions_own_ops():
    """TF 1.15 traces a Dataset.map function into a graph of its own: a random op there without
    an op seed takes that graph's op count (4 after the argument and the three constants of
    random_uniform), wherever the dataset sits in the outer graph."""
    tf.set_random_seed(42)
    tf.constant(1.0)
    tf.constant(2.0)
    ds = tf.data.Dataset.range(3).map(lambda i: (i, tf.random_uniform([]), tf.random_uniform([])))
    lib = tf.get_default_graph().as_graph_def().library
    seeds = sorted(n.attr["seed2"].i for f in lib.function for n in f.node_def
                   if "seed2" in n.attr)
    assert seeds == [4, 11]
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        got = [s.run(nxt)[1:] for _ in range(3)]
    np.testing.assert_allclose(got, [[0.008577466, 0.49367917], [0.7345408, 0.6236744],
                                     [0.93321645, 0.24173737]], rtol=1e-6)


def test_seeded_augmented_cnn_under_a_monitored_session_trains_as_tf_1_15(tmp_path):
    """tf.data with random flips and brightness in map, a seeded shuffle, tf.layers with batch
    norm and dropout under a training placeholder, momentum on a staircase-decayed rate, a
    MonitoredTrainingSession saving summaries and checkpoints: TF 1.15 printed these losses."""
    tf.set_random_seed(42)
    rng = np.random.RandomState(0)
    images = rng.rand(200, 16, 16, 3).astype(np.float32)
    labels = rng.randint(0, 5, 200).astype(np.int64)

    def augment(img, lab):
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_brightness(img, 0.1)
        return tf.image.per_image_standardization(img), lab

    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    x, y = ds.map(augment).shuffle(50, seed=3).batch(20).repeat().make_one_shot_iterator() \
        .get_next()
    training = tf.placeholder_with_default(True, [])
    h = tf.layers.conv2d(x, 8, 3, padding="same", use_bias=False)
    h = tf.nn.relu(tf.layers.batch_normalization(h, training=training))
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 16, 3, padding="same", activation=tf.nn.relu)
    h = tf.layers.dropout(tf.reduce_mean(h, axis=[1, 2]), 0.3, training=training)
    loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 5))
    gs = tf.train.get_or_create_global_step()
    lr = tf.train.exponential_decay(0.05, gs, 10, 0.9, staircase=True)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(lr, 0.9).minimize(loss, global_step=gs)
    tf.summary.scalar("loss", loss)
    losses = []
    with tf.train.MonitoredTrainingSession(
            checkpoint_dir=str(tmp_path), save_summaries_steps=5,
            hooks=[tf.train.StopAtStepHook(last_step=12)]) as s:
        while not s.should_stop():
            losses.append(s.run([loss, train])[0])
    np.testing.assert_allclose(
        losses, [1.56945, 1.71576, 1.68932, 1.77984, 1.61448, 1.66271, 1.61000, 1.66598,
                 1.61075, 1.62450, 1.59650, 1.57025], atol=2e-5)
    assert tf.train.latest_checkpoint(str(tmp_path)) is not None


def _drain(dataset):
    nxt = dataset.batch(100).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        return s.run(nxt).tolist()


@pytest.mark.parametrize("buf, reshuffle, count, want", [
    (4, True, 3, [1, 3, 0, 6, 5, 7, 8, 9, 4, 2, 0, 3, 2, 4, 5, 1, 8, 6, 7, 9, 0, 2, 1, 5, 3, 6,
                  8, 4, 9, 7]),
    (4, False, 3, [1, 3, 0, 6, 5, 7, 8, 9, 4, 2] * 3),
    (25, True, 2, [3, 2, 7, 5, 0, 9, 8, 4, 1, 6, 2, 7, 0, 5, 3, 8, 4, 6, 1, 9]),
])
def test_shuffle_then_repeat_is_fused_as_tf_1_15s_default_optimization(buf, reshuffle, count,
                                                                        want):
    """TF 1.15 fuses a reshuffling shuffle read by a repeat into ShuffleAndRepeatDataset: one
    random stream through every epoch (not the per-epoch seeds of the unfused op), epochs never
    mixed; TF 1.15 printed these orders."""
    tf.set_random_seed(11)
    ds = tf.data.Dataset.range(10).shuffle(buf, seed=2, reshuffle_each_iteration=reshuffle)
    assert _drain(ds.repeat(count)) == want


def test_shuffle_and_repeat_fusion_off_keeps_per_epoch_seeds():
    tf.set_random_seed(11)
    options = tf.data.Options()
    options.experimental_optimization.shuffle_and_repeat_fusion = False
    ds = tf.data.Dataset.range(10).shuffle(3, seed=2).repeat(2).with_options(options)
    assert _drain(ds) == [0, 3, 2, 1, 6, 7, 4, 5, 8, 9, 2, 1, 0, 5, 4, 3, 7, 9, 6, 8]
    with tf.Graph().as_default():
        tf.set_random_seed(11)  # the experimental transformation is always the fused op
        ds = tf.data.Dataset.range(7).apply(tf.data.experimental.shuffle_and_repeat(5, 2, seed=4))
        assert _drain(ds) == [3, 1, 4, 2, 5, 6, 0, 0, 5, 1, 4, 3, 6, 2]


def test_an_empty_dataset_shuffled_and_repeated_forever_is_empty():
    nxt = tf.data.Dataset.range(0).shuffle(4).repeat().make_one_shot_iterator().get_next()
    with tf.Session() as s, pytest.raises(tf.errors.OutOfRangeError):
        s.run(nxt)


def test_dataset_ops_count_where_tf_1_15_makes_them():
    """TF 1.15 makes each dataset's op with the Dataset: a shuffle without an op seed under a
    graph seed takes the op count then (6, then 20 here), and shuffles in TF's order."""
    tf.set_random_seed(3)
    tf.data.Dataset.range(10).map(lambda x: x * 2).shuffle(10).batch(3).shuffle(4)
    consts = {op.name: tf.make_ndarray(op.get_attr("value")).item()
              for op in tf.get_default_graph().get_operations() if op.type == "Const"}
    assert (consts["seed2/Const"], consts["seed2_1/Const"]) == (6, 20)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        assert _drain(tf.data.Dataset.range(10).shuffle(10)) == [0, 2, 7, 9, 1, 6, 4, 3, 8, 5]


def test_a_dataset_op_made_after_a_remote_run_reaches_the_master():
    """A dataset's op takes the id reserved when the Dataset was made, which can be older than
    ops the session already sent: the graph's version counts ops in creation order, so the
    next extension of a remote session still carries it."""
    server = tf.train.Server.create_local_server()
    ds = tf.data.Dataset.range(5).map(lambda x: x * 3)
    c = tf.constant(7)
    with tf.Session(server.target) as s:
        assert s.run(c) == 7
        v0 = tf.get_default_graph().version
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        every = tf.get_default_graph().get_operations()
        sent, made = every[:v0], every[v0:]
        assert "MapDataset" in [op.type for op in made]
        # (the dataset ops' ids are older than ops the session sent)
        assert min(op._id for op in made) < max(op._id for op in sent)
        s.run(it.initializer)
        assert [s.run(nxt) for _ in range(3)] == [0, 3, 6]


def _normal_seed_after(build):
    build()
    return tf.random_normal([2]).op.inputs[0].op.inputs[0].op.get_attr("seed2")


def _case(n):
    x = tf.placeholder(tf.int32, [])
    pairs = [(tf.equal(x, i), lambda i=i: tf.constant(float(i))) for i in range(n)]
    return tf.case(pairs, default=lambda: tf.constant(-1.0))


def _cond_in_while(capture):
    x = tf.placeholder(tf.float32, [])
    t = tf.placeholder(tf.bool, [])

    def body(i, a):
        if capture:
            return i + 1, tf.cond(t, lambda: a + x, lambda: a * 2.0)
        return i + 1, a + tf.cond(t, lambda: 1.0, lambda: 2.0)

    return tf.while_loop(lambda i, a: i < 3, body, [0, x if capture else 0.0])


def _nested_cond(same_pred):
    x = tf.placeholder(tf.float32, [])
    t = tf.placeholder(tf.bool, [])
    u = t if same_pred else tf.placeholder(tf.bool, [])
    return tf.cond(t, lambda: tf.cond(u, lambda: x + 1.0, lambda: x * 2.0), lambda: x - 1.0)


@pytest.mark.parametrize("build, want", [
    (lambda: _case(2), 22), (lambda: _case(3), 32), (lambda: _case(1), 13),
    (lambda: _cond_in_while(False), 33), (lambda: _cond_in_while(True), 36),
    (lambda: _nested_cond(True), 26), (lambda: _nested_cond(False), 27),
], ids=["case2", "case3", "case1", "while_outer_pred", "while_outer_pred_captures",
        "nested_same_pred", "nested_other_pred"])
def test_conds_inside_conds_and_loops_count_tf_1_15s_switches(build, want):
    """A cond's predicate from outside the branch or loop body it is built in passes through a
    Switch (Enter) of each enclosing frame in TF 1.x: a random op after takes TF's op seed."""
    tf.set_random_seed(1)
    assert _normal_seed_after(build) == want


@pytest.mark.parametrize("make_cell, want", [
    (lambda: tf.nn.rnn_cell.GRUCell(4), 186),
    (lambda: tf.nn.rnn_cell.LSTMCell(4), 186),
    (lambda: tf.contrib.rnn.LayerNormBasicLSTMCell(4), 300),
    (lambda: tf.contrib.rnn.InputProjectionWrapper(tf.nn.rnn_cell.GRUCell(4), 4), 204),
], ids=["gru", "lstm", "layer_norm_lstm", "input_projection"])
def test_dynamic_rnn_with_lengths_leaves_tf_1_15s_op_count(make_cell, want):
    """The placeholders a while loop adds so that its cond and body take the same captures
    have no TF 1.x counterpart: they take ids aside, and a random op after the loop takes
    TF's op seed."""
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 5, 3])
    lengths = tf.placeholder(tf.int32, [None])
    tf.nn.dynamic_rnn(make_cell(), x, sequence_length=lengths, dtype=tf.float32)
    assert _normal_seed_after(lambda: None) == want


def test_keras_dense_features_makes_its_tables_first_as_tf_1_15():
    tf.set_random_seed(1)
    f = {"age": tf.placeholder(tf.float32, [None]), "city": tf.placeholder(tf.string, [None])}
    city = tf.feature_column.categorical_column_with_vocabulary_list("city", ["a", "b"])
    cols = [tf.feature_column.bucketized_column(tf.feature_column.numeric_column("age"), [25, 35]),
            tf.feature_column.embedding_column(city, 3)]
    layer = tf.keras.layers.DenseFeatures(cols)
    out = layer(f)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names[2].startswith("dense_features/city_embedding/embedding_weights/Initializer")
    assert "dense_features/city_embedding/to_sparse_input/NotEqual" in names
    assert _normal_seed_after(lambda: None) == 116  # TF 1.15's (the table's seed: 5)
    assert [v.name for v in layer.weights] == [
        "dense_features/city_embedding/embedding_weights:0"]
    assert layer(f).shape.as_list() == out.shape.as_list() == [None, 6]  # reused tables
    assert len(layer.weights) == 1
