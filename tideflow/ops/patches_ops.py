"""ExtractImagePatches (patches of an NHWC image laid out along depth), ExtractVolumePatches
(the same over NDHWC volumes) and Bitcast."""

import functools

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.ops.array_ops import _in, _invalid, _np, _register_fold, _shape_str
from tideflow.ops.conv_ops import dims_of
from tideflow.ops.gradients import dense

# ------------------------------------------------------------------------------------------
# ExtractImagePatches
# ------------------------------------------------------------------------------------------


def _check_4(name, v, err):
    """The (rows, cols) of a ksizes/strides/rates attr, checked to hold 4 values."""
    v = list(v)
    if len(v) != 4:
        raise err(f"ExtractImagePatches requires the {name} attribute to contain 4 values, but "
                  f"got: {len(v)}")
    return v[1], v[2]


def _check_across_space(attrs, names):
    """TF's kernel-construction checks (run when a plan binds the kernel): windows only over
    the spatial dimensions, of positive sizes."""
    for name in names:
        v = list(attrs[name])
        if v[0] != 1 or v[-1] != 1:
            raise errors.UnimplementedError(None, None, f"Only support {name} across space.")
        if min(v[1:-1]) < 1:
            raise errors.OutOfRangeError(None, None, f"{name} is out of range.")


def _out_dim(n, k, s, r, padding):
    """One output dimension of known size ``n`` for a shape function, as TF's
    GetWindowedOutputSizeVerbose computes it (a window of size 0 too: the kernel refuses it
    when the step runs)."""
    if s < 1:
        raise ValueError(f"Stride must be > 0, but got {s}")
    if padding != "VALID":
        return (n + s - 1) // s
    k_eff = k + (k - 1) * (r - 1)
    out = n - k_eff + s
    out = out // s if out >= 0 else -(-out // s)  # (C++'s division)
    if out < 0:
        raise ValueError(f"Computed output size would be negative: {out} [input_size: {n}, "
                         f"effective_filter_size: {k_eff}, stride: {s}]")
    return out


def _patch_depth(depth, sizes):
    """The output depth: the input's times the window's size (0 for an empty window, as TF's
    dimension product, even where the input's depth is unknown)."""
    n = int(np.prod(sizes))
    return 0 if n == 0 else None if depth is None else depth * n


def _out_size(n, k, s, r, padding):
    """(output size, padding before) of one spatial dimension of size ``n``."""
    k_eff = k + (k - 1) * (r - 1)
    if padding == "VALID":
        return max((n - k_eff + s) // s, 0), 0
    out = (n + s - 1) // s
    total = max((out - 1) * s + k_eff - n, 0)
    return out, total // 2


def _attrs(attrs, err):
    return (_check_4("ksizes", attrs["ksizes"], err), _check_4("strides", attrs["strides"], err),
            _check_4("rates", attrs["rates"], err))


def _patches_shape(op):
    b, h, w, c = dims_of(_in(op, 0), 4)
    (kh, kw), (sh, sw), (rh, rw) = _attrs(op._attrs, ValueError)
    depth = _patch_depth(c, (kh, kw))
    if h is None or w is None:  # (TF 1.15 leaves both unknown then)
        return [[b, None, None, depth]]
    pad = op._attrs["padding"]
    return [[b, _out_dim(h, kh, sh, rh, pad), _out_dim(w, kw, sw, rw, pad), depth]]


def _patch_index(h, w, attrs):
    """For each (out_row, out_col, k_row, k_col), the flat pixel ``row * w + col`` it reads,
    or ``h * w`` where it falls into SAME padding. Shape [oh, ow, kh, kw]."""
    (kh, kw), (sh, sw), (rh, rw) = _attrs(attrs, _invalid)
    oh, top = _out_size(h, kh, sh, rh, attrs["padding"])
    ow, left = _out_size(w, kw, sw, rw, attrs["padding"])
    rows = (np.arange(oh) * sh - top)[:, None] + np.arange(kh)[None, :] * rh  # [oh, kh]
    cols = (np.arange(ow) * sw - left)[:, None] + np.arange(kw)[None, :] * rw  # [ow, kw]
    r = rows[:, None, :, None]
    c = cols[None, :, None, :]
    inside = (r >= 0) & (r < h) & (c >= 0) & (c < w)
    return np.where(inside, r * w + c, h * w)


def _patches_kernel(images, *, ksizes, strides, rates, padding):
    x = _np(images)
    attrs = {"ksizes": ksizes, "strides": strides, "rates": rates, "padding": padding}
    if x.ndim != 4:
        raise _invalid(f"ExtractImagePatches: images must be 4-D [batch, rows, cols, depth], "
                       f"got shape {_shape_str(x.shape)}")
    b, h, w, c = x.shape
    idx = _patch_index(h, w, attrs)
    flat = np.concatenate([x.reshape(b, h * w, c), np.zeros((b, 1, c), x.dtype)], axis=1)
    oh, ow, kh, kw = idx.shape
    # out[n, i, j, (ki * kw + kj) * c + d] = image[n, row, col, d]
    return np.ascontiguousarray(flat[:, idx.reshape(-1), :].reshape(b, oh, ow, kh * kw * c))


def _patches_grad_from_index(op, grad, nsp):
    """The gradient of a patch extraction over ``nsp`` spatial dims: each patch element of
    ``grad`` is summed onto the pixel it read. Which pixel is found by extracting patches of
    an image of pixel numbers (1.., 0 where SAME padding is read) with the op's own attrs, at
    run time: unknown shapes work, and for a static shape the plan folds it to a constant."""
    from tideflow.ops import array_ops, concat_ops, range_ops, reduction_ops, slicing_ops

    x = op._inputs[0]
    xs = array_ops.shape(x)
    spatial = [xs[i] for i in range(1, nsp + 1)]
    n = functools.reduce(lambda a, b: a * b, spatial)
    numbers = array_ops.reshape(range_ops.range(1, n + 1),
                                concat_ops.stack([1] + spatial + [1]))
    idx = array_ops.reshape(ops.apply_op(op._type, [numbers], dict(op._attrs, T=dtypes.int32))
                            ._outputs[0], [-1])
    # grad [b, out..., k*c] -> [out*k, b, c], each row summed onto its pixel (0: padding)
    g = array_ops.reshape(dense(grad), concat_ops.stack([xs[0], -1, xs[nsp + 1]]))
    g = array_ops.transpose(g, [1, 0, 2])
    summed = reduction_ops.unsorted_segment_sum(g, idx, n + 1)
    summed = slicing_ops.slice(summed, [1, 0, 0], [-1, -1, -1])
    return [array_ops.reshape(array_ops.transpose(summed, [1, 0, 2]), xs)]


def _patches_grad(op, grad):
    return _patches_grad_from_index(op, grad, 2)


op_registry.declare(
    "ExtractImagePatches",
    inputs=["images: T"],
    outputs=["patches: T"],
    attrs=["ksizes: list(int) >= 4", "strides: list(int) >= 4", "rates: list(int) >= 4",
           "T: realnumbertype", "padding: {'SAME', 'VALID'}"],
    shape=_patches_shape,
    kernel=_patches_kernel,
    grad=_patches_grad,
    check_attrs=lambda attrs: _check_across_space(attrs, ("ksizes", "strides", "rates")),
)

_register_fold("ExtractImagePatches")


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None):
    """Extracts ``ksizes`` patches (every ``rates`` pixel) of ``images`` every ``strides``,
    each laid out along the output depth in row, col, depth order (``sizes`` is the newer
    spelling of ``ksizes``)."""
    if ksizes is not None and sizes is not None:
        raise ValueError("Cannot specify both 'ksizes' and 'sizes'")
    ksizes = sizes if ksizes is None else ksizes
    for what, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates),
                    ("padding", padding)):
        if v is None:
            raise TypeError(f"extract_image_patches() missing required argument: '{what}'")
    attrs = {"ksizes": [int(v) for v in ksizes], "strides": [int(v) for v in strides],
             "rates": [int(v) for v in rates], "padding": padding}
    return ops.apply_op("ExtractImagePatches", [images], attrs, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# ExtractVolumePatches: the same over NDHWC volumes (planes, rows, cols; no rates)
# ------------------------------------------------------------------------------------------


def _check_5(name, v, err):
    """The (planes, rows, cols) of a ksizes/strides attr, checked to hold 5 values."""
    v = list(v)
    if len(v) != 5:
        raise err(f"ExtractVolumePatches requires the {name} attribute to contain 5 values, but "
                  f"got: {len(v)}")
    return v[1:4]


def _volume_shape(op):
    dims = dims_of(_in(op, 0), 5)
    ks = _check_5("ksizes", op._attrs["ksizes"], ValueError)
    st = _check_5("strides", op._attrs["strides"], ValueError)
    # (where a spatial size is unknown, TF 1.15's shape function gives a rank-4 shape, one
    # dimension short of its kernel's result: here each known size still gives its own)
    out = [None if n is None else _out_dim(n, k, s_, 1, op._attrs["padding"])
           for n, k, s_ in zip(dims[1:4], ks, st)]
    return [[dims[0]] + out + [_patch_depth(dims[4], ks)]]


def _volume_index(spatial, attrs, err):
    """For each (out position..., kernel offset...), the flat voxel it reads, or the voxel
    count where it falls into SAME padding. Shape [op, oh, ow, kp, kh, kw]."""
    ks = _check_5("ksizes", attrs["ksizes"], err)
    st = _check_5("strides", attrs["strides"], err)
    coords, inside, flat = [], True, 0
    for axis, (n, k, s_) in enumerate(zip(spatial, ks, st)):
        o, before = _out_size(n, k, s_, 1, attrs["padding"])
        c = (np.arange(o) * s_ - before)[:, None] + np.arange(k)[None, :]  # [o, k]
        shape = [1] * 6
        shape[axis], shape[axis + 3] = o, k
        c = c.reshape(shape)
        coords.append(c)
        inside = inside & (c >= 0) & (c < n)
    flat = (coords[0] * spatial[1] + coords[1]) * spatial[2] + coords[2]
    return np.where(inside, flat, int(np.prod(spatial)))


def _volume_kernel(input, *, ksizes, strides, padding):
    x = _np(input)
    if x.ndim != 5:
        raise _invalid(f"ExtractVolumePatches: input must be 5-D [batch, planes, rows, cols, "
                       f"depth], got shape {_shape_str(x.shape)}")
    b, c = x.shape[0], x.shape[4]
    spatial = x.shape[1:4]
    attrs = {"ksizes": ksizes, "strides": strides, "padding": padding}
    idx = _volume_index(spatial, attrs, _invalid)
    n = int(np.prod(spatial))
    flat = np.concatenate([x.reshape(b, n, c), np.zeros((b, 1, c), x.dtype)], axis=1)
    o = idx.shape[:3]
    k = int(np.prod(idx.shape[3:]))
    return np.ascontiguousarray(flat[:, idx.reshape(-1), :].reshape((b,) + o + (k * c,)))


def _volume_grad(op, grad):
    return _patches_grad_from_index(op, grad, 3)


op_registry.declare(
    "ExtractVolumePatches",
    inputs=["input: T"],
    outputs=["patches: T"],
    attrs=["ksizes: list(int) >= 5", "strides: list(int) >= 5", "T: realnumbertype",
           "padding: {'SAME', 'VALID'}"],
    shape=_volume_shape,
    kernel=_volume_kernel,
    grad=_volume_grad,
    check_attrs=lambda attrs: _check_across_space(attrs, ("ksizes", "strides")),
)


def extract_volume_patches(input, ksizes, strides, padding, name=None):
    """Extracts ``ksizes`` patches of the NDHWC ``input`` every ``strides``, each laid out
    along the output depth in plane, row, col, depth order."""
    attrs = {"ksizes": [int(v) for v in ksizes], "strides": [int(v) for v in strides],
             "padding": padding}
    return ops.apply_op("ExtractVolumePatches", [input], attrs, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# Bitcast
# ------------------------------------------------------------------------------------------

_BITCAST_TYPES = ("{bfloat16, float16, float32, float64, int64, int32, uint8, uint16, uint32, "
                  "uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, "
                  "qint32}")


def _size(dt):
    return np.dtype(dt.as_numpy_dtype).itemsize


def _bitcast_dims(dims, src, dst, err):
    a, b = _size(src), _size(dst)
    if a == b:
        return list(dims)
    if a > b:
        return list(dims) + [a // b]
    if not dims or (dims[-1] is not None and dims[-1] != b // a):
        if err is _invalid:  # TF's kernel names the two DataType enums
            raise err(f"Cannot bitcast from {src.as_datatype_enum} to {dst.as_datatype_enum}")
        if not dims:
            raise err("Shape must be at least rank 1 but is rank 0")
        raise err(f"Cannot bitcast due to shape. {dims[-1]} does not match {b // a}")
    return list(dims[:-1])


def _bitcast_shape(op):
    x = _in(op, 0)
    if x.ndims is None:
        return [None]
    return [_bitcast_dims(x.as_list(), op._attrs["T"], op._attrs["type"], ValueError)]


def _bitcast_kernel(input, *, T, type):
    x = np.asarray(_np(input), dtype=T.as_numpy_dtype)
    # from x's own shape: ascontiguousarray would make a scalar 1-D
    dims = _bitcast_dims(list(x.shape), T, type, _invalid)
    x = np.ascontiguousarray(x)
    return x.reshape(-1).view(type.as_numpy_dtype).reshape(dims)


op_registry.declare(
    "Bitcast",
    inputs=["input: T"],
    outputs=["output: type"],
    attrs=["T: " + _BITCAST_TYPES, "type: " + _BITCAST_TYPES],
    shape=_bitcast_shape,
    kernel=_bitcast_kernel,  # (no gradient defined, as TF 1.15)
)

_register_fold("Bitcast")


def bitcast(input, type, name=None):
    """Reinterprets the bytes of ``input`` as ``type`` (a trailing dimension is added or
    removed when the element sizes differ)."""
    return ops.apply_op("Bitcast", [input], {"type": dtypes.as_dtype(type)},
                        name=name)._outputs[0]

