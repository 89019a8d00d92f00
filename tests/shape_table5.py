"""The static-shape table of tests/test_graph_parity5.py: graph expressions over placeholders with
partially known shapes, and the shapes and dtypes real TensorFlow gives them.

EXPECTED was observed from TensorFlow 2.21 in compat.v1 graph mode (``tf.disable_v2_behavior()``,
``TF_USE_LEGACY_KERAS=1`` for tf.layers and the RNN cells), running the same expressions: each
value is ``[shape.as_list() or None for unknown rank, dtype name]``, nested as the result is,
or ``"ERR <class>"`` where TF raises at graph construction.
"""

import numpy as np

import tideflow as tf

layers = tf.layers
rnn_cell = tf.nn.rnn_cell


def build():
    """The table's (name, fn) pairs, with their placeholders in the current default graph."""
    P = tf.placeholder
    a = P(tf.float32, [None, 3], name="a")
    b = P(tf.float32, [2, None, 5], name="b")
    u = P(tf.float32, None, name="u")
    s = P(tf.float32, [], name="s")
    n = P(tf.int32, [], name="n")
    iv = P(tf.int32, [None], name="iv")
    ia = P(tf.int32, [None, 3], name="ia")
    img = P(tf.float32, [None, 8, 8, 3], name="img")
    img2 = P(tf.float32, [4, None, None, 3], name="img2")
    m = P(tf.float32, [4, 5], name="m")
    m2 = P(tf.float32, [5, None], name="m2")
    bm = P(tf.float32, [None, 4, 5], name="bm")
    boolv = P(tf.bool, [None, 3], name="boolv")
    seq = P(tf.float32, [None, 7, 4], name="seq")
    sh = P(tf.int32, [3], name="sh")
    shu = P(tf.int32, [None], name="shu")

    C = []

    def c(name, f):
        C.append((name, f))

    # random / fill from shape tensors
    c("rn_concat", lambda: tf.random_normal(tf.concat([tf.shape(a)[:1], [7]], 0)))
    c("ru_concat", lambda: tf.random_uniform(tf.concat([tf.shape(a)[:1], [7]], 0)))
    c("tn_stack", lambda: tf.truncated_normal(tf.stack([tf.shape(a)[0], 4])))
    c("rn_shape", lambda: tf.random_normal(tf.shape(b)))
    c("rn_slice", lambda: tf.random_normal(tf.shape(b)[1:]))
    c("rn_sh", lambda: tf.random_normal(sh))
    c("rn_shu", lambda: tf.random_normal(shu))
    c("rn_list_n", lambda: tf.random_normal([n, 3]))
    c("zeros_concat", lambda: tf.zeros(tf.concat([tf.shape(a)[:1], [7]], 0)))
    c("ones_stack", lambda: tf.ones(tf.stack([tf.shape(b)[2], tf.shape(a)[1]])))
    c("fill_shape", lambda: tf.fill(tf.shape(b), 1.0))
    c("fill_cast", lambda: tf.fill(tf.cast(tf.shape(b), tf.int64), 1.0))
    c("fill_mul", lambda: tf.fill(tf.stack([tf.shape(a)[1] * 2, 4]), 1.0))
    c("fill_sh", lambda: tf.fill(sh, 1))
    c("zeros_like_u", lambda: tf.zeros_like(u))
    c("ones_like_b", lambda: tf.ones_like(b, dtype=tf.int32))
    c("zeros_list", lambda: tf.zeros([n, 2, 3]))
    c("zeros_shape_slice_neg", lambda: tf.zeros(tf.shape(b)[-2:]))
    c("zeros_shape_stride", lambda: tf.zeros(tf.shape(b)[::2]))
    # reshape
    c("reshape_m1", lambda: tf.reshape(a, [-1]))
    c("reshape_m1_3", lambda: tf.reshape(b, [-1, 5]))
    c("reshape_known", lambda: tf.reshape(m, [2, -1]))
    c("reshape_known2", lambda: tf.reshape(m, [-1, 2, 2]))
    c("reshape_shape_concat", lambda: tf.reshape(b, tf.concat([tf.shape(b)[:1], [-1]], 0)))
    c("reshape_stack", lambda: tf.reshape(a, tf.stack([tf.shape(a)[0], 3, 1])))
    c("reshape_sh", lambda: tf.reshape(a, sh))
    c("reshape_shu", lambda: tf.reshape(a, shu))
    c("reshape_u", lambda: tf.reshape(u, [2, -1]))
    c("reshape_a_m1_known", lambda: tf.reshape(a, [-1, 1, 3]))
    c("reshape_b_m1", lambda: tf.reshape(b, [2, -1, 5]))
    c("reshape_shape_of", lambda: tf.reshape(m2, tf.shape(m2)))
    c("reshape_n", lambda: tf.reshape(a, [n, -1]))
    # expand/squeeze/transpose
    c("expand0", lambda: tf.expand_dims(a, 0))
    c("expand_m1", lambda: tf.expand_dims(b, -1))
    c("expand_u", lambda: tf.expand_dims(u, 1))
    c("squeeze_b", lambda: tf.squeeze(tf.expand_dims(b, 1), [1]))
    c("squeeze_all", lambda: tf.squeeze(P(tf.float32, [1, None, 1, 4])))
    c("transpose", lambda: tf.transpose(b))
    c("transpose_perm", lambda: tf.transpose(b, [1, 2, 0]))
    c("transpose_u", lambda: tf.transpose(u))
    c("transpose_perm_t", lambda: tf.transpose(b, tf.constant([2, 0, 1])))
    # tile/pad
    c("tile", lambda: tf.tile(a, [2, 3]))
    c("tile_n", lambda: tf.tile(a, [n, 2]))
    c("tile_shape", lambda: tf.tile(m, tf.shape(m)))
    c("pad", lambda: tf.pad(a, [[1, 2], [0, 1]]))
    c("pad_b", lambda: tf.pad(b, [[1, 1], [1, 1], [0, 0]]))
    c("pad_reflect", lambda: tf.pad(m, [[1, 1], [2, 2]], mode="REFLECT"))
    c("pad_t", lambda: tf.pad(m, P(tf.int32, [2, 2])))
    c("pad_u", lambda: tf.pad(u, [[1, 1]]))
    # slice / strided slice
    c("slice", lambda: tf.slice(b, [0, 1, 2], [1, -1, 2]))
    c("slice_m", lambda: tf.slice(m, [1, 1], [-1, -1]))
    c("slice_t", lambda: tf.slice(m, [1, 1], P(tf.int32, [2])))
    c("ss_basic", lambda: a[1:])
    c("ss_int", lambda: b[0])
    c("ss_neg", lambda: m[-1])
    c("ss_ellipsis", lambda: b[..., 1])
    c("ss_newaxis", lambda: a[:, tf.newaxis, :])
    c("ss_step", lambda: m[::2, 1:4:2])
    c("ss_rev", lambda: m[::-1])
    c("ss_mixed", lambda: b[1, :, tf.newaxis, 2:4])
    c("ss_t_begin", lambda: m[n:])
    c("ss_t_idx", lambda: m[n])
    c("ss_u", lambda: u[1:, 2])
    c("ss_ell_only", lambda: b[...])
    c("ss_shrink_last", lambda: bm[:, :, 0])
    c("strided_slice_masks", lambda: tf.strided_slice(b, [0, 0, 0], [1, 2, 3], [1, 1, 1],
                                                      begin_mask=1, end_mask=2, shrink_axis_mask=4))
    c("strided_slice_ell", lambda: tf.strided_slice(b, [0, 1], [1, 3], ellipsis_mask=1))
    c("strided_slice_new", lambda: tf.strided_slice(m, [0, 0, 0], [1, 2, 3], new_axis_mask=2))
    c("ss_big_end", lambda: m[1:100])
    c("ss_neg_step_known", lambda: m[3:0:-1, -2:])
    # gather
    c("gather", lambda: tf.gather(m, iv))
    c("gather_axis1", lambda: tf.gather(b, [0, 1, 1, 0], axis=2))
    c("gather_scalar", lambda: tf.gather(a, 2))
    c("gather_u", lambda: tf.gather(u, iv))
    c("gather_idx_u", lambda: tf.gather(m, P(tf.int32, None)))
    c("gather_batch", lambda: tf.gather(bm, P(tf.int32, [None, 2]), axis=1, batch_dims=1))
    c("gather_nd", lambda: tf.gather_nd(b, P(tf.int32, [None, 2])))
    c("gather_nd_full", lambda: tf.gather_nd(m, [[0, 1], [2, 3]]))
    c("gather_nd_u", lambda: tf.gather_nd(m, P(tf.int32, [4, None])))
    # concat/stack/unstack/split
    c("concat0", lambda: tf.concat([a, a], 0))
    c("concat1", lambda: tf.concat([a, tf.ones([5, 2])], 1))
    c("concat_m1", lambda: tf.concat([b, b], -1))
    c("concat_u", lambda: tf.concat([a, u], 0))
    c("concat_t_axis", lambda: tf.concat([a, a], n))
    c("stack0", lambda: tf.stack([a, a, a]))
    c("stack1", lambda: tf.stack([b, b], axis=1))
    c("stack_m1", lambda: tf.stack([a, a], axis=-1))
    c("unstack", lambda: tf.unstack(m))
    c("unstack1", lambda: tf.unstack(b, axis=0))
    c("unstack_num", lambda: tf.unstack(a, num=3, axis=1))
    c("split2", lambda: tf.split(m, 2, 0))
    c("split_sizes", lambda: tf.split(m, [1, 4], 1))
    c("split_sizes_m1", lambda: tf.split(m, [1, -1, 2], 1))
    c("split_unknown", lambda: tf.split(a, 3, 1))
    c("split_a0", lambda: tf.split(a, 2, 0))
    # reductions
    c("sum_all", lambda: tf.reduce_sum(b))
    c("sum_0", lambda: tf.reduce_sum(b, 0))
    c("sum_keep", lambda: tf.reduce_sum(b, 1, keepdims=True))
    c("sum_neg", lambda: tf.reduce_mean(b, [-1, 0]))
    c("sum_t_axis", lambda: tf.reduce_sum(b, n))
    c("sum_t_axis_keep", lambda: tf.reduce_max(b, n, keepdims=True))
    c("sum_t_axis_vec", lambda: tf.reduce_sum(b, iv))
    c("sum_u", lambda: tf.reduce_sum(u, 1))
    c("sum_u_keep", lambda: tf.reduce_sum(u, 1, keepdims=True))
    c("sum_u_all", lambda: tf.reduce_sum(u))
    c("reduce_any", lambda: tf.reduce_any(boolv, 1))
    c("logsumexp", lambda: tf.reduce_logsumexp(b, 1))
    c("logsumexp_keep", lambda: tf.reduce_logsumexp(b, [0, 2], keepdims=True))
    c("reduce_std", lambda: tf.math.reduce_std(a, 0))
    c("count_nonzero", lambda: tf.count_nonzero(a, 1))
    c("norm", lambda: tf.norm(b, axis=-1))
    c("norm_all", lambda: tf.norm(a))
    c("l2norm", lambda: tf.nn.l2_normalize(a, 1))
    c("moments", lambda: tf.nn.moments(img, [0, 1, 2]))
    c("moments_keep", lambda: tf.nn.moments(img, [1, 2], keep_dims=True))
    # matmul
    c("matmul", lambda: tf.matmul(a, P(tf.float32, [3, 4])))
    c("matmul_tt", lambda: tf.matmul(m, m2, transpose_a=True, transpose_b=True))
    c("matmul_u", lambda: tf.matmul(a, P(tf.float32, None)))
    c("batch_matmul", lambda: tf.matmul(bm, P(tf.float32, [None, 5, 2])))
    c("batch_matmul_bcast", lambda: tf.matmul(bm, P(tf.float32, [5, 2])))
    c("batch_matmul_adj", lambda: tf.matmul(bm, bm, adjoint_b=True))
    c("tensordot", lambda: tf.tensordot(b, m2, [[2], [0]]))
    c("tensordot_u", lambda: tf.tensordot(a, P(tf.float32, [3, None]), 1))
    c("einsum", lambda: tf.einsum("bij,jk->bik", bm, P(tf.float32, [5, 6])))
    c("outer", lambda: tf.einsum("i,j->ij", P(tf.float32, [3]), P(tf.float32, [4])))
    # conv/pool
    flt = tf.ones([3, 3, 3, 6])
    c("conv_same", lambda: tf.nn.conv2d(img, flt, [1, 1, 1, 1], "SAME"))
    c("conv_valid_s2", lambda: tf.nn.conv2d(img, flt, [1, 2, 2, 1], "VALID"))
    c("conv_unknown_hw", lambda: tf.nn.conv2d(img2, flt, [1, 2, 2, 1], "SAME"))
    c("conv_dil", lambda: tf.nn.conv2d(img, flt, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1]))
    c("atrous", lambda: tf.nn.atrous_conv2d(img, flt, 2, "SAME"))
    c("depthwise", lambda: tf.nn.depthwise_conv2d(img, tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], "VALID"))
    c("separable", lambda: tf.nn.separable_conv2d(img, tf.ones([3, 3, 3, 2]), tf.ones([1, 1, 6, 5]),
                                                   [1, 1, 1, 1], "SAME"))
    c("conv1d", lambda: tf.nn.conv1d(seq, tf.ones([3, 4, 2]), 1, "VALID"))
    c("conv3d", lambda: tf.nn.conv3d(P(tf.float32, [None, 5, 6, 7, 2]), tf.ones([2, 2, 2, 2, 3]),
                                      [1, 1, 2, 1, 1], "SAME"))
    c("conv2d_transpose", lambda: tf.nn.conv2d_transpose(img, tf.ones([3, 3, 4, 3]),
                                                          tf.stack([tf.shape(img)[0], 16, 16, 4]),
                                                          [1, 2, 2, 1], "SAME"))
    c("conv2d_transpose_c", lambda: tf.nn.conv2d_transpose(P(tf.float32, [2, 8, 8, 3]),
                                                            tf.ones([3, 3, 4, 3]), [2, 16, 16, 4],
                                                            [1, 2, 2, 1], "SAME"))
    c("maxpool", lambda: tf.nn.max_pool(img, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    c("avgpool_same", lambda: tf.nn.avg_pool(img, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"))
    c("maxpool_unk", lambda: tf.nn.max_pool(img2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"))
    c("maxpool_argmax", lambda: tf.nn.max_pool_with_argmax(P(tf.float32, [2, 8, 8, 3]), [1, 2, 2, 1],
                                                            [1, 2, 2, 1], "SAME"))
    c("pool3d", lambda: tf.nn.max_pool3d(P(tf.float32, [None, 4, 4, 4, 2]), [1, 2, 2, 2, 1],
                                          [1, 2, 2, 2, 1], "VALID"))
    c("layers_conv", lambda: layers.conv2d(img, 5, 3, strides=2, padding="same"))
    c("layers_conv_valid", lambda: layers.conv2d(img2, 5, 3))
    c("layers_pool", lambda: layers.max_pooling2d(img, 2, 2))
    c("layers_dense", lambda: layers.dense(a, 4))
    c("layers_dense_3d", lambda: layers.dense(bm, 4))
    c("layers_flatten", lambda: layers.flatten(img))
    c("layers_flatten_unk", lambda: layers.flatten(img2))
    c("layers_bn", lambda: layers.batch_normalization(img))
    c("layers_dropout", lambda: layers.dropout(a, 0.5, training=True))
    c("dropout", lambda: tf.nn.dropout(a, 0.5))
    c("dropout_ns", lambda: tf.nn.dropout(b, 0.5, noise_shape=[2, 1, 5]))
    c("bias_add", lambda: tf.nn.bias_add(img, tf.ones([3])))
    # image
    c("resize_bilinear", lambda: tf.image.resize_bilinear(img, [16, 12]))
    c("resize_images", lambda: tf.image.resize_images(img, [5, 6]))
    c("resize_3d", lambda: tf.image.resize_images(P(tf.float32, [8, 8, 3]), [4, 4]))
    c("resize_unk", lambda: tf.image.resize_images(img, P(tf.int32, [2])))
    c("crop_pad", lambda: tf.image.resize_image_with_crop_or_pad(img, 6, 10))
    c("central_crop", lambda: tf.image.central_crop(P(tf.float32, [8, 8, 3]), 0.5))
    c("flip", lambda: tf.image.flip_left_right(img))
    c("rgb2gray", lambda: tf.image.rgb_to_grayscale(img))
    c("crop_to_bb", lambda: tf.image.crop_to_bounding_box(img, 1, 1, 4, 5))
    c("pad_to_bb", lambda: tf.image.pad_to_bounding_box(img, 1, 1, 10, 11))
    c("random_crop", lambda: tf.random_crop(P(tf.float32, [None, 8, 3]), [4, 4, 3]))
    c("extract_patches", lambda: tf.extract_image_patches(img, [1, 3, 3, 1], [1, 1, 1, 1],
                                                           [1, 1, 1, 1], "VALID"))
    c("space_to_depth", lambda: tf.space_to_depth(img, 2))
    c("depth_to_space", lambda: tf.depth_to_space(P(tf.float32, [None, 4, 4, 8]), 2))
    c("space_to_batch", lambda: tf.space_to_batch_nd(img, [2, 2], [[0, 0], [0, 0]]))
    c("batch_to_space", lambda: tf.batch_to_space_nd(P(tf.float32, [8, 2, 2, 3]), [2, 2],
                                                      [[0, 0], [0, 0]]))
    # one_hot / where / broadcast
    c("one_hot", lambda: tf.one_hot(iv, 5))
    c("one_hot_ax0", lambda: tf.one_hot(ia, 4, axis=0))
    c("one_hot_n", lambda: tf.one_hot(iv, n))
    c("one_hot_dtype", lambda: tf.one_hot(iv, 3, dtype=tf.int64))
    c("where1", lambda: tf.where(boolv))
    c("where3", lambda: tf.where(boolv, a, a))
    c("where3_vec", lambda: tf.where(P(tf.bool, [None]), a, a))
    c("where_v2", lambda: tf.where_v2(P(tf.bool, [3]), a, 0.0))
    c("bcast_to", lambda: tf.broadcast_to(P(tf.float32, [3]), [4, 3]))
    c("bcast_to_t", lambda: tf.broadcast_to(a, tf.shape(b)[::2]))
    c("bcast_to_concat", lambda: tf.broadcast_to(s, tf.stack([n, 2])))
    c("bcast_dyn_shape", lambda: tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(m2)))
    c("bcast_static", lambda: tf.broadcast_static_shape(a.shape, P(tf.float32, [5, 1, 1]).shape))
    c("add_bcast", lambda: a + P(tf.float32, [5, 1, 1]))
    c("add_bcast_u", lambda: a + u)
    c("add_bcast_none", lambda: P(tf.float32, [None, 1]) + P(tf.float32, [1, None]))
    c("cmp", lambda: a > 0.0)
    c("cast", lambda: tf.cast(b, tf.int64))
    c("maximum", lambda: tf.maximum(a, s))
    # range/argmax/topk/sort
    c("range", lambda: tf.range(10))
    c("range3", lambda: tf.range(2, 11, 3))
    c("range_n", lambda: tf.range(n))
    c("range_shape", lambda: tf.range(tf.shape(a)[1]))
    c("range_float", lambda: tf.range(0.0, 1.0, 0.25))
    c("range_neg", lambda: tf.range(10, 0, -3))
    c("linspace", lambda: tf.lin_space(0.0, 1.0, 5))
    c("argmax", lambda: tf.argmax(b, 1))
    c("argmax_m1", lambda: tf.argmax(a, -1))
    c("argmin_i32", lambda: tf.argmin(a, 0, output_type=tf.int32))
    c("argmax_t", lambda: tf.argmax(b, n))
    c("topk", lambda: tf.nn.top_k(a, 2))
    c("topk_t", lambda: tf.nn.top_k(a, n))
    c("topk_u", lambda: tf.nn.top_k(u, 2))
    c("in_top_k", lambda: tf.nn.in_top_k(a, iv, 1))
    c("sort", lambda: tf.sort(b))
    c("argsort", lambda: tf.argsort(a))
    c("cumsum", lambda: tf.cumsum(b, 1))
    c("reverse", lambda: tf.reverse(b, [1]))
    c("rev_seq", lambda: tf.reverse_sequence(seq, iv, 1, 0))
    c("unique", lambda: tf.unique(iv))
    c("shape_op", lambda: tf.shape(b))
    c("shape_u", lambda: tf.shape(u))
    c("size", lambda: tf.size(b, out_type=tf.int64))
    c("rank", lambda: tf.rank(u))
    c("shape_n", lambda: tf.shape_n([a, b]))
    c("bool_mask", lambda: tf.boolean_mask(a, boolv[:, 0]))
    c("bool_mask2", lambda: tf.boolean_mask(b, P(tf.bool, [2, None])))
    c("setdiff", lambda: tf.setdiff1d(iv, [1, 2]))
    c("meshgrid", lambda: tf.meshgrid(tf.range(3), tf.range(4)))
    c("diag", lambda: tf.diag(P(tf.float32, [3])))
    c("diag_part", lambda: tf.diag_part(P(tf.float32, [3, 3])))
    c("matrix_diag", lambda: tf.matrix_diag(a))
    c("matrix_diag_part", lambda: tf.matrix_diag_part(bm))
    c("matrix_band", lambda: tf.matrix_band_part(bm, 0, -1))
    c("eye", lambda: tf.eye(3, 4, batch_shape=[2]))
    c("eye_n", lambda: tf.eye(n))
    c("trace", lambda: tf.trace(bm))
    c("matrix_inverse", lambda: tf.matrix_inverse(P(tf.float32, [None, 3, 3])))
    c("cholesky", lambda: tf.cholesky(P(tf.float32, [3, 3])))
    c("qr", lambda: tf.qr(P(tf.float32, [None, 5, 3])))
    c("svd", lambda: tf.svd(P(tf.float32, [5, 3])))
    c("det", lambda: tf.matrix_determinant(P(tf.float32, [None, 3, 3])))
    c("scatter_nd", lambda: tf.scatter_nd(P(tf.int32, [None, 1]), P(tf.float32, [None, 4]), [8, 4]))
    c("scatter_nd_t", lambda: tf.scatter_nd(P(tf.int32, [None, 1]), P(tf.float32, [None, 4]),
                                            tf.stack([n, 4])))
    c("sequence_mask", lambda: tf.sequence_mask(iv, 6))
    c("sequence_mask_n", lambda: tf.sequence_mask(iv))
    c("sequence_mask_2d", lambda: tf.sequence_mask(ia, 5))
    c("clip", lambda: tf.clip_by_value(a, 0.0, 1.0))
    c("clip_norm", lambda: tf.clip_by_norm(b, 1.0))
    c("clip_global", lambda: tf.clip_by_global_norm([a, b], 1.0))
    c("einsum_trace", lambda: tf.einsum("ii->", P(tf.float32, [3, 3])))
    c("histogram", lambda: tf.histogram_fixed_width(a, [0.0, 1.0], nbins=7))
    c("bincount", lambda: tf.bincount(iv))
    c("string_join", lambda: tf.string_join([tf.as_string(iv), "x"]))
    c("string_split", lambda: tf.string_split(P(tf.string, [None])).dense_shape)
    c("substr", lambda: tf.substr(P(tf.string, [None, 2]), 0, 1))
    c("decode_csv", lambda: tf.decode_csv(P(tf.string, [None]), [[0], [0.0], [""]]))
    # segment ops
    c("seg_sum", lambda: tf.segment_sum(a, iv))
    c("seg_mean", lambda: tf.segment_mean(b, [0, 0]))
    c("useg_sum", lambda: tf.unsorted_segment_sum(a, iv, 4))
    c("useg_sum_n", lambda: tf.unsorted_segment_sum(a, iv, n))
    c("useg_max_2d", lambda: tf.unsorted_segment_max(b, P(tf.int32, [2, None]), 7))
    c("sparse_seg", lambda: tf.sparse_segment_sum(a, iv, iv))
    c("dynamic_partition", lambda: tf.dynamic_partition(a, iv, 3))
    c("dynamic_stitch", lambda: tf.dynamic_stitch([iv, iv], [a, a]))
    # sparse
    sp = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    spp = tf.sparse_placeholder(tf.float32, shape=[None, 5])
    c("sp_dense_shape", lambda: sp.dense_shape)
    c("sp_shape", lambda: tf.constant(0) if not hasattr(sp, "get_shape") else tf.zeros(sp.get_shape()))
    c("spp_dense_shape", lambda: spp.dense_shape)
    c("spp_indices", lambda: spp.indices)
    c("sp_to_dense", lambda: tf.sparse_tensor_to_dense(sp))
    c("spp_to_dense", lambda: tf.sparse_tensor_to_dense(spp))
    c("sp_matmul", lambda: tf.sparse_tensor_dense_matmul(sp, P(tf.float32, [4, None])))
    c("spp_matmul", lambda: tf.sparse_tensor_dense_matmul(spp, P(tf.float32, [5, 2])))
    c("sp_reduce", lambda: tf.sparse_reduce_sum(sp, 1))
    c("sp_reduce_keep", lambda: tf.sparse_reduce_sum(sp, 1, keepdims=True))
    c("sp_reshape", lambda: tf.sparse_reshape(sp, [-1, 2]).dense_shape)
    c("sp_add", lambda: tf.sparse_add(sp, tf.zeros([3, 4])))
    c("sp_concat", lambda: tf.sparse_concat(0, [sp, sp]).dense_shape)
    c("sp_transpose", lambda: tf.sparse_transpose(sp).dense_shape)
    c("sp_softmax", lambda: tf.sparse_softmax(sp).values)
    c("sp_to_indicator", lambda: tf.sparse_to_indicator(tf.SparseTensor([[0, 0]], [1], [2, 3]), 4))
    c("sparse_to_dense", lambda: tf.sparse_to_dense(P(tf.int32, [None, 2]), [5, 6], 1.0))
    c("embed_sparse", lambda: tf.nn.embedding_lookup_sparse(tf.ones([10, 4]),
                                                            tf.SparseTensor([[0, 0]], [1], [3, 2]),
                                                            None))
    c("embed", lambda: tf.nn.embedding_lookup(tf.ones([10, 4]), ia))
    # nn losses
    c("softmax", lambda: tf.nn.softmax(b))
    c("log_softmax", lambda: tf.nn.log_softmax(a, axis=0))
    c("sce_v2", lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=a, logits=a))
    c("sce_u", lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=u, logits=u))
    c("sparse_sce", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=iv, logits=a))
    c("sparse_sce3", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=P(tf.int32, [2, None]), logits=b))
    c("sigmoid_ce", lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=a, logits=a))
    c("losses_mse", lambda: tf.losses.mean_squared_error(a, a))
    c("losses_mse_none", lambda: tf.losses.mean_squared_error(a, a, reduction=tf.losses.Reduction.NONE))
    c("losses_sce", lambda: tf.losses.softmax_cross_entropy(a, a))
    c("losses_sparse", lambda: tf.losses.sparse_softmax_cross_entropy(iv, a))
    c("l2_loss", lambda: tf.nn.l2_loss(b))
    c("nce", lambda: tf.nn.nce_loss(tf.ones([10, 3]), tf.zeros([10]), P(tf.int64, [None, 1]), a, 4, 10))
    c("lrn", lambda: tf.nn.lrn(img))
    c("ctc_greedy", lambda: tf.nn.ctc_greedy_decoder(P(tf.float32, [7, None, 5]), iv)[1])
    # control flow
    c("cond_same", lambda: tf.cond(P(tf.bool, []), lambda: a, lambda: a * 2))
    c("cond_diff", lambda: tf.cond(P(tf.bool, []), lambda: a, lambda: tf.ones([4, 3])))
    c("cond_rank", lambda: tf.cond(P(tf.bool, []), lambda: m, lambda: tf.ones([4, 5, 1])))
    c("cond_tuple", lambda: tf.cond(P(tf.bool, []), lambda: (a, iv), lambda: (a, iv + 1)))
    c("case", lambda: tf.case([(P(tf.bool, []), lambda: m)], default=lambda: m + 1))
    c("while_fixed", lambda: tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
                                            [0, a]))
    c("while_grow", lambda: tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.concat([x, x], 0)),
                                           [0, a], shape_invariants=[tf.TensorShape([]),
                                                                     tf.TensorShape([None, 3])]))
    c("while_grow2", lambda: tf.while_loop(lambda i, x: i < 3,
                                            lambda i, x: (i + 1, tf.concat([x, x], 1)),
                                            [0, m], shape_invariants=[tf.TensorShape([]),
                                                                      tf.TensorShape([4, None])]))
    c("while_single", lambda: tf.while_loop(lambda x: tf.reduce_sum(x) < 10.0, lambda x: x + 1.0, [m]))
    def _ta():
        ta = tf.TensorArray(tf.float32, size=3)
        _, ta = tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t.write(i, a[0])), [0, ta])
        return ta.stack()
    c("ta_stack_loop", _ta)
    def _ta2():
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        ta = ta.write(0, m).write(1, m)
        return [ta.stack(), ta.read(0), ta.concat(), ta.size()]
    c("ta_stack", _ta2)
    def _ta3():
        ta = tf.TensorArray(tf.float32, size=2, element_shape=tf.TensorShape([None, 3]))
        return [ta.stack(), ta.read(0)]
    c("ta_elem", _ta3)
    def _ta4():
        ta = tf.TensorArray(tf.float32, size=4)
        return [ta.unstack(m).stack(), ta.unstack(m).read(1)]
    c("ta_unstack", _ta4)
    c("map_fn", lambda: tf.map_fn(lambda r: r * 2, a))
    c("map_fn_red", lambda: tf.map_fn(lambda r: tf.reduce_sum(r), b))
    c("map_fn_dtype", lambda: tf.map_fn(lambda r: tf.cast(r, tf.int32), m, dtype=tf.int32))
    c("map_fn_tuple", lambda: tf.map_fn(lambda r: (r[0], r[1] * 2), (m, m), dtype=(tf.float32, tf.float32)))
    c("scan", lambda: tf.scan(lambda acc, x: acc + x, m))
    c("scan_init", lambda: tf.scan(lambda acc, x: acc + tf.reduce_sum(x), a, initializer=0.0))
    c("foldl", lambda: tf.foldl(lambda acc, x: acc + x, m))
    c("dyn_rnn", lambda: tf.nn.dynamic_rnn(rnn_cell.BasicRNNCell(6), seq, dtype=tf.float32))
    c("dyn_rnn_lstm", lambda: tf.nn.dynamic_rnn(rnn_cell.BasicLSTMCell(5), seq, dtype=tf.float32,
                                                 sequence_length=iv))
    c("dyn_rnn_tm", lambda: tf.nn.dynamic_rnn(rnn_cell.GRUCell(3), P(tf.float32, [7, None, 4]),
                                               dtype=tf.float32, time_major=True))
    c("dyn_rnn_unk_t", lambda: tf.nn.dynamic_rnn(rnn_cell.GRUCell(3), P(tf.float32, [2, None, 4]),
                                                  dtype=tf.float32))
    c("static_rnn", lambda: tf.nn.static_rnn(rnn_cell.BasicRNNCell(4), tf.unstack(seq, axis=1),
                                              dtype=tf.float32)[0][-1])
    c("bidir", lambda: tf.nn.bidirectional_dynamic_rnn(rnn_cell.GRUCell(3), rnn_cell.GRUCell(2), seq,
                                                        dtype=tf.float32)[0])
    # dataset
    def _ds(f):
        def g():
            d = f()
            it = tf.data.make_one_shot_iterator(d) if hasattr(tf.data, "make_one_shot_iterator") \
                else d.make_one_shot_iterator()
            return it.get_next()
        return g
    c("ds_tensor_slices", _ds(lambda: tf.data.Dataset.from_tensor_slices(np.zeros((10, 3), np.float32))))
    c("ds_batch", _ds(lambda: tf.data.Dataset.from_tensor_slices(np.zeros((10, 3), np.float32)).batch(4)))
    c("ds_batch_drop", _ds(lambda: tf.data.Dataset.from_tensor_slices(np.zeros((10, 3), np.float32))
                           .batch(4, drop_remainder=True)))
    c("ds_padded", _ds(lambda: tf.data.Dataset.range(5).map(lambda x: tf.fill([x], x))
                       .padded_batch(2, padded_shapes=[None])))
    c("ds_padded_fixed", _ds(lambda: tf.data.Dataset.range(5).map(lambda x: tf.fill([x], x))
                             .padded_batch(2, padded_shapes=[6])))
    c("ds_map", _ds(lambda: tf.data.Dataset.range(5).map(lambda x: (tf.cast(x, tf.float32),
                                                                    tf.zeros([x, 2])))))
    c("ds_zip", _ds(lambda: tf.data.Dataset.zip((tf.data.Dataset.range(3),
                                                 tf.data.Dataset.from_tensors([1.0, 2.0])))))
    c("ds_dict", _ds(lambda: tf.data.Dataset.from_tensor_slices({"x": np.zeros((4, 2)),
                                                                 "y": np.zeros(4, np.int32)})))
    c("ds_placeholder", _ds(lambda: tf.data.Dataset.from_tensor_slices(a).batch(2)))
    c("ds_window_flat", _ds(lambda: tf.data.Dataset.range(10).window(3).flat_map(lambda w: w.batch(3))))
    c("ds_unbatch", _ds(lambda: tf.data.Dataset.from_tensors(np.zeros((4, 3))).unbatch()))
    c("ds_gen", _ds(lambda: tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), tf.int64,
                                                           tf.TensorShape([None]))))
    # constant value helper results
    # --- batch 2: partial constant evaluation through shape tensors
    c("p_reshape_stack_m1", lambda: tf.reshape(b, [tf.shape(b)[0], -1]))
    c("p_reshape_stack_m1b", lambda: tf.reshape(b, tf.stack([-1, tf.shape(b)[2]])))
    c("p_reshape_list_mixed", lambda: tf.reshape(img, [-1, tf.shape(img)[1] * tf.shape(img)[2] * 3]))
    c("p_reshape_concat_shape", lambda: tf.reshape(a, tf.concat([tf.shape(a), [1]], 0)))
    c("p_reshape_from_other", lambda: tf.reshape(P(tf.float32, [None]), tf.shape(a)))
    c("p_reshape_prod", lambda: tf.reshape(b, [2, tf.reduce_prod(tf.shape(b)[1:])]))
    c("p_tile_stack", lambda: tf.tile(a, tf.stack([1, tf.shape(a)[1]])))
    c("p_tile_shape_ones", lambda: tf.tile(tf.expand_dims(a, 1), [1, 4, 1]))
    c("p_pad_stack", lambda: tf.pad(a, tf.stack([[0, 0], [0, n]])))
    c("p_slice_size_shape", lambda: tf.slice(b, [0, 0, 0], tf.shape(b)))
    c("p_slice_size_stack", lambda: tf.slice(a, [0, 0], tf.stack([tf.shape(a)[0], 2])))
    c("p_onehot_shape", lambda: tf.one_hot(iv, tf.shape(a)[1]))
    c("p_range_shape", lambda: tf.range(tf.shape(b)[2]))
    c("p_range_shape2", lambda: tf.range(0, tf.shape(b)[0] * 3, 2))
    c("p_fill_concat", lambda: tf.fill(tf.concat([tf.shape(b)[:-1], [1]], 0), 0.0))
    c("p_zeros_list", lambda: tf.zeros([tf.shape(a)[0], 3]))
    c("p_zeros_list2", lambda: tf.zeros([tf.shape(b)[2], tf.shape(a)[1]]))
    c("p_zeros_list_dtype", lambda: tf.zeros((tf.shape(b)[0], 2), tf.int64))
    c("p_ones_list_n", lambda: tf.ones([n, tf.shape(m)[1]]))
    c("p_useg_shape", lambda: tf.unsorted_segment_sum(a, iv, tf.shape(a)[0]))
    c("p_useg_known", lambda: tf.unsorted_segment_sum(m, [0, 1, 0, 1], tf.shape(m)[0]))
    c("p_resize_shape", lambda: tf.image.resize_images(img, tf.shape(img)[1:3]))
    c("p_resize_stack", lambda: tf.image.resize_bilinear(img, tf.stack([tf.shape(img)[1], 3])))
    c("p_ru_shape", lambda: tf.random_uniform(tf.shape(a)))
    c("p_ru_list", lambda: tf.random_uniform([tf.shape(a)[0], 1]))
    c("p_ru_int", lambda: tf.random_uniform([2, 3], maxval=5, dtype=tf.int32))
    c("p_multinomial", lambda: tf.multinomial(a, 4))
    c("p_multinomial_n", lambda: tf.multinomial(a, n))
    c("p_rshuffle", lambda: tf.random_shuffle(b))
    c("p_rgamma", lambda: tf.random_gamma([5], P(tf.float32, [None, 2])))
    c("p_rpoisson", lambda: tf.random_poisson(P(tf.float32, [3]), [4, 2]))
    c("p_stateless", lambda: tf.random.stateless_normal(tf.concat([tf.shape(a)[:1], [7]], 0), [1, 2]))
    c("p_stateless_u", lambda: tf.random.stateless_uniform(tf.shape(b), [1, 2]))
    c("p_trunc_shape", lambda: tf.truncated_normal(tf.shape(b)[1:]))
    c("p_bcast_list", lambda: tf.broadcast_to(a, [4, tf.shape(a)[0], 3]))
    c("p_bcast_stack", lambda: tf.broadcast_to(s, tf.stack([tf.shape(a)[0], 3])))
    c("p_sparse_to_dense_t", lambda: tf.sparse_to_dense(P(tf.int32, [None, 2]), tf.shape(m), 1.0))
    c("p_scatter_nd_shape", lambda: tf.scatter_nd(P(tf.int32, [None, 1]), a, tf.shape(a)))
    c("p_eye_shape", lambda: tf.eye(tf.shape(m)[0]))
    c("p_eye_shape2", lambda: tf.eye(tf.shape(a)[1], batch_shape=tf.shape(a)[:1]))
    c("p_seqmask_shape", lambda: tf.sequence_mask(iv, tf.shape(seq)[1]))
    c("p_split_shape", lambda: tf.split(m, [tf.shape(m)[1] - 2, 2], 1))
    c("p_reshape_shape_mul", lambda: tf.reshape(a, tf.shape(a) * [1, 1]))
    c("p_concat_shape_cast", lambda: tf.zeros(tf.cast(tf.concat([[2], tf.shape(a)[1:]], 0), tf.int64)))
    c("p_linspace_n", lambda: tf.lin_space(0.0, 1.0, tf.shape(a)[1]))
    c("p_gather_shape", lambda: tf.zeros(tf.gather(tf.shape(b), [2, 0])))
    c("p_matrix_set_diag", lambda: tf.matrix_set_diag(bm, P(tf.float32, [3, None])))
    c("p_zeros_unpack", lambda: tf.zeros([tf.unstack(tf.shape(b))[2], 2]))
    c("p_expand_shape", lambda: tf.zeros(tf.expand_dims(tf.shape(a)[1], 0)))
    c("p_squeeze_shape", lambda: tf.reshape(a, tf.squeeze(tf.stack([[tf.shape(a)[0]], [3]]), 1)))
    c("p_max_shape", lambda: tf.zeros(tf.maximum(tf.shape(m), [5, 5])))
    c("p_shape_int64", lambda: tf.zeros(tf.shape(b, out_type=tf.int64)))
    c("p_size_shape", lambda: tf.zeros([tf.size(m)]))
    c("p_rank_shape", lambda: tf.zeros([tf.rank(b)]))
    c("p_fill_shape_n", lambda: tf.fill([tf.shape(b)[1], 2], 0.0))
    c("p_conv_transpose_partial", lambda: tf.nn.conv2d_transpose(img, tf.ones([3, 3, 4, 3]),
                                               tf.stack([tf.shape(img)[0], tf.shape(img)[1] * 2, 16, 4]),
                                               [1, 2, 2, 1], "SAME"))
    c("p_crop_and_resize", lambda: tf.image.crop_and_resize(img, P(tf.float32, [None, 4]), iv, [5, 5]))
    c("p_nms", lambda: tf.image.non_max_suppression(P(tf.float32, [None, 4]), iv, 10))
    c("p_draw_bb", lambda: tf.image.draw_bounding_boxes(img, P(tf.float32, [None, 2, 4])))
    c("p_sobel", lambda: tf.image.sobel_edges(img))
    c("p_img_grad", lambda: tf.image.image_gradients(img))
    c("p_total_var", lambda: tf.image.total_variation(img))
    c("p_psnr", lambda: tf.image.psnr(img, img, 1.0))
    c("p_hsv", lambda: tf.image.rgb_to_hsv(img))
    c("p_adjust", lambda: tf.image.adjust_brightness(img, 0.1))
    c("p_per_image_std", lambda: tf.image.per_image_standardization(img))
    c("p_convert_dtype", lambda: tf.image.convert_image_dtype(img, tf.uint8))
    c("p_rot90", lambda: tf.image.rot90(img))
    c("p_transpose_img", lambda: tf.image.transpose_image(P(tf.float32, [8, 5, 3])))
    c("p_fused_bn", lambda: tf.nn.fused_batch_norm(img, tf.ones([3]), tf.zeros([3])))
    c("p_bn", lambda: tf.nn.batch_normalization(img, 0.0, 1.0, None, None, 1e-3))
    c("p_conv_bi", lambda: tf.nn.conv2d_backprop_input(tf.shape(img), flt, tf.ones([2, 8, 8, 6]),
                                                        [1, 1, 1, 1], "SAME"))
    c("p_conv_bf", lambda: tf.nn.conv2d_backprop_filter(img, [3, 3, 3, 6], tf.ones([2, 8, 8, 6]),
                                                         [1, 1, 1, 1], "SAME"))
    c("p_softmax_u", lambda: tf.nn.softmax(u))
    c("p_relu", lambda: tf.nn.relu6(b))
    c("p_xw_plus_b", lambda: tf.nn.xw_plus_b(a, tf.ones([3, 2]), tf.ones([2])))
    c("p_weighted_ce", lambda: tf.nn.weighted_cross_entropy_with_logits(a, a, 2.0))
    c("p_compute_accidental", lambda: tf.nn.compute_accidental_hits(P(tf.int64, [None, 1]),
                                                                    P(tf.int64, [5]), 1)[0])
    c("p_log_uniform", lambda: tf.nn.log_uniform_candidate_sampler(P(tf.int64, [None, 1]), 1, 5,
                                                                   True, 10)[0])
    c("p_py_func", lambda: tf.py_func(lambda x: x, [a], tf.float32))
    c("p_stop_grad", lambda: tf.stop_gradient(b))
    c("p_check_num", lambda: tf.check_numerics(b, "x"))
    c("p_ensure_shape", lambda: tf.ensure_shape(u, [None, 3]))
    c("p_placeholder_with_default", lambda: tf.placeholder_with_default([[1.0, 2.0]], [None, 2]))
    c("p_identity_n", lambda: tf.identity_n([a, b]))
    c("p_tuple", lambda: tf.tuple([a, b]))
    c("p_extract_glimpse", lambda: tf.image.extract_glimpse(img, [3, 3], P(tf.float32, [None, 2])))
    c("p_matrix_solve", lambda: tf.matrix_solve(P(tf.float32, [None, 3, 3]), P(tf.float32, [None, 3, 2])))
    c("p_tri_solve", lambda: tf.matrix_triangular_solve(P(tf.float32, [3, 3]), P(tf.float32, [3, None])))
    c("p_lstsq", lambda: tf.matrix_solve_ls(P(tf.float32, [5, 3]), P(tf.float32, [5, 2])))
    c("p_self_adj_eig", lambda: tf.self_adjoint_eig(P(tf.float32, [None, 3, 3])))
    c("p_cross", lambda: tf.cross(a, a))
    c("p_fft", lambda: tf.fft(tf.cast(a, tf.complex64)))
    c("p_rfft", lambda: tf.spectral.rfft(P(tf.float32, [None, 8])))
    c("p_rfft2", lambda: tf.spectral.rfft2d(P(tf.float32, [None, 8, 6])))
    c("p_stft", lambda: tf.signal.stft(P(tf.float32, [None, 100]), 16, 8))
    c("p_frame", lambda: tf.signal.frame(P(tf.float32, [None, 100]), 16, 8))
    c("p_bitcast", lambda: tf.bitcast(a, tf.int32))
    c("p_bitcast_small", lambda: tf.bitcast(a, tf.uint8))
    c("p_complex", lambda: tf.complex(a, a))
    c("p_real", lambda: tf.real(tf.complex(a, a)))
    c("p_string_to_num", lambda: tf.string_to_number(P(tf.string, [None, 2])))
    c("p_as_string", lambda: tf.as_string(a))
    c("p_reduce_join", lambda: tf.reduce_join(P(tf.string, [None, 2]), 1))
    c("p_regex", lambda: tf.regex_replace(P(tf.string, [None]), "a", "b"))
    c("p_string_len", lambda: tf.strings.length(P(tf.string, [None, 2])))
    c("p_decode_raw", lambda: tf.decode_raw(P(tf.string, [None]), tf.float32))
    c("p_decode_raw_s", lambda: tf.decode_raw(P(tf.string, [3]), tf.uint8))
    c("p_parse_example", lambda: tf.parse_example(P(tf.string, [None]),
                                                  {"x": tf.FixedLenFeature([3], tf.float32),
                                                   "y": tf.VarLenFeature(tf.int64)}))
    c("p_parse_single", lambda: tf.parse_single_example(P(tf.string, []),
                                                        {"x": tf.FixedLenFeature([2, 2], tf.float32)}))
    c("p_decode_png", lambda: tf.image.decode_png(P(tf.string, []), channels=3))
    c("p_decode_jpeg", lambda: tf.image.decode_jpeg(P(tf.string, [])))
    c("p_decode_image", lambda: tf.image.decode_image(P(tf.string, [])))
    c("p_encode_png", lambda: tf.image.encode_png(P(tf.uint8, [4, 4, 3])))
    c("p_read_file", lambda: tf.read_file("x"))
    c("p_tfrecord_reader", lambda: tf.TFRecordReader().read(tf.train.string_input_producer(["x"])))
    c("p_batch", lambda: tf.train.batch([P(tf.float32, [3]), P(tf.int32, [])], 5))
    c("p_batch_dyn", lambda: tf.train.batch([P(tf.float32, [None])], 5, dynamic_pad=True))
    c("p_shuffle_batch", lambda: tf.train.shuffle_batch([P(tf.float32, [3])], 4, 10, 2))
    c("p_fifo_dequeue", lambda: tf.FIFOQueue(3, [tf.float32], [[2, 3]]).dequeue_many(4))
    c("p_fifo_dequeue_n", lambda: tf.FIFOQueue(3, [tf.float32], [[2, 3]]).dequeue_many(n))
    c("p_fifo_up_to", lambda: tf.FIFOQueue(3, [tf.float32], [[2, 3]]).dequeue_up_to(4))
    c("p_padding_q", lambda: tf.PaddingFIFOQueue(3, [tf.float32], [[None, 3]]).dequeue_many(2))
    c("p_fifo_noshape", lambda: tf.FIFOQueue(3, [tf.float32]).dequeue())
    c("p_var", lambda: tf.Variable(tf.zeros([2, 3])).value())
    c("p_var_read", lambda: tf.get_variable("v", [4, 2]).read_value())
    c("p_var_validate", lambda: tf.Variable(tf.zeros([n, 3]), validate_shape=False).value())
    c("p_var_assign", lambda: tf.assign(tf.Variable(tf.zeros([2, 3])), tf.ones([2, 3])))
    c("p_var_assign_nv", lambda: tf.assign(tf.Variable(tf.zeros([2, 3])), tf.ones([4]),
                                            validate_shape=False))
    c("p_scatter_update", lambda: tf.scatter_update(tf.Variable(tf.zeros([5, 3])), iv, a))
    c("p_var_sparse_read", lambda: tf.gather(tf.get_variable("w", [6, 2]), iv))
    c("p_resource_var", lambda: tf.get_variable("rv", [3, 2], use_resource=True).read_value())
    c("p_grad_shape", lambda: tf.gradients(tf.reduce_sum(b * 2.0), [b]))
    c("p_grad_reshape", lambda: tf.gradients(tf.reduce_sum(tf.reshape(b, [-1])), [b]))
    c("p_grad_gather", lambda: tf.convert_to_tensor(tf.gradients(tf.reduce_sum(tf.gather(m, iv)), m)[0]))
    c("p_grad_matmul", lambda: tf.gradients(tf.reduce_sum(tf.matmul(a, tf.ones([3, 2]))), [a]))
    c("p_grad_u", lambda: tf.gradients(tf.reduce_sum(u * u), [u]))
    c("p_grad_bcast", lambda: tf.gradients(tf.reduce_sum(a + P(tf.float32, [3])), [a]))
    c("p_grad_conv", lambda: tf.gradients(tf.reduce_sum(tf.nn.conv2d(img, flt, [1, 2, 2, 1], "SAME")),
                                           [img]))
    c("p_grad_pool", lambda: tf.gradients(tf.reduce_sum(tf.nn.max_pool(img, [1, 2, 2, 1],
                                                                       [1, 2, 2, 1], "VALID")), [img]))
    c("p_grad_while", lambda: tf.gradients(tf.reduce_sum(tf.while_loop(
        lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, a])[1]), [a]))
    c("p_grad_cond", lambda: tf.gradients(tf.reduce_sum(tf.cond(P(tf.bool, []), lambda: a * 2.0,
                                                                lambda: a)), [a]))
    c("p_grad_dynrnn", lambda: tf.gradients(tf.reduce_sum(tf.nn.dynamic_rnn(
        rnn_cell.BasicRNNCell(3), seq, dtype=tf.float32)[0]), [seq]))

    # --- batch 3
    c("q_ds_output_shapes", lambda: tf.data.get_output_shapes(tf.data.Dataset.range(5).map(lambda x: tf.fill([x], x)).padded_batch(2, padded_shapes=[None])))
    c("q_ds_output_shapes_batch", lambda: tf.data.get_output_shapes(tf.data.Dataset.from_tensor_slices((np.zeros((10, 3)), np.zeros(10))).batch(4)))
    c("q_ds_output_types", lambda: str(tf.data.get_output_types(tf.data.Dataset.from_tensor_slices((np.zeros((10, 3)), np.zeros(10, np.int32))))))
    c("q_ds_repeat_shuffle", _ds(lambda: tf.data.Dataset.from_tensor_slices(np.zeros((10, 3))).shuffle(5).repeat().batch(2)))
    c("q_ds_interleave", _ds(lambda: tf.data.Dataset.range(3).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)))
    c("q_ds_filter", _ds(lambda: tf.data.Dataset.range(5).filter(lambda x: x > 2)))
    c("q_ds_map_py", _ds(lambda: tf.data.Dataset.range(5).map(lambda x: tf.py_func(lambda v: v, [x], tf.int64))))
    c("q_iter_structure", lambda: tf.data.Iterator.from_structure(tf.float32, tf.TensorShape([None, 3])).get_next())
    c("q_squeeze_unk", lambda: tf.squeeze(P(tf.float32, [None, 1, 3])))
    c("q_squeeze_u", lambda: tf.squeeze(u))
    c("q_squeeze_axis_u", lambda: tf.squeeze(u, [1]))
    c("q_concat_u_mixed", lambda: tf.concat([u, b], 1))
    c("q_concat_scalars_err", lambda: tf.concat([s, s], 0))
    c("q_slice_partial_begin", lambda: tf.slice(m, tf.stack([n, 0]), [2, 3]))
    c("q_slice_neg_size_partial", lambda: tf.slice(b, [0, 0, 1], [-1, -1, -1]))
    c("q_tile_u", lambda: tf.tile(u, [2, 2]))
    c("q_tile_shu", lambda: tf.tile(m, shu))
    c("q_gather_neg_axis", lambda: tf.gather(b, iv, axis=-1))
    c("q_gather_nd_batch", lambda: tf.gather_nd(bm, P(tf.int32, [None, 2, 1]), batch_dims=1))
    c("q_reduce_empty_axis", lambda: tf.reduce_sum(b, []))
    c("q_reduce_empty_keep", lambda: tf.reduce_sum(b, [], keepdims=True))
    c("q_argmax_u", lambda: tf.argmax(u, 0))
    c("q_matmul_u_known", lambda: tf.matmul(u, m))
    c("q_transpose_t_perm", lambda: tf.transpose(b, P(tf.int32, [3])))
    c("q_reverse_v2", lambda: tf.reverse_v2(b, [-1]))
    c("q_roll", lambda: tf.roll(b, 1, 0))
    c("q_unique_counts", lambda: tf.unique_with_counts(iv))
    c("q_meshgrid_ij", lambda: tf.meshgrid(tf.range(3), tf.range(4), indexing="ij"))
    c("q_meshgrid_u", lambda: tf.meshgrid(iv, tf.range(4)))
    c("q_cumprod_rev", lambda: tf.cumprod(a, 1, reverse=True))
    c("q_confusion", lambda: tf.confusion_matrix(iv, iv))
    c("q_confusion_n", lambda: tf.confusion_matrix(iv, iv, num_classes=4))
    c("q_matrix_transpose", lambda: tf.matrix_transpose(bm))
    c("q_linalg_norm", lambda: tf.norm(bm, axis=[-2, -1]))
    c("q_space_to_batch_t", lambda: tf.space_to_batch_nd(img, [2, 2], P(tf.int32, [2, 2])))
    c("q_batch_gather", lambda: tf.batch_gather(bm, P(tf.int32, [None, 2])))
    c("q_tensor_scatter", lambda: tf.tensor_scatter_nd_update(m, P(tf.int32, [None, 2]), P(tf.float32, [None])))
    c("q_scatter_nd_add_var", lambda: tf.scatter_nd_add(tf.Variable(tf.zeros([4, 3])), P(tf.int32, [None, 1]), a))
    c("q_reshape_zero", lambda: tf.reshape(P(tf.float32, [0, 3]), [-1, 6]))
    c("q_reshape_zero2", lambda: tf.reshape(P(tf.float32, [None, 0]), [4, -1]))
    c("q_fill_scalar_shape", lambda: tf.fill([], 2.0))
    c("q_zeros_empty", lambda: tf.zeros([0, 3]))
    c("q_range_delta_t", lambda: tf.range(0, 10, n))
    c("q_range_limit_f", lambda: tf.range(1.5, 4.0))
    c("q_one_hot_u", lambda: tf.one_hot(P(tf.int32, None), 3))
    c("q_one_hot_axis_mid", lambda: tf.one_hot(ia, 4, axis=1))
    c("q_pad_sym", lambda: tf.pad(b, [[0, 0], [1, 2], [2, 2]], mode="SYMMETRIC"))
    c("q_mirror_pad_t", lambda: tf.pad(m, tf.constant([[1, 1], [0, 0]]), mode="REFLECT"))
    c("q_broadcast_to_u", lambda: tf.broadcast_to(u, [2, 3]))
    c("q_bcast_args", lambda: tf.broadcast_dynamic_shape(tf.shape(a), [5, 1, 1]))
    c("q_where_broadcast", lambda: tf.where_v2(P(tf.bool, [None, 1]), a, P(tf.float32, [3])))
    c("q_while_ta_unknown", lambda: tf.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t.write(i, tf.ones([2]))), [0, tf.TensorArray(tf.float32, size=0, dynamic_size=True)])[1].stack())
    c("q_while_shape_inv_none", lambda: tf.while_loop(lambda x: tf.shape(x)[0] < 10, lambda x: tf.concat([x, x], 0), [a], shape_invariants=[tf.TensorShape(None)]))
    c("q_cond_none_shape", lambda: tf.cond(P(tf.bool, []), lambda: u, lambda: a))
    c("q_cond_scalar_vs_vec", lambda: tf.cond(P(tf.bool, []), lambda: tf.constant(1.0), lambda: tf.constant([1.0])))
    c("q_map_fn_unk", lambda: tf.map_fn(lambda r: tf.concat([r, r], 0), P(tf.float32, [None, None])))
    c("q_map_fn_scalar_out", lambda: tf.map_fn(lambda r: tf.shape(r)[0], a, dtype=tf.int32))
    c("q_scan_tuple", lambda: tf.scan(lambda acc, x: (acc[0] + x, acc[1] * 2.0), a, initializer=(tf.zeros([3]), tf.ones([3]))))
    c("q_layers_dense_u", lambda: layers.dense(P(tf.float32, [None, None, 3]), 2))
    c("q_layers_conv1d", lambda: layers.conv1d(seq, 3, 2, strides=2))
    c("q_layers_conv2dT", lambda: layers.conv2d_transpose(img, 4, 3, strides=2, padding="same"))
    c("q_layers_conv2dT_valid", lambda: layers.conv2d_transpose(img2, 4, 3, strides=2))
    c("q_layers_sepconv", lambda: layers.separable_conv2d(img, 4, 3))
    c("q_layers_avgpool1d", lambda: layers.average_pooling1d(seq, 2, 2))
    c("q_layers_bn_axis1", lambda: layers.batch_normalization(P(tf.float32, [None, 3, 4, 4]), axis=1))
    c("q_embedding_lookup_u", lambda: tf.nn.embedding_lookup(tf.ones([10, 4]), P(tf.int32, None)))
    c("q_embedding_partitioned", lambda: tf.nn.embedding_lookup([tf.ones([5, 4]), tf.ones([5, 4])], iv))
    c("q_conv2d_nchw", lambda: tf.nn.conv2d(P(tf.float32, [None, 3, 8, 8]), flt, [1, 1, 2, 2], "SAME", data_format="NCHW"))
    c("q_pool_nchw", lambda: tf.nn.max_pool(P(tf.float32, [None, 3, 8, 8]), [1, 1, 2, 2], [1, 1, 2, 2], "VALID", data_format="NCHW"))
    c("q_avg_pool_u", lambda: tf.nn.avg_pool(u, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    c("q_conv_u", lambda: tf.nn.conv2d(u, flt, [1, 1, 1, 1], "SAME"))
    c("q_conv_u_filter", lambda: tf.nn.conv2d(img, P(tf.float32, None), [1, 1, 1, 1], "SAME"))
    c("q_resize_area", lambda: tf.image.resize_area(img, [3, 5]))
    c("q_resize_bicubic_t", lambda: tf.image.resize_bicubic(img, tf.constant([4, 4]) * 2))
    c("q_resize_method", lambda: tf.image.resize_images(img, [5, 5], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR))
    c("q_resize_u", lambda: tf.image.resize_images(u, [5, 5]))
    c("q_random_flip", lambda: tf.image.random_flip_left_right(P(tf.float32, [8, 8, 3])))
    c("q_random_brightness", lambda: tf.image.random_brightness(img, 0.2))
    c("q_random_crop_t", lambda: tf.random_crop(P(tf.float32, [None, 8, 3]), tf.stack([n, 4, 3])))
    c("q_sample_distorted", lambda: tf.image.sample_distorted_bounding_box(tf.constant([8, 8, 3]), tf.zeros([1, 1, 4]), min_object_covered=0.1))
    c("q_sparse_placeholder_u", lambda: tf.sparse_placeholder(tf.float32).dense_shape)
    c("q_sparse_dense_matmul_adj", lambda: tf.sparse_tensor_dense_matmul(sp, P(tf.float32, [3, None]), adjoint_a=True))
    c("q_sparse_slice", lambda: tf.sparse_slice(sp, [0, 0], [2, 2]).dense_shape)
    c("q_sparse_fill_empty", lambda: tf.sparse_fill_empty_rows(sp, 0.0)[0].dense_shape)
    c("q_sparse_retain", lambda: tf.sparse_retain(sp, [True, False]).values)
    c("q_sparse_reorder", lambda: tf.sparse_reorder(spp).dense_shape)
    c("q_sparse_merge", lambda: tf.sparse_merge(tf.SparseTensor([[0, 0]], [1], [2, 3]), tf.SparseTensor([[0, 0]], [1.0], [2, 3]), 7).dense_shape)
    c("q_sparse_maximum", lambda: tf.sparse_maximum(sp, sp).dense_shape)
    c("q_string_split_v", lambda: tf.string_split(P(tf.string, [None])).values)
    c("q_strings_split_ragged_to_sparse", lambda: tf.strings.split(P(tf.string, [None])).dense_shape if hasattr(tf.strings.split(P(tf.string, [None])), "dense_shape") else None)

    # --- batch 4
    c("r_conv3d_T", lambda: tf.nn.conv3d_transpose(P(tf.float32, [None, 4, 4, 4, 6]), tf.ones([3, 3, 3, 3, 6]), [2, 8, 8, 8, 3], [1, 2, 2, 2, 1], "SAME"))
    c("r_dw_bi", lambda: tf.nn.depthwise_conv2d_native_backprop_input(tf.shape(img), tf.ones([3, 3, 3, 2]), P(tf.float32, [None, 8, 8, 6]), [1, 1, 1, 1], "SAME"))
    c("r_dw_bf", lambda: tf.nn.depthwise_conv2d_native_backprop_filter(img, [3, 3, 3, 2], P(tf.float32, [None, 8, 8, 6]), [1, 1, 1, 1], "SAME"))
    c("r_avgpool_grad", lambda: tf.gradients(tf.reduce_sum(tf.nn.avg_pool(img2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")), img2))
    c("r_conv_grad_filter", lambda: tf.gradients(tf.reduce_sum(tf.nn.conv2d(img, P(tf.float32, [3, 3, 3, None]), [1, 1, 1, 1], "SAME")), img))
    c("r_ctc_loss", lambda: tf.nn.ctc_loss(tf.SparseTensor(P(tf.int64, [None, 2]), P(tf.int32, [None]), [2, 5]), P(tf.float32, [7, 2, 6]), P(tf.int32, [2])))
    c("r_ctc_beam", lambda: tf.nn.ctc_beam_search_decoder(P(tf.float32, [7, None, 6]), iv, top_paths=2)[1])
    c("r_lrn", lambda: tf.nn.local_response_normalization(img2))
    c("r_softplus", lambda: tf.nn.softplus(u))
    c("r_crelu", lambda: tf.nn.crelu(a))
    c("r_crelu_u", lambda: tf.nn.crelu(u))
    c("r_selu", lambda: tf.nn.selu(b))
    c("r_leaky", lambda: tf.nn.leaky_relu(a))
    c("r_normalize_moments", lambda: tf.nn.normalize_moments(tf.constant(4.0), tf.ones([3]), tf.ones([3]), None))
    c("r_weighted_moments", lambda: tf.nn.weighted_moments(b, [0, 1], tf.ones([2, 1, 1])))
    c("r_sufficient_stats", lambda: tf.nn.sufficient_statistics(b, [0, 1]))
    c("r_fractional_pool", lambda: tf.nn.fractional_max_pool(P(tf.float32, [2, 9, 9, 3]), [1.0, 1.5, 1.5, 1.0])[0])
    c("r_dilation2d", lambda: tf.nn.dilation2d(img, tf.ones([3, 3, 3]), [1, 1, 1, 1], [1, 1, 1, 1], "SAME"))
    c("r_pool_generic", lambda: tf.nn.pool(img, [2, 2], "MAX", "SAME", strides=[2, 2]))
    c("r_conv_generic", lambda: tf.nn.convolution(img, flt, "SAME", dilation_rate=[2, 2]))
    c("r_matrix_exp", lambda: tf.linalg.expm(P(tf.float32, [None, 3, 3])))
    c("r_logdet", lambda: tf.linalg.logdet(P(tf.float32, [3, 3])))
    c("r_slogdet", lambda: tf.linalg.slogdet(P(tf.float32, [None, 3, 3])))
    c("r_band_u", lambda: tf.matrix_band_part(u, 1, 1))
    c("r_cholesky_solve", lambda: tf.cholesky_solve(P(tf.float32, [3, 3]), P(tf.float32, [3, None])))
    c("r_eigvals", lambda: tf.self_adjoint_eigvals(P(tf.float32, [None, 4, 4])))
    c("r_svd_full", lambda: tf.svd(P(tf.float32, [None, 5, 3]), full_matrices=True))
    c("r_svd_nouv", lambda: tf.svd(P(tf.float32, [5, 3]), compute_uv=False))
    c("r_qr_full", lambda: tf.qr(P(tf.float32, [5, 3]), full_matrices=True))
    c("r_lu", lambda: tf.linalg.lu(P(tf.float32, [None, 3, 3])))
    c("r_tridiag", lambda: tf.linalg.tridiagonal_solve(P(tf.float32, [3, 4]), P(tf.float32, [4, 2])))
    c("r_adjoint", lambda: tf.linalg.adjoint(bm))
    c("r_lstsq_batch", lambda: tf.matrix_solve_ls(P(tf.float32, [None, 5, 3]), P(tf.float32, [None, 5, 2])))
    c("r_ifft2d", lambda: tf.ifft2d(tf.cast(bm, tf.complex64)))
    c("r_irfft", lambda: tf.spectral.irfft(P(tf.complex64, [None, 5])))
    c("r_irfft_len", lambda: tf.spectral.irfft(P(tf.complex64, [None, 5]), [8]))
    c("r_dct", lambda: tf.signal.dct(P(tf.float32, [None, 8])))
    c("r_overlap_add", lambda: tf.signal.overlap_and_add(P(tf.float32, [None, 5, 16]), 8))
    c("r_mfcc", lambda: tf.signal.mfccs_from_log_mel_spectrograms(P(tf.float32, [None, 10, 20])))
    c("r_mel_matrix", lambda: tf.signal.linear_to_mel_weight_matrix(20, 129, 16000))
    c("r_hann", lambda: tf.signal.hann_window(16))
    c("r_inverse_stft", lambda: tf.signal.inverse_stft(P(tf.complex64, [None, 11, 9]), 16, 8))
    c("r_sparse_add_sp", lambda: tf.sparse_add(sp, sp).dense_shape)
    c("r_sparse_dense_cwise", lambda: (sp * tf.ones([3, 4])).values)
    c("r_sparse_split", lambda: [t.dense_shape for t in tf.sparse_split(sp_input=sp, num_split=2, axis=1)])
    c("r_sparse_tensor_to_dense_u", lambda: tf.sparse_tensor_to_dense(tf.SparseTensor(P(tf.int64, [None, 3]), P(tf.float32, [None]), P(tf.int64, [3]))))
    c("r_sparse_to_dense_u", lambda: tf.sparse_to_dense(P(tf.int32, [None, 2]), sh[:2], 1.0))
    c("r_sparse_placeholder_shape_t", lambda: tf.sparse_tensor_to_dense(tf.sparse_placeholder(tf.float32, shape=[2, None, 4])))
    c("r_sparse_mask", lambda: tf.sparse_mask(tf.IndexedSlices(a, iv, tf.constant([10, 3])), [1]).values)
    c("r_indexed_slices_dense", lambda: tf.convert_to_tensor(tf.IndexedSlices(a, iv, tf.constant([10, 3]))))
    c("r_indexed_slices_dense_u", lambda: tf.convert_to_tensor(tf.IndexedSlices(a, iv, tf.shape(m))))
    c("r_string_format", lambda: tf.strings.format("{}", [a]))
    c("r_substr_v", lambda: tf.strings.substr(P(tf.string, [None]), 0, 2))
    c("r_encode_base64", lambda: tf.encode_base64(P(tf.string, [None, 2])))
    c("r_string_to_hash", lambda: tf.string_to_hash_bucket_fast(P(tf.string, [None, 3]), 10))
    c("r_lookup_vocab", lambda: tf.contrib.lookup.index_table_from_tensor(["a"]).lookup(P(tf.string, [None, 2])) if hasattr(tf, "contrib") else tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], [0], tf.string, tf.int64), 1).lookup(P(tf.string, [None, 2])))
    c("r_clip_global_u", lambda: tf.clip_by_global_norm([u, a], 1.0)[0])
    c("r_clip_average", lambda: tf.clip_by_average_norm(a, 1.0))
    c("r_add_n_mixed", lambda: tf.add_n([a, P(tf.float32, [5, None])]))
    c("r_accumulate_n", lambda: tf.accumulate_n([a, a]))
    c("r_einsum_batch_u", lambda: tf.einsum("...ij,...jk->...ik", bm, P(tf.float32, [None, 5, 2])))
    c("r_tensordot_axes0", lambda: tf.tensordot(P(tf.float32, [2]), P(tf.float32, [3]), 0))
    c("r_matvec", lambda: tf.linalg.matvec(bm, P(tf.float32, [5])))
    c("r_reduce_euclid", lambda: tf.reduce_euclidean_norm(b, 1) if hasattr(tf, "reduce_euclidean_norm") else tf.norm(b, axis=1))
    c("r_unsorted_seg_u", lambda: tf.unsorted_segment_sum(u, iv, 5))
    c("r_segment_u", lambda: tf.segment_max(u, iv))
    c("r_while_parallel", lambda: tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.reshape(x, [-1, 3])), [0, a]))
    c("r_cond_ta", lambda: tf.cond(P(tf.bool, []), lambda: tf.TensorArray(tf.float32, 2).write(0, tf.ones([3])).stack(), lambda: tf.zeros([2, 3])))
    c("r_ensure_bad", lambda: tf.ensure_shape(a, [None, 4]))
    c("r_reshape_bad", lambda: tf.reshape(m, [3, -1]))
    c("r_matmul_bad", lambda: tf.matmul(a, m))
    c("r_concat_bad", lambda: tf.concat([a, m], 0))
    c("r_add_bad", lambda: a + m)
    c("r_gather_bad_axis", lambda: tf.gather(a, iv, axis=3))
    c("r_squeeze_bad", lambda: tf.squeeze(a, [1]))
    c("r_transpose_bad", lambda: tf.transpose(a, [0, 1, 2]))
    c("r_tile_bad", lambda: tf.tile(a, [1, 2, 3]))
    c("r_split_bad", lambda: tf.split(m, 3, 0))
    c("r_one_hot_bad", lambda: tf.one_hot(a, 3))
    c("r_stack_bad", lambda: tf.stack([a, m]))
    c("r_conv_bad", lambda: tf.nn.conv2d(img, tf.ones([3, 3, 4, 2]), [1, 1, 1, 1], "SAME"))
    c("r_bias_add_bad", lambda: tf.nn.bias_add(a, tf.ones([4])))
    c("r_slice_bad", lambda: tf.slice(m, [0, 0], [5, 1]))
    c("r_ss_bad", lambda: m[5])
    c("r_where_bad", lambda: tf.where(boolv, a, m))
    c("r_sparse_sce_bad", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ia, logits=a))
    c("r_cast_bad", lambda: tf.cast(P(tf.string, [2]), tf.float32))
    c("r_assign_bad", lambda: tf.assign(tf.Variable(tf.zeros([2, 3])), tf.ones([3])))
    c("r_cond_bad_struct", lambda: tf.cond(P(tf.bool, []), lambda: (a, a), lambda: a))
    c("r_while_bad_shape", lambda: tf.while_loop(lambda x: tf.reduce_sum(x) < 3.0, lambda x: tf.concat([x, x], 0), [a]))
    c("r_reduce_bad_axis", lambda: tf.reduce_sum(a, 2))
    c("r_argmax_bad", lambda: tf.argmax(a, 2))
    c("r_expand_bad", lambda: tf.expand_dims(a, 4))
    c("r_pad_bad", lambda: tf.pad(a, [[1, 1]]))
    c("r_fill_bad", lambda: tf.fill([[2]], 1.0))
    c("r_random_bad", lambda: tf.random_normal([[2]]))


    return C


def fmt(x):
    """A result as nested lists of ``[shape, dtype]``."""
    if x is None:
        return None
    if hasattr(x, "get_shape") and hasattr(x, "dtype"):
        sh = x.get_shape()
        return [None if sh.ndims is None else sh.as_list(), x.dtype.name]
    if hasattr(x, "ndims") and hasattr(x, "as_list"):
        return ["TS", None if x.ndims is None else x.as_list()]
    if isinstance(x, dict):
        return {k: fmt(v) for k, v in sorted(x.items())}
    if isinstance(x, (list, tuple)):
        return [fmt(v) for v in x]
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return {"sparse": [fmt(x.indices), fmt(x.values), fmt(x.dense_shape)]}
    if hasattr(x, "h") and hasattr(x, "c"):
        return [fmt(x.c), fmt(x.h)]
    return x


EXPECTED = {
    'rn_concat': [[None, 7], "float32"],
    'ru_concat': [[None, 7], "float32"],
    'tn_stack': [[None, 4], "float32"],
    'rn_shape': [[2, None, 5], "float32"],
    'rn_slice': [[None, 5], "float32"],
    'rn_sh': [[None, None, None], "float32"],
    'rn_shu': [None, "float32"],
    'rn_list_n': [[None, 3], "float32"],
    'zeros_concat': [[None, 7], "float32"],
    'ones_stack': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[5, 3], "float32"])
    'fill_shape': [[2, None, 5], "float32"],
    'fill_cast': [[None, None, None], "float32"],  # TF 1.15's (TF 2.x: [[2, None, 5], "float32"])
    'fill_mul': [[None, 4], "float32"],  # TF 1.15's (TF 2.x: [[6, 4], "float32"])
    'fill_sh': [[None, None, None], "int32"],
    'zeros_like_u': [None, "float32"],
    'ones_like_b': [[2, None, 5], "int32"],
    'zeros_list': [[None, 2, 3], "float32"],
    'zeros_shape_slice_neg': [[None, 5], "float32"],
    'zeros_shape_stride': [[2, 5], "float32"],
    'reshape_m1': [[None], "float32"],
    'reshape_m1_3': [[None, 5], "float32"],
    'reshape_known': [[2, 10], "float32"],
    'reshape_known2': [[5, 2, 2], "float32"],
    'reshape_shape_concat': [[2, None], "float32"],
    'reshape_stack': [[None, 3, 1], "float32"],
    'reshape_sh': [[None, None, None], "float32"],
    'reshape_shu': [None, "float32"],
    'reshape_u': [[2, None], "float32"],
    'reshape_a_m1_known': [[None, 1, 3], "float32"],
    'reshape_b_m1': [[2, None, 5], "float32"],
    'reshape_shape_of': [[5, None], "float32"],
    'reshape_n': [[None, None], "float32"],
    'expand0': [[1, None, 3], "float32"],
    'expand_m1': [[2, None, 5, 1], "float32"],
    'expand_u': [None, "float32"],
    'squeeze_b': [[2, None, 5], "float32"],
    'squeeze_all': [None, "float32"],
    'transpose': [[5, None, 2], "float32"],
    'transpose_perm': [[None, 5, 2], "float32"],
    'transpose_u': [None, "float32"],
    'transpose_perm_t': [[5, 2, None], "float32"],
    'tile': [[None, 9], "float32"],
    'tile_n': [[None, 6], "float32"],
    'tile_shape': [[16, 25], "float32"],
    'pad': [[None, 4], "float32"],
    'pad_b': [[4, None, 5], "float32"],
    'pad_reflect': [[6, 9], "float32"],
    'pad_t': [[None, None], "float32"],
    'pad_u': [[None], "float32"],
    'slice': [[1, None, 2], "float32"],
    'slice_m': [[3, 4], "float32"],
    'slice_t': [[None, None], "float32"],
    'ss_basic': [[None, 3], "float32"],
    'ss_int': [[None, 5], "float32"],
    'ss_neg': [[5], "float32"],
    'ss_ellipsis': [[2, None], "float32"],
    'ss_newaxis': [[None, 1, 3], "float32"],
    'ss_step': [[2, 2], "float32"],
    'ss_rev': [[4, 5], "float32"],
    'ss_mixed': [[None, 1, 2], "float32"],
    'ss_t_begin': [[None, 5], "float32"],
    'ss_t_idx': [[5], "float32"],
    'ss_u': [None, "float32"],
    'ss_ell_only': [[2, None, 5], "float32"],
    'ss_shrink_last': [[None, 4], "float32"],
    'strided_slice_masks': [[1, None], "float32"],
    'strided_slice_ell': [[2, None, 2], "float32"],
    'strided_slice_new': [[1, 1, 3], "float32"],
    'ss_big_end': [[3, 5], "float32"],
    'ss_neg_step_known': [[3, 2], "float32"],
    'gather': [[None, 5], "float32"],
    'gather_axis1': [[2, None, 4], "float32"],
    'gather_scalar': [[3], "float32"],
    'gather_u': [None, "float32"],
    'gather_idx_u': [None, "float32"],
    'gather_batch': [[None, 2, 5], "float32"],
    'gather_nd': [[None, 5], "float32"],
    'gather_nd_full': [[2], "float32"],
    'gather_nd_u': [None, "float32"],
    'concat0': [[None, 3], "float32"],
    'concat1': [[5, 5], "float32"],
    'concat_m1': [[2, None, 10], "float32"],
    'concat_u': [[None, 3], "float32"],
    'concat_t_axis': [[None, None], "float32"],
    'stack0': [[3, None, 3], "float32"],
    'stack1': [[2, 2, None, 5], "float32"],
    'stack_m1': [[None, 3, 2], "float32"],
    'unstack': [[[5], "float32"], [[5], "float32"], [[5], "float32"], [[5], "float32"]],
    'unstack1': [[[None, 5], "float32"], [[None, 5], "float32"]],
    'unstack_num': [[[None], "float32"], [[None], "float32"], [[None], "float32"]],
    'split2': [[[2, 5], "float32"], [[2, 5], "float32"]],
    'split_sizes': [[[4, 1], "float32"], [[4, 4], "float32"]],
    'split_sizes_m1': [[[4, 1], "float32"], [[4, 2], "float32"], [[4, 2], "float32"]],
    'split_unknown': [[[None, 1], "float32"], [[None, 1], "float32"], [[None, 1], "float32"]],
    'split_a0': [[[None, 3], "float32"], [[None, 3], "float32"]],
    'sum_all': [[], "float32"],
    'sum_0': [[None, 5], "float32"],
    'sum_keep': [[2, 1, 5], "float32"],
    'sum_neg': [[None], "float32"],
    'sum_t_axis': [None, "float32"],
    'sum_t_axis_keep': [[None, None, None], "float32"],
    'sum_t_axis_vec': [None, "float32"],
    'sum_u': [None, "float32"],
    'sum_u_keep': [None, "float32"],
    'sum_u_all': [[], "float32"],
    'reduce_any': [[None], "bool"],
    'logsumexp': [[2, 5], "float32"],
    'logsumexp_keep': [[1, None, 1], "float32"],
    'reduce_std': [[3], "float32"],
    'count_nonzero': [[None], "int64"],
    'norm': [[2, None], "float32"],
    'norm_all': [[], "float32"],
    'l2norm': [[None, 3], "float32"],
    'moments': [[[3], "float32"], [[3], "float32"]],
    'moments_keep': [[[None, 1, 1, 3], "float32"], [[None, 1, 1, 3], "float32"]],
    'matmul': [[None, 4], "float32"],
    'matmul_tt': [[5, 5], "float32"],
    'matmul_u': [None, "float32"],
    'batch_matmul': [[None, 4, 2], "float32"],
    'batch_matmul_bcast': [[None, 4, 2], "float32"],
    'batch_matmul_adj': [[None, 4, 4], "float32"],
    'tensordot': [[2, None, None], "float32"],
    'tensordot_u': [[None, None], "float32"],
    'einsum': [[None, 4, 6], "float32"],
    'outer': [[3, 4], "float32"],
    'conv_same': [[None, 8, 8, 6], "float32"],
    'conv_valid_s2': [[None, 3, 3, 6], "float32"],
    'conv_unknown_hw': [[4, None, None, 6], "float32"],
    'conv_dil': [[None, 4, 4, 6], "float32"],
    'atrous': [[None, 8, 8, 6], "float32"],
    'depthwise': [[None, 6, 6, 6], "float32"],
    'separable': [[None, 8, 8, 5], "float32"],
    'conv1d': [[None, 5, 2], "float32"],
    'conv3d': [[None, 5, 3, 7, 3], "float32"],
    'conv2d_transpose': [[None, 16, 16, 4], "float32"],
    'conv2d_transpose_c': [[2, 16, 16, 4], "float32"],
    'maxpool': [[None, 4, 4, 3], "float32"],
    'avgpool_same': [[None, 4, 4, 3], "float32"],
    'maxpool_unk': [[4, None, None, 3], "float32"],
    'maxpool_argmax': [[[2, 4, 4, 3], "float32"], [[2, 4, 4, 3], "int64"]],
    'pool3d': [[None, 2, 2, 2, 2], "float32"],
    'layers_conv': [[None, 4, 4, 5], "float32"],
    'layers_conv_valid': [[4, None, None, 5], "float32"],
    'layers_pool': [[None, 4, 4, 3], "float32"],
    'layers_dense': [[None, 4], "float32"],
    'layers_dense_3d': [[None, 4, 4], "float32"],
    'layers_flatten': [[None, 192], "float32"],
    'layers_flatten_unk': [[4, None], "float32"],
    'layers_bn': [[None, 8, 8, 3], "float32"],
    'layers_dropout': [[None, 3], "float32"],
    'dropout': [[None, 3], "float32"],
    'dropout_ns': [[2, None, 5], "float32"],
    'bias_add': [[None, 8, 8, 3], "float32"],
    'resize_bilinear': [[None, 16, 12, 3], "float32"],
    'resize_images': [[None, 5, 6, 3], "float32"],
    'resize_3d': [[4, 4, 3], "float32"],
    'resize_unk': [[None, None, None, 3], "float32"],
    'crop_pad': [[None, 6, 10, 3], "float32"],
    'central_crop': [[4, 4, 3], "float32"],
    'flip': [[None, 8, 8, 3], "float32"],
    'rgb2gray': [[None, 8, 8, 1], "float32"],
    'crop_to_bb': [[None, 4, 5, 3], "float32"],
    'pad_to_bb': [[None, 10, 11, 3], "float32"],
    'random_crop': [[4, 4, 3], "float32"],
    'extract_patches': [[None, 6, 6, 27], "float32"],
    'space_to_depth': [[None, 4, 4, 12], "float32"],
    'depth_to_space': [[None, 8, 8, 2], "float32"],
    'space_to_batch': [[None, 4, 4, 3], "float32"],
    'batch_to_space': [[2, 4, 4, 3], "float32"],
    'one_hot': [[None, 5], "float32"],
    'one_hot_ax0': [[4, None, 3], "float32"],
    'one_hot_n': [[None, None], "float32"],
    'one_hot_dtype': [[None, 3], "int64"],
    'where1': [[None, 2], "int64"],
    'where3': [[None, 3], "float32"],
    'where3_vec': [[None, 3], "float32"],
    'where_v2': [[None, 3], "float32"],
    'bcast_to': [[4, 3], "float32"],
    'bcast_to_t': "ERR ValueError",
    'bcast_to_concat': [[None, 2], "float32"],
    'bcast_dyn_shape': [[2], "int32"],
    'bcast_static': ["TS", [5, None, 3]],
    'add_bcast': [[5, None, 3], "float32"],
    'add_bcast_u': [None, "float32"],
    'add_bcast_none': [[None, None], "float32"],
    'cmp': [[None, 3], "bool"],
    'cast': [[2, None, 5], "int64"],
    'maximum': [[None, 3], "float32"],
    'range': [[10], "int32"],
    'range3': [[3], "int32"],
    'range_n': [[None], "int32"],
    'range_shape': [[None], "int32"],  # TF 1.15's (TF 2.x: [[3], "int32"])
    'range_float': [[4], "float32"],
    'range_neg': [[4], "int32"],
    'linspace': [[5], "float32"],
    'argmax': [[2, 5], "int64"],
    'argmax_m1': [[None], "int64"],
    'argmin_i32': [[3], "int32"],
    'argmax_t': [[None, None], "int64"],
    'topk': [[[None, 2], "float32"], [[None, 2], "int32"]],
    'topk_t': [[[None, None], "float32"], [[None, None], "int32"]],
    'topk_u': [[None, "float32"], [None, "int32"]],
    'in_top_k': [[None], "bool"],
    'sort': [[2, None, None], "float32"],  # TF 1.15's (TF 2.x: [[2, None, 5], "float32"])
    'argsort': [[None, None], "int32"],  # TF 1.15's (TF 2.x: [[None, 3], "int32"])
    'cumsum': [[2, None, 5], "float32"],
    'reverse': [[2, None, 5], "float32"],
    'rev_seq': [[None, 7, 4], "float32"],
    'unique': [[[None], "int32"], [[None], "int32"]],
    'shape_op': [[3], "int32"],
    'shape_u': [[None], "int32"],
    'size': [[], "int64"],
    'rank': [[], "int32"],
    'shape_n': [[[2], "int32"], [[3], "int32"]],
    'bool_mask': [[None, 3], "float32"],
    'bool_mask2': [[None, 5], "float32"],
    'setdiff': [[[None], "int32"], [[None], "int32"]],
    'meshgrid': [[[4, 3], "int32"], [[4, 3], "int32"]],
    'diag': [[3, 3], "float32"],
    'diag_part': [[3], "float32"],
    'matrix_diag': [[None, 3, 3], "float32"],
    'matrix_diag_part': [[None, 4], "float32"],
    'matrix_band': [[None, 4, 5], "float32"],
    'eye': [[2, 3, 4], "float32"],
    'eye_n': [[None, None], "float32"],
    'trace': [[None], "float32"],
    'matrix_inverse': [[None, 3, 3], "float32"],
    'cholesky': [[3, 3], "float32"],
    'qr': [[[None, 5, 3], "float32"], [[None, 3, 3], "float32"]],
    'svd': [[[3], "float32"], [[5, 3], "float32"], [[3, 3], "float32"]],
    'det': [[None], "float32"],
    'scatter_nd': [[8, 4], "float32"],
    'scatter_nd_t': [[None, 4], "float32"],
    'sequence_mask': [[None, 6], "bool"],
    'sequence_mask_n': [[None, None], "bool"],
    'sequence_mask_2d': [[None, 3, 5], "bool"],
    'clip': [[None, 3], "float32"],
    'clip_norm': [[2, None, 5], "float32"],
    'clip_global': [[[[None, 3], "float32"], [[2, None, 5], "float32"]], [[], "float32"]],
    # TF 2.21's Einsum op takes 'ii->'; TF 1.15's einsum (the authority) refuses a repeated
    # label unless the equation is 'ii' with no output
    'einsum_trace': "ERR ValueError",
    'histogram': [[7], "int32"],
    'bincount': [[None], "int32"],
    'string_join': [[None], "string"],
    'string_split': [[2], "int64"],
    'substr': [[None, 2], "string"],
    'decode_csv': [[[None], "int32"], [[None], "float32"], [[None], "string"]],
    'seg_sum': [[None, 3], "float32"],
    'seg_mean': [[None, None, 5], "float32"],
    'useg_sum': [[4, 3], "float32"],
    'useg_sum_n': [[None, 3], "float32"],
    'useg_max_2d': [[7, 5], "float32"],
    'sparse_seg': [[None, 3], "float32"],
    'dynamic_partition': [[[None, 3], "float32"], [[None, 3], "float32"], [[None, 3], "float32"]],
    'dynamic_stitch': [[None, 3], "float32"],
    'sp_dense_shape': [[2], "int64"],
    'sp_shape': [[3, 4], "float32"],
    'spp_dense_shape': [[2], "int64"],
    'spp_indices': [[None, 2], "int64"],
    'sp_to_dense': [[3, 4], "float32"],
    'spp_to_dense': [[None, None], "float32"],
    'sp_matmul': [[3, None], "float32"],
    'spp_matmul': [[None, 2], "float32"],
    'sp_reduce': [[3], "float32"],
    'sp_reduce_keep': [[3, 1], "float32"],
    'sp_reshape': [[2], "int64"],
    'sp_add': [[3, 4], "float32"],
    'sp_concat': [[2], "int64"],
    'sp_transpose': [[2], "int64"],
    'sp_softmax': [[2], "float32"],
    'sp_to_indicator': [[2, 4], "bool"],
    'sparse_to_dense': [[5, 6], "float32"],
    'embed_sparse': [[None, 4], "float32"],
    'embed': [[None, 3, 4], "float32"],
    'softmax': [[2, None, 5], "float32"],
    'log_softmax': [[None, 3], "float32"],
    'sce_v2': [[None], "float32"],
    'sce_u': [None, "float32"],
    'sparse_sce': [[None], "float32"],
    'sparse_sce3': [[2, None], "float32"],
    'sigmoid_ce': [[None, 3], "float32"],
    'losses_mse': [[], "float32"],
    'losses_mse_none': [[None, 3], "float32"],
    'losses_sce': [[], "float32"],
    'losses_sparse': [[], "float32"],
    'l2_loss': [[], "float32"],
    'nce': [[None], "float32"],
    'lrn': [[None, 8, 8, 3], "float32"],
    'ctc_greedy': [[None, 1], "float32"],
    'cond_same': [[None, 3], "float32"],
    'cond_diff': [[None, 3], "float32"],
    'cond_rank': [None, "float32"],
    'cond_tuple': [[[None, 3], "float32"], [[None], "int32"]],
    'case': [[4, 5], "float32"],
    'while_fixed': [[[], "int32"], [[None, 3], "float32"]],
    'while_grow': [[[], "int32"], [[None, 3], "float32"]],
    'while_grow2': [[[], "int32"], [[4, None], "float32"]],
    'while_single': [[4, 5], "float32"],
    'ta_stack_loop': [[None, 3], "float32"],  # TF 1.15's (TF 2.x: 3)
    'ta_stack': [[[None, 4, 5], "float32"], [[4, 5], "float32"], [[None, 5], "float32"], [[], "int32"]],
    'ta_elem': [[[None, None, 3], "float32"], [[None, 3], "float32"]],  # TF 1.15's
    'ta_unstack': [[[None, 5], "float32"], [[5], "float32"]],  # TF 1.15's
    'map_fn': [[None, 3], "float32"],
    'map_fn_red': [[2], "float32"],
    'map_fn_dtype': [[4, 5], "int32"],
    'map_fn_tuple': [[[4, 5], "float32"], [[4, 5], "float32"]],
    'scan': [[4, 5], "float32"],
    'scan_init': [[None], "float32"],
    'foldl': [[5], "float32"],
    'dyn_rnn': [[[None, 7, 6], "float32"], [[None, 6], "float32"]],
    'dyn_rnn_lstm': [[[None, 7, 5], "float32"], [[[None, 5], "float32"], [[None, 5], "float32"]]],
    'dyn_rnn_tm': [[[7, None, 3], "float32"], [[None, 3], "float32"]],
    'dyn_rnn_unk_t': [[[2, None, 3], "float32"], [[2, 3], "float32"]],
    'static_rnn': [[None, 4], "float32"],
    'bidir': [[[None, 7, 3], "float32"], [[None, 7, 2], "float32"]],
    'ds_tensor_slices': [[3], "float32"],
    'ds_batch': [[None, 3], "float32"],
    'ds_batch_drop': [[4, 3], "float32"],
    'ds_padded': [[None, None], "int64"],
    'ds_padded_fixed': [[None, 6], "int64"],
    'ds_map': [[[], "float32"], [[None, 2], "float32"]],
    'ds_zip': [[[], "int64"], [[2], "float32"]],
    'ds_dict': {"x": [[2], "float64"], "y": [[], "int32"]},
    'ds_placeholder': "ERR ValueError",
    'ds_window_flat': [[None], "int64"],
    'ds_unbatch': [[3], "float64"],
    'ds_gen': [[None], "int64"],
    'p_reshape_stack_m1': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[2, None], "float32"])
    'p_reshape_stack_m1b': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 5], "float32"])
    'p_reshape_list_mixed': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 192], "float32"])
    'p_reshape_concat_shape': [[None, 3, 1], "float32"],
    'p_reshape_from_other': [[None, 3], "float32"],
    'p_reshape_prod': [[2, None], "float32"],
    'p_tile_stack': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 9], "float32"])
    'p_tile_shape_ones': [[None, 4, 3], "float32"],
    'p_pad_stack': [[None, None], "float32"],
    'p_slice_size_shape': [[2, None, 5], "float32"],
    'p_slice_size_stack': [[None, 2], "float32"],
    'p_onehot_shape': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 3], "float32"])
    'p_range_shape': [[None], "int32"],  # TF 1.15's (TF 2.x: [[5], "int32"])
    'p_range_shape2': [[None], "int32"],  # TF 1.15's (TF 2.x: [[3], "int32"])
    'p_fill_concat': [[2, None, 1], "float32"],
    'p_zeros_list': [[None, 3], "float32"],
    'p_zeros_list2': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[5, 3], "float32"])
    'p_zeros_list_dtype': [[None, 2], "int64"],  # TF 1.15's (TF 2.x: [[2, 2], "int64"])
    'p_ones_list_n': [[None, 5], "float32"],
    'p_useg_shape': [[None, 3], "float32"],
    'p_useg_known': [[4, 5], "float32"],
    'p_resize_shape': [[None, 8, 8, 3], "float32"],
    'p_resize_stack': [[None, None, None, 3], "float32"],  # TF 1.15's (TF 2.x: [[None, 8, 3, 3], "float32"])
    'p_ru_shape': [[None, 3], "float32"],
    'p_ru_list': [[None, 1], "float32"],
    'p_ru_int': [[2, 3], "int32"],
    'p_multinomial': [[None, 4], "int64"],
    'p_multinomial_n': [[None, None], "int64"],
    'p_rshuffle': [[2, None, 5], "float32"],
    'p_rgamma': [[5, None, 2], "float32"],
    'p_rpoisson': [[4, 2, 3], "float32"],
    'p_stateless': [[None, 7], "float32"],
    'p_stateless_u': [[2, None, 5], "float32"],
    'p_trunc_shape': [[None, 5], "float32"],
    'p_bcast_list': [[4, None, 3], "float32"],
    'p_bcast_stack': [[None, 3], "float32"],
    'p_sparse_to_dense_t': [[4, 5], "float32"],
    'p_scatter_nd_shape': [[None, 3], "float32"],
    'p_eye_shape': [[4, 4], "float32"],
    'p_eye_shape2': [[None, None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 3, 3], "float32"])
    'p_seqmask_shape': [[None, None], "bool"],  # TF 1.15's (TF 2.x: [[None, 7], "bool"])
    'p_split_shape': [[[4, 3], "float32"], [[4, 2], "float32"]],
    'p_reshape_shape_mul': [[None, None], "float32"],
    'p_concat_shape_cast': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[2, 3], "float32"])
    'p_linspace_n': [[None], "float32"],  # TF 1.15's (TF 2.x: [[3], "float32"])
    'p_gather_shape': [[None, None], "float32"],
    'p_matrix_set_diag': [[3, 4, 5], "float32"],
    'p_zeros_unpack': [[None, 2], "float32"],  # TF 1.15's (TF 2.x: [[5, 2], "float32"])
    'p_expand_shape': [[None], "float32"],  # TF 1.15's (TF 2.x: [[3], "float32"])
    'p_squeeze_shape': [[None, None], "float32"],
    'p_max_shape': [[5, 5], "float32"],
    'p_shape_int64': [[2, None, 5], "float32"],
    'p_size_shape': [[20], "float32"],
    'p_rank_shape': [[3], "float32"],
    'p_fill_shape_n': [[None, 2], "float32"],
    'p_conv_transpose_partial': [[None, None, 16, 4], "float32"],  # TF 1.15's (TF 2.x: [[None, 16, 16, 4], "float32"])
    'p_crop_and_resize': [[None, 5, 5, 3], "float32"],
    'p_nms': "ERR TypeError",
    'p_draw_bb': [[None, 8, 8, 3], "float32"],
    'p_sobel': [[None, 8, 8, 3, 2], "float32"],
    'p_img_grad': [[[None, 8, 8, 3], "float32"], [[None, 8, 8, 3], "float32"]],
    'p_total_var': [[None], "float32"],
    'p_psnr': [[None], "float32"],
    'p_hsv': [[None, 8, 8, 3], "float32"],
    'p_adjust': [[None, 8, 8, 3], "float32"],
    'p_per_image_std': [[None, 8, 8, 3], "float32"],
    'p_convert_dtype': [[None, 8, 8, 3], "uint8"],
    'p_rot90': [[None, 8, 8, 3], "float32"],
    'p_transpose_img': [[5, 8, 3], "float32"],
    'p_fused_bn': [[[None, 8, 8, 3], "float32"], [[3], "float32"], [[3], "float32"]],
    'p_bn': [[None, 8, 8, 3], "float32"],
    'p_conv_bi': [[None, 8, 8, 3], "float32"],  # TF 1.15's (TF 2.x: out_backprop's batch, 2)
    'p_conv_bf': [[3, 3, 3, 6], "float32"],
    'p_softmax_u': [None, "float32"],
    'p_relu': [[2, None, 5], "float32"],
    'p_xw_plus_b': [[None, 2], "float32"],
    'p_weighted_ce': [[None, 3], "float32"],
    'p_compute_accidental': [[None], "int32"],
    'p_log_uniform': [[5], "int64"],
    'p_py_func': [None, "float32"],
    'p_stop_grad': [[2, None, 5], "float32"],
    'p_check_num': [[2, None, 5], "float32"],
    'p_ensure_shape': [[None, 3], "float32"],
    'p_placeholder_with_default': [[None, 2], "float32"],
    'p_identity_n': [[[None, 3], "float32"], [[2, None, 5], "float32"]],
    'p_tuple': [[[None, 3], "float32"], [[2, None, 5], "float32"]],
    'p_extract_glimpse': [[None, 3, 3, 3], "float32"],
    'p_matrix_solve': [[None, 3, 2], "float32"],
    'p_tri_solve': [[3, None], "float32"],
    'p_lstsq': [[3, 2], "float32"],
    'p_self_adj_eig': [[[None, 3], "float32"], [[None, 3, 3], "float32"]],
    'p_cross': [[None, 3], "float32"],
    'p_fft': [[None, 3], "complex64"],
    'p_rfft': [[None, 5], "complex64"],
    'p_rfft2': [[None, 8, 4], "complex64"],
    'p_stft': [[None, 11, 9], "complex64"],
    'p_frame': [[None, 11, 16], "float32"],
    'p_bitcast': [[None, 3], "int32"],
    'p_bitcast_small': [[None, 3, 4], "uint8"],
    'p_complex': [[None, 3], "complex64"],
    'p_real': [[None, 3], "float32"],
    'p_string_to_num': [[None, 2], "float32"],
    'p_as_string': [[None, 3], "string"],
    'p_reduce_join': [[None], "string"],
    'p_regex': [[None], "string"],
    'p_string_len': [[None, 2], "int32"],
    'p_decode_raw': [[None, None], "float32"],
    'p_decode_raw_s': [[3, None], "uint8"],
    'p_parse_example': {"x": [[None, 3], "float32"], "y": [[None, None], "int64"]},
    'p_parse_single': {"x": [[2, 2], "float32"]},
    'p_decode_png': [[None, None, 3], "uint8"],
    'p_decode_jpeg': [[None, None, None], "uint8"],
    'p_decode_image': [None, "uint8"],
    'p_encode_png': [[], "string"],
    'p_read_file': [[], "string"],
    'p_tfrecord_reader': [[[], "string"], [[], "string"]],
    'p_batch': [[[5, 3], "float32"], [[5], "int32"]],
    'p_batch_dyn': [[5, None], "float32"],
    'p_shuffle_batch': [[4, 3], "float32"],
    'p_fifo_dequeue': [[4, 2, 3], "float32"],
    'p_fifo_dequeue_n': [[None, 2, 3], "float32"],
    'p_fifo_up_to': [[None, 2, 3], "float32"],
    'p_padding_q': [[2, None, 3], "float32"],
    'p_fifo_noshape': [None, "float32"],
    'p_var': [[2, 3], "float32"],
    'p_var_read': [[4, 2], "float32"],
    'p_var_validate': [None, "float32"],
    'p_var_assign': [[2, 3], "float32_ref"],
    'p_var_assign_nv': [[4], "float32_ref"],
    'p_scatter_update': [[5, 3], "float32_ref"],
    'p_var_sparse_read': [[None, 2], "float32"],
    'p_resource_var': [[3, 2], "float32"],
    'p_grad_shape': [[[2, None, 5], "float32"]],
    'p_grad_reshape': [[[2, None, 5], "float32"]],
    'p_grad_gather': [[4, 5], "float32"],
    'p_grad_matmul': [[[None, 3], "float32"]],
    'p_grad_u': [[None, "float32"]],
    'p_grad_bcast': [[[None, 3], "float32"]],
    'p_grad_conv': [[[None, 8, 8, 3], "float32"]],
    'p_grad_pool': [[[None, 8, 8, 3], "float32"]],
    'p_grad_while': [[[None, 3], "float32"]],
    'p_grad_cond': [[[None, 3], "float32"]],
    'p_grad_dynrnn': [[[None, 7, 4], "float32"]],
    'q_ds_output_shapes': ["TS", [None, None]],
    'q_ds_output_shapes_batch': [["TS", [None, 3]], ["TS", [None]]],
    'q_ds_output_types': "(tf.float64, tf.int32)",
    'q_ds_repeat_shuffle': [[None, 3], "float64"],
    'q_ds_interleave': [[], "int64"],
    'q_ds_filter': [[], "int64"],
    'q_ds_map_py': [None, "int64"],
    'q_iter_structure': [[None, 3], "float32"],
    'q_squeeze_unk': [None, "float32"],
    'q_squeeze_u': [None, "float32"],
    'q_squeeze_axis_u': [None, "float32"],
    'q_concat_u_mixed': [[2, None, 5], "float32"],
    'q_concat_scalars_err': "ERR ValueError",
    'q_slice_partial_begin': [[2, 3], "float32"],
    'q_slice_neg_size_partial': [[2, None, 4], "float32"],
    'q_tile_u': [[None, None], "float32"],
    'q_tile_shu': [[None, None], "float32"],
    'q_gather_neg_axis': [[2, None, None], "float32"],
    'q_gather_nd_batch': [[None, 2, 5], "float32"],
    'q_reduce_empty_axis': [[2, None, 5], "float32"],
    'q_reduce_empty_keep': [[2, None, 5], "float32"],
    'q_argmax_u': [None, "int64"],
    'q_matmul_u_known': [None, "float32"],
    'q_transpose_t_perm': [[None, None, None], "float32"],
    'q_reverse_v2': [[2, None, 5], "float32"],
    'q_roll': [[2, None, 5], "float32"],
    'q_unique_counts': [[[None], "int32"], [[None], "int32"], [[None], "int32"]],
    'q_meshgrid_ij': [[[3, 4], "int32"], [[3, 4], "int32"]],
    'q_meshgrid_u': [[[4, None], "int32"], [[4, None], "int32"]],
    'q_cumprod_rev': [[None, 3], "float32"],
    'q_confusion': [[None, None], "int32"],
    'q_confusion_n': [[4, 4], "int32"],
    'q_matrix_transpose': [[None, 5, 4], "float32"],
    'q_linalg_norm': [[None], "float32"],
    'q_space_to_batch_t': [[None, None, None, 3], "float32"],
    'q_batch_gather': [[None, 2, 5], "float32"],
    'q_tensor_scatter': [[4, 5], "float32"],
    'q_scatter_nd_add_var': [[4, 3], "float32_ref"],
    'q_reshape_zero': [[0, 6], "float32"],
    'q_reshape_zero2': [[4, 0], "float32"],
    'q_fill_scalar_shape': [[], "float32"],
    'q_zeros_empty': [[0, 3], "float32"],
    'q_range_delta_t': [[None], "int32"],
    'q_range_limit_f': [[3], "float32"],
    'q_one_hot_u': [None, "float32"],
    'q_one_hot_axis_mid': [[None, 4, 3], "float32"],
    'q_pad_sym': [[2, None, 9], "float32"],
    'q_mirror_pad_t': [[6, 5], "float32"],
    'q_broadcast_to_u': [[2, 3], "float32"],
    'q_bcast_args': [[3], "int32"],
    'q_where_broadcast': [[None, 3], "float32"],
    'q_while_ta_unknown': [[None, 2], "float32"],
    'q_while_shape_inv_none': [None, "float32"],
    'q_cond_none_shape': [None, "float32"],
    'q_cond_scalar_vs_vec': [None, "float32"],
    'q_map_fn_unk': [[None, None], "float32"],
    'q_map_fn_scalar_out': [[None], "int32"],
    'q_scan_tuple': [[[None, 3], "float32"], [[None, 3], "float32"]],
    'q_layers_dense_u': [[None, None, 2], "float32"],
    'q_layers_conv1d': [[None, 3, 3], "float32"],
    'q_layers_conv2dT': [[None, 16, 16, 4], "float32"],
    'q_layers_conv2dT_valid': [[4, None, None, 4], "float32"],
    'q_layers_sepconv': [[None, 6, 6, 4], "float32"],
    'q_layers_avgpool1d': [[None, 3, 4], "float32"],
    'q_layers_bn_axis1': [[None, 3, 4, 4], "float32"],
    'q_embedding_lookup_u': [None, "float32"],
    'q_embedding_partitioned': [[None, 4], "float32"],
    'q_conv2d_nchw': [[None, 6, 4, 4], "float32"],
    'q_pool_nchw': [[None, 3, 4, 4], "float32"],
    'q_avg_pool_u': [[None, None, None, None], "float32"],
    'q_conv_u': [[None, None, None, 6], "float32"],
    'q_conv_u_filter': [[None, 8, 8, None], "float32"],
    'q_resize_area': [[None, 3, 5, 3], "float32"],
    'q_resize_bicubic_t': [[None, 8, 8, 3], "float32"],
    'q_resize_method': [[None, 5, 5, 3], "float32"],
    'q_resize_u': "ERR ValueError",
    'q_random_flip': [[8, 8, 3], "float32"],
    'q_random_brightness': [[None, 8, 8, 3], "float32"],
    'q_random_crop_t': [[None, 4, 3], "float32"],
    'q_sample_distorted': [[[3], "int32"], [[3], "int32"], [[1, 1, 4], "float32"]],
    'q_sparse_placeholder_u': [[None], "int64"],
    'q_sparse_dense_matmul_adj': [[4, None], "float32"],
    'q_sparse_slice': [[2], "int64"],
    'q_sparse_fill_empty': [[2], "int64"],
    'q_sparse_retain': [[None], "float32"],
    'q_sparse_reorder': [[2], "int64"],
    'q_sparse_merge': [[2], "int64"],
    'q_sparse_maximum': [[2], "int64"],
    'q_string_split_v': [[None], "string"],
    'q_strings_split_ragged_to_sparse': [[2], "int64"],
    'r_conv3d_T': [[2, 8, 8, 8, 3], "float32"],
    'r_dw_bi': [[None, 8, 8, 3], "float32"],
    'r_dw_bf': [[3, 3, 3, 2], "float32"],
    'r_avgpool_grad': [[[4, None, None, 3], "float32"]],
    'r_conv_grad_filter': [[[None, 8, 8, 3], "float32"]],
    'r_ctc_loss': [[2], "float32"],
    'r_ctc_beam': [[None, 2], "float32"],
    'r_lrn': [[4, None, None, 3], "float32"],
    'r_softplus': [None, "float32"],
    'r_crelu': [[None, 6], "float32"],
    'r_crelu_u': [None, "float32"],
    'r_selu': [[2, None, 5], "float32"],
    'r_leaky': [[None, 3], "float32"],
    'r_normalize_moments': [[[3], "float32"], [[3], "float32"]],
    'r_weighted_moments': [[[5], "float32"], [[5], "float32"]],
    'r_sufficient_stats': [[[], "float32"], [[5], "float32"], [[5], "float32"], None],
    'r_fractional_pool': [[2, 6, 6, 3], "float32"],
    'r_dilation2d': [[None, 8, 8, 3], "float32"],
    'r_pool_generic': [[None, 4, 4, 3], "float32"],
    'r_conv_generic': [[None, 8, 8, 6], "float32"],
    'r_matrix_exp': [[None, 3, 3], "float32"],
    'r_logdet': [[], "float32"],
    'r_slogdet': [[[None], "float32"], [[None], "float32"]],
    'r_band_u': [None, "float32"],
    'r_cholesky_solve': [[3, None], "float32"],
    'r_eigvals': [[None, 4], "float32"],
    'r_svd_full': [[[None, 3], "float32"], [[None, 5, 5], "float32"], [[None, 3, 3], "float32"]],
    'r_svd_nouv': [[3], "float32"],
    'r_qr_full': [[[5, 5], "float32"], [[5, 3], "float32"]],
    'r_lu': [[[None, 3, 3], "float32"], [[None, 3], "int32"]],
    'r_tridiag': [[4, 2], "float32"],
    'r_adjoint': [[None, 5, 4], "float32"],
    'r_lstsq_batch': [[None, 3, 2], "float32"],
    'r_ifft2d': [[None, 4, 5], "complex64"],
    'r_irfft': [[None, 8], "float32"],
    'r_irfft_len': [[None, 8], "float32"],
    'r_dct': [[None, 8], "float32"],
    'r_overlap_add': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 48], "float32"])
    'r_mfcc': [[None, 10, 20], "float32"],
    'r_mel_matrix': [[129, 20], "float32"],
    'r_hann': [[16], "float32"],
    'r_inverse_stft': [[None, None], "float32"],  # TF 1.15's (TF 2.x: [[None, 96], "float32"])
    'r_sparse_add_sp': [[2], "int64"],
    'r_sparse_dense_cwise': [[2], "float32"],
    'r_sparse_split': [[[2], "int64"], [[2], "int64"]],
    'r_sparse_tensor_to_dense_u': [[None, None, None], "float32"],
    'r_sparse_to_dense_u': [[None, None], "float32"],
    'r_sparse_placeholder_shape_t': [[None, None, None], "float32"],
    'r_sparse_mask': [[None, 3], "float32"],
    'r_indexed_slices_dense': [[10, 3], "float32"],
    'r_indexed_slices_dense_u': [[4, 3], "float32"],
    'r_string_format': [[], "string"],
    'r_substr_v': [[None], "string"],
    'r_encode_base64': [[None, 2], "string"],
    'r_string_to_hash': [[None, 3], "int64"],
    'r_lookup_vocab': [[None, 2], "int64"],
    'r_clip_global_u': [[None, "float32"], [[None, 3], "float32"]],
    'r_clip_average': [[None, 3], "float32"],
    'r_add_n_mixed': [[5, 3], "float32"],
    'r_accumulate_n': [[None, 3], "float32"],
    'r_einsum_batch_u': [[None, 4, 2], "float32"],
    'r_tensordot_axes0': [[2, 3], "float32"],
    'r_matvec': [[None, 4], "float32"],
    'r_reduce_euclid': [[2, 5], "float32"],
    'r_unsorted_seg_u': [None, "float32"],
    'r_segment_u': [None, "float32"],
    'r_while_parallel': [[[], "int32"], [[None, 3], "float32"]],
    'r_cond_ta': [[None, 3], "float32"],  # TF 1.15's
    'r_ensure_bad': "ERR ValueError",
    'r_reshape_bad': "ERR ValueError",
    'r_matmul_bad': "ERR ValueError",
    'r_concat_bad': "ERR ValueError",
    'r_add_bad': "ERR ValueError",
    'r_gather_bad_axis': "ERR ValueError",
    'r_squeeze_bad': "ERR ValueError",
    'r_transpose_bad': "ERR ValueError",
    'r_tile_bad': "ERR ValueError",
    'r_split_bad': "ERR ValueError",
    'r_one_hot_bad': "ERR TypeError",
    'r_stack_bad': "ERR ValueError",
    'r_conv_bad': "ERR ValueError",
    'r_bias_add_bad': "ERR ValueError",
    'r_slice_bad': [[5, 1], "float32"],
    'r_ss_bad': "ERR ValueError",
    'r_where_bad': "ERR ValueError",
    'r_sparse_sce_bad': "ERR ValueError",
    'r_cast_bad': [[2], "float32"],
    'r_assign_bad': "ERR ValueError",
    'r_cond_bad_struct': "ERR ValueError",
    'r_while_bad_shape': [[None, 3], "float32"],
    'r_reduce_bad_axis': "ERR ValueError",
    'r_argmax_bad': "ERR ValueError",
    'r_expand_bad': "ERR ValueError",
    'r_pad_bad': "ERR ValueError",
    'r_fill_bad': "ERR ValueError",
    'r_random_bad': "ERR ValueError",
}
