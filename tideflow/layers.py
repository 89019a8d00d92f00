"""``tf.layers``: the TF 1.x layers, as classes and functions (explicit re-exports only)."""

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
from tideflow.ops.layers_core import Dense, Dropout, Flatten, dense, dropout, flatten
from tideflow.ops.layers_norm import BatchNormalization, batch_normalization

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AvgPool1D",
    "AvgPool2D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Deconvolution2D",
    "Dense",
    "Dropout",
    "Flatten",
    "InputSpec",
    "Layer",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPooling1D",
    "MaxPooling2D",
    "average_pooling1d",
    "average_pooling2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
]
