"""``tf.profiler``: counts of a graph's parameters and floating-point operations, and the
execution times a traced step recorded, per name scope (``cmd='scope'``), along the dataflow
(``'graph'``) or per op type (``'op'``), as TF 1.x's tfprof reports and returns them.

FLOPs follow TF's registry: ``2 k`` per MatMul output, ``2 kh kw in`` per Conv2D output, one
per element for element-wise ops (two for SquaredDifference and Rsqrt, five for Softmax,
``3 n - 1`` for L2Loss), input plus finalization for reductions, the kernel area per pooled
output; an op whose shapes are not fully known counts 0, as there. Parameters are the element
counts of the trainable variables.
"""

import copy
import os
import re
import sys

import numpy as np

from tideflow.framework import ops, tensor_shape
from tideflow.protos.tfprof_log_pb2 import OpLogProto
from tideflow.protos.tfprof_output_pb2 import AdviceProto

# -- FLOPs per op type ---------------------------------------------------------------------


def _shape(t):
    s = t.get_shape()
    if not s.is_fully_defined():
        raise ValueError("shape not fully defined")
    return s.as_list()


def _count(t):
    return int(np.prod(_shape(t), dtype=np.int64))


def _unary(k=1):
    return lambda op: _count(op.inputs[0]) * k


def _binary(k=1):
    return lambda op: _count(op.outputs[0]) * k


def _reduction(reduce_flops, finalize_flops):
    return lambda op: (_count(op.inputs[0]) * reduce_flops
                       + _count(op.outputs[0]) * (finalize_flops - reduce_flops))


def _nhwc(op):
    fmt = op.get_attr("data_format") if "data_format" in op.node_def.attr else b"NHWC"
    if fmt not in (b"NHWC", "NHWC"):
        raise ValueError("Only NHWC format is supported in flops computations")


def _pool(op):
    _nhwc(op)
    return int(np.prod(op.get_attr("ksize"))) * _count(op.outputs[0])


def _matmul(op):
    a = _shape(op.inputs[0])
    transpose = op.get_attr("transpose_a") if "transpose_a" in op.node_def.attr else \
        op.get_attr("adj_x")
    k = a[-2] if transpose else a[-1]
    return 2 * k * _count(op.outputs[0])


def _conv2d(op):
    f = _shape(op.inputs[1])
    return _count(op.outputs[0]) * f[0] * f[1] * f[2] * 2


def _conv3d(op):
    f = _shape(op.inputs[1])
    return _count(op.outputs[0]) * f[0] * f[1] * f[2] * f[3] * 2


def _depthwise(op):
    f = _shape(op.inputs[1])
    return _count(op.outputs[0]) * f[0] * f[1] * 2


def _conv_backprop_input(op):
    _nhwc(op)
    out = _shape(op.outputs[0])
    strides = op.get_attr("strides")
    return int(2 * _count(op.outputs[0]) * _count(op.inputs[1])
               / (out[-1] * strides[1] * strides[2]))


def _conv_backprop_filter(op):
    _nhwc(op)
    image = _shape(op.inputs[0])
    strides = op.get_attr("strides")
    return int(2 * _count(op.inputs[0]) * _count(op.outputs[0])
               / (image[-1] * strides[1] * strides[2]))


def _avg_pool_grad(op):
    _nhwc(op)
    return int(np.prod(op.get_attr("ksize"))) * _count(op.inputs[1]) * 2


def _max_pool_grad(op):
    _nhwc(op)
    out = _count(op.inputs[1])
    return int(np.prod(op.get_attr("ksize"))) * out + out


def _add_n(op):
    if not op.inputs:
        return 0
    return _count(op.inputs[0]) * (len(op.inputs) - 1)


FLOPS = {
    "Reciprocal": _unary(), "Square": _unary(), "Rsqrt": _unary(2), "Log": _unary(),
    "Neg": _unary(), "AssignSub": _unary(), "AssignAdd": _unary(),
    "L2Loss": lambda op: _count(op.inputs[0]) * 3 - 1, "Softmax": _unary(5),
    "Add": _binary(), "Sub": _binary(), "Mul": _binary(),
    "RealDiv": _binary(), "Maximum": _binary(), "Minimum": _binary(), "Pow": _binary(),
    "RsqrtGrad": _binary(4), "GreaterEqual": _binary(), "Greater": _binary(),
    "LessEqual": _binary(), "Less": _binary(), "Equal": _binary(), "NotEqual": _binary(),
    "SquaredDifference": _binary(2),
    "Mean": _reduction(1, 1), "Sum": _reduction(1, 0), "ArgMax": _reduction(1, 0),
    "ArgMin": _reduction(1, 0), "BiasAddGrad": _reduction(1, 0),
    "AvgPool": _pool, "MaxPool": _pool, "AvgPoolGrad": _avg_pool_grad,
    "MaxPoolGrad": _max_pool_grad, "Conv2DBackpropInput": _conv_backprop_input,
    "Conv2DBackpropFilter": _conv_backprop_filter, "AddN": _add_n, "MatMul": _matmul,
    "BatchMatMul": _matmul, "Conv2D": _conv2d, "Conv3D": _conv3d,
    "DepthwiseConv2dNative": _depthwise, "BiasAdd": lambda op: _count(op.inputs[0]),
    "Dilation2D": _depthwise,
}
# TF 1.15 registers no statistics for AddV2 (what `x + y` makes) nor BatchMatMulV2 (what
# `tf.matmul` makes for batches): its profiler counts them 0, and so does this one


def _report_missing_flops(graph):
    """TF's Python side of the profiler, as it logs the graph's ops: on stderr, how many ops
    with a FLOP statistic it could not count because a shape is not fully known."""
    missing = 0
    for op in graph.get_operations():
        fn = FLOPS.get(op.type)
        if fn is None:
            continue
        try:
            fn(op)
        except ValueError:
            missing += 1
        except (TypeError, IndexError):
            pass
    if missing:
        sys.stderr.write(f"{missing} ops no flops stats due to incomplete shapes.\n")


def _report_incomplete_shapes(graph):
    """tfprof's C++ side, as it reads the graph: two "Incomplete shape." lines on stderr for
    each node whose ``shape`` attr has a known rank and an unknown dimension (a placeholder
    of ``[None, 4]``; one of unknown rank prints none)."""
    for op in graph.get_operations():
        shape = op._attrs.get("shape")
        if (isinstance(shape, tensor_shape.TensorShape) and shape.dims is not None
                and not shape.is_fully_defined()):
            sys.stderr.write("Incomplete shape.\nIncomplete shape.\n")


def op_flops(op):
    """TF's FLOP count of ``op`` (0 when its type has none registered or a shape is unknown)."""
    fn = FLOPS.get(op.type)
    if fn is None:
        return 0
    try:
        return int(fn(op))
    except (ValueError, TypeError, IndexError):
        return 0


# -- options -------------------------------------------------------------------------------


class ProfileOptionBuilder:
    """Builds the options dict ``profile`` takes; ``float_operation()``,
    ``trainable_variables_parameter()`` and ``time_and_memory()`` are the presets."""

    def __init__(self, options=None):
        self._options = copy.deepcopy(options) if options is not None else {
            "max_depth": 100, "min_bytes": 0, "min_micros": 0, "min_params": 0,
            "min_float_ops": 0, "min_occurrence": 0, "order_by": "name",
            "account_type_regexes": [".*"], "start_name_regexes": [".*"],
            "trim_name_regexes": [], "show_name_regexes": [".*"], "hide_name_regexes": [],
            "account_displayed_op_only": False, "select": ["micros"], "step": -1,
            "output": "stdout"}

    @staticmethod
    def trainable_variables_parameter():
        return {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
                "min_float_ops": 0, "min_occurrence": 0, "order_by": "name",
                "account_type_regexes": ["_trainable_variables"],
                "start_name_regexes": [".*"], "trim_name_regexes": [],
                "show_name_regexes": [".*"], "hide_name_regexes": [],
                "account_displayed_op_only": True, "select": ["params"], "step": -1,
                "output": "stdout"}

    @staticmethod
    def float_operation():
        return {"max_depth": 10000, "min_bytes": 0, "min_micros": 0, "min_params": 0,
                "min_float_ops": 1, "min_occurrence": 0, "order_by": "float_ops",
                "account_type_regexes": [".*"], "start_name_regexes": [".*"],
                "trim_name_regexes": [], "show_name_regexes": [".*"],
                "hide_name_regexes": [], "account_displayed_op_only": True,
                "select": ["float_ops"], "step": -1, "output": "stdout"}

    @staticmethod
    def time_and_memory(min_micros=1, min_bytes=1, min_accelerator_micros=0,
                        min_cpu_micros=0, min_peak_bytes=0, min_residual_bytes=0,
                        min_output_bytes=0):
        # the thresholds of statistics tideflow does not record are kept, as TF's, for its
        # option listing
        return {"max_depth": 10000, "min_bytes": min_bytes, "min_peak_bytes": min_peak_bytes,
                "min_residual_bytes": min_residual_bytes, "min_output_bytes": min_output_bytes,
                "min_micros": min_micros, "min_accelerator_micros": min_accelerator_micros,
                "min_cpu_micros": min_cpu_micros,
                "min_params": 0, "min_float_ops": 0, "min_occurrence": 0,
                "order_by": "micros", "account_type_regexes": [".*"],
                "start_name_regexes": [".*"], "trim_name_regexes": [],
                "show_name_regexes": [".*"], "hide_name_regexes": [],
                "account_displayed_op_only": True, "select": ["micros", "bytes"],
                "step": -1, "output": "stdout"}

    def build(self):
        return copy.deepcopy(self._options)

    def _set(self, key, value):
        self._options[key] = value
        return self

    def with_max_depth(self, max_depth):
        return self._set("max_depth", max_depth)

    def with_min_memory(self, min_bytes=0, min_peak_bytes=0, min_residual_bytes=0,
                        min_output_bytes=0):
        self._set("min_peak_bytes", min_peak_bytes)
        self._set("min_residual_bytes", min_residual_bytes)
        self._set("min_output_bytes", min_output_bytes)
        return self._set("min_bytes", min_bytes)

    def with_min_execution_time(self, min_micros=0, min_accelerator_micros=0,
                                min_cpu_micros=0):
        self._set("min_accelerator_micros", min_accelerator_micros)
        self._set("min_cpu_micros", min_cpu_micros)
        return self._set("min_micros", min_micros)

    def with_min_parameters(self, min_params):
        return self._set("min_params", min_params)

    def with_min_occurrence(self, min_occurrence):
        return self._set("min_occurrence", min_occurrence)

    def with_min_float_operations(self, min_float_ops):
        return self._set("min_float_ops", min_float_ops)

    def with_accounted_types(self, account_type_regexes):
        return self._set("account_type_regexes", list(account_type_regexes))

    def with_node_names(self, start_name_regexes=None, show_name_regexes=None,
                        hide_name_regexes=None, trim_name_regexes=None):
        for key, value in (("start_name_regexes", start_name_regexes),
                           ("show_name_regexes", show_name_regexes),
                           ("hide_name_regexes", hide_name_regexes),
                           ("trim_name_regexes", trim_name_regexes)):
            if value is not None:
                self._options[key] = list(value)
        return self

    def account_displayed_op_only(self, is_true):
        return self._set("account_displayed_op_only", bool(is_true))

    def with_empty_output(self):
        return self._set("output", "none")

    def with_stdout_output(self):
        return self._set("output", "stdout")

    def with_file_output(self, outfile):
        return self._set("output", f"file:outfile={outfile}")

    def with_timeline_output(self, timeline_file):
        return self._set("output", f"timeline:outfile={timeline_file}")

    def with_pprof_output(self, pprof_file):
        return self._set("output", f"pprof:outfile={pprof_file}")

    def order_by(self, attribute):
        return self._set("order_by", attribute)

    def select(self, attributes):
        return self._set("select", list(attributes))

    def with_step(self, step):
        return self._set("step", step)


# -- the report ----------------------------------------------------------------------------


class GraphNodeProto:
    """One node of a report: its own and its subtree's totals, and its children."""

    def __init__(self, name):
        self.name = name
        self.float_ops = self.total_float_ops = 0
        self.parameters = self.total_parameters = 0
        self.exec_micros = self.total_exec_micros = 0
        self.requested_bytes = self.total_requested_bytes = 0
        self.run_count = self.total_run_count = 0
        self.definition_count = self.total_definition_count = 0
        self.children = []
        self.graph_nodes = []
        self._account = False  # an accounted op stands behind it (not a bare name scope)
        self._shape = []  # its op's output shape, which a parameter report shows
        self._stat = None  # its op's statistics (a report's device, types and inputs)
        self._parent_type = "_kTFScopeParent"  # the types a report shows without an op

    def __repr__(self):
        return (f"GraphNodeProto(name={self.name!r}, total_float_ops={self.total_float_ops}, "
                f"total_parameters={self.total_parameters}, "
                f"total_exec_micros={self.total_exec_micros})")


class MultiGraphNodeProto(GraphNodeProto):
    """A node of the op and code views, which group ops: ``graph_nodes`` holds a node per
    grouped op."""


def _trainable_names(graph):
    return {v.op.name for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)}


def _exec_micros(run_meta):
    """node name -> (its op microseconds in the step, the device it ran on, lower case)."""
    out = {}
    if run_meta is None:
        return out
    for dev in run_meta.step_stats.dev_stats:
        if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
            continue
        for ns in dev.node_stats:
            us = out.get(ns.node_name, (0,))[0] + int(ns.op_end_rel_micros)
            out[ns.node_name] = (us, dev.device.lower())
    return out


def _input_shapes(op):
    """tfprof's input shapes of an op: ``index:dims`` (a scalar's dims 1, an unknown one
    -1) joined by ``|``, a control input standing for its op's first output."""
    tensors = list(op.inputs) + [c.outputs[0] if c.outputs else None
                                 for c in op.control_inputs]
    out = []
    for i, t in enumerate(tensors):
        shape = _attr_shape(op, t.get_shape()) if t is not None else None
        out.append(f"{i}:" + ("x".join(str(d) for d in shape) if shape else ""))
    return "|".join(out)


def _op_stats(graph, run_meta, op_log=None):
    trainable = _trainable_names(graph)
    micros = _exec_micros(run_meta)
    logged = {e.name: e for e in op_log.log_entries} if op_log is not None else {}
    stats = {}
    for op in graph.get_operations():
        shape = _attr_shape(op)
        if shape is None and op.name in trainable:
            shape = _attr_shape(op, op.outputs[0].get_shape())
        params = int(np.prod(shape, dtype=np.int64)) if shape and min(shape) >= 0 else 0
        out_bytes = 0
        for t in op.outputs:
            s = t.get_shape()
            if s.is_fully_defined() and t.dtype.base_dtype.is_numpy_compatible:
                out_bytes += s.num_elements() * t.dtype.base_dtype.size
        types = {op.type}
        if op.name in trainable:
            types.add("_trainable_variables")
        if op.type in ("Variable", "VariableV2", "VarHandleOp"):
            types.add("_variables")
        flops = op_flops(op)
        entry = logged.get(op.name)
        if entry is not None:  # a given op log's FLOPs replace the op's, its types add
            flops = entry.float_ops or flops
            types.update(entry.types)
        us, device = micros.get(op.name, (0, ""))
        stats[op.name] = {"float_ops": flops, "params": params, "micros": us,
                          "bytes": out_bytes, "types": types, "op_type": op.type,
                          "run": 1 if op.name in micros else 0, "shape": shape or [],
                          "device": device, "inputs": _input_shapes(op)}
    for dev in run_meta.step_stats.dev_stats if run_meta is not None else ():
        if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
            continue
        for ns in dev.node_stats:
            # the step's own _Arg/_Retval nodes, which no graph op stands behind: tfprof
            # counts them with their name as their type (its steps trace no _Send/_Recv)
            if ns.node_name in stats or ns.node_name == "_SOURCE" or (
                    " = _Send(" in ns.timeline_label or " = _Recv(" in ns.timeline_label):
                continue
            stats[ns.node_name] = {
                "float_ops": 0, "params": 0, "micros": micros[ns.node_name][0],
                "bytes": sum(o.tensor_description.allocation_description.requested_bytes
                             for o in ns.output),
                "types": {ns.node_name}, "op_type": ns.node_name, "run": 1, "shape": [],
                "device": dev.device.lower(), "inputs": ""}
    return stats


def _attr_shape(op, shape=None):
    """tfprof's shape of a node: its ``shape`` attr (variables, placeholders), -1 for an
    unknown dimension; None without one (or of unknown rank). Its parameters are the shape's
    elements."""
    if shape is None:
        shape = op._attrs.get("shape")
        if not isinstance(shape, tensor_shape.TensorShape):
            return None
    if shape.ndims is None:
        return None
    # a scalar's shape reads [1], as tfprof's
    return [-1 if d is None else d for d in shape.as_list()] or [1]


def _matches(name, regexes):
    return any(re.fullmatch(r, name) for r in regexes)


def _accounted(stat, options):
    return any(_matches(t, options.get("account_type_regexes", [".*"])) for t in stat["types"])


def _fill(node, stat):
    node._account = True
    node._shape = stat["shape"]
    node._stat = stat
    node.float_ops += stat["float_ops"]
    node.parameters += stat["params"]
    node.exec_micros += stat["micros"]
    node.requested_bytes += stat["bytes"]
    node.run_count += stat["run"]
    node.definition_count += 1


def _totals(node):
    node.total_float_ops = node.float_ops
    node.total_parameters = node.parameters
    node.total_exec_micros = node.exec_micros
    node.total_requested_bytes = node.requested_bytes
    node.total_run_count = node.run_count
    node.total_definition_count = node.definition_count
    for child in node.children:
        _totals(child)
        node.total_float_ops += child.total_float_ops
        node.total_parameters += child.total_parameters
        node.total_exec_micros += child.total_exec_micros
        node.total_requested_bytes += child.total_requested_bytes
        node.total_run_count += child.total_run_count
        node.total_definition_count += child.total_definition_count


def _scope_tree(stats, options):
    root = GraphNodeProto("_TFProfRoot")
    index = {"": root}
    for name in sorted(stats):
        stat = stats[name]
        if not _accounted(stat, options):
            continue
        parts = name.split("/")
        parent = root
        for i in range(1, len(parts) + 1):
            prefix = "/".join(parts[:i])
            node = index.get(prefix)
            if node is None:
                node = index[prefix] = GraphNodeProto(prefix)
                parent.children.append(node)
            parent = node
        _fill(parent, stat)
    if options.get("account_type_regexes") == [".*"]:
        # tfprof accounts every node then, a bare name scope too (its report shows "0/0"),
        # defined once (the root too, though it shows "--")
        for prefix, node in index.items():
            if not node._account:
                node._account, node.definition_count = bool(prefix), 1
    _totals(root)
    return root


def _graph_tree(graph, stats, options):
    """tfprof's graph view: each op's children are its inputs (control inputs too), the roots
    the ops nothing reads; an op not accounted hands its accounted inputs up, and each op
    appears once, under the first consumer a depth-first walk from the roots (in name order)
    reaches it by. Returns the root, its children the shown ops."""
    nodes = {}
    for name, stat in stats.items():
        node = nodes[name] = GraphNodeProto(name)
        if _accounted(stat, options):
            _fill(node, stat)
    inputs = {op.name: [t.op.name for t in op.inputs] + sorted(c.name for c in op.control_inputs)
              for op in graph.get_operations()}
    read = set()
    for name in sorted(nodes):
        read.update(inputs.get(name, ()))
        nodes[name].children = [nodes[i] for i in inputs.get(name, ()) if i in nodes]
    less = _tf_less(options)
    displayed_only = options.get("account_displayed_op_only", True)

    def set_totals(node):
        for attr in _TOTALLED:
            setattr(node, "total_" + attr, getattr(node, attr) + sum(
                getattr(c, "total_" + attr) for c in node.children))

    def account(seq, seen):
        out = []
        for node in seq:
            if node.name in seen:
                continue
            seen.add(node.name)
            kids = account(node.children, seen)
            if node._account:
                node.children = kids
                set_totals(node)
                out.append(node)
            else:
                out.extend(kids)
        return out

    def show(seq, depth, seen):
        out = []
        for node in seq:
            if node.name in seen:
                continue
            seen.add(node.name)
            kids = []
            if (depth <= options.get("max_depth", 100)
                    and not _matches(node.name, options.get("trim_name_regexes", []))):
                kids = show(node.children, depth + 1, seen)
            if not _visible(node, options, depth):
                out.extend(kids)
                continue
            node.children = _std_sort(kids, less)
            if displayed_only:
                set_totals(node)
            out.append(node)
        return out

    root = GraphNodeProto("_TFProfRoot")
    root._parent_type = "_TFGraphParent"
    if options.get("account_type_regexes") == [".*"]:
        root.definition_count = 1  # as a bare scope's in the scope view
    root.children = account([nodes[n] for n in sorted(nodes) if n not in read], set())
    set_totals(root)
    starts = _search_root(root.children, options.get("start_name_regexes", [".*"]))
    root.children = _std_sort(show(starts, 2, set()), less)
    if displayed_only:
        set_totals(root)
    return root


def _op_view(stats, options):
    root = MultiGraphNodeProto("_TFProfRoot")
    by_type = {}
    for name, stat in stats.items():
        if not _accounted(stat, options):
            continue
        node = by_type.get(stat["op_type"])
        if node is None:
            node = by_type[stat["op_type"]] = MultiGraphNodeProto(stat["op_type"])
            root.children.append(node)
        _fill(node, stat)
        op_node = GraphNodeProto(name)
        _fill(op_node, stat)
        _totals(op_node)
        node.graph_nodes.append(op_node)
    for node in root.children:
        node.graph_nodes.sort(key=lambda n: n.name)
    _totals(root)
    return root


def _std_sort(items, less):
    """``items`` ordered as C++'s ``std::sort`` orders them: tfprof sorts with it, so among
    equal keys its order, not the names', holds."""
    from tideflow.kernels.stl_order import std_sort

    a = list(items)
    std_sort(a, less)
    return a


def _tf_less(options):
    """tfprof's SortNodes comparison for ``order_by``."""
    key = {"bytes": "total_requested_bytes", "micros": "total_exec_micros",
           "params": "total_parameters", "float_ops": "total_float_ops",
           "occurrence": "definition_count"}.get(options.get("order_by", "name"))
    if key is None:
        return lambda x, y: x.name < y.name
    return lambda x, y: getattr(x, key) > getattr(y, key)


def _op_chain(flat, options):
    """tfprof's op view: the op types in its sort order, each one's totals taking in those
    after it; the shown ones (by their totals) become a chain, each the only child of the one
    before, under the root. Returns the root and the shown types."""
    nodes = _std_sort(sorted(flat.children, key=lambda n: n.name), _tf_less(options))

    def chain_totals(seq):
        for n, nxt in zip(reversed(seq[:-1]), reversed(seq[1:])):
            for attr in _TOTALLED:
                setattr(n, "total_" + attr, getattr(n, attr) + getattr(nxt, "total_" + attr))

    chain_totals(nodes)
    start = 0
    regexes = options.get("start_name_regexes", [".*"])
    if regexes and regexes != [".*"]:
        start = next((i for i, n in enumerate(nodes) if _matches(n.name, regexes)), len(nodes))
    shown = []
    for depth, n in enumerate(nodes[start:]):
        if (_matches(n.name, options.get("trim_name_regexes", []))
                or depth > options.get("max_depth", 100)):
            break
        if (n.total_requested_bytes >= options.get("min_bytes", 0)
                and n.total_exec_micros >= options.get("min_micros", 0)
                and n.total_parameters >= options.get("min_params", 0)
                and n.total_float_ops >= options.get("min_float_ops", 0)
                and _matches(n.name, options.get("show_name_regexes", [".*"]))
                and not _matches(n.name, options.get("hide_name_regexes", []))):
            shown.append(n)
    root = MultiGraphNodeProto("_TFProfRoot")
    if options.get("account_displayed_op_only", True):
        for n in shown:
            for attr in _TOTALLED:
                setattr(n, "total_" + attr, getattr(n, attr))
        chain_totals(shown)
        first = shown[0] if shown else None
    else:
        first = nodes[0] if nodes else None
    if first is not None:
        for attr in _TOTALLED:
            setattr(root, "total_" + attr, getattr(first, "total_" + attr))
    parent = root
    for n in shown:
        parent.children = [n]
        parent = n
    parent.children = []
    return root, shown


def _tf_op_report(root, shown, options):
    """The op view's report as tfprof writes it: per shown type, its own statistics with the
    percentages of the root's total that it and the types after it, and it alone, make."""
    selects = set(options.get("select", []))

    def pct(value, total, self_value, root_total, fmt, cond):
        accu = part = 0.0
        if cond > 0:
            accu, part = 100.0 * total / root_total, 100.0 * self_value / root_total
        return f"{f'{fmt(self_value)} ({accu:.2f}%, {part:.2f}%)':>30}"  # C's %30s

    legend = []
    if "bytes" in selects:
        legend.append("requested bytes")
    if "micros" in selects:
        legend += ["total execution time", "accelerator execution time", "cpu execution time"]
    if "params" in selects:
        legend.append("# parameters")
    if "float_ops" in selects:
        legend.append("# float_ops")
    if "occurrence" in selects:
        legend.append("op occurrence (run|defined)")
    docs = [_SELECT_DOC[s] for s in sorted(selects) if s in _SELECT_DOC]
    text = ("\nDoc:\nop: The nodes are operation kernel type, such as MatMul, Conv2D. Graph nodes "
            "belonging to the same type are aggregated together.\n" + "\n".join(docs)
            + "\n\nProfile:\nnode name | " + " | ".join(legend) + "\n")
    for n in shown:
        attrs = []
        if "bytes" in selects:
            attrs.append(pct(n.requested_bytes, n.total_requested_bytes, n.requested_bytes,
                             root.total_requested_bytes, _tf_memory, n.requested_bytes))
        if "micros" in selects:  # all of it on the CPU: no accelerator time
            cpu = pct(n.exec_micros, n.total_exec_micros, n.exec_micros,
                      root.total_exec_micros, _tf_time, n.total_exec_micros)
            attrs += [cpu, pct(0, 0, 0, 1, _tf_time, 0), cpu]
        if "params" in selects:
            attrs.append(pct(n.parameters, n.total_parameters, n.parameters,
                             root.total_parameters, lambda v: _tf_number(v) + " params",
                             n.total_parameters))
        if "float_ops" in selects:
            attrs.append(pct(n.float_ops, n.total_float_ops, n.float_ops,
                             root.total_float_ops, lambda v: _tf_number(v) + " float_ops",
                             n.total_float_ops))
        if "occurrence" in selects:
            attrs.append(f"{f'{n.run_count}|{n.definition_count}':>10}")
        text += f"{n.name:<25}" + ", ".join(attrs) + "\n"
    return text


_SELECT = {"float_ops": ("total_float_ops", "float_ops", "flops"),
           "params": ("total_parameters", "parameters", "params"),
           "micros": ("total_exec_micros", "exec_micros", "us"),
           "bytes": ("total_requested_bytes", "requested_bytes", "B")}


def _fmt(n):
    for unit, div in (("b", 1e9), ("m", 1e6), ("k", 1e3)):
        if abs(n) >= div:
            return f"{n / div:.2f}{unit}"
    return str(int(n))


def _visible(node, options, depth):
    # tfprof's ShouldShow: time and bytes by the subtree, parameters, FLOPs and runs by the
    # node itself (a name scope holding ops shows no FLOPs of its own), whatever is selected
    if (node.total_requested_bytes < options.get("min_bytes", 0)
            or node.total_exec_micros < options.get("min_micros", 0)
            or node.parameters < options.get("min_params", 0)
            or node.float_ops < options.get("min_float_ops", 0)
            or node.run_count < options.get("min_occurrence", 0)
            or depth > options.get("max_depth", 100)):
        return False
    if not _matches(node.name, options.get("show_name_regexes", [".*"])):
        return False
    return not (options.get("hide_name_regexes")
                and _matches(node.name, options["hide_name_regexes"]))


def _shown(nodes, options, depth):
    """tfprof's PrintScope: the nodes shown at this level, a hidden node's shown descendants
    standing in its place; with ``account_displayed_op_only`` a shown node's totals are its own
    statistics plus its shown children's."""
    out = []
    for node in sorted(nodes, key=lambda n: n.name):  # tfprof's children: in name order
        show = _visible(node, options, depth)
        kids = []
        if (depth <= options.get("max_depth", 100)
                and not _matches(node.name, options.get("trim_name_regexes", []))):
            kids = _shown(node.children, options, depth + 1)
        if not show:
            out.extend(kids)
            continue
        node.children = _std_sort(kids, _tf_less(options))
        if options.get("account_displayed_op_only", True):
            for attr in _TOTALLED:
                setattr(node, "total_" + attr, getattr(node, attr) + sum(
                    getattr(c, "total_" + attr) for c in node.children))
        out.append(node)
    return out


_TOTALLED = ("float_ops", "parameters", "exec_micros", "requested_bytes", "run_count",
             "definition_count")


def _order_key(options):
    attr = options.get("order_by", "name")
    if attr == "name":
        return lambda n: n.name
    key = {"float_ops": "total_float_ops", "params": "total_parameters",
           "micros": "total_exec_micros", "bytes": "total_requested_bytes"}.get(attr)
    if key is None:
        return lambda n: n.name
    return lambda n: (-getattr(n, key), n.name)


def _report(root, options, cmd):
    selects = [s for s in options.get("select", []) if s in _SELECT]
    header = " | ".join(f"# {_SELECT[s][2]}" for s in selects)
    lines = ["", "Profile:", f"node name | {header}"]

    def walk(node, depth):
        # the tree is what is shown (``_shown``); a node no op stands behind shows "--"
        cols = ", ".join(f"{_fmt(getattr(node, _SELECT[s][1])) if node._account else '--'}/"
                         f"{_fmt(getattr(node, _SELECT[s][0]))} {_SELECT[s][2]}"
                         for s in selects)
        lines.append(f"{'  ' * depth}{node.name} ({cols})")
        for child in node.children:
            walk(child, depth + 1)

    walk(root, 0)
    lines.append("")
    lines.append(f"======================End of Report ({cmd})==========================")
    return "\n".join(lines)


# tfprof's report text for the scope and graph views (tfprof_show.cc, tfprof_utils.cc)
_VIEW_DOC = {
    # tfprof documents the graph view with the scope view's words
    "scope": "scope: The nodes in the model graph are organized by their names, which is "
             "hierarchical like filesystem.",
    "graph": "scope: The nodes in the model graph are organized by their names, which is "
             "hierarchical like filesystem.",
}
_SELECT_DOC = {
    "bytes": "requested bytes: The memory requested by the operation, accumulatively.",
    "micros": "total execution time: Sum of accelerator execution time and cpu execution "
              "time.\ncpu execution time: The time from the start to the end of the "
              "operation. It's the sum of actual cpu run time plus the time that it spends "
              "waiting if part of computation is launched asynchronously.\naccelerator "
              "execution time: Time spent executing on the accelerator. This is normally "
              "measured by the actual hardware library.",
    "params": "param: Number of parameters (in the Variable).",
    "float_ops": "flops: Number of float operations. Note: Please read the implementation "
                 "for the math behind it.",
    "device": "device: which device is placed on.",
    "input_shapes": "input shape: The shape of input tensors",
    "occurrence": "occurrence: The number of times it occurs",
    "op_types": "op_types: The attributes of the operation, includes the Kernel name device "
                "placed on and user-defined strings.",
    "tensor_value": "tensor_value: Not supported now.",
}
# the columns in tfprof's order, whatever the order of ``select``
_COLUMNS = ("params", "float_ops", "bytes", "micros", "device", "op_types", "occurrence",
            "input_shapes", "tensor_value")
_LEGEND = {"params": "# parameters", "float_ops": "# float_ops", "bytes": "requested bytes",
           "micros": "total execution time | accelerator execution time | "
                     "cpu execution time", "device": "assigned devices",
           "op_types": "op types", "occurrence": "op count (run|defined)",
           "input_shapes": "input shapes"}
_OPTION_ORDER = (
    ("max_depth", 100), ("min_bytes", 0), ("min_peak_bytes", 0), ("min_residual_bytes", 0),
    ("min_output_bytes", 0), ("min_micros", 0), ("min_accelerator_micros", 0),
    ("min_cpu_micros", 0), ("min_params", 0), ("min_float_ops", 0), ("min_occurrence", 0),
    ("step", -1), ("order_by", "name"), ("account_type_regexes", [".*"]),
    ("start_name_regexes", [".*"]), ("trim_name_regexes", []), ("show_name_regexes", [".*"]),
    ("hide_name_regexes", []), ("account_displayed_op_only", False), ("select", ["micros"]))


def _tf_number(n):
    for unit, div in (("b", 1e9), ("m", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.2f}{unit}"
    return str(int(n))


def _tf_memory(n):
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if n >= div:
            return f"{n / div:.2f}{unit}"
    return f"{int(n)}B"


def _tf_time(us):
    if us >= 1e6:
        return f"{us / 1e6:.2f}sec"
    if us >= 1e3:
        return f"{us / 1e3:.2f}ms"
    return f"{int(us)}us"


def _tf_node_line(node, selects):
    def pair(self_value, total, fmt):
        return f"{fmt(self_value) if node._account else '--'}/{fmt(total)}"

    info = []
    if "params" in selects:
        if node._shape:
            info.append("x".join(str(d) for d in node._shape))
        info.append(pair(node.parameters, node.total_parameters, _tf_number) + " params")
    if "float_ops" in selects:
        info.append(pair(node.float_ops, node.total_float_ops, _tf_number) + " flops")
    if "bytes" in selects:
        info.append(pair(node.requested_bytes, node.total_requested_bytes, _tf_memory))
    if "micros" in selects:  # all of it on the CPU: no accelerator time
        info.append(pair(node.exec_micros, node.total_exec_micros, _tf_time))
        info.append(pair(0, 0, _tf_time))
        info.append(pair(node.exec_micros, node.total_exec_micros, _tf_time))
    stat = node._stat or {}
    if "device" in selects and stat.get("device"):
        info.append(stat["device"])
    if "op_types" in selects:
        # a node that ran has its device among its types; a bare name scope has tfprof's own
        types = {t for t in stat.get("types", ()) if t != "_variables"}
        types.update([stat["device"]] if stat.get("device") else [])
        info.append("|".join(sorted(types)) if stat else node._parent_type)
    if "occurrence" in selects:
        info.append(pair(node.run_count, node.total_run_count, str) + "|"
                    + pair(node.definition_count, node.total_definition_count, str))
    if "input_shapes" in selects:
        info.append(stat.get("inputs", ""))
    return f"{node.name} ({', '.join(info)})"


def _tf_options_text(options):
    lines = ["", "=========================Options============================="]
    for key, default in _OPTION_ORDER:
        value = options.get(key, default)
        if key == "select":
            value = ",".join(sorted(set(value)))
        elif isinstance(value, (list, tuple)):
            value = ",".join(value)
        elif isinstance(value, bool):
            value = "true" if value else "false"
        lines.append(f"-{key:<26} {value}")
    lines.append("-output                     stdout:")
    lines += ["", "==================Model Analysis Report======================"]
    return "\n".join(lines) + "\n"


def _tf_report(root, options, cmd):
    """The report of the scope and graph views as tfprof writes it: the documentation of the
    view and of each selected statistic, the legend, one line per shown node."""
    selects = set(options.get("select", [])) & set(_COLUMNS)
    docs = [_SELECT_DOC[s] for s in sorted(selects)]
    text = f"\nDoc:\n{_VIEW_DOC[cmd]}\n" + "\n".join(docs) + "\n\nProfile:\n"
    text += "node name | " + " | ".join(
        _LEGEND[c] for c in _COLUMNS if c in selects and c in _LEGEND) + "\n"

    def walk(node, depth):
        nonlocal text
        text += "  " * depth + _tf_node_line(node, selects) + "\n"
        for child in node.children:
            walk(child, depth + 1)

    walk(root, 0)
    return text


def _emit_tf(text, options):
    _write(options, text, _tf_options_text(options) + text
           + "\n======================End of Report==========================\n")


def _emit(text, options):
    _write(options, text + "\n", text + "\n")


def _write(options, file_text, stdout_text):
    """Where the options' ``output`` says: nowhere, ``file:outfile=PATH`` or stdout."""
    output = options.get("output", "stdout")
    if output == "none":
        return
    if output.startswith("file:"):
        path = output.split("outfile=", 1)[1]
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(file_text)
        return
    sys.stdout.write(stdout_text)


def profile(graph=None, run_meta=None, op_log=None, cmd="scope", options=None):
    """Profiles ``graph`` (default: the default graph); returns the root ``GraphNodeProto``
    whose ``total_float_ops``/``total_parameters``/``total_exec_micros`` sum what
    ``options`` accounts, and prints the report unless the output is ``none``."""
    if cmd not in ("scope", "graph", "op", "code"):
        from tideflow.framework import errors

        raise errors.InvalidArgumentError(None, None, f"unknown cmd: {cmd}")
    g = graph if graph is not None else ops.get_default_graph()
    if run_meta is None:  # (TF first completes the shapes a traced step saw)
        _report_missing_flops(g)
    _parsing_inputs()
    _report_incomplete_shapes(g)
    return _profile(graph, run_meta, cmd, options, op_log=op_log)


# what TF's option building takes for a key an options dict lacks (its ``select`` aside)
_BUILD_DEFAULTS = {
    "max_depth": 10, "min_bytes": 0, "min_peak_bytes": 0, "min_residual_bytes": 0,
    "min_output_bytes": 0, "min_micros": 0, "min_accelerator_micros": 0,
    "min_cpu_micros": 0, "min_params": 0, "min_float_ops": 0, "min_occurrence": 0,
    "order_by": "name", "account_type_regexes": [], "start_name_regexes": [],
    "trim_name_regexes": [], "show_name_regexes": [], "hide_name_regexes": [],
    "account_displayed_op_only": False, "output": "stdout", "step": -1}
_OUTPUTS = ("file", "none", "pprof", "stdout", "timeline")


def _search_root(nodes, regexes, seen=None):
    """tfprof's start nodes: the topmost nodes whose names match a start regex (each node
    looked at once: in the graph view one may sit under several consumers)."""
    seen = set() if seen is None else seen
    out = []
    for node in nodes:
        if node.name in seen:
            continue
        seen.add(node.name)
        if _matches(node.name, regexes):
            out.append(node)
        else:
            out.extend(_search_root(node.children, regexes, seen))
    return out


def _parsing_inputs():
    # tfprof prints this (to stdout, whatever the output option) as it reads a graph: once
    # per tf.profiler.profile or advise call, once per Profiler
    sys.stdout.write("Parsing Inputs...\n")


def _profile(graph, run_meta, cmd, options, steps=None, op_log=None):
    if options is None:
        options = ProfileOptionBuilder.trainable_variables_parameter()
    options = {**_BUILD_DEFAULTS, **options}
    if options["output"].split(":", 1)[0] not in _OUTPUTS:
        # tfprof refuses the options on stderr and hands back an empty node
        sys.stderr.write("Invalid argument: E.g. Unknown output type: "
                         f"{options['output'].split(':', 1)[0]}, Valid types: "
                         f"{','.join(_OUTPUTS)}\n")
        return MultiGraphNodeProto("") if cmd in ("op", "code") else GraphNodeProto("")
    if graph is None:
        graph = ops.get_default_graph()
    if options.get("output", "").startswith("timeline:"):
        return _profile_timeline(graph, run_meta, cmd, options, steps, op_log)
    stats = _op_stats(graph, run_meta, op_log)
    if cmd == "op":
        root, shown = _op_chain(_op_view(stats, options), options)
        _emit_tf(_tf_op_report(root, shown, options), options)
        return root
    if cmd == "code":
        root = _op_view(stats, options)
        root.children = [c for c in root.children if _visible(c, options, 2)]
        root.children.sort(key=_order_key(options))
    elif cmd == "graph":
        root = _graph_tree(graph, stats, options)
        _emit_tf(_tf_report(root, options, cmd), options)
        return root
    else:
        root = _scope_tree(stats, options)
        starts = _search_root(root.children, options["start_name_regexes"])
        root.children = _std_sort(_shown(starts, options, 2), _tf_less(options))
    if options.get("account_displayed_op_only", True):
        for attr in _TOTALLED:
            setattr(root, "total_" + attr, getattr(root, attr) + sum(
                getattr(c, "total_" + attr) for c in root.children))
    if cmd in _VIEW_DOC:
        _emit_tf(_tf_report(root, options, cmd), options)
    else:
        _emit(_report(root, options, cmd), options)
    return root


def _profile_timeline(graph, run_meta, cmd, options, steps, op_log):
    """A view whose output is ``timeline:outfile=PATH``: tfprof writes a Chrome trace to
    ``PATH_<step>`` instead of a report (the graph view one per traced step, for ``step`` -1
    every step; the op view none)."""
    from tideflow import tfprof_timeline

    path = options["output"].split("outfile=", 1)[1]
    quiet = {**options, "output": "none"}
    step = options.get("step", -1)
    if cmd != "graph":
        root = _profile(graph, run_meta, cmd, quiet, op_log=op_log)
        if cmd != "op":
            tfprof_timeline.write_tree(root, f"{path}_{step}")
        return root
    if steps is None:
        steps = {0: run_meta} if run_meta is not None else {}
    root = None
    inputs = {op.name: [t.op.name for t in op.inputs] + [c.name for c in op.control_inputs]
              for op in graph.get_operations()}
    for s in (sorted(steps) if step < 0 else [step] if step in steps else []):
        root = _profile(graph, steps[s], cmd, quiet, op_log=op_log)
        tfprof_timeline.write_graph(root, steps[s], inputs, f"{path}_{s}")
    return root if root is not None else _profile(graph, run_meta, cmd, quiet, op_log=op_log)


_ALL_ADVICE = {"ExpensiveOperationChecker": {}, "AcceleratorUtilizationChecker": {},
              "JobChecker": {}, "OperationChecker": {}}

# tfprof prints its checkers in the order of a C++ hash map, which varies from run to run
_CHECKERS = ("ExpensiveOperationChecker", "OperationChecker", "AcceleratorUtilizationChecker")


def advise(graph=None, run_meta=None, options=0):
    """Runs tfprof's checkers named in ``options`` (all by default) over ``graph`` and a traced
    step; prints each one's reports and returns them as an ``AdviceProto``."""
    _parsing_inputs()
    return _advise(graph or ops.get_default_graph(), {0: run_meta} if run_meta else {},
                   dict(_ALL_ADVICE) if options == 0 else options)


def _advise(graph, steps, options):
    from tideflow.protos import tfprof_output_pb2

    run_meta = steps[max(steps)] if steps else None
    names = [n for n in _CHECKERS if n in options]
    advice = tfprof_output_pb2.AdviceProto()
    for name in names:
        checker = advice.checkers[name]
        if name == "ExpensiveOperationChecker":
            checker.reports.extend(_expensive_ops(graph, run_meta, name))
        elif name == "OperationChecker":
            checker.reports.extend(_operation_advice(graph))
        # AcceleratorUtilizationChecker reports only GPU streams' busy share: traced CPU
        # steps leave it empty, as TF's
    for name in names:
        sys.stdout.write(f"\n{name}:\n")
        for report in advice.checkers[name].reports:
            sys.stdout.write(report + "\n")
    sys.stdout.flush()
    return advice


def _expensive_ops(graph, run_meta, name):
    """The ExpensiveOperationChecker's reports: the three op types and (past 100us) the three
    scopes that took longest."""
    reports = []
    stats = _op_stats(graph, run_meta)
    views = {"max_depth": 3, "min_micros": 1, "order_by": "micros", "output": "none",
             "account_displayed_op_only": False, "select": ["micros", "occurrence"]}
    if run_meta is None:
        sys.stderr.write(f"Missing RunMetadata info. Skip {name}\nMissing run_meta for {name}\n")
    else:
        root, _ = _op_chain(_op_view(stats, views), views)
        node, lines = root, []
        while len(lines) < 3 and node.children:
            node = node.children[0]
            lines.append(
                f"top {len(lines) + 1} operation type: {node.name}, "
                f"cpu: {_tf_time(node.exec_micros)}, accelerator: 0us, "
                f"total: {_tf_time(node.exec_micros)} "
                f"({100.0 * node.exec_micros / (root.total_exec_micros + 1e-10):.2f}%)")
        if lines:
            reports.append("\n".join(lines))
    views = {**views, "max_depth": 100, "min_micros": 100, "select": ["micros"]}
    root = _scope_tree(stats, views)
    top = _std_sort(_shown(root.children, views, 2), _tf_less(views))[:3]
    if top:
        reports.append("\n".join(
            f"top {i} graph node: {n.name}, cpu: {_tf_time(n.exec_micros)}, accelerator: 0us, "
            f"total: {_tf_time(n.exec_micros)}" for i, n in enumerate(top, 1)))
    return reports


def _operation_advice(graph):
    names = [op.name for op in graph.get_operations()]
    reports = []
    if (any("BatchNorm" in n for n in names)
            and not any(op.type == "FusedBatchNorm" for op in graph.get_operations())):
        reports.append("Maybe use faster FusedBatchNorm instead of BatchNorm")
    if any("GPU" in op.device.upper() and op.get_attr("data_format") == b"NHWC"
           for op in graph.get_operations() if "data_format" in op._attrs):
        reports.append("Found operation using NHWC data_format on GPU. Maybe NCHW is faster.")
    return reports


def write_op_log(graph, log_dir, op_log=None, run_meta=None, add_trace=True):
    """Writes ``log_dir/tfprof_log``: a serialized ``OpLogProto`` (as TF's) with an entry per
    op of ``graph`` (its FLOPs, and ``_trainable_variables`` among the types of trainable
    variables), merged with the entries of ``op_log``. No code traces are recorded."""
    from tideflow.protos import tfprof_log_pb2

    del run_meta
    os.makedirs(log_dir, exist_ok=True)
    given = {e.name: e for e in op_log.log_entries} if op_log is not None else {}
    trainable = _trainable_names(graph)
    out = tfprof_log_pb2.OpLogProto()
    for op in graph.get_operations():
        entry = tfprof_log_pb2.OpLogEntry(name=op.name, float_ops=op_flops(op))
        if op.name in trainable:
            entry.types.append("_trainable_variables")
        extra = given.pop(op.name, None)
        if extra is not None:
            entry.float_ops = extra.float_ops or entry.float_ops
            entry.types.extend(t for t in extra.types if t not in entry.types)
        # as TF's: an op with nothing to log has an entry only for its (traced) code
        if add_trace or entry.float_ops or entry.types:
            out.log_entries.append(entry)
    out.log_entries.extend(given.values())
    with open(os.path.join(log_dir, "tfprof_log"), "wb") as f:
        f.write(out.SerializeToString())


class Profiler:
    """Accumulates traced steps of ``graph`` and profiles them by scope, op or graph."""

    def __init__(self, graph=None, op_log=None):
        self._graph = graph or ops.get_default_graph()
        self._op_log = op_log
        self._steps = {}
        _report_missing_flops(self._graph)
        _parsing_inputs()
        self._read = False  # (tfprof reads the graph's shapes at the first profile)

    def add_step(self, step, run_meta):
        self._steps[step] = run_meta

    def _run_meta(self, options):
        step = options.get("step", -1)
        if not self._steps:
            return None
        return self._steps.get(step, self._steps[max(self._steps)])

    def _read_shapes(self):
        if not self._read:
            self._read = True
            _report_incomplete_shapes(self._graph)

    def profile_name_scope(self, options):
        self._read_shapes()
        return _profile(self._graph, self._run_meta(options), "scope", options,
                        op_log=self._op_log)

    def profile_graph(self, options):
        self._read_shapes()
        return _profile(self._graph, self._run_meta(options), "graph", options, self._steps,
                        self._op_log)

    def profile_operations(self, options):
        self._read_shapes()
        return _profile(self._graph, self._run_meta(options), "op", options,
                        op_log=self._op_log)

    def profile_python(self, options):
        self._read_shapes()
        return _profile(self._graph, self._run_meta(options), "code", options,
                        op_log=self._op_log)

    def advise(self, options):
        return _advise(self._graph, self._steps, options)

    def serialize_to_string(self):
        """The profile as a serialized ``ProfileProto`` (``tensorflow.core.profiler.
        tfprof_log_pb2``): a node per graph op (type, device, inputs, output shapes, float
        ops) with, for each added step, the op's start and run time on its device."""
        return _profile_proto(self._graph, self._steps).SerializeToString()


def _profile_proto(graph, steps):
    from tideflow.protos import tfprof_log_pb2

    proto = tfprof_log_pb2.ProfileProto()
    proto.steps.extend(sorted(steps))
    node_ids = {}
    for op in graph.get_operations():
        node_ids[op.name] = len(node_ids)
    trainable = _trainable_names(graph)
    for op in graph.get_operations():
        node = proto.nodes[node_ids[op.name]]
        node.name, node.op, node.id = op.name, op.type, node_ids[op.name]
        node.float_ops = op_flops(op)
        node.op_types.append(op.type)
        if op.name in trainable:
            node.op_types.append("_trainable_variables")
        for i, t in enumerate(op.inputs):
            src = node_ids[t.op.name]
            node.inputs[i] = src
            node.src_output_index[src] = t.value_index
        for i, t in enumerate(op.outputs):
            dims = t.get_shape().as_list() if t.get_shape().ndims is not None else []
            node.output_shapes[i].int64_values.extend(-1 if d is None else d for d in dims)
        node.shape.extend(_attr_shape(op) or [])  # tfprof's: the shape attr's
    for step, run_meta in sorted(steps.items()):
        for dev in run_meta.step_stats.dev_stats:
            if dev.device == "/host:CPU":  # (TF's host tracer: the same ops again)
                continue
            device = dev.device.lower()  # tfprof's canonical device names
            for ns in dev.node_stats:
                if ns.node_name not in node_ids:
                    # the step's _Arg/_Retval nodes join as nodes typed by their names
                    if ns.node_name == "_SOURCE" or " = _Send(" in ns.timeline_label or (
                            " = _Recv(" in ns.timeline_label):
                        continue
                    node_ids[ns.node_name] = len(node_ids)
                    extra = proto.nodes[node_ids[ns.node_name]]
                    extra.name = extra.op = ns.node_name
                    extra.id = node_ids[ns.node_name]
                    extra.op_types.append(ns.node_name)
                node = proto.nodes[node_ids[ns.node_name]]
                node.canonical_device = device
                if device not in node.op_types:
                    node.op_types.append(device)
                    node.op_types.sort()
                ex = node.execs[step]
                start = int(ns.all_start_micros)
                end = start + int(ns.all_end_rel_micros)
                ex.all_start_micros = min(ex.all_start_micros, start) if ex.run_count else start
                ex.latest_end_micros = max(ex.latest_end_micros, end)
                ex.run_count += 1
                execs = ex.accelerator_execs if "gpu" in device else ex.cpu_execs
                execs[device].times.add().int64_values.extend(
                    [start + int(ns.op_start_rel_micros),
                     int(ns.op_end_rel_micros) - int(ns.op_start_rel_micros)])
                if device not in ex.devices:
                    ex.devices.append(device)
    return proto


__all__ = ["AdviceProto", "GraphNodeProto", "MultiGraphNodeProto", "OpLogProto",
           "ProfileOptionBuilder", "Profiler", "advise", "profile", "write_op_log"]
