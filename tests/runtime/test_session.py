"""Session: fetch structures, feeds, partial execution, errors, caching, graph passes, threads."""

import collections
import threading

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import op_registry, ops


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


@pytest.fixture
def counter_op():
    """A stateful test op counting its executions per session (removed after the test)."""

    def factory(ctx):
        state = ctx.node_state("count", lambda: [0])

        def run(x):
            state[0] += 1
            return np.asarray(state[0], dtype=np.int32) + x

        return run

    op_registry.declare("TestCounter", inputs=["x: int32"], outputs=["y: int32"],
                        shape=lambda op: [[]], kernel_factory=factory, stateful=True,
                        differentiable=False)

    def make(x=0, name=None):
        return ops.apply_op("TestCounter", [x], name=name)._outputs[0]

    yield make
    del op_registry._REGISTRY["TestCounter"]
    op_registry._GRADIENTS.pop("TestCounter", None)


def test_fetch_structures():
    a = tf.constant(1.0)
    b = tf.constant([2, 3])
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as s:
        assert s.run(a) == 1.0 and isinstance(s.run(a), np.float32)
        out = s.run({"a": a, "nested": [b, (a, Pair(a, b))], "op": a.op})
        assert out["a"] == 1.0 and out["op"] is None
        assert isinstance(out["nested"][1], tuple) and isinstance(out["nested"][1][1], Pair)
        np.testing.assert_array_equal(out["nested"][1][1].y, [2, 3])
        assert s.run("Const:0") == 1.0 and s.run("Const") is None
        assert s.run([]) == [] and s.run([a, a]) == [1.0, 1.0]
        od = s.run(collections.OrderedDict([("z", a), ("y", b)]))
        assert isinstance(od, collections.OrderedDict) and list(od) == ["z", "y"]


def test_feeds_by_tensor_and_name_and_intermediate():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.identity(x, name="y")
    z = y + 1.0
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(z, {x: [1.0, 2.0]}), [2.0, 3.0])
        np.testing.assert_allclose(s.run(z, {"x:0": np.array([5.0])}), [6.0])
        # feeding an intermediate tensor cuts the graph above it: x need not be fed
        np.testing.assert_allclose(s.run(z, {y: [10.0]}), [11.0])
        c = tf.constant(3.0)
        assert s.run(c + 1.0, {c: 7.0}) == 8.0  # any feedable tensor, not only placeholders


def test_partial_execution_runs_only_what_is_needed(counter_op):
    unused = tf.placeholder(tf.float32, name="unused")
    cnt = counter_op(0)
    other = tf.constant(5) + 1
    with tf.Session() as s:
        assert s.run(other) == 6  # the unfed placeholder and the counter are not needed
        assert s.run(cnt) == 1
        assert s.run(other) == 6
        assert s.run(cnt) == 2
    del unused


def test_stateful_ops_not_merged_or_folded(counter_op):
    a = counter_op(0)
    b = counter_op(0)
    with tf.Session() as s:
        assert sorted(s.run([a, b])) == [1, 1]  # two ops, each ran once
        assert s.run(a) == 2


def test_feed_errors_and_session_stays_usable():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = x + 1.0
    with tf.Session() as s:
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor 'x:0'"):
            s.run(y, {x: [1, 2, 3]})
        with pytest.raises(ValueError, match="could not convert string to float: 'a'"):
            s.run(y, {x: ["a", "b"]})  # (NumPy's words, as TF 1.15's)
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="must feed a value for placeholder tensor 'x'") as info:
            s.run(y)
        assert info.value.op is x.op and "test_session.py" in str(info.value)
        with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
            s.run(y, {x: y})
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key"):
            s.run(y, {3: 1})
        np.testing.assert_allclose(s.run(y, {x: [1, 2]}), [2, 3])
    i = tf.placeholder(tf.int32, [])
    with tf.Session() as s, pytest.raises(TypeError, match="not compatible"):
        s.run(i, {i: 2**40})


def test_fetch_errors():
    a = tf.constant(1.0)
    g2 = tf.Graph()
    with g2.as_default():
        b = tf.constant(2.0)
    with tf.Session() as s:
        with pytest.raises(ValueError, match="not an element of this graph"):
            s.run(b)
        with pytest.raises(TypeError, match="invalid type"):
            s.run(None)
        with pytest.raises(TypeError):
            s.run(3)
        with pytest.raises(ValueError, match="does not exist"):
            s.run("missing:0")
        assert s.run(a) == 1.0


def test_closed_session():
    s = tf.Session()
    c = tf.constant(1.0)
    assert s.run(c) == 1.0
    s.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        s.run(c)
    s.close()  # idempotent


def test_kernel_error_names_op_and_line():
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.placeholder(tf.float32, [None], name="y")
    z = tf.add(x, y, name="bad_add")
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(z, {x: [1, 2], y: [1, 2, 3]})
        msg = str(info.value)
        assert "[[node bad_add (defined at " in msg and "test_session.py:" in msg
        assert info.value.op is z.op and info.value.error_code == tf.errors.INVALID_ARGUMENT
        np.testing.assert_allclose(s.run(z, {x: [1, 2], y: [3, 4]}), [4, 6])


def test_plans_are_cached_and_graph_growth_is_fine():
    x = tf.placeholder(tf.float32, [])
    y = x + 1.0
    with tf.Session() as s:
        assert s.run(y, {x: 1.0}) == 2.0
        n = len(s._plans)
        assert s.run(y, {x: 2.0}) == 3.0
        assert len(s._plans) == n
        z = y + 2.0  # the graph grows after the session started
        assert s.run(z, {x: 1.0}) == 4.0


def test_constant_folding_and_cse():
    a = tf.constant(2.0)
    b = a + 3.0
    x = tf.placeholder(tf.float32, [])
    p = x + b
    q = x + b  # same computation as p
    with tf.Session() as s:
        assert s.run([p, q], {x: 1.0}) == [6.0, 6.0]
        plan = [v for k, v in s._plans.items() if hasattr(v, "ops")][-1]
        assert [op.type for op in plan.ops] == ["AddV2"]  # b folded, q merged into p
    cfg = tf.ConfigProto() if hasattr(tf, "ConfigProto") else None
    if cfg is not None:
        cfg.graph_options.optimizer_options.opt_level = -1
        with tf.Session(config=cfg) as s:
            assert s.run([p, q], {x: 1.0}) == [6.0, 6.0]


def test_fetched_constants_are_private_copies():
    c = tf.constant([1.0, 2.0])
    with tf.Session() as s:
        v = s.run(c)
        v[0] = 100.0
        np.testing.assert_array_equal(s.run(c), [1.0, 2.0])


def test_concurrent_runs():
    x = tf.placeholder(tf.float32, [None])
    y = x + x
    errors = []
    with tf.Session() as s:
        def worker(k):
            try:
                for i in range(200):
                    v = np.full(3, float(k * 1000 + i), np.float32)
                    np.testing.assert_array_equal(s.run(y, {x: v}), v + v)
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        ts = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert not errors


def test_partial_run(counter_op):
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.placeholder(tf.float32, [], name="b")
    c = tf.placeholder(tf.float32, [], name="c")
    r1 = a + b
    r2 = r1 + c
    with tf.Session() as s:
        h = s.partial_run_setup([r1, r2], [a, b, c])
        assert s.partial_run(h, r1, feed_dict={a: 1.0, b: 2.0}) == 3.0
        assert s.partial_run(h, r2, feed_dict={c: 3.0}) == 6.0
        h2 = s.partial_run_setup([r2], [a, b, c])
        with pytest.raises(tf.errors.InvalidArgumentError, match="can.t be computed from the feeds"):
            s.partial_run(h2, r2, feed_dict={a: 1.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match="not specified"):
            s.partial_run(h2, r1, feed_dict={b: 1.0})


def test_make_callable():
    x = tf.placeholder(tf.float32, [None])
    y = x + 1.0
    with tf.Session() as s:
        f = s.make_callable([y], feed_list=[x])
        np.testing.assert_allclose(f([1.0, 2.0])[0], [2.0, 3.0])
        g = s.make_callable(y.op)
        assert g is not None


def test_session_context_and_interactive():
    c = tf.constant(4.0)
    with tf.Session() as s:
        assert tf.get_default_session() is s
        assert c.eval() == 4.0
    assert tf.get_default_session() is None
    sess = tf.InteractiveSession()
    try:
        assert c.eval() == 4.0
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_list_devices_and_device_count():
    with tf.Session() as s:
        devs = s.list_devices()
        # (and the XLA_CPU device TF 1.15's CPU build lists beside the CPU)
        assert [d.name for d in devs] == ["/job:localhost/replica:0/task:0/device:CPU:0",
                                          "/job:localhost/replica:0/task:0/device:XLA_CPU:0"]
        assert devs[0].device_type == "CPU"


def test_impossible_device_request():
    with tf.device("/gpu:0"):
        c = tf.constant(1.0) + 1.0
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match="Cannot assign a device"):
        s.run(c)
    if hasattr(tf, "ConfigProto"):
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as s:
            assert s.run(c) == 2.0


def test_intermediates_are_released_after_last_use():
    import tracemalloc

    n = 1 << 20  # 8 MiB of float64 per value
    x = tf.placeholder(tf.float64, [n])
    y = x
    for _ in range(12):
        y = y + x
    xv = np.ones(n)
    with tf.Session() as s:
        s.run(y, {x: xv})  # build the plan first
        tracemalloc.start()
        out = s.run(y, {x: xv})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert out[0] == 13.0
    # live set: the fed value plus at most two intermediates (not all twelve)
    assert peak < 3.5 * xv.nbytes, peak / xv.nbytes


def test_elementwise_results_reuse_dying_buffers():
    import tracemalloc

    n = 1 << 20
    x = tf.placeholder(tf.float64, [n])
    y = x * 2.0
    for _ in range(10):
        y = tf.exp(y * 0.0) + y  # each intermediate dies at its next op
    xv = np.ones(n)
    with tf.Session() as s:
        s.run(y, {x: xv})
        tracemalloc.start()
        out = s.run(y, {x: xv})
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    np.testing.assert_allclose(out[:3], 12.0)
    np.testing.assert_array_equal(xv, 1.0)  # the fed array is never written
    # y and one temporary are alive at once; without reuse a third buffer would be
    assert peak < 2.5 * xv.nbytes, peak / xv.nbytes


def test_buffer_reuse_never_clobbers_a_live_view():
    x = tf.placeholder(tf.float32, [2, 3])
    y = x * 2.0
    r = tf.reshape(y, [6])  # a view of y's buffer, still needed after y's last use
    t = tf.transpose(y)
    z = y + 1.0
    with tf.Session() as s:
        rv, tv, zv = s.run([r, t, z], {x: np.ones((2, 3), np.float32)})
    np.testing.assert_array_equal(rv, 2.0)
    np.testing.assert_array_equal(tv, 2.0)
    np.testing.assert_array_equal(zv, 3.0)


def test_random_ops_are_never_folded_or_merged():
    a = tf.random_uniform([4])
    b = tf.random_uniform([4])  # same computation as a, but a different draw
    c = a * 1.0  # constant-foldable shape of computation over a random input
    with tf.Session() as s:
        av, bv, cv = s.run([a, b, c])
        av2 = s.run(a)
    assert not np.array_equal(av, bv)
    np.testing.assert_array_equal(av, cv)
    assert not np.array_equal(av, av2)


def test_a_broadcast_between_incompatible_shapes_says_so_in_tf_words():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32)
        b = tf.placeholder(tf.float32)
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                              match=r"Incompatible shapes: \[2,3\] vs\. \[4\]"):
            s.run(a + b, {a: np.ones((2, 3)), b: np.ones(4)})


def test_sess_str_is_bytes_and_an_empty_graph_cannot_run():
    with tf.Graph().as_default() as other:
        t = tf.constant(1.0)
    with tf.Graph().as_default():
        s = tf.Session()
        assert s.sess_str == b""
        with pytest.raises(RuntimeError, match="The Session graph is empty"):
            s.run(t)
        s.close()
    assert other is t.graph
