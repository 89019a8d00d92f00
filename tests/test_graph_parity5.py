"""Graph-construction parity with TF 1.x: static shapes (partial constant evaluation of shape
tensors), the names of composite ops' outputs, and tf.GradientTape in graph mode.

Expected shapes and names were observed from TensorFlow 2.21 in compat.v1 graph mode running the
same programs (see tests/shape_table5.py); values are checked against NumPy."""

import builtins

import numpy as np
import pytest

import tideflow as tf
from tests import name_table5, shape_table5
from tideflow.ops import array_ops

XV = np.array([1.0, 2.0, 3.0], np.float32)

# ------------------------------------------------------------------------------------------
# static shapes
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(shape_table5.EXPECTED))
def test_static_shape_and_dtype_match_tf(name):
    want = shape_table5.EXPECTED[name]
    with tf.Graph().as_default():
        cases = dict(shape_table5.build())
        with tf.variable_scope(name):
            if isinstance(want, str) and want.startswith("ERR "):
                with pytest.raises(getattr(builtins, want[4:])):
                    cases[name]()
                return
            got = shape_table5.fmt(cases[name]())
    assert got == want


def test_constant_value_as_shape_matches_tf():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, 3])
        b = tf.placeholder(tf.float32, [2, None, 5])
        m = tf.placeholder(tf.float32, [4, 5])
        n = tf.placeholder(tf.int32, [])
        cases = [
            (tf.shape(a), [None, 3]),
            (tf.concat([tf.shape(a)[:1], [7]], 0), [None, 7]),
            (tf.stack([n, 3]), [None, 3]),
            (tf.placeholder(tf.int32, [3]), [None, None, None]),
            (tf.placeholder(tf.int32, [None]), None),
            (tf.shape(b)[1:], [None, 5]),
            (tf.cast(tf.shape(a), tf.int64), [None, None]),  # TF 1.15's (no Cast: TF 2.x 3)
            (tf.fill([2], -1), [None, None]),
            (tf.constant([-1, 4]), [None, 4]),
            (tf.shape(b)[::-1], [5, None, 2]),
            (tf.concat([[-1], tf.shape(m)], 0), [None, 4, 5]),
            (tf.shape(a) * 2, [None, None]),
            (tf.gather(tf.shape(b), [2, 0]), [None, None]),
        ]
        for t, want in cases:
            got = array_ops.constant_value_as_shape(t)
            assert (None if got.ndims is None else got.as_list()) == want, t.name
        # a scalar -1 is "unknown rank"; any other scalar is TF's ValueError
        assert array_ops.constant_value_as_shape(tf.constant(-1)).ndims is None
        with pytest.raises(ValueError, match="scalar"):
            array_ops.constant_value_as_shape(tf.constant(3))


def test_random_shape_from_partial_shape_tensor_runs():
    # TF's (?, 7), and the kernel's result agrees with the static shape
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        r = tf.random_normal(tf.concat([tf.shape(x)[:1], [7]], 0))
        assert r.shape.as_list() == [None, 7]
        with tf.Session() as sess:
            assert sess.run(r, {x: np.zeros((5, 3))}).shape == (5, 7)


def test_conv2d_backprop_input_batch_comes_from_input_sizes_then_out_backprop():
    # TF 1.x reads the result's whole static shape from a constant input_sizes (DCGAN-tensorflow
    # reshapes conv2d_transpose outputs to that shape); TF 2.x keeps out_backprop's batch. TF
    # 1.15 compares the two batches only when run, and leaves an unknown one unknown.
    with tf.Graph().as_default():
        flt = tf.ones([3, 3, 3, 6])
        g = tf.placeholder(tf.float32, [None, 4, 4, 6])
        y = tf.nn.conv2d_transpose(g, flt, [2, 8, 8, 3], [1, 2, 2, 1], "SAME")
        assert y.shape.as_list() == [2, 8, 8, 3]
        g5 = tf.placeholder(tf.float32, [5, 4, 4, 6])
        sizes = tf.stack([tf.shape(g5)[0], 8, 8, 3])
        assert tf.nn.conv2d_transpose(g5, flt, sizes, [1, 2, 2, 1], "SAME").shape.as_list() == [
            5, 8, 8, 3]
        with tf.Session() as sess:
            assert sess.run(y, {g: np.ones((2, 4, 4, 6))}).shape == (2, 8, 8, 3)
        bad = tf.nn.conv2d_transpose(tf.ones([7, 4, 4, 6]), flt, [2, 8, 8, 3], [1, 2, 2, 1], "SAME")
        assert bad.shape.as_list() == [2, 8, 8, 3]
        img = tf.placeholder(tf.float32, [None, 8, 8, 3])
        bi = tf.nn.conv2d_backprop_input(tf.shape(img), flt, tf.ones([2, 8, 8, 6]), [1, 1, 1, 1],
                                         "SAME")
        assert bi.shape.as_list() == [None, 8, 8, 3]
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                  match="same batch size"):
            sess.run(bad)


def test_dynamic_rnn_input_gradient_keeps_its_shape():
    with tf.Graph().as_default():
        seq = tf.placeholder(tf.float32, [None, 7, 4])
        out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(3), seq, dtype=tf.float32)
        (g,) = tf.gradients(tf.reduce_sum(out), [seq])
        assert g.shape.as_list() == [None, 7, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(g, {seq: np.ones((2, 7, 4))}).shape == (2, 7, 4)


# ------------------------------------------------------------------------------------------
# names
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(name_table5.EXPECTED))
def test_names_match_tf(name):
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        got = name_table5.names(name_table5.CASES[name]())
    assert got == name_table5.EXPECTED[name]


def test_cond_and_while_outputs_found_by_tf_names():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [3])
        p = tf.placeholder(tf.bool, [])
        c = tf.cond(p, lambda: (x * 2.0, x + 1.0), lambda: (x, x))
        _, w = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.ones([3])])
        assert [t.name for t in c] == ["cond/Merge:0", "cond/Merge_1:0"]
        assert w.name == "while/Exit_1:0"
        merged = g.get_tensor_by_name("cond/Merge_1:0")
        exit_ = g.get_tensor_by_name("while/Exit_1:0")
        (gx,) = tf.gradients(tf.reduce_sum(merged) + tf.reduce_sum(exit_), [x])
        with tf.Session() as sess:
            rm, re, rg = sess.run([merged, exit_, gx], {x: XV, p: True})
    np.testing.assert_allclose(rm, XV + 1)
    np.testing.assert_allclose(re, XV ** 3)
    np.testing.assert_allclose(rg, 1 + 3 * XV ** 2)


# ------------------------------------------------------------------------------------------
# tf.GradientTape in graph mode (behaviour observed from TF 2.21 compat.v1 with resource
# variables; values from NumPy)
# ------------------------------------------------------------------------------------------

def _run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


def test_tape_watches_tensors_and_accessed_trainable_variables():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
        w = tf.Variable(2.0, name="w", trainable=False)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * x * v) + w
        assert [u.name for u in tape.watched_variables()] == ["v:0"]
        gx, gv, gw = tape.gradient(y, [x, v, w])
        assert gw is None  # non-trainable: not watched
        rx, rv = _run([gx, gv], {x: XV})
    np.testing.assert_allclose(rx, 2 * XV * np.array([1, 2, 3]))
    np.testing.assert_allclose(rv, XV ** 2)


def test_tape_differentiates_only_recorded_ops():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        pre = x * 3.0  # created before the block: a constant to the tape, as in TF
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            z = tf.reduce_sum(pre * x)
            with tape.stop_recording():
                hidden = z * 5.0
        after = z * 2.0  # created after the block
        assert tape.gradient(z, pre) is None
        assert tape.gradient(hidden, x) is None
        assert tape.gradient(after, x) is None
        unwatched = tf.placeholder(tf.float32, [3])
        assert tape.gradient(z, unwatched) is None
        (zero,) = tape.gradient(z, [pre], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        gz = tape.gradient(z, x)
        rz, rzero = _run([gz, zero], {x: XV})
    np.testing.assert_allclose(rz, 3 * XV)  # d(pre . x)/dx with pre held fixed
    np.testing.assert_array_equal(rzero, np.zeros(3))


def test_tape_nested_second_derivative_and_persistence():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(x ** 3)
            dy = inner.gradient(y, x)
        d2 = outer.gradient(dy, x)
        with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
            inner.gradient(y, x)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            s = tf.reduce_sum(tf.sin(x))
        g1, g2 = tape.gradient(s, x), tape.gradient(s, x)
        r = _run([dy, d2, g1, g2], {x: XV})
    np.testing.assert_allclose(r[0], 3 * XV ** 2)
    np.testing.assert_allclose(r[1], 6 * XV)
    np.testing.assert_allclose(r[2], np.cos(XV), rtol=1e-6)
    np.testing.assert_allclose(r[3], r[2])


def test_tape_watch_accessed_variables_false_and_explicit_variable_watch():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape(watch_accessed_variables=False) as t1:
            y1 = tf.reduce_sum(v * v)
        assert t1.gradient(y1, v) is None and t1.watched_variables() == ()
        with tf.GradientTape(watch_accessed_variables=False) as t2:
            t2.watch(v)
            y2 = tf.reduce_sum(v * v)
        np.testing.assert_allclose(_run(t2.gradient(y2, v)), 2 * XV)


def test_tape_output_gradients_and_nested_structures():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            ys = {"a": tf.reduce_sum(x * x), "b": tf.reduce_sum(x)}
        weighted = tape.gradient(y, x, output_gradients=tf.constant([1.0, 2.0, 3.0]))
        nested = tape.gradient(ys, {"p": x, "q": [x]})
        assert set(nested) == {"p", "q"} and len(nested["q"]) == 1
        r = _run([weighted, nested["p"], nested["q"][0]], {x: XV})
    np.testing.assert_allclose(r[0], 2 * XV * np.array([1, 2, 3]))
    np.testing.assert_allclose(r[1], 2 * XV + 1)
    np.testing.assert_allclose(r[2], r[1])


def test_tape_jacobian_and_batch_jacobian():
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    xb = np.arange(6, dtype=np.float32).reshape(2, 3) / 10
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])  # size unknown: the rows run in a loop
        xs = tf.placeholder(tf.float32, [None, 3])
        wt = tf.constant(w)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, xs, wt])
            y = x * x
            yb = tf.tanh(tf.matmul(xs, wt))
        j = tape.jacobian(y, x)
        bj = tape.batch_jacobian(yb, xs)
        jw = tape.jacobian(yb, wt)
        assert bj.shape.as_list() == [None, 2, 3] and jw.shape.as_list() == [None, 2, 3, 2]
        assert tape.jacobian(yb, tf.constant(1.0)) is None  # not watched
        rj, rbj, rjw = _run([j, bj, jw], {x: XV, xs: xb})
    np.testing.assert_allclose(rj, np.diag(2 * XV))
    d = 1 - np.tanh(xb @ w) ** 2  # [b, o]  (TF's float32 tanh: near 1, d moves by ~1e-6)
    np.testing.assert_allclose(rbj, np.einsum("bo,io->boi", d, w), rtol=1e-5, atol=2e-6)
    # d yb[b, o] / d w[i, k] = d[b, o] * xb[b, i] * (o == k)
    want = np.einsum("bo,bi,ok->boik", d, xb, np.eye(2))
    np.testing.assert_allclose(rjw, want, rtol=1e-5, atol=2e-7)


def test_tape_through_functional_control_flow():
    # (TF's tape refuses v1 control flow in graph mode; tideflow's cond/while are functional)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        with tf.GradientTape() as tape:
            tape.watch(x)
            r = tf.cond(tf.constant(True), lambda: x * x, lambda: x)
            p = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x),
                              [0, tf.ones([3])])[1]
            y = tf.reduce_sum(r) + tf.reduce_sum(p)
        g = _run(tape.gradient(y, x), {x: XV})
    np.testing.assert_allclose(g, 2 * XV + 3 * XV ** 2)


def test_tape_bad_input_errors():
    with tf.Graph().as_default():
        tape = tf.GradientTape()
        with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
            tape.watch("x")
        with pytest.raises(ValueError, match="Tape must be recording"), tape.stop_recording():
            pass
        with pytest.raises(ValueError, match="unconnected_gradients"):
            tape.gradient(tf.constant(1.0), tf.constant(2.0), unconnected_gradients="sometimes")


def test_tape_with_layers_created_in_the_block_and_an_optimizer():
    xv = np.random.RandomState(0).rand(5, 3).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.layers.dense(x, 2, name="d"))
        variables = tf.trainable_variables("d")
        assert [v.name for v in tape.watched_variables()] == ["d/kernel:0", "d/bias:0"]
        gk, gb = tape.gradient(loss, variables)
        train = tf.train.GradientDescentOptimizer(0.5).apply_gradients(zip([gk, gb], variables))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rk, rb = sess.run([gk, gb], {x: xv})
            b0 = sess.run(variables[1])
            sess.run(train, {x: xv})
            b1 = sess.run(variables[1])
    np.testing.assert_allclose(rk, np.repeat(xv.sum(0)[:, None], 2, axis=1), rtol=1e-6)
    np.testing.assert_allclose(rb, [5.0, 5.0])
    np.testing.assert_allclose(b1, b0 - 0.5 * 5.0)


def test_variable_gradient_counts_every_read():
    # TF 1.x takes a variable's gradient at its ref: read_value() and gathers count too
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        y = tf.reduce_sum(v.read_value() * 2.0) + tf.reduce_sum(tf.gather(v, [0])) + (
            tf.reduce_sum(v * v))
        (g,) = tf.gradients(y, v)
        with tf.GradientTape() as tape:
            y2 = tf.reduce_sum(v.read_value() * 3.0)
        g2 = tape.gradient(y2, v)
        rg, rg2 = _run([tf.convert_to_tensor(g), g2])
    np.testing.assert_allclose(rg, [2.0 + 1.0 + 2.0, 2.0 + 4.0])
    np.testing.assert_allclose(rg2, [3.0, 3.0])


def test_sparse_tensor_times_and_divided_by_dense():
    # TF's SparseDenseCwiseMul/Div: the dense side broadcasts; sparse * sparse is a TypeError
    dv = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        d = tf.placeholder(tf.float32, [None, 4])
        prod, quot, scaled = sp * d, sp / tf.constant([1.0, 2.0, 4.0, 8.0]), sp * 3.0
        assert isinstance(prod, tf.SparseTensor) and prod.values.shape.as_list() == [2]
        (g,) = tf.gradients(tf.reduce_sum(prod.values), d)
        with pytest.raises(TypeError):
            sp * sp
        with tf.Session() as sess:
            r = sess.run([prod.values, quot.values, scaled.values, g, prod.indices], {d: dv})
    np.testing.assert_allclose(r[0], [1.0 * dv[0, 0], 2.0 * dv[1, 2]])
    np.testing.assert_allclose(r[1], [1.0, 0.5])
    np.testing.assert_allclose(r[2], [3.0, 6.0])
    want = np.zeros((3, 4), np.float32)
    want[0, 0], want[1, 2] = 1.0, 2.0
    np.testing.assert_allclose(r[3], want)
    np.testing.assert_array_equal(r[4], [[0, 0], [1, 2]])


def test_tape_records_only_after_watch_and_reset_forgets():
    # observed from TF: ops created before watch(x) are constants; reset() drops the record
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        with tf.GradientTape(persistent=True) as tape:
            y = x * x
            tape.watch(x)
            z = y * x
            g = tape.gradient(z, x)
            tape.reset()
            w = x * 5.0
            tape.watch(x)
            q = x * 7.0
        assert tape.gradient(z, x) is None and tape.gradient(w, x) is None
        rg, rq = _run([g, tape.gradient(q, x)], {x: XV})
    np.testing.assert_allclose(rg, XV ** 2)
    np.testing.assert_allclose(rq, [7.0, 7.0, 7.0])
