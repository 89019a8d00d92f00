"""``tensorflow.python.framework.smart_cond``: conditionals decided while the graph is built
when their predicate is known then (a Python bool, 0 or 1, or a tensor whose value folds from
constants), and left to ``tf.cond`` otherwise."""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops.misc_ops import get_static_value


def smart_constant_value(pred):
    """``pred``'s value when known statically, else None. ``pred`` is a Python bool, 0 or 1,
    or a Tensor; TypeError for anything else."""
    if isinstance(pred, (bool, np.bool_)):
        return bool(pred)
    if isinstance(pred, int) and pred in (0, 1):
        return bool(pred)
    if isinstance(pred, ops.Tensor):
        value = get_static_value(pred)
        return value if value is not None else try_evaluate_constant(pred)
    raise TypeError("`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: "
                    f"{pred}")


_UNFOLDABLE = frozenset(("Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "Switch",
                         "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit",
                         "RefExit", "NextIteration", "RefNextIteration", "LoopCond"))


def try_evaluate_constant(tensor, max_ops=1000):
    """As TF 1.15's ``TF_TryEvaluateConstant`` (which ``smart_cond`` asks in graph mode):
    the value of a tensor computed by stateless ops from constants alone (no placeholder,
    variable or control flow, no control inputs), run now; else None."""
    from tideflow.framework import op_registry

    seen, stack = {id(tensor.op)}, [tensor.op]
    while stack:
        op = stack.pop()
        op_def = op_registry.lookup(op.type)
        if op.type in _UNFOLDABLE or op_def is None or op_def.is_stateful or \
                op.control_inputs or len(seen) > max_ops or \
                any(t.dtype.base_dtype == dtypes.resource for t in op.inputs):
            return None
        for x in op.inputs:
            if id(x.op) not in seen:
                seen.add(id(x.op))
                stack.append(x.op)
    from tideflow.runtime.session import Session

    with Session(graph=tensor.graph) as sess:
        return sess.run(tensor)


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` or ``false_fn()`` when ``pred`` is known statically (only that branch is
    built), else ``tf.cond(pred, true_fn, false_fn)``."""
    if not callable(true_fn):
        raise TypeError("`true_fn` must be callable.")
    if not callable(false_fn):
        raise TypeError("`false_fn` must be callable.")
    value = smart_constant_value(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    from tideflow.ops.cond import cond

    return cond(pred, true_fn=true_fn, false_fn=false_fn, name=name)


def smart_case(pred_fn_pairs, default=None, exclusive=False, name="smart_case"):
    """``tf.case`` whose predicates may be Python bools: the pairs become nested
    ``smart_cond``s tried in order, so statically known predicates build no conditional.
    Without ``default`` the last pair's function serves as it (taken when no earlier
    predicate holds)."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    pairs = list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Found {pair}.")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0]} must be callable.")
    if not pairs:
        if default is None:
            raise ValueError("pred_fn_pairs is empty and no default was given.")
        return default()
    if default is None:
        default, pairs = pairs[-1][1], pairs[:-1]
    with ops.name_scope(name):
        fn = default
        for pred, action in reversed(pairs):
            fn = _deferred(pred, action, fn)
        tensor_preds = [p for p, _ in pairs if isinstance(p, ops.Tensor)]
        if exclusive and len(tensor_preds) > 1:
            import tideflow as tf

            held = tf.reduce_sum(tf.cast(tf.stack(tensor_preds), tf.int32))
            check = tf.Assert(held <= 1, ["More than one condition evaluated as True:",
                                          tf.stack(tensor_preds)])
            with ops.control_dependencies([check]):
                return fn()
        return fn()


def _deferred(pred, true_fn, false_fn):
    return lambda: smart_cond(pred, true_fn, false_fn)
