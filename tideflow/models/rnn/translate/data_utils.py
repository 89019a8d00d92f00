"""``translate.data_utils`` of the 0.x tutorial: the special symbols and their ids, the basic
tokenizer (splitting off punctuation), vocabulary files (one token a line, special symbols first,
then by falling count) and token-id conversion. Like the tutorial it works on bytes: text
arguments are encoded as UTF-8 first."""

import collections
import re

from tideflow import gfile

_PAD = b"_PAD"
_GO = b"_GO"
_EOS = b"_EOS"
_UNK = b"_UNK"
_START_VOCAB = [_PAD, _GO, _EOS, _UNK]

PAD_ID = 0
GO_ID = 1
EOS_ID = 2
UNK_ID = 3

_WORD_SPLIT = re.compile(b"([.,!?\"':;)(])")
_DIGIT_RE = re.compile(rb"\d")

__all__ = ["EOS_ID", "GO_ID", "PAD_ID", "UNK_ID", "basic_tokenizer", "create_vocabulary",
           "data_to_token_ids", "initialize_vocabulary", "sentence_to_token_ids"]


def _b(text):
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)


def basic_tokenizer(sentence):
    """The words of ``sentence``: split at whitespace, punctuation split off as tokens."""
    tokens = []
    for fragment in _b(sentence).strip().split():
        tokens.extend(piece for piece in _WORD_SPLIT.split(fragment) if piece)
    return tokens


def _normalize(word, normalize_digits):
    return _DIGIT_RE.sub(b"0", word) if normalize_digits else word


def create_vocabulary(vocabulary_path, data_path, max_vocabulary_size, tokenizer=None,
                      normalize_digits=True):
    """Writes the vocabulary of ``data_path`` to ``vocabulary_path`` (unless it exists): the
    special symbols, then the tokens by falling count, at most ``max_vocabulary_size`` lines."""
    if gfile.Exists(vocabulary_path):
        return
    counts = collections.Counter()
    with gfile.GFile(data_path, mode="rb") as f:
        for line in f:
            for w in (tokenizer or basic_tokenizer)(_b(line)):
                counts[_normalize(_b(w), normalize_digits)] += 1
    ordered = sorted(counts, key=lambda w: -counts[w])  # stable: ties keep first-seen order
    vocab_list = (_START_VOCAB + ordered)[:max_vocabulary_size]
    with gfile.GFile(vocabulary_path, mode="wb") as f:
        for w in vocab_list:
            f.write(w + b"\n")


def initialize_vocabulary(vocabulary_path):
    """(token -> id dict, list of tokens) of a vocabulary file."""
    if not gfile.Exists(vocabulary_path):
        raise ValueError(f"Vocabulary file {vocabulary_path} not found.")
    with gfile.GFile(vocabulary_path, mode="rb") as f:
        rev_vocab = [_b(line).strip() for line in f.readlines()]
    return {w: i for i, w in enumerate(rev_vocab)}, rev_vocab


def sentence_to_token_ids(sentence, vocabulary, tokenizer=None, normalize_digits=True):
    """The ids of the tokens of ``sentence`` (``UNK_ID`` for tokens not in ``vocabulary``)."""
    words = (tokenizer or basic_tokenizer)(sentence)
    return [vocabulary.get(_normalize(_b(w), normalize_digits), UNK_ID) for w in words]


def data_to_token_ids(data_path, target_path, vocabulary_path, tokenizer=None,
                      normalize_digits=True):
    """Writes ``data_path`` as lines of space-separated token ids to ``target_path`` (unless
    it exists)."""
    if gfile.Exists(target_path):
        return
    vocab, _ = initialize_vocabulary(vocabulary_path)
    with gfile.GFile(data_path, mode="rb") as src, gfile.GFile(target_path, mode="w") as dst:
        for line in src:
            ids = sentence_to_token_ids(_b(line), vocab, tokenizer, normalize_digits)
            dst.write(" ".join(str(i) for i in ids) + "\n")
