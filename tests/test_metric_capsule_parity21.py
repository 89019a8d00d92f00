"""Metric-learning, siamese, few-shot and capsule programs checked against TF 1.15: the
contrib metric-learning losses' graphs, values and errors, and the sparse ops under them."""

import numpy as np
import pytest

import tideflow as tf

ML = tf.contrib.losses.metric_learning
_EMB = np.random.RandomState(4).randn(6, 3).astype(np.float32)
_LAB = np.array([0, 1, 0, 1, 2, 2], np.int32)


@pytest.mark.parametrize("build,name,num_ops,loss,noise", [
    # TF 1.15: each loss builds its graph op for op as below (math_ops.add's 'Add', tile
    # multiples packed from a list, ones([n]) through its 'ones/Less' probe), so a
    # graph-seeded random op made after it draws TF's numbers
    (lambda e, l: ML.triplet_semihard_loss(l, e, margin=0.7), "triplet_semihard_loss:0", 124,
     1.1453937, [0.19797, 0.70933]),
    (lambda e, l: ML.lifted_struct_loss(l, e, margin=0.7), "liftedstruct_loss:0", 122,
     6.704388, [0.17684, 0.94716]),
    (lambda e, l: ML.npairs_loss(l[:3], e[:3], e[3:]), "add_1:0", 85, 1.1691905,
     [0.62334, 0.98264]),
    (lambda e, l: ML.contrastive_loss(l[:3], e[:3], e[3:]), "contrastive_loss:0", 40,
     0.272806, [0.26413, 0.17417]),
])
def test_metric_losses_build_tf_graphs(build, name, num_ops, loss, noise):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(11)
        e = tf.placeholder(tf.float32, [None, 3])
        lab = tf.placeholder(tf.int32, [None])
        out = build(e, lab)
        after = tf.random_uniform([2])
        assert out.name == name
        assert len(g.get_operations()) == num_ops
        with tf.Session() as sess:
            got, drawn = sess.run([out, after], {e: _EMB, lab: _LAB})
    np.testing.assert_allclose(got, loss, rtol=1e-5)
    np.testing.assert_allclose(drawn, noise, atol=1e-5)


def test_metric_loss_op_names():
    # TF 1.15's first ops of triplet_semihard_loss and its pairwise distances
    with tf.Graph().as_default() as g:
        ML.triplet_semihard_loss(tf.placeholder(tf.int32, [None], name="lab"),
                                 tf.placeholder(tf.float32, [None, 6], name="emb"))
        names = [op.name for op in g.get_operations()]
    assert names[2:10] == ["Shape", "strided_slice/stack", "strided_slice/stack_1",
                           "strided_slice/stack_2", "strided_slice", "Reshape/shape/1",
                           "Reshape/shape", "Reshape"]
    for n in ("Add", "Mul_1", "ones/Less", "ones/packed", "Tile/multiples", "Select",
              "Tile_2/multiples"):
        assert n in names


def test_metric_losses_assert_rank_one_labels():
    # TF 1.15 asserts the labels' shape tensor is [1]: rank 2, or unknown rank, labels are
    # a bare AssertionError
    emb = tf.constant(_EMB[:4])
    for f in (ML.triplet_semihard_loss, ML.lifted_struct_loss):
        with pytest.raises(AssertionError):
            f(tf.constant([[0], [1], [0], [1]]), emb)
    with pytest.raises(AssertionError):
        ML.triplet_semihard_loss(tf.placeholder(tf.int32), emb)
    with pytest.raises(AssertionError):
        ML.npairs_loss(tf.constant([[0], [1]]), emb[:2], emb[2:])


def test_contrastive_loss_graph_and_broadcast():
    # TF 1.15: squared_difference broadcasts a [2, 3] anchor against a [1, 3] positive
    with tf.Graph().as_default(), tf.Session() as sess:
        loss = ML.contrastive_loss(tf.constant([1, 0]), tf.constant(_EMB[:2]),
                                   tf.constant(_EMB[2:3]))
        d = np.sqrt(((_EMB[:2] - _EMB[2:3]) ** 2).sum(1))
        want = np.mean([d[0] ** 2, max(1 - d[1], 0) ** 2])
        np.testing.assert_allclose(sess.run(loss), want, rtol=1e-5)
    # TF 1.15's op sequence: squared_difference, and the labels cast once per use
    with tf.Graph().as_default() as g:
        ML.contrastive_loss(tf.placeholder(tf.int32, [None]),
                            tf.placeholder(tf.float32, [None, 3]),
                            tf.placeholder(tf.float32, [None, 3]))
        types = [op.type for op in g.get_operations()][3:]
    assert types == ["SquaredDifference", "Const", "Sum", "Sqrt", "Cast", "Square", "Mul",
                     "Cast", "Const", "Sub", "Const", "Sub", "Const", "Maximum", "Square",
                     "Mul", "AddV2", "Const", "Mean"]


def test_npairs_loss_multilabel_is_tf_graph_and_checks():
    with tf.Graph().as_default() as g, tf.Session() as sess:
        emb = tf.constant(_EMB[:2]), tf.constant(_EMB[2:4])
        labels = [tf.SparseTensor([[0, 0]], [1], [1, 2]),
                  tf.SparseTensor([[0, 0], [0, 1]], [1, 1], [1, 2])]
        loss = ML.npairs_loss_multilabel(labels, *emb)
        # TF 1.15: one sparse_minimum term per pair of rows, so the sum ends in 'add_5'
        assert loss.name == "NpairsLossMultiLabel/add_5:0"
        assert sum(op.type == "SparseSparseMinimum" for op in g.get_operations()) == 4
        np.testing.assert_allclose(sess.run(loss), 0.6851069, rtol=1e-5)  # TF 1.15
        # bool label values: sparse_minimum's type check, TF 1.15's words
        with pytest.raises(TypeError, match="Value passed to parameter 'a_values' has "
                                            "DataType bool not in list of allowed values: "
                                            "float32, float64, int32, uint8, int16, int8, "
                                            "complex64, int64, qint8"):
            ML.npairs_loss_multilabel([tf.SparseTensor([[0, 0]], [True], [1, 2])] * 2, *emb)
        # rows of different widths build, and fail when run
        mixed = ML.npairs_loss_multilabel([tf.SparseTensor([[0, 0]], [1], [1, 2]),
                                           tf.SparseTensor([[0, 2]], [1], [1, 3])], *emb)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Operands' shapes do not match: got [23] and [23] for "
                                 r"dimension 1"):
            sess.run(mixed)


def test_sparse_minimum_maximum_checks():
    a = tf.SparseTensor([[0, 0]], [1.0], [1, 2])
    b = tf.SparseTensor([[0, 1]], [2.0], [1, 3])
    c = tf.SparseTensor([[0]], [2.0], [3])
    with tf.Session() as sess:
        # TF 1.15's words: ranks first, then dimension by dimension
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Operands' shapes do not match: got 3 and 2 for dimension 1"):
            sess.run(tf.sparse_maximum(b, a).values)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Operands do not have the same ranks; got shapes: 1 2 and 3"):
            sess.run(tf.sparse_minimum(a, c).values)
    # SparseSparseMinimum's op def takes complex values (no kernel runs them);
    # SparseSparseMaximum's does not
    z = tf.SparseTensor([[0, 0]], [1 + 2j], [1, 2])
    m = tf.sparse_minimum(z, z)
    assert m.values.dtype == tf.complex128
    with pytest.raises(TypeError, match="DataType complex128 not in list"):
        tf.sparse_maximum(z, z)
    with tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError,
            match="No OpKernel was registered to support Op 'SparseSparseMinimum'"):
        sess.run(m.values)


# ---- Keras backend pieces siamese programs use ----------------------------------------------


def test_keras_switch_on_a_tensor_condition_is_elementwise():
    # TF 1.15's K.switch: a condition of rank >= 1 selects elementwise (rank 1 a Select on
    # the first dimension, higher ranks tiled up to the expressions' shape); a scalar conds
    K = tf.keras.backend
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.0
    with tf.Graph().as_default() as g, tf.Session() as sess:
        a = tf.placeholder(tf.float32, [None, 3, 4])
        b = tf.placeholder(tf.float32, [None, 3, 4])
        mask = tf.placeholder(tf.bool, [None, 3])
        rows = tf.placeholder(tf.float32, [None])
        by_mask = K.switch(mask, a, b)
        assert by_mask.name == "Select_1:0" and g._last_id == 19  # TF 1.15
        by_row = K.switch(rows, a, b)
        by_sign = K.switch(a > 0, lambda: a, lambda: b * 2)
        assert K.switch(tf.placeholder(tf.bool, []), a, b).name == "cond/Merge:0"
        with pytest.raises(ValueError, match=r"Rank of `condition` should be less than or "
                                             r"equal to rank of `then_expression` and "
                                             r"`else_expression`. ndim\(condition\)=4, "
                                             r"ndim\(then_expression\)=3"):
            K.switch(tf.ones([2, 3, 4, 1]), a, b)
        m = np.array([[True, False, True], [False, False, True]])
        got = sess.run([by_mask, by_row, by_sign],
                       {a: x, b: -x, mask: m, rows: [1.0, 0.0]})
    np.testing.assert_array_equal(got[0], np.where(m[:, :, None], x, -x))
    np.testing.assert_array_equal(got[1], np.concatenate([x[:1], -x[1:]]))
    np.testing.assert_array_equal(got[2], np.where(x > 0, x, -2 * x))


def test_keras_sqrt_std_var_are_tf_graphs():
    # TF 1.15: K.sqrt clips to [0, inf] (two Consts, a Minimum and a Maximum) before Sqrt;
    # K.std and K.var are reduce_std/reduce_variance under their name scopes
    K = tf.keras.backend
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4])
        out = K.sqrt(x)
        assert [op.type for op in g.get_operations()][1:] == [
            "Const", "Const", "Minimum", "Maximum", "Sqrt"]
        assert out.name == "Sqrt:0"
        assert K.std(x, axis=0).name == "reduce_std/Sqrt:0"
        assert K.var(x, axis=1).name == "reduce_variance/Mean_1:0"
        assert K.var(x > 0).name == "reduce_variance_1/Mean_1:0"


# ---- retrieval metrics ------------------------------------------------------------------------


def test_at_k_metrics_leave_k_to_top_k():
    # TF 1.15 does not check k in recall_at_k/precision_at_k: k=0 counts nothing (recall 0,
    # precision 0/0), a float k fails in TopKV2; %d names the metric
    scores = np.random.RandomState(5).rand(3, 5).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        labels = tf.constant([0, 1, 2], tf.int64)
        rec, rec_op = tf.metrics.recall_at_k(labels, scores, k=0)
        prec, prec_op = tf.metrics.precision_at_k(labels, scores, k=0)
        assert rec.name == "recall_at_0:0"
        sess.run(tf.local_variables_initializer())
        sess.run([rec_op, prec_op])
        assert sess.run(rec) == 0.0
        assert np.isnan(sess.run(prec))
        with pytest.raises(TypeError, match="Expected int32 passed to parameter 'k' of op "
                                            "'TopKV2', got 2.5 of type 'float' instead"):
            tf.metrics.recall_at_k(labels, scores, k=2.5)
        with pytest.raises(TypeError, match="Expected int32 passed to parameter 'k' of op "
                                            "'TopKV2', got 2.5 of type 'float' instead"):
            tf.metrics.average_precision_at_k(labels, scores, k=2.5)
        with pytest.raises(ValueError, match="must be non-negative but is -1 for "
                                              "'recall_at_-1/TopKV2'"):
            tf.metrics.recall_at_k(labels, scores, k=-1)
        top = tf.nn.top_k(scores, 2)[1]
        value, _ = tf.metrics.precision_at_top_k(labels, top, k=2.7)
        assert value.name == "precision_at_2:0"


def test_dense_set_ops_take_empty_sets():
    # TF 1.15: dense sets of width 0 are empty sets
    empty = np.zeros([3, 0], np.int32)
    ones = np.array([[1], [2], [3]], np.int32)
    with tf.Graph().as_default(), tf.Session() as sess:
        inter = sess.run(tf.sets.set_intersection(empty, ones))
        union = sess.run(tf.sets.set_union(empty, ones))
    assert inter.indices.shape == (0, 2) and inter.dense_shape.tolist() == [3, 0]
    assert union.values.tolist() == [1, 2, 3] and union.dense_shape.tolist() == [3, 1]


# ---- while loops run only the values a step needs ----------------------------------------------


def test_while_loop_runs_only_needed_values():
    # TF 1.15 prunes a loop's frames like any other ops: a loop value nothing fetched needs
    # never runs, so an assign_add feeding only it leaves the variable alone, and a seeded
    # random op feeding only it does not advance its stream
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(0.0)

        def body(i, acc, side, ta):
            side = side + tf.identity(tf.assign_add(v, 1.0))
            return i + 1, acc + 1.0, side, ta.write(i, tf.random_uniform([2], seed=5))

        _, acc, side, ta = tf.while_loop(
            lambda i, *_: i < 3, body,
            [0, tf.constant(0.0), tf.constant(0.0), tf.TensorArray(tf.float32, 3)],
            parallel_iterations=1)
        sess.run(v.initializer)
        assert sess.run(acc) == 3.0 and sess.run(acc) == 3.0
        assert sess.run(v) == 0.0  # TF 1.15
        assert sess.run(side) == 6.0 and sess.run(v) == 3.0
        np.testing.assert_allclose(sess.run(ta.stack()),  # TF 1.15's first draws
                                   [[0.38831, 0.66368], [0.42907, 0.95828],
                                    [0.70747, 0.49705]], atol=1e-5)


def test_matrix_band_part_checks_ranks_when_run():
    # TF 1.15's MatrixBandPart shape function passes the input's shape on unchecked; the
    # kernel checks the ranks, in these words
    with tf.Graph().as_default(), tf.Session() as sess:
        vec = tf.matrix_band_part(tf.ones([3]), 0, -1)
        assert vec.get_shape().as_list() == [3]
        lower = tf.matrix_band_part(tf.ones([2, 3]), [0], -1)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"input must be at least 2-dim, received shape: \[3\]"):
            sess.run(vec)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"num_lower must be scalar, got shape \[1\]"):
            sess.run(lower)


def test_softmax_over_an_axis_needs_a_known_rank():
    # TF 1.15 compares a softmax axis other than -1 with the static rank less one: logits
    # of unknown rank are a TypeError there, a fed axis included
    with tf.Graph().as_default():
        logits = tf.placeholder(tf.float32)
        for axis in (2, 0, tf.constant(1), tf.constant(-1)):
            with pytest.raises(TypeError,
                               match="unsupported operand type\\(s\\) for -: 'NoneType' and"):
                tf.nn.softmax(logits, axis=axis)
        with pytest.raises(TypeError, match="'NoneType' and 'int'"):
            tf.nn.log_softmax(logits, axis=0)
        assert tf.nn.softmax(logits, axis=np.int64(-1)).name == "Softmax:0"
        assert tf.nn.softmax(logits).name == "Softmax_1:0"


def test_softmax_xent_gradient_builds_tf_ops_for_unmatched_static_shapes():
    # TF 1.15's SoftmaxCrossEntropyWithLogits gradient reduces no broadcast: logits [?, ?]
    # against labels [3, 3] take 22 gradient op ids, and npairs_loss_multilabel's
    # minimize() leaves a graph-seeded op after it TF's seed
    with tf.Graph().as_default() as g:
        p = tf.placeholder(tf.float32, [None, None])
        q = tf.placeholder(tf.float32, [3, 3])
        loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits_v2(logits=p, labels=q))
        before = g._last_id
        tf.gradients(loss, [p, q])
        assert g._last_id - before == 22
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 6])
        emb = tf.layers.dense(x, 4, name="emb")
        labels = [tf.SparseTensor([[0, 0]], [1], [1, 3]), tf.SparseTensor([[0, 1]], [1], [1, 3]),
                  tf.SparseTensor([[0, 0], [0, 2]], [1, 1], [1, 3])]
        loss = ML.npairs_loss_multilabel(labels, emb[:3], emb[3:6])
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        after = tf.random_normal([3])
        assert g._last_id == 330  # TF 1.15
        np.testing.assert_allclose(sess.run(after), [0.76391, -0.63375, -0.19375], atol=1e-5)


@pytest.mark.parametrize("known,ids,drawn", [
    (True, 83, [0.11023, 0.49413]),  # TF 1.15
    (False, 119, [0.51726, 0.10073]),
])
def test_loop_value_not_reading_its_last_counts_tf_gradient_ids(known, ids, drawn):
    # TF 1.15: a loop value whose next value does not read its last (a capsule routing's
    # output) gets no back edge in the gradient loop until gradients() ends, which then makes
    # zeros and the NextIteration (2 ops, or 5 for a shape not fully known)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        tf.set_random_seed(2)
        x = tf.placeholder(tf.float32, [5, 4] if known else [None, 4])
        w = tf.Variable(tf.ones([1, 4]))
        pred = x * w
        _, _, out = tf.while_loop(lambda i, r, v: i < 2,
                                  lambda i, r, v: (i + 1, r * pred, r * 2.0),
                                  [0, tf.ones_like(x), tf.ones_like(x)])
        before = g._last_id
        tf.gradients(tf.reduce_sum(out), w)
        after = tf.random_uniform([2])
        assert g._last_id - before == ids
        np.testing.assert_allclose(sess.run(after), drawn, atol=1e-5)


def test_keras_batch_dot_pads_the_lower_rank_input():
    # TF 1.15's K.batch_dot (CapsNet's u_hat: x [3, 6, 4] with W [3, 6, 5, 4], axes [2, 3])
    # reshapes the input of lower rank with trailing 1s, takes one MatMul and squeezes
    K = tf.keras.backend
    rng = np.random.RandomState(0)
    x = rng.randn(3, 6, 4).astype(np.float32)
    w = rng.randn(3, 6, 5, 4).astype(np.float32)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        out = K.batch_dot(tf.constant(x), tf.constant(w), [2, 3])
        assert out.name == "Squeeze:0" and out.get_shape().as_list() == [3, 6, 5]
        assert g._last_id == 9  # TF 1.15
        np.testing.assert_allclose(sess.run(out), np.einsum("bik,bijk->bij", x, w), rtol=1e-5)
        x2 = rng.randn(2, 3).astype(np.float32)
        y3 = rng.randn(2, 3, 4).astype(np.float32)
        out2 = K.batch_dot(tf.constant(x2), tf.constant(y3), (1, 1))
        assert out2.get_shape().as_list() == [2, 4]
        np.testing.assert_allclose(sess.run(out2), np.einsum("bi,bij->bj", x2, y3), rtol=1e-5)
