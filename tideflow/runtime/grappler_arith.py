"""TF 1.15's arithmetic optimizer stages that rebuild trees of additions and products in the
plan: AddOpsRewrite, HoistCommonFactorOutOfAggregation and MinimizeBroadcasts, on the node
model of ``grappler``, with the plan-only ops (TF's node names) that compute what they rewrite."""

import itertools

import numpy as np

from tideflow.framework import dtypes
from tideflow.runtime.graph_passes import _read_from
from tideflow.runtime.grappler import (
    _ARITH,
    _Const,
    _Forwards,
    _Node,
    _pd_differs,
    input_name,
    kernel_decl,
)

# ---- the arithmetic optimizer's AddOpsRewrite, HoistCommonFactorOutOfAggregation and
# MinimizeBroadcasts stages ---------------------------------------------------------------
#
# TF 1.15 rewrites trees of additions and products whose shapes it knows (shape inference
# from constants and variables; a fed tensor's shape is unknown to it, and so is what is
# computed from one):
# - AddOpsRewrite: a tree of Add/AddV2/AddN (each inner node read by its parent alone, none
#   fetched) becomes one AddN of its leaves, sorted by name (AddN's kernel sums in that
#   order); leaves of different shapes are summed per shape, the smallest first, then added
#   up from the smallest to the largest.
# - HoistCommonFactorOutOfAggregation: ``a*b + a*c`` becomes ``a * (b + c)`` and
#   ``b/a + c/a`` ``(b + c) / a`` (also for AddN; there only where the other factors' shapes
#   are known and equal); not for a fetched sum.
# - MinimizeBroadcasts: a tree of one binary Add/AddV2/Mul with leaves of different shapes is
#   rebuilt pairing the smallest first (``s1 * (M * s2)`` as ``(s1 * s2) * M``), in place.
# The optimizer visits the ops from the last one back, each through the stages in that order
# (the first that rewrites it wins), after sorting the inputs of each commutative op by name.
# Each value that changed and is read outside the rewritten tree is computed by a new op of
# the plan (with the name TF's node has) from the tree's leaves; the user's graph is not
# touched.

_MODEL_KINDS = {"Add": "add", "AddV2": "add", "AddN": "addn", "Mul": "mul", "Div": "div",
                "RealDiv": "div", "Sub": "sub"}
_MODEL_DTYPES = (dtypes.float32, dtypes.float64)


class _Lit:
    """A constant operand, with its node name."""

    __slots__ = ("name", "value")

    def __init__(self, value, name):
        self.value, self.name = value, name


class _ANode:
    __slots__ = ("alive", "changed", "device", "done", "hoisted", "ins", "keep", "kind", "name",
                 "op", "shape", "type", "uses")

    def __init__(self, op, type_, ins, name, shape, device):
        self.op, self.type, self.ins, self.name = op, type_, ins, name
        self.kind = _MODEL_KINDS[type_]
        self.shape, self.device = shape, device
        self.uses, self.keep = 0, False
        self.done = self.hoisted = self.changed = False
        self.alive = True


def _ref_name(r, names):
    if isinstance(r, (_ANode, _Lit)):
        return r.name
    return input_name(r, names)


def _by_name(ins, names):
    """Sorts a commutative op's operands by name, in place, as TF canonicalizes them."""
    if len(ins) == 2:
        a, b = ins
        if _ref_name(b, names) < _ref_name(a, names):
            ins[0], ins[1] = b, a
    else:
        ins.sort(key=lambda r: _ref_name(r, names))


def _scoped(name, stage):
    scope, _, base = name.rpartition("/")
    return f"{scope}/ArithmeticOptimizer/{stage}_{base}" if scope else \
        f"ArithmeticOptimizer/{stage}_{base}"


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _broadcastable(shape, to):
    """Whether a value of ``shape`` broadcasts to ``to`` (both known)."""
    if shape is None or to is None or len(shape) > len(to):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(shape), reversed(to)))


def _broadcast(a, b):
    if a is None or b is None:
        return None
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


class _Ids:
    """The step's replacements, constants and feeds keyed by ``id`` (a tensor's own hash is
    a Python method: these lookups are the arithmetic stages' main cost)."""

    def __init__(self, replace, consts, fed):
        self.rep = {id(k): v for k, v in replace.items()}
        self.consts = set(map(id, consts))
        self.fed = set(map(id, fed))

    def get(self, t):
        return self.rep.get(id(t), t)


# updates of a variable whose output is the variable (its shape function merges the
# variable's shape with the value's: the variable's shape stands, the value's unknown or not)
_VARIABLE_SHAPED = frozenset({
    "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd", "ScatterSub", "ScatterMul",
    "ScatterDiv", "ScatterMin", "ScatterMax", "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdSub"})


def _variable_shaped(op):
    if op._type == "Assign":
        return bool(op._attrs.get("validate_shape", True))
    return op._type in _VARIABLE_SHAPED or op._op_def.ref_outputs_alias == (0,)


class _Shapes:
    """The shapes grappler's shape inference knows: none for a fed tensor or anything computed
    from one (an AddN takes the shape of any input whose shape is known; an update of a
    variable, the variable's)."""

    def __init__(self, order, ids, consts):
        self.ids, self.consts = ids, consts
        unknown = set(ids.fed)
        if unknown:
            rep = ids.rep
            for op in order:
                ins = op._inputs
                if not ins:
                    continue
                if op._type == "AddN":
                    if all(id(rep.get(id(t), t)) in unknown for t in ins):
                        unknown.update(map(id, op._outputs))
                    continue
                if _variable_shaped(op):
                    if id(rep.get(id(ins[0]), ins[0])) in unknown:
                        unknown.update(map(id, op._outputs))
                    continue
                for t in ins:
                    if id(rep.get(id(t), t)) in unknown:
                        unknown.update(map(id, op._outputs))
                        break
        self.unknown = unknown

    def of(self, t):
        t = self.ids.get(t)
        i = id(t)
        if i in self.unknown:
            return None
        if i in self.ids.consts:
            return tuple(np.shape(self.consts[t]))
        return tuple(t._shape.as_list()) if t._shape.is_fully_defined() else None


class _NoShapes:
    def of(self, t):
        return None


def _shape_of(r, shapes):
    if isinstance(r, _ANode):
        return r.shape
    if isinstance(r, _Lit):
        return tuple(np.shape(r.value))
    return shapes.of(r)


def _shape_in(r, node, shapes):
    """The shape of operand ``r`` as ``node``'s input: an AddN merges its inputs' shapes,
    so each is known there when one is."""
    if node.kind == "addn" and node.shape is not None:
        return node.shape
    return _shape_of(r, shapes)


def _add_ops_rewrite(node, shapes, names, made):
    """AddOpsRewrite at ``node``; True when it rewrote the tree below it."""
    if (node.kind not in ("add", "addn") or node.keep or node.done or node.op is None
            or node.shape is None or not any(
                isinstance(r, _ANode) and r.kind in ("add", "addn") and r.uses == 1
                and r.shape is not None for r in node.ins)
            or not all(_broadcastable(_shape_in(r, node, shapes), node.shape) for r in node.ins)):
        return False
    leaves, absorbed = [], []

    def absorb(r, parent):
        if (isinstance(r, _ANode) and r.kind in ("add", "addn") and r.op is not None
                and not r.keep and not r.done and r.device == node.device and r.uses == 1
                and r.shape is not None
                and all(_broadcastable(_shape_in(x, r, shapes), r.shape) for x in r.ins)):
            absorbed.append(r)
            for x in r.ins:
                absorb(x, r)
        else:
            leaves.append((r, _shape_in(r, parent, shapes)))

    for r in node.ins:
        absorb(r, node)
    if not absorbed:
        return False
    groups = {}
    for r, shape in leaves:
        groups.setdefault(shape, []).append(r)
    leaves = [r for r, _ in leaves]

    def addn(name, ins, shape):
        if len(ins) == 1:
            return ins[0]
        n = _ANode(None, "AddN", sorted(ins, key=lambda r: _ref_name(r, names)), name, shape,
                   node.device)
        n.done = n.changed = True
        made.append(n)
        return n

    new_name = _scoped(node.name, "AddOpsRewrite")
    for a in absorbed:
        a.alive = False
        a.done = True
    if len(groups) == 1:
        ins = sorted(leaves, key=lambda r: _ref_name(r, names))
        node.type, node.kind, node.ins = "AddN", "addn", ins
    else:
        order = sorted(groups, key=_size)
        parts = [addn(_scoped(node.name, f"AddOpsRewrite_Leaf_{i}"), groups[s], s)
                 for i, s in enumerate(order)]
        internal = 0
        while len(parts) > 2:
            lhs, rhs = parts.pop(0), parts.pop(0)
            n = _ANode(None, "Add", [lhs, rhs], _scoped(node.name, f"AddOpsRewrite_Internal_"
                                                        f"{internal}"),
                       _broadcast(_shape_of(lhs, shapes), _shape_of(rhs, shapes)), node.device)
            internal += 1
            n.done = n.changed = True
            made.append(n)
            parts.insert(0, n)
        node.type, node.kind, node.ins = "Add", "add", parts
    node.name = new_name
    node.done = node.changed = True
    return True


def _hoist_common_factor(node, shapes, names, made, queue):
    """HoistCommonFactorOutOfAggregation at ``node``; True when it rewrote it."""
    if (node.kind not in ("add", "addn") or len(node.ins) < 2 or node.hoisted or node.keep
            or not all(isinstance(r, _ANode) for r in node.ins)):
        return False
    kinds = {r.kind for r in node.ins}
    if kinds not in ({"mul"}, {"div"}):
        return False
    div = kinds == {"div"}
    common = None
    for r in node.ins:
        factors = {_ref_name(r.ins[1], names): r.ins[1]}
        if not div:
            factors.setdefault(_ref_name(r.ins[0], names), r.ins[0])
        common = factors if common is None else {
            k: v for k, v in common.items() if k in factors}
        if not common:
            return False
    if len(common) != 1:
        return False
    (key, factor), = common.items()
    unique = []
    for r in node.ins:
        u = r.ins[0] if div or _ref_name(r.ins[0], names) != key else r.ins[1]
        unique.append(u)
    if node.kind == "addn":
        first = _shape_of(unique[0], shapes)
        if first is None or any(_shape_of(u, shapes) != first for u in unique[1:]):
            return False
    inner = _ANode(None, node.type, sorted(unique, key=lambda r: _ref_name(r, names)),
                   _scoped(node.name, "HoistCommonFactor_Add"), None, node.device)
    inner.changed = True
    sh = [_shape_of(u, shapes) for u in unique]
    inner.shape = sh[0] if node.kind == "addn" else (
        None if any(s is None for s in sh) else tuple(np.broadcast_shapes(*sh)))
    for r in node.ins:
        _release(r)
    for u in unique:
        if isinstance(u, _ANode):
            u.uses += 1
    if isinstance(factor, _ANode):
        factor.uses += 1
    made.append(inner)
    node.type = node.ins[0].type if div else "Mul"
    node.kind = "div" if div else "mul"
    node.ins = [inner, factor] if div else [factor, inner]
    node.name = _scoped(node.name, "HoistCommonFactor_Div" if div else "HoistCommonFactor_Mul")
    node.hoisted = node.changed = True
    queue.append(inner)
    return True


def _release(r):
    """One read of ``r`` less; a node read by nothing any more no longer runs."""
    if not isinstance(r, _ANode):
        return
    r.uses -= 1
    if r.uses <= 0 and not r.keep and r.alive:
        r.alive = False
        for x in r.ins:
            _release(x)


def _minimize_broadcasts(node, shapes, names):
    """MinimizeBroadcasts at ``node``; None when not applicable, else whether it reordered."""
    if (node.type not in ("Add", "AddV2", "Mul") or node.shape is None or len(node.ins) != 2
            or not any(isinstance(r, _ANode) and r.type == node.type and r.uses == 1
                       and r.shape is not None for r in node.ins)
            or not all(_broadcastable(_shape_in(r, node, shapes), node.shape) for r in node.ins)):
        return None
    leaves, absorbed = [], []

    def absorb(r):
        if (isinstance(r, _ANode) and r.type == node.type and r.op is not None and not r.keep
                and not r.done and r.device == node.device and r.uses == 1
                and r.shape is not None and len(r.ins) == 2
                and all(_broadcastable(_shape_of(x, shapes), r.shape) for x in r.ins)):
            absorbed.append(r)
            for x in r.ins:
                absorb(x)
        else:
            leaves.append(r)

    for r in node.ins:
        absorb(r)
    if not absorbed:
        return None
    if len({_shape_of(r, shapes) for r in leaves}) <= 1:
        return False
    ops = sorted(leaves, key=lambda r: _size(_shape_of(r, shapes)))
    leftover = ops.pop() if len(ops) % 2 else None
    free = list(absorbed)
    changed = False

    def size(r):  # (TF gives a node it rebuilt an empty shape here: one element)
        return 1 if r in rebuilt else _size(_shape_of(r, shapes))

    rebuilt = set()

    def update(a, b, n):
        nonlocal changed
        if n.ins[0] is not a or n.ins[1] is not b:
            n.ins = [a, b]
            n.changed = changed = True
        n.done = True
        return n

    while True:
        lhs, rhs = ops.pop(0), ops.pop(0)
        n = free.pop(0) if free else node
        up = update(lhs, rhs, n)
        rebuilt.add(up)
        if len(ops) >= 2 and size(ops[0]) < size(ops[1]):
            ops.insert(0, up)
        else:
            ops.append(up)
        if len(ops) == 1:
            break
    if leftover is not None:
        update(ops[0], leftover, node)
    return changed


def _partial_split(slots, keys, const_at, name, fold):
    if 1 < len(const_at) < len(slots):
        first = const_at[0]
        slots[first] = ("c", fold([slots[i][1] for i in const_at]))
        keys[first] = f"ConstantFolding/{name}_partial_split_{len(const_at)}"
        drop = set(const_at[1:])
        slots[:] = [s for i, s in enumerate(slots) if i not in drop]
        keys[:] = [k for i, k in enumerate(keys) if i not in drop]


def _model(order, ids, replace, consts, names):
    """The Add/AddN/Mul/Div ops of the step the arithmetic stages may rewrite, as nodes."""
    recips = replace.recips
    pushed = replace.push_down or {}
    nodes = {}
    drivers = None
    for op in order:
        pd = pushed.get(op)
        if pd is not None:
            if pd.value is None:
                nodes[op] = _from_push_down(pd, nodes, replace, names)
            continue
        type_ = op._type
        if type_ not in _MODEL_KINDS or len(op._outputs) != 1 or op._control_inputs:
            continue
        if op in replace.kernels and op not in recips:
            continue
        out = op._outputs[0]
        i = id(out)
        if (i in ids.consts or i in ids.fed or i in ids.rep
                or out.dtype.base_dtype not in _MODEL_DTYPES):
            continue
        if drivers is None:
            drivers = {c for o in order for c in o._control_inputs}
        if op in drivers:
            continue
        ins = []
        for t in op._inputs:
            t = ids.get(t)
            if id(t) in ids.consts and id(t) not in ids.fed:
                ins.append(_Lit(consts[t], input_name(t, names)))
            elif t._value_index == 0 and t._op in nodes:
                ins.append(nodes[t._op])
            else:
                ins.append(t)
        if op in recips:
            type_ = "Mul"
            ins = [ins[0], _Lit(recips[op], f"ConstantFolding/{op._name}_recip")]
        if type_ == "AddN":  # (constant folding's partial split, in the inputs' own order)
            const_at = [i for i, r in enumerate(ins) if isinstance(r, _Lit)]
            if 1 < len(const_at) < len(ins):
                from tideflow.ops.math_ops import _add_n

                with np.errstate(all="ignore"):
                    total = _add_n([ins[i].value for i in const_at])
                ins[const_at[0]] = _Lit(np.asarray(total), f"ConstantFolding/{op._name}"
                                                           f"_partial_split_{len(const_at)}")
                drop = set(const_at[1:])
                ins = [r for i, r in enumerate(ins) if i not in drop]
        if type_ in ("Add", "AddV2", "AddN", "Mul"):  # (commutative: sorted by name)
            _by_name(ins, names)
        nodes[op] = _ANode(op, type_, ins, names.get(out, op._name), None, op._device)
    return nodes


_AGGREGATES = frozenset({"Add", "AddV2", "AddN"})
_NO_AGGREGATE = frozenset({dtypes.string, dtypes.variant})  # (TF's IsAggregate leaves them)


def mul_square_names(order, fed, replace, consts):
    """TF's ReplaceMulWithSquare: ``x * x`` runs as ``Square(x)`` (the same value) under a new
    name, ``ArithmeticOptimizer/ReplaceMulWithSquare_<name>``, which is where it sorts among
    an AddN's inputs. So does SimplifyAggregation's ``x + x`` (or an AddN of x alone), as
    ``2 * x`` named ``ArithmeticOptimizer/SimplifyAggregation_Mul_<name>``, fetched or not
    (its readers read the new node): CSE's commutative twins, ``a * b + b * a``, make one."""
    names = replace.names
    for op in order:
        if op._type == "Mul":
            stage = "ReplaceMulWithSquare"
        elif op._type in _AGGREGATES and not op._control_inputs:
            stage = "SimplifyAggregation_Mul"
        else:
            continue
        if len(op._inputs) < 2 or (len(op._inputs) != 2 and op._type != "AddN"):
            continue
        a, *more = (replace.get(t, t) for t in op._inputs)
        out = op._outputs[0]
        if (all(b is a for b in more) and out not in consts and out not in fed
                and replace.get(out, out) is out and (stage[0] == "R" or (
                    a not in consts and out.dtype.base_dtype not in _NO_AGGREGATE))):
            names[out] = _scoped(op._name, stage)


_PD_TYPES = {"+": "Add", "-": "Sub", "*": "Mul", "/": "Div"}


def _from_push_down(pd, nodes, replace, names):
    """The model's node for a node of the constant push-down, as that left it."""
    op = pd.op
    type_ = op._type
    if pd.kind != pd.orig[0] or _ARITH.get(type_) != pd.kind:
        type_ = _PD_TYPES[pd.kind]  # (TF's op for a rotated node; a Div by a constant: Mul)
    ins = []
    for r in pd.ins:
        if isinstance(r, _Const):
            ins.append(_Lit(r.value, r.name))
        elif isinstance(r, _Node):
            if r.value is not None:
                ins.append(_Lit(r.value, r.op._name))
            else:
                ins.append(nodes[r.op])
        else:
            t = replace.get(r, r)
            ins.append(nodes[t._op] if t._value_index == 0 and t._op in nodes else t)
    if type_ in ("Add", "AddV2", "Mul"):
        _by_name(ins, names)
    n = _ANode(op, type_, ins, names.get(op._outputs[0], op._name), None, op._device)
    n.changed = _pd_differs(pd)
    return n


def arithmetic_stages(order, fed, fetches, replace, consts, device):
    """Runs TF's AddOpsRewrite, HoistCommonFactorOutOfAggregation and MinimizeBroadcasts
    (see above) on the step's arithmetic."""
    if device is not None and not getattr(device, "is_host", True):
        return
    names = replace.names
    ids = _Ids(replace, consts, fed)
    nodes = _model(order, ids, replace, consts, names)
    if not replace.push_down and not any(
            isinstance(r, _ANode) and (n.kind in ("add", "addn") or r.type == n.type)
            for n in nodes.values() for r in n.ins):
        return  # no tree: nothing to rewrite
    keep = {id(ids.get(t)) for t in fetches}
    in_step = set(order)
    also = {}  # tensor -> the ones merged into it (their readers read it)
    for t, r in replace.items():
        also.setdefault(id(r), []).append(t)
    gone = ids.consts | set(ids.rep)

    def runs(op):
        return op in in_step and not (op._outputs and all(
            id(t) in gone for t in op._outputs))

    for op, n in nodes.items():
        out = op._outputs[0]
        # (each input of an op that reads a tensor is one entry of its consumers)
        n.uses = sum(1 for t in [out, *also.get(id(out), ())] for c in t._consumers if runs(c))
        n.keep = id(out) in keep
    # (the shapes only where a stage that needs them has a tree to work on)
    shapes = _Shapes(order, ids, consts) if any(
        isinstance(r, _ANode) and r.op is not None and (
            r.uses == 1 and (n.kind in ("add", "addn") and r.kind in ("add", "addn")
                             or n.type in ("Add", "AddV2", "Mul") and r.type == n.type)
            or n.kind == "addn" and r.kind in ("mul", "div"))
        for n in nodes.values() for r in n.ins) else _NoShapes()
    for op, n in nodes.items():
        out = op._outputs[0]
        n.shape = shapes.of(out)
    made = []
    queue = list(nodes.values())
    while queue:
        n = queue.pop()
        if not n.alive:
            continue
        if _add_ops_rewrite(n, shapes, names, made):
            queue.extend(m for m in made if m.kind == "addn" and m not in queue)
            continue
        if _hoist_common_factor(n, shapes, names, made, queue):
            continue
        _minimize_broadcasts(n, shapes, names)
    if not any(n.changed for n in nodes.values()):
        return
    _realize_stages(nodes, order, fed, replace, consts, names, fetches)


def _realize_stages(nodes, order, fed, replace, consts, names, fetches=()):
    seq = list(nodes.values())
    dirty = {n for n in seq if n.changed and n.alive}
    grew = True
    while grew:
        grew = False
        for n in seq:
            if n.alive and n not in dirty and any(isinstance(r, _ANode) and r in dirty
                                                  for r in n.ins):
                dirty.add(n)
                grew = True
    if not dirty:
        return
    outside = set()  # nodes whose value an op outside the model reads
    for op in order:
        if op in nodes:
            continue
        if op._outputs and all(replace.get(t, t) is not t or t in consts for t in op._outputs):
            continue  # folded or merged away: not run
        for t in op._inputs:
            n = nodes.get(replace.get(t, t)._op)
            if n is not None:
                outside.add(n)
    roots = [n for n in seq if n in dirty and (n.keep or n in outside)]
    hosted = {}  # node -> the new op's output
    before = {}
    forwards = _Forwards(order, replace, consts, fed, fetches)
    for n in roots:
        leaves = []
        expr = _stage_expr(n, n, hosted, leaves, names, dirty,
                           lambda at, t: forwards(at, t, (t,)), n.op)
        host = _host_op(n, leaves, expr, replace)
        hosted[n] = host._outputs[0]
        names[host._outputs[0]] = n.name
        before[host] = n.op
    _insert_ops(replace, order, before)
    for n in roots:
        _read_from(replace, n.op._outputs[0], hosted[n])


def _stage_expr(r, root, hosted, leaves, names, dirty, fwd, at):
    """Node ``root``'s new expression: ("t", tensor, name, whether an AddN at op ``at`` could
    take its buffer), ("c", value, name) or (kind, name, [operands])."""
    if isinstance(r, _Lit):
        return ("c", r.value, r.name)
    if not isinstance(r, _ANode):
        leaves.append(r)
        return ("t", r, input_name(r, names), fwd(at, r))
    if r is not root and r in hosted:
        t = hosted[r]
        leaves.append(t)
        return ("t", t, r.name, False)
    if r.op is not None and r not in dirty:
        t = r.op._outputs[0]
        leaves.append(t)
        return ("t", t, r.name, fwd(at, t))
    at = r.op or at
    return (r.kind, r.name, [_stage_expr(x, root, hosted, leaves, names, dirty, fwd, at)
                             for x in r.ins])


# the ids of the plan's own ops (no graph op has one as large, its aside ids included: those
# start at 1 << 40): runtime/executor.py names their values by them
HOST_ID_BASE = 1 << 52
_HOST_IDS = itertools.count(HOST_ID_BASE)


def _host_op(n, leaves, expr, replace):
    """A new op of the plan (not of the graph) that computes node ``n``'s new value from the
    leaves of its expression."""
    uniq = _unique(leaves)
    return _new_op(n.op, n.name, uniq, _stage_kernel(_stage_compile(expr, uniq)), replace)


def _unique(leaves):
    uniq = []
    for t in leaves:
        if not any(t is u for u in uniq):
            uniq.append(t)
    return uniq


def _new_op(like, name, ins, kernel, replace, outs=None, op_type="AddN", t=None):
    """A new op of the plan named ``name``, on ``like``'s device, whose ``kernel`` takes the
    values of ``ins`` as one list: an AddN by its declaration with ``like``'s output's dtype
    and shape, or (``op_type`` "ShapeN", its T ``t``) one output per tensor of ``outs``, with
    its dtype and shape."""

    from tideflow.framework import op_registry
    from tideflow.framework.ops import Operation, Tensor, _InputList

    outs = like._outputs[:1] if outs is None else outs
    op = object.__new__(Operation)
    op._graph = like._graph
    op._name = name
    op._type = op_type
    op._op_def = op_registry.get(op_type)
    op._inputs = _InputList(ins)
    op._control_inputs = ()
    op._control_outputs = ()
    op._attrs = {"N": len(ins), "T": t or outs[0].dtype.base_dtype}
    op._device = like._device
    op._id = next(_HOST_IDS)
    op._traceback = like._traceback
    op._original_op = None
    op._frame = like._frame
    op._outputs = []
    for i, like_out in enumerate(outs):
        out = Tensor(op, i, like_out.dtype)
        out._shape = like_out._shape
        op._outputs.append(out)
    replace.kernels[op] = kernel_decl(op, kernel)
    return op


def _insert_ops(replace, order, before):
    """Puts each new op right before its op of ``before`` ({new op: op}) in the plan's order."""
    new_order = list(replace.order or order)
    position = {op: i for i, op in enumerate(new_order)}
    for host, op in sorted(before.items(), key=lambda p: -position[p[1]]):
        new_order.insert(position[op], host)
    replace.order = new_order


def _stage_compile(expr, ins):
    """The expression over the new op's inputs, each AddN's operands in the order its kernel
    sums them (constants split off, sorted by name, the one whose buffer it takes first)."""
    from tideflow.ops.math_ops import _add_n

    head = expr[0]
    if head == "t":
        return ("i", next(i for i, t in enumerate(ins) if t is expr[1]))
    if head == "c":
        return ("c", np.asarray(expr[1]))
    args = expr[2]
    if head != "addn":
        return (head, [_stage_compile(x, ins) for x in args])
    slots = [("c", np.asarray(a[1])) if a[0] == "c" else a for a in args]
    keys = [a[2] if a[0] in ("t", "c") else a[1] for a in args]
    const_at = [i for i, a in enumerate(args) if a[0] == "c"]
    with np.errstate(all="ignore"):
        _partial_split(slots, keys, const_at, expr[1], _add_n)
    perm = sorted(range(len(slots)), key=keys.__getitem__)

    def takes(s):
        if s[0] == "c":
            return False
        if s[0] != "t":
            return True  # (a value computed for this sum alone)
        return s[3] and sum(1 for x in slots if x[0] == "t" and x[1] is s[1]) == 1

    first = next((j for j, i in enumerate(perm) if takes(slots[i])), 0)
    perm[0], perm[first] = perm[first], perm[0]
    return ("addn", [slots[i] if slots[i][0] == "c" else _stage_compile(slots[i], ins)
                     for i in perm])


def _stage_eval(expr, inputs):
    head = expr[0]
    if head == "i":
        return inputs[expr[1]]
    if head == "c":
        return expr[1]
    if head == "addn":
        from tideflow.ops.math_ops import _add_n

        return _add_n([_stage_eval(a, inputs) for a in expr[1]])
    a = _stage_eval(expr[1][0], inputs)
    b = _stage_eval(expr[1][1], inputs)
    if head == "add":
        return a + b
    if head == "sub":
        return a - b
    if head == "mul":
        return a * b
    return a / b


def _stage_kernel(expr):
    def kernel(inputs):
        with np.errstate(all="ignore"):
            return np.asarray(_stage_eval(expr, inputs))

    return kernel
