"""Context figures from other frameworks, measured on this machine in the same minutes as ours
(never a dependency; each part runs under an interpreter that has that framework).

* ``summary``: the summary-overhead program of ``bench_summary.py`` (MLP 784-512-512-10, batch 128,
  SGD; loss/accuracy/learning-rate scalars and a histogram of each weight matrix merged and written
  every step) as plain TF 1.x code, run under tideflow (``--tideflow``) or real TensorFlow
  (``import tensorflow.compat.v1``): the rate with summaries over the rate without, interleaved.
* ``cnn``: the CNN of ``bench_training.py`` in PyTorch (conv 5x5x32 SAME, relu, max pool 2,
  conv 5x5x64, relu, max pool 2, fc 1024, fc 10; batch 64; SGD with momentum 0.9), steps/s and the
  fraction of the NumPy 2048x2048 float32 matmul peak measured in the same rounds.
* ``workloads``: common TF 1.x training steps as plain TF 1.x code, under tideflow
  (``--tideflow``) or real TensorFlow: a 3-layer conv/batch-norm CNN, four residual blocks, a
  2-layer GRU unrolled 30 steps, a dynamic_rnn LSTM over 50 steps, an LSTM encoder-decoder, and
  word2vec-style NCE over a 50,000-word embedding; steps/s of each, median of the rounds.

Run: ``/path/to/tf-venv/bin/python benchmarks/compare_frameworks.py summary`` (or with
``--tideflow`` under the project's environment), ``/path/to/torch-venv/bin/python
benchmarks/compare_frameworks.py cnn``, ``... compare_frameworks.py workloads [--tideflow]``
(TensorFlow 2.x needs ``TF_USE_LEGACY_KERAS=1`` for ``tf.layers`` and ``tf.nn.rnn_cell``).
"""

import argparse
import functools
import os
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _rate(step, n):
    for _ in range(2):
        step()
    t0 = time.perf_counter()
    for _ in range(n):
        step()
    return n / (time.perf_counter() - t0)


def summary_program(tf, logdir):
    """One MLP training step function, with the merged summary written every step if logdir."""
    g = tf.Graph()
    rng = np.random.RandomState(0)
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 784])
        y = tf.placeholder(tf.int64, [None])
        weights, h = [], x
        for a, b in [(784, 512), (512, 512), (512, 10)]:
            w = tf.Variable((rng.randn(a, b) * np.sqrt(2 / (a + b))).astype(np.float32))
            weights.append(w)
            h = tf.matmul(h, w) + tf.Variable(np.zeros(b, np.float32))
            if b != 10:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        fetch, writer = train, None
        if logdir:
            accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(h, 1), y), tf.float32))
            tf.summary.scalar("loss", loss)
            tf.summary.scalar("accuracy", accuracy)
            tf.summary.scalar("learning_rate", tf.constant(0.01))
            for i, w in enumerate(weights, 1):
                tf.summary.histogram(f"layer{i}/weights", w)
            fetch = [train, tf.summary.merge_all()]
            writer = tf.summary.FileWriter(logdir, g)
        sess = tf.Session(graph=g)
        sess.run(tf.global_variables_initializer())
    xs = [rng.rand(128, 784).astype(np.float32) for _ in range(8)]
    ys = [rng.randint(0, 10, 128) for _ in range(8)]
    it = [0]

    def step():
        i = it[0]
        it[0] += 1
        out = sess.run(fetch, {x: xs[i % 8], y: ys[i % 8]})
        if writer is not None:
            writer.add_summary(out[1], i)

    return step


def _framework(use_tideflow):
    """tideflow, or real TensorFlow's compat.v1 API in graph mode."""
    if use_tideflow:
        sys.path.insert(0, os.path.join(HERE, ".."))
        import tideflow as tf
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
    return tf


def summary(use_tideflow, rounds):
    tf = _framework(use_tideflow)
    with tempfile.TemporaryDirectory() as logdir:
        plain, with_summaries = summary_program(tf, None), summary_program(tf, logdir)
        pairs = [(_rate(plain, 40), _rate(with_summaries, 40)) for _ in range(rounds)]
    ratios = sorted(b / a for a, b in pairs)
    name = "tideflow" if use_tideflow else "tensorflow " + tf.__version__
    print(f"{name}: {statistics.median(a for a, _ in pairs):.0f} steps/s plain, "
          f"{statistics.median(b for _, b in pairs):.0f} with summaries every step, "
          f"rate ratio {ratios[len(ratios) // 2]:.3f}")


def cnn(rounds):
    import torch
    import torch.nn.functional as F
    from torch import nn

    sys.path.insert(0, HERE)
    from bench_training import BATCH_CNN, blas_peak_gflops, cnn_flops_per_step

    torch.set_num_threads(os.cpu_count())
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(1, 32, 5, padding=2)
            self.c2 = nn.Conv2d(32, 64, 5, padding=2)
            self.f1 = nn.Linear(7 * 7 * 64, 1024)
            self.f2 = nn.Linear(1024, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.c1(x)), 2)
            x = F.max_pool2d(F.relu(self.c2(x)), 2)
            return self.f2(F.relu(self.f1(x.flatten(1))))

    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.RandomState(0)
    xs = [torch.tensor(rng.standard_normal((BATCH_CNN, 1, 28, 28)).astype(np.float32))
          for _ in range(4)]
    ys = [torch.tensor(rng.randint(0, 10, BATCH_CNN)) for _ in range(4)]
    it = [0]

    def step():
        i = it[0] % 4
        it[0] += 1
        opt.zero_grad()
        F.cross_entropy(net(xs[i]), ys[i]).backward()
        opt.step()

    flops = cnn_flops_per_step()
    rates, fracs, peaks = [], [], []
    for _ in range(rounds):
        peak = blas_peak_gflops()
        rate = _rate(step, 5)
        rates.append(rate)
        peaks.append(peak)
        fracs.append(rate * flops / 1e9 / peak)
    med = statistics.median
    print(f"pytorch {torch.__version__}: {med(rates):.2f} steps/s, "
          f"{med(rates) * flops / 1e9:.0f} GFLOP/s, peak {med(peaks):.0f} GFLOP/s, "
          f"{med(fracs):.1%} of peak")


def _workload(tf, which, rng):
    """(fetch, feed) of one training step of the named workload, built in the default graph."""
    tf.set_random_seed(0)
    if which in ("bn_cnn", "resnet"):
        n, size, chans = (32, 32, 3) if which == "bn_cnn" else (16, 32, 16)
        x = tf.placeholder(tf.float32, [n, size, size, chans])
        y = tf.placeholder(tf.int64, [n])
        h = x
        if which == "bn_cnn":
            for f in (32, 64, 128):
                h = tf.layers.conv2d(h, f, 3, padding="same", use_bias=False)
                h = tf.nn.relu(tf.layers.batch_normalization(h, training=True))
                h = tf.layers.max_pooling2d(h, 2, 2)
            h = tf.layers.flatten(h)
        else:
            for _ in range(4):
                r = h
                h = tf.layers.conv2d(h, 16, 3, padding="same")
                h = tf.nn.relu(tf.layers.batch_normalization(h, training=True))
                h = tf.layers.conv2d(h, 16, 3, padding="same")
                h = tf.nn.relu(tf.layers.batch_normalization(h, training=True) + r)
            h = tf.reduce_mean(h, [1, 2])
        loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(h, 10))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
        feed = {x: rng.rand(n, size, size, chans).astype(np.float32),
                y: rng.randint(0, 10, n)}
        return train, feed
    if which in ("gru", "lstm"):
        steps, batch, hidden, depth = (30, 32, 128, 64) if which == "gru" else (50, 32, 128, 64)
        x = tf.placeholder(tf.float32, [batch, steps, depth])
        y = tf.placeholder(tf.int64, [batch])
        if which == "gru":
            cell = tf.nn.rnn_cell.MultiRNNCell(
                [tf.nn.rnn_cell.GRUCell(hidden) for _ in range(2)])
            out, _ = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
            last, opt = out[-1], tf.train.RMSPropOptimizer(1e-3)
        else:
            out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(hidden), x, dtype=tf.float32)
            last, opt = out[:, -1], tf.train.AdamOptimizer(1e-3)
        loss = tf.losses.sparse_softmax_cross_entropy(y, tf.layers.dense(last, 10))
        feed = {x: rng.rand(batch, steps, depth).astype(np.float32),
                y: rng.randint(0, 10, batch)}
        return opt.minimize(loss), feed
    if which == "seq2seq":
        batch, steps, vocab, hidden = 32, 20, 50, 64
        enc = tf.placeholder(tf.int32, [batch, steps])
        dec = tf.placeholder(tf.int32, [batch, steps])
        target = tf.placeholder(tf.int32, [batch, steps])
        emb = tf.get_variable("emb", [vocab, hidden])
        with tf.variable_scope("encoder"):
            _, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(hidden),
                                         tf.nn.embedding_lookup(emb, enc), dtype=tf.float32)
        with tf.variable_scope("decoder"):
            out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(hidden),
                                       tf.nn.embedding_lookup(emb, dec), initial_state=state)
        loss = tf.losses.sparse_softmax_cross_entropy(target, tf.layers.dense(out, vocab))
        feed = {t: rng.randint(0, vocab, (batch, steps)) for t in (enc, dec, target)}
        return tf.train.AdamOptimizer().minimize(loss), feed
    vocab, dim, batch = 50000, 128, 256  # nce
    ids = tf.placeholder(tf.int64, [batch])
    labels = tf.placeholder(tf.int64, [batch, 1])
    emb = tf.Variable(tf.random_uniform([vocab, dim], -1, 1))
    w = tf.Variable(tf.truncated_normal([vocab, dim], stddev=0.1))
    b = tf.Variable(tf.zeros([vocab]))
    loss = tf.reduce_mean(tf.nn.nce_loss(w, b, labels, tf.nn.embedding_lookup(emb, ids), 64,
                                         vocab))
    feed = {ids: rng.randint(0, vocab, batch), labels: rng.randint(0, vocab, (batch, 1))}
    return tf.train.GradientDescentOptimizer(1.0).minimize(loss), feed


WORKLOADS = ("bn_cnn", "resnet", "gru", "lstm", "seq2seq", "nce")


def workloads(use_tideflow, rounds):
    tf = _framework(use_tideflow)
    rng = np.random.RandomState(0)
    for which in WORKLOADS:
        with tf.Graph().as_default():
            fetch, feed = _workload(tf, which, rng)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                step = functools.partial(sess.run, fetch, feed)
                n = max(3, int(0.5 * _rate(step, 3)))  # about half a second per round
                rates = [_rate(step, n) for _ in range(rounds)]
        print(f"{which}: {statistics.median(rates):.1f} steps/s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("what", choices=["summary", "cnn", "workloads"])
    ap.add_argument("--tideflow", action="store_true", help="summary: run under tideflow")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    if args.what == "summary":
        summary(args.tideflow, args.rounds)
    elif args.what == "workloads":
        workloads(args.tideflow, args.rounds)
    else:
        cnn(args.rounds)


if __name__ == "__main__":
    main()
