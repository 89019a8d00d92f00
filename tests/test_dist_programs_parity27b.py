"""More TF 1.x distributed programs from public repositories (each named above its program),
run as real ps and worker processes on free loopback ports against what they printed under
TF 1.15 (measured); the harness is test_dist_programs_parity27's."""

from tests.distributed.cluster_procs import cluster_spec
from tests.test_dist_programs_parity27 import _run

# zjj2wry/distributed-tensorflow recognition_flower/distributed/train_dataset.py (reduced: TF_CONFIG,
P08 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
# tf.data from a TFRecord file, small dense net instead of inception, 6 steps)
import json, os
import numpy as np
os.environ['TF_CONFIG'] = json.dumps({'cluster': SPEC, 'task': {'type': FLAGS.job_name, 'index': FLAGS.task_index}})
params = {'learning_rate': 0.01, 'train_steps': 6, 'batch_size': 4, 'num_epochs': 100, 'threads': 1}
rec = os.path.abspath('train.tfrecord')

def parser(record):
    features = tf.parse_single_example(record, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64)})
    image = tf.decode_raw(features['image_raw'], tf.uint8)
    image = tf.reshape(tf.cast(image, tf.float32) / 255.0, [8])
    label = tf.cast(features['label'], tf.int32)
    return image, label

def train_input_fn(path, params):
    dataset = tf.data.TFRecordDataset(path)
    dataset = dataset.map(parser).repeat(params['num_epochs'])
    dataset = dataset.batch(params['batch_size'])
    dataset = dataset.prefetch(4)
    iterator = dataset.make_one_shot_iterator()
    return iterator.get_next()

tf_config = json.loads(os.environ.get('TF_CONFIG') or '{}')
task_type = tf_config['task']['type']; task_index = tf_config['task']['index']
is_chief = task_index == 0
cluster = tf.train.ClusterSpec(tf_config['cluster'])
server = tf.train.Server(cluster, task_type, task_index)
if task_type == 'ps':
    server.join()
if task_type == 'worker':
    rng = np.random.RandomState(3)
    with tf.python_io.TFRecordWriter(rec) as w:
        for i in range(12):
            ex = tf.train.Example(features=tf.train.Features(feature={
                'image_raw': tf.train.Feature(bytes_list=tf.train.BytesList(value=[rng.randint(0, 255, 8).astype(np.uint8).tobytes()])),
                'label': tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 3]))}))
            w.write(ex.SerializeToString())
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % task_index)):
        global_step = tf.train.get_or_create_global_step()
        x, labels = train_input_fn(rec, params)
        with tf.variable_scope('fc_trainable'):
            h = tf.layers.dense(x, 6, activation=tf.nn.relu, name='dense_prelogit1',
                                kernel_initializer=tf.constant_initializer(0.1))
            logits = tf.layers.dense(h, 3, name='flower_logits', kernel_initializer=tf.constant_initializer(-0.05))
        tf.summary.histogram('logits histogram', logits)
        with tf.name_scope('train'):
            fc_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='fc_trainable')
            xentropy = tf.losses.sparse_softmax_cross_entropy(labels=tf.cast(labels, tf.int32), logits=logits)
            loss = tf.reduce_mean(xentropy)
            tf.summary.scalar('loss', loss)
            optimizer = tf.train.AdamOptimizer(params['learning_rate'])
            train_step = optimizer.minimize(loss=loss, var_list=fc_vars, global_step=global_step)
        with tf.name_scope('init_and_save'):
            init = tf.global_variables_initializer()
            saver_total = tf.train.Saver()
            merged = tf.summary.merge_all()
        print(x.device, logits.device, [v.device for v in fc_vars], train_step.device)
        config_proto = tf.ConfigProto(device_filters=['/job:ps', '/job:worker/task:%d' % task_index])
        ck = os.path.join(FLAGS.logdir, 'ck')
        hooks = [tf.train.CheckpointSaverHook(checkpoint_dir=ck, save_steps=2, saver=saver_total),
                 tf.train.SummarySaverHook(save_steps=2, summary_op=merged, output_dir=os.path.join(FLAGS.logdir, 'ev'))]
        with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, hooks=hooks,
                                               config=config_proto) as mon_sess:
            step = 0
            while not mon_sess.should_stop() and step < params['train_steps']:
                _, batch_loss, step = mon_sess.run([train_step, loss, global_step])
                if step % 2 == 0:
                    print('Worker %d: training step %d done , loss is %f' % (task_index, step, batch_loss))
        print('finished training')
        print(tf.train.latest_checkpoint(ck).replace(FLAGS.logdir, 'LOG'))
        print(sorted(tf.train.list_variables(ck)))
'''

# peerdavid/distributed-tensorflow cluster.py (in-graph replication, made runnable: 2 workers, 1 ps)
P11 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
import numpy as np
if FLAGS.job_name == 'ps' or FLAGS.task_index == 1:
    tf.train.Server(tf.train.ClusterSpec(SPEC), job_name=FLAGS.job_name, task_index=FLAGS.task_index).join()
else:
    server = tf.train.Server(tf.train.ClusterSpec(SPEC), job_name='worker', task_index=0)
    num_workers = 2
    with tf.device("/job:ps/task:0/cpu:0"):
        W = tf.Variable(tf.ones([3, 2]) * 0.5, name="W")
        b = tf.Variable(tf.zeros([2]), name="b")
        global_step = tf.train.get_or_create_global_step()
    inp = tf.constant(np.arange(24, dtype=np.float32).reshape(8, 3) / 10.0)
    lab = tf.constant(np.eye(2, dtype=np.float32)[np.arange(8) % 2])
    inputs = tf.split(inp, num_workers, 0)
    labels = tf.split(lab, num_workers, 0)
    outputs = []
    for i in range(num_workers):
        with tf.device("/job:worker/task:%d/gpu:0" % i):
            outputs.append(tf.matmul(inputs[i], W) + b)
    loss = tf.add_n([tf.losses.softmax_cross_entropy(l, o) for l, o in zip(labels, outputs)])
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
    print([o.device for o in outputs], loss.device, train.device)
    cfg = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(server.target, config=cfg) as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            print(sess.run([train, loss])[1], sess.run(global_step))
        print(sess.run(W).tolist(), sess.run(b).tolist())
'''

# kzhang28/Distributed-TensorFlow-Training-Examples tensorflow-cnn-example/cifar10_distributed.py
P12 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
# (reduced: cifar10_input-style FixedLengthRecordReader queue on a synthetic file, a small conv net,
# SyncReplicasOptimizer 1 of 1, EMA of the weights, a logger hook, StopAtStepHook)
import numpy as np, os
cluster = tf.train.ClusterSpec(SPEC)
server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
if FLAGS.job_name == "ps":
    server.join()
else:
    rng = np.random.RandomState(1)
    path = os.path.abspath("data.bin")
    recs = []
    for i in range(20):
        recs.append(bytes([i % 3]) + rng.randint(0, 255, 6 * 6 * 3).astype(np.uint8).tobytes())
    open(path, "wb").write(b"".join(recs))
    is_chief = FLAGS.task_index == 0
    with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % FLAGS.task_index,
                                                  cluster=cluster)):
        global_step = tf.train.get_or_create_global_step()
        fq = tf.train.string_input_producer([path], shuffle=False)
        reader = tf.FixedLengthRecordReader(record_bytes=1 + 6 * 6 * 3)
        key, value = reader.read(fq)
        rb = tf.decode_raw(value, tf.uint8)
        label = tf.cast(tf.strided_slice(rb, [0], [1]), tf.int32)
        img = tf.reshape(tf.strided_slice(rb, [1], [1 + 108]), [3, 6, 6])
        img = tf.cast(tf.transpose(img, [1, 2, 0]), tf.float32) / 255.0
        label.set_shape([1])
        images, labels = tf.train.batch([img, label], batch_size=4, num_threads=1, capacity=20)
        labels = tf.reshape(labels, [4])
        with tf.variable_scope('conv1'):
            kernel = tf.get_variable('weights', [3, 3, 3, 4], initializer=tf.truncated_normal_initializer(stddev=5e-2, seed=3))
            biases = tf.get_variable('biases', [4], initializer=tf.constant_initializer(0.1))
            conv1 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding='SAME'), biases))
        pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool1')
        with tf.variable_scope('local3'):
            reshape = tf.reshape(pool1, [4, -1])
            w = tf.get_variable('weights', [36, 3], initializer=tf.truncated_normal_initializer(stddev=0.04, seed=4))
            wd = tf.multiply(tf.nn.l2_loss(w), 0.004, name='weight_loss')
            tf.add_to_collection('losses', wd)
            logits = tf.matmul(reshape, w)
        ce = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.cast(labels, tf.int64), logits=logits))
        tf.add_to_collection('losses', ce)
        loss = tf.add_n(tf.get_collection('losses'), name='total_loss')
        lr = tf.train.exponential_decay(0.1, global_step, 3, 0.5, staircase=True)
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(lr), replicas_to_aggregate=1,
                                             total_num_replicas=1)
        grads = opt.compute_gradients(loss)
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        variable_averages = tf.train.ExponentialMovingAverage(0.9, global_step)
        with tf.control_dependencies([apply_gradient_op]):
            train_op = variable_averages.apply(tf.trainable_variables())
        hooks = [opt.make_session_run_hook(is_chief), tf.train.StopAtStepHook(num_steps=6)]
    print(images.device, fq.name, train_op.device, variable_averages.average(w).device, variable_averages.average(w).op.name)

    class _LoggerHook(tf.train.SessionRunHook):
        def begin(self):
            self._step = -1
        def before_run(self, run_context):
            self._step += 1
            return tf.train.SessionRunArgs(loss)
        def after_run(self, run_context, run_values):
            print('step %d, loss = %.6f' % (self._step, run_values.results))

    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief, checkpoint_dir=FLAGS.logdir,
                                           hooks=hooks + [_LoggerHook()], save_summaries_steps=None,
                                           save_summaries_secs=None, log_step_count_steps=0) as sess:
        while not sess.should_stop():
            _, l, gs = sess.run([train_op, labels, global_step])
        print('last labels', l.tolist(), 'gs', gs)
    print(sorted(f for f in os.listdir(FLAGS.logdir) if 'tfevents' not in f))
    print([n for n, _ in tf.train.list_variables(FLAGS.logdir)])
'''

# yiakwy/distributed-tensorflow tests/gRPC.py (reduced: two in-process servers, 8 threads each
P13 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
# building a constant in the shared default graph and running it on a server in turn)
import threading
if FLAGS.task_index == 1:
    raise SystemExit(0)
cluster = tf.train.ClusterSpec({"local": SPEC["worker"]})
servers = [tf.train.Server(cluster, job_name="local", task_index=i) for i in range(2)]
lock = threading.Lock()
results = []

def test_grpc(index):
    op = tf.constant("Hello, distributed Tensorflow! I am Node %s" % index)
    target = servers[index % 2].target
    with tf.Session(target) as sess:
        r = sess.run(op)
    with lock:
        results.append((index, r, op.name))

threads = [threading.Thread(target=test_grpc, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
for r in sorted(results):
    print(r[0], r[1])
print(sorted(r[2] for r in results))
print(len(tf.get_default_graph().get_operations()))
'''

# hwang595/distributed_tensorflow DistributedLeNet/src/distributed_train.py (reduced to its graph:
P14 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
# SyncReplicasOptimizer with a backup worker, 2 of 3, under replica_device_setter over 2 ps)
if FLAGS.task_index == 1:
    raise SystemExit(0)
cluster = tf.train.ClusterSpec({"ps": ["a:1", "b:1"], "worker": ["c:1", "d:1", "e:1"]})
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0", cluster=cluster)):
    global_step = tf.Variable(0, name="global_step", trainable=False)
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.get_variable("w", [4, 2], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), replicas_to_aggregate=2,
                                         total_num_replicas=3)
    train_op = opt.minimize(loss, global_step=global_step)
    qr = opt.get_chief_queue_runner()
    init_tokens = opt.get_init_tokens_op()
    try:
        opt.get_init_tokens_op(num_tokens=1)
    except ValueError as e:
        print("ValueError", e)
    hook = opt.make_session_run_hook(True, num_tokens=5)
g = tf.get_default_graph()
skip = ("gradients/",)
for op in sorted(g.get_operations(), key=lambda o: o.name):
    if op.type in ("ConditionalAccumulator", "FIFOQueueV2", "AccumulatorApplyGradient", "AccumulatorTakeGradient",
                   "QueueDequeueV2", "QueueEnqueueManyV2", "AssignAdd", "Assign", "VariableV2", "ApplyGradientDescent",
                   "AccumulatorSetGlobalStep", "AccumulatorNumAccumulated") or op.name.startswith("sync_replicas/"):
        if op.type in ("Const",):
            continue
        print(op.name, op.type, op.device, sorted(op.node_def.attr.keys()) if op.type in ("ConditionalAccumulator", "FIFOQueueV2") else "")
print([v.op.name for v in tf.local_variables()], [v.op.name for v in tf.global_variables()])
print(qr.queue.name, [o.name for o in qr.enqueue_ops], init_tokens.name, init_tokens.type)
print(opt.get_slot_names(), train_op.name, train_op.op.type, train_op.device, train_op.dtype)
'''

# error case: a session on a master no one serves (a worker's client started with no server up)
P15 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
import time
if FLAGS.task_index == 1:
    raise SystemExit(0)
target = "grpc://" + SPEC["worker"][1]
c = tf.constant(1.0)
for cfg in [tf.ConfigProto(operation_timeout_in_ms=1500)]:
    t = time.time()
    try:
        with tf.Session(target, config=cfg) as s:
            s.run(c)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:120], round(time.time() - t) >= 1)
'''

# lleewwiiss/Distributed-Tensorflow-Template (reduced: its Estimator trainer under TF_CONFIG,
P16 = r'''
import argparse, json
import tideflow as tf
_p = argparse.ArgumentParser()
for _a in ("--spec", "--job_name", "--logdir"):
    _p.add_argument(_a, default="")
_p.add_argument("--task_index", type=int, default=0)
FLAGS, _ = _p.parse_known_args()
SPEC = json.load(open(FLAGS.spec))
# tf.estimator.train_and_evaluate on a chief and a ps, a tf.data input_fn, a linear model_fn)
import json, os
import numpy as np
os.environ["TF_CONFIG"] = json.dumps({"cluster": SPEC, "task": {"type": FLAGS.job_name, "index": FLAGS.task_index}})
rng = np.random.RandomState(0)
X = rng.rand(32, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.1).astype(np.float32)

def input_fn():
    ds = tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)
    return ds

def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features["x"], w) + b
    loss = tf.losses.mean_squared_error(labels, pred)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mae": tf.metrics.mean_absolute_error(labels, pred)})
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
    print("devices", w.device, b.device, tf.train.get_global_step().device, pred.device, train_op.device)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

cfg = tf.estimator.RunConfig(model_dir=FLAGS.logdir, save_checkpoints_steps=5, save_summary_steps=5,
                             log_step_count_steps=100, tf_random_seed=1)
print(cfg.task_type, cfg.task_id, cfg.is_chief, cfg.num_ps_replicas, cfg.num_worker_replicas, cfg.master.startswith("grpc://"))
est = tf.estimator.Estimator(model_fn, config=cfg)
r = tf.estimator.train_and_evaluate(est, tf.estimator.TrainSpec(input_fn, max_steps=10),
                                    tf.estimator.EvalSpec(input_fn, steps=2, throttle_secs=0))
print("result", r if r is None else sorted((k, round(float(v), 6)) for k, v in r[0].items()))
print(sorted(f for f in os.listdir(FLAGS.logdir) if "tfevents" not in f and not os.path.isdir(os.path.join(FLAGS.logdir, f))))
print(sorted(tf.train.list_variables(FLAGS.logdir)))
print(est.get_variable_value("w").ravel().tolist())
'''


def test_zjj2wry_dataset_with_checkpoint_and_summary_hooks(tmp_path):
    # TF 1.15 (measured): tf.data from a TFRecord file on the worker, Adam on the ps, a
    # CheckpointSaverHook every 2 steps (and at the end) and a SummarySaverHook
    out, files = _run(tmp_path, P08, {"ps": 1, "worker": 1})
    assert out[("worker", 0)] == [
        "/job:worker/task:0 /job:worker/task:0 ['/job:ps/task:0', '/job:ps/task:0', '/job:ps/task:0', '/job:ps/task:0'] /job:ps/task:0",
        'Worker 0: training step 0 done , loss is 1.098612',
        'Worker 0: training step 2 done , loss is 1.111850',
        'Worker 0: training step 4 done , loss is 1.100181',
        'Worker 0: training step 6 done , loss is 1.095435',
        'finished training',
        'LOG/ck/model.ckpt-7',
        "[('fc_trainable/dense_prelogit1/bias', [6]), ('fc_trainable/dense_prelogit1/bias/Adam', [6]), ('fc_trainable/dense_prelogit1/bias/Adam_1', [6]), ('fc_trainable/dense_prelogit1/kernel', [8, 6]), ('fc_trainable/dense_prelogit1/kernel/Adam', [8, 6]), ('fc_trainable/dense_prelogit1/kernel/Adam_1', [8, 6]), ('fc_trainable/flower_logits/bias', [3]), ('fc_trainable/flower_logits/bias/Adam', [3]), ('fc_trainable/flower_logits/bias/Adam_1', [3]), ('fc_trainable/flower_logits/kernel', [6, 3]), ('fc_trainable/flower_logits/kernel/Adam', [6, 3]), ('fc_trainable/flower_logits/kernel/Adam_1', [6, 3]), ('global_step', []), ('train/beta1_power', []), ('train/beta2_power', [])]",
    ]
    ck = [f for f in files if f.startswith("ck/model.ckpt-")]
    assert sorted({f.split(".")[1] for f in ck}) == ["ckpt-0", "ckpt-2", "ckpt-4", "ckpt-6", "ckpt-7"]
    assert "ev/events.out.tfevents" in files and "ck/graph.pbtxt" in files


def test_amano_ginji_streaming_auc_on_the_ps_rounds_as_tf(tmp_path):
    # Amano-Ginji/distributed-tensorflow-example lr2.py: streaming_auc under a
    # replica_device_setter, its counters on the ps and its AUC on the worker. TF 1.15
    # (measured, the same bits as in a local session): grappler optimizes the whole graph on the
    # master, so the counters received from the ps keep their shape and ``tp + fn + eps``
    # becomes AddOpsRewrite's AddN; the 4th and later updates differ in the last bit otherwise
    import numpy as np

    import tideflow as tf
    from tests.distributed.cluster_procs import Cluster

    cluster = Cluster(cluster_spec(ps=1, worker=1), tmp_path).start_all()
    try:
        with tf.Graph().as_default():
            setter = tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                                    cluster=cluster.spec)
            with tf.device(setter):
                pr = tf.placeholder(tf.float32, [None, 1])
                y = tf.placeholder(tf.float32, [None, 1])
                auc = tf.contrib.metrics.streaming_auc(pr, y)
            assert {v.device for v in tf.local_variables()} == {"/job:ps/task:0"}
            rng = np.random.RandomState(0)
            got = []
            with tf.Session(cluster.target("worker", 0)) as sess:
                sess.run(tf.local_variables_initializer())
                for _ in range(8):
                    pv = (rng.rand(8, 1) * 0.01 + 0.495).astype(np.float32)
                    yv = (rng.rand(8, 1) > 0.5).astype(np.float32)
                    got.append(sess.run(auc, {pr: pv, y: yv})[1].tobytes().hex())
    finally:
        cluster.stop()
    assert got == ["adaaaa3e", "c3300c3f", "0000003f", "300c033f", "719e023f", "ac07093f",
                   "798c073f", "d040033f"]


def test_peerdavid_in_graph_replication(tmp_path):
    # TF 1.15 (measured): one client's graph over both workers' towers (soft placement of their
    # "/gpu:0"), the variables on the ps; losses, steps and the trained values
    out, _ = _run(tmp_path, P11, {"ps": 1, "worker": 2}, servers=[("worker", 1)])
    assert out[("worker", 0)] == [
        "['/job:worker/task:0/device:GPU:0', '/job:worker/task:1/device:GPU:0']  /job:ps/task:0/device:CPU:0",
        '1.3862944 1',
        '1.3764253 2',
        '1.3735394 3',
        '1.3717487 4',
        '[[0.4696248173713684, 0.5303751826286316], [0.47160452604293823, 0.5283954739570618], [0.47358429431915283, 0.5264157652854919]] [0.01979740709066391, -0.019797401502728462]',
    ]


def test_kzhang28_queue_input_sync_replicas_and_moving_averages(tmp_path):
    # TF 1.15 (measured): a FixedLengthRecordReader queue and tf.train.batch on the worker, the
    # MonitoredTrainingSession's queue runners, SyncReplicasOptimizer(1 of 1) with an EMA after
    # it, StopAtStepHook(num_steps=6) (seven steps run: the sync queue runner applies each
    # update after its step), the checkpoints. (TF's chief then waits out
    # stop_grace_period_secs at close for the sync queue runner, as in the thumbe3 program.)
    out, files = _run(tmp_path, P12, {"ps": 1, "worker": 1})
    assert out[("worker", 0)][:9] == [
        '/job:worker/task:0 input_producer /job:ps/task:0 /job:ps/task:0 local3/weights/ExponentialMovingAverage',
        'step 0, loss = 1.098002',
        'step 1, loss = 1.099918',
        'step 2, loss = 1.095580',
        'step 3, loss = 1.094295',
        'step 4, loss = 1.109352',
        'step 5, loss = 1.093245',
        'step 6, loss = 1.101932',
        'last labels [1, 2, 0, 1] gs 5',
    ]
    assert files == ["checkpoint", "events.out.tfevents", "graph.pbtxt",
                     "model.ckpt-0.data-00000-of-00001", "model.ckpt-0.index",
                     "model.ckpt-0.meta", "model.ckpt-6.data-00000-of-00001",
                     "model.ckpt-6.index", "model.ckpt-6.meta"]


def test_yiakwy_sessions_from_threads(tmp_path):
    # TF 1.15 (measured): threads each building a constant and running it on one of two
    # in-process servers; each new thread builds in a default graph of its own (every
    # constant is "Const", the main thread's graph stays empty)
    out, _ = _run(tmp_path, P13, {"worker": 2})
    assert out[("worker", 0)] == [
        "0 b'Hello, distributed Tensorflow! I am Node 0'",
        "1 b'Hello, distributed Tensorflow! I am Node 1'",
        "2 b'Hello, distributed Tensorflow! I am Node 2'",
        "3 b'Hello, distributed Tensorflow! I am Node 3'",
        "4 b'Hello, distributed Tensorflow! I am Node 4'",
        "5 b'Hello, distributed Tensorflow! I am Node 5'",
        "6 b'Hello, distributed Tensorflow! I am Node 6'",
        "7 b'Hello, distributed Tensorflow! I am Node 7'",
        "['Const:0', 'Const:0', 'Const:0', 'Const:0', 'Const:0', 'Const:0', 'Const:0', 'Const:0']",
        '0',
    ]


def test_hwang595_sync_replicas_with_a_backup_worker_graph(tmp_path):
    # TF 1.15 (measured): the graph SyncReplicasOptimizer (2 of 3) builds under a
    # replica_device_setter over two ps tasks: each accumulator (resource ones) and its ops on
    # its variable's ps, the token queue and the dummy queue on ps 0, the local step on the
    # worker, what minimize returns; too few init tokens are no error with a backup worker
    out, _ = _run(tmp_path, P14, {"worker": 1})
    assert out[("worker", 0)] == [
        'Assign Assign /job:worker/task:0 ',
        'Assign_1 Assign /job:worker/task:0 ',
        'GradientDescent AssignAdd /job:ps/task:0 ',
        'GradientDescent/update_b/ApplyGradientDescent ApplyGradientDescent /job:ps/task:0 ',
        'GradientDescent/update_w/ApplyGradientDescent ApplyGradientDescent /job:ps/task:1 ',
        'b VariableV2 /job:ps/task:0 ',
        'b/Assign Assign /job:ps/task:0 ',
        "dummy_queue FIFOQueueV2 /job:ps/task:0 ['capacity', 'component_types', 'container', 'shapes', 'shared_name']",
        'global_step VariableV2 /job:ps/task:0 ',
        'global_step/Assign Assign /job:ps/task:0 ',
        'sync_rep_local_step VariableV2 /job:worker/task:0 ',
        'sync_rep_local_step/Assign Assign /job:worker/task:0 ',
        'sync_replicas/Cast Cast /job:ps/task:1 ',
        'sync_replicas/Cast_1 Cast /job:ps/task:0 ',
        'sync_replicas/Cast_2 Cast /job:ps/task:1 ',
        'sync_replicas/Cast_3 Cast /job:ps/task:0 ',
        'sync_replicas/ResourceAccumulatorApplyGradient ResourceAccumulatorApplyGradient /job:ps/task:1 ',
        'sync_replicas/ResourceAccumulatorApplyGradient_1 ResourceAccumulatorApplyGradient /job:ps/task:0 ',
        'sync_replicas/ResourceAccumulatorTakeGradient ResourceAccumulatorTakeGradient /job:ps/task:1 ',
        'sync_replicas/ResourceAccumulatorTakeGradient_1 ResourceAccumulatorTakeGradient /job:ps/task:0 ',
        'sync_replicas/SetGlobalStep ResourceAccumulatorSetGlobalStep /job:ps/task:1 ',
        'sync_replicas/SetGlobalStep_1 ResourceAccumulatorSetGlobalStep /job:ps/task:0 ',
        'sync_replicas/conditional_accumulator ResourceConditionalAccumulator /job:ps/task:1 ',
        'sync_replicas/conditional_accumulator_1 ResourceConditionalAccumulator /job:ps/task:0 ',
        'sync_replicas/group_deps NoOp /job:worker/task:0 ',
        'sync_replicas/group_deps/NoOp NoOp /job:ps/task:0 ',
        'sync_replicas/group_deps/NoOp_1 NoOp /job:ps/task:1 ',
        'sync_replicas/group_deps/NoOp_2 NoOp /job:worker/task:0 ',
        "sync_token_q FIFOQueueV2 /job:ps/task:0 ['capacity', 'component_types', 'container', 'shapes', 'shared_name']",
        'sync_token_q_Dequeue QueueDequeueV2 /job:ps/task:0 ',
        'sync_token_q_EnqueueMany QueueEnqueueManyV2 /job:ps/task:0 ',
        'sync_token_q_EnqueueMany_1 QueueEnqueueManyV2 /job:ps/task:0 ',
        'sync_token_q_EnqueueMany_2 QueueEnqueueManyV2 /job:ps/task:0 ',
        'w VariableV2 /job:ps/task:1 ',
        'w/Assign Assign /job:ps/task:1 ',
        "['sync_rep_local_step'] ['global_step', 'w', 'b']",
        "dummy_queue ['sync_token_q_EnqueueMany'] sync_token_q_EnqueueMany_1 QueueEnqueueManyV2",
        "[] Assign_1:0 Assign /job:worker/task:0 <dtype: 'int32_ref'>",
    ]


def test_a_session_on_a_master_no_one_serves_times_out(tmp_path):
    # TF 1.15 (measured): with operation_timeout_in_ms the session's first step ends in
    # DeadlineExceededError "Deadline Exceeded" once the timeout passes (without it, both
    # wait for the master; RunOptions.timeout_in_ms alone does not bound that wait, in TF too)
    out, _ = _run(tmp_path, P15, {"worker": 2})
    assert out[("worker", 0)] == ["DeadlineExceededError Deadline Exceeded True"]


def test_lleewwiiss_estimator_train_and_evaluate_on_a_chief_and_a_ps(tmp_path):
    # TF 1.15 (measured): TF_CONFIG with a chief and a ps; train_and_evaluate starts the ps's
    # server and trains on the chief (variables on the ps, no result returned), its
    # checkpoints every 5 steps and the trained weights
    out, _ = _run(tmp_path, P16, {"ps": 1, "chief": 1})
    assert out[("chief", 0)] == [
        'chief 0 True 1 1 True',
        'devices /job:ps/task:0 /job:ps/task:0 /job:ps/task:0 /job:chief/task:0 /job:ps/task:0',
        'result None',
        "['checkpoint', 'graph.pbtxt', 'model.ckpt-0.data-00000-of-00001', 'model.ckpt-0.index', 'model.ckpt-0.meta', 'model.ckpt-10.data-00000-of-00001', 'model.ckpt-10.index', 'model.ckpt-10.meta', 'model.ckpt-5.data-00000-of-00001', 'model.ckpt-5.index', 'model.ckpt-5.meta']",
        "[('b', [1]), ('global_step', []), ('w', [3, 1])]",
        '[0.12790547311306, -0.3571939468383789, 0.10457906872034073]',
    ]
