"""Running a step's partitions concurrently (paper §3.2.2, §4.3's inter-op parallelism).

A ``MultiPlan`` holds one compiled plan per partition (a device, or a lane of a device when
independent expensive ops can overlap). The calling thread runs one partition and the session's
pool the others; they meet in the step's rendezvous. The first error aborts the rendezvous so
every partition stops, and the step raises that error once all partitions have returned.
"""

import concurrent.futures
import os
import threading

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
    if speedup < (1.15 if explicit > 1 else 1.5):
        return None
    if len(set(where.values())) < 2:
        return None
    return where, starts


class MultiPlan:
    """Partition plans run concurrently; ``run(feed_values, step)`` returns the fetches."""

    def __init__(self, partitions, plans, n_fetches, pool, placement, fetches):
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
                      self.fetches)
        m.version = self.version
        return m

    @property
    def traced(self):
        if self._traced is None:
            self._traced = self.variant(trace=True)
        return self._traced

    def run(self, feed_values, step):
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
