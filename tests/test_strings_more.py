"""tf.strings: the wrappers' errors and options, the hashes' known answers, and (where a real
TensorFlow is installed) a comparison with it."""

import os
import subprocess

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops.string_more_ops import hash64, siphash24


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_siphash_reference_vector():
    # the SipHash paper's test vector: key 00..0f, message 00..0e
    k0 = int.from_bytes(bytes(range(8)), "little")
    k1 = int.from_bytes(bytes(range(8, 16)), "little")
    assert siphash24(k0, k1, bytes(range(15))) == 0xA129CA6149BE45E5
    assert hash64(b"") != hash64(b"\x00")


def test_hash_bucket_ranges_and_errors():
    with tf.Graph().as_default():
        x = tf.constant(["a", "b", "c", "dd"])
        for t in (tf.strings.to_hash_bucket(x, 3),
                  tf.strings.to_hash_bucket_strong(x, 3, key=[7, 9])):
            v = _run(t)
            assert v.dtype == np.int64 and ((0 <= v) & (v < 3)).all()
        a = _run(tf.strings.to_hash_bucket_strong(x, 1000, key=[1, 2]))
        b = _run(tf.strings.to_hash_bucket_strong(x, 1000, key=[1, 3]))
        assert (a != b).any()
        with pytest.raises(ValueError, match="num_buckets"):
            tf.strings.to_hash_bucket(x, 0)
        # as TF 1.15: a key of another length fails when run, not when built
        bad = tf.strings.to_hash_bucket_strong(x, 5, key=[1])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2 elements"):
            _run(bad)


def test_split_options_and_ragged_error():
    with tf.Graph().as_default():
        sp = tf.strings.split(["a,b,,c", "", ",d"], sep=",", maxsplit=1)
        v = _run(sp)
        assert v.values.tolist() == [b"a", b"b,,c", b"", b"", b"d"]
        assert v.dense_shape.tolist() == [3, 2]
        rt = tf.strings.split(["a b", "c", ""], result_type="RaggedTensor")
        assert isinstance(rt, tf.RaggedTensor) and rt.shape.as_list() == [3, None]
        assert _run(rt).to_list() == [[b"a", b"b"], [b"c"], []]
        one = tf.strings.split("a  b", result_type="RaggedTensor")
        assert _run(one).tolist() == [b"a", b"b"]  # TF 1.15: a scalar's tokens
        with pytest.raises(ValueError, match="result_type"):
            tf.strings.split(["a b"], result_type="Dense")
        # a matrix of strings: TF 1.15's ragged split, as a SparseTensor of rank 3
        sp3 = _run(tf.strings.split([["a b"], ["c"]]))
        assert sp3.indices.tolist() == [[0, 0, 0], [0, 0, 1], [1, 0, 0]]
        assert sp3.values.tolist() == [b"a", b"b", b"c"] and sp3.dense_shape.tolist() == [2, 1, 2]
        nested = tf.strings.split(tf.ragged.constant([["a b"], ["c", "d e"]]),
                                  result_type="RaggedTensor")
        assert _run(nested).to_list() == [[[b"a", b"b"]], [[b"c"], [b"d", b"e"]]]
        p = tf.placeholder(tf.string)
        with pytest.raises(tf.errors.InvalidArgumentError, match="vector"):
            _run(tf.strings.split(p), {p: np.array([["a"]], dtype=object)})


def test_ngrams_options_and_errors():
    with tf.Graph().as_default():
        d = tf.constant([["a", "b"], ["c", "d"]])
        assert _run(tf.strings.ngrams(d, 3, preserve_short_sequences=True)).tolist() == [
            [b"a b"], [b"c d"]]
        assert _run(tf.strings.ngrams(d, 7, pad_values="#", padding_width=2,
                                      preserve_short_sequences=True)).tolist() == [
            [b"# # a b # #"], [b"# # c d # #"]]
        assert _run(tf.strings.ngrams(d, (1, 2))).tolist() == [
            [b"a", b"b", b"a b"], [b"c", b"d", b"c d"]]
        # TF 1.15 goes through a ragged tensor: the n-gram count is not static
        assert tf.strings.ngrams(d, (1, 2)).get_shape().as_list() == [2, None]
        with pytest.raises(ValueError, match="greater than 0"):
            tf.strings.ngrams(d, 0)
        with pytest.raises(TypeError, match="pad_values"):  # TF 1.15's class
            tf.strings.ngrams(d, 2, pad_values=3)
        with pytest.raises(ValueError, match="rank>0"):
            tf.strings.ngrams(tf.constant("a"), 2)


def test_unicode_errors_and_forms():
    with tf.Graph().as_default():
        bad = tf.constant(b"a\xffb\x01")
        assert _run(tf.strings.unicode_decode(bad, "UTF-8")).tolist() == [97, 65533, 98, 1]
        assert _run(tf.strings.unicode_decode(bad, "UTF-8", replace_control_characters=True,
                                              replacement_char=63)).tolist() == [97, 63, 98, 63]
        assert _run(tf.strings.unicode_decode(bad, "UTF-8", errors="ignore")).tolist() == [
            97, 98, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting on input string"):
            _run(tf.strings.unicode_decode(bad, "UTF-8", errors="strict"))
        rows = tf.strings.unicode_decode(["hé", "", "ab"], "UTF-8")
        assert isinstance(rows, tf.RaggedTensor)
        assert _run(rows).to_list() == [[104, 233], [], [97, 98]]
        chars = tf.strings.unicode_split([["hé"], ["a"]], "UTF-8")
        assert _run(chars).to_list() == [[[b"h", "é".encode()]], [[b"a"]]]
        assert _run(tf.strings.unicode_split("hé", "UTF-8")).tolist() == [b"h", "é".encode()]
        _, starts = tf.strings.unicode_split_with_offsets("hé€", "UTF-8")
        assert _run(starts).tolist() == [0, 1, 3]
        assert _run(tf.strings.unicode_encode([104, -1, 0x110000], "UTF-8",
                                              replacement_char=63)) == b"h??"
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Code point value out of valid Unicode range"):
            _run(tf.strings.unicode_encode([0x110000], "UTF-8", errors="strict"))
        # as TF 1.15: a surrogate is replaced even when strict
        assert _run(tf.strings.unicode_encode([0xD800], "UTF-8", errors="strict")) == (
            "\ufffd".encode())
        assert _run(tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8",
                                                 errors="ignore")).tolist() == [b"ab"]
        assert _run(tf.strings.bytes_split("abc")).tolist() == [b"a", b"b", b"c"]
        pieces = tf.strings.bytes_split(["abc", "", "é"])
        assert _run(pieces).to_list() == [[b"a", b"b", b"c"], [], [b"\xc3", b"\xa9"]]
        assert _run(tf.strings.lower("ABC É")) == "abc É".encode()
        assert _run(tf.strings.lower("ABC É", encoding="utf-8")) == "abc é".encode()
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
            _run(tf.strings.regex_full_match(["a"], "("))
        for ids in ([0, 5], [0, -1]):
            with pytest.raises(tf.errors.InvalidArgumentError, match="not allowed to exceed"):
                _run(tf.strings.unsorted_segment_join(["a", "b"], ids, 2))


_TF = "/tmp/tfvenv/bin/python"
_PROGRAM = r"""
import sys, numpy as np
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import tideflow as tf
x = tf.constant(["", "a", "The quick brown fox", "x" * 70, "héllo wörld"])
cps = tf.range(0, 0x110000, 97)  # every 97th code point: the script table against ICU's
outs = [tf.strings.unicode_script(cps),
        tf.strings.to_hash_bucket(x, 1000003), tf.strings.to_hash_bucket_strong(x, 97, [5, 6]),
        tf.strings.upper(x, encoding="utf-8"), tf.strings.unicode_transcode(x, "UTF-8",
        "UTF-32-BE"), tf.strings.ngrams(tf.reshape(x, [1, 5]), (2, 3), pad_values="_")]
sp = tf.strings.split(x)
with tf.Session() as s:
    for v in s.run(outs + [sp.indices, sp.values, sp.dense_shape]):
        print(np.asarray(v).tolist())
"""


@pytest.mark.skipif(not os.path.exists(_TF), reason="no real TensorFlow to compare with")
def test_same_values_as_tensorflow():
    def run(which, exe):
        return subprocess.run([exe, "-c", _PROGRAM, which], capture_output=True, text=True,
                              check=True, timeout=120).stdout

    import sys

    assert run("tideflow", sys.executable) == run("tf", _TF)


def test_ngrams_of_ragged_input():
    with tf.Graph().as_default():
        rt = tf.ragged.constant([["a", "b", "c"], ["d"]])
        assert _run(tf.strings.ngrams(rt, 2)).to_list() == [[b"a b", b"b c"], []]
        rt3 = tf.ragged.constant([[["a", "b", "c"]], [["d"]]])
        assert _run(tf.strings.ngrams(rt3, 2)).to_list() == [[[b"a b", b"b c"]], [[]]]
