"""Variable updates run as soon as every op that can see the variable's buffer has run (when
those ops are known and none of them is fetched), not at the end of the step: a gradient is
freed as soon as its update has read it. What a step computes is unchanged."""
import numpy as np

import tideflow as tf
from tideflow.runtime import executor


def _order(fetches, targets=()):
    ops = executor.prune(fetches, targets, {})
    return [op.name for op in executor.topo_order(ops, {}, fetches)]


def _two_layers():
    tf.set_random_seed(1)
    x = tf.constant(np.random.RandomState(0).randn(8, 6).astype(np.float32))
    w1 = tf.Variable(tf.random_normal([6, 5]), name="w1")
    w2 = tf.Variable(tf.random_normal([5, 3]), name="w2")
    h = tf.nn.relu(tf.matmul(x, w1))
    loss = tf.reduce_sum(tf.square(tf.matmul(h, w2)))
    train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    return w1, w2, loss, train


def test_an_update_runs_once_its_variable_is_read_for_the_last_time():
    with tf.Graph().as_default():
        train = _two_layers()[-1]
        order = _order([], [train])
        apply2 = order.index("Momentum/update_w2/ApplyMomentum")
        # w2's update comes right after the backward pass has read w2 (the input gradient
        # g @ w2^T) and before the first layer's gradients...
        assert apply2 < order.index("gradients/MatMul_grad/MatMul_1")
        assert order.index("gradients/MatMul_1_grad/MatMul") < apply2
        # ...and w1's after its own gradient
        assert order.index("gradients/MatMul_grad/MatMul_1") < order.index(
            "Momentum/update_w1/ApplyMomentum")


def test_the_step_computes_what_it_did():
    def run(early):
        with tf.Graph().as_default():
            w1, w2, loss, train = _two_layers()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([loss, train])[0] for _ in range(4)]
                return losses, sess.run([w1, w2])

    want = run(True)
    real = executor._early_updates
    try:
        executor._early_updates = lambda *a: {}
        plain = run(False)
    finally:
        executor._early_updates = real
    np.testing.assert_array_equal(want[0], plain[0])
    for a, b in zip(want[1], plain[1]):
        np.testing.assert_array_equal(a, b)


def test_a_fetched_read_keeps_the_update_last():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        inc = tf.assign_add(v, 1.0)
        seen = tf.identity(v)  # an alias of the buffer, fetched
        double = v * 2.0
        with tf.Session() as sess:
            sess.run(v.initializer)
            # reads that do not depend on the update see the value from before the step
            assert sess.run([inc, double]) == [2.0, 2.0]
            assert sess.run([double, inc]) == [4.0, 3.0]
        ops = executor.prune([seen], [inc.op], {})
        assert inc.op not in executor._early_updates(list(ops), ops, {}, [seen])
        assert seen.op in executor._early_updates(list(ops), ops, {}, [])[inc.op]
        order = _order([seen], [inc.op])
        assert order.index(inc.op.name) == len(order) - 1


def test_a_reader_after_the_update_or_too_many_readers_keep_it_late():
    with tf.Graph().as_default():
        v = tf.Variable(tf.zeros([3]))
        upd = tf.assign_add(v, tf.ones([3]))
        with tf.control_dependencies([upd]):
            after = tf.matmul(tf.reshape(tf.identity(v), [1, 3]), tf.ones([3, 1]))
        ops = executor.prune([after], [upd.op], {})
        early = executor._early_updates(sorted(ops, key=lambda o: o._id), ops, {}, [after])
        assert upd.op in early  # its readers are known...
        order = executor.topo_order(ops, {}, [after])
        # ...but one of them waits for it: it runs where the control edge puts it
        assert order.index(upd.op) < order.index(after.op)
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(after), [[3]])
    with tf.Graph().as_default():
        v = tf.Variable(tf.zeros([3]))
        reads = [tf.reduce_sum(v * float(i)) for i in range(executor._EARLY_READERS_MAX)]
        upd = tf.assign_add(v, tf.ones([3]))
        ops = executor.prune([], [upd.op] + [r.op for r in reads], {})
        assert upd.op not in executor._early_updates(sorted(ops, key=lambda o: o._id), ops,
                                                     {}, [])


def test_the_cnn_gradient_of_the_wide_layer_is_freed_before_the_convolutions():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 8, 8, 1])
        k = tf.Variable(tf.random_normal([3, 3, 1, 4]))
        h = tf.reshape(tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME")), [4, 256])
        w = tf.Variable(tf.random_normal([256, 10]))
        loss = tf.reduce_sum(tf.matmul(h, w))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        order = _order([], [train])
        upd = [n for n in order if n.endswith("ApplyGradientDescent")]
        fc = order.index(upd[0])
        assert "Variable_1" in upd[0]
        assert fc < order.index("gradients/Conv2D_grad/Conv2DBackpropFilter")
