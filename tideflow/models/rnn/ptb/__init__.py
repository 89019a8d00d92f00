"""``tensorflow.models.rnn.ptb`` (0.x): the Penn Treebank reader of the language-model tutorial."""

from tideflow.models.rnn.ptb import reader

__all__ = ["reader"]
