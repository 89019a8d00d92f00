"""Lines a partition's plan gets beyond its kernels: rendezvous Send/Recv and, in the traced
variant of a plan, per-node timing records that become ``RunMetadata.step_stats`` (§9.2).

The untraced plan has no timing lines at all: ``RunOptions.trace_level=FULL_TRACE`` runs a
separately compiled, instrumented variant of the same plan.
"""

import itertools
import threading
import time

import numpy as np

from tideflow.framework import dtypes
from tideflow.ops.state_ops import UninitializedValue


class StepLines:
    """Emitter hooks: Recv before first use (or ASAP), Send after the producer, trace records."""

    def __init__(self, plan, em, fed, replace, consts, names):
        self.plan = plan
        self.em = em
        self.part = plan.partition
        self.trace = plan.trace
        self.fed = fed
        self.replace = replace
        self.consts = consts
        self.names = names
        self.nodes = plan.trace_nodes
        self._n = 0
        self._got_ctrl = set()
        self._asap = []
        self._args = {}  # fed tensor -> its _Arg node's name (traced plans)
        self._retvals = {}  # fetched tensor -> its _Retval node's name (traced plans)

    def setup(self):
        em = self.em
        em.hooks = self
        if self.part is not None:
            em.line("__rv__ = __step__.rendezvous", 2)
            if self.plan.coop:
                em.line("__rvi__ = __rv__._items", 2)
        if self.trace:
            unit = self.part.unit.name if self.part is not None else self.plan.device.name
            dev = self.part.device.name if self.part is not None else self.plan.device.name
            em.env["__tn__"] = time.time_ns
            em.env["__unit__"] = (unit, dev)
            em.env["__nodes__"] = self.nodes
            em.line("__rec__ = __step__.stats.recorder(__unit__, __nodes__)", 2)
            self._call_frame()

    def _call_frame(self):
        """TF's nodes around a traced step's ops: _SOURCE, an _Arg per feed and the Consts
        the step reads (recorded as the step starts), a _Retval per fetch (after its op)."""
        from tideflow.runtime.partition import call_frame_names

        plan = self.plan
        self._mark("_SOURCE", "NoOp", "()")
        # a fetch that is fed is TF's Python session's to hand back: no _Retval, no _Arg
        args, rets = call_frame_names(plan.feeds, plan.fetches)
        self._retvals = {t: name for t, (name, _) in rets.items()}
        used = {t for op in plan.ops for t in op._inputs}.union(self._retvals)
        for t in self.fed:
            if t in used:
                self._args[t] = args[t][0]
                self._mark(args[t][0], "_Arg", "()", self.names[t])
        for t, value in self.consts.items():
            if t._op._type == "Const" and t in used:
                self._mark(t._op._name, "Const", "()", self._const("c", value))
        for t in list(self._retvals):
            if t in self.consts:
                self._retval(t)

    def _retval(self, t):
        name = self._retvals.pop(t, None)
        if name is not None:
            self._mark(name, "_Retval", f"({self._input(t)})")

    def _mark(self, name, op_type, inputs, out=None):
        """A record of a node that does no work: it starts and ends now (one after another,
        so a timeline keeps them on one lane)."""
        nid = self._node(name, op_type, f"{name} = {op_type}{inputs}")
        self.em.line(f"__rec__({nid}, __tn__(), ({out + ',' if out else ''}))", 2)

    def _input(self, t):
        arg = self._args.get(t)
        return arg if arg is not None else _input_name(self.part, t)

    # -- helpers ---------------------------------------------------------------------------
    def _const(self, prefix, value):
        self._n += 1
        name = f"__{prefix}{self._n}"
        self.em.env[name] = value
        return name

    def _node(self, name, op_type, label):
        self.nodes.append((name, op_type, label))
        return len(self.nodes) - 1

    def _wait(self, key):
        """coop: the partition gives way until the value of ``key`` has been sent."""
        if self.plan.coop:
            self.em.line(f"while {key} not in __rvi__: yield {key}", 2)
            return f"__rvi__.pop({key})"
        return f"__rv__.recv({key})"

    def _recv(self, t):
        tr = self.part.recvs[t]
        var = f"r{t._op._id}_{t._value_index}"
        key = self._const("k", tr.key)
        call = self._wait(key)
        if tr.widen is not None:
            call = f"{self._const('w', tr.widen)}({call})"
        if self.trace:
            nid = self._node(tr.recv_name, "_Recv", f"{tr.recv_name} = _Recv({tr.send_name})")
            self.em.line("__t = __tn__()", 2)
            self.em.line(f"{var} = {call}", 2)
            self.em.line(f"__rec__({nid}, __t, ({var},))", 2)
        else:
            self.em.line(f"{var} = {call}", 2)
        self.names[t] = var

    def _recv_ctrl(self, tr):
        if tr.key in self._got_ctrl:
            return
        self._got_ctrl.add(tr.key)
        key = self._const("k", tr.key)
        call = self._wait(key)
        if self.trace:
            nid = self._node(tr.recv_name, "_Recv", f"{tr.recv_name} = _Recv({tr.send_name})")
            self.em.line("__t = __tn__()", 2)
            self.em.line(call, 2)
            self.em.line(f"__rec__({nid}, __t, ())", 2)
        else:
            self.em.line(call, 2)

    def _send(self, tr, expr):
        key = self._const("k", tr.key)
        if tr.narrow is not None:
            expr = f"{self._const('n', tr.narrow)}({expr})"
        src = tr.tensor._as_node_def_input() if tr.tensor is not None else tr.token_op._name
        # coop partitions share one thread: a Send is a store into the step's table
        send = f"__rvi__[{key}] = {expr}" if self.plan.coop else f"__rv__.send({key}, {expr})"
        if self.trace:
            nid = self._node(tr.send_name, "_Send", f"{tr.send_name} = _Send({src})")
            self.em.line("__t = __tn__()", 2)
            self.em.line(send, 2)
            self.em.line(f"__rec__({nid}, __t, ())", 2)
        else:
            self.em.line(send, 2)

    # -- hooks -----------------------------------------------------------------------------
    def start(self, ref, last_use, fetch_set):
        self.ref = ref
        self.last_use = last_use
        self.fetch_set = fetch_set
        self.send_after = {}
        part = self.part
        if part is None:
            return
        for t, trs in part.sends.items():
            rt = self.replace.get(t, t)
            if rt in self.consts or rt in self.fed:
                for tr in trs:
                    self._send(tr, ref(t))
            else:
                self.send_after.setdefault(rt._op, []).append((t, trs))
        if self.plan.recv_asap:
            self._asap = sorted(((tr.src_pos, i, t) for i, (t, tr) in
                                 enumerate(part.recvs.items())), key=lambda x: x[:2])
            self._asap.reverse()

    def before(self, op, idx):
        part = self.part
        if part is not None:
            if self._asap:
                pos = part.global_index[op]
                while self._asap and self._asap[-1][0] < pos:
                    t = self._asap.pop()[2]
                    if t not in self.names:
                        self._recv(t)
            if part.recvs:
                for t in op._inputs:
                    if t in part.recvs and t not in self.names:
                        self._recv(t)
            for tr in part.ctrl_recvs.get(op, ()):
                self._recv_ctrl(tr)
        if self.trace:
            self.em.line("__t = __tn__()", 2)

    def after(self, op, idx, targets):
        if self.trace:
            label = f"{op._name} = {op._type}(" + ", ".join(
                self._input(t) for t in op._inputs) + ")"
            nid = self._node(op._name, op._type, label)
            outs = ", ".join("None" if x == "_" else x for x in targets)
            if len(targets) == 1:
                outs += ","
            self.em.line(f"__rec__({nid}, __t, ({outs}))", 2)
            for t in op._outputs:
                self._retval(t)
        part = self.part
        if part is None:
            return
        dead = []
        for t, trs in self.send_after.get(op, ()):
            for tr in trs:
                self._send(tr, self.ref(t))
            rt = self.replace.get(t, t)
            if rt not in self.last_use and rt not in self.fetch_set and rt in self.names:
                dead.append(self.names[rt])
        for tr in part.ctrl_sends.get(op, ()):
            self._send(tr, "None")
        if dead:
            self.em.line("del " + ", ".join(sorted(set(dead))), 2)


def _input_name(part, t):
    if part is not None:
        tr = part.recvs.get(t)
        if tr is not None:
            return tr.recv_name
    return t._as_node_def_input()


# ------------------------------------------------------------------------------------------
# records -> StepStats
# ------------------------------------------------------------------------------------------


def _describe(v):
    if v is None or isinstance(v, UninitializedValue):
        # (a variable read before its initializer in the same step has no buffer to describe)
        return None
    dt = getattr(v, "dtype", None)
    return (dt, tuple(getattr(v, "shape", ())), int(getattr(v, "nbytes", 0) or 0))


class StepTrace:
    """The records of one traced step, from every partition thread."""

    def __init__(self):
        self._parts = []
        self._lock = threading.Lock()

    def recorder(self, unit, nodes):
        """A ``rec(node_index, start_ns, outputs)`` appending to this partition's records."""
        records = []
        with self._lock:
            self._parts.append((unit, nodes, threading.get_ident(), records))
        app = records.append
        now = time.time_ns

        def rec(i, t0, outs):
            app((i, t0, now(), [_describe(v) for v in outs]))

        return rec

    def durations(self):
        """node name -> op time in microseconds (for the cost model)."""
        out = {}
        for _, nodes, _, records in self._parts:
            for i, t0, t1, _ in records:
                out[nodes[i][0]] = (t1 - t0) / 1000.0
        return out

    def to_step_stats(self, step_stats, host=False):
        """Fills a ``StepStats`` message: one DeviceStepStats per device, after TF's host
        tracer's '/host:CPU' (``host``: its kernels that are not cheap, as 'name:Type')."""
        host_stats = step_stats.dev_stats.add(device="/host:CPU") if host else None
        step_id = next(_STEP_IDS)
        by_dev = {}
        for (_unit, dev), nodes, tid, records in self._parts:
            ds = by_dev.get(dev)
            if ds is None:
                ds = by_dev[dev] = step_stats.dev_stats.add(device=dev)
            tid32 = tid & 0xFFFFFFFF
            for i, t0, t1, outs in records:
                name, op_type, label = nodes[i]
                ns = ds.node_stats.add()
                ns.node_name = name
                ns.all_start_micros = t0 // 1000
                ns.all_start_nanos = t0
                dur = t1 - t0
                ns.op_start_rel_micros = 0
                ns.op_end_rel_micros = dur // 1000
                ns.all_end_rel_micros = dur // 1000
                ns.op_end_rel_nanos = dur
                ns.all_end_rel_nanos = dur
                ns.scheduled_micros = t0 // 1000
                ns.scheduled_nanos = t0
                ns.timeline_label = label
                ns.memory_stats.SetInParent()  # (TF's: every node has one)
                total = 0
                for slot, d in enumerate(outs):
                    if d is None:
                        continue
                    out = ns.output.add(slot=slot)
                    _fill_description(out.tensor_description, d, dev)
                    total += d[2]
                if op_type in _PERSISTENT:
                    # TF's: a constant's or variable's buffer is allocated with its kernel
                    ns.memory_stats.persistent_memory_size = total
                elif total and op_type not in _NOT_ALLOCATING:
                    mem = ns.memory.add(allocator_name=_allocator(dev))
                    mem.total_bytes = mem.peak_bytes = mem.live_bytes = total
                if host_stats is not None and op_type not in _CHEAP and name != "_SOURCE":
                    hs = host_stats.node_stats.add(node_name=f"{name}:{op_type}")
                    hs.all_start_micros = t0 // 1000
                    hs.all_end_rel_micros = dur // 1000
                    hs.timeline_label = f"id={step_id},device={dev},async=false"
                    hs.thread_id = tid32
                    host_stats.thread_names[tid32] = "tf_Compute"
        for ds in by_dev.values():
            ds.node_stats.sort(key=lambda n: n.all_start_nanos)
        if host_stats is not None:
            host_stats.node_stats.sort(key=lambda n: n.all_start_micros)
        return step_stats

    def to_cost_graph(self, cost_graph):
        """Fills a ``CostGraphDef`` as TF's cost model reports the step's graph: _SOURCE and
        _SINK, then each node run with its device, inputs (by node id), outputs (size,
        shape, dtype; ``alias_input_port`` -1 for a buffer of its own), control edge from
        _SOURCE for a node without inputs, compute cost (microseconds) and a constant's or
        variable's persistent memory."""
        cost_graph.node.add(name="_SOURCE", id=0)
        sink = cost_graph.node.add(name="_SINK", id=1)
        ids, entries, consumed = {}, [], set()
        for (_unit, dev), nodes, _tid, records in self._parts:
            for i, t0, t1, outs in records:
                name, op_type, label = nodes[i]
                if name == "_SOURCE":
                    cost_graph.node[0].compute_cost = (t1 - t0) // 1000
                    continue
                ids[name] = len(ids) + 2
                entries.append((name, op_type, label, dev, (t1 - t0) // 1000, outs))
        for name, op_type, label, dev, us, outs in entries:
            node = cost_graph.node.add(name=name, device=dev, id=ids[name])
            inputs = _label_inputs(label)
            for inp in inputs:
                if inp.startswith("^"):
                    src = ids.get(inp[1:])
                    if src is not None:
                        node.control_input.append(src)
                        consumed.add(inp[1:])
                    continue
                src, _, port = inp.partition(":")
                if src in ids:
                    node.input_info.add(preceding_node=ids[src], preceding_port=int(port or 0))
                    consumed.add(src)
            for d in outs:
                if d is None:
                    continue
                info = node.output_info.add()
                dt, shape, nbytes = d
                if op_type != "_Arg":
                    info.size = nbytes
                if op_type not in _NOT_ALLOCATING or op_type in _PERSISTENT or (
                        op_type == "_Arg"):
                    info.alias_input_port = -1
                info.shape.SetInParent()
                for n in shape:
                    info.shape.dim.add(size=int(n))
                try:
                    dtype = dtypes.as_dtype(dt)
                    if op_type in ("VariableV2", "Variable"):  # (a ref output, as TF's)
                        dtype = dtype._as_ref
                    info.dtype = dtype.as_datatype_enum
                except (TypeError, KeyError, ValueError):
                    pass
            if not inputs:
                node.control_input.append(0)
            node.compute_cost = us
            if op_type in _PERSISTENT:
                node.persistent_memory_size = sum(d[2] for d in outs if d is not None)
        sink.control_input.extend([0, 0] + [ids[n] for n, *_ in entries if n not in consumed])
        return cost_graph


# TF's cheap kernels (OpKernel::IsExpensive false): its host tracer records the others
_CHEAP = frozenset({"Const", "_Arg", "_Retval", "Identity", "Reshape", "NoOp", "Placeholder",
                    "Send", "Recv", "_Send", "_Recv", "_HostSend", "_HostRecv"})
# ops whose output buffer is their kernel's own (persistent) or an input's (forwarded)
_PERSISTENT = frozenset({"Const", "VariableV2", "Variable"})
_NOT_ALLOCATING = _PERSISTENT | frozenset({
    "_Arg", "_Retval", "Identity", "Reshape", "Squeeze", "ExpandDims", "VarHandleOp",
    "ReadVariableOp", "Assign", "AssignAdd", "AssignSub", "StopGradient", "Snapshot",
    "Placeholder", "PlaceholderWithDefault"})
_STEP_IDS = itertools.count(1)


def _label_inputs(label):
    """The input names of a timeline label 'name = Type(a, b:1, ^c)'."""
    start = label.find("(")
    if start < 0 or not label.endswith(")"):
        return []
    inner = label[start + 1:-1].strip()
    return [x.strip() for x in inner.split(",")] if inner else []


def _allocator(dev):
    return "GPU_0_bfc" if "/device:GPU" in dev else "cpu"


def _fill_description(td, d, dev):
    dt, shape, nbytes = d
    try:
        if isinstance(dt, np.dtype) and dt != object:
            td.dtype = dtypes.as_dtype(dt).as_datatype_enum
        elif isinstance(dt, np.dtype):
            td.dtype = dtypes.string.as_datatype_enum
    except (TypeError, KeyError, ValueError):
        pass
    td.shape.SetInParent()  # a scalar's empty shape is still written, as TF's
    for n in shape:
        td.shape.dim.add(size=int(n))
    ad = td.allocation_description
    ad.requested_bytes = nbytes
    ad.allocated_bytes = nbytes
    ad.allocator_name = _allocator(dev)
