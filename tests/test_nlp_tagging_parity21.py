"""NLP tagging and text-classification programs of TF 1.x (BiLSTM-CRF taggers, Kim CNNs,
char-RNN language models, fastText bags of n-grams) checked against TF 1.15: values, names,
seeds drawn after the models' ops, and error classes and messages."""

import numpy as np
import pytest

import tideflow as tf

crf = tf.contrib.crf


def _uniform_after(build):
    """A graph-seeded ``random_uniform([3])`` made after ``build()``: its seed comes from
    the graph's op count, so it equals TF's only where ``build`` made TF's ops."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        build()
        r = tf.random_uniform([3])
        with tf.Session() as sess:
            return sess.run(r)


def test_crf_likelihood_and_decode_make_tf_ops_so_later_seeds_match():
    # TF 1.15: a one-step smart_cond on Equal(time, 1), three Shape ops in the unary score,
    # TF's masks, Maximum and ReverseSequence ops; the draw after them is TF's
    def static():
        x = tf.placeholder(tf.float32, [2, 4, 3])
        _, tp = crf.crf_log_likelihood(x, tf.zeros([2, 4], tf.int32), tf.constant([4, 2]))
        crf.crf_decode(x, tp, tf.constant([4, 2]))

    def unknown_time():
        x = tf.placeholder(tf.float32, [2, None, 3])
        tags = tf.placeholder(tf.int32, [2, None])
        _, tp = crf.crf_log_likelihood(x, tags, tf.constant([4, 2]))
        crf.crf_decode(x, tp, tf.constant([4, 2]))

    np.testing.assert_allclose(_uniform_after(static), [0.70880544, 0.3776803, 0.87523174],
                               rtol=1e-6)
    np.testing.assert_allclose(_uniform_after(unknown_time),
                               [0.6881621, 0.8683642, 0.16565478], rtol=1e-6)


@pytest.mark.parametrize("fn, want", [
    (lambda x, t, n, tp: crf.crf_log_norm(x, n, tp), [0.6313833, 0.17563283, 0.4513756]),
    (crf.crf_sequence_score, [0.8514228, 0.98616636, 0.38425326]),
    (lambda x, t, n, tp: crf.crf_unary_score(t, n, x), [0.13447082, 0.16743338, 0.00593042]),
    (lambda x, t, n, tp: crf.crf_binary_score(t, n, tp), [0.9897311, 0.41388047, 0.4099027]),
    (lambda x, t, n, tp: crf.crf_multitag_sequence_score(
        x, tf.ones([2, 4, 3], tf.bool), n, tp), [0.30000162, 0.0084722, 0.3797009]),
])
def test_crf_pieces_draw_tf_seeds_after_them(fn, want):
    # TF 1.15's draws after each function alone (tf.set_random_seed(1), static shapes)
    def build():
        fn(tf.placeholder(tf.float32, [2, 4, 3]), tf.zeros([2, 4], tf.int32),
           tf.constant([4, 2]), tf.ones([3, 3]))

    np.testing.assert_allclose(_uniform_after(build), want, rtol=1e-6)


def test_crf_op_names_outside_the_loops_are_tfs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 4, 3])
        ll, tp = crf.crf_log_likelihood(x, tf.zeros([2, 4], tf.int32), tf.constant([4, 2]))
        dec, best = crf.crf_decode(x, tp, tf.constant([4, 2]))
    names = [op.name for op in g.get_operations()
             if op.type in ("Equal", "ReverseSequence", "Maximum", "Select")
             and "while" not in op.name]
    # TF 1.15 (its loop bodies' Selects and GatherNd left out)
    assert names == ["Equal", "Equal_1", "Maximum", "rnn/Equal", "rnn/Maximum",
                     "ReduceLogSumExp/Select", "Select", "Equal_2", "Maximum_1", "rnn_1/Equal",
                     "rnn_1/Maximum", "ReverseSequence", "rnn_2/Equal", "rnn_2/Maximum",
                     "ReverseSequence_1"]
    assert (ll.name, dec.name, best.name) == ("sub_2:0", "ReverseSequence_1:0", "Max:0")


def test_crf_cells_run_without_a_scope_of_their_own():
    # TF 1.15's CRF cells override __call__: their ops sit right in the loop's frame
    with tf.Graph().as_default(), pytest.raises(
            ValueError, match=r"Dimensions must be equal, but are 4 and 3 for "
                              r"'rnn/while/add_1' \(op: 'AddV2'\)"):
        crf.crf_log_norm(tf.zeros([2, 3, 4]), tf.constant([3, 2]), tf.zeros([3, 3]))


def test_crf_scores_float64_and_list_lengths_fail_as_in_tf():
    # TF 1.15's unary score multiplies by a float32 sequence mask whatever the inputs' dtype,
    # and the log norm reads sequence_lengths.dtype
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Input 'y' of 'Mul' Op has type float32 that does "
                                            "not match type float64 of argument 'x'."):
            crf.crf_log_likelihood(tf.zeros([2, 3, 4], tf.float64), tf.zeros([2, 3], tf.int32),
                                   tf.constant([3, 2]), tf.zeros([4, 4], tf.float64))
        with pytest.raises(AttributeError, match="'list' object has no attribute 'dtype'"):
            crf.crf_log_likelihood(tf.zeros([2, 3, 4]), tf.zeros([2, 3], tf.int32), [3, 2])
        with pytest.raises(ValueError, match=r"Cannot convert an unknown Dimension to a "
                                             r"Tensor: \?"):
            crf.crf_binary_score(tf.zeros([2, 3], tf.int32), tf.constant([3, 2]),
                                 tf.placeholder(tf.float32))


def test_crf_one_step_values_and_float64_decode():
    # a one-step sequence takes the single-step branch; float64 decoding works in TF 1.15
    rng = np.random.RandomState(6)
    unary = rng.randn(3, 4, 3)
    trans = rng.randn(3, 3)
    with tf.Graph().as_default(), tf.Session() as sess:
        tags, best = sess.run(crf.crf_decode(tf.constant(unary), tf.constant(trans),
                                             tf.constant([4, 3, 1])))
        one = sess.run(crf.crf_log_norm(tf.constant(unary[:, :1], tf.float32),
                                        tf.constant([1, 1, 0]), tf.constant(trans, tf.float32)))
    for b, n in enumerate([4, 3, 1]):
        want, score = crf.viterbi_decode(unary[b, :n], trans)
        assert list(tags[b, :n]) == want and not tags[b, n:].any()
        assert best[b] == pytest.approx(score)
    np.testing.assert_allclose(one, [np.logaddexp.reduce(unary[0, 0]),
                                     np.logaddexp.reduce(unary[1, 0]), 0.0], rtol=1e-6)


cudnn = tf.contrib.cudnn_rnn


@pytest.mark.parametrize("cls, layers, bidi, want", [
    # TF 1.15's seed2 of every RandomUniform: the canonical weights' draws, then three
    # draws made after building, after a call, and after a call with lengths and a state
    ("CudnnLSTM", 1, False, [4, 11, 18, 25, 32, 39, 46, 53, 60, 137, 173, 186]),
    ("CudnnLSTM", 2, False, [4, 11, 18, 25, 32, 39, 46, 53, 60, 67, 74, 81, 88, 95, 102, 109,
                             116, 219, 255, 268]),
    ("CudnnGRU", 1, True, [4, 11, 18, 25, 32, 39, 46, 53, 60, 67, 74, 81, 88, 175, 201, 215]),
    ("CudnnRNNTanh", 2, False, [4, 11, 18, 25, 32, 87, 113, 127]),
    ("CudnnRNNRelu", 1, False, [4, 11, 18, 66, 92, 106]),
])
def test_cudnn_layers_make_tf_op_counts_so_seeds_match(cls, layers, bidi, want):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [5, 2, 4])
        layer = getattr(cudnn, cls)(layers, 3,
                                    direction="bidirectional" if bidi else "unidirectional")
        tf.random_uniform([2])
        _, state = layer(x)
        tf.random_uniform([2])
        layer(x, sequence_lengths=tf.constant([5, 3]))
        tf.random_uniform([2])
        layer(x, initial_state=state, training=False)
        tf.random_uniform([2])
    got = [op.get_attr("seed2") for op in g.get_operations() if op.type == "RandomUniform"]
    assert got == want


def test_cudnn_layer_shapes_and_argument_errors_are_tfs():
    x = tf.placeholder(tf.float32, [5, 2, 4])
    layer = cudnn.CudnnLSTM(1, 3)
    layer(x)
    # TF 1.15: the opaque buffer's variable has no static shape (validate_shape=False)
    assert layer.kernel.get_shape().ndims is None
    assert [v.name for v in layer.trainable_variables] == ["cudnn_lstm/opaque_kernel:0"]
    assert layer.canonical_weight_shapes == [(3, 4)] * 4 + [(3, 3)] * 4
    assert layer.canonical_bias_shapes == [[3]] * 8
    with pytest.raises(ValueError, match=r"^Invalid input_mode: foo, expect one of "
                                         r"\(linear_input, skip_input, auto_select\)$"):
        cudnn.CudnnLSTM(1, 3, input_mode="foo")
    with pytest.raises(ValueError, match="^Only support float16, float32, float64, provided "
                                         "<dtype: 'int32'>$"):
        cudnn.CudnnGRU(1, 3, dtype=tf.int32)
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 1\)"):
        cudnn.CudnnLSTM(1, 3)(x, initial_state=(tf.zeros([1, 2, 3]),))
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 1\)"):
        cudnn.CudnnGRU(1, 3)(x, initial_state=(tf.zeros([1, 2, 3]), tf.zeros([1, 2, 3])))
    tf.reset_default_graph()


@pytest.mark.parametrize("call, kind, message", [
    # TF 1.15's words, nothing appended
    (lambda: tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(2),
        tf.placeholder(tf.float32, [None, None, None]), dtype=tf.float32),
     ValueError, ("Input size (depth of inputs) must be accessible via shape inference, but saw "
                 "value None.")),
    (lambda: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(2), [tf.placeholder(tf.float32, [None, 2,
                                                                                      None])],
                              dtype=tf.float32),
     ValueError, ("Input size (dimension 1 of inputs) must be accessible via shape inference, "
                 "but saw value None.")),
    (lambda: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(2), [tf.constant(1.0)], dtype=tf.float32),
     ValueError, "Shape () must have rank at least 2"),
    # (raised in a cell's call, which TF 1.15 runs through AutoGraph: "in converted code:",
    # the frames, then the error)
    (lambda: tf.contrib.rnn.LSTMBlockCell(3)(tf.zeros([2, 3]), tf.zeros([2, 3])),
     TypeError, ("converted", ("len is not well defined for symbolic Tensors. (zeros_1:0) "
                              "Please call `x.shape` rather than `len(x)` for shape "
                              "information."))),
    (lambda: tf.contrib.rnn.LSTMBlockCell(3)(tf.zeros([2, 3]), (tf.zeros([2, 3]),) * 3),
     ValueError, ("converted", "Expecting state to be a tuple with length 2.")),
])
def test_rnn_input_errors_are_tfs(call, kind, message):
    with tf.Graph().as_default(), pytest.raises(kind) as info:
        call()
    if isinstance(message, tuple):
        text = str(info.value)
        assert text.startswith("in converted code:\n") and " call\n" in text
        assert text.endswith(f"\n\n    {kind.__name__}: {message[1]}\n")
    else:
        assert str(info.value) == message


def test_viterbi_decode_takes_arrays_as_tf():
    # TF 1.15 reads score.shape: a list score raises; a list of transitions broadcasts
    rng = np.random.RandomState(5)
    score = rng.randn(5, 4).astype(np.float32)
    trans = rng.randn(4, 4).astype(np.float32)
    with pytest.raises(AttributeError, match="'list' object has no attribute 'shape'"):
        crf.viterbi_decode(score.tolist(), trans)
    tags, best = crf.viterbi_decode(score, trans.tolist())
    assert tags == crf.viterbi_decode(score, trans)[0]
    assert isinstance(best, np.float32)


@pytest.mark.parametrize("fused", [False, True])
def test_lstm_block_cell_clip_passes_its_gradient_through_as_tf(fused):
    # TF 1.15's LSTMBlock kernels clip the cell state forward but backprop as if unclipped
    rng = np.random.RandomState(0)
    x_value = rng.randn(3, 2, 4).astype(np.float32)
    kernel = rng.uniform(-1, 1, (9, 20)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.constant(x_value)
        with tf.variable_scope("s", initializer=tf.constant_initializer(kernel)):
            if fused:
                out, _ = tf.contrib.rnn.LSTMBlockFusedCell(5, cell_clip=0.3)(x, dtype=tf.float32)
            else:
                out, _ = tf.nn.dynamic_rnn(tf.contrib.rnn.LSTMBlockCell(5, cell_clip=0.3), x,
                                           dtype=tf.float32, time_major=True)
        k = next(v for v in tf.trainable_variables() if "kernel" in v.name)
        gk, gx = tf.gradients(tf.reduce_sum(out), [k, x])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            gk, gx = sess.run([gk, gx])
    # TF 1.15's values
    np.testing.assert_allclose(gk[:2, :4], [[-0.0531478, 1.2040043, 0.1905631, -0.2371115],
                                            [-0.2215559, -0.1869111, -0.3371083, 0.0528177]],
                               atol=2e-6)
    np.testing.assert_allclose(gx[0], [[0.051732, -0.3641057, -0.0690209, 0.1002041],
                                       [0.0391674, -1.0293239, -0.57166, -0.3587924]],
                               atol=2e-6)
