"""Cases: elementwise math, broadcasting, dtype promotion, reductions."""

MATH = {
    "add_broadcast": """
        a = tf.constant([[1., 2., 3.]]); b = tf.constant([[1.], [2.]])
        c = a + b
        rec("shape", c.get_shape()); rec("dtype", c.dtype)
        with tf.Session() as s:
            rec("v", s.run(c), ref=np.array([[1., 2., 3.]]) + np.array([[1.], [2.]]))
    """,
    "int_plus_float_error": """
        rec("e", err(lambda: tf.constant(1) + tf.constant(1.0)))
        rec("e2", err(lambda: tf.add(tf.constant([1, 2]), tf.constant([1.0, 2.0]))))
        rec("e3", err(lambda: tf.constant([1.0], tf.float32) * tf.constant([1.0], tf.float64)))
    """,
    "python_scalar_conversion": """
        a = tf.constant([1, 2, 3])
        rec("d1", (a + 1).dtype); rec("e", err(lambda: a + 1.5))
        b = tf.constant([1., 2.])
        rec("d2", (b * 2).dtype); rec("d3", (2 * b).dtype)
        rec("d4", tf.constant(2.0, tf.float64).dtype)
        with tf.Session() as s:
            rec("v", s.run(b * 2 + 1), ref=[3., 5.])
    """,
    "broadcast_mismatch_static": """
        rec("e", err(lambda: tf.constant([1., 2., 3.]) + tf.constant([1., 2.])))
    """,
    "broadcast_mismatch_runtime": """
        p = tf.placeholder(tf.float32, [None])
        c = p + tf.constant([1., 2., 3.])
        rec("shape", c.get_shape())
        with tf.Session() as s:
            rec("e", err(lambda: s.run(c, {p: [1., 2.]})))
    """,
    "int_div_ops": """
        a = tf.constant([7, -7, 7, -7]); b = tf.constant([2, 2, -2, -2])
        with tf.Session() as s:
            rec("floordiv", s.run(a // b), ref=np.array([7, -7, 7, -7]) // np.array([2, 2, -2, -2]))
            rec("floordiv2", s.run(tf.floordiv(a, b)))
            rec("mod", s.run(a % b), ref=np.mod([7, -7, 7, -7], [2, 2, -2, -2]))
            rec("truncmod", s.run(tf.truncatemod(a, b)), ref=np.fmod([7, -7, 7, -7], [2, 2, -2, -2]))
            rec("truncdiv", s.run(tf.truncatediv(a, b)), ref=[3, -3, -3, 3])
            rec("truediv", s.run(a / b), ref=np.array([7, -7, 7, -7]) / np.array([2, 2, -2, -2]))
            rec("truediv_dtype", (a / b).dtype)
            rec("div", s.run(tf.div(a, b)))
            rec("realdiv_dtype", tf.realdiv(tf.constant(1.), tf.constant(2.)).dtype)
    """,
    "float_mod_floordiv": """
        a = tf.constant([7.5, -7.5, 7.5, -7.5]); b = tf.constant([2., 2., -2., -2.])
        with tf.Session() as s:
            rec("floordiv", s.run(a // b), ref=np.floor_divide([7.5, -7.5, 7.5, -7.5], [2., 2., -2., -2.]))
            rec("mod", s.run(a % b), ref=np.mod([7.5, -7.5, 7.5, -7.5], [2., 2., -2., -2.]))
            rec("truncmod", s.run(tf.truncatemod(a, b)), ref=np.fmod([7.5, -7.5, 7.5, -7.5], [2., 2., -2., -2.]))
    """,
    "int_div_by_zero": """
        a = tf.constant([1, 2]); b = tf.constant([0, 1])
        with tf.Session() as s:
            rec("e", err(lambda: s.run(a // b)))
            rec("e2", err(lambda: s.run(a % b)))
    """,
    "float_div_by_zero": """
        a = tf.constant([1., -1., 0.]); b = tf.constant([0., 0., 0.])
        with tf.Session() as s:
            rec("v", s.run(a / b))
            rec("dnn", s.run(tf.div_no_nan(a, b)), ref=[0., 0., 0.])
    """,
    "int_overflow": """
        a = tf.constant([2147483647], tf.int32)
        b = tf.constant([127], tf.int8)
        with tf.Session() as s:
            rec("i32", s.run(a + 1), ref=[-2147483648])
            rec("i8", s.run(b + tf.constant([1], tf.int8)), ref=[-128])
            rec("u8", s.run(tf.constant([250], tf.uint8) + tf.constant([10], tf.uint8)), ref=[4])
    """,
    "max_min_nan": """
        a = tf.constant([1., np.nan, 3.]); b = tf.constant([np.nan, 2., 1.])
        with tf.Session() as s:
            rec("maximum", s.run(tf.maximum(a, b)))
            rec("minimum", s.run(tf.minimum(a, b)))
            rec("rmax", s.run(tf.reduce_max(a)))
            rec("rmin", s.run(tf.reduce_min(a)))
            rec("argmax", s.run(tf.argmax(a)), ref=np.nanargmax([1., np.nan, 3.]))
            rec("argmin", s.run(tf.argmin(a)), ref=np.nanargmin([1., np.nan, 3.]))
            rec("argmax2", s.run(tf.argmax([[np.nan, 5., np.nan, 7.], [np.nan] * 4], 1)), ref=[3, 0])
            rec("argmin2", s.run(tf.argmin([np.nan, 5., np.nan, 7.])), ref=1)
    """,
    "argmax_ties_and_dtype": """
        a = tf.constant([[1, 3, 3], [2, 2, 1]])
        r = tf.argmax(a, axis=1)
        rec("dtype", r.dtype); rec("shape", r.get_shape())
        with tf.Session() as s:
            rec("v", s.run(r), ref=[1, 0])
            rec("v0", s.run(tf.argmin(a, 0)), ref=[0, 1, 1])
            rec("i32", tf.argmax(a, 1, output_type=tf.int32).dtype)
            rec("dim", s.run(tf.argmax(a, dimension=0)), ref=[1, 0, 0])
    """,
    "reduce_basic": """
        x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        a = tf.constant(x)
        with tf.Session() as s:
            rec("sum", s.run(tf.reduce_sum(a)), ref=x.sum())
            rec("sum1", s.run(tf.reduce_sum(a, 1)), ref=x.sum(1))
            rec("sumk", s.run(tf.reduce_sum(a, [0, 2], keepdims=True)), ref=x.sum((0, 2), keepdims=True))
            rec("sumkd", s.run(tf.reduce_sum(a, 1, keep_dims=True)), ref=x.sum(1, keepdims=True))
            rec("ri", s.run(tf.reduce_sum(a, reduction_indices=[1])), ref=x.sum(1))
            rec("neg", s.run(tf.reduce_mean(a, -1)), ref=x.mean(-1))
            rec("prod", s.run(tf.reduce_prod(a[0], 0)), ref=x[0].prod(0))
            rec("max", s.run(tf.reduce_max(a, [1, 2])), ref=x.max((1, 2)))
            rec("empty_axes", s.run(tf.reduce_sum(a, [])), ref=x)
            rec("lse", s.run(tf.reduce_logsumexp(a, 2)), ref=np.log(np.exp(x).sum(2)), rtol=1e-5)
            rec("std", s.run(tf.math.reduce_std(a, 1)), ref=x.std(1))
            rec("var", s.run(tf.math.reduce_variance(a, 1)), ref=x.var(1))
        rec("shape_k", tf.reduce_sum(a, 1, keepdims=True).get_shape())
    """,
    "reduce_int_mean": """
        a = tf.constant([1, 2, 4])
        with tf.Session() as s:
            rec("mean", s.run(tf.reduce_mean(a)), ref=2)
            rec("dtype", tf.reduce_mean(a).dtype)
    """,
    "reduce_bool": """
        a = tf.constant([[True, False], [True, True]])
        with tf.Session() as s:
            rec("all", s.run(tf.reduce_all(a, 1)), ref=[False, True])
            rec("any", s.run(tf.reduce_any(a, 0)), ref=[True, True])
            rec("e", err(lambda: tf.reduce_sum(a)))
    """,
    "reduce_empty_tensor": """
        a = tf.zeros([0, 3])
        with tf.Session() as s:
            rec("sum", s.run(tf.reduce_sum(a, 0)), ref=np.zeros(3))
            rec("prod", s.run(tf.reduce_prod(a, 0)), ref=np.ones(3))
            rec("max", s.run(tf.reduce_max(a, 0)))
            rec("mean", s.run(tf.reduce_mean(a, 0)))
    """,
    "reduce_bad_axis": """
        a = tf.zeros([2, 3])
        rec("e", err(lambda: tf.reduce_sum(a, 2)))
    """,
    "reduce_partial_shape": """
        p = tf.placeholder(tf.float32, [None, 3, None])
        rec("s1", tf.reduce_sum(p, 1).get_shape())
        rec("s2", tf.reduce_sum(p, [0, 2], keepdims=True).get_shape())
        q = tf.placeholder(tf.float32)
        rec("s3", tf.reduce_sum(q, 1).get_shape())
        rec("s4", tf.reduce_sum(q).get_shape())
        ax = tf.placeholder(tf.int32)
        rec("s5", tf.reduce_sum(p, ax).get_shape())
        rec("s6", tf.reduce_sum(p, ax, keepdims=True).get_shape())
    """,
    "unary_math": """
        x = np.array([0.5, 1.0, 2.5, 4.0], np.float32)
        a = tf.constant(x)
        with tf.Session() as s:
            for name, fn, ref in [("exp", tf.exp, np.exp), ("log", tf.log, np.log),
                                  ("sqrt", tf.sqrt, np.sqrt), ("rsqrt", tf.rsqrt, lambda v: 1 / np.sqrt(v)),
                                  ("square", tf.square, np.square), ("tanh", tf.tanh, np.tanh),
                                  ("sigmoid", tf.sigmoid, lambda v: 1 / (1 + np.exp(-v))),
                                  ("log1p", tf.log1p, np.log1p), ("expm1", tf.expm1, np.expm1),
                                  ("sin", tf.sin, np.sin), ("cos", tf.cos, np.cos),
                                  ("reciprocal", tf.reciprocal, lambda v: 1 / v),
                                  ("softplus", tf.nn.softplus, lambda v: np.log1p(np.exp(v))),
                                  ("softsign", tf.nn.softsign, lambda v: v / (1 + abs(v))),
                                  ("erf", tf.erf, None), ("lgamma", tf.lgamma, None),
                                  ("digamma", tf.digamma, None), ("atan", tf.atan, np.arctan),
                                  ("asinh", tf.asinh, np.arcsinh), ("sign", tf.sign, np.sign)]:
                r = s.run(fn(a))
                rec(name, r, ref=None if ref is None else ref(x), rtol=2e-6)
    """,
    "round_ops": """
        x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7], np.float32)
        a = tf.constant(x)
        with tf.Session() as s:
            rec("round", s.run(tf.round(a)), ref=np.round(x))
            rec("rint", s.run(tf.rint(a)), ref=np.rint(x))
            rec("floor", s.run(tf.floor(a)), ref=np.floor(x))
            rec("ceil", s.run(tf.ceil(a)), ref=np.ceil(x))
    """,
    "cast_rounding": """
        x = np.array([-2.7, -0.5, 0.5, 2.7, 1e10], np.float32)
        a = tf.constant(x)
        with tf.Session() as s:
            rec("i32", s.run(tf.cast(a[:4], tf.int32)), ref=[-2, 0, 0, 2])
            rec("u8", s.run(tf.cast(tf.constant([1.7, 255.2]), tf.uint8)), ref=[1, 255])
            rec("bool", s.run(tf.cast(tf.constant([0., 0.3, -1.]), tf.bool)), ref=[False, True, True])
            rec("from_bool", s.run(tf.cast(tf.constant([True, False]), tf.float32)), ref=[1., 0.])
            rec("i64", s.run(tf.to_int64(tf.constant([3.9]))), ref=[3])
            rec("f16", s.run(tf.cast(tf.constant([1.0001]), tf.float16)))
            rec("saturate", s.run(tf.saturate_cast(tf.constant([300., -5.]), tf.uint8)), ref=[255, 0])
            rec("name", tf.cast(a, tf.int32, name="c").op.name)
            rec("same", tf.cast(a, tf.float32) is a)
    """,
    "pow_ops": """
        with tf.Session() as s:
            rec("ipow", s.run(tf.pow(tf.constant([2, 3]), tf.constant([3, 2]))), ref=[8, 9])
            rec("fpow", s.run(tf.constant([2., 4.]) ** 0.5), ref=[2 ** 0.5, 2.])
            rec("squared_diff", s.run(tf.squared_difference(tf.constant([1., 5.]), tf.constant([3., 2.]))), ref=[4., 9.])
    """,
    "abs_neg_int": """
        with tf.Session() as s:
            rec("abs", s.run(tf.abs(tf.constant([-3, 2, -2147483648]))))
            rec("neg", s.run(-tf.constant([1, -2])), ref=[-1, 2])
            rec("absdtype", tf.abs(tf.constant([1 + 2j])).dtype)
            rec("cabs", s.run(tf.abs(tf.constant([3 + 4j]))), ref=[5.])
    """,
    "comparisons_logical": """
        a = tf.constant([1, 2, 3]); b = tf.constant([3, 2, 1])
        with tf.Session() as s:
            rec("lt", s.run(a < b)); rec("le", s.run(a <= b)); rec("eq", s.run(tf.equal(a, b)))
            rec("ne", s.run(tf.not_equal(a, b)))
            x = tf.constant([True, False]); y = tf.constant([True, True])
            rec("and", s.run(x & y)); rec("or", s.run(x | y)); rec("xor", s.run(x ^ y))
            rec("not", s.run(~x)); rec("lxor", s.run(tf.logical_xor(x, y)))
            rec("eqop", (a == b) is False)
    """,
    "add_n_accumulate": """
        xs = [tf.constant([1., 2.]), tf.constant([3., 4.]), tf.constant([5., 6.])]
        with tf.Session() as s:
            rec("add_n", s.run(tf.add_n(xs)), ref=[9., 12.])
            rec("single", s.run(tf.add_n(xs[:1])), ref=[1., 2.])
            rec("name", tf.add_n(xs).op.type)
        rec("e", err(lambda: tf.add_n([])))
        rec("e2", err(lambda: tf.add_n([tf.constant([1.]), tf.constant([1., 2.])])))
    """,
    "matmul_variants": """
        a = np.arange(6, dtype=np.float32).reshape(2, 3); b = np.arange(12, dtype=np.float32).reshape(3, 4)
        with tf.Session() as s:
            rec("mm", s.run(tf.matmul(a, b)), ref=a @ b)
            rec("ta", s.run(tf.matmul(a.T, b, transpose_a=True)), ref=a @ b)
            rec("tb", s.run(tf.matmul(a, b.T, transpose_b=True)), ref=a @ b)
            rec("op", s.run(tf.constant(a) @ tf.constant(b)), ref=a @ b)
            x = np.arange(24, dtype=np.float32).reshape(2, 3, 4); y = np.arange(40, dtype=np.float32).reshape(2, 4, 5)
            rec("batch", s.run(tf.matmul(x, y)), ref=x @ y)
            rec("adj", s.run(tf.matmul(y, x, adjoint_a=True, adjoint_b=True)), ref=np.swapaxes(y, 1, 2) @ np.swapaxes(x, 1, 2))
            rec("int", s.run(tf.matmul(tf.constant([[1, 2]]), tf.constant([[3], [4]]))), ref=[[11]])
        rec("e", err(lambda: tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 5]))))
        rec("e_rank", err(lambda: tf.matmul(tf.zeros([3]), tf.zeros([3, 4]))))
        p = tf.placeholder(tf.float32, [None, 3])
        rec("shape", tf.matmul(p, tf.zeros([3, 7])).get_shape())
        rec("type", tf.matmul(p, tf.zeros([3, 7])).op.type)
        rec("btype", tf.matmul(tf.zeros([2, 2, 2]), tf.zeros([2, 2, 2])).op.type)
    """,
    "tensordot_einsum": """
        a = np.arange(24, dtype=np.float32).reshape(2, 3, 4); b = np.arange(20, dtype=np.float32).reshape(4, 5)
        with tf.Session() as s:
            rec("td", s.run(tf.tensordot(a, b, 1)), ref=np.tensordot(a, b, 1))
            rec("td_axes", s.run(tf.tensordot(a, a, [[1, 2], [1, 2]])), ref=np.tensordot(a, a, [[1, 2], [1, 2]]))
            ta, tb = tf.constant(a), tf.constant(b)  # (TF 1.15's einsum takes tensors only)
            rec("einsum", s.run(tf.einsum("ijk,kl->ijl", ta, tb)), ref=np.einsum("ijk,kl->ijl", a, b))
            rec("einsum_tr", s.run(tf.einsum("ij->ji", tb)), ref=b.T)
        rec("td_shape", tf.tensordot(a, b, 1).get_shape())
    """,
    "cumsum_cumprod": """
        x = np.array([[1., 2., 3.], [4., 5., 6.]], np.float32)
        with tf.Session() as s:
            rec("cs", s.run(tf.cumsum(x, 1)), ref=np.cumsum(x, 1))
            rec("cs_ex", s.run(tf.cumsum(x, 1, exclusive=True)), ref=np.cumsum(x, 1) - x)
            rec("cs_rev", s.run(tf.cumsum(x, 1, reverse=True)), ref=np.cumsum(x[:, ::-1], 1)[:, ::-1])
            rec("cs_both", s.run(tf.cumsum(x, 1, exclusive=True, reverse=True)))
            rec("cp", s.run(tf.cumprod(x, 0)), ref=np.cumprod(x, 0))
            rec("cp_ex", s.run(tf.cumprod(x, 1, exclusive=True)))
    """,
    "clip_ops": """
        x = np.array([[-3., 0.5, 4.]], np.float32)
        with tf.Session() as s:
            rec("cv", s.run(tf.clip_by_value(x, -1., 1.)), ref=np.clip(x, -1, 1))
            rec("cn", s.run(tf.clip_by_norm(x, 1.0)), ref=x / np.linalg.norm(x))
            rec("cn_ax", s.run(tf.clip_by_norm(x, 1.0, axes=[0])))
            t, n = tf.clip_by_global_norm([tf.constant(x), tf.constant([3.])], 2.0)
            g = np.sqrt((x ** 2).sum() + 9)
            rt, rn = s.run([t, n])
            rec("gn", rn, ref=g)
            rec("gt0", rt[0], ref=x * 2 / g)
            rec("an", s.run(tf.clip_by_average_norm(x, 1.0)))
            rec("gn_fn", s.run(tf.global_norm([tf.constant(x)])), ref=np.linalg.norm(x))
    """,
    "bitwise_shift": """
        with tf.Session() as s:
            a = tf.constant([1, 2, 12]); b = tf.constant([2, 1, 5])
            rec("and", s.run(tf.bitwise.bitwise_and(a, b)), ref=np.bitwise_and([1, 2, 12], [2, 1, 5]))
            rec("or", s.run(tf.bitwise.bitwise_or(a, b)), ref=np.bitwise_or([1, 2, 12], [2, 1, 5]))
            rec("xor", s.run(tf.bitwise.bitwise_xor(a, b)), ref=np.bitwise_xor([1, 2, 12], [2, 1, 5]))
            rec("inv", s.run(tf.bitwise.invert(a)), ref=np.invert([1, 2, 12]))
            rec("ls", s.run(tf.bitwise.left_shift(a, b)), ref=[4, 4, 384])
            rec("rs", s.run(tf.bitwise.right_shift(tf.constant([-8, 8]), tf.constant([1, 1]))), ref=[-4, 4])
    """,
    "complex_ops": """
        c = tf.complex(tf.constant([1., 2.]), tf.constant([3., -4.]))
        rec("dtype", c.dtype)
        with tf.Session() as s:
            rec("c", s.run(c))
            rec("real", s.run(tf.real(c)), ref=[1., 2.]); rec("imag", s.run(tf.imag(c)), ref=[3., -4.])
            rec("conj", s.run(tf.conj(c))); rec("angle", s.run(tf.angle(c)), ref=np.angle([1 + 3j, 2 - 4j]))
            rec("mul", s.run(c * c))
    """,
    "misc_math": """
        x = np.array([1., 4., 9.], np.float32)
        with tf.Session() as s:
            rec("l2n", s.run(tf.nn.l2_normalize(x, 0)), ref=x / np.linalg.norm(x))
            rec("l2n_dim", s.run(tf.nn.l2_normalize(x, dim=0)), ref=x / np.linalg.norm(x))
            rec("norm", s.run(tf.norm(x)), ref=np.linalg.norm(x))
            rec("norm1", s.run(tf.norm(x, ord=1)), ref=14.)
            rec("normi", s.run(tf.norm(x, ord=np.inf)), ref=9.)
            m = np.arange(6, dtype=np.float32).reshape(2, 3)
            rec("norm_ax", s.run(tf.norm(m, axis=1)), ref=np.linalg.norm(m, axis=1))
            rec("fro", s.run(tf.norm(m, ord="fro", axis=[0, 1])), ref=np.linalg.norm(m))
            rec("lbeta", s.run(tf.lbeta(tf.constant([1., 2.]))), ref=np.log(0.5))
            rec("zeta", s.run(tf.zeta(tf.constant(2.), tf.constant(1.))), ref=np.pi ** 2 / 6)
            rec("polyval", s.run(tf.math.polyval([1., 2., 3.], tf.constant(2.))), ref=11.)
            rec("xlogy", s.run(tf.math.xlogy(tf.constant([0., 2.]), tf.constant([0., 3.]))), ref=[0., 2 * np.log(3)])
            rec("is_nan", s.run(tf.is_nan(tf.constant([np.nan, 1., np.inf]))))
            rec("is_fin", s.run(tf.is_finite(tf.constant([np.nan, 1., np.inf]))))
            rec("scalar_mul", s.run(tf.scalar_mul(2., tf.constant([1., 2.]))), ref=[2., 4.])
            rec("count_nz", s.run(tf.count_nonzero(tf.constant([[0, 1], [2, 0]]), 1)), ref=[1, 1])
            rec("count_nz_dtype", tf.count_nonzero(tf.constant([1, 0])).dtype)
            rec("accum", s.run(tf.accumulate_n([tf.constant([1.]), tf.constant([2.])])), ref=[3.])
    """,
    "range_linspace": """
        with tf.Session() as s:
            rec("r1", s.run(tf.range(5)), ref=np.arange(5))
            rec("r2", s.run(tf.range(2, 10, 3)), ref=np.arange(2, 10, 3))
            rec("r3", s.run(tf.range(5, 0, -2)), ref=np.arange(5, 0, -2))
            rec("rf", s.run(tf.range(0., 1., 0.25)), ref=np.arange(0, 1, 0.25))
            rec("rdt", tf.range(3).dtype); rec("rdt2", tf.range(3.).dtype)
            rec("rdt3", tf.range(0, 3, dtype=tf.float32).dtype)
            rec("rsh", tf.range(2, 10, 3).get_shape())
            rec("ls", s.run(tf.linspace(0., 1., 5)), ref=np.linspace(0, 1, 5))
            rec("lsshape", tf.linspace(0., 1., 5).get_shape())
            rec("empty", s.run(tf.range(0)), ref=np.arange(0))
            rec("name", tf.range(3).op.name)
    """,
}
