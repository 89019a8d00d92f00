"""The example programs run as a user would run them, and reach their accuracy."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(script, *args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), *args],
                         capture_output=True, text=True, env=env, timeout=300, check=True)
    return out.stdout


def test_digits_ridge():
    out = _run("digits_ridge.py")
    assert _accuracy(out) >= 0.93, out


def _accuracy(out):
    return float(re.search(r"test accuracy ([0-9.]+)", out).group(1))


def test_digits_softmax_regression():
    out = _run("digits_softmax.py")
    assert _accuracy(out) >= 0.93, out


def test_digits_mlp_adam_dropout():
    out = _run("digits_mlp.py")
    assert _accuracy(out) >= 0.96, out


def test_digits_cnn_momentum():
    out = _run("digits_cnn.py")
    assert _accuracy(out) >= 0.97, out


def test_keras_digits_cnn():
    out = _run("keras_digits_cnn.py")
    assert _accuracy(out) >= 0.95, out


def test_estimator_digits_dnn_classifier():
    out = _run("estimator_digits.py")
    assert _accuracy(out) >= 0.95, out
