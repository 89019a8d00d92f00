"""``tf.debugging``'s checks beyond TF 1.0's: ``assert_rank_in``, ``assert_shapes``,
``assert_all_finite``. As the other asserts, a check decided by static shapes fails (or
succeeds) while building; otherwise an Assert op fails the step."""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import control_flow_ops
from tideflow.ops.logging_ops import Assert


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Checks ``x``'s rank is one of ``ranks`` (ints or int32 scalar tensors): ValueError now
    when every rank and ``x``'s rank are known, else an Assert op (which also checks that each
    fed rank is a scalar)."""
    from tideflow.ops import array_ops, check_ops, math_ops

    with ops.name_scope(name, "assert_rank_in", [x]):
        x = ops.convert_to_tensor(x, name="x")
        ranks = [ops.convert_to_tensor(r, name="rank") for r in ranks]
        message = message or ""
        if data is None:  # before the type checks, as TF (its Shape op comes first)
            data = [message, f"Tensor {x.name} must have rank in", *ranks,
                    "Received shape: ", array_ops.shape(x)]
        for r in ranks:
            check_ops.assert_type(r, dtypes.int32)
        static = [ops.constant_value(r) for r in ranks]
        known = x.get_shape().ndims
        if all(v is not None for v in static):
            if any(np.ndim(v) != 0 for v in static):
                raise ValueError("Rank must be a scalar.")
            values = [int(v) for v in static]
            if known is not None:
                if known not in values:
                    raise ValueError(
                        f"{message}.  Tensor {x.name} must have rank in "
                        f"{tuple(np.asarray(v, np.int32) for v in static)!r}.  "
                        f"Received rank {known}, shape {x.get_shape()}")
                return control_flow_ops.no_op(name="static_checks_determined_all_ok")
        r = array_ops.rank(x)
        cond = ops.convert_to_tensor(False)
        for q in ranks:
            cond = math_ops.logical_or(cond, math_ops.equal(q, r))
        for rank, value in zip(ranks, static):
            if value is None:  # catches assert_rank_in(x, [[n]]) and fed non-scalars
                check = check_ops.assert_rank(
                    rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
                cond = control_flow_ops.with_dependencies([check], cond)
        return Assert(cond, data, summarize=summarize)


def _parse_spec(spec):
    """A shape spec as (leading_ellipsis, [dims]); dims are int, str symbol, or None."""
    if isinstance(spec, str):
        spec = [s for s in spec.replace(",", " ").split()] if " " in spec or "," in spec else [
            spec]
    spec = list(spec)
    ellipsis = bool(spec) and spec[0] in ("*", "...")
    if ellipsis:
        spec = spec[1:]
    dims = []
    for d in spec:
        if d is None or d == "." or d == "?":
            dims.append(None)
        elif isinstance(d, str):
            if d in ("*", "..."):
                raise ValueError("Tensor specification may only have '*' as its first entry")
            dims.append(d)
        else:
            dims.append(int(d))
    return ellipsis, dims


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks tensors' shapes against specs: ints fix a size, strings name sizes that must
    agree across tensors, None/'.' accept any size, a leading '*' any leading dimensions.

    ``shapes``: a list of (tensor, spec) pairs or a dict. ValueError while building when the
    static shapes decide; otherwise Assert ops, grouped into the returned op.
    """
    from tideflow.ops import array_ops, math_ops

    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    message = message or ""
    with ops.name_scope(name, "assert_shapes", [p[0] for p in pairs]):
        checks = []
        sizes = {}  # symbol -> (static int or None, dynamic scalar, where)
        for x, spec in pairs:
            x = ops.convert_to_tensor(x)
            ellipsis, dims = _parse_spec(spec)
            if ellipsis:
                from tideflow.ops.check_ops import assert_rank_at_least

                checks.append(assert_rank_at_least(x, len(dims), message=message))
            else:
                from tideflow.ops.check_ops import assert_rank

                checks.append(assert_rank(x, len(dims), message=message))
            static = x.get_shape()
            rank = static.ndims
            for i, d in enumerate(dims):
                if d is None:
                    continue
                if ellipsis:
                    axis = (rank - len(dims) + i) if rank is not None else None
                    dyn_axis = i - len(dims)
                else:
                    axis, dyn_axis = i, i
                known = static.as_list()[axis] if axis is not None else None
                if isinstance(d, str):
                    if d not in sizes:
                        dyn = array_ops.shape(x)[dyn_axis] if known is None else known
                        sizes[d] = (known, dyn, f"Specified by tensor {x.name} dimension {i}")
                        continue
                    want_static, want_dyn, where = sizes[d]
                    if known is not None and want_static is None and isinstance(want_dyn, int):
                        want_static = want_dyn
                else:
                    want_static, want_dyn, where = d, d, "Specified explicitly"
                if known is not None and want_static is not None:
                    if known != want_static:
                        raise ValueError(
                            f"{message}.  {where}.  Tensor {x.name} dimension {i} must have size "
                            f"{want_static}.  Received size {known}, shape {static}")
                    continue
                got = array_ops.shape(x)[dyn_axis]
                want = ops.convert_to_tensor(want_dyn, dtype=dtypes.int32)
                checks.append(Assert(
                    math_ops.equal(got, want),
                    data if data is not None else [
                        message, where, f"Tensor {x.name} dimension", i, "must have size",
                        want, "Received shape: ", array_ops.shape(x)],
                    summarize=summarize))
        return control_flow_ops.group(*checks)


def assert_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t`` gated on a check that it has no NaN or Inf (``tf.debugging.assert_all_finite``)."""
    from tideflow.ops.numerics import verify_tensor_all_finite

    t = x if t is None else t
    msg = message if msg is None else msg
    if t is None:
        raise ValueError("assert_all_finite needs a tensor (t= or x=)")
    return verify_tensor_all_finite(t, msg, name=name)
