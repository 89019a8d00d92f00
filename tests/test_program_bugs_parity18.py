"""Differential parity with TF 1.15 on the short buggy/fixed programs of the
TensorFlow-Program-Bugs study (StackOverflow cases): each test reduces one program's
differing call to plain TF 1.x calls; expected values are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_constant_of_a_tensor_says_list_of_tensors():
    # APIM-17: tf.constant(x + 5) -> TF 1.15 TypeError "List of Tensors when single Tensor
    # expected", also for a tensor inside a ragged list; with a dtype it names the dtype
    x = tf.constant(35, name="x")
    for value in (x + 5, [x, x], (x, 1), [[x]], [1, [2, x]]):
        with pytest.raises(TypeError, match="^List of Tensors when single Tensor expected$"):
            tf.constant(value)
    with pytest.raises(TypeError, match=r"^Expected float32, got <tf.Tensor 'x:0' shape=\(\) "
                       r"dtype=int32> of type 'Tensor' instead\.$"):
        tf.constant([1, [2, x]], dtype=tf.float32)
    # (TF 1.15 with its NumPy 1.18, measured: the ragged list is an object array of the shape
    # TF expects, which it then fails to read; a ragged row deeper down is the dense error)
    with pytest.raises(TypeError, match="^Failed to convert object of type <class 'list'>"):
        tf.constant([1, [2, 3]])
    with pytest.raises(ValueError, match="^Argument must be a dense tensor"):
        tf.constant([[1, 2], [3]])


def test_tensor_array_stack_of_unwritten_items_with_known_element_shape():
    # APIM-8 (buggy): the body's write is discarded, so nothing is ever written; the shape the
    # write taught the (shared) element shape makes TF 1.15's stack return zeros [[0 0] [0 0]]
    a_in = tf.TensorArray(tf.int32, 2).unstack([[1, 2], [1, 2]])
    a_out = tf.TensorArray(tf.int32, 2)

    def body(i, a_in, a_out):
        a_out.write(i, a_in.read(i) + 1)
        return i + 1, a_in, a_out

    _, _, a_out = tf.while_loop(lambda i, *_: i < 2, body, [0, a_in, a_out])
    r = a_out.stack()
    assert r.get_shape().as_list() == [None, 2]
    b = tf.TensorArray(tf.float32, 3, element_shape=[2])
    c = tf.TensorArray(tf.float32, 3)
    c2 = c.write(1, [1.0, 2.0])
    g = c.gather([2, 0])
    d = tf.TensorArray(tf.float32, 2)
    with tf.Session() as sess:
        assert sess.run(r).tolist() == [[0, 0], [0, 0]]
        assert sess.run(b.stack()).tolist() == [[0, 0]] * 3
        assert sess.run(c2.stack()).tolist() == [[0, 0], [1, 2], [0, 0]]
        assert sess.run(c.stack()).tolist() == [[0, 0]] * 3  # the shape c2's write taught
        assert sess.run(g).tolist() == [[0, 0]] * 2
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="element shape is not fully defined"):
            sess.run(d.stack())


def test_tensor_array_gather_static_shape_as_tf_1_15():
    # TF 1.15: the indices' shape + the element shape the array was made with, refined by
    # [None] + the one learned since: (2, 3) / (?, 3) / unknown
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    learned = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
    assert learned.gather([3, 0]).shape.as_list() == [None, 3]
    made = tf.TensorArray(tf.float32, size=4, element_shape=[3])
    assert made.gather([3, 0]).shape.as_list() == [2, 3]
    assert made.gather(tf.placeholder(tf.int32)).shape.as_list() == [None, 3]
    assert tf.TensorArray(tf.float32, size=4).gather([3, 0]).shape.ndims is None
    with tf.Session() as sess:
        assert sess.run(learned.gather([3, 0])).tolist() == [[9, 10, 11], [0, 1, 2]]


def test_op_outside_a_while_loop_refuses_a_tensor_made_inside_it():
    # APIM-9 (buggy): tf.losses.add_loss inside the body, get_total_loss outside: TF 1.15's
    # ValueError "Cannot use 'while/L2Loss' as input to 'total_loss' because 'while/L2Loss' is
    # in a while loop. See info log for more details." at graph construction, whichever input
    # position the loop tensor has and however the op is made
    leaked = []

    def body(i):
        t = tf.cast(i, tf.float32) * 2.0
        leaked.append(t)
        tf.losses.add_loss(tf.nn.l2_loss(t))
        return i + 1

    tf.while_loop(lambda i: i < 3, body, [0])
    t = leaked[0]
    msg = "^Cannot use 'while/{}' as input to '{}' because 'while/{}' is in a while loop. " \
          "See info log for more details.$"
    cases = [(tf.losses.get_total_loss, "L2Loss", "total_loss"),
             (lambda: t + 1.0, "mul", "add"),
             (lambda: tf.constant(1.0) + t, "mul", "add_1"),
             (lambda: tf.identity(t), "mul", "Identity"),
             (lambda: tf.reduce_sum(t), "mul", "Sum")]
    for make, src, op in cases:
        with pytest.raises(ValueError, match=msg.format(src, op, src)):
            make()
    # an op in a loop's body taking a tensor of a loop nested in it: TF 1.15's other words
    nested = []

    def outer_body(i):
        j = tf.while_loop(lambda k: k < 2, lambda k: (nested.append(k * 2) or k + 1), [0])
        with pytest.raises(ValueError, match="^Cannot use 'while_1/while/mul' as input to "
                           "'while_1/add' because they are in different while loops. See info "
                           "log for more details.$"):
            nested[-1] + 1
        return i + j

    tf.while_loop(lambda i: i < 3, outer_body, [0])
    # inside the loop, the body's own tensors and the enclosing graph's serve as before
    c = tf.constant(3.0)
    out = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + c * tf.cast(i, tf.float32)),
                        [0, 0.0])
    with tf.Session() as sess:
        assert sess.run(out) == (3, 9.0)


def test_contrib_learn_linear_regressor_variable_names_and_values(tmp_path):
    # APIM-26 (fix): TF 1.15 lists the Ftrl slots of contrib.learn's linear weights under its
    # quirky names and get_variable_value takes them; values as TF 1.15 printed them
    x1 = [1, 3, 4, 5, 1, 6, -1, -3]
    x2 = [5, 2, 1, 5, 0, 2, 4, 2]
    y = [6, 5, 5, 10, 1, 8, 3, -1]

    def train_fn():
        return {"x1": tf.constant(x1), "x2": tf.constant(x2)}, tf.constant(y)

    features = [tf.contrib.layers.real_valued_column("x1", dimension=1),
                tf.contrib.layers.real_valued_column("x2", dimension=1)]
    est = tf.contrib.learn.LinearRegressor(feature_columns=features,
                                           model_dir=str(tmp_path / "m"))
    est.fit(input_fn=train_fn, steps=50)
    want = {
        "global_step": 50,
        "linear/bias_weight": [0.65699846],
        "linear/bias_weight/ear/bias_weight/part_0/Ftrl": [237.7726],
        "linear/bias_weight/ear/bias_weight/part_0/Ftrl_1": [-50.654175],
        "linear/x1/weight": [[0.9461691]],
        "linear/x1/weight/inear/x1/weight/part_0/Ftrl": [[3934.2092]],
        "linear/x1/weight/inear/x1/weight/part_0/Ftrl_1": [[-296.7341]],
        "linear/x2/weight": [[0.8481367]],
        "linear/x2/weight/inear/x2/weight/part_0/Ftrl": [[2693.577]],
        "linear/x2/weight/inear/x2/weight/part_0/Ftrl_1": [[-220.09013]],
    }
    assert est.get_variable_names() == sorted(want)
    for name, value in want.items():
        np.testing.assert_allclose(est.get_variable_value(name), value, rtol=1e-5)
    out = est.evaluate(input_fn=train_fn, steps=1)
    np.testing.assert_allclose(out["loss"], 0.11544273, rtol=1e-5)
