"""ReverseSequence: reverses the first ``seq_lengths[b]`` entries of each batch row."""

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _check_rank, _in, _invalid, _np, _register_fold, _shape_str
from tideflow.ops.gradients import dense


def _axes(rank, seq_dim, batch_dim, err):
    if rank is None:
        return None, None
    if err is not ValueError and seq_dim >= 0 and batch_dim >= 0:
        # TF 1.15's kernel: the two dims equal, then each against the rank, in its words
        if seq_dim == batch_dim:
            raise err(f"batch_dim == seq_dim == {seq_dim}")
        for what, d in (("seq_dim", seq_dim), ("batch_dim", batch_dim)):
            if d >= rank:
                raise err(f"{what} must be < input.dims()( {d} vs. {rank})")
    for what, d in (("seq_dim", seq_dim), ("batch_dim", batch_dim)):
        if not -rank <= d < rank:
            raise err(f"ReverseSequence: {what} must be < input rank: {d} vs. {rank}")
    s, b = seq_dim % rank, batch_dim % rank
    if s == b:
        raise err(f"ReverseSequence: batch_dim == seq_dim == {s}")
    return s, b


def _reverse_sequence_shape(op):
    x = _in(op, 0)
    lens = _in(op, 1)
    _check_rank(lens, 1, " for 'seq_lengths' of ReverseSequence")
    s, b = _axes(x.ndims, op._attrs["seq_dim"], op._attrs["batch_dim"], ValueError)
    if s is None:
        return [x]
    dims = x.as_list()
    n = lens.as_list()[0] if lens.ndims is not None else None
    if dims[b] is not None and n is not None and dims[b] != n:
        raise ValueError(
            f"ReverseSequence: dimension {b} (batch_dim) of input {_shape_str(x)} is {dims[b]} "
            f"but seq_lengths has {n} entries")
    if dims[b] is None:
        dims[b] = n
    return [TensorShape(dims)]


def _reverse_sequence_kernel(input, seq_lengths, *, seq_dim, batch_dim):
    x = _np(input)
    lens = np.asarray(seq_lengths)
    if lens.ndim != 1:
        raise _invalid(f"ReverseSequence: seq_lengths must be 1-dim, not {lens.ndim}-dim "
                       f"(shape {_shape_str(lens.shape)})")
    s, b = _axes(x.ndim, seq_dim, batch_dim, _invalid)
    if lens.shape[0] != x.shape[b]:
        raise _invalid(f"len(seq_lens) != input.dims({b}), ({lens.shape[0]} vs. "
                       f"{x.shape[b]})")  # TF 1.15's words
    if x.ndim > 5:
        # TF 1.15's kernel handles ranks 2..5, after it has checked the lengths
        for i, n in enumerate(lens.tolist()):
            if n < 0 or n > x.shape[s]:
                break
        else:
            raise _invalid(f"ReverseSequenceOp : Unhandled input dimensions: {x.ndim}")
    out = x.copy()
    for i, n in enumerate(lens.tolist()):
        # TF 1.15's words
        if n < 0:
            raise _invalid(f"seq_lens({i}) < 0")
        if n > x.shape[s]:
            raise _invalid(f"seq_lens({i}) > input.dims({s})")
        if n > 1:
            src = [slice(None)] * x.ndim
            src[b] = i
            dst = list(src)
            src[s] = slice(n - 1, None, -1)
            dst[s] = slice(0, n)
            out[tuple(dst)] = x[tuple(src)]
    return out


def _reverse_sequence_grad(op, grad):
    return [reverse_sequence(dense(grad), op._inputs[1], seq_axis=op._attrs["seq_dim"],
                             batch_axis=op._attrs["batch_dim"]), None]


op_registry.declare(
    "ReverseSequence",
    inputs=["input: T", "seq_lengths: Tlen"],
    outputs=["output: T"],
    attrs=["seq_dim: int", "batch_dim: int = 0", "T: type",
           "Tlen: {int32, int64} = DT_INT64"],
    shape=_reverse_sequence_shape,
    kernel=_reverse_sequence_kernel,
    grad=_reverse_sequence_grad,
)

_register_fold("ReverseSequence")


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,
                     seq_dim=None, batch_dim=None):
    """Reverses ``input[b, :seq_lengths[b]]`` along ``seq_axis`` for each ``b`` on
    ``batch_axis`` (``seq_dim``/``batch_dim`` are the deprecated spellings)."""
    if seq_axis is not None and seq_dim is not None:
        raise ValueError("Cannot specify both 'seq_dim' and 'seq_axis'")
    if batch_axis is not None and batch_dim is not None:
        raise ValueError("Cannot specify both 'batch_dim' and 'batch_axis'")
    seq_axis = seq_dim if seq_axis is None else seq_axis
    batch_axis = batch_dim if batch_axis is None else batch_axis
    if seq_axis is None:
        raise TypeError("reverse_sequence() missing required argument: 'seq_axis'")
    attrs = {"seq_dim": int(seq_axis), "batch_dim": 0 if batch_axis is None else int(batch_axis)}
    return ops.apply_op("ReverseSequence", [input, seq_lengths], attrs, name=name)._outputs[0]
