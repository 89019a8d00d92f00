"""Differences found by running TensorFlow Privacy 0.2 (differentially private optimizers that
clip per-microbatch gradients, its DP query library and RDP accountant) against tideflow, each
reduced to the plain TF 1.x calls the library makes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# tf.gradients in a loop body of a loss row computed outside the loop (per-microbatch grads)
# ----------------------------------------------------------------------------------------


def _rows_loss():
    w = tf.Variable([0.5, -1.0])
    pts = tf.constant([[1.0, 2.0], [3.0, 1.0], [0.0, 4.0], [2.0, 2.0]])
    per_example = 0.5 * tf.reduce_sum(tf.squared_difference(pts, w), axis=1)
    return w, pts, tf.reshape(per_example, [2, -1])


def _expected_rows(w, pts):
    per_point = w - pts  # d/dw of 0.5 * |pts - w|^2
    return per_point.reshape(2, 2, 2).mean(axis=1)


def test_gradients_in_while_body_reach_variable_through_captured_rows():
    w, _, rows = _rows_loss()

    def body(i, acc):
        g = tf.gradients(tf.reduce_mean(tf.gather(rows, i)), w)[0]
        return i + 1, acc + g

    _, total = tf.while_loop(lambda i, a: i < 2, body, (0, tf.zeros([2])))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(total)
    pts = np.array([[1.0, 2.0], [3.0, 1.0], [0.0, 4.0], [2.0, 2.0]])
    want = _expected_rows(np.array([0.5, -1.0]), pts).sum(axis=0)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_vectorized_map_of_per_row_gradients():
    w, _, rows = _rows_loss()
    per_row = tf.vectorized_map(lambda r: tf.gradients(tf.reduce_mean(r), w)[0], rows)
    assert per_row.get_shape().as_list() == [2, 2]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(per_row)
    pts = np.array([[1.0, 2.0], [3.0, 1.0], [0.0, 4.0], [2.0, 2.0]])
    np.testing.assert_allclose(got, _expected_rows(np.array([0.5, -1.0]), pts), rtol=1e-6)


def test_gradients_in_body_sum_direct_and_captured_paths():
    w = tf.Variable([2.0])
    outside = 3.0 * w  # d/dw = 3

    def body(i, acc):
        y = tf.reduce_sum(outside * w)  # 3 w^2: d/dw = 6 w, through both the capture and w
        return i + 1, acc + tf.gradients(y, w)[0]

    _, total = tf.while_loop(lambda i, a: i < 1, body, (0, tf.zeros([1])))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(total), [12.0])


# ----------------------------------------------------------------------------------------
# a growable buffer: a resource variable started from a value of unknown shape, written
# row by row at an index held in an integer variable
# ----------------------------------------------------------------------------------------


def test_resource_variable_may_start_from_unknown_shape():
    init = tf.placeholder_with_default(tf.zeros([2, 3]), shape=None)
    buf = tf.Variable(init, trainable=False, use_resource=True, name="buf")
    assert buf.get_shape().ndims is None
    grow = tf.assign(buf, tf.zeros([4, 3]), validate_shape=False)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(buf).shape == (2, 3)
        assert s.run(grow).shape == (4, 3)
        assert s.run(buf).shape == (4, 3)


def test_reference_variable_still_needs_a_known_initial_shape():
    init = tf.placeholder_with_default(tf.zeros([2, 3]), shape=None)
    with pytest.raises(ValueError, match="initial_value must have a shape specified"):
        tf.Variable(init)


def test_integer_variable_as_index():
    buf = tf.Variable(tf.zeros([3, 2]))
    pos = tf.Variable(1, dtype=tf.int32, trainable=False)
    row = buf[pos, :]
    assert row.get_shape().as_list() == [2]
    write = tf.assign(buf[pos, :], [5.0, 6.0])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(write)
        np.testing.assert_allclose(s.run(buf), [[0, 0], [5, 6], [0, 0]])
        np.testing.assert_allclose(s.run(tf.zeros([4])[pos:]), [0, 0, 0])


def test_float_variable_is_not_an_index():
    x = tf.zeros([3])
    f = tf.Variable(1.0)
    with pytest.raises(TypeError, match="are valid indices"):
        x[f]


# ----------------------------------------------------------------------------------------
# tf.test.TestCase.assertAllClose on nested lists of mixed depth (a fetched nest)
# ----------------------------------------------------------------------------------------


def test_assert_all_close_on_lists_of_mixed_depth():
    class Case(tf.test.TestCase):
        def runTest(self):
            pass

    case = Case()
    case.assertAllClose([np.float32(5.0), [np.float32(5.0), 4.0]], [5.0, [5.0, 4.0]])
    with pytest.raises(AssertionError):
        case.assertAllClose([5.0, [5.0, 4.0]], [5.0, [5.0, 4.5]])
    with pytest.raises(AssertionError):
        case.assertAllClose([5.0, [5.0, 4.0]], [5.0, [5.0, 4.0], 1.0])


# ----------------------------------------------------------------------------------------
# a buffer doubled in a cond branch (assign with validate_shape=False to a captured
# variable), then written at a row past its old size in the same step
# ----------------------------------------------------------------------------------------


def test_buffer_grown_in_cond_then_row_written_same_step():
    buf = tf.Variable(tf.placeholder_with_default(tf.zeros([2, 3]), shape=None),
                      use_resource=True, trainable=False)
    cap = tf.Variable(2, trainable=False)
    size = tf.Variable(2, trainable=False)

    def grow():
        bigger = tf.concat([buf, tf.zeros_like(buf)], 0)
        return tf.assign(buf, bigger, validate_shape=False), tf.assign(cap, cap * 2)

    grown, new_cap = tf.cond(tf.equal(size, cap), grow,
                             lambda: (tf.identity(buf), tf.identity(cap)))
    with tf.control_dependencies([grown, new_cap]):
        write = tf.assign(buf[size, :], [1.0, 2.0, 3.0])
    with tf.control_dependencies([write]):
        step = tf.assign_add(size, 1)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(step)
        got, c = s.run([buf, cap])
    want = np.zeros([8, 3], np.float32)
    want[2:5] = [1.0, 2.0, 3.0]
    np.testing.assert_allclose(got, want)
    assert c == 8


# ----------------------------------------------------------------------------------------
# Keras compiled with a per-example loss (reduction NONE): the optimizer gets the vector,
# fit and evaluate report its mean
# ----------------------------------------------------------------------------------------


def test_keras_per_example_loss_reaches_optimizer_and_reports_mean():
    seen = []

    class Recording(tf.train.GradientDescentOptimizer):
        def compute_gradients(self, loss, var_list=None, **kwargs):
            seen.append(loss.get_shape().as_list())
            return super().compute_gradients(tf.reduce_mean(loss), var_list, **kwargs)

    rng = np.random.RandomState(3)
    x = rng.rand(12, 4).astype(np.float32)
    y = tf.keras.utils.to_categorical(rng.randint(0, 3, 12), num_classes=3)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    loss = tf.keras.losses.CategoricalCrossentropy(
        from_logits=True, reduction=tf.losses.Reduction.NONE)
    model.compile(optimizer=Recording(0.1), loss=loss)
    hist = model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    assert seen == [[None]]
    assert np.isscalar(hist.history["loss"][0])
    logits = model.predict(x)
    want = np.mean(-np.sum(y * (logits - np.log(np.sum(np.exp(logits), 1, keepdims=True))), 1))
    np.testing.assert_allclose(model.evaluate(x, y, batch_size=12, verbose=0), want, rtol=1e-5)


def test_per_row_gradients_in_loop_through_an_outer_loop():
    # the per-example losses come out of a loop of their own (an RNN); each row's gradient is
    # taken in a second loop, so the first loop's gradient is built inside the second's body
    w = tf.Variable(0.9)
    x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])

    def step(t, h):
        return t + 1, tf.tanh(w * h + x[:, t])

    _, h = tf.while_loop(lambda t, h: t < 2, step, (0, tf.zeros([3])))
    losses = tf.square(h)

    def body(i, acc):
        g = tf.gradients(losses[i], w)[0]
        return i + 1, acc.write(i, g)

    _, ta = tf.while_loop(lambda i, a: i < 3, body, (0, tf.TensorArray(tf.float32, 3)))
    per_row = ta.stack()
    direct = tf.stack([tf.gradients(losses[i], w)[0] for i in range(3)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got, want = s.run([per_row, direct])
    xv = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
    h1 = np.tanh(xv[:, 0])
    h2 = np.tanh(0.9 * h1 + xv[:, 1])
    dh2 = (1 - h2 ** 2) * (h1 + 0.9 * 0.0)  # h0 = 0: d h1/dw = 0
    np.testing.assert_allclose(want, 2 * h2 * dh2, rtol=1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-6)


# ----------------------------------------------------------------------------------------
# a resource variable read under control dependencies is a fresh read that runs after them,
# and sees a buffer an assign gave the variable earlier in the same step
# ----------------------------------------------------------------------------------------


def test_resource_variable_read_after_control_dependencies():
    v = tf.Variable(1.0, use_resource=True)
    with tf.control_dependencies([tf.assign(v, 5.0)]):
        doubled = v * 2
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(doubled) == 10.0


def test_read_in_same_step_after_buffer_grew():
    buf = tf.Variable(tf.placeholder_with_default(tf.zeros([2]), shape=None),
                      use_resource=True, trainable=False)
    grow = tf.assign(buf, tf.concat([buf, [7.0, 8.0]], 0), validate_shape=False)
    with tf.control_dependencies([grow]):
        head = tf.slice(buf, [0], [3])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(head), [0.0, 0.0, 7.0])
        assert s.run(buf).shape == (4,)
