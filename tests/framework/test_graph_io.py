"""GraphDef conversion and import: exact round trips, input_map/return_elements, clear errors."""

import ml_dtypes
import numpy as np
import pytest
from google.protobuf import text_format
from google.protobuf.message import DecodeError

import tideflow as tf
from tideflow.framework import errors, graph_io, importer, op_registry
from tideflow.framework.importer import import_graph_def
from tideflow.protos import attr_value_pb2, graph_pb2, op_def_pb2, types_pb2


def _build():
    """A graph using every feature the GraphDef carries; returns (graph, fetch names)."""
    g = tf.Graph()
    with g.as_default():
        consts = [
            tf.constant(1.5, name="f32"),
            tf.constant(np.arange(6, dtype=np.float64).reshape(2, 3), name="f64"),
            tf.constant(np.array([1, -2, 3], np.int64), name="i64"),
            tf.constant(np.array([7, 255], np.uint8), name="u8"),
            tf.constant(np.array([0.5, -2.25], np.float16), name="f16"),
            tf.constant(np.array([1.5, -3.0, 1e10], ml_dtypes.bfloat16), name="bf16"),
            tf.constant(np.array([1 + 2j, -3.5j], np.complex64), name="c64"),
            tf.constant(np.array([[1 - 1j]], np.complex128), name="c128"),
            tf.constant([True, False], name="b"),
            tf.constant(b"bytes\x00\xff", name="s0"),
            tf.constant([["a", "bc"], ["", "\u00e9"]], name="s2"),
            tf.constant(np.zeros((0, 2), np.float32), name="empty"),
        ]
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.placeholder(tf.int32, None, name="unknown_rank")
        tf.placeholder(tf.string, [], name="scalar")
        with tf.name_scope("scope"):
            with tf.device("/cpu:0"):
                y = x + tf.constant(np.ones((2, 3), np.float32), name="ones")
                with tf.control_dependencies([consts[0].op, consts[2]]):
                    z = tf.identity(y, name="z")
            with tf.colocate_with(z):
                w = tf.identity(z, name="w")
        d = tf.placeholder_with_default(tf.constant([[1.0, 2.0, 3.0]]), [None, 3], name="dflt")
        with tf.device("/gpu:0"):
            tf.identity(d, name="on_gpu")
    return g, [t.name for t in consts] + [w.name, z.name, d.name]


def _import_into_new_graph(graph_def, **kw):
    g = tf.Graph()
    with g.as_default():
        out = import_graph_def(graph_def, **kw)
    return g, out


def _run(graph, fetches, feed=None):
    # (soft placement: as TF's, a session places its whole graph, "on_gpu" too)
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(graph=graph, config=config) as sess:
        return sess.run(fetches, feed)


def _assert_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------------------------
# round trips
# ------------------------------------------------------------------------------------------


def test_round_trip_is_exact():
    g, _ = _build()
    gd = g.as_graph_def()
    g2, out = _import_into_new_graph(gd, name="")
    assert out is None
    assert g2.as_graph_def() == gd
    assert [op.name for op in g2.get_operations()] == [op.name for op in g.get_operations()]
    # and again through bytes and text
    assert graph_pb2.GraphDef.FromString(gd.SerializeToString()) == gd
    assert text_format.Parse(text_format.MessageToString(gd), graph_pb2.GraphDef()) == gd


def test_round_trip_preserves_static_shapes_devices_and_colocation():
    g, _ = _build()
    g2, _ = _import_into_new_graph(g.as_graph_def(), name="")
    for op in g.get_operations():
        op2 = g2.get_operation_by_name(op.name)
        assert op2.type == op.type
        assert op2.device == op.device
        assert op2.colocation_groups() == op.colocation_groups()
        assert [c.name for c in op2.control_inputs] == [c.name for c in op.control_inputs]
        assert [t.name for t in op2.inputs] == [t.name for t in op.inputs]
        for t, t2 in zip(op.outputs, op2.outputs):
            assert t2.dtype == t.dtype
            # (by value: an unknown dimension equals only itself, as in TF 1.15)
            assert repr(t2.shape) == repr(t.shape)
    assert g2.get_tensor_by_name("x:0").shape.as_list() == [None, 3]
    assert g2.get_tensor_by_name("unknown_rank:0").shape.ndims is None
    assert g2.get_operation_by_name("scope/w").device == "/device:CPU:0"
    assert g2.get_operation_by_name("scope/w").colocation_groups() == [b"loc:@scope/z"]


def test_imported_graph_computes_the_same_values():
    g, names = _build()
    g2, _ = _import_into_new_graph(g.as_graph_def(), name="")
    names = [n for n in names if "scope/" not in n] + ["scope/w:0"]
    names.remove("dflt:0")
    feed = {"x:0": np.arange(6, dtype=np.float32).reshape(2, 3)}
    for a, b in zip(_run(g, names, feed), _run(g2, names, feed)):
        _assert_same(a, b)
    _assert_same(_run(g2, "dflt:0"), np.array([[1.0, 2.0, 3.0]], np.float32))


def test_node_def_attr_encoding():
    g, _ = _build()
    gd = g.as_graph_def()
    nodes = {n.name: n for n in gd.node}
    assert gd.versions.producer == g.graph_def_versions.producer > 0
    assert nodes["x"].attr["dtype"] == attr_value_pb2.AttrValue(type=types_pb2.DT_FLOAT)
    shape = nodes["x"].attr["shape"].shape
    assert [d.size for d in shape.dim] == [-1, 3] and not shape.unknown_rank
    assert nodes["unknown_rank"].attr["shape"].shape.unknown_rank
    assert nodes["scalar"].attr["shape"].HasField("shape")
    assert list(nodes["scalar"].attr["shape"].shape.dim) == []
    assert nodes["bf16"].attr["dtype"].type == types_pb2.DT_BFLOAT16
    assert nodes["s0"].attr["value"].tensor.string_val == [b"bytes\x00\xff"]
    assert list(nodes["scope/z"].input) == ["scope/add", "^f32", "^i64"]
    assert nodes["scope/add"].device == "/device:CPU:0"
    assert nodes["on_gpu"].device == "/device:GPU:0"
    assert list(nodes["scope/w"].attr["_class"].list.s) == [b"loc:@scope/z"]
    assert nodes["scope/z"].op == "Identity" and nodes["scope/z"].attr["T"].type == 1
    assert g.get_operation_by_name("scope/z").node_def == nodes["scope/z"]


def test_node_def_follows_mutations():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.identity(a, name="b")
        c = tf.constant(2.0, name="c")
    first = b.op.node_def
    first.name = "changed by the caller"  # a copy: the cache must not see this
    assert b.op.node_def.name == "b"
    b.op._add_control_input(c.op)
    assert list(b.op.node_def.input) == ["a", "^c"]
    b.op._set_device("/cpu:0")
    assert b.op.node_def.device == "/cpu:0"  # as written, as TF 1.15 keeps it
    b.op._set_attr("_class", ["loc:@a"])
    assert list(b.op.node_def.attr["_class"].list.s) == [b"loc:@a"]
    b.op._update_input(0, c)
    assert list(g.as_graph_def().node[1].input) == ["c", "^c"]


def test_from_version_and_add_shapes():
    g = tf.Graph()
    with g.as_default():
        tf.placeholder(tf.float32, [None, 2], name="p")
        v = g.version
        tf.identity(tf.constant([[1.0, 2.0]], name="c"), name="i")
    # the session's incremental GraphDef; the public method ignores from_version, as TF 1.15
    assert [n.name for n in graph_io.graph_to_graph_def(g, from_version=v).node] == ["c", "i"]
    assert [n.name for n in g.as_graph_def(from_version=v).node] == ["p", "c", "i"]
    gd = g.as_graph_def(add_shapes=True)
    shapes = {n.name: n.attr["_output_shapes"].list.shape for n in gd.node}
    assert [d.size for d in shapes["p"][0].dim] == [-1, 2]
    assert [d.size for d in shapes["i"][0].dim] == [1, 2]
    assert "_output_shapes" not in g.as_graph_def().node[0].attr


def test_output_shapes_attr_is_applied_and_dropped_on_import():
    g = tf.Graph()
    with g.as_default():
        tf.identity(tf.placeholder(tf.float32, name="p"), name="i")
    gd = g.as_graph_def(add_shapes=True)
    for n in gd.node:
        shape = n.attr["_output_shapes"].list.shape[0]
        shape.unknown_rank = False
        shape.dim.add(size=4)  # refine: rank 1, size 4
    g2, _ = _import_into_new_graph(gd, name="")
    assert g2.get_tensor_by_name("i:0").shape.as_list() == [4]
    assert "_output_shapes" not in g2.get_operation_by_name("i")._attrs
    assert g2.as_graph_def() == g.as_graph_def()
    bad = graph_pb2.GraphDef()
    bad.CopyFrom(g.as_graph_def(add_shapes=True))
    for n, size in zip(bad.node, (5, 4)):
        shape = n.attr["_output_shapes"].list.shape[0]
        shape.unknown_rank = False
        shape.dim.add(size=size)
    with pytest.raises(ValueError, match="inconsistent with the GraphDef for output #0"):
        _import_into_new_graph(bad, name="")


def test_nodes_in_any_order():
    g, _ = _build()
    gd = g.as_graph_def()
    shuffled = graph_pb2.GraphDef()
    shuffled.versions.CopyFrom(gd.versions)
    shuffled.node.extend(reversed(gd.node))
    g2, _ = _import_into_new_graph(shuffled, name="")
    gd2 = g2.as_graph_def()
    assert {n.name: n for n in gd2.node} == {n.name: n for n in gd.node}
    position = {n.name: i for i, n in enumerate(gd2.node)}
    for n in gd2.node:  # each node after its inputs
        for inp in n.input:
            assert position[inp.lstrip("^").split(":")[0]] < position[n.name]


# ------------------------------------------------------------------------------------------
# prefixes, input_map, return_elements
# ------------------------------------------------------------------------------------------


def test_default_prefix_rewrites_names_inputs_and_colocation():
    g, _ = _build()
    gd = g.as_graph_def()
    g2 = tf.Graph()
    with g2.as_default():
        import_graph_def(gd)
        import_graph_def(gd)
        with tf.name_scope("outer"):
            import_graph_def(gd, name="mine")
    assert g2.get_operation_by_name("import/scope/z").control_inputs[0].name == "import/f32"
    w = g2.get_operation_by_name("import_1/scope/w")
    assert w.colocation_groups() == [b"loc:@import_1/scope/z"]
    assert w.inputs[0].name == "import_1/scope/z:0"
    assert w.device == "/device:CPU:0"
    assert g2.get_operation_by_name("outer/mine/x").type == "Placeholder"
    with g2.as_default():
        assert tf.constant(0, name="import").op.name == "import_2"
    assert len(g2.get_operations()) == 3 * len(gd.node) + 1


def test_empty_name_uniquifies_colliding_names():
    g = tf.Graph()
    with g.as_default():
        tf.identity(tf.constant(3.0, name="a"), name="b")
    gd = g.as_graph_def()
    with g.as_default():
        (b,) = import_graph_def(gd, name="", return_elements=["b:0"])
        nxt = tf.constant(0.0, name="a_1")
    assert b.name == "b_1:0" and b.op.inputs[0].name == "a_1:0"
    assert nxt.op.name == "a_1_1"
    assert _run(g, b) == 3.0


def test_input_map_and_return_elements():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        c = tf.constant([10.0, 20.0], name="c")
        y = tf.add(x, c, name="y")
        tf.identity(y, name="out")
    gd = g.as_graph_def()
    g2 = tf.Graph()
    with g2.as_default():
        feed = tf.constant([1.0, 2.0], name="feed")
        out_t, out_op, y2, mapped = import_graph_def(
            gd, input_map={"x:0": feed}, return_elements=["out:0", "out", "y:0", "x:0"]
        )
    assert out_t.name == "import/out:0" and out_op is out_t.op and y2.name == "import/y:0"
    assert mapped is feed  # a mapped tensor is returned as the tensor it maps to
    assert g2.get_operation_by_name("import/y").inputs[0] is feed
    assert g2.get_operation_by_name("import/x").type == "Placeholder"  # still imported
    assert out_t.shape.as_list() == [2]
    _assert_same(_run(g2, out_t), np.array([11.0, 22.0], np.float32))
    # "x" means "x:0"; Python values are converted under <prefix>/_inputs
    g3 = tf.Graph()
    with g3.as_default():
        (out,) = import_graph_def(gd, input_map={"x": [5.0, 6.0]}, return_elements=["out:0"])
    assert g3.get_operation_by_name("import/_inputs/Const").type == "Const"
    _assert_same(_run(g3, out), np.array([15.0, 26.0], np.float32))


def test_input_map_control_dependency():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        with tf.control_dependencies([a]):
            tf.constant(2.0, name="b")
    g2 = tf.Graph()
    with g2.as_default():
        other = tf.constant(0.0, name="other")
        (b,) = import_graph_def(g.as_graph_def(), input_map={"^a": other}, return_elements=["b"])
    assert b.control_inputs == [other.op]


def test_input_map_errors():
    g = tf.Graph()
    with g.as_default():
        tf.identity(tf.placeholder(tf.float32, name="x"), name="y")
    gd = g.as_graph_def()
    g2 = tf.Graph()
    with g2.as_default():
        t = tf.constant(1.0)
        i = tf.constant(1)
        n = len(g2.get_operations())
        with pytest.raises(ValueError, match=r"not found in graph_def: \[nope:0\]"):
            import_graph_def(gd, input_map={"nope:0": t})
        # as TF, an unused mapping is reported after the import: its two ops stay
        assert [op.name for op in g2.get_operations()[n:]] == ["import/x", "import/y"]
        n = len(g2.get_operations())
        with pytest.raises(ValueError, match="passed int32 from Const_1:0 incompatible"):
            import_graph_def(gd, input_map={"x:0": i})
        with pytest.raises(ValueError, match="Cannot convert 'x:y' to a tensor name"):
            import_graph_def(gd, input_map={"x:y": t})
        with pytest.raises(TypeError, match="input_map must be a dictionary"):
            import_graph_def(gd, input_map={1: t})
        with pytest.raises(ValueError, match="requires a non-empty `name`"):
            import_graph_def(gd, input_map={"x:0": 1.0}, name="")
        assert len(g2.get_operations()) == n
    other = tf.Graph()
    with other.as_default():
        foreign = tf.constant(1.0, name="foreign")
    # TF 1.15 looks the value up by name in the importing graph
    with g2.as_default(), pytest.raises(ValueError, match="node 'foreign' in input_map does "
                                        r"not exist in graph \(input_map entry: x:0->foreign:0\)"):
        import_graph_def(gd, input_map={"x:0": foreign})


def test_return_element_errors():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    gd = g.as_graph_def()
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Invalid return output 1 of node 'c', which has 1 output\(s\)"):
            import_graph_def(gd, return_elements=["c:1"])
        with pytest.raises(ValueError, match="Requested return node 'd' not found"):
            import_graph_def(gd, return_elements=["d"])
        with pytest.raises(TypeError, match="return_elements must be a list of strings"):
            import_graph_def(gd, return_elements=[1])


def test_import_applies_device_scopes():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="a")
        with tf.device("/device:CPU:0"):
            tf.constant(2.0, name="b")
    g2 = tf.Graph()
    with g2.as_default(), tf.device("/job:ps/task:0"):
        import_graph_def(g.as_graph_def(), name="")
    assert g2.get_operation_by_name("a").device == "/job:ps/task:0"
    assert g2.get_operation_by_name("b").device == "/job:ps/task:0/device:CPU:0"


def test_accepts_other_graph_def_classes_and_rejects_others():
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="graph_def must be a GraphDef proto"):
            import_graph_def("not a graph")
        with pytest.raises(TypeError, match="graph_def must be a GraphDef proto"):
            import_graph_def(attr_value_pb2.AttrValue())


# ------------------------------------------------------------------------------------------
# malformed GraphDefs: clear errors, nothing imported
# ------------------------------------------------------------------------------------------


def _gd(text):
    gd = text_format.Parse(text, graph_pb2.GraphDef())
    gd.versions.producer = 27
    return gd


_CONST = """node {{ name: "{n}" op: "Const"
  attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
  attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ {shape} }}
                                         float_val: 1 }} }} }} }}"""


def _ident(n, inp, extra=""):
    return (
        f'node {{ name: "{n}" op: "Identity" input: "{inp}" {extra}'
        ' attr { key: "T" value { type: DT_FLOAT } } }'
    )


BAD = {
    "unknown_op": ('node { name: "f" op: "FooBarOp" }', r"Op type not registered 'FooBarOp'"),
    "missing_input": (
        _CONST.format(n="a", shape="") + _ident("b", "nowhere:0"),
        r"Node 'b': Unknown input node 'nowhere:0'",
    ),
    "missing_control": (
        _CONST.format(n="a", shape="") + _ident("b", "a", 'input: "^gone"'),
        r"Node 'b': Unknown input node '\^gone'",
    ),
    "bad_output_index": (
        _CONST.format(n="a", shape="") + _ident("b", "a:1"),
        "invalid output 1 of source node a which has 1 outputs",
    ),
    "duplicate": (
        _CONST.format(n="a", shape="") + _CONST.format(n="a", shape=""),
        "Node 'a' is not unique",
    ),
    "cycle": (
        _ident("p", "q") + _ident("q", "p") + _CONST.format(n="a", shape=""),
        "^2 nodes in a cycle$",  # TF 1.15 names none of them
    ),
    "self_loop": (_ident("p", "p"), "^1 nodes in a cycle$"),
    "wrong_input_count": (
        'node { name: "b" op: "Identity" attr { key: "T" value { type: DT_FLOAT } } }',
        "expected inputs 'float' do not match 0 inputs",  # TF's C++ type name
    ),
    "missing_attr": (
        _CONST.format(n="a", shape="") + 'node { name: "b" op: "Identity" input: "a" }',
        ("NodeDef missing attr 'T' from Op<name=Identity; signature=input:T -> output:T; "
        "attr=T:type>"),
    ),
    "unknown_attr": (
        _CONST.format(n="a", shape="") + _ident("b", "a", 'attr { key: "bogus" value { i: 1 } }'),
        ("NodeDef mentions attr 'bogus' not in Op<name=Identity; signature=input:T -> "
        "output:T; attr=T:type>"),
    ),
    "attr_kind": (
        'node { name: "p" op: "Placeholder" attr { key: "dtype" value { i: 1 } } }',
        "AttrValue had value with type 'int' when 'type' expected",
    ),
    "input_dtype": (
        _CONST.format(n="a", shape="") + 'node { name: "b" op: "Identity" input: "a" '
        'attr { key: "T" value { type: DT_INT32 } } }',
        ("Input 0 of node (import/)?b was passed float from (import/)?a:0 incompatible with "
         "expected int32"),
    ),
    "control_first": (
        _CONST.format(n="a", shape="") + _ident("b", "^a", 'input: "a"'),
        "Control dependencies must come after regular dependencies",
    ),
    "colocation": (
        _CONST.format(n="a", shape="")
        + _ident("b", "a", 'attr { key: "_class" value { list { s: "loc:@zz" } } }'),
        "Node 'b' expects to be colocated with unknown node 'zz'",
    ),
    "bad_name": (_CONST.format(n="_a", shape=""), "Node '_a': Node name contains invalid"),
    "shape_fn": (
        _CONST.format(n="a", shape="dim { size: 2 }")
        + _CONST.format(n="c", shape="dim { size: 3 }")
        + 'node { name: "sum" op: "Add" input: "a" input: "c" '
        'attr { key: "T" value { type: DT_FLOAT } } }',
        r"Dimensions must be equal.* for '(import/)?sum' \(op: 'Add'\) .*shapes: \[2\], \[3\]",
    ),
    "consumer_version": (
        "versions { min_consumer: 100000 }",
        "min consumer version 100000 above current version",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_malformed_graph_def_raises_and_imports_nothing(case):
    text, pattern = BAD[case]
    gd = _gd(text)
    g = tf.Graph()
    with g.as_default():
        keep = tf.constant(5.0, name="keep")
        before = g.as_graph_def()
        names_in_use = dict(g._names_in_use)
        with pytest.raises(ValueError, match=pattern):
            import_graph_def(gd, name="")
        with pytest.raises(ValueError, match=pattern):
            import_graph_def(gd)
    assert g.as_graph_def() == before
    assert {k: v for k, v in g._names_in_use.items() if not k.startswith("import")} == (
        names_in_use
    )
    assert keep.consumers() == []
    with g.as_default():  # still usable, and names from the failed import are free
        for name in ("a", "b", "sum"):
            assert tf.identity(keep, name=name).op.name == name
    assert _run(g, "sum:0") == 5.0


def test_unknown_op_is_both_value_error_and_not_found_error():
    gd = _gd(BAD["unknown_op"][0])
    with tf.Graph().as_default(), pytest.raises(errors.NotFoundError) as info:
        import_graph_def(gd)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, importer.OpNotRegisteredError)


def test_garbage_bytes_raise_decode_error():
    with pytest.raises(DecodeError):
        graph_pb2.GraphDef.FromString(b"\xff\xff\xff\xff garbage")


def test_finalized_graph_refuses_import():
    g, _ = _build()
    gd = g.as_graph_def()
    g2 = tf.Graph()
    g2.finalize()
    with g2.as_default(), pytest.raises(RuntimeError, match="finalized"):
        import_graph_def(gd)


def test_missing_attrs_take_declared_defaults():
    gd = _gd('node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }')
    g, _ = _import_into_new_graph(gd, name="")
    p = g.get_operation_by_name("p")
    assert p.outputs[0].dtype == tf.int64 and p.outputs[0].shape.ndims is None
    assert g.as_graph_def().node[0].attr["shape"].shape.unknown_rank


def test_producer_op_list_drops_unknown_default_attrs():
    gd = _gd(
        'node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }'
        ' attr { key: "new_attr" value { i: 7 } } }'
    )
    producer = op_def_pb2.OpList()
    op = producer.op.add(name="Placeholder")
    op.attr.add(name="new_attr", type="int").default_value.i = 7
    g, _ = _import_into_new_graph(gd, producer_op_list=producer)
    assert "new_attr" not in g.get_operation_by_name("import/p").node_def.attr
    op.attr[0].default_value.i = 8
    with pytest.raises(ValueError, match="NodeDef mentions attr 'new_attr'"):
        _import_into_new_graph(gd, producer_op_list=producer)


def test_versions_merge_on_import():
    gd = _gd(_CONST.format(n="a", shape=""))
    gd.versions.producer = 21
    g, _ = _import_into_new_graph(gd)
    assert g.graph_def_versions.producer == 21


# ------------------------------------------------------------------------------------------
# write_graph
# ------------------------------------------------------------------------------------------


def test_write_graph_text_and_binary(tmp_path):
    g, _ = _build()
    gd = g.as_graph_def()
    logdir = tmp_path / "new" / "dir"
    path = graph_io.write_graph(g, str(logdir), "graph.pbtxt")
    assert path == str(logdir / "graph.pbtxt")
    with open(path) as f:
        assert text_format.Parse(f.read(), graph_pb2.GraphDef()) == gd
    path = graph_io.write_graph(gd, logdir, "graph.pb", as_text=False)
    with open(path, "rb") as f:
        parsed = graph_pb2.GraphDef()
        parsed.ParseFromString(f.read())
    assert parsed == gd
    assert sorted(p.name for p in logdir.iterdir()) == ["graph.pb", "graph.pbtxt"]


# ------------------------------------------------------------------------------------------
# attr conversion of every declared kind
# ------------------------------------------------------------------------------------------

ATTR_CASES = [
    ("int", -3),
    ("float", 0.25),
    ("bool", True),
    ("string", "hello"),
    ("type", tf.bfloat16),
    ("shape", tf.TensorShape([None, 4])),
    ("shape", tf.TensorShape(None)),
    ("list(int)", [1, 2, 3]),
    ("list(int)", []),
    ("list(float)", [0.5, -1.0]),
    ("list(bool)", [True, False]),
    ("list(string)", ["a", "b"]),
    ("list(type)", [tf.int32, tf.complex64]),
    ("list(shape)", [tf.TensorShape([1]), tf.TensorShape(None)]),
]


@pytest.mark.parametrize(
    "attr_type,value", ATTR_CASES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(ATTR_CASES)]
)
def test_attr_value_round_trip(attr_type, value):
    av = graph_io.attr_value_of(value, attr_type)
    back = graph_io.attr_value_to_python(av, attr_type)
    assert back == value or repr(back) == repr(value)  # (shapes with unknown dims: by value)
    assert graph_io.attr_value_of(back, attr_type) == av


def test_tensor_attr_round_trip():
    for arr in (
        np.arange(4, dtype=np.int16),
        np.array([b"s", b"\xff"], dtype=object),
        np.array([1.0], ml_dtypes.bfloat16),
    ):
        av = graph_io.attr_value_of(arr, "tensor")
        back = graph_io.attr_value_to_python(av, "tensor")
        _assert_same(back, arr)
        assert not back.flags.writeable


def test_registered_ops_round_trip_their_default_attrs():
    # every declared default converts to an AttrValue and back unchanged
    for op_def in op_registry.registered_ops().values():
        for spec in op_def.attrs.values():
            if not spec.has_default or spec.default is None:
                continue
            av = graph_io.attr_value_of(spec.default, spec.type)
            assert graph_io.attr_value_to_python(av, spec.type) == spec.default, (
                op_def.name,
                spec.name,
            )
