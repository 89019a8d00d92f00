"""Conditionals (paper §4.4): the functional ``If`` op, ``tf.cond`` and ``tf.case``.

Each branch is traced into a function body (framework/func_graph.py) and only the branch the
predicate selects runs, with all its stateful ops. Both branches take the same inputs: the
union of the tensors they capture.
"""

import collections

from tideflow.framework import dtypes, func_graph, nest, op_registry, ops
from tideflow.framework.tensor_shape import unknown_shape
from tideflow.ops.switch_merge_ops import DEAD

# ------------------------------------------------------------------------------------------
# the If op
# ------------------------------------------------------------------------------------------


def _if_shape(op):
    shapes = op._attrs.get("output_shapes") or ()
    return list(shapes) if shapes else None


def _truth(c):
    """TF's If predicate: a scalar by its truth value, any other tensor by non-emptiness."""
    shape = getattr(c, "shape", ())
    if shape == ():
        return bool(c)
    return c.size > 0


def _if_kernel(ctx):
    from tideflow.runtime import functions

    op = ctx.op
    graph = op._graph
    then_fn = functions.compile_function(
        func_graph.lookup_function(graph, op._attrs["then_branch"]), ctx)
    else_fn = functions.compile_function(
        func_graph.lookup_function(graph, op._attrs["else_branch"]), ctx)

    def run(cond, inputs, *, step=None):
        if _truth(cond):
            return then_fn(*inputs, step=step)
        return else_fn(*inputs, step=step)

    return run


_IF = op_registry.declare(
    "If",
    inputs=["cond: Tcond", "input: Tin"],
    outputs=["output: Tout"],
    attrs=["Tcond: type", "Tin: list(type) >= 0", "Tout: list(type) >= 0", "then_branch: func",
           "else_branch: func", "output_shapes: list(shape) = []"],
    shape=_if_shape,
    kernel_factory=_if_kernel,
    stateful=True,
)
_IF.kernel_wants_step = True  # nested loops honour the step's cancellation and deadline


def _fake_param_kernel(ctx):
    def run():
        return DEAD

    return run


# FakeParam: what a branch outputs for an intermediate only the other branch computes: TF's
# dead tensor (the gradient If takes the same branch and never reads it; ops of the program
# reading it do not run, see _dead_elsewhere).
op_registry.declare(
    "FakeParam",
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape"],
    shape=lambda op: [op._attrs["shape"]],
    kernel_factory=_fake_param_kernel,
    differentiable=False,
    stateful=True,  # never folded: it has no value
)


def fake_param(dtype, shape, name="FakeParam", graph=None):
    return ops.apply_op("FakeParam", [], {"dtype": dtypes.as_dtype(dtype).base_dtype,
                                          "shape": shape}, name=name, graph=graph)._outputs[0]


# ------------------------------------------------------------------------------------------
# building If ops from function bodies
# ------------------------------------------------------------------------------------------


def unify_captures(fgs):
    """Gives every body the same captured tensors, in the same order; returns them."""
    union = []
    seen = set()
    for fg in fgs:
        for outer, _ in fg.captures:
            if outer not in seen:
                seen.add(outer)
                union.append(outer)
    for fg in fgs:
        for t in union:
            if t not in fg._capture_map:
                # (named as TF's branch inputs: a capture named after its source, made in the
                # cond's scope, could take the name of the cond's outputs, "Merge")
                fg.capture(t, name="Switch")
        fg.captures = [(t, fg._capture_map[t]) for t in union]
    return union


def add_control_captures(op, fgs):
    """Control dependencies the bodies took on enclosing ops become the op's control inputs."""
    graph = op._graph
    for fg in fgs:
        for c in fg.control_captures:
            if c._graph is graph:
                op._add_control_input(c)
            elif isinstance(graph, func_graph.FuncGraph) and c not in graph.control_captures:
                graph.control_captures.append(c)


def _merged_shape(a, b):
    try:
        return a.most_specific_compatible_shape(b)
    except (ValueError, TypeError):
        return unknown_shape()


def build_if(pred, then_fg, else_fg, name, inputs=()):
    """Creates the If op running ``then_fg`` or ``else_fg`` (same outputs); returns it.

    ``inputs`` feed both branches' ``inputs``; the tensors they capture follow.
    """
    graph = ops.get_default_graph()
    inputs = list(inputs) + unify_captures([then_fg, else_fg])
    func_graph.add_function(graph, then_fg)
    func_graph.add_function(graph, else_fg)
    shapes = [_merged_shape(a._shape, b._shape) for a, b in zip(then_fg.outputs, else_fg.outputs)]
    op = ops.apply_op(
        "If", [pred, inputs],
        {"Tin": [t._dtype.base_dtype for t in inputs],
         "Tout": [t._dtype.base_dtype for t in then_fg.outputs],
         "then_branch": then_fg.name, "else_branch": else_fg.name, "output_shapes": shapes},
        name=name,
    )
    add_control_captures(op, [then_fg, else_fg])
    return op


# ------------------------------------------------------------------------------------------
# tf.cond, tf.case
# ------------------------------------------------------------------------------------------


def _unpack_singleton(x):
    if isinstance(x, (list, tuple)) and len(x) == 1:
        return x[0]
    return x


def _composite_kind(x):
    """TF's composite tensors a branch may return, as (kind, number of component tensors)."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.framework.sparse_tensor import SparseTensor
    from tideflow.ops.ragged_tensor import RaggedTensor

    if isinstance(x, IndexedSlices):
        return ("IndexedSlices", 2 if x.dense_shape is None else 3)
    if isinstance(x, SparseTensor):
        return ("SparseTensor", 3)
    if isinstance(x, RaggedTensor):
        return ("RaggedTensor", 1 + len(x.nested_row_splits))
    from tideflow.ops.tensor_array import TensorArray

    if isinstance(x, TensorArray):
        return ("TensorArray", 1)
    return None


def composite_components(x):
    """The component tensors of a composite tensor (as ``_composite_kind`` counts them)."""
    kind = _composite_kind(x)
    if kind[0] == "IndexedSlices":
        return [x.values, x.indices] + ([] if x.dense_shape is None else [x.dense_shape])
    if kind[0] == "SparseTensor":
        return [x.indices, x.values, x.dense_shape]
    if kind[0] == "TensorArray":
        return [x.flow]
    return [x.flat_values, *x.nested_row_splits]


def rebuild_composite(kind, parts):
    """The composite tensor of ``kind`` (from ``_composite_kind``) made of ``parts``."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.framework.sparse_tensor import SparseTensor
    from tideflow.ops.ragged_tensor import RaggedTensor

    if kind[0] == "IndexedSlices":
        return IndexedSlices(*parts)
    if kind[0] == "SparseTensor":
        return SparseTensor(*parts)
    return RaggedTensor.from_nested_row_splits(parts[0], list(parts[1:]), validate=False)


def _expand_composites(out):
    """``out`` with each composite tensor replaced by the tuple of its component tensors."""
    def expand(x):
        return x if _composite_kind(x) is None else tuple(composite_components(x))

    return nest.map_structure(expand, out)


def _rebuild_composites(template, expanded):
    """The inverse of ``_expand_composites``: ``template`` gives where composites were."""
    flat = iter(nest.flatten(expanded))
    leaves = []
    for leaf in nest.flatten(template):
        kind = _composite_kind(leaf)
        if kind is None:
            leaves.append(next(flat))
        elif kind[0] == "TensorArray":
            leaves.append(leaf._with_list(next(flat)))  # the array, with the branch's writes
        else:
            leaves.append(rebuild_composite(kind, [next(flat) for _ in range(kind[1])]))
    return nest.pack_sequence_as(template, leaves)


def _widen_indices(then_fg, else_fg, template):
    """Where the branches return IndexedSlices with int32 and int64 indices, both become
    int64, as TF's cond does."""
    from tideflow.ops import cast_ops

    positions, pos = set(), 0
    for leaf in nest.flatten(template):
        if isinstance(leaf, ops.Operation):
            continue
        kind = _composite_kind(leaf)
        if kind is not None and kind[0] == "IndexedSlices":
            positions.add(pos + 1)
        pos += 1 if kind is None else kind[1]
    for i, (a, b) in enumerate(zip(then_fg.outputs, else_fg.outputs)):
        kinds = {a._dtype.base_dtype, b._dtype.base_dtype}
        if i not in positions or kinds != {dtypes.int32, dtypes.int64}:
            continue
        fg = then_fg if a._dtype.base_dtype == dtypes.int32 else else_fg
        with fg.as_default():
            fg.outputs[i] = cast_ops.cast(fg.outputs[i], dtypes.int64)


def _check_composites(then_out, else_out):
    """TF 1.15's cond v1 check, made with composites expanded: a composite tensor against a
    tensor, or against another kind of composite, is a ValueError in nest's words."""
    then_flat, else_flat = nest.flatten(then_out), nest.flatten(else_out)
    for a, b in zip(then_flat, else_flat):
        ka, kb = _composite_kind(a), _composite_kind(b)
        if ka == kb:
            continue
        if ka and kb:
            detail = (f"Incompatible CompositeTensor TypeSpecs: {nest._describe(a)} vs. "
                      f"{nest._describe(b)}")
        else:
            seq, other = (a, b) if ka else (b, a)
            detail = (f'Substructure "{nest._describe(seq)}" is a sequence, while substructure '
                      f'"{nest._describe(other)}" is not')
        raise ValueError(
            "Incompatible return values of true_fn and false_fn: The two structures don't "
            f"have the same nested structure.\n\nFirst structure: {nest._describe(then_out)}"
            f"\n\nSecond structure: {nest._describe(else_out)}\n\nMore specifically: {detail}"
            f"\nEntire first structure:\n{nest.map_structure(lambda _: nest._DOT, then_out)}"
            f"\nEntire second structure:\n{nest.map_structure(lambda _: nest._DOT, else_out)}")


def _function_base(scope):
    return (scope.rstrip("/") or "cond").replace("/", "_")


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; only the selected branch runs.

    The branches return the same nested structure of tensors (or Operations) with the same
    dtypes. Unless ``strict``, a one-element list or tuple result is unpacked.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    elif true_fn is None:
        raise TypeError("cond(): true_fn argument required")
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    elif false_fn is None:
        raise TypeError("cond(): false_fn argument required")
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    with ops.name_scope(name, "cond", [pred]) as scope:
        if isinstance(pred, bool):  # (TF 1.15 checks inside the scope: "cond" is taken)
            raise TypeError("pred must not be a Python bool")
        pred = ops.convert_to_tensor(pred, name="pred")
        if pred.dtype.base_dtype != dtypes.bool:
            # TF 1.x's Switch op checks it
            raise TypeError(f"Input 'pred' of 'Switch' Op has type "
                            f"{pred.dtype.base_dtype.name} that does not match expected type "
                            f"of bool.")
        if pred.get_shape().ndims not in (None, 0):
            dims = pred.get_shape().as_list()
            shape = "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"
            raise ValueError(f"Shape must be rank 0 but is rank {len(dims)} for '{scope}Switch' "
                             f"(op: 'Switch') with input shapes: {shape}, {shape}.")
        graph = ops.get_default_graph()
        base = _function_base(scope)
        returned = {}
        known = ops.constant_value(pred)
        # TF 1.x makes cond/Switch, switch_t, switch_f and pred_id before the branches: their
        # ids are skipped, so the ops traced in the branches get TF's op count (the op seed of
        # a random op without one, tf.set_random_seed's rule)
        first = graph._next_id
        # inside cond branches or loop bodies, a predicate from outside them passes through a
        # Switch (Enter) of each enclosing frame, made right after cond/Switch
        reserved = 4 + _frames_crossed(graph, pred)
        graph._skip_op_ids(reserved)
        then_fg = func_graph.trace(
            _hiding(_returning(true_fn, "true_fn", returned), known is None or not known),
            [], func_graph.unique_function_name(graph, base + "_true"),
            allow_operations=True, control_flow=True)
        # TF 1.x returns each Operation a branch gives through a control_dependency Identity
        # of the branch's pivot, made at the branch's end: its id is skipped
        graph._skip_op_ids(_operation_leaves(returned["true_fn"]))
        else_fg = func_graph.trace(
            _hiding(_returning(false_fn, "false_fn", returned), known is None or bool(known)),
            [], func_graph.unique_function_name(graph, base + "_false"),
            allow_operations=True, control_flow=True)
        graph._skip_op_ids(_operation_leaves(returned["false_fn"]))
        then_out, else_out = then_fg.structured_outputs, else_fg.structured_outputs
        template = returned["true_fn"]
        if not strict:
            then_out, else_out = _unpack_singleton(then_out), _unpack_singleton(else_out)
            template = _unpack_singleton(template)
            _check_composites(template, _unpack_singleton(returned["false_fn"]))
        else:
            _check_composites(template, returned["false_fn"])
        nest.assert_same_structure(then_out, else_out)  # (TF 1.15 raises nest's error as is)
        flat_then, flat_else = nest.flatten(then_out), nest.flatten(else_out)
        # an Operation a branch returns from outside it (made before the cond) is, in TF 1.x, a
        # control input of the branch's pivot: it runs on every step, whichever branch is taken
        outer = [x for fg, flat in ((then_fg, flat_then), (else_fg, flat_else)) for x in flat
                 if isinstance(x, ops.Operation) and x.graph is not fg]
        for k, (a, b) in enumerate(zip(flat_then, flat_else)):
            if isinstance(a, ops.Operation) and not isinstance(b, ops.Operation):
                flat_then[k] = _op_as_flag(then_fg, flat_then, k, True)
                template = _with_leaf(template, k, flat_then[k])
            elif isinstance(b, ops.Operation) and not isinstance(a, ops.Operation):
                flat_else[k] = _op_as_flag(else_fg, flat_else, k, False)
        _widen_indices(then_fg, else_fg, template)
        for a, b in zip(then_fg.outputs, else_fg.outputs):
            if a._dtype.base_dtype != b._dtype.base_dtype:
                raise ValueError(
                    "Outputs of true_fn and false_fn must have the same type: "
                    f"{a._dtype.base_dtype.name}, {b._dtype.base_dtype.name}"
                )
        with ops.control_dependencies(outer):
            op = _if_counted_as_merges(graph, pred, then_fg, else_fg, scope, first, reserved)
        _exporting(op, then_fg, else_fg)
        from tideflow.ops import array_ops

        # TF 1.x's names (cond/Merge, cond/Merge_1, ...) in output order; where the branches
        # returned Operations, TF 1.x returns the predicate, run after the branch (a bool
        # tensor: sess.run gives whether the true branch ran)
        outs = iter(op._outputs)
        flat = []
        for k, x in enumerate(flat_then):
            merge_name = f"Merge_{k}" if k else "Merge"
            if isinstance(x, ops.Operation):
                with ops.control_dependencies([op]):
                    flat.append(array_ops.identity(pred, name=merge_name))
            else:
                flat.append(array_ops.identity(next(outs), name=merge_name))
        return _rebuild_composites(template, nest.pack_sequence_as(then_out, flat))


def _operation_leaves(result):
    return sum(isinstance(x, ops.Operation) for x in nest.flatten(result))


def _frames_crossed(graph, tensor):
    """How many enclosing cond branches or loop bodies, from ``graph`` out, ``tensor`` has yet
    to be captured into (TF 1.x: a Switch or an Enter in each)."""
    n = 0
    g = graph
    while (getattr(g, "control_flow_body", False) and tensor._op._graph is not g
           and tensor not in g._capture_map):
        n += 1
        g = g.outer_graph
    return n


def _if_counted_as_merges(graph, pred, then_fg, else_fg, scope, first, reserved):
    """``build_if``, with the If op, the placeholders giving both branches the same captures
    and the predicate's capture into an enclosing body taking the ``reserved`` ids skipped for
    TF 1.x's Switch ops (from ``first``; they may be lower than ids the branches took), so
    that the outputs' Merge identities and the ops made after the cond get TF's op count (and
    op seeds); where the placeholders do not fit there, they take ids set aside."""
    nxt = graph._next_id
    captured = {t for fg in (then_fg, else_fg) for t, _ in fg.captures}
    missing = sum(t not in fg._capture_map for fg in (then_fg, else_fg) for t in captured)
    if 1 + missing + _frames_crossed(graph, pred) > reserved:
        # the placeholders have no TF counterpart: ids of their own, so the If still fits
        with graph.aside_ids():
            unify_captures([then_fg, else_fg])
    graph._next_id = first
    op = build_if(pred, then_fg, else_fg, scope)
    graph._next_id = nxt
    return op


def _op_as_flag(fg, flat, k, taken):
    """Where one branch returns an Operation and the other a Tensor, TF 1.x stands the branch's
    predicate value (True in true_fn, False in false_fn), run after the Operation, in for it;
    it becomes output ``k`` of the branch function ``fg``."""
    from tideflow.ops import constant_op

    inner = [flat[k]] if flat[k].graph is fg else []  # an outer one becomes the If's input
    with fg.as_default(), ops.control_dependencies(inner):
        flag = constant_op.constant(taken, name="pivot")
    fg.outputs.insert(sum(not isinstance(x, ops.Operation) for x in flat[:k]), flag)
    return flag


def _with_leaf(template, k, value):
    """``template`` with the leaf at flat position ``k`` (of its expanded form) set to ``value``."""
    leaves, pos = [], 0
    for leaf in nest.flatten(template):
        kind = _composite_kind(leaf)
        leaves.append(value if kind is None and pos == k else leaf)
        pos += 1 if kind is None else kind[1]
    return nest.pack_sequence_as(template, leaves)


def _named_outputs(outputs, base):
    """``outputs`` through Identity ops named as TF 1.x's graphs name them (``cond/Merge``,
    ``cond/Merge_1``; ``while/Exit``...), so programs find them by name."""
    from tideflow.ops import array_ops

    return [array_ops.identity(t, name=f"{base}_{i}" if i else base)
            for i, t in enumerate(outputs)]


def _returning(fn, which, returned=None):
    """``fn`` raising TF 1.x's error when it returns None (a branch without a value); with
    ``returned``, records what ``fn`` returned and gives composite tensors (IndexedSlices,
    SparseTensor, RaggedTensor) as their component tensors."""
    def branch():
        # a capture stands for TF 1.x's Switch, named under the consumer ("cond/Tanh/Switch"):
        # named after its source, it would take the name of a branch op ("cond/Tanh") or of
        # the cond's output ("cond_1/Merge", capturing an earlier cond's "cond/Merge")
        ops.get_default_graph().capture_name = "Switch"
        out = fn()
        if out is None:
            raise ValueError(f"{which} must have a return value.")
        if any(x is None for x in nest.flatten(out)):
            # TF 1.x converts each result to a tensor (an EMA's average() before its apply())
            raise ValueError("None values not supported.")
        if returned is None:
            return out
        returned[which] = out
        return _expand_composites(out)
    return branch


def _exporting(op, then_fg, else_fg):
    """Lets later ops use a tensor one branch made (func_graph.reach): it becomes a new
    output of ``op``, the other branch giving a FakeParam (no value) there."""
    from tideflow.ops.control_flow_grad import _if_resolver

    then_fg.export_tensor = _if_resolver(op, then_fg, else_fg)
    else_fg.export_tensor = _if_resolver(op, else_fg, then_fg)
    then_fg.export_dead_elsewhere = _dead_elsewhere(op, then_fg, else_fg)
    else_fg.export_dead_elsewhere = _dead_elsewhere(op, else_fg, then_fg)


def _dead_elsewhere(op, fg, other):
    """Maps a tensor of branch ``fg`` to an output of ``op`` of its own, whose value is
    TF 1.x's dead tensor when ``other`` ran: the If's graph lists it among its sources of
    dead values (runtime/executor.py's dead region)."""
    from tideflow.ops.control_flow_grad import _append_output

    outputs = {}

    def export(t):
        if t._op._graph is not fg:
            return t
        for k, a in enumerate(fg.args):
            if a is t:  # a value from outside the cond: live whichever branch ran
                return op._inputs[1 + k]
        out = outputs.get(t)
        if out is None:
            fg.outputs.append(t)
            with other.control_dependencies(None):
                other.outputs.append(fake_param(t._dtype, t._shape, graph=other))
            out = outputs[t] = _append_output(op, t)
            op._graph.__dict__.setdefault("_dead_sources", set()).add(out)
        return out

    return export


def _hiding(fn, hide):
    """``fn`` traced in a branch that, with ``hide``, keeps its captures' values from shape
    inference (see array_ops._visible_source): a branch the predicate is not known to take."""
    def branch():
        ops.get_default_graph().hides_capture_values = hide
        return fn()
    return branch


def _assert_at_most_n_true(preds, n, msg):
    """TF 1.x's check that at most ``n`` of ``preds`` hold (its ops and names, in its order)."""
    from tideflow.ops import array_ops, cast_ops, constant_op, logging_ops, math_ops, reduction_ops

    stacked = array_ops.stack(preds, name="preds_c")
    count = reduction_ops.reduce_sum(cast_ops.cast(stacked, dtypes.int32), name="num_true_conds")
    ok = math_ops.less_equal(count, constant_op.constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in preds)
    return logging_ops.Assert(
        ok, [f"{msg}: more than {n} conditions ({names}) evaluated as True:", stacked],
        summarize=len(preds))


def _case_default(preds, fns):
    """Without a default, the last pair's fn is run as one, after checking that its predicate
    holds and no other does; returns it with the pairs left."""
    from tideflow.ops import array_ops, logging_ops

    k = len(preds) - 1
    last_pred, last_fn, others = preds[k], fns[k], preds[:k]

    def default():
        others_msg = (f"Implementation error: selected default action #{k} was called, but "
                      f"some of other predicates are True: ")
        checks = [_assert_at_most_n_true(others, 0, others_msg)]
        checks.append(logging_ops.Assert(last_pred, [
            "Input error: None of conditions evaluated as True:",
            array_ops.stack(preds, name="preds_c")]))
        with ops.control_dependencies(checks):
            return last_fn()

    return default, others, fns[:k]


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The value of the first ``fn`` whose ``pred`` holds, else of ``default()``.

    ``pred_fn_pairs`` is a list of (pred, fn) pairs or a dict (taken in the order of the
    predicates' names). Without ``default`` the last pair's fn is the default and one of the
    predicates must hold. ``exclusive`` asserts that at most one predicate holds.
    """
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("fns must be a list, tuple, or dict")
    if isinstance(pred_fn_pairs, dict):
        if isinstance(pred_fn_pairs, collections.OrderedDict):
            pred_fn_pairs = list(pred_fn_pairs.items())
        else:
            pred_fn_pairs = sorted(pred_fn_pairs.items(), key=lambda item: item[0].name)
            if not exclusive:
                from tideflow import logging as tf_logging

                tf_logging.warn(
                    "%s: An unordered dictionary of predicate/fn pairs was provided, but "
                    "exclusive=False. The order of conditional tests is deterministic but not "
                    "guaranteed.", name)
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = pair
        if not isinstance(pred, ops.Tensor):
            raise TypeError(f"pred must be a Tensor, got: {pred}")
        if pred.dtype != dtypes.bool:
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    if not pred_fn_pairs:
        raise ValueError("not enough values to unpack (expected 2, got 0)")  # TF 1.x's
    preds = [p for p, _ in pred_fn_pairs]
    fns = [f for _, f in pred_fn_pairs]
    with ops.name_scope(name, "case", preds):
        if default is None:
            default, preds, fns = _case_default(preds, fns)
        fn = default
        for p, f in reversed(list(zip(preds, fns))):
            fn = (lambda p=p, f=f, rest=fn: cond(p, f, rest, strict=strict))
        if exclusive:
            # without a default, the last pair became the default and its predicate is not
            # part of the check; the conds run after it
            check = _assert_at_most_n_true(preds, 1, "Input error: exclusive=True")
            with ops.control_dependencies([check]):
                return fn()
        return fn()


from tideflow.ops import control_flow_grad  # noqa: F401 - registers If/While gradients
