"""``tensorflow.models.rnn.seq2seq`` (0.x): the sequence-to-sequence models over lists of time
steps and their losses (today's ``tf.contrib.legacy_seq2seq``)."""

from tideflow.ops.legacy_seq2seq import (
    attention_decoder,
    basic_rnn_seq2seq,
    embedding_attention_decoder,
    embedding_attention_seq2seq,
    embedding_rnn_decoder,
    embedding_rnn_seq2seq,
    model_with_buckets,
    rnn_decoder,
    tied_rnn_seq2seq,
)
from tideflow.ops.seq2seq_loss import legacy_sequence_loss as sequence_loss
from tideflow.ops.seq2seq_loss import sequence_loss_by_example

__all__ = ["attention_decoder", "basic_rnn_seq2seq", "embedding_attention_decoder",
           "embedding_attention_seq2seq", "embedding_rnn_decoder", "embedding_rnn_seq2seq",
           "model_with_buckets", "rnn_decoder", "sequence_loss", "sequence_loss_by_example",
           "tied_rnn_seq2seq"]
