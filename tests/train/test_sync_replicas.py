"""SyncReplicasOptimizer in one process: replicas built in one graph share the accumulators and
the token queue by name, each "worker" is a thread running its own train op in one Session, and
the chief's queue runner aggregates."""

import threading
import time

import numpy as np
import pytest

import tideflow as tf
from tideflow.train.coordinator import Coordinator
from tideflow.train.session_run_hook import SessionRunHook
from tideflow.train.sync_replicas_optimizer import SyncReplicasOptimizer

LR = 0.5
W0 = np.array([1.0, 2.0], np.float32)


def _grad(i):
    """Worker i's (constant) gradient for w."""
    return np.array([i + 1.0, 10.0 * (i + 1)], np.float32)


class Cluster:
    """n in-graph replicas of a linear model; replica 0 is the chief."""

    def __init__(self, n, replicas_to_aggregate, total_num_replicas=None, sparse=False,
                 num_tokens=-1):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.global_step = tf.train.get_or_create_global_step()
            self.w = tf.Variable(W0, name="w")
            self.emb = tf.Variable(np.zeros([4, 2], np.float32), name="emb")
            self.opts, self.train_ops = [], []
            for i in range(n):
                with tf.name_scope(f"replica_{i}"):
                    loss = tf.reduce_sum(self.w * tf.constant(_grad(i)))
                    if sparse:
                        rows = tf.gather(self.emb, tf.constant([i % 4]))
                        loss = loss + tf.reduce_sum(rows)
                    opt = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(LR),
                                                replicas_to_aggregate=replicas_to_aggregate,
                                                total_num_replicas=total_num_replicas)
                    var_list = [self.w, self.emb] if sparse else [self.w]
                    self.train_ops.append(opt.minimize(loss, global_step=self.global_step,
                                                       var_list=var_list))
                    self.opts.append(opt)
            self.init = tf.global_variables_initializer()
            self.local_init = tf.local_variables_initializer()
            self.init_tokens = self.opts[0].get_init_tokens_op(num_tokens)
        self.sess = tf.Session(graph=self.graph)
        self.coord = Coordinator()
        self.threads = []

    def start(self):
        s = self.sess
        s.run([self.init, self.local_init])
        s.run(self.opts[0].chief_init_op)
        for opt in self.opts[1:]:
            s.run(opt.local_step_init_op)
        s.run(self.init_tokens)
        qr = self.opts[0].get_chief_queue_runner()
        self.threads = qr.create_threads(s, coord=self.coord, daemon=True, start=True)
        return self

    def step(self):
        return int(self.sess.run(self.global_step))

    def wait_for_step(self, n, timeout=10.0):
        deadline = time.monotonic() + timeout
        while self.step() < n:
            if time.monotonic() > deadline:
                raise AssertionError(f"global step stuck at {self.step()}, wanted {n}")
            time.sleep(0.005)

    def stop(self):
        self.coord.request_stop()
        self.sess.close()  # cancels the blocked TakeGrad / dequeue kernels
        for t in self.threads:
            t.join(5)
        assert not any(t.is_alive() for t in self.threads)


@pytest.fixture
def make_cluster():
    made = []

    def make(*args, **kwargs):
        c = Cluster(*args, **kwargs)
        made.append(c)
        return c.start()

    yield make
    for c in made:
        c.stop()


def _run_in_threads(fns, timeout=10.0):
    errors_seen = []

    def wrap(fn):
        def run():
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - reported to the test below
                errors_seen.append(e)
        return run

    threads = [threading.Thread(target=wrap(f), daemon=True) for f in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    assert not errors_seen, errors_seen


def _round(c, workers):
    _run_in_threads([lambda i=i: c.sess.run(c.train_ops[i]) for i in workers])


def test_update_is_mean_of_aggregated_gradients(make_cluster):
    # no initial tokens: every worker waits for the aggregated step, so the rounds are lockstep
    c = make_cluster(3, replicas_to_aggregate=3, num_tokens=0)
    steps = 4
    for r in range(steps):
        # one round: every worker pushes one gradient, the chief aggregates once, and each
        # worker's token carries the new global step
        _round(c, range(3))
        assert c.step() == r + 1
    mean = np.mean([_grad(i) for i in range(3)], axis=0)
    np.testing.assert_allclose(c.sess.run(c.w), W0 - steps * LR * mean, rtol=1e-6)
    for opt in c.opts:
        assert int(c.sess.run(opt._local_step)) == steps


def test_initial_tokens_let_workers_run_one_step_ahead(make_cluster):
    # the default initial tokens (replicas_to_aggregate of them) carry global step 0: the
    # workers do not wait after their first step, so what they push next is still tagged 0
    c = make_cluster(3, replicas_to_aggregate=3)
    _round(c, range(3))
    c.wait_for_step(1)
    assert [int(c.sess.run(o._local_step)) for o in c.opts] == [0, 0, 0]
    _round(c, range(3))  # stale: dropped by the accumulators
    time.sleep(0.2)
    assert c.step() == 1
    assert [int(c.sess.run(o._local_step)) for o in c.opts] == [1, 1, 1]
    _round(c, range(3))  # fresh again
    assert c.step() == 2
    mean = np.mean([_grad(i) for i in range(3)], axis=0)
    np.testing.assert_allclose(c.sess.run(c.w), W0 - 2 * LR * mean, rtol=1e-6)


def test_sparse_gradients_aggregate(make_cluster):
    c = make_cluster(2, replicas_to_aggregate=2, sparse=True, num_tokens=0)
    _round(c, range(2))
    assert c.step() == 1
    emb = c.sess.run(c.emb)
    # rows 0 and 1 each had one gradient of ones: the sparse mean is per row
    np.testing.assert_allclose(emb[:2], -LR * np.ones([2, 2]))
    np.testing.assert_allclose(emb[2:], 0)


def test_dead_backup_worker_does_not_stall(make_cluster):
    c = make_cluster(3, replicas_to_aggregate=2, total_num_replicas=3)
    steps = 6
    done = threading.Event()

    def worker(i, n_steps):
        def run():
            n = 0
            while not done.is_set() and n < n_steps:
                try:
                    c.sess.run(c.train_ops[i])
                except (tf.errors.CancelledError, RuntimeError):
                    return  # the session closed under a blocked step
                n += 1
        return run

    # worker 2 runs one step and then dies; workers 0 and 1 carry on until told to stop
    threads = [threading.Thread(target=worker(i, 1 if i == 2 else 10**9), daemon=True)
               for i in range(3)]
    for t in threads:
        t.start()
    c.wait_for_step(steps, timeout=15)
    done.set()
    assert c.step() >= steps
    w = c.sess.run(c.w)
    # every update applied a mean of at least two gradients of the form (k, 10k), k in 1..3
    delta = (W0 - w) / LR
    assert delta[0] > 0 and np.isclose(delta[1], 10 * delta[0], rtol=1e-5)
    c.stop()  # unblocks any worker left waiting for a token
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)


def test_stale_gradients_are_dropped(make_cluster):
    c = make_cluster(2, replicas_to_aggregate=1, total_num_replicas=2)
    # worker 1 pushes at local step 0: the chief applies it and the global step becomes 1
    c.sess.run(c.train_ops[1])
    c.wait_for_step(1)
    w1 = c.sess.run(c.w)
    np.testing.assert_allclose(w1, W0 - LR * _grad(1))
    # worker 0 is still at local step 0: its gradient is stale and dropped, but it gets a
    # token carrying the new global step
    assert int(c.sess.run(c.opts[0]._local_step)) == 0
    c.sess.run(c.train_ops[0])
    assert int(c.sess.run(c.opts[0]._local_step)) == 1
    time.sleep(0.2)
    assert c.step() == 1
    np.testing.assert_allclose(c.sess.run(c.w), w1)
    # its next gradient is fresh and applied
    c.sess.run(c.train_ops[0])
    c.wait_for_step(2)
    np.testing.assert_allclose(c.sess.run(c.w), w1 - LR * _grad(0))


def test_errors_and_delegation():
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        base = tf.train.MomentumOptimizer(0.1, 0.9)
        opt = SyncReplicasOptimizer(base, replicas_to_aggregate=2, total_num_replicas=4)
        with pytest.raises(ValueError, match="after apply_gradients"):
            opt.get_chief_queue_runner()
        with pytest.raises(ValueError, match="after apply_gradients"):
            opt.get_init_tokens_op()
        gv = opt.compute_gradients(tf.reduce_sum(w * 2.0))
        assert gv[0][1] is w
        with pytest.raises(ValueError, match="Global step is required"):
            opt.apply_gradients(gv)
        with pytest.raises(ValueError, match="Must supply at least one variable"):
            opt.apply_gradients([], global_step=tf.train.get_or_create_global_step())
        gs = tf.train.get_or_create_global_step()
        train_op = opt.apply_gradients(gv, global_step=gs)
        assert train_op.op.type == "Assign"
        assert opt.get_slot(w, "momentum") is base.get_slot(w, "momentum")
        assert opt.get_slot_names() == ["momentum"]
        assert opt._tokens_per_step == 4
        # total (4) > to aggregate (2): zero initial tokens are allowed
        assert opt.get_init_tokens_op(num_tokens=0).type == "NoOp"
        local = tf.local_variables()
        assert [v.op.name for v in local] == ["sync_rep_local_step"]
        accum = [op for op in tf.get_default_graph().get_operations()
                 if op.type == "ResourceConditionalAccumulator"]  # TF 1.15's
        assert [op.get_attr("shared_name") for op in accum] == [b"w:0/grad_accum"]
        assert opt.get_chief_queue_runner().queue.name == "dummy_queue"
        hook = opt.make_session_run_hook(is_chief=True)
        assert isinstance(hook, SessionRunHook)


def test_too_few_init_tokens():
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        gs = tf.train.get_or_create_global_step()
        opt = SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 3,
                                    total_num_replicas=1)
        opt.minimize(tf.reduce_sum(w), global_step=gs)
        with pytest.raises(ValueError, match="Too few tokens"):
            opt.get_init_tokens_op(num_tokens=1)


def test_session_run_hook_initializes_chief():
    c = Cluster(2, replicas_to_aggregate=2)
    try:
        with c.graph.as_default():
            hook = c.opts[0].make_session_run_hook(is_chief=True)
            worker_hook = c.opts[1].make_session_run_hook(is_chief=False)
            hook.begin()
            worker_hook.begin()
        c.sess.run([c.init, c.local_init])
        hook.after_create_session(c.sess, c.coord)
        worker_hook.after_create_session(c.sess, c.coord)
        c.threads = list(c.coord._registered_threads)  # the chief queue runner's
        assert c.threads
        _run_in_threads([lambda i=i: c.sess.run(c.train_ops[i]) for i in range(2)])
        c.wait_for_step(1)
        np.testing.assert_allclose(c.sess.run(c.w), W0 - LR * (_grad(0) + _grad(1)) / 2)
    finally:
        c.stop()


def test_hook_refuses_uninitialized_model():
    c = Cluster(1, replicas_to_aggregate=1)
    try:
        with c.graph.as_default():
            hook = c.opts[0].make_session_run_hook(is_chief=True)
            hook.begin()
        with pytest.raises(RuntimeError, match="not make model ready"):
            hook.after_create_session(c.sess, c.coord)
    finally:
        c.stop()
