"""Recurrent training steps, whose gradients are mostly small ops: an LSTM (64 units, 20 steps
of 32 features, batch 32, Adam) unrolled (``static_rnn``) and in a loop (``dynamic_rnn``).
Reports steps/s with the plan's shape arithmetic grouped (``runtime/shape_memo.py``, the
default) against the same model with it off, each in a process of its own, alternating in one
run, and the kernel calls a step's plan makes either way (a loop body's counted once).

Run: ``python benchmarks/bench_rnn.py`` (``--json FILE`` saves the figures).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def lstm_step(kind):
    """A training step function of the LSTM model, and its plan's kernel-call count."""
    import tideflow as tf

    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 20, 32])
        y = tf.placeholder(tf.int64, [None])
        cell = tf.nn.rnn_cell.BasicLSTMCell(64)
        if kind == "static":
            out, _ = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
            last = out[-1]
        else:
            out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
            last = out[:, -1]
        logits = tf.layers.dense(last, 10)
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        init = tf.global_variables_initializer()
    sess = tf.Session(graph=g)
    sess.run(init)
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(32, 20, 32).astype(np.float32), y: np.arange(32) % 10}

    def step():
        sess.run(train, feed)

    step()
    plan = max(sess._plans.values(), key=lambda p: len(p.ops))
    return step, len(plan._line_ops)


def _rate(kind, grouped, rounds=5, steps=10):
    """Median steps/s of the model in this process, with or without the shape groups."""
    from bench_training import _steps_per_sec

    from tideflow.runtime import shape_memo

    shape_memo.ENABLED = grouped
    step, calls = lstm_step(kind)
    return _steps_per_sec(step, warmup=3, steps=steps, repeat=rounds), calls


def compare(kind, rounds=3):
    """Median steps/s with and without the shape groups, each in a process of its own (two
    models in one process slow each other's steps: Python's garbage collector walks both
    graphs), alternating, and the call counts of their plans."""
    out = {"on": [], "off": []}
    calls = {}
    for r in range(rounds):
        for label in ("on", "off") if r % 2 else ("off", "on"):
            res = subprocess.run([sys.executable, __file__, "--one", kind, label],
                                 capture_output=True, text=True, check=True)
            rate, n = json.loads(res.stdout.strip().splitlines()[-1])
            out[label].append(rate)
            calls[label] = n
    on, off = statistics.median(out["on"]), statistics.median(out["off"])
    return {"kind": kind, "steps_per_sec": on, "steps_per_sec_without": off,
            "ratio": on / off, "kernel_calls": calls["on"], "kernel_calls_without": calls["off"]}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json")
    p.add_argument("--one", nargs=2, metavar=("KIND", "ON_OFF"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(_rate(args.one[0], args.one[1] == "on")))
        return
    results = [compare(kind, args.rounds) for kind in ("static", "dynamic")]
    for r in results:
        print(f"LSTM {r['kind']}: {r['steps_per_sec']:.1f} steps/s with the shape groups, "
              f"{r['steps_per_sec_without']:.1f} without: {r['ratio']:.3f}x; kernel calls "
              f"{r['kernel_calls']} (without: {r['kernel_calls_without']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
