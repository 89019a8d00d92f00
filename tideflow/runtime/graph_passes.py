"""Plan-time graph passes: common-subexpression elimination and constant folding (paper §5.1).

Both leave stateful and random ops alone, and neither touches the user's Graph: they return
a replacement map and folded values that the plan compiles in.
"""

import numpy as np

from tideflow.framework import dtypes, ops

# the largest folded value kept, as TF's default for constant folding
MAX_FOLDED_BYTES = 10 * 1024 * 1024
# the ops TF 1.15 declares commutative: its CSE (the classic one and grappler's) merges twins
# whose inputs are the same in another order, ``a * b`` and ``b * a`` (Maximum is not one)
_COMMUTATIVE = frozenset({"AccumulateNV2", "AddN", "AddV2", "ApproximateEqual", "BitwiseAnd",
                          "BitwiseOr", "BitwiseXor", "Equal", "LogicalAnd", "LogicalOr", "Mul",
                          "NotEqual", "SquaredDifference"})
# (as TF's constant folding: a PlaceholderWithDefault may be fed, so its default is no constant)
_NO_FOLD = {"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"}


def const_values(order):
    """The values of the Const ops in ``order`` (read-only arrays). A Const with control
    inputs that have effects stays an op of the plan, so that its consumers still run after
    those (as TF: ``with tf.control_dependencies([a]): y = x * 2.0`` orders the Mul after
    ``a`` through the Const 2.0 made inside the block). One gated on pure ops only (the
    weight of ``tf.losses``, cast under the NoOp of its static broadcast check) TF's
    constant folding takes as a constant like any other (it forwards the control inputs to
    what it folds), so its readers fold here too."""
    out = {}
    for op in order:
        if op._type == "Const" and (not op._control_inputs or _gated_on_pure(op)):
            out[op._outputs[0]] = _readonly(op._attrs["value"])
    return out


_HANDLES = frozenset({dtypes.resource, dtypes.variant})
# pure ops that a step still runs for their checks (TF forwards the control input to what it
# folds, so an unfed placeholder or a failing check still fails the step)
_CHECKS = frozenset({"CheckNumerics", "EnsureShape", "PyFuncStateless"}) | _NO_FOLD


def _gated_on_pure(op, limit=64):
    """Whether everything ``op``'s control inputs wait for (their data and control inputs,
    all the way up) is pure: no stateful or random op, no check, nothing reading a resource
    or a reference (a TensorArray's read, a cond that assigns). A Const gated so is a
    constant whose ordering no step can observe."""
    stack, seen = list(op._control_inputs), set()
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        od = c._op_def
        if od.is_stateful or od.is_random or len(seen) > limit or c._type in _CHECKS or any(
                t._dtype._is_ref_dtype or t._dtype in _HANDLES for t in c._inputs):
            return False
        stack.extend(c._control_inputs)
        stack.extend(t._op for t in c._inputs)
    return True


def _pure_controls(op, limit=64):
    """Whether ``op``'s control inputs, and theirs, are all pure ops (a gradient tuple's
    ``group_deps`` of the gradient ops it gates): TF's constant folding folds an op whatever
    its control inputs (the constant keeps them), so a loss's ``a + 0.1 * mean(b)`` seeds its
    gradients with the folded ``0.1 / n``; an op gated on a stateful one is left to run."""
    if not op._control_inputs:
        return True
    stack, seen = list(op._control_inputs), set()
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        od = c._op_def
        if od.is_stateful or od.is_random or len(seen) > limit:
            return False
        stack.extend(c._control_inputs)
    return True


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
        # an AddN the plan may sum as its inputs are computed (runtime/accumulate.py) -> the
        # declaration that sums in TF's order, run where the plan does not sum it so
        self.add_n_tf_order = {}
        self.names = {}  # tensor -> the name grappler's rewrites gave the node computing it
        self.recips = {}  # a Div by a constant run as a Mul -> the constant's reciprocal
        self.order = None  # the ops in order with the new ops a rewrite made, if any
        self.push_down = None  # op -> its node of the constant push-down, when it rotated


def _dead_ops(order, replace, fetches):
    """The ops with outputs that nothing run in the step reads any more (a Transpose whose
    twin's readers read its input now), fetched, stateful or step-taking ones aside."""
    live = {replace.get(t, t)._op for t in fetches}
    dead = set()
    for op in reversed(order):
        od = op._op_def
        if op in live or not op._outputs or od.is_stateful or od.kernel_wants_step:
            live.update(replace.get(t, t)._op for t in op._inputs)
            live.update(op._control_inputs)
        else:
            dead.add(op)
    return dead


def _uses(order, replace, consts, tensors, dead=()):
    """How many inputs of the ops that run in the step (not ``dead`` ones) read each of
    ``tensors``."""
    uses = dict.fromkeys(tensors, 0)
    for op in order:
        if op._outputs and all(replace.get(t, t) is not t or t in consts for t in op._outputs):
            continue  # folded or merged away: not run
        if op in dead:
            continue
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
        if (op._type == "Identity" and _pure_controls(op) and ins[0] in consts
                and ins[0] not in fed and op._outputs[0] not in fed):
            # (its kernel is a factory: the value passes through, as TF folds it; given
            # grad_ys reach the gradients through one)
            consts[op._outputs[0]] = consts[ins[0]]
            continue
        py_func = op._type == "PyFuncStateless"
        if (
            op._type not in _NO_FOLD
            and (_pure_controls(op)
                 or py_func and all(c._type == "Const" for c in op._control_inputs))
            and not od.kernel_wants_step
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
    from tideflow.runtime import grappler, grappler_arith, grappler_push_down, grappler_simplify

    grappler_runs = grappler.runs(order)
    fold = arith = remap = True
    if grappler_runs:
        grappler_runs, fold, arith, remap = grappler.optimizers_on(session)
    if grappler_runs and fold:
        # TF folds (and pushes constants down) before it merges common subexpressions
        grappler_simplify.no_op_reductions(order, fed, fetches, replace, consts)
        if arith:  # (TF's second round of folding sees what the arithmetic optimizer left)
            grappler_simplify.identity_transposes(order, fed, fetches, replace, consts)
            grappler_simplify.remove_involution(order, fed, fetches, replace, consts, True)
        _times_ones(order, fed, fetches, replace, consts)
        _times_zeros(order, fed, replace, consts)
        grappler.zero_addend_rewrites(order, fed, fetches, replace, consts)
        grappler_push_down.constant_push_down(order, fed, fetches, replace, consts, device)
    # --- common subexpressions
    # TF's grappler (DedupComputations) leaves a fetched node alone: it is neither merged into
    # a twin nor made the one twins merge into, and the names its merges leave decide the
    # order an AddN sums in (by name). TF's classic CSE merges fetched twins after grappler
    # is done, so they are merged here after the grappler passes too.
    fetched = {t._op for t in fetches} if fetches else ()
    late = []
    for op in cse:
        if op in replace.kernels or any(replace.get(t, t) is not t for t in op._outputs):
            continue  # rewritten above: computes something else now
        ins = [replace.get(t, t) for t in op._inputs]
        ids = tuple(id(t) for t in ins)
        if op._type in _COMMUTATIVE:
            ids = tuple(sorted(ids))
        try:
            key = (
                op._type,
                op._device,
                ids,
                tuple(sorted(c._id for c in op._control_inputs)),
                _freeze({k: v for k, v in op._attrs.items() if not k.startswith("_class")}),
            )
            hash(key)
        except TypeError:
            continue
        if op in fetched:
            late.append((op, key))
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = op
        else:
            for a, b in zip(op._outputs, first._outputs):
                replace[a] = replace.get(b, b)
    if grappler_runs:
        # (a replacement's target may have been merged into another since: the passes below
        # see each value's final tensor)
        _resolve_chains(replace)
    if grappler_runs:
        if arith:
            grappler.log_softmax_rewrites(order, fed, fetches, replace, consts)
            grappler.convert_pow(order, fed, replace, consts)
            grappler_simplify.remove_involution(order, fed, fetches, replace, consts)
            grappler_simplify.reshape_of_reshape(order, fed, fetches, replace, consts)
            grappler.sqrt_div_to_rsqrt_mul(order, fed, fetches, replace, consts)
            grappler.fuse_squared_diff(order, fed, fetches, replace, consts)
        if fold:
            grappler.div_by_constant_rewrites(order, fed, replace, consts)
        if remap:
            grappler.fused_matmul_rewrites(order, fed, fetches, replace, consts)
        if arith:
            grappler_arith.mul_square_names(order, fed, replace, consts)
            grappler_arith.arithmetic_stages(order, fed, fetches, replace, consts, device)
            grappler.add_n_order(order, fed, replace, consts, device, fetches, fold)
            grappler.log1p_expm1_rewrites(order, fed, replace, consts)
            grappler_simplify.max_min_of_monotonic(order, fed, fetches, replace, consts, device,
                                          session_state, session)
    if late:
        at = {op: i for i, op in enumerate(order)}
    for op, key in late:
        if op in replace.kernels or any(replace.get(t, t) is not t for t in op._outputs):
            continue
        first = seen.setdefault(key, op)
        if first is op or first in replace.kernels:
            continue
        if at[first] > at[op]:  # (the earlier of the two computes both: the order holds)
            if any(replace.get(t, t) is not t for t in first._outputs):
                continue
            seen[key], op, first = op, first, op
        for a, b in zip(op._outputs, first._outputs):
            replace[a] = replace.get(b, b)
    _max_pool_grad_at_max_rewrites(order, fed, replace, consts, device)
    _conv_spectrum_sharing(order, fed, replace, consts, device)
    _max_pool_relu_grad_rewrites(order, fed, fetches, replace, consts)
    # (the ops rewrites added read values too: a new Reshape may be a loss's reader)
    _unread_loss_rewrites(replace.order or order, fed, fetches, replace, consts, device)
    _resolve_chains(replace)
    return replace, consts


def _resolve_chains(replace):
    """Each replaced tensor read straight from the tensor that finally holds its value: a
    rewrite may map to a tensor that a later pass merged or replaced in turn (x * ones -> x,
    then x merged into its common subexpression), and a plan reads one step of the map."""
    for t, r in replace.items():
        seen = 0
        while r in replace and replace[r] is not r and seen < 64:
            r = replace[r]
            seen += 1
        replace[t] = r


def _all_ones(v):
    return (isinstance(v, np.ndarray) and v.dtype.kind in "fc" and v.size
            and bool(np.all(v == 1)))


def _times_ones(order, fed, fetches, replace, consts):
    """TF 1.15's grappler (constant folding's SimplifyArithmeticOperations): a float Mul by
    a constant of ones whose other operand has the output's (fully known) shape is that
    operand itself. The sum of a gradient's terms then reads it (a ``reduce_sum`` loss seeds
    ones: ``x * x`` gives ``x`` twice), as TF's AddN does, whose input order (by name) and
    forwarded buffer follow. (An AddV2 of zeros TF 1.15 leaves alone: ``-0.0 + 0`` is 0.)"""
    keep = {replace.get(t, t) for t in fetches}
    # (an operand this plan computes: not a fed one, nor one a partition receives)
    here = set(order)
    for op in order:
        if op._type != "Mul" or len(op._inputs) != 2 or op._control_inputs:
            continue
        out = op._outputs[0]
        if out in consts or out in fed or out in keep or replace.get(out, out) is not out:
            continue
        if not out._shape.is_fully_defined():
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        for i in (0, 1):
            c, other = ins[i], ins[1 - i]
            # (not a fed operand: TF's shape inference does not know a fed tensor's shape, so
            # ones * x of a fed complex x is multiplied there: (1+0j) * (1-0j) is 1+0j)
            if (c in consts and c not in fed and other not in consts
                    and other not in fed and other._op in here
                    and _all_ones(consts[c]) and other._dtype == out._dtype
                    and other._shape.is_fully_defined()
                    and other._shape.as_list() == out._shape.as_list()):
                replace[out] = other
                break


# the products constant folding turns into zeros when an operand is a constant of zeros
_ZERO_PRODUCTS = frozenset({"Mul", "MatMul", "BatchMatMul"})


def _times_zeros(order, fed, replace, consts):
    """TF 1.15's grappler (constant folding's SimplifyArithmeticOperations): a float Mul or
    MatMul with a constant operand of zeros is a constant of zeros when its output's shape is
    fully known to grappler (not computed from a fed tensor), whatever the other operand
    holds: ``v * 0.`` of a variable holding inf or NaN is 0 there, not NaN."""
    from tideflow.runtime import grappler_arith

    shapes = None
    for op in order:
        if op._type not in _ZERO_PRODUCTS or len(op._inputs) != 2 or op._control_inputs:
            continue
        out = op._outputs[0]
        if (out in consts or out in fed or replace.get(out, out) is not out
                or np.dtype(out._dtype.base_dtype.as_numpy_dtype).kind not in "fc"
                or not out._shape.is_fully_defined()):
            continue
        ins = [replace.get(t, t) for t in op._inputs]
        zero = [t in consts and t not in fed and _all_zeros(consts[t]) for t in ins]
        if not any(zero):
            continue
        # (an operand TF folds, constants alone up its inputs, makes the product folded
        # as computed: 0 * inf is NaN there)
        if any(not z and (t in consts or ops.constant_rooted(t._op)) for t, z in zip(ins, zero)):
            continue
        if shapes is None:
            shapes = grappler_arith._Shapes(order, grappler_arith._Ids(replace, consts, fed),
                                            consts)
        if shapes.of(out) is None:
            continue
        consts[out] = _readonly(np.zeros(out._shape.as_list(), out._dtype.as_numpy_dtype))


def _all_zeros(v):
    return (isinstance(v, np.ndarray) and v.dtype.kind in "fc" and v.size
            and not np.any(v))


# ops that read only the shape (and dtype) of an input, never its values
_SHAPE_READERS = frozenset({"Shape", "ShapeN", "Size", "Rank", "ZerosLike", "OnesLike"})
# ops whose first input's values reach only their output (read only if that output is)
_PASS_THROUGH = frozenset({"Identity", "Reshape", "ExpandDims", "Squeeze"})


def _unread_loss_rewrites(order, fed, fetches, replace, consts, device):
    """A fused softmax cross-entropy whose loss values nothing reads runs a kernel that
    leaves the loss out (an unset vector of its shape stands for it): a training step that
    fetches only the train op reads the backprop, and the Mean's gradient only the loss's
    shape (through a Reshape, for the public wrappers' rank handling). Only where the loss
    is neither fed nor fetched and the op runs its own kernel."""
    if device is not None and not getattr(device, "is_host", True):
        return  # (the host's NumPy kernels only)
    import copy

    from tideflow.ops import nn_ops

    losses = {}
    for op in order:
        kernel = nn_ops.UNREAD_LOSS_KERNELS.get(op._type)
        if kernel is None or op in replace.kernels:
            continue
        loss = op._outputs[0]
        if loss in fed or loss in consts or replace.get(loss, loss) is not loss:
            continue
        losses[loss] = (op, kernel)
    if not losses:
        return
    readers = {}
    for op in order:
        if op._outputs and all(replace.get(t, t) is not t or t in consts for t in op._outputs):
            continue  # folded or merged away: not run
        for i, t in enumerate(op._inputs):
            readers.setdefault(replace.get(t, t), []).append((op, i))
    kept = {replace.get(t, t) for t in fetches}

    def values_read(t, depth=0):
        if t in kept or t in fed or depth > 8:
            return True
        for op, i in readers.get(t, ()):
            if op._type in _SHAPE_READERS:
                continue
            if op._type in _PASS_THROUGH and i == 0 and op not in replace.kernels:
                if any(values_read(o, depth + 1) for o in op._outputs):
                    return True
                continue
            return True
        return False

    for loss, (op, kernel) in losses.items():
        if not values_read(loss):
            decl = copy.copy(op._op_def)
            decl.kernel = kernel
            replace.kernels[op] = decl


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
