"""``tf.keras.applications.resnet``: ResNet50/101/152 (keras_applications 1.0.8's
``resnet_common``: the layers, names and ImageNet files of TF 1.15's models)."""

from tideflow.keras.applications import _common
from tideflow.keras.applications.imagenet_utils import decode_predictions
from tideflow.keras.applications.imagenet_utils import preprocess_input as _preprocess

BASE_WEIGHTS_PATH = "https://github.com/keras-team/keras-applications/releases/download/resnet/"
WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
_EPS = 1.001e-5


def _bn(name):
    from tideflow.keras import layers

    return layers.BatchNormalization(axis=_common.bn_axis(), epsilon=_EPS, name=name)


def ResNet(stack_fn, preact, use_bias, model_name="resnet", include_top=True,
           weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
           classes=1000, **kwargs):
    """The ResNet (``preact=False``) / ResNetV2 (``preact=True``) skeleton around
    ``stack_fn``'s residual stacks."""
    from tideflow.keras import layers

    img_input = _common.checked_image_input(weights, include_top, classes, input_tensor,
                                            input_shape, 224, 32)
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn("conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn("post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    x = _common.named_pool_or_top(x, include_top, pooling, classes, "probs")
    model = _common.make_model(img_input, input_tensor, x, model_name)
    if weights == "imagenet" and model_name in WEIGHTS_HASHES:
        return _common.load_keras_weights(model, weights, include_top, model_name,
                                          BASE_WEIGHTS_PATH, WEIGHTS_HASHES[model_name])
    return _common.load_weights(model, None if weights == "imagenet" else weights)


def block1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """A bottleneck residual block (post-activation)."""
    from tideflow.keras import layers

    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = _bn(name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = _bn(name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = _bn(name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def stack1(x, filters, blocks, stride1=2, name=None):
    x = block1(x, filters, stride=stride1, name=name + "_block1")
    for i in range(2, blocks + 1):
        x = block1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def block2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """A bottleneck residual block (pre-activation, ResNetV2)."""
    from tideflow.keras import layers

    preact = _bn(name + "_preact_bn")(x)
    preact = layers.Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride,
                                 name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = _bn(name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=name + "_2_conv")(x)
    x = _bn(name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def stack2(x, filters, blocks, stride1=2, name=None):
    x = block2(x, filters, conv_shortcut=True, name=name + "_block1")
    for i in range(2, blocks):
        x = block2(x, filters, name=f"{name}_block{i}")
    return block2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _v1(depths):
    def stack_fn(x):
        x = stack1(x, 64, depths[0], stride1=1, name="conv2")
        x = stack1(x, 128, depths[1], name="conv3")
        x = stack1(x, 256, depths[2], name="conv4")
        return stack1(x, 512, depths[3], name="conv5")
    return stack_fn


def _v2(depths):
    def stack_fn(x):
        x = stack2(x, 64, depths[0], name="conv2")
        x = stack2(x, 128, depths[1], name="conv3")
        x = stack2(x, 256, depths[2], name="conv4")
        return stack2(x, 512, depths[3], stride1=1, name="conv5")
    return stack_fn


def ResNet50(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, **kwargs):
    """ResNet50: 224x224 RGB images by default (at least 32x32), 'caffe' preprocessing."""
    return ResNet(_v1((3, 4, 6, 3)), False, True, "resnet50", include_top, weights,
                  input_tensor, input_shape, pooling, classes)


def ResNet101(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, **kwargs):
    """ResNet101: 224x224 RGB images by default (at least 32x32), 'caffe' preprocessing."""
    return ResNet(_v1((3, 4, 23, 3)), False, True, "resnet101", include_top, weights,
                  input_tensor, input_shape, pooling, classes)


def ResNet152(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, **kwargs):
    """ResNet152: 224x224 RGB images by default (at least 32x32), 'caffe' preprocessing."""
    return ResNet(_v1((3, 8, 36, 3)), False, True, "resnet152", include_top, weights,
                  input_tensor, input_shape, pooling, classes)


def preprocess_input(x, data_format=None, **kwargs):
    """'caffe' preprocessing: RGB -> BGR, minus the ImageNet channel means."""
    return _preprocess(x, data_format=data_format, mode="caffe")


__all__ = ["ResNet50", "ResNet101", "ResNet152", "decode_predictions", "preprocess_input"]
