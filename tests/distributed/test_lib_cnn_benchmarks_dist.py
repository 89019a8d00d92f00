"""The two-level all-reduce builders of tf_cnn_benchmarks' ``--variable_update=
distributed_all_reduce`` (``--all_reduce_spec=nccl/xring``, ``nccl/rechd``, ``nccl/pscpu``,
``pscpu/pscpu``) on a real two-task loopback cluster with two CPUs per task: one session drives
both tasks, every output holds the reduction of all four inputs, task by task."""

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import cluster_spec
from tideflow.distributed.server import Server


@pytest.fixture(scope="module")
def two_tasks():
    spec = cluster_spec(worker=2)
    config = tf.ConfigProto(device_count={"CPU": 2})
    made = [Server(spec, job_name="worker", task_index=i, config=config) for i in range(2)]
    yield made[0].target
    for s in made:
        s.stop()


# devices interleaved across the tasks: outputs come grouped by task (task 1 first, as seen)
_DEVICES = ["/job:worker/replica:0/task:1/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0",
            "/job:worker/replica:0/task:1/device:CPU:1", "/job:worker/replica:0/task:0/device:CPU:1"]
_BY_TASK = [_DEVICES[0], _DEVICES[2], _DEVICES[1], _DEVICES[3]]
_VALUES = [np.arange(10.0).reshape(2, 5) * (k + 1) - k for k in range(4)]
_GATHER = ["/job:worker/task:1/cpu:0", "/job:worker/task:0/cpu:0"]


def _inputs():
    out = []
    for dev, value in zip(_DEVICES, _VALUES):
        with tf.device(dev):
            out.append(tf.constant(value))
    return out


def _builders(ar):
    mean = (lambda t: t / 4.0)
    return {
        "nccl/xring": lambda ins: ar.build_nccl_then_ring(ins, 1, tf.add, mean),
        "nccl/xring#2": lambda ins: ar.build_nccl_then_ring(ins, 2, tf.add, mean),
        "nccl/rechd": lambda ins: ar.build_nccl_then_recursive_hd(ins, tf.add, mean),
        "nccl/pscpu": lambda ins: ar.build_nccl_then_shuffle(ins, _GATHER, tf.add, tf.add_n,
                                                             mean),
        "pscpu/pscpu": lambda ins: ar.build_shuffle_then_shuffle(
            ins, _GATHER, ["/job:worker/task:0/cpu:1"], tf.add_n, mean),
        "pscpu/xring": lambda ins: ar.build_shuffle_then_ring(ins, _GATHER, 1, tf.add_n, tf.add,
                                                              mean),
    }


@pytest.mark.parametrize("alg", ["nccl/xring", "nccl/xring#2", "nccl/rechd", "nccl/pscpu",
                                 "pscpu/pscpu", "pscpu/xring"])
def test_hybrid_all_reduce_across_two_tasks(two_tasks, alg):
    from tideflow.python.distribute import all_reduce

    with tf.Graph().as_default():
        out = _builders(all_reduce)[alg](_inputs())
        assert [t.device for t in out] == _BY_TASK
        assert all(t.get_shape().as_list() == [2, 5] for t in out)
        with tf.Session(two_tasks) as sess:
            got = sess.run(out)
    for value in got:
        np.testing.assert_allclose(value, np.mean(_VALUES, 0), rtol=1e-12)


def test_hybrid_gradients_flow_back_to_every_input(two_tasks):
    ar = tf.contrib.all_reduce
    with tf.Graph().as_default():
        ins = _inputs()
        out = ar.build_shuffle_then_shuffle(ins, _GATHER, ["/job:worker/task:0/cpu:0"],
                                            tf.add_n)
        grads = tf.gradients(tf.reduce_sum(out[0]) + 3.0 * tf.reduce_sum(out[3]), ins)
        with tf.Session(two_tasks) as sess:
            got = sess.run(grads)
    for g in got:
        np.testing.assert_allclose(g, np.full((2, 5), 4.0))


# ----------------------------------------------------------------------------------------
# a client started before its master's server waits for it, as TF's (tf_cnn_benchmarks'
# controller and workers are started together)
# ----------------------------------------------------------------------------------------


def test_session_waits_for_a_master_that_is_still_starting():
    import threading
    import time

    spec = cluster_spec(worker=1)
    started = []

    def start_late():
        time.sleep(1.0)
        started.append(Server(spec, job_name="worker", task_index=0))

    th = threading.Thread(target=start_late)
    th.start()
    try:
        t0 = time.monotonic()
        with tf.Graph().as_default():
            c = tf.constant(3.0) * 2.0
            with tf.Session("grpc://" + spec["worker"][0]) as sess:
                assert sess.run(c) == 6.0
        assert time.monotonic() - t0 >= 0.9
    finally:
        th.join()
        for s in started:
            s.stop()


def test_waiting_for_a_master_ends_at_the_create_deadline(monkeypatch):
    import time

    from tideflow.distributed import grpc_session

    monkeypatch.setattr(grpc_session, "CREATE_TIMEOUT_S", 1.5)
    address = cluster_spec(worker=1)["worker"][0]  # nothing listens there
    t0 = time.monotonic()
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        with tf.Session("grpc://" + address) as sess, pytest.raises(
                tf.errors.UnavailableError, match="Connection refused"):
            sess.run(c)
    assert 1.0 <= time.monotonic() - t0 < 10.0
