"""``tensorflow.models.rnn`` of the 0.x releases: the recurrent-network modules that programs of
that era imported (``from tensorflow.models.rnn import rnn_cell, rnn, seq2seq``). Each is a
view of today's ``tf.nn`` / ``tf.contrib.legacy_seq2seq`` functions under the old module names.
The tutorials' packages are subpackages: ``ptb`` (language model reader) and ``translate``
(``data_utils``, ``seq2seq_model``), imported on demand."""

from tideflow.models.rnn import linear, rnn, rnn_cell, seq2seq

__all__ = ["linear", "rnn", "rnn_cell", "seq2seq"]
