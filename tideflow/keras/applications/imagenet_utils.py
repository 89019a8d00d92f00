"""``tf.keras.applications.imagenet_utils``: input preprocessing, prediction decoding, the input
shape checks, and the weights-file handling the application models share (keras_applications
1.0.8, as TF 1.15 bundles it)."""

import json
import os
import warnings

import numpy as np

from tideflow.keras import backend as K

CLASS_INDEX = None
CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")

_MEANS = {"caffe": (103.939, 116.779, 123.68), "torch": (0.485, 0.456, 0.406)}
_TORCH_STD = (0.229, 0.224, 0.225)


# -- preprocessing ---------------------------------------------------------------------------------
def _flip_channels(x, data_format, ndim):
    """RGB -> BGR (a reversed view for NumPy arrays, as Keras's slicing gives)."""
    if data_format == "channels_first":
        return x[::-1, ...] if ndim == 3 else x[:, ::-1, ...]
    return x[..., ::-1]


def _scale_or_flip(x, data_format, mode, ndim):
    """Each mode's first step: 'tf' scales to [-1, 1] (all it does), 'torch' to [0, 1],
    'caffe' turns RGB into BGR. Returns ``x`` and the per-channel std to divide by after the
    mean ('torch'; None otherwise)."""
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x, None
    if mode == "torch":
        x /= 255.0
        return x, _TORCH_STD
    return _flip_channels(x, data_format, ndim), None


def _preprocess_numpy_input(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(K.floatx(), copy=False)
    x, std = _scale_or_flip(x, data_format, mode, x.ndim)
    if mode == "tf":
        return x
    mean = _MEANS["torch" if mode == "torch" else "caffe"]
    for c in range(3):
        if data_format == "channels_first":
            channel = (slice(None),) * (x.ndim - 3) + (c,)
        else:
            channel = (Ellipsis, c)
        x[channel] -= mean[c]
        if std is not None:
            x[channel] /= std[c]
    return x


def _preprocess_symbolic_input(x, data_format, mode):
    x, std = _scale_or_flip(x, data_format, mode, K.ndim(x))
    if mode == "tf":
        return x
    mean = K.constant(-np.array(_MEANS["torch" if mode == "torch" else "caffe"]))
    if K.dtype(x) != K.dtype(mean):
        mean = K.cast(mean, K.dtype(x))
    x = K.bias_add(x, mean, data_format=data_format)
    if std is not None:
        # per channel along the channel axis (keras_applications 1.0.8 divided along the last
        # axis whatever the format; later Keras, as tf_keras, fixed it)
        std = K.constant(np.array(std), dtype=K.dtype(x))
        if data_format == "channels_first":
            std = K.reshape(std, (-1, 1, 1))
        x /= std
    return x


def preprocess_input(x, data_format=None, mode="caffe", **kwargs):
    """Preprocesses a batch of images (NumPy array, in place where the dtype allows, or a
    tensor). ``mode``: 'caffe' (RGB->BGR, minus the ImageNet channel means), 'tf' (to [-1, 1])
    or 'torch' (to [0, 1], then per-channel mean/std)."""
    if data_format is None:
        data_format = K.image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Unknown data_format " + str(data_format))
    if isinstance(x, np.ndarray):
        return _preprocess_numpy_input(x, data_format, mode)
    return _preprocess_symbolic_input(x, data_format, mode)


# -- the Keras file cache ---------------------------------------------------------------------
def fetch(fname, origin, file_hash=None):
    """``get_file(fname, origin, cache_subdir='models', file_hash=...)``: the cached copy in
    ``~/.keras/models``, else a download. When the download fails (no network), TF's
    ``'URL fetch failure on <origin>'`` error also says where a copy would be found."""
    from tideflow.keras.data_utils import get_file

    try:
        return get_file(fname, origin, cache_subdir="models", file_hash=file_hash)
    except Exception as e:
        base = os.path.join(os.path.expanduser("~"), ".keras")
        if not os.access(base, os.W_OK):
            base = os.path.join("/tmp", ".keras")  # as get_file falls back
        where = os.path.join(base, "models", fname)
        if str(e).startswith("URL fetch failure"):
            raise Exception(f"{e} (no usable copy at {where}: "  # noqa: TRY002 (as get_file)
                            "place the file there to use it offline)") from e
        raise


# -- decoding ------------------------------------------------------------------------------------
def decode_predictions(preds, top=5, **kwargs):
    """The ``top`` ImageNet classes of each row of ``preds`` (shape (samples, 1000)), as lists
    of ``(class_name, class_description, score)``. Needs ``imagenet_class_index.json`` in the
    Keras cache (``~/.keras/models``)."""
    global CLASS_INDEX
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         "of shape (samples, 1000)). Found array with shape: "
                         + str(preds.shape))
    if CLASS_INDEX is None:
        fpath = fetch("imagenet_class_index.json", CLASS_INDEX_PATH,
                      file_hash="c2c37ea517e94d9795004a39431a14cb")
        with open(fpath) as f:
            CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        result = [(*CLASS_INDEX[str(i)], pred[i]) for i in top_indices]
        result.sort(key=lambda r: r[2], reverse=True)
        results.append(result)
    return results


# -- the input shape -------------------------------------------------------------------------------
def _obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                        weights=None):
    """The model's input shape: ``input_shape`` checked (3 channels for ImageNet weights,
    at least ``min_size`` rows and columns), or the default one."""
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {channels} input channels.",
                          stacklevel=3)
        default_shape = ((channels, default_size, default_size) if channels_first
                         else (default_size, default_size, channels))
    else:
        default_shape = ((3, default_size, default_size) if channels_first
                         else (default_size, default_size, 3))
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default_shape}.")
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        rows, cols = (input_shape[1], input_shape[2]) if channels_first else input_shape[:2]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; got `input_shape={input_shape}`")
        if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; got "
                             f"`input_shape={input_shape}`")
    else:
        input_shape = default_shape if require_flatten else (
            (3, None, None) if channels_first else (None, None, 3))
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. "
                         f"Got `input_shape={input_shape}`")
    return input_shape


obtain_input_shape = _obtain_input_shape
