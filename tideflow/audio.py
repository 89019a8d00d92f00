"""``tf.audio``: WAV encoding and decoding (16-bit PCM)."""

from tideflow.ops.audio_ops import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]
