"""Profiling and session driving beyond run() as TF 1.15 programs see them: tf.profiler views,
traced steps, partial runs, callables, session configs and lifecycles."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import errors


def test_list_devices_on_a_closed_session_is_cancelled():
    # TF 1.15: sess.list_devices() after close() raises CancelledError "Session has been closed."
    with tf.Graph().as_default():
        sess = tf.Session()
        assert "CPU" in [d.device_type for d in sess.list_devices()]
        sess.close()
        with pytest.raises(errors.CancelledError, match="^Session has been closed.$"):
            sess.list_devices()


def test_op_view_groups_ops_in_multi_graph_nodes():
    # TF 1.15: the op view returns MultiGraphNodeProto nodes whose graph_nodes are the
    # grouped ops' GraphNodeProto, by name (aa 64, mm 256, zz 128 flops)
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.ones((4, 4), np.float32))
        tf.matmul(x, x, name="zz")
        tf.matmul(tf.ones([2, 4]), x, name="aa")
        tf.matmul(tf.ones([8, 4]), x, name="mm")
    opts = tf.profiler.ProfileOptionBuilder.float_operation()
    opts["output"] = "none"
    root = tf.profiler.profile(g, cmd="op", options=opts)
    assert type(root).__name__ == "MultiGraphNodeProto"
    assert isinstance(root, tf.profiler.MultiGraphNodeProto)
    matmul = root.children[0]
    assert type(matmul).__name__ == "MultiGraphNodeProto"
    assert (matmul.name, matmul.total_float_ops) == ("MatMul", 448)
    nodes = [(type(n).__name__, n.name, n.float_ops, n.total_float_ops)
             for n in matmul.graph_nodes]
    assert nodes == [("GraphNodeProto", "aa", 64, 64), ("GraphNodeProto", "mm", 256, 256),
                     ("GraphNodeProto", "zz", 128, 128)]
    scope = tf.profiler.profile(g, cmd="scope", options=opts)
    assert type(scope).__name__ == "GraphNodeProto"


def _traced_matmul_step():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [64, 64])
        y = tf.matmul(x, x)
        with tf.Session() as sess:
            md = tf.RunMetadata()
            sess.run(y, {x: np.ones((64, 64))}, run_metadata=md,
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
    return g, md


def test_advise_returns_an_advice_proto_and_prints_each_checker(capsys):
    # TF 1.15: tf.profiler.advise returns an AdviceProto (checkers: name -> reports), runs all
    # checkers by default and prints "\n<checker>:\n" then its reports; an options dict picks
    # checkers (unknown names ignored, {} none); the expensive-op checker's first report lists
    # "top 1 operation type: MatMul, cpu: ..., accelerator: 0us, total: ... (..%)"
    g, md = _traced_matmul_step()
    capsys.readouterr()
    adv = tf.profiler.advise(g, run_meta=md)
    assert type(adv).__name__ == "AdviceProto"
    assert sorted(adv.checkers) == ["AcceleratorUtilizationChecker",
                                    "ExpensiveOperationChecker", "OperationChecker"]
    assert list(adv.checkers["AcceleratorUtilizationChecker"].reports) == []
    assert list(adv.checkers["OperationChecker"].reports) == []
    reports = adv.checkers["ExpensiveOperationChecker"].reports
    assert reports[0].startswith("top 1 operation type: MatMul, cpu: ")
    assert ", accelerator: 0us, total: " in reports[0]
    out = capsys.readouterr().out
    assert out.startswith("Parsing Inputs...\n")
    for name in adv.checkers:
        assert f"\n{name}:\n" in out
    assert reports[0] + "\n" in out
    adv = tf.profiler.advise(g, run_meta=md, options={"OperationChecker": {}, "Bogus": {}})
    assert str(adv) == 'checkers {\n  key: "OperationChecker"\n  value {\n  }\n}\n'
    assert capsys.readouterr().out == "Parsing Inputs...\n\nOperationChecker:\n"
    assert list(tf.profiler.advise(g, options={}).checkers) == []


def test_profiler_advise_uses_its_steps():
    # TF 1.15: Profiler.advise(options) takes the options positionally (no default) and
    # advises over the steps added
    g, md = _traced_matmul_step()
    prof = tf.profiler.Profiler(g)
    prof.add_step(0, md)
    with pytest.raises(TypeError):
        prof.advise()
    adv = prof.advise({"ExpensiveOperationChecker": {}})
    assert [r.split(",")[0] for r in adv.checkers["ExpensiveOperationChecker"].reports][:1] == [
        "top 1 operation type: MatMul"]
    assert tf.contrib.tfprof.model_analyzer.ALL_ADVICE == {
        "ExpensiveOperationChecker": {}, "AcceleratorUtilizationChecker": {},
        "JobChecker": {}, "OperationChecker": {}}


def test_session_reset_closes_every_local_session():
    # TF 1.15: Session.reset("") closes all direct sessions of the process (any containers):
    # their steps, callables and partial runs raise CancelledError "Session has been closed.",
    # an interactive session stays the default, list_devices still answers, and a later
    # close() makes them Python-closed (RuntimeError); new sessions work
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])
        y = x * 2
        v = tf.Variable(3.0)
        sess = tf.Session()
        sess.run(v.initializer)
        call = sess.make_callable(y, feed_list=[x])
        handle = sess.partial_run_setup([y], [x])
        with tf.Graph().as_default():
            other = tf.Session()
            c = tf.constant(5)
            assert other.run(c) == 5
        isess = tf.InteractiveSession(graph=g)
        assert tf.Session.reset("", containers=["elsewhere"]) is None
        for attempt in (lambda: sess.run(v), lambda: call(1.0), lambda: other.run(c),
                        lambda: sess.partial_run(handle, y, feed_dict={x: 1.0}),
                        lambda: y.eval(feed_dict={x: 1.0})):
            with pytest.raises(errors.CancelledError, match="^Session has been closed.$"):
                attempt()
        assert "CPU" in [d.device_type for d in sess.list_devices()]
        sess.close()
        with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
            sess.run(v)
        isess.close()
        assert tf.get_default_session() is None
        with tf.Session() as fresh:
            assert fresh.run(y, {x: 4.0}) == 8.0
        with pytest.raises(TypeError, match="Expected binary or unicode string, got 123"):
            tf.Session.reset(123)


def test_partial_run_handles_name_their_setup():
    # TF 1.15: a partial run's handle is "<sorted feeds>-><sorted fetches>/<sorted targets>/1/;N"
    # with N counting the session's setups from 0
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        r = tf.add(a, b, name="r")
        v = tf.Variable(0.0, name="v")
        up = tf.assign_add(v, r, name="up")
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.partial_run_setup([r], [b, a]) == "a:0,b:0->r:0//1/;0"
            assert sess.partial_run_setup([up, r], [a, b]) == "a:0,b:0->r:0,up:0//1/;1"
            handle = sess.partial_run_setup([up.op], [a, b])
            assert handle == "a:0,b:0->/up/1/;2"
            assert sess.partial_run(handle, [], feed_dict={a: 1.0, b: 2.0}) == []
            assert sess.run(v) == 3.0


def test_a_step_past_its_deadline_names_no_op():
    # TF 1.15: a step that outlives RunOptions.timeout_in_ms or operation_timeout_in_ms
    # raises the session's DeadlineExceededError "Timed out waiting for notification", its op
    # and node_def None, whatever blocked (a dequeue, an endless loop, a callable's step)
    g = tf.Graph()
    with g.as_default():
        loop = tf.while_loop(lambda i: i >= 0, lambda i: i + 1, [0])
        deq = tf.FIFOQueue(1, tf.float32, shapes=[[]]).dequeue()
        with tf.Session() as sess:
            for fetch in (loop, deq):
                with pytest.raises(errors.DeadlineExceededError) as info:
                    sess.run(fetch, options=tf.RunOptions(timeout_in_ms=150))
                assert str(info.value) == "Timed out waiting for notification"
                assert info.value.op is None and info.value.node_def is None
        with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=150)) as sess:
            for attempt in (sess.make_callable(deq),
                            lambda: sess.run(deq, options=tf.RunOptions(trace_level=3),
                                             run_metadata=tf.RunMetadata())):
                with pytest.raises(errors.DeadlineExceededError) as info:
                    attempt()
                assert str(info.value) == "Timed out waiting for notification"
                assert info.value.op is None


def test_run_options_thread_pool_must_be_the_sessions():
    # TF 1.15: RunOptions.inter_op_thread_pool is -1 or the index of one of the session's
    # pools (one by default); another raises "Invalid inter_op_thread_pool: N" before any op
    # runs (an initializer so refused leaves its variable uninitialized)
    g = tf.Graph()
    with g.as_default():
        y = tf.constant(2.0) * 3
        v = tf.Variable(1.0)
        with tf.Session() as sess:
            for pool in (-1, 0):
                assert sess.run(y, options=tf.RunOptions(inter_op_thread_pool=pool)) == 6.0
            for pool in (-2, 1):
                with pytest.raises(errors.InvalidArgumentError,
                                   match=f"^Invalid inter_op_thread_pool: {pool}$"):
                    sess.run(y, options=tf.RunOptions(inter_op_thread_pool=pool))
            with pytest.raises(errors.InvalidArgumentError):
                sess.run(v.initializer, options=tf.RunOptions(inter_op_thread_pool=1))
            with pytest.raises(errors.FailedPreconditionError):
                sess.run(v)
        config = tf.ConfigProto()
        config.session_inter_op_thread_pool.add(num_threads=1)
        config.session_inter_op_thread_pool.add(num_threads=2)
        with tf.Session(config=config) as sess:
            assert sess.run(y, options=tf.RunOptions(inter_op_thread_pool=1)) == 6.0
            with pytest.raises(errors.InvalidArgumentError,
                               match="^Invalid inter_op_thread_pool: 2$"):
                sess.run(y, options=tf.RunOptions(inter_op_thread_pool=2))


def test_parameters_come_from_a_nodes_shape_attr(capsys):
    # TF 1.15's tfprof: a node's shape is its "shape" attr (variables, placeholders; -1 for an
    # unknown dimension, [1] for a scalar) and its parameters that shape's elements, trainable
    # or not; accounting every type (".*") counts them all and shows bare scopes as "0/0"
    g = tf.Graph()
    with g.as_default():
        tf.placeholder(tf.float32, [4, 6], name="x")
        tf.placeholder(tf.float32, [None, 6], name="xu")
        tf.placeholder_with_default(tf.ones([2, 2]), [2, 2], name="pwd")
        tf.Variable(tf.ones([3]), trainable=False, name="v")
        tf.get_variable("w", [2, 5])
        tf.Variable(2.0, name="s")
    builder = tf.profiler.ProfileOptionBuilder
    opts = builder(builder.trainable_variables_parameter()).with_accounted_types([".*"]).build()
    capsys.readouterr()
    root = tf.profiler.profile(g, options=opts)
    assert root.total_parameters == 42
    assert {c.name: c.parameters for c in root.children if c.parameters} == {
        "pwd": 4, "s": 1, "v": 3, "w": 10, "x": 24}
    out = capsys.readouterr().out
    for line in ("  ones (0/0 params)", "  s (1, 1/1 params)", "    w/Initializer (0/0 params)",
                 "      w/Initializer/random_uniform (0/0 params)", "  x (4x6, 24/24 params)",
                 "  xu (-1x6, 0/0 params)", "_TFProfRoot (--/42 params)"):
        assert line + "\n" in out
    opts = builder.trainable_variables_parameter()
    opts["output"] = "none"
    assert tf.profiler.profile(g, options=opts).total_parameters == 11


def test_timeline_output_writes_tfprofs_chrome_traces(tmp_path, capsys):
    # TF 1.15: a timeline:outfile=PATH output writes no report but a Chrome trace: the graph
    # view's to PATH_<step> (profile's run_meta is step 0; a Profiler's step -1 writes every
    # step), a process per device named "Op scheduling threads: <device, lower case>" and a
    # region per shown op; the scope view's to PATH_-1 (a process per depth, "Scope:N"); the
    # op view's nowhere. Each prints "Timeline file is written to ..."
    import json
    import os

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [8, 3])
        with tf.variable_scope("lin"):
            w = tf.get_variable("w", [3, 2])
            y = tf.nn.relu(tf.matmul(x, w))
        with tf.Session() as sess:
            sess.run(w.initializer)
            md = tf.RunMetadata()
            sess.run(y, {x: np.ones((8, 3))}, options=tf.RunOptions(trace_level=3),
                     run_metadata=md)
    builder = tf.profiler.ProfileOptionBuilder
    opts = (builder(builder.time_and_memory()).with_min_memory(0).with_min_execution_time(0)
            .with_timeline_output(str(tmp_path / "g.json")).build())
    capsys.readouterr()
    tf.profiler.profile(g, run_meta=md, cmd="graph", options=opts)
    out = capsys.readouterr().out
    path = str(tmp_path / "g.json_0")
    assert out == ("Parsing Inputs...\ngenerating trace file.\n\n" + "*" * 54 + "\n"
                   f"Timeline file is written to {path}.\nOpen a Chrome browser, enter URL "
                   "chrome://tracing and load the timeline file.\n" + "*" * 54 + "\n")
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    assert events[0] == {"args": {"name": "Op scheduling threads: "
                                  "/job:localhost/replica:0/task:0/device:cpu:0"},
                         "name": "process_name", "ph": "M", "pid": 0}
    # (TF's trace also holds the step's _arg_/_retval_ nodes, which tideflow's steps lack)
    regions = [e for e in events[1:] if e["ph"] == "X" and not e["name"].startswith("_")]
    # (tfprof keeps one op per device and start microsecond: on a fast run the read can start
    # in the variable's microsecond and is then not shown)
    names = [e["name"] for e in regions]
    order = ["lin/w", "lin/w/read", "lin/MatMul", "lin/Relu"]
    assert names == [n for n in order if n in names] and len(names) >= 3
    assert sorted(regions[0]) == ["args", "cat", "dur", "name", "ph", "pid", "tid", "ts"]
    matmul = [e for e in regions if e["name"] == "lin/MatMul"]
    assert not matmul or (matmul[0]["args"] == {"name": "lin/MatMul"}
                          and matmul[0]["cat"] == "Op")
    tf.profiler.profile(g, run_meta=md, cmd="scope", options=opts)
    with open(tmp_path / "g.json_-1") as f:
        events = json.load(f)["traceEvents"]
    assert [(e["ph"], e["pid"], e["args"]["name"]) for e in events][:4] == [
        ("M", 0, "Scope:0"), ("X", 0, "_TFProfRoot"), ("M", 1, "Scope:1"), ("X", 1, "lin")]
    assert events[1]["ts"] == 0 and events[1]["args"]["op"] == "_TFProfRoot"
    tf.profiler.profile(g, run_meta=md, cmd="op", options=opts)
    assert sorted(os.listdir(tmp_path)) == ["g.json_-1", "g.json_0"]
    prof = tf.profiler.Profiler(g)
    prof.add_step(3, md)
    prof.add_step(7, md)
    prof.profile_graph(builder(opts).with_timeline_output(str(tmp_path / "p.json")).build())
    prof.profile_graph(builder(opts).with_timeline_output(str(tmp_path / "q.json"))
                       .with_step(3).build())
    assert sorted(os.listdir(tmp_path)) == ["g.json_-1", "g.json_0", "p.json_3", "p.json_7",
                                            "q.json_3"]


def test_traced_steps_record_tfs_call_frame_nodes():
    # TF 1.15: a FULL_TRACE step's stats hold _SOURCE, an _Arg per feed the step reads
    # ("_arg_<op>_<output>_<i>", i its place among the feeds by name), the Consts it reads and
    # a _Retval per fetch ("_retval_<op>_<output>_<i>", the distinct fetches by name; a fed
    # fetch has none), and the ops' labels name the _Arg nodes they read
    g = tf.Graph()
    with g.as_default():
        b = tf.placeholder(tf.float32, [], name="b")
        a = tf.placeholder(tf.float32, [], name="a")
        with tf.name_scope("sc"):
            c = tf.add(a, b, name="c")
        d = tf.multiply(c, 2.0, name="d")
        sp = tf.split(tf.stack([a, b]), 2, name="sp")
        with tf.Session() as sess:
            def labels(fetches, feed):
                md = tf.RunMetadata()
                sess.run(fetches, feed, options=tf.RunOptions(trace_level=3), run_metadata=md)
                return {n.node_name: n.timeline_label
                        for dev in md.step_stats.dev_stats for n in dev.node_stats
                        if dev.device != "/host:CPU"}

            got = labels([d, c, sp[1], c, a], {b: 1.0, a: 2.0})
    assert sorted(got) == ["_SOURCE", "_arg_a_0_0", "_arg_b_0_1", "_retval_d_0_0",
                           "_retval_sc/c_0_1", "_retval_sp_1_2", "d", "d/y", "sc/c", "sp",
                           "sp/split_dim", "stack"]
    assert got["_SOURCE"] == "_SOURCE = NoOp()"
    assert got["_arg_b_0_1"] == "_arg_b_0_1 = _Arg()"
    assert got["sc/c"] == "sc/c = Add(_arg_a_0_0, _arg_b_0_1)"
    assert got["d/y"] == "d/y = Const()"
    assert got["_retval_sp_1_2"] == "_retval_sp_1_2 = _Retval(sp:1)"


def test_partition_graphs_hold_arg_and_retval_nodes():
    # TF 1.15: output_partition_graphs shows the step's _Arg nodes (attrs T and index, the
    # feeds by name) feeding their readers, and a _Retval (T, index) reading each fetch
    g = tf.Graph()
    with g.as_default():
        b = tf.placeholder(tf.float32, [2], name="b")
        a = tf.placeholder(tf.int32, [], name="a")
        c = tf.cast(a, tf.float32) + b
        d = tf.reduce_sum(c, name="d")
        with tf.Session() as sess:
            md = tf.RunMetadata()
            sess.run([d, c], {a: 1, b: [1.0, 2.0]}, run_metadata=md,
                     options=tf.RunOptions(output_partition_graphs=True))
    (gd,) = md.partition_graphs
    nodes = {n.name: n for n in gd.node}
    frame = {name: (n.op, list(n.input), tf.as_dtype(n.attr["T"].type).name, n.attr["index"].i)
             for name, n in nodes.items() if n.op in ("_Arg", "_Retval")}
    assert frame == {"_arg_a_0_0": ("_Arg", [], "int32", 0),
                     "_arg_b_0_1": ("_Arg", [], "float32", 1),
                     "_retval_add_0_0": ("_Retval", ["add"], "float32", 0),
                     "_retval_d_0_1": ("_Retval", ["d"], "float32", 1)}
    assert list(nodes["Cast"].input) == ["_arg_a_0_0"]
    assert list(nodes["add"].input) == ["Cast", "_arg_b_0_1"]
    assert nodes["_arg_a_0_0"].device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_profile_merges_a_given_op_log():
    # TF 1.15: profile(op_log=...) merges the OpLogProto into the graph's own: an entry's
    # float_ops replace the op's (MatMul 48 -> 1000), its types add to the op's, so an
    # accounted type of the log's selects that op (totals 1000, and 1013 by every type)
    from tideflow.protos import tfprof_log_pb2

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        w = tf.get_variable("w", [3, 2])
        tf.matmul(x, w)
    extra = tfprof_log_pb2.OpLogProto()
    entry = extra.log_entries.add(name="MatMul", float_ops=1000)
    entry.types.append("_my_type")
    builder = tf.profiler.ProfileOptionBuilder
    opts = builder(builder.float_operation()).with_accounted_types(["_my_type"]).build()
    opts["output"] = "none"
    root = tf.profiler.profile(g, op_log=extra, options=opts)
    assert (root.total_float_ops, [c.name for c in root.children]) == (1000, ["MatMul"])
    opts = builder.float_operation()
    opts["output"] = "none"
    root = tf.profiler.profile(g, op_log=extra, options=opts)
    assert root.total_float_ops == 1013
    assert [(c.name, c.float_ops) for c in root.children] == [
        ("MatMul", 1000), ("w/Initializer/random_uniform", 6)]
    prof = tf.profiler.Profiler(g, op_log=extra)
    assert prof.profile_operations(opts).total_float_ops == 1013


def test_profiles_count_a_steps_arg_and_retval_nodes():
    # TF 1.15: with a traced step, tfprof adds the step's _Arg/_Retval nodes (no graph op
    # behind them) under their own names, their names as their op types
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [8, 8])
        y = tf.reduce_sum(tf.matmul(x, x))
        with tf.Session() as sess:
            md = tf.RunMetadata()
            sess.run(y, {x: np.ones((8, 8))}, options=tf.RunOptions(trace_level=3),
                     run_metadata=md)
    builder = tf.profiler.ProfileOptionBuilder
    opts = (builder(builder.time_and_memory()).with_min_execution_time(0).with_min_memory(0)
            .with_empty_output().build())
    names = [c.name for c in tf.profiler.profile(g, run_meta=md, options=opts).children]
    assert {"_arg_Placeholder_0_0", "_retval_Sum_0_0"} <= set(names)
    assert "_SOURCE" not in names
    node = tf.profiler.profile(g, run_meta=md, cmd="op", options=opts)
    types = set()
    while node.children:
        node = node.children[0]
        types.add(node.name)
    assert {"_arg_Placeholder_0_0", "_retval_Sum_0_0", "MatMul"} <= types


def test_scope_report_shows_devices_types_occurrences_and_input_shapes(capsys):
    # TF 1.15's scope report with select device/op_types/occurrence/input_shapes: a node that
    # ran names its device (lower case) and has it among its types, a bare scope is
    # "_kTFScopeParent", the counts read "run/total run|defined/total defined", the input
    # shapes "i:dims" (a scalar 1, control inputs too); tensor_value only documents itself
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [64, 64])
        with tf.variable_scope("l1"):
            w = tf.get_variable("w", [64, 64])
            h = tf.nn.relu(tf.matmul(x, w))
        loss = tf.reduce_sum(h)
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            md = tf.RunMetadata()
            sess.run(loss, {x: np.ones((64, 64))}, options=tf.RunOptions(trace_level=3),
                     run_metadata=md)
    builder = tf.profiler.ProfileOptionBuilder
    opts = (builder(builder.time_and_memory()).with_min_execution_time(0).with_min_memory(0)
            .order_by("name").select(["device", "op_types", "occurrence", "input_shapes",
                                      "tensor_value"]).build())
    capsys.readouterr()
    tf.profiler.profile(g, run_meta=md, options=opts)
    out = capsys.readouterr().out
    cpu = "/job:localhost/replica:0/task:0/device:cpu:0"
    assert ("node name | assigned devices | op types | op count (run|defined) | "
            "input shapes\n") in out
    assert "\ntensor_value: Not supported now.\n" in out
    for line in (f"  Sum ({cpu}, {cpu}|Sum, 1/1|1/1, 0:64x64|1:2)",
                 "  Placeholder (Placeholder, 0/0|1/1, )",
                 "  init (NoOp, 0/0|1/1, 0:64x64)",
                 f"    l1/w ({cpu}, {cpu}|VariableV2|_trainable_variables, 1/2|1/11, )",
                 "      l1/w/Initializer (_kTFScopeParent, 0/0|1/8, )",
                 "          l1/w/Initializer/random_uniform/sub (Sub, 0/0|1/1, 0:1|1:1)",
                 f"    l1/MatMul ({cpu}, {cpu}|MatMul, 1/1|1/1, 0:64x64|1:64x64)"):
        assert "\n" + line + "\n" in out, line
    assert "\n_TFProfRoot (_kTFScopeParent, --/8|--/21, )\n" in out
    tf.profiler.profile(g, run_meta=md, cmd="graph", options=opts)
    assert "\n_TFProfRoot (_TFGraphParent, --/8|--/19, )\n" in capsys.readouterr().out


def test_profile_options_dicts_take_tfs_defaults(capsys):
    # TF 1.15: an unknown cmd is InvalidArgumentError "unknown cmd: X"; an options dict's
    # missing keys take TF's defaults (no accounted types, no start nodes, max_depth 10,
    # account_displayed_op_only False); an unknown output type is refused on stderr and an
    # empty node comes back
    g = tf.Graph()
    with g.as_default():
        tf.get_variable("w", [3, 2])
    with pytest.raises(errors.InvalidArgumentError, match="^unknown cmd: bogus$"):
        tf.profiler.profile(g, cmd="bogus")
    assert tf.profiler.profile(g, options={"output": "none"}).total_parameters == 0
    root = tf.profiler.profile(g, options={"output": "none", "account_type_regexes": [".*"],
                                           "select": ["params"]})
    assert (root.total_parameters, root.children) == (6, [])
    root = tf.profiler.profile(g, options={"output": "none", "account_type_regexes": [".*"],
                                           "start_name_regexes": [".*"],
                                           "show_name_regexes": [".*"]})
    assert [c.name for c in root.children] == ["w"]
    capsys.readouterr()
    tf.profiler.profile(g, options={"account_type_regexes": ["_trainable_variables"],
                                    "start_name_regexes": [".*"], "show_name_regexes": [".*"],
                                    "select": ["params"]})
    out = capsys.readouterr().out
    assert "\n-max_depth                  10\n" in out
    assert "\n-account_displayed_op_only  false\n" in out
    opts = dict(tf.profiler.ProfileOptionBuilder.trainable_variables_parameter(), output="bogus")
    for cmd, kind in (("scope", "GraphNodeProto"), ("op", "MultiGraphNodeProto")):
        root = tf.profiler.profile(g, cmd=cmd, options=opts)
        assert (type(root).__name__, root.name, root.total_parameters) == (kind, "", 0)
    assert capsys.readouterr().err.count(
        "Invalid argument: E.g. Unknown output type: bogus, Valid types: "
        "file,none,pprof,stdout,timeline\n") == 2


def test_contrib_tfprof_option_dicts_are_tfs():
    # TF 1.15: tf.contrib.tfprof's option dicts carry dump_to_file and neither
    # min_occurrence nor step
    ma = tf.contrib.tfprof.model_analyzer
    assert sorted(ma.TRAINABLE_VARS_PARAMS_STAT_OPTIONS) == [
        "account_displayed_op_only", "account_type_regexes", "dump_to_file",
        "hide_name_regexes", "max_depth", "min_bytes", "min_float_ops", "min_micros",
        "min_params", "order_by", "output", "select", "show_name_regexes",
        "start_name_regexes", "trim_name_regexes"]
    assert sorted(ma.FLOAT_OPS_OPTIONS) == sorted(ma.TRAINABLE_VARS_PARAMS_STAT_OPTIONS)
    assert ma.FLOAT_OPS_OPTIONS["min_float_ops"] == 1


def test_views_start_at_the_start_name_regexes_matches():
    # TF 1.15: the scope and graph views start at the topmost nodes a start regex matches
    # (none for []), and with account_displayed_op_only the totals are the shown nodes'
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        with tf.variable_scope("a"):
            w = tf.get_variable("w", [3, 2])
        with tf.variable_scope("b"):
            v = tf.get_variable("v", [2, 5])
        tf.matmul(tf.matmul(x, w), v)
    builder = tf.profiler.ProfileOptionBuilder
    expected = {("graph", ".*"): (16, ["a/w", "b/v"]), ("scope", ".*"): (16, ["a", "b"]),
                ("graph", None): (0, []), ("scope", None): (0, []),
                ("graph", "a/.*"): (6, ["a/w"]), ("scope", "a/.*"): (6, ["a/w"]),
                ("graph", "MatMul_1"): (0, []), ("scope", "MatMul_1"): (0, [])}
    for (cmd, start), want in expected.items():
        opts = dict(builder.trainable_variables_parameter(), output="none",
                    start_name_regexes=[start] if start else [])
        root = tf.profiler.profile(g, cmd=cmd, options=opts)
        assert (root.total_parameters, [c.name for c in root.children]) == want, (cmd, start)


def test_profile_proto_nodes_as_tfprof_writes_them():
    # TF 1.15's ProfileProto (Profiler.serialize_to_string): a node's shape is its shape
    # attr's, a node that ran has its device (lower case) as canonical_device and among its
    # op_types, execs keyed by that device; the step's _Arg/_Retval nodes follow the graph's
    from tideflow.protos import tfprof_log_pb2

    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        w = tf.get_variable("w", [3, 2])
        y = tf.matmul(x, w, name="y")
        with tf.Session() as sess:
            sess.run(w.initializer)
            md = tf.RunMetadata()
            sess.run(y, {x: np.ones((4, 3))}, options=tf.RunOptions(trace_level=3),
                     run_metadata=md)
    prof = tf.profiler.Profiler(g)
    prof.add_step(5, md)
    proto = tfprof_log_pb2.ProfileProto.FromString(prof.serialize_to_string())
    nodes = {n.name: n for n in proto.nodes.values()}
    cpu = "/job:localhost/replica:0/task:0/device:cpu:0"
    matmul = nodes["y"]
    assert (list(matmul.shape), list(matmul.op_types), matmul.canonical_device) == (
        [], [cpu, "MatMul"], cpu)
    assert list(matmul.execs[5].cpu_execs) == [cpu] and list(matmul.execs[5].devices) == [cpu]
    assert list(matmul.input_shapes) == []
    assert (list(nodes["w"].shape), list(nodes["w"].op_types)) == (
        [3, 2], [cpu, "VariableV2", "_trainable_variables"])
    arg = nodes["_arg_x_0_0"]
    assert (arg.op, list(arg.op_types), arg.id) == ("_arg_x_0_0", [cpu, "_arg_x_0_0"], 12)
    assert nodes["_retval_y_0_0"].id == 13
