"""Input pipelines of the image trainer and evaluator: ``tf.data`` from sharded TFRecords
(list files -> interleave TFRecordDatasets -> parse -> decode -> preprocess -> shuffle -> batch
-> prefetch), and a synthetic batch held in local variables for throughput runs."""

import tideflow as tf
from tideflow.models import tfrecords


def data_files(data_dir, subset):
    """The TFRecord shards of ``subset`` ("train" or "validation") in ``data_dir``."""
    pattern = f"{data_dir.rstrip('/')}/{subset}-*"
    files = tf.gfile.Glob(pattern)
    if not files:
        raise ValueError(f"No files match {pattern!r}; write them with "
                         "examples/convert_to_tfrecords.py")
    return sorted(files)


def batched_inputs(files, batch_size, preprocess_fn, channels, is_training, num_epochs=None,
                   shuffle_buffer=2000, num_shards=1, shard_index=0, seed=None,
                   one_shot=True):
    """(images, labels) batches from TFRecord ``files``: images float32 [batch, h, w, channels],
    labels int32 [batch]. Training shuffles files and records and repeats ``num_epochs`` times
    (forever when None); ``num_shards``/``shard_index`` give each worker its own files.
    Returns the iterator (one-shot, or initializable to run again) and its ``get_next()``."""
    dataset = tf.data.Dataset.from_tensor_slices(tf.constant(files))
    if num_shards > 1:
        dataset = dataset.shard(num_shards, shard_index)
    if is_training:
        dataset = dataset.shuffle(len(files), seed=seed)
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=min(4, len(files)))
    if is_training:
        dataset = dataset.shuffle(shuffle_buffer, seed=seed)
    dataset = dataset.repeat(num_epochs)

    def parse(serialized):
        encoded, label, _, _, _ = tfrecords.parse_example_proto(serialized)
        image = tf.image.decode_image(encoded, channels=channels)
        return preprocess_fn(image, is_training), label

    dataset = dataset.map(parse)
    dataset = dataset.batch(batch_size)
    dataset = dataset.prefetch(2)
    iterator = (dataset.make_one_shot_iterator() if one_shot
                else dataset.make_initializable_iterator())
    return iterator, iterator.get_next()


def synthetic_inputs(batch_size, image_size, channels, num_classes, seed=None):
    """One random batch kept in local variables (no input cost per step): images uniform in
    [-1, 1] and uniformly random labels."""
    images = tf.Variable(
        tf.random_uniform([batch_size, image_size, image_size, channels], -1.0, 1.0,
                          seed=seed),
        trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="synthetic_images")
    labels = tf.Variable(
        tf.random_uniform([batch_size], 0, num_classes, dtype=tf.int32, seed=seed),
        trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="synthetic_labels")
    return tf.identity(images), tf.identity(labels)
