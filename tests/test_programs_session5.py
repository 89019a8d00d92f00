"""Small TF 1.x programs on the Session's observable edges: fetch structures, feeds, the
session's life cycle and the errors of common mistakes. Each was run under real TF (2.21 in
compat.v1 mode) and under tideflow; the expected values are computed here, and the error
classes and message fragments are those TF 1.x gives (noted where TF 2.x words differ)."""

import collections

import numpy as np
import pytest

import tideflow as tf

# ------------------------------------------------------------------------------------------
# fetch structures
# ------------------------------------------------------------------------------------------


def test_fetch_lists_tuples_and_nesting_keep_their_types():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        b = tf.constant([1, 2])
        with tf.Session() as s:
            r = s.run([a, [b, (a,)]])
            assert type(r) is list and type(r[1]) is list and type(r[1][1]) is tuple
            assert r[0] == 1.0 and r[0].dtype == np.float32
            np.testing.assert_array_equal(r[1][0], [1, 2])
            assert r[1][0].dtype == np.int32
            assert s.run([]) == [] and s.run(()) == ()
            assert type(s.run((a, b))) is tuple


def test_fetch_namedtuple_dict_ordereddict_defaultdict():
    NT = collections.namedtuple("NT", ["x", "y"])
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        b = tf.constant([1, 2])
        with tf.Session() as s:
            r = s.run(NT(x=[a], y={"k": b}))
            assert type(r) is NT and r.x == [1.0]
            np.testing.assert_array_equal(r.y["k"], [1, 2])
            od = s.run(collections.OrderedDict([("b", b), ("a", a)]))
            assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]
            dd = collections.defaultdict(list)
            dd["q"] = a
            r = s.run(dd)
            # (TF 1.15 rebuilds it with type(fetches)(): no default factory, measured)
            assert type(r) is collections.defaultdict and r.default_factory is None
            assert r["q"] == 1.0 and "missing" not in r
            assert s.run({}) == {}
            assert s.run({"n": {"m": [a]}}) == {"n": {"m": [1.0]}}


def test_fetch_operations_give_none_and_duplicates_share_one_value():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        init = tf.global_variables_initializer()
        c = tf.constant(3)
        with tf.Session() as s:
            assert s.run(init) is None
            assert s.run({"i": init, "v": v}) == {"i": None, "v": 1.0}
            assert s.run([c, c, c * 2, c]) == [3, 3, 6, 3]
            assert s.run(v.op) is None and s.run(v.initializer) is None


def test_fetch_by_name_and_bad_names():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0], name="x")
        tf.add(x, 1.0, name="y")
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run("y:0"), [2.0, 3.0])
            assert s.run("y") is None  # an op name runs the op
            with pytest.raises(ValueError, match="The operation, 'nope', does not exist"):
                s.run("nope:0")
            with pytest.raises(ValueError, match="exists but only has 1 outputs"):
                s.run("x:1")
            with pytest.raises(ValueError, match="refers to an Operation not in the graph"):
                s.run("nope")


def test_fetch_invalid_types_are_type_errors():
    with tf.Graph().as_default():
        a = tf.constant(1)
        with tf.Session() as s:
            # TF 1.x: "Fetch argument None has invalid type <class 'NoneType'>"
            with pytest.raises(TypeError, match="Fetch argument None has invalid type"):
                s.run([a, None])
            with pytest.raises(TypeError, match="must be a string or Tensor"):
                s.run(1)
            with pytest.raises(TypeError, match="invalid type"):
                s.run({"a": None})


def test_fetch_sparse_tensor_and_indexed_slices_values():
    with tf.Graph().as_default():
        sp = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
        v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        g = tf.gradients(tf.reduce_sum(tf.gather(v, [0, 2])), v)[0]
        assert isinstance(g, tf.IndexedSlices)
        with tf.Session() as s:
            s.run(v.initializer)
            r = s.run([sp, {"s": sp}])
            assert type(r[0]) is tf.SparseTensorValue and type(r[1]["s"]) is tf.SparseTensorValue
            np.testing.assert_array_equal(r[0].indices, [[0, 0], [1, 2]])
            assert r[0].indices.dtype == np.int64 and r[0].values.dtype == np.float32
            np.testing.assert_array_equal(r[0].dense_shape, [3, 4])
            iv = s.run(g)
            assert type(iv) is tf.IndexedSlicesValue
            assert iv._fields == ("values", "indices", "dense_shape")
            np.testing.assert_array_equal(iv.values, np.ones((2, 2)))
            np.testing.assert_array_equal(iv.indices, [0, 2])
            np.testing.assert_array_equal(iv.dense_shape, [3, 2])


def test_fetch_variable_and_fed_tensors():
    with tf.Graph().as_default():
        v = tf.Variable([1, 2], name="v")
        x = tf.placeholder(tf.float32, [2])
        y = x * 2
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run("v:0"), [1, 2])
            r = s.run([x, y], {x: [3, 4]})
            np.testing.assert_array_equal(r[0], [3.0, 4.0])
            np.testing.assert_array_equal(r[1], [6.0, 8.0])
            # a fed intermediate replaces what it would compute
            np.testing.assert_array_equal(s.run(y, {y: [7, 7], x: [0, 0]}), [7.0, 7.0])
            np.testing.assert_array_equal(s.run(v * 2, {v: [5, 5]}), [10, 10])


# ------------------------------------------------------------------------------------------
# feeds
# ------------------------------------------------------------------------------------------


def test_feed_sparse_placeholder_with_tuple_value_and_short_tuple():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, name="sp")
        d = tf.sparse_tensor_to_dense(sp)
        with tf.Session() as s:
            np.testing.assert_array_equal(
                s.run(d, {sp: ([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])}), [[1, 0], [0, 2]])
            np.testing.assert_array_equal(
                s.run(d, {sp: tf.SparseTensorValue([[0, 1]], [3.0], [2, 3])}),
                [[0, 3, 0], [0, 0, 0]])
            # TF zips the value with (indices, values, dense_shape): a 2-tuple leaves the shape
            # unfed, so the step fails on that placeholder
            with pytest.raises(tf.errors.InvalidArgumentError, match="sp/shape"):
                s.run(d, {sp: ([[0, 0]], [1.0])})
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                s.run(d, {sp: [[1.0, 0.0]]})


def test_feed_key_names_and_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        y = x + 1
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(y, {"x:0": [1.0]}), [2.0])
            with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor: The "
                                                "name 'zz:0' refers to a Tensor which does not"):
                s.run(y, {"zz:0": [1.0]})
            with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
                s.run(y, {"x": [1.0]})


def test_feed_wrong_dtype_values():
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [2], name="i")
        f = tf.placeholder(tf.float32, [2], name="f")
        u8 = tf.placeholder(tf.uint8, [2], name="u8")
        with tf.Session() as s:
            # floats into an int placeholder are truncated, as NumPy's cast (TF does the same)
            np.testing.assert_array_equal(s.run(i, {i: [1.5, 2.5]}), [1, 2])
            with pytest.raises(ValueError, match="could not convert string to float"):
                s.run(f, {f: ["a", "b"]})
            # a Python int out of range inside a list wraps around (observed in TF 2.21)
            np.testing.assert_array_equal(s.run(i, {i: [1, 2**40]}), [1, 0])
            np.testing.assert_array_equal(s.run(u8, {u8: [-1, 256]}), [255, 0])
            # ... but a lone Python int is checked
            with pytest.raises(TypeError, match=r"Type of feed value 1099511627776 with type "
                                                r"<class 'int'> is not compatible with Tensor "
                                                r"type <class 'numpy.int32'>"):
                s.run(tf.placeholder(tf.int32, []), {tf.get_default_graph().get_tensor_by_name(
                    "Placeholder:0"): 2**40})
            with pytest.raises(TypeError):
                s.run(i, {i: [None, 1]})


def test_feed_wrong_shape_message():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.placeholder(tf.float32, [None, 3], name="y")
        with tf.Session() as s:
            # TF 1.x's wording (TF 2.x drops the quotes)
            with pytest.raises(ValueError, match=r"Cannot feed value of shape \(2,\) for Tensor "
                                                 r"'x:0', which has shape '\(3,\)'"):
                s.run(x, {x: [1.0, 2.0]})
            with pytest.raises(ValueError, match=r"shape \(1, 2\) for Tensor 'y:0', which has "
                                                 r"shape '\(\?, 3\)'"):
                s.run(y, {y: [[1.0, 2.0]]})


def test_feed_tensor_value_and_unfeedable_and_unfetchable():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        a = tf.constant(1.0, name="a")
        b = tf.add(a, 1, name="b")
        g = tf.get_default_graph()
        g.prevent_feeding(a)
        g.prevent_fetching(b.op)
        with tf.Session() as s:
            with pytest.raises(TypeError, match="The value of a feed cannot be a tf.Tensor"):
                s.run(x, {x: tf.constant(2.0)})
            with pytest.raises(ValueError, match="may not be fed"):
                s.run(x + a, {a: 5.0, x: 1.0})
            # TF 1.x names the op, also for a fetched tensor
            for fetch in (b, b.op, "b:0"):
                with pytest.raises(ValueError, match="Operation 'b' has been marked as not "
                                                     "fetchable"):
                    s.run(fetch)


def test_placeholder_with_default():
    with tf.Graph().as_default():
        p = tf.placeholder_with_default([1.0, 2.0], [None], name="p")
        assert p.shape.as_list() == [None] and p.op.type == "PlaceholderWithDefault"
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(p * 2), [2.0, 4.0])
            np.testing.assert_array_equal(s.run(p * 2, {p: [5.0]}), [10.0])
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                s.run(p, {p: [[5.0]]})
        # the default must fit the shape (TF's shape function)
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are "
                                             "2 and 3"):
            tf.placeholder_with_default([1, 2], [3])


def test_unfed_placeholder_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        i = tf.placeholder(tf.int32, name="i")
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                s.run(x * 2)
            e = info.value
            # TF names the dtype as its runtime does: float, not float32
            assert ("You must feed a value for placeholder tensor 'x' with dtype float and "
                    "shape [?,3]") in e.message
            assert e.op.name == "x" and e.error_code == tf.errors.INVALID_ARGUMENT == 3
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="placeholder tensor 'i' with dtype int32"):
                s.run(i + 1)
            # the session is still usable
            np.testing.assert_array_equal(s.run(x * 2, {x: [[1, 2, 3]]}), [[2, 4, 6]])


# ------------------------------------------------------------------------------------------
# session life cycle
# ------------------------------------------------------------------------------------------


def test_closed_session_errors():
    with tf.Graph().as_default():
        a = tf.constant(1)
        s = tf.Session()
        f = s.make_callable(a)
        s.close()
        s.close()  # closing twice is fine
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
            s.run(a)
        with pytest.raises(tf.errors.CancelledError, match="Session has been closed."):
            f()  # TF 1.15: a callable without feed_list runs in the runtime, which refuses it
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
            s.partial_run_setup([a])
        # TF's runtime (not run()'s check) refuses a new callable: CancelledError
        with pytest.raises(tf.errors.CancelledError, match="Session has been closed."):
            s.make_callable(a)


def test_session_context_default_and_graph():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(5)
    assert tf.get_default_session() is None
    with tf.Session(graph=g) as s:
        assert tf.get_default_session() is s and tf.get_default_graph() is g
        assert c.eval() == 5
        with tf.Session(graph=g) as s2:
            assert tf.get_default_session() is s2
        assert tf.get_default_session() is s
    assert tf.get_default_session() is None and tf.get_default_graph() is not g
    with pytest.raises(ValueError, match=r"Cannot evaluate tensor using `eval\(\)`: No default "
                                         "session is registered"):
        c.eval()
    # TF 1.x's full wording
    with pytest.raises(ValueError, match=r"Cannot execute operation using `run\(\)`: No default "
                                         r"session is registered. Use `with sess.as_default\(\):` "
                                         r"or pass an explicit session to `run\(session=sess\)`"):
        c.op.run()


def test_exception_inside_session_block_closes_it():
    with tf.Graph().as_default():
        a = tf.constant(1)
        with pytest.raises(KeyError), tf.Session() as s:
            raise KeyError("boom")
        with pytest.raises(RuntimeError, match="closed Session"):
            s.run(a)
        assert tf.get_default_session() is None


def test_interactive_session_eval_and_run():
    with tf.Graph().as_default():
        a = tf.constant(3.0)
        v = tf.Variable(2.0)
        inc = tf.assign_add(v, 1.0)
        s = tf.InteractiveSession()
        try:
            assert tf.get_default_session() is s
            v.initializer.run()
            inc.op.run()
            assert v.eval() == 3.0 and (a * v).eval() == 9.0
            x = tf.placeholder(tf.float32)
            assert (x + 1).eval(feed_dict={x: 2.0}) == 3.0
            assert inc.eval() == 4.0
        finally:
            s.close()
        assert tf.get_default_session() is None


def test_graph_mismatch_errors():
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        a = tf.constant(1, name="a")
    with g2.as_default():
        b = tf.constant(2, name="b")
    with tf.Session(graph=g2) as s:
        for fetch in (a, [b, a]):
            with pytest.raises(ValueError, match="is not an element of this graph"):
                s.run(fetch)
        with g2.as_default(), pytest.raises(ValueError, match="must be from the same graph"):
            tf.add(a, b)
        with pytest.raises(ValueError, match="Cannot use the default session to evaluate tensor: "
                                             "the tensor's graph is different from the "
                                             "session's graph"):
            a.eval()
        with pytest.raises(ValueError, match="Cannot use the given session to evaluate tensor"):
            a.eval(session=s)


def test_make_callable_feeds_zip_and_options():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = tf.placeholder(tf.float32, [], name="y")
        z = x * y
        with tf.Session() as s:
            f = s.make_callable(z, feed_list=[x, y])
            np.testing.assert_array_equal(f([1, 2], 3), [3.0, 6.0])
            f2 = s.make_callable([z, {"a": x}], [x, y])
            r = f2([1], 2)
            np.testing.assert_array_equal(r[0], [2.0])
            np.testing.assert_array_equal(r[1]["a"], [1.0])
            assert s.make_callable(z.op, [x, y])([1], 1) is None
            # names work as feeds; TF zips the values with feed_list: a missing one leaves its
            # placeholder unfed, an extra one is ignored (observed in TF 2.21)
            f3 = s.make_callable(z, ["Placeholder:0", "y:0"])
            np.testing.assert_array_equal(f3([2.0], 2.0), [4.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder tensor 'y'"):
                f([1.0])
            np.testing.assert_array_equal(f([1.0], 2.0, 3.0), [2.0])
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                f([[1.0]], 1.0)
            # with a feed_list TF's callable is run() over the zipped feeds: run()'s keywords
            np.testing.assert_array_equal(f([1.0], 1.0, options=tf.RunOptions()), [1.0])
            with pytest.raises(TypeError, match="run\\(\\) got an unexpected keyword argument 'x'"):
                f([1.0], 1.0, x=1)
            with pytest.raises(TypeError, match="must be a list or tuple"):
                s.make_callable(z, feed_list=x)
            traced = s.make_callable(z, [x, y], accept_options=True)
            meta = tf.RunMetadata()
            np.testing.assert_array_equal(traced(
                [1.0], 2.0, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                run_metadata=meta), [2.0])
            assert len(meta.step_stats.dev_stats) >= 1
            assert any(n.node_name == z.op.name
                       for d in meta.step_stats.dev_stats for n in d.node_stats)


def test_partial_run_messages_and_end():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, shape=[], name="a")
        b = tf.placeholder(tf.float32, shape=[], name="b")
        c = tf.placeholder(tf.float32, shape=[], name="c")
        r1 = tf.add(a, b)
        r2 = tf.multiply(r1, c, name="r2")
        with tf.Session() as s:
            h = s.partial_run_setup([r1, r2], [a, b, c])
            assert s.partial_run(h, r1, feed_dict={a: 1, b: 2}) == 3.0
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="The feed a:0 has already been fed."):
                s.partial_run(h, r2, feed_dict={a: 1})
            assert s.partial_run(h, r2, feed_dict={c: 3}) == 9.0
            # every feed fed and every fetch fetched: TF forgets the handle
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Must run 'setup' before performing partial runs!"):
                s.partial_run(h, r1)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Must run 'setup'"):
                s.partial_run("bogus", r1)
            h2 = s.partial_run_setup([r1, r2], [a, b, c])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Fetch c:0 can't be computed from the feeds that have "
                                     "been fed so far."):
                s.partial_run(h2, r2, feed_dict={a: 1, b: 2})
            h3 = s.partial_run_setup([r1], [a, b])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="The fetch r2:0 was not specified in partial_run_setup."):
                s.partial_run(h3, r2, feed_dict={a: 1, b: 2})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="The feed c:0 was not specified in partial_run_setup."):
                s.partial_run(h3, r1, feed_dict={c: 1})
            assert s.partial_run(h3, r1, feed_dict={a: 1, b: 5}) == 6.0


def test_run_options_and_metadata_and_devices():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        b = tf.multiply(x, 2, name="b")
        with tf.Session() as s:
            rm = tf.RunMetadata()
            np.testing.assert_array_equal(
                s.run(b, {x: [1, 2]}, options=tf.RunOptions(
                    trace_level=tf.RunOptions.FULL_TRACE), run_metadata=rm), [2.0, 4.0])
            assert rm.HasField("step_stats")
            assert "b" in [n.node_name for d in rm.step_stats.dev_stats for n in d.node_stats]
            rm2 = tf.RunMetadata()
            s.run(b, {x: [1, 2]}, run_metadata=rm2)  # no options: nothing traced
            assert len(rm2.step_stats.dev_stats) == 0
            assert (tf.RunOptions.NO_TRACE, tf.RunOptions.SOFTWARE_TRACE,
                    tf.RunOptions.HARDWARE_TRACE, tf.RunOptions.FULL_TRACE) == (0, 1, 2, 3)
            ds = s.list_devices()
            assert ds[0].name == "/job:localhost/replica:0/task:0/device:CPU:0"
            assert ds[0].device_type == "CPU" and ds[0].memory_limit_bytes > 0
            assert [n.name for n in s.graph_def.node] == ["Placeholder", "b/y", "b"]
            assert s.graph is tf.get_default_graph() and s.sess_str == b""
        tf.Session.reset("")  # closes the local sessions (none left open here)


def test_session_constructor_errors():
    with pytest.raises(TypeError, match="graph must be a tf.Graph"):
        tf.Session(graph=3)
    # TF: NotFoundError "No session factory registered for the given session options"
    with pytest.raises(tf.errors.NotFoundError, match="No session factory registered"):
        tf.Session("bogus://x")


# ------------------------------------------------------------------------------------------
# errors of common mistakes
# ------------------------------------------------------------------------------------------


def test_uninitialized_variable_error_and_recovery():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(2.0, name="w")
        y = v + w
        with tf.Session() as s:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="Attempting to use uninitialized value") as info:
                s.run(y)
            e = info.value
            assert isinstance(e, tf.errors.OpError) and e.error_code == 9 and e.op is not None
            s.run(v.initializer)
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="Attempting to use uninitialized value w"):
                s.run(y)
            s.run(w.initializer)
            assert s.run(y) == 3.0
            assert list(s.run(tf.report_uninitialized_variables())) == []


def test_error_classes_codes_and_attributes():
    names = {"CancelledError": 1, "UnknownError": 2, "InvalidArgumentError": 3,
             "DeadlineExceededError": 4, "NotFoundError": 5, "AlreadyExistsError": 6,
             "PermissionDeniedError": 7, "ResourceExhaustedError": 8,
             "FailedPreconditionError": 9, "AbortedError": 10, "OutOfRangeError": 11,
             "UnimplementedError": 12, "InternalError": 13, "UnavailableError": 14,
             "DataLossError": 15, "UnauthenticatedError": 16}
    for name, code in names.items():
        cls = getattr(tf.errors, name)
        assert cls.__mro__[1] is tf.errors.OpError and issubclass(cls, Exception)
        assert tf.errors.exception_type_from_error_code(code) is cls
        assert tf.errors.error_code_from_exception_type(cls) == code
        e = cls(None, None, "bad thing")
        assert (str(e), e.message, e.op, e.node_def, e.error_code) == (
            "bad thing", "bad thing", None, None, code)
    assert (tf.errors.OK, tf.errors.INVALID_ARGUMENT, tf.errors.DATA_LOSS) == (0, 3, 15)
    e = tf.errors.OpError(None, None, "m", tf.errors.ABORTED)
    assert e.error_code == 10 and str(e) == "m"
    with tf.errors.raise_exception_on_not_ok_status():
        pass


def test_out_of_range_from_queue_and_iterator():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.float32)
        enq = q.enqueue_many([[1.0, 2.0]])
        deq = q.dequeue()
        it = tf.data.Dataset.range(3).make_one_shot_iterator()
        nx = it.get_next()
        it2 = tf.data.Dataset.from_tensor_slices([1, 2]).batch(5).make_initializable_iterator()
        n2 = it2.get_next()
        with tf.Session() as s:
            s.run(enq)
            s.run(q.close())
            assert [s.run(deq), s.run(deq)] == [1.0, 2.0]
            with pytest.raises(tf.errors.OutOfRangeError,
                               match="closed and has insufficient elements") as info:
                s.run(deq)
            assert info.value.error_code == tf.errors.OUT_OF_RANGE
            with pytest.raises(tf.errors.CancelledError, match="is closed"):
                s.run(q.enqueue(1.0))
            out = []
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    out.append(s.run(nx))
            assert out == [0, 1, 2]
            with pytest.raises(tf.errors.OutOfRangeError):  # stays exhausted
                s.run(nx)
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                s.run(n2)
            for _ in range(2):  # re-initializing starts again
                s.run(it2.initializer)
                np.testing.assert_array_equal(s.run(n2), [1, 2])
                with pytest.raises(tf.errors.OutOfRangeError):
                    s.run(n2)


def test_assert_failures_carry_the_data_and_leave_the_session_usable():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        z = tf.placeholder(tf.int32, [None])
        a = tf.Assert(tf.reduce_all(x > 0), [x, "must be positive"], name="pos")
        with tf.control_dependencies([a]):
            y = tf.identity(x)
        pos = tf.debugging.assert_positive(x, message="xpos")
        eq = tf.assert_equal(z, 3, message="eq3")
        num = tf.debugging.check_numerics(x, "numcheck")
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                s.run(y, {x: [1.0, -2.0]})
            m = info.value.message
            assert "assertion failed" in m and "-2" in m and "must be positive" in m
            np.testing.assert_array_equal(s.run(y, {x: [3.0]}), [3.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="xpos"):
                s.run(pos, {x: [1.0, -1.0]})
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"eq3(.|\n)*\[3 4\]"):
                s.run(eq, {z: [3, 4]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="numcheck"):
                s.run(num, {x: [np.nan]})
            assert s.run(eq, {z: [3, 3]}) is None
    # a static failure is a ValueError at build time (TF 1.x's odd ".  " prefix kept)
    with tf.Graph().as_default(), pytest.raises(
            ValueError, match="Tensor Const:0 must have rank 2.  Received rank 1"):
        tf.assert_rank(tf.constant([1.0]), 2)


def test_build_time_shape_and_dtype_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4 for "
                                             "'MatMul'"):
            tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.add(tf.ones([3]), tf.ones([4]))
        with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 6 elements to shape "
                                             r"\[4,2\] \(8 elements\)"):
            tf.reshape(tf.ones([6]), [4, 2])
        with pytest.raises(TypeError, match="Input 'y' of 'Add(V2)?' Op has type float32 that "
                                            "does not match type int32 of argument 'x'"):
            tf.add(tf.constant(1), tf.constant(1.0))
        # a Python float next to an int tensor: converted with the tensor's dtype only as a
        # hint (TF 1.15's math_ops_test), so the op itself refuses the float32 operand
        with pytest.raises(TypeError, match="Input 'y' of 'Add(V2)?' Op has type float32 that "
                                            "does not match type int32 of argument 'x'"):
            tf.constant(1) + 1.5
        with pytest.raises(TypeError, match="Failed to convert object of type <class 'list'> to "
                                            "Tensor"):
            tf.convert_to_tensor([1, "a"])
        with pytest.raises(ValueError, match="Argument must be a dense tensor"):
            tf.convert_to_tensor([[1, 2], [3]])
        with pytest.raises(ValueError, match="None values not supported."):
            tf.convert_to_tensor(None)


def test_int_constants_out_of_range_wrap_as_tf():
    with tf.Graph().as_default():
        # TF (and NumPy 1.x) wrap a Python int that does not fit the dtype: observed in TF 2.21
        consts = [tf.constant(0xFFFFFFFF, tf.int32), tf.constant(-1, tf.uint8),
                  tf.constant(300, tf.int8), tf.constant([1, 2**33], tf.int32),
                  tf.constant(1) + 2**40, tf.convert_to_tensor(2**40, tf.int32)]
        with tf.Session() as s:
            got = s.run(consts)
        want = [np.int64(x).astype(d) for x, d in [(0xFFFFFFFF, np.int32), (-1, np.uint8),
                                                    (300, np.int8)]]
        assert [int(g) for g in got[:3]] == [int(w) for w in want] == [-1, 255, 44]
        np.testing.assert_array_equal(got[3], [1, 0])
        assert got[4] == 1 and got[5] == 0
        with pytest.raises(OverflowError):  # past int64 NumPy itself refuses, as in TF
            tf.constant(2**64, tf.int64)


def test_get_variable_reuse_errors():
    with tf.Graph().as_default():
        with tf.variable_scope("s"):
            v = tf.get_variable("v", [1])
        with pytest.raises(ValueError, match="Variable s/v already exists, disallowed. Did you "
                                             "mean to set reuse=True"), tf.variable_scope("s"):
            tf.get_variable("v", [1])
        with pytest.raises(ValueError, match="Variable s/nope does not exist, or was not created "
                                             r"with tf.get_variable\(\)"), \
                tf.variable_scope("s", reuse=True):
            tf.get_variable("nope", [1])
        with pytest.raises(ValueError, match="Trying to share variable s/v, but specified "
                                             "shape"), tf.variable_scope("s", reuse=True):
            tf.get_variable("v", [2])
        with tf.variable_scope("s", reuse=True):
            assert tf.get_variable("v", [1]) is v
        with tf.variable_scope("s", reuse=tf.AUTO_REUSE):
            assert tf.get_variable("v") is v
            assert tf.get_variable("n2", [3]).name == "s/n2:0"
        with pytest.raises(ValueError, match="The initializer passed is not valid"):
            tf.get_variable("noshape")


def test_finalized_graph_and_missing_gradients():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1)
    g.finalize()
    assert g.finalized
    with g.as_default():
        with pytest.raises(RuntimeError, match="Graph is finalized and cannot be modified."):
            tf.constant(2)
        with pytest.raises(RuntimeError, match="Graph is finalized"):
            a + 1
    with tf.Session(graph=g) as s:
        assert s.run(a) == 1
    g._unsafe_unfinalize()
    with g.as_default():
        assert tf.constant(3).name == "Const_1:0"  # the refused ops took no name
    with tf.Graph().as_default():
        x = tf.Variable([1.0, 2.0])
        # not differentiable in TF: None
        assert tf.gradients(tf.cast(tf.argmax(x), tf.float32), x) == [None]
        # no gradient registered in TF: LookupError
        with pytest.raises(LookupError, match="No gradient defined for operation 'Unique' "
                                              r"\(op type: Unique\)"):
            tf.gradients(tf.reduce_sum(tf.unique(x)[0]), x)
        # PyFunc is declared not differentiable in TF: None, no error
        assert tf.gradients(tf.py_func(lambda t: t * 2, [x], tf.float32), x) == [None]


def test_failed_steps_leave_variables_and_session_usable():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        x = tf.placeholder(tf.float32, [2])
        upd = tf.assign_add(v, x)
        with tf.control_dependencies([tf.Assert(tf.reduce_all(x < 100), [x])]):
            safe_upd = tf.assign_add(v, x)
        idx = tf.placeholder(tf.int32, [None])
        gathered = tf.gather(tf.constant([1, 2, 3]), idx, name="g")
        with tf.Session() as s:
            s.run(v.initializer)
            np.testing.assert_array_equal(s.run(upd, {x: [1, 1]}), [2.0, 3.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[1000 1\]"):
                s.run(safe_upd, {x: [1000, 1]})
            np.testing.assert_array_equal(s.run(v), [2.0, 3.0])  # the update did not run
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                s.run(upd, {x: [1, 1, 1]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="must feed"):
                s.run(upd)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"indices\[0\] = 5 is not in \[0, 3\)") as info:
                s.run(gathered, {idx: [5]})
            assert info.value.op.name == "g"
            np.testing.assert_array_equal(s.run(upd, {x: [0.5, 0.5]}), [2.5, 3.5])
            np.testing.assert_array_equal(s.run(gathered, {idx: [2, 0]}), [3, 1])


# ------------------------------------------------------------------------------------------
# more fetch and feed edges
# ------------------------------------------------------------------------------------------


class _Field:
    def __init__(self, name):
        self.name = name


class _AttrsLike:
    """What ``@attr.s`` leaves on a class (attrs is not installed here): TF's session fetches
    each field of such an object and builds a new one from the values, positionally."""

    __attrs_attrs__ = (_Field("x"), _Field("y"))

    def __init__(self, x, y):
        self.x = x
        self.y = y


def test_fetch_attrs_class_and_rejected_containers():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        b = tf.constant([1, 2])
        with tf.Session() as s:
            r = s.run(_AttrsLike(a, [b, a]))
            assert type(r) is _AttrsLike and r.x == 1.0
            np.testing.assert_array_equal(r.y[0], [1, 2])
            assert r.y[1] == 1.0
            for bad in ({a}, (x for x in [a]), np.array([1, 2]), lambda: a):
                with pytest.raises(TypeError, match="has invalid type"):
                    s.run(bad)


def test_string_feeds():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.string, [None])
        q = tf.placeholder(tf.string, [])
        with tf.Session() as s:
            r = s.run(tf.identity(p), {p: [b"a", "bcd"]})
            assert r.dtype == object and list(r) == [b"a", b"bcd"]
            assert s.run(tf.identity(q), {q: "h\u00e9"}) == "h\u00e9".encode()
            assert s.run(tf.identity(q), {q: b"\xff\x00"}) == b"\xff\x00"
            assert s.run(tf.strings.join([q, q]), {q: np.str_("ab")}) == b"abab"
            # TF refuses numbers for a string (bytes(5) would be five zero bytes)
            with pytest.raises(TypeError, match="Type of feed value 5 with type <class 'int'> "
                                                "is not compatible with Tensor type"):
                s.run(q, {q: 5})
            # (TF 1.15's runtime words, measured: a number among the strings a step reads)
            with pytest.raises(tf.errors.InternalError, match="^Unsupported object type int$"):
                s.run(tf.identity(p), {p: [1, 2]})


def test_fetched_values_are_copies_and_scalar_kinds():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        with tf.Session() as s:
            s.run(v.initializer)
            r = s.run(v)
            r[0] = 100.0
            np.testing.assert_array_equal(s.run(v), [1.0, 2.0])
            r1, r2 = s.run([v, v])
            assert r1 is r2  # a duplicate fetch is one value, in TF too (observed)
            r3 = s.run(v)
            s.run(tf.assign(v, [7.0, 7.0]))
            np.testing.assert_array_equal(r3, [1.0, 2.0])
            kinds = s.run([tf.constant(1), tf.constant(1.5), tf.constant(True),
                           tf.constant("hi"), tf.constant(1, tf.int64),
                           tf.constant(1.0, tf.float16), tf.constant([b"a"])])
            assert [type(k) for k in kinds[:6]] == [np.int32, np.float32, np.bool_, bytes,
                                                    np.int64, np.float16]
            assert kinds[6].dtype == object and kinds[6].tolist() == [b"a"]


def test_step_timeouts_are_deadline_exceeded():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.float32)
        d = q.dequeue()
        with tf.Session() as s:
            with pytest.raises(tf.errors.DeadlineExceededError) as info:
                s.run(d, options=tf.RunOptions(timeout_in_ms=200))
            assert info.value.error_code == tf.errors.DEADLINE_EXCEEDED
            s.run(q.enqueue(5.0))
            assert s.run(d) == 5.0  # the session survives the timed-out step
        with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)) as s, \
                pytest.raises(tf.errors.DeadlineExceededError):
            s.run(d)


def test_py_func_exceptions_map_to_tf_errors():
    def raiser(exc):
        def f(x):
            raise exc
        return f

    with tf.Graph().as_default():
        x = tf.constant([1.0])
        # the classes TF gives for each Python exception (observed in TF 2.21)
        cases = [(ValueError("bad"), tf.errors.InvalidArgumentError),
                 (TypeError("bad"), tf.errors.InvalidArgumentError),
                 (StopIteration(), tf.errors.OutOfRangeError),
                 (KeyError("k"), tf.errors.UnknownError),
                 (NotImplementedError("nie"), tf.errors.UnimplementedError)]
        fetches = [tf.py_func(raiser(e), [x], tf.float32) for e, _ in cases]
        wrong = tf.py_func(lambda a: np.array([1.5], np.float64), [x], tf.float32)
        with tf.Session() as s:
            for f, (_, cls) in zip(fetches, cases):
                with pytest.raises(cls):
                    s.run(f)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="0-th value returned by .* is double, but expects float"):
                s.run(wrong)
            np.testing.assert_array_equal(s.run(tf.py_func(lambda a: a * 2, [x], tf.float32)),
                                          [2.0])


def test_runtime_errors_of_common_kernels():
    with tf.Graph().as_default():
        a = tf.constant([1, 2])
        b = tf.placeholder(tf.int32, [2])
        labels = tf.placeholder(tf.int32, [1])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=tf.constant([[1.0, 2.0, 3.0]]))
        strs = tf.placeholder(tf.string, [None])
        x = tf.placeholder(tf.float32, [None])
        r = tf.reshape(x, [-1, 2])
        assert r.shape.as_list() == [None, 2]
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
                s.run(a // b, {b: [1, 0]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Received a label value of 5 which is outside the valid "
                                     r"range of \[0, 3\)"):
                s.run(loss, {labels: [5]})
            want = np.log(np.exp([1.0, 2.0, 3.0]).sum()) - 3.0
            np.testing.assert_allclose(s.run(loss, {labels: [2]}), [want], rtol=1e-6)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="StringToNumberOp could not correctly convert string: abc"):
                s.run(tf.string_to_number(strs), {strs: ["1.5", "abc"]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Input to reshape is a tensor with 3 values, but the "
                                     "requested shape requires a multiple of 2"):
                s.run(r, {x: [1, 2, 3]})
            np.testing.assert_array_equal(s.run(r, {x: [1, 2, 3, 4]}), [[1, 2], [3, 4]])


def test_assign_shapes_and_variable_load():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        p = tf.placeholder(tf.float32)
        with pytest.raises(ValueError, match=r"\[2\] and \[3\]"):
            tf.assign(v, [1.0, 2.0, 3.0])
        a = tf.assign(v, p)
        a2 = tf.assign(v, p, validate_shape=False)
        with tf.Session() as s:
            s.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Assign requires shapes of both tensors to match. lhs "
                                     r"shape= \[2\] rhs shape= \[3\]"):
                s.run(a, {p: [1.0, 2.0, 3.0]})
            np.testing.assert_array_equal(s.run(v), [1.0, 2.0])
            np.testing.assert_array_equal(s.run(a2, {p: [1.0, 2.0, 3.0]}), [1.0, 2.0, 3.0])
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        with tf.Session() as s:
            s.run(v.initializer)
            v.load([3.0, 4.0], s)
            np.testing.assert_array_equal(v.eval(session=s), [3.0, 4.0])
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                v.load([1.0], s)
            with s.as_default():
                v.load([5.0, 6.0])
                np.testing.assert_array_equal(v.eval(), [5.0, 6.0])


def test_saver_and_optimizer_mistakes():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="No variables to save"):
            tf.train.Saver()
        v = tf.Variable(1.0, name="v")
        sv = tf.train.Saver()
        opt = tf.train.GradientDescentOptimizer(0.1)
        c = tf.constant(2.0)
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            opt.minimize(c * 2)
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            opt.apply_gradients([(None, v)])
        with tf.Session() as s:
            # TF 1.15: a NotFoundError naming the missing folder
            with pytest.raises(tf.errors.NotFoundError,
                               match="^/nonexistent_s5; No such file or directory"):
                sv.restore(s, "/nonexistent_s5/model.ckpt")
            s.run(v.initializer)
            assert s.run(v) == 1.0


def test_partial_run_setup_ops_run_on_their_own():
    with tf.Graph().as_default():
        v = tf.Variable(0)
        a = tf.placeholder(tf.int32, [], name="a")
        b = tf.placeholder(tf.int32, [], name="b")
        up = tf.assign_add(v, a)
        r = b * 2
        with tf.Session() as s:
            s.run(v.initializer)
            h = s.partial_run_setup([r, up.op], [a, b])
            # TF runs a setup op once what it needs is fed; fetching it is refused
            assert s.partial_run(h, [], {a: 5}) == []
            assert s.run(v) == 5
            with pytest.raises(RuntimeError, match=r"partial_run\(\) requires empty target_list"):
                s.partial_run(h, up.op)
            assert s.partial_run(h, r, {b: 3}) == 6
            assert s.run(v) == 5  # ran once
            with pytest.raises(tf.errors.InvalidArgumentError, match="Must run 'setup'"):
                s.partial_run(h, r)


def test_feed_dict_must_be_a_mapping():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        with tf.Session() as s:
            assert s.run(x, collections.OrderedDict([(x, 1.0)])) == 1.0
            with pytest.raises(TypeError, match="^input must be a dictionary$"):
                s.run(x, [(x, 1.0)])
            with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
                s.run(x, {x.op: 1.0})
            with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
                s.run(x, {1: 1.0})


def test_initial_values_reading_other_variables_are_guarded():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(v * 2 + 1, name="w")
        names = {op.name for op in tf.get_default_graph().get_operations()}
        # TF 1.x rebuilds the ops between as "<op>_<variable>" reading v.initialized_value()
        # under w's scope; the initial value itself is kept
        assert {"mul_w", "add_w", "w/IsVariableInitialized"} <= names
        assert w.initial_value.name == "add:0" and w.initializer.inputs[1].name == "add_w:0"
        with tf.Session() as s:
            s.run(w.initializer)  # before v's: v's initial value is used
            assert s.run(w) == 3.0
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
                s.run(v)
            s.run(v.initializer)
            s.run(tf.assign(v, 5.0))
            s.run(w.initializer)  # now v's value
            assert s.run(w) == 11.0
    with tf.Graph().as_default():
        v = tf.get_variable("v", [2, 3])
        m = tf.Variable(tf.zeros_like(v), name="m")
        u = tf.get_variable("u", initializer=v * 0 + 2.0)
        with tf.Session() as s:
            # one initializer op for all: any order works
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run(m), np.zeros((2, 3)))
            np.testing.assert_array_equal(s.run(u), np.full((2, 3), 2.0))


def test_fetch_attrs_object_mutated_between_runs():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        b = tf.constant(2.0)
        obj = _AttrsLike(a, b)
        with tf.Session() as s:
            r = s.run(obj)
            assert (r.x, r.y) == (1.0, 2.0)
            obj.x = b  # the same object, other fields: fetched anew
            r = s.run(obj)
            assert (r.x, r.y) == (2.0, 2.0)


def test_traced_step_of_folded_constants_still_has_stats():
    with tf.Graph().as_default():
        b = tf.constant([1.0, 2.0]) * 2
        with tf.Session() as s:
            rm = tf.RunMetadata()
            np.testing.assert_array_equal(s.run(b, options=tf.RunOptions(
                trace_level=tf.RunOptions.FULL_TRACE), run_metadata=rm), [2.0, 4.0])
            # TF's trace always holds its _SOURCE node
            names = [n.node_name for d in rm.step_stats.dev_stats for n in d.node_stats]
            assert names and names[0] == "_SOURCE"


def test_concurrent_runs_and_close_cancelling_a_blocked_step():
    import threading
    import time

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = x * 2 + 1
        v = tf.Variable(0)
        inc = tf.assign_add(v, 1, use_locking=True)
        q = tf.FIFOQueue(1, tf.float32)
        d = q.dequeue()
        s = tf.Session()
        s.run(v.initializer)
        errs = []

        def work(k):
            try:
                for i in range(25):
                    assert s.run(y, {x: [k, i]}).tolist() == [2 * k + 1, 2 * i + 1]
                    s.run(inc)
            except Exception as e:  # noqa: BLE001 - reported below
                errs.append(repr(e))

        ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert errs == [] and s.run(v) == 100
        got = []
        started = threading.Event()

        def blocked():
            started.set()
            try:
                s.run(d)
            except tf.errors.OpError as e:
                got.append(type(e))

        t = threading.Thread(target=blocked)
        t.start()
        started.wait()
        time.sleep(1.0)  # let the step reach the dequeue (no timing is asserted)
        s.close()  # TF cancels the step blocked in the dequeue
        t.join(30)
        assert got == [tf.errors.CancelledError]


def test_fetching_a_fed_scalar_gives_the_fed_array():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        p = tf.placeholder_with_default(3, [])
        with tf.Session() as s:
            # as TF: the fed value comes back as a 0-d ndarray, a computed one as a NumPy scalar
            r = s.run(x, {x: 3})
            assert type(r) is np.ndarray and r.shape == () and r.dtype == np.float32 and r == 3
            r, y = s.run([x, x * 2], {x: 1.5})
            assert type(r) is np.ndarray and type(y) is np.float32 and y == 3.0
            assert type(s.run(p)) is np.int32
            assert type(s.run(p, {p: 4})) is np.ndarray
            arr = np.array([1.0, 2.0], np.float32)
            v = tf.placeholder(tf.float32, [2])
            assert s.run(v, {v: arr}) is arr  # the fed array itself, as TF
            r, y = s.make_callable([x, x * 2], [x])(3.0)
            assert type(r) is np.ndarray and r == 3.0 and type(y) is np.float32


def test_index_errors_at_run_time():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="slice index 5 of dimension 0 out of bounds."):
                s.run(x[5], {x: [1, 2]})
            np.testing.assert_array_equal(s.run(x[1:10], {x: [1, 2]}), [2.0])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"indices\[0\] = -1 is not in \[0, 2\)"):
                s.run(tf.gather([1, 2], [-1]))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"indices\[0\] = 7 is not in \[0, 3\)"):
                s.run(tf.nn.embedding_lookup(tf.ones([3, 2]), [7]))
            # one_hot leaves out-of-range indices all zero (no error)
            np.testing.assert_array_equal(s.run(tf.one_hot([-1, 5, 1], 3)),
                                          [[0, 0, 0], [0, 0, 0], [0, 1, 0]])


def test_loop_and_branch_bodies_are_not_fetchable_or_feedable():
    with tf.Graph().as_default():
        captured = []

        def body(i):
            j = i + 1
            captured.append(j)
            return j

        r = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
        p = tf.placeholder(tf.bool, [])
        branch = []

        def take():
            v = tf.constant(1) + 1
            branch.append(v)
            return v

        c = tf.cond(p, take, lambda: tf.constant(0))
        with tf.Session() as s:
            assert s.run(r) == 3 and s.run(c, {p: True}) == 2
            for t in (captured[0], captured[0].op, branch[0]):
                with pytest.raises(ValueError, match="has been marked as not fetchable"):
                    s.run(t, {p: True})
            with pytest.raises(ValueError, match="may not be fed"):
                s.run(r, {captured[0]: 100})


def test_while_loop_body_changing_shape_and_dtype_is_the_shape_error():
    with tf.Graph().as_default():
        # TF checks the shape invariant first: ValueError, not the dtype's TypeError
        with pytest.raises(ValueError, match="enters the loop with shape \\(\\), but has shape "
                                             "\\(2,\\) after one iteration"):
            tf.while_loop(lambda i: i < 10, lambda i: tf.ones([2]) * tf.cast(i, tf.float32),
                          [tf.constant(0)])
        with pytest.raises(ValueError, match="don't have the same nested structure"):
            tf.while_loop(lambda i, j: i < 10, lambda i, j: i + 1,
                          [tf.constant(0), tf.constant(1)])


def test_restore_into_a_changed_graph(tmp_path):
    prefix = str(tmp_path / "m")
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        sv = tf.train.Saver()
        with tf.Session() as s:
            s.run(v.initializer)
            path = sv.save(s, prefix)
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0, 3.0], name="v")
        with tf.Session() as s, pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"Assign requires shapes of both tensors to match. lhs shape= \[3\] rhs "
                      r"shape= \[2\]"):
            tf.train.Saver().restore(s, path)
    with tf.Graph().as_default():
        w = tf.Variable([5.0, 6.0], name="w")
        with tf.Session() as s:
            with pytest.raises(tf.errors.NotFoundError, match="Key w not found in checkpoint"):
                tf.train.Saver().restore(s, path)
            s.run(w.initializer)  # the session goes on
            np.testing.assert_array_equal(s.run(w), [5.0, 6.0])
    with tf.Graph().as_default():
        tf.Variable([0, 0], name="v")
        with tf.Session() as s, pytest.raises(
                tf.errors.InvalidArgumentError,
                match="expected dtype int32 does not equal original dtype float"):
            tf.train.Saver().restore(s, path)


def test_feeding_one_tensor_under_two_keys_takes_the_later_value():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        a, b = tf.split(tf.constant([1.0, 2.0]), 2)
        with tf.Session() as s:
            assert s.run(x + 0, {x: 1.0, "x:0": 2.0}) == 2.0  # observed in TF 2.21
            assert s.run(x + 0, {"x:0": 2.0, x: 3.0}) == 3.0
            # any output of a multi-output op can be fed, by object or by name
            np.testing.assert_array_equal(s.run(a + b, {a: [10.0]}), [12.0])
            np.testing.assert_array_equal(s.run(a + b, {"split:1": [5.0]}), [6.0])
