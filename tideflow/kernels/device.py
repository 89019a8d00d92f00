"""Devices and their resource managers: where kernels run and where variables and queues live."""

import os
import re
import threading

import numpy as np

from tideflow.framework import errors

_CONTAINER_NAME = re.compile(r"[A-Za-z0-9.][A-Za-z0-9.\-/]*")


class ResourceMgr:
    """Named resources (variables, queues, accumulators) in containers, as TF's ResourceMgr."""

    DEFAULT_CONTAINER = "localhost"

    def __init__(self):
        self._lock = threading.Lock()
        self._containers = {}

    def lookup(self, container, name):
        with self._lock:
            c = self._containers.get(container or self.DEFAULT_CONTAINER)
            r = None if c is None else c.get(name)
        if r is None:
            raise errors.NotFoundError(
                None, None, f"Resource {container or self.DEFAULT_CONTAINER}/{name} does not exist."
            )
        return r

    def lookup_or_create(self, container, name, creator):
        with self._lock:
            c = self._containers.get(container or self.DEFAULT_CONTAINER)
            if c is None:
                if container and not _CONTAINER_NAME.fullmatch(container):
                    # TF 1.15's rule: a letter, digit or dot, then those, '-' or '/' (no '_')
                    raise errors.InvalidArgumentError(
                        None, None, f"container contains invalid characters: {container}")
                c = self._containers[container or self.DEFAULT_CONTAINER] = {}
            r = c.get(name)
            if r is None:
                r = creator()
                c[name] = r
            return r

    def delete(self, container, name):
        with self._lock:
            c = self._containers.get(container or self.DEFAULT_CONTAINER, {})
            c.pop(name, None)

    def cleanup(self, container):
        with self._lock:
            removed = self._containers.pop(container or self.DEFAULT_CONTAINER, {})
        for r in removed.values():
            close = getattr(r, "close_resource", None)
            if close is not None:
                close()

    def clear(self):
        with self._lock:
            removed = self._containers
            self._containers = {}
        for c in removed.values():
            for r in c.values():
                close = getattr(r, "close_resource", None)
                if close is not None:
                    close()

    def containers(self):
        with self._lock:
            return list(self._containers)


class Device:
    """One device of a process: its full name, type, array module and resources."""

    def __init__(self, name, device_type, index, xp=np, memory_limit=0, description=""):
        self.name = name  # e.g. /job:localhost/replica:0/task:0/device:CPU:0
        self.device_type = device_type
        self.index = index
        self.xp = xp
        self.resource_mgr = ResourceMgr()
        self.memory_limit = memory_limit
        self.description = description
        # changes whenever a device of this name is recreated, as TF's incarnation
        self.incarnation = int.from_bytes(os.urandom(8), "little") >> 1
        self.is_host = xp is np

    def to_device(self, value):
        """``value`` (a host array) as this device's array; host devices take it as is."""
        if self.is_host or not isinstance(value, np.ndarray) or value.dtype == object:
            return value
        return self.xp.asarray(value)

    def __repr__(self):
        return f"<Device {self.name}>"


def to_host(value):
    """A device array copied to a NumPy array (NumPy values pass through)."""
    if type(value) is np.ndarray:
        return value
    get = getattr(value, "get", None)
    if get is not None and type(value).__module__.startswith("cupy"):
        return get()
    return value


_GPU_INFO = None
_GPU_LOCK = threading.Lock()


def gpu_info():
    """(cupy module, [(name, compute capability, memory bytes)]) or (None, []) without CUDA.

    CuPy is optional: it is imported on first use, and any failure (no module, no driver, no
    device) means no GPUs.
    """
    global _GPU_INFO
    if _GPU_INFO is not None:
        return _GPU_INFO
    with _GPU_LOCK:
        if _GPU_INFO is None:
            info = (None, [])
            try:
                import cupy

                n = cupy.cuda.runtime.getDeviceCount()
                gpus = []
                for i in range(n):
                    props = cupy.cuda.runtime.getDeviceProperties(i)
                    name = props.get("name", b"GPU")
                    name = name.decode() if isinstance(name, bytes) else str(name)
                    cc = (int(props.get("major", 0)), int(props.get("minor", 0)))
                    gpus.append((name, cc, int(props.get("totalGlobalMem", 0))))
                if gpus:
                    info = (cupy, gpus)
            except Exception:  # noqa: BLE001 - any CUDA/CuPy failure means "no GPU"
                info = (None, [])
            _GPU_INFO = info
    return _GPU_INFO


CPU_MEMORY_LIMIT = 268435456  # what TF reports for a CPU device


XLA_CPU_MEMORY_LIMIT = 17179869184  # what TF 1.15 reports for its XLA_CPU device


def _task_of(name):
    return name.rsplit("/device:", 1)[0]


def listed_devices(devices):
    """``devices`` as TF 1.15 lists them: after each task's CPUs, the ``XLA_CPU:0`` device its
    CPU build registers beside them (listed only: no op is placed on it here)."""
    out = []
    for i, d in enumerate(devices):
        out.append(d)
        following = devices[i + 1] if i + 1 < len(devices) else None
        if d.device_type == "CPU" and (following is None or following.device_type != "CPU"
                                       or _task_of(following.name) != _task_of(d.name)):
            out.append(Device(f"{_task_of(d.name)}/device:XLA_CPU:0", "XLA_CPU", 0,
                              memory_limit=XLA_CPU_MEMORY_LIMIT,
                              description="device: XLA_CPU device"))
    return out


def local_devices(job="localhost", replica=0, task=0, cpu_count=1, gpu_count=None):
    """The devices of a local process: ``cpu_count`` CPUs and up to ``gpu_count`` GPUs
    (all visible CUDA devices when None; none without CuPy)."""
    prefix = f"/job:{job}/replica:{replica}/task:{task}"
    devs = [Device(f"{prefix}/device:CPU:{i}", "CPU", i, memory_limit=CPU_MEMORY_LIMIT)
            for i in range(max(1, cpu_count))]
    if gpu_count != 0:
        cupy, gpus = gpu_info()
        if gpu_count is not None:
            gpus = gpus[:gpu_count]
        for i, (name, cc, mem) in enumerate(gpus):
            desc = f"device: {i}, name: {name}, compute capability: {cc[0]}.{cc[1]}"
            devs.append(Device(f"{prefix}/device:GPU:{i}", "GPU", i, xp=_GpuModule(cupy, i),
                               memory_limit=mem, description=desc))
    return devs


class _GpuModule:
    """CuPy, with every call made on one CUDA device (kernels look up functions by name)."""

    def __init__(self, cupy, index):
        self._cupy = cupy
        self._index = index

    def __getattr__(self, name):
        fn = getattr(self._cupy, name)
        if not callable(fn) or isinstance(fn, type):
            return fn
        cupy, index = self._cupy, self._index

        def on_device(*args, **kwargs):
            with cupy.cuda.Device(index):
                return fn(*args, **kwargs)

        on_device.__name__ = name
        return on_device


class KernelContext:
    """What a kernel may know about its node, bound once per plan: op, device, state."""

    __slots__ = ("device", "op", "session", "session_state")

    def __init__(self, op, device, session_state, session):
        self.op = op
        self.device = device
        self.session_state = session_state
        self.session = session

    @property
    def name(self):
        return self.op.name

    @property
    def resource_mgr(self):
        return self.device.resource_mgr

    @property
    def xp(self):
        return self.device.xp

    def attr(self, name):
        return self.op._attrs[name]

    def node_state(self, key, factory):
        """Per-session state of this node that outlives plans (e.g. a random generator)."""
        op = self.op
        # (a tf.data function's op names are its own: the function's name qualifies them)
        k = (getattr(op._graph, "_state_prefix", "") + op.name, key)
        s = self.session_state.get(k)
        if s is None:
            s = self.session_state.setdefault(k, factory())
        return s
