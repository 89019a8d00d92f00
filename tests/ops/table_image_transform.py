"""Op-table rows for the projective image transform (tf.contrib.image) and its gradient op,
against references that walk the output pixels one by one."""

import math

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops as _ops
from tideflow.ops import image_transform_ops  # noqa: F401 - registers the ops

RNG = np.random.RandomState(11)
IMG = RNG.uniform(0, 10, size=(2, 5, 6, 2))
# a rotation with shear and a small projective part for image 0, a shift for image 1
TRANSFORMS = np.array([[0.93, -0.31, 1.37, 0.29, 0.97, -0.71, 0.013, -0.021],
                       [1.0, 0.0, -1.3, 0.0, 1.0, 0.6, 0.0, 0.0]], np.float32)
SIZE = np.array([4, 7], np.int32)
GRAD = RNG.uniform(-1, 1, size=(2, 4, 7, 2))


def _apply(op_type, attrs):
    def fn(*inputs):
        return _ops.apply_op(op_type, list(inputs), attrs)._outputs[0]

    return fn


def _round(v):
    return math.floor(v + 0.5) if v >= 0 else math.ceil(v - 0.5)


def _taps(t, x, y, interpolation):
    t = [float(np.float32(v)) for v in t]
    k = np.float32(t[6] * x + t[7] * y + 1)
    if k == 0:
        return []
    in_x = float(np.float32(np.float32(t[0] * x + t[1] * y + t[2]) / k))
    in_y = float(np.float32(np.float32(t[3] * x + t[4] * y + t[5]) / k))
    if interpolation == "NEAREST":
        return [(_round(in_y), _round(in_x), 1.0)]
    y0, x0 = math.floor(in_y), math.floor(in_x)
    dy, dx = in_y - y0, in_x - x0
    return [(y0, x0, (1 - dy) * (1 - dx)), (y0, x0 + 1, (1 - dy) * dx),
            (y0 + 1, x0, dy * (1 - dx)), (y0 + 1, x0 + 1, dy * dx)]


def ref_transform(images, transforms, size, interpolation):
    b, h, w, c = images.shape
    oh, ow = (int(v) for v in size)
    out = np.zeros((b, oh, ow, c))
    for n in range(b):
        t = transforms[n if len(transforms) > 1 else 0]
        for y in range(oh):
            for x in range(ow):
                for r, col, wt in _taps(t, x, y, interpolation):
                    if 0 <= r < h and 0 <= col < w:
                        out[n, y, x] += wt * images[n, r, col]
    return out


def ref_transform_grad(grads, transforms, image_shape, interpolation):
    b, h, w, c = (int(v) for v in image_shape)
    out = np.zeros((b, h, w, c))
    for n in range(b):
        t = transforms[n if len(transforms) > 1 else 0]
        for y in range(grads.shape[1]):
            for x in range(grads.shape[2]):
                for r, col, wt in _taps(t, x, y, interpolation):
                    if 0 <= r < h and 0 <= col < w:
                        out[n, r, col] += wt * grads[n, y, x]
    return out


CASES = []
for _interp in ("BILINEAR", "NEAREST"):
    CASES.append(Case(
        "ImageProjectiveTransformV2",
        _apply("ImageProjectiveTransformV2", {"interpolation": _interp}),
        [IMG, TRANSFORMS, SIZE],
        lambda x, t, s, i=_interp: ref_transform(x, t, s, i),
        # TF 1.15's gradient is the inverse transform of the gradient, not the adjoint (so
        # not finite differences): tests/test_image_parity18.py pins TF's values
        dtypes=(tf.float32, tf.float64), fixed=(1, 2), grad=False, atol=1e-4, rtol=1e-5,
        name=f"ImageProjectiveTransformV2_{_interp}"))
    CASES.append(Case(
        "ImageProjectiveTransformV2Grad",
        _apply("ImageProjectiveTransformV2Grad", {"interpolation": _interp}),
        [GRAD, TRANSFORMS, np.array(IMG.shape, np.int32)],
        lambda g, t, s, i=_interp: ref_transform_grad(g, t, s, i),
        dtypes=(tf.float32, tf.float64), fixed=(1, 2), grad=False, atol=1e-4, rtol=1e-5,
        name=f"ImageProjectiveTransformV2Grad_{_interp}"))
# one transform for the whole batch, integer images (bilinear values truncated)
CASES.append(Case(
    "ImageProjectiveTransformV2",
    _apply("ImageProjectiveTransformV2", {"interpolation": "BILINEAR"}),
    [np.round(IMG * 20), TRANSFORMS[:1], np.array([5, 6], np.int32)],
    lambda x, t, s: np.trunc(ref_transform(x, t, s, "BILINEAR") + 1e-9),
    dtypes=(tf.uint8, tf.int32), fixed=(1, 2), grad=False,
    name="ImageProjectiveTransformV2_shared_int"))
