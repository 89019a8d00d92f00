"""The master service's logic as a plain class (no grpc here): sessions over a client's
GraphDef, placement over the cluster's devices, partitioning per task and device with
``_Send``/``_Recv`` at every cross-device edge, and one RunGraph per worker per step.

Workers are reached through an injected transport. Every call has a deadline; when a step
fails the master checks its workers' health, so a lost task surfaces as UnavailableError or
AbortedError (a restarted one) within seconds.
"""

import concurrent.futures
import contextlib
import itertools
import logging
import random
import threading
import time

from tideflow.distributed import wire
from tideflow.distributed.worker import canonical_device
from tideflow.framework import dtypes, errors, graph_io, ops
from tideflow.framework.device import DeviceSpec
from tideflow.protos import config_pb2, master_pb2, node_def_pb2, tensor_pb2, worker_pb2
from tideflow.runtime import partition, placer
from tideflow.runtime.executor import prune, topo_order
from tideflow.runtime.rendezvous import make_key

log = logging.getLogger("tideflow.distributed")

STATUS_TIMEOUT_S = 3.0  # GetStatus health checks
DISCOVERY_TIMEOUT_S = 60.0  # CreateSession waits this long for tasks still starting
REGISTER_TIMEOUT_S = 60.0
CLEANUP_TIMEOUT_S = 3.0
STEP_TIMEOUT_S = 7 * 24 * 3600.0  # RunGraph without a step deadline (keepalive finds dead peers)
CLIENT_DEVICE = "/job:client/replica:0/task:0/device:CPU:0"


class RemoteDevice:
    """What the placer and partitioner see of a device of some task of the cluster."""

    __slots__ = ("address", "description", "device_type", "incarnation", "index", "is_host",
                 "job", "memory_limit", "name", "task")

    def __init__(self, attrs, job, task, address):
        self.name = canonical_device(attrs.name)
        self.device_type = attrs.device_type
        self.index = DeviceSpec.from_string(self.name).device_index or 0
        self.incarnation = int(attrs.incarnation)
        self.memory_limit = int(attrs.memory_limit)
        self.description = attrs.physical_device_desc
        self.job = job
        self.task = task
        self.address = address
        self.is_host = True

    def __repr__(self):
        return f"<RemoteDevice {self.name} @{self.address}>"


def _task_matches(filters, job, task):
    if not filters:
        return True
    for f in filters:
        spec = DeviceSpec.from_string(f)
        if (spec.job is None or spec.job == job) and (spec.task is None or spec.task == task):
            return True
    return False


def _first_error(errs):
    """The most telling of several step errors: not the Cancelled/Aborted caused by others;
    among those, Aborted (a task lost its graphs: the session must be recreated) before
    Cancelled (this step's parts being cleaned up after another part failed)."""
    for kinds in ((errors.CancelledError, errors.AbortedError), (errors.CancelledError,)):
        for e in errs:
            if not isinstance(e, kinds):
                return e
    return errs[0]


def _from_task(name, e):
    """As TF's master: an error a task's RunGraph ends with names that task first
    ("From /job:ps/replica:0/task:0:" on a line of its own)."""
    if not isinstance(e, errors.OpError) or e.message.startswith("From /job:"):
        return e
    spec = DeviceSpec.from_string(name)
    task = f"/job:{spec.job}/replica:{spec.replica or 0}/task:{spec.task or 0}"
    out = type(e)(e._node_def, e._op, f"From {task}:\n{e.message}")
    out._error_code = e.error_code
    return out


class _TaskPart:
    """A task's share of a step plan: its registered graph and its feed and fetch keys."""

    __slots__ = ("address", "feeds", "fetches", "graph_def", "handle", "name", "small")

    def __init__(self, name, address):
        self.name = name
        self.address = address
        self.graph_def = None
        self.handle = None
        self.feeds = []  # (feed index, rendezvous key)
        self.fetches = []  # (fetch index, rendezvous key)
        self.small = True  # every fetched value is statically small: a unary RunGraph


class _StepPlan:
    def __init__(self, parts, fed_fetches, n_fetches):
        self.parts = parts
        self.fed_fetches = fed_fetches  # (fetch index, feed index)
        self.n_fetches = n_fetches
        # partial runs: the feed indices each fetch needs, and those any op of the plan needs
        self.fetch_needs = None
        self.needed_feeds = frozenset()


class _PartialRun:
    """A partial run on the master: one step (``step_id``) fed and fetched in pieces."""

    def __init__(self, handle, plan, feeds, fetches, targets, step_id):
        self.handle = handle
        self.plan = plan
        self.feeds = feeds  # declared feed tensors (plan feed order)
        self.fetches = fetches  # declared fetch tensors (plan fetch order)
        self.targets = set(targets)
        self.feed_index = {t: i for i, t in enumerate(feeds)}
        self.fetch_index = {t: j for j, t in enumerate(fetches)}
        self.fed = set()  # feed indices fed so far
        self.fetched = set()  # fetch indices fetched so far
        self.fed_values = {}  # feed index -> TensorProto, for feeds that are also fetched
        self.step_id = step_id
        self.started = False
        self.closed = False
        self.lock = threading.Lock()


class MasterSession:
    """A client's graph on the master: plans per (fetches, feeds, targets, graph version)."""

    def __init__(self, master, handle, config, devices, local_task):
        self.master = master
        self.handle = handle
        self.config = config
        self.devices = devices
        self.local_task = local_task
        self.graph = ops.Graph()
        self.version = 0
        self.plans = {}
        self.lock = threading.Lock()
        self.closed = False
        self.tasks_used = {}  # address -> task name
        self.partial_runs = {}  # handle -> _PartialRun
        go = config.graph_options
        self.bfloat16 = bool(go.enable_bfloat16_sendrecv)
        self.optimize = go.optimizer_options.opt_level != -1
        self.allow_soft = bool(config.allow_soft_placement)
        self.log_placement = bool(config.log_device_placement)
        self._logged_version = None
        self._devices_checked = (0, None)  # (ops checked, the first device error or None)

    # -- graph ------------------------------------------------------------------------------
    def extend(self, graph_def):
        """Adds the nodes of ``graph_def`` (references to existing nodes are resolved)."""
        from tideflow.framework import importer
        from tideflow.protos import graph_pb2

        g = self.graph
        names = {n.name for n in graph_def.node}
        input_map = {}
        for n in graph_def.node:
            for inp in n.input:
                src = inp[1:] if inp.startswith("^") else inp.split(":")[0]
                if src in names or inp in input_map:
                    continue
                try:
                    if inp.startswith("^"):
                        input_map[inp] = g.get_operation_by_name(src)
                    else:
                        idx = inp.split(":")[1] if ":" in inp else "0"
                        input_map[f"{src}:{idx}"] = g.get_tensor_by_name(f"{src}:{idx}")
                except (KeyError, ValueError):
                    raise errors.InvalidArgumentError(
                        None, None, f"Node {n.name!r} has input {inp!r}, which is in neither "
                        "the graph nor the extension") from None
        gd = graph_def
        if gd.library.function:
            known = set(g._functions)
            gd = graph_pb2.GraphDef()
            gd.CopyFrom(graph_def)
            keep = [f for f in gd.library.function if f.signature.name not in known]
            del gd.library.function[:]
            gd.library.function.extend(keep)
        try:
            with g.as_default():
                # an extension's ops may be colocated with ops of earlier ones (a Saver built
                # after the first run: its restore Assigns go with the variables)
                importer.import_graph_def(gd, input_map=input_map or None, name="",
                                          _validate_colocation_constraints=False,
                                          _uniquify_names=False, _op_values=True)
        except errors.OpError as e:
            raise errors.InvalidArgumentError(None, None, f"Invalid graph: {e.message}") from None
        except (ValueError, TypeError, KeyError) as e:
            raise errors.InvalidArgumentError(None, None, f"Invalid graph: {e}") from None
        self.version += 1
        return self.version

    # -- plans ------------------------------------------------------------------------------
    def _element(self, name, tensor):
        try:
            if tensor:
                return self.graph.get_tensor_by_name(name if ":" in name else name + ":0")
            return self.graph.get_operation_by_name(name)
        except (KeyError, ValueError) as e:
            what = "Tensor" if tensor else "Node"
            raise errors.NotFoundError(
                None, None, f"{what} {name!r} is not in the session's graph: {e}") from None

    def plan(self, feeds, fetches, targets, partial=False):
        key = (tuple(fetches), tuple(feeds), tuple(targets), self.version, partial)
        p = self.plans.get(key)
        if p is None:
            with self.lock:
                p = self.plans.get(key)
                if p is None:
                    self._check_devices()
                    p = self._build(feeds, fetches, targets, partial)
                    self.master._register(self, p)
                    self.plans[key] = p
        return p

    def _check_devices(self):
        """As TF's master, which places the whole graph whenever it grows: a node assigned to
        a device the session lacks fails every step, whichever nodes the step runs (each node
        is checked once, at the first step after the extension that added it)."""
        checked, err = self._devices_checked
        if err is None:
            ops_ = self.graph.get_operations()
            if len(ops_) > checked:
                try:
                    placer.check_requested_devices(ops_[checked:], self.devices,
                                                   self.allow_soft, job=self.local_task[0])
                except errors.InvalidArgumentError as e:
                    err = e
                self._devices_checked = (len(ops_), err)
        if err is not None:
            raise err

    def _chooser(self, groups, group_of):
        """TF's default for unconstrained ops: the master's own task first."""
        local = self.local_task
        late = []
        for g in groups:
            if g.device is not None:
                continue
            op = g.members[0]
            if len(g.members) == 1 and g.requested is None and (
                    not op._inputs or op._type in placer._METADATA_OPS):
                late.append(g)
                continue
            g.device = self._prefer_local(g.candidates, local)
        for g in late:
            op = g.members[0]
            target = None
            if op._inputs:
                src = group_of.get(op._inputs[0]._op)
                target = src.device if src is not None else None
            else:
                consumers = {c for t in op._outputs for c in t.consumers() if c in group_of}
                if len(consumers) == 1:
                    target = group_of[next(iter(consumers))].device
            g.device = target if target in g.candidates else self._prefer_local(
                g.candidates, local)

    @staticmethod
    def _prefer_local(cands, local):
        mine = [d for d in cands if (d.job, d.task) == local]
        return placer.default_choice(mine or cands)

    def _build(self, feed_names, fetch_names, target_names, partial=False):
        fetches = [self._element(n, True) for n in fetch_names]
        feeds = [self._element(n, True) for n in feed_names]
        targets = [self._element(n, False) for n in target_names]
        fed = {t: i for i, t in enumerate(feeds)}
        order = topo_order(prune(fetches, targets, fed), fed, fetches)
        if not self.devices:
            raise errors.UnavailableError(None, None, "The session sees no devices")
        placement = placer.place(order, self.devices, self.allow_soft,
                                 job=self.local_task[0], chooser=self._chooser)
        if self.log_placement and self._logged_version != self.version:
            # as TF's master, which places (and logs) the whole graph at the first run after
            # the graph changed, not only the ops this run needs
            self._logged_version = self.version
            placer.log_graph_placement(self.graph, placement, self.devices, self.allow_soft,
                                       job=self.local_task[0])
        if partial:
            unit_of, needs = _partial_lanes(order, placement, fed)
        else:
            units = {}
            unit_of = {}
            for op in order:
                d = placement[op]
                u = units.get(d)
                if u is None:
                    u = units[d] = partition.Unit(d)
                unit_of[op] = u
        parts = partition.build(order, unit_of, set(feeds), [], targets) if order else []
        dropped = _clone_variables(parts, unit_of, fetches, targets) if partial else set()
        plan = self._emit(order, placement, parts, unit_of, feeds, fetches, partial, dropped)
        if partial:
            plan.fetch_needs = [
                frozenset((fed[t],)) if t in fed else frozenset(
                    i for i in needs.get(t._op, ()) if isinstance(i, int))
                for t in fetches]
            plan.needed_feeds = frozenset(
                i for s in set(needs.values()) for i in s if isinstance(i, int))
        return plan

    def _emit(self, order, placement, parts, unit_of, feeds, fetches, partial=False,
              dropped=()):
        """One GraphDef per task, nodes in the global order (receives just before their first
        consumer, sends right after their producer), so each device's serial plan is
        deadlock-free; feeds and fetches become client-terminated _Recv/_Send nodes.

        ``partial``: every node carries its lane (``_partial_lane``), each lane of a device
        becoming its own serial plan on the worker; a feed gets one receive per lane, and a
        variable read by another lane of its device is read through a clone there."""
        part_of = {op: p for p in parts for op in p.ops}
        fed = {t: i for i, t in enumerate(feeds)}
        shaped = _shape_known(order, fed)
        fetch_of = {}
        fed_fetches = []
        for j, t in enumerate(fetches):
            if t in fed:
                fed_fetches.append((j, fed[t]))
            else:
                fetch_of.setdefault(t, []).append(j)
        tasks = {}
        emitted = {}  # task address -> set of emitted recv/feed names

        def task_part(dev):
            tp = tasks.get(dev.address)
            if tp is None:
                tp = tasks[dev.address] = _TaskPart(f"/job:{dev.job}/task:{dev.task}",
                                                    dev.address)
                tp.graph_def = _new_graph_def(self.graph)
                emitted[dev.address] = set()
            return tp

        for op in order:
            if op in dropped:
                continue
            dev = placement[op]
            p = part_of[op]
            tp = task_part(dev)
            gd = tp.graph_def
            first_node = len(gd.node)
            lane = p.unit.lane
            seen = emitted[dev.address]
            inputs = []
            ref_recvs = []  # Recvs of a variable's buffer first made for this op
            clones = getattr(p, "clones", None)
            for t in op._inputs:
                if t in fed:
                    name = f"{t._op._name}/_feed_{t._value_index}_{dev.device_type}_{dev.index}"
                    tname = "feed:" + t.name
                    if lane:
                        name += f"_lane{lane}"
                        tname += f"#lane{lane}"
                    if name not in seen:
                        seen.add(name)
                        key = make_key(dev.name, dev.incarnation, dev.name, tname)
                        gd.node.append(_recv_node(name, t._dtype.base_dtype, tname,
                                                  dev, dev, True, False))
                        tp.feeds.append((fed[t], key))
                    inputs.append(name)
                elif clones and t in clones:
                    name = clones[t]
                    if name not in seen:
                        seen.add(name)
                        gd.node.append(_variable_clone(t._op, name, dev))
                    inputs.append(f"{name}:{t._value_index}" if t._value_index else name)
                elif t in p.recvs:
                    tr = p.recvs[t]
                    if tr.recv_name not in seen:
                        seen.add(tr.recv_name)
                        src = tr.src.device
                        bf16 = (self.bfloat16 and t._dtype.base_dtype == dtypes.float32
                                and src.address != dev.address)
                        small = src.address != dev.address and wire.known_small(t)
                        gd.node.append(_recv_node(tr.recv_name, t._dtype.base_dtype,
                                                  tr.edge_name, src, dev, False, bf16, small))
                        if id(t) not in shaped.unknown and t._shape.ndims is not None:
                            gd.node[-1].attr["_output_shapes"].list.shape.add().CopyFrom(
                                t._shape.as_proto())
                        if t._dtype._is_ref_dtype:
                            ref_recvs.append(gd.node[-1])
                    inputs.append(tr.recv_name)
                else:
                    inputs.append(t._as_node_def_input())
            for tr in p.ctrl_recvs.get(op, ()):
                if tr.recv_name not in seen:
                    seen.add(tr.recv_name)
                    gd.node.append(_recv_node(tr.recv_name, dtypes.float32, tr.edge_name,
                                              tr.src.device, dev, False, False, True))
            nd = node_def_pb2.NodeDef()
            nd.CopyFrom(graph_io.node_def_of(op))
            nd.device = dev.name
            del nd.input[:]
            nd.input.extend(inputs)
            ctrl_recv = {tr.token_op: tr.recv_name for tr in p.ctrl_recvs.get(op, ())}
            for c in op._control_inputs:
                if c in ctrl_recv:
                    nd.input.append("^" + ctrl_recv[c])
                elif c in part_of:
                    nd.input.append("^" + c._name)
            if ref_recvs:
                _read_after_other_inputs(ref_recvs, op, nd)
            gd.node.append(nd)
            for t in op._outputs:
                for tr in p.sends.get(t, ()):
                    gd.node.append(_send_node(tr.send_name, t._as_node_def_input(),
                                              t._dtype.base_dtype, tr.edge_name, dev,
                                              tr.dst.device, False))
                for j in fetch_of.get(t, ()):
                    name = f"{t._op._name}/_fetch_{j}"
                    tname = f"fetch:{j}:{t.name}"
                    # a value fetched from another task than the master's is taken when it
                    # is produced, as TF's master receives it over the wire at once (so a
                    # variable fetched beside its own update shows the value before it)
                    gd.node.append(_send_node(name, t._as_node_def_input(), t._dtype.base_dtype,
                                              tname, dev, None, True,
                                              (dev.job, dev.task) != self.local_task))
                    tp.fetches.append((j, make_key(dev.name, dev.incarnation, CLIENT_DEVICE,
                                                   tname)))
                    tp.small = tp.small and wire.known_small(t)
            for tr in p.ctrl_sends.get(op, ()):
                dummy = f"{tr.send_name}/dummy"
                c = gd.node.add(name=dummy, op="Const", device=dev.name)
                c.input.append("^" + op._name)
                c.attr["dtype"].CopyFrom(graph_io.attr_value_of(dtypes.float32, "type"))
                c.attr["value"].CopyFrom(graph_io.attr_value_of(_zero(), "tensor"))
                gd.node.append(_send_node(tr.send_name, dummy, dtypes.float32, tr.edge_name, dev,
                                          tr.dst.device, False))
            if partial:
                for i in range(first_node, len(gd.node)):
                    gd.node[i].attr["_partial_lane"].i = lane
        if self.graph._functions:
            from tideflow.framework import function_def

            for tp in tasks.values():
                function_def.add_library(self.graph, tp.graph_def)
        return _StepPlan(list(tasks.values()), fed_fetches, len(fetches))


_CLONABLE = frozenset({"VariableV2", "Variable"})


def _clonable(op):
    """A variable op with no inputs: a lookup of its resource by name, so any lane of its
    device can run its own copy of it."""
    return op._type in _CLONABLE and not op._inputs and not op._control_inputs


# kernels that may wait for another op of the step (a queue, an accumulator): in a partial
# run each such op and what follows it get lanes of their own, as if it were a feed
_NOT_BLOCKING = frozenset({"If", "While", "_Send", "_Recv", "QueueCloseV2"})


def _blocking(op):
    return op._op_def.kernel_wants_step and op._type not in _NOT_BLOCKING


def _partial_lanes(order, placement, fed):
    """Units for a partial run: each op goes to the lane of its device that holds every op
    needing exactly the same set of feeds (transitively; a blocking op such as a dequeue
    counts as a feed of what follows it). A lane then runs to its end once its feeds are fed,
    whatever order the client feeds them in, and a fetch can be waited for as soon as the
    feeds of its lane are in. Ops joined by a variable's ref edge share a lane (the kernels
    of variable updates find their variable through the graph), except the variable op
    itself, cloned into the lanes that use it; the lane's set is then the union of theirs.

    Returns (op -> Unit, op -> frozenset of the feed indices (and blocking ops) its lane
    waits for)."""
    from tideflow.ops.state_ops import variable_op_of

    inset = set(order)
    uf = placer._UnionFind()
    for op in order:
        uf.find(op)
        for arg, t in zip(placer._input_args(op), op._inputs):
            src = t._op
            if t in fed or src not in inset or _clonable(src):
                continue
            if (t._dtype._is_ref_dtype and placer._is_colocating_edge(op, arg, t)
                    and variable_op_of(t) is not None):
                uf.union(src, op)
    own = {}
    deps = {}
    for op in order:
        r = uf.find(op)
        o = own.setdefault(r, set())
        d = deps.setdefault(r, set())
        if _blocking(op):
            o.add(op)
        for t in op._inputs:
            if t in fed:
                o.add(fed[t])
            elif t._op in inset:
                d.add(uf.find(t._op))
        for c in op._control_inputs:
            if c in inset:
                d.add(uf.find(c))
    sig = {r: frozenset(o) for r, o in own.items()}
    changed = True
    while changed:  # groups joined by ref edges may depend on each other both ways
        changed = False
        for r, ds in deps.items():
            s = sig[r]
            for d in ds:
                s = s | sig[d]
            if s != sig[r]:
                sig[r] = s
                changed = True
    lanes = {frozenset(): 0}
    units = {}
    unit_of = {}
    needs = {}
    for op in order:
        s = sig[uf.find(op)]
        lane = lanes.get(s)
        if lane is None:
            lane = lanes[s] = len(lanes)
        d = placement[op]
        u = units.get((d, lane))
        if u is None:
            u = units[(d, lane)] = partition.Unit(d, lane)
        unit_of[op] = u
        needs[op] = s
    return unit_of, needs


def _clone_variables(parts, unit_of, fetches, targets):
    """In place: a variable read by another lane of its own device is read there through a
    clone of its op (the same resource), not through a transfer: ref consumers (Assign) need
    the variable op itself as their input. Returns the variables left with no use in their own
    lane, which are then not emitted."""
    part_of_unit = {p.unit: p for p in parts}
    cloned = set()
    for p in parts:
        for t, tr in list(p.recvs.items()):
            src = t._op
            if not _clonable(src) or tr.src.device is not p.device:
                continue
            del p.recvs[t]
            sp = part_of_unit[tr.src]
            sends = sp.sends.get(t)
            if sends is not None:
                sends[:] = [x for x in sends if x is not tr]
                if not sends:
                    del sp.sends[t]
            if not hasattr(p, "clones"):
                p.clones = {}
            p.clones[t] = f"{src._name}/_partial_lane{p.unit.lane}"
            cloned.add(src)
    dropped = set()
    fetched = {t._op for t in fetches}
    for v in cloned:
        sp = part_of_unit[unit_of[v]]
        u = sp.unit
        used = (v in fetched or v in targets or v in sp.ctrl_sends
                or any(t in sp.sends for t in v._outputs)
                or any(unit_of.get(c) is u for t in v._outputs for c in t.consumers())
                or any(v in op._control_inputs for op in sp.ops))
        if not used:
            dropped.add(v)
    return dropped


def _variable_clone(var_op, name, dev):
    nd = node_def_pb2.NodeDef()
    nd.CopyFrom(graph_io.node_def_of(var_op))
    nd.name = name
    nd.device = dev.name
    del nd.input[:]
    if not nd.attr["shared_name"].s:  # the resource is found by shared_name, else node name
        nd.attr["shared_name"].s = var_op._name.encode()
    if "_class" in nd.attr:
        del nd.attr["_class"]
    return nd


def _zero():
    import numpy as np

    return np.zeros(0, np.float32)


def _new_graph_def(graph):
    from tideflow.protos import graph_pb2

    gd = graph_pb2.GraphDef()
    gd.versions.producer = graph._graph_def_versions[0]
    return gd


def _attrs(nd, values):
    for k, (v, typ) in values.items():
        nd.attr[k].CopyFrom(graph_io.attr_value_of(v, typ))


def _read_after_other_inputs(ref_recvs, op, nd):
    """TF's partitioner rule for a variable's buffer read from another task: its Recv waits
    for the consumer's other inputs (control and non-reference data), so the buffer is pulled
    after the updates the consumer depends on (``with control_dependencies([train_op]):
    v.read_value()`` on a worker reads the parameter server's variable after the step)."""
    names = {r.name for r in ref_recvs}
    others = []
    for t, name in zip(op._inputs, nd.input):
        node = name.split(":")[0]
        if node not in names and not t._dtype._is_ref_dtype:
            others.append("^" + node)
    others.extend(name for name in nd.input[len(op._inputs):] if name.startswith("^"))
    for r in ref_recvs:
        r.input.extend(dict.fromkeys(others))


def _shape_known(order, fed):
    """What TF 1.15's grappler knows of the step's shapes: it optimizes the whole graph on
    the master, before partitioning, where a tensor received from another device still has
    its static shape (a fed tensor's and what is computed from one aside). The cross-device
    _Recv nodes carry that shape (``_output_shapes``) so the workers' graph passes rewrite what
    TF's do: ``tp + fn + eps`` over a parameter server's counters becomes AddOpsRewrite's AddN
    as in a local session (a streaming AUC's last bit)."""
    from tideflow.runtime import grappler_arith

    return grappler_arith._Shapes(order, grappler_arith._Ids({}, {}, fed), {})


def _recv_node(name, dtype, tensor_name, src, dst, client, bf16, small=False):
    nd = node_def_pb2.NodeDef(name=name, op="_Recv", device=dst.name)
    _attrs(nd, {"tensor_type": (dtype, "type"), "tensor_name": (tensor_name, "string"),
                "send_device": (src.name, "string"),
                "send_device_incarnation": (src.incarnation, "int"),
                "recv_device": (dst.name, "string"), "client_terminated": (client, "bool"),
                "wire_bfloat16": (bf16, "bool"), "wire_small": (small, "bool")})
    return nd


def _send_node(name, input_name, dtype, tensor_name, src, dst, client, snapshot=False):
    nd = node_def_pb2.NodeDef(name=name, op="_Send", device=src.name)
    nd.input.append(input_name)
    _attrs(nd, {"T": (dtype, "type"), "tensor_name": (tensor_name, "string"),
                "send_device": (src.name, "string"),
                "send_device_incarnation": (src.incarnation, "int"),
                "recv_device": (CLIENT_DEVICE if dst is None else dst.name, "string"),
                "client_terminated": (client, "bool")})
    if snapshot:
        nd.attr["wire_snapshot"].b = True
    return nd


class Master:
    """The master of one task: ``cluster`` is a ClusterSpec; ``local_task`` is (job, index)."""

    def __init__(self, cluster, local_task, transport, default_config=None):
        from tideflow.distributed.cluster import ClusterSpec
        from tideflow.distributed.worker import load_all_ops
        load_all_ops()
        self.cluster = ClusterSpec(cluster)
        self.local_task = (local_task[0], int(local_task[1]))
        self.transport = transport
        self.default_config = default_config or config_pb2.ConfigProto()
        self._sessions = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._pool = concurrent.futures.ThreadPoolExecutor(64, thread_name_prefix="tf-master")

    def _submit(self, fn, *args):
        try:
            return self._pool.submit(fn, *args)
        except RuntimeError:  # shut down
            raise errors.CancelledError(None, None, "The server is stopping") from None

    # -- tasks and devices --------------------------------------------------------------
    def tasks(self, filters=(), with_local=False):
        """The (job, index, address) of the tasks ``filters`` match; ``with_local`` adds this
        master's own task (a session always holds its master's devices, as TF's)."""
        out = []
        for job in self.cluster.jobs:
            for i in self.cluster.task_indices(job):
                if _task_matches(filters, job, i) or (with_local and (job, i) == self.local_task):
                    out.append((job, i, self.cluster.task_address(job, i)))
        return out

    def discover(self, filters=(), timeout=DISCOVERY_TIMEOUT_S):
        """The devices of this task and of the (filtered) others, from GetStatus (waiting for
        tasks starting)."""
        tasks = self.tasks(filters, with_local=True)
        futs = [(t, self._submit(self.transport.get_status, t[2], timeout, True))
                for t in tasks]
        devices = []
        for (job, i, addr), f in futs:
            try:
                resp = f.result()
            except (errors.UnauthenticatedError, errors.PermissionDeniedError) as e:
                # a refusal is an answer: keep its class, so the client sees what to fix
                raise type(e)(None, None, f"Task /job:{job}/replica:0/task:{i} at {addr} "
                              f"refused the call: {e.message}") from None
            except errors.OpError as e:
                raise errors.UnavailableError(
                    None, None, f"Task /job:{job}/replica:0/task:{i} at {addr} did not answer "
                    f"within {timeout:.0f} s: {e.message}") from None
            for a in resp.device_attributes:
                devices.append(RemoteDevice(a, job, i, addr))
        return devices

    def health_check(self, addresses, timeout=STATUS_TIMEOUT_S):
        """{address: error} of the tasks that do not answer GetStatus in ``timeout``."""
        futs = {a: self._submit(self.transport.get_status, a, timeout, False)
                for a in addresses}
        bad = {}
        for a, f in futs.items():
            try:
                f.result()
            except errors.OpError as e:
                bad[a] = e
        return bad

    # -- sessions -----------------------------------------------------------------------
    def create_session(self, request, deadline=None):
        config = config_pb2.ConfigProto()
        config.CopyFrom(self.default_config)
        if request.HasField("config"):
            config.MergeFrom(request.config)
        timeout = DISCOVERY_TIMEOUT_S
        if config.operation_timeout_in_ms > 0:
            timeout = min(timeout, config.operation_timeout_in_ms / 1000.0)
        if deadline is not None:
            timeout = max(0.1, min(timeout, deadline - time.monotonic()))
        # as TF's master: the tasks are those the client's own filters name; the server's
        # default session config joins the session's options only after discovery
        devices = self.discover(list(request.config.device_filters), timeout)
        handle = f"session_{next(self._ids)}_{random.getrandbits(32):08x}"
        sess = MasterSession(self, handle, config, devices, self.local_task)
        if request.graph_def.node or request.graph_def.library.function:
            sess.extend(request.graph_def)
        with self._lock:
            self._sessions[handle] = sess
        return master_pb2.CreateSessionResponse(session_handle=handle,
                                                graph_version=sess.version)

    def _session(self, handle):
        s = self._sessions.get(handle)
        if s is None:  # closed, reset, or this master restarted: TF's words and class
            raise errors.AbortedError(None, None, f"Session {handle} is not found.")
        return s

    def extend_session(self, request):
        sess = self._session(request.session_handle)
        with sess.lock:
            if request.current_graph_version != sess.version:
                raise errors.AbortedError(
                    None, None, f"Current graph version {request.current_graph_version} does "
                    f"not match the session's {sess.version}")
            v = sess.extend(request.graph_def)
        return master_pb2.ExtendSessionResponse(new_graph_version=v)

    def close_session(self, request):
        with self._lock:
            sess = self._sessions.pop(request.session_handle, None)
        if sess is None:  # as TF's master: the client's close then raises AbortedError
            raise errors.AbortedError(
                None, None, f"Session {request.session_handle} is not found. Possibly, this "
                "master has restarted.")
        with sess.lock:
            sess.closed = True
            partials = list(sess.partial_runs.values())
        for pr in partials:  # their steps end on every task (lanes waiting fail at once)
            self._end_partial(sess, pr, abort=True)
        for addr in list(sess.tasks_used):
            req = worker_pb2.DeleteWorkerSessionRequest(session_handle=sess.handle)
            try:
                self.transport.delete_worker_session(addr, req, CLEANUP_TIMEOUT_S)
            except errors.OpError:
                pass
        return master_pb2.CloseSessionResponse()

    def list_devices(self, request):
        if request.session_handle:
            sess = self._sessions.get(request.session_handle)
            if sess is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Session {request.session_handle} is not found. Possibly, "
                    "this master has restarted.")
            devices = sess.devices
        else:
            devices = self.discover((), STATUS_TIMEOUT_S * 3)
        resp = master_pb2.ListDevicesResponse()
        from tideflow.kernels.device import listed_devices
        from tideflow.protos import device_attributes_pb2

        local = "/job:{}/replica:0/task:{}/".format(*self.local_task)
        for d in listed_devices(list(devices)):  # (each task's XLA_CPU too, as TF's)
            a = device_attributes_pb2.DeviceAttributes(
                name=d.name, device_type=d.device_type, memory_limit=d.memory_limit,
                incarnation=d.incarnation, physical_device_desc=d.description)
            if d.name.startswith(local):
                resp.local_device.append(a)
            else:
                resp.remote_device.append(a)
        return resp

    def reset(self, request):
        """Clears resource containers on every (filtered) task; closes this master's sessions."""
        with self._lock:
            handles = list(self._sessions)
        for h in handles:
            with contextlib.suppress(errors.AbortedError):  # closed meanwhile by its client
                self.close_session(master_pb2.CloseSessionRequest(session_handle=h))
        req = worker_pb2.CleanupAllRequest(container=list(request.container))
        errs = []
        for _, _, addr in self.tasks(list(request.device_filters)):
            try:
                self.transport.cleanup_all(addr, req, REGISTER_TIMEOUT_S)
            except errors.OpError as e:
                errs.append(e)
        if errs:
            raise errs[0]
        return master_pb2.ResetResponse()

    # -- partial runs -------------------------------------------------------------------
    def partial_run_setup(self, request):
        """PartialRunSetup: plans and registers the step of the declared feeds, fetches and
        targets (one lane per set of feeds on each device: see ``_partial_lanes``); the step
        starts with the first RunStep naming the handle."""
        sess = self._session(request.session_handle)
        feeds = list(request.feed)
        fetches = list(request.fetch)
        targets = list(request.target)
        plan = sess.plan(feeds, fetches, targets, partial=True)
        handle = f"partial_{next(self._ids)}_{random.getrandbits(32):08x}"
        pr = _PartialRun(handle, plan, [sess._element(n, True) for n in feeds],
                         [sess._element(n, True) for n in fetches],
                         [sess._element(n, False) for n in targets],
                         random.getrandbits(62) + 1)
        with sess.lock:
            if sess.closed:
                raise errors.AbortedError(None, None, f"Session {sess.handle!r} was closed")
            sess.partial_runs[handle] = pr
        return master_pb2.PartialRunSetupResponse(partial_run_handle=handle)

    def _partial_step(self, sess, request, deadline, arrays):
        """A RunStep of a partial run: sends this call's feeds into the running step and waits
        for this call's fetches. The first call starts the step on every task; the call after
        which every fetch was fetched and every needed feed fed ends it (is_last_partial_run).
        A failed call ends the partial run everywhere; a rejected one (InvalidArgument) leaves
        it as it was."""
        h = request.partial_run_handle
        pr = sess.partial_runs.get(h)
        if pr is None:
            raise errors.InvalidArgumentError(
                None, None, f"Partial run handle {h!r} is not open in this session (it "
                "completed, failed or was never set up): must run 'setup' before performing "
                "partial runs!")
        with pr.lock:
            if pr.closed:
                raise errors.InvalidArgumentError(
                    None, None, f"Partial run {h!r} has ended (it completed or failed)")
            plan = pr.plan
            new = {}  # feed index -> TensorProto
            for nt in request.feed:
                i = pr.feed_index.get(self._partial_element(sess, nt.name, "feed"))
                if i is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"The feed {nt.name} was not specified in "
                        "partial_run_setup.")
                if i in pr.fed or i in new:
                    raise errors.InvalidArgumentError(
                        None, None, f"The feed {nt.name} has already been fed.")
                new[i] = nt.tensor
            wanted = {}  # fetch index -> position in this call's fetches
            for pos, name in enumerate(request.fetch):
                j = pr.fetch_index.get(self._partial_element(sess, name, "fetch"))
                if j is None:
                    raise errors.InvalidArgumentError(
                        None, None, f"The fetch {name} was not specified in partial_run_setup.")
                if j in pr.fetched or j in wanted:
                    raise errors.InvalidArgumentError(
                        None, None, f"The fetch {name} has already been fetched.")
                wanted[j] = pos
            for name in request.target:
                try:
                    op = sess._element(name, False)
                except errors.NotFoundError:
                    op = None
                if op not in pr.targets:
                    raise errors.InvalidArgumentError(
                        None, None, f"The target {name} was not specified in "
                        "partial_run_setup.")
            avail = pr.fed | set(new)
            for j, pos in wanted.items():
                missing = plan.fetch_needs[j] - avail
                if missing:
                    raise errors.InvalidArgumentError(
                        None, None, f"Fetch {request.fetch[pos]} can't be computed from the "
                        f"feeds that have been fed so far: it needs feed "
                        f"{pr.feeds[min(missing)].name}, which has not been fed yet in this "
                        "partial run.")
            last = (len(pr.fetched) + len(wanted) == len(pr.fetches)
                    and plan.needed_feeds <= avail)
            opts = request.options
            timeout_ms = opts.timeout_in_ms or sess.config.operation_timeout_in_ms
            if timeout_ms > 0:
                d = time.monotonic() + timeout_ms / 1000.0
                deadline = d if deadline is None else min(deadline, d)
            calls = []
            for tp in plan.parts:
                sends = [(i, key) for i, key in tp.feeds if i in new]
                recvs = [(j, key) for j, key in tp.fetches if j in wanted]
                if not (sends or recvs or last or not pr.started):
                    continue
                req = worker_pb2.RunGraphRequest(
                    session_handle=sess.handle, graph_handle=tp.handle, step_id=pr.step_id,
                    create_worker_session_called=True, is_partial=True,
                    is_last_partial_run=last)
                for i, key in sends:
                    req.send.add(name=key).tensor.CopyFrom(new[i])
                req.recv_key.extend(k for _, k in recvs)
                calls.append((tp, req, recvs))
            got = [{} for _ in calls]
            try:
                if sess.closed:
                    raise errors.CancelledError(None, None, "The session was closed")
                pr.started = True
                resps = self._run_all(sess, [(tp, req) for tp, req, _ in calls], deadline,
                                      pr.step_id, got) if calls else []
            except BaseException:
                self._end_partial(sess, pr, abort=True)
                raise
            pr.fed.update(new)
            pr.fetched.update(wanted)
            fed_fetched = {j: i for j, i in plan.fed_fetches}
            for j, i in fed_fetched.items():
                if i in new:
                    pr.fed_values[i] = new[i]
            if last:
                self._end_partial(sess, pr, abort=False)
        out = master_pb2.RunStepResponse()
        slots = [None] * len(request.fetch)
        for (_, _, recvs), resp, big in zip(calls, resps, got):
            by_key = {nt.name: big.get(i, nt.tensor) for i, nt in enumerate(resp.recv)}
            for j, key in recvs:
                slots[wanted[j]] = by_key.get(key)
        for j, pos in wanted.items():
            i = fed_fetched.get(j)
            if i is not None:
                slots[pos] = new.get(i, pr.fed_values.get(i))
        self._fill_response(out, request.fetch, slots, arrays)
        return out

    def _partial_element(self, sess, name, what):
        try:
            return sess._element(name, True)
        except errors.NotFoundError:
            raise errors.InvalidArgumentError(
                None, None, f"The {what} {name} was not specified in partial_run_setup.") from None

    def _end_partial(self, sess, pr, abort):
        """Forgets partial run ``pr``; with ``abort``, ends its step on every task (their
        waiting lanes fail at once)."""
        pr.closed = True
        sess.partial_runs.pop(pr.handle, None)
        if abort and pr.started:
            self._cleanup([(tp, None) for tp in pr.plan.parts], pr.step_id)

    # -- steps --------------------------------------------------------------------------
    def _check_tasks(self, sess, addresses):
        """Before registering: each task must answer and still have the devices the session
        saw (a restarted task lost its graphs and state: AbortedError)."""
        futs = {a: self._submit(self.transport.get_status, a, STATUS_TIMEOUT_S, False)
                for a in addresses}
        known = {d.name: d.incarnation for d in sess.devices}
        for a, f in futs.items():
            try:
                resp = f.result()
            except errors.OpError as e:
                raise errors.UnavailableError(
                    None, None, f"Task at {a} is unreachable: {e.message}") from None
            for d in resp.device_attributes:
                inc = known.get(canonical_device(d.name))
                if inc is not None and inc != d.incarnation:
                    raise errors.AbortedError(
                        None, None, f"Task at {a} was restarted (device {d.name} has a new "
                        "incarnation); its graphs and state are gone: create a new session")

    def _register(self, sess, plan):
        self._check_tasks(sess, [tp.address for tp in plan.parts])
        for tp in plan.parts:
            if sess.config.isolate_session_state and tp.address not in sess.tasks_used:
                # the task keeps this session's variables and queues apart from others'
                iso = worker_pb2.CreateWorkerSessionRequest(session_handle=sess.handle,
                                                            isolate_session_state=True)
                try:
                    self.transport.create_worker_session(tp.address, iso, REGISTER_TIMEOUT_S)
                except errors.OpError as e:
                    self._raise_if_lost(sess, [tp.address], e)
                    raise
            req = worker_pb2.RegisterGraphRequest(session_handle=sess.handle,
                                                  graph_def=tp.graph_def,
                                                  create_worker_session_called=True)
            req.graph_options.CopyFrom(sess.config.graph_options)
            try:
                tp.handle = self.transport.register_graph(tp.address, req,
                                                          REGISTER_TIMEOUT_S).graph_handle
            except errors.OpError as e:
                self._raise_if_lost(sess, [tp.address], e)
                raise
            sess.tasks_used[tp.address] = tp.name
            tp.graph_def = None  # registered: the worker holds it now

    def run_step(self, request, deadline=None, arrays=None):
        """RunStep: one RunGraph per task of the plan, concurrently; fetches gathered.

        With ``arrays`` (a dict), big fetched values stay out of the response (dtype and shape
        only) and go into ``arrays[fetch index]``, to be streamed to the client."""
        sess = self._session(request.session_handle)
        if request.partial_run_handle:
            return self._partial_step(sess, request, deadline, arrays)
        opts = request.options
        timeout_ms = opts.timeout_in_ms or sess.config.operation_timeout_in_ms
        if timeout_ms > 0:
            d = time.monotonic() + timeout_ms / 1000.0
            deadline = d if deadline is None else min(deadline, d)
        feeds = {nt.name: nt.tensor for nt in request.feed}
        feed_names = list(feeds)
        plan = sess.plan(feed_names, list(request.fetch), list(request.target))
        step_id = random.getrandbits(62) + 1
        # as TF's master session: only a full trace collects the workers' step stats
        trace = opts.trace_level == config_pb2.RunOptions.FULL_TRACE
        calls = []
        for tp in plan.parts:
            req = worker_pb2.RunGraphRequest(session_handle=sess.handle, graph_handle=tp.handle,
                                             step_id=step_id,
                                             create_worker_session_called=True)
            if trace:
                req.exec_opts.record_timeline = True
                req.exec_opts.record_costs = True
            if opts.output_partition_graphs:
                req.exec_opts.record_partition_graphs = True
            for i, key in tp.feeds:
                nt = req.send.add(name=key)
                nt.tensor.CopyFrom(feeds[feed_names[i]])
            req.recv_key.extend(k for _, k in tp.fetches)
            calls.append((tp, req))
        got = [{} for _ in calls]
        try:
            resps = self._run_all(sess, calls, deadline, step_id, got)
        except errors.DeadlineExceededError:
            if timeout_ms <= 0:
                raise
            # as TF's master: the step's own deadline passing is this one error, whichever
            # kernel was waiting when it did
            raise errors.DeadlineExceededError(None, None, "Operation timed out.") from None
        out = master_pb2.RunStepResponse()
        slots = [None] * plan.n_fetches
        for (tp, _), resp, big in zip(calls, resps, got):
            by_key = {nt.name: big.get(i, nt.tensor)
                      for i, nt in enumerate(resp.recv)}
            for j, key in tp.fetches:
                slots[j] = by_key.get(key)
            if trace:
                out.metadata.step_stats.dev_stats.extend(resp.step_stats.dev_stats)
            out.metadata.partition_graphs.extend(resp.partition_graph)
        for j, i in plan.fed_fetches:
            slots[j] = feeds[feed_names[i]]
        self._fill_response(out, request.fetch, slots, arrays)
        return out

    @staticmethod
    def _fill_response(out, names, slots, arrays):
        for name, tensor in zip(names, slots):
            nt = out.tensor.add(name=name)
            if tensor is None:
                raise errors.InternalError(None, None, f"Fetch {name!r} produced no value")
            if not isinstance(tensor, tensor_pb2.TensorProto):  # a big value, out of band
                if arrays is not None:
                    wire.placeholder(nt, tensor)
                    arrays[len(out.tensor) - 1] = tensor
                else:
                    wire.encode(tensor, nt.tensor)
            else:
                nt.tensor.CopyFrom(tensor)

    def _run_all(self, sess, calls, deadline, step_id, got):
        try:
            return self._run_calls(sess, calls, deadline, step_id, got)
        except errors.OpError:
            if sess.closed:  # the step failed because its session was closed under it
                raise errors.CancelledError(
                    None, None, "Step was cancelled by an explicit call to "
                    "`Session::Close()`.") from None
            raise
        except BaseException:
            # KeyboardInterrupt in the client's thread (an in-process client runs the step
            # here): the other tasks' parts must not wait for this one until their deadline
            self._cleanup(calls, step_id, wait=False)
            raise

    def _run_calls(self, sess, calls, deadline, step_id, got):
        timeout = None if deadline is None else deadline - time.monotonic()
        if len(calls) == 1:
            tp, req = calls[0]
            try:
                resp = self.transport.run_graph(tp.address, req, timeout or STEP_TIMEOUT_S,
                                                got[0], tp.small)
            except errors.OpError as e:
                self._after_failure(sess, calls, step_id, [_from_task(tp.name, e)])
            return [resp]  # a successful step's rendezvous ends by itself (no CleanupGraph)
        # one call runs in this thread (the local task's when there is one: no RPC, no thread
        # handoff); a failure of another cancels the step everywhere, which unblocks it
        local = getattr(self.transport, "local", {})
        mine = next((i for i, (tp, _) in enumerate(calls) if tp.address in local),
                    len(calls) - 1)
        futs = []
        cleaned = threading.Event()

        def on_done(f):
            if f.exception() is not None and not cleaned.is_set():
                cleaned.set()
                self._cleanup(calls, step_id, wait=False)

        for i, ((tp, req), big) in enumerate(zip(calls, got)):
            if i != mine:
                futs.append(self._submit(self.transport.run_graph, tp.address, req,
                                         timeout or STEP_TIMEOUT_S, big, tp.small))
                futs[-1].add_done_callback(on_done)
            else:
                futs.append(concurrent.futures.Future())
        tp, req = calls[mine]
        try:
            futs[mine].set_result(self.transport.run_graph(
                tp.address, req, timeout or STEP_TIMEOUT_S, got[mine], tp.small))
        except Exception as e:  # noqa: BLE001 - gathered with the others' below
            futs[mine].set_exception(e)
        done, pending = concurrent.futures.wait(futs, return_when=concurrent.futures.FIRST_EXCEPTION)
        failed = [f for f in done if f.exception() is not None]
        if failed:
            # stop the others: their pending receives and queue waits fail at once
            self._cleanup(calls, step_id)
            concurrent.futures.wait(pending, timeout=STATUS_TIMEOUT_S * 2)
            errs = [(i, f.exception()) for i, f in enumerate(futs)
                    if f.done() and f.exception() is not None]
            errs = [_from_task(calls[i][0].name, e) if isinstance(e, errors.OpError)
                    else errors.InternalError(None, None, f"{type(e).__name__}: {e}")
                    for i, e in errs]
            self._after_failure(sess, calls, step_id, errs, cleaned=True)
        return [f.result() for f in futs]

    def _cleanup(self, calls, step_id, wait=True):
        req = worker_pb2.CleanupGraphRequest(step_id=step_id)
        try:
            futs = [self._submit(self.transport.cleanup_graph, tp.address, req,
                                 CLEANUP_TIMEOUT_S) for tp, _ in calls]
        except errors.CancelledError:  # the server is stopping: its steps end with it
            return
        if wait:
            concurrent.futures.wait(futs, timeout=CLEANUP_TIMEOUT_S)

    def _after_failure(self, sess, calls, step_id, errs, cleaned=False):
        if not cleaned:
            self._cleanup(calls, step_id)
        err = _first_error(errs)
        self._raise_if_lost(sess, [tp.address for tp, _ in calls], err)
        raise err

    def _raise_if_lost(self, sess, addresses, err):
        """UnavailableError naming the lost task(s) when a health check finds any; Aborted
        when a task came back with new devices (its graphs and state are gone)."""
        if not isinstance(err, (errors.UnavailableError, errors.AbortedError,
                                errors.DeadlineExceededError, errors.CancelledError,
                                errors.InternalError, errors.UnknownError)):
            return
        bad = self.health_check(set(addresses))
        if bad:
            sess.plans.clear()
            names = ", ".join(f"{sess.tasks_used.get(a, a)} ({a})" for a in sorted(bad))
            raise errors.UnavailableError(
                None, None, f"Lost contact with task(s) {names}: "
                f"{next(iter(bad.values())).message}. Original error: {err.message}")
        if isinstance(err, errors.AbortedError):
            sess.plans.clear()

    def close(self):
        self._pool.shutdown(wait=False)
