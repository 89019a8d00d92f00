"""Runs a program (``examples/image_train.py``) as a deliberately slow worker: when this task is
the one named by ``SLOW_WORKER_TASK`` (compared with ``TIDEFLOW_TASK``, which ``tideflow
launch`` sets), every ``Session.run`` first sleeps ``SLOW_WORKER_DELAY_MS`` milliseconds. Other
tasks run the program unchanged, so a launcher can start every worker through this wrapper.

    SLOW_WORKER_TASK=2 SLOW_WORKER_DELAY_MS=200 \\
        python benchmarks/slow_worker.py examples/image_train.py --model digits_cnn ...

The delay is added in the client before the step is sent, so the worker's gradients arrive
late (a straggler), exactly as a slower machine would deliver them.
"""

import os
import runpy
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def install_delay(delay_s):
    """Makes every ``BaseSession.run`` in this process sleep ``delay_s`` seconds first."""
    from tideflow.runtime import session

    original = session.BaseSession.run

    def slow_run(self, *args, **kwargs):
        time.sleep(delay_s)
        return original(self, *args, **kwargs)

    session.BaseSession.run = slow_run


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: slow_worker.py PROGRAM.py [ARGS...]")
    slow_task = os.environ.get("SLOW_WORKER_TASK")
    if (slow_task is not None and os.environ.get("TIDEFLOW_JOB", "worker") == "worker"
            and os.environ.get("TIDEFLOW_TASK") == slow_task):
        delay_ms = float(os.environ.get("SLOW_WORKER_DELAY_MS", "100"))
        install_delay(delay_ms / 1000.0)
        sys.stderr.write(f"[slow_worker] task {slow_task}: +{delay_ms:g} ms per Session.run\n")
    program = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    runpy.run_path(program, run_name="__main__")


if __name__ == "__main__":
    main()
