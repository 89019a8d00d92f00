"""``tf.keras.preprocessing.sequence``: padding lists of sequences to one length."""

import numpy as np


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


class TimeseriesGenerator:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("TimeseriesGenerator is not supported yet.")
