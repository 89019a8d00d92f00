"""TF 1.x's low-level control-flow primitives ``Switch`` and ``Merge`` (``control_flow_ops.switch``
/ ``merge``), as programs call them directly (slim's ``apply_with_random_selector``: route an
image to one of several distortions chosen at run time).

``Switch(data, pred)`` forwards ``data`` to ``output_true`` or ``output_false`` and leaves the
other *dead*; an op any of whose inputs is dead does not run and its outputs are dead too;
``Merge`` forwards its first live input and that input's index. tideflow's own ``tf.cond`` and
``tf.while_loop`` are functional (If/While) and never make dead tensors: only plans that hold
a Switch mark the ops downstream of it and check them (runtime/executor.py), so other plans pay
nothing. Fetching a dead tensor fails as in TF ("Retval[0] does not have value").
"""

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar, unknown_shape


class _Dead:
    """The value of a tensor on the branch a Switch did not take."""

    __slots__ = ()

    def __repr__(self):
        return "<dead tensor>"


DEAD = _Dead()
SWITCH_TYPES = frozenset({"Switch", "RefSwitch"})
MERGE_TYPES = frozenset({"Merge", "RefMerge"})


def _switch_kernel(data, pred):
    if data is DEAD or pred is DEAD:
        return DEAD, DEAD
    return (DEAD, data) if bool(pred) else (data, DEAD)


def _merge_kernel(inputs):
    for i, v in enumerate(inputs):
        if v is not DEAD:
            return v, _INDEX[i] if i < len(_INDEX) else dtypes.int32.as_numpy_dtype(i)
    return DEAD, DEAD


_INDEX = [dtypes.int32.as_numpy_dtype(i) for i in range(64)]


def _switch_shape(op):
    pred = op._inputs[1]._shape
    if pred.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {pred.ndims} for '{op.name}' "
                         f"(op: 'Switch') with input shapes: {op._inputs[0]._shape}, {pred}.")
    s = op._inputs[0]._shape
    return [s, s]


def _merge_shape(op):
    shapes = [t._shape for t in op._inputs]
    out = shapes[0]
    for s in shapes[1:]:
        if out.ndims is None or s.ndims is None or out.ndims != s.ndims:
            out = unknown_shape()
            break
        out = TensorShape([a if a.value == b.value else None
                           for a, b in zip(out.dims, s.dims)])
    return [out, scalar()]


def _switch_grad(op, grad_false, grad_true):
    # outside any cond context (TF's _SwitchGrad): each gradient through the same switch,
    # merged back into one
    pred = op._inputs[1]
    parts = []
    for g, taken in ((grad_false, 0), (grad_true, 1)):
        if g is not None:
            parts.append(switch(g, pred)[taken])
    if not parts:
        return None, None
    return merge(parts)[0], None


def _merge_grad(op, grad, _unused_index_grad=None):
    from tideflow.ops import math_ops

    index = op._outputs[1]
    return [switch(grad, math_ops.equal(index, i))[1] for i in range(len(op._inputs))]


op_registry.declare(
    "Switch", inputs=["data: T", "pred: bool"], outputs=["output_false: T", "output_true: T"],
    attrs=["T: type"], shape=_switch_shape, kernel=_switch_kernel, grad=_switch_grad,
    # never folded or merged: a dead value must not become a constant
    stateful=True,
)
op_registry.declare(
    "Merge", inputs=["inputs: N * T"], outputs=["output: T", "value_index: int32"],
    attrs=["T: type", "N: int >= 1"], shape=_merge_shape, kernel=_merge_kernel,
    grad=_merge_grad, stateful=True,
)


def switch(data, pred, dtype=None, name=None):
    """``(output_false, output_true)``: ``data`` on the side ``pred`` picks, the other side
    dead (ops reading it do not run)."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.framework.sparse_tensor import SparseTensor

    if isinstance(data, (IndexedSlices, SparseTensor)):
        # TF switches each component tensor and rebuilds the composite on both sides
        with ops.name_scope(name, "Switch", [data, pred]):
            kind = type(data)
            if kind is IndexedSlices:
                parts = [data.values, data.indices, data.dense_shape]
            else:
                parts = [data.indices, data.values, data.dense_shape]
            pairs = [None if t is None else switch(t, pred, name=f"part_{i}")
                     for i, t in enumerate(parts)]
            return tuple(kind(*[None if p is None else p[side] for p in pairs])
                         for side in (0, 1))
    with ops.name_scope(name, "Switch", [data, pred]) as scope:
        data = ops.convert_to_tensor(data, dtype=dtype, name="data")
        pred = ops.convert_to_tensor(pred, name="pred")
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"Input 'pred' of 'Switch' Op has type {pred.dtype.name} that "
                            "does not match expected type of bool.")
        op = ops.apply_op("Switch", [data, pred], name=scope)
        return op.outputs[0], op.outputs[1]


def merge(inputs, name=None):
    """``(output, value_index)``: the first live tensor of ``inputs`` and its index."""
    if any(x is None for x in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.framework.sparse_tensor import SparseTensor

    if all(isinstance(x, (IndexedSlices, SparseTensor)) for x in inputs):
        # TF merges each component tensor (all live inputs come from the same Switch side)
        with ops.name_scope(name, "Merge", []):
            kind = type(inputs[0])
            if kind is IndexedSlices:
                parts = [[x.values for x in inputs], [x.indices for x in inputs],
                         [x.dense_shape for x in inputs]]
            else:
                parts = [[x.indices for x in inputs], [x.values for x in inputs],
                         [x.dense_shape for x in inputs]]
            merged = [None if any(t is None for t in ts) else merge(ts, name=f"part_{i}")
                      for i, ts in enumerate(parts)]
            index = merged[0][1]
            return kind(*[None if m is None else m[0] for m in merged]), index
    with ops.name_scope(name, "Merge", inputs) as scope:
        inputs = [ops.convert_to_tensor(x) for x in inputs]
        op = ops.apply_op("Merge", [inputs], name=scope)
        return op.outputs[0], op.outputs[1]
