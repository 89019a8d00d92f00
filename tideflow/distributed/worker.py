"""The worker service's logic as a plain class: its devices, registered partition graphs, one
RunGraph per step, and the RecvTensor side of the rendezvous (no grpc here).

The devices and their resource managers (variables, queues, accumulators) belong to the worker
and outlive client sessions, so between-graph replicas share the parameter servers' variables by
name; CleanupAll (``Session.reset``) clears containers.
"""

import collections
import concurrent.futures
import itertools
import threading
import time

from tideflow.distributed import remote_rendezvous, wire
from tideflow.framework import errors, ops
from tideflow.framework.device import DeviceSpec
from tideflow.protos import worker_pb2
from tideflow.runtime.device_mgr import DeviceMgr
from tideflow.runtime.executor import Plan, Step
from tideflow.runtime.rendezvous import StepAborted


def canonical_device(name):
    """A device name in TF's full form (``/job:j/replica:r/task:t/device:T:i``)."""
    spec = DeviceSpec.from_string(name)
    if spec.replica is None:
        spec = spec.replace(replica=0)
    return spec.to_string()


def device_attributes_proto(device, locality_bus=0):
    from tideflow.protos import device_attributes_pb2

    return device_attributes_pb2.DeviceAttributes(
        name=device.name, device_type=device.device_type,
        memory_limit=int(device.memory_limit), incarnation=int(device.incarnation),
        physical_device_desc=device.description or "")


def load_all_ops():
    """Imports every op declaration: a server must be able to import any graph it is sent."""
    import importlib
    import pkgutil

    import tideflow.ops

    for m in pkgutil.iter_modules(tideflow.ops.__path__):
        importlib.import_module(f"tideflow.ops.{m.name}")
    importlib.import_module("tideflow.summary.summary_ops")
    importlib.import_module("tideflow.train")


class _SessionCtx:
    """What kernels see as their session on a worker: a cancellation flag per worker session."""

    def __init__(self, handle):
        self.handle = handle
        self._cancelled = threading.Event()
        self.steps = set()
        # {device: its view with this session's own resources}, for a session whose state is
        # isolated (ConfigProto.isolate_session_state); None: the devices' shared resources
        self.isolated = None
        # the per-node state of stateful kernels (iterators, queues, random generators), shared
        # by every graph the session registers, as TF's OpSegment shares their kernels: an
        # iterator initialized by one step's partition is the one the next step reads
        self.state = {}


# session-state keys that describe one compiled graph (bind-time handshakes between its
# kernels, keyed by op name or Operation): kept per registered graph, never shared
_PER_GRAPH_KEYS = ("_variable_binding", "_write_into")


class _IsolatedDevice:
    """A device as an isolated session's kernels see it: its own resource manager (variables,
    queues, tables of this session only), everything else the device's."""

    def __init__(self, device):
        from tideflow.kernels.device import ResourceMgr

        self._device = device
        self.resource_mgr = ResourceMgr()
        self.resource_mgr.DEFAULT_CONTAINER = device.resource_mgr.DEFAULT_CONTAINER

    def __getattr__(self, name):
        return getattr(self._device, name)


class _GraphState(dict):
    """The kernels' session state of one registered graph: its own bind-time entries, and
    the session's shared per-node state (``_SessionCtx.state``) for everything else."""

    def __init__(self, shared):
        super().__init__()
        self._shared = shared

    def _store(self, key):
        if isinstance(key, tuple) and key and key[0] in _PER_GRAPH_KEYS:
            return super()
        return self._shared

    def get(self, key, default=None):
        return self._store(key).get(key, default)

    def setdefault(self, key, default=None):
        return self._store(key).setdefault(key, default)

    def pop(self, key, *default):
        return self._store(key).pop(key, *default)

    def __getitem__(self, key):
        return self._store(key).__getitem__(key)

    def __setitem__(self, key, value):
        self._store(key).__setitem__(key, value)

    def __contains__(self, key):
        return self._store(key).__contains__(key)


class _GraphItem:
    """A registered partition graph: its private Graph and one compiled plan per device."""

    def __init__(self, handle, session, graph, plans):
        self.handle = handle
        self.session = session
        self.graph = graph
        self.plans = plans  # [(device, Plan)]
        self._traced = None
        self.lock = threading.Lock()
        self.partial = False  # lanes of a partial run (each lane its own plan)

    def traced_plans(self):
        with self.lock:
            if self._traced is None:
                self._traced = [(d, p.variant(trace=True)) for d, p in self.plans]
            return self._traced


def _local_colocation(graph_def):
    """A partition keeps its nodes' colocation attrs, but the nodes they name may live in
    another partition (placement already honoured them): drop those references, as TF's
    worker-side import does, so the partition imports on its own."""
    names = {n.name for n in graph_def.node}
    stale = [n for n in graph_def.node if "_class" in n.attr and any(
        s.startswith(b"loc:@") and s[5:].decode() not in names
        for s in n.attr["_class"].list.s)]
    if not stale:
        return graph_def
    graph_def = type(graph_def).FromString(graph_def.SerializeToString())
    for n in graph_def.node:
        if "_class" not in n.attr:
            continue
        keep = [s for s in n.attr["_class"].list.s
                if not s.startswith(b"loc:@") or s[5:].decode() in names]
        if keep:
            del n.attr["_class"].list.s[:]
            n.attr["_class"].list.s.extend(keep)
        else:
            del n.attr["_class"]
    return graph_def


class _PartialStep:
    """The running step of a partial run on this worker: one thread per lane (a lane waits
    for its feeds, so lanes cannot share the worker's pool)."""

    def __init__(self, worker, item, step_id):
        self.worker = worker
        self.item = item
        self.step_id = step_id
        self.rv = None
        self.error = None
        self.done = threading.Event()
        self._left = len(item.plans)
        self._lock = threading.Lock()

    def start(self):
        rv = self.worker.rendezvous.find(self.step_id)
        rv.started = True
        rv.deadline = None  # the lanes wait across calls; aborts end them
        cancel = threading.Event()
        rv.cancelled = cancel
        if rv.error is not None:  # cleaned up before it started
            cancel.set()
        self.rv = rv
        step = Step(None, None)
        step.step_id = self.step_id
        step.rendezvous = rv
        step.cancelled = cancel
        step.session = self.item.session
        self.item.session.steps.add(rv)
        if not self.item.plans:
            self.done.set()
        for i, (_, plan) in enumerate(self.item.plans):
            threading.Thread(target=self._lane, args=(plan, step), daemon=True,
                             name=f"tf-partial-{self.step_id & 0xFFFF:x}-{i}").start()

    def _lane(self, plan, step):
        try:
            plan.run((), step)
        except StepAborted as e:
            self._fail(e.cause)
        except BaseException as e:  # noqa: BLE001 - reported to the next call
            self._fail(e)
        finally:
            with self._lock:
                self._left -= 1
                if self._left == 0:
                    self.done.set()

    def _fail(self, e):
        if not isinstance(e, errors.OpError):
            e = errors.InternalError(None, None, f"{type(e).__name__}: {e}")
        with self._lock:
            if self.error is None:
                self.error = e
        self.rv.abort(e)

    def check(self):
        """Raises the error that ended the step, if any."""
        if self.error is not None:
            raise self.error
        err = self.rv.error if self.rv is not None else None
        if err is not None:
            raise err.cause if isinstance(err, StepAborted) else err

    def wait(self, deadline):
        """Until every lane has returned (each can: every feed it needs was fed)."""
        while not self.done.wait(0.05 if deadline is None else
                                 max(0.0, min(0.05, deadline - time.monotonic()))):
            self.check()
            if deadline is not None and time.monotonic() >= deadline:
                raise errors.DeadlineExceededError(
                    None, None, f"Timed out waiting for partial run step {self.step_id} to end")
        self.check()


class Worker:
    """One task's worker: ``job``/``task`` name its devices; ``transport`` reaches peers;
    ``resolve(device_name) -> address`` finds the task holding a device."""

    def __init__(self, job="localhost", task=0, transport=None, resolve=None, config=None,
                 devices=None):
        load_all_ops()
        self.job = job
        self.task = int(task)
        if devices is None:
            devices = DeviceMgr(config, job=job, replica=0, task=self.task).devices
            for d in devices:
                # as TF's Device: a resource manager's default container is the job's name,
                # so Session.reset(target, ["ps"]) clears the ps tasks' variables
                d.resource_mgr.DEFAULT_CONTAINER = job
        self.devices = devices
        self._by_name = {canonical_device(d.name): d for d in self.devices}
        self.transport = transport
        self.rendezvous = remote_rendezvous.RendezvousMgr(
            self.devices, transport, resolve or (lambda name: None))
        self._graphs = {}
        self._sessions = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pool = concurrent.futures.ThreadPoolExecutor(64, thread_name_prefix="tf-worker")
        self._closed = False
        self._partials = {}  # step id -> _PartialStep
        self._ended_partials = collections.OrderedDict()  # step ids of partial runs that ended

    # -- status and sessions ------------------------------------------------------------
    def get_status(self, request=None):
        resp = worker_pb2.GetStatusResponse()
        for d in self.devices:
            resp.device_attributes.append(device_attributes_proto(d))
        return resp

    def _session(self, handle):
        with self._lock:
            s = self._sessions.get(handle)
            if s is None:
                s = self._sessions[handle] = _SessionCtx(handle)
            return s

    def create_worker_session(self, request):
        s = self._session(request.session_handle)
        if request.isolate_session_state:
            with self._lock:
                if s.isolated is None:
                    s.isolated = {d: _IsolatedDevice(d) for d in self.devices}
        return worker_pb2.CreateWorkerSessionResponse()

    def delete_worker_session(self, request):
        with self._lock:
            s = self._sessions.pop(request.session_handle, None)
            dead = [h for h, g in self._graphs.items() if g.session is s]
            for h in dead:
                del self._graphs[h]
        if s is not None:
            s._cancelled.set()
            for d in (s.isolated or {}).values():  # an isolated session's state ends with it
                d.resource_mgr.clear()
            with self._lock:
                partial = [sid for sid, ps in self._partials.items() if ps.item.session is s]
            for sid in partial:
                self._end_partial(sid, errors.CancelledError(None, None, "The session was closed"))
            for rv in list(s.steps):
                rv.abort(errors.CancelledError(None, None, "The session was closed"))
        return worker_pb2.DeleteWorkerSessionResponse()

    # -- graphs -------------------------------------------------------------------------
    def register_graph(self, request):
        """Imports a partition GraphDef into a private Graph and compiles a plan per device."""
        from tideflow.framework import importer

        session = self._session(request.session_handle)
        graph = ops.Graph()
        try:
            with graph.as_default():
                importer.import_graph_def(_local_colocation(request.graph_def), name="")
        except errors.OpError as e:
            raise errors.InvalidArgumentError(
                None, None, f"RegisterGraph: invalid graph: {e.message}") from None
        except (ValueError, TypeError, KeyError) as e:
            raise errors.InvalidArgumentError(
                None, None, f"RegisterGraph: invalid graph: {e}") from None
        optimize = True
        go = request.graph_options
        if go.optimizer_options.opt_level == -1:
            optimize = False
        by_device = {}  # (device, lane) -> ops; lanes only in partial-run graphs
        partial = False
        default = self.devices[0]
        for op in graph.get_operations():
            name = op.device
            if name:
                try:
                    dev = self._by_name.get(canonical_device(name))
                except (ValueError, TypeError):
                    dev = None
                if dev is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"RegisterGraph: node {op.name!r} is placed on {name!r}, "
                        f"which is not a device of /job:{self.job}/task:{self.task}")
            else:
                dev = default
            if session.isolated is not None:
                dev = session.isolated[dev]
            lane = op._attrs.get("_partial_lane")
            if lane is not None:
                partial = True
                lane = getattr(lane, "i", lane)
            by_device.setdefault((dev, lane or 0), []).append(op)
        state = _GraphState(session.state)
        plans = []
        for (dev, _), dev_ops in by_device.items():
            try:
                # what runs: the stateful ops (sends, variables, queues) and what they need
                targets = [op for op in dev_ops if op._op_def.is_stateful]
                plan = Plan(graph, [], [], targets, dev, state, session, optimize=optimize,
                            order=dev_ops)
            except errors.OpError as e:
                raise type(e)(None, None, f"RegisterGraph: {e.message}") from None
            plans.append((dev, plan))
        # the device that receives the most runs in the caller's thread
        plans.sort(key=lambda dp: -len(dp[1].ops))
        handle = f"g{next(self._ids)}_{id(graph) & 0xFFFF:x}"
        item = _GraphItem(handle, session, graph, plans)
        item.partial = partial
        with self._lock:
            self._graphs[handle] = item
        return worker_pb2.RegisterGraphResponse(graph_handle=handle)

    def deregister_graph(self, request):
        with self._lock:
            self._graphs.pop(request.graph_handle, None)
        return worker_pb2.DeregisterGraphResponse()

    # -- steps --------------------------------------------------------------------------
    def run_graph(self, request, deadline=None, arrays=None):
        """Runs a registered graph for step ``request.step_id`` (monotonic ``deadline``).

        With ``arrays`` (a dict), big fetched values are left out of the response: their
        entries carry dtype and shape, the values go into ``arrays[index]`` (to be streamed)."""
        item = self._graphs.get(request.graph_handle)
        if item is None:
            raise errors.AbortedError(
                None, None, f"Graph handle {request.graph_handle!r} is not registered on "
                f"/job:{self.job}/task:{self.task} (the task may have restarted)")
        if request.is_partial:
            return self._run_partial(item, request, deadline, arrays)
        rv = self.rendezvous.find(request.step_id)
        rv.started = True
        rv.deadline = deadline
        step_cancel = threading.Event()
        rv.cancelled = step_cancel
        if rv.error is not None:  # cleaned up before it arrived: its blocking kernels stop
            step_cancel.set()
        sess = item.session
        sess.steps.add(rv)
        try:
            if sess._cancelled.is_set():
                raise errors.CancelledError(None, None, "The session was closed")
            for nt in request.send:
                rv.send(nt.name, wire.decode(nt.tensor))
            trace = request.exec_opts.record_timeline or request.exec_opts.record_costs
            plans = item.traced_plans() if trace else item.plans
            step = Step(None, deadline)
            step.step_id = request.step_id
            step.rendezvous = rv
            step.cancelled = step_cancel
            step.session = sess
            if trace:
                from tideflow.runtime.tracing import StepTrace

                step.stats = StepTrace()
            self._run_plans(plans, step, rv)
            resp = worker_pb2.RunGraphResponse()
            for i, key in enumerate(request.recv_key):
                _add_recv(resp, i, key, rv.wait_local(key, deadline), arrays)
            if trace:
                # a timeline (TF's full trace) has the host tracer's '/host:CPU' too
                step.stats.to_step_stats(resp.step_stats, host=request.exec_opts.record_timeline)
            if request.exec_opts.record_partition_graphs:
                resp.partition_graph.append(item.graph.as_graph_def())
            self.rendezvous.finish(rv)
            return resp
        finally:
            sess.steps.discard(rv)

    def _run_plans(self, plans, step, rv):
        def run_one(plan):
            try:
                return plan.run((), step)
            except BaseException as e:
                rv.abort(e.cause if isinstance(e, StepAborted) else e)
                raise

        futures = [self._pool.submit(run_one, p) for _, p in plans[1:]]
        first = None
        try:
            run_one(plans[0][1])
        except StepAborted:
            pass
        except BaseException as e:  # noqa: BLE001 - reported after the others stop
            first = e
        for f in futures:
            try:
                f.result()
            except StepAborted:
                pass
            except BaseException as e:  # noqa: BLE001
                if first is None:
                    first = e
        err = rv.error
        if err is not None and first is None:
            first = err.cause if isinstance(err, StepAborted) else err
        if first is not None:
            if not isinstance(first, Exception):
                raise first  # KeyboardInterrupt in the caller's thread (an in-process client)
            if not isinstance(first, errors.OpError):
                first = errors.InternalError(None, None, f"{type(first).__name__}: {first}")
            raise first

    # -- partial runs -------------------------------------------------------------------
    def _run_partial(self, item, request, deadline, arrays):
        """One call of a partial run (``is_partial``): the first starts every lane of the
        graph in its own thread, for the whole partial run; each call sends its feeds into the
        step's rendezvous and waits for its fetches; the last (``is_last_partial_run``) waits
        for the lanes to end and forgets the step. Lanes that wait end when the step fails,
        is cleaned up (CleanupGraph) or its session is closed."""
        sid = request.step_id
        sess = item.session
        with self._lock:
            ps = self._partials.get(sid)
            start = ps is None
            if start:
                if sid in self._ended_partials:
                    raise errors.AbortedError(
                        None, None, f"Partial run step {sid} has ended on "
                        f"/job:{self.job}/task:{self.task}")
                if sess._cancelled.is_set():
                    raise errors.CancelledError(None, None, "The session was closed")
                ps = self._partials[sid] = _PartialStep(self, item, sid)
            elif ps.item is not item:
                raise errors.InvalidArgumentError(
                    None, None, f"Partial run step {sid} runs another graph on "
                    f"/job:{self.job}/task:{self.task}")
        if start:
            ps.start()
        rv = ps.rv
        try:
            ps.check()
            for nt in request.send:
                rv.send(nt.name, wire.decode(nt.tensor))
            resp = worker_pb2.RunGraphResponse()
            for i, key in enumerate(request.recv_key):
                try:
                    v = rv.wait_local(key, deadline)
                except errors.OpError:
                    ps.check()
                    raise
                _add_recv(resp, i, key, v, arrays)
            if request.is_last_partial_run:
                ps.wait(deadline)
                self._end_partial(sid)
                self.rendezvous.finish(rv)
            return resp
        except errors.OpError:
            ps.check()
            raise

    def _end_partial(self, step_id, err=None):
        with self._lock:
            ps = self._partials.pop(step_id, None)
            if ps is not None:
                self._ended_partials[step_id] = True
                while len(self._ended_partials) > 4096:
                    self._ended_partials.popitem(last=False)
        if ps is not None:
            ps.item.session.steps.discard(ps.rv)
            if err is not None:
                ps.rv.abort(err)
        return ps

    def cleanup_graph(self, request):
        self._end_partial(request.step_id, errors.CancelledError(
            None, None, f"Partial run step {request.step_id} was cleaned up"))
        # remembered: a RunGraph of the step that arrives after this one fails at once
        self.rendezvous.cleanup(request.step_id, errors.CancelledError(
            None, None, f"Step {request.step_id} was cleaned up"))
        return worker_pb2.CleanupGraphResponse()

    def cleanup_all(self, request):
        """Clears the named resource containers (as TF's DeviceMgr::ClearContainers: the
        default container alone when none are named; ``tf.container`` ones stay)."""
        containers = list(request.container) or [None]
        for d in self.devices:
            for c in containers:
                d.resource_mgr.cleanup(c)
        return worker_pb2.CleanupAllResponse()

    # -- RecvTensor ---------------------------------------------------------------------
    def recv_tensor_value(self, step_id, key, deadline=None, cancelled=None):
        """The value ``key`` of step ``step_id`` produced here, once it is sent (the serving
        side of RecvTensor). A key naming an older incarnation of our device is Aborted."""
        self.rendezvous.check_incarnation(key)
        rv = self.rendezvous.find(step_id)
        # a view of a variable's buffer is not snapshotted: each chunk is copied as it is
        # sent, so a concurrent update may be seen part-way, as TF's unlocked reads allow
        return rv.wait_local(key, deadline, cancelled)

    def recv_tensor(self, request, deadline=None, cancelled=None):
        """TF's unary RecvTensor: the tensor in one response (raw bytes)."""
        v = self.recv_tensor_value(request.step_id, request.rendezvous_key, deadline, cancelled)
        resp = worker_pb2.RecvTensorResponse(send_start_micros=int(time.time() * 1e6))
        wire.encode(v, resp.tensor)
        return resp

    def close(self):
        if self._closed:
            return
        self._closed = True
        with self._lock:
            partial = list(self._partials)
        for sid in partial:
            self._end_partial(sid, errors.CancelledError(None, None, "The server is stopping"))
        self.rendezvous.cleanup_all()
        with self._lock:
            sessions = list(self._sessions.values())
        for s in sessions:
            s._cancelled.set()
        self._pool.shutdown(wait=False)


def _add_recv(resp, i, key, value, arrays):
    """Adds fetched ``value`` to RunGraphResponse ``resp``: big arrays out of band (``arrays``,
    streamed by the caller), others encoded in the message."""
    nt = resp.recv.add(name=key)
    if arrays is not None and wire.is_big(value):
        wire.placeholder(nt, value)
        arrays[i] = value
    else:
        wire.encode(value, nt.tensor)
