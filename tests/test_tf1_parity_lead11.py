"""TF 1.x behaviours pinned by the eleventh session's lead (side-by-side checks with TF)."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_float_floormod_zero_keeps_the_sign_of_x():
    # TF's kernel adjusts fmod, so an exact multiple of a negative x gives -0.0 (NumPy: +0.0)
    x = np.array([-3.0, 3.0, -3.5, 2.0])
    y = np.array([1.5, -1.5, 1.5, -0.5])
    with tf.Session() as s:
        r = s.run(tf.floormod(x, y))
    np.testing.assert_array_equal(np.signbit(r), [True, False, False, False])
    np.testing.assert_allclose(r, [0.0, 0.0, 1.0, 0.0])
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(tf.floormod([-7, 7], [2, -2])), [1, -1])


def test_sparse_results_of_constant_inputs_have_static_dense_shapes():
    # TF's shape refiner evaluates these on constant inputs when the graph is built
    sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2], [3, 3]], [1., 2., 3., 4.], [4, 4])
    sliced = tf.sparse_tensor_to_dense(tf.sparse_slice(sp, [1, 0], [2, 3]))
    assert sliced.shape.as_list() == [2, 3]
    assert tf.sparse_fill_empty_rows(sp, -1.)[1].shape.as_list() == [4]
    crossed = tf.sparse.cross([tf.SparseTensor([[0, 0], [1, 0]], ['a', 'b'], [2, 1]),
                               tf.SparseTensor([[0, 0], [0, 1]], ['x', 'y'], [2, 2])])
    assert crossed.indices.shape.as_list() == [None, 2]
    assert crossed.dense_shape.shape.as_list() == [2]
    dense = tf.sparse_tensor_to_dense(crossed, default_value='')
    assert dense.shape.as_list() == [2, 2]
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(sliced), [[2., 0., 3.], [0., 0., 0.]])
        assert s.run(dense).tolist() == [[b'a_X_x', b'a_X_y'], [b'', b'']]
    # a placeholder among the inputs: unknown until run, as TF
    ph = tf.SparseTensor(tf.placeholder(tf.int64, [None, 2]), [1.], [4, 4])
    assert tf.sparse_slice(ph, [0, 0], [2, 2]).dense_shape.shape.as_list() == [2]
    assert tf.sparse_tensor_to_dense(tf.sparse_slice(ph, [0, 0], [2, 2])).shape.ndims == 2
    assert tf.sparse_fill_empty_rows(
        tf.SparseTensor([[0, 0]], [1.], tf.placeholder(tf.int64, [2])), 0.)[1].shape.as_list() \
        == [None]


def test_ctc_decoders_on_constant_inputs_have_static_dense_shapes():
    rng = np.random.RandomState(0)
    logits = tf.constant(rng.randn(6, 2, 3).astype(np.float32))
    greedy = tf.sparse_tensor_to_dense(tf.nn.ctc_greedy_decoder(logits, [6, 5])[0][0])
    paths, _ = tf.nn.ctc_beam_search_decoder(logits, [6, 5], beam_width=3, top_paths=2)
    beams = [tf.sparse_tensor_to_dense(p) for p in paths]
    with tf.Session() as s:
        g, b0, b1 = s.run([greedy, beams[0], beams[1]])
    assert greedy.shape.as_list() == list(g.shape)
    assert beams[0].shape.as_list() == list(b0.shape)
    assert beams[1].shape.as_list() == list(b1.shape)


def test_tf_function_get_concrete_function_gives_output_structure_shapes_and_dtypes():
    # TF Probability's minimize sizes its trace from a concrete function of its loop body
    v = tf.Variable(3.0)
    opt = tf.train.GradientDescentOptimizer(0.25)

    @tf.function(autograph=False)
    def step(old, unused):
        loss = (v - 1.0) ** 2
        with tf.control_dependencies([opt.minimize(loss)]):
            return {"loss": tf.identity(loss), "pair": tf.stack([loss, loss])}

    cf = step.get_concrete_function(tf.TensorSpec([]), tf.TensorSpec([], tf.float32, "s"))
    assert cf.output_shapes == {"loss": tf.TensorShape([]), "pair": tf.TensorShape([2])}
    assert cf.output_dtypes == {"loss": tf.float32, "pair": tf.float32}
    assert cf.structured_input_signature == ((tf.TensorSpec([]), tf.TensorSpec([], name="s")), {})
    assert cf.inputs[1].op.name.endswith("s")
    assert [t.dtype for t in cf.inputs] == [tf.float32, tf.float32]
    assert len(cf.outputs) == 2 and cf.graph is tf.get_default_graph()
    init = tf.nest.map_structure(tf.zeros, cf.output_shapes)
    trace = tf.scan(step, tf.range(3.0), initializer=init)
    again = cf(tf.constant(0.0), tf.constant(0.0))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(trace)["loss"], [4.0, 1.0, 0.25])
        np.testing.assert_allclose(s.run(again["loss"]), 0.0625)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float64)])
    def double(x):
        return x * 2

    cf2 = double.get_concrete_function()
    assert cf2.output_shapes.as_list() == [None, 2] and cf2.output_dtypes == tf.float64


def _parity_map_fn(x):
    # module-level source, so AutoGraph can read it (as TF's, it needs the source)
    if tf.equal(x % 2, 0):
        y = x * 10
    else:
        y = -x
    total = tf.constant(0, tf.int64)
    for i in tf.range(x):
        total += i
    return y, total


def test_dataset_functions_are_converted_by_autograph():
    # TF 1.15's tf.data converts user functions: a Python `if`/`for` on tensors builds
    # tf.cond/tf.while_loop instead of refusing a tensor as a Python bool
    d = tf.data.Dataset.range(5).map(_parity_map_fn)
    nxt = tf.data.make_one_shot_iterator(d).get_next()
    with tf.Session() as s:
        got = [s.run(nxt) for _ in range(5)]
    assert [int(a) for a, _ in got] == [0, -1, 20, -3, 40]
    assert [int(b) for _, b in got] == [0, 0, 1, 3, 6]


class _SignFlip(tf.keras.layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            y = x * 2.0
        else:
            y = -x
        return y


class _Shifted(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2, kernel_initializer="ones")
        self.flip = _SignFlip()

    def call(self, x, training=None):
        h = self.dense(x)
        if training:  # a Python bool stays Python
            h = h + 100.0
        return self.flip(h)


def test_subclassed_keras_layers_and_models_are_converted_by_autograph():
    # TF 1.15 converts the call of a user's Layer or Model subclass (not its own layers')
    x = tf.placeholder(tf.float32, [None, 3])
    model = _Shifted()
    y, y_train = model(x), model(x, training=True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_allclose(s.run(y, {x: [[1, 2, 3.0]]}), [[12.0, 12.0]])
        np.testing.assert_allclose(s.run(y, {x: [[-1, -2, -3.0]]}), [[6.0, 6.0]])
        np.testing.assert_allclose(s.run(y_train, {x: [[-1, -2, -3.0]]}), [[188.0, 188.0]])
