"""Patterns of TF 1.x distributed programs (the how-to trainer, mnist_replica, in-graph towers),
each run as real server and client processes on loopback ports (tests/distributed/cluster_procs)."""

import os

import numpy as np
import pytest

from tests.distributed.cluster_procs import Cluster, cluster_spec, run_client

# Fetches a variable of the ps beside its own update, as mnist_replica.py prints its steps
# (`_, step = sess.run([train_step, global_step])`). Under real TF 2.21 (compat.v1, its own
# grpc servers) the global step printed after the k-th step is k-1: the master receives a tensor
# of another task over the wire when it is produced, before the step's update. A variable of the
# master's own task, fetched the same way, is read after the update (its buffer is aliased), as
# in a local session.
FETCH_BESIDE_UPDATE = r"""
import json, sys
import tideflow as tf
spec = json.load(open(sys.argv[1]))
with tf.device("/job:ps/task:0"):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(2.0, name="w")
with tf.device("/job:worker/task:0"):
    local = tf.Variable(0, dtype=tf.int64, name="local")
    loss = tf.square(w)
train = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=gs)
with tf.control_dependencies([train]):
    bump = tf.assign_add(local, 1)
with tf.Session("grpc://" + spec["worker"][0]) as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        _, g, wv, b, lv = sess.run([train, gs, w, bump, local])
        print("STEP", g, wv, lv)
    print("AFTER", sess.run(gs), sess.run(w))
"""


def test_fetch_from_ps_beside_its_update_reads_it_before(tmp_path):
    spec = cluster_spec(ps=1, worker=1)
    c = Cluster(spec, tmp_path).start_all()
    try:
        out = run_client(FETCH_BESIDE_UPDATE, c.path, timeout=60)
    finally:
        c.stop()
    steps = [line.split()[1:] for line in out.splitlines() if line.startswith("STEP")]
    w = 2.0
    for k, (g, wv, lv) in enumerate(steps):
        assert int(g) == k  # the ps's global step before this step's increment
        assert float(wv) == pytest.approx(w)  # w before this step's update
        assert int(lv) == k + 1  # the master's own task: after the update, as a local session
        w -= 0.25 * 2 * w
    assert out.splitlines()[-1].split()[1:] == ["3", repr(float(np.float32(w)))]


# In-graph replication: one client, towers on /job:worker/task:i, variables placed on the ps
# tasks by GreedyLoadBalancingStrategy(byte_size_load_fn), a partitioned variable, averaged
# gradients (dense and IndexedSlices), a sharded checkpoint. Placement and the checkpoint's
# names are those real TF 2.21 gave for the same graph (its greedy rule written out, as contrib
# is gone there).
IN_GRAPH = r"""
import json, os, sys
import numpy as np
import tideflow as tf
spec = json.load(open(sys.argv[1]))
nps, nw = len(spec["ps"]), len(spec["worker"])
strategy = tf.contrib.training.GreedyLoadBalancingStrategy(nps, tf.contrib.training.byte_size_load_fn)
with tf.device(tf.train.replica_device_setter(ps_tasks=nps, ps_strategy=strategy)):
    big = tf.get_variable("big", [100, 50], initializer=tf.ones_initializer())
    small = tf.get_variable("small", [10], initializer=tf.ones_initializer())
    emb = tf.get_variable("emb", [12, 4], initializer=tf.ones_initializer(),
                          partitioner=tf.fixed_size_partitioner(nps))
    gs = tf.train.get_or_create_global_step()
for v in [big, small, gs] + list(emb):
    print("DEV", v.op.name, v.device)
opt = tf.train.GradientDescentOptimizer(0.1)
grads = []
for i in range(nw):
    with tf.device("/job:worker/task:%d" % i):
        ids = tf.constant(json.loads(sys.argv[2])[i], dtype=tf.int64)
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, ids)) * tf.reduce_sum(small) + tf.reduce_mean(big)
        grads.append(opt.compute_gradients(loss, var_list=[small] + list(emb)))
avg = []
for gv in zip(*grads):
    gl = [g for g, _ in gv]
    if isinstance(gl[0], tf.IndexedSlices):
        g = tf.IndexedSlices(tf.concat([x.values for x in gl], 0) / nw,
                             tf.concat([x.indices for x in gl], 0), gl[0].dense_shape)
    else:
        g = tf.add_n(gl) / nw
    avg.append((g, gv[0][1]))
train = opt.apply_gradients(avg, global_step=gs)
with tf.Session("grpc://" + spec["worker"][0]) as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    print("SMALL", json.dumps(sess.run(small).tolist()))
    print("EMB", json.dumps(sess.run(tf.concat(list(emb), 0)).tolist()))
    d = sys.argv[3]
    os.makedirs(d)
    tf.train.Saver(sharded=True).save(sess, os.path.join(d, "model"), global_step=gs)
print("NAMES", json.dumps(sorted(n for n, _ in tf.train.list_variables(d))))
"""


def test_in_graph_towers_greedy_placement_partitioned_variable(tmp_path):
    import json

    spec = cluster_spec(ps=2, worker=2)
    ids = [[0, 3, 3, 7], [1, 3, 11, 11]]
    c = Cluster(spec, tmp_path).start_all()
    try:
        out = run_client(IN_GRAPH, c.path, json.dumps(ids), tmp_path / "ckpt", timeout=60)
    finally:
        c.stop()
    lines = dict(line.split(" ", 1) for line in out.splitlines() if not line.startswith("DEV"))
    dev = dict(line.split()[1:] for line in out.splitlines() if line.startswith("DEV"))
    # greedy by bytes: big (20000 B) takes ps 0, everything after it fits on the lighter ps 1
    assert dev == {"big": "/job:ps/task:0", "small": "/job:ps/task:1",
                   "global_step": "/job:ps/task:1", "emb/part_0": "/job:ps/task:1",
                   "emb/part_1": "/job:ps/task:1"}
    # NumPy: loss_i = sum(emb[ids_i]) * sum(small) + mean(big), gradients averaged over towers
    emb = np.ones((12, 4))
    small = np.ones(10)
    g_small = np.mean([emb[i].sum() for i in ids]) * np.ones(10)
    g_emb = np.zeros((12, 4))
    for i in ids:  # embedding_lookup's "mod" strategy: id k is row k // 2 of part k % 2
        rows = [k // 2 + 6 * (k % 2) for k in i]
        np.add.at(g_emb, rows, small.sum() / len(ids))
    np.testing.assert_allclose(json.loads(lines["SMALL"]), small - 0.1 * g_small, rtol=1e-6)
    np.testing.assert_allclose(json.loads(lines["EMB"]), emb - 0.1 * g_emb, rtol=1e-6)
    assert json.loads(lines["NAMES"]) == ["big", "emb", "global_step", "small"]


# mnist_replica.py's sync mode: SyncReplicasOptimizer with replicas_to_aggregate < workers
# (backup workers), tf.train.Supervisor with a logdir, local_init_op/ready_for_local_init_op,
# the chief's queue runner and init tokens, device_filters. Each worker is its own process
# (its own in-process server), the ps a server process. The workers keep training once they
# report (a sync step needs two live replicas, as under TF) until the test ends them.
SYNC_WORKER = r"""
import json, sys
import numpy as np
import tideflow as tf
spec = json.load(open(sys.argv[1])); task = int(sys.argv[2]); logdir = sys.argv[3]
cluster = tf.train.ClusterSpec(spec)
server = tf.train.Server(cluster, job_name="worker", task_index=task)
is_chief = task == 0
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task,
                                              cluster=cluster)):
    gs = tf.Variable(0, name="global_step", trainable=False)
    w = tf.Variable(tf.zeros([3, 1]), name="w")
    x = tf.placeholder(tf.float32, [None, 3])
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                         replicas_to_aggregate=2, total_num_replicas=3)
    train = opt.minimize(loss, global_step=gs)
    local_init = opt.chief_init_op if is_chief else opt.local_step_init_op
    tokens, chief_qr = opt.get_init_tokens_op(), opt.get_chief_queue_runner()
    sv = tf.train.Supervisor(is_chief=is_chief, logdir=logdir if is_chief else None,
                             init_op=tf.global_variables_initializer(),
                             local_init_op=local_init,
                             ready_for_local_init_op=opt.ready_for_local_init_op,
                             recovery_wait_secs=0.2, global_step=gs, save_model_secs=0)
config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task])
sess = sv.prepare_or_wait_for_session(server.target, config=config)
if is_chief:
    sess.run(tokens)
    sv.start_queue_runners(sess, [chief_qr])
n, reported = 0, False
while True:
    _, step, wv = sess.run([train, gs, w], {x: np.ones((4, 3), np.float32)})
    n += 1
    if step >= 6 and not reported:
        reported = True
        if is_chief:
            sv.saver.save(sess, sv.save_path, global_step=gs)
        print("DONE", task, n, step, json.dumps(wv.ravel().tolist()), flush=True)
"""


def test_sync_replicas_backup_worker_supervisor(tmp_path):
    import json
    import subprocess
    import sys
    import threading
    import time

    import tideflow as tf
    from tests.distributed.cluster_procs import _env

    spec = cluster_spec(ps=1, worker=3)
    c = Cluster(spec, tmp_path).start_all(skip=[("worker", i) for i in range(3)])
    logdir = tmp_path / "logdir"
    procs = []
    for i in range(3):
        with open(tmp_path / f"err{i}.txt", "w") as err:
            procs.append(subprocess.Popen(
                [sys.executable, "-c", SYNC_WORKER, c.path, str(i), str(logdir)], env=_env(),
                stdout=subprocess.PIPE, stderr=err, text=True))
    done = {}

    def read(i, p):
        for line in p.stdout:
            if line.startswith("DONE"):
                done[i] = line.split(None, 4)

    readers = [threading.Thread(target=read, args=(i, p), daemon=True)
               for i, p in enumerate(procs)]
    for t in readers:
        t.start()
    try:
        end = time.monotonic() + 45
        while len(done) < 3 and time.monotonic() < end and all(p.poll() is None for p in procs):
            time.sleep(0.1)
    finally:
        for p in procs:
            p.kill()
            p.wait(10)
        c.stop()
    assert len(done) == 3, (done, [p.returncode for p in procs],
                            (tmp_path / "err0.txt").read_text()[-2000:])
    # each global step applies the mean of 2 (equal) gradients of mean((x w - 1)^2), x = ones:
    # w's value after k steps depends only on k; it was fetched with global step >= 6 (its value
    # before that step's update: a fetch from the ps, see the first test)
    values, ref = [], np.zeros(3)
    for _ in range(300):
        values.append(ref)
        ref = ref - 0.1 * 2 * (ref.sum() - 1.0)
    for d in done.values():
        step, wv = int(d[3]), json.loads(d[4])
        assert step >= 6
        assert any(np.allclose(wv, v, rtol=1e-5) for v in values[5:]), (wv, values[:10])
    files = os.listdir(logdir)
    assert "checkpoint" in files and "graph.pbtxt" in files
    assert sorted(n for n, _ in tf.train.list_variables(str(logdir))) == ["global_step", "w"]


# The how-to trainer's MonitoredTrainingSession(master=server.target, is_chief=...), with
# device_filters so that a worker needs no other worker: the chief trains alone and exits, then
# a non-chief worker process starts, finds the variables the ps kept (no initialization, no
# chief) and trains on from there.
HOWTO_WORKER = r"""
import json, sys
import tideflow as tf
spec = json.load(open(sys.argv[1])); task = int(sys.argv[2]); last = int(sys.argv[3])
cluster = tf.train.ClusterSpec(spec)
server = tf.train.Server(cluster, job_name="worker", task_index=task)
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % task,
                                              cluster=cluster)):
    w = tf.get_variable("w", [], initializer=tf.constant_initializer(1.0))
    gs = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.square(w), global_step=gs)
config = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % task])
with tf.train.MonitoredTrainingSession(master=server.target, is_chief=task == 0, config=config,
                                       hooks=[tf.train.StopAtStepHook(last_step=last)]) as sess:
    n = 0
    while not sess.should_stop():
        sess.run(train)
        n += 1
    print("RAN", n, repr(float(sess.run_step_fn(lambda step_context: step_context.session.run(w)))))
"""


def test_worker_joins_later_while_ps_keeps_variables(tmp_path):
    spec = cluster_spec(ps=1, worker=2)
    c = Cluster(spec, tmp_path).start_all(skip=[("worker", 0), ("worker", 1)])
    try:
        chief = run_client(HOWTO_WORKER, c.path, 0, 4, timeout=60)
        other = run_client(HOWTO_WORKER, c.path, 1, 10, timeout=60)
    finally:
        c.stop()
    n0, w0 = chief.split()[1:]
    n1, w1 = other.split()[1:]
    assert (int(n0), int(n1)) == (4, 6)  # 4 steps by the chief, the 6 others by task 1
    assert float(w0) == pytest.approx(0.8 ** 4, rel=1e-6)  # w <- w - 0.1 * 2w
    assert float(w1) == pytest.approx(0.8 ** 10, rel=1e-6)
