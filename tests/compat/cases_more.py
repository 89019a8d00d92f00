"""Cases: many small single-behaviour checks across the API (shape functions, dtypes, utils)."""

MORE = {
    "shape_fn_elementwise_partial": """
        a = tf.placeholder(tf.float32, [None, 3]); b = tf.placeholder(tf.float32, [4, 1]); c = tf.placeholder(tf.float32)
        rec("ab", (a + b).get_shape()); rec("ac", (a * c).get_shape()); rec("scalar", (a + 1.).get_shape())
        d = tf.placeholder(tf.float32, [None, 1, 5])
        rec("ad", (a[:, :, None] + d).get_shape() if False else (tf.expand_dims(a, 2) + d).get_shape())
        rec("err", err(lambda: tf.placeholder(tf.float32, [2, 3]) + tf.placeholder(tf.float32, [4, 3])))
    """,
    "shape_fn_misc_ops": """
        p = tf.placeholder(tf.float32, [None, 6])
        rec("split", [t.get_shape() for t in tf.split(p, 3, 1)])
        rec("split0", [t.get_shape() for t in tf.split(p, 2, 0)])
        rec("tile_unknown", tf.tile(p, tf.placeholder(tf.int32, [2])).get_shape())
        rec("onehot", tf.one_hot(tf.placeholder(tf.int32, [None, 4]), 7).get_shape())
        rec("gather_axis1", tf.gather(p, [0, 1], axis=1).get_shape())
        rec("shape_op", tf.shape(p).get_shape()); rec("size_shape", tf.size(p).get_shape())
        rec("argmax", tf.argmax(p, 1).get_shape()); rec("cumsum", tf.cumsum(p).get_shape())
        rec("topk", tf.nn.top_k(p, 2).values.get_shape()); rec("where1", tf.where(p > 0).get_shape())
        rec("stack_unknown", tf.stack([p, p], axis=1).get_shape())
        rec("squeeze_unknown", tf.squeeze(tf.placeholder(tf.float32, [None, 2])).get_shape())
        rec("pad_unknown", tf.pad(p, tf.placeholder(tf.int32, [2, 2])).get_shape())
        rec("range_unknown", tf.range(tf.placeholder(tf.int32, [])).get_shape())
        rec("fill_partial", tf.fill(tf.stack([tf.placeholder(tf.int32, []), 3]), 1.).get_shape())
        rec("reshape_partial", tf.reshape(p, tf.stack([tf.placeholder(tf.int32, []), 2, 3])).get_shape())
        rec("zeros_partial", tf.zeros(tf.stack([4, tf.shape(p)[0]])).get_shape())
        rec("bcast_to", tf.broadcast_to(1., tf.shape(p)).get_shape())
        rec("matmul_unknown", tf.matmul(p, tf.placeholder(tf.float32)).get_shape())
        rec("conv_unknown", tf.nn.conv2d(tf.placeholder(tf.float32), tf.zeros([3, 3, 1, 2]), [1, 1, 1, 1], "SAME").get_shape())
        rec("transpose_unknown", tf.transpose(tf.placeholder(tf.float32)).get_shape())
        rec("expand_unknown", tf.expand_dims(tf.placeholder(tf.float32), 0).get_shape())
        rec("slice_neg", p[:, -2:].get_shape()); rec("slice_step", p[:, ::4].get_shape())
    """,
    "tensor_shape_api": """
        s = tf.TensorShape([None, 3])
        rec("str", str(s)); rec("repr", repr(s)); rec("ndims", s.ndims); rec("list", s.as_list())
        rec("merge", s.merge_with([2, None])); rec("compat", s.is_compatible_with([5, 3]))
        rec("concat", s.concatenate([4])); rec("fully", s.is_fully_defined()); rec("num", tf.TensorShape([2, 3]).num_elements())
        rec("unknown", str(tf.TensorShape(None))); rec("dims_val", [d.value if hasattr(d, "value") else d for d in s.dims])
        rec("merge_err", err(lambda: s.merge_with([2, 4])))
        rec("rank_err", err(lambda: s.assert_has_rank(3)))
        rec("getitem", s[1]); rec("slice", s[1:]); rec("eq", tf.TensorShape([1, 2]) == tf.TensorShape([1, 2]))
        rec("dim", str(tf.Dimension(3) + tf.Dimension(None))); rec("dim_eq", tf.Dimension(3) == 3)
        rec("as_shape", tf.TensorShape([tf.Dimension(2), 3]).as_list())
        t = tf.placeholder(tf.float32, [None, 3])
        rec("t_shape", t.shape); rec("t_shape_list", t.shape.as_list()); rec("set_shape", (t.set_shape([4, 3]), t.get_shape())[1])
        rec("set_shape_err", err(lambda: t.set_shape([5, 3])))
        rec("len", len(s)); rec("iter", [str(x) for x in s])
    """,
    "dtypes_api": """
        rec("names", [tf.float32.name, tf.int64.name, tf.string.name, tf.bool.name, tf.bfloat16.name, tf.complex64.name])
        rec("props", [tf.float32.is_floating, tf.int32.is_integer, tf.uint8.is_unsigned, tf.complex64.is_complex, tf.bool.is_bool if hasattr(tf.bool, "is_bool") else True])
        rec("minmax", [tf.int8.min, tf.int8.max, tf.uint16.max, tf.float16.max])
        rec("as_dtype", [tf.as_dtype("float32").name, tf.as_dtype(np.int64).name, tf.as_dtype(np.dtype("bool")).name])
        rec("ref", tf.float32._as_ref.name if hasattr(tf.float32, "_as_ref") else "float32_ref")
        rec("base", tf.as_dtype("float32_ref").base_dtype.name if True else None)
        rec("np", [tf.float32.as_numpy_dtype.__name__, tf.string.as_numpy_dtype.__name__])
        rec("size", [tf.float64.size, tf.int16.size]); rec("real", tf.complex128.real_dtype.name)
        rec("bad", err(lambda: tf.as_dtype("float31")))
        rec("compat", tf.float32.is_compatible_with(tf.float32)); rec("eq", tf.float32 == np.float32)
        rec("limits", [tf.float32.limits[0] < 0, tf.int32.limits])
    """,
    "py_func_and_print": """
        def f(x, y):
            return (x * y).astype(np.float32), np.int32(len(x))
        a = tf.constant([1., 2., 3.])
        r = tf.py_func(f, [a, a], [tf.float32, tf.int32])
        p = tf.Print(a, [a, "x"], message="msg: ")
        rec("types", [t.dtype for t in r]); rec("shape", r[0].get_shape())
        with tf.Session() as s:
            rec("v", s.run(r)); rec("print", s.run(p))
            rec("err", err(lambda: s.run(tf.py_func(lambda x: x / 0 if False else np.array(["a"]), [a], tf.float32))))
            rec("stateless", s.run(tf.py_func(lambda x: x + 1, [a], tf.float32, stateful=False)))
            rec("raise", err(lambda: s.run(tf.py_func(lambda x: (_ for _ in ()).throw(ValueError("boom")), [a], tf.float32))))
    """,
    "identity_n_unravel_hist": """
        with tf.Session() as s:
            rec("idn", s.run(tf.identity_n([tf.constant(1), tf.constant([2., 3.])])))
            rec("unravel", s.run(tf.unravel_index([5, 7], [3, 4])), ref=np.array(np.unravel_index([5, 7], [3, 4])))
            rec("hist", s.run(tf.histogram_fixed_width([-1., 0., 1.5, 2., 5.], [0., 2.], nbins=4)))
            rec("bins", s.run(tf.histogram_fixed_width_bins([-1., 0., 1.5, 2., 5.], [0., 2.], nbins=4)))
            rec("cm", s.run(tf.confusion_matrix([0, 1, 2, 1], [0, 2, 2, 1])))
            rec("cm_w", s.run(tf.confusion_matrix([0, 1], [1, 1], num_classes=3, weights=[2, 3])))
            rec("invperm", s.run(tf.invert_permutation([2, 0, 1])), ref=[1, 2, 0])
            rec("lin_index", s.run(tf.math.bincount([3, 3, 1], minlength=2, maxlength=3)))
            rec("searchsorted", s.run(tf.searchsorted([[1, 3, 5]], [[0, 3, 6]])))
            rec("searchsorted_r", s.run(tf.searchsorted([[1, 3, 5]], [[0, 3, 6]], side="right")))
            rec("rollx", s.run(tf.roll([1, 2, 3, 4], 1, 0)), ref=np.roll([1, 2, 3, 4], 1))
            rec("roll2", s.run(tf.roll(np.arange(6).reshape(2, 3), [1, -1], [0, 1])), ref=np.roll(np.arange(6).reshape(2, 3), [1, -1], [0, 1]))
            rec("ext", s.run(tf.extract_image_patches(np.arange(16.).reshape(1, 4, 4, 1), [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")).shape)
    """,
    "moving_averages": """
        v = tf.Variable(10.0); w = tf.Variable([1., 2.])
        ema = tf.train.ExponentialMovingAverage(0.9)
        op = ema.apply([v, w])
        avg = ema.average(v)
        rec("names", [avg.name, ema.average_name(w)])
        step = tf.Variable(0, trainable=False)
        ema2 = tf.train.ExponentialMovingAverage(0.99, num_updates=step, zero_debias=False)
        op2 = ema2.apply([v])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for val in [12., 8., 20.]:
                s.run(v.assign(val)); s.run([op, op2])
            rec("avg", s.run(avg)); rec("avg_w", s.run(ema.average(w))); rec("avg2", s.run(ema2.average(v)))
        rec("vars_to_restore", sorted(ema.variables_to_restore().keys()))
        # tol: 1e-5 1e-5
    """,
    "assign_moving_avg_and_zero_debias": """
        from_ = tf.Variable(0.0); val = tf.placeholder(tf.float32, [])
        op = tf.train.ExponentialMovingAverage(0.5, zero_debias=True).apply([from_]) if False else None
        v = tf.Variable(0.0, name="biased")
        upd = tf.assign(v, v * 0.8 + val * 0.2)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            outs = [s.run(upd, {val: x}) for x in [1., 2., 3.]]
            rec("v", outs, ref=[0.2, 0.56, 1.048])
    """,
    "global_step_utils": """
        gs = tf.train.create_global_step()
        rec("err_dup", err(lambda: tf.train.create_global_step()))
        inc = tf.assign_add(gs, 1)
        rec("name", gs.name); rec("dtype", gs.dtype); rec("trainable", gs in tf.trainable_variables())
        rec("get", tf.train.get_global_step().name)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(inc); s.run(inc)
            rec("value", tf.train.global_step(s, gs))
    """,
    "learning_rate_types": """
        gs = tf.Variable(3, trainable=False, dtype=tf.int64)
        lr = tf.train.exponential_decay(0.1, gs, 2, 0.5, staircase=True)
        lr32 = tf.train.exponential_decay(tf.constant(0.1, tf.float64), gs, 2, 0.5)
        pc = tf.train.piecewise_constant(tf.cast(gs, tf.int32), [2, 5], [0.1, 0.01, 0.001])
        rec("dt", [lr.dtype, lr32.dtype, pc.dtype])
        rec("err_none", err(lambda: tf.train.exponential_decay(0.1, None, 2, 0.5)))
        rec("pc_err", err(lambda: tf.train.piecewise_constant(gs, [2, 5], [0.1, 0.01])))
        with tf.Session() as s:
            s.run(gs.initializer)
            rec("v", s.run([lr, lr32, pc]), ref=[0.05, 0.1 * 0.5 ** 1.5, 0.01])
    """,
    "optimizer_misc": """
        v = tf.Variable([1., 2.]); w = tf.Variable([3.], trainable=False)
        loss = tf.reduce_sum(v * v) + tf.reduce_sum(w)
        opt = tf.train.AdamOptimizer(0.1)
        tr = opt.minimize(loss)
        rec("slot_names", opt.get_slot_names()); rec("slot", opt.get_slot(v, "m").name)
        rec("slot_none", opt.get_slot(w, "m") is None)
        rec("variables", sorted(x.name for x in opt.variables()))
        rec("beta_names", sorted(x.name for x in tf.global_variables() if "power" in x.name))
        rec("no_vars", err(lambda: tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(tf.constant([1.])), var_list=[])))
        rec("bad_lr", err(lambda: tf.train.GradientDescentOptimizer(None).minimize(loss)))
        rec("name", tf.train.MomentumOptimizer(0.1, 0.9).get_name())
        g = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=[v, w])
        rec("g_none", [x is None for x, _ in g])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(tr); rec("after", s.run(v))
    """,
    "int_variable_ops": """
        v = tf.Variable(5)
        with tf.Session() as s:
            s.run(v.initializer)
            rec("add", s.run(tf.assign_add(v, 3))); rec("sub", s.run(v.assign_sub(10)))
            rec("count_up", s.run(tf.count_up_to(tf.Variable(0, name="c") if False else v, 100)) if False else 0)
            rec("dtype", v.dtype); rec("read", s.run(v.read_value()))
            c = tf.Variable(0, name="cnt"); s.run(c.initializer)
            cu = tf.count_up_to(c, 2)
            rec("cu", [s.run(cu), s.run(cu)]); rec("cu_err", err(lambda: s.run(cu)))
    """,
    "resource_variables": """
        v = tf.get_variable("rv", [2], initializer=tf.constant_initializer([1., 2.]), use_resource=True)
        rec("type", v.op.type if hasattr(v, "op") else None); rec("name", v.name)
        rec("handle_dtype", v.handle.dtype.name)
        opt = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(v * v))
        r = tf.Variable([3.], use_resource=True, name="r2")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(opt); rec("v", s.run(v), ref=[0., 0.])
            rec("assign", s.run(r.assign_add([1.]))); rec("sparse_read", s.run(v.sparse_read([1])))
            rec("uninit", err(lambda: s.run(tf.Variable(1., use_resource=True).read_value())))
    """,
    "string_tensor_fetch": """
        a = tf.constant(["x", "yz"]); b = tf.constant(b"\\xff\\x00")
        p = tf.placeholder(tf.string, [None])
        with tf.Session() as s:
            rec("a", s.run(a)); rec("a_type", type(s.run(a)[0]).__name__); rec("b", s.run(b))
            rec("fed_str", s.run(p, {p: ["a", "bc"]})); rec("fed_bytes", s.run(p, {p: [b"q"]}))
            rec("fed_np", s.run(p, {p: np.array(["u1", "u2"])}))
            rec("eq", s.run(tf.equal(a, "x")))
            rec("add", s.run(a + "!")) if hasattr(a, "__add__") else None
    """,
    "boolean_ops_edge": """
        with tf.Session() as s:
            rec("bool_sum_err", err(lambda: tf.constant([True]) + tf.constant([False])))
            rec("and_int_err", err(lambda: tf.logical_and(tf.constant(1), tf.constant(0))))
            rec("neg_bool_err", err(lambda: -tf.constant(True)))
            rec("where_bcast", s.run(tf.where_v2(tf.constant([[True], [False]]), tf.constant([1, 2]), tf.constant(0))))
            rec("cast_str_err", err(lambda: tf.cast(tf.constant("1"), tf.int32)))
            rec("bool_to_int", s.run(tf.cast(tf.constant([True, False]), tf.int32)))
            rec("equal_bcast", s.run(tf.equal(tf.constant([[1], [2]]), tf.constant([1, 2]))))
            rec("equal_dtype_err", err(lambda: tf.equal(tf.constant(1), tf.constant(1.))))
    """,
    "nan_inf_handling": """
        x = tf.constant([np.nan, np.inf, -np.inf, 0., -0., 1.])
        with tf.Session() as s:
            rec("relu", s.run(tf.nn.relu(x))); rec("sig", s.run(tf.sigmoid(x))); rec("tanh", s.run(tf.tanh(x)))
            rec("sign", s.run(tf.sign(x))); rec("abs", s.run(tf.abs(x))); rec("round", s.run(tf.round(x)))
            rec("sm", s.run(tf.nn.softmax([1., np.inf]))); rec("lse", s.run(tf.reduce_logsumexp([np.inf, 1.])))
            rec("clip", s.run(tf.clip_by_value(x, -1., 1.))); rec("max", s.run(tf.reduce_max(x)))
            rec("cast_nan_int", s.run(tf.cast(tf.constant([1.5]), tf.int32)))
            rec("log0", s.run(tf.log(tf.constant([0., -1.])))); rec("sqrt_neg", s.run(tf.sqrt(-1.)))
            rec("xlogy0", s.run(tf.math.xlogy(0., 0.))); rec("div00", s.run(tf.constant(0.) / 0.))
            rec("floordiv_inf", s.run(tf.floordiv(tf.constant([1., -1.]), tf.constant([np.inf, np.inf]))))
            rec("mod_neg0", s.run(tf.floormod(tf.constant([-0., 3.]), tf.constant([2., -2.]))))
    """,
    "integer_edge_math": """
        with tf.Session() as s:
            a = tf.constant([-7, 7, -2147483648], tf.int32)
            rec("neg_min", s.run(-a)); rec("abs_min", s.run(tf.abs(a)))
            rec("floordiv_min", s.run(tf.floordiv(tf.constant([-2147483648]), tf.constant([-1]))) if False else 0)
            rec("i64_div", s.run(tf.constant([-7], tf.int64) // tf.constant([2], tf.int64)))
            rec("u8_sub", s.run(tf.constant([1], tf.uint8) - tf.constant([2], tf.uint8)))
            rec("i16_mul", s.run(tf.constant([300], tf.int16) * tf.constant([300], tf.int16)))
            rec("int_pow", s.run(tf.pow(tf.constant([3], tf.int64), tf.constant([40], tf.int64))))
            rec("mean_int_trunc", s.run(tf.reduce_mean(tf.constant([-1, -2])))); rec("mean_i8", s.run(tf.reduce_mean(tf.constant([3, 4], tf.int8))))
            rec("sum_i8_overflow", s.run(tf.reduce_sum(tf.constant([100, 100], tf.int8))))
            rec("sum_bool_cast", s.run(tf.reduce_sum(tf.cast([True, True], tf.int32))))
            rec("cast_big", s.run(tf.cast(tf.constant([3e9], tf.float32), tf.int64)))
            rec("cast_i64_i32", s.run(tf.cast(tf.constant([2 ** 33 + 5], tf.int64), tf.int32)))
            rec("cast_neg_u8", s.run(tf.cast(tf.constant([-1], tf.int32), tf.uint8)))
            rec("cast_f_u8_neg", s.run(tf.cast(tf.constant([-1.5]), tf.int32)))
    """,
    "train_utils_misc": """
        rec("replica", tf.train.replica_device_setter(ps_tasks=2)(tf.Variable(1.).op) if False else 0)
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="pv")
        rec("device", v.device)
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            a = tf.Variable(1.0, name="a"); b = tf.Variable(2.0, name="b"); c = a + b
        rec("rds", [a.device, b.device, c.device])
        with tf.device("/cpu:0"):
            d = tf.constant(1.0)
        rec("cpu", d.device)
        with tf.device("/device:GPU:1"):
            with tf.device(None):
                e = tf.constant(2.0)
        rec("none", e.device)
        rec("spec", tf.DeviceSpec.from_string("/job:w/replica:0/task:1/device:CPU:0").to_string())
    """,
    "metrics_basic": """
        labels = tf.constant([1, 0, 1, 1]); preds = tf.constant([1, 1, 1, 0])
        acc, acc_up = tf.metrics.accuracy(labels, preds)
        mean, mean_up = tf.metrics.mean(tf.constant([1., 2., 3.]))
        auc, auc_up = tf.metrics.auc(tf.constant([0, 0, 1, 1]), tf.constant([0.1, 0.4, 0.35, 0.8]))
        prec, prec_up = tf.metrics.precision(labels, preds); rec_, rec_up = tf.metrics.recall(labels, preds)
        rmse, rmse_up = tf.metrics.root_mean_squared_error([1., 2.], [2., 4.])
        rec("locals", sorted(v.name for v in tf.local_variables()))
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            s.run([acc_up, mean_up, auc_up, prec_up, rec_up, rmse_up])
            rec("vals", s.run([acc, mean, prec, rec_, rmse]), ref=[0.5, 2.0, 2 / 3, 2 / 3, np.sqrt(2.5)])
            rec("auc", s.run(auc))
        # tol: 1e-4 1e-4
    """,
}

MORE.update({
    "reprs": """
        a = tf.constant([1., 2.], name="a"); p = tf.placeholder(tf.int32, [None, 3], name="p")
        v = tf.Variable([[1.]], name="v"); sp = tf.SparseTensor([[0, 0]], [1.], [2, 2])
        rec("tensor", [str(a), repr(a), str(p), str(a + 1)])
        rec("variable", [str(v), repr(v)[:40]])
        rec("op", [str(a.op)[:60], repr(a.op)[:60] if False else a.op.name])
        rec("shape", [str(p.get_shape()), repr(p.get_shape()), str(tf.TensorShape(None)), repr(tf.TensorShape([]))])
        rec("dim", [str(tf.Dimension(None)), repr(tf.Dimension(3))])
        rec("dtype", [str(tf.float32), repr(tf.float32), str(tf.int64)])
        rec("sparse_str", str(sp)[:60])
        rec("gs", str(tf.train.get_or_create_global_step()))
    """,
    "tensor_properties": """
        a = tf.constant([[1, 2]], name="a"); b = tf.identity(a, name="b")
        rec("props", [a.name, a.op.name, a.value_index, a.dtype, a.device, b.op.type, len(b.op.inputs), b.op.inputs[0].name])
        rec("consumers", [c.name for c in a.consumers()])
        rec("graph", a.graph is tf.get_default_graph())
        rec("hash_ok", len({a, b}))
        try:
            bool(a)
            rec("bool_err", None)
        except TypeError:  # TF 2 raises its subclass OperatorNotAllowedInGraphError
            rec("bool_err", "TypeError")
        rec("len_err", err(lambda: len(a)))
        rec("node_def", [b.op.node_def.name, b.op.node_def.op, list(b.op.node_def.input)])
        rec("attr", b.op.get_attr("T")); rec("attr_err", err(lambda: b.op.get_attr("nope")))
        rec("outputs", [t.name for t in tf.split(tf.zeros([4]), 2)[0].op.outputs])
        rec("op_def_name", b.op.op_def.name)
    """,
})

MORE.update({
    "fft_signal": """
        x = tf.constant(np.linspace(-1, 1, 8), tf.float32)
        c = tf.complex(x, x * 0.5)
        with tf.Session() as s:
            rec("fft", s.run(tf.fft(c))); rec("ifft", s.run(tf.ifft(c)))
            rec("rfft", s.run(tf.spectral.rfft(x))); rec("irfft", s.run(tf.spectral.irfft(tf.spectral.rfft(x))))
            rec("fft2", s.run(tf.fft2d(tf.reshape(c, [2, 4]))))
            rec("frame", s.run(tf.signal.frame(x, 3, 2))); rec("hann", s.run(tf.signal.hann_window(5)))
            rec("stft_shape", tf.signal.stft(tf.zeros([100]), 16, 8).get_shape())
        # tol: 1e-5 1e-5
    """,
    "sets_ops": """
        a = tf.constant([[1, 2, 3], [4, 5, 6]]); b = tf.constant([[1, 3, 9], [7, 5, 6]])
        with tf.Session() as s:
            rec("inter", s.run(tf.sets.set_intersection(a, b)))
            rec("union", s.run(tf.sets.set_union(a, b)))
            rec("diff", s.run(tf.sets.set_difference(a, b)))
            rec("size", s.run(tf.sets.set_size(tf.sets.set_intersection(a, b))))
    """,
    "conv_backprops": """
        x = tf.constant(np.linspace(-1, 1, 1 * 5 * 5 * 2).reshape(1, 5, 5, 2), tf.float32)
        w = tf.constant(np.linspace(-1, 1, 3 * 3 * 2 * 4).reshape(3, 3, 2, 4), tf.float32)
        dy = tf.ones([1, 3, 3, 4])
        with tf.Session() as s:
            rec("bi", s.run(tf.nn.conv2d_backprop_input([1, 5, 5, 2], w, dy, [1, 2, 2, 1], "SAME")))
            rec("bf", s.run(tf.nn.conv2d_backprop_filter(x, [3, 3, 2, 4], dy, [1, 2, 2, 1], "SAME")))
            rec("dw_bi", s.run(tf.nn.depthwise_conv2d_native_backprop_input([1, 5, 5, 2], tf.ones([3, 3, 2, 1]), tf.ones([1, 5, 5, 2]), [1, 1, 1, 1], "SAME")))
            rec("dilation2d", s.run(tf.nn.dilation2d(x, tf.zeros([2, 2, 2]), [1, 1, 1, 1], [1, 1, 1, 1], "VALID")))
        # tol: 1e-5 1e-5
    """,
    "clip_and_norm_edge": """
        with tf.Session() as s:
            rec("cn_zero", s.run(tf.clip_by_norm(tf.zeros([3]), 1.0)))
            rec("gn_none", s.run(tf.clip_by_global_norm([tf.constant([3., 4.]), None], 1.0)[0][0]))
            rec("gn_none2", tf.clip_by_global_norm([tf.constant([3., 4.]), None], 1.0)[0][1] is None)
            rec("gn_inf", s.run(tf.clip_by_global_norm([tf.constant([np.inf, 1.])], 1.0)[0][0]), ref=[np.nan, np.nan])
            rec("cv_bcast", s.run(tf.clip_by_value(tf.constant([[1., 5.]]), [0., 2.], [3., 4.])))
            rec("cv_int", s.run(tf.clip_by_value(tf.constant([1, 5, 9]), 2, 6)))
            rec("cv_err", err(lambda: tf.clip_by_value(tf.constant([1, 5]), 0.5, 6.)))
            rec("norm_axis_neg", s.run(tf.norm(tf.constant([[3., 4.], [6., 8.]]), axis=-1)))
            rec("norm_keep", tf.norm(tf.constant([[3., 4.]]), axis=1, keepdims=True).get_shape())
    """,
    "saver_max_to_keep": """
        import tempfile, os
        d = tempfile.mkdtemp()
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as s:
            s.run(v.initializer)
            paths = [saver.save(s, os.path.join(d, "m"), global_step=i) for i in range(4)]
        rec("last", [os.path.basename(p) for p in saver.last_checkpoints])
        rec("files", sorted(f for f in os.listdir(d) if f.startswith("m-") and f.endswith(".index")))
        st = tf.train.get_checkpoint_state(d)
        rec("all", [os.path.basename(p) for p in st.all_model_checkpoint_paths])
        rec("exists", [tf.train.checkpoint_exists(paths[0]), tf.train.checkpoint_exists(paths[3])])
        rec("saver_def", saver.saver_def.filename_tensor_name if hasattr(saver, "saver_def") else None)
        rec("var_list_err", err(lambda: tf.train.Saver([])))
        s3 = tf.train.Saver(var_list=[v], save_relative_paths=True)
        rec("save_no_vars", err(lambda: tf.train.Saver(var_list={})))
    """,
    "import_export_meta": """
        import tempfile, os
        d = tempfile.mkdtemp()
        x = tf.placeholder(tf.float32, [None], name="x"); v = tf.Variable(2.0, name="v"); y = tf.multiply(x, v, name="y")
        tf.add_to_collection("outs", y)
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(v.initializer); p = saver.save(s, os.path.join(d, "m"))
        tf.reset_default_graph()
        s2 = tf.train.import_meta_graph(p + ".meta")
        with tf.Session() as s:
            s2.restore(s, p)
            g = tf.get_default_graph()
            rec("run", s.run("y:0", {"x:0": [1., 2.]})); rec("coll", [t.name for t in tf.get_collection("outs")])
            rec("vars", [u.name for u in tf.global_variables()])
        gd = tf.get_default_graph().as_graph_def()
        rec("nodes", sorted(n.name for n in gd.node if not n.name.startswith("save"))[:6])
        tf.reset_default_graph()
        out = tf.import_graph_def(gd, name="imp", return_elements=["y:0"])
        rec("imported", [t.name for t in out])
        c = tf.graph_util.convert_variables_to_constants if False else None
    """,
    "variable_scope_details": """
        with tf.variable_scope("outer", initializer=tf.constant_initializer(3.)):
            a = tf.get_variable("a", [1])
            with tf.variable_scope("inner", reuse=None):
                b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
            rec("scope_name", tf.get_variable_scope().name)
        with tf.variable_scope("reg", regularizer=lambda w: tf.reduce_sum(w) * 0.1):
            r = tf.get_variable("r", [2], initializer=tf.ones_initializer())
        rec("reg_losses", len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)))
        with tf.variable_scope("dt", dtype=tf.float64):
            d = tf.get_variable("d", [1])
        rec("dt", d.dtype)
        def getter(getter, name, *args, **kwargs):
            kwargs["trainable"] = False
            return getter(name + "_c", *args, **kwargs)
        with tf.variable_scope("cg", custom_getter=getter):
            c = tf.get_variable("c", [1])
        rec("custom", (c.name, c in tf.trainable_variables()))
        with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(2)):
            pv = tf.get_variable("pv", [4, 2])
        rec("partitioned", [x.name for x in tf.global_variables() if "pv" in x.name])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            rec("vals", s.run([a, b, r])); rec("reg_val", s.run(tf.losses.get_regularization_loss()))
            rec("pv", s.run(tf.convert_to_tensor(pv)).shape if hasattr(pv, "_as_graph_element") or True else None)
        with tf.variable_scope("outer", reuse=True):
            rec("reuse_inner", tf.get_variable("inner/b").name)
        with tf.variable_scope("x1"):
            with tf.variable_scope("x2") as sc2:
                pass
        with tf.variable_scope(sc2):
            rec("reenter", (tf.get_variable_scope().name, tf.constant(0, name="k").name))
        with tf.variable_scope("x1/x2", auxiliary_name_scope=False):
            rec("aux", tf.constant(0, name="k2").name)
    """,
    "keras_free_layers_math": """
        with tf.Session() as s:
            rec("sigmoid_big", s.run(tf.sigmoid(tf.constant([100., -100.]))))
            rec("softplus_big", s.run(tf.nn.softplus(tf.constant([100., -100.]))))
            rec("log_sigmoid", s.run(tf.log_sigmoid(tf.constant([-100., 0., 100.]))))
            rec("lse_big", s.run(tf.reduce_logsumexp(tf.constant([1000., 1000.]))))
            rec("sce_big", s.run(tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.constant([1., 0.]), logits=tf.constant([-100., 100.]))))
            rec("softmax_big", s.run(tf.nn.softmax(tf.constant([1000., 0.]))))
            rec("exp_over", s.run(tf.exp(tf.constant([100.]))))
            rec("f16_add", s.run(tf.constant([65504.], tf.float16) + tf.constant([100.], tf.float16)))
            rec("bf16", s.run(tf.cast(tf.constant([1.00390625, 3.14159]), tf.bfloat16)).astype(np.float32))
    """,
})

MORE.update({
    "multi_output_wrapper_types": """
        x = tf.constant([3, 1, 3, 2]); img = tf.zeros([1, 4, 4, 1])
        outs = {"unique": tf.unique(x), "uwc": tf.unique_with_counts(x), "listdiff": tf.setdiff1d(x, [1]),
                "mpwa": tf.nn.max_pool_with_argmax(img, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
                "sdbb": tf.image.sample_distorted_bounding_box([4, 4, 1], tf.zeros([1, 1, 4]), seed=1, use_image_if_no_bounding_boxes=True),
                "fmp": tf.nn.fractional_max_pool(img, [1., 1.5, 1.5, 1.], seed=1),
                "moments": tf.nn.moments(tf.zeros([3]), [0]), "svd": tf.svd(tf.eye(2)),
                "eigh": tf.self_adjoint_eig(tf.eye(2)), "fbn": tf.nn.fused_batch_norm(img, [1.], [0.]),
                "bga": tf.raw_ops.BroadcastGradientArgs(s0=[2, 1], s1=[1, 3]) if hasattr(tf, "raw_ops") else None,
                "qr": tf.qr(tf.eye(2)), "topk": tf.nn.top_k([1., 2.])}
        for k, v in sorted(outs.items()):
            if v is not None:
                rec(k, [type(v).__name__, list(getattr(v, "_fields", []))])
    """,
})
