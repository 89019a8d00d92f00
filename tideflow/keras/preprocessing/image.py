"""``tf.keras.preprocessing.image``: ``ImageDataGenerator`` (random rotations, shifts, shear,
zoom, channel shifts and flips, rescaling and feature/sample-wise normalization) with
``flow`` over arrays and ``flow_from_directory`` over image files (through Pillow), and the
image helpers ``load_img``, ``img_to_array``, ``array_to_img``."""

import os
import warnings

import numpy as np

from tideflow.keras import backend as K
from tideflow.keras.utils import Sequence


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Loading images requires Pillow (PIL).") from None
    return Image


def load_img(path, grayscale=False, color_mode="rgb", target_size=None,
             interpolation="nearest"):
    Image = _pil()
    img = Image.open(path)
    mode = "L" if grayscale or color_mode == "grayscale" else (
        "RGBA" if color_mode == "rgba" else "RGB")
    if img.mode != mode:
        img = img.convert(mode)
    if target_size is not None:
        size = (target_size[1], target_size[0])
        if img.size != size:
            method = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR,
                      "bicubic": Image.BICUBIC}[interpolation]
            img = img.resize(size, method)
    return img


def img_to_array(img, data_format=None, dtype=None):
    x = np.asarray(img, dtype=dtype or K.floatx())
    if x.ndim == 2:
        x = x[:, :, None]
    if (data_format or K.image_data_format()) == "channels_first":
        x = x.transpose(2, 0, 1)
    return x


def array_to_img(x, data_format=None, scale=True, dtype=None):
    Image = _pil()
    x = np.asarray(x, dtype=dtype or K.floatx())
    if (data_format or K.image_data_format()) == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - x.min()
        top = x.max()
        if top:
            x = x / top * 255
    x = x.astype("uint8")
    return Image.fromarray(x[:, :, 0] if x.shape[2] == 1 else x)


def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=0,
                           col_axis=1, channel_axis=2, fill_mode="nearest", cval=0.0,
                           order=1):
    """Rotates (degrees), shifts (pixels), shears (degrees) and zooms one image, as
    keras_preprocessing 1.1.2 (the release TF 1.15 installs): the matrix turns about
    ``size / 2 + 0.5`` and ``tx`` moves along the row axis, ``ty`` along the column axis
    (tf_keras 2.x later turns about ``(size - 1) / 2`` and swaps them)."""
    from scipy import ndimage

    # (1.1.2 checks none of the axes: its random_rotation/shift/shear/zoom pass only the
    # channel axis, so a channels-first image turns about its channel and row sizes)
    matrix = None

    def combine(m):
        return m if matrix is None else matrix @ m

    if theta:
        t = np.deg2rad(theta)
        matrix = combine(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0],
                                   [0, 0, 1]]))
    if tx or ty:
        matrix = combine(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear:
        s = np.deg2rad(shear)
        matrix = combine(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        matrix = combine(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if matrix is None:
        return x
    h, w = x.shape[row_axis], x.shape[col_axis]
    ox, oy = h / 2 + 0.5, w / 2 + 0.5
    offset = np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1]])
    reset = np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]])
    matrix = offset @ matrix @ reset
    x = np.rollaxis(x, channel_axis, 0)
    channels = [ndimage.affine_transform(c, matrix[:2, :2], matrix[:2, 2], order=order,
                                         mode=fill_mode, cval=cval) for c in x]
    return np.rollaxis(np.stack(channels, 0), 0, channel_axis + 1)


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Writes the image array ``x`` to ``path`` (through Pillow; ``file_format`` from the
    name when None). An RGBA image saved as JPEG is converted to RGB first."""
    img = array_to_img(x, data_format=data_format or K.image_data_format(), scale=scale)
    if img.mode == "RGBA" and file_format in ("jpg", "jpeg"):
        import warnings

        warnings.warn("The JPG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


# -- random transforms of one image (keras_preprocessing 1.1: channels first by default) --------

def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                    cval=0.0, interpolation_order=1):
    """Rotates ``x`` by a uniform angle in [-rg, rg] degrees."""
    theta = np.random.uniform(-rg, rg)
    return apply_affine_transform(x, theta=theta, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    """Shifts ``x`` by uniform fractions of its height (``hrg``) and width (``wrg``)."""
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return apply_affine_transform(x, tx=tx, ty=ty, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1):
    """Shears ``x`` by a uniform angle in [-intensity, intensity] degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return apply_affine_transform(x, shear=shear, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                cval=0.0, interpolation_order=1):
    """Zooms ``x`` by two uniform factors in ``zoom_range`` (rows, columns)."""
    if len(zoom_range) != 2:
        raise ValueError("`zoom_range` should be a tuple or list of two floats. Received: "
                         f"{zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return apply_affine_transform(x, zx=zx, zy=zy, channel_axis=channel_axis,
                                  fill_mode=fill_mode, cval=cval, order=interpolation_order)


def apply_channel_shift(x, intensity, channel_axis=0):
    """Adds ``intensity`` to every channel, clipped to the image's [min, max]."""
    x = np.rollaxis(x, channel_axis, 0)
    lo, hi = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, lo, hi) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def random_channel_shift(x, intensity_range, channel_axis=0):
    """``apply_channel_shift`` by a uniform intensity in [-range, range]."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


def apply_brightness_shift(x, brightness, scale=True):
    """Pillow's brightness enhancement by ``brightness`` of the image ``x`` (scaled to
    [0, 255] first, as ``array_to_img``)."""
    try:
        from PIL import ImageEnhance
    except ImportError:
        raise ImportError("Using brightness shifts requires PIL. Install PIL or "
                          "Pillow.") from None
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    img = array_to_img(x, scale=local_scale or scale)
    img = ImageEnhance.Brightness(img).enhance(brightness)
    x = img_to_array(img)
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


def random_brightness(x, brightness_range, scale=True):
    """``apply_brightness_shift`` by a uniform factor in ``brightness_range``."""
    if len(brightness_range) != 2:
        raise ValueError("`brightness_range should be tuple or list of two floats. "
                         f"Received: {brightness_range}")
    u = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, u, scale)


class ImageDataGenerator:
    """Batches of randomly transformed and normalized images."""

    def __init__(self, featurewise_center=False, samplewise_center=False,
                 featurewise_std_normalization=False, samplewise_std_normalization=False,
                 zca_whitening=False, zca_epsilon=1e-6, rotation_range=0, width_shift_range=0.0,
                 height_shift_range=0.0, brightness_range=None, shear_range=0.0, zoom_range=0.0,
                 channel_shift_range=0.0, fill_mode="nearest", cval=0.0, horizontal_flip=False,
                 vertical_flip=False, rescale=None, preprocessing_function=None,
                 data_format=None, validation_split=0.0, dtype=None):
        if zca_whitening:
            raise NotImplementedError("ImageDataGenerator(zca_whitening=True) is not "
                                      "supported.")
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.brightness_range = brightness_range
        self.shear_range = shear_range
        self.zoom_range = ([1 - zoom_range, 1 + zoom_range] if np.isscalar(zoom_range)
                           else list(zoom_range))
        self.channel_shift_range = channel_shift_range
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.data_format = data_format or K.image_data_format()
        self.validation_split = validation_split
        self.dtype = dtype or K.floatx()
        if self.data_format == "channels_first":
            self.channel_axis, self.row_axis, self.col_axis = 1, 2, 3
        else:
            self.channel_axis, self.row_axis, self.col_axis = 3, 1, 2
        self.mean = self.std = None

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the feature-wise mean and std used by the normalization options, as
        keras_preprocessing 1.1.2: on the images rescaled by ``rescale`` (and randomly
        transformed ``rounds`` times with ``augment``), the std after the centering."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError("Input to `.fit()` should have rank 4. Got array with shape: "
                             f"{x.shape}")
        if x.shape[self.channel_axis] not in {1, 3, 4}:
            warnings.warn(
                "Expected input to be images (as Numpy array) following the data format "
                f'convention "{self.data_format}" (channels on axis {self.channel_axis}), '
                f"i.e. expected either 1, 3 or 4 channels on axis {self.channel_axis}. "
                f"However, it was passed an array with shape {x.shape} "
                f"({x.shape[self.channel_axis]} channels).")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            x = np.stack([self.random_transform(img) for _ in range(rounds)
                          for img in x]).astype(self.dtype)
        axes = tuple(a for a in range(4) if a != self.channel_axis)
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.mean(x, axis=axes).reshape(shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.std(x, axis=axes).reshape(shape)

    def standardize(self, x):
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x = x * self.rescale
        if self.samplewise_center:
            x = x - np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x = x / (np.std(x, keepdims=True) + 1e-6)
        if self.featurewise_center and self.mean is not None:
            x = x - self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x = x / (self.std + 1e-6)
        return x

    def get_random_transform(self, img_shape, seed=None):
        """The random parameters of one transform, drawn from NumPy's global generator in
        Keras's order (seeding it first when ``seed`` is given, as Keras does)."""
        if seed is not None:
            np.random.seed(seed)
        h, w = img_shape[self.row_axis - 1], img_shape[self.col_axis - 1]

        def shift(r, size):
            if not r:
                return 0
            try:  # an int or a list of choices: one of them, either sign
                v = np.random.choice(r)
                v *= np.random.choice([-1, 1])
            except ValueError:  # a float: uniform in [-r, r]
                v = np.random.uniform(-r, r)
            return v * size if np.max(r) < 1 else v

        theta = (np.random.uniform(-self.rotation_range, self.rotation_range)
                 if self.rotation_range else 0)
        tx = shift(self.height_shift_range, h)
        ty = shift(self.width_shift_range, w)
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range \
            else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range,
                                                        self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": flip_horizontal, "flip_vertical": flip_vertical,
                "channel_shift_intensity": channel_shift_intensity, "brightness": brightness}

    def apply_transform(self, x, transform_parameters):
        params = transform_parameters  # (TF 1.15's parameter name)
        row, col, ch = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(x, params.get("theta", 0), params.get("tx", 0),
                                   params.get("ty", 0), params.get("shear", 0),
                                   params.get("zx", 1), params.get("zy", 1), row_axis=row,
                                   col_axis=col, channel_axis=ch, fill_mode=self.fill_mode,
                                   cval=self.cval)
        if params.get("channel_shift_intensity") is not None:
            lo, hi = np.min(x), np.max(x)
            x = np.clip(x + params["channel_shift_intensity"], lo, hi)
        if params.get("flip_horizontal"):
            x = np.flip(x, col)
        if params.get("flip_vertical"):
            x = np.flip(x, row)
        if params.get("brightness") is not None:
            # (Pillow's, on the image scaled to [0, 255] and left so, as keras_preprocessing
            # 1.1.2; tf_keras 2.x later keeps the scale)
            x = apply_brightness_shift(x, params["brightness"])
        return x

    def random_transform(self, x, seed=None):
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def flow(self, x, y=None, batch_size=32, shuffle=True, sample_weight=None, seed=None,
             save_to_dir=None, save_prefix="", save_format="png", subset=None):
        """An iterator (and ``Sequence``) of ``(x_batch, y_batch)`` over arrays."""
        return NumpyArrayIterator(x, y, self, batch_size=batch_size, shuffle=shuffle,
                                  sample_weight=sample_weight, seed=seed, subset=subset)

    def flow_from_directory(self, directory, target_size=(256, 256), color_mode="rgb",
                            classes=None, class_mode="categorical", batch_size=32,
                            shuffle=True, seed=None, save_to_dir=None, save_prefix="",
                            save_format="png", follow_links=False, subset=None,
                            interpolation="nearest"):
        """An iterator over the images of ``directory/<class>/*`` (one folder per class)."""
        return DirectoryIterator(directory, self, target_size=target_size,
                                 color_mode=color_mode, classes=classes, class_mode=class_mode,
                                 batch_size=batch_size, shuffle=shuffle, seed=seed,
                                 subset=subset, interpolation=interpolation)


class Iterator(Sequence):
    """Batches of ``n`` samples in (shuffled) order; iterable forever and indexable. As
    keras_preprocessing 1.1.2: with a ``seed``, NumPy's global generator is seeded with
    ``seed + batches seen`` before each batch (its shuffle and its images' random
    transforms draw from it)."""

    def __init__(self, n, batch_size, shuffle, seed):
        self.n, self.batch_size, self.shuffle, self.seed = n, batch_size, shuffle, seed
        self.batch_index = 0
        self.total_batches_seen = 0
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.arange(self.n)
        if self.shuffle:
            self.index_array = np.random.permutation(self.n)

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._batch(self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current = (self.batch_index * self.batch_size) % self.n if self.n else 0
            if self.n > current + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current:current + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        return self._batch(next(self.index_generator))

    next = __next__


class NumpyArrayIterator(Iterator):
    def __init__(self, x, y, generator, batch_size=32, shuffle=False, sample_weight=None,
                 seed=None, subset=None):
        x = np.asarray(x, dtype=generator.dtype)
        if x.ndim != 4:
            raise ValueError("Input data in `NumpyArrayIterator` should have rank 4. You passed "
                             f"an array with shape {x.shape}")
        if y is not None and len(x) != len(y):
            raise ValueError("`x` (images tensor) and `y` (labels) should have the same length. "
                             f"Found: x.shape = {x.shape}, y.shape = {np.asarray(y).shape}")
        if subset is not None:
            split = int(len(x) * (1 - generator.validation_split))
            part = slice(split, None) if subset == "validation" else slice(None, split)
            x = x[part]
            y = None if y is None else np.asarray(y)[part]
            sample_weight = None if sample_weight is None else np.asarray(sample_weight)[part]
        self.x, self.y = x, (None if y is None else np.asarray(y))
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = generator
        super().__init__(len(x), batch_size, shuffle, seed)

    def _batch(self, ids):
        gen = self.image_data_generator
        out = np.zeros((len(ids),) + self.x.shape[1:], dtype=gen.dtype)
        for i, j in enumerate(ids):
            xi = gen.random_transform(self.x[j].astype(gen.dtype))
            out[i] = gen.standardize(xi)
        if self.y is None:
            return out
        if self.sample_weight is not None:
            return out, self.y[ids], self.sample_weight[ids]
        return out, self.y[ids]


_IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".tif", ".tiff", ".gif")


class DirectoryIterator(Iterator):
    def __init__(self, directory, generator, target_size=(256, 256), color_mode="rgb",
                 classes=None, class_mode="categorical", batch_size=32, shuffle=True,
                 seed=None, subset=None, interpolation="nearest"):
        self.directory = directory
        self.image_data_generator = generator
        self.target_size = tuple(target_size)
        self.color_mode = color_mode
        self.class_mode = class_mode
        self.interpolation = interpolation
        channels = {"rgb": 3, "rgba": 4, "grayscale": 1}[color_mode]
        if generator.data_format == "channels_last":
            self.image_shape = self.target_size + (channels,)
        else:
            self.image_shape = (channels,) + self.target_size
        if not classes:
            classes = sorted(d for d in os.listdir(directory)
                             if os.path.isdir(os.path.join(directory, d)))
        self.class_indices = {c: i for i, c in enumerate(classes)}
        self.num_classes = len(classes)
        self.filenames, labels = [], []
        for c in classes:
            names = sorted(f for f in os.listdir(os.path.join(directory, c))
                           if f.lower().endswith(_IMAGE_EXTENSIONS))
            if subset is not None:
                split = int(len(names) * (1 - generator.validation_split))
                names = names[split:] if subset == "validation" else names[:split]
            self.filenames += [os.path.join(c, f) for f in names]
            labels += [self.class_indices[c]] * len(names)
        self.classes = np.array(labels, dtype="int32")
        self.samples = len(self.filenames)
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        super().__init__(self.samples, batch_size, shuffle, seed)

    def _batch(self, ids):
        gen = self.image_data_generator
        out = np.zeros((len(ids),) + self.image_shape, dtype=gen.dtype)
        for i, j in enumerate(ids):
            img = load_img(os.path.join(self.directory, self.filenames[j]),
                           color_mode=self.color_mode, target_size=self.target_size,
                           interpolation=self.interpolation)
            x = img_to_array(img, data_format=gen.data_format, dtype=gen.dtype)
            out[i] = gen.standardize(gen.random_transform(x))
        labels = self.classes[ids]
        if self.class_mode == "categorical":
            y = np.zeros((len(ids), self.num_classes), dtype=gen.dtype)
            y[np.arange(len(ids)), labels] = 1
        elif self.class_mode == "binary":
            y = labels.astype(gen.dtype)
        elif self.class_mode == "sparse":
            y = labels
        else:
            return out
        return out, y
