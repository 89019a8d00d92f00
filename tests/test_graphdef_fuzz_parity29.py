"""GraphDef / MetaGraphDef parity with TF 1.15 (session 29, helper h327), found by building
seeded random graphs (element-wise ops, matmul, conv, pooling, reductions, reshapes, variables
of both kinds, optimizers, layers, scopes, devices, colocation) in TF 1.15 and tideflow and
comparing the GraphDefs node by node (names, ops, inputs, devices, every attr), the
MetaGraphDefs (collections, saver_def, stripped op list) and the values: the minimal cases,
with TF 1.15's output as measured; and a small seeded fuzz run of round-trip invariants
(as_graph_def -> import_graph_def -> as_graph_def, export/import_meta_graph) without TF."""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- colocation attrs -------------------------------------------------------------------------

def test_sum_gradient_shape_ops_colocate_with_the_shape():
    # TF 1.15's _SumGrad builds the reduced shape and tile multiples of an input of unknown
    # shape under colocate_with(Shape) (measured: their _class is the Shape's group)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    tf.gradients(tf.reduce_sum(x, axis=1), x)
    g = tf.get_default_graph()
    grp = {n: g.get_operation_by_name("gradients/Sum_grad/" + n).colocation_groups()
           for n in ("Shape", "Size", "DynamicStitch", "floordiv", "Reshape", "Tile")}
    shape = [b"loc:@gradients/Sum_grad/Shape"]
    assert grp == {"Shape": shape, "Size": shape, "DynamicStitch": shape, "floordiv": shape,
                   "Reshape": [b"loc:@gradients/Sum_grad/Reshape"],
                   "Tile": [b"loc:@gradients/Sum_grad/Tile"]}
    assert g.get_operation_by_name("gradients/Sum_grad/Size").get_attr("_class") == shape


def test_resource_variable_colocation_is_its_handle():
    # TF 1.15's _op_to_colocate_with: a resource variable colocates with its VarHandleOp
    # (loc:@v), so do its slots, their reads and the update op (measured)
    v = tf.get_variable("v", [3], use_resource=True)
    with tf.colocate_with(v):
        tf.constant(1.0, name="c")
    tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(v * v))
    g = tf.get_default_graph()
    groups = {n: g.get_operation_by_name(n).colocation_groups() for n in (
        "v", "v/Read/ReadVariableOp", "c", "v/Momentum", "v/Momentum/Read/ReadVariableOp",
        "v/Momentum/Initializer/zeros", "Momentum/update_v/ResourceApplyMomentum",
        "v/Momentum/Assign")}
    at_v = [b"loc:@v"]
    assert groups == {"v": at_v, "v/Read/ReadVariableOp": [b"loc:@v/Read/ReadVariableOp"],
                      "c": at_v, "v/Momentum": at_v, "v/Momentum/Read/ReadVariableOp": at_v,
                      "v/Momentum/Initializer/zeros": at_v,
                      "Momentum/update_v/ResourceApplyMomentum": at_v,
                      "v/Momentum/Assign": [b"loc:@v/Momentum/Assign"]}
    assert "_class" not in g.get_operation_by_name("v/Read/ReadVariableOp").node_def.attr


# ---- VariableDefs ---------------------------------------------------------------------------

def test_statistics_and_metric_variables_are_synchronized_on_read():
    # TF 1.15: batch norm's moving statistics (renorm's too) are ON_READ (3) / MEAN (2), the
    # metrics' totals and counts ON_READ / SUM (1); a meta graph's VariableDefs say so
    x = tf.placeholder(tf.float32, [None, 3])
    tf.metrics.mean(x)
    tf.metrics.accuracy(tf.constant([1, 2]), tf.constant([1, 1]))
    got = {v.name: (v.to_proto().synchronization, v.to_proto().aggregation, v.trainable)
           for v in tf.local_variables()}
    assert got == {n: (3, 1, False) for n in (
        "mean/total:0", "mean/count:0", "accuracy/total:0", "accuracy/count:0")}
    tf.layers.batch_normalization(x, training=True, renorm=True)
    got = {v.name: (v.to_proto().synchronization, v.to_proto().aggregation)
           for v in tf.global_variables()}
    stats = ("moving_mean", "moving_variance", "moving_stddev", "renorm_mean", "renorm_stddev")
    assert got == dict({"batch_normalization/gamma:0": (0, 0),
                        "batch_normalization/beta:0": (0, 0)},
                       **{f"batch_normalization/{n}:0": (3, 2) for n in stats})
    assert [v.name for v in tf.trainable_variables()] == [
        "batch_normalization/gamma:0", "batch_normalization/beta:0"]


# ---- stripped op lists ----------------------------------------------------------------------

def _arg_types(args):
    return [(a.name, a.type, a.type_attr, a.number_attr) for a in args]


def test_stripped_op_defs_without_tf2_attrs_take_tf_115s_fixed_types():
    # TF 1.15's ConcatOffset (in every concat gradient), RFFT and Dequantize have fixed
    # types where later TFs added type attrs; its DepthwiseConv2dNative no EXPLICIT padding
    # (measured from TF 1.15's op registry)
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    tf.gradients(tf.concat([x, x], 1), x)
    tf.spectral.rfft(tf.ones([4]))
    q = tf.quantization.quantize(tf.ones([2]), 0.0, 1.0, tf.quint8)
    tf.quantization.dequantize(q.output, 0.0, 1.0)
    tf.nn.depthwise_conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), [1, 1, 1, 1], "SAME")
    ops_ = {o.name: o for o in tf.train.export_meta_graph().meta_info_def.stripped_op_list.op}
    off = ops_["ConcatOffset"]
    assert _arg_types(off.input_arg) == [("concat_dim", 3, "", ""), ("shape", 3, "", "N")]
    assert _arg_types(off.output_arg) == [("offset", 3, "", "N")]
    assert [a.name for a in off.attr] == ["N"]
    rfft = ops_["RFFT"]
    assert _arg_types(rfft.input_arg) == [("input", 1, "", ""), ("fft_length", 3, "", "")]
    assert _arg_types(rfft.output_arg) == [("output", 8, "", "")] and not rfft.attr
    deq = ops_["Dequantize"]
    assert _arg_types(deq.output_arg) == [("output", 1, "", "")]
    assert [a.name for a in deq.attr] == ["T", "mode"]
    pad = next(a for a in ops_["DepthwiseConv2dNative"].attr if a.name == "padding")
    assert list(pad.allowed_values.list.s) == [b"SAME", b"VALID"]


def test_stripped_max_pool_op_defs_are_tf_115s():
    # TF 1.15's MaxPool takes qint8 too; its MaxPool3D lists T after data_format (measured
    # from its op registry)
    x = tf.placeholder(tf.float32, [1, 4, 4, 4, 1])
    tf.nn.max_pool(x[0], [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID")
    ops_ = {o.name: o for o in tf.train.export_meta_graph().meta_info_def.stripped_op_list.op}
    assert [a.name for a in ops_["MaxPool3D"].attr] == [
        "ksize", "strides", "padding", "data_format", "T"]
    t = next(a for a in ops_["MaxPool"].attr if a.name == "T")
    assert [tf.as_dtype(d).name for d in t.allowed_values.list.type] == [
        "float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8", "int16", "int8",
        "uint16", "qint8"]


def test_stripped_op_defs_say_tf_115s_is_stateful():
    # TF 1.15's registry: CheckNumerics is stateful, ReadFile is not (measured); tideflow's
    # executor flags differ, its exported op defs do not
    tf.check_numerics(tf.ones([2]), "bad")
    tf.io.read_file("f")
    ops_ = {o.name: o for o in tf.train.export_meta_graph().meta_info_def.stripped_op_list.op}
    assert ops_["CheckNumerics"].is_stateful and not ops_["ReadFile"].is_stateful


# ---- IndexedSlices gradients densified by the op that reads them ------------------------------

def _grad_ops(types):
    return [(o.name, o.type, [i.name for i in o.inputs])
            for o in tf.get_default_graph().get_operations()
            if o.name.startswith("gradients/") and o.type in types]


def test_indexed_slices_are_densified_inside_the_consuming_op():
    # TF 1.15 converts an IndexedSlices where an op takes it: inside the op's name scope,
    # named by its input (AddN/inputs_1, transpose/x, TanhGrad/dy, Reshape/tensor); the
    # mixed sum of partials is an AddN (measured)
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    t = tf.tanh(tf.transpose(x, [1, 0]) * 1.0)
    loss = tf.reduce_sum(tf.gather(t, [0, 2])) + tf.reduce_sum(t)
    tf.gradients(loss, x)
    got = _grad_ops(("UnsortedSegmentSum", "AddN", "TanhGrad"))
    assert got == [
        ("gradients/AddN/inputs_1", "UnsortedSegmentSum",
         ["gradients/GatherV2_grad/Reshape:0", "gradients/GatherV2_grad/Reshape_1:0",
          "gradients/AddN/strided_slice:0"]),
        ("gradients/AddN", "AddN", ["gradients/Sum_1_grad/Tile:0", "gradients/AddN/inputs_1:0"]),
        ("gradients/Tanh_grad/TanhGrad", "TanhGrad", ["Tanh:0", "gradients/AddN:0"])]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3, 4], name="x")
        t = tf.tanh(tf.transpose(x, [1, 0]))
        tf.gradients(tf.reduce_sum(tf.gather(tf.gather(t, [0, 1, 2]), [0, 2])), x)
        got = _grad_ops(("UnsortedSegmentSum", "TanhGrad", "Transpose"))
        assert [g[0] for g in got] == [
            "gradients/GatherV2_grad/Reshape/tensor", "gradients/Tanh_grad/TanhGrad/dy",
            "gradients/Tanh_grad/TanhGrad", "gradients/transpose_grad/transpose"]
        # the TanhGrad's conversion waits for the gradient, as TF's control dependency
        ss = tf.get_default_graph().get_operation_by_name(
            "gradients/Tanh_grad/TanhGrad/strided_slice/stack")
        assert [c.name for c in ss.control_inputs] == ["gradients/GatherV2_grad/Reshape"]


def test_tile_gradient_of_indexed_slices_sums_rows_modulo_the_input():
    # TF 1.15's _TileGrad folds an IndexedSlices' rows by index modulo the input's first
    # dimension (FloorMod, UnsortedSegmentSum) before the reshape and sum (ops and values
    # measured)
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    y = tf.gather(tf.tile(x, [2, 3]), [0, 2, 5, 5])
    g, = tf.gradients(tf.reduce_sum(y * tf.range(12.0)), x)
    types = [o.type for o in tf.get_default_graph().get_operations()
             if o.name.startswith("gradients/Tile_grad/")]
    assert types == ["Const", "Pack", "Const", "Transpose", "Const", "Reshape", "Const", "Const",
                     "Const", "Range", "Const", "Const", "Const", "StridedSlice", "FloorMod",
                     "UnsortedSegmentSum", "Const", "Const", "Const", "StridedSlice", "Const",
                     "Const", "ConcatV2", "Reshape", "Sum"]
    with tf.Session() as s:
        assert s.run(g, {x: [[0.0] * 4] * 3}).tolist() == [
            [12.0, 15.0, 18.0, 21.0], [0.0, 0.0, 0.0, 0.0], [36.0, 45.0, 54.0, 63.0]]


@pytest.mark.parametrize("red, shape, axis", [("sum", [None, 3, 2], 2),
                                              ("mean", [4, 3, 2], [1, 2])])
def test_reduction_gradient_of_indexed_slices_densifies_in_its_reshape(red, shape, axis):
    # TF 1.15's Sum/Mean gradients reshape the incoming gradient first: an IndexedSlices is
    # densified there, "<op>_grad/Reshape/tensor" (names and values measured)
    import numpy as np

    x = tf.placeholder(tf.float32, shape, name="x")
    r = getattr(tf, "reduce_" + red)(x, axis=axis)
    g, = tf.gradients(tf.reduce_sum(tf.gather(r, [0, 1, 1]) * 3.0), x)
    op = "Sum" if red == "sum" else "Mean"
    dense = [o.name for o in tf.get_default_graph().get_operations()
             if o.type == "UnsortedSegmentSum"]
    assert dense == [f"gradients/{op}_grad/Reshape/tensor"]
    with tf.Session() as s:
        got = s.run(g, {x: np.ones((4, 3, 2), np.float32)})
    row = 3.0 if red == "sum" else 0.5
    np.testing.assert_array_equal(got[:2], np.full((2, 3, 2), row) * [[[1]], [[2]]])
    np.testing.assert_array_equal(got[2:], 0.0)


def test_prod_gradient_transposes_back_to_the_inputs_static_shape():
    # TF 1.15's shape inference folds Prod's gradient inverse permutation, so its last
    # Transpose has x's static shape ([?, 5, 2] here); values measured
    import numpy as np

    x = tf.placeholder(tf.float32, [None, 5, 2])
    g, = tf.gradients(tf.reduce_prod(x, -1), x)
    shapes = {o.name: str(o.outputs[0].shape) for o in tf.get_default_graph().get_operations()
              if o.name.startswith("gradients/Prod_grad/") and o.type == "Transpose"}
    assert shapes == {"gradients/Prod_grad/transpose": "(2, ?, 5)",
                      "gradients/Prod_grad/transpose_1": "(?, 5, 2)"}
    assert str(g.shape) == "(?, 5, 2)"
    with tf.Session() as s:
        got = s.run(g, {x: np.arange(1, 31, dtype=np.float32).reshape(3, 5, 2)})
    assert got.ravel()[:6].tolist() == [2.0, 1.0, 4.0, 3.0, 6.0, 5.0]


# ---- shapes that meta graphs carry (_output_shapes) ------------------------------------------

def test_inference_batch_norm_gradient_reserve_outputs_are_channel_vectors():
    # TF 1.15's FusedBatchNormGrad* shape function: the reserve-space outputs are [0] in
    # training, [C] otherwise; a graph saved with its _output_shapes (as Saver.save's meta
    # graph) failed to import across TF 1.15 and tideflow before (shapes and values measured)
    import numpy as np

    x = tf.placeholder(tf.float32, [None, 2, 2, 3], name="x")
    y, _, _ = tf.nn.fused_batch_norm(
        x, tf.constant([1., 2., 3.]), tf.constant([0.5, 0., -0.5]),
        mean=tf.constant([0.1, 0.2, 0.3]), variance=tf.constant([1., 4., 9.]),
        is_training=False)
    g = tf.gradients(tf.reduce_sum(y * y), x)[0]
    op = g.op if g.op.type.startswith("FusedBatchNormGrad") else next(
        o for o in tf.get_default_graph().get_operations()
        if o.type.startswith("FusedBatchNormGrad"))
    assert [str(t.shape) for t in op.outputs] == [
        "(?, 2, 2, 3)", "(3,)", "(3,)", "(3,)", "(3,)"]
    with tf.Graph().as_default():
        xt = tf.placeholder(tf.float32, [None, 5, 5, 3])
        train = tf.raw_ops.FusedBatchNormGradV2(
            y_backprop=xt, x=xt, scale=tf.ones([3]), reserve_space_1=tf.ones([3]),
            reserve_space_2=tf.ones([3]), is_training=True)
        assert [str(t.shape) for t in train] == [
            "(?, 5, 5, 3)", "(3,)", "(3,)", "(0,)", "(0,)"]
    gd = tf.get_default_graph().as_graph_def(add_shapes=True)
    xv = np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) / 10
    with tf.Graph().as_default():
        gi, = tf.import_graph_def(gd, return_elements=[g.name], name="")
        with tf.Session() as s:
            got = s.run(gi, {"x:0": xv}).ravel()
    np.testing.assert_allclose(got[:6], [
        0.7997002005577087, -0.19995002448558807, -1.1999222040176392, 1.3991007804870605,
        0.39990004897117615, -0.5999889373779297], rtol=1e-6)


def test_import_adds_only_tf_115s_default_attrs_to_the_callers_graph_def():
    # TF 1.15's import_graph_def fills the caller's GraphDef with its ops' missing default
    # attrs, in place; AssignVariableOp's validate_shape and VarHandleOp's allowed_devices are
    # later TFs' (measured: the attrs each node has after the import)
    from google.protobuf import text_format

    gd = tf.GraphDef()
    text_format.Parse("""
    node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } } } } }
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                                float_val: 1.0 } } } }
    node { name: "a" op: "AssignVariableOp" input: "v" input: "c"
           attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
    node { name: "p" op: "MaxPool" input: "x" attr { key: "T" value { type: DT_FLOAT } }
           attr { key: "ksize" value { list { i: [1, 1, 1, 1] } } }
           attr { key: "strides" value { list { i: [1, 1, 1, 1] } } }
           attr { key: "padding" value { s: "SAME" } } }
    """, gd)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="")
    assert {n.name: sorted(n.attr) for n in gd.node} == {
        "v": ["container", "dtype", "shape", "shared_name"], "c": ["dtype", "value"],
        "a": ["dtype"], "x": ["dtype", "shape"],
        "p": ["T", "data_format", "ksize", "padding", "strides"]}


def test_layer_regularizers_are_not_colocated_and_scalar_weights_check_unknown_ranks():
    # TF 1.15: a tf.layers regularizer (Keras' callable loss) is not colocated with its
    # variable, get_variable's own is; a scalar weight's broadcast check is static only when
    # the values' rank is known (measured: op groups, the check's ops and the loss)
    import numpy as np

    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.dense(x, 2, kernel_regularizer=tf.contrib.layers.l2_regularizer(0.1))
    tf.get_variable("gv", [2], regularizer=tf.contrib.layers.l2_regularizer(0.1))
    groups = {o.name: o.colocation_groups() for o in tf.get_default_graph().get_operations()
              if "Regularizer" in o.name}
    assert groups == {
        "dense/kernel/Regularizer/l2_regularizer/scale": [
            b"loc:@dense/kernel/Regularizer/l2_regularizer/scale"],
        "dense/kernel/Regularizer/l2_regularizer/L2Loss": [
            b"loc:@dense/kernel/Regularizer/l2_regularizer/L2Loss"],
        "dense/kernel/Regularizer/l2_regularizer": [
            b"loc:@dense/kernel/Regularizer/l2_regularizer"],
        "gv/Regularizer/l2_regularizer/scale": [b"loc:@gv"],
        "gv/Regularizer/l2_regularizer/L2Loss": [b"loc:@gv"],
        "gv/Regularizer/l2_regularizer": [b"loc:@gv"]}
    for shape, static in ((None, False), ([None, 3], True)):
        with tf.Graph().as_default() as g:
            x = tf.placeholder(tf.float32, shape, name="x")
            loss = tf.losses.mean_squared_error(tf.zeros_like(x), x)
            names = {o.name for o in g.get_operations()}
            check = "mean_squared_error/assert_broadcastable/"
            assert (check + "static_scalar_check_success" in names) == static
            assert (check + "is_scalar" in names) == (not static)
            with tf.Session() as s:
                assert s.run(loss, {x: np.full((2, 3), 2.0, np.float32)}) == 4.0


# ---- seeded fuzz: round-trip invariants (no TF needed) --------------------------------------

def _random_graph(seed):
    """A random graph in the default graph: (fetches, feed of placeholder names, init op)."""
    import numpy as np

    r = np.random.RandomState(seed)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    ts = [x, tf.placeholder_with_default(tf.ones([2, 3]), [None, 3], name="d")]
    unary = [tf.nn.relu, tf.tanh, tf.sigmoid, tf.square, tf.abs, tf.nn.softplus, tf.identity]
    binary = [tf.add, tf.multiply, tf.subtract, tf.maximum, tf.squared_difference]
    has_var = False
    for i in range(r.randint(5, 14)):
        a = ts[r.randint(len(ts))]
        k = r.randint(9)
        scope = f"s{i}" if r.rand() < 0.3 else None
        with tf.name_scope(scope):
            if k == 0:
                t = unary[r.randint(len(unary))](a)
            elif k == 1:
                t = binary[r.randint(len(binary))](a, ts[r.randint(len(ts))])
            elif k == 2:
                t = tf.matmul(a, tf.constant(r.randn(3, 3).astype(np.float32)))
            elif k == 3:
                t = tf.reduce_sum(a, axis=1, keepdims=True) * a
            elif k == 4:
                t = tf.reshape(tf.concat([a, a], 1), [-1, 3])[:2]
            elif k == 5:
                has_var = True
                init = tf.constant_initializer(r.randn(3).astype(np.float32))
                v = tf.get_variable(f"v{i}", [3], initializer=init,
                                    use_resource=bool(r.rand() < 0.5))
                t = a * v
            elif k == 6:
                has_var = True
                t = tf.layers.dense(a, 3, activation=tf.tanh,
                                    kernel_initializer=tf.glorot_uniform_initializer(seed=i))
            elif k == 7:
                t = tf.cond(tf.reduce_sum(a) > 0, lambda a=a: a * 2.0, lambda a=a: a - 1.0)
            else:
                t = tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * 1.5),
                                  [tf.constant(0), a])[1]
        ts.append(t)
    loss = tf.add_n([tf.reduce_sum(t) for t in ts[-3:]], name="loss")
    fetches = [loss] + ts[-3:]
    if has_var:
        fetches += [g for g in tf.gradients(loss, tf.trainable_variables()) if g is not None]
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    init = tf.global_variables_initializer()
    feed = {"x:0": r.randn(2, 3).astype(np.float32)}
    return fetches, feed, init


def _nodes(graph_def):
    return {n.name: n.SerializeToString(deterministic=True) for n in graph_def.node}


def _run(graph, names, feed, init_name):
    with tf.Session(graph=graph) as s:
        s.run(init_name)
        return s.run(names, feed)


@pytest.mark.parametrize("seed", range(12))
def test_random_graphs_survive_graph_def_and_meta_graph_round_trips(seed):
    import numpy as np

    g = tf.get_default_graph()
    fetches, feed, init = _random_graph(seed)
    names = [t.name for t in fetches]
    gd = g.as_graph_def()
    want = _run(g, names, feed, init.name)
    # GraphDef -> import_graph_def -> GraphDef: the same nodes, library and byte size
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="")
        gd2 = g2.as_graph_def()
        # (the same order unless a loop's gradient added inputs to its While after it was
        # made: the import then orders the nodes topologically, as TF's importer does)
        if not any(n.op == "While" for n in gd.node):
            assert [n.name for n in gd2.node] == [n.name for n in gd.node]
        assert _nodes(gd2) == _nodes(gd) and gd2.library == gd.library
        assert gd2.ByteSize() == gd.ByteSize() == len(gd.SerializeToString())
        got = _run(g2, names, feed, init.name)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
    # export_meta_graph -> import_meta_graph: the same graph, collections and values
    mg = tf.train.export_meta_graph()
    with tf.Graph().as_default() as g3:
        tf.train.import_meta_graph(mg)
        # (with variables and no saver_def, the import makes a Saver: its save/ ops, as TF)
        got_nodes = {k: v for k, v in _nodes(g3.as_graph_def()).items()
                     if not k.startswith("save/")}
        assert got_nodes == _nodes(gd)
        # (an empty collection is not exported, as TF's)
        assert sorted(g3.get_all_collection_keys()) == sorted(
            k for k in g.get_all_collection_keys() if g.get_collection(k))
        assert [v.name for v in tf.global_variables()] == [
            v.name for v in g.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)]
        got = _run(g3, names, feed, tf.global_variables_initializer())
        if g3.get_all_collection_keys().count(tf.GraphKeys.TRAIN_OP) or (
                "train" in [o.name for o in g3.get_operations()]):
            with tf.Session() as s:  # a training step runs in the imported graph
                s.run(tf.global_variables_initializer())
                before = s.run("loss:0", feed)
                s.run("train", feed)
                assert np.isfinite(s.run("loss:0", feed)) and np.isfinite(before)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)
