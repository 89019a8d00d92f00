"""``tensorflow.python.ops.image_ops_impl``: where TF 1.15 defines ``tf.image``. Its names
resolve to tideflow's image ops (``image_ops_impl.ResizeMethod`` is
``tf.image.ResizeMethod``, ``resize_images_v2`` is TF 1.15's image_ops one); it also holds
``_verify_compatible_image_shapes``, the shape check psnr/ssim programs call."""

import importlib as _importlib

_SOURCES = ("tideflow.ops.image_ops", "tideflow.image", "tideflow.ops.image_color_ops",
            "tideflow.ops.image_filter_ops", "tideflow.ops.image_resize_ops")


def __dir__():
    return sorted(set(globals()) | {n for src in _SOURCES
                                    for n in dir(_importlib.import_module(src))})


def _resize_methods():
    from tideflow.ops.image_resize_ops import ResizeMethod as v1
    from tideflow.ops.image_scale_ops import ResizeMethodV2 as v2

    return {"ResizeMethod": v2, "ResizeMethodV2": v2, "ResizeMethodV1": v1}


def _verify_compatible_image_shapes(img1, img2):
    """(shape of img1, shape of img2, [Assert ops]) for two images or batches that psnr/ssim
    can compare: rank >= 3, equal height/width/channels, batch dims broadcastable.
    Raises ValueError when the static shapes already disagree."""
    from tideflow.ops import array_ops, logging_ops, math_ops, reduction_ops

    s1 = img1.get_shape().with_rank_at_least(3)
    s2 = img2.get_shape().with_rank_at_least(3)
    s1[-3:].assert_is_compatible_with(s2[-3:])
    if s1.ndims is not None and s2.ndims is not None:
        for a, b in zip(reversed(s1.dims[:-3]), reversed(s2.dims[:-3])):
            if a.value != 1 and b.value != 1 and not a.is_compatible_with(b):
                raise ValueError(f"Two images are not compatible: {s1} and {s2}")
    shape1, shape2 = array_ops.shape(img1), array_ops.shape(img2)
    checks = [
        logging_ops.Assert(math_ops.greater_equal(array_ops.size(shape1), 3),
                           [shape1, shape2], summarize=10),
        logging_ops.Assert(
            reduction_ops.reduce_all(math_ops.equal(shape1[-3:], shape2[-3:])),
            [shape1, shape2], summarize=10),
    ]
    return shape1, shape2, checks


def __getattr__(name):
    # TF 1.15's image_ops_impl.ResizeMethod is the string one (TF 2's), ResizeMethodV1 the ints
    if name in ("ResizeMethod", "ResizeMethodV1", "ResizeMethodV2"):
        return _resize_methods()[name]
    for src in _SOURCES:
        mod = _importlib.import_module(src)
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


