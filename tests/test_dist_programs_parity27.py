"""TF 1.x distributed programs from public repositories (each named above its program), reduced to
small synthetic data and run here as real ps and worker processes on free loopback ports, against
what the same programs printed under TF 1.15 (measured: tensorflow-cpu 1.15.0, its own grpc
servers, the programs run the same way). Lines that depend on timing are left out (named where
they are). Kept: devices of variables and ops, printed values, global steps, checkpoint files."""

import os
import re
import subprocess
import sys
import time

from tests.distributed.cluster_procs import _env, cluster_spec


def _run(tmp_path, code, jobs, servers=(), delay=None, timeout=60):
    """Runs ``code`` once per task of ``jobs`` (ps tasks and ``servers`` serve until killed), the
    ``delay`` task ``delay[1]`` seconds after the others; returns {(job, task): stdout} of the
    rest, each as a list of lines, and the files under the logdir."""
    spec = cluster_spec(**jobs)
    path = tmp_path / "prog.py"
    path.write_text(code)
    sp = tmp_path / "spec.json"
    sp.write_text(__import__("json").dumps(spec))
    logdir = tmp_path / "log"
    procs = {}

    def start(job, i):
        procs[(job, i)] = subprocess.Popen(
            [sys.executable, str(path), "--spec", str(sp), "--job_name", job, "--task_index",
             str(i), "--logdir", str(logdir)], cwd=str(tmp_path), env=_env(),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    tasks = [(j, i) for j, n in jobs.items() for i in range(n)]
    try:
        for t in tasks:
            if not delay or t != delay[0]:
                start(*t)
        if delay:
            time.sleep(delay[1])
            start(*delay[0])
        out = {}
        for t, p in procs.items():
            if t[0] == "ps" or t in servers:
                continue
            o, e = p.communicate(timeout=timeout)
            assert p.returncode == 0, f"{t} failed:\n{o}\n{e[-3000:]}"
            out[t] = o.splitlines()
        files = sorted(os.path.relpath(os.path.join(r, f), logdir)
                       for r, _, fs in os.walk(logdir) for f in fs)
        return out, [re.sub(r"tfevents\.\d+\.[^/]*$", "tfevents", f) for f in files]
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        for p in procs.values():
            p.wait(10)


# tmulc18/Distributed-TensorFlow-Guide Distributed-Setup/dist_setup_sup.py (reduced: seeded, 50 steps)
P02 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
import os
cluster = tf.train.ClusterSpec(SPEC)
if FLAGS.job_name == 'ps':
    server = tf.train.Server(cluster, job_name="ps", task_index=FLAGS.task_index)
    server.join()
else:
    is_chief = (FLAGS.task_index == 0)
    server = tf.train.Server(cluster, job_name="worker", task_index=FLAGS.task_index)
    tf.set_random_seed(7)
    with tf.device('/cpu:0'):
        a = tf.Variable(tf.truncated_normal(shape=[2]), dtype=tf.float32)
        b = tf.Variable(tf.truncated_normal(shape=[2]), dtype=tf.float32)
        c = a + b
        target = tf.constant(100., shape=[2], dtype=tf.float32)
        loss = tf.reduce_mean(tf.square(c - target))
        opt = tf.train.GradientDescentOptimizer(.0001).minimize(loss)
    print(a.device, c.device, opt.device)
    sv = tf.train.Supervisor(logdir=FLAGS.logdir, is_chief=is_chief, save_model_secs=30)
    sess = sv.prepare_or_wait_for_session(server.target)
    for i in range(50):
        if sv.should_stop():
            break
        sess.run(opt)
        if i % 10 == 0:
            r = sess.run(c)
            print(r)
    print(sess.run([a, b]))
    sv.stop()
    print(sorted(os.listdir(FLAGS.logdir)))
'''

# tmulc18/Distributed-TensorFlow-Guide DOWNPOUR-Easy/DOWNPOUR.py (reduced: one worker, lr*(task+1), 6 steps)
P03 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
import os
cluster = tf.train.ClusterSpec(SPEC)
n_pss = len(SPEC['ps'])

def assign_global_to_local(g2l):
    r = [tf.assign(g2l[v], v) for v in g2l.keys()]
    with tf.control_dependencies(r):
        return tf.no_op()

def assign_local_to_global(l2g):
    r = [tf.assign(l2g[v], v) for v in l2g.keys()]
    with tf.control_dependencies(r):
        return tf.no_op()

def create_global_variables():
    l2g, g2l = {}, {}
    with tf.device('/job:ps/task:0'):
        for v in tf.local_variables():
            v_g = tf.get_variable('g/' + v.op.name, shape=v.shape, dtype=v.dtype, trainable=True,
                                  collections=[tf.GraphKeys.GLOBAL_VARIABLES,
                                               tf.GraphKeys.TRAINABLE_VARIABLES])
            l2g[v] = v_g
            g2l[v_g] = v
    return l2g, g2l

if FLAGS.job_name == 'ps':
    tf.train.Server(cluster, job_name="ps", task_index=FLAGS.task_index).join()
else:
    is_chief = FLAGS.task_index == 0
    server = tf.train.Server(cluster, job_name="worker", task_index=FLAGS.task_index)
    with tf.device("/job:worker/replica:0/task:%d" % FLAGS.task_index):
        a = tf.Variable(tf.constant(0., shape=[2]), dtype=tf.float32,
                        collections=[tf.GraphKeys.LOCAL_VARIABLES])
        b = tf.Variable(tf.constant(0., shape=[2]), dtype=tf.float32,
                        collections=[tf.GraphKeys.LOCAL_VARIABLES])
        c = a + b
        local_step = tf.Variable(0, dtype=tf.int32, trainable=False, name='local_step',
                                 collections=['local_non_trainable'])
        lr = .01
        loptimizer = tf.train.GradientDescentOptimizer(lr * (FLAGS.task_index + 1))
        target = tf.constant(100., shape=[2], dtype=tf.float32)
        loss = tf.reduce_mean(tf.square(c - target))
        grad_list = []
        for t in range(3):
            if t != 0:
                with tf.control_dependencies([opt_local]):
                    grads, varss = zip(*loptimizer.compute_gradients(loss, var_list=tf.local_variables()))
            else:
                grads, varss = zip(*loptimizer.compute_gradients(loss, var_list=tf.local_variables()))
            grad_list.append(grads)
            opt_local = loptimizer.apply_gradients(zip(grads, varss), global_step=local_step)
        grads = tf.reduce_sum(grad_list, axis=0)
        grads = tuple([grads[i] for i in range(len(varss))])
    with tf.device(tf.train.replica_device_setter(ps_tasks=n_pss,
                   worker_device="/job:%s/task:%d" % (FLAGS.job_name, FLAGS.task_index))):
        global_step = tf.Variable(0, dtype=tf.int32, trainable=False, name='global_step')
        optimizer = tf.train.AdagradOptimizer(lr)
        local_to_global, global_to_local = create_global_variables()
        opt = optimizer.apply_gradients(zip(grads, [local_to_global[v] for v in varss]),
                                        global_step=global_step)
        with tf.control_dependencies([opt]):
            assign_locals = assign_global_to_local(global_to_local)
        grab_global_init = assign_global_to_local(global_to_local)
        assign_global = assign_local_to_global(local_to_global)
        init = tf.global_variables_initializer()
        init_local = tf.variables_initializer(tf.local_variables() + tf.get_collection('local_non_trainable'))
    print([v.op.name + '@' + v.device for v in tf.global_variables()])
    print(grads[0].device, opt.device, assign_locals.device)
    stop_hook = tf.train.StopAtStepHook(last_step=6)
    scaff = tf.train.Scaffold(init_op=init, local_init_op=[init_local])
    sess = tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                             scaffold=scaff, hooks=[stop_hook],
                                             save_checkpoint_secs=1, checkpoint_dir=FLAGS.logdir)
    if is_chief:
        sess.run(assign_global)
    print('Starting training on worker %d' % FLAGS.task_index)
    sess.run(grab_global_init)
    while not sess.should_stop():
        _, _, r, gs, ls = sess.run([opt, assign_locals, c, global_step, local_step])
        print(r, "global step: " + str(gs), "worker: " + str(FLAGS.task_index), "local step: " + str(ls))
    print('Done', FLAGS.task_index)
    sess.close()
    print('Session from worker %d closed cleanly' % FLAGS.task_index)
    print(sorted(f for f in os.listdir(FLAGS.logdir) if 'tfevents' not in f))
'''

# ischlag/distributed-tensorflow-example example.py (reduced: synthetic data, 1 worker, 2 epochs)
P04 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
import numpy as np, os, time
cluster_spec = tf.train.ClusterSpec(SPEC)
server = tf.train.Server(cluster_spec, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
rng = np.random.RandomState(0)
X = rng.rand(64, 20).astype(np.float32)
Y = np.eye(4, dtype=np.float32)[rng.randint(0, 4, 64)]

def dense(input_tensor, output_dim, activation=None, name="dense"):
    input_dim = int(input_tensor.get_shape()[1])
    with tf.variable_scope(name):
        W = tf.Variable(tf.random_normal((input_dim, output_dim)), dtype=tf.float32, name='W')
        b = tf.Variable(tf.random_normal((output_dim,)), dtype=tf.float32, name='b')
        output = tf.add(tf.matmul(input_tensor, W), b)
        if activation is not None:
            output = activation(output)
    return output

if FLAGS.job_name == 'ps':
    server.join()
else:
    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % FLAGS.task_index, cluster=cluster_spec)):
        global_step = tf.get_variable('global_step', [], initializer=tf.constant_initializer(0),
                                      trainable=False)
        with tf.name_scope('input'):
            input_features = tf.placeholder(tf.float32, shape=(None, 20), name="features")
            input_target = tf.placeholder(tf.float32, shape=(None, 4), name="target")
        tf.set_random_seed(1)
        x = dense(input_features, output_dim=8, activation=tf.nn.sigmoid, name="Dense_1")
        y = dense(x, output_dim=4, activation=tf.nn.softmax, name="Dense_2")
        with tf.name_scope('cross_entropy'):
            cross_entropy = tf.reduce_mean(-tf.reduce_sum(input_target * tf.log(y), reduction_indices=[1]))
        with tf.name_scope('train'):
            grad_op = tf.train.GradientDescentOptimizer(0.05)
            train_op = grad_op.minimize(cross_entropy, global_step=global_step)
        with tf.name_scope('Accuracy'):
            correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(input_target, 1))
            accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        tf.summary.scalar("cost", cross_entropy)
        tf.summary.scalar("accuracy", accuracy)
        summary_op = tf.summary.merge_all()
        init_op = tf.global_variables_initializer()
        print("Variables initialized ...")
    print(global_step.dtype, global_step.device, train_op.device, y.device, summary_op.device)
    sv = tf.train.Supervisor(is_chief=(FLAGS.task_index == 0), global_step=global_step, init_op=init_op)
    with sv.prepare_or_wait_for_session(server.target) as S:
        writer = tf.summary.FileWriter(FLAGS.logdir, graph=tf.get_default_graph())
        for epoch in range(2):
            for i in range(4):
                _, cost, summary, step = S.run([train_op, cross_entropy, summary_op, global_step],
                    feed_dict={input_features: X[i*16:(i+1)*16], input_target: Y[i*16:(i+1)*16]})
                writer.add_summary(summary, step)
                print("Step: %d," % (step + 1), " Epoch: %2d," % (epoch + 1),
                      " Batch: %3d of %3d," % (i + 1, 4), " Cost: %.6f," % cost)
        print("Test-Accuracy: %2.2f" % S.run(accuracy, feed_dict={input_features: X, input_target: Y}))
        print("Final Cost: %.6f" % cost)
        writer.close()
    sv.stop()
    print("done")
'''

# boyuanf/Simple_Tensorflow_distributed_AWS variable_sharding.py (reduced: loopback, no log_device_placement)
P05 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
cluster_spec = SPEC
if FLAGS.job_name == 'ps' or FLAGS.task_index == 1:
    tf.train.Server(tf.train.ClusterSpec(SPEC), job_name=FLAGS.job_name, task_index=FLAGS.task_index).join()
else:
    server = tf.train.Server(tf.train.ClusterSpec(SPEC), job_name="worker", task_index=0)
    with tf.device(tf.train.replica_device_setter(cluster=cluster_spec)):
        v1 = tf.Variable(1.0)
        v2 = tf.Variable(2.0)
        t = tf.get_variable("t", shape=[20, 20])
        q = tf.get_variable("q", shape=[20, 20])
        s = v1 + v2
        f = v1 * v2
        with tf.device("/gpu:0"):
            p1 = 2 * s
            with tf.device("/task:1"):
                p2 = 3 * s
    init = tf.global_variables_initializer()
    with tf.Session("grpc://" + SPEC["ps"][0], config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        sess.run(init)
        print("s: ", s.eval())
        print("p1: ", p1.eval())
        print("p2: ", p2.eval())
        for n, o in [("v1", v1), ("v2", v2), ("t", t), ("q", q), ("s", s), ("f", f), ("p1", p1), ("p2", p2), ("init", init)]:
            print(n, "device: ", o.device)
        print("t.initializer", t.initializer.device, "v1.read", v1.value().device)
'''

# thumbe3/Distributed_TensorFlow part1/Task_Sync/syncTF.py (reduced: synthetic data, 6 iterations)
P06 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
import numpy as np, os
try:
    from tensorflow.python.training.summary_io import SummaryWriterCache
except ImportError:
    SummaryWriterCache = tf.summary.FileWriterCache

def variable_summaries(var):
    with tf.name_scope('summaries'):
        mean = tf.reduce_mean(var)
        tf.summary.scalar('mean', mean)
        with tf.name_scope('stddev'):
            stddev = tf.sqrt(tf.reduce_mean(tf.square(var - mean)))
        tf.summary.scalar('stddev', stddev)
        tf.summary.scalar('max', tf.reduce_max(var))
        tf.summary.scalar('min', tf.reduce_min(var))
        tf.summary.histogram('histogram', var)

clusterinfo = tf.train.ClusterSpec(SPEC)
server = tf.train.Server(clusterinfo, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
rng = np.random.RandomState(FLAGS.task_index)
DX = rng.rand(40, 12).astype(np.float32)
DY = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 40)]
if FLAGS.job_name == 'ps':
    server.join()
else:
    with tf.device(tf.train.replica_device_setter(worker_device='/job:worker/task:%d' % FLAGS.task_index,
                                                  cluster=clusterinfo)):
        x = tf.placeholder(tf.float32, [None, 12], name='input')
        y = tf.placeholder(tf.float32, [None, 3], name='label')
        with tf.name_scope("Weights"):
            W = tf.Variable(tf.zeros([12, 3]), name='Weights')
            variable_summaries(W)
        with tf.name_scope("Bias"):
            b = tf.Variable(tf.zeros([3]), name='Bias')
            variable_summaries(b)
        y_pred = tf.nn.softmax(tf.matmul(x, W) + b, name='softmax_output')
        loss = tf.reduce_mean(-tf.reduce_sum(y * tf.log(y_pred), reduction_indices=1))
        tf.summary.scalar('Loss', loss)
        with tf.name_scope('Model_Training'):
            global_step = tf.train.get_or_create_global_step()
            optimizer = tf.train.GradientDescentOptimizer(0.5)
            optimizer = tf.train.SyncReplicasOptimizer(optimizer, replicas_to_aggregate=clusterinfo.num_tasks('worker'),
                                                       total_num_replicas=clusterinfo.num_tasks('worker'))
            grads_and_vars = optimizer.compute_gradients(loss)
            train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
        correct_pred = tf.equal(tf.argmax(y, 1), tf.argmax(y_pred, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
        tf.summary.scalar('Accuracy', accuracy)
        init = tf.initialize_all_variables()
        summary_var = tf.summary.merge_all()
        writer = SummaryWriterCache.get(FLAGS.logdir)
        config = tf.ConfigProto(device_filters=['/job:ps', '/job:worker/task:%d' % FLAGS.task_index])
        is_chief = FLAGS.task_index == 0
        hook = optimizer.make_session_run_hook(is_chief, num_tokens=0)
        saver = tf.train.Saver()
        print(global_step.device, train_op.device, [v.op.name for v in tf.local_variables()])
        mts = tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief and FLAGS.job_name == 'worker',
                                                config=config, hooks=[hook])
        iterations = 0
        with mts as sess:
            while iterations < 6:
                sess.run(train_op, feed_dict={x: DX[iterations*5:(iterations+1)*5], y: DY[iterations*5:(iterations+1)*5]})
                if iterations % 2 == 0:
                    summary, acc, l = sess.run([summary_var, accuracy, loss], feed_dict={x: DX, y: DY})
                    writer.add_summary(summary, iterations)
                    print("it %d loss %.6f acc %.4f" % (iterations, l, acc))
                iterations += 1
            print("Accuracy obtained %f" % acc)
            print("W", sess.run(W).sum(), "gs", sess.run(global_step))
'''

# kzhang28/Distributed-TensorFlow-Training-Examples mnist_softmax_distibuted_placeholder.py (reduced)
P07 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
# MODE=replica_id keeps the program's replica_id= keyword (an error in TF 1.15)
import numpy as np, os, sys, time
MODE = os.environ.get("MODE", "")
cluster = tf.train.ClusterSpec(SPEC)
server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
if FLAGS.job_name == "ps":
    server.join()
else:
    is_chief = (FLAGS.task_index == 0)
    replicas_to_aggregate = 1
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, 16])
        W = tf.Variable(tf.zeros([16, 4]))
        b = tf.Variable(tf.zeros([4]))
        y = tf.matmul(x, W) + b
        y_ = tf.placeholder(tf.float32, [None, 4])
        cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y))
        global_step = tf.Variable(0)
        optimizer = tf.train.GradientDescentOptimizer(0.1)
        kw = dict(replica_id=FLAGS.task_index) if MODE == "replica_id" else {}
        try:
            optimizer = tf.train.SyncReplicasOptimizer(optimizer, replicas_to_aggregate=replicas_to_aggregate,
                                                       total_num_replicas=1, use_locking=True,
                                                       name="Softmax_MNIST", **kw)
        except TypeError as e:
            print("TypeError", e)
            raise SystemExit(0)
        train_step = optimizer.minimize(cross_entropy, global_step=global_step)
        chief_queue_runner = optimizer.get_chief_queue_runner()
        init_op = tf.initialize_all_variables()
    print(global_step.device, global_step.dtype, [v.op.name for v in tf.local_variables()],
          chief_queue_runner.name, [o.name for o in chief_queue_runner.enqueue_ops])
    sv = tf.train.Supervisor(is_chief=is_chief, logdir=FLAGS.logdir, init_op=init_op, summary_op=None,
                             saver=None, global_step=global_step, save_model_secs=100000)
    rng = np.random.RandomState(0)
    DX = rng.rand(200, 16).astype(np.float32)
    DY = np.eye(4, dtype=np.float32)[rng.randint(0, 4, 200)]
    with sv.managed_session(server.target) as sess:
        sv.start_queue_runners(sess, [chief_queue_runner])
        step = 0
        print("[INFO] Training begins!")
        i = 0
        while not sv.should_stop() and step < 8:
            _, step = sess.run([train_step, global_step], feed_dict={x: DX[i*20:(i+1)*20], y_: DY[i*20:(i+1)*20]})
            i += 1
            if step % 2 == 0:
                ce = sess.run(cross_entropy, feed_dict={x: DX, y_: DY})
                print("Worker:%d global step:%d, cross_entropy:%f" % (FLAGS.task_index, step, ce))
        sys.stdout.flush()
        os._exit(0)  # (sv.stop() waits out stop_grace_secs for the chief queue runner, in TF too)
'''

# JPLeoRX/tensorflow-distributed-examples Distributed/hello_world_1_cluster_1_job_2_tasks.py (ports free)
P09 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
if FLAGS.task_index == 1:
    raise SystemExit(0)
message1 = tf.constant("Hello, distributed TensorFlow! This is sample message 1")
message2 = tf.constant("Hello, distributed TensorFlow! This is sample message 2")
jobName = "SampleJobName"
cluster = tf.train.ClusterSpec({jobName: SPEC["worker"]})
server1 = tf.train.Server(cluster, job_name=jobName, task_index=0)
server2 = tf.train.Server(cluster, job_name=jobName, task_index=1)
session1 = tf.compat.v1.Session(server1.target)
session2 = tf.compat.v1.Session(server2.target)
print(session1.run(message1))
print(session2.run(message2))
print([d.name for d in session1.list_devices()])
print(server1.server_def.job_name, server1.server_def.task_index, server2.server_def.task_index, server1.server_def.protocol)
try:
    tf.train.Server(cluster, job_name=jobName, task_index=0)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:200])
try:
    tf.train.Server(cluster, job_name=jobName, task_index=5)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0][:200])
exit()
'''


def test_tmulc18_supervisor_with_logdir(tmp_path):
    # TF 1.15 (measured): the seeded truncated_normal values, 50 steps of SGD on the worker's
    # own CPU, and the chief Supervisor's logdir (one checkpoint at sv.stop, the graph, events)
    out, files = _run(tmp_path, P02, {"ps": 1, "worker": 1})
    lines = out[("worker", 0)]
    assert lines[:-1] == [
        '/device:CPU:0 /device:CPU:0 /device:CPU:0',
        '[ 0.5034392  -0.97202235]',
        '[ 0.70225334 -0.77026   ]',
        '[ 0.9006702  -0.56890076]',
        '[ 1.0986905  -0.36794388]',
        '[ 1.2963151  -0.16738862]',
        '[array([ 1.4398557 , -0.46429604], dtype=float32), array([0.03398398, 0.4770646 ], dtype=float32)]',
    ]
    assert files == ["checkpoint", "events.out.tfevents", "graph.pbtxt",
                     "model.ckpt.data-00000-of-00001", "model.ckpt.index", "model.ckpt.meta"]

def test_tmulc18_downpour_local_and_ps_variables(tmp_path):
    # TF 1.15 (measured): where DOWNPOUR's variables and ops land, and the chief's checkpoints
    # (save_checkpoint_secs=1: the first at step 0, the last at close). The per-step lines fetch
    # c and the global step beside their updates: racy in TF itself (two TF runs differ)
    out, _ = _run(tmp_path, P03, {"ps": 1, "worker": 1})
    lines = out[("worker", 0)]
    assert lines[:3] == [
        "['global_step@/job:ps/task:0', 'g/Variable@/job:ps/task:0', 'g/Variable_1@/job:ps/task:0', 'g/Variable/Adagrad@/job:ps/task:0', 'g/Variable_1/Adagrad@/job:ps/task:0']",
        '/job:worker/replica:0/task:0 /job:ps/task:0 /job:worker/task:0',
        'Starting training on worker 0',
    ]
    assert len(lines) == 12 and lines[-3:-1] == ["Done 0", "Session from worker 0 closed cleanly"]
    assert [ln.split(" global step")[1].split("local step: ")[1] for ln in lines[3:9]] == [
        "2", "4", "6", "8", "10", "12"]
    assert lines[-1] == "['checkpoint', 'graph.pbtxt', 'model.ckpt-0.data-00000-of-00001', 'model.ckpt-0.index', 'model.ckpt-0.meta', 'model.ckpt-6.data-00000-of-00001', 'model.ckpt-6.index', 'model.ckpt-6.meta']"

def test_ischlag_supervisor_worker_started_before_its_ps(tmp_path):
    # TF 1.15 (measured, the ps started 4 s after the worker: its session waits for the ps):
    # the seeded dense net's costs, its devices, the global step's dtype; AvgTime left out
    out, files = _run(tmp_path, P04, {"ps": 1, "worker": 1}, delay=(("ps", 0), 4))
    assert out[("worker", 0)] == [
        'Variables initialized ...',
        "<dtype: 'float32_ref'> /job:ps/task:0 /job:ps/task:0 /job:worker/task:0 /job:worker/task:0",
        'Step: 1,  Epoch:  1,  Batch:   1 of   4,  Cost: 2.327964,',
        'Step: 2,  Epoch:  1,  Batch:   2 of   4,  Cost: 2.426109,',
        'Step: 3,  Epoch:  1,  Batch:   3 of   4,  Cost: 2.326715,',
        'Step: 4,  Epoch:  1,  Batch:   4 of   4,  Cost: 2.643799,',
        'Step: 5,  Epoch:  2,  Batch:   1 of   4,  Cost: 2.023619,',
        'Step: 6,  Epoch:  2,  Batch:   2 of   4,  Cost: 2.042648,',
        'Step: 7,  Epoch:  2,  Batch:   3 of   4,  Cost: 2.104893,',
        'Step: 8,  Epoch:  2,  Batch:   4 of   4,  Cost: 2.415809,',
        'Test-Accuracy: 0.34',
        'Final Cost: 2.415809',
        'done',
    ]
    assert files == ["events.out.tfevents"]

def test_boyuanf_variable_sharding_devices(tmp_path):
    # TF 1.15 (measured): replica_device_setter over two ps tasks (round robin), the device
    # merge of "/gpu:0" and "/task:1" inside it, and the values over soft placement
    out, _ = _run(tmp_path, P05, {"ps": 2, "worker": 2}, servers=[("worker", 1)])
    assert out[("worker", 0)] == [
        's:  3.0',
        'p1:  6.0',
        'p2:  9.0',
        'v1 device:  /job:ps/task:0',
        'v2 device:  /job:ps/task:1',
        't device:  /job:ps/task:0',
        'q device:  /job:ps/task:1',
        's device:  /job:worker',
        'f device:  /job:worker',
        'p1 device:  /job:worker/device:GPU:0',
        'p2 device:  /job:worker/task:1/device:GPU:0',
        'init device:  ',
        't.initializer /job:ps/task:0 v1.read /job:ps/task:0',
    ]

def test_thumbe3_sync_replicas_without_initial_tokens(tmp_path):
    # TF 1.15 (measured): SyncReplicasOptimizer (2 of 2, num_tokens=0: the workers step in
    # lockstep) under device_filters; each worker's losses on its own data and the shared
    # weights. (TF's chief then waits out stop_grace_period_secs, 120 s, at close for its queue
    # runner blocked in take_grad; tideflow's closes at once.)
    out, _ = _run(tmp_path, P06, {"ps": 1, "worker": 2}, delay=(("worker", 1), 5))
    assert out[("worker", 0)] == [
        "/job:ps/task:0 /job:worker/task:0 ['Model_Training/sync_rep_local_step']",
        'it 0 loss 1.123166 acc 0.3250',
        'it 2 loss 1.071002 acc 0.4500',
        'it 4 loss 1.074215 acc 0.4500',
        'Accuracy obtained 0.450000',
        'W 5.5879354e-08 gs 6',
    ]
    assert out[("worker", 1)] == [
        "/job:ps/task:0 /job:worker/task:1 ['Model_Training/sync_rep_local_step']",
        'it 0 loss 1.102835 acc 0.3750',
        'it 2 loss 1.084121 acc 0.3500',
        'it 4 loss 1.112658 acc 0.3250',
        'Accuracy obtained 0.325000',
        'W 5.5879354e-08 gs 6',
    ]

def test_kzhang28_supervisor_starts_the_chief_queue_runner(tmp_path):
    # TF 1.15 (measured): SyncReplicasOptimizer(1 of 1) under a Supervisor that starts the
    # chief queue runner itself; the global step fetched beside the train op is the one before
    out, _ = _run(tmp_path, P07, {"ps": 1, "worker": 1})
    assert out[("worker", 0)] == [
        "/job:ps/task:0 <dtype: 'int32_ref'> ['sync_rep_local_step'] dummy_queue ['sync_token_q_EnqueueMany']",
        '[INFO] Training begins!',
        'Worker:0 global step:0, cross_entropy:1.385608',
        'Worker:0 global step:2, cross_entropy:1.385719',
        'Worker:0 global step:4, cross_entropy:1.384953',
        'Worker:0 global step:6, cross_entropy:1.385216',
        'Worker:0 global step:8, cross_entropy:1.384107',
    ]

def test_jpleorx_two_servers_in_one_process(tmp_path):
    # TF 1.15 (measured): two tasks' servers in one process, a session on each, and the errors of
    # a third server on a port in use and of one for a task the job lacks
    out, _ = _run(tmp_path, P09, {"worker": 2})
    assert out[("worker", 0)] == [
        "b'Hello, distributed TensorFlow! This is sample message 1'",
        "b'Hello, distributed TensorFlow! This is sample message 2'",
        "['/job:SampleJobName/replica:0/task:0/device:CPU:0', '/job:SampleJobName/replica:0/task:0/device:XLA_CPU:0', '/job:SampleJobName/replica:0/task:1/device:CPU:0', '/job:SampleJobName/replica:0/task:1/device:XLA_CPU:0']",
        'SampleJobName 0 1 grpc',
        'UnknownError Could not start gRPC server',
        'InvalidArgumentError Task 5 was not defined in job "SampleJobName"',
    ]
