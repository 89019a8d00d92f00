"""``tf.contrib.image.dense_image_warp`` and its bilinear query helper
(``interpolate_bilinear``), composed of gathers so gradients reach both image and flow,
as TF 1.x builds them."""

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    constant_op,
    gather_ops,
    math_ops,
    range_ops,
    unary_ops,
)


def interpolate_bilinear(grid, query_points, name="interpolate_bilinear", indexing="ij"):
    """Values of ``grid`` ([batch, height, width, channels]) at the float ``query_points``
    ([batch, n, 2], (y, x) for 'ij' or (x, y) for 'xy'); points are clamped to the grid."""
    if indexing not in ("ij", "xy"):
        raise ValueError("Indexing mode must be 'ij' or 'xy'")
    with ops.name_scope(name):
        grid = ops.convert_to_tensor(grid)
        query_points = ops.convert_to_tensor(query_points)
        if grid.get_shape().ndims != 4:
            raise ValueError(f"Grid must be 4 dimensional. Received size: {grid.get_shape()}")
        if query_points.get_shape().ndims not in (None, 3):
            raise ValueError("Query points must be 3 dimensional.")
        dyn = array_ops.shape(grid)
        batch_size, height, width, channels = dyn[0], dyn[1], dyn[2], dyn[3]
        sizes = [height, width]
        num_queries = array_ops.shape(query_points)[1]
        query_type, grid_type = query_points.dtype, grid.dtype
        unstacked = concat_ops.unstack(query_points, axis=2)
        alphas, floors, ceils = [], [], []
        for dim in ([0, 1] if indexing == "ij" else [1, 0]):
            with ops.name_scope("dim-" + str(dim)):
                queries = unstacked[dim]
                # the largest floor is size - 2, so that floor + 1 is still inside the grid
                max_floor = cast_ops.cast(sizes[dim] - 2, query_type)
                min_floor = constant_op.constant(0.0, dtype=query_type)
                floor = math_ops.minimum(math_ops.maximum(min_floor, unary_ops.floor(queries)),
                                         max_floor)
                int_floor = cast_ops.cast(floor, dtypes.int32)
                floors.append(int_floor)
                ceils.append(int_floor + 1)
                alpha = cast_ops.cast(queries - floor, grid_type)
                alpha = math_ops.minimum(math_ops.maximum(
                    constant_op.constant(0.0, dtype=grid_type), alpha),
                    constant_op.constant(1.0, dtype=grid_type))
                alphas.append(array_ops.expand_dims(alpha, 2))
        flat = array_ops.reshape(grid, concat_ops.stack([batch_size * height * width, channels]))
        offsets = array_ops.reshape(range_ops.range(batch_size) * height * width,
                                    concat_ops.stack([batch_size, 1]))

        def gather(y, x, corner):
            with ops.name_scope("gather-" + corner):
                values = gather_ops.gather(flat, offsets + y * width + x)
                return array_ops.reshape(
                    values, concat_ops.stack([batch_size, num_queries, channels]))

        top_left = gather(floors[0], floors[1], "top_left")
        top_right = gather(floors[0], ceils[1], "top_right")
        bottom_left = gather(ceils[0], floors[1], "bottom_left")
        bottom_right = gather(ceils[0], ceils[1], "bottom_right")
        with ops.name_scope("interpolate"):
            top = alphas[1] * (top_right - top_left) + top_left
            bottom = alphas[1] * (bottom_right - bottom_left) + bottom_left
            return alphas[0] * (bottom - top) + top


def dense_image_warp(image, flow, name="dense_image_warp"):
    """``output[b, i, j] = image[b, i - flow[b, i, j, 0], j - flow[b, i, j, 1]]``, read
    bilinearly (``flow`` is [batch, height, width, 2] in pixels)."""
    with ops.name_scope(name):
        image = ops.convert_to_tensor(image)
        flow = ops.convert_to_tensor(flow)
        dyn = array_ops.shape(image)
        batch_size, height, width, channels = dyn[0], dyn[1], dyn[2], dyn[3]
        grid_x, grid_y = range_ops.meshgrid(range_ops.range(width), range_ops.range(height))
        stacked = cast_ops.cast(concat_ops.stack([grid_y, grid_x], axis=2), flow.dtype)
        query = array_ops.expand_dims(stacked, axis=0) - flow
        query = array_ops.reshape(query, concat_ops.stack([batch_size, height * width, 2]))
        out = interpolate_bilinear(image, query)
        out = array_ops.reshape(out, concat_ops.stack([batch_size, height, width, channels]))
        out.set_shape(image.get_shape())
        return out


__all__ = ["dense_image_warp"]
