"""Control flow against TF 1.15, seventeenth session: tf.cond, tf.case, tf.switch_case,
tf.while_loop, map_fn/scan/fold, TensorArray and their gradients.

Each expected value, name and message below was printed by the same program under real
TensorFlow 1.15 (tensorflow-cpu 1.15.0); the tests need only tideflow.
"""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import errors


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(fetch, feed=None):
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        return s.run(fetch, feed)


def _seed2(t):
    return t.graph.get_operation_by_name(t.op.name + "/RandomStandardNormal").get_attr("seed2")


# -- tf.cond ----------------------------------------------------------------------------------


def test_cond_argument_errors_are_tf_messages():
    t = tf.constant(True)
    with pytest.raises(TypeError, match=r"^cond\(\): false_fn argument required$"):
        tf.cond(t, lambda: tf.constant(1))
    with pytest.raises(TypeError, match=r"^cond\(\): true_fn argument required$"):
        tf.cond(t, false_fn=lambda: tf.constant(1))
    with pytest.raises(TypeError, match="Input 'pred' of 'Switch' Op has type int32 that does "
                                        "not match expected type of bool."):
        tf.cond(tf.constant(1), lambda: tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(ValueError, match=r"Shape must be rank 0 but is rank 1 for "
                                         r"'cond_1/Switch' \(op: 'Switch'\) with input shapes: "
                                         r"\[1\], \[1\]\."):
        tf.cond(tf.constant([True]), lambda: tf.constant(1), lambda: tf.constant(2))


def test_cond_sparse_against_dense_is_an_incompatible_structure():
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    with pytest.raises(ValueError, match="^Incompatible return values of true_fn and false_fn: "
                                         "The two structures don't have the same nested"):
        tf.cond(tf.constant(True), lambda: sp, lambda: tf.zeros([2, 2]))


def test_cond_gradient_sums_both_branches_captures_as_tf_counts():
    # TF 1.15: each branch's Switch of x gets a gradient and an AddN sums them: the random op
    # made after tf.gradients has op seed 38 (39 under a control dependency)
    tf.set_random_seed(1)
    x = tf.constant(3.0)
    r = tf.cond(x < 2, lambda: x * 2, lambda: x * 4)
    g = tf.gradients(r, x)
    n = tf.random_normal([2])
    assert _seed2(n) == 38
    assert _run(g) == [4.0]


def test_nested_cond_gradient_keeps_tf_seeds():
    tf.set_random_seed(1)
    x = tf.constant(3.0)
    r = tf.cond(x < 2, lambda: x * 2, lambda: tf.cond(x < 5, lambda: x * 3, lambda: x * 4))
    tf.gradients(r, x)
    assert _seed2(tf.random_normal([2])) == 65


# -- tf.case ----------------------------------------------------------------------------------


def test_case_exclusive_failure_names_the_predicates():
    x = tf.constant(3)
    r = tf.case([(x > 2, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))],
                default=lambda: tf.constant(3), exclusive=True)
    assert r.name == "case/cond/Merge:0"
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"assertion failed: \[Input error: exclusive=True: more than 1 "
                             r"conditions \(Greater:0, Greater_1:0\) evaluated as True:\] "
                             r"\[1 1\]"):
        _run(r)


def test_case_without_default_checks_all_predicates():
    x = tf.constant(3)
    r = tf.case([(x > 2, lambda: tf.constant(1))])
    assert r.name == "case/Const_1:0" and _run(r) == 1
    r = tf.case([(x > 5, lambda: tf.constant(1))])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"\[Input error: None of conditions evaluated as True:\] \[0\]"):
        _run(r)
    r = tf.case([(x > 5, lambda: tf.constant(1)), (x > 6, lambda: tf.constant(2))])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"\[Input error: None of conditions evaluated as True:\] \[0 0\]"):
        _run(r)


def test_case_argument_errors_are_tf_messages():
    x = tf.constant(3)
    with pytest.raises(ValueError, match=r"not enough values to unpack \(expected 2, got 0\)"):
        tf.case([], default=lambda: tf.constant(7))
    with pytest.raises(TypeError, match="^fn for pred Greater:0 must be callable.$"):
        tf.case([(x > 2, tf.constant(1))])
    with pytest.raises(TypeError, match="^pred must be a Tensor, got: True$"):
        tf.case([(True, lambda: tf.constant(1))])
    with pytest.raises(TypeError, match="^pred must be Tensor of type bool: Const:0$"):
        tf.case([(x, lambda: tf.constant(1))])


def test_case_dict_is_taken_in_predicate_name_order():
    x = tf.constant(3)
    b = x < 5  # Less:0
    a = x > 1  # Greater:0: first by name
    r = tf.case({b: lambda: tf.constant(1), a: lambda: tf.constant(2)},
                default=lambda: tf.constant(3))
    assert _run(r) == 2


def test_case_gradient_keeps_tf_seeds():
    tf.set_random_seed(1)
    x = tf.constant(3.0)
    r = tf.case([(x < 2, lambda: x * 2), (x < 5, lambda: x * 3)], default=lambda: x * 4,
                exclusive=True)
    g = tf.gradients(r, x)
    assert _seed2(tf.random_normal([2])) == 85
    assert _run(g) == [3.0]


# -- tf.while_loop ----------------------------------------------------------------------------


def test_while_loop_condition_errors_are_loop_conds():
    with pytest.raises(TypeError, match="^Input 'input' of 'LoopCond' Op has type int32 that "
                                        "does not match expected type of bool.$"):
        tf.while_loop(lambda i: i, lambda i: i - 1, [tf.constant(3)])
    with pytest.raises(ValueError, match=r"^Shape must be rank 0 but is rank 1 for "
                                         r"'while_1/LoopCond' \(op: 'LoopCond'\) with input "
                                         r"shapes: \[1\]\.$"):
        tf.while_loop(lambda i: tf.constant([True]), lambda i: i - 1, [tf.constant(3)])


def test_while_loop_body_and_invariant_structure_errors_start_with_nests_text():
    i = tf.constant(0)
    with pytest.raises(ValueError, match="^The two structures don't have the same nested"):
        tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [i])
    with pytest.raises(ValueError, match="^The two structures don't have the same nested"):
        tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x), [i, tf.ones([1])],
                      shape_invariants=[i.get_shape()])


def test_while_loop_vars_may_not_be_a_bare_tensor():
    # TF 1.15 tests `not loop_vars`: a Tensor's truth value raises
    with pytest.raises(TypeError, match="using a `tf.Tensor` as a Python `bool` is not allowed"):
        tf.while_loop(lambda i: i < 10, lambda i: i + 1, tf.constant(0))


# -- map_fn / scan ----------------------------------------------------------------------------


def test_map_fn_and_scan_check_the_elems_rows_agree():
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="^Dimensions 3 and 2 are not compatible$"):
        tf.map_fn(lambda a: a[0] + a[1], (x, y), dtype=tf.float32)
    with pytest.raises(ValueError, match="^Dimensions 3 and 2 are not compatible$"):
        tf.scan(lambda a, b: a + b[0] * b[1], (x, y), initializer=tf.constant(0.0))


# -- TensorArray ------------------------------------------------------------------------------


def test_tensor_array_op_names_are_tf_1x():
    ta = tf.TensorArray(tf.float32, size=3)
    tb = tf.TensorArray(tf.float32, size=3, tensor_array_name="foo")
    tc = tf.TensorArray(tf.float32, size=3, name="bar")
    assert [t.flow.op.name for t in (ta, tb, tc)] == ["TensorArray", "TensorArray_1", "bar"]
    assert ta.flow.op.inputs[1].op.name == "TensorArray/size"


def test_tensor_array_without_a_loop_keeps_tf_seeds():
    tf.set_random_seed(1)
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, 1.0)
    tf.TensorArray(tf.float32, size=3, tensor_array_name="foo")
    tf.TensorArray(tf.float32, size=3, name="bar")
    ta.read(0)
    assert _seed2(tf.random_normal([2])) == 14  # TF 1.15's


def test_tensor_array_inconsistent_shape_message():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(ValueError, match=r"^Inconsistent shapes: saw \(1,\) but expected \(\) $"):
        ta.write(0, 1.0).write(1, [2.0])
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[3], infer_shape=False)
    with pytest.raises(ValueError, match=r"^Inconsistent shapes: saw \(2,\) but expected "
                                         r"\(3,\) $"):
        ta.write(0, [1.0, 2.0])


def test_tensor_array_grad_is_an_array_of_the_same_size():
    ta = tf.TensorArray(tf.float32, size=2).unstack([[1.0, 2.0], [3.0, 4.0]])
    g = ta.grad("src")
    assert isinstance(g, tf.TensorArray) and g.dtype == tf.float32
    assert g.element_shape.as_list() == [2]
    g = g.write(0, [5.0, 6.0]).write(1, [7.0, 8.0])
    stacked, size = _run([g.stack(), g.size()])
    assert stacked.tolist() == [[5.0, 6.0], [7.0, 8.0]] and size == 2
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(2, 1.0)
    g = ta.grad("src").write(0, 1.0).write(1, 2.0).write(2, 3.0)
    stacked, size = _run([g.stack(), g.size()])
    assert stacked.tolist() == [1.0, 2.0, 3.0] and size == 3


# -- the op count of loop gradients holding TensorArrays (TF 1.15's seeds after them) --------


def _seed_after(build):
    tf.set_random_seed(1)
    build()
    return _seed2(tf.random_normal([2]))


def _map_fn_grad():
    x = tf.constant([1.0, 2.0, 3.0])
    tf.gradients(tf.map_fn(lambda a: a * a, x), x)


def _map_fn_minimize():
    v = tf.Variable([1.0, 2.0, 3.0])
    r = tf.map_fn(lambda a: a * a, v.read_value())
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(r))


def _scan_grad(init):
    def build():
        x = tf.constant([1.0, 2.0, 3.0])
        w = tf.constant(2.0)
        r = tf.scan(lambda a, b: a * w + b, x,
                    initializer=tf.constant(0.0) if init else None)
        tf.gradients(tf.reduce_sum(r), [x, w])
    return build


def _foldl_grad():
    x = tf.constant([1.0, 2.0, 3.0])
    w = tf.constant(2.0)
    tf.gradients(tf.foldl(lambda a, b: a * w + b, x), [x, w])


def _rnn_minimize(cell, optimizer=lambda: tf.train.GradientDescentOptimizer(0.1)):
    def build():
        x = tf.placeholder(tf.float32, [None, 5, 4])
        o, _ = tf.nn.dynamic_rnn(cell(3), x, dtype=tf.float32)
        optimizer().minimize(tf.reduce_sum(o))
    return build


def _array_in_loop_grad():
    x = tf.constant(2.0)

    def body(i, ta):
        return i + 1, ta.write(i, x * tf.cast(i, tf.float32))

    _, ta = tf.while_loop(lambda i, ta: i < 3, body, [0, tf.TensorArray(tf.float32, size=3)])
    tf.gradients(tf.reduce_sum(ta.stack()), x)


def _gated_two_var_loop():
    x = tf.constant(2.0)
    r = tf.while_loop(lambda i, y, z: i < 3, lambda i, y, z: (i + 1, y * x, z + y),
                      [0, tf.constant(1.0), tf.constant(1.0)])
    tf.gradients(r[2], x, gate_gradients=True)


def _array_reads_grad():
    x = tf.constant([1.0, 2.0, 3.0])
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    tf.gradients(ta.read(0) * 2 + ta.read(2) * 3, x)


def _array_scatter_gather_grad():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ta = tf.TensorArray(tf.float32, size=2).scatter([1, 0], x)
    tf.gradients(tf.reduce_sum(ta.gather([1]) * 3), x)


def _rnn_lengths_grad():
    x = tf.placeholder(tf.float32, [None, 5, 4])
    lengths = tf.placeholder(tf.int32, [None])
    o, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(3), x, sequence_length=lengths,
                             dtype=tf.float32)
    tf.random_normal([2])
    tf.gradients(tf.reduce_sum(o), tf.trainable_variables())


@pytest.mark.parametrize("build,seed", [
    (_rnn_lengths_grad, 282), (_rnn_minimize(tf.nn.rnn_cell.GRUCell, lambda: tf.train.AdamOptimizer(0.1)), 534),
    (_map_fn_grad, 123), (_map_fn_minimize, 148), (_scan_grad(True), 153),
    (_scan_grad(False), 164), (_foldl_grad, 123),
    (_rnn_minimize(tf.nn.rnn_cell.BasicRNNCell), 262),
    (_rnn_minimize(tf.nn.rnn_cell.BasicLSTMCell), 453),
    (_array_in_loop_grad, 96), (_gated_two_var_loop, 95), (_array_reads_grad, 41),
    (_array_scatter_gather_grad, 36)])
def test_loop_and_array_gradients_keep_tf_seeds(build, seed):
    # the op seed TF 1.15 gave the first random op made after each gradient
    assert _seed_after(build) == seed


def test_dynamic_rnn_gradient_values_after_counting():
    # (the counted gradient builds the same loop: its values are the finite differences')
    tf.set_random_seed(1)
    xv = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
    x = tf.placeholder(tf.float32, [2, 3, 4])
    o, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), x, dtype=tf.float32)
    loss = tf.reduce_sum(o)
    g = tf.gradients(loss, x)[0]
    eps = 1e-3
    xp, xm = xv.copy(), xv.copy()
    xp[1, 2, 3] += eps
    xm[1, 2, 3] -= eps
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = s.run(g, {x: xv})
        num = (s.run(loss, {x: xp}) - s.run(loss, {x: xm})) / (2 * eps)
    assert got.shape == (2, 3, 4)
    np.testing.assert_allclose(got[1, 2, 3], num, rtol=1e-2, atol=1e-3)


def test_tensor_array_split_concat_and_their_gradients_keep_tf_seeds():
    tf.set_random_seed(1)
    x = tf.constant([1.0, 2.0, 3.0])
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(x, [1, 2])
    assert ta.flow.op.inputs[2].op.inputs[0].op.name == "TensorArraySplit/Cast/x"
    assert _seed2(tf.random_normal([2])) == 9
    c = ta.concat()
    assert _seed2(tf.random_normal([2])) == 16
    g = tf.gradients(tf.reduce_sum(c * tf.constant([1.0, 2.0, 3.0])), x)
    assert _seed2(tf.random_normal([2])) == 63  # TF 1.15's seeds
    assert _run(g)[0].tolist() == [1.0, 2.0, 3.0]


def test_cond_gradient_of_a_gather_is_indexed_slices_as_tf():
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: tf.gather(v, [0, 2]) * 2.0, lambda: tf.ones([2, 2]))
    g = tf.gradients(tf.reduce_sum(r), v)[0]
    assert isinstance(g, tf.IndexedSlices) and g.indices.dtype == tf.int32
    r2 = tf.cond(p, lambda: tf.gather(v, [0]) * 2.0,
                 lambda: tf.gather(v, tf.constant([1], tf.int64)))
    assert tf.gradients(tf.reduce_sum(r2), v)[0].indices.dtype == tf.int64
    r3 = tf.cond(p, lambda: tf.gather(v, [0]), lambda: v[:1] * 3)
    assert isinstance(tf.gradients(tf.reduce_sum(r3), v)[0], tf.Tensor)  # slices + dense
    opt = tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(r))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        taken = s.run(g, {p: True})
        assert taken.values.tolist() == [[2.0, 2.0], [2.0, 2.0]]
        assert taken.indices.tolist() == [0, 2] and taken.dense_shape.tolist() == [3, 2]
        # not taken: TF's zeros for every row (a sparse update then touches them all)
        other = s.run(g, {p: False})
        assert other.values.tolist() == [[0.0, 0.0]] * 3 and other.indices.tolist() == [0, 1, 2]
        for feed in (True, True, False, True):
            s.run(opt, {p: feed})
        # TF 1.15's values after the four steps
        np.testing.assert_allclose(s.run(v), [[-1.4298, -0.4298], [2.0, 3.0], [2.5702, 3.5702]],
                                   atol=1e-4)


def test_variable_read_value_inside_a_loop_or_one_branch_gets_its_gradient():
    x = tf.Variable(1.0)
    v = tf.get_variable("v", [], use_resource=True, initializer=tf.ones_initializer())
    r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + x.read_value()), [0, 0.0])
    rv = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + v.read_value() * 2),
                       [0, 0.0])
    c = tf.cond(tf.constant(True), lambda: x.read_value() * 2, lambda: tf.constant(1.0))
    g = tf.gradients([r[1], rv[1], c], [x, v])
    assert _run(g) == [5.0, 6.0]
    train = tf.train.AdamOptimizer(0.1).minimize(r[1])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            s.run(train)
        assert abs(s.run(x) - 0.700001) < 1e-5  # TF 1.15's


def test_unconnected_zero_gradients_are_made_outside_the_gradients_scope():
    x = tf.constant(2.0)
    y = tf.constant(3.0)
    r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.constant(1.0)])
    g = tf.gradients(r[1], [x, y], unconnected_gradients="zero")
    g2 = tf.gradients(r[0], [x], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert [g[1].name, g2[0].name] == ["zeros_like:0", "zeros_like_1:0"]  # TF 1.15's
    assert _run(g + g2) == [12.0, 0.0, 0.0]


# -- tf.switch_case ---------------------------------------------------------------------------


def test_switch_case_outputs_and_seeds_are_tf_case_ops():
    tf.set_random_seed(1)
    x = tf.constant(2.0)
    r = tf.switch_case(tf.constant(1), [lambda: (x * 2, x), lambda: (x * x, x + 1)], name="sw")
    assert [t.name for t in r] == ["sw/indexed_case/Identity:0", "sw/indexed_case/Identity_1:0"]
    assert _seed2(tf.random_normal([2])) == 8  # TF 1.15's: a Case op and two Identities
    assert _run(list(r)) == [4.0, 3.0]


def test_switch_case_gradient_counts_as_tfs_case_gradient():
    tf.set_random_seed(1)
    x = tf.constant(2.0)
    r = tf.switch_case(tf.constant(1), [lambda: x * 2, lambda: x * x, lambda: tf.constant(1.0)])
    g = tf.gradients(r, x)
    assert _seed2(tf.random_normal([2])) == 12
    assert _run(g) == [4.0]


def test_switch_case_argument_errors_are_tf_messages():
    with pytest.raises(TypeError, match="^branch_index must an integer Tensor, got <dtype: "
                                        "'float32'>$"):
        tf.switch_case(tf.constant(1.0), [lambda: tf.constant(1)])
    with pytest.raises(ValueError, match="^Must provide at least one item in branch_fns$"):
        tf.switch_case(tf.constant(1), [])
    with pytest.raises(TypeError, match="Input 'branch_index' of 'Case' Op has type int64 that "
                                        "does not match expected type of int32."):
        tf.switch_case(tf.constant(1, tf.int64), [lambda: tf.constant(1)])
    with pytest.raises(TypeError, match=r"^branches\[0\] and branches\[1\] arguments to "
                                        r"tf.switch_case must have the same number, type, and "
                                        r"overall structure of return values."):
        tf.switch_case(tf.constant(0), [lambda: tf.constant(1), lambda: tf.constant(1.0)])


def test_tensor_array_stack_and_gather_have_an_unknown_first_dimension():
    # TF 1.15's static shapes: a stack is a gather of a range of the array's size
    ta = tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
    ta = ta.write(2, [5.0, 6.0])
    assert ta.stack().shape.as_list() == [None, 2]
    assert ta.gather([2, 0]).shape.as_list() == [None, 2]
    assert ta.concat().shape.as_list() == [None]
    m = tf.placeholder(tf.float32, [4, 5])
    unstacked = tf.TensorArray(tf.float32, size=4).unstack(m)
    assert unstacked.stack().shape.as_list() == [None, 5]
    assert unstacked.read(1).shape.as_list() == [5]
    # map_fn and scan still know their rows
    assert tf.map_fn(lambda r: r * 2, m).shape.as_list() == [4, 5]


def test_loop_gradient_of_a_gather_is_indexed_slices_as_tf():
    v = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))

    def body(i, acc):
        return i + 1, acc + tf.reduce_sum(tf.gather(v, i + 1) * 2.0)

    tf.set_random_seed(1)
    r = tf.while_loop(lambda i, acc: i < 2, body, [0, 0.0])
    tf.random_normal([2])
    g = tf.gradients(r[1], v)[0]
    assert isinstance(g, tf.IndexedSlices)
    assert _seed2(tf.random_normal([2])) == 131  # TF 1.15's accumulator of slices
    got = _run(g)
    # TF's: one zero row at index 0, then the iterations' rows from the last
    assert got.values.tolist() == [[0.0, 0.0], [2.0, 2.0], [2.0, 2.0]]
    assert got.indices.tolist() == [0, 2, 1] and got.dense_shape.tolist() == [4, 2]


def test_momentum_on_an_embedding_read_in_a_loop_trains_as_tf():
    tf.set_random_seed(1)
    emb = tf.get_variable("emb", [5, 3])
    ids = tf.placeholder(tf.int32, [None])

    def body(i, acc):
        e = tf.nn.embedding_lookup(emb, tf.gather(ids, i))
        return i + 1, acc + tf.reduce_sum(tf.tanh(e))

    r = tf.while_loop(lambda i, acc: i < tf.size(ids), body, [0, 0.0])
    assert isinstance(tf.gradients(r[1], emb)[0], tf.IndexedSlices)
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(r[1])
    w = tf.Variable(tf.random_normal([2]))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for feed in ([0, 1], [1, 1], [3], [2, 0]):
            s.run(train, {ids: feed})
        # TF 1.15's values (row 4, never read, keeps its initial value)
        np.testing.assert_allclose(s.run(emb), [
            [0.11493, 0.16588, -0.00579], [-0.77046, 0.04781, -0.83345],
            [-0.09023, 0.61485, -0.01948], [0.67237, -0.77992, 0.43084],
            [0.27554, 0.09617, -0.58954]], atol=1e-5)
        np.testing.assert_allclose(s.run(w), [-0.23085, 1.60783], atol=1e-5)


def test_tensor_arrays_of_one_array_share_their_element_shape():
    ta = tf.TensorArray(tf.float32, size=3)

    def body(i, t):
        return i + 1, t.write(i, tf.ones([2, 4]) * tf.cast(i, tf.float32))

    _, out = tf.while_loop(lambda i, t: i < 3, body, [0, ta])
    # TF 1.15: the loop's writes refine the array it started from too
    assert ta.element_shape.as_list() == [2, 4] and out.element_shape.as_list() == [2, 4]
    assert ta.stack().shape.as_list() == [None, 2, 4]
    first = tf.TensorArray(tf.float32, size=2)
    written = first.write(0, [1.0, 2.0])
    assert first.element_shape.as_list() == [2]
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        first.write(1, [1.0])
    del written


def _cond_in_loop(gate):
    def build():
        x = tf.constant(2.0)
        r = tf.while_loop(lambda i, y: i < 3, lambda i, y: (
            i + 1, tf.cond(y > 3, lambda: y * x, lambda: y + x)), [0, tf.constant(1.0)])
        tf.gradients(r[1], x, gate_gradients=gate)
    return build


def _cond_in_map_fn():
    x = tf.constant([1.0, -1.0, 2.0])
    r = tf.map_fn(lambda e: tf.cond(e > 0, lambda: e * e, lambda: -e), x)
    tf.gradients(tf.reduce_sum(r), x)


def _cond_on_counter_minimize():
    v = tf.Variable(2.0)
    r = tf.while_loop(lambda i, y: i < 3, lambda i, y: (
        i + 1, tf.cond(i > 1, lambda: y * v, lambda: y)), [0, tf.constant(1.0)])
    tf.train.GradientDescentOptimizer(0.1).minimize(r[1])


@pytest.mark.parametrize("build,seed", [
    (_cond_in_loop(False), 104), (_cond_in_loop(True), 116), (_cond_in_map_fn, 157),
    (_cond_on_counter_minimize, 113)])
def test_gradients_of_loops_holding_conds_keep_tf_seeds(build, seed):
    assert _seed_after(build) == seed  # TF 1.15's
