"""Graph, Operation and Tensor: naming, scopes, control dependencies, devices, collections."""

import threading

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_unique_names():
    a = tf.constant(1.0, name="c")
    b = tf.constant(2.0, name="c")
    c = tf.constant(3.0, name="c")
    assert [a.op.name, b.op.name, c.op.name] == ["c", "c_1", "c_2"]
    assert a.name == "c:0" and tf.constant(1).op.name == "Const"
    assert tf.constant(1).op.name == "Const_1"
    # a user name that collides with a generated one
    d = tf.constant(1.0, name="c_1")
    assert d.op.name == "c_1_1"


def test_name_scopes_nested_and_reentrant():
    with tf.name_scope("outer") as outer:
        assert outer == "outer/"
        a = tf.constant(1.0, name="a")
        with tf.name_scope("inner") as inner:
            assert inner == "outer/inner/"
            b = tf.constant(1.0, name="b")
    with tf.name_scope("outer") as again:
        assert again == "outer_1/"
    with tf.name_scope(outer):  # re-enter exactly with the trailing slash
        c = tf.constant(1.0, name="c")
    with tf.name_scope("x"), tf.name_scope(None):
        d = tf.constant(1.0, name="d")
    with tf.name_scope(None, "default_name", [a]) as s:
        assert s == "default_name/"
    assert a.op.name == "outer/a" and b.op.name == "outer/inner/b"
    assert c.op.name == "outer/c" and d.op.name == "d"
    with pytest.raises(ValueError), tf.name_scope("bad name!"):
        pass


def test_get_by_name_and_as_graph_element():
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.identity(x, name="y")
    assert g.get_tensor_by_name("y:0") is y
    assert g.get_operation_by_name("y") is y.op
    assert g.as_graph_element("x") is x.op and g.as_graph_element(y) is y
    with pytest.raises(KeyError, match="does not exist"):
        g.get_tensor_by_name("nope:0")
    with pytest.raises(KeyError, match="only has 1 outputs"):
        g.get_tensor_by_name("y:3")
    with pytest.raises(ValueError, match="refers to an Operation"):
        g.get_tensor_by_name("y")
    with pytest.raises(ValueError):
        g.get_operation_by_name("y:0")
    other = tf.Graph()
    with other.as_default():
        z = tf.constant(1.0)
    with pytest.raises(ValueError, match="not an element of this graph"):
        g.as_graph_element(z)


def test_control_dependencies():
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    with tf.control_dependencies([a]):
        c = tf.identity(b, name="c")
        with tf.control_dependencies([b.op]):
            d = tf.identity(b, name="d")
            with tf.control_dependencies(None):
                e = tf.identity(b, name="e")
        # an input created inside the block implies the dependency
        f = tf.identity(c, name="f")
    assert c.op.control_inputs == [a.op]
    assert set(d.op.control_inputs) == {a.op}  # b is already a data input
    assert e.op.control_inputs == []
    assert f.op.control_inputs == []
    with pytest.raises(TypeError), tf.control_dependencies([object()]):
        pass


def test_devices_strings_and_functions():
    with tf.device("/job:ps/task:0"):
        with tf.device("/cpu:0"):
            a = tf.constant(1.0)
        b = tf.constant(1.0)
        with tf.device(None):
            c = tf.constant(1.0)
    with tf.device(lambda op: "/gpu:1" if op.type == "Const" else ""):
        d = tf.constant(1.0)
        e = tf.identity(d)
    assert a.device == "/job:ps/task:0/device:CPU:0"
    assert b.op.device == "/job:ps/task:0"
    assert c.device == ""
    assert d.device == "/gpu:1" and e.device == ""  # a function's answer as written, as TF
    with pytest.raises(ValueError), tf.device("/nonsense:3"):
        pass


def test_colocate_with():
    with tf.device("/job:ps/task:1"):
        a = tf.constant(1.0, name="a")
    with tf.device("/job:worker"), tf.colocate_with(a):
        b = tf.identity(a, name="b")
    assert b.device == "/job:ps/task:1"
    assert b.op.colocation_groups() == [b"loc:@a"]
    assert a.op.colocation_groups() == [b"loc:@a"]


def test_collections():
    g = tf.get_default_graph()
    tf.add_to_collection("k", 1)
    tf.add_to_collections(["k", "j"], 2)
    assert tf.get_collection("k") == [1, 2] and tf.get_collection("j") == [2]
    ref = tf.get_collection_ref("k")
    ref.append(3)
    assert tf.get_collection("k") == [1, 2, 3]
    assert tf.get_collection("missing") == []
    with tf.name_scope("s"):
        t = tf.constant(1.0, name="t")
    u = tf.constant(1.0, name="u")
    tf.add_to_collection("ts", t)
    tf.add_to_collection("ts", u)
    assert tf.get_collection("ts", scope="s") == [t]
    assert set(g.get_all_collection_keys()) >= {"k", "j", "ts"}
    assert tf.GraphKeys.GLOBAL_VARIABLES == "variables" == tf.GraphKeys.VARIABLES


def test_finalize_and_default_graph_stack():
    g = tf.Graph()
    with g.as_default():
        assert tf.get_default_graph() is g
        tf.constant(1.0)
        g.finalize()
        with pytest.raises(RuntimeError, match="finalized"):
            tf.constant(2.0)
    assert tf.get_default_graph() is not g
    with g.as_default(), pytest.raises(AssertionError):
        tf.reset_default_graph()


def test_default_graph_is_thread_local():
    g = tf.Graph()
    seen = []
    with g.as_default():
        t = threading.Thread(target=lambda: seen.append(tf.get_default_graph()))
        t.start()
        t.join()
    assert seen[0] is not g


def test_tensor_properties_and_set_shape():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    assert x.dtype == tf.float32 and x.get_shape().as_list() == [None, 3]
    assert x.shape is x.get_shape() and x.graph is tf.get_default_graph()
    x.set_shape([4, None])
    assert x.get_shape().as_list() == [4, 3]
    with pytest.raises(ValueError):
        x.set_shape([5, 3])
    with pytest.raises(TypeError, match="as a Python `bool`"):
        bool(x)
    assert x.op.outputs == [x] and x.value_index == 0 and x.consumers() == []
    y = tf.identity(x)
    assert x.consumers() == [y.op] and y.op.inputs[0] is x
    assert x.op.get_attr("dtype") == tf.float32
    with pytest.raises(ValueError, match="no attr"):
        x.op.get_attr("nope")
    assert {x: 1}[x] == 1  # hashable by identity


def test_eval_and_run_need_session():
    c = tf.constant([1, 2])
    with pytest.raises(ValueError, match="No default session"):
        c.eval()
    with tf.Session() as sess:
        np.testing.assert_array_equal(c.eval(), [1, 2])
        assert c.op.run() is None
        np.testing.assert_array_equal(c.eval(session=sess), [1, 2])


def test_shape_errors_name_the_op():
    a = tf.constant(np.zeros((2, 3)))
    b = tf.constant(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"Dimensions must be equal.*'add'.*\[2,3\], \[2,4\]"):
        tf.add(a, b, name="add")


def test_type_errors_name_the_argument():
    a = tf.constant(1.0)
    b = tf.constant(1)
    with pytest.raises(TypeError, match="Input 'y' of 'Add' Op has type int32 that does not match"):
        tf.add(a, b)
    with pytest.raises(TypeError):
        a + "s"
    # Python scalars follow the tensor's type
    assert (a + 1).dtype == tf.float32 and (b + 2).dtype == tf.int32 and (1 + b).dtype == tf.int32


def test_an_absolute_name_taken_twice_is_a_duplicate_node_error():
    with tf.Graph().as_default() as g:
        v = tf.Variable(0)
        first = tf.assign_add(v, 1, name="train/")
        assert first.name == "train:0"
        with pytest.raises(ValueError, match="Duplicate node name in graph: 'train'"):
            tf.assign_add(v, 1, name="train/")
        assert g.get_operation_by_name("train") is first.op
