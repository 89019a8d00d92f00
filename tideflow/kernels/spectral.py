"""Stride-1 2-D convolutions through the discrete Fourier transform, done as real matrix products.

A stride-1, undilated correlation of an input padded to a frame of L positions (per spatial
dim) with a k-tap filter has L - k + 1 outputs, none of which reaches round the frame's end, so
it equals the circular correlation of frame size L: one complex product per frequency,
``Y[f] = X[f] @ conj(W[f])`` over the channels, instead of k*k products per output position.
For the 5x5 filters of a typical image model that is 5-10x fewer multiply-adds.

The transforms are not FFTs: the frames are small (tens of positions), so each 1-D transform
is one BLAS product with a precomputed [positions x frequencies] cosine/sine matrix, over every
line of the batch at once (numpy's FFT calls cost ~100 ns per short line, ten times the
product). Padding never materializes: the matrices start at the input's offset in the frame.
The frame's last dim keeps only its non-negative frequencies (the input is real).

Layouts: an input [B, H, W, C] is transformed to a complex [Qw, Lh, B, C] (Qw = Lw // 2 + 1
frequencies along W, Lh along H), i.e. [F, B, C] for the per-frequency channel products;
the inverse takes [Qw, Lh, B, C] back to [B, oh, ow, C] at any offset in the frame.

Used for float32 arithmetic only (float64 keeps the direct path's sums), where measured
cheaper (see ``worthwhile``). Its results differ from the direct path's by float32 rounding
(relative 1e-6 of the largest output).
"""

import functools
import math

import numpy as np

from tideflow.kernels import threads

# the spectral path is considered at all (tests switch it off and on to compare both paths)
ENABLED = True
# The choice (measured on 2 cores with the intra-op pool, forward + both gradients, over 21
# shapes from 7x7 to 40x40 frames, 1 to 128 channels, 3x3 to 7x7 filters, batch 4 to 128):
# the spectral path won (1.03-2.1x) exactly where the direct path needs at least MIN_RATIO
# times the multiply-adds of the per-frequency products, no frame dim exceeds MAX_FRAME
# positions (the transform products grow as L^2 per line) and there are enough output
# positions over the batch to pay for the filter's transform. 3x3 filters never reach the
# ratio (they tend to 4.5 from below); one input or output channel keeps the direct path,
# whose one-channel form is a few row copies.
MIN_RATIO = 4.5
MAX_FRAME = 28
MIN_POSITIONS = 4096
MIN_CHANNELS = 3
# images per piece of the batch: each piece's transforms and products live only while it runs,
# so the pieces bound the kernels' transient memory (two running at once on two cores: a few
# MB for the CNN benchmark's 14x14x32 layer, where the whole batch at once took ~20 MB more
# than im2col's pieces). The per-frequency products have the piece's images as their columns:
# 32 against 16 made the CNN step 3-5% faster for 6.7 MB more peak RSS (130 MB); 8 was slower
PIECE_IMAGES = 32


def _angles(positions, freqs, frame):
    # (t * f) mod L in integers first: the angle stays exact for any t, f
    return (2.0 * np.pi / frame) * (np.outer(positions, freqs) % frame)


@functools.lru_cache(maxsize=512)
def _forward_w(frame, size, offset, dtype):
    """[2Q, size]: rows (frequency, [cos, -sin]) of the real-to-complex W-transform of
    ``size`` samples at ``offset`` in the frame."""
    a = _angles(np.arange(frame // 2 + 1), np.arange(size) + offset, frame)
    m = np.stack([np.cos(a), -np.sin(a)], axis=1)  # [Q, 2, size]
    return np.ascontiguousarray(m.reshape(-1, size), dtype=dtype)


@functools.lru_cache(maxsize=512)
def _forward_h(frame, size, offset, dtype):
    """[2L, 2size]: the complex H-transform on planar data: rows (frequency, [re, im]),
    columns ([re, im], position)."""
    a = _angles(np.arange(frame), np.arange(size) + offset, frame)
    c, s = np.cos(a), np.sin(a)
    m = np.empty((frame, 2, 2, size))
    m[:, 0, 0], m[:, 0, 1] = c, s  # (c - i s)(r + i j): re = c r + s j
    m[:, 1, 0], m[:, 1, 1] = -s, c  # im = c j - s r
    return np.ascontiguousarray(m.reshape(2 * frame, 2 * size), dtype=dtype)


@functools.lru_cache(maxsize=512)
def _inverse_h(frame, size, offset, dtype):
    """[2o, 2L]: the complex inverse H-transform on planar data: rows ([re, im], position),
    columns (frequency, [re, im])."""
    a = _angles(np.arange(size) + offset, np.arange(frame), frame)
    c, s = np.cos(a), np.sin(a)
    m = np.empty((2, size, frame, 2))
    m[0, :, :, 0], m[0, :, :, 1] = c, -s  # (c + i s)(r + i j): re = c r - s j
    m[1, :, :, 0], m[1, :, :, 1] = s, c  # im = s r + c j
    return np.ascontiguousarray(m.reshape(2 * size, 2 * frame), dtype=dtype)


@functools.lru_cache(maxsize=512)
def _inverse_w(frame_h, frame, size, offset, dtype):
    """[o, 2Q]: the complex-to-real inverse along W, columns (frequency, [re, im]):
    [c cos, -c sin] / (Lh * Lw), c = 2 but for the zero and the Nyquist frequency (each
    appears once in the full spectrum)."""
    q = frame // 2 + 1
    c = np.full(q, 2.0)
    c[0] = 1.0
    if frame % 2 == 0:
        c[-1] = 1.0
    c /= frame_h * frame
    a = _angles(np.arange(size) + offset, np.arange(q), frame)
    m = np.stack([c * np.cos(a), -c * np.sin(a)], axis=2)  # [o, Q, 2]
    return np.ascontiguousarray(m.reshape(size, 2 * q), dtype=dtype)


def transform(a, offsets, frames):
    """Spectrum [Qw, Lh, 2, M] (real and imaginary planes) of ``a`` [W, H, M] placed at
    ``offsets`` (h, w) in a zero frame of ``frames`` (Lh, Lw) positions."""
    sw, sh, m = a.shape
    lh, lw = frames
    q = lw // 2 + 1
    dt = a.dtype
    r = np.matmul(_forward_w(lw, sw, offsets[1], dt), a.reshape(sw, sh * m))
    return np.matmul(_forward_h(lh, sh, offsets[0], dt), r.reshape(q, 2 * sh, m)).reshape(
        q, lh, 2, m)


def inverse(z, frames, offsets, outs):
    """Real [ow, oh, M]: the inverse transform of spectrum ``z`` [Qw, Lh, 2, M] at the
    ``outs`` (oh, ow) positions from ``offsets`` (h, w) of the frame."""
    q, lh, _, m = z.shape
    oh, ow = outs
    dt = z.dtype
    y1 = np.matmul(_inverse_h(lh, oh, offsets[0], dt), z.reshape(q, 2 * lh, m))
    y = np.matmul(_inverse_w(lh, frames[1], ow, offsets[1], dt), y1.reshape(2 * q, oh * m))
    return y.reshape(ow, oh, m)


def frames_of(in_spatial, pads):
    return tuple(n + b + a for n, (b, a) in zip(in_spatial, pads))


def worthwhile(dtype, in_spatial, ksize, outs, pads, strides, dilations, n_batch, c_in, c_out):
    """Whether the spectral path is expected to beat im2col for this convolution (and its two
    gradients, whose sizes are the same): see MIN_RATIO."""
    if (not ENABLED or np.dtype(dtype) != np.float32 or len(ksize) != 2
            or any(s != 1 for s in strides) or any(d != 1 for d in dilations)
            or min(c_in, c_out) < MIN_CHANNELS or n_batch * math.prod(outs) < MIN_POSITIONS):
        return False
    lh, lw = frames_of(in_spatial, pads)
    if max(lh, lw) > MAX_FRAME:
        return False
    freqs = lh * (lw // 2 + 1)
    return math.prod(outs) * math.prod(ksize) >= MIN_RATIO * 4 * freqs


def _filter_blocks(w, frames, correlate):
    """[F, A, 3B]: the filter's spectrum W[f] [C, O] acting on planar [re; im] channel
    columns v [2B, n], as [P | Q | R] with re = [Q | R] @ v and im = [P | Q] @ v (see
    _apply_blocks): for ``correlate``, conj(W)^T (input channels to output channels),
    [-Wi^T | Wr^T | Wi^T]; else W (output channels back to input channels), [Wi | Wr | -Wi].
    Three quarters of the [[Wr, -Wi], [Wi, Wr]] block form's memory and copies."""
    kh, kw = w.shape[:2]
    wt = w.transpose(1, 0, 3, 2) if correlate else w.transpose(1, 0, 2, 3)
    rows, cols = wt.shape[2:]
    f = frames[0] * (frames[1] // 2 + 1)
    blk = np.empty((f, rows, 3, cols), w.dtype)
    neg = 0 if correlate else 2  # the third holding -Wi

    def part(i, j):  # the rows i:j, from their own transform
        piece = np.ascontiguousarray(wt[:, :, i:j]).reshape(kw, kh, (j - i) * cols)
        z = transform(piece, (0, 0), frames).reshape(f, 2, j - i, cols)
        blk[:, i:j, 1] = z[:, 0]
        np.negative(z[:, 1], out=blk[:, i:j, neg])
        blk[:, i:j, 2 - neg] = z[:, 1]

    threads.parallel_for(rows, part, 12 * f * cols)
    return blk.reshape(f, rows, 3 * cols)


def _apply_blocks(blk, v):
    """[F, 2A, n]: the complex product of _filter_blocks' ``blk`` [F, A, 3B] with the planar
    columns ``v`` [F, 2B, n]: re = [Q | R] @ v, im = [P | Q] @ v."""
    f, rows, b3 = blk.shape
    b = b3 // 3
    out = np.empty((f, 2, rows, v.shape[-1]), v.dtype)
    np.matmul(blk[:, :, b:], v, out=out[:, 0])
    np.matmul(blk[:, :, :2 * b], v, out=out[:, 1])
    return out.reshape(f, 2 * rows, v.shape[-1])


def _lines(a, i, j):
    """``a[i:j]`` [B, H, W, C] as [W, H, C, B] (batch innermost: the products' columns).

    Both this and _images transpose in two steps, the batch/channel swap within each
    position first: one strided copy moving the batch across the channels is several times
    slower (its reads or writes a few hundred bytes apart keep landing in the same cache
    sets)."""
    t = np.ascontiguousarray(a[i:j].transpose(2, 1, 0, 3))  # [W, H, B, C]
    return np.ascontiguousarray(t.transpose(0, 1, 3, 2))


def _images(y, dst, outs, chans):
    """Writes ``y`` [ow * oh * chans * B] (batch innermost) into ``dst`` [B, oh, ow, chans]."""
    n = dst.shape[0]
    t = np.ascontiguousarray(y.reshape(outs[1], outs[0], chans, n).transpose(0, 1, 3, 2))
    dst[...] = t.transpose(2, 1, 0, 3)


def _over_pieces(n, fn, item_bytes):
    """``fn(i, j)`` over pieces of at most PIECE_IMAGES of the ``n`` images: on the intra-op
    pool when it is active (the pieces taken in order by its threads), else one after
    another."""
    k = max(threads.pieces(n, item_bytes), -(-n // PIECE_IMAGES))
    if k > 1 and threads.active():
        threads.parallel_for(n, fn, k=k)
        return
    for p in range(k):
        fn(n * p // k, n * (p + 1) // k)


def _dy_operand(f, o, n, dtype):
    """The filter gradient's dy operand [F, 2, N, O] (see conv_backprop_filter)."""
    return np.empty((f, 2, n, o), dtype)


def _put_dy(ys, yf, i, j):
    """Writes the spectrum ``yf`` [F, 2, O, j - i] of images i:j into [DYr; DYi] [F, 2, N, O]."""
    ys[:, :, i:j] = yf.transpose(0, 1, 3, 2)


def conv(x, w, pads, outs, out):
    """Forward correlation into ``out`` [N, oh, ow, O] (x [N, H, W, C] float32)."""
    frames = frames_of(x.shape[1:3], pads)
    blk = _filter_blocks(w, frames, True)
    offs = (pads[0][0], pads[1][0])
    c, o = x.shape[-1], w.shape[-1]

    def images(i, j):
        xl = _lines(x, i, j)
        xf = transform(xl.reshape(xl.shape[0], xl.shape[1], -1), offs, frames)
        del xl
        yf = _apply_blocks(blk, xf.reshape(blk.shape[0], 2 * c, j - i))
        head = xf.shape[:3]
        del xf
        y = inverse(yf.reshape(head + (o * (j - i),)), frames, (0, 0), outs)
        del yf
        _images(y, out[i:j], outs, o)

    _over_pieces(x.shape[0], images, _piece_bytes(x, frames, o))
    return out


def conv_backprop_input(input_shape, w, dy, pads, keep=None):
    """Input gradient [N, H, W, C] of the stride-1 correlation (dy [N, oh, ow, O] float32).

    ``keep``: a dict that receives, as ``"ys"``, dy's spectrum laid out as the filter
    gradient's operand, so that the filter gradient of the same step need not transform dy
    again."""
    frames = frames_of(input_shape[1:3], pads)
    blk = _filter_blocks(w, frames, False)
    offs = (pads[0][0], pads[1][0])
    c, o = input_shape[-1], dy.shape[-1]
    f = blk.shape[0]
    dx = np.empty(input_shape, dy.dtype)
    ys = None if keep is None else _dy_operand(f, o, dy.shape[0], dy.dtype)

    def images(i, j):
        yl = _lines(dy, i, j)
        yf = transform(yl.reshape(yl.shape[0], yl.shape[1], -1), (0, 0), frames)
        del yl
        if ys is not None:
            _put_dy(ys, yf.reshape(f, 2, o, j - i), i, j)
        xf = _apply_blocks(blk, yf.reshape(f, 2 * o, j - i))
        head = yf.shape[:3]
        del yf
        y = inverse(xf.reshape(head + (c * (j - i),)), frames, offs, input_shape[1:3])
        del xf
        _images(y, dx[i:j], input_shape[1:3], c)

    _over_pieces(dy.shape[0], images, _piece_bytes(dy, frames, c))
    if ys is not None:
        keep["ys"] = ys
    return dx


def conv_backprop_filter(x, filter_shape, dy, pads, ys=None):
    """Filter gradient [kh, kw, C, O] of the stride-1 correlation: per frequency, the sum
    over the batch of X conj(DY), re = Xr DYr + Xi DYi and im = Xi DYr - Xr DYi.

    The pieces of the batch transform into whole-batch operands laid out so that two real
    products per frequency give re and im directly: with Z = [Xr^T, Xi^T, -Xr^T] [C, 3B],
    re = Z[:, :2B] @ [DYr; DYi] and im = Z[:, B:] @ [DYr; DYi]. Products over pieces of 16
    images, their [F, 2C, 2O] parts summed and the re/im blocks combined after, took 1.5x as
    long. ``ys``: dy's operand as the input gradient of the same step left it (``keep``), when
    it did; else it is computed here."""
    frames = frames_of(x.shape[1:3], pads)
    offs = (pads[0][0], pads[1][0])
    c, o = filter_shape[2], filter_shape[3]
    n = x.shape[0]
    q, lh = frames[1] // 2 + 1, frames[0]
    f = q * lh
    if ys is not None and ys.shape != (f, 2, n, o):
        ys = None
    need_dy = ys is None
    z = np.empty((f, c, 3, n), x.dtype)
    if need_dy:
        ys = _dy_operand(f, o, n, x.dtype)

    def images(i, j):
        xl = _lines(x, i, j)
        xf = transform(xl.reshape(xl.shape[0], xl.shape[1], -1), offs, frames)
        del xl
        xf = xf.reshape(f, 2, c, j - i)
        z[:, :, 0, i:j] = xf[:, 0]
        z[:, :, 1, i:j] = xf[:, 1]
        np.negative(xf[:, 0], out=z[:, :, 2, i:j])
        del xf
        if need_dy:
            yl = _lines(dy, i, j)
            yf = transform(yl.reshape(yl.shape[0], yl.shape[1], -1), (0, 0), frames)
            del yl
            _put_dy(ys, yf.reshape(f, 2, o, j - i), i, j)

    _over_pieces(n, images, _piece_bytes(x, frames, o))
    dwf = np.empty((f, 2, c, o), x.dtype)
    zr, rhs = z.reshape(f, c, 3 * n), ys.reshape(f, 2 * n, o)

    def freqs(a, b):
        np.matmul(zr[a:b, :, :2 * n], rhs[a:b], out=dwf[a:b, 0])
        np.matmul(zr[a:b, :, n:], rhs[a:b], out=dwf[a:b, 1])

    threads.parallel_for(f, freqs, k=min(f, threads.pieces(f, dwf[0].nbytes)))
    dw = inverse(dwf.reshape(q, lh, 2, c * o), frames, (0, 0), filter_shape[:2])
    return np.ascontiguousarray(dw.reshape(filter_shape[1], filter_shape[0], c, o)
                                .transpose(1, 0, 2, 3))


def _piece_bytes(x, frames, c_out):
    """Memory one image's transforms touch (the parallel split's measure)."""
    f = frames[0] * (frames[1] // 2 + 1)
    return 8 * f * (x.shape[-1] + c_out) + x[0].nbytes
