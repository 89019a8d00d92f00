"""TF 1.15 kernel-test parity, miscellaneous ops: what an audit of TF's own tests for
logging, histogram, set, sort and partitioned-variable ops found different in tideflow.

Covers tf.Print's gradient (it passes through to the printed input, the data list gets none),
histogram_fixed_width's shape-function errors (TF's "Shape must be rank N" and "Dimension must
be 2" wording, "Requires nbins > 0" at graph construction), histogram_fixed_width_bins rejecting a
known non-positive nbins, and the ``tensorflow.python.ops`` module paths TF's tests import
(histogram_ops, sets, sets_impl, sort_ops). Expected values come from NumPy.
"""

import numpy as np
import pytest

import tideflow as tf


def test_print_gradient_passes_through_to_input():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float64).reshape(2, 3))
        w = tf.constant([1.5, -2.0, 0.5], dtype=tf.float64)
        printed = tf.Print(x * w, [w, x, "text"], message="dbg ")
        loss = tf.reduce_sum(printed * printed)
        gx, gw = tf.gradients(loss, [x, w])
        with tf.Session() as sess:
            gx_v, gw_v = sess.run([gx, gw])
    xv = np.arange(6.0).reshape(2, 3)
    wv = np.array([1.5, -2.0, 0.5])
    np.testing.assert_allclose(gx_v, 2 * xv * wv * wv)
    np.testing.assert_allclose(gw_v, (2 * xv * wv * xv).sum(axis=0))


def test_print_gradient_keeps_static_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        g, = tf.gradients(tf.Print(x, [x]), [x])
        assert g.get_shape().as_list() == [None, 4]


def test_histogram_fixed_width_shape_errors_use_tf_wording():
    values = [-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
            tf.histogram_fixed_width(values, 1.0)
        with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
            tf.histogram_fixed_width(values, [1.0, 2.0, 3.0])
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.histogram_fixed_width(values, [1.0, 5.0], nbins=[1, 2])
        with pytest.raises(ValueError, match="Requires nbins > 0: -5"):
            tf.histogram_fixed_width(values, [1.0, 5.0], nbins=-5)


def test_histogram_fixed_width_runtime_nbins_check():
    with tf.Graph().as_default():
        nbins = tf.placeholder(tf.int32, [])
        hist = tf.histogram_fixed_width([0.5, 1.5, 9.0], [0.0, 10.0], nbins=nbins)
        assert hist.shape.as_list() == [None]
        with tf.Session() as sess:
            got = sess.run(hist, {nbins: 4})
            np.testing.assert_array_equal(got, np.histogram([0.5, 1.5, 9.0], 4, (0, 10))[0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="positive"):
                sess.run(hist, {nbins: 0})


def test_histogram_fixed_width_bins_rejects_non_positive_nbins():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must > 0"):
            tf.histogram_fixed_width_bins([1.0, 2.0], [0.0, 5.0], nbins=-1)
        bins = tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0],
                                             nbins=5)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(bins), [0, 0, 1, 2, 4, 4])


def test_python_ops_module_paths_for_histogram_sets_sort():
    from tideflow.python.ops import histogram_ops, sets, sets_impl, sort_ops

    assert histogram_ops.histogram_fixed_width is tf.histogram_fixed_width
    assert histogram_ops.histogram_fixed_width_bins is tf.histogram_fixed_width_bins
    assert sets.set_intersection is tf.sets.set_intersection
    assert sets_impl.set_size is tf.sets.set_size
    assert sort_ops.sort is tf.sort and sort_ops.argsort is tf.argsort


def test_depthwise_conv_input_gradient_needs_no_feed_when_shape_is_static():
    # TF's depthwise gradient sizes the input gradient with array_ops.shape (a constant for a
    # fully known static shape): the input gradient depends on the filter only
    rng = np.random.RandomState(3)
    fv = rng.uniform(-1, 1, size=(2, 2, 3, 2))
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [1, 4, 4, 3])
        f = tf.constant(fv)
        out = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME")
        gx, = tf.gradients(out, x)
        with tf.Session() as sess:
            got = sess.run(gx)
    # SAME with a 2x2 filter pads one row/column after: out[i, j] reads x[i + di, j + dj]
    want = np.zeros((1, 4, 4, 3))
    for p in range(4):
        for q in range(4):
            for di in range(2):
                for dj in range(2):
                    if 0 <= p - di < 4 and 0 <= q - dj < 4:
                        want[0, p, q] += fv[di, dj].sum(axis=1)
    np.testing.assert_allclose(got, want)


def test_conv3d_input_gradient_needs_no_feed_when_shape_is_static():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [1, 3, 3, 3, 1])
        out = tf.nn.conv3d(x, tf.ones([1, 1, 1, 1, 2], tf.float64), [1, 1, 1, 1, 1], "VALID")
        gx, = tf.gradients(out, x)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(gx), np.full((1, 3, 3, 3, 1), 2.0))


def _sets_sparse(indices, values, shape):
    return tf.SparseTensor(indices, tf.constant(values, tf.int64), shape)


def test_set_ops_validate_sparse_index_order_by_default():
    dense = np.array([[3, 2, 7], [5, 9, 9]], np.int64)
    with tf.Graph().as_default(), tf.Session() as sess:
        unordered = _sets_sparse([[0, 1], [0, 0]], [3, 5], [2, 3])
        repeated = _sets_sparse([[0, 1], [0, 1]], [3, 5], [2, 3])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = \[0,0\] is out of order"):
            sess.run(tf.sets.set_union(unordered, dense))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = \[0,1\] is repeated"):
            sess.run(tf.sets.set_size(repeated))
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of order"):
            sess.run(tf.sets.set_intersection(unordered, unordered))
        # validate_indices=False takes the indices as given
        u = sess.run(tf.sets.set_union(unordered, dense, validate_indices=False))
        np.testing.assert_array_equal(u.values, sorted({3, 5} | {3, 2, 7}) + [5, 9])
        np.testing.assert_array_equal(
            sess.run(tf.sets.set_size(unordered, validate_indices=False)), [2, 0])


def test_ctc_decoders_sequence_longer_than_input_is_failed_precondition():
    logits = np.log(np.full((4, 1, 3), 1.0 / 3, np.float32))
    with tf.Graph().as_default():
        greedy, _ = tf.nn.ctc_greedy_decoder(logits, [5])
        beam, _ = tf.nn.ctc_beam_search_decoder(logits, [5], beam_width=2, top_paths=1)
        with tf.Session() as sess:
            for decoded in (greedy, beam):
                with pytest.raises(tf.errors.FailedPreconditionError,
                                   match=r"sequence_length\(0\) <= 4"):
                    sess.run(decoded[0].values)


def test_fractional_pool_ratio_checks():
    x = np.arange(32, dtype=np.float32).reshape(1, 4, 8, 1)
    with tf.Graph().as_default():
        for pool in (tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool):
            with pytest.raises(ValueError, match="pooling_ratio cannot be smaller than 1, got: 0.5"):
                pool(x, [1.0, 0.5, 2.0, 1.0])
        y = tf.nn.fractional_max_pool(x, [2.0, 2.0, 2.0, 1.0])[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.UnimplementedError, match="batch nor channel"):
                sess.run(y)
            # ratio 2 over a 4x8 image without overlap: 2x2 blocks, so max pooling is exact
            out, rows, cols = sess.run(tf.nn.fractional_max_pool(
                x, [1.0, 2.0, 2.0, 1.0], deterministic=True, seed=1, seed2=1))
    np.testing.assert_array_equal(rows, [0, 2, 4])
    np.testing.assert_array_equal(cols, [0, 2, 4, 6, 8])
    np.testing.assert_array_equal(out[0, :, :, 0], x[0, :, :, 0].reshape(2, 2, 4, 2).max(axis=(1, 3)))


def test_edit_distance_rank_mismatch_fails_at_graph_construction():
    with tf.Graph().as_default():
        hyp = tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1])
        truth = tf.SparseTensor([[0, 0, 0]], tf.constant([1], tf.int64), [1, 1, 1])
        with pytest.raises(ValueError, match="hypothesis_shape does not match truth_shape: 2 vs. 3"):
            tf.edit_distance(hyp, truth)
        # same rank: "abc" against "abd" is one substitution in three
        hyp = tf.SparseTensor([[0, 0, i] for i in range(3)], [1, 2, 3], [1, 1, 3])
        truth = tf.SparseTensor([[0, 0, i] for i in range(3)], [1, 2, 4], [1, 1, 3])
        dist = tf.edit_distance(hyp, truth)
        assert dist.shape.as_list() == [1, 1]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(dist), [[1.0 / 3]], rtol=1e-6)


def test_dense_set_ops_group_dimensions_must_agree_at_graph_construction():
    a = np.array([[1, 2, 3], [4, 5, 5]], np.int64)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 "
                                             "and 1"):
            tf.sets.set_union(a, np.array([[1, 2]], np.int64))
        # only the last dimension (the set) may differ
        u = tf.sets.set_union(a, np.array([[9], [1]], np.int64))
        with tf.Session() as sess:
            got = sess.run(u)
    np.testing.assert_array_equal(got.values, [1, 2, 3, 9, 1, 4, 5])
    np.testing.assert_array_equal(got.dense_shape, [2, 4])


def test_dynamic_partition_and_stitch_shape_errors_use_tf_wording():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.dynamic_partition([10, 20], [1, 0, 1], 3)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.dynamic_stitch([[0, 1]], [[1.0, 2.0, 3.0]])
        parts = tf.dynamic_partition([[1, 2], [3, 4], [5, 6]], [1, 0, 1], 2)
        assert [p.shape.as_list() for p in parts] == [[None, 2], [None, 2]]
        with tf.Session() as sess:
            p0, p1 = sess.run(parts)
    np.testing.assert_array_equal(p0, [[3, 4]])
    np.testing.assert_array_equal(p1, [[1, 2], [5, 6]])
