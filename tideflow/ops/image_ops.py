"""Image geometry and bounding boxes: crops, pads, flips, rotations, random crops, and the ops
SampleDistortedBoundingBox(V2), DrawBoundingBoxes and NonMaxSuppression(V2, V3).

Colour ops live in ``image_color_ops``, resizing in ``image_resize_ops``, codecs in
``image_codec_ops``; ``tideflow.image`` gathers them all as ``tf.image``.
"""

import collections

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    concat_ops,
    cond,
    control_flow_ops,
    logging_ops,
    math_ops,
    pad_ops,
    random_ops,
    reduction_ops,
    slicing_ops,
    unary_ops,
)
from tideflow.ops.array_ops import _check_rank, _in, _np
from tideflow.ops.image_resize_ops import image_dimensions


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _is_tensor(x):
    return isinstance(x, ops.Tensor)


# ------------------------------------------------------------------------------------------
# checks shared by the wrappers
# ------------------------------------------------------------------------------------------


def check_3d_or_more(image):
    """ValueError unless ``image`` (a Tensor) can be an image of rank >= 3 with no zero dims;
    the shape with at least three dims (TF's static half of _CheckAtLeast3DImage)."""
    shape = image.get_shape()
    try:
        shape = shape.with_rank(3) if shape.ndims is None else shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError("'image' must be at least three-dimensional.") from None
    if any(d.value == 0 for d in shape.dims):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {shape}")
    return shape


def at_least_3d_checks(image):
    """TF 1.x's _CheckAtLeast3DImage(require_static=False): the static checks, then, for a
    shape not fully known, its two Assert ops (every dim > 0, rank >= 3); [] otherwise."""
    if check_3d_or_more(image).is_fully_defined():
        return []
    return [check_ops.assert_positive(array_ops.shape(image),
                                      ["all dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="'image' must be at least three-dimensional.")]


def assert_at_least_3d(image):
    """``image`` behind TF 1.x's checks (_AssertAtLeast3DImage): an Identity named
    control_dependency, as TF makes even when no Assert is needed."""
    return control_flow_ops.with_dependencies(at_least_3d_checks(image), image)


def check_3d(image):
    shape = image.get_shape()
    if shape.ndims is not None and shape.ndims != 3:
        raise ValueError(f"'image' (shape {shape}) must be three-dimensional.")
    if shape.ndims is not None and any(d.value == 0 for d in shape.dims):
        raise ValueError("all dims of 'image.shape' must be > 0.")


def assert_or_raise(cond, msg):
    """A Python condition raises ValueError(msg) when false; a tensor one gives [Assert op]."""
    if _is_tensor(cond):
        return [logging_ops.Assert(cond, [msg])]
    if not cond:
        raise ValueError(msg)
    return []


def _as_batch(image):
    """(4-D image, was it a batch); unknown rank is taken as a single 3-D image."""
    image = ops.convert_to_tensor(image, name="image")
    ndims = image.get_shape().ndims
    if ndims is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if ndims != 4:
        raise ValueError("'image' must have either 3 or 4 dimensions.")
    return image, True


def _unbatch(image, is_batch):
    return image if is_batch else array_ops.squeeze(image, axis=[0])


def _static(*xs):
    return [None if _is_tensor(x) else x for x in xs]


# ------------------------------------------------------------------------------------------
# crops and pads (each builds TF 1.x's checks, op for op, so later ops number as in TF)
# ------------------------------------------------------------------------------------------


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Crops ``image`` (3-D or 4-D) to the box with top-left corner at the offsets."""
    with ops.name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = _as_batch(image)
        deps = at_least_3d_checks(image)
        batch, height, width, depth = image_dimensions(image, 4)
        deps += assert_or_raise(offset_width >= 0, "offset_width must be >= 0.")
        deps += assert_or_raise(offset_height >= 0, "offset_height must be >= 0.")
        deps += assert_or_raise(target_width > 0, "target_width must be > 0.")
        deps += assert_or_raise(target_height > 0, "target_height must be > 0.")
        deps += assert_or_raise(width >= (target_width + offset_width),
                                "width must be >= target + offset.")
        deps += assert_or_raise(height >= (target_height + offset_height),
                                "height must be >= target + offset.")
        image = control_flow_ops.with_dependencies(deps, image)
        cropped = slicing_ops.slice(
            image, concat_ops.stack([0, offset_height, offset_width, 0]),
            concat_ops.stack([-1, target_height, target_width, -1]))
        cropped.set_shape(_static(batch, target_height, target_width, depth))
        return _unbatch(cropped, is_batch)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads ``image`` with zeros to ``target`` size, placing it at the offsets."""
    with ops.name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = _as_batch(image)
        deps = at_least_3d_checks(image)
        batch, height, width, depth = image_dimensions(image, 4)
        after_w = target_width - offset_width - width
        after_h = target_height - offset_height - height
        deps += assert_or_raise(offset_height >= 0, "offset_height must be >= 0")
        deps += assert_or_raise(offset_width >= 0, "offset_width must be >= 0")
        deps += assert_or_raise(after_w >= 0, "width must be <= target - offset")
        deps += assert_or_raise(after_h >= 0, "height must be <= target - offset")
        image = control_flow_ops.with_dependencies(deps, image)
        paddings = array_ops.reshape(
            concat_ops.stack([0, 0, offset_height, after_h, offset_width, after_w, 0, 0]),
            [4, 2])
        padded = pad_ops.pad(image, paddings)
        padded.set_shape(_static(batch, target_height, target_width, depth))
        return _unbatch(padded, is_batch)


def _max(x, y):
    return math_ops.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x, y):
    return math_ops.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def _equal(x, y):
    return math_ops.equal(x, y) if _is_tensor(x) or _is_tensor(y) else x == y


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops and/or zero-pads ``image`` to ``target_height`` x ``target_width``."""
    with ops.name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = _as_batch(image)
        deps = at_least_3d_checks(image)
        deps += assert_or_raise(target_width > 0, "target_width must be > 0.")
        deps += assert_or_raise(target_height > 0, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(deps, image)
        if _is_tensor(target_height):
            target_height = control_flow_ops.with_dependencies(deps, target_height)
        if _is_tensor(target_width):
            target_width = control_flow_ops.with_dependencies(deps, target_width)
        _, height, width, _ = image_dimensions(image, 4)
        width_diff = target_width - width
        crop_w, pad_w = _max(-width_diff // 2, 0), _max(width_diff // 2, 0)
        height_diff = target_height - height
        crop_h, pad_h = _max(-height_diff // 2, 0), _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(image, crop_h, crop_w, _min(target_height, height),
                                       _min(target_width, width))
        resized = pad_to_bounding_box(cropped, pad_h, pad_w, target_height, target_width)
        _, resized_h, resized_w, _ = image_dimensions(resized, 4)
        deps = assert_or_raise(_equal(resized_h, target_height), "resized height is not correct.")
        deps += assert_or_raise(_equal(resized_w, target_width), "resized width is not correct.")
        resized = control_flow_ops.with_dependencies(deps, resized)
        return _unbatch(resized, is_batch)


def central_crop(image, central_fraction):
    """Keeps the central ``central_fraction`` (in (0, 1]) of each spatial dimension."""
    with ops.name_scope(None, "central_crop", [image]):
        image = ops.convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        assert_at_least_3d(image)  # as TF 1.x: its checks are made, and nothing runs them
        ndims = image.get_shape().ndims
        if ndims not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             f"Had rank = {ndims}.")
        off = ndims - 3
        shape = image.get_shape().as_list()

        def dim(i):
            return shape[i] if shape[i] is not None else array_ops.shape(image)[i]

        def start(d):
            if _is_tensor(d):
                dd = cast_ops.cast(d, dtypes.float64)
                return cast_ops.cast((dd - dd * central_fraction) / 2, dtypes.int32)
            return int((float(d) - float(d) * central_fraction) / 2)

        h, w = dim(off), dim(off + 1)
        h0, w0 = start(h), start(w)
        hs, ws = h - h0 * 2, w - w0 * 2
        if ndims == 3:
            begin, size = concat_ops.stack([h0, w0, 0]), concat_ops.stack([hs, ws, -1])
        else:
            begin, size = concat_ops.stack([0, h0, w0, 0]), concat_ops.stack([-1, hs, ws, -1])
        out = slicing_ops.slice(image, begin, size)
        out.set_shape(shape[:off] + _static(hs, ws) + [shape[-1]])
        return out


def random_crop(value, size, seed=None, name=None):
    """A random ``size`` slice of ``value``, at a uniformly drawn offset."""
    with ops.name_scope(name, "random_crop", [value, size]) as scope:
        value = ops.convert_to_tensor(value, name="value")
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = logging_ops.Assert(
            reduction_ops.reduce_all(math_ops.greater_equal(shape, size)),
            ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_ops.random_uniform(array_ops.shape(shape), dtype=size.dtype,
                                           maxval=size.dtype.max, seed=seed) % limit
        return slicing_ops.slice(value, offset, size, name=scope)


# ------------------------------------------------------------------------------------------
# flips and rotations
# ------------------------------------------------------------------------------------------


def _fix_flip_shape(image, out):
    # TF treats an image of unknown rank as one 3-D image: the result is [None, None, None].
    shape = image.get_shape()
    out.set_shape([None, None, None] if shape.ndims is None else shape)
    return out


def in_data_function():
    """Whether ops are being made in a tf.data function, where TF 1.15 builds functional
    control flow (an If op and an Identity per output) instead of Switch/Merge frames, and
    random ops take their op seeds from the function's own op count."""
    return getattr(ops.get_default_graph(), "_counts_own_ops", False)


def _flip(image, axis, scope):
    with ops.name_scope(None, scope, [image]):
        image = assert_at_least_3d(ops.convert_to_tensor(image, name="image"))
        ndims = image.get_shape().ndims
        if ndims in (3, None):
            out = pad_ops.reverse(image, [axis])
        elif ndims == 4:
            return pad_ops.reverse(image, [axis + 1])
        else:
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        _fix_flip_shape(image, out)
        return out


def flip_left_right(image):
    """Reverses the width dimension of a 3-D or 4-D image."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """Reverses the height dimension of a 3-D or 4-D image."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis, seed, scope):
    with ops.name_scope(None, scope, [image]) as name:
        image = assert_at_least_3d(ops.convert_to_tensor(image, name="image"))
        ndims = image.get_shape().ndims
        if ndims in (3, None):
            u = random_ops.random_uniform([], 0, 1.0, seed=seed)
            pred = math_ops.less(u, 0.5)
            # TF 1.x's cond (a functional If here, counted as TF's Switch/Merge frame, or as
            # TF 1.15's If in a tf.data function), so later ops number as in TF
            out = cond.cond(pred, lambda: pad_ops.reverse(image, [axis]), lambda: image,
                            name=name)
        elif ndims == 4:
            batch = array_ops.shape(image)[0]
            u = random_ops.random_uniform([batch], 0, 1.0, seed=seed)
            flips = unary_ops.round(array_ops.reshape(u, [batch, 1, 1, 1]))
            flips = cast_ops.cast(flips, image.dtype)
            flipped = pad_ops.reverse(image, [axis + 1])
            return flips * flipped + (1 - flips) * image
        else:
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        _fix_flip_shape(image, out)
        return out


def random_flip_left_right(image, seed=None):
    """Flips ``image`` left-right with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Flips ``image`` upside down with probability 1/2 (each image of a batch on its own)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose_image(image, name=None):
    """Swaps height and width of a 3-D or 4-D image (``tf.image.transpose``)."""
    with ops.name_scope(name, "transpose", [image]):
        image = assert_at_least_3d(ops.convert_to_tensor(image, name="image"))
        ndims = image.get_shape().ndims
        if ndims in (3, None):
            return array_ops.transpose(image, [1, 0, 2], name=name)
        if ndims == 4:
            return array_ops.transpose(image, [0, 2, 1, 3], name=name)
        raise ValueError("'image' must have either 3 or 4 dimensions.")


def _rot90_static(image, k, off):
    if k == 0:
        return image
    if k == 2:
        return pad_ops.reverse(image, [off, off + 1])
    perm = [0, 2, 1, 3] if off else [1, 0, 2]
    if k == 1:
        return array_ops.transpose(pad_ops.reverse(image, [off + 1]), perm)
    return pad_ops.reverse(array_ops.transpose(image, perm), [off + 1])


def rot90(image, k=1, name=None):
    """Rotates a 3-D or 4-D image by ``k`` quarter turns counter-clockwise."""
    from tideflow.ops.cond import case

    with ops.name_scope(name, "rot90", [image, k]) as scope:
        image = assert_at_least_3d(ops.convert_to_tensor(image, name="image"))
        k = ops.convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.get_shape().assert_has_rank(0)
        k = math_ops.floormod(k, 4)
        ndims = image.get_shape().ndims
        if ndims not in (3, 4, None):
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        off = 1 if ndims == 4 else 0
        preds = [math_ops.equal(k, i) for i in (1, 2, 3)]
        # TF 1.x selects the rotation with an exclusive case (its check and nested conds take
        # 53 op ids) even for a constant k; tideflow builds the one rotation a constant k
        # asks for, or a plain case, and skips to TF's count so later ops number as in TF
        graph = ops.get_default_graph()
        first = graph._next_id
        kv = ops.constant_value(k)
        if in_data_function():  # TF's ops, an If op for each cond (and so TF's op count)
            pairs = [(p, lambda i=i: _rot90_static(image, i, off))
                     for p, i in zip(preds, (1, 2, 3))]
            out = case(pairs, default=lambda: image, exclusive=True, name=scope)
        elif kv is None:
            pairs = [(p, lambda i=i: _rot90_static(image, i, off))
                     for p, i in zip(preds, (1, 2, 3))]
            out = case(pairs, default=lambda: image, name=scope)
        else:
            out = array_ops.identity(_rot90_static(image, int(kv), off), name="cond/Merge")
        graph._skip_op_ids(to=first + 53)
        # TF's case merges the shapes of all four rotations whatever k is: the sizes stay
        # known only for a square image (a constant k's rotation alone would know them)
        shape = image.get_shape()
        if shape.ndims is not None:
            h, w = shape[off], shape[off + 1]
            side = h if h.value is not None and h.value == w.value else None
            out._shape = TensorShape(list(shape[:off]) + [side, side, shape[off + 2]])
        return out


# ------------------------------------------------------------------------------------------
# SampleDistortedBoundingBox(V2)
# ------------------------------------------------------------------------------------------


def _area(r):
    return float((r[2] - r[0]) * (r[3] - r[1]))


def _intersect(a, b):
    r = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return (0, 0, 0, 0) if r[0] > r[2] or r[1] > r[3] else r


def _covers(crop, min_covered, boxes):
    if _area(crop) < 1.0:
        return False
    for box in boxes:
        a = _area(box)
        if a >= 1.0 and np.float32(_area(_intersect(crop, box)) / a) >= min_covered:
            return True
    return False


def _random_crop_rect(width, height, min_rel, max_rel, aspect, gen):
    """TF's crop proposal: height drawn between the area bounds, then a uniform position."""
    if max_rel <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    f32 = np.float32
    min_area = f32(min_rel) * f32(width) * f32(height)
    max_area = f32(max_rel) * f32(width) * f32(height)
    h = int(np.rint(np.sqrt(min_area / aspect)))
    max_h = int(np.rint(np.sqrt(max_area / aspect)))
    if np.rint(f32(max_h) * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(gen.integers(0, max_h - h + 1))
    w = int(np.rint(f32(h) * aspect))
    area = float(w * h)
    if area < min_area:
        h += 1
        w = int(np.rint(f32(h) * aspect))
        area = float(w * h)
    if area > max_area:
        h -= 1
        w = int(np.rint(f32(h) * aspect))
        area = float(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(gen.integers(0, height - h)) if h < height else 0
    x = int(gen.integers(0, width - w)) if w < width else 0
    return (x, y, x + w, y + h)


def _range_str(pair):
    # the float attrs as TF's StrCat prints them ([0, 1.5], not [0.0, 1.5])
    from tideflow.ops.logging_ops import _format_float

    return f"[{_format_float(float(pair[0]), 32)}, {_format_float(float(pair[1]), 32)}]"


def _check_ranges(aspect_ratio_range, area_range, max_attempts):
    if len(aspect_ratio_range) != 2:
        raise _invalid("Aspect ratio range field must specify 2 dimensions")
    if not (aspect_ratio_range[0] > 0 and aspect_ratio_range[1] > 0):
        raise _invalid(
            f"Aspect ratio range must be non-negative: {_range_str(aspect_ratio_range)}")
    if len(area_range) != 2:
        raise _invalid("Area range field must specify 2 dimensions")
    if not (area_range[0] > 0 and area_range[1] > 0):
        raise _invalid(f"Area range must be non-negative: {_range_str(area_range)}")
    if not (area_range[0] <= 1 and area_range[1] <= 1):
        raise _invalid(
            f"Area range must be less then or equal to 1.0: {_range_str(area_range)}")
    if max_attempts <= 0:
        raise _invalid(f"Max attempts must be non-negative: {max_attempts}")


class _SimplePhiloxDraws:
    """TF's SimplePhilox over one run's reservation (seeded ops): RandFloat from one 32-bit
    word, Uniform(n) as a word modulo n."""

    def __init__(self, stream, words):
        from tideflow.ops import philox

        self._philox = philox
        blocks = (words + 3) // 4
        base = stream.counter
        stream.counter = (base + blocks) & ((1 << 128) - 1)
        self._words = stream.blocks(base, blocks).astype(np.uint32).reshape(-1)
        self._pos = 0

    def _next(self):
        w = self._words[self._pos % self._words.size]  # TF reuses bits past its estimate
        self._pos += 1
        return w

    def random(self):
        return self._philox._float01(np.asarray([self._next()], np.uint32))[0]

    def integers(self, low, high):
        return low + int(self._next()) % (high - low)


def _sample_box_kernel(ctx):
    gen = random_ops._generator(ctx)
    stream = random_ops._philox_stream(ctx)
    a = ctx.op._attrs
    np_t = a["T"].as_numpy_dtype
    aspect, area_r = [float(v) for v in a["aspect_ratio_range"]], [float(v) for v in
                                                                    a["area_range"]]
    attempts, use_image = int(a["max_attempts"]), bool(a["use_image_if_no_bounding_boxes"])

    def run(image_size, bounding_boxes, min_object_covered=None):
        _check_ranges(aspect, area_r, attempts)
        if min_object_covered is None:
            min_covered = float(a["min_object_covered"])
        else:
            mc = _np(min_object_covered)
            if mc.ndim:
                raise _invalid(f"min_object_covered must be 0-D, got shape {list(mc.shape)}")
            min_covered = float(mc)
        if min_covered < 0:
            raise _invalid(f"Min object covered must be non-negative: {min_covered}")
        size = _np(image_size)
        if size.ndim != 1:
            raise _invalid(f"image_size must be 1-dimensional{list(size.shape)}")
        if size.shape[0] != 3:
            raise _invalid(f"image_size must contain 3 elements{list(size.shape)}")
        height, width = int(size[0]), int(size[1])
        boxes = _np(bounding_boxes).astype(np.float32)
        if boxes.ndim != 3:
            raise _invalid(f"input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                           f"{list(boxes.shape)}")
        if boxes.shape[-1] != 4:
            raise _invalid(f"bounding boxes must have shape [4] or [*, 4], got "
                           f"{list(boxes.shape)}")
        flat = boxes.reshape(-1, 4)
        bad = (flat < 0) | (flat > 1)
        if bad.any():
            raise _invalid(f"All bounding box coordinates must be in [0.0, 1.0]: "
                           f"{flat[bad][0]}")
        rects = [(int(b[1] * np.float32(width)), int(b[0] * np.float32(height)),
                  int(b[3] * np.float32(width)), int(b[2] * np.float32(height))) for b in flat]
        image_rect = (0, 0, width, height)
        if not rects:
            if not use_image:
                raise _invalid("No bounding boxes provided as input. One must enable "
                               "use_image_if_no_bounding_boxes if you wish to not provide "
                               "any bounding boxes.")
            rects = [image_rect]
        crop = None
        draws = gen if stream is None else _SimplePhiloxDraws(stream, 4 * attempts)
        f32 = np.float32
        for _ in range(attempts):
            ratio = float(f32(draws.random()) * (f32(aspect[1]) - f32(aspect[0])) + f32(aspect[0]))
            c = _random_crop_rect(width, height, area_r[0], area_r[1], ratio, draws)
            if c is not None and _covers(c, min_covered, rects):
                crop = c
                break
        if crop is None:
            crop = image_rect
        x0, y0, x1, y1 = crop
        begin = np.array([y0, x0, 0], np.int64).astype(np_t)
        # the channel size is -1 cast to T (255 for uint8, as TF's kernel gives)
        sz = np.array([y1 - y0, x1 - x0, -1], np.int64).astype(np_t)
        box = np.array([[[y0 / height, x0 / width, y1 / height, x1 / width]]], np.float32)
        return begin, sz, box

    return run


def _sample_box_shape(op):
    # TF's order: the ranks, then image_size's 3 and the boxes' 4 coordinates
    _check_rank(_in(op, 0), 1)
    _check_rank(_in(op, 1), 3)
    if len(op._inputs) > 2:
        _check_rank(_in(op, 2), 0)
    for t, pos, want in ((_in(op, 0), 0, 3), (_in(op, 1), 2, 4)):
        n = t.dims[pos].value if t.ndims is not None else None
        if n is not None and n != want:
            raise ValueError(f"Dimension must be {want} but is {n}")
    return [[3], [3], [1, 1, 4]]


# 1.33 and 0.05 as the float32 values they become in an AttrValue, so defaults round-trip
_BOX_ATTRS = ["T: {uint8, int8, int16, int32, int64}", "seed: int = 0", "seed2: int = 0",
              "aspect_ratio_range: list(float) = [0.75, 1.33]",
              "area_range: list(float) = [0.05, 1.0]", "max_attempts: int = 100",
              "use_image_if_no_bounding_boxes: bool = false"]

op_registry.declare(
    "SampleDistortedBoundingBox",
    inputs=["image_size: T", "bounding_boxes: float"],
    outputs=["begin: T", "size: T", "bboxes: float"],
    attrs=_BOX_ATTRS + ["min_object_covered: float = 0.1"],
    shape=_sample_box_shape,
    kernel_factory=_sample_box_kernel,
    differentiable=False,
    stateful=True,
    is_random=True,
)
op_registry.declare(
    "SampleDistortedBoundingBoxV2",
    inputs=["image_size: T", "bounding_boxes: float", "min_object_covered: float"],
    outputs=["begin: T", "size: T", "bboxes: float"],
    attrs=_BOX_ATTRS,
    shape=_sample_box_shape,
    kernel_factory=_sample_box_kernel,
    differentiable=False,
    stateful=True,
    is_random=True,
)


SampleDistortedBoundingBoxOutput = collections.namedtuple(
    "SampleDistortedBoundingBoxV2", ["begin", "size", "bboxes"])


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None,
                                  min_object_covered=0.1, aspect_ratio_range=None,
                                  area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop of an image of ``image_size`` covering part of ``bounding_boxes``.

    Returns ``(begin, size, bboxes)``: ``begin``/``size`` feed ``tf.slice``; ``bboxes`` is the
    crop as a [1, 1, 4] box. ``seed``/``seed2`` go to the op as they are (as in TF 1.x).
    """
    with ops.name_scope(name, "sample_distorted_bounding_box"):
        # (the op coerces them: a tensor is TF's "Expected int for argument" TypeError)
        attrs = {"seed": 0 if seed is None else seed, "seed2": 0 if seed2 is None else seed2}
        if aspect_ratio_range is not None:
            attrs["aspect_ratio_range"] = [float(v) for v in aspect_ratio_range]
        if area_range is not None:
            attrs["area_range"] = [float(v) for v in area_range]
        if max_attempts is not None:
            attrs["max_attempts"] = int(max_attempts)
        if use_image_if_no_bounding_boxes is not None:
            attrs["use_image_if_no_bounding_boxes"] = bool(use_image_if_no_bounding_boxes)
        # a Python min_object_covered becomes the op's own constant, as in TF
        op = ops.apply_op("SampleDistortedBoundingBoxV2",
                          [image_size, bounding_boxes, min_object_covered], attrs)
        return SampleDistortedBoundingBoxOutput(*op._outputs)  # TF's namedtuple


def sample_distorted_bounding_box_v2(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                     aspect_ratio_range=None, area_range=None,
                                     max_attempts=None, use_image_if_no_bounding_boxes=None,
                                     name=None):
    """TF 2's form (``tf.compat.v2.image``): a non-zero ``seed`` goes through the graph-level
    seed rule (get_seed); 0 leaves the op unseeded."""
    from tideflow.framework import random_seed

    seed1, seed2 = random_seed.get_seed(seed) if seed else (0, 0)
    return sample_distorted_bounding_box(image_size, bounding_boxes, seed1, seed2,
                                         min_object_covered, aspect_ratio_range, area_range,
                                         max_attempts, use_image_if_no_bounding_boxes, name)


# ------------------------------------------------------------------------------------------
# DrawBoundingBoxes
# ------------------------------------------------------------------------------------------

_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                    [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1],
                    [1, 0, 1, 1]])


def _draw_boxes_kernel(images, boxes, colors=None):
    img = _np(images)
    bx = _np(boxes).astype(np.float32)
    if img.ndim != 4:
        raise _invalid(f"The rank of the images should be 4{list(img.shape)}")
    # TF 1.15's checks and words (a box row longer than 4 has its first 4 drawn, as TF)
    if bx.ndim != 3:
        raise _invalid("The rank of the boxes tensor should be 3")
    if bx.shape[0] != img.shape[0]:
        raise _invalid("The batch sizes should be the same")
    if bx.shape[-1] < 4:
        raise _invalid(f"boxes must be [batch, num_boxes, 4], got {list(bx.shape)}")
    out = img.copy()
    _, h, w, depth = img.shape
    if depth not in (1, 3, 4):
        raise _invalid("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if colors is not None:
        colors = _np(colors).astype(np.float32)
        if colors.ndim != 2:
            raise _invalid(f"colors must be a 2-D matrix{list(colors.shape)}")
        if colors.shape[1] < depth:
            raise _invalid(f"colors must have equal or more channels than the image provided: "
                           f"{list(colors.shape)}")
    if colors is None or colors.size == 0:
        colors = _COLORS.copy()
        if depth == 1:
            colors[:, 0] = 1
    nc = min(depth, 4)
    for b in range(img.shape[0]):
        for i in range(bx.shape[1]):
            color = colors[i % len(colors), :nc].astype(img.dtype)
            r0 = int(bx[b, i, 0] * np.float32(h - 1))
            c0 = int(bx[b, i, 1] * np.float32(w - 1))
            r1 = int(bx[b, i, 2] * np.float32(h - 1))
            c1 = int(bx[b, i, 3] * np.float32(w - 1))
            if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                continue  # inverted, or wholly outside the image: not drawn
            rr0, rr1, cc0, cc1 = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
            if r0 >= 0:
                out[b, r0, cc0:cc1 + 1, :nc] = color
            if r1 < h:
                out[b, r1, cc0:cc1 + 1, :nc] = color
            if c0 >= 0:
                out[b, rr0:rr1 + 1, c0, :nc] = color
            if c1 < w:
                out[b, rr0:rr1 + 1, c1, :nc] = color
    return out


def _draw_boxes_shape(op):
    # TF 1.15's shape function: images of 1, 3 or 4 channels, boxes [batch, n, 4]; the
    # output is the images' shape as given (unknown rank stays unknown)
    images, boxes = _in(op, 0), _in(op, 1)
    _check_rank(images, 4)
    if images.ndims and images.dims[3].value not in (None, 1, 3, 4):
        raise ValueError("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    _check_rank(boxes, 3)
    if boxes.ndims and boxes.dims[2].value not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {boxes.dims[2].value}")
    return [images]


op_registry.declare(
    "DrawBoundingBoxes",
    inputs=["images: T", "boxes: float"],
    outputs=["output: T"],
    attrs=["T: {float, half} = DT_FLOAT"],
    shape=_draw_boxes_shape,
    kernel=_draw_boxes_kernel,
    differentiable=False,
)

op_registry.declare(
    "DrawBoundingBoxesV2",
    inputs=["images: T", "boxes: float", "colors: float"],
    outputs=["output: T"],
    attrs=["T: {float, half} = DT_FLOAT"],
    shape=_draw_boxes_shape,
    kernel=_draw_boxes_kernel,
    differentiable=False,
)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """Draws ``boxes`` ([batch, n, 4], normalized y_min, x_min, y_max, x_max) on ``images``,
    cycling through ``colors`` ([n_colors, 4] RGBA rows; TF's default table when None)."""
    if colors is None:
        return ops.apply_op("DrawBoundingBoxes", [images, boxes], name=name)._outputs[0]
    return ops.apply_op("DrawBoundingBoxesV2", [images, boxes, colors],
                        name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# NonMaxSuppression, V2, V3
# ------------------------------------------------------------------------------------------


def _corners(b):
    """Boxes' (ymin, xmin, ymax, xmax, area), from corners in any order (TF's std::min/max:
    a NaN second corner is not taken)."""
    from tideflow.ops.nms_ops import c_max, c_min

    y0, x0 = c_min(b[..., 0], b[..., 2]), c_min(b[..., 1], b[..., 3])
    y1, x1 = c_max(b[..., 0], b[..., 2]), c_max(b[..., 1], b[..., 3])
    return y0, x0, y1, x1, (y1 - y0) * (x1 - x0)


def _iou_one(box, others):
    """IoU of ``box`` with each row of ``others`` (corners in any order); 0 for empty boxes."""
    return _iou_corners(_corners(box), _corners(others))


def _iou_corners(box, others):
    """IoU from ``_corners``: elementwise, so boxes against others broadcast to a matrix."""
    from tideflow.ops.nms_ops import c_max, c_min

    y0, x0, y1, x1, a = box
    oy0, ox0, oy1, ox1, oa = others
    zero = np.result_type(y0).type(0)
    inter = (c_max(c_min(y1, oy1) - c_max(y0, oy0), zero) *
             c_max(c_min(x1, ox1) - c_max(x0, ox0), zero))
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / (a + oa - inter)
    return np.where((a <= 0) | (oa <= 0), 0.0, iou)


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold=-np.inf):
    from tideflow.ops.nms_ops import _greedy_nms, nms_inputs

    b, s, m, iou_t, score_t, _ = nms_inputs(boxes, scores, max_output_size, iou_threshold,
                                            score_threshold)
    b = b.astype(np.float32)
    s = s.astype(np.float32)
    if m < 0:
        m = len(s)
    score_t = np.float32(score_t)
    order = np.argsort(-s, kind="stable")
    order = order[s[order] > score_t]
    if len(np.unique(s[order])) < len(order) or np.isnan(b).any():
        # tied scores: TF's priority queue decides their order (and a NaN coordinate's IoU
        # sends its candidates back into the queue at score 0)
        keep, _ = _greedy_nms(lambda ij: _iou_one(b[ij[0]], b[ij[1]]), s, m, iou_t, score_t)
        return np.array(keep, np.int32)
    # candidates in blocks: a block's IoUs with the boxes kept before it and among
    # itself come as matrices; each candidate is kept unless a kept box overlaps it
    corners = _corners(b[order])
    kept = []
    for start in range(0, len(order), _NMS_BLOCK):
        if len(kept) >= m:
            break
        block = [c[start:start + _NMS_BLOCK] for c in corners]
        rows = [c[:, None] for c in block]
        # TF suppresses at an IoU equal to the threshold too
        if kept:
            before = [c[kept][None, :] for c in corners]
            alive = ~(_iou_corners(rows, before) >= iou_t).any(1)
        else:
            alive = np.ones(len(block[0]), dtype=bool)
        overlaps = _iou_corners(rows, [c[None, :] for c in block]) >= iou_t
        for i in np.flatnonzero(alive).tolist():
            if not alive[i]:
                continue
            kept.append(start + i)
            if len(kept) >= m:
                break
            if not overlaps[i, i]:
                # TF 1.15's kernel pushes a selected box back into its queue, where it is on
                # top again and meets itself: an empty (or NaN) box, whose IoU with itself is
                # 0 (NaN), is selected again, so it fills the rest of the output
                kept.extend([start + i] * (m - len(kept)))
                break
            alive &= ~overlaps[:, i]
        else:
            continue
        break
    return order[kept].astype(np.int32)


_NMS_BLOCK = 128


def check_nms_boxes(boxes, scores, columns=4):
    """TF's NMS shape checks, in its order: boxes[0] merges with scores[0], then boxes[1]
    is 4 (``columns=None``: an overlaps matrix, whose two dimensions merge instead)."""
    def merge(a, b):
        if a is not None and b is not None and a != b:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")

    if boxes.ndims != 2:
        return
    if scores.ndims == 1:
        merge(boxes.dims[0].value, scores.dims[0].value)
    if columns is None:
        merge(boxes.dims[0].value, boxes.dims[1].value)
    elif boxes.dims[1].value not in (None, columns):
        raise ValueError(f"Dimension must be {columns} but is {boxes.dims[1].value}")


def _nms_shape(op):
    _check_rank(_in(op, 0), 2)
    _check_rank(_in(op, 1), 1)
    for t in op._inputs[2:]:
        _check_rank(t._shape, 0)
    check_nms_boxes(_in(op, 0), _in(op, 1))
    return [[None]]


def _nms_v1(boxes, scores, max_output_size, *, iou_threshold):
    return _nms(boxes, scores, max_output_size, iou_threshold)


# V2 and V3 take half or float boxes/scores (T) and thresholds (T_threshold), as TF 1.15
_NMS_T = ["T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT"]
for _name, _box_t, _ins, _attrs, _kernel in (
    ("NonMaxSuppression", "float", [], ["iou_threshold: float = 0.5"], _nms_v1),
    ("NonMaxSuppressionV2", "T", ["iou_threshold: T_threshold"], _NMS_T, _nms),
    ("NonMaxSuppressionV3", "T", ["iou_threshold: T_threshold", "score_threshold: T_threshold"],
     _NMS_T, _nms),
):
    op_registry.declare(
        _name,
        inputs=[f"boxes: {_box_t}", f"scores: {_box_t}", "max_output_size: int32"] + _ins,
        outputs=["selected_indices: int32"],
        attrs=_attrs,
        shape=_nms_shape,
        kernel=_kernel,
        differentiable=False,
    )


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """Indices of boxes kept by greedy non-max suppression, by decreasing score."""
    with ops.name_scope(name, "non_max_suppression"):
        iou = ops.convert_to_tensor(iou_threshold, dtypes.float32, name="iou_threshold")
        score = ops.convert_to_tensor(score_threshold, dtypes.float32, name="score_threshold")
        return ops.apply_op("NonMaxSuppressionV3",
                            [boxes, scores, max_output_size, iou, score])._outputs[0]


# ------------------------------------------------------------------------------------------
# total variation
# ------------------------------------------------------------------------------------------


def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels (per image for a 4-D batch)."""
    with ops.name_scope(name, "total_variation"):
        images = ops.convert_to_tensor(images, name="images")
        ndims = images.get_shape().ndims
        if ndims == 3:
            d1 = images[1:, :, :] - images[:-1, :, :]
            d2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            d1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            d2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (reduction_ops.reduce_sum(unary_ops.abs(d1), axis=axis) +
                reduction_ops.reduce_sum(unary_ops.abs(d2), axis=axis))


def non_max_suppression_with_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                      score_threshold=float("-inf"), name=None):
    """TF 1.15's ``image_ops`` name of ``tf.image.non_max_suppression_overlaps``."""
    from tideflow.ops.nms_ops import non_max_suppression_overlaps

    return non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold,
                                        score_threshold, name=name)



# TF 1.15's image_ops also holds the TF 2 resize (resize_images_v2 with its ResizeMethod
# strings, here ResizeMethodV2) and the ScaleAndTranslate op it uses; importing the module
# registers the op
from tideflow.ops.image_resize_ops import ResizeMethod as ResizeMethodV1  # noqa: F401
from tideflow.ops.image_scale_ops import (  # noqa: F401
    ResizeMethodV2,
    resize_image_with_pad_v1,
    resize_image_with_pad_v2,
    resize_images_v2,
    scale_and_translate,
)

