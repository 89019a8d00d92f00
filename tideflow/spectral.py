"""``tf.spectral``: the TF 1.x name of the FFT and DCT part of ``tf.signal``."""

from tideflow.ops.fft_ops import (
    fft,
    fft2d,
    fft3d,
    ifft,
    ifft2d,
    ifft3d,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)
from tideflow.ops.signal_ops import dct, idct

__all__ = ["dct", "fft", "fft2d", "fft3d", "idct", "ifft", "ifft2d", "ifft3d", "irfft", "irfft2d",
           "irfft3d", "rfft", "rfft2d", "rfft3d"]
