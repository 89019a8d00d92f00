"""String hashing: TF's ``Fingerprint64`` (FarmHash's 64-bit fingerprint, the ``farmhashna``
Hash64 that TF's ``StringToHashBucketFast`` and the lookup tables' out-of-vocabulary buckets use)
and the ``StringToHashBucketFast`` op, ``tf.string_to_hash_bucket_fast``.

The fingerprint is pure Python over 64-bit words (masked arithmetic); it is stable across
platforms and releases, as TF promises for Fingerprint64.
"""

import functools
import struct

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support

_M = 0xFFFFFFFFFFFFFFFF
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _f64(s, i):
    return struct.unpack_from("<Q", s, i)[0]


def _f32(s, i):
    return struct.unpack_from("<I", s, i)[0]


def _rot(v, r):
    return ((v >> r) | (v << (64 - r))) & _M if r else v


def _smix(v):
    return v ^ (v >> 47)


_KMUL = 0x9DDFEA08EB382D69  # Hash128to64's multiplier, the default of _h16


def _h16(u, v, mul=_KMUL):
    a = ((u ^ v) * mul) & _M
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M
    b ^= b >> 47
    return (b * mul) & _M


def _weak32(s, i, a, b):
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M
    b = _rot((b + a + z) & _M, 21)
    c = a
    a = (a + x) & _M
    a = (a + y) & _M
    b = (b + _rot(a, 44)) & _M
    return (a + z) & _M, (b + c) & _M


def _chunk64(s, i, x, y, z, v0, v1, w0, w1):
    """The state ``(x, y, z, v0, v1, w0, w1)`` after the 64 bytes at ``s[i:]``: one step of
    the long-input loops of FarmHash's Hash64 and CityHash128."""
    x = (_rot((x + y + v0 + _f64(s, i + 8)) & _M, 37) * _K1) & _M
    y = (_rot((y + v1 + _f64(s, i + 48)) & _M, 42) * _K1) & _M
    x ^= w1
    y = (y + v0 + _f64(s, i + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * _K1) & _M
    v0, v1 = _weak32(s, i, (v1 * _K1) & _M, (x + w0) & _M)
    w0, w1 = _weak32(s, i + 32, (z + w1) & _M, (y + _f64(s, i + 16)) & _M)
    return z, y, x, v0, v1, w0, w1  # x and z change places


def _len0to16(s, n):
    """FarmHash's HashLen0to16 of the first ``n`` (<= 16) bytes of ``s``."""
    if n >= 8:
        mul = (_K2 + n * 2) & _M
        a = (_f64(s, 0) + _K2) & _M
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M
        d = ((_rot(a, 25) + b) * mul) & _M
        return _h16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _M
        a = _f32(s, 0)
        return _h16((n + (a << 3)) & _M, _f32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_smix(((y * _K2) ^ (z * _K0)) & _M) * _K2) & _M
    return _K2


def fingerprint64(s):
    """TF's Fingerprint64 of the bytes ``s``: FarmHash's farmhashna Hash64, as an unsigned
    64-bit int."""
    n = len(s)
    if n <= 16:
        return _len0to16(s, n)
    if n <= 32:
        mul = (_K2 + n * 2) & _M
        a = (_f64(s, 0) * _K1) & _M
        b = _f64(s, 8)
        c = (_f64(s, n - 8) * mul) & _M
        d = (_f64(s, n - 16) * _K2) & _M
        return _h16((_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M,
                    (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
    if n <= 64:
        mul = (_K2 + n * 2) & _M
        a = (_f64(s, 0) * _K2) & _M
        b = _f64(s, 8)
        c = (_f64(s, n - 8) * mul) & _M
        d = (_f64(s, n - 16) * _K2) & _M
        y = (_rot((a + b) & _M, 43) + _rot(c, 30) + d) & _M
        z = _h16(y, (a + _rot((b + _K2) & _M, 18) + c) & _M, mul)
        e = (_f64(s, 16) * mul) & _M
        f = _f64(s, 24)
        g = ((y + _f64(s, n - 32)) * mul) & _M
        h = ((z + _f64(s, n - 24)) * mul) & _M
        return _h16((_rot((e + f) & _M, 43) + _rot(g, 30) + h) & _M,
                    (e + _rot((f + a) & _M, 18) + g) & _M, mul)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M
    z = (_smix((y * _K2 + 113) & _M) * _K2) & _M
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _f64(s, 0)) & _M
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x, y, z, v0, v1, w0, w1 = _chunk64(s, i, x, y, z, v0, v1, w0, w1)
        i += 64
        if i == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _M
    i = last64
    w0 = (w0 + ((n - 1) & 63)) & _M
    v0 = (v0 + w0) & _M
    w0 = (w0 + v0) & _M
    x = (_rot((x + y + v0 + _f64(s, i + 8)) & _M, 37) * mul) & _M
    y = (_rot((y + v1 + _f64(s, i + 48)) & _M, 42) * mul) & _M
    x ^= (w1 * 9) & _M
    y = (y + v0 * 9 + _f64(s, i + 40)) & _M
    z = (_rot((z + w0) & _M, 33) * mul) & _M
    v0, v1 = _weak32(s, i, (v1 * mul) & _M, (x + w0) & _M)
    w0, w1 = _weak32(s, i + 32, (z + w1) & _M, (y + _f64(s, i + 16)) & _M)
    z, x = x, z
    return _h16((_h16(v0, w0, mul) + _smix(y) * _K0 + z) & _M,
                (_h16(v1, w1, mul) + x) & _M, mul)


# a feature's values recur from batch to batch: their fingerprints are kept (short ones)
_fingerprint_kept = functools.lru_cache(maxsize=1 << 16)(fingerprint64)
_KEPT_LEN = 128


def _kernel(input, *, num_buckets):
    flat = np.asarray(input).reshape(-1)
    out = np.empty(flat.shape, np.int64)
    for i, s in enumerate(flat.tolist()):
        if not isinstance(s, bytes):
            s = str(s).encode()
        fp = _fingerprint_kept(s) if len(s) <= _KEPT_LEN else fingerprint64(s)
        out[i] = fp % num_buckets
    return out.reshape(np.shape(input))


op_registry.declare(
    "StringToHashBucketFast",
    inputs=["input: string"],
    outputs=["output: int64"],
    attrs=["num_buckets: int >= 1"],
    shape=lambda op: [op.inputs[0].get_shape()],
    kernel=_kernel,
    differentiable=False,
)


def num_buckets_attr(op_type, num_buckets):
    """``num_buckets`` as the int attr TF's op wrappers make of it (``int(v)``: a Dimension
    such as ``weights.get_shape()[0]`` or a NumPy int is taken, a string is not)."""
    try:
        if isinstance(num_buckets, (str, bytes)):
            raise TypeError
        value = int(num_buckets)
    except (TypeError, ValueError):
        raise TypeError(f"Expected int for argument 'num_buckets' not {num_buckets!r}.") from None
    if value < 1:
        raise ValueError(f"Attr 'num_buckets' of '{op_type}' Op passed {value} less than "
                         "minimum 1.")
    return value


@add_dispatch_support(elementwise=1)
def string_to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's bucket: ``Fingerprint64(s) % num_buckets``, as int64."""
    num_buckets = num_buckets_attr("StringToHashBucketFast", num_buckets)
    # (converted by the op, in its scope: a ragged input fails there, after the scope took
    # the op's name, and dispatches, as in TF)
    return ops.apply_op("StringToHashBucketFast", [input], {"num_buckets": num_buckets},
                        name=name).outputs[0]


__all__ = ["fingerprint64", "string_to_hash_bucket_fast"]
