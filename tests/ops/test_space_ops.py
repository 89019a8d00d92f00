"""Errors, static shapes and round trips of the space/depth/batch ops, extract_image_patches
and bitcast."""

import numpy as np
import pytest

import tideflow as tf


def _run(t, feed=None):
    with tf.Session(graph=tf.get_default_graph()) as sess:
        return sess.run(t, feed)


def test_space_to_depth_shape_errors_name_op_and_shape():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 2 but "
                                             r"is 5 for 'SpaceToDepth'"):  # TF 1.15's
            tf.space_to_depth(tf.zeros([1, 4, 5, 3]), 2)
        with pytest.raises(ValueError, match=r"^Shape must be rank 4 but is rank 3 .*\[4,4,3\]"):
            tf.space_to_depth(tf.zeros([4, 4, 3]), 2)
        with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 4 but is 6"):
            tf.depth_to_space(tf.zeros([1, 2, 2, 6]), 2)
        with pytest.raises(ValueError, match="block_size"):
            tf.space_to_depth(tf.zeros([1, 4, 4, 3]), 1)


def test_space_to_depth_runtime_error_on_unknown_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        y = tf.depth_to_space(x, 2)
        assert y.get_shape().as_list() == [None] * 4
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^Input depth dimension 3 should be divisible by: 4\n"):
            _run(y, {x: np.zeros((1, 2, 2, 3), np.float32)})


def test_space_to_depth_partial_shape_and_nchw_round_trip():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 6, 3])
        assert tf.space_to_depth(x, 2).get_shape().as_list() == [None, 2, 3, 12]
        y = tf.placeholder(tf.float32, [2, 12, None, 4])
        assert tf.depth_to_space(y, 2, data_format="NCHW").get_shape().as_list() == [
            2, 3, None, 8]
        v = np.random.RandomState(0).rand(2, 12, 3, 4).astype(np.float32)
        back = tf.space_to_depth(tf.depth_to_space(y, 2, data_format="NCHW"), 2,
                                 data_format="NCHW")
        np.testing.assert_array_equal(_run(back, {y: v}), v)


def test_space_to_batch_nd_errors():
    with tf.Graph().as_default():
        x = tf.zeros([2, 5, 4, 3])
        with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 2 but "
                                             r"is 5 for 'SpaceToBatchND'"):
            tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
        with pytest.raises(ValueError, match=r"paddings should have shape \[2, 2\].*\[1,2\]"):
            tf.space_to_batch_nd(x, [2, 2], [[1, 0]])
        # (TF 1.15's shape function's words, measured)
        with pytest.raises(ValueError, match="^paddings cannot be negative"):
            tf.space_to_batch_nd(x, [2, 2], [[1, 0], [-1, 1]])
        with pytest.raises(ValueError, match=r"^Shape must be at least rank 5 but is rank 4"):
            tf.space_to_batch_nd(x, [1, 1, 1, 1], np.zeros((4, 2), np.int32))
        with pytest.raises(ValueError, match="^block_shape must be positive"):
            tf.space_to_batch_nd(x, [1, 0], [[0, 0], [0, 0]])


def test_batch_to_space_nd_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 2 but "
                                             r"is 3 for 'BatchToSpaceND'"):  # block by block
            tf.batch_to_space_nd(tf.zeros([6, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])
        with pytest.raises(ValueError, match="^Negative dimension size caused by subtracting 2 "
                                             "from 1"):  # TF 1.15: crop by crop
            tf.batch_to_space_nd(tf.zeros([4, 2, 2, 1]), [2, 2], [[3, 2], [0, 0]])
        with pytest.raises(ValueError, match="space_to_batch: input must be 4-D"):
            tf.space_to_batch(tf.zeros([4, 4, 4]), [[0, 0], [0, 0]], 2)


def test_space_to_batch_nd_fed_block_runtime_errors_and_shapes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 5, 7])
        k = tf.placeholder(tf.int32, [1])
        p = tf.placeholder(tf.int32, [1, 2])
        y = tf.space_to_batch_nd(x, k, p)
        assert y.get_shape().as_list() == [None, None, 7]
        v = np.zeros((2, 5, 7), np.float32)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^padded_shape\[0\]=5 is not divisible by "
                                 r"block_shape\[0\]=2"):  # TF 1.15's words
            _run(y, {x: v, k: [2], p: [[0, 0]]})
        assert _run(y, {x: v, k: [2], p: [[1, 0]]}).shape == (4, 3, 7)


def test_space_to_batch_round_trip_and_gradient_names():
    with tf.Graph().as_default():
        v = np.random.RandomState(1).rand(1, 4, 6, 2)
        x = tf.constant(v)
        y = tf.space_to_batch(x, [[0, 2], [1, 1]], 2)
        assert y.op.type == "SpaceToBatchND" and y.get_shape().as_list() == [4, 3, 4, 2]
        z = tf.batch_to_space(y, [[0, 2], [1, 1]], 2)
        assert z.op.type == "BatchToSpaceND"
        g = tf.gradients(tf.reduce_sum(y * y), x)[0]
        assert g.op.type == "BatchToSpaceND"
        zv, gv = _run([z, g])
        np.testing.assert_array_equal(zv, v)
        np.testing.assert_allclose(gv, 2 * v)


def test_extract_image_patches_errors_and_shapes():
    with tf.Graph().as_default():
        # a window over the batch builds (as TF's shape function) and fails when first run
        over_batch = tf.extract_image_patches(tf.zeros([1, 4, 4, 1]), [2, 2, 2, 1],
                                              [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        with pytest.raises(tf.errors.UnimplementedError, match="Only support ksizes across"):
            _run(over_batch)
        # (TF 1.15's words)
        with pytest.raises(ValueError, match=r"^Shape must be rank 4 but is rank 3 .*\[4,4,1\]"):
            tf.extract_image_patches(tf.zeros([4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1],
                                     [1, 1, 1, 1], "VALID")
        with pytest.raises(ValueError, match="padding"):
            tf.extract_image_patches(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1],
                                     [1, 1, 1, 1], "FULL")
        x = tf.placeholder(tf.float32, [None, 7, None, 3])
        y = tf.extract_image_patches(x, [1, 3, 2, 1], [1, 2, 1, 1], [1, 2, 1, 1], "VALID")
        # effective kernel rows 3 + 2 * 1 = 5: (7 - 5) // 2 + 1 = 2 output rows, though TF
        # 1.15's shape function leaves rows and cols unknown when either is
        assert y.get_shape().as_list() == [None, None, None, 18]
        v = np.ones((1, 7, 4, 3), np.float32)
        assert _run(y, {x: v}).shape == (1, 2, 3, 18)
        # the gradient does not need rows/cols statically (TF 1.15's grad test feeds them)
        (g,) = tf.gradients(tf.reduce_sum(y), x)
        # rows 0, 2, 4 and 2, 4, 6 are read (rate 2); cols 0-1, 1-2, 2-3 (3 patches)
        counts = _run(g, {x: v})[0, :, :, 0]
        np.testing.assert_array_equal(counts, np.outer([1, 0, 2, 0, 2, 0, 1], [1, 2, 2, 1]))


def test_extract_image_patches_gradient_counts_overlaps():
    with tf.Graph().as_default():
        x = tf.constant(np.zeros((1, 3, 3, 1)))
        y = tf.extract_image_patches(x, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        g = _run(tf.gradients(tf.reduce_sum(y), x)[0])
        np.testing.assert_array_equal(g[0, :, :, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_bitcast_shape_rule_and_errors():
    with tf.Graph().as_default():
        assert tf.bitcast(tf.zeros([2, 3], tf.float64), tf.uint8).get_shape().as_list() == [
            2, 3, 8]
        assert tf.bitcast(tf.zeros([2, 4], tf.uint16), tf.uint64).get_shape().as_list() == [2]
        with pytest.raises(ValueError, match=r"^Cannot bitcast due to shape\. 3 does not "
                                             r"match 4"):
            tf.bitcast(tf.zeros([2, 3], tf.uint8), tf.int32)
        with pytest.raises(TypeError):
            tf.bitcast(tf.zeros([2], tf.float32), tf.string)
        x = tf.placeholder(tf.uint8)
        y = tf.bitcast(x, tf.int16)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Cannot bitcast from 4 to 5"):
            _run(y, {x: np.zeros((3, 3), np.uint8)})
        np.testing.assert_array_equal(_run(y, {x: np.array([[1, 0], [0, 1]], np.uint8)}),
                                      np.array([[1, 0], [0, 1]], np.uint8).view(np.int16)[:, 0])
        z = tf.zeros([2])
        b = tf.bitcast(z, tf.int32)
        assert b.op.type == "Bitcast"
        assert tf.gradients(tf.reduce_sum(tf.to_float(b)), z) == [None]


def test_mirror_pad_limits_are_checked_when_run_not_built():
    # as TF: MirrorPad's shape function is Pad's; the paddings' limit is the kernel's
    with tf.Graph().as_default():
        x = tf.zeros([3, 2])
        r_bad = tf.pad(x, [[3, 0], [0, 0]], "REFLECT")
        s_bad = tf.pad(x, [[0, 0], [0, 3]], mode="symmetric")
        assert r_bad.get_shape().as_list() == [6, 2]
        assert s_bad.get_shape().as_list() == [3, 5]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^paddings must be less than the dimension size: 3, 0 not "
                                 r"less than 3\n"):
            _run(r_bad)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^paddings must be no greater than the dimension size: 0, 3 "
                                 r"greater than 2\n"):
            _run(s_bad)
        # at the limits both modes build and run
        r = tf.pad(x, [[2, 2], [1, 0]], "REFLECT")
        s = tf.pad(x, [[3, 3], [2, 2]], "SYMMETRIC")
        assert r.get_shape().as_list() == [7, 3] and s.get_shape().as_list() == [9, 6]
        assert _run(s).shape == (9, 6)
        p = tf.placeholder(tf.int32, [2, 2])
        y = tf.pad(x, p, "REFLECT")
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"3, 0 not less than 3"):
            _run(y, {p: [[3, 0], [0, 0]]})


def test_legacy_space_to_batch_ops_check_rank_and_differentiate_to_each_other():
    from tideflow.framework import ops

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"SpaceToBatch: input must be 4-D.*\[2,4,4\]"):
            ops.apply_op("SpaceToBatch", [tf.zeros([2, 4, 4]), [[0, 0], [0, 0]]],
                         {"block_size": 2})
        with pytest.raises(ValueError, match=r"^Dimension size must be evenly divisible by 2 but is 1"):
            ops.apply_op("BatchToSpace", [tf.zeros([2, 4, 4, 1]), [[0, 0], [0, 0]]],
                         {"block_size": 2})
        x = tf.constant(np.arange(16.0).reshape(1, 4, 4, 1))
        y = ops.apply_op("SpaceToBatch", [x, [[0, 0], [0, 0]]], {"block_size": 2})._outputs[0]
        g = tf.gradients(tf.reduce_sum(y * y), x)[0]
        assert g.op.type == "BatchToSpace"
        np.testing.assert_allclose(_run(g), 2 * np.arange(16.0).reshape(1, 4, 4, 1))


def test_newer_keyword_spellings():
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 4, 1])
        assert tf.space_to_batch(x, [[0, 0], [0, 0]], block_shape=[2, 2]).get_shape().as_list(
        ) == [4, 2, 2, 1]
        assert tf.batch_to_space(tf.zeros([4, 2, 2, 1]), [[0, 0], [0, 0]],
                                 block_shape=[2, 1]).get_shape().as_list() == [2, 4, 2, 1]
        with pytest.raises(ValueError, match="both 'block_size' and 'block_shape'"):
            tf.space_to_batch(x, [[0, 0], [0, 0]], 2, block_shape=[2, 2])
        p = tf.extract_image_patches(x, sizes=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                                     rates=[1, 1, 1, 1], padding="VALID")
        assert p.get_shape().as_list() == [1, 2, 2, 4]
        with pytest.raises(TypeError, match="'rates'"):
            tf.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], padding="VALID")
