"""pix2pix, CycleGAN, style-transfer, WGAN-GP and spectral-norm programs in TF 1.x's style:
collections, names and values checked against what TF 1.15 printed for the same programs."""

import pytest

import tideflow as tf

L = tf.contrib.layers


def _x4():
    return tf.zeros([1, 4, 4, 3])


@pytest.mark.parametrize('make', [
    lambda: L.fully_connected(tf.zeros([1, 2]), 2),
    lambda: L.conv2d(_x4(), 2, 3),
    lambda: L.conv2d(_x4(), 2, 3, normalizer_fn=L.instance_norm),
    lambda: L.conv2d_transpose(_x4(), 2, 3),
    lambda: L.separable_conv2d(_x4(), 2, 3, 1),
    lambda: L.stack(tf.zeros([1, 3]), L.fully_connected, [4, 2]),
])
def test_contrib_layers_on_core_layers_leave_an_update_ops_key(make):
    # TF 1.15 builds these on its core layers, whose call files its (empty) updates in
    # UPDATE_OPS: the key is there afterwards, as sorted(get_all_collection_keys()) printed
    with tf.Graph().as_default() as g:
        make()
        assert sorted(g.get_all_collection_keys()) == [
            'model_variables', 'trainable_variables', 'update_ops', 'variables']


@pytest.mark.parametrize('make', [
    lambda: L.flatten(_x4()), lambda: L.dropout(_x4()), lambda: L.max_pool2d(_x4(), 2),
    lambda: L.avg_pool2d(_x4(), 2)])
def test_contrib_weightless_core_layers_leave_an_update_ops_key(make):
    # TF 1.15 printed ['update_ops'] for each
    with tf.Graph().as_default() as g:
        make()
        assert g.get_all_collection_keys() == ['update_ops']


@pytest.mark.parametrize('make', [
    lambda: L.separable_conv2d(_x4(), None, 3, 1), lambda: L.instance_norm(_x4()),
    lambda: L.layer_norm(_x4())])
def test_contrib_layers_of_their_own_leave_no_update_ops_key(make):
    # TF 1.15: depthwise-only separable_conv2d, instance_norm and layer_norm make their ops
    # themselves, with no core layer: no update_ops key
    with tf.Graph().as_default() as g:
        make()
        assert sorted(g.get_all_collection_keys()) == [
            'model_variables', 'trainable_variables', 'variables']


def test_embed_sequence_embeddings_are_a_model_variable():
    # TF 1.15 makes them with slim's model_variable: get_model_variables lists them
    with tf.Graph().as_default():
        L.embed_sequence(tf.zeros([1, 3], tf.int32), 5, 2)
        emb = L.embed_sequence(tf.zeros([1, 3], tf.int32), scope='EmbedSequence', reuse=True)
        assert [v.name for v in tf.contrib.framework.get_model_variables()] == [
            'EmbedSequence/embeddings:0']
        assert emb.get_shape().as_list() == [1, 3, 2]


def test_broadcast_gradient_sums_of_static_shapes_have_known_shapes():
    # TF 1.15's shape inference evaluates BroadcastGradientArgs of constant shapes: the Sums
    # in the gradient of w / sigma (spectral normalisation) printed (128,) and (), though
    # tensor_util.constant_value still gives None for the axes
    with tf.Graph().as_default() as g:
        w = tf.Variable(tf.ones([128, 1]))
        sig = tf.squeeze(tf.matmul(tf.transpose(w), w))
        tf.gradients(tf.reduce_sum(w / sig) + tf.reduce_sum(tf.maximum(w, sig)), w)
        for name in ('truediv', 'Maximum'):
            assert g.get_tensor_by_name(f'gradients/{name}_grad/Sum:0').get_shape() == [128]
            assert g.get_tensor_by_name(f'gradients/{name}_grad/Sum_1:0').get_shape() == []
        rx = g.get_tensor_by_name('gradients/truediv_grad/BroadcastGradientArgs:0')
        assert tf.contrib.util.constant_value(rx) is None
        assert rx.get_shape().as_list() == [None]
