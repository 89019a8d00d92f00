"""String ops: static shapes, attribute validation and run-time errors (values are in the table)."""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_as_string_formats():
    assert _run(tf.as_string(tf.constant([True, False]))).tolist() == [b"true", b"false"]
    assert _run(tf.as_string(tf.constant(7), width=4)) == b"   7"
    assert _run(tf.as_string(tf.constant(7), width=4, fill="-")) == b"7   "
    assert _run(tf.as_string(tf.constant(3.14159), precision=2)) == b"3.14"
    assert _run(tf.as_string(tf.constant(1 + 2j, tf.complex64), precision=1)) == b"(1.0,2.0)"
    t = tf.as_string(tf.placeholder(tf.int64, [None, 2]))
    assert t.dtype == tf.string and t.get_shape().as_list() == [None, 2]


@pytest.mark.parametrize("kwargs,dtype,match", [
    ({"scientific": True, "shortest": True}, tf.float32, "Cannot select both"),
    ({"precision": 2}, tf.int32, "precision not supported for datatype int32"),
    ({"scientific": True}, tf.int64, "scientific and shortest format not supported"),
    ({"fill": "ab"}, tf.float32, "Fill string must be one or fewer characters"),
    # (TF 1.15 ignores a fill without a width, measured; with one it formats garbage through
    # printf's '%x4f', which tideflow refuses as later TF versions do)
    ({"fill": "x", "width": 4}, tf.float32, 'Fill argument not supported: "x"'),
])
def test_as_string_rejects_bad_attrs_at_run_time(kwargs, dtype, match):
    t = tf.as_string(tf.constant([1], dtype), **kwargs)
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        _run(t)


def test_as_string_rejects_string_input():
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.as_string(tf.constant(["a"]))


def test_string_join_shapes_and_errors():
    a = tf.placeholder(tf.string, [2, None])
    assert tf.string_join([a, "x"]).get_shape().as_list() == [2, None]
    assert tf.string_join(["a", "b"], separator=" ").get_shape().ndims == 0
    assert _run(tf.string_join(["a", "b"], separator=" ")) == b"a b"
    with pytest.raises(ValueError):
        tf.string_join([tf.constant(["a", "b"]), tf.constant(["a", "b", "c"])])
    p = tf.placeholder(tf.string)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Input shapes do not match: \[2\] vs. \[3\]"):
        _run(tf.string_join([tf.constant(["a", "b"]), p]), {p: ["a", "b", "c"]})


def test_string_split_returns_sparse_tensor():
    src = tf.placeholder(tf.string, [None])
    sp = tf.string_split(src, "")
    assert isinstance(sp, tf.SparseTensor)
    assert sp.indices.get_shape().as_list() == [None, 2]
    assert sp.values.get_shape().as_list() == [None]
    assert sp.dense_shape.get_shape().as_list() == [2]
    assert (sp.indices.dtype, sp.values.dtype, sp.dense_shape.dtype) == (
        tf.int64, tf.string, tf.int64)
    value = _run(sp, {src: ["ab", "", "c"]})
    assert value.indices.tolist() == [[0, 0], [0, 1], [2, 0]]
    assert value.values.tolist() == [b"a", b"b", b"c"]
    assert value.dense_shape.tolist() == [3, 2]
    empty = _run(tf.string_split(src), {src: []})
    assert empty.indices.shape == (0, 2) and empty.dense_shape.tolist() == [0, 0]


def test_string_split_checks_ranks():
    with pytest.raises(ValueError, match="must be rank 1"):
        tf.string_split(tf.constant([["a b"]]))
    with pytest.raises(ValueError, match="must be rank 0"):
        tf.string_split(tf.constant(["a b"]), tf.constant([" "]))
    p = tf.placeholder(tf.string)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"input must be a vector, got shape: \[1,1\]"):
        _run(tf.string_split(p), {p: [["a"]]})


@pytest.mark.parametrize("text,out_type", [
    ("abc", tf.float32), ("1_000", tf.int32), ("3.5", tf.int32), ("2147483648", tf.int32),
    ("", tf.float64), ("0x10", tf.int64),
])
def test_string_to_number_errors(text, out_type):
    t = tf.string_to_number(tf.constant([text]), out_type=out_type)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"StringToNumberOp could not correctly convert string: {text}"):
        _run(t)


def test_string_to_number_dtype_and_shape():
    t = tf.string_to_number(tf.placeholder(tf.string, [3, None]), out_type=tf.int64)
    assert t.dtype == tf.int64 and t.get_shape().as_list() == [3, None]
    with pytest.raises(TypeError):
        tf.string_to_number(tf.constant(["1"]), out_type=tf.int8)


def test_reduce_join_static_shapes_and_errors():
    x = tf.placeholder(tf.string, [2, 3, None])
    assert tf.reduce_join(x, 1).get_shape().as_list() == [2, None]
    assert tf.reduce_join(x, [0, -1], keep_dims=True).get_shape().as_list() == [1, 3, 1]
    assert tf.reduce_join(x).get_shape().ndims == 0
    with pytest.raises(ValueError, match="Invalid reduction dimension 3"):
        tf.reduce_join(x, 3)
    # as TF 1.15: a repeated dimension builds (and fails when run)
    assert tf.reduce_join(x, [0, 0]).get_shape().as_list() == [3, None]
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.reduce_join(x, axis=0, reduction_indices=0)
    axis = tf.placeholder(tf.int32)
    y = tf.placeholder(tf.string)
    joined = tf.reduce_join(y, axis)
    with tf.Session() as sess:
        assert sess.run(joined, {y: [["a", "b"], ["c", "d"]], axis: 0}).tolist() == [b"ac", b"bd"]
        # TF 1.15's kernel error (measured): OutOfRangeError, 'dimension(s)'
        with pytest.raises(tf.errors.OutOfRangeError,
                           match=r"^Invalid reduction dimension 2 for input with 2 dimension\(s\)"):
            sess.run(joined, {y: [["a"]], axis: 2})


def test_reduce_join_of_unknown_rank_joins_everything():
    if not hasattr(tf, "range") or not hasattr(tf, "rank"):
        pytest.skip("needs tf.range and tf.rank (math/array ops not merged yet)")
    y = tf.placeholder(tf.string)
    assert _run(tf.reduce_join(y, separator="."), {y: [["a", "b"], ["c", "d"]]}) == b"a.b.c.d"


def test_substr_errors_and_shapes():
    s = tf.placeholder(tf.string, [None, 3])
    assert tf.substr(s, [0, 1, 2], [1, 1, 1]).get_shape().as_list() == [None, 3]
    with pytest.raises(ValueError, match="pos and len shapes must match"):
        tf.substr(s, [0, 1], [1, 1, 1])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"pos 4 out of range for string b'abc' at index 0"):
        _run(tf.substr("abc", 4, 1))
    assert _run(tf.substr("abc", 3, 1)) == b""
    with pytest.raises(TypeError):
        tf.substr("abc", 1.0, 1.0)


def test_regex_replace_errors_and_rewrites():
    assert _run(tf.regex_replace("aaa", "a", "b", replace_global=False)) == b"baa"
    assert _run(tf.regex_replace("abc", "(b)", r"[\0|\1]")) == b"a[b|b]c"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid pattern"):
        _run(tf.regex_replace("abc", "(", "x"))
    # as TF 1.15 (RE2 unchecked): a missing group is empty; a bad escape stops the rewrite
    assert _run(tf.regex_replace("abcb", "(b)", r"y\2z")) == b"ayzcyz"
    assert _run(tf.regex_replace("abcb", "b", r"y\xz")) == b"aycy"
    assert _run(tf.regex_replace("abcb", "b", r"y\xz", replace_global=False)) == b"abcb"
    with pytest.raises(ValueError, match="must be rank 0"):
        tf.regex_replace("abc", ["a", "b"], "x")


def test_string_length():
    t = tf.strings.length(tf.placeholder(tf.string, [2]))
    assert t.dtype == tf.int32 and t.get_shape().as_list() == [2]
    assert _run(tf.strings.length("héllo")) == 6
    assert _run(tf.strings.length("héllo", unit="UTF8_CHAR")) == 5
    with pytest.raises(ValueError):
        tf.strings.length("a", unit="CHAR")


def test_strings_namespace_and_v1_aliases():
    assert tf.strings.join is tf.string_join and tf.strings.to_number is tf.string_to_number
    assert not hasattr(tf, "string_length")
    assert _run(tf.string_to_number(input="2.5")) == 2.5
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.string_to_number("1", input="2")
