"""TF 1.x behaviour of variables, variable scopes, templates, initializers, random ops, control
flow, functional ops, TensorArray and gradients that TF 1.15's own kernel tests exposed as
differences: each test pins the TF behaviour with values worked out by hand or with NumPy."""

import numpy as np
import pytest

import tideflow as tf


def _zeros_var():
    return tf.get_variable("dummy", shape=[1], initializer=tf.zeros_initializer())


# -- tf.make_template -------------------------------------------------------------------------

def test_template_scope_created_now_leaves_its_name_scope_to_the_first_call():
    def linear(x, size):
        w = tf.get_variable("w", [x.shape[1], size], initializer=tf.zeros_initializer())
        return tf.matmul(x, w) + 1.0

    with tf.Graph().as_default():
        x = tf.ones((3, 4))
        first = tf.make_template("foo", linear, size=2, create_scope_now_=True)
        a, b = first(x), first(x)
        second = tf.make_template("foo", linear, size=2, create_scope_now_=True)
        c, d = second(x), second(x)
        # ops of the first call sit beside the variables; each later call gets a fresh scope
        assert [t.op.name for t in (a, b, c, d)] == [
            "foo/add", "foo_1/add", "foo_1_1/add", "foo_1_2/add"]
        assert first.variable_scope.name == "foo" and second.variable_scope.name == "foo_1"
        assert [v.name for v in tf.global_variables()] == ["foo/w:0", "foo_1/w:0"]


def test_template_variable_scope_name_ends_in_slash_and_empty_name_is_allowed():
    with tf.Graph().as_default():
        t1 = tf.make_template("s1", _zeros_var)
        t2 = tf.make_template("s1", _zeros_var)
        v1, v2 = t1(), t2()
        assert (t1.variable_scope_name, t2.variable_scope_name) == ("s1/", "s1_1/")
        # "s1/" does not take in "s1_1"'s variable
        assert t1.variables == [v1] and t2.variables == [v2]

        empty = tf.make_template("", _zeros_var)
        with tf.variable_scope("outer"):
            x = tf.get_variable("x", [])
            v = empty()
        assert empty.variable_scope_name == "outer/"
        assert v.name == "outer//dummy:0"
        assert empty.variables == [x, v]  # TF matches the scope name as a prefix
        with pytest.raises(ValueError, match="name cannot be None"):
            tf.make_template(None, _zeros_var)


# -- tf.variable_scope / tf.get_variable ------------------------------------------------------

def test_variable_scope_exited_out_of_order_is_an_error():
    with tf.Graph().as_default(), tf.variable_scope("aa"):
        outer = tf.variable_scope("bb")
        outer.__enter__()
        with tf.variable_scope("cc"), pytest.raises(RuntimeError, match="Improper nesting"):
            outer.__exit__(None, None, None)
        outer.__exit__(None, None, None)
        assert tf.get_variable_scope().name == "aa"


def test_no_regularizer_turns_off_the_scope_regularizer():
    from tideflow.python.ops import variable_scope

    assert variable_scope.no_regularizer is tf.no_regularizer
    with tf.Graph().as_default():
        with tf.variable_scope("s", regularizer=lambda v: tf.reduce_sum(v) * 2.0):
            tf.get_variable("a", [2], initializer=tf.constant_initializer(1.5))
            tf.get_variable("b", [2], regularizer=tf.no_regularizer)
        losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(losses) == [pytest.approx(6.0)]


def test_get_variable_synchronization_decides_trainable_and_reaches_custom_getters():
    seen = []

    def getter(getter, *args, **kwargs):
        seen.append((kwargs["synchronization"], kwargs["aggregation"], kwargs["trainable"]))
        return getter(*args, **kwargs)

    sync, agg = tf.VariableSynchronization, tf.VariableAggregation
    with tf.Graph().as_default():
        with tf.variable_scope("foo", custom_getter=getter) as scope:
            tf.get_variable("b", [])
            tf.get_variable("d", [], synchronization=sync.ON_READ, aggregation=agg.MEAN)
            tf.get_variable("e", [], synchronization=sync.ON_READ, trainable=True)
            tf.get_variable("f", [], synchronization=sync.ON_WRITE)
            v = tf.Variable(1.0, name="g", synchronization=sync.ON_READ)
        assert [x.name for x in scope.trainable_variables()] == ["foo/b:0", "foo/e:0", "foo/f:0"]
        assert seen == [(sync.AUTO, agg.NONE, True), (sync.ON_READ, agg.MEAN, False),
                        (sync.ON_READ, agg.NONE, True), (sync.ON_WRITE, agg.NONE, True)]
        assert v not in tf.trainable_variables() and v.synchronization == sync.ON_READ


def test_initializer_needing_a_shape_without_one_names_the_problem():
    with tf.Graph().as_default():
        assert tf.get_variable("ok", initializer=lambda x=1: [2.0]).shape == (1,)
        with pytest.raises(ValueError, match="The initializer passed is not valid"):
            tf.get_variable("bad", initializer=lambda x: [2.0])


def test_variable_scope_is_per_thread():
    import threading

    names = []
    with tf.Graph().as_default() as g:
        def build():
            with g.as_default(), tf.variable_scope("bar"):
                names.append(tf.get_variable("v", []).name)

        with tf.variable_scope("main"):
            t = threading.Thread(target=build)
            t.start()
            t.join()
            names.append(tf.get_variable("v", []).name)
    assert names == ["bar/v:0", "main/v:0"]


def test_variable_creator_scope_exited_out_of_order_is_an_error():
    def creator(next_creator, **kwargs):
        return next_creator(**kwargs)

    from tideflow.ops import variables

    stack = list(variables._creator_stack())
    try:
        outer = tf.variable_creator_scope(creator)
        outer.__enter__()
        with tf.variable_creator_scope(creator), pytest.raises(RuntimeError, match="nesting"):
            outer.__exit__(None, None, None)
    finally:
        variables._creator_stack()[:] = stack  # the outer scope never closed


# -- initializers -----------------------------------------------------------------------------

def _circular_pad(x, k, axes):
    before, after = k // 2, k - 1 - k // 2
    for ax in axes:
        n = x.shape[ax]
        x = np.concatenate([np.take(x, range(n - before, n), axis=ax), x,
                            np.take(x, range(after), axis=ax)], axis=ax)
    return x


@pytest.mark.parametrize("rank,k", [(1, 4), (2, 3), (3, 2)])
def test_convolutional_orthogonal_kernels_are_isometries_under_circular_padding(rank, k):
    from tideflow.python.ops import init_ops

    make = {1: init_ops.convolutional_orthogonal_1d, 2: init_ops.convolutional_orthogonal_2d,
            3: init_ops.convolutional_orthogonal_3d}[rank]
    x = np.random.RandomState(0).randn(*([2] + [5] * rank + [3]))
    with tf.Graph().as_default():
        kernel = make(gain=2.0, seed=3)([k] * rank + [3, 4], dtype=tf.float64)
        conv = {1: tf.nn.conv1d, 2: tf.nn.conv2d, 3: tf.nn.conv3d}[rank]
        y = conv(tf.constant(_circular_pad(x, k, range(1, rank + 1))), kernel,
                 1 if rank == 1 else [1] * (rank + 2), "VALID")
        with tf.Session() as s:
            y = s.run(y)
    assert y.shape == (2,) + (5,) * rank + (4,)
    # an orthogonal convolution keeps every input's norm (times the gain)
    assert np.linalg.norm(y) == pytest.approx(2.0 * np.linalg.norm(x), rel=1e-12)
    with pytest.raises(ValueError, match="In_filters cannot be greater than out_filters"):
        make()([k] * rank + [5, 4])


def test_convolutional_delta_orthogonal_holds_an_orthogonal_matrix_at_the_centre():
    from tideflow.python.ops import init_ops

    assert init_ops.identity_initializer is tf.initializers.identity
    with tf.Graph().as_default():
        v = tf.get_variable("k", [3, 5, 4, 6], dtype=tf.float64,
                            initializer=init_ops.convolutional_delta_orthogonal(gain=1.5))
        with tf.Session() as s:
            s.run(v.initializer)
            v = s.run(v)
    centre = v[1, 2]
    assert np.count_nonzero(np.delete(v.reshape(15, 4, 6), 1 * 5 + 2, axis=0)) == 0
    np.testing.assert_allclose(centre @ centre.T, 2.25 * np.eye(4), atol=1e-12)
    with pytest.raises(ValueError, match="at least three-dimensional"):
        init_ops.convolutional_delta_orthogonal()([4, 4])


def test_random_uniform_int_empty_range_error_text():
    with tf.Graph().as_default():
        bad = tf.random_uniform([3], 4, 4, dtype=tf.int64)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                              match="Need minval < maxval, got 4 >= 4"):
            s.run(bad)


# -- functional_ops.If / While / For over Defun functions ------------------------------------

def test_functional_if_while_for_over_defuns():
    from tideflow.python.framework import function
    from tideflow.python.ops import functional_ops

    with tf.Graph().as_default():
        @function.Defun(tf.float32)
        def twice(x):
            return x * 2

        @function.Defun(tf.float32)
        def thrice_plus_one(x):
            return x * 3 + 1

        @function.Defun(tf.float32, tf.float32)
        def positive(n, _):
            return n > 0

        @function.Defun(tf.float32, tf.float32)
        def count_down(n, total):
            return n - 1, total + n

        @function.Defun(tf.int32, tf.float32)
        def add_index(i, total):
            return total + tf.cast(i, tf.float32)

        x = tf.placeholder(tf.float32)
        branch = functional_ops.If(tf.greater(x, 0), [x], twice, thrice_plus_one)
        n = tf.placeholder(tf.float32)
        loop = functional_ops.While([n, 0.0], positive, count_down, name="my_while")
        up = functional_ops.For(1, 21, 1, [0.0], add_index)
        down = functional_ops.For(100, 0, -1, [0.0], add_index)
        assert len(branch) == 1 and len(loop) == 2 and len(up) == 1
        with tf.Session() as s:
            assert s.run(branch, {x: 9.0}) == [18.0]
            assert s.run(branch, {x: -8.0}) == [-23.0]
            assert s.run(loop, {n: 100.0}) == [0.0, 5050.0]  # sum(range(101))
            assert s.run(up + down) == [210.0, 5050.0]

        @function.Defun(tf.float32, tf.float32)
        def three_outputs(n, total):
            return n - 1, total + n, total

        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="While loop body returned 3 arguments. Expected: 2"):
            functional_ops.While([5.0, 0.0], positive, three_outputs)


# -- TensorArray ------------------------------------------------------------------------------

def test_tensor_array_identity_carries_control_dependencies():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2).write(0, 5.0)
        counter = tf.Variable(0.0)
        with tf.control_dependencies([counter.assign_add(1.0)]):
            ta = ta.identity()
        read = ta.read(0)
        with tf.Session() as s:
            s.run(counter.initializer)
            assert s.run(read) == 5.0
            assert s.run(counter) == 1.0  # the read ran the assign first


def test_tensor_array_without_shape_inference_still_checks_the_declared_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, infer_shape=False, element_shape=[None, 2])
        ta = ta.write(0, tf.ones([4, 2])).write(1, tf.ones([1, 2]))  # compatible rows
        with pytest.raises(ValueError, match="Inconsistent shapes"):
            ta.write(2, tf.ones([1, 3]))
        assert ta.element_shape.as_list() == [None, 2]  # not narrowed to [4, 2]


def test_tensor_array_split_shape_and_gradient():
    with tf.Graph().as_default():
        value = tf.constant([[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]])
        even = tf.TensorArray(tf.float32, size=0, dynamic_size=True).split(value, [1, 1, 1])
        assert even.read(0).get_shape() == (1, 2)  # equal constant lengths give the shape
        uneven = tf.TensorArray(tf.float32, size=0, dynamic_size=True).split(value, [1, 2])
        assert uneven.read(0).get_shape().ndims is None

        x = tf.constant([1.0, 2.0, 3.0])
        grown = tf.TensorArray(tf.float32, size=3, dynamic_size=True).split(x, [1, 1, 1])
        out = grown.write(3, [4.0]).concat()
        grad = tf.gradients(out, x)[0]
        assert grad.get_shape() == (3,)
        lengths = tf.placeholder(tf.int64)
        bad = tf.TensorArray(tf.float32, size=3).split([1.0, 2.0, 3.0], lengths)
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(out), [1.0, 2.0, 3.0, 4.0])
            # the element written after the split is not part of x's gradient
            np.testing.assert_array_equal(s.run(grad), [1.0, 1.0, 1.0])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected lengths to be a vector, received shape: \[\]"):
                s.run(bad.flow, {lengths: 1})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected sum of lengths to be equal to values.shape\[0\]"):
                s.run(tf.TensorArray(tf.float32, size=3).split([1.0, 2.0, 3.0], [1]).flow)


# -- tf.assert_* ------------------------------------------------------------------------------

def test_static_asserts_check_broadcasting_first():
    with tf.Graph().as_default():
        # the comparison op is built first, so shapes that cannot broadcast fail its shape
        # check, not NumPy's broadcasting
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.assert_equal(tf.constant([1, 1, 1]), tf.constant([1, 1]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Custom error message"):
            tf.assert_less(1, 1, message="Custom error message")
        sparse = tf.SparseTensor(indices=[[0, 0]], values=[1], dense_shape=[2, 2])
        with pytest.raises(TypeError, match='"proper" iterable'):
            tf.debugging.assert_proper_iterable(sparse)
        x = tf.placeholder(tf.float32)
        assert tf.debugging.ensure_shape(x, (2, None)).get_shape().as_list() == [2, None]


def test_assert_rank_in_takes_rank_tensors():
    from tideflow.python.ops import check_ops

    with tf.Graph().as_default():
        x = tf.constant([42.0, 43.0], name="my_tensor")
        with pytest.raises(ValueError, match="Rank must be a scalar"):
            check_ops.assert_rank_in(x, (np.int32(1), np.array([2, 1], np.int32)))
        with pytest.raises(TypeError, match="must be of type"):
            check_ops.assert_rank_in(x, (1, 0.5))
        r0 = tf.placeholder(tf.int32)
        r1 = tf.placeholder(tf.int32)
        check = check_ops.assert_rank_in(x, (r0, r1))
        with tf.Session() as s:
            s.run(check, {r0: 1, r1: 3})  # rank 1 is among (1, 3)
            with pytest.raises(tf.errors.InvalidArgumentError, match="must have rank in"):
                s.run(check, {r0: 0, r1: 2})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Rank must be a scalar"):
                s.run(check, {r0: 1, r1: [2, 1]})


# -- tf.cond with composite tensors; switch/merge of IndexedSlices ----------------------------

def test_cond_returns_indexed_slices_sparse_and_ragged_tensors():
    with tf.Graph().as_default():
        pred = tf.less(1, 2)
        values = tf.constant([10])
        i32 = tf.constant([0], dtype=tf.int32)
        i64 = tf.constant([0], dtype=tf.int64)
        slices = tf.cond(pred, lambda: tf.IndexedSlices(values + 1, i32),
                         lambda: tf.IndexedSlices(values - 1, i64))
        assert isinstance(slices, tf.IndexedSlices)
        assert slices.indices.dtype == tf.int64  # mixed index types widen, as TF's cond does

        idx = tf.constant([[0], [3]], dtype=tf.int64)
        shape = tf.constant([10], dtype=tf.int64)
        sp_vals = tf.constant([2.0, 4.0])
        sparse = tf.cond(pred, lambda: tf.SparseTensor(idx + 1, sp_vals + 1, shape),
                         lambda: tf.SparseTensor(idx, sp_vals - 1, shape))
        assert isinstance(sparse, tf.SparseTensor) and sparse.values.get_shape() == (2,)

        rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
        ragged = tf.cond(pred, lambda: tf.concat([rt + 2, [[100]]], axis=0), lambda: rt[:2] - 2)
        with tf.Session() as s:
            got = s.run([slices.values, slices.indices, sparse.values, sparse.indices,
                         ragged.values, ragged.row_splits])
        assert got[0].tolist() == [11] and got[1].tolist() == [0]
        assert got[2].tolist() == [3.0, 5.0] and got[3].tolist() == [[1], [4]]
        assert got[4].tolist() == [3, 4, 5, 6, 7, 8, 100] and got[5].tolist() == [0, 2, 3, 6, 7]

        # TF 1.15's cond v1 (control flow v2 raises TypeError "Cannot reconcile ...")
        with pytest.raises(ValueError, match="Incompatible return values of true_fn"):
            tf.cond(pred, lambda: tf.IndexedSlices(values + 1, i32), lambda: values + 1)


def test_switch_and_merge_carry_indexed_slices():
    from tideflow.python.ops import control_flow_ops

    with tf.Graph().as_default():
        data = tf.IndexedSlices(tf.constant([1, 2, 3]), tf.constant([0, 2, 4]))
        false_side, true_side = control_flow_ops.switch(data, tf.constant(True))
        assert isinstance(true_side, tf.IndexedSlices)
        merged, index = control_flow_ops.merge([false_side, true_side])
        with tf.Session() as s:
            values, indices, which = s.run([merged.values, merged.indices, index])
        assert values.tolist() == [1, 2, 3] and indices.tolist() == [0, 2, 4] and which == 1


# -- tf.while_loop with composite loop variables ----------------------------------------------

def test_while_loop_carries_sparse_indexed_slices_and_ragged_tensors():
    with tf.Graph().as_default():
        i = tf.constant(0)
        sparse = tf.SparseTensor(tf.constant([[0], [3]], tf.int64), tf.constant([2.0, 4.0]),
                                 tf.constant([10], tf.int64))

        def grow(i, x):  # adds an entry each step: only the rank is kept by default
            extra = tf.SparseTensor(tf.cast(tf.fill([1, 1], i + 4), tf.int64), [1.0],
                                    x.dense_shape)
            return i + 1, tf.sparse_add(x, extra)

        _, grown = tf.while_loop(lambda i, _: i < 3, grow, [i, sparse])
        assert grown.indices.shape.as_list() == [None, 1]
        assert grown.dense_shape.shape.as_list() == [1]

        slices = tf.IndexedSlices(tf.constant([[2.0, 4.0], [3.0, 5.0]]), tf.constant([0, 3]),
                                  tf.constant([10, 2]))
        _, doubled = tf.while_loop(
            lambda i, _: i < 3,
            lambda i, x: (i + 1, tf.IndexedSlices(x.values * 2.0, x.indices, x.dense_shape)),
            [i, slices])
        assert isinstance(doubled, tf.IndexedSlices)
        assert doubled.values.shape.as_list() == [2, 2]

        rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
        _, widened = tf.while_loop(lambda i, _: i < 2,
                                   lambda i, x: (i + 1, tf.concat([x, x], axis=1)), [i, rt])
        assert widened.row_splits.shape.as_list() == [4]  # rows kept, values may grow
        with tf.Session() as s:
            got = s.run([grown.indices, grown.values, doubled.values, widened.values,
                         widened.row_splits])
        assert got[0].ravel().tolist() == [0, 3, 4, 5, 6]
        assert got[1].tolist() == [2.0, 4.0, 1.0, 1.0, 1.0]
        np.testing.assert_array_equal(got[2], np.array([[2.0, 4.0], [3.0, 5.0]]) * 8)
        assert got[3].tolist() == [1, 2] * 4 + [3] * 4 + [4, 5, 6] * 4  # each row doubled twice
        assert got[4].tolist() == [0, 8, 12, 24]


def test_while_loop_shape_invariants_accept_tensor_specs_and_report_structure():
    with tf.Graph().as_default():
        i = tf.constant(0)
        x = tf.constant([1])
        out = tf.while_loop(lambda i, _: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)),
                            [i, x], [tf.TensorSpec([], tf.int32), tf.TensorSpec(None, tf.int32)])
        assert out[1].shape.ndims is None
        with pytest.raises(ValueError,
                           match="The two structures don't have the same nested structure"):
            tf.while_loop(lambda i, *x: i < 10, lambda i, *x: (i, i) + x, [i, x])


def test_loop_condition_sees_updates_of_a_scalar_variable():
    # a variable read is the live value (TF: the read of a ref variable on its device), so a
    # loop whose condition reads the variable its body increments stops when it should
    with tf.Graph().as_default():
        counter = tf.Variable(0)

        def body(i):
            with tf.control_dependencies([tf.assign_add(counter, 1)]):
                return i + 1

        steps = tf.while_loop(lambda i: tf.less(counter, 3), body, [tf.constant(0)],
                              maximum_iterations=10)
        with tf.Session() as s:
            s.run(counter.initializer)
            assert s.run(steps) == 3
            assert s.run(counter) == 3


# -- gradients inside control flow ------------------------------------------------------------

def test_gradients_in_a_loop_body_with_respect_to_outer_tensors_and_variables():
    with tf.Graph().as_default():
        w = tf.Variable(3.0)
        x = tf.placeholder(tf.float32, [])

        def body(i, acc_w, acc_x):
            loss = w * w * x
            dw, dx = tf.gradients(loss, [w, x])  # taken at the body's view of w and x
            return i + 1, acc_w + dw, acc_x + dx

        _, dw, dx = tf.while_loop(lambda i, *_: i < 2, body, [0, 0.0, 0.0])
        with tf.Session() as s:
            s.run(w.initializer)
            # d(w^2 x)/dw = 2 w x = 12, d/dx = w^2 = 9, summed over two iterations
            assert s.run([dw, dx], {x: 2.0}) == [24.0, 18.0]


def test_sparse_read_gathers_rows_with_a_sparse_gradient():
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(5.0), use_resource=True)
        rows = v.sparse_read([1, 3])
        grad = tf.gradients(tf.reduce_sum(rows * rows), v)[0]
        assert isinstance(grad, tf.IndexedSlices)
        with tf.Session() as s:
            s.run(v.initializer)
            assert s.run(rows).tolist() == [1.0, 3.0]
            g = s.run(grad)
        dense = np.zeros(5)
        np.add.at(dense, g.indices, g.values)
        assert dense.tolist() == [0.0, 2.0, 0.0, 6.0, 0.0]  # d(sum r^2)/dr = 2r


def test_while_gradient_is_none_for_a_tensor_the_loop_only_casts_to_int():
    with tf.Graph().as_default():
        v = tf.placeholder(tf.float32, [])

        def step(i, a, ta):
            a += tf.cast(v, tf.int32)
            return i + 1, a, ta.write(i, a)

        i, _, ta = tf.while_loop(lambda i, *_: i < 4, step,
                                 [0, 0, tf.TensorArray(tf.int32, size=4)])
        assert tf.gradients(ta.read(i - 1), v) == [None]


def test_defun_with_two_gradients_is_refused():
    from tideflow.python.framework import function

    def grad_func(x, g):
        return g

    def python_grad(op, g):
        return g

    with pytest.raises(ValueError, match="Gradient defined twice"):
        function.Defun(tf.float32, grad_func=function.Defun(tf.float32, tf.float32)(grad_func),
                       python_grad_func=python_grad)(lambda x: x * x)


def test_cond_of_operations_returns_the_predicate_after_the_branch():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool)
        v = tf.Variable(1.0)
        ran, value = tf.cond(p, lambda: [tf.assign(v, 2.0).op, tf.constant(1)],
                             lambda: [tf.no_op(), tf.constant(2)])
        assert ran.dtype == tf.bool and [ran.op.name, value.op.name] == [
            "cond/Merge", "cond/Merge_1"]
        with tf.Session() as s:
            s.run(v.initializer)
            assert s.run([ran, value], {p: False}) == [False, 2]
            assert s.run(v) == 1.0
            assert s.run([ran, value], {p: True}) == [True, 1]
            assert s.run(v) == 2.0


def test_cond_returns_tensor_arrays_written_in_a_branch():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool)
        ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
        out = tf.cond(p, lambda: ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0]),
                      lambda: ta.write(0, [5.0, 6.0]).write(1, [7.0, 8.0]))
        assert isinstance(out, tf.TensorArray)
        stacked = out.stack()
        with tf.Session() as s:
            assert s.run(stacked, {p: True}).tolist() == [[1.0, 2.0], [3.0, 4.0]]
            assert s.run(stacked, {p: False}).tolist() == [[5.0, 6.0], [7.0, 8.0]]


def test_stateless_ops_take_unsigned_numpy_seeds_bit_for_bit():
    # TF converts a uint64 seed to int64 keeping the bits; seeds with the high bit set are
    # then the same seed as their wrapped int64 value
    big = np.array([2**63 + 5, 7], np.uint64)
    wrapped = big.astype(np.int64)  # [-(2**63) + 5, 7]
    with tf.Graph().as_default():
        a = tf.random.stateless_uniform([4], seed=big)
        b = tf.random.stateless_uniform([4], seed=tf.constant(wrapped))
        with tf.Session() as s:
            va, vb = s.run([a, b])
    np.testing.assert_array_equal(va, vb)
    assert np.all((va >= 0) & (va < 1))


def test_py_func_unsupported_results_are_internal_errors():
    from tideflow.python.ops import script_ops

    assert script_ops.eager_py_func is tf.py_function
    with tf.Graph().as_default():
        structured, = tf.py_func(lambda: np.zeros(2, dtype=[("a", np.float32)]), [],
                                 [tf.float32])
        obj, = tf.py_func(lambda: {"a": 1}, [], [tf.int64])
        with tf.Session() as s:
            with pytest.raises(tf.errors.InternalError, match="Unsupported numpy data type"):
                s.run(structured)
            with pytest.raises(tf.errors.InternalError, match="Unsupported object type"):
                s.run(obj)


def test_variable_with_an_unknown_shape_takes_values_of_other_shapes():
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros([1, 1]), shape=tf.TensorShape(None))
        assert v.shape.ndims is None  # the given shape, not the initial value's
        rows = tf.Variable(np.ones([1, 2]), shape=[None, 2])
        assert rows.shape.as_list() == [None, 2]
        grow = v.assign(np.arange(4.0).reshape(2, 2))
        more = rows.assign(np.ones([3, 2]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run(grow), [[0.0, 1.0], [2.0, 3.0]])
            assert s.run(more).shape == (3, 2) and s.run(rows).shape == (3, 2)


def test_variables_module_holds_partitioned_variable():
    from tideflow.python.ops import variables

    with tf.Graph().as_default():
        v0, v1 = tf.Variable([0]), tf.Variable([1])
        v0._set_save_slice_info(tf.Variable.SaveSliceInfo(v0.name, [2], [0], [1]))
        v1._set_save_slice_info(tf.Variable.SaveSliceInfo(v0.name, [2], [1], [1]))
        parts = variables.PartitionedVariable(name="two", shape=[2], dtype=tf.int32,
                                              variable_list=[v1, v0], partitions=[2])
        assert list(parts) == [v0, v1]  # sorted by their slice offsets
        assert v0._distribute_strategy is None
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(tf.convert_to_tensor(parts)).tolist() == [0, 1]


def test_py_func_without_outputs():
    calls = []
    with tf.Graph().as_default():
        stateful = tf.py_func(lambda x: calls.append(int(x)), [tf.constant(2, tf.int64)], [])
        stateless = tf.py_func(lambda x: None, [tf.constant(3, tf.int64)], [], stateful=False)
        assert isinstance(stateful, tf.Operation)
        assert stateless == []  # TF's stateless wrapper returns its (empty) list of outputs
        with tf.Session() as s:
            assert s.run(stateful) is None and calls == [2]
            assert s.run(stateless) == []
