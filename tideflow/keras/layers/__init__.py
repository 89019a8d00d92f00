"""``tf.keras.layers``: the Keras layers (explicit re-exports)."""

from tideflow.keras.engine.base_layer import InputSpec, Layer
from tideflow.keras.engine.input_layer import Input, InputLayer
from tideflow.keras.layers.convolutional import (
    AveragePooling1D,
    AveragePooling2D,
    AveragePooling3D,
    AvgPool1D,
    AvgPool2D,
    AvgPool3D,
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    Convolution1D,
    Convolution2D,
    Convolution2DTranspose,
    Convolution3D,
    Cropping1D,
    Cropping2D,
    Deconv2D,
    Deconvolution2D,
    DepthwiseConv2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalAveragePooling3D,
    GlobalAvgPool1D,
    GlobalAvgPool2D,
    GlobalAvgPool3D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPool3D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    GlobalMaxPooling3D,
    MaxPool1D,
    MaxPool2D,
    MaxPool3D,
    MaxPooling1D,
    MaxPooling2D,
    MaxPooling3D,
    SeparableConv2D,
    SeparableConvolution2D,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from tideflow.keras.layers.convolutional_more import (
    Conv3DTranspose,
    Convolution3DTranspose,
    Cropping3D,
    Deconv3D,
    Deconvolution3D,
    LocallyConnected1D,
    LocallyConnected2D,
    SeparableConv1D,
    SeparableConvolution1D,
    SpatialDropout3D,
    UpSampling3D,
    ZeroPadding3D,
)
from tideflow.keras.layers.convolutional_recurrent import ConvLSTM2D
from tideflow.keras.layers.core import (
    ELU,
    Activation,
    ActivityRegularization,
    AlphaDropout,
    Dense,
    Dropout,
    Flatten,
    GaussianDropout,
    GaussianNoise,
    Lambda,
    LeakyReLU,
    Masking,
    Permute,
    PReLU,
    ReLU,
    RepeatVector,
    Reshape,
    Softmax,
    SpatialDropout1D,
    SpatialDropout2D,
    ThresholdedReLU,
)
from tideflow.keras.layers.dense_attention import AdditiveAttention, Attention
from tideflow.keras.layers.dense_features import DenseFeatures
from tideflow.keras.layers.other import (
    Add,
    Average,
    BatchNormalization,
    Concatenate,
    Dot,
    Embedding,
    LayerNormalization,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
from tideflow.keras.layers.recurrent import (
    GRU,
    LSTM,
    RNN,
    AbstractRNNCell,
    Bidirectional,
    CuDNNGRU,
    CuDNNLSTM,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    StackedRNNCells,
    TimeDistributed,
    Wrapper,
)

# TF 1.x's modules under ``tensorflow.python.keras.layers`` that tideflow keeps in other files:
# each is a module of its own (``keras.layers.pooling.MaxPooling2D``, ``from
# tensorflow.python.keras.layers import normalization``) holding the very classes above.
_SUBMODULES = {
    "advanced_activations": "LeakyReLU PReLU ELU ThresholdedReLU Softmax ReLU",
    "noise": "GaussianNoise GaussianDropout AlphaDropout",
    "embeddings": "Embedding",
    "merge": "Add Subtract Multiply Average Maximum Minimum Concatenate Dot add subtract "
             "multiply average maximum minimum concatenate dot",
    "normalization": "BatchNormalization LayerNormalization",
    "local": "LocallyConnected1D LocallyConnected2D",
    "wrappers": "Wrapper TimeDistributed Bidirectional",
    "cudnn_recurrent": "CuDNNGRU CuDNNLSTM",
    "pooling": "MaxPooling1D MaxPooling2D MaxPooling3D AveragePooling1D AveragePooling2D "
               "AveragePooling3D GlobalMaxPooling1D GlobalMaxPooling2D GlobalMaxPooling3D "
               "GlobalAveragePooling1D GlobalAveragePooling2D GlobalAveragePooling3D MaxPool1D "
               "MaxPool2D MaxPool3D AvgPool1D AvgPool2D AvgPool3D GlobalMaxPool1D "
               "GlobalMaxPool2D GlobalMaxPool3D GlobalAvgPool1D GlobalAvgPool2D GlobalAvgPool3D",
}


def _add_submodules():
    import importlib.machinery
    import importlib.util
    import sys

    for short, names in _SUBMODULES.items():
        full = f"{__name__}.{short}"
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(full, None))
        module.__doc__ = f"``tf.keras.layers``' {short.replace('_', ' ')} layers (TF's module)."
        for name in names.split():
            setattr(module, name, globals()[name])
        sys.modules.setdefault(full, module)
        globals()[short] = sys.modules[full]


_add_submodules()


def serialize(layer):
    """``{'class_name', 'config'}`` of a layer."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """A new layer from ``serialize``'s output (classes of this module or ``custom_objects``)."""
    from tideflow.keras.engine.sequential import Sequential
    from tideflow.keras.engine.training import Model
    from tideflow.keras.utils import get_custom_objects

    name = config["class_name"]
    cls = ((custom_objects or {}).get(name) or get_custom_objects().get(name)
           or globals().get(name) or {"Sequential": Sequential, "Model": Model}.get(name))
    if cls is None:
        raise ValueError(f"Unknown layer: {name}")
    from tideflow.keras.utils import CustomObjectScope

    with CustomObjectScope(custom_objects or {}):  # as TF: names in the config resolve
        return cls.from_config(config["config"])


__all__ = [
    "ELU",
    "GRU",
    "LSTM",
    "RNN",
    "AbstractRNNCell",
    "Activation",
    "ActivityRegularization",
    "Add",
    "AdditiveAttention",
    "AlphaDropout",
    "Attention",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "BatchNormalization",
    "Bidirectional",
    "Concatenate",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "ConvLSTM2D",
    "Convolution1D",
    "Convolution2D",
    "Convolution2DTranspose",
    "Convolution3D",
    "Convolution3DTranspose",
    "Cropping1D",
    "Cropping2D",
    "Cropping3D",
    "CuDNNGRU",
    "CuDNNLSTM",
    "Deconv2D",
    "Deconv3D",
    "Deconvolution2D",
    "Deconvolution3D",
    "Dense",
    "DenseFeatures",
    "DepthwiseConv2D",
    "Dot",
    "Dropout",
    "Embedding",
    "Flatten",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalAveragePooling3D",
    "GlobalAvgPool1D",
    "GlobalAvgPool2D",
    "GlobalAvgPool3D",
    "GlobalMaxPool1D",
    "GlobalMaxPool2D",
    "GlobalMaxPool3D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "GlobalMaxPooling3D",
    "Input",
    "InputLayer",
    "InputSpec",
    "LSTMCell",
    "Lambda",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "LocallyConnected1D",
    "LocallyConnected2D",
    "Masking",
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "Maximum",
    "Minimum",
    "Multiply",
    "PReLU",
    "Permute",
    "ReLU",
    "RepeatVector",
    "Reshape",
    "SeparableConv1D",
    "SeparableConv2D",
    "SeparableConvolution1D",
    "SeparableConvolution2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "SpatialDropout1D",
    "SpatialDropout2D",
    "SpatialDropout3D",
    "StackedRNNCells",
    "Subtract",
    "ThresholdedReLU",
    "TimeDistributed",
    "UpSampling1D",
    "UpSampling2D",
    "UpSampling3D",
    "Wrapper",
    "ZeroPadding1D",
    "ZeroPadding2D",
    "ZeroPadding3D",
    "add",
    "average",
    "concatenate",
    "deserialize",
    "dot",
    "maximum",
    "minimum",
    "multiply",
    "serialize",
    "subtract",
]
