"""Image data sets as sharded TFRecord files of ``tf.train.Example`` protos with the standard
Inception keys (``image/encoded``, ``image/format``, ``image/class/label``, ``image/height``,
``image/width``, ``image/channels``, ``image/filename``): writers for the digits set and for a
folder of class sub-folders of PNG/JPEG images, and the parser a reader needs."""

import os

import numpy as np

import tideflow as tf

_FORMATS = {".png": b"PNG", ".jpg": b"JPEG", ".jpeg": b"JPEG"}


def _int64_feature(value):
    values = value if isinstance(value, (list, tuple)) else [value]
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[int(v) for v in values]))


def _bytes_feature(value):
    if isinstance(value, str):
        value = value.encode("utf-8")
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def convert_to_example(encoded, image_format, label, height, width, channels, filename=b"",
                       text=b""):
    """One image as a ``tf.train.Example`` with the standard keys."""
    return tf.train.Example(features=tf.train.Features(feature={
        "image/encoded": _bytes_feature(encoded),
        "image/format": _bytes_feature(image_format),
        "image/class/label": _int64_feature(label),
        "image/class/text": _bytes_feature(text),
        "image/height": _int64_feature(height),
        "image/width": _int64_feature(width),
        "image/channels": _int64_feature(channels),
        "image/filename": _bytes_feature(filename),
    }))


class ImageCoder:
    """Encodes uint8 arrays as PNG and decodes image files in one Session of its own graph."""

    def __init__(self):
        self._graph = tf.Graph()
        with self._graph.as_default():
            self._pixels = tf.placeholder(tf.uint8, [None, None, None], name="pixels")
            self._png = tf.image.encode_png(self._pixels)
            self._contents = tf.placeholder(tf.string, [], name="contents")
            self._decoded = tf.image.decode_image(self._contents)
        self._sess = tf.Session(graph=self._graph)

    def encode_png(self, pixels):
        return self._sess.run(self._png, {self._pixels: pixels})

    def decode(self, contents):
        return self._sess.run(self._decoded, {self._contents: contents})

    def close(self):
        self._sess.close()


def shard_name(output_dir, name, shard, num_shards):
    """``<output_dir>/<name>-00000-of-00004``."""
    return os.path.join(output_dir, f"{name}-{shard:05d}-of-{num_shards:05d}")


def write_shards(examples, output_dir, name, num_shards):
    """Writes ``examples`` (a list of ``tf.train.Example``) in order into ``num_shards`` files of
    nearly equal size; returns the file names."""
    if num_shards < 1:
        raise ValueError(f"num_shards must be positive: {num_shards}")
    tf.gfile.MakeDirs(output_dir)
    bounds = np.linspace(0, len(examples), num_shards + 1).astype(int)
    files = []
    for shard in range(num_shards):
        path = shard_name(output_dir, name, shard, num_shards)
        with tf.python_io.TFRecordWriter(path) as writer:
            for example in examples[bounds[shard]:bounds[shard + 1]]:
                writer.write(example.SerializeToString())
        files.append(path)
    return files


def digits_split(seed=0):
    """scikit-learn's digits as uint8 [8, 8] images: ((train, labels), (validation, labels)),
    the same 1500/297 split as ``examples/digits_data.py``."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    pixels = np.round(digits.images * (255.0 / 16.0)).astype(np.uint8)
    labels = digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(pixels))
    pixels, labels = pixels[order], labels[order]
    return (pixels[:1500], labels[:1500]), (pixels[1500:], labels[1500:])


def convert_digits(output_dir, train_shards=4, validation_shards=2, seed=0):
    """Writes the digits as 8x8x1 PNGs into ``train-*`` and ``validation-*`` shards; returns
    {split name: number of examples}."""
    coder = ImageCoder()
    counts = {}
    try:
        for name, (pixels, labels), shards in zip(
                ("train", "validation"), digits_split(seed), (train_shards, validation_shards)):
            examples = [
                convert_to_example(coder.encode_png(p[:, :, None]), b"PNG", label, 8, 8, 1,
                                   filename=f"digits/{name}/{i}.png", text=str(label))
                for i, (p, label) in enumerate(zip(pixels, labels))]
            write_shards(examples, output_dir, name, shards)
            counts[name] = len(examples)
    finally:
        coder.close()
    return counts


def find_image_files(data_dir, labels=None):
    """(file names, integer labels, class names) of the PNG/JPEG files under ``data_dir``'s
    class sub-folders; ``labels`` fixes the class order (default: the sorted folder names)."""
    if labels is None:
        labels = sorted(d for d in tf.gfile.ListDirectory(data_dir)
                        if tf.gfile.IsDirectory(os.path.join(data_dir, d)))
    files, indices, texts = [], [], []
    for index, text in enumerate(labels):
        folder = os.path.join(data_dir, text)
        for base in sorted(tf.gfile.ListDirectory(folder)):
            if os.path.splitext(base)[1].lower() in _FORMATS:
                files.append(os.path.join(folder, base))
                indices.append(index)
                texts.append(text)
    return files, indices, texts


def convert_image_folder(data_dir, output_dir, name, num_shards, labels=None, label_offset=0,
                         seed=12345):
    """Writes every image of ``data_dir/<class>/`` into ``<name>-*`` shards, shuffled, keeping
    each file's original bytes; the label is the class's index plus ``label_offset`` (1 leaves
    0 for a background class, as the Inception data does). Returns the number of images."""
    files, indices, texts = find_image_files(data_dir, labels)
    order = np.random.RandomState(seed).permutation(len(files))
    coder = ImageCoder()
    examples = []
    try:
        for i in order:
            with tf.gfile.GFile(files[i], "rb") as f:
                contents = f.read()
            height, width, channels = coder.decode(contents).shape
            fmt = _FORMATS[os.path.splitext(files[i])[1].lower()]
            examples.append(convert_to_example(
                contents, fmt, indices[i] + label_offset, height, width, channels,
                filename=os.path.basename(files[i]), text=texts[i]))
    finally:
        coder.close()
    write_shards(examples, output_dir, name, num_shards)
    return len(examples)


def parse_example_proto(serialized):
    """(encoded image, int32 label, image height, width, channels) of one serialized Example."""
    features = tf.parse_single_example(serialized, {
        "image/encoded": tf.FixedLenFeature([], tf.string, default_value=""),
        "image/class/label": tf.FixedLenFeature([], tf.int64, default_value=-1),
        "image/height": tf.FixedLenFeature([], tf.int64, default_value=0),
        "image/width": tf.FixedLenFeature([], tf.int64, default_value=0),
        "image/channels": tf.FixedLenFeature([], tf.int64, default_value=0),
    })
    return (features["image/encoded"], tf.cast(features["image/class/label"], tf.int32),
            features["image/height"], features["image/width"], features["image/channels"])


def count_records(file_pattern):
    """The number of records in the files matching ``file_pattern``."""
    return sum(1 for path in tf.gfile.Glob(file_pattern)
               for _ in tf.python_io.tf_record_iterator(path))
