"""``tf.contrib.learn.io``'s queue-based graph readers (``learn_io/graph_io.py`` in TF 1.x):
``read_batch_examples``, ``read_keyed_batch_examples``, ``read_batch_features``,
``read_keyed_batch_features``, ``read_batch_record_features`` and ``queue_parsed_features``.

A file-name queue (``string_input_producer``, shuffled when ``randomize_input``) feeds
``num_threads`` readers; their records are batched by ``shuffle_batch_join`` (or ``batch_join``
when not randomized), the final batch may be smaller when ``num_epochs`` is set, and the feature
readers parse the batch with ``parse_example`` and hand it through one more FIFO queue filled by
``num_enqueue_threads`` runners, as TF does. Names follow TF's scopes
(``<name>/file_name_queue/limit_epochs/epochs`` for the epoch counter).
"""

from tideflow.framework import dtypes, errors, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.ops import data_flow_ops, io_ops, parsing_ops
from tideflow.ops.cast_ops import cast
from tideflow.ops.constant_op import constant
from tideflow.train import input as _input
from tideflow.train import queue_runner

_KEY = "__key__"


def _file_names(file_pattern, randomize_input):
    from tideflow import gfile

    patterns = file_pattern if isinstance(file_pattern, (list, tuple)) else [file_pattern]
    if isinstance(file_pattern, (list, tuple)) and not file_pattern:
        raise ValueError("No files given to dequeue_examples.")
    names = []
    for p in patterns:
        names.extend(gfile.Glob(p))
    if not names:
        raise ValueError(f"No files match {file_pattern}.")
    return names if randomize_input else sorted(names)


def _check(batch_size, queue_capacity, read_batch_size, num_threads, num_epochs):
    if not queue_capacity or queue_capacity <= 0:
        raise ValueError(f"Invalid queue_capacity {queue_capacity}.")
    if batch_size is None or (not isinstance(batch_size, ops.Tensor)
                              and (batch_size <= 0 or batch_size >= queue_capacity)):
        raise ValueError(f"Invalid batch_size {batch_size}, with queue_capacity {queue_capacity}.")
    if read_batch_size is None or (not isinstance(read_batch_size, ops.Tensor)
                                   and read_batch_size <= 0):
        raise ValueError(f"Invalid read_batch_size {read_batch_size}.")
    if not num_threads or num_threads <= 0:
        raise ValueError(f"Invalid num_threads {num_threads}.")
    if num_epochs is not None and num_epochs <= 0:
        raise ValueError(f"Invalid num_epochs {num_epochs}.")


def read_keyed_batch_examples(file_pattern, batch_size, reader, randomize_input=True,
                              num_epochs=None, queue_capacity=10000, num_threads=1,
                              read_batch_size=1, parse_fn=None, name=None, seed=None):
    """Returns ``(keys, examples)``: batched record keys and serialized records (or what
    ``parse_fn`` made of each read)."""
    file_names = _file_names(file_pattern, randomize_input)
    _check(batch_size, queue_capacity, read_batch_size, num_threads, num_epochs)
    many = isinstance(read_batch_size, ops.Tensor) or read_batch_size > 1
    with ops.name_scope(name, "read_batch_examples", []) as scope:
        with ops.name_scope("file_name_queue") as fq_scope:
            file_queue = _input.string_input_producer(
                constant(file_names, name="input"), num_epochs=num_epochs,
                shuffle=randomize_input, seed=seed, name=fq_scope)
        reads = []
        with ops.name_scope("read"):
            for _ in range(num_threads):
                r = reader()
                keys, records = (r.read_up_to(file_queue, read_batch_size) if many
                                 else r.read(file_queue))
                if parse_fn is None:
                    reads.append((keys, records))
                    continue
                parsed = parse_fn(records)
                if isinstance(parsed, dict):
                    parsed = dict(parsed)
                    parsed[_KEY] = keys
                    reads.append(parsed)
                else:
                    reads.append((keys, parsed))
        smaller = num_epochs is not None
        if randomize_input:
            min_after = (int(queue_capacity * 0.4) if isinstance(batch_size, ops.Tensor)
                         else max(queue_capacity - 3 * batch_size, batch_size))
            out = _input.shuffle_batch_join(reads, batch_size, capacity=queue_capacity,
                                            min_after_dequeue=min_after, seed=seed,
                                            enqueue_many=many, name=scope,
                                            allow_smaller_final_batch=smaller)
        else:
            out = _input.batch_join(reads, batch_size, capacity=queue_capacity,
                                    enqueue_many=many, name=scope,
                                    allow_smaller_final_batch=smaller)
    if isinstance(out, dict):
        out = dict(out)
        return out.pop(_KEY), out
    return tuple(out)


def read_batch_examples(file_pattern, batch_size, reader, randomize_input=True, num_epochs=None,
                        queue_capacity=10000, num_threads=1, read_batch_size=1, parse_fn=None,
                        name=None, seed=None):
    """:func:`read_keyed_batch_examples` without the keys."""
    return read_keyed_batch_examples(
        file_pattern, batch_size, reader, randomize_input=randomize_input,
        num_epochs=num_epochs, queue_capacity=queue_capacity, num_threads=num_threads,
        read_batch_size=read_batch_size, parse_fn=parse_fn, name=name, seed=seed)[1]


def queue_parsed_features(parsed_features, keys=None, feature_queue_capacity=100,
                          num_enqueue_threads=2, name=None):
    """Puts parsed features (sparse ones as indices/values/shape) through a FIFO queue filled by
    ``num_enqueue_threads`` runners; returns ``(keys or None, features)`` with static shapes
    kept."""
    with ops.name_scope(name, "queue_parsed_features", []):
        flat, layout = [], []
        for key in sorted(parsed_features):
            t = parsed_features[key]
            if isinstance(t, SparseTensor):
                layout.append((key, True))
                flat.extend([t.indices, t.values, t.dense_shape])
            else:
                layout.append((key, False))
                flat.append(ops.convert_to_tensor(t))
        if keys is not None:
            flat.append(keys)
        queue = data_flow_ops.FIFOQueue(feature_queue_capacity, [t.dtype for t in flat])
        from tideflow.summary import scalar as _summary_scalar

        _summary_scalar(f"queue/parsed_features/{queue.name}/fraction_of_"
                        f"{feature_queue_capacity}_full",
                        cast(queue.size(), dtypes.float32) * (1.0 / feature_queue_capacity))
        queue_runner.add_queue_runner(queue_runner.QueueRunner(
            queue, [queue.enqueue(flat) for _ in range(num_enqueue_threads)],
            queue_closed_exception_types=(errors.OutOfRangeError, errors.CancelledError)))
        out = queue.dequeue()
        if not isinstance(out, (list, tuple)):
            out = [out]
        out = list(out)
        for t, src in zip(out, flat):
            t.set_shape(src.get_shape())
        features, i = {}, 0
        for key, sparse in layout:
            if sparse:
                features[key] = SparseTensor(out[i], out[i + 1], out[i + 2])
                i += 3
            else:
                features[key] = out[i]
                i += 1
        return (out[-1] if keys is not None else None), features


def read_keyed_batch_features(file_pattern, batch_size, features, reader, randomize_input=True,
                              num_epochs=None, queue_capacity=10000, reader_num_threads=1,
                              feature_queue_capacity=100, num_enqueue_threads=2, parse_fn=None,
                              name=None, read_batch_size=None):
    """Returns ``(keys, features)``: batches of records parsed with ``parse_example`` against
    ``features`` (a dict of ``FixedLenFeature`` / ``VarLenFeature``)."""
    with ops.name_scope(name, "read_batch_features", []) as scope:
        keys, examples = read_keyed_batch_examples(
            file_pattern, batch_size, reader, randomize_input=randomize_input,
            num_epochs=num_epochs, queue_capacity=queue_capacity,
            num_threads=reader_num_threads,
            read_batch_size=batch_size if read_batch_size is None else read_batch_size,
            parse_fn=parse_fn, name=scope)
        parsed = parsing_ops.parse_example(examples, features)
        return queue_parsed_features(parsed, keys=keys,
                                     feature_queue_capacity=feature_queue_capacity,
                                     num_enqueue_threads=num_enqueue_threads, name=scope)


def read_batch_features(file_pattern, batch_size, features, reader, randomize_input=True,
                        num_epochs=None, queue_capacity=10000, feature_queue_capacity=100,
                        reader_num_threads=1, num_enqueue_threads=2, parse_fn=None, name=None,
                        read_batch_size=None):
    """:func:`read_keyed_batch_features` without the keys."""
    return read_keyed_batch_features(
        file_pattern, batch_size, features, reader, randomize_input=randomize_input,
        num_epochs=num_epochs, queue_capacity=queue_capacity,
        reader_num_threads=reader_num_threads, feature_queue_capacity=feature_queue_capacity,
        num_enqueue_threads=num_enqueue_threads, parse_fn=parse_fn, name=name,
        read_batch_size=read_batch_size)[1]


def read_batch_record_features(file_pattern, batch_size, features, randomize_input=True,
                               num_epochs=None, queue_capacity=10000, reader_num_threads=1,
                               name="dequeue_record_examples"):
    """:func:`read_batch_features` over TFRecord files."""
    return read_batch_features(
        file_pattern=file_pattern, batch_size=batch_size, features=features,
        reader=io_ops.TFRecordReader, randomize_input=randomize_input, num_epochs=num_epochs,
        queue_capacity=queue_capacity, reader_num_threads=reader_num_threads, name=name)


__all__ = ["queue_parsed_features", "read_batch_examples", "read_batch_features",
           "read_batch_record_features", "read_keyed_batch_examples",
           "read_keyed_batch_features"]
