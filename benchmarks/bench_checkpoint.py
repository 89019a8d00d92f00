"""Checkpoint throughput: tf.train.Saver save and restore of 1 GiB of float32 variables (16 x 64 MiB)
against writing and reading the same bytes with plain NumPy file I/O in the same run.

Baseline: ``arr.tofile`` + flush + fsync per array (save), ``np.fromfile`` per array (restore).
Saver save includes its CRC32C checksums, the atomic rename and the state file; restore includes
checksum verification and the Assign into the variables. Reads are measured "cold", after
evicting the files from the page cache (``posix_fadvise(DONTNEED)``, as when a fresh process
restores), and "warm" (files cached); "new session" restores into the uninitialized variables of
a new session (as a fresh process does, plan building included), cold, against ``np.fromfile``
keeping all the arrays it read. Each figure is measured on its own: ``--repeat`` times the saver
and the reference back to back, in alternating order, each after an ``os.sync()`` and a short
pause; the figures are medians and the ratio is the
median of the per-repeat ratios (the machine is shared and noisy); "CPU time" is the same ratio
of the process's CPU seconds, all threads (what the two cost, whatever else the machine runs).
Also reports the growth of peak RSS during a save (the target: at most about one copy of the
largest tensor).
Run: ``python benchmarks/bench_checkpoint.py [--vars 16] [--mib 64] [--repeat 5] [--dir /tmp]
[--json out]``.
"""

import argparse
import glob
import json
import os
import resource
import shutil
import statistics
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


def _settle():
    """Lets the writes of the previous measurement reach the disk before the next one starts."""
    os.sync()
    time.sleep(0.5)


def _timed(fn, before=None):
    """(wall seconds, CPU seconds of the process) of ``fn()``."""
    if before is not None:
        before()
    c0 = time.process_time()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def _maxrss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vars", type=int, default=16)
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    n = args.mib * (1 << 20) // 4
    total_mb = args.vars * n * 4 / 1e6
    work = tempfile.mkdtemp(dir=args.dir, prefix="bench_ckpt_")
    results = {"bytes": args.vars * n * 4, "repeat": args.repeat,
               "load_before": os.getloadavg()[0]}
    # figure -> ([saver seconds], [reference seconds])
    times = {k: ([], []) for k in ("save", "restore_cold", "restore_warm", "restore_new")}
    try:
        vs = [tf.Variable(tf.random_uniform([n], seed=i), name=f"v{i}") for i in range(args.vars)]
        saver = Saver(max_to_keep=1)
        prefix = os.path.join(work, "model")
        paths = [os.path.join(work, f"raw{i}.bin") for i in range(args.vars)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rss0 = _maxrss_mib()
            saver.save(sess, prefix, write_meta_graph=False)  # warm-up (plan building)
            results["save_peak_rss_growth_mib"] = _maxrss_mib() - rss0
            saver.restore(sess, prefix)
            arrays = sess.run(vs)
            files = glob.glob(prefix + ".*")

            def np_save():
                for a, p in zip(arrays, paths):
                    with open(p, "wb") as f:
                        a.tofile(f)
                        f.flush()
                        os.fsync(f.fileno())

            def np_load():
                for p in paths:
                    np.fromfile(p, dtype=np.float32)

            np_save()

            def measure(key, mine, ref, before_mine=None, before_ref=None):
                for r in range(args.repeat):
                    runs = [(0, mine, before_mine), (1, ref, before_ref)]
                    for side, fn, before in (runs if r % 2 == 0 else runs[::-1]):
                        def settled(before=before):
                            _settle()
                            if before is not None:
                                before()

                        times[key][side].append(_timed(fn, settled))

            # one figure at a time, so no measurement runs while the other side's writes are
            # still being flushed
            measure("save", lambda: saver.save(sess, prefix, write_meta_graph=False), np_save)
            files = glob.glob(prefix + ".*")
            measure("restore_cold", lambda: saver.restore(sess, prefix), np_load,
                    lambda: _evict(files), lambda: _evict(paths))
            measure("restore_warm", lambda: saver.restore(sess, prefix), np_load)
            fresh = []

            def new_session_restore():
                s = tf.Session()  # uninitialized variables, as in a new process
                fresh.append(s)
                saver.restore(s, prefix)

            def close_fresh():
                _evict(files)
                while fresh:
                    fresh.pop().close()

            loaded = []

            def np_load_all():  # the reference keeps what it read, as the variables do
                loaded.extend(np.fromfile(p, dtype=np.float32) for p in paths)

            def drop_loaded():
                _evict(paths)
                loaded.clear()

            measure("restore_new", new_session_restore, np_load_all, close_fresh, drop_loaded)
            close_fresh()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["load_after"] = os.getloadavg()[0]

    def mbs(t):
        return total_mb / t

    print(f"{args.vars} x {args.mib} MiB float32 ({total_mb:.0f} MB), median of {args.repeat} "
          f"interleaved repeats, load average {results['load_before']:.1f} -> "
          f"{results['load_after']:.1f}")
    labels = {"save": ("save           ", "numpy+fsync"),
              "restore_cold": ("restore (cold) ", "np.fromfile"),
              "restore_warm": ("restore (warm) ", "np.fromfile"),
              "restore_new": ("new session    ", "np.fromfile")}
    for key, (mine_t, ref_t) in times.items():
        mine = [w for w, _ in mine_t]
        ref = [w for w, _ in ref_t]
        ratios = [r / m for m, r in zip(mine, ref)]
        ratio = statistics.median(ratios)
        cpu = statistics.median([r[1] / m[1] for m, r in zip(mine_t, ref_t)])
        results[f"{key}_MBps"] = mbs(statistics.median(mine))
        results[f"{key}_reference_MBps"] = mbs(statistics.median(ref))
        results[f"{key}_ratio"] = ratio
        results[f"{key}_ratios"] = ratios
        results[f"{key}_cpu_ratio"] = cpu
        a, b = labels[key]
        print(f"{a} saver {mbs(statistics.median(mine)):7.0f} MB/s   {b} "
              f"{mbs(statistics.median(ref)):7.0f} MB/s   ratio {ratio:.2f} "
              f"(repeats {min(ratios):.2f}-{max(ratios):.2f}; CPU time {cpu:.2f})")
    print(f"peak RSS growth during the first save: {results['save_peak_rss_growth_mib']:.0f} MiB "
          f"(largest tensor {args.mib} MiB)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
