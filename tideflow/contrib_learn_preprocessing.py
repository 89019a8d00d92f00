"""``tf.contrib.learn.preprocessing``: the pure-Python text preprocessing of TF 1.x's
``contrib.learn`` (``VocabularyProcessor``, ``CategoricalVocabulary``, ``ByteProcessor``,
``CategoricalProcessor``, ``tokenizer``), as used by the TF 1.x text-classification tutorials:
``VocabularyProcessor(max_document_length).fit_transform(texts)`` maps each document to a
fixed-length vector of word ids (0 = unknown / padding), ``save``/``restore`` pickle it."""

import collections
import pickle
import re
import types

import numpy as np

from tideflow import gfile

# TF's tokenizer: runs of capitals (acronyms), capitalized words before a capital, then words
# made of word characters, apostrophes and hyphens
TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)


def tokenizer(iterator):
    """Yields the list of tokens of each string of ``iterator``."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """A growing mapping from categories to ids; id 0 is ``unknown_token``. Once frozen,
    unseen categories map to 0."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        """Stops (or, with ``False``, resumes) adding new categories."""
        self._freeze = freeze

    def get(self, category):
        """The id of ``category``, added when new (0 when frozen)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Counts ``count`` occurrences of ``category`` (adding it when new)."""
        if self.get(category) <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Renumbers the categories by decreasing count (ties alphabetically), keeping those
        seen more than ``min_frequency`` times (and fewer than ``max_frequency`` if > 0)."""
        ordered = sorted(sorted(self._freq.items(), key=lambda x: (isinstance(x[0], str), x[0])),
                         key=lambda x: x[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        idx = 1
        for category, count in ordered:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = idx
            idx += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(ordered[:idx - 1])

    def reverse(self, class_id):
        """The category of id ``class_id``."""
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to "
                             "support reverse() function.")
        return self._reverse_mapping[class_id]


class VocabularyProcessor:
    """Maps documents to vectors of ``max_document_length`` word ids (longer documents are
    cut, shorter ones padded with 0, unknown words are 0)."""

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None,
                 tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        """Builds the vocabulary from ``raw_documents`` (an iterable of strings) and freezes
        it."""
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        """``fit`` then ``transform`` (a generator of int64 id vectors)."""
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields one int64 vector of ``max_document_length`` word ids per document."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields each id vector of ``documents`` as its space-joined words."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        """Pickles the processor to ``filename``."""
        with gfile.GFile(filename, "wb") as f:
            f.write(pickle.dumps(self))

    @classmethod
    def restore(cls, filename):
        """The processor pickled in ``filename``."""
        with gfile.GFile(filename, "rb") as f:
            return pickle.loads(f.read())


class ByteProcessor:
    """Maps documents to vectors of their first ``max_document_length`` UTF-8 bytes
    (0-padded)."""

    def __init__(self, max_document_length):
        self.max_document_length = max_document_length

    def fit(self, x):
        return self

    def fit_transform(self, x):
        return self.transform(x)

    def reverse(self, x):
        for data in x:
            document = np.trim_zeros(np.asarray(data).astype(np.int8), trim="b").tobytes()
            try:
                yield document.decode("utf-8")
            except UnicodeDecodeError:
                yield ""

    def transform(self, x):
        for document in x:
            if isinstance(document, str):
                document = document.encode("utf-8")
            buff = np.frombuffer(memoryview(document)[:self.max_document_length], dtype=np.uint8)
            yield np.pad(buff, (0, self.max_document_length - len(buff)), "constant")


class CategoricalProcessor:
    """Maps each row of categorical values (one column per feature) to ids, a vocabulary per
    column."""

    def __init__(self, min_frequency=0, share=False, vocabularies=None):
        self.min_frequency = min_frequency
        self.share = share
        self.vocabularies_ = vocabularies

    def freeze(self, freeze=True):
        for vocab in self.vocabularies_:
            vocab.freeze(freeze)

    def fit(self, x, unused_y=None):
        for row in x:
            if self.vocabularies_ is None:
                # one vocabulary per column, or one shared by all
                if self.share:
                    vocab = CategoricalVocabulary()
                    self.vocabularies_ = [vocab for _ in row]
                else:
                    self.vocabularies_ = [CategoricalVocabulary() for _ in row]
            for idx, value in enumerate(row):
                if not _is_missing(value):
                    self.vocabularies_[idx].add(value)
        if self.min_frequency > 0:
            for vocab in self.vocabularies_:
                vocab.trim(self.min_frequency)
        self.freeze()
        return self

    def fit_transform(self, x, unused_y=None):
        x = list(x)
        self.fit(x)
        return self.transform(x)

    def transform(self, x):
        """Yields each row's ids (a missing value, NaN or -1, is 0: unknown)."""
        self.freeze()
        for row in x:
            yield np.array([0 if _is_missing(value) else self.vocabularies_[idx].get(value)
                            for idx, value in enumerate(row)], dtype=np.int64)


def _is_missing(value):
    if isinstance(value, float) and np.isnan(value):
        return True
    return isinstance(value, (int, float, np.number)) and value == -1


text = types.ModuleType(__name__ + ".text", "``tf.contrib.learn.preprocessing.text``.")
for _name in ("ByteProcessor", "VocabularyProcessor", "tokenizer", "TOKENIZER_RE"):
    setattr(text, _name, globals()[_name])
categorical_vocabulary = types.ModuleType(
    __name__ + ".categorical_vocabulary",
    "``tf.contrib.learn.preprocessing.categorical_vocabulary``.")
categorical_vocabulary.CategoricalVocabulary = CategoricalVocabulary
categorical = types.ModuleType(__name__ + ".categorical",
                               "``tf.contrib.learn.preprocessing.categorical``.")
categorical.CategoricalProcessor = CategoricalProcessor

__all__ = ["ByteProcessor", "CategoricalProcessor", "CategoricalVocabulary",
           "VocabularyProcessor", "categorical", "categorical_vocabulary", "text", "tokenizer"]
