"""Execution plans: prune, optimize, order and bind a subgraph once, then run it many times.

A plan compiles its ordered steps into one straight-line Python function (one line per
kernel call, each intermediate deleted right after its last use), so that a step costs little
more than the kernel calls themselves. A failing line maps back to its op.
"""

import functools
import itertools
import re
import sys
import threading
import time
import traceback
import weakref

import numpy as np

from tideflow.framework import errors, kernel_types, nest, op_registry
from tideflow.framework.ops import Operation, Tensor
from tideflow.kernels import threads
from tideflow.kernels.device import KernelContext
from tideflow.ops import state_ops
from tideflow.ops.control_flow_ops import _no_op_kernel
from tideflow.ops.state_ops import UninitializedValue
from tideflow.ops.switch_merge_ops import DEAD, MERGE_TYPES, SWITCH_TYPES
from tideflow.runtime import accumulate, graph_passes, grappler_dependency, shape_memo
from tideflow.runtime.rendezvous import StepAborted

_step_ids = itertools.count(1)


class Step:
    """The state of one running step, handed to kernels that declare a ``step`` parameter."""

    __slots__ = ("cancelled", "deadline", "deferred", "rendezvous", "session", "stats",
                 "step_id")

    def __init__(self, session=None, deadline=None):
        self.step_id = next(_step_ids)
        self.cancelled = session._cancelled if session is not None else threading.Event()
        self.deadline = deadline
        self.rendezvous = None
        self.stats = None
        self.session = session
        # waits the step still owes (a Stage into a full area): see BlockingResource._defer
        self.deferred = None

    def finish_deferred(self):
        """Waits for the step's deferred puts; raises the first one's error."""
        pending, self.deferred = self.deferred, None
        for finish in pending:
            finish()


def _fed_ops(fed):
    """Ops all of whose outputs are fed: their control edges are satisfied by the feeds."""
    ops_ = {t._op for t in fed}
    return {op for op in ops_ if all(t in fed for t in op._outputs)}


def prune(fetch_tensors, target_ops, fed, reads=None):
    """The ops needed to compute the fetches and run the targets, given the fed tensors
    (``reads``: a set to which it adds every tensor those ops read).

    A While or If of ``tf.while_loop``/``tf.cond`` reached only through some of its outputs
    needs only the inputs those outputs read (flow_inputs_needed), as TF 1.x's executor runs
    only the Exit/Merge ops a step needs and what they need."""
    fed_ops = _fed_ops(fed) if fed else ()
    needed = set()
    flows = {}  # a While/If needed for some outputs only -> those outputs' indices
    stack = [t if t._op._type in _FLOW_OPS else t._op for t in fetch_tensors if t not in fed]
    stack.extend(target_ops)
    while stack:
        op = stack.pop()
        if isinstance(op, Tensor):  # an output of a While or If
            t, op = op, op._op
            got = flows.get(op)
            if got is None:
                if op in needed:
                    continue  # needed whole
                got = flows[op] = set()
                needed.add(op)
                for c in op._control_inputs:
                    if c not in needed and c not in fed_ops:
                        stack.append(c)
            elif t._value_index in got:
                continue
            got.add(t._value_index)
            keep = flow_inputs_needed(op, frozenset(got))
            ins = op._inputs if keep is None else [op._inputs[k] for k in keep]
        else:
            if op in needed:
                if op not in flows:
                    continue
                del flows[op]  # a While/If reached through some outputs is now needed whole
            needed.add(op)
            ins = op._inputs
            for c in op._control_inputs:
                if c not in needed and c not in fed_ops:
                    stack.append(c)
        if reads is not None:
            reads.update(ins)
        for t in ins:
            if t not in fed:
                src = t._op
                if src._type in _FLOW_OPS:
                    stack.append(t)
                elif src not in needed:
                    stack.append(src)
    return needed


# the ops of tf.while_loop and tf.cond (TF 1.x frames of Enter/Switch/Merge/Exit ops)
_FLOW_OPS = frozenset({"While", "If"})
_FLOW_CACHE = weakref.WeakKeyDictionary()  # op -> {needed outputs: needed inputs}


def flow_inputs_needed(op, outs):
    """The indices of the inputs of ``op`` (a While or If) that computing its outputs ``outs``
    (a frozenset of indices) reads, or None for all of them. Cached per (op, outs): plans are
    built once, but a nested loop's is asked for by every plan of a loop around it.

    As TF 1.x's frames run: a While needs the loop variables fetched, those its condition
    reads and those their bodies read, to a fixed point; an If its predicate and what the
    needed outputs read in either branch. A ``tf.while_loop`` body's or a branch's stateful
    ops feeding no needed output do not run (TF's executor never reaches them). A functional
    op whose bodies are not TF 1.x control flow runs whole, as TF's function ops do."""
    cache = _FLOW_CACHE.get(op)
    if cache is None:
        cache = _FLOW_CACHE[op] = {}
    keep = cache.get(outs, _ALL)
    if keep is _ALL:
        keep = cache[outs] = _flow_inputs(op, outs)
    return keep


_ALL = object()


def _flow_functions(op):
    """The (cond, body) functions of a While, the (then, else) branches of an If; None where
    the graph has not got them."""
    from tideflow.framework import func_graph

    names = ("cond", "body") if op._type == "While" else ("then_branch", "else_branch")
    try:
        return tuple(func_graph.lookup_function(op._graph, op._attrs[n]) for n in names)
    except (ValueError, KeyError):
        return None


def _flow_inputs(op, outs):
    fns = _flow_functions(op)
    if fns is None:
        return None
    if not all(fg.control_flow_body for fg in fns):
        return None
    if op._type == "While":
        keep = _loop_values_needed(fns[0], fns[1], outs)
    else:
        read = set()
        for fg in fns:
            if outs and max(outs) >= len(fg.outputs):
                return None
            read |= _args_read(fg, [fg.outputs[j] for j in sorted(outs)])
        keep = [0] + [k + 1 for k in sorted(read)]
    return None if len(keep) >= len(op._inputs) else tuple(keep)


# Ops that may wait for another op of the same step (a dequeue for an enqueue, a reader for
# its filename queue, an accumulator's take for its applies). TF runs a step's independent ops
# concurrently; a serial plan runs these after every op not depending on them, so
# ``sess.run([q.dequeue(), q.enqueue(x)])`` completes and an Assert that fails beside a
# dequeue ends the step instead of leaving it blocked.
_WAITING_OPS = frozenset({
    "QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueDequeue",
    "QueueDequeueMany", "QueueDequeueUpTo", "ReaderReadV2", "ReaderReadUpToV2", "ReaderRead",
    "ReaderReadUpTo", "AccumulatorTakeGradient", "SparseAccumulatorTakeGradient", "Unstage",
    "StagePeek", "BarrierTakeMany", "MapUnstage", "MapUnstageNoKey", "MapPeek",
    "OrderedMapUnstage", "OrderedMapUnstageNoKey", "OrderedMapPeek"})


# Updates of a variable (Assign*, Apply*, Scatter*, ...). TF runs a step's cheap reads inline
# while its updates go to the thread pool, so a read that does not depend on an update sees
# the value from before the step: ``sess.run([inc, global_step + 0])`` gives the old step,
# which the hooks' "stale global step" counts on. A serial plan runs them after such reads.
_UPDATE_PREFIXES = ("Assign", "Apply", "SparseApply", "Scatter", "StridedSliceAssign",
                    "CountUpTo")


# Ops that read only their input's shape: run as soon as their input exists, so they do not
# keep a large value alive until the backward pass (TF's gradients read forward shapes, and a
# value whose last reader is an elementwise op can then be updated in place)
_SHAPE_READERS = frozenset({"Shape", "ShapeN", "Size", "Rank"})


def _late(op):
    """-1 for an op that only reads its input's shape (run first), 0 for an op that runs as
    soon as its inputs allow, 1 for a variable update, 2 for an op that may wait for another
    op of the step."""
    t = op._type
    if t in _SHAPE_READERS:
        return -1
    if t in _WAITING_OPS:
        return 2
    if t == "RestoreV2":
        return 1  # it reads into the variables its Assigns update: it goes with them
    if t.startswith(_UPDATE_PREFIXES):
        return 1 if op._op_def.has_ref_input or t in _RESOURCE_ASSIGNS else 0
    return 1 if t.startswith(_RESOURCE_UPDATE_PREFIXES) else 0


# resource variables' updates (which take a handle, not a ref): late, as the ref updates
_RESOURCE_ASSIGNS = frozenset({"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"})
_RESOURCE_UPDATE_PREFIXES = ("ResourceApply", "ResourceSparseApply", "ResourceScatter",
                             "ResourceStridedSliceAssign", "ResourceCountUpTo")


# Ops whose outputs are new arrays, never views of an input: a variable's buffer read by one
# of them is not seen past it (what _early_updates follows ends there)
_COPYING_READERS = frozenset({
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Conv2D",
    "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter", "L2Loss",
}) | _SHAPE_READERS

# how many ops may see a variable's buffer for its update to be moved up (bounds the search)
_EARLY_READERS_MAX = 32


def _early_updates(ops, opset, fed, fetches):
    """{update: the ops that see its variables' buffers} for the variable updates that may
    run as soon as those ops have run, instead of as late as their users allow.

    An update qualifies when every op that can see a buffer it writes (following its ref
    inputs through ops that may pass a view on, up to ops that copy) is known, few, and none
    of them, nor the ref itself, is fetched: running it then is unobservable, since each such
    read still comes first, and it frees its gradient at once (the CNN's 12.8 MB fc gradient
    otherwise lives through the whole backward pass)."""
    consumers = {}
    for op in ops:
        for t in op._inputs:
            if t not in fed:
                consumers.setdefault(t, []).append(op)
    fetched = set(fetches)
    out = {}
    for op in ops:
        if _late(op) != 1 or op._type == "RestoreV2":
            continue
        refs = _ref_inputs(op)
        readers, seen, stack, ok = set(), set(), list(refs), bool(refs)
        while stack and ok:
            t = stack.pop()
            if t in seen:
                continue
            seen.add(t)
            if t in fetched or t in fed or t._op not in opset:
                ok = False
                break
            for c in consumers.get(t, ()):
                if c is op:
                    continue
                readers.add(c)
                if len(readers) > _EARLY_READERS_MAX or _late(c) > 0:
                    ok = False
                    break
                if c._type not in _COPYING_READERS:
                    stack.extend(c._outputs)
        if ok:
            out[op] = readers
    return out


def _ref_inputs(op):
    """The ref inputs of ``op`` (an op with list inputs: all its inputs, as if refs)."""
    args = op._op_def.inputs
    if any(a.is_list for a in args) or len(args) != len(op._inputs):
        return list(op._inputs)
    return [t for t, a in zip(op._inputs, args) if a.is_ref]


def topo_order(ops, fed, fetches=()):
    """Orders ``ops`` so every op follows its inputs (creation order breaks ties; variable
    updates, and after them ops that may wait for others of the step, come as late as their
    users allow, but an update whose variable no later op can see runs as soon as it may:
    see _early_updates)."""
    ops = sorted(ops, key=lambda o: o._id)
    # a placeholder nobody feeds fails the step: such ones run first, the last made first, so
    # the step stops before any other op runs and names the placeholder TF 1.15 names
    unfed = [op for op in ops if op._type == "Placeholder" and op._outputs[0] not in fed]
    if unfed:
        rest = set(ops).difference(unfed)
        ops = unfed[::-1] + [op for op in ops if op in rest]
    unfed = set(unfed)
    opset = set(ops)
    late = {op: _late(op) for op in ops}
    ok = not any(late.values())
    seen = set()
    for op in ops:
        for t in op._inputs:
            if t not in fed and t._op not in seen:
                ok = False
                break
        if ok:
            for c in op._control_inputs:
                if c not in seen and c in opset:
                    ok = False
                    break
        if not ok:
            break
        seen.add(op)
    if ok:
        return ops
    # general case (graphs rewritten after creation, or ops that may wait): Kahn's algorithm
    indeg = {}
    users = {op: [] for op in ops}
    for op in ops:
        deps = {t._op for t in op._inputs if t not in fed and t._op in opset}
        deps.update(c for c in op._control_inputs if c in opset)
        indeg[op] = len(deps)
        for d in deps:
            users[d].append(op)
    import heapq

    early = _early_updates(ops, opset, fed, fetches) if 1 in late.values() else {}
    unread = {u: len(readers) for u, readers in early.items()}
    waiting = {}  # reader -> the early updates it holds back
    for u, readers in early.items():
        for r in readers:
            waiting.setdefault(r, []).append(u)

    # the inputs of an early update that read nothing (its slots' variables, its learning
    # rate), created after the gradients, would otherwise hold it back until they are the
    # oldest ops left
    sources = {t._op for u in early for t in u._inputs
               if t not in fed and t._op in opset and not t._op._inputs
               and not t._op._control_inputs and not late[t._op]}

    def key(op):
        if op in unfed:
            return (-2, -op._id, op)
        if unread.get(op) == 0 or op in sources:
            return (-1, op._id, op)
        return (late[op], op._id, op)

    ready = [key(op) for op in ops if indeg[op] == 0]
    heapq.heapify(ready)
    out = []
    done = set()
    while ready:
        op = heapq.heappop(ready)[2]
        if op in done:
            continue  # an early update's first entry, from before its readers had run
        done.add(op)
        out.append(op)
        for u in waiting.get(op, ()):
            unread[u] -= 1
            if not unread[u] and not indeg[u] and u not in done:
                heapq.heappush(ready, key(u))
        for u in users[op]:
            indeg[u] -= 1
            if indeg[u] == 0:
                heapq.heappush(ready, key(u))
    if len(out) != len(ops):
        stuck = sorted(op.name for op in ops if indeg[op] > 0)[:5]
        raise errors.InvalidArgumentError(
            None, None, f"Graph is invalid, contains a cycle with {len(ops) - len(out)} nodes, "
            f"including: {', '.join(stuck)}"
        )
    return out


def bind_kernel(op, device, session_state, session, op_def=None):
    """The callable that runs ``op`` on ``device``, with its attrs bound (once per plan);
    ``op_def``: another declaration whose kernel runs instead (a graph pass's rewrite)."""
    od = op._op_def if op_def is None else op_def
    if device.device_type == "CPU":
        kernel_types.check_cpu_kernel(op)  # (a dtype TF 1.15 has no kernel for)
    if od.check_attrs is not None:
        od.check_attrs(op._attrs)
    # (a kernel registered for the device type replaces a declaration's own, never the kernel
    # a graph pass's rewrite made for this op: a copy of the declaration with its own kernel)
    dk = op_registry.device_kernel(op._type if op_def is None else od.name, device.device_type)
    if dk is not None and (op_def is None or op_registry.lookup(od.name) is op_def):
        od = dk  # a kernel registered for this device type (same fields as a declaration)
    return _bound(op, od, device, session_state, session)


def _bound(op, od, device, session_state, session):
    if od.kernel_factory is not None:
        return od.kernel_factory(KernelContext(op, device, session_state, session))
    k = od.kernel
    if k is None:
        raise errors.UnimplementedError(
            None, op, f"No kernel registered for op {op.type} ('{op.name}') on {device.name}"
        )
    if isinstance(k, str):
        return getattr(device.xp, k)
    kw = {a: op._attrs[a] for a in od.kernel_attrs}
    if od.kernel_wants_ctx:
        kw["ctx"] = KernelContext(op, device, session_state, session)
    return functools.partial(k, **kw) if kw else k


class Plan:
    """A compiled subgraph: ``run(feed_values, step)`` returns the fetched values."""

    def __init__(self, graph, fetches, feeds, targets, device, session_state, session,
                 optimize=True, raw=False, order=None, partition=None, trace=False,
                 recv_asap=False, coop=False):
        self.graph = graph
        # raw: return the fetched values as the kernels produced them (function bodies run as
        # sub-plans, runtime/functions.py); otherwise as Session.run hands them to the user
        self.raw = raw
        self.optimize = optimize
        self.fetches = fetches
        self.feeds = feeds
        self.device = device
        self.partition = partition
        self.trace = trace
        self.recv_asap = recv_asap
        # coop: a partition's plan compiled as a generator that yields the key of each Recv
        # whose value is not there yet (parallel.MultiPlan runs such partitions in one thread)
        self.coop = coop and partition is not None
        self._args = (graph, fetches, feeds, targets, device, session_state, session, optimize,
                      raw)
        fed = {t: i for i, t in enumerate(feeds)}
        if order is None:
            order = topo_order(prune(fetches, targets, fed), fed, fetches)
        self._order = order
        avail = fed
        live_fetches, live_targets = fetches, targets
        if partition is not None:
            # received tensors are available like feeds; what is sent must be computed
            avail = dict(fed)
            for t in partition.recvs:
                avail.setdefault(t, -1)
            live_fetches = list(fetches) + list(partition.sends)
            live_targets = list(targets) + list(partition.ctrl_sends)
        # the outputs of each While/If the step needs, as prune found them (before the
        # passes below drop readers: the loop still runs what prune computed inputs for)
        self._flows = flow_needs(order, live_fetches, live_targets, fed)
        if optimize:
            replace, consts = graph_passes.optimize(order, avail, device, session_state, session,
                                                    live_fetches)
            if not trace and partition is None:  # (a traced step lists each op it runs)
                shape_memo.memoize_shapes(order, avail, live_fetches, replace, consts, device,
                                          session_state, session)
        else:
            replace, consts = {}, graph_passes.const_values(order)
        self.needed = order  # before folding: what placement must satisfy
        # pure ops only control edges wait for: NoOps, as TF's dependency optimizer makes them
        noops = grappler_dependency.noops(order, fetches, targets, fed) if (
            not raw and partition is None and grappler_dependency.on(session, order)) else ()
        order = getattr(replace, "order", None) or order  # (with the ops a rewrite added)
        # ops whose outputs are all replaced by folded constants or CSE are dropped
        live = _live_ops(order, live_fetches, live_targets, avail, replace, consts, noops)
        order = [op for op in order if op in live]
        self.ops = order
        # While/If ops take the step (cancellation, deadline) whether inlined or not
        self.needs_step = trace or partition is not None or any(
            op._op_def.kernel_wants_step for op in order)
        # convolutions or pooling: BLAS held to one thread, the intra-op pool doing the work
        self.uses_pool = any(op._type in threads.POOL_OP_TYPES for op in order)
        self.trace_nodes = []
        self._compile(order, fetches, fed, replace, consts, device, session_state, session)

    def variant(self, trace=False, recv_asap=None, partition=None, coop=None):
        """The same plan compiled again, instrumented for tracing or with other options."""
        return Plan(*self._args, order=self._order,
                    partition=self.partition if partition is None else partition, trace=trace,
                    recv_asap=self.recv_asap if recv_asap is None else recv_asap,
                    coop=self.coop if coop is None else coop)

    @property
    def traced(self):
        """The instrumented variant of this plan (compiled on first use)."""
        t = self.__dict__.get("_traced_plan")
        if t is None:
            t = self._traced_plan = self.variant(trace=True)
        return t

    def _compile(self, order, fetches, fed, replace, consts, device, session_state, session):
        em = _Emitter(device, session_state, session, self.optimize)
        names = {}
        feed_vars = []
        for t, i in fed.items():
            names[t] = f"f{i}"
            feed_vars.append(f"f{i}")
        if feed_vars:
            if device is not None and not device.is_host:
                em.env["__todev__"] = device.to_device
                em.line(f"{_tuple(feed_vars)} = [__todev__(x) for x in __feeds__]", 2)
            else:
                em.line(f"{_tuple(feed_vars)} = __feeds__", 2)
        if self.partition is not None or self.trace:
            from tideflow.runtime.tracing import StepLines

            StepLines(self, em, fed, replace, consts, names).setup()
        if self.coop:
            em.line("if False: yield  # a generator even without a Recv", 2)
        outs = em.emit(order, fetches, fed, replace, consts, names, 2, top=True,
                       flows=self._flows)
        rets = []
        if em.has_switch:
            em.env["__live__"] = _fetch_live
            outs = [f"__live__({r}, {i})" for i, r in enumerate(outs)]
        from_feeds = ()
        if feed_vars and not self.raw and (device is None or device.is_host):
            # what may hand a fed array back whole (an Identity of it): such a fetch is
            # checked, since TF returns a new array (a fed tensor fetched itself is the fed
            # object there too) and a program may refill its feed buffer while keeping what
            # it fetched
            from_feeds = set(fed)
            for op in order:
                if any(x in from_feeds for x in op._inputs):
                    from_feeds.update(op._outputs)
            em.env["__outf__"] = _out_unless_fed
        for t, r in zip(fetches, outs):
            rt = replace.get(t, t)
            if self.raw:
                rets.append(r)
                continue
            if rt in consts:
                r = f"__copy__({r})"
            if (t in from_feeds or rt in from_feeds) and t not in fed:
                rets.append(f"__outf__({r}, ({_tuple(feed_vars)}))")
            else:
                rets.append(f"__out__({r})")
        em.line("return [" + ", ".join(rets) + "]", 2)
        header = ["def __make__(__env__):", "    globals().update(__env__)",
                  "    def run(__feeds__, __step__):"]
        src = "\n".join(header + em.lines + _frame_padding(em.lines) + ["    return run"]) + "\n"
        self.source = src
        self._line_ops = {len(header) + 1 + i: op for i, op in em.line_ops.items()}
        env = em.env
        env["__out__"] = _out if device is None or device.is_host else _out_host
        env["__ip1__"] = _inplace_unary
        env["__ip2__"] = _inplace_binary
        env["__ip2b__"] = _inplace_binary_second
        env["__own__"] = _sole_owner
        env["__copy__"] = np.copy
        code = compile(src, f"<tideflow plan {id(self):x}>", "exec")
        self._code_filename = code.co_filename
        ns = {}
        exec(code, ns)  # noqa: S102 - our own generated plan code
        self._run = ns["__make__"](env)

    def run(self, feed_values, step):
        try:
            if not self.ops:
                return self._run(feed_values, step)
            # TF's kernels are silent about inf/nan; so are NumPy's here
            if not self.uses_pool:
                threads.hold_step()  # small products keep BLAS at one thread till the end
                try:
                    with np.errstate(all="ignore"):
                        out = self._run(feed_values, step)
                finally:
                    threads.leave_step()
            else:
                threads.enter_step()
                try:
                    with np.errstate(all="ignore"):
                        out = self._run(feed_values, step)
                finally:
                    threads.leave_step()
            if step is not None and step.deferred:
                step.finish_deferred()
            return out
        except StepAborted:
            raise
        except Exception as e:  # noqa: BLE001 - any kernel failure maps to its op
            from tideflow.runtime import failed_step

            # as TF's executor, the step's branches that do not depend on the failed op run
            # to their end before the error is reported
            failed_step.run_rest(self, e)
            # the failed step's values die now, not with the exception (as TF frees a failed
            # step's tensors): big buffers, and CriticalSection locks, are released
            traceback.clear_frames(e.__traceback__)
            raise self._op_error(e) from (None if isinstance(e, errors.OpError) else e)

    def start(self, feed_values, step):
        """A coop plan's step as a generator; an exception it raises maps to the op's error
        through ``op_error`` (as ``run`` does)."""
        return self._run(feed_values, step)

    def op_error(self, e):
        return self._op_error(e)

    def _op_error(self, e):
        tb = e.__traceback__
        op = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._code_filename:
                op = self._line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        if op is None:  # a deferred wait failing after the plan's lines carries its op
            op = getattr(e, "_op", None)
        if (op is not None and op._type in state_ops._VARIABLE_OPS
                and isinstance(e, errors.FailedPreconditionError)):
            # TF's executor fails the op that reads the uninitialized ref ("v/read"), not the
            # variable; a ref fetched as it is fails in its _retval, which names no op
            ref = op._outputs[0]
            op = e._op = next((c for c in self.ops if ref in c._inputs), None)
            if op is None and not self.raw and "[[" not in e._message:
                e._message += retval_note(ref, self.fetches)
        return op_error_for(e, op)


# control-flow inlining (If and While bodies emitted into the plan's own function); off only
# to test the sub-plan fallback. Python allows 20 nested blocks: deeper nests fall back.
INLINE_CONTROL_FLOW = True
_MAX_INLINE_DEPTH = 14


def function_targets(fg):
    """The ops of a function body that run whether or not an output needs them: stateful ones.

    A ``tf.cond`` branch or ``tf.while_loop`` body runs, as TF 1.x's control flow does, only
    what its outputs need (an unused ``tf.assign`` in a branch never runs) and the Operations
    a branch returns.
    """
    if fg.control_flow_body:
        return [x for x in nest.flatten(fg.structured_outputs)
                if isinstance(x, Operation) and x._graph is fg]
    return [op for op in fg._ops
            if op._op_def.is_stateful and not op._op_def.is_random and op._type != "Placeholder"]


def _truth(c):
    """TF's If predicate: a scalar by its truth value, any other tensor by non-emptiness."""
    if getattr(c, "ndim", 0) == 0:
        return bool(c)
    return c.size > 0


def _cancelled(op):
    raise errors.CancelledError(None, op, "Step was cancelled (the session was closed)")


def _deadline_exceeded(op):
    raise errors.DeadlineExceededError(
        None, op, "Timed out waiting for the loop to end (RunOptions.timeout_in_ms)")


def _never():
    return False


def _scalar(v):
    # a view (a variable's read) stays an array: the loop then sees the variable's updates,
    # as TF's read of a ref variable does
    if type(v) is np.ndarray and v.ndim == 0 and v.dtype != object and v.base is None:
        return v[()]
    return v


def _hashable(f):
    try:
        hash(f)
    except TypeError:
        return False
    return True


# ufunc kernels whose Python operator is the same computation (ndarray and NumPy scalar
# operators dispatch to these ufuncs; operands of TF's binary ops share one dtype)
_INFIX = {np.add: "+", np.subtract: "-", np.multiply: "*", np.less: "<", np.less_equal: "<=",
          np.greater: ">", np.greater_equal: ">="}


class _InfixTable(dict):
    def get(self, key, default=None):
        return dict.get(self, key, default) if _hashable(key) else default


_INFIX = _InfixTable(_INFIX)


class _Emitter:
    """Generates a plan's source: one line per kernel call, ``del`` after each value's last use.

    An If or While op whose bodies are in the graph's library becomes an ``if``/``while``
    block around its bodies' own lines (paper §4.4's control flow, compiled): a loop iteration
    then costs its kernels' calls, one truth test and one cancellation check.
    """

    def __init__(self, device, session_state, session, optimize=True):
        self.device = device
        self.session_state = session_state
        self.session = session
        self.optimize = optimize
        self.env = {"__truth__": _truth, "__cancelled__": _cancelled,
                    "__deadline_exceeded__": _deadline_exceeded, "__never__": _never,
                    "__monotonic__": time.monotonic, "__scalar__": _scalar}
        self.lines = []
        self.line_ops = {}  # index in lines -> op
        self._n = itertools.count()
        self.hooks = None  # top-level Send/Recv and tracing lines (runtime/tracing.py)
        self.dead_region = frozenset()  # ops downstream of a Switch (may see dead inputs)
        self.has_switch = False

    def line(self, text, depth, op=None):
        if op is not None:
            self.line_ops[len(self.lines)] = op
        self.lines.append("    " * depth + text)

    def emit(self, order, fetches, fed, replace, consts, names, depth, top=False, flows=None):
        """Emits the ordered ops; returns the expressions that hold ``fetches``. ``flows``:
        the While and If ops the step needs only some outputs of (flow_needs)."""
        hooks = self.hooks if top else None

        def ref(t):
            t = replace.get(t, t)
            n = names.get(t)
            if n is None and t in consts:
                n = f"c{next(self._n)}"
                v = consts[t]
                if depth > 2 and type(v) is np.ndarray and v.ndim == 0 and v.dtype != object:
                    v = v[()]  # in loop bodies, NumPy scalars take the scalar fast path
                elif self.device is not None and not self.device.is_host:
                    v = self.device.to_device(v)
                self.env[n] = v
                names[t] = n
            return n

        last_use = {}
        for idx, op in enumerate(order):
            for t in op._inputs:
                last_use[replace.get(t, t)] = idx
        outer_region = self.dead_region
        self.dead_region = _dead_region(order, replace) | outer_region
        if self.dead_region:
            self.has_switch = True
        fetch_set = {replace.get(t, t) for t in fetches}
        sums, held, gone = {}, {}, set()
        if self.optimize and (self.device is None or self.device.is_host) and (
                hooks is None or hooks.part is None):
            # AddNs of many gradients summed as their inputs are computed (runtime/accumulate)
            sums = accumulate.running_sums(order, last_use, fetch_set, fed, consts, replace)
            self.env.setdefault("__sum2__", accumulate.first_two)
            self.env.setdefault("__sum__", accumulate.add_into)
        # the AddNs grappler left to the running sums but not summed so sum in TF's order
        tf_order = getattr(replace, "add_n_tf_order", None)
        summed = {a for sums_of in sums.values() for _, a, _ in sums_of} if tf_order else ()
        if hooks is not None:
            hooks.start(ref, last_use, fetch_set)
        for idx, op in enumerate(order):
            if hooks is not None:
                hooks.before(op, idx)
            od = op._op_def
            kernels = getattr(replace, "kernels", None)
            if kernels and op in kernels:
                od = kernels[op]
            elif tf_order and op in tf_order and op not in summed:
                od = tf_order[op]
            outs = op._outputs
            targets = []
            for t in outs:
                if t in fed or t in consts or replace.get(t, t) is not t:
                    targets.append("_")
                else:
                    n = f"v{op._id}_{t._value_index}"
                    names[t] = n
                    targets.append(n)
            done = op in held  # a running sum, complete by now under its output's name
            # (one downstream of a Switch runs through its kernel, which a dead input skips)
            flow = flows.get(op) if flows else None  # (outputs, inputs) a While/If needs
            if op._type in ("While", "If") and INLINE_CONTROL_FLOW and (
                    depth < _MAX_INLINE_DEPTH) and op not in self.dead_region:
                # (an input no needed output reads is not computed: None stands for it)
                flat_in = [ref(t) or "None" for t in op._inputs]
                done = self._emit_control(op, flat_in, targets, depth, flow)
            elif flow is not None and not done:
                self._emit_flow_call(op, flow, ref, targets, depth)
                done = True
            if not done:
                self._emit_call(op, od, ref, last_use, idx, fetch_set, fed, consts, names,
                                targets, replace, depth)
            if hooks is not None:
                hooks.after(op, idx, targets)
            for t, addn, i in sums.get(op, ()):
                acc = f"v{addn._id}_0"
                first = held.setdefault(addn, (t, i))
                if first[0] is t:
                    continue  # kept until a second input is there
                if first[0] not in gone:
                    self.line(f"{acc} = __sum2__({names[first[0]]}, {names[t]}, {first[1]}, {i})",
                              depth, addn)
                    self.line(f"del {names[first[0]]}", depth)
                    gone.add(first[0])
                else:
                    self.line(f"__sum__({acc}, {names[t]}, {first[1]}, {i})", depth, addn)
                self.line(f"del {names[t]}", depth)
                gone.add(t)
            dead = [names[t] for t in {replace.get(x, x) for x in op._inputs}
                    if last_use.get(t) == idx and t not in fetch_set and t not in fed
                    and t not in consts and t in names and t not in gone]
            if dead:
                self.line("del " + ", ".join(dead), depth)
        self.dead_region = outer_region
        return [ref(t) for t in fetches]

    def _emit_call(self, op, od, ref, last_use, idx, fetch_set, fed, consts, names, targets,
                   replace, depth):
        kname = f"k{next(self._n)}"
        try:
            self.env[kname] = bind_kernel(op, self.device, self.session_state, self.session,
                                          None if od is op._op_def else od)
        except Exception as e:  # noqa: BLE001 - reported as the op's error
            raise op_error_for(e, op) from (None if isinstance(e, errors.OpError) else e)
        args = []
        pos = 0
        for arg in od.inputs:
            if arg.is_list:
                n = _list_len(op, arg)
                args.append("[" + ", ".join(ref(t) for t in op._inputs[pos:pos + n]) + "]")
                pos += n
            else:
                args.append(ref(op._inputs[pos]))
                pos += 1
        if od.kernel_wants_step:
            args.append("step=__step__")
        kernel = self.env[kname]
        if kernel is _no_op_kernel:
            self.line("pass", depth, op)  # NoOp: its control edges are the line order
            return
        if op in self.dead_region and op._type not in _DEAD_AWARE:
            # downstream of a Switch: an op with a dead input does not run, its outputs dead
            single = len(od.outputs) == 1 and not od.outputs[0].is_list
            self.env[kname] = _live_only(kernel, len(op._outputs), single)
            call = f"{kname}({', '.join(args)})"
            if not op._outputs or all(x == "_" for x in targets):
                self.line(call, depth, op)
            elif single:
                self.line(f"{targets[0]} = {call}", depth, op)
            else:
                self.line(f"{_tuple(targets)} = {call}", depth, op)
            return
        call = f"{kname}({', '.join(args)})"
        if len(args) == 1 and (_is_pass_through(op, od, kernel) or _reads_fed_ref(op, fed)):
            call = args[0]  # Identity on the host returns its input: no call
        # (not for an output known to be big: the in-place forms below save its buffer)
        infix = _INFIX.get(kernel) if depth > 2 and len(args) == 2 and not _big(
            op._outputs) else None
        scratch = getattr(kernel, "scratch_input", None)

        def dying(i):
            t = replace.get(op._inputs[i], op._inputs[i])
            return (last_use.get(t) == idx and t in names and t not in fetch_set
                    and t not in fed and t not in consts)

        if infix is not None:
            # inside a loop body: the operator reaches the same ufunc, through NumPy's scalar
            # fast path when the operands are scalars (a 25x cheaper call)
            call = f"({args[0]} {infix} {args[1]})"
        elif (od.inplace is not None and len(op._outputs) == 1 and len(args) <= 2
              and not _small(op._outputs[0])):
            if od.inplace == 0 and dying(0):
                call = f"__ip{len(args)}__({kname}, {', '.join(args)})"
            elif (len(args) == 2 and od.inplace == 0 and type(kernel) is np.ufunc
                  and dying(1)):
                # the second operand dies here (a loop's gradient sum acc + dW_t): its buffer
                call = f"__ip2b__({kname}, {', '.join(args)})"
        elif scratch is not None and not _small(op._inputs[scratch]):
            # the kernel may use this dying input as scratch space (a gradient whose only
            # consumer is the update): it is then called in its ``donated`` form
            t_in = replace.get(op._inputs[scratch], op._inputs[scratch])
            if (last_use.get(t_in) == idx and t_in in names and t_in not in fetch_set
                    and t_in not in fed and t_in not in consts
                    and sum(replace.get(t, t) is t_in for t in op._inputs) == 1):
                dname = f"{kname}d"
                self.env[dname] = kernel.donated
                call = (f"({dname} if __own__({args[scratch]}) else {kname})"
                        f"({', '.join(args)})")
        single = len(od.outputs) == 1 and not od.outputs[0].is_list
        if not op._outputs or all(x == "_" for x in targets):
            text = call
        elif single:
            text = f"{targets[0]} = {call}"
        else:
            text = f"{_tuple(targets)} = {call}"
        self.line(text, depth, op)

    def _emit_flow_call(self, op, flow, ref, targets, depth):
        """A While or If not inlined, needed for some outputs only: its kernel runs the
        reduced loop or branches (runtime/functions.py) on the inputs those need."""
        from tideflow.runtime import functions

        kname = f"k{next(self._n)}"
        try:
            self.env[kname] = functions.reduced_flow_kernel(
                op, flow, KernelContext(op, self.device, self.session_state, self.session))
        except Exception as e:  # noqa: BLE001 - reported as the op's error
            raise op_error_for(e, op) from (None if isinstance(e, errors.OpError) else e)
        if op in self.dead_region:
            self.env[kname] = _live_only(self.env[kname], len(op._outputs), False)
        ins = [ref(t) if k in flow[1] else "None" for k, t in enumerate(op._inputs)]
        if op._type == "If":
            call = f"{kname}({ins[0]}, [{', '.join(ins[1:])}], step=__step__)"
        else:
            call = f"{kname}([{', '.join(ins)}], step=__step__)"
        if all(x == "_" for x in targets):
            self.line(call, depth, op)
        else:
            self.line(f"{_tuple(targets)} = {call}", depth, op)

    def _prepare(self, fg, outputs):
        """A function body pruned, optimized and ordered: (order, fed, replace, consts,
        flows)."""
        fed = {t: i for i, t in enumerate(fg.args)}
        targets = function_targets(fg)
        order = topo_order(prune(outputs, targets, fed), fed, outputs)
        flows = flow_needs(order, outputs, targets, fed)
        if self.optimize:
            replace, consts = graph_passes.optimize(order, fed, self.device, self.session_state,
                                                    self.session, outputs)
            # (a body's ops are in no trace: only the top level's are)
            shape_memo.memoize_shapes(order, fed, outputs, replace, consts, self.device,
                                      self.session_state, self.session)
        else:
            replace, consts = {}, graph_passes.const_values(order)
        order = getattr(replace, "order", None) or order  # (with the ops a rewrite added)
        live = _live_ops(order, outputs, targets, fed, replace, consts)
        return [op for op in order if op in live], fed, replace, consts, flows

    def _emit_body(self, fg, arg_exprs, depth, outputs=None):
        outputs = fg.outputs if outputs is None else outputs
        order, fed, replace, consts, flows = self._prepare(fg, outputs)
        names = dict(zip(fg.args, arg_exprs))
        return self.emit(order, outputs, fed, replace, consts, names, depth, flows=flows)

    def _emit_control(self, op, flat_in, targets, depth, flow=None):
        fns = _flow_functions(op)
        if fns is None:
            return False
        mark = (len(self.lines), dict(self.line_ops))
        try:
            if op._type == "While":
                self._emit_while(op, fns, flat_in, targets, depth, flow)
            else:
                self._emit_if(op, fns, flat_in, targets, depth, flow)
        except errors.OpError:
            raise
        except Exception:  # noqa: BLE001 - anything unexpected: run the op's kernel instead
            del self.lines[mark[0]:]
            self.line_ops = mark[1]
            return False
        return True

    def _emit_while(self, op, fns, flat_in, targets, depth, flow=None):
        """``flow``: (outputs, inputs) needed when not all are: the loop carries only the
        loop variables those outputs need (flow_inputs_needed); the others are None."""
        cond_fg, body_fg = fns
        keep = range(len(flat_in)) if flow is None else flow[1]
        if flow is not None:
            flat_in = [x if j in keep else "None" for j, x in enumerate(flat_in)]
        w = [f"w{op._id}_{j}" for j in range(len(flat_in))]
        oname = f"__op{op._id}"
        self.env[oname] = op
        cc, dl = f"__cc{op._id}", f"__dl{op._id}"
        # 0-d arrays enter as NumPy scalars (the scalar fast path); refs stay buffers
        init = [x if t._dtype._is_ref_dtype else f"__scalar__({x})"
                for t, x in zip(op._inputs, flat_in)]
        self.line(f"{_tuple(w)} = {_tuple(init)}", depth, op)
        self.line(f"{cc} = __step__.cancelled.is_set if __step__ is not None else __never__",
                  depth, op)
        self.line(f"{dl} = __step__.deadline if __step__ is not None else None", depth, op)
        self.line("while True:", depth, op)
        (c,) = self._emit_body(cond_fg, w, depth + 1)
        self.line(f"if not {c}:", depth + 1, op)
        self.line("break", depth + 2, op)
        outs = self._emit_body(body_fg, w, depth + 1, [body_fg.outputs[j] for j in keep])
        # invariants pass through; values nothing needs keep their first ones
        changed = [(x, o) for x, o in zip([w[j] for j in keep], outs) if x != o]
        if changed:
            self.line(f"{_tuple([x for x, _ in changed])} = {_tuple([o for _, o in changed])}",
                      depth + 1, op)
        self.line(f"if {cc}(): __cancelled__({oname})", depth + 1, op)
        self.line(f"if {dl} is not None and __monotonic__() > {dl}: "
                  f"__deadline_exceeded__({oname})", depth + 1, op)
        real = [(t, x) for t, x in zip(targets, w) if t != "_"]
        if real:
            self.line(f"{_tuple([t for t, _ in real])} = {_tuple([x for _, x in real])}", depth,
                      op)

    def _emit_if(self, op, fns, flat_in, targets, depth, flow=None):
        """``flow``: (outputs, inputs) needed when not all are: the branches compute only
        those outputs (the others are None), as TF 1.x's Merges run only what they need."""
        if flow is not None:
            flat_in = [x if j in flow[1] else "None" for j, x in enumerate(flat_in)]
            outputs = sorted(flow[0])
            targets = [targets[j] for j in outputs] + [
                t for j, t in enumerate(targets) if j not in flow[0] and t != "_"]
        self.line(f"if __truth__({flat_in[0]}):", depth, op)
        for k, fg in enumerate(fns):
            if k:
                self.line("else:", depth, op)
            if flow is None:
                outs = self._emit_body(fg, flat_in[1:], depth + 1)
            else:
                outs = self._emit_body(fg, flat_in[1:], depth + 1,
                                       [fg.outputs[j] for j in outputs])
                outs = outs + ["None"] * (len(targets) - len(outs))
            real = [(t, x) for t, x in zip(targets, outs) if t != "_"]
            if real:
                self.line(f"{_tuple([t for t, _ in real])} = {_tuple([x for _, x in real])}",
                          depth + 1, op)
            else:
                self.line("pass", depth + 1, op)


def flow_needs(order, fetches, targets, fed):
    """{While/If op: (needed outputs, needed inputs)} for those of ``order`` (prune's ops,
    in order) that the step needs only some outputs of: the same outputs prune found, from
    the last op back (so a loop feeding another counts only the inputs that one reads); None
    when there are none. A control edge or a target needs every output (TF's every Exit)."""
    if not any(op._type in _FLOW_OPS for op in order):
        return None
    controlled = set(targets)
    for o in order:
        controlled.update(o._control_inputs)
    fetch_set = set(fetches)
    reads = set()
    flows = {}
    for op in reversed(order):
        ins = op._inputs
        if op._type in _FLOW_OPS and op not in controlled:
            used = frozenset(j for j, t in enumerate(op._outputs)
                             if (t in reads or t in fetch_set) and t not in fed)
            keep = flow_inputs_needed(op, used) if used else None
            if keep is not None:
                flows[op] = (used, keep)
                ins = [ins[k] for k in keep]
        reads.update(ins)
    return flows or None


def _tuple(items):
    return ", ".join(items) + ("," if len(items) == 1 else "")


def _args_read(fg, outputs):
    """The indices of ``fg``'s arguments that computing ``outputs`` reads."""
    fed = {t: i for i, t in enumerate(fg.args)}
    reads = set(outputs)
    ops = prune(outputs, function_targets(fg), fed, reads)
    arg_ops = {op for op in ops if op._type == "Placeholder"}
    return {i for i, a in enumerate(fg.args) if a in reads or a._op in arg_ops}


def _loop_values_needed(cond_fg, body_fg, used):
    """As TF 1.x's frames prune a loop: the indices of the loop values the step needs, the
    used outputs, what the condition reads, and what the body reads to compute those (so an
    unused value's ops, random or stateful, do not run)."""
    needed = set(used) | _args_read(cond_fg, cond_fg.outputs)
    while True:
        more = needed | _args_read(body_fg, [body_fg.outputs[j] for j in sorted(needed)])
        if more == needed:
            return sorted(needed)
        needed = more


def retval_note(ref, fetches):
    """The line TF's error names a fetched ref's ``_Retval`` node with (an uninitialized
    variable fetched as it is): "_retval_<op>_<output>_<index>", the index the fetch's place
    among the step's fetched names in sorted order; "" when ``ref`` is not fetched."""
    names = sorted({t.name for t in fetches if isinstance(t, Tensor)})
    if ref.name not in names:
        return ""
    if state_ops.is_resource(ref.op):
        # a resource variable is fetched through its read op (TF's "<name>/Read/ReadVariableOp")
        return (f"\n\t [[node {ref.op.name}/Read/ReadVariableOp (defined at "
                f"{ref.op._user_location}) ]]")
    return f"\n\t [[{{{{node _retval_{ref.op.name}_{ref.value_index}_{names.index(ref.name)}}}}}]]"


def op_error_for(e, op):
    """Turns an exception raised by ``op``'s kernel into a TF OpError that names the op."""
    fn_name = getattr(op.graph, "_tf_error_name", None) if op is not None else None
    if fn_name is not None:
        return _function_op_error(e, op, fn_name)
    if (op is not None and isinstance(e, errors.OpError) and e._op is None
            and getattr(e, "_in_function", False) and "[[node " not in e._message):
        # (an error from a tf.data function reaches the step through the iterator's op, which
        # TF names plainly, leaving the error without an op)
        if f"[[{op.name}]]" not in e._message:
            e._message += f"\n\t [[{op.name}]]"
        return e
    where = ""
    if op is not None:
        where = f"\n\t [[node {op.name} (defined at {op._user_location}) ]]"
    if op is not None and op.type == "AddN" and isinstance(e, errors.OpError):
        # TF's AddN kernel names its node and type, which the kernel here does not know
        e._message = e._message.replace(
            "Inputs to operation AddN must", f"Inputs to operation {op.name} of type AddN must",
            1)
    if isinstance(e, errors.OpError):
        if op is not None and "[[node " not in e._message:
            e._op = e._op or op
            e._message = e._message + where
        return e
    prefix = f"{op.type} op '{op.name}': " if op is not None else ""
    text = _tf_wording(e)
    # a message put in TF's words reads as TF's kernel says it (the node line names the op);
    # so does a kernel's own 'Incompatible shapes' (BroadcastGradientArgs's)
    msg = f"{text}{where}" if text != str(e) or text.startswith("Incompatible shapes: [") \
        else f"{prefix}{text}{where}"
    if isinstance(e, MemoryError):
        return errors.ResourceExhaustedError(None, op, msg)
    if isinstance(e, (ValueError, TypeError, IndexError, ZeroDivisionError, FloatingPointError)):
        return errors.InvalidArgumentError(None, op, msg)
    return errors.UnknownError(None, op, f"{prefix}{type(e).__name__}: {e}{where}")


def _function_op_error(e, op, fn_name):
    """An error of ``op`` inside a tf.data function, as TF 1.15's function runtime writes it:
    "{{function_node NAME}} " ahead, the node as "[[{{node OP}}]]" (an op of no graph the
    session knows, so TF's error names none). TF's session then drops a function tag whose
    name its tag pattern reads (not a lambda's: "<lambda>" is outside it), leaving the space."""
    where = f"\n\t [[{{{{node {op.name}}}}}]]"
    head = " " if _TAG_NAME.fullmatch(fn_name) else f"{{{{function_node {fn_name}}}}} "
    if isinstance(e, errors.OpError):
        if "[[" not in e._message:
            e._message = head + e._message + where
            e._in_function = True
            if e._op is op:
                e._op = None
        return e
    text = _tf_wording(e)
    if isinstance(e, MemoryError):
        out = errors.ResourceExhaustedError(None, None, f"{head}{text}{where}")
    elif isinstance(e, (ValueError, TypeError, IndexError, ZeroDivisionError,
                        FloatingPointError)):
        out = errors.InvalidArgumentError(None, None, f"{head}{text}{where}")
    else:
        out = errors.UnknownError(None, None, f"{head}{type(e).__name__}: {e}{where}")
    out._in_function = True
    return out


_TAG_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.\-/]*")


_BROADCAST = re.compile(r"operands could not be broadcast together with shapes ((?:\([^)]*\) ?)+)")
# (np.broadcast_arrays's words for the same, arguments 0 and 1 of a binary kernel)
_BROADCAST_ARGS = re.compile(r"shape mismatch: objects cannot be broadcast to a single shape\.  "
                             r"Mismatch is between arg 0 with shape (\([^)]*\)) and arg 1 with "
                             r"shape (\([^)]*\))")


def _tf_wording(e):
    """NumPy's message for ``e`` in TF's words where users grep for TF's: a broadcast between
    incompatible shapes is TF's 'Incompatible shapes: [2,3] vs. [4]'."""
    text = str(e)
    if not isinstance(e, ValueError):
        return text
    m = _BROADCAST.search(text)
    if m is None:
        m = _BROADCAST_ARGS.search(text)
        if m is None:
            return text
        shapes = [m.group(1)[1:-1], m.group(2)[1:-1]]
    else:
        shapes = re.findall(r"\(([^)]*)\)", m.group(1))
    dims = ["[" + ",".join(d.strip() for d in s.split(",") if d.strip()) + "]" for s in shapes]
    return "Incompatible shapes: " + " vs. ".join(dims)


# below this many elements a fresh allocation is cheaper than the in-place checks
_INPLACE_MIN_ELEMENTS = 1 << 14


def _big(outs):
    """True when the single output is statically known to be big enough for buffer reuse."""
    if len(outs) != 1 or outs[0]._shape.ndims is None:
        return False
    n = outs[0]._shape.num_elements()
    return n is not None and n >= _INPLACE_MIN_ELEMENTS


def _small(t):
    """True when ``t`` is statically known to be too small for buffer reuse to pay."""
    n = t._shape.num_elements()
    return n is not None and n < _INPLACE_MIN_ELEMENTS


# references to an array in _inplace_*: the plan's local, the parameter, getrefcount's own
_SOLE_OWNER_REFS = 3


def _sole_owner(a):
    """True when ``a`` is an array that owns its buffer and nothing else can see it."""
    return type(a) is np.ndarray and a.flags.owndata and a.flags.writeable and (
        sys.getrefcount(a) <= _SOLE_OWNER_REFS)


_DEAD_AWARE = SWITCH_TYPES | MERGE_TYPES


def _dead_region(order, replace):
    """The ops of ``order`` that may see a dead tensor: those reading, directly or through
    other such ops, an output of a Switch (Merges included: theirs is dead when all their
    inputs are) or a tensor of a cond branch taken out of its If (cond._dead_elsewhere).
    Empty, and free, for plans without either."""
    sources = order[0]._graph.__dict__.get("_dead_sources") if order else None
    if not sources and not any(op._type in SWITCH_TYPES for op in order):
        return frozenset()
    deadish = set(sources or ())
    region = set()
    for op in order:
        if op._type in SWITCH_TYPES or any(replace.get(t, t) in deadish for t in op._inputs):
            region.add(op)
            deadish.update(op._outputs)
    return frozenset(region)


def _live_only(kernel, n_outputs, single=True):
    """``kernel`` run only when none of its arguments is dead; else dead outputs (a list
    output's kernel, an If's, returns them as a sequence even when there is one)."""
    dead = DEAD if n_outputs == 1 and single else (DEAD,) * n_outputs if n_outputs else None

    def run(*args, **kw):
        for a in args:
            if a is DEAD or (type(a) is list and any(x is DEAD for x in a)):
                return dead
        return kernel(*args, **kw)

    return run


# CPython 3.11+ keeps frames on a data stack of 16 KiB chunks and frees a chunk the moment the
# frame at its base returns. A plan's function whose frame (a word per local) fits the current
# chunk with little room left makes each kernel it calls start a new chunk there: an mmap and
# munmap, and page faults, per call (an unrolled LSTM's training step, ~1,900 locals, took 13
# ms instead of 4.5, depending only on how deep the caller's stack was). Frames of at least
# _PAD_TO words never fit a 16 KiB chunk: they get a new chunk of their own, with at least
# 1,000 words to spare for the kernels' frames. So a plan of _PAD_FROM locals or more is padded
# up to that many (names of a branch never taken: locals all the same).
_PAD_FROM, _PAD_TO = 512, 2100
_LOCAL_NAME = re.compile(r"\b[vwf]\d+(?:_\d+)?\b")


def _frame_padding(lines):
    """Lines that make the plan's function's frame at least _PAD_TO words, where it has
    between _PAD_FROM and _PAD_TO locals (its values' names, feeds and two arguments)."""
    if len(lines) < _PAD_FROM // 4 or sys.version_info < (3, 11):
        return []
    n = len(set(_LOCAL_NAME.findall("\n".join(lines)))) + 2
    if not _PAD_FROM <= n < _PAD_TO:
        return []
    pad = " = ".join(f"_p{i}" for i in range(_PAD_TO - n))
    return ["        if False:  # (frame padding: _frame_padding)", f"            {pad} = None"]


def _fetch_live(v, i):
    if v is DEAD:
        raise errors.InvalidArgumentError(None, None, f"Retval[{i}] does not have value")
    return v


def _reads_fed_ref(op, fed):
    """An Identity of a fed ref tensor (``feed_dict={variable: value}``): its value is the fed
    one, never the variable's current buffer (which its kernel would otherwise look up). A
    cond branch's or loop body's capture of a variable is no feed: its read looks the buffer up
    (an update earlier in the body may have moved the variable to a new one)."""
    if op._type != "Identity":
        return False
    t = op._inputs[0]
    if t not in fed or not t._dtype._is_ref_dtype:
        return False
    g = t._op._graph
    return not (t._op._type == "Placeholder" and hasattr(g, "captured_source")
                and g.captured_source(t) is not None)


def _is_pass_through(op, od, kernel):
    """An Identity whose kernel hands back its input unchanged (the host's)."""
    host = od.kernel if od.kernel is not None else getattr(od.kernel_factory, "host_kernel",
                                                           None)
    if op._type != "Identity" or kernel is not host:
        return False
    probe = object()
    try:
        return kernel(probe) is probe
    except Exception:  # noqa: BLE001 - any other kernel is called as usual
        return False


def _inplace_unary(kernel, a):
    """``kernel(a)``, written into ``a``'s buffer when nothing else can see that buffer."""
    if type(a) is np.ndarray and a.flags.owndata and a.flags.writeable and (
        sys.getrefcount(a) <= _SOLE_OWNER_REFS
    ):
        if a.size >= threads.MIN_SPLIT_SIZE and type(kernel) is np.ufunc and threads.active():
            threads.split_flat([a], lambda x: kernel(x, out=x))
            return a
        return kernel(a, out=a)
    return kernel(a)


def _inplace_binary(kernel, a, b):
    """``kernel(a, b)`` into ``a``'s buffer when ``a`` is otherwise unused and the result fits."""
    if type(a) is np.ndarray and a.flags.owndata and a.flags.writeable and (
        sys.getrefcount(a) <= _SOLE_OWNER_REFS
    ):
        bs = b.shape if type(b) is np.ndarray else np.shape(b)
        if bs == a.shape or not bs or (len(bs) <= a.ndim and a.shape[a.ndim - len(bs):] == bs):
            if a.size >= threads.MIN_SPLIT_SIZE and type(kernel) is np.ufunc and a.ndim \
                    and threads.active():
                _split_binary(kernel, a, b, bs == a.shape)
                return a
            return kernel(a, b, out=a)
    return kernel(a, b)


def _inplace_binary_second(ufunc, a, b):
    """``ufunc(a, b)`` into ``b``'s buffer when ``b`` is otherwise unused and the result has
    ``b``'s shape and dtype (an element-wise ufunc may write over an operand it reads)."""
    if type(b) is np.ndarray and type(a) is np.ndarray and a.dtype == b.dtype and (
            b.flags.owndata and b.flags.writeable and sys.getrefcount(b) <= _SOLE_OWNER_REFS):
        s = a.shape
        if s == b.shape or not s or (len(s) <= b.ndim and b.shape[b.ndim - len(s):] == s):
            return ufunc(a, b, out=b)
    return ufunc(a, b)


def _split_binary(ufunc, a, b, whole):
    """``ufunc(a, b, out=a)`` by pieces of ``a``'s first axis on the intra-op pool (``b``
    split alike when it has ``a``'s shape, else broadcast whole to every piece)."""
    def rows(i, j):
        ufunc(a[i:j], b[i:j] if whole else b, out=a[i:j])

    threads.parallel_for(a.shape[0], rows, a[0].nbytes * (2 if whole else 1))


def _out_host(v):
    from tideflow.kernels.device import to_host

    return _out(to_host(v))


def _out(v):
    if type(v) is np.ndarray:
        if v.ndim == 0:
            return v[()]
        if v.base is not None or not v.flags.writeable:
            # may share memory with a variable's buffer, or be a value the plan keeps (a
            # folded constant's, a shape group's): the caller's array is its own
            return v.copy()
    elif type(v) is UninitializedValue:  # a variable fetched in the step that initializes it
        return _out(v._tf_fetch_value())
    elif isinstance(v, UninitializedValue):  # a resource variable's handle
        return v._tf_fetch_value()
    return v


def _out_unless_fed(v, feeds):
    """``_out(v)``, copying ``v`` first when it is one of the step's fed arrays."""
    if type(v) is np.ndarray and v.base is None:
        for f in feeds:
            if v is f:
                return _out(v.copy())
    return _out(v)


def _list_len(op, arg):
    attrs = op._attrs
    if arg.number_attr is not None:
        return attrs[arg.number_attr]
    return len(attrs[arg.type_list_attr])


def _live_ops(order, fetches, targets, fed, replace, consts, noops=()):
    """Ops still needed after folding and CSE (stateful ops are never dropped). An op of
    ``noops`` reached by a control edge does not run: the ops it reads and waits for stand
    in for it (TF's dependency optimizer made it a NoOp, its inputs control inputs)."""
    order_set = set(order)
    live = set()
    expanded = set()  # the noops whose inputs were taken as control inputs
    stack = [replace.get(t, t) for t in fetches]
    stack = [t._op for t in stack if t not in fed and t not in consts]
    for op in order:
        if op._op_def.is_stateful:
            stack.append(op)
    stack.extend(targets)
    while stack:
        op = stack.pop()
        if op in live:
            continue
        live.add(op)
        for t in op._inputs:
            t = replace.get(t, t)
            # (not an input of a While/If no needed output reads: prune left its op out)
            if t not in fed and t not in consts and t._op not in live and t._op in order_set:
                stack.append(t._op)
        controls = list(op._control_inputs)
        while controls:
            c = controls.pop()
            if c in live or c not in order_set:
                continue
            if c in noops:
                if c in expanded:
                    continue
                expanded.add(c)
                controls.extend(r._op for r in (replace.get(t, t) for t in c._inputs)
                                if r not in fed and r not in consts and r._op not in live)
                controls.extend(c._control_inputs)
                continue
            if c._outputs and not c._op_def.is_stateful and all(
                    replace.get(t, t) is not t or t in consts for t in c._outputs):
                # a pure op whose values are all read elsewhere (merged, rewritten, folded):
                # the ordering it stood for is kept by the ops producing those values
                stack.extend(r._op for r in (replace.get(t, t) for t in c._outputs)
                             if r not in fed and r not in consts and r._op not in live)
                continue
            stack.append(c)
    return live


def is_tensor(x):
    return isinstance(x, Tensor)


def lookup_op_def(name):
    return op_registry.get(name)
