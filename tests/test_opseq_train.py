"""Op-sequence parity with TF 1.15 for what training programs build before their random ops
(losses, cross entropies, gradients, optimizers, initializers): the same op names and types in
the same order, so that ops seeded from the graph's op count draw TF's numbers. The expected
lists were printed by TF 1.15.0 for the same code."""

import textwrap

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _op_list(code):
    g = tf.get_default_graph()
    tf.set_random_seed(1)
    exec(code, {"tf": tf, "np": np})  # noqa: S102 - the snippets are our own literals
    return [f"{op.name} {op.type}" for op in g.get_operations()]


def _want(text):
    return [line for line in textwrap.dedent(text).strip().splitlines()]


LOSS_CASES = [
    (
        'l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.mean_squared_error(l, p)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        mean_squared_error/SquaredDifference SquaredDifference
        mean_squared_error/assert_broadcastable/weights Const
        mean_squared_error/assert_broadcastable/weights/shape Const
        mean_squared_error/assert_broadcastable/weights/rank Const
        mean_squared_error/assert_broadcastable/values/shape Shape
        mean_squared_error/assert_broadcastable/values/rank Const
        mean_squared_error/assert_broadcastable/static_scalar_check_success NoOp
        mean_squared_error/Cast/x Const
        mean_squared_error/Mul Mul
        mean_squared_error/Const Const
        mean_squared_error/Sum Sum
        mean_squared_error/num_present/Equal/y Const
        mean_squared_error/num_present/Equal Equal
        mean_squared_error/num_present/zeros_like Const
        mean_squared_error/num_present/ones_like/Shape Const
        mean_squared_error/num_present/ones_like/Const Const
        mean_squared_error/num_present/ones_like Fill
        mean_squared_error/num_present/Select Select
        mean_squared_error/num_present/broadcast_weights/assert_broadcastable/weights/shape Const
        mean_squared_error/num_present/broadcast_weights/assert_broadcastable/weights/rank Const
        mean_squared_error/num_present/broadcast_weights/assert_broadcastable/values/shape Shape
        mean_squared_error/num_present/broadcast_weights/assert_broadcastable/values/rank Const
        mean_squared_error/num_present/broadcast_weights/assert_broadcastable/static_scalar_check_success NoOp
        mean_squared_error/num_present/broadcast_weights/ones_like/Shape Shape
        mean_squared_error/num_present/broadcast_weights/ones_like/Const Const
        mean_squared_error/num_present/broadcast_weights/ones_like Fill
        mean_squared_error/num_present/broadcast_weights Mul
        mean_squared_error/num_present/Const Const
        mean_squared_error/num_present Sum
        mean_squared_error/Const_1 Const
        mean_squared_error/Sum_1 Sum
        mean_squared_error/value DivNoNan
        """,
    ),
    (
        'l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.absolute_difference(l, p, weights=2.0, reduction=tf.losses.Reduction.SUM)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        absolute_difference/Sub Sub
        absolute_difference/Abs Abs
        absolute_difference/assert_broadcastable/weights Const
        absolute_difference/assert_broadcastable/weights/shape Const
        absolute_difference/assert_broadcastable/weights/rank Const
        absolute_difference/assert_broadcastable/values/shape Shape
        absolute_difference/assert_broadcastable/values/rank Const
        absolute_difference/assert_broadcastable/static_scalar_check_success NoOp
        absolute_difference/Cast/x Const
        absolute_difference/Mul Mul
        absolute_difference/Const Const
        absolute_difference/Sum Sum
        """,
    ),
    (
        'l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.softmax_cross_entropy(l, p)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        softmax_cross_entropy_loss/labels_stop_gradient StopGradient
        softmax_cross_entropy_loss/xentropy/Rank Const
        softmax_cross_entropy_loss/xentropy/Shape Shape
        softmax_cross_entropy_loss/xentropy/Rank_1 Const
        softmax_cross_entropy_loss/xentropy/Shape_1 Shape
        softmax_cross_entropy_loss/xentropy/Sub/y Const
        softmax_cross_entropy_loss/xentropy/Sub Sub
        softmax_cross_entropy_loss/xentropy/Slice/begin Pack
        softmax_cross_entropy_loss/xentropy/Slice/size Const
        softmax_cross_entropy_loss/xentropy/Slice Slice
        softmax_cross_entropy_loss/xentropy/concat/values_0 Const
        softmax_cross_entropy_loss/xentropy/concat/axis Const
        softmax_cross_entropy_loss/xentropy/concat ConcatV2
        softmax_cross_entropy_loss/xentropy/Reshape Reshape
        softmax_cross_entropy_loss/xentropy/Rank_2 Const
        softmax_cross_entropy_loss/xentropy/Shape_2 Shape
        softmax_cross_entropy_loss/xentropy/Sub_1/y Const
        softmax_cross_entropy_loss/xentropy/Sub_1 Sub
        softmax_cross_entropy_loss/xentropy/Slice_1/begin Pack
        softmax_cross_entropy_loss/xentropy/Slice_1/size Const
        softmax_cross_entropy_loss/xentropy/Slice_1 Slice
        softmax_cross_entropy_loss/xentropy/concat_1/values_0 Const
        softmax_cross_entropy_loss/xentropy/concat_1/axis Const
        softmax_cross_entropy_loss/xentropy/concat_1 ConcatV2
        softmax_cross_entropy_loss/xentropy/Reshape_1 Reshape
        softmax_cross_entropy_loss/xentropy SoftmaxCrossEntropyWithLogits
        softmax_cross_entropy_loss/xentropy/Sub_2/y Const
        softmax_cross_entropy_loss/xentropy/Sub_2 Sub
        softmax_cross_entropy_loss/xentropy/Slice_2/begin Const
        softmax_cross_entropy_loss/xentropy/Slice_2/size Pack
        softmax_cross_entropy_loss/xentropy/Slice_2 Slice
        softmax_cross_entropy_loss/xentropy/Reshape_2 Reshape
        softmax_cross_entropy_loss/assert_broadcastable/weights Const
        softmax_cross_entropy_loss/assert_broadcastable/weights/shape Const
        softmax_cross_entropy_loss/assert_broadcastable/weights/rank Const
        softmax_cross_entropy_loss/assert_broadcastable/values/shape Shape
        softmax_cross_entropy_loss/assert_broadcastable/values/rank Const
        softmax_cross_entropy_loss/assert_broadcastable/static_scalar_check_success NoOp
        softmax_cross_entropy_loss/Cast/x Const
        softmax_cross_entropy_loss/Mul Mul
        softmax_cross_entropy_loss/Const Const
        softmax_cross_entropy_loss/Sum Sum
        softmax_cross_entropy_loss/num_present/Equal/y Const
        softmax_cross_entropy_loss/num_present/Equal Equal
        softmax_cross_entropy_loss/num_present/zeros_like Const
        softmax_cross_entropy_loss/num_present/ones_like/Shape Const
        softmax_cross_entropy_loss/num_present/ones_like/Const Const
        softmax_cross_entropy_loss/num_present/ones_like Fill
        softmax_cross_entropy_loss/num_present/Select Select
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/weights/shape Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/weights/rank Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/values/shape Shape
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/values/rank Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/static_scalar_check_success NoOp
        softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like/Shape Shape
        softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like/Const Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like Fill
        softmax_cross_entropy_loss/num_present/broadcast_weights Mul
        softmax_cross_entropy_loss/num_present/Const Const
        softmax_cross_entropy_loss/num_present Sum
        softmax_cross_entropy_loss/Const_1 Const
        softmax_cross_entropy_loss/Sum_1 Sum
        softmax_cross_entropy_loss/value DivNoNan
        """,
    ),
    (
        'l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.softmax_cross_entropy(l, p, label_smoothing=0.1, weights=0.5)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        softmax_cross_entropy_loss/Shape Shape
        softmax_cross_entropy_loss/strided_slice/stack Const
        softmax_cross_entropy_loss/strided_slice/stack_1 Const
        softmax_cross_entropy_loss/strided_slice/stack_2 Const
        softmax_cross_entropy_loss/strided_slice StridedSlice
        softmax_cross_entropy_loss/Cast Cast
        softmax_cross_entropy_loss/truediv/x Const
        softmax_cross_entropy_loss/truediv RealDiv
        softmax_cross_entropy_loss/mul/y Const
        softmax_cross_entropy_loss/mul Mul
        softmax_cross_entropy_loss/add AddV2
        softmax_cross_entropy_loss/labels_stop_gradient StopGradient
        softmax_cross_entropy_loss/xentropy/Rank Const
        softmax_cross_entropy_loss/xentropy/Shape Shape
        softmax_cross_entropy_loss/xentropy/Rank_1 Const
        softmax_cross_entropy_loss/xentropy/Shape_1 Shape
        softmax_cross_entropy_loss/xentropy/Sub/y Const
        softmax_cross_entropy_loss/xentropy/Sub Sub
        softmax_cross_entropy_loss/xentropy/Slice/begin Pack
        softmax_cross_entropy_loss/xentropy/Slice/size Const
        softmax_cross_entropy_loss/xentropy/Slice Slice
        softmax_cross_entropy_loss/xentropy/concat/values_0 Const
        softmax_cross_entropy_loss/xentropy/concat/axis Const
        softmax_cross_entropy_loss/xentropy/concat ConcatV2
        softmax_cross_entropy_loss/xentropy/Reshape Reshape
        softmax_cross_entropy_loss/xentropy/Rank_2 Const
        softmax_cross_entropy_loss/xentropy/Shape_2 Shape
        softmax_cross_entropy_loss/xentropy/Sub_1/y Const
        softmax_cross_entropy_loss/xentropy/Sub_1 Sub
        softmax_cross_entropy_loss/xentropy/Slice_1/begin Pack
        softmax_cross_entropy_loss/xentropy/Slice_1/size Const
        softmax_cross_entropy_loss/xentropy/Slice_1 Slice
        softmax_cross_entropy_loss/xentropy/concat_1/values_0 Const
        softmax_cross_entropy_loss/xentropy/concat_1/axis Const
        softmax_cross_entropy_loss/xentropy/concat_1 ConcatV2
        softmax_cross_entropy_loss/xentropy/Reshape_1 Reshape
        softmax_cross_entropy_loss/xentropy SoftmaxCrossEntropyWithLogits
        softmax_cross_entropy_loss/xentropy/Sub_2/y Const
        softmax_cross_entropy_loss/xentropy/Sub_2 Sub
        softmax_cross_entropy_loss/xentropy/Slice_2/begin Const
        softmax_cross_entropy_loss/xentropy/Slice_2/size Pack
        softmax_cross_entropy_loss/xentropy/Slice_2 Slice
        softmax_cross_entropy_loss/xentropy/Reshape_2 Reshape
        softmax_cross_entropy_loss/assert_broadcastable/weights Const
        softmax_cross_entropy_loss/assert_broadcastable/weights/shape Const
        softmax_cross_entropy_loss/assert_broadcastable/weights/rank Const
        softmax_cross_entropy_loss/assert_broadcastable/values/shape Shape
        softmax_cross_entropy_loss/assert_broadcastable/values/rank Const
        softmax_cross_entropy_loss/assert_broadcastable/static_scalar_check_success NoOp
        softmax_cross_entropy_loss/Cast_1/x Const
        softmax_cross_entropy_loss/Mul_1 Mul
        softmax_cross_entropy_loss/Const Const
        softmax_cross_entropy_loss/Sum Sum
        softmax_cross_entropy_loss/num_present/Equal/y Const
        softmax_cross_entropy_loss/num_present/Equal Equal
        softmax_cross_entropy_loss/num_present/zeros_like Const
        softmax_cross_entropy_loss/num_present/ones_like/Shape Const
        softmax_cross_entropy_loss/num_present/ones_like/Const Const
        softmax_cross_entropy_loss/num_present/ones_like Fill
        softmax_cross_entropy_loss/num_present/Select Select
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/weights/shape Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/weights/rank Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/values/shape Shape
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/values/rank Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/static_scalar_check_success NoOp
        softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like/Shape Shape
        softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like/Const Const
        softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like Fill
        softmax_cross_entropy_loss/num_present/broadcast_weights Mul
        softmax_cross_entropy_loss/num_present/Const Const
        softmax_cross_entropy_loss/num_present Sum
        softmax_cross_entropy_loss/Const_1 Const
        softmax_cross_entropy_loss/Sum_1 Sum
        softmax_cross_entropy_loss/value DivNoNan
        """,
    ),
    (
        'l = tf.placeholder(tf.int32, [None]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.sparse_softmax_cross_entropy(l, p)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        sparse_softmax_cross_entropy_loss/Const Const
        sparse_softmax_cross_entropy_loss/xentropy/Shape Shape
        sparse_softmax_cross_entropy_loss/xentropy/xentropy SparseSoftmaxCrossEntropyWithLogits
        sparse_softmax_cross_entropy_loss/assert_broadcastable/weights/shape Const
        sparse_softmax_cross_entropy_loss/assert_broadcastable/weights/rank Const
        sparse_softmax_cross_entropy_loss/assert_broadcastable/values/shape Shape
        sparse_softmax_cross_entropy_loss/assert_broadcastable/values/rank Const
        sparse_softmax_cross_entropy_loss/assert_broadcastable/static_scalar_check_success NoOp
        sparse_softmax_cross_entropy_loss/Mul Mul
        sparse_softmax_cross_entropy_loss/Const_1 Const
        sparse_softmax_cross_entropy_loss/Sum Sum
        sparse_softmax_cross_entropy_loss/num_present/Equal/y Const
        sparse_softmax_cross_entropy_loss/num_present/Equal Equal
        sparse_softmax_cross_entropy_loss/num_present/zeros_like Const
        sparse_softmax_cross_entropy_loss/num_present/ones_like/Shape Const
        sparse_softmax_cross_entropy_loss/num_present/ones_like/Const Const
        sparse_softmax_cross_entropy_loss/num_present/ones_like Fill
        sparse_softmax_cross_entropy_loss/num_present/Select Select
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/weights/shape Const
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/weights/rank Const
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/values/shape Shape
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/values/rank Const
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/assert_broadcastable/static_scalar_check_success NoOp
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like/Shape Shape
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like/Const Const
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights/ones_like Fill
        sparse_softmax_cross_entropy_loss/num_present/broadcast_weights Mul
        sparse_softmax_cross_entropy_loss/num_present/Const Const
        sparse_softmax_cross_entropy_loss/num_present Sum
        sparse_softmax_cross_entropy_loss/Const_2 Const
        sparse_softmax_cross_entropy_loss/Sum_1 Sum
        sparse_softmax_cross_entropy_loss/value DivNoNan
        """,
    ),
    (
        'l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.mean_pairwise_squared_error(l, p)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        mean_pairwise_squared_error/Cast/x Const
        mean_pairwise_squared_error/assert_broadcastable/weights/shape Const
        mean_pairwise_squared_error/assert_broadcastable/weights/rank Const
        mean_pairwise_squared_error/assert_broadcastable/values/shape Shape
        mean_pairwise_squared_error/assert_broadcastable/values/rank Const
        mean_pairwise_squared_error/assert_broadcastable/static_scalar_check_success NoOp
        mean_pairwise_squared_error/Sub Sub
        mean_pairwise_squared_error/Rank Const
        mean_pairwise_squared_error/range/start Const
        mean_pairwise_squared_error/range/delta Const
        mean_pairwise_squared_error/range Range
        mean_pairwise_squared_error/Square Square
        mean_pairwise_squared_error/Sum Sum
        mean_pairwise_squared_error/num_present/Equal/y Const
        mean_pairwise_squared_error/num_present/Equal Equal
        mean_pairwise_squared_error/num_present/zeros_like Const
        mean_pairwise_squared_error/num_present/ones_like/Shape Const
        mean_pairwise_squared_error/num_present/ones_like/Const Const
        mean_pairwise_squared_error/num_present/ones_like Fill
        mean_pairwise_squared_error/num_present/Select Select
        mean_pairwise_squared_error/num_present/broadcast_weights/assert_broadcastable/weights/shape Const
        mean_pairwise_squared_error/num_present/broadcast_weights/assert_broadcastable/weights/rank Const
        mean_pairwise_squared_error/num_present/broadcast_weights/assert_broadcastable/values/shape Shape
        mean_pairwise_squared_error/num_present/broadcast_weights/assert_broadcastable/values/rank Const
        mean_pairwise_squared_error/num_present/broadcast_weights/assert_broadcastable/static_scalar_check_success NoOp
        mean_pairwise_squared_error/num_present/broadcast_weights/ones_like/Shape Shape
        mean_pairwise_squared_error/num_present/broadcast_weights/ones_like/Const Const
        mean_pairwise_squared_error/num_present/broadcast_weights/ones_like Fill
        mean_pairwise_squared_error/num_present/broadcast_weights Mul
        mean_pairwise_squared_error/num_present/Rank Const
        mean_pairwise_squared_error/num_present/range/start Const
        mean_pairwise_squared_error/num_present/range/delta Const
        mean_pairwise_squared_error/num_present/range Range
        mean_pairwise_squared_error/num_present Sum
        mean_pairwise_squared_error/sub_1/y Const
        mean_pairwise_squared_error/sub_1 Sub
        mean_pairwise_squared_error/Maximum/y Const
        mean_pairwise_squared_error/Maximum Maximum
        mean_pairwise_squared_error/value DivNoNan
        mean_pairwise_squared_error/mul/x Const
        mean_pairwise_squared_error/mul Mul
        mean_pairwise_squared_error/Sum_1 Sum
        mean_pairwise_squared_error/Square_1 Square
        mean_pairwise_squared_error/sub_2/y Const
        mean_pairwise_squared_error/sub_2 Sub
        mean_pairwise_squared_error/Mul_1 Mul
        mean_pairwise_squared_error/Maximum_1/y Const
        mean_pairwise_squared_error/Maximum_1 Maximum
        mean_pairwise_squared_error/value_1 DivNoNan
        mean_pairwise_squared_error/mul_2/x Const
        mean_pairwise_squared_error/mul_2 Mul
        mean_pairwise_squared_error/sub_3 Sub
        mean_pairwise_squared_error/Mul_3 Mul
        mean_pairwise_squared_error/Const Const
        mean_pairwise_squared_error/Sum_2 Sum
        mean_pairwise_squared_error/Const_1 Const
        mean_pairwise_squared_error/Sum_3 Sum
        mean_pairwise_squared_error/Greater/y Const
        mean_pairwise_squared_error/Greater Greater
        mean_pairwise_squared_error/zeros_like Const
        mean_pairwise_squared_error/value_2 Select
        """,
    ),
    (
        'l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); a = tf.losses.mean_squared_error(l, p, reduction=tf.losses.Reduction.NONE); b = tf.losses.mean_squared_error(l, p, reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE); c = tf.losses.mean_squared_error(l, p, reduction=tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS)',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        mean_squared_error/SquaredDifference SquaredDifference
        mean_squared_error/assert_broadcastable/weights Const
        mean_squared_error/assert_broadcastable/weights/shape Const
        mean_squared_error/assert_broadcastable/weights/rank Const
        mean_squared_error/assert_broadcastable/values/shape Shape
        mean_squared_error/assert_broadcastable/values/rank Const
        mean_squared_error/assert_broadcastable/static_scalar_check_success NoOp
        mean_squared_error/Cast/x Const
        mean_squared_error/Mul Mul
        mean_squared_error_1/SquaredDifference SquaredDifference
        mean_squared_error_1/assert_broadcastable/weights Const
        mean_squared_error_1/assert_broadcastable/weights/shape Const
        mean_squared_error_1/assert_broadcastable/weights/rank Const
        mean_squared_error_1/assert_broadcastable/values/shape Shape
        mean_squared_error_1/assert_broadcastable/values/rank Const
        mean_squared_error_1/assert_broadcastable/static_scalar_check_success NoOp
        mean_squared_error_1/Cast/x Const
        mean_squared_error_1/Mul Mul
        mean_squared_error_1/Const Const
        mean_squared_error_1/Sum Sum
        mean_squared_error_1/num_elements Size
        mean_squared_error_1/num_elements/Cast Cast
        mean_squared_error_1/Const_1 Const
        mean_squared_error_1/Sum_1 Sum
        mean_squared_error_1/value DivNoNan
        mean_squared_error_2/SquaredDifference SquaredDifference
        mean_squared_error_2/assert_broadcastable/weights Const
        mean_squared_error_2/assert_broadcastable/weights/shape Const
        mean_squared_error_2/assert_broadcastable/weights/rank Const
        mean_squared_error_2/assert_broadcastable/values/shape Shape
        mean_squared_error_2/assert_broadcastable/values/rank Const
        mean_squared_error_2/assert_broadcastable/static_scalar_check_success NoOp
        mean_squared_error_2/Cast/x Const
        mean_squared_error_2/Mul Mul
        mean_squared_error_2/Const Const
        mean_squared_error_2/Sum Sum
        mean_squared_error_2/num_present/Equal/y Const
        mean_squared_error_2/num_present/Equal Equal
        mean_squared_error_2/num_present/zeros_like Const
        mean_squared_error_2/num_present/ones_like/Shape Const
        mean_squared_error_2/num_present/ones_like/Const Const
        mean_squared_error_2/num_present/ones_like Fill
        mean_squared_error_2/num_present/Select Select
        mean_squared_error_2/num_present/broadcast_weights/assert_broadcastable/weights/shape Const
        mean_squared_error_2/num_present/broadcast_weights/assert_broadcastable/weights/rank Const
        mean_squared_error_2/num_present/broadcast_weights/assert_broadcastable/values/shape Shape
        mean_squared_error_2/num_present/broadcast_weights/assert_broadcastable/values/rank Const
        mean_squared_error_2/num_present/broadcast_weights/assert_broadcastable/static_scalar_check_success NoOp
        mean_squared_error_2/num_present/broadcast_weights/ones_like/Shape Shape
        mean_squared_error_2/num_present/broadcast_weights/ones_like/Const Const
        mean_squared_error_2/num_present/broadcast_weights/ones_like Fill
        mean_squared_error_2/num_present/broadcast_weights Mul
        mean_squared_error_2/num_present/Const Const
        mean_squared_error_2/num_present Sum
        mean_squared_error_2/Const_1 Const
        mean_squared_error_2/Sum_1 Sum
        mean_squared_error_2/value DivNoNan
        """,
    ),
]


@pytest.mark.parametrize("code,want", LOSS_CASES)
def test_losses_build_tf_ops(code, want):
    assert _op_list(code) == _want(want)
