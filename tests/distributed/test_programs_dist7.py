"""Patterns of public TF 1.x distributed-training programs that once failed under tideflow: a
slim-layers network placed on the ps by replica_device_setter (``slim.layers.conv2d``), the
cifar10_estimator towers whose device setter uses ``tensorflow.python.framework.device``. Each
runs as real server and client processes on loopback ports (tests/distributed/cluster_procs),
with values checked against NumPy."""

import json

import numpy as np

from tests.distributed.cluster_procs import Cluster, cluster_spec, run_client

# alexwal/distributed-tensorflow-intro's worker builds its net with ``slim.layers.conv2d``,
# ``slim.layers.max_pool2d``, ``slim.layers.flatten`` and ``slim.layers.fully_connected``
# (TF 1.x's slim star-imports contrib.layers' package, so its submodules ``layers``,
# ``initializers``, ``regularizers`` and ``optimizers`` come along).
SLIM_WORKER = r"""
import json, sys
import numpy as np
import tideflow as tf
from tideflow.contrib import slim
spec = json.load(open(sys.argv[1]))
cluster = tf.train.ClusterSpec(spec)
x = np.asarray(json.loads(sys.argv[2]), np.float32)
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                              cluster=cluster)):
    gs = tf.train.get_or_create_global_step()
    img = tf.reshape(tf.constant(x), [-1, 4, 4, 1])
    net = slim.layers.conv2d(img, 2, [3, 3], scope="conv1",
                             weights_initializer=tf.constant_initializer(0.1))
    net = slim.layers.max_pool2d(net, [2, 2], scope="pool1")
    net = slim.layers.flatten(net, scope="flatten")
    out = slim.layers.fully_connected(
        net, 1, activation_fn=None, scope="pred",
        weights_initializer=tf.constant_initializer(0.5),
        weights_regularizer=slim.regularizers.l2_regularizer(0.1))
    loss = tf.reduce_mean(tf.square(out - 1.0)) + tf.add_n(tf.losses.get_regularization_losses())
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
print("DEV", json.dumps({v.op.name: v.device for v in tf.global_variables()}))
print("NS", slim.initializers.xavier_initializer is tf.contrib.layers.xavier_initializer,
      slim.optimizers.optimize_loss is tf.contrib.layers.optimize_loss,
      slim.layers.conv2d is slim.conv2d)
with tf.Session("grpc://" + spec["worker"][0]) as sess:
    sess.run(tf.global_variables_initializer())
    _, l0 = sess.run([train, loss])
    print("VALS", json.dumps([float(l0), sess.run("pred/weights:0").ravel().tolist(),
                              float(sess.run("pred/biases:0")[0]), int(sess.run(gs))]))
"""


def _slim_reference(x):
    """conv 3x3 SAME (weights 0.1, relu) -> 2x2 max pool -> fc (0.5, l2 0.1): loss, fc grads."""
    img = x.reshape(-1, 4, 4)
    pad = np.pad(img, ((0, 0), (1, 1), (1, 1)))
    conv = np.zeros_like(img)
    for i in range(4):
        for j in range(4):
            conv[:, i, j] = 0.1 * pad[:, i:i + 3, j:j + 3].sum(axis=(1, 2))
    conv = np.maximum(conv, 0.0)
    pooled = conv.reshape(-1, 2, 2, 2, 2).max(axis=(2, 4))  # [n, 2, 2]
    feat = np.repeat(pooled.reshape(-1, 4, 1), 2, axis=2).reshape(-1, 8)  # both channels equal
    w = np.full(8, 0.5)
    out = feat @ w
    loss = np.mean((out - 1.0) ** 2) + 0.1 * 0.5 * np.sum(w ** 2)
    d = 2 * (out - 1.0) / len(out)
    return loss, w - 0.1 * (feat.T @ d + 0.1 * w), -0.1 * d.sum()


def test_slim_layers_network_on_the_ps(tmp_path):
    x = np.arange(32, dtype=np.float32).reshape(2, 16) / 32.0
    spec = cluster_spec(ps=1, worker=1)
    c = Cluster(spec, tmp_path).start_all()
    try:
        out = run_client(SLIM_WORKER, c.path, json.dumps(x.tolist()), timeout=60)
    finally:
        c.stop()
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    assert json.loads(lines["DEV"]) == {
        "global_step": "/job:ps/task:0", "conv1/weights": "/job:ps/task:0",
        "conv1/biases": "/job:ps/task:0", "pred/weights": "/job:ps/task:0",
        "pred/biases": "/job:ps/task:0"}
    assert lines["NS"] == "True True True"
    loss, w, b = _slim_reference(x.astype(np.float64))
    l0, wv, bv, step = json.loads(lines["VALS"])
    np.testing.assert_allclose(l0, loss, rtol=1e-5)
    np.testing.assert_allclose(wv, w, rtol=1e-5)
    np.testing.assert_allclose(bv, b, rtol=1e-5)
    assert step == 1


# tensorflow/models' cifar10_estimator: ``local_device_setter`` (written here after it) spreads
# the tower variables over the worker's devices with GreedyLoadBalancingStrategy, using
# ``from tensorflow.python.framework import device as pydev`` and
# ``tensorflow.python.training.device_setter``; gradients are averaged on each variable's device
# and applied with Momentum. The worker server has two CPU devices (device_count) standing in for
# GPUs; the session runs over gRPC with a ps process in the cluster.
TOWERS = r"""
import json, sys
import numpy as np
import tideflow as tf
from tideflow.protos import node_def_pb2
from tideflow.python.framework import device as pydev
from tideflow.python.training import device_setter
spec = json.load(open(sys.argv[1]))
config = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
server = tf.train.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0,
                         config=config)

def local_device_setter(num_devices=1, ps_device_type="cpu", worker_device="/cpu:0",
                        ps_strategy=None):
    ps_ops = ["Variable", "VariableV2", "VarHandleOp"]
    if ps_strategy is None:
        ps_strategy = device_setter._RoundRobinStrategy(num_devices)
    def chooser(op):
        current = pydev.DeviceSpec.from_string(op.device or "")
        node_def = op if isinstance(op, node_def_pb2.NodeDef) else op.node_def
        if node_def.op in ps_ops:
            spec = pydev.DeviceSpec.from_string("/%s:%d" % (ps_device_type, ps_strategy(op)))
        else:
            spec = pydev.DeviceSpec.from_string(worker_device)
        spec.merge_from(current)
        return spec.to_string()
    return chooser

rs = np.random.RandomState(0)
X = rs.rand(8, 6).astype(np.float32)
Y = rs.rand(8, 3).astype(np.float32)
strategy = tf.contrib.training.GreedyLoadBalancingStrategy(2, tf.contrib.training.byte_size_load_fn)
with tf.device("/job:worker/task:0"):
    feats, labels = tf.split(tf.constant(X), 2), tf.split(tf.constant(Y), 2)
    losses, tower_gv = [], []
    for i in range(2):
        with tf.variable_scope("resnet", reuse=bool(i)), tf.name_scope("tower_%d" % i):
            with tf.device(local_device_setter(2, worker_device="/cpu:%d" % i,
                                               ps_strategy=strategy)):
                w1 = tf.get_variable("w1", [6, 16], initializer=tf.constant_initializer(0.1))
                b1 = tf.get_variable("b1", [16], initializer=tf.zeros_initializer())
                w2 = tf.get_variable("w2", [16, 3], initializer=tf.constant_initializer(-0.05))
                h = tf.nn.relu(tf.matmul(feats[i], w1) + b1)
                loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - labels[i]))
                params = tf.trainable_variables()
                tower_gv.append(list(zip(tf.gradients(loss, params), params)))
                losses.append(loss)
    gradvars = []
    for k, var in enumerate(tower_gv[0][i][1] for i in range(3)):
        with tf.device(var.device):
            gradvars.append((tf.multiply(tf.add_n([gv[k][0] for gv in tower_gv]), 0.5), var))
    with tf.device("/gpu:0"):
        gs = tf.train.get_or_create_global_step()
        total = tf.reduce_mean(losses)
        train = tf.train.MomentumOptimizer(0.1, 0.9).apply_gradients(gradvars, global_step=gs)
print("DEV", json.dumps({v.op.name: v.device for v in tf.global_variables()}))
with tf.Session(server.target, config=config) as sess:
    sess.run(tf.global_variables_initializer())
    got = [float(sess.run([train, total])[1]) for _ in range(3)]
    print("VALS", json.dumps([got, sess.run("resnet/w2:0").tolist(), int(sess.run(gs))]))
"""


def _towers_reference():
    rs = np.random.RandomState(0)
    x_all = rs.rand(8, 6).astype(np.float32).astype(np.float64)
    y_all = rs.rand(8, 3).astype(np.float32).astype(np.float64)
    params = [np.full((6, 16), 0.1), np.zeros(16), np.full((16, 3), -0.05)]
    accum = [np.zeros_like(p) for p in params]
    losses = []
    for _ in range(3):
        grads, step_losses = [np.zeros_like(p) for p in params], []
        for i in range(2):
            x, y = x_all[4 * i:4 * i + 4], y_all[4 * i:4 * i + 4]
            z = x @ params[0] + params[1]
            h = np.maximum(z, 0.0)
            out = h @ params[2]
            step_losses.append(np.mean((out - y) ** 2))
            d = 2 * (out - y) / out.size
            dz = (d @ params[2].T) * (z > 0)
            for k, g in enumerate([x.T @ dz, dz.sum(0), h.T @ d]):
                grads[k] += 0.5 * g
        losses.append(np.mean(step_losses))
        for k in range(3):
            accum[k] = 0.9 * accum[k] + grads[k]
            params[k] = params[k] - 0.1 * accum[k]
    return losses, params[2]


def test_cifar10_estimator_towers_local_device_setter(tmp_path):
    spec = cluster_spec(ps=1, worker=1)
    c = Cluster(spec, tmp_path).start_all(skip=[("worker", 0)])
    try:
        out = run_client(TOWERS, c.path, timeout=60)
    finally:
        c.stop()
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    # greedy by bytes: w1 (384 B) takes CPU:0; b1 (64 B) and w2 (192 B) then fit on CPU:1
    cpu = "/job:worker/task:0/device:CPU:%d"
    assert json.loads(lines["DEV"]) == {
        "resnet/w1": cpu % 0, "resnet/b1": cpu % 1, "resnet/w2": cpu % 1,
        "global_step": "/job:worker/task:0/device:GPU:0", "resnet/w1/Momentum": cpu % 0,
        "resnet/b1/Momentum": cpu % 1, "resnet/w2/Momentum": cpu % 1}
    got, w2, step = json.loads(lines["VALS"])
    losses, w2_ref = _towers_reference()
    np.testing.assert_allclose(got, losses, rtol=1e-5)
    np.testing.assert_allclose(w2, w2_ref, rtol=1e-5, atol=1e-7)
    assert step == 3


# TF's op_def_library creates an op that takes a ref input (Assign, ScatterAdd, ApplyAdagrad,
# IsVariableInitialized) colocated with it: its device is the variable's (on the ps) whatever
# device scope it was built in, and its NodeDef carries "loc:@<variable>". report_uninitialized_
# variables (the Supervisor's/MonitoredSession's ready op) puts its report on "/cpu:0", i.e. the
# worker's CPU under a replica_device_setter. A Saver built after the first run reaches the
# master as a graph extension whose restore Assigns are colocated with variables of the first
# part. Placement as under TF 2.21 (compat.v1) for the same graph.
REF_COLOCATION = r"""
import json, os, sys
import tideflow as tf
spec = json.load(open(sys.argv[1])); ckpt = sys.argv[2]
with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")):
    v = tf.Variable([1.0, 2.0], name="v")
    gs = tf.train.get_or_create_global_step()
    bump = tf.scatter_add(v, [0], [10.0])
    train = tf.train.AdagradOptimizer(0.5).minimize(tf.reduce_sum(tf.square(v)), global_step=gs)
    ready = tf.report_uninitialized_variables()
    with tf.device("/job:worker/task:0/cpu:0"):
        reset = tf.assign(v, [3.0, 4.0])
        init_v = tf.is_variable_initialized(v)
graph = tf.get_default_graph()
dev = {op.type + ":" + op.name: op.device for op in graph.get_operations()
       if op.type in ("ScatterAdd", "Assign", "IsVariableInitialized", "ApplyAdagrad")}
print("DEV", json.dumps(dev))
print("READY", ready.device)
print("CLASS", json.dumps([c.decode() for c in reset.op.colocation_groups()]),
      json.dumps([c.decode() for c in train.control_inputs[0].colocation_groups()]
                 if train.control_inputs else []))
with tf.Session("grpc://" + spec["worker"][0]) as sess:
    print("UNINIT", json.dumps([b.decode() for b in sess.run(ready)]), bool(sess.run(init_v)))
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    sess.run(bump)
    saver = tf.train.Saver()  # built after the first runs: a graph extension
    path = saver.save(sess, os.path.join(ckpt, "m"), global_step=gs)
    print("SAVED", json.dumps(sess.run(v).tolist()))
    sess.run(reset)
    print("RESET", json.dumps(sess.run(v).tolist()))
    print("READY_AFTER", json.dumps(sess.run(ready).tolist()))
    saver.restore(sess, path)
    print("RESTORED", json.dumps(sess.run(v).tolist()))
    print("STEP", int(sess.run(gs)))
"""


def test_ref_input_ops_colocated_with_their_variable(tmp_path):
    spec = cluster_spec(ps=1, worker=1)
    c = Cluster(spec, tmp_path).start_all()
    try:
        out = run_client(REF_COLOCATION, c.path, tmp_path, timeout=60)
    finally:
        c.stop()
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    # every op taking v's (or an accumulator's, or the step's) ref lands on the ps, even the
    # Assign and IsVariableInitialized built under "/job:worker/task:0/cpu:0"
    ops = ["Assign:v/Assign", "Assign:global_step/Assign", "ScatterAdd:ScatterAdd",
           "Assign:v/Adagrad/Assign", "ApplyAdagrad:Adagrad/update_v/ApplyAdagrad",
           "IsVariableInitialized:report_uninitialized_variables/IsVariableInitialized",
           "IsVariableInitialized:report_uninitialized_variables/IsVariableInitialized_1",
           "IsVariableInitialized:report_uninitialized_variables/IsVariableInitialized_2",
           "Assign:Assign", "IsVariableInitialized:IsVariableInitialized"]
    assert json.loads(lines["DEV"]) == dict.fromkeys(ops, "/job:ps/task:0")
    assert lines["READY"] == "/job:worker/task:0/device:CPU:0"
    assert lines["CLASS"] == '["loc:@v"] []'
    assert lines["UNINIT"] == '["v", "global_step", "v/Adagrad"] False'
    # Adagrad (accumulator 0.1): g = 2v, acc = 0.1 + g^2, v -= 0.5 g / sqrt(acc); then v[0] += 10
    v = np.array([1.0, 2.0])
    g = 2 * v
    v = v - 0.5 * g / np.sqrt(0.1 + g * g)
    v[0] += 10.0
    np.testing.assert_allclose(json.loads(lines["SAVED"]), v, rtol=1e-6)
    assert json.loads(lines["RESET"]) == [3.0, 4.0]
    assert json.loads(lines["READY_AFTER"]) == []
    np.testing.assert_allclose(json.loads(lines["RESTORED"]), v, rtol=1e-6)
    assert lines["STEP"] == "1"


# A cond over a ps variable (Variable.initialized_value(), which ExponentialMovingAverage's
# shadow variables and SyncReplicasOptimizer(variable_averages=...) initialize from) reaches the
# master as If ops whose branch FunctionDefs take the variable's ref; the master imports them
# and registers them again on the tasks: each import must give back the same FunctionDef.
EMA_ON_PS = r"""
import json, sys
import tideflow as tf
spec = json.load(open(sys.argv[1]))
with tf.device(tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:0")):
    gs = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [2], initializer=tf.constant_initializer(1.0))
    twice = tf.Variable(w.initialized_value() * 2.0, name="twice")
    loss = tf.reduce_sum(tf.square(w - tf.constant([3.0, -1.0])))
    ema = tf.train.ExponentialMovingAverage(0.5)
    step = tf.train.GradientDescentOptimizer(0.25).minimize(loss, global_step=gs)
    with tf.control_dependencies([step]):
        train = ema.apply([w])
with tf.Session("grpc://" + spec["worker"][0]) as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(2):
        sess.run(train)
    print("VALS", json.dumps([sess.run(v).tolist() for v in (w, ema.average(w), twice)]))
"""


def test_cond_over_ps_variable_ema_shadow(tmp_path):
    spec = cluster_spec(ps=1, worker=1)
    c = Cluster(spec, tmp_path).start_all()
    try:
        out = run_client(EMA_ON_PS, c.path, timeout=60)
    finally:
        c.stop()
    w_val, avg, twice = json.loads(out.split("VALS ", 1)[1])
    w, shadow, target = np.ones(2), np.ones(2), np.array([3.0, -1.0])
    for _ in range(2):
        w = w - 0.25 * 2 * (w - target)
        shadow = 0.5 * shadow + 0.5 * w
    np.testing.assert_allclose(w_val, w, rtol=1e-6)
    np.testing.assert_allclose(avg, shadow, rtol=1e-6)
    assert twice == [2.0, 2.0]


def test_server_for_a_task_its_cluster_lacks():
    """A Server for a task or job its cluster lacks fails as TF 1.x's GrpcServer::Init
    (InternalError or InvalidArgumentError naming them); without a task index, an unknown job is the
    ClusterSpec's ValueError."""
    import pytest

    import tideflow as tf

    spec = cluster_spec(worker=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match='Task 3 was not defined in job "worker"'):
        tf.train.Server(spec, job_name="worker", task_index=3)
    # TF 1.15 (checked): an unknown job is an InternalError, an unknown task InvalidArgument
    with pytest.raises(tf.errors.InternalError, match='Job "ps" was not defined in cluster'):
        tf.train.Server(spec, job_name="ps", task_index=0)
    with pytest.raises(ValueError, match="No such job in cluster: 'ps'"):
        tf.train.Server(spec, job_name="ps")
    server = tf.train.Server(spec, job_name="worker", task_index=0)
    try:
        with tf.Session(server.target) as sess:
            assert sess.run(tf.constant(2) * 3) == 6
    finally:
        server.stop()
