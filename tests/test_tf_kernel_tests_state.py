"""TF 1.x behaviour of variables, variable scopes, templates, initializers, random ops, control
flow, functional ops, TensorArray and gradients that TF 1.15's own kernel tests exposed as
differences: each test pins the TF behaviour with values worked out by hand or with NumPy."""

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
