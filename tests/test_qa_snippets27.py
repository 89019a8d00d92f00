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


# --- a sample of the snippets that already matched TF 1.15 (kept as regression tests) ------


# http://runxinzhi.com/ChenKe-cheng-p-9968207.html (variable_scope reuse errors)
def test_variable_scope_reuse_messages():
    with tf.Graph().as_default():
        with tf.variable_scope("foo"):
            v = tf.get_variable("v", [1])
        with tf.variable_scope("foo", reuse=True):
            assert tf.get_variable("v", [1]) is v

        def get(name, shape, reuse=None, dtype=tf.float32):
            with tf.variable_scope("foo", reuse=reuse):
                return tf.get_variable(name, shape, dtype=dtype)

        # measured in TF 1.15 (first lines)
        assert _err(lambda: get("v", [1])) == (
            "ValueError", ("Variable foo/v already exists, disallowed. Did you mean to set "
            "reuse=True or reuse=tf.AUTO_REUSE in VarScope? Originally defined at:"))
        assert _err(lambda: get("w", [1], True)) == (
            "ValueError", ("Variable foo/w does not exist, or was not created with "
            "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"))
        assert _err(lambda: get("v", [2], True)) == (
            "ValueError", ("Trying to share variable foo/v, but specified shape (2,) and found "
            "shape (1,)."))
        assert _err(lambda: get("v", [1], True, tf.int32)) == (
            "ValueError", ("Trying to share variable foo/v, but specified dtype int32 and found "
            "dtype float32_ref."))


# SO "tf.reshape -1 error" / "Cannot feed value of shape"
def test_reshape_and_feed_shape_errors():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12))
        # measured in TF 1.15
        assert _err(lambda: tf.reshape(x, [5, -1])) == (
            "ValueError", ("Dimension size must be evenly divisible by 5 but is 12 for "
            "'Reshape' (op: 'Reshape') with input shapes: [12], [2] and with input tensors "
            "computed as partial shapes: input[1] = [5,?]."))
        p = tf.placeholder(tf.float32, [None, 784])
        q = tf.placeholder(tf.float32)
        with tf.Session() as s:
            assert _err(lambda: s.run(p, {p: np.zeros((2, 700))})) == (
                "ValueError", ("Cannot feed value of shape (2, 700) for Tensor 'Placeholder:0', "
                "which has shape '(?, 784)'"))
            r1, r2 = tf.reshape(q, [-1, 7]), tf.reshape(q, [4, 4])
            assert _err(lambda: s.run(r1, {q: np.zeros(10)})) == (
                "InvalidArgumentError", ("Input to reshape is a tensor with 10 values, but the "
                "requested shape requires a multiple of 7"))
            assert _err(lambda: s.run(r2, {q: np.zeros(10)})) == (
                "InvalidArgumentError", ("Input to reshape is a tensor with 10 values, but the "
                "requested shape has 16"))


# SO "tf.cond executes both branches" and its errors
def test_cond_quirks():
    with tf.Graph().as_default():
        x = tf.Variable(0)
        pred = tf.placeholder(tf.bool)
        assign_true = tf.assign(x, 1)  # built outside the branches: runs either way
        r = tf.cond(pred, lambda: assign_true, lambda: tf.constant(2))
        # measured in TF 1.15
        assert _err(lambda: tf.cond(pred, lambda: tf.constant(1), lambda: tf.constant(1.0))) \
            == ("ValueError", ("Outputs of true_fn and false_fn must have the same type: int32, "
                "float32"))
        assert _err(lambda: tf.cond(pred, lambda: None, lambda: None)) == (
            "ValueError", "true_fn must have a return value.")
        assert _err(lambda: tf.cond(True, lambda: 1, lambda: 2)) == (
            "TypeError", "pred must not be a Python bool")
        with tf.Session() as s:
            s.run(x.initializer)
            assert (s.run(r, {pred: False}), s.run(x)) == (2, 1)


# SO "using a tf.Tensor as a Python bool is not allowed", "Tensor object does not support
# item assignment", "len of a symbolic tensor"
def test_tensor_python_protocol_errors():
    with tf.Graph().as_default():
        x = tf.constant([1, 2, 3])
        # measured in TF 1.15
        assert _err(lambda: bool(x)) == (
            "OperatorNotAllowedInGraphError", ("using a `tf.Tensor` as a Python `bool` is not "
            "allowed in Graph execution. Use Eager execution or decorate this function with "
            "@tf.function."))
        assert _err(lambda: [i for i in x]) == (
            "OperatorNotAllowedInGraphError", ("iterating over `tf.Tensor` is not allowed in "
            "Graph execution. Use Eager execution or decorate this function with @tf.function."))
        assert _err(lambda: len(x)) == (
            "TypeError", ("len is not well defined for symbolic Tensors. (Const:0) Please call "
            "`x.shape` rather than `len(x)` for shape information."))
        assert _err(lambda: np.array(x)) == (
            "NotImplementedError", "Cannot convert a symbolic Tensor (Const:0) to a numpy array.")
        assert _err(lambda: x[1.0]) == (
            "TypeError", ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
            "scalar tf.int32/tf.int64 tensors are valid indices, got 1.0"))


# SO "tf.scatter_update on a tensor" ('Tensor' object has no attribute '_lazy_read'): TF 1.15's
# update wrappers take any non-ref value for a resource variable and fail on its attributes
def test_ref_updates_of_a_plain_tensor_raise_attribute_error():
    with tf.Graph().as_default():
        t = tf.constant([1, 2, 3])
        cases = [
            (lambda: tf.scatter_update(t, [0], [5]), "_lazy_read"),
            (lambda: tf.scatter_add(t, [0], [5]), "_lazy_read"),
            (lambda: tf.scatter_sub(t, [0], [5]), "_lazy_read"),
            (lambda: tf.scatter_mul(t, [0], [5]), "_lazy_read"),
            (lambda: tf.scatter_max(t, [0], [5]), "_lazy_read"),
            (lambda: tf.scatter_nd_update(t, [[0]], [5]), "_lazy_read"),
            (lambda: tf.scatter_nd_add(t, [[0]], [5]), "_lazy_read"),
            (lambda: tf.batch_scatter_update(t, [0], [5]), "_lazy_read"),
            (lambda: tf.count_up_to(t, 3), "handle"),
            (lambda: tf.is_variable_initialized(t), "is_initialized"),
            (lambda: tf.assign(t, [1, 2, 3]), "assign"),
        ]
        for fn, attr in cases:
            # measured in TF 1.15
            assert _err(fn) == ("AttributeError", f"'Tensor' object has no attribute '{attr}'")
        v = tf.Variable([1, 2, 3])
        up = tf.scatter_update(v, [0], [5])
        with tf.Session() as s:
            s.run(v.initializer)
            assert s.run(up).tolist() == [5, 2, 3]
            assert s.run(tf.is_variable_initialized(v))


# SO "tf.einsum with numpy arrays": TF 1.15's einsum calls get_shape() on each input first
def test_einsum_of_lists_and_arrays_raises_attribute_error():
    with tf.Graph().as_default():
        # measured in TF 1.15
        assert _err(lambda: tf.einsum("i,i->", [1.0, 2.0], [3.0, 4.0])) == (
            "AttributeError", "'list' object has no attribute 'get_shape'")
        assert _err(lambda: tf.einsum("ij,jk->ik", np.ones((2, 2)), tf.ones([2, 2]))) == (
            "AttributeError", "'numpy.ndarray' object has no attribute 'get_shape'")
        v = tf.Variable(np.ones((2, 2), np.float32))
        out = tf.einsum("ij,jk->ik", v, tf.ones([2, 2]))  # a Variable has get_shape
        # (the failed calls opened their name scopes first, as TF's do: measured einsum_2)
        assert str(out) == 'Tensor("einsum_2/MatMul:0", shape=(2, 2), dtype=float32)'


# SO threads on contrib.seq2seq.sequence_loss with Python targets: TF 1.15 checks
# len(x.get_shape()) of the arguments as given
def test_sequence_loss_checks_arguments_as_given():
    with tf.Graph().as_default():
        logits = tf.ones([1, 2, 3])
        seq_loss = tf.contrib.seq2seq.sequence_loss
        # measured in TF 1.15
        assert _err(lambda: seq_loss(logits, [[0, 1]], tf.ones([1, 2]))) == (
            "AttributeError", "'list' object has no attribute 'get_shape'")
        assert _err(lambda: seq_loss(tf.placeholder(tf.float32), tf.constant([[0, 1]]),
                                     tf.ones([1, 2]))) == (
            "ValueError", "Cannot take the length of shape with unknown rank.")
        out = seq_loss(logits, tf.constant([[0, 1]]), tf.ones([1, 2]))
        assert str(out) == 'Tensor("sequence_loss/div_no_nan:0", shape=(), dtype=float32)'
