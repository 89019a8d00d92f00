"""``tf.train.Server``: one task of a cluster, hosting its master and worker on one gRPC port
bound to exactly the address the cluster spec gives the task."""

import concurrent.futures
import threading
import weakref

from tideflow.distributed import grpc_services
from tideflow.distributed import security as security_lib
from tideflow.distributed import transport as tp
from tideflow.distributed.cluster import ClusterSpec, ServerDef, make_server_def
from tideflow.distributed.master import Master
from tideflow.distributed.worker import Worker
from tideflow.framework import errors
from tideflow.framework.device import DeviceSpec

_SERVER_THREADS = 256  # blocking RunGraph/RecvTensor calls each hold one

# {address: (master, security)} of the servers of this process that are serving: a
# ``grpc://`` session to one of these addresses calls the master directly (grpc_session.py)
_LOCAL_MASTERS = {}
_LOCAL_LOCK = threading.Lock()


# the servers of this process that were started and not stopped
_LIVE = weakref.WeakSet()
_EXIT_HOOK = []


def _stop_servers_at_exit():
    # before the interpreter joins its thread pools: a step still blocked in a server (a
    # queue or accumulator wait of a session never closed) is cancelled, so the process
    # exits instead of waiting on it forever
    for server in list(_LIVE):
        try:
            server.stop(0)
        except Exception:  # noqa: BLE001, S110 - shutting down anyway
            pass


def _watch_for_exit(server):
    with _LOCAL_LOCK:
        _LIVE.add(server)
        if not _EXIT_HOOK:
            _EXIT_HOOK.append(True)
            # threading's own exit hooks run before it joins non-daemon threads (the thread
            # pools'), newest first: registered after concurrent.futures', this one runs first
            register = getattr(threading, "_register_atexit", None)
            if register is not None:
                register(_stop_servers_at_exit)


def local_master(address):
    """``(master, security)`` of the serving server of this process at ``address``, or None."""
    return _LOCAL_MASTERS.get(address)


def split_address(address):
    """``(host, port)`` of ``host:port`` (``[v6]:port`` too)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        # TF's GrpcServer::Init error for a task address without a port
        raise errors.InvalidArgumentError(
            None, None, f'Could not parse port for local server from "{address}".')
    return host, int(port)


class Server:
    """An in-process server of one task: ``Server(cluster, job_name, task_index)``.

    ``server_or_cluster_def`` is a ``ServerDef``, a ``ClusterSpec``, a ``ClusterDef`` or a dict
    of job name to addresses. ``security`` (a ``security.Security``) turns on TLS and the
    shared token; by default the environment decides (``docs/distributed.md``).
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True, security=None):
        import grpc

        sd = make_server_def(server_or_cluster_def, job_name, task_index, protocol, config)
        if sd.protocol != "grpc":
            # as TF 1.15's NewServer: no factory takes the ServerDef (a ServerDef given
            # without a protocol included; one made from a cluster gets "grpc")
            raise errors.NotFoundError(
                None, None, "No server factory registered for the given ServerDef: "
                f"{sd}\nThe available server factories are: [ GRPC_SERVER ]")
        self._server_def = sd  # as given: an ephemeral port stays 0 here, as TF
        sd = ServerDef()
        sd.CopyFrom(self._server_def)
        self._security = security if security is not None else security_lib.get_default()
        self._job = sd.job_name
        self._task = int(sd.task_index)
        cluster = ClusterSpec(sd.cluster)
        # as TF 1.x's GrpcServer::Init, for a ServerDef naming what its cluster lacks
        if self._job not in cluster.jobs:
            raise errors.InternalError(
                None, None, f'Job "{self._job}" was not defined in cluster')
        if self._task not in cluster.task_indices(self._job):
            raise errors.InvalidArgumentError(
                None, None, f'Task {self._task} was not defined in job "{self._job}"')
        address = cluster.task_address(self._job, self._task)
        host, port = split_address(address)
        self._server = grpc.server(
            concurrent.futures.ThreadPoolExecutor(_SERVER_THREADS,
                                                  thread_name_prefix="tf-grpc-server"),
            options=tp.SERVER_OPTIONS, maximum_concurrent_rpcs=None)
        bind = f"{host}:{port}"
        try:
            if self._security is not None and self._security.cert_file:
                bound = self._server.add_secure_port(bind, self._security.server_credentials())
            else:
                bound = self._server.add_insecure_port(bind)
        except RuntimeError:
            bound = 0
        if not bound:  # TF's words for a port it cannot bind
            raise errors.UnknownError(None, None, "Could not start gRPC server")
        if port == 0:  # an ephemeral port: the task's address is the bound one
            address = f"{host}:{bound}"
            spec = cluster.as_dict()
            spec[self._job][self._task] = address
            cluster = ClusterSpec(spec)
            sd.cluster.CopyFrom(cluster.as_cluster_def())
        self._address = address
        self._port = int(address.rpartition(":")[2])
        self._cluster = cluster
        self._transport = tp.GrpcTransport(self._security)
        self._worker = Worker(self._job, self._task, self._transport, self._resolve,
                              config=sd.default_session_config)
        self._transport.local[address] = self._worker
        self._master = Master(cluster, (self._job, self._task), self._transport,
                              sd.default_session_config)
        grpc_services.add_services(self._server, self._master, self._worker, self._security)
        self._started = False
        self._stopped = False
        self._lock = threading.Lock()
        if start:
            self.start()

    def _resolve(self, device_name):
        spec = DeviceSpec.from_string(device_name)
        try:
            return self._cluster.task_address(spec.job, spec.task or 0)
        except (ValueError, KeyError, TypeError):
            return None

    @property
    def server_def(self):
        """The ``tf.train.ServerDef`` of this server."""
        return self._server_def

    @property
    def target(self):
        """``grpc://localhost:port``: what ``tf.Session`` takes to use this server's master
        (as TF, ``localhost`` and the bound port, whatever host the cluster names)."""
        return f"grpc://localhost:{self._port}"

    def _local_keys(self):
        return {self._address, f"localhost:{self._port}"}

    def start(self):
        """Starts serving (servers start on construction unless ``start=False``)."""
        with self._lock:
            if self._stopped:
                raise errors.FailedPreconditionError(None, None, "The server was stopped")
            if not self._started:
                self._server.start()
                self._started = True
                _watch_for_exit(self)
                with _LOCAL_LOCK:
                    for key in self._local_keys():
                        _LOCAL_MASTERS[key] = (self._master, self._security)

    def join(self):
        """Blocks until the server stops."""
        self.start()
        self._server.wait_for_termination()

    def stop(self, grace=1.0):
        """Stops serving; running steps are cancelled."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._unregister()
        self._worker.close()
        self._master.close()
        self._server.stop(grace).wait(grace + 5)
        self._transport.close()

    def _unregister(self):
        if not hasattr(self, "_port"):
            return  # __init__ failed before serving
        with _LOCAL_LOCK:
            for key in self._local_keys():
                entry = _LOCAL_MASTERS.get(key)
                if entry is not None and entry[0] is self._master:
                    del _LOCAL_MASTERS[key]

    def __del__(self):
        try:
            self.stop(0)
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task server on an ephemeral localhost port (``job:local``)."""
        return Server({"local": ["localhost:0"]}, job_name="local", task_index=0,
                      protocol="grpc", config=config, start=start)
