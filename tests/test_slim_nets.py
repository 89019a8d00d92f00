"""TF-Slim's model zoo (tf.contrib.slim.nets: ResNet v1/v2, Inception v1-v3, OverFeat) and
slim's training/evaluation loop on it.

Reference facts (variable names, shapes and their order, end-point keys and shapes, collection
sizes) were observed from tf_slim 1.1.0 (TF 1.15's contrib slim, moved out) running on real
TensorFlow 2.21 in compat.v1 mode, building the same networks at the same input sizes.
"""

import pytest

import tideflow as tf

slim = tf.contrib.slim


def _names(variables):
    return [v.op.name for v in variables]


@pytest.mark.parametrize("shape,gamma_first", [([8, 3], False), ([4, 2, 2, 3], True),
                                                ([4, 2, 3], True), ([4, 2, 2, 2, 3], True)])
def test_batch_norm_creates_gamma_first_where_tf_uses_the_core_layer(shape, gamma_first):
    # tf_slim: rank 2 goes to the fused kernel (beta, gamma, ...); other ranks with the default
    # UPDATE_OPS collection to tf.layers.BatchNormalization, which makes gamma first
    with tf.Graph().as_default():
        slim.batch_norm(tf.placeholder(tf.float32, shape), scale=True)
        params = ["BatchNorm/gamma", "BatchNorm/beta"]
        if not gamma_first:
            params.reverse()
        assert _names(tf.global_variables()) == [*params, "BatchNorm/moving_mean",
                                                 "BatchNorm/moving_variance"]
    with tf.Graph().as_default():  # other update collections: slim's own kernel, beta first
        slim.batch_norm(tf.placeholder(tf.float32, [4, 2, 2, 3]), scale=True,
                        updates_collections=None)
        assert _names(tf.trainable_variables()) == ["BatchNorm/beta", "BatchNorm/gamma"]
