"""Convolution kernels (issue: conv/pool): GFLOP/s of Conv2D and both backprops on the MNIST CNN's
shapes, against the BLAS peak of a 2048x2048 float32 matmul measured in the same run.

Layers: 64x28x28x1 (*) 5x5x1x32 SAME and 64x14x14x32 (*) 5x5x32x64 SAME, float32, NHWC. Each
figure is the best of several repeats after warm-up (peak included); FLOPs count 2 per multiply-add of the
dense convolution (padding taps included, as is customary). The target is an aggregate
(forward + both backprops, both layers) of at least 50% of the matmul peak.
Run: ``python benchmarks/bench_conv.py`` (``--kernels-only`` skips the Session path,
``--json out.json`` saves the figures; ``--profile`` instead breaks one training step of the
MNIST CNN of bench_training.py down by kernel and by kind of kernel, ``--clock cpu`` in
CPU time per kernel call, which a loaded machine disturbs far less than wall time). On a shared, oversubscribed machine multi-threaded
OpenBLAS stalls on its spinning threads (timings jump to whole scheduler ticks); there
``OPENBLAS_NUM_THREADS=1`` gives stable figures, peak measured under the same setting.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tideflow as tf
from tideflow.kernels import conv as kconv
from tideflow.ops import conv_ops

LAYERS = [
    ("conv1 64x28x28x1 5x5x1x32", (64, 28, 28, 1), (5, 5, 1, 32)),
    ("conv2 64x14x14x32 5x5x32x64", (64, 14, 14, 32), (5, 5, 32, 64)),
]


def _best_time(fn, repeat=15, number=2):
    """The best of ``repeat`` timings (of ``number`` calls each): on a shared machine the
    minimum is the figure least disturbed by neighbours; the peak is measured the same way."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def matmul_peak():
    a = np.random.RandomState(0).standard_normal((2048, 2048)).astype(np.float32)
    b = np.random.RandomState(1).standard_normal((2048, 2048)).astype(np.float32)
    out = np.empty_like(a)
    t = _best_time(lambda: np.matmul(a, b, out=out), repeat=5, number=3)
    return 2 * 2048 ** 3 / t / 1e9


def bench_kernels():
    rows = []
    one = (1, 1)
    for label, xs, ws in LAYERS:
        rng = np.random.RandomState(0)
        x = rng.standard_normal(xs).astype(np.float32)
        w = rng.standard_normal(ws).astype(np.float32)
        y = kconv.conv(x, w, one, one, "SAME")
        dy = rng.standard_normal(y.shape).astype(np.float32)
        flops = 2 * y.size * ws[0] * ws[1] * ws[2]
        for what, fn in (
            ("forward", lambda x=x, w=w: kconv.conv(x, w, one, one, "SAME")),
            ("backprop_input", lambda x=x, w=w, dy=dy: kconv.conv_backprop_input(
                x.shape, w, dy, one, one, "SAME")),
            ("backprop_filter", lambda x=x, w=w, dy=dy: kconv.conv_backprop_filter(
                x, w.shape, dy, one, one, "SAME")),
        ):
            t = _best_time(fn)
            rows.append({"layer": label, "pass": what, "ms": t * 1e3, "gflops": flops / t / 1e9,
                         "flops": flops, "seconds": t})
    return rows


def bench_session():
    """The same three passes through Session.run (graph overhead included)."""
    results = {}
    for label, xs, ws in LAYERS:
        g = tf.Graph()
        with g.as_default():
            rng = np.random.RandomState(0)
            x = tf.placeholder(tf.float32, xs)
            w = tf.placeholder(tf.float32, ws)
            y = conv_ops.conv2d(x, w, [1, 1, 1, 1], "SAME")
            dy = tf.placeholder(tf.float32, y.get_shape())
            bi = conv_ops.conv2d_backprop_input(list(xs), w, dy, [1, 1, 1, 1], "SAME")
            bf = conv_ops.conv2d_backprop_filter(x, list(ws), dy, [1, 1, 1, 1], "SAME")
            feed = {x: rng.standard_normal(xs).astype(np.float32),
                    w: rng.standard_normal(ws).astype(np.float32),
                    dy: rng.standard_normal(y.get_shape().as_list()).astype(np.float32)}
            with tf.Session(graph=g) as sess:
                t = _best_time(lambda sess=sess, feed=feed, f=(y, bi, bf): sess.run(f, feed))
        flops = 3 * 2 * np.prod(xs[:3]) * np.prod(ws)
        results[label] = {"ms": t * 1e3, "gflops": flops / t / 1e9}
    return results


_CATEGORIES = (
    ("conv forward", ("Conv2D",)),
    ("conv backprop-input", ("Conv2DBackpropInput",)),
    ("conv backprop-filter", ("Conv2DBackpropFilter",)),
    ("pooling", ("MaxPool", "MaxPoolGrad")),
    ("fc matmuls", ("MatMul",)),
    ("optimizer", ("ApplyMomentum",)),
)


def _cpu_timed_kernels(acc):
    """Wraps every Python kernel in the op registry so that each call adds the calling
    thread's CPU time to ``acc[(op type, shape of its first input)]``; returns the undo."""
    import functools

    from tideflow.framework import op_registry

    def wrap(k, name):
        def timed(*args, **kw):
            t0 = time.thread_time()
            try:
                return k(*args, **kw)
            finally:
                arrays = [a for a in args if isinstance(a, np.ndarray)]
                shape = tuple(max(arrays, key=np.size).shape) if arrays else ()
                acc[(name, shape)] = acc.get((name, shape), 0.0) + time.thread_time() - t0

        return functools.update_wrapper(timed, k)

    saved = []
    for name, od in op_registry.registered_ops().items():
        saved.append((od, od.kernel, od.kernel_factory))
        if od.kernel_factory is not None:
            od.kernel_factory = functools.update_wrapper(
                lambda ctx, f=od.kernel_factory, n=name: wrap(f(ctx), n), od.kernel_factory)
        elif od.kernel is not None and not isinstance(od.kernel, str):
            od.kernel = wrap(od.kernel, name)
        # ufunc kernels (named by a string) are emitted inline: they stay in the rest

    def undo():
        for od, k, f in saved:
            od.kernel, od.kernel_factory = k, f

    return undo


def profile_cnn(steps=9, clock="trace"):
    """Per-kernel time of one training step of the MNIST CNN benchmark (bench_training).

    ``clock="trace"``: wall time from Session.run's FULL_TRACE step stats, the median over
    ``steps`` traced steps. ``clock="cpu"``: the CPU time of each kernel call on the calling
    thread, the mean over ``steps`` steps; meant for OPENBLAS_NUM_THREADS=1 on a shared,
    loaded machine, where wall times mostly measure the neighbours (the remainder of the
    step's CPU time, ufunc kernels emitted inline and the executor, is reported as such).
    """
    import statistics

    from bench_training import cnn_flops_per_step, cnn_model

    sess, train, x, y, xs, ys = cnn_model()
    rows = []
    if clock == "cpu":
        acc = {}
        undo = _cpu_timed_kernels(acc)
        try:
            for i in range(2):
                sess.run(train, {x: xs[i % len(xs)], y: ys[i % len(ys)]})
            acc.clear()
            t0 = time.thread_time()
            for i in range(steps):
                sess.run(train, {x: xs[i % len(xs)], y: ys[i % len(ys)]})
            step_ms = (time.thread_time() - t0) / steps * 1e3
        finally:
            undo()
        for (op_type, shape), sec in acc.items():
            rows.append((sec / steps * 1e3, "x".join(map(str, shape)), op_type))
        rows.append((step_ms - sum(r[0] for r in rows), "inline ufuncs, executor", "(rest)"))
    else:
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        per_op = {}
        for i in range(steps + 2):
            md = tf.RunMetadata()
            sess.run(train, {x: xs[i % len(xs)], y: ys[i % len(ys)]}, options=opts,
                     run_metadata=md)
            if i < 2:
                continue  # warm-up
            for dev in md.step_stats.dev_stats:
                for n in dev.node_stats:
                    per_op.setdefault(n.node_name, []).append(n.all_end_rel_nanos / 1e6)
        for name, ts in per_op.items():
            try:
                op_type = sess.graph.get_operation_by_name(name).type
            except KeyError:
                continue  # _SOURCE, _arg_*, _retval_*: the step's markers (as TF's), not ops
            rows.append((statistics.median(ts), name, op_type))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    cats = {}
    for ms, _, op_type in rows:
        cat = next((c for c, types in _CATEGORIES if op_type in types), "elementwise and other")
        cats[cat] = cats.get(cat, 0.0) + ms
    what = "CPU time per step" if clock == "cpu" else "in kernels"
    print(f"one CNN training step: {total:.2f} ms {what} "
          f"({cnn_flops_per_step() / total / 1e6:.1f} GFLOP/s); "
          f"load average {os.getloadavg()[0]:.2f}")
    for cat, ms in sorted(cats.items(), key=lambda kv: -kv[1]):
        print(f"  {cat:24s} {ms:7.2f} ms {100 * ms / total:5.1f}%")
    print("kernels over 0.2 ms:")
    for ms, name, op_type in rows:
        if ms >= 0.2:
            print(f"  {ms:7.2f} ms  {op_type:22s} {name}")
    return {"clock": clock, "total_ms": total, "categories": cats,
            "kernels": [{"name": n, "type": t, "ms": ms} for ms, n, t in rows]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--kernels-only", action="store_true")
    parser.add_argument("--profile", action="store_true",
                        help="break one training step of the MNIST CNN down by kernel")
    parser.add_argument("--clock", choices=("trace", "cpu"), default="trace",
                        help="--profile: wall time from a FULL_TRACE (default) or the CPU "
                             "time of each kernel call (with OPENBLAS_NUM_THREADS=1)")
    args = parser.parse_args()
    if args.profile:
        out = profile_cnn(clock=args.clock)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(out, f, indent=2)
        return
    peak = matmul_peak()
    rows = bench_kernels()
    peak = max(peak, matmul_peak())  # before and after: the better of the two
    total_flops = sum(r["flops"] for r in rows)
    total_time = sum(r["seconds"] for r in rows)
    aggregate = total_flops / total_time / 1e9
    print(f"BLAS peak (2048^2 float32 matmul): {peak:8.1f} GFLOP/s")
    for r in rows:
        print(f"{r['layer']:30s} {r['pass']:16s} {r['ms']:8.2f} ms {r['gflops']:8.1f} GFLOP/s "
              f"({100 * r['gflops'] / peak:5.1f}% of peak)")
    print(f"aggregate (fwd + both backprops, both layers): {aggregate:8.1f} GFLOP/s "
          f"({100 * aggregate / peak:5.1f}% of peak; target 50%)")
    out = {"peak_gflops": peak, "kernels": rows, "aggregate_gflops": aggregate,
           "fraction_of_peak": aggregate / peak}
    if not args.kernels_only:
        sess = bench_session()
        for label, r in sess.items():
            print(f"Session.run {label:30s} {r['ms']:8.2f} ms {r['gflops']:8.1f} GFLOP/s")
        out["session"] = sess
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
