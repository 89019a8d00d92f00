"""``tensorflow.python.ops.gen_audio_ops`` (TF 1.x's ``contrib.framework`` ``audio_ops``)."""

from tideflow.ops.audio_ops import (  # noqa: F401
    audio_spectrogram,
    decode_wav,
    encode_wav,
    mfcc,
)
