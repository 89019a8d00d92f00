"""TF 1.15 grappler's dependency optimizer, where it changes what a step does: an op free of
side effects whose values no op of the step reads (only control edges wait for it: an op in
``tf.group`` or ``tf.control_dependencies``, not fetched) becomes a NoOp, its data inputs
control inputs, and so on up while that leaves another such op unread. Such an op never runs,
so its errors never happen: ``tf.group(train, tf.gather(x, i))`` with ``i`` out of range
trains, and ``tf.control_dependencies([tf.reshape(p, [3])])`` checks nothing. Placeholders,
Assert, CheckNumerics, stateful and random ops, ops updating a ref or reading a resource,
queue, control-flow and function ops, and the Identity of a variable always run, as in TF
(its SafeToConvertToNoOp). As TF, only when grappler runs with dependency_optimization on
(``OptimizerOptions.opt_level`` does not matter: it is not a grappler setting)."""

from tideflow.framework import dtypes
from tideflow.runtime import grappler

_OFF = 2  # RewriterConfig.Toggle OFF

# ops TF's SafeToConvertToNoOp keeps (besides stateful ones and placeholders): its
# do_not_rewrite_ops, control-flow frames (Merge, Switch, ModifiesFrameInfo), sends and
# receives, and the functional ops (their bodies may do anything)
_KEEP = frozenset({
    "Assert", "CheckNumerics", "ControlTrigger", "_Retval", "_Arg", "_ParallelConcatUpdate",
    "Placeholder", "PlaceholderV2", "PlaceholderWithDefault",
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
    "NextIteration", "RefNextIteration", "LoopCond",
    "_Send", "_Recv", "_HostSend", "_HostRecv", "Send", "Recv",
    "While", "StatelessWhile", "If", "StatelessIf", "PartitionedCall",
    "StatefulPartitionedCall", "SymbolicGradient",
})
# the inputs whose Identity TF keeps (SafeToRemoveIdentity: variable reads, receives)
_VARIABLE_READS = frozenset({"Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp",
                             "ReadVariableOp", "_Recv", "Recv"})
_HANDLES = frozenset({dtypes.resource, dtypes.variant})


def on(session, order):
    """Whether TF's dependency optimizer rewrites the steps ``session`` runs ``order`` in."""
    runs = grappler.optimizers_on(session)[0] and grappler.runs(order)
    if not runs:
        return False
    ro = getattr(getattr(getattr(session, "_config", None), "graph_options", None),
                 "rewrite_options", None)
    return getattr(ro, "dependency_optimization", 0) != _OFF


def _convertible(op):
    od = op._op_def
    t = op._type
    if od.is_stateful or od.is_random or not op._outputs or t in _KEEP or "Queue" in t or (
            t.startswith("Inplace")):
        return False
    for arg in od.inputs:
        if arg.is_ref:
            return False
    for x in op._inputs:
        if x._dtype in _HANDLES or x._dtype._is_ref_dtype:
            return False
    # (an Identity of a variable or a receive stays, as TF's SafeToRemoveIdentity)
    return not (t in ("Identity", "IdentityN") and op._inputs
                and op._inputs[0]._op._type in _VARIABLE_READS)


def noops(order, fetches, targets, fed):
    """The ops of ``order`` TF's dependency optimizer makes NoOps for a step fetching
    ``fetches`` and running ``targets`` (``fed``: the fed tensors)."""
    in_step = set(order)
    reads = {}  # op -> data edges from ops of the step to its outputs
    for op in order:
        for t in op._inputs:
            if t not in fed and t._op in in_step:
                reads[t._op] = reads.get(t._op, 0) + 1
    keep = {t._op for t in fetches} | set(targets)
    # (an op of the step nothing reads and not fetched is there for a control edge)
    todo = [op for op in order if not reads.get(op) and op not in keep and _convertible(op)
            ] if any(op._control_inputs for op in order) else []
    out = set()
    while todo:
        op = todo.pop()
        if op in out:
            continue
        out.add(op)
        for t in op._inputs:
            p = t._op
            if t in fed or p not in in_step:
                continue
            reads[p] -= 1
            if not reads[p] and p not in keep and p not in out and _convertible(p):
                todo.append(p)
    return frozenset(out)
