"""Checkpoint throughput: tf.train.Saver save and restore of 1 GiB of float32 variables (16 x 64 MiB)
against writing and reading the same bytes with plain NumPy file I/O in the same run.

Baseline: ``arr.tofile`` + flush + fsync per array (save), ``np.fromfile`` per array (restore).
Saver save includes its CRC32C checksums, the atomic rename and the state file; restore includes
checksum verification and the Assign into the variables. Reads are measured twice: "cold", after
evicting the files from the page cache (``posix_fadvise(DONTNEED)``, as when a fresh process
restores), and "hot" (files cached). Each figure is the best of ``--repeat`` runs. Also reports
the growth of peak RSS during a save (the target: at most about one copy of the largest tensor).
Run: ``python benchmarks/bench_checkpoint.py [--vars 16] [--mib 64] [--dir /tmp] [--json out]``.
"""

import argparse
import glob
import json
import os
import resource
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tideflow as tf
from tideflow.train.saver import Saver


def _evict(paths):
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _best(fn, repeat, before=None):
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def _maxrss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vars", type=int, default=16)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    n = args.mib * (1 << 20) // 4
    total_mb = args.vars * n * 4 / 1e6
    work = tempfile.mkdtemp(dir=args.dir, prefix="bench_ckpt_")
    results = {"bytes": args.vars * n * 4}
    try:
        vs = [tf.Variable(tf.random_uniform([n], seed=i), name=f"v{i}") for i in range(args.vars)]
        saver = Saver(max_to_keep=1)
        prefix = os.path.join(work, "model")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rss0 = _maxrss_mib()
            saver.save(sess, prefix, write_meta_graph=False)  # warm-up (plan building)
            results["save_peak_rss_growth_mib"] = _maxrss_mib() - rss0
            t_save = _best(lambda: saver.save(sess, prefix, write_meta_graph=False), args.repeat)
            files = glob.glob(prefix + ".*")
            saver.restore(sess, prefix)
            t_restore_cold = _best(lambda: saver.restore(sess, prefix), args.repeat,
                                   before=lambda: _evict(files))
            t_restore_hot = _best(lambda: saver.restore(sess, prefix), args.repeat)
            arrays = sess.run(vs)
        paths = [os.path.join(work, f"raw{i}.bin") for i in range(len(arrays))]

        def np_save():
            for a, p in zip(arrays, paths):
                with open(p, "wb") as f:
                    a.tofile(f)
                    f.flush()
                    os.fsync(f.fileno())

        def np_load():
            for p in paths:
                np.fromfile(p, dtype=np.float32)

        t_np_save = _best(np_save, args.repeat)
        t_np_load_cold = _best(np_load, args.repeat, before=lambda: _evict(paths))
        t_np_load_hot = _best(np_load, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def mbs(t):
        return total_mb / t

    results.update({
        "saver_save_MBps": mbs(t_save), "numpy_save_MBps": mbs(t_np_save),
        "saver_restore_cold_MBps": mbs(t_restore_cold), "numpy_load_cold_MBps": mbs(t_np_load_cold),
        "saver_restore_hot_MBps": mbs(t_restore_hot), "numpy_load_hot_MBps": mbs(t_np_load_hot),
    })
    results["save_ratio"] = t_np_save / t_save
    results["restore_cold_ratio"] = t_np_load_cold / t_restore_cold
    results["restore_hot_ratio"] = t_np_load_hot / t_restore_hot
    print(f"{args.vars} x {args.mib} MiB float32 ({total_mb:.0f} MB), best of {args.repeat}")
    print(f"save            saver {mbs(t_save):8.0f} MB/s   numpy+fsync {mbs(t_np_save):8.0f} MB/s"
          f"   ratio {results['save_ratio']:.2f}")
    print(f"restore (cold)  saver {mbs(t_restore_cold):8.0f} MB/s   numpy       "
          f"{mbs(t_np_load_cold):8.0f} MB/s   ratio {results['restore_cold_ratio']:.2f}")
    print(f"restore (hot)   saver {mbs(t_restore_hot):8.0f} MB/s   numpy       "
          f"{mbs(t_np_load_hot):8.0f} MB/s   ratio {results['restore_hot_ratio']:.2f}")
    print(f"peak RSS growth during the first save: {results['save_peak_rss_growth_mib']:.0f} MiB "
          f"(largest tensor {args.mib} MiB)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
