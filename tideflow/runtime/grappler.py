"""What TF 1.15's graph optimizer (grappler, on by default in a session) rewrites before the
kernels run, where that changes what a step computes: constant folding's push-down (and its
division by a constant as a multiplication, and the partial sum of an AddN's constants), the
arithmetic optimizer's log-softmax, ConvertPow, SqrtDivToRsqrtMul, FuseSquaredDiff, AddOpsRewrite,
HoistCommonFactorOutOfAggregation and MinimizeBroadcasts stages and its order of an AddN's
inputs, and the remapper's MatMul + BiasAdd fusion. Each is a replacement of kernels or reads
in the plan (graph_passes.Replacements), or a new op of the plan computing a rewritten value;
the user's graph is not touched. The push-down is in ``grappler_push_down``, the stages that
rebuild trees of additions in ``grappler_arith``; this module holds the simple rewrites, the
node model they share and the order of an AddN's inputs."""

import copy

import numpy as np

from tideflow.framework import dtypes
from tideflow.runtime.graph_passes import _read_from, _readonly, _uses


def kernel_decl(op, kernel):
    """A copy of ``op``'s declaration that runs ``kernel`` on the op's inputs alone (no kernel
    factory, bound attrs, step context or in-place output): what a rewritten op runs."""
    decl = copy.copy(op._op_def)
    decl.kernel = kernel
    decl.kernel_factory = None
    decl.kernel_attrs = ()
    decl.kernel_wants_ctx = decl.kernel_wants_step = False
    decl.inplace = None
    return decl


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


def _reads_from(op, source, limit=10000):
    """Whether ``op`` reads an output of ``source`` through a path of data inputs (looked for
    over at most ``limit`` ops: past that, taken as no)."""
    seen = set()
    stack = [t._op for t in op._inputs]
    while stack and len(seen) < limit:
        o = stack.pop()
        if o is source:
            return True
        if o not in seen:
            seen.add(o)
            stack.extend(t._op for t in o._inputs)
    return False


def fused_matmul_rewrites(order, fed, fetches, replace, consts):
    """TF's remapper fuses a float32 MatMul whose only reader is a BiasAdd into
    ``_FusedMatMul`` (on the CPU), which runs the GEMM where a lone MatMul with a vector side
    runs Eigen's matrix-vector product: such a MatMul (a dense layer with a bias: Dense(1)
    and ``tf.layers.dense(x, 1)``) takes the GEMM's order. Not when its product is fetched or
    fed, or read by anything else."""
    from tideflow.framework import op_registry
    from tideflow.ops import linalg_ops

    # (a Conv2D with its BiasAdd becomes a _FusedConv2D, which matters only to an Elu after)
    elus = [op for op in order if op._type == "Elu"]
    products = {op._outputs[0]: op for op in order
                if ((op._type == "MatMul" and op not in replace.kernels)
                    or (elus and op._type == "Conv2D"
                        and op._attrs.get("data_format", "NHWC") == "NHWC"))
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
    # (TF's remapper leaves a MatMul or BiasAdd with a control input or a control reader:
    # Keras's functions run a target that waits on their outputs, so its Dense layers are
    # not fused. A control edge that a data path already implies, a metric's update under
    # control_dependencies([predictions]) reading them, is gone by then: TF's dependency
    # optimizer drops it, and the product is fused)
    waited = {c for op in order for c in op._control_inputs
              if c._type in ("MatMul", "Conv2D", "BiasAdd") and not _reads_from(op, c)}
    for t, matmul in products.items():
        found = readers.get(t, [])
        if (t in keep or uses[t] != 1 or len(found) != 1 or found[0]._type != "BiasAdd"
                or replace.get(found[0]._inputs[0], found[0]._inputs[0]) is not t
                or found[0]._device != matmul._device or matmul._control_inputs
                or found[0]._control_inputs or matmul in waited or found[0] in waited):
            continue
        if matmul._type == "MatMul":
            decl = copy.copy(op_registry.get("MatMul"))
            decl.kernel = linalg_ops.matmul_as_fused_gemm
            replace.kernels[matmul] = decl
        if elus:
            _fuse_elu(order, elus, found[0], keep, replace, consts, waited)


def _fuse_elu(order, elus, bias_add, keep, replace, consts, waited):
    """The remapper also takes an Elu that is the BiasAdd's only reader into the
    ``_FusedMatMul``, whose output kernel applies it to each row of the product as it is
    written (measured in TF 1.15: each row's last ``n % 8`` values take glibc's expf, not
    Eigen's packet exp, where the Elu op works on the flat tensor). Relu and Relu6 fuse too,
    with the same values either way."""
    from tideflow.framework import op_registry
    from tideflow.ops import nn_ops

    out = bias_add._outputs[0]
    if out in keep or replace.get(out, out) is not out or bias_add in waited:
        return
    found = [op for op in elus if replace.get(op._inputs[0], op._inputs[0]) is out]
    if (len(found) != 1 or found[0] in replace.kernels
            or found[0]._attrs.get("T") != dtypes.float32
            or found[0]._device != bias_add._device or found[0]._control_inputs
            or _uses(order, replace, consts, [out])[out] != 1):
        return
    elu = found[0]
    if any(elu in op._control_inputs and not _reads_from(op, elu) for op in order):
        return  # (an activation with a control reader is not fused: Keras's predict target)
    decl = copy.copy(op_registry.get("Elu"))
    decl.kernel = nn_ops.elu_by_rows
    replace.kernels[elu] = decl


# ops whose output rank TF's shape inference knows even when their inputs are fed (a fed
# tensor's shape is unknown to it, so an element-wise op of one has an unknown rank)
_RANKED_PRODUCTS = frozenset({"MatMul", "Conv2D"})
_ZERO_ADDENDS = frozenset({"BiasAdd", "Add", "AddV2", "Sub"})


def _all_zeros(v):
    return (isinstance(v, np.ndarray) and v.dtype.kind in "fc" and v.size
            and not np.any(v))


def _keeps_shape(product, zeros):
    """Whether adding a constant of shape ``zeros`` to ``product`` leaves its shape the same
    symbolically: ones but in the last axis, which may be the product's (known) last one."""
    shape = product._shape.as_list() if product._shape.ndims is not None else None
    if shape is None or len(zeros) > len(shape):
        return False
    return all(d == 1 or (i == len(zeros) - 1 and d == shape[-1])
               for i, d in enumerate(zeros))


def zero_addend_rewrites(order, fed, fetches, replace, consts):
    """TF's constant folding (SimplifyArithmeticOperations): ``x + 0`` (BiasAdd, Add, AddV2),
    ``0 + x`` and ``x - 0`` with a constant of zeros are ``x`` itself where shape inference
    knows the sum's shape is x's: for a product (MatMul, Conv2D), whose rank it knows though
    its inputs are fed, and for an x whose whole shape it knows (``v * 1.5 + zeros``: -0.0
    stays -0.0). So a dense layer with a ``tf.zeros`` bias is the plain MatMul (no
    _FusedMatMul: the remapper runs after folding) and a product's -0.0 stays -0.0; the sum
    of a fed placeholder and zeros TF leaves alone (its shape is unknown there). Fetched sums
    too (TF leaves an Identity of x in its place); not one with control edges."""
    waited = derived = None
    for op in order:
        if op._type not in _ZERO_ADDENDS or len(op._inputs) != 2 or op._control_inputs:
            continue
        out = op._outputs[0]
        if out in consts or out in fed or replace.get(out, out) is not out:
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        for i in ((0, 1) if op._type in ("Add", "AddV2") else (0,)):
            x, z = ins[i], ins[1 - i]
            if not (x not in consts and z in consts and z not in fed
                    and x._dtype == out._dtype and _all_zeros(consts[z])):
                continue
            if x._op._type in _RANKED_PRODUCTS:
                ok = (_keeps_shape(x, np.shape(consts[z]))
                      and x._shape.as_list() == out._shape.as_list())
            else:  # (any x whose whole shape grappler knows: a variable's, not a fed one's)
                if derived is None:
                    derived = _fed_derived(order, fed, replace)
                dims = _grappler_dims(x, derived, consts)
                ok = (x not in fed and dims is not None and None not in dims
                      and out._shape.is_fully_defined() and dims == out._shape.as_list())
            if ok:
                if waited is None:
                    waited = {c for o in order for c in o._control_inputs}
                if op not in waited:
                    replace[out] = x
                break


def _times_reciprocal(reciprocal):
    # (the constant's reciprocal is taken once, when the plan is made)
    def kernel(x, y):
        return x * reciprocal

    return kernel


def _folded_reciprocal(c):
    """``1 / c`` as TF's constant folding computes it on the CPU, whose float32 and float64
    arithmetic there treats subnormal inputs as zeros and flushes subnormal results to zeros
    (``x / 3e38`` is 0 in TF 1.15, ``x / 1e-38`` is inf)."""
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):  # (1 / 0: inf)
        if not (isinstance(c, np.ndarray) and c.dtype in (np.float32, np.float64)):
            return 1 / c
        tiny = np.finfo(c.dtype).tiny
        if np.any(np.abs(c) < tiny):
            c = np.where(np.abs(c) < tiny, c * 0, c)  # (c * 0: the zero keeps c's sign)
        r = 1 / c
        if np.any(np.abs(r) < tiny):
            r = np.where(np.abs(r) < tiny, r * 0, r)
        return r.astype(c.dtype, copy=False)


def div_by_constant_rewrites(order, fed, replace, consts):
    """TF's constant folding (ReduceDivToReciprocalMul): a floating-point Div or RealDiv by a
    constant runs as a multiplication by the constant's reciprocal, ``x / 255.`` as
    ``x * (1 / 255.)``, so its last bit is TF's (the two differ in rounding for about half of
    the values). Not for bfloat16, which TF's CPU Reciprocal kernel lacks."""
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
        reciprocal = _folded_reciprocal(consts[y])
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

    from tideflow.framework import op_registry

    for op in order:
        e = _pow_as(op, fed, replace, consts)
        if e is None or op in replace.kernels:
            continue
        name = _POW_AS[e]
        if name is None:
            decl = kernel_decl(op, _cube)
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


def _no_bfloat16_squared_difference(ctx):
    """The fused Sub of a bfloat16 ``square(x - y)``: TF 1.15 rewrites it after placing it on
    the CPU, which has no bfloat16 SquaredDifference kernel, so the step fails to start."""
    from tideflow.framework import errors

    op = ctx.op
    raise errors.NotFoundError(
        None, None, f"No registered 'SquaredDifference' OpKernel for 'CPU' devices compatible "
        f"with node node {op.name} (defined at {op._user_location}) \n\t (OpKernel was found, "
        f"but attributes didn't match) Requested Attributes: T=DT_BFLOAT16, "
        f'_device="{ctx.device.name}"\n\t.  Registered:  device=\'CPU\'; T in [DT_FLOAT, '
        "DT_HALF, DT_DOUBLE, DT_INT32, DT_INT64, DT_COMPLEX64, DT_COMPLEX128]\n")


def fuse_squared_diff(order, fed, fetches, replace, consts):
    """TF's arithmetic optimizer (FuseSquaredDiff): ``square(x - y)`` runs as
    ``SquaredDifference(x, y)`` (the Square as Identity) when the Sub's only reader is that
    Square and the Sub is not fetched. Only complex types and bfloat16 see it: TF 1.15's
    complex SquaredDifference is ``conj(d) * d``, so ``tf.math.reduce_variance`` of a complex
    tensor is real-valued there, and the CPU has no bfloat16 kernel for it (the step fails);
    other types give the same values either way and are left alone."""
    from tideflow.framework import op_registry

    squares = {}
    for op in order:
        if op._type != "Square" or op in replace.kernels:
            continue
        s = replace.get(op._inputs[0], op._inputs[0])
        out = op._outputs[0]
        if (s._op._type == "Sub" and (s.dtype.base_dtype.is_complex
                                      or s.dtype.base_dtype == dtypes.bfloat16) and s not in consts
                and s not in fed and out not in consts and out not in fed
                and s._op not in replace.kernels):
            squares.setdefault(s, []).append(op)
    if not squares:
        return
    uses = _uses(order, replace, consts, squares)
    keep = {replace.get(t, t) for t in fetches}
    for s, ops_ in squares.items():
        if len(ops_) != 1 or uses[s] != 1 or s in keep:
            continue
        if s.dtype.base_dtype == dtypes.bfloat16:
            decl = kernel_decl(s._op, None)
            decl.kernel_factory = _no_bfloat16_squared_difference
            replace.kernels[s._op] = decl
            continue
        replace.kernels[s._op] = op_registry.get("SquaredDifference")
        replace.kernels[ops_[0]] = op_registry.get("Identity")


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


_OFF = 2  # RewriterConfig.Toggle OFF


def optimizers_on(session):
    """(grappler runs, constant folding, arithmetic optimizer, remapper) as the session's
    ``graph_options.rewrite_options`` leave them: TF 1.15 skips each one set OFF, and all of
    them with ``disable_meta_optimizer`` or with ``place_pruned_graph`` (which every
    InteractiveSession sets: TF's GraphExecutionState then skips grappler altogether)."""
    config = getattr(session, "_config", None)
    go = getattr(config, "graph_options", None)
    ro = getattr(go, "rewrite_options", None)
    if ro is None:
        return True, True, True, True
    if getattr(ro, "disable_meta_optimizer", False) or getattr(go, "place_pruned_graph", False):
        return False, False, False, False
    return (True, getattr(ro, "constant_folding", 0) != _OFF,
            getattr(ro, "arithmetic_optimization", 0) != _OFF, getattr(ro, "remapping", 0) != _OFF)


# ---- the model of arithmetic ops that the push-down and the arithmetic stages rewrite ----

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


def _pd_differs(n):
    return n.value is not None or n.kind != n.orig[0] or any(
        a is not b for a, b in zip(n.ins, n.orig[1]))


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


def _running_summed(op, ins, replace):
    # an AddN the plan may sum as its inputs are computed (runtime/accumulate.py decides, with
    # what only the plan knows: fetches, last uses), in the order they are computed
    from tideflow.runtime.accumulate import FRESH_OUTPUT_OPS, held_enough

    y = op._outputs[0]
    if not y._shape.is_fully_defined() or not held_enough(len(ins), y._shape.as_list(),
                                                          y._dtype):
        return False

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

    def __init__(self, order, replace, consts, fed, fetches=()):
        self.position = {op: i for i, op in enumerate(order)}
        self.replace, self.consts, self.fed = replace, consts, fed
        self.also = None
        # a fetched value is held by its _Retval (before it runs, by its edge) to the end
        self.fetched = {replace.get(t, t) for t in fetches}

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
                or sum(1 for x in ins for c in chain if x is c) != 1
                or any(c in self.fetched for c in chain)):
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


# reductions whose CPU kernel hands on its input's buffer when it reduces nothing (TF's
# ReductionOp): a broadcast's gradient Sum over the axes BroadcastGradientArgs computes, none
# where the shapes agree, which only the step knows when a shape is fed
_REDUCTIONS = frozenset({"Sum", "Mean", "Prod", "Max", "Min"})


def _shared_sources(ins, replace):
    """The positions of ``ins`` (tensors, or None for a constant) whose buffer may be another
    one's at run time: past ops handing on their input and reductions (see _REDUCTIONS), two
    reach one tensor (``x * x``'s gradient terms, merged by CSE, each summed over no axes)."""
    roots = []
    for t in ins:
        for _ in range(16 if t is not None else 0):
            op = t._op
            if not op._inputs or (op._type not in _HANDS_ON and op._type not in _REDUCTIONS):
                break
            t = replace.get(op._inputs[0], op._inputs[0])
        roots.append(None if t is None else id(t))
    return {j for j, r in enumerate(roots) if r is not None and roots.count(r) > 1}


def _buffer_of(v):
    return v.base if type(v) is np.ndarray and v.base is not None else v


def _add_n_forwarding_kernel(slots, cands):
    """AddN's kernel over ``slots`` (see _add_n_kernel), in order, but for the input summed
    first: the first of ``cands`` ((position, checked)) whose buffer is its own, a checked
    one only where no other input's value shares its buffer in this step."""
    from tideflow.ops.math_ops import _add_n

    def kernel(inputs):
        vals = [inputs[s] if type(s) is int else s[1] for s in slots]
        for j, checked in cands:
            if checked:
                b = _buffer_of(vals[j])
                if any(_buffer_of(v) is b for k, v in enumerate(vals) if k != j):
                    continue
            vals[0], vals[j] = vals[j], vals[0]
            break
        return _add_n(vals)

    return kernel


def _times_count(n):
    def kernel(inputs):
        x = inputs[0]
        return x * x.dtype.type(n)

    return kernel


def add_n_order(order, fed, replace, consts, device, fetches=(), split=True):
    """Runs each AddN over its inputs as TF 1.15's grappler leaves them: the constants among
    them summed first into one (when there are two or more and not only constants), then all
    sorted by name; one of N copies of a single input (not fetched) as N times it. No
    partial sum (``split`` False) where constant folding is off."""

    from tideflow.ops.math_ops import _add_n

    if device is not None and not getattr(device, "is_host", True):
        return
    names = getattr(replace, "names", None)
    forwards = None
    keep = {replace.get(t, t) for t in fetches}
    for op in order:
        if op._type != "AddN" or op in replace.kernels or len(op._inputs) < 2:
            continue
        out = op._outputs[0]
        if out in consts or out in fed or replace.get(out, out) is not out:
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        if all(t is ins[0] for t in ins) and out not in keep and ins[0] not in consts:
            # SimplifyAggregation: AddN(x, x, ..., x) of N terms is Mul(Const(N), x)
            replace.kernels[op] = kernel_decl(op, _times_count(len(ins)))
            continue
        summed = _running_summed(op, ins, replace)
        slots = list(range(len(ins)))
        keys = [input_name(t, names) for t in ins]
        const_at = [i for i, t in enumerate(ins) if t in consts and t not in fed]
        if split and 1 < len(const_at) < len(ins) and not op._control_inputs:
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
            forwards = _Forwards(order, replace, consts, fed, fetches)
        cands = (j for j, i in enumerate(perm) if type(slots[i]) is int
                 and forwards(op, op._inputs[slots[i]], ins))
        first = next(cands, None)
        shared = _shared_sources([ins[slots[i]] if type(slots[i]) is int else None
                                  for i in perm], replace) if first is not None else ()
        if first in shared:
            # (whether its buffer is another input's too is known at run time only)
            decl = kernel_decl(op, _add_n_forwarding_kernel(
                [slots[i] for i in perm], [(j, j in shared) for j in (first, *cands)]))
        else:
            first = first or 0
            perm[0], perm[first] = perm[first], perm[0]
            if len(slots) == len(ins) and perm == slots:
                continue
            decl = kernel_decl(op, _add_n_kernel([slots[i] for i in perm]))
        if summed:  # (the executor decides: TF's order where it does not sum as it goes)
            replace.add_n_tf_order[op] = decl
        else:
            replace.kernels[op] = decl


# ---- the arithmetic optimizer's ConvertLog1p and ConvertExpm1 stages ----

_UNARY_SHAPED = frozenset({"Identity", "Neg", "Abs", "Exp", "Log", "Tanh", "Sigmoid", "Relu",
                           "Square", "Sqrt"})


def _fed_derived(order, fed, replace):
    """The tensors computed from a fed one (shapes TF's inference does not know), by id."""
    derived = {id(t) for t in fed}
    for op in order:
        if any(id(replace.get(t, t)) in derived for t in op._inputs):
            derived.update(id(t) for t in op._outputs)
    return derived


def _grappler_dims(t, derived, consts):
    """``t``'s dimensions as TF's shape inference knows them (None: symbolic), or None where
    it does not know the rank: a fed tensor's shape is unknown, a product's rank is not, nor
    a Reshape's to a constant shape."""
    if t._shape.ndims is None:
        return None
    dims = t._shape.as_list()
    if id(t) not in derived:
        return dims
    op = t._op
    if op._type in _RANKED_PRODUCTS:
        return [None] * (len(dims) - 1) + dims[-1:]
    if op._type == "Reshape" and len(op._inputs) == 2 and op._inputs[1] in consts:
        return [None if d < 0 else int(d) for d in np.ravel(consts[op._inputs[1]])]
    if op._type in _UNARY_SHAPED and op._inputs:
        return _grappler_dims(op._inputs[0], derived, consts)
    return None


def _ones_keep_shape(c, dims):
    """Whether the constant ``c`` is all ones and broadcasting it leaves ``dims`` as they are."""
    shape = np.shape(c)
    if dims is None or len(shape) > len(dims) or not np.size(c):
        return False
    c = np.asarray(c)
    if c.dtype.kind not in "fc" or not np.all(c == 1):
        return False
    return all(d == 1 or d == t for d, t in zip(shape, dims[len(dims) - len(shape):]))


def log1p_expm1_rewrites(order, fed, replace, consts):
    """TF's arithmetic optimizer (ConvertLog1p, ConvertExpm1): ``log(1 + x)`` runs as
    ``log1p(x)`` and ``exp(x) - 1`` as ``expm1(x)`` (a constant of ones that leaves x's shape
    as it is), accurate for small x, where shape inference knows x's shape: not for a fed
    tensor (nor an element-wise function of one). Fetched ones too; the Add or Exp still runs
    for its other readers. The new op has the Log's (Sub's) name and takes its place."""
    from tideflow.framework import op_registry
    from tideflow.runtime.grappler_arith import _insert_ops, _new_op

    found = []
    for op in order:
        if op._type not in ("Log", "Sub") or op in replace.kernels or len(op._inputs) < 1:
            continue
        out = op._outputs[0]
        if out in consts or out in fed or replace.get(out, out) is not out or op._control_inputs:
            continue
        s = replace.get(op._inputs[0], op._inputs[0])
        if s in consts or s in fed or s._op in replace.kernels:
            continue
        if op._type == "Log" and s._op._type in ("Add", "AddV2") and len(s._op._inputs) == 2:
            found.append((op, "Log1p", s._op, s))
        elif op._type == "Sub" and s._op._type == "Exp" and len(op._inputs) == 2:
            found.append((op, "Expm1", s._op, op._inputs[1]))
    if not found:
        return
    derived = _fed_derived(order, fed, replace)
    before = {}
    for op, kind, inner, other in found:
        if kind == "Log1p":
            ins = [replace.get(t, t) for t in inner._inputs]
            pairs = ((ins[0], ins[1]), (ins[1], ins[0]))
        else:
            pairs = ((replace.get(inner._inputs[0], inner._inputs[0]),
                      replace.get(other, other)),)
        for x, c in pairs:
            if (c in consts and c not in fed and x not in consts
                    and _ones_keep_shape(consts[c], _grappler_dims(x, derived, consts))):
                kernel = op_registry.get(kind).kernel
                new = _new_op(op, op._name, [x], lambda inputs, k=kernel: k(inputs[0]), replace)
                _read_from(replace, op._outputs[0], new._outputs[0])
                before[new] = op
                break
    if before:
        _insert_ops(replace, order, before)
