"""tf.contrib.grid_rnn and tf.contrib.kernel_methods against TF 1.15: names, shapes, seeded values
and errors (expected values are what TF 1.15 printed for the same programs)."""

import re

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _names(structure):
    return tf.contrib.framework.nest.map_structure(lambda t: t.name, structure)


# ---------------------------------------------------------------- grid_rnn


def test_grid_rnn_public_names_and_implementation_path():
    from tideflow.contrib.grid_rnn.python.ops import grid_rnn_cell

    names = ["Grid1BasicLSTMCell", "Grid1BasicRNNCell", "Grid1LSTMCell", "Grid2BasicLSTMCell",
             "Grid2BasicRNNCell", "Grid2GRUCell", "Grid2LSTMCell", "Grid3LSTMCell",
             "GridRNNCell"]
    for name in names:
        assert getattr(tf.contrib.grid_rnn, name) is getattr(grid_rnn_cell, name)
    assert issubclass(tf.contrib.grid_rnn.GridRNNCell, tf.nn.rnn_cell.RNNCell)


def test_grid2_gru_tied_names_and_seeded_values():
    tf.set_random_seed(7)
    with tf.variable_scope("top"):
        cell = tf.contrib.grid_rnn.Grid2GRUCell(4, tied=True)
        assert cell.output_size == (4,) and cell.state_size == (4, 4)
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 10.0 - 0.3)
        out, state = cell(x, cell.zero_state(2, tf.float32))
        assert _names(out) == ("top/Grid2GRUCell/recurrent/gru_cell/add_1:0",)
        assert _names(state) == ("top/Grid2GRUCell/recurrent/gru_cell/add_1:0",
                                 "top/Grid2GRUCell/recurrent/gru_cell/add:0")
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            out2, _ = cell(x, state)
    assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
        ("top/Grid2GRUCell/project_m_0:0", [3, 4]),
        ("top/Grid2GRUCell/recurrent/gru_cell/gates/kernel:0", [8, 8]),
        ("top/Grid2GRUCell/recurrent/gru_cell/gates/bias:0", [8]),
        ("top/Grid2GRUCell/recurrent/gru_cell/candidate/kernel:0", [8, 4]),
        ("top/Grid2GRUCell/recurrent/gru_cell/candidate/bias:0", [4])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        project = sess.run(tf.global_variables()[0])
        value = sess.run(out2[0])
    np.testing.assert_allclose(project.ravel()[:3], [-0.84852, 0.13955, 0.85869], atol=1e-5)
    np.testing.assert_allclose(value, [[0.05598, -0.10813, 0.065, 0.01815],
                                       [0.0589, 0.05411, -0.14459, 0.06268]], atol=1e-5)


def test_grid2_lstm_non_recurrent_dimension():
    tf.set_random_seed(7)
    with tf.variable_scope("top", initializer=tf.truncated_normal_initializer(stddev=0.3)):
        cell = tf.contrib.grid_rnn.Grid2LSTMCell(4, non_recurrent_fn=tf.nn.relu,
                                                 use_peepholes=True)
        assert len(cell.state_size) == 1  # only dimension 1 is recurrent
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 10.0 - 0.3)
        out, state = cell(x, cell.zero_state(2, tf.float32))
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            out2, _ = cell(x, state)
    assert _names(out) == ("top/Grid2LSTMCell/non_recurrent/cell_0/fully_connected/Relu:0",)
    assert [v.name for v in tf.global_variables()] == [
        "top/Grid2LSTMCell/project_m_0:0", "top/Grid2LSTMCell/project_c_0:0",
        "top/Grid2LSTMCell/recurrent/cell_1/lstm_cell/kernel:0",
        "top/Grid2LSTMCell/recurrent/cell_1/lstm_cell/bias:0",
        "top/Grid2LSTMCell/recurrent/cell_1/lstm_cell/w_f_diag:0",
        "top/Grid2LSTMCell/recurrent/cell_1/lstm_cell/w_i_diag:0",
        "top/Grid2LSTMCell/recurrent/cell_1/lstm_cell/w_o_diag:0",
        "top/Grid2LSTMCell/non_recurrent/cell_0/fully_connected/weights:0",
        "top/Grid2LSTMCell/non_recurrent/cell_0/fully_connected/biases:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(out2[0]), [[0.0, 0.03562, 0.03388, 0.0],
                                                       [0.0, 0.02251, 0.0, 0.01541]], atol=1e-5)


def test_grid_rnn_errors_as_tf():
    grid_rnn = tf.contrib.grid_rnn
    with pytest.raises(ValueError, match=r"Invalid dims: \[2\]. Must be in \[0, 2\)"):
        grid_rnn.GridRNNCell(3, num_dims=2, input_dims=[2])
    with pytest.raises(ValueError, match="dims must be >= 1: 0"):
        grid_rnn.GridRNNCell(3, num_dims=0)
    with pytest.raises(TypeError, match="cell_fn must return an RNNCell instance"):
        grid_rnn.GridRNNCell(3, num_dims=2, cell_fn=lambda n: 5)
    cell = grid_rnn.Grid2LSTMCell(2)
    with pytest.raises(ValueError, match="Expected state as a tuple of 2 element"):
        cell(tf.ones([2, 3]), (tf.nn.rnn_cell.LSTMStateTuple(tf.ones([2, 2]), tf.ones([2, 2])),))
    # TF 1.15 needs an initializer on the scope for a non-recurrent dimension
    cell = grid_rnn.Grid2BasicRNNCell(4, non_recurrent_fn=tf.nn.relu)
    with pytest.raises(AttributeError, match="has no attribute 'initializers'"):
        cell(tf.ones([2, 3]), cell.zero_state(2, tf.float32))
    # an unknown input depth fails TF's comparison with 0
    cell = grid_rnn.Grid2GRUCell(2)
    with pytest.raises(TypeError, match="'>' not supported"):
        cell(tf.placeholder(tf.float32, [2, None]), cell.zero_state(2, tf.float32))
    # a concatenated state of single-tensor cells iterates a tensor
    cell = grid_rnn.Grid2GRUCell(4, state_is_tuple=False, output_is_tuple=False)
    assert (cell.output_size, cell.state_size) == (4, 8)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        cell(tf.ones([2, 3]), cell.zero_state(2, tf.float32))


def test_grid_rnn_empty_outputs_and_no_input():
    cell = tf.contrib.grid_rnn.GridRNNCell(2, num_dims=2, input_dims=0, output_dims=[],
                                           output_is_tuple=False,
                                           cell_fn=lambda n: tf.nn.rnn_cell.GRUCell(n))
    assert (cell.output_size, cell.state_size) == (0, (2, 2))
    out, _ = cell(tf.ones([2, 3]), cell.zero_state(2, tf.float32))
    assert out.name == "GridRNNCell/zeros:0" and out.shape.as_list() == [0, 0]
    with tf.Graph().as_default():
        cell = tf.contrib.grid_rnn.Grid2GRUCell(2)
        out, _ = cell(tf.zeros([2, 0]), cell.zero_state(2, tf.float32))
        names = [v.name for v in tf.global_variables()]
        assert not any("project" in n for n in names)  # a zero-width input is not projected
        assert names[0] == "Grid2GRUCell/recurrent/cell_1/gru_cell/gates/kernel:0"


def test_grid2_lstm_dynamic_rnn_training_losses():
    tf.set_random_seed(11)
    cell = tf.contrib.grid_rnn.Grid2LSTMCell(4)
    x = tf.placeholder(tf.float32, [None, 5, 3])
    outs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    assert [v.name for v in tf.trainable_variables()] == [
        "rnn/Grid2LSTMCell/project_m_0:0", "rnn/Grid2LSTMCell/project_c_0:0",
        "rnn/Grid2LSTMCell/recurrent/cell_1/lstm_cell/kernel:0",
        "rnn/Grid2LSTMCell/recurrent/cell_1/lstm_cell/bias:0",
        "rnn/Grid2LSTMCell/recurrent/cell_0/lstm_cell/kernel:0",
        "rnn/Grid2LSTMCell/recurrent/cell_0/lstm_cell/bias:0"]
    y = tf.placeholder(tf.float32, [None, 5, 1])
    loss = tf.reduce_mean(tf.square(tf.layers.dense(outs[0], 1) - y))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rs = np.random.RandomState(0)
    xv = rs.randn(4, 5, 3)
    yv = np.sin(xv.sum(-1, keepdims=True))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([loss, train], {x: xv, y: yv})[0] for _ in range(6)]
    np.testing.assert_allclose(losses, [0.89381, 0.52983, 0.3628, 0.27955, 0.22675, 0.19051],
                               atol=1e-4)


# ---------------------------------------------------------------- kernel_methods


def test_random_fourier_features_values_and_names():
    km = tf.contrib.kernel_methods
    mapper = km.RandomFourierFeatureMapper(3, 5, stddev=2.0, seed=4, name="m1")
    assert (mapper.input_dim, mapper.output_dim, mapper.name) == (3, 5, "m1")
    other = km.RandomFourierFeatureMapper(2, 4)
    assert other.name == str(id(other))
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 4.0)
    y = mapper.map(x)
    assert (y.name, y.shape.as_list()) == ("mul:0", [2, 5])
    assert [op.type for op in tf.get_default_graph().get_operations()] == [
        "Const", "Const", "Const", "MatMul", "Add", "Cos", "Const", "Mul"]
    graph = tf.get_default_graph()
    with tf.Session() as sess:
        omega, bias, value = sess.run([graph.get_tensor_by_name("Const_1:0"),
                                       graph.get_tensor_by_name("Const_2:0"), y])
    np.testing.assert_allclose(omega.ravel()[:4], [0.02528, 0.24998, -0.49795, 0.3468],
                               atol=1e-5)
    np.testing.assert_allclose(bias, [4.60796, 2.56633, 3.31695, 5.89094, 3.27791], atol=1e-5)
    np.testing.assert_allclose(value, [[-0.09316, -0.49249, -0.5927, 0.60994, -0.60489],
                                       [-0.29826, -0.45553, -0.59037, 0.61408, -0.15862]],
                               atol=1e-5)


def test_random_fourier_features_shape_errors():
    from tideflow.contrib.kernel_methods.python.mappers import dense_kernel_mapper as dkm

    mapper = tf.contrib.kernel_methods.RandomFourierFeatureMapper(3, 5)
    assert isinstance(mapper, dkm.DenseKernelMapper)
    with pytest.raises(dkm.InvalidShapeError, match="expected 3 input features, got 4 instead"):
        mapper.map(tf.ones([2, 4]))
    with pytest.raises(dkm.InvalidShapeError, match="should be 2. Got 1 instead"):
        mapper.map(tf.ones([3]))
    with pytest.raises(ValueError, match="unknown rank"):
        mapper.map(tf.placeholder(tf.float32))
    assert mapper.map(tf.placeholder(tf.float32, [None, None])).shape.as_list() == [None, 5]


def test_sparse_multiclass_hinge_loss():
    km = tf.contrib.kernel_methods
    logits = tf.constant([[1.2, -0.3, 0.5], [0.1, 0.4, -1.0], [2.0, 2.5, 0.0], [0., 0., 0.]])
    labels = tf.constant([0, 2, 1, 1])
    loss = km.sparse_multiclass_hinge_loss(labels, logits)
    assert loss.name == "sparse_multiclass_hinge_loss/value:0"
    assert _names(tf.get_collection(tf.GraphKeys.LOSSES)) == [loss.name]
    unreduced = km.sparse_multiclass_hinge_loss(tf.reshape(labels, [4, 1]), logits,
                                                weights=[1., 0., 2., 0.5],
                                                reduction=tf.losses.Reduction.NONE)
    mean = km.sparse_multiclass_hinge_loss(tf.cast(labels, tf.int64), tf.cast(logits, tf.float64),
                                           weights=tf.constant([[1.], [2.], [0.], [0.]]),
                                           scope="myscope", reduction=tf.losses.Reduction.MEAN)
    assert (unreduced.name, mean.name, mean.dtype) == (
        "sparse_multiclass_hinge_loss_1/Mul:0", "myscope/value:0", tf.float32)
    grad = tf.gradients(loss, logits)[0]
    with tf.Session() as sess:
        values = sess.run([loss, unreduced, mean, grad])
    np.testing.assert_allclose(values[0], 1.05, atol=1e-6)
    np.testing.assert_allclose(values[1], [0.3, 0.0, 1.0, 0.5], atol=1e-6)
    np.testing.assert_allclose(values[2], 1.7, atol=1e-6)
    np.testing.assert_allclose(values[3], [[-0.25, 0.0, 0.25], [0.0, 0.25, -0.25],
                                           [0.25, -0.25, 0.0], [0.125, -0.25, 0.125]])
    with pytest.raises(ValueError, match="Invalid dtype for labels"):
        km.sparse_multiclass_hinge_loss(tf.constant([0.]), logits)
    with pytest.raises(ValueError, match="logits should have rank 2"):
        km.sparse_multiclass_hinge_loss(labels, tf.ones([4]))
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(4,\) are incompatible"):
        km.sparse_multiclass_hinge_loss(labels, logits, weights=tf.ones([3]))


def _kernel_input_fn():
    rs = np.random.RandomState(0)
    x = rs.randn(60, 2).astype(np.float32)
    y = (np.sum(x ** 2, 1) < 1.2).astype(np.int64)
    return lambda: ({"x": tf.constant(x)}, tf.constant(y.reshape(60, 1))), x


def test_kernel_linear_classifier_matches_tf(tmp_path):
    km = tf.contrib.kernel_methods
    input_fn, x = _kernel_input_fn()
    column = tf.contrib.layers.real_valued_column("x", dimension=2)
    mapper = km.RandomFourierFeatureMapper(2, 30, stddev=0.8, seed=3, name="rffm")
    est = km.KernelLinearClassifier(feature_columns=[], model_dir=str(tmp_path),
                                    kernel_mappers={column: [mapper]},
                                    optimizer=tf.train.FtrlOptimizer(0.5))
    assert isinstance(est, tf.contrib.learn.Estimator)
    est.fit(input_fn=input_fn, steps=20)
    result = est.evaluate(input_fn=input_fn, steps=1)
    np.testing.assert_allclose([result["loss"], result["accuracy"]], [0.3647, 0.9667], atol=1e-4)
    assert result["global_step"] == 20
    assert est.get_variable_value("linear/x_MAPPED/weight").shape == (30, 1)
    assert sorted(est.params) == ["feature_columns", "head", "kernel_mappers", "optimizer"]
    # contrib.learn's names of the linear weights, as TF 1.15 lists them
    assert {"global_step", "linear/bias_weight", "linear/x_MAPPED/weight"} <= set(
        est.get_variable_names())
    assert [c.name for c in est.params["feature_columns"]] == ["x_MAPPED"]

    def predict_fn():
        return {"x": tf.constant(x[:5])}

    assert list(est.predict_classes(input_fn=predict_fn)) == [0, 0, 0, 1, 1]
    proba = np.array(list(est.predict_proba(input_fn=predict_fn)))
    np.testing.assert_allclose(proba[:, 1], [0.1969, 0.1405, 0.3715, 0.5683, 0.8092], atol=1e-4)
    assert sorted(next(iter(est.predict(input_fn=predict_fn)))) == [
        "classes", "logistic", "logits", "probabilities"]


def test_kernel_linear_classifier_argument_errors(tmp_path):
    km = tf.contrib.kernel_methods
    column = tf.contrib.layers.real_valued_column("x", dimension=2)
    mapper = km.RandomFourierFeatureMapper(2, 4)
    with pytest.raises(ValueError, match="at least one of feature_columns, kernel_mappers"):
        km.KernelLinearClassifier(model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="Invalid kernel mappers"):
        km.KernelLinearClassifier(model_dir=str(tmp_path), kernel_mappers={column: [object()]})
    with pytest.raises(ValueError, match="n_classes must be > 1 for classification: 1"):
        km.KernelLinearClassifier(model_dir=str(tmp_path), n_classes=1,
                                  kernel_mappers={column: [mapper]})


# ---------------------------------------------------------------- list arguments (op creation)


def test_list_argument_conversion_errors_in_tf_words():
    with pytest.raises(TypeError, match=re.escape(
            "Tensors in list passed to 'values' of 'ConcatV2' Op have types [float64, "
            "<NOT CONVERTIBLE TO TENSOR>] that don't all match.")):
        tf.concat([tf.ones([2], tf.float64), None], 0)
    with pytest.raises(TypeError, match=re.escape(
            "Tensors in list passed to 'values' of 'Pack' Op have types [float32, "
            "<NOT CONVERTIBLE TO TENSOR>] that don't all match.")):
        tf.stack([tf.ones([2]), None])
    with pytest.raises(TypeError, match=re.escape("have types [float32, string] that don't all "
                                                  "match.")):
        tf.concat([tf.ones([2]), "a"], 0)
    with pytest.raises(ValueError, match="inputs must be a list of at least one Tensor"):
        tf.add_n([tf.ones([2]), None])
    # a single value of an inferred type that does not convert: TF's words, naming the input
    with pytest.raises(ValueError, match=re.escape(
            "Tried to convert 'input' to a tensor and failed. Error: None values not "
            "supported.")):
        tf.concat([None], 0)


def test_list_type_comes_from_its_first_tensor():
    # a Python value before the list's first tensor takes that tensor's type, as in TF 1.15
    out = tf.dynamic_stitch([[0], [1]], [[1.], tf.ones([1], tf.float64)])
    assert out.dtype == tf.float64
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), [1.0, 1.0])


# ---------------------------------------------------------------- bayesflow.monte_carlo


def test_monte_carlo_expectation_values_and_score_gradient():
    from tideflow.contrib.bayesflow.python.ops import monte_carlo_impl

    mc = tf.contrib.bayesflow.monte_carlo
    assert mc.expectation is monte_carlo_impl.expectation
    tf.set_random_seed(3)
    p = tf.distributions.Normal(loc=0., scale=1.)
    q = tf.distributions.Normal(loc=1., scale=2.)
    samples = p.sample(2000, seed=42)
    kl = mc.expectation(f=lambda x: p.log_prob(x) - q.log_prob(x), samples=samples,
                        log_prob=p.log_prob, use_reparametrization=False)
    square = mc.expectation(lambda x: x ** 2, samples, axis=None, keep_dims=True, name="sq")
    loc = tf.Variable(0.5)
    r = tf.distributions.Normal(loc=loc, scale=1.)
    r_samples = r.sample(500, seed=7)
    score = mc.expectation(lambda x: x ** 2, r_samples, log_prob=r.log_prob,
                           use_reparametrization=False)
    reparam = mc.expectation(lambda x: x ** 2, r_samples)
    assert (kl.name, square.name, square.shape.as_list(), score.name) == (
        "expectation/Mean:0", "sq/Mean:0", [1], "expectation_1/Mean:0")
    grads = [tf.gradients(score, loc)[0], tf.gradients(reparam, loc)[0]]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([kl, square, score, reparam] + grads)
    np.testing.assert_allclose(values[0], 0.4567, atol=1e-4)
    np.testing.assert_allclose(values[1], [0.9776], atol=1e-4)
    np.testing.assert_allclose(values[2:], [1.27, 1.27, 1.1876, 1.0551], atol=1e-4)
    with pytest.raises(ValueError, match="`f` must be a callable function."):
        mc.expectation(3, samples)
    with pytest.raises(ValueError, match="`log_prob` must be a callable function."):
        mc.expectation(lambda x: x, samples, use_reparametrization=False)


def test_monte_carlo_importance_sampling():
    mc = tf.contrib.bayesflow.monte_carlo
    tf.set_random_seed(3)
    q = tf.distributions.Normal(loc=tf.constant([0., 1.], tf.float64),
                                scale=tf.constant([2., 2.], tf.float64))
    p = tf.distributions.Normal(loc=tf.constant(0.5, tf.float64),
                                scale=tf.constant(1., tf.float64))
    plain = mc.expectation_importance_sampler(f=lambda z: z, log_p=p.log_prob,
                                              sampling_dist_q=q, n=4000, seed=5)
    logspace = mc.expectation_importance_sampler_logspace(
        log_f=lambda z: -z ** 2, log_p=p.log_prob, sampling_dist_q=q, n=3000, seed=6)
    given = mc.expectation_importance_sampler(lambda z: z - 0.5, p.log_prob, q,
                                              z=q.sample(100, seed=9), name="given_z")
    assert (plain.name, plain.dtype, logspace.name, given.name) == (
        "sub:0", tf.float64, "expectation_importance_sampler_logspace/add_1:0", "sub_1:0")
    with tf.Session() as sess:
        values = sess.run([plain, logspace, given])
    np.testing.assert_allclose(values, [[0.525, 0.5026], [-0.6014, -0.6128],
                                        [-0.2168, -0.1652]], atol=1e-4)
    with pytest.raises(ValueError, match='Must specify exactly one of arguments "n" and "z"'):
        mc.expectation_importance_sampler_logspace(lambda z: z, p.log_prob, q)


# ---------------------------------------------------------------- copy_graph


def test_copy_graph_variables_and_ops():
    cg = tf.contrib.copy_graph
    g1 = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.], [2.]], name="w")
    b = tf.Variable(0.5, name="b", trainable=False)
    tf.add_to_collection("mine", w)
    with tf.control_dependencies([tf.no_op(name="dep")]):
        y = tf.add(tf.matmul(x, w), b, name="y")
    z = tf.nn.relu(y, name="z")
    tf.add_to_collection("outs", z)
    g2 = tf.Graph()
    w2 = cg.copy_variable_to_graph(w, g2, scope="s")
    b2 = cg.copy_variable_to_graph(b, g2, scope="s")
    assert (w2.name, b2.name, w2.graph is g2, g1 is not g2) == ("s/w:0", "s/b:0", True, True)
    assert sorted(g2.get_all_collection_keys()) == ["s/mine", "trainable_variables",
                                                    "variables"]
    assert [v.name for v in g2.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)] == ["s/w:0"]
    z2 = cg.copy_op_to_graph(z, g2, [w2, b2], scope="s")
    assert (z2.name, z2.op.type) == ("s/z:0", "Relu")
    assert [c.name for c in g2.get_operation_by_name("s/MatMul").control_inputs] == ["s/dep"]
    assert [i.name for i in g2.get_operation_by_name("s/y").inputs] == ["s/MatMul:0", "s/b/read:0"]
    assert _names(g2.get_collection("s/outs")) == ["s/z:0"]
    assert cg.get_copied_op(y.op, g2, "s").name == "s/y"
    count = len(g2.get_operations())
    assert cg.copy_op_to_graph(z, g2, [w2, b2], scope="s").name == "s/z:0"
    assert len(g2.get_operations()) == count
    with tf.Session(graph=g2) as sess:
        sess.run(tf.variables_initializer([w2, b2]))
        feed = {g2.get_tensor_by_name("s/x:0"): [[1., 1.], [-3., 0.]]}
        np.testing.assert_allclose(sess.run(z2, feed), [[3.5], [0.0]])
    with pytest.raises(TypeError, match="is not a Variable"):
        cg.copy_variable_to_graph(y, g2)


def test_grid_cells_with_constant_initializer_match_tf_values():
    grid_rnn = tf.contrib.grid_rnn
    with tf.variable_scope("root", initializer=tf.constant_initializer(0.5)):
        cell = grid_rnn.Grid3LSTMCell(2, use_peepholes=True, state_is_tuple=False,
                                      output_is_tuple=False)
        out, state = cell(tf.constant([[1., 1., 1.]]), tf.constant(
            [[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, -0.1, -0.2, -0.3, -0.4]]))
        relu = grid_rnn.GridRNNCell(num_units=2, num_dims=1, input_dims=0, output_dims=0,
                                    non_recurrent_dims=0, non_recurrent_fn=tf.nn.relu)
        assert (relu.state_size, relu.output_size) == ((), (2,))
        relu_out, relu_state = relu(tf.constant([[1., 2.], [3., 4.], [-1., -2.]]), ())
    assert relu_state == ()
    assert relu_out[0].name == "root/GridRNNCell/non_recurrent/cell_0/fully_connected/Relu:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([out, state, relu_out[0]])
    np.testing.assert_allclose(values[0], [[0.96893, 0.96893]], atol=1e-5)
    np.testing.assert_allclose(values[1], [[2.45228, 2.45228, 0.96893, 0.96893, 1.33593, 1.43735,
                                            0.80867, 0.83248, 0.73178, 0.63206, 0.56549,
                                            0.50446]], atol=1e-5)
    np.testing.assert_allclose(values[2], [[1.5, 1.5], [3.5, 3.5], [0.0, 0.0]])


def test_contrib_linear_classifier_slot_names_follow_the_head(tmp_path):
    # TF 1.15 names a slot after its weight, then cuts the slot variable's name (under
    # "linear/<head scope>/") by the weight's name length: the head's name shows through
    x = np.random.RandomState(0).randn(20, 2).astype(np.float32)

    def input_fn():
        return {"x": tf.constant(x)}, tf.constant((x[:, :1] > 0).astype(np.int64))

    est = tf.contrib.learn.LinearClassifier(
        [tf.contrib.layers.real_valued_column("x", 2)], model_dir=str(tmp_path / "a"),
        optimizer=tf.train.AdamOptimizer(0.1))
    est.fit(input_fn=input_fn, steps=3)
    assert est.get_variable_names() == [
        "global_step", "linear/bias_weight", "linear/bias_weight/d/linear/bias_weight/part_0/Adam",
        "linear/bias_weight/d/linear/bias_weight/part_0/Adam_1",
        "linear/binary_logistic_head/train_op/beta1_power",
        "linear/binary_logistic_head/train_op/beta2_power", "linear/x/weight",
        "linear/x/weight/head/linear/x/weight/part_0/Adam",
        "linear/x/weight/head/linear/x/weight/part_0/Adam_1"]
    np.testing.assert_allclose(
        est.get_variable_value("linear/binary_logistic_head/train_op/beta2_power"), 0.996,
        atol=1e-4)
    np.testing.assert_allclose(
        est.get_variable_value("linear/x/weight/head/linear/x/weight/part_0/Adam")[:, 0],
        [-0.1151, -0.0197], atol=1e-4)
    mapper = tf.contrib.kernel_methods.RandomFourierFeatureMapper(2, 4, seed=3)
    kernel = tf.contrib.kernel_methods.KernelLinearClassifier(
        model_dir=str(tmp_path / "k"), n_classes=3,
        kernel_mappers={tf.contrib.layers.real_valued_column("x", 2): [mapper]})
    kernel.fit(input_fn=lambda: ({"x": tf.constant(x)}, tf.constant(np.arange(20) % 3)),
               steps=1)
    assert [n for n in kernel.get_variable_names() if n.endswith("Ftrl")] == [
        "linear/bias_weight/near/bias_weight/part_0/Ftrl",
        "linear/x_MAPPED/weight//x_MAPPED/weight/part_0/Ftrl"]
