"""tf.train: noisy_linear_cosine_decay, checkpoints_iterator, maybe_batch and friends,
warm_start with renames and vocabulary remapping."""

import math
import threading
import time

import numpy as np
import pytest

import tideflow as tf


def test_noisy_linear_cosine_decay_statistics():
    with tf.Graph().as_default():
        step = tf.placeholder(tf.int64, [])
        lr = tf.train.noisy_linear_cosine_decay(0.5, step, 100, initial_variance=0.0)
        lr_noisy = tf.train.noisy_linear_cosine_decay(0.5, step, 100, initial_variance=1.0,
                                                      variance_decay=0.0)
        with tf.Session() as sess:
            for s in (0, 30, 100, 150):
                st = min(s, 100)
                linear = (100 - st) / 100
                cosine = 0.5 * (1 + math.cos(math.pi * st / 100))
                want = 0.5 * ((0.0 + linear) * cosine + 0.001)
                np.testing.assert_allclose(sess.run(lr, {step: s}), want, rtol=1e-5)
            # noise of unit variance on the linear part, scaled by 0.5 * cosine at step 0
            xs = np.array([sess.run(lr_noisy, {step: 0}) for _ in range(400)])
    assert abs(xs.mean() - 0.5 * 1.001) < 0.1
    assert abs(xs.std() - 0.5) < 0.1


def test_checkpoints_iterator_sees_new_checkpoints(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = saver.save(sess, d + "/model", global_step=1)

            def later():
                time.sleep(0.5)
                saver.save(sess, d + "/model", global_step=2)

            t = threading.Thread(target=later)
            t.start()
            got = list(tf.train.checkpoints_iterator(d, timeout=2.0))
            t.join()
    assert got == [first, d + "/model-2"]
    calls = []
    assert list(tf.train.checkpoints_iterator(
        str(tmp_path / "none"), timeout=0.1, timeout_fn=lambda: calls.append(1) or
        len(calls) >= 2)) == []
    assert len(calls) == 2
    del v


def _drain(batch_tensors, n):
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        out = [sess.run(batch_tensors) for _ in range(n)]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=5)
    return out


def test_maybe_batch_keeps_only_selected_examples():
    with tf.Graph().as_default():
        counter = tf.train.range_input_producer(1000, shuffle=False).dequeue()
        keep = tf.equal(counter % 3, 0)
        b = tf.train.maybe_batch([counter], keep, batch_size=4)
        vals = _drain(b, 1)[0]  # one component: a tensor, as TF's batch gives
    assert vals.tolist() == [0, 3, 6, 9]


def test_maybe_batch_enqueue_many_and_shuffle():
    with tf.Graph().as_default():
        rows = tf.constant(np.arange(10, dtype=np.int64))
        keep = tf.constant([i % 2 == 0 for i in range(10)])
        b = tf.train.maybe_batch([rows], keep, batch_size=5, enqueue_many=True)
        got = _drain(b, 1)[0]
    assert sorted(set(got.tolist())) <= [0, 2, 4, 6, 8] and len(got) == 5
    with tf.Graph().as_default():
        rows = tf.constant(np.arange(10, dtype=np.int64))
        keep = tf.constant([i >= 5 for i in range(10)])
        b = tf.train.maybe_shuffle_batch([rows], 5, capacity=40, min_after_dequeue=5,
                                         keep_input=keep, enqueue_many=True, seed=1)
        got = _drain(b, 2)
    assert all(set(g.tolist()) <= {5, 6, 7, 8, 9} for g in got)
    with tf.Graph().as_default():
        a = tf.constant(np.arange(4))
        with pytest.raises(ValueError, match="cannot be a vector when `enqueue_many=False`"):
            tf.train.maybe_batch([a], tf.constant([True, False]), batch_size=2)
        # as TF, a list keep_input is one vector for every list's rows (not one per list)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 2"):
            tf.train.maybe_batch_join([[a], [a * 10]], [True, False], batch_size=2,
                                      enqueue_many=True)
        b = tf.train.maybe_batch_join([[a], [a * 10]], [True, False, True, False],
                                      batch_size=2, enqueue_many=True)
        got = _drain(b, 2)
    assert set(np.concatenate(got).tolist()) <= {0, 2, 20}


def _save(tmp_path, build):
    with tf.Graph().as_default():
        build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.train.Saver().save(sess, str(tmp_path / "old"))


def test_warm_start_by_name_rename_and_partial(tmp_path):
    ckpt = _save(tmp_path, lambda: (
        tf.get_variable("dense/kernel", initializer=np.arange(6.0).reshape(2, 3)),
        tf.get_variable("old_bias", initializer=np.array([7.0, 8.0, 9.0])),
        tf.get_variable("other", initializer=np.array(5.0))))
    with tf.Graph().as_default():
        k = tf.get_variable("dense/kernel", [2, 3], tf.float64)
        b = tf.get_variable("bias", [3], tf.float64)
        o = tf.get_variable("other", [], tf.float64, initializer=tf.constant_initializer(-1.0))
        tf.train.warm_start(ckpt, vars_to_warm_start=["dense", "bias"],
                            var_name_to_prev_var_name={"bias": "old_bias"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kv, bv, ov = sess.run([k, b, o])
    np.testing.assert_array_equal(kv, np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(bv, [7.0, 8.0, 9.0])
    assert ov == -1.0  # not selected: keeps its own initializer
    with tf.Graph().as_default():
        tf.get_variable("dense/kernel", [2, 3], tf.float64)
        with pytest.raises(ValueError, match="were not used"):
            tf.train.warm_start(ckpt, "dense", var_name_to_prev_var_name={"nope": "x"})


def test_warm_start_vocabulary_remapping(tmp_path):
    old_vocab = tmp_path / "old.txt"
    new_vocab = tmp_path / "new.txt"
    old_vocab.write_text("apple\nbanana\ncherry\n")
    new_vocab.write_text("cherry\ndate\napple\n")
    old = np.arange(12.0).reshape(3, 4)
    ckpt = _save(tmp_path, lambda: tf.get_variable("emb", initializer=old))
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [4, 4], tf.float64)  # 3 words + 1 OOV bucket
        info = tf.train.VocabInfo(str(new_vocab), 3, 1, str(old_vocab),
                                  backup_initializer=tf.constant_initializer(-1.0))
        tf.train.warm_start(ckpt, "emb", var_name_to_vocab_info={"emb": info})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(emb)
    np.testing.assert_array_equal(got, np.stack([old[2], np.full(4, -1.0), old[0],
                                                 np.full(4, -1.0)]))
    with pytest.raises(ValueError, match="axis"):
        tf.train.VocabInfo("a", 1, 0, "b", axis=2)


def _adagrad_da_reference(v0, grads, lr, l1, l2, init=0.1):
    # as in TF, the Python float strengths become float32 tensors before the cast
    l1, l2 = float(np.float32(l1)), float(np.float32(l2))
    v = np.array(v0)
    acc = np.zeros_like(v)
    sq = np.full_like(v, init)
    for t, g in enumerate(grads, 1):
        acc += g
        sq += g * g
        shrunk = np.sign(acc) * np.maximum(np.abs(acc) - l1 * t, 0) if l1 > 0 else acc
        v = -lr * shrunk / (l2 * t * lr + np.sqrt(sq))
    return v


@pytest.mark.parametrize("l1", [0.0, 0.4])
def test_adagrad_da_dense_and_sparse(l1):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        v = tf.Variable([1.0, -2.0, 0.5], dtype=tf.float64)
        emb = tf.Variable(np.arange(6.0).reshape(3, 2))
        g = tf.placeholder(tf.float64, [3])
        loss = tf.reduce_sum(v * g) + tf.reduce_sum(tf.gather(emb, [2, 0, 2]))
        opt = tf.train.AdagradDAOptimizer(0.5, gs, l1_regularization_strength=l1,
                                          l2_regularization_strength=0.2)
        step = opt.minimize(loss, global_step=gs)
        grads = [np.array([0.3, -1.0, 2.0]), np.array([1.5, 0.2, -0.4])]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for gv in grads:
                sess.run(step, {g: gv})
            got, got_emb = sess.run([v, emb])
    np.testing.assert_allclose(got, _adagrad_da_reference([1.0, -2.0, 0.5], grads, 0.5, l1,
                                                          0.2), rtol=1e-12)
    # rows 0 and 2 get gradients 1 and 2 (twice gathered) per step; row 1 is untouched
    rows = _adagrad_da_reference(np.zeros((2, 2)), [np.array([[1.0, 1.0], [2.0, 2.0]])] * 2,
                                 0.5, l1, 0.2)
    np.testing.assert_allclose(got_emb[[0, 2]], rows, rtol=1e-12)
    np.testing.assert_array_equal(got_emb[1], [2.0, 3.0])
    with pytest.raises(ValueError, match="positive"):
        tf.train.AdagradDAOptimizer(0.1, gs, initial_gradient_squared_accumulator_value=0.0)


def test_sdca_shrink_l1_and_fprint_lengths():
    with tf.Graph().as_default():
        w1 = tf.Variable([1.0, -0.3, 0.05, -2.0])
        w2 = tf.Variable([[0.5, -0.1]])
        op = tf.train.sdca_shrink_l1([w1, w2], l1=0.2, l2=0.5)  # shrinkage 0.4, as TF's
        ts = [bytes((i * 7 + j) % 256 for j in range(n))
              for i, n in [(4, 17), (8, 64), (11, 129), (17, 300)]]
        f = tf.train.sdca_fprint(ts)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            a, b = sess.run([w1, w2])
            fp = sess.run(f)
        np.testing.assert_allclose(a, [0.6, 0.0, 0.0, -1.6], rtol=1e-6)
        np.testing.assert_allclose(b, [[0.1, 0.0]], atol=1e-7)
        # TF 2.21's tf.train.sdca_fprint of the same strings (the long-string paths)
        assert fp.tolist() == [[-6335478420188442887, 8195987402327315886],
                               [1657314206891250764, -3863142632600665121],
                               [4184437696193553544, 8318216774629606736],
                               [-9077359563106096950, 1999771081839347527]]
        with pytest.raises(TypeError, match="float32"):
            tf.train.sdca_shrink_l1([tf.Variable([1.0], dtype=tf.float64)], 0.1, 1.0)
