"""``tf.contrib.graph_editor``'s edits: rerouting and swapping tensors between consumers,
control inputs, detaching and connecting subgraph views, and copying subgraphs with replaced
inputs (``graph_replace``).

Edits rewire existing ops in place (``Operation._update_input``), which moves the graph's
structure version on, so sessions re-plan. Copies import one NodeDef at a time, in the order
the ops were made (TF's Transformer): the copied ops keep their types and attrs; names are
made unique in the destination graph as TF's are."""

from tideflow.contrib_graph_editor import (
    ControlOutputs,
    SubGraphView,
    flatten_tree,
    get_consuming_ops,
    get_predefined_collection_names,
    get_unique_graph,
    get_walks_intersection_ops,
    make_list_of_op,
    make_list_of_t,
    make_placeholder_from_tensor,
    make_view,
    placeholder_name,
    scope_finalize,
    transform_tree,
)
from tideflow.framework import ops

# ------------------------------------------------------------------------------------------
# reroute
# ------------------------------------------------------------------------------------------


def _check_ts_compatibility(ts0, ts1):
    ts0, ts1 = make_list_of_t(ts0), make_list_of_t(ts1)
    if len(ts0) != len(ts1):
        raise ValueError(f"ts0 and ts1 have different sizes: {len(ts0)} != {len(ts1)}")
    for t0, t1 in zip(ts0, ts1):
        if not t0.dtype.is_compatible_with(t1.dtype):
            raise ValueError(f"Dtypes {t0.dtype} and {t1.dtype} are not compatible.")
        if not t0.get_shape().is_compatible_with(t1.get_shape()):
            raise ValueError(f"Shapes {t0.get_shape()} and {t1.get_shape()} are not "
                             "compatible.")


def _reroute_t(t0, t1, consumers1, can_modify, cannot_modify):
    """Makes the given consumers of ``t1`` read ``t0``; the number of inputs changed."""
    if can_modify is not None:
        consumers1 &= can_modify
    if cannot_modify is not None:
        consumers1 -= cannot_modify
    positions = {c: [i for i, t in enumerate(c.inputs) if t is t1] for c in consumers1}
    count = 0
    for consumer, indices in positions.items():
        for i in indices:
            consumer._update_input(i, t0)
            count += 1
    return count


def _reroute_ts(ts0, ts1, a2b, b2a, can_modify=None, cannot_modify=None):
    ts0, ts1 = make_list_of_t(ts0), make_list_of_t(ts1)
    _check_ts_compatibility(ts0, ts1)
    if cannot_modify is not None:
        cannot_modify = frozenset(make_list_of_op(cannot_modify))
    if can_modify is not None:
        can_modify = frozenset(make_list_of_op(can_modify))
    # consumers first, so a tensor listed twice is not rerouted back
    consumers = [(set(t0.consumers()), set(t1.consumers())) for t0, t1 in zip(ts0, ts1)]
    count = 0
    for t0, t1, (consumers0, consumers1) in zip(ts0, ts1, consumers):
        if t0 is t1:
            continue
        if a2b:
            count += _reroute_t(t0, t1, consumers1, can_modify, cannot_modify)
        if b2a:
            count += _reroute_t(t1, t0, consumers0, can_modify, cannot_modify)
    return count


def swap_ts(ts0, ts1, can_modify=None, cannot_modify=None):
    """For each pair, the consumers of ``t0`` read ``t1`` and those of ``t1`` read ``t0``;
    returns the number of inputs changed."""
    return _reroute_ts(ts0, ts1, True, True, can_modify, cannot_modify)


def reroute_ts(ts0, ts1, can_modify=None, cannot_modify=None):
    """For each pair, the consumers of ``t1`` read ``t0`` instead; returns the number of
    inputs changed."""
    return _reroute_ts(ts0, ts1, True, False, can_modify, cannot_modify)


def _reroute_sgv_inputs(sgv0, sgv1, a2b, b2a):
    sgv0, sgv1 = make_view(sgv0), make_view(sgv1)
    if sgv0.graph is not None and sgv1.graph is not None and sgv0.graph is not sgv1.graph:
        raise ValueError("sgv0 and sgv1 are not from the same graph")
    can_modify = (list(sgv0.ops) + list(sgv1.ops) + get_consuming_ops(sgv0.passthroughs)
                  + get_consuming_ops(sgv1.passthroughs))
    _reroute_ts(sgv0.inputs, sgv1.inputs, a2b, b2a, can_modify=can_modify)
    return sgv0, sgv1


def _reroute_sgv_outputs(sgv0, sgv1, a2b, b2a):
    sgv0, sgv1 = make_view(sgv0), make_view(sgv1)
    if sgv0.graph is not None and sgv1.graph is not None and sgv0.graph is not sgv1.graph:
        raise ValueError("sgv0 and sgv1 are not from the same graph")
    _reroute_ts(sgv0.outputs, sgv1.outputs, a2b, b2a,
                cannot_modify=list(sgv0.ops) + list(sgv1.ops))
    return sgv0, sgv1


def swap_inputs(sgv0, sgv1):
    """Swaps the inputs of two views (their ops read each other's inputs)."""
    return _reroute_sgv_inputs(sgv0, sgv1, True, True)


def reroute_inputs(sgv0, sgv1):
    """The ops of ``sgv1`` read ``sgv0``'s inputs instead of their own."""
    return _reroute_sgv_inputs(sgv0, sgv1, True, False)


def swap_outputs(sgv0, sgv1):
    """Swaps the outputs of two views (their consumers read the other's outputs)."""
    return _reroute_sgv_outputs(sgv0, sgv1, True, True)


def reroute_outputs(sgv0, sgv1):
    """The consumers of ``sgv1``'s outputs read ``sgv0``'s outputs instead."""
    return _reroute_sgv_outputs(sgv0, sgv1, True, False)


def swap_ios(sgv0, sgv1):
    """Swaps both the inputs and the outputs of two views."""
    _reroute_sgv_outputs(sgv0, sgv1, True, True)
    return _reroute_sgv_inputs(sgv0, sgv1, True, True)


def reroute_ios(sgv0, sgv1):
    """``sgv1``'s ops read ``sgv0``'s inputs and ``sgv1``'s consumers read ``sgv0``'s
    outputs."""
    _reroute_sgv_outputs(sgv0, sgv1, True, False)
    return _reroute_sgv_inputs(sgv0, sgv1, True, False)


def add_control_inputs(op, cops):
    """Adds the ops ``cops`` as control inputs of ``op`` (ValueError if one already is)."""
    cops = make_list_of_op(cops, allow_graph=False)
    for cop in cops:
        if cop in op.control_inputs:
            raise ValueError(f"{cop.name} is already a control_input of {op.name}")
    op._add_control_inputs(cops)


def remove_control_inputs(op, cops):
    """Removes the ops ``cops`` from ``op``'s control inputs (ValueError if one is not)."""
    cops = make_list_of_op(cops, allow_graph=False)
    current = list(op.control_inputs)
    for cop in cops:
        if cop not in current:
            raise ValueError(f"{op.name} is not a control_input of {cop.name}")  # TF's order
    _set_control_inputs(op, [c for c in current if c not in cops])


def _set_control_inputs(op, keep):
    """Leaves ``op`` with the control inputs ``keep`` (a subset of its own)."""
    for c in op.control_inputs:
        if c not in keep and c._control_outputs:
            c._control_outputs.remove(op)
    op._control_inputs = list(keep) if keep else ()
    op.graph._structure_version += 1


# ------------------------------------------------------------------------------------------
# edit
# ------------------------------------------------------------------------------------------


def detach_control_inputs(sgv):
    """Removes the control inputs that the view's ops take from outside it."""
    sgv = make_view(sgv)
    inside = frozenset(sgv.ops)
    for op in sgv.ops:
        outside = [c for c in op.control_inputs if c not in inside]
        if outside:
            _set_control_inputs(op, [c for c in op.control_inputs if c in inside])


def detach_control_outputs(sgv, control_outputs):
    """Removes the view's ops from the control inputs of the ops outside it."""
    if not isinstance(control_outputs, ControlOutputs):
        raise TypeError("Expected a ControlOutputs, got: "
                        f"{type(control_outputs).__name__}")
    control_outputs.update()
    sgv = make_view(sgv)
    inside = frozenset(sgv.ops)
    for op in sgv.ops:
        for cop in control_outputs.get(op):
            if cop not in inside:
                remove_control_inputs(cop, [op])
    control_outputs.update()


def detach_inputs(sgv, control_inputs=False):
    """Cuts the view from its inputs: its ops read new placeholders (the inputs' dtypes, no
    shape, as TF 1.15; named ``geph__<op>_<index>``). Returns ``(view, placeholders)``."""
    from tideflow.ops import constant_op

    sgv = make_view(sgv)
    with sgv.graph.as_default():
        placeholders = [constant_op.placeholder(t.dtype, name=placeholder_name(t))
                        for t in sgv.inputs]
    swap_inputs(sgv, placeholders)
    if control_inputs:
        detach_control_inputs(sgv)
    return sgv, placeholders


def detach_outputs(sgv, control_outputs=None):
    """Cuts the view from its consumers: they read new placeholders instead of its outputs.
    Returns ``(view of the outputs that had consumers, placeholders)``."""
    sgv = make_view(sgv)
    sgv_ = sgv.remap_outputs([i for i, t in enumerate(sgv.outputs) if t.consumers()])
    consumers = SubGraphView(sgv_.consumers())
    consumers = consumers.remap_inputs([i for i, t in enumerate(consumers.inputs)
                                        if t in sgv_.outputs])
    with sgv_.graph.as_default():
        placeholders = [make_placeholder_from_tensor(t) for t in consumers.inputs]
    reroute_ts(placeholders, consumers.inputs, can_modify=consumers.ops)
    if control_outputs is not None:
        detach_control_outputs(sgv_, control_outputs)
    return sgv_, placeholders


def detach(sgv, control_inputs=False, control_outputs=None, control_ios=None):
    """:func:`detach_inputs` then :func:`detach_outputs`: ``(view, input placeholders, output
    placeholders)``."""
    if control_ios is not None:
        control_inputs, control_outputs = True, control_ios
    _, input_placeholders = detach_inputs(sgv, control_inputs)
    _, output_placeholders = detach_outputs(sgv, control_outputs)
    return sgv, input_placeholders, output_placeholders


def connect(sgv0, sgv1, disconnect_first=False):
    """Feeds ``sgv0``'s outputs to ``sgv1``'s inputs, in order (after detaching ``sgv1``'s
    inputs with ``disconnect_first``). Returns ``sgv1``."""
    sgv0, sgv1 = make_view(sgv0), make_view(sgv1)
    if sgv0.graph is not sgv1.graph:
        raise ValueError("sgv0 and sgv1 are not from the same graph")
    if disconnect_first:
        detach_inputs(sgv1)
    reroute_inputs(SubGraphView(passthrough_ts=sgv0.outputs), sgv1)
    return sgv1


def bypass(sgv):
    """Takes the view out of the graph: its consumers read its inputs (an input/output pair per
    position). Returns ``(view, input placeholders)``."""
    sgv = make_view(sgv)
    sgv_inputs = list(sgv.inputs)
    sgv, detached_inputs = detach_inputs(sgv)
    reroute_ts(sgv_inputs, sgv.outputs)
    return sgv, detached_inputs


# ------------------------------------------------------------------------------------------
# transform (copies)
# ------------------------------------------------------------------------------------------


class TransformerInfo:
    """What a copy made: ``transformed(original)`` and ``original(transformed)`` map ops and
    tensors (or structures of them) between the source and the copy."""

    def __init__(self, info):
        self._graph, self._scope = info.graph, info.scope
        self._graph_, self._scope_ = info.graph_, info.scope_
        # TF's tables, which programs such as gradient checkpointing read directly
        self._transformed_ops = info.transformed_ops
        self._transformed_ts = info.transformed_ts

    def _get_transformed_map(self, top):
        if isinstance(top, ops.Operation):
            return self._transformed_ops
        if isinstance(top, ops.Tensor):
            return self._transformed_ts
        raise TypeError(f"Expected a tf.Tensor or a tf.Operation, got a {type(top)}")

    def _transformed_elem(self, original_top, missing_fn=None):
        table = self._get_transformed_map(original_top)
        if original_top in table:
            return table[original_top]
        return None if missing_fn is None else missing_fn(original_top)

    def _original_elem(self, transformed_top, missing_fn=None):
        table = self._get_transformed_map(transformed_top)
        for original, transformed in table.items():
            if transformed is transformed_top:
                return original
        return None if missing_fn is None else missing_fn(transformed_top)

    def transformed(self, original, missing_fn=None):
        """The copies of ``original`` (an op, a tensor or a structure of them; None, or
        ``missing_fn(x)``, for what was not copied)."""
        return transform_tree(original,
                              lambda x: self._transformed_elem(x, missing_fn=missing_fn))

    def original(self, transformed, missing_fn=None):
        """The originals of copied ops or tensors (a structure of them too)."""
        return transform_tree(transformed,
                              lambda x: self._original_elem(x, missing_fn=missing_fn))

    def __str__(self):
        lines = ["Transform result info:"]
        if self._graph == self._graph_:
            lines.append(f"  Within graph[{id(self._graph)}]"
                         + ("" if self._scope_ else " IN-PLACE"))
        else:
            lines.append(f"  graph[{id(self._graph)}] => graph[{id(self._graph_)}]")
        if self._scope:
            lines.append(f"  Relative to source scope: {self._scope}")
        if self._scope_:
            lines.append(f"  Scope destination: {self._scope_}")
        lines.append("Operations mapping:")
        lines += [f"  {op.name} => {op_.name}" for op, op_ in self._transformed_ops.items()]
        return "\n".join(lines) + "\n"


class _TmpInfo:
    """The state of one Transformer call, which the handlers receive as ``info``."""

    def __init__(self, sgv, dst_graph, dst_scope, src_scope):
        self.sgv = sgv
        self.sgv_inputs_set = frozenset(sgv.inputs)
        self.ops = frozenset(sgv.ops)
        self.graph = sgv.graph
        self.control_outputs = ControlOutputs(sgv.graph) if sgv.graph is not None else None
        self.scope, self.graph_, self.scope_ = src_scope, dst_graph, dst_scope
        self.transformed_ops, self.transformed_ts = {}, {}
        self.collections = {} if self.graph is None else {
            key: self.graph.get_collection(key) for key in self.graph.get_all_collection_keys()}
        self.cyclic_ops, self.tmp_cyclic_ts = [], []
        self.transform_original_op_handler = transform_op_if_inside_handler

    def new_name(self, name):
        """``name`` moved from the source scope to the destination scope."""
        if not name.startswith(self.scope):
            raise ValueError(f"{name} does not belong to source scope: {self.scope}.")
        return self.scope_ + name[len(self.scope):]


def replace_t_with_placeholder_handler(info, t):
    """A new placeholder in the destination scope standing for ``t``."""
    with info.graph_.as_default():
        return make_placeholder_from_tensor(t, scope=info.scope_)


def keep_t_if_possible_handler(info, t):
    """``t`` itself when the copy stays in its graph, else a placeholder for it."""
    if info.graph is info.graph_:
        return t
    return replace_t_with_placeholder_handler(info, t)


def assign_renamed_collections_handler(info, elem, elem_):
    """Adds ``elem_`` to the collections ``elem`` is in: ``tf.GraphKeys``' under their own
    name, the others renamed into the destination scope."""
    known = get_predefined_collection_names()
    for name, members in info.collections.items():
        if not any(m is elem for m in members):
            continue
        info.graph_.add_to_collection(name if name in known else info.new_name(name), elem_)


def transform_op_if_inside_handler(info, op, keep_if_possible=True):
    """The copy of ``op`` when it is in the view; else ``op`` itself when the copy stays in
    its graph (and ``keep_if_possible``), else None."""
    if op in info.sgv.ops:
        return info.transformed_ops[op]
    if keep_if_possible and info.graph is info.graph_:
        return op
    return None


def copy_op_handler(info, op, new_inputs, copy_shape=False, nodedef_fn=None):
    """Copies ``op`` into the destination graph reading ``new_inputs``, under its renamed,
    uniquified name (``nodedef_fn`` may rewrite the NodeDef first); returns
    ``(op_, op_.outputs)``."""
    from tideflow.framework import importer
    from tideflow.protos import graph_pb2

    if isinstance(new_inputs, bool):
        raise TypeError("the `new_inputs` argument must be an iterable.")
    graph_def = graph_pb2.GraphDef()
    nd = graph_def.node.add()
    nd.CopyFrom(op.node_def)
    nd.name = info.graph_.unique_name(info.new_name(op.name), mark_as_used=False)
    del nd.input[:]
    if nodedef_fn is not None:
        graph_def.node[0].CopyFrom(nodedef_fn(nd))
        nd = graph_def.node[0]
    if "_class" in nd.attr:  # colocation with ops left behind does not travel
        del nd.attr["_class"]
    input_map = {}
    for i, t_ in enumerate(new_inputs):
        input_map[f"_ge_input_{i}:0"] = t_
        nd.input.append(f"_ge_input_{i}:0")
    with info.graph_.as_default():
        op_, = importer.import_graph_def(graph_def, input_map=input_map,
                                         return_elements=[nd.name], name="")
    if copy_shape:
        for t, t_ in zip(op.outputs, op_.outputs):
            t_.set_shape(t.get_shape())
    if op._original_op is not None:
        op_._original_op = op._original_op
    return op_, op_.outputs


class Transformer:
    """Copies a subgraph view into a graph, op by op in creation order. Its handlers decide
    how: ``transform_op_handler`` (:func:`copy_op_handler`), ``assign_collections_handler``,
    ``transform_external_input_handler`` (the view's inputs: new placeholders),
    ``transform_external_hidden_input_handler`` (other tensors read from outside: kept when
    possible), ``transform_control_input_handler`` and ``transform_original_op_handler``.
    Calling it returns ``(view of the copy, TransformerInfo)``."""

    def __init__(self):
        self.transform_op_handler = copy_op_handler
        self.transform_control_input_handler = transform_op_if_inside_handler
        self.assign_collections_handler = assign_renamed_collections_handler
        self.transform_external_input_handler = replace_t_with_placeholder_handler
        self.transform_external_hidden_input_handler = keep_t_if_possible_handler
        self.transform_original_op_handler = transform_op_if_inside_handler

    def __call__(self, sgv, dst_graph, dst_scope, src_scope="", reuse_dst_scope=False):
        sgv = make_view(sgv)
        if not isinstance(dst_graph, ops.Graph):
            raise TypeError(f"Expected a tf.Graph, got: {type(dst_graph)}")
        src_scope = scope_finalize(src_scope)
        dst_scope = scope_finalize(dst_scope)
        if dst_scope and not reuse_dst_scope:
            dst_scope = scope_finalize(dst_graph.unique_name(dst_scope[:-1]))
        info = _TmpInfo(sgv, dst_graph, dst_scope, src_scope)
        self._copy_ops(info)
        self._connect_control_inputs(info)
        return self._transform_sgv(info, sgv), TransformerInfo(info)

    def _copy_ops(self, info):
        for op in sorted(info.sgv.ops, key=lambda o: o._id):
            new_inputs = [self._transformed_t(info, t, op) for t in op.inputs]
            op_, outputs_ = self.transform_op_handler(info, op, new_inputs)
            if op is op_:
                raise ValueError("In-place transformation not allowed.")
            info.transformed_ops[op] = op_
            self.assign_collections_handler(info, op, op_)
            for t, t_ in zip(op.outputs, outputs_):
                info.transformed_ts[t] = t_
                self.assign_collections_handler(info, t, t_)

    def _connect_control_inputs(self, info):
        for op in info.sgv.ops:
            op_ = info.transformed_ops[op]
            if op._original_op is not None:
                original = self.transform_original_op_handler(info, op._original_op)
                if original is not None:
                    op_._original_op = original
            controls = [self.transform_control_input_handler(info, c)
                        for c in op.control_inputs]
            controls = [c for c in controls if c is not None]
            if controls:
                add_control_inputs(op_, controls)

    def _transform_sgv(self, info, sgv):
        """The copy's view, keeping the inputs and outputs that map to the original's."""
        view = SubGraphView(list(info.transformed_ops.values()))
        input_map_ = [view.input_index(info.transformed_ts[t]) for t in sgv.inputs
                      if t in info.transformed_ts and info.transformed_ts[t] in view.inputs]
        output_map_ = [view.output_index(info.transformed_ts[t]) for t in sgv.outputs
                       if t in info.transformed_ts and info.transformed_ts[t] in view.outputs]
        return view.remap(input_map_, output_map_)

    def _transformed_t(self, info, t, consumer_op):
        if t in info.transformed_ts:
            return info.transformed_ts[t]
        if t in info.sgv_inputs_set:
            return self.transform_external_input_handler(info, t)
        if t.op in info.ops:  # (a v1 loop's back edge: tideflow's loops are While ops)
            raise ValueError(f"Cannot copy {consumer_op.name}: its input {t.name} is "
                             "computed after it")
        return self.transform_external_hidden_input_handler(info, t)


def copy_with_input_replacements(sgv, replacement_ts, dst_graph=None, dst_scope="",
                                 src_scope="", reuse_dst_scope=False):
    """Copies the view's ops (into ``dst_graph``, default their own graph, under
    ``dst_scope``), with the inputs in ``replacement_ts`` ({original tensor: new tensor})
    replaced; other inputs are kept (placeholders in another graph). Returns ``(view of the
    copy, TransformerInfo)``."""
    sgv = make_view(sgv)
    dst_graph = sgv.graph if dst_graph is None else dst_graph
    if not isinstance(dst_graph, ops.Graph):
        raise TypeError(f"Expected a tf.Graph, got: {type(dst_graph)}")
    copier = Transformer()

    def replace_t_with_replacement_handler(info, t):
        if t in replacement_ts:
            return replacement_ts[t]
        return keep_t_if_possible_handler(info, t)

    copier.transform_external_input_handler = replace_t_with_replacement_handler
    return copier(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope=reuse_dst_scope)


def copy(sgv, dst_graph=None, dst_scope="", src_scope="", reuse_dst_scope=False):
    """Copies the view's ops (see :func:`copy_with_input_replacements`); as TF 1.15, each
    read of an input of the view becomes a new placeholder (``geph__<op>_<index>``), in the
    view's own graph too."""
    sgv = make_view(sgv)
    dst_graph = sgv.graph if dst_graph is None else dst_graph
    if not isinstance(dst_graph, ops.Graph):
        raise TypeError(f"Expected a tf.Graph, got: {type(dst_graph)}")
    return Transformer()(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope=reuse_dst_scope)


def graph_replace(target_ts, replacement_ts, dst_scope="", src_scope="",
                  reuse_dst_scope=False):
    """``target_ts`` (a tensor or a structure of them) recomputed with the tensors in
    ``replacement_ts`` ({original: replacement}) replaced: the ops between the two (through
    control edges too) are copied; targets that do not depend on the replaced tensors come
    back unchanged."""
    flat_targets = flatten_tree(target_ts)
    graph = get_unique_graph(flat_targets, check_types=(ops.Tensor,))
    between = get_walks_intersection_ops(list(replacement_ts), flat_targets,
                                         control_ios=ControlOutputs(graph))
    if not between:
        raise ValueError("Targets and replacements are not connected!")
    _, info = copy_with_input_replacements(between, replacement_ts, None, dst_scope,
                                           src_scope, reuse_dst_scope)
    return info.transformed(target_ts, missing_fn=lambda t: t)


REROUTE_NAMES = ["add_control_inputs", "remove_control_inputs", "reroute_inputs", "reroute_ios",
                 "reroute_outputs", "reroute_ts", "swap_inputs", "swap_ios", "swap_outputs",
                 "swap_ts"]
EDIT_NAMES = ["detach_control_inputs", "detach_control_outputs", "detach_inputs",
              "detach_outputs", "detach", "connect", "bypass"]
TRANSFORM_NAMES = ["replace_t_with_placeholder_handler", "keep_t_if_possible_handler",
                   "assign_renamed_collections_handler", "transform_op_if_inside_handler",
                   "copy_op_handler", "Transformer", "TransformerInfo", "copy",
                   "copy_with_input_replacements", "graph_replace"]
__all__ = [
    "Transformer", "TransformerInfo", "add_control_inputs", "assign_renamed_collections_handler",
    "bypass", "connect", "copy", "copy_op_handler", "copy_with_input_replacements", "detach",
    "detach_control_inputs", "detach_control_outputs", "detach_inputs", "detach_outputs",
    "graph_replace", "keep_t_if_possible_handler", "remove_control_inputs",
    "replace_t_with_placeholder_handler", "reroute_inputs", "reroute_ios", "reroute_outputs",
    "reroute_ts", "swap_inputs", "swap_ios", "swap_outputs", "swap_ts",
    "transform_op_if_inside_handler",
]
