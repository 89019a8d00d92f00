"""Error parity, sixth session: the errors TF 1.x programs meet most.

Each expected class, phase (graph construction or Session.run) and message fragment below was
observed by running the same snippet under real TensorFlow 2.21 in compat.v1 mode
(``import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()``); the tests need only tideflow.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_assert_rank_static_message_keeps_tf115s_prefix():
    # TF 1.15: ValueError ".  Tensor zeros:0 must have rank 3.  Received rank 2, shape (2, 3)".
    with pytest.raises(ValueError) as e:
        tf.assert_rank(tf.zeros([2, 3], name="zeros"), 3)
    assert str(e.value).startswith(".  Tensor zeros:0 must have rank 3.  Received rank 2")
    with pytest.raises(ValueError, match=r"^mine\.  Tensor z:0 must have rank 1"):
        tf.assert_rank(tf.zeros([2, 3], name="z"), 1, message="mine")


def test_assert_type_names_expected_dtype():
    # TF 1.15: TypeError "  Const:0 must be of type <dtype: 'float32'>".
    with pytest.raises(TypeError) as e:
        tf.assert_type(tf.constant(1, name="Const"), tf.float32)
    assert str(e.value) == "  Const:0 must be of type <dtype: 'float32'>"


@pytest.mark.parametrize("exc,cls", [
    (KeyError("kk"), tf.errors.UnknownError),          # TF 2.21: UnknownError "KeyError: 'kk'"
    (RuntimeError("boom"), tf.errors.UnknownError),
    (ValueError("bad"), tf.errors.InvalidArgumentError),
    (NotImplementedError("ni"), tf.errors.UnimplementedError),
])
def test_generator_exception_maps_class_like_py_func(exc, cls):
    def gen():
        yield 1
        raise exc

    ds = tf.data.Dataset.from_generator(gen, tf.int32)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(nxt) == 1
        with pytest.raises(cls) as e:
            sess.run(nxt)
    assert type(exc).__name__ + ":" in str(e.value)
    assert str(exc.args[0]) in str(e.value)


def _saved_checkpoint(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="a")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, str(tmp_path / "m"))


@pytest.mark.parametrize("which", ["dir", ".meta", ".data-00000-of-00001", "checkpoint"])
def test_restore_from_a_path_that_is_not_a_prefix_is_data_loss(tmp_path, which):
    # TF 2.21: Saver.restore(sess, <a directory / the .meta file / ...>) raises DataLossError
    # "Unable to open table file <path>: ...: perhaps your file is in a different file format".
    prefix = _saved_checkpoint(tmp_path)
    path = {"dir": str(tmp_path), "checkpoint": str(tmp_path / "checkpoint")}.get(
        which, prefix + which)
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError) as e:
        saver.restore(sess, path)
    assert f"Unable to open table file {path}:" in str(e.value)
    assert ("Is a directory" in str(e.value)) == (which == "dir")


def test_restore_from_a_missing_prefix_is_still_a_value_error(tmp_path):
    # TF 1.15: ValueError "The passed save_path is not a valid checkpoint: <path>"; when the
    # prefix's folder is missing, NotFoundError "<folder>; No such file or directory".
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    missing = str(tmp_path / "m")
    with tf.Session() as sess, pytest.raises(
            ValueError, match="The passed save_path is not a valid checkpoint"):
        saver.restore(sess, missing)
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError) as e:
        saver.restore(sess, str(tmp_path / "nothere" / "m"))
    assert str(e.value) == f"{tmp_path / 'nothere'}; No such file or directory"


@pytest.mark.parametrize("pool,op", [("max_pool", "MaxPool"), ("avg_pool", "AvgPool")])
def test_2d_pool_of_a_rank3_input_names_the_rank(pool, op):
    # TF 2.21: ValueError "Shape must be rank 4 but is rank 3 for '{{node MaxPool}} = ...' with
    # input shapes: [5,5,3]." (a 4-long ksize asks for the 2-D pool; not a 1-D pool's length error)
    with pytest.raises(ValueError, match=rf"Shape must be rank 4 but is rank 3 for '{op}'") as e:
        getattr(tf.nn, pool)(tf.zeros([5, 5, 3]), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    assert "[5,5,3]" in str(e.value)
    # A 1-D window on the same rank-3 input still pools over the middle axis.
    assert getattr(tf.nn, pool)(tf.zeros([2, 8, 3]), 2, 2, "SAME").shape.as_list() == [2, 4, 3]


def test_conv2d_depth_mismatch_names_both_depths():
    # TF 2.21: ValueError "Depth of input (3) is not a multiple of input depth of filter (4) for
    # '{{node Conv2D}} = Conv2D[...]' with input shapes: [1,5,5,3], [3,3,4,8]."
    with pytest.raises(ValueError, match=r"Depth of input \(3\) is not a multiple of input depth "
                                         r"of filter \(4\) for 'Conv2D'.*\[1,5,5,3\], \[3,3,4,8\]"):
        tf.nn.conv2d(tf.zeros([1, 5, 5, 3]), tf.zeros([3, 3, 4, 8]), [1, 1, 1, 1], "SAME")
    # At run time (fed shapes): InvalidArgumentError naming both depths.
    x = tf.placeholder(tf.float32, [None, None, None, None])
    y = tf.nn.conv2d(x, tf.zeros([3, 3, 4, 8]), [1, 1, 1, 1], "SAME")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="3 vs 4"):
        sess.run(y, {x: np.zeros((1, 5, 5, 3))})


@pytest.mark.parametrize("cond,then,else_,msg", [
    # Each message observed from TF 2.21 compat.v1 for tf.where(c, x, y, name="sel") at run time.
    ([True, False], [1., 2.], [1., 2., 3.],
     ("Inputs to operation sel of type Select must have the same size and shape.  "
     "Input 0: [2] != input 2: [3]")),
    ([True, False], np.zeros((2, 2)), np.zeros((2, 3)),
     "'then' and 'else' must have the same size.  but received: [2,2] vs. [2,3]"),
    ([True, False, True], np.zeros((2, 2)), np.zeros((2, 2)),
     "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3"),
    (True, [1., 2.], [1.], "'then' and 'else' must have the same size.  but received: [2] vs. [1]"),
    ([[True, False]], np.zeros((1, 2)), np.zeros((2, 1)),
     ("Inputs to operation sel of type Select must have the same size and shape.  "
     "Input 0: [1,2] != input 2: [2,1]")),
    ([True], 1.0, 2.0, "'then' must be at least a vector, but saw shape: []"),
])
def test_where_v1_run_time_shape_errors(cond, then, else_, msg):
    c = tf.placeholder(tf.bool)
    x = tf.placeholder(tf.float64)
    y = tf.placeholder(tf.float64)
    w = tf.where(c, x, y, name="sel")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            sess.run(w, {c: cond, x: then, y: else_})
        assert str(e.value).startswith(msg)
        assert sess.run(w, {c: [True, False], x: [1., 2.], y: [3., 4.]}).tolist() == [1., 4.]
        assert sess.run(w, {c: [True, False], x: np.ones((2, 2)), y: np.zeros((2, 2))}).tolist() \
            == [[1., 1.], [0., 0.]]


@pytest.mark.parametrize("src,dst,msg", [
    # TF 2.21: UnimplementedError at Session.run, with TF's type names ("float", not "float32").
    (["1.0"], tf.float32, "Cast string to float is not supported"),
    (["1"], tf.int32, "Cast string to int32 is not supported"),
    ([1.5], tf.string, "Cast double to string is not supported"),
])
def test_cast_to_or_from_string_is_unimplemented_at_run(src, dst, msg):
    c = tf.cast(tf.constant(np.array(src)), dst)
    with tf.Session() as sess, pytest.raises(tf.errors.UnimplementedError, match=msg):
        sess.run(c)


def test_variable_with_a_tensor_initializer_inside_a_loop_or_branch():
    # TF 2.21: ValueError "Initializer for variable while/Variable/ is from inside a control-flow
    # construct, such as a loop or conditional. When creating a variable inside a loop or
    # conditional, use a lambda as the initializer." (cond: "cond/Variable/")
    def body(i):
        tf.Variable(tf.zeros([1]))
        return i + 1

    with pytest.raises(ValueError, match=r"^Initializer for variable while/Variable/ is from "
                                         r"inside a control-flow construct.*use a lambda"):
        tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    with pytest.raises(ValueError, match=r"^Initializer for variable cond/Variable/ is from "):
        tf.cond(tf.placeholder(tf.bool), lambda: tf.Variable(tf.zeros([1])) + 1.0,
                lambda: tf.zeros([1]))


def test_variable_with_a_lambda_initializer_inside_a_loop_still_works():
    # TF 2.21 runs these: the lambda (or an initializer object) is evaluated outside the loop.
    def body(i):
        v = tf.Variable(lambda: tf.ones([1]))
        w = tf.get_variable("w", [1], initializer=tf.ones_initializer())
        return i + tf.cast(v[0] + w[0], tf.int32)

    outside = tf.ones([1])
    r = tf.while_loop(lambda i: i < 5, body, [tf.constant(0)])
    u = tf.cond(tf.constant(True), lambda: tf.Variable(outside) + 1.0, lambda: tf.zeros([1]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(r) == 6
        assert sess.run(u).tolist() == [2.0]


def test_gradients_with_respect_to_a_tensor_of_another_graph():
    # TF 1.15: ValueError 'Tensor("Const:0", ...) must be from the same graph as
    # Tensor("mul:0", ...).'
    with tf.Graph().as_default():
        x = tf.constant(1.0)
    y = tf.constant(2.0) * 3.0
    with pytest.raises(ValueError, match=r'Tensor\("Const:0".*must be from the same graph as '
                                         r'Tensor\("mul:0"'):
        tf.gradients(y, x)


@pytest.mark.parametrize("make,msg", [
    # TF 1.15's words (TF 2 adds the pattern the name failed)
    (lambda: tf.get_variable("bad name!", [2]), "'bad name!' is not a valid scope name"),
    (lambda: tf.name_scope("a b").__enter__(), "'a b' is not a valid scope name"),
])
def test_invalid_scope_names_show_the_pattern(make, msg):
    with pytest.raises(ValueError) as e:
        make()
    assert str(e.value) == msg


def test_invalid_nested_scope_name():
    with tf.name_scope("a"), pytest.raises(
            ValueError, match=r"^'b c' is not a valid scope name$"):
        tf.name_scope("b c").__enter__()


def test_sparse_tensor_checks_its_components_shapes():
    # TF 2.21: ValueError "Dimensions 2 and 1 are not compatible" at construction, for an index
    # row longer than dense_shape and for more index rows than values.
    with pytest.raises(ValueError, match="Dimensions 2 and 1 are not compatible"):
        tf.SparseTensor([[0, 0]], [1.0], [2])
    with pytest.raises(ValueError, match="Dimensions 2 and 1 are not compatible"):
        tf.SparseTensor([[0], [1]], [1.0], [2])
    sp = tf.SparseTensor([[0, 1]], [1.0], [2, 2])
    assert sp.indices.shape.as_list() == [1, 2]
    with tf.Session() as sess:
        assert sess.run(tf.sparse_tensor_to_dense(sp)).tolist() == [[0.0, 1.0], [0.0, 0.0]]


def test_constant_of_tensors_is_a_type_error():
    # TF 1.15 (the authority; TF 2.x reworded it): TypeError "List of Tensors when single
    # Tensor expected" for both.
    t = tf.placeholder(tf.float32, [None, 3])
    for value in ([tf.constant(1.0)], t):
        with pytest.raises(TypeError, match="^List of Tensors when single Tensor expected$"):
            tf.constant(value)
    assert tf.convert_to_tensor([tf.constant(1.0), 2.0]).shape.as_list() == [2]


def test_zeros_of_a_shape_list_with_none():
    # TF 1.15: TypeError "Expected int32, got None of type 'NoneType' instead." for a list with
    # None; ValueError "Cannot convert a partially known TensorShape to a Tensor: (?, 3)" for a
    # partially known TensorShape.
    with pytest.raises(TypeError, match=r"^Expected int32, got None of type 'NoneType' instead"):
        tf.zeros([None, 3])
    with pytest.raises(TypeError, match=r"^Expected int32, got None"):
        tf.ones((None,))
    t = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match=r"partially known TensorShape to a Tensor: \(\?, 3\)"):
        tf.zeros(t.shape)
    with tf.Session() as sess:
        assert sess.run(tf.zeros(tf.shape(t)), {t: np.ones((2, 3))}).shape == (2, 3)


def _keras_dense(loss, units=2, activation=None):
    m = tf.keras.Sequential([tf.keras.layers.Dense(units, input_shape=(3,),
                                                   activation=activation)])
    m.compile("sgd", loss)
    return m


def test_keras_fit_input_shape_error_shows_the_sample_shape():
    # TF 2.21 (tf_keras, graph mode): ValueError "Error when checking input: expected
    # dense_input to have shape (3,) but got array with shape (5,)".
    m = _keras_dense("mse")
    with pytest.raises(ValueError, match=r"^Error when checking input: expected \w+ to have "
                                         r"shape \(3,\) but got array with shape \(5,\)$"):
        m.fit(np.zeros((4, 5)), np.zeros((4, 2)), verbose=0)


@pytest.mark.parametrize("loss,name", [("mse", "mean_squared_error"),
                                       ("binary_crossentropy", "binary_crossentropy")])
def test_keras_target_shape_error_names_the_loss(loss, name):
    # TF 2.21: ValueError "A target array with shape (4, 5) was passed for an output of shape
    # (None, 2) while using as loss `mean_squared_error`. This loss expects targets to have the
    # same shape as the output."
    m = _keras_dense(loss)
    with pytest.raises(ValueError) as e:
        m.fit(np.zeros((4, 3)), np.zeros((4, 5)), verbose=0)
    assert str(e.value) == (
        f"A target array with shape (4, 5) was passed for an output of shape (None, 2) while "
        f"using as loss `{name}`. This loss expects targets to have the same shape as the "
        f"output.")


def test_keras_categorical_crossentropy_with_integer_targets():
    # TF 2.21: ValueError "You are passing a target array of shape (4, 1) while using as loss
    # `categorical_crossentropy`. ... `sparse_categorical_crossentropy` instead ..."
    m = _keras_dense("categorical_crossentropy", units=3, activation="softmax")
    with pytest.raises(ValueError, match=r"^You are passing a target array of shape \(4, 1\) "
                                         r"while using as loss `categorical_crossentropy`") as e:
        m.fit(np.zeros((4, 3)), np.array([0, 1, 2, 0]), verbose=0)
    assert "sparse_categorical_crossentropy" in str(e.value)
    # one-hot targets train
    m.fit(np.zeros((4, 3)), np.eye(3)[[0, 1, 2, 0]], verbose=0)


def test_gather_of_an_out_of_range_scalar_index():
    # TF 2.21: InvalidArgumentError "indices = 5 is not in [0, 2)" (a scalar index: no [..]),
    # "indices[1] = 5 is not in [0, 3)" for a vector.
    p = tf.placeholder(tf.int32)
    g = tf.gather(tf.constant([1., 2.]), p)
    v = tf.gather(tf.constant([1., 2., 3.]), p)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^indices = 5 is not in \[0, 2\)"):
            sess.run(g, {p: 5})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^indices\[1\] = 5 is not in \[0, 3\)"):
            sess.run(v, {p: [0, 5]})


def test_padded_batch_to_a_smaller_size_is_data_loss():
    # TF 2.21: DataLossError "Attempted to pad to a smaller size than the input element."
    ds = tf.data.Dataset.from_generator(lambda: iter([[1, 2, 3]]), tf.int32,
                                        tf.TensorShape([None])).padded_batch(2, padded_shapes=[2])
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess, pytest.raises(
            tf.errors.DataLossError, match="Attempted to pad to a smaller size than the input"):
        sess.run(nxt)


def test_set_shape_conflicts_use_tf_words():
    # TF 2.21: ValueError "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are
    # [2,3] and [3,2]." and "Shapes must be equal rank, but are 1 and 2".
    with pytest.raises(ValueError) as e:
        tf.zeros([2, 3]).set_shape([3, 2])
    assert str(e.value) == ("Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes "
                            "are [2,3] and [3,2].")
    p = tf.placeholder(tf.float32, [None])
    with pytest.raises(ValueError, match="^Shapes must be equal rank, but are 1 and 2$"):
        p.set_shape([2, 2])
    q = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match=r"Dimension 1 in both .* are 3 and 4\. Shapes are "
                                         r"\[\?,3\] and \[2,4\]\."):
        q.set_shape([2, 4])
    q.set_shape([2, None])
    assert q.shape.as_list() == [2, 3]


def test_session_config_must_be_a_config_proto():
    # TF 2.21: TypeError 'Argument `config` must be a tf.ConfigProto, but got "str"' (TF 1.x:
    # "config must be a tf.ConfigProto, but got <class 'str'>").
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto, but got"):
        tf.Session(config="x")
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(tf.constant(2.0)) == 2.0


def test_fill_and_range_run_time_errors():
    # TF 2.21: InvalidArgumentError "Dimension -2 must be >= 0" (Fill of a fed shape),
    # "Requires delta != 0: 0" and "Requires start <= limit when delta > 0: 5/1".
    dims = tf.placeholder(tf.int32)
    delta = tf.placeholder(tf.float32)
    limit = tf.placeholder(tf.float32)
    z = tf.zeros(dims)
    r = tf.range(0.0, 1.0, delta)
    r2 = tf.range(5.0, limit)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Dimension -2 must be >= 0"):
            sess.run(z, {dims: [-2, 3]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Requires delta != 0: 0\n"):
            sess.run(r, {delta: 0.0})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Requires start <= limit when delta > 0: 5/1\n"):
            sess.run(r2, {limit: 1.0})
        assert sess.run(r, {delta: 0.5}).tolist() == [0.0, 0.5]


def test_dynamic_rnn_checks_the_length_of_sequence_length_at_run_time():
    # TF 2.21 compat.v1: InvalidArgumentError from the CheckSeqLen assert, with this message
    x = tf.placeholder(tf.float32, [None, 5, 3])
    lengths = tf.placeholder(tf.int32, [None])
    out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), x, sequence_length=lengths,
                               dtype=tf.float32)
    assert any(op.name == "rnn/CheckSeqLen" for op in tf.get_default_graph().get_operations())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(out, {x: np.ones((2, 5, 3)), lengths: [2, 5]}).shape == (2, 5, 4)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Expected shape for Tensor rnn/sequence_length:0 is \] \[2\] "
                                 r"\[ but saw shape: \] \[3\]"):
            sess.run(out, {x: np.ones((2, 5, 3)), lengths: [2, 5, 1]})
