"""``tf.keras.preprocessing.sequence``: padding lists of sequences to one length, and the
word2vec helpers ``make_sampling_table`` and ``skipgrams``, and
``TimeseriesGenerator`` (windows over a time series as a Sequence)."""

import json
import random

import numpy as np

from tideflow.keras.data_utils import Sequence


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """A [num_sequences, maxlen] array: each sequence cut to ``maxlen`` (from the start with
    ``truncating='pre'``, else the end) and filled with ``value`` before it
    (``padding='pre'``) or after it (``'post'``)."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    lengths, sample_shape = [], ()
    for s in sequences:
        if not hasattr(s, "__len__"):
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: {s}")
        lengths.append(len(s))
        if len(s) and not sample_shape:
            sample_shape = np.asarray(s).shape[1:]
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s):
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        trunc = np.asarray(trunc, dtype=dtype)
        if padding == "post":
            out[i, :len(trunc)] = trunc
        else:
            out[i, maxlen - len(trunc):] = trunc
    return out


def make_sampling_table(size, sampling_factor=1e-5):
    """``p[i]``: the probability of keeping the ``i``-th most frequent word when subsampling
    frequent words (word2vec), for words of Zipf-distributed frequencies."""
    gamma = 0.577
    rank = np.arange(size)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1.0, shuffle=True,
              categorical=False, sampling_table=None, seed=None):
    """``(couples, labels)``: each (word, context word) pair within ``window_size`` is
    labelled 1 (word index 0 is skipped), then ``negative_samples`` times as many pairs
    (word, random word in [1, vocabulary_size)) labelled 0; shuffled together with Python's
    ``random`` (seeded by ``seed``) as Keras does."""
    couples, labels = [], []
    positive = [0, 1] if categorical else 1
    negative = [1, 0] if categorical else 0
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < random.random():
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append(positive)
    if negative_samples > 0:
        n = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        random.shuffle(words)
        couples += [[words[i % len(words)], random.randint(1, vocabulary_size - 1)]
                    for i in range(n)]
        labels += [negative] * n
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10e6)
        random.seed(seed)
        random.shuffle(couples)
        random.seed(seed)
        random.shuffle(labels)
    return couples, labels


class TimeseriesGenerator(Sequence):
    """Batches of windows over a time series: the window ending before step ``t`` (``length``
    steps, every ``sampling_rate``-th) with ``targets[t]``, for ``t`` from ``start_index +
    length`` to ``end_index`` every ``stride`` steps (in random order with ``shuffle``;
    each window reversed with ``reverse``)."""

    def __init__(self, data, targets, length, sampling_rate=1, stride=1, start_index=0,
                 end_index=None, shuffle=False, reverse=False, batch_size=128):
        if len(data) != len(targets):
            raise ValueError("Data and targets have to be of same length. Data length is "
                             f"{len(data)} while target length is {len(targets)}")
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > end_index="
                             f"{self.end_index}` is disallowed, as no part of the sequence "
                             "would be left to be used as current step.")

    def __len__(self):
        step = self.batch_size * self.stride
        return (self.end_index - self.start_index + step) // step

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1,
                                     size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(first, min(first + self.batch_size * self.stride,
                                        self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate]
                            for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self):
        """The generator's arguments, its data and targets as JSON strings."""
        def as_json(values, what):
            if type(values).__module__ == np.__name__:
                values = values.tolist()
            try:
                return json.dumps(values)
            except TypeError:
                raise TypeError(f"{what} not JSON Serializable:", values) from None

        return {"data": as_json(self.data, "Data"),
                "targets": as_json(self.targets, "Targets"), "length": self.length,
                "sampling_rate": self.sampling_rate, "stride": self.stride,
                "start_index": self.start_index, "end_index": self.end_index,
                "shuffle": self.shuffle, "reverse": self.reverse,
                "batch_size": self.batch_size}

    def to_json(self, **kwargs):
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)
