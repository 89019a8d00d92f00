"""Concurrent partitions: errors abort every partition, deadlines, close, inter-op lanes,
Recv scheduling."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.runtime import partition
from tideflow.runtime.executor import Plan
from tideflow.runtime.parallel import MultiPlan


def _config(n=2, inter=1, **kw):
    return tf.ConfigProto(device_count={"CPU": n}, inter_op_parallelism_threads=inter, **kw)


def _partition_threads():
    return [t for t in threading.enumerate() if t.name.startswith("tideflow-partition")]


def test_error_in_one_partition_aborts_the_step():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with tf.device("/cpu:1"):
            bad = tf.check_numerics(x * 1.0, "bad value")
        with tf.device("/cpu:0"):
            out = bad + 1.0  # waits for cpu:1's tensor, which never comes
            other = tf.reduce_sum(x)
        with tf.Session(config=_config()) as s:
            t0 = time.monotonic()
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
                s.run([out, other], {x: [1.0, np.nan]})
            assert time.monotonic() - t0 < 5
            # no partition thread is left blocked: the next step runs normally
            np.testing.assert_allclose(s.run(out, {x: [1.0, 2.0]}), [2.0, 3.0])


def test_step_deadline_across_partitions():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            q = tf.FIFOQueue(1, tf.float32)
            item = q.dequeue()
        with tf.device("/cpu:0"):
            out = item * 2.0
        with tf.Session(config=_config()) as s:
            t0 = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                s.run(out, options=tf.RunOptions(timeout_in_ms=200))
            assert time.monotonic() - t0 < 5
            s.run(q.enqueue(3.0))
            assert s.run(out) == 6.0


def test_close_cancels_a_waiting_step():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            q = tf.FIFOQueue(1, tf.float32)
            item = q.dequeue()
        with tf.device("/cpu:0"):
            out = item * 2.0
        s = tf.Session(config=_config())
        errs = []

        def run():
            try:
                s.run(out)
            except Exception as e:  # noqa: BLE001
                errs.append(e)

        th = threading.Thread(target=run)
        th.start()
        time.sleep(0.2)
        s.close()
        th.join(10)
        assert not th.is_alive()
        assert errs and isinstance(errs[0], (tf.errors.CancelledError, RuntimeError))


def _chains(size=128, n=3):
    rng = np.random.RandomState(0)
    outs = []
    for c in range(2):
        x = tf.constant(rng.standard_normal((size, size)).astype(np.float32) / size)
        y = x
        for _ in range(n):
            y = tf.matmul(y, x)
        outs.append(y)
    return outs


def test_inter_op_lanes_for_independent_matmuls():
    with tf.Graph().as_default():
        outs = _chains()
        with tf.Session(config=_config(1, inter=1)) as s:
            ref = s.run(outs)
            assert isinstance(next(iter(s._plans.values())), Plan)
        with tf.Session(config=_config(1, inter=2)) as s:
            got = s.run(outs)
            plan = next(iter(s._plans.values()))
            assert isinstance(plan, MultiPlan)
            assert len({p.device for p in plan.partitions}) == 1  # lanes of one device
            assert len(plan.partitions) == 2
            for _ in range(3):
                again = s.run(outs)
        for a, b, c in zip(ref, got, again):
            np.testing.assert_allclose(a, b, rtol=1e-5)
            np.testing.assert_allclose(a, c, rtol=1e-5)


def test_cheap_graphs_stay_serial():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        outs = [x + 1.0, x * 3.0, tf.square(x)]
        with tf.Session(config=_config(1, inter=4)) as s:
            s.run(outs)
            assert isinstance(next(iter(s._plans.values())), Plan)


def test_lanes_are_not_chosen_when_small_ops_dominate():
    # two independent chains, each a few BLAS products among hundreds of small element-wise
    # ops: the simulation alone sees a 2x gain, but the small ops run one at a time under the
    # GIL (a 2-layer GRU step ran 2x slower in lanes), so the bound on the gain keeps it serial
    from tideflow.runtime import cost_model, parallel

    with tf.Graph().as_default() as g:
        outs = []
        for _ in range(2):
            h = tf.ones([128, 128])
            for i in range(400):
                h = tf.matmul(h, tf.ones([128, 128])) if i % 100 == 0 else h * 0.999 + 0.001
            outs.append(h)
        with tf.Session() as s:
            s.run(outs)
            assert isinstance(next(iter(s._plans.values())), Plan)
        ops = [op for op in g.get_operations()]
        _, simulated, _ = cost_model.lanes_for(ops, 2)
        assert simulated > 1.5  # what the simulation alone would have taken
        assert parallel.choose_lanes(ops, None) is None


def test_recv_scheduling_late_and_asap_agree():
    with tf.Graph().as_default():
        with tf.device("/cpu:1"):
            parts = [tf.fill([100], float(i)) for i in range(4)]
        with tf.device("/cpu:0"):
            x = tf.placeholder(tf.float32, [100])
            acc = x
            for p in parts:
                acc = tf.sqrt(acc * acc + 1.0) + p
        results = []
        for asap in (False, True):
            with tf.Session(config=_config()) as s:
                partition.set_recv_schedule(s, "asap" if asap else "late")
                results.append(s.run(acc, {x: np.zeros(100, np.float32)}))
                plan = next(iter(s._plans.values()))
                src = plan.plans[[p.device.name[-1] for p in plan.partitions].index("0")].source
                lines = [ln.strip() for ln in src.splitlines()]
                first_recv = min(i for i, ln in enumerate(lines)
                                 if "__rv__.recv(" in ln or "__rvi__.pop(" in ln)
                first_sqrt = min(i for i, ln in enumerate(lines) if "= k" in ln)
                if asap:
                    assert first_recv < first_sqrt
                else:
                    assert first_recv > first_sqrt
        np.testing.assert_array_equal(results[0], results[1])


def test_lanes_run_in_simulated_order_so_both_start_early():
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        outs = []
        for c in range(2):
            x = tf.Variable(rng.standard_normal((128, 128)).astype(np.float32) / 128,
                            name=f"x{c}")
            y = x
            for _ in range(3):
                y = tf.matmul(y, x)
            outs.append(y)
        with tf.Session(config=_config(1, inter=2)) as s:
            s.run(tf.global_variables_initializer())
            s.run(outs)
            plan = max(s._plans.values(), key=lambda p: len(p.ops))
            assert isinstance(plan, MultiPlan)
            names = [op.name for op in plan.order]
            # the second chain's variable read is not left behind the first chain's matmuls
            assert names.index("x1/read") < names.index("MatMul_2")
            md = tf.RunMetadata()
            got = s.run(outs, options=tf.RunOptions(trace_level=3), run_metadata=md)
            # (TF's host tracer's stats carry the threads the kernels ran on)
            threads = {n.thread_id for d in md.step_stats.dev_stats for n in d.node_stats
                       if d.device == "/host:CPU" and n.node_name.endswith(":MatMul")}
            assert len(threads) == 2
        with tf.Session(config=_config(1, inter=1)) as s:
            s.run(tf.global_variables_initializer())
            ref = s.run(outs)
        for a, b in zip(ref, got):
            np.testing.assert_allclose(a, b, rtol=1e-5)
