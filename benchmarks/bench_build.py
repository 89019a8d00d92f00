"""Graph-construction speed: seconds to build (not run) five typical TF 1.x models, each in a
fresh ``tf.Graph``, and the ops created per second.

Builds: ``mlp`` a 50-layer tf.layers MLP/CNN with gradients and an Adam optimizer; ``resnet50``
keras.applications ResNet50 (weights=None, 64x64x3) compiled; ``nasnet`` keras.applications
NASNetMobile (weights=None, 224x224x3); ``lstm`` a dynamic_rnn LSTM (a tf.while_loop) with
gradients; ``slim_r50`` slim's resnet_v1_50 with gradients.

``--tf-python PATH`` also builds the same models under real TensorFlow (compat.v1, tf_keras for
the Keras builds, tf_slim for slim) in a worker process, interleaved with ours build by build,
and reports the ratio ours / TF of the medians (the machine is shared and noisy: medians of
``--repeats`` repeats). ``--base-root DIR`` does the same with another tideflow checkout (an
older commit, e.g. from ``git archive``): before/after ratios. Run: ``python
benchmarks/bench_build.py [--tf-python /tmp/tfvenv/bin/python] [--base-root DIR] [--repeats 3]
[--only nasnet,lstm] [--profile NAME]``.
"""

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.environ.get("BENCH_BUILD_ROOT") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..")


# ------------------------------------------------------------------------------------------
# the builds (written once against the TF 1.x API; ``env`` gives tf, keras and slim)
# ------------------------------------------------------------------------------------------

def build_mlp(env):
    tf = env["tf"]
    x = tf.placeholder(tf.float32, [None, 16, 16, 3])
    y = tf.placeholder(tf.int64, [None])
    h = x
    for i in range(10):
        h = tf.layers.conv2d(h, 8, 3, padding="same", activation=tf.nn.relu, name=f"conv{i}")
    h = tf.layers.flatten(h)
    for i in range(40):
        h = tf.layers.dense(h, 32, activation=tf.nn.relu, name=f"dense{i}")
    logits = tf.layers.dense(h, 10, name="logits")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=tf.train.get_or_create_global_step())
    tf.global_variables_initializer()


def build_resnet50(env):
    keras = env["keras"]
    model = keras.applications.ResNet50(weights=None, input_shape=(64, 64, 3), classes=10)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")


def build_nasnet(env):
    keras = env["keras"]
    keras.applications.NASNetMobile(weights=None, input_shape=(224, 224, 3))


def build_lstm(env):
    tf = env["tf"]
    x = tf.placeholder(tf.float32, [8, 20, 32])
    cell = tf.nn.rnn_cell.LSTMCell(64)
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    loss = tf.reduce_mean(tf.square(out))
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def build_slim_r50(env):
    tf, slim, nets = env["tf"], env["slim"], env["slim_nets"]
    images = tf.placeholder(tf.float32, [2, 64, 64, 3])
    with slim.arg_scope(nets.resnet_v1.resnet_arg_scope()):
        logits, _ = nets.resnet_v1.resnet_v1_50(images, num_classes=5)
    loss = tf.reduce_mean(tf.square(logits))
    tf.gradients(loss, tf.trainable_variables())


BUILDS = {"mlp": build_mlp, "resnet50": build_resnet50, "nasnet": build_nasnet,
          "lstm": build_lstm, "slim_r50": build_slim_r50}


def make_env(real_tf):
    if real_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ["TF_USE_LEGACY_KERAS"] = "1"
        import tensorflow.compat.v1 as tf
        import tf_keras
        import tf_slim
        import tf_slim.nets

        tf.disable_v2_behavior()
        # tf_slim's batch_norm loads tf_keras.legacy_tf_layers, kept under tf_keras.src now
        import tf_keras.src.legacy_tf_layers as legacy
        import tf_keras.src.legacy_tf_layers.normalization

        sys.modules.setdefault("tf_keras.legacy_tf_layers", legacy)
        sys.modules.setdefault("tf_keras.legacy_tf_layers.normalization", legacy.normalization)
        tf.logging.set_verbosity(tf.logging.ERROR)
        return {"tf": tf, "keras": tf_keras, "slim": tf_slim, "slim_nets": tf_slim.nets,
                "clear": tf_keras.backend.clear_session}
    sys.path.insert(0, ROOT)
    import tideflow as tf

    return {"tf": tf, "keras": tf.keras, "slim": tf.contrib.slim,
            "slim_nets": tf.contrib.slim.nets, "clear": tf.keras.backend.clear_session}


def run_build(env, name):
    """Seconds to build ``name`` in a fresh graph, and the number of ops it made."""
    tf = env["tf"]
    env["clear"]()
    gc.collect()
    g = tf.Graph()
    with g.as_default():
        t0 = time.perf_counter()
        BUILDS[name](env)
        dt = time.perf_counter() - t0
        n = len(g.get_operations())
    env["clear"]()
    return dt, n


def worker(real_tf):
    """Line protocol on stdin/stdout: a build name in, '<seconds> <ops>' out."""
    env = make_env(real_tf)
    out = sys.stdout
    sys.stdout = sys.stderr  # library chatter must not reach the protocol
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        name = line.strip()
        if not name:
            break
        dt, n = run_build(env, name)
        out.write(f"{dt} {n}\n")
        out.flush()


class Worker:
    def __init__(self, python, real_tf, root=None):
        cmd = [python, os.path.abspath(__file__), "--worker"] + (["--real-tf"] if real_tf else [])
        env = dict(os.environ, BENCH_BUILD_ROOT=root) if root else None
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, env=env)
        if self.p.stdout.readline().strip() != "ready":
            raise RuntimeError(f"worker {python} did not start")

    def build(self, name):
        self.p.stdin.write(name + "\n")
        self.p.stdin.flush()
        dt, n = self.p.stdout.readline().split()
        return float(dt), int(n)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tf-python", help="a Python with TensorFlow 2.x, for the reference")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", help="comma-separated build names")
    ap.add_argument("--profile", help="cProfile one build of NAME (ours), print the top")
    ap.add_argument("--base-root", help="another tideflow checkout (e.g. an older commit): "
                    "its builds run interleaved too, reported as ours / base")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--real-tf", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.real_tf)
    if args.profile:
        import cProfile
        import pstats

        env = make_env(False)
        run_build(env, args.profile)  # warm (imports, first-use caches)
        prof = cProfile.Profile()
        prof.enable()
        run_build(env, args.profile)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    names = args.only.split(",") if args.only else list(BUILDS)
    ours = Worker(sys.executable, False)
    ref = Worker(args.tf_python, True) if args.tf_python else None
    base = Worker(sys.executable, False, os.path.abspath(args.base_root)) if (
        args.base_root) else None
    for name in names:  # warm-up: first-use imports and caches are not construction
        for w in (ours, ref, base):
            if w:
                w.build(name)
    times = {n: {"ours": [], "tf": [], "base": []} for n in names}
    counts = {}
    for _ in range(args.repeats):
        for name in names:
            dt, n = ours.build(name)
            times[name]["ours"].append(dt)
            counts[name] = [n, None]
            if ref:
                dt, n = ref.build(name)
                times[name]["tf"].append(dt)
                counts[name][1] = n
            if base:
                times[name]["base"].append(base.build(name)[0])
    for w in (ours, ref, base):
        if w:
            w.close()
    load = os.getloadavg()[0]
    results = {}
    print(f"load average {load:.2f}, {args.repeats} repeats, medians")
    header = f"{'build':10s} {'ops':>7s} {'ours s':>8s} {'ops/s':>8s}"
    if ref:
        header += f" {'TF ops':>7s} {'TF s':>7s} {'ours/TF':>8s}"
    if base:
        header += f" {'base s':>7s} {'ours/base':>9s}"
    print(header)
    for name in names:
        m = statistics.median(times[name]["ours"])
        n, n_tf = counts[name]
        line = f"{name:10s} {n:7d} {m:8.3f} {n / m:8.0f}"
        row = {"ops": n, "seconds": m, "ops_per_s": n / m}
        if ref:
            mt = statistics.median(times[name]["tf"])
            line += f" {n_tf:7d} {mt:7.3f} {m / mt:8.2f}"
            row.update(tf_ops=n_tf, tf_seconds=mt, ratio=m / mt)
        if base:
            mb = statistics.median(times[name]["base"])
            line += f" {mb:7.3f} {m / mb:9.2f}"
            row.update(base_seconds=mb, ratio_to_base=m / mb)
        results[name] = row
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"load": load, "repeats": args.repeats, "builds": results}, f, indent=1)


if __name__ == "__main__":
    main()
