"""TF 1.x behaviour of variables, state ops, py_func/py_function and the smaller array kernels
that TF 1.15's own kernel tests exposed as differences: each test pins the TF behaviour with
values of our own, worked out by hand or with NumPy."""

import numpy as np
import pytest

import tideflow as tf

# -- tf.py_func / tf.py_function --------------------------------------------------------------

def test_py_func_results_without_a_tensor_type_are_internal_errors():
    with tf.Graph().as_default():
        rec, = tf.py_func(lambda: np.ones(3, dtype=[("u", np.int32), ("v", np.int8)]), [],
                          [tf.int32])
        objs, = tf.py_func(lambda: [object()], [], [tf.float32])
        with tf.Session() as s:
            with pytest.raises(tf.errors.InternalError, match="Unsupported numpy data type"):
                s.run(rec)
            with pytest.raises(tf.errors.InternalError, match="Unsupported object type object"):
                s.run(objs)


def test_py_function_runs_the_tideflow_ops_its_function_builds():
    def f(a, b):
        return [tf.matmul(a, b) * 2, tf.reduce_sum(b)]

    with tf.Graph().as_default() as g:
        a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        b = tf.constant([[1.0], [-1.0]])
        prod, total = tf.py_function(f, [a, b], [tf.float32, tf.float32])
        assert prod.op.type == "EagerPyFunc"
        n_ops = len(g.get_operations())
        with tf.Session() as s:
            got_prod, got_total = s.run([prod, total])
        # the function's ops went into a graph of their own, not this one
        assert len(g.get_operations()) == n_ops
    np.testing.assert_allclose(got_prod, [[-2.0], [-2.0]])
    assert got_total == 0.0


def test_py_function_gradient_traces_the_function():
    with tf.Graph().as_default():
        x = tf.constant(1.5)
        y = tf.constant(-2.0)
        p, q = tf.py_function(lambda a, b: (a * a * b, a - 3.0 * b), [x, y],
                              [tf.float32, tf.float32])
        dx, dy = tf.gradients(p + 2.0 * q, [x, y])
        # d/dx = 2xy + 2 = -4; d/dy = x^2 - 6 = -3.75
        with tf.Session() as s:
            assert s.run([dx, dy]) == [pytest.approx(-4.0), pytest.approx(-3.75)]
        # a function tideflow ops cannot trace has a zero gradient, as TF 1.15's tape that
        # sees no ops gives (its gradient is an EagerPyFunc all the same)
        z = tf.py_function(lambda a: np.float32(np.sin(a.numpy())), [x], tf.float32)
        gz = tf.gradients(z, x)
        assert gz[0].name == "gradients_1/EagerPyFunc_1_grad/EagerPyFunc:0"
        with tf.Session() as s:
            assert s.run(gz) == [0.0]
        # tf.py_func (PyFunc) stays not differentiable
        w = tf.py_func(lambda a: a, [x], tf.float32)
        assert tf.gradients(w, x) == [None]


def test_py_function_refuses_a_non_callable_and_a_returned_variable():
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        with pytest.raises(ValueError, match="callable"):
            tf.py_function(c, [c], tf.float32)
        out = tf.py_function(lambda: tf.Variable(0.0), [], tf.float32)
        with tf.Session() as s, pytest.raises(tf.errors.UnknownError,
                                              match="Attempting to return a variable"):
            s.run(out)


# -- tf.Variable ----------------------------------------------------------------------------

def test_variable_def_keeps_synchronization_and_aggregation():
    from tideflow.python.ops import variables

    with tf.Graph().as_default():
        v = tf.Variable(2.5, synchronization=tf.VariableSynchronization.ON_WRITE,
                        aggregation=tf.VariableAggregation.MEAN)
        proto = v.to_proto()
        assert (proto.synchronization, proto.aggregation) == (2, 2)
        back = tf.Variable(variable_def=proto)
        assert back.synchronization is tf.VariableSynchronization.ON_WRITE
        assert back.aggregation is tf.VariableAggregation.MEAN
        # defaults travel as AUTO / NONE
        plain = tf.Variable(1.0, trainable=False).to_proto()
        assert (plain.synchronization, plain.aggregation, plain.trainable) == (0, 0, False)
    assert variables.VariableAggregationV2.ONLY_FIRST_REPLICA == \
        variables.VariableAggregation.ONLY_FIRST_TOWER
    assert variables.VariableSynchronization is tf.VariableSynchronization


# -- session tensor handles -----------------------------------------------------------------

def test_a_session_handle_feeds_the_tensor_it_stands_for():
    from tideflow.python.ops import session_ops

    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.constant([1.5, -2.0])
        y = x * 3.0
        z = y + 1.0
        h = s.run(session_ops.get_session_handle(y))
        np.testing.assert_allclose(s.run(z, {y: h}), [5.5, -5.0])
        # the handle of another tensor replaces the fed one wholesale
        h2 = s.run(tf.get_session_handle(tf.constant([10.0, 20.0])))
        np.testing.assert_allclose(s.run(z, {y: h2}), [11.0, 21.0])
        # a value of another dtype is not taken in
        hi = s.run(tf.get_session_handle(tf.constant([1, 2])))
        # TF 1.15: the call frame refuses the int32 tensor the handle stands for
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Expects arg\[0\] to be float but int32 is provided$"):
            s.run(z, {y: hi})
        # the raw handle feeds delete_session_tensor's placeholder
        raw = h.get_raw_handle()
        assert isinstance(raw, str) and raw == h.handle
        ph, delete = tf.delete_session_tensor(raw)
        s.run(delete, {ph: raw})
        with pytest.raises(tf.errors.NotFoundError):
            h.eval()


# -- bit counting and packing -----------------------------------------------------------------

def test_compare_and_bitpack_and_population_count():
    from tideflow.python.ops import bitwise_ops, math_ops

    with tf.Graph().as_default():
        x = tf.constant([[2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.5, 1.5,
                          1.5, 1.5]])
        packed = math_ops.compare_and_bitpack(x, 1.0)
        assert packed.dtype == tf.uint8 and packed.shape.as_list() == [1, 2]
        free = tf.placeholder(tf.float32, [3, None])
        assert bitwise_ops.compare_and_bitpack(free, 0.0).shape.as_list() == [3, None]
        with pytest.raises(ValueError, match="evenly divisible by 8 but is 12"):
            bitwise_ops.compare_and_bitpack(tf.zeros([2, 12]), 0.0)
        with pytest.raises(ValueError, match="rank 0"):
            bitwise_ops.compare_and_bitpack(tf.zeros([8]), [0.0])
        counts = bitwise_ops.population_count(tf.constant([-2, 6, 0], tf.int32))
        with tf.Session() as s:
            assert s.run(packed).tolist() == [[0b10000001, 0b00001111]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="divisible by 8"):
                s.run(bitwise_ops.compare_and_bitpack(free, 0.0), {free: np.ones((3, 4))})
            assert s.run(counts).tolist() == [31, 2, 0]
            assert s.run(counts).dtype == np.uint8


# -- counting ops' shape functions ----------------------------------------------------------

def test_counting_shape_errors_use_tf_wording():
    from tideflow.python.ops import gen_math_ops

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Shape must be rank 0 but is rank 1 for 'Bincount'"):
            gen_math_ops.bincount([4, 0, 2], [3], [])
        with pytest.raises(ValueError, match=r"size \(-2\) must be non-negative"):
            gen_math_ops.bincount([4, 0, 2], -2, [])
        assert gen_math_ops.bincount([4, 0, 2], 7, []).shape.as_list() == [7]
        assert gen_math_ops.bincount([4], tf.placeholder(tf.int32), []).shape.as_list() == [None]
        with pytest.raises(ValueError, match=r"^Shape must be rank 1 but is rank 2 for 'ListDiff'"):
            tf.setdiff1d([[1, 2]], [1])


def test_state_ops_module_holds_every_ref_update():
    from tideflow.python.ops import state_ops

    with tf.Graph().as_default():
        v = tf.Variable([4.0, 9.0, 16.0])
        ops_ = [state_ops.scatter_mul(v, [0], [0.5]), state_ops.scatter_div(v, [1], [3.0]),
                state_ops.scatter_min(v, [2], [10.0]), state_ops.scatter_max(v, [0], [5.0])]
        with tf.Session() as s:
            s.run(v.initializer)
            for op in ops_:
                s.run(op)
            np.testing.assert_allclose(s.run(v), [5.0, 3.0, 10.0])
            s.run(state_ops.scatter_nd_update(v, [[1]], [-1.0]))
            assert s.run(v)[1] == -1.0
        assert state_ops.count_up_to is tf.count_up_to
    with pytest.raises(AttributeError):
        state_ops.scatter_pow  # noqa: B018


def test_add_check_numerics_ops_refuses_graphs_with_cond_or_while_loop():
    msg = r"not compatible with TensorFlow control flow operations such as `tf\.cond\(\)`"
    with tf.Graph().as_default():
        flag = tf.placeholder(tf.bool, [])
        tf.cond(flag, lambda: tf.constant(1.5), lambda: tf.constant(-1.5))
        with pytest.raises(ValueError, match=msg):
            tf.add_check_numerics_ops()
    with tf.Graph().as_default():
        tf.while_loop(lambda x: x < 3.0, lambda x: x + 1.0, [tf.constant(0.5)])
        with pytest.raises(ValueError, match=msg):
            tf.add_check_numerics_ops()
    with tf.Graph().as_default():
        bad = tf.log(tf.constant([-1.0, 1.0]))
        check = tf.add_check_numerics_ops()
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match="NaN"):
            s.run([bad, check])


# -- shape-function wording of one_hot, where, accumulate_n, weights broadcasting ----------------

def test_small_array_ops_raise_in_tf_words():
    from tideflow.python.ops import weights_broadcast_ops

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^axis must be >= -1 for 'one_hot'"):
            tf.one_hot([1, 0], 4, axis=-3)
        with pytest.raises(ValueError, match="Dimension size, given by scalar input 1, must be "
                                             "non-negative but is -4"):
            tf.one_hot([1, 0], -4)
        # (TF 1.15 merges then/else with the cond, in that order)
        with pytest.raises(ValueError, match=r"^Dimension 1 in both shapes must be equal, but are "
                                             r"2 and 3. Shapes are \[2,2\] and \[2,3\]"):
            tf.where(tf.zeros([2, 3], tf.bool), tf.zeros([2, 2]), tf.ones([2, 2]))
        with pytest.raises(ValueError, match="inputs must be a list of at least one Tensor with "
                                             "the same dtype and shape"):
            tf.accumulate_n([])
        with pytest.raises(ValueError, match=r"Mismatch at dim 1\. values\.shape=\[4 3\] "
                                             r"weights\.shape=\[4 2\]\."):
            weights_broadcast_ops.assert_broadcastable(tf.ones([4, 2]), tf.zeros([4, 3]))


# -- temporary variables ------------------------------------------------------------------------

def test_temporary_variables_live_for_one_step():
    from tideflow.python.ops import gen_state_ops

    with tf.Graph().as_default(), tf.Session() as s:
        t = gen_state_ops.temporary_variable([3], tf.int32, var_name="sum")
        t = tf.assign_add(tf.assign(t, [1, 2, 3]), [10, 10, 10])
        out = gen_state_ops.destroy_temporary_variable(t, var_name="sum")
        assert s.run(out).tolist() == [11, 12, 13]
        # the same name twice in one step
        a = tf.assign(gen_state_ops.temporary_variable([1], tf.float32, var_name="x"), [1.0])
        b = tf.assign(gen_state_ops.temporary_variable([1], tf.float32, var_name="x"), [2.0])
        with pytest.raises(tf.errors.AlreadyExistsError):
            s.run(a + b)
        # destroying a name never made, or one already destroyed
        nameless = gen_state_ops.temporary_variable([1], tf.float32)
        with pytest.raises(tf.errors.NotFoundError):
            s.run(gen_state_ops.destroy_temporary_variable(nameless, var_name="other"))
        # a variable left alive is gone with its step: the next step makes it again
        kept = tf.identity(gen_state_ops.temporary_variable([2], tf.float32, var_name="kept"))
        s.run(kept)
        s.run(kept)


def test_bincount_of_a_constant_has_a_static_length():
    with tf.Graph().as_default():
        counts = tf.bincount([0, 4, 4, 2])
        clipped = tf.bincount([0, 4, 4, 2], minlength=7, maxlength=6)
        empty = tf.bincount(np.zeros([0], np.int32), minlength=2)
        free = tf.bincount(tf.placeholder(tf.int32, [None]))
        assert [t.shape.as_list() for t in (counts, clipped, empty, free)] == [
            [5], [6], [2], [None]]
        with tf.Session() as s:
            assert s.run(counts).tolist() == [1, 0, 1, 0, 2]
            assert s.run(clipped).tolist() == [1, 0, 1, 0, 2, 0]
            assert s.run(empty).tolist() == [0, 0]


def test_py_function_hands_scalar_strings_over_as_eager_values():
    with tf.Graph().as_default():
        word = tf.constant("tide")
        shout = tf.py_function(lambda w: w.numpy().decode().upper() + "!", [word], tf.string)
        kind = tf.py_function(lambda w: str(w.dtype), [word], tf.string)
        size = tf.py_function(lambda w: tf.strings.length(w), [word], tf.int32)
        with tf.Session() as s:
            assert s.run([shout, kind, size]) == [b"TIDE!", b"<dtype: 'string'>", 4]


def test_control_flow_util_answers_for_functional_control_flow():
    from tideflow.ops import control_flow_ops
    from tideflow.python.ops import control_flow_util as util

    with tf.Graph().as_default() as g:
        flag = tf.placeholder(tf.bool, [])
        low, high = control_flow_ops.switch(tf.constant(2.0), flag)
        joined = control_flow_ops.merge([low, high])[0]
        assert util.IsSwitch(low.op) and util.IsCondSwitch(low.op)
        assert util.IsMerge(joined.op) and not util.IsLoopMerge(joined.op)
        looped = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)])
        # tf.while_loop is one While op: nothing sits in a v1 loop context
        assert not util.IsInWhileLoop(looped.op) and not util.IsLoopExit(looped.op)
        assert not util.IsInXLAContext(joined.op) and util.GetOutputContext(joined.op) is None
        assert util.EnableControlFlowV2(g) is False
