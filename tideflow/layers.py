"""``tf.layers``: the TF 1.x layers, as classes and functions (explicit re-exports only)."""

import types as _types

from tideflow.ops import layers_base as _layers_base
from tideflow.ops.layers_base import InputSpec, Layer
from tideflow.ops.layers_conv import (
    AveragePooling1D,
    AveragePooling2D,
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    MaxPooling1D,
    MaxPooling2D,
    average_pooling1d,
    average_pooling2d,
    conv1d,
    conv2d,
    conv2d_transpose,
    max_pooling1d,
    max_pooling2d,
)
from tideflow.ops.layers_conv import AveragePooling1D as AvgPool1D
from tideflow.ops.layers_conv import AveragePooling2D as AvgPool2D
from tideflow.ops.layers_conv import Conv1D as Convolution1D
from tideflow.ops.layers_conv import Conv2D as Convolution2D
from tideflow.ops.layers_conv import Conv2DTranspose as Convolution2DTranspose
from tideflow.ops.layers_conv import Conv2DTranspose as Deconvolution2D
from tideflow.ops.layers_conv import MaxPooling1D as MaxPool1D
from tideflow.ops.layers_conv import MaxPooling2D as MaxPool2D
from tideflow.ops.layers_conv_more import (
    AveragePooling3D,
    Conv3D,
    Conv3DTranspose,
    MaxPooling3D,
    SeparableConv1D,
    SeparableConv2D,
    average_pooling3d,
    conv3d,
    conv3d_transpose,
    max_pooling3d,
    separable_conv1d,
    separable_conv2d,
)
from tideflow.ops.layers_conv_more import AveragePooling3D as AvgPool3D
from tideflow.ops.layers_conv_more import Conv3D as Convolution3D
from tideflow.ops.layers_conv_more import Conv3DTranspose as Convolution3DTranspose
from tideflow.ops.layers_conv_more import MaxPooling3D as MaxPool3D
from tideflow.ops.layers_conv_more import SeparableConv1D as SeparableConvolution1D
from tideflow.ops.layers_conv_more import SeparableConv2D as SeparableConvolution2D
from tideflow.ops.layers_core import Dense, Dropout, Flatten, dense, dropout, flatten
from tideflow.ops.layers_norm import BatchNormalization, batch_normalization

# tf.layers.experimental: TF 1.x's switch to Keras-style layers
experimental = _types.ModuleType("tideflow.layers.experimental",
                                 "``tf.layers.experimental``: Keras-style layers.")
experimental.keras_style_scope = _layers_base.keras_style_scope
experimental.set_keras_style = _layers_base.set_keras_style

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "Deconvolution2D",
    "Dense",
    "Dropout",
    "Flatten",
    "InputSpec",
    "Layer",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "average_pooling1d",
    "average_pooling2d",
    "average_pooling3d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "dense",
    "dropout",
    "experimental",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
    "max_pooling3d",
    "separable_conv1d",
    "separable_conv2d",
]
