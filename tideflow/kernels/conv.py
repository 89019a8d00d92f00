"""NumPy kernels for convolution and pooling, channels-last, for any number of spatial dims.

Convolutions lower to BLAS matrix products: im2col copies every receptive field out of a
strided view of the (once) padded input into a patch matrix, in batch chunks of bounded size;
col2im adds patch gradients back with one strided add per filter tap. Pooling reduces over the
taps the same way. half and bfloat16 compute in float32 and are cast back.
"""

import math

import numpy as np

from tideflow.framework import errors
from tideflow.kernels import spectral, threads

# the patch matrix of one chunk stays under this many bytes (cache-friendly, bounded memory)
CHUNK_BYTES = 8 << 20
# max_pool_grad's fast path makes several passes over blocks of the input of about this size
POOL_BLOCK_BYTES = 2048 << 10
# a convolution with at most this many output channels (a thin, less efficient matmul) and
# stride 1 along its last spatial dim computes WIDTH_GROUP adjacent output columns per matmul
# row when the extra (zero) filter taps cost little; the input gradient of a convolution with
# few input channels is such a convolution
WIDTH_GROUP_MAX_OUT = 32
WIDTH_GROUP = 2
# below this many input channels, the input gradient scatters patch gradients (col2im) rather
# than running the transposed convolution, whose matmul would be too thin to be efficient
TRANSPOSED_MIN_CHANNELS = 8


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def compute_dtype(dtype):
    """The dtype arithmetic runs in: float32 for half and bfloat16, else ``dtype`` itself."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f" and dtype.itemsize >= 4:
        return dtype
    if dtype.kind in "iub":
        return dtype
    return np.dtype(np.float32)


def _trunc_div(a, b):
    return a // b if a >= 0 else -((-a) // b)


def output_size(in_size, k, stride, dilation, padding, pads=None):
    """TF's windowed output size and (pad_before, pad_after) along one spatial dimension.

    SAME: ``ceil(in / stride)``, padded by ``max((out-1)*stride + eff - in, 0)`` with the
    smaller half before; VALID: ``(in - eff + stride) / stride``; EXPLICIT: ``pads`` given.
    ``eff = (k - 1) * dilation + 1`` is the dilated filter size.
    """
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = (in_size + stride - 1) // stride
        need = max((out - 1) * stride + eff - in_size, 0)
        return out, need // 2, need - need // 2
    before, after = (0, 0) if pads is None else pads
    out = _trunc_div(in_size + before + after - eff + stride, stride)
    if out < 0:
        raise _invalid(
            f"Computed output size would be negative: {out} [input_size: {in_size}, "
            f"effective_filter_size: {eff}, stride: {stride}]"
        )
    return out, before, after


def geometry(in_spatial, ksize, strides, dilations, padding, explicit=None):
    """Output sizes and ((before, after), ...) paddings for every spatial dimension."""
    outs, pads = [], []
    for i, (n, k, s, d) in enumerate(zip(in_spatial, ksize, strides, dilations)):
        o, b, a = output_size(n, k, s, d, padding, None if explicit is None else explicit[i])
        outs.append(o)
        pads.append((b, a))
    return tuple(outs), tuple(pads)


def _pad(x, pads, value=0):
    """``x`` [N, *S, C] padded spatially (a new array), or ``x`` itself when nothing pads."""
    if not any(b or a for b, a in pads):
        return x
    shape = (x.shape[0],) + tuple(s + b + a for s, (b, a) in zip(x.shape[1:-1], pads)) + (
        x.shape[-1],
    )
    out = np.full(shape, value, x.dtype) if value else np.zeros(shape, x.dtype)
    out[_interior(x.shape, pads)] = x
    return out


def _interior(shape, pads):
    return (slice(None),) + tuple(slice(b, b + s) for s, (b, _) in zip(shape[1:-1], pads)) + (
        slice(None),
    )


def _padded_shape(shape, pads):
    return (shape[0],) + tuple(s + b + a for s, (b, a) in zip(shape[1:-1], pads)) + (shape[-1],)


def _crop(xp, shape, pads):
    if not any(b or a for b, a in pads):
        return xp
    return np.ascontiguousarray(xp[_interior(shape, pads)])


def _windows(xp, outs, ksize, strides, dilations):
    """A read-only strided view [N, *outs, *ksize, C] of every receptive field (no copy)."""
    st = xp.strides
    sp = st[1:-1]
    shape = (xp.shape[0],) + tuple(outs) + tuple(ksize) + (xp.shape[-1],)
    view_strides = (
        (st[0],)
        + tuple(a * s for a, s in zip(sp, strides))
        + tuple(a * d for a, d in zip(sp, dilations))
        + (st[-1],)
    )
    return np.lib.stride_tricks.as_strided(xp, shape, view_strides, writeable=False)


def _tap(outs, strides, dilations, tap):
    """Index of the input elements filter tap ``tap`` meets, one per output position."""
    return (slice(None),) + tuple(
        slice(t * d, t * d + (o - 1) * s + 1, s)
        for t, o, s, d in zip(tap, outs, strides, dilations)
    ) + (slice(None),)


def _chunks(n_batch, per_image_bytes):
    """Batch ranges splitting ``n_batch`` images evenly into chunks under CHUNK_BYTES (shared
    by the threads working on pieces of one call at the same time)."""
    budget = CHUNK_BYTES // threads.thread_count() if threads.active() else CHUNK_BYTES
    most = max(1, budget // max(per_image_bytes, 1))
    n_chunks = -(-n_batch // most)
    size = -(-n_batch // n_chunks)
    return [(b, min(n_batch, b + size)) for b in range(0, n_batch, size)]


def _patch_matrices(xp, outs, ksize, strides, dilations):
    """Yields (b0, b1, cols): the im2col matrix [(b1-b0)*P, K] of each batch chunk.

    With one input channel the matrix is built tap-major (one contiguous row copy per tap,
    several times faster than gathering 1-element runs) and handed out transposed; BLAS
    takes either layout.
    """
    n_batch, chans = xp.shape[0], xp.shape[-1]
    p = math.prod(outs)
    k = math.prod(ksize) * chans
    chunks = _chunks(n_batch, p * k * xp.itemsize)
    buf = np.empty((chunks[0][1] - chunks[0][0]) * p * k, xp.dtype)
    for b0, b1 in chunks:
        if chans == 1:
            cols_t = buf[: (b1 - b0) * p * k].reshape((k, b1 - b0) + tuple(outs))
            src = xp[b0:b1, ..., 0]
            for t, tap in enumerate(np.ndindex(*ksize)):
                cols_t[t] = src[_tap(outs, strides, dilations, tap)[:-1]]
            yield b0, b1, cols_t.reshape(k, (b1 - b0) * p).T
            continue
        view = _windows(xp[b0:b1], outs, ksize, strides, dilations)
        cols = buf[: (b1 - b0) * p * k].reshape(view.shape)
        np.copyto(cols, view)
        yield b0, b1, cols.reshape((b1 - b0) * p, k)


def _width_group(outs, ksize, strides, dilations, chans, n_out):
    """How many adjacent output columns one matmul row computes (1: plain im2col).

    Grouping G columns widens the matmul to G * n_out outputs at the price of
    (G - 1) * chans zero filter taps per kernel row: taken for thin outputs, filters at least
    4 wide (at most 25% more multiply-adds) and output widths G divides."""
    g = WIDTH_GROUP
    if (g < 2 or n_out > WIDTH_GROUP_MAX_OUT or chans < TRANSPOSED_MIN_CHANNELS
            or not outs or outs[-1] % g or strides[-1] != 1 or dilations[-1] != 1
            or ksize[-1] < 4):
        return 1
    return g


def _grouped_filter(w, g):
    """``w`` [*K, C, O] as the [K' * (kw + g - 1) * C, g * O] matrix of a width-g group:
    output column j of the group sees filter column u - j at input column u."""
    kw = w.shape[-3]
    wg = np.zeros(w.shape[:-3] + (kw + g - 1,) + w.shape[-2:-1] + (g,) + w.shape[-1:],
                  w.dtype)
    for j in range(g):
        wg[..., j:j + kw, :, j, :] = w
    return wg.reshape(-1, g * w.shape[-1])


def _grouped_patches(xp, outs, ksize, strides, dilations, g):
    """Yields (b0, b1, cols): per batch chunk, the patch matrix of width-``g`` output groups
    [(b1-b0) * P / g, K' * (kw + g - 1) * C] (see _width_group)."""
    n_batch, chans = xp.shape[0], xp.shape[-1]
    gouts = tuple(outs[:-1]) + (outs[-1] // g,)
    gk = tuple(ksize[:-1]) + (ksize[-1] + g - 1,)
    p = math.prod(gouts)
    k = math.prod(gk) * chans
    chunks = _chunks(n_batch, p * k * xp.itemsize)
    buf = np.empty((chunks[0][1] - chunks[0][0]) * p * k, xp.dtype)
    st = xp.strides
    sp = st[1:-1]
    gstrides = tuple(strides[:-1]) + (g,)
    gdil = tuple(dilations[:-1]) + (1,)
    for b0, b1 in chunks:
        part = xp[b0:b1]
        view = np.lib.stride_tricks.as_strided(
            part, (b1 - b0,) + gouts + gk + (chans,),
            (st[0],) + tuple(a * s for a, s in zip(sp, gstrides))
            + tuple(a * d for a, d in zip(sp, gdil)) + (st[-1],), writeable=False)
        cols = buf[: (b1 - b0) * p * k].reshape(view.shape)
        np.copyto(cols, view)
        yield b0, b1, cols.reshape((b1 - b0) * p, k)


# TF 1.15's float32 convolution is a GEMM over the patch matrix (taps in filter order: rows,
# columns, channels) that adds each output's products in order along k, an FMA each (measured
# up to k = 320, as its MatMul; see linalg_ops._gemm_in_k_order): OpenBLAS adds in that order
# up to k = 31, or for a filter matrix whose columns are a multiple of 16, so a filter matrix
# in between with other widths multiplies as a copy padded with zero columns. (A width group's
# zero taps add exact zeros, which leaves the order's sums as they are.)
K_ORDER_MIN, K_ORDER_MAX = 32, 320


def _k_order_needed(k, n):
    # (a one-column filter matrix makes numpy's product a GEMV, which OpenBLAS adds out of
    # order at any k: padded too, as a 1x1 convolution to one channel (GAT's attention
    # logits) adds its taps in order in TF 1.15, measured)
    return K_ORDER_MIN <= k <= K_ORDER_MAX or (n == 1 and 1 < k < K_ORDER_MIN)


def _k_order_filter(w2):
    """``w2`` [k, n] padded to a multiple of 16 columns where OpenBLAS would otherwise add
    out of TF's order, else None."""
    k, n = w2.shape
    if n % 16 == 0 or not _k_order_needed(k, n) or w2.dtype != np.float32:
        return None
    padded = np.zeros((k, n + 16 - n % 16), np.float32)
    padded[:, :n] = w2
    return padded


def _k_order_product(a, b):
    """``a @ b`` with each output's products added in order along k (see _k_order_filter),
    for a right operand of any layout."""
    k, n = b.shape
    if (_k_order_needed(k, n) and b.dtype == np.float32
            and (n % 16 or not b.flags.c_contiguous)):
        wide = np.zeros((k, n + (-n) % 16), np.float32)
        wide[:, :n] = b
        return np.matmul(a, wide)[:, :n]
    return np.matmul(a, b)


def _matmul_into(cols, w2, wide, out):
    # cols @ w2 into ``out``, through the padded filter ``wide`` when there is one
    if wide is None:
        np.matmul(cols, w2, out=out)
    else:
        out[...] = np.matmul(cols, wide)[:, : w2.shape[1]]


def _is_pointwise(ksize, strides, pads):
    return all(k == 1 for k in ksize) and all(s == 1 for s in strides) and not any(
        b or a for b, a in pads
    )


# ------------------------------------------------------------------------------------------
# convolution
# ------------------------------------------------------------------------------------------


def conv(x, w, strides, dilations, padding, explicit=None):
    """Cross-correlation of ``x`` [N, *S, C] with ``w`` [*K, C, O] -> [N, *outs, O]."""
    nsp = x.ndim - 2
    ksize = w.shape[:nsp]
    out_dtype = x.dtype
    dt = compute_dtype(out_dtype)
    x = x.astype(dt, copy=False)
    w = w.astype(dt, copy=False)
    outs, pads = geometry(x.shape[1:-1], ksize, strides, dilations, padding, explicit)
    n_batch, n_out = x.shape[0], w.shape[-1]
    p = math.prod(outs)
    k = w.size // n_out if n_out else 0
    out = np.empty((n_batch,) + outs + (n_out,), dt)
    if out.size == 0:
        return out.astype(out_dtype, copy=False)
    if k == 0:
        out[...] = 0
        return out.astype(out_dtype, copy=False)
    w2 = w.reshape(k, n_out)
    out2 = out.reshape(n_batch * p, n_out)
    if _is_pointwise(ksize, strides, pads):
        wide = _k_order_filter(w2)
        if wide is None:
            threads.matmul(x.reshape(n_batch * p, k), w2, out=out2)
        else:
            out2[...] = threads.matmul(x.reshape(n_batch * p, k), wide)[:, :n_out]
        return out.astype(out_dtype, copy=False)
    if spectral.worthwhile(dt, x.shape[1:-1], ksize, outs, pads, strides, dilations, n_batch,
                           x.shape[-1], n_out):
        spectral.conv(x, w, pads, outs, out)
        return out.astype(out_dtype, copy=False)
    xp = _pad(x, pads)
    g = _width_group(outs, ksize, strides, dilations, x.shape[-1], n_out)
    if g > 1:
        wg = _grouped_filter(w, g)
        wide = _k_order_filter(wg)
        gp = p // g
        out_g = out.reshape(n_batch * gp, g * n_out)

        def images(i, j):
            for b0, b1, cols in _grouped_patches(xp[i:j], outs, ksize, strides, dilations, g):
                _matmul_into(cols, wg, wide, out_g[(i + b0) * gp : (i + b1) * gp])

    else:
        wide = _k_order_filter(w2)

        def images(i, j):
            for b0, b1, cols in _patch_matrices(xp[i:j], outs, ksize, strides, dilations):
                _matmul_into(cols, w2, wide, out2[(i + b0) * p : (i + b1) * p])

    threads.parallel_for(n_batch, images, p * k * dt.itemsize)
    return out.astype(out_dtype, copy=False)


def conv_backprop_filter(x, filter_shape, dy, strides, dilations, padding, explicit=None,
                         dy_spectrum=None):
    """Gradient of :func:`conv` with respect to its filter, of shape ``filter_shape``.

    ``dy_spectrum``: dy's spectrum as the input gradient of the same step kept it (see
    spectral.conv_backprop_filter), or None."""
    nsp = x.ndim - 2
    filter_shape = tuple(int(d) for d in filter_shape)
    ksize = filter_shape[:nsp]
    out_dtype = dy.dtype
    dt = compute_dtype(out_dtype)
    x = x.astype(dt, copy=False)
    outs, pads = geometry(x.shape[1:-1], ksize, strides, dilations, padding, explicit)
    n_batch, n_out = x.shape[0], filter_shape[-1]
    p = math.prod(outs)
    k = math.prod(filter_shape[:-1])
    dw = np.zeros((k, n_out), dt)
    if dw.size == 0 or n_batch * p == 0:
        return dw.reshape(filter_shape).astype(out_dtype, copy=False)
    dy2 = np.ascontiguousarray(dy, dtype=dt).reshape(n_batch * p, n_out)
    if _is_pointwise(ksize, strides, pads):
        if dt == np.float32 and _k_order_needed(n_batch * p, n_out):  # (a GEMV, in TF's order)
            dw = _k_order_product(x.reshape(n_batch * p, k).T, dy2)
        else:
            threads.matmul(x.reshape(n_batch * p, k).T, dy2, out=dw)
        return dw.reshape(filter_shape).astype(out_dtype, copy=False)
    if spectral.worthwhile(dt, x.shape[1:-1], ksize, outs, pads, strides, dilations, n_batch,
                           x.shape[-1], n_out):
        dw = spectral.conv_backprop_filter(x, filter_shape, dy2.reshape(dy.shape), pads,
                                           dy_spectrum)
        return dw.astype(out_dtype, copy=False)
    xp = _pad(x, pads)
    if dt == np.float32 and _k_order_needed(n_batch * p, n_out):
        # TF 1.15's CPU kernel contracts one shard's patch matrix with dy over all its
        # images and pixels at once, each output's products added in order along them (an
        # FMA each, as its MatMul): the whole batch is one such product here
        # (each piece copied: the pieces share one buffer)
        cols_t = np.concatenate([np.array(c.T) for _, _, c in
                                 _patch_matrices(xp, outs, ksize, strides, dilations)], 1)
        dw = _k_order_product(cols_t, dy2)
        return dw.reshape(filter_shape).astype(out_dtype, copy=False)
    sums = {}  # first image of a piece -> that piece's sum (added in image order below)

    def images(i, j):
        acc = part = None
        for b0, b1, cols in _patch_matrices(xp[i:j], outs, ksize, strides, dilations):
            rows = dy2[(i + b0) * p : (i + b1) * p]
            if acc is None:
                acc = np.matmul(cols.T, rows)
                part = np.empty_like(acc)
            else:
                np.matmul(cols.T, rows, out=part)
                acc += part
        sums[i] = acc

    threads.parallel_for(n_batch, images, p * k * dt.itemsize)
    order = sorted(sums)
    dw = sums[order[0]]
    for i in order[1:]:
        dw += sums[i]
    return dw.reshape(filter_shape).astype(out_dtype, copy=False)


def conv_backprop_input(input_shape, w, dy, strides, dilations, padding, explicit=None,
                        keep=None):
    """Gradient of :func:`conv` with respect to its input, of shape ``input_shape``.

    ``keep``: see spectral.conv_backprop_input (filled only when the spectral path runs)."""
    nsp = w.ndim - 2
    input_shape = tuple(int(d) for d in input_shape)
    ksize = w.shape[:nsp]
    out_dtype = dy.dtype
    dt = compute_dtype(out_dtype)
    w = w.astype(dt, copy=False)
    outs, pads = geometry(input_shape[1:-1], ksize, strides, dilations, padding, explicit)
    n_batch, chans, n_out = input_shape[0], input_shape[-1], w.shape[-1]
    p = math.prod(outs)
    k = math.prod(ksize) * chans
    if n_batch * p == 0 or k == 0 or n_out == 0:
        return np.zeros(input_shape, out_dtype)
    dy2 = np.ascontiguousarray(dy, dtype=dt).reshape(n_batch * p, n_out)
    w2t = w.reshape(k, n_out).T
    # TF 1.15's Conv2DBackpropInput (its custom CPU kernel) multiplies the output gradient by
    # the transposed filter (the GEMM's order along the output channels), then adds each
    # patch's columns into the input gradient patch after patch (col2im): its bits, where the
    # transposed convolution below sums taps and channels together
    as_tf = nsp == 2 and dt == np.float32 and all(d == 1 for d in dilations)
    if _is_pointwise(ksize, strides, pads):
        dx = _k_order_product(dy2, w2t) if as_tf else threads.matmul(dy2, w2t)
        return dx.reshape(input_shape).astype(out_dtype, copy=False)
    if spectral.worthwhile(dt, input_shape[1:-1], ksize, outs, pads, strides, dilations, n_batch,
                           chans, n_out):
        dx = spectral.conv_backprop_input(input_shape, w, dy2.reshape(dy.shape), pads, keep)
        return dx.astype(out_dtype, copy=False)
    if all(s == 1 for s in strides) and chans >= TRANSPOSED_MIN_CHANNELS and not as_tf:
        # stride 1: the input gradient is a VALID convolution of the padded output gradient
        # with the flipped, in/out-swapped filter -- one im2col matmul, no scatter-adds
        tpads = []
        for n, o, kk, d, (b, _) in zip(input_shape[1:-1], outs, ksize, dilations, pads):
            eff = (kk - 1) * d + 1
            tpads.append((eff - 1 - b, n + b - o))
        if all(b >= 0 and a >= 0 for b, a in tpads):
            wt = np.ascontiguousarray(np.flip(w, axis=tuple(range(nsp))).swapaxes(-1, -2))
            dyp = _pad(np.ascontiguousarray(dy, dtype=dt), tuple(tpads))
            dx = conv(dyp, wt, strides, dilations, "VALID")
            return dx.astype(out_dtype, copy=False)
    dxp = np.zeros(_padded_shape(input_shape, pads), dt)
    taps = list(np.ndindex(*ksize))
    if as_tf:
        # (a position's patches in TF's order: its taps from the last back)
        taps.reverse()
    lead = (slice(None),) * (1 + nsp)

    def images(i, j):
        chunks = _chunks(j - i, p * k * dt.itemsize)
        buf = np.empty((chunks[0][1] - chunks[0][0]) * p * k, dt)
        for c0, c1 in chunks:
            b0, b1 = i + c0, i + c1
            dst = dxp[b0:b1]
            if as_tf:
                cols = _k_order_product(dy2[b0 * p : b1 * p], w2t)
                cols = cols.reshape((b1 - b0,) + outs + tuple(ksize) + (chans,))
                for tap in taps:
                    dst[_tap(outs, strides, dilations, tap)] += cols[lead + tap]
                continue
            if chans == 1:  # tap-major: one contiguous row per tap (see _patch_matrices)
                cols_t = buf[: (b1 - b0) * p * k].reshape(k, (b1 - b0) * p)
                np.matmul(w2t.T, dy2[b0 * p : b1 * p].T, out=cols_t)
                cols_t = cols_t.reshape((k, b1 - b0) + outs)
                for t, tap in enumerate(taps):
                    dst[_tap(outs, strides, dilations, tap)][..., 0] += cols_t[t]
                continue
            cols = buf[: (b1 - b0) * p * k].reshape((b1 - b0) * p, k)
            np.matmul(dy2[b0 * p : b1 * p], w2t, out=cols)
            cols = cols.reshape((b1 - b0,) + outs + tuple(ksize) + (chans,))
            for tap in taps:
                dst[_tap(outs, strides, dilations, tap)] += cols[lead + tap]

    threads.parallel_for(n_batch, images, p * k * dt.itemsize)
    return _crop(dxp, input_shape, pads).astype(out_dtype, copy=False)


# ------------------------------------------------------------------------------------------
# depthwise convolution: output channel c * M + m sees only input channel c
# ------------------------------------------------------------------------------------------


def depthwise(x, w, strides, dilations, padding, explicit=None):
    """Depthwise conv of ``x`` [N, *S, C] with ``w`` [*K, C, M] -> [N, *outs, C * M]."""
    nsp = x.ndim - 2
    ksize = w.shape[:nsp]
    out_dtype = x.dtype
    dt = compute_dtype(out_dtype)
    x = x.astype(dt, copy=False)
    w = w.astype(dt, copy=False)
    outs, pads = geometry(x.shape[1:-1], ksize, strides, dilations, padding, explicit)
    chans, mult = w.shape[-2], w.shape[-1]
    out = np.zeros((x.shape[0],) + outs + (chans, mult), dt)
    if out.size:
        xp = _pad(x, pads)
        tmp = np.empty_like(out)
        for tap in np.ndindex(*ksize):
            sl = xp[_tap(outs, strides, dilations, tap)]
            np.multiply(sl[..., None], w[tap], out=tmp)
            out += tmp
    return out.reshape(out.shape[:-2] + (chans * mult,)).astype(out_dtype, copy=False)


def depthwise_backprop_input(input_shape, w, dy, strides, dilations, padding, explicit=None):
    """Gradient of :func:`depthwise` with respect to its input."""
    nsp = w.ndim - 2
    input_shape = tuple(int(d) for d in input_shape)
    ksize = w.shape[:nsp]
    out_dtype = dy.dtype
    dt = compute_dtype(out_dtype)
    w = w.astype(dt, copy=False)
    outs, pads = geometry(input_shape[1:-1], ksize, strides, dilations, padding, explicit)
    chans, mult = w.shape[-2], w.shape[-1]
    dy5 = dy.astype(dt, copy=False).reshape(dy.shape[:-1] + (chans, mult))
    dxp = np.zeros(_padded_shape(input_shape, pads), dt)
    if dy5.size:
        for tap in np.ndindex(*ksize):
            if mult == 1:
                contrib = dy5[..., 0] * w[tap][:, 0]
            else:
                contrib = np.einsum("...cm,cm->...c", dy5, w[tap])
            dxp[_tap(outs, strides, dilations, tap)] += contrib
    return _crop(dxp, input_shape, pads).astype(out_dtype, copy=False)


def depthwise_backprop_filter(x, filter_shape, dy, strides, dilations, padding, explicit=None):
    """Gradient of :func:`depthwise` with respect to its filter, of shape ``filter_shape``."""
    nsp = x.ndim - 2
    filter_shape = tuple(int(d) for d in filter_shape)
    ksize = filter_shape[:nsp]
    out_dtype = dy.dtype
    dt = compute_dtype(out_dtype)
    x = x.astype(dt, copy=False)
    outs, pads = geometry(x.shape[1:-1], ksize, strides, dilations, padding, explicit)
    chans, mult = filter_shape[-2], filter_shape[-1]
    rows = x.shape[0] * math.prod(outs)
    dy3 = np.ascontiguousarray(dy, dtype=dt).reshape(rows, chans, mult)
    dw = np.zeros(filter_shape, dt)
    if rows:
        xp = _pad(x, pads)
        for tap in np.ndindex(*ksize):
            sl = np.ascontiguousarray(xp[_tap(outs, strides, dilations, tap)]).reshape(rows, chans)
            dw[tap] = np.einsum("rc,rcm->cm", sl, dy3)
    return dw.astype(out_dtype, copy=False)


# ------------------------------------------------------------------------------------------
# pooling
# ------------------------------------------------------------------------------------------


def _lowest(dtype):
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    return -np.inf


def _pool_setup(x, ksize, strides, padding):
    ones = (1,) * len(ksize)
    return geometry(x.shape[1:-1], ksize, strides, ones, padding)


def max_pool(x, ksize, strides, padding, floor=None):
    """Max over each window of ``x`` [N, *S, C]; padding never wins (it is -inf). With a
    ``floor``, as TF's CPU kernels: NaNs are passed over (a window starts at the floor and
    keeps its max against a NaN) and no window gives less than the floor."""
    outs, pads = _pool_setup(x, ksize, strides, padding)
    ones = (1,) * len(ksize)
    if x.size == 0 or math.prod(outs) == 0:
        return np.zeros((x.shape[0],) + outs + (x.shape[-1],), x.dtype)
    xp = _pad(x, pads, _lowest(x.dtype))
    out = np.empty((x.shape[0],) + outs + (x.shape[-1],), x.dtype)
    taps = [_tap(outs, strides, ones, tap) for tap in np.ndindex(*ksize)]
    check = floor is not None and out.dtype.kind not in "iu"
    unfinite = []  # the pieces where a NaN or -inf came out

    def images(i, j, combine=np.maximum):
        part, dst = xp[i:j], out[i:j]
        np.copyto(dst, part[taps[0]])
        for tap in taps[1:]:
            combine(dst, part[tap], out=dst)
        if check and combine is np.maximum and not np.isfinite(dst.min()):
            unfinite.append((i, j))  # (checked while the piece is in cache)

    threads.parallel_for(x.shape[0], images, x[0].nbytes + out[0].nbytes)
    for i, j in unfinite:  # again, passing NaNs over, then no less than the floor
        images(i, j, np.fmax)
        np.fmax(out[i:j], np.asarray(floor, out.dtype), out=out[i:j])
    return out


def max_pool_taps(x, ksize, strides, padding):
    """(max, tap): the max of each window and the index of the window tap holding it.

    Ties go to the first maximal element in row-major window order (TF's CPU rule).
    """
    outs, pads = _pool_setup(x, ksize, strides, padding)
    ones = (1,) * len(ksize)
    shape = (x.shape[0],) + outs + (x.shape[-1],)
    if x.size == 0 or math.prod(outs) == 0:
        return np.zeros(shape, x.dtype), np.zeros(shape, np.intp), outs, pads
    xp = _pad(x, pads, _lowest(x.dtype))
    out = None
    idx = np.zeros(shape, np.intp)
    for t, tap in enumerate(np.ndindex(*ksize)):
        sl = xp[_tap(outs, strides, ones, tap)]
        if out is None:
            out = sl.copy()
        else:
            # branch-free arithmetic: masked copies on random masks are ~10x slower
            better = sl > out
            np.maximum(out, sl, out=out)
            idx += better * (t - idx)
    return out, idx, outs, pads


def _max_pool_taps_nan_first(x, ksize, strides, padding):
    """max_pool_taps as TF 1.15's MaxPoolWithArgmax kernel scans a window: its first element
    inside the input, then each later one greater than the running maximum. So a NaN is
    taken only where it comes first in the window, and kept there; elsewhere it is passed
    over (Eigen's MaxPool takes the largest number either way)."""
    outs, pads = _pool_setup(x, ksize, strides, padding)
    ones = (1,) * len(ksize)
    shape = (x.shape[0],) + outs + (x.shape[-1],)
    xp = _pad(x, pads, _lowest(x.dtype))
    inside = _pad(np.ones((1,) + x.shape[1:-1] + (1,), bool), pads, False)
    out = np.full(shape, _lowest(x.dtype), x.dtype)
    idx = np.zeros(shape, np.intp)
    unset = np.ones(shape, bool)
    with np.errstate(invalid="ignore"):
        for t, tap in enumerate(np.ndindex(*ksize)):
            where = _tap(outs, strides, ones, tap)
            sl, ok = xp[where], inside[where]
            take = ok & (unset | (out < sl))
            np.copyto(out, sl, where=take)
            idx[take] = t
            unset &= ~ok
    return out, idx, outs, pads


def _tiles(x, ksize, strides, padding):
    """The output sizes when the pooling windows tile ``x`` without padding (ksize == strides,
    SAME on sizes the window divides, or VALID), else None."""
    if tuple(ksize) != tuple(strides):
        return None
    outs, pads = _pool_setup(x, ksize, strides, padding)
    if any(b or a for b, a in pads):
        return None
    return outs


def _max_pool_grad_tiled(x, dy, ksize, outs, dx):
    """max_pool_grad for windows that tile the input: each tap's slab of ``dx`` is written once
    (``dx`` holds zeros wherever no window reaches).

    The tap that holds the first maximum is the last one that beat the running maximum (the
    recurrence max_pool_taps runs, NaNs included); its mask is that tap's "better" mask minus
    those of later taps. No index array, no scatter-adds.
    """
    ones = (1,) * len(ksize)
    taps = [x[_tap(outs, ksize, ones, tap)] for tap in np.ndindex(*ksize)]
    better = [None]
    run = taps[0]
    for i, t in enumerate(taps[1:], 1):
        better.append(np.greater(t, run))
        if i < len(taps) - 1:
            run = np.maximum(run, t)
    later = None
    for i in range(len(taps) - 1, -1, -1):
        dst = dx[_tap(outs, ksize, ones, np.unravel_index(i, ksize))]
        if i == len(taps) - 1:
            mask = better[i]
            later = mask.copy() if i > 1 else mask
        elif i > 0:
            mask = better[i] & ~later
            later |= better[i]
        else:
            mask = np.logical_not(later, out=later)
        np.multiply(dy, mask, out=dst)


def max_pool_grad(x, dy, ksize, strides, padding):
    """Routes each window's gradient to the input element max_pool took (first max on ties)."""
    tiled = _tiles(x, ksize, strides, padding) if x.size and len(ksize) > 0 else None
    if tiled is not None and math.prod(ksize) > 1:
        # (a NaN in dy spreads over its whole window here, where TF routes it to the max
        # alone: NaN gradients either way, and a NaN check would cost this path a few %)
        out_dtype = dy.dtype
        dt = compute_dtype(out_dtype)
        dy = dy.astype(dt, copy=False)
        covered = all(o * k == n for o, k, n in zip(tiled, ksize, x.shape[1:-1]))
        dx = np.empty(x.shape, dt) if covered else np.zeros(x.shape, dt)
        # a few images at a time: the passes over one block of x find it in cache
        step = max(1, POOL_BLOCK_BYTES // max(x[0].nbytes, 1))

        def blocks(i, j):
            for b in range(i * step, min(j * step, x.shape[0]), step):
                _max_pool_grad_tiled(x[b:b + step], dy[b:b + step], ksize, tiled,
                                     dx[b:b + step])

        threads.parallel_for(-(-x.shape[0] // step), blocks, step * 3 * x[0].nbytes)
        return dx.astype(out_dtype, copy=False)
    _, idx, outs, pads = max_pool_taps(x, ksize, strides, padding)
    ones = (1,) * len(ksize)
    out_dtype = dy.dtype
    dt = compute_dtype(out_dtype)
    dy = dy.astype(dt, copy=False)
    # overlapping windows: a NaN in dy reaches only its own window's max, as in TF; the
    # products with 0/1 masks below would spread it, so such a dy takes masked adds (one sum,
    # under 1% of this path, finds it)
    finite = dy.dtype.kind not in "fc" or not dy.size or not np.isnan(dy.sum())
    dxp = np.zeros(_padded_shape(x.shape, pads), dt)
    if dy.size:
        # taps in reverse order: an element several windows route to sums their gradients in
        # the order of the windows' outputs, as TF 1.15's CPU kernel adds them (a window
        # further on reaches it through an earlier tap)
        for t, tap in reversed(list(enumerate(np.ndindex(*ksize)))):
            dst = dxp[_tap(outs, strides, ones, tap)]
            if finite:
                dst += dy * (idx == t)
            else:
                np.add(dst, dy, out=dst, where=idx == t)
    return _crop(dxp, x.shape, pads).astype(out_dtype, copy=False)


def _first_hits(mask, ksize):
    """Keeps, in each window of ``mask`` [N, O1, k1, O2, k2, ..., C], only the first True in
    row-major window order (TF's tie rule): each tap's mask loses what earlier taps took."""
    taps = [mask[(slice(None),) + tuple(x for t in tap for x in (slice(None), t)) + (Ellipsis,)]
            for tap in np.ndindex(*ksize)]
    seen = taps[0].copy()
    for i, t in enumerate(taps[1:], 1):
        np.greater(t, seen, out=t)  # t and not seen
        if i < len(taps) - 1:
            seen |= t


def max_pool_grad_at(x, p, dy, ksize, strides, padding):
    """max_pool_grad given the window maxima ``p``: max_pool(x), or relu(max_pool(x)) with
    ``dy`` zero wherever ``p <= 0`` (the plan's rewrite of a ReLU before the pool). For windows
    that tile ``x``, each window's gradient goes where ``x == p`` (first such tap on ties): one
    comparison and one product over ``x``, against the running-maximum recurrence's dozen
    passes over strided taps. Other geometries, other dtypes and a NaN among the maxima (the
    recurrence's routing differs there) take max_pool_grad."""
    tiled = _tiles(x, ksize, strides, padding) if x.size and len(ksize) > 0 else None
    if (tiled is None or math.prod(ksize) < 2 or x.dtype not in (np.float32, np.float64)
            or dy.dtype != x.dtype or p.dtype != x.dtype or p.shape != dy.shape
            or any(o * k != n for o, k, n in zip(tiled, ksize, x.shape[1:-1]))):
        return max_pool_grad(x, dy, ksize, strides, padding)
    flat = p.reshape(-1)
    if np.isnan(np.dot(flat, flat)):  # a sum of squares is NaN only through a NaN
        return max_pool_grad(x, dy, ksize, strides, padding)
    n = x.shape[0]
    split = (n,) + tuple(d for o, k in zip(tiled, ksize) for d in (o, k)) + (x.shape[-1],)
    whole = (n,) + tuple(d for o in tiled for d in (o, 1)) + (x.shape[-1],)
    xr = np.ascontiguousarray(x).reshape(split)
    pr, dyr = p.reshape(whole), dy.reshape(whole)
    dx = np.empty(x.shape, x.dtype)
    dxr = dx.reshape(split)
    step = max(1, POOL_BLOCK_BYTES // max(x[0].nbytes, 1))
    taps = math.prod(ksize)

    def blocks(i, j):
        for b in range(i * step, min(j * step, n), step):
            e = b + step
            mask = np.equal(xr[b:e], pr[b:e])
            # every window holds its maximum at least once: as many hits as windows means no
            # ties anywhere, and the tie pass (about as costly as the comparison) is skipped
            if np.count_nonzero(mask) != mask.size // taps:
                _first_hits(mask, ksize)
            np.multiply(mask, dyr[b:e], out=dxr[b:e])

    threads.parallel_for(-(-n // step), blocks, step * 3 * x[0].nbytes)
    return dx


def max_pool_grad_near(x, p, dy, ksize, strides, padding, tol=1e-5):
    """MaxPool3DGrad's rule on TF 1.x's CPU: each window's gradient goes to every element of
    the window within ``tol`` of its maximum ``p`` (the forward output as given), compared in
    ``x``'s dtype, and overlapping windows add up. Ties (a ReLU's zeros) all get it."""
    outs, pads = _pool_setup(x, ksize, strides, padding)
    if p.shape != dy.shape:
        raise _invalid(f"orig_output must have the shape of grad: {list(p.shape)} vs "
                       f"{list(dy.shape)}")
    dt = compute_dtype(dy.dtype)
    g = dy.astype(dt, copy=False)
    dxp = np.zeros(_padded_shape(x.shape, pads), dt)
    if dy.size:
        xp = _pad(x, pads, _lowest(x.dtype))  # (padding is never near a window's max)
        tol = np.asarray(tol, x.dtype)
        ones = (1,) * len(ksize)
        for tap in np.ndindex(*ksize):
            sl = _tap(outs, strides, ones, tap)
            near = np.abs(xp[sl] - p) < tol
            dst = dxp[sl]
            np.add(dst, g, out=dst, where=near)
    return _crop(dxp, x.shape, pads).astype(dy.dtype, copy=False)


def max_pool_grad_grad(x, g, ksize, strides, padding):
    """Gradient of max_pool_grad with respect to its ``grad``: ``g`` read at each window max."""
    _, idx, outs, pads = max_pool_taps(x, ksize, strides, padding)
    ones = (1,) * len(ksize)
    gp = _pad(g, pads)
    out = np.zeros(idx.shape, g.dtype)
    if out.size:
        for t, tap in enumerate(np.ndindex(*ksize)):
            np.copyto(out, gp[_tap(outs, strides, ones, tap)], where=idx == t)
    return out


def max_pool_with_argmax(x, ksize, strides, padding, include_batch_in_index, index_dtype):
    """(max, argmax): argmax flattens ((b * H + y) * W + x) * C + c, without b unless asked."""
    if x.dtype.kind == "f" and x.size and np.isnan(x).any():
        out, idx, outs, pads = _max_pool_taps_nan_first(x, ksize, strides, padding)
    else:
        out, idx, outs, pads = max_pool_taps(x, ksize, strides, padding)
    nsp = len(ksize)
    spatial = x.shape[1:-1]
    chans = x.shape[-1]
    taps = np.unravel_index(idx, ksize) if idx.size else [idx] * nsp
    flat = np.arange(x.shape[0]).reshape((-1,) + (1,) * (nsp + 1)) if include_batch_in_index \
        else np.zeros((1,) * (nsp + 2), np.intp)
    for d in range(nsp):
        pos_shape = [1] * (nsp + 2)
        pos_shape[1 + d] = outs[d]
        pos = (np.arange(outs[d]) * strides[d] - pads[d][0]).reshape(pos_shape)
        flat = flat * spatial[d] + (pos + taps[d])
    flat = flat * chans + np.arange(chans)
    return out, np.broadcast_to(flat, idx.shape).astype(index_dtype)


def max_pool_grad_with_argmax(input_shape, dy, argmax, include_batch_in_index):
    """Adds each gradient into the input element its argmax names."""
    input_shape = tuple(int(d) for d in input_shape)
    total = math.prod(input_shape)
    per_image = total // input_shape[0] if input_shape[0] else 0
    idx = np.asarray(argmax, np.int64)
    if not include_batch_in_index and idx.size:
        idx = idx + (np.arange(idx.shape[0]) * per_image).reshape((-1,) + (1,) * (idx.ndim - 1))
    if idx.size and (idx.min() < 0 or idx.max() >= total):
        raise _invalid(f"Invalid argmax index: values must lie in [0, {total})")
    dt = compute_dtype(dy.dtype)
    vals = dy.astype(np.float64 if dt == np.float64 else dt, copy=False).ravel()
    dx = np.bincount(idx.ravel(), weights=vals, minlength=total)
    return dx.reshape(input_shape).astype(dy.dtype)


def max_pool_grad_grad_with_argmax(dy_in, argmax, include_batch_in_index):
    """Gradient of max_pool_grad_with_argmax with respect to its grad: a gather at argmax."""
    idx = np.asarray(argmax, np.int64)
    per_image = dy_in[0].size if dy_in.shape[0] else 0
    if not include_batch_in_index and idx.size:
        idx = idx + (np.arange(idx.shape[0]) * per_image).reshape((-1,) + (1,) * (idx.ndim - 1))
    if idx.size and (idx.min() < 0 or idx.max() >= dy_in.size):
        raise _invalid(f"Invalid argmax index: values must lie in [0, {dy_in.size})")
    return dy_in.ravel()[idx]


def _valid_counts(in_spatial, ksize, strides, outs, pads):
    """How many real (unpadded) inputs each window covers, shaped [1, *outs, 1]."""
    count = np.ones((1,) * (len(outs) + 2), np.int64)
    for d, (n, k, s, o, (b, _)) in enumerate(zip(in_spatial, ksize, strides, outs, pads)):
        start = np.arange(o) * s - b
        c = np.minimum(start + k, n) - np.maximum(start, 0)
        shape = [1] * (len(outs) + 2)
        shape[1 + d] = o
        count = count * c.reshape(shape)
    return count


def avg_pool(x, ksize, strides, padding):
    """Mean over each window of ``x``, dividing by the number of real (unpadded) elements."""
    outs, pads = _pool_setup(x, ksize, strides, padding)
    ones = (1,) * len(ksize)
    # TF 1.15's 2-D half kernel adds the taps (row by row) and divides in half
    dt = x.dtype if x.dtype == np.float16 and len(ksize) == 2 else compute_dtype(x.dtype)
    out = np.zeros((x.shape[0],) + outs + (x.shape[-1],), dt)
    if out.size:
        xp = _pad(x.astype(dt, copy=False), pads)
        for tap in np.ndindex(*ksize):
            out += xp[_tap(outs, strides, ones, tap)]
        out /= _valid_counts(x.shape[1:-1], ksize, strides, outs, pads).astype(dt)
    return out.astype(x.dtype, copy=False)


def avg_pool_grad(input_shape, dy, ksize, strides, padding):
    """Spreads each window's gradient evenly over its real input elements."""
    input_shape = tuple(int(d) for d in input_shape)
    outs, pads = geometry(input_shape[1:-1], ksize, strides, (1,) * len(ksize), padding)
    ones = (1,) * len(ksize)
    dt = compute_dtype(dy.dtype)
    dxp = np.zeros(_padded_shape(input_shape, pads), dt)
    if dy.size:
        counts = _valid_counts(input_shape[1:-1], ksize, strides, outs, pads)
        taps = list(np.ndindex(*ksize))
        if len(ksize) == 2:
            # TF's 2-D kernel: each window's gradient times its coefficient 1 / count (in
            # double, then rounded to the type), added to its inputs window after window in
            # row-major order (an input's windows come in the reverse order of its taps)
            g = dy.astype(dt) * (1.0 / counts).astype(dt)
            taps.reverse()
        else:
            g = dy.astype(dt) / counts.astype(dt)
        for tap in taps:
            dxp[_tap(outs, strides, ones, tap)] += g
    return _crop(dxp, input_shape, pads).astype(dy.dtype, copy=False)
