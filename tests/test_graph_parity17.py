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


def test_bool_and_16_bit_constants_list_their_values():
    # TF 1.15's make_tensor_proto writes these types to their value fields, never as content
    b = tf.constant([True, False]).op.get_attr("value")
    assert list(b.bool_val) == [True, False] and not b.tensor_content
    h = tf.constant(np.array([1.0, 2.0], np.float16)).op.get_attr("value")
    assert list(h.half_val) == [15360, 16384] and not h.tensor_content
    u = tf.constant(np.array([1, 2], np.uint16)).op.get_attr("value")
    assert list(u.int_val) == [1, 2]
    f = tf.constant([1.0, 2.0]).op.get_attr("value")
    assert f.tensor_content == b"\x00\x00\x80?\x00\x00\x00@"
    with tf.Session() as s:
        assert s.run(tf.constant([True, False])).tolist() == [True, False]
        assert s.run(tf.constant(np.array([1.0, 2.0], np.float16))).tolist() == [1.0, 2.0]


def test_graph_def_sorts_control_inputs_by_name():
    x = tf.constant(2, name="x")
    z, b, a = (tf.constant(1, name=n) for n in "zba")
    with tf.control_dependencies([z, b, a]):
        c = tf.identity(x, name="c")
    assert [o.name for o in c.op.control_inputs] == ["z", "b", "a"]
    assert list(c.op.node_def.input) == ["x", "^z", "^b", "^a"]
    gd = tf.get_default_graph().as_graph_def()
    assert list(gd.node[-1].input) == ["x", "^a", "^b", "^z"]


def test_node_defs_carry_tf_115_attrs_only():
    x = tf.placeholder(tf.float32, [1, 4, 4, 2], name="x")
    g = tf.gather(x, [0], axis=1, name="g")
    assert g.op.node_def.attr["batch_dims"].i == 0
    dw = tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 2, 1]), [1, 1, 1, 1], "SAME", name="dw")
    assert sorted(dw.op.node_def.attr) == ["T", "data_format", "dilations", "padding", "strides"]
    dec = tf.nn.ctc_greedy_decoder(tf.ones([3, 1, 4]), [3])
    assert "blank_index" not in dec[0][0].indices.op.node_def.attr
    grads = tf.gradients(tf.concat([x, x], 1), x)
    off = [op for op in tf.get_default_graph().get_operations() if op.type == "ConcatOffset"]
    assert grads[0] is not None and "shape_type" not in off[0].node_def.attr


def test_gather_v2_with_batch_dims_from_a_tf_graph_def():
    gd = tf.GraphDef()
    p = np.arange(24.0).reshape(2, 3, 4)
    i = np.array([[0, 2], [1, 1]], np.int32)
    for name, value in (("p", p), ("i", i), ("axis", np.int32(2))):
        n = gd.node.add()
        n.name, n.op = name, "Const"
        n.attr["dtype"].type = tf.as_dtype(value.dtype).as_datatype_enum
        n.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(value))
    n = gd.node.add()
    n.name, n.op = "g", "GatherV2"
    n.input.extend(["p", "i", "axis"])
    n.attr["batch_dims"].i = 1
    n.attr["Tparams"].type = tf.float64.as_datatype_enum
    n.attr["Tindices"].type = n.attr["Taxis"].type = tf.int32.as_datatype_enum
    (g,) = tf.import_graph_def(gd, return_elements=["g:0"], name="")
    with tf.Session() as s:  # TF 1.15's values
        assert s.run(g).tolist() == [[[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]],
                                     [[13.0, 13.0], [17.0, 17.0], [21.0, 21.0]]]


def test_converted_input_names_as_tf():
    sp = tf.strings.split(["a b"], name="sp")
    assert [t.name for t in sp.values.op.inputs] == ["sp/input:0", "sp/Const:0"]
    assert tf.get_default_graph().get_operations()[0].name == "sp/input"
    w = tf.nn.weighted_cross_entropy_with_logits(targets=[1.0], logits=[1.0], pos_weight=2.0)
    assert w.name == "logistic_loss:0"
    tf.get_default_graph().get_operation_by_name("logistic_loss/labels")
    x = tf.placeholder(tf.float32, [1, 4, 4, 2])
    tf.nn.atrous_conv2d(x, tf.ones([2, 2, 2, 3]), 2, "SAME")
    fs = tf.get_default_graph().get_operation_by_name("convolution/filter_shape")
    assert tf.make_ndarray(fs.get_attr("value")).tolist() == [2, 2, 2, 3]


def test_colocation_attrs_of_variables_and_summed_gradients():
    def classes(name):
        nd = tf.get_default_graph().get_operation_by_name(name).node_def
        return list(nd.attr["_class"].list.s) if "_class" in nd.attr else None

    tf.Variable(1.0, name="a")
    tf.get_variable("c", [2])
    tf.Variable(lambda: tf.ones([2]), name="b")
    assert classes("a") is None  # made from a value: no attr
    assert classes("c") == [b"loc:@c"] and classes("b") == [b"loc:@b"]
    v = tf.Variable([1.0, 2.0], name="v")
    tf.gradients(tf.reduce_sum(v * v), v)
    add = [op for op in tf.get_default_graph().get_operations() if op.type == "AddN"]
    assert [op.name for op in add] == ["gradients/AddN"]
    assert classes("gradients/AddN") == [b"loc:@gradients/mul_grad/Mul"]


def test_text_graph_files_print_floats_as_tf(tmp_path):
    tf.constant(0.1, name="c")
    path = tf.train.write_graph(tf.get_default_graph(), str(tmp_path), "g.pbtxt")
    with open(path) as f:
        text = f.read()
    assert "float_val: 0.10000000149011612" in text  # TF 1.15's file
    assert text == str(tf.get_default_graph().as_graph_def())
    assert 'float_val: 0.10000000149011612' in str(tf.get_default_graph().get_operation_by_name("c"))


def test_stripped_op_list_is_tf_115s():
    v = tf.Variable([1.0], name="v")
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(v * v))
    ops_ = {o.name: o for o in tf.train.export_meta_graph().meta_info_def.stripped_op_list.op}
    add = next(a for a in ops_["Mul"].attr if a.name == "T")
    assert [tf.as_dtype(t).name for t in add.allowed_values.list.type][:4] == [
        "bfloat16", "float16", "float32", "float64"]
    assert not ops_["ApplyGradientDescent"].is_stateful  # its ref input is the state
    assert ops_["VariableV2"].is_stateful
    assert ops_["Assign"].allows_uninitialized_input


def test_shape_equality_with_unknown_dims_is_tf_115s():
    a = tf.placeholder(tf.float32, [None, 3])
    s = a.shape
    same = a.get_shape()
    assert a.shape == same and tf.TensorShape(s.dims) == s  # the same dimensions
    assert (s == tf.TensorShape([None, 3])) is False and (s == [None, 3]) is False
    assert s != [None, 3] and tf.TensorShape([None]) != tf.TensorShape([None])
    assert tf.TensorShape([2, 3]) == [2, 3] and (tf.TensorShape([2, 3]) != (2, 3)) is False
    assert tf.TensorShape(None) == tf.TensorShape(None)
    assert (tf.TensorShape([1, 2]) == tf.TensorShape([1])) is False


def test_dtype_and_dimension_corners():
    assert tf.string.size == 8 and tf.resource.size == 1 and tf.float64.size == 8
    with pytest.raises(TypeError, match=r"^type_enum is not a valid types_pb2.DataType: 1000$"):
        tf.DType(1000)
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for /: 'Dimension' and "
                                        r"'int', please use // instead$"):
        tf.Dimension(3) / 2
    with pytest.raises(TypeError, match=r"for /: 'int' and 'Dimension', please use // instead"):
        6 / tf.Dimension(3)
    assert tf.Dimension(7) // 2 == 3


def test_each_op_output_has_its_own_unknown_dimensions():
    x = tf.placeholder(tf.float32, [None, 3])
    ys = [tf.nn.relu(x), tf.identity(x), x + 1, tf.reshape(x, [-1, 3]), x[:, :]]
    assert [y.shape == x.shape for y in ys] == [False] * 5  # TF 1.15's
    assert [y.shape.as_list() for y in ys] == [[None, 3]] * 5
    b = tf.placeholder(tf.float32, [2, 3])
    assert tf.nn.relu(b).shape == b.shape  # known dims compare by value


# TF 1.15's GraphDef (gzip, base64) of: x = placeholder [None, 4]; w = Variable(ones [4, 3]);
# h = relu(x @ w + 0.5); m = reduce_mean(h, 1, keepdims); cnd = cond(reduce_sum(m) > 0,
# h * 2, h - 1); grads = gradients(reduce_sum(cnd), x): the cond's gradient is a second
# Switch/Merge cond on the same predicate that reads the first one's branch values
_COND_GRAD_GRAPH = (
    "H4sIAAAAAAACA51YbW/cRBA+36szSdNmk0K1KhUqFQoH6JpQKvUopElFI14Sqib0E4rlnLd3pj5fOPtIgpDoF5AQ4m/w"
    "N2H37PXu2rs+k0jnc847M888M7Mza/gMrAu0/DxwB2Q0CTwy7S5Dy4svzwiq37e6t6EVjVz6z3p/DS3b//I/C9XtJjyC"
    "5iQkEWo9nYRR3H0HWj+7wYygjT1kW8hma+in0W3Wam92FMXwPVjnCF66U989DcjLbdXsdVgaTMLY9UMyRXVU665zHNAX"
    "atdgmf44JZ4TumPC1sEA7PPebhT5wxC1k29sneM5TLZ+FhEnmAxe++EQ1Tetbges47nFDWg7g8CNIgRgozZd039yTn9d"
    "pR75nhsTJ7FPheABtM97U+J6yP7KI2Hsx5fUyAJd8DW0D9z4YBag9BtbFzhVxKDFUzeMziYU4Cm1UhPqlGcuewbb0HI9"
    "r3fJmVfIu8nDsLIHNAw1Rn9tB+5Bg8qg1q7nvdzGHEOiJzMGb4M1Qs0XJJhhtlw8+BzWxxSrNxvE/iR0/NDzByL0iNtc"
    "2uvYDVTrW5YMqgH7YI1R84C4NB4jrFPVBWge+94FW84S4DUhZ47njyMlUNCHxKQ26RqIZUb9rk09rln0o4LoQ+NoNkbs"
    "gq0xTjVkRJcAqMFDWNqnoYrJVNCuZbqmJvqH0EnlEL/BcwBCnXCuBzAIvd7RuR8PRqidfONMjt9wAaACK0wgmi90Yikh"
    "V4Si/pYQ+FgReCUJSJbF8g9gmf18xorMl/O9COVLWrN06XgWZAThaycyOj1fT1S+HkAnVYMaLEFvcKXcFyzMCOL2YVVd"
    "l5FHs012obxKR9yLaHZq8OLV4mJ7s0MLtJOqYdl2ile50hSVMFLwQay6qg8PEx8OyHRIUGv+hTkczNllSg5R/VZdAHgM"
    "nbnDztZViusZtGhaU9kkuzMEmCstrS+B4gEsD6euF/WO5htucYdjG38Ky95rU1hs438M1xMpdnUuI+d+5b2RhusbgET6"
    "mR8EqMmuWEaB88pFCG4A0A2MXDgZEUdwJxVldDjsvveCzNtHL5J90rNradl9BbdMSlEnvcGSE3gBBuHACrSP095G7TyF"
    "twqCaSASJkRghYpVsCezWDDwI9wsKDn2A4Ka7IqNnmCDbUbyMc3Z2D8LaM9hKZCly2+c7QxXIkjnB29+l1WRHpOhsjaz"
    "yroDtxGeV5ZWnvb1WwIArTANZ7m6NhO3D9ikixWlFAF17ygoemPBpkbT3nTiegM3ivfpfz7dynenwwjd1P6MjW7hEpAc"
    "UgP+tngqqet4A14QNlwZf8UGHmq5LdSQAbOZDVMlPdO6f0iGqEEvi9wXCf6npU8wsdca7OBuVQbFgLCAwxhumzmkcDIW"
    "jYir5E6eyW9lAug2oKmwwpRQscZUbbkaU2eMBTWWabpqjalQcAlIUWNHco5lyw747PRueY4ZZqnfLa3WrHANJnFlMq5S"
    "sJnGsoKVsZqpNaXZD9o0o56xOtOPogsJFqz+ZemzWJSx0bpcyOXM9qsOWUoh57k1FLKKuUqC5hmmp5W0h1abb+ETWE0E"
    "+LlDOoGsyqpkpnfgmjS6iZo2CRQK+ztYS5b+QqaTqCcfN/H1ExVQhaN3DZ7zkXauMJ0vVZC4aLJsxhzCe8o+mnqVH33S"
    "4b+k8WEZmbDIDwewBQptlM2FQfsUbqgcUSFD2Bxz2La1YXNKwnYE65IvzpYauLWTPKhKx/djjipVqgveNtYZLgufL4dP"
    "7CiG8KkIcMmuqAngPxY/2+x63iFqsiuukjy4CkRh8GE2MH8EXbQpDcylVgTQR/zQMOIuBTO2tyGb32HJEZp+InW+gI3k"
    "iet5muEgfddlzpwd3vBUebF15N6SFRTEcC+n4H9NAVr02IBJdP9fAeWX8B6tpxJXQlmxhZwWSCu0Zg08va+mhkFHrI2i"
    "Dt4wDU6+X8XJyiPviLftvJtyl9SCXBTAvLM/cUtJuqYDgPrK2EB59h655KVx8R2zJUasokm204v31Aa7JfYszTvtuw37"
    "D+s/GymqvnMYAAA="
)


def test_import_of_a_cond_and_its_gradient_from_tf():
    import base64
    import gzip

    gd = tf.GraphDef()
    gd.ParseFromString(gzip.decompress(base64.b64decode(_COND_GRAD_GRAPH)))
    tf.import_graph_def(gd, name="")  # was "19 nodes in a cycle"
    with tf.Session() as s:
        s.run("w/Assign")
        fetch = ["cnd/Merge:0", "grads/MatMul_grad/MatMul:0"]
        c, g = s.run(fetch, {"x:0": [[1.0, 2.0, 3.0, 4.0]]})  # TF 1.15's values
        assert c.tolist() == [[21.0, 21.0, 21.0]] and g.tolist() == [[6.0, 6.0, 6.0, 6.0]]
        c, g = s.run(fetch, {"x:0": [[-1.0, -2.0, -3.0, -4.0]]})
        assert c.tolist() == [[-1.0, -1.0, -1.0]] and g.tolist() == [[0.0, 0.0, 0.0, 0.0]]


def test_create_op_checks_the_name_as_a_node_name():
    a = tf.constant([1.0], name="a")
    g = tf.get_default_graph()
    with pytest.raises(ValueError, match=r"^'bad name' is not a valid node name$"):
        g.create_op("Identity", [a], [tf.float32], name="bad name")
    assert g.create_op("Identity", [a], [tf.float32], name="idn").name == "idn"


def test_enable_tensor_equality_changes_nothing_in_graph_mode():
    a, b = tf.constant([1, 2]), tf.constant([1, 3])
    assert tf.compat.v1.enable_tensor_equality() is None
    assert (a == b) is False and (a != b) is True and {a: 1}[a] == 1  # TF 1.15's
    tf.compat.v1.disable_tensor_equality()


def test_strip_default_attrs_drops_an_unknown_placeholder_shape():
    tf.placeholder(tf.float32, name="a")
    tf.placeholder(tf.float32, [2], name="b")
    mg = tf.train.export_meta_graph(strip_default_attrs=True)
    attrs = {n.name: sorted(n.attr) for n in mg.graph_def.node}
    assert attrs == {"a": ["_output_shapes", "dtype"], "b": ["_output_shapes", "dtype", "shape"]}
    ops_ = {o.name: o for o in mg.meta_info_def.stripped_op_list.op}
    assert ops_["Placeholder"].attr[1].default_value.shape.unknown_rank
    assert tf.train.export_meta_graph().meta_info_def.stripped_op_list.op[0].name == "Placeholder"


def test_gradient_registry_errors_in_tf_words():
    with pytest.raises(TypeError, match=r"^op_type must be a string$"):
        tf.NotDifferentiable(3)
    from tideflow.framework import op_registry

    tf.NotDifferentiable("GraphParity17NoGrad")
    try:
        with pytest.raises(KeyError, match=r"Registering two gradient with name 'GraphParity17"
                                           r"NoGrad'! \(Previous registration was in "):
            tf.NotDifferentiable("GraphParity17NoGrad")
    finally:
        op_registry._GRADIENTS.pop("GraphParity17NoGrad")


def test_device_spec_setters_and_merge_from_as_tf_v1():
    d = tf.DeviceSpec(job="a", device_type="GPU", device_index=1)
    d.device_type = "cpu"
    d.task = "3"
    assert d.to_string() == "/job:a/task:3/device:CPU:1" and d.task == 3
    assert tf.DeviceSpec(device_index="1", job=3).to_string() == "/job:3"
    d2 = tf.DeviceSpec.from_string("/gpu:0")
    assert d2.merge_from(tf.DeviceSpec(job="w")) is None  # TF 1.15 merges in place
    assert d2.to_string() == "/job:w/device:GPU:0"
    assert tf.DeviceSpec(job="a").make_merged_spec(tf.DeviceSpec(task=1)).to_string() == (
        "/job:a/task:1")
