"""The worker's per-step rendezvous: local Send/Recv meet in a table; a Recv whose producer lives
in another task pulls the tensor from that task with RecvTensor (paper §3.3).

Also declares ``_Send`` and ``_Recv``, the ops the master inserts at every cross-device edge of
a registered partition graph; their kernels call the step's rendezvous.
"""

import threading
import time

import numpy as np

from tideflow.framework import errors, op_registry
from tideflow.framework.device import DeviceSpec
from tideflow.framework.tensor_shape import unknown_shape
from tideflow.runtime.rendezvous import Rendezvous, StepAborted, make_key

_POLL_S = 0.05
_SEND_RECV_ATTRS = ["tensor_name: string", "send_device: string",
                    "send_device_incarnation: int", "recv_device: string",
                    "client_terminated: bool = false"]


def _send_kernel(tensor, *, tensor_name, send_device, send_device_incarnation, recv_device,
                 step):
    step.rendezvous.send(make_key(send_device, send_device_incarnation, recv_device,
                                  tensor_name), tensor)


def _recv_kernel(*, tensor_name, send_device, send_device_incarnation, recv_device,
                 wire_bfloat16, wire_small, ctx, step):
    key = make_key(send_device, send_device_incarnation, recv_device, tensor_name)
    rv = step.rendezvous
    if (wire_bfloat16 or wire_small) and isinstance(rv, StepRendezvous):
        v = rv.recv(key, bfloat16=True if wire_bfloat16 else None, small=wire_small)
    else:
        v = rv.recv(key)
    dev = ctx.device
    if dev.is_host:
        if type(v) is not np.ndarray and not isinstance(v, (bytes, np.generic)):
            from tideflow.kernels.device import to_host

            v = to_host(v)
    else:
        from tideflow.kernels.device import to_host

        v = dev.to_device(to_host(v))
    return v


def _declare():
    if op_registry.lookup("_Send") is not None:
        return
    op_registry.declare(
        "_Send", inputs=["tensor: T"], attrs=["T: type", *_SEND_RECV_ATTRS],
        shape=lambda op: [], kernel=_send_kernel, differentiable=False, stateful=True,
        device_types=("CPU", "GPU"))
    op_registry.declare(
        "_Recv", outputs=["tensor: tensor_type"],
        # wire_small: the master knows the value is small; it is pulled with a unary call
        attrs=["tensor_type: type", *_SEND_RECV_ATTRS, "wire_bfloat16: bool = false",
               "wire_small: bool = false"],
        shape=lambda op: [unknown_shape()], kernel=_recv_kernel, differentiable=False,
        stateful=True, device_types=("CPU", "GPU"))


_declare()


def parse_key(key):
    """``(src_device, src_incarnation, dst_device, tensor_name)`` of a rendezvous key."""
    parts = key.split(";")
    if len(parts) != 5:
        raise errors.InvalidArgumentError(None, None, f"Invalid rendezvous key: {key!r}")
    try:
        inc = int(parts[1], 16)
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Invalid rendezvous key: {key!r}") from None
    return parts[0], inc, parts[2], parts[3]


def task_of(device_name):
    """``(job, task)`` of a full device name."""
    spec = DeviceSpec.from_string(device_name)
    return spec.job, spec.task or 0


class StepRendezvous(Rendezvous):
    """One step's rendezvous on a worker: remote producers are pulled with RecvTensor."""

    __slots__ = ("_calls", "bfloat16", "created", "finished", "mgr", "started", "step_id")

    def __init__(self, mgr, step_id):
        super().__init__(None)
        self.mgr = mgr
        self.step_id = step_id
        self._calls = set()
        self.created = time.monotonic()
        self.started = False
        self.finished = None  # when this task's RunGraph of the step succeeded
        self.bfloat16 = False

    def recv(self, key, bfloat16=None, small=False):
        src = key.split(";", 1)[0]
        if self.mgr.is_local(src):
            return super().recv(key)
        return self.mgr.fetch_remote(self, key, self.bfloat16 if bfloat16 is None else bfloat16,
                                     small)

    def wait_local(self, key, deadline, cancelled=None):
        """The value sent under ``key`` here, waiting until ``deadline`` (monotonic seconds)."""
        items = self._items
        with self._cond:
            while True:
                if self._error is not None:
                    err = self._error
                    raise errors.AbortedError(
                        None, None, f"Step {self.step_id} was aborted: {err}")
                if key in items:
                    v = items.pop(key)
                    if self.finished is not None and not items:
                        break  # the step is over here and its last value is taken
                    return v
                if cancelled is not None and cancelled():
                    raise errors.CancelledError(None, None, "RecvTensor was cancelled")
                wait = _POLL_S * 4
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise errors.DeadlineExceededError(
                            None, None, f"Timed out waiting for tensor {key} of step "
                            f"{self.step_id}")
                    wait = min(wait, left)
                self._cond.wait(wait)
        self.mgr.discard(self)
        return v

    def add_call(self, cancel):
        with self._cond:
            if self._error is not None:
                cancel()
            self._calls.add(cancel)

    def remove_call(self, cancel):
        with self._cond:
            self._calls.discard(cancel)

    def abort(self, err):
        with self._cond:
            self._abort_locked(err)
            calls = list(self._calls)
            self._calls.clear()
        if isinstance(self.cancelled, threading.Event):
            self.cancelled.set()  # blocking kernels (queues, accumulators) of the step stop
        for c in calls:
            try:
                c()
            except Exception:  # noqa: BLE001, S110 - best effort: the call may have ended
                pass


class RendezvousMgr:
    """The step rendezvous of one worker, created on first use by RunGraph or RecvTensor.

    ``resolve(device_name) -> address`` finds the task of a remote device; ``transport`` pulls
    its tensors. A step's rendezvous lives until CleanupGraph (or an idle timeout for steps
    that never ran here)."""

    def __init__(self, local_devices, transport, resolve, stale_after_s=600.0):
        self._local = {d.name: d for d in local_devices}
        self._incarnation = {d.name: d.incarnation for d in local_devices}
        self.transport = transport
        self.resolve = resolve
        self._steps = {}
        self._lock = threading.Lock()
        self._stale_after = stale_after_s
        self._aborted = {}  # step id -> error, for steps cleaned up before they arrived

    def is_local(self, device_name):
        return device_name in self._local

    def check_incarnation(self, key):
        """AbortedError when ``key`` names one of our devices with another incarnation."""
        src, inc, _, _ = parse_key(key)
        mine = self._incarnation.get(src)
        if mine is None:
            raise errors.InvalidArgumentError(
                None, None, f"RecvTensor for {key!r}: device {src} is not on this worker")
        if mine != inc:
            raise errors.AbortedError(
                None, None, f"RecvTensor for {key!r}: device {src} was restarted (incarnation "
                f"{inc:x} is gone, now {mine:x}); the step must be run again")

    def find(self, step_id):
        with self._lock:
            rv = self._steps.get(step_id)
            if rv is None:
                rv = self._steps[step_id] = StepRendezvous(self, step_id)
                err = self._aborted.get(step_id)
                if err is not None:
                    rv.abort(err)
            if len(self._steps) > 256:
                self._evict_stale_locked()
            return rv

    def _evict_stale_locked(self):
        now = time.monotonic()
        for sid, rv in list(self._steps.items()):
            if rv.finished is not None:
                # a value sent here that no peer took (it should not happen)
                if now - rv.finished > self._stale_after:
                    del self._steps[sid]
            elif not rv.started and now - rv.created > self._stale_after:
                del self._steps[sid]

    def finish(self, rv):
        """Marks ``rv``'s step as having succeeded here. Its rendezvous goes away once peers
        took every value sent here, so a successful step needs no CleanupGraph call."""
        with rv._cond:
            rv.finished = time.monotonic()
            empty = not rv._items
        if empty:
            self.discard(rv)

    def discard(self, rv):
        """Forgets ``rv`` (if it is still the rendezvous of its step)."""
        with self._lock:
            if self._steps.get(rv.step_id) is rv:
                del self._steps[rv.step_id]

    def cleanup(self, step_id, err=None):
        """Ends step ``step_id`` here: pending receives fail with ``err`` (or Cancelled)."""
        with self._lock:
            rv = self._steps.pop(step_id, None)
            if err is not None:
                self._aborted[step_id] = err
                if len(self._aborted) > 1024:
                    for k in list(self._aborted)[:512]:
                        del self._aborted[k]
        if rv is not None:
            rv.abort(err or errors.CancelledError(None, None, f"Step {step_id} was cleaned up"))

    def cleanup_all(self, err=None):
        with self._lock:
            steps = list(self._steps.items())
            self._steps.clear()
        for _, rv in steps:
            rv.abort(err or errors.CancelledError(None, None, "All steps were cleaned up"))

    def fetch_remote(self, rv, key, bfloat16, small=False):
        """Pulls ``key`` of ``rv``'s step from the task that produced it (RecvTensor)."""
        src = key.split(";", 1)[0]
        address = self.resolve(src)
        if address is None:
            raise errors.InvalidArgumentError(
                None, None, f"No task in the cluster has device {src} (rendezvous key {key})")
        if rv.error is not None:
            raise StepAborted(rv.error)
        try:
            return self.transport.recv_tensor(address, rv.step_id, key, bfloat16=bfloat16,
                                              deadline=rv.deadline, register=rv, small=small)
        except errors.OpError as e:
            if rv.error is not None:
                raise StepAborted(rv.error) from None
            if isinstance(e, errors.UnavailableError):
                raise errors.UnavailableError(
                    None, None, f"Lost the task at {address} while receiving {key}: "
                    f"{e.message}") from None
            raise
