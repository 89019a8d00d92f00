"""Shape arithmetic computed once per set of shapes: the Shape/Size/Rank ops of a plan and the
small integer ops fed only by them (BroadcastGradientArgs, ConcatOffset, a Mean gradient's
Prod/FloorDiv/Cast, ...) run as one call per group, which looks their values up by the shapes
of the tensors they read and computes them, with their own kernels, only for new shapes.

A gradient graph holds a few such ops for every broadcasting op and concatenation (an LSTM's
training step: ~320 of its ~1,400 kernel calls), each a kernel call per step whose result
changes only when a shape does (a fed batch of another size). TF's grappler folds those whose
shapes are static; this does it for every shape a step meets. Values are the same arrays each
step, read-only (consumers never write into them), so nothing but the number of calls
changes. Plans for one host device only, without a trace (a traced step lists every op) and
without TF 1.x's Switch/Merge control flow (whose dead tensors have no shape)."""

import numpy as np

from tideflow.framework import dtypes, errors

# ops whose values depend only on their inputs' shapes (and their attrs)
_SHAPE_READERS = frozenset({"Shape", "ShapeN", "Size", "Rank"})
# pure, deterministic ops that are cheap on the small integer vectors shapes are
_SHAPE_ARITH = frozenset({
    "BroadcastGradientArgs", "BroadcastArgs", "ConcatOffset", "Prod", "Sum", "Max", "Min",
    "Maximum", "Minimum", "FloorDiv", "FloorMod", "TruncateDiv", "Div", "RealDiv", "Cast",
    "Pack", "Unpack", "StridedSlice", "Slice", "GatherV2", "Gather", "ConcatV2", "Concat",
    "Add", "AddV2", "Sub", "Mul", "Neg", "Reshape", "DynamicStitch", "Identity", "Range",
    "Squeeze", "ExpandDims", "Equal", "NotEqual", "Less", "LessEqual", "Greater",
    "GreaterEqual", "InvertPermutation", "Transpose",
})
_CONTROL_FLOW = frozenset({
    "Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
    "NextIteration", "RefNextIteration", "LoopCond"})
_SHAPELESS = (dtypes.resource, dtypes.variant)
# off only to compare plans with and without it
ENABLED = True
# shape sets remembered per group (a new one beyond this forgets the others), and the largest
# values kept (a Range over a tensor's size can be big: computed each step instead)
MAX_SHAPE_SETS = 8
MAX_KEPT_BYTES = 1 << 16


def memoize_shapes(order, fed, fetches, replace, consts, device, session_state, session):
    """Groups the plan's shape arithmetic by the tensors whose shapes it reads; each group
    becomes one op of the plan (in ``replace.order``) whose outputs replace the values the
    rest of the plan reads from it."""
    if not ENABLED or device is not None and not getattr(device, "is_host", True):
        return
    order = replace.order or order
    if not order or order[0]._graph.__dict__.get("_dead_sources"):
        return
    if any(op._type in _CONTROL_FLOW for op in order):
        return
    roots_of, leaves = _members(order, fed, fetches, replace, consts)
    groups = {}
    for op, roots in roots_of.items():
        if op not in leaves:
            groups.setdefault(frozenset(map(id, roots)), []).append(op)
    if not groups:
        return
    from tideflow.runtime.executor import bind_kernel

    try:
        kernels = {op: bind_kernel(op, device, session_state, session) for op in roots_of}
    except Exception:  # noqa: BLE001 - the plan binds (and reports) them as usual
        return
    position = {op: i for i, op in enumerate(order)}
    readers = {}  # a member's output -> the positions of the other ops reading it
    for op in order:
        if op in roots_of:
            continue
        for t in op._inputs:
            r = replace.get(t, t)
            if r._op in roots_of:
                readers.setdefault(r, []).append(position[op])
    # each group runs right after the last of its roots is computed (holding no value longer
    # than the plan did): its arithmetic there, a shape reader too where nothing else reads
    # the reader's value before
    at = {}
    for key, ops in groups.items():
        made = [position[r._op] for r in roots_of[ops[0]] if r not in fed and r._op in position]
        at[key] = max(made) + 1 if made else 0
    owner = {op: key for key, ops in groups.items() for op in ops}
    for key in sorted(groups, key=at.__getitem__):
        for op in _ancestors(groups[key], roots_of, replace, position):
            if op not in owner and all(p >= at[key] for t in op._outputs
                                       for p in readers.get(t, ())):
                owner[op] = key
    before = {}
    moved = {}
    for key, ops in groups.items():
        inner = _ancestors(ops, roots_of, replace, position)
        exports = [t for op in inner if owner.get(op) == key for t in op._outputs
                   if t in readers]
        if not exports:
            continue
        roots = roots_of[ops[0]]
        kernel = _group_kernel(inner, roots, exports, kernels, replace, consts)
        host = _host_op(ops[0], roots, exports, kernel, replace)
        moved.update(zip(exports, host._outputs))
        before[host] = order[at[key]]
    if before:
        from tideflow.runtime.grappler_arith import _insert_ops

        for k, v in replace.items():  # (a value merged into an export: read from the group)
            if v in moved:
                replace[k] = moved[v]
        replace.update(moved)
        _insert_ops(replace, order, before)


def _members(order, fed, fetches, replace, consts):
    """({op: the tensors whose shapes its values derive from}, the shape readers of tensors
    computed otherwise) for the plan's shape readers and the shape arithmetic reading only
    them and constants."""
    fetched = {replace.get(t, t) for t in fetches}
    controlling = {c for op in order for c in op._control_inputs}
    rewritten = replace.kernels
    roots_of = {}
    readers = set()
    for op in order:
        typ = op._type
        if typ not in _SHAPE_READERS and typ not in _SHAPE_ARITH:
            continue
        od = op._op_def
        if (op in rewritten or op._control_inputs or op in controlling or od.is_stateful
                or od.kernel_wants_step or od.kernel_wants_ctx or not op._outputs):
            continue
        if any(replace.get(t, t) is not t or t in consts or t in fed or t in fetched
               for t in op._outputs):
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        roots = []
        for t in ins:
            if t in consts:
                continue
            if t not in fed and t._op in roots_of:
                roots.extend(roots_of[t._op])  # (a shape of shape arithmetic's value too)
            elif typ in _SHAPE_READERS and t._dtype.base_dtype not in _SHAPELESS:
                roots.append(t)
                readers.add(op)
            else:
                break
        else:
            if roots:
                roots_of[op] = _unique(roots)
    return roots_of, {op for op in readers if op in roots_of and all(
        replace.get(t, t)._op not in roots_of for t in op._inputs)}


def _unique(tensors):
    seen = set()
    return [t for t in tensors if not (t in seen or seen.add(t))]


def _ancestors(ops, roots_of, replace, position):
    """``ops`` and the members they read, in the plan's order."""
    found = set()
    stack = list(ops)
    while stack:
        op = stack.pop()
        if op in found:
            continue
        found.add(op)
        for t in op._inputs:
            r = replace.get(t, t)
            if r._op in roots_of:
                stack.append(r._op)
    return sorted(found, key=position.__getitem__)


def _group_kernel(inner, roots, exports, kernels, replace, consts):
    """The group's kernel: its exports for the roots' shapes, looked up or computed."""
    from tideflow.runtime.executor import _list_len, op_error_for

    steps = []
    for op in inner:
        args = []
        pos = 0
        ins = [replace.get(t, t) for t in op._inputs]
        for arg in op._op_def.inputs:
            n = _list_len(op, arg) if arg.is_list else 1
            refs = [("c", consts[t]) if t in consts else ("v", t) for t in ins[pos:pos + n]]
            args.append((arg.is_list, refs))
            pos += n
        single = len(op._op_def.outputs) == 1 and not op._op_def.outputs[0].is_list
        steps.append((op, kernels[op], args, single))

    def compute(values):
        values = dict(zip(roots, values))
        for op, kernel, args, single in steps:
            call = []
            for is_list, refs in args:
                got = [v if kind == "c" else values[v] for kind, v in refs]
                call.append(got if is_list else got[0])
            try:
                out = kernel(*call)
            except Exception as e:  # noqa: BLE001 - the op's own error, as when it runs alone
                raise op_error_for(e, op) from (None if isinstance(e, errors.OpError) else e)
            for t, v in zip(op._outputs, [out] if single else out):
                values[t] = v
        return [values[t] for t in exports]

    memo = {}

    def kernel(values):
        try:
            key = tuple([v.shape for v in values])
        except AttributeError:  # (not arrays: computed as they are)
            return compute(values)
        hit = memo.get(key)
        if hit is None:
            hit = compute(values)
            if sum(getattr(v, "nbytes", 0) for v in hit) <= MAX_KEPT_BYTES:
                for v in hit:
                    if type(v) is np.ndarray:
                        v.flags.writeable = False
                if len(memo) >= MAX_SHAPE_SETS:
                    memo.clear()
                memo[key] = hit
        return hit

    return kernel


def _host_op(like, roots, exports, kernel, replace):
    """The group as a new op of the plan (not of the graph): the roots in, the exports out
    (ShapeN's declaration: one list of inputs, a list of outputs)."""
    from tideflow.runtime.grappler_arith import _new_op

    op = _new_op(like, like._name, roots, kernel, replace, outs=exports, op_type="ShapeN",
                 t=roots[0].dtype.base_dtype)
    op._attrs["out_type"] = dtypes.int32
    return op
