"""Recurrent training steps, whose gradients are mostly small ops: an LSTM (64 units, 20 steps
of 32 features, batch 32, Adam) unrolled (``static_rnn``) and in a loop (``dynamic_rnn``).
Reports steps/s with the plan's shape arithmetic grouped (``runtime/shape_memo.py``, the
default) against the same model with it off, interleaved in one run, and the kernel calls a
step's plan makes either way (a loop body's counted once).

Run: ``python benchmarks/bench_rnn.py`` (``--json FILE`` saves the figures).
"""

import argparse
import json
import os
import statistics
import sys
import time

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


def compare(kind, rounds=7, steps=10):
    """Median steps/s with and without the shape groups (interleaved), and call counts."""
    from tideflow.runtime import shape_memo

    shape_memo.ENABLED = False
    try:
        off, calls_off = lstm_step(kind)
    finally:
        shape_memo.ENABLED = True
    on, calls_on = lstm_step(kind)
    rates = {"on": [], "off": []}
    for fn in (on, off):
        for _ in range(3):
            fn()
    for r in range(rounds):
        pair = (("on", on), ("off", off))
        for label, fn in pair if r % 2 else pair[::-1]:  # (each first in every other round)
            t0 = time.perf_counter()
            for _ in range(steps):
                fn()
            rates[label].append(steps / (time.perf_counter() - t0))
    ratios = sorted(a / b for a, b in zip(rates["on"], rates["off"]))
    return {"kind": kind, "steps_per_sec": statistics.median(rates["on"]),
            "steps_per_sec_without": statistics.median(rates["off"]),
            "ratio": ratios[len(ratios) // 2], "kernel_calls": calls_on,
            "kernel_calls_without": calls_off}


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--json")
    args = p.parse_args()
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
