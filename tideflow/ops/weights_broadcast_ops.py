"""Weights broadcast to values, as the metrics and losses take them: a scalar, or a tensor of the
values' rank whose every dimension is 1 or the values' own. Known shapes are checked when the
graph is built (ValueError); unknown ones by an Assert when the step runs."""

import numpy as np

from tideflow.framework import ops
from tideflow.ops import (
    array_ops,
    cond,
    control_flow_ops,
    fill_ops,
    logging_ops,
    math_ops,
    reduction_ops,
)

_PREFIX = "weights can not be broadcast to values."


def assert_broadcastable(weights, values):
    """An op that fails unless ``weights`` can be broadcast to ``values`` (a no-op when the
    static shapes already show it can; ValueError when they show it cannot)."""
    with ops.name_scope(None, "assert_broadcastable", (weights, values)) as scope:
        # the shape and rank ops come first, as TF makes them (Consts where they are known),
        # so the graph holds the ops TF's holds whichever check decides
        with ops.name_scope(None, "weights", (weights,)) as weights_scope:
            weights = ops.convert_to_tensor(weights, name=weights_scope)
            w_shape = array_ops.shape(weights, name="shape")
            w_rank = array_ops.rank(weights, name="rank")
        with ops.name_scope(None, "values", (values,)) as values_scope:
            values = ops.convert_to_tensor(values, name=values_scope)
            v_shape = array_ops.shape(values, name="shape")
            v_rank = array_ops.rank(values, name="rank")
        ws, vs = weights.get_shape(), values.get_shape()
        if ws.ndims == 0 and vs.ndims is not None:
            # (TF 1.15 decides statically only with both ranks known: a scalar's check for
            # values of unknown rank is the dynamic one)
            return control_flow_ops.no_op(name="static_scalar_check_success")
        if ws.ndims is not None and vs.ndims is not None:
            if ws.ndims != vs.ndims:
                raise ValueError(f"{_PREFIX} values.rank={vs.ndims}. weights.rank={ws.ndims}. "
                                 f"values.shape={vs}. weights.shape={ws}.")
            for i, (w, v) in enumerate(zip(ws.as_list(), vs.as_list())):
                if w is not None and v is not None and w != 1 and w != v:
                    # TF prints the two static shapes as NumPy arrays here
                    raise ValueError(f"{_PREFIX} Mismatch at dim {i}. "
                                     f"values.shape={np.array(vs.as_list())} "
                                     f"weights.shape={np.array(ws.as_list())}.")
            if ws.is_fully_defined() and vs.is_fully_defined():
                return control_flow_ops.no_op(name="static_dims_check_success")
        graph = ops.get_default_graph()
        first = graph._next_id
        is_scalar = math_ops.equal(0, w_rank, name="is_scalar")

        def dims_valid():
            return reduction_ops.reduce_all(math_ops.logical_or(
                math_ops.equal(w_shape, 1), math_ops.equal(w_shape, v_shape)))

        def nonscalar_valid():
            same_rank = math_ops.equal(w_rank, v_rank)
            return cond.cond(same_rank, dims_valid, lambda: same_rank)

        valid = cond.cond(is_scalar, lambda: is_scalar, nonscalar_valid, name="is_valid_shape")
        data = [_PREFIX, "weights.shape=", weights.name, w_shape, "values.shape=", values.name,
                v_shape, "is_scalar=", is_scalar]
        before = graph._next_id
        check = logging_ops.Assert(valid, data, name=scope)
        # (the whole check is counted below: the ids Assert skips for its own guard, none
        # of them used, are handed back)
        graph._next_id = max(check._id + 1, before)
        # TF 1.15 builds these checks from Switch/Merge conds (is_valid_shape with a nested
        # cond, then the Assert's AssertGuard): _TF_DYNAMIC_CHECK_OPS ops from is_scalar on.
        # Our functional conds hold fewer; the ids of the rest are skipped, so that the ops
        # made after the check (and the seeds of random ones) get TF's op count
        if graph._next_id - first < _TF_DYNAMIC_CHECK_OPS:
            graph._next_id = first + _TF_DYNAMIC_CHECK_OPS
        return check


_TF_DYNAMIC_CHECK_OPS = 59


def broadcast_weights(weights, values):
    """``weights`` broadcast to the shape of ``values`` (after :func:`assert_broadcastable`)."""
    with ops.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = ops.convert_to_tensor(values, name="values")
        weights = ops.convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        ws, vs = weights.get_shape(), values.get_shape()
        if ws.is_fully_defined() and vs.is_fully_defined() and ws.is_compatible_with(vs):
            return weights
        with ops.control_dependencies((assert_broadcastable(weights, values),)):
            return math_ops.multiply(weights, fill_ops.ones_like(values), name=scope)
