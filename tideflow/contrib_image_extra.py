"""More of ``tf.contrib.image``: hue/saturation/value changes in YIQ space
(``adjust_hsv_in_yiq``, ``random_hsv_in_yiq``, composed of a 3x3 colour matrix) and
``connected_components`` (the ``ImageConnectedComponents`` op, NumPy union-find)."""

import collections

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    gather_ops,
    linalg_ops,
    math_ops,
    random_ops,
    unary_ops,
)

_YIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.322], [0.211, -0.523, 0.312]],
                np.float32)
_YIQ_INVERSE = np.array([[1, 0.95617069, 0.62143257], [1, -0.2726886, -0.64681324],
                         [1, -1.103744, 1.70062309]], np.float32)


def adjust_hsv_in_yiq(image, delta_hue=0, scale_saturation=1, scale_value=1, name=None):
    """Rotates the hue by ``delta_hue`` radians and scales saturation and value of RGB
    ``image`` [..., 3] in YIQ space (computed in float32, returned in the image's dtype)."""
    from tideflow.ops import image_color_ops

    with ops.name_scope(name, "adjust_hsv_in_yiq", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if image.get_shape().ndims is not None and image.get_shape().ndims < 3:
            raise ValueError(f"adjust_hsv_in_yiq: input must be at least 3-D, got shape "
                             f"{image.get_shape()}")
        if image.get_shape().ndims is not None and image.get_shape()[-1].value not in (None, 3):
            raise ValueError(f"adjust_hsv_in_yiq: input must have 3 channels, got shape "
                             f"{image.get_shape()}")
        orig = image.dtype
        flt = image_color_ops.convert_image_dtype(image, dtypes.float32)
        f32 = dtypes.float32
        delta = ops.convert_to_tensor(delta_hue, dtype=f32)
        s = ops.convert_to_tensor(scale_saturation, dtype=f32)
        v = ops.convert_to_tensor(scale_value, dtype=f32)
        vsu = v * s * unary_ops.cos(delta)
        vsw = v * s * unary_ops.sin(delta)
        zero = constant_op.constant(0.0, f32)
        hsv = concat_ops.stack([concat_ops.stack([v, zero, zero]),
                                concat_ops.stack([zero, vsu, -vsw]),
                                concat_ops.stack([zero, vsw, vsu])])
        matrix = linalg_ops.matmul(linalg_ops.matmul(constant_op.constant(_YIQ_INVERSE), hsv),
                                   constant_op.constant(_YIQ))
        pixels = array_ops.reshape(flt, [-1, 3])
        out = array_ops.reshape(linalg_ops.matmul(pixels, matrix, transpose_b=True),
                                array_ops.shape(flt))
        out.set_shape(image.get_shape())
        return image_color_ops.convert_image_dtype(out, orig)


def random_hsv_in_yiq(image, max_delta_hue=0, lower_saturation=1, upper_saturation=1,
                      lower_value=1, upper_value=1, seed=None):
    """``adjust_hsv_in_yiq`` with the hue delta uniform in [-max_delta_hue, max_delta_hue]
    and the scales uniform in their ranges."""
    if max_delta_hue < 0:
        raise ValueError("max_delta must be non-negative.")
    if lower_saturation < 0:
        raise ValueError("lower_saturation must be non-negative.")
    if lower_value < 0:
        raise ValueError("lower_value must be non-negative.")
    if lower_saturation > upper_saturation:
        raise ValueError("lower_saturation must be < upper_saturation.")
    if lower_value > upper_value:
        raise ValueError("lower_value must be < upper_value.")
    delta_hue = (0 if max_delta_hue == 0 else
                 random_ops.random_uniform([], -max_delta_hue, max_delta_hue, seed=seed))
    scale_s = (upper_saturation if lower_saturation == upper_saturation else
               random_ops.random_uniform([], lower_saturation, upper_saturation, seed=seed))
    scale_v = (upper_value if lower_value == upper_value else
               random_ops.random_uniform([], lower_value, upper_value, seed=seed))
    return adjust_hsv_in_yiq(image, delta_hue, scale_s, scale_v)


def _connected_components_kernel(image):
    """Per image, 4-connected runs of equal non-zero pixels share a label: the row-major
    index (over the batch) of their first pixel, plus one; background is 0."""
    image = np.asarray(image)
    batch, h, w = image.shape
    n = image.size
    parent = np.arange(n)

    def find(i):
        root = i
        while parent[root] != root:
            root = parent[root]
        while parent[i] != root:
            parent[i], i = root, parent[i]
        return root

    flat = image.reshape(-1)
    fg = flat != 0
    idx = np.arange(n).reshape(batch, h, w)
    for a, b in ((idx[:, :, :-1], idx[:, :, 1:]), (idx[:, :-1, :], idx[:, 1:, :])):
        a, b = a.reshape(-1), b.reshape(-1)
        same = fg[a] & (flat[a] == flat[b])
        for i, j in zip(a[same].tolist(), b[same].tolist(), strict=True):
            ri, rj = find(i), find(j)
            if ri != rj:
                parent[max(ri, rj)] = min(ri, rj)
    roots = np.array([find(i) for i in range(n)], dtype=np.int64)
    return np.where(fg, roots + 1, 0).reshape(batch, h, w)


op_registry.declare(
    "ImageConnectedComponents",
    inputs=["image: dtype"],
    outputs=["components: int64"],
    attrs=[("dtype: {int64, int32, uint16, int16, uint8, int8, half, float, double, bool, "
           "string}")],
    shape=lambda op: [op._inputs[0]._shape.with_rank(3) if op._inputs[0]._shape.ndims
                      is not None else op._inputs[0]._shape],
    kernel=_connected_components_kernel,
    differentiable=False,
)


def connected_components(images):
    """Labels 4-connected components of equal non-zero pixels in ``images`` (HW or NHW):
    1, 2, ... in row-major order of their first pixel over the batch, 0 for background."""
    with ops.name_scope("connected_components"):
        image_or_images = ops.convert_to_tensor(images, name="images")
        rank = image_or_images.get_shape().ndims
        if rank == 2:
            batch = image_or_images[None, :, :]
        elif rank == 3:
            batch = image_or_images
        else:
            raise TypeError(f"images should have rank 2 (HW) or 3 (NHW). Static shape is "
                            f"{image_or_images.get_shape()}")
        raw = ops.apply_op("ImageConnectedComponents", [batch], {}).outputs[0]
        flat = array_ops.reshape(raw, [-1])
        unique_ids, index = gather_ops.unique(flat)
        # consecutive ids by first appearance, keeping 0 for the background (int32, as TF's
        # range of new ids)
        is_zero = cast_ops.cast(math_ops.equal(unique_ids, 0), dtypes.int32)
        from tideflow.ops import reduction_ops

        new_ids = (reduction_ops.cumsum(1 - is_zero)) * (1 - is_zero)
        out = array_ops.reshape(gather_ops.gather(new_ids, index), array_ops.shape(raw))
        return out[0] if rank == 2 else out


def _bipartite_match_kernel(distance_mat, num_valid_rows, *, top_k):
    from tideflow.framework import errors

    dist = np.asarray(distance_mat, np.float32)
    if dist.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"distance_mat should be 2-dimensional, but got {list(dist.shape)}")
    valid = np.asarray(num_valid_rows, np.float32)
    if valid.size != 1:
        raise errors.InvalidArgumentError(
            None, None, "num_valid_rows argument should be a tensor with 1 element, but got "
            f"{valid.size}")
    rows, cols = dist.shape
    n_valid = int(valid.reshape(-1)[0] + 0.1) if valid.reshape(-1)[0] >= 0 else rows
    if n_valid > rows:
        raise errors.InvalidArgumentError(
            None, None, f"There should be at least {n_valid} rows in distance_mat, but only "
            f"got {rows} rows.")
    limit = top_k if top_k > 0 else n_valid * cols
    row_match = np.full(rows, -1, np.int32)
    col_match = np.full(cols, -1, np.int32)
    # greedy: the closest free pair first (ties by row, then column)
    order = np.lexsort((np.tile(np.arange(cols), n_valid), np.repeat(np.arange(n_valid), cols),
                        dist[:n_valid].reshape(-1)))
    matched = 0
    for k in order.tolist():
        r, c = divmod(k, cols)
        if row_match[r] == -1 and col_match[c] == -1:
            row_match[r], col_match[c] = c, r
            matched += 1
            if matched >= limit:
                break
    return row_match, col_match


op_registry.declare(
    "BipartiteMatch",
    inputs=["distance_mat: float", "num_valid_rows: float"],
    outputs=["row_to_col_match_indices: int32", "col_to_row_match_indices: int32"],
    attrs=["top_k: int = -1"],
    shape=lambda op: [op._inputs[0]._shape.with_rank(2)[:1],
                      op._inputs[0]._shape.with_rank(2)[1:]],
    kernel=_bipartite_match_kernel,
    differentiable=False,
)


# the generated op wrapper's result type in TF 1.15, which bipartite_match returns as it is
BipartiteMatch = collections.namedtuple(
    "BipartiteMatch", ["row_to_col_match_indices", "col_to_row_match_indices"])


def bipartite_match(distance_mat, num_valid_rows, top_k=-1, name="bipartite_match"):
    """Greedy bipartite matching of the rows (the first ``num_valid_rows``; all if
    negative) and columns of ``distance_mat`` [rows, cols], closest pairs first, at most
    ``top_k`` matches; returns (row -> column, column -> row) int32 indices, -1 unmatched."""
    distance_mat = ops.convert_to_tensor(distance_mat, dtype=dtypes.float32)
    num_valid_rows = ops.convert_to_tensor(num_valid_rows, dtype=dtypes.float32)
    op = ops.apply_op("BipartiteMatch", [distance_mat, num_valid_rows], {"top_k": top_k},
                      name=name)
    return BipartiteMatch(op.outputs[0], op.outputs[1])


__all__ = ["adjust_hsv_in_yiq", "bipartite_match", "connected_components",
           "random_hsv_in_yiq"]
