"""Model zoo training throughput (issue: main job): images/s of a training step of the CIFAR-10
tutorial CNN and of reduced Inception-v3s on synthetic data, single process, and the FLOP/s they
achieve against the BLAS peak of a 2048x2048 float32 matmul measured in the same run.

A model's forward FLOPs are counted from its graph (2 per multiply-add of every Conv2D and MatMul,
padding taps included); a training step counts 3x that (forward, input and filter gradients).
Each step time is the median of ``--steps`` steps after warm-up; the peak is measured
after the models. Run:
``python benchmarks/bench_models.py`` (``--full`` adds the 299x299 Inception-v3,
``--json out.json`` saves the figures). On a shared, oversubscribed machine run it with
``OPENBLAS_NUM_THREADS=1`` (peak measured under the same setting): spinning BLAS threads make
the many small matmuls of a step several times slower and the figures erratic.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tideflow as tf
from tideflow.models import cifar10, inception_v3, inputs


def matmul_peak():
    """GFLOP/s of a 2048x2048 float32 matmul (best of 5 timings of 3 calls)."""
    a = np.random.RandomState(0).standard_normal((2048, 2048)).astype(np.float32)
    b = np.random.RandomState(1).standard_normal((2048, 2048)).astype(np.float32)
    out = np.empty_like(a)
    np.matmul(a, b, out=out)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(3):
            np.matmul(a, b, out=out)
        best = min(best, (time.perf_counter() - t0) / 3)
    return 2 * 2048 ** 3 / best / 1e9


def forward_flops(graph):
    """FLOPs of the forward Conv2D and MatMul ops of ``graph`` (gradients excluded)."""
    total = 0
    for op in graph.get_operations():
        if op.name.startswith("gradients") or op.type not in ("Conv2D", "MatMul"):
            continue
        out = op.outputs[0].get_shape().as_list()
        if op.type == "Conv2D":
            kh, kw, cin, _ = op.inputs[1].get_shape().as_list()
            total += 2 * int(np.prod(out)) * kh * kw * cin
        else:
            a = op.inputs[0].get_shape().as_list()
            k = a[0] if op.get_attr("transpose_a") else a[1]
            total += 2 * int(np.prod(out)) * k
    return total


def bench(name, batch_size, build, steps, warmup=3):
    """(step seconds, forward FLOPs per step) of one training configuration."""
    with tf.Graph().as_default() as graph:
        tf.set_random_seed(0)
        global_step = tf.train.get_or_create_global_step()
        loss = build(batch_size)
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            loss = tf.identity(loss)
        train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss, global_step)
        flops = forward_flops(graph)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            for _ in range(warmup):
                sess.run(train_op)
            times = []
            for _ in range(steps):
                t0 = time.perf_counter()
                sess.run(train_op)
                times.append(time.perf_counter() - t0)
    return float(np.median(times)), flops


def cifar10_model(batch_size):
    images, labels = inputs.synthetic_inputs(batch_size, cifar10.IMAGE_SIZE, 3, 10, seed=1)
    return cifar10.loss(cifar10.inference(images), labels)


def inception_model(depth_multiplier, image_size, num_classes=1001):
    def build(batch_size):
        images, labels = inputs.synthetic_inputs(batch_size, image_size, 3, num_classes, seed=1)
        logits, end_points = inception_v3.inference(images, num_classes,
                                                    depth_multiplier=depth_multiplier)
        return inception_v3.loss(logits, labels, end_points)
    return build


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--full", action="store_true", help="also the 299x299 Inception-v3")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()

    configs = [
        ("cifar10 24x24 batch 128", 128, cifar10_model),
        ("inception_v3 x0.1 75x75 batch 8", 8, inception_model(0.1, 75)),
        ("inception_v3 x0.5 149x149 batch 8", 8, inception_model(0.5, 149)),
        ("inception_v3 x1.0 149x149 batch 8", 8, inception_model(1.0, 149)),
    ]
    if args.full:
        configs.append(("inception_v3 x1.0 299x299 batch 8", 8, inception_model(1.0, 299)))

    rows = []
    for name, batch_size, build in configs:
        step, flops = bench(name, batch_size, build, args.steps)
        achieved = 3 * flops / step / 1e9
        rows.append({"model": name, "batch_size": batch_size, "step_s": step,
                     "images_per_s": batch_size / step,
                     "forward_gflop_per_image": flops / batch_size / 1e9,
                     "train_gflop_per_s": achieved})
        print(f"{name:36s} {batch_size / step:8.1f} images/s  step {step * 1e3:8.1f} ms  "
              f"fwd {flops / batch_size / 1e9:.3f} GFLOP/image  {achieved:6.1f} GFLOP/s",
              flush=True)
    # measured last: OpenBLAS's threads keep spinning a while after a big matmul and slow the
    # model steps that follow on a small machine
    peak = matmul_peak()
    print(f"BLAS peak (2048x2048 float32 matmul): {peak:.1f} GFLOP/s")
    for row in rows:
        row["fraction_of_peak"] = row["train_gflop_per_s"] / peak
        print(f"{row['model']:36s} {100 * row['fraction_of_peak']:5.1f}% of peak")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peak_gflop_per_s": peak, "models": rows}, f, indent=1)


if __name__ == "__main__":
    main()
