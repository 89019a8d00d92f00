"""Cases: tf.nn (conv, pooling, softmax and losses, normalization), tf.image resizing."""

NN = {
    "conv2d_padding_strides": """
        x = tf.constant(np.arange(2 * 7 * 6 * 3, dtype=np.float32).reshape(2, 7, 6, 3) / 100.)
        w = tf.constant(np.linspace(-1, 1, 3 * 2 * 3 * 4, dtype=np.float32).reshape(3, 2, 3, 4))
        with tf.Session() as s:
            for pad in ["SAME", "VALID"]:
                for st in [[1, 1, 1, 1], [1, 2, 3, 1]]:
                    y = tf.nn.conv2d(x, w, st, pad)
                    rec("%s_%d" % (pad, st[1]), s.run(y)); rec("%s_%d_shape" % (pad, st[1]), y.get_shape())
            yd = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
            rec("dil", s.run(yd))
            ya = tf.nn.atrous_conv2d(x, w, 2, "VALID"); rec("atrous", s.run(ya))
            dw = tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 3, 2]) * 0.5, [1, 1, 1, 1], "SAME"); rec("dw", s.run(dw))
            sep = tf.nn.separable_conv2d(x, tf.ones([2, 2, 3, 2]), tf.ones([1, 1, 6, 4]) * 0.1, [1, 1, 1, 1], "VALID")
            rec("sep", s.run(sep))
            g = tf.gradients(tf.reduce_sum(tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME") ** 2), [x, w])
            rec("gx", s.run(g[0])); rec("gw", s.run(g[1]))
            rec("c1d", s.run(tf.nn.conv1d(x[:, 0], w[0], 2, "SAME")))
            tr = tf.nn.conv2d_transpose(tf.ones([1, 3, 3, 4]), w, [1, 6, 5, 3], [1, 2, 2, 1], "SAME")
            rec("tr", s.run(tr)); rec("tr_shape", tr.get_shape())
        p = tf.placeholder(tf.float32, [None, None, 9, 3])
        rec("pshape", tf.nn.conv2d(p, w, [1, 2, 2, 1], "SAME").get_shape())
        rec("bad_ch", err(lambda: tf.nn.conv2d(x, tf.zeros([3, 3, 2, 4]), [1, 1, 1, 1], "SAME")))
        rec("bad_pad", err(lambda: tf.nn.conv2d(x, w, [1, 1, 1, 1], "FULL")))
        # tol: 1e-4 1e-4
    """,
    "conv3d_and_nchw_shapes": """
        x = tf.constant(np.linspace(-1, 1, 1 * 4 * 5 * 6 * 2, dtype=np.float32).reshape(1, 4, 5, 6, 2))
        w = tf.constant(np.linspace(-1, 1, 2 * 2 * 2 * 2 * 3, dtype=np.float32).reshape(2, 2, 2, 2, 3))
        with tf.Session() as s:
            y = tf.nn.conv3d(x, w, [1, 1, 2, 2, 1], "SAME"); rec("c3", s.run(y)); rec("c3s", y.get_shape())
            m = tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"); rec("mp3", s.run(m))
        rec("nchw_shape", tf.nn.conv2d(tf.zeros([1, 3, 8, 8]), tf.zeros([3, 3, 3, 5]), [1, 1, 2, 2], "SAME", data_format="NCHW").get_shape())
        # tol: 1e-4 1e-5
    """,
    "pooling": """
        x = tf.constant(np.random.RandomState(0).randn(2, 5, 7, 3).astype(np.float32))
        with tf.Session() as s:
            for pad in ["SAME", "VALID"]:
                mp = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], pad); ap = tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], pad)
                rec("max_" + pad, s.run(mp)); rec("avg_" + pad, s.run(ap)); rec("shape_" + pad, mp.get_shape())
                g = tf.gradients(tf.reduce_sum(mp * mp) + tf.reduce_sum(ap * ap), x)[0]
                rec("grad_" + pad, s.run(g))
            v, a = tf.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
            rec("mpa", s.run([v, a]))
            rec("pool", s.run(tf.nn.pool(x, [2, 2], "AVG", "SAME", strides=[2, 2])))
            rec("mp_v2", s.run(tf.nn.max_pool_v2(x, 2, 2, "VALID")) if hasattr(tf.nn, "max_pool_v2") else 0)
            rec("frac", 0)
        # tol: 1e-5 1e-6
    """,
    "softmax_and_losses": """
        logits = tf.constant([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])
        labels = tf.constant([[0.7, 0.2, 0.1], [0.0, 1.0, 0.0]])
        with tf.Session() as s:
            lg = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, -1.0]])
            sm = np.exp(lg) / np.exp(lg).sum(1, keepdims=True)
            rec("sm", s.run(tf.nn.softmax(logits)), ref=sm); rec("lsm", s.run(tf.nn.log_softmax(logits)), ref=np.log(sm))
            rec("sm_axis", s.run(tf.nn.softmax(logits, axis=0))); rec("sm_dim", s.run(tf.nn.softmax(logits, dim=0)))
            rec("ce", s.run(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)))
            rec("ce_v2", s.run(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)))
            rec("sce", s.run(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=logits)), ref=-np.log(sm[[0, 1], [0, 1]]))
            rec("sce_oob", err(lambda: s.run(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 3], logits=logits))))
            rec("sce_rank", err(lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0, 1]], logits=logits)))
            rec("positional", err(lambda: tf.nn.softmax_cross_entropy_with_logits(logits, labels)))
            rec("sig_ce", s.run(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)))
            rec("wce", s.run(tf.nn.weighted_cross_entropy_with_logits(labels, logits, 2.0)))
            rec("l2", s.run(tf.nn.l2_loss(logits)), ref=(lg ** 2).sum() / 2)
            g = tf.gradients(tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)), [logits, labels])
            rec("g", s.run(g))
            rec("log_poisson", s.run(tf.nn.log_poisson_loss(labels, logits)))
            rec("nce_shape", tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits).get_shape())
    """,
    "tf_losses": """
        lab = tf.constant([[1., 0.], [0., 1.], [1., 1.]]); pred = tf.constant([[0.8, 0.3], [0.2, 0.6], [0.9, 0.4]])
        w = tf.constant([[1.], [2.], [0.]])
        with tf.Session() as s:
            rec("mse", s.run(tf.losses.mean_squared_error(lab, pred)))
            rec("mse_w", s.run(tf.losses.mean_squared_error(lab, pred, weights=w)))
            R = tf.losses.Reduction
            for red in [R.NONE, R.SUM, R.MEAN, R.SUM_OVER_BATCH_SIZE, R.SUM_BY_NONZERO_WEIGHTS, R.SUM_OVER_NONZERO_WEIGHTS]:
                rec("abs_" + red, s.run(tf.losses.absolute_difference(lab, pred, weights=w, reduction=red, loss_collection=None)))
            rec("log", s.run(tf.losses.log_loss(lab, pred)))
            rec("hinge", s.run(tf.losses.hinge_loss(lab, pred)))
            rec("huber", s.run(tf.losses.huber_loss(lab, pred * 3, delta=0.5)))
            rec("sig", s.run(tf.losses.sigmoid_cross_entropy(lab, pred, label_smoothing=0.1)))
            rec("smce", s.run(tf.losses.softmax_cross_entropy(lab, pred, label_smoothing=0.2)))
            rec("ssce", s.run(tf.losses.sparse_softmax_cross_entropy([0, 1, 1], pred)))
            rec("cos", s.run(tf.losses.cosine_distance(tf.nn.l2_normalize(lab, 1), tf.nn.l2_normalize(pred, 1), axis=1)))
            rec("coll", len(tf.get_collection(tf.GraphKeys.LOSSES)))
            rec("total", s.run(tf.losses.get_total_loss(add_regularization_losses=False)))
            rec("names", tf.losses.mean_squared_error(lab, pred).name)
    """,
    "normalization_and_dropout": """
        x = tf.constant(np.linspace(-2, 3, 24, dtype=np.float32).reshape(2, 3, 4))
        with tf.Session() as s:
            m, v = tf.nn.moments(x, [0, 1]); rec("moments", s.run([m, v]))
            m2, v2 = tf.nn.moments(x, [1], keep_dims=True); rec("moments_k", s.run([m2, v2]))
            bn = tf.nn.batch_normalization(x, m, v, tf.constant(0.5), tf.constant(2.0), 1e-3); rec("bn", s.run(bn))
            y, bm, bv = tf.nn.fused_batch_norm(tf.reshape(x, [1, 2, 3, 4]), tf.ones([4]), tf.zeros([4]), epsilon=1e-3)
            rec("fbn", s.run([y, bm, bv]))
            rec("lrn", s.run(tf.nn.local_response_normalization(tf.reshape(x, [1, 2, 3, 4]), 2, 1.0, 0.5, 0.75)))
            d = tf.nn.dropout(tf.ones([4, 5]), keep_prob=0.5, seed=3); rec("drop", s.run(d))
            d2 = tf.nn.dropout(tf.ones([3, 4]), rate=0.25, seed=4, noise_shape=[3, 1]); rec("drop_ns", s.run(d2))
            rec("drop_err", err(lambda: tf.nn.dropout(tf.ones([2]), keep_prob=0.0)))
            rec("wn", s.run(tf.nn.bias_add(tf.ones([2, 3]), [1., 2., 3.])))
            rec("bias_err", err(lambda: tf.nn.bias_add(tf.ones([2, 3]), [1., 2.])))
            rec("acts", s.run([tf.nn.relu(x), tf.nn.relu6(x * 3), tf.nn.elu(x), tf.nn.selu(x), tf.nn.crelu(x), tf.nn.leaky_relu(x), tf.nn.swish(x) if hasattr(tf.nn, "swish") else x]))
        # tol: 1e-5 1e-5
    """,
    "embedding_lookup": """
        p1 = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
        shards = [tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2)), tf.constant(np.arange(6, 12, dtype=np.float32).reshape(3, 2))]
        ids = tf.constant([[0, 5], [3, 1]])
        with tf.Session() as s:
            rec("single", s.run(tf.nn.embedding_lookup(p1, ids)))
            rec("mod", s.run(tf.nn.embedding_lookup(shards, ids)))
            rec("div", s.run(tf.nn.embedding_lookup(shards, ids, partition_strategy="div")))
            rec("maxnorm", s.run(tf.nn.embedding_lookup(p1, [5], max_norm=1.0)))
            sp = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 4, 2], [2, 3])
            for comb in ["sum", "mean", "sqrtn"]:
                rec("sparse_" + comb, s.run(tf.nn.embedding_lookup_sparse(p1, sp, None, combiner=comb)))
            spw = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [2., 0.5, 1.], [2, 3])
            rec("sparse_w", s.run(tf.nn.embedding_lookup_sparse(p1, sp, spw, combiner="mean")))
            g = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(p1, ids)), p1)[0]
            rec("gtype", type(g).__name__); rec("g", s.run(tf.convert_to_tensor(g)))
    """,
    "image_resize": """
        img = tf.constant(np.arange(2 * 4 * 5 * 2, dtype=np.float32).reshape(2, 4, 5, 2) ** 1.5 / 10.)
        M = tf.image.ResizeMethod
        with tf.Session() as s:
            for size in [[7, 3], [2, 2], [8, 10]]:
                for name, m in [("bil", M.BILINEAR), ("nn", M.NEAREST_NEIGHBOR), ("bic", M.BICUBIC), ("area", M.AREA)]:
                    r = tf.image.resize_images(img, size, method=m)
                    rec("%s_%d_%d" % (name, size[0], size[1]), s.run(r))
                    r2 = tf.image.resize_images(img, size, method=m, align_corners=True) if m != M.AREA else r
                    rec("%s_ac_%d_%d" % (name, size[0], size[1]), s.run(r2))
            rec("bil_fn", s.run(tf.image.resize_bilinear(img, [3, 7], half_pixel_centers=True)))
            rec("nn_fn", s.run(tf.image.resize_nearest_neighbor(img, [3, 7], half_pixel_centers=True)))
            rec("bic_fn", s.run(tf.image.resize_bicubic(img, [3, 7], half_pixel_centers=True)))
            rec("dtype_uint8", tf.image.resize_images(tf.cast(img, tf.uint8), [3, 3]).dtype)
            rec("dtype_uint8_nn", tf.image.resize_images(tf.cast(img, tf.uint8), [3, 3], method=M.NEAREST_NEIGHBOR).dtype)
            rec("3d", tf.image.resize_images(img[0], [3, 3]).get_shape())
            rec("pad", s.run(tf.image.resize_image_with_crop_or_pad(img, 3, 7)))
            rec("pad_resize", s.run(tf.image.resize_image_with_pad(img, 6, 6)))
            g = tf.gradients(tf.reduce_sum(tf.image.resize_bilinear(img, [7, 3]) ** 2), img)[0]
            rec("g", s.run(g))
        # tol: 1e-4 1e-4
    """,
    "image_misc": """
        img = tf.constant(np.linspace(0, 1, 2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3))
        with tf.Session() as s:
            rec("flip_lr", s.run(tf.image.flip_left_right(img))); rec("flip_ud", s.run(tf.image.flip_up_down(img)))
            rec("rot90", s.run(tf.image.rot90(img[0], 1))); rec("transpose", s.run(tf.image.transpose_image(img)))
            rec("gray", s.run(tf.image.rgb_to_grayscale(img))); rec("hsv", s.run(tf.image.rgb_to_hsv(img)))
            rec("back", s.run(tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(img))))
            rec("yuv", s.run(tf.image.rgb_to_yuv(img)))
            rec("bright", s.run(tf.image.adjust_brightness(img, 0.2))); rec("contrast", s.run(tf.image.adjust_contrast(img, 1.5)))
            rec("sat", s.run(tf.image.adjust_saturation(img, 0.5))); rec("hue", s.run(tf.image.adjust_hue(img, 0.1)))
            rec("gamma", s.run(tf.image.adjust_gamma(img, 2.0))); rec("std", s.run(tf.image.per_image_standardization(img)))
            rec("crop", s.run(tf.image.crop_to_bounding_box(img, 1, 2, 2, 3))); rec("padbb", s.run(tf.image.pad_to_bounding_box(img, 1, 0, 6, 7)))
            rec("central", s.run(tf.image.central_crop(img, 0.5)))
            rec("convert", s.run(tf.image.convert_image_dtype(img, tf.uint8))); rec("convert_back", s.run(tf.image.convert_image_dtype(tf.constant([[[0, 128, 255]]], tf.uint8), tf.float32)))
            rec("convert_sat", s.run(tf.image.convert_image_dtype(tf.constant([1.5, -0.2]), tf.uint8, saturate=True)))
            rec("total_var", s.run(tf.image.total_variation(img)))
            rec("psnr", s.run(tf.image.psnr(img, img * 0.9, 1.0))); rec("ssim", s.run(tf.image.ssim(img, img * 0.9, 1.0, filter_size=3)))
            rec("sobel", s.run(tf.image.sobel_edges(img)))
            rec("crop_resize", s.run(tf.image.crop_and_resize(img, [[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9]], [0, 1], [3, 3])))
            rec("extract", s.run(tf.image.extract_image_patches(img, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")))
            rec("nms", s.run(tf.image.non_max_suppression([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]], [0.9, 0.8, 0.7], 3, 0.5)))
            rec("draw", s.run(tf.image.draw_bounding_boxes(img, [[[0.1, 0.1, 0.5, 0.5]], [[0, 0, 1, 1]]])))
        # tol: 1e-4 1e-5
    """,
}

NN.update({
    "candidate_sampler_numbers": """
        tc = tf.constant([[1], [4]], tf.int64)
        a = tf.nn.uniform_candidate_sampler(tc, 1, 5, True, 20, seed=3)
        b = tf.nn.log_uniform_candidate_sampler(tc, 1, 6, True, 30, seed=4)
        c = tf.nn.log_uniform_candidate_sampler(tc, 1, 4, False, 1000, seed=5)
        with tf.Session() as s:
            rec("runs", [s.run([a, b, c]) for _ in range(2)])
    """,
    "candidate_samplers_seeded": """
        tc = tf.constant([[1], [4]], tf.int64)
        with tf.Session() as s:
            for k, fn in [("log_uniform", tf.nn.log_uniform_candidate_sampler), ("uniform", tf.nn.uniform_candidate_sampler)]:
                samp = fn(tc, 1, 5, True, 20, seed=3)
                rec(k + "_type", type(samp).__name__); rec(k + "_fields", list(getattr(samp, "_fields", [])))
                rec(k + "_shapes", [t.get_shape() for t in samp])
            rec("learned_type", type(tf.nn.learned_unigram_candidate_sampler(tc, 1, 5, True, 20, seed=4)).__name__)
    """,
    "sample_distorted_bounding_box_seeded": """
        b = tf.image.sample_distorted_bounding_box([20, 30, 3], [[[0.1, 0.1, 0.8, 0.9]]], seed=3, min_object_covered=0.3)
        b2 = tf.image.sample_distorted_bounding_box([64, 48, 3], [[[0.0, 0.0, 1.0, 1.0], [0.2, 0.3, 0.5, 0.9]]], seed=7,
                                                    min_object_covered=0.1, area_range=[0.05, 0.9], aspect_ratio_range=[0.5, 2.0])
        b3 = tf.image.sample_distorted_bounding_box([10, 10, 1], tf.zeros([1, 0, 4]), seed=1, use_image_if_no_bounding_boxes=True)
        with tf.Session() as s:
            rec("runs", [s.run([b, b2, b3]) for _ in range(3)])
    """,
    "ctc_and_misc_losses": """
        logits = tf.constant(np.linspace(-1, 1, 5 * 2 * 4).reshape(5, 2, 4), tf.float32)
        labels = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [1, 2, 2], [2, 2])
        with tf.Session() as s:
            l = tf.nn.ctc_loss(labels, logits, [5, 4])
            rec("ctc", s.run(l)); rec("ctc_grad", s.run(tf.gradients(tf.reduce_sum(l), logits)[0]))
            d, lp = tf.nn.ctc_greedy_decoder(logits, [5, 4])
            rec("greedy", s.run(d[0])); rec("greedy_lp", s.run(lp))
            rec("edit", s.run(tf.edit_distance(tf.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2]), tf.SparseTensor([[0, 0]], ["a"], [1, 1]))))
        # tol: 1e-4 1e-5
    """,
    "sampled_losses_seeded": """
        w = tf.constant(np.linspace(-1, 1, 10 * 3).reshape(10, 3), tf.float32); b = tf.zeros([10])
        x = tf.constant([[0.1, 0.2, 0.3], [0.3, -0.2, 0.5]]); lab = tf.constant([[1], [7]], tf.int64)
        sampled = (tf.constant([0, 3, 5, 9], tf.int64), tf.constant([[0.3], [0.1]]), tf.constant([0.4, 0.2, 0.15, 0.05]))
        with tf.Session() as s:
            rec("sampled_softmax", s.run(tf.nn.sampled_softmax_loss(w, b, lab, x, 4, 10, sampled_values=sampled)))
            rec("nce", s.run(tf.nn.nce_loss(w, b, lab, x, 4, 10, sampled_values=sampled)))
        # tol: 1e-5 1e-6
    """,
})

NN.update({
    "conv_variants": """
        x = tf.constant(np.linspace(-1, 1, 2 * 9 * 8 * 3).reshape(2, 9, 8, 3), tf.float32)
        w = tf.constant(np.linspace(-1, 1, 3 * 3 * 3 * 2).reshape(3, 3, 3, 2), tf.float32)
        with tf.Session() as s:
            rec("convolution_dil", s.run(tf.nn.convolution(x, w, "SAME", dilation_rate=[2, 1])))
            rec("convolution_str", s.run(tf.nn.convolution(x, w, "VALID", strides=[2, 3])))
            rec("tr_valid", s.run(tf.nn.conv2d_transpose(tf.ones([1, 3, 3, 2]), w, [1, 7, 7, 3], [1, 2, 2, 1], "VALID")))
            rec("dw_rate", s.run(tf.nn.depthwise_conv2d(x, tf.ones([2, 2, 3, 1]), [1, 1, 1, 1], "SAME", rate=[2, 2])))
            rec("pool_dil_same_err", err(lambda: tf.nn.pool(x, [2, 2], "MAX", "SAME", dilation_rate=[2, 2])))
            rec("avg_same_odd", s.run(tf.nn.avg_pool(x, [1, 3, 2, 1], [1, 2, 3, 1], "SAME")))
            rec("explicit_pad", s.run(tf.nn.conv2d(x, w, [1, 1, 1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]])))
            rec("c3d_tr", s.run(tf.nn.conv3d_transpose(tf.ones([1, 2, 2, 2, 2]), tf.ones([2, 2, 2, 3, 2]), [1, 4, 4, 4, 3], [1, 2, 2, 2, 1], "SAME")))
            rec("bias_nchw", s.run(tf.nn.bias_add(tf.ones([1, 2, 2, 2]), [1., 2.], data_format="NCHW")))
        # tol: 1e-4 1e-5
    """,
    "pool_dilated": """
        x = tf.constant(np.linspace(-1, 1, 2 * 9 * 8 * 3).reshape(2, 9, 8, 3), tf.float32)
        with tf.Session() as s:
            rec("pool_dil", s.run(tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2])))
            rec("pool_dil_avg", s.run(tf.nn.pool(x, [2, 3], "AVG", "VALID", dilation_rate=[1, 2], strides=[1, 1])))
            rec("pool_dil_1d", s.run(tf.nn.pool(x[:, 0], [3], "MAX", "VALID", dilation_rate=[3])))
            xv = np.linspace(-1, 1, 2 * 9 * 8 * 3).reshape(2, 9, 8, 3)
            ref = np.max([xv[:, a * 2:a * 2 + 7, b * 2:b * 2 + 6] for a in range(2) for b in range(2)], 0)
            rec("pool_dil_ref", s.run(tf.nn.pool(x, [2, 2], "MAX", "VALID", dilation_rate=[2, 2])), ref=ref)
            g = tf.gradients(tf.reduce_sum(tf.nn.pool(x, [2, 2], "AVG", "VALID", dilation_rate=[2, 2]) ** 2), x)[0]
            rec("pool_dil_grad", s.run(g))
        # tol: 1e-5 1e-6
    """,
    "resize_v2_namespace": """
        img = tf.constant(np.arange(1 * 5 * 7 * 1, dtype=np.float32).reshape(1, 5, 7, 1))
        with tf.Session() as s:
            rec("v2_bil", s.run(tf.compat.v2.image.resize(img, [3, 4])))
    """,
    "resize_more": """
        img = tf.constant(np.arange(1 * 5 * 7 * 1, dtype=np.float32).reshape(1, 5, 7, 1))
        with tf.Session() as s:
            rec("area_up", s.run(tf.image.resize_area(img, [7, 9])))
            rec("area_down", s.run(tf.image.resize_area(img, [2, 3])))
            rec("area_ac", s.run(tf.image.resize_area(img, [3, 4], align_corners=True)))
            rec("keep_aspect", s.run(tf.image.resize_images(img, [10, 10], preserve_aspect_ratio=True)).shape)
            rec("nn_down_ac", s.run(tf.image.resize_nearest_neighbor(img, [3, 4], align_corners=True)))
            rec("bic_ac", s.run(tf.image.resize_bicubic(img, [8, 3], align_corners=True)))
        # tol: 1e-4 1e-4
    """,
    "batch_norm_training_grads": """
        x = tf.constant(np.linspace(-2, 2, 2 * 3 * 3 * 4).reshape(2, 3, 3, 4), tf.float32)
        scale = tf.constant([1., 2., 0.5, 1.5]); offset = tf.constant([0., 1., -1., 0.5])
        y, m, v = tf.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3, is_training=True)
        g = tf.gradients(tf.reduce_sum(y * tf.sin(x)), [x, scale, offset])
        yi, _, _ = tf.nn.fused_batch_norm(x, scale, offset, mean=[0., 0.1, 0.2, 0.3], variance=[1., 2., 3., 4.], is_training=False)
        with tf.Session() as s:
            rec("y", s.run(y)); rec("mv", s.run([m, v])); rec("g", s.run(g)); rec("yi", s.run(yi))
        # tol: 1e-4 1e-4
    """,
})
