"""The worker's per-step rendezvous: local Send/Recv meet in a table; a Recv whose producer lives
in another task pulls the tensor from that task with RecvTensor (paper §3.3).

Also declares ``_Send`` and ``_Recv``, the ops the master inserts at every cross-device edge of
a registered partition graph; their kernels call the step's rendezvous.
"""

import threading
import time
import weakref

import numpy as np

from tideflow.framework import errors, op_registry
from tideflow.framework.device import DeviceSpec
from tideflow.framework.tensor_shape import unknown_shape
from tideflow.runtime.rendezvous import Rendezvous, StepAborted, make_key

_POLL_S = 0.05
_MISSING = object()
_SEND_RECV_ATTRS = ["tensor_name: string", "send_device: string",
                    "send_device_incarnation: int", "recv_device: string",
                    "client_terminated: bool = false"]


def _send_kernel(tensor, *, tensor_name, send_device, send_device_incarnation, recv_device,
                 wire_snapshot, step):
    if wire_snapshot and isinstance(tensor, np.ndarray) and tensor.base is not None:
        # a view of a variable's buffer, sent to a client in another task: its value now, not
        # after this step's later updates of the variable (TF copies it onto the wire here)
        tensor = tensor.copy()
    step.rendezvous.send(make_key(send_device, send_device_incarnation, recv_device,
                                  tensor_name), tensor)


def _recv_kernel(*, tensor_name, send_device, send_device_incarnation, recv_device,
                 wire_bfloat16, wire_small, ctx, step):
    key = make_key(send_device, send_device_incarnation, recv_device, tensor_name)
    rv = step.rendezvous
    if isinstance(rv, StepRendezvous):
        v = rv.recv(key, bfloat16=True if wire_bfloat16 else None, small=wire_small,
                    graph=ctx.op.graph)
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
        # wire_snapshot: the value is copied when sent (a fetch from a task not the master's)
        "_Send", inputs=["tensor: T"], attrs=["T: type", *_SEND_RECV_ATTRS,
                                              "wire_snapshot: bool = false"],
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


class _RecvGroup:
    """The remote ``_Recv`` keys of a registered graph whose producers live on one task: a
    step pulls them all in one RecvTensorsStream."""

    __slots__ = ("bfloat16", "keys", "task")

    def __init__(self, task, keys, bfloat16):
        self.task = task
        self.keys = tuple(keys)
        self.bfloat16 = tuple(bfloat16)


def _wake(pf):
    """Wakes the threads waiting on ``pf``'s stream (call with the step's lock held)."""
    if pf.waiting:
        pf.cond.notify_all()


class _Prefetch:
    """One step's stream of the values of a _RecvGroup. The thread that needs a value not yet
    here reads the stream (others wait), keeping the values that come first for their own
    ``_Recv``; ``over`` once the stream ended (a value it lacks is then pulled alone)."""

    __slots__ = ("address", "cond", "error", "it", "left", "over", "reading", "values",
                 "waiting")

    def __init__(self, address, n, step_cond):
        self.address = address
        # over the step's lock, but waited on only by the threads that wait on this stream
        # (the step's own condition also wakes whoever waits for values sent here)
        self.cond = threading.Condition(step_cond)
        self.waiting = 0
        self.it = None
        self.values = {}
        self.left = n  # values not yet read off the stream
        self.reading = False
        self.over = False
        self.error = None


class StepRendezvous(Rendezvous):
    """One step's rendezvous on a worker: remote producers are pulled with RecvTensor (or,
    several from one task, with one RecvTensorsStream)."""

    __slots__ = ("_calls", "_prefetch", "bfloat16", "created", "finished", "mgr", "started",
                 "step_id")

    def __init__(self, mgr, step_id):
        super().__init__(None)
        self.mgr = mgr
        self.step_id = step_id
        self._calls = set()
        self._prefetch = {}  # task -> _Prefetch
        self.created = time.monotonic()
        self.started = False
        self.finished = None  # when this task's RunGraph of the step succeeded
        self.bfloat16 = False

    def recv(self, key, bfloat16=None, small=False, graph=None):
        src = key.split(";", 1)[0]
        if self.mgr.is_local(src):
            return super().recv(key)
        if graph is not None:
            group = self.mgr.recv_group(graph, key)
            if group is not None:
                return self.mgr.fetch_grouped(self, key, group)
        return self.mgr.fetch_remote(self, key, self.bfloat16 if bfloat16 is None else bfloat16,
                                     small)

    def _raise_if_aborted(self):
        if self._error is not None:
            raise errors.AbortedError(
                None, None, f"Step {self.step_id} was aborted: {self._error}")

    def _wait_more(self, deadline, cancelled, call, what):
        """With ``self._cond`` held: raises if ``call`` was cancelled or ``deadline`` passed,
        else waits for the next send (or a short poll)."""
        if cancelled is not None and cancelled():
            raise errors.CancelledError(None, None, f"{call} was cancelled")
        wait = _POLL_S * 4
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out waiting for {what} of step {self.step_id}")
            wait = min(wait, left)
        self._cond.wait(wait)

    def wait_local(self, key, deadline, cancelled=None):
        """The value sent under ``key`` here, waiting until ``deadline`` (monotonic seconds)."""
        items = self._items
        with self._cond:
            while True:
                self._raise_if_aborted()
                if key in items:
                    v = items.pop(key)
                    if self.finished is not None and not items:
                        break  # the step is over here and its last value is taken
                    return v
                self._wait_more(deadline, cancelled, "RecvTensor", f"tensor {key}")
        self.mgr.discard(self)
        return v

    def wait_some(self, keys, deadline, cancelled=None):
        """``[(key, value)]`` of those of ``keys`` (a collection) sent here, once there is at
        least one; ``[]`` when this task's part of the step is over without any of them (they
        will never come)."""
        items = self._items
        with self._cond:
            while True:
                self._raise_if_aborted()
                got = [(k, items.pop(k)) for k in keys if k in items]
                if got:
                    # the step is over here and its last value is taken: forget it
                    done = self.finished is not None and not items
                    break
                if self.finished is not None:
                    return got
                self._wait_more(deadline, cancelled, "RecvTensors",
                                f"tensors {', '.join(sorted(keys))}")
        if done:
            self.mgr.discard(self)
        return got

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
            for pf in self._prefetch.values():
                pf.cond.notify_all()
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
        self._groups = weakref.WeakKeyDictionary()  # graph -> {key: _RecvGroup or None}
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

    def recv_group(self, graph, key):
        """The _RecvGroup of remote key ``key`` of registered ``graph`` (None when it is the
        only value the graph receives from its task, or the transport cannot batch)."""
        groups = self._groups.get(graph)
        if groups is None:
            groups = self._groups[graph] = self._make_groups(graph)
        return groups.get(key)

    def _make_groups(self, graph):
        if not hasattr(self.transport, "recv_tensors"):
            return {}
        by_task = {}
        for op in graph.get_operations():
            if op.type != "_Recv":
                continue
            a = op._attrs
            src = a["send_device"]
            # a Recv gated by control inputs (a variable's buffer read after the consumer's
            # other inputs, as TF's partitioner orders it) is pulled when it runs, not early
            if a.get("client_terminated") or self.is_local(src) or op._control_inputs:
                continue
            k = make_key(src, a["send_device_incarnation"], a["recv_device"], a["tensor_name"])
            task = src.rsplit("/device:", 1)[0]
            by_task.setdefault(task, {})[k] = bool(a.get("wire_bfloat16")) or False
        out = {}
        for task, keys in by_task.items():
            if len(keys) < 2:
                continue
            group = _RecvGroup(task, keys, keys.values())
            for k in keys:
                out[k] = group
        return out

    def fetch_grouped(self, rv, key, group):
        """The value ``key`` of ``rv``'s step, pulled with the others of its group in one
        stream (the first of them to be needed opens it)."""
        with rv._cond:
            if rv._error is not None:
                raise StepAborted(rv._error)
            pf = rv._prefetch.get(group.task)
            start = pf is None
            if start:
                address = self.resolve(key.split(";", 1)[0])
                if address is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"No task in the cluster has device "
                        f"{key.split(';', 1)[0]} (rendezvous key {key})")
                pf = rv._prefetch[group.task] = _Prefetch(address, len(group.keys), rv._cond)
                pf.reading = True  # this thread opens the stream and reads first
        if start:
            try:
                pf.it = self.transport.recv_tensors(pf.address, rv.step_id, group.keys,
                                                    group.bfloat16, deadline=rv.deadline,
                                                    register=rv)
            except errors.OpError as e:
                raise self._stream_failed(rv, pf, e, key) from None
        else:
            if not self._await_turn(rv, pf, key):
                return self._take(rv, pf, key, group)
        while True:
            # this thread reads the stream until ``key`` comes (or the stream ends)
            try:
                got = next(pf.it, None)
                if got is not None:
                    pf.left -= 1
                    if pf.left == 0:
                        next(pf.it, None)  # the stream's end: the call is over
            except errors.OpError as e:
                raise self._stream_failed(rv, pf, e, key) from None
            with rv._cond:
                mine = _MISSING
                if got is not None:
                    k = group.keys[got[0]]
                    if k == key:
                        mine = got[1]
                    else:
                        pf.values[k] = got[1]
                if got is None or pf.left == 0:
                    pf.over = True
                if mine is not _MISSING or pf.over:
                    pf.reading = False
                _wake(pf)
            if mine is not _MISSING:
                return mine
            if pf.over:
                return self._take(rv, pf, key, group)

    def _await_turn(self, rv, pf, key):
        """Waits until ``key``'s value came off the stream (False) or it is this thread's turn
        to read it (True); raises when the step or the stream failed."""
        with rv._cond:
            while True:
                if rv._error is not None:
                    raise StepAborted(rv._error)
                if key in pf.values or pf.over:
                    return False
                if pf.error is not None:
                    raise self._remote_error(rv, pf.error, pf.address, key)
                if not pf.reading:
                    pf.reading = True
                    return True
                pf.waiting += 1
                try:
                    pf.cond.wait(_POLL_S * 4)
                finally:
                    pf.waiting -= 1

    def _take(self, rv, pf, key, group):
        with rv._cond:
            v = pf.values.pop(key, _MISSING)
        if v is not _MISSING:
            return v
        # the stream ended without it (the step ended there first): pull it alone
        return self.fetch_remote(rv, key, group.bfloat16[group.keys.index(key)])

    def _stream_failed(self, rv, pf, e, key):
        """The error to raise when reading prefetch ``pf``'s stream failed with ``e``; the
        other threads waiting on that stream are told and woken."""
        with rv._cond:
            pf.error = e
            pf.reading = False
            _wake(pf)
        return self._remote_error(rv, e, pf.address, key)

    def _remote_error(self, rv, e, address, key):
        if rv.error is not None:
            return StepAborted(rv.error)
        if isinstance(e, errors.UnavailableError):
            return errors.UnavailableError(
                None, None, f"Lost the task at {address} while receiving {key}: {e.message}")
        return e

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
            raise self._remote_error(rv, e, address, key) from None

    def serve_many(self, step_id, keys, deadline=None, cancelled=None):
        """The serving side of RecvTensorsStream: yields lists of ``(index in keys, value)``
        for the values ``keys`` of step ``step_id`` produced here, each as soon as it is sent
        (those sent meanwhile together); stops early when this task's part of the step ended
        without some of them."""
        for k in keys:
            self.check_incarnation(k)
        left = {}
        for i, k in enumerate(keys):
            if k in left:
                raise errors.InvalidArgumentError(
                    None, None, f"RecvTensors asks twice for {k!r}")
            left[k] = i
        rv = self.find(step_id)
        while left:
            got = rv.wait_some(left, deadline, cancelled)
            if not got:
                return
            yield [(left.pop(k), v) for k, v in got]
