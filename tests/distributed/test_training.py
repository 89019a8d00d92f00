"""Distributed training end to end: the digits MLP trained by real worker processes against real
parameter servers on loopback, asynchronously and synchronously (a worker killed mid-run), a
parameter server killed and restarted under a checkpointing chief, and ``tideflow launch``.

Every process a test starts is killed when it ends, and a watchdog kills them all should a test
run past its time, so a failure is never a hang."""

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from tests.distributed.cluster_procs import Cluster, _env, cluster_spec, wait_ready

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

TRAINER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits_trainer.py")


class _Procs:
    """The trainer processes of a test (output in files) and the test's server cluster; a
    watchdog kills everything after ``limit`` seconds."""

    def __init__(self, tmp_path, limit):
        self.tmp = tmp_path
        self.procs = {}
        self.files = {}
        self.clusters = []
        self.expired = False
        self._timer = threading.Timer(limit, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self):
        self.expired = True
        self.stop()

    def cluster(self, **jobs):
        c = Cluster(cluster_spec(**jobs), self.tmp)
        self.clusters.append(c)
        return c

    def trainer(self, spec, task, *args):
        """Starts worker ``task`` of ``spec`` running the digits trainer with ``args``."""
        tf_config = {"cluster": spec, "task": {"type": "worker", "index": task}}
        path = self.tmp / f"worker{task}.log"
        f = open(path, "w")  # noqa: SIM115 - closed in stop()
        p = subprocess.Popen([sys.executable, TRAINER, *map(str, args)],
                             env=_env({"TF_CONFIG": json.dumps(tf_config)}), stdout=f,
                             stderr=subprocess.STDOUT)
        self.procs[task] = p
        self.files[task] = (f, path)
        return p

    def output(self, task):
        return self.files[task][1].read_text()

    def wait(self, task, timeout):
        """The exit status of trainer ``task`` (its output on failure)."""
        try:
            rc = self.procs[task].wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"worker {task} still running after {timeout} s:\n"
                                 f"{self.output(task)[-3000:]}") from None
        assert not self.expired, "the watchdog stopped the test"
        return rc

    def wait_for(self, task, pattern, timeout):
        """The first match of ``pattern`` in trainer ``task``'s output, waiting for it."""
        end = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.output(task), re.MULTILINE)
            if m:
                return m
            if self.procs[task].poll() is not None or time.monotonic() > end:
                raise AssertionError(f"no {pattern!r} from worker {task}:\n"
                                     f"{self.output(task)[-3000:]}")
            time.sleep(0.05)

    def stop(self):
        self._timer.cancel()
        for p in self.procs.values():
            with contextlib.suppress(Exception):
                p.kill()
        for p in self.procs.values():
            with contextlib.suppress(Exception):
                p.wait(10)
        for f, _ in self.files.values():
            f.close()
        for c in self.clusters:
            c.stop()


@pytest.fixture
def procs(tmp_path):
    ps = _Procs(tmp_path, limit=80)
    yield ps
    ps.stop()


def _done(out):
    m = re.search(r"^DONE task=(\d+) global_step=(\d+) local_steps=(\d+)", out, re.MULTILINE)
    assert m, out[-3000:]
    return int(m.group(2)), int(m.group(3))


def _accuracy(out):
    return float(re.search(r"^ACCURACY ([0-9.]+)", out, re.MULTILINE).group(1))


def test_async_training_reaches_single_process_accuracy(procs):
    c = procs.cluster(ps=1, worker=2)
    c.start_all(skip=[("worker", 0), ("worker", 1)])
    for i in range(2):
        procs.trainer(c.spec, i, "--steps", 400, "--print-every", 100)
    for i in range(2):
        assert procs.wait(i, 60) == 0, procs.output(i)[-3000:]
    outs = [procs.output(i) for i in range(2)]
    done = [_done(o) for o in outs]
    # both workers updated the same variables: their local steps add up to the global step
    assert max(gs for gs, _ in done) >= 400
    assert all(local > 20 for _, local in done), done
    assert sum(local for _, local in done) >= 400
    # a single process reaches 0.97-0.99 on the same split in 300-400 steps
    assert _accuracy(outs[0]) >= 0.93, outs[0][-2000:]


def test_sync_training_survives_a_killed_worker(procs):
    c = procs.cluster(ps=1, worker=3)
    c.start_all(skip=[("worker", i) for i in range(3)])
    args = ("--mode", "sync", "--aggregate", 2, "--replicas", 3, "--steps", 120,
            "--print-every", 5)
    for i in range(3):
        procs.trainer(c.spec, i, *args)
    procs.wait_for(2, r"^STEP ([3-9]\d|1\d\d) ", 45)
    procs.procs[2].kill()  # SIGKILL, mid-run
    for i in range(2):
        assert procs.wait(i, 45) == 0, procs.output(i)[-3000:]
        gs, _ = _done(procs.output(i))
        assert gs >= 120
    assert procs.procs[2].wait(10) == -9


def test_ps_restart_recovers_from_checkpoint(procs, tmp_path):
    c = procs.cluster(ps=1, worker=1)
    c.start_all(skip=[("worker", 0)])
    ckpt = tmp_path / "ckpt"
    procs.trainer(c.spec, 0, "--steps", 200, "--checkpoint-dir", ckpt, "--save-steps", 25,
                  "--step-sleep", 0.01, "--print-every", 5)
    procs.wait_for(0, r"^STEP (7\d|[89]\d|1\d\d) ", 40)
    assert any(n.startswith("model.ckpt-") for n in os.listdir(ckpt))
    c.kill("ps", 0)
    killed = time.time()
    m = procs.wait_for(0, r"^RECOVER ([0-9.]+) (UnavailableError|AbortedError) ", 15)
    assert float(m.group(1)) - killed < 10.0, m.group(0)
    time.sleep(1.0)  # the chief retries creating its session while the ps is down
    c.start("ps", 0)  # the same port
    wait_ready(c.spec["ps"][0])
    assert procs.wait(0, 45) == 0, procs.output(0)[-3000:]
    out = procs.output(0)
    gs, _ = _done(out)
    assert gs >= 200
    # training went on from the checkpoint, not from scratch: the global step after the
    # restart starts at a saved step, at most 25 + 5 steps before the last step printed (a
    # fetch from the ps shows the step before its update, so the kill may land just after a
    # save: the steps need not go back)
    before, _, after = out.rpartition("\nRECOVER ")
    steps = [int(s) for s in re.findall(r"^STEP (\d+) ", before, re.MULTILINE)]
    first = int(re.search(r"^STEP (\d+) ", after, re.MULTILINE).group(1))
    assert steps[-1] - 35 <= first <= steps[-1] + 10 and first > 25, (steps, first)
    assert _accuracy(out) >= 0.9


LAUNCHED = """
import os, runpy, sys
sys.argv = [{trainer!r}, "--steps", "250", "--print-every", "50"]
runpy.run_path({trainer!r}, run_name="__main__")
"""


def test_launch_trains_with_tideflow_server_ps(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(LAUNCHED.format(trainer=TRAINER))
    argv = [sys.executable, "-m", "tideflow.cli", "launch", "--ps", "1", "--workers", "2",
            "--grace", "20", "--", sys.executable, str(script)]
    p = subprocess.Popen(argv, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, 9)
        p.wait(10)
    assert p.returncode == 0, out[-3000:]
    chief = [ln for ln in out.splitlines() if ln.startswith("[worker:0]")]
    assert any("DONE task=0" in ln for ln in chief), out[-3000:]
    acc = float(next(ln for ln in chief if "ACCURACY" in ln).split()[-1])
    assert acc >= 0.9, out[-3000:]
    # the ps ran `tideflow server`, not the program
    assert not any(ln.startswith("[ps:0]") and "DONE" in ln for ln in out.splitlines())
