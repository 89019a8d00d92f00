"""Three of TF 1.15's arithmetic-optimizer stages that simplify what a step reads (moved out
of grappler.py, which keeps the rewrites they run among): OptimizeMaxOrMinOfMonotonic, a Max or
Min reduction of a monotonic function reducing first, RemoveInvolution, ``1 / (1 / x)`` read as
``x``, and RemoveRedundantReshape, a Reshape of a Reshape reshaping the inner one's input; and
constant folding's removal of a Sum over no axes and a Reshape to the shape it has, and
RemoveIdentityTranspose."""

import numpy as np

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


_INVOLUTIONS = frozenset({"Neg", "Conj", "LogicalNot", "Invert"})


def _negation_of(op, replace):
    """The input an involution other than Reciprocal (``-x``, ``~x``) maps, else None."""
    if op._type in _INVOLUTIONS and len(op._inputs) == 1 and op not in replace.kernels:
        return replace.get(op._inputs[0], op._inputs[0])
    return None


def remove_involution(order, fed, fetches, replace, consts, negations=False):
    """TF's arithmetic optimizer (RemoveInvolution): the readers of ``1 / (1 / x)`` read ``x``
    (not the two roundings), where the outer op is not fetched (a fetched one is computed).
    With ``negations``, of ``-(-x)`` and the other involutions (the same value), before the
    constant push-down, which TF's second round of folding applies across them:
    ``-(-(v * 2.)) * 3.`` is ``v * 6.`` there."""
    of = _negation_of if negations else _reciprocal_of
    keep = {replace.get(t, t) for t in fetches}
    for op in order:
        if not op._outputs or op._control_inputs:
            continue
        out = op._outputs[0]
        if out in keep or out in fed or out in consts or replace.get(out, out) is not out:
            continue
        inner = of(op, replace)
        if inner is None or inner in consts or inner in fed or inner._op._control_inputs:
            continue
        x = of(inner._op, replace)
        if x is not None and x.dtype == out.dtype and (
                not negations or inner._op._type == op._type):
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


def _fits(dims, shape):
    return (dims is not None and None not in dims and len(dims) == len(shape)
            and all(int(d) == -1 or int(d) == k for d, k in zip(shape, dims)))


def no_op_reductions(order, fed, fetches, replace, consts):
    """TF's constant folding (SimplifyReduction, IsSimplifiableReshape): a Sum over a constant
    of no axes (a broadcast's gradient where the shapes agree) and a Reshape to a constant
    shape that the input's, fully known to grappler, already has are Identities, which the
    dependency optimizer then removes: their readers read the input, so the constant
    push-down reaches across them (``x * 3. / 7.``'s gradient multiplies by 6 / 7 once).
    Not a fetched one (TF keeps that node)."""
    found = [op for op in order if op._type in ("Sum", "Reshape") and len(op._inputs) == 2
             and not op._control_inputs and op not in replace.kernels
             and replace.get(op._inputs[1], op._inputs[1]) in consts
             and op._outputs[0] not in consts and op._outputs[0] not in fed
             and replace.get(op._outputs[0], op._outputs[0]) is op._outputs[0]]
    if not found:
        return
    from tideflow.runtime.grappler import _fed_derived, _grappler_dims

    keep = {replace.get(t, t) for t in fetches}
    derived = None
    for op in found:
        out = op._outputs[0]
        x = replace.get(op._inputs[0], op._inputs[0])
        arg = np.asarray(consts[replace.get(op._inputs[1], op._inputs[1])])
        if out in keep or x in fed or x._dtype != out._dtype:
            continue
        if op._type == "Sum":
            if arg.size:
                continue
        else:
            if derived is None:
                derived = _fed_derived(order, fed, replace)
            if arg.ndim != 1 or not _fits(_grappler_dims(x, derived, consts), arg.tolist()):
                continue
        _read_from(replace, out, x)


def _perm(op, replace, consts):
    """The constant permutation of a Transpose (or ConjugateTranspose), else None."""
    if op._type not in ("Transpose", "ConjugateTranspose") or len(op._inputs) != 2:
        return None
    p = replace.get(op._inputs[1], op._inputs[1])
    return [int(i) for i in np.ravel(consts[p])] if p in consts else None


def identity_transposes(order, fed, fetches, replace, consts):
    """TF's arithmetic optimizer (RemoveIdentityTranspose): a Transpose by the identity
    permutation, or a Transpose of a Transpose (conjugate ones paired alike) whose
    permutations cancel, is its input to its readers, where grappler knows the input's rank
    (not a fed one's) and neither Transpose is fetched; the constant push-down then reaches
    across (``transpose(transpose(v * 3.1)) * 5.3`` is ``v * 16.43`` there)."""
    found = [op for op in order if op._type in ("Transpose", "ConjugateTranspose")
             and not op._control_inputs and op not in replace.kernels
             and op._outputs[0] not in consts and op._outputs[0] not in fed
             and replace.get(op._outputs[0], op._outputs[0]) is op._outputs[0]]
    if not found:
        return
    from tideflow.runtime.grappler import _fed_derived, _grappler_dims

    keep = {replace.get(t, t) for t in fetches}
    derived = None
    for op in found:
        out, p2 = op._outputs[0], _perm(op, replace, consts)
        x = replace.get(op._inputs[0], op._inputs[0])
        if p2 is None or out in keep or x in fed or x._dtype != out._dtype:
            continue
        if p2 == list(range(len(p2))):
            if op._type != "Transpose":
                continue  # (a ConjugateTranspose by it still conjugates)
        else:
            p1 = _perm(x._op, replace, consts)
            if (p1 is None or x._op._type != op._type or x in keep or x in consts
                    or x._op._control_inputs or len(p1) != len(p2)
                    or any(p1[p2[i]] != i for i in range(len(p2)))):
                continue
            x = replace.get(x._op._inputs[0], x._op._inputs[0])
            if x in fed:
                continue
        if derived is None:
            derived = _fed_derived(order, fed, replace)
        if _grappler_dims(x, derived, consts) is not None:
            _read_from(replace, out, x)
