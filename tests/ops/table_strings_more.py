"""Op-table rows for the further string ops (case, strip, full match, StringSplitV2, n-grams,
segment join, hash buckets, Unicode), each against a plain-Python reference.

The hash-bucket references are known answers computed by TensorFlow itself (bucket numbers
of TF's legacy Hash64 and keyed SipHash-2-4, ``num_buckets = 2**62``)."""

import re

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tests.ops.table_strings import _map, _s


def _parts(sp):
    return [sp.indices, sp.values, sp.dense_shape]


_HASH_IN = _s("", "a", "hello", "hello world 123", "abcdefgh",
              "abcdefghijklmnopqrstuvwxyz0123456789")
# tf.strings.to_hash_bucket(_HASH_IN, 2**62) and to_hash_bucket_strong(..., key=[1, 2]) in TF
_TF_HASH = [105434511174508091, 2996632905371535868, 1331861223480393034, 35184424195801693,
            3429851175771700306, 794022125702020992]
_TF_STRONG = [443797209252341627, 546566331822570742, 2957200328589801622, 2277773502476534969,
              2649018002260510108, 1050565319752141689]
_MIXED = _s("  Ab C\t", "\nxYz ", "", "héllo É", shape=(2, 2))


def _split_v2_ref(source, sep=None, maxsplit=-1):
    rows = [s.split(sep, maxsplit) for s in source]
    idx = np.array([(r, c) for r, t in enumerate(rows) for c in range(len(t))],
                   dtype=np.int64).reshape(-1, 2)
    vals = _s(*[t for toks in rows for t in toks])
    return [idx, vals, np.array([len(rows), max(map(len, rows), default=0)], np.int64)]


def _ngrams_ref(data, width, sep=b" ", lpad=b"", rpad=b"", pad=0):
    rows = []
    for row in data.reshape(-1, data.shape[-1]):
        p = [lpad] * pad + list(row) + [rpad] * pad
        rows.append([sep.join(p[i:i + width]) for i in range(len(p) - width + 1)])
    return np.array(rows, dtype=object).reshape(data.shape[:-1] + (-1,))


def _segment_join_ref(x, ids, n, sep=b""):
    out = np.empty((int(n),) + x.shape[1:], dtype=object)
    for s in range(int(n)):
        rows = [x[i] for i in range(len(ids)) if ids[i] == s]
        out[s] = sep.join(rows) if rows else b"" if not x.shape[1:] else None
        if x.shape[1:]:
            out[s] = [sep.join(r[j] for r in rows) for j in range(x.shape[1])]
    return out


CASES = [
    Case("StringToHashBucket", lambda s: tf.strings.to_hash_bucket(s, 2 ** 62), [_HASH_IN],
         lambda s: np.array(_TF_HASH, np.int64), dtypes=(tf.string,), grad=False),
    Case("StringToHashBucketStrong",
         lambda s: tf.strings.to_hash_bucket_strong(s, 2 ** 62, key=[1, 2]), [_HASH_IN],
         lambda s: np.array(_TF_STRONG, np.int64), dtypes=(tf.string,), grad=False),
    Case("StringLower", lambda s: tf.strings.lower(s), [_MIXED],
         lambda s: _map(lambda v: bytes(c + 32 if 65 <= c <= 90 else c for c in v), s),
         dtypes=(tf.string,), grad=False),
    Case("StringUpper", lambda s: tf.strings.upper(s, encoding="utf-8"), [_MIXED],
         lambda s: _map(lambda v: v.decode().upper().encode(), s), dtypes=(tf.string,),
         grad=False),
    Case("StringStrip", lambda s: tf.strings.strip(s), [_MIXED],
         lambda s: _map(lambda v: v.decode().strip(" \t\n\r\v\f").encode(), s),
         dtypes=(tf.string,), grad=False),
    Case("RegexFullMatch",
         lambda s: tf.strings.regex_full_match(s, tf.constant(r"\s*[A-Za-z]+ .*")),
         [_MIXED], lambda s: _map(lambda v: re.fullmatch(rb"\s*[A-Za-z]+ .*", v) is not None,
                                  s, bool), dtypes=(tf.string,), grad=False),
    Case("StringSplitV2", lambda s: _parts(tf.strings.split(s)),
         [_s("a b  c", "", " d  ", "one")], _split_v2_ref, dtypes=(tf.string,), grad=False),
    Case("StringSplitV2", lambda s: _parts(tf.strings.split(s, sep="<>", maxsplit=1)),
         [_s("a<>b<><>c", "", "<>d")], lambda s: _split_v2_ref(s, b"<>", 1),
         dtypes=(tf.string,), grad=False, name="StringSplitV2_sep_maxsplit"),
    Case("StringNGrams", lambda d: tf.strings.ngrams(d, 2, separator="_"),
         [_s("a", "b", "c", "d", "e", "f", shape=(2, 3))],
         lambda d: _ngrams_ref(d, 2, b"_"), dtypes=(tf.string,), grad=False,
         unknown_shape=False),  # the rank decides the layout
    Case("StringNGrams", lambda d: tf.strings.ngrams(d, 3, pad_values=("<", ">")),
         [_s("a", "b", "c", "d", "e", "f", "g", "h", shape=(2, 2, 2))],
         lambda d: _ngrams_ref(d, 3, b" ", b"<", b">", 2), dtypes=(tf.string,), grad=False,
         name="StringNGrams_padded_rank3",
         unknown_shape=False),  # the rank decides the layout
    Case("UnsortedSegmentJoin",
         lambda x, i, n: tf.strings.unsorted_segment_join(x, i, n, separator=":"),
         [_s("a", "b", "c", "d"), np.array([1, 0, 1, 3]), np.array(5)],
         lambda x, i, n: _segment_join_ref(x, i, n, b":"), dtypes=(tf.int32, tf.int64),
         grad=False),
    Case("UnsortedSegmentJoin", lambda x, i, n: tf.strings.unsorted_segment_join(x, i, n),
         [_s("a", "b", "c", "d", "e", "f", shape=(3, 2)), np.array([1, 0, 1]), np.array(2)],
         lambda x, i, n: _segment_join_ref(x, i, n), dtypes=(tf.int32,), grad=False,
         name="UnsortedSegmentJoin_inner"),
    Case("UnicodeTranscode",
         lambda s: tf.strings.unicode_transcode(s, "UTF-8", "UTF-16-BE"), [_MIXED],
         lambda s: _map(lambda v: v.decode().encode("utf-16-be"), s), dtypes=(tf.string,),
         grad=False),
    Case("UnicodeDecode", lambda s: tf.strings.unicode_decode(s, "UTF-8"),
         [np.array("h€llo😀".encode(), dtype=object)],
         lambda s: np.array([ord(c) for c in s[()].decode()], np.int32), dtypes=(tf.string,),
         grad=False,
         unknown_shape=False),  # the rank decides the layout
    Case("UnicodeDecodeWithOffsets",
         lambda s: list(tf.strings.unicode_decode_with_offsets(s, "UTF-8")),
         [np.array("h€llo😀".encode(), dtype=object)],
         lambda s: [np.array([ord(c) for c in s[()].decode()], np.int32),
                    np.array([0, 1, 4, 5, 6, 7], np.int64)], dtypes=(tf.string,), grad=False,
         unknown_shape=False),  # the rank decides the layout
    # script codes TF (ICU) gives for these code points: Latin 25, Cyrillic 8, Han 17, Common 0,
    # Inherited 1, Unknown 103, Greek 14, Arabic 2, Hebrew 19, Devanagari 10, Hiragana 20,
    # Katakana 22, Hangul 18, Thai 38; -1 for values that are no code point
    Case("UnicodeScript", lambda c: tf.strings.unicode_script(c),
         [np.array([[-1, 0x110000, 0xD800, 65], [1040, 0x4E00, 48, 0x300],
                    [0x3B1, 0x627, 0x5D0, 0x905], [0x3042, 0x30A2, 0xAC00, 0xE01]], np.int32)],
         lambda c: np.array([[-1, -1, 103, 25], [8, 17, 0, 1], [14, 2, 19, 10],
                             [20, 22, 18, 38]], np.int32), dtypes=(tf.int32,), grad=False),
    Case("UnicodeEncode", lambda c: tf.strings.unicode_encode(c, "UTF-8"),
         [np.array([[104, 8364, 128512], [65, 66, 67]], np.int32)],
         lambda c: _s(*["".join(map(chr, r)).encode() for r in c.tolist()]),
         dtypes=(tf.int32,), grad=False,
         unknown_shape=False),  # the rank decides the layout
]
