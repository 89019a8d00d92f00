"""Weight regularizers of ``tf.contrib.layers``: functions ``weights -> scalar penalty`` for
``get_variable(regularizer=...)`` and the layers, and ``apply_regularization``."""

import numbers

from tideflow import logging
from tideflow.framework import ops
from tideflow.ops import constant_op, math_ops, reduction_ops


def _check_scale(scale, what="scale", end=""):
    """Validates a Python scale; True when it is exactly 0 (the regularizer is disabled).
    ``end``: TF's l2 message ends with a period, its l1 one not."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"{what} cannot be an integer: {scale}")  # noqa: TRY004 - TF's type
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}{end}")
        if scale == 0.0:
            logging.info("Scale of 0 disables regularizer.")
            return True
    return False


def l1_regularizer(scale, scope=None):
    """A regularizer ``scale * sum(|w|)``; scale 0 gives one that returns None."""
    if _check_scale(scale):
        return lambda _: None

    def l1(weights, name=None):
        with ops.name_scope(scope, "l1_regularizer", [weights]) as ns:
            my_scale = ops.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(
                my_scale, reduction_ops.reduce_sum(math_ops.abs(weights)), name=ns)

    return l1


def l2_regularizer(scale, scope=None):
    """A regularizer ``scale * sum(w**2) / 2`` (``scale * tf.nn.l2_loss(w)``); scale 0 gives one
    that returns None."""
    if _check_scale(scale, end="."):
        return lambda _: None

    def l2(weights):
        from tideflow import nn

        with ops.name_scope(scope, "l2_regularizer", [weights]) as name:
            my_scale = ops.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, nn.l2_loss(weights), name=name)

    return l2


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """The sum of an L1 and an L2 regularizer (either scale may be 0 to leave it out)."""
    # the penalty op is named 'l1_l2_regularizer' (or ``scope``) even when one scale is 0
    scope = scope or "l1_l2_regularizer"
    if _check_scale(scale_l1, "scale_l1"):
        return l2_regularizer(scale_l2, scope)
    if _check_scale(scale_l2, "scale_l2", "."):
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def sum_regularizer(regularizer_list, scope=None):
    """A regularizer adding the penalties of ``regularizer_list`` (None entries are skipped);
    None when the list holds no regularizer."""
    regularizer_list = [r for r in regularizer_list if r is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights):
        with ops.name_scope(scope, "sum_regularizer", [weights]) as name:
            penalties = [p for p in (r(weights) for r in regularizer_list) if p is not None]
            return math_ops.add_n(penalties, name=name) if penalties else None

    return sum_reg


def apply_regularization(regularizer, weights_list=None):
    """Sums ``regularizer(w)`` over ``weights_list`` (default: the ``GraphKeys.WEIGHTS``
    collection), adds the sum to ``GraphKeys.REGULARIZATION_LOSSES`` and returns it."""
    if not weights_list:
        weights_list = ops.get_collection(ops.GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with ops.name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else constant_op.constant(0.0) for p in penalties]
        for p in penalties:
            if p.get_shape().ndims != 0:
                raise ValueError(
                    "regularizer must return a scalar Tensor instead of a Tensor with rank "
                    f"{p.get_shape().ndims}."
                )
        summed = math_ops.add_n(penalties, name=scope)
        ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed
