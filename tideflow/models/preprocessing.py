"""Inception-style image preprocessing with ``tf.image``: for training a random crop from
``sample_distorted_bounding_box``, a resize by a randomly chosen method, a random flip and colour
jitter (brightness, saturation, hue, contrast in a random order); for evaluation a central crop
of 87.5% and a bilinear resize. Outputs are float32 [height, width, 3] scaled to [-1, 1]."""

import tideflow as tf


def _resize_methods():
    # the four methods of tf.image.ResizeMethod, as the batch ops they stand for
    return (tf.image.resize_bilinear, tf.image.resize_nearest_neighbor,
            tf.image.resize_bicubic, tf.image.resize_area)


def _resize(image, height, width, method):
    """Resizes one [h, w, c] image with method number ``method`` (0..3)."""
    resized = _resize_methods()[method](tf.expand_dims(image, 0), [height, width])
    return tf.squeeze(resized, [0])


def apply_with_random_selector(x, func, num_cases):
    """``func(x, case)`` for a ``case`` drawn uniformly from ``range(num_cases)`` per call; only
    the selected case runs (nested ``tf.cond``s on one random integer)."""
    sel = tf.random_uniform([], maxval=num_cases, dtype=tf.int32)

    def branch(case):
        if case == num_cases - 1:
            return func(x, case)
        return tf.cond(tf.equal(sel, case), lambda: func(x, case), lambda: branch(case + 1))

    return branch(0)


def distort_color(image, color_ordering=0, fast_mode=False, scope=None):
    """Random brightness, saturation, hue and contrast of a float image in [0, 1], applied in
    one of four orders (``color_ordering``); ``fast_mode`` keeps only brightness and saturation.
    The result is clipped to [0, 1]."""
    with tf.name_scope(scope, "distort_color", [image]):
        def brightness(im):
            return tf.image.random_brightness(im, max_delta=32.0 / 255.0)

        def saturation(im):
            return tf.image.random_saturation(im, lower=0.5, upper=1.5)

        def hue(im):
            return tf.image.random_hue(im, max_delta=0.2)

        def contrast(im):
            return tf.image.random_contrast(im, lower=0.5, upper=1.5)

        if fast_mode:
            order = ((brightness, saturation) if color_ordering == 0
                     else (saturation, brightness))
        else:
            order = {
                0: (brightness, saturation, hue, contrast),
                1: (saturation, brightness, contrast, hue),
                2: (contrast, hue, brightness, saturation),
                3: (hue, saturation, contrast, brightness),
            }[color_ordering]
        for fn in order:
            image = fn(image)
        return tf.clip_by_value(image, 0.0, 1.0)


def distorted_bounding_box_crop(image, bbox, min_object_covered=0.1,
                                aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0),
                                max_attempts=100, scope=None):
    """A random crop of ``image`` covering at least ``min_object_covered`` of a box in ``bbox``
    ([1, num_boxes, 4] of (ymin, xmin, ymax, xmax) in [0, 1]); returns (crop, crop_box)."""
    with tf.name_scope(scope, "distorted_bounding_box_crop", [image, bbox]):
        begin, size, distort_bbox = tf.image.sample_distorted_bounding_box(
            tf.shape(image), bounding_boxes=bbox, min_object_covered=min_object_covered,
            aspect_ratio_range=aspect_ratio_range, area_range=area_range,
            max_attempts=max_attempts, use_image_if_no_bounding_boxes=True)
        return tf.slice(image, begin, size), distort_bbox


def _whole_image_bbox():
    return tf.constant([0.0, 0.0, 1.0, 1.0], dtype=tf.float32, shape=[1, 1, 4])


def _to_float(image):
    if image.dtype != tf.float32:
        image = tf.image.convert_image_dtype(image, dtype=tf.float32)
    return image


def _scale_to_unit_range(image):
    return tf.multiply(tf.subtract(image, 0.5), 2.0)


def preprocess_for_train(image, height, width, bbox=None, fast_mode=False, scope=None):
    """Training distortions of one [h, w, 3] image (uint8, or float in [0, 1]); the crop, the
    resize method and the colour order are chosen at random per image."""
    with tf.name_scope(scope, "distort_image", [image, height, width, bbox]):
        if bbox is None:
            bbox = _whole_image_bbox()
        image = _to_float(image)
        distorted, _ = distorted_bounding_box_crop(image, bbox)
        distorted.set_shape([None, None, 3])
        num_resize_cases = 1 if fast_mode else len(_resize_methods())
        distorted = apply_with_random_selector(
            distorted, lambda x, method: _resize(x, height, width, method),
            num_cases=num_resize_cases)
        distorted.set_shape([height, width, 3])
        distorted = tf.image.random_flip_left_right(distorted)
        num_color_cases = 1 if fast_mode else 4
        distorted = apply_with_random_selector(
            distorted, lambda x, order: distort_color(x, order, fast_mode),
            num_cases=num_color_cases)
        return _scale_to_unit_range(distorted)


def preprocess_for_eval(image, height, width, central_fraction=0.875, scope=None):
    """The central ``central_fraction`` of one image, resized (bilinear) to height x width."""
    with tf.name_scope(scope, "eval_image", [image, height, width]):
        image = _to_float(image)
        if central_fraction:
            image = tf.image.central_crop(image, central_fraction=central_fraction)
        image = tf.expand_dims(image, 0)
        image = tf.image.resize_bilinear(image, [height, width], align_corners=False)
        image = tf.squeeze(image, [0])
        image.set_shape([height, width, 3])
        return _scale_to_unit_range(image)


def preprocess_image(image, height, width, is_training=False, bbox=None, fast_mode=False):
    """``preprocess_for_train`` or ``preprocess_for_eval``."""
    if is_training:
        return preprocess_for_train(image, height, width, bbox, fast_mode)
    return preprocess_for_eval(image, height, width)
