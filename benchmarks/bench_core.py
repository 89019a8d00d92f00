"""Core overheads (issue: foundation): Session.run fixed cost, per-op cost, graph building, import.

Each figure is a ratio against a plain-Python/NumPy reference measured in the same process
and run, median of several repeats after warm-up, so the shared machine's noise cancels.
Run: ``python benchmarks/bench_core.py`` (add ``--json out.json`` to save the figures).
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

import tideflow as tf


def _median_time(fn, number, repeat=7):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times)


def bench_session_run():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
    sess = tf.Session(graph=g)
    const = np.float32(1.0)

    def plain():
        return const

    ref = _median_time(plain, 20000)
    ours = _median_time(lambda: sess.run(c), 20000)
    sess.close()
    return {"session_run_us": ours * 1e6, "python_fn_us": ref * 1e6,
            "ratio_vs_python_fn": ours / ref, "tf221_us": 119.0,
            "fraction_of_tf": ours * 1e6 / 119.0}


def bench_chain(n=1000):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [1])
        one = tf.placeholder_with_default(np.ones(1, np.float32), [1])
        y = x
        for _ in range(n):
            y = y + one
    sess = tf.Session(graph=g)
    feed = {x: np.zeros(1, np.float32)}
    run = sess.make_callable(y, [x])
    xv = np.zeros(1, np.float32)
    onev = np.ones(1, np.float32)

    def numpy_loop():
        v = xv
        for _ in range(n):
            v = np.add(v, onev)
        return v

    assert float(sess.run(y, feed)[0]) == n
    ref = _median_time(numpy_loop, 50)
    ours = _median_time(lambda: sess.run(y, feed), 50)
    ours_callable = _median_time(lambda: run(xv), 50)
    sess.close()
    return {"chain_ops": n, "per_op_us": ours / n * 1e6, "numpy_per_op_us": ref / n * 1e6,
            "ratio_vs_numpy": ours / ref, "make_callable_ratio_vs_numpy": ours_callable / ref}


def bench_construction(n=2000):
    def build():
        g = tf.Graph()
        with g.as_default():
            one = tf.constant(1.0)
            y = one
            for _ in range(n):
                y = y + one
        return g

    build()
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        build()
        times.append((time.perf_counter() - t0) / n)
    per_op = statistics.median(times)
    return {"construct_us_per_op": per_op * 1e6, "tf221_us_per_op": 540.0,
            "speedup_vs_tf": 540.0 / (per_op * 1e6)}


# current RSS from /proc (ru_maxrss would include the parent's high-water mark after fork)
_IMPORT_PROBE = """
import time
t0 = time.perf_counter()
import {mod}
t1 = time.perf_counter()
rss = [l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]
print(t1 - t0, int(rss) / 1024.0)
"""


def bench_import():
    def probe(mod):
        out = []
        for _ in range(5):
            r = subprocess.run([sys.executable, "-c", _IMPORT_PROBE.format(mod=mod)],
                               capture_output=True, text=True, check=True,
                               cwd=os.path.join(os.path.dirname(__file__), ".."))
            t, rss = map(float, r.stdout.split())
            out.append((t, rss))
        return statistics.median(t for t, _ in out), statistics.median(r for _, r in out)

    tf_t, tf_rss = probe("tideflow")
    np_t, np_rss = probe("numpy")
    return {"import_s": tf_t, "import_rss_mb": tf_rss, "numpy_import_s": np_t,
            "numpy_rss_mb": np_rss, "tf221_rss_mb": 605.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    results = {}
    for name, fn in [("session_run", bench_session_run), ("chain", bench_chain),
                     ("construction", bench_construction), ("import", bench_import)]:
        results[name] = fn()
        print(name, json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                for k, v in results[name].items()}))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
