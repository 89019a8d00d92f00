"""Short programs from TensorFlow's GitHub issue threads ("code to reproduce the issue"), run on
tideflow: what a user sees (values, reprs, exception classes and first lines) must be what
TF 1.15 shows. Each test names its issue; every expected value was measured in TF 1.15."""

import threading

import numpy as np
import pytest

import tideflow as tf

# -- tf.train.Coordinator ------------------------------------------------------------------------

def test_coordinator_request_stop_with_an_exception_outside_an_except_block():
    # TF 1.15 records sys.exc_info() for an exception instance and %-formats its own message
    # with it: outside an except block that is (None, None, None) and the call fails with a
    # TypeError before the stop is set; the empty record then makes join fail as six.reraise
    # does (measured); threads reporting through stop_on_exception still work
    coord = tf.train.Coordinator()

    def worker(i):
        with coord.stop_on_exception():
            if i == 1:
                raise RuntimeError(f"boom {i}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    with pytest.raises(RuntimeError, match="boom 1"):
        coord.join(threads)
    assert coord.should_stop()

    c2 = tf.train.Coordinator()
    with pytest.raises(TypeError, match="^not all arguments converted during string formatting$"):
        c2.request_stop(ValueError("v"))
    assert not c2.should_stop()
    c2.request_stop(ValueError("w"))  # the empty record is kept: no second TypeError
    assert c2.should_stop()
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        c2.join([])


def test_coordinator_request_stop_records_the_exception_being_handled():
    # inside an except block TF 1.15 records the exception in flight, not the one passed
    # (measured): join raises the KeyError
    c3 = tf.train.Coordinator()
    try:
        raise KeyError("k")
    except KeyError:
        c3.request_stop(ValueError("other"))
    with pytest.raises(KeyError):
        c3.join([])
    # after join, an exception passed with nothing in flight re-raises the empty exc_info
    c4 = tf.train.Coordinator()
    c4.request_stop()
    c4.join([])
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        c4.request_stop(RuntimeError("late"))


# -- tf.pad ------------------------------------------------------------------------------------

def test_pad_unknown_mode_message_names_the_upper_cased_mode():
    # issue-style pad/tile/slice error program (tf.pad mode="wrap"): TF 1.15 upper-cases the
    # mode before it checks it, and its message shows the upper-cased name (measured)
    x = tf.constant([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="^Unknown padding mode: WRAP$"):
        tf.pad(x, [[0, 0], [0, 0]], mode="wrap")
    with tf.Session() as s:  # lower-case known modes work (measured)
        assert s.run(tf.pad(x, [[1, 0], [0, 1]], mode="reflect")).tolist() == [
            [3, 4, 3], [1, 2, 1], [3, 4, 3]]


# -- tf.while_loop -----------------------------------------------------------------------------

def test_while_loop_body_changing_a_type_fails_at_the_next_run_not_at_build():
    # issue-style while_loop error program (a body returning float for an int32 loop
    # variable): TF 1.15 builds the loop (its Exit keeps the entering type) and the whole graph
    # fails at the session's first run, whatever is fetched, with the Merge's input error
    # (measured)
    with tf.Graph().as_default():
        i = tf.constant(0)
        x = tf.constant(1.0)
        r = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.cast(x, tf.int64)), [i, x])
        assert [t.name for t in r] == ["while/Exit:0", "while/Exit_1:0"]
        assert [t.dtype for t in r] == [tf.int32, tf.float32]
        msg = ("^Input 1 of node while/Merge_1 was passed int64 from while/NextIteration_1:0 "
               "incompatible with expected float.$")
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            s.run(tf.constant(1))
    with tf.Graph().as_default():
        # with maximum_iterations the counter is the loop's first variable (measured)
        r = tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [tf.constant(0)],
                          maximum_iterations=3, name="ww")
        assert r.name == "ww/Exit_1:0" and r.dtype == tf.int32
        msg = ("^Input 1 of node ww/Merge_1 was passed float from ww/NextIteration_1:0 "
               "incompatible with expected int32.$")
        with tf.Session() as s:
            for _ in range(2):
                with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                    s.run(r)


# -- programs that matched TF 1.15 already (kept so they stay matched) -------------------------

def test_gradient_inside_a_while_body_of_an_unrelated_loop_variable_is_none():
    # https://github.com/tensorflow/tensorflow/issues/15403 (measured in TF 1.15)
    seen = []
    with tf.Graph().as_default():
        a = tf.constant(3.0)
        assert repr(tf.gradients(a, a)[0]) == (
            "<tf.Tensor 'gradients/Fill:0' shape=() dtype=float32>")

        def body(i, a, b):
            seen.append(tf.gradients(b, a)[0])
            return i + 1, b, b ** 2

        r = tf.while_loop(lambda i, a, b: tf.less(i, 5), body, [tf.constant(0), a,
                                                                 tf.constant(5.0)])
        assert [t.name for t in r] == ["while/Exit:0", "while/Exit_1:0", "while/Exit_2:0"]
        with tf.Session() as s:
            assert s.run(r) == (5, np.float32(152587900000.0), np.float32(2.3283065e+22))
    assert seen == [None]


def test_string_split_skips_empty_tokens_and_splits_on_each_delimiter_character():
    # https://github.com/tensorflow/tensorflow/issues/12108 and /issues/18271 (measured)
    with tf.Graph().as_default(), tf.Session() as s:
        r = s.run(tf.string_split([tf.constant("#2")], "#"))
        assert r.indices.tolist() == [[0, 0]] and r.values.tolist() == [b"2"]
        assert r.dense_shape.tolist() == [1, 1]
        r = s.run(tf.string_split(["a#", "x##y"], "#", skip_empty=False))
        assert r.values.tolist() == [b"a", b"", b"x", b"", b"y"]
        assert r.dense_shape.tolist() == [2, 3]
        v = s.run(tf.string_split(["hello world <eos> tensorflow"], delimiter="<eos>").values)
        assert v.tolist() == [b"h", b"ll", b" w", b"rld ", b" t", b"n", b"rfl", b"w"]


def test_sparse_dense_matmul_has_a_static_shape():
    # https://github.com/tensorflow/tensorflow/issues/4282 (fixed in TF 1.15: measured)
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 2]], [1., 1.], [4, 6])
        m = tf.sparse_tensor_dense_matmul(sp, tf.ones((6, 1)))
        assert repr(m) == ("<tf.Tensor 'SparseTensorDenseMatMul/SparseTensorDenseMatMul:0' "
                           "shape=(4, 1) dtype=float32>")
        assert repr(tf.Variable(m)) == (
            "<tf.Variable 'Variable:0' shape=(4, 1) dtype=float32_ref>")


def test_no_gradients_errors_name_the_variables_and_the_loss():
    # https://github.com/tensorflow/tensorflow/issues/1511 (measured in TF 1.15)
    with tf.Graph().as_default():
        x = tf.Variable(1.0)
        y = tf.Variable(2.0)
        loss = tf.cast(tf.argmax([x, y]), tf.float32)
        with pytest.raises(ValueError) as e:
            tf.train.AdamOptimizer().minimize(loss)
        assert str(e.value) == (
            "No gradients provided for any variable, check your graph for ops that do not "
            "support gradients, between variables [\"<tf.Variable 'Variable:0' shape=() "
            "dtype=float32_ref>\", \"<tf.Variable 'Variable_1:0' shape=() dtype=float32_ref>\"] "
            "and loss Tensor(\"Cast:0\", shape=(), dtype=float32).")
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(ValueError, match="^No variables to optimize.$"):
            opt.minimize(x * 2.0, var_list=[])
        with pytest.raises(ValueError) as e:
            opt.apply_gradients([(None, x)])
        assert str(e.value) == ("No gradients provided for any variable: [\"<tf.Variable "
                                "'Variable:0' shape=() dtype=float32_ref>\"].")


def test_numeric_corners_round_half_even_cast_truncation_and_modulo_signs():
    # issue-style numeric corner program (measured in TF 1.15)
    with tf.Graph().as_default(), tf.Session() as s:
        assert s.run(tf.round([0.5, 1.5, 2.5, -0.5, -1.5])).tolist() == [0., 2., 2., -0., -2.]
        assert s.run(tf.cast([1.7, -1.7, 2.5], tf.int32)).tolist() == [1, -1, 2]
        assert s.run(tf.cast([300, -1], tf.uint8)).tolist() == [44, 255]
        assert s.run(tf.mod([-7, 7, -7], [3, -3, -3])).tolist() == [2, -2, -1]
        assert s.run(tf.truncatemod([-7, 7], [3, -3])).tolist() == [-1, 1]
        assert s.run(tf.truncatediv([-7, 7], [2, -2])).tolist() == [-3, -3]
        assert s.run(tf.constant([250], tf.uint8) + tf.constant([10], tf.uint8)).tolist() == [4]
        assert s.run(tf.reduce_mean([1, 2])) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Integer division by zero\n"):
            s.run(tf.div(1, 0))
        with pytest.raises(TypeError, match="has DataType int8 not in list of allowed values"):
            tf.negative(tf.constant([-128], tf.int8))  # (Abs takes int8; Neg does not)


# -- tf.nn.ctc_loss ----------------------------------------------------------------------------

def test_ctc_loss_value_and_gradient_bit_for_bit():
    # https://github.com/tensorflow/tensorflow/issues/15086: TF 1.15's float CTC (softmax,
    # logf, log1pf(expf)) gives 1.913096 (bits 54e0f43f), 3 ulps from the float64 result
    # rounded (measured)
    logit = tf.constant(np.array([[[1e-5, 0.9999, 1e-5, 1e-5], [0.9999, 1e-5, 1e-5, 1e-5],
                                   [1e-5, 1e-5, 0.9999, 1e-5]]]), dtype="float32")
    target = tf.SparseTensor(indices=[[0, 0], [0, 2]], values=[1, 2], dense_shape=[1, 3])
    loss = tf.nn.ctc_loss(target, logit, tf.constant([3]), time_major=False)
    g = tf.gradients(loss, logit)[0]
    with tf.Session() as s:
        lv, gv = s.run([loss, g])
    assert lv.tobytes().hex() == "54e0f43f"
    assert gv.tobytes().hex() == (
        "8a15333ed733dabe8a15333e2b799c3db15ff33e78dd43be72dd43befc08bebd8a15333e8a15333e"
        "d733dabe2b799c3d")


_CTC_CASES = [
    # (T, B, C, labels, seq_len, kwargs, loss bits, sha256[:16] of the gradient's bits),
    # measured in TF 1.15: classes below, at and above one 8-float packet and two, repeats
    # merged or not, collapsed labels, an infeasible row (inf), a zero-length row, a label of
    # the blank class (an empty label sequence)
    (7, 3, 11, [[1, 2, 2], [3], [0, 1, 0, 1]], [7, 5, 6], {},
     "290800424543e44109edfe41", "64c9b9bf12dddc6c"),
    (12, 2, 37, [[5, 5, 5, 1], [30, 2]], [12, 9], {}, "8c0a9242c7804842", "40d255e579485406"),
    (9, 2, 20, [[1, 1, 2], [4, 4]], [9, 8], {"ctc_merge_repeated": False},
     "7d4884425a8b8642", "c974e4c814d95cd6"),
    (9, 2, 20, [[1, 1, 2], [4, 4]], [9, 8], {"preprocess_collapse_repeated": True},
     "0d8d59422f3b5342", "7713453cc3a5d88e"),
    (6, 3, 8, [[1, 2, 3, 4, 5, 6, 1], [2], [3, 3]], [6, 0, 2],
     {"ignore_longer_outputs_than_inputs": True}, "00000000000000000000807f",
     "b1ff17dbd3c8eb99"),
    (40, 4, 64, [[i % 60 for i in range(10)], [3] * 5, [7, 8], [1]], [40, 33, 2, 1], {},
     "fc2178436fc08f431c02eb407f6bf040", "f2e7187eae2c3c67"),
    (5, 1, 3, [[0, 1]], [5], {}, "c42b6c40", "11922e85f28947b9"),
    (3, 1, 17, [[16]], [3], {}, "a21f2b41", "535027144477cf77"),
]


@pytest.mark.parametrize("k", range(len(_CTC_CASES)))
def test_ctc_loss_float32_matches_tf_bits(k):
    import hashlib

    t, b, c, labs, lens, kw, loss_hex, grad_sha = _CTC_CASES[k]
    # the logits of case k: RandomState(k) normals times 4
    x = (np.random.RandomState(k).randn(t, b, c) * 4).astype(np.float32)
    idx = [[r, i] for r, row in enumerate(labs) for i in range(len(row))]
    vals = [v for row in labs for v in row]
    with tf.Graph().as_default():
        lab = tf.SparseTensor(idx, vals, [b, max(len(row) for row in labs)])
        xt = tf.constant(x)
        loss = tf.nn.ctc_loss(lab, xt, lens, **kw)
        g = tf.gradients(tf.reduce_sum(loss), xt)[0]
        with tf.Session() as s:
            lv, gv = s.run([loss, g])
    assert lv.tobytes().hex() == loss_hex
    assert hashlib.sha256(gv.tobytes()).hexdigest()[:16] == grad_sha


def test_while_loop_shape_invariant_error_names_a_tensor_array_by_its_flow():
    # https://github.com/tensorflow/tensorflow/issues/7700: a new TensorArray's loop variable
    # is its flow, TF's TensorArrayV3 op's second output (measured)
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=10)
        i = tf.constant(0, tf.int32)
        with pytest.raises(ValueError) as e:
            tf.while_loop(lambda i, _: i < 10, lambda i, ta: (i + 1, ta.write(i, 1.0)),
                          (i, ta), shape_invariants=(i.get_shape(), tf.TensorShape(10)))
        assert str(e.value) == (
            "The shape invariant specified for TensorArray:1 is not compatible with the "
            "initial shape of the loop variable. It enters the loop with shape (), but the "
            "specified shape invariant is (10,).")
