"""A parameter server killed and restarted under between-graph asynchronous training, seen from
a NON-chief worker (``MonitoredTrainingSession(is_chief=False)``): its session fails with
Unavailable/Aborted within seconds, the monitored session recreates it, waits until the chief
has restored the last checkpoint into the new ps, and training goes on from there.

Real processes on loopback (tests/distributed/test_training.py's harness): a watchdog kills
everything should the test run past its time, and every process is killed when it ends."""

import itertools
import os
import re
import signal
import sys
import time

import pytest

from tests.distributed.cluster_procs import wait_ready
from tests.distributed.test_training import _done, _Procs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")

LAST_STEP = 300
SAVE_STEPS = 25


@pytest.fixture
def procs(tmp_path):
    ps = _Procs(tmp_path, limit=100)
    yield ps
    ps.stop()


def _latest_checkpoint_step(ckpt_dir):
    with open(os.path.join(ckpt_dir, "checkpoint")) as f:
        m = re.search(r'^model_checkpoint_path: ".*model\.ckpt-(\d+)"', f.read(), re.MULTILINE)
    assert m, os.listdir(ckpt_dir)
    return int(m.group(1))


def _steps_around_recovery(out):
    """(global steps printed before the last RECOVER line, those printed after it)."""
    before, after, seen = [], [], False
    for line in out.splitlines():
        if line.startswith("RECOVER "):
            seen = True
            before.extend(after)
            after = []
        elif line.startswith("STEP "):
            (after if seen else before).append(int(line.split()[1]))
    return before, after


RECOVER = r"^RECOVER ([0-9.]+) (UnavailableError|AbortedError) "


@pytest.mark.parametrize("frozen", [False, True], ids=["ps-down-mid-step", "frozen-through-restart"])
def test_non_chief_worker_survives_ps_restart(procs, tmp_path, frozen):
    """``frozen``: the non-chief's process is stopped (SIGSTOP) while the ps is killed and
    restarted, so that its session next meets the restarted ps (Aborted: its graphs are gone)
    rather than a dead one (Unavailable)."""
    c = procs.cluster(ps=1, worker=2)
    c.start_all(skip=[("worker", 0), ("worker", 1)])
    ckpt = tmp_path / "ckpt"
    common = ("--steps", LAST_STEP, "--step-sleep", 0.01, "--print-every", 5)
    procs.trainer(c.spec, 0, *common, "--checkpoint-dir", ckpt, "--save-steps", SAVE_STEPS)
    procs.trainer(c.spec, 1, *common)  # the non-chief
    procs.wait_for(1, r"^STEP (7\d|[89]\d|1\d\d) ", 45)
    procs.wait_for(0, r"^STEP ", 5)
    assert any(n.startswith("model.ckpt-") for n in os.listdir(ckpt))

    non_chief = procs.procs[1].pid
    if frozen:
        os.kill(non_chief, signal.SIGSTOP)
    c.kill("ps", 0)
    killed = time.time()
    m = procs.wait_for(0, RECOVER, 15)
    assert float(m.group(1)) - killed < 10.0, m.group(0)
    # the ps is down: no checkpoint can be written now; the chief will restore this one
    restored = _latest_checkpoint_step(ckpt)
    assert restored >= SAVE_STEPS
    if frozen:
        c.start("ps", 0)  # the same port, empty
        wait_ready(c.spec["ps"][0])
        resumed = time.time()
        os.kill(non_chief, signal.SIGCONT)
        m = procs.wait_for(1, RECOVER, 15)
        assert float(m.group(1)) - resumed < 10.0, m.group(0)
    else:
        # the non-chief's session fails within seconds of the ps's death
        m = procs.wait_for(1, RECOVER, 15)
        assert float(m.group(1)) - killed < 10.0, m.group(0)
        time.sleep(1.0)  # both retry creating their sessions while the ps is down
        c.start("ps", 0)  # the same port, empty: the chief restores, the non-chief waits
        wait_ready(c.spec["ps"][0])
    assert "TLS" not in m.group(0), m.group(0)  # no plaintext-to-TLS hint for a dead peer

    for task in (0, 1):
        assert procs.wait(task, 60) == 0, procs.output(task)[-3000:]
    out = procs.output(1)
    gs, _ = _done(out)
    assert gs >= LAST_STEP
    before, after = _steps_around_recovery(out)
    assert before and after, out[-3000:]
    # the non-chief trained on after the restart from at least the restored checkpoint's step
    # (not from scratch), the global step rising at every step it printed
    assert after[0] >= restored, (restored, before[-3:], after[:3])
    assert all(b > a for a, b in itertools.pairwise(after)), after
    # and the chief went on as well
    gs0, _ = _done(procs.output(0))
    assert gs0 >= LAST_STEP
