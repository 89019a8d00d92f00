"""Sessions, graphs and variables against TF 1.15, fifteenth session.

Each expected value, error class and message below was printed by the same program under real
TensorFlow 1.15 (tensorflow-cpu 1.15.0); the tests need only tideflow.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# -- Session.run / make_callable --------------------------------------------------------------


def test_fetch_of_a_missing_name_quotes_the_lookup_message():
    tf.constant(5, name="aa")
    with tf.Session() as s, pytest.raises(ValueError) as e:
        s.run("bb:0")
    assert str(e.value) == (
        "Fetch argument 'bb:0' cannot be interpreted as a Tensor. (\"The name 'bb:0' refers to "
        "a Tensor which does not exist. The operation, 'bb', does not exist in the graph.\")")


def test_unfeedable_feed_is_reported_before_an_unfetchable_fetch():
    a = tf.constant(2.0, name="a")
    b = a * 3
    g = tf.get_default_graph()
    g.prevent_feeding(a)
    g.prevent_fetching(b.op)
    with tf.Session() as s:
        with pytest.raises(ValueError, match=r"^Tensor Tensor\(\"a:0\", shape=\(\), "
                                             r"dtype=float32\) may not be fed\.$"):
            s.run(b, {a: 1.0})
        with pytest.raises(ValueError) as e:
            s.run(b)
    assert type(e.value).__name__ == "InaccessibleTensorError"
    assert str(e.value).startswith("Operation 'mul' has been marked as not fetchable. Typically "
                                   "this happens when it is defined in another function")


def test_make_callable_with_feed_list_is_a_lazy_run():
    p = tf.placeholder(tf.float32, [])
    a = p + 1
    with tf.Session() as s:
        # TF 1.15 resolves nothing until the call: a bad feed name is only a call-time error
        f = s.make_callable(a, ["nosuch:0"])
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
            f(1.0)
        g = s.make_callable(a, [p])
        md = tf.RunMetadata()
        assert g(1.0, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md) == 2.0
        assert md.HasField("step_stats")
        with pytest.raises(TypeError, match=r"^run\(\) got an unexpected keyword argument 'p'$"):
            g(p=1.0)
    # after close: run()'s RuntimeError with a feed_list, the runtime's CancelledError without
    s = tf.Session()
    g = s.make_callable(a, [p])
    h = s.make_callable(tf.constant(1))
    s.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        g(1.0)
    with pytest.raises(tf.errors.CancelledError, match="Session has been closed."):
        h()
    assert callable(s.make_callable(a, [p]))
    with pytest.raises(tf.errors.CancelledError):
        s.make_callable(a)


# -- Graph ----------------------------------------------------------------------------------


def test_graph_def_producer_is_tf_115s():
    tf.constant(1.0, name="a")
    assert tf.GRAPH_DEF_VERSION == 134
    assert tf.get_default_graph().as_graph_def().versions.producer == 134
    assert tf.get_default_graph().graph_def_versions.producer == 134


def test_as_graph_element_errors():
    a = tf.constant(1, name="a")
    g = tf.get_default_graph()
    with pytest.raises(ValueError) as e:
        g.get_tensor_by_name("")
    assert str(e.value) == ("The name '' looks like an (invalid) Operation name, not a Tensor. "
                            "Tensor names must be of the form \"<op_name>:<output_index>\".")
    with pytest.raises(ValueError, match="^allow_tensor and allow_operation can't both be "
                                         "False.$"):
        g.as_graph_element("a", allow_tensor=False, allow_operation=False)
    with pytest.raises(ValueError, match="^allow_tensor and allow_operation can't both be"):
        g.as_graph_element(a, allow_tensor=False, allow_operation=False)


def test_invalid_scope_name_message():
    with pytest.raises(ValueError, match=r"^'-bad' is not a valid scope name$"):
        tf.name_scope("-bad").__enter__()


def test_control_dependencies_take_names_and_reject_other_values():
    a = tf.constant(1, name="a")
    z = tf.constant(2, name="z")
    with tf.control_dependencies(["a"]):
        b = tf.identity(a, name="b")  # already a data input: no control edge
        d = tf.identity(z, name="d")
    with tf.control_dependencies(["a:0"]):
        c = tf.identity(z, name="c")
    assert b.op.control_inputs == []
    assert [op.name for op in d.op.control_inputs] == ["a"]
    assert [op.name for op in c.op.control_inputs] == ["a"]
    with pytest.raises(TypeError, match="^Can not convert a int into a Tensor or Operation.$"):
        tf.control_dependencies([5]).__enter__()
    with tf.Graph().as_default():
        other = tf.constant(2, name="other")
    with pytest.raises(ValueError, match=r"^Tensor Tensor\(\"other:0\".* is not an element of "
                                         r"this graph\.$"):
        tf.control_dependencies([other]).__enter__()


def test_device_set_inside_a_colocation_scope_applies():
    a = tf.constant(1, name="a")
    with tf.colocate_with(a):
        b = tf.identity(a, name="b")
        with tf.device("/cpu:0"):
            c = tf.identity(a, name="c")
    assert (b.device, c.device) == ("", "/device:CPU:0")
    assert c.op.colocation_groups() == [b"loc:@a"]
    with tf.device("/gpu:0"):
        x = tf.constant(2, name="x")
    with tf.colocate_with(x), tf.device("/cpu:0"):  # a placed colocation op wins
        y = tf.identity(x, name="y")
    assert y.device == "/device:GPU:0"


def test_device_spec_parse_errors():
    ds = tf.DeviceSpec.from_string
    with pytest.raises(ValueError, match=r"^Unknown attribute: 'badthing' in '/badthing:0'$"):
        ds("/badthing:0")
    with pytest.raises(ValueError, match=r"invalid literal for int\(\) with base 10: 'x'"):
        ds("/task:x")
    with pytest.raises(ValueError, match=r"invalid literal for int\(\) with base 10: 'a'"):
        ds("/gpu:a")
    with pytest.raises(ValueError, match=r"^Unknown attribute: 'device' in '/device:gpu:0:0'$"):
        ds("/device:gpu:0:0")
    with pytest.raises(ValueError, match=r"^Cannot specify multiple device types: /cpu:0/gpu:1$"):
        ds("/cpu:0/gpu:1")
    assert ds("/job:a/cpu:1").to_string() == "/job:a/device:CPU:1"
    assert ds("CPU:0").to_string() == "/device:CPU:0"
    assert ds("/device:CPU:*").to_string() == "/device:CPU:*"
    assert ds("/job:ps/replica:0/task:1/device:GPU:2").task == 1
    assert np.array_equal([ds("gpu:1").device_index], [1])


# -- Variables ------------------------------------------------------------------------------


def test_ref_variable_without_validate_shape_checks_assign_shapes_when_run():
    x = tf.Variable([1.0, 2.0], validate_shape=False)
    assert x.shape.ndims is None
    a = x.assign([1.0, 2.0, 3.0])
    assert a.shape == (3,)
    with tf.Session() as s:
        s.run(x.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Assign requires shapes of both tensors to match. lhs shape= "
                                 r"\[2\] rhs shape= \[3\]"):
            s.run(a)


def test_resource_variable_assign_checks_its_static_shape():
    r = tf.Variable([1.0, 2.0], use_resource=True, validate_shape=False)  # ignored, as TF's
    assert r.shape == (2,)
    with pytest.raises(ValueError, match=r"^Shapes \(2,\) and \(3,\) are incompatible$"):
        r.assign([1.0, 2.0, 3.0])
    u = tf.Variable([1.0, 2.0], use_resource=True, shape=tf.TensorShape(None))
    grow = u.assign([1.0, 2.0, 3.0])
    with tf.Session() as s:
        s.run(u.initializer)
        np.testing.assert_array_equal(s.run(grow), [1.0, 2.0, 3.0])
    assert r.handle.name == "Variable:0"
    assert not hasattr(tf.Variable(1.0), "handle")


def test_scatter_update_shape_error_is_tfs_merge_message():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with pytest.raises(ValueError, match=r"^Dimension 1 in both shapes must be equal, but are 3 "
                                         r"and 2\. Shapes are \[1,3\] and \[1,2\]\."):
        tf.scatter_update(v, [0], [[1.0, 1.0, 1.0]])
    with pytest.raises(TypeError, match=r"^sparse_delta is not IndexedSlices: \[1, 2\]$"):
        v.scatter_update([1, 2])


def test_get_variable_without_a_shape_or_with_an_empty_name():
    msg = ("The initializer passed is not valid. It should be a callable with no arguments and "
           "the shape should not be provided or an instance of `tf.keras.initializers.*' and "
           "`shape` should be fully defined.")
    for make in (lambda: tf.get_variable("noshape"), lambda: tf.get_variable("x", [None, 2])):
        with pytest.raises(ValueError) as e:
            make()
        assert str(e.value) == msg
    with pytest.raises(ValueError, match="^'' is not a valid node name$"):
        tf.Variable(1.0, name="")
    with pytest.raises(ValueError, match="^'_1' is not a valid node name$"):
        tf.get_variable("", [2])
    with tf.variable_scope("s"):
        assert tf.get_variable("", [2]).name == "s:0"


def test_assert_variables_initialized_is_a_plain_rank():
    a = tf.Variable(1.0, name="a")
    b = tf.Variable([1.0], name="b")
    t = tf.assert_variables_initialized([a])
    assert (t.name, t.op.type) == ("Rank:0", "Rank")
    both = tf.assert_variables_initialized()
    assert both.op.type == "Pack"
    with tf.Session() as s:
        with pytest.raises(tf.errors.FailedPreconditionError):
            s.run(t)
        s.run(tf.global_variables_initializer())
        assert s.run(t) == 0
        np.testing.assert_array_equal(s.run(both), [0, 1])
    del b


# -- Operation / Tensor printing and cross-graph errors -----------------------------------


def test_str_of_an_op_lists_its_attrs_by_name():
    a = tf.constant([[1.0, 2.0]], name="a")
    b = tf.matmul(a, a, transpose_b=True, name="mm")
    text = str(b.op)
    assert text.startswith('name: "mm"\nop: "MatMul"\ninput: "a"\ninput: "a"\nattr {\n  key: "T"')
    keys = [line.split('"')[1] for line in text.splitlines() if line.startswith("  key: ")]
    assert keys == ["T", "transpose_a", "transpose_b"]
    assert isinstance(b.op.traceback, tuple)


def test_len_of_a_tensor_message():
    a = tf.constant([1, 2], name="a")
    with pytest.raises(TypeError, match=r"^len is not well defined for symbolic Tensors\. "
                                        r"\(a:0\) Please call `x.shape`"):
        len(a)


def test_inputs_from_two_graphs_name_both_tensors():
    g1 = tf.Graph()
    with g1.as_default():
        a = tf.constant(1, name="x")
    b = tf.constant(2, name="y")
    with pytest.raises(ValueError) as e:
        tf.add(a, b)
    assert str(e.value) == ('Tensor("y:0", shape=(), dtype=int32) must be from the same graph '
                            'as Tensor("x:0", shape=(), dtype=int32).')


def test_sliced_variable_assign_names():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    with tf.name_scope("s"):
        a = v[0].assign([9.0, 9.0])  # TF's doubled scope: "<slice scope>_assign" under "s"
        b = v[1].assign([9.0, 9.0], name="named")
    c = v[0].assign([1.0, 1.0])
    assert [a.name, b.name, c.name] == ["s/s/strided_slice/_assign:0", "s/named:0",
                                        "strided_slice/_assign:0"]


def test_variable_shape_arguments_and_enums():
    assert tf.Variable(1, expected_shape=[2]).shape == ()  # ignored, as TF 1.15
    with pytest.raises(ValueError, match=r"^Dimension 0 in both shapes must be equal, but are "
                                         r"3 and 2\. Shapes are \[3\] and \[2\]\."):
        tf.Variable([1, 2], shape=[3])
    with pytest.raises(ValueError, match=r"^The initial value's shape \(\(2,\)\) is not "
                                         r"compatible with the explicitly supplied `shape`"):
        tf.Variable([1, 2], shape=[3], use_resource=True)
    with pytest.raises(NotImplementedError,
                       match="^ResourceVariable does not implement set_shape\\(\\)$"):
        tf.Variable([1.0], use_resource=True).set_shape([1])
    assert tf.Variable(1.0, aggregation=1).aggregation == tf.VariableAggregation.SUM
    with pytest.raises(ValueError, match="^Invalid variable aggregation mode: 5 for variable: "
                                         "None$"):
        tf.Variable(1.0, aggregation=5)
    with pytest.raises(ValueError, match="^Invalid variable synchronization mode: 9 for "
                                         "variable: w$"):
        tf.get_variable("w", [1], synchronization=9)


def test_tuple_feed_keys_are_flattened_as_tf():
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    c = tf.placeholder(tf.float32, [], name="c")
    out = a + b * c
    with tf.Session() as s:
        assert s.run(out, {(a, (b, c)): [1.0, (2.0, 3.0)]}) == 7.0
        with pytest.raises(ValueError) as e:
            s.run(out, {(a, b): (1.0, 2.0, 3.0), c: 3.0})
        assert str(e.value) == (
            "Could not flatten dictionary. Key had 2 elements, but value had 3 elements. Key: "
            "[<tf.Tensor 'a:0' shape=() dtype=float32>, <tf.Tensor 'b:0' shape=() "
            "dtype=float32>], value: [1.0, 2.0, 3.0].")
        with pytest.raises(ValueError, match=r"value had 1 elements\. .* value: \[1\.0\]\.$"):
            s.run(out, {(a, b): 1.0, c: 3.0})
        with pytest.raises(TypeError, match="^input must be a dictionary$"):
            s.run(out, feed_dict=[(a, 1.0)])


def test_guarded_assert_failure_names_tfs_op():
    p = tf.placeholder(tf.int32, [3], name="p")
    check = tf.Assert(tf.reduce_all(p > 5), [p, "str", 1.5], name="myassert")
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(check, {p: [1, 2, 3]})
    assert e.value.op.name == "myassert/AssertGuard/Assert"


def test_sparse_and_indexed_slices_messages():
    sp = tf.sparse_placeholder(tf.float32, shape=[None, 4])
    dense = tf.sparse_tensor_to_dense(sp, validate_indices=False)
    with tf.Session() as s, pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"^Indices are not valid \(out of bounds\)\.  Shape: \[3,4\]\n"):
        s.run(dense, {sp: tf.SparseTensorValue([[0, 5]], [1.0], [3, 4])})
    rows = tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([1]))
    with pytest.raises(ValueError, match=r"^Tensor conversion requested for IndexedSlices "
                                         r"without dense_shape: IndexedSlices\(indices="):
        tf.convert_to_tensor(rows)


def test_tensor_shape_of_a_string_is_ambiguous():
    with pytest.raises(TypeError, match="^A string has ambiguous TensorShape, please wrap in a "
                                        "list or convert to an int: ab$"):
        tf.TensorShape("ab")


def test_graph_create_op_takes_registered_types_and_tensors_only():
    g = tf.get_default_graph()
    a = tf.constant(1.0, name="a")
    assert g.create_op("Identity", [a], [tf.float32], name="myid").name == "myid"
    with pytest.raises(tf.errors.NotFoundError, match="^Op type not registered 'NoSuchOp' in "
                                                      "binary running on "):
        g.create_op("NoSuchOp", [a], [tf.float32])
    with pytest.raises(TypeError, match="^Input #0 is not a tensor: 5$"):
        g.create_op("Identity", [5], [tf.float32])


def test_truth_of_a_resource_variable_is_its_value():
    assert bool(tf.Variable([1.0, 2.0]))  # a ref variable is a plain object
    r = tf.Variable([1.0, 2.0], use_resource=True)
    with pytest.raises(TypeError, match="using a `tf.Tensor` as a Python `bool` is not allowed"):
        bool(r)


def test_op_names_are_checked_as_tf_115_scope_names():
    c = tf.constant(1, name="c")
    for bad in ("_under", "-dash", "a b", "x.y-z>w"):  # '>' is TF 2's
        with pytest.raises(ValueError, match=f"^'{bad}' is not a valid scope name$"):
            tf.identity(c, name=bad)
    # tf.constant builds its op with Graph.create_op: the name, once taken, is checked as a
    # node name (TF 1.15's words; a second try names '-dash_1')
    with pytest.raises(ValueError, match="^'-dash' is not a valid node name$"):
        tf.constant(2, name="-dash")
    with pytest.raises(ValueError, match="^'-dash_1' is not a valid node name$"):
        tf.constant(2, name="-dash")
    assert tf.identity(c, name=".dot").name == ".dot:0"
    with tf.name_scope("s"):
        assert tf.identity(c, name="_under").name == "s/_under:0"


def test_loop_body_tensors_are_not_fetchable():
    seen = []

    def body(i):
        seen.append(i * 2)
        return i + 1

    tf.while_loop(lambda i: i < 3, body, [0])
    g = tf.get_default_graph()
    assert not g.is_fetchable(seen[0]) and not g.is_fetchable(seen[0].op)
    assert not g.is_feedable(seen[0])
    assert g.is_fetchable(tf.constant(1)) and g.is_feedable(tf.constant(2))


def test_variable_creators_see_tfs_resolved_arguments():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append({k: kwargs[k] for k in ("synchronization", "aggregation", "use_resource")})
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        tf.Variable(1.0)
        tf.get_variable("c", [2])
    assert seen[0] == {"synchronization": tf.VariableSynchronization.AUTO,
                       "aggregation": tf.VariableAggregation.NONE, "use_resource": None}
    assert seen[1]["use_resource"] is False


def test_tf_function_of_a_lambda_builds_under_a_valid_scope():
    f = tf.function(lambda a: a * 3)
    out = f(tf.constant([1.0, 2.0]))
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(out), [3.0, 6.0])


def test_import_reports_an_unknown_input_before_checking_attrs():
    gd = tf.GraphDef()
    node = gd.node.add()
    node.name, node.op = "n1", "Identity"  # no T attr either
    node.input.append("missing:0")
    with pytest.raises(ValueError, match="^Node 'n1': Unknown input node 'missing:0'$"):
        tf.import_graph_def(gd)
    x = tf.constant([1.0], name="x")
    out, = tf.import_graph_def(_identity_graph_def(), input_map={"missing:0": x},
                               return_elements=["n1:0"], name="mapped")
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(out), [1.0])


def _identity_graph_def():
    gd = tf.GraphDef()
    node = gd.node.add()
    node.name, node.op = "n1", "Identity"
    node.attr["T"].type = tf.float32.as_datatype_enum
    node.input.append("missing:0")
    return gd
