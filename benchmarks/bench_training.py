"""Training throughput (issue: gradients and training): an MLP against hand-written NumPy, a CNN
against the BLAS peak, and each benchmark's peak resident memory.

* MLP 784-512-512-10, ReLU, softmax cross-entropy, SGD, batch 128, data fed every step:
  tideflow steps/s against a hand-written NumPy forward/backward of the same network.
* CNN on 28x28x1 (conv 5x5x32 SAME + relu + max pool 2, conv 5x5x64 + relu + max pool 2,
  fc 1024 relu, fc 10), batch 64, momentum: steps/s and achieved GFLOP/s against the peak of a
  2048x2048 float32 matmul, measured in rounds alternating with the CNN's steps (the median of
  the per-round fractions is reported). ``benchmarks/bench_conv.py --profile`` breaks one
  step down by kernel.
* Peak RSS of a process that runs only that benchmark (``--only mlp|mlp_numpy|cnn``).

Run: ``python benchmarks/bench_training.py`` (``--json FILE`` saves the figures).
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

BATCH_MLP = 128
BATCH_CNN = 64


def _steps_per_sec(step, warmup=5, steps=30, repeat=5):
    for _ in range(warmup):
        step()
    rates = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        rates.append(steps / (time.perf_counter() - t0))
    return statistics.median(rates)


def blas_peak_gflops(n=2048):
    a = np.random.RandomState(0).standard_normal((n, n)).astype(np.float32)
    b = a.T.copy()
    out = np.empty_like(a)
    np.matmul(a, b, out=out)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        np.matmul(a, b, out=out)
        times.append(time.perf_counter() - t0)
    return 2.0 * n**3 / min(times) / 1e9


def _mlp_data(rng, n=8):
    xs = [rng.standard_normal((BATCH_MLP, 784)).astype(np.float32) for _ in range(n)]
    ys = [rng.randint(0, 10, BATCH_MLP).astype(np.int64) for _ in range(n)]
    return xs, ys


def _mlp_init(rng):
    def glorot(a, b):
        lim = np.sqrt(6.0 / (a + b))
        return rng.uniform(-lim, lim, (a, b)).astype(np.float32)

    return [glorot(784, 512), np.zeros(512, np.float32), glorot(512, 512),
            np.zeros(512, np.float32), glorot(512, 10), np.zeros(10, np.float32)]


def mlp_numpy_step(lr=0.01):
    """The floor: forward, backward and SGD written by hand in NumPy (in-place updates)."""
    rng = np.random.RandomState(0)
    w1, b1, w2, b2, w3, b3 = _mlp_init(rng)
    xs, ys = _mlp_data(rng)
    it = [0]

    def step():
        i = it[0] % len(xs)
        it[0] += 1
        x, y = xs[i], ys[i]
        h1 = x @ w1 + b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w2 + b2
        np.maximum(h2, 0, out=h2)
        z = h2 @ w3 + b3
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(len(y)), y] -= 1.0
        dz = p / len(y)
        dh2 = dz @ w3.T
        dh2 *= h2 > 0
        dh1 = dh2 @ w2.T
        dh1 *= h1 > 0
        for param, grad in ((w3, h2.T @ dz), (b3, dz.sum(0)), (w2, h1.T @ dh2),
                            (b2, dh2.sum(0)), (w1, x.T @ dh1), (b1, dh1.sum(0))):
            param -= lr * grad

    return step


class MLP:
    """The MLP benchmark model in a graph of its own: x, y, weights, logits, loss, train op."""

    def __init__(self, lr=0.01):
        import tideflow as tf

        rng = np.random.RandomState(0)
        init = _mlp_init(rng)
        self.xs, self.ys = _mlp_data(rng)
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.x = tf.placeholder(tf.float32, [None, 784])
            self.y = tf.placeholder(tf.int64, [None])
            self.weights = [tf.Variable(v) for v in init]
            w1, b1, w2, b2, w3, b3 = self.weights
            h1 = tf.nn.relu(tf.matmul(self.x, w1) + b1)
            h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)
            self.logits = tf.matmul(h2, w3) + b3
            self.loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=self.y, logits=self.logits))
            self.train = tf.train.GradientDescentOptimizer(lr).minimize(self.loss)
            self.init = tf.global_variables_initializer()


def mlp_tideflow_step(lr=0.01):
    import tideflow as tf

    m = MLP(lr)
    sess = tf.Session(graph=m.graph)
    sess.run(m.init)
    train, x, y, xs, ys = m.train, m.x, m.y, m.xs, m.ys
    it = [0]

    def step():
        i = it[0] % len(xs)
        it[0] += 1
        sess.run(train, {x: xs[i], y: ys[i]})

    return step


def mlp_numpy():
    return _steps_per_sec(mlp_numpy_step())


def mlp_tideflow():
    return _steps_per_sec(mlp_tideflow_step())


def mlp_ratio(rounds=7):
    """Median over interleaved rounds of (tideflow rate / NumPy rate): drift cancels."""
    ours, ref = mlp_tideflow_step(), mlp_numpy_step()
    pairs = []
    for _ in range(rounds):
        r = _steps_per_sec(ref, warmup=2, steps=40, repeat=1)
        o = _steps_per_sec(ours, warmup=2, steps=40, repeat=1)
        pairs.append((o, r))
    ratios = sorted(o / r for o, r in pairs)
    return (statistics.median(o for o, _ in pairs), statistics.median(r for _, r in pairs),
            ratios[len(ratios) // 2])


def cnn_flops_per_step(batch=BATCH_CNN):
    """Multiply-adds x2 of forward, filter-gradient and input-gradient passes."""
    conv1 = 2 * batch * 28 * 28 * 32 * 5 * 5 * 1
    conv2 = 2 * batch * 14 * 14 * 64 * 5 * 5 * 32
    fc1 = 2 * batch * 7 * 7 * 64 * 1024
    fc2 = 2 * batch * 1024 * 10
    fwd = conv1 + conv2 + fc1 + fc2
    # backward: weight gradients for all layers, input gradients for all but the first
    return fwd + fwd + (fwd - conv1)


def cnn_model():
    """The CNN benchmark model in a graph of its own, with its session initialized.

    Returns (session, train op, x placeholder, y placeholder, [x batches], [y batches]).
    """
    import tideflow as tf

    rng = np.random.RandomState(0)
    xs = [rng.standard_normal((BATCH_CNN, 28, 28, 1)).astype(np.float32) for _ in range(4)]
    ys = [rng.randint(0, 10, BATCH_CNN).astype(np.int64) for _ in range(4)]
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None, 28, 28, 1])
        y = tf.placeholder(tf.int64, [None])

        def var(shape, stddev=0.1):
            return tf.Variable(tf.truncated_normal(shape, stddev=stddev))

        h = tf.nn.relu(tf.nn.conv2d(x, var([5, 5, 1, 32]), [1, 1, 1, 1], "SAME")
                       + var([32], 0.01))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        h = tf.nn.relu(tf.nn.conv2d(h, var([5, 5, 32, 64]), [1, 1, 1, 1], "SAME")
                       + var([64], 0.01))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        h = tf.reshape(h, [-1, 7 * 7 * 64])
        h = tf.nn.relu(tf.matmul(h, var([7 * 7 * 64, 1024], 0.01)) + var([1024], 0.01))
        logits = tf.matmul(h, var([1024, 10])) + var([10], 0.01)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    return sess, train, x, y, xs, ys


def cnn_tideflow_step():
    sess, train, x, y, xs, ys = cnn_model()
    it = [0]

    def step():
        i = it[0] % len(xs)
        it[0] += 1
        sess.run(train, {x: xs[i], y: ys[i]})

    return step


def cnn_tideflow():
    return _steps_per_sec(cnn_tideflow_step(), warmup=3, steps=5, repeat=5)


def cnn_vs_peak(rounds=7, steps=5):
    """Median over interleaved rounds of the CNN's steps/s, its GFLOP/s and their fraction of
    the BLAS peak measured in the same round (load drifting between them cancels).

    Returns (steps/s, GFLOP/s, peak GFLOP/s, fraction of peak), each the median over rounds.
    """
    step = cnn_tideflow_step()
    for _ in range(3):
        step()
    flops = cnn_flops_per_step()
    rates, peaks, fracs = [], [], []
    for _ in range(rounds):
        peak = blas_peak_gflops()
        rate = _steps_per_sec(step, warmup=1, steps=steps, repeat=1)
        rates.append(rate)
        peaks.append(peak)
        fracs.append(rate * flops / 1e9 / peak)
    med = statistics.median
    return med(rates), med(rates) * flops / 1e9, med(peaks), med(fracs)


_ONLY = {"mlp": mlp_tideflow, "mlp_numpy": mlp_numpy, "cnn": cnn_tideflow}


def _peak_rss_mb(which):
    """Runs one benchmark alone in a child process; returns (its result, its peak RSS in MB).

    The child reports its own VmHWM: ru_maxrss would include the parent's high-water mark,
    which a forked child inherits.
    """
    out = subprocess.run([sys.executable, __file__, "--only", which], capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[0]), float(out[1]) / 1024.0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--only", choices=sorted(_ONLY), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.only:
        rate = _ONLY[args.only]()
        with open("/proc/self/status") as f:
            hwm = next(line.split()[1] for line in f if line.startswith("VmHWM"))
        print(rate, hwm)
        return
    mlp_tf, mlp_np, mlp_r = mlp_ratio()
    cnn, cnn_gflops, peak, cnn_frac = cnn_vs_peak()
    results = {
        "blas_peak_gflops": peak,
        "mlp_steps_per_s": mlp_tf, "mlp_numpy_steps_per_s": mlp_np,
        "mlp_ratio_vs_numpy": mlp_r,
        "cnn_steps_per_s": cnn, "cnn_gflops": cnn_gflops,
        "cnn_fraction_of_peak": cnn_frac,
        "load_average_1min": os.getloadavg()[0],
    }
    for which in ("mlp", "mlp_numpy", "cnn"):
        _, rss = _peak_rss_mb(which)
        results[f"{which}_peak_rss_mb"] = rss
    print(json.dumps({k: round(v, 3) for k, v in results.items()}, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
