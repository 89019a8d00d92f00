"""What TF 1.15's graph optimizer (grappler, on by default in a session) rewrites before the
kernels run, where that changes what a step computes: constant folding's push-down (and its
division by a constant as a multiplication), the arithmetic optimizer's log-softmax, ConvertPow
and SqrtDivToRsqrtMul stages, and the remapper's MatMul + BiasAdd fusion. Each is a
replacement of kernels or reads in the plan (graph_passes.Replacements); the user's graph is
not touched."""

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
            decl.kernel = _times_reciprocal(1 / consts[y])
        replace.kernels[op] = decl


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
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


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
                ins.append(_Const(np.asarray(consts[t])))
            elif _settled_const(t, fed, consts):
                ins.append(_Const(np.asarray(t._op._attrs["value"])))
            else:
                ins.append(nodes.get(t._op) if t._op in nodes and t is t._op._outputs[0] else t)
        if kind == "/" and isinstance(ins[1], _Const):
            # TF's ReduceDivToReciprocalMul: x / c is x * (1 / c)
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                ins[1] = _Const(np.asarray(1 / ins[1].value))
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
    _realize(nodes, seq, order, replace, consts, copy)


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
    try:
        for n in roots:
            if realize(n) is None:
                return  # not expressible without new edges: left as the graph has it
    except LookupError:
        return
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
