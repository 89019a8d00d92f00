"""Conds on a cluster whose variables sit on several parameter servers (real gRPC servers on
loopback): slim/contrib batch_norm with a tensor ``is_training`` reads its moving statistics
inside a cond, which must not tie the cond to one parameter server."""

import numpy as np

import tideflow as tf
from tests.distributed.cluster_procs import cluster_spec
from tideflow.distributed.server import Server


def test_batch_norms_with_a_tensor_is_training_over_three_ps():
    spec = cluster_spec(ps=3, worker=1)
    servers = [Server(spec, job_name="ps", task_index=i) for i in range(3)]
    worker = Server(spec, job_name="worker", task_index=0)
    try:
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(cluster=spec)):
                is_training = tf.placeholder(tf.bool, [])
                x = tf.placeholder(tf.float32, [None, 2, 2, 3])
                outs = [tf.contrib.slim.batch_norm(x, is_training=is_training, scope=f"bn{i}",
                                                   **kw)
                        for i, kw in enumerate([{"fused": True}, {"fused": False},
                                                {"updates_collections": None}])]
                updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
            devices = {v.device for v in tf.global_variables() if "moving" in v.op.name}
            assert len(devices) > 1  # the statistics really are on different tasks
            data = np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3)
            with tf.Session(worker.target) as sess:
                sess.run(tf.global_variables_initializer())
                got = sess.run(outs + updates, {is_training: True, x: data})[:3]
                for y in got:  # batch statistics: each channel normalised to mean 0
                    np.testing.assert_allclose(y.mean(axis=(0, 1, 2)), 0.0, atol=1e-4)
                mean = [v for v in tf.global_variables() if v.op.name == "bn0/moving_mean"]
                assert len(mean) == 1
                assert np.all(sess.run(mean[0]) > 0)  # the update ran on its parameter server
                infer = sess.run(outs, {is_training: False, x: data})
                assert all(y.shape == (2, 2, 2, 3) for y in infer)
    finally:
        for s in [*servers, worker]:
            s.stop()


def test_a_cond_reading_variables_of_two_ps_and_one_assigning_on_one():
    spec = cluster_spec(ps=2, worker=1)
    servers = [Server(spec, job_name="ps", task_index=i) for i in range(2)]
    worker = Server(spec, job_name="worker", task_index=0)
    try:
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(cluster=spec)):
                a = tf.Variable(1.0, name="a")
                b = tf.Variable(2.0, name="b")
                twice = tf.Variable(a.initialized_value() * 2.0, name="twice")
                pred = tf.placeholder(tf.bool, [])
                # fresh reads of both refs inside the branch (read_value), on two tasks
                both = tf.cond(pred, lambda: a.read_value() + b.read_value(),
                               lambda: tf.constant(0.0))
                bump = tf.cond(pred, lambda: tf.assign_add(a, 1.0), lambda: a.read_value())
            assert a.device != b.device
            with tf.Session(worker.target) as sess:
                sess.run(tf.global_variables_initializer())
                assert sess.run(twice) == 2.0
                assert sess.run(both, {pred: True}) == 3.0
                assert sess.run(both, {pred: False}) == 0.0
                assert sess.run(bump, {pred: True}) == 2.0
                assert sess.run(bump, {pred: False}) == 2.0
                assert sess.run(both, {pred: True}) == 4.0
    finally:
        for s in [*servers, worker]:
            s.stop()
