"""Plan-time graph passes: common-subexpression elimination and constant folding (paper §5.1).

Both leave stateful and random ops alone, and neither touches the user's Graph: they return
a replacement map and folded values that the plan compiles in.
"""

import numpy as np

from tideflow.framework import dtypes

# the largest folded value kept, as TF's default for constant folding
MAX_FOLDED_BYTES = 10 * 1024 * 1024
_NO_FOLD = {"Placeholder", "PlaceholderV2"}


def const_values(order):
    """The values of the Const ops in ``order`` (read-only arrays). A Const with control
    inputs stays an op of the plan, so that its consumers still run after those (as TF:
    ``with tf.control_dependencies([a]): y = x * 2.0`` orders the Mul after ``a`` through the
    Const 2.0 made inside the block)."""
    out = {}
    for op in order:
        if op._type == "Const" and not op._control_inputs:
            out[op._outputs[0]] = _readonly(op._attrs["value"])
    return out


def _readonly(v):
    if isinstance(v, np.ndarray) and v.flags.writeable:
        v = v.view()
        v.flags.writeable = False
    return v


def _freeze(v):
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, np.ndarray):
        if v.nbytes > 1024:
            return ("array-id", id(v))
        return ("array", v.shape, str(v.dtype), v.tobytes() if v.dtype != object else repr(v))
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    return v


class Replacements(dict):
    """Tensor -> the tensor that holds its value in the plan; ``kernels`` maps an op to the
    declaration whose kernel the plan runs for it instead of its own."""

    def __init__(self):
        super().__init__()
        self.kernels = {}


def _log_softmax_rewrites(order, fed, fetches, replace, consts):
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


def _fused_matmul_rewrites(order, fed, fetches, replace, consts):
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


def _div_by_constant_rewrites(order, fed, replace, consts):
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


def _convert_pow(order, fed, replace, consts):
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


def _sqrt_div_to_rsqrt_mul(order, fed, fetches, replace, consts):
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


def _uses(order, replace, consts, tensors):
    """How many inputs of the ops that run in the step read each of ``tensors``."""
    uses = dict.fromkeys(tensors, 0)
    for op in order:
        if op._outputs and all(replace.get(t, t) is not t or t in consts for t in op._outputs):
            continue  # folded or merged away: not run
        for t in op._inputs:
            t = replace.get(t, t)
            if t in uses:
                uses[t] += 1
    return uses


def _read_from(replace, out, src):
    """The value of ``out`` (and of whatever stood for it) is read from ``src``: out's op no
    longer runs."""
    for t, r in list(replace.items()):
        if r is out:
            replace[t] = src
    replace[out] = src


def _masked_max_pool_grad(kernel):
    def fused(orig_input, orig_output, grad, **attrs):
        return kernel(orig_input, orig_output, grad * (orig_output > 0), **attrs)

    return fused


_POOL_ATTRS = ("ksize", "strides", "padding", "data_format")


def _pool_of(replace, x, p):
    """The MaxPool op whose output ``p`` is, with ``x`` its input; else None."""
    pool = p._op
    if pool._type != "MaxPool" or replace.get(pool._inputs[0], pool._inputs[0]) is not x:
        return None
    return pool


def _max_pool_grad_at_max_rewrites(order, fed, replace, consts, device):
    """A MaxPoolGrad whose ``orig_output`` is the MaxPool of its ``orig_input`` (as every
    gradient of max_pool is) runs a kernel that takes those maxima as given: a window's
    gradient goes where the input equals its max (kconv.max_pool_grad_at), instead of the
    maxima being found again. Not when the pooled value is fed (then it need not be that
    MaxPool's), nor where the device has a kernel of its own."""
    import copy

    from tideflow.framework import op_registry
    from tideflow.ops import pooling_ops

    if op_registry.device_kernel("MaxPoolGrad", device.device_type) is not None:
        return
    at_def = None
    for op in order:
        if op._type != "MaxPoolGrad" or op in replace.kernels or any(
                t in consts or replace.get(t, t) is not t for t in op._outputs):
            continue
        x, p = (replace.get(t, t) for t in op._inputs[:2])
        if p in fed or p in consts:
            continue
        pool = _pool_of(replace, x, p)
        if pool is None or pool._device != op._device or any(
                pool._attrs.get(k) != op._attrs.get(k) for k in _POOL_ATTRS):
            continue
        if at_def is None:
            at_def = copy.copy(op_registry.get("MaxPoolGrad"))
            at_def.kernel = pooling_ops.max_pool_grad_at_max
        replace.kernels[op] = at_def


def _conv_spectrum_sharing(order, fed, replace, consts, device):
    """A Conv2DBackpropInput and a Conv2DBackpropFilter of one convolution (the same
    out_backprop, attrs and device, the input gradient first) share dy's spectrum: the input
    gradient keeps the one it computes (spectral path only) for the filter gradient, which then
    does not transform dy again (conv_ops.SpectrumShare)."""
    import copy

    from tideflow.framework import op_registry
    from tideflow.ops import conv_ops

    if any(op_registry.device_kernel(t, device.device_type) is not None for t in (
            "Conv2DBackpropInput", "Conv2DBackpropFilter")):
        return

    def runs(op):
        return op not in replace.kernels and not any(
            t in consts or t in fed or replace.get(t, t) is not t for t in op._outputs)

    inputs = {}
    for op in order:
        if op._type == "Conv2DBackpropInput" and runs(op):
            inputs.setdefault(replace.get(op._inputs[2], op._inputs[2]), []).append(op)
        elif op._type == "Conv2DBackpropFilter" and runs(op):
            dy = replace.get(op._inputs[2], op._inputs[2])
            bins = [b for b in inputs.pop(dy, ()) if b._device == op._device
                    and conv_ops._attrs_of(b) == conv_ops._attrs_of(op)]
            if len(bins) != 1:
                continue
            for o, kernel in zip((bins[0], op), conv_ops.sharing_kernels()):
                od = copy.copy(o._op_def)
                od.kernel = kernel
                replace.kernels[o] = od


def _max_pool_relu_grad_rewrites(order, fed, fetches, replace, consts):
    """``ReluGrad(MaxPoolGrad(r, p, g), r)`` runs as ``MaxPoolGrad(r, p, g * (p > 0))`` when
    ``p`` is ``MaxPool(r)`` with the same window: the backward pass of ``max_pool(relu(x))``.
    The max-pool gradient lands only on each window's maximum, where ``r`` equals ``p``, so
    masking the pooled gradient by ``p > 0`` is the ReluGrad's mask, applied to a quarter of
    the values (a 2x2 pool) and without the full-size pass. Only when the MaxPoolGrad's output
    is read by that ReluGrad alone, neither is fed or fetched and both run on one device;
    the ReluGrad's op then does not run."""
    import copy

    from tideflow.framework import op_registry

    pairs = {}
    for op in order:
        if op._type != "ReluGrad" or len(op._inputs) != 2 or op._control_inputs:
            continue
        out = op._outputs[0]
        if replace.get(out, out) is not out or out in consts or out in fed:
            continue
        d, r = (replace.get(t, t) for t in op._inputs)
        mpg = d._op
        if mpg._type != "MaxPoolGrad" or d in fed or d in consts or d in pairs:
            continue
        x, p = (replace.get(t, t) for t in mpg._inputs[:2])
        if x is not r or p in fed or p._op._type != "MaxPool" or mpg._device != op._device:
            continue
        pool = _pool_of(replace, r, p)
        if pool is None or any(pool._attrs.get(k) != mpg._attrs.get(k) for k in _POOL_ATTRS):
            continue
        pairs[d] = op
    if not pairs:
        return
    uses = _uses(order, replace, consts, pairs)
    keep = {replace.get(t, t) for t in fetches}
    fused = {}  # the MaxPoolGrad declaration it runs (maybe a rewrite's) -> the masked one
    rewritten = []
    for d, relu_grad in pairs.items():
        out = relu_grad._outputs[0]
        if uses[d] != 1 or d in keep:
            continue
        base = replace.kernels.get(d._op) or op_registry.get("MaxPoolGrad")
        if base not in fused:
            fused[base] = copy.copy(base)
            fused[base].kernel = _masked_max_pool_grad(base.kernel)
        replace.kernels[d._op] = fused[base]
        _read_from(replace, out, d)
        rewritten.append(d._op)
    _relu_into_max_pool(rewritten, fed, fetches, replace, consts, order)


def _relu_into_max_pool(grads, fed, fetches, replace, consts, order):
    """The forward half, for a MaxPoolGrad rewritten above: when ``r = Relu(x)`` is read by
    nothing else in the step than its MaxPool and that MaxPoolGrad, the MaxPool runs as
    ``relu(max_pool(x))`` (ReLU is monotone, so the same values, on a quarter of them) and
    the MaxPoolGrad reads ``x``: its window maxima are those of ``r`` wherever the mask
    ``p > 0`` lets a gradient through. The full-size Relu then does not run."""
    import copy

    from tideflow.framework import op_registry

    relus = {}
    for mpg in grads:
        r = replace.get(mpg._inputs[0], mpg._inputs[0])
        relu = r._op
        if (relu._type == "Relu" and not relu._control_inputs and r not in fed
                and r not in consts and relu._device == mpg._device
                and r.dtype.base_dtype.is_floating):
            relus.setdefault(r, []).append(mpg)
    if not relus:
        return
    uses = _uses(order, replace, consts, relus)
    keep = {replace.get(t, t) for t in fetches}
    pool_def = None
    for r, mpgs in relus.items():
        pool = replace.get(mpgs[0]._inputs[1], mpgs[0]._inputs[1])._op
        if len(mpgs) != 1 or uses[r] != 2 or r in keep or pool._device != mpgs[0]._device:
            continue
        if pool_def is None:
            pool_def = copy.copy(op_registry.get("MaxPool"))
            pool_def.kernel = _relu_after(pool_def.kernel, op_registry.get("Relu").kernel)
        replace.kernels[pool] = pool_def
        _read_from(replace, r, replace.get(r._op._inputs[0], r._op._inputs[0]))


def _relu_after(pool_kernel, relu_kernel):
    def fused(input, **attrs):
        return relu_kernel(pool_kernel(input, **attrs))

    return fused


# TF's meta optimizer leaves a graph of fewer nodes than this alone (kDefaultMinGraphNodes)
_MIN_GRAPH_NODES = 4


def _grappler_runs(order):
    """Whether TF 1.15's grappler rewrites this step: not when the session's whole graph (not
    just the ops the step runs) holds fewer than 4 ops, so ``sess.run(x / 3.)`` fed alone
    divides and ``log(softmax(x))`` alone underflows to -inf there. Function bodies are
    optimized as before."""
    from tideflow.framework.func_graph import FuncGraph

    if not order:
        return True
    graph = order[0]._graph
    return isinstance(graph, FuncGraph) or len(graph._ops) >= _MIN_GRAPH_NODES


def optimize(order, fed, device, session_state, session, fetches=()):
    """Runs CSE and constant folding over the ordered ops; returns (replace, consts)."""
    from tideflow.runtime.executor import bind_kernel

    consts = const_values(order)
    replace = Replacements()
    seen = {}
    cse = []
    for op in order:
        od = op._op_def
        if op._type == "Const" or od.is_stateful or od.is_random or not op._outputs:
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        # --- constant folding
        py_func = op._type == "PyFuncStateless"
        if (
            op._type not in _NO_FOLD
            and (not op._control_inputs
                 or py_func and all(c._type == "Const" for c in op._control_inputs))
            and not od.kernel_wants_step
            and not od.kernel_wants_ctx
            and (od.kernel_factory is None and od.kernel is not None or py_func)
            and all(t in consts and t not in fed for t in ins)
            and not any(t in fed for t in op._outputs)
        ):
            values = _try_fold(op, ins, consts, device, session_state, session, bind_kernel)
            if values is not None:
                for t, v in zip(op._outputs, values):
                    consts[t] = _readonly(v)
                continue
        if not any(t in fed for t in op._outputs):
            cse.append(op)
    grappler = _grappler_runs(order)
    if grappler:
        # TF folds (and pushes constants down) before it merges common subexpressions
        _constant_push_down(order, fed, fetches, replace, consts, device)
    # --- common subexpressions
    for op in cse:
        if op in replace.kernels or any(replace.get(t, t) is not t for t in op._outputs):
            continue  # rewritten above: computes something else now
        ins = [replace.get(t, t) for t in op._inputs]
        try:
            key = (
                op._type,
                op._device,
                tuple(id(t) for t in ins),
                tuple(sorted(c._id for c in op._control_inputs)),
                _freeze({k: v for k, v in op._attrs.items() if not k.startswith("_class")}),
            )
            hash(key)
        except TypeError:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = op
        else:
            for a, b in zip(op._outputs, first._outputs):
                replace[a] = replace.get(b, b)
    if grappler:
        _log_softmax_rewrites(order, fed, fetches, replace, consts)
        _convert_pow(order, fed, replace, consts)
        _sqrt_div_to_rsqrt_mul(order, fed, fetches, replace, consts)
        _div_by_constant_rewrites(order, fed, replace, consts)
        _fused_matmul_rewrites(order, fed, fetches, replace, consts)
    _max_pool_grad_at_max_rewrites(order, fed, replace, consts, device)
    _conv_spectrum_sharing(order, fed, replace, consts, device)
    _max_pool_relu_grad_rewrites(order, fed, fetches, replace, consts)
    return replace, consts


def _try_fold(op, ins, consts, device, session_state, session, bind_kernel):
    from tideflow.runtime.executor import _list_len

    try:
        k = bind_kernel(op, device, session_state, session)
        args = []
        pos = 0
        for arg in op._op_def.inputs:
            if arg.is_list:
                n = _list_len(op, arg)
                args.append([consts[t] for t in ins[pos:pos + n]])
                pos += n
            else:
                args.append(consts[ins[pos]])
                pos += 1
        with np.errstate(all="ignore"):
            out = k(*args)
    except Exception:  # noqa: BLE001 - a failing op is left for run time to report
        return None
    od = op._op_def
    single = len(od.outputs) == 1 and not od.outputs[0].is_list
    values = [out] if single else list(out)
    if len(values) != len(op._outputs):
        return None
    if op._type == "PyFuncStateless":
        # as TF 1.15, a stateless py_func on constants runs once, when the plan is made,
        # whatever it returns (calling it again at run time would be a second call)
        return values
    total = 0
    for t, v in zip(op._outputs, values):
        if t._dtype.base_dtype == dtypes.string:
            return None
        total += getattr(v, "nbytes", 8)
    if total > MAX_FOLDED_BYTES:
        return None
    return values


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


def _constant_push_down(order, fed, fetches, replace, consts, device):
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
