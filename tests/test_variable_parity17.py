"""TF 1.15 parity of variables, variable scopes and initializers as TF 1.x programs use them:
each expected value below is what the same program printed under real TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_keras_identity_and_glorot_are_init_ops_classes():
    k = tf.keras.initializers
    assert k.Identity is tf.initializers.identity is k.identity
    assert k.glorot_uniform is tf.glorot_uniform_initializer
    assert k.glorot_normal is tf.glorot_normal_initializer
    init = k.Identity()
    assert sorted(init.get_config().items()) == [("dtype", "float32"), ("gain", 1.0)]
    t = init([2, 3])
    assert (t.op.type, t.name) == ("Mul", "mul:0")
    with pytest.raises(TypeError, match="Expected int32, got 1.0 of type 'float' instead."):
        init([2, 3], dtype=tf.int32)
    v = tf.get_variable("v", [3, 4], initializer=k.Identity(gain=2.0))
    assert v.initial_value.name == "v/Initializer/mul:0"
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(v), 2 * np.eye(3, 4))
    assert type(k.get("glorot_uniform")).__name__ == "GlorotUniform"


def test_assign_family_on_a_plain_tensor_is_an_attribute_error():
    c = tf.constant([1.0])
    for fn, method in ((tf.assign, "assign"), (tf.assign_add, "assign_add"),
                       (tf.assign_sub, "assign_sub")):
        with pytest.raises(AttributeError) as e:
            fn(c, [2.0])
        assert str(e.value) == f"'Tensor' object has no attribute '{method}'"


def test_disallowed_dtype_message_is_tf_words_exactly():
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(TypeError) as e:
        tf.scatter_update(v, [0.5], [1.0])
    assert str(e.value) == ("Value passed to parameter 'indices' has DataType float32 not in "
                            "list of allowed values: int32, int64")
    with pytest.raises(TypeError) as e:
        tf.count_up_to(tf.Variable(0.0), 3)
    assert str(e.value) == ("Value passed to parameter 'ref' has DataType float32 not in list "
                            "of allowed values: int32, int64")


def test_count_up_to_needs_a_scalar():
    with pytest.raises(ValueError) as e:
        tf.count_up_to(tf.Variable([0]), 3)
    assert str(e.value) == ("Shape must be rank 0 but is rank 1 for 'CountUpTo' (op: "
                            "'CountUpTo') with input shapes: [1].")


def test_resource_variable_def_says_is_resource_and_round_trips():
    u = tf.Variable([1.0], name="u", use_resource=True)
    d = u.to_proto()
    assert d.is_resource
    assert (d.snapshot_name, d.initial_value_name) == ("u/Read/ReadVariableOp:0",
                                                       "u/Initializer/initial_value:0")
    assert not tf.Variable([1.0], name="r").to_proto().is_resource
    mg = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(mg)
        got = [(repr(v), v.dtype, v.value().name, v.read_value().name)
               for v in tf.global_variables()]
    assert got == [
        ("<tf.Variable 'u:0' shape=(1,) dtype=float32>", tf.float32, "ReadVariableOp:0",
         "Identity:0"),
        ("<tf.Variable 'r:0' shape=(1,) dtype=float32_ref>", tf.float32_ref, "r/read:0",
         "read_1:0")]
