"""TF 1.x parity fixes made by the lead in session 27 (expected values measured in TF 1.15)."""

import numpy as np
import pytest

import tideflow as tf


def _four_products_summed(config, fetch_input):
    # an AddN of four 256x256 float32 products (1 MiB held: one the plan may sum as the products
    # are computed, runtime/accumulate.py); their values make the order of the additions show:
    # TF 1.15 adds by input name (a, b, c, d): 1 + 1 + 1e8 - 1e8 = 0; the graph's order (d, c, b,
    # a) would give -1e8 + 1e8 + 1 + 1 = 2
    n = 256
    g = tf.Graph()
    with g.as_default():
        eye = tf.constant(np.eye(n, dtype=np.float32))
        xs = {k: tf.placeholder(tf.float32, [n, n], name="x_" + k) for k in "dcba"}
        prods = {k: tf.matmul(xs[k], eye, name=k) for k in "dcba"}
        total = tf.add_n([prods[k] for k in "dcba"], name="total")
        values = {"a": 1.0, "b": 1.0, "c": 1e8, "d": -1e8}
        feed = {xs[k]: np.full((n, n), v, np.float32) for k, v in values.items()}
        with tf.Session(config=config) as sess:
            fetches = [total, prods["b"]] if fetch_input else [total]
            return sess.run(fetches, feed)[0]


@pytest.mark.parametrize("fetch_input", [False, True])
def test_an_add_n_run_in_parallel_lanes_sums_in_tfs_order(fetch_input):
    # (the four products run on parallel lanes: the plan cannot sum them as they go; it used to
    # sum them in the graph's order: 2.0)
    assert np.all(_four_products_summed(None, fetch_input) == 0.0)  # TF 1.15: 0.0


def test_an_add_n_whose_input_is_fetched_sums_in_tfs_order():
    # one lane, but a product is fetched too: not summed as it goes, so in TF's order
    config = tf.ConfigProto(inter_op_parallelism_threads=1)
    assert np.all(_four_products_summed(config, True) == 0.0)  # TF 1.15: 0.0


@pytest.mark.parametrize("depth", [1, 8])
def test_shape_time_evaluation_past_the_fold_depth_limit_follows_tfs_constant_rule(
        monkeypatch, depth):
    # a chain of unknown-size ops is folded only a few deep (array_ops._UNKNOWN_SIZE_FOLD_DEPTH)
    # unless constants alone lie up the chain, as TF's ExtractConstantSubgraph requires (no
    # depth limit there); with the limit at 0 every unknown-size fold asks that question.
    # TF 1.15 (measured): the size of 8 values made unique `depth` times is known: (6,); from a
    # placeholder it is not
    from tideflow.ops import array_ops

    monkeypatch.setattr(array_ops, "_UNKNOWN_SIZE_FOLD_DEPTH", 0)
    shapes = []
    with tf.Graph().as_default():
        for x in (tf.constant([3., -1., 2., 5., -4., 7., 3., 3.]),
                  tf.placeholder(tf.float32, [8])):
            for _ in range(depth):
                x = tf.unique(x)[0] + 1.0
            shapes.append(tf.zeros(tf.stack([tf.size(x)])).shape.as_list())
    assert shapes == [[6], [None]]


def test_a_rewritten_mul_runs_the_rewrites_kernel_not_the_cpu_mul_kernel():
    # grappler's constant push-down computes (x * 0.3) * 7 as x * (0.3 * 7) on the inner Mul's
    # op (a Pow by 3 elsewhere in the step sends the push-down through its general rewrite); the
    # CPU kernel registered for Mul (complex rounding) used to replace that rewrite's kernel, so
    # the step returned x * 0.3. TF 1.15 (measured): x * float32(0.3 * 7) bits
    x = tf.placeholder(tf.float32, [4])
    a = tf.multiply(tf.multiply(x, 0.3), 7.0)
    c = tf.pow(x, 3.0) * 0.5
    xv = np.array([1, 2, 3, 4], np.float32)
    with tf.Session() as sess:
        got_a, got_c = sess.run([a, c], {x: xv})
    assert got_a.tolist() == (xv * (np.float32(0.3) * np.float32(7))).tolist()
    assert got_c.tolist() == [0.5, 4.0, 13.5, 32.0]


def test_estimator_experimental_lists_tfs_names_only():
    # TF 1.15 (measured): dir() holds its API, not the modules the implementation imports
    assert [n for n in dir(tf.estimator.experimental) if not n.startswith("_")] == [
        "InMemoryEvaluatorHook", "KMeans", "LinearSDCA", "build_raw_supervised_input_receiver_fn",
        "call_logit_fn", "dnn_logit_fn_builder", "linear_logit_fn_builder",
        "make_early_stopping_hook", "make_stop_at_checkpoint_step_hook", "stop_if_higher_hook",
        "stop_if_lower_hook", "stop_if_no_decrease_hook", "stop_if_no_increase_hook"]


def test_a_product_with_a_constant_of_zeros_is_zeros_where_grappler_knows_its_shape():
    # TF 1.15's constant folding (measured): v * 0 of a variable holding inf and NaN is all
    # zeros, as is a sum of v * zeros_like(v); a fed operand's product is computed (its shape
    # is not known to grappler), so inf * 0 is NaN there
    x = tf.placeholder(tf.float32, [3])
    v = tf.Variable([1.0, np.inf, np.nan])
    outs = [v * 0.0, v * tf.zeros([3]), tf.reduce_sum(v * tf.zeros_like(v)), x * tf.zeros([3])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(outs, {x: [1.0, np.inf, np.nan]})
    assert got[0].tolist() == [0.0, 0.0, 0.0] and got[1].tolist() == [0.0, 0.0, 0.0]
    assert got[2] == 0.0
    assert got[3][0] == 0.0 and np.isnan(got[3][1:]).all()


def test_the_gradient_of_a_scalar_gather_nd_fails_as_tfs_scatter_nd_shape_function():
    # TF 1.15 (measured): "Shape must be at least rank 1 but is rank 0 for
    # 'gradients/GatherNd_grad/ScatterNd' (op: 'ScatterNd') with input shapes: [2], [], [2]."
    p = tf.constant(np.arange(6.0).reshape(2, 3))
    y = tf.gather_nd(p, [1, 2])
    with pytest.raises(ValueError, match=r"Shape must be at least rank 1 but is rank 0 for "
                                         r"'gradients/GatherNd_grad/ScatterNd'"):
        tf.gradients(y, p)
    with pytest.raises(ValueError, match="at least rank 1 but is rank 0"):
        tf.scatter_nd([1, 2], tf.constant(3.0), [2, 3])


def test_a_product_with_zeros_follows_grapplers_shape_knowledge_of_an_add_n():
    # an AddN takes the shape of any input whose shape grappler knows (a constant's), so its
    # product with zeros folds even over a fed input; an Add of the fed input does not.
    # TF 1.15 (measured): [0.0, 0.0] and [nan, nan]
    x = tf.placeholder(tf.float32, [2])
    c = tf.constant([1.0, 2.0])
    outs = [tf.add_n([x, c]) * tf.zeros([2]), (x + c) * tf.zeros([2])]
    with tf.Session() as sess:
        a, b = sess.run(outs, {x: [np.inf, np.nan]})
    assert a.tolist() == [0.0, 0.0] and np.isnan(b).all()
