"""The Penn Treebank reader of the 0.x language-model tutorial (``ptb.reader``): words of the
``ptb.{train,valid,test}.txt`` files (line ends read as ``<eos>``) to integer ids, the vocabulary
ordered by falling count then by word, and batching into ``[batch_size, num_steps]`` windows
whose targets are the inputs shifted by one word: as NumPy pairs (``ptb_iterator``, 0.x) or as
tensors from a queue (``ptb_producer``, the 1.x tutorial)."""

import collections
import os

import numpy as np

from tideflow import gfile

__all__ = ["ptb_iterator", "ptb_producer", "ptb_raw_data"]


def _read_words(filename):
    with gfile.GFile(filename, "r") as f:
        text = f.read()
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return text.replace("\n", "<eos>").split()


def _build_vocab(filename):
    counts = collections.Counter(_read_words(filename))
    ordered = sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))
    return {word: i for i, (word, _) in enumerate(ordered)}


def _file_to_word_ids(filename, word_to_id):
    return [word_to_id[w] for w in _read_words(filename) if w in word_to_id]


def ptb_raw_data(data_path=None):
    """``(train_ids, valid_ids, test_ids, vocabulary_size)`` from the three PTB text files in
    ``data_path``; the vocabulary is the training file's (unknown words elsewhere are left out,
    as the 1.x tutorial's reader does)."""
    paths = [os.path.join(data_path or "", f"ptb.{part}.txt") for part in ("train", "valid", "test")]
    word_to_id = _build_vocab(paths[0])
    train, valid, test = (_file_to_word_ids(p, word_to_id) for p in paths)
    return train, valid, test, len(word_to_id)


def _batched(raw_data, batch_size, num_steps):
    data = np.asarray(raw_data, dtype=np.int32).reshape(-1)
    batch_len = data.size // batch_size
    epoch_size = (batch_len - 1) // num_steps
    if epoch_size <= 0:
        raise ValueError("epoch_size == 0, decrease batch_size or num_steps")
    return data[:batch_size * batch_len].reshape(batch_size, batch_len), epoch_size


def ptb_iterator(raw_data, batch_size, num_steps):
    """Yields ``(x, y)`` int32 pairs of shape ``[batch_size, num_steps]``: the data is cut into
    ``batch_size`` rows read left to right, ``y`` being ``x`` one word later. Raises ValueError
    when not even one window fits."""
    data, epoch_size = _batched(raw_data, batch_size, num_steps)
    for i in range(epoch_size):
        start = i * num_steps
        yield data[:, start:start + num_steps], data[:, start + 1:start + num_steps + 1]


def ptb_producer(raw_data, batch_size, num_steps, name=None):
    """``(x, y)`` int32 tensors of shape ``[batch_size, num_steps]`` that step through the
    epoch's windows in order, one per run, from a ``range_input_producer`` queue (start the
    queue runners). Raises InvalidArgumentError at run time when no window fits."""
    import tideflow as tf

    with tf.name_scope(name, "PTBProducer", [raw_data, batch_size, num_steps]):
        raw = tf.convert_to_tensor(raw_data, name="raw_data", dtype=tf.int32)
        data_len = tf.size(raw)
        batch_len = data_len // batch_size
        data = tf.reshape(raw[0:batch_size * batch_len], [batch_size, batch_len])
        epoch_size = (batch_len - 1) // num_steps
        check = tf.assert_positive(
            epoch_size, message="epoch_size == 0, decrease batch_size or num_steps")
        with tf.control_dependencies([check]):
            epoch_size = tf.identity(epoch_size, name="epoch_size")
        i = tf.train.range_input_producer(epoch_size, shuffle=False).dequeue()
        x = tf.strided_slice(data, [0, i * num_steps], [batch_size, (i + 1) * num_steps])
        x.set_shape([batch_size, num_steps])
        y = tf.strided_slice(data, [0, i * num_steps + 1], [batch_size, (i + 1) * num_steps + 1])
        y.set_shape([batch_size, num_steps])
        return x, y
