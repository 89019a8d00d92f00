"""replica_device_setter: the device strings it gives a small model's ops, as TF gives them;
round-robin and greedy load-balancing strategies."""

import pytest

import tideflow as tf
from tideflow.distributed.cluster import ClusterSpec
from tideflow.train.device_setter import (
    STANDARD_PS_OPS,
    GreedyLoadBalancingStrategy,
    byte_size_load_fn,
    replica_device_setter,
)

CLUSTER = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize("cluster", [CLUSTER, ClusterSpec(CLUSTER),
                                     ClusterSpec(CLUSTER).as_cluster_def()])
def test_two_ps_tasks_round_robin(cluster):
    with tf.device(replica_device_setter(cluster=cluster)):
        v = tf.Variable([1, 2], name="v")
        w = tf.Variable([2, 1], name="w")
        x = tf.Variable([3, 3], name="x")
        a = v + w
    assert v.device == "/job:ps/task:0" and v.value().device == "/job:ps/task:0"
    assert w.device == "/job:ps/task:1" and x.device == "/job:ps/task:0"
    assert a.device == "/job:worker"
    assert v.initial_value.device == "/job:worker"


def test_ps_tasks_without_cluster():
    with tf.device(replica_device_setter(ps_tasks=3, worker_device="/job:worker/task:1")):
        vs = [tf.Variable(float(i), name=f"v{i}") for i in range(4)]
        y = vs[0] * 2.0
        with tf.device("/gpu:0"):
            z = vs[1] + 1.0
    assert [v.device for v in vs] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2",
                                      "/job:ps/task:0"]
    assert y.device == "/job:worker/task:1"
    assert z.device == "/job:worker/task:1/device:GPU:0"


def test_requested_devices_are_merged():
    with tf.device(replica_device_setter(cluster=CLUSTER)):
        with tf.device("/cpu:0"):
            v = tf.Variable([1, 2], name="v")
        w = tf.Variable([2, 1], name="w")
        with tf.device("/cpu:0"):
            a = v + w
        # an explicit ps task wins over the strategy (which still takes its turn)
        with tf.device("/job:ps/task:0"):
            x = tf.Variable(1.0, name="x")
        y = tf.Variable(1.0, name="y")
        # another job: the strategy is not asked
        with tf.device("/job:foo"):
            z = tf.Variable(1.0, name="z")
            b = z * 2.0
        u = tf.Variable(1.0, name="u")
    assert v.device == "/job:ps/task:0/device:CPU:0"
    assert w.device == "/job:ps/task:1"
    assert a.device == "/job:worker/device:CPU:0"
    assert x.device == "/job:ps/task:0" and y.device == "/job:ps/task:1"
    assert z.device == "/job:foo" and b.device == "/job:foo"
    assert u.device == "/job:ps/task:0"


def test_no_merging_keeps_requested_device():
    with tf.device(replica_device_setter(cluster=CLUSTER, merge_devices=False)):
        a = tf.constant([0, 1])
        with tf.device("/job:ps"):
            b = tf.constant([0, 1])
        with tf.device("/cpu:0"):
            v = tf.Variable(1.0, name="v")
    assert a.device == "/job:worker"
    assert b.device == "/job:ps"
    assert v.device == "/device:CPU:0"


def test_other_job_names_and_cpu_constraint():
    cluster = ClusterSpec({"sun": ["sun0:2222", "sun1:2222", "sun2:2222"],
                           "moon": ["moon0:2222", "moon1:2222"]})
    with tf.device(replica_device_setter(ps_device="/job:moon/cpu:0", worker_device="/job:sun",
                                         cluster=cluster.as_cluster_def())):
        v = tf.Variable([1, 2], name="v")
        w = tf.Variable([2, 1], name="w")
        a = v + w
    assert v.device == "/job:moon/task:0/device:CPU:0"
    assert w.device == "/job:moon/task:1/device:CPU:0"
    assert a.device == "/job:sun"


def test_no_ps_tasks_is_no_placement():
    assert replica_device_setter() is None
    assert replica_device_setter(cluster={"worker": ["w0:1"]}) is None
    assert replica_device_setter(cluster={"ps": [], "worker": ["w0:1"]}) is None
    with tf.device(replica_device_setter(cluster={"worker": ["w0:1"]})):
        v = tf.Variable(1.0, name="v")
    assert v.device == ""
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_optimizer_state_and_updates_follow_the_variable():
    with tf.device(replica_device_setter(ps_tasks=2)):
        gs = tf.train.get_or_create_global_step()
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.get_variable("w", [2])
        loss = tf.reduce_sum(v * w)
        opt = tf.train.MomentumOptimizer(0.1, 0.9)
        train = opt.minimize(loss, global_step=gs)
    g = tf.get_default_graph()
    assert (gs.device, v.device, w.device) == ("/job:ps/task:0", "/job:ps/task:1",
                                               "/job:ps/task:0")
    # slots are colocated with their variable, not given a turn of the strategy
    assert opt.get_slot(v, "momentum").device == v.device
    assert opt.get_slot(w, "momentum").device == w.device
    assert g.get_operation_by_name("Momentum/update_v/ApplyMomentum").device == v.device
    assert g.get_operation_by_name("Momentum/update_w/ApplyMomentum").device == w.device
    assert train.device == gs.device
    grad_ops = [op for op in g.get_operations() if op.name.startswith("gradients/")]
    assert grad_ops and all(op.device == "/job:worker" for op in grad_ops)


def test_initializer_is_colocated_with_its_variable():
    with tf.device(replica_device_setter(cluster=CLUSTER)):
        v = tf.Variable([1, 2], name="v")
        with tf.device("/cpu:0"):
            w = tf.Variable([2, 1], name="w")
    assert v.initializer.device == "/job:ps/task:0"
    assert w.initializer.device == "/job:ps/task:1/device:CPU:0"


def test_custom_ps_ops():
    with tf.device(replica_device_setter(ps_tasks=2, ps_ops=["Const"])):
        c = tf.constant(1.0, name="c")
        d = tf.constant(2.0, name="d")
        v = tf.Variable(1.0, name="v")
    assert c.device == "/job:ps/task:0" and d.device == "/job:ps/task:1"
    assert v.device == "/job:worker"
    assert "VariableV2" in STANDARD_PS_OPS and "VarHandleOp" in STANDARD_PS_OPS


def test_greedy_load_balancing():
    strategy = GreedyLoadBalancingStrategy(2, byte_size_load_fn)
    with tf.device(replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        big = tf.Variable(tf.zeros([16, 4]), name="big")  # 256 bytes
        small = tf.Variable(tf.zeros([2]), name="small")  # 8 bytes
        mid = tf.Variable(tf.zeros([8, 2]), name="mid")  # 64 bytes
        scalar = tf.Variable(1.0, name="scalar")  # 4 bytes
        more = tf.Variable(tf.zeros([64]), name="more")  # 256 bytes
    assert big.device == "/job:ps/task:0"
    assert small.device == "/job:ps/task:1"
    assert mid.device == "/job:ps/task:1"
    assert scalar.device == "/job:ps/task:1"
    assert more.device == "/job:ps/task:1"  # 76 < 256 bytes on task 0
    assert list(strategy._ps_loads) == [256, 332]


def test_byte_size_load_fn():
    v = tf.Variable(tf.zeros([3, 5], dtype=tf.float64), name="v")
    assert byte_size_load_fn(v.op) == 120
    s = tf.Variable(tf.zeros([], dtype=tf.int32), name="s")
    assert byte_size_load_fn(s.op) == 4
    a, _ = tf.split(tf.zeros([4]), 2)
    with pytest.raises(ValueError, match="must have a single output"):
        byte_size_load_fn(a.op)
    p = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError):
        byte_size_load_fn(p.op)
