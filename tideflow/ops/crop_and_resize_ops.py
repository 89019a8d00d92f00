"""CropAndResize (bilinear or nearest crops of boxes, resized) with its gradient ops for the
image and for the boxes."""


import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.kernels.scatter import rows_at
from tideflow.ops import (
    array_ops,
    conv_ops,
)
from tideflow.ops.array_ops import _check_rank, _invalid, _np, _shape_str

# ------------------------------------------------------------------------------------------
# CropAndResize and its gradients
# ------------------------------------------------------------------------------------------


def _crop_geometry(box, n_out, n_in):
    """Sample positions along one axis for one box: ``in = v1 * (n - 1) + i * scale``, in
    float32 as TF's kernel (the one-sample centre in double, TF's ``0.5 *``)."""
    v1, v2 = np.float32(box[0]), np.float32(box[1])
    if n_out > 1:
        scale = (v2 - v1) * np.float32(n_in - 1) / np.float32(n_out - 1)
        pos = v1 * np.float32(n_in - 1) + np.arange(n_out, dtype=np.float32) * scale
    else:
        pos = np.array([0.5 * float(v1 + v2) * (n_in - 1)], np.float32)
    return pos


def _inside_samples(box, ch, cw, h, w):
    """The float32 sample rows ``ys`` and columns ``xs`` of a ``ch`` x ``cw`` crop of one box
    of an ``h`` x ``w`` image, and the indices of those inside the image."""
    ys = _crop_geometry(box[[0, 2]], ch, h).astype(np.float32)
    xs = _crop_geometry(box[[1, 3]], cw, w).astype(np.float32)
    iy = np.nonzero((ys >= 0) & (ys <= h - 1))[0]
    ix = np.nonzero((xs >= 0) & (xs <= w - 1))[0]
    return ys, xs, iy, ix


def _check_boxes(boxes, box_ind):
    """TF's ParseAndCheckBoxSizes: no boxes and no indices pass whatever their shapes."""
    if boxes.size == 0 and box_ind.size == 0:
        return
    if boxes.ndim != 2:
        raise _invalid(f"boxes must be 2-D{_shape_str(boxes.shape)}")
    if boxes.shape[1] != 4:
        raise _invalid("boxes must have 4 columns")
    if box_ind.ndim != 1:
        raise _invalid(f"box_index must be 1-D{_shape_str(box_ind.shape)}")
    if box_ind.shape[0] != boxes.shape[0]:
        raise _invalid("box_index has incompatible shape")


def _check_box_range(box_ind, batch):
    if box_ind.size and (box_ind.min() < 0 or box_ind.max() >= batch):
        raise errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")


def _check_image(image):
    if image.ndim != 4:
        raise _invalid(f"input image must be 4-D{_shape_str(image.shape)}")
    if image.shape[1] <= 0 or image.shape[2] <= 0:
        raise _invalid("image dimensions must be positive")


def _check_crop(image, boxes, box_ind, crop_size):
    """CropAndResize's input checks in TF 1.15's order and words; returns the crop size."""
    _check_image(image)
    _check_boxes(boxes, box_ind)
    cs = _np(crop_size)
    if cs.ndim != 1:
        raise _invalid(f"crop_size must be 1-D{_shape_str(cs.shape)}")
    if cs.shape[0] != 2:
        raise _invalid(f"crop_size must have two elements{_shape_str(cs.shape)}")
    ch, cw = int(cs[0]), int(cs[1])
    if ch <= 0 or cw <= 0:
        raise _invalid("crop dimensions must be positive")
    _check_box_range(box_ind, image.shape[0])
    return ch, cw


def _bilinear_weights(pos, n):
    lo = np.floor(pos)
    hi = np.ceil(pos)
    frac = pos - lo
    return lo.astype(np.int64).clip(0, n - 1), hi.astype(np.int64).clip(0, n - 1), frac


def _crop_kernel(image, boxes, box_ind, crop_size, *, method, extrapolation_value):
    img = _np(image)
    bx = _np(boxes).astype(np.float32)
    bi = _np(box_ind).astype(np.int64)
    ch, cw = _check_crop(img, bx, bi, crop_size)
    bx = bx.reshape(-1, 4)
    _, h, w, d = img.shape
    out = np.full((len(bx), ch, cw, d), extrapolation_value, np.float32)
    method = method.decode() if isinstance(method, bytes) else method
    for b in range(len(bx)):
        ys = _crop_geometry(bx[b, [0, 2]].astype(np.float32), ch, h).astype(np.float32)
        xs = _crop_geometry(bx[b, [1, 3]].astype(np.float32), cw, w).astype(np.float32)
        vy = (ys >= 0) & (ys <= h - 1)
        vx = (xs >= 0) & (xs <= w - 1)
        src = img[bi[b]].astype(np.float32)
        if method == "bilinear":
            t, bo, fy = _bilinear_weights(ys, h)
            le, ri, fx = _bilinear_weights(xs, w)
            top = src[t][:, le] + (src[t][:, ri] - src[t][:, le]) * fx[None, :, None]
            bot = src[bo][:, le] + (src[bo][:, ri] - src[bo][:, le]) * fx[None, :, None]
            val = top + (bot - top) * fy[:, None, None]
        else:
            ry = np.clip(_round_half_away(ys), 0, h - 1)
            rx = np.clip(_round_half_away(xs), 0, w - 1)
            val = src[ry][:, rx]
        mask = vy[:, None] & vx[None, :]
        out[b] = np.where(mask[..., None], val, np.float32(extrapolation_value))
    return out


def _round_half_away(v):
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)


def _lerp_corners(pos):
    """Floor and ceil indices and the float32 fraction of sample positions, as TF's."""
    f = np.floor(pos)
    return f.astype(np.int64), np.ceil(pos).astype(np.int64), pos - f


def _crop_grad_image_kernel(grads, boxes, box_ind, image_size, *, T, method):
    g = _np(grads).astype(np.float32, copy=False)
    bx = _np(boxes).astype(np.float32)
    bi = _np(box_ind).astype(np.int64)
    size = [int(v) for v in _np(image_size)]
    if len(size) != 4 or min(size) <= 0:
        raise _invalid(f"CropAndResizeGradImage: image_size must be 4 positive values, got "
                       f"{size}")
    b_, h, w, d = size
    if g.ndim != 4 or g.shape[0] != len(bx) or g.shape[3] != d:
        raise _invalid(f"CropAndResizeGradImage: grads has shape {_shape_str(g.shape)}, "
                       f"incompatible with {len(bx)} boxes and depth {d}")
    if len(bi) and (bi.min() < 0 or bi.max() >= b_):
        raise errors.OutOfRangeError(
            None, None, "CropAndResizeGradImage: box_index has values outside [0, batch_size)")
    _, ch, cw, _ = g.shape
    # TF adds each sample's float32 shares into the image, in T, sample by sample (rows,
    # columns, then the four corners): np.add.at's order, kept by rows_at over the image's
    # pixels as rows of depth d
    out = np.zeros(size, T.as_numpy_dtype)
    method = method.decode() if isinstance(method, bytes) else method
    for b in range(len(bx)):
        ys, xs, iy, ix = _inside_samples(bx[b], ch, cw, h, w)
        if not len(iy) or not len(ix):
            continue
        gb = g[b][np.ix_(iy, ix)]  # [ny, nx, d]
        if method == "bilinear":
            t, bo, fy = _lerp_corners(ys[iy])
            le, ri, fx = _lerp_corners(xs[ix])
            one = np.float32(1)
            dtop = (one - fy)[:, None, None] * gb
            dbot = fy[:, None, None] * gb
            fx3 = fx[None, :, None]
            vals = np.stack([(one - fx3) * dtop, fx3 * dtop, (one - fx3) * dbot, fx3 * dbot], 2)
            grid = (len(iy), len(ix), 4)
            yy = np.broadcast_to(np.stack([t, t, bo, bo], 1)[:, None, :], grid)
            xx = np.broadcast_to(np.stack([le, ri, le, ri], 1)[None, :, :], grid)
        else:
            vals = gb
            yy, xx = np.meshgrid(np.clip(_round_half_away(ys[iy]), 0, h - 1),
                                 np.clip(_round_half_away(xs[ix]), 0, w - 1), indexing="ij")
        rows_at(np.add, out[bi[b]].reshape(h * w, d), (yy * w + xx).ravel(),
                vals.reshape(-1, d).astype(out.dtype))
    return out


def _box_grad_positions(v1, v2, n_out, n_in):
    """The gradient's sample positions: TF's box kernel scales by a ratio computed first
    (``(v2 - v1) * ((n - 1) / (c - 1))``), not as the forward kernel."""
    if n_out == 1:
        return np.array([0.5 * float(v1 + v2) * (n_in - 1)], np.float32), np.float32(0)
    ratio = np.float32(n_in - 1) / np.float32(n_out - 1)
    pos = v1 * np.float32(n_in - 1) + np.arange(n_out, dtype=np.float32) * ((v2 - v1) * ratio)
    return pos, ratio


def _box_grad_sum(shares, n_out, n_in):
    """TF's running float32 sum of one box coordinate's shares; a one-sample crop's shares
    are doubles (TF's ``* 0.5 * (n - 1)``) added to the float sum one at a time."""
    shares = shares.ravel()
    if not shares.size:
        return np.float32(0)
    if n_out > 1:
        return np.add.accumulate(shares)[-1]
    acc = np.float32(0)
    for v in (shares.astype(np.float64) * 0.5 * (n_in - 1)).tolist():
        acc = np.float32(float(acc) + v)
    return acc


def _crop_grad_boxes_kernel(grads, image, boxes, box_ind, *, method):
    g = _np(grads).astype(np.float32, copy=False)
    img = _np(image)
    bx = _np(boxes).astype(np.float32)
    bi = _np(box_ind).astype(np.int64)
    if g.ndim != 4:
        raise _invalid(f"grads image must be 4-D{_shape_str(g.shape)}")
    ch, cw = g.shape[1:3]
    if ch <= 0 or cw <= 0:
        raise _invalid("grads dimensions must be positive")
    _check_image(img)
    if img.shape[3] != g.shape[3]:
        raise _invalid("image, grads depth differ")
    _check_boxes(bx, bi)
    bx = bx.reshape(-1, 4)
    if g.shape[0] != len(bx):
        raise _invalid("boxes and grads have incompatible shape")
    _check_box_range(bi, img.shape[0])
    _, h, w, _ = img.shape
    out = np.zeros((len(bx), 4), np.float32)
    one = np.float32(1)
    for b in range(len(bx)):
        ys, hr = _box_grad_positions(bx[b, 0], bx[b, 2], ch, h)
        xs, wr = _box_grad_positions(bx[b, 1], bx[b, 3], cw, w)
        iy = np.nonzero((ys >= 0) & (ys <= h - 1))[0]
        ix = np.nonzero((xs >= 0) & (xs <= w - 1))[0]
        if not len(iy) or not len(ix):
            continue
        src = img[bi[b]].astype(np.float32, copy=False)
        t, bo, fy = _lerp_corners(ys[iy])
        le, ri, fx = _lerp_corners(xs[ix])
        tl, tr = src[t][:, le], src[t][:, ri]
        bl, br = src[bo][:, le], src[bo][:, ri]
        fy3, fx3 = fy[:, None, None], fx[None, :, None]
        gb = g[b][np.ix_(iy, ix)]
        gy = ((one - fx3) * (bl - tl) + fx3 * (br - tr)) * gb
        gx = ((one - fy3) * (tr - tl) + fy3 * (br - bl)) * gb
        # summed in TF's order: rows, columns, channels
        yrat = (iy.astype(np.float32) * hr)[:, None, None]
        xrat = (ix.astype(np.float32) * wr)[None, :, None]
        full = (len(iy), len(ix), g.shape[3])
        if ch > 1:
            out[b, 0] = _box_grad_sum(gy * (np.float32(h - 1) - yrat), ch, h)
            out[b, 2] = _box_grad_sum(gy * yrat, ch, h)
        else:
            out[b, 0] = out[b, 2] = _box_grad_sum(gy, ch, h)
        if cw > 1:
            out[b, 1] = _box_grad_sum(np.broadcast_to(gx * (np.float32(w - 1) - xrat), full),
                                      cw, w)
            out[b, 3] = _box_grad_sum(np.broadcast_to(gx * xrat, full), cw, w)
        else:
            out[b, 1] = out[b, 3] = _box_grad_sum(gx, cw, w)
    return out


def _crop_shape(op):
    # TF 1.15's shape function, its checks in its order and words
    img, boxes, ind, size = (t._shape for t in op._inputs)
    for shape, rank in ((img, 4), (boxes, 2), (ind, 1)):
        _check_rank(shape, rank)
    nb = boxes.dims[0].value if boxes.ndims else None
    ni = ind.dims[0].value if ind.ndims else None
    if nb is not None and ni is not None and nb != ni:
        raise ValueError(f"Dimensions must be equal, but are {nb} and {ni}")
    n = nb if nb is not None else ni
    if boxes.ndims and boxes.dims[1].value not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {boxes.dims[1].value}")
    _check_rank(size, 1)
    if size.ndims and size.dims[0].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {size.dims[0].value}")
    cs = ops.constant_value(op._inputs[3])
    ch = cw = None
    if cs is not None:
        ch, cw = (int(v) if v >= 0 else None for v in np.reshape(cs, -1))
    depth = img.dims[3].value if img.ndims else None
    return [TensorShape([n, ch, cw, depth])]


def _crop_grad(op, grad):
    from tideflow.ops.gradients import dense

    g = dense(grad)
    image, boxes, box_ind, _ = op._inputs
    method = op._attrs["method"]
    grad_image = None
    # a known image shape is the op's image_size input, converted by it as TF 1.15's
    # (CropAndResizeGradImage/image_size); otherwise a Shape op
    shape = image.get_shape()
    image_size = shape.as_list() if shape.is_fully_defined() else array_ops.shape(image)
    if image.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = ops.apply_op("CropAndResizeGradImage",
                                  [g, boxes, box_ind, image_size],
                                  {"T": image.dtype.base_dtype, "method": method})._outputs[0]
    # nearest sampling has no well-defined box gradient; TF uses the bilinear one
    grad_boxes = ops.apply_op("CropAndResizeGradBoxes", [g, image, boxes, box_ind])._outputs[0]
    return [grad_image, grad_boxes, None, None]


op_registry.declare(
    "CropAndResize",
    inputs=["image: T", "boxes: float", "box_ind: int32", "crop_size: int32"],
    outputs=["crops: float"],
    attrs=["T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
           "method: {'bilinear', 'nearest'} = 'bilinear'", "extrapolation_value: float = 0"],
    shape=_crop_shape,
    kernel=_crop_kernel,
    grad=_crop_grad,
)
op_registry.declare(
    "CropAndResizeGradImage",
    inputs=["grads: float", "boxes: float", "box_ind: int32", "image_size: int32"],
    outputs=["output: T"],
    attrs=["T: {float, half, double}", "method: {'bilinear', 'nearest'} = 'bilinear'"],
    shape=lambda op: [_size_shape(op._inputs[3], 4)],
    kernel=_crop_grad_image_kernel,
    differentiable=False,
)
op_registry.declare(
    "CropAndResizeGradBoxes",
    inputs=["grads: float", "image: T", "boxes: float", "box_ind: int32"],
    outputs=["output: float"],
    attrs=["T: {uint8, uint16, int8, int16, int32, int64, half, float, double}",
           "method: {'bilinear'} = 'bilinear'"],
    shape=lambda op: [op._inputs[2]._shape if op._inputs[2]._shape.ndims is not None
                      else TensorShape([None, 4])],
    kernel=_crop_grad_boxes_kernel,
    differentiable=False,
)


def _size_shape(t, rank):
    v = ops.constant_value(t)
    if v is None:
        return TensorShape([None] * rank)
    return TensorShape([int(x) for x in np.reshape(v, -1)])


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0, name=None, box_indices=None):
    """Crops ``boxes`` (normalized ``[y1, x1, y2, x2]``) of images ``box_ind`` and resizes each
    to ``crop_size``, bilinearly or nearest; samples outside the image get
    ``extrapolation_value``. Returns float32 ``[num_boxes, crop_h, crop_w, depth]``."""
    box_ind = conv_ops._alias(box_ind, box_indices, "box_ind", "box_indices")
    # TF's generated wrapper: the op itself takes ``name`` (its inputs are made in that scope,
    # in argument order, before the attrs are checked)
    with ops.name_scope(name, "CropAndResize", [image, boxes, box_ind]) as scope:
        image = ops.convert_to_tensor(image, name="image")
        boxes = ops.convert_to_tensor(boxes, dtypes.float32, name="boxes")
        box_ind = ops.convert_to_tensor(box_ind, dtypes.int32, name="box_ind")
        crop_size = ops.convert_to_tensor(crop_size, dtypes.int32, name="crop_size")
        if method not in ("bilinear", "nearest"):
            raise ValueError(f"Attr 'method' of 'CropAndResize' Op passed string {method!r} "
                             'not in: "bilinear", "nearest".')
        return ops.apply_op("CropAndResize", [image, boxes, box_ind, crop_size], {
            "method": method, "extrapolation_value": float(extrapolation_value)},
            name=scope)._outputs[0]


