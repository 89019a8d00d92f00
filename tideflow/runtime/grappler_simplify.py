"""Three of TF 1.15's arithmetic-optimizer stages that simplify what a step reads (moved out
of grappler.py, which keeps the rewrites they run among): OptimizeMaxOrMinOfMonotonic, a Max or
Min reduction of a monotonic function reducing first, RemoveInvolution, ``1 / (1 / x)`` read as
``x``, and RemoveRedundantReshape, a Reshape of a Reshape reshaping the inner one's input."""

from tideflow.runtime.graph_passes import _read_from

# TF 1.15's IsElementWiseMonotonic (op_types.cc): True for non-decreasing, False for
# non-increasing functions
_MONOTONIC = dict.fromkeys(
    ("Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Elu", "Erf", "Exp", "Expm1", "Floor",
     "Log", "Log1p", "Relu", "Relu6", "Rint", "Selu", "Sigmoid", "Sign", "Sinh", "Softsign",
     "Softplus", "Sqrt", "Tanh"), True)
_MONOTONIC.update(dict.fromkeys(("Acos", "Erfc", "Neg", "Rsqrt"), False))
_FLIP = {"Max": "Min", "Min": "Max", "ArgMax": "ArgMin", "ArgMin": "ArgMax"}


def max_min_of_monotonic(order, fed, fetches, replace, consts, device, state, session):
    """TF's arithmetic optimizer (OptimizeMaxOrMinOfMonotonic): a Max or Min reduction (or
    ArgMax/ArgMin) of an element-wise monotonic function ``f(x)`` whose only reader it is
    reduces ``x`` and applies ``f`` after, a non-increasing ``f`` flipping Max and Min:
    ``max(neg(log1p(y)))`` runs as ``neg(log1p(min(y)))``, NaN where a row of ``y`` holds one
    below -1, and ``f`` computes on the reduced values (its packets' bits); an ArgMax reads
    ``x`` itself (``argmax(sigmoid(z))`` takes the largest z where the sigmoids tie at 1).
    Neither the reduction nor ``f`` may be fetched (or fed)."""
    reds = [op for op in order if op._type in _FLIP and len(op._inputs) == 2
            and op not in replace.kernels and op._outputs[0] not in consts
            and op._outputs[0] not in fed and replace.get(op._outputs[0], op._outputs[0])
            is op._outputs[0]]
    if not reds:
        return
    from tideflow.framework import op_registry
    from tideflow.runtime.executor import bind_kernel
    from tideflow.runtime.grappler_arith import _insert_ops, _new_op

    keep = {replace.get(t, t)._op for t in fetches}
    reds = [op for op in reds if op not in keep]
    readers = {}  # op -> the ops that run reading one of its outputs (or after it)
    for op in order:
        if op._outputs and all(replace.get(t, t) is not t or t in consts for t in op._outputs):
            continue  # folded or merged away: not run
        for t in op._inputs:
            readers.setdefault(replace.get(t, t)._op, set()).add(op)
        for c in op._control_inputs:
            readers.setdefault(c, set()).add(op)
    before = {}
    for r in reds:
        t, fs, up = replace.get(r._inputs[0], r._inputs[0]), [], True
        while True:
            f = t._op
            if (f._type not in _MONOTONIC or len(f._inputs) != 1 or f in keep
                    or f in replace.kernels or t in consts or t in fed or f._control_inputs
                    or len(f._outputs) != 1 or readers.get(f) != {fs[-1] if fs else r}):
                break
            fs.append(f)
            up = up == _MONOTONIC[f._type]
            t = replace.get(f._inputs[0], f._inputs[0])
        if not fs:
            continue
        kind = r._type if up else _FLIP[r._type]
        reduce = bind_kernel(r, device, state, session, op_def=op_registry.get(kind))
        if r._type.startswith("Arg"):  # (the functions become Identity)
            fns = ()
        else:
            fns = [bind_kernel(f, device, state, session) for f in reversed(fs)]

        def kernel(inputs, reduce=reduce, fns=fns):
            v = reduce(inputs[0], inputs[1])
            for fn in fns:
                v = fn(v)
            return v

        axes = replace.get(r._inputs[1], r._inputs[1])
        new = _new_op(r, r._name, [t, axes], kernel, replace)
        _read_from(replace, r._outputs[0], new._outputs[0])
        before[new] = r
    if before:
        _insert_ops(replace, order, before)


def _reciprocal_of(op, replace):
    """The input a Reciprocal (or a Pow by -1 that ConvertPow made one) inverts, else None."""
    decl = replace.kernels.get(op)
    if op._type in ("Reciprocal", "Inv") and decl is None or (
            op._type == "Pow" and getattr(decl, "name", None) == "Reciprocal"):
        return replace.get(op._inputs[0], op._inputs[0])
    return None


def remove_involution(order, fed, fetches, replace, consts):
    """TF's arithmetic optimizer (RemoveInvolution): the readers of ``1 / (1 / x)`` read ``x``
    (not the two roundings), where the outer op is not fetched (a fetched one is computed)."""
    keep = {replace.get(t, t) for t in fetches}
    for op in order:
        if not op._outputs or op._control_inputs:
            continue
        out = op._outputs[0]
        if out in keep or out in fed or out in consts or replace.get(out, out) is not out:
            continue
        inner = _reciprocal_of(op, replace)
        if inner is None or inner in consts or inner in fed or inner._op._control_inputs:
            continue
        x = _reciprocal_of(inner._op, replace)
        if x is not None and x.dtype == out.dtype:
            _read_from(replace, out, x)


def _through_identities(t, fed, keep, replace):
    """``t`` past the Identity ops TF's dependency optimizer removes first (not fetched or fed,
    without control inputs)."""
    while (t._op._type == "Identity" and len(t._op._inputs) == 1 and t not in fed
           and t._op not in keep and not t._op._control_inputs
           and not t._dtype._is_ref_dtype):
        t = replace.get(t._op._inputs[0], t._op._inputs[0])
    return t


def reshape_of_reshape(order, fed, fetches, replace, consts):
    """TF's arithmetic optimizer (RemoveRedundantReshape): a Reshape of a Reshape reshapes the
    inner one's input, so an inner shape that would fail (a fed or variable shape of the
    wrong size) does not when nothing else reads the inner one: ``reshape(reshape(x, s),
    [2, 3])`` runs whatever ``s`` holds. Not when the inner Reshape is fetched or fed (then it
    runs and fails as written). The inner one's control inputs move to the new op, as TF
    forwards them."""
    outers = [op for op in order if op._type == "Reshape" and len(op._inputs) == 2
              and op not in replace.kernels
              and op._outputs[0] not in consts and op._outputs[0] not in fed
              and replace.get(op._outputs[0], op._outputs[0]) is op._outputs[0]]
    if not outers:
        return
    from tideflow.runtime.grappler_arith import _insert_ops, _new_op

    keep = {replace.get(t, t)._op for t in fetches}
    kernel = outers[0]._op_def.kernel
    before = {}  # the new op that reshapes the inner one's input -> the outer Reshape
    for op in outers:
        t = _through_identities(replace.get(op._inputs[0], op._inputs[0]), fed, keep, replace)
        inner = t._op  # (a new op already, where the inner one was an outer one too)
        if (inner._type != "Reshape" or t in consts or t in fed or inner in keep
                or inner._device != op._device
                or (inner in replace.kernels and inner not in before)):
            continue
        x = replace.get(inner._inputs[0], inner._inputs[0])
        if x.dtype != op._outputs[0].dtype:
            continue
        shape = replace.get(op._inputs[1], op._inputs[1])
        new = _new_op(op, op._name, [x, shape], kernel, replace, op_type="Reshape")
        new._attrs = dict(op._attrs)
        new._control_inputs = tuple(dict.fromkeys((*inner._control_inputs,
                                                   *op._control_inputs)))
        _read_from(replace, op._outputs[0], new._outputs[0])
        before[new] = op
    if before:
        _insert_ops(replace, order, before)
