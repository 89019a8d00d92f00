"""``tf.keras.preprocessing.text``: ``text_to_word_sequence``, ``one_hot`` and ``Tokenizer``
(word indices by decreasing frequency, from 1)."""

import hashlib
import json
from collections import OrderedDict, defaultdict

import numpy as np

_FILTERS = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'


def text_to_word_sequence(text, filters=_FILTERS, lower=True, split=" "):
    if lower:
        text = text.lower()
    text = text.translate(str.maketrans({c: split for c in filters}))
    return [w for w in text.split(split) if w]


def hashing_trick(text, n, hash_function=None, filters=_FILTERS, lower=True, split=" "):
    if hash_function is None:
        hash_function = hash
    elif hash_function == "md5":
        def hash_function(w):
            return int(hashlib.md5(w.encode()).hexdigest(), 16)
    seq = text_to_word_sequence(text, filters=filters, lower=lower, split=split)
    return [(hash_function(w) % (n - 1) + 1) for w in seq]


def one_hot(text, n, filters=_FILTERS, lower=True, split=" "):
    return hashing_trick(text, n, hash_function=hash, filters=filters, lower=lower, split=split)


class Tokenizer:
    """Maps words to indices (1 = the most frequent); ``num_words`` keeps only the
    ``num_words - 1`` most frequent when converting; ``oov_token`` stands for unknown words."""

    def __init__(self, num_words=None, filters=_FILTERS, lower=True, split=" ",
                 char_level=False, oov_token=None, document_count=0, **kwargs):
        self.num_words = num_words
        self.filters, self.lower, self.split = filters, lower, split
        self.char_level = char_level
        self.oov_token = oov_token
        self.document_count = document_count
        # Keras' containers (programs print them): counts in first-seen order
        self.word_counts = OrderedDict()
        self.word_docs = defaultdict(int)
        self.word_index = {}
        self.index_word = {}
        self.index_docs = defaultdict(int)

    def _words(self, text):
        if self.char_level or isinstance(text, list):
            return [t.lower() for t in text] if self.lower and not isinstance(text, list) \
                else list(text)
        return text_to_word_sequence(text, self.filters, self.lower, self.split)

    def fit_on_texts(self, texts):
        for text in texts:
            self.document_count += 1
            seq = self._words(text)
            for w in seq:
                self.word_counts[w] = self.word_counts.get(w, 0) + 1
            for w in set(seq):
                self.word_docs[w] = self.word_docs.get(w, 0) + 1
        ordered = sorted(self.word_counts.items(), key=lambda kv: -kv[1])
        vocab = ([self.oov_token] if self.oov_token is not None else []) + [w for w, _ in
                                                                             ordered]
        self.word_index = {w: i + 1 for i, w in enumerate(vocab)}
        self.index_word = {i: w for w, i in self.word_index.items()}
        for w, c in self.word_docs.items():
            self.index_docs[self.word_index[w]] = c

    def texts_to_sequences(self, texts):
        return list(self.texts_to_sequences_generator(texts))

    def texts_to_sequences_generator(self, texts):
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for text in texts:
            out = []
            for w in self._words(text):
                i = self.word_index.get(w)
                if i is not None and (not self.num_words or i < self.num_words):
                    out.append(i)
                elif oov is not None:
                    out.append(oov)
            yield out

    def sequences_to_texts(self, sequences):
        return list(self.sequences_to_texts_generator(sequences))

    def sequences_to_texts_generator(self, sequences):
        """Each sequence of indices as text: indices at or past ``num_words`` (and unknown
        ones) become the OOV token when there is one, else are dropped."""
        oov = self.word_index.get(self.oov_token) if self.oov_token is not None else None
        for seq in sequences:
            words = []
            for i in seq:
                word = self.index_word.get(i)
                if word is not None and not (self.num_words and i >= self.num_words):
                    words.append(word)
                elif oov is not None:
                    words.append(self.index_word[oov])
            yield " ".join(words)

    def fit_on_sequences(self, sequences):
        """Counts, for ``sequences_to_matrix(mode='tfidf')``, the documents each index occurs
        in (``index_docs``) and the documents seen."""
        self.document_count += len(sequences)
        for seq in sequences:
            for i in set(seq):
                self.index_docs[i] += 1

    def get_config(self):
        """The settings, and the vocabulary tables as JSON strings (as Keras: integer keys
        become strings there)."""
        return {
            "num_words": self.num_words, "filters": self.filters, "lower": self.lower,
            "split": self.split, "char_level": self.char_level, "oov_token": self.oov_token,
            "document_count": self.document_count,
            "word_counts": json.dumps(self.word_counts),
            "word_docs": json.dumps(self.word_docs),
            "index_docs": json.dumps(self.index_docs),
            "index_word": json.dumps(self.index_word),
            "word_index": json.dumps(self.word_index),
        }

    def to_json(self, **kwargs):
        """``{'class_name': 'Tokenizer', 'config': get_config()}`` as a JSON string
        (``kwargs`` go to ``json.dumps``); ``tokenizer_from_json`` reads it back."""
        return json.dumps({"class_name": type(self).__name__, "config": self.get_config()},
                          **kwargs)

    def texts_to_matrix(self, texts, mode="binary"):
        return self.sequences_to_matrix(self.texts_to_sequences(texts), mode=mode)

    def sequences_to_matrix(self, sequences, mode="binary"):
        num_words = self.num_words or (len(self.word_index) + 1)
        x = np.zeros((len(sequences), num_words))
        for i, seq in enumerate(sequences):
            counts = {}
            for j in seq:
                if j < num_words:
                    counts[j] = counts.get(j, 0) + 1
            for j, c in counts.items():
                if mode == "count":
                    x[i, j] = c
                elif mode == "freq":
                    x[i, j] = c / len(seq)
                elif mode == "binary":
                    x[i, j] = 1
                elif mode == "tfidf":
                    tf_ = 1 + np.log(c)
                    idf = np.log(1 + self.document_count / (1 + self.index_docs.get(j, 0)))
                    x[i, j] = tf_ * idf
                else:
                    raise ValueError(f"Unknown vectorization mode: {mode}")
        return x


def tokenizer_from_json(json_string):
    """The ``Tokenizer`` that ``Tokenizer.to_json()`` wrote."""
    config = dict(json.loads(json_string).get("config"))
    word_counts = json.loads(config.pop("word_counts"))
    word_docs = json.loads(config.pop("word_docs"))
    index_docs = {int(k): v for k, v in json.loads(config.pop("index_docs")).items()}
    index_word = {int(k): v for k, v in json.loads(config.pop("index_word")).items()}
    word_index = json.loads(config.pop("word_index"))
    tokenizer = Tokenizer(**config)
    tokenizer.word_counts = word_counts
    tokenizer.word_docs = word_docs
    tokenizer.index_docs = index_docs
    tokenizer.word_index = word_index
    tokenizer.index_word = index_word
    return tokenizer
