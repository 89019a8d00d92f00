"""The one-command demo: synchronous data-parallel training with a backup worker, on a local
cluster of 1 parameter server and 3 workers, with one worker killed halfway.

1. converts scikit-learn's digits to sharded TFRecord files of ``tf.train.Example``;
2. starts the cluster on free loopback ports (``tideflow server`` as the ps, three
   ``examples/image_train.py`` workers with ``--sync_replicas --replicas_to_aggregate 2``, so
   each step uses the first two gradients and the third worker is a backup);
3. streams the workers' progress, kills worker 2 (SIGKILL) when the chief passes half of the
   steps, and lets the other two finish;
4. evaluates the chief's final checkpoint (moving averages) on the held-out images with
   ``examples/image_eval.py`` and prints the test accuracy and where the logs are.

Run: ``python examples/demo_cluster.py [--steps N] [--dir DIR]``.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tideflow.distributed.launcher import Launcher
from tideflow.models.tfrecords import convert_digits

_STEP = re.compile(r"^\[worker:0\] step (\d+), accuracy")


class _Progress:
    """The launcher's output stream: prints every line and watches the chief's step."""

    def __init__(self, on_chief_step):
        self._on_chief_step = on_chief_step
        self._buf = ""

    def write(self, text):
        sys.stdout.write(text)
        self._buf += text
        while "\n" in self._buf:
            line, self._buf = self._buf.split("\n", 1)
            m = _STEP.match(line)
            if m:
                self._on_chief_step(int(m.group(1)))

    def flush(self):
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=400, help="global steps to train")
    ap.add_argument("--dir", default=os.path.join("runs", time.strftime("demo-%Y%m%d-%H%M%S")),
                    help="where the data, checkpoints and TensorBoard logs go")
    args = ap.parse_args()
    t0 = time.time()
    data_dir = os.path.abspath(os.path.join(args.dir, "data"))
    train_dir = os.path.abspath(os.path.join(args.dir, "train"))
    os.makedirs(data_dir, exist_ok=True)
    counts = convert_digits(data_dir)
    print(f"[demo] digits converted to TFRecords in {data_dir}: {counts}", flush=True)

    trainer = [sys.executable, os.path.join(HERE, "image_train.py"), "--model", "digits_cnn",
               "--data_dir", data_dir, "--train_dir", train_dir, "--max_steps", str(args.steps),
               "--sync_replicas", "--replicas_to_aggregate", "2", "--log_every", "20",
               "--save_checkpoint_steps", str(max(args.steps // 4, 1)),
               "--save_summaries_steps", "20", "--seed", "1"]
    killed = threading.Event()
    launcher = None

    def on_chief_step(step):
        if step >= args.steps // 2 and not killed.is_set() and launcher is not None:
            killed.set()
            victim = next(t for t in launcher.tasks if t.job == "worker" and t.task == 2)
            sys.stdout.write(f"[demo] step {step}: killing worker 2 (SIGKILL); the other two "
                             "workers carry on, as a backup worker allows\n")
            victim.signal_group(signal.SIGKILL)

    launcher = Launcher(trainer, num_ps=1, num_workers=3, out=_Progress(on_chief_step),
                        grace=5.0)
    launcher.start()
    chief = next(t for t in launcher.tasks if t.job == "worker" and t.task == 0)
    try:
        while chief.poll() is None:
            failed = [t for t in launcher.tasks
                      if t.poll() not in (None, 0) and not (t.job == "worker" and t.task == 2)]
            if failed:
                raise SystemExit(f"[demo] {failed[0].label} failed with status "
                                 f"{failed[0].poll()}")
            time.sleep(0.1)
    finally:
        launcher.stop(signal.SIGTERM)
    if chief.poll() != 0:
        raise SystemExit(f"[demo] the chief failed with status {chief.poll()}")

    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "image_eval.py"), "--model", "digits_cnn",
         "--data_dir", data_dir, "--checkpoint_dir", train_dir, "--once"],
        capture_output=True, text=True, check=True).stdout
    m = re.search(r"precision @ 1 = ([0-9.]+)", out)
    accuracy = float(m.group(1)) if m else float("nan")
    print(out.strip())
    print(f"[demo] test accuracy of the chief's final model: {accuracy:.4f} "
          f"({counts['validation']} held-out images)")
    print(f"[demo] checkpoints and TensorBoard logs: {train_dir}  "
          f"(tensorboard --logdir {train_dir})")
    print(f"[demo] done in {time.time() - t0:.0f} s")
    return accuracy


if __name__ == "__main__":
    main()
