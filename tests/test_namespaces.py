"""The small namespaces: tf.compat (and tf.compat.v1), tf.logging, tf.math, tf.random."""

import logging
import types

import numpy as np
import pytest

import tideflow as tf


def test_compat():
    assert tf.compat.as_bytes("é") == "é".encode() and tf.compat.as_bytes(b"x") == b"x"
    assert tf.compat.as_text(b"abc") == "abc" and tf.compat.as_str("s") == "s"
    assert tf.compat.v1 is tf and tf.compat.v1.Session is tf.Session
    with pytest.raises(TypeError):
        tf.compat.as_bytes(3)
    with pytest.raises(AttributeError):
        tf.compat.no_such_name  # noqa: B018


def test_logging():
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = tf.logging.get_logger()
    handler = Keep()
    logger.addHandler(handler)
    old = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 3)
        tf.logging.debug("hidden")
        # TF 1.15 counts log_every_n calls per file of the caller: a file of its own here,
        # so the count starts at 0 (logged at calls 0, 2 and 4)
        def five_calls():
            for _ in range(5):
                tf.logging.log_every_n(tf.logging.INFO, "every %d", 2, 2)

        code = five_calls.__code__.replace(co_filename="<log_every_n test>")
        types.FunctionType(code, five_calls.__globals__)()
        assert "step 3" in records and "hidden" not in records
        assert records.count("every 2") == 3
    finally:
        tf.logging.set_verbosity(old)
        logger.removeHandler(handler)


def test_math_names_are_the_tf_and_nn_functions():
    for name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
                 "reduce_any", "reduce_logsumexp", "log", "exp", "sqrt", "square", "abs", "sigmoid",
                 "tanh", "add", "subtract", "multiply", "divide", "maximum", "minimum", "pow",
                 "equal", "greater", "less", "argmax", "argmin", "cumsum", "floor", "ceil", "round",
                 "sign", "log1p", "logical_and", "logical_or", "logical_not", "is_nan", "is_inf",
                 "is_finite", "reciprocal", "rsqrt", "squared_difference", "truediv", "floordiv",
                 "mod", "floormod", "segment_sum", "unsorted_segment_sum", "count_nonzero", "erf",
                 "lgamma", "digamma", "polygamma", "zeta", "add_n", "invert_permutation"):
        assert getattr(tf.math, name) is getattr(tf, name), name
    for name in ("top_k", "in_top_k", "softplus", "softsign", "l2_normalize", "softmax",
                 "log_softmax", "zero_fraction"):
        assert getattr(tf.math, name) is getattr(tf.nn, name), name
    with pytest.raises(AttributeError):
        tf.math.no_such_name  # noqa: B018


def test_math_values():
    x = tf.constant([[1.0, 4.0], [9.0, 16.0]])
    with tf.Session() as sess:
        s, r, m, (vals, idx), c = sess.run([
            tf.math.reduce_sum(x, axis=1), tf.math.sqrt(x), tf.math.mod(-7, 3),
            tf.math.top_k(tf.constant([3, 1, 5, 4]), k=2), tf.math.count_nonzero(x - 4.0)])
    np.testing.assert_allclose(s, [5.0, 25.0])
    np.testing.assert_allclose(r, [[1, 2], [3, 4]])
    assert m == 2 and vals.tolist() == [5, 4] and idx.tolist() == [2, 3] and c == 3


def test_random_names_and_values():
    assert tf.random.uniform is tf.random_uniform and tf.random.normal is tf.random_normal
    assert tf.random.truncated_normal is tf.truncated_normal
    assert tf.random.shuffle is tf.random_shuffle and tf.random.gamma is tf.random_gamma
    assert tf.random.multinomial is tf.multinomial
    assert tf.random.set_random_seed is tf.set_random_seed
    assert tf.random.uniform_candidate_sampler is tf.nn.uniform_candidate_sampler
    g = tf.Graph()
    with g.as_default():
        tf.random.set_random_seed(7)
        u = tf.random.uniform([1000], minval=2.0, maxval=3.0)
        cat = tf.random.categorical(tf.math.log([[1e-9, 1.0], [1.0, 1e-9]]), 20)
        cat32 = tf.random.categorical([[0.0, 0.0]], 3, dtype=tf.int32, name="pick")
        assert cat.op.type == "Multinomial" and cat.op.name == "categorical/Multinomial"
        assert cat.dtype == tf.int64 and cat.shape.as_list() == [2, 20]
        assert cat32.dtype == tf.int32 and cat32.op.name == "pick/Multinomial"
        with tf.Session(graph=g) as sess:
            uv, cv = sess.run([u, cat])
    assert uv.min() >= 2.0 and uv.max() < 3.0 and uv.std() > 0.2
    assert cv[0].tolist() == [1] * 20 and cv[1].tolist() == [0] * 20


def test_print_to_logging_with_variables_and_sparse_tensors(capfd, monkeypatch):
    from tideflow.ops import logging_ops

    assert tf.strings.format is logging_ops.string_format and tf.print is logging_ops.print_v2
    # as TF 1.15, whose PrintV2 logs through C++'s LOG: lines on stderr, time and source first,
    # whatever tf.logging's verbosity (TF_CPP_MIN_LOG_LEVEL hides them)
    monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.5])
        sp = tf.SparseTensor([[0, 1]], [5], [2, 2])
        shown = tf.print("v", v, sp, output_stream=tf.logging.warning, end="")
        info = tf.print([v, 3], output_stream=tf.logging.INFO)
        with tf.Session(graph=g) as sess:
            sess.run(v.initializer)
            sess.run(shown)
            sess.run(info)
            monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "1")
            sess.run(info)
    lines = capfd.readouterr().err.splitlines()
    assert [line.split(": ", 1)[1] for line in lines if line] == [
        ("W tensorflow/core/kernels/logging_ops.cc:168] v [1 2.5] "
         "'SparseTensor(indices=[[0 1]], values=[5], shape=[2 2])'"),
        "I tensorflow/core/kernels/logging_ops.cc:166] [[1 2.5], 3]"]
    assert lines[-1] == ""  # (the print's own end, then LOG's newline)


def test_io_aliases_initializer_identity_logging_and_saved_model_tags():
    assert tf.io.decode_png is tf.image.decode_png
    assert tf.io.PaddingFIFOQueue is tf.queue.PaddingFIFOQueue
    assert tf.io.gfile.join("a", "b", "c") == "a/b/c"
    assert tf.saved_model.SERVING == "serve" and tf.saved_model.TRAINING == "train"
    # TF programs configure the "tensorflow" logger
    assert tf.logging.get_logger() is logging.getLogger("tensorflow")
    with tf.Graph().as_default():
        v = tf.get_variable("eye", [2, 3], initializer=tf.initializers.identity(gain=3.0))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), 3.0 * np.eye(2, 3))
        with pytest.raises(ValueError, match="2D matrices"):
            tf.get_variable("bad", [2], initializer=tf.initializers.identity())


def test_signal_fft_and_the_0_8_rnn_names():
    assert tf.spectral.fft is tf.fft and tf.signal.fft is tf.fft
    assert tf.io.decode_webp is tf.image.decode_webp
    assert tf.nn.rnn is tf.contrib.rnn.static_rnn
    assert tf.nn.bidirectional_rnn is tf.contrib.rnn.static_bidirectional_rnn
    assert tf.nn.seq2seq.sequence_loss is tf.contrib.legacy_seq2seq.sequence_loss
    with tf.Graph().as_default():
        x = tf.complex(tf.constant([1.0, 0.0, 0.0, 0.0]), tf.zeros([4]))
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(tf.fft(x)), np.ones(4))
            np.testing.assert_allclose(sess.run(tf.matrix_square_root([[4.0, 0], [0, 9.0]])),
                                       [[2, 0], [0, 3]], rtol=1e-5)


def test_distributions_and_random_poisson_at_top_level():
    assert tf.distributions.Normal is tf.contrib.distributions.Normal
    with tf.Graph().as_default():
        d = tf.distributions.Normal(loc=0.0, scale=2.0)
        p = tf.random_poisson(3.0, [2000], seed=1)
        with tf.Session() as sess:
            lp, samples = sess.run([d.log_prob(0.0), p])
    assert lp == pytest.approx(-np.log(2.0 * np.sqrt(2 * np.pi)))
    assert abs(samples.mean() - 3.0) < 0.2


def test_nest_namespaces():
    assert tf.nest.flatten({"b": [1, 2], "a": 3}) == [3, 1, 2]
    assert tf.nest.map_structure(lambda v: v * 2, (1, [2])) == (2, [4])
    assert tf.nest.is_nested([1]) and not tf.nest.is_nested(1)
    assert tf.contrib.framework.nest is tf.nest


def test_dir_lists_the_lazily_loaded_names():
    names = dir(tf)
    for name in ("acosh", "ConfigProto", "Session", "train", "nn", "placeholder"):
        assert name in names and hasattr(tf, name)
