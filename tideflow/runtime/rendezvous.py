"""The per-step local rendezvous where partitions exchange tensors (paper §3.2.2).

A Send puts a value under its key — (src device, dst device, tensor name) — and never blocks;
a Recv waits for its key. An error in any partition aborts the rendezvous: every waiting Recv
wakes and raises, so no partition thread is left waiting. Recvs also give up when the session
is closed or the step's deadline passes.
"""

import threading
import time

from tideflow.framework import errors

_POLL_S = 0.05  # how often a waiting Recv looks at the session's cancellation flag
_MISSING = object()


class StepAborted(Exception):
    """Raised in a partition when another partition of the same step failed."""

    def __init__(self, cause):
        super().__init__(str(cause))
        self.cause = cause


def make_key(src_device, src_incarnation, dst_device, tensor_name):
    """TF's rendezvous key: ``src;incarnation;dst;tensor;frame:iter``."""
    return f"{src_device};{src_incarnation:x};{dst_device};{tensor_name};0:0"


class Rendezvous:
    """A table of sent values for one step; ``recv`` blocks until the value is there.

    A waiting Recv sleeps on a lock of its own that only the Send of its key (or an abort)
    releases, so a Send wakes no other partition thread. ``_cond`` guards the table; waiters
    of subclasses (the distributed runtime's) wait on it.
    """

    __slots__ = ("_cond", "_error", "_items", "_waiters", "cancelled", "deadline")

    def __init__(self, step=None):
        self._items = {}
        self._cond = threading.Condition(threading.Lock())
        self._waiters = {}  # key -> the lock its Recv sleeps on
        self._error = None
        self.cancelled = step.cancelled if step is not None else None
        self.deadline = step.deadline if step is not None else None

    def send(self, key, value):
        with self._cond:
            self._items[key] = value
            w = self._waiters.pop(key, None)
            self._cond.notify_all()
        if w is not None:
            w.release()

    def recv(self, key):
        items = self._items
        if self._error is None:
            v = items.pop(key, _MISSING)
            if v is not _MISSING:
                return v
        with self._cond:
            if self._error is not None:
                raise StepAborted(self._error)
            if key in items:
                return items.pop(key)
            w = self._waiters.get(key)
            if w is None:
                w = self._waiters[key] = threading.Lock()
                w.acquire()
        while True:
            wait = _POLL_S
            if self.deadline is not None:
                wait = min(wait, max(self.deadline - time.monotonic(), 0.0))
            woke = w.acquire(timeout=wait) if wait > 0 else False
            with self._cond:
                if self._error is not None:
                    raise StepAborted(self._error)
                if key in items:
                    return items.pop(key)
                if woke:  # released for another Recv of the same key: keep the lock armed
                    self._waiters[key] = w
                    continue
                if self.cancelled is not None and self.cancelled.is_set():
                    err = errors.CancelledError(None, None, "Step was cancelled (the session "
                                                "was closed) while waiting for " + key)
                    self._abort_locked(err)
                    raise err
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    err = errors.DeadlineExceededError(
                        None, None, "Timed out waiting for a tensor from another device "
                        f"(RunOptions.timeout_in_ms): {key}")
                    self._abort_locked(err)
                    raise err

    def _abort_locked(self, err):
        if self._error is None:
            self._error = err
        self._items.clear()
        waiters, self._waiters = self._waiters, {}
        for w in waiters.values():
            w.release()
        self._cond.notify_all()

    def abort(self, err):
        """Fails the step: every waiting and later Recv raises ``StepAborted``."""
        with self._cond:
            self._abort_locked(err)

    @property
    def error(self):
        return self._error
