"""GAN, VAE, style-transfer and super-resolution programs as TF 1.x projects wrote them: names,
collections, shapes and values checked against what TF 1.15 printed for the same programs."""

import numpy as np

import tideflow as tf


def test_dynamic_training_batch_norm_update_ops_are_the_conds_merges():
    # TF 1.15: a non-fused batch norm whose `training` is a tensor makes each moving-statistics
    # update inside a cond; UPDATE_OPS holds the conds' Merge ops, the AssignSub inside them
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        tr = tf.placeholder(tf.bool, [])
        tf.layers.batch_normalization(x, training=tr, name='lbn')
        tf.contrib.layers.batch_norm(tf.placeholder(tf.float32, [None, 6, 6, 3]),
                                     is_training=tr, fused=False, scope='bn_b')
        ups = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert [u.name for u in ups] == ['lbn/cond_2/Merge', 'lbn/cond_3/Merge',
                                         'bn_b/cond_2/Merge', 'bn_b/cond_3/Merge']
        g = tf.get_default_graph()
        assert g.get_operation_by_name('lbn/cond_2/AssignMovingAvg').type == 'AssignSub'
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: np.ones([2, 5], np.float32), tr: True}
            # TF 1.15 printed [0.01 0.01 0.01 0.01 0.01] for each fetch of the Merge
            np.testing.assert_allclose(sess.run(ups[0].outputs[0], feed), [0.01] * 5, rtol=1e-6)
            feed[tr] = False
            np.testing.assert_allclose(sess.run(ups[0].outputs[0], feed), [0.01] * 5, rtol=1e-6)


def test_summary_of_a_model_frozen_after_compile_counts_collected_weights():
    # Keras-GAN's pattern: the discriminator is compiled, then frozen for the combined model.
    # TF 1.15's summary counts compile's collected weights as trainable and all of them again
    # as non-trainable: "Total params: 130 / Trainable params: 65 / Non-trainable params: 65"
    with tf.Graph().as_default():
        d = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(64,))])
        d.compile(loss='binary_crossentropy', optimizer='adam')
        d.trainable = False
        lines = []
        d.summary(print_fn=lines.append)
        assert lines[-4:-1] == ['Total params: 130', 'Trainable params: 65',
                                'Non-trainable params: 65']


def test_contrib_conv2d_with_rate_builds_space_to_batch_as_tf():
    # TF 1.15's contrib conv2d runs the core Conv2D layer, which dilates through
    # SpaceToBatchND / Conv2D / BatchToSpaceND (the op count seeds the ops made after it)
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 7, 7, 2])
        y = tf.contrib.layers.conv2d(x, 3, 3, rate=2,
                                     weights_initializer=tf.random_normal_initializer(seed=1))
        conv_ops = [op.name for op in g.get_operations() if op.name.startswith('Conv/')]
        assert conv_ops[13:] == [
            'Conv/dilation_rate', 'Conv/filter_shape', 'Conv/stack',
            'Conv/required_space_to_batch_paddings/input_shape',
            'Conv/required_space_to_batch_paddings/paddings',
            'Conv/required_space_to_batch_paddings/crops', 'Conv/SpaceToBatchND/block_shape',
            'Conv/SpaceToBatchND/paddings', 'Conv/SpaceToBatchND', 'Conv/Conv2D',
            'Conv/BatchToSpaceND/block_shape', 'Conv/BatchToSpaceND/crops',
            'Conv/BatchToSpaceND', 'Conv/BiasAdd', 'Conv/Relu']
        assert y.get_shape().as_list() == [None, 7, 7, 3]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(y, {x: np.arange(196, dtype=np.float32).reshape(2, 7, 7, 2) / 50.})
        # TF 1.15 printed 146.32819 and this row
        np.testing.assert_allclose(out.sum(), 146.32819, rtol=1e-5)
        np.testing.assert_allclose(out[0, 3, :, 1], [0, 0, 0, 0, 0, 1.053287, 1.076377],
                                   atol=1e-5)


def test_variable_shape_from_a_tensor_fails_with_pythons_int_message():
    # DCGAN's deconv2d given a tf.stack output_shape: get_variable's shape takes
    # output_shape[-1], a Tensor; TF 1.15's Dimension calls int() on it:
    # TypeError: int() argument must be a string, a bytes-like object or a number, not 'Tensor'
    with tf.Graph().as_default():
        out_shape = tf.stack([tf.shape(tf.placeholder(tf.float32, [None, 2]))[0], 30, 30, 3])
        try:
            tf.get_variable('w', [5, 5, out_shape[-1], 4])
        except TypeError as e:
            assert str(e) == ("int() argument must be a string, a bytes-like object or a "
                              "number, not 'Tensor'")
        else:
            raise AssertionError('no TypeError')


def test_contrib_batch_norm_variants_keep_tf_names_and_op_count():
    # each variant of TF 1.15's contrib batch_norm, then a random op seeded by the op count:
    # TF 1.15 printed these output names and uniform draws
    cl = tf.contrib.layers
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 4, 4, 6])
        x2 = tf.placeholder(tf.float32, [None, 6])
        tr = tf.placeholder(tf.bool, [])
        specs = [(x, {'is_training': tr, 'updates_collections': None, 'fused': True}),
                 (x, {'is_training': tr, 'updates_collections': None, 'fused': False}),
                 (x, {'is_training': tr, 'fused': False}),
                 (x, {'is_training': tr, 'fused': True}),
                 (x, {'is_training': True, 'updates_collections': None, 'fused': False}),
                 (x, {'is_training': True, 'updates_collections': None}),
                 (x, {'is_training': tr, 'zero_debias_moving_mean': True, 'fused': False}),
                 (x2, {'is_training': tr, 'updates_collections': None}),
                 (x2, {'is_training': tr})]
        names, draws = [], []
        for i, (inp, kw) in enumerate(specs):
            names.append(cl.batch_norm(inp, scope=f'b{i}', **kw).name)
            draws.append(tf.random_uniform([]))
        assert names == ['b0/cond_1/Merge:0', 'b1/batchnorm/add_1:0', 'b2/batchnorm/add_1:0',
                         'b3/cond/Merge:0', 'b4/batchnorm/add_1:0', 'b5/Identity:0',
                         'b6/batchnorm/add_1:0', 'b7/Reshape_1:0', 'b8/Reshape_1:0']
        with tf.Session() as sess:
            np.testing.assert_allclose(
                sess.run(draws), [0.5171902, 0.19586647, 0.657449, 0.42776144, 0.40699553,
                                  0.9573624, 0.042370915, 0.77468574, 0.6728492], rtol=1e-6)


def test_contrib_batch_norm_custom_collection_gets_the_conds_merges():
    # TF 1.15: with a tensor is_training the delayed updates are a cond's two Merge outputs
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 4, 6])
        tr = tf.placeholder(tf.bool, [])
        tf.contrib.layers.batch_norm(x, is_training=tr, updates_collections='upd', fused=False,
                                     scope='b5')
        tf.contrib.layers.batch_norm(x, is_training=tr, updates_collections='upd', scope='f')
        assert [t.name for t in tf.get_collection('upd')] == [
            'b5/cond/Merge:0', 'b5/cond/Merge_1:0', 'f/cond_1/Merge:0', 'f/cond_1/Merge_1:0']


def test_zero_debiased_batch_norm_statistics_stay_put_at_inference():
    # TF 1.15 runs the zero-debiased moving-mean update inside the is_training cond, so
    # inference steps leave moving_mean and its biased twin as they were
    cl = tf.contrib.layers
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 4, 6])
        tr = tf.placeholder(tf.bool, [])
        outs = [cl.batch_norm(x, is_training=tr, zero_debias_moving_mean=True, fused=False,
                              scope='b6'),
                cl.batch_norm(x, is_training=tr, zero_debias_moving_mean=True, scope='b7')]
        ups = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        tracked = [v for v in tf.global_variables()
                   if 'moving_mean' in v.name and 'local_step' not in v.name]
        xv = np.random.RandomState(0).normal(2, 1, [2, 4, 4, 6])
        seen = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for training in [True, True, False, False, True]:
                sess.run(outs + ups, {x: xv, tr: training})
                seen.append([sess.run(v)[:2] for v in tracked])
        # what TF 1.15 printed for moving_mean and biased of both layers
        after2 = [[2.214088, 2.310041], [0.004426, 0.004618]] * 2
        after5 = [[2.214059, 2.310012], [0.006635, 0.006923]] * 2
        for step in (1, 2, 3):
            np.testing.assert_allclose(seen[step], after2, rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(seen[4], after5, rtol=2e-6, atol=1e-6)


def _image_summary_pngs(summary_bytes):
    from tideflow.protos import summary_pb2

    s = summary_pb2.Summary.FromString(summary_bytes)
    return {v.tag: v.image.encoded_image_string for v in s.value}


def test_image_summaries_are_tfs_png_bytes():
    # generated samples logged with tf.summary.image: TF 1.15 scales float images (half ones
    # in half precision) and encodes them with libpng; these are the md5s of its PNGs
    import hashlib

    rs = np.random.RandomState(20)
    f = rs.uniform(-1, 1, [3, 6, 5, 3]).astype('f')
    f1 = rs.uniform(0, 1, [2, 4, 4, 1]).astype('f')
    u = rs.randint(0, 256, [2, 5, 5, 4]).astype(np.uint8)
    with tf.Graph().as_default():
        ss = [tf.summary.image('gen', tf.constant(f), max_outputs=2),
              tf.summary.image('rgba', tf.constant(u)),
              tf.summary.image('half', tf.cast(tf.constant(f1), tf.float16))]
        with tf.Session() as sess:
            pngs = {}
            for s in sess.run(ss):
                pngs.update(_image_summary_pngs(s))
    md5 = {k: hashlib.md5(v).hexdigest() for k, v in pngs.items()}
    assert md5 == {'gen/image/0': '1b4b509613d13497ee78459254fac755',
                   'gen/image/1': '03eece7bcb035c6ebb58bb5fc0a48b34',
                   'rgba/image/0': 'd8b4d0fee8800719f74b1a0c35855b43',
                   'rgba/image/1': 'f38b4b0695acac68a0ff6774e1e314cc',
                   'half/image/0': 'ce1b08f06913b7dc64bc3762b37586f5',
                   'half/image/1': 'b236433c535763f2c25c4ac7929fbd62'}


def test_conv2d_transpose_checks_nothing_when_built_as_tf_1_15():
    # TF 1.15's tf.nn.conv2d_transpose is v2's: no channel checks in Python; its op's shape
    # function and attrs raise (these are TF 1.15's words)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, 3])
        w = tf.ones([3, 3, 4, 3])
        y = tf.nn.conv2d_transpose(x, tf.ones([3, 3, 4, 5]), [2, 16, 16, 4], [1, 2, 2, 1])
        assert y.name == 'conv2d_transpose:0'
        assert y.get_shape().as_list() == [2, 16, 16, 4]
        try:
            tf.nn.conv2d_transpose(x, w, [16, 16, 4], [1, 2, 2, 1])
        except ValueError as e:
            assert str(e) == ("Shape must be rank 4 but is rank 3 for 'conv2d_transpose_1' (op: "
                              "'Conv2DBackpropInput') with input shapes: [3], [3,3,4,3], "
                              "[?,8,8,3].")
        else:
            raise AssertionError('no ValueError')
        try:
            tf.nn.conv2d_transpose(x, w, [2, 16, 16, 4], [1, 2, 2, 1], padding='same')
        except ValueError as e:
            assert str(e).startswith("Attr 'padding' of 'Conv2DBackpropInput' Op passed string "
                                     "'same' not in: ")
        else:
            raise AssertionError('no ValueError')


def test_depth_to_space_errors_in_tf_1_15_words():
    # a sub-pixel upscaler fed the wrong depth: TF 1.15's CPU kernels' messages
    with tf.Graph().as_default():
        def fed(shape):
            return tf.placeholder_with_default(np.zeros(shape, np.float32), [None] * len(shape))

        cases = [(tf.depth_to_space(fed([1, 2, 2, 6]), 2),
                  'Input depth dimension 6 should be divisible by: 4'),
                 (tf.space_to_depth(fed([1, 5, 4, 6]), 2),
                  'Image width 4 and height 5 should be divisible by block_size: 2'),
                 (tf.depth_to_space(tf.placeholder_with_default(np.zeros([4, 4, 8], 'f'), None),
                                    2), 'Input rank should be: 4 instead of: 3'),
                 (tf.space_to_depth(tf.placeholder_with_default(np.zeros([4, 4, 6], 'f'), None),
                                    2), 'Input rank should be 4 instead of 3')]
        with tf.Session() as sess:
            for t, message in cases:
                try:
                    sess.run(t)
                except tf.errors.InvalidArgumentError as e:
                    assert e.message.split('\n')[0] == message
                else:
                    raise AssertionError('no InvalidArgumentError')
        try:
            tf.depth_to_space(tf.zeros([4, 4, 8]), 2)
        except ValueError as e:
            assert str(e) == ("Shape must be rank 4 but is rank 3 for 'DepthToSpace_2' (op: "
                              "'DepthToSpace') with input shapes: [4,4,8].")
        else:
            raise AssertionError('no ValueError')


def test_keras_dilated_same_conv_makes_tfs_constants_at_build():
    # TF 1.15's Keras Conv2D builds its Convolution object: dilation_rate, filter_shape, the
    # same-padding 'stack' and the space-to-batch paddings, then the call's ops
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 9, 9, 3])
        tf.keras.layers.Conv2D(2, 3, dilation_rate=2, padding='same')(x)
        got = [op.name for op in g.get_operations()
               if op.name.startswith('conv2d/') and 'Initializer' not in op.name]
    assert got[8:] == [
        'conv2d/dilation_rate', 'conv2d/filter_shape', 'conv2d/stack',
        'conv2d/required_space_to_batch_paddings/input_shape',
        'conv2d/required_space_to_batch_paddings/paddings',
        'conv2d/required_space_to_batch_paddings/crops', 'conv2d/SpaceToBatchND/block_shape',
        'conv2d/SpaceToBatchND/paddings', 'conv2d/SpaceToBatchND', 'conv2d/Conv2D/ReadVariableOp',
        'conv2d/Conv2D', 'conv2d/BatchToSpaceND/block_shape', 'conv2d/BatchToSpaceND/crops',
        'conv2d/BatchToSpaceND', 'conv2d/BiasAdd/ReadVariableOp', 'conv2d/BiasAdd']


def test_contrib_batch_norm_bad_data_format_message():
    # TF 1.15's words, with nothing appended
    with tf.Graph().as_default():
        try:
            tf.contrib.layers.batch_norm(tf.placeholder(tf.float32, [None, 4, 4, 3]),
                                         data_format='NCWH')
        except ValueError as e:
            assert str(e) == 'data_format has to be either NCHW or NHWC.'
        else:
            raise AssertionError('no ValueError')


def test_keras_layer_and_model_updates_are_tfs_ops_of_every_call():
    # a Keras BatchNormalization called on two batches, then wrapped in a Model: TF 1.15's
    # updates are ops (the resource assignments, or the learning-phase cond's Merges), a
    # model's are all its layers' calls', and get_updates_for walks up from the inputs
    L = tf.keras.layers
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 6])
        x2 = tf.placeholder(tf.float32, [None, 6])
        bn = L.BatchNormalization(name='bn')
        d = L.Dense(3, name='dd', kernel_initializer=tf.constant_initializer(0.1))
        bn(d(x), training=True)
        bn(d(x2), training=True)
        assert [u.name for u in bn.updates] == [
            'bn/AssignMovingAvg/AssignSubVariableOp', 'bn/AssignMovingAvg_1/AssignSubVariableOp',
            'bn_1/AssignMovingAvg/AssignSubVariableOp',
            'bn_1/AssignMovingAvg_1/AssignSubVariableOp']
        assert all(isinstance(u, tf.Operation) for u in bn.updates)
        assert [u.name for u in bn.get_updates_for(x)] == [
            'bn/AssignMovingAvg/AssignSubVariableOp', 'bn/AssignMovingAvg_1/AssignSubVariableOp']
        inp = L.Input([6])
        m = tf.keras.Model(inp, bn(d(inp)))
        assert [u.name for u in m.updates] == [u.name for u in bn.updates[:4]] + [
            'bn_2/cond_2/Merge', 'bn_2/cond_3/Merge']
        assert [u.name for u in m.get_updates_for(inp)] == ['bn_2/cond_2/Merge',
                                                            'bn_2/cond_3/Merge']
        assert m.get_updates_for(None) == []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(bn.updates[:2], {x: np.arange(12.).reshape(2, 6)}) == [None, None]


def test_tf_layers_and_keras_layers_share_name_counts():
    # a generator of tf.layers with Keras layers after it: TF 1.15 counts both kinds' names
    # in one per-graph map (tf.layers from 1, Keras from 0); these are the names it printed
    with tf.Graph().as_default():
        xb = tf.placeholder(tf.float32, [3, 6, 5, 4])
        a = tf.layers.conv2d_transpose(xb, 2, 3)
        b = tf.layers.conv2d_transpose(xb, 2, 3)
        l1 = tf.keras.layers.Conv2DTranspose(2, 3)
        c = l1(xb)
        l2 = tf.keras.layers.Conv2DTranspose(2, 3)
        d = l2(xb)
        e = tf.layers.conv2d_transpose(xb, 2, 3)
        assert (l1.name, l2.name) == ('conv2d_transpose_2', 'conv2d_transpose_3')
        assert [t.name for t in (a, b, c, d, e)] == [
            'conv2d_transpose/BiasAdd:0', 'conv2d_transpose_1/BiasAdd:0',
            'conv2d_transpose_2/BiasAdd:0', 'conv2d_transpose_3/BiasAdd:0',
            'conv2d_transpose_4/BiasAdd:0']
        assert [v.name for v in tf.global_variables()][4:] == [
            'conv2d_transpose_2/kernel:0', 'conv2d_transpose_2/bias:0',
            'conv2d_transpose_3/kernel:0', 'conv2d_transpose_3/bias:0',
            'conv2d_transpose_2/kernel_1:0', 'conv2d_transpose_2/bias_1:0']
