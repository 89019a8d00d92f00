"""Gradients through control flow (paper §4.1 with §4.4), as TF 2's functional control flow.

If: the gradient is an If of the branches' gradient functions. The forward intermediates a
branch gradient needs become extra outputs of the forward If (the other branch outputs a
FakeParam there, never read: the gradient If takes the same branch), so nothing of the
forward pass (a dropout mask, say) is recomputed.

While: the gradient is a While running the body's gradient backwards, once per forward
iteration. The forward loop gets a counter and, for each forward value the body's gradient
needs, an accumulator loop variable (a TensorList pushed once per iteration), added to the
forward op in place; the backward loop pops them. Loop-invariant captures are read directly
and their gradients are summed over the iterations.
"""

from contextlib import nullcontext

from tideflow.framework import dtypes, func_graph, nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops, constant_op, list_ops, math_ops
from tideflow.ops import cond as cond_lib
from tideflow.ops import gradients as gradients_lib
from tideflow.ops.gradients import dense


def _differentiable(t):
    # (a variable a body reads with read_value() is captured by its ref, or by its handle (a
    # resource variable's): its gradient is the variable's)
    d = t._dtype.base_dtype
    return d.is_floating or d.is_complex or d == dtypes.variant or d == dtypes.resource


def _value_type(t):
    """(dtype, static shape) of ``t``'s gradient: a resource variable's handle's are its
    variable's."""
    if t._dtype == dtypes.resource:
        from tideflow.ops.resource_variable_ops import _var_shape, handle_var_op

        var_op = handle_var_op(t)
        if var_op is not None:
            return var_op._attrs["dtype"], _var_shape(t)
    return t._dtype.base_dtype, t._shape


def _append_output(op, t, shape_attr="output_shapes", type_attr="Tout"):
    """Adds an output of ``t``'s dtype and shape to ``op`` (attrs updated); returns it."""
    dtype = t._dtype.base_dtype
    op._attrs[type_attr] = [*op._attrs[type_attr], dtype]
    shapes = op._attrs.get(shape_attr)
    if shapes:
        op._attrs[shape_attr] = [*shapes, t._shape]
    return op._add_output(dtype, t._shape)


# ------------------------------------------------------------------------------------------
# If
# ------------------------------------------------------------------------------------------


def _if_resolver(op, fg, other):
    """Maps tensors of branch ``fg`` to tensors of ``op``'s graph carrying their values."""

    def resolve(t):
        if t._op._graph is not fg:
            return t
        for k, a in enumerate(fg.args):
            if a is t:
                return op._inputs[1 + k]
        for i, o in enumerate(fg.outputs):
            if o is t:
                return op._outputs[i]
        # expose the intermediate as a new output of the forward If
        fg.outputs.append(t)
        with other.control_dependencies(None):
            other.outputs.append(cond_lib.fake_param(t._dtype, t._shape, graph=other))
        return _append_output(op, t)

    return resolve


def _branch_grad(op, fg, other, grad_idx, grads, x_idx, name):
    """The gradient function of branch ``fg`` and its results; also how many ops TF 1.15's
    gradient of the branch makes (the ops its gradient walk made, but the placeholders of the
    function: TF's branch reads its tensors directly)."""
    gfg = func_graph.FuncGraph(name, ops.get_default_graph())
    gfg._resolver = _if_resolver(op, fg, other)
    with gfg.as_default():
        gys = [gfg.make_placeholder(grads[i]._dtype.base_dtype, grads[i]._shape, "grad")
               for i in grad_idx]
        gfg.inputs = gys
        n0 = len(gfg._ops)
        with gradients_lib.seed_identities_off():
            res = gradients_lib.gradients([fg.outputs[i] for i in grad_idx],
                                          [fg.args[k] for k in x_idx], grad_ys=gys,
                                          gate_gradients=gradients_lib.gating_active())
        counts = _tf_op_counts(gfg)
        n_tf = sum(counts.get(o, 1) for o in gfg._ops[n0:] if o._type != "Placeholder")
        raw = res
        # (IndexedSlices stay sparse: _build_if_grad returns them as such where both branches'
        # are, and densifies them otherwise)
        res = [None if r is None or _sparse(r) else gfg.capture(dense(r)) for r in res]
    return gfg, res, n_tf, raw


def _sparse_kind(a, b):
    """Where the branches' gradients of an input are IndexedSlices (or one has none): the
    dtypes of their indices and dense shape (None: without one), as the If returns them (TF's
    cond merges slices as slices); else None."""
    sides = [r for r in (a, b) if r is not None]
    if not sides or not all(_sparse(r) for r in sides):
        return None
    kinds = {r.indices._dtype.base_dtype for r in sides}
    index_dtype = kinds.pop() if len(kinds) == 1 else dtypes.int64
    shape_dtype = None
    if all(r.dense_shape is not None for r in sides):
        kinds = {r.dense_shape._dtype.base_dtype for r in sides}
        shape_dtype = kinds.pop() if len(kinds) == 1 else dtypes.int64
    return index_dtype, shape_dtype


def _sparse_parts(r, other, arg, index_dtype, shape_dtype):
    """A branch's IndexedSlices gradient of ``arg`` as the If's outputs (values, indices and
    maybe dense shape), as TF 1.x's cond merges them: each branch that gave slices (``r``
    here, ``other`` in the other branch) has a Switch whose gradient, when that branch is
    not taken, is zeros for all of ``arg``'s rows (indices 0..n-1); the input's gradient is
    the slices of them all (so an optimizer's sparse update touches every row)."""
    from tideflow.ops import cast_ops, range_ops

    def as_dtype(t, dtype):
        return t if t._dtype.base_dtype == dtype else cast_ops.cast(t, dtype)

    shape = array_ops.shape(arg)
    pieces = []
    if r is not None:
        pieces.append((r.values, as_dtype(r.indices, index_dtype), r.dense_shape))
    if other is not None:
        rows = as_dtype(range_ops.range(shape[0]), index_dtype)
        pieces.append((array_ops.zeros_like(arg), rows, shape))
    if len(pieces) == 1:
        values, indices, dense_shape = pieces[0]
    else:
        values = array_ops.concat([p[0] for p in pieces], 0)
        indices = array_ops.concat([p[1] for p in pieces], 0)
        dense_shape = pieces[0][2]
    parts = [values, indices]
    if shape_dtype is not None:
        parts.append(as_dtype(shape if dense_shape is None else dense_shape, shape_dtype))
    return parts


def _tf_op_counts(graph):
    """op -> how many ops TF 1.15 makes for it, for gradient Ifs built inside another If's
    gradient (their ids are set aside: the outermost one counts them all)."""
    root = getattr(graph, "_root", None) or graph
    return root.__dict__.setdefault("_tf_grad_op_counts", {})


def _named_identity(t, name):
    """An Identity giving ``t`` TF 1.x's name: no op of TF's count (the gradient bodies that
    count their ops for TF's count skip it)."""
    out = array_ops.identity(t, name=name)
    _tf_op_counts(out._op._graph)[out._op] = 0
    return out


def _switch_grad_ops(g):
    """TF 1.15's ops for one Switch of a cond output's gradient (its Merge's gradient)."""
    if isinstance(g, gradients_lib.IndexedSlices):
        return 2 + (g.dense_shape is not None)
    return 1


def _sparse(g):
    return isinstance(g, gradients_lib.IndexedSlices)


def _capture_grad_ops(g):
    """TF 1.15's ops for the gradient of one branch's Switch of a captured tensor: the zeros of
    its other side (Switch, Identity, Shape, Const, Fill) and a Merge; for IndexedSlices the
    zeros become IndexedSlices (a Shape, a strided slice of 4 ops, a range of 3) and each part
    has its Merge."""
    if _sparse(g):
        return 5 + 8 + 2 + (g.dense_shape is not None)
    return 6


def _gradient_terms(t, between):
    """How many gradients ``t`` gets in this gradient walk (its uses by ops in between with a
    differentiable output: a comparison's gets none)."""
    return sum(1 for c in t.consumers() if (between is None or c in between)
               and any(_differentiable(o) for o in c._outputs) for u in c._inputs if u is t)


def _if_grad(op, *grads):
    """The gradient If. Its ops (and its branches') take ids set aside; then the graph's count
    skips as many ids as TF 1.15's Switch/Merge gradient makes, so later random ops draw TF's
    seeds: a Switch per output gradient (and a tuple gate of 3 under GATE_OP), the branches'
    gradient ops, for each branch that captured an input with a gradient 6 ops (the zeros of
    the other side of its Switch: Switch, Identity, Shape, Const, Fill; and a Merge), and an
    AddN where both branches' gradients of one input are all it gets (skipped when tf.gradients
    sums that input's gradients: gradients_lib.count_tf_sum)."""
    graph = op._graph
    nested = graph._next_id >= ops.Graph.ASIDE_IDS  # inside another If's gradient
    first = graph._next_id
    with _null_ctx() if nested else graph.aside_ids():
        gop, out, n_tf = _build_if_grad(op, grads, nested)
    if gop is None:
        return out
    if op in graph.__dict__.get("_tf_case_ifs", ()):
        # tf.switch_case's conds: TF 1.15's gradient is one Case op and an Identity per input
        # gradient
        n_tf = 1 + sum(g is not None for g in out)
        out = _named_case_grads(op, out, nested)
        for g in out:
            if g is not None:
                g._tf_sum_ids = 0
    if nested:
        _tf_op_counts(graph)[gop] = n_tf
    else:
        graph._skip_op_ids(to=first + n_tf)
    return out


class _null_ctx:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _build_if_grad(op, grads, nested=True):
    graph = op._graph
    then_fg = func_graph.lookup_function(graph, op._attrs["then_branch"])
    else_fg = func_graph.lookup_function(graph, op._attrs["else_branch"])
    n_out = len(grads)
    grad_idx = [i for i in range(n_out)
                if grads[i] is not None and _differentiable(op._outputs[i])]
    n_in = len(op._inputs)
    if not grad_idx:
        return None, [None] * n_in, 0
    n_tf = sum(_switch_grad_ops(grads[i]) for i in grad_idx)
    if gradients_lib.gating_active():
        # TF 1.15 gates each Merge's two branch gradients (tuple: group_deps and two
        # control_dependency Identities)
        n_tf += 3 * len(grad_idx)
    grads = [None if g is None else dense(g) for g in grads]
    between = gradients_lib.between_active()
    # (inputs no x depends on get no gradient: TF's walk never reaches their Switches)
    x_idx = [k for k in range(n_in - 1) if _differentiable(op._inputs[1 + k])
             and (between is None or op._inputs[1 + k]._op in between)]
    base = op._name.replace("/", "_")
    branches = []
    for fg, other, tag in ((then_fg, else_fg, "true"), (else_fg, then_fg, "false")):
        name = func_graph.unique_function_name(graph, f"{base}_{tag}_grad")
        branches.append(_branch_grad(op, fg, other, grad_idx, grads, x_idx, name))
    (gthen, rthen, nthen, rthen_raw), (gelse, relse, nelse, relse_raw) = branches
    n_tf += nthen + nelse
    summed = {}  # TF sums the two Switches' gradients: an AddN, or two concats of slices
    for m, k in enumerate(x_idx):
        sides = [r for r in (rthen_raw[m], relse_raw[m]) if r is not None]
        if getattr(ops.get_default_graph(), "_tf_loop_grad", False):
            # in a loop's gradient TF's zeros of the other side are a Const (or ZerosLike), a
            # Switch and the Merge
            n_tf += 3 * len(sides)
        else:
            n_tf += sum(_capture_grad_ops(r) for r in sides)
        if len(sides) == 2:
            extra = 4 if all(_sparse(r) for r in sides) else 1
            if not nested:
                summed[m] = extra  # counted where the input's gradients are summed
            elif _gradient_terms(op._inputs[1 + k], between) == 1:
                n_tf += extra
    keep = [m for m in range(len(x_idx))
            if rthen_raw[m] is not None or relse_raw[m] is not None]
    sparse = {m: _sparse_kind(rthen_raw[m], relse_raw[m]) for m in keep}
    sparse = {m: kind for m, kind in sparse.items() if kind is not None}
    for gfg, res, raw, other, fg in ((gthen, rthen, rthen_raw, relse_raw, then_fg),
                                     (gelse, relse, relse_raw, rthen_raw, else_fg)):
        with gfg.as_default():
            outs = []
            for m in keep:
                arg = fg.args[x_idx[m]]
                if m in sparse:
                    outs += [gfg.capture(t)
                             for t in _sparse_parts(raw[m], other[m], arg, *sparse[m])]
                    continue
                r = res[m]
                if r is None and raw[m] is not None:  # slices, the other branch's dense
                    r = gfg.capture(dense(raw[m]))
                if r is None:
                    r = (list_ops.zeros_like(arg) if arg._dtype.base_dtype == dtypes.variant
                         else array_ops.zeros_like(arg))
                outs.append(gfg.capture(r))
            gfg.outputs = outs
            gfg.structured_outputs = outs
    gop = cond_lib.build_if(op._inputs[0], gthen, gelse, "If",
                            inputs=[grads[i] for i in grad_idx])
    out = [None] * n_in
    pos = 0
    for m in keep:
        if m in sparse:
            n = 2 + (sparse[m][1] is not None)
            parts = gop._outputs[pos:pos + n]
            g = gradients_lib.IndexedSlices(parts[0], parts[1], parts[2] if n == 3 else None)
            pos += n
        else:
            g = gop._outputs[pos]
            pos += 1
        g = _named_cond_grad(op, then_fg, else_fg, op._inputs[1 + x_idx[m]], g,
                             [rthen_raw[m], relse_raw[m]], between)
        out[1 + x_idx[m]] = g
        if m in summed:
            g._tf_sum_ids = summed[m]  # see gradients_lib.count_tf_sum
    return gop, out, n_tf


def _named_case_grads(op, out, nested):
    """tf.switch_case's input gradients as TF 1.15's Case gradient names them: an Identity
    per input gradient ('gradients/switch_case/indexed_case_grad/Identity_1:0')."""
    graph = ops.get_default_graph()
    scope = graph.get_name_scope()
    own = f"{op._name}_grad"
    if not scope.endswith(own) or not op._name.endswith("/cond"):
        return out
    out = list(out)
    with _null_ctx() if nested else graph.aside_ids(), ops.name_scope(
            f"{scope[: -len(own)]}{op._name[: -len('/cond')]}_grad/"):
        k = 0
        for i, g in enumerate(out):
            if g is not None and not _sparse(g):
                out[i] = _named_identity(g, "Identity" + (f"_{k}" if k else ""))
                k += 1
    return out


def _live_gradient_terms(t, between):
    """How many gradients ``t`` gets that are not None in this walk: those of its uses by ops
    whose outputs reach the ys through differentiable tensors (a slice a comparison reads
    gives none)."""

    seen = {}

    def reaches(op, depth):
        if op in seen:
            return seen[op]
        outs = [o for o in op._outputs if _differentiable(o)]
        seen[op] = bool(outs)  # (a cycle, or a path met again, counts as reaching)
        if outs and depth:
            nxt = [c for o in outs for c in o.consumers() if between is None or c in between]
            seen[op] = not nxt or any(reaches(c, depth - 1) for c in nxt)
        return seen[op]

    return sum(1 for c in t.consumers() if (between is None or c in between)
               and reaches(c, 8) for u in c._inputs if u is t)


def _tf_output_switches(op, then_fg, else_fg):
    """{(branch, outer tensor): TF 1.x's Switch} for the outer tensors a branch returns as
    they are: a Switch each in the cond's scope after its predicate's ('cond/Switch_1'),
    the true branch's first."""
    out, n = {}, 1
    for fg in (then_fg, else_fg):
        read = {t for o in fg._ops for t in o._inputs}
        for t in fg.outputs:
            src = fg._capture_sources.get(t)
            if src is not None and t not in read and (fg, src) not in out:
                out[(fg, src)] = f"{op._name}/Switch_{n}"
                n += 1
    return out


def _named_cond_grad(op, then_fg, else_fg, x, g, sides, between):
    """Input ``x``'s gradient ``g`` through Identity ops named as TF 1.x's: the Merge of its
    Switch's gradient where one branch gives it one ('gradients/cond/mul/Switch_1_grad/
    cond_grad:0'; slices: cond_grad/Merge, Merge_1, Merge_2), the AddN of the two where both
    do and nothing else adds to it ('gradients/AddN:0'). (Made among the ids set aside.)"""
    graph = ops.get_default_graph()
    scope = graph.get_name_scope()
    own = f"{op._name}_grad"
    if not scope.endswith(own) or op in op._graph.__dict__.get("_tf_case_ifs", ()):
        return g  # (tf.switch_case's: named as its Case op's, see _named_case_grads)
    root = scope[: -len(own)]
    given = [fg for fg, r in zip((then_fg, else_fg), sides) if r is not None]
    if len(given) == 2:
        if _sparse(g) or _live_gradient_terms(x, between) != 1:
            return g
        with ops.name_scope(root or None):
            return _named_identity(g, "AddN")
    switch = None
    if given:
        switch = _tf_enter_names(given[0], None, "Switch").get(x) or _tf_output_switches(
            op, then_fg, else_fg).get((given[0], x))
    if switch is None:
        return g
    with ops.name_scope(f"{root}{switch}_grad/"):
        if not _sparse(g):
            return _named_identity(g, "cond_grad")
        with ops.name_scope("cond_grad"):
            parts = [_named_identity(g.values, "Merge"), _named_identity(g.indices, "Merge_1")]
            if g.dense_shape is not None:
                parts.append(_named_identity(g.dense_shape, "Merge_2"))
        return gradients_lib.IndexedSlices(*parts)


# ------------------------------------------------------------------------------------------
# While
# ------------------------------------------------------------------------------------------


class _LoopState:
    """Per forward While: where its counter and accumulators are among its loop variables."""

    def __init__(self):
        self.counter = None
        self.accs = {}  # forward body tensor -> index of its accumulator


def _state(body_fg):
    st = getattr(body_fg, "_grad_loop_state", None)
    if st is None:
        st = body_fg._grad_loop_state = _LoopState()
    return st


def _add_loop_var(op, cond_fg, body_fg, init, make_next, name):
    """Appends a loop variable (``init`` -> ``make_next(placeholder)``) to a forward While."""
    ph = body_fg.add_extra_arg(init._dtype.base_dtype, init._shape, name)
    with body_fg.as_default(), body_fg.control_dependencies(None):
        nxt = make_next(ph)
    body_fg.outputs.append(nxt)
    cond_fg.add_extra_arg(init._dtype.base_dtype, init._shape, name)
    op._add_input(init)
    _append_output(op, init, type_attr="T")
    return len(op._outputs) - 1


def _in_graph(graph):
    """Enters ``graph`` for ops that belong to it, free of its current control dependencies."""

    class _Ctx:
        def __enter__(self):
            self._a = graph.as_default()
            self._a.__enter__()
            self._b = graph.control_dependencies(None)
            self._b.__enter__()

        def __exit__(self, *exc):
            self._b.__exit__(*exc)
            self._a.__exit__(*exc)
            return False

    return _Ctx()


def _ensure_counter(op, cond_fg, body_fg):
    st = _state(body_fg)
    if st.counter is None:
        with _in_graph(op._graph), ops.name_scope(op._name + "/"):
            init = ops.convert_to_tensor(0, dtype=dtypes.int32, name="iteration_count")
        st.counter = _add_loop_var(op, cond_fg, body_fg, init, lambda c: c + 1, "counter")
    return st.counter


def _ensure_accumulator(op, cond_fg, body_fg, t):
    st = _state(body_fg)
    idx = st.accs.get(t)
    if idx is None:
        with _in_graph(op._graph), ops.name_scope(op._name + "/"):
            init = list_ops.empty_tensor_list(t._shape, t._dtype.base_dtype, name="accumulator")
        idx = _add_loop_var(op, cond_fg, body_fg, init,
                            lambda acc: list_ops.push_back(acc, t), "accumulator")
        # as TF 1.x's stacks: no gradient flows through an accumulator (tf.gradients does not
        # follow it from the forward loop into the gradient loop that pops it)
        op._outputs[idx]._loop_accumulator = True
        st.accs[t] = idx
    return idx


def _while_resolver(op, cond_fg, body_fg, gbody, pops, reads=None, consts=None):
    """Maps forward body tensors to the backward body: invariants directly (``reads`` collects
    which), others popped."""
    captures = {ph: j for j, (_, ph) in enumerate(body_fg.captures)}
    n_loop = len(body_fg.inputs)
    copies = {}

    def resolve(t):
        if t._op._graph is not body_fg:
            return t
        j = captures.get(t)
        if j is not None:
            if reads is not None:
                reads.add(j)
            return op._inputs[n_loop + j]
        if t._op._type == "Const":
            # a constant is copied into the backward body, not accumulated (as TF's while_v2
            # does): the same value without a push and a pop every iteration
            c = copies.get(t)
            if c is None:
                with _in_graph(gbody):
                    c = copies[t] = constant_op.constant(t._op._attrs["value"],
                                                         dtype=t._dtype.base_dtype)
                if consts is not None:
                    consts.append(c)
            return c
        idx = _ensure_accumulator(op, cond_fg, body_fg, t)
        with _in_graph(gbody):
            ph = gbody.add_extra_arg(dtypes.variant, [], "accumulator")
            rest, value = list_ops.pop_back(ph, t._dtype.base_dtype, t._shape)
        value.set_shape(t._shape)
        pops.append((op._outputs[idx], ph, rest, value))
        return value

    return resolve


def _plain_loop(cond_fg, body_fg, dead=frozenset()):
    """Whether a loop's body and condition hold no control flow but plain conds (or conds in
    ``dead``, which get no gradient), and no TensorLists but TensorArray reads and writes (its
    TF 1.15 gradient's op count is then known: see _while_grad)."""
    for fg in (cond_fg, body_fg):
        extra = set(fg.extra_args)  # (the accumulators an earlier gradient added)
        for o in fg._ops:
            if (o._outputs and o._outputs[0] in extra) or (
                    o._type == "TensorListPushBack" and o._inputs[0] in extra):
                continue
            if o._type in _TA_BODY_OPS or o._type == "Placeholder":
                continue  # a TensorArray's read or write (TF's counts: _TA_GRAD_OPS)
            if o._type == "If" and o not in dead and not _plain_cond(o):
                return False
            if o._type in _NESTED_FLOW or any(t._dtype.base_dtype == dtypes.variant
                                              for t in o._outputs):
                return False
    return True


def _dead_conds(op, body_fg, grads):
    """The conds of a loop body no gradient reaches: none of their inputs depends on a loop
    variable that gets a gradient, nor on an outside tensor some x reaches (raw_rnn's
    ``loop_fn`` choosing its next input from an input TensorArray, or zeros when all rows are
    done). TF 1.15's gradient makes no ops for them, whatever their branches hold."""
    conds = [o for o in body_fg._ops if o._type == "If" and not _plain_cond(o)]
    between = gradients_lib.between_active()
    if not conds or between is None:
        return frozenset()
    n_loop = len(body_fg.inputs)
    seeds = {i for i in range(n_loop) if grads[i] is not None}
    reached = _reached_loop_vars(op, body_fg, between)
    live = _live_loop_vars(body_fg, seeds & reached) & reached
    sources = [body_fg.inputs[i] for i in live] + [
        ph for j, (_, ph) in enumerate(body_fg.captures)
        if n_loop + j < len(op._inputs) and op._inputs[n_loop + j]._op in between]
    touched, todo = set(), [c for t in sources for c in t.consumers()]
    while todo:
        o = todo.pop()
        if o not in touched:
            touched.add(o)
            todo.extend(c for t in o._outputs for c in t.consumers())
    return frozenset(o for o in conds if o not in touched)


def _plain_cond(op):
    """A cond in a loop body whose TF 1.15 gradient's count is known: no nested control flow
    or TensorArrays in its branches, and fully known shapes (TF's zeros of an untaken side
    are then Consts)."""
    if any(not t._shape.is_fully_defined() for t in list(op._inputs) + list(op._outputs)):
        return False
    for name in ("then_branch", "else_branch"):
        fg = func_graph.lookup_function(op._graph, op._attrs[name])
        if any(o._type in ("If", "While") or any(t._dtype.base_dtype == dtypes.variant
                                                  for t in o._outputs) for o in fg._ops):
            return False
    return True


# TF 1.15's ops for the gradient of a TensorArray read or write in a loop body (besides the
# stack of its index and the Enters of outside tensors, counted as any op's): a write's
# TensorArrayGradV3, the Enter of its handle, gradient_flow and TensorArrayReadV3; a read's
# the same with TensorArrayWriteV3 (the Enter of the array's flow: its invariant's)
_TA_GRAD_OPS = {"TensorListSetItem": 4, "TensorListGetItem": 4}
_TA_BODY_OPS = frozenset(_TA_GRAD_OPS)


def _ta_grad_counts(body_fg, gbody_ops):
    """The ops in ``gbody_ops`` not to count (made by the gradients of the TensorArray reads
    and writes of ``body_fg``, but for the pops of forward values and the gates of GATE_OP,
    TF's as well) and TF's count for them."""
    scopes = {f"/{o._name}_grad/": _TA_GRAD_OPS[o._type] for o in body_fg._ops
              if o._type in _TA_BODY_OPS}
    skip, n_tf, seen = set(), 0, set()
    for o in gbody_ops:
        scope = next((sc for sc in scopes if sc in o._name), None)
        if scope is None or o._type == "TensorListPopBack" or scope + "tuple/" in o._name or (
                o._type == "Const" and o._outputs[0].consumers()
                and all(c._type == "TensorListPopBack" for c in o._outputs[0].consumers())):
            continue
        skip.add(o)
        if scope not in seen:
            seen.add(scope)
            n_tf += scopes[scope]
    return skip, n_tf


def emulate_loop_grad(op, n_tf):
    """Notes that ``op`` (made in a loop body) stands for a TF 1.15 structure whose gradient in
    the loop's gradient makes ``n_tf`` ops (its stacked forward values included), counted
    instead of those of ``op``'s own gradient."""
    graph = op._graph
    root = getattr(graph, "_root", None) or graph
    root.__dict__.setdefault("_tf_emulated_loop_grads", {})[op] = n_tf


def _emulated_grad_counts(body_fg, gbody_ops, pops):
    """The gradient ops in ``gbody_ops`` of ops noted by ``emulate_loop_grad`` (not counted),
    TF's count for them, and the forward values popped for them alone."""
    root = getattr(body_fg, "_root", None) or body_fg
    noted = root.__dict__.get("_tf_emulated_loop_grads")
    if not noted:
        return set(), 0, set()
    scopes = {f"/{o._name}_grad/": n for o, n in noted.items() if o._graph is body_fg}
    skip, n_tf, seen = set(), 0, set()
    for o in gbody_ops:
        scope = next((sc for sc in scopes if sc in o._name), None)
        if scope is None or scope + "tuple/" in o._name:
            continue
        skip.add(o)
        if scope not in seen:
            seen.add(scope)
            n_tf += scopes[scope]
    values = {value for _, _, _, value in pops if value._op in skip}
    return skip, n_tf, {v for v in values if all(c in skip for c in v.consumers())}


_NESTED_FLOW = frozenset({"While", "StatelessWhile", "StatelessIf"})
_SHAPE_OPS = frozenset({"Shape", "Size", "Rank"})


def _while_grad(op, *grads):
    """The gradient While. For a plain loop (see _plain_loop) its ops take ids set aside and
    the graph's count skips as many ids as TF 1.15's frame-based gradient makes: the forward
    and backward counters (8 + 10), per loop variable with a gradient its exit/merge/switch/
    enter/next-iteration chain (5), per forward value the gradient reads a stack (6, and one
    ControlTrigger in all), per loop invariant it reads an Enter, per invariant with a
    gradient an accumulator loop (7, or 9 for a shape not fully known), and the body's
    gradient ops; under GATE_OP a tuple of 3 per loop variable with a gradient."""
    graph = op._graph
    cond_fg = func_graph.lookup_function(graph, op._attrs["cond"])
    body_fg = func_graph.lookup_function(graph, op._attrs["body"])
    if (graph._next_id >= ops.Graph.ASIDE_IDS or isinstance(graph, func_graph.FuncGraph)
            or not _plain_loop(cond_fg, body_fg, _dead_conds(op, body_fg, grads))):
        return _build_while_grad(op, grads)[0]
    first = graph._next_id
    with graph.aside_ids():
        # (gated as TF's GATE_OP gradient gates the body's ops: their tuples are counted)
        result, n_tf = _build_while_grad(op, grads, bool(gradients_lib.gating_active()))
    if n_tf is not None:
        # (a Keras RNN layer's loop notes what TF's own loop body adds to its gradient)
        n_tf += graph.__dict__.get("_tf_loop_grad_extra", {}).get(op, 0)
        graph._skip_op_ids(to=first + n_tf)
    return result


def _live_loop_vars(body_fg, seeds):
    """The loop variables whose values reach (over iterations) those in ``seeds``."""
    index = {t: i for i, t in enumerate(body_fg.inputs)}
    deps = {}
    for k, out in enumerate(body_fg.outputs[:len(body_fg.inputs)]):
        found, stack, seen = set(), [out._op], set()
        while stack:
            o = stack.pop()
            if o in seen:
                continue
            seen.add(o)
            for t in o._inputs:
                if t in index:
                    found.add(index[t])
                elif t._op._graph is body_fg:
                    stack.append(t._op)
        if out in index:
            found.add(index[out])
        deps[k] = found
    live, todo = set(seeds), list(seeds)
    while todo:
        for j in deps.get(todo.pop(), ()):
            if j not in live:
                live.add(j)
                todo.append(j)
    return live


def _reached_loop_vars(op, body_fg, between):
    """The loop variables whose values (over iterations) depend on ops in ``between``: their
    initial values, the loop invariants the body reads, or other such loop variables."""
    n_loop = len(body_fg.inputs)
    index = {t: i for i, t in enumerate(body_fg.inputs)}
    caps = body_fg.captures
    reached_caps = {ph._op for j, (_, ph) in enumerate(caps)
                    if n_loop + j < len(op._inputs) and op._inputs[n_loop + j]._op in between}
    deps = {}
    for k, out in enumerate(body_fg.outputs[:n_loop]):
        found, hit, stack, seen = set(), False, [out._op], set()
        if out in index:
            found.add(index[out])
        while stack:
            o = stack.pop()
            if o in seen:
                continue
            seen.add(o)
            hit = hit or o in reached_caps
            for t in o._inputs:
                if t in index:
                    found.add(index[t])
                elif t._op._graph is body_fg:
                    stack.append(t._op)
        deps[k] = (found, hit)
    reached = {i for i in range(n_loop) if op._inputs[i]._op in between or deps[i][1]}
    changed = True
    while changed:
        changed = False
        for k, (found, _) in deps.items():
            if k not in reached and found & reached:
                reached.add(k)
                changed = True
    return reached


_FUNCTION_ATTRS = {"While": ("cond", "body"), "If": ("then_branch", "else_branch")}


def _tf_enter_names(cond_fg, body_fg, kind="Enter"):
    """{outer tensor: the name of the Enter op TF 1.x's loop takes it in by}: an Enter made
    in the scope of the first op of the frame (the condition's, then the body's) that reads
    the tensor ('while/MatMul/Enter', 'while/MatMul/Enter_1' for its second new input); for
    a loop or cond nested in the body, the first of its ops that reads it. With ``kind``
    'Switch' and one branch of a cond: the Switch its branch takes the tensor in by."""
    names, taken = {}, {}
    for fg in (cond_fg, body_fg):
        if fg is None:
            continue
        sources = fg._capture_sources
        for o in fg._ops:
            for t in o._inputs:
                src = sources.get(t)
                if src is None or src in names:
                    continue
                base = f"{_first_reader(o, t)._name}/{kind}"
                k = taken[base] = taken.get(base, -1) + 1
                names[src] = base + (f"_{k}" if k else "")
    return names


def _first_reader(o, t):
    """The op that reads ``t`` first: ``o``, or the first op of a loop or cond ``o`` runs
    whose body captures ``t``."""
    graph = o._graph
    for attr in _FUNCTION_ATTRS.get(o._type, ()):
        try:
            fg = func_graph.lookup_function(graph, o._attrs[attr])
        except (KeyError, ValueError):
            return o
        inner = next((ph for ph, src in fg._capture_sources.items() if src is t), None)
        if inner is None:
            continue
        reader = next((c for c in fg._ops if inner in c._inputs), None)
        if reader is not None:
            return _first_reader(reader, inner)
    return o


def _named_accumulators(op, cond_fg, body_fg, x, parts):
    """``parts`` ([(tensor, name)]: the gradient loop's outputs for loop invariant ``x``, or
    for the loop variable whose Enter op TF names ``x``)
    through Identity ops named as the Exits of TF 1.x's accumulator loop:
    '<gradients scope>/<the invariant's Enter>_grad/b_acc_3', the names a printed gradient of
    an RNN's weights shows. They take no op id TF's count has (see _while_grad)."""
    graph = ops.get_default_graph()
    scope = graph.get_name_scope()
    own = f"{op._name}_grad"
    if isinstance(x, str):  # (the Enter's name itself)
        enter = x if scope.endswith(own) else None
    else:
        enter = _tf_enter_names(cond_fg, body_fg).get(x) if scope.endswith(own) else None
    if enter is None:
        return [t for t, _ in parts]
    root = getattr(graph, "_root", None) or graph
    aside = graph.aside_ids() if root._next_id < ops.Graph.ASIDE_IDS else nullcontext()
    with aside, ops.name_scope(f"{scope[: -len(own)]}{enter}_grad/"):
        return [_named_identity(t, name) for t, name in parts]


def _reached_through_values(op, body_fg, n_loop, between):
    """Whether an input of gradient loop ``op`` some x depends on reaches the body's outputs
    through values TF's walk follows (floating, complex, variant, resource ones)."""
    caps = body_fg.captures
    todo = []
    for k, t in enumerate(op._inputs[:n_loop + len(caps)]):
        ph = body_fg.inputs[k] if k < n_loop else caps[k - n_loop][1]
        # (not the counter, nor a captured tensor's gradient accumulator starting from its
        # zeros: TF's are zeros(Shape(t)), an int path its walk does not follow)
        if t._op in between and _differentiable(t) and not (
                t._op._type == "ZerosLike" and "capture_grad" in ph._op._name):
            todo.append(ph)
    # (a captured tensor the body hands on unchanged is a loop invariant: TF's constant Enter)
    outs = set(body_fg.outputs) - {ph for _, ph in caps}
    seen = set(todo)
    while todo:
        t = todo.pop()
        if t in outs:
            return True
        for c in t.consumers():
            for o in c._outputs:
                if o not in seen and _differentiable(o):
                    seen.add(o)
                    todo.append(o)
    return False


def _build_while_grad(op, grads, gate=None, sparse=None):
    """(The gradients of ``op``'s inputs, TF 1.15's op count or None.) ``sparse``: the loop
    invariants (positions in ``j_idx``) whose body gradients are IndexedSlices, accumulated as
    TF's are (values and indices concatenated over the iterations, from one zero row at index
    0); found by a first build, then built again with them."""
    graph = op._graph
    cond_fg = func_graph.lookup_function(graph, op._attrs["cond"])
    body_fg = func_graph.lookup_function(graph, op._attrs["body"])
    n_loop = len(body_fg.inputs)
    caps = body_fg.captures
    n_in_before = len(op._inputs)
    d_idx = [i for i in range(n_loop) if _differentiable(op._outputs[i]) and not (
        op._outputs[i]._dtype.base_dtype == dtypes.variant and grads[i] is None)]
    # (as TF's walk: no gradient for an outside tensor no x depends on, such as the array a
    # loop reads its input from)
    between = gradients_lib.between_active()
    j_idx = [j for j in range(len(caps)) if _differentiable(op._inputs[n_loop + j])
             and (between is None or op._inputs[n_loop + j]._op in between)]
    if not d_idx or all(grads[i] is None for i in d_idx):
        return [None] * n_in_before, None
    unused = []
    if gate is not None:  # (counted: see _while_grad)
        # as TF's walk: a loop variable without a gradient whose value never reaches one with
        # a gradient gets none (TF makes its zeros and an Enter, nothing more)
        seeds = {i for i in d_idx if grads[i] is not None}
        reached = None if between is None else _reached_loop_vars(op, body_fg, between)
        if reached is not None and seeds & reached:
            # nor one no x reaches (TF's walk never meets its Exit or Switch: a decoder's next
            # inputs read from a placeholder's array, a factor fed in), even with a gradient
            # from outside: its zeros and Enter
            seeds &= reached
        live = _live_loop_vars(body_fg, seeds)
        if reached is not None and seeds <= reached:
            live &= reached
        unused = [i for i in d_idx if i not in live]
        d_idx = [i for i in d_idx if i in live]
        # a TensorArray without a gradient (its list here; in TF a float flow, trainable):
        # the same zeros and Enter when it never reaches a variable with a gradient (an RNN's
        # outputs when only its final state is used, an alignment history)
        unused += [i for i in range(n_loop) if grads[i] is None and i not in live
                   and op._outputs[i]._dtype.base_dtype == dtypes.variant
                   and _differentiable(op._outputs[i])]
    if hasattr(body_fg, "_pops_accumulators"):
        if between is not None and not _reached_through_values(op, body_fg, n_loop, between):
            # (read only for its shape, as an Add's gradient reads an operand of unknown
            # shape: TF's walk never follows the int Shape into its loop, no gradient there)
            return [None] * n_in_before, None
        # a gradient loop reached through a tensor it reads besides its accumulators (a loop
        # invariant, an upstream gradient): TF 1.x refuses (its Enter's gradient), even where
        # no forward value is popped and the terms would all be there
        raise TypeError("Second-order gradient for while loops not supported.")
    counter = _ensure_counter(op, cond_fg, body_fg)
    outer = ops.get_default_graph()
    if sparse is None:  # (the shapes' BroadcastGradientArgs a first build made, forgotten)
        from tideflow.ops import elementwise

        bga_cache = dict(elementwise._SMART_BGA_CACHE.get(
            getattr(outer, "_root", None) or outer, {}))
    base = op._name.replace("/", "_")
    gbody = func_graph.FuncGraph(func_graph.unique_function_name(graph, base + "_body_grad"),
                                 outer)
    pops = []
    reads = set()
    consts = []
    gbody._resolver = _while_resolver(op, cond_fg, body_fg, gbody, pops, reads, consts)
    # (a counted loop's conds' gradients count TF's in-loop ops)
    gbody._tf_loop_grad = gate is not None
    with gbody.as_default():
        cnt = gbody.make_placeholder(dtypes.int32, [], "counter")
        gvars = [gbody.make_placeholder(op._outputs[i]._dtype.base_dtype,
                                        body_fg.inputs[i]._shape, "grad") for i in d_idx]
        gcaps = []
        for m, j in enumerate(j_idx):
            dtype, shape = _value_type(caps[j][1])
            if sparse and m in sparse:
                rows = TensorShape([None]).concatenate(shape[1:]) if shape.ndims else shape
                gcaps.append((gbody.make_placeholder(dtype, rows, "capture_grad_values"),
                              gbody.make_placeholder(sparse[m][0], [None],
                                                     "capture_grad_indices")))
            else:
                gcaps.append(gbody.make_placeholder(dtype, shape, "capture_grad"))
        gbody.inputs = [cnt, *gvars, *nest.flatten(gcaps)]
        n0 = len(gbody._ops)
        with gradients_lib.seed_identities_off():
            res = gradients_lib.gradients([body_fg.outputs[i] for i in d_idx],
                                          [body_fg.inputs[i] for i in d_idx]
                                          + [caps[j][1] for j in j_idx], grad_ys=gvars,
                                          gate_gradients=bool(gate))
        found = None if sparse is not None else {
            m: (r.indices._dtype.base_dtype, r.dense_shape)
            for m, r in enumerate(res[len(d_idx):]) if _sparse(r)
            and op._inputs[n_loop + j_idx[m]]._dtype.base_dtype != dtypes.variant}
    if found:  # (built again, from the graph it was called in, as if the first was not)
        from tideflow.ops import elementwise

        root = getattr(outer, "_root", None) or outer
        elementwise._SMART_BGA_CACHE[root] = bga_cache
        return _build_while_grad(op, grads, gate, found)
    with gbody.as_default():
        # (a pop: its TensorListPopBack and element shape Const, counted in TF's stack ops)
        ta_ops, n_ta = _ta_grad_counts(body_fg, gbody._ops[n0:])
        emulated, n_emulated, emulated_pops = _emulated_grad_counts(body_fg, gbody._ops[n0:],
                                                                    pops)
        ta_ops |= emulated
        counts = _tf_op_counts(gbody)  # (a cond's gradient If: TF's count for it)
        n_body = sum(counts.get(o, 1) for o in gbody._ops[n0:] if o._type != "Placeholder"
                     and o not in ta_ops) - 2 * (len(pops) - len(emulated_pops)) + n_ta \
            + n_emulated
        outs = [cnt - 1]
        for k, _ in enumerate(d_idx):
            r = res[k]
            outs.append(gbody.capture(dense(r)) if r is not None else (
                list_ops.zeros_like(gvars[k]) if gvars[k]._dtype == dtypes.variant
                else array_ops.zeros_like(gvars[k])))
        unconnected = set()  # captures the body's outputs do not depend on: no gradient
        values_known = {}  # slices' accumulators: whether an iteration's values' shape is
        for m, g in enumerate(gcaps):
            r = res[len(d_idx) + m]
            if isinstance(g, tuple):  # slices: the rows of every iteration, concatenated
                from tideflow.ops import cast_ops, range_ops

                if r is None:
                    outs.extend(g)
                    continue
                r = r if _sparse(r) else gradients_lib.IndexedSlices(
                    dense(r), range_ops.range(array_ops.shape(dense(r))[0]))
                indices = r.indices
                if indices._dtype.base_dtype != g[1]._dtype.base_dtype:
                    indices = cast_ops.cast(indices, g[1]._dtype.base_dtype)
                values_known[m] = r.values.get_shape().is_fully_defined()
                outs.append(array_ops.concat([g[0], gbody.capture(r.values)], 0))
                outs.append(array_ops.concat([g[1], gbody.capture(indices)], 0))
            elif r is None:
                unconnected.add(m)
                outs.append(g)
            elif g._dtype == dtypes.variant:
                outs.append(list_ops.add_n([g, gbody.capture(r)]))
            else:
                outs.append(math_ops.add(g, gbody.capture(dense(r))))
    gbody.outputs = outs + [ph for _, ph in gbody.captures] + [rest for _, _, rest, _ in pops]
    gbody._pops_accumulators = bool(pops)
    gbody.structured_outputs = gbody.outputs

    gcond = func_graph.FuncGraph(func_graph.unique_function_name(graph, base + "_cond_grad"),
                                 outer)
    with gcond.as_default():
        cph = [gcond.make_placeholder(t._dtype, t._shape, "arg") for t in gbody.inputs]
        gcond.inputs = cph
        for t, _ in gbody.captures:
            gcond.capture(t)
        for ph in gbody.extra_args:
            gcond.add_extra_arg(ph._dtype, ph._shape, "accumulator")
        gcond.outputs = [math_ops.greater(cph[0], 0)]
    func_graph.add_function(outer, gcond)
    func_graph.add_function(outer, gbody)

    inits = [op._outputs[counter]]
    for k, i in enumerate(d_idx):
        g = grads[i]
        if g is None:
            g = array_ops.zeros_like(op._outputs[i])
        inits.append(dense(g))
    for m, j in enumerate(j_idx):
        x = op._inputs[n_loop + j]
        if sparse and m in sparse:
            inits.append(array_ops.zeros(
                array_ops.concat([[1], array_ops.shape(x)[1:]], 0), dtype=x._dtype.base_dtype))
            inits.append(constant_op.constant([0], dtype=sparse[m][0]))
            continue
        inits.append(list_ops.zeros_like(x) if x._dtype.base_dtype == dtypes.variant
                     else array_ops.zeros_like(x))
    inits += [t for t, _ in gbody.captures]
    inits += [init for init, _, _, _ in pops]
    shapes = [t._shape for t in gbody.args]
    gop = ops.apply_op(
        "While", [inits],
        {"T": [t._dtype.base_dtype for t in inits], "cond": gcond.name, "body": gbody.name,
         "output_shapes": shapes, "parallel_iterations": op._attrs["parallel_iterations"]},
        name="while",
    )
    cond_lib.add_control_captures(gop, [gcond, gbody])
    result = [None] * len(op._inputs)
    for k, i in enumerate(d_idx):
        # as the Exit of TF 1.x's gradient loop for the variable: 'gradients/while/Enter_1_grad/
        # Exit:0' (the Enter of loop variable 1)
        result[i], = _named_accumulators(op, None, None, f"{op._name}/Enter" + (
            f"_{i}" if i else ""), [(gop._outputs[1 + k], "Exit")])
        g = grads[i]
        if isinstance(g, ops.Tensor) and isinstance(result[i], ops.Tensor) and \
                g.get_shape().is_compatible_with(op._inputs[i].get_shape()):
            # TF's gradient loop variable is Merge([grad, grad]): the upstream gradient's shape
            result[i].set_shape(g.get_shape())
    pos = 1 + len(d_idx)
    for m, j in enumerate(j_idx):
        if sparse and m in sparse:
            x = op._inputs[n_loop + j]
            shape = sparse[m][1]
            if shape is not None:
                shape = array_ops.shape(x, out_type=shape._dtype.base_dtype)
            # TF's Exits: indices, values (and dense shape) after its Enters and Merges of
            # the accumulators, and a b_acc constant where the values' shape is known
            n = 2 + (shape is not None)
            first = 2 * n + values_known.get(m, True)
            parts = [(gop._outputs[pos], f"b_acc_{first + 1}"),
                     (gop._outputs[pos + 1], f"b_acc_{first}")]
            if shape is not None:
                parts.append((shape, f"b_acc_{first + 2}"))
            parts = _named_accumulators(op, cond_fg, body_fg, x, parts)
            result[n_loop + j] = gradients_lib.IndexedSlices(*parts)
            pos += 2
            continue
        if m not in unconnected:  # as TF: None, not zeros, for a tensor the loop ignores
            # (TF's accumulator of a shape not fully known has no b_acc constant)
            name = "b_acc_3" if caps[j][1]._shape.is_fully_defined() else "b_acc_2"
            result[n_loop + j], = _named_accumulators(op, cond_fg, body_fg,
                                                      op._inputs[n_loop + j],
                                                      [(gop._outputs[pos], name)])
        pos += 1
    # TF moves a Shape, Size or Rank of a forward value into the forward loop and stacks its
    # result instead (and the value itself only when something else reads it)
    # (a loop invariant's too: it is a forward value, read in the gradient loop by an Enter)
    popped = {value for _, _, _, value in pops if value not in emulated_pops}
    read = {op._inputs[n_loop + j] for j in reads}
    invariants = [ph for src, ph in gbody.captures if src in read]
    forward = popped | set(invariants)
    # (one whose result nothing reads is not stacked: concat's gradient makes such a Shape)
    sizes = [o for o in gbody._ops if o._type in _SHAPE_OPS and o not in emulated
             and o._inputs[0] in forward
             and o._outputs[0].consumers()]

    def read_otherwise(v):
        return any(c._type not in _SHAPE_OPS for c in v.consumers())

    stacks = len(sizes) + sum(1 for v in popped if read_otherwise(v))
    # a cond in the body: a forward value its branches' gradients read is stacked inside the
    # branch in TF (3 ops more: a guarded push and pop); its predicate outside
    in_branch = sum(1 for v in popped if v.consumers() and all(
        c._type == "If" and c in counts and c._inputs[0] is not v for c in v.consumers()))
    enters = sum(1 for v in invariants if read_otherwise(v))
    # a forward constant: copied into the gradient loop (counted in n_body) only where read
    # otherwise; TF stacks the Shape of it it moves into the forward loop
    sizes_of_consts = [o for o in gbody._ops if o._type in _SHAPE_OPS and o._inputs[0] in consts]
    n_body -= sum(1 for c in consts if not read_otherwise(c))
    stacks += len(sizes_of_consts)
    # (TF's zeros for a loop variable whose output gets no gradient: a ZerosLike)
    # (an unused one's Enter, of its zeros or of the gradient it got from outside)
    n_tf = 8 + 10 + 5 * len(d_idx) + sum(grads[i] is None for i in d_idx) \
        + sum(1 + (grads[i] is None) for i in unused) \
        + 6 * stacks + 3 * in_branch + bool(stacks) + enters \
        + n_body
    if gate:
        n_tf += 3 * len(d_idx)  # GATE_OP: each Merge's gradient is gated (a tuple of 3)
    for m, j in enumerate(j_idx):
        if sparse and m in sparse:
            n_tf += 23  # TF's accumulator of slices: values, indices and dense shape
        elif m not in unconnected:
            n_tf += 7 if caps[j][1]._shape.is_fully_defined() else 9
    # a loop variable whose next value does not read its last gets no gradient back through
    # the body: TF's chain for it has no NextIteration until its gradients() ends
    # (PostProcessing), which then makes zeros and the NextIteration (a Const; for a shape
    # not fully known a Shape, a Const and a Fill outside the loop, and the Enter into it)
    cut = [i for k, i in enumerate(d_idx) if res[k] is None]
    n_tf -= len(cut)
    gradients_lib.defer_op_ids(sum(
        2 if (op._outputs[i]._shape if grads[i] is None else grads[i].get_shape())
        .is_fully_defined() else 5 for i in cut))
    return result, n_tf


gradients_lib.RegisterGradient("If")(_if_grad)
gradients_lib.RegisterGradient("While")(_while_grad)
