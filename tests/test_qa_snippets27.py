"""Short TF 1.x programs from question-and-answer threads (session 27 sweep).

Each test is a thread's snippet made standalone with small synthetic data; the expected values,
shapes, reprs and exception classes/messages were printed by TF 1.15.0 (tensorflow-cpu, CPython
3.7) running the same program with ``import tensorflow as tf``. The thread's address is noted.
"""

import numpy as np

import tideflow as tf


def _err(fn):
    """(exception class name, first line of its message) of what ``fn()`` raises."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what the test compares
        return type(e).__name__, str(e).splitlines()[0]
    raise AssertionError("no exception")


# https://www.tensorflow.org/api_docs/python/tf/nn/sigmoid_cross_entropy_with_logits (and the
# SO threads on "Input 'y' of 'Mul' Op has type int32"): integer labels are not converted
def test_sigmoid_xent_int_labels_type_error():
    with tf.Graph().as_default():
        logits = tf.constant([[2.0, 1.0, 0.1]])
        # measured in TF 1.15
        assert _err(lambda: tf.nn.sigmoid_cross_entropy_with_logits(
            labels=[[1, 0, 0]], logits=logits)) == (
            "TypeError",
            ("Input 'y' of 'Mul' Op has type int32 that does not match type float32 of "
             "argument 'x'."))
        assert _err(lambda: tf.nn.weighted_cross_entropy_with_logits(
            [[1, 0, 0]], logits, 2.0)) == (
            "TypeError", "Expected int32, got 1.0 of type 'float' instead.")
        # float labels keep working, and tf.losses casts its labels first (as TF)
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=[[1.0, 0.0, 0.0]], logits=logits)
        l2 = tf.losses.sigmoid_cross_entropy([[1, 0, 0]], logits)
        with tf.Session() as s:
            out, out2 = s.run([loss, l2])
        # measured in TF 1.15
        np.testing.assert_allclose(out, [[0.126928, 1.3132617, 0.7443967]], rtol=1e-6)
        np.testing.assert_allclose(out2, 0.7281955, rtol=1e-6)


# SO threads that print ``op.inputs`` (e.g. "how to get the inputs of an operation"): TF 1.15
# prints an object (<tensorflow.python.framework.ops.Operation._InputList object at 0x...>),
# and ``list(op.inputs)`` for the tensors
def test_op_inputs_prints_as_an_object():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        c = tf.add(a, a, name="c")
        text = repr(c.op.inputs)
        assert text.startswith("<tideflow.framework.ops.Operation._InputList object at 0x")
        assert str(c.op.inputs) == text
        # measured in TF 1.15
        assert str(list(c.op.inputs)) == (
            "[<tf.Tensor 'a:0' shape=() dtype=float32>, <tf.Tensor 'a:0' shape=() dtype=float32>]")
        assert len(c.op.inputs) == 2 and c.op.inputs[1] is a


def _free_port():
    import socket

    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


# SO threads on a grpc:// session whose server is not up ("session hangs"): under an operation
# timeout TF 1.15's client waits for the master until that deadline, then raises
def test_grpc_session_without_server_honours_operation_timeout():
    with tf.Graph().as_default():
        a = tf.constant(2)
        config = tf.ConfigProto(operation_timeout_in_ms=300)
        sess = tf.Session(target=f"grpc://localhost:{_free_port()}", config=config)
        # measured in TF 1.15 (grpc://localhost:1, operation_timeout_in_ms=500)
        assert _err(lambda: sess.run(a)) == ("DeadlineExceededError", "Deadline Exceeded")


# SO threads on CTC decoding ("ctc_greedy_decoder log_probabilities"): TF's kernel sums the
# negated maxima step by step from 0, so all-zero logits give 0.0 (not -0.0)
def test_ctc_greedy_decoder_log_prob_sums_as_tf():
    rng = np.random.RandomState(3)
    x = rng.randn(40, 3, 5).astype(np.float32)
    with tf.Graph().as_default():
        _, lp = tf.nn.ctc_greedy_decoder(tf.constant(x), [40, 17, 1])
        _, lp2 = tf.nn.ctc_greedy_decoder(tf.zeros([2, 1, 3]), [2])
        with tf.Session() as s:
            v, v2 = s.run([lp, lp2])
    # measured in TF 1.15 (the float32 bytes, and the repr of the all-zero case)
    assert v.tobytes().hex() == "afef5cc25323a2c14ad3dabf"
    assert repr(v2) == "array([[0.]], dtype=float32)"


# SO threads feeding tf.range a vector ("tf.range with a tensor limit"): TF 1.15's kernel names
# the argument that is not a scalar
def test_range_fed_non_scalar_errors():
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32)
        f = tf.placeholder(tf.float32)
        with tf.Session() as s:
            # measured in TF 1.15
            cases = [(tf.range(i), {i: [1, 2]}, "limit must be a scalar, not shape [2]"),
                     (tf.range(i, 5), {i: [1, 2]}, "start must be a scalar, not shape [2]"),
                     (tf.range(0, 5, i), {i: [1, 2]}, "delta must be a scalar, not shape [2]"),
                     (tf.range(i, 5), {i: np.ones((1, 1), np.int32)},
                      "start must be a scalar, not shape [1,1]"),
                     (tf.range(f), {f: [2.0]}, "limit must be a scalar, not shape [1]"),
                     (tf.range(0, i), {i: -3}, "Requires start <= limit when delta > 0: 0/-3")]
            for t, feed, msg in cases:
                assert _err(lambda t=t, feed=feed: s.run(t, feed)) == (
                    "InvalidArgumentError", msg)
            assert s.run(tf.range(i), {i: 3}).tolist() == [0, 1, 2]
