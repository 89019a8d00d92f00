"""Distributed TF 1.x programs against TF 1.15's own answers (the same programs run under real
TF 1.15 with its grpc servers in separate processes; what it printed is written here): closing
a session its master no longer knows, the master's own task under device_filters, and what a
traced step over the cluster returns (step stats by trace level, partition graphs). The
servers run in processes of their own on free loopback ports; the clients run here."""

import pytest

import tideflow as tf
from tests.distributed.cluster_procs import Cluster, cluster_spec


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(cluster_spec(ps=1, worker=2), tmp_path_factory.mktemp("cluster")).start_all()
    yield c
    c.stop()


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _filters(*tasks):
    return tf.ConfigProto(device_filters=list(tasks))


def test_a_session_closed_by_reset_is_aborted_at_its_next_run_and_its_close(cluster):
    # TF 1.15: after Session.reset the master no longer knows the session; a run says
    # "Session <handle> is not found." and close (the one of a `with` block too) says
    # "... is not found. Possibly, this master has restarted.", both AbortedError; a second
    # close is a no-op, and a new session sees the reset (an uninitialized variable)
    target = cluster.target("worker", 0)
    cfg = _filters("/job:ps", "/job:worker/task:0")
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v_reset24")
    sess = tf.Session(target, config=cfg)
    sess.run(v.initializer)
    tf.Session.reset(target, config=cfg)
    with pytest.raises(tf.errors.AbortedError, match=r"^Session \S+ is not found\.$"):
        sess.run(v)
    with pytest.raises(tf.errors.AbortedError,
                       match=r"^Session \S+ is not found\. Possibly, this master has restarted\."):
        sess.close()
    sess.close()
    with pytest.raises(tf.errors.AbortedError, match="Possibly, this master has restarted"), \
            tf.Session(target, config=cfg) as s2:
        s2.run(v.initializer)
        tf.Session.reset(target, config=cfg)
    with tf.Session(target, config=cfg) as s3, pytest.raises(tf.errors.FailedPreconditionError):
        s3.run(v)


def test_device_filters_never_drop_the_masters_own_task(cluster):
    # TF 1.15 (a session on worker 0's master): its own devices are always the session's,
    # whatever device_filters say; an op without a device runs there
    target = cluster.target("worker", 0)

    def names(cfg):
        with tf.Session(target, config=cfg) as sess:
            return [d.name for d in sess.list_devices() if "XLA" not in d.name]

    w0 = "/job:worker/replica:0/task:0/device:CPU:0"
    ps0 = "/job:ps/replica:0/task:0/device:CPU:0"
    assert names(_filters("/job:ps", "/job:worker/task:0")) == [w0, ps0]
    assert names(_filters("/job:ps")) == [w0, ps0]
    assert names(_filters("/job:ps/task:1")) == [w0]
    assert names(_filters("/job:nope")) == [w0]
    with tf.Session(target, config=_filters("/job:nope")) as sess:
        assert sess.run(tf.constant(3)) == 3
    with tf.device("/job:worker/task:1"):
        y = tf.constant(1.0) * 3
    expected = (r"was explicitly assigned to /job:worker/task:1 but available devices are \[ "
                r"/job:ps/replica:0/task:0/device:CPU:0, /job:ps/replica:0/task:0/device:XLA_CPU:0, "
                r"/job:worker/replica:0/task:0/device:CPU:0, "
                r"/job:worker/replica:0/task:0/device:XLA_CPU:0 \]")
    with tf.Session(target, config=_filters("/job:ps")) as sess, \
            pytest.raises(tf.errors.InvalidArgumentError, match=expected):
        sess.run(y)


def test_a_traced_step_over_the_cluster_returns_what_tf_does(cluster):
    # TF 1.15's master collects the workers' step stats for a full trace only (software and
    # hardware traces return none); a full trace has each task's host tracer ('/host:CPU',
    # its kernels as 'name:Type'); output_partition_graphs returns the graph each task ran
    # (ps: v, AssignAdd/value, AssignAdd and a _Send; worker: a _Recv, mul/y, mul, the
    # reduction's axes, y and a _Send)
    with tf.device("/job:ps/task:0"):
        v = tf.Variable([1.0, 2.0], name="v_trace24")
        u = tf.assign_add(v, [1.0, 1.0])
    with tf.device("/job:worker/task:0"):
        y = tf.reduce_sum(u * 3, name="y")
    cfg = _filters("/job:ps", "/job:worker/task:0")
    with tf.Session(cluster.target("worker", 0), config=cfg) as sess:
        sess.run(v.initializer)
        for level in (tf.RunOptions.SOFTWARE_TRACE, tf.RunOptions.HARDWARE_TRACE):
            rm = tf.RunMetadata()
            sess.run(y, options=tf.RunOptions(trace_level=level), run_metadata=rm)
            assert len(rm.step_stats.dev_stats) == 0
        rm = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
        assert sess.run(y, options=opts, run_metadata=rm) == 27.0  # the third update
    devs = {}
    for ds in rm.step_stats.dev_stats:
        devs.setdefault(ds.device, []).append(ds)
    assert sorted(devs) == ["/host:CPU", "/job:ps/replica:0/task:0/device:CPU:0",
                            "/job:worker/replica:0/task:0/device:CPU:0"]
    host = sorted(n.node_name for ds in devs["/host:CPU"] for n in ds.node_stats)
    for name in ["AssignAdd:AssignAdd", "mul:Mul", "v_trace24:VariableV2", "y:Sum"]:
        assert name in host
    ps_nodes = {n.node_name for n in devs["/job:ps/replica:0/task:0/device:CPU:0"][0].node_stats}
    assert {"AssignAdd", "AssignAdd/value", "_SOURCE", "v_trace24"} <= ps_nodes
    graphs = sorted((sorted(n.op for n in g.node) for g in rm.partition_graphs), key=len)
    assert graphs == [["AssignAdd", "Const", "VariableV2", "_Send"],
                      ["Const", "Const", "Mul", "Sum", "_Recv", "_Send"]]
    for g in rm.partition_graphs:
        assert all(n.device for n in g.node)


def test_a_servers_default_device_filters_do_not_limit_the_tasks_a_session_sees():
    # TF 1.15: a Server's config joins each session's options after the master found the
    # session's tasks, which only the client's own device_filters limit (under the server's
    # filters alone, a session waits for the task they leave out)
    spec = cluster_spec(ps=1, worker=2)
    servers = [tf.train.Server(spec, job_name="ps", task_index=0),
               tf.train.Server(spec, job_name="worker", task_index=1)]
    server = tf.train.Server(spec, job_name="worker", task_index=0, config=tf.ConfigProto(
        allow_soft_placement=True, device_filters=["/job:ps", "/job:worker/task:0"]))
    servers.append(server)
    try:
        sd = server.server_def.default_session_config
        assert sd.allow_soft_placement and list(sd.device_filters) == ["/job:ps",
                                                                        "/job:worker/task:0"]
        with tf.device("/job:worker/task:0/device:GPU:0"):
            y = tf.constant([1.0, 2.0]) * 2
        with tf.Session(server.target) as sess:
            assert [d.name for d in sess.list_devices() if "XLA" not in d.name] == [
                "/job:worker/replica:0/task:0/device:CPU:0",
                "/job:ps/replica:0/task:0/device:CPU:0",
                "/job:worker/replica:0/task:1/device:CPU:0"]
            assert sess.run(y).tolist() == [2.0, 4.0]  # the server's soft placement
    finally:
        for s in servers:
            s.stop()


def test_a_node_for_a_device_the_session_lacks_fails_every_step(cluster):
    # TF 1.15 places the whole graph when it grows: a node explicitly assigned to a task the
    # session does not have (one its device_filters leave out, one of no job) fails every
    # step from then on, not only the steps that run it; the error names the op, not the
    # Const it reads; soft placement does not help for a task (it does for a device index)
    target = cluster.target("worker", 0)
    cfg = _filters("/job:ps", "/job:worker/task:0")
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(1.0, name="v_place24")
    with tf.Session(target, config=cfg) as sess:
        sess.run(v.initializer)
        assert sess.run(v) == 1.0
        with tf.device("/job:worker/task:1"):
            y = tf.constant(2.0, name="c_place24") * 3
        for fetch in (v, y, v):
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"^Cannot assign a device for operation mul: node mul .*"
                               r"was explicitly assigned to /job:worker/task:1 but available"):
                sess.run(fetch)
    for soft in (False, True):
        with tf.Graph().as_default(), tf.Session(
                target, config=tf.ConfigProto(allow_soft_placement=soft,
                                              device_filters=["/job:ps"])) as sess:
            with tf.device("/job:ps/task:0"):
                a = tf.constant(1.0) + 1
            with tf.device("/job:ps/task:0/device:CPU:7"):
                b = tf.constant(1.0) * 2
            if not soft:
                with pytest.raises(tf.errors.InvalidArgumentError, match="/device:CPU:7"):
                    sess.run(a)
                continue
            assert sess.run([a, b]) == [2.0, 2.0]
            with tf.device("/job:chief/task:0"):
                tf.constant(0.0, name="c_chief24")
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"operation c_chief24: node c_chief24 \(defined at "
                               r".*test_dist_programs_parity24.py:\d+\)  was explicitly "
                               r"assigned to /job:chief/task:0"):
                sess.run(a)


def test_reset_clears_every_task_whatever_the_configs_device_filters(cluster):
    # TF 1.15's client sends Reset without the config's device_filters: the master clears
    # the containers of every task, those the filters leave out too
    target = cluster.target("worker", 0)
    with tf.device("/job:worker/task:1"):
        w = tf.Variable(5.0, name="w_reset24")
    with tf.Session(target) as sess:
        sess.run(w.initializer)
        assert sess.run(w) == 5.0
    tf.Session.reset(target, config=_filters("/job:ps", "/job:worker/task:0"))
    with tf.Session(target) as sess, pytest.raises(tf.errors.FailedPreconditionError):
        sess.run(w)
