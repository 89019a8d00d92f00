"""The client side of ``tf.Session("grpc://host:port")``: ships the graph to the master
(CreateSession, then ExtendSession with only the new nodes) and runs steps with RunStep,
fetched tensors streaming back in chunks."""

import threading
import time

from tideflow.distributed import security as security_lib
from tideflow.distributed import transport as tp
from tideflow.distributed import wire
from tideflow.framework import errors, graph_io
from tideflow.protos import master_pb2

CREATE_TIMEOUT_S = 120.0
CALL_TIMEOUT_S = 60.0
STEP_TIMEOUT_S = 7 * 24 * 3600.0  # no step deadline: keepalive finds a dead master


def _address(target):
    if isinstance(target, bytes):
        target = target.decode()
    if not target.startswith("grpc://"):
        raise ValueError(f"Not a grpc:// target: {target!r}")
    return target[len("grpc://"):]


class _Stub:
    """Calls of one master over a channel, with the token and deadlines."""

    def __init__(self, address, security=None):
        self.address = address
        self.channel = tp.make_channel(address, security)
        self.metadata = security.metadata() if security is not None else ()
        self._calls = {}
        self._run_step_stream = self.channel.unary_stream(
            f"/{tp.TRANSFER_SERVICE}/RunStepStream",
            request_serializer=master_pb2.RunStepRequest.SerializeToString)

    def call(self, method, request, timeout=CALL_TIMEOUT_S):
        import grpc

        fn = self._calls.get(method)
        if fn is None:
            req_cls, resp_cls, _ = tp.MASTER_METHODS[method]
            fn = self._calls[method] = self.channel.unary_unary(
                f"/{tp.MASTER_SERVICE}/{method}", request_serializer=req_cls.SerializeToString,
                response_deserializer=resp_cls.FromString)
        try:
            return fn(request, timeout=timeout, metadata=self.metadata)
        except grpc.RpcError as e:
            raise tp.error_from_rpc(e, self.address) from None

    def run_step(self, request, timeout, arrays=None, small=False):
        """RunStep: streamed, so that big fetched values come back in chunks; with ``small``
        (every fetched value is known to be small) one unary call, which costs less."""
        import grpc

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

    # -- the graph ---------------------------------------------------------------------
    def _ensure_graph(self):
        g = self._graph
        if self._handle is not None and g._version == self._sent and (
                g._structure_version == self._structure):
            return
        with self._lock:
            if self._handle is not None and g._structure_version != self._structure:
                # existing nodes were rewritten: the master needs the whole graph again
                self._close_master_session()
            if self._handle is None:
                version = g._version
                req = master_pb2.CreateSessionRequest(
                    graph_def=graph_io.graph_to_graph_def(g), target=self._stub.address)
                if self._config is not None:
                    req.config.CopyFrom(self._config)
                resp = self._stub.call("CreateSession", req, CREATE_TIMEOUT_S)
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

    def _close_master_session(self):
        if self._handle is not None:
            try:
                self._stub.call("CloseSession", master_pb2.CloseSessionRequest(
                    session_handle=self._handle), 10.0)
            except errors.OpError:
                pass
            self._handle = None

    # -- steps -------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        from tideflow.runtime import session as session_lib

        s = self._session
        key = session_lib._fetch_key(fetches)
        handler = s._handlers.get(key) if key is not None else None
        if handler is None:
            handler = session_lib._FetchHandler(self._graph, fetches)
            if key is not None:
                s._handlers[key] = handler
        req = master_pb2.RunStepRequest()
        if feed_dict:
            for k, value in feed_dict.items():
                tensors, splitter = session_lib._feed_tensors(self._graph, k)
                values = [value] if splitter is None else splitter(value)
                for t, v in zip(tensors, values):
                    if not self._graph.is_feedable(t):
                        raise ValueError(f"Tensor {t} may not be fed.")
                    nt = req.feed.add(name=t.name)
                    wire.encode(session_lib._convert_feed(t, v), nt.tensor)
        req.fetch.extend(t.name for t in handler.tensors)
        req.target.extend(op.name for op in handler.targets)
        timeout = STEP_TIMEOUT_S
        if options is not None:
            req.options.CopyFrom(options)
            if options.timeout_in_ms > 0:
                timeout = options.timeout_in_ms / 1000.0 + 5.0
        self._ensure_graph()
        req.session_handle = self._handle
        arrays = {}  # streamed (big) tensors, decoded in place
        small = getattr(handler, "_wire_small", None)
        if small is None:
            small = handler._wire_small = all(wire.known_small(t) for t in handler.tensors)
        resp = self._stub.run_step(req, timeout, arrays, small)
        if run_metadata is not None:
            run_metadata.CopyFrom(resp.metadata)
        return handler.builder([arrays[i] if i in arrays else _value(nt.tensor)
                                for i, nt in enumerate(resp.tensor)])

    def make_callable(self, fetches, feed_list=None):
        feeds = list(feed_list or [])

        def call(*args, **kwargs):
            if len(args) != len(feeds):
                raise TypeError(f"expected {len(feeds)} feed values, got {len(args)}")
            return self.run(fetches, dict(zip(feeds, args)))

        return call

    def list_devices(self):
        from tideflow.runtime.device_attributes import DeviceAttributes

        self._ensure_graph()
        resp = self._stub.call("ListDevices", master_pb2.ListDevicesRequest(
            session_handle=self._handle))
        return [DeviceAttributes(d.name, d.device_type, d.memory_limit, d.incarnation)
                for d in list(resp.local_device) + list(resp.remote_device)]

    def close(self):
        with self._lock:
            self._close_master_session()
        self._stub.close()


def reset(target, containers=None, config=None):
    """``Session.reset``: clears ``containers`` (all when None) on every task of the cluster
    the master at ``target`` knows, closing that master's sessions."""
    stub = _Stub(_address(target), security_lib.get_default())
    try:
        req = master_pb2.ResetRequest(container=list(containers or []))
        if config is not None:
            req.device_filters.extend(config.device_filters)
        stub.call("Reset", req, CREATE_TIMEOUT_S)
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

