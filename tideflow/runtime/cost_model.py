"""The cost model of the paper's §3.2.1: node costs, transfer costs and a simulated execution.

A node's cost is its measured time from earlier traced steps when there is one, else a static
estimate from its op type and static shapes (flops of MatMul/Conv2D at a BLAS rate, elements
at an elementwise rate, plus a fixed dispatch cost). A cross-device edge costs a latency plus
its bytes over a copy bandwidth. The simulation runs the nodes in topological order, each device
one node at a time, and gives each node the device where it would finish soonest. It places
ops (the cost-model placer) and splits one device's ops into lanes (inter-op parallelism).
"""

import math

from tideflow.framework import dtypes

BLAS_FLOPS_PER_S = 2.0e10  # one core's float32 GEMM, roughly
ELEMENTS_PER_S = 1.0e9  # elementwise NumPy kernels
DISPATCH_S = 1.0e-6  # one generated kernel call
TRANSFER_LATENCY_S = 30e-6  # one Send/Recv between partition threads
TRANSFER_BYTES_PER_S = 5.0e9
LANE_LATENCY_S = 20e-6
UNKNOWN_DIM = 64  # stands for an unknown dimension in static estimates

_BLAS_OPS = frozenset({"MatMul", "BatchMatMul", "BatchMatMulV2", "Conv2D",
                       "Conv2DBackpropInput", "Conv2DBackpropFilter", "SparseMatMul"})


def _dims(t):
    dims = t._shape._dims
    if dims is None:
        return None
    return [UNKNOWN_DIM if d._value is None else d._value for d in dims]


def num_elements(t):
    d = _dims(t)
    if d is None:
        return UNKNOWN_DIM
    return math.prod(d) if d else 1


def tensor_bytes(t):
    try:
        size = t._dtype.base_dtype.size
    except (AttributeError, TypeError, ValueError):
        size = 8
    if t._dtype.base_dtype in (dtypes.string, dtypes.resource, dtypes.variant):
        size = 64
    return num_elements(t) * (size or 8)


def op_flops(op):
    """The static flop estimate of ``op`` (elements touched for non-BLAS ops)."""
    typ = op._type
    ins = op._inputs
    try:
        if typ == "MatMul" and len(ins) == 2:
            a, b = _dims(ins[0]), _dims(ins[1])
            if a and b and len(a) == 2 and len(b) == 2:
                m = a[1] if op._attrs.get("transpose_a") else a[0]
                k = a[0] if op._attrs.get("transpose_a") else a[1]
                n = b[0] if op._attrs.get("transpose_b") else b[1]
                return 2.0 * m * n * k
        if typ in ("BatchMatMul", "BatchMatMulV2") and len(ins) == 2:
            a, b = _dims(ins[0]), _dims(ins[1])
            if a and b and len(a) >= 2 and len(b) >= 2:
                return 2.0 * math.prod(a) * (b[-1] if not op._attrs.get("adj_y") else b[-2])
        if typ == "Conv2D" and len(ins) == 2:
            f = _dims(ins[1])
            if f and len(f) == 4:
                return 2.0 * num_elements(op._outputs[0]) * f[0] * f[1] * f[2]
        if typ in ("Conv2DBackpropInput", "Conv2DBackpropFilter") and len(ins) == 3:
            grad = num_elements(ins[2])
            f = _dims(ins[1]) if typ == "Conv2DBackpropInput" else _dims(op._outputs[0])
            if f and len(f) == 4:
                return 2.0 * grad * f[0] * f[1] * f[2]
    except (TypeError, ValueError, IndexError):
        pass
    n = sum(num_elements(t) for t in op._outputs) if op._outputs else 1
    if op._inputs:
        n = max(n, max(num_elements(t) for t in op._inputs))
    return float(n)


def op_seconds(op, measured=None):
    """The expected run time of ``op``: measured (microseconds) if known, else estimated."""
    if measured:
        us = measured.get(op._name)
        if us is not None:
            return us * 1e-6
    if op._type in ("Const", "Placeholder", "VariableV2", "Variable", "Identity", "NoOp"):
        return DISPATCH_S
    rate = BLAS_FLOPS_PER_S if op._type in _BLAS_OPS else ELEMENTS_PER_S
    return DISPATCH_S + op_flops(op) / rate


def transfer_seconds(t):
    return TRANSFER_LATENCY_S + tensor_bytes(t) / TRANSFER_BYTES_PER_S


TRIVIAL_S = 2 * DISPATCH_S


def simulate(order, options, cost, transfer, fixed=None, decided=None):
    """Greedy earliest-finish assignment: returns (op -> choice, makespan seconds, op ->
    simulated start seconds).

    options(op) lists the choices for op; fixed(op) gives a forced choice or None (the first
    decision of a group fixes the rest through it). cost(op, choice) and transfer(tensor)
    are in seconds; choices are hashable.
    """
    free = {}
    finish = {}
    where = {}
    starts = {}
    end_all = 0.0
    for op in order:
        forced = fixed(op) if fixed is not None else None
        choices = [forced] if forced is not None else options(op)
        best = None
        for d in choices:
            ready = 0.0
            for t in op._inputs:
                src = t._op
                if src in finish:
                    ft = finish[src]
                    if where[src] != d:
                        ft += transfer(t)
                    ready = max(ready, ft)
            for c in op._control_inputs:
                if c in finish and finish[c] > ready:
                    ready = finish[c]
            c = cost(op, d)
            # trivial ops (reads, constants) slot in between others: they wait for no device
            start = ready if c <= TRIVIAL_S else max(ready, free.get(d, 0.0))
            end = start + c
            if best is None or end < best[0] - 1e-9:
                best = (end, d, start)
        end, d, start = best
        if decided is not None:
            decided(op, d)
        if end - start > TRIVIAL_S:
            free[d] = max(free.get(d, 0.0), end)
        finish[op] = end
        starts[op] = start
        where[op] = d
        end_all = max(end_all, end)
    return where, end_all, starts


def schedule_order(order, starts):
    """``order`` sorted by simulated start time (a topological order: every op starts after
    its inputs finish, and costs are positive), so that a partition sends what another waits
    for as early as the simulation did; ops not simulated keep their place."""
    if not starts:
        return order
    pos = {}
    last = 0.0
    for op in order:
        last = starts.get(op, last)
        pos[op] = last
    return sorted(order, key=lambda op: pos[op])


class CostChooser:
    """A placer chooser (``placer.place(chooser=...)``) placing groups by simulation; after a
    call, ``starts`` holds the simulated start times (for :func:`schedule_order`)."""

    def __init__(self, order, measured=None):
        self.order = order
        self.measured = measured
        self.starts = {}

    def __call__(self, groups, group_of):
        measured = self.measured

        def fixed(op):
            return group_of[op].device

        def options(op):
            return group_of[op].candidates

        def cost(op, device):
            return op_seconds(op, measured)

        def decided(op, device):
            # the first member simulated decides its group's device
            g = group_of[op]
            if g.device is None:
                g.device = device

        # generators with no request are left to TF's heuristic (they join their consumer)
        sim = [op for op in self.order
               if not (not op._inputs and len(group_of[op].members) == 1
                       and group_of[op].requested is None and group_of[op].device is None)]
        _, _, self.starts = simulate(sim, options, cost, transfer_seconds, fixed, decided)


def cost_chooser(order, measured=None):
    return CostChooser(order, measured)


def serial_seconds(order, measured=None):
    return sum(op_seconds(op, measured) for op in order)


def lanes_for(order, lanes, measured=None):
    """Splits one device's ``order`` into ``lanes``: (op -> lane, simulated speedup, op ->
    simulated start).

    Stateful ops and ops with ref or resource inputs stay in lane 0, so every update of a
    variable keeps its place in the serial order.
    """

    def options(op):
        return range(lanes)

    def fixed(op):
        if op._op_def.is_stateful or any(t._dtype._is_ref_dtype for t in op._inputs):
            return 0
        if op._type in ("While", "If"):
            return 0
        return None

    def cost(op, lane):
        return op_seconds(op, measured)

    def transfer(t):
        return LANE_LATENCY_S

    where, makespan, starts = simulate(order, options, cost, transfer, fixed)
    serial = serial_seconds(order, measured)
    return where, (serial / makespan if makespan > 0 else 1.0), starts


def expensive_independent(order, measured=None, threshold_s=2e-4):
    """True when at least two ops costing ``threshold_s`` or more could overlap."""
    big = [op for op in order if op_seconds(op, measured) >= threshold_s]
    if len(big) < 2:
        return False
    # ancestors of each op among the big ops, as a bit mask over ``big`` (an op's ancestors
    # all come before it in ``order``): a big op missing one of the big ops before it from its
    # ancestors could overlap with it
    bit = {op: 1 << i for i, op in enumerate(big)}
    anc = {}
    for op in order:
        a = 0
        for t in op._inputs:
            p = t._op
            m = anc.get(p)
            if m is not None:
                a |= m | bit.get(p, 0)
        for c in op._control_inputs:
            m = anc.get(c)
            if m is not None:
                a |= m | bit.get(c, 0)
        anc[op] = a
        b = bit.get(op)
        if b is not None and (b - 1) & ~a:
            return True
    return False
