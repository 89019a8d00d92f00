"""Op-table rows for space_to_depth/depth_to_space, space_to_batch_nd/batch_to_space_nd,
extract_image_patches and bitcast.

The references are element-by-element loops written from TF's definitions of the ops.
"""

import itertools

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops

_DT = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8, tf.complex64, tf.bool)


def _data(shape, start=1):
    def make(np_dt):
        a = (np.arange(int(np.prod(shape))) + start).reshape(shape)
        if np.dtype(np_dt) == np.bool_:
            return a % 3 != 0
        return a.astype(np_dt)

    return make


def _s2d_ref(x, bs, nchw=False):
    if nchw:
        x = x.transpose(0, 2, 3, 1)
    b, h, w, c = x.shape
    out = np.zeros((b, h // bs, w // bs, bs * bs * c), x.dtype)
    for n, i, j, dy, dx, k in itertools.product(range(b), range(h // bs), range(w // bs),
                                                range(bs), range(bs), range(c)):
        out[n, i, j, (dy * bs + dx) * c + k] = x[n, i * bs + dy, j * bs + dx, k]
    return out.transpose(0, 3, 1, 2) if nchw else out


def _d2s_ref(x, bs, nchw=False):
    if nchw:
        x = x.transpose(0, 2, 3, 1)
    b, h, w, c = x.shape
    oc = c // (bs * bs)
    out = np.zeros((b, h * bs, w * bs, oc), x.dtype)
    for n, i, j, dy, dx, k in itertools.product(range(b), range(h), range(w), range(bs),
                                                range(bs), range(oc)):
        out[n, i * bs + dy, j * bs + dx, k] = x[n, i, j, (dy * bs + dx) * oc + k]
    return out.transpose(0, 3, 1, 2) if nchw else out


def _s2b_ref(x, block, pads):
    # output[(b_1 * k_2 + b_2 ...) * batch + n, i_1, ..., rest] =
    #     padded[n, i_1 * k_1 + b_1, ..., rest]
    m = len(block)
    padded = np.pad(x, [(0, 0)] + list(map(tuple, pads)) + [(0, 0)] * (x.ndim - 1 - m))
    n = x.shape[0]
    sp = [padded.shape[1 + i] // k for i, k in enumerate(block)]
    out = np.zeros([n * int(np.prod(block))] + sp + list(x.shape[1 + m:]), x.dtype)
    for offs in itertools.product(*[range(k) for k in block]):
        bi = 0
        for o, k in zip(offs, block):
            bi = bi * k + o
        for b in range(n):
            for pos in itertools.product(*[range(s) for s in sp]):
                src = tuple(p * k + o for p, k, o in zip(pos, block, offs))
                out[(bi * n + b,) + pos] = padded[(b,) + src]
    return out


def _b2s_ref(x, block, crops):
    m = len(block)
    prod = int(np.prod(block))
    n = x.shape[0] // prod
    sp = list(x.shape[1:1 + m])
    full = np.zeros([n] + [s * k for s, k in zip(sp, block)] + list(x.shape[1 + m:]), x.dtype)
    for offs in itertools.product(*[range(k) for k in block]):
        bi = 0
        for o, k in zip(offs, block):
            bi = bi * k + o
        for b in range(n):
            for pos in itertools.product(*[range(s) for s in sp]):
                dst = tuple(p * k + o for p, k, o in zip(pos, block, offs))
                full[(b,) + dst] = x[(bi * n + b,) + pos]
    idx = (slice(None),) + tuple(slice(a, full.shape[1 + i] - c)
                                 for i, (a, c) in enumerate(crops))
    return full[idx]


def _patches_ref(x, k, st, r, padding):
    b, h, w, c = x.shape
    out_dims = []
    pads = []
    for n, kk, ss, rr in ((h, k[1], st[1], r[1]), (w, k[2], st[2], r[2])):
        eff = (kk - 1) * rr + 1
        if padding == "VALID":
            o = int(np.ceil((n - eff + 1) / ss))
            pads.append(0)
        else:
            o = int(np.ceil(n / ss))
            pads.append(max((o - 1) * ss + eff - n, 0) // 2)
        out_dims.append(o)
    out = np.zeros((b, out_dims[0], out_dims[1], k[1] * k[2] * c), x.dtype)
    for n, i, j, ki, kj, d in itertools.product(range(b), range(out_dims[0]),
                                                range(out_dims[1]), range(k[1]), range(k[2]),
                                                range(c)):
        row = i * st[1] + ki * r[1] - pads[0]
        col = j * st[2] + kj * r[2] - pads[1]
        if 0 <= row < h and 0 <= col < w:
            out[n, i, j, (ki * k[2] + kj) * c + d] = x[n, row, col, d]
    return out


def _bitcast_ref(x, dt):
    a, b = x.dtype.itemsize, np.dtype(dt).itemsize
    shape = x.shape + (a // b,) if a > b else x.shape[:-1] if a < b else x.shape
    return np.frombuffer(np.ascontiguousarray(x).tobytes(), dt).reshape(shape)


_REAL = (tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint8, tf.int8)
_I32 = np.int32
_I64 = np.int64

CASES = [
    Case("SpaceToDepth",
         lambda x: [tf.space_to_depth(x, 2), tf.space_to_depth(x[:, :, :, :1], 2)],
         [_data((2, 4, 6, 3))],
         lambda x: [_s2d_ref(x, 2), _s2d_ref(x[:, :, :, :1], 2)], dtypes=_DT),
    Case("SpaceToDepth", lambda x: tf.space_to_depth(x, 3, data_format="NCHW"),
         [_data((1, 2, 3, 6))], lambda x: _s2d_ref(x, 3, nchw=True),
         name="SpaceToDepth_NCHW"),
    Case("DepthToSpace", lambda x: tf.depth_to_space(x, 2), [_data((2, 2, 3, 8))],
         lambda x: _d2s_ref(x, 2), dtypes=_DT),
    Case("DepthToSpace", lambda x: tf.depth_to_space(x, 2, data_format="NCHW"),
         [_data((1, 8, 2, 3))], lambda x: _d2s_ref(x, 2, nchw=True), name="DepthToSpace_NCHW"),
    Case("SpaceToBatchND",
         lambda x: [tf.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 2]]),
                    tf.space_to_batch(x, [[1, 1], [2, 0]], 2)],
         [_data((2, 4, 4, 3))],
         lambda x: [_s2b_ref(x, [2, 3], [[1, 1], [0, 2]]), _s2b_ref(x, [2, 2], [[1, 1], [2, 0]])],
         dtypes=_DT),
    Case("SpaceToBatchND", lambda x, k, p: tf.space_to_batch_nd(x, k, p),
         [_data((2, 6, 2)), np.array([3], _I64), np.array([[2, 1]], _I32)],
         lambda x, k, p: _s2b_ref(x, k.tolist(), p.tolist()), fixed=(1, 2),
         name="SpaceToBatchND_fed_block"),
    Case("SpaceToBatchND", lambda x: tf.space_to_batch_nd(x, [1, 2, 2], [[0, 0], [1, 0], [0, 1]]),
         [_data((1, 2, 3, 5))], lambda x: _s2b_ref(x, [1, 2, 2], [[0, 0], [1, 0], [0, 1]]),
         name="SpaceToBatchND_3d_block"),
    Case("BatchToSpaceND",
         lambda x: [tf.batch_to_space_nd(x, [2, 3], [[1, 0], [0, 2]]),
                    tf.batch_to_space(x[:4], [[0, 1], [1, 1]], 2)],
         [_data((12, 2, 3, 2))],
         lambda x: [_b2s_ref(x, [2, 3], [[1, 0], [0, 2]]), _b2s_ref(x[:4], [2, 2],
                                                                     [[0, 1], [1, 1]])],
         dtypes=_DT),
    Case("BatchToSpaceND", lambda x, k, c: tf.batch_to_space_nd(x, k, c),
         [_data((6, 2, 2)), np.array([3], _I32), np.array([[1, 2]], _I64)],
         lambda x, k, c: _b2s_ref(x, k.tolist(), c.tolist()), fixed=(1, 2),
         name="BatchToSpaceND_fed_block"),
    Case("ExtractImagePatches",
         lambda x: [tf.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
                    tf.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME")],
         [_data((2, 5, 6, 2))],
         lambda x: [_patches_ref(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID"),
                    _patches_ref(x, [1, 2, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "SAME")],
         dtypes=_REAL),
    Case("ExtractImagePatches",
         lambda x: tf.extract_image_patches(x, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
         [_data((1, 3, 4, 1))],
         lambda x: _patches_ref(x, [1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
         name="ExtractImagePatches_overlapping"),
    Case("Bitcast",
         lambda x: [tf.bitcast(x, tf.uint8), tf.bitcast(x, tf.int16),
                    tf.bitcast(tf.bitcast(x, tf.uint8), tf.int32), tf.bitcast(x, tf.float32)],
         [lambda dt: np.array([[1, -2], [70000, 2 ** 30]], np.int32)],
         lambda x: [_bitcast_ref(x, np.uint8), _bitcast_ref(x, np.int16), x,
                    _bitcast_ref(x, np.float32)],
         dtypes=(tf.int32,), grad=False),
    Case("Bitcast",
         lambda x: [tf.bitcast(x, tf.int64), tf.bitcast(x, tf.complex64), tf.bitcast(x, tf.uint16)],
         [lambda dt: np.array([1.5, -2.25, 1e300], np.float64)],
         lambda x: [_bitcast_ref(x, np.int64), _bitcast_ref(x, np.complex64),
                    _bitcast_ref(x, np.uint16)],
         dtypes=(tf.float64,), grad=False, name="Bitcast_float64"),
    Case(("SpaceToBatch", "BatchToSpace"),
         lambda x: [ops.apply_op("SpaceToBatch", [x, [[1, 1], [0, 2]]], {"block_size": 2})
                    ._outputs[0],
                    ops.apply_op("BatchToSpace", [x, [[0, 1], [1, 0]]], {"block_size": 2})
                    ._outputs[0]],
         [_data((4, 2, 4, 2))],
         lambda x: [_s2b_ref(x, [2, 2], [[1, 1], [0, 2]]), _b2s_ref(x, [2, 2], [[0, 1], [1, 0]])],
         dtypes=_DT, name="SpaceToBatch_legacy"),
]
