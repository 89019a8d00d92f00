"""Patterns from the sweep of three TF 1.x tutorial repositories (the Stanford CS20 course
examples and assignments, and two tutorial collections: basics, word2vec, autoencoders, GANs,
RNNs, seq2seq, Inception retraining, DQN), each written here as a small self-contained
program; values are checked against NumPy or hand-derived numbers."""

import numpy as np

import tideflow as tf


def test_python_framework_graph_util_freezes_and_reimports(tmp_path):
    # The Inception retrain/label_image programs do
    # `from tensorflow.python.framework import graph_util` to freeze the trained graph,
    # write it, then read it back with tf.import_graph_def.
    from tideflow.python.framework import graph_io, graph_util, importer

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="input")
        w = tf.Variable([[2.0], [-1.0]], name="w")
        b = tf.Variable([0.5], name="b")
        tf.nn.softmax(tf.concat([tf.matmul(x, w) + b, tf.zeros_like(b)[None, :] + 0 * x[:, :1]],
                                1), name="final_result")
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            frozen = graph_util.convert_variables_to_constants(sess, g.as_graph_def(),
                                                               ["final_result"])
    assert not any(n.op in ("VariableV2", "Variable") for n in frozen.node)
    path = graph_io.write_graph(frozen, str(tmp_path), "frozen.pb", as_text=False)
    gd = tf.GraphDef()
    with open(path, "rb") as f:
        gd.ParseFromString(f.read())
    g2 = tf.Graph()
    with g2.as_default():
        importer.import_graph_def(gd, name="")
        with tf.Session(graph=g2) as sess:
            out = sess.run("final_result:0", {"input:0": [[1.0, 1.0], [0.0, 3.0]]})
    # logits: [x.w + b, 0] = [[1.5, 0], [-2.5, 0]]
    z = np.array([[1.5, 0.0], [-2.5, 0.0]])
    want = np.exp(z) / np.exp(z).sum(1, keepdims=True)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    import tideflow.python.framework.graph_util as gu_mod
    assert gu_mod is graph_util


def test_realdiv_of_integers_runs_on_xla_cpu():
    # CS20's lecture-2 division example leaves tf.realdiv(int, int) commented out: TF
    # registers CPU RealDiv kernels for floating and complex types only, but TF 1.15 places
    # an int32 one on its XLA_CPU device, which truncates: [[0 0] [1 1]] there.
    # tf.div / tf.truncatediv / tf.divide work too.
    b = tf.constant([[0, 1], [2, 3]])
    a = tf.constant([2, 2])
    r = tf.realdiv(b, a)
    assert r.dtype == tf.int32 and r.shape.as_list() == [2, 2]
    with tf.Session() as sess:
        assert sess.run(r).tolist() == [[0, 0], [1, 1]]
        bv, av = np.array([[0, 1], [2, 3]]), np.array([2, 2])
        np.testing.assert_array_equal(sess.run(tf.div(b, a)), bv // av)
        np.testing.assert_array_equal(sess.run(tf.truncatediv(b, a)), bv // av)
        np.testing.assert_allclose(sess.run(tf.divide(b, a)), bv / av)
        np.testing.assert_allclose(sess.run(tf.realdiv(tf.cast(b, tf.float32), 2.0)),
                                   bv / 2.0)


def test_models_rnn_cells_keep_0x_concatenated_state():
    # nlintz's 0.x LSTM tutorial: `from tensorflow.models.rnn import rnn, rnn_cell`,
    # BasicLSTMCell(n, forget_bias=1.0) and an initial state fed as a [None, 2n] placeholder.
    # In the 0.x releases (the only ones with this module) LSTM cells and MultiRNNCell
    # defaulted to state_is_tuple=False: one [c, h] state whose state_size is an int.
    from tideflow.models.rnn import rnn, rnn_cell

    n, depth, steps, batch = 2, 3, 2, 4
    g = tf.Graph()
    with g.as_default():
        cell = rnn_cell.BasicLSTMCell(n, forget_bias=1.0)
        assert cell.state_size == 2 * n and cell.output_size == n
        assert rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(n)] * 2).state_size == 4 * n
        assert rnn_cell.LSTMCell(n, depth).state_size == 2 * n  # input_size is positional
        xs = [tf.placeholder(tf.float32, [None, depth]) for _ in range(steps)]
        init = tf.placeholder(tf.float32, [None, 2 * n])
        outputs, state = rnn.rnn(cell, xs, initial_state=init)
        assert state.shape.as_list() == [None, 2 * n]
        kernel, bias = tf.trainable_variables()
        rng = np.random.RandomState(0)
        kv = rng.randn(depth + n, 4 * n).astype(np.float32) * 0.5
        bv = rng.randn(4 * n).astype(np.float32) * 0.1
        xv = [rng.randn(batch, depth).astype(np.float32) for _ in range(steps)]
        s0 = rng.randn(batch, 2 * n).astype(np.float32)
        with tf.Session(graph=g) as sess:
            kernel.load(kv, sess)
            bias.load(bv, sess)
            got_out, got_state = sess.run([outputs[-1], state],
                                          {**dict(zip(xs, xv)), init: s0})

    def sig(z):
        return 1 / (1 + np.exp(-z))

    c, h = s0[:, :n].astype(np.float64), s0[:, n:].astype(np.float64)
    for x in xv:
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ kv + bv, 4, axis=1)
        c = c * sig(f + 1.0) + sig(i) * np.tanh(j)
        h = np.tanh(c) * sig(o)
    np.testing.assert_allclose(got_out, h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state, np.concatenate([c, h], 1), rtol=1e-5, atol=1e-6)


def test_assign_of_a_wrong_shape_uses_tf_merge_words():
    # The CS20 style-transfer assignment assigns content/style images to its input variable;
    # a wrongly resized image is a construction-time ValueError in TF's words (its C++
    # shape Merge), naming the first differing dimension.
    v = tf.Variable(np.zeros([1, 4, 5, 3]), dtype=tf.float32)
    assert v.dtype == tf.float32_ref
    try:
        v.assign(np.zeros([1, 4, 4, 3]))
    except ValueError as e:
        assert str(e).startswith("Dimension 2 in both shapes must be equal, but are 5 and 4. "
                                 "Shapes are [1,4,5,3] and [1,4,4,3].")
    else:
        raise AssertionError("mis-shaped assign accepted")
    try:
        v.assign(np.zeros([4, 5, 3]))
    except ValueError as e:
        assert str(e).startswith("Shapes must be equal rank, but are 4 and 3")
    else:
        raise AssertionError("mis-ranked assign accepted")
    with tf.Session() as sess:
        sess.run(v.initializer)
        want = np.full([1, 4, 5, 3], 0.5)
        np.testing.assert_array_equal(sess.run(v.assign(want)), want.astype(np.float32))


def test_name_scope_rejects_a_list_as_default_name():
    # CS20's convolutional-GRU helper writes TF 1.0's `tf.name_scope("saturating_sigmoid", [x])`;
    # since TF 1.14 the list lands in default_name and name_scope raises TypeError.
    x = tf.constant([-2.0, 0.0, 2.0])
    try:
        with tf.name_scope("saturating_sigmoid", [x]):
            pass
    except TypeError as e:
        assert "`default_name` type (<class 'list'>) is not a string type" in str(e)
        assert "values" in str(e)
    else:
        raise AssertionError("list default_name accepted")
    with tf.name_scope("saturating_sigmoid", values=[x]) as scope:
        y = tf.minimum(1.0, tf.maximum(0.0, 1.2 * tf.sigmoid(x) - 0.1))
    assert scope.startswith("saturating_sigmoid")
    with tf.Session() as sess:
        got = sess.run(y)
    want = np.clip(1.2 / (1 + np.exp(-np.array([-2.0, 0.0, 2.0]))) - 0.1, 0, 1)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_reinitializable_iterator_structure_mismatch_is_nest_error():
    # CS20's tf.data lectures build one Iterator.from_structure(train.output_types, ...) and
    # make_initializer for train and test datasets. A dataset with another nesting fails in
    # nest.assert_same_structure (ValueError) before the dtype check; a same-structure dataset
    # of another dtype is TypeError "Expected output types ...".
    xs = np.arange(10, dtype=np.float32).reshape(5, 2)
    train = tf.data.Dataset.from_tensor_slices((xs[:, 0], xs[:, 1])).batch(2)
    it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
    x, y = it.get_next()
    try:
        it.make_initializer(tf.data.Dataset.from_tensor_slices(np.zeros((3, 2), np.float32)))
    except ValueError as e:
        assert "don't have the same nested structure" in str(e)
    else:
        raise AssertionError("structure mismatch accepted")
    ints = tf.data.Dataset.from_tensor_slices((np.zeros(3, np.int32), np.zeros(3, np.int32)))
    try:
        it.make_initializer(ints.batch(2))
    except TypeError as e:
        assert str(e).startswith("Expected output types")
    else:
        raise AssertionError("dtype mismatch accepted")
    test = tf.data.Dataset.from_tensor_slices((xs[:, 1], xs[:, 0])).batch(4)
    with tf.Session() as sess:
        sess.run(it.make_initializer(test))
        bx, by = sess.run([x, y])
    np.testing.assert_array_equal(bx, [1.0, 3.0, 5.0, 7.0])
    np.testing.assert_array_equal(by, [0.0, 2.0, 4.0, 6.0])
