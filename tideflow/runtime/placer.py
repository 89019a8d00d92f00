"""The placer (paper §3.2.1): one device per op from requests, colocation and kernel support.

Ops are grouped by union-find over colocation constraints (``_class`` ``loc:@`` attrs, and
reference or resource edges: an op taking a variable's ref lands with the variable). Each group
gets the devices that satisfy every member's (possibly partial) request and have a kernel for
every member; TF's default then picks the first of them by type priority (GPU before CPU) and
index, except that a "generator" (no inputs, one consumer) joins its consumer and a metadata op
(Shape, Size, Rank) joins its input. ``allow_soft_placement`` drops an unsatisfiable request's
device type and index (never its job, replica or task).

The cost-model placer (``runtime/cost_model.py``) is the alternative chooser among the feasible
devices: turn it on with ``TIDEFLOW_PLACER=cost`` or :func:`use_cost_model`.
"""

from tideflow import env
from tideflow.framework import dtypes, errors, op_registry
from tideflow.framework.device import DeviceSpec
from tideflow.kernels.device import listed_devices

_TYPE_PRIORITY = {"GPU": 0, "CPU": 1}
_METADATA_OPS = frozenset({"Shape", "Size", "Rank", "ShapeN"})
# ops that run a function body: a ref they take is used inside (e.g. assign_add in a loop)
_FUNCTION_OPS = frozenset({"While", "If", "StatelessWhile", "StatelessIf", "PartitionedCall",
                           "StatefulPartitionedCall"})


def use_cost_model(session, enabled=True):
    """Places ``session``'s later plans with the cost-model placer (or TF's default again)."""
    session._cost_placer = bool(enabled)
    session._plans.clear()
    session._fast.clear()


def cost_model_enabled(session):
    flag = getattr(session, "_cost_placer", None)
    return env.placer() == "cost" if flag is None else flag


def _input_args(op):
    """The ArgSpec of each input position of ``op``."""
    out = []
    attrs = op._attrs
    for arg in op._op_def.inputs:
        if arg.number_attr is not None:
            out.extend([arg] * attrs.get(arg.number_attr, 0))
        elif arg.type_list_attr is not None:
            out.extend([arg] * len(attrs.get(arg.type_list_attr, ())))
        else:
            out.append(arg)
    return out


def _is_colocating_edge(op, arg, t):
    """TF's rule: a ref or resource input is colocated with the op producing it."""
    dt = t._dtype
    if dt == dtypes.resource or getattr(dt, "base_dtype", dt) == dtypes.resource:
        return True
    if not dt._is_ref_dtype:
        return False
    return (arg is not None and arg.is_ref) or op._type in _FUNCTION_OPS


def _is_read_only_function_ref(op, arg, t, index):
    """A ref input of a function op (cond, loop) that its bodies only read (never assign
    through): colocating it is a preference, dropped when the refs' devices conflict."""
    return (op._type in _FUNCTION_OPS and t._dtype._is_ref_dtype
            and not (arg is not None and arg.is_ref) and not _body_takes_ref(op, index))


def _bodies(op, index):
    """(function graphs, their argument position) that input ``index`` of ``op`` feeds."""
    from tideflow.framework import func_graph

    attrs = op._attrs
    if op._type in ("If", "StatelessIf"):
        names, pos = (attrs.get("then_branch"), attrs.get("else_branch")), index - 1
    elif op._type in ("While", "StatelessWhile"):
        names, pos = (attrs.get("cond"), attrs.get("body")), index
    else:
        names, pos = (attrs.get("f"),), index
    fgs = []
    for name in names:
        try:
            fgs.append(func_graph.lookup_function(op._graph, name))
        except (ValueError, TypeError, AttributeError):
            return None, pos
    return fgs, pos


def _body_takes_ref(op, index):
    """Whether a body of function op ``op`` passes its input ``index`` to a ref argument
    (directly, or through a nested function op); True when it cannot tell."""
    memo = op.__dict__.setdefault("_tideflow_ref_args", {}) if hasattr(op, "__dict__") else {}
    if index in memo:
        return memo[index]
    fgs, pos = _bodies(op, index)
    result = fgs is None or pos < 0
    for fg in fgs or ():
        args = fg.args
        if pos >= len(args):
            result = True
            break
        ph = args[pos]
        ph = ph if not hasattr(ph, "_outputs") else ph._outputs[0]
        for consumer in ph.consumers():
            cargs = _input_args(consumer)
            for k, t in enumerate(consumer._inputs):
                if t is not ph:
                    continue
                carg = cargs[k] if k < len(cargs) else None
                if (carg is not None and carg.is_ref) or (
                        consumer._type in _FUNCTION_OPS and _body_takes_ref(consumer, k)):
                    result = True
        if result:
            break
    memo[index] = result
    return result


class _UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, k):
        p = self.parent.setdefault(k, k)
        if p == k:
            return k
        r = self.find(p)
        self.parent[k] = r
        return r

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


class Group:
    """A colocation group: its members (topological order), merged request and candidates."""

    __slots__ = ("candidates", "device", "ignored", "members", "requested", "requester")

    def __init__(self):
        self.members = []
        self.requested = None  # merged DeviceSpec, or None
        self.requester = None
        self.candidates = []
        self.device = None
        self.ignored = ()


def colocation_groups(ops):
    """Groups ``ops`` (ordered) by colocation: returns (groups in order, op -> group)."""
    uf = _UnionFind()
    opset = set(ops)
    first_key = {}
    soft = []
    for op in ops:
        keys = [g.decode() if isinstance(g, bytes) else g for g in op.colocation_groups()]
        k0 = f"loc:@{op._name}"
        first_key[op] = k0
        for k in keys:
            uf.union(k0, k)
    for op in ops:
        if not op._inputs:
            continue
        args = _input_args(op)
        args += [None] * (len(op._inputs) - len(args))
        for k, (arg, t) in enumerate(zip(args, op._inputs)):
            if t._op in opset and _is_colocating_edge(op, arg, t):
                if _is_read_only_function_ref(op, arg, t, k):
                    soft.append((t._op, op))
                else:
                    uf.union(first_key[t._op], first_key[op])
    # a cond or loop only reading variables of several devices (two parameter servers) is
    # placed apart from those it cannot join; the values reach it as ordinary inputs
    if soft:
        # the sources' requests decide (the function op's own yields, as across a ref edge)
        readers = {op for _, op in soft}
        requests = {}
        for op in ops:
            if op._device and op not in readers:
                requests.setdefault(uf.find(first_key[op]), []).append(
                    DeviceSpec.from_string(op._device))
        for src, op in soft:
            ra, rb = uf.find(first_key[src]), uf.find(first_key[op])
            if ra == rb:
                continue
            a, b = requests.get(ra, []), requests.get(rb, [])
            if all(x.is_compatible_with(y) for x in a for y in b):
                uf.union(ra, rb)
                requests[uf.find(ra)] = a + b
    # TF: across a ref/resource edge the source's requested device wins over an incompatible
    # request of the consumer (e.g. a restore Assign under /cpu:0 for a variable on /cpu:1)
    ignored = set()
    for op in ops:
        for t in op._inputs:
            if t._op in opset and op._device and t._op._device and (
                    uf.find(first_key[t._op]) == uf.find(first_key[op])):
                a = DeviceSpec.from_string(t._op._device)
                b = DeviceSpec.from_string(op._device)
                if not a.is_compatible_with(b) and (
                        t._dtype._is_ref_dtype or t._dtype.base_dtype == dtypes.resource):
                    ignored.add(op)
    groups = {}
    order = []
    group_of = {}
    for op in ops:
        r = uf.find(first_key[op])
        g = groups.get(r)
        if g is None:
            g = groups[r] = Group()
            order.append(g)
        g.members.append(op)
        group_of[op] = g
    for g in order:
        g.ignored = ignored
    return order, group_of


def _debug_info(group, devices):
    types = sorted({d.device_type for d in devices}, key=lambda t: _TYPE_PRIORITY.get(t, 9))
    lines = ["Colocation Debug Info:",
             "Colocation group had the following types and devices: "]
    for op in group.members:
        ok = [t for t in types if op_registry.supports_device_type(op._op_def, t)]
        lines.append(f"{op._type}: {' '.join(ok)} ")
    lines.append("")
    lines.append("Colocation members and user-requested devices:")
    for op in group.members:
        lines.append(f"  {op._name} ({op._type}) {op._device}")
    return "\n".join(lines)


def _no_such_device(op, req, spec, devices):
    """TF 1.15's error for an op explicitly assigned to a device the session lacks."""
    names = ", ".join(d.name for d in listed_devices(list(devices)))
    gpu = spec.device_type == "GPU" and not any(d.device_type == "GPU" for d in devices)
    # (op None: TF 1.15's session names no op for a placement error, so no stack is shown)
    return errors.InvalidArgumentError(
        None, None,
        f"Cannot assign a device for operation {op._name}: node {op._name} (defined at "
        f"{op._user_location})  was explicitly assigned to {req} but available devices are "
        f"[ {names} ]. Make sure the device specification refers to a valid device."
        + (" The requested device appears to be a GPU, but CUDA is not enabled." if gpu
           else "") + f"\n\t [[{op._name}]]")


def check_requested_devices(ops, devices, allow_soft_placement=False, job="localhost"):
    """Raises TF's InvalidArgumentError for the first of ``ops`` explicitly assigned to a
    device that none of ``devices`` matches (under soft placement: a job, replica or task
    none has). TF's master places a session's whole graph when it grows, so such a node
    fails every step of the session, not only the steps that run it. As in ``place``,
    generators come last: a request both an op and the Const it reads make is the op's."""
    for op in sorted(ops, key=_is_generator):
        if not op._device:
            continue
        spec = DeviceSpec.from_string(op._device)
        if spec.job == "*" or spec.device_type == "*":
            spec = spec.replace(job=None if spec.job == "*" else spec.job,
                                device_type=None if spec.device_type == "*" else
                                spec.device_type)
        if allow_soft_placement:
            spec = spec.replace(device_type=None, device_index=None)
        if not any(_matches(spec, d, job) for d in devices):
            raise _no_such_device(op, op._device, DeviceSpec.from_string(op._device), devices)


def _merge_requests(group, job, allow_soft):
    merged = None
    for op in group.members:
        if not op._device or op in group.ignored:
            continue
        spec = DeviceSpec.from_string(op._device)
        if spec.job == "*" or spec.device_type == "*":  # a wildcard constrains nothing
            spec = spec.replace(job=None if spec.job == "*" else spec.job,
                                device_type=None if spec.device_type == "*" else
                                spec.device_type)
        if merged is None:
            merged, group.requester = spec, op
            continue
        if merged.is_compatible_with(spec):
            merged = merged.make_merged_spec(spec)
        elif not allow_soft:
            a, b = group.requester, op
            raise errors.InvalidArgumentError(
                None, None,
                f"Cannot colocate nodes {{{{colocation_node {b._name}}}}} and {{{{colocation_node "
                f"{a._name}}}}}: Cannot merge devices with incompatible ids or types: "
                f"'{merged.to_string()}' and '{spec.to_string()}'")
    group.requested = merged


def _matches(spec, device, job):
    del job
    return spec.is_compatible_with(DeviceSpec.from_string(device.name))


def _feasible(group, devices, job, allow_soft):
    kernel_ok = [d for d in devices
                 if all(op_registry.supports_device_type(op._op_def, d.device_type)
                        for op in group.members)]
    spec = group.requested
    if spec is None:
        cands = kernel_ok
    else:
        cands = [d for d in kernel_ok if _matches(spec, d, job)]
    if cands:
        return cands
    op = group.requester or group.members[0]
    matching = [d for d in devices if spec is not None and _matches(spec, d, job)]
    if allow_soft and kernel_ok:
        if spec is None:
            return kernel_ok
        # as TF 1.15: soft placement drops the device type and index only; a job, replica or
        # task that no device has is still an error
        loose = spec.replace(device_type=None, device_index=None)
        near = [d for d in kernel_ok if _matches(loose, d, job)]
        if near:
            return near
    if spec is None or (matching and not kernel_ok):
        types = sorted({d.device_type for d in devices})
        raise errors.InvalidArgumentError(
            None, None,
            f"Cannot assign a device for operation '{op._name}': Could not satisfy the "
            "colocation group's kernel constraints: no device type among "
            f"{', '.join(types)} has a kernel for every member.\n{_debug_info(group, devices)}")
    req = op._device or spec.to_string()
    if not matching:
        raise _no_such_device(op, req, spec, devices)
    want = spec.device_type or matching[0].device_type
    raise errors.InvalidArgumentError(
        None, None,
        f"Cannot assign a device for operation '{op._name}': Could not satisfy explicit device "
        f"specification '{req}' because no supported kernel for {want} devices is available.\n"
        f"{_debug_info(group, devices)}")


def default_choice(candidates):
    """TF's default among feasible devices: by type priority, then index."""
    return min(candidates, key=lambda d: (_TYPE_PRIORITY.get(d.device_type, 9), d.index,
                                          d.name))


def place(ops, devices, allow_soft_placement=False, job="localhost", chooser=None,
          pinned=None):
    """Assigns a device to each of ``ops`` (topologically ordered): returns op -> Device.

    pinned: op -> Device for stateful ops placed by earlier plans of the session; their groups
    stay there (a variable's buffer lives in its device's resource manager), and the stateful
    ops placed now are added to it.

    chooser: ``f(groups, group_of) -> None`` that sets ``group.device`` for groups still
    unplaced (the cost model); TF's default rules place the rest.
    """
    check_device_names(ops)
    groups, group_of = colocation_groups(ops)
    # as TF's placer, generators go after the other ops: an unsatisfiable request in both an
    # op and the Const it reads is reported for the op
    for g in sorted(groups, key=lambda g: all(_is_generator(op) for op in g.members)):
        _merge_requests(g, job, allow_soft_placement)
        g.candidates = _feasible(g, devices, job, allow_soft_placement)
        if len(g.candidates) == 1:
            g.device = g.candidates[0]
        if pinned:
            for op in g.members:
                d = pinned.get(op)
                if d is not None:
                    g.device = d
                    break
    if chooser is not None:
        chooser(groups, group_of)
    late = []
    for g in groups:
        if g.device is not None:
            continue
        op = g.members[0]
        if len(g.members) == 1 and g.requested is None and (
                not op._inputs or op._type in _METADATA_OPS):
            late.append(g)
            continue
        g.device = default_choice(g.candidates)
    for g in late:
        # TF's heuristics: a generator with one consumer joins it; a metadata op its input
        op = g.members[0]
        target = None
        if op._inputs:
            src = group_of.get(op._inputs[0]._op)
            target = src.device if src is not None else None
        else:
            devs = {group_of[c].device for t in op._outputs for c in t.consumers()
                    if c in group_of}
            if len(devs) == 1 and len(op._outputs) == 1 and not op._outputs[0]._dtype._is_ref_dtype:
                target = next(iter(devs))
        g.device = target if target in g.candidates else default_choice(g.candidates)
    if pinned is not None:
        for op in ops:
            if op._op_def.is_stateful and op not in pinned:
                pinned[op] = group_of[op].device
    return {op: group_of[op].device for op in ops}


def _is_name(text):
    return bool(text) and text[0].isascii() and text[0].isalpha() and all(
        c.isascii() and (c.isalnum() or c == "_") for c in text)


def _parses_as_device_name(name):
    """Whether the C++ runtime's device-name grammar accepts ``name`` (the Python DeviceSpec
    is looser: it keeps '/job:', '/job:a-b' or '/device:CPU:-1', which no session can run)."""
    if name in ("", "/"):
        return True
    for part in name.split("/")[1:] if name.startswith("/") else [None]:
        if part is None:
            return False
        key, sep, value = part.partition(":")
        if not sep:
            return False
        if key == "job":
            ok = value == "*" or _is_name(value)
        elif key in ("replica", "task"):
            ok = value == "*" or value.isdigit()
        elif key == "device":
            kind, _, index = value.partition(":")
            ok = (kind == "*" or _is_name(kind)) and (
                ":" not in value or index == "*" or index.isdigit())
        elif key in ("cpu", "CPU", "gpu", "GPU"):
            ok = value == "*" or value.isdigit()
        else:
            ok = False
        if not ok:
            return False
    return True


def check_device_names(ops):
    """Raises TF's InvalidArgumentError for the first of ``ops`` whose requested device the
    runtime's grammar rejects."""
    # TF's placer parses every requested device with the runtime's stricter grammar first
    for op in sorted(ops, key=lambda o: o._id if o._id is not None else 0):
        dev = op._device
        if dev and not _parses_as_device_name(dev):
            from tideflow.framework import meta_graph  # (protos: loaded only for the error)

            attrs = ", ".join(
                f"{k}={meta_graph._summarize_attr_value(v)}"
                for k, v in sorted(op.node_def.attr.items()) if k != "value")
            attrs = ", ".join(filter(None, [attrs, f'_device="{dev}"']))
            inputs = ", ".join(t.name for t in op._inputs)
            raise errors.InvalidArgumentError(
                None, None,
                f"Malformed device specification '{dev}' in node: {{name:'{op._name}' "
                f"id:{op._id + 1} op device:{{}} def:{{node {op._name} (defined at "
                f"{op._user_location})  = {op._type}[{attrs}]({inputs})}}}}\n\t [[{op._name}]]")


def _is_generator(op):
    # TF's placer places these (no inputs, one non-ref output: Const, Placeholder) last
    return (not op._inputs and not op._control_inputs and len(op._outputs) == 1
            and not op._outputs[0]._dtype._is_ref_dtype)


def log_graph_placement(graph, placement, devices, allow_soft_placement=False, pinned=None,
                        job="localhost"):
    """Logs every op of ``graph`` as TF does when a session (re)places its graph under
    ``log_device_placement``: the ops with inputs (and stateful sources) first, then the
    generators, each in creation order; ``placement`` (the plan being built) gives its ops'
    devices, TF's default rules the others' (``job``: the job of ops pinned to none)."""
    from tideflow.runtime.executor import topo_order

    ops = graph.get_operations()
    full = placement
    if any(op not in placement for op in ops):
        # an op no device can run fails only if it ever runs (TF fails every run): the log
        # then shows where soft placement would put it
        for soft in (allow_soft_placement, True):
            try:
                full = place(topo_order(ops, {}), devices, soft, job=job,
                             pinned=dict(pinned or {}))
                full.update(placement)
                break
            except (errors.OpError, ValueError):
                full = placement
    ordered = ([op for op in ops if not _is_generator(op)]
               + [op for op in ops if _is_generator(op)])
    log_placement([op for op in ordered if op in full], full)


def log_placement(ops, placement):
    """Prints each op's device as TF does under ``log_device_placement``."""
    import logging

    log = logging.getLogger("tensorflow")
    for op in ops:
        dev = placement[op].name
        print(f"{op._name}: ({op._type}): {dev}")
        log.info("%s: (%s)%s", op._name, op._type, dev)
