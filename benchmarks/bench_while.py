"""``tf.while_loop`` overhead: 10,000 iterations of a scalar add against a Python loop of NumPy
adds, in the same process (median of repeats). The issue's target is a ratio of at most 3."""

import argparse
import statistics
import time

import numpy as np

import tideflow as tf
from tideflow.ops.while_loop import while_loop


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--iterations", type=int, default=10_000)
    p.add_argument("--repeats", type=int, default=15)
    args = p.parse_args()
    n = args.iterations

    g = tf.Graph()
    with g.as_default():
        limit = tf.constant(n)
        _, total = while_loop(lambda i, x: i < limit, lambda i, x: (i + 1, x + 1.0),
                              [tf.constant(0), tf.constant(0.0)])
        sess = tf.Session(graph=g)
        assert sess.run(total) == n
        loop_time = _median_time(lambda: sess.run(total), args.repeats)
        sess.close()

    one = np.float32(1.0)

    def numpy_calls():  # np.add called per iteration
        x = np.float32(0.0)
        i = 0
        while i < n:
            x = np.add(x, one)
            i += 1
        return x

    def numpy_operators():  # the same adds through NumPy's scalar operator (the faster loop)
        x = np.float32(0.0)
        i = 0
        while i < n:
            x = x + one
            i += 1
        return x

    calls_time = _median_time(numpy_calls, args.repeats)
    ops_time = _median_time(numpy_operators, args.repeats)
    print(f"while_loop: {n} iterations in {loop_time * 1e3:.2f} ms "
          f"({loop_time / n * 1e6:.3f} us/iteration)")
    for label, t in (("np.add calls", calls_time), ("NumPy scalar + operator", ops_time)):
        print(f"Python loop of {label}: {t * 1e3:.2f} ms ({t / n * 1e6:.3f} us/iteration), "
              f"ratio {loop_time / t:.2f}")
    print(f"ratio against the faster Python loop: {loop_time / min(calls_time, ops_time):.2f} "
          "(target <= 3)")


if __name__ == "__main__":
    main()
