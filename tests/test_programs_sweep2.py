"""Patterns from the second program sweep (openai/baselines, udacity notebooks, tutorials).

Each test is a small self-contained form of what one of those programs does.
"""

import threading

import numpy as np
import pytest

import tideflow as tf


def _graph():
    return tf.Graph().as_default()


def test_staging_area_prefetches_a_batch_ahead_of_the_train_step():
    # baselines' HER stages the next batch (put) while the train op consumes the previous one
    with _graph():
        from tideflow.contrib.staging import StagingArea

        area = StagingArea(dtypes=[tf.float32, tf.int32], shapes=[(None, 3), (None,)])
        ph_x = tf.placeholder(tf.float32, (None, 3))
        ph_y = tf.placeholder(tf.int32, (None,))
        stage = area.put([ph_x, ph_y])
        x, y = area.get()
        assert x.shape.as_list() == [None, 3] and y.shape.as_list() == [None]
        assert stage.type == "Stage" and x.op.type == "Unstage"
        total = tf.reduce_sum(x, axis=1) + tf.cast(y, tf.float32)
        rng = np.random.RandomState(0)
        batches = [(rng.rand(4, 3).astype(np.float32), rng.randint(0, 9, 4)) for _ in range(3)]
        with tf.Session() as sess:
            sess.run(stage, {ph_x: batches[0][0], ph_y: batches[0][1]})
            got = []
            for bx, by in batches[1:]:
                out, _ = sess.run([total, stage], {ph_x: bx, ph_y: by})
                got.append(out)
            got.append(sess.run(total))
            assert sess.run(area.size()) == 0
        for out, (bx, by) in zip(got, batches):  # FIFO: each run saw the batch staged before
            np.testing.assert_allclose(out, bx.sum(axis=1) + by, rtol=1e-6)


def test_staging_area_peek_size_clear_names_and_list_return():
    with _graph():
        from tideflow.python.ops.data_flow_ops import StagingArea

        single = StagingArea([tf.float32], shapes=[[2]])
        got = single.get()
        assert isinstance(got, list) and len(got) == 1  # a list even for one dtype, as in TF
        area = StagingArea([tf.int32, tf.float32], names=["i", "f"])
        assert area.name == "StagingArea_1" and single.name == "StagingArea"
        put = area.put({"i": tf.constant(3), "f": tf.constant(2.5)})
        put2 = area.put({"i": tf.constant(4), "f": tf.constant(0.5)})
        peek1 = area.peek(1)
        assert sorted(peek1) == ["f", "i"]
        with tf.Session() as sess:
            sess.run(put)
            sess.run(put2)
            assert sess.run(area.size()) == 2
            assert sess.run(peek1) == {"i": 4, "f": 0.5}
            assert sess.run(area.get()) == {"i": 3, "f": 2.5}
            sess.run(area.clear())
            assert sess.run(area.size()) == 0


def test_staging_area_capacity_blocks_put_until_a_get():
    with _graph():
        from tideflow.contrib.staging import StagingArea

        area = StagingArea([tf.float32], capacity=1)
        ph = tf.placeholder(tf.float32, [])
        put = area.put([ph])
        get = area.get()[0]
        with tf.Session() as sess:
            sess.run(put, {ph: 1.0})
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(put, {ph: 2.0}, options=tf.RunOptions(timeout_in_ms=100))
            done = []
            t = threading.Thread(target=lambda: done.append(sess.run(put, {ph: 3.0})))
            t.start()
            assert sess.run(get) == 1.0  # frees the slot: the blocked put goes through
            t.join(5)
            assert done and sess.run(get) == 3.0
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(get, options=tf.RunOptions(timeout_in_ms=100))


def test_staging_area_put_checks_count_and_shape():
    with _graph():
        from tideflow.contrib.staging import StagingArea

        area = StagingArea([tf.float32, tf.float32], shapes=[[2], [None]])
        with pytest.raises(ValueError, match="Unexpected number of inputs"):
            area.put([tf.zeros([2])])
        with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
            area.put([tf.zeros([3]), tf.zeros([5])])
        with pytest.raises(ValueError, match="names"):
            area.put({"a": tf.zeros([2]), "b": tf.zeros([1])})


def test_gradient_ops_are_created_in_tf_queue_order():
    # baselines' K-FAC (acktr/kfac.py) finds the forward op of each gradient from the gradient
    # ops' names; TF visits ops first in, first out from the loss, so with a tensor (h) and a
    # weight (w) both used by two MatMuls, h's partial gradients are summed first ("AddN"),
    # then w's ("AddN_1"), each in consumer order. (Names observed in TF 2.21 compat.v1.)
    with _graph():
        x = tf.placeholder(tf.float32, [None, 3])
        h = tf.tanh(x)
        w = tf.get_variable("w", [3, 2])
        loss = tf.reduce_mean(tf.matmul(h, w)) + tf.reduce_mean(tf.matmul(h, w))
        gw, gx = tf.gradients(loss, [w, x])
        assert gw.op.name == "gradients/AddN_1"
        assert [t.op.name for t in gw.op.inputs] == ["gradients/MatMul_grad/MatMul_1",
                                                     "gradients/MatMul_1_grad/MatMul_1"]
        assert "gradients/AddN" in [t.op.name for t in gx.op.inputs]
        xv = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
        with tf.Session() as sess:
            sess.run(w.initializer)
            wv, got_w, got_x = sess.run([w, gw, gx], {x: xv})
        # d loss / d w = 2 * mean over the 2x2 outputs: sum_rows(tanh(x))[:, None] / 4 * 2
        np.testing.assert_allclose(got_w, np.tile(np.tanh(xv).sum(0)[:, None], (1, 2)) / 2,
                                   rtol=1e-5)
        np.testing.assert_allclose(got_x, (1 - np.tanh(xv) ** 2) * wv.sum(1) / 2, rtol=1e-5)
