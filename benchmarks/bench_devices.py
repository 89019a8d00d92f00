"""Devices, partitions and parallel execution (issue: devices):

(a) two independent chains of 1024x1024 float32 matmuls with inter-op parallelism against the
    same graph run serially, BLAS single-threaded (measured in a child process started with
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1);
(b) the MLP training step of bench_training.py (784-512-512-10, batch 128) with its layers
    split over two CPU devices against one device: the cost of partitioning and Send/Recv;
(c) peak traced memory of a step whose Recvs are scheduled late (before first use) against
    as soon as possible;
(d) the cost-model placer against TF's default placement on two CPU devices.

Run: ``python benchmarks/bench_devices.py`` (``--json FILE`` saves the figures).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

_ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _time(fn, number=3, repeat=5):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def _chains_graph(tf, n=4, size=1024):
    rng = np.random.RandomState(0)
    outs = []
    for c in range(2):
        # a variable, so that constant folding cannot precompute the chain
        x = tf.Variable(rng.standard_normal((size, size)).astype(np.float32) / np.sqrt(size),
                        name=f"x{c}")
        y = x
        for _ in range(n):
            y = tf.matmul(y, x)
        outs.append(tf.reduce_sum(y))
    return outs


def _numpy_threads_ceiling(n=4, size=1024):
    """The same two chains in plain NumPy, serially and on two threads: the machine's ceiling."""
    import threading

    rng = np.random.RandomState(0)
    xs = [rng.standard_normal((size, size)).astype(np.float32) / np.sqrt(size) for _ in "ab"]

    def chain(x):
        y = x
        for _ in range(n):
            y = y @ x
        return y.sum()

    def serial():
        for x in xs:
            chain(x)

    def threads():
        ts = [threading.Thread(target=chain, args=(x,)) for x in xs]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    return _time(serial) / _time(threads)


def _big_plan(s):
    return max(s._plans.values(), key=lambda p: len(p.ops))


def inter_op():
    """(a), run in the single-threaded-BLAS child."""
    import tideflow as tf

    g = tf.Graph()
    with g.as_default():
        outs = _chains_graph(tf)
        init = tf.global_variables_initializer()
    res = {}
    for name, threads in (("serial", 1), ("parallel", 2)):
        cfg = tf.ConfigProto(inter_op_parallelism_threads=threads)
        with tf.Session(graph=g, config=cfg) as s:
            s.run(init)
            res[name + "_ms"] = _time(lambda s=s: s.run(outs)) * 1e3
            res[name + "_plan"] = type(_big_plan(s)).__name__
    res["speedup"] = res["serial_ms"] / res["parallel_ms"]
    res["numpy_two_threads_speedup"] = _numpy_threads_ceiling()
    return res


def _mlp(tf, split, rng):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_training import _mlp_data, _mlp_init

    init = _mlp_init(rng)
    xs, ys = _mlp_data(rng)
    g = tf.Graph()
    d0, d1 = ("/cpu:0", "/cpu:1") if split else ("/cpu:0", "/cpu:0")
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int64, [None])
        with tf.device(d0):
            w1, b1 = tf.Variable(init[0]), tf.Variable(init[1])
            h1 = tf.nn.relu(tf.matmul(x, w1) + b1)
        with tf.device(d1):
            w2, b2, w3, b3 = [tf.Variable(v) for v in init[2:]]
            h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)
            logits = tf.matmul(h2, w3) + b3
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        cfg = tf.ConfigProto(device_count={"CPU": 2})
        sess = tf.Session(graph=g, config=cfg)
        sess.run(tf.global_variables_initializer())
    it = [0]

    def step():
        i = it[0] % len(xs)
        it[0] += 1
        sess.run(train, {x: xs[i], y: ys[i]})

    step()
    plan = next(p for p in sess._plans.values() if len(p.ops) > 20)
    return step, plan


def mlp_split(rounds=7):
    """(b): per-step time on two devices over one device, interleaved rounds."""
    import tideflow as tf

    rng = np.random.RandomState(0)
    one, p1 = _mlp(tf, False, rng)
    two, p2 = _mlp(tf, True, np.random.RandomState(0))
    ratios, t1s, t2s = [], [], []
    for _ in range(rounds):
        t1 = _time(one, number=20, repeat=3)
        t2 = _time(two, number=20, repeat=3)
        t1s.append(t1)
        t2s.append(t2)
        ratios.append(t2 / t1)
    return {"one_device_ms": statistics.median(t1s) * 1e3,
            "two_devices_ms": statistics.median(t2s) * 1e3,
            "overhead_pct": (statistics.median(ratios) - 1) * 100,
            "partitions": len(getattr(p2, "plans", [p2])),
            # partitions taking turns in the calling thread (runtime/parallel.py cooperative)
            "partitions_take_turns": bool(getattr(p2, "coop", False)),
            "one_device_plan": type(p1).__name__}


def recv_memory(parts=8, n=1 << 20):
    """(c): peak tracemalloc bytes of a step, late vs ASAP Recv scheduling."""
    import tracemalloc

    import tideflow as tf
    from tideflow.runtime import partition

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [n])
        with tf.device("/cpu:1"):
            # tensors ready early on cpu:1, each needed late in a long chain on cpu:0
            sent = [tf.fill([n], float(i)) * x for i in range(parts)]
        with tf.device("/cpu:0"):
            acc = x
            for s_ in sent:
                for _ in range(3):
                    acc = tf.sqrt(acc * acc + 1.0)
                acc = acc + s_
            out = tf.reduce_sum(acc)
    feed = {x: np.ones(n, np.float32)}
    res = {"tensor_mb": n * 4 / 2**20, "sent_tensors": parts}
    # In one address space a Recv takes the sender's buffer, so only what the receiving side
    # allocates at Recv time moves: with bfloat16 transfers that is the widened float32 copy,
    # which plays the part of a separate device's receive buffer.
    for mode, bf16 in (("late", False), ("asap", False), ("late_bf16", True),
                       ("asap_bf16", True)):
        go = tf.GraphOptions(enable_bfloat16_sendrecv=bf16)
        cfg = tf.ConfigProto(device_count={"CPU": 2}, graph_options=go)
        with tf.Session(graph=g, config=cfg) as s:
            partition.set_recv_schedule(s, mode.split("_")[0])
            s.run(out, feed)
            peaks = []
            for _ in range(3):
                tracemalloc.start()
                s.run(out, feed)
                peaks.append(tracemalloc.get_traced_memory()[1])
                tracemalloc.stop()
            res[mode + "_peak_mb"] = min(peaks) / 2**20
    res["asap_over_late"] = res["asap_peak_mb"] / res["late_peak_mb"]
    res["asap_over_late_bf16"] = res["asap_bf16_peak_mb"] / res["late_bf16_peak_mb"]
    return res


def cost_placer():
    """(d), run in the single-threaded-BLAS child: default vs cost-model placement."""
    import tideflow as tf
    from tideflow.runtime import placer

    g = tf.Graph()
    with g.as_default():
        outs = _chains_graph(tf)
        init = tf.global_variables_initializer()
    cfg = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=1)
    res = {}
    for name, on in (("default", False), ("cost_model", True)):
        with tf.Session(graph=g, config=cfg) as s:
            s.run(init)
            placer.use_cost_model(s, on)
            res[name + "_ms"] = _time(lambda s=s: s.run(outs)) * 1e3
            plan = _big_plan(s)
            res[name + "_devices"] = sorted({d.name[-5:] for d in plan.placement.values()})
    res["speedup"] = res["default_ms"] / res["cost_model_ms"]
    res["numpy_two_threads_speedup"] = _numpy_threads_ceiling()
    return res


def _child(which):
    env = dict(os.environ, **_ONE_THREAD)
    out = subprocess.run([sys.executable, __file__, "--only", which], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--only")
    args = ap.parse_args()
    if args.only:
        print(json.dumps({"inter_op": inter_op, "cost_placer": cost_placer}[args.only]()))
        return
    results = {}
    for name, fn in (("inter_op_1thread_blas", lambda: _child("inter_op")),
                     ("mlp_two_devices", mlp_split),
                     ("recv_scheduling_memory", recv_memory),
                     ("cost_model_placer_1thread_blas", lambda: _child("cost_placer"))):
        results[name] = fn()
        print(name, json.dumps(results[name]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
