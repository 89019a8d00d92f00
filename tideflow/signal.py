"""``tf.signal``: FFTs, framing, windows, STFT, mel filterbanks, MFCCs and the DCT."""

from tideflow.ops.fft_ops import (
    fft,
    fft2d,
    fft3d,
    fftshift,
    ifft,
    ifft2d,
    ifft3d,
    ifftshift,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)
from tideflow.ops.signal_ops import (
    dct,
    frame,
    hamming_window,
    hann_window,
    idct,
    inverse_stft,
    inverse_stft_window_fn,
    linear_to_mel_weight_matrix,
    mfccs_from_log_mel_spectrograms,
    overlap_and_add,
    stft,
)

__all__ = ["dct", "fft", "fft2d", "fft3d", "fftshift", "frame", "hamming_window", "hann_window",
           "idct", "ifft", "ifft2d", "ifft3d", "ifftshift", "inverse_stft",
           "inverse_stft_window_fn", "irfft", "irfft2d", "irfft3d",
           "linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "overlap_and_add",
           "rfft", "rfft2d", "rfft3d", "stft"]
