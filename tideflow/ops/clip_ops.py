"""Clipping tensors by norm: ``tf.clip_by_norm``, ``tf.clip_by_global_norm``, ``tf.global_norm``
and ``tf.clip_by_average_norm`` (``tf.clip_by_value`` lives with the math ops)."""

import collections.abc

from tideflow.framework import dtypes, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    fill_ops,
    gather_ops,
    math_ops,
    range_ops,
    reduction_ops,
)
from tideflow.ops.math_ops import clip_by_value

__all__ = ["clip_by_average_norm", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
           "global_norm"]


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: rescales ``t`` so its L2 norm (over
    ``axes``, default all) is at most ``clip_norm``. IndexedSlices clip their values."""
    with ops.name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = ops.convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t,
                                       name="t")
        l2sum = reduction_ops.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        # the sqrt of a safe value, so a zero tensor has a finite gradient
        l2sum_safe = gather_ops.where(pred, l2sum, fill_ops.ones_like(l2sum))
        l2norm = gather_ops.where(pred, math_ops.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm  # a number converts inside the ops, as in TF
        values.get_shape().merge_with(intermediate.get_shape())
        clipped = array_ops.identity(intermediate / math_ops.maximum(l2norm, clip_norm),
                                     name=scope)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


def _check_sequence(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, (str, bytes)):
        raise TypeError("t_list should be a sequence")


def _values(t_list):
    return [
        ops.convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=f"t_{i}")
        if t is not None else None
        for i, t in enumerate(t_list)
    ]


def global_norm(t_list, name=None):
    """``sqrt(sum(l2norm(t) ** 2 for t in t_list))``; None entries are skipped and
    IndexedSlices count their values."""
    _check_sequence(t_list)
    t_list = list(t_list)
    with ops.name_scope(name, "global_norm", [t for t in t_list if t is not None]):
        values = _values(t_list)
        half_squared_norms = []
        for v in values:
            if v is not None:
                with ops.colocate_with(v):  # L2Loss: sum(v ** 2) / 2, TF 1.15's op
                    half_squared_norms.append(
                        ops.apply_op("L2Loss", [v])._outputs[0])
        if half_squared_norms:
            half_squared_norm = reduction_ops.reduce_sum(concat_ops.stack(half_squared_norms))
        else:
            half_squared_norm = constant_op.constant(0.0)
        return math_ops.sqrt(
            half_squared_norm * constant_op.constant(2.0, dtype=half_squared_norm.dtype),
            name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(list_clipped, global_norm)``; None entries stay None, IndexedSlices stay
    IndexedSlices. ``use_norm`` supplies an already computed global norm.
    """
    _check_sequence(t_list)
    t_list = list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with ops.name_scope(name, "clip_by_global_norm",
                        [t for t in t_list if t is not None] + [clip_norm]) as scope:
        scale = clip_norm * math_ops.minimum(
            1.0 / use_norm, constant_op.constant(1.0, dtype=use_norm.dtype) / clip_norm)
        # as TF: an infinite global norm makes every entry NaN, to signal it
        from tideflow.ops.unary_ops import is_finite

        scale = gather_ops.where(is_finite(use_norm), scale,
                                 constant_op.constant(float("nan"), dtype=use_norm.dtype))
        values = _values(t_list)
        values_clipped = []
        for i, v in enumerate(values):
            if v is None:
                values_clipped.append(None)
                continue
            with ops.colocate_with(v):
                s = scale if v.dtype.base_dtype == scale.dtype.base_dtype else cast_ops.cast(
                    scale, v.dtype.base_dtype)
                values_clipped.append(array_ops.identity(v * s, name=f"{scope}_{i}"))
        list_clipped = [
            IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else c
            for c, t in zip(values_clipped, t_list)
        ]
    return list_clipped, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """Rescales ``t`` so its L2 norm divided by its number of elements is at most
    ``clip_norm``."""
    with ops.name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = ops.convert_to_tensor(t, name="t")
        n_element = cast_ops.cast(array_ops.size(t), dtypes.float32)
        l2norm_inv = math_ops.rsqrt(reduction_ops.reduce_sum(
            t * t, range_ops.range(array_ops.rank(t))))
        return array_ops.identity(
            t * clip_norm * math_ops.minimum(l2norm_inv * n_element,
                                             constant_op.constant(1.0) / clip_norm),
            name=scope)
