"""``tf.keras.applications``: the Keras application models of TF 1.15 (keras_applications
1.0.8): architectures, layer names, argument checks; ImageNet weights come through
``tf.keras.utils.get_file`` (the Keras cache ``~/.keras/models``, else a download)."""

from tideflow.keras.applications import (
    densenet,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    nasnet,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from tideflow.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from tideflow.keras.applications.inception_resnet_v2 import InceptionResNetV2
from tideflow.keras.applications.inception_v3 import InceptionV3
from tideflow.keras.applications.mobilenet import MobileNet
from tideflow.keras.applications.mobilenet_v2 import MobileNetV2
from tideflow.keras.applications.nasnet import NASNetLarge, NASNetMobile
from tideflow.keras.applications.resnet import ResNet50, ResNet101, ResNet152
from tideflow.keras.applications.resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from tideflow.keras.applications.vgg16 import VGG16
from tideflow.keras.applications.vgg19 import VGG19
from tideflow.keras.applications.xception import Xception

__all__ = [
    "VGG16",
    "VGG19",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "InceptionResNetV2",
    "InceptionV3",
    "MobileNet",
    "MobileNetV2",
    "NASNetLarge",
    "NASNetMobile",
    "ResNet50",
    "ResNet50V2",
    "ResNet101",
    "ResNet101V2",
    "ResNet152",
    "ResNet152V2",
    "Xception",
    "densenet",
    "imagenet_utils",
    "inception_resnet_v2",
    "inception_v3",
    "mobilenet",
    "mobilenet_v2",
    "nasnet",
    "resnet",
    "resnet50",
    "resnet_v2",
    "vgg16",
    "vgg19",
    "xception",
]
