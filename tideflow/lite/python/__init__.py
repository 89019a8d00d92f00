"""The TFLite converter and interpreter (``tensorflow.lite.python`` in TF)."""
