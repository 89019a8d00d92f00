"""The rest of a step after an input op fails: TF's executor only stops scheduling what depends
on the failed op and lets the branches already going run on; when the failure comes late (an
asynchronous input op, a Python call), the step's independent branches have all run by then. A
plan runs its ops in one order, so after such a failure it runs here the statements that come
later and do not depend on the failed op, with the values the step had computed.

A training loop that reads a dataset until ``OutOfRangeError`` relies on it without knowing:
on the failing step TF still applies the part of an update that needs no input (sparse Adam's
decay of its moments, a counter's ``assign``), so the next epoch starts from those values.
"""

import re

import numpy as np

from tideflow.framework import errors
from tideflow.runtime.executor import _WAITING_OPS

# ops that wait for another op (and would wait forever on a failed step: TF cancels them)
_CANCELLED = _WAITING_OPS | frozenset({
    "QueueEnqueueV2", "QueueEnqueueManyV2", "QueueEnqueue", "QueueEnqueueMany",
    "Stage", "MapStage", "OrderedMapStage", "BarrierInsertMany",
    # (a CriticalSection's lock, kept to the end of a step that will not end well: the failed
    # step's values are freed at once instead, releasing it)
    "ConsumeMutexLock"})

# ops whose failure reaches TF's executor late (asynchronous kernels waiting on an input
# pipeline, or a Python call): the step's cheap independent branches have run by then, even
# those a failing source would have ended
_LATE_FAILURES = frozenset({
    "IteratorGetNext", "IteratorGetNextAsOptional", "MultiDeviceIteratorGetNextFromShard",
    "QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueDequeue",
    "QueueDequeueMany", "QueueDequeueUpTo", "ReaderReadV2", "ReaderReadUpToV2", "ReaderRead",
    "ReaderReadUpTo", "PyFunc", "PyFuncStateless", "EagerPyFunc"})

# a failure of one of these, or an uninitialized read (FailedPrecondition), comes as early as
# the step's other sources and ends it. Any other kernel's failure (an index out of range,
# shapes a reshape cannot take) leaves TF's executor running every branch that does not
# depend on it to its end (TF 1.15, measured: twenty updates chained by control edges beside
# a failing gather all apply)
_SOURCES = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})

# errors that end the whole step in TF too (its cancellation, a deadline, a lost peer)
_STOPS_ALL = (errors.CancelledError, errors.DeadlineExceededError, errors.AbortedError,
              errors.UnavailableError)

_CONTINUATION = re.compile(r"(else|elif\b.*|except\b.*|finally):\s*$")


def _statements(plan):
    """The plan's run-function body as (first line number, last line number, lines, ops) per
    top-level statement, compound ones with their blocks (cached on the plan)."""
    cached = plan.__dict__.get("_statements")
    if cached is not None:
        return cached
    lines = plan.source.split("\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith("    def run("))
    body = [(i + 1, ln) for i, ln in enumerate(lines[start + 1:], start + 1)
            if ln.strip() and not ln.startswith("    return run")]
    base = len(body[0][1]) - len(body[0][1].lstrip())
    out = []
    for lineno, text in body:
        indent = len(text) - len(text.lstrip())
        if out and (indent > base or _CONTINUATION.match(text.strip())):
            first, _, block = out[-1]
            out[-1] = (first, lineno, block + [text[base:]])
        else:
            out.append((lineno, lineno, [text[base:]]))
    ops_at = {}
    for ln, op in plan._line_ops.items():
        ops_at.setdefault(ln, []).append(op)
    out = [(a, b, block, [op for ln in range(a, b + 1) for op in ops_at.get(ln, ())])
           for a, b, block in out]
    plan._statements = out
    return out


def _after(op, failed):
    """Whether ``op`` takes an input or a control input from a ``failed`` op."""
    return (any(t._op in failed for t in op._inputs)
            or any(c in failed for c in op._control_inputs))


def run_rest(plan, exc):
    """After ``exc`` ended a step of ``plan`` (a straight-line plan, on one device), runs the
    later statements that neither depend on the failed op nor wait on another op. Errors they
    raise are dropped (TF reports the first); the caller reports ``exc``."""
    if plan.partition is not None or plan.coop or not plan.ops or isinstance(exc, _STOPS_ALL):
        return
    frame = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == plan._code_filename and code.co_name == "run":
            frame, lineno = tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next
    if frame is None:
        return
    statements = _statements(plan)
    at = next((k for k, (a, b, _, _) in enumerate(statements) if a <= lineno <= b), None)
    if at is None:
        return
    failed = set(statements[at][3])
    if not any(op._type in _LATE_FAILURES for op in failed) and (
            isinstance(exc, errors.FailedPreconditionError)
            or any(op._type in _SOURCES for op in failed)):
        return
    # everything downstream of the failed ops, in the plan's (topological) order, the ops a
    # graph pass dropped included (``1.0 * loss`` run as ``loss``: a metric's count update
    # ordered after that Mul by a control edge must not run either)
    for op in (*plan._order, *plan.ops):
        if op not in failed and _after(op, failed):
            failed.add(op)
    # one namespace (globals and locals alike), so comprehensions in a statement see it all
    names = dict(frame.f_globals)
    snapshot = frame.f_locals  # (a dict the frame keeps: emptied below, with ``names``)
    names.update(snapshot)
    snapshot.clear()
    try:
        _run_statements(plan, statements[at + 1:], names, failed)
    finally:
        # the step's values (a CriticalSection's lock among them) die with the failed step
        names.clear()


def _run_statements(plan, statements, names, failed):
    with np.errstate(all="ignore"):
        for _, _, block, ops in statements:
            head = block[0].strip()
            if head.startswith(("del ", "return ")) or head == "pass":
                continue
            # (an op whose input a graph pass replaced is known to fail only when its statement
            # finds the value missing: what follows it by a control edge must not run either)
            if not ops or any(op in failed or op._type in _CANCELLED or _after(op, failed)
                              for op in ops):
                failed.update(ops)
                continue
            try:
                exec(compile("\n".join(block), plan._code_filename, "exec"), names)  # noqa: S102
            except Exception:  # noqa: BLE001 - a later failure is not reported (TF's first)
                failed.update(ops)
