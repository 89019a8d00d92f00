"""SDCA helpers: ``SdcaFprint`` (TF's 128-bit FarmHash fingerprint of strings, as the SDCA
linear optimizer uses for its example ids) and ``sdca_shrink_l1`` (the L1 shrink step).

``fingerprint128`` is FarmHash's Fingerprint128 (farmhashcc: CityHash128), written in Python
over 64-bit words; its values are checked against TensorFlow's ``sdca_fprint``.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.string_hash_ops import (
    _K0,
    _K1,
    _M,
    _chunk64,
    _f64,
    _h16,
    _len0to16,
    _rot,
    _smix,
    _weak32,
)


def _murmur(s, off, n, lo, hi):
    a, b, c, d = lo, hi, 0, 0
    l = n - 16
    if l <= 0:
        a = (_smix((a * _K1) & _M) * _K1) & _M
        c = (b * _K1 + _len0to16(s[off : off + n], n)) & _M
        d = _smix((a + (_f64(s, off) if n >= 8 else c)) & _M)
    else:
        c = _h16((_f64(s, off + n - 8) + _K1) & _M, a)
        d = _h16((b + n) & _M, (c + _f64(s, off + n - 16)) & _M)
        a = (a + d) & _M
        i = off
        while True:
            a ^= (_smix((_f64(s, i) * _K1) & _M) * _K1) & _M
            a = (a * _K1) & _M
            b ^= a
            c ^= (_smix((_f64(s, i + 8) * _K1) & _M) * _K1) & _M
            c = (c * _K1) & _M
            d ^= c
            i += 16
            l -= 16
            if l <= 0:
                break
    a = _h16(a, c)
    b = _h16(d, b)
    return a ^ b, _h16(b, a)


def _city128_seed(s, off, n, lo, hi):
    if n < 128:
        return _murmur(s, off, n, lo, hi)
    x, y, z = lo, hi, (n * _K1) & _M
    v0 = (_rot(y ^ _K1, 49) * _K1 + _f64(s, off)) & _M
    v1 = (_rot(v0, 42) * _K1 + _f64(s, off + 8)) & _M
    w0 = (_rot((y + z) & _M, 35) * _K1 + x) & _M
    w1 = (_rot((x + _f64(s, off + 88)) & _M, 53) * _K1) & _M
    i = off
    while True:
        for _ in range(2):
            x, y, z, v0, v1, w0, w1 = _chunk64(s, i, x, y, z, v0, v1, w0, w1)
            i += 64
        n -= 128
        if n < 128:
            break
    x = (x + _rot((v0 + z) & _M, 49) * _K0) & _M
    y = (y * _K0 + _rot(w1, 37)) & _M
    z = (z * _K0 + _rot(w0, 27)) & _M
    w0 = (w0 * 9) & _M
    v0 = (v0 * _K0) & _M
    done = 0
    while done < n:
        done += 32
        y = (_rot((x + y) & _M, 42) * _K0 + v1) & _M
        w0 = (w0 + _f64(s, i + n - done + 16)) & _M
        x = (x * _K0 + w0) & _M
        z = (z + w1 + _f64(s, i + n - done)) & _M
        w1 = (w1 + v0) & _M
        v0, v1 = _weak32(s, i + n - done, (v0 + z) & _M, v1)
        v0 = (v0 * _K0) & _M
    x = _h16(x, v0)
    y = _h16((y + z) & _M, w0)
    return (_h16((x + v1) & _M, w1) + y) & _M, _h16((x + w1) & _M, (y + v1) & _M)


def fingerprint128(s):
    """FarmHash Fingerprint128 of the bytes ``s``: ``(low 64 bits, high 64 bits)``."""
    n = len(s)
    if n >= 16:
        return _city128_seed(s, 16, n - 16, _f64(s, 0), (_f64(s, 8) + _K0) & _M)
    return _city128_seed(s, 0, n, _K0, _K1)


def _fprint_kernel(input):
    x = np.asarray(input, dtype=object)
    if x.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"SdcaFprint: input must be a vector, got shape {list(x.shape)}"
        )
    out = np.empty((x.shape[0], 2), np.uint64)
    for i, v in enumerate(x.tolist()):
        out[i] = fingerprint128(v if isinstance(v, bytes) else str(v).encode())
    return out.view(np.int64)


def _fprint_shape(op):
    s = op.inputs[0].get_shape()
    if s.ndims not in (None, 1):
        raise ValueError(f"SdcaFprint: input must be a vector, got shape {s}")
    return [TensorShape([None if s.ndims is None else s[0].value, 2])]


op_registry.declare(
    "SdcaFprint",
    inputs=["input: string"],
    outputs=["output: int64"],
    shape=_fprint_shape,
    kernel=_fprint_kernel,
    differentiable=False,
)


def sdca_fprint(input, name=None):
    """The 128-bit fingerprints of a vector of strings, as int64 ``[N, 2]`` (low, high)."""
    input = ops.convert_to_tensor(input, dtype=dtypes.string, name="input")
    return ops.apply_op("SdcaFprint", [input], name=name).outputs[0]


def sdca_shrink_l1(weights, l1, l2, name=None):
    """Shrinks each weight variable in place: ``w = sign(w) max(|w| - l1 / l2, 0)``; returns
    the grouped update op."""
    from tideflow.ops import control_flow_ops, math_ops, state_ops, unary_ops

    if l2 == 0:
        raise ValueError("sdca_shrink_l1: l2 must be nonzero (the shrinkage is l1 / l2)")
    shrinkage = np.float32(l1) / np.float32(l2)
    with ops.name_scope(name, "SdcaShrinkL1", list(weights)):
        updates = []
        for w in weights:
            if w.dtype.base_dtype != dtypes.float32:
                raise TypeError(
                    f"sdca_shrink_l1: weights must be float32, got {w.dtype.name} for {w.name}"
                )
            value = w.value() if hasattr(w, "value") else w
            new = unary_ops.sign(value) * math_ops.maximum(
                unary_ops.abs(value) - shrinkage, np.float32(0.0)
            )
            updates.append(state_ops.assign(w, new))
        return control_flow_ops.group(*updates)


__all__ = ["fingerprint128", "sdca_fprint", "sdca_shrink_l1"]
