"""Cases: cond, while_loop, map_fn, scan, foldl, TensorArray, case, and their gradients."""

CONTROL = {
    "cond_basic": """
        x = tf.placeholder(tf.float32, [])
        r = tf.cond(x > 0, lambda: x * 2, lambda: x - 1)
        r2 = tf.cond(x > 0, lambda: (x, x + 1), lambda: (x * 0, x))
        r3 = tf.cond(tf.constant(True), lambda: {"a": x}, lambda: {"a": -x})
        g = tf.gradients(r, x)[0]
        rec("shape", r.get_shape()); rec("types", [t.dtype for t in r2])
        with tf.Session() as s:
            rec("pos", s.run(r, {x: 3.}), ref=6.); rec("neg", s.run(r, {x: -3.}), ref=-4.)
            rec("tuple", s.run(r2, {x: 2.})); rec("dict", s.run(r3, {x: 2.}))
            rec("gpos", s.run(g, {x: 3.}), ref=2.); rec("gneg", s.run(g, {x: -3.}), ref=1.)
        rec("mismatch", err(lambda: tf.cond(x > 0, lambda: x, lambda: (x, x))))
        rec("dtype_mismatch", err(lambda: tf.cond(x > 0, lambda: tf.constant(1), lambda: tf.constant(1.))))
        rec("shape_merge", tf.cond(x > 0, lambda: tf.zeros([2, 3]), lambda: tf.zeros([2, 4])).get_shape())
        rec("nonbool", err(lambda: tf.cond(tf.constant(1), lambda: x, lambda: x)))
    """,
    "cond_side_effects": """
        v = tf.Variable(0)
        p = tf.placeholder(tf.bool, [])
        r = tf.cond(p, lambda: tf.assign_add(v, 1), lambda: tf.assign_add(v, 10))
        outside = tf.assign_add(v, 100)
        r2 = tf.cond(p, lambda: outside, lambda: tf.identity(v))
        with tf.Session() as s:
            s.run(v.initializer)
            rec("t", s.run(r, {p: True})); rec("f", s.run(r, {p: False}))
            rec("outside", s.run(r2, {p: False}))  # outside op runs regardless (TF 1 semantics)
            rec("v", s.run(v))
    """,
    "case_op": """
        x = tf.placeholder(tf.int32, [])
        r = tf.case([(tf.equal(x, 1), lambda: tf.constant(10)), (tf.equal(x, 2), lambda: tf.constant(20))],
                    default=lambda: tf.constant(-1))
        r2 = tf.case({tf.less(x, 5): lambda: tf.constant(1), tf.less(x, 3): lambda: tf.constant(2)},
                     default=lambda: tf.constant(0), exclusive=False)
        with tf.Session() as s:
            rec("v", [s.run(r, {x: i}) for i in range(4)], ref=[-1, 10, 20, -1])
            rec("v2", [s.run(r2, {x: i}) for i in [1, 4, 7]])
    """,
    "while_loop_basic": """
        i0 = tf.constant(0); acc0 = tf.constant(1.)
        i, acc = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * 2.), [i0, acc0])
        rec("shapes", [i.get_shape(), acc.get_shape()])
        n = tf.placeholder(tf.int32, [])
        _, xs = tf.while_loop(lambda k, x: k < n, lambda k, x: (k + 1, tf.concat([x, [k]], 0)),
                              [0, tf.zeros([0], tf.int32)],
                              shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
        rec("inv_shape", xs.get_shape())
        rec("bad_inv", err(lambda: tf.while_loop(lambda k, x: k < n, lambda k, x: (k + 1, tf.concat([x, [k]], 0)),
                                               [0, tf.zeros([0], tf.int32)])))
        single = tf.while_loop(lambda k: k < 10, lambda k: k + 3, [0])
        single2 = tf.while_loop(lambda k: k < 10, lambda k: [k + 3], [0])
        nested = tf.while_loop(lambda s: s["a"] < 3, lambda s: [{"a": s["a"] + 1, "b": s["b"] * 2}], [{"a": 0, "b": 1}])
        rec("nested_type", type(nested).__name__)
        with tf.Session() as s:
            rec("v", s.run([i, acc]), ref=[5, 32.]); rec("xs", s.run(xs, {n: 4}), ref=[0, 1, 2, 3])
            rec("single", s.run(single)); rec("single_type", isinstance(single, tf.Tensor))
            rec("single2", s.run(single2)); rec("single2_type", isinstance(single2, tf.Tensor))
            rec("nested", s.run(nested))
            rec("mi", s.run(tf.while_loop(lambda k: k < 100, lambda k: k + 1, [0], maximum_iterations=7)), ref=7)
    """,
    "while_loop_gradients": """
        x = tf.constant(1.5)
        _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * v + 0.5 * v), [0, x])
        g = tf.gradients(y, x)[0]
        w = tf.Variable([1., 2.])
        _, z = tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, tf.sin(v) * w), [0, tf.constant([0.3, 0.4])])
        gw = tf.gradients(tf.reduce_sum(z), w)[0]
        with tf.Session() as s:
            s.run(w.initializer)
            def f(v):
                for _ in range(3):
                    v = v * v + 0.5 * v
                return v
            rec("y", s.run(y), ref=f(1.5)); rec("g", s.run(g), ref=(f(1.5 + 1e-6) - f(1.5 - 1e-6)) / 2e-6, rtol=1e-4)
            rec("gw", s.run(gw))
        # tol: 1e-5 1e-5
    """,
    "map_fn_scan_fold": """
        x = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
        m = tf.map_fn(lambda r: r * 2, x)
        m2 = tf.map_fn(lambda r: (r[0], tf.cast(r[1], tf.int32)), x, dtype=(tf.float32, tf.int32))
        m3 = tf.map_fn(lambda a: a[0] + a[1], (x, x), dtype=tf.float32)
        sc = tf.scan(lambda a, r: a + r, x)
        sc_init = tf.scan(lambda a, r: a * r, x, initializer=tf.ones([2]))
        sc_rev = tf.scan(lambda a, r: a + r, x, reverse=True)
        fl = tf.foldl(lambda a, r: a + r, x); fr = tf.foldr(lambda a, r: a - r, tf.constant([1., 2., 3.]))
        fl_init = tf.foldl(lambda a, r: a + tf.reduce_sum(r), x, initializer=tf.constant(0.))
        g = tf.gradients(tf.reduce_sum(tf.map_fn(lambda r: r * r, x)), x)[0]
        gs = tf.gradients(tf.reduce_sum(sc_init), x)[0]
        rec("shapes", [m.get_shape(), sc.get_shape(), fl.get_shape()])
        with tf.Session() as s:
            xv = np.array([[1., 2.], [3., 4.], [5., 6.]])
            rec("m", s.run(m), ref=xv * 2); rec("m2", s.run(m2)); rec("m3", s.run(m3), ref=xv * 2)
            rec("sc", s.run(sc), ref=np.cumsum(xv, 0)); rec("sc_init", s.run(sc_init), ref=np.cumprod(xv, 0))
            rec("sc_rev", s.run(sc_rev), ref=np.cumsum(xv[::-1], 0)[::-1])
            rec("fl", s.run(fl), ref=xv.sum(0)); rec("fr", s.run(fr), ref=3. - 2. - 1.)
            rec("fl_init", s.run(fl_init), ref=21.)
            rec("g", s.run(g), ref=2 * xv); rec("gs", s.run(gs))
    """,
    "tensor_array": """
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, [1., 2.]).write(1, [3., 4.]).write(2, [5., 6.])
        st = ta.stack(); rd = ta.read(1); cc = ta.concat(); g = ta.gather([2, 0])
        rec("dtype", ta.dtype); rec("st_shape", st.get_shape())
        ta2 = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta2 = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t.write(i, i * i)), [0, ta2])
        ta3 = tf.TensorArray(tf.float32, size=2).unstack(tf.constant([[1., 2.], [3., 4.]]))
        ta4 = tf.TensorArray(tf.float32, size=2, element_shape=tf.TensorShape([2]))
        sp = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(tf.constant([1., 2., 3.]), [1, 2])
        x = tf.constant([1., 2., 3.])
        tag = tf.TensorArray(tf.float32, size=3).unstack(x * x)
        gr = tf.gradients(tf.reduce_sum(tag.stack() * [1., 2., 3.]), x)[0]
        with tf.Session() as s:
            rec("st", s.run(st)); rec("rd", s.run(rd)); rec("cc", s.run(cc)); rec("g", s.run(g))
            rec("size", s.run(ta.size())); rec("dyn", s.run(ta2.stack()), ref=[0, 1, 4, 9])
            rec("ta3", s.run(ta3.read(1)), ref=[3., 4.]); rec("sp", s.run(sp.read(1)), ref=[2., 3.])
            rec("gr", s.run(gr), ref=[2., 8., 18.])
            rec("oob", err(lambda: s.run(tf.TensorArray(tf.float32, size=2).write(5, 1.).stack())))
            rec("read_unwritten", err(lambda: s.run(tf.TensorArray(tf.float32, size=2).read(0))))
        rec("es", ta4.element_shape)
    """,
    "tensor_array_write_once": """
        with tf.Session() as s:
            rec("double_write", err(lambda: s.run(tf.TensorArray(tf.float32, size=2).write(0, 1.).write(0, 2.).stack())))
    """,
    "dynamic_rnn_like_loop": """
        w = tf.get_variable("w", [3, 3], initializer=tf.constant_initializer(np.linspace(-0.5, 0.5, 9).reshape(3, 3)))
        xs = tf.constant(np.linspace(-1, 1, 12).reshape(4, 1, 3), tf.float32)
        def body(t, h, ta):
            h = tf.tanh(tf.matmul(xs[t], w) + h)
            return t + 1, h, ta.write(t, h)
        _, h, ta = tf.while_loop(lambda t, h, ta: t < 4, body, [0, tf.zeros([1, 3]), tf.TensorArray(tf.float32, 4)])
        loss = tf.reduce_sum(ta.stack()) + tf.reduce_sum(h)
        gw = tf.gradients(loss, w)[0]
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            rec("h", s.run(h)); rec("gw", s.run(gw))
        # tol: 1e-5 1e-6
    """,
}

CONTROL.update({
    "nested_control_flow_gradients": """
        x = tf.constant(0.7, tf.float64)
        def body(i, v):
            v = tf.cond(v > 1.0, lambda: v * 0.5, lambda: v * v + 0.3)
            _, w = tf.while_loop(lambda j, u: j < 2, lambda j, u: (j + 1, tf.sin(u) + u), [0, v])
            return i + 1, w
        _, y = tf.while_loop(lambda i, v: i < 3, body, [0, x])
        g = tf.gradients(y, x)[0]
        gg = tf.gradients(g, x)[0]
        with tf.Session() as s:
            rec("y", s.run(y)); rec("g", s.run(g)); rec("gg_none", gg is None)
        # tol: 1e-6 1e-8
    """,
    "while_loop_no_backprop_and_parallel": """
        v = tf.Variable(1.0)
        _, r = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * v), [0, tf.constant(2.0)], back_prop=False, parallel_iterations=1)
        rec("grad_none", tf.gradients(r, v)[0] is None)
        c = tf.while_loop(lambda i: tf.less(i, 3), lambda i: tf.add(i, 1), [tf.constant(0, tf.int64)])
        rec("dtype", c.dtype)
        with tf.Session() as s:
            s.run(v.initializer); rec("r", s.run(r)); rec("c", s.run(c))
    """,
    "cond_in_map_fn_and_scan_grads": """
        x = tf.constant([[-1., 2.], [3., -4.], [0.5, 0.5]])
        m = tf.map_fn(lambda r: tf.cond(tf.reduce_sum(r) > 0, lambda: r * r, lambda: -r), x)
        sc = tf.scan(lambda a, r: a * 0.5 + tf.reduce_sum(r * r), x, initializer=tf.constant(1.))
        g = tf.gradients(tf.reduce_sum(m) + tf.reduce_sum(sc), x)[0]
        with tf.Session() as s:
            rec("m", s.run(m)); rec("sc", s.run(sc)); rec("g", s.run(g))
    """,
    "case_and_switch_case": """
        i = tf.placeholder(tf.int32, [])
        r = tf.switch_case(i, [lambda: tf.constant(10), lambda: tf.constant(20)], default=lambda: tf.constant(-1)) if hasattr(tf, "switch_case") else tf.constant(0)
        with tf.Session() as s:
            rec("sw", [s.run(r, {i: k}) for k in range(3)])
        x = tf.placeholder(tf.int32, [])
        c = tf.case([(x > 1, lambda: tf.constant(1)), (x > 2, lambda: tf.constant(2))], exclusive=True)
        with tf.Session() as s:
            rec("excl_ok", s.run(c, {x: 2}))
            rec("excl_nodefault", err(lambda: s.run(c, {x: 3})))
        c2 = tf.case([(x > 1, lambda: tf.constant(1)), (x > 2, lambda: tf.constant(2))], default=lambda: tf.constant(0), exclusive=True)
        with tf.Session() as s:
            rec("excl_default_ok", s.run(c2, {x: 2}), ref=1); rec("excl_default_none", s.run(c2, {x: 0}), ref=0)
            rec("excl_err", err(lambda: s.run(c2, {x: 3})))
    """,
})
