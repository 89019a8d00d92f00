"""Behaviours the differential cases found different from TF, checked without real TF."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


def _names():
    return [o.name for o in tf.get_default_graph().get_operations()]


def test_python_inputs_become_constants_inside_the_op_scope():
    x = tf.placeholder(tf.float32, [None, 4])
    r = tf.reshape(x, [2, 2, -1])
    e = tf.expand_dims(x, 1)
    assert r.op.name == "Reshape" and r.op.inputs[1].op.name == "Reshape/shape"
    assert e.op.inputs[1].op.name == "ExpandDims/dim"
    r2 = tf.reshape(x, [-1], name="flat")
    assert r2.op.inputs[1].op.name == "flat/shape"
    assert tf.reshape(x, [-1]).op.name == "Reshape_1"
    # a full reduction's axes are a top-level Const, as in TF
    assert tf.reduce_sum(x).op.inputs[1].op.name == "Const"


def test_gradient_op_names_follow_tf():
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    v = tf.Variable([[1.0], [1.0]], name="v")
    y = tf.matmul(w, v)
    loss = tf.reduce_sum(tf.square(y) * y)
    gw, gv = tf.gradients(loss, [w, v], gate_gradients=True)
    names = set(_names())
    for n in ("gradients/Shape", "gradients/grad_ys_0", "gradients/Fill",
              "gradients/Sum_grad/Reshape/shape", "gradients/Sum_grad/Reshape",
              "gradients/Sum_grad/Const", "gradients/Sum_grad/Tile",
              "gradients/mul_grad/Mul", "gradients/mul_grad/Mul_1",
              "gradients/Square_grad/Const", "gradients/Square_grad/Mul",
              "gradients/Square_grad/Mul_1", "gradients/MatMul_grad/tuple/group_deps",
              "gradients/MatMul_grad/tuple/control_dependency_1"):
        assert n in names, n
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        yv = np.array([[3.0], [7.0]])
        g = 3 * yv ** 2
        np.testing.assert_allclose(s.run(gw), g @ np.ones((1, 2)) * 1.0)
        np.testing.assert_allclose(s.run(gv), np.array([[1, 2], [3, 4]]).T @ g)


def test_stop_gradients_still_give_the_direct_gradient():
    a = tf.constant(0.0)
    b = 2 * a
    ga, gb = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
    x, y = tf.constant(2.0), tf.constant(3.0)
    gx, gy = tf.gradients(x * y, [x, y], stop_gradients=[x])
    with tf.Session() as s:
        assert s.run([ga, gb]) == [1.0, 1.0]
        assert s.run([gx, gy]) == [3.0, 2.0]


def test_integer_ys_have_no_gradient_rather_than_an_error():
    x = tf.constant(1)
    assert tf.gradients(x * 2, [x]) == [None]
    assert tf.gradients(tf.constant(1) * 2, [tf.constant(3)]) == [None]


def test_multi_output_wrappers_are_namedtuples():
    t = tf.nn.top_k([1.0, 3.0, 2.0], 2)
    assert type(t).__name__ == "TopKV2" and t.values is t[0] and t.indices is t[1]
    q = tf.linalg.qr(tf.eye(2))
    assert type(q).__name__ == "Qr" and q.q is q[0] and q.r is q[1]


def test_single_value_concat_is_an_identity_named_like_tf():
    a = tf.constant([1])
    assert tf.concat([a], 0).name == "concat/concat:0"
    assert tf.concat([a], 0, name="c").name == "c/c:0"


def test_initialized_value_reads_the_current_value_once_initialized():
    v = tf.Variable([1.0, 2.0])
    iv = v.initialized_value()
    with tf.Session() as s:
        s.run(v.initializer)
        v.load([9.0, 9.0], s)
        assert s.run(iv).tolist() == [9.0, 9.0]


def test_node_names_are_checked_and_collection_keys_are_strings():
    with pytest.raises(ValueError, match="not a valid"):
        tf.constant(0, name="bad name!")
    tf.Variable(1.0)
    tf.get_variable("gv", [1])
    assert all(isinstance(k, str) for k in tf.get_default_graph().get_all_collection_keys())


def test_a_string_fed_to_a_float_placeholder_is_a_value_error():
    p = tf.placeholder(tf.float32, [2])
    # TF 1.15: np.asarray of the feed raises NumPy's own words
    with tf.Session() as s, pytest.raises(ValueError, match="could not convert string to float"):
        s.run(p * 2, {p: ["a", "b"]})


def test_tensor_array_stacks_to_an_unknown_first_dimension():
    # TF 1.15's (its stack is a gather of a range of the array's size: (?, ...); TF 2.x's
    # TensorList knows a fixed size)
    ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
    ta = ta.write(2, [5.0, 6.0])
    assert ta.stack().get_shape().as_list() == [None, 2]
    dyn = tf.TensorArray(tf.float32, size=3, dynamic_size=True).write(0, [1.0])
    assert dyn.stack().get_shape().as_list() == [None, 1]


def test_slogdet_namedtuple_and_sparse_reduce_max_of_an_empty_group():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    r = tf.linalg.slogdet(a)
    assert type(r).__name__ == "LogMatrixDeterminant"
    sp = tf.SparseTensor([[0, 1], [1, 0]], [-1.0, -2.0], [2, 3])
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(r.log_abs_determinant), np.log(np.linalg.det(a)))
        assert s.run(tf.sparse_reduce_max(sp, 0)).tolist() == [-2.0, -1.0, 0.0]


def test_seeded_shuffle_and_multinomial_are_repeatable_permutations_and_draws():
    def draws():
        with tf.Graph().as_default():
            sh = tf.random_shuffle(tf.range(10), seed=3)
            mn = tf.multinomial(tf.log([[0.2, 0.8], [0.9, 0.1]]), 5, seed=4)
            with tf.Session() as s:
                return [s.run(sh).tolist(), s.run(sh).tolist(), s.run(mn).tolist()]

    first, again = draws(), draws()
    assert first == again
    assert sorted(first[0]) == list(range(10)) and first[0] != first[1]
    assert all(c in (0, 1) for row in first[2] for c in row)


def test_graph_seed_alone_derives_the_op_seed_from_the_last_op_id_as_tf1():
    # TF 1.x get_seed: op_seed = graph._last_id, the number of ops created so far; random_uniform
    # creates its shape, min and max constants before asking for its seed
    tf.set_random_seed(1234)
    a = tf.random_uniform([3])
    assert tf.get_default_graph()._last_id == 7  # shape, min, max, RandomUniform, Sub, Mul, Add
    assert a.op.inputs[0].op.inputs[0].op.get_attr("seed") == 1234
    assert a.op.inputs[0].op.inputs[0].op.get_attr("seed2") == 3


def test_substr_counts_characters_with_utf8_char_and_negative_positions_from_the_end():
    with tf.Session() as s:
        assert s.run(tf.substr(["héllo"], 1, 2, unit="UTF8_CHAR")).tolist() == ["él".encode()]
        assert s.run(tf.substr(["héllo"], 1, 2)).tolist() == ["é".encode()]
        assert s.run(tf.substr(["hello"], -3, 2)).tolist() == [b"ll"]


def test_exclusive_case_without_default_checks_all_but_the_last_predicate():
    x = tf.placeholder(tf.int32, [])
    pairs = [(x > 1, lambda: tf.constant(1)), (x > 2, lambda: tf.constant(2))]
    no_default = tf.case(pairs, exclusive=True)
    with_default = tf.case(pairs, default=lambda: tf.constant(0), exclusive=True)
    with tf.Session() as s:
        assert s.run(no_default, {x: 3}) == 1  # the last pair is the default: not checked
        with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive"):
            s.run(with_default, {x: 3})


def test_infinite_global_norm_clips_everything_to_nan():
    (t,), n = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    with tf.Session() as s:
        assert np.isnan(s.run(t)).all() and np.isinf(s.run(n))


@pytest.mark.parametrize("make", [
    lambda: tf.random_gamma([4000], [0.5, 3.0], seed=9),
    lambda: tf.random_poisson([2.0, 40.0], [4000], seed=11),
])
def test_seeded_gamma_and_poisson_draws_are_repeatable_with_the_right_means(make):
    def draw():
        with tf.Graph().as_default():
            t = make()
            with tf.Session() as s:
                return s.run(t), s.run(t)

    (a, a2), (b, _) = draw(), draw()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, a2)
    means = a.mean(axis=0)
    expected = np.array([0.5, 3.0]) if means[1] < 10 else np.array([2.0, 40.0])
    np.testing.assert_allclose(means, expected, rtol=0.08)


def test_seeded_random_shuffle_queue_takes_a_word_modulo_the_size_and_fills_the_hole():
    from tideflow.ops import philox

    q = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[[]], seed=3)
    enq, deq = q.enqueue_many([list(range(8))]), q.dequeue_many(8)
    with tf.Session() as s:
        s.run(enq)
        got = s.run(deq).tolist()
    # TF: one Philox generator from the op's seeds, read one 32-bit word per dequeued element
    stream = philox.PhiloxStream(87654321, 3)
    words = iter(stream.blocks(stream.counter, 2).reshape(-1).tolist())
    items, want = list(range(8)), []
    while items:
        i = next(words) % len(items)
        want.append(items[i])
        items[i] = items[-1]
        items.pop()
    assert got == want and sorted(got) == list(range(8))
