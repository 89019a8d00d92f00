"""``tf.CriticalSection``: runs a function's ops under a mutex, so executions of the section
(in concurrent ``Session.run`` calls) never interleave.

MutexV2 is a resource holding a lock; MutexLock acquires it (blocking) and outputs a lock
token; the section's ops depend on the token, and ConsumeMutexLock, which runs after them,
releases it. A token dropped unconsumed (a failed step) releases the lock when it is freed.
Locking a section again within the same step raises, as in TF, instead of deadlocking.
"""

import threading

from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape


class MutexResource:
    """The lock of one MutexV2 (in its device's resource manager)."""

    def __init__(self, name):
        self.name = name
        self._lock = threading.Lock()
        self._holder = None  # the step holding the lock

    def acquire(self, step):
        if self._holder is not None and self._holder is step:
            raise errors.InvalidArgumentError(
                None, None, f"Attempting to lock the mutex {self.name} (a CriticalSection) "
                "from a step that already holds it; nested executions of one CriticalSection "
                "would deadlock")
        self._lock.acquire()
        self._holder = step
        return LockToken(self)

    def release(self):
        self._holder = None
        self._lock.release()


class LockToken:
    """A held lock; released by ConsumeMutexLock, or when freed unconsumed."""

    __slots__ = ("_mutex",)

    def __init__(self, mutex):
        self._mutex = mutex

    def release(self):
        m, self._mutex = self._mutex, None
        if m is not None:
            m.release()

    def __del__(self):
        self.release()


def _mutex_factory(ctx):
    from tideflow.ops.queue_ops import resource_name

    container = ctx.op._attrs.get("container") or ""
    name = resource_name(ctx)

    def run():
        m = ctx.resource_mgr.lookup_or_create(container, name, lambda: MutexResource(name))
        if not isinstance(m, MutexResource):
            raise errors.InvalidArgumentError(
                None, ctx.op, f"Shared resource '{name}' is not a mutex (Node '{ctx.op.name}')")
        return m

    return run


def _lock_kernel(mutex, *, step):
    if not isinstance(mutex, MutexResource):
        raise errors.InvalidArgumentError(None, None, "MutexLock: the input is not a mutex")
    return mutex.acquire(step)


def _consume_kernel(mutex_lock):
    if not isinstance(mutex_lock, LockToken):
        raise errors.InvalidArgumentError(None, None,
                                          "ConsumeMutexLock: the input is not a mutex lock")
    mutex_lock.release()


op_registry.declare(
    "MutexV2", outputs=["resource: resource"],
    attrs=["container: string = ''", "shared_name: string = ''"],
    shape=lambda op: [TensorShape([])], kernel_factory=_mutex_factory, stateful=True,
    differentiable=False,
)
op_registry.declare(
    "MutexLock", inputs=["mutex: resource"], outputs=["mutex_lock: variant"],
    shape=lambda op: [TensorShape([])], kernel=_lock_kernel, stateful=True,
    differentiable=False,
)
op_registry.declare(
    "ConsumeMutexLock", inputs=["mutex_lock: variant"], outputs=[], shape=lambda op: [],
    kernel=_consume_kernel, stateful=True, differentiable=False,
)


class CriticalSection:
    """Serializes the executions of functions run through ``execute``."""

    def __init__(self, name=None, shared_name=None, critical_section_def=None, import_scope=None):
        if critical_section_def is not None:
            raise NotImplementedError("CriticalSection: critical_section_def is not supported")
        with ops.name_scope(name, "CriticalSection", []) as scope:
            self._name = scope.rstrip("/")
            self._handle = ops.apply_op(
                "MutexV2", [], {"shared_name": shared_name or "",
                                "container": ops.get_default_graph()._container or ""},
                name="mutex")._outputs[0]

    @property
    def name(self):
        return self._name

    def execute(self, fn, exclusive_resource_access=True, name=None):
        """Runs ``fn()``'s ops while holding the section's lock; returns its results."""
        from tideflow.framework import nest
        from tideflow.ops.array_ops import identity
        from tideflow.ops.control_flow_ops import no_op

        with ops.name_scope(name, "critical_section_execute", []):
            with ops.colocate_with(self._handle):
                lock = ops.apply_op("MutexLock", [self._handle])._outputs[0]
            with ops.control_dependencies([lock]):
                result = fn()
            flat = [x for x in nest.flatten(result)
                    if isinstance(x, (ops.Tensor, ops.Operation))]
            with ops.control_dependencies(flat):
                consume = ops.apply_op("ConsumeMutexLock", [lock])

            def after(x):
                with ops.control_dependencies([consume]):
                    if isinstance(x, ops.Tensor):
                        return identity(x)
                    if isinstance(x, ops.Operation):
                        return no_op()
                    return x

            if result is None:
                return consume
            return nest.map_structure(after, result)
