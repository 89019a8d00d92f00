"""Summary overhead (issue: TensorBoard summaries): the MLP training step of
``bench_training.py`` (784-512-512-10, batch 128, SGD) with a merged summary (loss, accuracy and
learning-rate scalars, a histogram of every weight matrix) evaluated and written to an event file
every step, against the same loop without summaries, interleaved in one run.

Also reports the overhead when the summary is written every 10th step (common practice), the
event bytes per summary, and the HistogramSummary kernel's time over the MLP's three weight
matrices (784x512, 512x512, 512x10: 668,672 values) beside what NumPy's sort of the same
values alone takes (the floor of the bucketing by sort the kernel did until the twenty-seventh
session; it now finds each bucket from the logarithm, with no sort).

Run: ``python benchmarks/bench_summary.py`` (``--json FILE`` saves the figures).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from bench_training import MLP, _steps_per_sec


def mlp_steps(logdir=None, every=1, lr=0.01):
    """A step function of the MLP; with ``logdir``, every ``every``-th step also evaluates the
    merged summary and writes it with a FileWriter."""
    import tideflow as tf
    from tideflow import summary

    m = MLP(lr)
    g, x, y, xs, ys, loss, logits = m.graph, m.x, m.y, m.xs, m.ys, m.loss, m.logits
    train = m.train
    with g.as_default():
        fetches = train
        writer = None
        if logdir is not None:
            accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
            summary.scalar("loss", loss)
            summary.scalar("accuracy", accuracy)
            summary.scalar("learning_rate", tf.constant(lr))
            for i, w in enumerate(m.weights[0::2], 1):
                summary.histogram(f"layer{i}/weights", w)
            with_summary = [train, summary.merge_all()]
            writer = summary.FileWriter(logdir, g)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    it = [0]

    def step():
        i = it[0]
        it[0] += 1
        feed = {x: xs[i % len(xs)], y: ys[i % len(ys)]}
        if writer is not None and i % every == 0:
            writer.add_summary(sess.run(with_summary, feed)[1], i)
        else:
            sess.run(fetches, feed)

    step.writer = writer
    step.count = lambda: it[0]
    return step


def _dir_bytes(path):
    return sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path))


def overhead(every=1, rounds=7):
    """Median over interleaved rounds of (rate with summaries / rate without)."""
    with tempfile.TemporaryDirectory() as logdir:
        plain, with_summaries = mlp_steps(), mlp_steps(logdir, every)
        with_summaries.writer.flush()
        graph_bytes = _dir_bytes(logdir)  # the graph and meta graph events, written once
        first = with_summaries.count()
        pairs = []
        for _ in range(rounds):
            a = _steps_per_sec(plain, warmup=2, steps=40, repeat=1)
            b = _steps_per_sec(with_summaries, warmup=2, steps=40, repeat=1)
            pairs.append((a, b))
        with_summaries.writer.close()
        size = _dir_bytes(logdir) - graph_bytes
        steps = (with_summaries.count() - first + every - 1) // every
    ratios = sorted(b / a for a, b in pairs)
    return (statistics.median(a for a, _ in pairs), statistics.median(b for _, b in pairs),
            ratios[len(ratios) // 2], size / max(1, steps))


def histogram_us(repeat=30):
    """(HistogramSummary kernel, np.sort alone) in microseconds over the MLP's weight matrices,
    best of ``repeat`` interleaved rounds."""
    from tideflow.framework import op_registry

    rng = np.random.RandomState(0)
    weights = [rng.uniform(-0.07, 0.07, shape).astype(np.float32)
               for shape in [(784, 512), (512, 512), (512, 10)]]
    ctx = type("Ctx", (), {"name": "layer/weights"})()
    kernel = op_registry.get("HistogramSummary").kernel_factory(ctx)
    tag = np.array(b"layer/weights", dtype=object)
    kernel_s, sort_s = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for w in weights:
            kernel(tag, w)
        t1 = time.perf_counter()
        for w in weights:
            np.sort(w.reshape(-1))
        t2 = time.perf_counter()
        kernel_s.append(t1 - t0)
        sort_s.append(t2 - t1)
    return min(kernel_s) * 1e6, min(sort_s) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    plain, with_summaries, ratio, bytes_per_step = overhead()
    _, _, ratio10, _ = overhead(every=10)
    results = {
        "mlp_steps_per_s": plain,
        "mlp_with_summaries_steps_per_s": with_summaries,
        "rate_ratio": ratio,
        "overhead_percent": (1.0 / ratio - 1.0) * 100.0,
        "event_bytes_per_summary": bytes_per_step,
        "overhead_percent_every_10_steps": (1.0 / ratio10 - 1.0) * 100.0,
    }
    results["histogram_668k_values_us"], results["sort_668k_values_us"] = histogram_us()
    print(json.dumps({k: round(v, 3) for k, v in results.items()}, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
