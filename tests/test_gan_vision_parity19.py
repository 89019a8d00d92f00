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
