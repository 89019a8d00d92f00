"""Execution plans: prune, optimize, order and bind a subgraph once, then run it many times.

A plan compiles its ordered steps into one straight-line Python function (one line per
kernel call, each intermediate deleted right after its last use), so that a step costs little
more than the kernel calls themselves. A failing line maps back to its op.
"""

import functools
import itertools
import sys
import threading

import numpy as np

from tideflow.framework import errors, op_registry
from tideflow.framework.ops import Tensor
from tideflow.kernels.device import KernelContext
from tideflow.ops.state_ops import UninitializedValue
from tideflow.runtime import graph_passes

_step_ids = itertools.count(1)


class Step:
    """The state of one running step, handed to kernels that declare a ``step`` parameter."""

    __slots__ = ("cancelled", "deadline", "rendezvous", "session", "stats", "step_id")

    def __init__(self, session=None, deadline=None):
        self.step_id = next(_step_ids)
        self.cancelled = session._cancelled if session is not None else threading.Event()
        self.deadline = deadline
        self.rendezvous = None
        self.stats = None
        self.session = session


def _fed_ops(fed):
    """Ops all of whose outputs are fed: their control edges are satisfied by the feeds."""
    ops_ = {t._op for t in fed}
    return {op for op in ops_ if all(t in fed for t in op._outputs)}


def prune(fetch_tensors, target_ops, fed):
    """The ops needed to compute the fetches and run the targets, given the fed tensors."""
    fed_ops = _fed_ops(fed) if fed else ()
    needed = set()
    stack = [t._op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        for t in op._inputs:
            if t not in fed and t._op not in needed:
                stack.append(t._op)
        for c in op._control_inputs:
            if c not in needed and c not in fed_ops:
                stack.append(c)
    return needed


def topo_order(ops, fed):
    """Orders ``ops`` so every op follows its inputs (creation order breaks ties)."""
    ops = sorted(ops, key=lambda o: o._id)
    opset = set(ops)
    ok = True
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
    # general case (graphs rewritten after creation): Kahn's algorithm
    indeg = {}
    users = {op: [] for op in ops}
    for op in ops:
        deps = {t._op for t in op._inputs if t not in fed and t._op in opset}
        deps.update(c for c in op._control_inputs if c in opset)
        indeg[op] = len(deps)
        for d in deps:
            users[d].append(op)
    import heapq

    ready = [(op._id, op) for op in ops if indeg[op] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, op = heapq.heappop(ready)
        out.append(op)
        for u in users[op]:
            indeg[u] -= 1
            if indeg[u] == 0:
                heapq.heappush(ready, (u._id, u))
    if len(out) != len(ops):
        stuck = sorted(op.name for op in ops if indeg[op] > 0)[:5]
        raise errors.InvalidArgumentError(
            None, None, f"Graph contains a cycle involving nodes: {', '.join(stuck)}"
        )
    return out


def bind_kernel(op, device, session_state, session):
    """The callable that runs ``op`` on ``device``, with its attrs bound (once per plan)."""
    od = op._op_def
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
                 optimize=True):
        self.graph = graph
        self.fetches = fetches
        self.feeds = feeds
        fed = {t: i for i, t in enumerate(feeds)}
        order = topo_order(prune(fetches, targets, fed), fed)
        if optimize:
            replace, consts = graph_passes.optimize(order, fed, device, session_state, session)
        else:
            replace, consts = {}, graph_passes.const_values(order)
        # ops whose outputs are all replaced by folded constants or CSE are dropped
        live = _live_ops(order, fetches, targets, fed, replace, consts)
        self.needed = order  # before folding: what placement must satisfy
        order = [op for op in order if op in live]
        self.ops = order
        self.needs_step = any(op._op_def.kernel_wants_step for op in order)
        self._compile(order, fetches, fed, replace, consts, device, session_state, session)

    def _compile(self, order, fetches, fed, replace, consts, device, session_state, session):
        names = {}
        env = {}
        lines = ["def __make__(__env__):"]
        lines.append("    globals().update(__env__)")
        lines.append("    def run(__feeds__, __step__):")
        body = []
        feed_vars = []
        for t, i in fed.items():
            v = f"f{i}"
            names[t] = v
            feed_vars.append(v)
        if feed_vars:
            body.append(f"{', '.join(feed_vars)}{',' if len(feed_vars) == 1 else ''} = __feeds__")

        def ref(t):
            t = replace.get(t, t)
            if t in fed:
                return names[t]
            if t in consts:
                n = names.get(t)
                if n is None:
                    n = f"c{len(env)}"
                    env[n] = consts[t]
                    names[t] = n
                return n
            return names[t]

        # last use of each value, to delete it right after
        last_use = {}
        for idx, op in enumerate(order):
            for t in op._inputs:
                last_use[replace.get(t, t)] = idx
        fetch_set = {replace.get(t, t) for t in fetches}
        self._line_ops = {}
        first_line = len(lines) + 1  # line number of body[0]
        for idx, op in enumerate(order):
            kname = f"k{idx}"
            try:
                env[kname] = bind_kernel(op, device, session_state, session)
            except Exception as e:  # noqa: BLE001 - reported as the op's error
                raise op_error_for(e, op) from (None if isinstance(e, errors.OpError) else e)
            od = op._op_def
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
            call = f"{kname}({', '.join(args)})"
            if od.inplace is not None and len(op._outputs) == 1 and len(args) <= 2:
                t_in = replace.get(op._inputs[od.inplace], op._inputs[od.inplace])
                if (last_use.get(t_in) == idx and t_in in names and t_in not in fetch_set
                        and t_in not in fed and t_in not in consts and od.inplace == 0):
                    call = f"__ip{len(args)}__({kname}, {', '.join(args)})"
            outs = op._outputs
            single = len(od.outputs) == 1 and not od.outputs[0].is_list
            targets_ = []
            for t in outs:
                if t in fed or t in consts or replace.get(t, t) is not t:
                    targets_.append("_")
                else:
                    n = f"v{op._id}_{t._value_index}"
                    names[t] = n
                    targets_.append(n)
            if not outs or all(x == "_" for x in targets_):
                line = call
            elif single:
                line = f"{targets_[0]} = {call}"
            else:
                line = f"{', '.join(targets_)}{',' if len(targets_) == 1 else ''} = {call}"
            self._line_ops[first_line + len(body)] = op
            body.append(line)
            dead = [names[t] for t in {replace.get(x, x) for x in op._inputs}
                    if last_use.get(t) == idx and t not in fetch_set and t not in fed
                    and t not in consts and t in names]
            if dead:
                body.append("del " + ", ".join(dead))
        rets = []
        for t in fetches:
            rt = replace.get(t, t)
            r = ref(rt)
            if rt in consts:
                r = f"__copy__({r})"
            rets.append(f"__out__({r})")
        body.append("return [" + ", ".join(rets) + "]")
        lines.extend("        " + b for b in body)
        lines.append("    return run")
        src = "\n".join(lines) + "\n"
        self.source = src
        env["__out__"] = _out
        env["__ip1__"] = _inplace_unary
        env["__ip2__"] = _inplace_binary
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
            with np.errstate(all="ignore"):
                return self._run(feed_values, step)
        except Exception as e:  # noqa: BLE001 - any kernel failure maps to its op
            raise self._op_error(e) from (None if isinstance(e, errors.OpError) else e)

    def _op_error(self, e):
        tb = e.__traceback__
        op = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self._code_filename:
                op = self._line_ops.get(tb.tb_lineno, op)
            tb = tb.tb_next
        return op_error_for(e, op)


def op_error_for(e, op):
    """Turns an exception raised by ``op``'s kernel into a TF OpError that names the op."""
    where = ""
    if op is not None:
        where = f"\n\t [[node {op.name} ({op.type}) defined at {op._user_location}]]"
    if isinstance(e, errors.OpError):
        if op is not None and "[[node " not in e._message:
            e._op = e._op or op
            e._message = e._message + where
            e.args = (e._message,)
        return e
    prefix = f"{op.type} op '{op.name}': " if op is not None else ""
    msg = f"{prefix}{e}{where}"
    if isinstance(e, MemoryError):
        return errors.ResourceExhaustedError(None, op, msg)
    if isinstance(e, (ValueError, TypeError, IndexError, ZeroDivisionError, FloatingPointError)):
        return errors.InvalidArgumentError(None, op, msg)
    return errors.UnknownError(None, op, f"{prefix}{type(e).__name__}: {e}{where}")


# references to an array in _inplace_*: the plan's local, the parameter, getrefcount's own
_SOLE_OWNER_REFS = 3


def _inplace_unary(kernel, a):
    """``kernel(a)``, written into ``a``'s buffer when nothing else can see that buffer."""
    if type(a) is np.ndarray and a.flags.owndata and a.flags.writeable and (
        sys.getrefcount(a) <= _SOLE_OWNER_REFS
    ):
        return kernel(a, out=a)
    return kernel(a)


def _inplace_binary(kernel, a, b):
    """``kernel(a, b)`` into ``a``'s buffer when ``a`` is otherwise unused and the result fits."""
    if type(a) is np.ndarray and a.flags.owndata and a.flags.writeable and (
        sys.getrefcount(a) <= _SOLE_OWNER_REFS
    ):
        bs = np.shape(b)
        if bs == a.shape or not bs or (len(bs) <= a.ndim and a.shape[a.ndim - len(bs):] == bs):
            return kernel(a, b, out=a)
    return kernel(a, b)


def _out(v):
    if type(v) is np.ndarray:
        if v.ndim == 0:
            return v[()]
        if v.base is not None:  # may share memory with a variable's buffer
            return v.copy()
    elif type(v) is UninitializedValue:  # a variable fetched in the step that initializes it
        return _out(v._tf_fetch_value())
    return v


def _list_len(op, arg):
    attrs = op._attrs
    if arg.number_attr is not None:
        return attrs[arg.number_attr]
    return len(attrs[arg.type_list_attr])


def _live_ops(order, fetches, targets, fed, replace, consts):
    """Ops still needed after folding and CSE (stateful ops are never dropped)."""
    order_set = set(order)
    live = set()
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
            if t not in fed and t not in consts and t._op not in live:
                stack.append(t._op)
        for c in op._control_inputs:
            if c not in live and c in order_set:
                stack.append(c)
    return live


def is_tensor(x):
    return isinstance(x, Tensor)


def lookup_op_def(name):
    return op_registry.get(name)
