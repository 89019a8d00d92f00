"""Step timelines (paper §9.2): Chrome trace-event JSON and a text profile from StepStats.

``Timeline(run_metadata.step_stats).generate_chrome_trace_format()`` gives a trace to open in
chrome://tracing or Perfetto: one process per device, one complete event per op, flow arrows
from each tensor's producer to consumers on other devices or threads (Send to Recv), and
optionally a memory counter per allocator.
"""

import collections
import json
import re

_LABEL = re.compile(r"^(?P<name>.*?) = (?P<op>[^(]*)\((?P<inputs>.*)\)$")


def _parse_label(label, default_name):
    """(op type, input tensor names) of a "name = Op(in1, in2)" timeline label."""
    m = _LABEL.match(label or "")
    if m is None:
        return "unknown", []
    inputs = [s.strip() for s in m.group("inputs").split(",") if s.strip()]
    return m.group("op"), [_tensor_name(i) for i in inputs if not i.startswith("^")]


def _tensor_name(name):
    return name if ":" in name else name + ":0"


# the largest memory in use of one allocator during the step: when, how many bytes, and the
# tensors alive then ({name: bytes})
AllocationMaximum = collections.namedtuple("AllocationMaximum",
                                           ("timestamp", "num_bytes", "tensors"))
StepStatsAnalysis = collections.namedtuple("StepStatsAnalysis",
                                           ("chrome_trace", "allocator_maximums"))


class _ChromeTrace:
    """A finished trace, as ``analyze_step_stats`` hands it back."""

    def __init__(self, text):
        self._text = text

    def format_to_string(self, pretty=False):
        """The trace-event JSON (indented with ``pretty``)."""
        if not pretty:
            return self._text
        return json.dumps(json.loads(self._text), indent=4, separators=(",", ": "))


class Timeline:
    """A timeline of one step's ``StepStats`` (``tf.timeline.Timeline`` as in TF's client)."""

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph

    def analyze_step_stats(self, show_dataflow=True, show_memory=True, op_time="schedule"):
        """A ``StepStatsAnalysis``: the Chrome trace and each allocator's peak memory."""
        del op_time  # the trace shows each op from its start to its end
        trace = self.generate_chrome_trace_format(show_dataflow, show_memory)
        return StepStatsAnalysis(_ChromeTrace(trace), _allocator_maximums(self._step_stats))

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        """The step as a Chrome trace-event JSON string."""
        events = []
        flows = {}  # tensor name -> (ts, pid, tid)
        flow_id = 0
        memory = {}
        ops = []
        for pid, dev in enumerate(self._step_stats.dev_stats):
            events.append({"name": "process_name", "ph": "M", "pid": pid,
                           "args": {"name": f"{dev.device} Compute"}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                           "args": {"sort_index": pid}})
            for tid, tname in dev.thread_names.items():
                events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                               "args": {"name": tname}})
            for ns in dev.node_stats:
                ops.append((pid, dev.device, ns))
        ops.sort(key=lambda x: x[2].all_start_micros)
        for pid, device, ns in ops:
            op_type, inputs = _parse_label(ns.timeline_label, ns.node_name)
            start = ns.all_start_micros
            dur = max(ns.all_end_rel_micros, 1)
            tid = ns.thread_id
            args = {"name": ns.node_name, "op": op_type}
            for i, name in enumerate(inputs):
                args[f"input{i}"] = name
            events.append({"name": op_type, "cat": "Op", "ph": "X", "ts": start, "dur": dur,
                           "pid": pid, "tid": tid, "args": args})
            if show_dataflow:
                for name in inputs:
                    src = flows.get(name)
                    if src is None or (src[1] == pid and src[2] == tid):
                        continue
                    flow_id += 1
                    events.append({"name": name, "cat": "DataFlow", "ph": "s", "ts": src[0],
                                   "pid": src[1], "tid": src[2], "id": flow_id})
                    events.append({"name": name, "cat": "DataFlow", "ph": "t", "ts": start,
                                   "pid": pid, "tid": tid, "id": flow_id, "bp": "e"})
                flows[ns.node_name + ":0"] = (start + dur, pid, tid)
                for out in ns.output:
                    flows[f"{ns.node_name}:{out.slot}"] = (start + dur, pid, tid)
            if show_memory:
                for out in ns.output:
                    ad = out.tensor_description.allocation_description
                    alloc = ad.allocator_name or "cpu"
                    memory.setdefault(alloc, []).append((start, ad.allocated_bytes))
        if show_memory:
            for alloc, recs in memory.items():
                total = 0
                for ts, nbytes in sorted(recs):
                    total += nbytes
                    events.append({"name": alloc, "ph": "C", "ts": ts, "pid": len(
                        self._step_stats.dev_stats), "args": {alloc: total}})
        return json.dumps({"traceEvents": events}, separators=(",", ":"))


def _allocator_maximums(step_stats):
    """{allocator: AllocationMaximum}: each op's outputs live from its start until the end of
    their last consumer (the op itself when none); the peak of their sum per allocator."""
    tensors = {}  # name -> [allocator, bytes, created, last use]
    for dev in step_stats.dev_stats:
        for ns in sorted(dev.node_stats, key=lambda n: n.all_start_micros):
            start = ns.all_start_micros
            end = start + ns.all_end_rel_micros
            for name in _parse_label(ns.timeline_label, ns.node_name)[1]:
                t = tensors.get(name)
                if t is not None:
                    t[3] = max(t[3], end)
            for out in ns.output:
                ad = out.tensor_description.allocation_description
                if ad.allocated_bytes:
                    tensors[f"{ns.node_name}:{out.slot}"] = [
                        ad.allocator_name or "cpu", ad.allocated_bytes, start, end]
    events = collections.defaultdict(list)  # allocator -> [(time, order, name, delta)]
    for name, (alloc, nbytes, created, last) in tensors.items():
        events[alloc].append((created, 0, name, nbytes))
        events[alloc].append((last, 1, name, -nbytes))
    out = {}
    for alloc, evs in events.items():
        live, total, best = {}, 0, AllocationMaximum(0, 0, {})
        for ts, _, name, delta in sorted(evs):
            total += delta
            if delta > 0:
                live[name] = delta
            else:
                live.pop(name, None)
            if total > best.num_bytes:
                best = AllocationMaximum(ts, total, dict(live))
        out[alloc] = best
    return out


def top_ops(step_stats, n=10, by="op"):
    """A text profile of the ``n`` most expensive ops of a step (by op time).

    by="op": one line per node; by="type": times summed per op type.
    """
    rows = {}
    total = 0
    for dev in step_stats.dev_stats:
        for ns in dev.node_stats:
            op_type, _ = _parse_label(ns.timeline_label, ns.node_name)
            us = ns.op_end_rel_micros - ns.op_start_rel_micros
            if ns.op_end_rel_nanos:
                us = (ns.op_end_rel_nanos - ns.op_start_rel_nanos) / 1000.0
            total += us
            key = (ns.node_name, op_type, dev.device) if by == "op" else (op_type, "", "")
            r = rows.setdefault(key, [0.0, 0])
            r[0] += us
            r[1] += 1
    ranked = sorted(rows.items(), key=lambda kv: -kv[1][0])[:n]
    lines = [f"{'time (us)':>12} {'%':>6} {'count':>6}  {'node' if by == 'op' else 'op type'}"]
    for (name, op_type, device), (us, count) in ranked:
        pct = 100.0 * us / total if total else 0.0
        what = f"{name} ({op_type}) on {device}" if by == "op" else name
        lines.append(f"{us:12.1f} {pct:6.1f} {count:6d}  {what}")
    lines.append(f"{total:12.1f} {100.0:6.1f}  total over {sum(r[1] for r in rows.values())} "
                 "nodes")
    return "\n".join(lines)
