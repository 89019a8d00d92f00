"""Running a step's partitions concurrently (paper §3.2.2, §4.3's inter-op parallelism).

A ``MultiPlan`` holds one compiled plan per partition (a device, or a lane of a device when
independent expensive ops can overlap). The calling thread runs one partition and the session's
pool the others; they meet in the step's rendezvous. The first error aborts the rendezvous so
every partition stops, and the step raises that error once all partitions have returned.
"""

import concurrent.futures
import os
import threading

import numpy as np

from tideflow.framework import errors
from tideflow.kernels import threads
from tideflow.runtime import cost_model
from tideflow.runtime.rendezvous import Rendezvous, StepAborted

# a pool thread per partition of every concurrently running step; threads start on demand
_POOL_THREADS = 256


class PartitionPool:
    """The threads of one session that run partitions other than the caller's."""

    def __init__(self):
        self._pool = None
        self._lock = threading.Lock()

    def submit(self, fn, *args):
        pool = self._pool
        if pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = concurrent.futures.ThreadPoolExecutor(
                        _POOL_THREADS, thread_name_prefix="tideflow-partition")
                pool = self._pool
        return pool.submit(fn, *args)

    def shutdown(self):
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)


def lane_count(config):
    """How many lanes a device may use: inter_op_parallelism_threads, or the core count."""
    n = int(getattr(config, "inter_op_parallelism_threads", 0) or 0) if config else 0
    if n == 1:
        return 1
    if n <= 0:
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


# kernels expected to run at least this long are taken to release the GIL for most of it
GIL_FREE_S = 2e-4


def choose_lanes(ops, config, measured=None):
    """(op -> lane, op -> simulated start) for one device's ops when running them in parallel
    pays, else None.

    With the default inter_op_parallelism_threads (0) the simulated gain must be large; an
    explicit thread count asks for parallelism and takes a smaller gain.
    """
    lanes = lane_count(config)
    if lanes < 2 or len(ops) < 3 or not cost_model.expensive_independent(ops, measured):
        return None
    explicit = int(getattr(config, "inter_op_parallelism_threads", 0) or 0) if config else 0
    where, speedup, starts = cost_model.lanes_for(ops, lanes, measured)
    # Python holds the GIL between kernels: only long kernels (NumPy/BLAS calls that release
    # it) overlap, so the small ops' time stays serial whatever the simulation assumed. A
    # 2-layer GRU of 4,800 ops simulated a 1.6x gain and ran 2x slower in lanes.
    serial = small = 0.0
    for op in ops:
        t = cost_model.op_seconds(op, measured)
        serial += t
        if t < GIL_FREE_S:
            small += t
    if serial > 0:
        speedup = min(speedup, serial / (small + (serial - small) / lanes))
    if speedup < (1.15 if explicit > 1 else 1.5):
        return None
    if len(set(where.values())) < 2:
        return None
    return where, starts


# below this simulated speedup, host partitions take turns in the calling thread
COOP_BELOW_SPEEDUP = 1.1

# stateful ops that never wait for another partition's work
_NON_BLOCKING = frozenset({"VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
                           "AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp",
                           "NoOp"})


def _may_block(op):
    od = op._op_def
    if od.kernel_wants_step:  # queues, readers, iterators, While/If bodies
        return True
    if not od.is_stateful or od.is_random or op._type in _NON_BLOCKING:
        return False
    return not od.has_ref_input  # Assign*, Apply*, Scatter*: updates of a variable


def cooperative(partitions):
    """True when the partitions should take turns in one thread rather than run on threads.

    That is the case when they are all lane 0 of host devices, no op of theirs can block
    waiting for another (queues, readers, py_func, ...), and the cost model expects no gain
    from running them at the same time: the data dependencies serialize them (a model split
    layer-wise across devices), so threads would only add hand-offs between them.
    """
    if len(partitions) < 2:
        return False
    for p in partitions:
        if p.unit.lane or not p.device.is_host:
            return False
        if any(_may_block(op) for op in p.ops):
            return False
    unit = {}
    pos = {}
    for p in partitions:
        for op in p.ops:
            unit[op] = p.unit
            pos[op] = p.global_index.get(op, 0)
    order = sorted(unit, key=pos.__getitem__)
    _, makespan, _ = cost_model.simulate(
        order, lambda op: [unit[op]], lambda op, u: cost_model.op_seconds(op),
        cost_model.transfer_seconds, unit.__getitem__)
    serial = cost_model.serial_seconds(order)
    return makespan <= 0 or serial / makespan < COOP_BELOW_SPEEDUP


class MultiPlan:
    """Partition plans run concurrently; ``run(feed_values, step)`` returns the fetches.

    When :func:`cooperative` holds, the plans are compiled as generators and take turns in
    the calling thread instead: each runs until it needs a value not yet sent, then yields.
    """

    def __init__(self, partitions, plans, n_fetches, pool, placement, fetches, coop=None):
        if coop is None:
            coop = cooperative(partitions)
        if coop and not all(p.coop for p in plans):
            plans = [p if p.coop else p.variant(trace=p.trace, coop=True) for p in plans]
        self.coop = coop
        self.partitions = partitions
        self.plans = plans
        self.n_fetches = n_fetches
        self.pool = pool
        self.placement = placement
        self.fetches = fetches
        self.needs_step = True
        self.ops = [op for p in plans for op in p.ops]
        self.needed = [op for p in plans for op in p.needed]
        self._slots = [p.fetch_index for p in partitions]
        # the caller runs the partition with the most fetches (no hand-off for its results)
        self._main = max(range(len(plans)), key=lambda i: (len(partitions[i].fetches), -i))
        self.version = None
        self._traced = None

    def variant(self, trace=False, recv_asap=None):
        plans = [p.variant(trace=trace, recv_asap=recv_asap) for p in self.plans]
        m = MultiPlan(self.partitions, plans, self.n_fetches, self.pool, self.placement,
                      self.fetches, coop=self.coop)
        m.version = self.version
        return m

    @property
    def traced(self):
        if self._traced is None:
            self._traced = self.variant(trace=True)
        return self._traced

    def run(self, feed_values, step):
        if self.coop:
            return self._run_coop(feed_values, step)
        rv = Rendezvous(step)
        step.rendezvous = rv
        plans = self.plans
        main = self._main
        futures = []

        def run_one(plan):
            try:
                return plan.run(feed_values, step)
            except BaseException as e:
                rv.abort(e.cause if isinstance(e, StepAborted) else e)
                raise

        for i, plan in enumerate(plans):
            if i != main:
                futures.append((i, self.pool.submit(run_one, plan)))
        results = [None] * len(plans)
        first_error = None
        try:
            results[main] = run_one(plans[main])
        except StepAborted:
            pass
        except BaseException as e:  # noqa: BLE001 - reported below, after the others stop
            first_error = e
        for i, f in futures:
            try:
                results[i] = f.result()
            except StepAborted:
                pass
            except BaseException as e:  # noqa: BLE001
                if first_error is None:
                    first_error = e
        if rv.error is not None:
            err = rv.error
            raise err.cause if isinstance(err, StepAborted) else err
        if first_error is not None:
            raise first_error
        out = [None] * self.n_fetches
        for slots, vals in zip(self._slots, results):
            for j, v in zip(slots, vals):
                out[j] = v
        return out

    def _run_coop(self, feed_values, step):
        """The partitions in turns: each runs until it waits for a key not yet sent."""
        if not any(p.uses_pool for p in self.plans):
            return self._turns(feed_values, step)
        threads.enter_step()  # as Plan.run: BLAS held to one thread, the pool doing the work
        try:
            return self._turns(feed_values, step)
        finally:
            threads.leave_step()

    def _turns(self, feed_values, step):
        rv = Rendezvous(step)
        step.rendezvous = rv
        items = rv._items
        plans = self.plans
        n = len(plans)
        gens = [p.start(feed_values, step) for p in plans]
        waits = [None] * n  # the key each partition waits for
        results = [None] * n
        live = list(range(n))
        i = None
        try:
            with np.errstate(all="ignore"):  # as Plan.run: kernels are silent about inf/nan
                while live:
                    ran = False
                    for i in tuple(live):
                        k = waits[i]
                        if k is not None and k not in items:
                            continue
                        ran = True
                        try:
                            waits[i] = gens[i].send(None)
                        except StopIteration as stop:
                            results[i] = stop.value
                            live.remove(i)
                    if not ran:
                        keys = sorted(str(waits[j]) for j in live)
                        i = None
                        raise errors.InternalError(
                            None, None, "Partitions wait for each other: " + ", ".join(keys))
        except BaseException as e:
            for g in gens:
                g.close()
            if i is None or not isinstance(e, Exception):
                raise
            raise plans[i].op_error(e) from (None if isinstance(e, errors.OpError) else e)
        out = [None] * self.n_fetches
        for slots, vals in zip(self._slots, results):
            for j, v in zip(slots, vals):
                out[j] = v
        return out
