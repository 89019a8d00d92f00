"""Control flow: tf.cond, tf.case, tf.while_loop, map_fn/scan/foldl/foldr and their gradients."""

import collections
import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import functional_ops
from tideflow.ops.cond import case, cond
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop
from tideflow.runtime import executor


@pytest.fixture(params=[True, False], ids=["inlined", "sub_plans"])
def inline(request, monkeypatch):
    """Runs a test with If/While inlined into the plan and with their kernels' sub-plans."""
    monkeypatch.setattr(executor, "INLINE_CONTROL_FLOW", request.param)
    return request.param


def _numeric_grad(f, x, delta=1e-6):
    x = np.array(x, dtype=np.float64)
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[idx] = delta
        out[idx] = (f(x + e) - f(x - e)) / (2 * delta)
    return out


# ------------------------------------------------------------------------------------------
# cond and case
# ------------------------------------------------------------------------------------------


def test_cond_values_and_structure(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        p = tf.placeholder(tf.bool, [])
        out = cond(p, lambda: {"a": x * 2.0, "b": (x, x + 1.0)},
                   lambda: {"a": x * 3.0, "b": (x - 1.0, x)})
        assert set(out) == {"a", "b"} and isinstance(out["b"], tuple)
        single = cond(p, lambda: [x], lambda: [x * 0.0])
        assert isinstance(single, tf.Tensor)  # non-strict cond unpacks singletons
        strict = cond(p, lambda: [x], lambda: [x * 0.0], strict=True)
        assert isinstance(strict, list)
        old = cond(p, fn1=lambda: x, fn2=lambda: -x)
        with tf.Session() as s:
            got = s.run(out, {x: 2.0, p: True})
            assert got == {"a": 4.0, "b": (2.0, 3.0)}
            got = s.run(out, {x: 2.0, p: False})
            assert got == {"a": 6.0, "b": (1.0, 2.0)}
            assert s.run(old, {x: 2.0, p: False}) == -2.0


def test_cond_errors():
    with tf.Graph().as_default():
        x = tf.constant(1.0)
        with pytest.raises(TypeError, match="pred must not be a Python bool"):
            cond(True, lambda: x, lambda: x)
        with pytest.raises(TypeError, match="true_fn must be callable"):
            cond(tf.constant(True), x, lambda: x)
        with pytest.raises(ValueError, match="same type"):
            cond(tf.constant(True), lambda: x, lambda: tf.constant(1))
        # TF 1.15: nest's error as is
        with pytest.raises(ValueError, match="^The two structures don't have the same nested"):
            cond(tf.constant(True), lambda: (x, x), lambda: x)


def test_cond_runs_only_the_taken_branch(inline):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        a = tf.Variable(0, name="a")
        b = tf.Variable(0, name="b")

        def true_fn():
            with tf.control_dependencies([tf.assign_add(a, 1)]):
                return tf.constant(1)

        out = cond(p, true_fn, lambda: tf.identity(tf.assign_add(b, 10)))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for pv in (True, True, False):
                s.run(out, {p: pv})
            assert s.run([a, b]) == [2, 10]


def test_cond_returning_operations():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        v = tf.Variable(0)
        op = cond(p, lambda: tf.assign_add(v, 1).op, lambda: tf.assign_add(v, 5).op)
        # as TF 1.x: the predicate, run after the branch (cond/Merge, a bool tensor)
        assert isinstance(op, tf.Tensor) and op.dtype == tf.bool and op.op.name == "cond/Merge"
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(op, {p: True})
            assert not s.run(op, {p: False})
            assert s.run(v) == 6


def test_case(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [])
        r = case([(x < 0, lambda: tf.constant(-1)), (x < 10, lambda: tf.constant(1))],
                 default=lambda: tf.constant(100))
        d = case({x > 5: lambda: tf.constant(5)}, default=lambda: tf.constant(0))
        excl = case([(x > 0, lambda: tf.constant(1)), (x > 1, lambda: tf.constant(2))],
                    default=lambda: tf.constant(0), exclusive=True)
        nodefault = case([(x < 0, lambda: tf.constant(-1)), (x >= 0, lambda: tf.constant(1))])
        with tf.Session() as s:
            assert [s.run(r, {x: v}) for v in (-5, 3, 50)] == [-1, 1, 100]
            assert [s.run(d, {x: v}) for v in (6, 1)] == [5, 0]
            assert s.run(excl, {x: 1}) == 1
            with pytest.raises(tf.errors.InvalidArgumentError, match="exclusive"):
                s.run(excl, {x: 5})
            assert s.run(nodefault, {x: 3}) == 1


# ------------------------------------------------------------------------------------------
# while_loop
# ------------------------------------------------------------------------------------------


def test_while_loop_structures(inline):
    Pair = collections.namedtuple("Pair", "i acc")
    with tf.Graph().as_default():
        single = while_loop(lambda i: i < 10, lambda i: i + 3, [tf.constant(0)])
        assert isinstance(single, tf.Tensor)
        # as in TF 1.x, a namedtuple of loop variables is passed unpacked
        pair = while_loop(lambda i, acc: i < 5, lambda i, acc: Pair(i + 1, acc * 2.0),
                          Pair(tf.constant(0), tf.constant(1.0)))
        assert isinstance(pair, Pair)
        (wrapped,) = while_loop(lambda p: p.i < 2, lambda p: [Pair(p.i + 1, p.acc + 1.0)],
                                [Pair(tf.constant(0), tf.constant(1.0))],
                                return_same_structure=True)
        assert isinstance(wrapped, Pair)
        d = while_loop(lambda s: s["n"] > 0, lambda s: {"n": s["n"] - 1, "v": s["v"] + [1, 1]},
                       {"n": tf.constant(4), "v": tf.constant([0, 0])})
        nested = while_loop(lambda i, xs: i < 3, lambda i, xs: (i + 1, (xs[0] + 1, [xs[1][0] * 2])),
                            (0, (tf.constant(0.0), [tf.constant(1.0)])))
        same = while_loop(lambda i: i < 2, lambda i: [i + 1], [0], return_same_structure=True)
        with tf.Session() as s:
            assert s.run(single) == 12
            assert s.run(pair) == Pair(5, 32.0)
            assert s.run(wrapped) == Pair(2, 3.0)
            got = s.run(d)
            assert got["n"] == 0 and got["v"].tolist() == [4, 4]
            assert s.run(nested) == (3, (3.0, [8.0]))
            assert s.run(same) == [2]


def test_while_loop_variables_and_control_dependencies(inline):
    with tf.Graph().as_default():
        v = tf.Variable(0.0)
        total = tf.Variable(0.0)

        def body(i):
            with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                upd = tf.assign_add(total, v.read_value())
            with tf.control_dependencies([upd]):
                return i + 1

        out = while_loop(lambda i: i < 4, body, [tf.constant(0)])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(out) == 4
            assert s.run([v, total]) == [4.0, 1.0 + 2.0 + 3.0 + 4.0]


def test_nested_loops_and_cond_in_loop(inline):
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])

        def outer(i, acc):
            inner = while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + j), [0, acc])[1]
            return i + 1, cond(tf.equal(i % 2, 0), lambda: inner, lambda: inner * 10)

        _, r = while_loop(lambda i, acc: i < n, outer, [0, 0])
        want = 0
        for i in range(6):
            want += sum(range(i))
            want = want if i % 2 == 0 else want * 10
        with tf.Session() as s:
            assert s.run(r, {n: 6}) == want


def test_maximum_iterations(inline):
    with tf.Graph().as_default():
        r = while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=7)
        m = tf.placeholder(tf.int32, [])
        r2 = while_loop(lambda i, x: True, lambda i, x: [i + 1, x * 2], [0, 1],
                        maximum_iterations=m)
        # TF 1.15 compares the body's result with the loop variables from the top when there
        # is a maximum: a list of variables needs a list back
        with pytest.raises(TypeError, match="don't have the same nested structure"):
            while_loop(lambda i, x: True, lambda i, x: (i + 1, x * 2), [0, 1],
                       maximum_iterations=m)
        with tf.Session() as s:
            assert s.run(r) == 7
            assert s.run(r2, {m: 5}) == [5, 32]


def test_shape_invariants(inline):
    with tf.Graph().as_default():
        x = tf.constant([1.0])
        with pytest.raises(ValueError, match=r"enters the loop with shape \(1,\), but has shape "
                           r"\(2,\) after one iteration. To allow the shape to vary across "
                           r"iterations, use the `shape_invariants` argument"):
            while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)), [0, x])
        _, y = while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)),
                          [0, x], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
        assert y.get_shape().as_list() == [None]
        with tf.Session() as s:
            assert s.run(y).shape == (8,)


def test_while_loop_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="cond must be callable"):
            while_loop(1, lambda i: i, [0])
        with pytest.raises(ValueError, match="No loop variables"):
            while_loop(lambda: True, lambda: (), [])
        # a body changing a variable's type builds, as in TF 1.15, and the graph fails at
        # the session's next run (test_issue_repros27)
        r = while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [0])
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                              match="incompatible with expected int32"):
            s.run(r)


def test_cancel_long_loop_by_closing_the_session(inline):
    with tf.Graph().as_default():
        r = while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0, tf.int64)])
        s = tf.Session()
        errs = []

        def run():
            try:
                s.run(r)
            except Exception as e:  # noqa: BLE001
                errs.append(e)

        th = threading.Thread(target=run)
        th.start()
        time.sleep(0.3)
        s.close()
        th.join(10)
        assert not th.is_alive()
        assert len(errs) == 1 and isinstance(errs[0], tf.errors.CancelledError)


def test_deadline(inline):
    with tf.Graph().as_default():
        r = while_loop(lambda i: i >= 0, lambda i: i + 1, [tf.constant(0, tf.int64)])
        with tf.Session() as s:
            t0 = time.monotonic()
            with pytest.raises(tf.errors.DeadlineExceededError):
                s.run(r, options=tf.RunOptions(timeout_in_ms=200))
            assert time.monotonic() - t0 < 5


# ------------------------------------------------------------------------------------------
# gradients (against central differences in float64)
# ------------------------------------------------------------------------------------------


def test_cond_gradient(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        w = tf.constant([0.5, -1.0, 2.0], tf.float64)
        p = tf.placeholder(tf.bool, [])
        y = tf.reduce_sum(cond(p, lambda: tf.sin(x) * w, lambda: x * x * x))
        gx, gw = tf.gradients(y, [x, w])
        xv = np.array([0.3, -0.7, 1.1])
        with tf.Session() as s:
            for pv, f in ((True, lambda v: np.sum(np.sin(v) * [0.5, -1.0, 2.0])),
                          (False, lambda v: np.sum(v ** 3))):
                got = s.run(gx, {x: xv, p: pv})
                np.testing.assert_allclose(got, _numeric_grad(f, xv), rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(s.run(gw, {x: xv, p: True}), np.sin(xv))
            np.testing.assert_allclose(s.run(gw, {x: xv, p: False}), 0.0)


def test_while_gradient_data_dependent_trip_count(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [])
        w = tf.Variable(1.5, dtype=tf.float64)
        _, z = while_loop(lambda i, z: z < 100.0, lambda i, z: (i + 1, z * x * w + 1.0), [0, x])
        gx, gw = tf.gradients(z, [x, w])

        def f(xv, wv=1.5):
            z = xv
            while z < 100.0:
                z = z * xv * wv + 1.0
            return z

        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for xv in (2.1, 3.7, 0.9):
                got_x, got_w = s.run([gx, gw], {x: xv})
                np.testing.assert_allclose(got_x, _numeric_grad(f, xv), rtol=1e-6)
                np.testing.assert_allclose(
                    got_w, _numeric_grad(lambda w_, xv=xv: f(xv, w_), 1.5), rtol=1e-6)


def test_nested_while_gradient(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])

        def outer(i, v):
            _, v2 = while_loop(lambda j, u: j < i + 1, lambda j, u: (j + 1, tf.sin(u) * x + u),
                               [0, v])
            return i + 1, cond(tf.reduce_sum(v2) > 0, lambda: v2 * 1.5, lambda: v2 - 0.1)

        _, r = while_loop(lambda i, v: i < 3, outer, [0, x])
        g = tf.gradients(tf.reduce_sum(r * r), x)[0]

        def f(xv):
            v = xv.copy()
            for i in range(3):
                for _ in range(i + 1):
                    v = np.sin(v) * xv + v
                v = v * 1.5 if v.sum() > 0 else v - 0.1
            return np.sum(v * v)

        xv = np.array([0.4, -0.3])
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(g, {x: xv}), _numeric_grad(f, xv), rtol=1e-6)


def test_functional_ops_and_gradients(inline):
    rng = np.random.RandomState(0)
    xv = rng.randn(5, 3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [5, 3])
        m = functional_ops.map_fn(lambda r: tf.sin(r) * 2.0, x)
        pair = functional_ops.map_fn(lambda r: (r[0], r * 2), x,
                                     dtype=(tf.float64, tf.float64))
        sc = functional_ops.scan(lambda a, r: a * r + 1.0, x)
        sc_init = functional_ops.scan(lambda a, r: a + r, x, initializer=tf.zeros([3],
                                                                               tf.float64),
                                      reverse=True)
        fl = functional_ops.foldl(lambda a, r: a * r, x, initializer=tf.ones([3], tf.float64))
        fr = functional_ops.foldr(lambda a, r: a * 0.5 + r, x)
        loss = tf.reduce_sum(m) + tf.reduce_sum(sc) + tf.reduce_sum(fl) + tf.reduce_sum(fr)
        g = tf.gradients(loss, x)[0]
        assert m.get_shape().as_list() == [5, 3]
        with tf.Session() as s:
            mv, pv, sv, siv, flv, frv, gv = s.run([m, pair, sc, sc_init, fl, fr, g], {x: xv})

    def scan_np(v):
        a, out = v[0], [v[0]]
        for r in v[1:]:
            a = a * r + 1.0
            out.append(a)
        return np.array(out)

    def foldr_np(v):
        a = v[-1]
        for r in v[-2::-1]:
            a = a * 0.5 + r
        return a

    np.testing.assert_allclose(mv, np.sin(xv) * 2)
    np.testing.assert_allclose(pv[0], xv[:, 0])
    np.testing.assert_allclose(pv[1], xv * 2)
    np.testing.assert_allclose(sv, scan_np(xv))
    np.testing.assert_allclose(siv, np.cumsum(xv[::-1], 0)[::-1])
    np.testing.assert_allclose(flv, np.prod(xv, 0))
    np.testing.assert_allclose(frv, foldr_np(xv))

    def f(v):
        return (np.sum(np.sin(v) * 2) + np.sum(scan_np(v)) + np.sum(np.prod(v, 0))
                + np.sum(foldr_np(v)))

    np.testing.assert_allclose(gv, _numeric_grad(f, xv), rtol=1e-6, atol=1e-8)


def test_dropout_in_cond_gradient_uses_the_forward_mask(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [200])
        p = tf.placeholder(tf.bool, [])
        y = cond(p, lambda: tf.nn.dropout(x * 3.0, keep_prob=0.5), lambda: x)
        g = tf.gradients(tf.reduce_sum(y), x)[0]
        xv = np.linspace(1.0, 2.0, 200)
        with tf.Session() as s:
            yv, gv = s.run([y, g], {x: xv, p: True})
            kept = yv != 0
            assert 40 < kept.sum() < 160
            np.testing.assert_allclose(gv[kept], 6.0)
            np.testing.assert_allclose(gv[~kept], 0.0)
            np.testing.assert_allclose(s.run(g, {x: xv, p: False}), 1.0)


def test_tensor_array_in_loop(inline):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [4])
        ta = TensorArray(tf.float64, size=0, dynamic_size=True)

        def body(i, ta):
            return i + 1, ta.write(i, x[i] * tf.cast(i, tf.float64))

        _, ta = while_loop(lambda i, ta: i < 4, body, [0, ta])
        stacked = ta.stack()
        g = tf.gradients(tf.reduce_sum(stacked * stacked), x)[0]
        xv = np.array([1.0, 2.0, -1.0, 0.5])
        with tf.Session() as s:
            sv, gv, size = s.run([stacked, g, ta.size()], {x: xv})
        np.testing.assert_allclose(sv, xv * np.arange(4))
        np.testing.assert_allclose(gv, 2 * xv * np.arange(4) ** 2)
        assert size == 4


# ------------------------------------------------------------------------------------------
# GraphDef round trip
# ------------------------------------------------------------------------------------------


def test_graph_def_round_trip(inline):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        c = tf.constant(3.0)
        y = cond(x > 0, lambda: x * c, lambda: x - c, name="mycond")
        _, z = while_loop(lambda i, z: i < 5,
                          lambda i, z: (i + 1, cond(z > 10.0, lambda: z + 1.0,
                                                    lambda: z * 2.0)), [0, y], name="loop")
        gz = tf.gradients(z, x)[0]
        gd = g.as_graph_def()
        with tf.Session() as s:
            want = s.run([y, z, gz], {x: 1.5})
    assert gd.library.function
    assert {n.op for n in gd.node} >= {"If", "While"}
    for name in ("", "again"):
        g2 = tf.Graph()
        with g2.as_default():
            tf.import_graph_def(gd, name="imp")
            if name:  # a second copy: its functions are renamed, both still run
                tf.import_graph_def(gd, name=name)
            with tf.Session() as s:
                got = s.run(["imp/" + t.name for t in (y, z, gz)], {"imp/x:0": 1.5})
                assert got == want
                if name:
                    got = s.run([f"{name}/" + t.name for t in (y, z, gz)], {f"{name}/x:0": 1.5})
                    assert got == want
