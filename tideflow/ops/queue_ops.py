"""Queue resources and the queue ops (``FIFOQueueV2``, ``QueueEnqueueV2``, ``QueueDequeueManyV2``...).

A queue lives in its device's resource manager. As in TF, every blocking request (enqueue,
dequeue, close) is an *attempt* appended to the queue's enqueue or dequeue list; after any change
the lists are retried in order until nothing moves, so a waiting ``dequeue_many`` takes elements
as they arrive (it works with a capacity below its batch size), and a plain ``close`` takes
effect only after the enqueues queued before it. A blocked op waits in short slices and gives up
with CancelledError when its session closes or its step is cancelled, or DeadlineExceededError
at the step's deadline.

An attempt whose step is dead (cancelled, or past its deadline) is never run: whoever retries
the lists (an enqueue, say) fails and drops it, so it takes nothing even when its own thread has
not woken yet; and an op that finds its step dead after its attempt completed puts back what it
took. An element arriving as a step dies stays in the queue or goes to a live step.
"""

import collections
import heapq
import itertools
import sys
import threading
import time

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar

NO_PROGRESS, PROGRESS, COMPLETE = 0, 1, 2
_WAIT_SLICE = 0.05  # how often a blocked op looks at its session and deadline
_unique_ids = itertools.count()


class Attempt:
    """One blocking request: ``run(attempt)`` is retried under the lock until COMPLETE."""

    __slots__ = ("count", "done", "error", "partial", "result", "run", "step", "taken",
                 "what")

    def __init__(self, count, run):
        self.count = count
        self.run = run
        self.done = False
        self.error = None
        self.result = None
        self.partial = None
        self.step = None  # the step of the op that waits (None: never dies)
        self.taken = None  # what a completed dequeue took (put back if its step died)
        self.what = ""


def step_error(step, what):
    """The error of a dead ``step`` (cancelled, or past its deadline), else None."""
    if step is None:
        return None
    if step.cancelled.is_set():
        return errors.CancelledError(None, None, f"{what} operation was cancelled")
    if step.deadline is not None and time.monotonic() >= step.deadline:
        return errors.DeadlineExceededError(
            None, None, "Timed out waiting for notification")
    return None


class BlockingResource:
    """A resource whose ops may block: a condition, attempt lists and the waiting loop."""

    def __init__(self):
        self._cond = threading.Condition(threading.Lock())
        self._destroyed = False

    # whether a list's attempts complete in the order they came (a FIFO: one that cannot
    # complete holds back those after it) or each as soon as it can
    _in_order = True

    def _flush(self):
        """Retries the pending attempts (lock held) until none makes progress."""
        progress = True
        while progress:
            progress = False
            for attempts, _ in self._pending():
                progress = self._try(attempts) or progress
        self._cond.notify_all()

    def _try(self, attempts):
        """One pass over ``attempts``; whether any made progress. A completed attempt leaves
        the list; one that made partial progress (PROGRESS) ends the pass, as does, in order,
        one that made none."""
        progress = False
        if self._in_order:
            while attempts:
                r = self._run_live(attempts[0])
                if r == NO_PROGRESS:
                    break
                progress = True
                if r == PROGRESS:
                    break
                attempts.popleft().done = True
            return progress
        for a in list(attempts):
            if self._run_live(a) != NO_PROGRESS:
                attempts.remove(a)
                a.done = True
                progress = True
        return progress

    def _abort(self, attempts, attempt, err):
        """Gives up ``attempt`` (lock held) with ``err``; subclasses may undo partial work."""
        try:
            attempts.remove(attempt)
        except ValueError:
            pass
        self._drop(attempt, err)
        self._flush()

    def _drop(self, attempt, err):
        """Ends ``attempt`` (lock held, already off its list) with ``err``."""
        attempt.error = err
        attempt.done = True

    def _put_back(self, taken):
        """Returns what a completed attempt of a dead step took (lock held)."""
        raise NotImplementedError

    def _submit(self, attempts, attempt, step, what):
        """Appends ``attempt``, runs what can run and blocks until it completes or is aborted."""
        attempt.step = step
        attempt.what = what
        with self._cond:
            attempts.append(attempt)
            self._flush()
            wait_for(self._cond, attempt, step, what,
                     lambda err: self._abort(attempts, attempt, err))
            if attempt.error is None and attempt.taken is not None:
                err = step_error(step, what)
                if err is not None:
                    # completed as its step died: the step fails, so what it took goes back
                    self._put_back(attempt.taken)
                    attempt.taken = None
                    attempt.error = err
                    self._flush()
        if attempt.error is not None:
            raise attempt.error
        return attempt.result

    def _defer(self, attempts, attempt, step, what, op=None):
        """Like ``_submit`` for an op without outputs, but one that cannot complete yet leaves
        its attempt queued and the wait to the end of its step. A serial plan runs a step's ops
        one at a time, so a Stage into a full area must not wait there for an Unstage the same
        step runs later (TF's executor runs them at once and both finish)."""
        attempt.step = step
        attempt.what = what
        with self._cond:
            attempts.append(attempt)
            self._flush()
            if not attempt.done:
                def finish():
                    with self._cond:
                        wait_for(self._cond, attempt, step, what,
                                 lambda err: self._abort(attempts, attempt, err))
                    if attempt.error is not None:
                        if op is not None and attempt.error._op is None:
                            attempt.error._op = op  # raised after the plan: name the op
                        raise attempt.error

                if step.deferred is None:
                    step.deferred = []
                step.deferred.append(finish)
                return
        if attempt.error is not None:
            raise attempt.error

    def _run_live(self, attempt):
        """``attempt.run(attempt)`` when its step is alive; a dead step's attempt is ended with
        the step's error instead (its caller drops it from its list): COMPLETE either way."""
        err = step_error(attempt.step, attempt.what)
        if err is not None:
            self._drop(attempt, err)
            return COMPLETE
        return attempt.run(attempt)

    def _pending(self):
        """The attempt lists, each with the name of its kind of operation."""
        return ()

    def close_resource(self):
        """Called when the resource manager drops this resource (its session closed): every
        blocked op fails with CancelledError, as when its step is cancelled."""
        with self._cond:
            self._destroyed = True
            for attempts, what in self._pending():
                for a in attempts:
                    a.error = errors.CancelledError(None, None, f"{what} operation was cancelled")
                    a.done = True
                attempts.clear()
            self._cond.notify_all()


def wait_for(cond, attempt, step, what, abort):
    """Waits (``cond``'s lock held) until ``attempt.done``; aborts it on cancellation or deadline.

    Never waits longer than a short slice at a time, so a closed session or an expired
    deadline is seen promptly even when nobody notifies.
    """
    while not attempt.done:
        timeout = _WAIT_SLICE
        if step is not None:
            if step.cancelled.is_set():
                abort(errors.CancelledError(None, None, f"{what} operation was cancelled"))
                return
            if step.deadline is not None:
                left = step.deadline - time.monotonic()
                if left <= 0:
                    abort(errors.DeadlineExceededError(
                        None, None, "Timed out waiting for notification"))
                    return
                timeout = min(timeout, left)
        cond.wait(timeout)


def _shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _as_component(value, dtype):
    """A queue component as an owned NumPy array of the component's dtype."""
    if dtype == dtypes.string:
        arr = np.asarray(value, dtype=object)
        return arr.copy() if arr is value else arr
    return np.array(value, dtype=dtype.as_numpy_dtype, copy=True)


# ------------------------------------------------------------------------------------------
# queues
# ------------------------------------------------------------------------------------------


class QueueResource(BlockingResource):
    """A FIFO queue of tuples of arrays (the base of the other queue kinds)."""

    kind = "FIFOQueue"
    reports_missing = True
    op_types = ("FIFOQueueV2",)
    allows_partial_shapes = False

    def __init__(self, name, component_types, shapes, capacity):
        super().__init__()
        self.name = name
        self.dtypes = list(component_types)
        self.shapes = [tuple(s.as_list()) for s in shapes] if shapes else []
        self.capacity_attr = capacity
        self.capacity = capacity if capacity >= 0 else sys.maxsize
        self.closed = False
        self._enq = collections.deque()
        self._deq = collections.deque()
        self._init_storage()

    # -- storage (FIFO) -----------------------------------------------------------------------
    def _init_storage(self):
        self._items = collections.deque()

    def size(self):
        return len(self._items)

    def _push(self, elem):
        self._items.append(elem)

    def _pop(self):
        return self._items.popleft()

    def _restore(self, elems):
        """Puts back elements taken by an attempt that did not complete."""
        self._items.extendleft(reversed(elems))

    def _available(self, size):
        """How many elements a dequeue may take now."""
        return size

    # -- validation ---------------------------------------------------------------------------
    def matches(self, op):
        """Raises InvalidArgumentError unless ``op`` asks for a queue like this one."""
        attrs = op._attrs
        if op.type not in self.op_types:
            raise errors.InvalidArgumentError(
                None, op, f"Shared queue '{self.name}' has type '{self.op_types[0]}' that does "
                f"not match type of Node '{op.name}': {op.type}")
        if attrs["capacity"] != self.capacity_attr:
            raise errors.InvalidArgumentError(
                None, op, f"Shared queue '{self.name}' has capacity {self.capacity_attr} but "
                f"requested capacity was {attrs['capacity']}")
        types = list(attrs["component_types"])
        if types != self.dtypes:
            raise errors.InvalidArgumentError(
                None, op, f"Shared queue '{self.name}' has component types "
                f"{[d.name for d in self.dtypes]} but requested component types were "
                f"{[d.name for d in types]}")
        shapes = [tuple(s.as_list()) for s in attrs["shapes"]]
        if shapes != self.shapes:
            raise errors.InvalidArgumentError(
                None, op, f"Shared queue '{self.name}' has component shapes "
                f"[{', '.join(map(_shape_str, self.shapes))}] but requested component shapes "
                f"were [{', '.join(map(_shape_str, shapes))}]")

    def check_types(self, types, count=None):
        """Raises InvalidArgumentError unless ``types`` are the queue's component types."""
        if count is not None and count != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"Wrong number of components in tuple. Expected {len(self.dtypes)}, "
                f"got {count}")
        if types is None:
            return
        types = list(types)
        if len(types) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"Wrong number of components in tuple. Expected {len(self.dtypes)}, "
                f"got {len(types)}")
        for i, (want, have) in enumerate(zip(self.dtypes, types)):
            if want != have:
                raise errors.InvalidArgumentError(
                    None, None, f"Type mismatch in tuple component {i}. Expected {want.name}, "
                    f"got {have.name}")

    def _check_types(self, values):
        self.check_types(None, len(values))

    def _shape_ok(self, want, have):
        if self.allows_partial_shapes:
            return len(want) == len(have) and all(w is None or w == h for w, h in zip(want, have))
        return tuple(want) == tuple(have)

    def _element(self, values):
        self._check_types(values)
        elem = tuple(_as_component(v, d) for v, d in zip(values, self.dtypes))
        if self.shapes:
            for i, (want, v) in enumerate(zip(self.shapes, elem)):
                if not self._shape_ok(want, v.shape):
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected "
                        f"{_shape_str(want)}, got {_shape_str(v.shape)}")
        return elem

    def _elements(self, values):
        """Splits a batch (enqueue_many) into elements."""
        self._check_types(values)
        batch = [_as_component(v, d) for v, d in zip(values, self.dtypes)]
        for i, v in enumerate(batch):
            if v.ndim == 0:
                raise errors.InvalidArgumentError(
                    None, None, f"Shape must be at least rank 1 but is rank 0 for component {i}")
        n = batch[0].shape[0]
        for i, v in enumerate(batch):
            if self.shapes:
                if v.shape[0] != n or not self._shape_ok(self.shapes[i], v.shape[1:]):
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected "
                        f"{_shape_str((n, *self.shapes[i]))}, got {_shape_str(v.shape)}")
            elif v.shape[0] != n:
                raise errors.InvalidArgumentError(
                    None, None, "All input tensors must have the same size in the 0th "
                    f"dimension. Component {i} has {v.shape[0]}, and should have {n}")
        # v[j, ...] keeps each element an array: a bare bytes scalar would be stacked by
        # NumPy into a fixed-width 'S' array, which drops trailing NUL bytes
        return [tuple(v[j, ...] for v in batch) for j in range(n)]

    def _stack(self, elems):
        """The components of ``elems`` stacked along a new first dimension."""
        out = []
        for i, d in enumerate(self.dtypes):
            if elems:
                out.append(np.stack([e[i] for e in elems]))
            else:
                out.append(np.zeros((0, *self.shapes[i]), dtype=d.as_numpy_dtype))
        return out

    # -- the attempt engine -------------------------------------------------------------------
    def _drop(self, attempt, err):
        if attempt.partial:
            self._restore(attempt.partial)
            attempt.partial = None
        super()._drop(attempt, err)

    def _put_back(self, taken):
        self._restore(taken)

    def _closed_error(self):
        return errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")

    def _insufficient(self, requested, size):
        return errors.OutOfRangeError(
            None, None, f"{self.kind} '{self.name}' is closed and has insufficient elements "
            f"(requested {requested}, current size {size})")

    # -- operations ---------------------------------------------------------------------------
    def enqueue(self, values, step, op=None):
        elem = self._element(values)

        def run(a):
            if self.closed:
                a.error = self._closed_error()
                return COMPLETE
            if self.size() < self.capacity:
                self._push(elem)
                return COMPLETE
            return NO_PROGRESS

        self._put(Attempt(1, run), step, op)

    def enqueue_many(self, values, step, op=None):
        elems = self._elements(values)
        if not elems:
            return
        pos = [0]

        def run(a):
            if self.closed:
                a.error = self._closed_error()
                return COMPLETE
            result = NO_PROGRESS
            while self.size() < self.capacity:
                self._push(elems[pos[0]])
                pos[0] += 1
                result = PROGRESS
                if pos[0] == len(elems):
                    return COMPLETE
            return result

        self._put(Attempt(len(elems), run), step, op)

    def _put(self, attempt, step, op):
        # an enqueue nothing in its step waits on may finish at the step's end, so a full queue
        # that a Dequeue of the same step drains does not stall the serial plan (TF runs both)
        if op is not None and step is not None and not op._control_outputs:
            self._defer(self._enq, attempt, step, "Enqueue", op)
        else:
            self._submit(self._enq, attempt, step, "Enqueue")

    def dequeue(self, step):
        def run(a):
            size = self.size()
            if self.closed and size == 0:
                a.error = self._insufficient(1, 0)
                return COMPLETE
            if self._available(size) > 0:
                elem = self._pop()
                a.result = list(elem)
                a.taken = [elem]
                return COMPLETE
            return NO_PROGRESS

        return self._submit(self._deq, Attempt(1, run), step, "Dequeue")

    def dequeue_many(self, n, step, allow_small_batch=False):
        if n < 0:  # the kernel's check, before the queue's
            raise errors.InvalidArgumentError(
                None, None, f"{'DequeueUpToOp' if allow_small_batch else 'DequeueManyOp'} "
                f"requested {n} < 0 elements")
        if not self.shapes:
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the components "
                "to have specified shapes.")
        if n == 0:
            return self._stack([])

        def run(a):
            size = self.size()
            remaining = a.count - len(a.partial)
            if self.closed and size < remaining:
                # as TF: what was still missing and the size before the partial went back
                # (a PriorityQueue reports the whole request and its whole size)
                missing = (remaining, size) if self.reports_missing else None
                if a.partial:
                    self._restore(a.partial)
                    a.partial = []
                if allow_small_batch and self.size() > 0:
                    a.count = self.size()
                else:
                    if allow_small_batch and self._enq:
                        return PROGRESS  # pending enqueues finish (with an error) first
                    a.error = self._insufficient(*(missing or (a.count, self.size())))
                    return COMPLETE
            result = NO_PROGRESS
            avail = self._available(self.size())
            while avail > 0:
                a.partial.append(self._pop())
                avail -= 1
                result = PROGRESS
                if len(a.partial) == a.count:
                    a.result = self._stack(a.partial)
                    a.taken = a.partial
                    a.partial = None
                    return COMPLETE
            return result

        attempt = Attempt(n, run)
        attempt.partial = []
        return self._submit(self._deq, attempt, step, "Dequeue")

    def close(self, cancel_pending_enqueues, step):
        if cancel_pending_enqueues:
            with self._cond:
                self.closed = True
                for a in list(self._enq):
                    a.error = errors.CancelledError(None, None, "Enqueue operation was cancelled")
                    a.done = True
                self._enq.clear()
                self._flush()
            return

        def run(a):
            if self.closed:
                a.error = errors.CancelledError(None, None, f"Queue '{self.name}' is already closed.")
            else:
                self.closed = True
            return COMPLETE

        self._submit(self._enq, Attempt(0, run), step, "Close")

    def _pending(self):
        return ((self._enq, "Enqueue"), (self._deq, "Dequeue"))

    def close_resource(self):
        super().close_resource()
        with self._cond:
            self.closed = True


class PaddingFIFOQueueResource(QueueResource):
    """A FIFO queue whose dequeue_many pads each component to the batch's largest shape."""

    kind = "PaddingFIFOQueue"
    op_types = ("PaddingFIFOQueueV2",)
    allows_partial_shapes = True

    def _stack(self, elems):
        out = []
        for i, d in enumerate(self.dtypes):
            want = self.shapes[i]
            dims = [w if w is not None else max((e[i].shape[k] for e in elems), default=0)
                    for k, w in enumerate(want)]
            fill = b"" if d == dtypes.string else 0
            arr = np.full((len(elems), *dims), fill, dtype=object if d == dtypes.string
                          else d.as_numpy_dtype)
            for j, e in enumerate(elems):
                # (a scalar's value itself: an object slot would hold a 0-d array)
                arr[(j, *(slice(0, s) for s in e[i].shape))] = e[i] if e[i].ndim else e[i][()]
            out.append(arr)
        return out


class RandomShuffleQueueResource(QueueResource):
    """A queue that dequeues a random element, keeping ``min_after_dequeue`` until closed."""

    kind = "RandomShuffleQueue"
    op_types = ("RandomShuffleQueueV2",)

    def __init__(self, name, component_types, shapes, capacity, min_after_dequeue, seed, seed2):
        self.min_after_dequeue = min_after_dequeue
        if seed == 0 and seed2 == 0:
            self._rng = np.random.Generator(np.random.Philox())
            self._words = None
        else:
            # as TF: one Philox generator from (seed, seed2), read a 32-bit word at a time
            from tideflow.ops import philox

            self._stream = philox.PhiloxStream(seed, seed2)
            self._words, self._word_pos = np.zeros([0], np.uint32), 0
        super().__init__(name, component_types, shapes, capacity)

    def _next_word(self):
        if self._word_pos == self._words.size:
            base = self._stream.counter
            self._stream.counter = (base + 64) & ((1 << 128) - 1)
            self._words = self._stream.blocks(base, 64).astype(np.uint32).reshape(-1)
            self._word_pos = 0
        w = int(self._words[self._word_pos])
        self._word_pos += 1
        return w

    def _init_storage(self):
        self._items = []

    def _pop(self):
        items = self._items
        # TF's index: a word modulo the size; the last element fills the hole
        i = (self._next_word() % len(items) if self._words is not None
             else int(self._rng.integers(len(items))))
        items[i], items[-1] = items[-1], items[i]
        return items.pop()

    def _restore(self, elems):
        self._items.extend(elems)

    def _available(self, size):
        return size if self.closed else size - self.min_after_dequeue

    def matches(self, op):
        super().matches(op)
        if op._attrs["min_after_dequeue"] != self.min_after_dequeue:
            raise errors.InvalidArgumentError(
                None, op, f"Shared queue '{self.name}' has min_after_dequeue "
                f"{self.min_after_dequeue} but requested min_after_dequeue was "
                f"{op._attrs['min_after_dequeue']}.")


class PriorityQueueResource(QueueResource):
    """A queue whose elements come out in increasing order of their int64 first component."""

    kind = "PriorityQueue"
    reports_missing = False
    op_types = ("PriorityQueueV2",)

    def __init__(self, name, component_types, shapes, capacity):
        # the priority is component 0, an int64 scalar
        super().__init__(name, [dtypes.int64, *component_types],
                         [scalar(), *shapes] if shapes else [], capacity)
        self._op_types_attr = list(component_types)
        self._op_shapes_attr = [tuple(s.as_list()) for s in shapes]

    def _init_storage(self):
        self._items = []
        self._seq = itertools.count()

    def _push(self, elem):
        heapq.heappush(self._items, (int(elem[0]), next(self._seq), elem))

    def _pop(self):
        return heapq.heappop(self._items)[2]

    def _restore(self, elems):
        for e in elems:
            self._push(e)

    def _element(self, values):
        self._check_priority(values)
        return super()._element(values)

    def _elements(self, values):
        self._check_priority(values, many=True)
        return super()._elements(values)

    def _check_priority(self, values, many=False):
        # the priority is component 0, of shape [] (a [batch] vector for enqueue_many): TF's
        # tuple check reports it like any other component
        if values and np.ndim(values[0]) != (1 if many else 0):
            shape = np.shape(values[0])
            want = f"[{shape[0]}]" if many and shape else "[]"
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch in tuple component 0. Expected {want}, got "
                f"{_shape_str(shape)}")

    def matches(self, op):
        attrs = op._attrs
        if (op.type not in self.op_types or attrs["capacity"] != self.capacity_attr
                or list(attrs["component_types"]) != self._op_types_attr
                or [tuple(s.as_list()) for s in attrs["shapes"]] != self._op_shapes_attr):
            raise errors.InvalidArgumentError(
                None, op, f"Shared queue '{self.name}' does not match the queue requested by "
                f"Node '{op.name}'")


# ------------------------------------------------------------------------------------------
# op declarations
# ------------------------------------------------------------------------------------------


def resource_name(ctx):
    """The resource's name: its shared_name, or a name unique to this node in this session."""
    op = ctx.op
    shared = op._attrs.get("shared_name") or ""
    if shared:
        return shared
    return ctx.node_state("resource_name", lambda: f"_{next(_unique_ids)}_{op.name}")


def _queue_factory(make):
    def factory(ctx):
        op = ctx.op
        container = op._attrs.get("container") or ""
        name = resource_name(ctx)
        created = []

        def creator():
            created.append(True)
            return make(name, op._attrs)

        def run():
            q = ctx.resource_mgr.lookup_or_create(container, name, creator)
            if not created:
                q.matches(op)
                created.append(True)
            return q

        return run

    return factory


_QUEUE_ATTRS = ["shapes: list(shape) >= 0 = []", "capacity: int = -1",
                "container: string = ''", "shared_name: string = ''"]

for _type, _make in (
    ("FIFOQueueV2", lambda n, a: QueueResource(n, a["component_types"], a["shapes"],
                                               a["capacity"])),
    ("PaddingFIFOQueueV2", lambda n, a: PaddingFIFOQueueResource(
        n, a["component_types"], a["shapes"], a["capacity"])),
):
    op_registry.declare(
        _type,
        outputs=["handle: resource"],
        attrs=["component_types: list(type) >= 1", *_QUEUE_ATTRS],
        shape=lambda op: [scalar()],
        kernel_factory=_queue_factory(_make),
        differentiable=False,
        stateful=True,
    )

op_registry.declare(
    "RandomShuffleQueueV2",
    outputs=["handle: resource"],
    attrs=["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []",
           "capacity: int = -1", "min_after_dequeue: int = 0", "seed: int = 0", "seed2: int = 0",
           "container: string = ''", "shared_name: string = ''"],
    shape=lambda op: [scalar()],
    kernel_factory=_queue_factory(lambda n, a: RandomShuffleQueueResource(
        n, a["component_types"], a["shapes"], a["capacity"], a["min_after_dequeue"],
        a["seed"], a["seed2"])),
    differentiable=False,
    stateful=True,
)

op_registry.declare(
    "PriorityQueueV2",
    outputs=["handle: resource"],
    attrs=["component_types: list(type) >= 0 = []", "shapes: list(shape) >= 0",
           "capacity: int = -1", "container: string = ''", "shared_name: string = ''"],
    shape=lambda op: [scalar()],
    kernel_factory=_queue_factory(lambda n, a: PriorityQueueResource(
        n, a["component_types"], a["shapes"], a["capacity"])),
    differentiable=False,
    stateful=True,
)


def _check_handle(handle, types=None):
    if type(handle) is np.ndarray and handle.shape == () and handle.dtype == object:
        handle = handle[()]  # a handle picked by Gather from stacked handles (from_list)
    if not isinstance(handle, QueueResource):
        raise errors.InvalidArgumentError(None, None, f"Expected a queue handle, got {handle!r}")
    handle.check_types(types)
    return handle


def _signature_error(have_in, have_out, want_in, want_out):
    """TF's OpKernelContext::MatchSignature words: a queue op's input or output types other
    than its queue's components ("have: resource, float-> expected: resource, float, int32->")."""
    def types(ts):
        return ", ".join(dtypes.type_string(t) for t in ts)

    return errors.InvalidArgumentError(
        None, None, f"Signature mismatch, have: {types(have_in)}->{types(have_out)} "
                    f"expected: {types(want_in)}->{types(want_out)}")


def _queue_for(handle, components, extra_in=(), outputs=None):
    """The queue of ``handle``, once the op's types match its components as TF's kernels
    check them first (components in; or ``outputs``, a dequeue's, out)."""
    q = _check_handle(handle)
    have = list(components if outputs is None else outputs)
    if have != q.dtypes:
        lead = [dtypes.resource, *extra_in]
        if outputs is None:
            raise _signature_error(lead + have, (), lead + q.dtypes, ())
        raise _signature_error(lead, have, lead, q.dtypes)
    return q


def _enqueue_kernel(handle, components, *, Tcomponents, step, ctx):
    _queue_for(handle, Tcomponents).enqueue(components, step, ctx.op)


def _enqueue_many_kernel(handle, components, *, Tcomponents, step, ctx):
    _queue_for(handle, Tcomponents).enqueue_many(components, step, ctx.op)


def _dequeue_kernel(handle, *, component_types, step):
    return _queue_for(handle, (), outputs=component_types).dequeue(step)


def _count(n):
    # (as TF's scalar read of ``n``: any one-element tensor)
    return int(np.reshape(n, -1)[0]) if np.size(n) == 1 else int(n)


def _dequeue_many_kernel(handle, n, *, component_types, step):
    q = _queue_for(handle, (), [dtypes.int32], component_types)
    return q.dequeue_many(_count(n), step)


def _dequeue_up_to_kernel(handle, n, *, component_types, step):
    q = _queue_for(handle, (), [dtypes.int32], component_types)
    return q.dequeue_many(_count(n), step, allow_small_batch=True)


def _close_kernel(handle, *, cancel_pending_enqueues, step):
    _check_handle(handle).close(cancel_pending_enqueues, step)


def _size_kernel(handle):
    q = _check_handle(handle)
    with q._cond:
        return np.int32(q.size())


def _is_closed_kernel(handle):
    q = _check_handle(handle)
    with q._cond:
        return np.bool_(q.closed)


def _unknown_outputs(op):
    return [TensorShape(None) for _ in op._outputs]


def _dequeue_many_shape(op):
    n = ops.constant_value(op._inputs[1])
    if n is not None and np.ndim(n) == 0 and int(n) < 0:
        raise ValueError(f"Input 'n' must be >= 0, but is {int(n)}")  # TF's shape function
    return _unknown_outputs(op)


for _type, _kernel in (("QueueEnqueueV2", _enqueue_kernel),
                       ("QueueEnqueueManyV2", _enqueue_many_kernel)):
    op_registry.declare(
        _type,
        inputs=["handle: resource", "components: Tcomponents"],
        attrs=["Tcomponents: list(type) >= 1", "timeout_ms: int = -1"],
        kernel=_kernel,
        differentiable=False,
        stateful=True,
    )

op_registry.declare(
    "QueueDequeueV2",
    inputs=["handle: resource"],
    outputs=["components: component_types"],
    attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"],
    shape=_unknown_outputs,
    kernel=_dequeue_kernel,
    differentiable=False,
    stateful=True,
)

for _type, _kernel in (("QueueDequeueManyV2", _dequeue_many_kernel),
                       ("QueueDequeueUpToV2", _dequeue_up_to_kernel)):
    op_registry.declare(
        _type,
        inputs=["handle: resource", "n: int32"],
        outputs=["components: component_types"],
        attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"],
        shape=_dequeue_many_shape if _type == "QueueDequeueManyV2" else _unknown_outputs,
        kernel=_kernel,
        differentiable=False,
        stateful=True,
    )

op_registry.declare(
    "QueueCloseV2",
    inputs=["handle: resource"],
    attrs=["cancel_pending_enqueues: bool = false"],
    kernel=_close_kernel,
    differentiable=False,
    stateful=True,
)

op_registry.declare(
    "QueueSizeV2",
    inputs=["handle: resource"],
    outputs=["size: int32"],
    shape=lambda op: [scalar()],
    kernel=_size_kernel,
    differentiable=False,
    stateful=True,
)

op_registry.declare(
    "QueueIsClosedV2",
    inputs=["handle: resource"],
    outputs=["is_closed: bool"],
    shape=lambda op: [scalar()],
    kernel=_is_closed_kernel,
    differentiable=False,
    stateful=True,
)
