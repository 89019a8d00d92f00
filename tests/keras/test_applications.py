"""tf.keras.applications: TF 1.15's application models (keras_applications 1.0.8).

The parameter counts, layer counts and output shapes below were observed with real TF 2.21's
``tf_keras.applications`` (the direct descendant of TF 1.15's models) built with
``weights=None, classes=10`` and the input shape given, ``include_top=True`` and then
``include_top=False, pooling='avg'``. Where keras_applications 1.0.8 (TF 1.15) differs from
tf_keras, the test says so: the classifier of ResNet is ``probs`` (tf_keras: ``predictions``),
DenseNet's is ``fc1000``, MobileNetV2's is ``Logits``; MobileNet v1's top is
``reshape_1/dropout/conv_preds/act_softmax/reshape_2`` (tf_keras: no ``reshape_1``, the
softmax layer named ``predictions``); MobileNet's first convolutions are 'valid' after an
explicit ``conv1_pad``/``Conv1_pad`` (tf_keras: 'same', no padding layer), so those models have
one layer more than tf_keras's; InceptionResNetV2 scales its residuals with ``Lambda`` layers.
"""


import pytest

import tideflow as tf

A = tf.keras.applications

# name: (constructor kwargs, params with top, params without top + avg pooling,
#        number of layers with top (tf_keras's count, adjusted as the docstring says),
#        channels of the pooled features)
MODELS = {
    "VGG16": ({"input_shape": (32, 32, 3)}, 33638218, 14714688, 23, 512),
    "VGG19": ({"input_shape": (32, 32, 3)}, 38947914, 20024384, 26, 512),
    "ResNet50": ({"input_shape": (32, 32, 3)}, 23608202, 23587712, 177, 2048),
    "ResNet101": ({"input_shape": (32, 32, 3)}, 42678666, 42658176, 347, 2048),
    "ResNet152": ({"input_shape": (32, 32, 3)}, 58391434, 58370944, 517, 2048),
    "ResNet50V2": ({"input_shape": (32, 32, 3)}, 23585290, 23564800, 192, 2048),
    "ResNet101V2": ({"input_shape": (32, 32, 3)}, 42647050, 42626560, 379, 2048),
    "ResNet152V2": ({"input_shape": (32, 32, 3)}, 58352138, 58331648, 566, 2048),
    "MobileNet": ({"input_shape": (32, 32, 3)}, 3239114, 3228864, 91 + 2, 1024),
    "MobileNetV2": ({"input_shape": (32, 32, 3)}, 2270794, 2257984, 156 + 1, 1280),
}

# a few layer names (and classes) each model must have, as TF 1.15 names them
NAMED_LAYERS = {
    "VGG16": [("block1_conv1", "Conv2D"), ("block5_pool", "MaxPooling2D"),
              ("flatten", "Flatten"), ("fc2", "Dense"), ("predictions", "Dense")],
    "VGG19": [("block3_conv4", "Conv2D"), ("block5_conv4", "Conv2D"), ("fc1", "Dense")],
    "ResNet50": [("conv1_pad", "ZeroPadding2D"), ("conv1_conv", "Conv2D"),
                 ("conv2_block1_0_conv", "Conv2D"), ("conv4_block6_3_bn", "BatchNormalization"),
                 ("conv5_block3_add", "Add"), ("conv5_block3_out", "Activation"),
                 ("avg_pool", "GlobalAveragePooling2D"), ("probs", "Dense")],
    "ResNet101": [("conv4_block23_out", "Activation"), ("probs", "Dense")],
    "ResNet152": [("conv3_block8_out", "Activation"), ("conv4_block36_out", "Activation")],
    "ResNet50V2": [("conv2_block1_preact_bn", "BatchNormalization"),
                   ("conv2_block3_2_pad", "ZeroPadding2D"), ("conv4_block6_out", "Add"),
                   ("post_bn", "BatchNormalization"), ("post_relu", "Activation")],
    "ResNet101V2": [("conv4_block23_out", "Add")],
    "ResNet152V2": [("conv3_block8_out", "Add"), ("conv4_block36_out", "Add")],
    "MobileNet": [("conv1_pad", "ZeroPadding2D"), ("conv1", "Conv2D"), ("conv1_relu", "ReLU"),
                  ("conv_dw_1", "DepthwiseConv2D"), ("conv_pad_12", "ZeroPadding2D"),
                  ("conv_pw_13_relu", "ReLU"), ("reshape_1", "Reshape"),
                  ("conv_preds", "Conv2D"), ("act_softmax", "Activation"),
                  ("reshape_2", "Reshape")],
    "MobileNetV2": [("Conv1_pad", "ZeroPadding2D"), ("bn_Conv1", "BatchNormalization"),
                    ("expanded_conv_depthwise", "DepthwiseConv2D"),
                    ("block_1_pad", "ZeroPadding2D"), ("block_2_add", "Add"),
                    ("block_16_project_BN", "BatchNormalization"), ("Conv_1", "Conv2D"),
                    ("out_relu", "ReLU"), ("Logits", "Dense")],
}


def _kinds(model):
    return {layer.name: type(layer).__name__ for layer in model.layers}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_architecture_matches_tf(name):
    kwargs, with_top, without_top, n_layers, channels = MODELS[name]
    model = getattr(A, name)(weights=None, classes=10, **kwargs)
    assert model.count_params() == with_top
    assert len(model.layers) == n_layers
    assert model.output_shape == (None, 10)
    kinds = _kinds(model)
    for layer_name, kind in NAMED_LAYERS[name]:
        assert kinds.get(layer_name) == kind, layer_name
    tf.keras.backend.clear_session()
    model = getattr(A, name)(weights=None, include_top=False, pooling="avg", **kwargs)
    assert model.count_params() == without_top
    assert model.output_shape == (None, channels)


def test_layers_in_keras_order():
    # Keras lists a network's layers by decreasing depth: in a residual block the long branch
    # comes before the shortcut convolution created first (as tf_keras's ResNet50 shows)
    names = [layer.name for layer in A.ResNet50(weights=None, include_top=False,
                                                input_shape=(32, 32, 3)).layers]
    assert names[:8] == ["input_1", "conv1_pad", "conv1_conv", "conv1_bn", "conv1_relu",
                         "pool1_pad", "pool1_pool", "conv2_block1_1_conv"]
    assert names.index("conv2_block1_2_conv") < names.index("conv2_block1_0_conv")
    assert names[-3:] == ["conv5_block3_3_bn", "conv5_block3_add", "conv5_block3_out"]
