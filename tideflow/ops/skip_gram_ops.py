"""``tf.contrib.text``: skip-gram (token, label) pairs (SkipGramGenerateCandidates) with TF's
vocabulary filtering and frequency subsampling.

For each token in ``[start, end)`` the kernel draws a window size uniformly from
``[min_skips, max_skips]`` and pairs the token with every neighbour within that window that
lies in ``[start, end)`` (itself too with ``emit_self_as_target``). A seeded op draws its window
sizes by TF's kernel's procedure (its Philox stream, ``end - start + 1`` samples reserved per
run, TF's exact-uniform rejection); TF 2 no longer ships the op, so the numbers themselves were
not compared with TF's. An unseeded op draws from NumPy's generator."""

import csv

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops, random_seed
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import philox


class _PhiloxWords:
    """TF's SimplePhilox over a reserved range: 32-bit words in order from ``base``."""

    def __init__(self, stream, base):
        self._stream, self._base, self._words, self._next = stream, base, np.empty(0), 0

    def __call__(self):
        if self._next >= len(self._words):
            more = self._stream.blocks(self._base, len(self._words) // 4 + 16)
            self._words = more.astype(np.uint32).reshape(-1)
        w = int(self._words[self._next])
        self._next += 1
        return w


def _skip_gram_kernel(ctx):
    attrs = ctx.op._attrs
    seeded = attrs["seed"] != 0 or attrs["seed2"] != 0
    name = ctx.op.name

    def run(values, min_skips, max_skips, start, limit, emit_self):
        values = np.asarray(values).reshape(-1)
        min_skips, max_skips = int(min_skips), int(max_skips)
        start, limit, emit_self = int(start), int(limit), bool(emit_self)
        if min_skips < 0 or max_skips < 0:
            raise errors.InvalidArgumentError(
                None, None, f"{name}: Both min_skips and max_skips must be >= 0.")
        if min_skips > max_skips:
            raise errors.InvalidArgumentError(
                None, None, f"{name}: min_skips must be <= max_skips.")
        end = len(values) if limit < 0 else min(start + limit, len(values))
        count = max(end - start, 0)
        span = max_skips - min_skips + 1
        if seeded:
            stream = ctx.node_state("philox", lambda: philox.PhiloxStream(attrs["seed"],
                                                                          attrs["seed2"]))
            base = stream.counter  # ReserveSamples32(end - start + 1): blocks of four words
            blocks = (end - start + 1 + 3) // 4
            stream.counter = (stream.counter + max(blocks, 0)) & ((1 << 128) - 1)
            rand32 = _PhiloxWords(stream, base)
            skips = [min_skips + philox.exact_uniform_int(span, rand32) for _ in range(count)]
        else:
            gen = ctx.node_state("rng", lambda: np.random.Generator(np.random.Philox()))
            skips = (min_skips + gen.integers(0, span, size=count)).tolist()
        token_idx, label_idx = [], []
        for i, skip in zip(range(start, end), skips):
            lo, hi = max(i - skip, start), min(i + skip, end - 1)
            for j in range(lo, hi + 1):
                if j == i and not emit_self:
                    continue
                token_idx.append(i)
                label_idx.append(j)
        token_idx = np.asarray(token_idx, np.int64)
        label_idx = np.asarray(label_idx, np.int64)
        return values[token_idx], values[label_idx]

    return run


def _skip_gram_shape(op):
    shape = op._inputs[0]._shape
    if shape.ndims is not None and shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims} for "
                         f"'{op.name}' (op: 'SkipGramGenerateCandidates')")
    for t in op._inputs[1:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t._shape.ndims} for "
                             f"'{op.name}' (op: 'SkipGramGenerateCandidates'), input {t.name}")
    return [TensorShape([None]), TensorShape([None])]


op_registry.declare(
    "SkipGramGenerateCandidates",
    inputs=["input_tensor: T", "min_skips: int32", "max_skips: int32", "start: int32",
            "limit: int32", "emit_self_as_target: bool"],
    outputs=["tokens: T", "labels: T"],
    attrs=["T: type", "seed: int = 0", "seed2: int = 0"],
    shape=_skip_gram_shape,
    kernel_factory=_skip_gram_kernel,
    stateful=True,
    is_random=True,
    differentiable=False,
)


def _filter_input(input_tensor, vocab_freq_table, vocab_min_count, vocab_subsampling,
                  corpus_size, seed):
    from tideflow.ops import array_ops, cast_ops, lookup_ops, math_ops, random_ops

    if vocab_freq_table is None:
        return input_tensor
    if not isinstance(vocab_freq_table, lookup_ops.InitializableLookupTableBase):
        raise ValueError(  # noqa: TRY004 - TF's error class
            "vocab_freq_table must be a subclass of InitializableLookupTableBase (such as "
            f"HashTable) instead of type {type(vocab_freq_table)}.")
    with ops.name_scope("filter_vocab"):
        freq = vocab_freq_table.lookup(input_tensor)
        # tokens the table lacks come back as its default value
        mask = math_ops.not_equal(freq, vocab_freq_table.default_value)
        if vocab_min_count is not None:
            threshold = cast_ops.cast(vocab_min_count, freq.dtype)
            mask = math_ops.logical_and(mask, math_ops.greater_equal(freq, threshold))
        input_tensor = array_ops.boolean_mask(input_tensor, mask)
        freq = array_ops.boolean_mask(freq, mask)
    if not vocab_subsampling:
        return input_tensor
    if vocab_subsampling < 0 or vocab_subsampling > 1:
        raise ValueError(f"Invalid vocab_subsampling={vocab_subsampling} - it should be within "
                         "range [0, 1].")
    with ops.name_scope("subsample_vocab"):
        corpus = cast_ops.cast(corpus_size, dtypes.float64)
        freq = cast_ops.cast(freq, dtypes.float64)
        sub = cast_ops.cast(vocab_subsampling, dtypes.float64)
        # word2vec's keep probability (Eq. 5 of Mikolov et al., 2013, as word2vec_kernels)
        keep = (math_ops.sqrt(freq / (sub * corpus)) + 1.0) * (sub * corpus / freq)
        draw = random_ops.random_uniform(array_ops.shape(freq), minval=0, maxval=1,
                                         dtype=dtypes.float64, seed=seed)
        return array_ops.boolean_mask(input_tensor, math_ops.less_equal(draw, keep))


def skip_gram_sample(input_tensor, min_skips=1, max_skips=5, start=0, limit=-1,
                     emit_self_as_target=False, vocab_freq_table=None, vocab_min_count=None,
                     vocab_subsampling=None, corpus_size=None, batch_size=None,
                     batch_capacity=None, seed=None, name=None):
    """``(tokens, labels)``: skip-gram pairs from the rank-1 ``input_tensor`` (see the module's
    note), after dropping tokens missing from ``vocab_freq_table`` or below
    ``vocab_min_count`` and subsampling frequent ones; batched to ``batch_size`` through a
    queue when given."""
    if vocab_freq_table is None and (vocab_min_count is not None or
                                     vocab_subsampling is not None or corpus_size is not None):
        raise ValueError(
            f"vocab_freq_table is not provided, but vocab_min_count={vocab_min_count}, "
            f"vocab_subsampling={vocab_subsampling}, or corpus_size={corpus_size} is not None. "
            "These settings are useless without a vocab_freq_table.")
    if (vocab_subsampling is None) != (corpus_size is None):
        raise ValueError(
            f"vocab_subsampling is {vocab_subsampling} while corpus_size is {corpus_size} - "
            "both must be provided in order for subsampling to work.")
    with ops.name_scope(name, "skip_gram_sample"):
        input_tensor = ops.convert_to_tensor(input_tensor, name="input_tensor")
        input_tensor = _filter_input(input_tensor, vocab_freq_table, vocab_min_count,
                                     vocab_subsampling, corpus_size, seed)
        seed1, seed2 = random_seed.get_seed(seed)
        scalars = [ops.convert_to_tensor(v, dtype=dt) for v, dt in (
            (min_skips, dtypes.int32), (max_skips, dtypes.int32), (start, dtypes.int32),
            (limit, dtypes.int32), (emit_self_as_target, dtypes.bool))]
        op = ops.apply_op("SkipGramGenerateCandidates", [input_tensor, *scalars],
                          {"T": input_tensor.dtype, "seed": seed1 or 0, "seed2": seed2 or 0})
        tokens, labels = op._outputs
        if batch_size is not None and batch_size > 0:
            from tideflow.train import input as input_ops

            capacity = (batch_capacity if batch_capacity is not None and batch_capacity > 0
                        else 100 * batch_size)
            return input_ops.batch([tokens, labels], batch_size, capacity=capacity,
                                   enqueue_many=True)
        return tokens, labels


def skip_gram_sample_with_text_vocab(input_tensor, vocab_freq_file, vocab_token_index=0,
                                     vocab_token_dtype=dtypes.string, vocab_freq_index=1,
                                     vocab_freq_dtype=dtypes.float64, vocab_delimiter=",",
                                     vocab_min_count=0, vocab_subsampling=None,
                                     corpus_size=None, min_skips=1, max_skips=5, start=0,
                                     limit=-1, emit_self_as_target=False, batch_size=None,
                                     batch_capacity=None, seed=None, name=None):
    """:func:`skip_gram_sample` with the frequencies read from a delimited text file (token
    and count columns); ``corpus_size`` defaults to the sum of the counts."""
    from tideflow import gfile
    from tideflow.ops import lookup_ops

    if vocab_token_index < 0 or vocab_freq_index < 0:
        raise ValueError(f"vocab_token_index={vocab_token_index} and vocab_freq_index="
                         f"{vocab_freq_index} must both be >= 0.")
    if vocab_token_index == vocab_freq_index:
        raise ValueError("vocab_token_index and vocab_freq_index should be different, but are "
                         f"both {vocab_token_index}.")
    total, vocab_size = 0.0, 0
    with gfile.GFile(vocab_freq_file, mode="r") as f:
        for row in csv.reader(f, delimiter=vocab_delimiter):
            if vocab_token_index >= len(row) or vocab_freq_index >= len(row):
                raise ValueError(
                    f"Row in vocab file only has {len(row)} columns, so vocab_token_index="
                    f"{vocab_token_index} or vocab_freq_index={vocab_freq_index} is out of "
                    f"bounds. Row content: {row}")
            vocab_size += 1
            freq = vocab_freq_dtype.as_numpy_dtype(row[vocab_freq_index])
            if freq < 0:
                raise ValueError(f"Row in vocab file has negative frequency of {freq}. Row "
                                 f"content: {row}")
            total += freq  # tokens below vocab_min_count still count in the corpus
    if not corpus_size:
        corpus_size = total
    elif total - corpus_size > 1e-6:
        raise ValueError(f"`corpus_size`={corpus_size} must be greater than or equal to the sum "
                         f"of all the frequency counts ({total}) of `vocab_freq_file` "
                         f"({vocab_freq_file}).")
    table = lookup_ops.HashTable(
        lookup_ops.TextFileInitializer(
            filename=vocab_freq_file, key_dtype=vocab_token_dtype, key_index=vocab_token_index,
            value_dtype=vocab_freq_dtype, value_index=vocab_freq_index, vocab_size=vocab_size,
            delimiter=vocab_delimiter),
        default_value=-1)
    return skip_gram_sample(
        input_tensor, min_skips=min_skips, max_skips=max_skips, start=start, limit=limit,
        emit_self_as_target=emit_self_as_target, vocab_freq_table=table,
        vocab_min_count=vocab_min_count, vocab_subsampling=vocab_subsampling,
        corpus_size=None if vocab_subsampling is None else corpus_size, batch_size=batch_size,
        batch_capacity=batch_capacity, seed=seed, name=name)


__all__ = ["skip_gram_sample", "skip_gram_sample_with_text_vocab"]
