"""``tf.norm`` (and ``tf.linalg.norm``): vector and matrix norms composed of existing ops, as TF."""

import numbers

import numpy as np

from tideflow.framework import ops


def _is_int(a):
    return isinstance(a, (numbers.Integral, np.integer)) and not isinstance(a, bool)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):
    """The norm of ``tensor``: a vector norm over ``axis`` (an int, or None for the whole
    tensor), or a matrix norm over a 2-tuple ``axis``; ``ord`` is 'euclidean', 'fro', 1, 2,
    ``np.inf`` or (vectors) any positive real p."""
    from tideflow.ops import array_ops, math_ops, reduction_ops, unary_ops

    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not _is_int(axis[0]) or not _is_int(axis[1]) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if not any(_same_ord(ord, s) for s in supported):
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
    else:
        if not (_is_int(axis) or axis is None):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique integers")
        supported = ["euclidean", 1, 2, np.inf]
        real = isinstance(ord, numbers.Real) and not isinstance(ord, bool)
        if not (real and ord > 0) and not any(_same_ord(ord, s) for s in supported):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (int(axis),)

    with ops.name_scope(name, "norm", [tensor]):
        tensor = ops.convert_to_tensor(tensor)
        if any(_same_ord(ord, s) for s in ("fro", "euclidean", 2)):
            if is_matrix_norm and _same_ord(ord, 2):
                result = _matrix_2_norm(tensor, axis)
            else:
                result = unary_ops.sqrt(reduction_ops.reduce_sum(
                    tensor * math_ops.conj(tensor), axis, keepdims=True))
        else:
            result = unary_ops.abs(tensor)
            if _same_ord(ord, 1):
                result = reduction_ops.reduce_sum(result, None if axis is None else axis[0],
                                                  keepdims=True)
                if is_matrix_norm:
                    result = reduction_ops.reduce_max(result, axis[-1], keepdims=True)
            elif _same_ord(ord, np.inf):
                if is_matrix_norm:
                    result = reduction_ops.reduce_sum(result, axis[1], keepdims=True)
                result = reduction_ops.reduce_max(result, None if axis is None else axis[0],
                                                  keepdims=True)
            else:  # a general positive p
                result = math_ops.pow(
                    reduction_ops.reduce_sum(math_ops.pow(result, ord), axis, keepdims=True),
                    1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def _same_ord(ord, s):
    if isinstance(s, str) or isinstance(ord, str):
        return isinstance(ord, str) and ord == s
    return not isinstance(ord, bool) and isinstance(ord, numbers.Real) and ord == s


def _matrix_2_norm(tensor, axis):
    """The largest singular value over the two ``axis`` dims, kept as size-1 dims there: the
    two axes moved last through a run-time permutation, and moved back, as TF 1.15 builds it
    (so, as TF's, the result's rank is known but none of its dimensions)."""
    from tideflow.framework import dtypes
    from tideflow.ops import (
        array_ops,
        concat_ops,
        counting_ops,
        functional_ops,
        gather_ops,
        range_ops,
        reduction_ops,
        svd_ops,
        unary_ops,
    )

    rank = array_ops.rank(tensor)
    pair = ops.convert_to_tensor(list(axis), dtypes.int32)
    # a negative axis counts from the end once (an axis out of range fails in the transpose);
    # mapped element by element in a loop, as TF 1.15's, so that its value is no constant that
    # shape inference evaluates (the permutations' shapes stay unknown as in TF)
    pair = functional_ops.map_fn(lambda i: array_ops.where(i >= 0, i, i + rank), pair)
    rest, _ = counting_ops.setdiff1d(range_ops.range(rank), pair)
    perm = concat_ops.concat([rest, pair], 0)
    s = svd_ops.svd(array_ops.transpose(tensor, perm), compute_uv=False)
    top = reduction_ops.reduce_max(unary_ops.abs(s), -1, keepdims=True)
    return array_ops.transpose(array_ops.expand_dims(top, -1),
                               gather_ops.invert_permutation(perm))
