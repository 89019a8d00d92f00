"""The distributed API as TF 1.x programs use it, against TF 1.15's own answers (run under
real TF 1.15 with the same programs; its printed results are the literals here): ClusterSpec's
conversions, equality and errors, replica_device_setter with a load-balancing strategy, the
tf.train.Server's ServerDef, target and construction errors, Session.reset's containers,
errors relayed from a task's RunGraph, a ps that starts after its worker, and between-graph
synchronous training in separate processes on loopback ports (each run bounded)."""

import json
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import _env, free_ports, wait_ready


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _raises(cls, fn):
    with pytest.raises(cls) as info:
        fn()
    return str(info.value)


# -- ClusterSpec --------------------------------------------------------------------------


def test_cluster_spec_keeps_what_it_was_given():
    c = tf.train.ClusterSpec({"worker": ["c:3"], "ps": ["a:1"]})
    # str sorts the jobs; repr is the plain object one (TF defines no __repr__)
    assert str(c) == "ClusterSpec({'ps': ['a:1'], 'worker': ['c:3']})"
    assert repr(c).startswith("<") and "ClusterSpec object at" in repr(c)
    assert c.jobs == ["worker", "ps"]
    assert [j.name for j in c.as_cluster_def().job] == ["ps", "worker"]
    # bytes names and addresses stay bytes in the spec; the proto has them as text
    assert tf.train.ClusterSpec({"a": [b"x:1"]}).as_dict() == {"a": [b"x:1"]}
    bj = tf.train.ClusterSpec({b"a": ["x:1"]})
    assert bj.as_dict() == {b"a": ["x:1"]} and bj.as_cluster_def().job[0].name == "a"
    assert tf.train.ClusterSpec({"a": {-1: "x:1"}}).as_dict() == {"a": {-1: "x:1"}}
    # a ClusterDef naming a job twice: the last one wins
    cd = tf.train.ClusterDef(job=[tf.train.JobDef(name="a", tasks={0: "x:1"}),
                                  tf.train.JobDef(name="a", tasks={1: "y"})])
    assert tf.train.ClusterSpec(cd).as_dict() == {"a": {1: "y"}}
    assert tf.train.ClusterSpec(cd).as_cluster_def() is cd


def test_cluster_spec_equality_and_errors():
    c = tf.train.ClusterSpec({"a": ["x:1"]})
    assert c == tf.train.ClusterSpec({"a": ["x:1"]})
    assert c != tf.train.ClusterSpec({"a": ["x:2"]})
    assert (c == {"a": ["x:1"]}) is False  # TF compares its {job: {index: address}} dict
    assert (c == {"a": {0: "x:1"}}) is True
    assert (c == 3) is False
    assert _raises(TypeError, lambda: tf.train.ClusterSpec({"a": [1]})) == (
        "Task address 1 must be bytes or unicode")
    assert _raises(TypeError, lambda: tf.train.ClusterSpec({"a": [None]})) == (
        "Task address None must be bytes or unicode")
    assert _raises(TypeError, lambda: tf.train.ClusterSpec({1: ["x:1"]})) == (
        "Job name 1 must be bytes or unicode")
    assert _raises(TypeError, lambda: tf.train.ClusterSpec({"a": {"0": "x:1"}})) == (
        "'0' has type str, but expected one of: int")
    assert _raises(TypeError, lambda: tf.train.ClusterSpec({"a": {1.5: "x:1"}})) == (
        "1.5 has type float, but expected one of: int")
    assert _raises(ValueError, lambda: c.num_tasks(b"a")) == "No such job in cluster: b'a'"
    assert _raises(ValueError, lambda: c.task_address("a", "0")) == (
        "No task with index '0' in job 'a'")


# -- replica_device_setter ----------------------------------------------------------------


def test_greedy_strategy_weighs_shapes_known_at_placement():
    """The device function sees the op's inferred shapes, as TF's: a MutableHashTable's
    scalar resource weighs one byte with byte_size_load_fn, so it goes to the lighter ps."""
    st = tf.contrib.training.GreedyLoadBalancingStrategy(
        2, tf.contrib.training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=st)):
        gs = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [10, 20], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [20])
        big = tf.Variable(tf.ones([100, 100]), name="big")
        t = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1, name="ht")
        keys, _ = t.export()
    # TF 1.15's placements
    assert [v.device for v in (gs, w, b, big)] == [
        "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:0"]
    assert t.resource_handle.op.device == "/job:ps/task:1"
    # the table's saveable exported once already (TF 1.15's names)
    assert keys.op.name == "ht_lookup_table_export_values_1/LookupTableExportV2"
    assert keys.op.device == "/job:ps/task:1"
    assert tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1).export(
        name="ex")[0].name == "ex/LookupTableExportV2:0"
    op = tf.get_default_graph().get_operation_by_name("ht")
    assert tf.contrib.training.byte_size_load_fn(op) == 1


# -- tf.train.Server ------------------------------------------------------------------------


def _free():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_local_server_def_target_and_errors():
    srv = tf.train.Server.create_local_server()
    try:
        # the ServerDef as given (port 0); the target is localhost and the bound port
        assert srv.server_def.cluster.job[0].tasks[0] == "localhost:0"
        assert srv.target.startswith("grpc://localhost:") and not srv.target.endswith(":0")
        with tf.Session(srv.target) as sess:
            assert sess.run(tf.constant([1.0, 2.0]) * 3).tolist() == [3.0, 6.0]
    finally:
        srv.stop()
    port = _free()
    srv = tf.train.Server({"w": [f"127.0.0.1:{port}"]}, job_name="w", task_index=0)
    try:
        assert srv.target == f"grpc://localhost:{port}"  # TF's, whatever host is named
        with tf.Session(srv.target) as sess:
            assert sess.run(tf.constant(2) * 3) == 6
        assert _raises(tf.errors.UnknownError, lambda: tf.train.Server(
            {"a": [f"127.0.0.1:{port}"]})) == "Could not start gRPC server"
    finally:
        srv.stop()
    spec = {"worker": [f"127.0.0.1:{_free()}"]}
    assert _raises(tf.errors.InternalError, lambda: tf.train.Server(
        spec, job_name="chief", task_index=0)) == 'Job "chief" was not defined in cluster'
    msg = _raises(tf.errors.NotFoundError, lambda: tf.train.Server(
        {"a": [f"127.0.0.1:{_free()}"]}, protocol="foo"))
    assert msg.startswith("No server factory registered for the given ServerDef: cluster {")
    assert msg.endswith("The available server factories are: [ GRPC_SERVER ]")
    # a ServerDef without a protocol is no gRPC server's either
    bare = tf.train.ServerDef(cluster=tf.train.ClusterSpec(
        {"a": [f"127.0.0.1:{_free()}"]}).as_cluster_def(), job_name="a", task_index=0)
    _raises(tf.errors.NotFoundError, lambda: tf.train.Server(bare))


def test_reset_clears_each_task_default_container_named_after_its_job():
    """As TF: a task's variables live in a container named after its job; reset with no
    containers clears the default ones only (tf.container ones stay)."""
    ports = free_ports(2)
    spec = {"worker": [f"127.0.0.1:{ports[0]}"], "ps": [f"127.0.0.1:{ports[1]}"]}
    made = [tf.train.Server(spec, job_name=j, task_index=0) for j in ("ps", "worker")]
    try:
        target = made[1].target
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/job:worker/task:0"):
            u = tf.Variable([1.0], name="u")
            with tf.container("foo"):
                k = tf.Variable([3.0], name="k")
        seen = []
        for containers in (["bar"], ["ps"], ["worker"], None):
            with tf.Session(target) as sess:
                sess.run(tf.global_variables_initializer())
            tf.Session.reset(target, containers)
            with tf.Session(target) as sess:
                for var in (v, u, k):
                    try:
                        sess.run(var)
                        seen.append(True)
                    except tf.errors.FailedPreconditionError:
                        seen.append(False)
        assert seen == [True, True, True, False, True, True, True, False, True,
                        False, False, True]
    finally:
        for s in made:
            s.stop()


def test_errors_from_a_task_name_it_and_step_timeouts():
    srv = tf.train.Server.create_local_server()
    try:
        x = tf.placeholder(tf.float32, [None], name="x")
        r = tf.reshape(x, [2, 2])
        deq = tf.FIFOQueue(1, tf.float32).dequeue()
        with tf.Session(srv.target) as sess:
            msg = _raises(tf.errors.InvalidArgumentError, lambda: sess.run(r, {x: [1, 2, 3]}))
            assert msg.startswith("From /job:local/replica:0/task:0:\nInput to reshape is a "
                                  "tensor with 3 values, but the requested shape has 4")
            assert _raises(tf.errors.DeadlineExceededError, lambda: sess.run(
                deq, options=tf.RunOptions(timeout_in_ms=300))) == "Operation timed out."
    finally:
        srv.stop()


def test_ps_that_starts_after_its_worker_is_reached_at_once():
    """A worker that failed to reach its ps reaches it within about a second of it coming up
    (TF's channels cap gRPC's reconnect backoff at 1 s)."""
    ports = free_ports(2)
    spec = {"worker": [f"127.0.0.1:{ports[0]}"], "ps": [f"127.0.0.1:{ports[1]}"]}
    w = tf.train.Server(spec, job_name="worker", task_index=0)
    ps = None
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
        # 6 s of failed connects: gRPC's own backoff would next retry some 3 s later
        cfg = tf.ConfigProto(operation_timeout_in_ms=6000)
        with pytest.raises(tf.errors.UnavailableError):
            tf.Session(w.target, config=cfg).run(v.initializer)
        ps = tf.train.Server(spec, job_name="ps", task_index=0)
        start = time.monotonic()
        with tf.Session(w.target, config=cfg) as sess:
            sess.run(v.initializer)
            assert sess.run(v) == 1.0
        assert time.monotonic() - start < 2.0
    finally:
        for s in (ps, w):
            if s is not None:
                s.stop()


# -- between-graph synchronous training, one ps and two workers as processes ----------------

SYNC_WORKER = r"""
import json, sys
import numpy as np
import tideflow as tf
spec = json.loads(sys.argv[1]); idx = int(sys.argv[2])
cluster = tf.train.ClusterSpec(spec)
server = tf.train.Server(cluster, job_name="worker", task_index=idx)
with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:%d" % idx,
                                              cluster=cluster)):
    gs = tf.train.get_or_create_global_step()
    w = tf.get_variable("w", [3], initializer=tf.constant_initializer([1.0, 2.0, 3.0]))
    x = tf.placeholder(tf.float32, [None, 3])
    loss = tf.reduce_sum(tf.square(tf.reduce_sum(x * w, 1) - 1.0))
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.01),
                                         replicas_to_aggregate=2, total_num_replicas=2)
    train = opt.minimize(loss, global_step=gs)
out = {"vars": [[v.op.name, v.device] for v in tf.global_variables() + tf.local_variables()],
       "names": [opt.chief_init_op.name, opt.local_step_init_op.name,
                 opt.ready_for_local_init_op.name, opt.get_chief_queue_runner().name,
                 opt.get_init_tokens_op(0).name]}
hooks = [tf.train.StopAtStepHook(last_step=6), opt.make_session_run_hook(idx == 0, num_tokens=0)]
data = np.array([[1.0, 0.5, 0.25], [0.1, 0.2, 0.3]], np.float32) * (idx + 1)
cfg = tf.ConfigProto(device_filters=["/job:ps", "/job:worker/task:%d" % idx])
steps = []
with tf.train.MonitoredTrainingSession(
        master=server.target, is_chief=idx == 0, hooks=hooks, config=cfg,
        save_checkpoint_secs=None, save_summaries_steps=None, log_step_count_steps=None,
        stop_grace_period_secs=5) as sess:
    while not sess.should_stop() and len(steps) < 50:
        steps.append(int(sess.run([train, gs], {x: data})[1]))
out["steps"] = steps
print("OUT", json.dumps(out), flush=True)
"""

PS_SCRIPT = r"""
import json, sys
import tideflow as tf
server = tf.train.Server(json.loads(sys.argv[1]), job_name="ps", task_index=0)
server.join()
"""


def test_sync_replicas_between_graph_processes():
    ports = free_ports(3)
    spec = {"ps": [f"127.0.0.1:{ports[0]}"],
            "worker": [f"127.0.0.1:{ports[1]}", f"127.0.0.1:{ports[2]}"]}
    env = _env()
    procs = [subprocess.Popen([sys.executable, "-c", PS_SCRIPT, json.dumps(spec)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        wait_ready(spec["ps"][0])
        workers = [subprocess.Popen([sys.executable, "-c", SYNC_WORKER, json.dumps(spec), str(i)],
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True) for i in range(2)]
        procs += workers
        outs = []
        for p in workers:
            o, e = p.communicate(timeout=90)
            assert p.returncode == 0, e[-3000:]
            outs.append(json.loads(o.split("OUT ", 1)[1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(10)
    for i, out in enumerate(outs):
        # TF 1.15's placements, names and global steps (fetched with the train op)
        assert out["vars"] == [["global_step", "/job:ps/task:0"], ["w", "/job:ps/task:0"],
                               ["sync_rep_local_step", f"/job:worker/task:{i}"]]
        assert out["names"] == [
            "sync_replicas/group_deps", "Assign:0",
            "report_uninitialized_variables/boolean_mask/GatherV2:0", "dummy_queue",
            "no_init_tokens"]
        assert out["steps"] == [0, 1, 2, 3, 4, 5]
    np.testing.assert_equal(len(outs), 2)


# -- graph structure ----------------------------------------------------------------------


def test_sync_replicas_tokens_read_the_global_step_as_tf():
    cluster = {"ps": ["a:1", "b:1"], "worker": ["w:1", "w:2", "w:3"]}
    with tf.device(tf.train.replica_device_setter(cluster=cluster,
                                                  worker_device="/job:worker/task:1")):
        gs = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [3, 2])
        x = tf.placeholder(tf.float32, [None, 3])
        loss = tf.reduce_mean(tf.matmul(x, w))
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2, 3,
                                             name="sync")
        gv = opt.compute_gradients(loss)
        opt.apply_gradients(gv, global_step=gs)
        opt.apply_gradients(gv, global_step=gs)
    g = tf.get_default_graph()
    # the tokens are a Fill of the global step's own read (no extra read op)
    assert [t.name for t in g.get_operation_by_name("Fill").inputs] == [
        "Fill/dims:0", "global_step/read:0"]
    assert "read" not in [op.name for op in g.get_operations()]
    # the chief sets the global step of every accumulator made so far
    ctl = [c.name for op in opt.chief_init_op.control_inputs for c in op.control_inputs]
    assert sorted(n for n in ctl if "SetGlobalStep" in n) == [
        "sync_1/SetGlobalStep", "sync_1/SetGlobalStep_1"]


def test_boolean_mask_builds_tf_ops():
    tf.boolean_mask(tf.constant(["a", "b", "c"]), tf.constant([True, False, True]))
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()][2:] == [
        ("boolean_mask/Shape", "Const"), ("boolean_mask/strided_slice/stack", "Const"),
        ("boolean_mask/strided_slice/stack_1", "Const"),
        ("boolean_mask/strided_slice/stack_2", "Const"),
        ("boolean_mask/strided_slice", "StridedSlice"),
        ("boolean_mask/Prod/reduction_indices", "Const"), ("boolean_mask/Prod", "Prod"),
        ("boolean_mask/Shape_1", "Const"), ("boolean_mask/strided_slice_1/stack", "Const"),
        ("boolean_mask/strided_slice_1/stack_1", "Const"),
        ("boolean_mask/strided_slice_1/stack_2", "Const"),
        ("boolean_mask/strided_slice_1", "StridedSlice"), ("boolean_mask/Shape_2", "Const"),
        ("boolean_mask/strided_slice_2/stack", "Const"),
        ("boolean_mask/strided_slice_2/stack_1", "Const"),
        ("boolean_mask/strided_slice_2/stack_2", "Const"),
        ("boolean_mask/strided_slice_2", "StridedSlice"), ("boolean_mask/concat/values_1", "Pack"),
        ("boolean_mask/concat/axis", "Const"), ("boolean_mask/concat", "ConcatV2"),
        ("boolean_mask/Reshape", "Reshape"), ("boolean_mask/Reshape_1/shape", "Const"),
        ("boolean_mask/Reshape_1", "Reshape"), ("boolean_mask/Where", "Where"),
        ("boolean_mask/Squeeze", "Squeeze"), ("boolean_mask/GatherV2/axis", "Const"),
        ("boolean_mask/GatherV2", "GatherV2")]
    x = tf.placeholder(tf.float32, [None, 3, 4])
    m = tf.placeholder(tf.bool, [3, 4])
    r = tf.boolean_mask(x, m, axis=1)
    assert r.shape.as_list() == [None, None]
    xx = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    mm = (np.arange(12).reshape(3, 4) % 3) == 0
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(r, {x: xx, m: mm}), xx[:, mm])


def test_merge_device_function_gives_a_device_spec():
    from tideflow.framework import device as pydev

    class _Node:
        device = "/cpu:0"

    spec = pydev.merge_device("/job:ps/task:1")(_Node())
    assert spec.to_string() == "/job:ps/task:1/device:CPU:0"
    with tf.device(pydev.merge_device("/job:ps/task:1")), tf.device(
            pydev.merge_device("/gpu:0")):
        c = tf.constant(1.0)
    assert c.device == "/job:ps/task:1/device:GPU:0"


def test_conditional_accumulator_is_tf_115s_resource_form():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2], shared_name="sh", name="acc")
    ref = acc.accumulator_ref
    assert (ref.name, ref.op.type, ref.dtype, ref.shape.as_list()) == (
        "acc:0", "ResourceConditionalAccumulator", tf.resource, [2])
    num = acc.num_accumulated()
    assert (num.name, num.op.type) == ("acc_NumAccumulated:0",
                                       "ResourceAccumulatorNumAccumulated")
    set_step = acc.set_global_step(3)
    apply = acc.apply_grad([1.0, 2.0], local_step=3)
    take = acc.take_grad(1)
    assert [set_step.type, apply.type, take.op.type] == [
        "ResourceAccumulatorSetGlobalStep", "ResourceAccumulatorApplyGradient",
        "ResourceAccumulatorTakeGradient"]
    assert take.shape.as_list() == [2]
    sparse = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 2], name="sp")
    assert sparse.accumulator_ref.dtype == tf.string._as_ref
    assert sparse.set_global_step(1).type == "AccumulatorSetGlobalStep"
    with tf.Session() as sess:
        sess.run(set_step)
        sess.run(apply)
        sess.run(acc.apply_grad([3.0, 4.0], local_step=3))
        sess.run(acc.apply_grad([9.0, 9.0], local_step=1))  # stale: dropped
        assert sess.run(num) == 2
        assert sess.run(take).tolist() == [2.0, 3.0]
        assert sess.run(num) == 0
        with pytest.raises(tf.errors.InvalidArgumentError, match="num_required must be"):
            sess.run(acc.take_grad(0))


# -- cluster resolvers ----------------------------------------------------------------------


def test_cluster_resolvers_master_and_union(monkeypatch):
    R = tf.distribute.cluster_resolver
    a = R.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1", "a:2"], "ps": ["p:1"]}),
                                master="a:1", task_type="worker", task_id=1, rpc_layer="grpc")
    b = R.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["b:1"], "eval": ["e:1"]}),
                                task_type="ps", task_id=0)
    c = R.SimpleClusterResolver(tf.train.ClusterSpec({"worker": {5: "c:5"}}))
    d = R.SimpleClusterResolver(tf.train.ClusterSpec({"worker": {1: "d:1"}}))
    assert (a.master(), a.master("ps", 0), a.master("ps", 0, rpc_layer="http")) == (
        "grpc://a:1", "grpc://p:1", "http://p:1")
    assert _raises(ValueError, lambda: a.master("chief", 0)) == "No such job in cluster: 'chief'"
    assert str(R.UnionResolver(a, b).cluster_spec()) == (
        "ClusterSpec({'eval': ['e:1'], 'ps': ['p:1'], 'worker': ['a:1', 'a:2', 'b:1']})")
    assert str(R.UnionResolver(a, c).cluster_spec()) == (
        "ClusterSpec({'ps': ['p:1'], 'worker': {0: 'a:1', 1: 'a:2', 5: 'c:5'}})")
    assert _raises(KeyError, lambda: R.UnionResolver(a, d).cluster_spec()) == (
        "'Duplicate keys detected when merging two ClusterSpecs: {1}'")
    u = R.UnionResolver(a, b)
    assert (u.task_type, u.task_id, u.rpc_layer, u.master(), u.master("eval", 0)) == (
        "worker", 1, "grpc", "grpc://a:1", "e:1")  # the union's own (unset) RPC layer
    assert _raises(ValueError, R.UnionResolver) == "At least one ClusterResolver is required."
    assert _raises(TypeError, lambda: R.UnionResolver(3)) == (
        "All arguments must be a sub-class of `ClusterResolver.`")
    cfg = {"cluster": {"worker": ["w:1", "w:2"]}, "task": {"type": "worker", "index": 1},
           "rpc_layer": "grpc"}
    monkeypatch.setenv("TF_CONFIG", json.dumps(cfg))
    r = R.TFConfigClusterResolver()
    # TF 1.15 formats with the resolver's own RPC layer, not the argument
    assert (r.master(), r.master(rpc_layer="http"), r.master("worker", 0)) == (
        "grpc://w:2", "grpc://w:2", "grpc://w:1")
    monkeypatch.setenv("TF_CONFIG", json.dumps(dict(cfg, session_master="sm:9")))
    assert R.TFConfigClusterResolver().master() == "sm:9"
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": {"worker": ["w:1"]}, "task": {"type": "worker", "index": 0}}))
    assert R.TFConfigClusterResolver().master() == ""  # a single task
    monkeypatch.setenv("TF_CONFIG", "{bad")
    with pytest.raises(json.JSONDecodeError, match="Expecting property name enclosed"):
        tf.estimator.RunConfig()


def test_accumulators_count_as_ps_ops():
    """TF 1.15's STANDARD_PS_OPS holds ResourceConditionalAccumulator: one goes to a ps task
    and takes its turn in the round robin (also when its device was given). Under the
    fixture's ``Graph().as_default()`` the slot-like variables made under ``colocate_with``
    take turns too, as TF 1.15 gives it there (tests/test_monitored_parity18.py)."""
    with tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        gs = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [2])
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 1)
        opt.minimize(tf.reduce_sum(w), global_step=gs)
        acc = tf.ConditionalAccumulator(tf.float32, [2], name="myacc")
        after = [tf.get_variable(f"after{i}", [1]) for i in range(4)]
    ops = {op.name: op.device for op in tf.get_default_graph().get_operations()}
    assert ops["sync_rep_local_step"] == "/job:worker"
    assert ops["sync_replicas/conditional_accumulator"] == "/job:ps/task:1"
    assert acc.accumulator_ref.device == "/job:ps/task:1"
    assert [v.device for v in after] == [
        "/job:ps/task:2", "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2"]


def test_contrib_cluster_resolver_names():
    cr = tf.contrib.cluster_resolver
    assert cr.UnionClusterResolver is tf.distribute.cluster_resolver.UnionResolver
    assert cr.UnionClusterResolver.__name__ == "UnionClusterResolver"
    assert cr.TFConfigClusterResolver is tf.distribute.cluster_resolver.TFConfigClusterResolver
    assert cr.SimpleClusterResolver is tf.distribute.cluster_resolver.SimpleClusterResolver
