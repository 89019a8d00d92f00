"""Op-table rows for convolution and pooling (Conv2D/3D, depthwise, pools and their gradient ops).

The references below are deliberately naive: loops over output positions and filter taps with
explicit bounds checks, in float64 (results stay float64, so every float dtype is compared with
its tolerance), channels-last and for any number of spatial dimensions.
"""

import itertools

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops
from tideflow.ops import pooling_ops

F = (tf.float16, tf.bfloat16, tf.float32, tf.float64)
F3 = (tf.float16, tf.bfloat16, tf.float32)

_rng = np.random.RandomState(7)


def arr(shape):
    """A fixed input in multiples of 1/8 (exact in every float dtype)."""
    base = np.round(_rng.uniform(-1, 1, size=shape) * 8) / 8

    def make(dt):
        return base.astype(dt)

    return make


def distinct(shape):
    """A fixed input of distinct values 1/16 apart (no ties for max pooling, exact in bf16)."""
    n = int(np.prod(shape))
    base = ((_rng.permutation(n) - n // 2) / 16.0).reshape(shape)

    def make(dt):
        return base.astype(dt)

    return make


def i32(*v):
    return np.array(v, dtype=np.int32)


# ------------------------------------------------------------------------------------------
# references (channels-last, any number of spatial dims)
# ------------------------------------------------------------------------------------------


def geometry(n, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-n // s)
        return out, max((out - 1) * s + eff - n, 0) // 2
    return (n - eff) // s + 1, 0


def _positions(spatial, ksize, strides, dilations, padding):
    """Yields (out_index, tap, in_index) for every tap that lands inside the input."""
    geo = [geometry(n, k, s, d, padding)
           for n, k, s, d in zip(spatial, ksize, strides, dilations)]
    outs = tuple(g[0] for g in geo)
    for o in itertools.product(*(range(v) for v in outs)):
        for t in itertools.product(*(range(k) for k in ksize)):
            pos = tuple(oi * s + ti * d - g[1]
                        for oi, ti, s, d, g in zip(o, t, strides, dilations, geo))
            if all(0 <= p < n for p, n in zip(pos, spatial)):
                yield o, t, pos


def _outs(spatial, ksize, strides, dilations, padding):
    return tuple(geometry(n, k, s, d, padding)[0]
                 for n, k, s, d in zip(spatial, ksize, strides, dilations))


def ref_conv(x, w, strides, padding, dilations=None):
    nsp = x.ndim - 2
    dilations = dilations or (1,) * nsp
    xf, wf = x.astype(np.float64), w.astype(np.float64)
    outs = _outs(x.shape[1:-1], w.shape[:nsp], strides, dilations, padding)
    out = np.zeros((x.shape[0],) + outs + (w.shape[-1],))
    for o, t, p in _positions(x.shape[1:-1], w.shape[:nsp], strides, dilations, padding):
        out[(slice(None),) + o] += xf[(slice(None),) + p] @ wf[t]
    return out


def ref_conv_backprop_input(sizes, w, dy, strides, padding, dilations=None):
    nsp = w.ndim - 2
    dilations = dilations or (1,) * nsp
    dx = np.zeros(tuple(sizes))
    wf, dyf = w.astype(np.float64), dy.astype(np.float64)
    for o, t, p in _positions(tuple(sizes[1:-1]), w.shape[:nsp], strides, dilations, padding):
        dx[(slice(None),) + p] += dyf[(slice(None),) + o] @ wf[t].T
    return dx


def ref_conv_backprop_filter(x, sizes, dy, strides, padding, dilations=None):
    nsp = x.ndim - 2
    dilations = dilations or (1,) * nsp
    dw = np.zeros(tuple(sizes))
    xf, dyf = x.astype(np.float64), dy.astype(np.float64)
    for o, t, p in _positions(x.shape[1:-1], tuple(sizes[:nsp]), strides, dilations, padding):
        dw[t] += xf[(slice(None),) + p].T @ dyf[(slice(None),) + o]
    return dw


def ref_depthwise(x, w, strides, padding, dilations=(1, 1)):
    xf, wf = x.astype(np.float64), w.astype(np.float64)
    outs = _outs(x.shape[1:3], w.shape[:2], strides, dilations, padding)
    c, m = w.shape[2:]
    out = np.zeros((x.shape[0],) + outs + (c, m))
    for o, t, p in _positions(x.shape[1:3], w.shape[:2], strides, dilations, padding):
        out[(slice(None),) + o] += xf[(slice(None),) + p][..., None] * wf[t]
    return out.reshape(out.shape[:3] + (c * m,))


def ref_depthwise_backprop_input(sizes, w, dy, strides, padding, dilations=(1, 1)):
    c, m = w.shape[2:]
    dx = np.zeros(tuple(sizes))
    wf = w.astype(np.float64)
    dy5 = dy.astype(np.float64).reshape(dy.shape[:3] + (c, m))
    for o, t, p in _positions(tuple(sizes[1:3]), w.shape[:2], strides, dilations, padding):
        dx[(slice(None),) + p] += (dy5[(slice(None),) + o] * wf[t]).sum(-1)
    return dx


def ref_depthwise_backprop_filter(x, sizes, dy, strides, padding, dilations=(1, 1)):
    c, m = sizes[2:]
    dw = np.zeros(tuple(sizes))
    xf = x.astype(np.float64)
    dy5 = dy.astype(np.float64).reshape(dy.shape[:3] + (c, m))
    for o, t, p in _positions(x.shape[1:3], tuple(sizes[:2]), strides, dilations, padding):
        dw[t] += (xf[(slice(None),) + p][..., None] * dy5[(slice(None),) + o]).sum(0)
    return dw


def _windows(x, ksize, strides, padding):
    """Yields (out_index, list of in_index) of each window's real (unpadded) elements."""
    nsp = x.ndim - 2
    groups = {}
    for o, _, p in _positions(x.shape[1:-1], ksize, strides, (1,) * nsp, padding):
        groups.setdefault(o, []).append(p)
    return groups


def ref_max_pool(x, ksize, strides, padding):
    outs = _outs(x.shape[1:-1], ksize, strides, (1,) * len(ksize), padding)
    out = np.zeros((x.shape[0],) + outs + (x.shape[-1],), x.dtype)
    for o, ps in _windows(x, ksize, strides, padding).items():
        vals = np.stack([x[(slice(None),) + p] for p in ps])
        out[(slice(None),) + o] = vals.max(0)
    return out


def ref_avg_pool(x, ksize, strides, padding):
    outs = _outs(x.shape[1:-1], ksize, strides, (1,) * len(ksize), padding)
    out = np.zeros((x.shape[0],) + outs + (x.shape[-1],))
    for o, ps in _windows(x, ksize, strides, padding).items():
        vals = np.stack([x[(slice(None),) + p].astype(np.float64) for p in ps])
        out[(slice(None),) + o] = vals.mean(0)
    return out


def _first_max(x, ps):
    """For each (batch, channel): the position in ``ps`` (row-major) of the first maximum."""
    vals = np.stack([x[(slice(None),) + p] for p in ps])
    return vals.argmax(0)


def ref_max_pool_grad(x, dy, ksize, strides, padding):
    dx = np.zeros(x.shape)
    n_idx, c_idx = np.meshgrid(np.arange(x.shape[0]), np.arange(x.shape[-1]), indexing="ij")
    for o, ps in _windows(x, ksize, strides, padding).items():
        best = _first_max(x, ps)
        g = dy[(slice(None),) + o].astype(np.float64)
        for k, p in enumerate(ps):
            mask = best == k
            dx[(n_idx[mask],) + tuple(np.full(mask.sum(), v) for v in p) + (c_idx[mask],)] += g[
                mask]
    return dx


def ref_max_pool_grad_grad(x, g, ksize, strides, padding):
    outs = _outs(x.shape[1:-1], ksize, strides, (1,) * len(ksize), padding)
    out = np.zeros((x.shape[0],) + outs + (x.shape[-1],), g.dtype)
    for o, ps in _windows(x, ksize, strides, padding).items():
        best = _first_max(x, ps)
        vals = np.stack([g[(slice(None),) + p] for p in ps])
        out[(slice(None),) + o] = np.take_along_axis(vals, best[None], 0)[0]
    return out


def ref_argmax(x, ksize, strides, padding, include_batch=False):
    n, h, w, c = x.shape
    outs = _outs((h, w), ksize, strides, (1, 1), padding)
    out = np.zeros((n,) + outs + (c,), np.int64)
    for o, ps in _windows(x, ksize, strides, padding).items():
        best = _first_max(x, ps)
        for b in range(n):
            for ch in range(c):
                y, xx = ps[best[b, ch]]
                flat = (y * w + xx) * c + ch
                out[(b,) + o + (ch,)] = flat + (b * h * w * c if include_batch else 0)
    return out


def ref_avg_pool_grad(sizes, dy, ksize, strides, padding):
    dx = np.zeros(tuple(sizes))
    for o, ps in _windows(np.zeros(tuple(sizes)), ksize, strides, padding).items():
        g = dy[(slice(None),) + o].astype(np.float64) / len(ps)
        for p in ps:
            dx[(slice(None),) + p] += g
    return dx


def nchw(fn):
    """A channels-last reference applied to channels-first arrays (arrays of rank >= 3)."""
    def wrapped(*args, **kw):
        conv = [np.moveaxis(a, 1, -1) if isinstance(a, np.ndarray) and a.ndim >= 3 and i != 1
                else a for i, a in enumerate(args)]
        return np.moveaxis(fn(*conv, **kw), -1, 1)

    return wrapped


# ------------------------------------------------------------------------------------------
# rows
# ------------------------------------------------------------------------------------------


def _raw(op_type, inputs, attrs):
    return ops.apply_op(op_type, inputs, attrs)._outputs


def _conv_attrs(strides, padding, dilations=(1, 1), fmt="NHWC", explicit=()):
    full = [1, *strides, 1] if fmt == "NHWC" else [1, 1, *strides]
    dil = [1, *dilations, 1] if fmt == "NHWC" else [1, 1, *dilations]
    return {"strides": full, "padding": padding, "dilations": dil, "data_format": fmt,
            "explicit_paddings": list(explicit)}


def _conv_rows():
    rows = []
    x = arr((2, 5, 6, 3))
    w = arr((3, 2, 3, 4))
    for strides, padding, dil in (((1, 1), "SAME", (1, 1)), ((2, 3), "VALID", (1, 1)),
                                  ((2, 2), "SAME", (1, 1)), ((1, 1), "VALID", (2, 2)),
                                  ((1, 1), "SAME", (2, 1))):
        attrs = _conv_attrs(strides, padding, dil)
        tag = f"{padding}_s{strides[0]}{strides[1]}_d{dil[0]}{dil[1]}"
        rows.append(Case("Conv2D", lambda a, b, at=attrs: _raw("Conv2D", [a, b], at)[0],
                         [x, w], lambda a, b, s=strides, p=padding, d=dil: ref_conv(a, b, s, p, d),
                         dtypes=F, name=f"Conv2D_{tag}"))
        outs = [geometry(n, k, s, d, padding)[0]
                for n, k, s, d in zip((5, 6), (3, 2), strides, dil)]
        dy = arr((2, *outs, 4))
        rows.append(Case(
            "Conv2DBackpropInput",
            lambda a, b, c, at=attrs: _raw("Conv2DBackpropInput", [a, b, c], at)[0],
            [i32(2, 5, 6, 3), w, dy],
            lambda a, b, c, s=strides, p=padding, d=dil: ref_conv_backprop_input(a, b, c, s, p, d),
            dtypes=F, fixed=(0,), name=f"Conv2DBackpropInput_{tag}"))
        rows.append(Case(
            "Conv2DBackpropFilter",
            lambda a, b, c, at=attrs: _raw("Conv2DBackpropFilter", [a, b, c], at)[0],
            [x, i32(3, 2, 3, 4), dy],
            lambda a, b, c, s=strides, p=padding, d=dil: ref_conv_backprop_filter(a, b, c, s, p,
                                                                                  d),
            dtypes=F, fixed=(1,), name=f"Conv2DBackpropFilter_{tag}"))
    # a thin conv (<= 32 outputs, >= 8 inputs, a 5-wide filter, stride 1) computes two output
    # columns per matmul row when its output width is even; odd widths must not
    wg = arr((3, 5, 8, 4))
    for width in (8, 7):
        xg = arr((2, 4, width, 8))
        at = _conv_attrs((1, 1), "SAME")
        rows.append(Case("Conv2D", lambda a, b, at=at: _raw("Conv2D", [a, b], at)[0], [xg, wg],
                         lambda a, b: ref_conv(a, b, (1, 1), "SAME"), dtypes=F,
                         name=f"Conv2D_width_grouped_w{width}"))
    # ... and so does the input gradient of a conv from 8..32 inputs to >= 8 outputs
    wb = arr((3, 5, 8, 8))
    at = _conv_attrs((1, 1), "SAME")
    rows.append(Case(
        "Conv2DBackpropInput",
        lambda a, b, c, at=at: _raw("Conv2DBackpropInput", [a, b, c], at)[0],
        [i32(2, 4, 6, 8), wb, arr((2, 4, 6, 8))],
        lambda a, b, c: ref_conv_backprop_input(a, b, c, (1, 1), "SAME"), dtypes=F, fixed=(0,),
        name="Conv2DBackpropInput_width_grouped"))
    # NCHW and explicit padding
    xc = arr((2, 3, 5, 4))
    at = _conv_attrs((2, 1), "SAME", fmt="NCHW")
    rows.append(Case("Conv2D", lambda a, b: _raw("Conv2D", [a, b], at)[0], [xc, w],
                     nchw(lambda a, b: ref_conv(a, b, (2, 1), "SAME")), dtypes=F,
                     name="Conv2D_NCHW"))
    at_x = _conv_attrs((1, 1), "EXPLICIT", explicit=(0, 0, 1, 2, 0, 1, 0, 0))

    def explicit_ref(a, b):
        return ref_conv(np.pad(a, ((0, 0), (1, 2), (0, 1), (0, 0))), b, (1, 1), "VALID")

    rows.append(Case("Conv2D", lambda a, b: _raw("Conv2D", [a, b], at_x)[0], [x, w],
                     explicit_ref, dtypes=F, name="Conv2D_EXPLICIT"))
    return rows


def _depthwise_rows():
    rows = []
    x = arr((2, 5, 5, 3))
    w = arr((3, 3, 3, 2))
    for strides, padding, dil in (((1, 1), "SAME", (1, 1)), ((2, 2), "VALID", (1, 1)),
                                  ((1, 1), "SAME", (2, 2))):
        attrs = _conv_attrs(strides, padding, dil)
        del attrs["explicit_paddings"]
        tag = f"{padding}_s{strides[0]}_d{dil[0]}"
        rows.append(Case(
            "DepthwiseConv2dNative",
            lambda a, b, at=attrs: _raw("DepthwiseConv2dNative", [a, b], at)[0], [x, w],
            lambda a, b, s=strides, p=padding, d=dil: ref_depthwise(a, b, s, p, d),
            dtypes=F, name=f"DepthwiseConv2dNative_{tag}"))
        outs = [geometry(5, 3, s, d, padding)[0] for s, d in zip(strides, dil)]
        dy = arr((2, *outs, 6))
        rows.append(Case(
            "DepthwiseConv2dNativeBackpropInput",
            lambda a, b, c, at=attrs: _raw("DepthwiseConv2dNativeBackpropInput", [a, b, c],
                                           at)[0],
            [i32(2, 5, 5, 3), w, dy],
            lambda a, b, c, s=strides, p=padding, d=dil: ref_depthwise_backprop_input(a, b, c, s,
                                                                                      p, d),
            dtypes=F, fixed=(0,), name=f"DepthwiseConv2dNativeBackpropInput_{tag}"))
        rows.append(Case(
            "DepthwiseConv2dNativeBackpropFilter",
            lambda a, b, c, at=attrs: _raw("DepthwiseConv2dNativeBackpropFilter", [a, b, c],
                                           at)[0],
            [x, i32(3, 3, 3, 2), dy],
            lambda a, b, c, s=strides, p=padding, d=dil: ref_depthwise_backprop_filter(
                a, b, c, s, p, d),
            dtypes=F, fixed=(1,), name=f"DepthwiseConv2dNativeBackpropFilter_{tag}"))
    return rows


def _conv3d_rows():
    x = arr((1, 4, 3, 4, 2))
    w = arr((2, 2, 3, 2, 3))
    at = {"strides": [1, 2, 1, 1, 1], "padding": "SAME"}
    dy = arr((1, 2, 3, 4, 3))
    return [
        Case("Conv3D", lambda a, b: _raw("Conv3D", [a, b], at)[0], [x, w],
             lambda a, b: ref_conv(a, b, (2, 1, 1), "SAME"), dtypes=F),
        Case("Conv3DBackpropInputV2", lambda a, b, c: _raw("Conv3DBackpropInputV2", [a, b, c],
                                                           at)[0],
             [i32(1, 4, 3, 4, 2), w, dy],
             lambda a, b, c: ref_conv_backprop_input(a, b, c, (2, 1, 1), "SAME"),
             dtypes=F, fixed=(0,)),
        Case("Conv3DBackpropFilterV2", lambda a, b, c: _raw("Conv3DBackpropFilterV2", [a, b, c],
                                                            at)[0],
             [x, i32(2, 2, 3, 2, 3), dy],
             lambda a, b, c: ref_conv_backprop_filter(a, b, c, (2, 1, 1), "SAME"),
             dtypes=F, fixed=(1,)),
    ]


def _pool_attrs(ksize, strides, padding, fmt="NHWC"):
    if fmt.startswith("NC"):
        return {"ksize": [1, 1, *ksize], "strides": [1, 1, *strides], "padding": padding,
                "data_format": fmt}
    return {"ksize": [1, *ksize, 1], "strides": [1, *strides, 1], "padding": padding,
            "data_format": fmt}


def _pool_rows():
    rows = []
    x = distinct((2, 5, 6, 3))
    for ksize, strides, padding in (((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"),
                                    ((3, 2), (1, 3), "SAME"), ((2, 3), (2, 1), "VALID")):
        at = _pool_attrs(ksize, strides, padding)
        tag = f"{padding}_k{ksize[0]}{ksize[1]}_s{strides[0]}{strides[1]}"
        outs = [geometry(n, k, s, 1, padding)[0] for n, k, s in zip((5, 6), ksize, strides)]
        dy = arr((2, *outs, 3))
        kw = {"ksize": ksize, "strides": strides, "padding": padding}
        rows += [
            Case("MaxPool", lambda a, at=at: _raw("MaxPool", [a], at)[0], [x],
                 lambda a, kw=kw: ref_max_pool(a, **kw), dtypes=F + (tf.int32,),
                 name=f"MaxPool_{tag}"),
            Case("AvgPool", lambda a, at=at: _raw("AvgPool", [a], at)[0], [x],
                 lambda a, kw=kw: ref_avg_pool(a, **kw), dtypes=F, name=f"AvgPool_{tag}"),
            Case("MaxPoolGrad",
                 lambda a, b, at=at: _raw("MaxPoolGrad", [a, pooling_ops.max_pool(a, at["ksize"],
                                                                             at["strides"],
                                                                             at["padding"]),
                                                          b], at)[0],
                 [x, dy], lambda a, b, kw=kw: ref_max_pool_grad(a, b, **kw), dtypes=F,
                 name=f"MaxPoolGrad_{tag}"),
            Case("MaxPoolGradGrad",
                 lambda a, b, at=at: _raw("MaxPoolGradGrad", [a, pooling_ops.max_pool(
                     a, at["ksize"], at["strides"], at["padding"]), b], at)[0],
                 [x, arr((2, 5, 6, 3))], lambda a, b, kw=kw: ref_max_pool_grad_grad(a, b, **kw),
                 dtypes=F, name=f"MaxPoolGradGrad_{tag}"),
            Case("AvgPoolGrad", lambda a, b, at=at: _raw("AvgPoolGrad", [a, b], at)[0],
                 [i32(2, 5, 6, 3), dy], lambda a, b, kw=kw: ref_avg_pool_grad(a, b, **kw),
                 dtypes=F, fixed=(0,), name=f"AvgPoolGrad_{tag}"),
        ]
        am = {k: v for k, v in at.items() if k != "data_format"}
        for incl in (False, True):
            am_i = dict(am, include_batch_in_index=incl)
            rows.append(Case(
                "MaxPoolWithArgmax", lambda a, at=am_i: list(_raw("MaxPoolWithArgmax", [a], at)),
                [x], lambda a, kw=kw, i=incl: [ref_max_pool(a, **kw), ref_argmax(a, **kw,
                                                                                 include_batch=i)],
                dtypes=F, name=f"MaxPoolWithArgmax_{tag}_{incl}"))
            rows.append(Case(
                "MaxPoolGradWithArgmax",
                lambda a, b, at=am_i: _raw("MaxPoolGradWithArgmax",
                                           [a, b, _raw("MaxPoolWithArgmax", [a], at)[1]], at)[0],
                [x, dy], lambda a, b, kw=kw: ref_max_pool_grad(a, b, **kw), dtypes=F,
                grad=False,  # (no gradient defined, as TF 1.15)
                name=f"MaxPoolGradWithArgmax_{tag}_{incl}"))
            rows.append(Case(
                "MaxPoolGradGradWithArgmax",
                lambda a, b, at=am_i: _raw("MaxPoolGradGradWithArgmax",
                                           [a, b, _raw("MaxPoolWithArgmax", [a], at)[1]], at)[0],
                [x, arr((2, 5, 6, 3))],
                lambda a, b, kw=kw: ref_max_pool_grad_grad(a, b, **kw), dtypes=F,
                name=f"MaxPoolGradGradWithArgmax_{tag}_{incl}"))
    # windows that tile the input (ksize == strides, no padding) take max_pool_grad's fast
    # path; the same windows on sizes that need SAME padding must not
    for shape, ksize, padding in (((2, 4, 6, 3), (2, 2), "SAME"), ((2, 7, 8, 2), (3, 3), "VALID"),
                                  ((2, 5, 7, 3), (2, 2), "SAME"), ((1, 7, 8, 2), (3, 3), "SAME")):
        at = _pool_attrs(ksize, ksize, padding)
        kw = {"ksize": ksize, "strides": ksize, "padding": padding}
        outs = [geometry(n, k, k, 1, padding)[0] for n, k in zip(shape[1:3], ksize)]
        tag = f"{padding}_k{ksize[0]}{ksize[1]}_{shape[1]}x{shape[2]}"
        rows.append(Case(
            "MaxPoolGrad",
            lambda a, b, at=at: _raw("MaxPoolGrad", [a, pooling_ops.max_pool(
                a, at["ksize"], at["strides"], at["padding"]), b], at)[0],
            [distinct(shape), arr((shape[0], *outs, shape[3]))],
            lambda a, b, kw=kw: ref_max_pool_grad(a, b, **kw), dtypes=F,
            name=f"MaxPoolGrad_tiles_{tag}"))
    # NCHW
    xc = distinct((2, 3, 5, 6))
    at = _pool_attrs((3, 3), (2, 2), "SAME", "NCHW")
    kw = {"ksize": (3, 3), "strides": (2, 2), "padding": "SAME"}
    at2 = _pool_attrs((2, 2), (2, 2), "VALID", "NCHW")
    kw2 = {"ksize": (2, 2), "strides": (2, 2), "padding": "VALID"}
    rows += [
        Case("MaxPool", lambda a: _raw("MaxPool", [a], at)[0], [xc],
             nchw(lambda a: ref_max_pool(a, **kw)), dtypes=F, name="MaxPool_NCHW"),
        Case("MaxPoolGrad",
             lambda a, b: _raw("MaxPoolGrad", [a, _raw("MaxPool", [a], at2)[0], b], at2)[0],
             [xc, arr((2, 3, 2, 3))],
             lambda a, b: np.moveaxis(ref_max_pool_grad(np.moveaxis(a, 1, -1),
                                                        np.moveaxis(b, 1, -1), **kw2), -1, 1),
             dtypes=F, name="MaxPoolGrad_NCHW_tiles"),
        Case("AvgPool", lambda a: _raw("AvgPool", [a], at)[0], [xc],
             nchw(lambda a: ref_avg_pool(a, **kw)), dtypes=F, name="AvgPool_NCHW"),
    ]
    return rows


def _pool3d_rows():
    x = distinct((1, 3, 4, 5, 2))
    at = {"ksize": [1, 2, 2, 3, 1], "strides": [1, 2, 1, 2, 1], "padding": "SAME"}
    kw = {"ksize": (2, 2, 3), "strides": (2, 1, 2), "padding": "SAME"}
    dy = arr((1, 2, 4, 3, 2))

    return [
        Case("MaxPool3D", lambda a: _raw("MaxPool3D", [a], at)[0], [x],
             lambda a: ref_max_pool(a, **kw), dtypes=F3, grad=False),
        Case("AvgPool3D", lambda a: _raw("AvgPool3D", [a], at)[0], [x],
             lambda a: ref_avg_pool(a, **kw), dtypes=F),
        Case("MaxPool3DGrad",
             lambda a, b: _raw("MaxPool3DGrad", [a, _raw("MaxPool3D", [a], at)[0], b], at)[0],
             [x, dy], lambda a, b: ref_max_pool_grad(a, b, **kw), dtypes=F3, grad=False),
        Case("MaxPool3DGradGrad",
             lambda a, b: _raw("MaxPool3DGradGrad", [a, _raw("MaxPool3D", [a], at)[0], b],
                               at)[0],
             [x, arr((1, 3, 4, 5, 2))], lambda a, b: ref_max_pool_grad_grad(a, b, **kw),
             dtypes=(tf.float32,), grad=False),  # (TF 1.15's only kernel)
        Case("AvgPool3DGrad", lambda a, b: _raw("AvgPool3DGrad", [a, b], at)[0],
             [i32(1, 3, 4, 5, 2), dy], lambda a, b: ref_avg_pool_grad(a, b, **kw), dtypes=F,
             fixed=(0,)),
    ]


CASES = _conv_rows() + _depthwise_rows() + _conv3d_rows() + _pool_rows() + _pool3d_rows()
