"""Projective image transforms (``tf.contrib.image``): ``transform``, ``rotate``,
``translate`` and the transform-matrix helpers, over the ImageProjectiveTransformV2 op.

A transform ``[a0, a1, a2, b0, b1, b2, c0, c1]`` maps each output pixel ``(x, y)`` to the
input point ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``, ``k = c0 x + c1 y + 1``,
read by nearest (rounded half away from zero) or bilinear interpolation, with 0 for points
outside the image. The op's gradient is the exact adjoint of that sampling (TF 1.x
approximates it by transforming the gradient with the inverse matrix, exact only for
nearest sampling of a bijection); the transforms get no gradient, as in TF.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import array_ops, cast_ops, concat_ops, constant_op, linalg_ops, math_ops
from tideflow.ops.array_ops import _in
from tideflow.ops.gradients import dense


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _coords(transforms, batch, out_h, out_w):
    """The input point (float32, as TF's kernel) each output pixel reads, and a mask of the
    pixels whose projection is 0: arrays [batch, out_h, out_w]."""
    t = np.asarray(transforms, dtype=np.float32)
    if t.shape[0] == 1 and batch > 1:
        t = np.broadcast_to(t, (batch, 8))
    y, x = np.meshgrid(np.arange(out_h, dtype=np.float32), np.arange(out_w, dtype=np.float32),
                       indexing="ij")
    a = t[:, :, None, None]
    k = a[:, 6] * x + a[:, 7] * y + np.float32(1)
    bad = k == 0
    k = np.where(bad, np.float32(1), k)
    in_x = (a[:, 0] * x + a[:, 1] * y + a[:, 2]) / k
    in_y = (a[:, 3] * x + a[:, 4] * y + a[:, 5]) / k
    return in_x, in_y, bad


def _taps(transforms, batch, out_h, out_w, interpolation):
    """Per output pixel the input rows, columns and weights it reads: arrays
    [batch, out_h, out_w, K] (K = 1 nearest, 4 bilinear)."""
    in_x, in_y, bad = _coords(transforms, batch, out_h, out_w)
    if interpolation == "NEAREST":
        rows = np.where(in_y >= 0, np.floor(in_y + 0.5), np.ceil(in_y - 0.5))[..., None]
        cols = np.where(in_x >= 0, np.floor(in_x + 0.5), np.ceil(in_x - 0.5))[..., None]
        weights = np.ones_like(rows)
    else:
        yf, xf = np.floor(in_y), np.floor(in_x)
        dy, dx = in_y - yf, in_x - xf
        rows = np.stack([yf, yf, yf + 1, yf + 1], -1)
        cols = np.stack([xf, xf + 1, xf, xf + 1], -1)
        weights = np.stack([(1 - dy) * (1 - dx), (1 - dy) * dx, dy * (1 - dx), dy * dx], -1)
    weights = np.where(bad[..., None], 0, weights).astype(np.float64)
    return rows, cols, weights


def _flat_index(rows, cols, in_h, in_w):
    """Flat pixel indices within one image and a mask of the in-bounds taps."""
    ok = (rows >= 0) & (rows < in_h) & (cols >= 0) & (cols < in_w)
    idx = np.where(ok, rows, 0).astype(np.int64) * in_w + np.where(ok, cols, 0).astype(
        np.int64)
    return idx, ok


def _check(images, transforms, output_shape):
    images = np.asarray(images)
    t = np.asarray(transforms)
    if images.ndim != 4:
        raise _invalid(f"ImageProjectiveTransformV2: images must be 4-D, got shape "
                       f"{list(images.shape)}")
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, images.shape[0]):
        raise _invalid("Input transform should be num_images x 8 or 1 x 8")  # (TF's words)
    size = np.asarray(output_shape).reshape(-1)
    if size.shape != (2,) or (size <= 0).any():
        raise _invalid(f"ImageProjectiveTransformV2: output_shape must be 2 positive ints, got "
                       f"{size.tolist()}")
    return images, t, int(size[0]), int(size[1])


def _transform_kernel(images, transforms, output_shape, *, interpolation, fill_mode):
    if fill_mode != "CONSTANT":
        raise _invalid(f"ImageProjectiveTransformV2: fill_mode {fill_mode!r} is not supported "
                       f"(only CONSTANT)")
    images, t, out_h, out_w = _check(images, transforms, output_shape)
    batch, in_h, in_w, channels = images.shape
    rows, cols, _ = _taps(t, batch, out_h, out_w, interpolation)
    idx, ok = _flat_index(rows, cols, in_h, in_w)
    flat = images.reshape(batch, in_h * in_w, channels)
    out = np.zeros((batch, out_h, out_w, channels), dtype=np.float64)
    if interpolation != "NEAREST":
        in_x, in_y, bad = _coords(t, batch, out_h, out_w)
    for b in range(batch):
        vals = np.where(ok[b][..., None], flat[b][idx[b]], 0)  # [out_h, out_w, K, C]
        if interpolation == "NEAREST":
            out[b] = vals[:, :, 0]
            continue
        # TF's kernel in float32 and in its order: along x on both rows, then along y
        vals = vals.astype(np.float32)
        x, y = in_x[b][..., None], in_y[b][..., None]
        xf, yf = np.floor(x), np.floor(y)
        xc, yc = xf + np.float32(1), yf + np.float32(1)
        at_yf = (xc - x) * vals[:, :, 0] + (x - xf) * vals[:, :, 1]
        at_yc = (xc - x) * vals[:, :, 2] + (x - xf) * vals[:, :, 3]
        out[b] = np.where(bad[b][..., None], 0, (yc - y) * at_yf + (y - yf) * at_yc)
    dt = images.dtype
    if np.issubdtype(dt, np.integer):
        return np.trunc(out).astype(dt)
    return out.astype(dt)


def _transform_grad_kernel(grads, transforms, image_shape, *, interpolation):
    grads = np.asarray(grads)
    shape = [int(d) for d in np.asarray(image_shape).reshape(-1)]
    batch, in_h, in_w, channels = shape
    out_h, out_w = grads.shape[1], grads.shape[2]
    t = np.asarray(transforms)
    rows, cols, weights = _taps(t, batch, out_h, out_w, interpolation)
    idx, ok = _flat_index(rows, cols, in_h, in_w)
    out = np.zeros((batch, in_h * in_w, channels), dtype=np.float64)
    for b in range(batch):
        w = np.where(ok[b], weights[b], 0.0)  # [out_h, out_w, K]
        contrib = grads[b][:, :, None, :].astype(np.float64) * w[..., None]
        for c in range(channels):
            out[b, :, c] = np.bincount(idx[b].reshape(-1), contrib[..., c].reshape(-1),
                                       minlength=in_h * in_w)
    return out.reshape(batch, in_h, in_w, channels).astype(grads.dtype)


def _transform_shape(op):
    s = _in(op, 0)
    t = _in(op, 1)
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {s.ndims} for "
                         f"'{op.name}' (op: 'ImageProjectiveTransformV2')")
    if t.ndims is not None and t.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {t.ndims} for transforms of "
                         f"'{op.name}'")
    # as TF's shape function: only a fully known size (a constant, or tf.shape(images)[1:3]
    # of a fully known height and width) sets the output's height and width
    size = ops.constant_value(op._inputs[2])
    h = w = None
    if size is not None:
        h, w = (int(v) for v in np.asarray(size).reshape(-1)[:2])
    if s.ndims is None:
        return [TensorShape([None, h, w, None])]
    return [TensorShape([s[0].value, h, w, s[3].value])]


def _transform_grad(op, grad):
    image = op.inputs[0]
    if not image.dtype.base_dtype.is_floating:
        return [None, None, None]
    # TF 1.15's gradient (not the exact adjoint, ImageProjectiveTransformV2Grad): the incoming
    # gradient transformed back by the inverse transforms, onto the image's size
    inverse = linalg_ops.matrix_inverse(flat_transforms_to_matrices(op.inputs[1]))
    g = ops.apply_op("ImageProjectiveTransformV2", [
        dense(grad), matrices_to_flat_transforms(inverse), array_ops.shape(image)[1:3]],
        {"interpolation": op.get_attr("interpolation")})._outputs[0]
    return [g, None, None]


op_registry.declare(
    "ImageProjectiveTransformV2",
    inputs=["images: dtype", "transforms: float32", "output_shape: int32"],
    outputs=["transformed_images: dtype"],
    attrs=["dtype: {uint8, int32, int64, half, float, double}", "interpolation: string",
           "fill_mode: string = 'CONSTANT'"],
    shape=_transform_shape,
    kernel=_transform_kernel,
    grad=_transform_grad,
)

op_registry.declare(
    "ImageProjectiveTransformV2Grad",
    inputs=["grads: T", "transforms: float32", "image_shape: int32"],
    outputs=["output: T"],
    attrs=["T: {half, float, double}", "interpolation: string"],
    shape=lambda op: [TensorShape([None] * 4)],
    kernel=_transform_grad_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# Python API (tf.contrib.image)
# ------------------------------------------------------------------------------------------


_IMAGE_DTYPES = (dtypes.uint8, dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32,
                 dtypes.float64)


def _as_4d(image_or_images):
    """(NHWC images, the input's rank) from HW, HWC or NHWC images, sliced as TF does."""
    if image_or_images.dtype.base_dtype not in _IMAGE_DTYPES:
        raise TypeError(f"Invalid dtype {image_or_images.dtype}.")
    rank = image_or_images.get_shape().ndims
    if rank is None:
        raise TypeError("image_or_images rank must be statically known")
    if rank == 2:
        return image_or_images[None, :, :, None], rank
    if rank == 3:
        return image_or_images[None, :, :, :], rank
    if rank == 4:
        return image_or_images, rank
    raise TypeError("Images should have rank between 2 and 4.")


def _from_4d(images, rank):
    if rank == 2:
        return images[0, :, :, 0]
    if rank == 3:
        return images[0, :, :, :]
    return images


# (each function below makes TF 1.15's ops in TF's order, so later ops number as in TF)


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """Applies projective ``transforms`` ([8] or [batch, 8]) to ``images`` (HW, HWC or
    NHWC); ``interpolation`` "NEAREST" or "BILINEAR"; points outside read 0."""
    with ops.name_scope(name, "transform"):
        image_or_images = ops.convert_to_tensor(images, name="images")
        transform_or_transforms = ops.convert_to_tensor(transforms, dtypes.float32,
                                                        name="transforms")
        images4, rank = _as_4d(image_or_images)
        if output_shape is None:
            # (TF's constant_value does not fold this slice: the op takes the slice itself)
            output_shape = array_ops.shape(images4)[1:3]
        output_shape = ops.convert_to_tensor(output_shape, dtypes.int32, name="output_shape")
        if not output_shape.get_shape().is_compatible_with([2]):
            raise ValueError("output_shape must be a 1-D Tensor of 2 elements: new_height, "
                             "new_width")
        t_rank = transform_or_transforms.get_shape().ndims
        if t_rank == 1:
            transforms = transform_or_transforms[None]
        elif t_rank is None:
            raise TypeError("transform_or_transforms rank must be statically known")
        elif t_rank == 2:
            transforms = transform_or_transforms
        else:
            raise TypeError("Transforms should have rank 1 or 2.")
        interpolation = interpolation.upper()
        if interpolation not in ("NEAREST", "BILINEAR"):
            raise ValueError(f"interpolation must be NEAREST or BILINEAR, got "
                             f"{interpolation!r}")
        out = ops.apply_op("ImageProjectiveTransformV2", [images4, transforms, output_shape],
                           {"interpolation": interpolation, "fill_mode": "CONSTANT"}
                           )._outputs[0]
        return _from_4d(out, rank)


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """[batch, 8] transforms rotating by ``angles`` (radians, counterclockwise) about the
    image centre."""
    with ops.name_scope(name, "angles_to_projective_transforms"):
        angles = ops.convert_to_tensor(angles, dtypes.float32, name="angles")
        rank = angles.get_shape().ndims
        if rank == 0:
            angles = angles[None]
        elif rank != 1:
            raise TypeError("Angles should have rank 0 or 1.")
        h, w = image_height, image_width
        # (the ops in Python's order of evaluation, as TF writes the expressions)
        x_offset = ((w - 1) - (math_ops.cos(angles) * (w - 1)
                               - math_ops.sin(angles) * (h - 1))) / 2.0
        y_offset = ((h - 1) - (math_ops.sin(angles) * (w - 1)
                               + math_ops.cos(angles) * (h - 1))) / 2.0
        num_angles = array_ops.shape(angles)[0]
        return concat_ops.concat([
            math_ops.cos(angles)[:, None], -math_ops.sin(angles)[:, None], x_offset[:, None],
            math_ops.sin(angles)[:, None], math_ops.cos(angles)[:, None], y_offset[:, None],
            array_ops.zeros((num_angles, 2), dtypes.float32)], axis=1)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """Rotates ``images`` by ``angles`` (radians, counterclockwise; one per image or one for
    all) about their centres; corners outside read 0."""
    with ops.name_scope(name, "rotate"):
        image_or_images = ops.convert_to_tensor(images)
        images4, rank = _as_4d(image_or_images)
        height = cast_ops.cast(array_ops.shape(images4)[1], dtypes.float32)[None]
        width = cast_ops.cast(array_ops.shape(images4)[2], dtypes.float32)[None]
        out = transform(images4, angles_to_projective_transforms(angles, height, width),
                        interpolation=interpolation)
        return _from_4d(out, rank)


def translations_to_projective_transforms(translations, name=None):
    """[batch, 8] transforms shifting images by ``translations`` ([dx, dy] or [batch, 2])."""
    with ops.name_scope(name, "translations_to_projective_transforms"):
        t = ops.convert_to_tensor(translations, dtypes.float32, name="translations")
        rank = t.get_shape().ndims
        if rank is None:
            raise TypeError("translation_or_translations rank must be statically known")
        if rank == 1:
            t = t[None]
        elif rank != 2:
            raise TypeError("Translations should have rank 1 or 2.")
        n = array_ops.shape(t)[0]
        return concat_ops.concat([
            array_ops.ones((n, 1), dtypes.float32), array_ops.zeros((n, 1), dtypes.float32),
            -t[:, 0, None], array_ops.zeros((n, 1), dtypes.float32),
            array_ops.ones((n, 1), dtypes.float32), -t[:, 1, None],
            array_ops.zeros((n, 2), dtypes.float32)], axis=1)


def translate(images, translations, interpolation="NEAREST", name=None):
    """Shifts ``images`` by ``translations`` ([dx, dy] pixels, one per image or one for
    all)."""
    with ops.name_scope(name, "translate"):
        return transform(images, translations_to_projective_transforms(translations),
                         interpolation=interpolation)


def flat_transforms_to_matrices(transforms):
    """[batch, 8] transforms as [batch, 3, 3] matrices."""
    with ops.name_scope("flat_transforms_to_matrices"):
        transforms = ops.convert_to_tensor(transforms, name="transforms")
        if transforms.get_shape().ndims not in (1, 2):
            raise ValueError(f"Transforms should be 1D or 2D, got: {transforms}")
        transforms = array_ops.reshape(transforms, constant_op.constant([-1, 8]))
        n = array_ops.shape(transforms)[0]
        return array_ops.reshape(
            concat_ops.concat([transforms, array_ops.ones([n, 1])], axis=1),
            constant_op.constant([-1, 3, 3]))


def matrices_to_flat_transforms(transform_matrices):
    """[batch, 3, 3] matrices as [batch, 8] transforms (normalized by the last entry)."""
    with ops.name_scope("matrices_to_flat_transforms"):
        m = ops.convert_to_tensor(transform_matrices, name="transform_matrices")
        if m.get_shape().ndims not in (2, 3):
            raise ValueError(f"Matrices should be 2D or 3D, got: {m}")
        flat = array_ops.reshape(m, constant_op.constant([-1, 9]))
        flat = flat / flat[:, 8:9]
        return flat[:, :8]


def compose_transforms(*transforms):
    """One transform: the product of the transforms' matrices, first to last (passed to
    ``transform`` it is the same as applying each of them in order)."""
    if not transforms:
        raise ValueError("compose_transforms needs at least one transform")
    with ops.name_scope("compose_transforms"):
        composed = flat_transforms_to_matrices(transforms[0])
        for t in transforms[1:]:
            composed = linalg_ops.matmul(composed, flat_transforms_to_matrices(t))
        return matrices_to_flat_transforms(composed)


__all__ = ["angles_to_projective_transforms", "compose_transforms",
           "flat_transforms_to_matrices", "matrices_to_flat_transforms", "rotate", "transform",
           "translate", "translations_to_projective_transforms"]
