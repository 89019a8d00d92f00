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
        # TF 1.15's ops: the first rank's Equal, then an Equal and LogicalOr per other rank
        cond = ops.convert_to_tensor(False) if not ranks else math_ops.equal(ranks[0], r)
        for q in ranks[1:]:
            cond = math_ops.logical_or(cond, math_ops.equal(q, r))
        for rank, value in zip(ranks, static):
            if value is None:  # catches assert_rank_in(x, [[n]]) and fed non-scalars
                check = check_ops.assert_rank(
                    rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
                cond = control_flow_ops.with_dependencies([check], cond)
        return Assert(cond, data, summarize=summarize)


def _dimension_sizes(x):
    """``x``'s sizes: ints where the static shape knows them, else scalar tensors; a scalar
    counts as one dimension of size 1 (TF 1.15's rule), an unknown rank as a cond on it."""
    from tideflow.ops import array_ops, math_ops
    from tideflow.ops.cond import cond

    dynamic = array_ops.shape(x)
    rank = x.get_shape().ndims
    if rank == 0:
        return (1,)
    if rank is not None:
        return [d if d is not None else dynamic[i] for i, d in enumerate(x.get_shape().as_list())]
    return cond(math_ops.equal(array_ops.rank(x), 0), lambda: ops.convert_to_tensor([1]),
                lambda: dynamic)


def _known_size(size):
    """``size`` as an int when it is one (or a string of one), else None."""
    if size is None or isinstance(size, ops.Tensor):
        return None
    try:
        return int(size)
    except (ValueError, TypeError):
        return None


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks tensors' shapes against specs: ints fix a size, other symbols name sizes that
    must agree across tensors, None/'.' accept any size, a leading '*' or ``...`` any leading
    dimensions.

    ``shapes``: a list of (tensor, spec) pairs or a dict. As TF 1.15, an empty spec means
    ``(1,)`` and a scalar passes a one-dimension spec of size 1. ValueError while building
    when the static shapes decide; otherwise Assert ops, grouped into the returned op.
    """
    from tideflow.ops import array_ops, check_ops, math_ops

    if isinstance(shapes, dict):
        shapes = shapes.items()
    message = message or ""
    with ops.name_scope(name, "assert_shapes", [shapes, data]):
        specs = []  # (tensor, leading ellipsis, actual sizes, spec)
        for x, spec in [(ops.convert_to_tensor(x), s) for x, s in shapes if s is not None]:
            if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
                raise ValueError(
                    f"{message}.  Tensor {x.name}.  Specified shape must be an iterable.  "
                    "An iterable has the attribute `__iter__` or `__getitem__`.  "
                    f"Received specified shape: {spec}")
            spec = tuple(spec)
            leading = False
            for i, symbol in enumerate(spec):
                if symbol in (Ellipsis, "*"):
                    if i != 0:
                        raise ValueError(
                            f"{message}.  Tensor {x.name} specified shape index {i}.  Symbol "
                            "`...` or `*` for a variable number of unspecified dimensions is "
                            "only allowed as the first entry")
                    leading = True
            spec = spec[1:] if leading else spec
            specs.append((x, leading, _dimension_sizes(x), spec or (1,)))

        rank_checks = []
        kwargs = {"data": data, "summarize": summarize, "message": message, "name": name}
        for x, leading, _, spec in specs:
            rank = len(spec)
            if leading:
                if rank > 1:
                    rank_checks.append(check_ops.assert_rank_at_least(x, rank, **kwargs))
            elif rank == 1:
                rank_checks.append(assert_rank_in(x, [0, 1], **kwargs))
            else:
                rank_checks.append(check_ops.assert_rank(x, rank, **kwargs))

        size_checks = []
        seen = {}  # symbol -> (size, tensor, dimension) where it first appeared
        for x, leading, sizes, spec in specs:
            for i, symbol in enumerate(spec):
                if symbol is None or symbol == ".":
                    continue
                dim = i - len(spec) if leading else i
                explicit = _known_size(symbol)
                if explicit is None and symbol not in seen:
                    seen[symbol] = (sizes[dim], x, dim)
                    continue
                if explicit is not None:
                    want, where = explicit, "Specified explicitly"
                else:
                    want, by, by_dim = seen[symbol]
                    where = f"Specified by tensor {by.name} dimension {by_dim}"
                got = sizes[dim]
                if _known_size(got) is not None and _known_size(want) is not None:
                    if int(got) != int(want):
                        raise ValueError(
                            f"{message}.  {where}.  Tensor {x.name} dimension {dim} must have "
                            f"size {int(want)}.  Received size {int(got)}, "
                            f"shape {x.get_shape()}")
                    continue
                condition = math_ops.equal(ops.convert_to_tensor(got),
                                           ops.convert_to_tensor(want))
                check_data = data if data is not None else [
                    message, where, f"Tensor {x.name} dimension", dim, "must have size", want,
                    "Received shape: ", array_ops.shape(x)]
                size_checks.append(Assert(condition, check_data, summarize=summarize))

        with ops.control_dependencies(rank_checks):
            return control_flow_ops.group(*size_checks)


def assert_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t`` gated on a check that it has no NaN or Inf (``tf.debugging.assert_all_finite``)."""
    from tideflow.ops.numerics import verify_tensor_all_finite

    t = x if t is None else t
    msg = message if msg is None else msg
    if t is None:
        raise ValueError("assert_all_finite needs a tensor (t= or x=)")
    return verify_tensor_all_finite(t, msg, name=name)
