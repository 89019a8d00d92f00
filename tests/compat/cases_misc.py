"""Cases: strings, sparse, linalg, tf.data, Saver round trips, summaries, random ops."""

MISC = {
    "string_ops": """
        s_ = tf.constant(["hello world", "a,b,,c", ""])
        with tf.Session() as s:
            rec("join", s.run(tf.string_join([s_, "!"], separator="-")))
            rec("split", s.run(tf.string_split(s_, ",")))
            rec("split_skip", s.run(tf.string_split(["a  b"], " ", skip_empty=False)))
            rec("ssplit", s.run(tf.strings.split(s_, ",").to_sparse() if hasattr(tf.strings.split(s_, ","), "to_sparse") else tf.string_split(s_, ",")))
            rec("substr", s.run(tf.substr(s_[:2], 1, 3))); rec("substr_err", err(lambda: s.run(tf.substr(s_, 1, 3)))); rec("len", s.run(tf.strings.length(s_)))
            rec("upper", s.run(tf.strings.upper(s_))); rec("strip", s.run(tf.strings.strip(tf.constant(["  x y  "]))))
            rec("regex", s.run(tf.regex_replace(s_, "[aeiou]", "_"))); rec("regex1", s.run(tf.regex_replace(s_, "l+", "L", replace_global=False)))
            rec("to_num", s.run(tf.string_to_number(["1.5", "-2e3"]))); rec("to_int", s.run(tf.string_to_number(["12"], tf.int32)))
            rec("to_num_err", err(lambda: s.run(tf.string_to_number(["x"]))))
            rec("as_string", s.run(tf.as_string([1.5, 2.25], precision=1))); rec("as_string_int", s.run(tf.as_string([7, -3], width=4)))
            rec("as_string_f", s.run(tf.as_string([1.0, 1e10, 1.5e-7])))
            rec("reduce_join", s.run(tf.reduce_join([["a", "b"], ["c", "d"]], 1, separator="+")))
            rec("hash", s.run(tf.string_to_hash_bucket_fast(["a", "b", "hello"], 100)))
            rec("hash_strong", s.run(tf.string_to_hash_bucket_strong(["a", "b"], 100, [1, 2])))
            rec("b64", s.run(tf.encode_base64(["hi?>"]))); rec("unicode", s.run(tf.strings.unicode_decode(["héllo"], "UTF-8").to_tensor() if False else tf.strings.length(["héllo"], unit="UTF8_CHAR")))
            rec("format", s.run(tf.strings.format("x={} y={}", (tf.constant(1), tf.constant([1.5, 2.])))))
            rec("regex_full", s.run(tf.strings.regex_full_match(s_, ".*o.*")))
            rec("bytes_split", s.run(tf.strings.bytes_split("abc")) if False else 0)
    """,
    "sparse_ops": """
        sp = tf.SparseTensor(indices=[[0, 1], [1, 0], [2, 3]], values=[1., 2., 3.], dense_shape=[3, 4])
        sp2 = tf.SparseTensor(indices=[[1, 0], [0, 1]], values=[5, 6], dense_shape=[2, 2])
        with tf.Session() as s:
            rec("dense", s.run(tf.sparse_tensor_to_dense(sp)))
            rec("reorder", s.run(tf.sparse_reorder(sp2)))
            rec("unordered_dense", err(lambda: s.run(tf.sparse_tensor_to_dense(sp2))))
            rec("add", s.run(tf.sparse_add(sp, tf.ones([3, 4]))))
            rec("sadd", s.run(tf.sparse_add(sp, sp)))
            rec("mm", s.run(tf.sparse_tensor_dense_matmul(sp, tf.ones([4, 2]))))
            rec("mm_adj", s.run(tf.sparse_tensor_dense_matmul(sp, tf.ones([3, 2]), adjoint_a=True)))
            rec("rsum", s.run(tf.sparse_reduce_sum(sp, 1))); rec("rsum_all", s.run(tf.sparse_reduce_sum(sp)))
            rec("rmax", s.run(tf.sparse_reduce_max(sp, 0)), ref=[2., 1., 0., 3.])
            rec("concat", s.run(tf.sparse_concat(1, [sp, sp])))
            rec("retain", s.run(tf.sparse_retain(sp, [True, False, True])))
            rec("reshape", s.run(tf.sparse_reshape(sp, [4, 3])))
            rec("slice", s.run(tf.sparse_slice(sp, [0, 0], [2, 2])))
            rec("transpose", s.run(tf.sparse_transpose(sp)))
            rec("fill", s.run(tf.sparse_fill_empty_rows(tf.SparseTensor([[1, 0]], [7], [3, 2]), -1)))
            rec("to_ind", s.run(tf.sparse_to_indicator(tf.SparseTensor([[0, 0], [1, 1]], [2, 0], [2, 2]), 3)))
            rec("s2d", s.run(tf.sparse_to_dense([[0, 1], [2, 0]], [3, 3], [4, 5], default_value=-1)))
            rec("softmax", s.run(tf.sparse_softmax(sp)))
            rec("maximum", s.run(tf.sparse_maximum(sp, sp)))
            rec("from_dense", s.run(tf.contrib.layers.dense_to_sparse(tf.constant([[0, 1], [2, 0]]))) if False else 0)
            rec("placeholder", s.run(tf.sparse_placeholder(tf.float32) if False else tf.constant(0)))
            sp_ph = tf.sparse_placeholder(tf.float32, shape=[2, 2])
            rec("sp_feed", s.run(tf.sparse_tensor_to_dense(sp_ph), {sp_ph: tf.SparseTensorValue([[0, 0]], [3.], [2, 2])}))
            rec("sp_feed_tuple", s.run(tf.sparse_tensor_to_dense(sp_ph), {sp_ph: ([[1, 1]], [4.], [2, 2])}))
            rec("shape", sp.get_shape()); rec("shape2", sp.dense_shape.dtype)
            rec("split", s.run(tf.sparse_split(sp_input=sp, num_split=2, axis=1)))
    """,
    "linalg_ops": """
        a = np.array([[4., 1., 0.5], [1., 3., 0.2], [0.5, 0.2, 2.]], np.float64)
        b = np.array([[1., 2.], [0., 1.], [3., -1.]], np.float64)
        with tf.Session() as s:
            rec("inv", s.run(tf.matrix_inverse(a)), ref=np.linalg.inv(a))
            rec("det", s.run(tf.matrix_determinant(a)), ref=np.linalg.det(a))
            rec("logdet", s.run(tf.linalg.logdet(a)), ref=np.log(np.linalg.det(a)))
            rec("slogdet", s.run(tf.linalg.slogdet(a)))
            rec("chol", s.run(tf.cholesky(a)), ref=np.linalg.cholesky(a))
            rec("solve", s.run(tf.matrix_solve(a, b)), ref=np.linalg.solve(a, b))
            rec("tri", s.run(tf.matrix_triangular_solve(np.tril(a), b)), ref=np.linalg.solve(np.tril(a), b))
            rec("tri_up", s.run(tf.matrix_triangular_solve(np.triu(a), b, lower=False)), ref=np.linalg.solve(np.triu(a), b))
            rec("cholsolve", s.run(tf.cholesky_solve(np.linalg.cholesky(a), b)), ref=np.linalg.solve(a, b))
            e, v = s.run(tf.self_adjoint_eig(a)); rec("eig", e, ref=np.linalg.eigvalsh(a)); rec("eigv_abs", np.abs(v))
            rec("eigvals", s.run(tf.self_adjoint_eigvals(a)), ref=np.linalg.eigvalsh(a))
            sv = s.run(tf.svd(b, compute_uv=False)); rec("sv", sv, ref=np.linalg.svd(b, compute_uv=False))
            s_, u, v = s.run(tf.svd(b)); rec("svd_recon", (u * s_) @ v.T, ref=b)
            q, r = s.run(tf.qr(b)); rec("qr_recon", q @ r, ref=b); rec("qr_shape", [q.shape, r.shape])
            rec("ls", s.run(tf.matrix_solve_ls(b, a[:, :1])), ref=np.linalg.lstsq(b, a[:, :1], rcond=None)[0], rtol=1e-4)
            rec("expm", s.run(tf.linalg.expm(a * 0.1)))
            rec("norm2", s.run(tf.linalg.norm(b, ord=2, axis=[0, 1])) if False else 0)
            rec("transpose", s.run(tf.matrix_transpose(b)), ref=b.T)
            rec("tridiag", s.run(tf.linalg.band_part(a, 1, 1)))
            rec("inv_err", err(lambda: s.run(tf.matrix_inverse(np.zeros((2, 2))))))
            rec("cross", s.run(tf.cross([1., 0., 0.], [0., 1., 0.])), ref=[0., 0., 1.])
            rec("batch_inv", s.run(tf.matrix_inverse(np.stack([a, a * 2]))), ref=np.linalg.inv(np.stack([a, a * 2])))
            g = tf.gradients(tf.reduce_sum(tf.matrix_inverse(tf.constant(a))), [])
        # tol: 1e-6 1e-8
    """,
    "data_pipelines": """
        def collect(ds, n=100):
            it = ds.make_one_shot_iterator() if hasattr(ds, "make_one_shot_iterator") else tf.data.make_one_shot_iterator(ds)
            nxt = it.get_next(); out = []
            with tf.Session() as s:
                try:
                    for _ in range(n):
                        out.append(s.run(nxt))
                except tf.errors.OutOfRangeError:
                    out.append("END")
            return out
        D = tf.data.Dataset
        rec("range", collect(D.range(5)))
        rec("batch", collect(D.range(7).batch(3)))
        rec("batch_drop", collect(D.range(7).batch(3, drop_remainder=True)))
        rec("map_filter", collect(D.range(10).map(lambda x: x * x).filter(lambda x: x % 2 == 0)))
        rec("zip", collect(D.zip((D.range(3), D.range(10, 13)))))
        rec("dict", collect(D.from_tensor_slices({"a": [1, 2], "b": [[1., 2.], [3., 4.]]})))
        rec("repeat_take", collect(D.range(3).repeat(2).take(5)))
        rec("skip", collect(D.range(5).skip(3)))
        rec("concat", collect(D.range(2).concatenate(D.range(5, 7))))
        rec("flat_map", collect(D.range(3).flat_map(lambda x: D.range(x))))
        rec("interleave", collect(D.range(1, 4).interleave(lambda x: D.from_tensors(x).repeat(x), cycle_length=2, block_length=1)))
        rec("padded", collect(D.range(1, 4).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None])))
        rec("shuffle_sorted", sorted(collect(D.range(10).shuffle(4, seed=7))[:-1]), ref=np.arange(10))
        rec("unbatch", collect(D.from_tensor_slices([[1, 2], [3, 4]]).apply(tf.data.experimental.unbatch())))
        rec("enumerate", collect(D.range(10, 13).apply(tf.data.experimental.enumerate_dataset())))
        rec("reduce_shapes", str(D.range(3).batch(2).output_shapes)); rec("types", str(D.range(3).output_types))
        rec("gen", collect(D.from_generator(lambda: iter([[1, 2], [3]]), tf.int32, tf.TensorShape([None]))))
        rec("prefetch_cache", collect(D.range(3).cache().prefetch(2)))
        ds = D.range(4)
        it = ds.make_initializable_iterator(); nx = it.get_next()
        with tf.Session() as s:
            s.run(it.initializer); a = [s.run(nx), s.run(nx)]; s.run(it.initializer); a.append(s.run(nx))
        rec("reinit", a)
        rec("shapes_static", str(D.from_tensor_slices(np.zeros((5, 3))).batch(2).output_shapes))
    """,
    "data_shuffle_seeded": """
        D = tf.data.Dataset
        for k, ds in [("shuffle", D.range(10).shuffle(4, seed=7)),
                      ("shuffle_rep", D.range(5).shuffle(5, seed=1, reshuffle_each_iteration=True).repeat(2))]:
            nxt = tf.data.make_one_shot_iterator(ds).get_next()
            with tf.Session() as s:
                rec(k, [s.run(nxt) for _ in range(10)])
    """,
    "saver_roundtrip": """
        import tempfile, os
        d = tempfile.mkdtemp()
        v = tf.Variable([1., 2.], name="v"); w = tf.Variable(3, name="scope/w")
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            p = saver.save(s, os.path.join(d, "model"), global_step=7)
            rec("path", os.path.basename(p))
            rec("latest", os.path.basename(tf.train.latest_checkpoint(d)))
            s.run(v.assign([5., 5.]))
            saver.restore(s, p); rec("restored", s.run(v))
        r = tf.train.NewCheckpointReader(p)
        rec("vars", sorted(r.get_variable_to_shape_map().items()))
        rec("list", sorted(tf.train.list_variables(p)))
        rec("load", tf.train.load_variable(p, "scope/w"))
        rec("saver_dict_err", err(lambda: tf.train.Saver({"x": tf.constant(1.)})))
        s2 = tf.train.Saver({"renamed": v})
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            p2 = s2.save(s, os.path.join(d, "m2"))
        rec("renamed", sorted(k for k, _ in tf.train.list_variables(p2)))
        tf.reset_default_graph()
        v2 = tf.Variable([0., 0.], name="v")
        with tf.Session() as s:
            rec("missing", err(lambda: tf.train.Saver().restore(s, p2)))
        rec("meta_exists", os.path.exists(p + ".meta"))
        rec("ckpt_state", os.path.basename(tf.train.get_checkpoint_state(d).model_checkpoint_path))
    """,
    "summary_protos": """
        a = tf.summary.scalar("loss", tf.constant(1.5))
        h = tf.summary.histogram("h", tf.constant([1., 2., 2., 3.]))
        t = tf.summary.text("t", tf.constant("hi"))
        with tf.name_scope("sc"):
            b = tf.summary.scalar("acc", tf.constant(0.5))
        m = tf.summary.merge_all()
        rec("names", [a.op.name, h.op.name, b.op.name, m.op.name])
        rec("coll", len(tf.get_collection(tf.GraphKeys.SUMMARIES)))
        with tf.Session() as s:
            pb = tf.Summary(); pb.ParseFromString(s.run(a))
            rec("scalar", [(v.tag, v.simple_value) for v in pb.value])
            pb = tf.Summary(); pb.ParseFromString(s.run(b))
            rec("scoped_tag", [v.tag for v in pb.value])
            pb = tf.Summary(); pb.ParseFromString(s.run(h))
            hv = pb.value[0].histo
            rec("histo", [hv.min, hv.max, hv.num, hv.sum, hv.sum_squares, len(hv.bucket), len(hv.bucket_limit)])
            rec("histo_buckets", [list(hv.bucket_limit), list(hv.bucket)])
            pb = tf.Summary(); pb.ParseFromString(s.run(m))
            rec("merged_tags", sorted(v.tag for v in pb.value))
    """,
    "random_poisson": """
        p = tf.random_poisson(3.0, [4], seed=11); p2 = tf.random_poisson([0.5, 25.0, 7.0], [3], seed=2, dtype=tf.int64)
        p3 = tf.random_poisson(120.0, [5], seed=3, dtype=tf.float64)
        with tf.Session() as s:
            rec("runs", [s.run([p, p2, p3]) for _ in range(2)])
    """,
    "random_gamma": """
        g = tf.random_gamma([3], 2.0, seed=9); g2 = tf.random_gamma([2, 2], [0.5, 1.0, 3.0], seed=4)
        g3 = tf.random_gamma([3], 1.5, dtype=tf.float64, seed=1)
        with tf.Session() as s:
            rec("runs", [s.run([g, g2, g3]) for _ in range(2)])
        rec("shape", g2.get_shape())
        # tol: 2e-6 1e-7
    """,
    "random_seeded_ops": """
        with tf.Session() as s:
            rec("ru", s.run(tf.random_uniform([5], seed=3)))
            rec("rn", s.run(tf.random_normal([2, 3], 1., 2., seed=4)))
            rec("tn", s.run(tf.truncated_normal([4], seed=5)))
            rec("ri", s.run(tf.random_uniform([6], 0, 10, tf.int32, seed=6)))
            rec("shuf", s.run(tf.random_shuffle(tf.range(8), seed=7)))
            sh = tf.random_shuffle(tf.reshape(tf.range(12), [6, 2]), seed=5)
            rec("shuf2", [s.run(sh), s.run(sh)])
            mn = tf.multinomial(tf.log([[0.2, 0.3, 0.5], [0.5, 0.25, 0.25]]), 7, seed=4)
            rec("mult2", [s.run(mn), s.run(mn)])
            rec("mult", s.run(tf.multinomial(tf.log([[0.2, 0.3, 0.5]]), 6, seed=8)))
            rec("crop", s.run(tf.random_crop(tf.reshape(tf.range(16), [4, 4]), [2, 2], seed=10)))
            rec("cat", s.run(tf.random.categorical(tf.log([[0.5, 0.5]]), 5, seed=12)))
            rec("flip", s.run(tf.image.random_flip_left_right(tf.reshape(tf.range(6), [1, 3, 2]), seed=13)))
            rec("stateless", s.run(tf.random.stateless_uniform([3], seed=[1, 2])))
            rec("stateless_n", s.run(tf.random.stateless_normal([3], seed=[1, 2])))
        # tol: 2e-6 1e-6
    """,
}

MISC.update({
    "summary_writer_events": """
        import tempfile, os, glob
        d = tempfile.mkdtemp()
        x = tf.placeholder(tf.float32, [])
        s1 = tf.summary.scalar("x", x); im = tf.summary.image("img", tf.zeros([2, 4, 4, 3]), max_outputs=1)
        au = tf.summary.audio("au", tf.zeros([1, 8]), 8000)
        m = tf.summary.merge([s1, im])
        w = tf.summary.FileWriter(d)
        with tf.Session() as s:
            for i in range(3):
                w.add_summary(s.run(m, {x: i * 1.5}), global_step=i)
            pb = tf.Summary(); pb.ParseFromString(s.run(im))
            rec("img_tags", [v.tag for v in pb.value]); rec("img_hw", [(v.image.height, v.image.width, v.image.colorspace) for v in pb.value])
            pb = tf.Summary(); pb.ParseFromString(s.run(au))
            rec("audio", [(v.tag, v.audio.sample_rate, v.audio.num_channels, v.audio.length_frames) for v in pb.value])
        w.add_graph(tf.get_default_graph()); w.flush(); w.close()
        files = glob.glob(os.path.join(d, "events.out.tfevents.*"))
        rec("nfiles", len(files))
        evs = list(tf.train.summary_iterator(files[0]))
        rec("first", evs[0].file_version)
        rec("scalars", [(e.step, v.tag, v.simple_value) for e in evs for v in e.summary.value if v.HasField("simple_value")])
        rec("has_graph", any(e.HasField("graph_def") for e in evs))
    """,
    "string_ops_more": """
        with tf.Session() as s:
            rec("char_split", s.run(tf.string_split(["abc", "de"], "")))
            rec("multi_delim", s.run(tf.string_split(["a,b;c"], ",;")))
            rec("substr_utf8", s.run(tf.strings.substr(["héllo"], 1, 2, unit="UTF8_CHAR")))
            rec("substr_neg", s.run(tf.substr(["hello"], -3, 2)))
            rec("join_scalar", s.run(tf.strings.join(["a", "b"], separator="/")))
            rec("reduce_join_all", s.run(tf.reduce_join(["a", "b", "c"])))
            rec("lower", s.run(tf.strings.lower(["AbC"])))
            rec("to_num_f64", s.run(tf.strings.to_number(["1e-3"], tf.float64)))
            rec("as_str_bool", s.run(tf.as_string([True, False])))
            rec("as_str_sci", s.run(tf.as_string([12345.678], scientific=True, precision=2)))
            rec("as_str_fill", s.run(tf.as_string([5], width=3, fill="0")))
            rec("hash_fast_str", s.run(tf.strings.to_hash_bucket_fast(["tensorflow"], 1000)))
            rec("ngrams", s.run(tf.strings.ngrams(["a", "b", "c"], 2)) if hasattr(tf.strings, "ngrams") else 0)
            rec("unicode_script", 0)
            rec("decode_b64", s.run(tf.decode_base64(tf.encode_base64(["xyz?"]))))
    """,
})

MISC.update({
    "saver_restore_errors": """
        import tempfile, os
        d = tempfile.mkdtemp()
        v = tf.Variable([1., 2.], name="v")
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(v.initializer); p = saver.save(s, os.path.join(d, "m"))
        tf.reset_default_graph()
        v2 = tf.Variable([1., 2., 3.], name="v")
        with tf.Session() as s:
            rec("shape_mismatch", err(lambda: tf.train.Saver().restore(s, p)))
        tf.reset_default_graph()
        v3 = tf.Variable([1, 2], name="v")
        with tf.Session() as s:
            rec("dtype_mismatch", err(lambda: tf.train.Saver().restore(s, p)))
        tf.reset_default_graph()
        v4 = tf.Variable([0., 0.], name="v")
        with tf.Session() as s:
            try:  # TF 1.x raised NotFoundError, later ValueError: tideflow's error is both
                tf.train.Saver().restore(s, os.path.join(d, "nothere"))
                rec("bad_path", None)
            except ValueError:
                rec("bad_path", "ValueError")
            rec("none_path", err(lambda: tf.train.Saver().restore(s, None)))
        rec("latest_none", tf.train.latest_checkpoint(os.path.join(d, "empty_dir")))
    """,
})
