"""``tf.train.ProgressHook`` (a tideflow addition): a live progress bar with steps/s and chosen
tensors when the output is a terminal (tqdm when installed), plain log lines otherwise."""

import sys
import time

import numpy as np

from tideflow.train.basic_hooks import _as_graph_element, _get_or_create_global_step_read
from tideflow.train.session_run_hook import SessionRunArgs, SessionRunHook

_REFRESH_SECS = 0.1  # a terminal bar is redrawn at most this often
_BAR_WIDTH = 30


def _format_value(value):
    arr = np.asarray(value)
    if arr.ndim == 0:
        v = arr.item()
        if isinstance(v, float):
            return f"{v:.4g}"
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        return str(v)
    with np.printoptions(precision=4, suppress=True, threshold=8):
        return np.array2string(arr, separator=", ").replace("\n", "")


def _format_duration(secs):
    secs = int(secs)
    h, rem = divmod(secs, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class ProgressHook(SessionRunHook):
    """Shows training progress: steps done (of ``num_steps``), steps/s, ETA and ``tensors``.

    ``tensors`` is a dict tag -> tensor (or name) or a list of tensors (or names), fetched
    every ``every_n_steps`` steps (default: every step on a terminal, where the bar is redrawn
    at most 10 times a second; otherwise every ``num_steps // 10`` steps, or 100, each as one
    line). Both go to ``stream`` (default ``sys.stdout``).
    """

    def __init__(self, num_steps=None, tensors=None, every_n_steps=None, stream=None):
        if num_steps is not None and num_steps <= 0:
            raise ValueError(f"num_steps must be positive: {num_steps}")
        if every_n_steps is not None and every_n_steps <= 0:
            raise ValueError(f"every_n_steps must be positive: {every_n_steps}")
        tensors = tensors or {}
        if isinstance(tensors, dict):
            self._tag_order = sorted(tensors)
        else:
            tensors = {t if isinstance(t, str) else t.name: t for t in tensors}
            self._tag_order = list(tensors)
        self._tensors = tensors
        self._num_steps = num_steps
        self._every_n_steps = every_n_steps
        self._stream = stream

    # -- hook ---------------------------------------------------------------------------------
    def begin(self):
        self._fetch = {tag: _as_graph_element(t) for tag, t in self._tensors.items()}
        self._global_step_tensor = _get_or_create_global_step_read()
        stream = self._stream if self._stream is not None else sys.stdout
        self._out = stream
        isatty = getattr(stream, "isatty", None)
        self._interactive = bool(isatty and isatty())
        every = self._every_n_steps
        if every is None:
            every = 1 if self._interactive else (
                max(1, self._num_steps // 10) if self._num_steps else 100)
        self._every = every
        self._steps = 0
        self._values = {}
        self._tqdm = None
        self._start = None
        self._last_draw = 0.0
        self._last_mark = None  # (time, steps) of the last rate measurement
        self._rate = None

    def after_create_session(self, session, coord):
        self._start = time.time()
        self._last_mark = (self._start, self._steps)
        if self._interactive and self._tqdm is None:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._tqdm = tqdm(total=self._num_steps, file=self._out, unit="step",
                                  dynamic_ncols=True, initial=self._steps)

    def before_run(self, run_context):
        want = self._fetch and (self._steps % self._every == 0 or (
            self._num_steps is not None and self._steps + 1 >= self._num_steps))
        return SessionRunArgs(self._fetch) if want else None

    def after_run(self, run_context, run_values):
        self._steps += 1
        if run_values.results is not None:
            self._values = run_values.results
        done = self._num_steps is not None and self._steps >= self._num_steps
        if self._interactive:
            self._draw_interactive(force=done)
        elif self._steps % self._every == 0 or done:
            self._log_line(run_context.session)

    def end(self, session):
        if self._interactive:
            self._draw_interactive(force=True)
            if self._tqdm is not None:
                self._tqdm.close()
                self._tqdm = None
            else:
                self._out.write("\n")
                self._out.flush()
        elif self._steps % self._every:
            self._log_line(session)

    # -- rendering ----------------------------------------------------------------------------
    def _measure_rate(self, now, min_interval=0.5):
        t0, s0 = self._last_mark
        if (now - t0 >= min_interval or self._rate is None) and now > t0 and self._steps > s0:
            self._rate = (self._steps - s0) / (now - t0)
            self._last_mark = (now, self._steps)
        return self._rate

    def _postfix(self):
        return ", ".join(f"{tag}={_format_value(self._values[tag])}"
                         for tag in self._tag_order if tag in self._values)

    def _draw_interactive(self, force=False):
        now = time.time()
        if not force and now - self._last_draw < _REFRESH_SECS:
            return
        self._last_draw = now
        rate = self._measure_rate(now)
        if self._tqdm is not None:
            self._tqdm.update(self._steps - self._tqdm.n)
            postfix = self._postfix()
            if postfix:
                self._tqdm.set_postfix_str(postfix, refresh=True)
            return
        elapsed = now - (self._start or now)
        if self._num_steps:
            frac = min(self._steps / self._num_steps, 1.0)
            filled = int(frac * _BAR_WIDTH)
            bar = "#" * filled + "-" * (_BAR_WIDTH - filled)
            head = f"{frac * 100:5.1f}% [{bar}] {self._steps}/{self._num_steps}"
            left = self._num_steps - self._steps
            eta = f"<{_format_duration(left / rate)}" if rate and left > 0 else ""
            timing = f"{_format_duration(elapsed)}{eta}"
        else:
            head = f"{self._steps} steps"
            timing = _format_duration(elapsed)
        speed = f"{rate:.2f} steps/s" if rate else "? steps/s"
        line = f"{head} [{timing}, {speed}]"
        postfix = self._postfix()
        if postfix:
            line += " " + postfix
        self._out.write("\r" + line + "\x1b[K")
        self._out.flush()

    def _log_line(self, session):
        rate = self._measure_rate(time.time(), min_interval=0.0)
        total = f"/{self._num_steps}" if self._num_steps else ""
        parts = [f"step {self._steps}{total}"]
        if self._global_step_tensor is not None:
            # read after the step: the value fetched with it may precede the increment
            parts.append(f"global_step {int(session.run(self._global_step_tensor))}")
        if rate:
            parts.append(f"{rate:.3g} steps/s")
        postfix = self._postfix()
        if postfix:
            parts.append(postfix)
        self._out.write(", ".join(parts) + "\n")
        self._out.flush()
