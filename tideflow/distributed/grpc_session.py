"""The client side of ``tf.Session("grpc://host:port")``: ships the graph to the master
(CreateSession, then ExtendSession with only the new nodes) and runs steps with RunStep,
fetched tensors streaming back in chunks."""

import contextlib
import logging
import re
import sys
import threading
import time

from tideflow.distributed import security as security_lib
from tideflow.distributed import transport as tp
from tideflow.distributed import wire
from tideflow.framework import errors, graph_io
from tideflow.protos import master_pb2

log = logging.getLogger("tideflow.distributed")

CREATE_TIMEOUT_S = 120.0
CALL_TIMEOUT_S = 60.0
STEP_TIMEOUT_S = 7 * 24 * 3600.0  # no step deadline: keepalive finds a dead master


def _address(target):
    if isinstance(target, bytes):
        target = target.decode()
    if not target.startswith("grpc://"):
        raise ValueError(f"Not a grpc:// target: {target!r}")
    return target[len("grpc://"):]


# the Master method behind each MasterService call, and those that take a deadline
_MASTER_CALLS = {"CreateSession": "create_session", "ExtendSession": "extend_session",
                 "PartialRunSetup": "partial_run_setup", "RunStep": "run_step",
                 "CloseSession": "close_session", "ListDevices": "list_devices",
                 "Reset": "reset"}
_WITH_DEADLINE = ("CreateSession", "RunStep")
_HANDLE_OPS = ("GetSessionHandle", "GetSessionHandleV2")
# the node an op error names, as the executor writes it
_NODE_IN_ERROR = re.compile(r"\[\[node (\S+) \(defined at [^\]]*\) \]\]")
_NODE_DEFINED_AT = re.compile(r"node (\S+) \(defined at [^)]*\)")


class _Status:
    """The code and details of a call answered in process, as a failed gRPC call has them."""

    def __init__(self, code_num, details):
        self._code = code_num
        self._details = details

    def code(self):
        from tideflow.distributed.grpc_services import _status

        return _status(self._code)

    def details(self):
        return self._details


def _registered(address):
    """The (master, security) of this process's serving server at ``address``, or None (with
    no server module loaded, there is none: a client-only process does not import it)."""
    server_lib = sys.modules.get("tideflow.distributed.server")
    return None if server_lib is None else server_lib._LOCAL_MASTERS.get(address)


class _Stub:
    """Calls of one master over a channel, with the token and deadlines.

    When a server of this process serves ``address`` (``server.local_master``), calls go to
    its master directly, as TF's LocalMaster does: no serialization, no gRPC. That server's
    token check still applies (a client it would refuse goes over gRPC, which refuses it);
    errors come back as the same classes and messages as over gRPC."""

    def __init__(self, address, security=None):
        self.address = address
        self.channel = tp.make_channel(address, security)
        self.metadata = security.metadata() if security is not None else ()
        self._tls = security is not None and security.tls
        self._verdict = (None, False)  # the last in-process (master, security) seen, and
        # whether its server would take this client's calls
        self._calls = {}
        self._run_step_stream = self.channel.unary_stream(
            f"/{tp.TRANSFER_SERVICE}/RunStepStream",
            request_serializer=master_pb2.RunStepRequest.SerializeToString)

    def _local(self):
        """The (master, security) entry of this process's server at the address, when calls
        may go to its master directly (the server would accept this client's channel and
        token), else None."""
        entry = _registered(self.address)
        if entry is None:
            return None
        seen, ok = self._verdict
        if entry is not seen:
            sec = entry[1]
            server_tls = sec is not None and bool(sec.cert_file)
            ok = server_tls == self._tls and (
                sec is None or sec.rejection(self.metadata) is None)
            self._verdict = (entry, ok)
        return entry if ok else None

    def _call_local(self, entry, method, request, timeout, arrays=None):
        """``method`` on the in-process master of ``entry``, its failures mapped as the gRPC
        adapters (grpc_services.py) and the client (transport.error_from_rpc) map them."""
        fn = getattr(entry[0], _MASTER_CALLS[method])
        try:
            if method == "RunStep":
                return fn(request, time.monotonic() + timeout, arrays)
            if method in _WITH_DEADLINE:
                return fn(request, time.monotonic() + timeout)
            return fn(request)
        except Exception as e:  # every failure becomes a status, as over gRPC
            if _registered(self.address) is not entry:
                # the server stopped under the call: gRPC would have cut it off
                status = _Status(errors.UNAVAILABLE, f"{method}: the server stopped")
            elif isinstance(e, errors.OpError):
                status = _Status(e.error_code, e.message)
            elif isinstance(e, MemoryError):
                status = _Status(errors.RESOURCE_EXHAUSTED, f"{method}: out of memory")
            else:
                log.exception("%s failed", method)
                status = _Status(errors.INTERNAL, f"{method}: {type(e).__name__}: {e}")
            raise tp.error_from_rpc(status, self.address) from None

    def call(self, method, request, timeout=CALL_TIMEOUT_S, wait_for_ready=None):
        import grpc

        entry = self._local()
        if entry is not None:
            return self._call_local(entry, method, request, timeout)
        fn = self._calls.get(method)
        if fn is None:
            req_cls, resp_cls, _ = tp.MASTER_METHODS[method]
            fn = self._calls[method] = self.channel.unary_unary(
                f"/{tp.MASTER_SERVICE}/{method}", request_serializer=req_cls.SerializeToString,
                response_deserializer=resp_cls.FromString)
        try:
            return fn(request, timeout=timeout, metadata=self.metadata,
                      wait_for_ready=wait_for_ready)
        except grpc.RpcError as e:
            raise tp.error_from_rpc(e, self.address) from None

    def run_step(self, request, timeout, arrays=None, small=False):
        """RunStep: streamed, so that big fetched values come back in chunks; with ``small``
        (every fetched value is known to be small) one unary call, which costs less.

        In process, big fetched values come back as arrays, each copied: the master may hand
        back a buffer of its worker (a variable's own), which a client must never alias."""
        import grpc

        entry = self._local()
        if entry is not None:
            if arrays is None:
                return self._call_local(entry, "RunStep", request, timeout)
            got = {}
            resp = self._call_local(entry, "RunStep", request, timeout, got)
            for i, a in got.items():
                arrays[i] = a.copy()
            return resp
        if small:
            return self.call("RunStep", request, timeout)
        try:
            return wire.read_response(
                self._run_step_stream(request, timeout=timeout, metadata=self.metadata),
                master_pb2.RunStepResponse, "tensor", arrays)
        except grpc.RpcError as e:
            raise tp.error_from_rpc(e, self.address) from None

    def close(self):
        self.channel.close()


def _value(proto):
    v = wire.decode(proto)
    if not v.flags.writeable:
        v = v.copy()
    if v.ndim == 0:
        return v[()]
    return v


class RemoteSession:
    """What a ``tf.Session`` with a ``grpc://`` target delegates its steps to."""

    def __init__(self, session, target, config=None):
        self._session = session
        self._graph = session._graph
        self._config = config
        self._stub = _Stub(_address(target), security_lib.get_default())
        self._handle = None
        self._graph_version = 0
        self._sent = 0  # graph._version shipped so far
        self._structure = None
        self._lock = threading.Lock()
        # partial run handle -> (ops named in its setup not run yet, feeds declared, fed so far)
        self._partial_targets = {}

    # -- the graph ---------------------------------------------------------------------
    def _ensure_graph(self):
        g = self._graph
        if self._handle is not None and g._version == self._sent and (
                g._structure_version == self._structure):
            return
        with self._lock:
            if self._handle is not None and g._structure_version != self._structure:
                # existing nodes were rewritten: the master needs the whole graph again
                with contextlib.suppress(errors.AbortedError):
                    self._close_master_session()
            if self._handle is None:
                version = g._version
                req = master_pb2.CreateSessionRequest(
                    graph_def=graph_io.graph_to_graph_def(g), target=self._stub.address)
                if self._config is not None:
                    req.config.CopyFrom(self._config)
                resp = self._create_session(req)
                self._handle = resp.session_handle
                self._graph_version = resp.graph_version
                self._sent = version
                self._structure = g._structure_version
            elif g._version > self._sent:
                version = g._version
                gd = graph_io.graph_to_graph_def(g, from_version=self._sent)
                resp = self._stub.call("ExtendSession", master_pb2.ExtendSessionRequest(
                    session_handle=self._handle, graph_def=gd,
                    current_graph_version=self._graph_version), CREATE_TIMEOUT_S)
                self._graph_version = resp.new_graph_version
                self._sent = version

    def _create_session(self, req):
        """CreateSession, waiting for a master that is not listening yet (its port refuses
        connections: a server still starting), as TF's client does, until the create
        deadline; any other failure is raised at once."""
        op_ms = self._config.operation_timeout_in_ms if self._config is not None else 0
        if op_ms > 0:
            # as TF's client under an operation timeout: a master not listening is waited for
            # until that deadline, then DeadlineExceededError ("Deadline Exceeded")
            return self._stub.call("CreateSession", req, op_ms / 1000.0, wait_for_ready=True)
        deadline = time.monotonic() + CREATE_TIMEOUT_S
        delay, warned = 0.05, False
        while True:
            try:
                return self._stub.call("CreateSession", req,
                                       max(1.0, deadline - time.monotonic()))
            except errors.UnavailableError as e:
                if "Connection refused" not in e.message or (
                        time.monotonic() + delay > deadline):
                    raise
                if not warned:
                    log.info("CreateSession: waiting for the master at %s to start",
                             self._stub.address)
                    warned = True
            time.sleep(delay)
            delay = min(delay * 1.5, 1.0)

    def _close_master_session(self):
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                self._stub.call("CloseSession", master_pb2.CloseSessionRequest(
                    session_handle=handle), 10.0)
            except errors.AbortedError:
                raise  # the master no longer knows it (reset, or restarted): TF's close says so
            except errors.OpError:
                pass

    # -- steps -------------------------------------------------------------------------
    def _handler(self, fetches):
        from tideflow.runtime import session as session_lib

        s = self._session
        key = session_lib._fetch_key(fetches)
        handler = s._handlers.get(key) if key is not None else None
        if handler is None:
            handler = session_lib._FetchHandler(self._graph, fetches)
            if key is not None:
                s._handlers[key] = handler
        if getattr(handler, "_wire_small", None) is None:
            handler._wire_small = all(wire.known_small(t) for t in handler.tensors)
        return handler

    def _add_feeds(self, req, feed_dict):
        from tideflow.runtime import session as session_lib

        for k, value in feed_dict.items():
            tensors, splitter = session_lib._feed_tensors(self._graph, k)
            values = [value] if splitter is None else splitter(value)
            for t, v in zip(tensors, values):
                if not self._graph.is_feedable(t):
                    raise ValueError(f"Tensor {t} may not be fed.")
                nt = req.feed.add(name=t.name)
                wire.encode(session_lib._convert_feed(t, v), nt.tensor)

    def _step(self, req, handler, timeout, run_metadata=None):
        arrays = {}  # streamed (big) tensors, decoded in place
        try:
            resp = self._stub.run_step(req, timeout, arrays, handler._wire_small)
        except errors.OpError as e:
            self._attach_client_op(e)
            raise
        if run_metadata is not None:
            run_metadata.CopyFrom(resp.metadata)
        values = [arrays[i] if i in arrays else _value(nt.tensor)
                  for i, nt in enumerate(resp.tensor)]
        for i, t in enumerate(handler.tensors):
            if t.op.type in _HANDLE_OPS and isinstance(values[i], bytes):
                # as TF's client: a fetched session handle is a TensorHandle of this session
                from tideflow.ops.session_ops import TensorHandle

                values[i] = TensorHandle(values[i], t.op.inputs[0].dtype.base_dtype,
                                         self._session)
        return handler.builder(values)

    def _attach_client_op(self, e):
        """As TF's client: the node an error from the cluster names is looked up in this
        session's graph, becomes ``e.op``, and its user code location replaces the one the
        worker's imported copy of the node has."""
        if e.op is not None:
            return
        m = _NODE_IN_ERROR.search(e.message or "")
        text = "[[node {} (defined at {}) ]]"
        if m is None:
            # a placement error names the node in its first line ("node X (defined at Y)")
            m = _NODE_DEFINED_AT.search(e.message or "")
            text = "node {} (defined at {})"
            if m is None:
                return
        try:
            op = self._graph.get_operation_by_name(m.group(1))
        except (KeyError, ValueError):
            return
        e._op = op
        e._message = (e._message[:m.start()] + text.format(op.name, op._user_location)
                      + e._message[m.end():])

    @staticmethod
    def _timeout(req, options):
        if options is None:
            return STEP_TIMEOUT_S
        req.options.CopyFrom(options)
        if options.timeout_in_ms > 0:
            return options.timeout_in_ms / 1000.0 + 5.0
        return STEP_TIMEOUT_S

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        handler = self._handler(fetches)
        req = master_pb2.RunStepRequest()
        if feed_dict:
            self._add_feeds(req, feed_dict)
        req.fetch.extend(t.name for t in handler.tensors)
        req.target.extend(op.name for op in handler.targets)
        timeout = self._timeout(req, options)
        self._ensure_graph()
        req.session_handle = self._handle
        return self._step(req, handler, timeout, run_metadata)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """TF's calling convention: positional values for ``feed_list``, ``options`` and
        ``run_metadata`` keywords (with ``accept_options``, or a ``feed_list``, as TF's
        forwarding to ``run``); fetches come back as ``run`` returns them.

        The names are resolved once: a call converts its feed values, copies the prepared
        RunStep request and sends it."""
        from tideflow.runtime import session as session_lib

        if feed_list is not None and not isinstance(feed_list, (list, tuple)):
            raise TypeError("`feed_list` must be a list or tuple.")
        handler = session_lib._FetchHandler(self._graph, fetches)
        handler._wire_small = all(wire.known_small(t) for t in handler.tensors)
        feeds = []  # (tensor, splitter or None, count) per feed_list entry
        for f in feed_list or ():
            tensors, splitter = session_lib._feed_tensors(self._graph, f)
            for t in tensors:
                if not self._graph.is_feedable(t):
                    raise ValueError(f"Tensor {t} may not be fed.")
            feeds.append((tensors, splitter))
        skeleton = master_pb2.RunStepRequest()
        skeleton.fetch.extend(t.name for t in handler.tensors)
        skeleton.target.extend(op.name for op in handler.targets)
        names = [[t.name for t in tensors] for tensors, _ in feeds]
        kw_ok = accept_options or feed_list is not None
        convert = session_lib._convert_feed
        encode = wire.encode
        state = [None, None]  # the master session handle the skeleton is for, the skeleton
        sess = self._session

        def call(*args, **kwargs):
            if sess._closed:
                sess._check_open()
            # as TF (and the local session), the values are zipped with feed_list: a missing
            # one leaves its tensor unfed (an error if the fetches need it), an extra one is
            # ignored
            options = run_metadata = None
            if kwargs:
                bad = [k for k in kwargs if not kw_ok or k not in ("options", "run_metadata")]
                if bad:
                    raise TypeError(f"callable() got an unexpected keyword argument {bad[0]!r}")
                options = kwargs.get("options")
                run_metadata = kwargs.get("run_metadata")
            self._ensure_graph()
            if state[0] != self._handle:
                base = master_pb2.RunStepRequest()
                base.CopyFrom(skeleton)
                base.session_handle = self._handle
                state[0], state[1] = self._handle, base
            req = master_pb2.RunStepRequest()
            req.CopyFrom(state[1])
            for (tensors, splitter), tnames, value in zip(feeds, names, args):
                values = (value,) if splitter is None else splitter(value)
                for t, name, v in zip(tensors, tnames, values):
                    encode(convert(t, v), req.feed.add(name=name).tensor)
            timeout = self._timeout(req, options)
            return self._step(req, handler, timeout, run_metadata)

        return call

    # -- partial runs ------------------------------------------------------------------
    def partial_run_setup(self, fetches, feeds=None):
        """PartialRunSetup on the master: the handle of a step that ``partial_run`` feeds and
        fetches in pieces (``feeds`` and ``fetches`` as declared here, each exactly once)."""
        from tideflow.runtime import session as session_lib

        handler = self._handler(fetches)
        req = master_pb2.PartialRunSetupRequest()
        for f in feeds or ():
            tensors, _ = session_lib._feed_tensors(self._graph, f)
            for t in tensors:
                if not self._graph.is_feedable(t):
                    raise ValueError(f"Tensor {t} may not be fed.")
                req.feed.append(t.name)
        req.fetch.extend(t.name for t in handler.tensors)
        req.target.extend(op.name for op in handler.targets)
        self._ensure_graph()
        req.session_handle = self._handle
        handle = self._stub.call("PartialRunSetup", req, CREATE_TIMEOUT_S).partial_run_handle
        if handler.targets:
            feeds = {self._graph.as_graph_element(name) for name in req.feed}
            self._partial_targets[handle] = (set(handler.targets), feeds, set())
        return handle

    def _ready_targets(self, handle, fed):
        """The ops named in ``handle``'s setup that can run now that ``fed`` is in: as TF 1.x's,
        they run on their own with the first partial_run call after their feeds arrive."""
        from tideflow.runtime.executor import prune

        entry = self._partial_targets.get(handle)
        if entry is None:
            return []
        targets, feeds, done = entry
        done.update(fed)
        pending = feeds - done
        ready = [op for op in targets if not any(
            t in pending for o in prune([], [op], set(done)) for t in o._inputs)]
        targets.difference_update(ready)
        if not targets:
            del self._partial_targets[handle]
        return ready

    def partial_run(self, handle, fetches, feed_dict=None):
        """Continues the partial run ``handle``: feeds ``feed_dict``, returns ``fetches``."""
        if not isinstance(handle, str) or not handle:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid partial run handle {handle!r}: use the one "
                "partial_run_setup returned")
        handler = self._handler(fetches)
        if handler.targets:  # TF 1.x: ops named in partial_run_setup run, never fetched here
            raise RuntimeError("partial_run() requires empty target_list.")
        req = master_pb2.RunStepRequest(partial_run_handle=handle)
        if feed_dict:
            self._add_feeds(req, feed_dict)
        req.fetch.extend(t.name for t in handler.tensors)
        fed = {self._graph.as_graph_element(f.name) for f in req.feed}
        req.target.extend(op.name for op in self._ready_targets(handle, fed))
        self._ensure_graph()
        req.session_handle = self._handle
        return self._step(req, handler, STEP_TIMEOUT_S)

    def list_devices(self):
        from tideflow.runtime.device_attributes import DeviceAttributes

        self._ensure_graph()
        resp = self._stub.call("ListDevices", master_pb2.ListDevicesRequest(
            session_handle=self._handle))
        return [DeviceAttributes(d.name, d.device_type, d.memory_limit, d.incarnation)
                for d in list(resp.local_device) + list(resp.remote_device)]

    def close(self):
        try:
            with self._lock:
                self._close_master_session()
        finally:
            self._stub.close()


def reset(target, containers=None, config=None):
    """``Session.reset``: clears ``containers`` (the default one when None) on every task of
    the cluster the master at ``target`` knows, closing that master's sessions."""
    stub = _Stub(_address(target), security_lib.get_default())
    timeout, wait = CREATE_TIMEOUT_S, None
    if config is not None and config.operation_timeout_in_ms > 0:
        # as TF's client under an operation timeout: an unreachable master is waited for
        # until that deadline (DeadlineExceededError); without one it fails at once
        timeout, wait = config.operation_timeout_in_ms / 1000.0, True
    try:
        # as TF 1.15's client: the config's device_filters do not go with the request, so
        # every task of the cluster is cleared
        req = master_pb2.ResetRequest(container=list(containers or []))
        stub.call("Reset", req, timeout, wait_for_ready=wait)
    finally:
        stub.close()


def wait_for_server(target, timeout=30.0):
    """Waits until the master at ``target`` answers ListDevices (a helper for launchers)."""
    stub = _Stub(_address(target), security_lib.get_default())
    end = time.monotonic() + timeout
    try:
        while True:
            try:
                stub.call("ListDevices", master_pb2.ListDevicesRequest(), 5.0)
                return
            except errors.OpError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)
    finally:
        stub.close()

