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
    out = []
    for op in g.get_operations():
        seed = f" seed2={op.get_attr('seed2')}" if "seed2" in op.node_def.attr else ""
        out.append(f"{op.name} {op.type}{seed}")
    return out


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


GRADIENT_CASES = [
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.zeros([3, 2])); l = tf.reduce_mean(tf.matmul(x, w)); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        MatMul MatMul
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=31
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.zeros([3, 2])); b = tf.Variable(tf.zeros([2])); l = tf.reduce_sum(tf.matmul(x, w) + b); g = tf.gradients(l, [w, b]); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        zeros_1 Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        MatMul MatMul
        add AddV2
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/add_grad/Shape Shape
        gradients/add_grad/Shape_1 Shape
        gradients/add_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/add_grad/Sum Sum
        gradients/add_grad/Reshape Reshape
        gradients/add_grad/Sum_1 Sum
        gradients/add_grad/Reshape_1 Reshape
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=32
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.zeros([3])); l = tf.reduce_sum(x * w); g = tf.gradients(l, [w]); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=27
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); y = tf.placeholder(tf.float32, [None, 2]); w = tf.Variable(tf.zeros([3, 2])); l = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(x, w))); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        MatMul MatMul
        softmax_cross_entropy_with_logits/Rank Const
        softmax_cross_entropy_with_logits/Shape Shape
        softmax_cross_entropy_with_logits/Rank_1 Const
        softmax_cross_entropy_with_logits/Shape_1 Shape
        softmax_cross_entropy_with_logits/Sub/y Const
        softmax_cross_entropy_with_logits/Sub Sub
        softmax_cross_entropy_with_logits/Slice/begin Pack
        softmax_cross_entropy_with_logits/Slice/size Const
        softmax_cross_entropy_with_logits/Slice Slice
        softmax_cross_entropy_with_logits/concat/values_0 Const
        softmax_cross_entropy_with_logits/concat/axis Const
        softmax_cross_entropy_with_logits/concat ConcatV2
        softmax_cross_entropy_with_logits/Reshape Reshape
        softmax_cross_entropy_with_logits/Rank_2 Const
        softmax_cross_entropy_with_logits/Shape_2 Shape
        softmax_cross_entropy_with_logits/Sub_1/y Const
        softmax_cross_entropy_with_logits/Sub_1 Sub
        softmax_cross_entropy_with_logits/Slice_1/begin Pack
        softmax_cross_entropy_with_logits/Slice_1/size Const
        softmax_cross_entropy_with_logits/Slice_1 Slice
        softmax_cross_entropy_with_logits/concat_1/values_0 Const
        softmax_cross_entropy_with_logits/concat_1/axis Const
        softmax_cross_entropy_with_logits/concat_1 ConcatV2
        softmax_cross_entropy_with_logits/Reshape_1 Reshape
        softmax_cross_entropy_with_logits SoftmaxCrossEntropyWithLogits
        softmax_cross_entropy_with_logits/Sub_2/y Const
        softmax_cross_entropy_with_logits/Sub_2 Sub
        softmax_cross_entropy_with_logits/Slice_2/begin Const
        softmax_cross_entropy_with_logits/Slice_2/size Pack
        softmax_cross_entropy_with_logits/Slice_2 Slice
        softmax_cross_entropy_with_logits/Reshape_2 Reshape
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/softmax_cross_entropy_with_logits/Reshape_2_grad/Shape Shape
        gradients/softmax_cross_entropy_with_logits/Reshape_2_grad/Reshape Reshape
        gradients/zeros_like ZerosLike
        gradients/softmax_cross_entropy_with_logits_grad/ExpandDims/dim Const
        gradients/softmax_cross_entropy_with_logits_grad/ExpandDims ExpandDims
        gradients/softmax_cross_entropy_with_logits_grad/mul Mul
        gradients/softmax_cross_entropy_with_logits_grad/LogSoftmax LogSoftmax
        gradients/softmax_cross_entropy_with_logits_grad/Neg Neg
        gradients/softmax_cross_entropy_with_logits_grad/ExpandDims_1/dim Const
        gradients/softmax_cross_entropy_with_logits_grad/ExpandDims_1 ExpandDims
        gradients/softmax_cross_entropy_with_logits_grad/mul_1 Mul
        gradients/softmax_cross_entropy_with_logits/Reshape_grad/Shape Shape
        gradients/softmax_cross_entropy_with_logits/Reshape_grad/Reshape Reshape
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=76
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); y = tf.placeholder(tf.int32, [None]); w = tf.Variable(tf.zeros([3, 2])); l = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=tf.matmul(x, w))); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        MatMul MatMul
        SparseSoftmaxCrossEntropyWithLogits/Shape Shape
        SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits SparseSoftmaxCrossEntropyWithLogits
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/zeros_like ZerosLike
        gradients/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/PreventGradient PreventGradient
        gradients/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/ExpandDims/dim Const
        gradients/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/ExpandDims ExpandDims
        gradients/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/mul Mul
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=39
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4, 4, 1]); k = tf.Variable(tf.zeros([3, 3, 1, 2])); c = tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"); p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"); r = tf.reshape(p, [-1, 8]); l = tf.reduce_mean(r); g = tf.gradients(l, k); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        Conv2D Conv2D
        MaxPool MaxPool
        Reshape/shape Const
        Reshape Reshape
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Reshape_grad/Shape Shape
        gradients/Reshape_grad/Reshape Reshape
        gradients/MaxPool_grad/MaxPoolGrad MaxPoolGrad
        gradients/Conv2D_grad/ShapeN ShapeN
        gradients/Conv2D_grad/Conv2DBackpropInput Conv2DBackpropInput
        gradients/Conv2D_grad/Conv2DBackpropFilter Conv2DBackpropFilter
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=38
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); y = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.zeros([3])); l = tf.losses.mean_squared_error(y, x * w); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
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
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/mean_squared_error/value_grad/Shape Const
        gradients/mean_squared_error/value_grad/Shape_1 Const
        gradients/mean_squared_error/value_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mean_squared_error/value_grad/div_no_nan DivNoNan
        gradients/mean_squared_error/value_grad/Sum Sum
        gradients/mean_squared_error/value_grad/Reshape Reshape
        gradients/mean_squared_error/value_grad/Neg Neg
        gradients/mean_squared_error/value_grad/div_no_nan_1 DivNoNan
        gradients/mean_squared_error/value_grad/div_no_nan_2 DivNoNan
        gradients/mean_squared_error/value_grad/mul Mul
        gradients/mean_squared_error/value_grad/Sum_1 Sum
        gradients/mean_squared_error/value_grad/Reshape_1 Reshape
        gradients/mean_squared_error/Sum_1_grad/Reshape/shape Const
        gradients/mean_squared_error/Sum_1_grad/Reshape Reshape
        gradients/mean_squared_error/Sum_1_grad/Const Const
        gradients/mean_squared_error/Sum_1_grad/Tile Tile
        gradients/mean_squared_error/Sum_grad/Reshape/shape Const
        gradients/mean_squared_error/Sum_grad/Reshape Reshape
        gradients/mean_squared_error/Sum_grad/Shape Shape
        gradients/mean_squared_error/Sum_grad/Tile Tile
        gradients/mean_squared_error/Mul_grad/Shape Shape
        gradients/mean_squared_error/Mul_grad/Shape_1 Shape
        gradients/mean_squared_error/Mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mean_squared_error/Mul_grad/Mul Mul
        gradients/mean_squared_error/Mul_grad/Sum Sum
        gradients/mean_squared_error/Mul_grad/Reshape Reshape
        gradients/mean_squared_error/Mul_grad/Mul_1 Mul
        gradients/mean_squared_error/Mul_grad/Sum_1 Sum
        gradients/mean_squared_error/Mul_grad/Reshape_1 Reshape
        gradients/mean_squared_error/SquaredDifference_grad/scalar Const
        gradients/mean_squared_error/SquaredDifference_grad/Mul Mul
        gradients/mean_squared_error/SquaredDifference_grad/sub Sub
        gradients/mean_squared_error/SquaredDifference_grad/mul_1 Mul
        gradients/mean_squared_error/SquaredDifference_grad/Shape Shape
        gradients/mean_squared_error/SquaredDifference_grad/Shape_1 Shape
        gradients/mean_squared_error/SquaredDifference_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mean_squared_error/SquaredDifference_grad/Sum Sum
        gradients/mean_squared_error/SquaredDifference_grad/Reshape Reshape
        gradients/mean_squared_error/SquaredDifference_grad/Sum_1 Sum
        gradients/mean_squared_error/SquaredDifference_grad/Reshape_1 Reshape
        gradients/mean_squared_error/SquaredDifference_grad/Neg Neg
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=95
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [2, 3]); w = tf.Variable(tf.zeros([3])); l = tf.reduce_sum(x * w, axis=1); g = tf.gradients(l, w)',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Sum/reduction_indices Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Cast/x Const
        gradients/Sum_grad/Cast_1/x Const
        gradients/Sum_grad/Size Const
        gradients/Sum_grad/add AddV2
        gradients/Sum_grad/mod FloorMod
        gradients/Sum_grad/Shape Const
        gradients/Sum_grad/range/start Const
        gradients/Sum_grad/range/delta Const
        gradients/Sum_grad/range Range
        gradients/Sum_grad/Fill/value Const
        gradients/Sum_grad/Fill Fill
        gradients/Sum_grad/DynamicStitch DynamicStitch
        gradients/Sum_grad/Maximum/x Const
        gradients/Sum_grad/Maximum/y Const
        gradients/Sum_grad/Maximum Maximum
        gradients/Sum_grad/floordiv/x Const
        gradients/Sum_grad/floordiv FloorDiv
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Tile/multiples Const
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/BroadcastGradientArgs/s0 Const
        gradients/mul_grad/BroadcastGradientArgs/s1 Const
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum/reduction_indices Const
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape/shape Const
        gradients/mul_grad/Reshape Reshape
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.zeros([3])); l = tf.reduce_sum(x * w, axis=1); g = tf.gradients(l, w)',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Sum/reduction_indices Const
        Sum Sum
        gradients/Shape Shape
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Size Const
        gradients/Sum_grad/add AddV2
        gradients/Sum_grad/mod FloorMod
        gradients/Sum_grad/Shape_1 Const
        gradients/Sum_grad/range/start Const
        gradients/Sum_grad/range/delta Const
        gradients/Sum_grad/range Range
        gradients/Sum_grad/Fill/value Const
        gradients/Sum_grad/Fill Fill
        gradients/Sum_grad/DynamicStitch DynamicStitch
        gradients/Sum_grad/Maximum/y Const
        gradients/Sum_grad/Maximum Maximum
        gradients/Sum_grad/floordiv FloorDiv
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.zeros([3])); l = tf.reduce_mean(x * w, axis=1); g = tf.gradients(l, w)',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Mean/reduction_indices Const
        Mean Mean
        gradients/Shape Shape
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Size Const
        gradients/Mean_grad/add AddV2
        gradients/Mean_grad/mod FloorMod
        gradients/Mean_grad/Shape_1 Const
        gradients/Mean_grad/range/start Const
        gradients/Mean_grad/range/delta Const
        gradients/Mean_grad/range Range
        gradients/Mean_grad/Fill/value Const
        gradients/Mean_grad/Fill Fill
        gradients/Mean_grad/DynamicStitch DynamicStitch
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_2 Shape
        gradients/Mean_grad/Shape_3 Shape
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum_1/y Const
        gradients/Mean_grad/Maximum_1 Maximum
        gradients/Mean_grad/floordiv_1 FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [4, 3]); w = tf.Variable(tf.zeros([3])); l = tf.reduce_mean(x * w, axis=1) + tf.reduce_mean(x * w, axis=1); g = tf.gradients(l, w)',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Mean/reduction_indices Const
        Mean Mean
        mul_1 Mul
        Mean_1/reduction_indices Const
        Mean_1 Mean
        add AddV2
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Cast/x Const
        gradients/Mean_grad/Cast_1/x Const
        gradients/Mean_grad/Size Const
        gradients/Mean_grad/add AddV2
        gradients/Mean_grad/mod FloorMod
        gradients/Mean_grad/Shape Const
        gradients/Mean_grad/range/start Const
        gradients/Mean_grad/range/delta Const
        gradients/Mean_grad/range Range
        gradients/Mean_grad/Fill/value Const
        gradients/Mean_grad/Fill Fill
        gradients/Mean_grad/DynamicStitch DynamicStitch
        gradients/Mean_grad/Maximum/x Const
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv/x Const
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Tile/multiples Const
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/truediv RealDiv
        gradients/Mean_1_grad/Reshape/shape Const
        gradients/Mean_1_grad/Reshape Reshape
        gradients/Mean_1_grad/Tile/multiples Const
        gradients/Mean_1_grad/Tile Tile
        gradients/Mean_1_grad/Const Const
        gradients/Mean_1_grad/truediv RealDiv
        gradients/mul_grad/BroadcastGradientArgs/s0 Const
        gradients/mul_grad/BroadcastGradientArgs/s1 Const
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum/reduction_indices Const
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape/shape Const
        gradients/mul_grad/Reshape Reshape
        gradients/mul_1_grad/Mul Mul
        gradients/mul_1_grad/Mul_1 Mul
        gradients/mul_1_grad/Sum/reduction_indices Const
        gradients/mul_1_grad/Sum Sum
        gradients/mul_1_grad/Reshape/shape Const
        gradients/mul_1_grad/Reshape Reshape
        gradients/AddN AddN
        """,
    ),
]


@pytest.mark.parametrize("code,want", GRADIENT_CASES)
def test_gradients_build_tf_ops(code, want):
    # the random op at the end draws its seed from the op count: it matches only if every
    # gradient op before it does
    assert _op_list(code) == _want(want)


def test_realdiv_gradient_is_nan_at_zero_divisor_as_tf115():
    # TF 1.15's RealDiv gradient divides (no Xdivy/MulNoNan yet): 0 * inf is NaN
    a, b = tf.constant(1.0), tf.constant(0.0)
    grads = tf.gradients(tf.realdiv(a, b), [a, b], grad_ys=tf.constant(0.0))
    with tf.Session() as sess:
        assert np.isnan(sess.run(grads)).all()


def test_second_derivative_of_sparse_xent_is_refused_as_tf115():
    logits = tf.constant([[1.0, 2.0, 0.5]])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1]),
                                                          logits=logits)
    g = tf.gradients(loss, logits)[0]
    with pytest.raises(LookupError, match="second derivative"):
        tf.gradients(g, logits)


TRAIN_CASES = [
    (
        'w = tf.Variable(tf.zeros([3])); l = tf.reduce_sum(w * w); t = tf.train.AdamOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Const Const
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/tuple/group_deps NoOp
        gradients/mul_grad/tuple/control_dependency Identity
        gradients/mul_grad/tuple/control_dependency_1 Identity
        gradients/AddN AddN
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        Variable/Adam/Initializer/zeros Const
        Variable/Adam VariableV2
        Variable/Adam/Assign Assign
        Variable/Adam/read Identity
        Variable/Adam_1/Initializer/zeros Const
        Variable/Adam_1 VariableV2
        Variable/Adam_1/Assign Assign
        Variable/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_Variable/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=49
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'w = tf.Variable(tf.zeros([3])); l = tf.reduce_sum(w * w); gs = tf.train.get_or_create_global_step(); t = tf.train.AdamOptimizer(0.1).minimize(l, global_step=gs); z = tf.random_normal([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Const Const
        Sum Sum
        global_step/Initializer/zeros Const
        global_step VariableV2
        global_step/Assign Assign
        global_step/read Identity
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Const Const
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/tuple/group_deps NoOp
        gradients/mul_grad/tuple/control_dependency Identity
        gradients/mul_grad/tuple/control_dependency_1 Identity
        gradients/AddN AddN
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        Variable/Adam/Initializer/zeros Const
        Variable/Adam VariableV2
        Variable/Adam/Assign Assign
        Variable/Adam/read Identity
        Variable/Adam_1/Initializer/zeros Const
        Variable/Adam_1 VariableV2
        Variable/Adam_1/Assign Assign
        Variable/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_Variable/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam/update NoOp
        Adam/value Const
        Adam AssignAdd
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=55
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'l = tf.placeholder(tf.int64, [None]); p = tf.placeholder(tf.int64, [None]); acc, up = tf.metrics.accuracy(l, p); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        Equal Equal
        Cast Cast
        accuracy/total/Initializer/zeros Const
        accuracy/total VariableV2
        accuracy/total/Assign Assign
        accuracy/total/read Identity
        accuracy/count/Initializer/zeros Const
        accuracy/count VariableV2
        accuracy/count/Assign Assign
        accuracy/count/read Identity
        accuracy/Size Size
        accuracy/Cast Cast
        accuracy/Const Const
        accuracy/Sum Sum
        accuracy/AssignAdd AssignAdd
        accuracy/AssignAdd_1 AssignAdd
        accuracy/Maximum/y Const
        accuracy/Maximum Maximum
        accuracy/value DivNoNan
        accuracy/Maximum_1/y Const
        accuracy/Maximum_1 Maximum
        accuracy/update_op DivNoNan
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=27
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None]); m, up = tf.metrics.mean(x); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        mean/total/Initializer/zeros Const
        mean/total VariableV2
        mean/total/Assign Assign
        mean/total/read Identity
        mean/count/Initializer/zeros Const
        mean/count VariableV2
        mean/count/Assign Assign
        mean/count/read Identity
        mean/Size Size
        mean/Cast Cast
        mean/Const Const
        mean/Sum Sum
        mean/AssignAdd AssignAdd
        mean/AssignAdd_1 AssignAdd
        mean/Maximum/y Const
        mean/Maximum Maximum
        mean/value DivNoNan
        mean/Maximum_1/y Const
        mean/Maximum_1 Maximum
        mean/update_op DivNoNan
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=24
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4]); h = tf.layers.dense(x, 3); l = tf.reduce_mean(tf.square(h)); t = tf.train.AdamOptimizer(0.01).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        dense/kernel/Initializer/random_uniform/shape Const
        dense/kernel/Initializer/random_uniform/min Const
        dense/kernel/Initializer/random_uniform/max Const
        dense/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        dense/kernel/Initializer/random_uniform/sub Sub
        dense/kernel/Initializer/random_uniform/mul Mul
        dense/kernel/Initializer/random_uniform Add
        dense/kernel VariableV2
        dense/kernel/Assign Assign
        dense/kernel/read Identity
        dense/bias/Initializer/zeros Const
        dense/bias VariableV2
        dense/bias/Assign Assign
        dense/bias/read Identity
        dense/MatMul MatMul
        dense/BiasAdd BiasAdd
        Square Square
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Square_grad/Const Const
        gradients/Square_grad/Mul Mul
        gradients/Square_grad/Mul_1 Mul
        gradients/dense/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/dense/BiasAdd_grad/tuple/group_deps NoOp
        gradients/dense/BiasAdd_grad/tuple/control_dependency Identity
        gradients/dense/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/dense/MatMul_grad/MatMul MatMul
        gradients/dense/MatMul_grad/MatMul_1 MatMul
        gradients/dense/MatMul_grad/tuple/group_deps NoOp
        gradients/dense/MatMul_grad/tuple/control_dependency Identity
        gradients/dense/MatMul_grad/tuple/control_dependency_1 Identity
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        dense/kernel/Adam/Initializer/zeros Const
        dense/kernel/Adam VariableV2
        dense/kernel/Adam/Assign Assign
        dense/kernel/Adam/read Identity
        dense/kernel/Adam_1/Initializer/zeros Const
        dense/kernel/Adam_1 VariableV2
        dense/kernel/Adam_1/Assign Assign
        dense/kernel/Adam_1/read Identity
        dense/bias/Adam/Initializer/zeros Const
        dense/bias/Adam VariableV2
        dense/bias/Adam/Assign Assign
        dense/bias/Adam/read Identity
        dense/bias/Adam_1/Initializer/zeros Const
        dense/bias/Adam_1 VariableV2
        dense/bias/Adam_1/Assign Assign
        dense/bias/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_dense/kernel/ApplyAdam ApplyAdam
        Adam/update_dense/bias/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=88
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'W = tf.Variable(tf.truncated_normal([784, 10], stddev=0.1)); b = tf.Variable(tf.constant(0.1, shape=[10])); x = tf.placeholder(tf.float32, [None, 784]); y = tf.nn.softmax(tf.matmul(x, W) + b); y_ = tf.placeholder(tf.float32, [None, 10]); ce = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y), reduction_indices=[1])); tr = tf.train.GradientDescentOptimizer(0.5).minimize(ce); W2 = tf.Variable(tf.random_normal([3]))',
        """
        truncated_normal/shape Const
        truncated_normal/mean Const
        truncated_normal/stddev Const
        truncated_normal/TruncatedNormal TruncatedNormal seed2=3
        truncated_normal/mul Mul
        truncated_normal Add
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        Const Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        Placeholder Placeholder
        MatMul MatMul
        add AddV2
        Softmax Softmax
        Placeholder_1 Placeholder
        Log Log
        mul Mul
        Sum/reduction_indices Const
        Sum Sum
        Neg Neg
        Const_1 Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Neg_grad/Neg Neg
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Size Const
        gradients/Sum_grad/add AddV2
        gradients/Sum_grad/mod FloorMod
        gradients/Sum_grad/Shape_1 Const
        gradients/Sum_grad/range/start Const
        gradients/Sum_grad/range/delta Const
        gradients/Sum_grad/range Range
        gradients/Sum_grad/Fill/value Const
        gradients/Sum_grad/Fill Fill
        gradients/Sum_grad/DynamicStitch DynamicStitch
        gradients/Sum_grad/Maximum/y Const
        gradients/Sum_grad/Maximum Maximum
        gradients/Sum_grad/floordiv FloorDiv
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        gradients/mul_grad/tuple/group_deps NoOp
        gradients/mul_grad/tuple/control_dependency Identity
        gradients/mul_grad/tuple/control_dependency_1 Identity
        gradients/Log_grad/Reciprocal Reciprocal
        gradients/Log_grad/mul Mul
        gradients/Softmax_grad/mul Mul
        gradients/Softmax_grad/Sum/reduction_indices Const
        gradients/Softmax_grad/Sum Sum
        gradients/Softmax_grad/sub Sub
        gradients/Softmax_grad/mul_1 Mul
        gradients/add_grad/Shape Shape
        gradients/add_grad/Shape_1 Shape
        gradients/add_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/add_grad/Sum Sum
        gradients/add_grad/Reshape Reshape
        gradients/add_grad/Sum_1 Sum
        gradients/add_grad/Reshape_1 Reshape
        gradients/add_grad/tuple/group_deps NoOp
        gradients/add_grad/tuple/control_dependency Identity
        gradients/add_grad/tuple/control_dependency_1 Identity
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        gradients/MatMul_grad/tuple/group_deps NoOp
        gradients/MatMul_grad/tuple/control_dependency Identity
        gradients/MatMul_grad/tuple/control_dependency_1 Identity
        GradientDescent/learning_rate Const
        GradientDescent/update_Variable/ApplyGradientDescent ApplyGradientDescent
        GradientDescent/update_Variable_1/ApplyGradientDescent ApplyGradientDescent
        GradientDescent NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=101
        random_normal/mul Mul
        random_normal Add
        Variable_2 VariableV2
        Variable_2/Assign Assign
        Variable_2/read Identity
        """,
    ),
]


@pytest.mark.parametrize("code,want", TRAIN_CASES)
def test_training_graphs_build_tf_ops(code, want):
    # minimize() gates each op's input gradients (tuple/group_deps) as TF does, the gradient of
    # an input no variable depends on included; tf.metrics' running means divide by DivNoNan
    assert _op_list(code) == _want(want)


def test_log_gradient_is_grad_times_reciprocal_as_tf115():
    x = tf.constant([0.0, 2.0])
    g = tf.gradients(tf.log(x), x, grad_ys=tf.constant([0.0, 1.0]))[0]
    assert g.op.type == "Mul" and g.op.inputs[1].op.type == "Reciprocal"
    with tf.Session() as sess:
        got = sess.run(g)
    assert np.isnan(got[0]) and got[1] == 0.5


INIT_CASES = [
    (
        'w = tf.get_variable("w", [3, 4]); z = tf.random_normal([2])',
        """
        w/Initializer/random_uniform/shape Const
        w/Initializer/random_uniform/min Const
        w/Initializer/random_uniform/max Const
        w/Initializer/random_uniform/RandomUniform RandomUniform seed2=3
        w/Initializer/random_uniform/sub Sub
        w/Initializer/random_uniform/mul Mul
        w/Initializer/random_uniform Add
        w VariableV2
        w/Assign Assign
        w/read Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=13
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'o = tf.get_variable("o", [3, 3], initializer=tf.orthogonal_initializer()); z = tf.random_normal([2])',
        """
        o/Initializer/random_normal/shape Const
        o/Initializer/random_normal/mean Const
        o/Initializer/random_normal/stddev Const
        o/Initializer/random_normal/RandomStandardNormal RandomStandardNormal seed2=3
        o/Initializer/random_normal/mul Mul
        o/Initializer/random_normal Add
        o/Initializer/Qr Qr
        o/Initializer/DiagPart DiagPart
        o/Initializer/Sign Sign
        o/Initializer/mul Mul
        o/Initializer/Reshape/shape Const
        o/Initializer/Reshape Reshape
        o/Initializer/mul_1/x Const
        o/Initializer/mul_1 Mul
        o VariableV2
        o/Assign Assign
        o/read Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=20
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'o = tf.get_variable("o", [4, 6], initializer=tf.orthogonal_initializer(gain=2.0)); z = tf.random_normal([2])',
        """
        o/Initializer/random_normal/shape Const
        o/Initializer/random_normal/mean Const
        o/Initializer/random_normal/stddev Const
        o/Initializer/random_normal/RandomStandardNormal RandomStandardNormal seed2=3
        o/Initializer/random_normal/mul Mul
        o/Initializer/random_normal Add
        o/Initializer/Qr Qr
        o/Initializer/DiagPart DiagPart
        o/Initializer/Sign Sign
        o/Initializer/mul Mul
        o/Initializer/matrix_transpose/transpose/perm Const
        o/Initializer/matrix_transpose/transpose Transpose
        o/Initializer/Reshape/shape Const
        o/Initializer/Reshape Reshape
        o/Initializer/mul_1/x Const
        o/Initializer/mul_1 Mul
        o VariableV2
        o/Assign Assign
        o/read Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=22
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'a = tf.get_variable("a", [3, 3], initializer=tf.initializers.identity()); z = tf.random_normal([2])',
        """
        a/Initializer/eye/ones Const
        a/Initializer/eye/diag MatrixDiag
        a/Initializer/mul/x Const
        a/Initializer/mul Mul
        a VariableV2
        a/Assign Assign
        a/read Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=10
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'a = tf.get_variable("a", [3, 4], initializer=tf.variance_scaling_initializer(2.0, "fan_in", "truncated_normal")); b = tf.get_variable("b", [3, 4], initializer=tf.variance_scaling_initializer(distribution="uniform")); c = tf.get_variable("c", [3, 4], initializer=tf.variance_scaling_initializer(distribution="untruncated_normal")); z = tf.random_normal([2])',
        """
        a/Initializer/truncated_normal/shape Const
        a/Initializer/truncated_normal/mean Const
        a/Initializer/truncated_normal/stddev Const
        a/Initializer/truncated_normal/TruncatedNormal TruncatedNormal seed2=3
        a/Initializer/truncated_normal/mul Mul
        a/Initializer/truncated_normal Add
        a VariableV2
        a/Assign Assign
        a/read Identity
        b/Initializer/random_uniform/shape Const
        b/Initializer/random_uniform/min Const
        b/Initializer/random_uniform/max Const
        b/Initializer/random_uniform/RandomUniform RandomUniform seed2=12
        b/Initializer/random_uniform/sub Sub
        b/Initializer/random_uniform/mul Mul
        b/Initializer/random_uniform Add
        b VariableV2
        b/Assign Assign
        b/read Identity
        c/Initializer/random_normal/shape Const
        c/Initializer/random_normal/mean Const
        c/Initializer/random_normal/stddev Const
        c/Initializer/random_normal/RandomStandardNormal RandomStandardNormal seed2=22
        c/Initializer/random_normal/mul Mul
        c/Initializer/random_normal Add
        c VariableV2
        c/Assign Assign
        c/read Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=31
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'a = tf.get_variable("a", [3, 4], initializer=tf.contrib.layers.xavier_initializer()); b = tf.get_variable("b", [3, 4], initializer=tf.contrib.layers.variance_scaling_initializer()); c = tf.get_variable("c", [2, 2, 3, 4], initializer=tf.contrib.layers.xavier_initializer_conv2d()); z = tf.random_normal([2])',
        """
        a/Initializer/random_uniform/shape Const
        a/Initializer/random_uniform/min Const
        a/Initializer/random_uniform/max Const
        a/Initializer/random_uniform/RandomUniform RandomUniform seed2=3
        a/Initializer/random_uniform/sub Sub
        a/Initializer/random_uniform/mul Mul
        a/Initializer/random_uniform Add
        a VariableV2
        a/Assign Assign
        a/read Identity
        b/Initializer/truncated_normal/shape Const
        b/Initializer/truncated_normal/mean Const
        b/Initializer/truncated_normal/stddev Const
        b/Initializer/truncated_normal/TruncatedNormal TruncatedNormal seed2=13
        b/Initializer/truncated_normal/mul Mul
        b/Initializer/truncated_normal Add
        b VariableV2
        b/Assign Assign
        b/read Identity
        c/Initializer/random_uniform/shape Const
        c/Initializer/random_uniform/min Const
        c/Initializer/random_uniform/max Const
        c/Initializer/random_uniform/RandomUniform RandomUniform seed2=22
        c/Initializer/random_uniform/sub Sub
        c/Initializer/random_uniform/mul Mul
        c/Initializer/random_uniform Add
        c VariableV2
        c/Assign Assign
        c/read Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=32
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'a = tf.eye(3); b = tf.eye(2, 3); c = 2.0 * tf.eye(3, dtype=tf.float64); d = tf.diag_part(tf.ones([3, 3])); e = tf.linalg.diag_part(tf.ones([3, 3]))',
        """
        eye/ones Const
        eye/diag MatrixDiag
        eye_1/ones Const
        eye_1/zeros Const
        eye_1/set_diag MatrixSetDiag
        eye_2/ones Const
        eye_2/diag MatrixDiag
        mul/x Const
        mul Mul
        ones Const
        DiagPart DiagPart
        ones_1 Const
        diag_part MatrixDiagPart
        """,
    ),
]


@pytest.mark.parametrize("code,want", INIT_CASES)
def test_initializers_build_tf_ops(code, want):
    # orthogonal: DiagPart and the operators' mul; identity: gain * eye (MatrixDiag of ones)
    assert _op_list(code) == _want(want)


NN_CASES = [
    (
        'x = tf.placeholder(tf.float32, [None, 10]); d = tf.nn.dropout(x, keep_prob=0.5); e = tf.nn.dropout(x, rate=0.3); kp = tf.placeholder(tf.float32); f = tf.nn.dropout(x, keep_prob=kp); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        dropout/rate Const
        dropout/Shape Shape
        dropout/random_uniform/min Const
        dropout/random_uniform/max Const
        dropout/random_uniform/RandomUniform RandomUniform seed2=5
        dropout/random_uniform/sub Sub
        dropout/random_uniform/mul Mul
        dropout/random_uniform Add
        dropout/sub/x Const
        dropout/sub Sub
        dropout/truediv/x Const
        dropout/truediv RealDiv
        dropout/GreaterEqual GreaterEqual
        dropout/mul Mul
        dropout/Cast Cast
        dropout/mul_1 Mul
        dropout_1/rate Const
        dropout_1/Shape Shape
        dropout_1/random_uniform/min Const
        dropout_1/random_uniform/max Const
        dropout_1/random_uniform/RandomUniform RandomUniform seed2=21
        dropout_1/random_uniform/sub Sub
        dropout_1/random_uniform/mul Mul
        dropout_1/random_uniform Add
        dropout_1/sub/x Const
        dropout_1/sub Sub
        dropout_1/truediv/x Const
        dropout_1/truediv RealDiv
        dropout_1/GreaterEqual GreaterEqual
        dropout_1/mul Mul
        dropout_1/Cast Cast
        dropout_1/mul_1 Mul
        Placeholder_1 Placeholder
        sub/x Const
        sub Sub
        dropout_2/Shape Shape
        dropout_2/random_uniform/min Const
        dropout_2/random_uniform/max Const
        dropout_2/random_uniform/RandomUniform RandomUniform seed2=39
        dropout_2/random_uniform/sub Sub
        dropout_2/random_uniform/mul Mul
        dropout_2/random_uniform Add
        dropout_2/sub/x Const
        dropout_2/sub Sub
        dropout_2/truediv/x Const
        dropout_2/truediv RealDiv
        dropout_2/GreaterEqual GreaterEqual
        dropout_2/mul Mul
        dropout_2/Cast Cast
        dropout_2/mul_1 Mul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=54
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4, 5]); a = tf.nn.softmax(x); b = tf.nn.softmax(x, axis=1); c = tf.nn.log_softmax(x, axis=1); d = tf.nn.softmax(x, axis=-1); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Softmax Softmax
        Rank Const
        Rank_1 Const
        Sub/y Const
        Sub Sub
        range/start Const
        range/limit Const
        range/delta Const
        range Range
        range_1/start Const
        range_1/delta Const
        range_1 Range
        concat/values_1 Pack
        concat/values_3 Const
        concat/axis Const
        concat ConcatV2
        transpose Transpose
        Softmax_1 Softmax
        Sub_1/y Const
        Sub_1 Sub
        range_2/start Const
        range_2/limit Const
        range_2/delta Const
        range_2 Range
        range_3/start Const
        range_3/delta Const
        range_3 Range
        concat_1/values_1 Pack
        concat_1/values_3 Const
        concat_1/axis Const
        concat_1 ConcatV2
        transpose_1 Transpose
        Rank_2 Const
        Rank_3 Const
        Sub_2/y Const
        Sub_2 Sub
        range_4/start Const
        range_4/limit Const
        range_4/delta Const
        range_4 Range
        range_5/start Const
        range_5/delta Const
        range_5 Range
        concat_2/values_1 Pack
        concat_2/values_3 Const
        concat_2/axis Const
        concat_2 ConcatV2
        transpose_2 Transpose
        LogSoftmax LogSoftmax
        Sub_3/y Const
        Sub_3 Sub
        range_6/start Const
        range_6/limit Const
        range_6/delta Const
        range_6 Range
        range_7/start Const
        range_7/delta Const
        range_7 Range
        concat_3/values_1 Pack
        concat_3/values_3 Const
        concat_3/axis Const
        concat_3 ConcatV2
        transpose_3 Transpose
        Softmax_2 Softmax
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=68
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4]); y = tf.placeholder(tf.float32, [None, 4]); a = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x); b = tf.nn.weighted_cross_entropy_with_logits(y, x, 2.0); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        logistic_loss/zeros_like ZerosLike
        logistic_loss/GreaterEqual GreaterEqual
        logistic_loss/Select Select
        logistic_loss/Neg Neg
        logistic_loss/Select_1 Select
        logistic_loss/mul Mul
        logistic_loss/sub Sub
        logistic_loss/Exp Exp
        logistic_loss/Log1p Log1p
        logistic_loss Add
        logistic_loss_1/mul/x Const
        logistic_loss_1/mul Mul
        logistic_loss_1/add/x Const
        logistic_loss_1/add AddV2
        logistic_loss_1/sub/x Const
        logistic_loss_1/sub Sub
        logistic_loss_1/mul_1 Mul
        logistic_loss_1/Abs Abs
        logistic_loss_1/Neg Neg
        logistic_loss_1/Exp Exp
        logistic_loss_1/Log1p Log1p
        logistic_loss_1/Neg_1 Neg
        logistic_loss_1/Relu Relu
        logistic_loss_1/add_1 AddV2
        logistic_loss_1/mul_2 Mul
        logistic_loss_1 Add
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=31
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'p = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(2)); ids = tf.placeholder(tf.int64, [None]); e = tf.nn.embedding_lookup(p, ids); z = tf.random_normal([2])',
        """
        emb/part_0/Initializer/random_uniform/shape Const
        emb/part_0/Initializer/random_uniform/min Const
        emb/part_0/Initializer/random_uniform/max Const
        emb/part_0/Initializer/random_uniform/RandomUniform RandomUniform seed2=3
        emb/part_0/Initializer/random_uniform/sub Sub
        emb/part_0/Initializer/random_uniform/mul Mul
        emb/part_0/Initializer/random_uniform Add
        emb/part_0 VariableV2
        emb/part_0/Assign Assign
        emb/part_0/read Identity
        emb/part_1/Initializer/random_uniform/shape Const
        emb/part_1/Initializer/random_uniform/min Const
        emb/part_1/Initializer/random_uniform/max Const
        emb/part_1/Initializer/random_uniform/RandomUniform RandomUniform seed2=13
        emb/part_1/Initializer/random_uniform/sub Sub
        emb/part_1/Initializer/random_uniform/mul Mul
        emb/part_1/Initializer/random_uniform Add
        emb/part_1 VariableV2
        emb/part_1/Assign Assign
        emb/part_1/read Identity
        Placeholder Placeholder
        embedding_lookup/Reshape/shape Const
        embedding_lookup/Reshape Reshape
        embedding_lookup/Size Size
        embedding_lookup/range/start Const
        embedding_lookup/range/delta Const
        embedding_lookup/range Range
        embedding_lookup/mod/y Const
        embedding_lookup/mod FloorMod
        embedding_lookup/floordiv/y Const
        embedding_lookup/floordiv FloorDiv
        embedding_lookup/Cast Cast
        embedding_lookup/DynamicPartition DynamicPartition
        embedding_lookup/DynamicPartition_1 DynamicPartition
        embedding_lookup/GatherV2/axis Const
        embedding_lookup/GatherV2 GatherV2
        embedding_lookup/GatherV2_1/axis Const
        embedding_lookup/GatherV2_1 GatherV2
        embedding_lookup ParallelDynamicStitch
        embedding_lookup/Shape Shape
        embedding_lookup/concat/values_1 Const
        embedding_lookup/concat/axis Const
        embedding_lookup/concat ConcatV2
        embedding_lookup/Reshape_1 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=47
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'w1 = tf.Variable(tf.zeros([5, 4])); w2 = tf.Variable(tf.zeros([5, 4])); ids = tf.placeholder(tf.int32, [None]); e = tf.nn.embedding_lookup([w1, w2], ids); e2 = tf.nn.embedding_lookup([w1, w2], ids, partition_strategy="div"); z = tf.random_normal([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        zeros_1 Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        Placeholder Placeholder
        embedding_lookup/Reshape/shape Const
        embedding_lookup/Reshape Reshape
        embedding_lookup/Size Size
        embedding_lookup/range/start Const
        embedding_lookup/range/delta Const
        embedding_lookup/range Range
        embedding_lookup/mod/y Const
        embedding_lookup/mod FloorMod
        embedding_lookup/floordiv/y Const
        embedding_lookup/floordiv FloorDiv
        embedding_lookup/DynamicPartition DynamicPartition
        embedding_lookup/DynamicPartition_1 DynamicPartition
        embedding_lookup/GatherV2/axis Const
        embedding_lookup/GatherV2 GatherV2
        embedding_lookup/GatherV2_1/axis Const
        embedding_lookup/GatherV2_1 GatherV2
        embedding_lookup ParallelDynamicStitch
        embedding_lookup/Shape Shape
        embedding_lookup/concat/values_1 Const
        embedding_lookup/concat/axis Const
        embedding_lookup/concat ConcatV2
        embedding_lookup/Reshape_1 Reshape
        embedding_lookup_1/Reshape/shape Const
        embedding_lookup_1/Reshape Reshape
        embedding_lookup_1/Size Size
        embedding_lookup_1/range/start Const
        embedding_lookup_1/range/delta Const
        embedding_lookup_1/range Range
        embedding_lookup_1/Const Const
        embedding_lookup_1/floordiv/y Const
        embedding_lookup_1/floordiv FloorDiv
        embedding_lookup_1/mod/y Const
        embedding_lookup_1/mod FloorMod
        embedding_lookup_1/add/y Const
        embedding_lookup_1/add AddV2
        embedding_lookup_1/floordiv_1 FloorDiv
        embedding_lookup_1/sub Sub
        embedding_lookup_1/floordiv_2 FloorDiv
        embedding_lookup_1/Maximum Maximum
        embedding_lookup_1/Less Less
        embedding_lookup_1/add_1/y Const
        embedding_lookup_1/add_1 AddV2
        embedding_lookup_1/mod_1 FloorMod
        embedding_lookup_1/sub_1 Sub
        embedding_lookup_1/mod_2 FloorMod
        embedding_lookup_1/Select Select
        embedding_lookup_1/DynamicPartition DynamicPartition
        embedding_lookup_1/DynamicPartition_1 DynamicPartition
        embedding_lookup_1/GatherV2/axis Const
        embedding_lookup_1/GatherV2 GatherV2
        embedding_lookup_1/GatherV2_1/axis Const
        embedding_lookup_1/GatherV2_1 GatherV2
        embedding_lookup_1 ParallelDynamicStitch
        embedding_lookup_1/Shape Shape
        embedding_lookup_1/concat/values_1 Const
        embedding_lookup_1/concat/axis Const
        embedding_lookup_1/concat ConcatV2
        embedding_lookup_1/Reshape_1 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=70
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4]); a = tf.nn.relu6(x); b = tf.nn.leaky_relu(x); c = tf.nn.elu(x); d = tf.nn.softplus(x); e = tf.nn.l2_loss(x); f = tf.nn.bias_add(x, tf.zeros([4])); g = tf.nn.xw_plus_b(x, tf.zeros([4, 2]), tf.zeros([2])); h = tf.nn.relu_layer(x, tf.zeros([4, 2]), tf.zeros([2])); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Relu6 Relu6
        LeakyRelu LeakyRelu
        Elu Elu
        Softplus Softplus
        L2Loss L2Loss
        zeros Const
        BiasAdd BiasAdd
        zeros_1 Const
        zeros_2 Const
        xw_plus_b/MatMul MatMul
        xw_plus_b BiasAdd
        zeros_3 Const
        zeros_4 Const
        relu_layer/MatMul MatMul
        relu_layer/BiasAdd BiasAdd
        relu_layer Relu
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=20
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4]); a = tf.nn.top_k(x, 2); b = tf.nn.in_top_k(x, tf.placeholder(tf.int32, [None]), 1); c = tf.nn.normalize_moments(tf.constant(2.0), tf.zeros([4]), tf.ones([4]), None); d = tf.nn.sufficient_statistics(x, [0]); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        TopKV2/k Const
        TopKV2 TopKV2
        Placeholder_1 Placeholder
        in_top_k/InTopKV2/k Const
        in_top_k/InTopKV2 InTopKV2
        Const Const
        zeros Const
        ones Const
        normalize/divisor Reciprocal
        normalize/mean Mul
        normalize/Mul Mul
        normalize/Square Square
        normalize/variance Sub
        sufficient_statistics/Shape Shape
        sufficient_statistics/Cast Cast
        sufficient_statistics/GatherV2/indices Const
        sufficient_statistics/GatherV2/axis Const
        sufficient_statistics/GatherV2 GatherV2
        sufficient_statistics/Const Const
        sufficient_statistics/count Prod
        sufficient_statistics/Square Square
        sufficient_statistics/mean_ss/reduction_indices Const
        sufficient_statistics/mean_ss Sum
        sufficient_statistics/var_ss/reduction_indices Const
        sufficient_statistics/var_ss Sum
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=29
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4, 5]); a = tf.nn.softmax(x, axis=-2); b = tf.nn.log_softmax(x, axis=0, name="ls"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Rank Const
        add/x Const
        add AddV2
        Rank_1 Const
        mod/y Const
        mod FloorMod
        Sub/y Const
        Sub Sub
        range/start Const
        range/delta Const
        range Range
        add_1/y Const
        add_1 AddV2
        range_1/delta Const
        range_1 Range
        concat/values_1 Pack
        concat/values_3 Pack
        concat/axis Const
        concat ConcatV2
        transpose Transpose
        Softmax Softmax
        Sub_1/y Const
        Sub_1 Sub
        range_2/start Const
        range_2/delta Const
        range_2 Range
        add_2/y Const
        add_2 AddV2
        range_3/delta Const
        range_3 Range
        concat_1/values_1 Pack
        concat_1/values_3 Pack
        concat_1/axis Const
        concat_1 ConcatV2
        transpose_1 Transpose
        Rank_2 Const
        Rank_3 Const
        Sub_2/y Const
        Sub_2 Sub
        range_4/start Const
        range_4/limit Const
        range_4/delta Const
        range_4 Range
        range_5/start Const
        range_5/delta Const
        range_5 Range
        concat_2/values_1 Pack
        concat_2/values_3 Const
        concat_2/axis Const
        concat_2 ConcatV2
        transpose_2 Transpose
        LogSoftmax LogSoftmax
        Sub_3/y Const
        Sub_3 Sub
        range_6/start Const
        range_6/limit Const
        range_6/delta Const
        range_6 Range
        range_7/start Const
        range_7/delta Const
        range_7 Range
        concat_3/values_1 Pack
        concat_3/values_3 Const
        concat_3/axis Const
        concat_3 ConcatV2
        ls Transpose
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=70
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", NN_CASES)
def test_nn_functions_build_tf_ops(code, want):
    # softmax on another axis swaps it with the last by TF's Rank/Range/concat transpose;
    # sharded embedding lookups stitch with ParallelDynamicStitch ('div': a Select)
    assert _op_list(code) == _want(want)


SCHEDULE_CASES = [
    (
        'gs = tf.train.get_or_create_global_step(); lr = tf.train.linear_cosine_decay(0.1, gs, 100); lr2 = tf.train.noisy_linear_cosine_decay(0.1, gs, 100); z = tf.random_normal([2])',
        """
        global_step/Initializer/zeros Const
        global_step VariableV2
        global_step/Assign Assign
        global_step/read Identity
        LinearCosineDecay/initial_learning_rate Const
        LinearCosineDecay/Cast/x Const
        LinearCosineDecay/Cast Cast
        LinearCosineDecay/Cast_1/x Const
        LinearCosineDecay/Cast_2/x Const
        LinearCosineDecay/Cast_3/x Const
        LinearCosineDecay/Cast_4 Cast
        LinearCosineDecay/Minimum Minimum
        LinearCosineDecay/sub Sub
        LinearCosineDecay/truediv RealDiv
        LinearCosineDecay/truediv_1 RealDiv
        LinearCosineDecay/mul/x Const
        LinearCosineDecay/mul Mul
        LinearCosineDecay/mul_1 Mul
        LinearCosineDecay/Const Const
        LinearCosineDecay/mul_2 Mul
        LinearCosineDecay/Cos Cos
        LinearCosineDecay/add/x Const
        LinearCosineDecay/add AddV2
        LinearCosineDecay/mul_3/x Const
        LinearCosineDecay/mul_3 Mul
        LinearCosineDecay/add_1 AddV2
        LinearCosineDecay/mul_4 Mul
        LinearCosineDecay/add_2 AddV2
        LinearCosineDecay Mul
        NoisyLinearCosineDecay/initial_learning_rate Const
        NoisyLinearCosineDecay/Cast/x Const
        NoisyLinearCosineDecay/Cast Cast
        NoisyLinearCosineDecay/Cast_1/x Const
        NoisyLinearCosineDecay/Cast_2/x Const
        NoisyLinearCosineDecay/Cast_3/x Const
        NoisyLinearCosineDecay/Cast_4/x Const
        NoisyLinearCosineDecay/Cast_5/x Const
        NoisyLinearCosineDecay/Cast_6 Cast
        NoisyLinearCosineDecay/Minimum Minimum
        NoisyLinearCosineDecay/sub Sub
        NoisyLinearCosineDecay/truediv RealDiv
        NoisyLinearCosineDecay/add/x Const
        NoisyLinearCosineDecay/add AddV2
        NoisyLinearCosineDecay/Pow Pow
        NoisyLinearCosineDecay/truediv_1 RealDiv
        NoisyLinearCosineDecay/Sqrt Sqrt
        NoisyLinearCosineDecay/random_normal/shape Const
        NoisyLinearCosineDecay/random_normal/mean Const
        NoisyLinearCosineDecay/random_normal/RandomStandardNormal RandomStandardNormal seed2=48
        NoisyLinearCosineDecay/random_normal/mul Mul
        NoisyLinearCosineDecay/random_normal Add
        NoisyLinearCosineDecay/add_1 AddV2
        NoisyLinearCosineDecay/truediv_2 RealDiv
        NoisyLinearCosineDecay/mul/x Const
        NoisyLinearCosineDecay/mul Mul
        NoisyLinearCosineDecay/mul_1 Mul
        NoisyLinearCosineDecay/Const Const
        NoisyLinearCosineDecay/mul_2 Mul
        NoisyLinearCosineDecay/Cos Cos
        NoisyLinearCosineDecay/add_2/x Const
        NoisyLinearCosineDecay/add_2 AddV2
        NoisyLinearCosineDecay/mul_3/x Const
        NoisyLinearCosineDecay/mul_3 Mul
        NoisyLinearCosineDecay/add_3 AddV2
        NoisyLinearCosineDecay/mul_4 Mul
        NoisyLinearCosineDecay/add_4 AddV2
        NoisyLinearCosineDecay Mul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=70
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'v = tf.Variable(tf.zeros([3, 2])); w = tf.Variable(tf.zeros([2])); g, n = tf.clip_by_global_norm([v * 1.0, w * 1.0], 5.0); z = tf.random_uniform([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        zeros_1 Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        mul/y Const
        mul Mul
        mul_1/y Const
        mul_1 Mul
        global_norm/L2Loss L2Loss
        global_norm/L2Loss_1 L2Loss
        global_norm/stack Pack
        global_norm/Const Const
        global_norm/Sum Sum
        global_norm/Const_1 Const
        global_norm/mul Mul
        global_norm/global_norm Sqrt
        clip_by_global_norm/truediv/x Const
        clip_by_global_norm/truediv RealDiv
        clip_by_global_norm/Const Const
        clip_by_global_norm/truediv_1/y Const
        clip_by_global_norm/truediv_1 RealDiv
        clip_by_global_norm/Minimum Minimum
        clip_by_global_norm/mul/x Const
        clip_by_global_norm/mul Mul
        clip_by_global_norm/IsFinite IsFinite
        clip_by_global_norm/Const_1 Const
        clip_by_global_norm/Select Select
        clip_by_global_norm/mul_1 Mul
        clip_by_global_norm/clip_by_global_norm/_0 Identity
        clip_by_global_norm/mul_2 Mul
        clip_by_global_norm/clip_by_global_norm/_1 Identity
        random_uniform/shape Const
        random_uniform/min Const
        random_uniform/max Const
        random_uniform/RandomUniform RandomUniform seed2=38
        random_uniform/sub Sub
        random_uniform/mul Mul
        random_uniform Add
        """,
    ),
    (
        'l = tf.placeholder(tf.int64, [None]); p = tf.placeholder(tf.float32, [None, 3]); acc, up = tf.metrics.accuracy(l, tf.argmax(p, 1)); z = tf.random_uniform([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        ArgMax/dimension Const
        ArgMax ArgMax
        Equal Equal
        Cast Cast
        accuracy/total/Initializer/zeros Const
        accuracy/total VariableV2
        accuracy/total/Assign Assign
        accuracy/total/read Identity
        accuracy/count/Initializer/zeros Const
        accuracy/count VariableV2
        accuracy/count/Assign Assign
        accuracy/count/read Identity
        accuracy/Size Size
        accuracy/Cast Cast
        accuracy/Const Const
        accuracy/Sum Sum
        accuracy/AssignAdd AssignAdd
        accuracy/AssignAdd_1 AssignAdd
        accuracy/Maximum/y Const
        accuracy/Maximum Maximum
        accuracy/value DivNoNan
        accuracy/Maximum_1/y Const
        accuracy/Maximum_1 Maximum
        accuracy/update_op DivNoNan
        random_uniform/shape Const
        random_uniform/min Const
        random_uniform/max Const
        random_uniform/RandomUniform RandomUniform seed2=29
        random_uniform/sub Sub
        random_uniform/mul Mul
        random_uniform Add
        """,
    ),
    (
        'gs = tf.train.get_or_create_global_step(); lr = tf.train.exponential_decay(0.1, gs, 100, 0.96, staircase=True); lr3 = tf.train.polynomial_decay(0.1, gs, 100); lr4 = tf.train.exponential_decay(0.1, gs, 100, 0.96); z = tf.random_normal([2])',
        """
        global_step/Initializer/zeros Const
        global_step VariableV2
        global_step/Assign Assign
        global_step/read Identity
        ExponentialDecay/initial_learning_rate Const
        ExponentialDecay/Cast/x Const
        ExponentialDecay/Cast Cast
        ExponentialDecay/Cast_1/x Const
        ExponentialDecay/Cast_2 Cast
        ExponentialDecay/truediv RealDiv
        ExponentialDecay/Floor Floor
        ExponentialDecay/Pow Pow
        ExponentialDecay Mul
        PolynomialDecay/initial_learning_rate Const
        PolynomialDecay/Cast/x Const
        PolynomialDecay/Cast_1/x Const
        PolynomialDecay/Cast_2 Cast
        PolynomialDecay/Cast_3/x Const
        PolynomialDecay/Cast_3 Cast
        PolynomialDecay/Minimum/y Const
        PolynomialDecay/Minimum Minimum
        PolynomialDecay/truediv RealDiv
        PolynomialDecay/sub Sub
        PolynomialDecay/sub_1/x Const
        PolynomialDecay/sub_1 Sub
        PolynomialDecay/Pow Pow
        PolynomialDecay/Mul Mul
        PolynomialDecay Add
        ExponentialDecay_1/initial_learning_rate Const
        ExponentialDecay_1/Cast/x Const
        ExponentialDecay_1/Cast Cast
        ExponentialDecay_1/Cast_1/x Const
        ExponentialDecay_1/Cast_2 Cast
        ExponentialDecay_1/truediv RealDiv
        ExponentialDecay_1/Pow Pow
        ExponentialDecay_1 Mul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=39
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'gs = tf.train.get_or_create_global_step(); lr = tf.train.inverse_time_decay(0.1, gs, 100, 0.5); lr2 = tf.train.natural_exp_decay(0.1, gs, 100, 0.5); lr3 = tf.train.cosine_decay(0.1, gs, 100); z = tf.random_normal([2])',
        """
        global_step/Initializer/zeros Const
        global_step VariableV2
        global_step/Assign Assign
        global_step/read Identity
        InverseTimeDecay/initial_learning_rate Const
        InverseTimeDecay/Cast/x Const
        InverseTimeDecay/Cast Cast
        InverseTimeDecay/Cast_1/x Const
        InverseTimeDecay/Cast_2 Cast
        InverseTimeDecay/truediv RealDiv
        InverseTimeDecay/Const Const
        InverseTimeDecay/Cast_3 Cast
        InverseTimeDecay/Mul Mul
        InverseTimeDecay/Add Add
        InverseTimeDecay RealDiv
        Neg/x Const
        Neg Neg
        Exp Exp
        ExponentialDecay/initial_learning_rate Const
        ExponentialDecay/Cast/x Const
        ExponentialDecay/Cast Cast
        ExponentialDecay/Cast_1 Cast
        ExponentialDecay/truediv RealDiv
        ExponentialDecay/Pow Pow
        ExponentialDecay Mul
        CosineDecay/initial_learning_rate Const
        CosineDecay/Cast/x Const
        CosineDecay/Cast Cast
        CosineDecay/Cast_1 Cast
        CosineDecay/Minimum Minimum
        CosineDecay/truediv RealDiv
        CosineDecay/Const Const
        CosineDecay/mul Mul
        CosineDecay/Cos Cos
        CosineDecay/add/x Const
        CosineDecay/add AddV2
        CosineDecay/mul_1/x Const
        CosineDecay/mul_1 Mul
        CosineDecay/mul_2/x Const
        CosineDecay/mul_2 Mul
        CosineDecay/add_1/y Const
        CosineDecay/add_1 AddV2
        CosineDecay/Mul_3 Mul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=46
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", SCHEDULE_CASES)
def test_schedules_and_clipping_build_tf_ops(code, want):
    # the decays are TF 1.15's LearningRateSchedule ops (initial_learning_rate first), the
    # global norm sums L2Loss ops and an infinite norm selects NaN
    assert _op_list(code) == _want(want)


def test_seeded_mlp_trains_as_tf115():
    # a small seeded MLP with default initializers, two dropouts, a sparse cross entropy, an L2
    # penalty, a decayed Adam with global-norm clipping and an accuracy metric; the numbers are
    # what TF 1.15.0 printed for this program (the random op made after minimize() included:
    # its seed counts every op before it)
    rng = np.random.RandomState(0)
    xs = rng.randn(32, 8).astype(np.float32)
    ys = rng.randint(0, 3, size=32).astype(np.int64)
    tf.set_random_seed(42)
    x = tf.placeholder(tf.float32, [None, 8])
    y = tf.placeholder(tf.int64, [None])
    h = tf.layers.dense(x, 16, activation=tf.nn.relu)
    h = tf.layers.dropout(h, 0.3, training=True)
    h2 = tf.layers.dense(h, 16, activation=tf.nn.tanh)
    h2 = tf.nn.dropout(h2, keep_prob=0.8)
    logits = tf.layers.dense(h2, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    reg = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "kernel" in v.name])
    total = loss + 1e-3 * reg
    gs = tf.train.get_or_create_global_step()
    opt = tf.train.AdamOptimizer(tf.train.exponential_decay(0.05, gs, 10, 0.9))
    grads, tvars = zip(*opt.compute_gradients(total))
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    train = opt.apply_gradients(zip(grads, tvars), global_step=gs)
    _, acc_up = tf.metrics.accuracy(y, tf.argmax(logits, 1))
    extra = tf.random_uniform([2])
    assert len(tf.get_default_graph().get_operations()) == 411  # as in TF 1.15
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        np.testing.assert_allclose(sess.run(extra), [0.7769993543624878, 0.9003903865814209],
                                   rtol=1e-7)
        losses = [sess.run([loss, train], {x: xs, y: ys})[0] for _ in range(6)]
        np.testing.assert_allclose(
            losses, [1.442500352859497, 0.9391424655914307, 1.036285638809204,
                     0.833884596824646, 0.9001765847206116, 0.8831157684326172], rtol=1e-6)
        assert sess.run(acc_up, {x: xs, y: ys}) == 0.5625


MORE_GRADIENT_CASES = [
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.ones([3])); l = tf.reduce_sum(tf.exp(x * w)) + tf.reduce_sum(tf.sqrt(w)) + tf.reduce_sum(tf.pow(w, 2.0)); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Exp Exp
        Const Const
        Sum Sum
        Sqrt Sqrt
        Const_1 Const
        Sum_1 Sum
        add AddV2
        Pow/y Const
        Pow Pow
        Const_2 Const
        Sum_2 Sum
        add_1 AddV2
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_2_grad/Reshape/shape Const
        gradients/Sum_2_grad/Reshape Reshape
        gradients/Sum_2_grad/Const Const
        gradients/Sum_2_grad/Tile Tile
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/Sum_1_grad/Reshape/shape Const
        gradients/Sum_1_grad/Reshape Reshape
        gradients/Sum_1_grad/Const Const
        gradients/Sum_1_grad/Tile Tile
        gradients/Pow_grad/BroadcastGradientArgs/s0 Const
        gradients/Pow_grad/BroadcastGradientArgs/s1 Const
        gradients/Pow_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/Pow_grad/mul Mul
        gradients/Pow_grad/sub/y Const
        gradients/Pow_grad/sub Sub
        gradients/Pow_grad/Pow Pow
        gradients/Pow_grad/mul_1 Mul
        gradients/Pow_grad/Greater/y Const
        gradients/Pow_grad/Greater Greater
        gradients/Pow_grad/ones_like/Shape Const
        gradients/Pow_grad/ones_like/Const Const
        gradients/Pow_grad/ones_like Fill
        gradients/Pow_grad/Select Select
        gradients/Pow_grad/Log Log
        gradients/Pow_grad/zeros_like Const
        gradients/Pow_grad/Select_1 Select
        gradients/Pow_grad/mul_2 Mul
        gradients/Pow_grad/mul_3 Mul
        gradients/Pow_grad/Sum/reduction_indices Const
        gradients/Pow_grad/Sum Sum
        gradients/Pow_grad/Reshape/shape Const
        gradients/Pow_grad/Reshape Reshape
        gradients/Exp_grad/mul Mul
        gradients/Sqrt_grad/SqrtGrad SqrtGrad
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        gradients/AddN AddN
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=71
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.ones([3])); l = tf.reduce_sum(tf.maximum(x * w, 0.1)) + tf.reduce_sum(tf.minimum(x, w)); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Maximum/y Const
        Maximum Maximum
        Const Const
        Sum Sum
        Minimum Minimum
        Const_1 Const
        Sum_1 Sum
        add AddV2
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/Sum_1_grad/Reshape/shape Const
        gradients/Sum_1_grad/Reshape Reshape
        gradients/Sum_1_grad/Shape Shape
        gradients/Sum_1_grad/Tile Tile
        gradients/Maximum_grad/Shape Shape
        gradients/Maximum_grad/Shape_1 Const
        gradients/Maximum_grad/Shape_2 Shape
        gradients/Maximum_grad/zeros/Const Const
        gradients/Maximum_grad/zeros Fill
        gradients/Maximum_grad/GreaterEqual GreaterEqual
        gradients/Maximum_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/Maximum_grad/Select Select
        gradients/Maximum_grad/Sum Sum
        gradients/Maximum_grad/Reshape Reshape
        gradients/Maximum_grad/Select_1 Select
        gradients/Maximum_grad/Sum_1 Sum
        gradients/Maximum_grad/Reshape_1 Reshape
        gradients/Minimum_grad/Shape Shape
        gradients/Minimum_grad/Shape_1 Const
        gradients/Minimum_grad/Shape_2 Shape
        gradients/Minimum_grad/zeros/Const Const
        gradients/Minimum_grad/zeros Fill
        gradients/Minimum_grad/LessEqual LessEqual
        gradients/Minimum_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/Minimum_grad/Select Select
        gradients/Minimum_grad/Sum Sum
        gradients/Minimum_grad/Reshape Reshape
        gradients/Minimum_grad/Select_1 Select
        gradients/Minimum_grad/Sum_1 Sum
        gradients/Minimum_grad/Reshape_1 Reshape
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        gradients/AddN AddN
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=64
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.ones([3])); l = tf.reduce_sum(tf.concat([x * w, x], 1)); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        concat/axis Const
        concat ConcatV2
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/concat_grad/Rank Const
        gradients/concat_grad/mod FloorMod
        gradients/concat_grad/Shape Shape
        gradients/concat_grad/ShapeN ShapeN
        gradients/concat_grad/ConcatOffset ConcatOffset
        gradients/concat_grad/Slice Slice
        gradients/concat_grad/Slice_1 Slice
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=36
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'ids = tf.placeholder(tf.int32, [None]); e = tf.Variable(tf.ones([10, 3])); l = tf.reduce_sum(tf.nn.embedding_lookup(e, ids)); g = tf.gradients(l, e); t = tf.train.AdamOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        embedding_lookup/axis Const
        embedding_lookup GatherV2
        embedding_lookup/Identity Identity
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/embedding_lookup_grad/Shape Const
        gradients/embedding_lookup_grad/Cast Cast
        gradients/embedding_lookup_grad/Size Size
        gradients/embedding_lookup_grad/ExpandDims/dim Const
        gradients/embedding_lookup_grad/ExpandDims ExpandDims
        gradients/embedding_lookup_grad/strided_slice/stack Const
        gradients/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients/embedding_lookup_grad/strided_slice StridedSlice
        gradients/embedding_lookup_grad/concat/axis Const
        gradients/embedding_lookup_grad/concat ConcatV2
        gradients/embedding_lookup_grad/Reshape Reshape
        gradients/embedding_lookup_grad/Reshape_1 Reshape
        gradients_1/Shape Const
        gradients_1/grad_ys_0 Const
        gradients_1/Fill Fill
        gradients_1/Sum_grad/Reshape/shape Const
        gradients_1/Sum_grad/Reshape Reshape
        gradients_1/Sum_grad/Shape Shape
        gradients_1/Sum_grad/Tile Tile
        gradients_1/embedding_lookup_grad/Shape Const
        gradients_1/embedding_lookup_grad/Cast Cast
        gradients_1/embedding_lookup_grad/Size Size
        gradients_1/embedding_lookup_grad/ExpandDims/dim Const
        gradients_1/embedding_lookup_grad/ExpandDims ExpandDims
        gradients_1/embedding_lookup_grad/strided_slice/stack Const
        gradients_1/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients_1/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients_1/embedding_lookup_grad/strided_slice StridedSlice
        gradients_1/embedding_lookup_grad/concat/axis Const
        gradients_1/embedding_lookup_grad/concat ConcatV2
        gradients_1/embedding_lookup_grad/Reshape Reshape
        gradients_1/embedding_lookup_grad/Reshape_1 Reshape
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        Variable/Adam/Initializer/zeros Const
        Variable/Adam VariableV2
        Variable/Adam/Assign Assign
        Variable/Adam/read Identity
        Variable/Adam_1/Initializer/zeros Const
        Variable/Adam_1 VariableV2
        Variable/Adam_1/Assign Assign
        Variable/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_Variable/Unique Unique
        Adam/update_Variable/Shape Shape
        Adam/update_Variable/strided_slice/stack Const
        Adam/update_Variable/strided_slice/stack_1 Const
        Adam/update_Variable/strided_slice/stack_2 Const
        Adam/update_Variable/strided_slice StridedSlice
        Adam/update_Variable/UnsortedSegmentSum UnsortedSegmentSum
        Adam/update_Variable/sub/x Const
        Adam/update_Variable/sub Sub
        Adam/update_Variable/Sqrt Sqrt
        Adam/update_Variable/mul Mul
        Adam/update_Variable/sub_1/x Const
        Adam/update_Variable/sub_1 Sub
        Adam/update_Variable/truediv RealDiv
        Adam/update_Variable/sub_2/x Const
        Adam/update_Variable/sub_2 Sub
        Adam/update_Variable/mul_1 Mul
        Adam/update_Variable/mul_2 Mul
        Adam/update_Variable/Assign Assign
        Adam/update_Variable/ScatterAdd ScatterAdd
        Adam/update_Variable/mul_3 Mul
        Adam/update_Variable/sub_3/x Const
        Adam/update_Variable/sub_3 Sub
        Adam/update_Variable/mul_4 Mul
        Adam/update_Variable/mul_5 Mul
        Adam/update_Variable/Assign_1 Assign
        Adam/update_Variable/ScatterAdd_1 ScatterAdd
        Adam/update_Variable/Sqrt_1 Sqrt
        Adam/update_Variable/mul_6 Mul
        Adam/update_Variable/add AddV2
        Adam/update_Variable/truediv_1 RealDiv
        Adam/update_Variable/AssignSub AssignSub
        Adam/update_Variable/group_deps NoOp
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=111
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.Variable(tf.ones([3])); l = tf.reduce_mean(tf.abs(x - w)) + tf.reduce_max(x * w) + tf.nn.l2_loss(w); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        sub Sub
        Abs Abs
        Const Const
        Mean Mean
        mul Mul
        Const_1 Const
        Max Max
        add AddV2
        L2Loss L2Loss
        add_1 AddV2
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/L2Loss_grad/mul Mul
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Max_grad/Shape Shape
        gradients/Max_grad/Size Const
        gradients/Max_grad/add AddV2
        gradients/Max_grad/mod FloorMod
        gradients/Max_grad/Shape_1 Const
        gradients/Max_grad/range/start Const
        gradients/Max_grad/range/delta Const
        gradients/Max_grad/range Range
        gradients/Max_grad/Fill/value Const
        gradients/Max_grad/Fill Fill
        gradients/Max_grad/DynamicStitch DynamicStitch
        gradients/Max_grad/Reshape Reshape
        gradients/Max_grad/Reshape_1 Reshape
        gradients/Max_grad/Equal Equal
        gradients/Max_grad/Cast Cast
        gradients/Max_grad/Sum Sum
        gradients/Max_grad/Reshape_2 Reshape
        gradients/Max_grad/truediv RealDiv
        gradients/Max_grad/mul Mul
        gradients/Abs_grad/Sign Sign
        gradients/Abs_grad/mul Mul
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        gradients/sub_grad/Shape Shape
        gradients/sub_grad/Shape_1 Shape
        gradients/sub_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/sub_grad/Sum Sum
        gradients/sub_grad/Reshape Reshape
        gradients/sub_grad/Neg Neg
        gradients/sub_grad/Sum_1 Sum
        gradients/sub_grad/Reshape_1 Reshape
        gradients/AddN AddN
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=76
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 4]); w = tf.Variable(tf.ones([4, 4])); h = tf.matmul(x, w); a, b = tf.split(h, 2, axis=1); l = tf.reduce_sum(a * tf.nn.sigmoid(b)) + tf.reduce_sum(tf.transpose(h)) + tf.reduce_sum(tf.expand_dims(h, 0)) + tf.reduce_sum(tf.squeeze(tf.expand_dims(h, 0), 0)); g = tf.gradients(l, w); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        MatMul MatMul
        Const Const
        split/split_dim Const
        split Split
        Sigmoid Sigmoid
        mul Mul
        Const_1 Const
        Sum Sum
        transpose/perm Const
        transpose Transpose
        Const_2 Const
        Sum_1 Sum
        add AddV2
        ExpandDims/dim Const
        ExpandDims ExpandDims
        Const_3 Const
        Sum_2 Sum
        add_1 AddV2
        ExpandDims_1/dim Const
        ExpandDims_1 ExpandDims
        Squeeze Squeeze
        Const_4 Const
        Sum_3 Sum
        add_2 AddV2
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_3_grad/Reshape/shape Const
        gradients/Sum_3_grad/Reshape Reshape
        gradients/Sum_3_grad/Shape Shape
        gradients/Sum_3_grad/Tile Tile
        gradients/Sum_2_grad/Reshape/shape Const
        gradients/Sum_2_grad/Reshape Reshape
        gradients/Sum_2_grad/Shape Shape
        gradients/Sum_2_grad/Tile Tile
        gradients/Squeeze_grad/Shape Shape
        gradients/Squeeze_grad/Reshape Reshape
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/Sum_1_grad/Reshape/shape Const
        gradients/Sum_1_grad/Reshape Reshape
        gradients/Sum_1_grad/Shape Shape
        gradients/Sum_1_grad/Tile Tile
        gradients/ExpandDims_grad/Shape Shape
        gradients/ExpandDims_grad/Reshape Reshape
        gradients/ExpandDims_1_grad/Shape Shape
        gradients/ExpandDims_1_grad/Reshape Reshape
        gradients/mul_grad/Shape Shape
        gradients/mul_grad/Shape_1 Shape
        gradients/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Sum Sum
        gradients/mul_grad/Reshape Reshape
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/Sum_1 Sum
        gradients/mul_grad/Reshape_1 Reshape
        gradients/transpose_grad/InvertPermutation InvertPermutation
        gradients/transpose_grad/transpose Transpose
        gradients/Sigmoid_grad/SigmoidGrad SigmoidGrad
        gradients/split_grad/concat ConcatV2
        gradients/AddN AddN
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=73
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", MORE_GRADIENT_CASES)
def test_more_gradients_build_tf_ops(code, want):
    # Pow, Maximum/Minimum, ConcatV2 (ConcatOffset), GatherV2 (its int64 shape cast), Max
    # (reduced_shape), Transpose (InvertPermutation) and Adam's sparse update, as TF 1.15
    assert _op_list(code) == _want(want)


SAMPLED_CASES = [
    (
        'w = tf.Variable(tf.zeros([10, 4])); b = tf.Variable(tf.zeros([10])); x = tf.placeholder(tf.float32, [None, 4]); y = tf.placeholder(tf.int64, [None, 1]); l = tf.nn.sampled_softmax_loss(w, b, y, x, 3, 10); z = tf.random_normal([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        zeros_1 Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        Placeholder Placeholder
        Placeholder_1 Placeholder
        sampled_softmax_loss/Reshape/shape Const
        sampled_softmax_loss/Reshape Reshape
        sampled_softmax_loss/LogUniformCandidateSampler LogUniformCandidateSampler seed2=12
        sampled_softmax_loss/StopGradient StopGradient
        sampled_softmax_loss/StopGradient_1 StopGradient
        sampled_softmax_loss/StopGradient_2 StopGradient
        sampled_softmax_loss/concat/axis Const
        sampled_softmax_loss/concat ConcatV2
        sampled_softmax_loss/embedding_lookup/axis Const
        sampled_softmax_loss/embedding_lookup GatherV2
        sampled_softmax_loss/embedding_lookup/Identity Identity
        sampled_softmax_loss/Shape Shape
        sampled_softmax_loss/strided_slice/stack Const
        sampled_softmax_loss/strided_slice/stack_1 Const
        sampled_softmax_loss/strided_slice/stack_2 Const
        sampled_softmax_loss/strided_slice StridedSlice
        sampled_softmax_loss/stack/1 Const
        sampled_softmax_loss/stack Pack
        sampled_softmax_loss/Slice/begin Const
        sampled_softmax_loss/Slice Slice
        sampled_softmax_loss/Shape_1 Shape
        sampled_softmax_loss/strided_slice_1/stack Const
        sampled_softmax_loss/strided_slice_1/stack_1 Const
        sampled_softmax_loss/strided_slice_1/stack_2 Const
        sampled_softmax_loss/strided_slice_1 StridedSlice
        sampled_softmax_loss/stack_1/1 Const
        sampled_softmax_loss/stack_1 Pack
        sampled_softmax_loss/Slice_1/size Const
        sampled_softmax_loss/Slice_1 Slice
        sampled_softmax_loss/MatMul MatMul
        sampled_softmax_loss/embedding_lookup_1/axis Const
        sampled_softmax_loss/embedding_lookup_1 GatherV2
        sampled_softmax_loss/embedding_lookup_1/Identity Identity
        sampled_softmax_loss/Shape_2 Shape
        sampled_softmax_loss/Slice_2/begin Const
        sampled_softmax_loss/Slice_2 Slice
        sampled_softmax_loss/Shape_3 Shape
        sampled_softmax_loss/Slice_3/size Const
        sampled_softmax_loss/Slice_3 Slice
        sampled_softmax_loss/Shape_4 Shape
        sampled_softmax_loss/strided_slice_2/stack Const
        sampled_softmax_loss/strided_slice_2/stack_1 Const
        sampled_softmax_loss/strided_slice_2/stack_2 Const
        sampled_softmax_loss/strided_slice_2 StridedSlice
        sampled_softmax_loss/concat_1/values_0 Const
        sampled_softmax_loss/concat_1/axis Const
        sampled_softmax_loss/concat_1 ConcatV2
        sampled_softmax_loss/ExpandDims/dim Const
        sampled_softmax_loss/ExpandDims ExpandDims
        sampled_softmax_loss/Reshape_1 Reshape
        sampled_softmax_loss/Mul Mul
        sampled_softmax_loss/concat_2/values_0 Const
        sampled_softmax_loss/concat_2/axis Const
        sampled_softmax_loss/concat_2 ConcatV2
        sampled_softmax_loss/Reshape_2 Reshape
        sampled_softmax_loss/Shape_5 Shape
        sampled_softmax_loss/strided_slice_3/stack Const
        sampled_softmax_loss/strided_slice_3/stack_1 Const
        sampled_softmax_loss/strided_slice_3/stack_2 Const
        sampled_softmax_loss/strided_slice_3 StridedSlice
        sampled_softmax_loss/stack_2/1 Const
        sampled_softmax_loss/stack_2 Pack
        sampled_softmax_loss/ones/Const Const
        sampled_softmax_loss/ones Fill
        sampled_softmax_loss/MatMul_1 MatMul
        sampled_softmax_loss/Reshape_3/shape Const
        sampled_softmax_loss/Reshape_3 Reshape
        sampled_softmax_loss/Reshape_4/shape Const
        sampled_softmax_loss/Reshape_4 Reshape
        sampled_softmax_loss/Reshape_5/shape Const
        sampled_softmax_loss/Reshape_5 Reshape
        sampled_softmax_loss/add AddV2
        sampled_softmax_loss/add_1 AddV2
        sampled_softmax_loss/ComputeAccidentalHits ComputeAccidentalHits seed2=83
        sampled_softmax_loss/Reshape_6/shape Const
        sampled_softmax_loss/Reshape_6 Reshape
        sampled_softmax_loss/Cast Cast
        sampled_softmax_loss/Reshape_7/shape Const
        sampled_softmax_loss/Reshape_7 Reshape
        sampled_softmax_loss/sparse_indices/axis Const
        sampled_softmax_loss/sparse_indices ConcatV2
        sampled_softmax_loss/Shape_6 Shape
        sampled_softmax_loss/strided_slice_4/stack Const
        sampled_softmax_loss/strided_slice_4/stack_1 Const
        sampled_softmax_loss/strided_slice_4/stack_2 Const
        sampled_softmax_loss/strided_slice_4 StridedSlice
        sampled_softmax_loss/ExpandDims_1/input Const
        sampled_softmax_loss/ExpandDims_1/dim Const
        sampled_softmax_loss/ExpandDims_1 ExpandDims
        sampled_softmax_loss/concat_3/axis Const
        sampled_softmax_loss/concat_3 ConcatV2
        sampled_softmax_loss/SparseToDense/default_value Const
        sampled_softmax_loss/SparseToDense SparseToDense
        sampled_softmax_loss/add_2 AddV2
        sampled_softmax_loss/Log Log
        sampled_softmax_loss/sub Sub
        sampled_softmax_loss/Log_1 Log
        sampled_softmax_loss/sub_1 Sub
        sampled_softmax_loss/concat_4/axis Const
        sampled_softmax_loss/concat_4 ConcatV2
        sampled_softmax_loss/ones_like/Shape Shape
        sampled_softmax_loss/ones_like/Const Const
        sampled_softmax_loss/ones_like Fill
        sampled_softmax_loss/truediv/y Const
        sampled_softmax_loss/truediv RealDiv
        sampled_softmax_loss/zeros_like ZerosLike
        sampled_softmax_loss/concat_5/axis Const
        sampled_softmax_loss/concat_5 ConcatV2
        labels_stop_gradient StopGradient
        softmax_cross_entropy_with_logits/Rank Const
        softmax_cross_entropy_with_logits/Shape Shape
        softmax_cross_entropy_with_logits/Rank_1 Const
        softmax_cross_entropy_with_logits/Shape_1 Shape
        softmax_cross_entropy_with_logits/Sub/y Const
        softmax_cross_entropy_with_logits/Sub Sub
        softmax_cross_entropy_with_logits/Slice/begin Pack
        softmax_cross_entropy_with_logits/Slice/size Const
        softmax_cross_entropy_with_logits/Slice Slice
        softmax_cross_entropy_with_logits/concat/values_0 Const
        softmax_cross_entropy_with_logits/concat/axis Const
        softmax_cross_entropy_with_logits/concat ConcatV2
        softmax_cross_entropy_with_logits/Reshape Reshape
        softmax_cross_entropy_with_logits/Rank_2 Const
        softmax_cross_entropy_with_logits/Shape_2 Shape
        softmax_cross_entropy_with_logits/Sub_1/y Const
        softmax_cross_entropy_with_logits/Sub_1 Sub
        softmax_cross_entropy_with_logits/Slice_1/begin Pack
        softmax_cross_entropy_with_logits/Slice_1/size Const
        softmax_cross_entropy_with_logits/Slice_1 Slice
        softmax_cross_entropy_with_logits/concat_1/values_0 Const
        softmax_cross_entropy_with_logits/concat_1/axis Const
        softmax_cross_entropy_with_logits/concat_1 ConcatV2
        softmax_cross_entropy_with_logits/Reshape_1 Reshape
        softmax_cross_entropy_with_logits SoftmaxCrossEntropyWithLogits
        softmax_cross_entropy_with_logits/Sub_2/y Const
        softmax_cross_entropy_with_logits/Sub_2 Sub
        softmax_cross_entropy_with_logits/Slice_2/begin Const
        softmax_cross_entropy_with_logits/Slice_2/size Pack
        softmax_cross_entropy_with_logits/Slice_2 Slice
        softmax_cross_entropy_with_logits/Reshape_2 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=153
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'w = tf.Variable(tf.zeros([10, 4])); b = tf.Variable(tf.zeros([10])); x = tf.placeholder(tf.float32, [None, 4]); y = tf.placeholder(tf.int64, [None, 1]); l = tf.nn.nce_loss(w, b, y, x, 3, 10); z = tf.random_normal([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        zeros_1 Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        Placeholder Placeholder
        Placeholder_1 Placeholder
        nce_loss/Reshape/shape Const
        nce_loss/Reshape Reshape
        nce_loss/LogUniformCandidateSampler LogUniformCandidateSampler seed2=12
        nce_loss/StopGradient StopGradient
        nce_loss/StopGradient_1 StopGradient
        nce_loss/StopGradient_2 StopGradient
        nce_loss/concat/axis Const
        nce_loss/concat ConcatV2
        nce_loss/embedding_lookup/axis Const
        nce_loss/embedding_lookup GatherV2
        nce_loss/embedding_lookup/Identity Identity
        nce_loss/Shape Shape
        nce_loss/strided_slice/stack Const
        nce_loss/strided_slice/stack_1 Const
        nce_loss/strided_slice/stack_2 Const
        nce_loss/strided_slice StridedSlice
        nce_loss/stack/1 Const
        nce_loss/stack Pack
        nce_loss/Slice/begin Const
        nce_loss/Slice Slice
        nce_loss/Shape_1 Shape
        nce_loss/strided_slice_1/stack Const
        nce_loss/strided_slice_1/stack_1 Const
        nce_loss/strided_slice_1/stack_2 Const
        nce_loss/strided_slice_1 StridedSlice
        nce_loss/stack_1/1 Const
        nce_loss/stack_1 Pack
        nce_loss/Slice_1/size Const
        nce_loss/Slice_1 Slice
        nce_loss/MatMul MatMul
        nce_loss/embedding_lookup_1/axis Const
        nce_loss/embedding_lookup_1 GatherV2
        nce_loss/embedding_lookup_1/Identity Identity
        nce_loss/Shape_2 Shape
        nce_loss/Slice_2/begin Const
        nce_loss/Slice_2 Slice
        nce_loss/Shape_3 Shape
        nce_loss/Slice_3/size Const
        nce_loss/Slice_3 Slice
        nce_loss/Shape_4 Shape
        nce_loss/strided_slice_2/stack Const
        nce_loss/strided_slice_2/stack_1 Const
        nce_loss/strided_slice_2/stack_2 Const
        nce_loss/strided_slice_2 StridedSlice
        nce_loss/concat_1/values_0 Const
        nce_loss/concat_1/axis Const
        nce_loss/concat_1 ConcatV2
        nce_loss/ExpandDims/dim Const
        nce_loss/ExpandDims ExpandDims
        nce_loss/Reshape_1 Reshape
        nce_loss/Mul Mul
        nce_loss/concat_2/values_0 Const
        nce_loss/concat_2/axis Const
        nce_loss/concat_2 ConcatV2
        nce_loss/Reshape_2 Reshape
        nce_loss/Shape_5 Shape
        nce_loss/strided_slice_3/stack Const
        nce_loss/strided_slice_3/stack_1 Const
        nce_loss/strided_slice_3/stack_2 Const
        nce_loss/strided_slice_3 StridedSlice
        nce_loss/stack_2/1 Const
        nce_loss/stack_2 Pack
        nce_loss/ones/Const Const
        nce_loss/ones Fill
        nce_loss/MatMul_1 MatMul
        nce_loss/Reshape_3/shape Const
        nce_loss/Reshape_3 Reshape
        nce_loss/Reshape_4/shape Const
        nce_loss/Reshape_4 Reshape
        nce_loss/Reshape_5/shape Const
        nce_loss/Reshape_5 Reshape
        nce_loss/add AddV2
        nce_loss/add_1 AddV2
        nce_loss/Log Log
        nce_loss/sub Sub
        nce_loss/Log_1 Log
        nce_loss/sub_1 Sub
        nce_loss/concat_3/axis Const
        nce_loss/concat_3 ConcatV2
        nce_loss/ones_like/Shape Shape
        nce_loss/ones_like/Const Const
        nce_loss/ones_like Fill
        nce_loss/truediv/y Const
        nce_loss/truediv RealDiv
        nce_loss/zeros_like ZerosLike
        nce_loss/concat_4/axis Const
        nce_loss/concat_4 ConcatV2
        sampled_losses/zeros_like ZerosLike
        sampled_losses/GreaterEqual GreaterEqual
        sampled_losses/Select Select
        sampled_losses/Neg Neg
        sampled_losses/Select_1 Select
        sampled_losses/mul Mul
        sampled_losses/sub Sub
        sampled_losses/Exp Exp
        sampled_losses/Log1p Log1p
        sampled_losses Add
        Shape Shape
        strided_slice/stack Const
        strided_slice/stack_1 Const
        strided_slice/stack_2 Const
        strided_slice StridedSlice
        stack/1 Const
        stack Pack
        ones/Const Const
        ones Fill
        MatMul MatMul
        Reshape/shape Const
        Reshape Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=122
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'emb = tf.Variable(tf.random_uniform([50, 8], -1.0, 1.0)); ids = tf.placeholder(tf.int32, [None]); lab = tf.placeholder(tf.int32, [None, 1]); e = tf.nn.embedding_lookup(emb, ids); nw = tf.Variable(tf.truncated_normal([50, 8], stddev=0.3)); nb = tf.Variable(tf.zeros([50])); loss = tf.reduce_mean(tf.nn.nce_loss(nw, nb, lab, e, 4, 50)); opt = tf.train.GradientDescentOptimizer(1.0).minimize(loss); norm = tf.sqrt(tf.reduce_sum(tf.square(emb), 1, keep_dims=True)); ne = emb / norm; z = tf.random_normal([2])',
        """
        random_uniform/shape Const
        random_uniform/min Const
        random_uniform/max Const
        random_uniform/RandomUniform RandomUniform seed2=3
        random_uniform/sub Sub
        random_uniform/mul Mul
        random_uniform Add
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        Placeholder Placeholder
        Placeholder_1 Placeholder
        embedding_lookup/axis Const
        embedding_lookup GatherV2
        embedding_lookup/Identity Identity
        truncated_normal/shape Const
        truncated_normal/mean Const
        truncated_normal/stddev Const
        truncated_normal/TruncatedNormal TruncatedNormal seed2=18
        truncated_normal/mul Mul
        truncated_normal Add
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        zeros Const
        Variable_2 VariableV2
        Variable_2/Assign Assign
        Variable_2/read Identity
        nce_loss/Cast Cast
        nce_loss/Reshape/shape Const
        nce_loss/Reshape Reshape
        nce_loss/LogUniformCandidateSampler LogUniformCandidateSampler seed2=31
        nce_loss/StopGradient StopGradient
        nce_loss/StopGradient_1 StopGradient
        nce_loss/StopGradient_2 StopGradient
        nce_loss/concat/axis Const
        nce_loss/concat ConcatV2
        nce_loss/embedding_lookup/axis Const
        nce_loss/embedding_lookup GatherV2
        nce_loss/embedding_lookup/Identity Identity
        nce_loss/Shape Shape
        nce_loss/strided_slice/stack Const
        nce_loss/strided_slice/stack_1 Const
        nce_loss/strided_slice/stack_2 Const
        nce_loss/strided_slice StridedSlice
        nce_loss/stack/1 Const
        nce_loss/stack Pack
        nce_loss/Slice/begin Const
        nce_loss/Slice Slice
        nce_loss/Shape_1 Shape
        nce_loss/strided_slice_1/stack Const
        nce_loss/strided_slice_1/stack_1 Const
        nce_loss/strided_slice_1/stack_2 Const
        nce_loss/strided_slice_1 StridedSlice
        nce_loss/stack_1/1 Const
        nce_loss/stack_1 Pack
        nce_loss/Slice_1/size Const
        nce_loss/Slice_1 Slice
        nce_loss/MatMul MatMul
        nce_loss/embedding_lookup_1/axis Const
        nce_loss/embedding_lookup_1 GatherV2
        nce_loss/embedding_lookup_1/Identity Identity
        nce_loss/Shape_2 Shape
        nce_loss/Slice_2/begin Const
        nce_loss/Slice_2 Slice
        nce_loss/Shape_3 Shape
        nce_loss/Slice_3/size Const
        nce_loss/Slice_3 Slice
        nce_loss/Shape_4 Shape
        nce_loss/strided_slice_2/stack Const
        nce_loss/strided_slice_2/stack_1 Const
        nce_loss/strided_slice_2/stack_2 Const
        nce_loss/strided_slice_2 StridedSlice
        nce_loss/concat_1/values_0 Const
        nce_loss/concat_1/axis Const
        nce_loss/concat_1 ConcatV2
        nce_loss/ExpandDims/dim Const
        nce_loss/ExpandDims ExpandDims
        nce_loss/Reshape_1 Reshape
        nce_loss/Mul Mul
        nce_loss/concat_2/values_0 Const
        nce_loss/concat_2/axis Const
        nce_loss/concat_2 ConcatV2
        nce_loss/Reshape_2 Reshape
        nce_loss/Shape_5 Shape
        nce_loss/strided_slice_3/stack Const
        nce_loss/strided_slice_3/stack_1 Const
        nce_loss/strided_slice_3/stack_2 Const
        nce_loss/strided_slice_3 StridedSlice
        nce_loss/stack_2/1 Const
        nce_loss/stack_2 Pack
        nce_loss/ones/Const Const
        nce_loss/ones Fill
        nce_loss/MatMul_1 MatMul
        nce_loss/Reshape_3/shape Const
        nce_loss/Reshape_3 Reshape
        nce_loss/Reshape_4/shape Const
        nce_loss/Reshape_4 Reshape
        nce_loss/Reshape_5/shape Const
        nce_loss/Reshape_5 Reshape
        nce_loss/add AddV2
        nce_loss/add_1 AddV2
        nce_loss/Log Log
        nce_loss/sub Sub
        nce_loss/Log_1 Log
        nce_loss/sub_1 Sub
        nce_loss/concat_3/axis Const
        nce_loss/concat_3 ConcatV2
        nce_loss/ones_like/Shape Shape
        nce_loss/ones_like/Const Const
        nce_loss/ones_like Fill
        nce_loss/truediv/y Const
        nce_loss/truediv RealDiv
        nce_loss/zeros_like ZerosLike
        nce_loss/concat_4/axis Const
        nce_loss/concat_4 ConcatV2
        sampled_losses/zeros_like ZerosLike
        sampled_losses/GreaterEqual GreaterEqual
        sampled_losses/Select Select
        sampled_losses/Neg Neg
        sampled_losses/Select_1 Select
        sampled_losses/mul Mul
        sampled_losses/sub Sub
        sampled_losses/Exp Exp
        sampled_losses/Log1p Log1p
        sampled_losses Add
        Shape Shape
        strided_slice/stack Const
        strided_slice/stack_1 Const
        strided_slice/stack_2 Const
        strided_slice StridedSlice
        stack/1 Const
        stack Pack
        ones/Const Const
        ones Fill
        MatMul MatMul
        Reshape/shape Const
        Reshape Reshape
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Reshape_grad/Shape Shape
        gradients/Reshape_grad/Reshape Reshape
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        gradients/MatMul_grad/tuple/group_deps NoOp
        gradients/MatMul_grad/tuple/control_dependency Identity
        gradients/MatMul_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses_grad/Shape Shape
        gradients/sampled_losses_grad/Shape_1 Shape
        gradients/sampled_losses_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/sampled_losses_grad/Sum Sum
        gradients/sampled_losses_grad/Reshape Reshape
        gradients/sampled_losses_grad/Sum_1 Sum
        gradients/sampled_losses_grad/Reshape_1 Reshape
        gradients/sampled_losses_grad/tuple/group_deps NoOp
        gradients/sampled_losses_grad/tuple/control_dependency Identity
        gradients/sampled_losses_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses/sub_grad/Shape Shape
        gradients/sampled_losses/sub_grad/Shape_1 Shape
        gradients/sampled_losses/sub_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/sampled_losses/sub_grad/Sum Sum
        gradients/sampled_losses/sub_grad/Reshape Reshape
        gradients/sampled_losses/sub_grad/Neg Neg
        gradients/sampled_losses/sub_grad/Sum_1 Sum
        gradients/sampled_losses/sub_grad/Reshape_1 Reshape
        gradients/sampled_losses/sub_grad/tuple/group_deps NoOp
        gradients/sampled_losses/sub_grad/tuple/control_dependency Identity
        gradients/sampled_losses/sub_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses/Log1p_grad/add/x Const
        gradients/sampled_losses/Log1p_grad/add AddV2
        gradients/sampled_losses/Log1p_grad/Reciprocal Reciprocal
        gradients/sampled_losses/Log1p_grad/mul Mul
        gradients/sampled_losses/Select_grad/zeros_like ZerosLike
        gradients/sampled_losses/Select_grad/Select Select
        gradients/sampled_losses/Select_grad/Select_1 Select
        gradients/sampled_losses/Select_grad/tuple/group_deps NoOp
        gradients/sampled_losses/Select_grad/tuple/control_dependency Identity
        gradients/sampled_losses/Select_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses/mul_grad/Shape Shape
        gradients/sampled_losses/mul_grad/Shape_1 Shape
        gradients/sampled_losses/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/sampled_losses/mul_grad/Mul Mul
        gradients/sampled_losses/mul_grad/Sum Sum
        gradients/sampled_losses/mul_grad/Reshape Reshape
        gradients/sampled_losses/mul_grad/Mul_1 Mul
        gradients/sampled_losses/mul_grad/Sum_1 Sum
        gradients/sampled_losses/mul_grad/Reshape_1 Reshape
        gradients/sampled_losses/mul_grad/tuple/group_deps NoOp
        gradients/sampled_losses/mul_grad/tuple/control_dependency Identity
        gradients/sampled_losses/mul_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses/Exp_grad/mul Mul
        gradients/nce_loss/concat_4_grad/Rank Const
        gradients/nce_loss/concat_4_grad/mod FloorMod
        gradients/nce_loss/concat_4_grad/Shape Shape
        gradients/nce_loss/concat_4_grad/ShapeN ShapeN
        gradients/nce_loss/concat_4_grad/ConcatOffset ConcatOffset
        gradients/nce_loss/concat_4_grad/Slice Slice
        gradients/nce_loss/concat_4_grad/Slice_1 Slice
        gradients/nce_loss/concat_4_grad/tuple/group_deps NoOp
        gradients/nce_loss/concat_4_grad/tuple/control_dependency Identity
        gradients/nce_loss/concat_4_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses/Select_1_grad/zeros_like ZerosLike
        gradients/sampled_losses/Select_1_grad/Select Select
        gradients/sampled_losses/Select_1_grad/Select_1 Select
        gradients/sampled_losses/Select_1_grad/tuple/group_deps NoOp
        gradients/sampled_losses/Select_1_grad/tuple/control_dependency Identity
        gradients/sampled_losses/Select_1_grad/tuple/control_dependency_1 Identity
        gradients/sampled_losses/Neg_grad/Neg Neg
        gradients/AddN AddN
        gradients/nce_loss/concat_3_grad/Rank Const
        gradients/nce_loss/concat_3_grad/mod FloorMod
        gradients/nce_loss/concat_3_grad/Shape Shape
        gradients/nce_loss/concat_3_grad/ShapeN ShapeN
        gradients/nce_loss/concat_3_grad/ConcatOffset ConcatOffset
        gradients/nce_loss/concat_3_grad/Slice Slice
        gradients/nce_loss/concat_3_grad/Slice_1 Slice
        gradients/nce_loss/concat_3_grad/tuple/group_deps NoOp
        gradients/nce_loss/concat_3_grad/tuple/control_dependency Identity
        gradients/nce_loss/concat_3_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/sub_grad/Shape Shape
        gradients/nce_loss/sub_grad/Shape_1 Shape
        gradients/nce_loss/sub_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/nce_loss/sub_grad/Sum Sum
        gradients/nce_loss/sub_grad/Reshape Reshape
        gradients/nce_loss/sub_grad/Neg Neg
        gradients/nce_loss/sub_grad/Sum_1 Sum
        gradients/nce_loss/sub_grad/Reshape_1 Reshape
        gradients/nce_loss/sub_grad/tuple/group_deps NoOp
        gradients/nce_loss/sub_grad/tuple/control_dependency Identity
        gradients/nce_loss/sub_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/sub_1_grad/Shape Shape
        gradients/nce_loss/sub_1_grad/Shape_1 Shape
        gradients/nce_loss/sub_1_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/nce_loss/sub_1_grad/Sum Sum
        gradients/nce_loss/sub_1_grad/Reshape Reshape
        gradients/nce_loss/sub_1_grad/Neg Neg
        gradients/nce_loss/sub_1_grad/Sum_1 Sum
        gradients/nce_loss/sub_1_grad/Reshape_1 Reshape
        gradients/nce_loss/sub_1_grad/tuple/group_deps NoOp
        gradients/nce_loss/sub_1_grad/tuple/control_dependency Identity
        gradients/nce_loss/sub_1_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/add_grad/Shape Shape
        gradients/nce_loss/add_grad/Shape_1 Shape
        gradients/nce_loss/add_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/nce_loss/add_grad/Sum Sum
        gradients/nce_loss/add_grad/Reshape Reshape
        gradients/nce_loss/add_grad/Sum_1 Sum
        gradients/nce_loss/add_grad/Reshape_1 Reshape
        gradients/nce_loss/add_grad/tuple/group_deps NoOp
        gradients/nce_loss/add_grad/tuple/control_dependency Identity
        gradients/nce_loss/add_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/add_1_grad/Shape Shape
        gradients/nce_loss/add_1_grad/Shape_1 Shape
        gradients/nce_loss/add_1_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/nce_loss/add_1_grad/Sum Sum
        gradients/nce_loss/add_1_grad/Reshape Reshape
        gradients/nce_loss/add_1_grad/Sum_1 Sum
        gradients/nce_loss/add_1_grad/Reshape_1 Reshape
        gradients/nce_loss/add_1_grad/tuple/group_deps NoOp
        gradients/nce_loss/add_1_grad/tuple/control_dependency Identity
        gradients/nce_loss/add_1_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/Reshape_4_grad/Shape Shape
        gradients/nce_loss/Reshape_4_grad/Reshape Reshape
        gradients/nce_loss/Reshape_5_grad/Shape Shape
        gradients/nce_loss/Reshape_5_grad/Reshape Reshape
        gradients/nce_loss/MatMul_grad/MatMul MatMul
        gradients/nce_loss/MatMul_grad/MatMul_1 MatMul
        gradients/nce_loss/MatMul_grad/tuple/group_deps NoOp
        gradients/nce_loss/MatMul_grad/tuple/control_dependency Identity
        gradients/nce_loss/MatMul_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/Slice_3_grad/Rank Const
        gradients/nce_loss/Slice_3_grad/Shape Shape
        gradients/nce_loss/Slice_3_grad/stack/1 Const
        gradients/nce_loss/Slice_3_grad/stack Pack
        gradients/nce_loss/Slice_3_grad/Reshape Reshape
        gradients/nce_loss/Slice_3_grad/Shape_1 Shape
        gradients/nce_loss/Slice_3_grad/sub Sub
        gradients/nce_loss/Slice_3_grad/sub_1 Sub
        gradients/nce_loss/Slice_3_grad/Reshape_1 Reshape
        gradients/nce_loss/Slice_3_grad/concat/axis Const
        gradients/nce_loss/Slice_3_grad/concat ConcatV2
        gradients/nce_loss/Slice_3_grad/Pad Pad
        gradients/nce_loss/Reshape_3_grad/Shape Shape
        gradients/nce_loss/Reshape_3_grad/Reshape Reshape
        gradients/nce_loss/Slice_2_grad/Rank Const
        gradients/nce_loss/Slice_2_grad/Shape Shape
        gradients/nce_loss/Slice_2_grad/stack/1 Const
        gradients/nce_loss/Slice_2_grad/stack Pack
        gradients/nce_loss/Slice_2_grad/Reshape Reshape
        gradients/nce_loss/Slice_2_grad/Shape_1 Shape
        gradients/nce_loss/Slice_2_grad/sub Sub
        gradients/nce_loss/Slice_2_grad/sub_1 Sub
        gradients/nce_loss/Slice_2_grad/Reshape_1 Reshape
        gradients/nce_loss/Slice_2_grad/concat/axis Const
        gradients/nce_loss/Slice_2_grad/concat ConcatV2
        gradients/nce_loss/Slice_2_grad/Pad Pad
        gradients/nce_loss/Slice_1_grad/Rank Const
        gradients/nce_loss/Slice_1_grad/Shape Shape
        gradients/nce_loss/Slice_1_grad/stack/1 Const
        gradients/nce_loss/Slice_1_grad/stack Pack
        gradients/nce_loss/Slice_1_grad/Reshape Reshape
        gradients/nce_loss/Slice_1_grad/Shape_1 Shape
        gradients/nce_loss/Slice_1_grad/sub Sub
        gradients/nce_loss/Slice_1_grad/sub_1 Sub
        gradients/nce_loss/Slice_1_grad/Reshape_1 Reshape
        gradients/nce_loss/Slice_1_grad/concat/axis Const
        gradients/nce_loss/Slice_1_grad/concat ConcatV2
        gradients/nce_loss/Slice_1_grad/Pad Pad
        gradients/nce_loss/MatMul_1_grad/MatMul MatMul
        gradients/nce_loss/MatMul_1_grad/MatMul_1 MatMul
        gradients/nce_loss/MatMul_1_grad/tuple/group_deps NoOp
        gradients/nce_loss/MatMul_1_grad/tuple/control_dependency Identity
        gradients/nce_loss/MatMul_1_grad/tuple/control_dependency_1 Identity
        gradients/AddN_1 AddN
        gradients/nce_loss/Reshape_2_grad/Shape Shape
        gradients/nce_loss/Reshape_2_grad/Reshape Reshape
        gradients/nce_loss/embedding_lookup_1_grad/Shape Const
        gradients/nce_loss/embedding_lookup_1_grad/Cast Cast
        gradients/nce_loss/embedding_lookup_1_grad/Size Size
        gradients/nce_loss/embedding_lookup_1_grad/ExpandDims/dim Const
        gradients/nce_loss/embedding_lookup_1_grad/ExpandDims ExpandDims
        gradients/nce_loss/embedding_lookup_1_grad/strided_slice/stack Const
        gradients/nce_loss/embedding_lookup_1_grad/strided_slice/stack_1 Const
        gradients/nce_loss/embedding_lookup_1_grad/strided_slice/stack_2 Const
        gradients/nce_loss/embedding_lookup_1_grad/strided_slice StridedSlice
        gradients/nce_loss/embedding_lookup_1_grad/concat/axis Const
        gradients/nce_loss/embedding_lookup_1_grad/concat ConcatV2
        gradients/nce_loss/embedding_lookup_1_grad/Reshape Reshape
        gradients/nce_loss/embedding_lookup_1_grad/Reshape_1 Reshape
        gradients/nce_loss/Mul_grad/Shape Shape
        gradients/nce_loss/Mul_grad/Shape_1 Shape
        gradients/nce_loss/Mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/nce_loss/Mul_grad/Mul Mul
        gradients/nce_loss/Mul_grad/Sum Sum
        gradients/nce_loss/Mul_grad/Reshape Reshape
        gradients/nce_loss/Mul_grad/Mul_1 Mul
        gradients/nce_loss/Mul_grad/Sum_1 Sum
        gradients/nce_loss/Mul_grad/Reshape_1 Reshape
        gradients/nce_loss/Mul_grad/tuple/group_deps NoOp
        gradients/nce_loss/Mul_grad/tuple/control_dependency Identity
        gradients/nce_loss/Mul_grad/tuple/control_dependency_1 Identity
        gradients/nce_loss/ExpandDims_grad/Shape Shape
        gradients/nce_loss/ExpandDims_grad/Reshape Reshape
        gradients/nce_loss/Reshape_1_grad/Shape Shape
        gradients/nce_loss/Reshape_1_grad/Reshape Reshape
        gradients/AddN_2 AddN
        gradients/nce_loss/Slice_grad/Rank Const
        gradients/nce_loss/Slice_grad/Shape Shape
        gradients/nce_loss/Slice_grad/stack/1 Const
        gradients/nce_loss/Slice_grad/stack Pack
        gradients/nce_loss/Slice_grad/Reshape Reshape
        gradients/nce_loss/Slice_grad/Shape_1 Shape
        gradients/nce_loss/Slice_grad/sub Sub
        gradients/nce_loss/Slice_grad/sub_1 Sub
        gradients/nce_loss/Slice_grad/Reshape_1 Reshape
        gradients/nce_loss/Slice_grad/concat/axis Const
        gradients/nce_loss/Slice_grad/concat ConcatV2
        gradients/nce_loss/Slice_grad/Pad Pad
        gradients/embedding_lookup_grad/Shape Const
        gradients/embedding_lookup_grad/Cast Cast
        gradients/embedding_lookup_grad/Size Size
        gradients/embedding_lookup_grad/ExpandDims/dim Const
        gradients/embedding_lookup_grad/ExpandDims ExpandDims
        gradients/embedding_lookup_grad/strided_slice/stack Const
        gradients/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients/embedding_lookup_grad/strided_slice StridedSlice
        gradients/embedding_lookup_grad/concat/axis Const
        gradients/embedding_lookup_grad/concat ConcatV2
        gradients/embedding_lookup_grad/Reshape Reshape
        gradients/embedding_lookup_grad/Reshape_1 Reshape
        gradients/AddN_3 AddN
        gradients/nce_loss/embedding_lookup_grad/Shape Const
        gradients/nce_loss/embedding_lookup_grad/Cast Cast
        gradients/nce_loss/embedding_lookup_grad/Size Size
        gradients/nce_loss/embedding_lookup_grad/ExpandDims/dim Const
        gradients/nce_loss/embedding_lookup_grad/ExpandDims ExpandDims
        gradients/nce_loss/embedding_lookup_grad/strided_slice/stack Const
        gradients/nce_loss/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients/nce_loss/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients/nce_loss/embedding_lookup_grad/strided_slice StridedSlice
        gradients/nce_loss/embedding_lookup_grad/concat/axis Const
        gradients/nce_loss/embedding_lookup_grad/concat ConcatV2
        gradients/nce_loss/embedding_lookup_grad/Reshape Reshape
        gradients/nce_loss/embedding_lookup_grad/Reshape_1 Reshape
        GradientDescent/learning_rate Const
        GradientDescent/update_Variable/mul Mul
        GradientDescent/update_Variable/ScatterSub ScatterSub
        GradientDescent/update_Variable_1/mul Mul
        GradientDescent/update_Variable_1/ScatterSub ScatterSub
        GradientDescent/update_Variable_2/mul Mul
        GradientDescent/update_Variable_2/ScatterSub ScatterSub
        GradientDescent NoOp
        Square Square
        Sum/reduction_indices Const
        Sum Sum
        Sqrt Sqrt
        truediv RealDiv
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=419
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", SAMPLED_CASES)
def test_sampled_losses_build_tf_ops(code, want):
    # _compute_sampled_logits sliced as TF's (true/sampled rows by Slice, _sum_rows' matmul,
    # accidental hits by SparseToDense); the word2vec graph's Slice gradients pad as TF's
    assert _op_list(code) == _want(want)


MODEL_CASES = [
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.layers.separable_conv2d(x, 4, 3); h = tf.layers.conv2d_transpose(h, 2, 3, strides=2); l = tf.reduce_mean(tf.square(h)); t = tf.train.AdamOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/shape Const
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/min Const
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/max Const
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/sub Sub
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/mul Mul
        separable_conv2d/depthwise_kernel/Initializer/random_uniform Add
        separable_conv2d/depthwise_kernel VariableV2
        separable_conv2d/depthwise_kernel/Assign Assign
        separable_conv2d/depthwise_kernel/read Identity
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/shape Const
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/min Const
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/max Const
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=14
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/sub Sub
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/mul Mul
        separable_conv2d/pointwise_kernel/Initializer/random_uniform Add
        separable_conv2d/pointwise_kernel VariableV2
        separable_conv2d/pointwise_kernel/Assign Assign
        separable_conv2d/pointwise_kernel/read Identity
        separable_conv2d/bias/Initializer/zeros Const
        separable_conv2d/bias VariableV2
        separable_conv2d/bias/Assign Assign
        separable_conv2d/bias/read Identity
        separable_conv2d/separable_conv2d/Shape Const
        separable_conv2d/separable_conv2d/dilation_rate Const
        separable_conv2d/separable_conv2d/depthwise DepthwiseConv2dNative
        separable_conv2d/separable_conv2d Conv2D
        separable_conv2d/BiasAdd BiasAdd
        conv2d_transpose/kernel/Initializer/random_uniform/shape Const
        conv2d_transpose/kernel/Initializer/random_uniform/min Const
        conv2d_transpose/kernel/Initializer/random_uniform/max Const
        conv2d_transpose/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=33
        conv2d_transpose/kernel/Initializer/random_uniform/sub Sub
        conv2d_transpose/kernel/Initializer/random_uniform/mul Mul
        conv2d_transpose/kernel/Initializer/random_uniform Add
        conv2d_transpose/kernel VariableV2
        conv2d_transpose/kernel/Assign Assign
        conv2d_transpose/kernel/read Identity
        conv2d_transpose/bias/Initializer/zeros Const
        conv2d_transpose/bias VariableV2
        conv2d_transpose/bias/Assign Assign
        conv2d_transpose/bias/read Identity
        conv2d_transpose/Shape Shape
        conv2d_transpose/strided_slice/stack Const
        conv2d_transpose/strided_slice/stack_1 Const
        conv2d_transpose/strided_slice/stack_2 Const
        conv2d_transpose/strided_slice StridedSlice
        conv2d_transpose/strided_slice_1/stack Const
        conv2d_transpose/strided_slice_1/stack_1 Const
        conv2d_transpose/strided_slice_1/stack_2 Const
        conv2d_transpose/strided_slice_1 StridedSlice
        conv2d_transpose/strided_slice_2/stack Const
        conv2d_transpose/strided_slice_2/stack_1 Const
        conv2d_transpose/strided_slice_2/stack_2 Const
        conv2d_transpose/strided_slice_2 StridedSlice
        conv2d_transpose/mul/y Const
        conv2d_transpose/mul Mul
        conv2d_transpose/add/y Const
        conv2d_transpose/add AddV2
        conv2d_transpose/mul_1/y Const
        conv2d_transpose/mul_1 Mul
        conv2d_transpose/add_1/y Const
        conv2d_transpose/add_1 AddV2
        conv2d_transpose/stack/3 Const
        conv2d_transpose/stack Pack
        conv2d_transpose/strided_slice_3/stack Const
        conv2d_transpose/strided_slice_3/stack_1 Const
        conv2d_transpose/strided_slice_3/stack_2 Const
        conv2d_transpose/strided_slice_3 StridedSlice
        conv2d_transpose/conv2d_transpose Conv2DBackpropInput
        conv2d_transpose/BiasAdd BiasAdd
        Square Square
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Square_grad/Const Const
        gradients/Square_grad/Mul Mul
        gradients/Square_grad/Mul_1 Mul
        gradients/conv2d_transpose/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/conv2d_transpose/BiasAdd_grad/tuple/group_deps NoOp
        gradients/conv2d_transpose/BiasAdd_grad/tuple/control_dependency Identity
        gradients/conv2d_transpose/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/conv2d_transpose/conv2d_transpose_grad/Shape Const
        gradients/conv2d_transpose/conv2d_transpose_grad/Conv2DBackpropFilter Conv2DBackpropFilter
        gradients/conv2d_transpose/conv2d_transpose_grad/Conv2D Conv2D
        gradients/conv2d_transpose/conv2d_transpose_grad/tuple/group_deps NoOp
        gradients/conv2d_transpose/conv2d_transpose_grad/tuple/control_dependency Identity
        gradients/conv2d_transpose/conv2d_transpose_grad/tuple/control_dependency_1 Identity
        gradients/separable_conv2d/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/separable_conv2d/BiasAdd_grad/tuple/group_deps NoOp
        gradients/separable_conv2d/BiasAdd_grad/tuple/control_dependency Identity
        gradients/separable_conv2d/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/separable_conv2d/separable_conv2d_grad/ShapeN ShapeN
        gradients/separable_conv2d/separable_conv2d_grad/Conv2DBackpropInput Conv2DBackpropInput
        gradients/separable_conv2d/separable_conv2d_grad/Conv2DBackpropFilter Conv2DBackpropFilter
        gradients/separable_conv2d/separable_conv2d_grad/tuple/group_deps NoOp
        gradients/separable_conv2d/separable_conv2d_grad/tuple/control_dependency Identity
        gradients/separable_conv2d/separable_conv2d_grad/tuple/control_dependency_1 Identity
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/Shape Shape
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/DepthwiseConv2dNativeBackpropInput DepthwiseConv2dNativeBackpropInput
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/Shape_1 Const
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/DepthwiseConv2dNativeBackpropFilter DepthwiseConv2dNativeBackpropFilter
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/tuple/group_deps NoOp
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/tuple/control_dependency Identity
        gradients/separable_conv2d/separable_conv2d/depthwise_grad/tuple/control_dependency_1 Identity
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        separable_conv2d/depthwise_kernel/Adam/Initializer/zeros Const
        separable_conv2d/depthwise_kernel/Adam VariableV2
        separable_conv2d/depthwise_kernel/Adam/Assign Assign
        separable_conv2d/depthwise_kernel/Adam/read Identity
        separable_conv2d/depthwise_kernel/Adam_1/Initializer/zeros Const
        separable_conv2d/depthwise_kernel/Adam_1 VariableV2
        separable_conv2d/depthwise_kernel/Adam_1/Assign Assign
        separable_conv2d/depthwise_kernel/Adam_1/read Identity
        separable_conv2d/pointwise_kernel/Adam/Initializer/zeros Const
        separable_conv2d/pointwise_kernel/Adam VariableV2
        separable_conv2d/pointwise_kernel/Adam/Assign Assign
        separable_conv2d/pointwise_kernel/Adam/read Identity
        separable_conv2d/pointwise_kernel/Adam_1/Initializer/zeros Const
        separable_conv2d/pointwise_kernel/Adam_1 VariableV2
        separable_conv2d/pointwise_kernel/Adam_1/Assign Assign
        separable_conv2d/pointwise_kernel/Adam_1/read Identity
        separable_conv2d/bias/Adam/Initializer/zeros Const
        separable_conv2d/bias/Adam VariableV2
        separable_conv2d/bias/Adam/Assign Assign
        separable_conv2d/bias/Adam/read Identity
        separable_conv2d/bias/Adam_1/Initializer/zeros Const
        separable_conv2d/bias/Adam_1 VariableV2
        separable_conv2d/bias/Adam_1/Assign Assign
        separable_conv2d/bias/Adam_1/read Identity
        conv2d_transpose/kernel/Adam/Initializer/zeros Const
        conv2d_transpose/kernel/Adam VariableV2
        conv2d_transpose/kernel/Adam/Assign Assign
        conv2d_transpose/kernel/Adam/read Identity
        conv2d_transpose/kernel/Adam_1/Initializer/zeros Const
        conv2d_transpose/kernel/Adam_1 VariableV2
        conv2d_transpose/kernel/Adam_1/Assign Assign
        conv2d_transpose/kernel/Adam_1/read Identity
        conv2d_transpose/bias/Adam/Initializer/zeros Const
        conv2d_transpose/bias/Adam VariableV2
        conv2d_transpose/bias/Adam/Assign Assign
        conv2d_transpose/bias/Adam/read Identity
        conv2d_transpose/bias/Adam_1/Initializer/zeros Const
        conv2d_transpose/bias/Adam_1 VariableV2
        conv2d_transpose/bias/Adam_1/Assign Assign
        conv2d_transpose/bias/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_separable_conv2d/depthwise_kernel/ApplyAdam ApplyAdam
        Adam/update_separable_conv2d/pointwise_kernel/ApplyAdam ApplyAdam
        Adam/update_separable_conv2d/bias/ApplyAdam ApplyAdam
        Adam/update_conv2d_transpose/kernel/ApplyAdam ApplyAdam
        Adam/update_conv2d_transpose/bias/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=189
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.layers.conv2d(x, 4, 3, dilation_rate=2, padding="same"); h = tf.layers.average_pooling2d(h, 2, 2); h = tf.layers.batch_normalization(h, training=True); l = tf.reduce_mean(tf.square(h)); t = tf.train.MomentumOptimizer(0.1, 0.9).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        conv2d/kernel/Initializer/random_uniform/shape Const
        conv2d/kernel/Initializer/random_uniform/min Const
        conv2d/kernel/Initializer/random_uniform/max Const
        conv2d/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        conv2d/kernel/Initializer/random_uniform/sub Sub
        conv2d/kernel/Initializer/random_uniform/mul Mul
        conv2d/kernel/Initializer/random_uniform Add
        conv2d/kernel VariableV2
        conv2d/kernel/Assign Assign
        conv2d/kernel/read Identity
        conv2d/bias/Initializer/zeros Const
        conv2d/bias VariableV2
        conv2d/bias/Assign Assign
        conv2d/bias/read Identity
        conv2d/dilation_rate Const
        conv2d/filter_shape Const
        conv2d/stack Const
        conv2d/required_space_to_batch_paddings/input_shape Const
        conv2d/required_space_to_batch_paddings/paddings Const
        conv2d/required_space_to_batch_paddings/crops Const
        conv2d/SpaceToBatchND/block_shape Const
        conv2d/SpaceToBatchND/paddings Const
        conv2d/SpaceToBatchND SpaceToBatchND
        conv2d/Conv2D Conv2D
        conv2d/BatchToSpaceND/block_shape Const
        conv2d/BatchToSpaceND/crops Const
        conv2d/BatchToSpaceND BatchToSpaceND
        conv2d/BiasAdd BiasAdd
        average_pooling2d/AvgPool AvgPool
        batch_normalization/gamma/Initializer/ones Const
        batch_normalization/gamma VariableV2
        batch_normalization/gamma/Assign Assign
        batch_normalization/gamma/read Identity
        batch_normalization/beta/Initializer/zeros Const
        batch_normalization/beta VariableV2
        batch_normalization/beta/Assign Assign
        batch_normalization/beta/read Identity
        batch_normalization/moving_mean/Initializer/zeros Const
        batch_normalization/moving_mean VariableV2
        batch_normalization/moving_mean/Assign Assign
        batch_normalization/moving_mean/read Identity
        batch_normalization/moving_variance/Initializer/ones Const
        batch_normalization/moving_variance VariableV2
        batch_normalization/moving_variance/Assign Assign
        batch_normalization/moving_variance/read Identity
        batch_normalization/Const Const
        batch_normalization/Const_1 Const
        batch_normalization/FusedBatchNormV3 FusedBatchNormV3
        batch_normalization/Const_2 Const
        batch_normalization/AssignMovingAvg/sub/x Const
        batch_normalization/AssignMovingAvg/sub Sub
        batch_normalization/AssignMovingAvg/sub_1 Sub
        batch_normalization/AssignMovingAvg/mul Mul
        batch_normalization/AssignMovingAvg AssignSub
        batch_normalization/AssignMovingAvg_1/sub/x Const
        batch_normalization/AssignMovingAvg_1/sub Sub
        batch_normalization/AssignMovingAvg_1/sub_1 Sub
        batch_normalization/AssignMovingAvg_1/mul Mul
        batch_normalization/AssignMovingAvg_1 AssignSub
        Square Square
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Square_grad/Const Const
        gradients/Square_grad/Mul Mul
        gradients/Square_grad/Mul_1 Mul
        gradients/zeros_like ZerosLike
        gradients/zeros_like_1 ZerosLike
        gradients/zeros_like_2 ZerosLike
        gradients/zeros_like_3 ZerosLike
        gradients/zeros_like_4 ZerosLike
        gradients/batch_normalization/FusedBatchNormV3_grad/FusedBatchNormGradV3 FusedBatchNormGradV3
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/group_deps NoOp
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_2 Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_3 Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_4 Identity
        gradients/average_pooling2d/AvgPool_grad/Shape Shape
        gradients/average_pooling2d/AvgPool_grad/AvgPoolGrad AvgPoolGrad
        gradients/conv2d/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/conv2d/BiasAdd_grad/tuple/group_deps NoOp
        gradients/conv2d/BiasAdd_grad/tuple/control_dependency Identity
        gradients/conv2d/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/conv2d/BatchToSpaceND_grad/SpaceToBatchND SpaceToBatchND
        gradients/conv2d/Conv2D_grad/ShapeN ShapeN
        gradients/conv2d/Conv2D_grad/Conv2DBackpropInput Conv2DBackpropInput
        gradients/conv2d/Conv2D_grad/Conv2DBackpropFilter Conv2DBackpropFilter
        gradients/conv2d/Conv2D_grad/tuple/group_deps NoOp
        gradients/conv2d/Conv2D_grad/tuple/control_dependency Identity
        gradients/conv2d/Conv2D_grad/tuple/control_dependency_1 Identity
        conv2d/kernel/Momentum/Initializer/zeros Const
        conv2d/kernel/Momentum VariableV2
        conv2d/kernel/Momentum/Assign Assign
        conv2d/kernel/Momentum/read Identity
        conv2d/bias/Momentum/Initializer/zeros Const
        conv2d/bias/Momentum VariableV2
        conv2d/bias/Momentum/Assign Assign
        conv2d/bias/Momentum/read Identity
        batch_normalization/gamma/Momentum/Initializer/zeros Const
        batch_normalization/gamma/Momentum VariableV2
        batch_normalization/gamma/Momentum/Assign Assign
        batch_normalization/gamma/Momentum/read Identity
        batch_normalization/beta/Momentum/Initializer/zeros Const
        batch_normalization/beta/Momentum VariableV2
        batch_normalization/beta/Momentum/Assign Assign
        batch_normalization/beta/Momentum/read Identity
        Momentum/learning_rate Const
        Momentum/momentum Const
        Momentum/update_conv2d/kernel/ApplyMomentum ApplyMomentum
        Momentum/update_conv2d/bias/ApplyMomentum ApplyMomentum
        Momentum/update_batch_normalization/gamma/ApplyMomentum ApplyMomentum
        Momentum/update_batch_normalization/beta/ApplyMomentum ApplyMomentum
        Momentum NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=135
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        "x = tf.placeholder(tf.float32, [None, 784]); y_ = tf.placeholder(tf.float32, [None, 10]); W1 = tf.Variable(tf.truncated_normal([5, 5, 1, 32], stddev=0.1)); b1 = tf.Variable(tf.constant(0.1, shape=[32])); xi = tf.reshape(x, [-1, 28, 28, 1]); h1 = tf.nn.relu(tf.nn.conv2d(xi, W1, strides=[1, 1, 1, 1], padding='SAME') + b1); p1 = tf.nn.max_pool(h1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME'); Wf = tf.Variable(tf.truncated_normal([14 * 14 * 32, 64], stddev=0.1)); bf = tf.Variable(tf.constant(0.1, shape=[64])); hf = tf.nn.relu(tf.matmul(tf.reshape(p1, [-1, 14 * 14 * 32]), Wf) + bf); kp = tf.placeholder(tf.float32); hd = tf.nn.dropout(hf, kp); W2 = tf.Variable(tf.truncated_normal([64, 10], stddev=0.1)); b2 = tf.Variable(tf.constant(0.1, shape=[10])); y = tf.matmul(hd, W2) + b2; ce = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y)); tr = tf.train.AdamOptimizer(1e-4).minimize(ce); cp = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1)); acc = tf.reduce_mean(tf.cast(cp, tf.float32)); z = tf.random_normal([2])",
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        truncated_normal/shape Const
        truncated_normal/mean Const
        truncated_normal/stddev Const
        truncated_normal/TruncatedNormal TruncatedNormal seed2=5
        truncated_normal/mul Mul
        truncated_normal Add
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        Const Const
        Variable_1 VariableV2
        Variable_1/Assign Assign
        Variable_1/read Identity
        Reshape/shape Const
        Reshape Reshape
        Conv2D Conv2D
        add AddV2
        Relu Relu
        MaxPool MaxPool
        truncated_normal_1/shape Const
        truncated_normal_1/mean Const
        truncated_normal_1/stddev Const
        truncated_normal_1/TruncatedNormal TruncatedNormal seed2=24
        truncated_normal_1/mul Mul
        truncated_normal_1 Add
        Variable_2 VariableV2
        Variable_2/Assign Assign
        Variable_2/read Identity
        Const_1 Const
        Variable_3 VariableV2
        Variable_3/Assign Assign
        Variable_3/read Identity
        Reshape_1/shape Const
        Reshape_1 Reshape
        MatMul MatMul
        add_1 AddV2
        Relu_1 Relu
        Placeholder_2 Placeholder
        sub/x Const
        sub Sub
        dropout/Shape Shape
        dropout/random_uniform/min Const
        dropout/random_uniform/max Const
        dropout/random_uniform/RandomUniform RandomUniform seed2=45
        dropout/random_uniform/sub Sub
        dropout/random_uniform/mul Mul
        dropout/random_uniform Add
        dropout/sub/x Const
        dropout/sub Sub
        dropout/truediv/x Const
        dropout/truediv RealDiv
        dropout/GreaterEqual GreaterEqual
        dropout/mul Mul
        dropout/Cast Cast
        dropout/mul_1 Mul
        truncated_normal_2/shape Const
        truncated_normal_2/mean Const
        truncated_normal_2/stddev Const
        truncated_normal_2/TruncatedNormal TruncatedNormal seed2=60
        truncated_normal_2/mul Mul
        truncated_normal_2 Add
        Variable_4 VariableV2
        Variable_4/Assign Assign
        Variable_4/read Identity
        Const_2 Const
        Variable_5 VariableV2
        Variable_5/Assign Assign
        Variable_5/read Identity
        MatMul_1 MatMul
        add_2 AddV2
        softmax_cross_entropy_with_logits_sg/labels_stop_gradient StopGradient
        softmax_cross_entropy_with_logits_sg/Rank Const
        softmax_cross_entropy_with_logits_sg/Shape Shape
        softmax_cross_entropy_with_logits_sg/Rank_1 Const
        softmax_cross_entropy_with_logits_sg/Shape_1 Shape
        softmax_cross_entropy_with_logits_sg/Sub/y Const
        softmax_cross_entropy_with_logits_sg/Sub Sub
        softmax_cross_entropy_with_logits_sg/Slice/begin Pack
        softmax_cross_entropy_with_logits_sg/Slice/size Const
        softmax_cross_entropy_with_logits_sg/Slice Slice
        softmax_cross_entropy_with_logits_sg/concat/values_0 Const
        softmax_cross_entropy_with_logits_sg/concat/axis Const
        softmax_cross_entropy_with_logits_sg/concat ConcatV2
        softmax_cross_entropy_with_logits_sg/Reshape Reshape
        softmax_cross_entropy_with_logits_sg/Rank_2 Const
        softmax_cross_entropy_with_logits_sg/Shape_2 Shape
        softmax_cross_entropy_with_logits_sg/Sub_1/y Const
        softmax_cross_entropy_with_logits_sg/Sub_1 Sub
        softmax_cross_entropy_with_logits_sg/Slice_1/begin Pack
        softmax_cross_entropy_with_logits_sg/Slice_1/size Const
        softmax_cross_entropy_with_logits_sg/Slice_1 Slice
        softmax_cross_entropy_with_logits_sg/concat_1/values_0 Const
        softmax_cross_entropy_with_logits_sg/concat_1/axis Const
        softmax_cross_entropy_with_logits_sg/concat_1 ConcatV2
        softmax_cross_entropy_with_logits_sg/Reshape_1 Reshape
        softmax_cross_entropy_with_logits_sg SoftmaxCrossEntropyWithLogits
        softmax_cross_entropy_with_logits_sg/Sub_2/y Const
        softmax_cross_entropy_with_logits_sg/Sub_2 Sub
        softmax_cross_entropy_with_logits_sg/Slice_2/begin Const
        softmax_cross_entropy_with_logits_sg/Slice_2/size Pack
        softmax_cross_entropy_with_logits_sg/Slice_2 Slice
        softmax_cross_entropy_with_logits_sg/Reshape_2 Reshape
        Const_3 Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/softmax_cross_entropy_with_logits_sg/Reshape_2_grad/Shape Shape
        gradients/softmax_cross_entropy_with_logits_sg/Reshape_2_grad/Reshape Reshape
        gradients/zeros_like ZerosLike
        gradients/softmax_cross_entropy_with_logits_sg_grad/ExpandDims/dim Const
        gradients/softmax_cross_entropy_with_logits_sg_grad/ExpandDims ExpandDims
        gradients/softmax_cross_entropy_with_logits_sg_grad/mul Mul
        gradients/softmax_cross_entropy_with_logits_sg_grad/LogSoftmax LogSoftmax
        gradients/softmax_cross_entropy_with_logits_sg_grad/Neg Neg
        gradients/softmax_cross_entropy_with_logits_sg_grad/ExpandDims_1/dim Const
        gradients/softmax_cross_entropy_with_logits_sg_grad/ExpandDims_1 ExpandDims
        gradients/softmax_cross_entropy_with_logits_sg_grad/mul_1 Mul
        gradients/softmax_cross_entropy_with_logits_sg_grad/tuple/group_deps NoOp
        gradients/softmax_cross_entropy_with_logits_sg_grad/tuple/control_dependency Identity
        gradients/softmax_cross_entropy_with_logits_sg_grad/tuple/control_dependency_1 Identity
        gradients/softmax_cross_entropy_with_logits_sg/Reshape_grad/Shape Shape
        gradients/softmax_cross_entropy_with_logits_sg/Reshape_grad/Reshape Reshape
        gradients/add_2_grad/Shape Shape
        gradients/add_2_grad/Shape_1 Shape
        gradients/add_2_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/add_2_grad/Sum Sum
        gradients/add_2_grad/Reshape Reshape
        gradients/add_2_grad/Sum_1 Sum
        gradients/add_2_grad/Reshape_1 Reshape
        gradients/add_2_grad/tuple/group_deps NoOp
        gradients/add_2_grad/tuple/control_dependency Identity
        gradients/add_2_grad/tuple/control_dependency_1 Identity
        gradients/MatMul_1_grad/MatMul MatMul
        gradients/MatMul_1_grad/MatMul_1 MatMul
        gradients/MatMul_1_grad/tuple/group_deps NoOp
        gradients/MatMul_1_grad/tuple/control_dependency Identity
        gradients/MatMul_1_grad/tuple/control_dependency_1 Identity
        gradients/dropout/mul_1_grad/Shape Shape
        gradients/dropout/mul_1_grad/Shape_1 Shape
        gradients/dropout/mul_1_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/dropout/mul_1_grad/Mul Mul
        gradients/dropout/mul_1_grad/Sum Sum
        gradients/dropout/mul_1_grad/Reshape Reshape
        gradients/dropout/mul_1_grad/Mul_1 Mul
        gradients/dropout/mul_1_grad/Sum_1 Sum
        gradients/dropout/mul_1_grad/Reshape_1 Reshape
        gradients/dropout/mul_1_grad/tuple/group_deps NoOp
        gradients/dropout/mul_1_grad/tuple/control_dependency Identity
        gradients/dropout/mul_1_grad/tuple/control_dependency_1 Identity
        gradients/dropout/mul_grad/Shape Shape
        gradients/dropout/mul_grad/Shape_1 Shape
        gradients/dropout/mul_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/dropout/mul_grad/Mul Mul
        gradients/dropout/mul_grad/Sum Sum
        gradients/dropout/mul_grad/Reshape Reshape
        gradients/dropout/mul_grad/Mul_1 Mul
        gradients/dropout/mul_grad/Sum_1 Sum
        gradients/dropout/mul_grad/Reshape_1 Reshape
        gradients/dropout/mul_grad/tuple/group_deps NoOp
        gradients/dropout/mul_grad/tuple/control_dependency Identity
        gradients/dropout/mul_grad/tuple/control_dependency_1 Identity
        gradients/Relu_1_grad/ReluGrad ReluGrad
        gradients/add_1_grad/Shape Shape
        gradients/add_1_grad/Shape_1 Shape
        gradients/add_1_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/add_1_grad/Sum Sum
        gradients/add_1_grad/Reshape Reshape
        gradients/add_1_grad/Sum_1 Sum
        gradients/add_1_grad/Reshape_1 Reshape
        gradients/add_1_grad/tuple/group_deps NoOp
        gradients/add_1_grad/tuple/control_dependency Identity
        gradients/add_1_grad/tuple/control_dependency_1 Identity
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        gradients/MatMul_grad/tuple/group_deps NoOp
        gradients/MatMul_grad/tuple/control_dependency Identity
        gradients/MatMul_grad/tuple/control_dependency_1 Identity
        gradients/Reshape_1_grad/Shape Shape
        gradients/Reshape_1_grad/Reshape Reshape
        gradients/MaxPool_grad/MaxPoolGrad MaxPoolGrad
        gradients/Relu_grad/ReluGrad ReluGrad
        gradients/add_grad/Shape Shape
        gradients/add_grad/Shape_1 Shape
        gradients/add_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/add_grad/Sum Sum
        gradients/add_grad/Reshape Reshape
        gradients/add_grad/Sum_1 Sum
        gradients/add_grad/Reshape_1 Reshape
        gradients/add_grad/tuple/group_deps NoOp
        gradients/add_grad/tuple/control_dependency Identity
        gradients/add_grad/tuple/control_dependency_1 Identity
        gradients/Conv2D_grad/ShapeN ShapeN
        gradients/Conv2D_grad/Conv2DBackpropInput Conv2DBackpropInput
        gradients/Conv2D_grad/Conv2DBackpropFilter Conv2DBackpropFilter
        gradients/Conv2D_grad/tuple/group_deps NoOp
        gradients/Conv2D_grad/tuple/control_dependency Identity
        gradients/Conv2D_grad/tuple/control_dependency_1 Identity
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        Variable/Adam/Initializer/zeros Const
        Variable/Adam VariableV2
        Variable/Adam/Assign Assign
        Variable/Adam/read Identity
        Variable/Adam_1/Initializer/zeros Const
        Variable/Adam_1 VariableV2
        Variable/Adam_1/Assign Assign
        Variable/Adam_1/read Identity
        Variable_1/Adam/Initializer/zeros Const
        Variable_1/Adam VariableV2
        Variable_1/Adam/Assign Assign
        Variable_1/Adam/read Identity
        Variable_1/Adam_1/Initializer/zeros Const
        Variable_1/Adam_1 VariableV2
        Variable_1/Adam_1/Assign Assign
        Variable_1/Adam_1/read Identity
        Variable_2/Adam/Initializer/zeros/shape_as_tensor Const
        Variable_2/Adam/Initializer/zeros/Const Const
        Variable_2/Adam/Initializer/zeros Fill
        Variable_2/Adam VariableV2
        Variable_2/Adam/Assign Assign
        Variable_2/Adam/read Identity
        Variable_2/Adam_1/Initializer/zeros/shape_as_tensor Const
        Variable_2/Adam_1/Initializer/zeros/Const Const
        Variable_2/Adam_1/Initializer/zeros Fill
        Variable_2/Adam_1 VariableV2
        Variable_2/Adam_1/Assign Assign
        Variable_2/Adam_1/read Identity
        Variable_3/Adam/Initializer/zeros Const
        Variable_3/Adam VariableV2
        Variable_3/Adam/Assign Assign
        Variable_3/Adam/read Identity
        Variable_3/Adam_1/Initializer/zeros Const
        Variable_3/Adam_1 VariableV2
        Variable_3/Adam_1/Assign Assign
        Variable_3/Adam_1/read Identity
        Variable_4/Adam/Initializer/zeros Const
        Variable_4/Adam VariableV2
        Variable_4/Adam/Assign Assign
        Variable_4/Adam/read Identity
        Variable_4/Adam_1/Initializer/zeros Const
        Variable_4/Adam_1 VariableV2
        Variable_4/Adam_1/Assign Assign
        Variable_4/Adam_1/read Identity
        Variable_5/Adam/Initializer/zeros Const
        Variable_5/Adam VariableV2
        Variable_5/Adam/Assign Assign
        Variable_5/Adam/read Identity
        Variable_5/Adam_1/Initializer/zeros Const
        Variable_5/Adam_1 VariableV2
        Variable_5/Adam_1/Assign Assign
        Variable_5/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_Variable/ApplyAdam ApplyAdam
        Adam/update_Variable_1/ApplyAdam ApplyAdam
        Adam/update_Variable_2/ApplyAdam ApplyAdam
        Adam/update_Variable_3/ApplyAdam ApplyAdam
        Adam/update_Variable_4/ApplyAdam ApplyAdam
        Adam/update_Variable_5/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        ArgMax/dimension Const
        ArgMax ArgMax
        ArgMax_1/dimension Const
        ArgMax_1 ArgMax
        Equal Equal
        Cast Cast
        Const_4 Const
        Mean_1 Mean
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=301
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 6]); h = tf.layers.dense(x, 8); h = tf.layers.batch_normalization(h, training=True); o = tf.layers.dense(tf.nn.relu(h), 2); l = tf.reduce_mean(tf.square(o)); t = tf.train.RMSPropOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        dense/kernel/Initializer/random_uniform/shape Const
        dense/kernel/Initializer/random_uniform/min Const
        dense/kernel/Initializer/random_uniform/max Const
        dense/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        dense/kernel/Initializer/random_uniform/sub Sub
        dense/kernel/Initializer/random_uniform/mul Mul
        dense/kernel/Initializer/random_uniform Add
        dense/kernel VariableV2
        dense/kernel/Assign Assign
        dense/kernel/read Identity
        dense/bias/Initializer/zeros Const
        dense/bias VariableV2
        dense/bias/Assign Assign
        dense/bias/read Identity
        dense/MatMul MatMul
        dense/BiasAdd BiasAdd
        batch_normalization/gamma/Initializer/ones Const
        batch_normalization/gamma VariableV2
        batch_normalization/gamma/Assign Assign
        batch_normalization/gamma/read Identity
        batch_normalization/beta/Initializer/zeros Const
        batch_normalization/beta VariableV2
        batch_normalization/beta/Assign Assign
        batch_normalization/beta/read Identity
        batch_normalization/moving_mean/Initializer/zeros Const
        batch_normalization/moving_mean VariableV2
        batch_normalization/moving_mean/Assign Assign
        batch_normalization/moving_mean/read Identity
        batch_normalization/moving_variance/Initializer/ones Const
        batch_normalization/moving_variance VariableV2
        batch_normalization/moving_variance/Assign Assign
        batch_normalization/moving_variance/read Identity
        batch_normalization/moments/mean/reduction_indices Const
        batch_normalization/moments/mean Mean
        batch_normalization/moments/StopGradient StopGradient
        batch_normalization/moments/SquaredDifference SquaredDifference
        batch_normalization/moments/variance/reduction_indices Const
        batch_normalization/moments/variance Mean
        batch_normalization/moments/Squeeze Squeeze
        batch_normalization/moments/Squeeze_1 Squeeze
        batch_normalization/AssignMovingAvg/decay Const
        batch_normalization/AssignMovingAvg/sub Sub
        batch_normalization/AssignMovingAvg/mul Mul
        batch_normalization/AssignMovingAvg AssignSub
        batch_normalization/AssignMovingAvg_1/decay Const
        batch_normalization/AssignMovingAvg_1/sub Sub
        batch_normalization/AssignMovingAvg_1/mul Mul
        batch_normalization/AssignMovingAvg_1 AssignSub
        batch_normalization/batchnorm/add/y Const
        batch_normalization/batchnorm/add AddV2
        batch_normalization/batchnorm/Rsqrt Rsqrt
        batch_normalization/batchnorm/mul Mul
        batch_normalization/batchnorm/mul_1 Mul
        batch_normalization/batchnorm/mul_2 Mul
        batch_normalization/batchnorm/sub Sub
        batch_normalization/batchnorm/add_1 AddV2
        Relu Relu
        dense_1/kernel/Initializer/random_uniform/shape Const
        dense_1/kernel/Initializer/random_uniform/min Const
        dense_1/kernel/Initializer/random_uniform/max Const
        dense_1/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=61
        dense_1/kernel/Initializer/random_uniform/sub Sub
        dense_1/kernel/Initializer/random_uniform/mul Mul
        dense_1/kernel/Initializer/random_uniform Add
        dense_1/kernel VariableV2
        dense_1/kernel/Assign Assign
        dense_1/kernel/read Identity
        dense_1/bias/Initializer/zeros Const
        dense_1/bias VariableV2
        dense_1/bias/Assign Assign
        dense_1/bias/read Identity
        dense_1/MatMul MatMul
        dense_1/BiasAdd BiasAdd
        Square Square
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Square_grad/Const Const
        gradients/Square_grad/Mul Mul
        gradients/Square_grad/Mul_1 Mul
        gradients/dense_1/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/dense_1/BiasAdd_grad/tuple/group_deps NoOp
        gradients/dense_1/BiasAdd_grad/tuple/control_dependency Identity
        gradients/dense_1/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/dense_1/MatMul_grad/MatMul MatMul
        gradients/dense_1/MatMul_grad/MatMul_1 MatMul
        gradients/dense_1/MatMul_grad/tuple/group_deps NoOp
        gradients/dense_1/MatMul_grad/tuple/control_dependency Identity
        gradients/dense_1/MatMul_grad/tuple/control_dependency_1 Identity
        gradients/Relu_grad/ReluGrad ReluGrad
        gradients/batch_normalization/batchnorm/add_1_grad/Shape Shape
        gradients/batch_normalization/batchnorm/add_1_grad/Shape_1 Shape
        gradients/batch_normalization/batchnorm/add_1_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/batch_normalization/batchnorm/add_1_grad/Sum Sum
        gradients/batch_normalization/batchnorm/add_1_grad/Reshape Reshape
        gradients/batch_normalization/batchnorm/add_1_grad/Sum_1 Sum
        gradients/batch_normalization/batchnorm/add_1_grad/Reshape_1 Reshape
        gradients/batch_normalization/batchnorm/add_1_grad/tuple/group_deps NoOp
        gradients/batch_normalization/batchnorm/add_1_grad/tuple/control_dependency Identity
        gradients/batch_normalization/batchnorm/add_1_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/batchnorm/mul_1_grad/Shape Shape
        gradients/batch_normalization/batchnorm/mul_1_grad/Shape_1 Shape
        gradients/batch_normalization/batchnorm/mul_1_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/batch_normalization/batchnorm/mul_1_grad/Mul Mul
        gradients/batch_normalization/batchnorm/mul_1_grad/Sum Sum
        gradients/batch_normalization/batchnorm/mul_1_grad/Reshape Reshape
        gradients/batch_normalization/batchnorm/mul_1_grad/Mul_1 Mul
        gradients/batch_normalization/batchnorm/mul_1_grad/Sum_1 Sum
        gradients/batch_normalization/batchnorm/mul_1_grad/Reshape_1 Reshape
        gradients/batch_normalization/batchnorm/mul_1_grad/tuple/group_deps NoOp
        gradients/batch_normalization/batchnorm/mul_1_grad/tuple/control_dependency Identity
        gradients/batch_normalization/batchnorm/mul_1_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/batchnorm/sub_grad/Neg Neg
        gradients/batch_normalization/batchnorm/sub_grad/tuple/group_deps NoOp
        gradients/batch_normalization/batchnorm/sub_grad/tuple/control_dependency Identity
        gradients/batch_normalization/batchnorm/sub_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/batchnorm/mul_2_grad/Mul Mul
        gradients/batch_normalization/batchnorm/mul_2_grad/Mul_1 Mul
        gradients/batch_normalization/batchnorm/mul_2_grad/tuple/group_deps NoOp
        gradients/batch_normalization/batchnorm/mul_2_grad/tuple/control_dependency Identity
        gradients/batch_normalization/batchnorm/mul_2_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/moments/Squeeze_grad/Shape Const
        gradients/batch_normalization/moments/Squeeze_grad/Reshape Reshape
        gradients/AddN AddN
        gradients/batch_normalization/batchnorm/mul_grad/Mul Mul
        gradients/batch_normalization/batchnorm/mul_grad/Mul_1 Mul
        gradients/batch_normalization/batchnorm/mul_grad/tuple/group_deps NoOp
        gradients/batch_normalization/batchnorm/mul_grad/tuple/control_dependency Identity
        gradients/batch_normalization/batchnorm/mul_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/batchnorm/Rsqrt_grad/RsqrtGrad RsqrtGrad
        gradients/batch_normalization/batchnorm/add_grad/BroadcastGradientArgs/s0 Const
        gradients/batch_normalization/batchnorm/add_grad/BroadcastGradientArgs/s1 Const
        gradients/batch_normalization/batchnorm/add_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/batch_normalization/batchnorm/add_grad/Sum/reduction_indices Const
        gradients/batch_normalization/batchnorm/add_grad/Sum Sum
        gradients/batch_normalization/batchnorm/add_grad/Reshape/shape Const
        gradients/batch_normalization/batchnorm/add_grad/Reshape Reshape
        gradients/batch_normalization/batchnorm/add_grad/tuple/group_deps NoOp
        gradients/batch_normalization/batchnorm/add_grad/tuple/control_dependency Identity
        gradients/batch_normalization/batchnorm/add_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/moments/Squeeze_1_grad/Shape Const
        gradients/batch_normalization/moments/Squeeze_1_grad/Reshape Reshape
        gradients/batch_normalization/moments/variance_grad/Shape Shape
        gradients/batch_normalization/moments/variance_grad/Size Const
        gradients/batch_normalization/moments/variance_grad/add AddV2
        gradients/batch_normalization/moments/variance_grad/mod FloorMod
        gradients/batch_normalization/moments/variance_grad/Shape_1 Const
        gradients/batch_normalization/moments/variance_grad/range/start Const
        gradients/batch_normalization/moments/variance_grad/range/delta Const
        gradients/batch_normalization/moments/variance_grad/range Range
        gradients/batch_normalization/moments/variance_grad/Fill/value Const
        gradients/batch_normalization/moments/variance_grad/Fill Fill
        gradients/batch_normalization/moments/variance_grad/DynamicStitch DynamicStitch
        gradients/batch_normalization/moments/variance_grad/Maximum/y Const
        gradients/batch_normalization/moments/variance_grad/Maximum Maximum
        gradients/batch_normalization/moments/variance_grad/floordiv FloorDiv
        gradients/batch_normalization/moments/variance_grad/Reshape Reshape
        gradients/batch_normalization/moments/variance_grad/Tile Tile
        gradients/batch_normalization/moments/variance_grad/Shape_2 Shape
        gradients/batch_normalization/moments/variance_grad/Shape_3 Const
        gradients/batch_normalization/moments/variance_grad/Const Const
        gradients/batch_normalization/moments/variance_grad/Prod Prod
        gradients/batch_normalization/moments/variance_grad/Const_1 Const
        gradients/batch_normalization/moments/variance_grad/Prod_1 Prod
        gradients/batch_normalization/moments/variance_grad/Maximum_1/y Const
        gradients/batch_normalization/moments/variance_grad/Maximum_1 Maximum
        gradients/batch_normalization/moments/variance_grad/floordiv_1 FloorDiv
        gradients/batch_normalization/moments/variance_grad/Cast Cast
        gradients/batch_normalization/moments/variance_grad/truediv RealDiv
        gradients/batch_normalization/moments/SquaredDifference_grad/scalar Const
        gradients/batch_normalization/moments/SquaredDifference_grad/Mul Mul
        gradients/batch_normalization/moments/SquaredDifference_grad/sub Sub
        gradients/batch_normalization/moments/SquaredDifference_grad/mul_1 Mul
        gradients/batch_normalization/moments/SquaredDifference_grad/Shape Shape
        gradients/batch_normalization/moments/SquaredDifference_grad/Shape_1 Shape
        gradients/batch_normalization/moments/SquaredDifference_grad/BroadcastGradientArgs BroadcastGradientArgs
        gradients/batch_normalization/moments/SquaredDifference_grad/Sum Sum
        gradients/batch_normalization/moments/SquaredDifference_grad/Reshape Reshape
        gradients/batch_normalization/moments/SquaredDifference_grad/Sum_1 Sum
        gradients/batch_normalization/moments/SquaredDifference_grad/Reshape_1 Reshape
        gradients/batch_normalization/moments/SquaredDifference_grad/Neg Neg
        gradients/batch_normalization/moments/SquaredDifference_grad/tuple/group_deps NoOp
        gradients/batch_normalization/moments/SquaredDifference_grad/tuple/control_dependency Identity
        gradients/batch_normalization/moments/SquaredDifference_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/moments/mean_grad/Shape Shape
        gradients/batch_normalization/moments/mean_grad/Size Const
        gradients/batch_normalization/moments/mean_grad/add AddV2
        gradients/batch_normalization/moments/mean_grad/mod FloorMod
        gradients/batch_normalization/moments/mean_grad/Shape_1 Const
        gradients/batch_normalization/moments/mean_grad/range/start Const
        gradients/batch_normalization/moments/mean_grad/range/delta Const
        gradients/batch_normalization/moments/mean_grad/range Range
        gradients/batch_normalization/moments/mean_grad/Fill/value Const
        gradients/batch_normalization/moments/mean_grad/Fill Fill
        gradients/batch_normalization/moments/mean_grad/DynamicStitch DynamicStitch
        gradients/batch_normalization/moments/mean_grad/Maximum/y Const
        gradients/batch_normalization/moments/mean_grad/Maximum Maximum
        gradients/batch_normalization/moments/mean_grad/floordiv FloorDiv
        gradients/batch_normalization/moments/mean_grad/Reshape Reshape
        gradients/batch_normalization/moments/mean_grad/Tile Tile
        gradients/batch_normalization/moments/mean_grad/Shape_2 Shape
        gradients/batch_normalization/moments/mean_grad/Shape_3 Const
        gradients/batch_normalization/moments/mean_grad/Const Const
        gradients/batch_normalization/moments/mean_grad/Prod Prod
        gradients/batch_normalization/moments/mean_grad/Const_1 Const
        gradients/batch_normalization/moments/mean_grad/Prod_1 Prod
        gradients/batch_normalization/moments/mean_grad/Maximum_1/y Const
        gradients/batch_normalization/moments/mean_grad/Maximum_1 Maximum
        gradients/batch_normalization/moments/mean_grad/floordiv_1 FloorDiv
        gradients/batch_normalization/moments/mean_grad/Cast Cast
        gradients/batch_normalization/moments/mean_grad/truediv RealDiv
        gradients/AddN_1 AddN
        gradients/dense/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/dense/BiasAdd_grad/tuple/group_deps NoOp
        gradients/dense/BiasAdd_grad/tuple/control_dependency Identity
        gradients/dense/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/dense/MatMul_grad/MatMul MatMul
        gradients/dense/MatMul_grad/MatMul_1 MatMul
        gradients/dense/MatMul_grad/tuple/group_deps NoOp
        gradients/dense/MatMul_grad/tuple/control_dependency Identity
        gradients/dense/MatMul_grad/tuple/control_dependency_1 Identity
        dense/kernel/RMSProp/Initializer/ones Const
        dense/kernel/RMSProp VariableV2
        dense/kernel/RMSProp/Assign Assign
        dense/kernel/RMSProp/read Identity
        dense/kernel/RMSProp_1/Initializer/zeros Const
        dense/kernel/RMSProp_1 VariableV2
        dense/kernel/RMSProp_1/Assign Assign
        dense/kernel/RMSProp_1/read Identity
        dense/bias/RMSProp/Initializer/ones Const
        dense/bias/RMSProp VariableV2
        dense/bias/RMSProp/Assign Assign
        dense/bias/RMSProp/read Identity
        dense/bias/RMSProp_1/Initializer/zeros Const
        dense/bias/RMSProp_1 VariableV2
        dense/bias/RMSProp_1/Assign Assign
        dense/bias/RMSProp_1/read Identity
        batch_normalization/gamma/RMSProp/Initializer/ones Const
        batch_normalization/gamma/RMSProp VariableV2
        batch_normalization/gamma/RMSProp/Assign Assign
        batch_normalization/gamma/RMSProp/read Identity
        batch_normalization/gamma/RMSProp_1/Initializer/zeros Const
        batch_normalization/gamma/RMSProp_1 VariableV2
        batch_normalization/gamma/RMSProp_1/Assign Assign
        batch_normalization/gamma/RMSProp_1/read Identity
        batch_normalization/beta/RMSProp/Initializer/ones Const
        batch_normalization/beta/RMSProp VariableV2
        batch_normalization/beta/RMSProp/Assign Assign
        batch_normalization/beta/RMSProp/read Identity
        batch_normalization/beta/RMSProp_1/Initializer/zeros Const
        batch_normalization/beta/RMSProp_1 VariableV2
        batch_normalization/beta/RMSProp_1/Assign Assign
        batch_normalization/beta/RMSProp_1/read Identity
        dense_1/kernel/RMSProp/Initializer/ones Const
        dense_1/kernel/RMSProp VariableV2
        dense_1/kernel/RMSProp/Assign Assign
        dense_1/kernel/RMSProp/read Identity
        dense_1/kernel/RMSProp_1/Initializer/zeros Const
        dense_1/kernel/RMSProp_1 VariableV2
        dense_1/kernel/RMSProp_1/Assign Assign
        dense_1/kernel/RMSProp_1/read Identity
        dense_1/bias/RMSProp/Initializer/ones Const
        dense_1/bias/RMSProp VariableV2
        dense_1/bias/RMSProp/Assign Assign
        dense_1/bias/RMSProp/read Identity
        dense_1/bias/RMSProp_1/Initializer/zeros Const
        dense_1/bias/RMSProp_1 VariableV2
        dense_1/bias/RMSProp_1/Assign Assign
        dense_1/bias/RMSProp_1/read Identity
        RMSProp/learning_rate Const
        RMSProp/decay Const
        RMSProp/momentum Const
        RMSProp/epsilon Const
        RMSProp/update_dense/kernel/ApplyRMSProp ApplyRMSProp
        RMSProp/update_dense/bias/ApplyRMSProp ApplyRMSProp
        RMSProp/update_batch_normalization/gamma/ApplyRMSProp ApplyRMSProp
        RMSProp/update_batch_normalization/beta/ApplyRMSProp ApplyRMSProp
        RMSProp/update_dense_1/kernel/ApplyRMSProp ApplyRMSProp
        RMSProp/update_dense_1/bias/ApplyRMSProp ApplyRMSProp
        RMSProp NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=301
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.layers.conv2d(x, 4, 3, padding="same"); h = tf.layers.batch_normalization(h, training=True, fused=True); h = tf.layers.max_pooling2d(h, 2, 2); o = tf.layers.dense(tf.layers.flatten(h), 2); l = tf.reduce_mean(tf.square(o)); t = tf.train.AdamOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        conv2d/kernel/Initializer/random_uniform/shape Const
        conv2d/kernel/Initializer/random_uniform/min Const
        conv2d/kernel/Initializer/random_uniform/max Const
        conv2d/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        conv2d/kernel/Initializer/random_uniform/sub Sub
        conv2d/kernel/Initializer/random_uniform/mul Mul
        conv2d/kernel/Initializer/random_uniform Add
        conv2d/kernel VariableV2
        conv2d/kernel/Assign Assign
        conv2d/kernel/read Identity
        conv2d/bias/Initializer/zeros Const
        conv2d/bias VariableV2
        conv2d/bias/Assign Assign
        conv2d/bias/read Identity
        conv2d/dilation_rate Const
        conv2d/Conv2D Conv2D
        conv2d/BiasAdd BiasAdd
        batch_normalization/gamma/Initializer/ones Const
        batch_normalization/gamma VariableV2
        batch_normalization/gamma/Assign Assign
        batch_normalization/gamma/read Identity
        batch_normalization/beta/Initializer/zeros Const
        batch_normalization/beta VariableV2
        batch_normalization/beta/Assign Assign
        batch_normalization/beta/read Identity
        batch_normalization/moving_mean/Initializer/zeros Const
        batch_normalization/moving_mean VariableV2
        batch_normalization/moving_mean/Assign Assign
        batch_normalization/moving_mean/read Identity
        batch_normalization/moving_variance/Initializer/ones Const
        batch_normalization/moving_variance VariableV2
        batch_normalization/moving_variance/Assign Assign
        batch_normalization/moving_variance/read Identity
        batch_normalization/Const Const
        batch_normalization/Const_1 Const
        batch_normalization/FusedBatchNormV3 FusedBatchNormV3
        batch_normalization/Const_2 Const
        batch_normalization/AssignMovingAvg/sub/x Const
        batch_normalization/AssignMovingAvg/sub Sub
        batch_normalization/AssignMovingAvg/sub_1 Sub
        batch_normalization/AssignMovingAvg/mul Mul
        batch_normalization/AssignMovingAvg AssignSub
        batch_normalization/AssignMovingAvg_1/sub/x Const
        batch_normalization/AssignMovingAvg_1/sub Sub
        batch_normalization/AssignMovingAvg_1/sub_1 Sub
        batch_normalization/AssignMovingAvg_1/mul Mul
        batch_normalization/AssignMovingAvg_1 AssignSub
        max_pooling2d/MaxPool MaxPool
        flatten/Shape Shape
        flatten/strided_slice/stack Const
        flatten/strided_slice/stack_1 Const
        flatten/strided_slice/stack_2 Const
        flatten/strided_slice StridedSlice
        flatten/Reshape/shape/1 Const
        flatten/Reshape/shape Pack
        flatten/Reshape Reshape
        dense/kernel/Initializer/random_uniform/shape Const
        dense/kernel/Initializer/random_uniform/min Const
        dense/kernel/Initializer/random_uniform/max Const
        dense/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=60
        dense/kernel/Initializer/random_uniform/sub Sub
        dense/kernel/Initializer/random_uniform/mul Mul
        dense/kernel/Initializer/random_uniform Add
        dense/kernel VariableV2
        dense/kernel/Assign Assign
        dense/kernel/read Identity
        dense/bias/Initializer/zeros Const
        dense/bias VariableV2
        dense/bias/Assign Assign
        dense/bias/read Identity
        dense/MatMul MatMul
        dense/BiasAdd BiasAdd
        Square Square
        Const Const
        Mean Mean
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/Square_grad/Const Const
        gradients/Square_grad/Mul Mul
        gradients/Square_grad/Mul_1 Mul
        gradients/dense/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/dense/BiasAdd_grad/tuple/group_deps NoOp
        gradients/dense/BiasAdd_grad/tuple/control_dependency Identity
        gradients/dense/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/dense/MatMul_grad/MatMul MatMul
        gradients/dense/MatMul_grad/MatMul_1 MatMul
        gradients/dense/MatMul_grad/tuple/group_deps NoOp
        gradients/dense/MatMul_grad/tuple/control_dependency Identity
        gradients/dense/MatMul_grad/tuple/control_dependency_1 Identity
        gradients/flatten/Reshape_grad/Shape Shape
        gradients/flatten/Reshape_grad/Reshape Reshape
        gradients/max_pooling2d/MaxPool_grad/MaxPoolGrad MaxPoolGrad
        gradients/zeros_like ZerosLike
        gradients/zeros_like_1 ZerosLike
        gradients/zeros_like_2 ZerosLike
        gradients/zeros_like_3 ZerosLike
        gradients/zeros_like_4 ZerosLike
        gradients/batch_normalization/FusedBatchNormV3_grad/FusedBatchNormGradV3 FusedBatchNormGradV3
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/group_deps NoOp
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_1 Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_2 Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_3 Identity
        gradients/batch_normalization/FusedBatchNormV3_grad/tuple/control_dependency_4 Identity
        gradients/conv2d/BiasAdd_grad/BiasAddGrad BiasAddGrad
        gradients/conv2d/BiasAdd_grad/tuple/group_deps NoOp
        gradients/conv2d/BiasAdd_grad/tuple/control_dependency Identity
        gradients/conv2d/BiasAdd_grad/tuple/control_dependency_1 Identity
        gradients/conv2d/Conv2D_grad/ShapeN ShapeN
        gradients/conv2d/Conv2D_grad/Conv2DBackpropInput Conv2DBackpropInput
        gradients/conv2d/Conv2D_grad/Conv2DBackpropFilter Conv2DBackpropFilter
        gradients/conv2d/Conv2D_grad/tuple/group_deps NoOp
        gradients/conv2d/Conv2D_grad/tuple/control_dependency Identity
        gradients/conv2d/Conv2D_grad/tuple/control_dependency_1 Identity
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        conv2d/kernel/Adam/Initializer/zeros Const
        conv2d/kernel/Adam VariableV2
        conv2d/kernel/Adam/Assign Assign
        conv2d/kernel/Adam/read Identity
        conv2d/kernel/Adam_1/Initializer/zeros Const
        conv2d/kernel/Adam_1 VariableV2
        conv2d/kernel/Adam_1/Assign Assign
        conv2d/kernel/Adam_1/read Identity
        conv2d/bias/Adam/Initializer/zeros Const
        conv2d/bias/Adam VariableV2
        conv2d/bias/Adam/Assign Assign
        conv2d/bias/Adam/read Identity
        conv2d/bias/Adam_1/Initializer/zeros Const
        conv2d/bias/Adam_1 VariableV2
        conv2d/bias/Adam_1/Assign Assign
        conv2d/bias/Adam_1/read Identity
        batch_normalization/gamma/Adam/Initializer/zeros Const
        batch_normalization/gamma/Adam VariableV2
        batch_normalization/gamma/Adam/Assign Assign
        batch_normalization/gamma/Adam/read Identity
        batch_normalization/gamma/Adam_1/Initializer/zeros Const
        batch_normalization/gamma/Adam_1 VariableV2
        batch_normalization/gamma/Adam_1/Assign Assign
        batch_normalization/gamma/Adam_1/read Identity
        batch_normalization/beta/Adam/Initializer/zeros Const
        batch_normalization/beta/Adam VariableV2
        batch_normalization/beta/Adam/Assign Assign
        batch_normalization/beta/Adam/read Identity
        batch_normalization/beta/Adam_1/Initializer/zeros Const
        batch_normalization/beta/Adam_1 VariableV2
        batch_normalization/beta/Adam_1/Assign Assign
        batch_normalization/beta/Adam_1/read Identity
        dense/kernel/Adam/Initializer/zeros Const
        dense/kernel/Adam VariableV2
        dense/kernel/Adam/Assign Assign
        dense/kernel/Adam/read Identity
        dense/kernel/Adam_1/Initializer/zeros Const
        dense/kernel/Adam_1 VariableV2
        dense/kernel/Adam_1/Assign Assign
        dense/kernel/Adam_1/read Identity
        dense/bias/Adam/Initializer/zeros Const
        dense/bias/Adam VariableV2
        dense/bias/Adam/Assign Assign
        dense/bias/Adam/read Identity
        dense/bias/Adam_1/Initializer/zeros Const
        dense/bias/Adam_1 VariableV2
        dense/bias/Adam_1/Assign Assign
        dense/bias/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_conv2d/kernel/ApplyAdam ApplyAdam
        Adam/update_conv2d/bias/ApplyAdam ApplyAdam
        Adam/update_batch_normalization/gamma/ApplyAdam ApplyAdam
        Adam/update_batch_normalization/beta/ApplyAdam ApplyAdam
        Adam/update_dense/kernel/ApplyAdam ApplyAdam
        Adam/update_dense/bias/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=205
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", MODEL_CASES)
def test_training_models_build_tf_ops(code, want):
    # TF's deep-MNIST graph (a large slot's zeros from shape_as_tensor + Fill), batch-normed
    # dense and conv nets: gradients fill missing output gradients with ZerosLike ops and the
    # fused batch norm's training gradient gates all five of its outputs
    assert _op_list(code) == _want(want)


OPTIMIZER_CASES = [
    (
        'ids = tf.placeholder(tf.int32, [None]); e = tf.Variable(tf.ones([10, 3])); l = tf.reduce_sum(tf.nn.embedding_lookup(e, ids)); t = tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True).minimize(l); t2 = tf.train.RMSPropOptimizer(0.1, centered=True).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        embedding_lookup/axis Const
        embedding_lookup GatherV2
        embedding_lookup/Identity Identity
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/embedding_lookup_grad/Shape Const
        gradients/embedding_lookup_grad/Cast Cast
        gradients/embedding_lookup_grad/Size Size
        gradients/embedding_lookup_grad/ExpandDims/dim Const
        gradients/embedding_lookup_grad/ExpandDims ExpandDims
        gradients/embedding_lookup_grad/strided_slice/stack Const
        gradients/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients/embedding_lookup_grad/strided_slice StridedSlice
        gradients/embedding_lookup_grad/concat/axis Const
        gradients/embedding_lookup_grad/concat ConcatV2
        gradients/embedding_lookup_grad/Reshape Reshape
        gradients/embedding_lookup_grad/Reshape_1 Reshape
        Variable/Momentum/Initializer/zeros Const
        Variable/Momentum VariableV2
        Variable/Momentum/Assign Assign
        Variable/Momentum/read Identity
        Momentum/learning_rate Const
        Momentum/momentum Const
        Momentum/update_Variable/Unique Unique
        Momentum/update_Variable/Shape Shape
        Momentum/update_Variable/strided_slice/stack Const
        Momentum/update_Variable/strided_slice/stack_1 Const
        Momentum/update_Variable/strided_slice/stack_2 Const
        Momentum/update_Variable/strided_slice StridedSlice
        Momentum/update_Variable/UnsortedSegmentSum UnsortedSegmentSum
        Momentum/update_Variable/SparseApplyMomentum SparseApplyMomentum
        Momentum NoOp
        gradients_1/Shape Const
        gradients_1/grad_ys_0 Const
        gradients_1/Fill Fill
        gradients_1/Sum_grad/Reshape/shape Const
        gradients_1/Sum_grad/Reshape Reshape
        gradients_1/Sum_grad/Shape Shape
        gradients_1/Sum_grad/Tile Tile
        gradients_1/embedding_lookup_grad/Shape Const
        gradients_1/embedding_lookup_grad/Cast Cast
        gradients_1/embedding_lookup_grad/Size Size
        gradients_1/embedding_lookup_grad/ExpandDims/dim Const
        gradients_1/embedding_lookup_grad/ExpandDims ExpandDims
        gradients_1/embedding_lookup_grad/strided_slice/stack Const
        gradients_1/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients_1/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients_1/embedding_lookup_grad/strided_slice StridedSlice
        gradients_1/embedding_lookup_grad/concat/axis Const
        gradients_1/embedding_lookup_grad/concat ConcatV2
        gradients_1/embedding_lookup_grad/Reshape Reshape
        gradients_1/embedding_lookup_grad/Reshape_1 Reshape
        Variable/RMSProp/Initializer/ones Const
        Variable/RMSProp VariableV2
        Variable/RMSProp/Assign Assign
        Variable/RMSProp/read Identity
        Variable/RMSProp_1/Initializer/zeros Const
        Variable/RMSProp_1 VariableV2
        Variable/RMSProp_1/Assign Assign
        Variable/RMSProp_1/read Identity
        Variable/RMSProp_2/Initializer/zeros Const
        Variable/RMSProp_2 VariableV2
        Variable/RMSProp_2/Assign Assign
        Variable/RMSProp_2/read Identity
        RMSProp/learning_rate Const
        RMSProp/decay Const
        RMSProp/momentum Const
        RMSProp/epsilon Const
        RMSProp/update_Variable/Unique Unique
        RMSProp/update_Variable/Shape Shape
        RMSProp/update_Variable/strided_slice/stack Const
        RMSProp/update_Variable/strided_slice/stack_1 Const
        RMSProp/update_Variable/strided_slice/stack_2 Const
        RMSProp/update_Variable/strided_slice StridedSlice
        RMSProp/update_Variable/UnsortedSegmentSum UnsortedSegmentSum
        RMSProp/update_Variable/SparseApplyCenteredRMSProp SparseApplyCenteredRMSProp
        RMSProp NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=93
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'ids = tf.placeholder(tf.int32, [None]); e = tf.Variable(tf.ones([10, 3])); l = tf.reduce_sum(tf.nn.embedding_lookup(e, ids)); t = tf.train.AdagradOptimizer(0.1).minimize(l); t2 = tf.train.FtrlOptimizer(0.1).minimize(l); t3 = tf.train.GradientDescentOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        embedding_lookup/axis Const
        embedding_lookup GatherV2
        embedding_lookup/Identity Identity
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Shape Shape
        gradients/Sum_grad/Tile Tile
        gradients/embedding_lookup_grad/Shape Const
        gradients/embedding_lookup_grad/Cast Cast
        gradients/embedding_lookup_grad/Size Size
        gradients/embedding_lookup_grad/ExpandDims/dim Const
        gradients/embedding_lookup_grad/ExpandDims ExpandDims
        gradients/embedding_lookup_grad/strided_slice/stack Const
        gradients/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients/embedding_lookup_grad/strided_slice StridedSlice
        gradients/embedding_lookup_grad/concat/axis Const
        gradients/embedding_lookup_grad/concat ConcatV2
        gradients/embedding_lookup_grad/Reshape Reshape
        gradients/embedding_lookup_grad/Reshape_1 Reshape
        Variable/Adagrad/Initializer/Const Const
        Variable/Adagrad VariableV2
        Variable/Adagrad/Assign Assign
        Variable/Adagrad/read Identity
        Adagrad/learning_rate Const
        Adagrad/update_Variable/Unique Unique
        Adagrad/update_Variable/Shape Shape
        Adagrad/update_Variable/strided_slice/stack Const
        Adagrad/update_Variable/strided_slice/stack_1 Const
        Adagrad/update_Variable/strided_slice/stack_2 Const
        Adagrad/update_Variable/strided_slice StridedSlice
        Adagrad/update_Variable/UnsortedSegmentSum UnsortedSegmentSum
        Adagrad/update_Variable/SparseApplyAdagrad SparseApplyAdagrad
        Adagrad NoOp
        gradients_1/Shape Const
        gradients_1/grad_ys_0 Const
        gradients_1/Fill Fill
        gradients_1/Sum_grad/Reshape/shape Const
        gradients_1/Sum_grad/Reshape Reshape
        gradients_1/Sum_grad/Shape Shape
        gradients_1/Sum_grad/Tile Tile
        gradients_1/embedding_lookup_grad/Shape Const
        gradients_1/embedding_lookup_grad/Cast Cast
        gradients_1/embedding_lookup_grad/Size Size
        gradients_1/embedding_lookup_grad/ExpandDims/dim Const
        gradients_1/embedding_lookup_grad/ExpandDims ExpandDims
        gradients_1/embedding_lookup_grad/strided_slice/stack Const
        gradients_1/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients_1/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients_1/embedding_lookup_grad/strided_slice StridedSlice
        gradients_1/embedding_lookup_grad/concat/axis Const
        gradients_1/embedding_lookup_grad/concat ConcatV2
        gradients_1/embedding_lookup_grad/Reshape Reshape
        gradients_1/embedding_lookup_grad/Reshape_1 Reshape
        Const_1 Const
        Variable/Ftrl VariableV2
        Variable/Ftrl/Assign Assign
        Variable/Ftrl/read Identity
        Variable/Ftrl_1/Initializer/zeros Const
        Variable/Ftrl_1 VariableV2
        Variable/Ftrl_1/Assign Assign
        Variable/Ftrl_1/read Identity
        Ftrl/learning_rate Const
        Ftrl/l1_regularization_strength Const
        Ftrl/l2_regularization_strength Const
        Ftrl/l2_shrinkage_regularization_strength Const
        Ftrl/learning_rate_power Const
        Ftrl/update_Variable/Unique Unique
        Ftrl/update_Variable/Shape Shape
        Ftrl/update_Variable/strided_slice/stack Const
        Ftrl/update_Variable/strided_slice/stack_1 Const
        Ftrl/update_Variable/strided_slice/stack_2 Const
        Ftrl/update_Variable/strided_slice StridedSlice
        Ftrl/update_Variable/UnsortedSegmentSum UnsortedSegmentSum
        Ftrl/update_Variable/SparseApplyFtrl SparseApplyFtrl
        Ftrl NoOp
        gradients_2/Shape Const
        gradients_2/grad_ys_0 Const
        gradients_2/Fill Fill
        gradients_2/Sum_grad/Reshape/shape Const
        gradients_2/Sum_grad/Reshape Reshape
        gradients_2/Sum_grad/Shape Shape
        gradients_2/Sum_grad/Tile Tile
        gradients_2/embedding_lookup_grad/Shape Const
        gradients_2/embedding_lookup_grad/Cast Cast
        gradients_2/embedding_lookup_grad/Size Size
        gradients_2/embedding_lookup_grad/ExpandDims/dim Const
        gradients_2/embedding_lookup_grad/ExpandDims ExpandDims
        gradients_2/embedding_lookup_grad/strided_slice/stack Const
        gradients_2/embedding_lookup_grad/strided_slice/stack_1 Const
        gradients_2/embedding_lookup_grad/strided_slice/stack_2 Const
        gradients_2/embedding_lookup_grad/strided_slice StridedSlice
        gradients_2/embedding_lookup_grad/concat/axis Const
        gradients_2/embedding_lookup_grad/concat ConcatV2
        gradients_2/embedding_lookup_grad/Reshape Reshape
        gradients_2/embedding_lookup_grad/Reshape_1 Reshape
        GradientDescent/learning_rate Const
        GradientDescent/update_Variable/mul Mul
        GradientDescent/update_Variable/ScatterSub ScatterSub
        GradientDescent NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=113
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'w = tf.Variable(tf.ones([3])); l = tf.reduce_sum(w * w); t = tf.train.ProximalAdagradOptimizer(0.1).minimize(l); t2 = tf.train.ProximalGradientDescentOptimizer(0.1).minimize(l); t3 = tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step()).minimize(l); z = tf.random_normal([2])',
        """
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Const Const
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/tuple/group_deps NoOp
        gradients/mul_grad/tuple/control_dependency Identity
        gradients/mul_grad/tuple/control_dependency_1 Identity
        gradients/AddN AddN
        Const_1 Const
        Variable/ProximalAdagrad VariableV2
        Variable/ProximalAdagrad/Assign Assign
        Variable/ProximalAdagrad/read Identity
        ProximalAdagrad/learning_rate Const
        ProximalAdagrad/l1_regularization_strength Const
        ProximalAdagrad/l2_regularization_strength Const
        ProximalAdagrad/update_Variable/ApplyProximalAdagrad ApplyProximalAdagrad
        ProximalAdagrad NoOp
        gradients_1/Shape Const
        gradients_1/grad_ys_0 Const
        gradients_1/Fill Fill
        gradients_1/Sum_grad/Reshape/shape Const
        gradients_1/Sum_grad/Reshape Reshape
        gradients_1/Sum_grad/Const Const
        gradients_1/Sum_grad/Tile Tile
        gradients_1/mul_grad/Mul Mul
        gradients_1/mul_grad/Mul_1 Mul
        gradients_1/mul_grad/tuple/group_deps NoOp
        gradients_1/mul_grad/tuple/control_dependency Identity
        gradients_1/mul_grad/tuple/control_dependency_1 Identity
        gradients_1/AddN AddN
        ProximalGradientDescent/learning_rate Const
        ProximalGradientDescent/l1_regularization_strength Const
        ProximalGradientDescent/l2_regularization_strength Const
        ProximalGradientDescent/update_Variable/ApplyProximalGradientDescent ApplyProximalGradientDescent
        ProximalGradientDescent NoOp
        global_step/Initializer/zeros Const
        global_step VariableV2
        global_step/Assign Assign
        global_step/read Identity
        gradients_2/Shape Const
        gradients_2/grad_ys_0 Const
        gradients_2/Fill Fill
        gradients_2/Sum_grad/Reshape/shape Const
        gradients_2/Sum_grad/Reshape Reshape
        gradients_2/Sum_grad/Const Const
        gradients_2/Sum_grad/Tile Tile
        gradients_2/mul_grad/Mul Mul
        gradients_2/mul_grad/Mul_1 Mul
        gradients_2/mul_grad/tuple/group_deps NoOp
        gradients_2/mul_grad/tuple/control_dependency Identity
        gradients_2/mul_grad/tuple/control_dependency_1 Identity
        gradients_2/AddN AddN
        Const_2 Const
        Const_3 Const
        Variable/AdagradDA VariableV2
        Variable/AdagradDA/Assign Assign
        Variable/AdagradDA/read Identity
        Variable/AdagradDA_1 VariableV2
        Variable/AdagradDA_1/Assign Assign
        Variable/AdagradDA_1/read Identity
        AdagradDA/learning_rate Const
        AdagradDA/Identity Identity
        AdagradDA/add/y Const
        AdagradDA/add AddV2
        AdagradDA/update_Variable/Identity Identity
        AdagradDA/update_Variable/Cast/x Const
        AdagradDA/update_Variable/Cast_1/x Const
        AdagradDA/update_Variable/ApplyAdagradDA ApplyAdagradDA
        AdagradDA NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=84
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'w = tf.Variable(tf.ones([3])); l = tf.reduce_sum(w * w); o = tf.train.AdamOptimizer(0.1); gv = o.compute_gradients(l, var_list=[w]); cg = [(tf.clip_by_value(g, -1., 1.), v) for g, v in gv]; t = o.apply_gradients(cg); cg2 = [(tf.clip_by_norm(g, 1.0), v) for g, v in gv]; z = tf.random_normal([2])',
        """
        ones Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Const Const
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/tuple/group_deps NoOp
        gradients/mul_grad/tuple/control_dependency Identity
        gradients/mul_grad/tuple/control_dependency_1 Identity
        gradients/AddN AddN
        clip_by_value/Minimum/y Const
        clip_by_value/Minimum Minimum
        clip_by_value/y Const
        clip_by_value Maximum
        beta1_power/initial_value Const
        beta1_power VariableV2
        beta1_power/Assign Assign
        beta1_power/read Identity
        beta2_power/initial_value Const
        beta2_power VariableV2
        beta2_power/Assign Assign
        beta2_power/read Identity
        Variable/Adam/Initializer/zeros Const
        Variable/Adam VariableV2
        Variable/Adam/Assign Assign
        Variable/Adam/read Identity
        Variable/Adam_1/Initializer/zeros Const
        Variable/Adam_1 VariableV2
        Variable/Adam_1/Assign Assign
        Variable/Adam_1/read Identity
        Adam/learning_rate Const
        Adam/beta1 Const
        Adam/beta2 Const
        Adam/epsilon Const
        Adam/update_Variable/ApplyAdam ApplyAdam
        Adam/mul Mul
        Adam/Assign Assign
        Adam/mul_1 Mul
        Adam/Assign_1 Assign
        Adam NoOp
        clip_by_norm/mul Mul
        clip_by_norm/Const Const
        clip_by_norm/Sum Sum
        clip_by_norm/Greater/y Const
        clip_by_norm/Greater Greater
        clip_by_norm/ones_like/Shape Const
        clip_by_norm/ones_like/Const Const
        clip_by_norm/ones_like Fill
        clip_by_norm/Select Select
        clip_by_norm/Sqrt Sqrt
        clip_by_norm/Select_1 Select
        clip_by_norm/mul_1/y Const
        clip_by_norm/mul_1 Mul
        clip_by_norm/Maximum/y Const
        clip_by_norm/Maximum Maximum
        clip_by_norm/truediv RealDiv
        clip_by_norm Identity
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=70
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); w = tf.get_variable("w", [3, 2], regularizer=tf.contrib.layers.l2_regularizer(0.1)); l = tf.reduce_mean(tf.matmul(x, w)) + tf.losses.get_regularization_loss(); t = tf.train.GradientDescentOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        w/Initializer/random_uniform/shape Const
        w/Initializer/random_uniform/min Const
        w/Initializer/random_uniform/max Const
        w/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        w/Initializer/random_uniform/sub Sub
        w/Initializer/random_uniform/mul Mul
        w/Initializer/random_uniform Add
        w VariableV2
        w/Assign Assign
        w/read Identity
        w/Regularizer/l2_regularizer/scale Const
        w/Regularizer/l2_regularizer/L2Loss L2Loss
        w/Regularizer/l2_regularizer Mul
        MatMul MatMul
        Const Const
        Mean Mean
        total_regularization_loss Identity
        add AddV2
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/add_grad/tuple/group_deps NoOp
        gradients/add_grad/tuple/control_dependency Identity
        gradients/add_grad/tuple/control_dependency_1 Identity
        gradients/Mean_grad/Reshape/shape Const
        gradients/Mean_grad/Reshape Reshape
        gradients/Mean_grad/Shape Shape
        gradients/Mean_grad/Tile Tile
        gradients/Mean_grad/Shape_1 Shape
        gradients/Mean_grad/Shape_2 Const
        gradients/Mean_grad/Const Const
        gradients/Mean_grad/Prod Prod
        gradients/Mean_grad/Const_1 Const
        gradients/Mean_grad/Prod_1 Prod
        gradients/Mean_grad/Maximum/y Const
        gradients/Mean_grad/Maximum Maximum
        gradients/Mean_grad/floordiv FloorDiv
        gradients/Mean_grad/Cast Cast
        gradients/Mean_grad/truediv RealDiv
        gradients/MatMul_grad/MatMul MatMul
        gradients/MatMul_grad/MatMul_1 MatMul
        gradients/MatMul_grad/tuple/group_deps NoOp
        gradients/MatMul_grad/tuple/control_dependency Identity
        gradients/MatMul_grad/tuple/control_dependency_1 Identity
        gradients/w/Regularizer/l2_regularizer_grad/Mul Mul
        gradients/w/Regularizer/l2_regularizer_grad/Mul_1 Mul
        gradients/w/Regularizer/l2_regularizer_grad/tuple/group_deps NoOp
        gradients/w/Regularizer/l2_regularizer_grad/tuple/control_dependency Identity
        gradients/w/Regularizer/l2_regularizer_grad/tuple/control_dependency_1 Identity
        gradients/w/Regularizer/l2_regularizer/L2Loss_grad/mul Mul
        gradients/AddN AddN
        GradientDescent/learning_rate Const
        GradientDescent/update_w/ApplyGradientDescent ApplyGradientDescent
        GradientDescent NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=58
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'w = tf.Variable(tf.zeros([3])); l = tf.reduce_sum(w * w); t = tf.train.AdadeltaOptimizer(0.1).minimize(l); t2 = tf.train.FtrlOptimizer(0.1).minimize(l); z = tf.random_normal([2])',
        """
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        mul Mul
        Const Const
        Sum Sum
        gradients/Shape Const
        gradients/grad_ys_0 Const
        gradients/Fill Fill
        gradients/Sum_grad/Reshape/shape Const
        gradients/Sum_grad/Reshape Reshape
        gradients/Sum_grad/Const Const
        gradients/Sum_grad/Tile Tile
        gradients/mul_grad/Mul Mul
        gradients/mul_grad/Mul_1 Mul
        gradients/mul_grad/tuple/group_deps NoOp
        gradients/mul_grad/tuple/control_dependency Identity
        gradients/mul_grad/tuple/control_dependency_1 Identity
        gradients/AddN AddN
        Variable/Adadelta/Initializer/zeros Const
        Variable/Adadelta VariableV2
        Variable/Adadelta/Assign Assign
        Variable/Adadelta/read Identity
        Variable/Adadelta_1/Initializer/zeros Const
        Variable/Adadelta_1 VariableV2
        Variable/Adadelta_1/Assign Assign
        Variable/Adadelta_1/read Identity
        Adadelta/lr Const
        Adadelta/rho Const
        Adadelta/epsilon Const
        Adadelta/update_Variable/ApplyAdadelta ApplyAdadelta
        Adadelta NoOp
        gradients_1/Shape Const
        gradients_1/grad_ys_0 Const
        gradients_1/Fill Fill
        gradients_1/Sum_grad/Reshape/shape Const
        gradients_1/Sum_grad/Reshape Reshape
        gradients_1/Sum_grad/Const Const
        gradients_1/Sum_grad/Tile Tile
        gradients_1/mul_grad/Mul Mul
        gradients_1/mul_grad/Mul_1 Mul
        gradients_1/mul_grad/tuple/group_deps NoOp
        gradients_1/mul_grad/tuple/control_dependency Identity
        gradients_1/mul_grad/tuple/control_dependency_1 Identity
        gradients_1/AddN AddN
        Const_1 Const
        Variable/Ftrl VariableV2
        Variable/Ftrl/Assign Assign
        Variable/Ftrl/read Identity
        Variable/Ftrl_1/Initializer/zeros Const
        Variable/Ftrl_1 VariableV2
        Variable/Ftrl_1/Assign Assign
        Variable/Ftrl_1/read Identity
        Ftrl/learning_rate Const
        Ftrl/l1_regularization_strength Const
        Ftrl/l2_regularization_strength Const
        Ftrl/l2_shrinkage_regularization_strength Const
        Ftrl/learning_rate_power Const
        Ftrl/update_Variable/ApplyFtrl ApplyFtrl
        Ftrl NoOp
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=64
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", OPTIMIZER_CASES)
def test_optimizers_build_tf_ops(code, want):
    # sparse updates, slots started from a Const made outside them (Ftrl, ProximalAdagrad,
    # AdagradDA), clip_by_norm's number kept a number, regularization losses
    assert _op_list(code) == _want(want)


@pytest.mark.parametrize("code,seed2", [
    (("l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); "
     "w = tf.placeholder(tf.float32, [None, 1]); "
     "a = tf.losses.mean_squared_error(l, p, weights=w); z = tf.random_normal([2])"), 152),
    (("l = tf.placeholder(tf.int64, [None]); p = tf.placeholder(tf.float32, [None, 3]); "
     "w = tf.placeholder(tf.float32, [None]); "
     "a = tf.losses.sparse_softmax_cross_entropy(l, p, weights=w); z = tf.random_normal([2])"),
     153),
    (("l = tf.placeholder(tf.float32, [None, 3]); p = tf.placeholder(tf.float32, [None, 3]); "
     "w = tf.placeholder(tf.float32); a = tf.losses.absolute_difference(l, p, weights=w); "
     "z = tf.random_normal([2])"), 159),
    (("x = tf.placeholder(tf.float32, [None]); w = tf.placeholder(tf.float32, [None]); "
     "m, up = tf.metrics.mean(x, weights=w); z = tf.random_normal([2])"), 93),
])
def test_run_time_weight_checks_keep_tf_op_count(code, seed2):
    # weights of unknown shape get TF's run-time broadcast check, which TF builds from
    # Switch/Merge conds; ours is functional and smaller, but the op after it gets TF's seed
    # (the seed2 TF 1.15 gave the random op)
    assert _op_list(code)[-3] == f"random_normal/RandomStandardNormal RandomStandardNormal " \
                                 f"seed2={seed2}"


@pytest.mark.parametrize("code,seed2", [
    (("gs = tf.train.get_or_create_global_step(); "
     "lr = tf.train.polynomial_decay(0.1, gs, 100, cycle=True); z = tf.random_normal([2])"), 33),
    (("gs = tf.train.get_or_create_global_step(); lr = tf.train.cosine_decay_restarts(0.1, gs, "
     "100); lr2 = tf.train.cosine_decay_restarts(0.1, gs, 100, t_mul=1.0); "
     "z = tf.random_normal([2])"), 113),
    (("gs = tf.train.get_or_create_global_step(); "
     "lr = tf.train.piecewise_constant(gs, [10, 20], [1.0, 0.5, 0.1]); z = tf.random_normal([2])"),
     65),
    (("x = tf.placeholder(tf.float32, []); lr = tf.train.piecewise_constant(x, [1.0, 2.0, 3.0], "
     "[1.0, 0.5, 0.1, 0.01]); z = tf.random_normal([2])"), 78),
])
def test_schedules_with_conds_keep_tf_op_count(code, seed2):
    # TF 1.15 builds these with tf.cond / tf.case: the random op after them gets its seed
    assert _op_list(code)[-3] == f"random_normal/RandomStandardNormal RandomStandardNormal " \
                                 f"seed2={seed2}"


def test_cycled_and_restarted_schedules_keep_tf_values():
    # values TF 1.15 printed at steps 0, 5, 10, 15, 20, 45, 150, 250
    gs = tf.placeholder(tf.int64, [])
    outs = [tf.train.polynomial_decay(0.1, gs, 100, cycle=True),
            tf.train.cosine_decay_restarts(0.1, gs, 30),
            tf.train.cosine_decay_restarts(0.1, gs, 30, t_mul=1.0, m_mul=0.5),
            tf.train.piecewise_constant(gs, [10, 20], [1.0, 0.5, 0.1])]
    with tf.Session() as sess:
        got = [sess.run(outs, {gs: s}) for s in (0, 5, 10, 15, 20, 45, 150, 250)]
    want = [
        [0.1, 0.1, 0.1, 1.0],
        [0.095005, 0.093301, 0.093301, 1.0],
        [0.09001, 0.075, 0.075, 1.0],
        [0.085015, 0.05, 0.05, 0.5],
        [0.08002, 0.025, 0.025, 0.5],
        [0.055045, 0.085355, 0.025, 0.1],
        [0.025075, 0.05, 0.003125, 0.1],
        [0.01675, 0.093301, 0.000293, 0.1],
    ]
    np.testing.assert_allclose(got, want, atol=2e-6)


CONV_CASES = [
    (
        'x = tf.placeholder(tf.float32, [None, 8, 3]); k = tf.Variable(tf.zeros([3, 3, 4])); b = tf.nn.convolution(x, k, "SAME", dilation_rate=[2]); c = tf.nn.convolution(x, k, "VALID", dilation_rate=[2]); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        convolution/dilation_rate Const
        convolution/filter_shape Const
        convolution/stack Const
        convolution/required_space_to_batch_paddings/input_shape Const
        convolution/required_space_to_batch_paddings/paddings Const
        convolution/required_space_to_batch_paddings/crops Const
        convolution/SpaceToBatchND/block_shape Const
        convolution/SpaceToBatchND/paddings Const
        convolution/SpaceToBatchND SpaceToBatchND
        convolution/ExpandDims/dim Const
        convolution/ExpandDims ExpandDims
        convolution/ExpandDims_1/dim Const
        convolution/ExpandDims_1 ExpandDims
        convolution Conv2D
        convolution/Squeeze Squeeze
        convolution/BatchToSpaceND/block_shape Const
        convolution/BatchToSpaceND/crops Const
        convolution/BatchToSpaceND BatchToSpaceND
        convolution_1/dilation_rate Const
        convolution_1/required_space_to_batch_paddings/input_shape Const
        convolution_1/required_space_to_batch_paddings/base_paddings Const
        convolution_1/required_space_to_batch_paddings/paddings Const
        convolution_1/required_space_to_batch_paddings/crops Const
        convolution_1/SpaceToBatchND/block_shape Const
        convolution_1/SpaceToBatchND/paddings Const
        convolution_1/SpaceToBatchND SpaceToBatchND
        convolution_1/ExpandDims/dim Const
        convolution_1/ExpandDims ExpandDims
        convolution_1/ExpandDims_1/dim Const
        convolution_1/ExpandDims_1 ExpandDims
        convolution_1 Conv2D
        convolution_1/Squeeze Squeeze
        convolution_1/BatchToSpaceND/block_shape Const
        convolution_1/BatchToSpaceND/crops Const
        convolution_1/BatchToSpaceND BatchToSpaceND
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=43
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); k = tf.Variable(tf.zeros([3, 3, 3, 4])); b = tf.nn.atrous_conv2d(x, k, 2, "SAME"); c = tf.nn.atrous_conv2d(x, k, 2, "VALID"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        convolution/dilation_rate Const
        convolution/filter_shape Const
        convolution/stack Const
        convolution/required_space_to_batch_paddings/input_shape Const
        convolution/required_space_to_batch_paddings/paddings Const
        convolution/required_space_to_batch_paddings/crops Const
        convolution/SpaceToBatchND/block_shape Const
        convolution/SpaceToBatchND/paddings Const
        convolution/SpaceToBatchND SpaceToBatchND
        convolution Conv2D
        convolution/BatchToSpaceND/block_shape Const
        convolution/BatchToSpaceND/crops Const
        convolution/BatchToSpaceND BatchToSpaceND
        convolution_1/dilation_rate Const
        convolution_1/required_space_to_batch_paddings/input_shape Const
        convolution_1/required_space_to_batch_paddings/base_paddings Const
        convolution_1/required_space_to_batch_paddings/paddings Const
        convolution_1/required_space_to_batch_paddings/crops Const
        convolution_1/SpaceToBatchND/block_shape Const
        convolution_1/SpaceToBatchND/paddings Const
        convolution_1/SpaceToBatchND SpaceToBatchND
        convolution_1 Conv2D
        convolution_1/BatchToSpaceND/block_shape Const
        convolution_1/BatchToSpaceND/crops Const
        convolution_1/BatchToSpaceND BatchToSpaceND
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=33
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.layers.conv2d(x, 4, 3, dilation_rate=2, padding="same"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        conv2d/kernel/Initializer/random_uniform/shape Const
        conv2d/kernel/Initializer/random_uniform/min Const
        conv2d/kernel/Initializer/random_uniform/max Const
        conv2d/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        conv2d/kernel/Initializer/random_uniform/sub Sub
        conv2d/kernel/Initializer/random_uniform/mul Mul
        conv2d/kernel/Initializer/random_uniform Add
        conv2d/kernel VariableV2
        conv2d/kernel/Assign Assign
        conv2d/kernel/read Identity
        conv2d/bias/Initializer/zeros Const
        conv2d/bias VariableV2
        conv2d/bias/Assign Assign
        conv2d/bias/read Identity
        conv2d/dilation_rate Const
        conv2d/filter_shape Const
        conv2d/stack Const
        conv2d/required_space_to_batch_paddings/input_shape Const
        conv2d/required_space_to_batch_paddings/paddings Const
        conv2d/required_space_to_batch_paddings/crops Const
        conv2d/SpaceToBatchND/block_shape Const
        conv2d/SpaceToBatchND/paddings Const
        conv2d/SpaceToBatchND SpaceToBatchND
        conv2d/Conv2D Conv2D
        conv2d/BatchToSpaceND/block_shape Const
        conv2d/BatchToSpaceND/crops Const
        conv2d/BatchToSpaceND BatchToSpaceND
        conv2d/BiasAdd BiasAdd
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=32
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 3]); h = tf.layers.conv1d(x, 4, 3, dilation_rate=2, padding="valid"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        conv1d/kernel/Initializer/random_uniform/shape Const
        conv1d/kernel/Initializer/random_uniform/min Const
        conv1d/kernel/Initializer/random_uniform/max Const
        conv1d/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        conv1d/kernel/Initializer/random_uniform/sub Sub
        conv1d/kernel/Initializer/random_uniform/mul Mul
        conv1d/kernel/Initializer/random_uniform Add
        conv1d/kernel VariableV2
        conv1d/kernel/Assign Assign
        conv1d/kernel/read Identity
        conv1d/bias/Initializer/zeros Const
        conv1d/bias VariableV2
        conv1d/bias/Assign Assign
        conv1d/bias/read Identity
        conv1d/dilation_rate Const
        conv1d/required_space_to_batch_paddings/input_shape Const
        conv1d/required_space_to_batch_paddings/base_paddings Const
        conv1d/required_space_to_batch_paddings/paddings Const
        conv1d/required_space_to_batch_paddings/crops Const
        conv1d/SpaceToBatchND/block_shape Const
        conv1d/SpaceToBatchND/paddings Const
        conv1d/SpaceToBatchND SpaceToBatchND
        conv1d/conv1d/ExpandDims/dim Const
        conv1d/conv1d/ExpandDims ExpandDims
        conv1d/conv1d/ExpandDims_1/dim Const
        conv1d/conv1d/ExpandDims_1 ExpandDims
        conv1d/conv1d Conv2D
        conv1d/conv1d/Squeeze Squeeze
        conv1d/BatchToSpaceND/block_shape Const
        conv1d/BatchToSpaceND/crops Const
        conv1d/BatchToSpaceND BatchToSpaceND
        conv1d/BiasAdd BiasAdd
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=36
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.layers.conv2d(x, 4, 3, dilation_rate=(2, 1), padding="same"); h2 = tf.layers.conv2d(h, 4, 3, dilation_rate=2); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        conv2d/kernel/Initializer/random_uniform/shape Const
        conv2d/kernel/Initializer/random_uniform/min Const
        conv2d/kernel/Initializer/random_uniform/max Const
        conv2d/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        conv2d/kernel/Initializer/random_uniform/sub Sub
        conv2d/kernel/Initializer/random_uniform/mul Mul
        conv2d/kernel/Initializer/random_uniform Add
        conv2d/kernel VariableV2
        conv2d/kernel/Assign Assign
        conv2d/kernel/read Identity
        conv2d/bias/Initializer/zeros Const
        conv2d/bias VariableV2
        conv2d/bias/Assign Assign
        conv2d/bias/read Identity
        conv2d/dilation_rate Const
        conv2d/filter_shape Const
        conv2d/stack Const
        conv2d/required_space_to_batch_paddings/input_shape Const
        conv2d/required_space_to_batch_paddings/paddings Const
        conv2d/required_space_to_batch_paddings/crops Const
        conv2d/SpaceToBatchND/block_shape Const
        conv2d/SpaceToBatchND/paddings Const
        conv2d/SpaceToBatchND SpaceToBatchND
        conv2d/Conv2D Conv2D
        conv2d/BatchToSpaceND/block_shape Const
        conv2d/BatchToSpaceND/crops Const
        conv2d/BatchToSpaceND BatchToSpaceND
        conv2d/BiasAdd BiasAdd
        conv2d_1/kernel/Initializer/random_uniform/shape Const
        conv2d_1/kernel/Initializer/random_uniform/min Const
        conv2d_1/kernel/Initializer/random_uniform/max Const
        conv2d_1/kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=32
        conv2d_1/kernel/Initializer/random_uniform/sub Sub
        conv2d_1/kernel/Initializer/random_uniform/mul Mul
        conv2d_1/kernel/Initializer/random_uniform Add
        conv2d_1/kernel VariableV2
        conv2d_1/kernel/Assign Assign
        conv2d_1/kernel/read Identity
        conv2d_1/bias/Initializer/zeros Const
        conv2d_1/bias VariableV2
        conv2d_1/bias/Assign Assign
        conv2d_1/bias/read Identity
        conv2d_1/dilation_rate Const
        conv2d_1/required_space_to_batch_paddings/input_shape Const
        conv2d_1/required_space_to_batch_paddings/base_paddings Const
        conv2d_1/required_space_to_batch_paddings/paddings Const
        conv2d_1/required_space_to_batch_paddings/crops Const
        conv2d_1/SpaceToBatchND/block_shape Const
        conv2d_1/SpaceToBatchND/paddings Const
        conv2d_1/SpaceToBatchND SpaceToBatchND
        conv2d_1/Conv2D Conv2D
        conv2d_1/BatchToSpaceND/block_shape Const
        conv2d_1/BatchToSpaceND/crops Const
        conv2d_1/BatchToSpaceND BatchToSpaceND
        conv2d_1/BiasAdd BiasAdd
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=59
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", CONV_CASES)
def test_dilated_convolutions_build_tf_ops(code, want):
    # a dilated convolution over known sizes makes TF's constants (dilation_rate,
    # filter_shape, the paddings' stack, required_space_to_batch_paddings') before its ops
    assert _op_list(code) == _want(want)


POOL_CASES = [
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); k = tf.Variable(tf.zeros([3, 3, 3, 4])); a = tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"); b = tf.nn.atrous_conv2d(x, k, 2, "SAME"); c = tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 3, 2]), [1, 1, 1, 1], "SAME"); d = tf.nn.separable_conv2d(x, tf.zeros([3, 3, 3, 2]), tf.zeros([1, 1, 6, 4]), [1, 1, 1, 1], "SAME"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        Conv2D Conv2D
        convolution/dilation_rate Const
        convolution/filter_shape Const
        convolution/stack Const
        convolution/required_space_to_batch_paddings/input_shape Const
        convolution/required_space_to_batch_paddings/paddings Const
        convolution/required_space_to_batch_paddings/crops Const
        convolution/SpaceToBatchND/block_shape Const
        convolution/SpaceToBatchND/paddings Const
        convolution/SpaceToBatchND SpaceToBatchND
        convolution Conv2D
        convolution/BatchToSpaceND/block_shape Const
        convolution/BatchToSpaceND/crops Const
        convolution/BatchToSpaceND BatchToSpaceND
        zeros_1 Const
        depthwise/Shape Const
        depthwise/dilation_rate Const
        depthwise DepthwiseConv2dNative
        zeros_2 Const
        zeros_3 Const
        separable_conv2d/Shape Const
        separable_conv2d/dilation_rate Const
        separable_conv2d/depthwise DepthwiseConv2dNative
        separable_conv2d Conv2D
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=32
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.layers.separable_conv2d(x, 4, 3); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/shape Const
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/min Const
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/max Const
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/sub Sub
        separable_conv2d/depthwise_kernel/Initializer/random_uniform/mul Mul
        separable_conv2d/depthwise_kernel/Initializer/random_uniform Add
        separable_conv2d/depthwise_kernel VariableV2
        separable_conv2d/depthwise_kernel/Assign Assign
        separable_conv2d/depthwise_kernel/read Identity
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/shape Const
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/min Const
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/max Const
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/RandomUniform RandomUniform seed2=14
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/sub Sub
        separable_conv2d/pointwise_kernel/Initializer/random_uniform/mul Mul
        separable_conv2d/pointwise_kernel/Initializer/random_uniform Add
        separable_conv2d/pointwise_kernel VariableV2
        separable_conv2d/pointwise_kernel/Assign Assign
        separable_conv2d/pointwise_kernel/read Identity
        separable_conv2d/bias/Initializer/zeros Const
        separable_conv2d/bias VariableV2
        separable_conv2d/bias/Assign Assign
        separable_conv2d/bias/read Identity
        separable_conv2d/separable_conv2d/Shape Const
        separable_conv2d/separable_conv2d/dilation_rate Const
        separable_conv2d/separable_conv2d/depthwise DepthwiseConv2dNative
        separable_conv2d/separable_conv2d Conv2D
        separable_conv2d/BiasAdd BiasAdd
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=33
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.contrib.layers.separable_conv2d(x, 4, 3, 2); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        SeparableConv2d/depthwise_weights/Initializer/random_uniform/shape Const
        SeparableConv2d/depthwise_weights/Initializer/random_uniform/min Const
        SeparableConv2d/depthwise_weights/Initializer/random_uniform/max Const
        SeparableConv2d/depthwise_weights/Initializer/random_uniform/RandomUniform RandomUniform seed2=4
        SeparableConv2d/depthwise_weights/Initializer/random_uniform/sub Sub
        SeparableConv2d/depthwise_weights/Initializer/random_uniform/mul Mul
        SeparableConv2d/depthwise_weights/Initializer/random_uniform Add
        SeparableConv2d/depthwise_weights VariableV2
        SeparableConv2d/depthwise_weights/Assign Assign
        SeparableConv2d/depthwise_weights/read Identity
        SeparableConv2d/pointwise_weights/Initializer/random_uniform/shape Const
        SeparableConv2d/pointwise_weights/Initializer/random_uniform/min Const
        SeparableConv2d/pointwise_weights/Initializer/random_uniform/max Const
        SeparableConv2d/pointwise_weights/Initializer/random_uniform/RandomUniform RandomUniform seed2=14
        SeparableConv2d/pointwise_weights/Initializer/random_uniform/sub Sub
        SeparableConv2d/pointwise_weights/Initializer/random_uniform/mul Mul
        SeparableConv2d/pointwise_weights/Initializer/random_uniform Add
        SeparableConv2d/pointwise_weights VariableV2
        SeparableConv2d/pointwise_weights/Assign Assign
        SeparableConv2d/pointwise_weights/read Identity
        SeparableConv2d/biases/Initializer/zeros Const
        SeparableConv2d/biases VariableV2
        SeparableConv2d/biases/Assign Assign
        SeparableConv2d/biases/read Identity
        SeparableConv2d/separable_conv2d/Shape Const
        SeparableConv2d/separable_conv2d/dilation_rate Const
        SeparableConv2d/separable_conv2d/depthwise DepthwiseConv2dNative
        SeparableConv2d/separable_conv2d Conv2D
        SeparableConv2d/BiasAdd BiasAdd
        SeparableConv2d/Relu Relu
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=34
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); h = tf.nn.depthwise_conv2d(x, tf.zeros([3, 3, 3, 2]), [1, 2, 2, 1], "SAME"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        depthwise/Shape Const
        depthwise/dilation_rate Const
        depthwise DepthwiseConv2dNative
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=8
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 2, 4]); y = tf.placeholder(tf.int32, [None, 2]); a = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        Placeholder_1 Placeholder
        SparseSoftmaxCrossEntropyWithLogits/Shape Shape
        SparseSoftmaxCrossEntropyWithLogits/Shape_1 Shape
        SparseSoftmaxCrossEntropyWithLogits/Shape_2 Shape
        SparseSoftmaxCrossEntropyWithLogits/strided_slice/stack Const
        SparseSoftmaxCrossEntropyWithLogits/strided_slice/stack_1 Const
        SparseSoftmaxCrossEntropyWithLogits/strided_slice/stack_2 Const
        SparseSoftmaxCrossEntropyWithLogits/strided_slice StridedSlice
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Equal Equal
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Const Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/All All
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Const Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Const_1 Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Const_2 Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Assert/data_0 Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Assert/data_1 Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Assert/data_3 Const
        SparseSoftmaxCrossEntropyWithLogits/assert_equal_1/Assert/Assert Assert
        SparseSoftmaxCrossEntropyWithLogits/Shape_3 Shape
        SparseSoftmaxCrossEntropyWithLogits/Rank Const
        SparseSoftmaxCrossEntropyWithLogits/sub/y Const
        SparseSoftmaxCrossEntropyWithLogits/sub Sub
        SparseSoftmaxCrossEntropyWithLogits/add/y Const
        SparseSoftmaxCrossEntropyWithLogits/add AddV2
        SparseSoftmaxCrossEntropyWithLogits/strided_slice_1/stack Pack
        SparseSoftmaxCrossEntropyWithLogits/strided_slice_1/stack_1 Pack
        SparseSoftmaxCrossEntropyWithLogits/strided_slice_1/stack_2 Const
        SparseSoftmaxCrossEntropyWithLogits/strided_slice_1 StridedSlice
        SparseSoftmaxCrossEntropyWithLogits/Reshape/shape/0 Const
        SparseSoftmaxCrossEntropyWithLogits/Reshape/shape Pack
        SparseSoftmaxCrossEntropyWithLogits/Reshape Reshape
        SparseSoftmaxCrossEntropyWithLogits/Reshape_1/shape Const
        SparseSoftmaxCrossEntropyWithLogits/Reshape_1 Reshape
        SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits SparseSoftmaxCrossEntropyWithLogits
        SparseSoftmaxCrossEntropyWithLogits/Reshape_2 Reshape
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=39
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 8, 3]); a = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"); b = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"); c = tf.nn.pool(x, [2, 2], "MAX", "SAME"); d = tf.nn.conv2d_transpose(x, tf.zeros([3, 3, 2, 3]), [4, 16, 16, 2], [1, 2, 2, 1]); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        MaxPool MaxPool
        AvgPool AvgPool
        max_pool/dilation_rate Const
        max_pool MaxPool
        zeros Const
        conv2d_transpose/input_sizes Const
        conv2d_transpose Conv2DBackpropInput
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=11
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 8, 3]); k = tf.Variable(tf.zeros([3, 3, 4])); a = tf.nn.conv1d(x, k, 1, "SAME"); b = tf.nn.convolution(x, k, "SAME", dilation_rate=[2]); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        zeros Const
        Variable VariableV2
        Variable/Assign Assign
        Variable/read Identity
        conv1d/ExpandDims/dim Const
        conv1d/ExpandDims ExpandDims
        conv1d/ExpandDims_1/dim Const
        conv1d/ExpandDims_1 ExpandDims
        conv1d Conv2D
        conv1d/Squeeze Squeeze
        convolution/dilation_rate Const
        convolution/filter_shape Const
        convolution/stack Const
        convolution/required_space_to_batch_paddings/input_shape Const
        convolution/required_space_to_batch_paddings/paddings Const
        convolution/required_space_to_batch_paddings/crops Const
        convolution/SpaceToBatchND/block_shape Const
        convolution/SpaceToBatchND/paddings Const
        convolution/SpaceToBatchND SpaceToBatchND
        convolution/ExpandDims/dim Const
        convolution/ExpandDims ExpandDims
        convolution/ExpandDims_1/dim Const
        convolution/ExpandDims_1 ExpandDims
        convolution Conv2D
        convolution/Squeeze Squeeze
        convolution/BatchToSpaceND/block_shape Const
        convolution/BatchToSpaceND/crops Const
        convolution/BatchToSpaceND BatchToSpaceND
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=32
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", POOL_CASES)
def test_pools_and_transposed_convolutions_build_tf_ops(code, want):
    # tf.nn.pool's unit dilation_rate Const, conv2d_transpose's input_sizes
    assert _op_list(code) == _want(want)


def test_broadcast_gradients_of_unknown_ranks():
    # shapes of unknown rank take TF's Shape/BroadcastGradientArgs path (no static shortcut)
    x = tf.placeholder(tf.float32)
    y = tf.placeholder(tf.float32, [None, 3])
    gx, gy = tf.gradients(x * y + (x - y) ** 2, [x, y])
    assert gy.get_shape().as_list() == [None, 3]
    with tf.Session() as sess:
        vx, vy = sess.run([gx, gy], {x: 2.0, y: np.ones((2, 3), np.float32)})
    np.testing.assert_allclose(vx, 6 + 2 * 6 * 1.0)
    np.testing.assert_allclose(vy, np.full((2, 3), 2.0 - 2.0))


def test_optimizer_slots_of_resource_variables_are_resource_variables():
    w = tf.get_variable("w", [3, 2], use_resource=True)
    x = tf.placeholder(tf.float32, [None, 3])
    opt = tf.train.AdamOptimizer(0.1)
    opt.minimize(tf.reduce_sum(tf.matmul(x, w)))
    g = tf.get_default_graph()
    # (TF 1.15's op names for a resource variable: its IsInitialized and Read ops)
    for name in ("w/Adam", "w/Adam_1", "beta1_power", "beta2_power"):
        assert g.get_operation_by_name(name + "/IsInitialized/VarIsInitializedOp")
        assert g.get_operation_by_name(name + "/Read/ReadVariableOp")


ASSERT_CASES = [
    (
        'x = tf.placeholder(tf.int32, [None]); a = tf.assert_positive(x); b = tf.assert_less(x, 10); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        assert_positive/Const Const
        assert_positive/assert_less/Less Less
        assert_positive/assert_less/Const Const
        assert_positive/assert_less/All All
        assert_positive/assert_less/Assert/Const Const
        assert_positive/assert_less/Assert/Const_1 Const
        assert_positive/assert_less/Assert/Const_2 Const
        assert_positive/assert_less/Assert/Assert/data_0 Const
        assert_positive/assert_less/Assert/Assert/data_1 Const
        assert_positive/assert_less/Assert/Assert/data_2 Const
        assert_positive/assert_less/Assert/Assert Assert
        assert_less/y Const
        assert_less/Less Less
        assert_less/Const Const
        assert_less/All All
        assert_less/Assert/Const Const
        assert_less/Assert/Const_1 Const
        assert_less/Assert/Const_2 Const
        assert_less/Assert/Assert/data_0 Const
        assert_less/Assert/Assert/data_1 Const
        assert_less/Assert/Assert/data_3 Const
        assert_less/Assert/Assert Assert
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=26
        random_normal/mul Mul
        random_normal Add
        """,
    ),
    (
        'x = tf.placeholder(tf.float32, [None, 3]); a = tf.verify_tensor_all_finite(x, "bad"); b = tf.check_numerics(x, "m"); z = tf.random_normal([2])',
        """
        Placeholder Placeholder
        VerifyFinite/CheckNumerics CheckNumerics
        VerifyFinite/control_dependency Identity
        CheckNumerics CheckNumerics
        random_normal/shape Const
        random_normal/mean Const
        random_normal/stddev Const
        random_normal/RandomStandardNormal RandomStandardNormal seed2=7
        random_normal/mul Mul
        random_normal Add
        """,
    ),
]


@pytest.mark.parametrize("code,want", ASSERT_CASES)
def test_asserts_build_tf_ops(code, want):
    assert _op_list(code) == _want(want)


@pytest.mark.parametrize("code,seed2", [
    (("x = tf.placeholder(tf.float32, [None]); a = tf.assert_positive(x); "
     "b = tf.assert_equal(x, x); c = tf.Assert(tf.reduce_all(x > 0), [x, 'msg', 3.0]); "
     "z = tf.random_normal([2])"), 45),
    (("x = tf.placeholder(tf.float32, [None, 3]); a = tf.debugging.assert_rank(x, 2); "
     "b = tf.assert_non_negative(x); c = tf.assert_greater_equal(x, 0.0, message='neg'); "
     "z = tf.random_normal([2])"), 53),
])
def test_guarded_asserts_keep_tf_op_count(code, seed2):
    # an Assert on data other than strings and int32 is guarded by a Switch/Merge cond in TF
    # 1.15 (AssertGuard): the random op after it gets TF's seed
    assert _op_list(code)[-3] == f"random_normal/RandomStandardNormal RandomStandardNormal " \
                                 f"seed2={seed2}"


@pytest.mark.parametrize("code,seed2", [
    (("x = tf.placeholder(tf.float32, [None, 8]); "
     "training = tf.placeholder_with_default(False, []); h = tf.layers.dense(x, 16); "
     "h = tf.layers.dropout(h, 0.3, training=training); l = tf.reduce_sum(h); "
     "g = tf.train.GradientDescentOptimizer(0.1).minimize(l); z = tf.random_uniform([2])"), 109),
    (("x = tf.placeholder(tf.float32, [None, 8]); "
     "training = tf.placeholder_with_default(False, []); "
     "h = tf.layers.dense(x, 16, activation=tf.nn.relu); "
     "h = tf.layers.dropout(h, 0.3, training=training); h2 = tf.layers.dense(h, 4); "
     "l = tf.reduce_sum(h2); g = tf.gradients(l, tf.trainable_variables()); "
     "z = tf.random_uniform([2])"), 111),
    (("x = tf.placeholder(tf.float32, [None, 8]); "
     "training = tf.placeholder_with_default(False, []); "
     "h = tf.layers.dense(x, 16, activation=tf.nn.relu); "
     "h = tf.layers.dropout(h, 0.3, training=training); h2 = tf.layers.dense(h, 4); "
     "l = tf.reduce_sum(h2); g = tf.train.GradientDescentOptimizer(0.1).minimize(l); "
     "z = tf.random_uniform([2])"), 138),
])
def test_cond_gradients_keep_tf_op_count(code, seed2):
    # a dropout under a training placeholder is a tf.cond; its gradient (gated op by op under
    # minimize(), as TF's) leaves the random op after it with TF 1.15's seed
    assert _op_list(code)[-4] == f"random_uniform/RandomUniform RandomUniform seed2={seed2}"


def test_seeded_mlp_with_a_training_placeholder_trains_as_tf115():
    # the same program with tf.layers.dropout under a training placeholder (a tf.cond, and
    # its gradient under minimize()); TF 1.15.0's printed numbers
    rng = np.random.RandomState(0)
    xs = rng.randn(32, 8).astype(np.float32)
    ys = rng.randint(0, 3, size=32).astype(np.int64)
    tf.set_random_seed(42)
    x = tf.placeholder(tf.float32, [None, 8])
    y = tf.placeholder(tf.int64, [None])
    training = tf.placeholder_with_default(False, [])
    h = tf.layers.dense(x, 16, activation=tf.nn.relu)
    h = tf.layers.dropout(h, 0.3, training=training)
    h2 = tf.nn.dropout(tf.layers.dense(h, 16, activation=tf.nn.tanh), keep_prob=0.8)
    logits = tf.layers.dense(h2, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    reg = tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "kernel" in v.name])
    gs = tf.train.get_or_create_global_step()
    opt = tf.train.AdamOptimizer(tf.train.exponential_decay(0.05, gs, 10, 0.9))
    grads, tvars = zip(*opt.compute_gradients(loss + 1e-3 * reg))
    grads, _ = tf.clip_by_global_norm(grads, 5.0)
    train = opt.apply_gradients(zip(grads, tvars), global_step=gs)
    tf.metrics.accuracy(y, tf.argmax(logits, 1))
    extra = tf.random_uniform([2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(extra), [0.9516350030899048, 0.7435826063156128],
                                   rtol=1e-7)
        losses = [sess.run([loss, train], {x: xs, y: ys, training: True})[0]
                  for _ in range(6)]
    np.testing.assert_allclose(
        losses, [1.1641979217529297, 1.068260908126831, 0.9882681369781494,
                 0.9643826484680176, 1.015010118484497, 0.9940477609634399], rtol=1e-6)
