"""tf.data fast paths give what the general paths give: values, order, errors, the end.

A parallel map whose function cannot use threads (small Python-run kernels) runs inline; one
that can (py_func, big elements) runs on a pool. Both must match the plain ``map``.
"""

import re
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow import data
from tideflow.ops import dataset_values as dv

D = data.Dataset


def _outcomes(make, n=200):
    """Each GetNext's value, or the error class and message, until OutOfRangeError."""
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        nxt = make().make_one_shot_iterator().get_next()
        out = []
        with tf.Session() as sess:
            for _ in range(n):
                try:
                    v = sess.run(nxt)
                    if isinstance(v, dict):
                        v = tuple(v[k] for k in sorted(v))
                    v = [np.asarray(c) for c in (v if isinstance(v, tuple) else (v,))]
                except tf.errors.OutOfRangeError:
                    out.append("end")
                    break
                except tf.errors.OpError as e:
                    # (each pipeline's function has its own name, as its own uid in TF)
                    out.append((type(e).__name__, re.sub(r"^\{\{function_node \S+\}\} ", "",
                                                         e.message.split("\n")[0])))
                    continue
                out.append(v)
    return out


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert type(x) is type(y)
        if isinstance(x, list):
            assert len(x) == len(y)
            for cx, cy in zip(x, y):
                assert cx.dtype == cy.dtype
                np.testing.assert_array_equal(cx, cy)
        else:
            assert x == y


def _map_threads():
    return {t for t in threading.enumerate() if t.name.startswith("tf_data_map")}


def _fail_on_multiples_of_5(x):
    # InvalidArgumentError for the elements 0, 5, 10, ... (log of 0 -> -inf)
    v = tf.log(tf.cast(tf.mod(x, 5), tf.float32))
    return tf.check_numerics(v, "multiple of five") + tf.cast(x, tf.float32)


@pytest.mark.parametrize("par", [2, 4, data.experimental.AUTOTUNE])
def test_inline_parallel_map_equals_map(par):
    for fn in (lambda x: x * 3 + 1, _fail_on_multiples_of_5):
        want = _outcomes(lambda: D.range(23).map(fn))  # noqa: B023
        got = _outcomes(lambda: D.range(23).map(fn, num_parallel_calls=par))  # noqa: B023
        _same(got, want)
        assert got[-1] == "end"
    got = _outcomes(lambda: D.range(6).map(_fail_on_multiples_of_5, num_parallel_calls=2))
    assert [type(o) for o in got] == [tuple, *[list] * 4, tuple, str]
    assert got[0][0] == "InvalidArgumentError" and "multiple of five" in got[0][1]
    assert [float(v[0]) for v in got[1:5]] == [float(np.float32(np.log(k)) + k)
                                               for k in (1, 2, 3, 4)]


def test_inline_parallel_map_seeded_random_matches_map():
    def fn(x):
        img = tf.reshape(tf.cast(tf.range(12), tf.float32) + tf.cast(x, tf.float32), [2, 3, 2])
        return tf.image.random_flip_left_right(img), tf.random_uniform([2])

    def make(par):
        return lambda: D.range(30).map(fn, num_parallel_calls=par).shuffle(
            10, seed=3).batch(4).prefetch(2)

    want = _outcomes(make(None))
    got = _outcomes(make(2))
    _same(got, want)
    _same(_outcomes(make(2)), got)  # deterministic


def test_inline_parallel_map_starts_no_threads():
    with tf.Graph().as_default():
        before = _map_threads()
        nxt = D.range(10).map(lambda x: x + 1, num_parallel_calls=4).make_one_shot_iterator(
        ).get_next()
        with tf.Session() as sess:
            assert [int(sess.run(nxt)) for _ in range(5)] == [1, 2, 3, 4, 5]
            assert _map_threads() - before == set()


def _py_fail_on_3(x):
    time.sleep(0.001)  # a call long enough for a pool (a file read, a decoder)
    if int(x) % 7 == 3:
        raise ValueError(f"bad element {int(x)}")
    return np.int64(x * 10)


def test_threaded_parallel_map_of_py_func_equals_map():
    def fn(x):
        return tf.py_func(_py_fail_on_3, [x], tf.int64)

    with tf.Graph().as_default():
        before = _map_threads()
        nxt = D.range(12).map(lambda x: tf.py_func(_slow_double, [x], tf.int64),
                              num_parallel_calls=2).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = [int(sess.run(nxt)) for _ in range(dv._PROBE)]  # timed, inline
            assert _map_threads() - before == set()
            got += [int(sess.run(nxt)) for _ in range(2)]
            assert _map_threads() - before  # slow py_func calls: a pool runs them
            assert got == [0, 2, 4, 6, 8, 10, 12]
    want = _outcomes(lambda: D.range(30).map(fn))
    assert sum(isinstance(o, tuple) for o in want) == 4  # 3, 10, 17, 24
    for par in (2, 3, 8):
        got = _outcomes(lambda: D.range(30).map(fn, num_parallel_calls=par))  # noqa: B023
        _same(got, want)
        assert got[-1] == "end"


def _slow_double(a):
    time.sleep(0.001)
    return a * 2


def test_fast_py_func_parallel_map_runs_inline():
    with tf.Graph().as_default():
        before = _map_threads()
        nxt = D.range(40).map(lambda x: tf.py_func(lambda a: a + 1, [x], tf.int64),
                              num_parallel_calls=4).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert [int(sess.run(nxt)) for _ in range(40)] == list(range(1, 41))
            assert _map_threads() - before == set()
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


def test_threaded_parallel_map_input_errors_keep_their_turn():
    # the input fails at 5, 10, ...; the threaded map after it must give the elements before
    # each failure first, then the failure, then go on
    def make(par):
        return lambda: D.range(17).map(_fail_on_multiples_of_5).map(
            lambda v: tf.py_func(_slow_double, [v], tf.float32), num_parallel_calls=par)

    want = _outcomes(make(None))
    got = _outcomes(make(3))
    _same(got, want)
    assert [i for i, o in enumerate(got) if isinstance(o, tuple)] == [0, 5, 10, 15]


def test_big_elements_use_threads_small_ones_not():
    # the verdict is by op type, then by the element's size
    class Fake:
        pass

    f = Fake()
    f.plan = type("P", (), {"ops": []})()
    assert not dv.threads_help(f, [np.zeros(10, np.float32)])
    assert dv.threads_help(f, [np.zeros(1 << 19, np.float32)])  # 2 MiB
    assert dv.threads_help(object())  # unknown function: threads
    big = np.arange(2 * (1 << 18), dtype=np.float32).reshape(2, -1)
    want = _outcomes(lambda: D.from_tensor_slices(big).map(lambda v: v * 2.0 + 1.0))
    got = _outcomes(lambda: D.from_tensor_slices(big).map(lambda v: v * 2.0 + 1.0,
                                                          num_parallel_calls=2))
    _same(got, want)


# ------------------------------------------------------------------------------------------
# per-element kernels: DecodeRaw of one string, short proto value lists
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("little_endian", [True, False])
@pytest.mark.parametrize("dtype", [tf.uint8, tf.int16, tf.float32, tf.float64, tf.int64])
def test_decode_raw_of_one_string_matches_batched(dtype, little_endian):
    npt = np.dtype(dtype.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    rows = [np.arange(6).astype(npt).tobytes(), (np.arange(6) * 3 + 1).astype(npt).tobytes()]
    with tf.Graph().as_default():
        one = tf.decode_raw(tf.constant(rows[1]), dtype, little_endian=little_endian)
        many = tf.decode_raw(tf.constant(rows), dtype, little_endian=little_endian)
        with tf.Session() as sess:
            a, b = sess.run([one, many])
    assert a.dtype == np.dtype(dtype.as_numpy_dtype) and a.shape == (6,)
    np.testing.assert_array_equal(a, b[1])
    np.testing.assert_array_equal(a, np.arange(6) * 3 + 1)
    a[0] = 5  # owns its memory (writable), not a view of the string


def test_decode_raw_of_one_string_errors():
    with tf.Graph().as_default():
        s = tf.placeholder(tf.string, [])
        out = tf.decode_raw(s, tf.int32)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="not a multiple of 4"):
                sess.run(out, {s: b"abcde"})
            assert sess.run(out, {s: b""}).shape == (0,)
            assert sess.run(out, {s: b"\x01\x00\x00\x00"}).tolist() == [1]


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 9])
def test_parse_single_example_short_lists(n):
    ints = [(-1) ** k * (2**40 + k) for k in range(n)]
    floats = [k / 3 for k in range(n)]
    ex = tf.train.Example(features=tf.train.Features(feature={
        "i": tf.train.Feature(int64_list=tf.train.Int64List(value=ints)),
        "f": tf.train.Feature(float_list=tf.train.FloatList(value=floats))}))
    with tf.Graph().as_default():
        d = D.from_tensors(ex.SerializeToString()).map(lambda s: tf.parse_single_example(
            s, {"i": tf.FixedLenFeature([n], tf.int64), "f": tf.VarLenFeature(tf.float32)}))
        nxt = d.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = sess.run(nxt)
    assert got["i"].dtype == np.int64 and got["i"].tolist() == ints
    assert got["f"].values.dtype == np.float32
    np.testing.assert_array_equal(got["f"].values, np.asarray(floats, np.float32))


# ------------------------------------------------------------------------------------------
# batch: equal shapes stacked in one NumPy call, anything else through the checked loop
# ------------------------------------------------------------------------------------------


def test_batch_stacks_like_the_loop():
    from tideflow.ops.dataset_structure import stack

    imgs = [np.arange(12, dtype=np.float32).reshape(2, 3, 2) * k for k in range(5)]
    got = stack(imgs, tf.float32)
    assert got.dtype == np.float32 and got.shape == (5, 2, 3, 2)
    np.testing.assert_array_equal(got, np.asarray(imgs))
    got[0, 0, 0, 0] = -1  # a new array, not a view of an element
    assert imgs[0][0, 0, 0] == 0
    # a value of another dtype is converted into the component's dtype (the loop's casting)
    got = stack([np.array([1.5, 2.5]), np.array([3, 4], np.int64)], tf.float32)
    assert got.dtype == np.float32 and got.tolist() == [[1.5, 2.5], [3.0, 4.0]]
    scalars = stack([np.array(k, np.int64) for k in range(4)], tf.int64)
    assert scalars.dtype == np.int64 and scalars.tolist() == [0, 1, 2, 3]
    strings = stack([np.array(b"a", object), np.array(b"bc", object)], tf.string)
    assert strings.dtype == object and strings.tolist() == [b"a", b"bc"]


def test_batch_of_ragged_elements_names_the_element():
    with tf.Graph().as_default():
        d = D.range(1, 4).map(lambda n: tf.range(n)).batch(2)
        nxt = d.make_one_shot_iterator().get_next()
        # (TF 1.15's words when the sizes differ)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Shapes are: \[tensor\]: \[2\], \[batch\]: \[1\]"):
            sess.run(nxt)


# ------------------------------------------------------------------------------------------
# dataset functions run their plans directly: errors map to their op, NumPy stays quiet
# ------------------------------------------------------------------------------------------


def _slow_recip(a):
    time.sleep(0.001)
    return np.float32(1.0) / a  # 1/0: inf, silently (TF's kernels do not warn)


@pytest.mark.parametrize("form", ["map", "prefetch", "pool"])
def test_dataset_functions_raise_no_numpy_warnings(form):
    def make():
        d = D.from_tensor_slices(np.array([0.0, 2.0, 0.0, 4.0] * 4, np.float32))
        if form == "pool":
            return d.map(lambda v: tf.py_func(_slow_recip, [v], tf.float32) + 1.0 / v,
                         num_parallel_calls=2)
        d = d.map(lambda v: (1.0 / v) * 0.0 + tf.log(v - 3.0))
        return d.prefetch(2) if form == "prefetch" else d

    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = _outcomes(make)
    assert [w for w in seen if issubclass(w.category, RuntimeWarning)] == []
    assert got[-1] == "end" and len(got) == 17
    first = got[0][0]
    if form == "pool":
        assert np.isposinf(first) and float(got[1][0]) == 1.0
    else:  # inf * 0 = nan; log of a negative: nan
        assert np.isnan(first) and np.isnan(got[1][0]) and float(got[3][0]) == 0.0


def test_dataset_function_error_names_its_op():
    with tf.Graph().as_default():
        d = D.range(3).map(lambda x: tf.check_numerics(
            tf.log(tf.cast(x, tf.float32) - 1.0), "negative log", name="the_check"))
        nxt = d.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(nxt)  # log(-1): nan
            # as TF 1.15: the function's node is named in the message, as "{{node NAME}}"
            # (no op of the session's graph: the error names none)
            assert "negative log" in info.value.message
            assert "\n\t [[{{node the_check}}]]\n\t [[IteratorGetNext]]" in info.value.message
            assert info.value.op is None
            with pytest.raises(tf.errors.InvalidArgumentError, match="negative log"):
                sess.run(nxt)  # log(0): -inf
            assert float(sess.run(nxt)) == 0.0


def test_reverse_matches_flip_for_every_axis_set():
    import itertools

    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    sets = [list(c) for k in range(4) for c in itertools.combinations(range(3), k)]
    sets += [[-1], [-3, 1], [2, -2]]
    with tf.Graph().as_default():
        outs = [tf.reverse(x, tf.constant(a, dtype=tf.int64 if len(a) % 2 else tf.int32))
                for a in sets]
        bad = tf.placeholder(tf.int32, [None])
        rev = tf.reverse(tf.placeholder_with_default(x, [2, 3, 4]), bad)
        with tf.Session() as sess:
            got = sess.run(outs)
            for axes, g in zip(sets, got):
                want = np.flip(x, tuple(a % 3 for a in axes)) if axes else x
                np.testing.assert_array_equal(g, want)
            with pytest.raises(tf.errors.InvalidArgumentError, match="out of valid range"):
                sess.run(rev, {bad: [3]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="more than once"):
                sess.run(rev, {bad: [1, -2]})


# ------------------------------------------------------------------------------------------
# ParseExample: fixed-length dense keys read per example and converted once per batch
# ------------------------------------------------------------------------------------------


def _example(**feats):
    f = {}
    for k, v in feats.items():
        if isinstance(v[0], bytes):
            f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        elif isinstance(v[0], float):
            f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v))
        else:
            f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v))
    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()


_SPEC = {
    "s": tf.FixedLenFeature([], tf.string, default_value=b"none"),
    "i2": tf.FixedLenFeature([2], tf.int64, default_value=[-1, -2]),
    "f6": tf.FixedLenFeature([2, 3], tf.float32, default_value=[0.5] * 6),
    "v": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
    "sp": tf.VarLenFeature(tf.string),
}


def _batch_rows():
    rows, want = [], []
    for k in range(7):
        feats = {"sp": [b"x%d" % j for j in range(k % 3)] or None, "v": list(range(k)) or None}
        if k % 2:
            feats["s"] = [b"s%d" % k]
        if k % 3:
            feats["i2"] = [k, 10 * k]
        if k != 4:
            feats["f6"] = [k + j / 8 for j in range(6)]
        rows.append(_example(**{a: b for a, b in feats.items() if b is not None}))
        want.append(feats)
    return rows, want


def test_parse_example_fixed_keys_match_single_parses():
    rows, want = _batch_rows()
    with tf.Graph().as_default():
        batch = tf.parse_example(tf.constant(rows), _SPEC)
        singles = [tf.parse_single_example(tf.constant(r), _SPEC) for r in rows]
        with tf.Session() as sess:
            got, each = sess.run([batch, singles])
    assert got["s"].tolist() == [w.get("s", [b"none"])[0] for w in want]
    assert got["i2"].dtype == np.int64 and got["i2"].tolist() == [
        w.get("i2", [-1, -2]) for w in want]
    assert got["f6"].dtype == np.float32 and got["f6"].shape == (7, 2, 3)
    np.testing.assert_array_equal(got["f6"], np.asarray(
        [w.get("f6", [0.5] * 6) for w in want], np.float32).reshape(7, 2, 3))
    for k, one in enumerate(each):
        for key in ("s", "i2", "f6"):
            np.testing.assert_array_equal(np.asarray(one[key], got[key].dtype), got[key][k])
        np.testing.assert_array_equal(one["v"], got["v"][k][:len(one["v"])])
    assert got["v"].shape == (7, 6)
    assert got["sp"].values.tolist() == [b"x0", b"x0", b"x1", b"x0", b"x0", b"x1"]


@pytest.mark.parametrize("bad, msg", [
    ({"i2": [1, 2, 3]}, (r"Key: i2, Index: 3.  Number of int64 values != expected.  Values "
                         r"size: 3 but output shape: \[2\]")),
    ({"i2": [1.0, 2.0]}, (r"Key: i2, Index: 3.  Data types don't match. Data type: float but "
                          r"expected type: int64")),
    ({"s": [1]}, r"Key: s, Index: 3.  Data types don't match"),
    ({"f6": [1.0]}, r"Key: f6, Index: 3.  Number of float values != expected"),
])
def test_parse_example_fixed_key_errors(bad, msg):
    # the bad example is row 3: TF's fast parser names its index in the batch
    rows, _ = _batch_rows()
    rows[3] = _example(**bad)
    with tf.Graph().as_default():
        batch = tf.parse_example(tf.constant(rows), _SPEC)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            sess.run(batch)


def test_parse_example_missing_required_key():
    with tf.Graph().as_default():
        batch = tf.parse_example(tf.constant([_example(a=[1]), _example(b=[2])]),
                                 {"a": tf.FixedLenFeature([], tf.int64)})
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"Feature: a \(data type: int64\) is required but could not be found"):
            sess.run(batch)
    with tf.Graph().as_default():
        empty = tf.parse_example(tf.zeros([0], tf.string), _SPEC)
        with tf.Session() as sess:
            got = sess.run(empty)
    assert got["i2"].shape == (0, 2) and got["f6"].shape == (0, 2, 3)
    assert got["s"].shape == (0,) and got["s"].dtype == object


_FIXED = {k: v for k, v in _SPEC.items() if k in ("s", "i2", "f6")}


def test_parse_single_example_fixed_keys_only():
    rows, want = _batch_rows()
    with tf.Graph().as_default():
        d = D.from_tensor_slices(rows).map(lambda r: tf.parse_single_example(r, _FIXED))
        got = _outcomes(lambda: d)
    assert got[-1] == "end" and len(got) == 8
    for (f6, i2, s), w in zip(got[:-1], want):  # (the keys in sorted order)
        assert s.shape == () and s[()] == w.get("s", [b"none"])[0]
        assert i2.dtype == np.int64 and i2.tolist() == w.get("i2", [-1, -2])
        assert f6.dtype == np.float32 and f6.shape == (2, 3)
        np.testing.assert_array_equal(
            f6, np.asarray(w.get("f6", [0.5] * 6), np.float32).reshape(2, 3))


@pytest.mark.parametrize("bad, msg", [
    # TF 1.15's ParseSingleExample words (no name or index; a wrong count is "Can't parse")
    ({"i2": [1, 2, 3]}, r"^Key: i2.  Can't parse serialized Example."),
    ({"s": [1]}, (r"^Key: s.  Data types don't match. Data type: int64 but expected type: "
                 r"string")),
    ({"f6": [1.0]}, r"^Key: f6.  Can't parse serialized Example."),
])
def test_parse_single_example_fixed_key_errors(bad, msg):
    with tf.Graph().as_default():
        out = tf.parse_single_example(tf.constant(_example(**bad)), _FIXED)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            sess.run(out)
        req = tf.parse_single_example(tf.constant(_example(b=[1])),
                                      {"a": tf.FixedLenFeature([], tf.int64)})
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="is required but could not be found"):
            sess.run(req)


# ------------------------------------------------------------------------------------------
# from_tensor_slices: rows split a chunk at a time
# ------------------------------------------------------------------------------------------


def test_tensor_slices_chunks_give_every_row_in_order():
    n = 2 * dv._SLICE_CHUNK + 37  # parts of three chunks
    a = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    b = np.arange(n, dtype=np.int64) * 7
    c = np.array([b"r%d" % k for k in range(n)], dtype=object)
    with tf.Graph().as_default():
        nxt = D.from_tensor_slices({"a": a, "b": b, "c": c}).make_one_shot_iterator(
        ).get_next()
        with tf.Session() as sess:
            got = [sess.run(nxt) for _ in range(n)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
    for k in (0, 1, dv._SLICE_CHUNK - 1, dv._SLICE_CHUNK, n - 1):
        np.testing.assert_array_equal(got[k]["a"], a[k])
        assert got[k]["a"].dtype == np.float32 and got[k]["b"] == 7 * k
        assert got[k]["c"] == b"r%d" % k
    assert [int(g["b"]) for g in got] == b.tolist()


def test_tensor_slices_sparse_and_batched_after_repeat():
    st = tf.SparseTensorValue(indices=[[0, 1], [2, 0], [2, 2]], values=[1.0, 2.0, 3.0],
                              dense_shape=[3, 3])
    with tf.Graph().as_default():
        d = D.from_tensor_slices((st, np.arange(3))).repeat(2).batch(4)
        nxt = d.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            s1, i1 = sess.run(nxt)
            s2, i2 = sess.run(nxt)
    assert i1.tolist() == [0, 1, 2, 0] and i2.tolist() == [1, 2]
    assert s1.indices.tolist() == [[0, 1], [2, 0], [2, 2], [3, 1]]
    assert s1.values.tolist() == [1.0, 2.0, 3.0, 1.0]
    assert s2.indices.tolist() == [[1, 0], [1, 2]] and s2.dense_shape.tolist() == [2, 3]


# ------------------------------------------------------------------------------------------
# shuffle: Philox words taken through an iterator, same order
# ------------------------------------------------------------------------------------------


def test_philox_word_iterator_matches_calls():
    a, b = dv.PhiloxWords(5, 9), dv.PhiloxWords(5, 9)
    first = [a() for _ in range(700)]
    assert [b() for _ in range(700)] == first
    rest = b.take_words()
    want = [a() for _ in range(3 * 1024 + 5)]  # across several blocks
    assert [next(rest) for _ in range(len(want))] == want


def _ring_shuffle(values, size, seed, seed2):
    # the ring buffer of TF's ShuffleDataset, drawn with PhiloxWords' own calls
    import itertools

    rand = dv.PhiloxWords(seed, seed2)
    src = iter(values)
    buf = list(itertools.islice(src, size))
    start, end, out = 0, len(buf), []
    for v in src:
        i = (start + rand() % (end - start)) % size
        out.append(buf[i])
        buf[i], buf[start % size] = buf[start % size], v
        start, end = start + 1, end + 1
    while end > start:
        i = (start + rand() % (end - start)) % size
        out.append(buf[i])
        buf[i], buf[start % size] = buf[start % size], None
        start += 1
    return out


@pytest.mark.parametrize("n, size", [(10, 3), (300, 64), (3000, 1000), (5, 20)])
def test_shuffle_order_matches_the_ring(n, size):
    for seed, seed2 in ((11, 7), (1, 2**40 + 3)):
        shuffled = dv.Shuffle(dv.Range(0, n, 1), size, seed, seed2, False)
        rt = dv.IterRuntime()
        got = [int(e[0]) for e in shuffled.iterate(rt)]
        rt.close()
        assert sorted(got) == list(range(n))
        assert got == _ring_shuffle(list(range(n)), size, seed, seed2)


def test_batch_goes_on_after_an_input_error():
    # TF 2.21 (compat.v1) gave [[-0, -0], error, [0, 0], [0, 0], end] for this pipeline: the
    # batch holding the failed element is dropped, the next batch starts after it
    def fn(x):
        return tf.check_numerics(1.0 / tf.cast(x - 3, tf.float32) * 0.0, "bad")

    for par in (None, 2):
        got = _outcomes(lambda: D.range(8).map(fn, num_parallel_calls=par).batch(2))  # noqa: B023
        assert [o if isinstance(o, str) else (o[0] if isinstance(o, tuple) else
                                              o[0].tolist()) for o in got] == [
            [-0.0, -0.0], "InvalidArgumentError", [0.0, 0.0], [0.0, 0.0], "end"]
    got = _outcomes(lambda: D.range(7).map(fn).batch(2, drop_remainder=True))
    assert [o if isinstance(o, str) else (o[0] if isinstance(o, tuple) else
                                          o[0].tolist()) for o in got] == [
        [-0.0, -0.0], "InvalidArgumentError", [0.0, 0.0], "end"]
