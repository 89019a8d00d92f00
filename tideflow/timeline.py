"""Step timelines (paper §9.2): Chrome trace-event JSON and a text profile from StepStats.

``Timeline(run_metadata.step_stats).generate_chrome_trace_format()`` gives the trace TF 1.15's
client timeline writes, to open in chrome://tracing or Perfetto; ``top_ops`` is a text profile.
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
# names of the tensors alive then
AllocationMaximum = collections.namedtuple("AllocationMaximum",
                                           ("timestamp", "num_bytes", "tensors"))
StepStatsAnalysis = collections.namedtuple("StepStatsAnalysis",
                                           ("chrome_trace", "allocator_maximums"))


class _ChromeTraceFormatter:
    """Collects trace events; ``analyze_step_stats`` hands it back as the chrome trace.

    Each event's keys come in TF 1.15's order (ph, cat, name, pid, tid, ts, then the rest), so
    the JSON text reads as TF's does.
    """

    def __init__(self, show_memory=False):
        self._show_memory = show_memory
        self._events = []
        self._metadata = []

    @staticmethod
    def _event(ph, cat, name, pid, tid, ts, **rest):
        ev = {"ph": ph, "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts}
        ev.update(rest)
        return ev

    def emit_pid(self, name, pid):
        self._metadata.append({"name": "process_name", "ph": "M", "pid": pid,
                               "args": {"name": name}})

    def emit_tid(self, name, pid, tid):
        self._metadata.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid,
                               "args": {"name": name}})

    def emit_region(self, timestamp, duration, pid, tid, category, name, args):
        self._events.append(self._event("X", category, name, pid, tid, timestamp,
                                        dur=duration, args=args))

    def emit_obj_create(self, category, name, timestamp, pid, tid, object_id):
        self._events.append(self._event("N", category, name, pid, tid, timestamp, id=object_id))

    def emit_obj_delete(self, category, name, timestamp, pid, tid, object_id):
        self._events.append(self._event("D", category, name, pid, tid, timestamp, id=object_id))

    def emit_obj_snapshot(self, category, name, timestamp, pid, tid, object_id, snapshot):
        self._events.append(self._event("O", category, name, pid, tid, timestamp, id=object_id,
                                        args={"snapshot": snapshot}))

    def emit_flow_start(self, name, timestamp, pid, tid, flow_id):
        self._events.append(self._event("s", "DataFlow", name, pid, tid, timestamp, id=flow_id))

    def emit_flow_end(self, name, timestamp, pid, tid, flow_id):
        self._events.append(self._event("t", "DataFlow", name, pid, tid, timestamp, id=flow_id))

    def emit_counter(self, category, name, pid, timestamp, counter, value):
        self._events.append(self._event("C", category, name, pid, 0, timestamp,
                                        args={counter: value}))

    def emit_counters(self, category, name, pid, timestamp, counters):
        self._events.append(self._event("C", category, name, pid, 0, timestamp,
                                        args=dict(counters)))

    def format_to_string(self, pretty=False):
        """The trace-event JSON: metadata events first (indented 4 with ``pretty``)."""
        trace = {"traceEvents": self._metadata + self._events}
        if pretty:
            return json.dumps(trace, indent=4, separators=(",", ": "))
        return json.dumps(trace, separators=(",", ":"))


class _Tensor:
    """One output tensor of the step: where it is drawn and when it is last used."""

    def __init__(self, object_id, created, pid, allocator, num_bytes):
        self.object_id = object_id
        self.create_time = created
        self.pid = pid
        self.allocator = allocator
        self.num_bytes = num_bytes
        self.last_unref = created


def _tf_label_parts(label):
    """TF 1.15's split of a "name = Op(a, b)" label: (op type, inputs as written)."""
    m = re.match(r"(.*) = (.*)\((.*)\)", label)
    if m is None:
        return "unknown", []
    inputs = m.group(3)
    return m.group(2), inputs.split(", ") if inputs else []


class Timeline:
    """A timeline of one step's ``StepStats`` (TF 1.15's ``client.timeline.Timeline``).

    As TF's: the trace has an "Allocators" process, then a "<device> Compute" and a
    "<device> Tensors" process per device; ops are spread on lanes by time (each node's
    ``thread_id`` is overwritten with its lane), an op's output ``k`` is the tensor
    "name:k" ("name" for output 0), flow arrows join a tensor's producer to consumers on
    another lane or device, and with ``show_memory`` tensors are objects on their device's
    Tensors process and each allocator gets a memory counter.
    """

    def __init__(self, step_stats, graph=None):
        self._step_stats = step_stats
        self._graph = graph
        self._chrome_trace = _ChromeTraceFormatter()
        self._next_pid = 0
        self._device_pids = {}
        self._tensor_pids = {}
        self._tensors = {}  # tensor name -> _Tensor, in the order the outputs are met
        self._next_flow_id = 0
        self._flow_starts = {}  # tensor name -> (time produced, pid, lane)
        self._allocator_maximums = {}

    def _new_pid(self):
        self._next_pid += 1
        return self._next_pid - 1

    def _allocate_pids(self):
        self._allocators_pid = self._new_pid()
        self._chrome_trace.emit_pid("Allocators", self._allocators_pid)
        for dev in self._step_stats.dev_stats:
            if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
                continue
            self._device_pids[dev.device] = self._new_pid()
            self._tensor_pids[dev.device] = self._new_pid()
            self._chrome_trace.emit_pid(dev.device + " Compute", self._device_pids[dev.device])
            self._chrome_trace.emit_pid(dev.device + " Tensors", self._tensor_pids[dev.device])

    def _assign_lanes(self):
        # an op takes the first lane whose last op ended strictly before it starts
        for dev in self._step_stats.dev_stats:
            if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
                continue
            lanes = [0]
            for ns in dev.node_stats:
                end = ns.all_start_micros + ns.all_end_rel_micros
                free = [i for i, busy in enumerate(lanes) if ns.all_start_micros > busy]
                if free:
                    ns.thread_id = free[0]
                    lanes[free[0]] = end
                else:
                    ns.thread_id = len(lanes)
                    lanes.append(end)

    def _analyze_tensors(self, show_memory):
        for dev in self._step_stats.dev_stats:
            if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
                continue
            pid = self._device_pids[dev.device]
            tensors_pid = self._tensor_pids[dev.device]
            for ns in dev.node_stats:
                start = ns.all_start_micros
                end = start + ns.all_end_rel_micros
                for k, out in enumerate(ns.output):
                    name = f"{ns.node_name}:{k}" if k else ns.node_name
                    ad = out.tensor_description.allocation_description
                    t = _Tensor(len(self._tensors), start, tensors_pid, ad.allocator_name,
                                ad.requested_bytes)
                    t.last_unref = end
                    self._tensors[name] = t
                    self._flow_starts[name] = (end, pid, ns.thread_id)
                    if show_memory:
                        self._chrome_trace.emit_obj_create("Tensor", name, start, tensors_pid,
                                                           ns.thread_id, t.object_id)
                        desc = str(out.tensor_description).replace('"', "")
                        self._chrome_trace.emit_obj_snapshot(
                            "Tensor", name, end - 1, tensors_pid, ns.thread_id, t.object_id,
                            {"tensor_description": desc})

    def _show_compute(self, show_dataflow):
        for dev in self._step_stats.dev_stats:
            if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
                continue
            pid = self._device_pids[dev.device]
            gpu_trace = "/stream:" in dev.device or "/memcpy" in dev.device
            for ns in dev.node_stats:
                start = ns.all_start_micros
                end = start + ns.all_end_rel_micros
                name, inputs = ns.node_name, []
                if gpu_trace:
                    name, op = (ns.node_name.split(":") + ["unknown"])[:2]
                elif name == "RecvTensor":
                    op = name
                else:
                    op, inputs = _tf_label_parts(ns.timeline_label)
                args = {"name": name, "op": op}
                args.update((f"input{i}", inp) for i, inp in enumerate(inputs))
                self._chrome_trace.emit_region(start, ns.all_end_rel_micros, pid, ns.thread_id,
                                               "Op", op, args)
                for inp in inputs:
                    if inp not in self._tensors and inp.rfind("/_") > 0:
                        inp = inp[:inp.rfind("/_")]  # a Recv named after the tensor it carries
                    t = self._tensors.get(inp)
                    if t is None:
                        continue
                    t.last_unref = max(t.last_unref, end - 1)
                    src_time, src_pid, src_lane = self._flow_starts[inp]
                    if show_dataflow and (src_pid, src_lane) != (pid, ns.thread_id):
                        flow_id = self._next_flow_id
                        self._next_flow_id += 1
                        self._chrome_trace.emit_flow_start(inp, src_time, src_pid, src_lane,
                                                           flow_id)
                        self._chrome_trace.emit_flow_end(inp, start, pid, ns.thread_id, flow_id)

    def _show_memory_counters(self):
        changes = {}  # allocator -> [(time, +-bytes, tensor name)]
        for name, t in self._tensors.items():
            self._chrome_trace.emit_obj_delete("Tensor", name, t.last_unref, t.pid, 0,
                                               t.object_id)
            changes.setdefault(t.allocator, []).extend(
                [(t.create_time, t.num_bytes, name), (t.last_unref, -t.num_bytes, name)])
        maximums = {}
        for allocator, recs in changes.items():
            total, live = 0, set()
            best = AllocationMaximum(timestamp=0, num_bytes=0, tensors=set())
            for ts, nbytes, name in sorted(recs):
                total += nbytes
                if nbytes < 0:
                    live.discard(name)
                else:
                    live.add(name)
                if total > best.num_bytes:
                    best = AllocationMaximum(timestamp=ts, num_bytes=total, tensors=set(live))
                self._chrome_trace.emit_counter("Memory", allocator, self._allocators_pid, ts,
                                                allocator, total)
            maximums[allocator] = best
        self._allocator_maximums = maximums

    def analyze_step_stats(self, show_dataflow=True, show_memory=True):
        """A ``StepStatsAnalysis``: the trace formatter and each allocator's peak memory."""
        self._allocate_pids()
        self._assign_lanes()
        self._analyze_tensors(show_memory)
        self._show_compute(show_dataflow)
        if show_memory:
            self._show_memory_counters()
        return StepStatsAnalysis(chrome_trace=self._chrome_trace,
                                 allocator_maximums=self._allocator_maximums)

    def generate_chrome_trace_format(self, show_dataflow=True, show_memory=False):
        """The step as Chrome trace-event JSON, indented as TF 1.15 writes it."""
        analysis = self.analyze_step_stats(show_dataflow=show_dataflow, show_memory=show_memory)
        return analysis.chrome_trace.format_to_string(pretty=True)


def top_ops(step_stats, n=10, by="op"):
    """A text profile of the ``n`` most expensive ops of a step (by op time).

    by="op": one line per node; by="type": times summed per op type.
    """
    rows = {}
    total = 0
    for dev in step_stats.dev_stats:
        if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
            continue
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
