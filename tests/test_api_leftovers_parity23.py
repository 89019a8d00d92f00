"""TF 1.15 API leftovers: graph_editor's Transformer, handlers and submodules, and the small
namespaces programs still reach for. Reference values were measured in TF 1.15."""

import numpy as np
import pytest

import tideflow as tf

ge = tf.contrib.graph_editor


def test_graph_editor_checkpointing_recompute_matches_gradients():
    # memory_saving_gradients' recipe: copy the ops after a checkpoint, reroute the copy to a
    # stop_gradient of the checkpoint, chain the gradients through it
    g = tf.Graph()
    with g.as_default():
        rng = np.random.RandomState(0)
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        w1 = tf.Variable(rng.randn(3, 5).astype(np.float32), name="w1")
        w2 = tf.Variable(rng.randn(5, 5).astype(np.float32), name="w2")
        w3 = tf.Variable(rng.randn(5, 2).astype(np.float32), name="w3")
        h1 = tf.tanh(tf.matmul(x, w1), name="h1")
        h2 = tf.nn.relu(tf.matmul(h1, w2), name="h2")
        h3 = tf.sigmoid(tf.matmul(h2, w3), name="h3")
        loss = tf.reduce_sum(tf.square(h3), name="loss")
        fwd = ge.get_forward_walk_ops([x.op], inclusive=True)
        bwd = ge.get_backward_walk_ops([loss.op], inclusive=True)
        assert (len(fwd), len(bwd)) == (9, 16)
        sg = tf.stop_gradient(h1, name="h1_sg")
        to_copy = [o for o in ge.get_backward_walk_ops(seed_ops=[loss.op], stop_at_ts=[h1])
                   if o in fwd and o.type not in ("VariableV2", "Placeholder", "Identity",
                                                  "Const")]
        assert sorted(o.name for o in to_copy) == [
            "MatMul_1", "MatMul_2", "Square", "h2", "h3", "loss"]
        _, info = ge.copy_with_input_replacements(ge.sgv(to_copy), {})
        copied = list(info._transformed_ops.values())
        assert sorted(o.name for o in copied) == [
            "MatMul_1_1", "MatMul_2_1", "Square_1", "h2_1", "h3_1", "loss_1"]
        assert ge.reroute_ts([sg], [h1], can_modify=copied) == 1
        loss_copy = info._transformed_ts[loss]
        assert info.original(loss_copy) is loss
        assert info.transformed([loss, h1]) == [loss_copy, None]
        assert str(info).startswith("Transform result info:\n  Within graph[")
        d_h1, *dw23 = tf.gradients(loss_copy, [sg, w2, w3])
        dw1, = tf.gradients(h1, [w1], grad_ys=d_h1)
        ref = tf.gradients(loss, [w1, w2, w3])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: rng.randn(4, 3).astype(np.float32)}
            got, want = sess.run([[dw1] + dw23, ref], feed)
    for u, v in zip(got, want):
        np.testing.assert_allclose(u, v, atol=1e-6)
    # TF 1.15's first three entries of each gradient
    np.testing.assert_allclose(got[0].ravel()[:3], [-0.00144, -0.75157, -0.55265], atol=1e-5)
    np.testing.assert_allclose(got[1].ravel()[:3], [0.43747, 0.0, 0.12744], atol=1e-5)


# memory_saving_gradients' algorithm (checkpoints at the MatMuls, each segment recomputed from
# copies rerouted onto stop_gradient'ed checkpoints), written with the graph editor calls it
# makes: dict views as tensor lists, single-op seeds, within_ops, add_control_inputs


def _ckpt_toposort_levels(deps):
    deps = {k: set(v) for k, v in deps.items()}
    for v in list(deps.values()):
        for x in v:
            deps.setdefault(x, set())
    out = []
    while deps:
        ready = {k for k, v in deps.items() if not v}
        if not ready:
            break
        out.append(ready)
        deps = {k: v - ready for k, v in deps.items() if k not in ready}
    return out


def _ckpt_tf_toposort(ts, within_ops=None):
    all_ops = ge.get_forward_walk_ops([x.op for x in ts], within_ops=within_ops)
    deps = {o: set(op.inputs) for op in all_ops for o in op.outputs}
    levels = _ckpt_toposort_levels(deps)
    return [sorted(set(level) & set(ts), key=lambda t: t.name) for level in levels
            if set(level) & set(ts)]


def _ckpt_fast_backward_ops(within_ops, seed_ops, stop_at_ts):
    bwd = set(ge.get_backward_walk_ops(seed_ops, stop_at_ts=stop_at_ts))
    return list(bwd.intersection(within_ops).difference([t.op for t in stop_at_ts]))


def _ckpt_grads(ys, xs, checkpoint_regex):
    bwd_ops = ge.get_backward_walk_ops([y.op for y in ys], inclusive=True)
    fwd_ops = ge.get_forward_walk_ops([x.op for x in xs], inclusive=True,
                                      within_ops=bwd_ops)
    fwd_ops = [op for op in fwd_ops if op._inputs and op not in [x.op for x in xs]]
    fwd_ops = [op for op in fwd_ops if "/read" not in op.name and "/Assign" not in op.name]
    ts_all = [t for t in ge.filter_ts(fwd_ops, True) if "/read" not in t.name]
    ts_all = set(ts_all) - set(xs) - set(ys)
    checkpoints = list(set(ge.filter_ts_from_regex(fwd_ops, checkpoint_regex)) & ts_all)
    disc = {c: tf.stop_gradient(c, name=c.op.name + "_sg") for c in checkpoints}
    ops_to_copy = _ckpt_fast_backward_ops(fwd_ops, [y.op for y in ys], checkpoints)
    _, info = ge.copy_with_input_replacements(ge.sgv(ops_to_copy), {})
    copied = info._transformed_ops.values()
    ge.reroute_ts(disc.values(), disc.keys(), can_modify=copied)
    copied_ys = [info._transformed_ops[y.op]._outputs[0] for y in ys]
    boundary = list(disc.values())
    dv = tf.gradients(copied_ys, boundary + xs)
    for op in list(copied) + [g.op for g in dv if g is not None]:
        ge.add_control_inputs(op, [y.op for y in ys if y.op not in op.control_inputs])
    d_cp = dict(zip(disc.keys(), dv[:len(disc)]))
    d_xs = dv[len(disc):]
    for ts in _ckpt_tf_toposort(checkpoints, within_ops=fwd_ops)[::-1]:
        others = [r for r in checkpoints if r not in ts]
        others_disc = [disc[r] for r in others]
        ops_to_copy = _ckpt_fast_backward_ops(fwd_ops, [r.op for r in ts], others)
        if not ops_to_copy:
            break
        _, info = ge.copy_with_input_replacements(ge.sgv(ops_to_copy), {})
        copied = info._transformed_ops.values()
        ge.reroute_ts(others_disc, others, can_modify=copied)
        bnd = [info._transformed_ops[r.op]._outputs[0] for r in ts]
        dv = tf.gradients(bnd, others_disc + xs, grad_ys=[d_cp[r] for r in ts])
        for r, dr in zip(others, dv[:len(others)]):
            if dr is not None:
                d_cp[r] = dr if d_cp[r] is None else d_cp[r] + dr
        for j, g in enumerate(dv[len(others):]):
            if g is not None:
                d_xs[j] = g if d_xs[j] is None else d_xs[j] + g
    return d_xs, sorted(c.name for c in checkpoints), len(ops_to_copy)


def test_graph_editor_checkpointed_gradients_over_segments():
    rng = np.random.RandomState(0)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [8, 16], name="x")
        h, ws = x, []
        for i in range(5):
            w = tf.Variable(rng.randn(16, 16).astype(np.float32) * 0.3, name=f"w{i}")
            ws.append(w)
            h = tf.nn.tanh(tf.matmul(h, w, name=f"MatMul_{i}"), name=f"act{i}")
        loss = tf.reduce_sum(tf.square(h), name="loss")
        d, cps, n = _ckpt_grads([loss], ws, "MatMul")
        ref = tf.gradients(loss, ws)
        assert cps == [f"MatMul_{i}:0" for i in range(5)] and n == 1
        assert sorted(o.name for o in ge.select_ops("^w0.*", graph=g)) == [
            "w0", "w0/Assign", "w0/initial_value", "w0/read"]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            a, b = s.run([d, ref], {x: rng.randn(8, 16).astype(np.float32)})
        assert len(g.get_operations()) == 107  # as TF 1.15's graph after the same calls
    for u, v in zip(a, b):
        np.testing.assert_allclose(u, v, atol=1e-5)
    # TF 1.15's sums of the five gradients
    np.testing.assert_allclose([u.sum() for u in a],
                               [24.0521, -12.4533, 14.3107, -34.9558, 4.3516], atol=1e-3)


def _small_graph():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(2.0, name="a")
        b = tf.constant(3.0, name="b")
        c = tf.add(a, b, name="c")
        d = tf.multiply(c, 2.0, name="d")
        tf.add_to_collection("mine", d)
    return g, a, b, c, d


def test_graph_editor_transformer_handlers_and_copies():
    g, a, _b, c, d = _small_graph()
    with g.as_default():
        a2 = tf.constant(10.0, name="a2")
        d2 = ge.graph_replace(d, {a: a2}, dst_scope="rep")
        assert d2.name == "rep/d:0"
        assert [t.name for t in d2.op.inputs] == ["rep/c:0", "d/y:0"]
        t = ge.Transformer()
        t.transform_external_input_handler = ge.keep_t_if_possible_handler
        t.transform_op_handler = lambda info, op, new_inputs: ge.copy_op_handler(
            info, op, new_inputs, copy_shape=True)
        sgv, info = t(ge.sgv(c.op, d.op), g, "copy1")
        assert sorted(o.name for o in sgv.ops) == ["copy1/c", "copy1/d"]
        assert list(sgv.inputs) == [] and [o.name for o in sgv.outputs] == ["copy1/d:0"]
        # a collection that is not a GraphKeys one is renamed into the destination scope
        assert [e.name for e in g.get_collection("copy1/mine")] == ["copy1/d:0"]
        g2 = tf.Graph()
        ge.copy(ge.sgv(c.op, d.op), g2, "z")
        assert sorted(o.name for o in g2.get_operations()) == [
            "z/c", "z/d", "z/geph__a_0", "z/geph__b_0", "z/geph__y_0"]
        assert g2.get_all_collection_keys() == ["z/mine"]
        with tf.Session() as s:
            assert s.run([d, d2, info.transformed(d)]) == [10.0, 26.0, 10.0]
        assert ge.util.find_corresponding(d, g2, "z").name == "z/d:0"
        assert ge.util.find_corresponding([c.op], g2, "z")[0].name == "z/c"
        with pytest.raises(TypeError, match="must be an iterable"):
            ge.copy_op_handler(None, c.op, True)
        with pytest.raises(ValueError, match="In-place transformation not allowed"):
            t2 = ge.Transformer()
            t2.transform_op_handler = lambda info, op, new_inputs: (op, op.outputs)
            t2(ge.sgv(c.op), g, "x")
        with pytest.raises(TypeError, match="Expected a tf.Tensor or a tf.Operation"):
            info.transformed(3)


def test_graph_editor_util_and_select_helpers():
    g, _a, _b, c, d = _small_graph()
    util = ge.util
    assert util.flatten_tree({"a": [1, (2, 3)], "b": 4}) == [1, 2, 3, 4]
    assert util.transform_tree([1, (2, {"k": 3})], lambda v: v * 10) == [10, (20, {"k": 30})]
    assert util.concatenate_unique([1, 2], [2, 3, 1, 4]) == [1, 2, 3, 4]
    assert (util.is_iterable(d), util.is_iterable([d])) == (False, True)
    assert (util.scope_dirname("a/b/c"), util.scope_basename("a/b/c"),
            util.scope_finalize("a"), util.scope_dirname("ab")) == ("a/b/", "c", "a/", "")
    lv = util.ListView([1, 2])
    assert (len(lv), lv[1], lv + (3,), list(lv), bool(util.ListView([]))) == (
        2, 2, [1, 2, 3], [1, 2], False)
    with pytest.raises(TypeError, match="Expected a list"):
        util.ListView((1,))
    names = util.get_predefined_collection_names()
    assert sorted(k for k in names if isinstance(k, str))[:4] == [
        "_SUMMARY_V2", "activations", "asset_filepaths", "biases"]
    assert ge.select.check_cios(False, None, util.ControlOutputs(g))[0] is True
    with pytest.raises(TypeError, match="Expected a util.ControlOutputs"):
        ge.check_cios(control_ios=3)
    # (TF 1.15 gives the same on this graph: d/y is reached only through d, the boundary)
    assert [o.name for o in ge.get_within_boundary_ops(g, [c.op], [d.op])] == [
        "a", "b", "c", "d"]
    assert [o.name for o in ge.get_within_boundary_ops(g, [c.op], [d.op],
                                                       inclusive=False)] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="Boundary is intersecting with the seeds"):
        ge.get_within_boundary_ops(g, [c.op], [c.op])
    g2 = tf.Graph()
    with g2.as_default():
        e = tf.constant(1.0)
    with pytest.raises(ValueError, match=r"Argument\[1\]: Wrong graph!"):
        util.check_graphs(ge.sgv(c.op), ge.sgv(e.op))
    # the submodules hold TF's names (and only those)
    assert "copy_op_handler" in dir(ge.transform) and "swap_ios" in dir(ge.reroute)
    assert not hasattr(ge.reroute, "copy") and hasattr(ge.edit, "bypass")
    assert ge.subgraph.SubGraphView is ge.SubGraphView


def test_graph_editor_swap_and_reroute_ios():
    g, a, b, _c, _d = _small_graph()
    with g.as_default():
        e1 = tf.identity(a, name="e1")
        e2 = tf.identity(b, name="e2")
        f1 = tf.negative(e1, name="f1")
        f2 = tf.negative(e2, name="f2")
        ge.swap_ios(ge.sgv(e1.op), ge.sgv(e2.op))
        assert ([t.name for t in e1.op.inputs], [t.name for t in f1.op.inputs]) == (
            ["b:0"], ["e2:0"])
        ge.reroute_ios(ge.sgv(e1.op), ge.sgv(e2.op))
        assert [t.name for t in e2.op.inputs] == ["b:0"]
        assert [t.name for t in f1.op.inputs] == [t.name for t in f2.op.inputs] == ["e1:0"]
        with tf.Session() as s:
            assert s.run([f1, f2]) == [-3.0, -3.0]


def test_radial_constraint_rings_as_tf():
    c = tf.keras.constraints.radial_constraint()
    assert isinstance(c, tf.keras.constraints.RadialConstraint) and c.get_config() == {}
    assert isinstance(tf.keras.constraints.get("RadialConstraint"),
                      tf.keras.constraints.RadialConstraint)
    w5 = tf.constant(np.arange(5 * 5 * 2, dtype=np.float32).reshape(5, 5, 2, 1))
    w3 = tf.constant(np.arange(2 * 3 * 3 * 2, dtype=np.float32).reshape(3, 3, 2, 2))
    with tf.Session() as s:
        r5, r3 = s.run([c(w5), c(w3)])
    # measured in TF 1.15: ring d of an odd kernel takes the value at (h-2-d, h-2-d)
    np.testing.assert_array_equal(r5[:, :, 1, 0], [[37, 37, 37, 37, 37], [37, 25, 25, 25, 37],
                                                   [37, 25, 13, 25, 37], [37, 25, 25, 25, 37],
                                                   [37, 37, 37, 37, 37]])
    np.testing.assert_array_equal(r3[:, :, 0, 0], [[16, 16, 16], [16, 0, 16], [16, 16, 16]])
    assert r3.shape == (3, 3, 2, 2)
    with pytest.raises(ValueError, match=r"must be of rank 4, but is of shape: \(3, 3, 1\)"):
        c(tf.constant(np.ones((3, 3, 1), np.float32)))


def test_contrib_framework_fuse_op_smart_case_and_reexports():
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, name="a")
        b = tf.identity(a, name="b")
        c2 = tf.add(tf.square(b, name="c"), 1.0, name="c2")
        d = tf.identity(c2, name="d")
        tf.constant(3.0, name="e")
        tf.identity(d, name="f")
    fw = tf.contrib.framework
    gd = fw.fuse_op(g.as_graph_def(), ["b"], ["d"], [tf.float32.as_datatype_enum], False,
                    "fused", "MyOp")
    # TF 1.15's result
    assert [(n.name, n.op, list(n.input)) for n in gd.node] == [
        ("a", "Placeholder", []), ("b", "Identity", ["a"]), ("fused", "MyOp", ["b"]),
        ("d", "Identity", ["fused"]), ("e", "Const", []), ("f", "Identity", ["d"])]
    assert list(gd.node[2].attr["_output_types"].list.type) == [1]
    assert gd.node[2].attr["_output_quantized"].b is False
    with pytest.raises(TypeError, match="input_nodes must be a list"):
        fw.fuse_op(g.as_graph_def(), "b", ["d"], [1], False, "fused", "MyOp")
    with g.as_default():
        x = tf.placeholder(tf.int32, [], name="x")
        r = fw.smart_case([(tf.equal(x, 1), lambda: tf.constant(10)),
                           (tf.equal(x, 2), lambda: tf.constant(20))],
                          default=lambda: tf.constant(-1))
        r2 = fw.smart_case([(False, lambda: tf.constant(10)), (True, lambda: tf.constant(20))],
                           default=lambda: tf.constant(-1))
        assert r2.op.type == "Const"
        with tf.Session() as s:
            assert [s.run(r, {x: v}) for v in (1, 2, 3)] == [10, 20, -1]
            assert s.run(r2) == 20
    from tideflow.ops import init_ops
    from tideflow.ops.record_input_ops import RecordInput

    assert fw.RecordInput is RecordInput
    assert fw.convolutional_delta_orthogonal is init_ops.ConvolutionDeltaOrthogonal
    assert fw.convolutional_orthogonal_2d is init_ops.ConvolutionOrthogonal2D


def test_wrap_function_and_tensor_array_spec():
    def f(x):
        return x * 2.0 + 1.0

    w = tf.wrap_function(f, [tf.TensorSpec([2], tf.float32)])
    assert [t.name for t in w.inputs] == ["placeholder:0"]
    assert [t.name for t in w.outputs] == ["add:0"]
    assert w.graph is not tf.get_default_graph()
    r = w(tf.constant([1.0, 2.0]))
    assert r.name == "PartitionedCall:0" and r.shape.as_list() == [2]

    def g2(x, y):
        s = x + y
        return {"sum": s, "prod": x * y, "neg": -s}

    w2 = tf.wrap_function(g2, [tf.TensorSpec([], tf.float32), tf.TensorSpec([], tf.float32)])
    r2 = w2(3.0, 4.0)
    pruned = w2.prune(w2.inputs, w2.structured_outputs["prod"])
    r3 = pruned(tf.constant(5.0), tf.constant(6.0))
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(r), [3.0, 5.0])
        assert s.run(r2) == {"sum": 7.0, "prod": 12.0, "neg": -7.0}
        assert s.run(r3) == 30.0
    # as TF 1.15: a variable the function makes is lifted into the enclosing graph (a
    # resource variable), and tensors of that graph it reads are captured
    with tf.Graph().as_default():
        c = tf.constant(5.0)

        def h(x):
            return x * tf.Variable(2.0, name="v") + c

        w3 = tf.wrap_function(h, [tf.TensorSpec([], tf.float32)])
        assert [v.name for v in tf.global_variables()] == ["v:0"]
        assert repr(tf.global_variables()[0]) == "<tf.Variable 'v:0' shape=() dtype=float32>"
        r4 = w3(tf.constant(3.0))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(r4) == 11.0
    spec = tf.TensorArraySpec([2], tf.int32)
    assert repr(spec) == "TensorArraySpec(TensorShape([Dimension(2)]), tf.int32, False, True)"
    assert spec.value_type is tf.TensorArray
    assert spec == tf.TensorArraySpec([2], tf.int32)
    assert spec != tf.TensorArraySpec([2], tf.int32, True)
    assert spec.is_compatible_with(tf.TensorArraySpec([None], tf.int32))
    assert not spec.is_compatible_with(tf.TensorArraySpec([2], tf.int32, True))
    assert repr(spec.most_specific_compatible_type(tf.TensorArraySpec([None], tf.int32))) == (
        "TensorArraySpec(TensorShape([Dimension(None)]), tf.int32, False, True)")
    assert repr(tf.TensorArraySpec()) == (
        "TensorArraySpec(TensorShape(None), tf.float32, False, True)")
    assert repr(tf.TensorArraySpec.from_value(tf.TensorArray(tf.float32, 3,
                                                             element_shape=[4]))) == (
        "TensorArraySpec(TensorShape([Dimension(4)]), tf.float32, False, True)")
    with pytest.raises(ValueError, match="Types are not compatible"):
        spec.most_specific_compatible_type(tf.TensorArraySpec([3], tf.int32))


def test_experimental_toggles_config_policy_protos_and_saved_model_experimental():
    with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR") as x:
        assert x is None
    assert tf.experimental.output_all_intermediates(True) is None
    assert tf.compat.v1.experimental.output_all_intermediates(None) is None
    exp = tf.config.experimental
    try:
        assert exp.get_device_policy() == "silent"
        assert exp.set_device_policy("explicit") is None
        assert exp.get_device_policy() == "explicit"
        with pytest.raises(ValueError, match="Not a valid device policy: 'bad'"):
            exp.set_device_policy("bad")
        exp.set_device_policy(None)
        assert exp.get_device_policy() == "silent"
        assert exp.get_synchronous_execution() is True
        exp.set_synchronous_execution(False)
        assert exp.get_synchronous_execution() is False
    finally:
        exp.set_device_policy(None)
        exp.set_synchronous_execution(True)
    assert tf.saved_model.experimental.save is tf.saved_model.save
    assert [f.name for f in tf.profiler.AdviceProto.DESCRIPTOR.fields] == ["checkers"]
    assert [f.name for f in tf.profiler.OpLogProto.DESCRIPTOR.fields] == [
        "log_entries", "id_to_string"]


def test_slurm_kubernetes_gce_cluster_resolvers(monkeypatch):
    import types

    from tideflow.distribute.cluster_resolver import _expand_hostlist

    assert _expand_hostlist("node[01-03,7],gpu5,r[1-2]x[8-9]") == [
        "node01", "node02", "node03", "node7", "gpu5", "r1x8", "r1x9", "r2x8", "r2x9"]
    for key in ("OMPI_COMM_WORLD_RANK", "SLURM_NTASKS_PER_NODE", "SLURM_NODELIST"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")  # no scontrol: the node list variable is read
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    for k, v in {"SLURM_PROCID": "3", "SLURM_NTASKS": "4",
                 "SLURM_JOB_NODELIST": "node[01-02]"}.items():
        monkeypatch.setenv(k, v)
    cr = tf.distribute.cluster_resolver
    assert tf.contrib.cluster_resolver.SlurmClusterResolver is cr.SlurmClusterResolver
    r = cr.SlurmClusterResolver({"ps": 1, "worker": 3}, port_base=9000, gpus_per_node=2,
                                tasks_per_node=2)
    # TF 1.15's values for the same job step
    assert r.cluster_spec().as_dict() == {
        "ps": ["node01:9000"], "worker": ["node01:9001", "node02:9000", "node02:9001"]}
    assert r.get_task_info() == ("worker", 2) and r.master() == "grpc://node02:9001"
    assert r.master("ps", 0, rpc_layer="grpc+x") == "grpc+x://node01:9000"
    import os

    assert os.environ["CUDA_VISIBLE_DEVICES"] == "1" and r.num_accelerators() == {"GPU": 2}
    with pytest.raises(RuntimeError, match="Requested more GPUs per node then available"):
        cr.SlurmClusterResolver({"w": 4}, tasks_per_node=3, gpus_per_node=2)
    with pytest.raises(RuntimeError, match="Requested more tasks then assigned tasks"):
        cr.SlurmClusterResolver({"ps": 1}, tasks_per_node=2, gpus_per_node=2)
    with pytest.raises(RuntimeError, match="Neither `tasks_per_node` or SLURM_NTASKS_PER_NODE"):
        cr.SlurmClusterResolver({"w": 4})

    ns = types.SimpleNamespace

    class Client:  # the Kubernetes CoreV1Api's one call
        def list_pod_for_all_namespaces(self, label_selector):
            pods = {"job-name=tensorflow": [("p2", "10.0.0.2", "Running"),
                                            ("p1", "10.0.0.1", "Running")],
                    "job-name=ps": [("q", "10.0.1.1", "Running")],
                    "bad": [("z", "1.1.1.1", "Pending")]}[label_selector]
            return ns(items=[ns(metadata=ns(name=n), status=ns(host_ip=ip, phase=ph))
                             for n, ip, ph in pods])

    k = cr.KubernetesClusterResolver(override_client=Client())
    assert k.cluster_spec().as_dict() == {"worker": ["10.0.0.1:8470", "10.0.0.2:8470"]}
    assert (k.master(), k.master("worker", 1)) == ("", "grpc://10.0.0.2:8470")
    k2 = cr.KubernetesClusterResolver({"ps": ["job-name=ps"], "worker": ["job-name=tensorflow"]},
                                      tf_server_port=1234, override_client=Client())
    assert k2.cluster_spec().as_dict() == {"ps": ["10.0.1.1:1234"],
                                           "worker": ["10.0.0.1:1234", "10.0.0.2:1234"]}
    with pytest.raises(RuntimeError, match='Pod "z" is not running; phase: "Pending"'):
        cr.KubernetesClusterResolver({"w": ["bad"]}, override_client=Client()).cluster_spec()

    class Req:
        def __init__(self, v):
            self.v = v

        def execute(self):
            return self.v

    class Service:  # the Compute API's instance-group and instance calls
        def instanceGroups(self):
            return self

        def listInstances(self, **kw):
            return Req({"items": [{"instance": "a/b/inst2"}, {"instance": "a/b/inst1"}]})

        def listInstances_next(self, previous_request, previous_response):
            return None

        def instances(self):
            return self

        def get(self, project, zone, instance):
            ip = {"inst1": "10.1.0.1", "inst2": "10.1.0.2"}[instance]
            return Req({"networkInterfaces": [{"networkIP": ip}]})

    g = cr.GCEClusterResolver("proj", "zone", "grp", 8470, service=Service())
    assert g.cluster_spec().as_dict() == {"worker": ["10.1.0.1:8470", "10.1.0.2:8470"]}
    assert (g.master(), g.master(rpc_layer="x")) == ("grpc://10.1.0.1:8470", "x://10.1.0.1:8470")
    with pytest.raises(RuntimeError, match="cannot reset the task_type"):
        g.task_type = "ps"


def test_data_stats_aggregator_latency_and_bytes():
    de = tf.data.experimental
    agg = de.StatsAggregator()
    ds = tf.data.Dataset.range(5).apply(de.latency_stats("lat")).apply(
        de.bytes_produced_stats("bytes"))
    opts = tf.data.Options()
    opts.experimental_stats.aggregator = agg
    ds = ds.with_options(opts)
    it = tf.compat.v1.data.make_initializable_iterator(ds)
    summ = agg.get_summary()
    assert summ.name == "StatsAggregatorSummary:0"
    with tf.Session() as s:
        assert s.run(summ) == b""
        s.run(it.initializer)
        assert [s.run(it.get_next()) for _ in range(5)] == [0, 1, 2, 3, 4]
        v = tf.Summary.FromString(s.run(summ))
    assert [(x.tag, x.histo.num) for x in v.value] == [("bytes", 5.0), ("lat", 5.0)]
    # TF 1.15's histogram of five 8-byte elements
    h = v.value[0].histo
    assert (h.min, h.max, h.sum, h.sum_squares) == (8.0, 8.0, 40.0, 320.0)
    assert list(h.bucket) == [0.0, 5.0, 0.0]
    np.testing.assert_allclose(list(h.bucket_limit)[:2], [7.466637793298873, 8.213301572628762])
    assert all(x >= 0 for x in v.value[1].histo.bucket_limit)
    for prefix, tags in (("", ["b2", "bytes"]), ("pre", ["pre::b2", "pre::bytes"])):
        agg = de.StatsAggregator()
        ds = tf.data.Dataset.from_tensor_slices([b"ab", b"cde"]).apply(
            de.bytes_produced_stats("bytes")).map(lambda x: x).apply(
            de.bytes_produced_stats("b2"))
        opts = tf.data.Options()
        opts.experimental_stats.aggregator = agg
        opts.experimental_stats.prefix = prefix
        it = tf.compat.v1.data.make_initializable_iterator(ds.with_options(opts))
        nx = it.get_next()
        with tf.Session() as s:
            s.run(it.initializer)
            s.run([nx])
            s.run([nx])
            v = tf.Summary.FromString(s.run(agg.get_summary()))
        # TF 1.15 counts a string element as its length and 8 bytes
        assert [(x.tag, x.histo.num, x.histo.sum) for x in v.value] == [
            (tags[0], 2.0, 21.0), (tags[1], 2.0, 21.0)]
    # without an aggregator the stages pass elements through
    ds = tf.data.Dataset.range(3).apply(de.latency_stats("x"))
    with tf.Session() as s:
        nx = tf.compat.v1.data.make_one_shot_iterator(ds).get_next()
        assert [s.run(nx) for _ in range(3)] == [0, 1, 2]


def test_data_experimental_structures_and_map_vectorization_options():
    de = tf.data.experimental
    m = tf.data.Options().experimental_optimization.map_vectorization
    assert isinstance(m, de.MapVectorizationOptions)
    assert (m.enabled, m.use_choose_fastest) == (None, None)
    m.enabled = True
    with pytest.raises(TypeError, match='Property "map_vectorization" must be of type'):
        tf.data.Options().experimental_optimization.map_vectorization = True
    with pytest.raises(TypeError, match='Property "enabled" must be of type'):
        m.enabled = 3
    r = de.RaggedTensorStructure(tf.int32, [2, None], 1)
    assert isinstance(r, tf.RaggedTensorSpec)
    assert repr(r) == ("RaggedTensorSpec(TensorShape([Dimension(2), Dimension(None)]), "
                       "tf.int32, 1, tf.int64)")
    t = de.TensorArrayStructure(tf.float32, [3], False, True)
    assert t == tf.TensorArraySpec([3], tf.float32, False, True)


def test_reduce_slice_ops_values_shapes_and_errors():
    r = tf.contrib.reduce_slice_ops.python.ops.reduce_slice_ops
    assert tf.contrib.reduce_slice_ops.reduce_slice_sum is r.reduce_slice_sum
    data = tf.constant([[1, 2, 3], [40, 50, 60], [700, 800, 900], [1000, 2000, 3000]])
    fdata = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3) - 5)
    idx = tf.constant([[0, 1], [1, 1], [0, 2], [2, 10], [3, 1]])
    big, small = np.iinfo(np.int32).max, np.iinfo(np.int32).min
    # TF 1.15's values
    want = {
        "sum": [[1, 2, 3], [0, 0, 0], [41, 52, 63], [1700, 2800, 3900], [0, 0, 0]],
        "prod": [[1, 2, 3], [1, 1, 1], [40, 100, 180], [700000, 1600000, 2700000], [1, 1, 1]],
        "max": [[1, 2, 3], [small] * 3, [40, 50, 60], [1000, 2000, 3000], [small] * 3],
        "min": [[1, 2, 3], [big] * 3, [1, 2, 3], [700, 800, 900], [big] * 3],
    }
    fwant = {
        "sum": [[-5, -4, -3], [0, 0, 0], [-7, -5, -3], [5, 7, 9], [0, 0, 0]],
        "prod": [[-5, -4, -3], [1, 1, 1], [10, 4, 0], [4, 10, 18], [1, 1, 1]],
        "max": [[-5, -4, -3], [-np.inf] * 3, [-2, -1, 0], [4, 5, 6], [-np.inf] * 3],
        "min": [[-5, -4, -3], [np.inf] * 3, [-5, -4, -3], [1, 2, 3], [np.inf] * 3],
    }
    fns = {k: getattr(r, f"reduce_slice_{k}") for k in want}
    with tf.Session() as s:
        for k, f in fns.items():
            assert s.run(f(data, idx, 0)).tolist() == want[k]
            np.testing.assert_array_equal(s.run(f(fdata, idx, 0)), fwant[k])
        assert s.run(r.reduce_slice_sum(data, tf.constant([0, 2, 4]), 0)).tolist() == [
            [41, 52, 63], [1700, 2800, 3900]]
        out = r.reduce_slice_sum(data, tf.constant([[0, 2], [1, 3]], tf.int64),
                                 tf.constant(1, tf.int64))
        assert out.shape.as_list() == [4, 2]
        assert s.run(out).tolist() == [[3, 5], [90, 110], [1500, 1700], [3000, 5000]]
        assert r.reduce_slice_sum(data, tf.placeholder(tf.int32, [None, 2]), 0).shape.as_list() \
            == [None, 3]
        assert s.run(r.reduce_slice_max(tf.constant([1, 2, 3], tf.int64),
                                        tf.constant([[2, 1]]), 0)).tolist() == [
            np.iinfo(np.int64).min]
    with pytest.raises(LookupError, match="No gradient defined for operation"):
        tf.gradients(r.reduce_slice_sum(fdata, idx, 0), fdata)
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 2 for "
                                         r"'ReduceSliceSum_\d+' \(op: 'ReduceSliceSum'\)"):
        r.reduce_slice_sum(data, tf.constant([[0, 1, 2]]), 0)
    with pytest.raises(ValueError, match=r"Out of range dim_index 2 for shape with 2 dimensions "
                                         r".* and with computed input tensors: input\[2\] = <2>"):
        r.reduce_slice_sum(data, tf.constant([[0, 1]]), 2)


def _rf_graph():
    slim = tf.contrib.slim
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, None, None, 3], name="input_image")
        net = slim.conv2d(x, 8, [3, 3], scope="conv1")
        net = slim.max_pool2d(net, [2, 2], scope="pool1")
        net = tf.pad(net, [[0, 0], [1, 1], [2, 2], [0, 0]], name="pad")
        net = slim.conv2d(net, 8, [5, 3], stride=2, padding="VALID", scope="conv2")
        b1 = slim.conv2d(net, 4, [1, 1], scope="b1")
        b2 = slim.conv2d(net, 4, [3, 3], scope="b2")
        net = tf.concat([b1, b2], 3, name="cat")
        net = slim.avg_pool2d(net, [3, 3], stride=1, padding="SAME", scope="pool2")
        out = tf.identity(net, name="output")
    return g, x, out


def test_receptive_field_of_a_cnn_graph():
    rf = tf.contrib.receptive_field
    g, x, out = _rf_graph()
    r = rf.compute_receptive_field_from_graph_def(g, "input_image", "output")
    # TF 1.15's results for the same graph
    assert [int(v) for v in r] == [24, 28, 4, 4, 13, 11]
    np.testing.assert_array_equal(r.compute_input_center_coordinates([[1, 2]]), [[2.5, 10.5]])
    np.testing.assert_array_equal(r.compute_feature_coordinates([[10, 20]]), [[2.875, 4.375]])
    with pytest.raises(ValueError, match="Dimensionality of the feature coordinates"):
        r.compute_input_center_coordinates([[1, 2, 3]])
    r2 = rf.compute_receptive_field_from_graph_def(g.as_graph_def(), x, out,
                                                   input_resolution=[64, 48])
    assert [int(v) for v in r2] == [24, 28, 4, 4, 13, 11]
    assert [int(v) for v in rf.compute_receptive_field_from_graph_def(
        g.as_graph_def(), "input_image", "conv2/Relu")] == [8, 12, 4, 4, 5, 3]
    info, name_to_node = rf.get_compute_order(g.as_graph_def(), "input_image", [64, 48])
    assert [(info[k].order, info[k].input_size, info[k].output_size) for k in (
        "input_image", "conv1/Conv2D", "pool1/MaxPool", "pad", "conv2/Conv2D", "cat",
        "output")] == [(0, None, [64, 48]), (2, [64, 48], [64, 48]), (5, [64, 48], [32, 24]),
                       (6, [32, 24], [36, 26]), (7, [36, 26], [17, 11]),
                       (13, [17, 11], [17, 11]), (15, [17, 11], [17, 11])]
    assert len(info) == len(name_to_node) == 80
    with pytest.raises(ValueError, match="Output node was not found"):
        rf.compute_receptive_field_from_graph_def(g, "input_image", "nope")
    from tideflow.contrib.receptive_field.python.util import receptive_field as rf_module

    assert rf_module.compute_receptive_field_from_graph_def is \
        rf.compute_receptive_field_from_graph_def


def test_receptive_field_paths_padding_and_alignment():
    slim = tf.contrib.slim
    rf = tf.contrib.receptive_field
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 32, 32, 3], name="input_image")
        a = slim.conv2d(x, 4, [3, 3], stride=2, scope="a")
        b = slim.max_pool2d(slim.conv2d(x, 4, [1, 1], scope="b"), [2, 2], scope="bp")
        tf.add(a, b, name="output")
        c = slim.conv2d(x, 4, [3, 3], stride=2, padding="VALID", scope="c")
        d = slim.conv2d(x, 4, [5, 5], stride=2, padding="VALID", scope="d")
        tf.add(c[:, :14, :14], d, name="output2")
        tf.add(tf.pad(d, [[0, 0], [1, 0], [1, 0], [0, 0]], name="p3"), c, name="output3")
    # (TF 1.15: a stride-2 SAME 3x3 conv's padding depends on the input size)
    got = list(rf.compute_receptive_field_from_graph_def(g, "input_image", "output"))
    assert got[:4] == [3, 3, 2, 2] and got[4:] == [None, None]
    assert [int(v) for v in rf.compute_receptive_field_from_graph_def(
        g, "input_image", "output2", stop_propagation=["strided_slice"])] == [5, 5, 2, 2, 0, 0]
    with pytest.raises(ValueError, match="Graph is not aligned since center shift from "
                                         "different paths is different in horizontal"):
        rf.compute_receptive_field_from_graph_def(g, "input_image", "output3")


def test_do_quantize_training_on_graphdef_as_tf(tmp_path):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(np.ones((3, 4), np.float32), name="w")
        h = tf.nn.relu6(tf.matmul(x, w, name="mm1"), name="r6")
        w2 = tf.constant(np.ones((4, 2), np.float32), name="w2")
        s = tf.sigmoid(tf.matmul(h, w2, name="mm2"), name="sig")
        tf.matmul(tf.reshape(s, [-1, 2], name="rs"),
                  tf.constant(np.ones((2, 2), np.float32), name="w3"), name="mm3")
        tf.matmul(h, w2, name="mm4")
        tf.train.Saver()
        tf.global_variables_initializer()
    gd = tf.train.do_quantize_training_on_graphdef(g.as_graph_def(), 8)
    nodes = {n.name: (n.op, list(n.input)) for n in gd.node}
    # TF 1.15's rewrite of the same graph (178 nodes in all, the SaveV2 last)
    assert len(gd.node) == 178 and gd.node[-1].name == "save/SaveV2"
    assert nodes["mm1"][1] == ["x/QuantizeAndDequantizeV2", "w/read/QuantizeAndDequantizeV2"]
    assert nodes["mm4"][1] == ["r6/QuantizeAndDequantizeV2", "w2/QuantizeAndDequantizeV2"]
    assert nodes["r6/QuantizeAndDequantizeV2"][1] == ["r6", "r6/InputMin", "r6/InputMax"]
    assert nodes["x/Min/EMA/ValueDiff"] == ("Sub", ["x/Min/Variable", "x/Min/Switch:1"])
    assert nodes["x/Min/Merge"] == ("Merge", ["x/Min/Switch", "x/Min/EMA/EMAValue"])
    assert nodes["save/Assign/_1_qt"] == ("Assign", ["x/Min/Variable", "save/RestoreV2/_0_qt"])
    assert nodes["save/SaveV2"][1][3:] == [
        "w", "x/Min/Variable", "x/Max/Variable", "w/read/Min/Variable", "w/read/Max/Variable",
        "w2/Min/Variable", "w2/Max/Variable", "w3/Min/Variable", "w3/Max/Variable"]
    attrs = {n.name: n.attr for n in gd.node}
    q = attrs["r6/QuantizeAndDequantizeV2"]
    assert (q["signed_input"].b, q["num_bits"].i, q["range_given"].b) == (False, 8, True)
    assert attrs["x/QuantizeAndDequantizeV2"]["signed_input"].b is True
    assert "_class" not in attrs["x/Min/AssignValue"]
    g2 = tf.Graph()
    with g2.as_default():
        tf.import_graph_def(gd, name="")
        xx, out = g2.get_tensor_by_name("x:0"), g2.get_tensor_by_name("mm3:0")
        lo, hi = (g2.get_tensor_by_name(f"x/{k}/Variable:0") for k in ("Min", "Max"))
        with tf.Session() as sess:
            sess.run(g2.get_operation_by_name("init"))
            feed = {xx: np.linspace(-1, 1, 6).reshape(2, 3).astype(np.float32)}
            got = sess.run(out, feed)
            sess.run(out, {xx: np.linspace(-2, 3, 6).reshape(2, 3).astype(np.float32)})
            ema = sess.run([lo, hi])
            path = str(tmp_path / "q")
            sess.run("save/control_dependency:0", {"save/Const:0": path})
        with tf.Session() as sess:
            sess.run("save/restore_all", {"save/Const:0": path})
            restored = sess.run([lo, hi])
    # TF 1.15's values: 8-bit rounding of the sigmoid's output, the EMA after two runs
    np.testing.assert_allclose(got, [[1.003921627998352] * 2, [2.0, 2.0]], rtol=1e-6)
    np.testing.assert_allclose(ema, [-1.0009999, 1.002], rtol=1e-6)
    np.testing.assert_allclose(restored, ema)
    g3 = tf.Graph()
    with g3.as_default():
        a, b, c = (tf.placeholder(tf.float32, [2, 2], name=n) for n in "abc")
        tf.matmul(tf.matmul(a, b), c)
    with pytest.raises(tf.errors.UnimplementedError, match="Found an unknown op: MatMul with "
                                                           "type: MatMul; Unknown ops are"):
        tf.train.do_quantize_training_on_graphdef(g3.as_graph_def(), 8)
    with pytest.raises(tf.errors.OutOfRangeError, match=r"num_bits should be in range \[1, "
                                                        r"63\] but is: 64"):
        tf.train.do_quantize_training_on_graphdef(g.as_graph_def(), 64)


def test_convolutional_orthogonal_initializers_are_orthogonal():
    fw = tf.contrib.framework
    with tf.Session() as s:
        k = s.run(fw.convolutional_delta_orthogonal(gain=2.0, seed=1)((3, 3, 4, 6)))
        # a delta kernel: only the centre tap, an orthogonal (scaled) matrix
        center = k[1, 1]
        np.testing.assert_allclose(center @ center.T, 4.0 * np.eye(4), atol=1e-4)
        k[1, 1] = 0
        assert not k.any()
        for name, shape in (("convolutional_orthogonal_1d", (4, 4, 4)),
                            ("convolutional_orthogonal_2d", (4, 4, 4, 4)),
                            ("convolutional_orthogonal_3d", (2, 2, 2, 3, 3))):
            k = s.run(getattr(fw, name)(gain=2.0, seed=1)(shape))
            taps = k.reshape(-1, shape[-2], shape[-1])
            np.testing.assert_allclose(sum(m.T @ m for m in taps), 4.0 * np.eye(shape[-1]),
                                       atol=1e-4)
        # with circular padding the convolution is an orthogonal operator: norms are kept
        k = s.run(fw.convolutional_orthogonal_2d(seed=3)((4, 4, 5, 5)))
        x = np.random.RandomState(0).randn(1, 8, 8, 5).astype(np.float32)
        xp = np.concatenate([x, x[:, :3]], 1)
        xp = np.concatenate([xp, xp[:, :, :3]], 2)
        y = s.run(tf.nn.conv2d(xp, k, [1, 1, 1, 1], "VALID"))
    np.testing.assert_allclose(np.linalg.norm(y), np.linalg.norm(x), rtol=1e-4)


def test_saved_model_load_v2_signatures_and_variables(tmp_path):
    path = str(tmp_path / "m")
    with tf.Graph().as_default():  # (not the default graph the later tests build in)
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,),
                                                       kernel_initializer="ones",
                                                       bias_initializer="ones")])
        tf.saved_model.experimental.save(m, path)
    with tf.Graph().as_default():
        obj = tf.saved_model.load_v2(path)
        assert list(obj.signatures.keys()) == ["serving_default"]
        f = obj.signatures["serving_default"]
        # TF 1.15's reprs
        assert repr(f.structured_input_signature) == (
            "((), {'dense_input': TensorSpec(shape=(?, 3), dtype=tf.float32, "
            "name='dense_input')})")
        assert repr(f.structured_outputs) == (
            "{'dense': TensorSpec(shape=(?, 2), dtype=tf.float32, name='dense')}")
        out = f(tf.constant([[1.0, 2.0, 3.0]]))
        out2 = f(dense_input=tf.constant([[1.0, 0.0, 0.0]]))
        assert out["dense"].name == "StatefulPartitionedCall:0"
        assert out["dense"].shape.as_list() == [1, 2]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got, got2 = s.run([out, out2])
        np.testing.assert_array_equal(got["dense"], [[7.0, 7.0]])
        np.testing.assert_array_equal(got2["dense"], [[2.0, 2.0]])
        assert sorted(v.name for v in obj.variables) == ["dense/bias:0", "dense/kernel:0"]
        assert len(tf.global_variables()) == 2
        with pytest.raises(TypeError, match="missing required arguments: dense_input"):
            f()
    # a variable of the graph the model was saved from that the model does not own has no
    # saved value: it is not made
    path2 = str(tmp_path / "m2")
    with tf.Graph().as_default():
        tf.Variable(1.0, name="stray", use_resource=True)
        m2 = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
        tf.saved_model.experimental.save(m2, path2)
    with tf.Graph().as_default():
        obj = tf.saved_model.load_v2(path2)
        assert "stray:0" not in [v.name for v in obj.variables]
        assert len(obj.variables) == 2
    # a TF 1.x SavedModel (simple_save, a resource variable) loads the same way
    path1 = str(tmp_path / "v1")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.matmul(x, tf.Variable([[2.0], [3.0]], name="v", use_resource=True), name="y")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            tf.saved_model.simple_save(s, path1, {"x": x}, {"y": y})
    with tf.Graph().as_default():
        obj = tf.saved_model.load_v2(path1, tags=["serve"])
        r = obj.signatures["serving_default"](x=tf.constant([[1.0, 1.0]]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run(r)["y"], [[5.0]])
