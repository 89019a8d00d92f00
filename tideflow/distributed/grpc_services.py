"""Thin gRPC adapters: MasterService, WorkerService and our TideflowTransfer streams call the
plain Master and Worker; errors become gRPC statuses, and the server keeps serving.

Requests arrive as raw bytes and are parsed here, so garbage is INVALID_ARGUMENT with a clear
message rather than gRPC's generic deserialization failure; the shared token (security.py) is
checked on every call.
"""

import logging
import time

from google.protobuf.message import DecodeError

from tideflow.distributed import transport as tp
from tideflow.distributed import wire
from tideflow.framework import errors

log = logging.getLogger("tideflow.distributed")

_MASTER_CALLS = {"CreateSession": "create_session", "ExtendSession": "extend_session",
                 "PartialRunSetup": "partial_run_setup", "RunStep": "run_step",
                 "CloseSession": "close_session", "ListDevices": "list_devices",
                 "Reset": "reset"}
_WORKER_CALLS = {"GetStatus": "get_status", "CreateWorkerSession": "create_worker_session",
                 "DeleteWorkerSession": "delete_worker_session",
                 "RegisterGraph": "register_graph", "DeregisterGraph": "deregister_graph",
                 "RunGraph": "run_graph", "CleanupGraph": "cleanup_graph",
                 "CleanupAll": "cleanup_all", "RecvTensor": "recv_tensor"}
_WITH_DEADLINE = {"run_step", "run_graph", "recv_tensor", "create_session"}


def _status(code_num):
    import grpc

    for c in grpc.StatusCode:
        if c.value[0] == code_num:
            return c
    return grpc.StatusCode.UNKNOWN


def _deadline(context):
    left = context.time_remaining()
    return None if left is None or left > 1e8 else time.monotonic() + left


class _Call:
    """Parses the request, checks the token, calls the plain object, maps errors."""

    def __init__(self, security, name, req_cls):
        self.security = security
        self.name = name
        self.req_cls = req_cls

    def parse(self, raw, context):
        import grpc

        if self.security is not None:
            why = self.security.rejection(context.invocation_metadata())
            if why is not None:
                context.abort(grpc.StatusCode.UNAUTHENTICATED, f"{self.name} refused: {why}")
        try:
            return self.req_cls.FromString(raw)
        except (DecodeError, ValueError, TypeError) as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                          f"{self.name}: malformed {self.req_cls.__name__}: {e}")

    def fail(self, context, e):
        if isinstance(e, errors.OpError):
            context.abort(_status(e.error_code), e.message)
        if isinstance(e, MemoryError):
            context.abort(_status(errors.RESOURCE_EXHAUSTED), f"{self.name}: out of memory")
        log.exception("%s failed", self.name)
        context.abort(_status(errors.INTERNAL), f"{self.name}: {type(e).__name__}: {e}")


def _unary(obj, method, call):
    def handler(raw, context):
        req = call.parse(raw, context)
        try:
            fn = getattr(obj, method)
            if method == "recv_tensor":  # a blocking wait: it ends when the caller goes away
                return fn(req, _deadline(context),
                          lambda: not context.is_active()).SerializeToString()
            if method in _WITH_DEADLINE:
                return fn(req, _deadline(context)).SerializeToString()
            return fn(req).SerializeToString()
        except Exception as e:  # noqa: BLE001 - every failure becomes a status
            call.fail(context, e)

    return handler


def _stream(fn, call):
    def handler(raw, context):
        req = call.parse(raw, context)
        try:
            yield from fn(req, context)
        except Exception as e:  # noqa: BLE001 - every failure becomes a status
            call.fail(context, e)

    return handler


def _identity(b):
    return b


def add_services(server, master, worker, security=None):
    """Adds MasterService, WorkerService and TideflowTransfer (for whichever of ``master`` and
    ``worker`` are given) to a ``grpc.Server``; the process's C heap then keeps freed message
    buffers for reuse (``runtime.allocator.tune_once``)."""
    import grpc

    from tideflow.runtime import allocator

    allocator.tune_once()

    handlers = []
    if master is not None:
        methods = {}
        for rpc, m in _MASTER_CALLS.items():
            req_cls = tp.MASTER_METHODS[rpc][0]
            methods[rpc] = grpc.unary_unary_rpc_method_handler(
                _unary(master, m, _Call(security, rpc, req_cls)),
                request_deserializer=_identity, response_serializer=_identity)
        handlers.append(grpc.method_handlers_generic_handler(tp.MASTER_SERVICE, methods))
    if worker is not None:
        methods = {}
        for rpc, m in _WORKER_CALLS.items():
            req_cls = tp.WORKER_METHODS[rpc][0]
            methods[rpc] = grpc.unary_unary_rpc_method_handler(
                _unary(worker, m, _Call(security, rpc, req_cls)),
                request_deserializer=_identity, response_serializer=_identity)
        handlers.append(grpc.method_handlers_generic_handler(tp.WORKER_SERVICE, methods))
    streams = {}
    if worker is not None:
        def recv_stream(req, context):
            value = worker.recv_tensor_value(req.step_id, req.rendezvous_key, _deadline(context),
                                             lambda: not context.is_active())
            chunk = int(req.chunk_bytes) if req.chunk_bytes > 0 else wire.CHUNK_BYTES
            yield from wire.tensor_messages(value, req.bfloat16,
                                            chunk_bytes=max(64 << 10, min(chunk, 64 << 20)))

        def recv_many(req, context):
            keys = list(req.rendezvous_key)
            bf16 = list(req.bfloat16)
            if bf16 and len(bf16) != len(keys):
                raise errors.InvalidArgumentError(
                    None, None, f"RecvTensors: {len(bf16)} bfloat16 flags for {len(keys)} keys")
            chunk = int(req.chunk_bytes) if req.chunk_bytes > 0 else wire.CHUNK_BYTES
            chunk = max(64 << 10, min(chunk, 64 << 20))
            batches = worker.rendezvous.serve_many(req.step_id, keys, _deadline(context),
                                                   lambda: not context.is_active())
            for batch in batches:
                yield from wire.tensors_messages(
                    [(i, v, bf16[i] if bf16 else False) for i, v in batch], chunk)

        def run_graph_stream(req, context):
            arrays = {}
            resp = worker.run_graph(req, _deadline(context), arrays)
            yield from wire.response_messages(resp, "recv", arrays)

        streams["RecvTensorStream"] = recv_stream
        streams["RecvTensorsStream"] = recv_many
        streams["RunGraphStream"] = run_graph_stream
    if master is not None:
        def run_step_stream(req, context):
            arrays = {}
            resp = master.run_step(req, _deadline(context), arrays)
            yield from wire.response_messages(resp, "tensor", arrays)

        streams["RunStepStream"] = run_step_stream
    if streams:
        methods = {}
        for rpc, fn in streams.items():
            call = _Call(security, rpc, tp.TRANSFER_METHODS[rpc])
            methods[rpc] = grpc.unary_stream_rpc_method_handler(
                _stream(fn, call), request_deserializer=_identity, response_serializer=_identity)
        handlers.append(grpc.method_handlers_generic_handler(tp.TRANSFER_SERVICE, methods))
    server.add_generic_rpc_handlers(handlers)
