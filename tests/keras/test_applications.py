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

# name: (constructor kwargs, params with top (classes=10), number of layers with top
#        (tf_keras's count, adjusted as the docstring says))
MODELS = {
    "VGG16": ({"input_shape": (32, 32, 3)}, 33638218, 23),
    "VGG19": ({"input_shape": (32, 32, 3)}, 38947914, 26),
    "ResNet50": ({"input_shape": (32, 32, 3)}, 23608202, 177),
    "ResNet101": ({"input_shape": (32, 32, 3)}, 42678666, 347),
    "ResNet152": ({"input_shape": (32, 32, 3)}, 58391434, 517),
    "ResNet50V2": ({"input_shape": (32, 32, 3)}, 23585290, 192),
    "ResNet101V2": ({"input_shape": (32, 32, 3)}, 42647050, 379),
    "ResNet152V2": ({"input_shape": (32, 32, 3)}, 58352138, 566),
    "InceptionV3": ({"input_shape": (75, 75, 3)}, 21823274, 313),
    "InceptionResNetV2": ({"input_shape": (75, 75, 3)}, 54352106, 782),
    "Xception": ({"input_shape": (71, 71, 3)}, 20881970, 134),
    "MobileNet": ({"input_shape": (32, 32, 3)}, 3239114, 91 + 2),
    "MobileNetV2": ({"input_shape": (32, 32, 3)}, 2270794, 156 + 1),
    "DenseNet121": ({"input_shape": (32, 32, 3)}, 7047754, 429),
    "DenseNet169": ({"input_shape": (32, 32, 3)}, 12659530, 597),
    "DenseNet201": ({"input_shape": (32, 32, 3)}, 18341194, 709),
    "NASNetMobile": ({"input_shape": (32, 32, 3)}, 4280286, 771),
    "NASNetLarge": ({"input_shape": (32, 32, 3)}, 84957148, 1041),
}

# the lighter models are also built without their top (pooling='avg'): params and features
WITHOUT_TOP = {
    "VGG16": (14714688, 512), "VGG19": (20024384, 512), "ResNet50": (23587712, 2048),
    "ResNet50V2": (23564800, 2048), "Xception": (20861480, 2048),
    "MobileNet": (3228864, 1024), "MobileNetV2": (2257984, 1280),
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
                   ("post_bn", "BatchNormalization"), ("post_relu", "Activation"),
                   ("probs", "Dense")],
    "ResNet101V2": [("conv4_block23_out", "Add")],
    "ResNet152V2": [("conv3_block8_out", "Add"), ("conv4_block36_out", "Add")],
    "InceptionV3": [("conv2d", "Conv2D"), ("conv2d_93", "Conv2D"),
                    ("batch_normalization_93", "BatchNormalization"),
                    ("activation_93", "Activation"), ("mixed0", "Concatenate"),
                    ("mixed9_1", "Concatenate"), ("concatenate_1", "Concatenate"),
                    ("mixed10", "Concatenate"), ("avg_pool", "GlobalAveragePooling2D"),
                    ("predictions", "Dense")],
    "InceptionResNetV2": [("mixed_5b", "Concatenate"), ("block35_10_mixed", "Concatenate"),
                          ("block35_10_conv", "Conv2D"), ("block35_10", "Lambda"),
                          ("block17_20_ac", "Activation"), ("block8_10", "Lambda"),
                          ("conv_7b", "Conv2D"), ("conv_7b_bn", "BatchNormalization"),
                          ("conv_7b_ac", "Activation"), ("predictions", "Dense")],
    "Xception": [("block1_conv1", "Conv2D"), ("block2_sepconv1", "SeparableConv2D"),
                 ("block13_pool", "MaxPooling2D"), ("conv2d_3", "Conv2D"), ("add_11", "Add"),
                 ("block14_sepconv2_act", "Activation"), ("predictions", "Dense")],
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
    "DenseNet121": [("zero_padding2d", "ZeroPadding2D"), ("conv1/conv", "Conv2D"),
                    ("conv2_block6_concat", "Concatenate"), ("pool4_pool", "AveragePooling2D"),
                    ("conv5_block16_2_conv", "Conv2D"), ("bn", "BatchNormalization"),
                    ("relu", "Activation"), ("fc1000", "Dense")],
    "DenseNet169": [("conv4_block32_concat", "Concatenate"), ("fc1000", "Dense")],
    "DenseNet201": [("conv4_block48_concat", "Concatenate"), ("fc1000", "Dense")],
    "NASNetMobile": [("stem_conv1", "Conv2D"), ("reduction_pad_1_stem_1", "ZeroPadding2D"),
                     ("separable_conv_1_pad_reduction_left1_stem_1", "ZeroPadding2D"),
                     ("adjust_avg_pool_2_stem_2", "AveragePooling2D"),
                     ("cropping2d", "Cropping2D"), ("normal_concat_12", "Concatenate"),
                     ("reduction_add4_reduce_8", "Add"), ("predictions", "Dense")],
    "NASNetLarge": [("normal_concat_18", "Concatenate"),
                    ("adjust_conv_projection_1", "Conv2D"), ("reduction_concat_reduce_12",
                                                             "Concatenate")],
}

def _kinds(model):
    return {layer.name: type(layer).__name__ for layer in model.layers}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_architecture_matches_tf(name):
    kwargs, with_top, n_layers = MODELS[name]
    model = getattr(A, name)(weights=None, classes=10, **kwargs)
    assert model.count_params() == with_top
    assert len(model.layers) == n_layers
    assert model.output_shape == (None, 10)
    kinds = _kinds(model)
    for layer_name, kind in NAMED_LAYERS[name]:
        assert kinds.get(layer_name) == kind, layer_name
    if name in WITHOUT_TOP:
        params, channels = WITHOUT_TOP[name]
        tf.keras.backend.clear_session()
        model = getattr(A, name)(weights=None, include_top=False, pooling="avg", **kwargs)
        assert model.count_params() == params
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
