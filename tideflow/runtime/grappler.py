"""What TF 1.15's graph optimizer (grappler, on by default in a session) rewrites before the
kernels run, where that changes what a step computes: constant folding's push-down (and its
division by a constant as a multiplication, and the partial sum of an AddN's constants), the
arithmetic optimizer's log-softmax, ConvertPow, SqrtDivToRsqrtMul, AddOpsRewrite,
HoistCommonFactorOutOfAggregation and MinimizeBroadcasts stages and its order of an AddN's
inputs, and the remapper's MatMul + BiasAdd fusion. Each is a replacement of kernels or reads
in the plan (graph_passes.Replacements), or a new op of the plan computing a rewritten value;
the user's graph is not touched."""

import itertools

import numpy as np

from tideflow.framework import dtypes
from tideflow.runtime.graph_passes import _read_from, _readonly, _uses


def log_softmax_rewrites(order, fed, fetches, replace, consts):
    """TF's arithmetic optimizer (its log-softmax stage), after folding and CSE as there:
    ``Log(Softmax(x))`` runs as ``LogSoftmax(x)`` when that Log is the Softmax's only consumer
    left in the step, neither output is fed and the Softmax's is not fetched; finite where the
    Softmax underflows to 0 (a hand-written cross-entropy ``-sum(y * log(softmax(z)))``
    evaluated alone). As in TF, a training step, whose gradients also read the Softmax, keeps
    the plain ops, and so does a folded constant one. The Softmax op runs the LogSoftmax kernel
    and the Log's output is read from it. (A Log with control inputs is left alone: its
    consumers would lose that ordering; TF rewrites it in place.)"""
    from tideflow.framework import op_registry

    logs = [op for op in order if op._type == "Log" and op._inputs
            and replace.get(op._outputs[0], op._outputs[0]) is op._outputs[0]
            and op._outputs[0] not in consts]
    candidates = {}
    for log in logs:
        s = replace.get(log._inputs[0], log._inputs[0])
        if s._op._type == "Softmax" and s not in consts and s not in fed:
            candidates.setdefault(s, []).append(log)
    if not candidates:
        return
    uses = _uses(order, replace, consts, candidates)
    keep = {replace.get(t, t) for t in fetches}
    for s, (log, *more) in candidates.items():
        out = log._outputs[0]
        if (more or uses[s] != 1 or s in keep or out in fed or log._control_inputs
                or s._op._device != log._device):
            continue
        replace.kernels[s._op] = op_registry.get("LogSoftmax")
        _read_from(replace, out, s)


def fused_matmul_rewrites(order, fed, fetches, replace, consts):
    """TF's remapper fuses a float32 MatMul whose only reader is a BiasAdd into
    ``_FusedMatMul`` (on the CPU), which runs the GEMM where a lone MatMul with a vector side
    runs Eigen's matrix-vector product: such a MatMul (a dense layer with a bias: Dense(1)
    and ``tf.layers.dense(x, 1)``) takes the GEMM's order. Not when its product is fetched or
    fed, or read by anything else."""
    import copy

    from tideflow.framework import op_registry
    from tideflow.ops import linalg_ops

    products = {op._outputs[0]: op for op in order
                if op._type == "MatMul" and op not in replace.kernels
                and op._attrs.get("T") == dtypes.float32 and op._outputs[0] not in consts
                and op._outputs[0] not in fed
                and replace.get(op._outputs[0], op._outputs[0]) is op._outputs[0]}
    if not products:
        return
    readers = {}
    for op in order:
        for t in op._inputs:
            t = replace.get(t, t)
            if t in products:
                readers.setdefault(t, []).append(op)
    keep = {replace.get(t, t) for t in fetches}
    uses = _uses(order, replace, consts, products)
    for t, matmul in products.items():
        found = readers.get(t, [])
        if (t in keep or uses[t] != 1 or len(found) != 1 or found[0]._type != "BiasAdd"
                or replace.get(found[0]._inputs[0], found[0]._inputs[0]) is not t
                or found[0]._device != matmul._device):
            continue
        decl = copy.copy(op_registry.get("MatMul"))
        decl.kernel = linalg_ops.matmul_as_fused_gemm
        replace.kernels[matmul] = decl


def _times_reciprocal(reciprocal):
    # (the constant's reciprocal is taken once, when the plan is made)
    def kernel(x, y):
        return x * reciprocal

    return kernel


def div_by_constant_rewrites(order, fed, replace, consts):
    """TF's constant folding (ReduceDivToReciprocalMul): a floating-point Div or RealDiv by a
    constant runs as a multiplication by the constant's reciprocal, ``x / 255.`` as
    ``x * (1 / 255.)``, so its last bit is TF's (the two differ in rounding for about half of
    the values). Not for bfloat16, which TF's CPU Reciprocal kernel lacks."""
    import copy

    from tideflow.framework import op_registry

    for op in order:
        if op._type not in ("Div", "RealDiv") or op in replace.kernels or len(op._inputs) != 2:
            continue
        out = op._outputs[0]
        y = replace.get(op._inputs[1], op._inputs[1])
        if (out in consts or out in fed or y not in consts or y in fed
                or not (y.dtype.is_floating or y.dtype.is_complex)
                or y.dtype.base_dtype == dtypes.bfloat16):  # (TF has no such Reciprocal)
            continue
        decl = copy.copy(op_registry.get(op._type))
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # (1 / 0: inf)
            reciprocal = 1 / consts[y]
        decl.kernel = _times_reciprocal(reciprocal)
        replace.kernels[op] = decl
        recips = getattr(replace, "recips", None)
        if recips is not None:
            recips[op] = reciprocal


_POW_AS = {2.0: "Square", 0.5: "Sqrt", -0.5: "Rsqrt", -1.0: "Reciprocal", 3.0: None}


def _cube(x, y):
    return (x * x) * x


def _pow_as(op, fed, replace, consts):
    """The exponent of a Pow that TF's ConvertPow rewrites (a key of _POW_AS), else None."""
    if op._type != "Pow" or len(op._inputs) != 2:
        return None
    out = op._outputs[0]
    x = replace.get(op._inputs[0], op._inputs[0])
    y = replace.get(op._inputs[1], op._inputs[1])
    if (out in consts or out in fed or y not in consts or y in fed
            or out.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64)):
        return None
    c = np.asarray(consts[y])
    if c.size == 0 or not np.all(c == c.flat[0]):
        return None
    e = float(c.flat[0])
    if e not in _POW_AS or (c.size != 1 and tuple(c.shape) != tuple(x.shape.as_list() or ())):
        return None
    if c.ndim > len(x.shape) if x.shape.ndims is not None else c.size != 1:
        return None
    return e


def convert_pow(order, fed, replace, consts):
    """TF's arithmetic optimizer (its ConvertPow stage): ``Pow(x, c)`` with every element of
    the constant ``c`` one value runs as ``Square(x)`` for 2, ``Square(x) * x`` for 3,
    ``Sqrt`` for 0.5, ``Rsqrt`` for -0.5 and ``Reciprocal`` for -1, whose last bits are not
    ``pow``'s (``x ** 3`` is two roundings there). Other exponents keep ``Pow``. Left alone
    where ``c`` would broadcast ``x`` to a larger shape."""
    import copy

    from tideflow.framework import op_registry

    for op in order:
        e = _pow_as(op, fed, replace, consts)
        if e is None or op in replace.kernels:
            continue
        name = _POW_AS[e]
        if name is None:
            decl = copy.copy(op._op_def)
            decl.kernel = _cube
            decl.kernel_factory = None
            decl.kernel_attrs = ()
            decl.kernel_wants_ctx = decl.kernel_wants_step = False
            decl.inplace = None
        else:
            decl = op_registry.get(name)
        replace.kernels[op] = decl


def sqrt_div_to_rsqrt_mul(order, fed, fetches, replace, consts):
    """TF's arithmetic optimizer (SqrtDivToRsqrtMul): ``x / sqrt(y)`` runs as
    ``x * rsqrt(y)`` when the Sqrt's only reader is that division and the Sqrt is not
    fetched (a hand-written normalization ``(x - mean) / tf.sqrt(var + eps)``)."""
    from tideflow.framework import op_registry

    divs = {}
    for op in order:
        if op._type not in ("Div", "RealDiv") or op in replace.kernels or len(op._inputs) != 2:
            continue
        s = replace.get(op._inputs[1], op._inputs[1])
        out = op._outputs[0]
        if (s._op._type == "Sqrt" and s not in consts and s not in fed and out not in consts
                and out not in fed and s._op not in replace.kernels
                and out.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64)):
            divs.setdefault(s, []).append(op)
    if not divs:
        return
    uses = _uses(order, replace, consts, divs)
    keep = {replace.get(t, t) for t in fetches}
    for s, ops_ in divs.items():
        if len(ops_) != 1 or uses[s] != 1 or s in keep:
            continue
        replace.kernels[s._op] = op_registry.get("Rsqrt")
        replace.kernels[ops_[0]] = op_registry.get("Mul")


# TF's meta optimizer leaves a graph of fewer nodes than this alone (kDefaultMinGraphNodes)
_MIN_GRAPH_NODES = 4


def runs(order):
    """Whether TF 1.15's grappler rewrites this step: not when the session's whole graph (not
    just the ops the step runs) holds fewer than 4 ops, so ``sess.run(x / 3.)`` fed alone
    divides and ``log(softmax(x))`` alone underflows to -inf there. Function bodies are
    optimized as before."""
    from tideflow.framework.func_graph import FuncGraph

    if not order:
        return True
    graph = order[0]._graph
    return isinstance(graph, FuncGraph) or len(graph._ops) >= _MIN_GRAPH_NODES


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

_ARITH = {"Add": "+", "AddV2": "+", "Sub": "-", "Mul": "*", "Div": "/", "RealDiv": "/"}


class _Node:
    __slots__ = ("dormant", "ins", "keep", "kind", "op", "orig", "uses", "value")

    def __init__(self, op, kind, ins):
        self.op, self.kind, self.ins = op, kind, ins
        self.orig = (kind, list(ins))
        self.value = None  # folded to a constant
        self.uses = 0
        self.keep = False  # fetched: its value may change, it may not be pushed into
        self.dormant = False  # a Pow that becomes a Mul only after the first round


class _Const:
    __slots__ = ("name", "value")

    def __init__(self, value, name=None):
        self.value, self.name = value, name


def _is_const(r):
    return isinstance(r, _Const) or (isinstance(r, _Node) and r.value is not None)


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
    import copy

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
    uses = _uses(order, replace, consts, [op._outputs[0] for op in nodes])
    keep = {replace.get(t, t) for t in fetches}
    for op, n in nodes.items():
        n.uses = uses[op._outputs[0]]
        n.keep = op._outputs[0] in keep
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
        _realize(nodes, seq, order, replace, consts, copy)
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


def _pd_differs(n):
    return n.value is not None or n.kind != n.orig[0] or any(
        a is not b for a, b in zip(n.ins, n.orig[1]))


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


def _realize(nodes, seq, order, replace, consts, copy):
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
        if isinstance(r, _Const):
            return ("c", r.value)
        if not isinstance(r, _Node):
            leaves.append(r)
            return ("t", r)
        if r.value is not None:
            return ("c", r.value)
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
        replace.kernels[h] = _pd_decl(h, _pd_kernel(_pd_compile(expr, ins)), copy)
    for out, src in moved.items():
        _read_from(replace, out, src)
    for n in seq:
        out = n.op._outputs[0]
        if n not in dirty or n.op in hosts or out in moved:
            continue
        if read_outside(n):  # (folded)
            consts[out] = _readonly(np.asarray(n.value))
        else:  # read by the rewritten ops only, which no longer do
            replace.kernels[n.op] = _pd_decl(n.op, _unread, copy)


_PD_UFUNCS = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def _full_expr(r, root, dirty, realized, leaves):
    """Node ``root``'s new expression down to values of the graph (or of ops realized)."""
    if isinstance(r, _Const):
        return ("c", r.value)
    if not isinstance(r, _Node):
        leaves.append(r)
        return ("t", r)
    if r.value is not None:
        return ("c", r.value)
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


def _pd_decl(op, kernel, copy):
    decl = copy.copy(op._op_def)
    decl.kernel = kernel
    decl.kernel_factory = None
    decl.kernel_attrs = ()
    decl.kernel_wants_ctx = decl.kernel_wants_step = False
    decl.inplace = None
    return decl


# ---- the arithmetic optimizer's canonical input order and constant folding's partial split ----
#
# TF's arithmetic optimizer sorts the inputs of a commutative op by their names in the GraphDef
# (``"p0"``, ``"v1/read"``, ``"mul:1"``), byte by byte, and AddN's CPU kernel sums its inputs
# in that order: ``tf.add_n([c, b, a])`` sums ``a + b + c`` there. Before that, constant
# folding (PartialAssocOpConstFolding) sums the constant inputs of an AddN that has other
# inputs too, in their order, into one constant named
# ``ConstantFolding/<name>_partial_split_<k>``, which then sorts among the others.


def input_name(t, names=None):
    """The input string of tensor ``t`` in the GraphDef grappler edits: ``name`` or
    ``name:k``, or the name a rewrite gave the node that computes it now."""
    if names:
        n = names.get(t)
        if n is not None:
            return n
    return t._op._name if t._value_index == 0 else f"{t._op._name}:{t._value_index}"


def _add_n_kernel(slots):
    """AddN's kernel over its inputs rearranged: each slot is an input's index or ``("c",
    value)`` for a folded constant."""
    from tideflow.ops.math_ops import _add_n

    def kernel(inputs):
        return _add_n([inputs[s] if type(s) is int else s[1] for s in slots])

    return kernel


def _running_summed(ins, replace):
    # an AddN the plan sums as its inputs are computed (runtime/accumulate.py): its order is
    # the order they are computed in anyway
    from tideflow.runtime.accumulate import FRESH_OUTPUT_OPS

    def fresh(t):
        op = t._op
        if op._type == "Identity" and len(op._inputs) == 1:
            op = replace.get(op._inputs[0], op._inputs[0])._op
        return op._type in FRESH_OUTPUT_OPS

    return len(ins) >= 3 and all(fresh(t) for t in ins)


# ops whose output is (or may be) another tensor's buffer, or one they keep: never handed on
_ALIASING = frozenset({
    "Identity", "IdentityN", "ReadVariableOp", "Reshape", "ExpandDims", "Squeeze",
    "StopGradient", "PreventGradient", "Snapshot", "EnsureShape", "CheckNumerics", "Bitcast",
    "Enter", "Exit", "Switch", "RefSwitch", "Merge", "NextIteration", "RefIdentity",
    "Const", "VariableV2", "Variable", "VarHandleOp", "Placeholder", "PlaceholderV2",
    "PlaceholderWithDefault", "TemporaryVariable"})


# ops whose output is their (first) input's buffer, which they hand on when they have run
_HANDS_ON = frozenset({"Identity", "StopGradient", "PreventGradient", "Reshape", "ExpandDims",
                       "Squeeze", "EnsureShape", "CheckNumerics"})


class _Forwards:
    """Whether an AddN's kernel sums into the buffer of its input ``t``: TF's CPU AddN
    takes the first of its inputs whose buffer it holds alone (a value computed for it,
    read by no op still to run, not a constant, a variable's, a fed or an aliased one, not
    given twice) as its output, and sums that one first (it swaps places with the first)."""

    def __init__(self, order, replace, consts, fed):
        self.position = {op: i for i, op in enumerate(order)}
        self.replace, self.consts, self.fed = replace, consts, fed
        self.also = None

    def __call__(self, addn, t, ins, at=None):
        replace = self.replace
        r = replace.get(t, t)
        # an op handing on its input's buffer (a gradient tuple's control_dependency Identity,
        # a Reshape) leaves it held alone once it has run, if nothing else still reads it
        chain = [r]
        while r._op._type in _HANDS_ON and r._op._inputs and len(chain) < 16:
            r = replace.get(r._op._inputs[0], r._op._inputs[0])
            chain.append(r)
        if (r in self.consts or r in self.fed or r._op._type in _ALIASING
                or sum(1 for x in ins for c in chain if x is c) != 1):
            return False
        position = self.position
        at = position.get(addn if at is None else at)
        if at is None:
            return False
        if self.also is None:
            self.also = {}
            for a, b in replace.items():
                self.also.setdefault(b, []).append(a)
        for reader, link in zip([addn] + [x._op for x in chain[:-1]], chain):
            for src in (link, *self.also.get(link, ())):
                for c in src._consumers:
                    if c is reader or c is addn or position.get(c) is None or (
                            c._outputs and all(replace.get(o, o) is not o or o in self.consts
                                               for o in c._outputs)):
                        continue  # (not run in the step)
                    if not (self._ready(c) < self._ready(addn) or self._before(c, addn, at)):
                        return False  # (TF's executor may not have run it yet)
        return True

    def _ready(self, op):
        # when an op can run: after the last op computing one of its inputs (in step order)
        position, replace, consts, fed = self.position, self.replace, self.consts, self.fed
        ready = -1
        for t in op._inputs:
            t = replace.get(t, t)
            if t not in consts and t not in fed:
                ready = max(ready, position.get(t._op, -1))
        return ready

    def _before(self, c, addn, at):
        """Whether ``addn`` reads what ``c`` computes (so ``c`` has run when it does)."""
        position, replace = self.position, self.replace
        low = position[c]
        if low > at:
            return False
        seen = set()
        stack = [addn]
        while stack:
            op = stack.pop()
            for t in op._inputs:
                p = replace.get(t, t)._op
                if p is c:
                    return True
                i = position.get(p)
                if i is not None and i > low and p not in seen and len(seen) < 4096:
                    seen.add(p)
                    stack.append(p)
        return False


def add_n_order(order, fed, replace, consts, device):
    """Runs each AddN over its inputs as TF 1.15's grappler leaves them: the constants among
    them summed first into one (when there are two or more and not only constants), then all
    sorted by name."""
    import copy

    from tideflow.ops.math_ops import _add_n

    if device is not None and not getattr(device, "is_host", True):
        return
    names = getattr(replace, "names", None)
    forwards = None
    for op in order:
        if op._type != "AddN" or op in replace.kernels or len(op._inputs) < 2:
            continue
        out = op._outputs[0]
        if out in consts or out in fed or replace.get(out, out) is not out:
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        if _running_summed(ins, replace):
            continue
        slots = list(range(len(ins)))
        keys = [input_name(t, names) for t in ins]
        const_at = [i for i, t in enumerate(ins) if t in consts and t not in fed]
        if 1 < len(const_at) < len(ins) and not op._control_inputs:
            with np.errstate(all="ignore"):
                total = _add_n([consts[ins[i]] for i in const_at])
            first = const_at[0]
            slots[first] = ("c", _readonly(np.asarray(total)))
            keys[first] = f"ConstantFolding/{op._name}_partial_split_{len(const_at)}"
            drop = set(const_at[1:])
            slots = [s for i, s in enumerate(slots) if i not in drop]
            keys = [k for i, k in enumerate(keys) if i not in drop]
        perm = sorted(range(len(slots)), key=keys.__getitem__)
        if forwards is None:
            forwards = _Forwards(order, replace, consts, fed)
        first = next((j for j, i in enumerate(perm) if type(slots[i]) is int
                      and forwards(op, op._inputs[slots[i]], ins)), 0)
        perm[0], perm[first] = perm[first], perm[0]
        if len(slots) == len(ins) and perm == slots:
            continue
        decl = copy.copy(op._op_def)
        decl.kernel = _add_n_kernel([slots[i] for i in perm])
        decl.kernel_factory = None
        decl.kernel_attrs = ()
        decl.kernel_wants_ctx = decl.kernel_wants_step = False
        decl.inplace = None
        replace.kernels[op] = decl


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


class _Shapes:
    """The shapes grappler's shape inference knows: none for a fed tensor or anything computed
    from one (an AddN takes the shape of any input whose shape is known)."""

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


def mul_square_names(order, fed, replace, consts):
    """TF's ReplaceMulWithSquare: ``x * x`` runs as ``Square(x)`` (the same value) under a new
    name, ``ArithmeticOptimizer/ReplaceMulWithSquare_<name>``, which is where it sorts among
    an AddN's inputs."""
    names = replace.names
    for op in order:
        if op._type != "Mul" or len(op._inputs) != 2:
            continue
        a, b = (replace.get(t, t) for t in op._inputs)
        out = op._outputs[0]
        if a is b and out not in consts and out not in fed and replace.get(out, out) is out:
            names[out] = _scoped(op._name, "ReplaceMulWithSquare")


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
    _realize_stages(nodes, order, fed, replace, consts, names)


def _realize_stages(nodes, order, fed, replace, consts, names):
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
    forwards = _Forwards(order, replace, consts, fed)
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


# the ids of the plan's own ops (no graph op has one as large): runtime/executor.py names their
# values by them
HOST_ID_BASE = 1 << 40
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


def _new_op(like, name, ins, kernel, replace):
    """A new op of the plan named ``name``, on ``like``'s device and with its output's dtype
    and shape, whose ``kernel`` takes the values of ``ins`` as one list (an AddN by its
    declaration)."""
    import copy

    from tideflow.framework import op_registry
    from tideflow.framework.ops import Operation, Tensor, _InputList

    op = object.__new__(Operation)
    op._graph = like._graph
    op._name = name
    op._type = "AddN"
    op._op_def = op_registry.get("AddN")
    op._inputs = _InputList(ins)
    op._control_inputs = ()
    op._control_outputs = ()
    op._attrs = {"N": len(ins), "T": like._outputs[0].dtype.base_dtype}
    op._device = like._device
    op._id = next(_HOST_IDS)
    op._traceback = like._traceback
    op._original_op = None
    op._frame = like._frame
    out = Tensor(op, 0, like._outputs[0].dtype)
    out._shape = like._outputs[0]._shape
    op._outputs = [out]
    decl = copy.copy(op._op_def)
    decl.kernel = kernel
    decl.kernel_factory = None
    decl.kernel_attrs = ()
    decl.kernel_wants_ctx = decl.kernel_wants_step = False
    decl.inplace = None
    replace.kernels[op] = decl
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
