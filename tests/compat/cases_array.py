"""Cases: shapes, slicing, gather/scatter, where, concat/stack/split/tile/pad, sorting."""

ARRAY = {
    "strided_slice_basic": """
        x = np.arange(60).reshape(3, 4, 5)
        a = tf.constant(x)
        with tf.Session() as s:
            for key, t, r in [("a", a[1], x[1]), ("b", a[:, 1:3], x[:, 1:3]), ("c", a[..., ::2], x[..., ::2]),
                              ("d", a[::-1, ::-2, 1], x[::-1, ::-2, 1]), ("e", a[tf.newaxis, 1, ..., 2], x[None, 1, ..., 2]),
                              ("f", a[-1, -2:], x[-1, -2:]), ("g", a[1:100], x[1:100]), ("h", a[5:], x[5:]),
                              ("i", a[:, :, -100:2], x[:, :, -100:2]), ("j", a[2:0:-1], x[2:0:-1])]:
                rec(key, s.run(t), ref=r)
                rec(key + "_shape", t.get_shape())
    """,
    "strided_slice_masks": """
        x = np.arange(24).reshape(2, 3, 4)
        a = tf.constant(x)
        t = tf.strided_slice(a, [0, 1, 0], [2, 3, 4], [1, 1, 2], begin_mask=1, end_mask=4, shrink_axis_mask=0)
        t2 = tf.strided_slice(a, [1, 0], [2, 0], [1, 1], shrink_axis_mask=1, ellipsis_mask=2)
        t3 = tf.strided_slice(a, [0, 0], [1, 1], [1, 1], new_axis_mask=1)
        with tf.Session() as s:
            rec("t", s.run(t), ref=x[:, 1:3, 0::2]); rec("ts", t.get_shape())
            rec("t2", s.run(t2), ref=x[1, ...]); rec("t2s", t2.get_shape())
            rec("t3", s.run(t3), ref=x[np.newaxis, 0:1]); rec("t3s", t3.get_shape())
            rec("err", err(lambda: s.run(a[5])))
        rec("err_static", err(lambda: a[:, :, :, 1]))
    """,
    "slice_partial_shapes": """
        p = tf.placeholder(tf.float32, [None, 4, 5])
        rec("a", p[:, 1:3].get_shape()); rec("b", p[0].get_shape()); rec("c", p[..., 0].get_shape())
        rec("d", p[1:].get_shape()); rec("e", p[:, ::-1].get_shape())
        i = tf.placeholder(tf.int32, [])
        rec("f", p[:, i:].get_shape()); rec("g", p[i].get_shape())
        u = tf.placeholder(tf.float32)
        rec("h", u[0].get_shape()); rec("k", u[..., 0].get_shape())
        rec("sl", tf.slice(p, [0, 1, 0], [-1, 2, 3]).get_shape())
        rec("sl2", tf.slice(p, [0, 1, 0], [2, -1, i]).get_shape())
        with tf.Session() as s:
            rec("slv", s.run(tf.slice(p, [0, 1, 0], [-1, 2, 3]), {p: np.ones((2, 4, 5))}), ref=np.ones((2, 2, 3)))
    """,
    "slice_op_errors": """
        a = tf.zeros([3, 4])
        rec("e1", err(lambda: tf.slice(a, [0, 0], [4, 1])))
        rec("e2", err(lambda: tf.slice(a, [0], [1])))
    """,
    "gather": """
        x = np.arange(12).reshape(3, 4)
        with tf.Session() as s:
            rec("g0", s.run(tf.gather(x, [2, 0, 2])), ref=x[[2, 0, 2]])
            rec("g1", s.run(tf.gather(x, [[1], [3]], axis=1)), ref=x[:, [[1], [3]]])
            rec("gs", tf.gather(x, [[1], [3]], axis=1).get_shape())
            rec("g_neg_axis", s.run(tf.gather(x, [0], axis=-1)), ref=x[:, [0]])
            rec("g_oob", err(lambda: s.run(tf.gather(x, [3]))))
            rec("g_oob_neg", err(lambda: s.run(tf.gather(x, [-1]))))
            pb, ib = np.arange(24).reshape(2, 3, 4), np.array([[0, 2], [1, 0]])
            rec("gb", s.run(tf.gather(pb, ib, batch_dims=1)), ref=np.stack([pb[b][ib[b]] for b in range(2)]))
            rec("gb_shape", tf.gather(pb, ib, batch_dims=1).get_shape())
            rec("gb2", s.run(tf.gather(pb, [[[0], [1], [3]], [[1], [1], [0]]], batch_dims=2)),
                ref=[[[0], [5], [11]], [[13], [17], [20]]])
            rec("gnd", s.run(tf.gather_nd(x, [[0, 1], [2, 3]])), ref=[1, 11])
            rec("gnd2", s.run(tf.gather_nd(x, [[1], [0]])), ref=x[[1, 0]])
            rec("gnd3", s.run(tf.gather_nd(np.arange(24).reshape(2, 3, 4), [[[0, 1]], [[1, 2]]])))
            rec("gnd_oob", err(lambda: s.run(tf.gather_nd(x, [[3, 0]]))))
        p = tf.placeholder(tf.float32, [None, 5])
        rec("gps", tf.gather(p, tf.placeholder(tf.int32, [None, 2])).get_shape())
        rec("gndps", tf.gather_nd(p, tf.placeholder(tf.int32, [7, 2])).get_shape())
    """,
    "scatter_nd_family": """
        with tf.Session() as s:
            rec("snd", s.run(tf.scatter_nd([[0], [2], [0]], [1., 2., 3.], [4])), ref=[4., 0., 2., 0.])
            rec("snd2", s.run(tf.scatter_nd([[1, 1]], [[5]], [2, 2, 1])))
            rec("tsu", s.run(tf.tensor_scatter_update(tf.zeros([4]), [[1], [3]], [1., 2.])), ref=[0., 1., 0., 2.])
            rec("tsa", s.run(tf.tensor_scatter_add(tf.ones([4]), [[1], [1]], [1., 2.])), ref=[1., 4., 1., 1.])
            rec("tss", s.run(tf.tensor_scatter_sub(tf.ones([4]), [[1]], [1.])), ref=[1., 0., 1., 1.])
            rec("oob", err(lambda: s.run(tf.scatter_nd([[5]], [1.], [4]))))
    """,
    "scatter_variable_ops": """
        v = tf.Variable([1., 2., 3., 4.])
        ops_ = [tf.scatter_update(v, [0, 2], [10., 30.]), tf.scatter_add(v, [1, 1], [1., 1.]),
                tf.scatter_sub(v, [3], [4.]), tf.scatter_mul(v, [0], [2.]), tf.scatter_div(v, [2], [3.]),
                tf.scatter_max(v, [1], [100.]), tf.scatter_min(v, [0], [-1.]),
                tf.scatter_nd_update(v, [[3]], [7.]), tf.scatter_nd_add(v, [[3]], [1.])]
        with tf.Session() as s:
            s.run(v.initializer)
            for i, o in enumerate(ops_):
                rec("s%d" % i, s.run(o))
            rec("dtype", ops_[0].dtype)
    """,
    "where_ops": """
        c = np.array([[True, False], [False, True]])
        with tf.Session() as s:
            rec("w1", s.run(tf.where(c)), ref=np.argwhere(c))
            rec("w1dtype", tf.where(c).dtype); rec("w1shape", tf.where(c).get_shape())
            rec("w3", s.run(tf.where(c, [[1, 2], [3, 4]], [[5, 6], [7, 8]])), ref=np.where(c, [[1, 2], [3, 4]], [[5, 6], [7, 8]]))
            rec("w3vec", s.run(tf.where([True, False], [[1, 2], [3, 4]], [[5, 6], [7, 8]])), ref=[[1, 2], [7, 8]])
            rec("w3err", err(lambda: tf.where([True, False, True], [[1, 2], [3, 4]], [[5, 6], [7, 8]])))
            rec("wv2", s.run(tf.where_v2([True, False], [1, 2], 0)), ref=[1, 0])
            rec("w1num", s.run(tf.where([0, 3, 0, 1])), ref=[[1], [3]])
    """,
    "concat_stack_split": """
        a = np.arange(6).reshape(2, 3); b = np.arange(6, 12).reshape(2, 3)
        with tf.Session() as s:
            rec("c0", s.run(tf.concat([a, b], 0)), ref=np.concatenate([a, b], 0))
            rec("c1", s.run(tf.concat([a, b], -1)), ref=np.concatenate([a, b], 1))
            rec("c_single", s.run(tf.concat([a], 0)), ref=a)
            rec("c_err", err(lambda: tf.concat([a, np.zeros((3, 3), np.int64)], 1)))
            rec("c_dtype_err", err(lambda: tf.concat([tf.constant(a), tf.constant(b, tf.float32)], 0)))
            rec("st", s.run(tf.stack([a, b], 1)), ref=np.stack([a, b], 1))
            rec("ust", s.run(tf.unstack(a, axis=1)), ref=list(a.T))
            rec("ust_n", len(tf.unstack(tf.placeholder(tf.float32, [None, 3]), axis=1)))
            rec("ust_err", err(lambda: tf.unstack(tf.placeholder(tf.float32, [None, 3]))))
            rec("sp", s.run(tf.split(np.arange(12).reshape(2, 6), 3, axis=1)))
            rec("spv", s.run(tf.split(np.arange(12).reshape(2, 6), [1, 2, -1], 1)))
            rec("sp_err", err(lambda: tf.split(np.arange(12).reshape(2, 6), 4, axis=1)))
            rec("pack", s.run(tf.stack([1, 2, 3])), ref=[1, 2, 3])
            rec("parallel", s.run(tf.parallel_stack([a, b])), ref=np.stack([a, b]))
            p = tf.placeholder(tf.float32, [None, 3])
            rec("cshape", tf.concat([p, p], 0).get_shape()); rec("cshape1", tf.concat([p, p], 1).get_shape())
    """,
    "concat_names": """
        a = np.arange(6).reshape(2, 3); b = np.arange(6, 12).reshape(2, 3)
        rec("names", [tf.concat([a, b], 0).op.name, tf.stack([tf.constant(a), b]).op.type,
                      tf.concat([a, b], 0).op.type, tf.concat([a], 0).name, tf.concat([a], 0, name="x").name,
                      tf.concat([a, b], 1).name, tf.stack([tf.constant(a), b], name="st").name, tf.unstack(a)[1].name,
                      tf.split(a, 3, 1)[2].name, tf.split(a, [1, 2], 1)[1].name])
    """,
    "tile_pad_reverse": """
        a = np.arange(6).reshape(2, 3)
        with tf.Session() as s:
            rec("tile", s.run(tf.tile(a, [2, 1])), ref=np.tile(a, [2, 1]))
            rec("pad", s.run(tf.pad(a, [[1, 0], [0, 2]])), ref=np.pad(a, [[1, 0], [0, 2]]))
            rec("pad_c", s.run(tf.pad(a, [[1, 0], [0, 2]], constant_values=7)), ref=np.pad(a, [[1, 0], [0, 2]], constant_values=7))
            rec("pad_r", s.run(tf.pad(a, [[1, 1], [2, 2]], "REFLECT")), ref=np.pad(a, [[1, 1], [2, 2]], "reflect"))
            rec("pad_s", s.run(tf.pad(a, [[1, 1], [2, 2]], "SYMMETRIC")), ref=np.pad(a, [[1, 1], [2, 2]], "symmetric"))
            rec("pad_lower", s.run(tf.pad(a, [[1, 1], [0, 0]], "reflect")))
            rec("rev", s.run(tf.reverse(a, [1])), ref=a[:, ::-1])
            rec("rev_neg", s.run(tf.reverse(a, [-1, 0])), ref=a[::-1, ::-1])
            rec("rev_v2", s.run(tf.reverse_v2(a, [0])), ref=a[::-1])
            rec("rseq", s.run(tf.reverse_sequence(np.arange(12).reshape(3, 4), [2, 3, 0], seq_axis=1, batch_axis=0)),
                ref=[[1, 0, 2, 3], [6, 5, 4, 7], [8, 9, 10, 11]])
            p = tf.placeholder(tf.float32, [None, 3])
            rec("tshape", tf.tile(p, [2, 2]).get_shape()); rec("pshape", tf.pad(p, [[1, 1], [0, 1]]).get_shape())
    """,
    "reshape_squeeze_expand": """
        a = np.arange(12)
        with tf.Session() as s:
            rec("r", s.run(tf.reshape(a, [3, -1])), ref=a.reshape(3, -1))
            rec("r_err", err(lambda: tf.reshape(a, [5, -1])))
            p = tf.placeholder(tf.float32, [None, 4])
            rec("rs", tf.reshape(p, [-1, 2, 2]).get_shape()); rec("rs2", tf.reshape(p, [2, -1]).get_shape())
            rec("rs_run_err", err(lambda: s.run(tf.reshape(p, [3, -1]), {p: np.ones((2, 4))})))
            rec("sq", s.run(tf.squeeze(np.zeros((1, 3, 1)))).shape)
            rec("sq_ax", tf.squeeze(tf.zeros([1, 3, 1]), [2]).get_shape())
            rec("sq_err", err(lambda: tf.squeeze(tf.zeros([1, 3, 1]), [1])))
            rec("sq_p", tf.squeeze(tf.placeholder(tf.float32, [None, 1, 3])).get_shape())
            rec("ed", tf.expand_dims(tf.zeros([2, 3]), -1).get_shape()); rec("ed0", tf.expand_dims(tf.zeros([2, 3]), 0).get_shape())
            rec("ed_dim", tf.expand_dims(tf.zeros([2]), dim=1).get_shape())
            rec("tr", s.run(tf.transpose(np.arange(6).reshape(2, 3))), ref=np.arange(6).reshape(2, 3).T)
            rec("tr_perm", tf.transpose(tf.zeros([2, 3, 4]), [1, 2, 0]).get_shape())
            rec("shape", s.run(tf.shape(tf.zeros([2, 3])))); rec("shape_dtype", tf.shape(tf.zeros([2])).dtype)
            rec("size", s.run(tf.size(tf.zeros([2, 3])))); rec("rank", s.run(tf.rank(tf.zeros([2, 3]))))
            rec("shape_n", s.run(tf.shape_n([tf.zeros([2]), tf.zeros([3, 1])])))
    """,
    "stricter_static_checks": """
        a = np.arange(12)
        rec("pad_err", err(lambda: tf.pad(np.zeros((2, 3)), [[3, 3], [0, 0]], "REFLECT")))
        rec("r_err2", err(lambda: tf.reshape(a, [-1, -1])))
        rec("tr_err", err(lambda: tf.transpose(tf.zeros([2, 3]), [0, 0])))
    """,
    "fill_zeros_ones_like": """
        with tf.Session() as s:
            rec("fill", s.run(tf.fill([2, 3], 7)), ref=np.full((2, 3), 7))
            rec("fill_dtype", tf.fill([2], 7.).dtype)
            rec("zl", s.run(tf.zeros_like(tf.constant([[1, 2]])))); rec("zld", tf.zeros_like(tf.constant([1.]), dtype=tf.int32).dtype)
            rec("ol", s.run(tf.ones_like([True, False])))
            rec("ones", s.run(tf.ones([2], tf.int64))); rec("zeros_shape", tf.zeros(tf.placeholder(tf.int32, [2])).get_shape())
            rec("fill_shape", tf.fill(tf.placeholder(tf.int32, [3]), 1.).get_shape())
            rec("eye", s.run(tf.eye(2, 3)), ref=np.eye(2, 3)); rec("eye_b", s.run(tf.eye(2, batch_shape=[2])))
    """,
    "one_hot_sequence_mask": """
        with tf.Session() as s:
            rec("oh", s.run(tf.one_hot([0, 2, -1, 5], 3)), ref=[[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
            rec("oh_vals", s.run(tf.one_hot([1], 3, on_value=5, off_value=-1)), ref=[[-1, 5, -1]])
            rec("oh_axis", s.run(tf.one_hot([[0, 1]], 2, axis=0)), ref=np.eye(2)[[[0, 1]]].transpose(2, 0, 1))
            rec("oh_dtype", tf.one_hot([1], 3).dtype); rec("oh_dtype2", tf.one_hot([1], 3, on_value=1, off_value=0).dtype)
            rec("sm", s.run(tf.sequence_mask([1, 3, 0], 4)), ref=np.arange(4) < np.array([[1], [3], [0]]))
            rec("sm_nomax", s.run(tf.sequence_mask([1, 3]))); rec("sm_dt", tf.sequence_mask([1], 2, dtype=tf.float32).dtype)
            rec("sm_shape", tf.sequence_mask(tf.placeholder(tf.int32, [None]), 5).get_shape())
    """,
    "top_k_sort_unique": """
        x = np.array([3, 1, 3, 2, 1, 3], np.int32)
        with tf.Session() as s:
            v, i = s.run(tf.nn.top_k(x, 4))
            rec("v", v); rec("i", i)
            v, i = s.run(tf.nn.top_k([[1., 5., 5.], [2., 2., 0.]], 2, sorted=True))
            rec("v2", v); rec("i2", i)
            rec("k_err", err(lambda: tf.nn.top_k([1, 2], 3)))
            u, ui = s.run(tf.unique(x)); rec("u", u, ref=[3, 1, 2]); rec("ui", ui, ref=[0, 1, 0, 2, 1, 0])
            u, ui, c = s.run(tf.unique_with_counts(x)); rec("c", c, ref=[3, 2, 1])
            rec("as", s.run(tf.argsort(x)), ref=np.argsort(x, kind="stable"))
            rec("as_desc", s.run(tf.argsort(x, direction="DESCENDING")))
            rec("sort", s.run(tf.sort(x, direction="DESCENDING")), ref=np.sort(x)[::-1])
            rec("in_top_k", s.run(tf.nn.in_top_k([[1., 3., 3.], [2., 1., 0.]], [2, 1], 1)))
            rec("setdiff", s.run(tf.setdiff1d([1, 2, 3, 4, 2], [2, 4])))
            rec("bincount", s.run(tf.bincount([1, 1, 3])), ref=[0, 2, 0, 1])
            rec("bincount_w", s.run(tf.bincount([1, 1, 3], weights=[.5, 1., 2.], minlength=5)))
    """,
    "segment_ops": """
        d = np.array([[1., 2.], [3., 4.], [5., 6.], [7., 8.]], np.float32)
        seg = [0, 0, 2, 2]
        with tf.Session() as s:
            rec("ss", s.run(tf.segment_sum(d, seg)), ref=[[4., 6.], [0., 0.], [12., 14.]])
            rec("sm", s.run(tf.segment_mean(d, seg))); rec("smax", s.run(tf.segment_max(d, seg)))
            rec("smin", s.run(tf.segment_min(d, seg))); rec("sprod", s.run(tf.segment_prod(d, seg)))
            rec("uss", s.run(tf.unsorted_segment_sum(d, [1, 0, 1, 3], 4)))
            rec("usmax", s.run(tf.unsorted_segment_max(d, [1, 0, 1, 3], 4)))
            rec("usmin", s.run(tf.unsorted_segment_min(d, [1, 0, 1, 3], 4)))
            rec("usprod", s.run(tf.unsorted_segment_prod(d, [1, 0, 1, 3], 4)))
            rec("usmean", s.run(tf.unsorted_segment_mean(d, [1, 0, 1, 3], 4)))
            rec("ussqrt", s.run(tf.unsorted_segment_sqrt_n(d, [1, 0, 1, 3], 4)))
            rec("uss_neg", s.run(tf.unsorted_segment_sum(d, [1, -1, 1, 0], 2)))
            rec("sps", s.run(tf.sparse_segment_sum(d, [0, 1, 3], [0, 0, 1])))
            rec("spm", s.run(tf.sparse_segment_mean(d, [0, 1, 3], [0, 0, 1])))
            rec("spsq", s.run(tf.sparse_segment_sqrt_n(d, [0, 1, 3], [0, 0, 1])))
            rec("unsorted_err", err(lambda: s.run(tf.segment_sum(d, [1, 0, 0, 0]))))
        rec("ss_shape", tf.segment_sum(d, seg).get_shape())
        rec("uss_shape", tf.unsorted_segment_sum(d, seg, 5).get_shape())
    """,
    "boolean_mask_dynamic_partition": """
        a = np.arange(12).reshape(4, 3)
        with tf.Session() as s:
            rec("bm", s.run(tf.boolean_mask(a, [True, False, True, False])), ref=a[[0, 2]])
            rec("bm2", s.run(tf.boolean_mask(a, a % 2 == 0)), ref=a[a % 2 == 0])
            rec("bm_axis", s.run(tf.boolean_mask(a, [True, False, True], axis=1)), ref=a[:, [0, 2]])
            rec("bm_shape", tf.boolean_mask(a, [True, False, True, False]).get_shape())
            p = s.run(tf.dynamic_partition(a, [0, 1, 0, 2], 3)); rec("dp", p)
            rec("ds", s.run(tf.dynamic_stitch([[0, 2], [1, 3]], [[[1, 1]], [[2, 2]]][0:0] or [[1., 2.], [3., 4.]])))
            rec("ds2", s.run(tf.dynamic_stitch([[1, 0], [2, 1]], [[10, 20], [30, 40]])), ref=[20, 40, 30])
    """,
    "meshgrid_broadcast_to": """
        with tf.Session() as s:
            X, Y = s.run(tf.meshgrid([1, 2, 3], [4, 5]))
            rX, rY = np.meshgrid([1, 2, 3], [4, 5])
            rec("X", X, ref=rX); rec("Y", Y, ref=rY)
            X, Y = s.run(tf.meshgrid([1, 2, 3], [4, 5], indexing="ij")); rec("Xij", X)
            rec("bt", s.run(tf.broadcast_to([1, 2], [3, 2])), ref=np.broadcast_to([1, 2], (3, 2)))
            rec("bsa", s.run(tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])).as_list() and tf.constant(0)))
            rec("bsd", s.run(tf.broadcast_dynamic_shape([2, 1], [1, 3])), ref=[2, 3])
            rec("bss", tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([3])))
            rec("bss_err", err(lambda: tf.broadcast_static_shape(tf.TensorShape([2]), tf.TensorShape([3]))))
    """,
    "matrix_band_diag": """
        m = np.arange(16, dtype=np.float32).reshape(4, 4)
        with tf.Session() as s:
            rec("band", s.run(tf.matrix_band_part(m, 1, 0)), ref=np.tril(np.triu(m, -1)))
            rec("band_all", s.run(tf.matrix_band_part(m, -1, 0)), ref=np.tril(m))
            rec("diag", s.run(tf.matrix_diag([1., 2.])), ref=np.diag([1., 2.]))
            rec("diag_part", s.run(tf.matrix_diag_part(m)), ref=np.diag(m))
            rec("set_diag", s.run(tf.matrix_set_diag(m, [0., 0., 0., 0.])), ref=m - np.diag(np.diag(m)))
            rec("diag2", s.run(tf.diag([1, 2])), ref=np.diag([1, 2])); rec("trace", s.run(tf.trace(m)), ref=np.trace(m))
    """,
    "space_depth_batch": """
        x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
        with tf.Session() as s:
            d = s.run(tf.space_to_depth(x, 2)); rec("s2d", d)
            rec("d2s", s.run(tf.depth_to_space(d, 2)), ref=x)
            b = s.run(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])); rec("s2b", b)
            rec("b2s", s.run(tf.batch_to_space_nd(b, [2, 2], [[0, 0], [0, 0]])), ref=x)
            rec("s2b_old", s.run(tf.space_to_batch(x, [[0, 0], [0, 0]], 2)))
    """,
    "constant_conversion": """
        rec("c1", tf.constant([1, 2]).dtype); rec("c2", tf.constant(1.5).dtype); rec("c3", tf.constant(True).dtype)
        rec("c4", tf.constant("a").dtype); rec("c5", tf.constant(np.float64(1)).dtype); rec("c6", tf.constant(2 ** 40).dtype)
        rec("c7", tf.constant([1, 2.]).dtype); rec("c8", tf.constant(np.array([1], np.int16)).dtype)
        rec("c9", tf.constant(5, shape=[2, 2]).get_shape()); rec("c10", tf.constant([1, 2], dtype=tf.float32).dtype)
        rec("e1", err(lambda: tf.constant([1.5], dtype=tf.int32)))
        rec("e2", err(lambda: tf.constant([[1], [1, 2]])))
        rec("e3", err(lambda: tf.constant([1, 2, 3], shape=[2])))
        rec("e5", err(lambda: tf.convert_to_tensor([1, "a"])))
        rec("name", tf.constant(1, name="x").name); rec("name2", tf.constant(1, name="x").name)
        rec("ctt", tf.convert_to_tensor([1., 2.], dtype=tf.float64).dtype)
        rec("ctt_err", err(lambda: tf.convert_to_tensor(tf.constant([1.]), dtype=tf.float64)))
        rec("ctt_pref", tf.convert_to_tensor(1, preferred_dtype=tf.float32).dtype)
        with tf.Session() as s:
            rec("v", s.run(tf.constant([[1, 2], [3, 4]], shape=[4])), ref=[1, 2, 3, 4])
            rec("vs", s.run(tf.constant([b"ab", b"c"])))
            rec("vu", s.run(tf.constant(u"h\\u00e9")))
    """,
}
