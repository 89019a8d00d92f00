"""The plan's shape arithmetic looked up by shapes (runtime/shape_memo.py): the same values,
errors and traces as running each op, fewer calls."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import shape_memo
from tideflow.runtime.grappler_arith import HOST_ID_BASE


@pytest.fixture
def memo_off():
    shape_memo.ENABLED = False
    yield
    shape_memo.ENABLED = True


def _mlp(batch_dim=None):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [batch_dim, 6])
        y = tf.placeholder(tf.int64, [batch_dim])
        h = tf.layers.dense(x, 8, activation=tf.nn.relu)
        z = tf.concat([h, x], axis=1)
        z = z * tf.reduce_mean(z, axis=0)
        logits = tf.layers.dense(z, 3) + tf.Variable(tf.zeros([3]))
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        init = tf.global_variables_initializer()
    return g, x, y, loss, train, init


def _train(batches, steps=3):
    g, x, y, loss, train, init = _mlp()
    rng = np.random.RandomState(0)
    out = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for n in batches:
            for _ in range(steps):
                xv = rng.standard_normal((n, 6)).astype(np.float32)
                yv = rng.randint(0, 3, n)
                out.append(sess.run([loss, train], {x: xv, y: yv})[0])
        out.extend(sess.run(g.get_collection("trainable_variables")))
    return out


def _plans(sess):
    return list(sess._plans.values())


def test_training_values_are_the_same_bits_for_changing_batch_sizes():
    with_memo = _train([5, 7, 5, 1])
    shape_memo.ENABLED = False
    try:
        without = _train([5, 7, 5, 1])
    finally:
        shape_memo.ENABLED = True
    assert len(with_memo) == len(without)
    for a, b in zip(with_memo, without):
        np.testing.assert_array_equal(a, b)


def test_the_plan_runs_one_call_per_group_of_shape_arithmetic():
    g, x, y, _, train, init = _mlp()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        sess.run(train, {x: np.ones((4, 6), np.float32), y: np.zeros(4, np.int64)})
        plan = next(p for p in _plans(sess) if train.name in {op.name for op in p.ops})
        types = [op._type for op in plan.ops]
        hosts = [op for op in plan.ops if op._id >= HOST_ID_BASE and op._type == "ShapeN"]
        assert hosts, types
        assert "BroadcastGradientArgs" not in types
        assert "ConcatOffset" not in types
        assert types.count("Shape") + types.count("ShapeN") < 4 + len(hosts)


def test_off_the_plan_runs_every_shape_op(memo_off):
    g, x, y, _, train, init = _mlp()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        sess.run(train, {x: np.ones((4, 6), np.float32), y: np.zeros(4, np.int64)})
        plan = next(p for p in _plans(sess) if train.name in {op.name for op in p.ops})
        types = [op._type for op in plan.ops]
        assert types.count("BroadcastGradientArgs") >= 2
        assert "ConcatOffset" in types


def _reshape_error(n_cols):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32)
        rows = tf.shape(x)[0] * tf.shape(x)[1]
        y = tf.reshape(tf.identity(x) + 1.0, tf.stack([rows // n_cols, n_cols])) * 2.0
        last = tf.shape(x)[2]  # fails for a matrix
        z = tf.fill(tf.stack([last]), 1.0)
    with tf.Session(graph=g) as sess:
        good = sess.run(y, {x: np.arange(6, dtype=np.float32).reshape(2, 3)})
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run([y, z], {x: np.ones((2, 3), np.float32)})
        again = sess.run(y, {x: np.ones((3, 4), np.float32)})
    return good, info.value, again


def test_an_error_inside_a_group_names_its_op_as_without_the_memo():
    good, err, again = _reshape_error(2)
    shape_memo.ENABLED = False
    try:
        good_off, err_off, again_off = _reshape_error(2)
    finally:
        shape_memo.ENABLED = True
    np.testing.assert_array_equal(good, good_off)
    np.testing.assert_array_equal(again, again_off)
    assert again.shape == (6, 2)
    assert err.op.name == err_off.op.name == "strided_slice_2"
    assert err.message == err_off.message
    assert "slice index 2 of dimension 0 out of bounds" in err.message


def test_fetched_shape_values_are_fresh_writable_arrays():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        b = tf.constant([1.0, 2.0, 3.0])
        _, r1 = tf.raw_ops.BroadcastGradientArgs(s0=tf.shape(x), s1=tf.shape(b))
        s = tf.shape(x) * 2
    with tf.Session(graph=g) as sess:
        for n in (2, 4, 2):
            got = sess.run([s, r1], {x: np.ones((n, 3), np.float32)})
            assert got[0].tolist() == [2 * n, 6]
            assert got[1].tolist() == [0]
            got[0][0] = -1  # (the caller's own array)
            assert got[0].flags.writeable


def test_a_traced_step_lists_the_shape_ops():
    g, x, y, _, train, init = _mlp()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        feed = {x: np.ones((4, 6), np.float32), y: np.zeros(4, np.int64)}
        sess.run(train, feed)
        meta = tf.RunMetadata()
        sess.run(train, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
        names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    assert any(n.endswith("BroadcastGradientArgs") for n in names)


def test_partial_run_over_shape_arithmetic():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [None, 2])
        b = tf.placeholder(tf.float32, [2])
        c = a * b
        grads = tf.gradients(tf.reduce_sum(c), [a, b])
        d = grads[1] * 3.0
    with tf.Session(graph=g) as sess:
        h = sess.partial_run_setup([c, d], [a, b])
        got_c = sess.partial_run(h, c, {a: np.ones((3, 2), np.float32),
                                        b: np.array([1.0, 2.0], np.float32)})
        got_d = sess.partial_run(h, d)
    np.testing.assert_array_equal(got_c, [[1, 2]] * 3)
    np.testing.assert_array_equal(got_d, [9.0, 9.0])


def test_a_shape_value_handed_on_to_a_fetch_is_the_callers_own():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        b = tf.placeholder(tf.float32, [3])
        _, (gb,) = (None, tf.gradients(tf.reduce_sum(x * b), [b]))
        r = tf.stop_gradient(tf.shape(x) * 1) + 0 * tf.size(gb)
        kept = tf.stop_gradient(tf.shape(x) + tf.shape(gb)[0])
    with tf.Session(graph=g) as sess:
        for n in (2, 2, 5):
            feed = {x: np.ones((n, 3), np.float32), b: np.ones(3, np.float32)}
            got, k = sess.run([r, kept], feed)
            assert got.tolist() == [n, 3] and k.tolist() == [n + 3, 6]
            assert k.flags.writeable
            k[0] = -7  # (no later step sees it)


def _loop_programs():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 4, 3])
        out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(5), x, dtype=tf.float32)
        loss = tf.reduce_sum(out[:, -1] * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
        # a loop whose value grows: each iteration meets a new shape (the groups forget)
        _, grown = tf.while_loop(
            lambda i, v: i < 12,
            lambda i, v: (i + 1, tf.concat([v, v[-1:] * 0.5 + tf.cast(tf.shape(v)[0], tf.float32)],
                                           0)),
            [tf.constant(0), tf.ones([1, 2])],
            shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])
        init = tf.global_variables_initializer()
    rng = np.random.RandomState(1)
    out_values = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for n in (3, 3, 6, 1, 3):
            xv = rng.standard_normal((n, 4, 3)).astype(np.float32)
            out_values.append(sess.run([loss, train, grown], {x: xv})[0])
        out_values.append(sess.run(grown))
        out_values.extend(sess.run(g.get_collection("trainable_variables")))
    return out_values


def test_loop_bodies_give_the_same_bits_with_and_without_the_groups():
    with_memo = _loop_programs()
    shape_memo.ENABLED = False
    try:
        without = _loop_programs()
    finally:
        shape_memo.ENABLED = True
    assert with_memo[5].shape == (13, 2)
    for a, b in zip(with_memo, without, strict=True):
        np.testing.assert_array_equal(a, b)
