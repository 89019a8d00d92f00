"""Cases: variables, name scopes, Session.run fetch/feed structures, error classes."""

CORE = {
    "variable_basics": """
        v = tf.Variable([1., 2.], name="v")
        rec("name", v.name); rec("op", v.op.name); rec("dtype", v.dtype); rec("shape", v.get_shape())
        rec("value_name", v.value().name); rec("read_name", v.read_value().name)
        rec("init_name", v.initializer.name); rec("iv", v.initial_value.name)
        v2 = tf.Variable([1., 2.], name="v")
        rec("uniq", v2.name)
        w = tf.Variable(3, name="a/b")
        rec("slash", w.name)
        a1 = v.assign([5., 6.]); a2 = v.assign_add([1., 1.]); a3 = v.assign_sub([2., 2.])
        rec("assign_names", [a1.name, a2.name, a3.name])
        with tf.Session() as s:
            rec("uninit", err(lambda: s.run(v)))
            rec("uninit_names", s.run(tf.report_uninitialized_variables()))
            s.run(tf.global_variables_initializer())
            rec("is_init", s.run(tf.is_variable_initialized(v)))
            rec("a1", s.run(a1)); rec("a2", s.run(a2)); rec("a3", s.run(a3))
            rec("eval", v.eval()); rec("load", (v.load([9., 9.], s), s.run(v))[1])
            rec("iv_val", s.run(v.initialized_value()))
            rec("count", s.run(tf.assign(w, 7)))
        rec("trainable", [x.name for x in tf.trainable_variables()])
        rec("global", [x.name for x in tf.global_variables()])
    """,
    "variable_errors": """
        rec("no_init", err(lambda: tf.Variable()))
        v = tf.Variable([1., 2.])
        rec("assign_shape", err(lambda: v.assign([1., 2., 3.])))
        rec("assign_dtype", err(lambda: v.assign([1, 2])))
        rec("validate", err(lambda: tf.Variable(tf.placeholder(tf.float32, [None]))))
        u = tf.Variable(tf.placeholder(tf.float32, [None]), validate_shape=False)
        rec("u_shape", u.get_shape())
        rec("callable", tf.Variable(lambda: tf.zeros([2])).get_shape())
    """,
    "variable_ops": """
        v = tf.Variable(tf.zeros([2, 3]), name="v")
        rec("getitem", v[0].get_shape()); rec("mul_dtype", (v * 2).dtype); rec("neg", (-v).name)
        rec("sum_name", tf.reduce_sum(v).op.inputs[0].name)
        rec("to_proto", v.to_proto().variable_name)
        rec("ref", v._ref().dtype.name if hasattr(v, "_ref") else "float32_ref")
        rec("shape_attr", v.shape)
        with tf.Session() as s:
            s.run(v.initializer)
            rec("sa", s.run(v[0].assign([1., 2., 3.])) if hasattr(v[0], "assign") else s.run(tf.scatter_update(v, [0], [[1., 2., 3.]])))
    """,
    "get_variable_reuse": """
        with tf.variable_scope("s"):
            a = tf.get_variable("a", [2], initializer=tf.ones_initializer())
        rec("a", a.name)
        rec("dup", errmsg(lambda: tf.get_variable("s/a", [2])).split("\\n")[0])
        with tf.variable_scope("s", reuse=True):
            b = tf.get_variable("a")
            rec("same", a is b)
            rec("missing", errmsg(lambda: tf.get_variable("zz", [1])))
        with tf.variable_scope("s", reuse=True):
            rec("shape_mismatch", err(lambda: tf.get_variable("a", [3])))
        with tf.variable_scope("s", reuse=tf.AUTO_REUSE):
            c = tf.get_variable("a", [2]); d = tf.get_variable("new", [1])
            rec("auto", (c is a, d.name))
        with tf.variable_scope("s") as sc:
            pass
        with tf.variable_scope(sc, reuse=True):
            rec("obj", tf.get_variable("a").name)
        with tf.variable_scope("t"):
            with tf.name_scope("ns"):
                e = tf.get_variable("e", [1]); op = tf.constant(1.0, name="c")
            rec("vs_ns", (e.name, op.name))
        with tf.variable_scope("t", default_name="x"):
            pass
        with tf.variable_scope(None, default_name="layer"):
            f = tf.get_variable("f", [1])
        with tf.variable_scope(None, default_name="layer"):
            g = tf.get_variable("f", [1])
        rec("default_names", (f.name, g.name))
        rec("no_shape", err(lambda: tf.get_variable("noshape")))
        rec("dtype_int", tf.get_variable("i", [2], dtype=tf.int32, initializer=tf.zeros_initializer()).dtype)
        rec("coll", len(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)))
    """,
    "get_variable_initializers": """
        gv = lambda n, **k: tf.get_variable(n, [3, 4], **k)
        vs = {"default": gv("d", initializer=None), "gu": gv("gu", initializer=tf.glorot_uniform_initializer(seed=1)),
              "gn": gv("gn", initializer=tf.glorot_normal_initializer(seed=2)),
              "tn": gv("tn", initializer=tf.truncated_normal_initializer(stddev=0.1, seed=3)),
              "rn": gv("rn", initializer=tf.random_normal_initializer(1., 2., seed=4)),
              "ru": gv("ru", initializer=tf.random_uniform_initializer(-1, 1, seed=5)),
              "vs": gv("vs", initializer=tf.variance_scaling_initializer(2.0, "fan_out", "uniform", seed=6)),
              "vsn": gv("vsn", initializer=tf.variance_scaling_initializer(seed=7)),
              "orth": gv("orth", initializer=tf.orthogonal_initializer(seed=8)),
              "he": gv("he", initializer=tf.keras.initializers.he_normal(seed=9)) if False else gv("he", initializer=tf.initializers.he_normal(seed=9)),
              "const": gv("c", initializer=tf.constant_initializer([1, 2, 3, 4] * 3)),
              "ident": tf.get_variable("id", [3, 3], initializer=tf.initializers.identity())}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for k, v in sorted(vs.items()):
                if k != "default":
                    rec(k, s.run(v))
            d = s.run(vs["default"])
            lim = np.sqrt(6. / 7.)
            rec("default_in_range", bool(np.all(np.abs(d) <= lim)), ref=True)
        # tol: 1e-5 1e-6
    """,
    "name_scopes": """
        with tf.name_scope("a"):
            x = tf.constant(1, name="x")
            with tf.name_scope("b") as sc:
                y = tf.add(x, 1)
            rec("sc", sc)
            with tf.name_scope("b"):
                z = tf.add(x, 2)
            with tf.name_scope(sc):
                w = tf.add(x, 3)
            with tf.name_scope(None):
                top = tf.constant(2, name="top")
        with tf.name_scope("a"):
            q = tf.constant(3, name="x")
        rec("names", [x.name, y.name, z.name, w.name, top.name, q.name])
        rec("add_c", y.op.inputs[1].name)
        with tf.name_scope("scope_1"):
            pass
        with tf.name_scope("scope"):
            pass
        with tf.name_scope("scope"):
            r = tf.constant(0, name="r")
        rec("tricky", r.name)
        rec("case", (tf.constant(0, name="Foo").name, tf.constant(0, name="foo").name))
        with tf.name_scope("v", values=[x]) as s2:
            rec("values", s2)
        rec("bad", err(lambda: tf.constant(0, name="bad name!")))
        g = tf.get_default_graph()
        rec("unique", (g.unique_name("foo"), g.unique_name("foo"), g.unique_name("foo", mark_as_used=False)))
        rec("get_name_scope", g.get_name_scope())
    """,
    "graph_lookup_errors": """
        x = tf.constant(1.0, name="x")
        g = tf.get_default_graph()
        rec("t", g.get_tensor_by_name("x:0").name)
        rec("no_port", errmsg(lambda: g.get_tensor_by_name("x")))
        rec("missing", err(lambda: g.get_tensor_by_name("y:0")))
        rec("bad_port", err(lambda: g.get_tensor_by_name("x:1")))
        rec("op", g.get_operation_by_name("x").type)
        rec("op_missing", err(lambda: g.get_operation_by_name("nope")))
        rec("abg", g.as_graph_element("x:0").name); rec("abg_op", g.as_graph_element("x").name)
        with tf.Session() as s:
            rec("fetch_name", s.run("x:0")); rec("fetch_op_name", s.run("x"))
            rec("fetch_missing", err(lambda: s.run("nothere:0")))
            rec("fetch_none", err(lambda: s.run(None)))
            rec("fetch_int", err(lambda: s.run(3)))
        other = tf.Graph()
        with other.as_default():
            o = tf.constant(2.0)
        rec("cross_graph", err(lambda: x + o))
        with tf.Session() as s:
            rec("other_graph_fetch", err(lambda: s.run(o)))
    """,
    "session_fetch_structures": """
        a = tf.constant(1); b = tf.constant([2., 3.]); c = tf.constant("s")
        P = collections.namedtuple("P", ["x", "y"])
        with tf.Session() as s:
            rec("list", s.run([a, b])); rec("tuple", s.run((a, [b, c])))
            rec("dict", s.run({"k": a, "n": {"m": b}})); rec("nt", s.run(P(a, [b])))
            rec("op", s.run(tf.no_op())); rec("mixed", s.run([a, tf.no_op(), {"z": c}]))
            rec("empty", s.run([])); rec("empty_d", s.run({}))
            rec("same_twice", s.run([a, a])); rec("scalar_type", type(s.run(a)).__name__)
            rec("str_type", type(s.run(c)).__name__)
            rec("od", s.run(collections.OrderedDict([("b", b), ("a", a)])))
            v = tf.Variable(5)
            s.run(v.initializer)
            rec("var_fetch", s.run(v)); rec("var_in_list", s.run([v, a]))
            sp = tf.SparseTensor([[0, 1]], [7], [2, 2])
            rec("sparse", s.run(sp))
    """,
    "feed_dict_edge_cases": """
        p = tf.placeholder(tf.float32, [None, 2], name="p")
        q = tf.placeholder_with_default(tf.constant([1, 2]), [2])
        y = p * 2
        with tf.Session() as s:
            rec("ok", s.run(y, {p: [[1, 2]]}))
            rec("by_name", s.run(y, {"p:0": [[1, 2]]}))
            rec("wrong_shape", err(lambda: s.run(y, {p: [1, 2]})))
            rec("missing", err(lambda: s.run(y)))
            rec("int_to_float", s.run(y, {p: np.array([[1, 2]], np.int64)}))
            rec("str_into_float", err(lambda: s.run(y, {p: [["a", "b"]]})))
            rec("pwd", s.run(q)); rec("pwd_fed", s.run(q, {q: [5, 6]}))
            rec("feed_const", s.run(y * 0 + tf.constant(3.), {p: [[0, 0]]}))
            c = tf.constant(4.)
            rec("feed_non_placeholder", s.run(c * 2, {c: 10.}))
            rec("feed_var", err(lambda: s.run(y, {tf.Variable(1.0): 2.0})))
            rec("feed_bad_key", err(lambda: s.run(y, {"nothere:0": 1})))
            rec("feed_list_of_arrays", s.run(y, {p: [np.array([1., 2.])]}))
            rec("float64_feed", s.run(y, {p: np.array([[1.5, 2.5]], np.float64)}))
            r = tf.placeholder(tf.int32, [])
            rec("float_into_int", err(lambda: s.run(r + 1, {r: 1.5})))
            rec("bool_ph", s.run(tf.logical_not(tf.placeholder(tf.bool)), {"Placeholder_1:0": True} if False else {tf.get_default_graph().get_tensor_by_name("p:0"): [[0, 0]]}) if False else 0)
            rec("fetch_fed", s.run(p, {p: [[7, 8]]}))
            rec("shape_err_class", err(lambda: s.run(y, {p: np.zeros((2, 3))})))
    """,
    "session_errors_runtime": """
        x = tf.placeholder(tf.float32)
        with tf.Session() as s:
            rec("check", err(lambda: s.run(tf.check_numerics(x, "bad"), {x: np.nan})))
            rec("assert", err(lambda: s.run(tf.Assert(x > 0, [x]), {x: -1.})))
            rec("assert_eq", err(lambda: s.run(tf.assert_equal(x, 1.), {x: 2.})))
            rec("assert_pos", err(lambda: s.run(tf.assert_positive(x), {x: -2.})))
            rec("assert_static", err(lambda: tf.assert_equal(tf.constant(1), tf.constant(2))))
            rec("reshape", err(lambda: s.run(tf.reshape(x, [3]), {x: [1., 2.]})))
            rec("matmul", err(lambda: s.run(tf.matmul(x, x), {x: np.ones((2, 3))})))
            rec("closed", None)
        s2 = tf.Session(); s2.close()
        rec("closed_run", err(lambda: s2.run(tf.constant(1))))
        rec("errors_base", issubclass(tf.errors.InvalidArgumentError, tf.errors.OpError))
        rec("codes", [tf.errors.INVALID_ARGUMENT, tf.errors.NOT_FOUND, tf.errors.FAILED_PRECONDITION, tf.errors.OUT_OF_RANGE])
        try:
            with tf.Session() as s:
                s.run(tf.reshape(x, [3]), {x: [1., 2.]})
        except tf.errors.OpError as e:
            rec("err_code", e.error_code); rec("err_op", e.op.type if e.op is not None else None)
    """,
    "collections_and_graph": """
        v = tf.Variable(1.0, name="v"); w = tf.Variable(2.0, trainable=False, name="w")
        l = tf.Variable(3.0, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="l")
        rec("global", [x.name for x in tf.global_variables()]); rec("local", [x.name for x in tf.local_variables()])
        rec("train", [x.name for x in tf.trainable_variables()]); rec("model", [x.name for x in tf.model_variables()])
        tf.add_to_collection("mine", v); tf.add_to_collection("mine", 3)
        rec("mine", len(tf.get_collection("mine"))); rec("ref", len(tf.get_collection_ref("mine")))
        gs = tf.train.get_or_create_global_step()
        rec("gs", (gs.name, gs.dtype, tf.train.get_global_step().name))
        rec("gs_coll", [x.name for x in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)])
        rec("keys", sorted(tf.get_default_graph().get_all_collection_keys()))
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            rec("vals", s.run([v, w, l, gs]))
        rec("finalize", err(lambda: (tf.get_default_graph().finalize(), tf.constant(1))))
    """,
    "control_deps_identity": """
        v = tf.Variable(0)
        inc = tf.assign_add(v, 1)
        with tf.control_dependencies([inc]):
            r = tf.identity(v)
            c = tf.constant(5)
        with tf.control_dependencies([inc]):
            r2 = v.read_value()
        g = tf.group(inc, tf.no_op(), name="grp")
        t = tf.tuple([tf.constant(1), tf.constant(2)])
        with tf.Session() as s:
            s.run(v.initializer)
            rec("r", s.run(r)); rec("r_again", s.run(r)); rec("c", s.run(c)); rec("v", s.run(v))
            rec("r2", s.run(r2))
            rec("grp", (g.type, g.name, s.run(g))); rec("tuple", s.run(t))
            rec("c_ctrl", [o.name for o in c.op.control_inputs])
    """,
}

CORE.update({
    "graph_def_and_functions": """
        x = tf.placeholder(tf.float32, [None, 2], name="x"); y = tf.identity(x * 2., name="y")
        gd = tf.get_default_graph().as_graph_def()
        rec("nodes", [(n.name, n.op, list(n.input)) for n in gd.node])
        rec("attr_keys", sorted(gd.node[0].attr.keys()))
        rec("shape_attr", [d.size for d in gd.node[0].attr["shape"].shape.dim])
        rec("version", gd.versions.producer > 0)
        frozen = tf.graph_util.extract_sub_graph(gd, ["y"])
        rec("sub", [n.name for n in frozen.node])
        v = tf.Variable(3.0, name="v"); z = tf.multiply(v, 2.0, name="z")
        with tf.Session() as s:
            s.run(v.initializer)
            c = tf.graph_util.convert_variables_to_constants(s, tf.get_default_graph().as_graph_def(), ["z"])
        rec("const_nodes", sorted((n.name, n.op) for n in c.node))
        g2 = tf.Graph()
        with g2.as_default():
            out, = tf.import_graph_def(c, return_elements=["z:0"], name="")
            with tf.Session() as s:
                rec("imported_val", s.run(out))
        rec("tensor_dtype_attr", gd.node[0].attr["dtype"].type)
    """,
    "defun_and_device_strings": """
        @tf.function if False else (lambda f: f)
        def f(a):
            return a * 2
        rec("plain", f(3))
        with tf.device("/job:worker/task:1/device:CPU:0"):
            c = tf.constant(1.0)
        rec("dev", c.device); rec("op_dev", c.op.device)
        with tf.device("/gpu:0"):
            d = tf.constant(2.0)
        rec("gpu_dev", d.device)
        with tf.colocate_with(c):
            e = tf.identity(c)
        rec("coloc", [e.device, list(e.op.colocation_groups())])
    """,
})
