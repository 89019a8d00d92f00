"""``tf.keras.preprocessing``: ``sequence.pad_sequences`` and ``text.Tokenizer``."""

from tideflow.keras.preprocessing import sequence, text

__all__ = ["sequence", "text"]
