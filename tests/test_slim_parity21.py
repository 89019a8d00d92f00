"""TF-Slim programs (arg scopes, the nets, slim.learning, restoring, metrics, the data
provider) run against TF 1.15: what its train loop adds to the graph and hands its step
function, and the files and events it writes."""

import glob
import os

import numpy as np
import pytest

import tideflow as tf

slim = tf.contrib.slim


def _linear_train_op(num_epochs=None):
    rng = np.random.RandomState(7)
    xs = rng.randn(12, 3).astype(np.float32)
    ys = xs @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    x, y = tf.train.slice_input_producer([tf.constant(xs), tf.constant(ys)],
                                         num_epochs=num_epochs, shuffle=False)
    xb, yb = tf.train.batch([x, y], batch_size=4)
    pred = slim.fully_connected(xb, 1, activation_fn=None,
                                weights_initializer=tf.zeros_initializer(), scope="lin")
    loss = tf.losses.mean_squared_error(yb, pred)
    return slim.learning.create_train_op(loss, tf.train.GradientDescentOptimizer(0.1))


def test_train_hands_the_step_function_tf_flag_tensors_and_stops_at_the_input_end(tmp_path):
    # TF 1.15: train_step_kwargs holds should_stop/should_log/should_trace tensors, logdir
    # and the summary writer; two epochs of 12 rows in batches of 4 end after 6 steps
    # (OutOfRangeError stops the loop, the model is saved at step 6)
    logdir = str(tmp_path)
    seen = []

    def step_fn(sess, train_op, global_step, kwargs):
        seen.append(sorted(kwargs))
        loss, stop = slim.learning.train_step(sess, train_op, global_step, kwargs)
        seen.append((float(loss), type(stop)))
        return loss, stop

    with tf.Graph().as_default() as g:
        train_op = _linear_train_op(num_epochs=2)
        final = slim.learning.train(train_op, logdir, train_step_fn=step_fn,
                                    number_of_steps=100, save_summaries_secs=1000,
                                    trace_every_n_steps=2, log_every_n_steps=3)
        names = [op.name for op in g.get_operations()]
    keys = ["logdir", "should_log", "should_stop", "should_trace", "summary_writer"]
    assert seen[0] == keys and len(seen) == 13
    # TF 1.15's losses, step by step; should_stop comes back as a NumPy bool
    np.testing.assert_allclose([s[0] for s in seen[1::2]],
                               [7.54144, 2.8812, 4.86465, 0.07139, 0.28105, 0.56152], rtol=1e-4)
    assert {s[1] for s in seen[1::2]} == {np.bool_}
    assert final == pytest.approx(0.56152, rel=1e-4)
    assert "train_step/GreaterEqual" in names and "train_step/Equal_1" in names
    assert "train_step/FloorMod" in names
    assert "init_ops/init" in names and "init_ops/group_deps" in names
    assert "init_ops/report_uninitialized_variables/IsVariableInitialized" in names
    assert "init" not in names and "report_uninitialized_variables/stack" not in names
    assert sorted(os.listdir(logdir)) == [
        "checkpoint", *[f for f in os.listdir(logdir) if f.startswith("events")],
        "graph.pbtxt", *[f"model.ckpt-{s}.{e}" for s in (0, 6)
                         for e in ("data-00000-of-00001", "index", "meta")],
        "tf_trace-1.json", "tf_trace-3.json", "tf_trace-5.json"]
    # the traced steps' RunMetadata go to the event file too
    tags = [(e.step, e.tagged_run_metadata.tag)
            for e in tf.train.summary_iterator(glob.glob(logdir + "/events*")[0])
            if e.HasField("tagged_run_metadata")]
    assert tags == [(0, "run_metadata-1"), (0, "run_metadata-3"), (0, "run_metadata-5")]


def test_train_builds_tf_init_ops_and_leaves_the_collections_alone(tmp_path):
    # TF 1.15 makes its Saver first, then init_ops/{init, report_uninitialized_variables,
    # init_1, init_all_tables, group_deps}, then train_step/GreaterEqual; the Supervisor gets
    # them explicitly, so the init_op/ready_op/local_init_op collections stay empty
    with tf.Graph().as_default() as g:
        train_op = slim.learning.create_train_op(tf.square(tf.Variable(1.0, name="w")),
                                                 tf.train.GradientDescentOptimizer(0.1))
        n0 = len(g.get_operations())
        slim.learning.train(train_op, str(tmp_path), number_of_steps=2,
                            save_summaries_secs=1000, log_every_n_steps=0)
    added = [op.name for op in g.get_operations()[n0:] if not op.name.startswith("save/")]
    assert added[0] == "init_ops/init"
    assert added[-5:] == ["init_ops/init_1", "init_ops/init_all_tables", "init_ops/group_deps",
                          "train_step/GreaterEqual/y", "train_step/GreaterEqual"]
    assert g.get_operation_by_name("init_ops/group_deps").control_inputs[1].name == (
        "init_ops/init_all_tables")
    assert sorted(g.get_all_collection_keys()) == [
        "global_step", "train_op", "trainable_variables", "variables"]


@pytest.mark.parametrize("steps", [0, -1])
def test_train_rejects_a_non_positive_number_of_steps(steps):
    # TF 1.15 checks this before touching the graph
    with tf.Graph().as_default():
        train_op = slim.learning.create_train_op(tf.square(tf.Variable(1.0)),
                                                 tf.train.GradientDescentOptimizer(0.1))
        with pytest.raises(ValueError, match="^`number_of_steps` must be either None or a "
                                             "positive number.$"):
            slim.learning.train(train_op, None, number_of_steps=steps)


def test_train_without_logdir_still_makes_a_saver_and_wraps_the_session():
    # TF 1.15: ``saver = saver or Saver()`` whatever the logdir; session_wrapper wraps the
    # managed session before the loop
    wrapped = []

    def wrapper(sess):
        wrapped.append(type(sess).__name__)
        return sess

    with tf.Graph().as_default() as g:
        train_op = slim.learning.create_train_op(tf.square(tf.Variable(2.0, name="v")),
                                                 tf.train.GradientDescentOptimizer(0.25))
        slim.learning.train(train_op, None, number_of_steps=3, session_wrapper=wrapper)
        names = [op.name for op in g.get_operations()]
    assert "save/SaveV2" in names and wrapped == ["Session"]


def test_train_step_ignores_keys_tf_does_not_read():
    # TF 1.15's train_step reads only should_trace/logdir/should_log/should_stop: a
    # number_of_steps key does not stop it, and without should_stop it returns False
    with tf.Graph().as_default(), tf.Session() as sess:
        gs = tf.train.get_or_create_global_step()
        train_op = slim.learning.create_train_op(tf.square(tf.Variable(1.0)),
                                                 tf.train.GradientDescentOptimizer(0.1))
        sess.run(tf.global_variables_initializer())
        out = slim.learning.train_step(sess, train_op, gs, {"number_of_steps": 1})
        assert out[1] is False
        with pytest.raises(ValueError, match="logdir must be present in train_step_kwargs"):
            slim.learning.train_step(sess, train_op, gs, {"should_trace": tf.constant(True)})


def test_slim_learning_gradient_summaries_are_named_with_a_slash():
    # TF 1.15: slim.learning.add_gradients_summaries names them 'w/gradient' and
    # 'w/gradient_norm'; tf.contrib.training's (which create_train_op uses) 'w_gradient'
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        u = tf.Variable(0.0, name="u")
        grads = [(tf.constant([3.0, 4.0]), w), (None, u)]
        slim_ops = slim.learning.add_gradients_summaries(grads)
        training_ops = tf.contrib.training.add_gradients_summaries(grads)
        assert [t.name for t in slim_ops] == ["w/gradient:0", "w/gradient_norm:0"]
        assert [t.name for t in training_ops] == ["w_gradient:0", "w_gradient_norm:0"]
        with tf.Session() as sess:
            summ = tf.Summary.FromString(sess.run(slim_ops[1]))
        assert summ.value[0].tag == "w/gradient_norm" and summ.value[0].simple_value == 5.0


@pytest.mark.parametrize("normalizer, names, n_ops", [
    (None, ["cs/weights", "cs/biases"], 15), ("bn", ["cs/weights"], 11)])
def test_conv2d_rate_with_stride_fails_after_its_variables(normalizer, names, n_ops):
    # TF 1.15's core Conv2D layer builds its weights (and biases) and only then, making its
    # convolution, raises; the graph keeps those variables (15 and 11 ops)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 9, 9, 3])
        with pytest.raises(ValueError, match="^strides > 1 not supported in conjunction with "
                                             "dilation_rate > 1$"):
            slim.conv2d(x, 4, 3, stride=[1, 2], rate=[2, 1], scope="cs",
                        normalizer_fn=slim.batch_norm if normalizer else None)
        assert [v.op.name for v in tf.global_variables()] == names
        assert len(g.get_operations()) == n_ops


def test_slim_utils_is_contrib_layers_utils_with_tf_dimension_helpers():
    # TF 1.15: slim.utils is tensorflow.contrib.layers.python.layers.utils, with
    # channel_dimension/last_dimension/_get_dimension; their messages as printed there
    from tideflow.contrib.layers.python.layers import utils

    shape = tf.TensorShape
    assert slim.utils is utils
    assert utils.channel_dimension(shape([2, 3, 4]), "channels_first") == 3
    assert utils.channel_dimension(shape([2, 3, 4]), "channels_last") == 4
    assert utils._get_dimension(shape([4, 5, 6]), 1) == 5
    for call, message in [
            (lambda: utils.last_dimension(shape([3, None])),
             "dimension -1 of shape must be known but is None: (3, ?)"),
            (lambda: utils.channel_dimension(shape([2, None, 4]), "channels_first", 2),
             "dimension 1 of shape must be known but is None: (2, ?, 4)"),
            (lambda: utils.channel_dimension(shape([2]), "NCHW", 3),
             "rank of shape must be at least 3 not: 1")]:
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == message


def test_n_positive_integers_follows_tf_1_15():
    # TF 1.15's conversions and messages (int() truncates, a str converts)
    from tideflow.contrib.layers.python.layers import utils

    assert utils.n_positive_integers(2, 1.5) == (1, 1)
    assert utils.n_positive_integers(2, "7") == (7, 7)
    for n, value, message in [
            (2, -1, "expected positive integer, but received -1"),
            (1, [0], "expected positive integer, but received 0"),
            (1, [1, 2], "Expected sequence of 1 positive integers, but received [1, 2]"),
            (2, "ab", "Expected sequence of 2 positive integers, but received 'ab'"),
            (3.3, [1], "n must be a positive integer"),
            (3, tf.TensorShape(None), "Cannot take the length of shape with unknown rank.")]:
        with pytest.raises(ValueError) as e:
            utils.n_positive_integers(n, value)
        assert str(e.value) == message


def test_dropout_and_conv2d_transpose_op_names_in_nested_scopes():
    # TF 1.15's core layer first takes the snake case of its scope's last part, so under
    # "d0/Dropout" tf.nn.dropout's ops go to "dropout_1", under "d0/Dropout_1" to "dropout"
    with tf.Graph().as_default():
        x = tf.ones([2, 4, 4, 3])
        with tf.variable_scope("d0"):
            names = [slim.dropout(x, 0.5).name, slim.dropout(x, 0.5).name,
                     slim.dropout(x, 0.5, scope="q").name]
        with tf.variable_scope("vs"):
            slim.conv2d_transpose(x, 2, 3, stride=2)
            slim.conv2d_transpose(x, 2, 3, stride=2, scope="up")
        ops = [op.name for op in tf.get_default_graph().get_operations()
               if op.type == "Conv2DBackpropInput"]
    assert names == ["d0/Dropout/dropout_1/mul_1:0", "d0/Dropout_1/dropout/mul_1:0",
                     "d0/q/dropout/mul_1:0"]
    assert ops == ["vs/Conv2d_transpose/conv2d_transpose_1", "vs/up/conv2d_transpose"]


def test_core_layer_backed_slim_layers_scoped_as_their_op():
    # TF 1.15: a scope named as the layer's op makes the op "<op>_1" (names match whatever
    # their case); the default scopes do not collide
    with tf.Graph().as_default() as g:
        x = tf.ones([2, 6, 6, 3])
        slim.separable_conv2d(x, 4, 3)
        with tf.variable_scope("v"):
            slim.separable_conv2d(x, 4, 3, scope="separable_conv2d")
            slim.conv2d(x, 4, 3, scope="Conv2D")
            slim.fully_connected(tf.ones([2, 3]), 4, scope="MatMul")
            slim.fully_connected(tf.ones([2, 3]), 4)
        names = [op.name for op in g.get_operations()
                 if op.type in ("Conv2D", "MatMul") or op.name.endswith("separable_conv2d")
                 or op.name.endswith("separable_conv2d_1")]
    assert names == ["SeparableConv2d/separable_conv2d",
                     "v/separable_conv2d/separable_conv2d_1", "v/Conv2D/Conv2D_1",
                     "v/MatMul/MatMul_1", "v/fully_connected/MatMul"]


def test_dropout_noise_shape_is_built_as_tf_keras_dropout_builds_it():
    # TF 1.15 (Keras Dropout): "Shape" then the noise shape as one tensor ("Const", or
    # "packed" around the input's sizes where the list holds None); the mask is TF's
    with tf.Graph().as_default() as g:
        x = tf.constant(np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4))
        y = slim.dropout(x, 0.5, noise_shape=[2, 1, 1, 4], seed=3)
        z = slim.dropout(tf.ones([2, 2, 3, 4]), 0.6, noise_shape=[None, 1, 3, 1], seed=4)
        names = [op.name for op in g.get_operations()]
        with tf.Session() as sess:
            yv, zv = sess.run([y, z])
    assert names[1:3] == ["Dropout/Shape", "Dropout/Const"]
    assert "Dropout_1/packed" in names and "Dropout/dropout_1/random_uniform/shape" not in names
    np.testing.assert_array_equal(yv.reshape(-1, 4)[0], [0.0, 0.0, 4.0, 0.0])
    np.testing.assert_array_equal(yv[1, 0, 0], [48.0, 0.0, 0.0, 0.0])
    np.testing.assert_allclose(zv[:, 0, :, 0], [[5 / 3, 0, 5 / 3], [5 / 3, 0, 0]],
                               rtol=1e-6)


def test_repeated_image_over_a_var_len_feature_raises_map_fn_sparse_error():
    # TF 1.15: Image(repeated=True) maps over the parsed feature; a VarLenFeature's
    # SparseTensor makes tf.map_fn raise this TypeError
    tfd = slim.tfexample_decoder
    with tf.Graph().as_default():
        ex = tf.train.Example(features=tf.train.Features(feature={
            "pngs": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x"]))}))
        decoder = tfd.TFExampleDecoder(
            {"pngs": tf.VarLenFeature(tf.string),
             "fmt": tf.FixedLenFeature((), tf.string, default_value="png")},
            {"images": tfd.Image("pngs", "fmt", repeated=True)})
        with pytest.raises(TypeError) as e:
            decoder.decode(tf.constant(ex.SerializeToString()), ["images"])
    assert str(e.value) == (
        "To perform a map on the values of a sparse tensor use either  SparseTensor("
        "input.indices, fn(input.values), input.dense_shape) or  SparseTensor(input.indices, "
        "map_fn(fn, input.values), input.dense_shape)")
