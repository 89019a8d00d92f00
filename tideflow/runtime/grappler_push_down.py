"""TF 1.15's constant push-down (grappler's constant folding, ConstantPushDown) in the plan:
chains of additions and multiplications with a constant rotate so the constants fold, worked out
on the node model of ``grappler`` and realized by ops of the chain (or plan-only ops of
``grappler_arith``) computing the rewritten values."""


import numpy as np

from tideflow.framework import dtypes
from tideflow.runtime.graph_passes import _dead_ops, _read_from, _readonly, _uses
from tideflow.runtime.grappler import (
    _ARITH,
    _Const,
    _is_const,
    _Node,
    _pd_differs,
    _pow_as,
    input_name,
    kernel_decl,
)
from tideflow.runtime.grappler_arith import (
    _MODEL_DTYPES,
    _insert_ops,
    _new_op,
    _unique,
)

# ---- TF 1.15's constant push-down (grappler's constant folding, ConstantPushDown) ----------
#
# TF rotates chains of additions/subtractions and of multiplications whose one operand is a
# constant, so that constants meet and fold: ``(x + y) - c`` runs as ``x + (y - c)``,
# ``(x * 2.) / 255.`` as ``x * (2. / 255.)``. The result is the same number mathematically but
# not in its last bit, so tideflow rewrites as TF does (``(W * x + b) - y`` in the classic linear
# regression is ``(b - y) + W * x`` there). The rewrite is worked out on a small model of the
# ops, as grappler edits its GraphDef in place (fold, then push down, until nothing changes);
# each node whose value changed is then computed by an op of the chain that has its operands
# among its inputs, with the constants baked into its kernel.

def _settled_const(t, fed, consts):
    """A Const whose control inputs are folded constants themselves (as the one a gradient
    makes under ``control_dependencies([grad])`` of a constant grad): a constant to TF."""
    op = t._op
    return (op._type == "Const" and t not in fed and op._control_inputs
            and all(c._outputs and all(o in consts for o in c._outputs)
                    for c in op._control_inputs))


def _push_down(p):
    """One ConstantPushDown at node ``p`` (in place, as TF's); True when it rotated."""
    if p.kind == "/" or p.value is not None or p.dormant:
        return False
    left_c, right_c = _is_const(p.ins[0]), _is_const(p.ins[1])
    if left_c == right_c:
        return False
    child = p.ins[1] if left_c else p.ins[0]
    if (not isinstance(child, _Node) or child.value is not None or child.keep
            or child.uses != 1 or child.dormant):
        return False
    add_family = p.kind in "+-"
    if (child.kind in "+-") != add_family or child.kind == "/":
        return False
    if not add_family and (p.kind != "*" or child.kind != "*"):
        return False  # (TF 1.15 rotates no mixed multiplication/division)
    if child.op._device != p.op._device:
        return False
    ll, rl = _is_const(child.ins[0]), _is_const(child.ins[1])
    if ll and rl:
        return False  # the child folds as it is
    x = child.ins[1] if ll else child.ins[0]
    y = child.ins[0] if x is child.ins[1] else child.ins[1]
    c = p.ins[0] if left_c else p.ins[1]
    sym, child_sym = p.kind in "+*", child.kind in "+*"
    if sym and child_sym:
        p.ins = [x, child]
        child.ins = [c, y]
        return True
    # subtractions: the signs each of c, y and x carry in the original expression decide the
    # rotated tree (x stays the non-constant leaf that moves up)

    def negated(right_leaf):
        return ((not child_sym) and right_leaf) != ((not sym) and left_c)

    neg_c = (not sym) and not left_c
    neg_x = negated(ll)  # (x is the child's right operand when its left one is constant)
    neg_y = negated(not ll)
    p.kind = "-" if (neg_x or (neg_c and neg_y)) else "+"
    p.ins = [child, x] if neg_x else [x, child]
    child.kind = "-" if neg_c != neg_y else "+"
    child.ins = [y, c] if neg_c else [c, y]
    return True


def constant_push_down(order, fed, fetches, replace, consts, device):
    if device is not None and not getattr(device, "is_host", True):
        return
    nodes = {}
    for op in order:
        kind = _ARITH.get(op._type)
        if kind is None and _pow_as(op, fed, replace, consts) == 3.0:
            kind = "^3"  # Pow(x, 3): Mul(x, Square(x)) once the arithmetic optimizer has run
        if (kind is None or len(op._inputs) != 2 or op in replace.kernels or op._control_inputs
                or len(op._outputs) != 1):
            continue
        out = op._outputs[0]
        if (out in consts or out in fed or replace.get(out, out) is not out
                or out.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64)):
            continue
        ins = []
        for t in op._inputs:
            t = replace.get(t, t)
            if t in consts and t not in fed:
                ins.append(_Const(np.asarray(consts[t]), input_name(t)))
            elif _settled_const(t, fed, consts):
                ins.append(_Const(np.asarray(t._op._attrs["value"]), input_name(t)))
            else:
                ins.append(nodes.get(t._op) if t._op in nodes and t is t._op._outputs[0] else t)
        if kind == "/" and isinstance(ins[1], _Const):
            # TF's ReduceDivToReciprocalMul: x / c is x * (1 / c)
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                ins[1] = _Const(np.asarray(1 / ins[1].value), f"ConstantFolding/{op._name}_recip")
            kind = "*"
        if kind == "^3":
            square = _Node(None, "*", [ins[0], ins[0]])
            square.uses, square.keep = 2, True  # (made by the rewrite: never rotated itself)
            nodes[op] = _Node(op, "*", [ins[0], square])
            nodes[op].dormant = True
            continue
        nodes[op] = _Node(op, kind, ins)
    if not nodes:
        return
    # (an op whose readers read another tensor now, a removed Transpose, reads nothing)
    dead = _dead_ops(order, replace, fetches) if replace else ()
    uses = _uses(order, replace, consts, [op._outputs[0] for op in nodes], dead)
    keep = {replace.get(t, t) for t in fetches}
    for op, n in nodes.items():
        n.uses = uses[op._outputs[0]]
        n.keep = op._outputs[0] in keep
    _merge_pow_twins(nodes, replace, consts)
    seq = list(nodes.values())
    changed = False
    for rounds in (16, 16):  # grappler's two rounds: a Pow by 3 is a Mul in the second
        for _ in range(rounds):
            moved = False
            for n in seq:  # fold what became constant
                if n.value is None and all(_is_const(r) for r in n.ins):
                    with np.errstate(all="ignore"):
                        n.value = _PD_UFUNCS[n.kind](n.ins[0].value, n.ins[1].value)
                    moved = True
            for n in seq:
                moved = _push_down(n) or moved
            if not moved:
                break
            changed = True
        if not any(n.dormant for n in seq):
            break
        for n in seq:
            n.dormant = False
    if not changed:
        return
    if any(n.op._outputs[0].dtype.base_dtype not in _MODEL_DTYPES
           or any(isinstance(r, _Node) and r.op is None for r in n.ins) for n in seq):
        _realize(nodes, seq, order, replace, consts)
        return
    # the arithmetic optimizer's stages rewrite the result further (arithmetic_stages): its
    # model takes these nodes as they are now, and the changed ops are left to it
    dirty = _pd_dirty(seq)
    inside = _pd_inside(seq)
    for n in seq:
        if n not in dirty:
            continue
        out = n.op._outputs[0]
        if n.value is not None:
            if n.keep or n.uses != inside.get(n, 0):
                consts[out] = _readonly(np.asarray(n.value))
        else:
            replace.kernels[n.op] = n.op._op_def  # (claimed: the passes before leave it)
    replace.push_down = {n.op: n for n in seq}


def _merge_pow_twins(nodes, replace, consts):
    """A Pow by 3 is pushed into only in the second round, after the arithmetic optimizer
    merged its twins (DedupComputations: the same x, an equal exponent): the merged node is
    read by all their readers, so ``(pow(x, 3) * .3) * 7`` fetched beside ``pow(x, 3) * 1.7``
    stays ``Mul(x, Square(x)) * 2.1`` in TF 1.15. A fetched twin is left out, as there."""
    groups = {}
    for op, n in nodes.items():
        if n.dormant and not n.keep:
            y = replace.get(op._inputs[1], op._inputs[1])
            key = (id(n.ins[0]), op._device, np.shape(consts[y]))
            groups.setdefault(key, []).append(n)
    for twins in groups.values():
        if len(twins) > 1:
            total = sum(n.uses for n in twins)
            for n in twins:
                n.uses = total


def _pd_dirty(seq):
    """The nodes whose value changed: rewritten, or reading one that was."""
    dirty = {n for n in seq if _pd_differs(n)}
    grew = True
    while grew:
        grew = False
        for n in seq:
            if n not in dirty and any(isinstance(r, _Node) and r in dirty for r in n.ins):
                dirty.add(n)
                grew = True
    return dirty


def _pd_inside(seq):
    inside = {}  # reads of each node's output by the nodes, as the graph has them
    for n in seq:
        for r in n.orig[1]:
            if isinstance(r, _Node):
                inside[r] = inside.get(r, 0) + 1
    return inside


def _realize(nodes, seq, order, replace, consts):
    """Has the value of each rewritten node that is read outside the chain computed by one op
    of the chain whose inputs hold all the values the node's new expression needs, with the
    constants and the chain's inner nodes folded into that op's kernel."""
    def differs(n):
        return n.value is not None or n.kind != n.orig[0] or any(
            a is not b for a, b in zip(n.ins, n.orig[1]))

    dirty = {n for n in seq if differs(n)}
    grew = True
    while grew:  # a node whose operand changed changes too
        grew = False
        for n in seq:
            if n not in dirty and any(isinstance(r, _Node) and r in dirty for r in n.ins):
                dirty.add(n)
                grew = True
    inside = {}  # reads of each node's output by the nodes, as the graph has them
    for n in seq:
        for r in n.orig[1]:
            if isinstance(r, _Node):
                inside[r] = inside.get(r, 0) + 1

    def read_outside(n):
        return n.keep or n.uses != inside.get(n, 0)

    position = {op: i for i, op in enumerate(order)}
    realized = {}
    hosts = {}  # op -> (its inputs, the expression it computes)
    moved = {}  # output of a node read outside -> the op's output that holds its new value

    def expand(r, leaves, deep):
        settled = _settled_expr(r, leaves)
        if settled is not None:
            return settled
        if r.op is None:  # (a Pow's Square)
            return (r.kind, expand(r.ins[0], leaves, deep), expand(r.ins[1], leaves, deep))
        if r not in dirty:
            leaves.append(r.op._outputs[0])
            return ("t", r.op._outputs[0])
        if deep and not read_outside(r):
            return (r.kind, expand(r.ins[0], leaves, deep), expand(r.ins[1], leaves, deep))
        t = realize(r)
        if t is None:
            raise LookupError
        leaves.append(t)
        return ("t", t)

    def realize(n):
        # the whole subtree in one kernel where an op has all its leaves, else its parts
        if n in realized:
            return realized[n]
        if n.op in hosts:
            return None  # its op computes another node's value: n's own has no place
        for deep in (True, False):
            leaves = []
            try:
                expr = (n.kind, expand(n.ins[0], leaves, deep), expand(n.ins[1], leaves, deep))
            except LookupError:
                continue
            for cand in [n] + [m for m in seq if m in dirty and not read_outside(m)]:
                h = cand.op
                if (h in hosts or position[h] > position[n.op]
                        or (cand is not n and cand in realized)):
                    continue
                ins = [moved.get(t, t) for t in (replace.get(t, t) for t in h._inputs)]
                if all(any(t is x for t in ins) for x in leaves):
                    hosts[h] = (ins, expr)
                    realized[n] = h._outputs[0]
                    if h is not n.op:
                        moved[n.op._outputs[0]] = h._outputs[0]
                    return realized[n]
        return None

    roots = [n for n in seq if n in dirty and n.value is None and read_outside(n)]
    new_ops = {}
    try:
        for n in roots:
            if realize(n) is None:
                # no op of the graph reads all the values it needs: a new op of the plan
                leaves = []
                expr = _full_expr(n, n, dirty, realized, leaves)
                uniq = _unique(leaves)
                new = _new_op(n.op, n.op._name, uniq, _pd_list_kernel(_pd_compile(expr, uniq)),
                              replace)
                realized[n] = moved[n.op._outputs[0]] = new._outputs[0]
                new_ops[new] = n.op
    except LookupError:
        for new in new_ops:
            del replace.kernels[new]
        return
    if new_ops:
        _insert_ops(replace, order, new_ops)
    for h, (ins, expr) in hosts.items():
        replace.kernels[h] = kernel_decl(h, _pd_kernel(_pd_compile(expr, ins)))
    for out, src in moved.items():
        _read_from(replace, out, src)
    for n in seq:
        out = n.op._outputs[0]
        if n not in dirty or n.op in hosts or out in moved:
            continue
        if read_outside(n):  # (folded)
            consts[out] = _readonly(np.asarray(n.value))
        else:  # read by the rewritten ops only, which no longer do
            replace.kernels[n.op] = kernel_decl(n.op, _unread)


_PD_UFUNCS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def _settled_expr(r, leaves):
    """A constant's or a graph value's expression (the value appended to ``leaves``); None for
    a node still to expand."""
    if isinstance(r, _Const):
        return ("c", r.value)
    if not isinstance(r, _Node):
        leaves.append(r)
        return ("t", r)
    if r.value is not None:
        return ("c", r.value)
    return None


def _full_expr(r, root, dirty, realized, leaves):
    """Node ``root``'s new expression down to values of the graph (or of ops realized)."""
    settled = _settled_expr(r, leaves)
    if settled is not None:
        return settled
    if r.op is not None and r is not root:
        if r in realized:
            leaves.append(realized[r])
            return ("t", realized[r])
        if r not in dirty:
            leaves.append(r.op._outputs[0])
            return ("t", r.op._outputs[0])
    return (r.kind, _full_expr(r.ins[0], root, dirty, realized, leaves),
            _full_expr(r.ins[1], root, dirty, realized, leaves))


def _pd_list_kernel(expr):
    def kernel(inputs):
        with np.errstate(all="ignore"):
            return _pd_eval(expr, inputs)

    return kernel


def _pd_compile(expr, ins):
    """The expression with each tensor leaf replaced by its position among the inputs."""
    if expr[0] == "t":
        return ("i", next(i for i, t in enumerate(ins) if t is expr[1]))
    if expr[0] == "c":
        return expr
    return (_PD_UFUNCS[expr[0]], _pd_compile(expr[1], ins), _pd_compile(expr[2], ins))


def _pd_eval(expr, inputs):
    head = expr[0]
    if head == "i":
        return inputs[expr[1]]
    if head == "c":
        return expr[1]
    return head(_pd_eval(expr[1], inputs), _pd_eval(expr[2], inputs))


def _pd_kernel(expr):
    def kernel(*inputs):
        return _pd_eval(expr, inputs)

    return kernel


def _unread(*inputs):
    return None


