"""``tf.contrib.graph_editor``'s edits: rerouting and swapping tensors between consumers,
control inputs, detaching and connecting subgraph views, and copying subgraphs with replaced
inputs (``graph_replace``).

Edits rewire existing ops in place (``Operation._update_input``), which moves the graph's
structure version on, so sessions re-plan. Copies import one NodeDef at a time, in the order
the ops were made (TF's Transformer): the copied ops keep their types and attrs; names are
made unique in the destination graph as TF's are."""

import collections.abc

from tideflow.contrib_graph_editor import (
    ControlOutputs,
    SubGraphView,
    get_consuming_ops,
    get_unique_graph,
    get_walks_intersection_ops,
    make_list_of_op,
    make_list_of_t,
    make_placeholder_from_tensor,
    make_view,
    placeholder_name,
    scope_finalize,
)
from tideflow.framework import nest, ops

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

    def __init__(self, graph, graph_, scope, scope_):
        self.graph, self.graph_ = graph, graph_
        self.scope, self.scope_ = scope, scope_
        # TF's tables, which programs such as gradient checkpointing read directly
        self._transformed_ops, self._transformed_ts = {}, {}
        self._original_ops, self._original_ts = {}, {}

    def _add(self, original, copied):
        if isinstance(original, ops.Operation):
            self._transformed_ops[original] = copied
            self._original_ops[copied] = original
        else:
            self._transformed_ts[original] = copied
            self._original_ts[copied] = original

    def _map(self, tables, top, missing_fn):
        def one(x):
            table = tables[0] if isinstance(x, ops.Operation) else tables[1]
            if x in table:
                return table[x]
            return missing_fn(x) if missing_fn is not None else None

        if isinstance(top, (ops.Operation, ops.Tensor)):
            return one(top)
        return nest.map_structure(one, top)

    def transformed(self, original, missing_fn=None):
        return self._map((self._transformed_ops, self._transformed_ts), original, missing_fn)

    def original(self, transformed, missing_fn=None):
        return self._map((self._original_ops, self._original_ts), transformed, missing_fn)


def _predefined_collection_names():
    return {getattr(ops.GraphKeys, k) for k in dir(ops.GraphKeys)
            if not k.startswith("_") and isinstance(getattr(ops.GraphKeys, k), str)}


def _transform(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope, external_input):
    """TF 1.15's Transformer: copies the view's ops one at a time (in creation order) into
    ``dst_graph``, each under a unique name; ``external_input(t, placeholder, keep)`` gives
    what a copy reads for an input ``t`` of the view, each time it is read (``placeholder(t)``
    a new one in the destination scope, ``keep(t)`` the tensor itself where it can be, else
    a placeholder). Returns ``(view of the copy, info)``."""
    from tideflow.framework import importer
    from tideflow.protos import graph_pb2

    sgv = make_view(sgv)
    dst_graph = sgv.graph if dst_graph is None else dst_graph
    if not isinstance(dst_graph, ops.Graph):
        raise TypeError(f"Expected a tf.Graph, got: {type(dst_graph)}")
    src_scope = scope_finalize(src_scope)
    dst_scope = scope_finalize(dst_scope)
    if dst_scope and not reuse_dst_scope:
        dst_scope = scope_finalize(dst_graph.unique_name(dst_scope[:-1]))
    src_graph = sgv.graph
    info = TransformerInfo(src_graph, dst_graph, src_scope, dst_scope)
    inside, sgv_inputs = set(sgv.ops), frozenset(sgv.inputs)
    collections = {} if src_graph is None else {
        k: src_graph.get_collection(k) for k in src_graph.get_all_collection_keys()}
    known = _predefined_collection_names()

    def new_name(name):
        if not name.startswith(src_scope):
            raise ValueError(f"{name} does not belong to source scope: {src_scope}.")
        return dst_scope + name[len(src_scope):]

    def placeholder(t):
        with dst_graph.as_default():
            return make_placeholder_from_tensor(t, scope=dst_scope)

    def keep_if_possible(t):
        return t if src_graph is dst_graph else placeholder(t)

    def transformed_t(t):
        if t in info._transformed_ts:
            return info._transformed_ts[t]
        if t in sgv_inputs:
            return external_input(t, placeholder, keep_if_possible)
        if t.op in inside:  # (a v1 loop's back edge: tideflow's loops are While ops)
            raise ValueError(f"Cannot copy {t.name}: it is computed after its consumer")
        return keep_if_possible(t)

    def assign_collections(elem, elem_):
        for key, members in collections.items():
            if any(m is elem for m in members):
                dst_graph.add_to_collection(key if key in known else new_name(key), elem_)

    for op in sorted(sgv.ops, key=lambda o: o._id):
        inputs_ = [transformed_t(t) for t in op.inputs]
        graph_def = graph_pb2.GraphDef()
        nd = graph_def.node.add()
        nd.CopyFrom(op.node_def)
        nd.name = dst_graph.unique_name(new_name(op.name), mark_as_used=False)
        if "_class" in nd.attr:  # colocation with ops left behind does not travel
            del nd.attr["_class"]
        del nd.input[:]
        input_map = {}
        for i, t_ in enumerate(inputs_):
            input_map[f"_ge_input_{i}:0"] = t_
            nd.input.append(f"_ge_input_{i}:0")
        with dst_graph.as_default():
            op_, = importer.import_graph_def(graph_def, input_map=input_map,
                                             return_elements=[nd.name], name="")
        info._add(op, op_)
        assign_collections(op, op_)
        for t, t_ in zip(op.outputs, op_.outputs):
            info._add(t, t_)
            assign_collections(t, t_)
    for op in sgv.ops:
        for c in op.control_inputs:
            if c in info._transformed_ops:
                info._transformed_ops[op]._add_control_input(info._transformed_ops[c])
            elif src_graph is dst_graph:
                info._transformed_ops[op]._add_control_input(c)
    copied = list(info._transformed_ops.values())
    view = SubGraphView(copied) if copied else SubGraphView()
    # as TF: the copy's view keeps the inputs and outputs that map to the original's
    input_map_ = [view.input_index(info._transformed_ts[t]) for t in sgv.inputs
                  if t in info._transformed_ts and info._transformed_ts[t] in view.inputs]
    output_map_ = [view.output_index(info._transformed_ts[t]) for t in sgv.outputs
                   if t in info._transformed_ts and info._transformed_ts[t] in view.outputs]
    return view.remap(input_map_, output_map_), info


def copy_with_input_replacements(sgv, replacement_ts, dst_graph=None, dst_scope="",
                                 src_scope="", reuse_dst_scope=False):
    """Copies the view's ops (into ``dst_graph``, default their own graph, under
    ``dst_scope``), with the inputs in ``replacement_ts`` ({original tensor: new tensor})
    replaced; other inputs are kept (placeholders in another graph). Returns ``(view of the
    copy, TransformerInfo)``."""
    if not isinstance(replacement_ts, collections.abc.Mapping):
        raise TypeError("Expected a dict for replacement_ts, got: "
                        f"{type(replacement_ts).__name__}")

    def external_input(t, _, keep_if_possible):
        return replacement_ts[t] if t in replacement_ts else keep_if_possible(t)

    return _transform(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope, external_input)


def copy(sgv, dst_graph=None, dst_scope="", src_scope="", reuse_dst_scope=False):
    """Copies the view's ops (see :func:`copy_with_input_replacements`); as TF 1.15, each
    read of an input of the view becomes a new placeholder (``geph__<op>_<index>``), in the
    view's own graph too."""
    return _transform(sgv, dst_graph, dst_scope, src_scope, reuse_dst_scope,
                      lambda t, placeholder, _: placeholder(t))


def graph_replace(target_ts, replacement_ts, dst_scope="", src_scope="",
                  reuse_dst_scope=False):
    """``target_ts`` (a tensor or a structure of them) recomputed with the tensors in
    ``replacement_ts`` ({original: replacement}) replaced: the ops between the two are copied;
    targets that do not depend on the replaced tensors come back unchanged."""
    flat_targets = nest.flatten(target_ts)
    get_unique_graph(flat_targets, check_types=(ops.Tensor,))
    between = get_walks_intersection_ops(list(replacement_ts), flat_targets)
    if not between:
        raise ValueError("Targets and replacements are not connected!")
    _, info = copy_with_input_replacements(between, replacement_ts, None, dst_scope,
                                           src_scope, reuse_dst_scope)
    return info.transformed(target_ts, missing_fn=lambda t: t)


__all__ = [
    "TransformerInfo", "add_control_inputs", "bypass", "connect", "copy",
    "copy_with_input_replacements", "detach", "detach_control_inputs", "detach_control_outputs",
    "detach_inputs", "detach_outputs", "graph_replace", "remove_control_inputs",
    "reroute_inputs", "reroute_outputs", "reroute_ts", "swap_inputs", "swap_outputs", "swap_ts",
]
