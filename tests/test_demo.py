"""The README's first command: the cluster demo trains, survives a killed worker, and reaches
the accuracy it promises."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_cluster_demo(tmp_path):
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "demo_cluster.py"), "--steps", "240",
         "--dir", str(tmp_path / "demo")],
        capture_output=True, text=True, timeout=400, check=True,
        env=dict(os.environ, PYTHONPATH=ROOT)).stdout
    assert "killing worker 2" in out, out
    # the chief trains on after the kill (which worker logs the last step of the shared
    # global step is a race between the two left)
    assert re.search(r"\[worker:0\] step 2[0-4]\d, accuracy", out), out
    acc = float(re.search(r"test accuracy of the chief's final model: ([0-9.]+)", out).group(1))
    assert acc >= 0.97, out
    assert os.path.exists(tmp_path / "demo" / "train" / "checkpoint")
    assert any(f.startswith("events.out.tfevents")
               for f in os.listdir(tmp_path / "demo" / "train"))
