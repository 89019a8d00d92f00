"""Graphs and sessions against TF 1.15, twenty-fifth session.

Each expected value, error class and message below was printed by the same program under real
TensorFlow 1.15 (tensorflow-cpu 1.15.0); the tests need only tideflow.
"""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _error(fn):
    with pytest.raises(Exception) as e:
        fn()
    return e.value


# -- make_callable / partial_run ----------------------------------------------------------------


def test_a_callable_without_a_feed_list_raises_the_runtimes_own_error():
    # TF 1.15 runs such a callable outside run()'s error interpolation: the node line is the
    # runtime's "[[{{node X}}]]" and the error names no op (run() names the op and its line)
    a = tf.placeholder(tf.float32, shape=[], name="a")
    r = tf.add(a, 1.0, name="r")
    v = tf.Variable(1.0, name="v")
    y = tf.gather(tf.constant([1, 2]), 5)
    with tf.Session() as s:
        e = _error(s.make_callable(r))
        assert type(e) is tf.errors.InvalidArgumentError
        assert str(e) == ("You must feed a value for placeholder tensor 'a' with dtype float\n"
                          "\t [[{{node a}}]]")
        assert e.op is None and e.node_def is None
        e = _error(s.make_callable(v + 1, accept_options=True))
        assert type(e) is tf.errors.FailedPreconditionError
        assert str(e) == "Attempting to use uninitialized value v\n\t [[{{node v/read}}]]"
        assert e.op is None
        e = _error(s.make_callable(y.op))
        assert str(e) == "indices = 5 is not in [0, 2)\n\t [[{{node GatherV2}}]]"
        # with a feed_list the callable is run() over the zipped values: run()'s error
        e = _error(lambda: s.make_callable(r, feed_list=[a])())
        assert str(e).startswith("You must feed a value for placeholder tensor 'a' with dtype "
                                 "float\n\t [[node a (defined at ")
        assert e.op.name == "a"
        e = _error(lambda: s.run(r))
        assert "[[node a (defined at " in str(e) and e.op.name == "a"


def test_partial_run_setup_refuses_nothing_to_fetch_and_a_fed_fetch():
    a = tf.placeholder(tf.float32, shape=[], name="a")
    r1 = a + 1
    with tf.Session() as s:
        assert s.partial_run_setup([r1], [a]) == "a:0->add:0//1/;0"
        for fetches, feeds in (([], [a]), ([], []), ({}, None)):
            e = _error(lambda f=fetches, d=feeds: s.partial_run_setup(f, d))
            assert type(e) is tf.errors.InvalidArgumentError
            assert str(e) == "Must specify at least one target to fetch or execute."
        assert s.partial_run_setup([r1], []) == "->add:0//1/;4"  # refused setups count too
        e = _error(lambda: s.partial_run_setup([r1], [r1]))
        assert type(e) is tf.errors.InvalidArgumentError
        assert str(e) == "add:0 is both fed and fetched."
        assert s.partial_run_setup([r1.op], [a]) == "a:0->/add/1/;6"


# -- default sessions and graphs ----------------------------------------------------------------


def test_op_run_in_a_default_session_of_another_graph_message():
    v = tf.Variable(2.0, name="v")
    a = tf.constant(3.0, name="a")
    with tf.Graph().as_default():
        s2 = tf.Session()
    with s2.as_default():
        with pytest.raises(ValueError) as e:
            v.initializer.run()
        assert str(e.value) == (
            "Cannot use the default session to execute operation: the operation's graph is "
            "different from the session's graph. Pass an explicit session to "
            "run(session=sess).")
        with pytest.raises(ValueError) as e:
            a.eval()
        assert str(e.value) == (
            "Cannot use the default session to evaluate tensor: the tensor's graph is "
            "different from the session's graph. Pass an explicit session to "
            "`eval(session=sess)`.")
    s2.close()


def test_create_op_checks_inputs_then_finalization_then_name(_fresh_graph):
    g = _fresh_graph
    a = tf.constant(1.0, name="a")
    e = _error(lambda: g.create_op("NoSuchOp", [a], [tf.float32], name="bad name"))
    assert type(e) is ValueError and str(e) == "'bad name' is not a valid node name"
    e = _error(lambda: g.create_op("Identity", ["x"], [tf.float32], name="bad name"))
    assert type(e) is TypeError and str(e) == "Input #0 is not a tensor: x"
    g.finalize()
    e = _error(lambda: g.create_op("NoSuchOp", [a], [tf.float32], name="bad name"))
    assert type(e) is RuntimeError and str(e) == "Graph is finalized and cannot be modified."
    e = _error(lambda: g.create_op("Const", [], [tf.float32]))
    assert type(e) is RuntimeError and str(e) == "Graph is finalized and cannot be modified."
    e = _error(lambda: g.create_op("NoSuchOp", [1], [tf.float32]))
    assert type(e) is TypeError and str(e) == "Input #0 is not a tensor: 1"


# -- feeds --------------------------------------------------------------------------------------


def _feed_error(t, value, fetch=None):
    with tf.Session() as s:
        e = _error(lambda: s.run(t if fetch is None else fetch, {t: value}))
    return type(e), str(e)


def _incompatible(value, type_repr):
    return (TypeError, (f"Type of feed value {value} with type {type(value)} is not compatible "
                        f"with Tensor type {type_repr}. Try explicitly setting the type of the "
                        "feed tensor to a larger type (e.g. int64)."))


def test_a_python_int_feed_must_survive_numpy_1s_scalar_of_the_feed_type():
    # TF 1.15 compares the int with NumPy 1.x's scalar of the placeholder's type
    f = tf.placeholder(tf.float32, name="f")
    h = tf.placeholder(tf.float16, name="h")
    bo = tf.placeholder(tf.bool, name="bo")
    cx = tf.placeholder(tf.complex64, name="cx")
    i64 = tf.placeholder(tf.int64, name="i64")
    u64 = tf.placeholder(tf.uint64, name="u64")
    st = tf.placeholder(tf.string, name="st")
    assert _feed_error(f, 16777217) == _incompatible(16777217, "<class 'numpy.float32'>")
    assert _feed_error(cx, 16777217) == _incompatible(16777217, "<class 'numpy.complex64'>")
    assert _feed_error(h, 70000) == _incompatible(70000, "<class 'numpy.float16'>")
    assert _feed_error(bo, 2) == _incompatible(2, "<class 'bool'>")
    assert _feed_error(bo, -1) == _incompatible(-1, "<class 'bool'>")
    assert _feed_error(st, True) == _incompatible(True, "<class 'object'>")
    assert _feed_error(u64, -1) == _incompatible(-1, "<class 'numpy.uint64'>")
    too_big = (OverflowError, "Python int too large to convert to C long")
    assert _feed_error(i64, 2**63) == too_big
    assert _feed_error(i64, [2**63]) == too_big
    assert _feed_error(u64, 2**64) == too_big
    assert _feed_error(f, 2**1024) == (OverflowError, "int too large to convert to float")
    with tf.Session() as s:
        assert s.run(f + 0, {f: 16777216}) == 16777216.0
        assert s.run(bo, {bo: 1}) and not s.run(bo, {bo: 0})
        assert s.run(u64, {u64: 2**64 - 1}) == 2**64 - 1
        assert s.run(f + 0, {f: 2**64}) == 2.0**64
        assert s.run(f + 0, {f: 1.5}) == 1.5
        assert list(s.run(tf.identity(i64), {i64: [-(2**63)]})) == [-(2**63)]


def test_feeds_numpy_1_refuses_in_its_words():
    f = tf.placeholder(tf.float32, name="f")
    i = tf.placeholder(tf.int32, name="i")
    cx = tf.placeholder(tf.complex64, name="cx")
    assert _feed_error(f, 1 + 2j) == (TypeError, "can't convert complex to float")
    assert _feed_error(f, [1j]) == (TypeError, "can't convert complex to float")
    assert _feed_error(i, 1 + 2j) == (TypeError, "can't convert complex to int")
    assert _feed_error(cx, "1") == (TypeError, "must be real number, not str")
    assert _feed_error(cx, [b"1"]) == (TypeError, "must be real number, not bytes")


def test_a_string_feed_of_other_objects_is_the_runtimes_unsupported_object_type():
    import numpy as np

    p = tf.placeholder(tf.string, [None], name="p")
    q = tf.placeholder(tf.string, [], name="q")
    for t, value, kind in ((p, [1, 2], "int"), (p, ["a", 2], "int"),
                           (p, np.array([1.5, 2]), "float"), (q, np.int64(1), "int"), (q, np.float32(1), "float"), (q, 1.5, "float"),
                           (q, None, "NoneType")):
        assert _feed_error(t, value, tf.identity(t)) == (
            tf.errors.InternalError, f"Unsupported object type {kind}")
    # the shape is checked first (a bytearray is an array of its bytes' numbers)
    assert _feed_error(q, bytearray(b"ab"), tf.identity(q)) == (
        ValueError, "Cannot feed value of shape (2,) for Tensor 'q:0', which has shape '()'")
    assert _feed_error(p, [[1]], tf.identity(p)) == (
        ValueError, "Cannot feed value of shape (1, 1) for Tensor 'p:0', which has shape '(?,)'")


def test_run_options_and_metadata_must_be_protos_unless_false():
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    with tf.Session() as s:
        s.run(v.initializer)
        for bad in (3, {"trace_level": 3}):
            e = _error(lambda b=bad: s.run(inc, options=b))
            assert type(e) is AttributeError
            assert str(e) == f"'{type(bad).__name__}' object has no attribute 'SerializeToString'"
        assert s.run(v) == 0  # refused before the step
        e = _error(lambda: s.run(inc, run_metadata=3))
        assert type(e) is AttributeError
        assert str(e) == "'int' object has no attribute 'ParseFromString'"
        assert s.run(v) == 1  # the metadata is read after the step ran
        assert s.run(inc, options=0, run_metadata=[]) == 2  # false values stand for none
        # any message takes the step's metadata
        assert s.run(inc, options=tf.RunOptions(), run_metadata=tf.RunOptions()) == 3
    e = _error(lambda: s.run(inc, options=3))  # (before the closed session's error)
    assert type(e) is AttributeError


# -- op attributes ------------------------------------------------------------------------------


def test_get_attr_gives_a_fresh_list_and_takes_only_a_str_name():
    x = tf.placeholder(tf.float32, [1, 8, 8, 3], name="x")
    c = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", name="mp")
    strides = c.op.get_attr("strides")
    assert strides == [1, 2, 2, 1] and type(strides) is list
    strides.append(7)
    assert c.op.get_attr("strides") == [1, 2, 2, 1]
    assert c.op.get_attr("strides") is not c.op.get_attr("strides")
    for bad in (3, b"ksize"):
        e = _error(lambda b=bad: c.op.get_attr(b))
        assert type(e) is TypeError
        assert str(e) == ("in method 'TF_OperationGetAttrValueProto', argument 2 of type "
                          "'char const *'")
    e = _error(lambda: c.op.get_attr(None))
    assert type(e) is ValueError and str(e) == "Operation 'mp' has no attr named ''."


# -- placement ----------------------------------------------------------------------------------


def test_a_node_on_a_missing_device_fails_every_step_of_the_session():
    # TF 1.15 places a session's whole graph when it grows: the GPU op fails a step that
    # only fetches `a`; under soft placement only a missing job (or task) still fails
    a = tf.constant(1.0, name="a")
    with tf.device("/gpu:0"):
        b = tf.constant(2.0, name="b")
    with tf.Session() as s:
        for step in (lambda: s.run(a), lambda: s.make_callable(a)(),
                     lambda: s.partial_run_setup([a], [])):
            e = _error(step)
            assert type(e) is tf.errors.InvalidArgumentError
            assert e.message.startswith("Cannot assign a device for operation b: node b ")
            assert "explicitly assigned to /device:GPU:0 but available devices are" in e.message
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as s:
        assert s.run(a) == 1.0 and s.run(b) == 2.0
        with tf.device("/job:w"):
            tf.constant(3.0, name="c")
        e = _error(lambda: s.run(a))
        assert e.message.startswith("Cannot assign a device for operation c: node c ")
        assert e.message.split("\n")[0].endswith(
            " was explicitly assigned to /job:w but available devices are [ "
            "/job:localhost/replica:0/task:0/device:CPU:0, "
            "/job:localhost/replica:0/task:0/device:XLA_CPU:0 ]. Make sure the device "
            "specification refers to a valid device.")


def test_device_scopes_take_strings_specs_functions_or_none():
    for bad in (3, 1.5):
        e = _error(lambda b=bad: tf.device(b).__enter__())
        assert type(e) is AttributeError
        assert str(e) == f"'{type(bad).__name__}' object has no attribute 'split'"
    for answer, text in ((None, "got None"), (5, "got 5")):
        with tf.device(lambda op, a=answer: a):
            e = _error(lambda: tf.constant(1, name="c"))
        assert type(e) is TypeError and str(e) == f"Expected binary or unicode string, {text}"
    with tf.device(lambda op: b"/cpu:0"):
        assert tf.constant(1, name="d").device == "/cpu:0"
    with tf.device(lambda op: ""):
        assert tf.constant(1, name="e").device == ""


# -- import_graph_def ---------------------------------------------------------------------------


def _small_graph_def():
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [None, 2], name="a")
        v = tf.placeholder(tf.float32, [None, 2], name="v")
        c = tf.add(a, 1.0, name="c")
        with tf.control_dependencies([v]):
            tf.identity(c, name="e")
    return g.as_graph_def()


def test_import_converts_every_input_map_value_to_a_tensor():
    gd = _small_graph_def()
    y = tf.no_op(name="y")
    x = tf.constant([[3.0, 4.0]], name="x")
    for key in ("^v", "v"):
        e = _error(lambda k=key: tf.import_graph_def(gd, input_map={k: y}, name="i"))
        assert type(e) is TypeError
        assert str(e) == ("Can't convert Operation 'y' to Tensor (target dtype=None, name=None, "
                          "as_ref=False)")
    # a tensor for a control input stands for its op
    e2, = tf.import_graph_def(gd, input_map={"^v": x}, return_elements=["e"], name="j")
    assert [op.name for op in e2.control_inputs] == ["x"]
    gd.node[3].input[0] = "a:3"
    e = _error(lambda: tf.import_graph_def(gd, name="k"))
    assert type(e) is ValueError
    assert str(e) == "Node 'c': Connecting to invalid output 3 of source node a which has 1 outputs."


# -- session targets ----------------------------------------------------------------------------


def test_session_targets_are_checked_in_tfs_words():
    head = "No session factory registered for the given session options: "
    tail = " Registered factories are {DIRECT_SESSION, GRPC_SESSION}."
    e = _error(lambda: tf.Session("local"))  # (TF 1.15 has no "local" target)
    assert type(e) is tf.errors.NotFoundError
    assert str(e) == (head + '{target: "local" config: device_count { key: "CPU" value: 1 } '
                      'device_count { key: "GPU" value: 0 } gpu_options { experimental { } }}'
                      + tail)
    e = _error(lambda: tf.Session("foo://bar", config=tf.ConfigProto(
        intra_op_parallelism_threads=2)))
    assert str(e) == head + '{target: "foo://bar" config: intra_op_parallelism_threads: 2}' + tail
    e = _error(lambda: tf.Session.reset("foo"))
    assert type(e) is tf.errors.NotFoundError
    assert str(e) == head + '{target: "foo" config: }' + tail
    for address in ("", "localhost", ":x", "a/b:12", "localhost:99999999999"):
        for make in (tf.Session, tf.Session.reset):
            e = _error(lambda a=address, m=make: m("grpc://" + a))
            assert type(e) is tf.errors.InvalidArgumentError
            assert str(e) == f'Could not interpret "{address}" as a host-port pair.'


# -- feed keys ----------------------------------------------------------------------------------


def test_a_resource_variable_key_feeds_and_fetches_its_creation_read():
    r = tf.Variable([1.0, 2.0], name="r", use_resource=True)
    m, rv = r * 1, r.read_value()  # (fresh reads: ReadVariableOp, Identity of another)
    g = tf.get_default_graph()
    assert g.as_graph_element(r).name == "r/Read/ReadVariableOp:0"
    with tf.control_dependencies([r]):
        c = tf.no_op(name="c")
    assert [op.name for op in c.control_inputs] == ["r/Read/ReadVariableOp"]
    with tf.Session() as s:
        s.run(r.initializer)
        out = s.run([m, rv, r], {r: [5.0, 6.0]})
        assert [list(x) for x in out] == [[1.0, 2.0], [1.0, 2.0], [5.0, 6.0]]
    v = tf.Variable([1.0, 2.0], name="v")  # a ref variable's key feeds the variable's output
    with tf.Session() as s:
        s.run(v.initializer)
        assert list(s.run(v * 1, {v: [5.0, 6.0]})) == [5.0, 6.0]


def test_a_key_fed_twice_through_a_tuple_is_not_unique():
    a = tf.placeholder(tf.float32, [2], name="a")
    b = tf.placeholder(tf.float32, [2], name="b")
    msg = 'Could not flatten dictionary: key Tensor("a:0", shape=(2,), dtype=float32) is not unique.'
    with tf.Session() as s:
        for feed in ({(a, a): ([1.0, 2.0],)}, {a: [1.0, 2.0], (b, a): (1.0, 2.0)}):
            e = _error(lambda f=feed: s.run(a * 2, f))
            assert type(e) is ValueError and str(e) == msg
        import numpy as np

        assert list(s.run(a + b, {(a, b): (np.ones(2), np.full(2, 2.0))})) == [3.0, 3.0]


def test_add_control_input_names_a_non_op_by_its_str():
    b = tf.constant(2, name="b")
    e = _error(lambda: b.op._add_control_input(b))
    assert type(e) is TypeError
    assert str(e) == 'op must be an Operation: Tensor("b:0", shape=(), dtype=int32)'


def test_a_session_without_cpus_is_refused():
    for count in (0, -1):
        e = _error(lambda c=count: tf.Session(config=tf.ConfigProto(device_count={"CPU": c})))
        assert type(e) is tf.errors.NotFoundError
        assert str(e) == "No CPU devices are available in this process"
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s:
        assert [d.name for d in s.list_devices()][:2] == [
            "/job:localhost/replica:0/task:0/device:CPU:0",
            "/job:localhost/replica:0/task:0/device:CPU:1"]


def test_the_default_container_exists_once_any_resource_was_made_in_it():
    # TF 1.15: an unassigned resource variable's read names the missing container until a
    # ref variable (its VariableV2 ran), a queue or another assigned variable made it
    missing_container = ("Error while reading resource variable w from Container: localhost. "
                         "This could mean that the variable was uninitialized. Not found: "
                         "Container localhost does not exist. (Could not find resource: "
                         "localhost/w)")
    missing_resource = ("Error while reading resource variable w from Container: localhost. "
                        "This could mean that the variable was uninitialized. Not found: "
                        "Resource localhost/w/N10tensorflow3VarE does not exist.")
    v = tf.Variable(1.0, name="v")
    w = tf.get_variable("w", [], use_resource=True)
    q = tf.FIFOQueue(3, tf.float32)
    size = q.size()
    for uses_ref_variable in (True, False):
        with tf.Session() as s:
            assert _error(lambda ss=s: ss.run(w)).message.split("\n")[0] == missing_container
            if uses_ref_variable:
                _error(lambda ss=s: ss.run(v))  # (uninitialized, but its VariableV2 ran)
            else:
                assert s.run(size) == 0
            e = _error(lambda ss=s: ss.run(w))
            assert type(e) is tf.errors.FailedPreconditionError
            assert e.message.split("\n")[0] == missing_resource


def test_an_indexed_slices_made_dense_keeps_its_static_dense_shape():
    # TF reads the dense shape's value to warn of a large conversion: the tensor it read may
    # no longer be fed
    iv = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    with tf.Session() as s:
        assert s.run(iv, {iv: ([[5.0, 6.0]], [0], [3, 2])}).indices.tolist() == [0]
        dense = tf.convert_to_tensor(iv)
        assert s.run(dense).tolist() == [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]]
        e = _error(lambda: s.run(iv, {iv: ([[5.0, 6.0]], [0], [3, 2])}))
        assert type(e) is ValueError
        assert str(e) == ('Tensor Tensor("Const_2:0", shape=(2,), dtype=int32) may not be '
                          "fed.")


def test_a_fetched_defaultdict_comes_back_without_its_factory():
    import collections

    a = tf.constant(1, name="a")
    dd = collections.defaultdict(list, {"k": a})
    with tf.Session() as s:
        r = s.run(dd)
    assert type(r) is collections.defaultdict and r.default_factory is None
    assert dict(r) == {"k": 1}


def test_colocate_with_a_python_value_colocates_with_its_constant():
    a = tf.constant(1.0, name="a")
    v = tf.Variable(1.0, name="v")
    with tf.colocate_with(3):
        t = tf.identity(a, name="t")
    assert t.op.colocation_groups() == [b"loc:@Const"]
    assert tf.get_default_graph().get_operation_by_name("Const").type == "Const"
    for bad, msg in (([a], "List of Tensors when single Tensor expected"),
                     ((a, a), "List of Tensors when single Tensor expected"),
                     ([v], ("Failed to convert object of type <class 'list'> to Tensor. "
                            "Contents: [<tf.Variable 'v:0' shape=() dtype=float32_ref>]. "
                            "Consider casting elements to a supported type."))):
        e = _error(lambda b=bad: tf.colocate_with(b).__enter__())
        assert type(e) is TypeError and str(e) == msg


def test_a_bad_partial_run_feed_is_tf_115s_python_3_attribute_error():
    # TF 1.15 rewrites the key's error through Python 2's e.message: on Python 3 that read is
    # the AttributeError its users see
    a = tf.placeholder(tf.float32, name="a")
    r = a + 1
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, name="c")
    with tf.Session() as s:
        for key, kind in ((3, "TypeError"), (c, "ValueError"), ("zz:0", "KeyError")):
            e = _error(lambda k=key: s.partial_run_setup([r], [k]))
            assert type(e) is AttributeError
            assert str(e) == f"'{kind}' object has no attribute 'message'"
        h = s.partial_run_setup([r], ["a:0"])
        assert s.partial_run(h, r, {a: 1.0}) == 2.0
