"""What running tf-encrypted 0.5.9 (secure multi-party computation as TF 1.x graphs: Pond and
SecureNN over int64 rings, players as devices of a LocalConfig) and edward2 0.0.1 (probabilistic
programs on TF Probability 0.8) on tideflow needed, pinned with the plain TF 1.x calls they make;
and the integer semantics their protocols rest on (wrap-around, shifts, seeded integer draws),
checked against TF's values."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import ops as tf_ops


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# framework helpers the libraries import from TF's module paths
# ------------------------------------------------------------------------------------------


def test_graph_util_impl_module_path():
    # tf-encrypted's private_model imports remove_training_nodes from graph_util_impl
    from tideflow.python.framework.graph_util_impl import (
        convert_variables_to_constants,
        remove_training_nodes,
    )

    assert remove_training_nodes is tf.graph_util.remove_training_nodes
    assert convert_variables_to_constants is tf.graph_util.convert_variables_to_constants
    x = tf.placeholder(tf.float32, [2], name="x")
    tf.identity(x * 3.0, name="out")
    gd = remove_training_nodes(tf.get_default_graph().as_graph_def(), ["out"])
    assert {n.name for n in gd.node} >= {"x", "out"}


def test_inside_function_is_false_in_cond_and_loop_bodies_true_in_dataset_functions():
    seen = {}
    assert tf_ops.inside_function() is False

    def body(i):
        seen["while"] = tf_ops.inside_function()
        return i + 1

    tf.while_loop(lambda i: i < 3, body, [0])

    def fn(x):
        seen["map"] = tf_ops.inside_function()

        def branch():
            seen["cond in map"] = tf_ops.inside_function()
            return x

        return tf.cond(x > 0, branch, lambda: x)

    tf.data.Dataset.range(3).map(fn)
    # TF 1.x builds cond/while bodies in the graph itself; a tf.data function is a function
    assert seen == {"while": False, "map": True, "cond in map": True}


def test_get_graph_from_inputs():
    g1 = tf.get_default_graph()
    a = tf.constant(1.0)
    v = tf.Variable(2.0)
    assert tf_ops._get_graph_from_inputs([a, v, a.op]) is g1
    assert tf_ops._get_graph_from_inputs([]) is g1
    assert tf_ops._get_graph_from_inputs([1.0, "x"]) is g1
    g2 = tf.Graph()
    with g2.as_default():
        b = tf.constant(1.0)
        # the inputs' graph, whatever the default
        assert tf_ops._get_graph_from_inputs([a]) is g1
        with pytest.raises(ValueError, match="must be from the same graph"):
            tf_ops._get_graph_from_inputs([a, b])
        with pytest.raises(ValueError, match="is not from the passed-in graph"):
            tf_ops._get_graph_from_inputs([a], graph=g2)
    with pytest.raises(TypeError, match="Input graph needs to be a Graph"):
        tf_ops._get_graph_from_inputs([a], graph="g")
    assert tf.contrib.framework.get_graph_from_inputs([a]) is g1


def test_eager_tensor_type_exists_and_graph_tensors_are_not_eager():
    # edward2's RandomVariable.__str__/numpy test isinstance(value, ops.EagerTensor)
    assert issubclass(tf_ops.EagerTensor, tf.Tensor)
    assert not isinstance(tf.constant(1.0), tf_ops.EagerTensor)


# ------------------------------------------------------------------------------------------
# a TensorProto is a value: tf-encrypted's converter hands NodeDef attr protos to ops
# ------------------------------------------------------------------------------------------


def test_tensor_proto_converts_as_its_value():
    proto = tf.make_tensor_proto(np.array([2, 2], np.int32))
    x = tf.reshape(tf.range(8.0), [8, 1, 1, 1])
    y = tf.batch_to_space_nd(x, proto, tf.make_tensor_proto(np.zeros([2, 2], np.int32)))
    c = tf.constant(proto)
    # the proto's own dtype and shape win, as TF's make_tensor_proto takes it as it stands
    c_f = tf.constant(proto, dtype=tf.float32)
    s = tf.constant(tf.make_tensor_proto([b"a", b"bc"]))
    assert c.dtype == tf.int32 and c_f.dtype == tf.int32 and c.shape.as_list() == [2]
    assert y.shape.as_list() == [2, 2, 2, 1]
    with tf.Session() as sess:
        cv, yv, sv, add = sess.run([c, y, s, tf.add(proto, 1)])
    np.testing.assert_array_equal(cv, [2, 2])
    np.testing.assert_array_equal(add, [3, 3])
    assert list(sv) == [b"a", b"bc"]
    np.testing.assert_array_equal(yv[0, :, :, 0], [[0, 2], [4, 6]])


# ------------------------------------------------------------------------------------------
# integer semantics of secret sharing over Z_2^64 / Z_2^32 (values checked against TF)
# ------------------------------------------------------------------------------------------

I64MAX, I64MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def test_int64_ring_arithmetic_wraps_around():
    a = tf.constant([I64MAX, I64MIN, 3, -7], tf.int64)
    b = tf.constant([1, -1, 5, 2], tf.int64)
    m = tf.reshape(a, [2, 2])
    with tf.Session() as sess:
        add, mul, neg, total, csum, mm, addn, ab = sess.run([
            a + b, a * tf.constant([2, 2, 3, 3], tf.int64), -a, tf.reduce_sum(a), tf.cumsum(a),
            tf.matmul(m, m), tf.add_n([a, a, b]), tf.abs(a)])
    np.testing.assert_array_equal(add, [I64MIN, I64MAX, 8, -5])
    np.testing.assert_array_equal(mul, [-2, 0, 9, -21])
    np.testing.assert_array_equal(neg, [-I64MAX, I64MIN, -3, 7])
    assert total == -5 and total.dtype == np.int64
    np.testing.assert_array_equal(csum, [I64MAX, -1, 2, -5])
    np.testing.assert_array_equal(mm, [[-I64MAX, 0], [I64MAX - 23, I64MIN + 49]])
    np.testing.assert_array_equal(addn, [-1, -1, 11, -12])
    np.testing.assert_array_equal(ab, [I64MAX, I64MIN, 3, 7])


def test_int_floor_and_truncating_division_and_modulo():
    a = tf.constant([I64MAX, I64MIN, 3, -7], tf.int64)
    d = tf.constant([7, 7, -5, 3], tf.int64)
    with tf.Session() as sess:
        fm, fd, tm, td = sess.run([a % d, a // d, tf.truncatemod(a, d), tf.truncatediv(a, d)])
    np.testing.assert_array_equal(fm, [0, 6, -2, 2])
    # TF 1.15's FloorDiv wraps for the lowest int64 (|x| overflows in its sign correction);
    # checked against TF 1.15 (TF 2.x gives the mathematical -1317624576693539402)
    np.testing.assert_array_equal(fd, [1317624576693539401, 1317624576693539400, -1, -3])
    np.testing.assert_array_equal(tm, [0, -1, 3, -1])
    np.testing.assert_array_equal(td, [1317624576693539401, -1317624576693539401, 0, -2])


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_shifts_clamp_their_amount_and_right_shift_is_arithmetic(dtype):
    # TF clamps a shift to [0, bits - 1]: an amount past the width or negative does not
    # raise (NumPy's shifts are undefined there)
    bits = dtype.size * 8
    x = tf.constant([-5] * 8, dtype)
    amounts = tf.constant([0, 1, bits - 1, bits, 100, -1, -65, 33], dtype)
    with tf.Session() as sess:
        r, l = sess.run([tf.bitwise.right_shift(x, amounts), tf.bitwise.left_shift(x, amounts)])
    assert r.dtype == dtype.as_numpy_dtype
    np.testing.assert_array_equal(r, [-5, -3, -1, -1, -1, -5, -5, -1])
    low = np.iinfo(dtype.as_numpy_dtype).min
    np.testing.assert_array_equal(
        l, [-5, -10, low, low, low, -5, -5, low if bits == 32 else -5 * 2 ** 33])


def test_bit_decomposition_as_secure_nn_does_it():
    # shares' bits: right_shift by every index, then & 1 (tf.range of the value's dtype)
    x = tf.constant([I64MIN, -1, 5], tf.int64)
    bits = tf.bitwise.bitwise_and(
        tf.bitwise.right_shift(tf.expand_dims(x, -1), tf.range(64, dtype=tf.int64)), 1)
    with tf.Session() as sess:
        b = sess.run(bits)
    assert b.dtype == np.int64 and b.shape == (3, 64)
    np.testing.assert_array_equal(b[0], [0] * 63 + [1])
    np.testing.assert_array_equal(b[1], [1] * 64)
    np.testing.assert_array_equal(b[2, :4], [1, 0, 1, 0])


def test_narrow_shifts_and_casts_wrap():
    with tf.Session() as sess:
        rs, ls, i8, f2i = sess.run([
            tf.bitwise.right_shift(tf.constant([-100, 100, 7, 1], tf.int8),
                                   tf.constant([1, 9, 70, 0], tf.int8)),
            tf.bitwise.left_shift(tf.constant([200, 100, 7, 1], tf.uint8),
                                  tf.constant([1, 9, 70, 0], tf.uint8)),
            tf.cast(tf.constant([I64MAX, I64MIN, 3, -7], tf.int64), tf.int8),
            tf.cast(tf.constant([1e20, -1e20, 3.7, -3.7]), tf.int64)])
    np.testing.assert_array_equal(rs, [-50, 0, 0, 1])
    np.testing.assert_array_equal(ls, [144, 0, 128, 1])
    np.testing.assert_array_equal(i8, [-1, 0, 3, -7])
    np.testing.assert_array_equal(f2i, [I64MIN, I64MIN, 3, -3])


def test_seeded_int64_uniform_over_the_whole_ring_is_tfs():
    # Pond's shares without the secure-random op library: tf.random_uniform over int64
    full = tf.random_uniform([3], minval=-2 ** 63, maxval=2 ** 63 - 1, dtype=tf.int64, seed=3)
    small = tf.random_uniform([5], minval=0, maxval=10, dtype=tf.int32, seed=7)
    with tf.Session() as sess:
        f, s = sess.run([full, small])
    assert f.dtype == np.int64 and s.dtype == np.int32
    np.testing.assert_array_equal(f, [-8021450419359086873, -4500482545376490908,
                                      -95169996434408305])
    np.testing.assert_array_equal(s, [7, 7, 5, 4, 0])
