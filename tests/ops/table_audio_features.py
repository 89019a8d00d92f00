"""Op-table rows for the speech-commands front end: AudioSpectrogram (re-derived in NumPy:
periodic Hann windows, an FFT of the next power of two, squared or plain magnitudes) and Mfcc
(values observed from TF 2.21's kernel on the same spectrogram; see the comment)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import audio_ops

_AUDIO = (np.sin(np.arange(64) * 0.37) * 0.5
          + np.cos(np.arange(64) * 1.3) * 0.25).astype(np.float32).reshape(64, 1)


def _spectrogram_ref(squared, window=32, stride=16):
    def ref(x):
        n = 1 << (window - 1).bit_length()
        hann = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(window) / window)
        frames = [x[s:s + window, 0] * hann
                  for s in range(0, x.shape[0] - window + 1, stride)]
        mag = np.abs(np.fft.rfft(np.asarray(frames, np.float64), n=n))
        return (mag ** 2 if squared else mag).astype(np.float32)[None]

    return ref


# Mfcc(AudioSpectrogram(_AUDIO, 32, 16, squared), sample_rate=8000, upper 3000, lower 100,
# 6 filterbank channels, 4 coefficients) printed by TF 2.21 (tf.raw_ops.Mfcc), 2026-11-30
_MFCC_TF = np.array([[[1.5179007, 1.0266527, 0.15776262, 0.31400314],
                      [1.5659308, 1.0275776, 0.10309874, 0.32508507],
                      [1.5165143, 1.0230061, 0.14789261, 0.3138808]]], np.float32)

CASES = [
    Case("AudioSpectrogram",
         lambda x: audio_ops.audio_spectrogram(x, window_size=32, stride=16,
                                               magnitude_squared=True),
         [_AUDIO], _spectrogram_ref(True), dtypes=(tf.float32,), grad=False, rtol=1e-4,
         atol=1e-6),
    Case("AudioSpectrogram",
         lambda x: audio_ops.audio_spectrogram(x, window_size=32, stride=16),
         [_AUDIO], _spectrogram_ref(False), dtypes=(tf.float32,), grad=False, rtol=1e-4,
         atol=1e-6, name="AudioSpectrogram_magnitude"),
    Case(("AudioSpectrogram", "Mfcc"),
         lambda x: audio_ops.mfcc(
             audio_ops.audio_spectrogram(x, window_size=32, stride=16, magnitude_squared=True),
             8000, upper_frequency_limit=3000.0, lower_frequency_limit=100.0,
             filterbank_channel_count=6, dct_coefficient_count=4),
         [_AUDIO], lambda _: _MFCC_TF, dtypes=(tf.float32,), grad=False, rtol=1e-5, atol=1e-6),
]
