"""tf.train optimizers and tf.contrib.opt: parity points found by running TF 1.15's own
optimizer tests against tideflow (error wording, internal module paths, the contrib optimizers)."""

import numpy as np
import pytest

import tideflow as tf


def test_invalid_dtype_message_lists_the_float_types_in_tfs_order():
    with tf.Graph().as_default():
        counter = tf.Variable(3, name="counter")
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(ValueError) as err:
            opt.minimize(counter * 2)
        assert str(err.value) == (
            "Invalid type tf.int32 for mul:0, expected: "
            "[tf.float32, tf.float64, tf.float16, tf.bfloat16].")


def _run(fetch_fn, steps=1):
    """Initializes the default graph's variables, runs ``fetch_fn()``'s op ``steps`` times."""
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        op, outs = fetch_fn()
        for _ in range(steps):
            sess.run(op)
        return sess.run(outs)


def _clip_rows(x, max_norm, axis):
    norm = np.sqrt(np.sum(x * x, axis=axis, keepdims=True))
    return x * max_norm / np.maximum(norm, max_norm)


def test_contrib_opt_implementation_module_paths():
    from tideflow.contrib.opt.python.training import (
        lars_optimizer,
        lazy_adam_optimizer,
        variable_clipping_optimizer,
    )

    assert lazy_adam_optimizer.LazyAdamOptimizer is tf.contrib.opt.LazyAdamOptimizer
    assert lars_optimizer.LARSOptimizer is tf.contrib.opt.LARSOptimizer
    assert (variable_clipping_optimizer.VariableClippingOptimizer
            is tf.contrib.opt.VariableClippingOptimizer)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_variable_clipping_dense_and_sparse(dtype):
    w0 = np.array([[0.5, -1.0], [3.0, 2.5], [-0.2, 4.0]], dtype)
    w1 = np.array([[1.0, 0.0], [2.0, 2.0], [0.5, 3.0]], dtype)
    with tf.Graph().as_default():
        a = tf.Variable(w0)
        b = tf.Variable(w1)
        c = tf.Variable(w1)
        dense_g = tf.constant(np.full((3, 2), 0.25, dtype))
        rows = tf.IndexedSlices(tf.constant(np.array([[0.5, 0.5], [1.0, -1.0]], dtype)),
                                tf.constant([1, 2]), tf.constant([3, 2]))
        opt = tf.contrib.opt.VariableClippingOptimizer(
            tf.train.GradientDescentOptimizer(2.0), {a: [1], b: [1], c: [0]}, 1.5)
        op = opt.apply_gradients([(dense_g, a), (rows, b), (rows, c)])
        got_a, got_b, got_c = _run(lambda: (op, [a, b, c]))
    np.testing.assert_allclose(got_a, _clip_rows(w0 - 0.5, 1.5, 1), rtol=1e-6)
    stepped = w1.copy()
    stepped[1] -= 1.0
    stepped[2] -= [2.0, -2.0]
    # only the updated rows are clipped; a clip across dim 0 clips the whole variable
    want_b = stepped.copy()
    want_b[1:] = _clip_rows(stepped[1:], 1.5, 1)
    np.testing.assert_allclose(got_b, want_b, rtol=1e-6)
    np.testing.assert_allclose(got_c, _clip_rows(stepped, 1.5, 0), rtol=1e-6)
    assert opt.get_slot_names() == []


@pytest.mark.parametrize("staleness,applied", [(0, True), (-1, False)])
def test_drop_stale_gradient_counts_dropped_updates(staleness, applied):
    with tf.Graph().as_default():
        step = tf.train.create_global_step()
        w = tf.Variable([1.0, -2.0], name="w")
        opt = tf.contrib.opt.DropStaleGradientOptimizer(
            tf.train.GradientDescentOptimizer(0.5), staleness)
        grads = opt.compute_gradients(tf.reduce_sum(3.0 * w))
        op = opt.apply_gradients(grads, step)
        counter = tf.get_default_graph().get_tensor_by_name("stale_counter:0")
        got_w, got_step, got_counter = _run(lambda: (op, [w, step, counter]))
    if applied:
        np.testing.assert_allclose(got_w, [-0.5, -3.5])
        assert (got_step, got_counter) == (1, 0.0)
    else:
        np.testing.assert_allclose(got_w, [1.0, -2.0])
        assert (got_step, got_counter) == (0, 1.0)


def test_multitask_wrapper_leaves_state_alone_for_all_zero_gradients():
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0])
        b = tf.Variable([[1.0], [1.0], [1.0]])
        opt = tf.contrib.opt.MultitaskOptimizerWrapper(tf.train.MomentumOptimizer(0.5, 0.5))
        zero_rows = tf.IndexedSlices(tf.zeros([1, 1]), tf.constant([2]), tf.constant([3, 1]))
        rows = tf.IndexedSlices(tf.constant([[2.0]]), tf.constant([0]), tf.constant([3, 1]))
        first = opt.apply_gradients([(tf.constant([1.0, -1.0]), a), (rows, b)])
        second = opt.apply_gradients([(tf.zeros([2]), a), (zero_rows, b)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(first)
            sess.run(second)
            got = sess.run([a, opt.get_slot(a, "momentum"), b, opt.get_slot(b, "momentum")])
    np.testing.assert_allclose(got[0], [0.5, 2.5])
    np.testing.assert_allclose(got[1], [1.0, -1.0])
    np.testing.assert_allclose(got[2], [[0.0], [1.0], [1.0]])
    np.testing.assert_allclose(got[3], [[2.0], [0.0], [0.0]])


def test_clip_gradients_by_global_norm_ignores_all_zero_gradients():
    with tf.Graph().as_default():
        v = [tf.Variable([0.0, 0.0]) for _ in range(3)]
        grads = [tf.constant([6.0, 8.0]), tf.zeros([2]), None]
        pairs, norm = tf.contrib.opt.clip_gradients_by_global_norm(zip(grads, v), 5.0)
        assert pairs[2] == (None, v[2])
        with tf.Session() as sess:
            got_norm, g0, g1 = sess.run([norm, pairs[0][0], pairs[1][0]])
    assert got_norm == pytest.approx(10.0)
    np.testing.assert_allclose(g0, [3.0, 4.0])
    np.testing.assert_allclose(g1, [0.0, 0.0])


def test_reg_adagrad_can_freeze_its_accumulator():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0])
        e = tf.Variable([[1.0], [2.0]])
        opt = tf.contrib.opt.RegAdagradOptimizer(0.5, initial_accumulator_value=4.0)
        grads = [(tf.constant([1.0, -2.0]), w),
                 (tf.IndexedSlices(tf.constant([[3.0]]), tf.constant([1]),
                                   tf.constant([2, 1])), e)]
        with opt.avoid_updating_slots():
            frozen = opt.apply_gradients(grads)
        normal = opt.apply_gradients(grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(frozen)
            after_frozen = sess.run([w, opt.get_slot(w, "accumulator"), e])
            sess.run(normal)
            acc = sess.run([opt.get_slot(w, "accumulator"), opt.get_slot(e, "accumulator")])
    np.testing.assert_allclose(after_frozen[0], [0.75, 2.5])
    np.testing.assert_allclose(after_frozen[1], [4.0, 4.0])
    np.testing.assert_allclose(after_frozen[2], [[1.0], [1.25]])
    np.testing.assert_allclose(acc[0], [5.0, 8.0])
    np.testing.assert_allclose(acc[1], [[4.0], [13.0]])


def test_lars_scales_the_momentum_step_by_the_trust_ratio():
    w0 = np.array([[3.0, -4.0], [0.0, 12.0]])
    g0 = np.array([[1.0, 2.0], [2.0, -4.0]])
    with tf.Graph().as_default():
        w = tf.Variable(w0, name="kernel")
        bias = tf.Variable([1.0, 1.0], dtype=tf.float64, name="bias")
        opt = tf.contrib.opt.LARSOptimizer(0.5, momentum=0.5, weight_decay=0.1, eeta=0.01,
                                           skip_list=["bias"])
        op = opt.apply_gradients([(tf.constant(g0), w),
                                  (tf.constant([1.0, -1.0], tf.float64), bias)])
        got_w, got_b = _run(lambda: (op, [w, bias]), steps=2)
    want, mom = w0.copy(), np.zeros_like(w0)
    for _ in range(2):
        wn, gn = np.linalg.norm(want), np.linalg.norm(g0)
        # as TF 1.15: the weight-decayed gradient times the scaled rate feeds momentum
        mom = 0.5 * mom + 0.5 * (0.01 * wn / (gn + 0.1 * wn)) * (g0 + 0.1 * want)
        want = want - mom
    np.testing.assert_allclose(got_w, want, rtol=1e-12)
    np.testing.assert_allclose(got_b, [1.0 - 0.5 * 2.5, 1.0 + 0.5 * 2.5])
    with pytest.raises(ValueError, match="momentum should be positive"):
        tf.contrib.opt.LARSOptimizer(0.1, momentum=-1.0)


def _adam_reference(w, g, steps, lazy_rows=None):
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        rows = slice(None) if lazy_rows is None else lazy_rows
        m[rows] = 0.9 * m[rows] + 0.1 * g[rows]
        v[rows] = 0.999 * v[rows] + 0.001 * g[rows] ** 2
        lr = 0.1 * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        w[rows] = w[rows] - lr * m[rows] / (np.sqrt(v[rows]) + 1e-8)
    return w


@pytest.mark.parametrize("lazy", [False, True])
def test_adam_gs_takes_its_bias_correction_from_the_global_step(lazy):
    w0 = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    g_rows = np.array([[0.5, -1.0], [2.0, 0.25]])
    with tf.Graph().as_default():
        step = tf.train.create_global_step()
        w = tf.Variable(w0)
        u = tf.Variable(w0)
        cls = tf.contrib.opt.LazyAdamGSOptimizer if lazy else tf.contrib.opt.AdamGSOptimizer
        opt = cls(global_step=step, learning_rate=0.1)
        rows = tf.IndexedSlices(tf.constant(g_rows), tf.constant([0, 2]), tf.constant([3, 2]))
        op = opt.apply_gradients([(rows, w), (tf.constant(w0 * 0.1), u)], global_step=step)
        assert opt.get_slot_names() == ["m", "v"]
        assert sorted(x.op.name for x in opt.variables()) == [
            "Variable/Adam", "Variable/Adam_1", "Variable_1/Adam", "Variable_1/Adam_1"]
        got_w, got_u, got_step = _run(lambda: (op, [w, u, step]), steps=3)
    dense_g = np.zeros_like(w0)
    dense_g[[0, 2]] = g_rows
    want_w = _adam_reference(w0.copy(), dense_g, 3, lazy_rows=[0, 2] if lazy else None)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-6)
    np.testing.assert_allclose(got_u, _adam_reference(w0.copy(), w0 * 0.1, 3), rtol=1e-6)
    assert got_step == 3


def test_adamax_keeps_only_beta1_power():
    with tf.Graph().as_default():
        a = tf.Variable([0.5, -1.5], name="a")
        b = tf.Variable([[2.0]], name="b")
        opt = tf.contrib.opt.AdaMaxOptimizer(0.2, beta1=0.8)
        op = opt.minimize(tf.reduce_sum(a * a) + tf.reduce_sum(3.0 * b))
        power = opt._get_beta_accumulators()
        assert power.op.name == "beta1_power"
        assert sorted(v.op.name for v in opt.variables()) == [
            "a/AdaMax", "a/AdaMax_1", "b/AdaMax", "b/AdaMax_1", "beta1_power"]
        got_power, got_a = _run(lambda: (op, [power, a]), steps=2)
    assert got_power == pytest.approx(0.8 ** 3)
    want, m, u = np.array([0.5, -1.5]), 0.0, 0.0
    for t in (1, 2):
        g = 2 * want
        m = 0.8 * m + 0.2 * g
        u = np.maximum(0.999 * u, np.abs(g))
        want = want - 0.2 / (1 - 0.8 ** t) * m / (u + 1e-8)
    np.testing.assert_allclose(got_a, want, rtol=1e-6)


def test_nadam_sparse_steps_only_the_gradients_rows():
    w0 = np.array([[1.0, -1.0], [2.0, 0.5], [-3.0, 4.0]])
    first = np.array([[0.5, 1.0], [-2.0, 0.25], [1.0, 1.0]])
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        opt = tf.contrib.opt.NadamOptimizer(0.1)
        dense = opt.apply_gradients([(tf.constant(first), w)])
        rows = tf.IndexedSlices(tf.constant([[1.0, -1.0]], tf.float64), tf.constant([2]),
                                tf.constant([3, 2]))
        sparse = opt.apply_gradients([(rows, w)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(dense)
            before = sess.run(w)
            sess.run(sparse)
            after, m = sess.run([w, opt.get_slot(w, "m")])
    # rows 0 and 1 have no gradient: their moments decay, the rows themselves stay
    np.testing.assert_array_equal(after[:2], before[:2])
    np.testing.assert_allclose(m[:2], 0.9 * 0.1 * first[:2], rtol=1e-6)
    assert not np.allclose(after[2], before[2])


def test_mixed_precision_implementation_module_paths():
    from tideflow.contrib.mixed_precision.python import loss_scale_manager, loss_scale_optimizer

    assert (loss_scale_optimizer.LossScaleOptimizer
            is tf.contrib.mixed_precision.LossScaleOptimizer)
    assert (loss_scale_manager.FixedLossScaleManager
            is tf.contrib.mixed_precision.FixedLossScaleManager)


class _HalvingOptimizer(tf.train.Optimizer):
    """Written against the resource-variable hooks only (as TF 2-era compat.v1 code is)."""

    def __init__(self):
        super().__init__(False, "Halving")

    def _resource_apply_dense(self, grad, handle):
        return handle.assign_sub(0.5 * grad)

    def _resource_apply_sparse(self, grad, handle, indices):
        return tf.scatter_sub(handle, indices, 0.5 * grad)


def test_optimizer_written_for_resource_variables_only():
    with tf.Graph().as_default():
        table = tf.get_variable("table", initializer=[[1.0], [2.0], [3.0]], use_resource=True)
        bias = tf.get_variable("bias", initializer=[4.0, 4.0])
        # index 2 twice: the duplicate rows are summed before the update
        loss = tf.reduce_sum(tf.gather(table, [2, 0, 2])) + tf.reduce_sum(3.0 * bias)
        op = _HalvingOptimizer().minimize(loss)
        got_table, got_bias = _run(lambda: (op, [table, bias]))
    np.testing.assert_allclose(got_table, [[0.5], [2.0], [2.0]])
    np.testing.assert_allclose(got_bias, [2.5, 2.5])


class _DecayingAdam(tf.train.AdamOptimizer):
    """An Adam variant built on Adam's sparse hooks, as decoupled-weight-decay ports are."""

    def _apply_dense(self, grad, var):
        with tf.control_dependencies([var.assign_sub(0.5 * var)]):
            return super()._apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        return self._apply_sparse_shared(grad.values, var, grad.indices,
                                         self._resource_scatter_add)


def test_adam_subclass_hooks_apply_sparse_shared_and_resource_scatter_add():
    with tf.Graph().as_default():
        emb = tf.Variable([[1.0, 1.0], [2.0, 2.0]])
        w = tf.Variable([4.0])
        loss = tf.reduce_sum(tf.gather(emb, [1]) * [[2.0, -2.0]]) + tf.reduce_sum(w)
        ours = _DecayingAdam(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(ours)
            got_emb, got_w = sess.run([emb, w])
    # first Adam step: each touched element moves by lr * sign(grad)
    np.testing.assert_allclose(got_emb, [[1.0, 1.0], [1.9, 2.1]], rtol=1e-6)
    np.testing.assert_allclose(got_w, [2.0 - 0.1], rtol=1e-6)


def test_worker_reads_a_ps_variable_after_the_update_it_depends_on():
    """A consumer on a worker of a ps variable's buffer, with control dependencies, reads it
    after them (TF's partitioner gates the Recv); the ``<var>/read`` snapshot stays as read at
    the step's start. VariableClippingOptimizer with ps variables depends on this."""
    from tests.distributed.cluster_procs import cluster_spec
    from tideflow.distributed.server import Server

    spec = cluster_spec(ps=1, worker=1)
    made = [Server(spec, job_name=job, task_index=0) for job in ("ps", "worker")]
    try:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                w = tf.Variable([[2.0, 0.5], [3.0, 4.0]])
            with tf.device("/job:worker/task:0"):
                grad = tf.constant([[0.5, 0.5], [0.5, 0.5]])
                step = tf.train.GradientDescentOptimizer(2.0).apply_gradients([(grad, w)])
                with tf.control_dependencies([step]):
                    fresh = w.read_value()
                    snapshot = tf.identity(w)
                clip = tf.contrib.opt.VariableClippingOptimizer(
                    tf.train.GradientDescentOptimizer(2.0), {w: [1]}, 2.0)
                clip_step = clip.apply_gradients([(grad, w)])
            with tf.Session(made[1].target) as sess:
                sess.run(w.initializer)
                got_fresh, got_snapshot = sess.run([fresh, snapshot])
                sess.run(clip_step)
                got_clipped = sess.run(w)
    finally:
        for s in made:
            s.stop()
    np.testing.assert_allclose(got_fresh, [[1.0, -0.5], [2.0, 3.0]])
    np.testing.assert_allclose(got_snapshot, [[2.0, 0.5], [3.0, 4.0]])
    # row 1 after the step, [1, 2], is longer than 2: rescaled; row 0 is not
    np.testing.assert_allclose(got_clipped, [[0.0, -1.5], [2 / 5 ** 0.5, 4 / 5 ** 0.5]],
                               rtol=1e-6)


def test_adagrad_da_runs_the_fused_ops_as_tf():
    from tideflow.python.training import training_ops

    assert training_ops.apply_adagrad_da.__name__ == "apply_adagrad_da"
    with tf.Graph().as_default():
        step = tf.train.create_global_step()
        w = tf.Variable([[0.5, -0.5], [1.0, 2.0]], name="w")
        opt = tf.train.AdagradDAOptimizer(0.2, step, initial_gradient_squared_accumulator_value=0.5,
                                          l1_regularization_strength=0.1,
                                          l2_regularization_strength=0.3)
        rows = tf.IndexedSlices(tf.constant([[1.0, -3.0]]), tf.constant([1]), tf.constant([2, 2]))
        dense = opt.apply_gradients([(tf.constant([[2.0, 0.5], [0.0, 1.0]]), w)],
                                    global_step=step)
        sparse = opt.apply_gradients([(rows, w)], global_step=step)
        types = {o.type for o in tf.get_default_graph().get_operations()}
        assert {"ApplyAdagradDA", "SparseApplyAdagradDA"} <= types
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(dense)
            sess.run(sparse)
            got = sess.run(w)
    acc = np.array([[2.0, 0.5], [1.0, -2.0]])
    sq = np.array([[4.5, 0.75], [1.5, 10.5]])
    want = np.zeros((2, 2))
    # row 0 last changed at step 1, row 1 at step 2
    for row, t in ((0, 1.0), (1, 2.0)):
        shrunk = np.sign(acc[row]) * np.maximum(np.abs(acc[row]) - 0.1 * t, 0)
        want[row] = -0.2 * shrunk / (0.3 * t * 0.2 + np.sqrt(sq[row]))
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_model_average_optimizer_one_worker_averages_every_interval():
    with tf.Graph().as_default():
        getter = tf.contrib.opt.ModelAverageCustomGetter("/cpu:0")
        with tf.variable_scope("", custom_getter=getter):
            w = tf.get_variable("w", initializer=[4.0, -2.0])
        step = tf.train.get_or_create_global_step()
        opt = tf.contrib.opt.ModelAverageOptimizer(
            tf.train.GradientDescentOptimizer(0.25), 1, True, getter, interval_steps=2)
        train = opt.minimize(tf.reduce_sum(w * w), global_step=step)
        center = tf.get_default_graph().get_tensor_by_name("global_center_variable/w:0")
        assert [v.op.name for v in tf.local_variables()] == ["w", "local_step"]
        assert w not in tf.global_variables() and w in tf.trainable_variables()
        seen = []
        with tf.train.MonitoredSession(hooks=[opt.make_session_run_hook()]) as sess:
            for _ in range(3):
                sess.run(train)
                seen.append(sess.run([w, center, step]))
    # each step halves w; the centre follows it at every second local step
    np.testing.assert_allclose(seen[0][0], [2.0, -1.0])
    np.testing.assert_allclose(seen[0][1], [4.0, -2.0])
    np.testing.assert_allclose(seen[1][1], [1.0, -0.5])
    np.testing.assert_allclose(seen[2][0], [0.5, -0.25])
    assert [s[2] for s in seen] == [0, 1, 1]


def test_model_average_optimizer_averages_two_workers_over_a_cluster():
    import threading

    from tests.distributed.cluster_procs import cluster_spec
    from tideflow.distributed.server import Server

    spec = cluster_spec(ps=1, worker=2)
    servers = [Server(spec, job_name="ps", task_index=0)] + [
        Server(spec, job_name="worker", task_index=i) for i in range(2)]
    results = {}
    try:
        runs = []
        for k, target in enumerate((1.0, 3.0)):
            g = tf.Graph()
            with g.as_default():
                device = f"/job:worker/task:{k}"
                getter = tf.contrib.opt.ModelAverageCustomGetter(device)
                setter = tf.train.replica_device_setter(worker_device=device,
                                                        cluster=spec)
                with tf.device(setter), tf.variable_scope("", custom_getter=getter):
                    w = tf.get_variable("w", initializer=[0.0, 0.0])
                    step = tf.train.get_or_create_global_step()
                opt = tf.contrib.opt.ModelAverageOptimizer(
                    tf.train.GradientDescentOptimizer(0.25), 2, k == 0, getter,
                    interval_steps=2)
                train = opt.minimize(tf.reduce_sum(tf.square(w - target)), global_step=step)
                hook = opt.make_session_run_hook()
                hook.begin()
            sess = tf.Session(servers[1 + k].target, graph=g)
            hook.after_create_session(sess, None)
            runs.append((sess, train, w, step))

        def work(k):
            sess, train, w, step = runs[k]
            for _ in range(2):
                sess.run(train)
            results[k] = sess.run([w, step])

        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for sess, *_ in runs:
            sess.close()
    finally:
        for s in servers:
            s.stop()
    # two local steps each (0 -> 0.5 t -> 0.75 t), then both take the average of 0.75 and 2.25
    for k in range(2):
        np.testing.assert_allclose(results[k][0], [1.5, 1.5])
        assert results[k][1] == 1


def test_elastic_average_optimizer_one_worker():
    with tf.Graph().as_default():
        getter = tf.contrib.opt.ElasticAverageCustomGetter("/cpu:0")
        with tf.variable_scope("", custom_getter=getter):
            w = tf.get_variable("w", initializer=[4.0, -2.0])
        step = tf.train.get_or_create_global_step()
        opt = tf.contrib.opt.ElasticAverageOptimizer(
            tf.train.GradientDescentOptimizer(0.1), 1, getter, communication_period=2)
        train = opt.minimize(tf.reduce_sum(w * w), global_step=step)
        g = tf.get_default_graph()
        center = g.get_tensor_by_name("global_center_variable/w:0")
        local_center = g.get_tensor_by_name("local_center_variable/w:0")
        assert sorted(v.op.name for v in tf.global_variables()) == [
            "global_center_variable/w", "global_step"]
        saver = opt.swapping_saver()
        assert list(saver._var_list) == ["w"]
        seen = []
        with tf.train.MonitoredSession(hooks=[opt.make_session_run_hook(True, 0)]) as sess:
            for _ in range(4):
                sess.run(train)
                seen.append(sess.run([w, center, local_center, step]))
    rate = 0.9 / 2 / 1
    rho = rate / 0.1
    want_w = np.array([4.0, -2.0])
    want_c = want_w.copy()
    want_lc = want_w.copy()
    for i in range(4):
        want_w = want_w - 0.1 * (2 * want_w + rho * (want_w - want_lc))
        if (i + 1) % 2 == 0:
            want_lc = want_c.copy()
            d = rate * (want_w - want_lc)
            want_w, want_c = want_w - d, want_c + d
        np.testing.assert_allclose(seen[i][0], want_w, rtol=1e-5)
        np.testing.assert_allclose(seen[i][1], want_c, rtol=1e-5)
        np.testing.assert_allclose(seen[i][2], want_lc, rtol=1e-5)
        assert seen[i][3] == (i + 1) // 2


def test_elastic_average_optimizer_two_workers_over_a_cluster():
    from tests.distributed.cluster_procs import cluster_spec
    from tideflow.distributed.server import Server

    spec = cluster_spec(ps=1, worker=2)
    servers = [Server(spec, job_name="ps", task_index=0)] + [
        Server(spec, job_name="worker", task_index=i) for i in range(2)]
    targets = (1.0, 3.0)
    try:
        runs = []
        for k, target in enumerate(targets):
            g = tf.Graph()
            with g.as_default():
                device = f"/job:worker/task:{k}"
                getter = tf.contrib.opt.ElasticAverageCustomGetter(device)
                setter = tf.train.replica_device_setter(worker_device=device, cluster=spec)
                with tf.device(setter), tf.variable_scope("", custom_getter=getter):
                    w = tf.get_variable("w", initializer=[0.0, 0.0])
                    step = tf.train.get_or_create_global_step()
                opt = tf.contrib.opt.ElasticAverageOptimizer(
                    tf.train.GradientDescentOptimizer(0.2), 2, getter, communication_period=2)
                train = opt.minimize(tf.reduce_sum(tf.square(w - target)), global_step=step)
                center = g.get_tensor_by_name("global_center_variable/w:0")
                hook = opt.make_session_run_hook(k == 0, k)
                hook.begin()
            sess = tf.Session(servers[1 + k].target, graph=g)
            if k == 0:
                sess.run(hook._global_init_op)
            sess.run(hook._local_init_op)
            hook.after_create_session(sess, None)
            runs.append((sess, train, w, center, step))
        got = []
        for sess, train, w, center, step in runs:  # asynchronous: one worker after the other
            for _ in range(2):
                sess.run(train)
            got.append(sess.run([w, center, step]))
        for sess, *_ in runs:
            sess.close()
    finally:
        for s in servers:
            s.stop()
    rate, c = 0.9 / 2 / 2, np.zeros(2)
    rho = rate / 0.2
    for k, target in enumerate(targets):
        # both workers took the initial centre (zeros) before either trained
        w, lc = np.zeros(2), np.zeros(2)
        for _ in range(2):
            w = w - 0.2 * (2 * (w - target) + rho * (w - lc))
        lc = c.copy()
        d = rate * (w - lc)
        w, c = w - d, c + d
        np.testing.assert_allclose(got[k][0], w, rtol=1e-5)
        np.testing.assert_allclose(got[k][1], c, rtol=1e-5)
        assert got[k][2] == k + 1


def test_agn_optimizer_one_worker_applies_the_normalized_sum_to_the_centre():
    with tf.Graph().as_default():
        getter = tf.contrib.opt.AGNCustomGetter("/cpu:0")
        with tf.variable_scope("", custom_getter=getter):
            w = tf.get_variable("w", initializer=[4.0, -2.0])
        step = tf.train.get_or_create_global_step()
        opt = tf.contrib.opt.AGNOptimizer(tf.train.MomentumOptimizer(0.1, 0.5), 1, getter,
                                          communication_period=2)
        train = opt.minimize(tf.reduce_sum(w * w), global_step=step)
        g = tf.get_default_graph()
        center = g.get_tensor_by_name("global_center_variable/w:0")
        # the local step's momentum is per worker; the centre's is global
        assert sorted(v.op.name for v in tf.global_variables()) == [
            "global_center_variable/w", "global_center_variable/w/Momentum", "global_step"]
        seen = []
        with tf.train.MonitoredSession(hooks=[opt.make_session_run_hook(True, 0)]) as sess:
            for _ in range(4):
                sess.run(train)
                seen.append(sess.run([w, center, step]))
    w_np, c_np, acc = np.array([4.0, -2.0]), np.array([4.0, -2.0]), np.zeros(2)
    mom_w, mom_c = np.zeros(2), np.zeros(2)
    for i in range(4):
        grad = 2 * w_np
        mom_w = 0.5 * mom_w + grad
        w_np = w_np - 0.1 * mom_w
        acc = acc + grad
        if (i + 1) % 2 == 0:
            mom_c = 0.5 * mom_c + acc / 2
            c_np = c_np - 0.1 * mom_c
            w_np, acc = c_np.copy(), np.zeros(2)
        np.testing.assert_allclose(seen[i][0], w_np, rtol=1e-5)
        np.testing.assert_allclose(seen[i][1], c_np, rtol=1e-5)
        assert seen[i][2] == (i + 1) // 2


def test_agn_optimizer_two_workers_over_a_cluster():
    from tests.distributed.cluster_procs import cluster_spec
    from tideflow.distributed.server import Server

    spec = cluster_spec(ps=1, worker=2)
    servers = [Server(spec, job_name="ps", task_index=0)] + [
        Server(spec, job_name="worker", task_index=i) for i in range(2)]
    try:
        runs = []
        for k, target in enumerate((1.0, 3.0)):
            g = tf.Graph()
            with g.as_default():
                device = f"/job:worker/task:{k}"
                getter = tf.contrib.opt.AGNCustomGetter(device)
                setter = tf.train.replica_device_setter(worker_device=device, cluster=spec)
                with tf.device(setter), tf.variable_scope("", custom_getter=getter):
                    w = tf.get_variable("w", initializer=[0.0, 0.0])
                    step = tf.train.get_or_create_global_step()
                opt = tf.contrib.opt.AGNOptimizer(tf.train.GradientDescentOptimizer(0.2), 2,
                                                  getter, communication_period=2)
                train = opt.minimize(tf.reduce_sum(tf.square(w - target)), global_step=step)
                center = g.get_tensor_by_name("global_center_variable/w:0")
                hook = opt.make_session_run_hook(k == 0, k)
                hook.begin()
            sess = tf.Session(servers[1 + k].target, graph=g)
            if k == 0:
                sess.run(hook._global_init_op)
            sess.run(hook._local_init_op)
            hook.after_create_session(sess, None)
            runs.append((sess, train, w, center, step))
        got = []
        for sess, train, w, center, step in runs:
            for _ in range(2):
                sess.run(train)
            got.append(sess.run([w, center, step]))
        for sess, *_ in runs:
            sess.close()
    finally:
        for s in servers:
            s.stop()
    # each worker: 0 -> 0.4 t -> 0.64 t with gradient sum -3.2 t; the centre moves by
    # 0.2 * 3.2 t / 2 = 0.32 t and the worker takes it
    np.testing.assert_allclose(got[0][0], [0.32, 0.32], rtol=1e-5)
    np.testing.assert_allclose(got[1][1], [1.28, 1.28], rtol=1e-5)
    np.testing.assert_allclose(got[1][0], [1.28, 1.28], rtol=1e-5)
    assert (got[0][2], got[1][2]) == (1, 2)


def _ggt_reference(flat_grads, lr, beta1, window, eps, svd_eps, sigma_eps):
    """The GGT update of the flat parameter vector, step by step (NumPy, float64)."""
    n = flat_grads[0].size
    ring, m_t, steps = np.zeros((window, n)), np.zeros(n), []
    for t, g in enumerate(flat_grads, start=1):
        m_t = beta1 * m_t + (1 - beta1) * g
        ring[(t - 1) % window] = m_t
        big_m = ring.T / np.sqrt(min(t, window))
        u, s, _ = np.linalg.svd(big_m.T @ big_m + svd_eps * np.eye(window))
        root = np.sqrt(s)
        proj = big_m.T @ m_t
        head = big_m @ (u @ ((u.T @ proj) / (root + sigma_eps) ** 3))
        step = head
        if root.min() > eps:
            step = head + (m_t - big_m @ (u @ ((u.T @ proj) / s))) / root.min()
        steps.append(lr * step)
    return steps


def test_ggt_optimizer_against_numpy():
    grads = [np.array([0.5, -1.0, 2.0, 0.25, 1.5]), np.array([1.0, 0.5, -0.5, 2.0, -1.0]),
             np.array([-0.25, 1.0, 0.75, -1.5, 0.5])]
    with tf.Graph().as_default():
        b = tf.Variable([1.0, -1.0], dtype=tf.float64, name="b")
        a = tf.Variable([[0.5, 2.0, -3.0]], dtype=tf.float64, name="a")
        feed = tf.placeholder(tf.float64, [5])
        opt = tf.contrib.opt.GGTOptimizer(learning_rate=0.1, window=2)
        # flat order is by variable name: a's 3 values, then b's 2
        op = opt.apply_gradients([(tf.reshape(feed[3:], [2]), b),
                                  (tf.reshape(feed[:3], [1, 3]), a)])
        assert sorted(v.op.name for v in opt.variables()) == [
            "flat_grad", "global_step", "grad_buffer", "moment1"]
        with pytest.raises(NotImplementedError, match="Sparse gradient updates"):
            opt.apply_gradients([(tf.IndexedSlices(tf.ones([1, 3], tf.float64),
                                                   tf.constant([0])), a)])
        got = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for g in grads:
                sess.run(op, {feed: g})
                got.append(np.concatenate([sess.run(a).ravel(), sess.run(b)]))
    want = np.array([0.5, 2.0, -3.0, 1.0, -1.0])
    for step, value in zip(_ggt_reference(grads, 0.1, 0.9, 2, 1e-4, 1e-6, 1e-2), got):
        want = want - step
        np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-9)
