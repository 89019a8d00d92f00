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
