"""``tensorflow.models.rnn.translate`` (0.x): the English-to-French translation tutorial's
modules, ``data_utils`` (tokenizing, vocabularies, sentence to token ids) and ``seq2seq_model``
(the bucketed attention sequence-to-sequence model). The corpus downloads of the tutorial are not
provided: programs bring their own sentence pairs."""

from tideflow.models.rnn.translate import data_utils, seq2seq_model

__all__ = ["data_utils", "seq2seq_model"]
