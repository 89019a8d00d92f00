"""tf.nn beyond convolution (embeddings, RNN drivers and cells, cross-entropy, top-k,
normalization), tf.losses and tf.gradients, checked against what TF 1.15's own tests expect:
values, static shapes, gradients and the errors a program sees, each expected result computed
here with NumPy or by hand."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture
def sess():
    with tf.Graph().as_default(), tf.Session() as s:
        yield s


# -- embeddings ----------------------------------------------------------------------------
def test_embedding_max_norm_clips_scalar_embeddings(sess):
    # params of rank 1: every embedding is a scalar whose norm is its magnitude
    params = np.array([3.0, -0.5, -4.0, 1.5])
    ids = np.array([[0, 1], [2, 3]])
    got = tf.nn.embedding_lookup(params, ids, max_norm=2.0)
    shards = tf.nn.embedding_lookup([params[0::2], params[1::2]], ids, max_norm=2.0)
    want = np.clip(params, -2.0, 2.0)[ids]
    assert got.get_shape().as_list() == [2, 2]
    np.testing.assert_allclose(sess.run(got), want)
    np.testing.assert_allclose(sess.run(shards), want)


def test_dynamic_stitch_is_in_data_flow_ops(sess):
    from tideflow.python.ops import data_flow_ops

    merged = data_flow_ops.dynamic_stitch([[0, 2], [1]], [[7, 9], [8]])
    parts = data_flow_ops.dynamic_partition([5, 6, 7], [1, 0, 1], 2)
    assert sess.run(merged).tolist() == [7, 8, 9]
    assert [p.tolist() for p in sess.run(parts)] == [[6], [5, 7]]
    assert data_flow_ops.parallel_dynamic_stitch is tf.parallel_dynamic_stitch


def test_embedding_lookup_and_transform_maps_each_row(sess):
    from tideflow.python.ops import embedding_ops

    params = np.arange(12.0).reshape(6, 2)
    ids = np.array([[5, 0, 3], [1, 1, 2]])
    # one table, and the same table as two 'mod' shards (even rows, odd rows)
    for shards in ([params], [params[0::2], params[1::2]]):
        out = embedding_ops._embedding_lookup_and_transform(
            shards, ids, transform_fn=lambda rows: tf.reduce_sum(rows, axis=1))
        assert out.get_shape().as_list() == [2, 3]
        np.testing.assert_allclose(sess.run(out), params[ids].sum(-1))


def test_v2_embedding_lookups_partition_by_div(sess):
    from tideflow.python.ops import embedding_ops

    table = np.arange(10.0).reshape(5, 2)
    shards = [table[:3], table[3:]]  # 'div': the first shard holds the extra row
    ids = np.array([4, 0, 2])
    got = embedding_ops.embedding_lookup_v2(shards, ids)
    np.testing.assert_allclose(sess.run(got), table[ids])
    sp = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([3, 4, 1], np.int64), [2, 2])
    summed = embedding_ops.embedding_lookup_sparse_v2(shards, sp, None, combiner="sum")
    np.testing.assert_allclose(sess.run(summed), [table[3] + table[4], table[1]])
    safe = embedding_ops.safe_embedding_lookup_sparse_v2(shards, sp, combiner="sum")
    np.testing.assert_allclose(sess.run(safe), [table[3] + table[4], table[1]])


def test_safe_embedding_lookup_sparse_shards_take_the_weights_dtype(sess):
    sp = tf.SparseTensor([[0, 0], [1, 0]], np.array([0, 1], np.int64), [2, 1])
    w32 = tf.SparseTensor([[0, 0], [1, 0]], np.array([2.0, 1.0], np.float32), [2, 1])
    table64 = tf.constant(np.ones((2, 3)), tf.float64)
    with pytest.raises(ValueError):
        tf.nn.safe_embedding_lookup_sparse([table64], sp, w32)
    # numpy shards convert to the weights' dtype
    out = tf.nn.safe_embedding_lookup_sparse([np.ones((2, 3))], sp, w32)
    assert out.dtype == tf.float32
    np.testing.assert_allclose(sess.run(out), np.ones((2, 3)))


# -- RNN cells -----------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda **kw: tf.nn.rnn_cell.BasicRNNCell(2, **kw),
    lambda **kw: tf.nn.rnn_cell.GRUCell(2, **kw),
    lambda **kw: tf.nn.rnn_cell.BasicLSTMCell(2, **kw),
    lambda **kw: tf.nn.rnn_cell.LSTMCell(2, **kw),
])
def test_rnn_cells_reject_integer_dtypes(make):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="RNN cell only supports floating point inputs"):
            make(dtype=tf.int32)
        with pytest.raises(ValueError, match="but saw dtype: <dtype: 'int32'>"):
            tf.nn.dynamic_rnn(make(), tf.zeros([3, 5, 4], tf.int32), dtype=tf.int32)


def test_tf_layers_get_and_set_weights(sess):
    cell = tf.nn.rnn_cell.BasicRNNCell(3)
    x = tf.placeholder(tf.float32, [None, 4, 2])
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    kernel = np.linspace(-1, 1, 15).reshape(5, 3).astype(np.float32)
    bias = np.array([0.1, -0.2, 0.3], np.float32)
    cell.set_weights([kernel, bias])
    got = cell.get_weights()
    np.testing.assert_allclose(got[0], kernel)
    np.testing.assert_allclose(got[1], bias)
    xs = np.random.RandomState(0).randn(2, 4, 2).astype(np.float32)
    h = np.zeros((2, 3), np.float32)
    for t in range(4):
        h = np.tanh(np.concatenate([xs[:, t], h], 1) @ kernel + bias)
    np.testing.assert_allclose(sess.run(out, {x: xs})[:, -1], h, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="expecting 2 weights"):
        cell.set_weights([kernel])
    dense = tf.layers.Dense(2)
    dense(tf.zeros([1, 3]))
    dense.set_weights([np.ones((3, 2)), np.zeros(2)])
    assert sess.run(dense.kernel).tolist() == [[1.0, 1.0]] * 3


# -- tf.losses -----------------------------------------------------------------------------
@pytest.mark.parametrize("weights", [
    np.array([2.0]),  # rank 1 against rank 2: NumPy would broadcast it
    np.array([[1.0], [2.0], [3.0]]),  # three rows against two
    np.ones((2, 3, 1)),  # a rank more than the losses
])
def test_weighted_loss_checks_fed_weights_when_run(sess, weights):
    values = np.arange(6.0).reshape(2, 3)
    fed = tf.placeholder(tf.float32)
    loss = tf.losses.compute_weighted_loss(values, weights=fed)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="weights can not be broadcast to values"):
        sess.run(loss, {fed: weights})
    # weights that do broadcast still work, and an unknown rank adds the check only then
    assert sess.run(loss, {fed: np.array([[1.0], [0.0]])}) == pytest.approx(3.0 / 3)
    assert sess.run(loss, {fed: 2.0}) == pytest.approx(2 * values.mean())


def test_weighted_loss_static_weights_add_no_runtime_check():
    with tf.Graph().as_default() as g:
        tf.losses.compute_weighted_loss(np.ones((2, 3)), weights=np.ones((2, 1)))
        assert not [op for op in g.get_operations() if op.type == "Assert"]


def test_sparse_softmax_loss_weights_of_unknown_rank(sess):
    logits = np.array([[4.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 4.0]], np.float32)
    labels = np.array([[2], [2], [2]])
    per_row = -np.log(np.exp(logits[:, 2]) / np.exp(logits).sum(1))
    w = tf.placeholder(tf.float32)  # rank unknown: squeezed, expanded or kept when run
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits, w)
    for fed, row_w in (([[1.0], [0.5], [0.0]], [1.0, 0.5, 0.0]), ([1.0, 0.5, 0.0], [1.0, 0.5, 0.0]),
                       (2.0, [2.0] * 3)):
        want = (per_row * row_w).sum() / np.count_nonzero(row_w)
        assert sess.run(loss, {w: fed}) == pytest.approx(want, rel=1e-5)


def test_mean_pairwise_squared_error_of_unknown_rank(sess):
    labels = np.array([[[1.0, 4.0], [2.0, 0.0]], [[0.0, 1.0], [3.0, 3.0]]])
    preds = np.array([[[2.0, 2.0], [1.0, 1.0]], [[1.0, 0.0], [0.0, 2.0]]])
    d = (preds - labels).reshape(2, -1)
    n = d.shape[1]
    pairs = [((d[b, i] - d[b, j]) ** 2) for b in range(2) for i in range(n) for j in range(n)]
    want = np.sum(pairs) / (n * (n - 1))
    p, lab = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    loss = tf.losses.mean_pairwise_squared_error(lab, p)
    assert sess.run(loss, {p: preds, lab: labels}) == pytest.approx(want, rel=1e-5)


# -- tf.gradients --------------------------------------------------------------------------
def _groups(t):
    return t.op.colocation_groups()


def test_colocated_gradient_sums_sit_with_their_partials():
    with tf.Graph().as_default() as g:
        with g.device("/job:ps/task:0"):
            v = tf.constant([[2.0]], name="v")
        a, b = tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0]])
        pa, pb = tf.matmul(v, a, name="pa"), tf.matmul(v, b, name="pb")
        total = pa + pb
        # both partials on one device: their sum is placed with the first one's op
        grad = tf.gradients(total, v, colocate_gradients_with_ops=True)[0]
        assert _groups(grad) == _groups(pa)
        # without colocation the sum is an AddN of its own
        plain = tf.gradients(total, v)[0]
        assert plain.op.type == "AddN" and _groups(plain) != _groups(pa)
    with tf.Graph().as_default() as g:
        v = tf.constant([[2.0]], name="v")
        a, b = tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0]])
        with g.device("/job:worker/task:1"):
            pa = tf.matmul(v, a)
        with g.device("/job:worker/task:2"):
            pb = tf.matmul(v, b)
        # partials on two devices: summed once more, next to the op they flow into
        grad = tf.gradients(pa + pb, v, colocate_gradients_with_ops=True)[0]
        assert _groups(grad) == _groups(v)
        # TF 1.15: soft placement drops a device type or index no device has, never a job
        # or task, so a local session still refuses /job:worker/task:1
        config = tf.ConfigProto(allow_soft_placement=True)
        refused = pytest.raises(tf.errors.InvalidArgumentError,
                                match="was explicitly assigned to /job:worker/task:1")
        with tf.Session(config=config) as s, refused:
            s.run(grad)


def test_get_dependent_variables():
    from tideflow.python.ops import custom_gradient

    with tf.Graph().as_default():
        used = tf.Variable([1.0, 2.0], name="used")
        frozen = tf.Variable([1.0, 2.0], name="frozen", trainable=False)
        shape_only = tf.Variable([1.0, 2.0], name="shape_only")
        upstream = tf.Variable([1.0, 2.0], name="upstream")
        x = upstream * 3.0  # the input: what lies behind it does not count
        out = {"y": tf.identity(x) + used + frozen + tf.ones_like(shape_only)}
        assert custom_gradient.get_dependent_variables([x], out) == [used]
        assert custom_gradient.get_dependent_variables([x], [tf.identity(x)]) == []
        assert custom_gradient.grad_pass_through is tf.grad_pass_through


def test_unconnected_gradients_module_path():
    from tideflow.python.ops import unconnected_gradients

    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.constant([1.0, 2.0], tf.float64)
        g = tf.gradients(tf.constant(3.0), x, unconnected_gradients=(
            unconnected_gradients.UnconnectedGradients.ZERO))[0]
        assert g.dtype == tf.float64 and s.run(g).tolist() == [0.0, 0.0]


# -- batch normalization -------------------------------------------------------------------
def test_fused_batch_norm_of_an_empty_batch(sess):
    x = tf.placeholder(tf.float32, [None, 3, 4, 2])
    scale, offset = tf.constant([1.0, 2.0]), tf.constant([0.5, 0.0])
    y, mean, var = tf.nn.fused_batch_norm(x, scale, offset, is_training=True)
    y_inf, mean_inf, _ = tf.nn.fused_batch_norm(x, scale, offset, mean=[1.0, 1.0],
                                                variance=[2.0, 2.0], is_training=False)
    out = sess.run([y, mean, var, y_inf, mean_inf], {x: np.zeros([0, 3, 4, 2], np.float32)})
    assert out[0].shape == (0, 3, 4, 2) and out[3].shape == (0, 3, 4, 2)
    # no statistics of nothing: NaN, as TF's kernels report them
    assert np.isnan(out[1]).all() and np.isnan(out[2]).all() and np.isnan(out[4]).all()
    dx, dscale, doffset = tf.gradients(y, [x, scale, offset])
    got = sess.run([dx, dscale, doffset], {x: np.zeros([0, 3, 4, 2], np.float32)})
    assert got[0].shape == (0, 3, 4, 2)
    assert got[1].tolist() == [0.0, 0.0] and got[2].tolist() == [0.0, 0.0]


def test_batch_norm_with_global_normalization_op(sess):
    from tideflow.python.framework import test_util
    from tideflow.python.ops import gen_nn_ops

    rng = np.random.RandomState(3)
    t = rng.rand(2, 2, 3, 3)
    m, v, beta, gamma = rng.rand(3), rng.rand(3) + 0.5, rng.rand(3), rng.rand(3) + 1.0
    test_util.set_producer_version(tf.get_default_graph(), 8)
    assert tf.get_default_graph().graph_def_versions.producer == 8
    for scale in (True, False):
        y = gen_nn_ops._batch_norm_with_global_normalization(t, m, v, beta, gamma, 0.001, scale)
        want = (t - m) / np.sqrt(v + 0.001) * (gamma if scale else 1) + beta
        assert y.get_shape().as_list() == [2, 2, 3, 3]
        np.testing.assert_allclose(sess.run(y), want, rtol=1e-7)  # epsilon is a float attr
        grads = gen_nn_ops.batch_norm_with_global_normalization_grad(
            t, m, v, gamma, np.ones_like(t), 0.001, scale)
        assert grads.db is grads[3]
        np.testing.assert_allclose(sess.run(grads.db), [12.0] * 3)
    # its gradient flows to all five inputs, as the composite batch_normalization's does
    ts = [tf.constant(a) for a in (t, m, v, beta, gamma)]
    y = gen_nn_ops._batch_norm_with_global_normalization(*ts, 0.001, True)
    ref = tf.nn.batch_normalization(ts[0], ts[1], ts[2], ts[3], ts[4], 0.001)
    dy = rng.rand(2, 2, 3, 3)
    got = sess.run(tf.gradients(y, ts, dy))
    want = sess.run(tf.gradients(ref, ts, dy))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10)


# -- gradient checker and gradient registration --------------------------------------------
def test_register_gradient_through_framework_ops(sess):
    from tideflow.python.framework import ops

    @ops.RegisterGradient("H4TimesTen")
    def _times_ten(op, grad):
        return grad * 10.0

    x = tf.constant([1.0, -2.0])
    with tf.get_default_graph().gradient_override_map({"Identity": "H4TimesTen"}):
        y = tf.identity(x)
    assert sess.run(tf.gradients(y, x)[0]).tolist() == [10.0, 10.0]
    assert ops.NotDifferentiable is tf.NotDifferentiable


def test_gradient_checker_empty_and_nan(sess):
    from tideflow.python.framework import ops

    @ops.RegisterGradient("H4Transposed")
    def _transposed(op, grad):
        return tf.transpose(grad)

    @ops.RegisterGradient("H4NaN")
    def _nan(op, grad):
        return grad * np.nan

    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32)
    ok = tf.identity(x)
    assert tf.test.compute_gradient_error(x, (0, 2), ok, (0, 2)) == 0
    with g.gradient_override_map({"Identity": "H4Transposed"}):
        bad = tf.identity(x)
    with pytest.raises(ValueError, match=r"Empty gradient has wrong shape: expected \(0, 2\), "
                                         r"got \(2, 0\)"):
        tf.test.compute_gradient(x, (0, 2), bad, (0, 2))
    with g.gradient_override_map({"Identity": "H4NaN"}):
        nan = tf.identity(x)
    assert np.isnan(tf.test.compute_gradient_error(x, (2,), nan, (2,)))


def test_numerics_module_path(sess):
    from tideflow.python.ops import numerics

    x = tf.constant([1.0, 4.0])
    check = numerics.add_check_numerics_ops()
    assert sess.run([tf.sqrt(x), check])[0].tolist() == [1.0, 2.0]


# -- tf.layers batch normalization ---------------------------------------------------------
@pytest.mark.parametrize("unbiased", [True, False])
def test_fused_layer_moving_variance_bessel_switch(sess, unbiased):
    from tideflow.python.layers import normalization

    x = np.array([[1.0, 4.0], [2.0, 0.0], [6.0, 2.0], [3.0, 2.0]], np.float32)
    bn = normalization.BatchNorm(momentum=0.0, fused=True)  # the moving values = the batch's
    bn._bessels_correction_test_only = unbiased
    y = bn.apply(x[:, None, None, :], training=True)
    sess.run(tf.global_variables_initializer())
    sess.run([y] + bn.updates)
    want = x.var(0, ddof=1 if unbiased else 0)
    np.testing.assert_allclose(sess.run(bn.moving_variance), want, rtol=1e-5)
    assert normalization.batch_norm is tf.layers.batch_normalization


def test_gradients_check_grad_ys_and_aggregation_method(sess):
    x = tf.constant([1.0, 2.0])
    y = x * 3.0
    with pytest.raises(TypeError, match="Gradient type complex64 generated for real or "
                                        "integer-valued tensor .* must be real or integer"):
        tf.gradients(y, x, grad_ys=tf.constant([1j, 1j], tf.complex64))
    c = tf.complex(x, x) * 2.0
    with pytest.raises(TypeError, match="generated for complex-valued tensor"):
        tf.gradients(c, x, grad_ys=tf.constant([1.0, 1.0]))
    with pytest.raises(ValueError, match="Invalid aggregation_method specified 5."):
        tf.gradients(y, x, aggregation_method=5)
    for method in (tf.AggregationMethod.ADD_N, tf.AggregationMethod.EXPERIMENTAL_TREE,
                   tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        g = tf.gradients(y + y, x, grad_ys=tf.constant([1.0, 0.5]), aggregation_method=method)
        assert sess.run(g[0]).tolist() == [6.0, 3.0]


def test_tf115_op_names_of_fused_batch_norm_in_top_k_and_sufficient_statistics():
    with tf.Graph().as_default():
        y, mean, var = tf.nn.fused_batch_norm(tf.ones([2, 2, 2, 3]), tf.ones([3]), tf.zeros([3]))
        assert [t.name for t in (y, mean, var)] == ["FusedBatchNormV3:0", "FusedBatchNormV3:1",
                                                   "FusedBatchNormV3:2"]
        assert tf.layers.batch_normalization(tf.ones([2, 2, 2, 3]), fused=True,
                                             training=True).op.name == \
            "batch_normalization/FusedBatchNormV3"
        assert tf.nn.in_top_k([[1.0, 2.0]], [1], 1).name == "in_top_k/InTopKV2:0"
        assert tf.nn.in_top_k([[1.0, 2.0]], [1], 1, name="acc").name == "acc/acc:0"
        count, _, _, _ = tf.nn.sufficient_statistics(tf.ones([2, 3]), [0])
        assert count.op.type == "Const" and count.name == "sufficient_statistics/Const:0"


# -- Keras-style tf.layers -----------------------------------------------------------------
def test_keras_style_scope_names_variables_by_name_scopes():
    from tideflow.python.layers import base

    assert tf.layers.experimental.keras_style_scope is base.keras_style_scope
    with tf.Graph().as_default():
        with base.keras_style_scope():
            cells = [tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(2) for _ in range(2)])
                     for _ in range(2)]
            dense = tf.layers.Dense(3)
            with pytest.raises(ValueError, match="reuse argument not allowed"):
                tf.layers.Dense(3, _reuse=True)
        x = tf.zeros([4, 3])
        for i, cell in enumerate(cells):
            with tf.name_scope(f"net{i}"):  # no variable-scope reuse clash between the two
                cell(x, cell.zero_state(4, tf.float32))
            assert cell.variables and all(v.name.startswith(f"net{i}/") for v in cell.variables)
        with tf.variable_scope("vs"), tf.name_scope("ns"):
            dense(x)
            dense(x)  # called again: the same two variables
        assert [v.name for v in dense.variables] == ["vs/ns/dense_1/kernel:0",
                                                     "vs/ns/dense_1/bias:0"]
        assert len(tf.global_variables()) == 2 * 4 + 2


def test_layer_inputs_may_be_namedtuples():
    class Sum(tf.layers.Layer):
        def call(self, inputs):
            return inputs.c + inputs.h

    with tf.Graph().as_default(), tf.Session() as s:
        state = tf.nn.rnn_cell.LSTMStateTuple(tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
        assert s.run(Sum()(state)).tolist() == [4.0, 6.0]


def test_keras_session_initializes_tf_layers_variables():
    with tf.Graph().as_default():
        x = tf.keras.Input((None, 5))
        cell = tf.nn.rnn_cell.GRUCell(4)
        model = tf.keras.models.Model(x, tf.keras.layers.RNN(cell)(x))
        out = model.predict(np.ones((2, 3, 5), np.float32))  # no initializer run by hand
        assert out.shape == (2, 4) and len(cell.variables) == 4


def test_rnn_cells_take_activation_names_and_round_trip_their_config(sess):
    cell = tf.nn.rnn_cell.BasicRNNCell(3, activation="relu")
    out, _ = cell(-tf.ones([2, 4]), cell.zero_state(2, tf.float32))
    sess.run(tf.global_variables_initializer())
    assert (sess.run(out) >= 0).all()
    for made in (cell, tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, cell_clip=2.0, num_proj=3,
                                               initializer=tf.glorot_normal_initializer()),
                 tf.nn.rnn_cell.GRUCell(2, kernel_initializer=tf.ones_initializer()),
                 tf.nn.rnn_cell.BasicLSTMCell(2, forget_bias=0.5, state_is_tuple=False)):
        config = made.get_config()
        again = type(made).from_config(config)
        assert again.get_config() == config
        assert again.state_size == made.state_size and again.output_size == made.output_size
    assert tf.nn.rnn_cell.LSTMCell(4, activation="sigmoid").get_config()["activation"] == \
        "sigmoid"


def test_safe_embedding_lookup_sparse_of_a_partitioned_variable(sess):
    table = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    pv = tf.get_variable("table", initializer=tf.constant(table),
                         partitioner=tf.fixed_size_partitioner(2))
    ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([4, 1, 3], np.int64), [2, 2])
    w = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([1.0, 2.0, 1.0], np.float32), [2, 2])
    div = tf.nn.safe_embedding_lookup_sparse(pv, ids, w)
    mod = tf.nn.safe_embedding_lookup_sparse(pv, ids, w, partition_strategy="mod")
    sess.run(tf.global_variables_initializer())
    parts = sess.run(list(pv))  # rows 0-2 and 3-4; 'mod' reads them as ids 0,2,4 and 1,3

    def by_mod(i):
        return parts[i % 2][i // 2]

    np.testing.assert_allclose(sess.run(div), [(table[4] + 2 * table[1]) / 3, table[3]])
    np.testing.assert_allclose(sess.run(mod), [(by_mod(4) + 2 * by_mod(1)) / 3, by_mod(3)],
                               rtol=1e-6)
