"""Transformer and BERT programs as TF 1.x projects wrote them (BERT's modeling and
optimization code, tensor2tensor-style layers, mixed precision), checked against TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


def test_contrib_loss_scale_optimizer_densifies_sparse_gradients():
    """TF 1.15's contrib wrapper unscales each gradient with ``g * cast(1 / scale)``, which
    turns an embedding's IndexedSlices into a dense tensor: momentum keeps moving rows that
    a later batch does not gather. Values printed by TF 1.15."""
    mp = tf.contrib.mixed_precision
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [5, 2], initializer=tf.constant_initializer(
            np.arange(10).reshape(5, 2) / 10.))
        ids = tf.placeholder(tf.int32, [None])
        loss = tf.reduce_sum(tf.square(tf.gather(emb, ids)))
        opt = mp.LossScaleOptimizer(tf.train.MomentumOptimizer(0.1, 0.9),
                                    mp.FixedLossScaleManager(128.))
        gv = opt.compute_gradients(loss)
        assert isinstance(gv[0][0], tf.Tensor) and gv[0][0].op.type == "Mul"
        train = opt.apply_gradients(gv)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for batch in ([0, 1], [2], [3]):
                s.run(train, {ids: batch})
            np.testing.assert_allclose(s.run(emb), [[0., 0.0458], [0.0916, 0.1374],
                                                    [0.248, 0.31], [0.48, 0.56], [0.8, 0.9]],
                                       rtol=1e-5)


def test_contrib_loss_scale_optimizer_fails_on_a_none_gradient():
    """Every gradient goes through IsFinite in TF 1.15's contrib wrapper, so a variable the
    loss does not reach fails apply_gradients; any manager-like object is accepted."""
    mp = tf.contrib.mixed_precision
    with tf.Graph().as_default():
        x = tf.get_variable("x", [2], initializer=tf.ones_initializer())
        tf.get_variable("z", [2], initializer=tf.ones_initializer())
        opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                    mp.FixedLossScaleManager(4.))
        gv = opt.compute_gradients(tf.reduce_sum(x * 3.))
        assert [g is None for g, _ in gv] == [False, True]
        with pytest.raises(ValueError, match="None values not supported"):
            opt.apply_gradients(gv)

        class Manager:  # duck-typed, not a LossScaleManager subclass
            def get_loss_scale(self):
                return tf.constant(2.0)

            def update_loss_scale(self, finite_grads):
                return tf.no_op()

        opt2 = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.5), Manager())
        train = opt2.minimize(tf.reduce_sum(x * 3.), var_list=[x])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            np.testing.assert_allclose(s.run(x), [-0.5, -0.5])


def test_profiler_flops_follow_tf115_registry_and_shown_tree(capsys):
    """TF 1.15 registers no FLOP statistics for AddV2 nor BatchMatMulV2 (an attention
    layer's `x + y` and batched matmul count 0), counts Conv3D, and returns the tree it shows:
    a name scope has no FLOPs of its own, so under ``min_float_ops=1`` its ops stand at the
    root, sorted by FLOPs; the root's parameters are those shown (none). TF 1.15's numbers."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3, 4], "x")
        w = tf.Variable(tf.ones([4, 4]), name="w")
        h = tf.tensordot(x, w, [[2], [0]]) + 1.0
        s = tf.matmul(h, x, transpose_b=True)
        tf.reduce_sum(tf.nn.softmax(s) - 1.0)
        tf.nn.conv3d(tf.zeros([1, 3, 3, 3, 2]), tf.zeros([2, 2, 2, 2, 3]), [1] * 5, "VALID",
                     name="c3")
        opts = tf.profiler.ProfileOptionBuilder.float_operation()
        opts["output"] = "none"
        root = tf.profiler.profile(g, options=opts)
        assert (root.total_float_ops, root.total_parameters) == (1085, 0)
        assert [(c.name, c.float_ops, c.total_float_ops, c.children)
                for c in root.children] == [
            ("c3", 768, 768, []), ("Tensordot/MatMul", 192, 192, []),
            ("Softmax", 90, 90, []), ("sub", 18, 18, []), ("Sum", 17, 17, [])]
        opts = tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()
        opts["output"] = "none"
        root = tf.profiler.profile(g, options=opts)
        assert [(c.name, c.total_parameters) for c in root.children] == [("w", 16)]
    # tfprof says so on stdout as it reads the graph, whatever the output option
    assert capsys.readouterr().out == "Parsing Inputs...\nParsing Inputs...\n"


def test_keras_layer_normalization_axis_attribute_as_tf115():
    """TF 1.15 keeps an int axis until build, then stores the resolved list, which
    get_config returns; a bad axis type fails in the constructor."""
    ln = tf.keras.layers.LayerNormalization(epsilon=1e-12, name="LayerNorm")
    assert ln.axis == -1 and ln.get_config()["axis"] == -1
    with tf.Graph().as_default():
        ln(tf.zeros([2, 3, 4]))
        assert ln.axis == [2] and ln.get_config()["axis"] == [2]
        assert [v.name for v in ln.weights] == ["LayerNorm/gamma:0", "LayerNorm/beta:0"]
        with pytest.raises(ValueError, match=r"Duplicate axis: \(1, 1\)"):
            tf.keras.layers.LayerNormalization(axis=[1, -2])(tf.zeros([2, 3, 4]))
    with pytest.raises(ValueError, match="Expected an int or a list/tuple of ints for the "
                                         "argument 'axis', but received instead: x"):
        tf.keras.layers.LayerNormalization(axis="x")


def test_custom_gradient_rejects_ref_variables_made_inside():
    """A memory-saving block (recompute_grad, custom_gradient) may create only resource
    variables in TF 1.15: a ref variable fails with its TypeError; use_resource=True works."""
    def block(x):
        return tf.layers.dense(x, 2, kernel_initializer=tf.ones_initializer(), name="d")

    with tf.Graph().as_default():
        x = tf.constant(np.ones((3, 2)), tf.float32)
        words = ("must be `ResourceVariable`s. Ensure that no `variable_scope` is created "
                 "with `use_resource=False`")
        with tf.variable_scope("ref"), pytest.raises(TypeError, match=words):
            tf.contrib.layers.recompute_grad(block)(x)
        with tf.variable_scope("res", use_resource=True):
            y = tf.contrib.layers.recompute_grad(block)(x)
        gx = tf.gradients(tf.reduce_sum(y * y), x)[0]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_allclose(s.run(gx), np.full((3, 2), 8.0))


def test_contrib_recompute_grad_decorator_takes_options_only_in_a_call():
    """TF 1.15's contrib recompute_grad is ``@recompute_grad`` or
    ``@recompute_grad(use_data_dep=...)``; ``recompute_grad(fn, use_data_dep=...)`` returns a
    decorator that, applied, hands a function twice; a fn closing over a tensor raises
    ValueError. TF 1.15's messages."""
    def block(x):
        return tf.layers.dense(x, 2, name="d")

    with tf.Graph().as_default():
        x = tf.constant(np.ones((3, 2)), tf.float32)
        with tf.variable_scope("a", use_resource=True):
            y = tf.contrib.layers.recompute_grad(use_data_dep=True, tupleize_grads=True)(block)(x)
        assert y.shape.as_list() == [3, 2]
        with pytest.raises(TypeError, match=r"^recompute_grad\(\) got multiple values for "
                                            "argument 'use_data_dep'"):
            tf.contrib.layers.recompute_grad(block, use_data_dep=True)(x)
        c = tf.constant(2.0)
        with pytest.raises(ValueError, match="closes over Tensor Const_1:0 .local variable "
                                             "name: c.. The decorated fn must not close over"):
            tf.contrib.layers.recompute_grad(lambda t: t * c)


def test_profiler_scope_report_text_as_tf115(capsys, tmp_path):
    """The parameter count a model prints: TF 1.15's stdout, options block, doc, legend, one
    line per shown node (a variable with its shape, a bare scope with '--'), byte for byte."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [4, 8], "x")
        with tf.variable_scope("enc"):
            tf.layers.dense(x, 8, name="q")
        capsys.readouterr()
        tf.profiler.profile(
            g, options=tf.profiler.ProfileOptionBuilder.trainable_variables_parameter())
        tree = ("_TFProfRoot (--/72 params)\n  enc (--/72 params)\n    enc/q (--/72 params)\n"
                "      enc/q/bias (8, 8/8 params)\n      enc/q/kernel (8x8, 64/64 params)\n")
        doc = ("\nDoc:\nscope: The nodes in the model graph are organized by their names, which "
               "is hierarchical like filesystem.\nparam: Number of parameters (in the "
               "Variable).\n\nProfile:\nnode name | # parameters\n")
        options = "".join(f"-{k:<26} {v}\n" for k, v in [
            ("max_depth", 10000), ("min_bytes", 0), ("min_peak_bytes", 0),
            ("min_residual_bytes", 0), ("min_output_bytes", 0), ("min_micros", 0),
            ("min_accelerator_micros", 0), ("min_cpu_micros", 0), ("min_params", 0),
            ("min_float_ops", 0), ("min_occurrence", 0), ("step", -1), ("order_by", "name"),
            ("account_type_regexes", "_trainable_variables"), ("start_name_regexes", ".*"),
            ("trim_name_regexes", ""), ("show_name_regexes", ".*"), ("hide_name_regexes", ""),
            ("account_displayed_op_only", "true"), ("select", "params"),
            ("output", "stdout:")])
        assert capsys.readouterr().out == (
            "Parsing Inputs...\n\n=========================Options============================="
            "\n" + options + "\n==================Model Analysis Report======================\n"
            + doc + tree + "\n======================End of Report==========================\n")
        # a file gets the report alone
        opts = tf.profiler.ProfileOptionBuilder(
            tf.profiler.ProfileOptionBuilder.trainable_variables_parameter()).with_file_output(
                str(tmp_path / "p.txt")).build()
        tf.profiler.profile(g, options=opts)
        assert (tmp_path / "p.txt").read_text() == doc + tree


def test_profiler_object_says_parsing_inputs_once(capsys):
    """tfprof reads the graph once per tf.profiler.Profiler (at construction), not at each of
    its profile_* calls; TF 1.15 prints 'Parsing Inputs...' then."""
    with tf.Graph().as_default() as g:
        tf.layers.dense(tf.placeholder(tf.float32, [4, 8]), 3)
        capsys.readouterr()
        prof = tf.profiler.Profiler(g)
        assert capsys.readouterr().out == "Parsing Inputs...\n"
        opts = tf.profiler.ProfileOptionBuilder.float_operation()
        opts["output"] = "none"
        assert prof.profile_name_scope(opts).total_float_ops == 253  # TF 1.15's count
        assert prof.profile_operations(opts).total_float_ops == 253
        assert capsys.readouterr().out == ""


def test_profiler_op_view_is_tfprof_chain_and_report(tmp_path):
    """TF 1.15's op view: the op types sorted by FLOPs, each the only child of the one before
    with the totals of those after it, and its report's columns (TF 1.15's output)."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3, 4], "x")
        w = tf.Variable(tf.ones([4, 4]), name="w")
        s = tf.matmul(tf.tensordot(x, w, [[2], [0]]) + 1.0, x, transpose_b=True)
        tf.reduce_sum(tf.nn.softmax(s) - 1.0)
        tf.nn.conv3d(tf.zeros([1, 3, 3, 3, 2]), tf.zeros([2, 2, 2, 2, 3]), [1] * 5, "VALID")
        path = str(tmp_path / "op.txt")
        opts = tf.profiler.ProfileOptionBuilder(
            tf.profiler.ProfileOptionBuilder.float_operation()).with_file_output(path).build()
        root = tf.profiler.profile(g, cmd="op", options=opts)
    chain, node = [], root
    while node.children:
        (node,) = node.children
        chain.append((node.name, node.float_ops, node.total_float_ops))
    assert root.total_float_ops == 1085
    assert chain == [("Conv3D", 768, 1085), ("MatMul", 192, 317), ("Softmax", 90, 125),
                     ("Sub", 18, 35), ("Sum", 17, 17)]
    with open(path) as f:
        assert f.read().split("Profile:\n")[1] == (
            "node name | # float_ops\n"
            "Conv3D                   768 float_ops (100.00%, 70.78%)\n"
            "MatMul                   192 float_ops (29.22%, 17.70%)\n"
            "Softmax                    90 float_ops (11.52%, 8.29%)\n"
            "Sub                         18 float_ops (3.23%, 1.66%)\n"
            "Sum                         17 float_ops (1.57%, 1.57%)\n")


def test_profiler_op_view_orders_ties_as_tfprof_sort():
    """With more than 16 op types tfprof's std::sort is not stable: of BiasAdd and Add, both
    160 FLOPs, TF 1.15 lists BiasAdd first (its output for this attention block)."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [4, 5, 8], "x")
        with tf.variable_scope("enc"):
            q = tf.layers.dense(x, 8, name="q")
            p = tf.nn.softmax(tf.matmul(q, x, transpose_b=True))
            o = tf.contrib.layers.layer_norm(tf.matmul(p, x) + x)
            tf.reduce_sum(o, axis=1) - 1.0
        w3 = tf.get_variable("w3", [2, 2, 2, 3, 4])
        tf.nn.conv3d(tf.zeros([1, 4, 4, 4, 3]), w3, [1, 1, 1, 1, 1], "SAME")
        opts = tf.profiler.ProfileOptionBuilder.float_operation()
        opts["output"] = "none"
        node = tf.profiler.profile(g, cmd="op", options=opts)
    chain = []
    while node.children:
        (node,) = node.children
        chain.append((node.name, node.float_ops))
    assert chain == [("Conv3D", 12288), ("MatMul", 2560), ("Softmax", 500), ("Mul", 384),
                     ("Mean", 320), ("SquaredDifference", 320), ("BiasAdd", 160),
                     ("Add", 160), ("Sum", 128), ("Sub", 66), ("Rsqrt", 8)]


def test_profiler_graph_view_is_the_dataflow_tree():
    """TF 1.15's graph view nests each op under the op that reads it (the first one a
    depth-first walk from the unread ops reaches), hiding ops without FLOPs of their own."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3], "x")
        w = tf.Variable(tf.ones([3, 4]), name="w")
        h = tf.nn.relu(tf.matmul(x, w) + 1.0)
        tf.reduce_sum(tf.square(h) * 2.0) - tf.reduce_mean(h)
        opts = tf.profiler.ProfileOptionBuilder.float_operation()
        opts["output"] = "none"
        root = tf.profiler.profile(g, cmd="graph", options=opts)

    def walk(n, depth=0):
        out = [(depth, n.name, n.float_ops, n.total_float_ops)]
        for c in n.children:
            out += walk(c, depth + 1)
        return out

    assert walk(root) == [(0, "_TFProfRoot", 0, 80), (1, "sub", 1, 80), (2, "Sum", 7, 71),
                          (3, "mul", 8, 64), (4, "Square", 8, 56), (5, "MatMul", 48, 48),
                          (2, "Mean", 8, 8)]


def test_profile_option_builder_keeps_every_threshold():
    """TF 1.15's time_and_memory and with_min_memory/with_min_execution_time keep the peak,
    residual, output bytes and accelerator/CPU time thresholds in the options."""
    b = tf.profiler.ProfileOptionBuilder
    opts = b.time_and_memory(min_micros=5, min_bytes=7, min_peak_bytes=3)
    assert (opts["min_peak_bytes"], opts["min_residual_bytes"], opts["min_output_bytes"],
            opts["min_accelerator_micros"], opts["min_cpu_micros"]) == (3, 0, 0, 0, 0)
    opts = b().with_min_memory(1, 2, 3, 4).with_min_execution_time(5, 6, 7).build()
    assert [opts[k] for k in ("min_bytes", "min_peak_bytes", "min_residual_bytes",
                              "min_output_bytes", "min_micros", "min_accelerator_micros",
                              "min_cpu_micros")] == [1, 2, 3, 4, 5, 6, 7]
