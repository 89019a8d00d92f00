"""Devices and their resource managers: where kernels run and where variables and queues live."""

import threading

import numpy as np

from tideflow.framework import errors


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
            c = self._containers.setdefault(container or self.DEFAULT_CONTAINER, {})
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

    def __init__(self, name, device_type, index, xp=np):
        self.name = name  # e.g. /job:localhost/replica:0/task:0/device:CPU:0
        self.device_type = device_type
        self.index = index
        self.xp = xp
        self.resource_mgr = ResourceMgr()
        self.memory_limit = 0

    def __repr__(self):
        return f"<Device {self.name}>"


def local_devices(job="localhost", replica=0, task=0, cpu_count=1):
    """The devices of a local process: ``cpu_count`` CPUs (GPUs join in the devices issue)."""
    prefix = f"/job:{job}/replica:{replica}/task:{task}"
    return [Device(f"{prefix}/device:CPU:{i}", "CPU", i) for i in range(max(1, cpu_count))]


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
        k = (self.op.name, key)
        s = self.session_state.get(k)
        if s is None:
            s = self.session_state.setdefault(k, factory())
        return s
