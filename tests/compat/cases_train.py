"""Cases: tf.gradients, optimizers over several steps, learning-rate schedules, op names."""

_OPT_BODY = """
w0 = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
b0 = np.array([0.1, -0.2], np.float32)
x = np.array([[1., 2.], [3., -1.], [0.5, 0.5]], np.float32)
w = tf.Variable(w0, name="w"); b = tf.Variable(b0, name="b")
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - 1.0)) + 0.1 * tf.reduce_sum(tf.abs(w))
opt = %s
step = tf.train.get_or_create_global_step()
train = opt.minimize(loss, global_step=step)
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    for i in range(5):
        s.run(train)
    rec("w", s.run(w)); rec("b", s.run(b)); rec("step", s.run(step))
    rec("slots", sorted(opt.get_slot_names()))
    rec("vars", sorted(v.op.name for v in tf.global_variables()))
    rec("train_name", train.name)
    if type(opt).__name__ != "AdagradDAOptimizer":  # its update ops: see adagrad_da_update_ops
        rec("ops", sorted(o.name for o in tf.get_default_graph().get_operations() if o.type.startswith(("Apply", "ResourceApply", "AssignAdd", "ScatterAdd"))))
# tol: 2e-5 1e-6
"""

_OPTS = {
    "sgd": "tf.train.GradientDescentOptimizer(0.1)",
    "momentum": "tf.train.MomentumOptimizer(0.1, 0.9)",
    "nesterov": "tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True)",
    "adam": "tf.train.AdamOptimizer(0.05)",
    "adam_eps": "tf.train.AdamOptimizer(0.05, beta1=0.5, beta2=0.9, epsilon=1e-3)",
    "adagrad": "tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.2)",
    "rmsprop": "tf.train.RMSPropOptimizer(0.05)",
    "rmsprop_centered": "tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5, centered=True)",
    "adadelta": "tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)",
    "ftrl": "tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02)",
    "ftrl_shrink": "tf.train.FtrlOptimizer(0.3, learning_rate_power=-0.7, l2_shrinkage_regularization_strength=0.05)",
    "proximal_adagrad": "tf.train.ProximalAdagradOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.02)",
    "proximal_sgd": "tf.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.05)",
    "adagrad_da": "tf.train.AdagradDAOptimizer(0.3, global_step=tf.train.get_or_create_global_step(), l1_regularization_strength=0.01)",
}

TRAIN = {"opt_" + k: _OPT_BODY % v for k, v in _OPTS.items()}

# the ops seeding the backward pass differ by version (TF 1.x: gradients/grad_ys_0 is the Const
# and gradients/Fill the ones; TF 2: gradients/grad_ys_0/Const and gradients/grad_ys_0): tideflow
# follows TF 1.x, and these cases leave those names out
_NAMES = """
        def op_names():
            return [o.name for o in tf.get_default_graph().get_operations()
                    if not o.name.startswith(("gradients/grad_ys_", "gradients/Fill"))]
"""

TRAIN.update({
    "adagrad_da_update_ops": """
        w = tf.Variable([1., 2.], name="w")
        opt = tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step())
        opt.minimize(tf.reduce_sum(w * w))
        rec("types", sorted(o.type for o in tf.get_default_graph().get_operations() if o.name.startswith("AdagradDA/")))
    """,
    "sparse_updates_adam_momentum": """
        emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10.)
        loss = tf.reduce_sum(tf.square(tf.gather(emb, [0, 2, 0])))
        outs = {}
        for name, opt in [("adam", tf.train.AdamOptimizer(0.1)), ("mom", tf.train.MomentumOptimizer(0.1, 0.9)),
                          ("adagrad", tf.train.AdagradOptimizer(0.1)), ("rms", tf.train.RMSPropOptimizer(0.1)),
                          ("ftrl", tf.train.FtrlOptimizer(0.1)), ("sgd", tf.train.GradientDescentOptimizer(0.1))]:
            outs[name] = opt.minimize(loss, name=name)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for name in sorted(outs):
                for _ in range(3):
                    s.run(outs[name])
                rec(name, s.run(emb))
        # tol: 2e-5 1e-6
    """,
    "compute_apply_gradients": """
        w = tf.Variable([1., 2.]); v = tf.Variable([3.])
        loss = tf.reduce_sum(w * w) + 2. * tf.reduce_sum(v)
        opt = tf.train.GradientDescentOptimizer(0.5)
        gv = opt.compute_gradients(loss)
        rec("names", [(g.op.name, x.op.name) for g, x in gv])
        gv2 = opt.compute_gradients(loss, var_list=[v])
        rec("n2", len(gv2))
        u = tf.Variable([0.])
        gv3 = opt.compute_gradients(loss, var_list=[w, u])
        rec("none_grad", gv3[1][0] is None)
        clipped = [(tf.clip_by_value(g, -1., 1.), x) for g, x in gv]
        tr = opt.apply_gradients(clipped)
        rec("err_nograd", err(lambda: opt.minimize(tf.reduce_sum(tf.constant([1.])))))
        rec("err_allnone", err(lambda: opt.apply_gradients([(None, u)])))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(tr)
            rec("w", s.run(w), ref=[0.5, 1.5]); rec("v", s.run(v), ref=[2.5])
    """,
    "lr_schedules": """
        gs = tf.placeholder(tf.int64, [])
        scheds = {
            "exp": tf.train.exponential_decay(0.1, gs, 10, 0.5),
            "exp_stair": tf.train.exponential_decay(0.1, gs, 10, 0.5, staircase=True),
            "inv": tf.train.inverse_time_decay(0.1, gs, 10, 0.5),
            "inv_stair": tf.train.inverse_time_decay(0.1, gs, 10, 0.5, staircase=True),
            "nat": tf.train.natural_exp_decay(0.1, gs, 10, 0.5),
            "poly": tf.train.polynomial_decay(0.1, gs, 20, 0.01, power=2.),
            "poly_cycle": tf.train.polynomial_decay(0.1, gs, 20, 0.01, cycle=True),
            "pw": tf.train.piecewise_constant(gs, [5, 15], [1.0, 0.5, 0.1]),
            "cos": tf.train.cosine_decay(0.1, gs, 20, alpha=0.1),
            "cos_r": tf.train.cosine_decay_restarts(0.1, gs, 10, t_mul=2., m_mul=0.5),
            "lin_cos": tf.train.linear_cosine_decay(0.1, gs, 20),
        }
        with tf.Session() as s:
            for step in [0, 5, 9, 10, 15, 25, 40]:
                vals = s.run(scheds, {gs: step})
                for k, v in vals.items():
                    rec("%s_%d" % (k, step), v)
            rec("exp_ref", s.run(scheds["exp"], {gs: 7}), ref=0.1 * 0.5 ** 0.7)
            rec("pw_dtype", scheds["pw"].dtype); rec("exp_dtype", scheds["exp"].dtype)
            rec("exp_name", scheds["exp"].op.name)
    """,
    "gradients_math": """
        x = tf.constant([0.5, 1.5, -2.0]); y = tf.constant([2.0, -1.0, 3.0])
        fs = {"mul": x * y, "div": x / y, "pow": tf.pow(tf.abs(x), y), "max": tf.maximum(x, y), "min": tf.minimum(x, y),
              "sqdiff": tf.squared_difference(x, y), "atan2": tf.atan2(x, y), "floordiv_grad": x - y * 0.5,
              "sig": tf.sigmoid(x * y), "tanh": tf.tanh(x), "exp": tf.exp(x), "log": tf.log(tf.abs(x)),
              "sqrt": tf.sqrt(tf.abs(x)), "rsqrt": tf.rsqrt(tf.abs(x)), "reciprocal": 1. / x, "abs": tf.abs(x),
              "relu": tf.nn.relu(x), "relu6": tf.nn.relu6(x * 4), "elu": tf.nn.elu(x), "selu": tf.nn.selu(x),
              "softplus": tf.nn.softplus(x), "leaky": tf.nn.leaky_relu(x, 0.3), "erf": tf.erf(x),
              "lgamma": tf.lgamma(tf.abs(x)), "clip": tf.clip_by_value(x, -1., 1.), "sin": tf.sin(x),
              "cumsum": tf.cumsum(x * y), "cumprod": tf.cumprod(x), "prod": tf.reduce_prod(x),
              "maxred": tf.reduce_max(tf.stack([x, y])), "lse": tf.reduce_logsumexp(x),
              "norm": tf.norm(x), "l2n": tf.nn.l2_normalize(x, 0), "sm": tf.nn.softmax(x), "lsm": tf.nn.log_softmax(x),
              "where": tf.where(x > 0, x * x, y * x), "sign": tf.sign(x) * x, "round": tf.round(x) + x,
              "mean": tf.reduce_mean(x * y), "xlogy": tf.math.xlogy(tf.abs(x), tf.abs(y)), "div_no_nan": tf.div_no_nan(x, y)}
        w = tf.constant([1., -2., 0.5])
        with tf.Session() as s:
            for k in sorted(fs):
                g = tf.gradients(fs[k] * w if fs[k].get_shape().ndims else fs[k], [x, y])
                rec(k, [s.run(t) if t is not None else None for t in g])
        # tol: 1e-5 1e-6
    """,
    "gradients_array": """
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        w = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
        fs = {"slice": x[1:, ::2], "gather": tf.gather(x, [2, 0, 2]), "gather1": tf.gather(x, [3, 3], axis=1),
              "gnd": tf.gather_nd(x, [[0, 1], [2, 2], [0, 1]]), "tr": tf.transpose(x), "rs": tf.reshape(x, [2, 6]),
              "concat": tf.concat([x, x * 2], 1), "stack": tf.stack([x, x]), "tile": tf.tile(x, [2, 1]),
              "pad": tf.pad(x, [[1, 0], [0, 2]]), "pad_r": tf.pad(x, [[1, 1], [2, 2]], "REFLECT"),
              "rev": tf.reverse(x, [1]), "split": tf.split(x, 2, 1)[1], "bcast": x + tf.reduce_sum(x, 0),
              "mm": tf.matmul(x, tf.transpose(x)), "bm": tf.boolean_mask(x, x > 4), "ss": tf.segment_sum(x, [0, 0, 1]),
              "uss": tf.unsorted_segment_max(x, [1, 0, 1], 2), "topk": tf.nn.top_k(x, 2).values,
              "sort": tf.sort(x * w), "cast": tf.cast(tf.cast(x, tf.float64) * 2, tf.float32),
              "onehot_mul": x * tf.one_hot([1, 2, 3], 4), "sqz": tf.squeeze(tf.expand_dims(x, 0)),
              "dp": tf.dynamic_partition(x, [0, 1, 0], 2)[0], "ds": tf.dynamic_stitch([[1, 0, 2]], [x]),
              "bt": tf.broadcast_to(tf.reduce_sum(x, 0), [2, 4]), "mbp": tf.matrix_band_part(x, 0, 1),
              "diag_part": tf.matrix_diag_part(x), "einsum": tf.einsum("ij,kj->ik", x, w),
              "sm_ce": tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.nn.softmax(w), logits=x)}
        with tf.Session() as s:
            for k in sorted(fs):
                f = fs[k]
                r = tf.reduce_sum(f * tf.cast(tf.reshape(tf.range(tf.size(f)), tf.shape(f)) % 3 + 1, tf.float32))
                rec(k, s.run(tf.gradients(r, x)[0]))
        # tol: 1e-5 1e-5
    """,
    "gradients_structure": _NAMES + """
        x = tf.Variable(2.0, name="x"); y = tf.Variable(3.0, name="y")
        z = x * y + tf.square(x)
        g = tf.gradients(z, [x, y])
        rec("names", [t.name for t in g])
        rec("ops", sorted(n for n in op_names() if n.startswith("gradients")))
        g2 = tf.gradients([z, x * 2.], [x], grad_ys=[tf.constant(2.), None])
        rec("none", tf.gradients(z, [tf.Variable(1.0)]))
        rec("unconnected", err(lambda: tf.gradients(z, [tf.Variable(1.0)], unconnected_gradients="zero")))
        sg = tf.gradients(tf.stop_gradient(x) * y, [x, y])
        rec("sg", sg[0] is None)
        sg2 = tf.gradients(x * y, [x, y], stop_gradients=[x])
        h = tf.hessians(x * x * y, [x])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            rec("g", s.run(g), ref=[3. + 4., 2.]); rec("g2", s.run(g2), ref=[2. * 7. + 2.])
            rec("sg1", s.run(sg[1])); rec("sg2", s.run(sg2))
            rec("h", s.run(h), ref=[6.])
            rec("int_err", err(lambda: tf.gradients(tf.constant(1) * 2, [tf.constant(1)])))
    """,
    "gradient_names_dense": _NAMES + """
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(0.5))
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.nn.bias_add(tf.matmul(x, w), b)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=logits))
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
        rec("names", op_names())
        rec("train", train.name)
    """,
    "gradient_names_sgd": _NAMES + """
        w = tf.Variable([1., 2.], name="w")
        loss = tf.reduce_sum(tf.square(w - [3., 1.]))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        rec("names", op_names())
        rec("types", [o.type for o in tf.get_default_graph().get_operations()
                      if not o.name.startswith(("gradients/grad_ys_", "gradients/Fill"))])
    """,
    "gradient_names_momentum_global_step": _NAMES + """
        w = tf.Variable([1., 2.], name="w")
        gs = tf.Variable(0, trainable=False, name="global_step")
        loss = tf.reduce_sum(tf.square(w))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=gs, name="train")
        rec("names", op_names())
    """,
})
