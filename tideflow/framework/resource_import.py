"""Imports TF's resource-variable ops as tideflow's ref variables.

tideflow's variables are TF 1.x ref variables (``VariableV2``), some marked as resource
variables (``mark_resource``: their reads are snapshots); a GraphDef TF wrote with
resource variables (``use_resource=True``, graph-mode Keras, TF 2.x's compat.v1 defaults in
places) holds ``VarHandleOp`` and the ops that take its handle. Before import each is rewritten
to the ref op of the same meaning, GraphDef to GraphDef: ``VarHandleOp`` -> ``VariableV2``,
``ReadVariableOp`` -> ``Identity`` (a snapshot), ``AssignVariableOp`` -> ``Assign`` (no shape
check, as TF's), ``AssignAdd/SubVariableOp`` -> ``AssignAdd/Sub``, ``VarIsInitializedOp`` ->
``IsVariableInitialized``, ``ResourceGather`` -> ``Gather``, ``ResourceScatter<Op>`` ->
``Scatter<Op>``, ``Resource[Sparse]Apply<Opt>`` -> ``[Sparse]Apply<Opt>`` (same inputs; the
resource form has no output, so nothing reads the ref form's). A MetaGraph's ``VariableDef``
with ``is_resource`` then names a ref variable, which Saver and the optimizers use as usual;
the importer marks each former ``VarHandleOp`` as a resource variable.
Handle-typed ops with no ref counterpart are left, and fail at import naming the op.
"""

from tideflow.framework import op_registry

_RESOURCE_OPS = frozenset({
    "VarHandleOp", "ReadVariableOp", "AssignVariableOp", "AssignAddVariableOp",
    "AssignSubVariableOp", "VarIsInitializedOp", "ResourceGather", "DestroyResourceOp"})


def mark_resource(var_op):
    """Gives the variable of ``var_op`` (a VariableV2) the reads of TF's resource variables:
    a read is a snapshot, which updates later in the step (or in later steps) do not change
    (the update copies the buffer first: ``ops/state_ops.copy_on_write``); a reference
    variable's read is its buffer, which they update in place (TF 1.x's race)."""
    g = var_op._graph
    names = g.__dict__.get("_resource_variables")
    if names is None:
        names = g._resource_variables = set()
    names.add(var_op._name)


def is_resource(var_op):
    if var_op._type == "VarHandleOp":
        return True
    names = var_op._graph.__dict__.get("_resource_variables")
    return names is not None and var_op._name in names


def _needs_rewrite(nd):
    return nd.op in _RESOURCE_OPS or nd.op.startswith(("ResourceApply", "ResourceSparseApply",
                                                       "ResourceScatter"))


def has_resource_variables(graph_def):
    """Whether ``graph_def`` holds resource-variable ops tideflow does not declare."""
    return (op_registry.lookup_or_load("VarHandleOp") is None
            and any(_needs_rewrite(nd) for nd in graph_def.node))


def _set_type(nd, name, dtype_enum):
    nd.attr[name].type = dtype_enum


def _keep(nd, names):
    for key in list(nd.attr):
        if key not in names and not key.startswith("_"):
            del nd.attr[key]


def _rewrite(nd, handle_types):
    op = nd.op
    dtype = nd.attr["dtype"].type if "dtype" in nd.attr else None
    if dtype is None and nd.input:  # VarIsInitializedOp: the handle's variable's dtype
        dtype = handle_types.get(nd.input[0].split(":")[0])
        if dtype is None:
            return False
    if op == "VarHandleOp":
        nd.op = "VariableV2"
        _keep(nd, {"dtype", "shape", "container"})
        nd.attr.pop("_output_shapes", None)  # the handle's: a scalar
        nd.attr["shared_name"].s = b""  # a handle's shared_name is the variable's own name
    elif op == "ReadVariableOp":
        nd.op = "Identity"
        _keep(nd, set())
        _set_type(nd, "T", dtype)
    elif op in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
        nd.op = {"AssignVariableOp": "Assign", "AssignAddVariableOp": "AssignAdd",
                 "AssignSubVariableOp": "AssignSub"}[op]
        _keep(nd, set())
        _set_type(nd, "T", dtype)
        nd.attr["use_locking"].b = True
        if nd.op == "Assign":
            nd.attr["validate_shape"].b = False  # AssignVariableOp only checks the dtype
    elif op == "VarIsInitializedOp":
        nd.op = "IsVariableInitialized"
        _keep(nd, set())
        _set_type(nd, "dtype", dtype)
    elif op == "ResourceGather":
        nd.op = "Gather"
        _keep(nd, {"Tindices", "validate_indices"})
        _set_type(nd, "Tparams", dtype)
    elif op.startswith("ResourceScatter"):
        nd.op = op[len("Resource"):]
        _keep(nd, {"Tindices", "use_locking"})
        _set_type(nd, "T", dtype)
    elif op.startswith(("ResourceApply", "ResourceSparseApply")):
        nd.op = op[len("Resource"):]
    else:
        return False
    return op_registry.lookup_or_load(nd.op) is not None


def rewrite_resource_variables(graph_def, handles=None):
    """A copy of ``graph_def`` with its resource-variable ops as ref-variable ops; the names
    of the former ``VarHandleOp`` nodes are added to the set ``handles`` when given."""
    from tideflow.protos import graph_pb2  # (protos load on first use)

    gd = graph_pb2.GraphDef()
    gd.CopyFrom(graph_def)
    dropped = set()
    nodes = {nd.name: nd for nd in gd.node}
    handle_types = {}
    for nd in gd.node:
        if nd.op == "VarHandleOp":
            handle_types[nd.name] = nd.attr["dtype"].type
    for nd in gd.node:  # handles passed through Identity ops
        src = nd
        while src.op == "Identity" and src.input and src.input[0].split(":")[0] in nodes:
            src = nodes[src.input[0].split(":")[0]]
        if src.op == "VarHandleOp":
            handle_types[nd.name] = src.attr["dtype"].type
    for nd in gd.node:
        if nd.op == "DestroyResourceOp":
            dropped.add(nd.name)
            continue
        if _needs_rewrite(nd):
            backup = type(nd)()
            backup.CopyFrom(nd)
            if not _rewrite(nd, handle_types):
                nd.CopyFrom(backup)  # no ref counterpart: left to fail naming the op
            elif backup.op == "VarHandleOp" and handles is not None:
                handles.add(nd.name)
    if dropped:
        keep = [nd for nd in gd.node if nd.name not in dropped]
        for nd in keep:
            inputs = [i for i in nd.input if i.lstrip("^").split(":")[0] not in dropped]
            del nd.input[:]
            nd.input.extend(inputs)
        del gd.node[:]
        gd.node.extend(keep)
    return gd


__all__ = ["has_resource_variables", "is_resource", "mark_resource",
           "rewrite_resource_variables"]
