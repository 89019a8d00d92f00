"""``tf.keras.preprocessing``: ``image.ImageDataGenerator``, ``sequence.pad_sequences`` and
``text.Tokenizer``."""

from tideflow.keras.preprocessing import image, sequence, text

__all__ = ["image", "sequence", "text"]
