"""How masters and workers reach their peers: a gRPC transport (one channel per address,
deadlines on every call, retries only for idempotent calls) and an in-process transport that
calls Worker objects directly, for tests of the master and worker logic without sockets.

Both offer the same methods, each taking the peer's address first.
"""

import collections
import re
import threading
import time

from tideflow.distributed import wire
from tideflow.framework import errors
from tideflow.protos import master_pb2, tideflow_transfer_pb2, worker_pb2

MAX_MESSAGE = -1  # unlimited: big tensors are streamed in chunks anyway
KEEPALIVE_MS = 2000  # ping an idle connection this often; a dead peer fails within seconds
KEEPALIVE_TIMEOUT_MS = 4000
RECV_TIMEOUT_S = 7 * 24 * 3600.0  # a RecvTensor without a step deadline (keepalive guards)
_IDEMPOTENT_RETRIES = 2

# gRPC channel/server options shared by clients and servers
CHANNEL_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE),
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.keepalive_time_ms", KEEPALIVE_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.enable_retries", 0),
    # as TF's channels: a peer that was down is retried within a second once it is up (gRPC's
    # own backoff grows to minutes, so a ps started after its workers would wait that long)
    ("grpc.max_reconnect_backoff_ms", 1000),
    # a streamed response is read by the thread that iterates it (no helper thread started per
    # call, no handoff per message); cancel() from another thread still ends it
    ("SingleThreadedUnaryStream", 1),
]
SERVER_OPTIONS = [
    ("grpc.max_send_message_length", MAX_MESSAGE),
    ("grpc.max_receive_message_length", MAX_MESSAGE),
    ("grpc.keepalive_time_ms", KEEPALIVE_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", KEEPALIVE_MS // 2),
    ("grpc.http2.min_recv_ping_interval_without_data_ms", KEEPALIVE_MS // 2),
    ("grpc.http2.max_ping_strikes", 0),
    ("grpc.so_reuseport", 0),
]

WORKER_METHODS = {
    # name: (request class, response class, idempotent)
    "GetStatus": (worker_pb2.GetStatusRequest, worker_pb2.GetStatusResponse, True),
    "CreateWorkerSession": (worker_pb2.CreateWorkerSessionRequest,
                            worker_pb2.CreateWorkerSessionResponse, True),
    "DeleteWorkerSession": (worker_pb2.DeleteWorkerSessionRequest,
                            worker_pb2.DeleteWorkerSessionResponse, True),
    "RegisterGraph": (worker_pb2.RegisterGraphRequest, worker_pb2.RegisterGraphResponse, False),
    "DeregisterGraph": (worker_pb2.DeregisterGraphRequest, worker_pb2.DeregisterGraphResponse,
                        True),
    "RunGraph": (worker_pb2.RunGraphRequest, worker_pb2.RunGraphResponse, False),
    "CleanupGraph": (worker_pb2.CleanupGraphRequest, worker_pb2.CleanupGraphResponse, True),
    "CleanupAll": (worker_pb2.CleanupAllRequest, worker_pb2.CleanupAllResponse, True),
    "RecvTensor": (worker_pb2.RecvTensorRequest, worker_pb2.RecvTensorResponse, False),
}
MASTER_METHODS = {
    "CreateSession": (master_pb2.CreateSessionRequest, master_pb2.CreateSessionResponse, False),
    "ExtendSession": (master_pb2.ExtendSessionRequest, master_pb2.ExtendSessionResponse, False),
    "PartialRunSetup": (master_pb2.PartialRunSetupRequest, master_pb2.PartialRunSetupResponse,
                        False),
    "RunStep": (master_pb2.RunStepRequest, master_pb2.RunStepResponse, False),
    "CloseSession": (master_pb2.CloseSessionRequest, master_pb2.CloseSessionResponse, True),
    "ListDevices": (master_pb2.ListDevicesRequest, master_pb2.ListDevicesResponse, True),
    "Reset": (master_pb2.ResetRequest, master_pb2.ResetResponse, True),
}
TRANSFER_METHODS = {
    "RecvTensorStream": tideflow_transfer_pb2.RecvTensorStreamRequest,
    "RecvTensorsStream": tideflow_transfer_pb2.RecvTensorsRequest,
    "RunGraphStream": worker_pb2.RunGraphRequest,
    "RunStepStream": master_pb2.RunStepRequest,
}
WORKER_SERVICE = "tideflow.WorkerService"
MASTER_SERVICE = "tideflow.MasterService"
TRANSFER_SERVICE = "tideflow.TideflowTransfer"


_CLOSED_AT_CONNECT = re.compile(r"failed to connect to all addresses; last error: "
                                r"UNAVAILABLE: [^\s;]+: Socket closed")


def _plaintext_hint(details, tls):
    """A hint for a plaintext connection a server closed at once: most likely a TLS server.
    ``tls`` None: the environment's settings (those ``tf.Session`` connects with)."""
    # what gRPC says of a TLS server closing a plaintext connection (a killed server says
    # "Connection refused", or "Stream removed (Socket closed)" for a call it was serving)
    if not _CLOSED_AT_CONNECT.search(details):
        return ""
    if tls is None:
        from tideflow.distributed import security

        try:
            sec = security.get_default()
        except (ValueError, TypeError):
            return ""
        tls = sec is not None and sec.tls
    if tls:
        return ""
    return ("; this connection is plaintext: if the server has TLS on, set TIDEFLOW_GRPC_CA "
            "to the CA certificate that signed the server's certificate")


def error_from_rpc(e, address="", tls=None):
    """The OpError of a failed gRPC call (UNAVAILABLE names the peer, and says when the peer
    may be a TLS server that a plaintext channel (``tls`` False) cannot talk to)."""
    import grpc

    code = e.code() if hasattr(e, "code") else grpc.StatusCode.UNKNOWN
    details = (e.details() if hasattr(e, "details") else str(e)) or code.name
    num = code.value[0] if code is not None else errors.UNKNOWN
    if num == errors.OK:
        num = errors.UNKNOWN
    cls = errors.exception_type_from_error_code(num)
    if num == errors.UNAVAILABLE:
        hint = _plaintext_hint(details, tls)
        # name the peer, unless the error already names the task it is about (an error a
        # master relays from one of its workers is about that worker, not the master)
        if address and address not in details and "(task at " not in details:
            details = f"{details} (task at {address})"
        details += hint
    return cls(None, None, details)


class _Pending:
    """A cancellable in-flight call registered with a step's rendezvous."""

    def __init__(self):
        self.cancelled = False
        self.call = None

    def __call__(self):
        self.cancelled = True
        if self.call is not None:
            self.call.cancel()


class _TensorsIterator:
    """Decodes a RecvTensorsStream: ``next`` gives ``(index, array)`` as each tensor is
    complete; at the end of the stream (or on failure) the call leaves ``register``."""

    def __init__(self, messages, pending, register, n, address, tls):
        self._messages = messages
        self._pending = pending
        self._register = register
        self._n = n
        self._address = address
        self._tls = tls
        self._reader = wire.TensorsReader()
        self._ready = collections.deque()
        self._done = False

    def __iter__(self):
        return self

    def __next__(self):
        import grpc

        if self._ready:
            return self._ready.popleft()
        if self._done:
            raise StopIteration
        try:
            for msg in self._messages:
                for meta, buf in self._reader.feed(msg):
                    i = int(meta.index)
                    if not 0 <= i < self._n:
                        raise errors.DataLossError(
                            None, None, f"RecvTensors sent tensor index {i} of {self._n}")
                    self._ready.append((i, wire.array_of(meta, buf)))
                if self._ready:
                    return self._ready.popleft()
            self._reader.close()
        except grpc.RpcError as e:
            self._end()
            if self._pending.cancelled:
                raise errors.CancelledError(None, None, "RecvTensors was cancelled") from None
            raise error_from_rpc(e, self._address, self._tls) from None
        except BaseException:
            self._end()
            if self._pending.cancelled:
                raise errors.CancelledError(None, None, "RecvTensors was cancelled") from None
            raise
        self._end()
        raise StopIteration

    def _end(self):
        if not self._done:
            self._done = True
            if self._register is not None:
                self._register.remove_call(self._pending)


# ------------------------------------------------------------------------------------------
# in-process
# ------------------------------------------------------------------------------------------


def _roundtrip(msg):
    return type(msg).FromString(msg.SerializeToString())


class InProcessTransport:
    """Calls Worker objects registered under addresses; requests and responses are copied
    through their serialized form, tensors through the chunked wire format."""

    def __init__(self, chunk_bytes=wire.CHUNK_BYTES):
        self.workers = {}
        self.chunk_bytes = chunk_bytes
        self.down = set()  # addresses made unreachable (tests)

    def add(self, address, worker):
        self.workers[address] = worker

    def _worker(self, address):
        w = self.workers.get(address)
        if w is None or address in self.down:
            raise errors.UnavailableError(None, None, f"No task is serving at {address}")
        return w

    def _call(self, address, method, request, timeout=None):
        w = self._worker(address)
        fn = getattr(w, method)
        return _roundtrip(fn(_roundtrip(request)))

    def get_status(self, address, timeout=None, wait_for_ready=False):
        return self._call(address, "get_status", worker_pb2.GetStatusRequest(), timeout)

    def create_worker_session(self, address, request, timeout=None):
        return self._call(address, "create_worker_session", request, timeout)

    def delete_worker_session(self, address, request, timeout=None):
        return self._call(address, "delete_worker_session", request, timeout)

    def register_graph(self, address, request, timeout=None):
        return self._call(address, "register_graph", request, timeout)

    def deregister_graph(self, address, request, timeout=None):
        return self._call(address, "deregister_graph", request, timeout)

    def run_graph(self, address, request, timeout=None, arrays=None, small=False):
        w = self._worker(address)
        deadline = None if timeout is None else time.monotonic() + timeout
        local = {}
        resp = w.run_graph(_roundtrip(request), deadline, local)
        msgs = list(wire.response_messages(resp, "recv", local, self.chunk_bytes))
        return wire.read_response(msgs, worker_pb2.RunGraphResponse, "recv", arrays)

    def cleanup_graph(self, address, request, timeout=None):
        return self._call(address, "cleanup_graph", request, timeout)

    def cleanup_all(self, address, request, timeout=None):
        return self._call(address, "cleanup_all", request, timeout)

    def recv_tensor(self, address, step_id, key, bfloat16=False, deadline=None, register=None,
                    small=False):
        w = self._worker(address)
        pending = _Pending()
        if register is not None:
            register.add_call(pending)
        try:
            v = w.recv_tensor_value(step_id, key, deadline, lambda: pending.cancelled)
        finally:
            if register is not None:
                register.remove_call(pending)
        arr, _ = wire.read_tensor(wire.tensor_messages(v, bfloat16, chunk_bytes=self.chunk_bytes))
        return arr

    def recv_tensors(self, address, step_id, keys, bfloat16=(), deadline=None, register=None):
        """Like GrpcTransport.recv_tensors (through the same wire format)."""
        w = self._worker(address)
        pending = _Pending()
        if register is not None:
            register.add_call(pending)

        def messages():
            batches = w.rendezvous.serve_many(step_id, list(keys), deadline,
                                              lambda: pending.cancelled)
            for batch in batches:
                yield from wire.tensors_messages(
                    [(i, v, bool(bfloat16[i]) if bfloat16 else False) for i, v in batch],
                    self.chunk_bytes)

        return _TensorsIterator(messages(), pending, register, len(keys), address, None)


# ------------------------------------------------------------------------------------------
# gRPC
# ------------------------------------------------------------------------------------------


class GrpcTransport:
    """Reaches peers over gRPC; ``local`` maps this process's own address to its Worker,
    which is called directly. ``security`` (security.Security) adds TLS and the token."""

    def __init__(self, security=None, local=None, chunk_bytes=wire.CHUNK_BYTES):
        self.security = security
        self.local = dict(local or {})
        self.chunk_bytes = chunk_bytes
        self._channels = {}
        self._stubs = {}
        self._lock = threading.Lock()
        self._metadata = security.metadata() if security is not None else ()
        self._tls = security is not None and security.tls

    def channel(self, address):
        ch = self._channels.get(address)
        if ch is None:
            with self._lock:
                ch = self._channels.get(address)
                if ch is None:
                    ch = self._channels[address] = make_channel(address, self.security)
        return ch

    def _unary(self, address, service, method, request, timeout, wait_for_ready=False):
        import grpc

        req_cls, resp_cls, idempotent = (WORKER_METHODS if service == WORKER_SERVICE
                                         else MASTER_METHODS)[method]
        call = self._stub(address, f"/{service}/{method}", req_cls, resp_cls)
        deadline = time.monotonic() + timeout
        tries = _IDEMPOTENT_RETRIES + 1 if idempotent and not wait_for_ready else 1
        for attempt in range(tries):
            try:
                return call(request, timeout=max(0.001, deadline - time.monotonic()),
                            metadata=self._metadata, wait_for_ready=wait_for_ready)
            except grpc.RpcError as e:
                retry = (e.code() == grpc.StatusCode.UNAVAILABLE and attempt + 1 < tries
                         and deadline - time.monotonic() > 0.5)
                if not retry:
                    raise error_from_rpc(e, address, self._tls) from None
                time.sleep(0.1 * (attempt + 1))
        raise AssertionError("unreachable")

    def _local_or(self, address, method, request, timeout, rpc, wait_for_ready=False):
        w = self.local.get(address)
        if w is not None:
            fn = getattr(w, method)
            if method == "run_graph":
                return fn(request, time.monotonic() + timeout)
            return fn(request)
        return self._unary(address, WORKER_SERVICE, rpc, request, timeout, wait_for_ready)

    def get_status(self, address, timeout=5.0, wait_for_ready=False):
        return self._local_or(address, "get_status", worker_pb2.GetStatusRequest(), timeout,
                              "GetStatus", wait_for_ready)

    def create_worker_session(self, address, request, timeout=10.0):
        return self._local_or(address, "create_worker_session", request, timeout,
                              "CreateWorkerSession")

    def delete_worker_session(self, address, request, timeout=10.0):
        return self._local_or(address, "delete_worker_session", request, timeout,
                              "DeleteWorkerSession")

    def register_graph(self, address, request, timeout=60.0):
        return self._local_or(address, "register_graph", request, timeout, "RegisterGraph")

    def deregister_graph(self, address, request, timeout=10.0):
        return self._local_or(address, "deregister_graph", request, timeout, "DeregisterGraph")

    def cleanup_graph(self, address, request, timeout=5.0):
        return self._local_or(address, "cleanup_graph", request, timeout, "CleanupGraph")

    def cleanup_all(self, address, request, timeout=60.0):
        return self._local_or(address, "cleanup_all", request, timeout, "CleanupAll")

    def run_graph(self, address, request, timeout, arrays=None, small=False):
        """RunGraph through the streaming variant: big fetched tensors come back chunked
        (decoded into ``arrays`` by index when it is a dict); with ``small`` (every fetched
        value is known to be small), a unary call, which costs less."""
        import grpc

        w = self.local.get(address)
        if w is not None:
            return w.run_graph(request, time.monotonic() + timeout, arrays)
        if small:
            return self._unary(address, WORKER_SERVICE, "RunGraph", request, timeout)
        call = self.channel(address).unary_stream(
            f"/{TRANSFER_SERVICE}/RunGraphStream",
            request_serializer=worker_pb2.RunGraphRequest.SerializeToString)
        try:
            return wire.read_response(call(request, timeout=timeout, metadata=self._metadata),
                                      worker_pb2.RunGraphResponse, "recv", arrays)
        except grpc.RpcError as e:
            raise error_from_rpc(e, address, self._tls) from None

    def recv_tensor(self, address, step_id, key, bfloat16=False, deadline=None, register=None,
                    small=False):
        """The tensor ``key`` of step ``step_id`` from the task at ``address``, streamed (or,
        when it is known to be ``small``, in one unary RecvTensor)."""
        import grpc

        if small and not bfloat16:
            return self._recv_unary(address, step_id, key, deadline, register)
        req = tideflow_transfer_pb2.RecvTensorStreamRequest(
            step_id=step_id, rendezvous_key=key, bfloat16=bfloat16, chunk_bytes=self.chunk_bytes)
        timeout = RECV_TIMEOUT_S if deadline is None else max(0.001, deadline - time.monotonic())
        call = self.channel(address).unary_stream(
            f"/{TRANSFER_SERVICE}/RecvTensorStream",
            request_serializer=tideflow_transfer_pb2.RecvTensorStreamRequest.SerializeToString)
        pending = _Pending()
        it = call(req, timeout=timeout, metadata=self._metadata)
        pending.call = it
        if register is not None:
            register.add_call(pending)
        try:
            arr, _ = wire.read_tensor(it)
            return arr
        except grpc.RpcError as e:
            if pending.cancelled:
                raise errors.CancelledError(None, None, f"RecvTensor {key} was cancelled") from None
            raise error_from_rpc(e, address, self._tls) from None
        finally:
            if register is not None:
                register.remove_call(pending)

    def recv_tensors(self, address, step_id, keys, bfloat16=(), deadline=None, register=None):
        """An iterator over ``(index in keys, array)`` for the tensors ``keys`` of step
        ``step_id`` on the task at ``address``, in the order they are sent there, all in one
        RecvTensorsStream (``bfloat16``: per key). It may end before every key came (the
        step ended there without them). Registered with ``register`` until it ends."""
        req = tideflow_transfer_pb2.RecvTensorsRequest(
            step_id=step_id, rendezvous_key=keys, bfloat16=bfloat16,
            chunk_bytes=self.chunk_bytes)
        timeout = RECV_TIMEOUT_S if deadline is None else max(0.001, deadline - time.monotonic())
        call = self._stream_stub(address, f"/{TRANSFER_SERVICE}/RecvTensorsStream",
                                 tideflow_transfer_pb2.RecvTensorsRequest)
        pending = _Pending()
        pending.call = call(req, timeout=timeout, metadata=self._metadata)
        if register is not None:
            register.add_call(pending)
        return _TensorsIterator(pending.call, pending, register, len(keys), address, self._tls)

    def _stream_stub(self, address, path, req_cls):
        """A unary-stream callable of ``path`` on ``address``'s channel (kept)."""
        key = (address, path)
        fn = self._stubs.get(key)
        if fn is None:
            fn = self._stubs[key] = self.channel(address).unary_stream(
                path, request_serializer=req_cls.SerializeToString)
        return fn

    def _recv_unary(self, address, step_id, key, deadline, register):
        import grpc

        req = worker_pb2.RecvTensorRequest(step_id=step_id, rendezvous_key=key)
        timeout = RECV_TIMEOUT_S if deadline is None else max(0.001, deadline - time.monotonic())
        call = self._stub(address, "/" + WORKER_SERVICE + "/RecvTensor",
                          worker_pb2.RecvTensorRequest, worker_pb2.RecvTensorResponse)
        pending = _Pending()
        fut = call.future(req, timeout=timeout, metadata=self._metadata)
        pending.call = fut
        if register is not None:
            register.add_call(pending)
        try:
            return wire.decode(fut.result().tensor)
        except (grpc.RpcError, grpc.FutureCancelledError) as e:
            if pending.cancelled:
                raise errors.CancelledError(None, None, f"RecvTensor {key} was cancelled") from None
            raise error_from_rpc(e, address, self._tls) from None
        finally:
            if register is not None:
                register.remove_call(pending)

    def _stub(self, address, path, req_cls, resp_cls):
        """A unary callable of ``path`` on ``address``'s channel (kept: creating one costs)."""
        key = (address, path)
        fn = self._stubs.get(key)
        if fn is None:
            fn = self._stubs[key] = self.channel(address).unary_unary(
                path, request_serializer=req_cls.SerializeToString,
                response_deserializer=resp_cls.FromString)
        return fn

    def close(self):
        with self._lock:
            self._stubs.clear()
            chans = list(self._channels.values())
            self._channels.clear()
        for ch in chans:
            ch.close()


def make_channel(address, security=None):
    """A gRPC channel to ``address`` (TLS when ``security`` carries a CA certificate)."""
    import grpc

    address = address.removeprefix("grpc://")
    opts = list(CHANNEL_OPTIONS)
    if security is not None and security.tls:
        opts += security.channel_options()
        return grpc.secure_channel(address, security.channel_credentials(), options=opts)
    return grpc.insecure_channel(address, options=opts)
