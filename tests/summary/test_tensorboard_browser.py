"""The real TensorBoard, served on loopback, shows our scalars, histograms and graph in a real
browser (headless Chromium driven over the DevTools protocol on a pipe).

Skips when Chromium or TensorBoard is not installed (`.ci/run` installs Chromium when it can).
"""

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest

import tideflow as tf
from tideflow.distributed.launcher import free_ports

pytest.importorskip("tensorboard", reason="tensorboard is not installed")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

# All the text a page shows, shadow roots included (TensorBoard's graph view lives in them).
_PAGE_TEXT = """(() => {
  const parts = [];
  const walk = (n) => {
    if (n.shadowRoot) walk(n.shadowRoot);
    for (const c of n.childNodes) {
      if (c.nodeType === 3) parts.push(c.textContent); else walk(c);
    }
  };
  walk(document);
  return parts.join(' ').replace(/\\s+/g, ' ');
})()"""


class _DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe (fd 3 in, fd 4 out)."""

    def __init__(self, profile_dir):
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", f"--user-data-dir={profile_dir}", "--remote-debugging-pipe",
               "--window-size=1400,900", "about:blank"]

        # the protocol wants the pipe on fds 3 and 4: let bash move it there (dash only
        # redirects one-digit descriptors)
        shell = f'exec "$@" 3<&{to_child_r} 4>&{from_child_w}'
        self.proc = subprocess.Popen(["bash", "-c", shell, "bash", *cmd],
                                     pass_fds=(to_child_r, from_child_w),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._id = 0

    def call(self, method, session=None, **params):
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self._buf:
                chunk = os.read(self._from_child, 1 << 16)
                if not chunk:
                    raise RuntimeError("Chromium closed the DevTools pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def open(self, url):
        target = self.call("Target.createTarget", url=url)["targetId"]
        return self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def text(self, session):
        res = self.call("Runtime.evaluate", session, expression=_PAGE_TEXT, returnByValue=True)
        return res["result"].get("value", "")

    def close(self):
        self.proc.kill()
        self.proc.wait(timeout=10)
        os.close(self._to_child)
        os.close(self._from_child)


def _wait_for_text(dt, session, words, timeout=60):
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = dt.text(session)
        if all(w in text for w in words):
            return text
        time.sleep(0.5)
    missing = [w for w in words if w not in text]
    raise AssertionError(f"the page never showed {missing}; it showed: {text[:2000]}")


def _write_run(logdir):
    with tf.Graph().as_default():
        with tf.name_scope("hidden_layer"):
            w = tf.Variable(tf.random_normal([4, 3], seed=1), name="weights")
            x = tf.placeholder(tf.float32, [None, 4], name="x")
            y = tf.matmul(x, w, name="logits")
        loss = tf.reduce_mean(tf.square(y - 1.0), name="loss")
        tf.summary.scalar("training_loss", loss)
        tf.summary.histogram("weight_values", w)
        merged = tf.summary.merge_all()
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            writer = tf.summary.FileWriter(os.path.join(logdir, "browser_run"), s.graph)
            for step in range(30):
                summ, _ = s.run([merged, train], {x: np.ones((2, 4), np.float32)})
                writer.add_summary(summ, step)
            writer.close()


@pytest.fixture
def tensorboard_url(tmp_path):
    logdir = tmp_path / "logs"
    _write_run(str(logdir))
    (port,) = free_ports(1)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host",
         "127.0.0.1", "--port", str(port), "--reload_interval", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                tags = json.load(urllib.request.urlopen(url + "/data/plugin/scalars/tags",
                                                        timeout=5))
                if "training_loss" in tags.get("browser_run", {}):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise AssertionError("TensorBoard did not come up with our run")
            time.sleep(0.5)
        yield url
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_tensorboard_shows_scalars_histograms_and_graph(tensorboard_url, tmp_path):
    dt = _DevTools(tmp_path / "chromium-profile")
    try:
        page = dt.open(tensorboard_url + "/#timeseries")
        # the scalar card with its run and last step in the data table, and the histogram card
        text = _wait_for_text(dt, page, ["training_loss", "weight_values", "browser_run"])
        assert "29" in text
        page = dt.open(tensorboard_url + "/#graphs&run=browser_run")
        # the graph view draws the name scopes of our GraphDef as nodes
        _wait_for_text(dt, page, ["Main Graph", "hidden_layer", "gradients", "GradientDescent"])
    finally:
        dt.close()
