"""``tf.contrib.slim``'s data pipeline: ``tfexample_decoder`` (item handlers over parsed
``tf.train.Example`` features), ``dataset`` (a description of files, reader and decoder),
``parallel_reader`` (several readers feeding one shuffling queue), ``dataset_data_provider``
(decoded items from a dataset) and ``prefetch_queue`` (batches staged by queue runners).

They are built from tideflow's queue, reader, parsing and image ops as TF 1.x builds them
from its own, so queue runners start them (``tf.train.start_queue_runners``,
``slim.learning.train``, ``Supervisor``).
"""

import types

from tideflow import gfile, summary
from tideflow.framework import dtypes, ops
from tideflow.framework.sparse_tensor import SparseTensor as _SparseTensorValue


def _tf():
    # the public namespace holds the ops this module composes; loaded late (import order)
    import tideflow

    return tideflow


# ------------------------------------------------------------------------------------------
# data_decoder / data_provider: the base classes
# ------------------------------------------------------------------------------------------


class DataDecoder:
    """Decodes one record into a list of tensors, one per requested item."""

    def decode(self, data, items):
        raise NotImplementedError

    def list_items(self):
        raise NotImplementedError


class DataProvider:
    """Serves named tensors (``get(items)``) and the number of samples behind them."""

    def __init__(self, items_to_tensors, num_samples):
        self._items_to_tensors = items_to_tensors
        self._num_samples = num_samples

    def get(self, items):
        """The tensors of ``items`` (a list or tuple of item names), in that order."""
        self._validate_items(items)
        return [self._items_to_tensors[item] for item in items]

    def list_items(self):
        return self._items_to_tensors.keys()

    def num_samples(self):
        return self._num_samples

    def _validate_items(self, items):
        if not isinstance(items, (list, tuple)):
            raise ValueError("items must be a list or tuple")  # noqa: TRY004 - TF's class
        valid = self.list_items()
        for item in items:
            if item not in valid:
                raise ValueError(f"Item [{item}] is invalid. Valid entries include: {valid}")


# ------------------------------------------------------------------------------------------
# tfexample_decoder
# ------------------------------------------------------------------------------------------


class ItemHandler:
    """Turns the parsed features named by ``keys`` into one item."""

    def __init__(self, keys):
        self._keys = list(keys) if isinstance(keys, (tuple, list)) else [keys]

    @property
    def keys(self):
        return self._keys

    def tensors_to_item(self, keys_to_tensors):
        raise NotImplementedError


class ItemHandlerCallback(ItemHandler):
    """An item computed by ``func({key: tensor})``."""

    def __init__(self, keys, func):
        super().__init__(keys)
        self._func = func

    def tensors_to_item(self, keys_to_tensors):
        return self._func(keys_to_tensors)


def _dense_values(tensor):
    return tensor.values if isinstance(tensor, _SparseTensorValue) else tensor


class BoundingBox(ItemHandler):
    """``[num_boxes, 4]`` boxes from four coordinate features (``prefix`` + ymin, xmin,
    ymax, xmax by default)."""

    def __init__(self, keys=None, prefix=""):
        if keys is None:
            keys = ["ymin", "xmin", "ymax", "xmax"]
        elif len(keys) != 4:
            raise ValueError(f"BoundingBox expects 4 keys but got {len(keys)}")
        self._prefix = prefix
        self._full_keys = [prefix + k for k in keys]
        super().__init__(self._full_keys)

    def tensors_to_item(self, keys_to_tensors):
        tf = _tf()
        sides = [_dense_values(keys_to_tensors[k]) for k in self._full_keys]
        return tf.stack(sides, axis=1)


class Tensor(ItemHandler):
    """One feature as a dense tensor: sparse ones densified with ``default_value``, reshaped
    to ``shape`` or to the values of the ``shape_keys`` features."""

    def __init__(self, tensor_key, shape_keys=None, shape=None, default_value=0):
        if shape_keys and shape is not None:
            raise ValueError("Cannot specify both shape_keys and shape parameters.")
        if shape_keys and not isinstance(shape_keys, list):
            shape_keys = [shape_keys]
        self._tensor_key = tensor_key
        self._shape_keys = shape_keys
        self._shape = shape
        self._default_value = default_value
        super().__init__([tensor_key, *(shape_keys or [])])

    def tensors_to_item(self, keys_to_tensors):
        tf = _tf()
        tensor = keys_to_tensors[self._tensor_key]
        shape = self._shape
        if self._shape_keys:
            dims = []
            for key in self._shape_keys:
                dim = keys_to_tensors[key]
                if isinstance(dim, _SparseTensorValue):
                    dim = tf.sparse_tensor_to_dense(dim)
                dims.append(dim)
            shape = tf.reshape(tf.stack(dims), [-1])
        if isinstance(tensor, _SparseTensorValue):
            if shape is not None:
                tensor = tf.sparse_reshape(tensor, shape)
            return tf.sparse_tensor_to_dense(tensor, self._default_value)
        if shape is not None:
            tensor = tf.reshape(tensor, shape)
        return tensor


class LookupTensor(Tensor):
    """A Tensor item mapped through ``table`` (a lookup table)."""

    def __init__(self, tensor_key, table, shape_keys=None, shape=None, default_value=""):
        self._table = table
        super().__init__(tensor_key, shape_keys, shape, default_value)

    def tensors_to_item(self, keys_to_tensors):
        return self._table.lookup(super().tensors_to_item(keys_to_tensors))


class BackupHandler(ItemHandler):
    """``handler``'s item, or ``backup``'s where that one is empty."""

    def __init__(self, handler, backup):
        for role, value in (("Primary", handler), ("Backup", backup)):
            if not isinstance(value, ItemHandler):
                raise ValueError(  # noqa: TRY004 - TF's class
                    f"{role} handler is of type {type(value)} instead of ItemHandler")
        self._handler = handler
        self._backup = backup
        super().__init__(handler.keys + backup.keys)

    def tensors_to_item(self, keys_to_tensors):
        tf = _tf()
        item = self._handler.tensors_to_item(keys_to_tensors)
        return tf.cond(tf.equal(tf.reduce_prod(tf.shape(item)), 0),
                       lambda: self._backup.tensors_to_item(keys_to_tensors), lambda: item)


class SparseTensor(ItemHandler):
    """A SparseTensor whose last index column comes from the ``indices_key`` feature's values
    and whose values from the ``values_key`` feature's (densified when ``densify``)."""

    def __init__(self, indices_key=None, values_key=None, shape_key=None, shape=None,
                 densify=False, default_value=0):
        self._indices_key = indices_key or "indices"
        self._values_key = values_key or "values"
        self._shape_key = shape_key
        self._shape = shape
        self._densify = densify
        self._default_value = default_value
        super().__init__([self._indices_key, self._values_key,
                          *([shape_key] if shape_key else [])])

    def tensors_to_item(self, keys_to_tensors):
        tf = _tf()
        indices = keys_to_tensors[self._indices_key]
        values = keys_to_tensors[self._values_key]
        if self._shape_key:
            shape = keys_to_tensors[self._shape_key]
            if isinstance(shape, _SparseTensorValue):
                shape = tf.sparse_tensor_to_dense(shape)
        elif self._shape:
            shape = self._shape
        else:
            shape = indices.dense_shape
        rank = tf.shape(indices.indices)[1]
        kept = tf.slice(indices.indices, [0, 0], tf.stack([-1, rank - 1]))
        ids = tf.reshape(tf.cast(indices.values, dtypes.int64), [-1, 1])
        tensor = tf.SparseTensor(tf.concat([kept, ids], 1), values.values, shape)
        if self._densify:
            tensor = tf.sparse_tensor_to_dense(tensor, self._default_value)
        return tensor


class Image(ItemHandler):
    """A decoded ``[height, width, channels]`` image from the encoded bytes and their
    format: 'raw'/'RAW' bytes are reinterpreted as ``dtype``, JPEG goes to ``decode_jpeg``,
    anything else to ``decode_image``; reshaped to ``shape`` when given. With ``repeated``
    the feature holds several images, decoded one by one."""

    def __init__(self, image_key=None, format_key=None, shape=None, channels=3,
                 dtype=dtypes.uint8, repeated=False, dct_method=""):
        self._image_key = image_key or "image/encoded"
        self._format_key = format_key or "image/format"
        super().__init__([self._image_key, self._format_key])
        self._shape = shape
        self._channels = channels
        self._dtype = dtype
        self._repeated = repeated
        self._dct_method = dct_method

    def tensors_to_item(self, keys_to_tensors):
        tf = _tf()
        image_buffer = keys_to_tensors[self._image_key]
        image_format = keys_to_tensors[self._format_key]
        if self._repeated:
            return tf.map_fn(lambda one: self._decode(one, image_format), image_buffer,
                             dtype=self._dtype)
        return self._decode(image_buffer, image_format)

    def _decode(self, image_buffer, image_format):
        tf = _tf()

        def decode_raw():
            return tf.decode_raw(image_buffer, out_type=self._dtype)

        def decode_jpeg():
            return tf.cast(tf.image.decode_jpeg(image_buffer, channels=self._channels,
                                                dct_method=self._dct_method), self._dtype)

        def decode_other():
            return tf.cast(tf.image.decode_image(image_buffer, channels=self._channels),
                           self._dtype)

        def jpeg_or_other():
            return tf.cond(tf.image.is_jpeg(image_buffer), decode_jpeg, decode_other,
                           name="cond_jpeg")

        is_raw = tf.logical_or(tf.equal(image_format, "raw"), tf.equal(image_format, "RAW"))
        image = tf.case([(is_raw, decode_raw)], default=jpeg_or_other, exclusive=True)
        image.set_shape([None, None, self._channels])
        if self._shape is not None:
            image = tf.reshape(image, self._shape)
        return image


class TFExampleDecoder(DataDecoder):
    """Parses a serialized ``tf.train.Example`` with ``keys_to_features`` and hands the
    features to each item's handler (``items_to_handlers``)."""

    def __init__(self, keys_to_features, items_to_handlers):
        self._keys_to_features = keys_to_features
        self._items_to_handlers = items_to_handlers

    def list_items(self):
        return list(self._items_to_handlers)

    def decode(self, serialized_example, items=None):
        """The tensors of ``items`` (all items when None), in that order."""
        tf = _tf()
        example = tf.parse_single_example(serialized_example, self._keys_to_features)
        for key in sorted(self._keys_to_features):
            feature = self._keys_to_features[key]
            if isinstance(feature, tf.FixedLenFeature):
                example[key] = tf.reshape(example[key], feature.shape)
        outputs = []
        for item in items or list(self._items_to_handlers):
            handler = self._items_to_handlers[item]
            outputs.append(handler.tensors_to_item({k: example[k] for k in handler.keys}))
        return outputs


# ------------------------------------------------------------------------------------------
# dataset
# ------------------------------------------------------------------------------------------


class Dataset:
    """Where the records are (``data_sources``), how to read (``reader``, a reader class) and
    decode them (``decoder``), how many there are; extra keywords become attributes."""

    def __init__(self, data_sources, reader, decoder, num_samples, items_to_descriptions,
                 **kwargs):
        kwargs.update(data_sources=data_sources, reader=reader, decoder=decoder,
                      num_samples=num_samples, items_to_descriptions=items_to_descriptions)
        self.__dict__.update(kwargs)


# ------------------------------------------------------------------------------------------
# parallel_reader
# ------------------------------------------------------------------------------------------


def get_data_files(data_sources):
    """The files of ``data_sources`` (a path, a glob pattern or a list of them)."""
    if isinstance(data_sources, (list, tuple)):
        files = []
        for source in data_sources:
            files += get_data_files(source)
    elif any(c in data_sources for c in "*?["):
        files = gfile.Glob(data_sources)
    else:
        files = [data_sources]
    if not files:
        raise ValueError(f"No data files found in {data_sources}")
    return files


class ParallelReader:
    """``num_readers`` readers of ``reader_class`` filling ``common_queue`` with
    ``(key, value)`` records (a queue runner drives them); ``read`` dequeues one."""

    def __init__(self, reader_class, common_queue, num_readers=4, reader_kwargs=None):
        if len(common_queue.dtypes) != 2 or any(
                d.base_dtype != dtypes.string for d in common_queue.dtypes):
            raise TypeError("common_queue.dtypes must be [tf.string, tf.string]")
        self._readers = [reader_class(**(reader_kwargs or {})) for _ in range(num_readers)]
        self._common_queue = common_queue

    @property
    def num_readers(self):
        return len(self._readers)

    @property
    def common_queue(self):
        return self._common_queue

    def read(self, queue, name=None):
        """One ``(key, value)`` record read from the files of ``queue``."""
        self._start_readers(queue)
        return self._common_queue.dequeue(name=name)

    def read_up_to(self, queue, num_records, name=None):
        """Up to ``num_records`` records (fewer at the end of the input)."""
        self._start_readers(queue)
        return self._common_queue.dequeue_up_to(num_records, name=name)

    def _start_readers(self, queue):
        tf = _tf()
        enqueue_ops = [self._common_queue.enqueue(reader.read(queue))
                       for reader in self._readers]
        tf.train.add_queue_runner(tf.train.QueueRunner(self._common_queue, enqueue_ops))

    def num_records_produced(self, name=None):
        return _tf().add_n([r.num_records_produced() for r in self._readers], name=name)

    def num_work_units_completed(self, name=None):
        return _tf().add_n([r.num_work_units_completed() for r in self._readers], name=name)


def _fraction_full(queue, capacity):
    tf = _tf()
    summary.scalar(f"fraction_of_{capacity}_full",
                   tf.cast(queue.size(), dtypes.float32) * (1.0 / capacity))


def parallel_read(data_sources, reader_class, num_epochs=None, num_readers=4,
                  reader_kwargs=None, shuffle=True, dtypes=None, capacity=256,
                  min_after_dequeue=128, seed=None, scope=None):
    """A ``(key, value)`` record from ``data_sources`` read by ``num_readers`` parallel
    readers through a (shuffling when ``shuffle``) common queue of ``capacity``."""
    tf = _tf()
    files = get_data_files(data_sources)
    with ops.name_scope(scope, "parallel_read"):
        filename_queue = tf.train.string_input_producer(files, num_epochs=num_epochs,
                                                        shuffle=shuffle, seed=seed,
                                                        name="filenames")
        queue_dtypes = dtypes or [tf.string, tf.string]
        if shuffle:
            common_queue = tf.RandomShuffleQueue(capacity=capacity,
                                                 min_after_dequeue=min_after_dequeue,
                                                 dtypes=queue_dtypes, seed=seed,
                                                 name="common_queue")
        else:
            common_queue = tf.FIFOQueue(capacity=capacity, dtypes=queue_dtypes,
                                        name="common_queue")
        _fraction_full(common_queue, capacity)
        return ParallelReader(reader_class, common_queue, num_readers=num_readers,
                              reader_kwargs=reader_kwargs).read(filename_queue)


def single_pass_read(data_sources, reader_class, reader_kwargs=None, scope=None):
    """A ``(key, value)`` record of one in-order pass over ``data_sources``."""
    tf = _tf()
    files = get_data_files(data_sources)
    with ops.name_scope(scope, "single_pass_read"):
        filename_queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False,
                                                        capacity=1, name="filenames")
        return reader_class(**(reader_kwargs or {})).read(filename_queue)


# ------------------------------------------------------------------------------------------
# dataset_data_provider and prefetch_queue
# ------------------------------------------------------------------------------------------


class DatasetDataProvider(DataProvider):
    """The decoded items of ``dataset``'s records, read in parallel (shuffled unless
    ``shuffle`` is False); the record's key is the item ``record_key``."""

    def __init__(self, dataset, num_readers=1, reader_kwargs=None, shuffle=True,
                 num_epochs=None, common_queue_capacity=256, common_queue_min=128,
                 record_key="record_key", seed=None, scope=None):
        key, data = parallel_read(dataset.data_sources, reader_class=dataset.reader,
                                  num_epochs=num_epochs, num_readers=num_readers,
                                  reader_kwargs=reader_kwargs, shuffle=shuffle,
                                  capacity=common_queue_capacity,
                                  min_after_dequeue=common_queue_min, seed=seed, scope=scope)
        items = dataset.decoder.list_items()
        items_to_tensors = dict(zip(items, dataset.decoder.decode(data, items)))
        if record_key in items_to_tensors:
            raise ValueError(f"The item name used for `record_key` cannot also be used for a "
                             f"dataset item: {record_key}")
        items_to_tensors[record_key] = key
        super().__init__(items_to_tensors=items_to_tensors, num_samples=dataset.num_samples)


def prefetch_queue(tensors, capacity=8, num_threads=1, dynamic_pad=False, shared_name=None,
                   name=None):
    """A queue that ``num_threads`` queue-runner threads keep filled with ``tensors`` (a list
    or a dict, dequeued as the same structure), e.g. batches staged ahead of a model."""
    tf = _tf()
    if isinstance(tensors, dict):
        names = sorted(tensors)
        tensor_list = [tensors[n] for n in names]
    else:
        names = None
        tensor_list = list(tensors)
    with ops.name_scope(name, "prefetch_queue", tensor_list):
        queue_class = tf.PaddingFIFOQueue if dynamic_pad else tf.FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=[t.dtype for t in tensor_list],
                            shapes=[t.get_shape() for t in tensor_list], names=names,
                            shared_name=shared_name)
        enqueue_op = queue.enqueue(tensors)
        tf.train.add_queue_runner(tf.train.QueueRunner(queue, [enqueue_op] * num_threads))
        _fraction_full(queue, capacity)
        return queue


# ------------------------------------------------------------------------------------------
# the modules
# ------------------------------------------------------------------------------------------


def _module(name, doc, members):
    module = types.ModuleType(f"tideflow.contrib.slim.{name}", doc)
    for attr in members:
        setattr(module, attr, globals()[attr])
    module.__all__ = sorted(members)
    return module


data_decoder = _module("data_decoder", "``slim.data_decoder``.", ["DataDecoder"])
data_provider = _module("data_provider", "``slim.data_provider``.", ["DataProvider"])
tfexample_decoder = _module("tfexample_decoder", "``slim.tfexample_decoder``.", [
    "BackupHandler", "BoundingBox", "Image", "ItemHandler", "ItemHandlerCallback",
    "LookupTensor", "SparseTensor", "Tensor", "TFExampleDecoder"])
dataset = _module("dataset", "``slim.dataset``.", ["Dataset"])
parallel_reader = _module("parallel_reader", "``slim.parallel_reader``.", [
    "ParallelReader", "get_data_files", "parallel_read", "single_pass_read"])
dataset_data_provider = _module("dataset_data_provider", "``slim.dataset_data_provider``.",
                                ["DatasetDataProvider"])
prefetch_queue_module = _module("prefetch_queue", "``slim.prefetch_queue``.", ["prefetch_queue"])
MODULES = (data_decoder, data_provider, dataset, dataset_data_provider, parallel_reader,
           prefetch_queue_module, tfexample_decoder)
