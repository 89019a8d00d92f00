"""kernels.scatter.rows_at must apply exactly what ufunc.at applies, in the same order."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tideflow as tf
from tideflow.kernels.scatter import rows_at


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 40), width=st.sampled_from([1, 3, 32, 40]),
       n=st.integers(0, 120), seed=st.integers(0, 2**31 - 1),
       ufunc=st.sampled_from([np.add, np.subtract, np.multiply, np.maximum, np.minimum]))
def test_rows_at_is_bitwise_ufunc_at(rows, width, n, seed, ufunc):
    rng = np.random.RandomState(seed)
    out = rng.standard_normal((rows, width)).astype(np.float32)
    idx = rng.randint(0, rows, n)
    upd = rng.standard_normal((n, width)).astype(np.float32)
    want = out.copy()
    ufunc.at(want, idx, upd)
    rows_at(ufunc, out, idx, upd)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("hi", [1000, 40, 3])  # no, some and mostly repeated indices
def test_rows_at_three_dim_rows_and_index_shapes(hi):
    rng = np.random.RandomState(hi)
    out = rng.standard_normal((1000, 4, 16)).astype(np.float64)
    idx = rng.randint(0, hi, (20, 5))
    upd = rng.standard_normal((20, 5, 4, 16))
    want = out.copy()
    np.add.at(want, idx, upd)
    rows_at(np.add, out, idx, upd)
    np.testing.assert_array_equal(out, want)


def test_scatter_sub_and_unsorted_segment_sum_with_repeated_rows():
    rng = np.random.RandomState(0)
    init = rng.standard_normal((500, 64)).astype(np.float32)
    idx = np.concatenate([rng.permutation(500)[:100], [7, 7, 7, 42, 42]])
    upd = rng.standard_normal((idx.size, 64)).astype(np.float32)
    with tf.Graph().as_default():
        v = tf.Variable(init)
        sub = tf.scatter_sub(v, idx, upd)
        seg = tf.unsorted_segment_sum(upd, idx, 500)
        with tf.Session() as sess:
            sess.run(v.initializer)
            got_sub, got_seg = sess.run([sub, seg])
    want_sub = init.copy()
    np.subtract.at(want_sub, idx, upd)
    want_seg = np.zeros((500, 64), np.float32)
    np.add.at(want_seg, idx, upd)
    np.testing.assert_array_equal(got_sub, want_sub)
    np.testing.assert_array_equal(got_seg, want_seg)


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.maximum])
def test_rounds_of_distinct_indices_match_ufunc_at_bitwise(ufunc):
    # an embedding gradient's shape: 640 lookups into 50 rows (every row about 13 times)
    rng = np.random.RandomState(3)
    out = rng.standard_normal((50, 64)).astype(np.float32)
    idx = rng.randint(0, 50, 640)
    upd = rng.standard_normal((640, 64)).astype(np.float32)
    want = out.copy()
    ufunc.at(want, idx, upd)
    rows_at(ufunc, out, idx, upd)
    np.testing.assert_array_equal(out, want)


def test_negative_indices_and_one_hot_row_fall_back_to_ufunc_at():
    rng = np.random.RandomState(4)
    for idx in (np.array([-1, 49, 3, -1] * 8), np.array([7] * 100 + list(range(20)))):
        out = rng.standard_normal((50, 40))
        upd = rng.standard_normal((idx.size, 40))
        want = out.copy()
        np.add.at(want, idx, upd)
        rows_at(np.add, out, idx, upd)
        np.testing.assert_array_equal(out, want)
