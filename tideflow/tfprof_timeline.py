"""The Chrome trace files ``tf.profiler`` writes for a ``timeline:outfile=PATH`` output, as TF
1.x's tfprof: a traced step's ops per device (graph view), or nested scope totals (scope view).
"""

import json
import sys


class _Trace:
    """tfprof's trace: process names and regions first, then the flows between devices."""

    def __init__(self):
        self.metadata = []
        self.events = []

    def process(self, name, pid):
        self.metadata.append({"name": "process_name", "ph": "M", "pid": pid,
                              "args": {"name": name}})

    def region(self, ts, dur, pid, tid, name, args):
        self.metadata.append({"ph": "X", "cat": "Op", "name": name, "pid": pid, "tid": tid,
                              "ts": ts, "dur": dur, "args": args})

    def flow(self, ph, name, ts, pid, tid, flow_id):
        self.events.append({"ph": ph, "cat": "DataFlow", "name": name, "pid": pid, "tid": tid,
                            "ts": ts, "id": flow_id})

    def write(self, path):
        with open(path, "w") as f:
            f.write(json.dumps({"traceEvents": self.metadata + self.events}, sort_keys=True,
                               separators=(",", ":")) + "\n")
        sys.stdout.write("\n******************************************************\n"
                         f"Timeline file is written to {path}.\n"
                         "Open a Chrome browser, enter URL chrome://tracing and load the "
                         "timeline file.\n******************************************************\n")
        sys.stdout.flush()


def _shown_names(root):
    """The names of the nodes a view shows, depth first in its order."""
    out, seen, stack = [], set(), list(reversed(root.children))
    while stack:
        node = stack.pop()
        if node.name not in seen:
            seen.add(node.name)
            out.append(node.name)
            stack.extend(reversed(node.children))
    return out


def write_graph(root, run_meta, inputs, path):
    """The graph view's trace of one step: each shown op's executions on its device (a process
    per device, lanes so that runs on one lane never overlap), and an arrow from an op to each
    consumer on another device."""
    execs = {}  # name -> device -> {start: exec micros}
    for dev in run_meta.step_stats.dev_stats:
        if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
            continue
        device = dev.device.lower()
        for ns in dev.node_stats:
            start = int(ns.all_start_micros) + int(ns.op_start_rel_micros)
            runs = execs.setdefault(ns.node_name, {}).setdefault(device, {})
            runs.setdefault(start, int(ns.op_end_rel_micros) - int(ns.op_start_rel_micros))
    trace, pids, nodes = _Trace(), {}, {}
    shown = _shown_names(root)
    for name in shown:
        for device, runs in execs.get(name, {}).items():
            if device not in pids:
                pids[device] = len(pids)
                trace.process(f"Op scheduling threads: {device}", pids[device])
            for start, dur in runs.items():
                nodes.setdefault(device, {}).setdefault(start, [name, dur, 0, []])
    shown = set(shown)
    for device, by_start in nodes.items():
        for start, node in by_start.items():
            for src in inputs.get(node[0], ()):
                if src not in shown:
                    continue
                for src_device, runs in execs.get(src, {}).items():
                    if src_device == device:
                        continue  # only flows between devices, as tfprof's
                    for src_start in runs:
                        producer = nodes.get(src_device, {}).get(src_start)
                        if producer is not None:
                            producer[3].append((device, start))
    lanes = {}
    for device in sorted(nodes):
        ends = []  # each lane's last end
        for start in sorted(nodes[device]):
            node = nodes[device][start]
            lane = next((i for i, end in enumerate(ends) if end <= start), len(ends))
            if lane == len(ends):
                ends.append(0)
            ends[lane] = start + node[1]
            node[2] = lane
            lanes.setdefault(pids[device], {}).setdefault(lane, []).append((start, device))
    sys.stdout.write("generating trace file.\n")
    flow_id = 1
    for pid in sorted(lanes):
        for lane in sorted(lanes[pid]):
            for start, device in sorted(lanes[pid][lane]):
                name, dur, _, consumers = nodes[device][start]
                trace.region(start, dur, pid, lane, name, {"name": name})
                for dst_device, dst_start in consumers:
                    dst = nodes[dst_device][dst_start]
                    trace.flow("s", name + "_flow", start + dur, pid, lane, flow_id)
                    trace.flow("t", name + "_flow", dst_start, pids[dst_device], dst[2], flow_id)
                    flow_id += 1
    trace.write(path)


def write_tree(root, path):
    """The scope view's trace: each shown node a region as long as its total time, its
    children side by side under it, a process per depth."""
    trace, depths = _Trace(), set()

    def emit(node, start, duration, depth):
        if depth not in depths:
            depths.add(depth)
            trace.process(f"Scope:{depth}", depth)
        trace.region(start, duration, depth, 0, node.name, {"name": node.name, "op": node.name})
        for child in node.children:
            if child.total_exec_micros > 0:
                emit(child, start, child.total_exec_micros, depth + 1)
                start += child.total_exec_micros

    emit(root, 0, root.total_exec_micros, 0)
    trace.write(path)
