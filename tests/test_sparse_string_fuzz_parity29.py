"""Sparse and string ops against TF 1.15, from a differential fuzz of random single-op programs
(session 29, helper h326: SparseTensor/SparseTensorValue ops, sparse placeholders, string
splitting/decoding/formatting and their errors).

Every expected value, message and error class below was measured in TF 1.15 (tensorflow-cpu
1.15.0) on the same program. The last tests run a small seeded fuzz of sparse and string ops
against NumPy / pure-Python references (no TF needed).
"""
import numpy as np
import pytest

import tideflow as tf

V = tf.SparseTensorValue


def _run(fetch, feed=None):
    with tf.Session() as s:
        return s.run(fetch, feed)


def _error(build, feed=None):
    """(class name, first message line) of the error from building then running."""
    g = tf.Graph()
    with g.as_default():
        try:
            _run(build(), feed)
        except Exception as e:  # noqa: BLE001 -- the class is what is compared
            return type(e).__name__, str(e).split("\n")[0]
    return None


def _sp(idx, vals, shape, dtype=tf.float32):
    return tf.SparseTensor(np.array(idx, np.int64).reshape(-1, len(shape)),
                           tf.constant(vals, dtype), shape)


# ------------------------------------------------------------------------------------------
# strings.split on whitespace with maxsplit: the rest after the last split is a token even
# when empty; maxsplit=0 keeps the string untouched
# ------------------------------------------------------------------------------------------

_WS = [b"ab", b"  pad  ", b"", b" ", b"a b", b"a b c  ", b"  a\tb\n", b"\x0bq\x0cr\x1cs"]
# TF 1.15: (maxsplit, indices, values, dense_shape)
_WS_TF = [
    (0, [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [7, 0]], _WS, [8, 1]),
    (1, [[0, 0], [0, 1], [1, 0], [1, 1], [4, 0], [4, 1], [5, 0], [5, 1], [6, 0], [6, 1],
         [7, 0], [7, 1]],
     [b"ab", b"", b"pad", b"", b"a", b"b", b"a", b"b c  ", b"a", b"b\n", b"q", b"r\x1cs"],
     [8, 2]),
    (2, [[0, 0], [1, 0], [4, 0], [4, 1], [4, 2], [5, 0], [5, 1], [5, 2], [6, 0], [6, 1],
         [6, 2], [7, 0], [7, 1], [7, 2]],
     [b"ab", b"pad", b"a", b"b", b"", b"a", b"b", b"c  ", b"a", b"b", b"", b"q", b"r\x1cs",
      b""], [8, 3]),
]


@pytest.mark.parametrize("sep", [None, ""])
@pytest.mark.parametrize("maxsplit,indices,values,shape", _WS_TF)
def test_strings_split_whitespace_maxsplit(sep, maxsplit, indices, values, shape):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None])
        r = _run(tf.strings.split(x, sep=sep, maxsplit=maxsplit), {x: _WS})
    assert r.indices.tolist() == indices
    assert r.values.tolist() == values
    assert r.dense_shape.tolist() == shape


# ------------------------------------------------------------------------------------------
# sparse placeholders of a known shape: their dense shape is a constant that stays feedable
# after sparse.transpose (TF asks its static shape only for a known perm); a feed of the wrong
# shape is reported as such before 'may not be fed'
# ------------------------------------------------------------------------------------------


def test_sparse_transpose_keeps_a_shaped_placeholder_feedable():
    with tf.Graph().as_default() as g:
        sp = tf.sparse_placeholder(tf.string, shape=[1, 4])
        t = tf.sparse.transpose(sp)
        r = _run(t, {sp: V(np.array([[0, 3]], np.int64), np.array([b"x"], object), [1, 4])})
        assert g.is_feedable(sp.dense_shape)  # TF 1.15: True
    assert r.indices.tolist() == [[3, 0]] and r.dense_shape.tolist() == [4, 1]
    assert t.indices.shape.as_list() == [None, 2]


def test_sparse_transpose_with_perm_marks_the_shape_unfeedable():
    # TF 1.15: a given perm makes the shape static (the constant is read, so not feedable)
    with tf.Graph().as_default() as g:
        sp = tf.sparse_placeholder(tf.float32, shape=[1, 4])
        t = tf.sparse.transpose(sp, [1, 0])
        assert not g.is_feedable(sp.dense_shape)
        assert t.dense_shape.op.type == "Const"


def test_feed_of_wrong_shape_reported_before_unfeedable():
    def build():
        sp = tf.sparse_placeholder(tf.float32, shape=[2])
        build.feed = {sp: V(np.array([[1], [0]], np.int64), np.array([2.5, -3.5], np.float32),
                            [3, 1])}
        return tf.sparse.to_dense(tf.sparse.reorder(sp))

    g = tf.Graph()
    with g.as_default():
        out = build()
        with pytest.raises(ValueError) as e:
            _run(out, build.feed)
    assert str(e.value) == ("Cannot feed value of shape (2,) for Tensor 'Const:0', which has "
                            "shape '(1,)'")


# ------------------------------------------------------------------------------------------
# unicode decode/transcode with replace_control_characters: only C0 controls (<= 0x1F) count;
# errors='ignore' drops them, a strict transcode fails on them, a strict decode replaces them
# ------------------------------------------------------------------------------------------

_UNI = [b"a\nb", b"\x7f\xc2\x85c", b"\x00\x1f\x20", b"a\xffb\tc"]


def _unicode(fn, errors, row):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None])
        try:
            r = _run(fn(x, errors), {x: _UNI[row:row + 1]})
        except tf.errors.InvalidArgumentError as e:
            return str(e).split("\n")[0]
    if isinstance(r, tuple):
        return [getattr(q, "flat_values", q).tolist() for q in r]
    return getattr(r, "flat_values", r).tolist()


def _dec(x, errors):
    return tf.strings.unicode_decode(x, "UTF-8", errors=errors, replace_control_characters=True)


def _off(x, errors):
    return tf.strings.unicode_decode_with_offsets(x, "UTF-8", errors=errors,
                                                  replace_control_characters=True)


def _tr(x, errors):
    return tf.strings.unicode_transcode(x, "UTF-8", "UTF-16-BE", errors=errors,
                                        replace_control_characters=True, replacement_char=63)


_BAD = "Invalid formatting on input string"
_UNI_TF = [  # (fn, errors, expected per row 0..3), TF 1.15
    (_dec, "ignore", [[97, 98], [127, 133, 99], [32], [97, 98, 99]]),
    (_off, "ignore", [[[97, 98], [0, 2]], [[127, 133, 99], [0, 1, 3]], [[32], [2]],
                      [[97, 98, 99], [0, 2, 4]]]),
    (_tr, "ignore", [[b"\x00a\x00b"], [b"\x00\x7f\x00\x85\x00c"], [b"\x00 "],
                     [b"\x00a\x00b\x00c"]]),
    (_dec, "strict", [[97, 65533, 98], [127, 133, 99], [65533, 65533, 32], _BAD]),
    (_tr, "strict", [_BAD, [b"\x00\x7f\x00\x85\x00c"], _BAD, _BAD]),
    (_tr, "replace", [[b"\x00a\x00?\x00b"], [b"\x00\x7f\x00\x85\x00c"], [b"\x00?\x00?\x00 "],
                      [b"\x00a\x00?\x00b\x00?\x00c"]]),
]


@pytest.mark.parametrize("fn,errors,expected", _UNI_TF)
def test_unicode_replace_control_characters(fn, errors, expected):
    assert [_unicode(fn, errors, row) for row in range(4)] == expected


def test_unicode_decode_unknown_rank_message():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string)
        with pytest.raises(ValueError, match=r"^Rank of `input` must be statically known\.$"):
            tf.strings.unicode_decode(x, "UTF-8")


# ------------------------------------------------------------------------------------------
# errors in TF 1.15's classes and words
# ------------------------------------------------------------------------------------------


def test_as_string_fill_ignored_without_width():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        r = _run(tf.as_string(x, fill="x"), {x: [1.5, -2.0]})
    assert r.tolist() == [b"1.500000", b"-2.000000"]  # TF 1.15: no error


def _ph(value, shape):
    return tf.placeholder_with_default(value, shape)


_ERRORS = [
    ("reshape_has", lambda: tf.sparse.reshape(
        _sp([[0, 1]], [1.], [2, 3]), _ph(np.array([7], np.int64), [None])),
     ("InvalidArgumentError", ("Input to reshape is a tensor with 6 dense values, but the "
      "requested shape has 7. input_shape=[2,3] output_shape=[7]"))),
    ("reshape_multiple", lambda: tf.sparse.reshape(
        _sp([[0, 1]], [1.], [2, 3]), _ph(np.array([-1, 4], np.int64), [None])),
     ("InvalidArgumentError", ("Input to reshape is a SparseTensor with 6 dense values, but the "
      "requested shape requires a multiple of 4. input_shape=[2,3] output_shape=[1,4]"))),
    ("reshape_negative", lambda: tf.sparse.reshape(
        _sp([[0, 1]], [1.], [2, 3]), _ph(np.array([-2, 3], np.int64), [None])),
     ("InvalidArgumentError", "size 0 must be non-negative, not -2")),
    ("reshape_zero_infer", lambda: tf.sparse.reshape(
        _sp([[0, 1]], [1.], [2, 3]), _ph(np.array([0, -1], np.int64), [None])),
     ("InvalidArgumentError", ("reshape cannot infer the missing input size for an empty tensor "
      "unless all specified input sizes are non-zero"))),
    ("deserialize_empty", lambda: tf.deserialize_many_sparse(
        _ph(np.zeros([0, 3], object), [None, 3]), tf.float32),
     ("InvalidArgumentError", ("Serialized sparse should have at least 1 serialized tensor, but "
      "has a zero dimension [0,3]"))),
    ("reduce_join_axis", lambda: tf.strings.reduce_join(_ph(["a", "b"], None), axis=-2),
     ("OutOfRangeError", "Invalid reduction dimension -2 for input with 1 dimension(s)")),
    ("reduce_join_duplicate", lambda: tf.strings.reduce_join(_ph([["a", "b"]], None),
                                                             axis=[1, -1]),
     ("InvalidArgumentError", "Duplicate reduction dimension -1")),
    ("sparse_to_dense_float", lambda: tf.sparse_to_dense([], [3], [], 0),
     ("TypeError", ("Value passed to parameter 'sparse_indices' has DataType float32 not in "
      "list of allowed values: int32, int64"))),
    ("format_str", lambda: tf.strings.format("{} {}", "py"),
     ("TypeError", "Expected list for 'inputs' argument to 'StringFormat' Op, not py.")),
    ("format_str_count", lambda: tf.strings.format("{}", "py"),
     ("ValueError", ("1 placeholder(s) in template does not match 2 tensor(s) provided as "
      "input"))),
    ("format_int", lambda: tf.strings.format("{}", 7),
     ("TypeError", "object of type 'int' has no len()")),
    ("format_escaped", lambda: tf.strings.format("{{}} {}", [tf.constant(1)]),
     ("ValueError", ("2 placeholder(s) in template does not match 1 tensor(s) provided as "
      "input"))),
    ("cross_value", lambda: tf.sparse.cross([tf.constant([[1]], tf.int64), V(
        np.array([[0, 0]], np.int64), np.array([b"a"], object), [1, 3])]),
     ("TypeError", "All inputs must be SparseTensors")),
    ("cross_hashed_tuple", lambda: tf.sparse.cross_hashed((_sp([[0, 0]], [1], [1, 1],
                                                               tf.int64),)),
     ("TypeError", "Inputs must be a list")),
]


@pytest.mark.parametrize("name,build,expected", _ERRORS, ids=[e[0] for e in _ERRORS])
def test_errors_as_tf(name, build, expected):
    assert _error(build) == expected


def test_format_list_of_python_values():
    with tf.Graph().as_default():
        assert _run(tf.strings.format("{} {}", ["py", 3])) == b'"py" 3'  # TF 1.15


_ADD = [  # (a, b, TF 1.15's error)
    (V(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 3]),
     V(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 4]),
     "Operands' shapes do not match: got 3 and 4 for dimension 1"),
    (V(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [2, 3]),
     V(np.zeros((0, 3), np.int64), np.zeros(0, np.float32), [2, 3, 1]),
     "Operands do not have the same ranks; got shapes: 2 3 and 2 3 1"),
    (V([[0, 0]], [1.], [2, 3]), V([[0, 0, 0]], [1.], [2, 3, 1]),
     "Operands do not have the same ranks; got shapes: 2 3 and 2 3 1"),
    (V([[0, 0]], [1., 2.], [2, 3]), V([[0, 0]], [1.], [2, 3]),
     "Expected 1 and 1 non-empty input values, got 2 and 1"),
]


@pytest.mark.parametrize("a,b,message", _ADD)
def test_sparse_add_kernel_errors(a, b, message):
    with tf.Graph().as_default():
        x, y = tf.sparse_placeholder(tf.float32), tf.sparse_placeholder(tf.float32)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            _run(tf.sparse.add(x, y), {x: a, y: b})
    assert str(e.value).split("\n")[0] == message


# ------------------------------------------------------------------------------------------
# a small seeded fuzz against NumPy / pure-Python references: random sparse tensors (unordered
# indices, zero nnz, empty dimensions) through reorder, to_dense, reduce_sum, slice, add,
# sparse_dense_matmul and retain; random strings (empty, non-ASCII, invalid UTF-8) through
# split, length and join
# ------------------------------------------------------------------------------------------


def _random_sparse(r):
    shape = [int(r.randint(0, 4)) for _ in range(r.randint(1, 4))]
    total = int(np.prod(shape))
    nnz = int(r.randint(0, min(total, 6) + 1)) if total else 0
    flat = r.choice(total, nnz, replace=False) if nnz else np.zeros(0, np.int64)
    idx = np.array([np.unravel_index(f, shape) for f in flat], np.int64).reshape(nnz, len(shape))
    vals = np.round(r.randn(nnz) * 2, 2).astype(np.float32)
    return idx, vals, shape


def _dense(idx, vals, shape):
    d = np.zeros(shape, np.float32)
    for i, v in zip(idx.tolist(), vals.tolist()):
        d[tuple(i)] = v
    return d


def _sorted(idx, vals):
    order = sorted(range(len(idx)), key=lambda k: tuple(idx[k]))
    return idx[order].reshape(idx.shape), vals[order]


def _fuzz_sparse_case(r, s):
    idx, vals, shape = _random_sparse(r)
    # (a fully known shape is a constant that reorder and add make unfeedable, as in TF)
    x = tf.sparse_placeholder(tf.float32, shape=[None] * len(shape) if r.rand() < 0.5 else None)
    feed = {x: V(idx, vals, shape)}
    dense = _dense(idx, vals, shape)
    ri, rv = _sorted(idx, vals)
    kind = r.randint(6)
    if kind == 0:
        out = s.run(tf.sparse.reorder(x), feed)
        np.testing.assert_array_equal(out.indices.reshape(ri.shape), ri)
        np.testing.assert_array_equal(out.values, rv)
    elif kind == 1:
        np.testing.assert_array_equal(s.run(tf.sparse.to_dense(tf.sparse.reorder(x)), feed),
                                      dense)
    elif kind == 2:
        ax = int(r.randint(len(shape)))
        got = s.run(tf.sparse.reduce_sum(x, axis=ax), feed)
        np.testing.assert_allclose(got, dense.sum(axis=ax), rtol=1e-6, atol=1e-6)
    elif kind == 3:
        start = [int(r.randint(0, d + 1)) for d in shape]
        size = [int(r.randint(0, d + 2)) for d in shape]
        out = s.run(tf.sparse.slice(x, start, size), feed)
        # TF: the slice's shape is clipped to the input; its indices are relative to start
        want_shape = [max(0, min(st + sz, d) - st) for st, sz, d in zip(start, size, shape)]
        keep = [k for k in range(len(ri))
                if all(st <= i < st + sz for i, st, sz in zip(ri[k], start, size))]
        assert out.dense_shape.tolist() == want_shape
        np.testing.assert_array_equal(out.indices.reshape(-1, len(shape)),
                                      (ri[keep] - np.array(start)).reshape(-1, len(shape)))
        np.testing.assert_array_equal(out.values, rv[keep])
    elif kind == 4:
        # SparseAdd merges ordered operands (as TF): both in order, same pattern
        vals2 = np.round(r.randn(len(idx)) * 2, 2).astype(np.float32)
        y = tf.sparse_placeholder(tf.float32)
        feed[x] = V(ri, rv, shape)
        feed[y] = V(ri, vals2, shape)
        got = s.run(tf.sparse.to_dense(tf.sparse.add(x, y)), feed)
        np.testing.assert_allclose(got, _dense(ri, rv + vals2, shape), rtol=1e-6)
    elif len(shape) == 2:
        n = int(r.randint(0, 3))
        b = np.round(r.randn(shape[1], n), 2).astype(np.float32)
        got = s.run(tf.sparse.sparse_dense_matmul(x, b), feed)
        np.testing.assert_allclose(got, dense @ b, rtol=1e-5, atol=1e-5)
    else:
        mask = r.rand(len(idx)) < 0.5
        out = s.run(tf.sparse.retain(x, mask), feed)
        np.testing.assert_array_equal(out.values, vals[mask])


_POOL = [b"", b"a", b"ab c", b"  x  y ", "\u00e9t\u00e9".encode(), b"\xff", b"a\xc3",
         "\u65e5 \u672c".encode(), b"a,b,,c", b","]


def _ref_split(s, sep, maxsplit):
    if maxsplit == 0:
        return [s]
    if sep is None:
        tokens = s.split(None, maxsplit)
        return tokens + [b""] if maxsplit > 0 and len(tokens) == maxsplit else tokens
    return s.split(sep, maxsplit)


def _fuzz_string_case(r, s):
    strings = [_POOL[r.randint(len(_POOL))] for _ in range(r.randint(0, 5))]
    x = tf.placeholder(tf.string, [None])
    feed = {x: np.array(strings, object).reshape(-1)}
    kind = r.randint(3)
    if kind == 0:
        sep = [None, b",", b" "][r.randint(3)]
        maxsplit = int(r.randint(-1, 3))
        out = s.run(tf.strings.split(x, sep=sep, maxsplit=maxsplit), feed)
        rows = [_ref_split(t, sep, maxsplit) for t in strings]
        assert out.values.tolist() == [t for row in rows for t in row]
        assert out.indices.tolist() == [[i, j] for i, row in enumerate(rows)
                                        for j in range(len(row))]
        assert out.dense_shape.tolist() == [len(rows), max([len(w) for w in rows] or [0])]
    elif kind == 1:
        unit = ["BYTE", "UTF8_CHAR"][r.randint(2)]
        got = s.run(tf.strings.length(x, unit=unit), feed).tolist()
        # TF counts UTF-8 characters as the bytes that start none (invalid bytes count)
        want = [len(t) if unit == "BYTE" else sum((c & 0xC0) != 0x80 for c in t)
                for t in strings]
        assert got == want
    else:
        sep = ["", "-", "\u00e9"][r.randint(3)]
        got = s.run(tf.strings.reduce_join(x, axis=0, separator=sep), feed)
        assert got == sep.encode().join(strings)


def test_seeded_fuzz_against_references():
    r = np.random.RandomState(29326)
    for _ in range(12):
        with tf.Graph().as_default(), tf.Session() as s:
            for _ in range(10):
                _fuzz_sparse_case(r, s)
                _fuzz_string_case(r, s)


# ------------------------------------------------------------------------------------------
# second fuzz round: IndexedSlices with a Python dense shape, substr in characters with a
# negative len, unicode_encode of surrogates, as_string's check order, decode_csv stopping at
# the last selected column
# ------------------------------------------------------------------------------------------


def test_indexed_slices_with_list_or_array_dense_shape_made_dense():
    with tf.Graph().as_default():
        g = tf.IndexedSlices(tf.constant(np.ones((2, 1), np.float32)), tf.constant([0, 0]),
                             [1, 1])
        g2 = tf.IndexedSlices(tf.constant(np.ones((2, 1), np.float32)), tf.constant([0, 1]),
                              np.array([2, 1], np.int32))
        a, b = _run([tf.add_n([g, g]), tf.convert_to_tensor(g2)])
    assert a.tolist() == [[4.0]] and b.tolist() == [[1.0], [1.0]]  # TF 1.15


# TF 1.15, UTF8_CHAR: (pos, len) -> per string of _SUB ('' for an error)
_SUB = [b"hello", "\u00e9t\u00e9".encode(), b"a\xffb"]
_SUB_TF = [
    (2, -1, [b"", b"", b""]),
    (0, -2, [b"", b"", b""]),
    (-1, -1, None),  # 'pos -1 out of range for string at index 0'
    (-3, -2, None),
    (-2, 1, [b"l", b"t", b"\xff"]),
    (1, 3, [b"ell", "t\u00e9".encode(), b"\xffb"]),
]


@pytest.mark.parametrize("pos,length,expected", _SUB_TF)
def test_substr_utf8_negative_len(pos, length, expected):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.string, [None])
        out = tf.strings.substr(x, pos, length, unit="UTF8_CHAR")
        if expected is None:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=rf"^pos {pos} out of range for string at index 0"):
                _run(out, {x: _SUB})
        else:
            assert _run(out, {x: _SUB}).tolist() == expected


_ENC_TF = [  # (encoding, errors, code points, TF 1.15's bytes)
    ("UTF-8", "replace", [0xDBFF, 0xDC00, 0xDC00], b"\xf4\x8f\xb0\x80\xef\xbf\xbd"),
    ("UTF-8", "ignore", [0xD800, 0x110000, 0xDC00], b"\xf0\x90\x80\x80"),
    ("UTF-16-BE", "replace", [0x1F600, 0xDC00], b"\xd8=\xde\x00\xdc\x00"),
    ("UTF-16-BE", "replace", [0xD800, 0x110000, 0xDC00], b"\xd8\x00\xff\xfd\xdc\x00"),
    ("UTF-32-BE", "replace", [0xD800, 66], b"\x00\x00\xd8\x00\x00\x00\x00B"),
    ("UTF-32-BE", "strict", [0xDBFF, 0xDC00, 0xDC00], b"\x00\x10\xfc\x00\x00\x00\xdc\x00"),
]


@pytest.mark.parametrize("encoding,errors,cps,expected", _ENC_TF)
def test_unicode_encode_surrogates(encoding, errors, cps, expected):
    with tf.Graph().as_default():
        c = tf.placeholder(tf.int32, [None])
        out = tf.strings.unicode_encode(c, encoding, errors=errors)
        assert _run(out, {c: cps}) == expected


_ROUND2_ERRORS = [
    ("as_string_int_both", lambda: tf.as_string(_ph(1, None), scientific=True, shortest=True),
     ("InvalidArgumentError", ("scientific and shortest format not supported for datatype "
      "int32"))),
    ("as_string_fill_first", lambda: tf.as_string(_ph(1.0, None), fill="ab", scientific=True,
                                                  shortest=True),
     ("InvalidArgumentError", "Fill string must be one or fewer characters")),
    ("split_matrix", lambda: tf.strings.split(_ph(np.array([[b","], [b"a"]], object), None),
                                              sep=" ", result_type="RaggedTensor").flat_values,
     ("InvalidArgumentError", "input must be a vector, got shape: [2,1]")),
    ("csv_after_selected", lambda: tf.io.decode_csv(tf.constant(['"q""q","u']), [[5]],
                                                    select_cols=[0]),
     ("InvalidArgumentError", 'Field 0 in record 0 is not a valid int32: q"q')),
]


@pytest.mark.parametrize("name,build,expected", _ROUND2_ERRORS,
                         ids=[e[0] for e in _ROUND2_ERRORS])
def test_round2_errors_as_tf(name, build, expected):
    assert _error(build) == expected


def test_decode_csv_fields_after_the_last_selected_column_unread():
    with tf.Graph().as_default():
        out = tf.io.decode_csv(tf.constant(['1,"u', '"1",x"y']), [["d"]], select_cols=[0])
        assert _run(out)[0].tolist() == [b"1", b"1"]  # TF 1.15


# ------------------------------------------------------------------------------------------
# third round (malformed sparse inputs): TF's checks, their order and words, and what its
# kernels make of indices out of order or out of range
# ------------------------------------------------------------------------------------------


def _sp_error(build, *values):
    with tf.Graph().as_default():
        phs = [tf.sparse_placeholder(tf.float32) for _ in values]
        out = build(*phs)
        try:
            _run(out, dict(zip(phs, values)))
        except tf.errors.OpError as e:
            return type(e).__name__, str(e).split("\n")[0]
    return None


_MIS = V(np.array([[0, 0], [1, 1]], np.int64), np.array([1.], np.float32), [3, 3])
_OK = V(np.array([[0, 0]], np.int64), np.array([1.], np.float32), [3, 3])
_NEG = V(np.array([[0, 0], [-1, 1]], np.int64), np.array([1., 2.], np.float32), [3, 3])
_ROUND3 = [  # TF 1.15
    ("fill_empty_negative_row", lambda a: tf.sparse.fill_empty_rows(a, 0.)[0].values, [_NEG],
     "indices(1, 0) is invalid: -1 >= 3"),
    ("reduce_axis_first", lambda a: tf.sparse.reduce_sum(a, axis=2), [_MIS],
     "Invalid reduction dimension 2, for input with 2 dimensions."),
    ("reduce_sparse_axis_first", lambda a: tf.sparse.reduce_sum_sparse(a, axis=2).values,
     [_MIS], "Invalid reduction dimension 2, for input with 2 dimensions."),
    ("maximum_nnz", lambda a, b: tf.sparse.maximum(a, b).values, [_OK, _MIS],
     "Expected 1 and 2 non-empty input values, got 1 and 1"),
]


@pytest.mark.parametrize("name,build,values,message", _ROUND3, ids=[e[0] for e in _ROUND3])
def test_round3_sparse_errors(name, build, values, message):
    assert _sp_error(build, *values) == ("InvalidArgumentError", message)


def test_sparse_slice_keeps_indices_past_the_shape_inside_the_window():
    with tf.Graph().as_default():
        x = tf.sparse_placeholder(tf.float32)
        r = _run(tf.sparse.slice(x, [1], [4]), {x: V(np.array([[4]], np.int64),
                                                      np.array([1.25], np.float32), [3])})
    # TF 1.15: the index 4 (past the shape 3) is in [1, 5): kept, the shape clipped to 2
    assert r.indices.tolist() == [[3]] and r.values.tolist() == [1.25]
    assert r.dense_shape.tolist() == [2]


def test_as_string_bool_ignores_fill():
    with tf.Graph().as_default():
        r = _run(tf.as_string(tf.constant([True, False]), width=0, fill="x"))
    assert r.tolist() == [b"true", b"false"]  # TF 1.15


_A = V(np.array([[0, 0], [1, 0], [1, 1]], np.int64), np.array([1, 2, 3], np.int64), [2, 2])
_CROSS = [  # (sparse inputs, dense inputs, TF 1.15's result or error)
    ([_A, V(np.array([[0, 0], [1, 0]], np.int64), np.array([5], np.int64), [2, 2])], [],
     "Expected size of values to be 2 got 1 at position 1"),
    ([_A, V(np.array([[0, 0]], np.int64), np.array([5], np.int64), [3, 2])], [],
     "Expected batch size 2 got 3 at position 1"),
    ([_A], [[[1], [2], [3]]], "Expected batch size 2 got 3 at dense tensor 0"),
    ([V(np.array([[1, 0], [0, 0], [1, 1]], np.int64), np.array([1, 2, 3], np.int64), [2, 2]),
      _A], [], ([[1, 0], [1, 1]], [b"1_X_2", b"1_X_3"], [2, 2])),
    ([V(np.array([[0, 0], [5, 0]], np.int64), np.array([1, 2], np.int64), [2, 2]), _A], [],
     ([[0, 0]], [b"1_X_1"], [2, 1])),
]


@pytest.mark.parametrize("sparse,dense,expected", _CROSS)
def test_sparse_cross_input_checks_and_row_runs(sparse, dense, expected):
    with tf.Graph().as_default():
        phs = [tf.sparse_placeholder(tf.int64) for _ in sparse]
        out = tf.sparse.cross(phs + [tf.constant(d, tf.int64) for d in dense])
        feed = dict(zip(phs, sparse))
        if isinstance(expected, str):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                _run(out, feed)
            assert str(e.value).split("\n")[0] == expected
        else:
            r = _run(out, feed)
            assert (r.indices.tolist(), r.values.tolist(), r.dense_shape.tolist()) == expected


_SER = [  # serialize_many_sparse validates its indices (TF 1.15's words)
    (V(np.array([[1, 0], [0, 1]], np.int64), np.array([1., 2.], np.float32), [2, 2]),
     "indices[1] = [0,1] is out of order. Many sparse ops require sorted indices."),
    (V(np.array([[0, 3]], np.int64), np.array([1.], np.float32), [2, 2]),
     "indices[0] = [0,3] is out of bounds: need 0 <= index < [2,2]"),
    (V(np.array([[2, 0]], np.int64), np.array([1.], np.float32), [2, 2]),
     "indices[0] = [2,0] is out of bounds: need 0 <= index < [2,2]"),
    (V(np.array([[0, 1], [0, 1]], np.int64), np.array([1., 2.], np.float32), [2, 2]),
     "indices[1] = [0,1] is repeated"),
]


@pytest.mark.parametrize("value,message", _SER)
def test_serialize_many_sparse_validates_indices(value, message):
    def build(x):
        return tf.deserialize_many_sparse(tf.serialize_many_sparse(x), tf.float32).values

    assert _sp_error(build, value) == ("InvalidArgumentError", message)


def test_sparse_softmax_rank_checked_first():
    mis = V(np.array([[0, 1], [1, 1]], np.int64), np.array([1.], np.float32), [3])
    assert _sp_error(tf.sparse.softmax, mis) == (
        "InvalidArgumentError", "Input should have rank >= 2, but received shape: 3")  # TF 1.15
