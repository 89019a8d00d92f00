"""TF's counter-based random numbers: Philox4x32-10 and the distributions TF's CPU kernels
draw from it, vectorized in NumPy, so that a seeded program gets TF's numbers.

A stream is keyed by the op's ``seed`` (the 64-bit key) and starts its 128-bit counter at
``seed2 << 64``. Each run of a random op takes the stream's counter as its base and moves the
stream on by 256 counters per output element (TF's conservative reservation). Output group
``i`` (4 floats, 2 doubles, ...) is made from the Philox block at ``base + i``; the truncated
normal, which rejects samples, gives each group of 4 floats (2 doubles) its own 256 (128)
blocks and reads their 32-bit words in order, two per Box-Muller pair.

The transforms are TF's: a float in [0, 1) from the 23 low bits of a word (the mantissa of a
number in [1, 2), minus 1), a double from 52 bits of two words, Box-Muller with
``u1 >= 1e-7`` and ``v = 2 pi u2``, integers as ``lo + word % range``. Float logarithms, sines
and cosines are glibc's ``logf`` and ``sincosf`` (``glibc_float32``), as TF's kernels call them,
so float normals are TF's to the bit; doubles take NumPy's (a last-bit difference is possible).
"""

import itertools

import numpy as np

from tideflow.ops import glibc_float32

_M0 = np.uint64(0xD2511F53)
_M1 = np.uint64(0xCD9E8D57)
_W0 = 0x9E3779B9
_W1 = 0xBB67AE85
_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
GROUP_RESERVE = 256  # counters reserved per output element, and per truncated-normal group


_CHUNK = 32768  # rows per pass: the temporaries stay in cache


def philox4x32(counters, key):
    """The 10-round Philox4x32 of ``counters`` (uint32 array [n, 4], word 0 lowest) under
    ``key`` (two uint32 ints); returns uint32 [n, 4]."""
    counters = np.asarray(counters, dtype=np.uint32)
    return _philox_words(counters[:, 0], counters[:, 1], counters[:, 2], counters[:, 3], key)


def _philox_words(w0, w1, w2, w3, key):
    n = w0.shape[0]
    out = np.empty((n, 4), dtype=np.uint32)
    m = min(n, _CHUNK)
    c0, c1, c2, c3, p0, p1, t, u = (np.empty(m, dtype=np.uint64) for _ in range(8))
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        k = hi - lo
        a0, a1, a2, a3, q0, q1, ta, ua = (x[:k] for x in (c0, c1, c2, c3, p0, p1, t, u))
        a0[...] = w0[lo:hi]
        a1[...] = w1[lo:hi]
        a2[...] = w2[lo:hi]
        a3[...] = w3[lo:hi]
        k0, k1 = int(key[0]) & 0xFFFFFFFF, int(key[1]) & 0xFFFFFFFF
        for r in range(10):
            np.multiply(a0, _M0, out=q0)
            np.multiply(a2, _M1, out=q1)
            np.right_shift(q1, _SHIFT32, out=ta)
            np.bitwise_xor(ta, a1, out=ta)
            np.bitwise_xor(ta, np.uint64(k0), out=ta)
            np.bitwise_and(q1, _MASK32, out=a1)
            np.right_shift(q0, _SHIFT32, out=ua)
            np.bitwise_xor(ua, a3, out=ua)
            np.bitwise_xor(ua, np.uint64(k1), out=ua)
            np.bitwise_and(q0, _MASK32, out=a3)
            a0, ta = ta, a0
            a2, ua = ua, a2
            if r < 9:
                k0 = (k0 + _W0) & 0xFFFFFFFF
                k1 = (k1 + _W1) & 0xFFFFFFFF
        out[lo:hi, 0] = a0
        out[lo:hi, 1] = a1
        out[lo:hi, 2] = a2
        out[lo:hi, 3] = a3
    return out


def _counter_words(base, offsets):
    """The four 32-bit words (low first, as uint64 arrays) of ``base + offsets``."""
    offsets = np.asarray(offsets, dtype=np.uint64)
    lo = np.uint64(base & 0xFFFFFFFFFFFFFFFF)
    low = offsets + lo  # wraps modulo 2**64
    high = np.uint64((base >> 64) & 0xFFFFFFFFFFFFFFFF) + (low < offsets).astype(np.uint64)
    return low & _MASK32, low >> _SHIFT32, high & _MASK32, high >> _SHIFT32


def _counters(base, offsets):
    """uint32 [n, 4]: the 128-bit ``base`` (an int) plus each of ``offsets`` (uint64)."""
    return np.stack(_counter_words(base, offsets), axis=1).astype(np.uint32)


class PhiloxStream:
    """One random op's generator in one session: its key and its moving 128-bit counter."""

    def __init__(self, seed, seed2):
        seed &= 0xFFFFFFFFFFFFFFFF
        seed2 &= 0xFFFFFFFFFFFFFFFF
        self.key = (seed & 0xFFFFFFFF, seed >> 32)
        self.counter = seed2 << 64

    def reserve(self, outputs):
        """The base counter for a run making ``outputs`` elements; moves the stream on."""
        base = self.counter
        self.counter = (self.counter + outputs * GROUP_RESERVE) & ((1 << 128) - 1)
        return base

    def blocks(self, base, count, start=0, step=1):
        """uint32 [count, 4]: the Philox blocks at ``base + start + step * i``."""
        offsets = np.arange(count, dtype=np.uint64)
        if step != 1:
            offsets *= np.uint64(step)
        if start:
            offsets += np.uint64(start)
        return _philox_words(*_counter_words(base, offsets), self.key)


def _float01(words):
    """[0, 1) floats from uint32 words: 23 mantissa bits under the exponent of 1.0."""
    bits = (words & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)
    return bits.view(np.float32) - np.float32(1.0)


def _double01(hi_words, lo_words):
    man = ((hi_words.astype(np.uint64) & np.uint64(0xFFFFF)) << _SHIFT32) | lo_words.astype(
        np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _half01(words):
    bits = ((words & np.uint32(0x3FF)) | np.uint32(15 << 10)).astype(np.uint16)
    return bits.view(np.float16) - np.float16(1.0)


def _box_muller_float(x0, x1):
    # TF's float arithmetic step by step: the C library's logf and sincosf (glibc's, which
    # are not correctly rounded), sqrt (exact in float32), 2 * M_PI * u in double rounded to
    # float32
    u1 = np.maximum(_float01(x0), np.float32(1.0e-7))
    u2 = np.sqrt(np.float32(-2.0) * glibc_float32.logf(u1))
    v1 = (2.0 * np.pi * _float01(x1).astype(np.float64)).astype(np.float32)
    sin, cos = glibc_float32.sincosf(v1)
    return sin * u2, cos * u2


def _box_muller_double(x0, x1, x2, x3):
    u1 = np.maximum(_double01(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * _double01(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


_GROUPS_PER_PASS = 1 << 16  # output groups made per pass: temporaries of a few MB


def _fill(stream, shape, dt, per_group, make):
    """An array of ``shape`` filled pass by pass: ``make(base, first_group, count)`` gives
    the values [count, per_group] of those output groups."""
    n = int(np.prod(shape, dtype=np.int64))
    base = stream.reserve(n)
    groups = (n + per_group - 1) // per_group
    out = np.empty(groups * per_group, dtype=dt)
    for first in range(0, groups, _GROUPS_PER_PASS):
        count = min(_GROUPS_PER_PASS, groups - first)
        out[first * per_group:(first + count) * per_group] = make(base, first, count).reshape(-1)
    return out[:n].reshape(shape)


def uniform(stream, shape, np_dtype):
    """RandomUniform: [0, 1) of ``np_dtype`` (half, bfloat16, float32 or float64)."""
    dt = np.dtype(np_dtype)

    def make(base, first, count):
        b = stream.blocks(base, count, start=first)
        if dt == np.float64:
            return np.stack([_double01(b[:, 0], b[:, 1]), _double01(b[:, 2], b[:, 3])], axis=1)
        if dt == np.float16:
            return _half01(b)
        if dt == np.float32:
            return _float01(b)
        # bfloat16: 7 mantissa bits, as TF's Uint16ToGfloat16
        bits = ((b & np.uint32(0x7F)) | np.uint32(127 << 7)).astype(np.uint32)
        return (bits << np.uint32(16)).view(np.float32) - np.float32(1.0)

    return _fill(stream, shape, dt, 2 if dt == np.float64 else 4, make)


def normal(stream, shape, np_dtype):
    """RandomStandardNormal: Box-Muller pairs from each block's words (0, 1) and (2, 3)."""
    dt = np.dtype(np_dtype)

    def make(base, first, count):
        b = stream.blocks(base, count, start=first)
        if dt == np.float64:
            return np.stack(_box_muller_double(b[:, 0], b[:, 1], b[:, 2], b[:, 3]), axis=1)
        a0, a1 = _box_muller_float(b[:, 0], b[:, 1])
        c0, c1 = _box_muller_float(b[:, 2], b[:, 3])
        return np.stack([a0, a1, c0, c1], axis=1)

    return _fill(stream, shape, dt, 2 if dt == np.float64 else 4, make)


def truncated_normal(stream, shape, np_dtype):
    """TruncatedNormal: per group of 4 outputs (2 doubles), Box-Muller pairs over the
    group's words in order, each value kept when ``|x| < 2``, until the group is full."""
    dt = np.dtype(np_dtype)
    per_group = 2 if dt == np.float64 else 4
    step = per_group * GROUP_RESERVE // 4  # blocks reserved per group of outputs

    def make(base, first, count):
        out = np.empty((count, per_group), dtype=np.float64)
        todo = np.arange(count)
        taken = np.zeros(count, dtype=np.int64)
        blocks_read = 0
        while todo.size:
            # the next block of every unfinished group: its words in order
            offsets = np.uint64(blocks_read) + np.uint64(step) * (todo + first).astype(np.uint64)
            b = _philox_words(*_counter_words(base, offsets), stream.key)
            if dt == np.float64:
                cands = np.stack(_box_muller_double(b[:, 0], b[:, 1], b[:, 2], b[:, 3]), axis=1)
            else:
                cands = np.concatenate([np.stack(_box_muller_float(b[:, 0], b[:, 1]), axis=1),
                                        np.stack(_box_muller_float(b[:, 2], b[:, 3]), axis=1)],
                                       axis=1).astype(np.float64)
            ok = np.abs(cands) < 2.0
            for j in range(cands.shape[1]):
                sel = ok[:, j] & (taken[todo] < per_group)
                rows = todo[sel]
                out[rows, taken[rows]] = cands[sel, j]
                taken[rows] += 1
            todo = todo[taken[todo] < per_group]
            blocks_read += 1
        return out

    return _fill(stream, shape, dt, per_group, make)


def uniform_int(stream, shape, lo, hi, np_dtype):
    """RandomUniformInt: ``lo + word % (hi - lo)``; int64 from two words (low first)."""
    dt = np.dtype(np_dtype)
    span = int(hi) - int(lo)

    def make(base, first, count):
        b = stream.blocks(base, count, start=first)
        if dt == np.int64:
            b = b.astype(np.uint64)
            bits = np.stack([b[:, 0] | (b[:, 1] << _SHIFT32), b[:, 2] | (b[:, 3] << _SHIFT32)],
                            axis=1)
            return (bits % np.uint64(span)).astype(np.int64) + np.int64(lo)
        return (b % np.uint32(span)).astype(np.int64) + int(lo)

    return _fill(stream, shape, dt, 2 if dt == np.int64 else 4, make)


class PhiloxWords:
    """TF's SingleSampleAdapter<PhiloxRandom>(seed, seed2): its 32-bit words in order."""

    _BLOCKS = 256  # Philox blocks (4 words each) made per NumPy pass

    def __init__(self, seed, seed2):
        self._stream = PhiloxStream(seed, seed2)
        self._words, self._pos = [], 0

    def _block(self):
        base = self._stream.counter
        self._stream.counter = (base + self._BLOCKS) & ((1 << 128) - 1)
        return self._stream.blocks(base, self._BLOCKS).reshape(-1).tolist()

    def __call__(self):
        if self._pos == len(self._words):
            self._words = self._block()
            self._pos = 0
        w = self._words[self._pos]
        self._pos += 1
        return w

    def take_words(self):
        """The words from here on as an iterator (its ``__next__`` a C call); this object's
        own calls must not be mixed with it."""
        rest = self._words[self._pos:]
        self._words, self._pos = [], 0
        return itertools.chain(rest, itertools.chain.from_iterable(iter(self._block, None)))

    def rand_float(self):
        """SimplePhilox::RandFloat: a float32 in [0, 1) from one word."""
        return _float01(np.asarray([self()], np.uint32))[0]

    def uniform64(self, n):
        """SimplePhilox::Uniform64: ExactUniformInt over Rand64 (two words, low first)."""
        return exact_uniform_int(n, lambda: self() | (self() << 32), 64)


def exact_uniform_int(n, draw, bits=32):
    """TF's ExactUniformInt: a uniform integer in [0, n) from ``draw()``'s ``bits``-bit words,
    redrawing those below ``2**bits mod n`` (none when n is a power of two)."""
    rem = ((1 << bits) - 1) % n + 1
    if rem == n:
        return draw() & (n - 1)
    while True:
        v = draw()
        if v >= rem:
            return v % n
