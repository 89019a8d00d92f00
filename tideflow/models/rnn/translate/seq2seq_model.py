"""``translate.seq2seq_model`` of the 0.x tutorial: ``Seq2SeqModel``, a multi-layer GRU (or
LSTM) encoder-decoder with attention over embedded token ids, built once per (encoder length,
decoder length) bucket with shared variables. Training clips each bucket's gradients to a global
norm and applies them with plain SGD at a decaying learning rate; with ``0 < num_samples <
target_vocab_size`` the decoder projects to the vocabulary through ``proj_w``/``proj_b`` and
trains with a sampled softmax loss."""

import copy
import random

import numpy as np

import tideflow as tf
from tideflow.models.rnn.translate import data_utils

__all__ = ["Seq2SeqModel"]


class Seq2SeqModel:
    """Sequence-to-sequence model with attention for several bucket sizes.

    Args: ``source_vocab_size``, ``target_vocab_size``; ``buckets``, a list of (encoder length,
    decoder length) pairs in increasing order; ``size`` units per layer; ``num_layers``;
    ``max_gradient_norm``; ``batch_size``; ``learning_rate`` and ``learning_rate_decay_factor``
    (``learning_rate_decay_op`` multiplies the rate by the factor); ``use_lstm`` (GRU cells
    otherwise); ``num_samples`` for the sampled softmax; ``forward_only`` builds no training ops
    and feeds the decoder its own previous output; ``dtype`` of the variables.
    """

    def __init__(self, source_vocab_size, target_vocab_size, buckets, size, num_layers,
                 max_gradient_norm, batch_size, learning_rate, learning_rate_decay_factor,
                 use_lstm=False, num_samples=512, forward_only=False, dtype=tf.float32):
        self.source_vocab_size = source_vocab_size
        self.target_vocab_size = target_vocab_size
        self.buckets = buckets
        self.batch_size = batch_size
        self.learning_rate = tf.Variable(float(learning_rate), trainable=False, dtype=dtype)
        self.learning_rate_decay_op = self.learning_rate.assign(
            self.learning_rate * learning_rate_decay_factor)
        self.global_step = tf.Variable(0, trainable=False)

        output_projection = None
        softmax_loss_function = None
        if 0 < num_samples < target_vocab_size:
            w_t = tf.get_variable("proj_w", [target_vocab_size, size], dtype=dtype)
            w = tf.transpose(w_t)
            b = tf.get_variable("proj_b", [target_vocab_size], dtype=dtype)
            output_projection = (w, b)

            def sampled_loss(labels=None, logits=None):
                # ``logits`` are the decoder outputs before the projection.
                labels = tf.reshape(labels, [-1, 1])
                loss = tf.nn.sampled_softmax_loss(
                    weights=tf.cast(w_t, tf.float32), biases=tf.cast(b, tf.float32),
                    labels=labels, inputs=tf.cast(logits, tf.float32),
                    num_sampled=num_samples, num_classes=target_vocab_size)
                return tf.cast(loss, dtype)

            softmax_loss_function = sampled_loss

        def make_cell():
            if use_lstm:
                return tf.nn.rnn_cell.BasicLSTMCell(size)
            return tf.nn.rnn_cell.GRUCell(size)

        if num_layers > 1:
            cell = tf.nn.rnn_cell.MultiRNNCell([make_cell() for _ in range(num_layers)])
        else:
            cell = make_cell()

        def seq2seq_f(encoder_inputs, decoder_inputs, do_decode):
            # A fresh copy per bucket: a cell that has built its variables cannot be copied
            # (the embedding_attention_seq2seq encoder copies the cell it is given).
            return tf.contrib.legacy_seq2seq.embedding_attention_seq2seq(
                encoder_inputs, decoder_inputs, copy.deepcopy(cell),
                num_encoder_symbols=source_vocab_size,
                num_decoder_symbols=target_vocab_size, embedding_size=size,
                output_projection=output_projection, feed_previous=do_decode, dtype=dtype)

        self.encoder_inputs = [tf.placeholder(tf.int32, shape=[None], name=f"encoder{i}")
                               for i in range(buckets[-1][0])]
        self.decoder_inputs = []
        self.target_weights = []
        for i in range(buckets[-1][1] + 1):
            self.decoder_inputs.append(tf.placeholder(tf.int32, shape=[None],
                                                      name=f"decoder{i}"))
            self.target_weights.append(tf.placeholder(dtype, shape=[None], name=f"weight{i}"))
        # The targets are the decoder inputs shifted by one.
        targets = self.decoder_inputs[1:]

        self.outputs, self.losses = tf.contrib.legacy_seq2seq.model_with_buckets(
            self.encoder_inputs, self.decoder_inputs, targets, self.target_weights, buckets,
            lambda x, y: seq2seq_f(x, y, forward_only),
            softmax_loss_function=softmax_loss_function)
        if forward_only and output_projection is not None:
            # Decoding needs the logits over the whole vocabulary.
            for bucket in range(len(buckets)):
                self.outputs[bucket] = [tf.matmul(o, output_projection[0]) + output_projection[1]
                                        for o in self.outputs[bucket]]

        params = tf.trainable_variables()
        if not forward_only:
            self.gradient_norms = []
            self.updates = []
            opt = tf.train.GradientDescentOptimizer(self.learning_rate)
            for bucket in range(len(buckets)):
                gradients = tf.gradients(self.losses[bucket], params)
                clipped, norm = tf.clip_by_global_norm(gradients, max_gradient_norm)
                self.gradient_norms.append(norm)
                self.updates.append(opt.apply_gradients(zip(clipped, params),
                                                        global_step=self.global_step))

        self.saver = tf.train.Saver(tf.global_variables())

    def step(self, session, encoder_inputs, decoder_inputs, target_weights, bucket_id,
             forward_only):
        """Runs one step on a batch in time-major lists (one array of ``batch_size`` ids per
        position, as ``get_batch`` makes them): (gradient norm, loss, None) when training,
        (None, loss, output logits per decoder position) when ``forward_only``."""
        encoder_size, decoder_size = self.buckets[bucket_id]
        if len(encoder_inputs) != encoder_size:
            raise ValueError("Encoder length must be equal to the one in bucket, "
                             f"{len(encoder_inputs)} != {encoder_size}.")
        if len(decoder_inputs) != decoder_size:
            raise ValueError("Decoder length must be equal to the one in bucket, "
                             f"{len(decoder_inputs)} != {decoder_size}.")
        if len(target_weights) != decoder_size:
            raise ValueError("Weights length must be equal to the one in bucket, "
                             f"{len(target_weights)} != {decoder_size}.")

        input_feed = {}
        for i in range(encoder_size):
            input_feed[self.encoder_inputs[i].name] = encoder_inputs[i]
        for i in range(decoder_size):
            input_feed[self.decoder_inputs[i].name] = decoder_inputs[i]
            input_feed[self.target_weights[i].name] = target_weights[i]
        # The last target is past the bucket: fed zeros (its weight is zero).
        input_feed[self.decoder_inputs[decoder_size].name] = np.zeros([self.batch_size],
                                                                      dtype=np.int32)

        if not forward_only:
            output_feed = [self.updates[bucket_id], self.gradient_norms[bucket_id],
                           self.losses[bucket_id]]
        else:
            output_feed = [self.losses[bucket_id]]
            output_feed.extend(self.outputs[bucket_id][i] for i in range(decoder_size))
        outputs = session.run(output_feed, input_feed)
        if not forward_only:
            return outputs[1], outputs[2], None
        return None, outputs[0], outputs[1:]

    def get_batch(self, data, bucket_id):
        """A random batch of ``batch_size`` (source ids, target ids) pairs of
        ``data[bucket_id]``, as time-major (encoder inputs, decoder inputs, target weights):
        sources padded then reversed, targets started with ``GO_ID`` and padded, weights zero
        where the next target is padding and at the last position."""
        encoder_size, decoder_size = self.buckets[bucket_id]
        encoder_rows, decoder_rows = [], []
        for _ in range(self.batch_size):
            source, target = random.choice(data[bucket_id])
            padded = list(source) + [data_utils.PAD_ID] * (encoder_size - len(source))
            encoder_rows.append(list(reversed(padded)))
            decoder_rows.append([data_utils.GO_ID] + list(target) +
                                [data_utils.PAD_ID] * (decoder_size - len(target) - 1))

        batch_encoder_inputs = [np.array([row[i] for row in encoder_rows], dtype=np.int32)
                                for i in range(encoder_size)]
        batch_decoder_inputs, batch_weights = [], []
        for i in range(decoder_size):
            batch_decoder_inputs.append(np.array([row[i] for row in decoder_rows],
                                                 dtype=np.int32))
            weight = np.ones(self.batch_size, dtype=np.float32)
            for j, row in enumerate(decoder_rows):
                if i == decoder_size - 1 or row[i + 1] == data_utils.PAD_ID:
                    weight[j] = 0.0
            batch_weights.append(weight)
        return batch_encoder_inputs, batch_decoder_inputs, batch_weights
