"""The partitioner (paper §3.2.2): one partition per device, Send/Recv pairs on cut edges.

Each cross-device data edge becomes one Send on the producing device and one Recv per
destination device (however many ops there consume the tensor); a cross-device control edge
becomes a control token sent the same way. Nothing is added to the user's Graph: a partition is
a description (its ops in the global topological order, and the values to send and receive)
that the executor's emitter compiles into rendezvous calls. ``partition_graph_defs`` renders
the partitions as TF does for ``RunMetadata.partition_graphs`` (``_Send``/``_Recv`` nodes).
"""

import numpy as np

from tideflow.framework import dtypes
from tideflow.runtime.rendezvous import make_key


class Transfer:
    """One Send/Recv pair: a tensor (or a control token when ``tensor`` is None)."""

    __slots__ = ("dst", "edge_name", "key", "narrow", "recv_name", "send_name", "src",
                 "src_pos", "tensor", "token_op", "widen")

    def __init__(self, src, dst, tensor, token_op, key, send_name, recv_name):
        self.src = src
        self.dst = dst
        self.tensor = tensor
        self.token_op = token_op
        self.key = key
        self.send_name = send_name
        self.recv_name = recv_name
        # TF's tensor_name attr of the pair: edge_<id>_<tensor>
        edge = send_name.rsplit("/_", 1)[-1]
        self.edge_name = f"edge_{edge}_{tensor.name if tensor is not None else token_op._name}"
        self.src_pos = 0  # the producer's position in the global order
        self.narrow = None  # sender-side conversion (bfloat16, device to host)
        self.widen = None  # receiver-side conversion


class Unit:
    """Where a partition runs: a device, and a lane of it (inter-op parallelism)."""

    __slots__ = ("device", "lane")

    def __init__(self, device, lane=0):
        self.device = device
        self.lane = lane

    @property
    def name(self):
        return self.device.name if not self.lane else f"{self.device.name}#lane{self.lane}"

    def __repr__(self):
        return f"<Unit {self.name}>"


class Partition:
    """The ops of one unit in global order, with its sends, receives, fetches and targets."""

    def __init__(self, unit):
        self.unit = unit
        self.ops = []
        self.recvs = {}  # tensor -> Transfer
        self.sends = {}  # tensor -> [Transfer]
        self.ctrl_recvs = {}  # consuming op -> [Transfer]
        self.ctrl_sends = {}  # producing op -> [Transfer]
        self.fetches = []  # tensors
        self.fetch_index = []  # their positions in the step's fetch list
        self.targets = []
        self.global_index = {}  # op -> position in the global order (for ASAP receives)

    @property
    def device(self):
        return self.unit.device


def _bf16():
    import ml_dtypes

    return ml_dtypes.bfloat16


def _narrow_bf16(v):
    """Rounds a float32 array to bfloat16 (round to nearest even) for the wire."""
    if type(v) is np.ndarray and v.dtype == np.float32:
        return v.astype(_bf16())
    return v


def _widen_bf16(v):
    if type(v) is np.ndarray and v.dtype == _bf16():
        return v.astype(np.float32)
    return v


def _conversions(tr, bfloat16):
    src, dst = tr.src.device, tr.dst.device
    if src is dst or tr.tensor is None:
        return
    narrow, widen = [], []
    if not src.is_host:
        from tideflow.kernels.device import to_host

        narrow.append(to_host)
    if bfloat16 and tr.tensor._dtype.base_dtype == dtypes.float32:
        narrow.append(_narrow_bf16)
        widen.append(_widen_bf16)
    if not dst.is_host:
        widen.append(dst.to_device)
    tr.narrow = _chain(narrow)
    tr.widen = _chain(widen)


def _chain(fns):
    if not fns:
        return None
    if len(fns) == 1:
        return fns[0]

    def run(v):
        for f in fns:
            v = f(v)
        return v

    return run


def build(order, unit_of, fed, fetches, targets, bfloat16=False):
    """Splits ``order`` (global topological order) by ``unit_of``: returns the partitions.

    fed: the fed tensors (available on every unit). fetches: the step's fetched tensors.
    """
    parts = {}
    first_unit = unit_of[order[0]] if order else None

    def part(u):
        p = parts.get(u)
        if p is None:
            p = parts[u] = Partition(u)
        return p

    counter = [0]

    def names(base):
        n = counter[0]
        counter[0] += 2
        return f"{base}/_{n}", f"{base}/_{n + 1}"

    pos = {op: i for i, op in enumerate(order)}
    data = {}  # (tensor, dst unit) -> Transfer
    ctrl = {}  # (op, dst unit) -> Transfer
    for i, op in enumerate(order):
        u = unit_of[op]
        p = part(u)
        p.ops.append(op)
        p.global_index[op] = i
        for t in op._inputs:
            if t in fed:
                continue
            su = unit_of.get(t._op)
            if su is None or su is u:
                continue
            tr = data.get((t, u))
            if tr is None:
                key = make_key(su.name, su.device.incarnation, u.name, t.name)
                tr = Transfer(su, u, t, None, key, *names(t._op._name))
                tr.src_pos = pos[t._op]
                _conversions(tr, bfloat16)
                data[(t, u)] = tr
                part(su).sends.setdefault(t, []).append(tr)
                p.recvs[t] = tr
        for c in op._control_inputs:
            su = unit_of.get(c)
            if su is None or su is u:
                continue
            tr = ctrl.get((c, u))
            if tr is None:
                key = make_key(su.name, su.device.incarnation, u.name, f"^{c._name}")
                tr = Transfer(su, u, None, c, key, *names(c._name))
                tr.src_pos = pos[c]
                ctrl[(c, u)] = tr
                part(su).ctrl_sends.setdefault(c, []).append(tr)
            p.ctrl_recvs.setdefault(op, []).append(tr)
    for j, t in enumerate(fetches):
        u = first_unit if (t in fed or t._op not in unit_of) else unit_of[t._op]
        if u is None:
            u = next(iter(unit_of.values()), None)
        p = part(u)
        p.fetches.append(t)
        p.fetch_index.append(j)
    for op in targets:
        if op in unit_of:
            part(unit_of[op]).targets.append(op)
    return list(parts.values())


# ------------------------------------------------------------------------------------------
# partition graphs (RunMetadata.partition_graphs)
# ------------------------------------------------------------------------------------------


def call_frame_names(feeds, fetches):
    """The names TF 1.15's direct session gives a step's ``_Arg`` nodes (fed tensor -> name)
    and ``_Retval`` nodes (fetched tensor -> name, with its index): feeds and the distinct
    fetches that are not fed, each in name order, as ``_arg_<op>_<output>_<i>`` and
    ``_retval_<op>_<output>_<i>``."""
    feeds = sorted(set(feeds), key=lambda t: t.name)
    args = {t: (f"_arg_{t._op._name}_{t._value_index}_{i}", i) for i, t in enumerate(feeds)}
    fetched = sorted({t for t in fetches if t not in args}, key=lambda t: t.name)
    rets = {t: (f"_retval_{t._op._name}_{t._value_index}_{i}", i) for i, t in enumerate(fetched)}
    return args, rets


def partition_graph_defs(partitions, placement, feeds=(), fetches=()):
    """One GraphDef per partition, with ``_Send``/``_Recv`` nodes and TF's attrs on them, and
    the ``_Arg``/``_Retval`` nodes of the ``feeds`` and ``fetches`` it reads and computes."""
    from tideflow.framework import graph_io
    from tideflow.protos import graph_pb2

    args, rets = call_frame_names(feeds, fetches)
    out = []
    for p in partitions:
        gd = graph_pb2.GraphDef()
        dev = p.device.name
        recv_name = {t: tr.recv_name for t, tr in p.recvs.items()}
        used = {t for op in p.ops for t in op._inputs}
        for t, (name, i) in args.items():
            if t in used:
                recv_name[t] = name
                _frame_node(gd, name, "_Arg", None, t, i, dev)
        for op in p.ops:
            for t in op._outputs:
                if t in rets:
                    _frame_node(gd, rets[t][0], "_Retval", t, t, rets[t][1], dev)
            nd = graph_io.node_def_of(op)
            nd.device = placement[op].name
            del nd.input[:]
            for t in op._inputs:
                r = recv_name.get(t)
                nd.input.append(r if r is not None else t._as_node_def_input())
            for c in op._control_inputs:
                nd.input.append("^" + c._name)
            for tr in p.ctrl_recvs.get(op, ()):
                nd.input.remove("^" + tr.token_op._name)
                nd.input.append("^" + tr.recv_name)
            gd.node.append(nd)
        for t, trs in p.sends.items():
            for tr in trs:
                gd.node.append(_transfer_node(tr, "_Send", tr.send_name, t._as_node_def_input(),
                                              t._dtype.base_dtype, dev))
        for op, trs in p.ctrl_sends.items():
            for tr in trs:
                dummy = f"{tr.send_name}/dummy"
                c = gd.node.add(name=dummy, op="Const", device=dev)
                c.input.append("^" + op._name)
                c.attr["dtype"].CopyFrom(graph_io.attr_value_of(dtypes.float32, "type"))
                c.attr["value"].CopyFrom(graph_io.attr_value_of(np.zeros(0, np.float32),
                                                                "tensor"))
                gd.node.append(_transfer_node(tr, "_Send", tr.send_name, dummy, dtypes.float32,
                                              dev))
        for tr in p.recvs.values():
            gd.node.append(_transfer_node(tr, "_Recv", tr.recv_name, None,
                                          tr.tensor._dtype.base_dtype, dev))
        seen = set()
        for trs in p.ctrl_recvs.values():
            for tr in trs:
                if tr.key not in seen:
                    seen.add(tr.key)
                    gd.node.append(_transfer_node(tr, "_Recv", tr.recv_name, None,
                                                  dtypes.float32, dev))
        out.append(gd)
    return out


def _frame_node(gd, name, op_type, src, t, index, device):
    from tideflow.framework import graph_io

    nd = gd.node.add(name=name, op=op_type, device=device)
    if src is not None:
        nd.input.append(src._as_node_def_input())
    nd.attr["T"].CopyFrom(graph_io.attr_value_of(t._dtype.base_dtype, "type"))
    nd.attr["index"].CopyFrom(graph_io.attr_value_of(index, "int"))


def _transfer_node(tr, op_type, name, input_name, dtype, device):
    from tideflow.framework import graph_io
    from tideflow.protos import node_def_pb2

    nd = node_def_pb2.NodeDef(name=name, op=op_type, device=device)
    if input_name is not None:
        nd.input.append(input_name)
    attrs = {
        ("T" if op_type == "_Send" else "tensor_type"): (dtype, "type"),
        "tensor_name": (tr.edge_name, "string"),
        "send_device": (tr.src.device.name, "string"),
        "send_device_incarnation": (tr.src.device.incarnation, "int"),
        "recv_device": (tr.dst.device.name, "string"),
        "client_terminated": (False, "bool"),
    }
    for k, (v, typ) in attrs.items():
        nd.attr[k].CopyFrom(graph_io.attr_value_of(v, typ))
    return nd


def set_recv_schedule(session, mode):
    """Recv scheduling of ``session``'s later plans: "late" (default; each Recv just before its
    first consumer, the paper's §5.2) or "asap" (each Recv right after its producer ran)."""
    if mode not in ("late", "asap"):
        raise ValueError(f"recv schedule must be 'late' or 'asap', not {mode!r}")
    session._recv_asap = mode == "asap"
    session._plans.clear()
    session._fast.clear()
