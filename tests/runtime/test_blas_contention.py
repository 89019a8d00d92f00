"""kernels.threads._Contention: other processes' CPU use from /proc/stat, and products outside
the pool on one BLAS thread while they keep the cores busy."""

import os
import subprocess
import sys
import time

import numpy as np
import pytest

from tideflow.kernels import threads


def test_others_is_the_machine_busy_time_minus_this_process():
    # samples: (machine busy seconds, this process's CPU seconds, wall seconds)
    assert threads._Contention.others((100.0, 5.0, 10.0), (101.5, 5.5, 11.0)) == 1.0
    assert threads._Contention.others((100.0, 5.0, 10.0), (101.0, 6.0, 11.0)) == 0.0
    assert threads._Contention.others((100.0, 5.0, 10.0), (100.0, 5.0, 10.0)) == 0.0


def test_contention_switches_products_to_one_blas_thread(monkeypatch):
    c = threads._Contention()
    def samples():
        yield from [(100.0, 1.0, 0.0), (100.1, 1.1, 1.0), (102.1, 1.2, 2.0)]
        t = 2.0
        while True:  # others keep 1.9 cores busy from here on
            t += 1.0
            yield (102.1 + 2.0 * (t - 2.0), 1.2 + 0.1 * (t - 2.0), t)

    it = samples()
    monkeypatch.setattr(c, "_sample", lambda: next(it))
    monkeypatch.setattr(c, "_tick", 100.0)
    monkeypatch.setattr(c, "INTERVAL_S", 0.0)
    monkeypatch.setattr(threads, "_contention", c)
    assert c() is False  # first sample: nothing to compare yet
    assert c() is False  # 0.0 cores used by others
    assert c() is True  # 1.9 cores used by others
    if threads._blas_threads_at_start and threads._blas_threads_at_start > 1:
        assert threads._one_thread_macs() > 1 << 40
        seen = []
        real = np.matmul

        def spy(*args, **kwargs):
            seen.append(threads._blas.get())
            return real(*args, **kwargs)

        monkeypatch.setattr(np, "matmul", spy)
        big = np.ones((256, 512), np.float32)
        threads.matmul(big, big.T)  # 33M multiply-adds: two BLAS threads when quiet
        assert seen == [1] and threads._blas.get() == threads._blas_threads_at_start


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="needs /proc/stat")
def test_a_busy_process_is_seen_as_others_cpu_time():
    c = threads._Contention()
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)
        first = c._sample()
        time.sleep(1.0)
        seen = threads._Contention.others(first, c._sample())
    finally:
        busy.kill()
        busy.wait()
    # the child spins on a core for the whole second: about 1 core (plus whatever else runs)
    assert seen > 0.6
