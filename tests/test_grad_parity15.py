"""tf.gradients and friends against TF 1.15 (differential cases): what comes back and the ops
made, so later seeded random ops draw TF's numbers. Expected values are TF 1.15's outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _seeds(op_type="RandomStandardNormal"):
    return [op.get_attr("seed2") for op in tf.get_default_graph().get_operations()
            if op.type == op_type]


def test_euclidean_norm_is_not_differentiable_as_tf115():
    a = tf.constant([[3.0, 4.0], [1.0, 2.0]])
    assert tf.gradients(tf.math.reduce_euclidean_norm(a), a) == [None]
    assert tf.gradients(tf.math.reduce_euclidean_norm(a, -1, keepdims=True), a) == [None]
    # a loss term through it adds nothing to the other terms' gradient
    g = tf.gradients(tf.reduce_sum(a * a) + tf.math.reduce_euclidean_norm(a), a)[0]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(g), [[6.0, 8.0], [2.0, 4.0]])


def test_hessians_op_count_seed_and_values_as_tf115():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    h = tf.hessians(tf.reduce_sum(a * a * a), a)
    r = tf.random_normal([2])
    # TF's hessians opens no name scope; its loop and stack take 91 - 3 ids before r
    assert h[0].name == "Reshape_1:0" and h[0].get_shape().as_list() == [3, 3]
    assert _seeds() == [3, 91]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(r), [-0.51725054, 1.0855219], rtol=1e-6)
        np.testing.assert_allclose(s.run(h[0]), np.diag([-4.0251675, 1.3414286, 4.7836385]),
                                   rtol=1e-5)


def test_hessians_of_unknown_shape_as_tf115():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None])
    h = tf.hessians(tf.reduce_sum(x * x * x), x, name="hh")
    r = tf.random_normal([2])
    assert h[0].name == "Reshape_1:0" and h[0].get_shape().as_list() == [None, None]
    assert _seeds() == [217]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(h[0], {x: [1.0, 2.0]}), [[6.0, 0.0], [0.0, 12.0]])
        np.testing.assert_allclose(s.run(r), [1.9684068, 1.3178934], rtol=1e-6)


def test_hessians_of_two_xs_share_the_first_gradients():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([2, 2]))
    b = tf.Variable(tf.random_normal([3]))
    h = tf.hessians(tf.reduce_sum(a * a) * tf.reduce_sum(tf.exp(b)), [a, b])
    tf.random_normal([2])
    assert [t.get_shape().as_list() for t in h] == [[2, 2, 2, 2], [3, 3]]
    assert _seeds() == [3, 12, 151]


def test_tensor_array_split_gradient_fills_unread_pieces_with_zeros():
    a = tf.constant(np.arange(10.0, dtype=np.float32).reshape(5, 2))
    ta = tf.TensorArray(tf.float32, 2, infer_shape=False).split(a, [2, 3])
    g = tf.gradients(ta.read(1) * 2.0, a)[0]
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(g), [[0, 0], [0, 0], [2, 2], [2, 2], [2, 2]])


# ------------------------------------------------------------------------------------------
# tf.cond gradients make as many ops as TF 1.15's Switch/Merge gradients (the random ops made
# after them draw TF's seeds); TF 1.15's seeds and values below
# ------------------------------------------------------------------------------------------


def test_dropout_after_minimizing_through_a_cond_draws_tf115_numbers():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 4])
    p = tf.placeholder(tf.bool, [])
    w = tf.Variable(tf.random_normal([4, 2]))
    y = tf.cond(p, lambda: tf.nn.dropout(tf.matmul(x, w), 0.5), lambda: tf.matmul(x, w))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))
    r = tf.random_uniform([3])
    assert _seeds() == [5] and _seeds("RandomUniform")[-1] == 104
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train, {x: np.ones((2, 4)), p: False})
        np.testing.assert_allclose(s.run(w), [[0.13694574, 1.57476], [1.2188326, -0.2548533],
                                              [-0.6857646, -0.68772167],
                                              [-1.955053, -1.8462379]], rtol=1e-5)
        np.testing.assert_allclose(s.run(r), [0.8679434, 0.7578751, 0.4776212], rtol=1e-6)


def test_cond_of_gathers_gradient_op_count():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([5, 3]))
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.gather(a, [1, 2]), lambda: tf.gather(a, [0, 0]))
    g = tf.gradients(y, a)[0]
    r = tf.random_normal([2])
    assert _seeds() == [3, 92]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(r), [-0.16842164, 1.0528977], rtol=1e-6)
        np.testing.assert_array_equal(s.run(tf.convert_to_tensor(g), {p: False}),
                                      [[2, 2, 2]] + [[0, 0, 0]] * 4)


def test_nested_conds_minimized_under_gate_op():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    p = tf.placeholder(tf.bool, [])
    q = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.cond(q, lambda: a * a, lambda: tf.exp(a)) * 2.0,
                lambda: tf.cond(q, lambda: a, lambda: a * 3.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))
    r = tf.random_normal([2])
    assert _seeds() == [3, 134]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train, {p: True, q: False})
        np.testing.assert_allclose(s.run(r), [0.4744118, 0.46690416], rtol=1e-6)
        np.testing.assert_allclose(s.run(a), [-0.77311486, -0.02653557, 0.35337698], rtol=1e-5)


@pytest.mark.parametrize("build, seeds", [
    # one branch's constant: the other side of the capture's Switch gets zeros
    (lambda a, b, p: tf.gradients(tf.reduce_sum(tf.cond(p, lambda: a * a,
                                                        lambda: tf.ones([3]))), a), [3, 12, 49]),
    # two outputs, inputs captured by both branches
    (lambda a, b, p: tf.gradients(
        sum(tf.cond(p, lambda: (a * b, tf.sin(a)), lambda: (a, b * b))), [a, b]), [3, 12, 84]),
    # an int output beside a float one; a branch's output is the captured tensor itself; a
    # Prod's gradient (TF's ops: reduced_shape's, a ListDiff, cumprods)
    (lambda a, b, p: tf.gradients(tf.reduce_prod(tf.cast(tf.cond(
        p, lambda: (a * 2.0, tf.constant(1)), lambda: (a, tf.constant(2)))[1], tf.float32)
        * tf.cond(p, lambda: a, lambda: a * 3.0)), a), [3, 12, 131]),
    # tf.case: conds nested in the false branches
    (lambda a, b, p: tf.gradients(tf.reduce_sum(tf.case(
        [(p, lambda: a * 2.0), (tf.logical_not(p), lambda: a * b)], default=lambda: tf.exp(a))),
        [a, b]), [3, 12, 105]),
], ids=["one_branch_constant", "two_outputs", "int_output_and_identity", "case"])
def test_cond_gradient_op_counts_as_tf115(build, seeds):
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    b = tf.Variable(tf.random_normal([3]))
    p = tf.placeholder(tf.bool, [])
    build(a, b, p)
    tf.random_normal([2])
    assert _seeds() == seeds


def test_prod_gradient_ops_and_values_as_tf115():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    g = tf.gradients(tf.reduce_prod(a * 3.0), a)[0]
    tf.random_normal([2])
    assert _seeds() == [3, 77]
    names = [op.name for op in tf.get_default_graph().get_operations()
             if op.name.startswith("gradients/Prod_grad/")]
    assert names[:4] == ["gradients/Prod_grad/Shape", "gradients/Prod_grad/Reshape/shape",
                         "gradients/Prod_grad/Reshape", "gradients/Prod_grad/Size"]
    assert len(names) == 49 and names[-1] == "gradients/Prod_grad/Reshape_4"
    assert g.get_shape().as_list() == [3]
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 0.0, 2.0], [3.0, 4.0, 0.5]])
        px = tf.placeholder(tf.float32, None)
        gs = [tf.gradients(tf.reduce_prod(x, 1), x)[0],
              tf.gradients(tf.reduce_prod(x, [-1, 0], keepdims=True), x)[0],
              tf.gradients(tf.reduce_prod(px, -2), px)[0]]
        with tf.Session() as s:
            g1, g2, g3 = s.run(gs, {px: [[1.0, 2.0], [3.0, 4.0]]})
    np.testing.assert_allclose(g1, [[0, 2, 0], [2, 1.5, 12]])
    np.testing.assert_allclose(g2, [[0, 12, 0], [0, 0, 0]])
    np.testing.assert_allclose(g3, [[3, 4], [1, 2]])


@pytest.mark.parametrize("build, seed, n_ops, last, total", [
    (lambda a: tf.tile(a, [1, 2, 1]), 29, 15, "gradients/Tile_grad/Sum", 48.0),
    # batch dims of unequal shapes: summed over BroadcastGradientArgs' axes, as TF
    (lambda a: tf.matmul(a, tf.transpose(a, [0, 2, 1])), 38, 23, "gradients/AddN", 6.3336),
    (lambda a: tf.nn.softplus(a), 18, 5, "gradients/Softplus_grad/mul", 12.3734),
    (lambda a: tf.unsorted_segment_sum(a, [0, 0], 3), 34, 19,
     "gradients/UnsortedSegmentSum_grad/Select", 24.0),
    (lambda a: tf.segment_mean(a, [0, 1]), 33, 19, "gradients/SegmentMean_grad/GatherV2", 24.0),
], ids=["tile", "batch_matmul", "softplus", "unsorted_segment_sum", "segment_mean"])
def test_gradient_ops_as_tf115(build, seed, n_ops, last, total):
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([2, 3, 4]))
    g = tf.gradients(build(a), a)[0]
    tf.random_normal([2])
    names = [op.name for op in tf.get_default_graph().get_operations()
             if op.name.startswith("gradients/")]
    assert _seeds() == [3, seed]
    assert (len(names), names[-1]) == (n_ops, last)
    assert g.get_shape().as_list() == [2, 3, 4]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(g).sum(), total, rtol=1e-4)


def test_add_gradient_of_a_gather_densifies_in_each_sum_as_tf115():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 6])
    w = tf.Variable(tf.random_normal([6, 4]))
    b = tf.Variable(tf.zeros([4]))
    h = tf.matmul(x, w) + b
    _, gb = tf.gradients(tf.gather(h, [0, 0]), [w, b])
    tf.random_normal([2])
    graph = tf.get_default_graph()
    assert _seeds() == [4, 57]
    assert graph.get_operation_by_name("gradients/add_grad/Shape_1").type == "Const"
    assert graph.get_operation_by_name("gradients/add_grad/Sum/input").type == \
        "UnsortedSegmentSum"
    assert graph.get_operation_by_name("gradients/add_grad/Sum_1/input").type == \
        "UnsortedSegmentSum"
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(gb, {x: np.ones((3, 6))}), [2, 2, 2, 2])


@pytest.mark.parametrize("method, known, expected", [
    (tf.AggregationMethod.EXPERIMENTAL_TREE, False, ["AddN"] * 3),
    (tf.AggregationMethod.EXPERIMENTAL_TREE, True, ["AddN"] * 3),
    (tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N, False, ["AddN"] * 3),
    (tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N, True, ["AccumulateNV2"]),
])
def test_aggregation_methods_build_tf115_ops(method, known, expected):
    x = tf.placeholder(tf.float32, [2, 3] if known else [None, 3])
    h = tf.nn.relu(x)
    g = tf.gradients(h + h * h + tf.sin(h), x, aggregation_method=method)[0]
    sums = [op for op in tf.get_default_graph().get_operations()
            if op.type in ("AddN", "AccumulateNV2")]
    assert [op.type for op in sums] == expected
    if expected[0] == "AddN":  # pairwise, under the op's "_gradient_sum" scope
        assert [op.name for op in sums] == ["gradients/Relu_gradient_sum/AddN",
                                            "gradients/Relu_gradient_sum/AddN_1",
                                            "gradients/Relu_gradient_sum/AddN_2"]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(g, {x: np.ones((2, 3))})[0, 0], 3.5403023, rtol=1e-6)


def test_given_grad_ys_are_converted_then_seeded_by_identities_as_tf115():
    a = tf.constant([1.0, 2.0])
    g = tf.gradients(a * 2.0, a, grad_ys=np.array([3.0, 4.0], np.float32))[0]
    g2 = tf.gradients(a, a, grad_ys=tf.constant([5.0, 6.0]), name="gg")[0]
    assert g.name == "gradients/mul_grad/Mul:0" and g2.name == "gg/grad_ys_0:0"
    assert [op.name for op in tf.get_default_graph().get_operations() if "grad_y" in op.name] \
        == ["gradients/grad_y_0", "gradients/grad_ys_0", "gg/grad_ys_0"]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run([g, g2]), [[6.0, 8.0], [5.0, 6.0]])


def test_broadcast_to_and_atan2_gradients_as_tf115():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3, 1]))
    w = tf.constant(np.arange(24.0).reshape(2, 3, 4), tf.float32)
    g = tf.gradients(tf.broadcast_to(a, [2, 3, 4]) * w, a)[0]
    y = tf.constant([0.0, 1.0, -1.0])
    x = tf.constant([0.0, 2.0, 0.5])
    gy, gx = tf.gradients(tf.atan2(y, x), [y, x])
    tf.random_normal([2])
    assert _seeds() == [3, 38]
    assert [op.name for op in tf.get_default_graph().get_operations()
            if "BroadcastTo_grad" in op.name] == [
        "gradients/BroadcastTo_grad/Shape", "gradients/BroadcastTo_grad/BroadcastGradientArgs",
        "gradients/BroadcastTo_grad/Sum", "gradients/BroadcastTo_grad/Reshape"]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(g).ravel(), [60, 92, 124])
        # TF 1.15 divides by x^2 + y^2: NaN where both are 0
        np.testing.assert_allclose(s.run(gy), [np.nan, 0.4, 0.4], rtol=1e-6)
        np.testing.assert_allclose(s.run(gx), [np.nan, -0.2, 0.8], rtol=1e-6)


def test_gather_gradient_off_axis_0_is_dense_from_tf115_ops():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([2, 3, 4]))
    g = tf.gradients(tf.gather(a, [0, 2], axis=1), a)[0]
    # a negative axis equal to 0 takes the general path too, as TF's (a dense Tensor)
    g2 = tf.gradients(tf.gather(a, [1, 1], axis=-3), a)[0]
    tf.random_normal([2])
    assert _seeds() == [3, 134]
    assert isinstance(g2, tf.Tensor) and g.op.name == "gradients/GatherV2_grad/transpose_1"
    assert g.get_shape().as_list() == g2.get_shape().as_list() == [2, 3, 4]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(g).sum(axis=(0, 2)), [8, 0, 8])
        np.testing.assert_array_equal(s.run(g2).sum(axis=(1, 2)), [0, 24])


def test_top_k_gradient_from_tf115_ops():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([2, 3, 4]))
    v, _ = tf.nn.top_k(a, 2)
    g = tf.gradients(v * v, a)[0]
    tf.random_normal([2])
    assert _seeds() == [3, 64]
    assert g.op.name == "gradients/TopKV2_grad/Reshape_3"
    assert g.get_shape().as_list() == [2, 3, 4]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(g).sum(axis=2),
                                   [[2.0417, 3.2694, 3.1543], [2.949, 0.5922, 3.3508]],
                                   rtol=1e-4)


# ------------------------------------------------------------------------------------------
# a plain tf.while_loop's gradient (no conds, loops or TensorArrays inside) counts the ops of
# TF 1.15's frame-based gradient (counters, stacks, accumulators); TF 1.15's numbers below
# ------------------------------------------------------------------------------------------


def test_plain_while_loop_gradients_leave_tf115_seeds():
    tf.set_random_seed(1)
    w = tf.Variable(tf.random_normal([2]))
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.tanh(v * w)),
                         [0, tf.ones([2])])
    train = tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(y))  # gated (GATE_OP)
    r = tf.random_normal([2])
    a = tf.Variable(tf.random_normal([3]))
    b = tf.Variable(tf.random_normal([3]))
    _, u, v = tf.while_loop(lambda i, u, v: i < 3, lambda i, u, v: (i + 1, u * a + v, v * b),
                            [0, tf.ones([3]), tf.ones([3])])
    ga, gb = tf.gradients(tf.reduce_sum(u) + tf.reduce_sum(v), [a, b])
    r2 = tf.random_normal([2])
    assert _seeds() == [3, 122, 128, 137, 255]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        np.testing.assert_allclose(s.run(w), [-0.77086, 0.12357], atol=1e-5)
        np.testing.assert_allclose(s.run(r), [0.53045, 0.60726], atol=1e-5)
        np.testing.assert_allclose(s.run(r2), [-0.29406, 0.53372], atol=1e-5)
        np.testing.assert_allclose(s.run(ga), [5.713, 0.9767, 0.3914], atol=1e-3)
        np.testing.assert_allclose(s.run(gb), [2.4156, 6.5367, 1.2735], atol=1e-3)


def test_while_loop_gradients_twice_and_of_unknown_shapes_leave_tf115_seeds():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * 2.0 + a),
                         (0, tf.ones([3])))
    # a second gradient of the same loop: new counters and stacks in TF
    g = tf.gradients(tf.reduce_sum(y), a)[0]
    g2 = tf.gradients(tf.reduce_sum(y * y), a)[0]
    # shapes known only when run: TF stacks the Shapes it moves into the forward loop
    x = tf.placeholder(tf.float32, [None, 3])
    _, z = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v + a), (0, x))
    g3 = tf.gradients(tf.reduce_sum(z), a)[0]
    r = tf.random_normal([2])
    assert _seeds() == [3, 245]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        out = s.run([g, g2, g3, r], {x: np.ones((2, 3))})
    np.testing.assert_allclose(out[0], [3.1388, 0.6486, 1.5082], atol=1e-3)
    np.testing.assert_allclose(out[1], [6.5199, 2.5137, 7.824], atol=1e-3)
    np.testing.assert_allclose(out[2], [6, 6, 6])
    np.testing.assert_allclose(out[3], [0.0856, -0.4328], atol=1e-4)


def test_data_dependent_loop_with_constants_minimized_leaves_tf115_seed():
    tf.set_random_seed(1)
    p = tf.placeholder(tf.float32, [None])
    a = tf.Variable(1.5)
    _, y = tf.while_loop(lambda i, v: tf.reduce_sum(v) < 50.0,
                         lambda i, v: (i + 1, v * a + 1.0), [0, p])
    train = tf.train.AdamOptimizer().minimize(tf.reduce_sum(y))
    r = tf.random_normal([2])
    # (the Shape of the body's constant 1.0 is stacked by TF, the constant not copied)
    assert _seeds() == [154]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train, {p: [1.0, 2.0]})
        np.testing.assert_allclose(s.run(a), 1.499, atol=1e-5)
        np.testing.assert_allclose(s.run(r), [-0.95026, 0.43706], atol=1e-5)


def test_loop_variable_that_reaches_no_gradient_gets_none_as_tf115():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([3]))
    b = tf.Variable(tf.random_normal([3]))
    v0 = tf.ones([3])
    _, u, _ = tf.while_loop(lambda i, u, v: i < 3, lambda i, u, v: (i + 1, u * a, v + b),
                            [0, tf.ones([3]), v0])
    ga, gb, gv = tf.gradients(tf.reduce_sum(u), [a, b, v0])
    r = tf.random_normal([2])
    assert (gb, gv) == (None, None)
    assert _seeds() == [3, 12, 102]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(ga), [1.3502, 0.15, 1.9069], atol=1e-4)
        np.testing.assert_allclose(s.run(r), [0.08955, 1.06382], atol=1e-5)


def test_xlogy_xdivy_floormod_gradients_from_tf115_ops():
    tf.set_random_seed(1)
    a = tf.Variable(tf.random_normal([2, 3]))
    b = tf.constant([[0.5], [2.0]])
    y = tf.math.xlogy(tf.abs(a), b) + tf.math.xdivy(a, b + 1.0) + tf.floormod(a, b)
    g = tf.gradients(y, a)[0]
    tf.random_normal([2])
    assert _seeds() == [3, 68]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(g), [[2.3598, 0.9735, 0.9735], [2.0265, 2.0265, 2.0265]],
                                   atol=1e-4)
