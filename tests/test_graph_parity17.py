"""Graph / Operation / Tensor API and GraphDef parity with TF 1.15, found by running the same
small programs under real TF 1.15 and tideflow; expected values are TF 1.15's printed outputs."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import graph_io


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_colocate_with_none_needs_ignore_existing():
    with pytest.raises(ValueError, match=r"^Trying to reset colocation \(op is None\) but "
                                         r"ignore_existing is not True$"), tf.colocate_with(None):
        pass
    a = tf.constant(1.0, name="a")
    with tf.colocate_with(a), tf.colocate_with(None, ignore_existing=True):
        b = tf.constant(1.0, name="b")
    assert b.op.colocation_groups() == [b"loc:@b"]


def test_constant_name_is_checked_as_a_node_name():
    # tf.constant builds its op with Graph.create_op: TF checks the scoped name as a node name
    with pytest.raises(ValueError, match=r"^'bad name' is not a valid node name$"):
        tf.constant(1, name="bad name")
    with pytest.raises(ValueError, match=r"^'_x' is not a valid node name$"):
        tf.constant(1, name="_x")
    with tf.name_scope("s"):
        assert tf.constant(1, name="_x").name == "s/_x:0"
        with pytest.raises(ValueError, match=r"^'s/bad name' is not a valid node name$"):
            tf.constant(1, name="bad name")
    # other ops check the name as a name scope
    with pytest.raises(ValueError, match=r"^'bad name' is not a valid scope name$"):
        tf.identity(tf.constant(1), name="bad name")


def test_as_graph_def_ignores_from_version():
    tf.placeholder(tf.float32, [None, 2], name="a")
    g = tf.get_default_graph()
    v = g.version
    tf.identity(tf.constant(1.0, name="c"), name="i")
    assert [n.name for n in g.as_graph_def(from_version=v).node] == ["a", "c", "i"]
    assert [n.name for n in g.as_graph_def(from_version=2).node] == ["a", "c", "i"]
    # the grpc session's incremental GraphDef still sends only the new nodes
    assert [n.name for n in graph_io.graph_to_graph_def(g, from_version=v).node] == ["c", "i"]


def test_import_graph_def_attr_errors_name_the_prefixed_node():
    gd = tf.GraphDef()
    n = gd.node.add()
    n.name, n.op = "x", "Const"
    with pytest.raises(ValueError, match=r"^NodeDef missing attrs 'dtype', 'value' from "
                                         r"Op<name=Const.*NodeDef: \{\{node import/x\}\}"):
        tf.import_graph_def(gd)
    gd = tf.GraphDef()
    p = gd.node.add()
    p.name, p.op = "p", "Placeholder"
    p.attr["dtype"].type = tf.float32.as_datatype_enum
    z = gd.node.add()
    z.name, z.op = "z", "Add"
    z.input.append("p")
    z.attr["T"].type = tf.float32.as_datatype_enum
    with pytest.raises(ValueError, match=r"^NodeDef expected inputs 'float, float' do not match "
                                         r"1 inputs specified; .*\{\{node w/z\}\}"):
        tf.import_graph_def(gd, name="w")
    z.input.append("p")
    z.attr["bogus"].i = 3
    with pytest.raises(ValueError, match=r"^NodeDef mentions attr 'bogus' not in .*"
                                         r"\{\{node w7/z\}\}\. \(Check whether your"):
        tf.import_graph_def(gd, name="w7")


def test_shape_conversion_names_and_messages():
    assert tf.convert_to_tensor(tf.TensorShape([1, 2])).name == "shape_as_tensor:0"
    assert tf.convert_to_tensor(tf.Dimension(3)).name == "shape_as_tensor_1:0"
    with pytest.raises(ValueError, match=r"^Cannot convert a partially known TensorShape to a "
                                         r"Tensor: \(1, \?\)$"):
        tf.convert_to_tensor(tf.TensorShape([1, None]))
    with pytest.raises(ValueError, match=r"^Cannot convert an unknown Dimension to a Tensor: "
                                         r"\?$"):
        tf.convert_to_tensor(tf.TensorShape([None])[0])


def test_conversion_error_messages():
    with pytest.raises(ValueError, match=r"^Argument must be a dense tensor: \[\[1\], \[2, 3\]\] "
                                         r"- got shape \[2\], but wanted \[2, 1\]\.$"):
        tf.convert_to_tensor([[1], [2, 3]])
    # the object is shown with str(), as TF's %s
    with pytest.raises(TypeError, match=r"Contents: <dtype: 'float32'>\. Consider casting"):
        tf.convert_to_tensor(tf.float32)


def test_slice_index_out_of_bounds_counts_from_the_front():
    with pytest.raises(ValueError, match=r"^slice index -1 of dimension 0 out of bounds\."):
        tf.constant([1, 2, 3])[-4]
    p = tf.placeholder(tf.float32, [None, None])
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"slice index -2 of dimension 1 out of bounds\."):
        s.run(p[0, -5], {p: [[1, 2, 3]]})


def test_numpy_bool_scalar_is_not_a_mask():
    t = tf.constant(np.arange(6.0).reshape(3, 2))
    with pytest.raises(TypeError, match=r"^Only integers, slices .* got True$"):
        t[np.bool_(True)]
    with pytest.raises(ValueError, match=r"^mask cannot be scalar\.$"):
        t[True]
