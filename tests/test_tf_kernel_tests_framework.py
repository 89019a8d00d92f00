"""Behaviours of the graph framework, the client Session, tf.layers and the RNN cells that TF
1.15's own tests (framework/, client/session_test.py, layers/, rnn tests) showed tideflow
missing or getting wrong; each test pins one of them with values worked out by hand or NumPy."""

import collections
import threading
import warnings

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import ops


# -- Session: names, arguments, context managers --------------------------------------------
def test_op_names_may_be_bytes_and_fetch_names_too():
    with tf.Graph().as_default():
        e = tf.constant(44.0, name=b"e")
        tf.constant(42.0, name="c")
        assert e.name == "e:0" and isinstance(e.name, str)
        with tf.Session() as sess:
            assert sess.run(b"e:0") == 44.0
            assert sess.run([b"c:0", "e:0"]) == [42.0, 44.0]
            assert sess.run({"k": b"c:0"}) == {"k": 42.0}


def test_session_argument_types_are_checked():
    with pytest.raises(TypeError, match="target must be a string"):
        tf.Session(37)
    with pytest.raises(TypeError, match="config must be a tf.ConfigProto"):
        tf.Session(config=37)
    with pytest.raises(TypeError, match="graph must be a tf.Graph"):
        tf.Session(graph=37)


def test_session_context_manager_is_not_reentrant():
    with tf.Graph().as_default():
        sess = tf.Session()
        with pytest.raises(RuntimeError, match="not re-entrant"), sess:  # noqa: SIM117
            with sess:
                pass
        assert tf.get_default_session() is None


def test_default_session_stack_enforces_nesting():
    with tf.Graph().as_default():
        s1, s2 = tf.Session(), tf.Session()
        c1 = s1.as_default()
        c1.__enter__()
        c2 = s2.as_default()
        c2.__enter__()
        try:
            with pytest.raises(AssertionError, match="Nesting violated"):
                c1.__exit__(None, None, None)
        finally:
            ops._default_session_stack.reset()
        assert tf.get_default_session() is None
        # properly nested blocks are fine
        with s1.as_default():
            with s2.as_default():
                assert tf.get_default_session() is s2
            assert tf.get_default_session() is s1


def test_interactive_session_keeps_the_global_graph_resettable():
    tf.reset_default_graph()
    sess = tf.InteractiveSession()
    try:
        c = tf.constant(3.0) * 2.0
        assert c.eval() == 6.0
        tf.reset_default_graph()  # TF allows this: the session did not push a graph
        assert tf.get_default_graph() is not sess.graph
        assert tf.get_default_session() is sess
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_second_interactive_session_warns_once():
    tf.InteractiveSession._active_session_count = 0
    with tf.Graph().as_default():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            s1 = tf.InteractiveSession()
            s1.close()
            s1 = tf.InteractiveSession()
            assert not w
            s2 = tf.InteractiveSession()
        assert len(w) == 1 and "interactive session is already active" in str(w[0].message)
        # closed out of order: both leave the default-session stack
        s1.close()
        s2.close()
        assert tf.get_default_session() is None
        assert tf.InteractiveSession._active_session_count == 0


def test_run_metadata_holds_only_the_last_step():
    with tf.Graph().as_default():
        a = tf.constant(1)
        md = tf.RunMetadata()
        with tf.Session() as sess:
            sess.run(a, options=tf.RunOptions(output_partition_graphs=True,
                                              trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=md)
            assert len(md.partition_graphs) > 0 and md.HasField("step_stats")
            sess.run(a, run_metadata=md)
            assert len(md.partition_graphs) == 0
            assert not md.HasField("step_stats")


# -- Session: feeding IndexedSlices ------------------------------------------------------------
def test_feed_indexed_slices_with_and_without_dense_shape():
    values = np.array([1.0, 2.0], np.float32)
    indices = np.array([[3, 2, 0], [4, 5, 1]], np.int64)
    dense_shape = np.array([7, 9, 2], np.int64)
    with tf.Graph().as_default():
        ind = tf.IndexedSlices(tf.placeholder(tf.float32, (2,)),
                               tf.placeholder(tf.int64, (2, 3)),
                               tf.placeholder(tf.int64, (3,)))
        doubled = tf.IndexedSlices(ind.values * 2, tf.identity(ind.indices),
                                   tf.identity(ind.dense_shape))
        bare = tf.IndexedSlices(tf.placeholder(tf.float32, (2,)),
                                tf.placeholder(tf.int64, (2, 3)))
        with tf.Session() as sess:
            out = sess.run(doubled, {ind: (values, indices, dense_shape)})
            np.testing.assert_array_equal(out.values, values * 2)
            np.testing.assert_array_equal(out.indices, indices)
            np.testing.assert_array_equal(out.dense_shape, dense_shape)
            out = sess.run(doubled, {ind: tf.IndexedSlicesValue(values, indices, dense_shape)})
            np.testing.assert_array_equal(out.values, values * 2)
            v, i = sess.run([bare.values, bare.indices],
                            {bare: tf.IndexedSlicesValue(values + 1, indices, None)})
            np.testing.assert_array_equal(v, values + 1)
            np.testing.assert_array_equal(i, indices)
            with pytest.raises(TypeError, match="cannot be a tf.IndexedSlices"):
                sess.run(doubled.values, {ind: doubled})


# -- tf.test.TestCase helpers the TF tests use -----------------------------------------------
def _Case():
    class Case(tf.test.TestCase):
        def runTest(self):
            pass

    return Case()


def test_checked_thread_runs_target_and_reports_its_failure():
    case = _Case()
    seen = []
    t = case.checkedThread(target=seen.append, args=(5,))
    t.start()
    t.join()
    assert seen == [5]

    def boom():
        raise ValueError("bad thread")

    t = case.checkedThread(target=boom)
    t.start()
    with pytest.raises(AssertionError, match="bad thread"):
        t.join()


def test_assert_all_equal_on_nested_ragged_fetch_structures():
    case = _Case()
    case.assertAllEqual([[[15]], 15, [15]], [[[15]], np.int32(15), [15]])
    with pytest.raises(AssertionError):
        case.assertAllEqual([[[15]], 15, [15]], [[[15]], 16, [15]])


def test_fetch_structures_keep_their_types():
    abc = collections.namedtuple("ABC", ["a", "b", "c"])
    with tf.Graph().as_default():
        a, c = tf.constant(42.0), tf.constant(44.0)
        b = tf.no_op()
        with tf.Session() as sess:
            res = sess.run([[a, b, c], (a, b, c), abc(a, b, c), {"a": a.name, "b": b}])
            assert res[0] == [42.0, None, 44.0]
            assert isinstance(res[1], tuple) and res[1] == (42.0, None, 44.0)
            assert isinstance(res[2], abc) and res[2].c == 44.0
            assert res[3] == {"a": 42.0, "b": None}
            ev = threading.Event()
            out = []

            def step():
                ev.wait()
                out.append(sess.run(a))

            threads = [threading.Thread(target=step) for _ in range(4)]
            for t in threads:
                t.start()
            ev.set()
            for t in threads:
                t.join()
            assert out == [42.0] * 4


# -- Graph / Operation / Tensor API (ops_test.py) ---------------------------------------------
def test_experimental_ref_keys_tensors_and_variables_by_identity():
    with tf.Graph().as_default():
        x1 = tf.constant(3)
        x2 = x1
        y = tf.constant(3)
        w = tf.Variable(5)
        refs = {x1.experimental_ref(), x2.experimental_ref(), y.experimental_ref(),
                w.experimental_ref()}
        assert len(refs) == 3
        assert x1.experimental_ref() == x2.experimental_ref()
        assert x1.ref() != y.ref()
        assert x1.ref().deref() is x1 and w.ref().deref() is w
        d = {x1.ref(): "x1"}
        d[x2.ref()] = "x2"
        assert d == {x1.ref(): "x2"}


def test_shape_tuple_and_operation_conversion_error():
    with tf.Graph().as_default():
        assert tf.constant(1)._shape_tuple() == ()
        assert tf.zeros([2, 3])._shape_tuple() == (2, 3)
        assert tf.placeholder(tf.float32)._shape_tuple() is None
        assert tf.zeros([2, 3])._rank() == 2 and tf.placeholder(tf.float32)._rank() is None
        with pytest.raises(TypeError, match=r"Can't convert Operation 'NoOp' to Tensor"):
            tf.convert_to_tensor(tf.no_op())


def test_indexed_slices_conversion_takes_the_name():
    with tf.Graph().as_default():
        x = tf.IndexedSlices(tf.constant([[2, 3], [5, 7]]), tf.constant([0, 2]),
                             tf.constant([3, 2]))
        t = tf.convert_to_tensor(x, name="tensor")
        assert t.name == "tensor:0"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(t), [[2, 3], [0, 0], [5, 7]])


def test_remove_all_control_inputs():
    with tf.Graph().as_default():
        a = tf.constant(1)
        c = tf.constant(3)
        d, e = tf.constant(4), tf.constant(5)
        with tf.control_dependencies([a, c]):
            f = d + e
        assert f.op.control_inputs == [a.op, c.op]
        f.op._remove_all_control_inputs()
        assert f.op.control_inputs == []
        assert list(f.op.inputs) == [d, e]
        assert f.op not in a.op._control_outputs
        with tf.Session() as sess:
            assert sess.run(f) == 9


def test_update_input_checks_graph_index_and_shape():
    g0, g1 = tf.Graph(), tf.Graph()
    with g0.as_default():
        x = tf.constant(1)
    with g1.as_default():
        y = tf.constant(2)
        z = y * 2
        with pytest.raises(ValueError, match="must be from the same graph"):
            z.op._update_input(0, x)
        with pytest.raises(tf.errors.OutOfRangeError, match=r"Input index \[1\] is greater"):
            y.op._update_input(1, y)
        w = tf.constant(2, shape=[3, 1])
        v = tf.constant(1, shape=[2, 2])
        s = w + w
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"incompatible shapes: \[2,2\] and \[3,1\]"):
            s.op._update_input(0, v)
        z.op._update_input(0, tf.constant(5))
        with tf.Session() as sess:
            assert sess.run(z) == 10


def test_op_def_answers_the_proto_fields():
    with tf.Graph().as_default():
        x = tf.constant(0)
        z = tf.add(x, x)
        assert x.op.op_def.name == "Const"
        assert len(x.op.op_def.input_arg) == 0 and len(x.op.op_def.output_arg) == 1
        assert [a.name for a in z.op.op_def.input_arg] == ["x", "y"]
        assert "T" in [a.name for a in z.op.op_def.attr]


def test_cycle_error_names_the_node_count():
    with tf.Graph().as_default():
        z = tf.constant(0)
        x = tf.constant(1)
        y = tf.constant(2)
        y.op._add_control_input(z.op)
        y.op._add_control_input(x.op)
        x.op._add_control_input(y.op)
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match="Graph is invalid, contains a cycle with 2 nodes"):
            sess.run(x)


def test_merge_device_function_and_device_scope_nesting():
    from tideflow.python.framework import device as pydev

    g = tf.Graph()
    with g.as_default():
        with g.device(pydev.merge_device("/device:GPU:0")):
            with g.device(pydev.merge_device("/job:worker")):
                a = tf.constant(1.0)
                with g.device(pydev.merge_device(None)):
                    b = tf.constant(1.0)
            with g.device(pydev.merge_device("/job:ps/device:CPU:0")):
                c = tf.constant(1.0)
        assert a.op.device == "/job:worker/device:GPU:0"
        assert b.op.device == "/job:worker/device:GPU:0"
        assert c.op.device == "/job:ps/device:CPU:0"
        scope = g.device("/device:GPU:8")
        scope.__enter__()
        with g.device("/device:GPU:9"), pytest.raises(RuntimeError, match="proper scope nesting"):
            scope.__exit__(None, None, None)


def test_device_function_answer_is_the_device():
    from tideflow.python.framework import device as pydev

    g = tf.Graph()
    with g.as_default():
        with g.device(lambda op: "/job:overwrite"):
            a = tf.constant(1.0)
            with g.device("/job:ps"):  # the outer function still decides
                b = tf.constant(1.0)
            with g.device(pydev.merge_device("/job:ps")):
                c = tf.constant(1.0)
            with g.device(None), g.device("/job:ps"):
                d = tf.constant(1.0)
        with g.device(lambda op: "/job:worker/replica:2/device:CPU:1"), g.device(None):
            e = tf.constant(1.0)
    assert [t.op.device for t in (a, b, c, d, e)] == [
        "/job:overwrite", "/job:overwrite", "/job:overwrite", "/job:ps", ""]


def test_name_scope_stack_is_per_thread():
    g = tf.Graph()
    results = {}
    entered = [threading.Event() for _ in range(3)]
    resume = [threading.Event() for _ in range(3)]

    def build(i):
        with g.as_default(), g.name_scope("foo"):
            first = tf.constant(1.0, name="F").op.name
            entered[i].set()
            resume[i].wait()
            results[i] = (first, tf.constant(1.0, name="F").op.name)

    threads = [threading.Thread(target=build, args=(i,)) for i in range(3)]
    for t, ev in zip(threads, entered):
        t.start()
        ev.wait()
    for t, ev in zip(threads, resume):
        ev.set()
        t.join()
    assert results == {0: ("foo/F", "foo/F_1"), 1: ("foo_1/F", "foo_1/F_1"),
                       2: ("foo_2/F", "foo_2/F_1")}


def test_graph_collections_property():
    g = tf.Graph()
    assert g.collections == []
    g.add_to_collection("key", 12)
    g.add_to_collection("other", "foo")
    assert sorted(g.collections) == ["key", "other"]


def test_get_gradient_function_and_unknown_override():
    from tideflow.python.framework import ops as tf_ops

    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0)
        assert tf_ops.get_gradient_function(x.op) is None  # no inputs
        assert callable(tf_ops.get_gradient_function(tf.identity(x).op))
        with g.gradient_override_map({"Identity": "no_such_override_h8"}):
            y = tf.identity(x)
        with pytest.raises(LookupError, match="no_such_override_h8"):
            tf_ops.get_gradient_function(y.op)


def test_name_scope_checks_and_reentry():
    g0, g1 = tf.Graph(), tf.Graph()
    with g0.as_default():
        a = tf.constant(1.0)
    with g1.as_default():
        b = tf.constant(1.0)
    with pytest.raises(ValueError, match="must be from the same graph"), \
            tf.name_scope("s", values=[a, b]):
        pass
    with g0.as_default():
        with pytest.raises(ValueError, match="At least one of name"), \
                tf.name_scope(None, values=[a]):
            pass
        foo, bar = tf.name_scope("foo"), tf.name_scope("bar")
        with foo as s1:
            with foo as s2, bar as s3:
                pass
            with bar as s4:
                pass
        assert (s1, s2, s3, s4) == ("foo/", "foo/foo/", "foo/foo/bar/", "foo/bar/")


def test_init_scope_lifts_out_of_function_graphs_with_their_devices():
    from tideflow.python.framework import ops as tf_ops

    g0, g1 = tf.Graph(), tf.Graph()
    g1._building_function = True
    with g0.as_default(), tf.device("/cpu:0"):
        assert tf_ops.has_default_graph()
        with g1.as_default():
            with tf.device("/device:GPU:0"), tf.init_scope():
                on_gpu = tf.constant(1.0)
                assert tf.get_default_graph() is g0
            with tf.init_scope():
                on_cpu = tf.constant(1.0)
    assert on_gpu.graph is g0 and on_gpu.device == "/device:GPU:0"
    assert on_cpu.device == "/device:CPU:0"
    assert g1.get_operations() == []
    # inside a tf.cond branch, a device scope opened in the branch comes along too
    with tf.Graph().as_default() as g:
        def branch():
            with tf.device("/cpu:0"), tf.init_scope():
                c = tf.constant(2.0, name="lifted")
            return tf.identity(c)

        tf.cond(tf.constant(True), branch, lambda: tf.constant(0.0))
        lifted = [op for op in g.get_operations() if op.name.endswith("lifted")]
        assert len(lifted) == 1 and lifted[0].device == "/device:CPU:0"


def test_dense_tensor_like_name_scope_helpers_and_statistics():
    from tideflow.python.framework import ops as tf_ops

    with tf.Graph().as_default():
        assert tf_ops.is_dense_tensor_like(tf.constant(1.0))
        assert tf_ops.is_dense_tensor_like(tf.Variable([17]))
        assert not tf_ops.is_dense_tensor_like(np.ones(2))

        class NoName:
            pass

        with pytest.raises(TypeError, match="`name`"):
            tf_ops.register_dense_tensor_like_type(NoName)
        a = tf.constant(2.0)
        file, _line, func, code = a.op.traceback[-1]
        assert file == __file__ and func.startswith("test_dense") and "tf.constant(2.0)" in code
    assert tf_ops.strip_name_scope("^hidden1/hidden1/weights", "hidden1") == "^hidden1/weights"
    assert tf_ops.prepend_name_scope("loc:@hidden1/w", "hidden2") == "loc:@hidden2/hidden1/w"

    @tf_ops.RegisterStatistics("H8StatsOp", "flops")
    def _flops(graph, node):
        return tf_ops.OpStats("flops", 20)

    node = tf.NodeDef(name="n", op="H8StatsOp")
    assert tf_ops.get_stats_for_node_def(None, node, "flops").value == 20
    assert tf_ops.get_stats_for_node_def(None, node, "params").value is None
    total = tf_ops.OpStats("flops")
    total += tf_ops.OpStats("flops", 3)
    total += tf_ops.OpStats("flops", 4)
    assert total.value == 7


# -- import_graph_def (importer_test.py) --------------------------------------------------------
def _graph_def(text):
    from google.protobuf import text_format

    gd = tf.GraphDef()
    text_format.Merge(text, gd)
    return gd


def _ph(name, dtype="DT_INT32"):
    return f"node {{ name: '{name}' op: 'Placeholder' attr {{ key: 'dtype' value {{ type: {dtype} }} }} }}"


def _ident(name, inp, dtype="DT_INT32"):
    return (f"node {{ name: '{name}' op: 'Identity' input: '{inp}' "
            f"attr {{ key: 'T' value {{ type: {dtype} }} }} }}")


def test_import_names_avoid_existing_name_scopes():
    with tf.Graph().as_default():
        with tf.name_scope("foo"):
            tf.constant(1)
        with tf.name_scope("empty"):
            pass
        with tf.name_scope("outer"), tf.name_scope("inner"):
            tf.constant(1, name="c")
        names = ["foo", "empty", "outer", "inner", "c", "outer/inner", "outer/inner/c"]
        got = tf.import_graph_def(_graph_def("".join(_ph(n) for n in names)),
                                  return_elements=names, name="")
        assert [op.name for op in got] == [
            "foo_1", "empty", "outer_1", "inner", "c", "outer/inner_1", "outer/inner/c_1"]


def test_import_error_messages_name_prefixed_nodes_and_tf_types():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Input 0 of node import/B was passed int32 from "
                                             "import/A:0 incompatible with expected float."):
            tf.import_graph_def(_graph_def(_ph("A") + _ident("B", "A:0", "DT_FLOAT")))
        with pytest.raises(ValueError, match="Input 0 of node import_1/B was passed float from "
                                             "Const:0 incompatible with expected int32."):
            tf.import_graph_def(_graph_def(_ph("A") + _ident("B", "A:0")),
                                input_map={"A:0": tf.constant(5.0)})
        for bad in ("A:B", "A:B:0"):
            with pytest.raises(ValueError, match=f"Node 'B': Unknown input node '{bad}'"):
                tf.import_graph_def(_graph_def(f"node {{ name: 'B' op: 'NoOp' input: '{bad}' }}"))
        with pytest.raises(ValueError, match=r"Invalid return output 1 of node 'A', which has "
                                             r"1 output\(s\)"):
            tf.import_graph_def(_graph_def(_ph("A")), return_elements=["A:1"])
        with pytest.raises(ValueError, match=r"not found in graph_def: \[A:2\]"):
            tf.import_graph_def(_graph_def(_ph("A")), input_map={"A:2": tf.constant(5)})
        tf.import_graph_def(_graph_def(_ph("A")), input_map={"A:0": tf.constant(5)})
        with pytest.raises(ValueError, match="Node 'B' expects to be colocated with unknown "
                                             "node 'A'"):
            tf.import_graph_def(_graph_def(
                "node { name: 'B' op: 'NoOp' attr { key: '_class' value { list { s: 'loc:@A' "
                "} } } }"))
        with pytest.raises(ValueError, match=r"supported by TensorFlow \S+\.  Please "
                                             r"regenerate your graph.$"):
            gd = _graph_def("")
            gd.versions.producer = -1
            tf.import_graph_def(gd)


# -- tensor_util (tensor_util_test.py) --------------------------------------------------------
def test_tensor_proto_round_trips_as_tf_writes_them():
    from tideflow.python.framework.tensor_shape import Dimension, as_shape

    from tideflow.python.framework import tensor_util

    t = tensor_util.make_tensor_proto([10, Dimension(20), 30], dtype=tf.int32)
    np.testing.assert_array_equal(tensor_util.MakeNdarray(t), [10, 20, 30])
    # quantized scalars written as 1-tuples are scalars of the quantized type
    t = tensor_util.make_tensor_proto([(21,), (22,), (23,)], dtype=tf.qint32)
    assert [d.size for d in t.tensor_shape.dim] == [3]
    assert t.tensor_content == np.array([21, 22, 23], "<i4").tobytes()
    # complex values go to scomplex_val/dcomplex_val as (real, imag) pairs, never content
    t = tensor_util.make_tensor_proto([1 + 2j, 3 + 4j], dtype=tf.complex64)
    assert list(t.scomplex_val) == [1, 2, 3, 4] and not t.tensor_content
    np.testing.assert_array_equal(tensor_util.MakeNdarray(t), [1 + 2j, 3 + 4j])

    class ArrayLike:
        @property
        def __array_interface__(self):
            return self._arr.__array_interface__

        _arr = np.array([b"foo", b"bar", b"baz"])

    t = tensor_util.make_tensor_proto(ArrayLike(), shape=[1, 3])
    assert list(t.string_val) == [b"foo", b"bar", b"baz"]
    t = tensor_util.make_tensor_proto([10, 20, 30, 40], shape=[2, 2])
    assert tensor_util.ShapeEquals(t, [2, 2]) and tensor_util.ShapeEquals(t, (2, 2))
    assert tensor_util.ShapeEquals(t, as_shape([2, 2]).as_proto())
    assert not tensor_util.ShapeEquals(t, [4])


def test_tensor_util_constant_value_partial_and_is_tensor():
    from tideflow.python.framework import tensor_util

    with tf.Graph().as_default():
        x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
        packed = tf.stack([x, tf.placeholder(tf.float32)])
        assert tensor_util.constant_value(packed) is None
        part = tensor_util.constant_value(packed, partial=True)
        np.testing.assert_array_equal(part[0], x)
        assert part[1] is None
        assert tensor_util.constant_value("hi") == "hi"
        assert tensor_util.constant_value(tf.Variable(1.0)) is None
        assert tensor_util.is_tensor(tf.constant(1)) and not tensor_util.is_tensor(x)
        assert str(tensor_util.constant_value_as_shape(tf.constant([-1, 1, -1]))) == "(?, 1, ?)"


# -- TensorShape / Dimension (tensor_shape_test.py) ----------------------------------------------
def test_dimension_accepts_integral_floats_and_reflected_floordiv_mod():
    dim = tf.Dimension
    assert dim(2.0).value == 2 and dim(np.float32(3.0)).value == 3 and dim("4").value == 4
    with pytest.raises(ValueError, match="Ambiguous dimension: 1.5"):
        dim(1.5)
    with pytest.raises(TypeError):
        dim([1])
    assert (30 // dim(12)).value == 2 and (30 % dim(12)).value == 6
    assert (30 // dim(None)).value is None
    with tf.Graph().as_default():  # a Python 3 division in a TF 1.x shape list
        assert tf.placeholder(tf.float32, [None, 784 / 2]).shape.as_list() == [None, 392]


def test_quantized_dtypes_set():
    from tideflow.python.framework import dtypes

    names = sorted(d.name for d in dtypes.QUANTIZED_DTYPES)
    assert names == sorted(n + r for n in ("qint8", "quint8", "qint16", "quint16", "qint32")
                           for r in ("", "_ref"))
    assert all(d.is_quantized for d in dtypes.QUANTIZED_DTYPES)


# -- tf.layers (layers/core_test.py) ---------------------------------------------------------
def test_dense_compute_output_shape_needs_a_known_innermost_dimension():
    dense = tf.layers.Dense(2)
    with pytest.raises(ValueError, match="innermost dimension of input_shape must be defined"):
        dense.compute_output_shape(tf.TensorShape(None))
    with pytest.raises(ValueError, match="innermost dimension"):
        dense.compute_output_shape(tf.TensorShape([None, None]))
    assert dense.compute_output_shape((None, 4, 3)).as_list() == [None, 4, 2]


# -- RNN cells (rnn_cell_test.py) --------------------------------------------------------------
def test_lstm_cell_unit_and_projection_shards():
    x = np.random.RandomState(1).randn(2, 5).astype(np.float32)
    results = {}
    for shards in ((None, None), (2, 3)):
        with tf.Graph().as_default():
            cell = tf.nn.rnn_cell.LSTMCell(
                3, use_peepholes=True, num_proj=4, num_unit_shards=shards[0],
                num_proj_shards=shards[1], initializer=tf.constant_initializer(0.1),
                state_is_tuple=False)
            inputs = [tf.constant(x * (i + 1)) for i in range(3)]
            outs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
            names = sorted((v.name, v.shape.as_list()) for v in tf.global_variables())
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                results[shards] = sess.run(outs + [state])
        if shards[0] == 2:
            # TF's fixed_size_partitioner row shards: 9 rows -> 5 + 4, 3 rows -> 1 + 1 + 1
            assert ("rnn/lstm_cell/kernel/part_0:0", [5, 12]) in names
            assert ("rnn/lstm_cell/kernel/part_1:0", [4, 12]) in names
            assert ("rnn/lstm_cell/projection/kernel/part_2:0", [1, 4]) in names
    for a, b in zip(results[(None, None)], results[(2, 3)]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_error_codes_under_core_lib_core():
    from tideflow.core.lib.core import error_codes_pb2
    from tideflow.core.protobuf import error_codes_pb2 as same

    assert error_codes_pb2 is same
    assert error_codes_pb2.INVALID_ARGUMENT == tf.errors.INVALID_ARGUMENT == 3
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.partial_run("no such handle", a + a, feed_dict={a: 1.0})
        assert info.value.error_code == error_codes_pb2.INVALID_ARGUMENT


# -- random_seed, device, sparse_tensor --------------------------------------------------------
def test_get_seed_reduces_modulo_int32_max_and_avoids_zero_pair():
    from tideflow.python.framework import random_seed

    cases = {(None, None): (None, None), (None, 1): (random_seed.DEFAULT_GRAPH_SEED, 1),
             (1, 1): (1, 1), (0, 0): (0, 2**31 - 1), (2**31 - 1, 0): (0, 2**31 - 1),
             (0, 2**31 - 1): (0, 2**31 - 1), (2**31 + 4, 2**32): (5, 2)}
    for (graph_seed, op_seed), want in cases.items():
        with tf.Graph().as_default():
            if graph_seed is not None:
                tf.set_random_seed(graph_seed)
            assert random_seed.get_seed(op_seed) == want, (graph_seed, op_seed)


def test_device_spec_rejects_two_device_types_and_sparse_is_sparse():
    from tideflow.python.framework import device as pydev
    from tideflow.python.framework import sparse_tensor

    with pytest.raises(ValueError, match="Cannot specify multiple device types"):  # TF 1.15
        pydev.DeviceSpec.from_string("/job:a/cpu:0/gpu:0")
    assert pydev.DeviceSpec.from_string("/job:a/gpu:1").to_string() == "/job:a/device:GPU:1"
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 1]], [1.0], [2, 3])
        assert sparse_tensor.is_sparse(sp)
        assert sparse_tensor.is_sparse(tf.SparseTensorValue([[0]], [1.0], [2]))
        assert not sparse_tensor.is_sparse(tf.constant(1.0))


# -- partial runs (session_partial_run_test.py) -----------------------------------------------
def test_partial_run_failed_call_changes_nothing_and_fetches_once():
    with tf.Graph().as_default():
        a, b, c = (tf.placeholder(tf.float32, []) for _ in range(3))
        r1 = a + b
        r2 = r1 * c
        with tf.Session() as sess:
            h = sess.partial_run_setup([r1, r2], [a, b, c])
            stray = tf.placeholder(tf.float32)
            with pytest.raises(tf.errors.InvalidArgumentError, match="was not specified"):
                sess.partial_run(h, r1, {a: 1.0, b: 2.0, stray: 3.0})
            assert sess.partial_run(h, r1, {a: 1.0, b: 2.0}) == 3.0  # a, b were not taken
            with pytest.raises(tf.errors.InvalidArgumentError, match="already been fetched"):
                sess.partial_run(h, r1)
            assert sess.partial_run(h, r2, {c: 4.0}) == 12.0


def test_partial_run_of_constants_without_feeds():
    with tf.Graph().as_default():
        c = tf.constant(5.0)
        d = c * 2
        with tf.Session() as sess:
            h = sess.partial_run_setup([c, d])
            assert sess.partial_run(h, c) == 5.0
            assert sess.partial_run(h, d) == 10.0


def test_layer_updates_and_losses_for_inputs():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, (4, 3))
        x2 = tf.placeholder(tf.float32, (4, 3))
        bn = tf.layers.BatchNormalization()
        bn.apply(x, training=True)
        bn.apply(x2, training=True)
        assert len(bn.updates) == 4
        assert len(bn.get_updates_for(x)) == 2 and len(bn.get_updates_for(x2)) == 2
        assert bn.get_updates_for(None) == []
        dense = tf.layers.Dense(2, kernel_regularizer=tf.reduce_sum,
                                activity_regularizer=tf.reduce_sum)
        dense.apply(x)
        # the kernel's penalty is unconditional; the activity penalty comes from x
        assert len(dense.get_losses_for(None)) == 1 and len(dense.get_losses_for(x)) == 1


# -- Session: conversion registry, infer_shapes, callables from options -------------------------
def test_register_session_run_conversion_functions():
    from tideflow.python.client import session as session_lib

    class Squared:
        def __init__(self, tensor):
            self.sq = tf.square(tensor)

    session_lib.register_session_run_conversion_functions(
        Squared, lambda s: ([s.sq], lambda vals: vals[0]),
        lambda s, val: [(s.sq, val)], lambda s: [s.sq])
    with pytest.raises(ValueError, match="already been registered"):
        session_lib.register_session_run_conversion_functions(Squared, lambda s: ([], None))
    with tf.Graph().as_default():
        x = np.array([1.0, 1.5, 2.0])
        sq = Squared(x)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(sq), x * x)
            np.testing.assert_allclose(sess.run(sq, {sq: [4.0, 5.0, 6.0]}), [4.0, 5.0, 6.0])
            np.testing.assert_allclose(sess.run({"k": [sq]})["k"][0], x * x)
            # (TF 1.15 refuses a tensor both fed and fetched in a partial run: measured)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="^Square:0 is both fed and fetched.$"):
                sess.partial_run_setup([sq], [sq])
            h = sess.partial_run_setup([sq], [])
            np.testing.assert_allclose(sess.partial_run(h, sq), x * x)


def test_infer_shapes_option_and_callable_from_options():
    from tideflow.python.client import session as session_lib

    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, name="ph")
        out = tf.add(ph, 1.0, name="out")
        plain = tf.Session()
        shaped = tf.Session(config=tf.ConfigProto(graph_options=tf.GraphOptions(
            infer_shapes=True)))
        assert "_output_shapes" not in plain.graph_def.node[0].attr
        assert "_output_shapes" in shaped.graph_def.node[0].attr
        from tideflow.core.protobuf import config_pb2

        opts = config_pb2.CallableOptions(feed=[ph.name], fetch=[out.name])
        opts.run_options.trace_level = tf.RunOptions.FULL_TRACE
        fn = plain._make_callable_from_options(opts)
        md = tf.RunMetadata()
        assert fn(np.float32(1.0), run_metadata=md) == [2.0]
        assert len(md.step_stats.dev_stats) > 0
        plain.close()
        shaped.close()
    attrs = session_lib._DeviceAttributes("/job:w/replica:0/task:3/cpu:1", "CPU", 1337, 7)
    assert attrs.name == "/job:w/replica:0/task:3/device:CPU:1"
    assert repr(attrs).startswith("_DeviceAttributes")


def test_conv2d_transpose_layer_honours_dilation_rate():
    rng = np.random.RandomState(0)
    x = rng.rand(2, 4, 5, 3).astype(np.float32)
    w = rng.rand(3, 3, 4, 3).astype(np.float32)  # [kh, kw, filters, in_channels]
    d = 2
    # NumPy reference: each input pixel scatters the kernel at dilated offsets ('valid')
    want = np.zeros((2, 4 + 2 * d, 5 + 2 * d, 4), np.float32)
    for a in range(3):
        for b in range(3):
            want[:, a * d:a * d + 4, b * d:b * d + 5, :] += np.einsum("nijc,oc->nijo", x,
                                                                        w[a, b])
    with tf.Graph().as_default():
        layer = tf.layers.Conv2DTranspose(4, 3, dilation_rate=d, use_bias=False,
                                          kernel_initializer=tf.constant_initializer(w))
        y = layer(tf.constant(x))
        assert y.shape.as_list() == [2, 8, 9, 4]
        assert layer.compute_output_shape([2, 4, 5, 3]).as_list() == [2, 8, 9, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), want, rtol=1e-5, atol=1e-5)


def test_switch_to_thread_local_gives_each_thread_its_own_stacks():
    g = tf.Graph()
    with g.as_default():
        anchors = [tf.constant(float(i), name=f"anchor_{i}") for i in range(3)]
        g.switch_to_thread_local()
    entered = [threading.Event() for _ in range(3)]
    resume = threading.Event()
    made = {}

    def build(i):
        with g.as_default(), g.device(f"/job:worker/replica:{i}"):
            with g.colocate_with(anchors[i]), g.control_dependencies([anchors[i]]):
                entered[i].set()
                resume.wait()
                made[i] = tf.constant(1.0, name=f"out_{i}").op
            made[i, "device"] = tf.constant(1.0, name=f"dev_{i}").op.device

    threads = [threading.Thread(target=build, args=(i,)) for i in range(3)]
    for t, ev in zip(threads, entered):
        t.start()
        ev.wait()
    resume.set()
    for t in threads:
        t.join()
    for i in range(3):
        assert made[i].colocation_groups() == [f"loc:@anchor_{i}".encode()]
        assert made[i].control_inputs == [anchors[i].op]
        assert made[i, "device"] == f"/job:worker/replica:{i}"
    with g.as_default():  # this thread's stacks are untouched by the others
        plain = tf.constant(2.0).op
        assert plain.device == "" and plain.control_inputs == []
    # a graph that never switched keeps plain attributes
    assert type(tf.Graph()) is tf.Graph and isinstance(g, tf.Graph)


def test_original_op_scope_is_reported_by_errors():
    with tf.Graph().as_default() as g:
        a = tf.constant(0.0, shape=[2, 3])
        with g._original_op(a.op):
            b = tf.identity(a, name="id")
        with g._original_op(b.op):
            c = tf.placeholder(tf.float32)
        d = tf.constant(1.0)
        assert b.op._original_op is a.op and d.op._original_op is None
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(c)
        assert info.value.op is c.op
        assert info.value.op._original_op._original_op is a.op


def test_dropout_wrapper_checks_known_keep_probabilities_as_tf():
    cell = tf.nn.rnn_cell.GRUCell(2)
    with tf.Graph().as_default():
        tf.nn.rnn_cell.DropoutWrapper(cell, state_keep_prob=0.0)  # the range is [0, 1]
        with pytest.raises(ValueError, match="input_keep_prob must be between 0 and 1: 1$"):
            tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=1.5)
        with pytest.raises(ValueError, match="output_keep_prob must be between 0 and 1"):
            tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=tf.constant(1.5))
        tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=tf.placeholder(tf.float32))


def test_internal_string_attrs_come_back_as_bytes():
    with tf.Graph().as_default() as g:
        @tf.RegisterGradient("h8_triple_grad")
        def _triple(op, grad):
            return 3.0 * grad

        x = tf.constant(2.0)
        with g.gradient_override_map({"Identity": "h8_triple_grad"}):
            y = tf.identity(x)
        assert y.op.get_attr("_gradient_op_type") == b"h8_triple_grad"
        with tf.Session() as sess:
            assert sess.run(tf.gradients(y, x)[0]) == 3.0


def test_defun_wrong_argument_count_uses_tf_words():
    from tideflow.python.framework import function

    @function.Defun(tf.float32, tf.float32)
    def add(x, y):
        return x + y

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Expected number of arguments: 2, received: 1"):
            add(tf.constant(1.0))
        with tf.Session() as sess:
            assert sess.run(add(tf.constant(1.0), tf.constant(2.5))) == 3.5
