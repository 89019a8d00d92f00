"""The main job's data-parallel figures (issue: main job), on a local loopback cluster started
with ``tideflow.distributed.launcher.Launcher`` running ``examples/image_train.py``:

1. **scaling**: aggregate images/s (the sum over workers of each worker's median examples/s,
   parsed from its "step N, ... (x steps/s, y examples/s)" lines, the first line dropped as
   warm-up) with 1, 2 and 4 asynchronous workers and 1 ps, for a compute-bound configuration
   (CIFAR-10 CNN, batch 32, synthetic data) and a communication-bound one (the same 1.07 M
   parameter model with batch 1: 4.3 MB pulled and 4.3 MB pushed per step for 1 image);
2. **time to accuracy** on the digits (``convert_digits``): synchronous training with 3 workers,
   one of them slowed on purpose (``benchmarks/slow_worker.py`` adds a delay before each of its
   ``Session.run`` calls), aggregating 3 gradients (no backup) versus 2 (one backup worker).
   Every checkpoint is evaluated afterwards with ``examples/image_eval.py --once``; the time to
   accuracy is the age (since launch) of the first checkpoint whose precision @ 1 reaches
   ``--target``.

Every task runs with ``OPENBLAS_NUM_THREADS=1`` (``--blas_threads``), as ``bench_models.py``
recommends on this machine. Run: ``python benchmarks/bench_scaling.py [--json out.json]``
(about 3 minutes on 2 cores;
``--skip_scaling`` / ``--skip_tta`` run one half). Every task of a cluster shares this
machine's cores, so on a 2-core machine adding workers divides the CPU: the figures show the
protocol's overhead, not the speed-up a cluster of separate machines would get.
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tideflow.distributed.launcher import Launcher

TRAIN = os.path.join(ROOT, "examples", "image_train.py")
EVAL = os.path.join(ROOT, "examples", "image_eval.py")
SLOW = os.path.join(ROOT, "benchmarks", "slow_worker.py")

_LINE = re.compile(r"^\[worker:(\d+)\] step (\d+), .*\(([0-9.]+) steps/s, ([0-9.]+) examples/s\)")

CONFIGS = {
    # name: (model, batch size, extra flags)
    "compute": ("cifar10", 32, []),
    "communication": ("cifar10", 1, []),
    "latency": ("digits_cnn", 8, []),
}


class _Collector:
    """The launcher's output stream: keeps every worker's progress lines (with arrival
    times) and, with ``echo``, prints them."""

    def __init__(self, echo=False):
        self.echo = echo
        self.rates = {}          # worker -> [(time, global step, steps/s, examples/s)]
        self.lines = []
        self._buf = ""
        self._lock = threading.Lock()

    def write(self, text):
        with self._lock:
            self._buf += text
            while "\n" in self._buf:
                line, self._buf = self._buf.split("\n", 1)
                self.lines.append(line)
                if self.echo:
                    sys.stdout.write(line + "\n")
                m = _LINE.match(line)
                if m:
                    w = int(m.group(1))
                    self.rates.setdefault(w, []).append(
                        (time.monotonic(), int(m.group(2)), float(m.group(3)),
                         float(m.group(4))))

    def flush(self):
        if self.echo:
            sys.stdout.flush()


def _tail(collector, n=15):
    return "\n".join(collector.lines[-n:])


def run_scaling(name, workers, seconds, echo):
    """Aggregate images/s of ``workers`` asynchronous workers for config ``name``."""
    model, batch, extra = CONFIGS[name]
    train_dir = tempfile.mkdtemp(prefix=f"scaling-{name}-{workers}-")
    command = [sys.executable, TRAIN, "--model", model, "--synthetic", "--batch_size",
               str(batch), "--train_dir", train_dir, "--max_steps", "100000000",
               "--log_every", str(10 if batch > 4 else 20),
               "--save_checkpoint_secs", "100000", "--save_summaries_steps", "100000000",
               "--seed", "1"] + extra
    out = _Collector(echo)
    launcher = Launcher(command, num_ps=1, num_workers=workers, out=out, grace=3.0)
    t0 = time.monotonic()
    launcher.start()
    try:
        # measure for `seconds` from the moment every worker has reported once
        started = None
        while True:
            time.sleep(0.2)
            failed = [t for t in launcher.tasks if t.poll() not in (None, 0)]
            if failed:
                raise RuntimeError(f"{failed[0].label} failed:\n{_tail(out)}")
            if started is None and len(out.rates) == workers:
                started = time.monotonic()
            if started is not None and time.monotonic() - started >= seconds:
                break
            if time.monotonic() - t0 > seconds + 120:
                raise RuntimeError(f"no progress from every worker:\n{_tail(out)}")
    finally:
        launcher.stop(signal.SIGTERM)
        shutil.rmtree(train_dir, ignore_errors=True)
    per_worker = {}
    for w, rows in sorted(out.rates.items()):
        rows = rows[1:] or rows  # the first line includes warm-up
        per_worker[w] = {
            "steps_per_sec": statistics.median(r[2] for r in rows),
            "examples_per_sec": statistics.median(r[3] for r in rows),
            "lines": len(rows)}
    total = sum(v["examples_per_sec"] for v in per_worker.values())
    return {"figure": "scaling", "config": name, "model": model, "batch_size": batch,
            "workers": workers, "images_per_sec": round(total, 2),
            "per_worker": per_worker}


def _evaluate(data_dir, train_dir, checkpoint):
    """precision @ 1 of one checkpoint (``image_eval.py --once`` on a copy of its state)."""
    eval_dir = tempfile.mkdtemp(prefix="tta-eval-")
    try:
        with open(os.path.join(eval_dir, "checkpoint"), "w") as f:
            f.write(f'model_checkpoint_path: "{checkpoint}"\n')
        out = subprocess.run(
            [sys.executable, EVAL, "--model", "digits_cnn", "--data_dir", data_dir,
             "--checkpoint_dir", eval_dir, "--once"],
            capture_output=True, text=True, check=True).stdout
    finally:
        shutil.rmtree(eval_dir, ignore_errors=True)
    m = re.search(r"precision @ 1 = ([0-9.]+)", out)
    return float(m.group(1)) if m else float("nan")


def run_tta(data_dir, replicas, steps, delay_ms, target, echo):
    """Synchronous digits training, 3 workers (worker 2 slowed), ``replicas`` gradients per
    update: wall time to the chief's last step and to ``target`` precision @ 1."""
    train_dir = tempfile.mkdtemp(prefix=f"tta-r{replicas}-")
    every = max(steps // 5, 1)
    command = [sys.executable, SLOW, TRAIN, "--model", "digits_cnn", "--data_dir", data_dir,
               "--train_dir", train_dir, "--max_steps", str(steps), "--sync_replicas",
               "--replicas_to_aggregate", str(replicas), "--log_every", "20",
               "--save_checkpoint_steps", str(every), "--save_summaries_steps", "100000000",
               "--seed", "1"]
    env = dict(os.environ, SLOW_WORKER_TASK="2", SLOW_WORKER_DELAY_MS=str(delay_ms))
    old = dict(os.environ)
    os.environ.update(env)  # the launcher passes this process's environment on
    out = _Collector(echo)
    try:
        launcher = Launcher(command, num_ps=1, num_workers=3, out=out, grace=3.0)
        t0 = time.time()
        code = launcher.run()
        wall = time.time() - t0
    finally:
        os.environ.clear()
        os.environ.update(old)
    if code != 0:
        shutil.rmtree(train_dir, ignore_errors=True)
        raise RuntimeError(f"sync run (replicas {replicas}) failed ({code}):\n{_tail(out)}")
    checkpoints = []
    for index in sorted(glob.glob(os.path.join(train_dir, "model.ckpt-*.index")),
                        key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0])):
        prefix = index[:-len(".index")]
        step = int(prefix.rsplit("-", 1)[1])
        age = os.path.getmtime(index) - t0
        checkpoints.append({"step": step, "seconds": round(age, 1),
                            "precision_at_1": _evaluate(data_dir, train_dir, prefix)})
    shutil.rmtree(train_dir, ignore_errors=True)
    reached = next((c for c in checkpoints if c["precision_at_1"] >= target), None)
    chief = out.rates.get(0, [])[1:]
    slow = out.rates.get(2, [])[1:]
    return {"figure": "time_to_accuracy", "replicas_to_aggregate": replicas, "workers": 3,
            "slow_worker_delay_ms": delay_ms, "steps": steps, "wall_seconds": round(wall, 1),
            "chief_steps_per_sec": round(statistics.median(r[2] for r in chief), 2)
            if chief else None,
            "slow_worker_steps_per_sec": round(statistics.median(r[2] for r in slow), 2)
            if slow else None,
            "final_precision_at_1": checkpoints[-1]["precision_at_1"] if checkpoints else None,
            "target": target,
            "seconds_to_target": reached["seconds"] if reached else None,
            "step_at_target": reached["step"] if reached else None,
            "checkpoints": checkpoints}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", default="1,2,4", help="worker counts for the scaling runs")
    ap.add_argument("--configs", default="compute,communication",
                    help=f"scaling configurations, of {', '.join(CONFIGS)}")
    ap.add_argument("--seconds", type=float, default=15.0,
                    help="measuring window of each scaling run, after every worker reported")
    ap.add_argument("--steps", type=int, default=100, help="global steps of each sync run")
    ap.add_argument("--delay_ms", type=float, default=300.0,
                    help="delay before each Session.run of the slow worker")
    ap.add_argument("--target", type=float, default=0.97, help="precision @ 1 to reach")
    ap.add_argument("--skip_scaling", action="store_true")
    ap.add_argument("--skip_tta", action="store_true")
    ap.add_argument("--blas_threads", default="1",
                    help="OPENBLAS_NUM_THREADS (and OMP_NUM_THREADS) of every task: one thread "
                         "per worker process keeps N workers from oversubscribing the cores")
    ap.add_argument("--echo", action="store_true", help="print the tasks' output")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()

    # the launcher passes this process's environment on to every task
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = args.blas_threads
    results = []

    def emit(record):
        results.append(record)
        print(json.dumps(record), flush=True)

    if not args.skip_scaling:
        for name in args.configs.split(","):
            base = None
            for n in (int(w) for w in args.workers.split(",")):
                rec = run_scaling(name, n, args.seconds, args.echo)
                base = base or rec["images_per_sec"] / n
                rec["speedup_vs_1"] = round(rec["images_per_sec"] / base, 2)
                emit(rec)
    if not args.skip_tta:
        from tideflow.models.tfrecords import convert_digits

        data_dir = tempfile.mkdtemp(prefix="tta-digits-")
        try:
            convert_digits(data_dir)
            for replicas in (3, 2):
                emit(run_tta(data_dir, replicas, args.steps, args.delay_ms, args.target,
                             args.echo))
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
