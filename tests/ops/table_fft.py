"""Op-table rows for the FFT ops (FFT/IFFT 1-3D, RFFT/IRFFT 1-3D with ``fft_length``): values
against ``numpy.fft``, gradients through real/imaginary parts in float64."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import fft_ops as F

_rng = np.random.RandomState(11)
_TOL = {"rtol": 1e-4, "atol": 1e-4}


def _parts(z):
    return [np.real(z), np.imag(z)]


def _ri(z):
    return [tf.real(z), tf.imag(z)]


def _c(re, im):
    return tf.complex(re, im)


def _fft_row(k, inverse, shape):
    fn = F._fft_apply
    np_fn = np.fft.ifftn if inverse else np.fft.fftn
    axes = tuple(range(-k, 0))
    name = ("IFFT" if inverse else "FFT") + F._NAMES[k]
    return Case(name, lambda re, im: _ri(fn(k, inverse, _c(re, im))),
                [_rng.randn(*shape), _rng.randn(*shape)],
                lambda re, im: _parts(np_fn(re + 1j * im, axes=axes)), **_TOL)


def _rfft_row(k, shape, n):
    name = "RFFT" + F._NAMES[k]
    axes = tuple(range(-k, 0))
    return Case(name, lambda x, length: _ri(F._rfft_apply(k, x, length)),
                [_rng.randn(*shape), np.array(n, np.int32)],
                lambda x, length: _parts(np.fft.rfftn(x.astype(np.float64), s=list(length),
                                                      axes=axes)),
                fixed=(1,), name=f"{name}_{n}", **_TOL)


def _irfft_row(k, shape, n):
    name = "IRFFT" + F._NAMES[k]
    axes = tuple(range(-k, 0))
    return Case(name, lambda re, im, length: F._irfft_apply(k, _c(re, im), length),
                [_rng.randn(*shape), _rng.randn(*shape), np.array(n, np.int32)],
                lambda re, im, length: np.fft.irfftn(re + 1j * im, s=list(length), axes=axes),
                fixed=(2,), name=f"{name}_{n}", **_TOL)


CASES = [
    _fft_row(1, False, (2, 5)),
    _fft_row(1, True, (3, 4)),
    _fft_row(2, False, (2, 3, 4)),
    _fft_row(2, True, (3, 3)),
    _fft_row(3, False, (2, 2, 3)),
    _fft_row(3, True, (1, 2, 2, 3)),
    _rfft_row(1, (2, 6), [6]),
    _rfft_row(1, (2, 6), [4]),  # cropped
    _rfft_row(1, (3, 5), [9]),  # padded, odd length
    _rfft_row(2, (2, 3, 4), [3, 4]),
    _rfft_row(2, (3, 4), [2, 7]),
    _rfft_row(3, (2, 3, 2), [2, 4, 3]),
    _irfft_row(1, (2, 5), [8]),
    _irfft_row(1, (2, 5), [9]),
    _irfft_row(1, (2, 5), [4]),  # input cropped
    _irfft_row(1, (2, 3), [8]),  # input padded
    _irfft_row(2, (3, 3), [3, 4]),
    _irfft_row(2, (2, 2, 4), [3, 5]),
    _irfft_row(3, (2, 2, 3), [2, 3, 4]),
]
